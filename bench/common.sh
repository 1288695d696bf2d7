# shellcheck shell=bash disable=SC2034  # (the variables are the sourcing script's)
# Sourced by the bench/run_*.sh scripts once $root is set: the settings they share, read from the
# environment and then removed from it (STRATA_* variables are the runtime's settings, and an
# unknown one is an error).
#   STRATA_BENCH_BUILD       the build directory (default build/bench, configured as needed)
#   STRATA_BENCH_PREBUILT=1  its bin/ already holds the programs: build nothing (a GPU machine
#                            running programs built on another, bench/run_gpu.sh)
#   STRATA_BENCH_QUIET_WAIT  seconds to wait for a quiet machine (default 300)
#   STRATA_BENCH_PYTHON      the python3 with numpy and matplotlib (default Debian's /usr/bin/python3;
#                            another python3 may come first on the PATH)
#   STRATA_BENCH_TAG         appended to the result files' names (NAME-TAG.md), so that a GPU
#                            machine's results stand beside this machine's
#   STRATA_BENCH_RUN_LIMIT   seconds one program run may take where a script limits its runs
#                            (default 300)
build=${STRATA_BENCH_BUILD:-$root/build/bench}
build_env=${STRATA_BENCH_BUILD:+STRATA_BENCH_BUILD=$STRATA_BENCH_BUILD }
prebuilt=${STRATA_BENCH_PREBUILT:-}
quiet_wait=${STRATA_BENCH_QUIET_WAIT:-300}
python=${STRATA_BENCH_PYTHON:-/usr/bin/python3}
tag=${STRATA_BENCH_TAG:+-$STRATA_BENCH_TAG}
run_limit=${STRATA_BENCH_RUN_LIMIT:-300}
unset STRATA_BENCH_BUILD STRATA_BENCH_PREBUILT STRATA_BENCH_QUIET_WAIT STRATA_BENCH_PYTHON \
  STRATA_BENCH_TAG STRATA_BENCH_RUN_LIMIT

# bench_build TARGET...: the programs in $build/bin, built (Release, no tests) unless prebuilt.
bench_build() {
  if [[ -n $prebuilt ]]; then
    local target
    for target in "$@"; do
      # (the CLI's target is strata_cli, its program strata)
      [[ -x $build/bin/$target || -x $build/bin/${target%_cli} ]] ||
        { echo "prebuilt: $build/bin/$target is missing" >&2; exit 2; }
    done
    return
  fi
  if [[ ! -f $build/build.ninja ]]; then
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_BUILD_TESTS=OFF
  fi
  cmake --build "$build" --target "$@" -j2
}
