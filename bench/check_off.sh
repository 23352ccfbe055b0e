#!/bin/sh
# SPDX-License-Identifier: MIT
# The stream-order checker's cost while off, in instructions: bench/memcpy's
# xrt_memcpy 4 KiB against the same program built with the checker's test
# compiled out (memcpy_unchecked, bench/bench.mk); the target is a
# difference <= 2 (the compare of a byte and its branch). The test is in the
# inline wrapper, so it is counted where the wrapper is inlined: callgrind's
# own (exclusive) instructions of the calling loop, sync_copies, per call
# (N and 2N calls: the difference cancels start-up). A whole copy's count
# would move by a few instructions from run to run (how long the copy's
# waits for the stream's worker spin), more than the test costs.
# Usage: check_off.sh BUILD-DIR
set -eu
B=${1:-build}
# own BIN N: the exclusive instructions of sync_copies in N calls
own() {
    out=$(mktemp)
    valgrind --tool=callgrind --callgrind-out-file="$out" "$1" xrt "$2" > /dev/null 2>&1
    callgrind_annotate --inclusive=no "$out" 2> /dev/null | awk '$0 !~ /=>/ && /[:.]sync_copies( |$)/ { gsub(",", "", $1); n += $1 } END { print n + 0 }'
    rm -f "$out"
}
per_call() { n=100000; echo "$(own "$1" $n) $(own "$1" $((2 * n))) $n" | awk '{ printf "%.1f", ($2 - $1) / $3 }'; }
with=$(per_call "$B/bench/memcpy")
without=$(per_call "$B/bench/memcpy_unchecked")
awk -v a="$with" -v b="$without" 'BEGIN {
    d = a - b
    printf "checker off: instructions per xrt_memcpy 4 KiB at the call: %.1f, with the check compiled out %.1f: %+.1f (target <= 2) %s\n",
           a, b, d, d <= 2 ? "ok" : "MISSED"
    if (ENVIRON["BENCH_FIGURES"] != "")
        printf "checker off: extra instructions per xrt_memcpy at the call (callgrind)\t%.1f\t<= 2\t%s\tcheck_off.sh\n", d,
               d <= 2 ? "ok" : "missed" >> ENVIRON["BENCH_FIGURES"] }'
