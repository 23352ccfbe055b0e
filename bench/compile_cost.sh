#!/bin/sh
# Compile cost of xrt.h: a unit that includes xrt.h (without XRT_IMPL)
# against an empty unit, compiled to an object with the same flags, medians
# of 15 compilations each, alternating. Target: at most 20 ms extra.
# Run from the repository root; CC and CXX pick the compilers.
set -eu
CC=${CC:-cc}
CXX=${CXX:-c++}
REPS=15
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf 'int xrt_bench_unit(void) { return 0; }\n' > "$dir/empty.c"
printf '#include "xrt.h"\nint xrt_bench_unit(void) { return 0; }\n' > "$dir/xrt.c"
cp "$dir/empty.c" "$dir/empty.cpp"
cp "$dir/xrt.c" "$dir/xrt.cpp"

now_ns() { date +%s%N; }

# ms COMPILER FLAGS... FILE: milliseconds of one compilation.
ms() {
    t0=$(now_ns)
    "$@" -c -o "$dir/out.o"
    echo "$(( ($(now_ns) - t0) / 1000 ))"
}

median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.1f", v[int((NR + 1) / 2)] / 1000 }'; }

# row NAME COMPILER FLAGS...: empty and xrt.h units with one compiler.
row() {
    name=$1 ext=$2
    shift 2
    : > "$dir/e"
    : > "$dir/x"
    i=0
    while [ $i -lt $REPS ]; do
        ms "$@" "$dir/empty.$ext" >> "$dir/e"
        ms "$@" -I. "$dir/xrt.$ext" >> "$dir/x"
        i=$((i + 1))
    done
    e=$(median < "$dir/e")
    x=$(median < "$dir/x")
    awk -v n="$name" -v e="$e" -v x="$x" 'BEGIN {
        d = x - e
        printf "%-22s %8.1f %8.1f %+8.1f   %s\n", n, e, x, d, d <= 20 ? "ok (target <= +20 ms)" : "MISSED (target <= +20 ms)" }'
}

echo "compile cost of #include \"xrt.h\" (no XRT_IMPL), ms, medians of $REPS"
printf "%-22s %8s %8s %8s\n" "compiler, flags" "empty" "xrt.h" "extra"
row "$CC -std=c11 -O2" c "$CC" -std=c11 -O2 -Wall -Wextra -Werror -pedantic
row "$CC -std=c11 -O0 -g" c "$CC" -std=c11 -O0 -g
command -v "$CXX" > /dev/null && row "$CXX -std=c++17 -O2" cpp "$CXX" -std=c++17 -O2 -Wall -Wextra -Werror
command -v clang > /dev/null && row "clang -std=c11 -O2" c clang -std=c11 -O2 -Wall -Wextra -Werror -pedantic
true
