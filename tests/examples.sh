#!/bin/sh
# SPDX-License-Identifier: MIT
# The examples run and say what they should: xrt_info lists every backend,
# demo verifies its copies, saxpy its kernel on the CPU, and vector_add either verifies its kernel (a CUDA
# GPU is there) or exits 1 with the backend's unavailable reason.
set -eu
B=build
$MAKE -s examples
$B/examples/xrt_info > $B/xrt_info.out
cat $B/xrt_info.out
for name in cuda hip cpu; do grep -q "^  $name " $B/xrt_info.out; done
$B/examples/demo | tee $B/demo.out
grep -q "result verified" $B/demo.out
XRT_BACKEND=cpu $B/examples/saxpy/saxpy | tee $B/saxpy.out
grep -q "result verified" $B/saxpy.out
[ -x $B/examples/vector_add ] || { echo "skipped: vector_add (no nvcc)"; exit 0; }
if grep -q "^  cuda  available" $B/xrt_info.out; then
    $B/examples/vector_add | tee $B/vector_add.out
    grep -q "verified" $B/vector_add.out
else
    if $B/examples/vector_add 2> $B/vector_add.err; then exit 1; fi
    cat $B/vector_add.err
    grep -q "^vector_add: cuda: unavailable: " $B/vector_add.err
fi
