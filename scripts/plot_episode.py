#!/usr/bin/python3
"""One evaluation episode of a powerzoo run as time series: actions, reward, cost channels and
the env's per-step physical quantities.

usage: scripts/plot_episode.py RUN_DIR [--split S] [--episode K] [--eval-step N] [--out FILE]

Reads RUN_DIR/run.h5 (or a run.h5 path): /trajectories/<split>/step_<N>/ holds the evaluation
episodes recorded at global step N ([T, episodes, dim] arrays: action, reward, costs, and info/<name>
where the env traces physical quantities). Default: the first eval split, the newest recorded
evaluation, episode 0. Draws one panel of actions (one line per action dimension, or per agent
mean for multi-agent envs with many dimensions), one of reward, one per non-zero cost channel and
one per info trace that is not zero throughout (those are named under the plot), against the step index (and hours when the spec gives dt_hours). Writes
FILE (default RUN_DIR/plots/episode_<split>_step<N>_ep<K>.png) and prints its path. Works on a
run that is still training (it reads the published run.h5).

Needs Debian's python3-h5py and python3-matplotlib; Python >= 3.11 for tomllib.
"""
import argparse
import os
import sys
import tomllib

try:
    import h5py
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
except ImportError as e:  # pragma: no cover
    sys.exit(f"plot_episode.py: {e}; install python3-h5py and python3-matplotlib (Debian)")

MAX_ACTION_LINES = 12


def fail(msg):
    print(f"plot_episode.py: error: {msg}", file=sys.stderr)
    sys.exit(2)


def step_number(name):
    return int(name[len("step_"):]) if name.startswith("step_") and name[5:].isdigit() else -1


def load(path, split, eval_step):
    run_file = os.path.join(path, "run.h5") if os.path.isdir(path) else path
    if not os.path.isfile(run_file):
        fail(f"{run_file}: expected a run directory or its run.h5, found nothing")
    try:
        f = h5py.File(run_file, "r")
    except OSError as e:
        fail(f"{run_file}: not a readable HDF5 file ({e})")
    spec = tomllib.loads(f["config/resolved"][()].decode()) if "config/resolved" in f else {}
    if "trajectories" not in f:
        fail(f"{run_file}: no /trajectories (the run was trained with output.trajectories = "
             f"\"{spec.get('output', {}).get('trajectories', '?')}\"; use \"eval\")")
    splits = [s for s in f["trajectories"] if s != "train"]
    if not splits:
        fail(f"{run_file}: no evaluation trajectories yet")
    eval_splits = spec.get("eval", {}).get("splits", splits)
    split = split or next((s for s in eval_splits if s in splits), splits[0])
    if split not in splits:
        fail(f"--split {split}: expected one of {', '.join(splits)}")
    steps = sorted((step_number(n), n) for n in f["trajectories"][split] if step_number(n) >= 0)
    if eval_step is None:
        eval_step, name = steps[-1]
    else:
        match = [n for s, n in steps if s == eval_step]
        if not match:
            fail(f"--eval-step {eval_step}: expected one of {', '.join(str(s) for s, _ in steps)}")
        name = match[0]
    return f, spec, run_file, split, eval_step, f["trajectories"][split][name]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run", help="run directory (or its run.h5)")
    ap.add_argument("--split", help="evaluation split (default: the first)")
    ap.add_argument("--episode", type=int, default=0, help="episode index (default 0)")
    ap.add_argument("--eval-step", type=int, help="global step of the evaluation (default newest)")
    ap.add_argument("--out", help="PNG to write")
    a = ap.parse_args()
    f, spec, run_file, split, eval_step, g = load(a.run, a.split, a.eval_step)
    action = g["action"][()]
    n_ep = action.shape[1]
    if not 0 <= a.episode < n_ep:
        fail(f"--episode {a.episode}: expected an integer in [0, {n_ep - 1}]")
    k = a.episode
    reward = g["reward"][()][:, k]
    done = np.logical_or(g["terminated"][()][:, k], g["truncated"][()][:, k])
    T = int(np.argmax(done)) + 1 if done.any() else len(reward)
    dt = float(spec.get("env", {}).get("dt_hours", 0) or 0)
    x = np.arange(T) * dt if dt > 0 else np.arange(T)
    xlabel = "hours into the episode" if dt > 0 else "step"
    costs = g["costs"][()][:T, k, :] if "costs" in g else np.zeros((T, 0))
    def names(attr):  # comma-separated root attributes; absent in files before they existed
        v = f.attrs.get(attr, "")
        v = v.decode() if isinstance(v, bytes) else str(v)
        return v.split(",") if v else []

    cost_names, action_names = names("cost_names"), names("action_names")
    env_id = f.attrs.get("env_id", "?")
    infos = {n: g["info"][n][()][:T, k] for n in g["info"]} if "info" in g else {}

    panels = [("action", None), ("reward", None)]
    for j in range(costs.shape[1]):
        if np.any(costs[:, j] != 0):
            panels.append(("cost", j))
    flat = sorted(n for n in infos if not np.any(infos[n] != 0))  # zero throughout: named only
    panels += [("info", n) for n in sorted(infos) if n not in flat]
    fig, axes = plt.subplots(len(panels), 1, figsize=(10, 2.2 * len(panels)), sharex=True,
                             squeeze=False)
    for ax, (kind, key) in zip(axes[:, 0], panels):
        if kind == "action":
            act = action[:T, k, :]
            if act.shape[1] > MAX_ACTION_LINES:  # many agents: mean and range over dimensions
                ax.plot(x, act.mean(axis=1), label="mean over %d dims" % act.shape[1])
                ax.fill_between(x, act.min(axis=1), act.max(axis=1), alpha=0.25, label="min..max")
            else:
                for j in range(act.shape[1]):
                    ax.plot(x, act[:, j],
                            label=action_names[j] if j < len(action_names) else f"a[{j}]")
            ax.set_ylabel("action (as sent)")
            ax.legend(fontsize=7, ncol=4, loc="upper right")
        elif kind == "reward":
            ax.plot(x, reward[:T], color="k")
            ax.set_ylabel("reward")
            fig.suptitle(f"{env_id}: {os.path.dirname(run_file)} | split {split}, evaluation at "
                         f"step {eval_step}, episode {k} (return {reward[:T].sum():.4g})",
                         fontsize=9)
        elif kind == "cost":
            name = cost_names[key] if key < len(cost_names) else f"cost[{key}]"
            ax.step(x, costs[:, key], where="post", color="tab:red")
            ax.set_ylabel(name, fontsize=8)
        else:
            ax.plot(x, infos[key], color="tab:green")
            ax.set_ylabel(key, fontsize=8)
        ax.grid(alpha=0.3)
    axes[-1, 0].set_xlabel(xlabel + ("\nzero throughout: " + ", ".join(flat) if flat else ""))
    fig.tight_layout()
    out = a.out or os.path.join(os.path.dirname(run_file), "plots",
                                f"episode_{split}_step{eval_step}_ep{k}.png")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    fig.savefig(out, dpi=110)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
