#!/usr/bin/env bash
# Runs each libFuzzer harness of BUILD (make fuzz) for SECONDS seconds from its seed corpus
# (tests/fuzz/corpus/<name>, the bundled cases, the bad-input catalogue's files) and the corpus earlier runs grew
# (BUILD/fuzz/<name>/corpus). Prints this run's executions and the running total per harness
# (BUILD/fuzz/<name>/total_execs); exits 1 if any harness found a crash, hang, leak or
# sanitizer report (its input is in BUILD/fuzz/<name>/artifacts/, its log next to it).
# FUZZ_HARNESSES="matpower spec" runs a subset (two subsets can run side by side).
set -euo pipefail
build=$1
seconds=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
status=0
for name in ${FUZZ_HARNESSES:-matpower spec profile checkpoint}; do
  dir=$build/fuzz/$name
  mkdir -p "$dir/corpus" "$dir/artifacts"
  seeds=("$root/tests/fuzz/corpus/$name")
  case $name in
    matpower) seeds=("$root/data/cases" "$root/tests/bad_inputs/cases"); max_len=16384 ;;
    spec) seeds+=("$root/tests/bad_inputs/specs"); max_len=8192 ;;
    profile) seeds+=("$root/tests/bad_inputs/profiles"); max_len=16384 ;;
    checkpoint) max_len=1024 ;;
  esac
  log=$dir/last.log
  if ! "$build/fuzz_$name" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=3000 \
      -max_len="$max_len" -print_final_stats=1 -artifact_prefix="$dir/artifacts/" \
      "$dir/corpus" "${seeds[@]}" >"$log" 2>&1; then
    status=1
    # libFuzzer exits non-zero on SIGINT too; that is a stop by hand, not a finding.
    if grep -q 'run interrupted' "$log" && [ -z "$(ls -A "$dir/artifacts")" ]; then
      echo "fuzz_$name: interrupted by hand (no finding); see $log"
    else
      echo "fuzz_$name: FOUND A PROBLEM: see $log and $dir/artifacts/"
    fi
  fi
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  total=$(( $(cat "$dir/total_execs" 2>/dev/null || echo 0) + execs ))
  echo "$total" >"$dir/total_execs"
  corpus=$(find "$dir/corpus" -type f | wc -l)
  echo "fuzz_$name: $execs executions in ${seconds} s, $total in total; corpus $corpus inputs"
done
exit $status
