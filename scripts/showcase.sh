#!/usr/bin/env bash
# From a fresh Debian 12 machine: installs dependencies, builds Strata, runs the showcase job.
# Usage: scripts/showcase.sh [arguments for `strata demo`...]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"
build/release/bin/strata demo "$@"
