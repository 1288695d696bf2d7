#!/usr/bin/env bash
# Builds and runs bench_placement_devices (kernel launches on any device of the rank, CPU device +
# PoCL, under least-loaded, FCFS, PATS, PATS+DL and CPU-only, with exact, 50 % wrong and learned
# speedups, same run) and writes bench/results/placement-devices.{md,json,png}. About a minute.
# Usage: bench/run_placement_devices.sh [repetitions, default 7]   (STRATA_BENCH_BUILD: build dir)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${STRATA_BENCH_BUILD:-$root/build/bench}
if [[ ! -f $build/build.ninja ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_BUILD_TESTS=OFF
fi
cmake --build "$build" --target bench_placement_devices -j2
cd "$root"
"${build#"$root/"}/bin/bench_placement_devices" --repetitions "${1:-7}" \
  --out bench/results/placement-devices
"${STRATA_BENCH_PYTHON:-/usr/bin/python3}" bench/placement_devices_plot.py \
  bench/results/placement-devices
