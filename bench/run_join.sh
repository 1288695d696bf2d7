#!/usr/bin/env bash
# Builds and runs bench_join (the CPU device's hash_join of 10^7 probe keys against 10^6 build
# keys, against std::unordered_multimap on one thread, the OpenCL device beside them) and writes
# bench/results/join.{md,json}.
# Usage: bench/run_join.sh [probe keys, default 10000000] [build keys, default 1000000]
#        [repetitions, default 5]   (STRATA_BENCH_BUILD: build dir)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${STRATA_BENCH_BUILD:-$root/build/bench}
if [[ ! -f $build/build.ninja ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_BUILD_TESTS=OFF
fi
cmake --build "$build" --target bench_join -j2
cd "$root"
"${build#"$root/"}/bin/bench_join" --probe "${1:-10000000}" --build "${2:-1000000}" \
  --repetitions "${3:-5}" --out bench/results/join
