#!/usr/bin/env bash
# Builds and runs bench_box_store (the HDF5 box store against raw HDF5 hyperslab I/O of the same
# tiles, and staged against synchronous writes in a compute + write pipeline) and writes
# bench/results/box-store.{md,json}. About half a minute on 2 cores.
# Usage: bench/run_box_store.sh [side, default 8192] [tile, default 1024] [repetitions, default 7]
#        (STRATA_BENCH_BUILD: build dir; files go to $TMPDIR or /tmp)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${STRATA_BENCH_BUILD:-$root/build/bench}
if [[ ! -f $build/build.ninja ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_BUILD_TESTS=OFF
fi
cmake --build "$build" --target bench_box_store -j2
cd "$root"
"${build#"$root/"}/bin/bench_box_store" --side "${1:-8192}" --tile "${2:-1024}" \
  --repetitions "${3:-7}" --dir "${TMPDIR:-/tmp}/strata-bench-box-store" --out bench/results/box-store
