#!/bin/sh
# SPDX-License-Identifier: MIT
# One check of tests/lib.sh in a process of its own, so that make can run
# several at once (tests/check.mk):
#   sh tests/step.sh RESULT CHECK ARGS...
# runs `CHECK ARGS...` (cmocka, step, skip, suite_on_trace,
# program_on_trace), prints the lines it printed, and writes them to RESULT
# with a last line "counts P F S" (its passes, failures and skips) for
# tests/summary.sh. B is the build directory,
# LOG the directory of the checks' logs.
set -u
B=${B:-build}
LOG=${LOG:-$B/check/logs}
res=$1
shift
mkdir -p "$LOG" "$(dirname "$res")"
. tests/lib.sh
"$@" > "$res.tmp"
# where a failure is: cmocka's assertion lines (the log's tail may not reach
# them) and the log
if [ "$fail" -ne 0 ] && [ -f "${log:-}" ]; then
    grep -h '^\[  ERROR   \]\|^\[   LINE   \]' "$log" | head -8 | sed 's/^/        /'
    echo "        log: $log"
fi >> "$res.tmp"
echo "counts $pass $fail $skipped" >> "$res.tmp"
mv "$res.tmp" "$res"
sed '$d' "$res"
