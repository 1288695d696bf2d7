#!/usr/bin/env bash
# Checks (or with --fix, applies) clang-format on every C++ file git tracks or would add (new
# files not yet added included).
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.cpp' '*.hpp' '*.h' '*.cu')
[ ${#files[@]} -gt 0 ] || exit 0
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${files[@]}"
else
  clang-format --dry-run -Werror "${files[@]}"
  echo "check-format: ${#files[@]} files formatted"
fi
