#!/usr/bin/env bash
# Runs bench_lightning_overhead (issue 17): each lightning benchmark's kernel through
# Arrays::launch against the same kernel launched directly on the device layer, same run, data
# fitting, on the CPU device, the OpenCL device where clinfo lists one and the CUDA device where
# nvidia-smi lists a GPU; then the co-clustering application's iteration (five kernels, three
# reductions) the same way (bench_coclustering_overhead); writes
# bench/results/lightning-overhead.{json,md}.
# Each kernel is first sized so that a direct launch takes about a millisecond on the device
# (--kernel-ms 1: the goal is stated for a 1 ms kernel); the co-clustering matrix is 2000 x 1000,
# 16000 x 8000 on CUDA. Each program run is limited (STRATA_BENCH_RUN_LIMIT, bench/common.sh): a
# backend that fails or hangs is reported and left out.
# Usage: bench/run_lightning_overhead.sh [repetitions, default 7] [launches, default 50]
#        [backends, comma list; default cpu, opencl where clinfo lists a device, cuda where
#        nvidia-smi lists a GPU]   (settings: bench/common.sh)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/bench/common.sh"
repetitions=${1:-7}
launches=${2:-50}
results=$root/bench/results
mkdir -p "$results"
bench_build bench_lightning_overhead bench_coclustering_overhead

if [[ -n ${3:-} ]]; then
  IFS=, read -r -a backends <<<"$3"
else
  backends=(cpu)
  clinfo -l 2>/dev/null | grep -q 'Device #' && backends+=(opencl)
  nvidia-smi -L 2>/dev/null | grep -q '^GPU' && backends+=(cuda)
fi
source "$root/bench/quiet_machine.sh"
wait_quiet "$quiet_wait"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
raw=$results/.lightning-overhead-raw.jsonl
: >"$raw"
# run_limited PROGRAM BACKEND ARGS...: one program run, within the time limit, its JSON lines
# marked with the backend; a run that fails is reported and left out, the others still count.
run_limited() {
  local program=$1 backend=$2
  shift 2
  timeout --kill-after=10 "$run_limit" "$build/bin/$program" --backend "$backend" "$@" |
    sed "s/^{/{\"backend\": \"$backend\", /" >>"$raw" || echo "$program failed on $backend" >&2
}
for backend in "${backends[@]}"; do
  matrix=()
  [[ $backend == cuda ]] && matrix=(--rows 16000 --cols 8000)
  run_limited bench_coclustering_overhead "$backend" --repetitions "$repetitions" \
    --iterations 10 "${matrix[@]}"
  run_limited bench_lightning_overhead "$backend" --repetitions "$repetitions" \
    --launches "$launches" --kernel-ms 1
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
"$python" - "$raw" "$results/lightning-overhead$tag" \
  "cd $root && ${build_env}bench/run_lightning_overhead.sh $repetitions $launches ${3:-}" \
  "$load_before" "$load_after" <<'PY'
import datetime, json, os, platform, re, statistics, sys
raw, prefix, command, before, after = sys.argv[1:]
runs = [json.loads(line) for line in open(raw)]
date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
cpu = re.search(r"^model name\s*:\s*(.*)$", open("/proc/cpuinfo").read(), re.M)
machine = f"{platform.node()}, {cpu.group(1) if cpu else '?'}, {os.cpu_count()} logical CPUs"
json.dump({"date": date, "machine": machine, "command": command, "load_before": before,
           "load_after": after, "runs": runs}, open(prefix + ".json", "w"), indent=1)


def spread(values, digits):
    return (f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f} – "
            f"{max(values):.{digits}f})")


lines = ["# Lightning kernels: Arrays::launch against direct launches on the device layer", "",
         f"Date: {date}; machine: {machine}; load average before {before}, after {after}.", "",
         "```", command, "```", "",
         "Per benchmark, sized so that one direct launch takes about 1 ms on the device (the "
         "arrays' shapes are given), every array is one chunk on the device and one superblock covers the "
         "grid (data fitting the device, as the paper's 1.6 % against hand-written CUDA); the "
         "direct side compiles the same definition with the same placements and launches it on "
         "the device's compute queue. Each repetition launches a kernel L times in a row, then "
         "waits, and again 4L times; direct and distributed alternate (ABBA) after an untimed "
         "warm-up. End to end: distributed / direct − 1 for the batch of L. Steady state: the "
         "same for the time one more launch adds to a running batch ((t(4L) − t(L)) / 3L), which "
         "leaves out the batch's one-time start and end (first plan to first kernel, last "
         "completion to the host), given apart as the batch's fixed µs. Median (min – max). "
         "Goal (issue 17): ≤ 1 %.",
         "", "| backend | benchmark | device | arrays | direct µs/launch | Arrays::launch µs/launch | "
         "end-to-end overhead % | steady-state overhead % | batch fixed µs, direct / Arrays |",
         "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |"]
kernels = [r for r in runs if r.get("benchmark") != "coclustering"]
apps = [r for r in runs if r.get("benchmark") == "coclustering"]
for r in kernels:
    if "skipped" in r:
        lines.append(f"| {r['backend']} | – | skipped: {r['skipped']} | | | | | | |")
        continue
    lines.append(f"| {r['backend']} | {r['benchmark']} | {r['device']} | {' '.join(dict.fromkeys(r.get('arrays', '').split()))} | "
                 f"{spread(r['direct_us_per_launch'], 1)} | "
                 f"{spread(r['distributed_us_per_launch'], 1)} | "
                 f"{spread(r['overhead_percent'], 2)} | "
                 f"{spread(r['steady_overhead_percent'], 2)} | "
                 f"{statistics.median(r['direct_batch_fixed_us']):.0f} / "
                 f"{statistics.median(r['distributed_batch_fixed_us']):.0f} |")
lines += ["", "## Co-clustering: the application's iteration", "",
          "Five kernels a iteration, three of them reductions (CGC, apps/lightning/"
          "coclustering_main.cpp), on a planted matrix (k = 4, l = 3), one device, "
          "every array one chunk, every launch one superblock. The direct side is hand-written "
          "code on the device layer: the same compiled kernels, each reduction's target zeroed "
          "on the compute queue before its kernel. 10 iterations a repetition each way (ABBA); "
          "the labels of both sides must be equal.", "",
          "| backend | device | matrix | direct ms/iteration | Arrays::launch ms/iteration | overhead % | "
          "process CPU ms/iteration, direct / Arrays | labels equal | planned operations per "
          "launch |", "| --- | --- | --- | ---: | ---: | ---: | ---: | --- | ---: |"]
for r in apps:
    if "skipped" in r:
        lines.append(f"| {r['backend']} | skipped: {r['skipped']} | | | | | | | |")
        continue
    ms = lambda values: [v * 1e3 for v in values]
    lines.append(f"| {r['backend']} | {r['device']} | {r['rows']} x {r['cols']} | {spread(ms(r['direct_s_per_iteration']), 2)} | "
                 f"{spread(ms(r['distributed_s_per_iteration']), 2)} | "
                 f"{spread(r['overhead_percent'], 2)} | "
                 f"{statistics.median(ms(r['direct_cpu_s_per_iteration'])):.2f} / "
                 f"{statistics.median(ms(r['distributed_cpu_s_per_iteration'])):.2f} | "
                 f"{'yes' if r['labels_equal'] else 'NO'} | "
                 f"{r['operations_per_launch']:.2f} |")
open(prefix + ".md", "w").write("\n".join(lines) + "\n")
PY
rm -f "$raw"
echo "wrote $results/lightning-overhead$tag.md and .json" >&2
