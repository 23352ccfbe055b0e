# SPDX-License-Identifier: MIT
# The checks of `make test` (tests/run.sh) and `make check` (tests/check.mk),
# sourced by both: each check is a pass, a fail or a skip, counted in $pass,
# $fail and $skipped, and prints one line ("  ok    NAME", "  FAIL  NAME" with
# the end of its log, "  skipped: <reason>"). The caller sets B (the build
# directory) and LOG (where each check's output goes).
pass=0
fail=0
skipped=0

ok()  { pass=$((pass + 1)); echo "  ok    $1"; }
skip() { skipped=$((skipped + 1)); echo "  skipped: $1"; }
have() { command -v "$1" > /dev/null; }
show() { echo "  FAIL  $1"; sed 's/^/        /' "$2" | tail -40; }
bad() { fail=$((fail + 1)); show "$@"; }

# The "skipped: <reason>" lines of a log (once each), and how many.
skip_lines() { grep -h '^skipped: ' "$1" | sort -u; }
nskips() { skip_lines "$1" | wc -l; }

# The log of a step: its name made a file name, cut where a long command
# line would pass the file system's 255 bytes.
logof() { echo "$LOG/$(echo "$1" | tr -c 'A-Za-z0-9_.-' '_' | cut -c1-200).log"; }

# limited CMD...: CMD under a time limit, TEST_LIMIT seconds (default 1200,
# far above the longest check): a check that hangs fails, with a last line in
# its log that says so, rather than holding the whole run until an outer
# limit kills it without a word. timeout(1) kills CMD's process group.
TEST_LIMIT=${TEST_LIMIT:-1200}
# Each check's seconds go to $LOG/times ("<seconds> <command>"), for
# finding what takes the time.
limited() {
    lt0=$(date +%s)
    timeout -k 10 "$TEST_LIMIT" "$@"
    lrc=$?
    echo "$(($(date +%s) - lt0)) $*" >> "$LOG/times"
    if [ "$lrc" -eq 124 ] || [ "$lrc" -eq 137 ]; then
        echo "tests: still running after TEST_LIMIT=$TEST_LIMIT s (hung?): killed: $*"
    fi
    return "$lrc"
}

# step NAME CMD...: a single check.
step() {
    name=$1; shift
    log=$(logof "$name")
    if ! limited "$@" > "$log" 2>&1; then bad "$name" "$log"; return; fi
    # a step that printed nothing but why it skipped did not run
    if [ -s "$log" ] && ! grep -qv '^skipped: ' "$log"; then
        skip_lines "$log" | while read -r why; do echo "  $why"; done
        skipped=$((skipped + $(nskips "$log")))
        return
    fi
    ok "$name"
    skip_lines "$log" | sed 's/^/        /'
    skipped=$((skipped + $(nskips "$log")))
}

# cmocka PROGRAM: runs a test program and counts its tests: passed, failed
# and skipped (cmocka's "[  SKIPPED ] N test(s)"). A program that runs no
# test fails, unless it is a script that said why it skipped everything.
count() { sed -n "s/^\[  $1 *\] \([0-9]*\) test.*/\1/p" "$2" | awk '{s+=$1} END {print s+0}'; }
cmocka() {
    name="$*"
    log=$(logof "$name")
    limited "$@" > "$log" 2>&1
    rc=$?
    p=$(count PASSED "$log")
    f=$(count FAILED "$log")
    s=$(count SKIPPED "$log")
    grep -h 'skipped:' "$log" | sort -u | sed 's/^/        /'
    pass=$((pass + p))
    fail=$((fail + f))
    skipped=$((skipped + s))
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then bad "$name (exit $rc)" "$log"; return; fi
    if [ $((p + f + s)) -eq 0 ]; then
        if [ "$rc" -eq 0 ] && grep -q '^skipped: ' "$log"; then skip "$name: not run"; return; fi
        bad "$name: ran no test" "$log"
        return
    fi
    if [ "$f" -ne 0 ]; then show "$name: $f failed" "$log"; return; fi
    if [ "$s" -ne 0 ]; then echo "  ok    $name: $p tests, $s skipped"; else echo "  ok    $name: $p tests"; fi
}

# A test program with the tracing plugin in front of the CPU backend: a
# "PROGRAM on trace" group. The trace file ($LOG/trace-PROGRAM-FLAVOUR.txt)
# proves that the group ran on it.
program_on_trace() { # PROGRAM FLAVOUR PLUGIN-DIR COMMAND... (cmocka and step set $name)
    tprogram=$1 tflavour=$2 tdir=$3
    shift 3
    tf="$LOG/trace-$tprogram-$tflavour.txt"
    rm -f "$tf"
    cmocka env XRT_PLUGINS="$tdir/libxrt_trace.so" XRT_TRACE_BACKEND=cpu XRT_TRACE_FILE="$tf" XRT_TRACE_LOOKUPS=1 "$@"
    step "$tprogram ($tflavour) ran on trace" grep -q "^trace: init(target=cpu) -> success" "$tf"
}

# The shared suite so: tests/operations.sh reads its trace.
suite_on_trace() { program_on_trace suite "$@"; } # FLAVOUR PLUGIN-DIR COMMAND...
