#!/usr/bin/env bash
# Installs Strata and builds and runs an outside project (examples/consumer) against the installed
# tree, twice: from the release build (static libraries) and from a build with shared libraries.
# Run after scripts/test.sh (it installs build/release). Usage: scripts/test-install.sh
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Open MPI refuses root and more ranks than cores unless told (CI machines: root, 2 cores).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

# Builds the consumer against the installation in $1 and runs it, alone and on 2 processes.
consume() {
  local prefix=$1 build=$work/consumer-$(basename "$1")
  cmake -S examples/consumer -B "$build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
  cmake --build "$build"
  "$build/consumer"
  "$prefix/bin/strata" launch -n 2 -- "$build/consumer"
}

echo "== static libraries (build/release)"
cmake --install build/release --prefix "$work/static" >/dev/null
consume "$work/static"

echo "== shared libraries (build/shared)"
# This build checks linking and packaging, not speed: -O1 compiles a third faster than -O3. Only
# what is installed is built (the libraries and the CLI, not the lightning programs or examples).
cmake -S . -B build/shared -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" -DBUILD_SHARED_LIBS=ON -DSTRATA_BUILD_TESTS=OFF \
  -DSTRATA_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build/shared -j "$(nproc)" --target strata_installable
cmake --install build/shared --prefix "$work/shared" >/dev/null
consume "$work/shared"
# The consumer and the installed CLI use the installed shared libraries, not the build tree's.
# (ldd's output is kept first: grep -q would stop reading early and, under pipefail, ldd's SIGPIPE
# would fail the check.)
linked=$(ldd "$work/consumer-shared/consumer")
grep -q "$work/shared/lib/libstrata_runtime.so" <<<"$linked" ||
  { echo "test-install: the consumer does not use the installed libstrata_runtime.so:" >&2
    echo "$linked" >&2; exit 1; }
"$work/shared/bin/strata" info >/dev/null
echo "test-install: both installations work"
