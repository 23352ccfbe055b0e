#!/bin/sh
# SPDX-License-Identifier: MIT
# Exits 0 if $FUZZ_CC (default clang) links a libFuzzer target with ASan and
# UBSan; else prints why on its last line. Debian: libFuzzer is in
# libclang-rt-<version>-dev, which `clang` only recommends.
cc=${FUZZ_CC:-clang}
command -v "$cc" > /dev/null || { echo "$cc is not installed"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/xrt-libfuzzer.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }' > "$tmp/t.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined -o "$tmp/t" "$tmp/t.c"; then
    echo "$cc cannot link -fsanitize=fuzzer (install libclang-rt-dev)"
    exit 1
fi
