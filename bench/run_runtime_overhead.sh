#!/usr/bin/env bash
# Builds and runs bench_runtime_overhead (10 repetitions), keeps its JSON and writes the Markdown report.
# Usage: bench/run_runtime_overhead.sh   (STARPU_SCHED=... forces one StarPU scheduler for all cases;
# STRATA_BENCH_QUIET_WAIT: seconds to wait for a quiet machine before each attempt, default 600;
# STRATA_BENCH_ATTEMPTS: runs at most, default 3)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${STRATA_BENCH_BUILD:-$root/build/bench}
results=$root/bench/results
mkdir -p "$results"

if [[ ! -f $build/build.ninja ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_BUILD_TESTS=OFF
fi
cmake --build "$build" --target bench_runtime_overhead -j2

# The benchmark sets STARPU_NCPU=2 etc. itself and picks StarPU's fastest scheduler per case;
# STARPU_SCHED, if set, overrides that for every case.
# Repetitions run in random order, so a drift in the machine's speed hits all systems alike;
# with interleaving each repetition gets min_time / repetitions, so 2 s gives 0.2 s each.
cmd=("$build/bin/bench_runtime_overhead" --benchmark_repetitions=10
     --benchmark_report_aggregates_only=true --benchmark_format=json
     --benchmark_enable_random_interleaving=true --benchmark_min_time=2)
command_line="cd ${root} && ${STARPU_SCHED:+STARPU_SCHED=$STARPU_SCHED }${cmd[*]#"$root/"}"

source "$root/bench/quiet_machine.sh"
# This run's own CPU time, in a file of its own (other bench scripts may run at the same time).
times=$(mktemp)
trap 'rm -f "$times"' EXIT
# Wait (up to 10 min) for 5 quiet seconds, run, and run again (up to 3 attempts) if other
# processes used over 5 % of one core meanwhile. The report records the load either way.
attempts=${STRATA_BENCH_ATTEMPTS:-3}
quiet_wait=${STRATA_BENCH_QUIET_WAIT:-600}
for ((attempt = 1; attempt <= attempts; attempt++)); do
  wait_quiet "$quiet_wait"
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  echo "attempt ${attempt}: ${command_line}  (load average before: ${load_before})" >&2
  read -r busy0 steal0 < <(cpu_busy)
  wall0=$(date +%s.%N)
  TIMEFORMAT='%U %S'
  { time "${cmd[@]}" >"$results/runtime-overhead.json" 2>&3; } 3>&2 2>"$times"
  wall=$(echo "$(date +%s.%N) - $wall0" | bc)
  read -r busy1 steal1 < <(cpu_busy)
  read -r own_user own_sys <"$times"
  other=$(echo "$busy1 - $busy0 - $own_user - $own_sys" | bc)
  steal=$(echo "$steal1 - $steal0" | bc)
  load_after=$(cut -d' ' -f1-3 /proc/loadavg)
  awk -v o="$other" -v w="$wall" 'BEGIN{exit !(o <= 0.05 * w)}' && break
  echo "attempt ${attempt} disturbed: other processes used ${other} CPU-s in ${wall} s" >&2
done
attempt=$((attempt > attempts ? attempts : attempt))

python3 "$root/bench/runtime_overhead_report.py" \
  --json "$results/runtime-overhead.json" --out "$results/runtime-overhead.md" \
  --command "$command_line" --load-before "$load_before" --load-after "$load_after" \
  --wall "$wall" --other-cpu "$other" --steal "$steal" --attempt "$attempt" --attempts "$attempts" \
  --compiler "$(grep -m1 '^CMAKE_CXX_COMPILER:' "$build/CMakeCache.txt" | cut -d= -f2)" \
  --build-type "$(grep -m1 '^CMAKE_BUILD_TYPE:' "$build/CMakeCache.txt" | cut -d= -f2)" \
  --source-root "$root"
echo "wrote $results/runtime-overhead.md and $results/runtime-overhead.json" >&2
