#!/usr/bin/env bash
# Builds and runs bench_opencl_overhead (10 repetitions, about 2 minutes), keeps its JSON and writes
# the Markdown report bench/results/opencl-overhead.md.
# Usage: bench/run_opencl_overhead.sh   (STRATA_BENCH_BUILD=dir picks the build directory)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${STRATA_BENCH_BUILD:-$root/build/bench}
results=$root/bench/results
mkdir -p "$results"

if [[ ! -f $build/build.ninja ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_BUILD_TESTS=OFF
fi
cmake --build "$build" --target bench_opencl_overhead -j2

# Repetitions run in random order; inside each, every iteration runs the raw call and Strata's
# back to back, so the ratios compare like with like even while the machine's speed drifts.
cmd=("$build/bin/bench_opencl_overhead" --benchmark_repetitions=10
     --benchmark_format=json --benchmark_enable_random_interleaving=true --benchmark_min_time=1)
command_line="cd ${root} && ${cmd[*]#"$root/"}"

source "$root/bench/quiet_machine.sh"
wait_quiet 120
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "running: ${command_line}" >&2
read -r busy0 _ < <(cpu_busy)
wall0=$(date +%s.%N)
TIMEFORMAT='%U %S'
{ time "${cmd[@]}" >"$results/opencl-overhead.json" 2>&3; } 3>&2 2>"$results/.times"
wall=$(echo "$(date +%s.%N) - $wall0" | bc)
read -r busy1 _ < <(cpu_busy)
read -r own_user own_sys <"$results/.times" && rm -f "$results/.times"
other=$(echo "$busy1 - $busy0 - $own_user - $own_sys" | bc)
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

python3 "$root/bench/opencl_overhead_report.py" \
  --json "$results/opencl-overhead.json" --out "$results/opencl-overhead.md" \
  --command "$command_line" --load-before "$load_before" --load-after "$load_after" \
  --wall "$wall" --other-cpu "$other" \
  --compiler "$(grep -m1 '^CMAKE_CXX_COMPILER:' "$build/CMakeCache.txt" | cut -d= -f2)" \
  --build-type "$(grep -m1 '^CMAKE_BUILD_TYPE:' "$build/CMakeCache.txt" | cut -d= -f2)"
echo "wrote $results/opencl-overhead.md and $results/opencl-overhead.json" >&2
