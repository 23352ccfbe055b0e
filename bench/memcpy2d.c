/* SPDX-License-Identifier: MIT */
/* A pitched copy on the CPU backend (issue 45): xrt_memcpy_2d of a 4096 x
   4096-byte region between pitched device allocations, against the loop a
   port writes without it (libc memcpy row by row on the calling thread,
   target: xrt at least 0.9x its speed) and against the workaround of one
   xrt_memcpy_async per row, 4096 of them and one synchronize (target: the
   2-D copy faster). Medians of BENCH_REPS alternating runs; BENCH_LOAD=N as
   in every benchmark. */
#define XRT_IMPL
#include "xrt.h"

#include "bench.h"

#include <stdio.h>
#include <string.h>

enum { W = 4096, H = 4096 };

typedef struct rect {
    unsigned char *dst, *src;
    size_t dpitch, spitch;
    xrt_stream s;
} rect;

static void libc_rows(void *p, long iters)
{
    rect *r = (rect *)p;
    long i;
    size_t y;
    for (i = 0; i < iters; i++) {
        for (y = 0; y < H; y++) memcpy(r->dst + y * r->dpitch, r->src + y * r->spitch, W);
        __asm__ volatile("" ::: "memory"); /* every copy happens */
    }
}

static void copy_2d(void *p, long iters)
{
    rect *r = (rect *)p;
    long i;
    for (i = 0; i < iters; i++)
        BENCH_CHECK(xrt_memcpy_2d(r->dst, r->dpitch, r->src, r->spitch, W, H, XRT_MEMCPY_DEVICE_TO_DEVICE));
}

static void async_rows(void *p, long iters)
{
    rect *r = (rect *)p;
    long i;
    size_t y;
    for (i = 0; i < iters; i++) {
        for (y = 0; y < H; y++)
            xrt_memcpy_async(r->dst + y * r->dpitch, r->src + y * r->spitch, W, XRT_MEMCPY_DEVICE_TO_DEVICE, r->s);
        BENCH_CHECK(xrt_stream_synchronize(r->s));
    }
}

int main(void)
{
    rect r;
    void *d, *s;
    double l, x, a, x2;
    char b1[32], b2[32], b3[32], v1[64], v2[64];
    const long iters = 4;
    bench_load_start(NULL);
    bench_load_report();
    BENCH_CHECK(xrt_set_backend("cpu"));
    BENCH_CHECK(xrt_malloc_pitch(&d, &r.dpitch, W + 1, H)); /* pitches past the width */
    BENCH_CHECK(xrt_malloc_pitch(&s, &r.spitch, W + 100, H));
    BENCH_CHECK(xrt_stream_create(&r.s));
    r.dst = (unsigned char *)d;
    r.src = (unsigned char *)s;
    memset(r.src, 1, r.spitch * H);
    memset(r.dst, 2, r.dpitch * H);
    bench_pair(libc_rows, copy_2d, &r, iters, BENCH_REPS, &l, &x);
    bench_pair(async_rows, copy_2d, &r, iters, BENCH_REPS, &a, &x2);
    printf("a %d x %d-byte region, device to device on the cpu backend (pitches %zu and %zu, %ld threads);"
           " medians of %d, two pairs\n", W, H, r.spitch, r.dpitch, bench_cpu_threads(), BENCH_REPS);
    printf("  libc memcpy row by row      %10s %6.2f GB/s\n", bench_fmt_ns(b1, sizeof b1, l), (double)W * H / l);
    printf("  xrt_memcpy_2d               %10s %6.2f GB/s  %.2fx the row loop's speed: %s\n",
           bench_fmt_ns(b2, sizeof b2, x), (double)W * H / x, l / x, bench_target(v1, sizeof v1, l / x, 0.9, 1, "x", "CPU xrt_memcpy_2d / a row-by-row memcpy loop"));
    printf("  %d xrt_memcpy_async + sync %10s %6.2f GB/s\n", H, bench_fmt_ns(b3, sizeof b3, a), (double)W * H / a);
    printf("  xrt_memcpy_2d               %10s %6.2f GB/s  %.2fx faster than the row-by-row async copies: %s\n",
           bench_fmt_ns(b2, sizeof b2, x2), (double)W * H / x2, a / x2,
           bench_target(v2, sizeof v2, a / x2, 1.0, 1, "x", "CPU xrt_memcpy_2d / %d row copies async", H));
    xrt_stream_destroy(r.s);
    xrt_free(d);
    xrt_free(s);
    xrt_shutdown();
    return 0;
}
