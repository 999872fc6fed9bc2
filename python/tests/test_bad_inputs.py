"""Bad input through Python raises ValueError (RuntimeError never, a crash never) with a message
naming what was expected and what was found, before anything is stepped."""

import numpy as np
import pytest

import powerzoo

QS = "python/tests/specs/quickstart_env.toml"


@pytest.fixture(scope="module")
def env():
    e = powerzoo.make_vec(QS, num_envs=2)
    e.reset()
    return e


MAKE_CASES = [
    ("unknown_name", dict(spec="tsoo"), r"expected a spec file .*found 'tsoo'.*did you mean 'tso'"),
    ("missing_file", dict(spec="nope/missing.toml"), r"nope/missing.toml"),
    ("spec_not_str", dict(spec=123), r"spec: expected .* found int"),
    ("unknown_override", dict(spec=QS, overrides={"env.horizn": 5}), r"horizn.*did you mean"),
    ("override_out_of_range", dict(spec=QS, overrides={"env.horizon": -1}), r"env.horizon"),
    ("override_nan", dict(spec=QS, overrides={"env.reward_scale": float("nan")}),
     r"expected a finite number, found nan"),
    ("override_bad_type", dict(spec=QS, overrides={"env.case": object()}),
     r"overrides: env.case: expected a bool, number"),
    ("override_bytes_path", dict(spec=QS, overrides={"env.outages": b"o.csv"}),
     r"overrides: env.outages: expected a bool, number, string, path \(os.PathLike\)"),
    ("overrides_not_dict", dict(spec=QS, overrides=["env.horizon=4"]), r"expected a dict"),
    ("info_traces_unknown", dict(spec=QS, info_traces=["gen_status"]),
     r"info_traces: expected names of the env's traces \['unit_p_mw', 'branch_p_mw'\], "
     r"found 'gen_status'"),
    ("info_traces_str", dict(spec=QS, info_traces="unit_p_mw"),
     r"info_traces: expected True, False or a list of trace names \(str\), found 'unit_p_mw'"),
    ("unknown_penalty_channel", dict(spec=QS, overrides={"reward.penalty": {"voltage": 1.0}}),
     r"voltage"),
    ("wrong_split", dict(spec=QS, split="test"), r"expected one of train, iid .*found 'test'"),
    ("num_envs_zero", dict(spec=QS, num_envs=0), r"num_envs: expected an integer >= 1, found 0"),
    ("num_envs_float", dict(spec=QS, num_envs=2.5), r"num_envs: expected an integer, found 2.5"),
    ("num_envs_huge", dict(spec=QS, num_envs=10**6), r"num_envs: expected an integer in"),
    ("threads_negative", dict(spec=QS, threads=-1), r"threads: expected an integer in \[0, 1024\]"),
    ("seed_negative", dict(spec=QS, seed=-1), r"seed"),
]


@pytest.mark.parametrize("kwargs,pattern", [c[1:] for c in MAKE_CASES],
                         ids=[c[0] for c in MAKE_CASES])
def test_make_vec_bad_input(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        powerzoo.make_vec(**kwargs)


def nan_at(shape, idx):
    a = np.zeros(shape, np.float32)
    a[idx] = np.nan
    return a


STEP_CASES = [
    ("one_dim", lambda e: np.zeros(e.act_dim), r"expected shape \[2, 5\], found shape \[5\]"),
    ("too_many_envs", lambda e: np.zeros((3, e.act_dim)), r"found shape \[3, 5\]"),
    ("too_wide", lambda e: np.zeros((2, e.act_dim + 1)), r"found shape \[2, 6\]"),
    ("strings", lambda e: np.full((2, e.act_dim), "a"), r"found dtype <U1"),
    ("complex", lambda e: np.zeros((2, e.act_dim), complex), r"found dtype complex128"),
    ("none", lambda e: None, r"found None"),
    ("ragged_list", lambda e: [[0.0], [0.0, 1.0]], r"actions"),
    ("nan", lambda e: nan_at((2, e.act_dim), (1, 3)), r"found nan at index \[1, 3\]"),
    ("inf", lambda e: np.full((2, e.act_dim), np.inf), r"found inf at index \[0, 0\]"),
    ("overflow_to_inf", lambda e: np.full((2, e.act_dim), 1e300),
     r"found inf at index \[0, 0\] \(after conversion to float32\)"),
]


@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
@pytest.mark.parametrize("make,pattern", [c[1:] for c in STEP_CASES],
                         ids=[c[0] for c in STEP_CASES])
def test_step_bad_actions(env, make, pattern):
    with pytest.raises(ValueError, match=pattern):
        env.step(make(env))
    env.step(np.zeros((2, env.act_dim)))  # the env is still usable


def test_rollout_bad_actions(env):
    with pytest.raises(ValueError, match=r"expected an array \[T, N, act_dim\] = \[T, 2, 5\]"):
        env.rollout(np.zeros((2, env.act_dim)))
    with pytest.raises(ValueError, match=r"found nan at index \[1, 0, 2\]"):
        env.rollout(nan_at((3, 2, env.act_dim), (1, 0, 2)))


def test_step_before_reset_and_after_close():
    e = powerzoo.make_vec(QS, num_envs=2)
    with pytest.raises(ValueError, match=r"expected reset\(\) first"):
        e.step(np.zeros((2, e.act_dim)))
    e.close()
    assert e.closed
    for call in (lambda: e.reset(), lambda: e.step(np.zeros((2, e.act_dim))),
                 lambda: e.rollout(np.zeros((1, 2, e.act_dim))), lambda: e.state_dict()):
        with pytest.raises(ValueError, match="the env is closed"):
            call()


def test_bad_states():
    a = powerzoo.make_vec(QS, num_envs=2)
    a.reset()
    state = a.state_dict()
    with pytest.raises(ValueError, match="expected the dict state_dict.. returned, found a list"):
        a.load_state_dict([1, 2])
    with pytest.raises(ValueError, match="missing 'powerzoo/spec'"):
        a.load_state_dict({})
    with pytest.raises(ValueError, match="expected the state of 3 envs, found 2"):
        powerzoo.make_vec(QS, num_envs=3).load_state_dict(state)
    with pytest.raises(ValueError, match="another spec"):
        powerzoo.make_vec(QS, num_envs=2, overrides={"env.horizon": 24}).load_state_dict(state)
    bad = dict(state)
    key = next(k for k, v in state.items() if isinstance(v, np.ndarray) and v.dtype == np.float64)
    bad[key] = bad[key].astype(np.float16)
    with pytest.raises(ValueError, match="expected dtype float32, float64 or int64, found float16"):
        a.load_state_dict(bad)
    ev = powerzoo.make_vec(QS, eval=True)
    ev.reset()
    with pytest.raises(ValueError, match="expected a training-mode env"):
        ev.state_dict()


def test_agent_actions_bad_input():
    e = powerzoo.make_vec("gencos", num_envs=2)
    names = [a["name"] for a in e.agents]
    with pytest.raises(ValueError, match=r"missing \['" + names[-1]):
        e.agent_actions({n: np.zeros((2, 1)) for n in names[:-1]})
    with pytest.raises(ValueError, match="expected a dict"):
        e.agent_actions(np.zeros((2, e.act_dim)))
