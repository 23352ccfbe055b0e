# SPDX-License-Identifier: MIT
# The RDMA test plan, run in both VMs by tests/rdma/vm-init.sh (sourced, with
# XRT_HOST = a or b, XRT_SELF and XRT_PEER set, rxe0 up).
#   host a: the cross-host test (server), pingpong (server), fabric_rma
#           (target), a2f_fabric (receiver), the single-host suite
#           (plain, ASan+UBSan, TSan), the cache benchmark, and on its two NUMA nodes the placement tests
#           of XRT_CPU_DEVICES=numa (test_devices' test_numa_*) and
#           xrt_info's listing of the two devices and the device-to-NIC table;
#   host b: the cross-host test (client), pingpong (client), fabric_rma
#           (initiator), a2f_fabric (sender).
# cmocka programs print their own summaries; the other steps print the same
# lines, so that one count covers everything. Every step has a time limit.
failures=0

# step NAME SECONDS CMD...: a step that is not a cmocka program
step() {
    name=$1 limit=$2
    shift 2
    echo "[ RUN      ] $name"
    if timeout "$limit" "$@"; then
        echo "[       OK ] $name"
        echo "[  PASSED  ] 1 test(s)."
    else
        echo "[  FAILED  ] $name (exit $?)"
        echo "[  FAILED  ] 1 test(s), listed above"
        failures=$((failures + 1))
    fi
}

# cmocka SECONDS CMD...: a cmocka program
cmocka() {
    limit=$1
    shift
    timeout "$limit" "$@" || { echo "cmocka: $* exited with $?"; failures=$((failures + 1)); }
}

# fabric ROLE [PEER PORT]: examples/fabric_rma over libfabric's verbs
# provider (verbs;ofi_rxm), target on host a, initiator on host b
fabric() {
    role=$1
    shift
    if ! command -v fabric_rma > /dev/null; then
        echo "skipped: fabric_rma over verbs;ofi_rxm: not built (libfabric-dev is not installed)"
        return
    fi
    step "fabric_rma over verbs;ofi_rxm, $role on host $XRT_HOST" 150 \
        env MALLOC_MMAP_THRESHOLD_=131072 fabric_rma --provider "verbs;ofi_rxm" --address "$XRT_SELF" --port 18517 --timeout 60 "$@"
}

# a2f ROLE [PEER PORT]: examples/a2f_fabric over verbs;ofi_rxm, receiver on
# host a, sender on host b: chunks of 4 KiB to 1 MiB (the VMs have 768 MB),
# through xrt and on libfabric alone, every chunk checked (107 per path).
a2f() {
    role=$1
    shift
    if ! command -v a2f_fabric > /dev/null; then
        echo "skipped: a2f_fabric over verbs;ofi_rxm: not built (libfabric-dev is not installed)"
        return
    fi
    step "a2f_fabric over verbs;ofi_rxm, $role on host $XRT_HOST" 240 sh -c '
        a2f_fabric --provider "verbs;ofi_rxm" --address "$0" --port 18518 --timeout 60 --backend cpu --max 1M \
            --bytes 256K --rounds 1 "$@" > /tmp/a2f.out 2>&1
        rc=$?
        cat /tmp/a2f.out
        [ $rc -eq 0 ] || exit 1
        if [ $# -eq 0 ]; then
            grep -q "^a2f_fabric: receiver: 214 chunks checked: every chunk arrived whole and in order, 4 KiB to 1 MiB$" /tmp/a2f.out
        else
            [ "$(grep -cE "^ +[0-9]+ KiB +[0-9.]+ GB/s +[0-9.]+ GB/s +[0-9.]+x +[0-9.]+ GB/s$" /tmp/a2f.out)" -eq 5 ]
        fi' "$XRT_SELF" "$@"
}

# numa: on host a's two nodes (vm.sh), XRT_CPU_DEVICES=numa gives two
# devices, each placed on its node (test_devices checks a host function's
# CPUs and get_mempolicy's node of the device memory), and xrt_info lists
# them with their nodes and a row per device in the device-to-NIC table.
numa() {
    if ! command -v test_devices > /dev/null; then
        echo "skipped: the NUMA placement tests: test_devices not built"
        return
    fi
    step "host a has NUMA nodes 0-1, CPU 1 on node 1" 10 \
        sh -c '[ "$(cat /sys/devices/system/node/online)" = 0-1 ] && [ "$(cat /sys/devices/system/node/node1/cpulist)" = 1 ]'
    cmocka 120 env XRT_TEST_FILTER='test_numa_*' test_devices
    XRT_CPU_DEVICES=numa timeout 30 xrt_info > /tmp/info.txt 2>&1
    cat /tmp/info.txt
    step "xrt_info: two CPU devices on nodes 0 and 1, a table row for each" 10 sh -c '
        grep -q "^  cpu   available, 2 devices$" /tmp/info.txt &&
        grep -q "^    device 1: CPU device 1 of 2, NUMA node 1: " /tmp/info.txt &&
        [ "$(grep -c "^      pci none, uuid none, numa node [01]$" /tmp/info.txt)" = 2 ] &&
        sed -n "/^rdma topology:/,\$p" /tmp/info.txt | awk "
            NR == 2 { ok = \$1 == \"rxe0\" && NF == 1 }
            NR == 3 { ok = ok && \$1 == \"cpu\" && \$2 == 0 && NF == 3 }
            NR == 4 { ok = ok && \$1 == \"cpu\" && \$2 == 1 && NF == 3 }
            NR == 5 { ok = ok && \$1 == \"legend:\" }
            END { exit !(ok && NR == 10) }"'
}

echo "== host $XRT_HOST ($XRT_SELF): $(rdma link show rxe0/1)"
if [ "$XRT_HOST" = a ]; then
    cmocka 240 test_rdma_vm --two-hosts server
    step "rdma_pingpong, server on host a, device memory of the cpu backend" 120 rdma_pingpong -n 200 -s 8192
    step "rdma_pingpong --help" 10 sh -c 'rdma_pingpong --help | grep -q "^Usage: rdma_pingpong"'
    fabric target
    a2f receiver
    cmocka 300 test_rdma_vm
    cmocka 300 env ASAN_OPTIONS=detect_leaks=1 test_rdma_vm_asan
    cmocka 300 env TSAN_OPTIONS=halt_on_error=1 test_rdma_vm_tsan
    step "bench: rdma_cache" 240 rdma_cache
    numa
else
    cmocka 240 test_rdma_vm --two-hosts client "$XRT_PEER"
    step "rdma_pingpong, client on host b, pinned memory" 120 rdma_pingpong -n 200 -m pinned -s 8192 "$XRT_PEER"
    fabric initiator "$XRT_PEER" 18517
    a2f sender "$XRT_PEER" 18518
fi
[ $failures -eq 0 ]
