/* SPDX-License-Identifier: MIT */
/* CPU backend copies against libc memcpy on the same buffers, in the same
   run: xrt_memcpy device to host (pageable), which returns when the copy is
   done, as cudaMemcpy's does, and xrt_memcpy_async device to device back to
   back on one stream, then one synchronize. (A device-to-device xrt_memcpy
   returns once queued, as cudaMemcpy's, so timing it would time the queue.)
   Medians of BENCH_REPS alternating runs. Targets: a call under 700 ns
   (4 KiB, sync) at most 20 ns over libc's, as every wrapped call; at least
   0.95x libc from 64 KiB; at least 1.0x async from 256 MiB (split across
   the cores).
   Then libc on each core alone: where the cores differ in speed, so do the
   async figures. `memcpy xrt N` or `memcpy direct N` makes N 4 KiB copies only, for
   bench/instructions.sh (callgrind): xrt_memcpy's extra instructions. */
#define XRT_IMPL
#include "xrt.h"

#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG (256u << 20)

static void *host; /* the synchronous copies' destination: malloc'ed, pageable */

/* c->dst is `host` here. */
static void sync_copies(void *p, long iters)
{
    bench_copies *c = p;
    long i;
    for (i = 0; i < iters; i++) xrt_memcpy(c->dst, c->src, c->n, XRT_MEMCPY_DEVICE_TO_HOST);
}

/* One row: bandwidths, and speed ratios against libc with their targets. */
static void row(bench_copies *c)
{
    long iters = (long)((c->n < (1u << 20) ? 64u << 20 : 512u << 20) / c->n);
    double libc, sync, libc2, async;
    char v1[48], v2[48], extra[24] = "";
    double atarget = c->n >= (256u << 20) ? 1.0 : 0.95;
    bench_copies to_host = *c;
    to_host.dst = host;
    bench_pair(bench_libc_copies, sync_copies, &to_host, iters, BENCH_REPS, &libc, &sync);
    bench_pair(bench_libc_copies, bench_async_copies, c, iters, BENCH_REPS, &libc2, &async);
    if (libc < 700) /* a short call: its target is the time xrt adds */
        bench_target(v1, sizeof v1, sync - libc, 20, 0, " ns", "CPU xrt_memcpy to host %zu KiB, over libc", c->n >> 10);
    else
        bench_target(v1, sizeof v1, libc / sync, 0.95, 1, "x", "CPU xrt_memcpy to host %zu KiB / libc", c->n >> 10);
    if (libc < 700) snprintf(extra, sizeof extra, "%+.0f ns", sync - libc);
    printf("%8zu KiB %9.2f %9.2f %9.2f %7.2fx %7s %-26s %7.2fx %s\n", c->n >> 10, (double)c->n / libc,
           (double)c->n / sync, (double)c->n / async, libc / sync, extra, v1, libc2 / async,
           c->n < (64u << 10) ? "(no target)" : bench_target(v2, sizeof v2, libc2 / async, atarget, 1, "x", "CPU xrt_memcpy_async %zu KiB / libc", c->n >> 10));
}

/* libc 64 KiB copies on each usable core in turn (the calling thread moved
   there), GB/s: the cores of a virtual machine need not be equal (another
   guest may share one's physical core), and an async copy runs on the
   stream's worker, another core than the caller's libc baseline. */
static void per_core(bench_copies *c)
{
    cpu_set_t all, one;
    int cpu;
    if (sched_getaffinity(0, sizeof all, &all) != 0 || CPU_COUNT(&all) < 2) return;
    c->n = 64u << 10;
    printf("libc 64 KiB on each core, GB/s (same buffers):");
    for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        double t[BENCH_REPS];
        int r;
        if (!CPU_ISSET(cpu, &all)) continue;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        if (sched_setaffinity(0, sizeof one, &one) != 0) break;
        bench_libc_copies(c, 1024);
        for (r = 0; r < BENCH_REPS; r++) t[r] = bench__time(bench_libc_copies, c, 1024);
        printf(" cpu%d %.1f", cpu, (double)c->n / bench_median(t, BENCH_REPS));
    }
    printf("\n");
    sched_setaffinity(0, sizeof all, &all);
}

static int count_mode(bench_copies *c, char **argv)
{
    c->n = 4u << 10;
    c->dst = host;
    (strcmp(argv[1], "xrt") == 0 ? sync_copies : bench_libc_copies)(c, atol(argv[2]));
    return 0;
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = {4u << 10, 64u << 10, 1u << 20, 64u << 20, BIG};
    bench_copies c;
    size_t i;
    bench_load_start(NULL);
    bench_load_report();
    if (xrt_set_backend("cpu") || xrt_malloc(&c.src, BIG) || xrt_malloc(&c.dst, BIG) || xrt_stream_create(&c.s) ||
        !(host = malloc(BIG))) {
        fprintf(stderr, "memcpy: %s\n", xrt_get_last_error_string());
        return 1;
    }
    if (argc == 3) return count_mode(&c, argv);
    memset(c.src, 1, BIG);
    memset(c.dst, 2, BIG);
    memset(host, 3, BIG);
    printf("copies on the cpu backend against libc memcpy, same buffers; GB/s, medians of %d\n", BENCH_REPS);
    printf("%12s %9s %9s %9s %8s %7s %-26s %8s\n", "size", "libc", "sync", "async", "sync/libc", "extra", "", "async/libc");
    for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        c.n = sizes[i];
        row(&c);
    }
    per_core(&c);
    xrt_stream_destroy(c.s);
    xrt_free(c.src);
    xrt_free(c.dst);
    free(host);
    xrt_shutdown();
    return 0;
}
