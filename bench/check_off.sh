#!/bin/sh
# SPDX-License-Identifier: MIT
# The stream-order checker's cost while off, in instructions: callgrind's
# count per xrt_memcpy 4 KiB (bench/instructions.sh) of bench/memcpy against
# the same program built with the checker's test compiled out
# (memcpy_unchecked, bench/bench.mk); the target is a difference <= 2 (the
# compare of a byte and its branch).
# Usage: check_off.sh BUILD-DIR
set -eu
B=${1:-build}
per_call() { sh bench/instructions.sh "$1" "xrt_memcpy 4 KiB" - | sed -n 's/.*xrt_memcpy 4 KiB \([0-9.]*\), direct.*/\1/p'; }
with=$(per_call "$B/bench/memcpy")
without=$(per_call "$B/bench/memcpy_unchecked")
awk -v a="$with" -v b="$without" 'BEGIN {
    d = a - b
    printf "checker off: instructions per xrt_memcpy 4 KiB: %.1f, with the check compiled out %.1f: %+.1f (target <= 2) %s\n",
           a, b, d, d <= 2 ? "ok" : "MISSED"
    if (ENVIRON["BENCH_FIGURES"] != "")
        printf "checker off: extra instructions per xrt_memcpy (callgrind)\t%.1f\t<= 2\t%s\tcheck_off.sh\n", d,
               d <= 2 ? "ok" : "missed" >> ENVIRON["BENCH_FIGURES"] }'
