#!/bin/sh
# SPDX-License-Identifier: MIT
# The RDMA tests on a real kernel RDMA stack: builds the programs of
# tests/rdma/rdma.mk, boots two soft-RoCE VMs (tests/rdma/vm.sh) and runs
# tests/rdma/plan.sh in them. The output holds the guests' cmocka lines
# ("[  PASSED  ] N test(s).", "[  FAILED  ] N test(s)") and ends with
# "N passed, N failed". Prints "skipped: <reason>" and exits 0 only when this
# machine cannot run the VMs. Takes about 1 minute on 2 cores (the first run
# also fetches the kernel package, ~70 MB).
set -u
cd "$(dirname "$0")/../.."
B=${B:-build}
MAKE=${MAKE:-make}
$MAKE -s -f tests/rdma/rdma.mk B="$B" rdma-programs || { echo "0 passed, 1 failed"; exit 1; }
# the NUMA placement tests and xrt_info, on host a's two NUMA nodes
$MAKE -s B="$B" "$B/plain/test_devices" "$B/examples/xrt_info" || { echo "0 passed, 1 failed"; exit 1; }
mkdir -p "$B/rdma"
# examples/fabric_rma over libfabric's verbs provider, where libfabric is installed
fabric=
$MAKE -s B="$B" "$B/examples/fabric_rma" > "$B/rdma/fabric-build.out" 2>&1 && [ -x "$B/examples/fabric_rma" ] &&
    fabric=$B/examples/fabric_rma
$MAKE -s B="$B" "$B/examples/a2f_fabric" >> "$B/rdma/fabric-build.out" 2>&1 && [ -x "$B/examples/a2f_fabric" ] &&
    fabric="$fabric $B/examples/a2f_fabric"
: > "$B/rdma/vm.out"
sh tests/rdma/vm.sh tests/rdma/plan.sh "$B/rdma/test_rdma_vm" "$B/rdma/test_rdma_vm_asan" "$B/rdma/test_rdma_vm_tsan" \
    "$B/examples/rdma_pingpong" "$B/bench/rdma_cache" "$B/plain/test_devices" "$B/examples/xrt_info" $fabric \
    > "$B/rdma/vm.out" 2>&1 &
pid=$!
tail -n +1 -f "$B/rdma/vm.out" --pid=$pid 2> /dev/null || wait $pid
wait $pid
rc=$?
if [ $rc -eq 77 ]; then
    exit 0 # vm.sh printed "skipped: <reason>"
fi
count() { sed -n "s/^\[  $1  \] \([0-9]*\) test.*/\1/p" "$B/rdma/vm.out" | awk '{s += $1} END {print s + 0}'; }
passed=$(count PASSED)
failed=$(count FAILED)
if [ $rc -ne 0 ] && [ "$failed" -eq 0 ]; then
    echo "[  FAILED  ] 1 test(s): the VMs did not finish (status $rc)"
    failed=1
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ $rc -eq 0 ]
