#!/usr/bin/python3
"""Learning curves of a sweep (or any directory of powerzoo runs) with seed bands.

usage: scripts/plot_runs.py DIR|RUN.h5 [--out OUTDIR] [--metric NAME ...] [--band std|minmax]

Finds every run.h5 under DIR (checkpoint directories skipped), groups runs by configuration (the
resolved spec in /config/resolved without experiment.seed/name/out_dir and vec.threads, as `powerzoo
summarize`; a key that an older run's spec lacks does not split it off), and draws for each
metrics/eval column (default: return_mean, shaped_return_mean and every cost/* channel with a
non-zero value) the mean over seeds against global_step, a shaded band (mean +- std
over seeds, or min..max), and thin per-seed lines. The y axis names the metric's unit (from its
name: _mw MW, _mwh MWh, _pct %, _usd $, rates as fractions of steps or episodes; cost/<channel>
is the episode sum of the env's channel). Writes one PNG per metric into OUTDIR (default
DIR/plots) and prints the paths.

Live runs: a run still training (run.h5 status "running", read from the published copy) is drawn
up to its newest evaluation and marked "running" in the legend; seeds of one configuration may
have different lengths (each step's mean is over the seeds that reached it). A run.h5 that cannot
be read (being replaced at that moment) is skipped with a warning.

Exit 2 for a DIR without runs or a --metric no run has (the message lists the columns there are).

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

    from eval_layout import eval_columns
except ImportError as e:  # pragma: no cover
    sys.exit(f"plot_runs.py: {e}; install python3-h5py and python3-matplotlib (Debian)")


def fail(msg):
    print(f"plot_runs.py: error: {msg}", file=sys.stderr)
    sys.exit(2)


def find_runs(root):
    if os.path.isfile(root):  # one run.h5 given directly
        return [root]
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


UNITS = [  # (name suffix or prefix test, unit)
    (lambda m: m.startswith("violation_rate/"), "fraction of steps"),
    (lambda m: m == "feasibility_rate", "fraction of steps"),
    (lambda m: m == "episode_feasibility_rate", "fraction of episodes"),
    (lambda m: m.endswith("_rate"), "fraction"),
    (lambda m: m.endswith("_pct"), "%"),
    (lambda m: m.endswith("_mwh"), "MWh per episode"),
    (lambda m: m.endswith("_mw"), "MW"),
    (lambda m: m.endswith("_usd") or m == "gen_cost_mean", "$ per episode"),
    (lambda m: m == "episode_length_mean", "steps"),
    (lambda m: m.startswith("cost/"), "episode sum of the channel"),
    (lambda m: "return" in m, "episode return"),
]


def unit_of(metric):
    base = metric.split("/", 1)[1] if "/" in metric and not metric.startswith(
        ("cost/", "violation_rate/", "action/", "agent_return/")) else metric
    for test, unit in UNITS:
        if test(base):
            return unit
    return ""


def load(path):
    with h5py.File(path, "r") as f:
        resolved = f["config/resolved"][()]
        resolved = resolved.decode() if isinstance(resolved, bytes) else resolved
        status = f.attrs.get("status", "finished")
        status = status.decode() if isinstance(status, bytes) else str(status)
        cols = eval_columns(f)
    cfg = flatten(tomllib.loads(resolved))
    seed = cfg.get("experiment.seed", 0)
    for k in ("experiment.seed", "experiment.name", "experiment.out_dir", "vec.threads"):
        cfg.pop(k, None)
    return {"path": path, "seed": seed, "cfg": cfg, "key": json.dumps(cfg, sort_keys=True, default=str),
            "eval": cols, "status": status}


MAX_LABEL = 48


def compatible(a, b):
    """Same configuration: every key the two resolved specs share has the same value. A key only
    one of them has was added to the spec format after the other run was written (a long sweep
    resumed with a newer binary); `powerzoo summarize` reads it as its default there."""
    return all(json.dumps(a[k], default=str) == json.dumps(b[k], default=str)
               for k in a.keys() & b.keys())


def group(runs):
    groups = {}  # representative key -> runs; the representative is the first run's config
    for r in runs:
        home = next((k for k, g in groups.items() if compatible(g[0]["cfg"], r["cfg"])), None)
        groups.setdefault(r["key"] if home is None else home, []).append(r)
    cfgs = [g[0]["cfg"] for g in groups.values()]
    keys = sorted({k for c in cfgs for k in c})
    differing = [k for k in keys
                 if len({json.dumps(c[k], default=str) for c in cfgs if k in c}) > 1]
    labelled = []
    for g in groups.values():
        label = " ".join(f"{k}={g[0]['cfg'].get(k)}" for k in differing) or "all runs"
        labelled.append((label, g))
    if any(len(lab) > MAX_LABEL for lab, _ in labelled):  # as summarize: short names + a key
        return [(f"config {i}", g) for i, (_, g) in enumerate(labelled)], [
            f"config {i}: {lab}" for i, (lab, _) in enumerate(labelled)]
    return labelled, []


def plot_metric(groups, metric, band, out_path, key=()):
    import textwrap

    lines = [w for k in key for w in textwrap.wrap(k, 120, subsequent_indent="    ")]
    fig, ax = plt.subplots(figsize=(8, 4.4 + 0.16 * len(lines)), dpi=120)
    drawn = False
    for i, (label, members) in enumerate(groups):
        series = [(r["eval"]["global_step"], r["eval"][metric]) for r in members
                  if metric in r["eval"] and "global_step" in r["eval"]]
        if not series:
            continue
        # Seeds may be at different steps (a live run): each step's mean is over those there.
        steps = np.array(sorted({int(x) for st, _ in series for x in st}))
        ys = np.full((len(series), len(steps)), np.nan)
        where = {int(x): i for i, x in enumerate(steps)}
        for j, (st, y) in enumerate(series):
            for x, v in zip(st, y):
                ys[j, where[int(x)]] = v
        mean = np.nanmean(ys, axis=0)
        lo, hi = ((mean - np.nanstd(ys, axis=0), mean + np.nanstd(ys, axis=0)) if band == "std"
                  else (np.nanmin(ys, axis=0), np.nanmax(ys, axis=0)))
        color = f"C{i % 10}"
        for y in ys:
            ok = ~np.isnan(y)
            ax.plot(steps[ok], y[ok], color=color, alpha=0.25, linewidth=0.8)
        ax.fill_between(steps, lo, hi, color=color, alpha=0.2, linewidth=0)
        running = sum(r["status"] == "running" for r in members)
        tag = f", {running} running" if running else ""
        ax.plot(steps, mean, color=color, linewidth=2, label=f"{label} (n={len(series)}{tag})")
        drawn = True
    if not drawn:
        plt.close(fig)
        return False
    ax.set_xlabel("environment steps")
    unit = unit_of(metric)
    ax.set_ylabel(f"eval {metric}" + (f" ({unit})" if unit else ""))
    ax.set_title(f"eval {metric}: mean over seeds, band = {'±1 std' if band == 'std' else 'min..max'}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    if lines:
        fig.text(0.01, 0.01, "\n".join(lines), fontsize=6, family="monospace", va="bottom")
        fig.tight_layout(rect=(0, 0.16 * len(lines) / (4.4 + 0.16 * len(lines)) + 0.01, 1, 1))
    else:
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
    if not os.path.exists(a.dir):
        fail(f"{a.dir}: expected a directory of runs (or a run.h5), found nothing")
    paths = find_runs(a.dir)
    if not paths:
        fail(f"{a.dir}: expected run.h5 files below it, found none")
    runs = []
    for x in paths:
        try:
            runs.append(load(x))
        except (OSError, KeyError) as e:  # a run.h5 being published right now, or not a run
            print(f"plot_runs.py: skipped {x}: {e}", file=sys.stderr)
    if not runs:
        fail(f"{a.dir}: no readable run.h5")
    groups, key = group(runs)
    metrics = a.metric
    known = sorted({k for r in runs for k in r["eval"]})
    for m in metrics or []:
        if m not in known:
            fail(f"--metric {m}: expected a metrics/eval column of these runs, e.g. "
                 f"{', '.join(k for k in known if k != 'global_step')[:400]}")
    if not metrics:
        metrics = ["return_mean", "shaped_return_mean"]
        costs = sorted({k for r in runs for k in r["eval"] if k.startswith("cost/")})
        metrics += [c for c in costs if any(np.any(r["eval"].get(c, [0]) != 0) for r in runs)]
    base = os.path.dirname(os.path.abspath(a.dir)) if os.path.isfile(a.dir) else a.dir
    out = a.out or os.path.join(base, "plots")
    os.makedirs(out, exist_ok=True)
    live = sum(r["status"] == "running" for r in runs)
    print(f"{len(runs)} runs, {len(groups)} configuration(s)" +
          (f", {live} still running" if live else ""))
    for k in key:
        print("  " + k)
    for m in metrics:
        path = os.path.join(out, "eval_" + m.replace("/", "_") + ".png")
        if plot_metric(groups, m, a.band, path, key):
            print(path)
        else:
            print(f"plot_runs.py: no run has metrics/eval/{m}; skipped", file=sys.stderr)


if __name__ == "__main__":
    main()
