"""The VecEnv contract: shapes and names, same-step autoreset with final_obs, episode statistics,
costs as their own channel, the penalty view, multi-agent views, state_dict resume, evaluation
episodes and the GIL released while stepping."""

import threading

import numpy as np
import pytest

import powerzoo

QS = "python/tests/specs/quickstart_env.toml"


def test_shapes_names_and_fields():
    env = powerzoo.make_vec(QS, num_envs=3)
    obs, info = env.reset()
    assert obs.dtype == np.float32 and obs.shape == (3, env.obs_dim)
    assert info == {}
    assert len(env.obs_names) == env.obs_dim and len(env.action_names) == env.act_dim
    assert {"power_balance", "thermal_overload"} <= set(env.cost_names)
    assert env.action_low.shape == env.action_high.shape == (env.act_dim,)
    covered = sorted((s.start, s.stop) for s in env.obs_fields.values())
    assert covered[0][0] == 0 and covered[-1][1] == env.obs_dim
    assert all(a[1] == b[0] for a, b in zip(covered, covered[1:]))  # the fields tile the obs
    obs, reward, term, trunc, info = env.step(np.zeros((3, env.act_dim), np.float32))
    assert reward.shape == (3,) and reward.dtype == np.float32
    assert term.dtype == np.bool_ and trunc.shape == (3,)
    assert info["costs"].shape == (3, len(env.cost_names)) and info["final_obs"].shape == (3, env.obs_dim)
    assert env.num_envs == 3 and env.split == "train" and not env.eval
    assert env.agents == [{"name": "agent", "group": "agent", "obs": slice(0, env.obs_dim, 1),
                           "act": slice(0, env.act_dim, 1)}]


def test_same_step_autoreset_final_obs_and_episode_statistics():
    env = powerzoo.make_vec(QS, num_envs=4, seed=3)
    env.reset()
    rng = np.random.default_rng(0)
    ret = np.zeros(4)
    shaped = np.zeros(4)
    cost = np.zeros((4, len(env.cost_names)))
    prev_obs = None
    for t in range(env.horizon):
        obs, reward, term, trunc, info = env.step(env.sample_actions(rng))
        ret += reward.astype(np.float64)  # the env sums float rewards in double, in step order
        shaped += info["shaped_reward"].astype(np.float64)
        cost += info["costs"].astype(np.float64)
        done = term | trunc
        if t < env.horizon - 1:
            assert not done.any() and "episode" not in info
            np.testing.assert_array_equal(info["final_obs"], obs)  # the next state
        prev_obs = obs
    assert trunc.all() and not term.any()  # the time limit ends every episode together
    assert "episode" in info and info["_episode"].all()
    ep = info["episode"]
    np.testing.assert_array_equal(ep["length"], np.full(4, env.horizon))
    np.testing.assert_array_equal(ep["return"], ret)
    # The shaped reward is summed in double before its float32 copy: equal to float32 rounding.
    np.testing.assert_allclose(ep["shaped_return"], shaped, rtol=1e-6)
    np.testing.assert_array_equal(ep["cost_sum"], cost)
    # Same-step autoreset: obs starts the next episode, final_obs is where this one ended.
    assert not np.array_equal(info["final_obs"], prev_obs)
    assert not np.array_equal(info["final_obs"], obs)


def test_penalty_view_keeps_costs_out_of_the_reward():
    env = powerzoo.make_vec(QS, num_envs=8, seed=1)
    env.reset()
    w = np.array([0.02 if c in ("power_balance", "thermal_overload") else 0.0
                  for c in env.cost_names])
    rng = np.random.default_rng(5)
    seen_cost = False
    for _ in range(10):
        _, reward, _, _, info = env.step(env.sample_actions(rng) * 3)
        c = info["costs"].astype(np.float64)
        seen_cost |= bool((c > 0).any())
        np.testing.assert_allclose(info["shaped_reward"], reward - c @ w, rtol=1e-5, atol=1e-6)
    assert seen_cost  # the case is one where the actions violate something
    plain = powerzoo.make_vec(QS, num_envs=8, seed=1, overrides={"reward.penalty": {}})
    plain.reset()
    _, reward, _, _, info = plain.step(np.zeros((8, plain.act_dim), np.float32))
    np.testing.assert_array_equal(info["shaped_reward"], reward)


def test_state_dict_resumes_exactly():
    rng = np.random.default_rng(2)
    a = powerzoo.make_vec(QS, num_envs=4, seed=11)
    a.reset()
    acts = np.stack([a.sample_actions(rng) for _ in range(80)])
    a.rollout(acts[:30])
    state = a.state_dict()
    rest = a.rollout(acts[30:])
    b = powerzoo.make_vec(QS, num_envs=4, seed=99)
    b.load_state_dict(state)
    again = b.rollout(acts[30:])
    for k in ("obs", "reward", "costs", "truncated", "final_obs", "episode_return"):
        np.testing.assert_array_equal(rest[k], again[k], err_msg=k)
    assert np.isfinite(rest["episode_return"]).sum() == 4  # an episode ended after the resume


def test_eval_mode_walks_the_same_episodes_each_reset():
    env = powerzoo.make_vec(QS, eval=True)
    assert env.num_envs == 4 and env.split == "iid" and env.eval
    obs1, _ = env.reset()
    r1 = env.rollout(np.zeros((env.horizon + 5, 4, env.act_dim), np.float32))
    assert r1["obs"].shape[0] == env.horizon  # ends with the episodes, as eval does
    obs2, _ = env.reset()
    np.testing.assert_array_equal(obs1, obs2)
    r2 = env.rollout(np.zeros((env.horizon, 4, env.act_dim), np.float32), trace_vectors=False)
    np.testing.assert_array_equal(r1["obs"], r2["obs"])  # the same episodes again
    vectors = [k for k, v in r1["info"].items() if v.ndim == 3]
    assert vectors and not any(k in r2["info"] for k in vectors)
    obs2, _ = env.reset()
    assert len({obs1[i].tobytes() for i in range(4)}) == 4  # four different episodes
    with pytest.raises(ValueError, match="has ended; call reset"):
        for _ in range(env.horizon + 1):
            env.step(np.zeros((4, env.act_dim), np.float32))


def test_preset_and_env_id_specs():
    tso = powerzoo.make_vec("tso", num_envs=2)
    assert tso.env_id and tso.obs_dim > 0 and tso.cost_names
    tg = powerzoo.make_vec("trans_grid", num_envs=2, overrides={"env.case": "case5"})
    assert tg.env_id == "trans_grid"


def test_multi_agent_views():
    env = powerzoo.make_vec("gencos", num_envs=2)
    assert env.n_agents > 1 and len(env.agents) == env.n_agents
    obs, _ = env.reset()
    per = env.agent_obs(obs)
    assert list(per) == [a["name"] for a in env.agents]
    for a in env.agents:
        np.testing.assert_array_equal(per[a["name"]], obs[:, a["obs"]])
    joint = env.sample_actions(np.random.default_rng(0))
    split = {a["name"]: joint[:, a["act"]] for a in env.agents}
    np.testing.assert_array_equal(env.agent_actions(split), joint)
    _, reward, _, _, info = env.step(joint)
    assert reward.shape == (2,) and info["agent_reward"].shape == (2, env.n_agents)
    assert set(env.agent_rewards(info)) == set(per)
    assert sum(len(v) for v in env.groups().values()) == env.n_agents


def test_stepping_releases_the_gil():
    # While a rollout runs natively, this thread can run Python: it sees the env busy. Without the
    # GIL released it could never run during the rollout.
    env = powerzoo.make_vec("dso", num_envs=2, threads=1)
    env.reset()
    acts = np.zeros((env.horizon, 2, env.act_dim), np.float32)
    seen_busy = False
    for _ in range(50):
        env.reset()
        started = threading.Event()

        def work():
            started.set()
            env.rollout(acts)

        th = threading.Thread(target=work)
        th.start()
        started.wait()
        while th.is_alive() and not seen_busy:
            try:
                env.state_dict()
            except ValueError as e:
                seen_busy = "another thread" in str(e)
        th.join()
        if seen_busy:
            break
    assert seen_busy
