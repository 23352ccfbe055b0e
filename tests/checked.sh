#!/bin/sh
# SPDX-License-Identifier: MIT
# Correct programs run clean under the stream-order checker (issue 49):
#   sh tests/checked.sh suite      the shared suite with XRT_CHECK=streams, on
#                                  the CPU and, where the CUDA runtime double is
#                                  built, with cuda as the default on it (make
#                                  check: a minute less than every program)
#   sh tests/checked.sh programs   every test program with XRT_CHECK=streams,
#                                  on the CPU and, where the CUDA runtime double
#                                  is built, with cuda as the default on it (a
#                                  program whose races are on purpose catches
#                                  its reports itself: test_check, test_plugin)
#   sh tests/checked.sh examples   the examples that run on the CPU, likewise
#                                  (`make examples` built them)
# A report ("xrt: race:") or the checker's exit status (66) fails; each
# program's output is kept in $B/checked-NAME.out.
set -u
B=${B:-build}
double="$PWD/$B/doubles/libcudart.so.13"
status=0

# run NAME COMMAND...: the command with checking on.
run() {
    name=$1
    shift
    out="$B/checked-$name.out"
    rc=0
    env XRT_CHECK=streams XRT_CHECK_EXITCODE=66 "$@" > "$out" 2>&1 || rc=$?
    n=$(grep -c '^xrt: race:' "$out")
    if [ "$rc" -ne 0 ] || [ "$n" -ne 0 ]; then
        echo "FAIL $name: exit status $rc, $n race reports ($out)"
        grep -A3 '^xrt: race:' "$out" | head -40
        tail -5 "$out"
        status=1
    else
        echo "ok   $name: no race report"
    fi
}

suite() {
    run suite "$B/plain/test_suite"
    if [ -f "$double" ]; then
        run suite-cuda-double env XRT_CUDA_LIBRARY="$double" "$B/plain/test_suite"
    else
        echo "skipped: the suite on the CUDA runtime double under the checker: the double is not built"
    fi
}

programs() {
    for t in "$B"/plain/test_*; do
        [ -x "$t" ] || continue
        name=$(basename "$t")
        run "$name" "$t"
        [ -f "$double" ] && run "$name-cuda-double" env XRT_CUDA_LIBRARY="$double" "$t"
    done
    [ -f "$double" ] || echo "skipped: the test programs on the CUDA runtime double under the checker: the double is not built"
}

examples() {
    for e in demo graph graph_nodes capture_library ipc a2f saxpy/saxpy; do
        if [ -x "$B/examples/$e" ]; then
            run "$(basename "$e")" env XRT_BACKEND=cpu "$B/examples/$e"
        else
            echo "skipped: example $e under the checker: not built"
        fi
    done
}

for what in "$@"; do
    case $what in
    suite | programs | examples) $what ;;
    *) echo "checked.sh: unknown part $what (suite, programs, examples)"; exit 2 ;;
    esac
done
exit $status
