#!/bin/sh
# SPDX-License-Identifier: MIT
# README.md as a reader follows it, and the step-by-step examples it leads to
# in REFERENCE.md. Every fenced block of README.md is marked on the line
# before it (REFERENCE.md marks only the blocks of its examples), either
#   <!-- checked by tests/readme.sh: EXAMPLE FILE -->  the block is the file
#        FILE of EXAMPLE; FILE "run" is the commands the reader types, and
#        FILE "output" what they print; or
#   <!-- not run by tests/readme.sh: REASON -->        a command not run here.
# Each example is built and run in an empty directory holding a copy of the
# headers the README names for it, with the commands shown; what they print
# must be the README's output, timings ("1.597 ms") aside. The XRT_LOG=debug
# sample is compared with what the build with both GPU backends prints here,
# numbers and paths aside, where this machine is the one it describes (the
# CUDA runtime without a driver, no AMD GPU). Last, every relative link of
# the Markdown files must lead to a file and, with a #, to one of its headings.
set -eu
# The reader's shell, not make's: under `make test` these would make the
# commands' own make print its directories.
unset MAKEFLAGS MAKELEVEL MFLAGS MAKEOVERRIDES
repo=$(pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/xrt-readme.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
CC=${CC:-cc}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
cpu_headers="xrt.h xrt_backends.h xrt_cache.h xrt_check.h xrt_cpu.h"
bad=0
fail() { echo "FAILED: $*"; bad=1; }

# Every fenced block is marked; indented code blocks are not used.
awk '
    /^```/ && !in_block { in_block = 1
        if (prev !~ /^<!-- (checked by tests\/readme\.sh: [a-z]+ [A-Za-z_.]+|not run by tests\/readme\.sh: [^ ].*) -->$/)
            printf "README.md:%d: a code block without a tests/readme.sh marker on the line before\n", NR
        prev = $0; next }
    /^```/ && in_block { in_block = 0; prev = $0; next }
    !in_block && prev == "" && /^    [^ ]/ { printf "README.md:%d: an indented code block (use a fenced, marked one)\n", NR }
    { prev = $0 }' README.md > "$tmp/unmarked"
if [ -s "$tmp/unmarked" ]; then cat "$tmp/unmarked"; bad=1; fi

# The files whose marked examples run here, in the order a reader meets them.
docs="README.md REFERENCE.md"
# Every example the files mark is one this script runs.
known="first kernel streams race debug cmake installed"
for ex in $(cat $docs | sed -n 's/^<!-- checked by tests\/readme.sh: \([a-z]*\) .*/\1/p' | sort -u); do
    case " $known " in *" $ex "*) ;; *) fail "$docs: example $ex: tests/readme.sh does not run it" ;; esac
done

# block EXAMPLE FILE: the lines of the fenced block after its marker.
block() {
    awk -v m="<!-- checked by tests/readme.sh: $1 $2 -->" '
        $0 == m { found = 1; next }
        found == 1 && /^```/ { found = 2; next }
        found == 2 && /^```/ { exit }
        found == 2 { print }' $(for d in $docs; do echo "$repo/$d"; done)
}
# example NAME DIR: writes every file of NAME into DIR (created).
example() {
    mkdir -p "$2"
    for f in $(cd "$repo" && cat $docs | sed -n "s/^<!-- checked by tests\/readme.sh: $1 \([A-Za-z_.]*\) -->\$/\1/p"); do
        block "$1" "$f" > "$2/$f"
        [ -s "$2/$f" ] || fail "$docs: the block of $1 $f is empty"
    done
    [ -s "$2/run" ] || fail "$docs: example $1 has no run block"
}
# run NAME DIR: runs DIR/run there as the reader would (cc is $CC), stdout to DIR/out.
run() {
    echo "--- $1: $(tr '\n' ';' < "$2/run")"
    sed "s/^cc /$CC /" "$2/run" > "$2/run.sh"
    if ! (cd "$2" && sh -e run.sh > out 2> err); then
        cat "$2/out" "$2/err"; fail "$1: the commands failed"; return 1
    fi
    # CMake's own progress is not the program's output
    grep -v '^-- \|^\[ *[0-9]*%\]\|^Scanning \|^Consolidate ' "$2/out" > "$2/out.prog" || true
    mv "$2/out.prog" "$2/out"
    cat "$2/out"
}
# same NAME EXPECTED DIR: DIR/out is EXPECTED, timings and addresses aside;
# nothing on stderr.
same() {
    mask='s/[0-9][0-9.]* ms/N ms/g; s/0x[0-9a-f][0-9a-f]*/0xN/g'
    if [ -s "$3/err" ]; then cat "$3/err"; fail "$1: it printed to stderr"; fi
    sed "$mask" "$2" > "$3/want"
    sed "$mask" "$3/out" > "$3/got"
    diff "$3/want" "$3/got" || fail "$1: the output is not the README's"
}
cpu_example() {
    example "$1" "$tmp/$1"
    for h in $cpu_headers; do cp "$repo/$h" "$tmp/$1/"; done
    if run "$1" "$tmp/$1"; then same "$1" "$tmp/$1/output" "$tmp/$1"; fi
}

# The first program, then the examples that follow it in its directory. The
# kernel cache is a new one, so that the first run builds.
export XRT_CACHE_DIR="$tmp/cache"
unset XRT_BACKEND XRT_LOG XRT_CACHE XRT_CC 2> /dev/null || true
for ex in first kernel streams race; do cpu_example "$ex"; done

# The first program with both GPU backends, under XRT_LOG=debug.
example debug "$tmp/debug"
cp "$repo"/xrt*.h "$tmp/first/hello.c" "$tmp/debug/"
why=
[ -f "$CUDA_HOME/include/cuda_runtime_api.h" ] || why="no CUDA headers in $CUDA_HOME/include"
printf '#include <hip/hip_runtime_api.h>\n' | $CC -D__HIP_PLATFORM_AMD__ -E -x c - > /dev/null 2>&1 || why="no HIP headers"
[ ! -e /dev/kfd ] || why="/dev/kfd: an AMD GPU driver is here"
ldconfig=$(command -v ldconfig || echo /sbin/ldconfig)
if $ldconfig -p 2> /dev/null | grep -q 'libcuda\.so\.1 '; then why="libcuda.so.1: an NVIDIA driver is here"; fi
$ldconfig -p 2> /dev/null | grep -q 'libcudart\.so' || why="no CUDA runtime library"
if [ -n "$why" ]; then
    echo "skipped: the XRT_LOG=debug sample: $why (it shows a CUDA runtime without a driver, no AMD GPU)"
else
    sed 's/^\(XRT_LOG=debug \.\/hello\)$/\1 2>\&1/' "$tmp/debug/run" > "$tmp/debug/run2" && mv "$tmp/debug/run2" "$tmp/debug/run"
    grep -q '2>&1' "$tmp/debug/run" || fail "$docs: the debug block does not end with 'XRT_LOG=debug ./hello'"
    if run debug "$tmp/debug"; then
        # numbers and paths vary with the machine's CUDA version
        mask='s|/[^ ():;]*|PATH|g; s/[0-9][0-9]*/N/g'
        sed "$mask" "$tmp/debug/output" > "$tmp/debug/want"
        sed "$mask" "$tmp/debug/out" > "$tmp/debug/got"
        diff "$tmp/debug/want" "$tmp/debug/got" || fail "debug: the XRT_LOG=debug sample is not what the program prints"
    fi
fi

# CMake: the headers vendored in third_party/xrt, then an installed xrt.
if ! command -v cmake > /dev/null 2>&1; then
    echo "skipped: the CMake examples: cmake not found"
else
    example cmake "$tmp/cmake"
    mkdir -p "$tmp/cmake/third_party/xrt"
    for h in $cpu_headers; do cp "$repo/$h" "$tmp/cmake/third_party/xrt/"; done
    cp "$tmp/first/hello.c" "$tmp/cmake/"
    if CC=cc run cmake "$tmp/cmake"; then same cmake "$tmp/first/output" "$tmp/cmake"; fi
    # installed: the block is the CMakeLists.txt; the commands are the vendored ones
    mkdir -p "$tmp/installed"
    block installed CMakeLists.txt > "$tmp/installed/CMakeLists.txt"
    [ -s "$tmp/installed/CMakeLists.txt" ] || fail "$docs: no installed CMakeLists.txt"
    cp "$tmp/first/hello.c" "$tmp/cmake/run" "$tmp/installed/"
    if ! make -s install PREFIX="$tmp/prefix" > "$tmp/install.log" 2>&1; then
        cat "$tmp/install.log"; fail "make install PREFIX=$tmp/prefix"
    elif CMAKE_PREFIX_PATH="$tmp/prefix" CC=cc run installed "$tmp/installed"; then
        same installed "$tmp/first/output" "$tmp/installed"
    fi
fi

# Environment variables: every one that the headers and tools read, and
# every one README's table names, has its row in REFERENCE's "Every
# variable, in full" (or a row such as XRT_RDMA_* that covers it).
awk '/^## Environment variables: how values are read/ { on = 1 } on && /^## Each backend/ { exit }
     on && /^\| `XRT_/ { print }' "$repo/REFERENCE.md" > "$tmp/env_full"
in_full() {
    grep -qF "\`$1\`" "$tmp/env_full" && return 0
    for w in $(grep -o '`XRT_[A-Z0-9_]*\*`' "$tmp/env_full" | tr -d '`'); do
        case $1 in "${w%\*}"*) return 0 ;; esac
    done
    case $1 in *'*') grep -qF "\`${1%\*}" "$tmp/env_full" && return 0 ;; esac
    return 1
}
read_vars=$(grep -ohE '(getenv|xrt__env_[a-z]+|xrt__getenv_code)\("XRT_[A-Z0-9_]+"' "$repo"/xrt*.h "$repo"/tools/*.c |
               sed 's/.*"\(XRT_[A-Z0-9_]*\)"/\1/' | sort -u)
readme_vars=$(awk '/^## Environment variables$/ { on = 1; next } on && /^## / { exit } on && /^\| `XRT_/ { print }' \
                  "$repo/README.md" | grep -o '`XRT_[A-Z0-9_*]*`' | tr -d '`')
[ -n "$read_vars" ] && [ -n "$readme_vars" ] || fail "tests/readme.sh: no variables found in the headers or in README's table"
before_env=$bad
bad=0
set -f # XRT_RDMA_* is a name, not a pattern
for v in $read_vars; do
    in_full "$v" || fail "REFERENCE.md: $v (read by xrt) has no row in \"Every variable, in full\""
done
for v in $readme_vars; do
    in_full "$v" || fail "REFERENCE.md: $v (in README's table) has no row in \"Every variable, in full\""
done
set +f
[ "$bad" = 1 ] || echo "environment variables: REFERENCE's full table has each one"
[ "$before_env" = 0 ] || bad=1

# Links: [text](path#anchor) of every Markdown file, outside code blocks.
# Anchors are GitHub's: the heading in lower case, without punctuation but
# - and _, spaces as -.
anchors() {
    awk '/^```/ { c = !c; next } !c && /^#+ / { h = $0; sub(/^#+ /, "", h); h = tolower(h)
         gsub(/[^a-z0-9 _-]/, "", h); gsub(/ /, "-", h); print h }' "$1"
}
for md in README.md REFERENCE.md UPGRADING.md DESIGN.md TESTING.md bench/RESULTS.md; do
    [ -f "$md" ] || { fail "$md: missing"; continue; }
    dir=$(dirname "$md")
    awk '/^```/ { c = !c; next } !c { s = $0
         while (match(s, /\]\([^)]*\)/)) { print substr(s, RSTART + 2, RLENGTH - 3); s = substr(s, RSTART + RLENGTH) } }' "$md" |
    while IFS= read -r link; do
        case $link in http://* | https://* | mailto:*) continue ;; esac
        file=${link%%#*}
        if [ -z "$file" ]; then target=$md; else target=$dir/$file; fi
        if [ ! -e "$target" ]; then echo "$md: link ($link): no file $target"; continue; fi
        case $link in
        *#*) anchors "$target" | grep -qx "${link#*#}" || echo "$md: link ($link): no heading #${link#*#} in $target" ;;
        esac
    done
done > "$tmp/links"
if [ -s "$tmp/links" ]; then cat "$tmp/links"; bad=1; else echo "links: every relative link resolves"; fi
exit "$bad"
