#!/bin/sh
# SPDX-License-Identifier: MIT
# Each test alone: every test of every test program (or of those named) run
# by itself (XRT_TEST_FILTER), on the default backend and with the CUDA
# runtime double, so that none depends on what an earlier test left.
# Prints each test that fails alone and exits 1 if any did. Not part of
# `make test` (about 10 minutes on 2 cores); run it after changing a test's
# setup or the order of a program's tests.
# Usage: sh tests/alone.sh [test_x ...]   (build/plain/ built first: make tests)
set -u
B=${B:-build}
double=$PWD/$B/doubles/libcudart.so.13
progs=${*:-$(cd "$B/plain" && ls test_*)}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
failed=0
for t in $progs; do
    for lib in "" "$double"; do
        [ -n "$lib" ] && [ ! -f "$lib" ] && continue
        for n in $(env ${lib:+XRT_CUDA_LIBRARY=$lib} "$B/plain/$t" < /dev/null 2>&1 | sed -n 's/^\[ RUN      \] //p' | sort -u); do
            env ${lib:+XRT_CUDA_LIBRARY=$lib} XRT_TEST_FILTER="$n" timeout 300 "$B/plain/$t" < /dev/null > "$out" 2>&1
            rc=$?
            if [ $rc -ne 0 ] || grep -qE '^\[  (FAILED|ERROR) ' "$out"; then
                echo "FAIL  $t $n${lib:+ (CUDA runtime double)} (exit $rc)"
                grep -E '^\[  (ERROR|FAILED) |^\[   LINE   \]|error:' "$out" | head -5 | sed 's/^/        /'
                failed=1
            fi
        done
    done
done
[ $failed = 0 ] && echo "alone: every test passes by itself"
exit $failed
