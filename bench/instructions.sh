#!/bin/sh
# SPDX-License-Identifier: MIT
# Extra instructions per call: callgrind counts the instructions of N and 2N
# calls, through xrt and directly; the differences cancel start-up.
# Usage: instructions.sh BIN [LABEL [TARGET]]: BIN runs `BIN xrt N` and
# `BIN direct N` (dispatch.c and memcpy.c do); TARGET "-" for none.
set -eu
bin=$1
label=${2:-xrt_get_device}
target=${3:-10}
count() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$1" "$2" 2>&1 |
          sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'; }
n=100000
x1=$(count xrt $n); x2=$(count xrt $((2 * n)))
d1=$(count direct $n); d2=$(count direct $((2 * n)))
awk -v x1="$x1" -v x2="$x2" -v d1="$d1" -v d2="$d2" -v n="$n" -v label="$label" -v target="$target" 'BEGIN {
    x = (x2 - x1) / n; d = (d2 - d1) / n
    printf "instructions per call: %s %.1f, direct %.1f, extra %.1f", label, x, d, x - d
    if (target != "-") printf " (target <= %s)", target
    printf "\n"
    # the figure for bench/RESULTS.md (bench_target in bench.h, for a shell)
    if (target != "-" && ENVIRON["BENCH_FIGURES"] != "")
        printf "%s: extra instructions per call (callgrind)\t%.1f\t<= %s\t%s\tinstructions.sh %s\n", label, x - d, target,
               x - d <= target ? "ok" : "missed", label >> ENVIRON["BENCH_FIGURES"] }'
