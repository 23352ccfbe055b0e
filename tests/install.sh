#!/bin/sh
# SPDX-License-Identifier: MIT
# `make install` into a scratch prefix, then build and run a consumer with the
# installed headers and pkg-config file only: it is compiled in a directory
# outside the repository, so it cannot pick up the repository's headers.
set -eu
repo=$(pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/xrt-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

${MAKE:-make} -s install PREFIX="$tmp/prefix"
test -f "$tmp/prefix/include/xrt/xrt.h"
test -f "$tmp/prefix/lib/pkgconfig/xrt.pc"

export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
version=$(sed -n 's/^#define XRT_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)/\2/p' "$repo/xrt.h" | paste -sd.)
test "$(pkg-config --modversion xrt)" = "$version"
echo "pkg-config: xrt $version: $(pkg-config --cflags --libs xrt)"

mkdir "$tmp/consumer"
cp "$repo/tests/consumer/main.c" "$tmp/consumer/"
cd "$tmp/consumer"
${CC:-cc} -std=c11 -Wall -Wextra -Werror -pedantic -o consumer main.c $(pkg-config --cflags --libs xrt)
out=$(./consumer)
echo "$out"
expected="hello from an installed xrt (backend cpu, version $(echo "$version" | awk -F. '{print $1 * 10000 + $2 * 100 + $3}'))"
test "$out" = "$expected"
