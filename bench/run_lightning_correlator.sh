#!/usr/bin/env bash
# Runs lightning_correlator on a capacity-limited device and writes bench/results/lightning-
# correlator.{json,md,png}: throughput against problem size from 1/4 to 4x the device's capacity
# (the shape of the lightning paper's Fig. 12), against the in-capacity throughput of the same run.
# Usage: bench/run_lightning_correlator.sh [repetitions, default 5] [capacity MiB, default 16]
#        [devices, default cpu]   (settings: bench/common.sh)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/bench/common.sh"
repetitions=${1:-5}
capacity_mib=${2:-16}
devices=${3:-cpu}
results=$root/bench/results
mkdir -p "$results"

bench_build lightning_correlator
bin=$build/bin/lightning_correlator

source "$root/bench/quiet_machine.sh"
wait_quiet "$quiet_wait"
raw=$results/.lightning-correlator-raw.txt
: >"$raw"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
capacity=$((capacity_mib * 1024 * 1024))
# The paper's 256 antennas x 128 samples: a channel's samples and 32,896 visibilities, 8 bytes
# each complex value.
channel_bytes=$((8 * (256 * 128 + 256 * 257 / 2)))
channels_at_capacity=$((capacity / channel_bytes))
chunk=$((channels_at_capacity / 8 > 0 ? channels_at_capacity / 8 : 1))
# Repetitions outside, sizes inside: load from other processes during the run then falls on
# every size alike instead of on a few.
for ((r = 0; r < repetitions; ++r)); do
  for quarters in 1 2 4 6 8 12 16; do
    n=$((channels_at_capacity * quarters / 4))
    # The CPU device in a space of its own, so that it stands in for a device of that capacity.
    line=$(STRATA_DEVICE_CAPACITY=${capacity_mib}MiB STRATA_CPU_DEVICE_MEMORY=own "$bin" \
      --n "$n" --chunk "$chunk" \
      --iterations 5 --devices "$devices" --no-check | grep '^time ')
    echo "$n $chunk $line" >>"$raw"
  done
  echo "done: round $((r + 1)) of $repetitions" >&2
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
command_line="cd $root && ${build_env}bench/run_lightning_correlator.sh $repetitions $capacity_mib $devices"
"$python" "$root/bench/lightning_correlator_report.py" --raw "$raw" \
  --prefix "$results/lightning-correlator$tag" --command "$command_line" --capacity "$capacity" \
  --channel-bytes "$channel_bytes" --devices "$devices" --load-before "$load_before" \
  --load-after "$load_after"
rm -f "$raw"
echo "wrote $results/lightning-correlator$tag.md, .json and .png" >&2
