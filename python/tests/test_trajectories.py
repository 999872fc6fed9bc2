"""Bit for bit: the module's evaluation-mode rollout of a baseline's recorded actions equals the
trajectories and metrics `powerzoo baseline --out` wrote (one case per task and the quickstart),
and training mode reproduces itself for any thread count."""

import h5py
import numpy as np
import pytest

import powerzoo
from conftest import run_cli, spec_path

# (spec: file or task preset, a baseline that moves the actions away from zero)
CASES = [
    ("python/tests/specs/quickstart_env.toml", "zero_action"),
    ("tso", "merit_order"),
    ("dso", "droop"),
    ("gencos", "truthful"),
    ("ders", "volt_droop"),
    ("dc_microgrid", "rule_based"),
]
EPISODES = 2


def baseline_file(tmp_path, spec, policy, split):
    out = tmp_path / "baseline.h5"
    run_cli("baseline", spec, "--policy", policy, "--episodes", EPISODES, "--split", split,
            "--threads", 1, "--out", out)
    return out


@pytest.mark.parametrize("spec,policy", CASES, ids=[c[0].split("/")[-1] for c in CASES])
def test_rollout_equals_baseline_trajectories(tmp_path, spec, policy):
    spec = spec_path(tmp_path, spec)
    env = powerzoo.make_vec(spec, num_envs=EPISODES, eval=True, threads=2)
    out = baseline_file(tmp_path, spec, policy, env.split)
    with h5py.File(out, "r") as f:
        g = f[f"trajectories/{env.split}/step_0"]
        actions = g["action"][...]
        assert np.abs(actions).max() > 0 or policy == "zero_action"
        env.reset()
        r = env.rollout(actions)
        assert r["obs"].shape == g["obs"].shape
        np.testing.assert_array_equal(r["obs"], g["obs"][...])
        np.testing.assert_array_equal(r["costs"], g["costs"][...])
        np.testing.assert_array_equal(r["terminated"], g["terminated"][...].astype(bool))
        np.testing.assert_array_equal(r["truncated"], g["truncated"][...].astype(bool))
        reward = r["agent_reward"] if env.n_agents > 1 else r["reward"]
        np.testing.assert_array_equal(reward, g["reward"][...])
        if "info" in g:
            for name, ds in g["info"].items():
                np.testing.assert_array_equal(r["info"][name], ds[...], err_msg=name)
        # The evaluation metrics: the episode statistics of the rollout.
        m = f[f"metrics/eval/{env.split}"]
        ret = r["episode_return"][~np.isnan(r["episode_return"])]
        assert len(ret) == EPISODES
        assert ret.sum() / EPISODES == m["return_mean"][-1]
        for j, c in enumerate(env.cost_names):
            cost = r["episode_cost"][..., j][~np.isnan(r["episode_cost"][..., j])]
            assert cost.sum() / EPISODES == m[f"cost/{c}"][-1]


@pytest.mark.parametrize("spec", ["python/tests/specs/quickstart_env.toml", "dso", "gencos"])
def test_same_results_for_any_thread_count(tmp_path, spec):
    spec = spec_path(tmp_path, spec)
    runs = []
    for threads in (1, 2):
        env = powerzoo.make_vec(spec, num_envs=4, seed=7, threads=threads)
        env.reset()
        rng = np.random.default_rng(1)
        acts = np.stack([env.sample_actions(rng) for _ in range(3 * env.horizon // 2)])
        runs.append(env.rollout(acts))
    for k in ("obs", "reward", "costs", "terminated", "truncated", "final_obs"):
        np.testing.assert_array_equal(runs[0][k], runs[1][k], err_msg=k)
