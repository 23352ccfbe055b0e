/* SPDX-License-Identifier: MIT */
/* demo: allocates device memory, copies through a stream, runs a host
   function in stream order and times the work with events. Every byte the
   demo claims to have moved is checked afterwards, and the rate it prints
   counts exactly the bytes written between the two events. */
#define XRT_IMPL
#include "xrt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        if ((call) != XRT_SUCCESS) {                                                  \
            fprintf(stderr, "demo: %s\n", xrt_get_last_error_string());               \
            return 1;                                                                 \
        }                                                                             \
    } while (0)

/* A pattern that a lost, shifted or stale byte cannot match by chance. */
static unsigned char pattern(size_t i) { return (unsigned char)(i * 131u + (i >> 12) + 7u); }

/* Index of the first byte of p[0, n) that is not what it should be, or n. */
static size_t first_bad(const unsigned char *p, size_t n, int zero)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (p[i] != (zero ? 0 : pattern(i))) break;
    return i;
}

static void report(void *user) { printf("  host function ran after the copies (%s)\n", (const char *)user); }

int main(void)
{
    const size_t n = 64u << 20;
    const char *backend;
    void *host, *dev_a, *dev_b;
    xrt_stream s;
    xrt_event start, stop;
    float ms = 0;
    unsigned caps = 0;
    size_t i, bad;
    CHECK(xrt_get_backend(&backend));
    CHECK(xrt_get_capabilities(&caps));
    printf("demo on %s: %zu MiB host -> device -> device -> host on a stream, and a set on the way\n", backend,
           n >> 20);
    CHECK(xrt_malloc_host(&host, n));
    CHECK(xrt_malloc(&dev_a, n));
    CHECK(xrt_malloc(&dev_b, n));
    CHECK(xrt_stream_create(&s));
    CHECK(xrt_event_create(&start, XRT_EVENT_DEFAULT));
    CHECK(xrt_event_create(&stop, XRT_EVENT_DEFAULT));
    for (i = 0; i < n; i++) ((unsigned char *)host)[i] = pattern(i);
    CHECK(xrt_memset(dev_a, 0xff, n)); /* first touch outside the timed region */
    CHECK(xrt_memset(dev_b, 0xff, n));
    CHECK(xrt_stream_synchronize(NULL)); /* the sets return before they are done, as cudaMemset */
    CHECK(xrt_event_record(start, s));
    CHECK(xrt_memcpy_async(dev_a, host, n, XRT_MEMCPY_HOST_TO_DEVICE, s));
    CHECK(xrt_memcpy_async(dev_b, dev_a, n, XRT_MEMCPY_DEVICE_TO_DEVICE, s));
    CHECK(xrt_memset_async(dev_a, 0, n, s));
    CHECK(xrt_memcpy_async(host, dev_b, n, XRT_MEMCPY_DEVICE_TO_HOST, s));
    if (caps & XRT_CAP_HOST_FUNC) CHECK(xrt_launch_host_func(s, report, "stream order"));
    CHECK(xrt_event_record(stop, s));
    printf("  enqueued; stream is %s\n", xrt_stream_query(s) == XRT_SUCCESS ? "already idle" : "busy");
    CHECK(xrt_event_synchronize(stop));
    CHECK(xrt_event_elapsed_time(&ms, start, stop));
    /* Timed: three copies and one set of n bytes each, 4n bytes written. */
    printf("  %.2f ms for 3 copies and 1 set of %zu MiB: %zu MiB written (%.1f GB/s)\n", ms, n >> 20, 4 * n >> 20,
           4.0 * (double)n / ((double)ms * 1e6));
    /* The round trip came back whole, and the set cleared all of dev_a. */
    bad = first_bad(host, n, 0);
    if (bad == n) {
        CHECK(xrt_memcpy(host, dev_a, n, XRT_MEMCPY_DEVICE_TO_HOST));
        bad = first_bad(host, n, 1);
    }
    if (bad != n) printf("  result WRONG: byte %zu of %zu MiB differs\n", bad, n >> 20);
    else printf("  result verified: all %zu MiB of the round trip and all %zu MiB of the set\n", n >> 20, n >> 20);
    CHECK(xrt_event_destroy(start));
    CHECK(xrt_event_destroy(stop));
    CHECK(xrt_stream_destroy(s));
    CHECK(xrt_free(dev_a));
    CHECK(xrt_free(dev_b));
    CHECK(xrt_free_host(host));
    xrt_shutdown();
    return bad != n;
}
