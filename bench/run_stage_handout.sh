#!/usr/bin/env bash
# Builds and runs bench_stage_handout on 4 ranks (stage instances handed out on demand: rate
# against planning at once; makespan of an uneven DAG against an offline list schedule and static
# round-robin planning) and writes bench/results/stage-handout.{json,md,png}.
# Usage: bench/run_stage_handout.sh [repetitions, default 5]   (STRATA_BENCH_BUILD: build dir;
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
cmake --build "$build" --target bench_stage_handout -j2

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cmd=(mpirun -n 4 --oversubscribe "$build/bin/bench_stage_handout" --repetitions "$repetitions")
command_line="cd ${root} && ${cmd[*]//"$root/"/}"

source "$root/bench/quiet_machine.sh"
wait_quiet "$quiet_wait"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "running: ${command_line}" >&2
"${cmd[@]}" >"$results/.stage-raw.json"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
"${STRATA_BENCH_PYTHON:-/usr/bin/python3}" "$root/bench/stage_handout_report.py" --raw "$results/.stage-raw.json" \
  --prefix "$results/stage-handout" --command "$command_line" --load-before "$load_before" \
  --load-after "$load_after" --mpi "$(mpirun --version | head -1)"
rm -f "$results/.stage-raw.json"
echo "wrote $results/stage-handout.md, .json and .png" >&2
