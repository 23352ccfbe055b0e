#!/bin/sh
# Extra instructions per dispatched call: callgrind counts the instructions
# of N and 2N calls, through xrt and directly; the differences cancel start-up.
set -eu
bin=$1
count() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$1" "$2" 2>&1 |
          sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'; }
n=100000
x1=$(count xrt $n); x2=$(count xrt $((2 * n)))
d1=$(count direct $n); d2=$(count direct $((2 * n)))
awk -v x1="$x1" -v x2="$x2" -v d1="$d1" -v d2="$d2" -v n="$n" 'BEGIN {
    x = (x2 - x1) / n; d = (d2 - d1) / n
    printf "instructions per call: xrt_get_device %.1f, direct %.1f, extra %.1f (target <= 10)\n", x, d, x - d }'
