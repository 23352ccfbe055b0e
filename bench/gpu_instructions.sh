#!/bin/sh
# SPDX-License-Identifier: MIT
# Instructions that xrt adds to each GPU call, counted by callgrind on the
# stub runtime (bench/stub/cudart_stub.c, whose calls do nothing): each row
# of gpu_overhead runs N and 2N times, directly and through xrt; the
# differences cancel start-up. Unlike times, the counts do not move with the
# machine's load. Extra runtime calls that xrt makes count only the stub's
# few instructions. The kernel rows need the stub's driver (libcuda.so.1 in
# STUB_DIR); a row that cannot run once is listed as skipped.
# Usage: gpu_instructions.sh GPU_OVERHEAD STUB_DIR
set -eu
bin=$1
stub=$2
n=100
count() {
    LD_LIBRARY_PATH=$stub valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" --count "$1" "$2" "$3" 2>&1 |
        sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
}
echo "instructions per call on the stub runtime (callgrind; $n and $((2 * n)) iterations)"
printf "%-42s %8s %8s %8s\n" "call" "raw" "xrt" "xrt-raw"
"$bin" --rows | while read -r k name; do
    if ! LD_LIBRARY_PATH=$stub "$bin" --count "$k" xrt 1 > /dev/null 2>&1; then
        printf "%-42s skipped: it does not run on the stub\n" "$name"
        continue
    fi
    r1=$(count "$k" raw $n)
    r2=$(count "$k" raw $((2 * n)))
    x1=$(count "$k" xrt $n)
    x2=$(count "$k" xrt $((2 * n)))
    awk -v name="$name" -v r1="$r1" -v r2="$r2" -v x1="$x1" -v x2="$x2" -v n="$n" 'BEGIN {
        r = (r2 - r1) / n; x = (x2 - x1) / n
        printf "%-42s %8.0f %8.0f %+8.0f\n", name, r, x, x - r }'
done
