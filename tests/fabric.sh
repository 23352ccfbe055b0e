#!/bin/sh
# SPDX-License-Identifier: MIT
# examples/fabric_rma on libfabric's tcp provider, two processes on loopback
# (127.0.0.1): xrt buffers written and read with fi_write and fi_read, then
# freed, allocated again at the same address and registered again; the old
# key must not reach the new buffer. Prints cmocka-style lines
# ("[  PASSED  ] 1 test(s)." per check) for tests/run.sh to count, and
# "skipped: <reason>" (exit 0) where libfabric is not installed. Every
# process runs under a time limit; fabric_rma bounds each of its own waits.
# Then examples/a2f_fabric: a2f's chunked transfer over tcp on loopback,
# through xrt and on libfabric alone, every chunk checked, a row per size.
set -u
cd "$(dirname "$0")/.."
B=${B:-build}
MAKE=${MAKE:-make}
OUT=$B/fabric
EX=$B/examples/fabric_rma
STUB=$B/doubles/stub/libcudart.so.13
mkdir -p "$OUT"
failures=0

built=$($MAKE -s "$EX" 2>&1) || { echo "$built"; echo "[  FAILED  ] 1 test(s): building fabric_rma"; exit 1; }
if [ ! -x "$EX" ]; then
    echo "$built" | grep '^skipped: ' || echo "skipped: fabric_rma was not built"
    exit 0
fi

check() { # check NAME COMMAND...: one test
    name=$1
    shift
    echo "[ RUN      ] $name"
    if "$@"; then
        echo "[       OK ] $name"
        echo "[  PASSED  ] 1 test(s)."
    else
        echo "[  FAILED  ] $name"
        echo "[  FAILED  ] 1 test(s), listed above"
        failures=$((failures + 1))
    fi
}

has() { # has FILE TEXT: FILE holds the line TEXT (fixed string, whole line)
    grep -qxF "$2" "$1" || { echo "missing in $1: $2"; sed 's/^/    /' "$1"; return 1; }
}

# listening FILE WHO PID: waits up to 30 s for the line "WHO: listening on
# 127.0.0.1 port N" in FILE, the output of the listening process PID, and sets
# $port to N; fails, showing FILE, when PID ends first or the line never comes.
listening() {
    k=0
    while ! grep -q "^$2: listening on " "$1" 2> /dev/null; do
        k=$((k + 1))
        if [ $k -gt 300 ] || ! kill -0 "$3" 2> /dev/null; then
            wait "$3"
            echo "$2 did not start listening within 30 s:"
            sed 's/^/    /' "$1"
            return 1
        fi
        sleep 0.1
    done
    port=$(sed -n "s/^$2: listening on 127\\.0\\.0\\.1 port \\([0-9]*\\)\$/\\1/p" "$1")
}

# pair NAME TARGET-ARGS -- INITIATOR-ARGS: the target in the background, the
# initiator on the port it prints; their outputs in $OUT/NAME.{target,initiator}.
# glibc moves a freed 1 MiB block's size to the heap (its dynamic mmap
# threshold), so the next allocation would land elsewhere; a fixed threshold
# lets munmap + mmap give the address back, the case that matters here.
pair() {
    n=$1
    shift
    ta=
    while [ "$1" != -- ]; do ta="$ta $1"; shift; done
    shift
    t=$OUT/$n.target i=$OUT/$n.initiator
    rm -f "$t" "$i"
    # shellcheck disable=SC2086
    MALLOC_MMAP_THRESHOLD_=131072 FI_PROVIDER=tcp timeout 60 "$EX" --timeout 20 $ta > "$t" 2>&1 &
    tpid=$!
    listening "$t" "fabric_rma: target" $tpid || return 1
    FI_PROVIDER=tcp timeout 60 "$EX" --timeout 20 "$@" 127.0.0.1 "$port" > "$i" 2>&1
    irc=$?
    wait $tpid
    trc=$?
    echo "target (exit $trc):"
    sed 's/^/    /' "$t"
    echo "initiator (exit $irc):"
    sed 's/^/    /' "$i"
    [ $trc -eq 0 ] && [ $irc -eq 0 ] || return 1
    has "$t" "fabric_rma: target: fi_write of 1048576 bytes from the initiator: every byte verified" &&
        has "$i" "fabric_rma: initiator: fi_read of 1048576 bytes: every byte verified" &&
        grep -q '^fabric_rma: target: freed and allocated again: the same address 0x[0-9a-f]*$' "$t" &&
        has "$t" "fabric_rma: target: old key 0x1, new key 0x2" &&
        has "$t" "fabric_rma: target: fi_write with the new key: every byte verified" &&
        grep -q '^fabric_rma: initiator: fi_write with the old key: refused: ' "$i" &&
        has "$t" "fabric_rma: target: the old key did not reach the new buffer: every byte unchanged" &&
        has "$t" "fabric_rma: target: all checks passed" &&
        has "$i" "fabric_rma: initiator: all checks passed"
}

usage() {
    "$EX" --help > "$OUT/help.out" && grep -q '^Usage: fabric_rma \[options\] ' "$OUT/help.out" || return 1
    "$EX" --size 0 > /dev/null 2> "$OUT/usage.err"
    [ $? -eq 2 ] && has "$OUT/usage.err" "fabric_rma: --size: '0' is not a whole number from 1 to 1073741824" || return 1
    # the options of examples/fabric_setup.h, shared with a2f_fabric
    "$EX" 127.0.0.1 > /dev/null 2> "$OUT/usage.err"
    [ $? -eq 2 ] && has "$OUT/usage.err" "fabric_rma: the initiator needs HOST and PORT" || return 1
    "$EX" --port 1 localhost 7 > /dev/null 2> "$OUT/usage.err"
    [ $? -eq 2 ] && has "$OUT/usage.err" "fabric_rma: HOST: 'localhost' is not an IPv4 address"
}

# GPU memory without a GPU: the stub CUDA runtime of bench/ hands out host
# memory that xrt records as CUDA device memory; Debian's libfabric has no
# CUDA hmem, which fabric_rma must say instead of registering it.
no_cuda_hmem() {
    XRT_LOG=none XRT_CUDA_LIBRARY=$PWD/$STUB FI_PROVIDER=tcp timeout 30 "$EX" --backend cuda --timeout 5 \
        > "$OUT/cuda.out" 2> "$OUT/cuda.err"
    rc=$?
    cat "$OUT/cuda.out" "$OUT/cuda.err"
    [ $rc -eq 1 ] &&
        has "$OUT/cuda.out" "fabric_rma: target: 1048576 bytes of device memory from backend cuda: registering it as FI_HMEM_CUDA" &&
        grep -q '^fabric_rma: target: this libfabric has no CUDA hmem: ' "$OUT/cuda.err"
}

# xrt_rdma_open_fabric's own tests: a recording domain, then the tcp
# provider; on the CPU and on the CUDA runtime double, and under ASan+UBSan.
for t in plain asan; do
    if $MAKE -s "$B/$t/test_fabric" > "$OUT/build-$t.log" 2>&1 && [ -x "$B/$t/test_fabric" ]; then
        FI_PROVIDER=tcp timeout 120 "$B/$t/test_fabric" 2>&1 || failures=$((failures + 1))
    else
        cat "$OUT/build-$t.log"
        echo "[  FAILED  ] 1 test(s): building $t/test_fabric"
        failures=$((failures + 1))
    fi
done
if $MAKE -s "$B/doubles/libcudart.so.13" > /dev/null 2>&1 && [ -f "$B/doubles/libcudart.so.13" ]; then
    XRT_CUDA_LIBRARY=$PWD/$B/doubles/libcudart.so.13 FI_PROVIDER=tcp timeout 120 "$B/plain/test_fabric" 2>&1 ||
        failures=$((failures + 1))
fi

check "fabric_rma --help and a bad option" usage
check "fabric_rma over tcp on loopback: cpu device memory" pair device --backend cpu -- --backend cpu
check "fabric_rma over tcp on loopback: cpu pinned memory" pair pinned --backend cpu --memory pinned -- --backend cpu --memory pinned
if $MAKE -s "$STUB" > /dev/null 2>&1 && [ -f "$STUB" ]; then
    check "fabric_rma: CUDA memory, libfabric without CUDA hmem" no_cuda_hmem
else
    echo "skipped: fabric_rma with CUDA memory: no stub CUDA runtime (the CUDA toolkit's headers are missing)"
fi
# a2f_fabric: the receiver in the background, the sender on its port;
# 1 MiB per chunk size and path (at least 8 chunks), one round each, so
# 376 chunks per path: 256 of 4 KiB, 64 of 16 KiB, 16 of 64 KiB, 8 of each
# larger size, after 3 untimed ones (758 in all). Outputs in $OUT/a2f.{receiver,sender}.
A2F=$B/examples/a2f_fabric
a2f_pair() {
    r=$OUT/a2f.receiver s=$OUT/a2f.sender
    rm -f "$r" "$s"
    FI_PROVIDER=tcp timeout 120 "$A2F" --backend cpu --timeout 30 > "$r" 2>&1 &
    rpid=$!
    listening "$r" "a2f_fabric: receiver" $rpid || return 1
    FI_PROVIDER=tcp timeout 120 "$A2F" --backend cpu --timeout 30 --bytes 1M --rounds 1 127.0.0.1 "$port" > "$s" 2>&1
    src=$?
    wait $rpid
    rrc=$?
    echo "receiver (exit $rrc):"
    sed 's/^/    /' "$r"
    echo "sender (exit $src):"
    sed 's/^/    /' "$s"
    [ $rrc -eq 0 ] && [ $src -eq 0 ] || return 1
    rows=$(grep -E '^ +[0-9]+ KiB +[0-9.]+ GB/s +[0-9.]+ GB/s +[0-9.]+x +[0-9.]+ GB/s$' "$s" | awk '{print $1}' | paste -sd' ')
    [ "$rows" = "4 16 64 256 1024 4096 16384 65536" ] || { echo "rows for chunk sizes (KiB): '$rows'"; return 1; }
    has "$s" "a2f_fabric: sender: every chunk written; the receiver checked each" &&
        has "$r" "a2f_fabric: receiver: 758 chunks checked: every chunk arrived whole and in order, 4 KiB to 64 MiB"
}

# Bad input: a usage error (2); no receiver within the timeout: a failure (1) that says so.
a2f_errors() {
    "$A2F" --path sideways > /dev/null 2> "$OUT/a2f-usage.err"
    [ $? -eq 2 ] && has "$OUT/a2f-usage.err" "a2f_fabric: --path: unknown value 'sideways' (valid: xrt, raw, both)" || return 1
    "$A2F" --address 10.0.0 > /dev/null 2> "$OUT/a2f-usage.err"
    [ $? -eq 2 ] && has "$OUT/a2f-usage.err" "a2f_fabric: --address: '10.0.0' is not an IPv4 address" || return 1
    "$A2F" --timeout 0 127.0.0.1 7 > /dev/null 2> "$OUT/a2f-usage.err"
    [ $? -eq 2 ] && has "$OUT/a2f-usage.err" "a2f_fabric: --timeout: '0' is not a whole number from 1 to 3600" || return 1
    FI_PROVIDER=tcp timeout 60 "$A2F" --backend cpu --timeout 1 127.0.0.1 9 > "$OUT/a2f-alone.out" 2> "$OUT/a2f-alone.err"
    rc=$?
    cat "$OUT/a2f-alone.err"
    [ $rc -eq 1 ] && grep -q '^a2f_fabric: sender: connecting to 127\.0\.0\.1 port 9: Connection refused (tried for 1 s)$' "$OUT/a2f-alone.err"
}

built=$($MAKE -s "$A2F" 2>&1) || { echo "$built"; echo "[  FAILED  ] 1 test(s): building a2f_fabric"; exit 1; }
if [ -x "$A2F" ]; then
    check "a2f_fabric: bad options, no receiver" a2f_errors
    check "a2f_fabric over tcp on loopback: xrt and libfabric alone, every chunk checked" a2f_pair
else
    echo "$built" | grep '^skipped: ' || echo "skipped: a2f_fabric was not built"
fi
[ $failures -eq 0 ]
