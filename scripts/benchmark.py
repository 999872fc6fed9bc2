#!/usr/bin/python3
"""Runs the benchmark suite (benchmarks/suite.toml) and writes docs/results.md from its run files.

  scripts/benchmark.py run    [--binary B] [--runs DIR] [--jobs J] [--seeds N] [--only TASK ...]
                              [--baselines-only]
  scripts/benchmark.py slurm  [--binary B] [--runs DIR] [--only TASK ...] [-- SWEEP_OPTIONS...]
  scripts/benchmark.py report [--binary B] [--results DIR] [--out FILE] [--img DIR] [--only TASK ...]
  scripts/benchmark.py archive [--runs DIR] [--results DIR] [--only TASK ...]

`run` trains every learner row as `powerzoo sweep SPEC experiment.seed=0,...,N-1 --out
RUNS/<spec stem>` (a sweep resumes: re-running skips finished trials and continues interrupted
ones, so the suite can be stopped and restarted at any time) and evaluates every baseline once
with `powerzoo baseline --out RUNS/<task>_baselines/<policy>.h5` (skipped when the file exists).
`slurm` writes one SLURM job-array script per learner row instead, RUNS/slurm/<spec stem>.sbatch
(`powerzoo sweep --emit slurm`; options after `--`, e.g. `--partition cpu --time 04:00:00
--requeue`, are passed on), and prints the sbatch commands; `report` afterwards as usual.

A task may list conditions (`[[task.condition]]`: an id, a label and `powerzoo eval` overrides,
e.g. the DC microgrid on PowerZooJax's calendar, `env.calendar=reference`). For each, `run` also
evaluates every finished trial's final checkpoint on every split with those overrides
(`powerzoo eval CKPT OVERRIDES --split S --out RUNS/<spec stem>_<id>/<split>/trial_<k>.h5`) and
every baseline under them (RUNS/<task>_baselines_<id>/<policy>.h5); existing files are kept, so
re-running after more trials finish adds theirs. `report` writes a second table per condition.

Finished run files are kept, slimmed, in --results (default benchmarks/results, committed with
the project): `archive` copies every finished trial's run.h5, every baseline file and every
condition's eval file from RUNS to the same relative path under RESULTS, without its
/trajectories group and with its datasets gzip-compressed (a few hundred kB per trial); `run`
archives after each sweep, so a result outlives the machine it was trained on. Files already in
RESULTS are kept. `report` reads RESULTS only, so docs/results.md can be rebuilt from a clone.

`report` reads the run files with `powerzoo summarize` (mean, std, percentile-bootstrap 95 % CI
of the mean over seeds; unfinished runs are left out and counted) and writes one table per task:
each learner's and each baseline's primary metric and the task's other metrics on every split,
the number of seeds and env steps, and PowerZooJax's published number beside ours; with a task's
`reference` baseline, the primary metric's change relative to it, ours and PowerZooJax's. Learning
curves of each task's primary metric (mean over seeds with a std band) are drawn with
scripts/plot_runs.py into --img (default docs/img/results). Rows without runs say so.

Exit 2 on bad usage (unknown task, missing binary or suite file), 1 if a sweep or baseline failed.
Needs Debian's python3-h5py and python3-matplotlib for the pictures.
"""
import argparse
import csv
import io
import math
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUITE = os.path.join(ROOT, "benchmarks", "suite.toml")


def fail(msg, code=2):
    print(f"benchmark.py: {msg}", file=sys.stderr)
    sys.exit(code)


def load_suite(path, only):
    try:
        with open(path, "rb") as f:
            suite = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        fail(f"{path}: {e}")
    tasks = suite.get("task", [])
    ids = [t["id"] for t in tasks]
    for name in only or []:
        if name not in ids:
            fail(f"--only: expected one of {', '.join(ids)}, found '{name}'")
    for t in tasks:
        if "reference" in t and t["reference"] not in t.get("baselines", []):
            fail(f"{path}: task {t['id']}: reference: expected one of its baselines "
                 f"({', '.join(t.get('baselines', []))}), found '{t['reference']}'")
    return [t for t in tasks if not only or t["id"] in only]


def spec_stem(spec):
    return os.path.splitext(os.path.basename(spec))[0]


def learner_rows(task):
    return [r for r in task["row"] if "spec" in r]


def baseline_rows(task):
    return [r for r in task["row"] if "baseline" in r]


def sh(cmd, quiet=False):
    print("+ " + " ".join(cmd), flush=True)
    out = subprocess.DEVNULL if quiet else None
    return subprocess.call(cmd, cwd=ROOT, stdout=out)


def cmd_run(args, tasks):
    seeds = ",".join(str(s) for s in range(args.seeds))
    failed = 0
    for task in tasks:
        bdir = os.path.join(args.runs, f"{task['id']}_baselines")
        os.makedirs(bdir, exist_ok=True)
        for row in baseline_rows(task):
            out = os.path.join(bdir, f"{row['baseline']}.h5")
            if os.path.exists(out):
                continue
            failed += sh([args.binary, "baseline", task["baseline_spec"], "--policy",
                          row["baseline"], "--out", out] + task.get("baseline_overrides", []),
                         quiet=True) != 0
        for row in [] if args.baselines_only else learner_rows(task):
            cmd = [args.binary, "sweep", row["spec"], f"experiment.seed={seeds}", "--out",
                   os.path.join(args.runs, spec_stem(row["spec"])), "--quiet"]
            cmd += row.get("overrides", [])
            if args.jobs:
                cmd += ["--jobs", str(args.jobs)]
            failed += sh(cmd) != 0
            archive(args, [task])
        failed += run_conditions(args, task)
        archive(args, [task])
    return 1 if failed else 0


SLIM_DROP = ("trajectories",)


def slim_copy(src, dst):
    """src (an HDF5 run, baseline or eval file) to dst without SLIM_DROP, datasets gzipped.

    Written to dst + '.tmp' and renamed, so an interrupted copy leaves no half file."""
    import h5py

    def copy_attrs(a, b):
        for k, v in a.attrs.items():
            b.attrs[k] = v

    def walk(g_in, g_out):
        copy_attrs(g_in, g_out)
        for name, obj in g_in.items():
            if g_in.name == "/" and name in SLIM_DROP:
                continue
            if isinstance(obj, h5py.Group):
                walk(obj, g_out.create_group(name))
            else:
                big = obj.shape != () and obj.size > 64 and obj.dtype.kind in "fiub"
                d = g_out.create_dataset(name, data=obj[()], compression="gzip" if big else None,
                                         shuffle=big)
                copy_attrs(obj, d)

    os.makedirs(os.path.dirname(dst), exist_ok=True)
    tmp = dst + ".tmp"
    with h5py.File(src, "r") as fin, h5py.File(tmp, "w") as fout:
        walk(fin, fout)
    os.replace(tmp, dst)


def archive(args, tasks):
    """Copies the finished files of `tasks` from RUNS to RESULTS (slim_copy); returns the count."""
    todo = []
    for task in tasks:
        suffixes = [""] + ["_" + c["id"] for c in task.get("condition", [])]
        for sfx in suffixes:
            bdir = f"{task['id']}_baselines{sfx}"
            for row in baseline_rows(task):
                todo.append(os.path.join(bdir, f"{row['baseline']}.h5"))
        for row in learner_rows(task):
            stem = spec_stem(row["spec"])
            sweep = os.path.join(args.runs, stem)
            trials = sorted(t for t in os.listdir(sweep) if t.startswith("trial_")) \
                if os.path.isdir(sweep) else []
            for t in trials:
                if trial_finished(os.path.join(sweep, t)):
                    todo.append(os.path.join(stem, t, "run.h5"))
            for c in task.get("condition", []):
                cdir = os.path.join(args.runs, f"{stem}_{c['id']}")
                for split in task["splits"]:
                    sd = os.path.join(cdir, split)
                    if os.path.isdir(sd):
                        todo += [os.path.join(f"{stem}_{c['id']}", split, f)
                                 for f in sorted(os.listdir(sd)) if f.endswith(".h5")]
    n = 0
    for rel in todo:
        src, dst = os.path.join(args.runs, rel), os.path.join(args.results, rel)
        if os.path.isfile(src) and not os.path.exists(dst):
            slim_copy(src, dst)
            n += 1
    return n


def cmd_archive(args, tasks):
    n = archive(args, tasks)
    print(f"archived {n} file(s) into {args.results}")
    return 0


def final_checkpoint(trial):
    """The newest ckpt/step_<n>.h5 of a finished trial directory, or None."""
    ck = os.path.join(trial, "ckpt")
    if not os.path.exists(os.path.join(trial, "run.h5")) or not os.path.isdir(ck):
        return None
    steps = [f for f in os.listdir(ck) if f.startswith("step_") and f.endswith(".h5")]
    if not steps:
        return None
    return os.path.join(ck, max(steps, key=lambda f: int(f[5:-3])))


def trial_finished(trial):
    """Whether the trial's run.h5 says finished (`powerzoo summarize` leaves others out too)."""
    try:
        import h5py
        with h5py.File(os.path.join(trial, "run.h5"), "r") as f:
            status = f.attrs.get("status", b"")
            return (status.decode() if isinstance(status, bytes) else str(status)) == "finished"
    except (OSError, ImportError):
        return False


def run_conditions(args, task):
    """Evaluations of each condition: final checkpoints of finished trials, and the baselines."""
    failed = 0
    for cond in task.get("condition", []):
        over = cond["overrides"]
        bdir = os.path.join(args.runs, f"{task['id']}_baselines_{cond['id']}")
        os.makedirs(bdir, exist_ok=True)
        for row in baseline_rows(task):
            out = os.path.join(bdir, f"{row['baseline']}.h5")
            if not os.path.exists(out):
                failed += sh([args.binary, "baseline", task["baseline_spec"], "--policy",
                              row["baseline"], "--out", out] + task.get("baseline_overrides", [])
                             + over, quiet=True) != 0
        for row in [] if args.baselines_only else learner_rows(task):
            sweep = os.path.join(args.runs, spec_stem(row["spec"]))
            if not os.path.isdir(sweep):
                continue
            for trial in sorted(os.listdir(sweep)):
                tdir = os.path.join(sweep, trial)
                ckpt = final_checkpoint(tdir)
                if not trial.startswith("trial_") or ckpt is None or \
                        not trial_finished(tdir):
                    continue
                for split in task["splits"]:
                    edir = os.path.join(args.runs, f"{spec_stem(row['spec'])}_{cond['id']}", split)
                    out = os.path.join(edir, f"{trial}.h5")
                    if os.path.exists(out):
                        continue
                    os.makedirs(edir, exist_ok=True)
                    failed += sh([args.binary, "eval", ckpt] + over +
                                 ["--split", split, "--out", out], quiet=True) != 0
    return failed


def cmd_slurm(args, tasks, extra):
    seeds = ",".join(str(s) for s in range(args.seeds))
    scripts = os.path.join(args.runs, "slurm")
    os.makedirs(scripts, exist_ok=True)
    for task in tasks:
        for row in learner_rows(task):
            out = os.path.join(args.runs, spec_stem(row["spec"]))
            p = subprocess.run([args.binary, "sweep", row["spec"], f"experiment.seed={seeds}",
                                "--out", out, "--emit", "slurm"] + row.get("overrides", [])
                               + extra, cwd=ROOT, capture_output=True, text=True)
            if p.returncode != 0:
                sys.stderr.write(p.stderr)
                return p.returncode
            path = os.path.join(scripts, spec_stem(row["spec"]) + ".sbatch")
            with open(path, "w") as f:
                f.write(p.stdout)
            print(f"sbatch {path}    # {task['id']}: {row['label']}")
    return 0


def summarize(binary, directory, split, metrics):
    """`powerzoo summarize` of DIR on SPLIT: {(kind, metric): row dict}, plus its stderr notes."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "summary.csv")
        cmd = [binary, "summarize", directory, "--split", split, "--csv", out]
        for m in metrics:
            cmd += ["--metric", m]
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if p.returncode != 0 or not os.path.exists(out):
            return {}, (p.stderr or p.stdout).strip()
        rows = {}
        with open(out, newline="") as f:
            for r in csv.DictReader(f):
                rows[(r["kind"], r["metric"])] = r
        return rows, p.stderr.strip()


def fmt(x):
    """A number for the table: 4 significant digits, thousands separated (as the task pages)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    if x == 0:
        return "0"
    a = abs(x)
    if a < 1e-3:
        return f"{x:.3g}"
    if a >= 1000:
        return f"{x:,.0f}"
    digits = max(0, 3 - int(math.floor(math.log10(a))))
    return f"{x:,.{min(digits, 6)}f}"


def cell(r):
    mean, lo, hi = float(r["mean"]), float(r["ci95_low"]), float(r["ci95_high"])
    if int(r["n_seeds"]) > 1:
        return f"{fmt(mean)} [{fmt(lo)}, {fmt(hi)}]"
    return fmt(mean)


def task_table(args, task, cond=None):
    metrics = [task["primary"]] + task.get("metrics", [])
    lines = []
    better = "higher is better" if task.get("higher_is_better", True) else "lower is better"
    if cond is None:
        lines.append(f"## {task['title']}\n")
        lines.append(f"Primary metric `{task['primary']}` ({better}); details on the task page "
                     f"[{task['page']}]({task['page']}). Cells: mean over seeds [95 % CI]; "
                     "PowerZooJax: its published mean.\n")
    else:
        lines.append(f"### {task['title'].split(':')[0]} on {cond['label']}\n")
        lines.append(f"{cond['note']} Learners: the final checkpoint of every finished seed, "
                     f"`powerzoo eval CKPT {' '.join(cond['overrides'])} --split S`; baselines: "
                     f"`powerzoo baseline ... {' '.join(cond['overrides'])}`.\n")
    ref = task.get("reference")
    head = ["policy", "split", "seeds", "env steps"]
    for m in metrics:
        head += [f"`{m}`", "PowerZooJax"]
        if ref and m == task["primary"]:
            head += [f"vs {ref}", "PowerZooJax vs its own"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "---|" * len(head))
    table = []  # (row, split, {metric: summary row or None}), then formatted with the reference
    for row in task["row"]:
        suffix = "" if cond is None else "_" + cond["id"]
        if "spec" in row:
            directory = os.path.join(args.results, spec_stem(row["spec"]) + suffix)
            kind = "run" if cond is None else "eval"
        else:
            directory = os.path.join(args.results, f"{task['id']}_baselines{suffix}")
            kind = f"baseline:{row['baseline']}"
        for split in task["splits"]:
            pzj = row.get("pzj", {}).get(split, {})
            if cond is not None and "spec" in row:
                directory = os.path.join(args.results, spec_stem(row["spec"]) + suffix, split)
            if not os.path.isdir(directory):
                data = {}
            else:
                data, _ = summarize(args.binary, directory, split, metrics)
            # A run's other splits are named "<split>/<metric>" in summary.csv, its main bare.
            def get(m, data=data, split=split, kind=kind):
                return data.get((kind, m)) or data.get((kind, f"{split}/{m}"))
            table.append((row, split, {m: get(m) for m in metrics}))
    refs = {split: (got[task["primary"]], row.get("pzj", {}).get(split, {}))
            for row, split, got in table if row.get("baseline") == ref}
    for row, split, got in table:
        pzj = row.get("pzj", {}).get(split, {})
        first = got[task["primary"]]
        label = row["label"] + ("" if "spec" in row else " (rule)")
        if first is None:
            seeds, steps = "no runs yet", "—"
        else:
            seeds = first["n_seeds"]
            if "spec" in row and int(seeds) < args.seeds:  # the suite's other seeds not finished
                seeds = f"{seeds} of {args.seeds}"
            steps = "—" if first["final_step"] == "inf" else f"{int(float(first['final_step'])):,}"
        cells = [label, split, seeds, steps]
        for m in metrics:
            r = got[m]
            cells += [cell(r) if r else "—", fmt(pzj[m]) if m in pzj else "—"]
            if ref and m == task["primary"]:
                ours_ref, pzj_ref = refs.get(split, (None, {}))
                cells += [relative(float(r["mean"]) if r else None,
                                   float(ours_ref["mean"]) if ours_ref else None),
                          relative(pzj.get(m), pzj_ref.get(m))]
        lines.append("| " + " | ".join(cells) + " |")
    if ref:
        lines += ["", f"`vs {ref}`: the change of the mean `{task['primary']}` relative to the "
                  f"`{ref}` baseline on the same split, (x − {ref}) / |{ref}|, so "
                  + ("positive is better" if task.get("higher_is_better", True)
                     else "negative is better") +
                  "; PowerZooJax's against its own published baseline. The data differ between "
                  "the two suites, so these columns compare like with like where the absolute "
                  "numbers do not."]
    lines.append("")
    return lines


def relative(x, base):
    """(x − base) / |base| as a signed percentage, or "—"."""
    if x is None or base is None or base == 0:
        return "—"
    return f"{100.0 * (x - base) / abs(base):+.1f} %"


def curves(args, task):
    out = []
    for row in learner_rows(task):
        directory = os.path.join(args.results, spec_stem(row["spec"]))
        if not os.path.isdir(directory):
            continue
        img = os.path.join(args.img, spec_stem(row["spec"]))
        p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "plot_runs.py"),
                            directory, "--out", img, "--metric", task["primary"]], cwd=ROOT,
                           capture_output=True, text=True)
        pngs = [l.strip() for l in p.stdout.splitlines() if l.strip().endswith(".png")]
        for png in pngs:
            rel = os.path.relpath(os.path.abspath(png), os.path.dirname(os.path.abspath(args.out)))
            out.append(f"![{task['id']} {row['label']}: {task['primary']}]({rel})")
    return out


def cmd_report(args, tasks):
    text = ["# Benchmark results", "",
            "Generated by `scripts/benchmark.py report` (`make benchmark`) from the run files of "
            "the suite in [benchmarks/suite.toml](../benchmarks/suite.toml), kept without their "
            "trajectories in [benchmarks/results](../benchmarks/results): every learner at "
            "PowerZooJax's budget over seeds 0–4, every baseline once. Means over seeds with a "
            "percentile-bootstrap 95 % CI of the mean (`powerzoo summarize`); PowerZooJax's "
            "numbers are its published GPU rows (5 seeds). A learner row with fewer finished seeds "
            f"says so (`2 of {args.seeds}`). Each run counts with its last evaluation (at the "
            "end of training, not its best checkpoint). Violation rates are fractions of "
            "evaluation steps; `cost/<channel>` is an episode sum.", ""]
    for task in tasks:
        text += task_table(args, task)
        for cond in task.get("condition", []):
            text += task_table(args, task, cond)
        pics = curves(args, task) if not args.no_plots else []
        if pics:
            text += ["Learning curves (mean over seeds, std band):", ""] + pics + [""]
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        f.write("\n".join(text))
    print(f"wrote {args.out}")
    return 0


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["run", "slurm", "report", "archive"],
                    help="what to do (described above)")
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "powerzoo"),
                    help="the powerzoo binary (default build/powerzoo)")
    ap.add_argument("--suite", default=SUITE,
                    help="the suite file (default benchmarks/suite.toml)")
    ap.add_argument("--runs", default=os.path.join(ROOT, "runs", "benchmark"),
                    help="where the sweeps and baseline files live (default runs/benchmark)")
    ap.add_argument("--results", default=os.path.join(ROOT, "benchmarks", "results"),
                    help="the slim copies of finished run files that `report` reads "
                         "(default benchmarks/results)")
    ap.add_argument("--jobs", type=int, default=0, help="trials in parallel (sweep --jobs)")
    ap.add_argument("--seeds", type=int, default=5,
                    help="seeds per learner: run trains 0..N-1; report counts a row with fewer "
                         "as 'k of N' (default 5)")
    ap.add_argument("--baselines-only", action="store_true", help="run: the baselines alone")
    ap.add_argument("--only", nargs="*", default=None, help="task ids")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "results.md"),
                    help="report: the page to write (default docs/results.md)")
    ap.add_argument("--img", default=os.path.join(ROOT, "docs", "img", "results"),
                    help="report: where the learning curves go (default docs/img/results)")
    ap.add_argument("--no-plots", action="store_true",
                    help="report: the tables without learning curves")
    args = ap.parse_args(argv)
    if args.seeds < 1:
        fail(f"--seeds: expected an integer >= 1, found {args.seeds}")
    if args.command == "archive":
        return cmd_archive(args, load_suite(args.suite, args.only))
    if not (os.path.isfile(args.binary) and os.access(args.binary, os.X_OK)):
        fail(f"--binary: expected the powerzoo executable, found no such file: {args.binary} "
             "(run `make build` first)")
    tasks = load_suite(args.suite, args.only)
    if args.command == "report" and not os.path.isdir(args.results):
        fail(f"--results: expected the directory of archived run files, found no such "
             f"directory: {args.results}")
    if args.command == "run":
        return cmd_run(args, tasks)
    if args.command == "slurm":
        return cmd_slurm(args, tasks, extra)
    return cmd_report(args, tasks)


if __name__ == "__main__":
    sys.exit(main())
