#!/usr/bin/env bash
# The spliter paper's experiment (§6.2–6.3) on data sets: a histogram and 5 k-means iterations
# against blocks per core (1 to 48), with one task per block, a rechunk first and partitions
# (split), beside sequential C++ and Dask (threaded scheduler and a local distributed cluster)
# on the same points, in one run. Writes bench/results/dataset-spliter.{json,md,png}.
# Usage: bench/run_dataset_spliter.sh [points, default 2000000] [repetitions, default 5]
#        (STRATA_BENCH_BUILD: build dir; Dask from scripts/install-deps.sh --bench)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${STRATA_BENCH_BUILD:-$root/build/bench}
python=${STRATA_BENCH_PYTHON:-/usr/bin/python3}
points=${1:-2000000}
repetitions=${2:-5}
counts=1,2,4,8,16,32,48
if [[ ! -f $build/build.ninja ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_BUILD_TESTS=OFF
fi
cmake --build "$build" --target bench_dataset_spliter -j2
cd "$root"
out=bench/results/dataset-spliter
"${build#"$root/"}/bin/bench_dataset_spliter" --points "$points" --repetitions "$repetitions" \
  --blocks-per-core "$counts" --out "$out.strata.json"
"$python" bench/dataset_spliter_dask.py "$points" "$repetitions" "$counts" "$(nproc)" \
  2>/dev/null > "$out.dask.json"
cat "$out.strata.json" "$out.dask.json" > "$out.json"
rm "$out.strata.json" "$out.dask.json"
"$python" bench/dataset_spliter_report.py "$out" \
  "bench/run_dataset_spliter.sh $points $repetitions"
