#!/usr/bin/python3
"""Guards "no number moves": runs five reference trainings and compares their metrics bytewise.

Every dataset under /metrics/train and /metrics/eval of run.h5 (except wall_time and
throughput/*, which measure the machine) is hashed (dtype, shape, raw bytes). `--record` writes
the hashes to a JSON file; `--check` (the default) re-runs and compares against that file, listing
every dataset that differs. A refactor that changes any number fails here. The files in tests/data/
are named after the commit they were recorded at: numbers_afd5ce2.json before the architecture
rework (which left every number unchanged: it passes up to commit 3b5466a); numbers_1038aa7.json
after the xtensor learner, which moved them on purpose (other float summation order);
numbers_d2af29e.json after the TSO env's lazy line rows and unit-index tie rule, which moved
tso_ppo_short only (the dispatch LP's rounding and, before the tie rule, its vertex; the others
are unchanged); numbers_cc96c21.json after the lazy model dropped CLP's scaling (tso_ppo_short
only again: the same dispatch to 1e-12 MW, which training amplifies). numbers_f0280e7.json holds
the same code's numbers with OpenBLAS's Haswell (AVX2) kernels pinned: the earlier files were
recorded where OpenBLAS chose its AVX-512 kernels, whose sums round differently, so they failed
on every AVX2-only machine (AMD EPYC among them). Every run here now sets
OPENBLAS_CORETYPE=Haswell, which any x86-64 CPU with AVX2 runs (the learner needs AVX2 anyway),
so the check gives the same answer on every such machine. numbers_1776cab.json after the TSO
dispatch's soft line limits (tso_ppo_short only: the dispatch of steps where the committed units
cannot meet the ratings is now the least-overload OPF, not the merit order). numbers_509e4b3.json
after dso_ppo.toml's Gaussian started at σ = 1 (init_log_std = 0, as Rejax's PPO; dso_ppo only).
numbers_707b08d.json adds a SAC run (dcmg_sac, from the commit whose actor step backs each row
through its minimum critic alone, in 2 row blocks of 128: SAC's summation order; the other four
runs are unchanged). numbers_0fabc11.json after the TSO dispatch's own dual simplex
(grid::DispatchLp; tso_ppo_short only: the same optimum as CLP's to 1e-11 MW in the tests, rounded
differently, which training amplifies). numbers_6427c5c.json is the merge of the two (dcmg_sac
from numbers_707b08d.json, tso_ppo_short from numbers_0fabc11.json; the other runs are the same in
both). Those three name commits of a session whose history was lost before it landed; its work
landed as one recovered commit, a536a10. numbers_d88eaab.json after the learner's rational tanh
took fused multiply-adds for its Horner steps (every tanh network: quickstart, case5_safe,
tso_ppo_short, dso_ppo; dcmg_sac's ReLU networks are unchanged). numbers_e7b8a30.json after
dso_ppo.toml turned its observation normalizer off (normalize_obs = false; dso_ppo only). A change
that moves numbers on purpose records a new file and says why in its commit.

usage: scripts/check_numbers.py BINARY [--record FILE | --check FILE] [--only NAME ...]
Exit code 0 when all match, 1 when some differ, 2 on bad usage.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

from eval_layout import eval_splits, flat_name

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_FILE = os.path.join(ROOT, "tests", "data", "numbers_e7b8a30.json")
# OpenBLAS picks its kernels by CPU; one pinned kernel makes the numbers the same on any machine.
CORETYPE = "Haswell"

# name -> (spec, overrides): the runs the architecture issue names, at its step counts.
RUNS = {
    "quickstart": ("experiments/quickstart.toml", []),
    "dso_ppo": ("experiments/dso_ppo.toml", ["learner.total_steps=200000", "eval.every_steps=100000"]),
    "tso_ppo_short": ("experiments/tso_ppo_short.toml", ["learner.total_steps=100000"]),
    "case5_safe": ("experiments/case5_safe.toml", ["learner.total_steps=200000"]),
    # SAC: two train rows of the DC microgrid spec (1,024 gradient steps) and one evaluation.
    "dcmg_sac": ("experiments/dcmg_sac_short.toml",
                 ["learner.total_steps=36864", "eval.every_steps=36864"]),
}

def hash_metrics(run_file):
    out = {}
    with h5py.File(run_file, "r") as f:
        splits = eval_splits(f)
        for group in ("metrics/train", "metrics/eval"):
            if group not in f:
                continue

            def visit(name, obj, group=group):
                if not isinstance(obj, h5py.Dataset):
                    return
                if name.split("/")[-1] == "wall_time" or name.startswith("throughput/"):
                    return
                if group == "metrics/eval":  # files before and after the per-split layout alike
                    name = flat_name(splits, name)
                data = np.ascontiguousarray(obj[()])
                h = hashlib.sha256()
                h.update(str(data.dtype).encode() + str(data.shape).encode())
                h.update(data.tobytes())
                out[group + "/" + name] = h.hexdigest()

            f[group].visititems(visit)
    return out


def run_one(binary, name, workdir):
    spec, overrides = RUNS[name]
    out_dir = os.path.join(workdir, name)
    cmd = [binary, "run", os.path.join(ROOT, spec), *overrides, "--out", out_dir, "--quiet"]
    env = dict(os.environ, OPENBLAS_CORETYPE=CORETYPE)
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env)
    if res.returncode != 0:
        sys.stderr.write(f"{name}: {' '.join(cmd)} failed ({res.returncode}):\n{res.stderr}\n")
        sys.exit(1)
    return hash_metrics(os.path.join(out_dir, "run.h5"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("binary")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--record", metavar="FILE")
    mode.add_argument("--check", metavar="FILE", default=None)
    ap.add_argument("--only", nargs="*", choices=sorted(RUNS), default=None)
    args = ap.parse_args()
    names = args.only or list(RUNS)
    with tempfile.TemporaryDirectory(prefix="pz-numbers-") as tmp:
        got = {n: run_one(args.binary, n, tmp) for n in names}
    if args.record:
        os.makedirs(os.path.dirname(os.path.abspath(args.record)), exist_ok=True)
        with open(args.record, "w") as fh:
            json.dump(got, fh, indent=1, sort_keys=True)
            fh.write("\n")
        print(f"recorded {sum(len(v) for v in got.values())} datasets of {len(got)} runs")
        return 0
    ref_file = args.check or DEFAULT_FILE
    with open(ref_file) as fh:
        ref = json.load(fh)
    bad = 0
    for n in names:
        want, have = ref[n], got[n]
        for key in sorted(set(want) | set(have)):
            if want.get(key) != have.get(key):
                bad += 1
                state = "missing" if key not in have else "new" if key not in want else "differs"
                print(f"{n}: {key} {state}")
    total = sum(len(ref[n]) for n in names)
    print(f"{total - bad} passed, {bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
