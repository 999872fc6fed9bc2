#!/usr/bin/python3
"""One evaluation episode of a powerzoo run as time series: actions, reward, cost channels and
the env's per-step physical quantities.

usage: scripts/plot_episode.py RUN_DIR [--split S | --all-splits] [--episode K] [--eval-step N]
                               [--step T] [--out FILE]

Reads RUN_DIR/run.h5, or any powerzoo file with trajectories (a run.h5, a `baseline --out` or an
`eval` file): /trajectories/<split>/step_<N>/ holds the evaluation episodes recorded at global
step N ([T, episodes, dim] arrays: action, reward, costs, and info/<name> where the env traces
physical quantities; trajectories/train holds the latest training rollout with
output.trajectories = "train-sample", one row per env). Default: the first eval split, the newest
recorded evaluation, episode 0. Draws one panel of actions (one line per action dimension, or
their mean and range beyond 12), one of reward (multi-agent: each agent and the team mean), one
per non-zero cost channel and one per info trace that is not zero throughout (those and the
zero cost channels are named under the plot), against the step index (and hours when the spec
gives dt_hours). A vector trace ([T, episodes, n], e.g.
unit_p_mw, battery_soc_frac) draws one line per element up to 12 elements, else its min, mean and
max over elements. Writes FILE (default RUN_DIR/plots/episode_<split>_step<N>_ep<K>.png; for
another file X.h5, plots/X_episode_... next to it) and prints its path.

Grid envs also record their network (/network: bus ids, branch ends, RATE_A): a second picture,
FILE with _network_t<T> before .png, draws the buses and branches at step T of the episode
(--step; default the step with the most loaded rated branch, else the lowest bus voltage).
Branch colour = loading |P|/RATE_A (|S| when the env traces branch_q_mvar; branches without a
rating in grey), width by |P|; bus colour = voltage (bus_vm_pu) or LMP (bus_lmp_usd_per_mwh)
when the env traces them. Radial feeders are laid out as a tree from the first bus, meshed
networks by a seeded force-directed layout. Works on a run that is still training (it reads the
published run.h5). --all-splits draws every evaluation split of that evaluation into the
default files: what a run with [eval] render_every_steps runs after its evaluations.

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

    from eval_layout import eval_splits
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
    splits = list(f["trajectories"])  # eval splits; "train" also holds train-sample rollouts
    if not splits:
        fail(f"{run_file}: no trajectories recorded yet")
    eval_splits = spec.get("eval", {}).get("splits", splits)
    split = split or next((s for s in eval_splits if s in splits), splits[0])
    if split not in splits:
        fail(f"--split {split}: expected one of {', '.join(splits)}")
    group = f["trajectories"][split]
    if "action" in group:  # a `powerzoo eval` file: one evaluation, of the checkpoint's step
        gs = f["metrics/eval/global_step"][()] if "metrics/eval/global_step" in f else [0]
        step = int(gs[-1]) if len(gs) else 0
        if eval_step is not None and eval_step != step:
            fail(f"--eval-step {eval_step}: expected {step} (the file's one evaluation)")
        return f, spec, run_file, split, step, group
    steps = sorted((step_number(n), n) for n in group if step_number(n) >= 0)
    if not steps:
        fail(f"{run_file}: trajectories/{split} holds no recorded evaluation yet")
    if eval_step is None:
        eval_step, name = steps[-1]
    else:
        match = [n for s, n in steps if s == eval_step]
        if not match:
            fail(f"--eval-step {eval_step}: expected one of {', '.join(str(s) for s, _ in steps)}")
        name = match[0]
    return f, spec, run_file, split, eval_step, f["trajectories"][split][name]


def element_labels(f, trace, n):
    """Legend labels of a vector trace: bus ids and branch ends from /network, else indices."""
    net = f["network"] if "network" in f else None
    if net is not None and trace.startswith("bus_") and len(net["bus_id"]) == n:
        return [f"bus {b}" for b in net["bus_id"][()]]
    if net is not None and trace.startswith("branch_") and len(net["branch_from_bus"]) == n:
        return [f"{a}-{b}" for a, b in zip(net["branch_from_bus"][()], net["branch_to_bus"][()])]
    kind = trace.split("_")[0]  # unit, battery, renewable, flexload
    return [f"{kind} {j}" for j in range(n)]


def tree_layout(n_bus, edges):
    """Radial feeder: depth below the first bus downwards, leaves spread left to right."""
    adj = [[] for _ in range(n_bus)]
    for a, b in edges:
        adj[a].append(b)
        adj[b].append(a)
    depth, order, parent = [-1] * n_bus, [], [-1] * n_bus
    depth[0], stack = 0, [0]
    while stack:  # depth-first, children in branch order, so subtrees stay together
        u = stack.pop()
        order.append(u)
        for v in reversed(adj[u]):
            if depth[v] < 0:
                depth[v], parent[v] = depth[u] + 1, u
                stack.append(v)
    xs, next_x = [0.0] * n_bus, [0.0]

    def place(u):
        kids = [v for v in adj[u] if parent[v] == u]
        if not kids:
            xs[u] = next_x[0]
            next_x[0] += 1
            return
        for v in kids:
            place(v)
        xs[u] = sum(xs[v] for v in kids) / len(kids)

    import sys as _s
    _s.setrecursionlimit(max(1000, 4 * n_bus))
    place(0)
    return np.array([[xs[i], -max(depth[i], 0)] for i in range(n_bus)], dtype=float)


def spring_layout(n_bus, edges, iters=300):
    """Fruchterman-Reingold with a fixed seed: the same picture for the same network."""
    rng = np.random.default_rng(0)
    pos = rng.uniform(-1, 1, (n_bus, 2))
    k = 1.0 / np.sqrt(max(n_bus, 1))
    e = np.array(edges, dtype=int).reshape(-1, 2)
    t = 0.1
    for _ in range(iters):
        d = pos[:, None, :] - pos[None, :, :]
        dist = np.maximum(np.linalg.norm(d, axis=2), 1e-3)
        disp = (d / dist[:, :, None] * (k * k / dist)[:, :, None]).sum(axis=1)
        if len(e):
            de = pos[e[:, 0]] - pos[e[:, 1]]
            le = np.maximum(np.linalg.norm(de, axis=1), 1e-3)
            f = de / le[:, None] * (le * le / k)[:, None]
            np.add.at(disp, e[:, 0], -f)
            np.add.at(disp, e[:, 1], f)
        ln = np.maximum(np.linalg.norm(disp, axis=1), 1e-9)
        pos += disp / ln[:, None] * np.minimum(ln, t)[:, None]
        t *= 0.99
    return pos


def draw_network(f, infos, T, step, out, title):
    from matplotlib.collections import LineCollection

    net = f["network"]
    bus_id = list(net["bus_id"][()])
    index = {b: i for i, b in enumerate(bus_id)}
    edges = [(index[a], index[b]) for a, b in zip(net["branch_from_bus"][()],
                                                  net["branch_to_bus"][()])]
    rate = net["branch_rate_mva"][()].astype(float)
    flow = infos.get("branch_p_mw")
    qflow = infos.get("branch_q_mvar")
    measure = "|P|"
    if flow is not None and flow.ndim == 2:
        rated = rate > 0
        mag = np.abs(flow)
        if qflow is not None and qflow.shape == flow.shape:  # AC: apparent power, as the cost
            mag, measure = np.hypot(flow, qflow), "|S|"
        load = np.where(rated[None, :], mag / np.where(rated, rate, 1)[None, :], 0)
        if step is None and rated.any():
            step = int(np.argmax(load.max(axis=1)))
    if step is None and "bus_vm_pu" in infos and infos["bus_vm_pu"].ndim == 2:
        step = int(np.argmin(infos["bus_vm_pu"].min(axis=1)))  # the lowest voltage
    if step is None:
        step = int(np.argmax(np.abs(flow).sum(axis=1))) if flow is not None and flow.ndim == 2 else 0
    if not 0 <= step < T:
        fail(f"--step {step}: expected an integer in [0, {T - 1}]")
    radial = len(edges) == len(bus_id) - 1
    pos = tree_layout(len(bus_id), edges) if radial else spring_layout(len(bus_id), edges)
    fig, ax = plt.subplots(figsize=(11, 7))
    segs = [[pos[a], pos[b]] for a, b in edges]
    if flow is not None and flow.ndim == 2:
        p = np.abs(flow[step])
        width = 0.8 + 3.0 * p / max(p.max(), 1e-9)
        grey = LineCollection([s for s, r in zip(segs, rated) if not r], colors="0.6",
                              linewidths=width[~rated])
        ax.add_collection(grey)
        lc = LineCollection([s for s, r in zip(segs, rated) if r], cmap="plasma",
                            linewidths=width[rated])
        lc.set_array(load[step][rated])
        lc.set_clim(0, max(1.0, float(load[step].max())))
        ax.add_collection(lc)
        if rated.any():
            fig.colorbar(lc, ax=ax, label=f"branch loading {measure} / RATE_A (sending end)")
        if len(edges) <= 40:  # small networks: each branch's MW at its midpoint
            for (a, b), v in zip(edges, flow[step]):
                mid = (pos[a] + pos[b]) / 2
                ax.annotate(f"{v:.0f} MW" if abs(v) >= 10 else f"{v:.2f} MW", mid, fontsize=7,
                            color="0.25", ha="center")
    else:
        ax.add_collection(LineCollection(segs, colors="0.5", linewidths=1))
    colour, label = None, None
    for name, lab in (("bus_vm_pu", "bus voltage (p.u.)"),
                      ("bus_lmp_usd_per_mwh", "LMP ($/MWh)")):
        if name in infos and infos[name].ndim == 2:
            colour, label = infos[name][step], lab
            break
    size = 60 if len(bus_id) <= 40 else 18
    if colour is not None:
        sc = ax.scatter(pos[:, 0], pos[:, 1], c=colour, cmap="coolwarm", s=size, zorder=3,
                        edgecolors="k", linewidths=0.3)
        fig.colorbar(sc, ax=ax, label=label)
    else:
        ax.scatter(pos[:, 0], pos[:, 1], color="k", s=size, zorder=3)
    if len(bus_id) <= 40:
        for i, b in enumerate(bus_id):
            ax.annotate(str(b), pos[i], fontsize=7, xytext=(3, 3), textcoords="offset points")
    ax.autoscale()
    ax.set_aspect("auto")
    ax.axis("off")
    ax.set_title(f"{title}, step {step} of {T}", fontsize=9)
    fig.tight_layout()
    path = out[:-4] + f"_network_t{step}.png" if out.endswith(".png") else out + f"_network_t{step}"
    fig.savefig(path, dpi=110)
    return path


def main():
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("run", help="run directory (or its run.h5)")
    ap.add_argument("--split", help="evaluation split (default: the first)")
    ap.add_argument("--episode", type=int, default=0, help="episode index (default 0)")
    ap.add_argument("--eval-step", type=int, help="global step of the evaluation (default newest)")
    ap.add_argument("--step", type=int,
                    help="step of the episode the network picture shows (default: the step with "
                         "the most loaded rated branch, else the lowest voltage)")
    ap.add_argument("--out", help="PNG to write")
    ap.add_argument("--all-splits", action="store_true",
                    help="draw the episode of every evaluation split recorded at the evaluation "
                         "(into the default files; what [eval] render_every_steps runs)")
    a = ap.parse_args()
    if not a.all_splits:
        return plot_one(a, a.split)
    if a.out or a.split:
        fail("--all-splits names its own files and splits; drop --out and --split")
    f, spec = load(a.run, None, None)[:2]  # a readable file with trajectories, or exit 2
    # The file's eval splits in order (a split may be named "train"); train-sample rollouts are
    # training data, not an evaluation.
    listed = eval_splits(f) or spec.get("eval", {}).get("splits", [])
    sample = spec.get("output", {}).get("trajectories") == "train-sample"
    splits = [s for s in listed if s in f["trajectories"] and not (sample and s == "train")]
    if not splits:
        fail(f"{a.run}: no evaluation trajectories (output.trajectories = \"eval\")")
    for split in splits:
        plot_one(a, split)
    return 0


def plot_one(a, split_arg):
    f, spec, run_file, split, eval_step, g = load(a.run, split_arg, a.eval_step)
    action = g["action"][()]
    n_ep = action.shape[1]
    if not 0 <= a.episode < n_ep:
        fail(f"--episode {a.episode}: expected an integer in [0, {n_ep - 1}]")
    k = a.episode
    reward = g["reward"][()][:, k]  # [T] or, multi-agent, [T, agents]
    done = np.logical_or(g["terminated"][()][:, k], g["truncated"][()][:, k])
    T = int(np.argmax(done)) + 1 if done.any() else len(reward)
    if a.step is not None and not 0 <= a.step < T:  # before anything is written
        fail(f"--step {a.step}: expected an integer in [0, {T - 1}]")
    # The evaluation's return: the team return (mean over agents) for multi-agent envs.
    team = reward[:T].mean(axis=1) if reward.ndim == 2 else reward[:T]
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
    flat = []  # zero throughout: named under the plot only
    for j in range(costs.shape[1]):
        if np.any(costs[:, j] != 0):
            panels.append(("cost", j))
        else:
            flat.append("cost " + (cost_names[j] if j < len(cost_names) else f"[{j}]"))
    flat += sorted(n for n in infos if not np.any(infos[n] != 0))
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
            if reward.ndim == 2:  # one line per agent, and the team mean
                agents = list(dict.fromkeys(n.split("[")[0] for n in action_names))
                if reward.shape[1] <= MAX_ACTION_LINES:
                    for j in range(reward.shape[1]):
                        ax.plot(x, reward[:T, j], linewidth=0.9,
                                label=agents[j] if j < len(agents) else f"agent {j}")
                ax.plot(x, team, color="k", linewidth=2, label="team (mean over agents)")
                ax.legend(fontsize=6, ncol=6, loc="upper right")
            else:
                ax.plot(x, team, color="k")
            ax.set_ylabel("reward")
        elif kind == "cost":
            name = cost_names[key] if key < len(cost_names) else f"cost[{key}]"
            ax.step(x, costs[:, key], where="post", color="tab:red")
            ax.set_ylabel(name, fontsize=8)
        else:
            v = infos[key]
            if v.ndim == 1:
                ax.plot(x, v, color="tab:green")
            elif v.shape[1] <= MAX_ACTION_LINES:
                labels = element_labels(f, key, v.shape[1])
                for j in range(v.shape[1]):
                    ax.plot(x, v[:, j], label=labels[j])
                ax.legend(fontsize=6, ncol=6, loc="upper right")
            else:
                ax.plot(x, v.mean(axis=1), color="tab:green", label=f"mean of {v.shape[1]}")
                ax.fill_between(x, v.min(axis=1), v.max(axis=1), color="tab:green", alpha=0.25,
                                label="min..max")
                ax.legend(fontsize=6, loc="upper right")
            ax.set_ylabel(key, fontsize=8)
        ax.grid(alpha=0.3)
    axes[-1, 0].set_xlabel(xlabel + ("\nzero throughout: " + ", ".join(flat) if flat else ""))
    what = run_file if os.path.basename(run_file) != "run.h5" else os.path.dirname(run_file)
    ret_name = "team return" if reward.ndim == 2 else "return"
    fig.suptitle(f"{env_id}: {what} | split {split}, evaluation at step {eval_step}, episode {k} "
                 f"({ret_name} {team.sum():.4g})", fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.35 / (2.2 * len(panels))))  # room for the title
    # A run directory's plots/ gets episode_...; a baseline or eval file's name leads, so that
    # files side by side do not overwrite each other's pictures.
    stem = "" if os.path.basename(run_file) == "run.h5" else \
        os.path.splitext(os.path.basename(run_file))[0] + "_"
    out = a.out or os.path.join(os.path.dirname(os.path.abspath(run_file)), "plots",
                                f"{stem}episode_{split}_step{eval_step}_ep{k}.png")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    fig.savefig(out, dpi=110)
    print(out)
    if "network" in f and "bus_id" in f["network"]:
        print(draw_network(f, infos, T, a.step, out, f"{env_id} | split {split}, evaluation at "
                           f"step {eval_step}, episode {k}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
