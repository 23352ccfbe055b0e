#!/bin/sh
# SPDX-License-Identifier: MIT
# The summary of checks run one by one by tests/step.sh:
#   sh tests/summary.sh RESULT...
# adds up their counts, names again each check that failed with the end of
# its log (so that a log that is gone, as on a CI machine, still says why), and
# ends with "N passed, N failed, N skipped", as tests/run.sh. A RESULT that
# is not there is a failure: its check did not run to the end. The exit
# status is 1 when anything failed.
set -u
found=
lost=
for r; do
    if [ -f "$r" ]; then found="$found $r"; else lost="$lost $r"; fi
done
# shellcheck disable=SC2086 # file names without blanks
set -- $(awk '/^counts [0-9]+ [0-9]+ [0-9]+$/ { p += $2; f += $3; s += $4 } END { print p + 0, f + 0, s + 0 }' \
         /dev/null $found) $lost
pass=$1 fail=$(($2 + $# - 3)) skipped=$3
if [ "$fail" -ne 0 ]; then
    echo "== failed"
    # shellcheck disable=SC2086
    [ -z "$found" ] || awk '/^  FAIL  / { on = 1; print; next } on && /^        / || /^        (log: |\[  ERROR|\[   LINE)/ { print; next }
                                  { on = 0 }' $found
    for r in $lost; do echo "  FAIL  no result: $r"; done
fi
echo "$pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ]
