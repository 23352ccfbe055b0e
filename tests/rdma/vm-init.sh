#!/bin/sh
# SPDX-License-Identifier: MIT
# /init of the RDMA test VMs (see tests/rdma/vm.sh). Host "a" is 10.7.0.1,
# host "b" 10.7.0.2, on eth0 (the virtual cable between them), each with the
# soft-RoCE device rxe0 on it. Loads the modules, runs /plan.sh with XRT_HOST
# (a or b), XRT_SELF and XRT_PEER (IPv4 addresses) set, reports its status
# on the console and powers off. Runs under busybox.
export PATH=/usr/sbin:/usr/bin
# Debian's static busybox runs its own applets before PATH, and its ip lacks
# most of iproute2: ip is iproute2's, by full path.
ip() { /usr/sbin/ip "$@"; }
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
while read -r m; do
    insmod "/modules/$m" || echo "init: insmod $m failed"
done < /modules/modules.load

export XRT_HOST=$(sed -n 's/.*xrt_host=\([a-z]\).*/\1/p' /proc/cmdline)
case $XRT_HOST in
a) export XRT_SELF=10.7.0.1 XRT_PEER=10.7.0.2 ;;
*) export XRT_SELF=10.7.0.2 XRT_PEER=10.7.0.1 ;;
esac
ip link set lo up
ip link set eth0 up
ip addr add "$XRT_SELF/24" dev eth0
rdma link add rxe0 type rxe netdev eth0
# GIDs appear asynchronously; the tests need the IPv4-mapped RoCE v2 one.
gid=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' $(echo "$XRT_SELF" | tr . ' '))
i=0
while ! cat /sys/class/infiniband/rxe0/ports/1/gids/* 2> /dev/null | grep -q "$gid"; do
    i=$((i + 1))
    [ $i -gt 100 ] && { echo "init: rxe0 has no GID $gid after 10 s"; break; }
    sleep 0.1
done
cd /tmp
( . /plan.sh )
echo "XRT-RDMA-VM-EXIT $?"
sync
poweroff -f
