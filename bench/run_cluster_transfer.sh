#!/usr/bin/env bash
# Builds and runs bench_cluster_transfer on two ranks (chunk transfers and control round trips
# against raw MPI ping-pongs in the same run) and writes bench/results/cluster-transfer.{json,md}.
# Usage: bench/run_cluster_transfer.sh [repetitions, default 7]   (STRATA_BENCH_BUILD: build dir;
# STRATA_BENCH_QUIET_WAIT: seconds to wait for a quiet machine, default 300)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${STRATA_BENCH_BUILD:-$root/build/bench}
quiet_wait=${STRATA_BENCH_QUIET_WAIT:-300}
# The benchmark reads STRATA_* variables as settings and rejects unknown ones: keep these two
# script settings out of its environment.
unset STRATA_BENCH_BUILD STRATA_BENCH_QUIET_WAIT
repetitions=${1:-7}
results=$root/bench/results
mkdir -p "$results"

if [[ ! -f $build/build.ninja ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_BUILD_TESTS=OFF
fi
cmake --build "$build" --target bench_cluster_transfer -j2

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cmd=(mpirun -n 2 --oversubscribe "$build/bin/bench_cluster_transfer" --repetitions "$repetitions")
command_line="cd ${root} && ${cmd[*]//"$root/"/}"

source "$root/bench/quiet_machine.sh"
wait_quiet "$quiet_wait"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "running: ${command_line}" >&2
read -r busy0 _ < <(cpu_busy)
# The benchmark's own CPU time (mpirun waits for its ranks, so theirs counts), to tell the CPU
# time other processes took during the run.
TIMEFORMAT='%R %U %S'
{ time "${cmd[@]}" >"$results/.cluster-raw.json" 2>&3; } 3>&2 2>"$results/.cluster-times"
read -r wall own_user own_sys <"$results/.cluster-times" && rm -f "$results/.cluster-times"
read -r busy1 _ < <(cpu_busy)
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

python3 "$root/bench/cluster_transfer_report.py" --raw "$results/.cluster-raw.json" \
  --prefix "$results/cluster-transfer" --command "$command_line" --load-before "$load_before" \
  --load-after "$load_after" --wall "$wall" --busy "$(echo "$busy1 - $busy0" | bc)" \
  --other "$(echo "$busy1 - $busy0 - $own_user - $own_sys" | bc)" --mpi "$(mpirun --version | head -1)"
rm -f "$results/.cluster-raw.json"
echo "wrote $results/cluster-transfer.md and $results/cluster-transfer.json" >&2
