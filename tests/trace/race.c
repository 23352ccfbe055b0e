/* SPDX-License-Identifier: MIT */
/* A known racy program for the trace plugin's marks of the stream-order
   checker's reports (tests/trace.sh runs it with XRT_CHECK=streams and
   checks the JSON it leaves). On blocking streams s1 and s2 and a
   non-blocking s3: s1 copies host to device into e (ordered: s1 is
   synchronized before e is touched again), then two races:
     1. s1 copies into d while s2 sets d, with nothing between the streams;
     2. s3 sets e, then a synchronous copy reads e: the NULL stream does not
        wait for a non-blocking stream (the checker records a synchronous
        copy before the backend runs it).
   Each other operation is in order. */
#define XRT_IMPL
#include "xrt.h"

#include <stdio.h>
#include <stdlib.h>

#define N 4096u
#define CHECK(call)                                                                  \
    do {                                                                             \
        if ((call) != XRT_SUCCESS) {                                                 \
            fprintf(stderr, "race: %s: %s\n", #call, xrt_get_last_error_string());   \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

int main(void)
{
    xrt_stream s1, s2, s3;
    void *d, *e, *h, *h2;
    CHECK(xrt_set_backend("trace"));
    CHECK(xrt_malloc(&d, N));
    CHECK(xrt_malloc(&e, N));
    CHECK(xrt_malloc_host(&h, N));
    CHECK(xrt_malloc_host(&h2, N));
    CHECK(xrt_stream_create(&s1));
    CHECK(xrt_stream_create(&s2));
    CHECK(xrt_stream_create_with_flags(&s3, XRT_STREAM_NON_BLOCKING));

    CHECK(xrt_memcpy_async(e, h, N, XRT_MEMCPY_HOST_TO_DEVICE, s1));
    CHECK(xrt_memcpy_async(d, h, N, XRT_MEMCPY_HOST_TO_DEVICE, s1)); /* race 1, earlier */
    CHECK(xrt_memset_async(d, 0, N, s2));                             /* race 1, later */
    CHECK(xrt_stream_synchronize(s1));
    CHECK(xrt_stream_synchronize(s2));
    CHECK(xrt_memset_async(e, 1, N, s3));                             /* race 2, earlier */
    CHECK(xrt_memcpy(h2, e, N, XRT_MEMCPY_DEVICE_TO_HOST));           /* race 2, later */
    CHECK(xrt_stream_synchronize(s3));

    CHECK(xrt_stream_destroy(s1));
    CHECK(xrt_stream_destroy(s2));
    CHECK(xrt_stream_destroy(s3));
    CHECK(xrt_free_host(h));
    CHECK(xrt_free_host(h2));
    CHECK(xrt_free(d));
    CHECK(xrt_free(e));
    xrt_shutdown();
    return 0;
}
