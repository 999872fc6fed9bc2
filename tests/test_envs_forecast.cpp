// envs/forecast: the error model's invariants over many seeded draws (zero mean, spread
// noise·sqrt(k), random-walk correlation across leads, truncation at 0), no draws without noise,
// and its wiring into the TSO env and task (keys, the forecast_error split).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/envs/forecast.hpp"
#include "powerzoo/envs/unit_commitment.hpp"
#include "powerzoo/exp/spec/build.hpp"
#include "powerzoo/exp/spec/spec.hpp"

using namespace pz;

namespace {

std::string refusal(const std::string& toml) {
  try {
    exp::parse_spec(toml, "s.toml");
  } catch (const core::ConfigError& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The env must outlive the reference (keep the shared_ptr in a variable).
const envs::UnitCommitment& as_uc(const std::shared_ptr<const envs::Env>& env) {
  auto uc = std::dynamic_pointer_cast<const envs::UnitCommitment>(env);
  REQUIRE(uc);
  return *uc;
}

}  // namespace

TEST_SUITE("envs_forecast") {
  TEST_CASE("spread grows as noise * sqrt(k), mean 0, errors of one forecast are a random walk") {
    const int h = 8, n = 40000;
    const double noise = 0.02;
    const envs::Forecast f({h, noise});
    envs::ForecastState st{core::Rng(7, 3)};
    std::vector<double> truth(h, 100.0), out(h);
    std::vector<double> sum(h, 0), sum2(h, 0);
    double cross14 = 0;  // Σ e_1 · e_4
    for (int i = 0; i < n; ++i) {
      f.apply(truth, st, out);
      for (int k = 0; k < h; ++k) {
        const double e = out[k] / 100.0 - 1.0;
        sum[k] += e;
        sum2[k] += e * e;
      }
      cross14 += (out[0] / 100.0 - 1.0) * (out[3] / 100.0 - 1.0);
    }
    for (int k = 1; k <= h; ++k) {
      CAPTURE(k);
      const double mean = sum[k - 1] / n;
      const double sd = std::sqrt(sum2[k - 1] / n - mean * mean);
      CHECK(f.sigma(k) == doctest::Approx(noise * std::sqrt(k)).epsilon(1e-12));
      // The sample mean's standard error is sigma_k / sqrt(n): 4 of them bound it.
      CHECK(std::abs(mean) < 4.0 * f.sigma(k) / std::sqrt(n));
      // The sample sd's relative standard error is ~1/sqrt(2n) = 0.35 %: 2 % bounds it.
      CHECK(sd == doctest::Approx(f.sigma(k)).epsilon(0.02));
    }
    // A random walk: Cov(e_1, e_4) = Var(e_1) = noise², so corr(e_1, e_4) = 1/sqrt(4).
    const double corr = (cross14 / n) / (f.sigma(1) * f.sigma(4));
    CHECK(corr == doctest::Approx(0.5).epsilon(0.04));
  }

  TEST_CASE("forecasts of non-negative values stay non-negative (the truncation binds)") {
    const envs::Forecast f({24, 0.5});
    envs::ForecastState st{core::Rng(1, 1)};
    std::vector<double> truth(24, 3.0), out(24);
    int zeros = 0;
    for (int i = 0; i < 2000; ++i) {
      f.apply(truth, st, out);
      for (double v : out) {
        CHECK(v >= 0.0);
        zeros += v == 0.0;
      }
    }
    CHECK(zeros > 0);  // at lead 24, sigma = 2.45: P(1 + e < 0) ≈ 0.34
  }

  TEST_CASE("without noise the forecast is the truth, nothing is drawn or saved") {
    const envs::Forecast f({3, 0.0});
    envs::ForecastState st{core::Rng(5, 0)};
    const core::Rng before = st.rng;
    std::vector<double> truth = {1.5, 2.5, 0.0}, out(3, -1.0);
    f.apply(truth, st, out);
    CHECK(out == truth);
    CHECK(st.rng == before);
    std::vector<double> saved;
    f.save(st, saved);
    CHECK(saved.empty());
    CHECK(f.state_size() == 0);
    f.begin_episode(st, core::Rng(9, 9), 17);
    CHECK(st.rng == before);
  }

  TEST_CASE("the error stream: seeded without advancing the env's, saved and restored exactly") {
    const envs::Forecast f({5, 0.1});
    const core::Rng env_rng(3, 4);
    const core::Rng env_copy = env_rng;
    envs::ForecastState a, b, c;
    f.begin_episode(a, env_rng, 48);
    f.begin_episode(b, env_rng, 48);
    f.begin_episode(c, env_rng, 96);
    CHECK(env_rng == env_copy);
    CHECK(a.rng == b.rng);     // same env stream and start: same errors
    CHECK(!(a.rng == c.rng));  // another episode start: other errors
    std::vector<double> truth(5, 10.0), out_a(5), out_r(5);
    f.apply(truth, a, out_a);
    std::vector<double> saved;
    f.save(a, saved);
    REQUIRE(saved.size() == f.state_size());
    envs::ForecastState r;
    CHECK(f.load(r, saved) == 8);
    CHECK(r.rng == a.rng);
    f.apply(truth, a, out_a);
    f.apply(truth, r, out_r);
    CHECK(out_a == out_r);
    saved[3] = 0.5;  // not a 32-bit word
    CHECK_THROWS_WITH_AS(f.load(r, saved), doctest::Contains("found 0.5"), core::ConfigError);
  }

  TEST_CASE("bad parameters are refused naming the key") {
    CHECK_THROWS_WITH_AS(envs::Forecast({-1, 0.0}), doctest::Contains("forecast_horizon"),
                         core::ConfigError);
    CHECK_THROWS_WITH_AS(envs::Forecast({4, std::nan("")}), doctest::Contains("forecast_noise"),
                         core::ConfigError);
    CHECK_THROWS_WITH_AS(envs::Forecast({4, -0.1}), doctest::Contains("found -0.1"),
                         core::ConfigError);
  }

  TEST_CASE("tso keys: forecast_noise without a forecast, negative horizon and NaN are refused") {
    CHECK(has(refusal("[env]\ntask = \"tso\"\nforecast_horizon = 0\nforecast_noise = 0.02\n"),
              "forecast_noise"));
    CHECK(has(refusal("[env]\ntask = \"tso\"\nforecast_horizon = -1\n"), "forecast_horizon"));
    CHECK(has(refusal("[env]\ntask = \"tso\"\nforecast_noise = nan\n"), "forecast_noise"));
    CHECK(refusal("[env]\ntask = \"tso\"\nforecast_horizon = 6\nforecast_noise = 0.02\n") == "");
    CHECK(refusal("[env]\ntask = \"tso\"\nforecast_horizon = 0\n") == "");
  }

  TEST_CASE("tso forecast_error split: iid window with 3 % noise unless the spec sets one") {
    const auto spec = exp::parse_spec("[env]\ntask = \"tso\"\n", "tso.toml");
    const auto fe_env = exp::make_env(spec, "forecast_error"), iid_env = exp::make_env(spec, "iid");
    const auto& fe = as_uc(fe_env);
    const auto& iid = as_uc(iid_env);
    CHECK(fe.params().forecast_horizon == 4);
    CHECK(fe.params().forecast_noise == 0.03);
    CHECK(iid.params().forecast_noise == 0.0);
    CHECK(fe.params().episode_starts == iid.params().episode_starts);
    const auto set = exp::parse_spec("[env]\ntask = \"tso\"\nforecast_noise = 0.01\n", "tso.toml");
    const auto set_fe = exp::make_env(set, "forecast_error"),
               set_train = exp::make_env(set, "train");
    CHECK(as_uc(set_fe).params().forecast_noise == 0.01);
    CHECK(as_uc(set_train).params().forecast_noise == 0.01);
    const auto none = exp::parse_spec("[env]\ntask = \"tso\"\nforecast_horizon = 0\n", "tso.toml");
    const auto none_env = exp::make_env(none, "iid");
    CHECK(none_env->spec().obs_field("load_forecast").size == 0);
    CHECK(none_env->spec().obs_dim == iid.spec().obs_dim - 4);
    CHECK_THROWS_WITH_AS(exp::make_env(none, "forecast_error"),
                         doctest::Contains("forecast_horizon"), core::ConfigError);
  }

  TEST_CASE("tso env: noise perturbs only the forecast fields and leaves the env's stream alone") {
    const auto spec = exp::parse_spec("[env]\ntask = \"tso\"\nhorizon = 8\n", "tso.toml");
    const auto clean = exp::make_env(spec, "iid");
    const auto noisy = exp::make_env(spec, "forecast_error");
    const auto& es = clean->spec();
    REQUIRE(es.obs_dim == noisy->spec().obs_dim);
    const auto fld = es.obs_field("load_forecast");
    REQUIRE(fld.size == 4);
    auto sa = clean->make_state(), sb = noisy->make_state(), sr = noisy->make_state();
    std::vector<float> oa(es.obs_dim), ob(es.obs_dim), orr(es.obs_dim), ca(3), cb(3), cr(3);
    std::vector<float> act(es.act_dim, 0.5f);
    core::Rng ra(11, 2), rb(11, 2);
    envs::ResetOptions opt;
    opt.episode = 3;
    opt.n_episodes = 10;
    clean->reset(*sa, ra, oa, opt);
    noisy->reset(*sb, rb, ob, opt);
    for (int t = 0; t < 8; ++t) {
      CAPTURE(t);
      int differ = 0;
      for (int i = 0; i < es.obs_dim; ++i) {
        const bool in_fc = i >= fld.offset && i < fld.offset + fld.size;
        if (in_fc) {
          differ += oa[i] != ob[i];
          CHECK(ob[i] >= 0.0f);
        } else {
          CHECK(oa[i] == ob[i]);
        }
      }
      CHECK(differ == 4);
      CHECK(ra == rb);
      if (t == 3) {  // a resumed copy of the noisy env continues with the same errors
        std::vector<double> saved;
        noisy->save_state(*sb, saved);
        CHECK(noisy->load_state(*sr, saved) == saved.size());
      }
      clean->step(*sa, act, ra, oa, ca, nullptr);
      const auto stp_b = noisy->step(*sb, act, rb, ob, cb, nullptr);
      if (t >= 3) {
        core::Rng rr = rb;
        const auto stp_r = noisy->step(*sr, act, rr, orr, cr, nullptr);
        CHECK(orr == ob);
        CHECK(stp_r.reward == stp_b.reward);
      }
    }
  }

  TEST_CASE("dc_microgrid: a perfect forecast is the next steps' solar_cf and price fields") {
    const auto spec =
        exp::parse_spec("[env]\ntask = \"dc_microgrid\"\nforecast_horizon = 3\n", "dcmg.toml");
    const auto env = exp::make_env(spec, "iid");
    const auto& es = env->spec();
    REQUIRE(es.obs_dim == 24 + 3 + 3);
    const auto sf = es.obs_field("solar_forecast"), pf = es.obs_field("price_forecast");
    const auto sc = es.obs_field("solar_cf"), pr = es.obs_field("price");
    CHECK(sf.offset == 24);
    CHECK(pf.offset == 27);
    auto st = env->make_state();
    std::vector<float> obs(es.obs_dim), costs(es.cost_names.size()), act(es.act_dim, 0.3f);
    core::Rng rng(2, 0);
    envs::ResetOptions opt;
    opt.episode = 5;
    opt.n_episodes = 20;
    env->reset(*st, rng, obs, opt);
    std::vector<std::vector<float>> seen;
    for (int t = 0; t < 40; ++t) {
      seen.push_back(obs);
      env->step(*st, act, rng, obs, costs, nullptr);
    }
    seen.push_back(obs);
    int nonzero = 0;
    for (int t = 0; t + 3 < static_cast<int>(seen.size()); ++t)
      for (int k = 1; k <= 3; ++k) {
        CHECK(seen[t][sf.offset + k - 1] == seen[t + k][sc.offset]);
        CHECK(seen[t][pf.offset + k - 1] == seen[t + k][pr.offset]);
        nonzero += seen[t + k][pr.offset] != 0.0f;
      }
    CHECK(nonzero > 0);
    CHECK(has(refusal("[env]\ntask = \"dc_microgrid\"\nforecast_noise = 0.1\n"), "forecast_noise"));
  }

  TEST_CASE("dc_microgrid: noise changes only the forecasts (same job arrivals), resumes exactly") {
    const auto env = exp::make_env(
        exp::parse_spec("[env]\ntask = \"dc_microgrid\"\nforecast_horizon = 6\n", "a.toml"), "iid");
    const auto noisy = exp::make_env(
        exp::parse_spec(
            "[env]\ntask = \"dc_microgrid\"\nforecast_horizon = 6\nforecast_noise = 0.1\n",
            "b.toml"),
        "iid");
    const auto& es = env->spec();
    const int fc_begin = es.obs_field("solar_forecast").offset;
    auto sa = env->make_state(), sb = noisy->make_state(), sr = noisy->make_state();
    std::vector<float> oa(es.obs_dim), ob(es.obs_dim), orr(es.obs_dim);
    std::vector<float> ca(3), cb(3), cr(3), act(es.act_dim, 0.4f);
    core::Rng ra(4, 1), rb(4, 1), rr;
    env->reset(*sa, ra, oa, {});
    noisy->reset(*sb, rb, ob, {});
    int differ = 0;
    for (int t = 0; t < 60; ++t) {
      CAPTURE(t);
      for (int i = 0; i < fc_begin; ++i) CHECK(oa[i] == ob[i]);
      for (int i = fc_begin; i < es.obs_dim; ++i) differ += oa[i] != ob[i];
      CHECK(ra == rb);
      if (t == 20) {
        std::vector<double> saved;
        noisy->save_state(*sb, saved);
        CHECK(noisy->load_state(*sr, saved) == saved.size());
        rr = rb;
      }
      const auto a = env->step(*sa, act, ra, oa, ca, nullptr);
      const auto b = noisy->step(*sb, act, rb, ob, cb, nullptr);
      CHECK(a.reward == b.reward);
      if (t >= 20) {
        noisy->step(*sr, act, rr, orr, cr, nullptr);
        CHECK(orr == ob);
      }
    }
    CHECK(differ > 0);
  }
}
