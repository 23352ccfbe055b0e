#!/bin/sh
# SPDX-License-Identifier: MIT
# The places of an operation that the compiler cannot check (see "Adding an
# operation" in xrt_backends.h). Every operation of XRT__BACKEND_OPS must
#   readme        have a row in the README's table "What each backend
#                 supports" (under "## API") naming its public call
#                 xrt_<name> in the first column and saying what the cpu,
#                 cuda and hip backends do in theirs;
#   suite TRACE   be called by tests/test_suite.c through the tracing plugin
#                 on the CPU backend, and succeed at least once: TRACE is the
#                 trace file of that run (XRT_TRACE_LOOKUPS=1). An operation
#                 that the CPU backend does not have (xrt_cpu.h defines
#                 xrt__cpu_<name> as xrt__unsupported_<name>) must have been
#                 answered "not supported"; xrt's own pointer lookups are
#                 pointer_get_attributes.
# Each missing place is printed with the operation and the file; the exit
# status is the number of them (0: none).
set -u
CC=${CC:-cc}
what=${1:-}

# The operations, in the list's order, as the compiler expands the list.
ops=$(printf '#include "xrt.h"\n#define OP(name, params, args) XRT_OPERATION name\nXRT__BACKEND_OPS(OP)\n' |
      $CC -std=c11 -E -P -I. -x c - | grep -o 'XRT_OPERATION [a-z_0-9]*' | cut -d' ' -f2)
[ -n "$ops" ] || { echo "no operations found in XRT__BACKEND_OPS (xrt_backends.h)"; exit 1; }
missing=0

case $what in
readme)
    # The table's first column spells calls as `xrt_<name>`, as tests/test_suite.c maps them (public_calls);
    # the next four are the CUDA / HIP counterpart and what cpu, cuda and hip do.
    title="What each backend supports"
    rows=$(awk -v t="### $title" '$0 == t { on = 1; next } on && /^#/ { exit } on && /^\| / { print }' README.md)
    [ -n "$rows" ] || { echo "README.md: no table under \"### $title\""; exit 1; }
    for op in $ops; do
        row=$(printf '%s\n' "$rows" | awk -F'|' -v op="xrt_$op" '
            { c = $2; gsub(/[^A-Za-z_0-9]+/, " ", c); n = split(c, w, " ")
              for (i = 1; i <= n; i++) if (w[i] == op) { print; exit } }')
        if [ -z "$row" ]; then
            echo "operation $op: its call xrt_$op has no row in the table \"$title\" (under \"## API\") of README.md"
            missing=$((missing + 1))
        elif ! printf '%s\n' "$row" | awk -F'|' '{ for (i = 4; i <= 6; i++) if ($i ~ /^ *$/) exit 1; exit NF < 8 }'; then
            echo "operation $op: its row in the table \"$title\" of README.md does not say what cpu, cuda and hip do"
            missing=$((missing + 1))
        fi
    done
    ;;
suite)
    trace=${2:?usage: operations.sh suite TRACE-FILE}
    [ -s "$trace" ] || { echo "$trace: no trace"; exit 1; }
    for op in $ops; do
        want="success"
        grep -q "^#define xrt__cpu_$op xrt__unsupported_$op\b" xrt_cpu.h && want="operation not supported by this backend"
        grep -q "^trace: $op(.*-> $want " "$trace" && continue
        [ "$op" = pointer_get_attributes ] && grep -q "^trace: pointer lookup(" "$trace" && continue
        echo "operation $op: tests/test_suite.c never calls it with the answer \"$want\" on the CPU backend"
        missing=$((missing + 1))
    done
    ;;
*)
    echo "usage: sh tests/operations.sh readme | suite TRACE-FILE"
    exit 1
    ;;
esac
exit $missing
