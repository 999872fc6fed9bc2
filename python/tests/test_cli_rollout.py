"""`powerzoo rollout`: replaying a run's recorded evaluation actions reproduces its recorded
evaluation metrics exactly; a CSV of zeros equals the zero_action baseline; an HDF5 `actions`
dataset equals the module's rollout of the same actions."""

import h5py
import numpy as np

import powerzoo
from conftest import run_cli

QS = "python/tests/specs/quickstart_env.toml"
SKIP = ("global_step", "wall_time")


def eval_row(path, split, row=-1):
    with h5py.File(path, "r") as f:
        g = f[f"metrics/eval/{split}"]
        return {k: g[k][row] for k in g if isinstance(g[k], h5py.Dataset)}


def test_replay_of_a_runs_eval_actions_reproduces_its_metrics(tmp_path):
    over = ["learner.total_steps=3072", "eval.every_steps=1536", "vec.n_envs=8", "eval.n_episodes=4"]
    run_cli("run", "experiments/quickstart.toml", *over, "--out", tmp_path / "run", "--threads",
            1, "--quiet")
    run = tmp_path / "run" / "run.h5"
    with h5py.File(run, "r") as f:
        steps = sorted(f["trajectories/iid"], key=lambda s: int(s.split("_")[1]))
        last = steps[-1]
        gsteps = list(f["metrics/eval/global_step"][...])
    row = gsteps.index(int(last.split("_")[1]))
    out = tmp_path / "replay.h5"
    p = run_cli("rollout", "experiments/quickstart.toml", *over, "--actions",
                f"{run}:/trajectories/iid/{last}/action", "--out", out)
    assert "return_mean" in p.stdout
    recorded, replayed = eval_row(run, "iid", row), eval_row(out, "iid")
    common = [k for k in replayed if k not in SKIP and not k.startswith("throughput")]
    assert "return_mean" in common and len(common) > 5
    for k in common:
        assert replayed[k] == recorded[k], k


def test_csv_of_zeros_equals_the_zero_action_baseline(tmp_path):
    env = powerzoo.make_vec(QS, eval=True)
    csv = tmp_path / "zeros.csv"
    csv.write_text(",".join(env.action_names) + "\n" +
                   ("0," * (env.act_dim - 1) + "0\n") * env.horizon)
    run_cli("rollout", QS, "--actions", csv, "--out", tmp_path / "r.h5")
    run_cli("baseline", QS, "--policy", "zero_action", "--split", "iid", "--out",
            tmp_path / "b.h5")
    r, b = eval_row(tmp_path / "r.h5", "iid"), eval_row(tmp_path / "b.h5", "iid")
    assert r.keys() == b.keys()
    for k in r:
        assert r[k] == b[k], k


def test_hdf5_actions_equal_the_modules_rollout(tmp_path):
    env = powerzoo.make_vec(QS, eval=True, num_envs=3)
    env.reset()
    rng = np.random.default_rng(4)
    acts = np.stack([env.sample_actions(rng) for _ in range(env.horizon)])
    res = env.rollout(acts)
    with h5py.File(tmp_path / "a.h5", "w") as f:
        f["actions"] = acts
    p = run_cli("rollout", QS, "--actions", tmp_path / "a.h5", "--out", tmp_path / "r.h5")
    assert "3 episodes" in p.stdout
    m = eval_row(tmp_path / "r.h5", "iid")
    ret = res["episode_return"][np.isfinite(res["episode_return"])]
    assert m["return_mean"] == ret.sum() / 3
    with h5py.File(tmp_path / "r.h5", "r") as f:
        np.testing.assert_array_equal(f["trajectories/iid/step_0/obs"][...], res["obs"])


def test_bad_hdf5_actions_exit_2_and_write_nothing(tmp_path):
    env = powerzoo.make_vec(QS, eval=True)
    with h5py.File(tmp_path / "a.h5", "w") as f:
        f["actions"] = np.zeros((env.horizon, 2, env.act_dim + 1), np.float32)
        bad = np.zeros((env.horizon, 2, env.act_dim))
        bad[7, 1, 2] = np.nan
        f["nan"] = bad
        f["short"] = np.zeros((3, 2, env.act_dim))
        f["text"] = "abc"
    cases = [("", f"expected a dataset [T, N, {env.act_dim}]"),
             (":/nan", "step 7, env 1, action a[2]: expected a finite number, found nan"),
             (":/short", f"expected at least {env.horizon} steps"),
             (":/text", "expected numbers, found"),
             (":/absent", "absent")]
    for suffix, msg in cases:
        out = tmp_path / "never.h5"
        p = run_cli("rollout", QS, "--actions", f"{tmp_path / 'a.h5'}{suffix}", "--out", out,
                    check=False)
        assert p.returncode == 2, (suffix, p.stderr)
        assert msg in p.stderr, (suffix, p.stderr)
        assert not out.exists()
