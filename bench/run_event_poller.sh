#!/usr/bin/env bash
# Runs bench_event_poller (the CUDA backend's event poller on simulated streams: a host-dependent
# chain of short operations beside a queue of many; asking only each stream's oldest unfinished
# operation against asking every one, in the same run; then a burst of twenty 1 ms operations
# queued at once, how late each is seen; no GPU needed) and writes
# bench/results/event-poller.{json,md,png}.
# Usage: bench/run_event_poller.sh [repetitions, default 5] [windows, default 0,64,256,1024,4096]
#        (settings: bench/common.sh)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/bench/common.sh"
repetitions=${1:-5}
windows=${2:-0,64,256,1024,4096}
results=$root/bench/results
mkdir -p "$results"
bench_build bench_event_poller

source "$root/bench/quiet_machine.sh"
wait_quiet "$quiet_wait"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
raw=$results/.event-poller-raw.json
cmd=("$build/bin/bench_event_poller" --repetitions "$repetitions" --windows "$windows"
     --chain 5000 --period-ns 5000 --query-ns 300 --burst 20 --burst-period-ns 1000000)
echo "running: ${cmd[*]}" >&2
timeout --kill-after=10 "$run_limit" "${cmd[@]}" >"$raw"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
"$python" "$root/bench/event_poller_report.py" --json "$raw" --out "$results/event-poller$tag" \
  --command "cd $root && ${build_env}bench/run_event_poller.sh $repetitions $windows" \
  --load "$load_before" "$load_after"
rm -f "$raw"
