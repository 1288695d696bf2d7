#!/usr/bin/env bash
# Runs six lightning benchmarks (Black-Scholes, HotSpot, GEMM, SpMV, N-Body, MD5; GEMM in two
# distributions: blocks of rows, and tiles) on a
# capacity-limited device and writes bench/results/lightning-capacity.{json,md,png}: throughput
# against problem size from 1/4 to 4x the device's capacity (the shape of the lightning paper's
# Fig. 12), against the best in-capacity throughput of the same benchmark in the same run.
# (K-Means and the Correlator have their own sweeps: run_lightning_kmeans.sh and
# run_lightning_correlator.sh.)
# Usage: bench/run_lightning_capacity.sh [repetitions, default 3] [capacity MiB, default 16]
#        [devices, default cpu]   (settings: bench/common.sh)
# GEMM runs on a quarter of the capacity and N-Body on 1/64 of it: their work grows as n^3 and
# n^2 while their data grows as n^2 and n, and at the full capacity their sizes beyond it would
# take minutes a run on a 2-core machine. MD5 keeps no data on the device (a search reads a
# target and writes one index): its sizes are key counts relative to 131,072 keys, not to the
# capacity.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/bench/common.sh"
repetitions=${1:-3}
capacity_mib=${2:-16}
devices=${3:-cpu}
results=$root/bench/results
mkdir -p "$results"

benchmarks=(black_scholes hotspot gemm spmv nbody md5)
bench_build "${benchmarks[@]/#/lightning_}"

# The points, one a line: benchmark, size / capacity, capacity in bytes, bytes of device data,
# chunk, bytes of a chunk, then the program's arguments. The footprints, from each main's arrays:
#   black_scholes: S, X, T, R, V, call, put: 7 f32 an option (28 B).
#   hotspot: power, temp, out: 3 f32 a cell (12 B), 1024 columns, rows in tiles (a row: 12 KiB).
#   gemm: A, B, C: 12 n^2 B; B is read whole by every superblock, so it must fit the device
#     (4 n^2 <= capacity): beyond about 2.5x no launch fits, and the sweep says so.
#   gemm-tiles: the same with --distribution tiles: B in blocks of columns, C in tiles, each
#     superblock reading its rows of A and its columns of B, so every size fits.
#   spmv: ELL values (f32) and columns (i32), ceil(n/1000) entries a row, and x, y replicated:
#     n (8 ceil(n/1000) + 8) B.
#   nbody: pos, next (replicated) and vel: 3 x 4 f32 a body (48 B); pos and next must fit whole
#     (32 B a body), so beyond 1.5x no launch fits.
#   md5: a 4-byte result; the sizes are 131,072 keys x the factor.
points=$("$python" - "$capacity_mib" "$devices" <<'EOF'
import math
import sys

capacity = int(sys.argv[1]) * 2**20
devices = sys.argv[2]
common = f"--devices {devices} --no-check"
factors = [0.25, 0.5, 1, 2, 3, 4]


def whole(x, block):
    return max(block, int(x) // block * block)


for f in factors:
    n = int(capacity * f / 28)
    chunk = whole(capacity / 8 / 28, 256)
    print(f"black_scholes {f} {capacity} {28 * n} {chunk} {28 * chunk} --n {n} --chunk {chunk} "
          f"--iterations 40 {common}")
for f in factors:
    row = 12 * 1024
    rows = whole(capacity * f / row, 16)
    chunk = whole(capacity / 8 / row, 16)
    print(f"hotspot {f} {capacity} {row * rows} {chunk} {row * chunk} --rows {rows} --cols 1024 "
          f"--chunk {chunk} --iterations 40 {common}")
gemm_capacity = capacity // 4
n_at_capacity = math.sqrt(gemm_capacity / 12)
for f in [0.25, 0.5, 1, 2, 2.5, 3, 4]:
    n = whole(math.sqrt(gemm_capacity * f / 12), 16)
    chunk = whole(n_at_capacity / 8, 16)
    print(f"gemm {f} {gemm_capacity} {12 * n * n} {chunk} {12 * chunk * n} --n {n} "
          f"--chunk {chunk} --iterations 6 {common}")
for f in factors:
    n = whole(math.sqrt(gemm_capacity * f / 12), 16)
    chunk = whole(n_at_capacity / 8, 16)
    columns = 4 * chunk
    print(f"gemm-tiles {f} {gemm_capacity} {12 * n * n} {chunk} {4 * chunk * n} --n {n} "
          f"--chunk {chunk} --columns {columns} --distribution tiles --iterations 6 {common}")


def spmv_bytes(n):
    return n * (8 * ((n + 999) // 1000) + 8)


def spmv_rows(target):
    lo, hi = 1, 1 << 24
    while lo < hi:  # the largest n whose footprint is at most the target
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if spmv_bytes(mid) <= target else (lo, mid - 1)
    return lo


spmv_chunk = whole(spmv_rows(capacity) / 8, 256)
for f in factors:
    n = spmv_rows(capacity * f)
    per_row = 8 * ((n + 999) // 1000)
    print(f"spmv {f} {capacity} {spmv_bytes(n)} {spmv_chunk} {per_row * spmv_chunk} --n {n} "
          f"--chunk {spmv_chunk} --iterations 40 {common}")
nbody_capacity = capacity // 64
nbody_chunk = whole(nbody_capacity / 48 / 8, 64)
for f in [0.25, 0.5, 1, 1.4, 2, 3, 4]:
    n = whole(nbody_capacity * f / 48, 64)
    print(f"nbody {f} {nbody_capacity} {48 * n} {nbody_chunk} {16 * nbody_chunk} --n {n} "
          f"--chunk {nbody_chunk} --iterations 6 {common}")
keys = 131072
for f in factors:
    n = int(keys * f)
    print(f"md5 {f} {capacity} 4 {keys // 8} 0 --n {n} --chunk {keys // 8} --iterations 8 "
          f"{common}")
EOF
)

source "$root/bench/quiet_machine.sh"
wait_quiet "$quiet_wait"
raw=$results/.lightning-capacity-raw.txt
: >"$raw"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
# Repetitions outside, sizes inside: load from other processes during the run then falls on
# every size alike instead of on a few.
for ((r = 0; r < repetitions; ++r)); do
  while read -r name factor capacity data chunk chunk_bytes args; do
    # shellcheck disable=SC2086  # the arguments split on spaces
    # The CPU device in a space of its own, so that it stands in for a device of that capacity.
    output=$(STRATA_DEVICE_CAPACITY=$capacity STRATA_CPU_DEVICE_MEMORY=own \
      "$build/bin/lightning_${name%%-*}" $args 2>&1) || true
    line=$(grep '^time ' <<<"$output" || true)
    if [[ -z $line ]]; then  # no launch fitted the device (or the run failed): say why
      line="failed: $(grep -m1 -o 'out of memory.*does not fit its capacity' <<<"$output" \
        || tail -n1 <<<"$output")"
    fi
    echo "$name $factor $capacity $data $chunk $chunk_bytes $line" >>"$raw"
  done <<<"$points"
  echo "done: round $((r + 1)) of $repetitions" >&2
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
command_line="cd $root && ${build_env}bench/run_lightning_capacity.sh $repetitions $capacity_mib $devices"
"$python" "$root/bench/lightning_capacity_report.py" --raw "$raw" \
  --prefix "$results/lightning-capacity$tag" --command "$command_line" --devices "$devices" \
  --load-before "$load_before" --load-after "$load_after" --points "$points"
rm -f "$raw"
echo "wrote $results/lightning-capacity$tag.md, .json and .png" >&2
