#!/usr/bin/env bash
# Builds Strata with a CMake preset (default: release) and runs its test suite with CTest.
# Usage: scripts/test.sh [release|debug|asan|tsan] [extra ctest arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
shift || true
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
ctest --preset "$preset" -j "$(nproc)" "$@"
