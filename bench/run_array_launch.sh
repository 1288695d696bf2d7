#!/usr/bin/env bash
# Builds and runs bench_array_launch (issue 16) and writes bench/results/array-launch.{json,md,png}:
#   1. launch overhead of Arrays::launch vs the same kernel launched directly on the device, on
#      the CPU device and, where clinfo lists one, the OpenCL device (PoCL), and where nvidia-smi
#      lists a GPU, the CUDA device, one rank: 200 launches of a ~1 ms kernel in a row, and one
#      launch of a ~0.1 ms kernel from idle (the fixed cost of a batch);
#   2. planning time per superblock at 1, 100 and 10,000 superblocks per launch, on one rank and
#      (where mpirun exists) on two.
# Usage: bench/run_array_launch.sh [planning repetitions, default 7] [launch repetitions, default
# 21: a repetition of 200 launches takes under a second, and more of them steady the medians on a
# shared machine]   (settings: bench/common.sh)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/bench/common.sh"
repetitions=${1:-7}
launch_repetitions=${2:-21}
results=$root/bench/results
mkdir -p "$results"

bench_build bench_array_launch

bin=$build/bin/bench_array_launch
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
runs=("$bin --measure launch --backend cpu --repetitions $launch_repetitions --launches 200")
# CUDA before OpenCL: on a GPU machine NVIDIA's OpenCL may be the slow one.
notes=()
if nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  runs+=("$bin --measure launch --backend cuda --repetitions $launch_repetitions --launches 200")
  notes+=("CUDA: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1) (driver)")
fi
if command -v clinfo >/dev/null && clinfo -l 2>/dev/null | grep -q 'Device #'; then
  runs+=("$bin --measure launch --backend opencl --repetitions $launch_repetitions --launches 200")
  notes+=("OpenCL: $(clinfo -l 2>/dev/null | sed -n 's/^Platform #[0-9]*: //p' | head -1)")
else
  notes+=("OpenCL: no device listed by clinfo; skipped")
fi
opencl_note=$(IFS=';'; echo "${notes[*]}")
# A launch from idle: one short kernel, then synchronize(), per repetition — the fixed cost of a
# batch (hand-offs between threads from the call to the kernel and from its end to the caller).
for run in "${runs[@]}"; do
  runs+=("${run/--repetitions $launch_repetitions --launches 200/--repetitions $((2 * launch_repetitions + 1)) --launches 1 --target-ms 0.1}")
done
runs+=("$bin --measure planning --backend cpu --repetitions $repetitions")
if command -v mpirun >/dev/null; then
  runs+=("mpirun --allow-run-as-root --oversubscribe -n 2 $bin --measure planning --backend cpu --repetitions $repetitions")
  mpi=$(mpirun --version | head -1)
else
  mpi="mpirun not found: planning on 1 rank only"
fi

source "$root/bench/quiet_machine.sh"
wait_quiet "$quiet_wait"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
raw=$results/.array-launch-raw.jsonl
: >"$raw"
commands=()
for run in "${runs[@]}"; do
  command_line="cd ${root} && ${run//"$build/"/"${build#"$root/"}/"}"
  commands+=("$command_line")
  echo "running: ${command_line}" >&2
  # shellcheck disable=SC2086 # the run is a word list
  $run >>"$raw"
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
"$python" "$root/bench/array_launch_report.py" --raw "$raw" --prefix "$results/array-launch$tag" \
  --load-before "$load_before" --load-after "$load_after" --mpi "$mpi" \
  --opencl "$opencl_note" --script "bench/run_array_launch.sh $repetitions $launch_repetitions" \
  "${commands[@]/#/--command=}"
rm -f "$raw"
echo "wrote $results/array-launch$tag.md, .json and .png" >&2
