#!/usr/bin/env bash
# Builds and runs bench_memory_pipeline (data 4x the device capacity vs data that fits, same run)
# and writes bench/results/memory-pipeline.{md,json}. Takes about a minute.
# Usage: bench/run_memory_pipeline.sh [repetitions, default 7]   (STRATA_BENCH_BUILD: build dir)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${STRATA_BENCH_BUILD:-$root/build/bench}
if [[ ! -f $build/build.ninja ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_BUILD_TESTS=OFF
fi
cmake --build "$build" --target bench_memory_pipeline -j2
cd "$root"
"${build#"$root/"}/bin/bench_memory_pipeline" --repetitions "${1:-7}" --out bench/results/memory-pipeline
