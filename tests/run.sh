#!/bin/sh
# SPDX-License-Identifier: MIT
# Everything `make test` checks. Each step is a pass or a fail; a cmocka
# program counts its tests. A step whose tool is not installed (valgrind,
# strace, clang, pkg-config: the GPU machines lack some) prints
# "skipped: <reason>" and counts as neither. The last line is
# "N passed, N failed".
set -u
B=build
LOG=$B/test-logs
mkdir -p "$LOG"
pass=0
fail=0

ok()  { pass=$((pass + 1)); echo "  ok    $1"; }
skip() { echo "  skipped: $1"; }
have() { command -v "$1" > /dev/null; }
show() { echo "  FAIL  $1"; sed 's/^/        /' "$2" | tail -40; }
bad() { fail=$((fail + 1)); show "$@"; }

# The log of a step: its name made a file name, cut where a long command
# line would pass the file system's 255 bytes.
logof() { echo "$LOG/$(echo "$1" | tr -c 'A-Za-z0-9_.-' '_' | cut -c1-200).log"; }

# step NAME CMD...: a single check.
step() {
    name=$1; shift
    log=$(logof "$name")
    if "$@" > "$log" 2>&1; then ok "$name"; else bad "$name" "$log"; fi
}

# cmocka PROGRAM: runs a test program and counts its tests.
cmocka() {
    name="$*"
    log=$(logof "$name")
    "$@" > "$log" 2>&1
    rc=$?
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
    grep -h 'skipped:' "$log" | sort -u | sed 's/^/        /'
    pass=$((pass + p))
    fail=$((fail + f))
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then bad "$name (exit $rc)" "$log"; return; fi
    if [ "$f" -ne 0 ]; then show "$name: $f failed" "$log"; else echo "  ok    $name: $p tests"; fi
}

echo "== compile matrix"
sh tests/compile/matrix.sh > "$LOG/matrix.out" 2>&1
while IFS='|' read -r res name logf; do
    case $res in
    ok) ok "$name" ;;
    skip) skip "$name: $logf" ;;
    *) bad "$name" "$logf" ;;
    esac
done < "$B/matrix.results"

echo "== build"
if [ "${HAVE_CMOCKA:-1}" = 1 ]; then
    step "build tests" $MAKE -s tests
else
    skip "${SKIP_CMOCKA:-test programs: cmocka.h not found}"
fi

echo "== runtime suite"
for t in $TESTS; do
    [ "$t" = test_stress ] && continue
    [ -x "$B/plain/$t" ] && cmocka "$B/plain/$t"
done

# protect_shadow_gap=0: the CUDA runtime maps memory where ASan's shadow gap
# would be, and fails to start without it.
echo "== runtime suite under ASan+UBSan"
for t in $TESTS; do
    [ -x "$B/asan/$t" ] && ASAN_OPTIONS=detect_leaks=1:protect_shadow_gap=0 cmocka "$B/asan/$t"
done

# tests/valgrind.supp: the threads that vendor runtimes start for themselves.
# --fair-sched: valgrind runs one thread at a time, and by default a thread
# that yields can take the turn straight back; xrt's waiters yield while
# they wait for another thread, which then may not run for seconds (the
# stream-destroy races hung past their alarm). A ticket lock runs each in turn.
VALGRIND="valgrind -q --fair-sched=try --error-exitcode=9 --leak-check=full --suppressions=tests/valgrind.supp"
echo "== runtime suite under valgrind"
if have valgrind; then
    for t in $TESTS; do
        [ "$t" = test_stress ] && continue
        [ -x "$B/plain/$t" ] &&
            cmocka $VALGRIND "$B/plain/$t"
    done
else
    skip "valgrind is not installed"
fi

# What a machine with a GPU runs: cuda is the default backend, here on a test
# double of the CUDA runtime (tests/doubles/cudart_double.c) whose work is
# real and in order. Each program's groups run on cuda and cpu.
echo "== runtime suite with cuda as the default (CUDA runtime test double)"
double="$PWD/$B/doubles/libcudart.so.13"
if [ -f "$double" ]; then
    for t in $TESTS; do
        [ "$t" = test_stress ] && continue
        [ -x "$B/plain/$t" ] && cmocka env XRT_CUDA_LIBRARY="$double" "$B/plain/$t"
    done
    for t in $TESTS; do
        [ -x "$B/asan/$t" ] &&
            cmocka env XRT_CUDA_LIBRARY="$double" ASAN_OPTIONS=detect_leaks=1:protect_shadow_gap=0 "$B/asan/$t"
    done
else
    skip "suite with cuda as the default: no CUDA headers, no runtime double"
fi

# The shared suite with the tracing plugin in front of the CPU backend: a
# "suite on trace" group. The trace file proves that the group ran on it.
echo "== runtime suite through the tracing plugin"
suite_on_trace() { # FLAVOUR PLUGIN-DIR COMMAND... (cmocka and step set $name)
    tflavour=$1 tdir=$2
    shift 2
    tf="$LOG/trace-suite-$tflavour.txt"
    rm -f "$tf"
    cmocka env XRT_PLUGINS="$tdir/libxrt_trace.so" XRT_TRACE_BACKEND=cpu XRT_TRACE_FILE="$tf" XRT_TRACE_LOOKUPS=1 "$@"
    step "suite ($tflavour) ran on trace" grep -q "^trace: init(target=cpu) -> success" "$tf"
}
suite_on_trace plain "$B/plugins" "$B/plain/test_suite"
# Every operation: the suite calls it on the CPU (the trace shows it), and
# the README's table "What each backend supports" has its row
# (tests/operations.sh names a miss).
step "every operation is called by the suite" env CC="$CC" sh tests/operations.sh suite "$LOG/trace-suite-plain.txt"
step "every operation has its row in the README" env CC="$CC" sh tests/operations.sh readme
suite_on_trace asan "$B/plugins/asan" env ASAN_OPTIONS=detect_leaks=1:protect_shadow_gap=0 "$B/asan/test_suite"
if have valgrind; then
    suite_on_trace valgrind "$B/plugins" $VALGRIND "$B/plain/test_suite"
else
    skip "suite on trace under valgrind: valgrind is not installed"
fi
# test_target through the tracer: a traced program gets its target's record
# (the CPU's features), and the trace file shows the forwarded call.
rm -f "$LOG/trace-target.txt"
cmocka env XRT_PLUGINS="$B/plugins/libxrt_trace.so" XRT_TRACE_BACKEND=cpu XRT_TRACE_FILE="$LOG/trace-target.txt" \
    "$B/plain/test_target"
step "target on trace: get_target forwarded" grep -q "^trace: get_target(device=0, arch=" "$LOG/trace-target.txt"

# The same with a timeline (XRT_TRACE_JSON), then the timeline of a known program.
tj="$LOG/trace-suite.json"
rm -f "$tj"
cmocka env XRT_PLUGINS="$B/plugins/libxrt_trace.so" XRT_TRACE_BACKEND=cpu XRT_TRACE_JSON="$tj" "$B/plain/test_suite"
if have jq; then
    step "suite on trace: its timeline is valid JSON" jq -e '.traceEvents | length > 0' "$tj"
elif have python3; then
    step "suite on trace: its timeline is valid JSON" python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tj"
else
    skip "suite on trace: its timeline (neither jq nor python3 is installed)"
fi
step "trace timeline: spans of a known program" env MAKE="$MAKE" sh tests/trace.sh

echo "== stress, kernels and the CPU engine under TSan"
[ -x "$B/tsan/test_stress" ] && TSAN_OPTIONS=halt_on_error=1 cmocka "$B/tsan/test_stress"
[ -x "$B/tsan/test_kernels" ] && TSAN_OPTIONS=halt_on_error=1 cmocka "$B/tsan/test_kernels"
[ -x "$B/tsan/test_cpu" ] && TSAN_OPTIONS=halt_on_error=1 cmocka "$B/tsan/test_cpu"
[ -x "$B/tsan/test_graph" ] && TSAN_OPTIONS=halt_on_error=1 cmocka "$B/tsan/test_graph"
# two threads destroying one handle, with membarrier(2) and with the fallback
# (the racing-use tests write one buffer from several streams on purpose)
for t in test_handles test_handles_no_membarrier; do
    [ -x "$B/tsan/$t" ] && XRT_TEST_FILTER='test_double_destroy_*' TSAN_OPTIONS=halt_on_error=1 cmocka "$B/tsan/$t"
done

echo "== fast paths make no system call"
if have strace; then
    step "cpu fast paths under strace" env CC="$CC" sh tests/fastpath.sh
else
    skip "cpu fast paths under strace: strace is not installed"
fi

# (make fuzz runs them for longer; through the Makefile once it includes fuzz.mk)
echo "== fuzz targets replay their seed corpus"
fuzzmk="-f tests/fuzz/fuzz.mk"
grep -q 'tests/fuzz/fuzz.mk' Makefile && fuzzmk=""
if sh tests/fuzz/have_libfuzzer.sh > "$LOG/libfuzzer.log" 2>&1; then
    step "fuzz targets: seed corpus" $MAKE -s $fuzzmk fuzz-seeds
else
    skip "fuzz targets: $(tail -1 "$LOG/libfuzzer.log")"
fi

echo "== examples"
step "examples: xrt_info, demo, vector_add" env MAKE="$MAKE" sh tests/examples.sh
step "tools: xrt_info --json, bandwidth, plot, gpu_overhead" env MAKE="$MAKE" CUDA_HOME="$CUDA_HOME" sh tests/tools.sh
step "xrt_info lists a plugin's backend" sh -c "XRT_PLUGINS=$B/plugins/libxrt_trace.so XRT_TRACE_FILE=/dev/null \
    $B/examples/xrt_info | grep '^  trace available'"

echo "== libfabric: fabric_rma, two processes over tcp on loopback"
cmocka env MAKE="$MAKE" sh tests/fabric.sh

echo "== RDMA on soft-RoCE (two VMs)"
cmocka sh tests/rdma/run.sh
step "xrt_rdma.h compile checks" sh tests/rdma/compile.sh

echo "== install"
# (the skips of a step's own parts are shown below it)
skips_of() { grep -h '^skipped: [^<]' "$(logof "$1")" | sed 's/^/  /'; }
n="install, pkg-config and CMake consumers, uninstall"
step "$n" env MAKE="$MAKE" CC="$CC" sh tests/install.sh
skips_of "$n"

echo "== a newcomer's machine"
n="make run with build-essential alone (optional headers hidden)"
step "$n" env CC="$CC" sh tests/bare.sh
grep -q '^skipped: bare' "$(logof "$n")" && skips_of "$n"
step "README's first program compiles and runs" env CC="$CC" sh tests/readme.sh
step "the README's error table and return types match xrt.h" sh tests/errors.sh
step "each build from only the headers the README names for it" env CC="$CC" sh tests/vendoring.sh
step "every header, source and script has an SPDX licence line" sh tests/spdx.sh

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
