#!/usr/bin/env bash
# End-to-end checks of `strata allpairs` as a user runs it.
# Usage: allpairs_cli_test.sh STRATA MODE APP ITEMS [NP]
#   recovers:  generate ITEMS items, run on NP processes (default 1): exit 0, truth recovered;
#              the host cache comes from STRATA_ALLPAIRS_HOST_CACHE, --hops beats its variable
#   bad_input: one file cut short: the run stops naming it (NP processes); with
#              --skip-bad-input the run completes and counts the skipped item
#   outputs:   setting flags after the subcommand; the answer's files are written beside the
#              results and named in the report; without the truth file the run exits 0
#   bad_options: nonsense option values, given as flags or STRATA_ALLPAIRS_* variables, are
#              errors naming the setting, the flag or variable, and the range (camera: --crop);
#              --devices and --backends that disagree are an error
#   backends:  without --devices the run computes on the backends setting's devices (OpenCL's
#              where a device is found), and on the CPU when the setting is not given
#   real_photos: APP is camera, ITEMS a directory of real photos named *_BODY_NUMBER.JPG: the
#              groups written are the bodies
#   killed_rank: ITEMS items on 2 processes; rank 0 is held (SIGSTOP) once the journal has
#              results, rank 1 is killed: rank 0 names rank 1 as gone and says how many pairs
#              are done and that --resume continues; a run with --resume finishes the rest
set -euo pipefail
strata=$1 mode=$2 app=$3 items=$4 np=${5:-1}
dir=$(mktemp -d "${TMPDIR:-/tmp}/strata-allpairs-cli-XXXXXX")
trap 'rm -rf "$dir"' EXIT
launcher=()
[[ $np -gt 1 ]] && launcher=("$strata" launch -n "$np" --)
export STRATA_KERNEL_CACHE_DIR=off

# The files `run` writes beside DIR/results.bin for each application.
outputs_of() {
  case $1 in
    camera) echo results.groups.csv results.scores.csv results.scores.png ;;
    phylogeny)
      echo results.tree.nwk results.distances.phy
      if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then echo results.tree.png; fi
      ;;
    microscopy) echo results.fused.csv results.fused.png ;;
  esac
}

# Runs "$@", which must fail with a message naming $expect.
must_fail_naming() {
  local expect=$1
  shift
  if "$@" >"$dir/err.txt" 2>&1; then
    echo "should have failed: $*"
    exit 1
  fi
  cat "$dir/err.txt"
  grep -q -- "$expect" "$dir/err.txt" || { echo "the error does not name $expect"; exit 1; }
}

if [[ $mode == real_photos ]]; then
  "$strata" allpairs run camera "$items" --quiet --output "$dir/real.bin" | tee "$dir/out.txt"
  grep -q "no truth file" "$dir/out.txt"
  # photo,group -> body,group: each body one group, the bodies in different groups.
  pairs=$(tail -n +2 "$dir/real.groups.csv" | sed -E 's/^.*_([0-9]+)_[0-9]+\.JPG,/\1,/' | sort -u)
  echo "body,group: $pairs"
  [[ $(echo "$pairs" | cut -d, -f1 | sort -u | wc -l) -eq $(echo "$pairs" | wc -l) ]] ||
    { echo "a body is split over groups"; exit 1; }
  [[ $(echo "$pairs" | cut -d, -f2 | sort -u | wc -l) -eq $(echo "$pairs" | wc -l) ]] ||
    { echo "bodies share a group"; exit 1; }
  # The PCE (at zero shift: photos of one size) separates the bodies too: every same-body pair
  # scores above every pair of two bodies.
  tail -n +2 "$dir/real.scores.csv" | sed -E 's/^[^,]*_([0-9]+)_[0-9]+\.JPG,[^,]*_([0-9]+)_[0-9]+\.JPG,[^,]*,/\1 \2 /' |
    awk '{ if ($1 == $2) { if (!same || $3 < low) low = $3; same = 1 }
           else { if (!other || $3 > high) high = $3; other = 1 } }
         END { printf "PCE: same body >= %s, other bodies <= %s\n", low, high
               exit !(same && other && low > high) }' ||
    { echo "the PCE does not separate the bodies"; exit 1; }
  exit 0
fi

# The pid of the process of rank $1 of the run over $dir (Open MPI puts the rank in its
# environment).
pid_of_rank() {
  local pid
  for pid in $(pgrep -f "allpairs run $app $dir" || true); do
    if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1"; then
      echo "$pid"
      return
    fi
  done
}

if [[ $mode == killed_rank ]]; then
  "$strata" allpairs generate "$app" "$dir" --items "$items" >/dev/null
  journal=$dir/results.bin.journal
  # Each rank's stderr straight to a file: the launcher's forwarding may stop before it gets there.
  "$strata" launch -n 2 -- sh -c 'exec "$0" allpairs run "$1" "$2" --quiet --jobs 1 \
    2>"$2.rank$OMPI_COMM_WORLD_RANK.err"' "$strata" "$app" "$dir" >"$dir.launch.txt" 2>&1 &
  launch=$!
  trap 'kill "$launch" 2>/dev/null || true; rm -rf "$dir" "$dir".*' EXIT
  # Results in the journal (beyond its 12-byte header), and both ranks found.
  rank0='' rank1=''
  until [[ $(stat -c %s "$journal" 2>/dev/null || echo 0) -gt 12 && -n $rank0 && -n $rank1 ]]; do
    kill -0 "$launch" 2>/dev/null || { cat "$dir".*; echo "the run ended before it was interrupted"; exit 1; }
    sleep 0.05
    rank0=$(pid_of_rank 0) rank1=$(pid_of_rank 1)
  done
  # Held: the run cannot finish now (rank 0 keeps the journal).
  kill -STOP "$rank0" 2>/dev/null ||
    { sleep 1; cat "$dir".*; echo "rank 0 (pid $rank0) ended before it could be held"; exit 1; }
  [[ -e $journal && ! -e $dir/results.bin ]] ||
    { kill -CONT "$rank0"; echo "the run finished before it was interrupted; give it more items"; exit 1; }
  kill -KILL "$rank1"
  kill -CONT "$rank0"
  if wait "$launch"; then echo "the launch should have failed"; exit 1; fi
  cat "$dir.launch.txt" "$dir".rank*.err
  grep -Eq "strata: rank 1 \(pid $rank1 on .*\) is gone" "$dir.rank0.err" ||
    { echo "rank 0 does not name rank 1 (pid $rank1) as gone"; exit 1; }
  grep -Eq "[0-9]+ of [0-9]+ pairs are done.*--resume" "$dir.rank0.err" ||
    { echo "rank 0 does not say what is done and how to resume"; exit 1; }
  done_pairs=$(grep -Eo "[0-9]+ of [0-9]+ pairs are done" "$dir.rank0.err" | cut -d' ' -f1)
  [[ $done_pairs -gt 0 ]] || { echo "no pair reported done"; exit 1; }
  "$strata" launch -n 2 -- "$strata" allpairs run "$app" "$dir" --quiet --resume |
    tee "$dir/out.txt"
  grep -q "the truth was recovered" "$dir/out.txt"
  grep -Eq "resumed $done_pairs " "$dir/out.txt" ||
    { echo "the resumed run did not continue from the $done_pairs pairs reported"; exit 1; }
  exit 0
fi

if [[ $mode == bad_options ]]; then
  must_fail_naming "--items" "$strata" allpairs generate "$app" "$dir/none" --items 0
  grep -q "range" "$dir/err.txt" || { echo "no range given"; exit 1; }
  [[ ! -e $dir/none ]] || { echo "a refused generate wrote files"; exit 1; }
  "$strata" allpairs generate "$app" "$dir" --items "$items"
  for option in "--leaf 0" "--hops 0" "--jobs 0"; do
    must_fail_naming "${option% *}" "$strata" allpairs run "$app" "$dir" --quiet $option
    grep -q "range" "$dir/err.txt" || { echo "no range given"; exit 1; }
  done
  for cache in device host; do
    must_fail_naming "'allpairs_${cache}_cache' from --$cache-cache: '0 slots' is not at least 2" \
      "$strata" allpairs run "$app" "$dir" --quiet "--$cache-cache" "0 slots"
    must_fail_naming "'allpairs_${cache}_cache' from --$cache-cache: '0B' is not more than 0" \
      "$strata" allpairs run "$app" "$dir" --quiet "--$cache-cache" "0B"
  done
  # The settings' variables reach `run` too, named in the error; a flag beats the variable.
  must_fail_naming "'allpairs_leaf' from STRATA_ALLPAIRS_LEAF" \
    env STRATA_ALLPAIRS_LEAF=0 "$strata" allpairs run "$app" "$dir" --quiet
  must_fail_naming "'allpairs_host_cache' from STRATA_ALLPAIRS_HOST_CACHE: 'many'" \
    env STRATA_ALLPAIRS_HOST_CACHE=many "$strata" allpairs run "$app" "$dir" --quiet
  if [[ $app == camera ]]; then  # a crop is WxH, and no larger than the photos
    must_fail_naming "--crop '10'" "$strata" allpairs run "$app" "$dir" --quiet --crop 10
    must_fail_naming "smaller than --crop 4000x3000" \
      "$strata" allpairs run "$app" "$dir" --quiet --crop 4000x3000
  fi
  # The backends to compute on: --devices or the backends setting, not two different ones.
  must_fail_naming "--devices opencl and the backends setting cpu (--backends) disagree" \
    "$strata" allpairs run "$app" "$dir" --quiet --devices opencl --backends cpu
  [[ ! -e $dir/results.bin ]] || { echo "a refused run wrote results"; exit 1; }
  exit 0
fi

"$strata" allpairs generate "$app" "$dir" --items "$items"
case $mode in
  outputs)
    # Setting flags after the subcommand, as before it (the trace outside the data set: the
    # microscopy application would read it as a particle).
    trace=$dir.trace.json
    trap 'rm -rf "$dir" "$trace"' EXIT
    "$strata" allpairs run "$app" "$dir" --quiet --device-cache 64MiB --trace "$trace" \
      --cpu-threads 2 | tee "$dir/out.txt"
    grep -q "the truth was recovered" "$dir/out.txt"
    grep -q "allpairs_device_cache=64MiB (--device-cache)" "$dir/out.txt" ||
      { echo "the run does not report its device cache flag"; exit 1; }
    [[ -s $trace ]] || { echo "--trace after the subcommand wrote no trace"; exit 1; }
    for file in $(outputs_of "$app"); do
      [[ -s $dir/$file ]] || { echo "no $file"; exit 1; }
      grep -q "^output: $dir/$file " "$dir/out.txt" || { echo "the report does not name $file"; exit 1; }
    done
    # Without the truth the run succeeds and writes the same answer.
    rm -f "$dir"/truth.* "$dir"/results.*
    "$strata" allpairs run "$app" "$dir" --quiet --device-cache 64MiB | tee "$dir/out.txt"
    grep -q "no truth file" "$dir/out.txt" || { echo "no word on the missing truth"; exit 1; }
    for file in $(outputs_of "$app"); do
      [[ -s $dir/$file ]] || { echo "no $file without the truth"; exit 1; }
    done
    ;;
  backends)
    # Without --devices the backends setting chooses the devices (the CPU when it is not set):
    # PoCL's device where one is found, as a user with STRATA_BACKENDS=opencl expects.
    want=cpu
    if "$strata" info | grep -q "^  opencl:"; then want=opencl; fi
    STRATA_BACKENDS=$want "$strata" allpairs run "$app" "$dir" --quiet | tee "$dir/out.txt"
    grep -q "the truth was recovered" "$dir/out.txt"
    grep -Eq "^$want[^ ]* compute " "$dir/out.txt" || { echo "it did not compute on $want"; exit 1; }
    if [[ $want != cpu ]] && grep -q "^cpu compute " "$dir/out.txt"; then
      echo "it computed on the CPU device too"
      exit 1
    fi
    rm -f "$dir"/results.*
    "$strata" allpairs run "$app" "$dir" --quiet | tee "$dir/out.txt"
    grep -q "^cpu compute " "$dir/out.txt" || { echo "the default is not the CPU"; exit 1; }
    ;;
  recovers)
    # The host cache from the environment; hops from the environment overridden by the flag.
    STRATA_ALLPAIRS_HOST_CACHE="$((items / 2 + 2)) slots" STRATA_ALLPAIRS_HOPS=5 \
      "${launcher[@]}" "$strata" allpairs run "$app" "$dir" --quiet --device-cache 64MiB \
      --hops 2 | tee "$dir/out.txt"
    grep -q "the truth was recovered" "$dir/out.txt"
    grep -q "allpairs_host_cache=$((items / 2 + 2)) slots (STRATA_ALLPAIRS_HOST_CACHE)" \
      "$dir/out.txt" || { echo "the host cache from the environment is not reported"; exit 1; }
    grep -q "allpairs_hops=2 (--hops)" "$dir/out.txt" || { echo "--hops did not win"; exit 1; }
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
