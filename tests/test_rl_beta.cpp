// Tests for the Beta policy: log-density, entropy and their derivatives against closed forms and
// quadrature, sampling moments, the mode; PPO with policy = "beta" (actions in the box, gradients
// against finite differences, learning) and the refusal of an unbounded action box.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/rng.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/exp/train/train.hpp"
#include "powerzoo/rl/nn/beta.hpp"
#include "powerzoo/rl/ppo/ppo.hpp"
#include "test_rl_fd.hpp"

using pz::core::Rng;
using pz::rl::PpoConfig;
using pz::rl::PpoLearner;
using pz::rl::Rollout;

namespace {

// −∫ p log p over (0, 1) by the composite Simpson rule on n intervals (p continuous, a, b ≥ 1).
double entropy_by_quadrature(double a, double b, int n) {
  auto f = [&](double u) {
    if (u <= 0.0 || u >= 1.0) return 0.0;
    const double lp = pz::rl::beta_log_prob(a, b, u, nullptr, nullptr);
    return -std::exp(lp) * lp;
  };
  double s = f(0.0) + f(1.0);
  for (int i = 1; i < n; ++i) s += (i % 2 ? 4.0 : 2.0) * f(double(i) / n);
  return s / (3.0 * n);
}

PpoConfig beta_config() {
  PpoConfig cfg;
  cfg.policy = pz::rl::Policy::kBeta;
  return cfg;
}

}  // namespace

TEST_SUITE("rl_beta") {
  TEST_CASE("log-density and entropy at hand-chosen α, β match closed forms") {
    using pz::rl::beta_entropy;
    using pz::rl::beta_log_prob;
    // Beta(1, 1) is uniform: density 1, entropy 0.
    CHECK(beta_log_prob(1.0, 1.0, 0.37, nullptr, nullptr) == doctest::Approx(0.0));
    CHECK(beta_entropy(1.0, 1.0, nullptr, nullptr) == doctest::Approx(0.0));
    // Beta(2, 1): p(u) = 2u; H = log B(2, 1) − ψ(2) + ψ(3) = −log 2 + 1/2.
    CHECK(beta_log_prob(2.0, 1.0, 0.3, nullptr, nullptr) == doctest::Approx(std::log(0.6)));
    CHECK(beta_entropy(2.0, 1.0, nullptr, nullptr) == doctest::Approx(0.5 - std::log(2.0)));
    // Beta(2, 2): p(u) = 6u(1 − u); H = −log 6 + 2(ψ(4) − ψ(2)) = −log 6 + 2(1/2 + 1/3).
    CHECK(beta_log_prob(2.0, 2.0, 0.2, nullptr, nullptr) == doctest::Approx(std::log(0.96)));
    CHECK(beta_entropy(2.0, 2.0, nullptr, nullptr) ==
          doctest::Approx(-std::log(6.0) + 5.0 / 3.0).epsilon(1e-12));
    // Beta(3, 5): B(3, 5) = 2!·4!/7! = 1/105, p(1/4) = 105·(1/16)·(3/4)⁴.
    CHECK(beta_log_prob(3.0, 5.0, 0.25, nullptr, nullptr) ==
          doctest::Approx(std::log(105.0 / 16.0 * 81.0 / 256.0)).epsilon(1e-12));
    // Non-integer concentrations: the entropy against Simpson quadrature of −∫ p log p.
    for (const auto& [a, b] :
         std::vector<std::pair<double, double>>{{1.7, 1.7}, {3.0, 5.0}, {1.2, 7.5}, {12.0, 2.5}}) {
      CAPTURE(a);
      CAPTURE(b);
      CHECK(beta_entropy(a, b, nullptr, nullptr) ==
            doctest::Approx(entropy_by_quadrature(a, b, 20000)).epsilon(1e-6));
    }
  }

  TEST_CASE("derivatives in α and β match central differences") {
    const double h = 1e-6;
    for (const auto& [a, b, u] : std::vector<std::tuple<double, double, double>>{
             {1.7, 1.7, 0.5}, {3.0, 5.0, 0.25}, {1.05, 9.0, 0.9}, {15.0, 2.0, 0.02}}) {
      CAPTURE(a);
      CAPTURE(b);
      double la = 0, lb = 0, ha = 0, hb = 0;
      pz::rl::beta_log_prob(a, b, u, &la, &lb);
      pz::rl::beta_entropy(a, b, &ha, &hb);
      auto lp = [&](double x, double y) {
        return pz::rl::beta_log_prob(x, y, u, nullptr, nullptr);
      };
      auto ent = [&](double x, double y) { return pz::rl::beta_entropy(x, y, nullptr, nullptr); };
      CHECK(la == doctest::Approx((lp(a + h, b) - lp(a - h, b)) / (2 * h)).epsilon(1e-6));
      CHECK(lb == doctest::Approx((lp(a, b + h) - lp(a, b - h)) / (2 * h)).epsilon(1e-6));
      CHECK(ha == doctest::Approx((ent(a + h, b) - ent(a - h, b)) / (2 * h)).epsilon(1e-6));
      CHECK(hb == doctest::Approx((ent(a, b + h) - ent(a, b - h)) / (2 * h)).epsilon(1e-6));
      // The fused form used by the loss agrees with the separate ones.
      const pz::rl::BetaTerms t = pz::rl::beta_terms(a, b, u, true);
      CHECK(t.log_prob == doctest::Approx(lp(a, b)).epsilon(1e-14));
      CHECK(t.entropy == doctest::Approx(ent(a, b)).epsilon(1e-14));
      CHECK(t.dlp_da == la);
      CHECK(t.dlp_db == lb);
      CHECK(t.dh_da == ha);
      CHECK(t.dh_db == hb);
    }
  }

  TEST_CASE("concentration head: 1 + softplus, clamped to [1 + 1e-6, 20] with zero slope outside") {
    double dc = -1;
    CHECK(pz::rl::beta_concentration(0.0, &dc) == doctest::Approx(1.0 + std::log(2.0)));
    CHECK(dc == doctest::Approx(0.5));
    CHECK(pz::rl::beta_concentration(2.0, &dc) == doctest::Approx(1.0 + std::log1p(std::exp(2.0))));
    CHECK(dc == doctest::Approx(1.0 / (1.0 + std::exp(-2.0))));
    CHECK(pz::rl::beta_concentration(25.0, &dc) == 20.0);
    CHECK(dc == 0.0);
    CHECK(pz::rl::beta_concentration(-40.0, &dc) == pz::rl::kBetaMinConcentration);
    CHECK(dc == 0.0);
  }

  TEST_CASE("samples have the Beta mean and variance; the mode is (α − 1)/(α + β − 2)") {
    Rng rng(21, 0);
    for (const auto& [a, b] :
         std::vector<std::pair<double, double>>{{1.0, 1.0}, {2.0, 5.0}, {1.7, 1.2}, {9.0, 3.0}}) {
      CAPTURE(a);
      CAPTURE(b);
      const int n = 200000;
      double s = 0, s2 = 0;
      int outside = 0;
      for (int i = 0; i < n; ++i) {
        const double u = pz::rl::sample_beta(a, b, rng);
        outside += u < pz::rl::kBetaUnitEps || u > 1.0 - pz::rl::kBetaUnitEps;
        s += u, s2 += u * u;
      }
      CHECK(outside == 0);
      const double mean = s / n, var = s2 / n - mean * mean;
      const double m0 = a / (a + b), v0 = a * b / ((a + b) * (a + b) * (a + b + 1));
      // 200k draws: the standard error of the mean is sqrt(v0 / n) ≤ 0.0007.
      CHECK(std::abs(mean - m0) < 5 * std::sqrt(v0 / n));
      CHECK(var == doctest::Approx(v0).epsilon(0.02));
    }
    CHECK(pz::rl::beta_mode(3.0, 5.0) == doctest::Approx(1.0 / 3.0));
    CHECK(pz::rl::beta_mode(20.0, 1.0 + 1e-6) == doctest::Approx(1.0 - 1e-6));
    CHECK(pz::rl::beta_mode(1.0, 1.0) == pz::rl::kBetaUnitEps);  // flat: the clip's lower end
  }

  TEST_CASE("PPO beta: deterministic action is the mode mapped to the box, samples stay inside") {
    const int obs_dim = 3, A = 2, n = 4000;
    PpoConfig cfg = beta_config();
    cfg.hidden = {};  // actor = one affine layer: W [3, 4] then b [4] = [α logits, β logits]
    cfg.normalize_obs = false;
    Rng init(1, 0);
    PpoLearner l(obs_dim, A, cfg, init);
    REQUIRE(l.n_parameters() == (3 * 4 + 4) + (3 * 1 + 1));  // no log σ parameters
    std::vector<float> p(l.n_parameters(), 0.0f);
    const double xa0 = 1.5, xa1 = -0.5, xb0 = 0.3, xb1 = 2.0;
    p[12] = xa0, p[13] = xa1, p[14] = xb0, p[15] = xb1;
    l.set_parameters(p);
    l.set_action_box({-1.0f, 10.0f}, {3.0f, 20.0f});
    const double a0 = 1 + std::log1p(std::exp(xa0)), b0 = 1 + std::log1p(std::exp(xb0));
    const double a1 = 1 + std::log1p(std::exp(xa1)), b1 = 1 + std::log1p(std::exp(xb1));
    std::vector<float> obs(n * obs_dim, 0.7f), act(n * A), raw(n * A), logp(n);
    l.act(obs.data(), 1, nullptr, act.data(), logp.data(), nullptr, raw.data());
    const double m0 = (a0 - 1) / (a0 + b0 - 2), m1 = (a1 - 1) / (a1 + b1 - 2);
    CHECK(raw[0] == doctest::Approx(m0).epsilon(1e-6));
    CHECK(raw[1] == doctest::Approx(m1).epsilon(1e-6));
    CHECK(act[0] == doctest::Approx(-1 + 4 * m0).epsilon(1e-6));
    CHECK(act[1] == doctest::Approx(10 + 10 * m1).epsilon(1e-6));
    CHECK(logp[0] == doctest::Approx(pz::rl::beta_log_prob(a0, b0, raw[0], nullptr, nullptr) +
                                     pz::rl::beta_log_prob(a1, b1, raw[1], nullptr, nullptr))
                         .epsilon(1e-6));
    // Sampled: inside the box, u = (a − low)/(high − low), mean α/(α + β) per dimension.
    Rng rng(2, 0);
    l.act(obs.data(), n, &rng, act.data(), logp.data(), nullptr, raw.data());
    double s0 = 0, s1 = 0, map_err = 0;
    int outside = 0;
    for (int i = 0; i < n; ++i) {
      outside += !(act[i * A] > -1.0f && act[i * A] < 3.0f);
      outside += !(act[i * A + 1] > 10.0f && act[i * A + 1] < 20.0f);
      map_err = std::max(map_err, std::abs(double(act[i * A]) - (-1.0 + 4.0 * raw[i * A])));
      s0 += raw[i * A], s1 += raw[i * A + 1];
    }
    CHECK(outside == 0);
    CHECK(map_err < 1e-6);
    CHECK(s0 / n == doctest::Approx(a0 / (a0 + b0)).epsilon(0.02));
    CHECK(s1 / n == doctest::Approx(a1 / (a1 + b1)).epsilon(0.02));
    // An unbounded box is refused.
    const float inf = std::numeric_limits<float>::infinity();
    CHECK_THROWS_AS(l.set_action_box({-inf, 0.0f}, {inf, 1.0f}), pz::core::ConfigError);
  }

  TEST_CASE("PPO beta: loss_and_grad matches central finite differences, entropy in metrics") {
    const int T = 3, N = 4, obs_dim = 3, A = 2;
    PpoConfig cfg = beta_config();
    cfg.hidden = {8, 8};
    cfg.entropy_coef = 0.05;
    cfg.gamma = 0.9;
    cfg.gae_lambda = 0.8;
    Rng init(11, 0), data(12, 0), pick(13, 0);
    PpoLearner learner(obs_dim, A, cfg, init);
    // Layout: actor 3→8→8→4 = 32 + 72 + 36 = 140, critic 3→8→8→1 = 113.
    REQUIRE(learner.n_parameters() == 140 + 113);
    auto p = learner.parameters();
    for (auto& x : p) x += static_cast<float>(0.3 * data.normal());
    learner.set_parameters(p);
    Rollout r;
    r.resize(T, N, obs_dim, A);
    for (auto& x : r.obs) x = static_cast<float>(1.5 * data.normal() + 0.3);
    for (auto& x : r.final_obs) x = static_cast<float>(data.normal());
    for (auto& x : r.next_obs) x = static_cast<float>(data.normal());
    for (auto& x : r.rewards) x = static_cast<float>(data.normal());
    for (int k = 0; k < T * N; ++k) {
      if (k % 3 == 1) r.dones[k] = 1;
      if (k % 5 == 2) r.dones[k] = r.truncated[k] = 1;
    }
    learner.normalizer().merge(r.obs.data(), T * N);
    std::vector<float> env_a(T * N * A);
    learner.act(r.obs.data(), T * N, &data, env_a.data(), r.logp.data(), nullptr, r.actions.data());
    // At the acting parameters every ratio is 1: nothing clipped, KL 0.
    const std::vector<int> all = {0, 1, 2, 3};
    std::map<std::string, double> m0;
    learner.loss_and_grad(r, all, nullptr, &m0);
    CHECK(m0["losses/clipping_fraction"] == 0.0);
    CHECK(std::abs(m0["losses/approx_kl"]) < 1e-6);
    CHECK(m0.count("policy/log_std_mean") == 0);
    CHECK(m0["losses/regularization"] == doctest::Approx(-0.05 * m0["losses/entropy"]));
    for (int k = 0; k < T * N; ++k) r.logp[k] -= static_cast<float>(1.2 * data.uniform() - 0.6);
    const std::vector<int> cols = {3, 0, 2};
    std::vector<float> grad, adv, tgt;
    std::map<std::string, double> metrics;
    learner.loss_and_grad(r, cols, &grad, &metrics);
    CHECK(metrics["losses/clipping_fraction"] > 0.0);
    CHECK(metrics["losses/clipping_fraction"] < 1.0);
    learner.compute_targets(r, cols, &adv, &tgt);
    std::vector<int64_t> idx = {0, 5, 40, 100, 104, 139, 140, 252};
    for (int k = 0; k < 16; ++k) idx.push_back(static_cast<int64_t>(pick.below(140)));
    for (int k = 0; k < 8; ++k) idx.push_back(140 + static_cast<int64_t>(pick.below(113)));
    const int n_nonzero = pz::test::check_gradient_fd(learner, r, cols, adv, tgt, grad, idx);
    CHECK(n_nonzero > 16);
  }

  TEST_CASE("PPO beta learning sanity: 1-step bandit on [−1, 1], reward −(a − 0.5)²") {
    PpoConfig cfg = beta_config();
    cfg.hidden = {16};
    cfg.learning_rate = 3e-3;
    cfg.entropy_coef = 0.0;
    cfg.rollout_length = 4;
    Rng init(1, 0), act_rng(2, 0), shuffle(3, 0);
    PpoLearner learner(1, 1, cfg, init);
    learner.set_action_box({-1.0f}, {1.0f});
    const float a = pz::test::train_bandit(learner, 4, 16, 60, act_rng, shuffle);
    INFO("deterministic action (mode) after 60 updates: " << a);
    CHECK(std::abs(a - 0.5f) < 0.1f);
  }

  TEST_CASE("policy = \"beta\" on an unbounded action box is refused before anything is written") {
    const auto ok = pz::exp::parse_spec("[ppo]\npolicy = \"beta\"\n", "b.toml");
    CHECK(ok.learner_sections.at("ppo").str("policy") == "beta");
    CHECK(pz::exp::parse_spec(pz::exp::to_toml(ok), "x").learner_sections.at("ppo").str("policy") ==
          "beta");
    CHECK_THROWS_WITH_AS(
        pz::exp::parse_spec("[ppo]\npolicy = \"beta\"\nsquash = \"tanh\"\n", "b.toml"),
        doctest::Contains("b.toml:3: [ppo] squash: has no effect here"), pz::core::ConfigError);
    const auto spec = pz::exp::parse_spec(
        "[env]\nid = \"test_target\"\nunbounded = true\n[ppo]\npolicy = \"beta\"\n", "b.toml");
    pz::exp::TrainOptions opt;
    opt.out_dir = (std::filesystem::temp_directory_path() / "pz_beta_never").string();
    opt.quiet = true;
    CHECK_THROWS_WITH_AS(pz::exp::train(spec, opt),
                         "b.toml:5: [ppo] policy = \"beta\": expected an env with a bounded action "
                         "box, found action 0 of test_target in [-inf, inf]",
                         pz::core::ConfigError);
    CHECK_FALSE(std::filesystem::exists(opt.out_dir));
    // IPPO groups may mix action boxes: the Beta policy is refused there, naming the key.
    CHECK_THROWS_WITH_AS(
        pz::exp::parse_spec("[env]\nid = \"test_target\"\nagents = 2\n[learner]\nalgo = "
                            "\"ippo\"\n[ppo]\npolicy = \"beta\"\n",
                            "i.toml"),
        "i.toml:7: [ppo] policy = \"beta\": ippo supports the Gaussian policy "
        "only (expected \"gaussian\")",
        pz::core::ConfigError);
    CHECK_FALSE(std::filesystem::exists(opt.out_dir));
  }
}
