/* SPDX-License-Identifier: MIT */
/* The stream-order checker's cost when on (XRT_CHECK=streams): a
   stream-heavy program, 10,000 small operations over 4 streams (64-byte
   copies into one buffer each, kernel launches on it, memsets, an event
   between neighbours every 16 operations, a synchronize at the end), with
   the checker off and on in alternation, 10 rounds a side for each of the
   9 medians (a round is about a millisecond: one descheduling would
   otherwise be most of a sample); the ratio's target is <= 3x. Also
   the bookkeeping's bytes after a round (xrt_check_memory_bytes), whose
   bound is what a round's contexts, events and histories take (16 KiB). The CPU backend: a device's cost
   per operation is the backend's, the checker's is the same on every one. */
#define XRT_IMPL
#include "xrt.h"

#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { STREAMS = 4, OPS = 10000, BYTES = 64 };

typedef struct ctx {
    xrt_stream s[STREAMS];
    xrt_event e[STREAMS];
    void *d[STREAMS];
    unsigned char *h;
    size_t bytes;
    xrt_function f; /* reads its argument's first byte */
} ctx;

static void launch(ctx *c, int k)
{
    xrt_dim3 one = {1, 1, 1};
    xrt_kernel_args a;
    xrt_kernel_args_init(&a);
    XRT_KERNEL_ARG(a, c->d[k]);
    xrt_launch_kernel(c->f, one, one, 0, c->s[k], a.buf.bytes, a.size);
}

static int load_kernel(ctx *c)
{
    static const char src[] =
        "typedef struct { unsigned x, y, z; } d3;\n"
        "typedef struct { d3 grid_dim, block_dim, block_idx; void *shared; unsigned long shared_bytes; } ctx;\n"
        "void peek(const ctx *c, void *a) { volatile unsigned char x = **(unsigned char **)a; (void)c; (void)x; }\n";
    xrt_module_image im;
    xrt_module m;
    im.kind = XRT_IMAGE_CPU_C_SOURCE, im.data = src, im.size = sizeof src - 1, im.arch = NULL;
    return xrt_module_load(&m, &im, 1, NULL) == XRT_SUCCESS && xrt_module_get_function(&c->f, m, "peek") == XRT_SUCCESS;
}

static void round_of_ops(ctx *c)
{
    int i, k;
    for (i = 0; i < OPS; i++) {
        k = i % STREAMS;
        if (i % 3 == 2) xrt_memset_async((char *)c->d[k] + BYTES, i & 255, BYTES, c->s[k]);
        else if (i % 3 == 1) launch(c, k);
        else xrt_memcpy_async(c->d[k], c->h + k * BYTES, BYTES, XRT_MEMCPY_HOST_TO_DEVICE, c->s[k]);
        if (i % 16 == 15) {
            xrt_event_record(c->e[k], c->s[k]);
            xrt_stream_wait_event(c->s[(k + 1) % STREAMS], c->e[k]);
        }
    }
    xrt_device_synchronize();
}

static void off(void *p, long iters)
{
    long i;
    xrt_check_enable(XRT_CHECK_OFF);
    for (i = 0; i < iters; i++) round_of_ops(p);
}

static void on(void *p, long iters)
{
    ctx *c = p;
    long i;
    xrt_check_enable(XRT_CHECK_STREAMS);
    for (i = 0; i < iters; i++) round_of_ops(c);
    xrt_check_memory_bytes(&c->bytes);
    xrt_check_enable(XRT_CHECK_OFF);
}

int main(void)
{
    ctx c;
    double off_ns, on_ns;
    char a[32], b[32], v[64];
    size_t races = 0;
    int k;
    memset(&c, 0, sizeof c);
    if (xrt_set_backend("cpu") != XRT_SUCCESS || xrt_malloc_host((void **)&c.h, STREAMS * BYTES) != XRT_SUCCESS ||
        !load_kernel(&c)) {
        fprintf(stderr, "check: no CPU backend, or no kernel: %s\n", xrt_get_last_error_string());
        return 1;
    }
    for (k = 0; k < STREAMS; k++)
        if (xrt_stream_create_with_flags(&c.s[k], XRT_STREAM_NON_BLOCKING) || xrt_event_create(&c.e[k], 0) ||
            xrt_malloc(&c.d[k], 2 * BYTES)) {
            fprintf(stderr, "check: %s\n", xrt_get_last_error_string());
            return 1;
        }
    bench_pair(off, on, &c, 10, BENCH_REPS, &off_ns, &on_ns);
    xrt_check_race_count(&races);
    printf("%d operations over %d streams: off %s, on %s a round: %.2fx %s\n", OPS, STREAMS,
           bench_fmt_ns(a, sizeof a, off_ns), bench_fmt_ns(b, sizeof b, on_ns), on_ns / off_ns,
           bench_target(v, sizeof v, on_ns / off_ns, 3.0, 0, "x",
                        "checker on / off: %d copies, launches and memsets over %d streams", OPS, STREAMS));
    printf("  per operation: off %.0f ns, on %.0f ns; bookkeeping %zu bytes after a round %s; races %zu\n",
           off_ns / OPS, on_ns / OPS, c.bytes,
           bench_target(v, sizeof v, (double)c.bytes, 16384, 0, " B", "checker on: bookkeeping after a round of %d operations",
                        OPS), races);
    for (k = 0; k < STREAMS; k++) {
        xrt_event_destroy(c.e[k]);
        xrt_stream_destroy(c.s[k]);
        xrt_free(c.d[k]);
    }
    xrt_free_host(c.h);
    return races != 0;
}
