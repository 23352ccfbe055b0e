/* SPDX-License-Identifier: MIT */
/* demo: allocates device memory, copies through a stream, runs a host
   function in stream order and times the work with events. */
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
    CHECK(xrt_get_backend(&backend));
    CHECK(xrt_get_capabilities(&caps));
    printf("demo on %s: copy %zu MiB host -> device -> device -> host on a stream\n", backend, n >> 20);
    CHECK(xrt_malloc_host(&host, n));
    CHECK(xrt_malloc(&dev_a, n));
    CHECK(xrt_malloc(&dev_b, n));
    CHECK(xrt_stream_create(&s));
    CHECK(xrt_event_create(&start, XRT_EVENT_DEFAULT));
    CHECK(xrt_event_create(&stop, XRT_EVENT_DEFAULT));
    memset(host, 7, n);
    CHECK(xrt_memset(dev_a, 0, n)); /* first touch outside the timed region */
    CHECK(xrt_memset(dev_b, 0, n));
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
    printf("  %.2f ms for %zu MiB moved (%.1f GB/s)\n", ms, 3 * n >> 20, 3.0 * (double)n / (ms * 1e6));
    printf("  result %s\n", ((unsigned char *)host)[n - 1] == 7 ? "verified" : "WRONG");
    CHECK(xrt_event_destroy(start));
    CHECK(xrt_event_destroy(stop));
    CHECK(xrt_stream_destroy(s));
    CHECK(xrt_free(dev_a));
    CHECK(xrt_free(dev_b));
    CHECK(xrt_free_host(host));
    xrt_shutdown();
    return 0;
}
