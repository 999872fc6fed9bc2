#!/usr/bin/python3
"""ctest benchmark_report: scripts/benchmark.py runs a tiny two-seed suite and reports it.

Runs `benchmark.py run` on tests/data/benchmark/suite_tiny.toml (quickstart PPO, 2 seeds, 3,072
steps; the zero_action baseline) into a temporary folder, then `benchmark.py report`, and checks
the table against the run files read directly with h5py: the PPO cell is the mean over the two
seeds of the last iid return_mean, its seeds column says 2 and its steps column the final global
step; the baseline's cell is its file's value; PowerZooJax's column carries the suite's number;
the reference columns the change relative to the zero_action baseline, ours and the suite's;
re-running `run` trains nothing new (the sweep resumes as finished). `run` archives every
finished file into --results without its trajectories, the eval curves unchanged, and `report`
is built from those copies alone (the runs folder is moved away while it reports). The suite's condition
(every load × 1.3) evaluates both seeds' final checkpoints and the baseline again with that
override, and its table's cells are the means of those eval files. With --seeds 3 the row says
"2 of 3". Bad usage (an unknown task, a missing binary or --results folder) exits 2.

usage: tests/benchmark_report_test.py BINARY
"""
import os
import re
import subprocess
import sys
import tempfile

import h5py
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "scripts", "benchmark.py")
SUITE = os.path.join(ROOT, "tests", "data", "benchmark", "suite_tiny.toml")


def bench(binary, *args):
    return subprocess.run([sys.executable, SCRIPT, *args, "--binary", binary, "--suite", SUITE],
                          cwd=ROOT, capture_output=True, text=True)


def fmt4(x):
    """The report's 4-significant-digit format, for numbers below 1000 in magnitude."""
    digits = max(0, 3 - int(np.floor(np.log10(abs(x)))))
    return f"{x:,.{min(digits, 6)}f}"


def last_eval(path, column):
    with h5py.File(path, "r") as h:
        return float(np.asarray(h["metrics/eval/" + column])[-1])


def main():
    binary = os.path.abspath(sys.argv[1])
    failures = []

    def check(cond, what):
        print(("ok   " if cond else "FAIL ") + what)
        if not cond:
            failures.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        runs = os.path.join(tmp, "runs")
        results = os.path.join(tmp, "results")
        p = bench(binary, "run", "--runs", runs, "--results", results, "--seeds", "2")
        check(p.returncode == 0, f"run exits 0 (stderr: {p.stderr[-500:]})")
        sweep = os.path.join(runs, "quickstart")
        rets = [last_eval(os.path.join(sweep, f"trial_{i}", "run.h5"), "iid/return_mean")
                for i in range(2)]
        steps = [last_eval(os.path.join(sweep, f"trial_{i}", "run.h5"), "global_step")
                 for i in range(2)]
        base = last_eval(os.path.join(runs, "quickstart_baselines", "zero_action.h5"),
                         "iid/return_mean")
        slim = os.path.join(results, "quickstart", "trial_1", "run.h5")
        with h5py.File(os.path.join(sweep, "trial_1", "run.h5"), "r") as a, \
                h5py.File(slim, "r") as b:
            same = all(np.array_equal(np.asarray(a["metrics/eval/" + k]),
                                      np.asarray(b["metrics/eval/" + k]))
                       for k in a["metrics/eval"].keys() if isinstance(a["metrics/eval/" + k],
                                                                      h5py.Dataset))
            check("trajectories" in a and "trajectories" not in b and same and
                  b.attrs["status"] == a.attrs["status"],
                  "the archived trial has the run's eval curves and status, no trajectories")
        check(os.path.isfile(os.path.join(results, "quickstart_baselines_heavy",
                                          "zero_action.h5")) and
              os.path.isfile(os.path.join(results, "quickstart_heavy", "iid", "trial_0.h5")),
              "baseline and condition eval files are archived")
        out = os.path.join(tmp, "results.md")
        os.rename(runs, runs + ".away")
        p = bench(binary, "report", "--results", results, "--out", out, "--img",
                  os.path.join(tmp, "img"), "--seeds", "2")
        partial = bench(binary, "report", "--results", results, "--out", out + ".3", "--no-plots",
                        "--seeds", "3")
        nodir = bench(binary, "report", "--results", os.path.join(tmp, "nodir"), "--out",
                      os.path.join(tmp, "nodir.md"), "--no-plots")
        check(nodir.returncode == 2 and "--results" in nodir.stderr and
              not os.path.exists(os.path.join(tmp, "nodir.md")),
              "a missing --results directory exits 2 naming it, nothing written (it wrote a "
              "table of 'no runs yet')")
        os.rename(runs + ".away", runs)
        check(p.returncode == 0, f"report exits 0 (stderr: {p.stderr[-500:]})")
        text = open(out).read()
        main_table = text[:text.find("### ")]
        ppo = [l for l in main_table.splitlines() if l.startswith("| PPO | iid |")]
        check(len(ppo) == 1, "one PPO row on iid")
        cells = [c.strip() for c in ppo[0].strip("|").split("|")] if ppo else [""] * 8
        check(cells[2] == "2", f"PPO seeds column is 2 (found {cells[2]!r})")
        # A suite of 3 seeds with 2 finished says so in the row, not only in the intro.
        check(partial.returncode == 0 and "| PPO | iid | 2 of 3 |" in open(out + ".3").read(),
              "with --seeds 3 the PPO row's seeds column says 2 of 3")
        check(cells[3] == f"{int(steps[0]):,}", f"PPO steps column {int(steps[0]):,} ({cells[3]!r})")
        mean = float(np.mean(rets))
        check(cells[4].startswith(fmt4(mean) + " ["),
              f"PPO return cell starts with the mean over seeds {fmt4(mean)} ({cells[4]!r})")
        lo, hi = (float(x.replace(",", "")) for x in re.findall(r"\[(.*), (.*)\]", cells[4])[0])
        tol = 1e-3 * max(abs(r) for r in rets)  # the cell's 4 significant digits
        check(min(rets) - tol <= lo <= hi <= max(rets) + tol,
              f"PPO CI [{lo}, {hi}] within the seeds' range {min(rets)}..{max(rets)}")
        check(cells[5] == "-100.0", f"PowerZooJax column carries the suite's -100 ({cells[5]!r})")
        rel = f"{100.0 * (mean - base) / abs(base):+.1f} %"
        check(cells[6] == rel, f"vs zero_action: (mean − base) / |base| = {rel} ({cells[6]!r})")
        check(cells[7] == "+75.0 %",
              f"PowerZooJax vs its own: (−100 − (−400)) / 400 = +75.0 % ({cells[7]!r})")
        zero = [l for l in main_table.splitlines()
                if l.startswith("| zero_action (rule) | iid |")]
        check(len(zero) == 1 and f"| {fmt4(base)} |" in zero[0],
              f"zero_action row carries the baseline file's {fmt4(base)}")
        check("![quickstart PPO: return_mean](" in text, "a learning-curve picture is linked")
        heavy = [last_eval(os.path.join(runs, "quickstart_heavy", "iid", f"trial_{i}.h5"),
                           "iid/return_mean") for i in range(2)]
        check(all(h < r - 1e-6 for h, r in zip(heavy, rets)),
              f"more load costs more: condition returns {heavy} below the runs' {rets}")
        cond = text[text.find("### Quickstart on 30 % more load"):]
        check(cond.startswith("### Quickstart on 30 % more load"), "the condition has its table")
        ppo_h = [l for l in cond.splitlines() if l.startswith("| PPO | iid |")]
        check(len(ppo_h) == 1 and ppo_h[0].split("|")[5].strip().startswith(
            fmt4(float(np.mean(heavy))) + " ["),
              f"condition PPO cell is the mean of the eval files {fmt4(float(np.mean(heavy)))}"
              f" ({ppo_h})")
        base_h = last_eval(os.path.join(runs, "quickstart_baselines_heavy", "zero_action.h5"),
                           "iid/return_mean")
        zero_h = [l for l in cond.splitlines() if l.startswith("| zero_action (rule) | iid |")]
        check(len(zero_h) == 1 and f"| {fmt4(base_h)} |" in zero_h[0] and base_h < base,
              f"condition zero_action row carries its file's {fmt4(base_h)} (< {fmt4(base)})")
        before = [os.path.getmtime(os.path.join(sweep, f"trial_{i}", "run.h5")) for i in range(2)]
        p = bench(binary, "run", "--runs", runs, "--results", results, "--seeds", "2")
        after = [os.path.getmtime(os.path.join(sweep, f"trial_{i}", "run.h5")) for i in range(2)]
        check(p.returncode == 0 and before == after, "re-running the suite trains nothing new")
    p = bench(binary, "run", "--only", "nope")
    check(p.returncode == 2 and "--only" in p.stderr, "an unknown task exits 2 naming --only")
    p = subprocess.run([sys.executable, SCRIPT, "report", "--binary", "/nonexistent/powerzoo"],
                       capture_output=True, text=True)
    check(p.returncode == 2 and "--binary" in p.stderr, "a missing binary exits 2 naming --binary")
    print(f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
