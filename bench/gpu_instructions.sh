#!/bin/sh
# SPDX-License-Identifier: MIT
# Instructions that xrt adds to each GPU call, counted by callgrind on the
# stub runtime (tests/doubles/cudart_stub.c, whose calls do nothing): each row
# of gpu_overhead runs N and 2N times, directly and through xrt; the
# differences cancel start-up. Unlike times, the counts do not move with the
# machine's load. Extra runtime calls that xrt makes count only the stub's
# few instructions. The kernel rows need the stub's driver (libcuda.so.1 in
# STUB_DIR); a row that cannot run once is listed as skipped. The last
# column counts xrt's locked instructions per call (an atomic read-modify-
# write: lock-prefixed or xchg, 20 cycles or more each on a server CPU)
# in the program's own code, where xrt is inlined; the stub's are not counted.
# Usage: gpu_instructions.sh GPU_OVERHEAD STUB_DIR
set -eu
bin=$1
stub=$2
n=100
tmp=$(mktemp -d "${TMPDIR:-/tmp}/xrt-instructions.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
# the addresses of the program's locked instructions, as callgrind names them
objdump -d --no-show-raw-insn "$bin" | awk '/^ *[0-9a-f]+:\t(lock |xchg)/ { sub(":", "", $1); print $1 }' > "$tmp/locked"
count() { # ROW MODE N: instructions (its callgrind file is $tmp/out)
    LD_LIBRARY_PATH=$stub valgrind --tool=callgrind --dump-instr=yes --compress-pos=no --compress-strings=no \
        --callgrind-out-file="$tmp/out" "$bin" --count "$1" "$2" "$3" 2>&1 |
        sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
}
locked() { # the locked instructions run in the program's code, from $tmp/out
    awk 'NR == FNR { l[$1] = 1; next }
         /^ob=/ { mine = ($0 ~ /\/[^\/]*$/ && index($0, prog) > 0) }
         /^calls=/ { skip = 1; next }
         /^0x/ { if (!skip && mine && (substr($1, 3) in l)) t += $3; skip = 0 }
         END { print t + 0 }' prog="$(basename "$bin")" "$tmp/locked" "$tmp/out"
}
echo "instructions per call on the stub runtime (callgrind; $n and $((2 * n)) iterations)"
printf "%-42s %8s %8s %8s %7s\n" "call" "raw" "xrt" "xrt-raw" "locked"
"$bin" --rows | while read -r k name; do
    if ! LD_LIBRARY_PATH=$stub "$bin" --count "$k" xrt 1 > /dev/null 2>&1; then
        printf "%-42s skipped: it does not run on the stub\n" "$name"
        continue
    fi
    r1=$(count "$k" raw $n)
    r2=$(count "$k" raw $((2 * n)))
    x1=$(count "$k" xrt $n)
    l1=$(locked)
    x2=$(count "$k" xrt $((2 * n)))
    l2=$(locked)
    awk -v name="$name" -v r1="$r1" -v r2="$r2" -v x1="$x1" -v x2="$x2" -v l1="$l1" -v l2="$l2" -v n="$n" 'BEGIN {
        r = (r2 - r1) / n; x = (x2 - x1) / n
        printf "%-42s %8.0f %8.0f %+8.0f %7.1f\n", name, r, x, x - r, (l2 - l1) / n }'
done
