#!/usr/bin/env bash
# Builds and runs bench_cuda_overhead (10 repetitions) on the first CUDA device, keeps its JSON
# and writes bench/results/cuda-overhead.md. Without a CUDA device it says why, writes nothing
# and exits 0.
# Usage: bench/run_cuda_overhead.sh
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${STRATA_BENCH_BUILD:-$root/build/bench}
results=$root/bench/results
mkdir -p "$results"

if [[ ! -f $build/build.ninja ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_BUILD_TESTS=OFF
fi
cmake --build "$build" --target bench_cuda_overhead -j"$(nproc)"

cmd=("$build/bin/bench_cuda_overhead" --benchmark_repetitions=10
     --benchmark_report_aggregates_only=true --benchmark_format=json
     --benchmark_enable_random_interleaving=true --benchmark_min_time=2)
command_line="cd ${root} && ${cmd[*]#"$root/"}"

json=$(mktemp)
trap 'rm -f "$json"' EXIT
echo "running: ${command_line}" >&2
"${cmd[@]}" >"$json"
if grep -q '^bench_cuda_overhead: no CUDA device' "$json"; then
  cat "$json" >&2
  echo "no results written" >&2
  exit 0
fi
cp "$json" "$results/cuda-overhead.json"
python3 "$root/bench/cuda_overhead_report.py" --json "$results/cuda-overhead.json" \
  --out "$results/cuda-overhead.md" --command "$command_line"
echo "wrote $results/cuda-overhead.md and $results/cuda-overhead.json" >&2
