#!/usr/bin/python3
"""Learning curves of a sweep (or any directory of powerzoo runs) with seed bands.

usage: scripts/plot_runs.py DIR [--out OUTDIR] [--metric NAME ...] [--band std|minmax]

Finds every run.h5 under DIR (checkpoint directories skipped), groups runs by configuration (the
resolved spec in /config/resolved without experiment.seed/name/out_dir, as `powerzoo summarize`),
and draws for each metrics/eval column (default: return_mean, shaped_return_mean and every cost/*
channel with a non-zero value) the mean over seeds against global_step, a shaded band (mean +- std
over seeds, or min..max), and thin per-seed lines. Writes one PNG per metric into OUTDIR (default
DIR/plots) and prints the paths.

Needs Debian's python3-h5py and python3-matplotlib (`apt-get install python3-h5py
python3-matplotlib`); Python >= 3.11 for tomllib.
"""
import argparse
import json
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
    sys.exit(f"plot_runs.py: {e}; install python3-h5py and python3-matplotlib (Debian)")


def find_runs(root):
    runs = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x != "ckpt")
        if "run.h5" in files:
            runs.append(os.path.join(d, "run.h5"))
    return sorted(runs)


def flatten(t, prefix=""):
    out = {}
    for k, v in t.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and not (prefix == "" and k == "sweep"):
            out.update(flatten(v, key + "."))
        else:
            out[key] = v
    return out


def load(path):
    with h5py.File(path, "r") as f:
        resolved = f["config/resolved"][()]
        resolved = resolved.decode() if isinstance(resolved, bytes) else resolved
        ev = f.get("metrics/eval")
        cols = {}
        if ev is not None:
            ev.visititems(lambda n, o: cols.__setitem__(n, o[:]) if isinstance(o, h5py.Dataset) else None)
    cfg = flatten(tomllib.loads(resolved))
    seed = cfg.get("experiment.seed", 0)
    for k in ("experiment.seed", "experiment.name", "experiment.out_dir"):
        cfg.pop(k, None)
    return {"path": path, "seed": seed, "cfg": cfg, "key": json.dumps(cfg, sort_keys=True, default=str),
            "eval": cols}


def group(runs):
    groups = {}
    for r in runs:
        groups.setdefault(r["key"], []).append(r)
    cfgs = [g[0]["cfg"] for g in groups.values()]
    keys = sorted({k for c in cfgs for k in c})
    differing = [k for k in keys if len({json.dumps(c.get(k), default=str) for c in cfgs}) > 1]
    labelled = []
    for g in groups.values():
        label = " ".join(f"{k}={g[0]['cfg'].get(k)}" for k in differing) or "all runs"
        labelled.append((label, g))
    return labelled


def plot_metric(groups, metric, band, out_path):
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=120)
    drawn = False
    for i, (label, members) in enumerate(groups):
        series = [(r["eval"]["global_step"], r["eval"][metric]) for r in members
                  if metric in r["eval"] and "global_step" in r["eval"]]
        if not series:
            continue
        n = min(len(s[1]) for s in series)
        steps = series[0][0][:n]
        ys = np.array([s[1][:n] for s in series])
        mean = ys.mean(axis=0)
        lo, hi = ((mean - ys.std(axis=0), mean + ys.std(axis=0)) if band == "std"
                  else (ys.min(axis=0), ys.max(axis=0)))
        color = f"C{i % 10}"
        for y in ys:
            ax.plot(steps, y, color=color, alpha=0.25, linewidth=0.8)
        ax.fill_between(steps, lo, hi, color=color, alpha=0.2, linewidth=0)
        ax.plot(steps, mean, color=color, linewidth=2, label=f"{label} (n={len(series)})")
        drawn = True
    if not drawn:
        plt.close(fig)
        return False
    ax.set_xlabel("environment steps")
    ax.set_ylabel(f"eval {metric}")
    ax.set_title(f"eval {metric}: mean over seeds, band = {'±1 std' if band == 'std' else 'min..max'}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out_path)
    plt.close(fig)
    return True


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dir")
    p.add_argument("--out", help="directory for the PNG files (default DIR/plots)")
    p.add_argument("--metric", action="append", help="metrics/eval column (repeatable)")
    p.add_argument("--band", choices=["std", "minmax"], default="std")
    a = p.parse_args()
    paths = find_runs(a.dir)
    if not paths:
        sys.exit(f"plot_runs.py: no run.h5 under {a.dir}")
    runs = [load(x) for x in paths]
    groups = group(runs)
    metrics = a.metric
    if not metrics:
        metrics = ["return_mean", "shaped_return_mean"]
        costs = sorted({k for r in runs for k in r["eval"] if k.startswith("cost/")})
        metrics += [c for c in costs if any(np.any(r["eval"].get(c, [0]) != 0) for r in runs)]
    out = a.out or os.path.join(a.dir, "plots")
    os.makedirs(out, exist_ok=True)
    print(f"{len(runs)} runs, {len(groups)} configuration(s)")
    for m in metrics:
        path = os.path.join(out, "eval_" + m.replace("/", "_") + ".png")
        if plot_metric(groups, m, a.band, path):
            print(path)
        else:
            print(f"plot_runs.py: no run has metrics/eval/{m}; skipped", file=sys.stderr)


if __name__ == "__main__":
    main()
