/* SPDX-License-Identifier: MIT */
/* Where splitting a copy across the CPU backend's pool pays: for each size,
   xrt_memcpy_async + synchronize with splitting off and on, against libc
   memcpy on the calling thread; medians of BENCH_REPS alternating runs.
   Splitting is set as a user sets it, by XRT_CPU_SPLIT_BYTES (0: never, 1:
   always), which the backend reads at init: each size runs twice, each time
   between an init and an xrt_shutdown, and split/whole is the ratio of the
   two speeds each measured against libc in its own alternation (so that a
   change of machine speed between the runs cancels out). Run it under
   `taskset -c 0` (one core: the pool has no helper, both columns are one
   thread) and `taskset -c 0,1` to see what a second core adds; `split 64`
   measures 64 MiB only. BENCH_LOAD=N as in every benchmark. */
#define XRT_IMPL
#include "xrt.h"

#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libc against xrt with XRT_CPU_SPLIT_BYTES=split_bytes, n bytes: the medians
   in ns per copy. */
static void measure(size_t n, const char *split_bytes, double *libc_ns, double *xrt_ns)
{
    bench_copies c;
    setenv("XRT_CPU_SPLIT_BYTES", split_bytes, 1);
    c.n = n;
    BENCH_CHECK(xrt_set_backend("cpu"));
    BENCH_CHECK(xrt_malloc(&c.src, n));
    BENCH_CHECK(xrt_malloc(&c.dst, n));
    BENCH_CHECK(xrt_stream_create(&c.s));
    memset(c.src, 1, n);
    memset(c.dst, 2, n);
    bench_pair(bench_libc_copies, bench_async_copies, &c, (long)((512u << 20) / n), BENCH_REPS, libc_ns, xrt_ns);
    xrt_stream_destroy(c.s);
    xrt_free(c.src);
    xrt_free(c.dst);
    xrt_shutdown(); /* the next init reads XRT_CPU_SPLIT_BYTES again */
}

int main(int argc, char **argv)
{
    static const size_t mib[] = {1, 2, 4, 8, 16, 32, 64, 256};
    size_t max = 256u << 20, i;
    bench_load_start(NULL);
    bench_load_report();
    if (argc > 1) max = (size_t)atol(argv[1]) << 20;
    printf("async copy + synchronize on the cpu backend, whole and split across %ld threads; GB/s, medians of %d\n",
           bench_cpu_threads(), BENCH_REPS);
    printf("%9s %9s %9s %9s %11s %11s\n", "size", "libc", "whole", "split", "split/whole", "split/libc");
    for (i = 0; i < sizeof mib / sizeof mib[0]; i++) {
        size_t n = mib[i] << 20;
        double l1, w, l2, sp;
        if (n > max || (argc > 1 && n != max)) continue;
        measure(n, "0", &l1, &w);
        measure(n, "1", &l2, &sp);
        printf("%5zu MiB %9.2f %9.2f %9.2f %10.2fx %10.2fx\n", mib[i], n / l1, n / w, n / sp, (l2 / sp) / (l1 / w),
               l2 / sp);
    }
    return 0;
}
