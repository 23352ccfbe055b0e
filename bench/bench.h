/* Shared by the benchmarks: a monotonic clock in nanoseconds. */
#ifndef XRT_BENCH_H
#define XRT_BENCH_H

#include <time.h>

static inline double bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

#endif
