#!/bin/sh
# SPDX-License-Identifier: MIT
# `make run` as on a machine with build-essential alone: in a private mount
# namespace (unshare -m, as root), the optional packages' headers and
# libraries are hidden (an empty directory over each directory, a file that
# fails to compile over each header, an empty file over each library), and a
# copy of the tree runs `make run` to the end. Its output must name each
# missing package in a "skipped:" line and end with the demo's verified line.
# Needs root and unshare; otherwise prints "skipped: <reason>" and passes.
set -eu
repo=$(pwd)
if [ "$(id -u)" -ne 0 ] || ! command -v unshare > /dev/null || ! unshare -m true 2> /dev/null; then
    echo "skipped: bare-machine make run: needs root and unshare -m"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/xrt-bare.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir "$tmp/tree" "$tmp/empty"
echo '#error hidden: as on a machine without this package' > "$tmp/hidden.h"
: > "$tmp/hidden.so"
# The tree as a fresh clone has it (tracked and new files, no build outputs).
git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$tmp/tree"

CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
cat > "$tmp/hide.sh" <<HIDE
set -eu
for d in /usr/include/infiniband /usr/include/hip /usr/include/rdma /opt/rocm "$CUDA_HOME"; do
    [ -d "\$d" ] && mount --bind "$tmp/empty" "\$d"
done
for h in /usr/include/cmocka.h /usr/include/cmocka_pbc.h; do
    [ -f "\$h" ] && mount --bind "$tmp/hidden.h" "\$h"
done
for l in /usr/lib/x86_64-linux-gnu/libcmocka.so* /usr/lib/x86_64-linux-gnu/libibverbs.so* \
         /usr/lib/x86_64-linux-gnu/libamdhip64.so* /usr/lib/x86_64-linux-gnu/libcudart.so*; do
    [ -f "\$l" ] && [ ! -L "\$l" ] && mount --bind "$tmp/hidden.so" "\$l"
done
for x in /usr/bin/hipcc; do # a tool: hidden by a file that is not executable
    [ -f "\$x" ] && mount --bind "$tmp/hidden.so" "\$x"
done
cd "$tmp/tree"
make run CC="${CC:-cc}" MAKEFLAGS=
HIDE
status=0
unshare -m sh "$tmp/hide.sh" > "$tmp/out" 2>&1 || status=$?
# indented: its "skipped:" lines are what this check expects, not skips of make test
sed 's/^/  make run: /' "$tmp/out"
[ "$status" -eq 0 ] || { echo "make run failed on a bare machine (exit $status)"; exit 1; }
for what in "CUDA backend" "HIP backend" "vector_add" "HIP code objects" "rdma_pingpong"; do
    grep -q "^skipped: .*$what" "$tmp/out" || { echo "no skipped: line for $what"; exit 1; }
done
grep -q "result verified" "$tmp/out"
grep -q "^  cpu   available" "$tmp/out"
