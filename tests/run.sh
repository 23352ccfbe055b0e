#!/bin/sh
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

# step NAME CMD...: a single check.
step() {
    name=$1; shift
    log="$LOG/$(echo "$name" | tr -c 'A-Za-z0-9_.-' '_').log"
    if "$@" > "$log" 2>&1; then ok "$name"; else bad "$name" "$log"; fi
}

# cmocka PROGRAM: runs a test program and counts its tests.
cmocka() {
    name="$*"
    log="$LOG/$(echo "$name" | tr -c 'A-Za-z0-9_.-' '_').log"
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
step "build tests" $MAKE -s tests

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
echo "== runtime suite under valgrind"
if have valgrind; then
    for t in $TESTS; do
        [ "$t" = test_stress ] && continue
        [ -x "$B/plain/$t" ] &&
            cmocka valgrind -q --error-exitcode=9 --leak-check=full --suppressions=tests/valgrind.supp "$B/plain/$t"
    done
else
    skip "valgrind is not installed"
fi

# The shared suite with the tracing plugin in front of the CPU backend: a
# "suite on trace" group. The trace file proves that the group ran on it.
echo "== runtime suite through the tracing plugin"
suite_on_trace() { # FLAVOUR PLUGIN-DIR COMMAND... (cmocka and step set $name)
    tflavour=$1 tdir=$2
    shift 2
    tf="$LOG/trace-suite-$tflavour.txt"
    rm -f "$tf"
    cmocka env XRT_PLUGINS="$tdir/libxrt_trace.so" XRT_TRACE_BACKEND=cpu XRT_TRACE_FILE="$tf" "$@"
    step "suite ($tflavour) ran on trace" grep -q "^trace: init(target=cpu) -> success" "$tf"
}
suite_on_trace plain "$B/plugins" "$B/plain/test_suite"
suite_on_trace asan "$B/plugins/asan" env ASAN_OPTIONS=detect_leaks=1:protect_shadow_gap=0 "$B/asan/test_suite"
if have valgrind; then
    suite_on_trace valgrind "$B/plugins" valgrind -q --error-exitcode=9 --leak-check=full \
        --suppressions=tests/valgrind.supp "$B/plain/test_suite"
else
    skip "suite on trace under valgrind: valgrind is not installed"
fi
# test_target through the tracer: a traced program gets its target's record
# (the CPU's features), and the trace file shows the forwarded call.
rm -f "$LOG/trace-target.txt"
cmocka env XRT_PLUGINS="$B/plugins/libxrt_trace.so" XRT_TRACE_BACKEND=cpu XRT_TRACE_FILE="$LOG/trace-target.txt" \
    "$B/plain/test_target"
step "target on trace: get_target forwarded" grep -q "^trace: get_target(device=0, arch=" "$LOG/trace-target.txt"

echo "== stress and kernels under TSan"
[ -x "$B/tsan/test_stress" ] && TSAN_OPTIONS=halt_on_error=1 cmocka "$B/tsan/test_stress"
[ -x "$B/tsan/test_kernels" ] && TSAN_OPTIONS=halt_on_error=1 cmocka "$B/tsan/test_kernels"

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

echo "== RDMA on soft-RoCE (two VMs)"
cmocka sh tests/rdma/run.sh
step "xrt_rdma.h compile checks" sh tests/rdma/compile.sh

echo "== install"
if have pkg-config; then
    step "install + pkg-config consumer" sh tests/install.sh
else
    skip "install + pkg-config consumer: pkg-config is not installed"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
