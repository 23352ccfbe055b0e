/* SPDX-License-Identifier: MIT */
/* A CPU peer copy of 64 MiB (XRT_CPU_DEVICES=2, set here: device 0's memory
   into device 1's) against libc memcpy of the same buffers on the calling
   thread, in the same run: xrt_memcpy_peer (sync), and xrt_memcpy_peer_async
   + synchronize, which splits across the pool like other large copies.
   Medians of BENCH_REPS alternating runs; target: within 0.95x of memcpy.
   `peer N` copies N MiB. BENCH_LOAD=N as in every benchmark. */
#define XRT_IMPL
#include "xrt.h"

#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void peer_sync(void *p, long iters)
{
    bench_copies *c = (bench_copies *)p;
    long i;
    for (i = 0; i < iters; i++) xrt_memcpy_peer(c->dst, 1, c->src, 0, c->n);
    xrt_stream_synchronize(NULL); /* it returns before the copy is done, as cudaMemcpyPeer */
}

static void peer_async(void *p, long iters)
{
    bench_copies *c = (bench_copies *)p;
    long i;
    for (i = 0; i < iters; i++) xrt_memcpy_peer_async(c->dst, 1, c->src, 0, c->n, c->s);
    xrt_stream_synchronize(c->s);
}

int main(int argc, char **argv)
{
    bench_copies c;
    double l1, ps, l2, pa;
    long iters;
    setenv("XRT_CPU_DEVICES", "2", 1);
    bench_load_start(NULL);
    bench_load_report();
    c.n = (argc > 1 ? (size_t)atol(argv[1]) : 64u) << 20;
    if (xrt_set_backend("cpu") || xrt_malloc(&c.src, c.n) || xrt_set_device(1) || xrt_malloc(&c.dst, c.n) ||
        xrt_stream_create(&c.s) || xrt_set_device(0)) {
        fprintf(stderr, "peer: %s\n", xrt_get_last_error_string());
        return 1;
    }
    memset(c.src, 1, c.n);
    memset(c.dst, 2, c.n);
    iters = (long)((512u << 20) / c.n);
    if (iters < 1) iters = 1;
    bench_pair(bench_libc_copies, peer_sync, &c, iters, BENCH_REPS, &l1, &ps);
    bench_pair(bench_libc_copies, peer_async, &c, iters, BENCH_REPS, &l2, &pa);
    printf("cpu peer copy device 0 -> 1, %zu MiB, %ld threads; GB/s, medians of %d\n", c.n >> 20,
           bench_cpu_threads(), BENCH_REPS);
    printf("%-28s %9s %9s %9s\n", "", "libc", "peer", "peer/libc");
    printf("%-28s %9.2f %9.2f %8.2fx\n", "xrt_memcpy_peer", c.n / l1, c.n / ps, l1 / ps);
    printf("%-28s %9.2f %9.2f %8.2fx\n", "xrt_memcpy_peer_async + sync", c.n / l2, c.n / pa, l2 / pa);
    xrt_stream_destroy(c.s);
    xrt_free(c.src);
    xrt_free(c.dst);
    xrt_shutdown();
    return 0;
}
