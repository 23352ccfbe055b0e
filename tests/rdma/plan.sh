# SPDX-License-Identifier: MIT
# The RDMA test plan, run in both VMs by tests/rdma/vm-init.sh (sourced, with
# XRT_HOST = a or b, XRT_SELF and XRT_PEER set, rxe0 up).
#   host a: the cross-host test (server), pingpong (server), fabric_rma
#           (target), the single-host suite (plain, ASan+UBSan, TSan), the
#           cache benchmark;
#   host b: the cross-host test (client), pingpong (client), fabric_rma
#           (initiator).
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

echo "== host $XRT_HOST ($XRT_SELF): $(rdma link show rxe0/1)"
if [ "$XRT_HOST" = a ]; then
    cmocka 240 test_rdma_vm --two-hosts server
    step "rdma_pingpong, server on host a, device memory of the cpu backend" 120 rdma_pingpong -n 200 -s 8192
    step "rdma_pingpong --help" 10 sh -c 'rdma_pingpong --help | grep -q "^Usage: rdma_pingpong"'
    fabric target
    cmocka 300 test_rdma_vm
    cmocka 300 env ASAN_OPTIONS=detect_leaks=1 test_rdma_vm_asan
    cmocka 300 env TSAN_OPTIONS=halt_on_error=1 test_rdma_vm_tsan
    step "bench: rdma_cache" 240 rdma_cache
else
    cmocka 240 test_rdma_vm --two-hosts client "$XRT_PEER"
    step "rdma_pingpong, client on host b, pinned memory" 120 rdma_pingpong -n 200 -m pinned -s 8192 "$XRT_PEER"
    fabric initiator "$XRT_PEER" 18517
fi
[ $failures -eq 0 ]
