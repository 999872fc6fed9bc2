"""Regression (issue 36): the evaluation env walks the outages `powerzoo baseline` evaluates, bit
for bit, on every task's N-1 split and under random outages, and every reset() walks them again;
step() info carries the outage status on request (info_traces), also with outage_status_obs=false;
the status traces are listed before stepping (trace_vectors); file-valued overrides take a Path."""

import pathlib

import h5py
import numpy as np
import pytest

import powerzoo
from conftest import run_cli, spec_path

QS = "python/tests/specs/quickstart_env.toml"
RANDOM = {"env.outage_rate": 0.05, "env.outage_duration_steps": 4,
          "env.outage_elements": "branch,gen"}
# (spec: file or task preset, baseline, split, overrides, the status traces the split tracks)
CASES = [
    ("gencos", "truthful", "n1_gen", {}, ["gen_status"]),
    ("tso", "merit_order", "n1_branch", {}, ["branch_status"]),
    ("dso", "droop", "n1_branch", {}, ["branch_status"]),
    ("ders", "volt_droop", "n1_branch", {}, ["branch_status"]),
    ("dc_microgrid", "rule_based", "n1_component", {}, ["component_status"]),
    (QS, "zero_action", "iid", RANDOM, ["branch_status", "gen_status"]),
]
IDS = [c[0].split("/")[-1] + "_" + c[2] for c in CASES]
EPISODES = 2


def baseline(tmp_path, spec, policy, split, overrides):
    out = tmp_path / "baseline.h5"
    run_cli("baseline", spec, *[f"{k}={v}" for k, v in overrides.items()], "--policy", policy,
            "--episodes", EPISODES, "--split", split, "--threads", 1, "--out", out)
    with h5py.File(out, "r") as f:
        g = f[f"trajectories/{split}/step_0"]
        return {k: g[k][...] for k in ("obs", "action", "reward", "costs", "terminated",
                                       "truncated")} | {
                    "info": {k: v[...] for k, v in g["info"].items()}}


def assert_equals_file(env, r, ref):
    np.testing.assert_array_equal(r["obs"], ref["obs"])
    np.testing.assert_array_equal(r["costs"], ref["costs"])
    reward = r["agent_reward"] if env.n_agents > 1 else r["reward"]
    np.testing.assert_array_equal(reward, ref["reward"])
    np.testing.assert_array_equal(r["terminated"], ref["terminated"].astype(bool))
    np.testing.assert_array_equal(r["truncated"], ref["truncated"].astype(bool))
    assert sorted(r["info"]) == sorted(ref["info"])
    for name, v in ref["info"].items():
        np.testing.assert_array_equal(r["info"][name], v, err_msg=name)


@pytest.mark.parametrize("spec,policy,split,overrides,status", CASES, ids=IDS)
def test_eval_outages_equal_baseline_and_every_reset(tmp_path, spec, policy, split, overrides,
                                                     status):
    spec = spec_path(tmp_path, spec)
    ref = baseline(tmp_path, spec, policy, split, overrides)
    for name in status:  # the episodes have outages (else the test guards nothing)
        assert (ref["info"][name] == 0).any(), name
    env = powerzoo.make_vec(spec, num_envs=EPISODES, eval=True, split=split, threads=2,
                            overrides=overrides)
    # Listed before stepping: the status traces and their widths.
    for name in status:
        assert env.trace_vectors[name] == ref["info"][name].shape[-1]
    assert sorted(env.trace_names) + sorted(env.trace_vectors) == \
        sorted(n for n in ref["info"] if ref["info"][n].ndim == 2) + \
        sorted(n for n in ref["info"] if ref["info"][n].ndim == 3)
    env.reset()
    first = env.rollout(ref["action"])
    assert_equals_file(env, first, ref)
    env.reset()
    env.reset()  # a reset never draws anything of the next one's
    assert_equals_file(env, env.rollout(ref["action"]), ref)
    env.reset(seed=env.seed)  # the same seed given explicitly: the same episodes
    assert_equals_file(env, env.rollout(ref["action"]), ref)


@pytest.mark.parametrize("spec,policy,split,overrides,status", CASES[:1] + CASES[-1:],
                         ids=IDS[:1] + IDS[-1:])
def test_step_info_traces_equal_baseline(tmp_path, spec, policy, split, overrides, status):
    spec = spec_path(tmp_path, spec)
    ref = baseline(tmp_path, spec, policy, split, overrides)
    env = powerzoo.make_vec(spec, num_envs=EPISODES, eval=True, split=split, info_traces=True,
                            overrides=overrides)
    assert env.info_traces == env.trace_names + list(env.trace_vectors)
    env.reset()
    for t in range(ref["action"].shape[0]):
        _, _, _, _, info = env.step(ref["action"][t])
        for name, v in ref["info"].items():
            np.testing.assert_array_equal(info[name], v[t], err_msg=f"{name} at step {t}")
            assert info[name].dtype == np.float32
    # A selection: only those traces; none by default.
    env = powerzoo.make_vec(spec, num_envs=EPISODES, eval=True, split=split,
                            info_traces=status, overrides=overrides)
    env.reset()
    _, _, _, _, info = env.step(ref["action"][0])
    assert [k for k in info if k in ref["info"]] == status
    plain = powerzoo.make_vec(spec, num_envs=EPISODES, eval=True, split=split, overrides=overrides)
    plain.reset()
    _, _, _, _, info = plain.step(ref["action"][0])
    assert not [k for k in info if k in ref["info"]] and plain.info_traces == []


def test_status_in_step_info_without_status_obs():
    # Blind to outages in the observation, a custom loop still sees them in info.
    kw = dict(num_envs=4, seed=3, overrides=dict(RANDOM, **{"env.outage_status_obs": False}))
    blind = powerzoo.make_vec(QS, info_traces=["branch_status"], **kw)
    seen = powerzoo.make_vec(QS, **dict(kw, overrides=RANDOM))
    assert "branch_status" not in blind.obs_fields and "branch_status" in seen.obs_fields
    assert blind.trace_vectors == {"unit_p_mw": 5, "branch_p_mw": 6, "branch_status": 6,
                                   "gen_status": 5}
    blind.reset()
    seen.reset()
    acts = np.zeros((blind.horizon, 4, blind.act_dim), np.float32)
    r = seen.rollout(acts)  # training mode: a step that ends an episode has a zero trace row
    statuses = []
    for t in range(blind.horizon):
        _, _, term, trunc, info = blind.step(acts[t])
        assert info["branch_status"].shape == (4, blind.trace_vectors["branch_status"])
        statuses.append(np.where((term | trunc)[:, None], 0, info["branch_status"]))
    np.testing.assert_array_equal(np.stack(statuses), r["info"]["branch_status"])
    assert (np.stack(statuses)[:-1] == 0).any()


def test_info_traces_bad_input():
    with pytest.raises(ValueError, match=r"info_traces: expected names of the env's traces "
                                         r"\[.*'branch_p_mw'.*\], found 'gen_stat'"):
        powerzoo.make_vec(QS, num_envs=1, info_traces=["gen_stat"])
    for bad in ("branch_status", 3, [1]):
        with pytest.raises(TypeError, match=r"info_traces: expected True, False or a list"):
            powerzoo.make_vec(QS, num_envs=1, info_traces=bad)


def test_path_overrides(tmp_path):
    sched = tmp_path / "outages.csv"
    sched.write_text("step,element,index,status\n2,branch,3,0\n5,branch,3,1\n")
    by_str = powerzoo.make_vec(QS, num_envs=2, seed=0, overrides={"env.outages": str(sched)})
    by_path = powerzoo.make_vec(pathlib.Path(QS), num_envs=2, seed=0,
                                overrides={"env.outages": sched})
    assert by_path.spec_toml == by_str.spec_toml and str(sched) in by_path.spec_toml
    assert "branch_status" in by_path.trace_vectors
    for bad in (object(), {1, 2}, b"x.csv"):
        with pytest.raises(TypeError, match=r"overrides: env.outages: expected a bool, number, "
                                            r"string, path \(os.PathLike\), list or dict"):
            powerzoo.make_vec(QS, num_envs=1, overrides={"env.outages": bad})
    # Still a ValueError, as every bad input of the module.
    with pytest.raises(ValueError):
        powerzoo.make_vec(QS, num_envs=1, overrides={"env.outages": object()})
