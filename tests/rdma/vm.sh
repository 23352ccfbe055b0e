#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/rdma/vm.sh - boots two throw-away QEMU VMs with Debian's own kernel
# and soft-RoCE (rdma_rxe), and runs a test plan in both.
#
#   sh tests/rdma/vm.sh PLAN [BINARY...]
#
# Hosts "a" and "b" each run their own kernel with an rxe device on a virtio
# NIC; the NICs are joined by a virtual cable (a pair of unix datagram
# sockets). Host a has two NUMA nodes (CPU 0 and half the memory on node
# 0, the other CPUs and half on node 1), for the NUMA placement tests;
# host b has one. They are two hosts because rdma_rxe cannot be two hosts inside
# one kernel: up to Linux 6.11 at least it opens its UDP socket and routes
# only in the initial network namespace, so rxe devices on the two ends of a
# veth pair in two namespaces never reach each other (measured here:
# ibv_rc_pingpong fails with "local QP operation error").
#
# PLAN is a shell script that the VMs' /init (tests/rdma/vm-init.sh) sources
# once rxe0 is up; the BINARY files, with their shared libraries, libibverbs
# and the rxe provider, are in /usr/bin there. Host a's console is relayed
# live, CR-free, then host b's. The exit status is a plan's (host a's, if not
# 0, else host b's), read from a marker line on the console; 124 when a VM did
# not report one (timeout or crash); 77, with a line "skipped: <reason>",
# when this machine cannot run the VMs.
#
# Everything it fetches or builds lives under build/rdma-vm/ (git-ignored):
# the kernel package is fetched with `apt-get download` on first use, unpacked
# without installing, and cached per version. Env:
#   XRT_RDMA_KERNEL_DEB   a linux-image .deb to use instead of downloading one
#   XRT_RDMA_VM_TIMEOUT   seconds before a VM is killed (default 600; a run takes ~1 min on
#                         a quiet machine, and more than 7 on a loaded one)
#   XRT_RDMA_VM_SMP       virtual CPUs per VM (default 2)
set -u
cd "$(dirname "$0")/../.."
B=${B:-build}
VM=$B/rdma-vm
# rdma_rxe with what it needs, and the virtio NIC it runs on; rdma_ucm
# (/dev/infiniband/rdma_cm) for librdmacm, which libfabric's verbs provider uses
MODULES="crc32_generic virtio_pci virtio_net rdma_rxe rdma_ucm"
PLAN=$1
shift

skip() { echo "skipped: $*"; exit 77; }
die() { echo "rdma vm: $*" >&2; exit 1; }

# >> host requirements: anything missing means "cannot run here", not a failure
check_host() {
    [ "$(uname -m)" = x86_64 ] || skip "the RDMA VM needs an x86_64 host (this is $(uname -m))"
    for t in qemu-system-x86_64 busybox ip rdma depmod modprobe dpkg-deb xz timeout; do
        command -v $t > /dev/null || skip "$t is not installed (packages: qemu-system-x86 busybox-static iproute2 kmod xz-utils)"
    done
    ldd "$(command -v busybox)" > /dev/null 2>&1 && skip "busybox is not static (install busybox-static)"
    RXE=$(ls /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav*.so 2>/dev/null | head -n 1)
    [ -n "$RXE" ] || skip "the rxe provider of libibverbs is not installed (package ibverbs-providers)"
    [ -f /etc/libibverbs.d/rxe.driver ] || skip "/etc/libibverbs.d/rxe.driver is missing (package ibverbs-providers)"
    VERBS=$(ls /usr/lib/x86_64-linux-gnu/libibverbs.so.1 2>/dev/null)
    [ -n "$VERBS" ] || skip "libibverbs.so.1 is not installed (package libibverbs1)"
}

# >> kernel: the package linux-image-amd64 points to, unpacked and cached
kernel_package() {
    if [ -n "${XRT_RDMA_KERNEL_DEB:-}" ]; then
        dpkg-deb -f "$XRT_RDMA_KERNEL_DEB" Package
        return
    fi
    apt-cache depends linux-image-amd64 2>/dev/null |
        sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -n 1
}

# Unpacks a kernel .deb into $K: vmlinux (the uncompressed kernel: under TCG
# it boots in half the time of vmlinuz), the modules the VM loads, in load
# order (modules.load), and a marker that the cache is complete.
kernel_unpack() {
    deb=$1
    tmp=$VM/unpack
    rm -rf "$tmp" && mkdir -p "$tmp" "$K/modules" || return 1
    dpkg-deb -x "$deb" "$tmp" || return 1
    kver=$(ls "$tmp/lib/modules" | head -n 1)
    # The .deb has no modules.dep: make one, then let modprobe list the
    # dependencies in load order. crc32_generic is needed by rdma_rxe through
    # the crypto API, which no dependency records; it goes first.
    depmod -b "$tmp" "$kver" || return 1
    : > "$K/modules.load"
    for m in $MODULES; do
        modprobe -d "$tmp" -S "$kver" --show-depends $m | sed -n 's/^insmod \([^ ]*\).*/\1/p' |
            while read -r path; do
                name=$(basename "$path")
                grep -qx "$name" "$K/modules.load" && continue
                cp "$path" "$K/modules/$name" && echo "$name" >> "$K/modules.load"
            done
    done
    grep -qx rdma_rxe.ko "$K/modules.load" || { echo "rdma_rxe.ko not found in $deb" >&2; return 1; }
    # vmlinuz = setup code + an XZ stream holding vmlinux.
    z="$tmp/boot/vmlinuz-$kver"
    off=$(LC_ALL=C grep -obUa "$(printf '\3757zXZ')" "$z" | head -n 1 | cut -d: -f1)
    [ -n "$off" ] || { echo "no XZ payload in $z" >&2; return 1; }
    tail -c +$((off + 1)) "$z" | xz -dc --single-stream > "$K/vmlinux" 2> /dev/null
    [ -s "$K/vmlinux" ] || return 1
    echo "$MODULES" > "$K/modules.wanted"
    rm -rf "$tmp"
}

# The newest kernel an earlier run unpacked, for when none can be fetched.
kernel_cached() {
    for d in $(ls -d "$VM"/linux-image-*/ 2> /dev/null | sort -r); do
        [ "$(cat "$d/modules.wanted" 2> /dev/null)" = "$MODULES" ] && { echo "${d%/}"; return; }
    done
}

kernel_fetch() { # kernel_fetch PACKAGE: the .deb's path, downloading it if needed
    deb=$(ls "$VM"/"$1"_*.deb 2> /dev/null | head -n 1)
    if [ -z "$deb" ]; then
        echo "rdma vm: fetching $1 (cached in $VM)" >&2
        rm -f "$VM"/linux-image-*.deb
        (cd "$VM" && apt-get download "$1") > "$VM/download.log" 2>&1 || return 1
        deb=$(ls "$VM"/"$1"_*.deb | head -n 1)
    fi
    echo "$deb"
}

kernel() {
    mkdir -p "$VM"
    pkg=$(kernel_package)
    K=$VM/$pkg
    [ -n "$pkg" ] && [ "$(cat "$K/modules.wanted" 2> /dev/null)" = "$MODULES" ] && return 0
    if [ -n "$pkg" ]; then
        deb=${XRT_RDMA_KERNEL_DEB:-$(kernel_fetch "$pkg")} && kernel_unpack "$deb" && return 0
        why="apt-get download $pkg failed: $(tail -n 1 "$VM/download.log" 2> /dev/null)"
    else
        why="apt-cache knows no linux-image-amd64 (run apt-get update, or set XRT_RDMA_KERNEL_DEB)"
    fi
    K=$(kernel_cached)
    [ -n "$K" ] || skip "no kernel for the VM: $why"
    echo "rdma vm: $why; using the cached $(basename "$K")"
}

# >> initramfs: busybox, ip and rdma (iproute2), the binaries, their libraries
ROOT=
copy_file() { # copy_file SRC [DEST-IN-ROOT]: keeps the path, follows links
    dest=${2:-$1}
    [ -e "$ROOT$dest" ] && return 0
    mkdir -p "$ROOT$(dirname "$dest")"
    cp -L "$1" "$ROOT$dest"
}

copy_with_libs() { # copy_with_libs FILE DEST: FILE and its ldd closure
    copy_file "$1" "$2"
    ldd "$1" 2> /dev/null | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p' |
        while read -r lib; do copy_file "$lib"; done
}

initramfs() {
    ROOT=$VM/root
    rm -rf "$ROOT"
    # merged /usr, as on the host: the loader finds libraries without ld.so.cache
    for d in etc proc sys dev tmp run var modules; do mkdir -p "$ROOT/$d"; done
    for d in bin sbin lib lib64; do mkdir -p "$ROOT/usr/$d" && ln -s usr/$d "$ROOT/$d"; done
    cp "$(command -v busybox)" "$ROOT/usr/bin/busybox"
    copy_with_libs "$(command -v ip)" /usr/sbin/ip
    copy_with_libs "$(command -v rdma)" /usr/sbin/rdma
    copy_with_libs "$VERBS" "$VERBS"
    copy_with_libs "$RXE" "$RXE"
    copy_file /etc/libibverbs.d/rxe.driver
    for f in "$@"; do copy_with_libs "$f" "/usr/bin/$(basename "$f")"; done
    for a in $(busybox --list); do [ -e "$ROOT/usr/bin/$a" ] || ln -s busybox "$ROOT/usr/bin/$a"; done
    cp "$K"/modules/*.ko "$K/modules.load" "$ROOT/modules/"
    cp tests/rdma/vm-init.sh "$ROOT/init"
    cp "$PLAN" "$ROOT/plan.sh"
    chmod +x "$ROOT/init" "$ROOT/plan.sh"
    (cd "$ROOT" && find . | busybox cpio -o -H newc 2> /dev/null) > "$VM/initramfs.cpio" ||
        die "cannot build the initramfs"
}

# >> boot: two VMs, "a" and "b", each its own kernel with an rxe device on its
# virtio NIC; the NICs are joined by a pair of unix datagram sockets (a
# virtual cable). The console is the serial port; a plan's status comes back
# as a marker line, since QEMU's own status says nothing about the guest.
numa_nodes() { # numa_nodes HOST: QEMU's options for host a's two nodes (none with one CPU)
    smp=${XRT_RDMA_VM_SMP:-2}
    [ "$1" = a ] && [ "$smp" -ge 2 ] || return 0
    echo "-object memory-backend-ram,id=m0,size=384M -object memory-backend-ram,id=m1,size=384M" \
        "-numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1-$((smp - 1)),memdev=m1"
}

qemu() { # qemu HOST MAC-SUFFIX: runs one VM, its console CR-free on stdout
    # shellcheck disable=SC2046 # numa_nodes' words are options
    timeout -k 5 "${XRT_RDMA_VM_TIMEOUT:-600}" qemu-system-x86_64 -accel tcg -cpu max -m 768 \
        -smp "${XRT_RDMA_VM_SMP:-2}" $(numa_nodes "$1") -nodefaults -display none -serial stdio -no-reboot \
        -kernel "$K/vmlinux" -initrd "$VM/initramfs.cpio" \
        -netdev "dgram,id=n0,local.type=unix,local.path=$VM/$1.sock,remote.type=unix,remote.path=$VM/$3.sock" \
        -device "virtio-net-pci,netdev=n0,mac=52:54:00:00:00:$2" \
        -append "console=ttyS0 panic=-1 quiet loglevel=3 oops=panic xrt_host=$1" < /dev/null 2>&1 |
        sed -u 's/\r$//'
}

status_of() { # status_of LOG: the plan's exit status, or 124 if it never reported one
    rc=$(sed -n 's/^XRT-RDMA-VM-EXIT \([0-9]*\)$/\1/p' "$1" | tail -n 1)
    [ -n "$rc" ] || { echo "rdma vm: $1: the VM stopped without reporting a result (timeout or crash)"; rc=124; }
    return "$rc"
}

boot() {
    rm -f "$VM"/a.sock "$VM"/b.sock "$VM"/console-*.log
    qemu b 0b a > "$VM/console-b.log" &
    pid_b=$!
    qemu a 0a b | tee "$VM/console-a.log"
    wait $pid_b
    echo "== host b"
    cat "$VM/console-b.log"
    status_of "$VM/console-a.log"; rc_a=$?
    status_of "$VM/console-b.log"; rc_b=$?
    [ $rc_a -ne 0 ] && return $rc_a
    return $rc_b
}

check_host
kernel
for f in "$@"; do [ -x "$f" ] || die "$f is not an executable"; done
initramfs "$@"
boot
