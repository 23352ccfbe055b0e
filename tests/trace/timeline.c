/* SPDX-License-Identifier: MIT */
/* A known program for the trace plugin's timeline (tests/trace.sh checks the
   JSON it leaves): on two streams, s1 copies host to device, runs a host
   function that sleeps 3 ms and records an event; s2 waits for that event,
   copies device to device and device to host. Then a copy that overruns its
   allocation (xrt rejects it before any backend sees it) and a synchronous
   copy from plain host memory (xrt looks the pointer up first). With the
   argument "exit", the program ends with exit(0) and no xrt_shutdown. */
#define XRT_IMPL
#include "xrt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N (1u << 20)
#define CHECK(call)                                                                      \
    do {                                                                                 \
        if ((call) != XRT_SUCCESS) {                                                     \
            fprintf(stderr, "timeline: %s: %s\n", #call, xrt_get_last_error_string());   \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

static void sleep_3ms(void *user)
{
    struct timespec ts = {0, 3000000};
    nanosleep(&ts, NULL);
    *(int *)user += 1;
}

int main(int argc, char **argv)
{
    xrt_stream s1, s2;
    xrt_event e;
    void *d1, *d2, *h;
    char *plain = (char *)malloc(64);
    int ran = 0;
    if (!plain) return 1;
    memset(plain, 7, 64);
    CHECK(xrt_set_backend("trace"));
    CHECK(xrt_malloc(&d1, N));
    CHECK(xrt_malloc(&d2, N));
    CHECK(xrt_malloc_host(&h, N));
    memset(h, 1, N);
    CHECK(xrt_stream_create(&s1));
    CHECK(xrt_stream_create(&s2));
    CHECK(xrt_event_create(&e, XRT_EVENT_DEFAULT));

    CHECK(xrt_memcpy_async(d1, h, N, XRT_MEMCPY_HOST_TO_DEVICE, s1));
    CHECK(xrt_launch_host_func(s1, sleep_3ms, &ran));
    CHECK(xrt_event_record(e, s1));
    CHECK(xrt_stream_wait_event(s2, e));
    CHECK(xrt_memcpy_async(d2, d1, N, XRT_MEMCPY_DEVICE_TO_DEVICE, s2));
    CHECK(xrt_memcpy_async(h, d2, N, XRT_MEMCPY_DEVICE_TO_HOST, s2));
    CHECK(xrt_stream_synchronize(s2));
    CHECK(xrt_stream_synchronize(s1));
    if (ran != 1) return 1;

    if (xrt_memcpy(h, d1, N + 1, XRT_MEMCPY_DEVICE_TO_HOST) != XRT_ERROR_INVALID_VALUE) return 1;
    CHECK(xrt_memcpy(d1, plain, 64, XRT_MEMCPY_DEFAULT));
    free(plain);

    if (argc > 1 && strcmp(argv[1], "exit") == 0) exit(0); /* no shutdown: the file is written at exit */
    CHECK(xrt_event_destroy(e));
    CHECK(xrt_stream_destroy(s1));
    CHECK(xrt_stream_destroy(s2));
    CHECK(xrt_free_host(h));
    CHECK(xrt_free(d1));
    CHECK(xrt_free(d2));
    xrt_shutdown();
    return 0;
}
