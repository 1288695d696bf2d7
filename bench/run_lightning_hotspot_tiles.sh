#!/usr/bin/env bash
# Runs lightning_hotspot on one grid in tiles of 16 to 1,024 rows and writes
# bench/results/lightning-hotspot-tiles.{json,md,png}: throughput against tile size (the shape of
# the lightning paper's Fig. 10, for the stencil whose halos are exchanged at every iteration),
# against the best tile size of the same run, with the plan's operations and kernel tasks a
# launch. With STRATA_BENCH_COMPARE set to another build's lightning_hotspot, every point also
# runs with that program, alternated with this build's, and the report gives their ratio.
# Usage: bench/run_lightning_hotspot_tiles.sh [repetitions, default 5] [side, default 2048]
#        [devices, default cpu]   (settings: bench/common.sh)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
compare=${STRATA_BENCH_COMPARE:-}
unset STRATA_BENCH_COMPARE
source "$root/bench/common.sh"
repetitions=${1:-5}
side=${2:-2048}
devices=${3:-cpu}
iterations=20
results=$root/bench/results
mkdir -p "$results"

bench_build lightning_hotspot
programs=("this $build/bin/lightning_hotspot")
[[ -n $compare ]] && programs+=("compared $compare")

source "$root/bench/quiet_machine.sh"
wait_quiet "$quiet_wait"
raw=$results/.lightning-hotspot-tiles-raw.txt
: >"$raw"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
# Repetitions outside, tile sizes and programs inside (their order turned every repetition):
# load from other processes then falls on every point alike.
for ((r = 0; r < repetitions; ++r)); do
  for rows in 1024 512 256 128 64 32 16; do
    order=("${programs[@]}")
    ((r % 2 == 1)) && [[ ${#programs[@]} == 2 ]] && order=("${programs[1]}" "${programs[0]}")
    for entry in "${order[@]}"; do
      read -r which program <<<"$entry"
      output=$(timeout --kill-after=10 "$run_limit" "$program" --n "$side" \
        --iterations "$iterations" --chunk "$rows" --devices "$devices" --no-check) ||
        output="over the limit of $run_limit s or failed"
      time_line=$(grep '^time ' <<<"$output" || echo "$output" | tail -1)
      plan_line=$(grep '^plan ' <<<"$output" || true)
      echo "$which $rows $time_line | $plan_line" >>"$raw"
      echo "done: round $((r + 1)) $which, tiles of $rows rows: $time_line" >&2
    done
  done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
command_line="cd $root && ${compare:+STRATA_BENCH_COMPARE=$compare }${build_env}bench/run_lightning_hotspot_tiles.sh $repetitions $side $devices"
"$python" "$root/bench/lightning_hotspot_tiles_report.py" --raw "$raw" \
  --prefix "$results/lightning-hotspot-tiles$tag" --command "$command_line" --side "$side" \
  --iterations "$iterations" --devices "$devices" ${compare:+--compare "$compare"} \
  --load-before "$load_before" --load-after "$load_after"
rm -f "$raw"
echo "wrote $results/lightning-hotspot-tiles$tag.md, .json and .png" >&2
