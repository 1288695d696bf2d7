#!/usr/bin/env bash
# Weak scaling of the lightning benchmarks (the shape of the lightning paper's Fig. 15): each
# program at a problem size whose work grows with the number of processes p (one CPU device per
# process), run under `strata launch -n p`; records the run time and the plan-level counts of the
# timed part (launches, superblocks, box copies, planned operations, transfers and bytes between
# ranks), then bench/lightning_weak_scaling_report.py predicts larger runs from those counts.
# Every process's CPU device runs on one thread (STRATA_CPU_THREADS=1: a process is one core's
# worth of device), so on a 2-core machine p <= 2 gives meaningful times; larger p still gives
# exact counts. At p = 2 each benchmark also runs in one process on the p = 2 problem, which tells
# the kernels' change of speed with the size (caches, strides) from the cost of distributing it.
# Usage: bench/run_lightning_weak_scaling.sh [repetitions of p <= 2, default 3]
#        [largest p, default 16] [benchmarks, default all]
#        (STRATA_BENCH_BUILD: build dir; STRATA_BENCH_QUIET_WAIT: seconds to wait for a quiet
#        machine, default 300)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${STRATA_BENCH_BUILD:-$root/build/bench}
build_env=${STRATA_BENCH_BUILD:+STRATA_BENCH_BUILD=$STRATA_BENCH_BUILD }
quiet_wait=${STRATA_BENCH_QUIET_WAIT:-300}
unset STRATA_BENCH_BUILD STRATA_BENCH_QUIET_WAIT
repetitions=${1:-3}
largest=${2:-16}
benchmarks=${3:-"kmeans black_scholes md5 correlator hotspot gemm spmv nbody"}
results=$root/bench/results
mkdir -p "$results"

if [[ ! -f $build/build.ninja ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_BUILD_TESTS=OFF
fi
targets=(strata)
for b in $benchmarks; do targets+=("lightning_$b"); done
cmake --build "$build" --target "${targets[@]}" -j2

source "$root/bench/quiet_machine.sh"
wait_quiet "$quiet_wait"
raw=$results/.lightning-weak-scaling-raw.txt
: >"$raw"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

# The size at p processes: work (not memory) grows with p. Linear benchmarks scale n by p; those
# whose work is quadratic in their side (HotSpot's grid, SpMV's matrix of fixed density, N-Body's
# pairs) by sqrt(p); GEMM's cubic work by the cube root (rounded to a multiple of 32).
size_for() {  # benchmark, p
  awk -v b="$1" -v p="$2" 'BEGIN {
    if (b == "kmeans") print 200000 * p;
    else if (b == "black_scholes") print 1000000 * p;
    else if (b == "md5") print 262144 * p;
    else if (b == "correlator") print 16 * p;
    else if (b == "hotspot") print int(1024 * sqrt(p) + 0.5);
    else if (b == "spmv") print int(20000 * sqrt(p) + 0.5);
    else if (b == "nbody") print int(2048 * sqrt(p) + 0.5);
    else if (b == "gemm") print 32 * int(512 * p ^ (1 / 3) / 32 + 0.5);
  }'
}
# Chunk (or superblock) sizes fixed across p, so the number of chunks grows with the problem.
chunk_for() {
  case $1 in
  kmeans) echo 50000 ;; correlator) echo 4 ;; black_scholes) echo 250000 ;; md5) echo 65536 ;; hotspot) echo 256 ;;
  spmv) echo 5000 ;; nbody) echo 512 ;; gemm) echo 128 ;;
  esac
}
extra_for() {
  case $1 in md5) echo "--iterations 2" ;; *) echo "" ;; esac
}

for ((p = 1; p <= largest; p *= 2)); do
  reps=$repetitions
  ((p > 2)) && reps=1  # oversubscribed: counts only
  for b in $benchmarks; do
    n=$(size_for "$b" "$p")
    chunk=$(chunk_for "$b")
    for ((r = 0; r < reps; ++r)); do
      # shellcheck disable=SC2046
      out=$(STRATA_CPU_THREADS=1 "$build/bin/strata" launch -n "$p" -- "$build/bin/lightning_$b" --n "$n" \
        --chunk "$chunk" --devices cpu $(extra_for "$b") 2>&1) || {
        echo "$out" >&2
        echo "lightning_$b failed at p=$p" >&2
        exit 1
      }
      time_line=$(grep '^time ' <<<"$out")
      plan_line=$(grep '^plan (timed part)' <<<"$out")
      check_line=$(grep '^check: ' <<<"$out" | cut -c1-14)
      echo "$b|$p|$n|$chunk|$time_line|$plan_line|$check_line" >>"$raw"
    done
    # One process on the p = 2 problem: how the kernels' speed changes with the size alone
    # (caches, strides), apart from what distributing the problem costs.
    if ((p == 2)); then
      for ((r = 0; r < reps; ++r)); do
        # shellcheck disable=SC2046
        out=$(STRATA_CPU_THREADS=1 "$build/bin/strata" launch -n 1 -- "$build/bin/lightning_$b" \
          --n "$n" --chunk "$chunk" --devices cpu $(extra_for "$b") 2>&1) || {
          echo "$out" >&2
          echo "lightning_$b failed alone at the size of p=2" >&2
          exit 1
        }
        echo "$b|1@2|$n|$chunk|$(grep '^time ' <<<"$out")|$(grep '^plan (timed part)' <<<"$out")|$(grep '^check: ' <<<"$out" | cut -c1-14)" >>"$raw"
      done
    fi
    echo "done: $b p=$p n=$n" >&2
  done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
command_line="cd $root && ${build_env}bench/run_lightning_weak_scaling.sh $repetitions $largest"
/usr/bin/python3 "$root/bench/lightning_weak_scaling_report.py" --raw "$raw" \
  --prefix "$results/lightning-weak-scaling" --command "$command_line" \
  --load-before "$load_before" --load-after "$load_after" \
  --transfer-results "$results/cluster-transfer.json"
rm -f "$raw"
echo "wrote $results/lightning-weak-scaling.md, .json and .png" >&2
