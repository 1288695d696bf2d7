#!/usr/bin/env bash
# Builds and runs bench_plan_platform on 4 ranks (a reduction against MPI_Reduce; planning and
# executing kernel launches and box copies against plain tasks) and writes
# bench/results/plan-platform.{json,md}.
# Usage: bench/run_plan_platform.sh [repetitions, default 5]   (STRATA_BENCH_BUILD: build dir;
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
cmake --build "$build" --target bench_plan_platform -j2

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cmd=(mpirun -n 4 --oversubscribe "$build/bin/bench_plan_platform" --repetitions "$repetitions")
command_line="cd ${root} && ${cmd[*]//"$root/"/}"

source "$root/bench/quiet_machine.sh"
wait_quiet "$quiet_wait"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "running: ${command_line}" >&2
"${cmd[@]}" >"$results/.plan-raw.json"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
python3 "$root/bench/plan_platform_report.py" --raw "$results/.plan-raw.json" \
  --prefix "$results/plan-platform" --command "$command_line" --load-before "$load_before" \
  --load-after "$load_after" --mpi "$(mpirun --version | head -1)"
rm -f "$results/.plan-raw.json"
echo "wrote $results/plan-platform.md and $results/plan-platform.json" >&2
