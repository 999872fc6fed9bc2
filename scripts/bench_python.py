#!/usr/bin/python3
"""Env stepping through the Python module against the native vector env, same envs and threads.

usage: scripts/bench_python.py [SPEC ...] [--build DIR] [--envs N] [--threads T] [--seconds S]
                               [--repeats R]

For each spec (default: experiments/quickstart.toml, dso_ppo.toml and tso_ppo.toml) measures
  native: `powerzoo bench SPEC --only env --envs N --threads T --seconds S` (the vector env's
          step_all on a bank of 8 random action batches, uniform in [-1, 1]), and
  python: powerzoo.make_vec(SPEC, num_envs=N, threads=T).step(a) on the same kind of bank
          (generated before the timed loop, as natively), with the obs, reward, flags and info
          arrays step() returns built every step,
alternating the two R times (default 3) on a machine whose load may change, and prints per spec
the median steps/s of each with their ratio python / native, and the ratio of the best runs
(timeit's convention: the least disturbed measurement of each). The bar of the issue (docs/custom-
loops.md, "Speed"): >= 90 % on DSO and TSO, >= 50 % on the quickstart at 64 envs.

Not a test: rates depend on the machine and its load. Needs the module built (`make python`);
Debian's /usr/bin/python3 with numpy.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_SPECS = ["experiments/quickstart.toml", "experiments/dso_ppo.toml",
                 "experiments/tso_ppo.toml"]
RATE_RE = re.compile(r"envs\s+(\d+)\s+threads\s+(\d+)\s+([0-9.]+) steps/s")


def native_rate(binary, spec, envs, threads, seconds):
    out = subprocess.run([binary, "bench", spec, "--only", "env", "--envs", str(envs),
                          "--threads", str(threads), "--seconds", str(seconds)],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    m = RATE_RE.search(out)
    if not m:
        sys.exit(f"bench_python: no rate in the output of powerzoo bench {spec}:\n{out}")
    return float(m.group(3))


def python_rate(powerzoo, np, spec, envs, threads, seconds):
    env = powerzoo.make_vec(spec, num_envs=envs, seed=0, threads=threads)
    env.reset()
    rng = np.random.default_rng(1)
    bank = [rng.uniform(-1, 1, (envs, env.act_dim)).astype(np.float32) for _ in range(8)]
    for i in range(20):
        env.step(bank[i % 8])
    steps, i = 0, 0
    t0 = time.perf_counter()
    el = 0.0
    while el < seconds:
        env.step(bank[i % 8])
        steps += envs
        i += 1
        if (i & 15) == 0:
            el = time.perf_counter() - t0
    el = time.perf_counter() - t0
    env.close()
    return steps / el


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("specs", nargs="*", default=DEFAULT_SPECS)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"),
                    help="the build directory (powerzoo and python/powerzoo)")
    ap.add_argument("--envs", type=int, default=64)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    if a.envs < 1 or a.threads < 0 or not a.seconds > 0 or a.repeats < 1:
        ap.error("expected --envs >= 1, --threads >= 0, --seconds > 0 and --repeats >= 1")
    sys.path.insert(0, os.path.join(os.path.abspath(a.build), "python"))
    import numpy as np
    import powerzoo
    binary = os.path.join(os.path.abspath(a.build), "powerzoo")
    os.chdir(ROOT)  # spec files name their data relative to the repository root
    print(f"{'spec':<24} {'envs':>5} {'threads':>7} {'python steps/s':>15} "
          f"{'native steps/s':>15} {'ratio':>7} {'best ratio':>10}   (medians of {a.repeats})")
    for spec in a.specs:
        py, nat = [], []
        for _ in range(a.repeats):
            nat.append(native_rate(binary, spec, a.envs, a.threads, a.seconds))
            py.append(python_rate(powerzoo, np, spec, a.envs, a.threads, a.seconds))
        p, n = statistics.median(py), statistics.median(nat)
        best = max(py) / max(nat)
        print(f"{os.path.basename(spec):<24} {a.envs:>5} {a.threads:>7} {p:>15.0f} {n:>15.0f} "
              f"{100 * p / n:>6.1f}% {100 * best:>9.1f}%", flush=True)


if __name__ == "__main__":
    main()
