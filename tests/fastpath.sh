#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds tests/fastpath/fastpath.c and traces it: between each getppid() and
# the next getpgrp() no thread may make any other system call.
set -eu
B=build
command -v strace > /dev/null || { echo "skipped: strace is not installed"; exit 0; }
mkdir -p $B
${CC:-cc} -std=c11 -O2 -I. -o $B/fastpath tests/fastpath/fastpath.c -lpthread
strace -f -qq -o $B/fastpath.trace $B/fastpath
awk '/getppid\(/ { inside = 1; regions++; next }
     /getpgrp\(/ { inside = 0; next }
     inside && !/resumed>|exited with|\+\+\+/ { print "syscall in a fast path: " $0; bad = 1 }
     END { if (regions != 2) { print "expected 2 traced regions, saw " regions; bad = 1 }; exit bad }' $B/fastpath.trace
echo "no system call in 500 enqueues, 1000 finished-stream queries, idle-stream records and event queries"
