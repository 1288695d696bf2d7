#!/usr/bin/env bash
# Runs lightning_kmeans on a capacity-limited device and writes bench/results/lightning-kmeans.
# {json,md,png}: (1) throughput against problem size from 1/4 to 4x the device's capacity (the
# shape of the lightning paper's Fig. 12), (2) throughput against chunk size at 1.25x capacity
# (Fig. 10), both against the in-capacity throughput of the same run; the report gives the widest
# range of chunk sizes that keeps 80 % and 90 % of the best chunk size's throughput, and (3) the
# small chunk sizes again with a kernel task per superblock (no batching). Each run is
# limited to STRATA_BENCH_RUN_LIMIT seconds (bench/common.sh); the report lists those cut.
# Usage: bench/run_lightning_kmeans.sh [repetitions, default 3] [capacity MiB, default 16]
#        [devices, default cpu]   (settings: bench/common.sh)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/bench/common.sh"
repetitions=${1:-3}
capacity_mib=${2:-16}
devices=${3:-cpu}
results=$root/bench/results
mkdir -p "$results"

bench_build lightning_kmeans
bin=$build/bin/lightning_kmeans

source "$root/bench/quiet_machine.sh"
wait_quiet "$quiet_wait"
raw=$results/.lightning-kmeans-raw.txt
: >"$raw"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
capacity=$((capacity_mib * 1024 * 1024))
host_mib=$((capacity_mib * 8 > 1024 ? capacity_mib * 8 : 1024))
points_at_capacity=$((capacity / 16))  # 4 f32 features a point
# The points, one a line: sweep, n, chunk.
points=()
# (1) Problem size against capacity, chunks of 1/16 capacity.
chunk=$((points_at_capacity / 16))
for quarters in 1 2 4 6 8 12 16; do
  points+=("size $((points_at_capacity * quarters / 4)) $chunk")
done
# (2) Chunk size at 1.25x capacity, 1/4 to 1/2048 of the capacity in steps of 2 (at least 256
# points): the ends of the flat range are found to a factor of 2. Largest first: a run cut at the
# time limit then costs the smallest chunks only.
n=$((points_at_capacity * 5 / 4))
for divisor in 4 8 16 32 64 128 256 512 1024 2048; do
  ((points_at_capacity / divisor >= 256)) || continue
  points+=("chunk $n $((points_at_capacity / divisor))")
done
# (3) The same chunk sizes below a sixteenth of the capacity with a kernel task per superblock
# (array_batch_bytes = 0; above that, batches hold one superblock anyway): what batching gains.
# STRATA_BENCH_UNBATCHED=0 leaves them out.
for divisor in 32 64 128 256 512 1024 2048; do
  ((${STRATA_BENCH_UNBATCHED:-1})) || break
  ((points_at_capacity / divisor >= 256)) || continue
  points+=("unbatched $n $((points_at_capacity / divisor))")
done
# Repetitions outside, points inside: load from other processes during the run then falls on
# every point alike instead of on a few.
for ((r = 0; r < repetitions; ++r)); do
  for point in "${points[@]}"; do
    read -r sweep n chunk <<<"$point"
    batching=()  # the default
    [[ $sweep == unbatched ]] && batching=(STRATA_ARRAY_BATCH_BYTES=0)
    started_at=$SECONDS
    # The host holds 4x the device's capacity and more (the default 1 GiB would spill the largest
    # sizes of a 256 MiB device to disk); a run over the time limit is recorded as such.
    # The CPU device in a space of its own, so that it stands in for a device of that capacity.
    line=$(env "${batching[@]}" STRATA_DEVICE_CAPACITY=${capacity_mib}MiB \
      STRATA_CPU_DEVICE_MEMORY=own STRATA_HOST_CAPACITY=${host_mib}MiB timeout --kill-after=10 "$run_limit" "$bin" --n "$n" \
      --chunk "$chunk" --devices "$devices" --no-check | grep '^time ') ||
      line="over the limit of $run_limit s"
    echo "$sweep $n $chunk $line" >>"$raw"
    # The timed part beside the whole process's seconds (start, data, compiles, end).
    echo "done: round $((r + 1)) $sweep n=$n chunk=$chunk: $line; $((SECONDS - started_at)) s the process" >&2
  done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
command_line="cd $root && bench/run_lightning_kmeans.sh $repetitions $capacity_mib $devices"
"$python" "$root/bench/lightning_kmeans_report.py" --raw "$raw" \
  --prefix "$results/lightning-kmeans$tag" --command "$command_line" --capacity "$capacity" \
  --devices "$devices" --load-before "$load_before" --load-after "$load_after"
rm -f "$raw"
echo "wrote $results/lightning-kmeans$tag.md, .json and .png" >&2
