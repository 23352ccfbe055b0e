/* SPDX-License-Identifier: MIT */
/* Where splitting a copy across the CPU backend's pool pays: for each size,
   xrt_memcpy_async + synchronize with splitting off and on (the threshold is
   the backend's own variable, set between runs of the same process), against
   libc memcpy on the calling thread; medians of BENCH_REPS alternating runs.
   Run it under `taskset -c 0` (one core: the pool has no helper, both columns
   are one thread) and `taskset -c 0,1` to see what a second core adds;
   `split 64` measures 64 MiB only. BENCH_LOAD=N as in every benchmark. */
#define XRT_IMPL
#include "xrt.h"

#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void whole(void *p, long iters)
{
    xrt__cpu_split_bytes = SIZE_MAX;
    bench_async_copies(p, iters);
}

static void split(void *p, long iters)
{
    xrt__cpu_split_bytes = 1;
    bench_async_copies(p, iters);
}

int main(int argc, char **argv)
{
    static const size_t mib[] = {1, 2, 4, 8, 16, 32, 64, 256};
    size_t max = 256u << 20, i;
    bench_copies c;
    bench_load_start(NULL);
    bench_load_report();
    if (argc > 1) max = (size_t)atol(argv[1]) << 20;
    if (xrt_set_backend("cpu") || xrt_malloc(&c.src, max) || xrt_malloc(&c.dst, max) || xrt_stream_create(&c.s)) {
        fprintf(stderr, "split: %s\n", xrt_get_last_error_string());
        return 1;
    }
    memset(c.src, 1, max);
    memset(c.dst, 2, max);
    printf("async copy + synchronize on the cpu backend, whole and split across %zu threads; GB/s, medians of %d\n",
           xrt__cpu_pool_width(), BENCH_REPS);
    printf("%9s %9s %9s %9s %11s %11s\n", "size", "libc", "whole", "split", "split/whole", "split/libc");
    for (i = 0; i < sizeof mib / sizeof mib[0]; i++) {
        long iters;
        double l1, w, l2, sp, w2, sp2;
        c.n = mib[i] << 20;
        if (c.n > max || (argc > 1 && c.n != max)) continue;
        iters = (long)((512u << 20) / c.n);
        bench_pair(bench_libc_copies, whole, &c, iters, BENCH_REPS, &l1, &w);
        bench_pair(bench_libc_copies, split, &c, iters, BENCH_REPS, &l2, &sp);
        bench_pair(whole, split, &c, iters, BENCH_REPS, &w2, &sp2);
        printf("%5zu MiB %9.2f %9.2f %9.2f %10.2fx %10.2fx\n", mib[i], c.n / l1, c.n / w, c.n / sp, w2 / sp2, l2 / sp);
    }
    xrt_stream_destroy(c.s);
    xrt_free(c.src);
    xrt_free(c.dst);
    xrt_shutdown();
    return 0;
}
