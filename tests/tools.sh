#!/bin/sh
# SPDX-License-Identifier: MIT
# The command-line tools and their one convention (--help exits 0; a bad
# argument says what is wrong, lists the valid values of a choice and exits
# 2; an xrt failure is one line and exits 1): xrt_info (text and JSON,
# checked with a real JSON parser, strings with quotes, control characters
# and bad UTF-8 included; whether the stream-order checker is on), bandwidth (table, CSV with min/median/max and
# where it was measured, bidirectional copies, progress line), rdma_pingpong
# (its arguments) and `make plot` (a valid PNG of the expected size, and an
# SVG with the CSV's date and versions). A tool this needs that is
# missing fails under CI (CI is set) and is skipped elsewhere.
set -eu
B=build
T=$B/tools
BIN=$B/examples
MAKE=${MAKE:-make}
mkdir -p $T

fail() { echo "FAIL: $*"; exit 1; }
have() {
    command -v "$1" > /dev/null && return 0
    [ -z "${CI:-}" ] || fail "$1 is needed (CI installs it)"
    echo "skipped: $2 ($1 is not installed)"
    return 1
}

# expect STATUS PATTERN CMD...: CMD exits with STATUS and its stderr matches PATTERN.
expect() {
    want=$1 pattern=$2
    shift 2
    set +e
    "$@" > $T/out 2> $T/err
    got=$?
    set -e
    [ "$got" -eq "$want" ] || { cat $T/err; fail "'$*' exited $got, not $want"; }
    grep -q -- "$pattern" $T/err || { cat $T/err; fail "'$*': stderr lacks '$pattern'"; }
}

# json FILE FILTER: FILE parses as JSON and jq's FILTER is true for it.
json() { jq -e "$2" "$1" > /dev/null || { cat "$1"; fail "$1: not JSON, or not $2"; }; }

$MAKE -s examples

echo "== xrt_info"
$BIN/xrt_info --help | grep -q "^Usage: xrt_info" || fail "xrt_info --help"
expect 2 "unknown option '--bogus'" $BIN/xrt_info --bogus
expect 2 "takes no value" $BIN/xrt_info --json=yes
expect 2 "unexpected argument 'extra'" $BIN/xrt_info extra
$BIN/xrt_info > $T/info.txt
$BIN/xrt_info --json > $T/info.json
# whether the stream-order checker is on (XRT_CHECK), in the text and the JSON
grep -q "^checking: off$" $T/info.txt || fail "xrt_info does not say that checking is off"
XRT_CHECK=streams $BIN/xrt_info > $T/check.txt || fail "xrt_info under XRT_CHECK=streams"
grep -q "^checking: streams (XRT_CHECK)$" $T/check.txt || fail "xrt_info does not say that checking is on"
XRT_CHECK=streams $BIN/xrt_info --json > $T/check.json || fail "xrt_info --json under XRT_CHECK=streams"
# xrt's log as the help says: warnings on stderr, XRT_LOG=none silences them
$BIN/xrt_info --help | grep -q "xrt's warnings go to stderr" || fail "xrt_info --help: what the log prints"
XRT_CPU_DEVICES=abc $BIN/xrt_info 2>&1 > /dev/null | grep -q "^xrt: warn: XRT_CPU_DEVICES=abc" ||
    fail "xrt_info: no warning on stderr"
XRT_LOG=none XRT_CPU_DEVICES=abc $BIN/xrt_info > /dev/null 2> $T/none.err
[ ! -s $T/none.err ] || { cat $T/none.err; fail "xrt_info: XRT_LOG=none prints"; }
# REFERENCE.md's sample output has the cpu backend's capabilities line as printed
awk '/^  cpu / { c = 1; next } c && /^    capabilities: / { print; exit }' $T/info.txt > $T/caps.txt
[ -s $T/caps.txt ] && grep -qxF "    $(cat $T/caps.txt)" REFERENCE.md ||
    fail "REFERENCE.md's sample of xrt_info lacks '$(cat $T/caps.txt)'"
if have jq "xrt_info --json checks"; then
    json $T/info.json '.xrt_version and (.backends | map(.name) | contains(["cuda", "hip", "cpu"]))'
    json $T/info.json '.checking == "off"'
    json $T/check.json '.checking == "streams"'
    # REFERENCE.md lists the JSON's capabilities, in order
    caps=$(jq -r '[.backends[] | select(.name == "cpu") | .capabilities | keys_unsorted[] | "`\(.)`"] | join(", ")' $T/info.json)
    tr -s '\n ' '  ' < REFERENCE.md | grep -qF "\`capabilities\` (an object of booleans: $caps)" ||
        fail "REFERENCE.md does not list the capabilities of xrt_info --json: $caps"
    json $T/info.json '.backends[] | select(.name == "cpu") | .available and (.devices | length) == 1
                       and .devices[0].total_memory_bytes > 0 and .capabilities.host_func
                       and .devices[0].numa_node == null'
    XRT_CPU_DEVICES=numa $BIN/xrt_info --json > $T/numa.json
    json $T/numa.json '.backends[] | select(.name == "cpu") | .devices[0].numa_node == 0'
    XRT_CPU_DEVICES=numa $BIN/xrt_info | grep -q "^      pci none, uuid none, numa node 0$" || fail "xrt_info: numa node 0"
    # each device has its compile target and a 16-digit fingerprint; RDMA and plugins are listed
    json $T/info.json '.backends[] | select(.name == "cpu") | (.devices[0].target | startswith("cpu:"))
                       and (.devices[0].fingerprint | test("^[0-9a-f]{16}$"))'
    json $T/info.json '(.plugins | type) == "array" and (.rdma.devices | type) == "array" and (.rdma.topology | type) == "array"'
    if [ -f build/plugins/libxrt_trace.so ]; then
        XRT_PLUGINS=build/plugins/libxrt_trace.so:/nonexistent/libnone.so XRT_TRACE_FILE=/dev/null \
            $BIN/xrt_info --json > $T/plugins.json
        json $T/plugins.json '(.plugins | length) == 2 and .plugins[0].loaded and .plugins[0].backend == "trace"
                              and (.plugins[1].loaded | not) and (.plugins[1].reason | contains("cannot load"))'
    fi
    # the text listing says the same as the JSON
    jq -r '.backends[] | "\(.name) \(if .available then "available" else "unavailable" end)"' $T/info.json |
        while read -r name state; do
            grep -q "^  $name *$state" $T/info.txt || fail "text listing disagrees on $name: $state"
        done
    # quotes and backslashes (an unknown XRT_BACKEND is echoed in the error)
    XRT_BACKEND='no"such\name' $BIN/xrt_info --json > $T/bad.json && fail "xrt_info exits 0 without a backend"
    json $T/bad.json '.default_backend == null and (.default_backend_error | contains("no\"such\\name"))'
    # control characters and bytes that are not UTF-8 (a library path is echoed in cuda's reason)
    XRT_CUDA_LIBRARY="$(printf '/nonexistent/"tab\there\001\377\303\251.so')" $BIN/xrt_info --json > $T/ctl.json
    json $T/ctl.json '.backends[] | select(.name == "cuda") | .available == false'
    if ! grep -q "not enabled in this build" $T/ctl.json; then
        json $T/ctl.json '.backends[] | select(.name == "cuda") | .reason | contains("\"tab\there\u0001\ufffd\u00e9.so")'
    fi
fi
if command -v python3 > /dev/null; then # a second parser, strict about UTF-8
    python3 -c 'import json, sys; [json.load(open(f, encoding="utf-8")) for f in sys.argv[1:]]' $T/*.json ||
        fail "python rejects xrt_info --json"
fi

echo "== bandwidth"
$BIN/bandwidth --help | grep -q "^Usage: bandwidth" || fail "bandwidth --help"
expect 2 "unknown option '--bogus'" $BIN/bandwidth --bogus
expect 2 "needs a value" $BIN/bandwidth --device
expect 2 "'x' is not a whole number" $BIN/bandwidth --device x
expect 2 "not a size" $BIN/bandwidth --min 0
expect 2 "not a size" $BIN/bandwidth --max 12Q
expect 2 "larger than --max" $BIN/bandwidth --min 2M --max 1M
expect 2 "unknown item 'up' in 'h2d,up' (valid: h2d, d2h, bidir, d2d, h2h)" $BIN/bandwidth --dir h2d,up
expect 2 "unknown item 'paged' in 'paged' (valid: pageable, pinned)" $BIN/bandwidth --memory=paged
expect 2 "--dir: empty item in 'h2d,' (valid: h2d, d2h, bidir, d2d, h2h)" $BIN/bandwidth --dir h2d,
expect 2 "--mode: empty item in 'sync,,async'" $BIN/bandwidth --mode sync,,async
# bidirectional copies are async only: with sync alone the arguments ask for nothing
expect 2 "nothing to measure: --dir bidir is measured with --mode async only" $BIN/bandwidth --dir bidir --mode sync
expect 2 "^Try 'bandwidth --help'" $BIN/bandwidth --dir bidir --mode sync
expect 2 "--stat: unknown value 'avg' (valid: min, median, max)" $BIN/bandwidth --stat avg
expect 2 "not a whole number from 2" $BIN/bandwidth --factor 1
expect 2 "option '--csv' takes no value" $BIN/bandwidth --csv=yes
expect 2 "^Try 'bandwidth --help'" $BIN/bandwidth --bogus
expect 2 "--backend: unknown backend 'nosuch' (valid: cuda, hip, cpu)" $BIN/bandwidth --quick --backend nosuch
expect 1 "device 7: backend cpu has 1 device" $BIN/bandwidth --quick --backend cpu --device 7
[ "$(grep -c . $T/err)" -eq 1 ] || { cat $T/err; fail "an xrt failure is reported in one line"; }
$BIN/bandwidth --quick --backend cpu > $T/bw.txt 2> $T/bw.err
[ ! -s $T/bw.err ] || { cat $T/bw.err; fail "bandwidth wrote to stderr that is not a terminal"; }
grep -q "^sync: xrt_memcpy" $T/bw.txt && grep -q "^async: xrt_memcpy_async" $T/bw.txt || fail "table sections"
[ "$(grep -c '^ *\(4\|64\) KiB ' $T/bw.txt)" -eq 4 ] || fail "table rows"
grep -q "Bidir pinned" $T/bw.txt || fail "no bidirectional column"
for key in backend device target host date versions; do
    grep -q "^$key: ." $T/bw.txt || fail "table lacks '$key:'"
done
grep -q "^versions: xrt [0-9]*\.[0-9]*\.[0-9]*; " $T/bw.txt || fail "table lacks the xrt version"
$BIN/bandwidth --quick --backend cpu --csv > $T/bw.csv
for key in backend device target host date versions; do
    grep -q "^# $key: ." $T/bw.csv || fail "CSV lacks '# $key:'"
done
grep -v '^#' $T/bw.csv | head -1 |
    grep -q '^backend,device,peer,direction,memory,mode,bytes,gbps_min,gbps_median,gbps_max,iterations$' ||
    fail "CSV header"
# 7 sync transfers (no bidirectional) and 9 async ones, 2 sizes each; min <= median <= max
grep -v '^#' $T/bw.csv | awk -F, 'NR > 1 { n++; if (NF != 11 || $1 != "cpu" || $2 != 0 || $3 != 0 || !($8 > 0) ||
                                        $8 > $9 || $9 > $10) bad = 1; if ($4 == "bidir") b[$6]++ }
         END { exit bad || n != 32 || b["sync"] || b["async"] != 4 }' || { cat $T/bw.csv; fail "CSV rows"; }
# one device: no device-to-device pairs
$BIN/bandwidth --quick --backend cpu --dir d2d --mode sync > $T/pairs.txt
grep -q "row: source" $T/pairs.txt && fail "pairs of devices on a one-device backend"
# two devices (a test plugin whose two devices are the CPU): every ordered pair, at the largest size
$MAKE -s $B/plugins/test_twodev.so
XRT_PLUGINS=$B/plugins/test_twodev.so $BIN/bandwidth --quick --backend twodev --dir d2d --mode sync > $T/pairs.txt
grep -q "^sync, device to device (row: source, column: destination), 64 KiB" $T/pairs.txt || fail "no pair matrix"
grep -q "^ *0 *- *[0-9.]*$" $T/pairs.txt && grep -q "^ *1 *[0-9.]* *-$" $T/pairs.txt ||
    { cat $T/pairs.txt; fail "pair matrix rows"; }
# two CPU devices (XRT_CPU_DEVICES): the pairs are peer copies between them
XRT_CPU_DEVICES=2 $BIN/bandwidth --quick --backend cpu --dir d2d --mode async > $T/pairs.txt
grep -q "^async, device to device (row: source, column: destination), 64 KiB" $T/pairs.txt &&
    grep -q "^ *1 *[0-9.]* *-$" $T/pairs.txt || { cat $T/pairs.txt; fail "pairs of CPU devices"; }
# more devices than a fixed 16 by 16 matrix holds, under ASan and UBSan: every
# pair measured and printed; --device goes as far as the devices do
$MAKE -s $B/examples/asan/bandwidth
XRT_CPU_DEVICES=20 $B/examples/asan/bandwidth --quick --backend cpu --dir d2d --mode sync > $T/pairs20.txt 2> $T/pairs20.err ||
    { cat $T/pairs20.err; fail "bandwidth with 20 CPU devices"; }
awk '/row: source/ { m = 1; next } m == 1 { m = 2; next }
     m == 2 && NF { r = $1; n++; if (r != n - 1 || NF != 21 || $(r + 2) != "-") bad = 1
                    for (i = 2; i <= NF; i++) if (i != r + 2 && !($i > 0)) bad = 1 }
     END { exit bad || n != 20 }' $T/pairs20.txt || { cat $T/pairs20.txt; fail "pair matrix of 20 devices"; }
XRT_CPU_DEVICES=20 $BIN/bandwidth --quick --backend cpu --device 19 --dir h2d --mode sync > $T/dev19.txt ||
    fail "bandwidth --device 19 of 20"
grep -q "^device: 19 of 20, " $T/dev19.txt || { cat $T/dev19.txt; fail "bandwidth --device 19 of 20: device line"; }
XRT_PLUGINS=$B/plugins/test_twodev.so $BIN/bandwidth --quick --backend twodev --dir d2d --csv > $T/pairs.csv
grep -q "^# device: 0 of 2, twodev 0$" $T/pairs.csv || fail "CSV device line"
[ "$(grep -c '^twodev,0,1,d2d,device,\(sync\|async\),65536,' $T/pairs.csv)" -eq 2 ] &&
    [ "$(grep -c '^twodev,1,0,d2d,device,\(sync\|async\),65536,' $T/pairs.csv)" -eq 2 ] &&
    [ "$(grep -c '^twodev,0,0,d2d,' $T/pairs.csv)" -eq 4 ] || { cat $T/pairs.csv; fail "CSV pair rows"; }
if have script "bandwidth progress line on a terminal"; then
    script -qec "$BIN/bandwidth --dir d2d --mode sync --min 4K --max 8K --time 600 --csv > /dev/null" /dev/null \
        > $T/tty.out < /dev/null
    grep -q "bandwidth:   0/2  sync" $T/tty.out || { cat -v $T/tty.out; fail "no progress line on a terminal"; }
fi

# vendor runtime versions, as both tools print them (tools/cli.h): CUDA's
# numbering (1000 * major + 10 * minor) and HIP's (10000000 * major + 100000 * minor + patch)
printf '#include "tools/cli.h"\nint main(int c, char **v) { char b[32]; while (*++v) printf("%%s|", cli_version(b, sizeof b, atoi(*v))); (void)c; return 0; }\n' > $T/version.c
${CC:-cc} -std=c11 -Wall -Wextra -Werror -I. -o $T/version $T/version.c || fail "tools/cli.h: cli_version"
[ "$($T/version 13000 12020 50221153 60000000 60342134 0)" = "13.0|12.2|5.2|6.0|6.3||" ] ||
    fail "runtime versions read as $($T/version 13000 12020 50221153 60000000 60342134 0)"
grep -q "cli_version(" tools/bandwidth.c && grep -q "cli_version(" tools/xrt_info.c ||
    fail "bandwidth and xrt_info print versions through cli_version"

echo "== rdma_pingpong"
if [ -x $BIN/rdma_pingpong ]; then
    $BIN/rdma_pingpong --help | grep -q "^Usage: rdma_pingpong" || fail "rdma_pingpong --help"
    expect 2 "unknown option '--bogus'" $BIN/rdma_pingpong --bogus
    expect 2 "^Try 'rdma_pingpong --help'" $BIN/rdma_pingpong --bogus
    expect 2 "size: '0' is not a size" $BIN/rdma_pingpong -s 0
    expect 2 "port: '70000' is not a whole number from 1 to 65535" $BIN/rdma_pingpong --port 70000
    expect 2 "iters: 'x' is not a whole number" $BIN/rdma_pingpong -n x
    expect 2 "option '-n' needs a value" $BIN/rdma_pingpong -n
    expect 2 "memory: unknown value 'paged' (valid: device, pinned)" $BIN/rdma_pingpong --memory=paged
    expect 2 "backend: unknown backend 'nosuch' (valid: " $BIN/rdma_pingpong -b nosuch
    expect 2 "unexpected argument 'host2'" $BIN/rdma_pingpong host1 host2
    if [ ! -d /sys/class/infiniband ] || [ -z "$(ls /sys/class/infiniband)" ]; then
        # no RDMA device: one line that names the call once
        expect 1 "^rdma_pingpong: xrt_rdma_open: " $BIN/rdma_pingpong --iters 1
        grep -q "xrt_rdma_open: xrt_rdma_open" $T/err && fail "rdma_pingpong repeats its prefix"
        [ "$(grep -c . $T/err)" -eq 1 ] || { cat $T/err; fail "rdma_pingpong: more than one line"; }
    fi
else
    echo "skipped: rdma_pingpong (not built: no verbs headers)"
fi

echo "== fabric_rma"
if [ -x $BIN/fabric_rma ]; then
    $BIN/fabric_rma -h | grep -q "^Usage: fabric_rma" || fail "fabric_rma -h"
    $BIN/fabric_rma --help | grep -q "^Usage: fabric_rma" || fail "fabric_rma --help"
    expect 2 "^Try 'fabric_rma --help'" $BIN/fabric_rma --bogus
    expect 2 "memory: '[a-z]*' is neither device nor pinned" $BIN/fabric_rma --memory paged
else
    echo "skipped: fabric_rma (not built: no libfabric headers)"
fi

echo "== make plot"
if have gnuplot "make plot"; then
    rm -f $T/plot.png $T/plot.svg
    $MAKE -s plot BANDWIDTH_CSV=$T/bw.csv PLOT_OUT=$T/plot > /dev/null
    # PNG signature, then the IHDR chunk: width and height, big-endian
    [ "$(od -An -tx1 -N16 $T/plot.png | tr -d ' \n')" = 89504e470d0a1a0a0000000d49484452 ] || fail "not a PNG"
    size=$(od -An -tu1 -j16 -N8 $T/plot.png | awk '{ print ($1*2^24 + $2*2^16 + $3*2^8 + $4) "x" ($5*2^24 + $6*2^16 + $7*2^8 + $8) }')
    [ "$size" = 1280x720 ] || fail "PNG is $size, not 1280x720"
    [ "$(wc -c < $T/plot.png)" -gt 20000 ] || fail "PNG too small to hold a chart"
    grep -q 'width="1280" height="720"' $T/plot.svg || fail "SVG size"
    grep -q "H2D pinned" $T/plot.svg || fail "SVG has no legend"
    grep -q "Bidir pinned" $T/plot.svg || fail "SVG has no bidirectional line"
    grep -q "$(sed -n 's/^# date: //p' $T/bw.csv)" $T/plot.svg || fail "SVG lacks the date of the CSV"
    grep -q "xrt [0-9]*\.[0-9]*\.[0-9]*" $T/plot.svg || fail "SVG lacks the xrt version"
fi
echo "== gpu_overhead (its code paths, on a stub runtime when there is no GPU)"
if [ -f "${CUDA_HOME:-/usr/local/cuda}/include/cuda_runtime_api.h" ]; then
    $MAKE -s $B/bench/gpu_overhead $B/doubles/stub/libcudart.so.13 $B/doubles/stub/libcuda.so.1
    $B/bench/gpu_overhead --help | grep -q "^Usage: gpu_overhead" || fail "gpu_overhead --help"
    expect 2 "unknown option '--bogus'" $B/bench/gpu_overhead --bogus
    expect 2 "count: unknown value 'foo' (valid: raw, xrt)" $B/bench/gpu_overhead --count 0 foo 5
    expect 2 "needs ROW raw|xrt N" $B/bench/gpu_overhead --count 0
    $B/bench/gpu_overhead > $T/gpu.out || fail "gpu_overhead without the stub"
    LD_LIBRARY_PATH=$B/doubles/stub $B/bench/gpu_overhead > $T/stub.out 2>&1 || { cat $T/stub.out; fail "gpu_overhead"; }
    grep -q "^stub runtime: " $T/stub.out || fail "gpu_overhead did not find the stub runtime"
    # every row of the first table, the threads' and the kernels' (the graph's skip: the stub captures nothing)
    [ "$(grep -c ' ns *[+-][0-9]*$' $T/stub.out)" -eq 34 ] || { cat $T/stub.out; fail "gpu_overhead rows"; }
    grep -q "^empty kernel launch, enqueue .* ns *[+-][0-9]*$" $T/stub.out || { cat $T/stub.out; fail "gpu_overhead: no launch on the stub driver"; }
    grep -q "^graph launch: skipped: the runtime captured no graph" $T/stub.out || { cat $T/stub.out; fail "gpu_overhead: the graph table on the stub"; }
    k=$($B/bench/gpu_overhead --rows | sed -n 's/^\([0-9]*\) empty kernel launch + sync$/\1/p')
    LD_LIBRARY_PATH=$B/doubles/stub $B/bench/gpu_overhead --count "$k" xrt 3 > /dev/null || fail "gpu_overhead --count on a kernel row"
    k=$($B/bench/gpu_overhead --rows | sed -n 's/^\([0-9]*\) graph launch (1 memset node) + sync$/\1/p')
    set +e
    LD_LIBRARY_PATH=$B/doubles/stub $B/bench/gpu_overhead --count "$k" xrt 3 > $T/out 2>&1
    got=$?
    set -e
    [ "$got" -eq 1 ] && grep -q "^graph launch: skipped" $T/out || { cat $T/out; fail "gpu_overhead --count on a graph row, on the stub: exit $got"; }
else
    echo "skipped: gpu_overhead (no CUDA Toolkit)"
fi
echo "tools: ok"
