#!/bin/bash
# End-to-end SLURM test (issue 5): brings up a single-node SLURM with scripts/slurm-localhost.sh,
# emits the job-array script of a 4-trial sweep of a tiny spec with `powerzoo sweep --emit slurm`,
# submits it with sbatch, waits (bounded) and checks that all four trial directories hold complete
# run.h5 files (last eval row at total_steps; checked with `powerzoo summarize`) and that the
# manifest says done for every trial.
#
# usage: tests/slurm_e2e.sh [PATH/TO/powerzoo]     (default: $POWERZOO or build/powerzoo)
# Needs root and either installed slurm-wlm + munge or apt-get (Debian 12). Exits 0 with
# "SKIPPED: <reason>" when it cannot run; 0 on success; 1 on failure. Timeout: $SLURM_E2E_TIMEOUT
# seconds (default 600) for the array to finish.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-${POWERZOO:-$ROOT/build/powerzoo}}
TIMEOUT=${SLURM_E2E_TIMEOUT:-600}
T0=$(date +%s)

skip() { echo "SKIPPED: $*"; exit 0; }
fail() { echo "FAILED: $*"; [ -n "${WORK:-}" ] && echo "(work directory kept: $WORK)"; exit 1; }

[ "$(id -u)" -eq 0 ] || skip "needs root to install and start SLURM (run as root in CI)"
if ! command -v sbatch >/dev/null && ! command -v apt-get >/dev/null; then
  skip "SLURM is not installed and there is no apt-get to install slurm-wlm/munge"
fi
[ -x "$BIN" ] || fail "powerzoo binary not found at $BIN (pass it as the first argument)"
BIN=$(readlink -f "$BIN")

"$ROOT/scripts/slurm-localhost.sh" || fail "scripts/slurm-localhost.sh could not bring up SLURM"
T_UP=$(date +%s)

WORK=$(mktemp -d /tmp/powerzoo-slurm-e2e.XXXXXX)
cat >"$WORK/tiny.toml" <<'EOF'
[experiment]
name = "slurm e2e"
seed = 0
out_dir = "runs"
[env]
case = "case5"
horizon = 12
reward_scale = 1e-4
[vec]
n_envs = 4
[ppo]
total_steps = 960
rollout_length = 12
n_minibatches = 2
hidden = [16, 16]
[reward]
penalty = { power_balance = 0.02 }
[eval]
every_steps = 480
n_episodes = 2
[output]
checkpoint_every_steps = 480
[sweep]
seed = [0, 1, 2, 3]
EOF
SWEEP="$WORK/sweep dir"  # a space on purpose: the emitted script must quote it
"$BIN" sweep "$WORK/tiny.toml" --emit slurm --jobs 4 --cpus 1 --time 00:10:00 --out "$SWEEP" \
  >"$WORK/sweep.sbatch" || fail "powerzoo sweep --emit slurm failed"
bash -n "$WORK/sweep.sbatch" || fail "emitted script has a syntax error"
grep -q -- '--array=0-3%4' "$WORK/sweep.sbatch" || fail "expected --array=0-3%4 in the script"

JOB=$(cd "$WORK" && sbatch --parsable "$WORK/sweep.sbatch") || fail "sbatch refused the script"
JOB=${JOB%%;*}
echo "submitted job array $JOB (4 tasks); waiting up to ${TIMEOUT}s"
while :; do
  left=$(squeue -h -j "$JOB" 2>/dev/null | wc -l)
  [ "$left" -eq 0 ] && break
  if [ $(( $(date +%s) - T_UP )) -ge "$TIMEOUT" ]; then
    squeue -j "$JOB"
    scancel "$JOB"
    fail "job array $JOB still running after ${TIMEOUT}s"
  fi
  sleep 1
done
T_DONE=$(date +%s)

for i in 0 1 2 3; do
  [ -f "$SWEEP/trial_$i/run.h5" ] || {
    cat "$SWEEP/logs/trial_$i.log" 2>/dev/null
    fail "trial $i has no run.h5"
  }
  [ -s "$SWEEP/logs/trial_$i.log" ] || fail "trial $i has no per-task log"
done
n_done=$(grep -c '"status": "done"' "$SWEEP/sweep.json")
[ "$n_done" -eq 4 ] || fail "sweep.json: expected 4 trials done, found $n_done"
"$BIN" summarize "$SWEEP" --metric return_mean --csv "$WORK/summary.csv" >"$WORK/summary.txt" ||
  fail "powerzoo summarize failed"
# One configuration, four seeds, every run ended at total_steps = 960.
row=$(sed -n 2p "$WORK/summary.csv")
case "$row" in
  *,ppo,4,"0 1 2 3",960,return_mean,*) ;;
  *) cat "$WORK/summary.txt"; fail "summary: expected 4 seeds finished at step 960, found: $row" ;;
esac
# Re-submitting is a no-op for finished trials (each task exits at once).
"$BIN" sweep "$WORK/tiny.toml" --out "$SWEEP" --index 2 | grep -q "already done" ||
  fail "re-running a finished trial did not skip it"

T_END=$(date +%s)
echo "PASSED: SLURM e2e (setup $((T_UP - T0)) s, array $((T_DONE - T_UP)) s, total $((T_END - T0)) s)"
rm -rf "$WORK"
exit 0
