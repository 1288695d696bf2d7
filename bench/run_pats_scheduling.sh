#!/usr/bin/env bash
# Builds and runs bench_pats_scheduling (makespan of a mixed CPU/device workload under
# least-loaded push, FCFS pull and PATS, same run) and writes bench/results/pats-scheduling.{md,json}.
# Takes about half a minute.
# Usage: bench/run_pats_scheduling.sh [repetitions, default 7]   (STRATA_BENCH_BUILD: build dir)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${STRATA_BENCH_BUILD:-$root/build/bench}
if [[ ! -f $build/build.ninja ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_BUILD_TESTS=OFF
fi
cmake --build "$build" --target bench_pats_scheduling -j2
cd "$root"
"${build#"$root/"}/bin/bench_pats_scheduling" --repetitions "${1:-7}" --out bench/results/pats-scheduling
