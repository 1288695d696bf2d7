#!/usr/bin/env bash
# All-pairs benchmarks (issue 7), each run through `strata allpairs run --report-json`:
#  1. system efficiency against the rocket paper's §6.1 model, one process, for each application;
#  2. R (loads per item) and efficiency against the cache size (the shape of the paper's Fig. 9);
#  3. 1, 2 and 4 processes with and without the distributed cache (the shape of Fig. 12);
#  4. 1, 2 and 4 processes with and without cache-aware stealing (the paper's future work);
#  5. (section backends) each application on each backend, one process: pairs/s and efficiency.
# Writes bench/results/allpairs.{md,json} and allpairs-cache.png, allpairs-scaling.png (1-3),
# bench/results/allpairs-stealing.{md,json} (4), bench/results/allpairs-backends.{md,json} (5).
# Usage: bench/run_allpairs.sh [repetitions, default 3] [sections: all (default), stealing or
#        backends] [backends for section 5, comma list, default: cpu, opencl where clinfo lists a
#        device, cuda where nvidia-smi lists a GPU] [items per application, e.g.
#        camera=256,phylogeny=256 (default camera=96, phylogeny=32, microscopy=24): a GPU runs the
#        small sets in tens of milliseconds, where start and end weigh on the efficiency]
#        (settings: bench/common.sh)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/bench/common.sh"
repetitions=${1:-3}
sections=${2:-all}
[[ $sections =~ ^(all|stealing|backends)$ ]] || { echo "sections: all, stealing or backends" >&2; exit 2; }
if [[ -n ${3:-} ]]; then
  backends=$3
else
  backends=cpu
  clinfo -l 2>/dev/null | grep -q 'Device #' && backends+=,opencl
  nvidia-smi -L 2>/dev/null | grep -q '^GPU' && backends+=,cuda
fi
results=$root/bench/results
work=$(mktemp -d "${TMPDIR:-/tmp}/strata-allpairs-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$results"

bench_build strata_cli
strata=$build/bin/strata
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 STRATA_KERNEL_CACHE_DIR=off

source "$root/bench/quiet_machine.sh"
wait_quiet "$quiet_wait"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
read -r busy0 _ < <(cpu_busy)
start=$(date +%s)

runs=$work/runs.jsonl
# run NAME APP DATA NP [strata allpairs run options...]: one run, its report appended to $runs.
run() {
  local name=$1 app=$2 data=$3 np=$4
  shift 4
  local report=$work/report.json
  local launcher=()
  [[ $np -gt 1 ]] && launcher=("$strata" launch -n "$np" --)
  # Exit status 3: the run is complete but the generated truth was not recovered (recorded).
  local status=0
  "${launcher[@]}" "$strata" allpairs run "$app" "$data" --quiet --output "$work/$name.bin" \
    --report-json "$report" "$@" >"$work/$name.log" 2>&1 || status=$?
  if [[ $status != 0 && $status != 3 ]]; then
    echo "run $name failed:" >&2
    tail -20 "$work/$name.log" >&2
    exit 1
  fi
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); r["run"]=sys.argv[2]; r["np"]=int(sys.argv[3]); r["options"]=sys.argv[4]; r["truth_recovered"]=sys.argv[5]=="0"; print(json.dumps(r))' \
    "$report" "$name" "$np" "$*" "$status" >>"$runs"
  rm -f "$work/$name.bin"
}

declare -A items=([camera]=96 [phylogeny]=32 [microscopy]=24)
for setting in ${4//,/ }; do
  [[ $setting =~ ^(camera|phylogeny|microscopy)=[1-9][0-9]*$ ]] ||
    { echo "items: '$setting' is not APP=COUNT (camera, phylogeny or microscopy)" >&2; exit 2; }
  items[${setting%=*}]=${setting#*=}
done
for app in camera phylogeny microscopy; do
  "$strata" allpairs generate "$app" "$work/$app" --items "${items[$app]}" >/dev/null
done

# 1. Efficiency on one process, every item cached.
[[ $sections == all ]] && for ((r = 0; r < repetitions; ++r)); do
  for app in camera phylogeny microscopy; do
    run "efficiency-$app-$r" "$app" "$work/$app" 1
  done
done

# 2. Cache size (camera): S slots in the device cache, and the host cache at S slots too
#    (the host level holds every item the device holds; beyond S the item is loaded again).
[[ $sections == all ]] && for ((r = 0; r < repetitions; ++r)); do
  for slots in 4 8 16 32 64 96; do
    run "cache-$slots-$r" camera "$work/camera" 1 --device-cache "$slots slots" \
      --host-cache "$slots slots"
  done
done

# 3. Processes, with and without the distributed cache (camera, 16 host slots per process).
[[ $sections == all ]] && for ((r = 0; r < repetitions; ++r)); do
  for np in 1 2 4; do
    run "scaling-$np-dist-$r" camera "$work/camera" "$np" --host-cache "16 slots"
    run "scaling-$np-nodist-$r" camera "$work/camera" "$np" --host-cache "16 slots" \
      --no-distributed
  done
done

# 4. Processes, with and without cache-aware stealing (camera, 16 host slots per process: a thief
#    that takes a block of items it holds loads fewer). The runs alternate, so load drifts hit both.
[[ $sections != backends ]] && for ((r = 0; r < repetitions; ++r)); do
  for np in 1 2 4; do
    run "stealing-$np-aware-$r" camera "$work/camera" "$np" --host-cache "16 slots"
    run "stealing-$np-largest-$r" camera "$work/camera" "$np" --host-cache "16 slots" \
      --no-cache-aware-stealing
  done
done

# 5. Backends: each application on each backend's devices, one process, every item cached; the
#    backends alternate within a repetition.
devices_note=
if [[ $sections == backends ]]; then
  for ((r = 0; r < repetitions; ++r)); do
    for app in camera phylogeny microscopy; do
      for backend in ${backends//,/ }; do
        run "backend-$backend-$app-$r" "$app" "$work/$app" 1 --devices "$backend"
      done
    done
  done
  devices_note="backends: $backends"
  gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1 || true)
  [[ -n $gpu ]] && devices_note+="; GPU: $gpu (driver)"
  opencl=$(clinfo -l 2>/dev/null | sed -n 's/^ *`-- Device #0: //p' | head -1 || true)
  [[ -n $opencl ]] && devices_note+="; OpenCL device 0: $opencl"
fi

wall=$(($(date +%s) - start))
read -r busy1 _ < <(cpu_busy)
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
"$python" "$root/bench/allpairs_report.py" "$runs" "$results" "$load_before" "$load_after" \
  "$wall" "$(awk -v a="$busy0" -v b="$busy1" 'BEGIN{print b - a}')" "bench/run_allpairs.sh $*" \
  "${items[camera]}" "$tag" "$devices_note"
