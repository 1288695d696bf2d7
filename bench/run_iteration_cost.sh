#!/usr/bin/env bash
# Builds and runs bench_iteration_cost on 1 and 4 ranks (the fixed cost of a host loop that
# plans a round and reads a small result each round, against a plain runtime task and MPI), with
# the CPU device in host memory and in a space of its own, and writes
# bench/results/iteration-cost.{json,md}.
# Usage: bench/run_iteration_cost.sh [repetitions, default 5]   (STRATA_BENCH_BUILD: build dir;
# STRATA_BENCH_QUIET_WAIT: seconds to wait for a quiet machine, default 300)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${STRATA_BENCH_BUILD:-$root/build/bench}
quiet_wait=${STRATA_BENCH_QUIET_WAIT:-300}
unset STRATA_BENCH_BUILD STRATA_BENCH_QUIET_WAIT
repetitions=${1:-5}
results=$root/bench/results
mkdir -p "$results"

if [[ ! -f $build/build.ninja ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_BUILD_TESTS=OFF
fi
cmake --build "$build" --target bench_iteration_cost -j2

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
one=("$build/bin/bench_iteration_cost" --repetitions "$repetitions")
four=(mpirun -n 4 --oversubscribe "$build/bin/bench_iteration_cost" --repetitions "$repetitions"
      --iterations 500)
command_line="cd ${root} && for memory in host own; do ${one[*]//"$root/"/} --cpu-device-memory \$memory; ${four[*]//"$root/"/} --cpu-device-memory \$memory; done"

source "$root/bench/quiet_machine.sh"
wait_quiet "$quiet_wait"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "running: ${command_line}" >&2
raw=()
for memory in host own; do
  "${one[@]}" --cpu-device-memory "$memory" >"$results/.iteration-raw-1-$memory.json"
  "${four[@]}" --cpu-device-memory "$memory" >"$results/.iteration-raw-4-$memory.json"
  raw+=("$results/.iteration-raw-1-$memory.json" "$results/.iteration-raw-4-$memory.json")
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
"${STRATA_BENCH_PYTHON:-/usr/bin/python3}" "$root/bench/iteration_cost_report.py" \
  --raw "${raw[@]}" \
  --prefix "$results/iteration-cost" --command "$command_line" --load-before "$load_before" \
  --load-after "$load_after" --mpi "$(mpirun --version | head -1)"
rm -f "$results"/.iteration-raw-*.json
echo "wrote $results/iteration-cost.md and .json" >&2
