#!/usr/bin/python3
"""Runs one Python example at a small budget and checks what it printed (the ctests
python_example_ppo, python_example_lagrangian and python_example_ippo).

usage: ci_check.py ppo|lagrangian|ippo [example options ...]

  ppo         ppo_quickstart.py: the evaluation return and shaped return must beat zero_action's
              on the same episodes (both finite).
  lagrangian  lagrangian_dso.py: return, cost and λ finite, and λ moved from its initial value.
  ippo        ippo_typed.py: the loop completed (training and evaluation lines printed), team
              returns finite.

Exit 77 (ctest SKIP_RETURN_CODE) when PyTorch is missing and CI is not "true"; with CI=true a
missing PyTorch is a failure (exit 1), as every other failed check.
"""
import math
import os
import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
SCRIPTS = {"ppo": "ppo_quickstart.py", "lagrangian": "lagrangian_dso.py",
           "ippo": "ippo_typed.py"}
NUM = r"(-?[0-9.]+(?:e[-+]?\d+)?|nan|-?inf)"


def fail(msg, out=""):
    sys.exit(f"ci_check: FAILED: {msg}\n--- output ---\n{out}")


def check_ppo(out):
    m = re.search(rf"ppo return {NUM} \(shaped {NUM}\)\s+zero_action return {NUM} "
                  rf"\(shaped {NUM}\)", out)
    if not m:
        fail("no evaluation line 'eval on ...: ppo return ... zero_action return ...'", out)
    ppo, ppo_s, zero, zero_s = map(float, m.groups())
    if not all(map(math.isfinite, (ppo, ppo_s, zero, zero_s))):
        fail("non-finite evaluation returns", out)
    if not (ppo > zero and ppo_s > zero_s):
        fail(f"expected PPO to beat zero_action, found return {ppo} vs {zero}, shaped "
             f"{ppo_s} vs {zero_s}", out)
    print(f"ci_check: ppo return {ppo} > zero_action {zero} (margin {ppo - zero:.3f}); "
          f"shaped {ppo_s} > {zero_s}")


def check_lagrangian(out):
    m = re.search(rf"return {NUM}\s+\S+ {NUM}/episode\s+lambda {NUM} \(initial {NUM}\)", out)
    if not m:
        fail("no evaluation line 'eval on ...: return ... lambda ... (initial ...)'", out)
    ret, cost, lam, lam0 = map(float, m.groups())
    if not all(map(math.isfinite, (ret, cost, lam, lam0))):
        fail("non-finite return, cost or multiplier", out)
    if lam == lam0:
        fail(f"expected the multiplier to move by dual ascent, found it at its initial {lam0}",
             out)
    print(f"ci_check: lagrangian eval return {ret}, cost {cost}/episode, lambda {lam0} -> {lam}")


def check_ippo(out):
    steps = [float(x) for x in re.findall(rf"train team return\s+{NUM}", out)]
    m = re.search(rf"team return {NUM}\s+zero actions {NUM}", out)
    if not steps or not m:
        fail("no training or evaluation lines", out)
    vals = steps + [float(m.group(1)), float(m.group(2))]
    if not all(map(math.isfinite, vals)):
        fail("non-finite team returns", out)
    print(f"ci_check: ippo completed, eval team return {vals[-2]} (zero actions {vals[-1]})")


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in SCRIPTS:
        sys.exit(f"usage: ci_check.py {'|'.join(SCRIPTS)} [example options ...]")
    which, args = sys.argv[1], sys.argv[2:]
    try:
        import torch  # noqa: F401 (only whether it imports)
    except ImportError as e:
        if os.environ.get("CI") == "true":
            fail(f"PyTorch is missing under CI=true ({e}); bash scripts/install-deps.sh "
                 "installs python3-torch")
        print(f"SKIPPED: PyTorch is missing ({e}); bash scripts/install-deps.sh installs it")
        sys.exit(77)
    p = subprocess.run([sys.executable, str(HERE / SCRIPTS[which]), *args], capture_output=True,
                       text=True)
    out = p.stdout + p.stderr
    if p.returncode != 0:
        fail(f"{SCRIPTS[which]} exited {p.returncode}", out)
    print(p.stdout, end="")
    if which == "ppo":
        check_ppo(out)
    elif which == "lagrangian":
        check_lagrangian(out)
    else:
        check_ippo(out)


if __name__ == "__main__":
    main()
