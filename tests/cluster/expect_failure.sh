#!/usr/bin/env bash
# expect_failure.sh PATTERN COMMAND...: runs COMMAND, which must exit non-zero and print a line
# matching PATTERN (an extended regex). Prints how long it took.
set -uo pipefail
pattern=$1
shift
start=$(date +%s%N)
output=$("$@" 2>&1)
status=$?
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
echo "$output"
echo "expect_failure: exit status $status after ${elapsed_ms} ms"
if [ "$status" -eq 0 ]; then
  echo "expect_failure: FAILED: the command succeeded but should have failed"
  exit 1
fi
if ! grep -Eq "$pattern" <<<"$output"; then
  echo "expect_failure: FAILED: no line matches: $pattern"
  exit 1
fi
echo "expect_failure: ok"
