#!/bin/sh
# SPDX-License-Identifier: MIT
# `make install` into a scratch prefix, then build and run a consumer with the
# installed files only, once through pkg-config and once through CMake's
# find_package(xrt): it is compiled in a directory outside the repository, so
# it cannot pick up the repository's headers. The installed tools run; `make
# uninstall` leaves the prefix empty, without the directories install made. A build system that is not installed
# (pkg-config, cmake) prints "skipped: <reason>".
set -eu
repo=$(pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/xrt-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
prefix=$tmp/prefix

${MAKE:-make} -s install PREFIX="$prefix"
for f in include/xrt/xrt.h include/xrt/xrt_backends.h include/xrt/xrt_cache.h include/xrt/xrt_check.h include/xrt/xrt_cpu.h bin/xrt_info bin/bandwidth lib/pkgconfig/xrt.pc \
         lib/cmake/xrt/xrtConfig.cmake lib/cmake/xrt/xrtConfigVersion.cmake; do
    test -e "$prefix/$f" || { echo "make install did not install $f"; exit 1; }
done
"$prefix/bin/xrt_info" | grep -q '^  cpu   available'
"$prefix/bin/bandwidth" --help > /dev/null

version=$(sed -n 's/^#define XRT_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)/\2/p' "$repo/xrt.h" | paste -sd.)
expected="hello from an installed xrt (backend cpu, version $(echo "$version" | awk -F. '{print $1 * 10000 + $2 * 100 + $3}'))"

if command -v pkg-config > /dev/null; then
    export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
    test "$(pkg-config --modversion xrt)" = "$version"
    echo "pkg-config: xrt $version: $(pkg-config --cflags --libs xrt)"
    mkdir "$tmp/pc"
    cp "$repo/tests/consumer/main.c" "$tmp/pc/"
    (cd "$tmp/pc" && ${CC:-cc} -std=c11 -Wall -Wextra -Werror -pedantic -o consumer main.c $(pkg-config --cflags --libs xrt))
    out=$("$tmp/pc/consumer")
    echo "$out"
    test "$out" = "$expected"
else
    echo "skipped: pkg-config consumer: pkg-config is not installed"
fi

if command -v cmake > /dev/null; then
    mkdir "$tmp/cm"
    cp "$repo/tests/consumer/main.c" "$repo/tests/consumer/CMakeLists.txt" "$tmp/cm/"
    cmake -S "$tmp/cm" -B "$tmp/cm/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="${CC:-cc}" \
        -DXRT_WANT="${version%.*}" > "$tmp/cmake.log" 2>&1 ||
        { cat "$tmp/cmake.log"; exit 1; }
    cmake --build "$tmp/cm/build" > "$tmp/cmake-build.log" 2>&1 || { cat "$tmp/cmake-build.log"; exit 1; }
    out=$("$tmp/cm/build/consumer")
    echo "cmake: $out"
    test "$out" = "$expected"
    # Each backend component alone: where its headers are, the consumer builds
    # with that backend enabled and runs (on the CPU, always built in, when
    # there is no GPU); where they are not, find_package fails and says why.
    for c in cuda hip rdma; do
        if cmake -S "$tmp/cm" -B "$tmp/cm/$c" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="${CC:-cc}" \
            -DXRT_COMPONENTS="$c" > "$tmp/cmake-$c.log" 2>&1; then
            cmake --build "$tmp/cm/$c" > "$tmp/cmake-build-$c.log" 2>&1 || { cat "$tmp/cmake-build-$c.log"; exit 1; }
            grep -q "XRT_ENABLE_$(echo $c | tr a-z A-Z)" "$tmp/cm/$c/CMakeFiles/consumer.dir/flags.make"
            out=$("$tmp/cm/$c/consumer")
            test "$out" = "$expected"
            echo "cmake: component $c: built and ran"
        else
            why=$(tr -s '\n ' '  ' < "$tmp/cmake-$c.log" | grep -o "$c: [^(]*not found ([^)]*)" | head -1)
            [ -n "$why" ] || { cat "$tmp/cmake-$c.log"; exit 1; }
            echo "skipped: CMake component $why"
        fi
    done
    # A component whose headers are missing fails find_package with a reason.
    if cmake -S "$tmp/cm" -B "$tmp/cm/bad" -DCMAKE_PREFIX_PATH="$prefix" -DXRT_COMPONENTS="cpu;nosuch" \
        > "$tmp/cmake-bad.log" 2>&1; then
        echo "find_package(xrt COMPONENTS nosuch) succeeded"; exit 1
    fi
    grep -q "nosuch: no such component" "$tmp/cmake-bad.log"
    # A version from another minor series is refused (0.x: minor versions differ in ABI).
    if cmake -S "$tmp/cm" -B "$tmp/cm/v" -DCMAKE_PREFIX_PATH="$prefix" -DXRT_WANT="${version%%.*}.99" > "$tmp/cmake-v.log" 2>&1; then
        echo "find_package(xrt ${version%%.*}.99) accepted xrt $version"; exit 1
    fi
else
    echo "skipped: CMake consumer: cmake is not installed"
fi

${MAKE:-make} -s uninstall PREFIX="$prefix"
left=$(find "$prefix" -mindepth 1)
test -z "$left" || { echo "make uninstall left: $left"; exit 1; }
echo "uninstall: nothing left"
