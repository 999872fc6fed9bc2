// The Python module powerzoo._core: VecEnv, a batch of powerzoo envs stepped natively on a
// thread pool with the GIL released (docs/custom-loops.md). Conventions: Gymnasium 1.x's vector
// API (same-step autoreset, final observations in info) and EnvPool's batched numpy arrays.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>

#include "arrays.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/envs/network_view.hpp"
#include "rollout.hpp"
#include "vec_session.hpp"

namespace pyb = pybind11;
using pyb::ssize_t;

namespace pz::py {
namespace {

/// One VecEnv: the session, and a flag that refuses a second thread stepping the same env while
/// the first has released the GIL.
struct PyVecEnv {
  explicit PyVecEnv(const VecOptions& o) : s(o) {}
  VecSession s;
  std::atomic<bool> busy{false};
  /// The traces step() puts in info (make_vec's info_traces): indices into trace_names and
  /// trace_vectors; none by default, so a plain step pays nothing for them.
  std::vector<size_t> scalar_traces, vector_traces;
  bool traced() const { return !scalar_traces.empty() || !vector_traces.empty(); }
};

/// Every trace step() can put in info: trace_names, then trace_vectors' names.
std::vector<std::string> all_trace_names(const envs::EnvSpec& sp) {
  std::vector<std::string> names = sp.trace_names;
  for (const auto& tv : sp.trace_vectors) names.push_back(tv.name);
  return names;
}

std::string quoted_list(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "'" : ", '") + n + "'";
  return "[" + s + "]";
}

/// make_vec's info_traces: None / False (none), True (every trace) or a list of trace names.
/// Raises ValueError for another type or an unknown name (naming the env's names).
void select_traces(PyVecEnv& e, pyb::handle sel) {
  const envs::EnvSpec& sp = e.s.env_spec();
  const std::vector<std::string> all = all_trace_names(sp);
  std::vector<std::string> names;
  if (sel.is_none() || (pyb::isinstance<pyb::bool_>(sel) && !sel.cast<bool>())) return;
  if (pyb::isinstance<pyb::bool_>(sel)) {
    names = all;
  } else if (pyb::isinstance<pyb::list>(sel) || pyb::isinstance<pyb::tuple>(sel)) {
    for (auto item : sel) {
      if (!pyb::isinstance<pyb::str>(item))
        throw pyb::value_error("info_traces: expected trace names (str), found " +
                               std::string(pyb::str(pyb::type::handle_of(item).attr("__name__"))));
      names.push_back(item.cast<std::string>());
    }
  } else {
    throw pyb::value_error(
        "info_traces: expected True, False, None or a list of trace names, found " +
        std::string(pyb::str(pyb::type::handle_of(sel).attr("__name__"))));
  }
  for (const auto& n : names) {
    const auto it = std::find(all.begin(), all.end(), n);
    if (it == all.end())
      throw pyb::value_error("info_traces: expected names of the env's traces " + quoted_list(all) +
                             ", found '" + n + "'");
    const size_t j = static_cast<size_t>(it - all.begin());
    auto& list = j < sp.trace_names.size() ? e.scalar_traces : e.vector_traces;
    const size_t idx = j < sp.trace_names.size() ? j : j - sp.trace_names.size();
    if (std::find(list.begin(), list.end(), idx) == list.end()) list.push_back(idx);
  }
}

class BusyGuard {
 public:
  BusyGuard(PyVecEnv& e, const char* what) : e_(e) {
    if (e_.busy.exchange(true))
      throw pyb::value_error(std::string(what) +
                             ": the env is being stepped by another thread (one call at a time)");
  }
  ~BusyGuard() { e_.busy = false; }

 private:
  PyVecEnv& e_;
};

ssize_t N(const PyVecEnv& e) { return e.s.n_envs(); }

pyb::dict episode_info(const vec::VectorEnv& v, size_t k) {
  const size_t n = static_cast<size_t>(v.n_envs()), na = static_cast<size_t>(v.n_agents());
  std::vector<double> ret(n, 0), shaped(n, 0), cost(n * k, 0), agent(n * na, 0);
  std::vector<int32_t> len(n, 0);
  std::vector<uint8_t> mask(n, 0);
  for (const auto& [i, ep] : v.finished()) {
    ret[i] = ep.ret;
    shaped[i] = ep.shaped_ret;
    len[i] = ep.length;
    mask[i] = 1;
    for (size_t j = 0; j < k && j < ep.cost_sum.size(); ++j) cost[i * k + j] = ep.cost_sum[j];
    for (size_t a = 0; a < na && a < ep.agent_ret.size(); ++a) agent[i * na + a] = ep.agent_ret[a];
  }
  const ssize_t sn = static_cast<ssize_t>(n);
  pyb::dict d;
  d["return"] = f64_array(ret.data(), {sn});
  d["length"] = i32_array(len.data(), {sn});
  d["shaped_return"] = f64_array(shaped.data(), {sn});
  d["cost_sum"] = f64_array(cost.data(), {sn, static_cast<ssize_t>(k)});
  if (na > 1) d["agent_return"] = f64_array(agent.data(), {sn, static_cast<ssize_t>(na)});
  d["_mask"] = bool_array(mask.data(), {sn});
  return d;
}

pyb::tuple step_result(PyVecEnv& e) {
  const vec::VectorEnv& v = e.s.venv();
  const envs::EnvSpec& sp = e.s.env_spec();
  const ssize_t n = N(e), od = sp.obs_dim, k = static_cast<ssize_t>(sp.cost_names.size());
  const ssize_t na = v.n_agents();
  pyb::array_t<float> obs = f32_array(v.obs.data(), {n, od});
  pyb::array_t<float> final_obs = f32_array(v.obs.data(), {n, od});
  float* fo = final_obs.mutable_data();
  for (ssize_t i = 0; i < n; ++i)
    if (v.terminated[i] || v.truncated[i])
      std::copy_n(v.final_obs.begin() + i * od, od, fo + i * od);
  pyb::dict info;
  info["costs"] = f32_array(v.costs.data(), {n, k});
  info["final_obs"] = final_obs;
  if (na > 1) {
    info["agent_reward"] = f32_array(v.reward.data(), {n, na});
    info["agent_shaped_reward"] = f32_array(v.shaped_reward.data(), {n, na});
  } else {
    info["shaped_reward"] = f32_array(v.shaped_reward.data(), {n});
  }
  if (e.traced()) {
    const size_t nt = sp.trace_names.size(), w = static_cast<size_t>(envs::trace_vector_width(sp));
    for (size_t j : e.scalar_traces) {
      std::vector<float> col(static_cast<size_t>(n));
      for (size_t i = 0; i < col.size(); ++i) col[i] = e.s.trace()[i * nt + j];
      info[pyb::str(sp.trace_names[j])] = f32_array(col.data(), {n});
    }
    for (size_t j : e.vector_traces) {
      size_t off = 0;
      for (size_t q = 0; q < j; ++q) off += static_cast<size_t>(sp.trace_vectors[q].size);
      const size_t sz = static_cast<size_t>(sp.trace_vectors[j].size);
      std::vector<float> block(static_cast<size_t>(n) * sz);
      for (size_t i = 0; i < static_cast<size_t>(n); ++i)
        std::copy_n(e.s.trace_vec().begin() + i * w + off, sz, block.begin() + i * sz);
      info[pyb::str(sp.trace_vectors[j].name)] =
          f32_array(block.data(), {n, static_cast<ssize_t>(sz)});
    }
  }
  if (!v.finished().empty()) {
    pyb::dict ep = episode_info(v, static_cast<size_t>(k));
    info["_episode"] = ep.attr("pop")("_mask");
    info["episode"] = ep;
  }
  return pyb::make_tuple(obs, f32_array(v.team_reward.data(), {n}),
                         bool_array(v.terminated.data(), {n}), bool_array(v.truncated.data(), {n}),
                         info);
}

pyb::tuple reset(PyVecEnv& e, std::optional<int64_t> seed) {
  BusyGuard g(e, "reset");
  {
    pyb::gil_scoped_release rel;
    e.s.reset(seed);
  }
  const envs::EnvSpec& sp = e.s.env_spec();
  return pyb::make_tuple(f32_array(e.s.venv().obs.data(), {N(e), sp.obs_dim}), pyb::dict());
}

pyb::tuple step(PyVecEnv& e, pyb::handle actions) {
  e.s.check_ready("step");
  auto a = finite_f32(actions, {N(e), e.s.env_spec().act_dim}, "step: actions");
  BusyGuard g(e, "step");
  {
    pyb::gil_scoped_release rel;
    e.s.step(a.data(), e.traced());
  }
  return step_result(e);
}

pyb::dict rollout(PyVecEnv& e, pyb::handle actions, bool trace_vectors) {
  e.s.check_ready("rollout");
  pyb::array probe = pyb::array::ensure(actions);
  if (!probe || probe.ndim() != 3) {
    PyErr_Clear();
    throw pyb::value_error("rollout: actions: expected an array [T, N, act_dim] = [T, " +
                           std::to_string(N(e)) + ", " + std::to_string(e.s.env_spec().act_dim) +
                           "], found " +
                           (probe ? std::to_string(probe.ndim()) + " dimensions" : "no array"));
  }
  const ssize_t T = probe.shape(0);
  auto a = finite_f32(probe, {T, N(e), e.s.env_spec().act_dim}, "rollout: actions");
  BusyGuard g(e, "rollout");
  RolloutRecord r;
  {
    pyb::gil_scoped_release rel;
    r = run_rollout(e.s, a.data(), static_cast<int>(T), trace_vectors);
  }
  const envs::EnvSpec& sp = e.s.env_spec();
  const ssize_t t = r.T, n = N(e), od = sp.obs_dim, k = static_cast<ssize_t>(sp.cost_names.size());
  const ssize_t na = e.s.venv().n_agents();
  pyb::dict d;
  d["obs"] = f32_array(r.obs.data(), {t, n, od});
  d["final_obs"] = f32_array(r.final_obs.data(), {t, n, od});
  d["reward"] = f32_array(r.reward.data(), {t, n});
  d["costs"] = f32_array(r.costs.data(), {t, n, k});
  d["terminated"] = bool_array(r.terminated.data(), {t, n});
  d["truncated"] = bool_array(r.truncated.data(), {t, n});
  if (na > 1) {
    d["agent_reward"] = f32_array(r.agent_reward.data(), {t, n, na});
    d["agent_shaped_reward"] = f32_array(r.shaped_reward.data(), {t, n, na});
  } else {
    d["shaped_reward"] = f32_array(r.shaped_reward.data(), {t, n});
  }
  d["episode_return"] = f64_array(r.episode_return.data(), {t, n});
  d["episode_length"] = i32_array(r.episode_length.data(), {t, n});
  d["episode_cost"] = f64_array(r.episode_cost.data(), {t, n, k});
  pyb::dict info;
  const size_t nt = sp.trace_names.size();
  for (size_t j = 0; j < nt; ++j) {
    std::vector<float> col(static_cast<size_t>(t * n));
    for (size_t q = 0; q < col.size(); ++q) col[q] = r.trace[q * nt + j];
    info[pyb::str(sp.trace_names[j])] = f32_array(col.data(), {t, n});
  }
  const size_t w = static_cast<size_t>(envs::trace_vector_width(sp));
  size_t off = 0;
  for (const auto& tv : sp.trace_vectors) {
    if (!trace_vectors) break;
    const size_t sz = static_cast<size_t>(tv.size);
    std::vector<float> block(static_cast<size_t>(t * n) * sz);
    for (size_t q = 0; q < static_cast<size_t>(t * n); ++q)
      std::copy_n(r.trace_vec.begin() + q * w + off, sz, block.begin() + q * sz);
    info[pyb::str(tv.name)] = f32_array(block.data(), {t, n, static_cast<ssize_t>(sz)});
    off += sz;
  }
  d["info"] = info;
  return d;
}

pyb::dict state_dict(PyVecEnv& e) {
  BusyGuard g(e, "state_dict");
  const core::StateDict sd = e.s.state_dict();
  pyb::dict d;
  for (const auto& [k, v] : sd.f32) d[pyb::str(k)] = f32_array(v.data(), {ssize_t(v.size())});
  for (const auto& [k, v] : sd.f64) d[pyb::str(k)] = f64_array(v.data(), {ssize_t(v.size())});
  for (const auto& [k, v] : sd.i64) {
    pyb::array_t<int64_t> a(ssize_t(v.size()));
    std::copy(v.begin(), v.end(), a.mutable_data());
    d[pyb::str(k)] = a;
  }
  for (const auto& [k, v] : sd.str) d[pyb::str(k)] = pyb::str(v);
  return d;
}

void load_state_dict(PyVecEnv& e, pyb::handle obj) {
  if (!pyb::isinstance<pyb::dict>(obj))
    throw pyb::value_error("load_state_dict: expected the dict state_dict() returned, found a " +
                           std::string(pyb::str(pyb::type::handle_of(obj).attr("__name__"))));
  core::StateDict sd;
  for (auto [key, val] : pyb::reinterpret_borrow<pyb::dict>(obj)) {
    const std::string k = pyb::str(key);
    if (pyb::isinstance<pyb::str>(val)) {
      sd.str[k] = val.cast<std::string>();
      continue;
    }
    pyb::array a = pyb::array::ensure(val);
    if (!a || a.ndim() != 1) {
      PyErr_Clear();
      throw pyb::value_error("load_state_dict: '" + k +
                             "': expected a 1-d array or a string, found " +
                             std::string(pyb::str(pyb::type::handle_of(val).attr("__name__"))));
    }
    const std::string dt = pyb::str(a.dtype());
    if (dt == "float32") {
      auto f = pyb::array_t<float, pyb::array::c_style>::ensure(a);
      sd.f32[k].assign(f.data(), f.data() + f.size());
    } else if (dt == "float64") {
      auto f = pyb::array_t<double, pyb::array::c_style>::ensure(a);
      sd.f64[k].assign(f.data(), f.data() + f.size());
    } else if (dt == "int64") {
      auto f = pyb::array_t<int64_t, pyb::array::c_style>::ensure(a);
      sd.i64[k].assign(f.data(), f.data() + f.size());
    } else {
      throw pyb::value_error("load_state_dict: '" + k +
                             "': expected dtype float32, float64 or int64, found " + dt);
    }
  }
  BusyGuard g(e, "load_state_dict");
  e.s.load_state_dict(sd);
}

pyb::list agents(const envs::EnvSpec& sp) {
  pyb::list out;
  for (const auto& a : sp.agent_list()) {
    pyb::dict d;
    d["name"] = a.name;
    d["group"] = a.group;
    d["obs"] = pyb::slice(a.obs.offset, a.obs.offset + a.obs.size, 1);
    d["act"] = pyb::slice(a.act.offset, a.act.offset + a.act.size, 1);
    out.append(d);
  }
  return out;
}

pyb::dict obs_fields(const envs::EnvSpec& sp) {
  pyb::dict d;
  for (const auto& f : sp.obs_fields)
    d[pyb::str(f.name)] = pyb::slice(f.slice.offset, f.slice.offset + f.slice.size, 1);
  return d;
}

/// The action box [act_dim] (an env without one: -inf / +inf).
pyb::array_t<float> box(const envs::EnvSpec& sp, bool low) {
  const std::vector<float>& v = low ? sp.act_low : sp.act_high;
  if (v.size() == static_cast<size_t>(sp.act_dim)) return f32_array(v.data(), {sp.act_dim});
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> open(static_cast<size_t>(sp.act_dim), low ? -inf : inf);
  return f32_array(open.data(), {sp.act_dim});
}

/// The env spec for a property; a closed env still answers (its spec does not change).
const envs::EnvSpec& esp(const PyVecEnv& e) { return e.s.env_spec(); }

}  // namespace
}  // namespace pz::py

PYBIND11_MODULE(_core, m) {
  using namespace pz::py;
  m.doc() = "powerzoo's native vector env (see the powerzoo package and docs/custom-loops.md)";
  pyb::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const pz::core::ConfigError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const pz::core::RunError& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
  pyb::class_<PyVecEnv>(m, "VecEnv", pyb::dynamic_attr())
      .def(pyb::init([](const std::string& spec, int num_envs, std::optional<int64_t> seed,
                        int threads, const std::string& split, bool eval,
                        const std::vector<std::string>& overrides, pyb::object info_traces) {
             VecOptions o{spec, num_envs, seed, threads, split, eval, overrides};
             if (seed && *seed < 0)
               throw pyb::value_error("seed: expected an integer >= 0, found " +
                                      std::to_string(*seed));
             std::unique_ptr<PyVecEnv> e;
             {
               pyb::gil_scoped_release rel;
               e = std::make_unique<PyVecEnv>(o);
             }
             select_traces(*e, info_traces);
             return e;
           }),
           pyb::arg("spec"), pyb::arg("num_envs") = 0, pyb::arg("seed") = pyb::none(),
           pyb::arg("threads") = 1, pyb::arg("split") = "", pyb::arg("eval") = false,
           pyb::arg("overrides") = std::vector<std::string>{},
           pyb::arg("info_traces") = pyb::none())
      .def("reset", &reset, pyb::arg("seed") = pyb::none(),
           "Resets every env -> (obs [N, obs_dim] float32, info {}).")
      .def("step", &step, pyb::arg("actions"),
           "actions [N, act_dim] -> (obs, reward [N], terminated [N], truncated [N], info).")
      .def("rollout", &rollout, pyb::arg("actions"), pyb::arg("trace_vectors") = true,
           "actions [T, N, act_dim] -> dict of [T, N, ...] arrays (obs, reward, costs, ...); "
           "trace_vectors=False leaves out the per-step vectors of info (faster).")
      .def("state_dict", &state_dict)
      .def("load_state_dict", &load_state_dict, pyb::arg("state"))
      .def("close",
           [](PyVecEnv& e) {
             BusyGuard g(e, "close");
             e.s.close();
           })
      .def_property_readonly("closed", [](const PyVecEnv& e) { return e.s.closed(); })
      .def_property_readonly("num_envs", [](const PyVecEnv& e) { return e.s.n_envs(); })
      .def_property_readonly("threads", [](const PyVecEnv& e) { return e.s.threads(); })
      .def_property_readonly("seed", [](const PyVecEnv& e) { return e.s.seed(); })
      .def_property_readonly("split", [](const PyVecEnv& e) { return e.s.split(); })
      .def_property_readonly("eval", [](const PyVecEnv& e) { return e.s.eval(); })
      .def_property_readonly("spec_toml", [](const PyVecEnv& e) { return e.s.resolved_toml(); })
      .def_property_readonly("env_id", [](const PyVecEnv& e) { return esp(e).id; })
      .def_property_readonly("obs_dim", [](const PyVecEnv& e) { return esp(e).obs_dim; })
      .def_property_readonly("act_dim", [](const PyVecEnv& e) { return esp(e).act_dim; })
      .def_property_readonly("horizon", [](const PyVecEnv& e) { return esp(e).horizon; })
      .def_property_readonly("dt_hours", [](const PyVecEnv& e) { return esp(e).dt_hours; })
      .def_property_readonly("n_agents", [](const PyVecEnv& e) { return esp(e).n_agents(); })
      .def_property_readonly("obs_names",
                             [](const PyVecEnv& e) { return esp(e).obs_feature_names(); })
      .def_property_readonly("action_names",
                             [](const PyVecEnv& e) { return esp(e).action_feature_names(); })
      .def_property_readonly("cost_names", [](const PyVecEnv& e) { return esp(e).cost_names; })
      .def_property_readonly("trace_names", [](const PyVecEnv& e) { return esp(e).trace_names; })
      .def_property_readonly("trace_vectors",
                             [](const PyVecEnv& e) {
                               pyb::dict d;  // insertion order: the order of rollout's info
                               for (const auto& tv : esp(e).trace_vectors)
                                 d[pyb::str(tv.name)] = tv.size;
                               return d;
                             })
      .def_property_readonly("info_traces",
                             [](const PyVecEnv& e) {
                               std::vector<std::string> names;
                               for (size_t j : e.scalar_traces)
                                 names.push_back(esp(e).trace_names[j]);
                               for (size_t j : e.vector_traces)
                                 names.push_back(esp(e).trace_vectors[j].name);
                               return names;
                             })
      .def_property_readonly("action_low", [](const PyVecEnv& e) { return box(esp(e), true); })
      .def_property_readonly("action_high", [](const PyVecEnv& e) { return box(esp(e), false); })
      .def_property_readonly("obs_fields", [](const PyVecEnv& e) { return obs_fields(esp(e)); })
      .def_property_readonly("agents", [](const PyVecEnv& e) { return agents(esp(e)); });
}
