#!/usr/bin/env bash
# From a fresh Debian 12 machine: installs dependencies, builds Strata, and runs the showcase job:
# common-source camera identification (the rocket paper's forensics application) over generated
# photos — every pair of photos compared through their sensor noise, with a progress bar, the
# run's report, and the check that the photos were grouped by the camera that took them.
# Usage: scripts/showcase.sh [number of photos, default 60] [extra `strata allpairs run` options...]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"
photos=${1:-60}
shift || true
data=$(mktemp -d "${TMPDIR:-/tmp}/strata-showcase-XXXXXX")
trap 'rm -rf "$data"' EXIT
build/release/bin/strata allpairs generate camera "$data" --items "$photos"
build/release/bin/strata allpairs run camera "$data" "$@"
