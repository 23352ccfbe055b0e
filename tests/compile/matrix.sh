#!/bin/sh
# SPDX-License-Identifier: MIT
# The compile matrix, run from the repository root by tests/run.sh. Writes
# build/matrix.results: one line per check, "ok|<name>|<log>",
# "fail|<name>|<log>" or, when its compiler is not installed,
# "skip|<name>|<reason>"; logs in build/test-logs/. Checks run in parallel.
#
#   - the user-visible header (no XRT_IMPL) as C11 and C++11/17 with gcc,
#     clang, g++ and clang++, and that it pulls no vendor header;
#   - the XRT_IMPL unit for every enable combination, as C11 and as C++17
#     (the CUDA and HIP ones here only when gpu.sh, which compiles and links
#     them, is absent and their xrt and vendor headers exist);
#   - a two-TU program (C+C, C impl + C++ user, C++ impl + C user) that links
#     and runs;
#   - xrt.h included before and after XRT_IMPL in one unit;
#   - build mistakes (a system header before xrt.h in the XRT_IMPL unit,
#     XRT_ENABLE_CUDA without its include path, no XRT_IMPL unit, a header
#     not copied beside xrt.h, xrt_rdma.h in the XRT_IMPL unit without
#     XRT_ENABLE_RDMA) fail with an error that says what to do (fails.sh;
#     tests/vendoring.sh tries each header of README's table);
#   - then tests/compile/gpu.sh, when it exists, appends its own lines.
set -u
B=build
LOG=$B/test-logs
OUT=$B/matrix
RESULTS=$B/matrix.results
SRC=tests/compile
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
W="-Wall -Wextra -Werror -pedantic -I."
C11="-std=c11 $W"
CXX17="-x c++ -std=c++17 $W"
JOBS=${MATRIX_JOBS:-4}

mkdir -p "$LOG" "$OUT"
rm -f "$OUT"/*.res
: > "$RESULTS"

n=0
running=0
# The compiler of a check that is not installed (gcc, g++, clang, clang++
# named as a word of its command line), or nothing.
missing_compiler() {
    for tool in gcc g++ clang clang++; do
        case " $1 " in
        *" $tool "*) command -v "$tool" > /dev/null || { echo "$tool"; return; } ;;
        esac
    done
}

# check NAME CMD: runs CMD (a shell command line) in the background; its
# output goes to the check's log, its exit status decides ok or fail. A check
# whose compiler is missing is recorded as "skip|NAME|<reason>".
check() {
    n=$((n + 1))
    id=$(printf '%03d' "$n")
    log="$LOG/matrix-$(echo "$1" | tr -c 'A-Za-z0-9_.+-' '_').log"
    tool=$(missing_compiler "$2")
    if [ -n "$tool" ]; then
        echo "skip|$1|$tool is not installed" > "$OUT/$id.res"
        return
    fi
    (
        if sh -c "$2" > "$log" 2>&1; then r=ok; else r=fail; fi
        echo "$r|$1|$log" > "$OUT/$id.res"
    ) &
    running=$((running + 1))
    if [ "$running" -ge "$JOBS" ]; then wait; running=0; fi
}

# >> the user-visible header
for cc in "gcc $C11" "clang $C11" "g++ -x c++ -std=c++11 $W" "clang++ -x c++ -std=c++11 $W" \
          "g++ $CXX17" "clang++ $CXX17"; do
    set -- $cc
    std=$(echo "$cc" | sed -n 's/.*-std=\([^ ]*\).*/\1/p')
    check "user header, no XRT_IMPL: $1 -std=$std" "$cc -c $SRC/user.c -o $OUT/user-$1-$std.o"
done
# Even with every backend enabled and the vendor include paths given, a user
# unit must not see a vendor header.
check "user header pulls no vendor header" \
    "gcc $C11 -DXRT_ENABLE_CPU -DXRT_ENABLE_CUDA -DXRT_ENABLE_HIP -D__HIP_PLATFORM_AMD__ \
         -isystem $CUDA_HOME/include -E $SRC/user.c -o $OUT/user.i &&
     ! grep -E '^# [0-9]+ \".*(cuda_runtime|/hip/|nvidia)' $OUT/user.i"

# >> the implementation unit, per enable combination
have_cuda=0
have_hip=0
[ -f xrt_cuda.h ] && [ -f "$CUDA_HOME/include/cuda_runtime_api.h" ] && have_cuda=1
[ -f xrt_hip.h ] && [ -f /usr/include/hip/hip_runtime_api.h ] && have_hip=1
gpu_combos=1
[ -f "$SRC/gpu.sh" ] && gpu_combos=0
CUDA="-DXRT_ENABLE_CUDA -isystem $CUDA_HOME/include"
HIP="-DXRT_ENABLE_HIP -D__HIP_PLATFORM_AMD__"
combos="none|
cpu|-DXRT_ENABLE_CPU"
[ $have_cuda$gpu_combos = 11 ] && combos="$combos
cuda|$CUDA
cpu+cuda|-DXRT_ENABLE_CPU $CUDA"
[ $have_hip$gpu_combos = 11 ] && combos="$combos
hip|$HIP
cpu+hip|-DXRT_ENABLE_CPU $HIP"
[ $have_cuda$have_hip$gpu_combos = 111 ] && combos="$combos
cuda+hip|$CUDA $HIP
cpu+cuda+hip|-DXRT_ENABLE_CPU $CUDA $HIP"
[ $gpu_combos = 1 ] || echo "CUDA and HIP combinations: see gpu.sh"
[ $have_cuda = 1 ] || echo "no xrt_cuda.h or CUDA headers: CUDA combinations skipped"
[ $have_hip = 1 ] || echo "no xrt_hip.h or HIP headers: HIP combinations skipped"

while IFS='|' read -r combo flags; do
    for cc in gcc clang; do
        check "IMPL unit, enable $combo: $cc -std=c11" "$cc $C11 $flags -c $SRC/impl.c -o $OUT/impl-$combo-$cc.o"
    done
    for cc in g++ clang++; do
        check "IMPL unit, enable $combo: $cc -std=c++17" "$cc $CXX17 $flags -c $SRC/impl.c -o $OUT/impl-$combo-$cc.o"
    done
done <<EOF
$combos
EOF

# Optimisation levels change what gcc's flow warnings see (-Wmaybe-uninitialized
# at -O3, -Wformat-truncation at -O1 and -Os): a user's -Werror build at any of
# them must pass, with every backend this machine has headers for.
all="-DXRT_ENABLE_CPU -DXRT_ENABLE_RDMA"
[ $have_cuda = 1 ] && all="$all $CUDA"
[ $have_hip = 1 ] && all="$all $HIP"
for opt in -O1 -O3 -Os; do
    check "IMPL unit, every backend here: gcc -std=c11 $opt" "gcc $C11 $all $opt -c $SRC/impl.c -o $OUT/impl-all$opt-gcc.o"
    check "IMPL unit, every backend here: g++ -std=c++17 $opt" \
        "g++ $CXX17 $all $opt -c $SRC/impl.c -o $OUT/impl-all$opt-gxx.o"
done

# >> two translation units that link and run
# (the program's output in a file, not a pipe: its exit status must count)
run_ok() { echo "&& ./$1 > $1.out && cat $1.out && grep -q '^ok' $1.out"; }
M=$SRC/two_tu_main.c
U=$SRC/two_tu_user.c
check "two TUs, C impl + C user: gcc" \
    "gcc $C11 $M $U -o $OUT/two-gcc -lpthread $(run_ok $OUT/two-gcc)"
check "two TUs, C impl + C user: clang" \
    "clang $C11 $M $U -o $OUT/two-clang -lpthread $(run_ok $OUT/two-clang)"
check "two TUs, C impl (gcc) + C++ user (g++)" \
    "gcc $C11 -c $M -o $OUT/two-cm.o && g++ $CXX17 -c $U -o $OUT/two-cxxu.o &&
     g++ $OUT/two-cm.o $OUT/two-cxxu.o -o $OUT/two-c-cxx -lpthread $(run_ok $OUT/two-c-cxx)"
check "two TUs, C impl (clang) + C++ user (clang++)" \
    "clang $C11 -c $M -o $OUT/two-cm2.o && clang++ $CXX17 -c $U -o $OUT/two-cxxu2.o &&
     clang++ $OUT/two-cm2.o $OUT/two-cxxu2.o -o $OUT/two-c-cxx2 -lpthread $(run_ok $OUT/two-c-cxx2)"
check "two TUs, C++ impl (g++) + C user (gcc)" \
    "g++ $CXX17 -c $M -o $OUT/two-cxxm.o && gcc $C11 -c $U -o $OUT/two-cu.o &&
     g++ $OUT/two-cxxm.o $OUT/two-cu.o -o $OUT/two-cxx-c -lpthread $(run_ok $OUT/two-cxx-c)"
if [ $have_cuda = 1 ]; then
    check "CUDA alone enabled: the CPU backend is built in too, runs without a GPU" \
        "gcc $C11 $CUDA $SRC/cpu_always.c -o $OUT/cpu-always -lpthread $(run_ok $OUT/cpu-always)"
    check "XRT_DISABLE_CPU: no backend available names each backend's reason" \
        "gcc $C11 $CUDA -DXRT_DISABLE_CPU $SRC/cpu_always.c -o $OUT/cpu-left-out -lpthread $(run_ok $OUT/cpu-left-out)"
fi
check "XRT_DISABLE_CPU with XRT_ENABLE_CPU is an error" \
    "! gcc $C11 -DXRT_ENABLE_CPU -DXRT_DISABLE_CPU -c $SRC/cpu_always.c -o $OUT/cpu-both.o"
if [ $have_cuda = 1 ] || [ $have_hip = 1 ]; then
    all="-DXRT_ENABLE_CPU"
    [ $have_cuda = 1 ] && all="$all $CUDA"
    [ $have_hip = 1 ] && all="$all $HIP"
    check "two TUs, every backend enabled, runs without a GPU: gcc" \
        "gcc $C11 $all $M $U -o $OUT/two-all -lpthread $(run_ok $OUT/two-all)"
fi

# >> xrt.h before and after XRT_IMPL in one unit. In C the unit needs
# _GNU_SOURCE from the command line: the first include, without XRT_IMPL,
# already let <stdint.h> fix the feature macros (see the top of xrt.h).
check "xrt.h before and after XRT_IMPL: gcc -std=c11" \
    "gcc $C11 -D_GNU_SOURCE $SRC/twice.c -o $OUT/twice-gcc -lpthread $(run_ok $OUT/twice-gcc)"
check "xrt.h before and after XRT_IMPL: clang -std=c11" \
    "clang $C11 -D_GNU_SOURCE $SRC/twice.c -o $OUT/twice-clang -lpthread $(run_ok $OUT/twice-clang)"
check "xrt.h before and after XRT_IMPL: g++ -std=c++17" \
    "g++ $CXX17 $SRC/twice.c -o $OUT/twice-gxx -lpthread $(run_ok $OUT/twice-gxx)"
check "xrt.h before and after XRT_IMPL: clang++ -std=c++17" \
    "clang++ $CXX17 $SRC/twice.c -o $OUT/twice-clangxx -lpthread $(run_ok $OUT/twice-clangxx)"

# >> build mistakes fail with an #error that says what to do
F="sh $SRC/fails.sh"
NOCACHE=$OUT/nocache # the CPU build's headers but xrt_cache.h, and the unit, alone
mkdir -p "$NOCACHE" && cp xrt.h xrt_backends.h xrt_check.h xrt_cpu.h $SRC/impl.c "$NOCACHE/"
for cc in gcc clang; do
    check "a header not copied beside xrt.h (xrt_cache.h): #error names it: $cc" \
        "cd $NOCACHE && sh $(pwd)/$SRC/fails.sh 'xrt_cache.h beside xrt.h: copy it too' $cc -std=c11 -Wall -Wextra -pedantic -c impl.c -o impl-$cc.o"
    check "xrt_rdma.h in the XRT_IMPL unit without XRT_ENABLE_RDMA: #error: $cc" \
        "$F 'define XRT_ENABLE_RDMA there too' $cc $C11 -c $SRC/rdma_no_enable.c -o $OUT/rdma-no-enable-$cc.o"
    check "a system header before xrt.h in the XRT_IMPL unit: #error: $cc" \
        "$F 'before any other header' $cc $C11 -c $SRC/impl_late.c -o $OUT/late.o"
    check "xrt.h before XRT_IMPL without -D_GNU_SOURCE: #error: $cc" \
        "$F 'needs _GNU_SOURCE' $cc $C11 -c $SRC/twice.c -o $OUT/twice-bad.o"
    check "a program without an XRT_IMPL unit: the link error says so: $cc" \
        "$F 'define_XRT_IMPL_in_one_file' $cc $C11 $SRC/no_impl.c -o $OUT/no-impl-$cc -lpthread"
done
check "a program without an XRT_IMPL unit: the link error says so: g++" \
    "$F 'define_XRT_IMPL_in_one_file' g++ $CXX17 $SRC/no_impl.c -o $OUT/no-impl-gxx -lpthread"
if ! printf '#include <cuda_runtime_api.h>\n' | gcc -E -x c - > /dev/null 2>&1; then
    check "XRT_ENABLE_CUDA without the CUDA include path: #error: gcc" \
        "$F 'include directory to this unit' gcc $C11 -DXRT_ENABLE_CUDA -c $SRC/impl.c -o $OUT/nocuda.o"
else
    echo "skip|XRT_ENABLE_CUDA without the CUDA include path|cuda_runtime_api.h is on the default include path" \
        > "$OUT/nocuda.res"
fi
wait

cat "$OUT"/*.res >> "$RESULTS"

# >> GPU compilers (nvcc, ...): another script appends its own lines
if [ -f "$SRC/gpu.sh" ]; then
    glog=$LOG/matrix-gpu.sh.log
    sh "$SRC/gpu.sh" > "$glog" 2>&1
    rc=$?
    cat "$glog"
    # its own lines say what it checked; a script that breaks must not pass silently
    [ $rc -eq 0 ] || echo "fail|tests/compile/gpu.sh exited with status $rc|$glog" >> "$RESULTS"
fi
exit 0
