// Tests for the PPO learner: GAE, Adam, normalizer, checkpoints, updates (gradients are in
// test_rl_ppo_grad.cpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <string>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/rng.hpp"
#include "powerzoo/core/state_dict.hpp"
#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/rl/nn/optimizer.hpp"
#include "powerzoo/rl/ppo/ppo.hpp"
#include "test_rl_fd.hpp"

using pz::core::Rng;
using pz::rl::PpoConfig;
using pz::rl::PpoLearner;
using pz::rl::Rollout;
using pz::rl::Truncation;
using pz::test::random_rollout;

TEST_SUITE("rl") {
  TEST_CASE("gae: hand-computed T=4 trajectories, both truncation modes") {
    // γ = 0.9, λ = 0.8 → γλ = 0.72. rewards r = [1, 2, 3, 4], values V = [0.5, 1, 1.5, 2].
    const float r[4] = {1, 2, 3, 4};
    const float v[4] = {0.5f, 1.0f, 1.5f, 2.0f};
    float a[4];

    SUBCASE("truncated at t=2") {
      // values_next = [V1, V2, V(final_obs_2) = 2.5, V(next_obs) = 3].
      const float vn[4] = {1.0f, 1.5f, 2.5f, 3.0f};
      const uint8_t d[4] = {0, 0, 1, 0}, tr[4] = {0, 0, 1, 0};
      // t3: δ = 4 + 0.9·3 − 2 = 4.7, A3 = 4.7 (both modes).
      // kZeroTd: t2: δ = 0, done → A2 = 0; t1: δ = 2 + 0.9·1.5 − 1 = 2.35, A1 = 2.35 + 0.72·0;
      //          t0: δ = 1 + 0.9·1 − 0.5 = 1.4, A0 = 1.4 + 0.72·2.35 = 3.092.
      pz::rl::gae(4, r, v, vn, d, tr, 0.9, 0.8, Truncation::kZeroTd, a);
      CHECK(a[3] == doctest::Approx(4.7).epsilon(1e-6));
      CHECK(a[2] == doctest::Approx(0.0));
      CHECK(a[1] == doctest::Approx(2.35).epsilon(1e-6));
      CHECK(a[0] == doctest::Approx(3.092).epsilon(1e-6));
      // kBootstrap: t2: δ = 3 + 0.9·2.5 − 1.5 = 3.75, A2 = 3.75; A1 = 2.35 + 0.72·3.75 = 5.05;
      //             A0 = 1.4 + 0.72·5.05 = 5.036.
      pz::rl::gae(4, r, v, vn, d, tr, 0.9, 0.8, Truncation::kBootstrap, a);
      CHECK(a[3] == doctest::Approx(4.7).epsilon(1e-6));
      CHECK(a[2] == doctest::Approx(3.75).epsilon(1e-6));
      CHECK(a[1] == doctest::Approx(5.05).epsilon(1e-6));
      CHECK(a[0] == doctest::Approx(5.036).epsilon(1e-6));
    }

    SUBCASE("terminated at t=1, truncated at the last step") {
      // values_next = [V1, 99 (V of the reset obs, must be ignored), V3 = 2, V(final_obs_3) = 5].
      const float vn[4] = {1.0f, 99.0f, 2.0f, 5.0f};
      const uint8_t d[4] = {0, 1, 0, 1}, tr[4] = {0, 0, 0, 1};
      // kZeroTd: t3: A3 = 0; t2: δ = 3 + 0.9·2 − 1.5 = 3.3, A2 = 3.3; t1 (terminated):
      //          δ = 2 − 1 = 1, A1 = 1; t0: δ = 1.4, A0 = 1.4 + 0.72·1 = 2.12.
      pz::rl::gae(4, r, v, vn, d, tr, 0.9, 0.8, Truncation::kZeroTd, a);
      CHECK(a[3] == doctest::Approx(0.0));
      CHECK(a[2] == doctest::Approx(3.3).epsilon(1e-6));
      CHECK(a[1] == doctest::Approx(1.0).epsilon(1e-6));
      CHECK(a[0] == doctest::Approx(2.12).epsilon(1e-6));
      // kBootstrap: t3: δ = 4 + 0.9·5 − 2 = 6.5; A2 = 3.3 + 0.72·6.5 = 7.98; A1 = 1 (cut by the
      //             termination); A0 = 2.12.
      pz::rl::gae(4, r, v, vn, d, tr, 0.9, 0.8, Truncation::kBootstrap, a);
      CHECK(a[3] == doctest::Approx(6.5).epsilon(1e-6));
      CHECK(a[2] == doctest::Approx(7.98).epsilon(1e-6));
      CHECK(a[1] == doctest::Approx(1.0).epsilon(1e-6));
      CHECK(a[0] == doctest::Approx(2.12).epsilon(1e-6));
    }
  }

  TEST_CASE("compute_targets wires V(obs_{t+1}), V(next_obs) and V(final_obs) into GAE") {
    const int T = 3, N = 4, obs_dim = 3, act_dim = 2;
    for (Truncation mode : {Truncation::kBootstrap, Truncation::kZeroTd}) {
      PpoConfig cfg;
      cfg.hidden = {8};
      cfg.gamma = 0.9;
      cfg.gae_lambda = 0.7;
      cfg.truncation = mode;
      Rng init(3, 0), data(4, 0);
      PpoLearner learner(obs_dim, act_dim, cfg, init);
      Rollout r = random_rollout(learner, T, N, obs_dim, act_dim, 0, data);
      learner.normalizer().merge(r.obs.data(), T * N);
      const std::vector<int> cols = {2, 0, 3};
      const int B = 3;
      std::vector<float> adv, tgt;
      learner.compute_targets(r, cols, &adv, &tgt);
      REQUIRE(adv.size() == size_t(T * B));
      // Expected: values from value() on each obs array, GAE per column by the free function.
      std::vector<float> v(T * N), vf(T * N), vnext(N);
      learner.value(r.obs.data(), T * N, v.data());
      learner.value(r.final_obs.data(), T * N, vf.data());
      learner.value(r.next_obs.data(), N, vnext.data());
      for (int j = 0; j < B; ++j) {
        const int c = cols[j];
        float rw[T], vv[T], vn[T], a[T];
        uint8_t d[T], tr[T];
        for (int t = 0; t < T; ++t) {
          rw[t] = r.rewards[t * N + c];
          vv[t] = v[t * N + c];
          d[t] = r.dones[t * N + c];
          tr[t] = r.truncated[t * N + c];
          vn[t] = t + 1 < T ? v[(t + 1) * N + c] : vnext[c];
          if (tr[t] && mode == Truncation::kBootstrap) vn[t] = vf[t * N + c];
        }
        pz::rl::gae(T, rw, vv, vn, d, tr, 0.9, 0.7, mode, a);
        for (int t = 0; t < T; ++t) {
          CHECK(adv[t * B + j] == doctest::Approx(a[t]).epsilon(1e-5));
          CHECK(tgt[t * B + j] == doctest::Approx(vv[t] + a[t]).epsilon(1e-5));
        }
      }
    }
  }

  TEST_CASE(
      "compute_targets with GAE on column blocks beside the row blocks: any pool, same bytes") {
    // 300 columns: GAE on 4 column blocks, V(next_obs) and V(final_obs) as a task beside the
    // minibatch's row blocks (each on some worker); the result must be bitwise that of the
    // calling thread alone and agree with per-column GAE on value().
    const int T = 6, N = 300, obs_dim = 3, act_dim = 2;
    PpoConfig cfg;
    cfg.hidden = {16, 16};
    cfg.gamma = 0.9;
    cfg.gae_lambda = 0.7;
    std::vector<int> cols(N);
    for (int j = 0; j < N; ++j) cols[j] = (j * 7) % N;  // 7 is prime to 300: a permutation
    std::vector<std::vector<float>> adv(3), tgt(3);
    for (int t : {0, 1, 2}) {
      Rng init(3, 0), data(4, 0);
      PpoLearner learner(obs_dim, act_dim, cfg, init);
      Rollout r = random_rollout(learner, T, N, obs_dim, act_dim, 0, data);
      learner.normalizer().merge(r.obs.data(), T * N);
      pz::core::ThreadPool pool(t == 0 ? 1 : t);
      learner.set_pool(t == 0 ? nullptr : &pool);
      learner.compute_targets(r, cols, &adv[t], &tgt[t]);
      if (t != 0) continue;
      std::vector<float> v(T * N), vf(T * N), vnext(N);
      learner.value(r.obs.data(), T * N, v.data());
      learner.value(r.final_obs.data(), T * N, vf.data());
      learner.value(r.next_obs.data(), N, vnext.data());
      for (int j = 0; j < N; j += 37) {
        const int c = cols[j];
        float rw[T], vv[T], vn[T], a[T];
        uint8_t d[T], tr[T];
        for (int k = 0; k < T; ++k) {
          rw[k] = r.rewards[k * N + c];
          vv[k] = v[k * N + c];
          d[k] = r.dones[k * N + c];
          tr[k] = r.truncated[k * N + c];
          vn[k] = tr[k] ? vf[k * N + c] : (k + 1 < T ? v[(k + 1) * N + c] : vnext[c]);
        }
        pz::rl::gae(T, rw, vv, vn, d, tr, 0.9, 0.7, Truncation::kBootstrap, a);
        for (int k = 0; k < T; ++k) CHECK(adv[0][k * N + j] == doctest::Approx(a[k]).epsilon(1e-5));
      }
    }
    for (int t : {1, 2}) {
      CHECK(adv[t] == adv[0]);
      CHECK(tgt[t] == tgt[0]);
    }
  }

  // Guards thread invariance of the update: adam_step splits its elementwise part into one chunk
  // per thread, and the chunk edges move the xsimd/scalar split of every array.
  TEST_CASE("adam_step on 1, 2 and 3 threads is bitwise the serial step") {
    const size_t n = 3 * pz::rl::kMinParallelAdam + 7;
    pz::core::Rng rng(4, 4);
    std::vector<float> p0(n), g0(n);
    for (size_t i = 0; i < n; ++i) {
      p0[i] = static_cast<float>(rng.normal());
      g0[i] = static_cast<float>(0.1 * rng.normal());
    }
    auto run = [&](pz::core::ThreadPool* pool) {
      std::vector<float> p = p0, m(n, 0.0f), v(n, 0.0f);
      for (int step = 1; step <= 3; ++step) {
        std::vector<float> g = g0;
        for (size_t i = 0; i < n; i += 97) g[i] *= static_cast<float>(step);
        pz::rl::adam_step(p, g, m, v, step, 3e-4, 0.9, 0.999, 1e-8, 0.01, 0.5, pool);
      }
      return p;
    };
    const std::vector<float> serial = run(nullptr);
    CHECK(serial != p0);
    for (size_t t : {1, 2, 3}) {
      CAPTURE(t);
      pz::core::ThreadPool pool(t);
      CHECK(run(&pool) == serial);
    }
  }

  TEST_CASE("adam_step: hand-computed Adam and clipped AdamW") {
    // p0 = [1, −2, 0.5], g1 = [0.1, −0.2, 0.3], g2 = [0.2, 0.1, −0.1], lr 0.1, b1 0.9, b2 0.999.
    const std::vector<float> p0 = {1.0f, -2.0f, 0.5f};
    const std::vector<float> g1 = {0.1f, -0.2f, 0.3f}, g2 = {0.2f, 0.1f, -0.1f};
    SUBCASE("Adam, no clipping") {
      std::vector<float> p = p0, m(3, 0.0f), v(3, 0.0f), g = g1;
      // Step 1: m̂ = g, v̂ = g² → update = g/(|g| + 1e-8) ≈ sign(g): p = p0 − 0.1·sign(g1).
      const double n1 = pz::rl::adam_step(p, g, m, v, 1, 0.1, 0.9, 0.999, 1e-8, 0.0, 0.0);
      CHECK(n1 == doctest::Approx(std::sqrt(0.14)));
      CHECK(p[0] == doctest::Approx(0.9).epsilon(1e-6));
      CHECK(p[1] == doctest::Approx(-1.9).epsilon(1e-6));
      CHECK(p[2] == doctest::Approx(0.4).epsilon(1e-6));
      CHECK(m[0] == doctest::Approx(0.01).epsilon(1e-6));
      CHECK(v[2] == doctest::Approx(9e-5).epsilon(1e-6));
      // Step 2, component 0: m = 0.9·0.01 + 0.1·0.2 = 0.029, v = 0.999·1e-5 + 0.001·0.04 =
      // 4.999e-5; m̂ = 0.029/0.19 = 0.1526316, v̂ = 4.999e-5/0.001999 = 0.0250075,
      // update = 0.1526316/0.1581376 = 0.965182 → p = 0.9 − 0.0965182 = 0.8034818.
      g = g2;
      pz::rl::adam_step(p, g, m, v, 2, 0.1, 0.9, 0.999, 1e-8, 0.0, 0.0);
      CHECK(m[0] == doctest::Approx(0.029).epsilon(1e-6));
      CHECK(v[0] == doctest::Approx(4.999e-5).epsilon(1e-6));
      CHECK(p[0] == doctest::Approx(0.803481814).epsilon(1e-6));
      CHECK(p[1] == doctest::Approx(-1.873366303).epsilon(1e-6));
      CHECK(p[2] == doctest::Approx(0.359978148).epsilon(1e-6));
    }
    SUBCASE("AdamW (wd 0.01) with global-norm clip 0.1") {
      std::vector<float> p = p0, m(3, 0.0f), v(3, 0.0f), g = g1;
      // Step 1: ‖g1‖ = √0.14 = 0.374166 > 0.1 → g = g1·0.1/0.374166 (in place); Adam part still
      // ≈ sign(g); decay adds 0.01·p: p0 = 1 → 1 − 0.1·(1 + 0.01) = 0.899.
      const double n1 = pz::rl::adam_step(p, g, m, v, 1, 0.1, 0.9, 0.999, 1e-8, 0.01, 0.1);
      CHECK(n1 == doctest::Approx(0.374165739));  // pre-clip norm
      CHECK(g[0] == doctest::Approx(0.1 * 0.1 / 0.374165739).epsilon(1e-6));
      CHECK(p[0] == doctest::Approx(0.899).epsilon(1e-6));
      CHECK(p[1] == doctest::Approx(-1.898).epsilon(1e-6));
      CHECK(p[2] == doctest::Approx(0.3995).epsilon(1e-6));
      // Step 2: ‖g2‖ = √0.06 = 0.244949 → scale 0.408248. Component 0: g = 0.0816497,
      // m = 0.9·0.00267261 + 0.1·0.0816497 = 0.0105703, v = 0.999·7.142857e-7 + 0.001·0.00666667
      // = 7.380238e-6; update = (0.0105703/0.19)/√(7.380238e-6/0.001999) + 0.01·0.899 = 0.924575
      // → p = 0.899 − 0.0924575 = 0.8065425.
      g = g2;
      const double n2 = pz::rl::adam_step(p, g, m, v, 2, 0.1, 0.9, 0.999, 1e-8, 0.01, 0.1);
      CHECK(n2 == doctest::Approx(0.244948974));
      CHECK(m[0] == doctest::Approx(0.010570317).epsilon(1e-6));
      CHECK(v[0] == doctest::Approx(7.3802381e-06).epsilon(1e-6));
      CHECK(p[0] == doctest::Approx(0.806541087).epsilon(1e-6));
      CHECK(p[1] == doctest::Approx(-1.888042669).epsilon(1e-6));
      CHECK(p[2] == doctest::Approx(0.373173653).epsilon(1e-6));
    }
    SUBCASE("no clipping below the threshold") {
      std::vector<float> p = p0, m(3, 0.0f), v(3, 0.0f), g = g1;
      pz::rl::adam_step(p, g, m, v, 1, 0.1, 0.9, 0.999, 1e-8, 0.0, 1.0);
      CHECK(g == g1);
    }
  }

  TEST_CASE("ObsNormalizer: merge equals two-pass statistics of the concatenation") {
    const int dim = 3, n1 = 5, n2 = 7;
    Rng rng(21, 0);
    std::vector<float> x(static_cast<size_t>(n1 + n2) * dim);
    for (size_t k = 0; k < x.size(); ++k) x[k] = static_cast<float>(3.0 * rng.normal() + k % 3);
    pz::rl::ObsNormalizer norm(dim);

    // Identity before the first merge (μ = 0, σ = 1), clipped to ±10.
    const float raw[3] = {0.5f, -12.0f, 11.0f};
    float out[3];
    norm.normalize(raw, 1, out);
    CHECK(out[0] == 0.5f);
    CHECK(out[1] == -10.0f);
    CHECK(out[2] == 10.0f);

    norm.merge(x.data(), n1);
    norm.merge(x.data() + n1 * dim, n2);
    pz::core::StateDict sd;
    norm.save(sd, "n/");
    const int n = n1 + n2;
    CHECK(sd.f64["n/count"][0] == n);
    for (int d = 0; d < dim; ++d) {
      double mean = 0, var = 0;
      for (int i = 0; i < n; ++i) mean += x[i * dim + d];
      mean /= n;
      for (int i = 0; i < n; ++i) var += (x[i * dim + d] - mean) * (x[i * dim + d] - mean);
      var /= n;
      CHECK(sd.f64["n/mean"][d] == doctest::Approx(mean).epsilon(1e-12));
      CHECK(sd.f64["n/m2"][d] / n == doctest::Approx(var).epsilon(1e-12));
      // normalize() uses the merged statistics.
      float xi[3] = {0, 0, 0}, oi[3];
      xi[d] = static_cast<float>(mean + std::sqrt(var));
      norm.normalize(xi, 1, oi);
      CHECK(oi[d] == doctest::Approx(1.0).epsilon(1e-5));
    }
    pz::rl::ObsNormalizer other(dim);
    other.load(sd, "n/");
    float a[3], b[3];
    norm.normalize(x.data(), 1, a);
    other.normalize(x.data(), 1, b);
    CHECK(std::equal(a, a + 3, b));
    pz::rl::ObsNormalizer wrong(dim + 1);
    CHECK_THROWS_AS(wrong.load(sd, "n/"), pz::core::ConfigError);
  }

  TEST_CASE("ObsNormalizer: a checkpoint with a negative count or sum of squares is refused") {
    // Regression: m2 < 0 loaded silently and gave NaN observation scales (sqrt of a negative
    // variance) for the whole resumed run.
    pz::core::StateDict sd;
    sd.f64["n/count"] = {4};
    sd.f64["n/mean"] = {0, 1};
    sd.f64["n/m2"] = {2, 3};
    pz::rl::ObsNormalizer ok(2);
    CHECK_NOTHROW(ok.load(sd, "n/"));
    sd.f64["n/m2"] = {2, -3};
    pz::rl::ObsNormalizer bad(2);
    CHECK_THROWS_WITH_AS(bad.load(sd, "n/"), doctest::Contains("'n/m2' [1] expected >= 0"),
                         pz::core::ConfigError);
    sd.f64["n/m2"] = {2, 3};
    sd.f64["n/count"] = {-1};
    CHECK_THROWS_WITH_AS(bad.load(sd, "n/"), doctest::Contains("'n/count' expected >= 0"),
                         pz::core::ConfigError);
    sd.f64["n/count"] = {0};  // no samples yet, but a nonzero sum of squares
    CHECK_THROWS_AS(bad.load(sd, "n/"), pz::core::ConfigError);
  }

  TEST_CASE("RewardNormalizer: hand-computed SB3 VecNormalize reward scaling, done resets R") {
    // γ = 0.5, two envs. Step 1: R = [1, 3], batch mean 2, var 1; count 1e-4 → 2.0001,
    // M2 = 1·1e-4 + 1·2 + 2²·1e-4·2/2.0001, var = M2/2.0001 = 1.00019998; env 1 is done, so its
    // R restarts at 0. Step 2: R = [0.5·1 + 2, −1]. Step 3: R = [0.5·2.5 − 4, 0.5·(−1) + 0.5].
    PpoConfig cfg;
    cfg.hidden = {4};
    cfg.gamma = 0.5;
    cfg.normalize_rewards = true;
    Rng init(1, 0);
    PpoLearner a(2, 1, cfg, init);
    const float r1[2] = {1.0f, 3.0f}, r2[2] = {2.0f, -1.0f}, r3[2] = {-4.0f, 0.5f};
    const uint8_t d1[2] = {0, 1}, d2[2] = {0, 0}, d3[2] = {1, 0};
    float out[2];
    a.process_rewards(r1, d1, 2, out);
    CHECK(out[0] == doctest::Approx(0.99990002).epsilon(1e-6));
    CHECK(out[1] == doctest::Approx(2.99970006).epsilon(1e-6));
    a.process_rewards(r2, d2, 2, out);
    CHECK(out[0] == doctest::Approx(1.28514781).epsilon(1e-6));
    CHECK(out[1] == doctest::Approx(-0.642573907).epsilon(1e-6));
    // Checkpoint round trip: a restored learner continues exactly like the original.
    pz::core::StateDict sd;
    a.save(sd);
    CHECK(sd.f64.at("learner/reward_normalizer/moments")[2] ==
          doctest::Approx(2.4218867172754575).epsilon(1e-12));
    Rng init_b(2, 0);
    PpoLearner b(2, 1, cfg, init_b);
    b.load(sd);
    float out_b[2];
    a.process_rewards(r3, d3, 2, out);
    b.process_rewards(r3, d3, 2, out_b);
    CHECK(out[0] == doctest::Approx(-2.0189402).epsilon(1e-6));
    CHECK(out[1] == doctest::Approx(0.252367525).epsilon(1e-6));
    CHECK(out[0] == out_b[0]);
    CHECK(out[1] == out_b[1]);
    // A different number of envs per step is a usage error, not silent garbage.
    CHECK_THROWS_AS(a.process_rewards(r1, d1, 1, out), pz::core::ConfigError);
    // Disabled (the default): rewards pass through unchanged.
    cfg.normalize_rewards = false;
    Rng init_c(3, 0);
    PpoLearner c(2, 1, cfg, init_c);
    c.process_rewards(r3, d3, 2, out);
    CHECK(out[0] == -4.0f);
    CHECK(out[1] == 0.5f);
  }

  TEST_CASE("save/load round trip and shape mismatch") {
    const int T = 4, N = 4, obs_dim = 3, act_dim = 2;
    PpoConfig cfg;
    cfg.hidden = {8, 8};
    cfg.n_minibatches = 2;
    cfg.n_epochs = 2;
    Rng init_a(1, 0), init_b(2, 0), data(3, 0), shuffle(4, 0);
    PpoLearner a(obs_dim, act_dim, cfg, init_a);
    Rollout r = random_rollout(a, T, N, obs_dim, act_dim, 0, data);
    a.update(r, shuffle);  // non-zero Adam moments, step and normalizer statistics
    pz::core::StateDict sd;
    a.save(sd);
    CHECK(sd.i64.at("learner/adam/step")[0] == 4);
    CHECK(sd.f64.at("learner/normalizer/count")[0] == T * N);
    CHECK(sd.f32.count("learner/adam/m/critic/l2/w") == 1);

    PpoLearner b(obs_dim, act_dim, cfg, init_b);
    CHECK(b.parameters() != a.parameters());
    b.load(sd);
    CHECK(b.parameters() == a.parameters());
    pz::core::StateDict sd2;
    b.save(sd2);
    CHECK(sd2.f32 == sd.f32);
    CHECK(sd2.f64 == sd.f64);
    CHECK(sd2.i64 == sd.i64);

    std::vector<float> act_a(N * act_dim), act_b(N * act_dim), lp_a(N), lp_b(N), v_a(N), v_b(N);
    Rng ra(9, 0), rb(9, 0);
    a.act(r.next_obs.data(), N, &ra, act_a.data(), lp_a.data(), v_a.data());
    b.act(r.next_obs.data(), N, &rb, act_b.data(), lp_b.data(), v_b.data());
    CHECK(act_a == act_b);
    CHECK(lp_a == lp_b);
    CHECK(v_a == v_b);
    // After restoring, a further update is identical too (optimizer state restored).
    Rng s1(5, 0), s2(5, 0);
    a.update(r, s1);
    b.update(r, s2);
    CHECK(a.parameters() == b.parameters());

    PpoConfig wide = cfg;
    wide.hidden = {16, 8};
    Rng init_c(3, 0);
    PpoLearner c(obs_dim, act_dim, wide, init_c);
    const auto before = c.parameters();
    CHECK_THROWS_AS(c.load(sd), pz::core::ConfigError);
    CHECK(c.parameters() == before);  // failed load leaves the learner unchanged
    PpoLearner d(obs_dim + 1, act_dim, cfg, init_c);
    CHECK_THROWS_AS(d.load(sd), pz::core::ConfigError);
    pz::core::StateDict broken = sd;
    broken.f32["learner/critic/l1/b"].pop_back();
    CHECK_THROWS_AS(b.load(broken), pz::core::ConfigError);
  }

  TEST_CASE(
      "capped update blocks: same loss and gradient up to rounding, same bytes on 1-3 threads") {
    // 6 × 40 = 240 rows: four blocks of 60 uncapped; a cap of 50 rows makes five.
    PpoConfig cfg;
    cfg.hidden = {16, 16};
    Rng data(72, 0);
    auto make = [&] {
      Rng init(71, 0);
      return PpoLearner(3, 2, cfg, init);
    };
    PpoLearner plain = make();
    Rollout r = random_rollout(plain, 6, 40, 3, 2, 0, data);
    std::vector<int> cols(40);
    for (int j = 0; j < 40; ++j) cols[j] = (7 * j) % 40;
    std::vector<float> g_plain, g_cap;
    const double l_plain = plain.loss_and_grad(r, cols, &g_plain, nullptr);
    PpoLearner capped = make();
    capped.set_max_block_rows(50);
    const double l_cap = capped.loss_and_grad(r, cols, &g_cap, nullptr);
    CHECK(l_cap == doctest::Approx(l_plain).epsilon(1e-12));
    REQUIRE(g_cap.size() == g_plain.size());
    int differ = 0;
    for (size_t i = 0; i < g_cap.size(); ++i) {
      CHECK(g_cap[i] == doctest::Approx(g_plain[i]).epsilon(1e-4).scale(1e-6));
      differ += g_cap[i] != g_plain[i];
    }
    // Whole updates with the cap: 1, 2 and 3 workers give the same bytes.
    std::vector<std::vector<float>> after;
    for (int t = 1; t <= 3; ++t) {
      pz::core::ThreadPool pool(t);
      PpoLearner l = make();
      l.set_max_block_rows(50);
      l.set_pool(&pool);
      Rng shuffle(73, 0);
      l.update(r, shuffle);
      after.push_back(l.parameters());
    }
    CHECK(after[1] == after[0]);
    CHECK(after[2] == after[0]);
    CHECK(differ > 0);  // the cap regroups the sums: it is not a no-op
  }

  TEST_CASE("update: n_minibatches must divide n_envs; deterministic given the seeds") {
    PpoConfig cfg;
    cfg.hidden = {8};
    cfg.n_minibatches = 3;
    Rng init(1, 0), data(2, 0), shuffle(3, 0);
    PpoLearner learner(2, 1, cfg, init);
    Rollout r = random_rollout(learner, 2, 4, 2, 1, 0, data);
    CHECK_THROWS_AS(learner.update(r, shuffle), pz::core::ConfigError);

    cfg.n_minibatches = 2;
    Rng i1(1, 0), i2(1, 0), s1(3, 0), s2(3, 0);
    PpoLearner x(2, 1, cfg, i1), y(2, 1, cfg, i2);
    const auto mx = x.update(r, s1);
    const auto my = y.update(r, s2);
    CHECK(mx == my);
    CHECK(x.parameters() == y.parameters());
    for (const char* key : {"losses/actor", "losses/critic", "losses/regularization",
                            "losses/entropy", "losses/clipping_fraction", "losses/approx_kl",
                            "losses/critic_R^2", "grad_norm", "policy/log_std_mean"}) {
      REQUIRE(mx.count(key) == 1);
      CHECK(std::isfinite(mx.at(key)));
    }
    // Entropy of a state-independent Gaussian: Σ_d [log σ_d + ½ log(2πe)], averaged over steps.
    CHECK(mx.at("losses/regularization") ==
          doctest::Approx(-cfg.entropy_coef * mx.at("losses/entropy")));
  }

  TEST_CASE("learning sanity: 1-step bandit, reward −(a − 0.5)²") {
    PpoConfig cfg;
    cfg.hidden = {16};
    cfg.learning_rate = 3e-3;
    cfg.entropy_coef = 0.0;
    cfg.rollout_length = 4;
    Rng init(1, 0), act_rng(2, 0), shuffle(3, 0);
    PpoLearner learner(1, 1, cfg, init);
    float mean0 = 0.0f;
    const float one = 1.0f;
    learner.act(&one, 1, nullptr, &mean0, nullptr, nullptr);
    CHECK(std::abs(mean0 - 0.5f) > 0.3f);
    const float mean = pz::test::train_bandit(learner, 4, 16, 50, act_rng, shuffle);
    INFO("mean action after 50 updates: " << mean);
    CHECK(std::abs(mean - 0.5f) < 0.1f);
  }
}
