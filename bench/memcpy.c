/* CPU backend copies against libc memcpy on the same buffers, in the same
   run: xrt_memcpy (synchronous) and xrt_memcpy_async + synchronize.
   Target: 0.95x of libc's bandwidth or better. */
#define XRT_IMPL
#include "xrt.h"

#include "bench.h"

#include <stdio.h>
#include <string.h>

static double gbps(size_t n, int reps, double s) { return (double)n * reps / s / 1e9; }

int main(void)
{
    static const size_t sizes[] = {4096, 1 << 20, 64 << 20};
    void *a, *b;
    xrt_stream s;
    size_t i;
    if (xrt_set_backend("cpu") || xrt_malloc(&a, 64 << 20) || xrt_malloc(&b, 64 << 20) || xrt_stream_create(&s)) {
        fprintf(stderr, "memcpy: %s\n", xrt_get_last_error_string());
        return 1;
    }
    memset(a, 1, 64 << 20);
    memset(b, 2, 64 << 20);
    printf("%10s %10s %10s %10s %8s %8s\n", "bytes", "libc GB/s", "sync GB/s", "async GB/s", "sync/libc", "async/libc");
    for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        int reps = (int)((1u << 30) / n), r;
        double t, libc, sync, async;
        t = bench_now_ns();
        for (r = 0; r < reps; r++) memcpy(b, a, n);
        libc = gbps(n, reps, (bench_now_ns() - t) * 1e-9);
        t = bench_now_ns();
        for (r = 0; r < reps; r++) xrt_memcpy(b, a, n, XRT_MEMCPY_DEVICE_TO_DEVICE);
        sync = gbps(n, reps, (bench_now_ns() - t) * 1e-9);
        t = bench_now_ns();
        for (r = 0; r < reps; r++) xrt_memcpy_async(b, a, n, XRT_MEMCPY_DEVICE_TO_DEVICE, s);
        xrt_stream_synchronize(s);
        async = gbps(n, reps, (bench_now_ns() - t) * 1e-9);
        printf("%10zu %10.2f %10.2f %10.2f %8.2fx %8.2fx\n", n, libc, sync, async, sync / libc, async / libc);
    }
    xrt_stream_destroy(s);
    xrt_free(a);
    xrt_free(b);
    xrt_shutdown();
    return 0;
}
