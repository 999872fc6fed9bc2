// Bodies of the libFuzzer harnesses (tests/fuzz/fuzz_*.cpp) and of the replay of their findings
// in the normal suite (tests/test_fuzz_regressions.cpp). Each takes one input and returns "" or
// the property it broke; the harness aborts on a non-empty result, so libFuzzer reports it.
//
// Properties: bad input is a core::ConfigError only (any other exception is a bug), whose
// message is printable UTF-8 of at most kMaxMessage bytes (echoed input is cut); what is accepted
// survives its use (a parsed case through DC power flow, PTDF and DC-OPF; a spec through to_toml
// and back unchanged and through sweep expansion; a profile through the splits; a restored
// checkpoint through env steps and a learner action). ASan + UBSan report the rest.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/data/profile.hpp"
#include "powerzoo/exp/run/checkpoint.hpp"
#include "powerzoo/exp/spec/build.hpp"
#include "powerzoo/exp/spec/learners.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/exp/sweep/sweep.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dc/dc.hpp"
#include "powerzoo/grid/dc/dcopf.hpp"
#include "powerzoo/io/hdf5.hpp"
#include "powerzoo/vec/vector_env.hpp"

namespace pz::fuzz {

inline constexpr size_t kMaxMessage = 4000;

/// "" if `e` is a well-formed bad-input message, else what is wrong with it.
inline std::string check_message(const std::exception& e) {
  const std::string m = e.what();
  if (m.size() > kMaxMessage)
    return "message of " + std::to_string(m.size()) + " bytes: " + core::echo(m, 300);
  if (!core::printable_utf8(m)) return "message not printable UTF-8: " + core::echo(m, 300);
  return "";
}

/// Runs f; "" if it returned or threw a well-formed ConfigError, else the violation.
template <class F>
std::string only_config_errors(F&& f) {
  try {
    return f();
  } catch (const core::ConfigError& e) {
    return check_message(e);
  } catch (const std::exception& e) {
    return std::string("not a ConfigError: ") + typeid(e).name() + ": " + core::echo(e.what(), 300);
  }
}

// ---- MATPOWER reader and case builder -------------------------------------------------------

inline std::string one_matpower(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  return only_config_errors([&]() -> std::string {
    grid::Case c = grid::parse_case(text, "fuzz.m");
    if (c.n_bus() > 64 || c.n_branch() > 256 || c.n_gen() > 64) return "";  // keep runs short
    grid::run_dcpf(c);
    grid::make_ptdf(c, c.ref_bus_idx);  // ConfigError on an islanded network
    if (static_cast<int>(c.gencost.size()) == c.n_gen() && c.n_gen() > 0) {
      grid::DcOpf opf(c);
      opf.solve();
    }
    return "";
  });
}

// ---- TOML spec, key=value overrides, sweep expansion ---------------------------------------

/// Input: TOML text, then optionally a line "%%" and one key=value argument per line.
inline std::string one_spec(const uint8_t* data, size_t size) {
  const std::string in(reinterpret_cast<const char*>(data), size);
  const size_t cut = in.find("\n%%\n");
  const std::string toml = in.substr(0, cut);
  std::vector<std::string> args;
  if (cut != std::string::npos) {
    std::string rest = in.substr(cut + 4), line;
    for (size_t b = 0; b <= rest.size(); ++b) {
      if (b == rest.size() || rest[b] == '\n') {
        if (!line.empty()) args.push_back(line);
        line.clear();
      } else {
        line += rest[b];
      }
    }
  }
  return only_config_errors([&]() -> std::string {
    std::vector<std::string> fixed;
    for (const auto& a : args)
      if (a.find('=') != std::string::npos && a.find(',') == std::string::npos) fixed.push_back(a);
    const exp::Spec s = exp::parse_spec(toml, "fuzz.toml", fixed);
    const std::string t = exp::to_toml(s);
    const std::string back = exp::to_toml(exp::parse_spec(t, "fuzz.toml"));
    if (back != t) return "to_toml(parse_spec(to_toml(s))) differs from to_toml(s):\n" + t;
    exp::expand_sweep(toml, "fuzz.toml", args, 64);
    return "";
  });
}

// ---- CSV profile loader ---------------------------------------------------------------------

inline std::string one_profile(const uint8_t* data, size_t size) {
  // The loader reads a path: the input lives in an anonymous in-memory file.
  const int fd = memfd_create("fuzz.csv", MFD_CLOEXEC);
  if (fd < 0) return "";
  for (size_t done = 0; done < size;) {
    const ssize_t w = ::write(fd, data + done, size - done);
    if (w <= 0) break;
    done += static_cast<size_t>(w);
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  std::string out = only_config_errors([&]() -> std::string {
    const data::Profile p = data::load_profile(path);
    for (const char* split : {"train", "iid"}) {
      try {
        data::split_mean(p, data::split_by_name(split));
        data::episode_starts(p, data::split_by_name(split), 48);
      } catch (const core::ConfigError& e) {
        if (std::string m = check_message(e); !m.empty()) return m;
      }
    }
    return "";
  });
  ::close(fd);
  return out;
}

// ---- Checkpoint readers (restore of a run, learner load, env states) -----------------------

/// One run's learner and vector env, and the StateDict a checkpoint of it holds.
struct RunUnderTest {
  exp::Spec spec;
  std::shared_ptr<const envs::Env> env;
  std::unique_ptr<core::ThreadPool> pool;
  std::unique_ptr<rl::Learner> learner;
  std::unique_ptr<vec::VectorEnv> venv;
  core::StateDict base;
};

inline std::unique_ptr<RunUnderTest> make_run(const std::string& toml) {
  auto r = std::make_unique<RunUnderTest>();
  r->spec = exp::parse_spec(toml, "fuzz_run.toml");
  r->env = exp::make_learner_env(r->spec, r->spec.env.split, true);
  r->pool = std::make_unique<core::ThreadPool>(1);
  core::Rng init(1, 1);
  r->learner =
      exp::make_spec_learner(r->spec, r->env->spec(), r->spec.vec.n_envs, init, r->pool.get());
  r->venv = std::make_unique<vec::VectorEnv>(r->env, r->spec.vec.n_envs, 1, exp::kEnvStreamBase,
                                             *r->pool);
  r->venv->reset_all();
  exp::RunStreams rngs(1);
  const std::string path = std::filesystem::temp_directory_path() /
                           ("pz_fuzz_ckpt_" + std::to_string(::getpid()) + ".h5");
  exp::write_run_checkpoint(path, *r->learner, rngs, *r->venv, exp::LoopCounters{},
                            exp::MetricHistory{}, exp::to_toml(r->spec));
  r->base = io::read_checkpoint(path, nullptr);
  std::filesystem::remove(path);
  return r;
}

/// The runs the checkpoint harness restores into: one per kind of env state (trans_grid, tso,
/// gencos, dso, ders, dc_microgrid) and of learner state (PPO, IPPO, Beta PPO, SAC).
inline std::vector<std::unique_ptr<RunUnderTest>>& runs() {
  static std::vector<std::unique_ptr<RunUnderTest>> all = [] {
    std::vector<std::unique_ptr<RunUnderTest>> v;
    const std::string small = "[vec]\nn_envs = 2\n[learner]\nrollout_length = 4\n";
    const std::string ppo = "[ppo]\nn_minibatches = 1\nhidden = [4]\n";
    auto ippo = [&](const char* sharing) {
      return small + "algo = \"ippo\"\n" + ppo + "[ippo]\nsharing = \"" + sharing + "\"\n";
    };
    v.push_back(make_run("[env]\ncase = \"case5\"\nhorizon = 6\n" + small + ppo));
    v.push_back(make_run("[env]\ntask = \"tso\"\nhorizon = 6\n" + small + ppo));
    v.push_back(make_run("[env]\ntask = \"gencos\"\n" + ippo("full")));
    v.push_back(make_run("[env]\ntask = \"dso\"\n" + small + ppo));
    v.push_back(make_run("[env]\ntask = \"ders\"\n" + ippo("typed")));
    v.push_back(make_run("[env]\ntask = \"dc_microgrid\"\n" + small + ppo + "policy = \"beta\"\n"));
    // SAC: the replay buffer and its cursor are part of the learner state.
    v.push_back(
        make_run("[env]\ncase = \"case5\"\nhorizon = 6\n[vec]\nn_envs = 2\n[learner]\n"
                 "algo = \"sac\"\nrollout_length = 4\n[sac]\nhidden = [4]\n"
                 "buffer_size = 64\nlearning_starts = 8\nbatch_size = 8\n"));
    return v;
  }();
  return all;
}

/// Input: byte 0 picks the run; then edits of its checkpoint's StateDict, 12 bytes each: kind
/// (f32, f64, i64 value; resize; erase), entry index, element index (2 bytes), 8 value bytes.
inline std::string one_checkpoint(const uint8_t* data, size_t size) {
  if (size < 1) return "";
  auto& all = runs();
  RunUnderTest& r = *all[data[0] % all.size()];
  core::StateDict sd = r.base;
  for (size_t p = 1; p + 12 <= size; p += 12) {
    const uint8_t kind = data[p] % 5, which = data[p + 1];
    const size_t at = data[p + 2] | (static_cast<size_t>(data[p + 3]) << 8);
    double d;
    int64_t i;
    float f;
    std::memcpy(&d, data + p + 4, 8);
    std::memcpy(&i, data + p + 4, 8);
    std::memcpy(&f, data + p + 4, 4);
    auto edit = [&](auto& map, auto value) {
      if (map.empty()) return;
      auto it = std::next(map.begin(), which % map.size());
      auto& v = it->second;
      if (kind == 3)
        v.resize(at % (v.size() + 2));
      else if (kind == 4)
        map.erase(it);
      else if (!v.empty())
        v[at % v.size()] = value;
    };
    if (kind == 0 || (kind >= 3 && which % 3 == 0))
      edit(sd.f32, f);
    else if (kind == 1 || (kind >= 3 && which % 3 == 1))
      edit(sd.f64, d);
    else
      edit(sd.i64, i);
  }
  return only_config_errors([&]() -> std::string {
    exp::RunStreams rngs(1);
    exp::LoopCounters ctr;
    exp::MetricHistory hist;
    exp::restore_run_checkpoint(sd, *r.learner, rngs, *r.venv, ctr, hist);
    // What was accepted must be usable: act on it and step every env twice.
    const auto& esp = r.env->spec();
    std::vector<float> act(static_cast<size_t>(r.spec.vec.n_envs) * esp.act_dim);
    for (int k = 0; k < 2; ++k) {
      r.learner->act(r.venv->obs.data(), r.spec.vec.n_envs, nullptr, act.data());
      for (float& a : act) a = std::isfinite(a) ? a : 0.0f;  // a checkpoint may hold any number
      r.venv->step_all(act.data());
    }
    return "";
  });
}

}  // namespace pz::fuzz

/// The libFuzzer entry point of a harness: runs pz::fuzz::one_<name> and aborts with the broken
/// property on stderr, so libFuzzer keeps the input as a crash artifact.
#define PZ_FUZZ_ENTRY(name)                                                 \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { \
    const std::string why = pz::fuzz::one_##name(data, size);               \
    if (!why.empty()) {                                                     \
      std::fprintf(stderr, "fuzz_" #name ": %s\n", why.c_str());            \
      std::abort();                                                         \
    }                                                                       \
    return 0;                                                               \
  }
