#!/bin/bash
# SPDX-License-Identifier: MIT
# On a machine with a GPU: builds the test programs, examples and benchmarks,
# runs the test programs (each group on every available backend), the
# examples, gpu_overhead and the CPU benchmarks, and packs every log into
# $OUT/gpu-logs.tgz (one file; a summary is printed as it goes).
#   OUT=dir         where the tarball goes (default build/gpu-out)
#   CMOCKA_DEBS=dir libcmocka0 and libcmocka-dev .deb files, for a machine
#                   without cmocka (apt-get download them elsewhere)
#   STAGES="..."    a subset of: build plain examples bench asan cpubench
#   DEADLINE=s      stages that would start later than s seconds - 40 are
#                   skipped (default 420)
set -u
L=$(mktemp -d)/gpu-logs
OUT=${OUT:-build/gpu-out}
mkdir -p "$L" "$OUT"
T0=$(date +%s)
say() { echo "[$(($(date +%s) - T0))s] $*" | tee -a "$L/summary.txt"; }
pack() { tar czf "$OUT/gpu-logs.tgz" -C "$(dirname "$L")" gpu-logs; }
left() { echo $((${DEADLINE:-420} - ($(date +%s) - T0))); }
want() {
    case " ${STAGES:-build plain examples bench asan cpubench} " in *" $1 "*) [ "$(left)" -gt 40 ] ;; *) return 1 ;; esac
}
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; ${CC:-cc} --version | head -1; } \
    > "$L/machine.txt" 2>&1
if [ -n "${CMOCKA_DEBS:-}" ]; then
    CM=$(mktemp -d)
    for d in "$CMOCKA_DEBS"/*.deb; do dpkg -x "$d" "$CM"; done
    # a run path, not LD_LIBRARY_PATH: test_plugin runs a setuid copy
    export CC="${CC:-cc} -isystem $CM/usr/include -L$CM/usr/lib/x86_64-linux-gnu -Wl,-rpath,$CM/usr/lib/x86_64-linux-gnu"
fi
TESTS=$(ls tests/test_*.c | sed 's|tests/||; s|\.c$||')
PLAIN=$(for t in $TESTS; do echo build/plain/$t; done)
ASAN="build/asan/test_suite build/asan/test_gpu build/asan/test_kernels build/asan/test_badinput"
CPUB="build/bench/kernels build/bench/stream_roundtrip build/bench/split build/bench/memcpy build/bench/gpu_overhead"

# one test program: its counts in one line
one() {
    t=$1
    f=$(basename "$(dirname "$t")")_$(basename "$t")
    s=$(date +%s%N)
    timeout -k 5 180 "$t" > "$L/$f.log" 2>&1
    rc=$?
    ms=$((($(date +%s%N) - s) / 1000000))
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$L/$f.log" | awk '{s+=$1} END {print s+0}')
    n=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$L/$f.log" | awk '{s+=$1} END {print s+0}')
    k=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$L/$f.log" | awk '{s+=$1} END {print s+0}')
    # (as tests/run.sh: a program that ran no test is a failure)
    [ $((p + n + k)) -eq 0 ] && n=1
    printf '%-36s rc=%-3d %6d ms passed=%-4d failed=%d skipped=%d\n' "$f" "$rc" "$ms" "$p" "$n" "$k"
}
export -f one
export L

if want build; then
    make -k -j"$(nproc)" $PLAIN $ASAN examples $CPUB build/gpu/cuda_shutdown > "$L/build.log" 2>&1
    say "build rc=$? warnings=$(grep -c 'warning:' "$L/build.log")"
    gzip -f "$L/build.log"
    pack
fi
if want plain; then
    printf '%s\n' $PLAIN | xargs -P 8 -I{} bash -c 'one {}' | tee -a "$L/summary.txt"
    pack
fi
if want plain; then
    # test_shutdown's CUDA calls without xrt: which part, if any, breaks the runtime
    timeout 120 build/gpu/cuda_shutdown > "$L/cuda_shutdown.txt" 2>&1
    say "cuda_shutdown rc=$?: $(tr '\n' ';' < "$L/cuda_shutdown.txt")"
    pack
fi
if want examples; then
    timeout 120 env MAKE=make sh tests/examples.sh > "$L/examples.log" 2>&1
    say "examples.sh rc=$?"
    if [ -x /usr/local/cuda/bin/compute-sanitizer ]; then
        XRT_BACKEND=cuda timeout 60 /usr/local/cuda/bin/compute-sanitizer build/examples/saxpy/saxpy \
            > "$L/sanitizer_saxpy.log" 2>&1
        say "compute-sanitizer saxpy rc=$?"
    fi
    pack
fi
if want bench; then
    timeout 150 build/bench/gpu_overhead > "$L/gpu_overhead.txt" 2>&1
    say "gpu_overhead rc=$?"
    pack
fi
if want asan; then
    printf '%s\n' $ASAN | ASAN_OPTIONS=detect_leaks=1:protect_shadow_gap=0 xargs -P 4 -I{} bash -c 'one {}' |
        tee -a "$L/summary.txt"
    pack
fi
if want cpubench; then
    say "cpu benchmarks (load $(cut -d' ' -f1-3 /proc/loadavg))"
    timeout $(($(left) - 30)) sh -c 'for r in 1 2 3; do build/bench/kernels; build/bench/stream_roundtrip; done
        build/bench/memcpy; BENCH_LOAD=$(nproc) build/bench/stream_roundtrip; build/bench/split' \
        > "$L/cpubench.txt" 2>&1
    say "cpu benchmarks rc=$?"
    pack
fi
say "end: $OUT/gpu-logs.tgz"
pack
