#!/usr/bin/env bash
# End-to-end checks of `strata allpairs` as a user runs it.
# Usage: allpairs_cli_test.sh STRATA MODE APP ITEMS [NP]
#   recovers:  generate ITEMS items, run on NP processes (default 1): exit 0, truth recovered
#   bad_input: one file cut short: the run stops naming it (NP processes); with
#              --skip-bad-input the run completes and counts the skipped item
set -euo pipefail
strata=$1 mode=$2 app=$3 items=$4 np=${5:-1}
dir=$(mktemp -d "${TMPDIR:-/tmp}/strata-allpairs-cli-XXXXXX")
trap 'rm -rf "$dir"' EXIT
launcher=()
[[ $np -gt 1 ]] && launcher=("$strata" launch -n "$np" --)
export STRATA_KERNEL_CACHE_DIR=off

"$strata" allpairs generate "$app" "$dir" --items "$items"
case $mode in
  recovers)
    "${launcher[@]}" "$strata" allpairs run "$app" "$dir" --quiet --device-cache 64MiB \
      --host-cache "$((items / 2 + 2)) slots" | tee "$dir/out.txt"
    grep -q "the truth was recovered" "$dir/out.txt"
    ;;
  bad_input)
    victim=$(find "$dir" -type f ! -name 'truth*' | sort | sed -n 3p)
    truncate -s 100 "$victim"
    if "${launcher[@]}" "$strata" allpairs run "$app" "$dir" --quiet --device-cache 64MiB \
      >"$dir/out.txt" 2>&1; then
      echo "the run should have failed on $victim"
      exit 1
    fi
    cat "$dir/out.txt"
    grep -q "$(basename "$victim")" "$dir/out.txt" || { echo "the error does not name the file"; exit 1; }
    [[ ! -e $dir/results.bin ]] || { echo "a failed run left a results file"; exit 1; }
    rm -f "$dir/results.bin.journal"
    "${launcher[@]}" "$strata" allpairs run "$app" "$dir" --quiet --device-cache 64MiB \
      --skip-bad-input >"$dir/out.txt" 2>&1 || true
    cat "$dir/out.txt"
    grep -Eq "items skipped: [1-9]" "$dir/out.txt" || { echo "no skipped item reported"; exit 1; }
    [[ -e $dir/results.bin ]] || { echo "no results file"; exit 1; }
    ;;
  *)
    echo "unknown mode $mode"
    exit 2
    ;;
esac
