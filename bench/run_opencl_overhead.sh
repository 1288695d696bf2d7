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

# CPU seconds all processes used so far, from /proc/stat.
cpu_busy() { awk -v hz="$(getconf CLK_TCK)" '/^cpu /{print ($2+$3+$4+$7+$8)/hz}' /proc/stat; }

# On 2 cores another busy process distorts the result: wait (up to 2 min) for 5 quiet seconds.
for ((waited = 0; waited < 120; waited += 5)); do
  b0=$(cpu_busy); sleep 5; b1=$(cpu_busy)
  awk -v d="$(echo "$b1 - $b0" | bc)" 'BEGIN{exit !(d < 0.5)}' && break
  echo "machine busy ($(echo "$b1 - $b0" | bc) CPU-s in 5 s), waiting" >&2
done
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "running: ${command_line}" >&2
busy0=$(cpu_busy)
wall0=$(date +%s.%N)
TIMEFORMAT='%U %S'
{ time "${cmd[@]}" >"$results/opencl-overhead.json" 2>&3; } 3>&2 2>"$results/.times"
wall=$(echo "$(date +%s.%N) - $wall0" | bc)
busy1=$(cpu_busy)
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
