#!/bin/sh
# SPDX-License-Identifier: MIT
# The README's table of which headers each build needs (after "checked by
# tests/vendoring.sh"): the README's first program builds in an empty
# directory holding only the headers of its row (and of the CPU row), with
# the GPU or RDMA switch of that row; a row whose vendor headers are not
# installed is skipped, saying so. Without one of its row's headers (but
# xrt.h and xrt_rdma.h, which the program includes itself) the build stops
# with an #error that names the header to copy; and xrt_rdma.h in the
# XRT_IMPL unit without XRT_ENABLE_RDMA stops with one that says to define it.
set -eu
repo=$(pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/xrt-vendoring.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
CC=${CC:-cc}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
awk -v m="checked by tests/readme.sh: first hello.c -->" '
    index($0, m) { found = 1; next }
    found == 1 && /^```/ { found = 2; next }
    found == 2 && /^```/ { exit }
    found == 2 { print }' README.md > "$tmp/hello.c"
[ -s "$tmp/hello.c" ] || { echo "README.md: no first program"; exit 1; }
# The rows: "<build>|<header> <header> ...", each header as the README spells it.
awk '/checked by tests\/vendoring.sh/ { on = 1; next }
     on && /^\| *(CPU|\+)/ { line = $0; sub(/^\| */, "", line); split(line, c, " *\\| *");
                              h = c[2]; gsub(/[`+,]/, " ", h); print c[1] "|" h; next }
     on && /^$/ && seen { exit }
     on && /^\|/ { seen = 1 }' README.md > "$tmp/rows"
[ "$(wc -l < "$tmp/rows")" -ge 4 ] || { echo "README.md: the table of headers has $(wc -l < "$tmp/rows") rows"; exit 1; }
cpu=$(sed -n 's/^CPU only|//p' "$tmp/rows")
[ -n "$cpu" ] || { echo "README.md: no CPU-only row"; exit 1; }
bad=0
while IFS='|' read -r build headers; do
    case $build in
    "CPU only") flags= ; probe= ;;
    *CUDA*) flags="-DXRT_ENABLE_CUDA -isystem $CUDA_HOME/include"; probe="#include <cuda_runtime_api.h>" ;;
    *HIP*) flags="-DXRT_ENABLE_HIP -D__HIP_PLATFORM_AMD__"; probe="#include <hip/hip_runtime_api.h>" ;;
    *RDMA*) flags="-DXRT_ENABLE_RDMA"; probe="#include <infiniband/verbs.h>" ;;
    *) echo "README.md: a row the test does not know: $build"; bad=1; continue ;;
    esac
    if [ -n "$probe" ] && ! printf '%s\n' "$probe" | $CC $flags -E -x c - > /dev/null 2>&1; then
        echo "skipped: $build: its vendor headers are not installed"
        continue
    fi
    dir=$tmp/$(echo "$build" | tr -c 'A-Za-z0-9\n' _)
    mkdir -p "$dir"
    for h in $cpu $headers; do cp "$repo/$h" "$dir/"; done
    cp "$tmp/hello.c" "$dir/"
    if [ "${build#*RDMA}" != "$build" ]; then # xrt_rdma.h is included after xrt.h
        sed 's|#include "xrt.h".*|&\n#include "xrt_rdma.h"|' "$tmp/hello.c" > "$dir/hello.c"
    fi
    if (cd "$dir" && $CC -std=c11 -Wall -Wextra -Werror -I. $flags -o hello hello.c -lpthread > log 2>&1 && ./hello > /dev/null); then
        echo "ok: $build: $(cd "$dir" && ls *.h | tr '\n' ' ')"
    else
        cat "$dir/log"; echo "FAILED: $build with only $(cd "$dir" && ls *.h | tr '\n' ' ')"; bad=1
    fi
    # one header missing: an #error names it (where the compiler has __has_include)
    [ "$build" = "CPU only" ] && mine=$cpu || mine=$headers
    for h in $mine; do
        case $h in xrt.h | xrt_rdma.h) continue ;; esac
        mv "$dir/$h" "$dir/$h.away"
        if (cd "$dir" && $CC -std=c11 -I. $flags -c -o hello.o hello.c > log 2>&1); then
            echo "FAILED: $build without $h: it compiled"; bad=1
        elif grep -q "#error.*$h.*copy it too" "$dir/log"; then
            echo "ok: $build without $h: #error names it"
        else
            head -5 "$dir/log"; echo "FAILED: $build without $h: no #error that names it"; bad=1
        fi
        mv "$dir/$h.away" "$dir/$h"
    done
    if [ "${build#*RDMA}" != "$build" ]; then
        if (cd "$dir" && $CC -std=c11 -I. -c -o hello.o hello.c > log 2>&1); then
            echo "FAILED: xrt_rdma.h in the XRT_IMPL unit without XRT_ENABLE_RDMA compiled"; bad=1
        elif grep -q "#error.*define XRT_ENABLE_RDMA" "$dir/log"; then
            echo "ok: xrt_rdma.h in the XRT_IMPL unit without XRT_ENABLE_RDMA: #error says to define it"
        else
            head -5 "$dir/log"; echo "FAILED: xrt_rdma.h without XRT_ENABLE_RDMA: no #error that says to define it"; bad=1
        fi
    fi
done < "$tmp/rows"
exit "$bad"
