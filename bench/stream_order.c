/* SPDX-License-Identifier: MIT */
/* What the legacy NULL stream's order costs on the CPU backend: 64-byte
   memsets enqueued in bursts of BURST (then one synchronize) on a blocking
   stream (xrt_stream_create, ordered with the NULL stream, which has no work
   pending) against the same on a non-blocking stream, medians of BENCH_REPS
   alternating runs; then the same bursts on the NULL stream while a blocking
   stream is idle, against a non-blocking stream.
   `stream_order blocking|non-blocking|null N` runs N bursts of 100 on that
   stream only, for callgrind: the inclusive instructions of `enqueue_burst`
   over 100 N are an enqueue's (see bench/RESULTS.md). */
#define XRT_IMPL
#include "xrt.h"

#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BURST = 256, ITERS = 400 };

typedef struct ctx { xrt_stream base, test; void *d; } ctx;

static void bursts(xrt_stream s, void *d, long iters)
{
    long i;
    int k;
    for (i = 0; i < iters; i++) {
        for (k = 0; k < BURST; k++)
            if (xrt_memset_async(d, k, 64, s) != XRT_SUCCESS) exit(1);
        if (xrt_stream_synchronize(s) != XRT_SUCCESS) exit(1);
    }
}

__attribute__((noinline)) static void enqueue_burst(xrt_stream s, void *d)
{
    int k;
    for (k = 0; k < 100; k++)
        if (xrt_memset_async(d, k, 64, s) != XRT_SUCCESS) exit(1);
}

/* One stream's bursts alone, for callgrind. */
static int one_kind(const char *kind, long n)
{
    xrt_stream s = NULL;
    void *d;
    long i;
    if (xrt_set_backend("cpu") || xrt_malloc(&d, 64)) return 1;
    if (strcmp(kind, "blocking") == 0) {
        if (xrt_stream_create(&s)) return 1;
    } else if (strcmp(kind, "non-blocking") == 0) {
        if (xrt_stream_create_with_flags(&s, XRT_STREAM_NON_BLOCKING)) return 1;
    } else if (strcmp(kind, "null") != 0) {
        return 2;
    }
    for (i = 0; i < n; i++) {
        enqueue_burst(s, d);
        if (xrt_stream_synchronize(s)) return 1;
    }
    if (s) xrt_stream_destroy(s);
    xrt_free(d);
    xrt_shutdown();
    return 0;
}

static void on_base(void *p, long iters) { bursts(((ctx *)p)->base, ((ctx *)p)->d, iters); }
static void on_test(void *p, long iters) { bursts(((ctx *)p)->test, ((ctx *)p)->d, iters); }

static void row(const char *what, ctx *c, double target_ns)
{
    double base_ns, test_ns;
    char t1[32], t2[32], v[64];
    bench_pair(on_base, on_test, c, ITERS, BENCH_REPS, &base_ns, &test_ns);
    base_ns /= BURST, test_ns /= BURST;
    printf("%-44s %9s %9s %+7.1f ns %s\n", what, bench_fmt_ns(t1, sizeof t1, test_ns),
           bench_fmt_ns(t2, sizeof t2, base_ns), test_ns - base_ns,
           bench_target(v, sizeof v, test_ns - base_ns, target_ns, 0, " ns", "CPU stream order: %s, extra", what));
}

int main(int argc, char **argv)
{
    ctx c;
    xrt_stream idle;
    if (argc == 3) return one_kind(argv[1], atol(argv[2]));
    bench_load_start(NULL);
    bench_load_report();
    if (xrt_set_backend("cpu") || xrt_malloc(&c.d, 64) ||
        xrt_stream_create_with_flags(&c.base, XRT_STREAM_NON_BLOCKING) || xrt_stream_create(&c.test) ||
        xrt_stream_create(&idle))
        goto fail;
    printf("64-byte memset_async in bursts of %d + synchronize, per memset, medians of %d\n", BURST, BENCH_REPS);
    printf("%-44s %9s %9s %10s\n", "", "this", "non-blk", "extra");
    row("blocking stream (NULL stream idle)", &c, 30);
    xrt_stream_destroy(c.test);
    c.test = NULL; /* the NULL stream, beside two idle blocking streams */
    row("NULL stream (blocking streams idle)", &c, 30);
    xrt_stream_destroy(c.base);
    xrt_stream_destroy(idle);
    xrt_free(c.d);
    xrt_shutdown();
    return 0;
fail:
    fprintf(stderr, "stream_order: %s\n", xrt_get_last_error_string());
    return 1;
}
