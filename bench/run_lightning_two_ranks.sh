#!/usr/bin/env bash
# The eight lightning benchmarks on two processes (`strata launch -n 2`, one single-threaded CPU
# device each, the weak-scaling sizes of p = 2) against one process on the same problem, and
# with STRATA_BENCH_COMPARE_DIR set to another build's bin/ (its lightning_* programs), every run
# also with those, alternated; with STRATA_BENCH_COMPARE_ENV set to NAME=VALUE settings (e.g.
# "STRATA_CPU_DEVICE_MEMORY=own"), this build's programs under them are the compared ones:
# writes bench/results/lightning-two-ranks.{json,md}. Two ranks
# show what distributing costs where another rank waits on work (replicas, halos, reductions).
# Usage: bench/run_lightning_two_ranks.sh [repetitions, default 5] [benchmarks, default all]
#        (settings: bench/common.sh)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
compare=${STRATA_BENCH_COMPARE_DIR:-}
compare_env=${STRATA_BENCH_COMPARE_ENV:-}
unset STRATA_BENCH_COMPARE_DIR STRATA_BENCH_COMPARE_ENV
source "$root/bench/common.sh"
repetitions=${1:-5}
benchmarks=${2:-"kmeans black_scholes md5 correlator hotspot gemm spmv nbody"}
results=$root/bench/results
mkdir -p "$results"

targets=(strata_cli)
for b in $benchmarks; do targets+=("lightning_$b"); done
bench_build "${targets[@]}"

# The weak-scaling sizes at p = 2 (bench/run_lightning_weak_scaling.sh) and their chunks.
size_of() {
  case $1 in
  kmeans) echo 400000 ;; black_scholes) echo 2000000 ;; md5) echo 524288 ;; correlator) echo 32 ;;
  hotspot) echo 1448 ;; spmv) echo 28284 ;; nbody) echo 2896 ;; gemm) echo 640 ;;
  esac
}
chunk_of() {
  case $1 in
  kmeans) echo 50000 ;; correlator) echo 4 ;; black_scholes) echo 250000 ;; md5) echo 65536 ;;
  hotspot) echo 256 ;; spmv) echo 5000 ;; nbody) echo 512 ;; gemm) echo 128 ;;
  esac
}
extra_of() {
  case $1 in md5) echo "--iterations 2" ;; *) echo "" ;; esac
}

source "$root/bench/quiet_machine.sh"
wait_quiet "$quiet_wait"
raw=$results/.lightning-two-ranks-raw.txt
: >"$raw"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
builds=("this $build/bin")
[[ -n $compare ]] && builds+=("compared $compare")
[[ -n $compare_env ]] && builds+=("compared $build/bin $compare_env")
for ((r = 0; r < repetitions; ++r)); do
  for b in $benchmarks; do
    order=("${builds[@]}")
    ((r % 2 == 1)) && [[ ${#builds[@]} == 2 ]] && order=("${builds[1]}" "${builds[0]}")
    for entry in "${order[@]}"; do
      read -r which bin settings <<<"$entry"
      for p in 2 1; do
        # shellcheck disable=SC2046,SC2086  # the settings split on spaces
        out=$(env STRATA_CPU_THREADS=1 $settings timeout --kill-after=10 "$run_limit" "$build/bin/strata" \
          launch -n "$p" -- "$bin/lightning_$b" --n "$(size_of "$b")" --chunk "$(chunk_of "$b")" \
          --devices cpu --no-check $(extra_of "$b") 2>&1) || {
          echo "$out" >&2
          echo "lightning_$b ($which) failed on $p process(es)" >&2
          exit 1
        }
        echo "$b|$which|$p|$(sed -n 's/^time \([0-9.]*\) s.*/\1/p' <<<"$out")" >>"$raw"
      done
    done
  done
  echo "repetition $((r + 1)) of $repetitions done" >&2
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
"$python" "$root/bench/lightning_two_ranks_report.py" --raw "$raw" \
  --prefix "$results/lightning-two-ranks" \
  --command "cd $root && ${compare:+STRATA_BENCH_COMPARE_DIR=$compare }${compare_env:+STRATA_BENCH_COMPARE_ENV=\"$compare_env\" }${build_env}bench/run_lightning_two_ranks.sh $repetitions${2:+ \"$2\"}" \
  --load-before "$load_before" --load-after "$load_after" \
  ${compare_env:+--compared "this build with $compare_env"}
rm -f "$raw"
echo "wrote $results/lightning-two-ranks.md and .json" >&2
