#!/bin/sh
# SPDX-License-Identifier: MIT
# The examples run and say what they should: xrt_info lists every backend,
# demo verifies its copies, graph and graph_nodes their launches on the CPU, capture_library a library's node in a caller's capture, ipc two processes' writes on the CPU, a2f the chunks one
# process sends another (every byte), saxpy its kernel on the CPU and on each GPU backend, and vector_add, each
# either verifies its kernel (the GPU is there) or exits 1 with the backend's unavailable reason.
# Each program writes to a file that is shown afterwards: in a pipe (`| tee`)
# its exit status would be lost.
set -eu
B=build
$MAKE -s examples
$B/examples/xrt_info > $B/xrt_info.out
cat $B/xrt_info.out
for name in cuda hip cpu; do grep -q "^  $name " $B/xrt_info.out; done
$B/examples/demo > $B/demo.out
cat $B/demo.out
grep -q "result verified" $B/demo.out
XRT_BACKEND=cpu $B/examples/saxpy/saxpy > $B/saxpy.out
cat $B/saxpy.out
grep -q "result verified" $B/saxpy.out
XRT_BACKEND=cpu $B/examples/graph > $B/graph.out
cat $B/graph.out
grep -q "each result verified" $B/graph.out
XRT_BACKEND=cpu $B/examples/graph_nodes > $B/graph_nodes.out
cat $B/graph_nodes.out
grep -q "each result verified" $B/graph_nodes.out
XRT_BACKEND=cpu $B/examples/capture_library > $B/capture_library.out
cat $B/capture_library.out
grep -q "each stamp verified" $B/capture_library.out
XRT_BACKEND=cpu $B/examples/ipc > $B/ipc.out
cat $B/ipc.out
grep -q "each write verified" $B/ipc.out
XRT_BACKEND=cpu $B/examples/a2f > $B/a2f.out
cat $B/a2f.out
grep -q "every chunk arrived whole and in order" $B/a2f.out
[ "$(grep -c ' GB/s ' $B/a2f.out)" -eq 8 ] # a row for each chunk size, 4 KiB to 64 MiB
# saxpy on each GPU backend: verified where its GPU is (and an image for it
# was built), else exit status 1 and the backend's unavailable reason.
for gpu in cuda hip; do
    if grep -q "^  $gpu *available" $B/xrt_info.out; then
        if XRT_BACKEND=$gpu $B/examples/saxpy/saxpy > $B/saxpy.out 2> $B/saxpy.err; then
            cat $B/saxpy.out
            grep -q "result verified" $B/saxpy.out
        else
            cat $B/saxpy.out $B/saxpy.err
            grep -q "no image for $gpu arch" $B/saxpy.err
            echo "skipped: saxpy on $gpu: no image built for the device's arch"
        fi
    else
        status=0
        XRT_BACKEND=$gpu $B/examples/saxpy/saxpy > $B/saxpy.out 2> $B/saxpy.err || status=$?
        cat $B/saxpy.err
        [ "$status" -eq 1 ] && [ ! -s $B/saxpy.out ]
        grep -q "^saxpy: xrt_get_backend: XRT_BACKEND=$gpu: $gpu: unavailable: " $B/saxpy.err
    fi
done
[ -x $B/examples/vector_add ] || { echo "skipped: vector_add (no nvcc)"; exit 0; }
if grep -q "^  cuda  available" $B/xrt_info.out; then
    $B/examples/vector_add > $B/vector_add.out
    cat $B/vector_add.out
    grep -q "verified" $B/vector_add.out
else
    if $B/examples/vector_add 2> $B/vector_add.err; then exit 1; fi
    cat $B/vector_add.err
    grep -q "^vector_add: cuda: unavailable: " $B/vector_add.err
fi
