/* SPDX-License-Identifier: MIT */
/* The stream-order checker's cost when on (XRT_CHECK=streams): a
   stream-heavy program, 10,000 small operations over 4 streams (64-byte
   copies into one buffer each, a memset, an event between neighbours every
   16 operations, a synchronize at the end), with the checker off and on in
   alternation; the ratio's target is <= 3x. Also the bookkeeping's bytes
   after a round (xrt_check_memory_bytes). The CPU backend: a device's cost
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
} ctx;

static void round_of_ops(ctx *c)
{
    int i, k;
    for (i = 0; i < OPS; i++) {
        k = i % STREAMS;
        if (i % 3 == 2) xrt_memset_async((char *)c->d[k] + BYTES, i & 255, BYTES, c->s[k]);
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
    if (xrt_set_backend("cpu") != XRT_SUCCESS || xrt_malloc_host((void **)&c.h, STREAMS * BYTES) != XRT_SUCCESS) {
        fprintf(stderr, "check: no CPU backend\n");
        return 1;
    }
    for (k = 0; k < STREAMS; k++)
        if (xrt_stream_create_with_flags(&c.s[k], XRT_STREAM_NON_BLOCKING) || xrt_event_create(&c.e[k], 0) ||
            xrt_malloc(&c.d[k], 2 * BYTES)) {
            fprintf(stderr, "check: %s\n", xrt_get_last_error_string());
            return 1;
        }
    bench_pair(off, on, &c, 1, 5, &off_ns, &on_ns);
    xrt_check_race_count(&races);
    printf("%d operations over %d streams: off %s, on %s a round: %.2fx %s\n", OPS, STREAMS,
           bench_fmt_ns(a, sizeof a, off_ns), bench_fmt_ns(b, sizeof b, on_ns), on_ns / off_ns,
           bench_verdict(v, sizeof v, on_ns / off_ns, 3.0, 0, "x"));
    printf("  per operation: off %.0f ns, on %.0f ns; bookkeeping %zu bytes after a round; races %zu\n",
           off_ns / OPS, on_ns / OPS, c.bytes, races);
    for (k = 0; k < STREAMS; k++) {
        xrt_event_destroy(c.e[k]);
        xrt_stream_destroy(c.s[k]);
        xrt_free(c.d[k]);
    }
    xrt_free_host(c.h);
    return races != 0;
}
