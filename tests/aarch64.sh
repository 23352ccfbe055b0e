#!/bin/sh
# SPDX-License-Identifier: MIT
# The CPU backend's AArch64 target: tests/aarch64_target.c, built for
# AArch64 by the cross compiler (C11, -pedantic, warnings as errors), runs
# under qemu-aarch64 as several CPUs. Its features are the kernel's hwcap
# words, so two CPUs share a fingerprint only where code built for one runs
# on the other: the Cortex-A53 and A72 (both Armv8.0, the same hwcaps) do;
# the Neoverse N1 (Armv8.2) and the A64FX (SVE) do not, and the A64FX's
# 512-bit SVE gives 16 lanes. The hwcap bits that are no code's (EVTSTRM,
# CPUID, which QEMU's CPUs all set) are left out. Skips where the cross
# compiler or qemu-user is not installed (gcc-aarch64-linux-gnu,
# libc6-dev-arm64-cross, qemu-user).
#
# No other architecture runs here (no cross compiler, C library or device for
# it): the names of the 64-bit ones (xrt_cpu.h's "architecture names") are
# checked through clang's preprocessor for each target, where clang is: each
# its own, and uname's machine for a target not named.
set -eu
B=${B:-build}
CROSS=${CROSS:-aarch64-linux-gnu-gcc}
mkdir -p "$B/aarch64"
fail() { echo "aarch64: $*"; exit 1; }

# arch_names: XRT__CPU_ARCH for each clang target
arch_names() {
    sed -n '/^\/\* >> cpu: architecture names/,/^\/\* << cpu: architecture names/p' xrt_cpu.h > "$B/aarch64/arch.h"
    grep -q XRT__CPU_ARCH "$B/aarch64/arch.h" || fail "no architecture names in xrt_cpu.h"
    seen=
    for pair in x86_64-linux-gnu:x86_64 aarch64-linux-gnu:aarch64 aarch64_be-linux-gnu:aarch64_be \
        riscv64-linux-gnu:riscv64 powerpc64le-linux-gnu:ppc64le powerpc64-linux-gnu:ppc64 s390x-linux-gnu:s390x \
        mips64el-linux-gnuabi64:mips64el mips64-linux-gnuabi64:mips64 sparcv9-linux-gnu:sparc64 ve-linux:; do
        target=${pair%%:*} want=${pair#*:}
        got=$(printf '#include "arch.h"\nXRT__CPU_ARCH\n' |
            clang --target="$target" -nostdinc -ffreestanding -E -P -x c -I"$B/aarch64" - | tail -1) ||
            fail "clang --target=$target cannot preprocess the names"
        [ "$got" = "\"$want\"" ] || fail "$target is named $got, not \"$want\""
        case " $seen " in *" ${want:-?} "*) fail "two targets named $want" ;; esac
        seen="$seen $want"
    done
    echo "aarch64: the other 64-bit architectures have names of their own (clang's preprocessor; not run)"
}
if command -v clang > /dev/null 2>&1; then arch_names; else echo "skipped: architecture names: clang is not installed"; fi

for tool in "$CROSS" qemu-aarch64; do
    command -v "$tool" > /dev/null 2>&1 || { echo "skipped: AArch64 target: $tool is not installed"; exit 0; }
done
bin=$B/aarch64/target
# static: qemu-user then needs no AArch64 libraries at run time (the
# linker's note on dlopen in a static program is expected: no plugin loads)
"$CROSS" -std=c11 -Wall -Wextra -pedantic -Werror -O1 -I. -static -o "$bin" tests/aarch64_target.c -lpthread \
    2> "$B/aarch64/build.log" || { cat "$B/aarch64/build.log"; exit 1; }
if grep -v "dlopen\|xrt__cpu_dlopen" "$B/aarch64/build.log" | grep -q .; then cat "$B/aarch64/build.log"; exit 1; fi
run() { qemu-aarch64 -cpu "$1" "$bin"; }
a53=$(run cortex-a53) a72=$(run cortex-a72) n1=$(run neoverse-n1) fx=$(run a64fx)
again=$(run cortex-a53)
echo "cortex-a53:  $a53"
echo "cortex-a72:  $a72"
echo "neoverse-n1: $n1"
echo "a64fx:       $fx"
field() { echo "$1" | cut -d' ' -f"$2"; }
for line in "$a53" "$n1" "$fx"; do
    [ "$(field "$line" 1)" = cpu ] && [ "$(field "$line" 2)" = aarch64 ] || fail "not the cpu backend on aarch64: $line"
    case $(field "$line" 4) in hwcap=*) ;; *) fail "features are not the hwcap words: $line" ;; esac
done
[ "$a53" = "$again" ] || fail "one CPU, two targets: $a53 / $again"
[ "$(field "$a53" 5)" = "$(field "$a72" 5)" ] || fail "the A53 and A72 run the same code but differ"
[ "$(field "$a53" 5)" != "$(field "$n1" 5)" ] || fail "the N1's Armv8.2 code shares the A53's fingerprint"
[ "$(field "$n1" 5)" != "$(field "$fx" 5)" ] || fail "the A64FX's SVE code shares the N1's fingerprint"
for line in "$a53" "$n1" "$fx"; do # EVTSTRM (bit 2) and CPUID (bit 11) are no code's
    [ $(($(field "$line" 4 | sed 's/^hwcap=\([0-9a-f]*\),.*/0x\1/') & 0x804)) = 0 ] || fail "EVTSTRM or CPUID kept: $line"
done
[ "$(field "$a53" 3)" = 4 ] || fail "Advanced SIMD is 4 lanes, not $(field "$a53" 3)"
[ "$(field "$fx" 3)" = 16 ] || fail "the A64FX's 512-bit SVE is 16 lanes, not $(field "$fx" 3)"
echo "aarch64: the target follows the hwcaps"
