#!/bin/sh
# SPDX-License-Identifier: MIT
# `make bench`: runs every benchmark in turn. Each prints its figures and
# its ratio against a baseline measured in the same run; none of them fails
# on a missed target (they are measurements, not tests). BENCH_LOAD=N runs
# every benchmark beside N spinning processes; the loaded section uses
# BENCH_LOAD_RUN (default: one per core). Run it on a quiet machine: the
# CPU-stream figures depend on both cores being free.
set -eu
B=${B:-build}
section() { printf '\n== %s\n' "$1"; }
# the figures with a target, for the table at the top of bench/RESULTS.md
BENCH_FIGURES=$PWD/$B/bench/figures.tsv
export BENCH_FIGURES
rm -f "$BENCH_FIGURES"

echo "xrt benchmarks: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -m), $(nproc) cores," \
     "load average $(cut -d' ' -f1-3 /proc/loadavg)"
section "dispatch (a registered backend whose get_device is the CPU backend's)"
$B/bench/dispatch
if command -v valgrind > /dev/null; then sh bench/instructions.sh $B/bench/dispatch
else echo "skipped: instruction count (valgrind is not installed)"; fi
section "a library's own backend: push and pop (CPU backend)"
$B/bench/backend_push
section "start-up"
$B/bench/startup
section "CPU copies"
$B/bench/memcpy
if command -v taskset > /dev/null; then
    echo "one core (taskset -c 0: the stream's worker shares the caller's core and its caches):"
    BENCH_COMMAND="taskset -c 0 memcpy" taskset -c 0 $B/bench/memcpy
else echo "skipped: one core (taskset is not installed)"; fi
if command -v valgrind > /dev/null; then sh bench/instructions.sh $B/bench/memcpy "xrt_memcpy to host 4 KiB" -
else echo "skipped: instruction count (valgrind is not installed)"; fi
section "CPU device memory shared between processes (IPC)"
$B/bench/ipc
section "fork() with CPU device memory, against malloc memory"
$B/bench/fork
section "CPU stream round trip"
$B/bench/stream_roundtrip
section "CPU stream throughput, idle workers"
$B/bench/stream_throughput
section "CPU streams ordered with the legacy NULL stream"
$B/bench/stream_order
section "the stream-order checker on (XRT_CHECK=streams) against off"
$B/bench/check
if command -v valgrind > /dev/null; then sh bench/check_off.sh $B
else echo "skipped: the checker's instructions while off (valgrind is not installed)"; fi
section "CPU stream priorities"
$B/bench/stream_priority
section "CPU event synchronize under each device schedule (xrt_set_device_flags)"
$B/bench/device_flags
section "CPU memory pools, against mmap"
$B/bench/mem_pool
section "CPU kernels"
$B/bench/kernels
section "CPU graphs"
$B/bench/graph
section "CPU copies split across cores (all usable cores, then one)"
$B/bench/split
if command -v taskset > /dev/null; then BENCH_COMMAND="taskset -c 0 split 64" taskset -c 0 $B/bench/split 64
else echo "skipped: one core (taskset is not installed)"; fi
section "CPU pitched copies (xrt_memcpy_2d), against a row-by-row memcpy loop"
$B/bench/memcpy2d
section "CPU peer copies (two CPU devices), against memcpy"
$B/bench/peer
LOAD=${BENCH_LOAD_RUN:-$(nproc)}
section "CPU streams under load: $LOAD spinning processes beside the benchmark"
BENCH_COMMAND="BENCH_LOAD=$LOAD stream_roundtrip" BENCH_LOAD=$LOAD $B/bench/stream_roundtrip
BENCH_COMMAND="BENCH_LOAD=$LOAD stream_throughput" BENCH_LOAD=$LOAD $B/bench/stream_throughput
section "compile cost"
$B/bench/compile_cost
section "GPU overhead (CUDA)"
$B/bench/gpu_overhead > $B/bench/gpu_overhead.out # (not a pipe: its exit status counts)
cat $B/bench/gpu_overhead.out
if grep -q "no CUDA GPU here" $B/bench/gpu_overhead.out && [ -f $B/doubles/stub/libcudart.so.13 ]; then
    section "GPU overhead against a stub runtime (xrt's own cost per call)"
    LD_LIBRARY_PATH=$B/doubles/stub $B/bench/gpu_overhead
fi
section "the table of current figures"
sh bench/table.sh "$BENCH_FIGURES" bench/RESULTS.md
