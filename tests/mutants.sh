#!/bin/sh
# SPDX-License-Identifier: MIT
# Mutation testing: each mutant of tests/mutants.txt (one small defect, named)
# is applied to a scratch copy of the tree; the test programs it names are
# built there (plain, -O0: the build is most of the time) and run; one of
# them must fail. Fails when a mutant survives, when a mutant's original
# text is not in its file exactly once (a code change must not disable a
# mutant silently), when a mutant does not compile, or when the programs
# fail before any mutation. A survivor's programs run up to three times: a
# kill in a later run counts, marked "(flaky)". After the list, its
# survivors, broken and flaky lines come again; the last line is
# "mutants: K of N killed (P%)".
#   MUTANTS=name,name  only these (for working on one)
#   MUTANTS_LIST=file  another list (default tests/mutants.txt)
#   TIMEOUT=s          a test program that runs longer is killed (default 60)
#   MUTANT_JOBS=n      mutants tried at once, each in its own copy of the
#                      tree (default: the number of CPUs)
#   MUTANT_CC=cc       the compiler of the mutants' builds (default: clang
#                      where there is one: at -O0 it builds a test program
#                      in about a third of gcc's time)
#   MUTANTS_TEXTS=1    only check that each mutant's text is in its file
#                      exactly once, nothing built or run (make check's step)
set -u
cd "$(dirname "$0")/.."
LIST=${MUTANTS_LIST:-tests/mutants.txt}
MAKE=${MAKE:-make}
TIMEOUT=${TIMEOUT:-60}
ONLY=${MUTANTS:-}
JOBS=${MUTANT_JOBS:-$(nproc 2>/dev/null || echo 1)}
CC=${MUTANT_CC:-$(command -v clang > /dev/null 2>&1 && echo clang || echo cc)}
[ -f "$LIST" ] || { echo "mutants: $LIST not found"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/xrt-mutants.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
tree=$tmp/tree
# build DIR TARGETS...: (make's own job server: several programs in parallel)
# The Makefile's probes ran once ($probes, words VAR=value): each make of
# the thousand skips them (with clang they took half a program's build).
build() { d=$1; shift; (cd "$d" && $MAKE -s -j2 CC="$CC" CFLAGS="-O0 -g0" WARN= $probes "$@" < /dev/null); }

# The list: blocks of "key value" lines separated by blank lines; keys name,
# file, from, to, tests, and optional filter (XRT_TEST_FILTER), env (words
# put before each test program's command) and build (more make targets).
# Each block becomes one line of $tmp/blocks: name|file|tests|filter|env|build
# with its from and to texts in $tmp/from.N and $tmp/to.N.
awk -v dir="$tmp" '
    function flush() {
        if (name != "") printf "%s|%s|%s|%s|%s|%s\n", name, file, tests, filter, env, extra > (dir "/blocks")
        name = file = tests = filter = env = extra = ""
    }
    /^#/ { next }
    /^[ \t]*$/ { flush(); next }
    {
        key = $1; val = substr($0, length($1) + 1); sub(/^[ \t]+/, "", val)
        if (key == "name") { n++; name = val }
        else if (key == "from") printf "%s", val > (dir "/from." n)
        else if (key == "to") printf "%s", val > (dir "/to." n)
        else if (key == "file") file = val
        else if (key == "tests") tests = val
        else if (key == "filter") filter = val
        else if (key == "env") env = val
        else if (key == "build") extra = val
        else { print "mutants: unknown key " key " in block " n > "/dev/stderr"; bad = 1 }
    }
    END { flush(); exit bad }
' "$LIST" || exit 1

# apply FILE FROM TO: replaces the one occurrence of FROM's text in FILE by
# TO's; exit status 2 when it occurs 0 or several times. The file is read as
# one record (RS a byte no source holds): joining its lines one by one took
# mawk seconds on the largest headers.
# TO empty: only the test, FILE left as it is.
apply() {
    awk -v fromf="$2" -v tof="${3:-}" '
        BEGIN { getline from < fromf; if (tof != "") getline to < tof; RS = "\001" }
        { text = text $0 }
        END {
            i = index(text, from)
            if (!i || index(substr(text, i + 1), from)) exit 2
            if (tof != "") printf "%s%s%s", substr(text, 1, i - 1), to, substr(text, i + length(from)) > FILENAME
        }
    ' "$1"
}

# run_tests DIR OUT TESTS FILTER ENV: runs each program of the tree at DIR;
# 0 when all pass, else 1 with the first failure's name in OUT.killer (its
# output in OUT.log). A program stops at its first
# failing test (CMOCKA_TEST_ABORT): a mutant that crashed a test may leave a
# lock held that the next test would wait on until the timeout.
run_tests() {
    d=$1 out=$2; shift 2
    for t in $1; do
        (cd "$d" && env XRT_TEST_FILTER="${2:-*}" CMOCKA_TEST_ABORT=1 $3 timeout -k 5 "$TIMEOUT" "build/plain/$t") < /dev/null > "$out.log" 2>&1
        rc=$?
        [ $rc -eq 0 ] && continue
        # the case that failed: the last one begun (its name helps a filter)
        in=$(sed -n 's/^\[ RUN      \] \([^ ]*\).*/ in \1/p' "$out.log" | tail -1)
        case $rc in
        124 | 137) echo "$t (timed out after $TIMEOUT s$in)" ;;
        *) echo "$t (exit $rc$in)" ;;
        esac > "$out.killer"
        return 1
    done
    return 0
}

targets() { for t in $1; do printf 'build/plain/%s ' "$t"; done; echo "$2"; }
wanted() { case ",${ONLY:-$1}," in *",$1,"*) return 0 ;; esac; return 1; }

# MUTANTS_TEXTS=1: each selected mutant's text once in its file, in the tree
# as it is (apply's test alone); nothing else.
if [ "${MUTANTS_TEXTS:-0}" = 1 ]; then
    n=0 bad=0
    while IFS='|' read -r name file tests filter env extra; do
        n=$((n + 1))
        wanted "$name" || continue
        [ -f "$file" ] && apply "$file" "$tmp/from.$n" && continue
        echo "mutants: $name: its text is not in $file exactly once: $(cat "$tmp/from.$n")"
        bad=$((bad + 1))
    done < "$tmp/blocks"
    echo "mutants: $n texts, $bad not found exactly once"
    [ $bad -eq 0 ]
    exit
fi

mkdir "$tree" "$tmp/orig"
git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$tree"
probes=$(cd "$tree" && $MAKE -s --no-print-directory CC="$CC" probes < /dev/null) || exit 1

# Before any mutation, every program the selected mutants name builds and passes.
while IFS='|' read -r name file tests filter env extra; do
    wanted "$name" && echo "$name|$file|$tests|$filter|$env|$extra"
done < "$tmp/blocks" > "$tmp/selected"
all_tests=$(cut -d'|' -f3 "$tmp/selected" | tr ' ' '\n' | sort -u | tr '\n' ' ')
all_extra=$(cut -d'|' -f6 "$tmp/selected" | tr ' ' '\n' | sort -u | tr '\n' ' ')
start=$(date +%s)
if ! build "$tree" $(targets "$all_tests" "$all_extra") > "$tmp/build.log" 2>&1; then
    cat "$tmp/build.log"
    echo "mutants: the unmutated tree does not build"
    exit 1
fi
# Each distinct run (programs, filter, environment) once, JOBS at a time:
# worker W takes every JOBS-th line of $tmp/runs.
cut -d'|' -f3-5 "$tmp/selected" | sort -u > "$tmp/runs"
precheck() {
    w=$1 k=0
    while IFS='|' read -r tests filter env; do
        k=$((k + 1))
        [ $((k % JOBS)) -eq "$w" ] || continue
        run_tests "$tree" "$tmp/pre.$w" "$tests" "$filter" "$env" && continue
        tail -20 "$tmp/pre.$w.log"
        echo "mutants: $(cat "$tmp/pre.$w.killer") fails before any mutation (as run with filter '${filter:-*}')"
        return 1
    done < "$tmp/runs"
}
w=0 pids=
while [ $w -lt "$JOBS" ]; do precheck $w > "$tmp/pre.$w.out" & pids="$pids $!" w=$((w + 1)); done
failed=0
for pid in $pids; do wait "$pid" || failed=1; done
if [ $failed -ne 0 ]; then cat "$tmp"/pre.*.out; exit 1; fi

# try W: worker W (0 <= W < JOBS) tries every JOBS-th selected mutant in
# its own copy of the tree; each result line goes to $tmp/out.W, prefixed
# with the mutant's number so that the report keeps the list's order.
try() {
    w=$1 d=$tmp/tree.$1 n=0 k=0
    while IFS='|' read -r name file tests filter env extra; do
        n=$((n + 1))
        wanted "$name" || continue
        k=$((k + 1))
        [ $((k % JOBS)) -eq "$w" ] || continue
        printf '%05d ' $n
        cp "$d/$file" "$d.orig"
        apply "$d/$file" "$tmp/from.$n" "$tmp/to.$n"
        if [ $? -ne 0 ]; then
            echo "  BROKEN   $name: its text is not in $file exactly once: $(cat "$tmp/from.$n")"
            continue
        fi
        t0=$(date +%s)
        if ! build "$d" $(targets "$tests" "$extra") > "$d.build" 2>&1; then
            echo "  BROKEN   $name: does not compile: $(grep -m1 error "$d.build")"
        elif run_tests "$d" "$d" "$tests" "$filter" "$env"; then
            # A survivor's programs run up to twice more: a test that
            # catches the defect only in some runs is named "flaky".
            try=2
            while [ $try -le 3 ] && run_tests "$d" "$d" "$tests" "$filter" "$env"; do try=$((try + 1)); done
            if [ $try -le 3 ]; then
                echo "  killed   $name by $(cat "$d.killer") on run $try of 3 (flaky) ($(($(date +%s) - t0)) s)"
            else
                echo "  SURVIVED $name ($file): $tests pass with it 3 times ($(grep -h -o -E '(PASSED|SKIPPED) +\] [0-9]+' "$d.log" | sed 's/ *\]//' | tr '\n' ' '))"
            fi
        else
            echo "  killed   $name by $(cat "$d.killer") ($(($(date +%s) - t0)) s)"
        fi
        cp "$d.orig" "$d/$file"
        # no binary built from the mutant is used again (nor the test
        # programs' XRT_IMPL unit, where the mutant was in a header)
        (cd "$d" && for t in $tests; do rm -f "build/plain/$t"; done
         case $file in xrt*.h) rm -f build/plain/xrt_impl.o ;; esac)
    done < "$tmp/blocks" > "$tmp/out.$w"
}

mv "$tree" "$tmp/tree.0"
w=1
while [ $w -lt "$JOBS" ]; do cp -a "$tmp/tree.0" "$tmp/tree.$w"; w=$((w + 1)); done
w=0
while [ $w -lt "$JOBS" ]; do try $w & w=$((w + 1)); done
wait
sort "$tmp"/out.* | cut -c7-
total=$(cat "$tmp"/out.* | wc -l)
killed=$(grep -c '^ *[0-9]* *killed' "$tmp"/out.* /dev/null | awk -F: '{ s += $2 } END { print s + 0 }')
broken=$(grep -c '^ *[0-9]* *BROKEN' "$tmp"/out.* /dev/null | awk -F: '{ s += $2 } END { print s + 0 }')

[ "$total" -gt 0 ] || { echo "mutants: no mutant selected"; exit 1; }
echo "mutants: $(($(date +%s) - start)) s"
# the lines that need a reader again after the list, where a log's tail shows them
sort "$tmp"/out.* | cut -c7- | grep -E '^  (SURVIVED|BROKEN)|\(flaky\)'
echo "mutants: $killed of $total killed ($((100 * killed / total))%)$([ $broken -eq 0 ] || echo ", $broken broken")"
[ "$killed" -eq "$total" ]
