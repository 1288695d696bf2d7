#!/usr/bin/env bash
# Builds and runs bench_primitives (the CPU device's radix sort against std::sort and oneTBB,
# keys with values, the scan against memcpy, the OpenCL device beside them) and writes
# bench/results/primitives.{md,json,png}. About four minutes on 2 cores.
# Usage: bench/run_primitives.sh [max keys, default 100000000] [repetitions, default 5]
#        (STRATA_BENCH_BUILD: build dir)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${STRATA_BENCH_BUILD:-$root/build/bench}
if [[ ! -f $build/build.ninja ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_BUILD_TESTS=OFF
fi
cmake --build "$build" --target bench_primitives -j2
cd "$root"
"${build#"$root/"}/bin/bench_primitives" --max-keys "${1:-100000000}" --repetitions "${2:-5}" \
  --out bench/results/primitives
"${STRATA_BENCH_PYTHON:-/usr/bin/python3}" bench/primitives_plot.py bench/results/primitives
