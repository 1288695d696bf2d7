#!/usr/bin/env bash
# Builds and runs bench_group_by (count and sum by key: the CPU device's aggregate_by_key and its
# sort-based group_by against std::unordered_map and absl::flat_hash_map, the OpenCL device beside
# them) and writes bench/results/group-by.{md,json,png}. About two minutes on 2 cores.
# Usage: bench/run_group_by.sh [records, default 10000000] [repetitions, default 5]
#        (STRATA_BENCH_BUILD: build dir)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${STRATA_BENCH_BUILD:-$root/build/bench}
if [[ ! -f $build/build.ninja ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_BUILD_TESTS=OFF
fi
cmake --build "$build" --target bench_group_by -j2
cd "$root"
"${build#"$root/"}/bin/bench_group_by" --records "${1:-10000000}" --repetitions "${2:-5}" \
  --out bench/results/group-by
"${STRATA_BENCH_PYTHON:-/usr/bin/python3}" bench/group_by_plot.py bench/results/group-by
