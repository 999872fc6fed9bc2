#!/bin/bash
# End-to-end SLURM test (issue 5): brings up a single-node SLURM with scripts/slurm-localhost.sh,
# emits the job-array script of a 4-trial sweep of a tiny spec with `powerzoo sweep --emit slurm`,
# submits it with sbatch, waits (bounded) and checks that all four trial directories hold complete
# run.h5 files (last eval row at total_steps; checked with `powerzoo summarize`) and that the
# manifest says done for every trial. Then preemption: `scontrol requeue` of a running task and
# the time-limit signal (USR1) of an emitted --requeue script; both trials resume by themselves
# and end with the metrics of an uninterrupted run.
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
[learner]
total_steps = 960
rollout_length = 12

[ppo]
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
  *,run,4,"0 1 2 3",960,return_mean,*) ;;
  *) cat "$WORK/summary.txt"; fail "summary: expected 4 seeds finished at step 960, found: $row" ;;
esac
# Re-submitting is a no-op for finished trials (each task exits at once).
"$BIN" sweep "$WORK/tiny.toml" --out "$SWEEP" --index 2 | grep -q "already done" ||
  fail "re-running a finished trial did not skip it"

# --- Preemption: `scontrol requeue` of a running task, and the time-limit signal (USR1 to the
# batch shell) that makes a task checkpoint and requeue itself. Both must end with the metrics of
# an uninterrupted run of the same trial.
sed -e 's/^total_steps = 960/total_steps = 480000/' -e 's/^every_steps = 480/every_steps = 48000/' \
  -e 's/^checkpoint_every_steps = 480/checkpoint_every_steps = 48000/' \
  -e 's/^seed = \[0, 1, 2, 3\]/seed = [5, 6]/' "$WORK/tiny.toml" >"$WORK/long.toml"
PRE="$WORK/preempt"
"$BIN" sweep "$WORK/long.toml" --emit slurm --cpus 1 --time 00:10:00 --requeue --out "$PRE" \
  >"$WORK/preempt.sbatch" || fail "powerzoo sweep --emit slurm --requeue failed"
grep -q -- '--signal=B:USR1@120' "$WORK/preempt.sbatch" || fail "expected --signal=B:USR1@120"
grep -q -- '--requeue' "$WORK/preempt.sbatch" || fail "expected #SBATCH --requeue"
bash -n "$WORK/preempt.sbatch" || fail "emitted --requeue script has a syntax error"
PJOB=$(cd "$WORK" && sbatch --parsable "$WORK/preempt.sbatch") || fail "sbatch refused --requeue"
PJOB=${PJOB%%;*}
train_rows() { grep -c '^[0-9][0-9]*,[^,]*,[0-9]' "$PRE/trial_$1/progress.csv" 2>/dev/null || echo 0; }
wait_rows() {  # trial, rows
  local t0=$(date +%s)
  while [ "$(train_rows "$1")" -lt "$2" ]; do
    [ $(( $(date +%s) - t0 )) -ge "$TIMEOUT" ] && fail "trial $1 wrote no $2 train rows"
    sleep 0.2
  done
}
wait_rows 0 300
scontrol requeue "${PJOB}_0" || fail "scontrol requeue ${PJOB}_0 failed"
wait_rows 1 300
scancel --batch --signal=USR1 "${PJOB}_1" || fail "scancel --signal=USR1 ${PJOB}_1 failed"
t0=$(date +%s)
while [ "$(squeue -h -j "$PJOB" 2>/dev/null | wc -l)" -gt 0 ]; do
  # A requeued job waits for its begin time; release it at once.
  scontrol release "$PJOB" >/dev/null 2>&1 || true
  if [ $(( $(date +%s) - t0 )) -ge "$TIMEOUT" ]; then
    squeue -j "$PJOB"; scancel "$PJOB"; fail "preempted array $PJOB still running after ${TIMEOUT}s"
  fi
  sleep 1
done
for i in 0 1; do
  grep -q "resuming" "$PRE/logs/trial_$i.log" || {
    cat "$PRE/logs/trial_$i.log"; fail "trial $i was not resumed after its preemption"; }
  grep -q "interrupted by SIG" "$PRE/logs/trial_$i.log" || {
    cat "$PRE/logs/trial_$i.log"; fail "trial $i did not stop gracefully"; }
done
grep -q "requeueing" "$PRE/logs/trial_1.log" || fail "trial 1 did not requeue itself after USR1"
[ "$(grep -c '"status": "done"' "$PRE/sweep.json")" -eq 2 ] || {
  cat "$PRE/sweep.json"; fail "preempted trials not done"; }
# The same two trials uninterrupted, here.
"$BIN" sweep "$WORK/long.toml" --out "$WORK/uninterrupted" --jobs 1 --threads 1 >/dev/null ||
  fail "uninterrupted sweep failed"
/usr/bin/python3 - "$PRE" "$WORK/uninterrupted" <<'PY' || fail "preempted trials differ"
import sys, h5py
def rows(p):
    out = {}
    with h5py.File(p, "r") as f:
        f["metrics"].visititems(lambda n, o: out.__setitem__(n, o[()].tobytes())
                                if isinstance(o, h5py.Dataset) and "wall_time" not in n
                                and "throughput/" not in n else None)
        assert f.attrs["status"] == "finished", f.attrs["status"]
    return out
for i in (0, 1):
    a, b = rows("%s/trial_%d/run.h5" % (sys.argv[1], i)), rows("%s/trial_%d/run.h5" % (sys.argv[2], i))
    bad = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    if bad or not a:
        sys.exit("trial %d: %d metric columns differ from the uninterrupted run: %s" % (i, len(bad), bad[:5]))
print("preempted trials equal the uninterrupted ones (%d columns each)" % len(a))
PY

T_END=$(date +%s)
echo "PASSED: SLURM e2e (setup $((T_UP - T0)) s, array $((T_DONE - T_UP)) s, total $((T_END - T0)) s)"
rm -rf "$WORK"
exit 0
