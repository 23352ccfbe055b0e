#!/bin/sh
# SPDX-License-Identifier: MIT
# Everything `make test` checks. Each step is a pass, a fail or a skip; a
# cmocka program counts its tests (cmocka's "[  SKIPPED ]" count too), and a
# program that runs no test fails. A step whose tool is not installed
# (valgrind, strace, clang, pkg-config: the GPU machines lack some) prints
# "skipped: <reason>" and counts as a skip; so does each "skipped:" line of a
# step that passes. The last line is "N passed, N failed, N skipped". The
# counting helpers are in tests/lib.sh, which `make check` shares.
#
# The checks come in sections (sec_NAME below, in $SECTIONS' order):
#   sh tests/run.sh                  every section, one after the other
#   sh tests/run.sh section NAME RES one section, its lines, its time and counts in RES
#                                    (tests/step.sh's form, for tests/test.mk)
#   sh tests/run.sh footer           the lines printed before the count
# `make test` runs the sections as make targets (tests/test.mk), so that
# `make -j2 test` overlaps them and `make retest` repeats only what failed.
set -u
B=${B:-build}
LOG=$B/test-logs
mkdir -p "$LOG"
. tests/lib.sh
SECTIONS="matrix build suite asan valgrind cuda devices4 trace tsan fastpath fuzz examples checked fabric rdma install newcomer aarch64"

# tests/valgrind.supp: the threads that vendor runtimes start for themselves.
# --fair-sched: valgrind runs one thread at a time, and by default a thread
# that yields can take the turn straight back; xrt's waiters yield while
# they wait for another thread, which then may not run for seconds (the
# stream-destroy races hung past their alarm). A ticket lock runs each in turn.
VALGRIND="valgrind -q --fair-sched=try --error-exitcode=9 --leak-check=full --suppressions=tests/valgrind.supp"
double="$PWD/$B/doubles/libcudart.so.13"

sec_matrix() {
    echo "== compile matrix"
    sh tests/compile/matrix.sh > "$LOG/matrix.out" 2>&1
    rc=$?
    # a matrix that breaks, or leaves no line, is a failure, not zero checks
    [ "$rc" -eq 0 ] || bad "tests/compile/matrix.sh exited with status $rc" "$LOG/matrix.out"
    [ -s "$B/matrix.results" ] || bad "tests/compile/matrix.sh recorded no check" "$LOG/matrix.out"
    skip_lines "$LOG/matrix.out" | while read -r why; do echo "  $why"; done
    skipped=$((skipped + $(nskips "$LOG/matrix.out")))
    while IFS='|' read -r res name logf; do
        case $res in
        ok) ok "$name" ;;
        skip) skip "$name: $logf" ;;
        *) bad "$name" "$logf" ;;
        esac
    done < "$B/matrix.results"
}

# The build's own limit (BUILD_LIMIT, default 3600 s): it is no test that
# could hang, and on a loaded 2-core machine it took 1200 s.
sec_build() {
    echo "== build"
    if [ "${HAVE_CMOCKA:-1}" = 1 ]; then
        limit=$TEST_LIMIT TEST_LIMIT=${BUILD_LIMIT:-3600}
        step "build tests" $MAKE -s tests
        TEST_LIMIT=$limit
    else
        skip "${SKIP_CMOCKA:-test programs: cmocka.h not found}"
    fi
}

sec_suite() {
    echo "== runtime suite"
    for t in $TESTS; do
        [ "$t" = test_stress ] && continue
        [ -x "$B/plain/$t" ] && cmocka "$B/plain/$t"
    done
}

# protect_shadow_gap=0: the CUDA runtime maps memory where ASan's shadow gap
# would be, and fails to start without it.
sec_asan() {
    echo "== runtime suite under ASan+UBSan"
    for t in $TESTS; do
        [ -x "$B/asan/$t" ] && ASAN_OPTIONS=detect_leaks=1:protect_shadow_gap=0 cmocka "$B/asan/$t"
    done

}

# test_host_fn's test_inside_host_function (a forked child for each
# operation, over 2 minutes under valgrind: a third of the section) runs in
# the suite, asan and tsan sections, not here.
sec_valgrind() {
    echo "== runtime suite under valgrind"
    if have valgrind; then
        for t in $TESTS; do
            [ "$t" = test_stress ] && continue
            [ -x "$B/plain/$t" ] &&
                cmocka env XRT_TEST_SKIP=test_inside_host_function $VALGRIND "$B/plain/$t"
        done
        skip "test_host_fn's test_inside_host_function under valgrind: a child per operation, minutes (the suite, asan and tsan sections run it)"
    else
        skip "valgrind is not installed"
    fi
}

# What a machine with a GPU runs: cuda is the default backend, here on a test
# double of the CUDA runtime (tests/doubles/cudart_double.c) whose work is
# real and in order. Each program's groups run on cuda and cpu (the cpu
# groups beside a loaded cuda backend); under ASan+UBSan the cuda groups
# only (XRT_TEST_BACKENDS): the asan section ran the cpu groups.
sec_cuda() {
    echo "== runtime suite with cuda as the default (CUDA runtime test double)"
    if [ -f "$double" ]; then
        for t in $TESTS; do
            [ "$t" = test_stress ] && continue
            [ -x "$B/plain/$t" ] && cmocka env XRT_CUDA_LIBRARY="$double" "$B/plain/$t"
        done
        for t in $TESTS; do
            [ -x "$B/asan/$t" ] &&
                cmocka env XRT_CUDA_LIBRARY="$double" XRT_TEST_BACKENDS=cuda \
                    ASAN_OPTIONS=detect_leaks=1:protect_shadow_gap=0 "$B/asan/$t"
        done
        step "cuda_shutdown (test_shutdown's CUDA calls without xrt) on the double" "$B/gpu/cuda_shutdown" "$double"
    else
        skip "suite with cuda as the default: no CUDA headers, no runtime double"
    fi
}

# The shared suite again with four CPU devices: every test that loops over
# the devices, or copies between the first and the last, meets several.
sec_devices4() {
    echo "== runtime suite with XRT_CPU_DEVICES=4"
    cmocka env XRT_CPU_DEVICES=4 "$B/plain/test_suite"
}

sec_trace() {
    echo "== runtime suite through the tracing plugin"
    # Two CPU devices: enabling peer access needs a device other than the current.
    suite_on_trace plain "$B/plugins" env XRT_CPU_DEVICES=2 "$B/plain/test_suite"
    # test_devices (four CPU devices, set by the program) on the tracer: the
    # tests that mean "on the CPU" run there too (on_cpu, tests/xrt_test.h)
    program_on_trace devices plain "$B/plugins" "$B/plain/test_devices"
    # test_badinput on the tracer: each detail names the public call, not the
    # table's slot a forwarding plugin names (xrt_stream_from_native)
    program_on_trace badinput plain "$B/plugins" "$B/plain/test_badinput"
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
    # Graphs through the tracer with a timeline: a captured host function runs at
    # every launch, and the timeline's own events stay out of captures.
    cmocka env XRT_PLUGINS="$B/plugins/libxrt_trace.so" XRT_TRACE_BACKEND=cpu XRT_TRACE_JSON="$LOG/trace-graph.json" \
        "$B/plain/test_graph"
    if have jq; then
        step "suite on trace: its timeline is valid JSON" jq -e '.traceEvents | length > 0' "$tj"
    elif have python3; then
        step "suite on trace: its timeline is valid JSON" python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tj"
    else
        skip "suite on trace: its timeline (neither jq nor python3 is installed)"
    fi
    step "trace timeline: spans of a known program" env MAKE="$MAKE" sh tests/trace.sh
}

sec_tsan() {
    echo "== stress, kernels, the CPU engine and RDMA's cache under TSan"
    [ -x "$B/tsan/test_stress" ] && TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/tests/tsan.supp" cmocka "$B/tsan/test_stress"
    [ -x "$B/tsan/test_kernels" ] && TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/tests/tsan.supp" cmocka "$B/tsan/test_kernels"
    [ -x "$B/tsan/test_cpu" ] && TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/tests/tsan.supp" cmocka "$B/tsan/test_cpu"
    [ -x "$B/tsan/test_graph" ] && TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/tests/tsan.supp" cmocka "$B/tsan/test_graph"
    # IPC: the cases whose forked children use streams skip themselves here (a
    # child's stream starts a worker, and TSan starts no thread in the forked
    # child of a process with threads); the rest, fork during an export too, run
    [ -x "$B/tsan/test_ipc" ] && TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/tests/tsan.supp" cmocka "$B/tsan/test_ipc"
    # fork while other threads are in xrt, or its workers start and exit: the
    # parent's fork handlers under TSan (the children skip their streams, as above)
    [ -x "$B/tsan/test_fork" ] && TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/tests/tsan.supp" cmocka "$B/tsan/test_fork"
    [ -x "$B/tsan/test_devices" ] && TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/tests/tsan.supp" cmocka "$B/tsan/test_devices"
    # memory pools: threads and streams allocating from one pool, its blocks reused
    [ -x "$B/tsan/test_pools" ] && TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/tests/tsan.supp" cmocka "$B/tsan/test_pools"
    # managed memory: prefetches in stream order beside the host's use of it
    [ -x "$B/tsan/test_managed" ] && TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/tests/tsan.supp" cmocka "$B/tsan/test_managed"
    # RDMA's cache and contexts on the fake verbs: registrations racing frees and closes
    [ -x "$B/tsan/test_rdma" ] && TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/tests/tsan.supp" cmocka "$B/tsan/test_rdma"
    # thread exit: a thread's state given back (the case that calls xrt in the
    # last round of destructors skips: TSan's own limit, shown by late_destructor)
    [ -x "$B/tsan/test_thread_exit" ] && TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/tests/tsan.supp" cmocka "$B/tsan/test_thread_exit"
    # per-thread streams: threads exiting while xrt_shutdown closes their streams
    [ -x "$B/tsan/test_per_thread" ] && TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/tests/tsan.supp" cmocka "$B/tsan/test_per_thread"
    # a caller unit's per-thread stream in the calls the XRT_IMPL unit does out of line
    [ -x "$B/tsan/test_per_thread_units" ] && TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/tests/tsan.supp" cmocka "$B/tsan/test_per_thread_units"
    # calls from host functions, each case in a forked child: the CPU backend only
    # (the CUDA runtime double's threads in the parent make TSan refuse the
    # children's new threads)
    [ -x "$B/tsan/test_host_fn" ] && TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/tests/tsan.supp" cmocka "$B/tsan/test_host_fn"
    if [ -x "$B/tsan/late_destructor" ]; then
        step "late_destructor: code in every round of thread-exit destructors (no xrt)" "$B/plain/late_destructor"
        step "late_destructor under TSan still dies in TSan's runtime (else test_calls_from_later_destructors can run under TSan)" \
            sh -c "'$B/tsan/late_destructor' 2>&1 | grep -q 'ThreadSanitizer: SEGV'"
    fi
    # the stream-order checker's lock beside fork's handlers, xrt_shutdown and
    # threads (its racy cases race on their buffers on purpose: tsan_check.supp)
    [ -x "$B/tsan/test_check" ] && TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/tests/tsan_check.supp" cmocka "$B/tsan/test_check"
    # the GPU backend's code against the CUDA runtime double's own threads (host functions, streams)
    [ -x "$B/tsan/test_gpu" ] && [ -f "$double" ] &&
        TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/tests/tsan.supp" cmocka env XRT_CUDA_LIBRARY="$double" "$B/tsan/test_gpu"
    # two threads destroying one handle, with membarrier(2) and with the fallback
    # (the racing-use tests write one buffer from several streams on purpose)
    for t in test_handles test_handles_no_membarrier; do
        [ -x "$B/tsan/$t" ] && XRT_TEST_FILTER='test_double_destroy_*' TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/tests/tsan.supp" cmocka "$B/tsan/$t"
    done
}

sec_fastpath() {
    echo "== fast paths make no system call"
    if have strace; then
        step "cpu fast paths under strace" env CC="$CC" sh tests/fastpath.sh
    else
        skip "cpu fast paths under strace: strace is not installed"
    fi
}

# (make fuzz runs them for longer; through the Makefile once it includes fuzz.mk)
sec_fuzz() {
    echo "== fuzz targets replay their seed corpus"
    fuzzmk="-f tests/fuzz/fuzz.mk"
    grep -q 'tests/fuzz/fuzz.mk' Makefile && fuzzmk=""
    if sh tests/fuzz/have_libfuzzer.sh > "$LOG/libfuzzer.log" 2>&1; then
        step "fuzz targets: seed corpus" $MAKE -s $fuzzmk fuzz-seeds
    else
        skip "fuzz targets: $(tail -1 "$LOG/libfuzzer.log")"
    fi
}

sec_examples() {
    echo "== examples"
    step "examples: xrt_info, demo, vector_add" env MAKE="$MAKE" sh tests/examples.sh
    step "tools: xrt_info --json, bandwidth, plot, gpu_overhead" env MAKE="$MAKE" CUDA_HOME="$CUDA_HOME" sh tests/tools.sh
    step "xrt_info lists a plugin's backend" sh -c "XRT_PLUGINS=$B/plugins/libxrt_trace.so XRT_TRACE_FILE=/dev/null \
        $B/examples/xrt_info | grep '^  trace available'"
}

# Correct programs run clean under the stream-order checker (the examples
# section built the examples; this one runs no make, beside the sections that do).
sec_checked() {
    echo "== the test programs and examples under the stream-order checker"
    step "test programs and examples with XRT_CHECK=streams: no race report" env B="$B" sh tests/checked.sh programs examples
}

sec_fabric() {
    echo "== libfabric: fabric_rma and a2f_fabric, two processes over tcp on loopback"
    cmocka env MAKE="$MAKE" sh tests/fabric.sh
}

sec_rdma() {
    echo "== RDMA on soft-RoCE (two VMs)"
    cmocka sh tests/rdma/run.sh
    step "xrt_rdma.h compile checks" sh tests/rdma/compile.sh
}

sec_install() {
    echo "== install"
    step "install, pkg-config and CMake consumers, uninstall" env MAKE="$MAKE" CC="$CC" sh tests/install.sh
}

sec_newcomer() {
    echo "== a newcomer's machine"
    step "make run with build-essential alone (optional headers hidden)" env CC="$CC" sh tests/bare.sh
    step "README's examples run as shown, and every link resolves" env CC="$CC" sh tests/readme.sh
    step "REFERENCE's error table and return types match xrt.h" sh tests/errors.sh
    step "the layout lists of xrt.h, xrt_cache.h, xrt_check.h and DESIGN.md name their markers" sh tests/layout.sh
    step "xrt.h's kit declares exactly the private names of xrt.h that the other headers use" sh tests/kit.sh
    step "each build from only the headers the README names for it" env CC="$CC" sh tests/vendoring.sh
    step "every header, source and script has an SPDX licence line" sh tests/spdx.sh
}

sec_aarch64() {
    echo "== the CPU backend built for AArch64, run under qemu-aarch64"
    step "AArch64: the target follows the hwcaps" sh tests/aarch64.sh
}

footer() {
    # A security check that could not run on this machine is named here, next
    # to the count, not only in its program's log.
    grep -h '^skipped: setuid plugin case' "$LOG"/*test_plugin*.log 2> /dev/null | sort -u |
        sed 's/^skipped: /NOT RUN (security check): /'
    # The kill rate of the last `make mutants` (.ci/run runs it before make test).
    if [ -f "$B/mutants.log" ]; then grep -h '^mutants: [0-9]* of [0-9]* killed' "$B/mutants.log" | tail -1
    else echo "mutants: not run here (make mutants)"; fi
}

case ${1:-all} in
all)
    for s in $SECTIONS; do "sec_$s"; done
    footer
    echo "$pass passed, $fail failed, $skipped skipped"
    [ "$fail" -eq 0 ]
    ;;
section)
    [ $# -eq 3 ] && case " $SECTIONS " in *" $2 "*) true ;; *) false ;; esac ||
        { echo "tests/run.sh: section NAME RESULT, NAME one of: $SECTIONS" >&2; exit 2; }
    mkdir -p "$(dirname "$3")"
    t0=$(date +%s)
    "sec_$2" > "$3.tmp"
    echo "  time  $2: $(($(date +%s) - t0)) s" >> "$3.tmp"
    echo "counts $pass $fail $skipped" >> "$3.tmp"
    mv "$3.tmp" "$3"
    sed '$d' "$3"
    ;;
footer) footer ;;
*) echo "tests/run.sh: [section NAME RESULT | footer]" >&2; exit 2 ;;
esac
