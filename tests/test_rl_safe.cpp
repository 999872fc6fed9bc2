// Safe RL: PPO-Lagrangian (cost critics, cost GAE, dual ascent on log λ, checkpoints, gradients)
// and the Sauté wrapper (budget bookkeeping across an episode boundary, state save/load).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <numbers>
#include <string>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/rng.hpp"
#include "powerzoo/core/state_dict.hpp"
#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/envs/saute.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/exp/train/train.hpp"
#include "powerzoo/io/hdf5.hpp"
#include "powerzoo/rl/ppo/ppo.hpp"
#include "powerzoo/vec/vector_env.hpp"
#include "test_rl_fd.hpp"

using pz::core::Rng;
using pz::rl::PpoConfig;
using pz::rl::PpoLearner;
using pz::rl::Rollout;
using pz::test::random_rollout;
namespace fs = std::filesystem;

namespace {

// Minimal env: obs = [t], action a ∈ [0, 10] is both channel-1 cost and (unused) channel 0 is 0;
// reward 1; truncated after 3 steps. Saves its step counter.
struct CountState : pz::envs::State {
  int t = 0;
};
class CostEnv : public pz::envs::Env {
 public:
  CostEnv() {
    spec_.id = "cost_env";
    spec_.obs_dim = 1;
    spec_.act_dim = 1;
    spec_.act_low = {0};
    spec_.act_high = {10};
    spec_.cost_names = {"zero", "spend"};
    spec_.horizon = 3;
  }
  const pz::envs::EnvSpec& spec() const override { return spec_; }
  std::unique_ptr<pz::envs::State> make_state() const override {
    return std::make_unique<CountState>();
  }
  void reset(pz::envs::State& s, Rng&, std::span<float> obs,
             const pz::envs::ResetOptions& = {}) const override {
    static_cast<CountState&>(s).t = 0;
    obs[0] = 0;
  }
  pz::envs::Step step(pz::envs::State& s, std::span<const float> a, Rng&, std::span<float> obs,
                      std::span<float> costs, pz::envs::Info*) const override {
    auto& st = static_cast<CountState&>(s);
    ++st.t;
    obs[0] = static_cast<float>(st.t);
    costs[0] = 0;
    costs[1] = a[0];
    pz::envs::Step r;
    r.reward = 1;
    r.truncated = st.t >= 3;
    return r;
  }
  void save_state(const pz::envs::State& s, std::vector<double>& out) const override {
    out.push_back(static_cast<const CountState&>(s).t);
  }
  size_t load_state(pz::envs::State& s, std::span<const double> in) const override {
    static_cast<CountState&>(s).t = static_cast<int>(in[0]);
    return 1;
  }

 private:
  pz::envs::EnvSpec spec_;
};

}  // namespace

TEST_SUITE("rl_safe") {
  TEST_CASE("dual update: λ rises while the episode cost exceeds the budget, falls after") {
    PpoConfig cfg;
    cfg.hidden = {4};
    cfg.lambda_lr = 0.1;
    cfg.lambda_init = 1.0;
    cfg.log_lambda_max = 1.0;
    Rng init(1, 0);
    PpoLearner learner(2, 1, cfg, init, 2);
    REQUIRE(learner.n_costs() == 2);
    CHECK(learner.lambdas() == std::vector<double>{1.0, 1.0});
    // Channel 0: budget 5, costs 10, 10, 10, 2, 2, 2 → log λ 0.5, 1.0 (clamped from 1.0), 1.0,
    // 0.7, 0.4, 0.1. Channel 1: budget 0, costs 0 → log λ stays 0 ... then 20 → clamp at +1.
    const std::vector<double> c0 = {10, 10, 10, 2, 2, 2}, c1 = {0, 0, 0, 0, 0, 20};
    const std::vector<double> want0 = {0.5, 1.0, 1.0, 0.7, 0.4, 0.1};
    const std::vector<double> want1 = {0, 0, 0, 0, 0, 1.0};
    std::vector<double> lam_seen;
    for (size_t i = 0; i < c0.size(); ++i) {
      const auto lam = learner.dual_update({c0[i], c1[i]}, {5.0, 0.0});
      const auto ll = learner.log_lambdas();
      INFO("update " << i);
      CHECK(ll[0] == doctest::Approx(want0[i]).epsilon(1e-12));
      CHECK(ll[1] == doctest::Approx(want1[i]).epsilon(1e-12));
      CHECK(lam[0] == doctest::Approx(std::exp(want0[i])).epsilon(1e-12));
      lam_seen.push_back(lam[0]);
    }
    CHECK(lam_seen[1] > lam_seen[0]);  // rising while over budget
    CHECK(lam_seen[5] < lam_seen[4]);  // falling once under
    CHECK(lam_seen[4] < lam_seen[3]);
    // Lower clamp: a long stretch of zero cost against budget 5 ends at e^−1, never 0.
    for (int i = 0; i < 100; ++i) learner.dual_update({0.0, 0.0}, {5.0, 0.0});
    CHECK(learner.log_lambdas()[0] == doctest::Approx(-1.0));
    CHECK_THROWS_AS(learner.dual_update({1.0}, {0.0}), pz::core::ConfigError);
  }

  TEST_CASE("PID dual rule: hand-computed λ sequence, clamping and checkpoint round trip") {
    PpoConfig cfg;
    cfg.hidden = {4};
    cfg.dual = pz::rl::DualRule::kPid;
    cfg.pid_kp = 0.5;
    cfg.pid_ki = 0.1;
    cfg.pid_kd = 1.0;
    cfg.lambda_init = 1.0;  // I₀
    cfg.log_lambda_max = 3.0;
    Rng init(1, 0);
    PpoLearner a(2, 1, cfg, init, 1);
    // Budget 2, costs 4, 6, 3, 0, 0: e = 2, 4, 1, −2, −2; I = 1.2, 1.6, 1.7, 1.5, 1.3;
    // rise = 0 (no previous), 2, 0, 0, 0; λ = K_p·e + I + K_d·rise = 2.2, 5.6, 2.2, 0.5, 0.3.
    const std::vector<double> costs = {4, 6, 3, 0, 0}, want = {2.2, 5.6, 2.2, 0.5, 0.3};
    pz::core::StateDict sd;
    for (size_t i = 0; i < costs.size(); ++i) {
      INFO("update " << i);
      const auto lam = a.dual_update({costs[i]}, {2.0});
      CHECK(lam[0] == doctest::Approx(want[i]).epsilon(1e-12));
      if (i == 1) a.save(sd);
    }
    // Restored after update 1, the learner repeats updates 2..4 exactly.
    Rng init_b(2, 0);
    PpoLearner b(2, 1, cfg, init_b, 1);
    b.load(sd);
    CHECK(b.lambdas()[0] == doctest::Approx(5.6).epsilon(1e-12));
    for (size_t i = 2; i < costs.size(); ++i)
      CHECK(b.dual_update({costs[i]}, {2.0})[0] == doctest::Approx(want[i]).epsilon(1e-12));
    // Long under budget: I hits 0 and λ stops at the lower clamp e^−3, never 0; a surge
    // is capped at e^3.
    for (int i = 0; i < 50; ++i) a.dual_update({0.0}, {2.0});
    CHECK(a.lambdas()[0] == doctest::Approx(std::exp(-3.0)).epsilon(1e-12));
    CHECK(a.dual_update({1000.0}, {2.0})[0] == doctest::Approx(std::exp(3.0)).epsilon(1e-12));
    // Anti-windup: the surge left I at e^3 (not 99.8), so one step under budget lowers λ at
    // once: e = −2, I = e^3 − 0.2, λ = −1 + I.
    CHECK(a.dual_update({1000.0}, {2.0})[0] == doctest::Approx(std::exp(3.0)).epsilon(1e-12));
    CHECK(a.dual_update({0.0}, {2.0})[0] == doctest::Approx(std::exp(3.0) - 1.2).epsilon(1e-12));
    // A checkpoint without the PID state is refused for a PID learner.
    pz::core::StateDict bad = sd;
    bad.f64.erase("learner/pid/integral");
    CHECK_THROWS_AS(b.load(bad), pz::core::ConfigError);
  }

  TEST_CASE("cost-advantage GAE on a hand-computed trajectory (two channels)") {
    const int T = 4, N = 1, obs_dim = 2, act_dim = 1, k = 2;
    PpoConfig cfg;
    cfg.hidden = {4};
    cfg.gamma = 0.99;
    cfg.cost_gamma = 0.9;
    cfg.gae_lambda = 0.5;
    cfg.normalize_obs = false;
    Rng init(2, 0);
    PpoLearner learner(obs_dim, act_dim, cfg, init, k);
    // Each cost critic 2→4→1 has 12 + 5 parameters; set both to constants: output layer weights 0,
    // bias 0.5 (channel 0) and 0 (channel 1), so V_C0 ≡ 0.5 and V_C1 ≡ 0.
    const int64_t n = learner.n_parameters();
    auto p = learner.parameters();
    for (int64_t i = n - 34; i < n; ++i) p[i] = 0.0f;
    p[n - 17 - 1] = 0.5f;  // bias of cost critic 0's output layer
    learner.set_parameters(p);
    Rollout r;
    r.resize(T, N, obs_dim, act_dim, k);
    for (auto& x : r.obs) x = 0.3f;
    const float c0[T] = {1, 0, 2, 3}, c1[T] = {0, 0, 0, 1};
    for (int t = 0; t < T; ++t) {
      r.costs[t * k + 0] = c0[t];
      r.costs[t * k + 1] = c1[t];
    }
    r.dones[1] = 1;  // terminated after t = 1
    std::vector<float> adv, tgt;
    learner.compute_targets(r, {0}, &adv, &tgt);
    REQUIRE(adv.size() == 3 * T);
    // Channel 0, γ_c = 0.9, λ = 0.5, V ≡ 0.5 (bootstrap V(next_obs) = 0.5):
    //   δ3 = 3 + 0.45 − 0.5 = 2.95, A3 = 2.95
    //   δ2 = 2 + 0.45 − 0.5 = 1.95, A2 = 1.95 + 0.45·2.95 = 3.2775
    //   δ1 = 0 − 0.5 (terminated), A1 = −0.5
    //   δ0 = 1 + 0.45 − 0.5 = 0.95, A0 = 0.95 + 0.45·(−0.5) = 0.725
    const double want0[T] = {0.725, -0.5, 3.2775, 2.95};
    // Channel 1, V ≡ 0: A3 = 1, A2 = 0.45, A1 = 0, A0 = 0.
    const double want1[T] = {0, 0, 0.45, 1};
    for (int t = 0; t < T; ++t) {
      INFO("t = " << t);
      CHECK(adv[T + t] == doctest::Approx(want0[t]).epsilon(1e-6));
      CHECK(tgt[T + t] == doctest::Approx(0.5 + want0[t]).epsilon(1e-6));
      CHECK(adv[2 * T + t] == doctest::Approx(want1[t]).epsilon(1e-6));
      CHECK(tgt[2 * T + t] == doctest::Approx(want1[t]).epsilon(1e-6));
    }
    // Block 0 is the reward GAE, unaffected by the costs: all-zero rewards give A = target − V.
    std::vector<float> v(T);
    learner.value(r.obs.data(), T, v.data());
    for (int t = 0; t < T; ++t) CHECK(tgt[t] == doctest::Approx(v[t] + adv[t]).epsilon(1e-6));
  }

  TEST_CASE("Lagrangian actor + cost-critic loss gradient matches central finite differences") {
    for (const bool squash : {false, true}) {
      CAPTURE(squash);
      const int T = 3, N = 4, obs_dim = 3, act_dim = 2, k = 2;
      PpoConfig cfg;
      cfg.squash = squash ? pz::rl::Squash::kTanh : pz::rl::Squash::kNone;
      cfg.hidden = {8, 8};
      cfg.entropy_coef = 0.05;
      cfg.critic_loss_weight = 0.5;
      cfg.gamma = 0.9;
      cfg.cost_gamma = 0.95;
      cfg.gae_lambda = 0.8;
      Rng init(21, 0), data(22, 0), pick(23, 0);
      PpoLearner learner(obs_dim, act_dim, cfg, init, k);
      // actor 122 + log_std 2 + critic 113 + 2 cost critics × 113.
      REQUIRE(learner.n_parameters() == 237 + 2 * 113);
      const int64_t ls_off = 122, n_par = 463, cc_off = 237;
      learner.set_log_lambdas({0.4, -0.7});
      auto p = learner.parameters();
      for (auto& x : p) x += static_cast<float>(0.3 * data.normal());
      p[ls_off] = -0.3f;
      p[ls_off + 1] = 0.2f;
      learner.set_parameters(p);
      Rollout r = random_rollout(learner, T, N, obs_dim, act_dim, k, data, squash);
      learner.normalizer().merge(r.obs.data(), T * N);
      const std::vector<int> cols = {3, 0, 2};
      std::vector<float> grad, grad_fixed, adv, tgt;
      std::map<std::string, double> metrics;
      const double loss = learner.loss_and_grad(r, cols, &grad, &metrics);
      CHECK(metrics.count("losses/cost_critic") == 1);
      CHECK(metrics["losses/cost_critic"] > 0.0);
      learner.compute_targets(r, cols, &adv, &tgt);
      REQUIRE(adv.size() == 3 * T * cols.size());
      CHECK(learner.loss_and_grad_fixed(r, cols, adv, tgt, &grad_fixed, nullptr) == loss);
      CHECK(grad_fixed == grad);

      // The λ weighting matters: changing λ changes the actor gradient but not the critics'.
      learner.set_log_lambdas({-2.0, 1.0});
      std::vector<float> grad_l;
      learner.loss_and_grad_fixed(r, cols, adv, tgt, &grad_l, nullptr);
      CHECK(grad_l[0] != grad[0]);
      CHECK(grad_l[cc_off + 5] == grad[cc_off + 5]);
      learner.set_log_lambdas({0.4, -0.7});

      std::vector<int64_t> idx = {ls_off,    ls_off + 1,   0,           121, cc_off,
                                  n_par - 1, cc_off + 112, cc_off + 113};
      for (int i = 0; i < 10; ++i) idx.push_back(static_cast<int64_t>(pick.below(ls_off)));
      for (int i = 0; i < 16; ++i) idx.push_back(cc_off + static_cast<int64_t>(pick.below(226)));
      const int n_nonzero = pz::test::check_gradient_fd(learner, r, cols, adv, tgt, grad, idx);
      CHECK(n_nonzero > 20);
    }
  }

  TEST_CASE("shared k-output cost critic: loss gradient matches central finite differences") {
    const int T = 3, N = 4, obs_dim = 3, act_dim = 2, k = 2;
    PpoConfig cfg;
    cfg.hidden = {8, 8};
    cfg.entropy_coef = 0.05;
    cfg.critic_loss_weight = 0.5;
    cfg.gamma = 0.9;
    cfg.cost_gamma = 0.95;
    cfg.gae_lambda = 0.8;
    cfg.cost_critic = pz::rl::CostCritic::kShared;
    Rng init(41, 0), data(42, 0), pick(43, 0);
    PpoLearner learner(obs_dim, act_dim, cfg, init, k);
    // actor 122 + log_std 2 + critic 113 + one cost critic 3 → 8 → 8 → 2 (122).
    REQUIRE(learner.n_parameters() == 237 + 122);
    const int64_t cc_off = 237, n_par = 359;
    learner.set_log_lambdas({0.4, -0.7});
    auto p = learner.parameters();
    for (auto& x : p) x += static_cast<float>(0.3 * data.normal());
    learner.set_parameters(p);
    Rollout r = random_rollout(learner, T, N, obs_dim, act_dim, k, data);
    learner.normalizer().merge(r.obs.data(), T * N);
    const std::vector<int> cols = {3, 0, 2};
    std::vector<float> grad, adv, tgt;
    std::map<std::string, double> metrics;
    learner.loss_and_grad(r, cols, &grad, &metrics);
    CHECK(metrics["losses/cost_critic"] > 0.0);
    learner.compute_targets(r, cols, &adv, &tgt);
    REQUIRE(adv.size() == 3 * T * cols.size());
    // Output c of the shared net is channel c's value: zeroing output 1's weights and bias
    // (the last column of W2 and the last bias) leaves channel 1's values at 0, so its targets
    // are its advantages, while channel 0's are not.
    auto q = p;
    for (int h = 0; h < 8; ++h) q[cc_off + 104 + h * 2 + 1] = 0.0f;
    q[n_par - 1] = 0.0f;
    learner.set_parameters(q);
    std::vector<float> adv0, tgt0;
    learner.compute_targets(r, cols, &adv0, &tgt0);
    const size_t tb = static_cast<size_t>(T) * cols.size();
    int differ0 = 0;
    for (size_t i = 0; i < tb; ++i) {
      CHECK(tgt0[2 * tb + i] == adv0[2 * tb + i]);
      differ0 += tgt0[tb + i] != adv0[tb + i] ? 1 : 0;
    }
    CHECK(differ0 > 0);
    learner.set_parameters(p);
    // Every weight of the shared trunk and both output columns, plus the actor and critic.
    std::vector<int64_t> idx = {cc_off,    cc_off + 31, cc_off + 104, cc_off + 105, n_par - 2,
                                n_par - 1, 0,           121};
    for (int i = 0; i < 20; ++i) idx.push_back(cc_off + static_cast<int64_t>(pick.below(122)));
    const int n_nonzero = pz::test::check_gradient_fd(learner, r, cols, adv, tgt, grad, idx);
    CHECK(n_nonzero > 20);
  }

  TEST_CASE("shared cost critic checkpoint round trip; per-constraint checkpoints are refused") {
    PpoConfig cfg;
    cfg.hidden = {6};
    cfg.lambda_lr = 0.05;
    PpoConfig shared_cfg = cfg;
    shared_cfg.cost_critic = pz::rl::CostCritic::kShared;
    Rng i1(51, 0), i2(52, 0), i3(53, 0), data(54, 0);
    PpoLearner a(3, 2, shared_cfg, i1, 2);
    Rollout r = random_rollout(a, 4, 4, 3, 2, 2, data);
    Rng shuffle(55, 0);
    a.update(r, shuffle);
    pz::core::StateDict sd;
    a.save(sd);
    CHECK(sd.str.at("learner/cost_critic_layout") == "shared");
    CHECK(sd.f32.at("learner/cost_critic/l1/w").size() == 6 * 2);
    PpoLearner b(3, 2, shared_cfg, i2, 2);
    b.load(sd);
    CHECK(b.parameters() == a.parameters());
    Rng s1(56, 0), s2(56, 0);
    a.update(r, s1);
    b.update(r, s2);
    CHECK(b.parameters() == a.parameters());

    // A per-constraint learner and a per-constraint checkpoint (no "cost_critic" entry, as
    // written before the shared layout) refuse each other, naming both layouts.
    PpoLearner per(3, 2, cfg, i3, 2);
    auto message = [](PpoLearner& l, const pz::core::StateDict& d) {
      try {
        l.load(d);
      } catch (const pz::core::ConfigError& e) {
        return std::string(e.what());
      }
      return std::string("loaded");
    };
    const std::string m1 = message(per, sd);
    CHECK(m1.find("one shared cost critic with 2 outputs") != std::string::npos);
    CHECK(m1.find("2 cost critics, one per constraint") != std::string::npos);
    pz::core::StateDict old;
    per.save(old);
    CHECK(old.str.count("learner/cost_critic_layout") == 0);
    const auto before = b.parameters();
    const std::string m2 = message(b, old);
    CHECK(m2.find("cost_critic = \"per_constraint\" to load it") != std::string::npos);
    CHECK(b.parameters() == before);
  }

  TEST_CASE("learner checkpoint round trip includes λ and the cost critics") {
    PpoConfig cfg;
    cfg.hidden = {6};
    cfg.lambda_lr = 0.05;
    Rng i1(31, 0), i2(32, 0), data(33, 0);
    PpoLearner a(3, 2, cfg, i1, 2);
    Rollout r = random_rollout(a, 4, 4, 3, 2, 2, data);
    Rng shuffle(34, 0);
    a.update(r, shuffle);
    a.dual_update({3.0, 0.5}, {1.0, 1.0});
    pz::core::StateDict sd;
    a.save(sd);
    REQUIRE(sd.f64.count("learner/log_lambda") == 1);
    CHECK(sd.f32.count("learner/cost_critic/1/l1/b") == 1);
    CHECK(sd.f32.count("learner/adam/m/cost_critic/0/l0/w") == 1);

    PpoLearner b(3, 2, cfg, i2, 2);
    CHECK(b.parameters() != a.parameters());
    b.load(sd);
    CHECK(b.parameters() == a.parameters());
    CHECK(b.log_lambdas() == a.log_lambdas());
    CHECK(b.lambdas()[0] > 1.0);
    CHECK(b.lambdas()[1] < 1.0);
    // Identical continuation after the round trip.
    Rng s1(35, 0), s2(35, 0);
    a.update(r, s1);
    b.update(r, s2);
    CHECK(b.parameters() == a.parameters());

    // A learner without (or with other) cost critics refuses the checkpoint.
    Rng i3(36, 0), i4(37, 0);
    PpoLearner plain(3, 2, cfg, i3);
    CHECK_THROWS_AS(plain.load(sd), pz::core::ConfigError);
    PpoLearner one(3, 2, cfg, i4, 1);
    CHECK_THROWS_AS(one.load(sd), pz::core::ConfigError);
  }

  TEST_CASE("Sauté: budget bookkeeping across an episode boundary, shaping, save/load") {
    auto base = std::make_shared<const CostEnv>();
    // Channel "spend" (index 1), budget 2, H = base horizon 3, unsafe reward −5.
    auto env = std::make_shared<const pz::envs::SauteEnv>(base, std::vector<int>{1},
                                                          std::vector<double>{2.0}, 0, -5.0, true);
    CHECK(env->spec().obs_dim == 2);
    CHECK(env->spec().cost_names == base->spec().cost_names);
    pz::core::ThreadPool pool(1);
    pz::vec::VectorEnv venv(env, 1, 7, 100, pool);
    venv.reset_all();
    CHECK(venv.obs[1] == doctest::Approx(2.0 / 3));
    auto step = [&](float a) { venv.step_all(&a); };
    step(1.0f);  // C = 1, z = 1/3, safe
    CHECK(venv.obs[1] == doctest::Approx(1.0 / 3));
    CHECK(venv.reward[0] == 1.0f);
    step(1.5f);  // C = 2.5, z = −0.5/3 ≤ 0 → unsafe reward from this step on
    CHECK(venv.obs[1] == doctest::Approx(-0.5 / 3));
    CHECK(venv.reward[0] == -5.0f);
    CHECK(venv.costs[1] == 1.5f);  // costs pass through
    step(0.0f);                    // C stays 2.5: still unsafe; time limit → auto-reset
    CHECK(venv.reward[0] == -5.0f);
    CHECK(venv.truncated[0] == 1);
    CHECK(venv.final_obs[1] == doctest::Approx(-0.5 / 3));  // finished episode's z
    CHECK(venv.obs[1] == doctest::Approx(2.0 / 3));         // new episode: full budget
    REQUIRE(venv.finished().size() == 1);
    CHECK(venv.finished()[0].second.ret == doctest::Approx(1 - 5 - 5));
    step(0.5f);  // C = 0.5 in the new episode
    CHECK(venv.obs[1] == doctest::Approx(1.5 / 3));
    CHECK(venv.reward[0] == 1.0f);

    // Mid-episode state round trip through save_state / load_state.
    auto s1 = env->make_state();
    std::vector<float> obs(2), costs(2);
    Rng rng(1, 0);
    env->reset(*s1, rng, obs);
    const float a = 1.25f;
    env->step(*s1, std::span<const float>(&a, 1), rng, obs, costs, nullptr);
    std::vector<double> saved;
    env->save_state(*s1, saved);
    CHECK(saved == std::vector<double>{1.0, 1.25});
    auto s2 = env->make_state();
    CHECK(env->load_state(*s2, saved) == 2);
    CHECK(env->episode_costs(*s2) == std::vector<double>{1.25});
    std::vector<float> o1(2), o2(2);
    const float a2 = 1.0f;
    auto r1 = env->step(*s1, std::span<const float>(&a2, 1), rng, o1, costs, nullptr);
    auto r2 = env->step(*s2, std::span<const float>(&a2, 1), rng, o2, costs, nullptr);
    CHECK(o1 == o2);
    CHECK(r1.reward == r2.reward);
    CHECK(r1.reward == -5.0f);  // 2.25 > 2

    // Shaping off (evaluation): same budget obs, objective reward kept.
    pz::envs::SauteEnv eval_env(base, {1}, {2.0}, 0, -5.0, false);
    auto s3 = eval_env.make_state();
    eval_env.reset(*s3, rng, obs);
    const float big = 5.0f;
    auto r3 = eval_env.step(*s3, std::span<const float>(&big, 1), rng, obs, costs, nullptr);
    CHECK(r3.reward == 1.0f);
    CHECK(obs[1] == doctest::Approx(-1.0));
    CHECK_THROWS_AS(pz::envs::SauteEnv(base, {1}, {0.0}, 0, 0.0, true), pz::core::ConfigError);
  }

  TEST_CASE("[safety] spec: parse, validation, round trip, channel names") {
    const std::string base = "[safety]\nconstraints = [\"power_balance\", \"thermal_overload\"]\n";
    auto s = pz::exp::parse_spec(
        base +
            "thresholds = [0, 2.5]\ncost_scale = 10\n"
            "[learner]\nalgo = \"ppo_lagrangian\"\n[lagrangian]\nlambda_lr = 0.01\n",
        "t.toml");
    CHECK(s.learner.algo == "ppo_lagrangian");
    CHECK(s.learner_sections.at("lagrangian").number("lambda_lr") == 0.01);
    CHECK(s.safety.thresholds == std::vector<double>{0, 2.5});
    CHECK(s.safety.cost_scale == std::vector<double>{10});
    auto back = pz::exp::parse_spec(pz::exp::to_toml(s), "x");
    CHECK(pz::exp::to_toml(back) == pz::exp::to_toml(s));
    CHECK(back.safety.constraints == s.safety.constraints);
    CHECK_THROWS_WITH_AS(
        pz::exp::parse_spec(base + "thresholds = [1]\n[learner]\nalgo = \"ppo_lagrangian\"\n",
                            "t.toml"),
        doctest::Contains("expected 2 values"), pz::core::ConfigError);
    CHECK_THROWS_WITH_AS(pz::exp::parse_spec("[learner]\nalgo = \"ppo_lagrangian\"\n", "t.toml"),
                         doctest::Contains("needs [safety] constraints"), pz::core::ConfigError);
    CHECK_THROWS_AS(pz::exp::parse_spec(base + "[learner]\nalgo = \"saute_ppo\"\n", "t.toml"),
                    pz::core::ConfigError);
    CHECK_THROWS_AS(pz::exp::parse_spec("[learner]\nalgo = \"td3\"\n", "t.toml"),
                    pz::core::ConfigError);
    auto o = pz::exp::parse_spec(
        base, "t.toml",
        {"learner.algo=ppo_lagrangian", "safety.thresholds=[1, 2]", "safety.cost_scale=[1, 2]"});
    CHECK(o.learner.algo == "ppo_lagrangian");
    CHECK(o.safety.cost_scale == std::vector<double>{1, 2});
    // ppo.squash: default none, "tanh" parses and round-trips, anything else is rejected.
    CHECK(s.learner_sections.at("ppo").str("squash") == "none");
    auto sq = pz::exp::parse_spec(base + "[ppo]\nsquash = \"tanh\"\n", "t.toml");
    CHECK(sq.learner_sections.at("ppo").str("squash") == "tanh");
    CHECK(pz::exp::parse_spec(pz::exp::to_toml(sq), "x").learner_sections.at("ppo").str("squash") ==
          "tanh");
    CHECK_THROWS_AS(pz::exp::parse_spec("[ppo]\nsquash = \"clip\"\n", "t.toml"),
                    pz::core::ConfigError);

    CostEnv env;
    auto v = pz::exp::safety_view(
        pz::exp::parse_spec("[learner]\nalgo = \"ppo_lagrangian\"\n[safety]\nconstraints = "
                            "[\"spend\"]\ncost_scale = 4\n",
                            "t.toml"),
        env.spec());
    CHECK(v.channels == std::vector<int>{1});
    CHECK(v.thresholds == std::vector<double>{0});
    CHECK(v.cost_scale == std::vector<double>{4});
    CHECK_THROWS_WITH_AS(
        pz::exp::safety_view(pz::exp::parse_spec("[safety]\nconstraints = [\"spnd\"]\n", "t.toml"),
                             env.spec()),
        doctest::Contains("did you mean 'spend'"), pz::core::ConfigError);
  }
}
