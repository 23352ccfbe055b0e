#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/rdma/compile.sh - xrt_rdma.h compiles and links: the user part as C11
# and C++11/17 with gcc, clang, g++ and clang++ (and pulls no verbs header),
# the XRT_IMPL unit as C11 and C++17 in both linking modes, C and C++ units
# mixed. Prints "ok NAME" / "FAIL NAME" per check and "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
B=${B:-build}
OUT=$B/rdma/compile
SRC=tests/rdma/compile
W="-Wall -Wextra -Werror -pedantic -I."
mkdir -p "$OUT"
pass=0
fail=0

check() { # check NAME CMD
    if sh -c "$2" > "$OUT/last.log" 2>&1; then
        pass=$((pass + 1)); echo "  ok    $1"
    else
        fail=$((fail + 1)); echo "  FAIL  $1"; sed 's/^/        /' "$OUT/last.log" | tail -20
    fi
}

for cc in "gcc -std=c11" "clang -std=c11" "g++ -x c++ -std=c++11" "clang++ -x c++ -std=c++11" \
          "g++ -x c++ -std=c++17" "clang++ -x c++ -std=c++17"; do
    set -- $cc
    command -v "$1" > /dev/null || { echo "  skipped: $1 is not installed"; continue; }
    check "xrt_rdma.h user part: $cc" "$cc $W -c $SRC/user.c -o $OUT/user.o"
done
check "xrt_rdma.h user part pulls no verbs header" \
    "gcc -std=c11 $W -E $SRC/user.c -o $OUT/user.i && ! grep -q 'infiniband/verbs.h' $OUT/user.i"

for cc in "gcc -std=c11" "clang -std=c11" "g++ -x c++ -std=c++17" "clang++ -x c++ -std=c++17"; do
    set -- $cc
    command -v "$1" > /dev/null || continue
    tag=$(echo "$cc" | tr -c 'a-z0-9' '_')
    check "XRT_IMPL unit with RDMA, run-time loading: $cc" \
        "$cc $W $SRC/impl_first.c -o $OUT/first-$tag -lpthread && $OUT/first-$tag"
    check "XRT_IMPL unit with RDMA, XRT_NO_RUNTIME_LINKING: $cc" \
        "$cc $W -DXRT_NO_RUNTIME_LINKING $SRC/impl_first.c -o $OUT/direct-$tag -lpthread -libverbs && $OUT/direct-$tag"
done
check "C++ user unit + C XRT_IMPL unit (xrt.h first)" \
    "gcc -std=c11 $W -c $SRC/impl_after.c -o $OUT/impl_after.o &&
     g++ -x c++ -std=c++17 $W -c $SRC/user.c -o $OUT/user_cxx.o &&
     g++ $OUT/impl_after.o $OUT/user_cxx.o -o $OUT/mixed -lpthread && $OUT/mixed"
check "C user unit + C++ XRT_IMPL unit" \
    "g++ -x c++ -std=c++17 $W -c $SRC/impl_after.c -o $OUT/impl_after_cxx.o &&
     gcc -std=c11 $W -c $SRC/user.c -o $OUT/user_c.o &&
     g++ $OUT/impl_after_cxx.o $OUT/user_c.o -o $OUT/mixed2 -lpthread && $OUT/mixed2"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
