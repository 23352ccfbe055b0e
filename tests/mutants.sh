#!/bin/sh
# SPDX-License-Identifier: MIT
# Mutation testing: each mutant of tests/mutants.txt (one small defect, named)
# is applied to a scratch copy of the tree; the test programs it names are
# built there (plain, -O0: the build is most of the time) and run; one of
# them must fail. Fails when a mutant survives, when a mutant's original
# text is not in its file exactly once (a code change must not disable a
# mutant silently), when a mutant does not compile, or when the programs
# fail before any mutation. The last line is
# "mutants: K of N killed (P%)".
#   MUTANTS=name,name  only these (for working on one)
#   MUTANTS_LIST=file  another list (default tests/mutants.txt)
#   TIMEOUT=s          a test program that runs longer is killed (default 60)
set -u
cd "$(dirname "$0")/.."
LIST=${MUTANTS_LIST:-tests/mutants.txt}
MAKE=${MAKE:-make}
TIMEOUT=${TIMEOUT:-60}
ONLY=${MUTANTS:-}
[ -f "$LIST" ] || { echo "mutants: $LIST not found"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/xrt-mutants.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
tree=$tmp/tree
mkdir "$tree" "$tmp/orig"
git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$tree"
# (make's own job server: the build of several programs in parallel)
build() { (cd "$tree" && $MAKE -s -j2 CFLAGS="-O0 -g0" WARN= "$@"); }

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
# TO's; exit status 2 when it occurs 0 or several times.
apply() {
    awk -v fromf="$2" -v tof="$3" '
        BEGIN { getline from < fromf; getline to < tof }
        { text = text $0 "\n" }
        END {
            i = index(text, from)
            if (!i || index(substr(text, i + 1), from)) exit 2
            printf "%s%s%s", substr(text, 1, i - 1), to, substr(text, i + length(from)) > FILENAME
        }
    ' "$1"
}

# run_tests TESTS FILTER ENV: runs each program; 0 when all pass, else 1
# with the first failure's name in $tmp/killer. A program stops at its first
# failing test (CMOCKA_TEST_ABORT): a mutant that crashed a test may leave a
# lock held that the next test would wait on until the timeout.
run_tests() {
    for t in $1; do
        (cd "$tree" && env XRT_TEST_FILTER="${2:-*}" CMOCKA_TEST_ABORT=1 $3 timeout -k 5 "$TIMEOUT" "build/plain/$t") > "$tmp/run.log" 2>&1
        rc=$?
        [ $rc -eq 0 ] && continue
        case $rc in
        124 | 137) echo "$t (timed out after $TIMEOUT s)" ;;
        *) echo "$t (exit $rc)" ;;
        esac > "$tmp/killer"
        return 1
    done
    return 0
}

targets() { for t in $1; do printf 'build/plain/%s ' "$t"; done; echo "$2"; }
wanted() { case ",${ONLY:-$1}," in *",$1,"*) return 0 ;; esac; return 1; }

# Before any mutation, every program the list names builds and passes.
all_tests=$(cut -d'|' -f3 "$tmp/blocks" | tr ' ' '\n' | sort -u | tr '\n' ' ')
all_extra=$(cut -d'|' -f6 "$tmp/blocks" | tr ' ' '\n' | sort -u | tr '\n' ' ')
start=$(date +%s)
if ! build $(targets "$all_tests" "$all_extra") > "$tmp/build.log" 2>&1; then
    cat "$tmp/build.log"
    echo "mutants: the unmutated tree does not build"
    exit 1
fi
n=0
while IFS='|' read -r name file tests filter env extra; do
    n=$((n + 1))
    wanted "$name" || continue
    if ! run_tests "$tests" "$filter" "$env"; then
        tail -20 "$tmp/run.log"
        echo "mutants: $(cat "$tmp/killer") fails before any mutation (as run for $name)"
        exit 1
    fi
done < "$tmp/blocks"

total=0 killed=0 broken=0
n=0
while IFS='|' read -r name file tests filter env extra; do
    n=$((n + 1))
    wanted "$name" || continue
    total=$((total + 1))
    cp "$tree/$file" "$tmp/orig/file"
    apply "$tree/$file" "$tmp/from.$n" "$tmp/to.$n"
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "  BROKEN   $name: its text is not in $file exactly once: $(cat "$tmp/from.$n")"
        broken=$((broken + 1))
        continue
    fi
    t0=$(date +%s)
    if ! build $(targets "$tests" "$extra") > "$tmp/build.log" 2>&1; then
        sed 's/^/           /' "$tmp/build.log" | tail -8
        echo "  BROKEN   $name: does not compile"
        broken=$((broken + 1))
    elif run_tests "$tests" "$filter" "$env"; then
        echo "  SURVIVED $name ($file): $tests pass with it"
    else
        killed=$((killed + 1))
        echo "  killed   $name by $(cat "$tmp/killer") ($(($(date +%s) - t0)) s)"
    fi
    cp "$tmp/orig/file" "$tree/$file"
    # no binary built from the mutant is used again
    (cd "$tree" && for t in $tests; do rm -f "build/plain/$t"; done)
done < "$tmp/blocks"

[ "$total" -gt 0 ] || { echo "mutants: no mutant selected"; exit 1; }
echo "mutants: $(($(date +%s) - start)) s"
echo "mutants: $killed of $total killed ($((100 * killed / total))%)$([ $broken -eq 0 ] || echo ", $broken broken")"
[ "$killed" -eq "$total" ]
