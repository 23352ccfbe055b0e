/* SPDX-License-Identifier: MIT */
/* Cost of dispatch: an xrt call against a direct call of the same backend
   function through a volatile function pointer, medians of BENCH_REPS
   alternating runs. `dispatch xrt N` or `dispatch direct N` runs one loop
   only: bench/instructions.sh counts their instructions with callgrind to
   give the extra instructions per call. */
#define XRT_IMPL
#include "xrt.h"

#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CALLS 2000000

static int sink;

__attribute__((noinline)) static void via_xrt(void *ctx, long calls)
{
    int d = 0, sum = 0;
    long i;
    (void)ctx;
    for (i = 0; i < calls; i++) {
        xrt_get_device(&d);
        sum += d;
    }
    sink = sum;
}

__attribute__((noinline)) static void direct(void *ctx, long calls)
{
    xrt_status (*volatile fn)(const xrt_backend *, int *) = xrt__cpu_get_device;
    int d = 0, sum = 0;
    long i;
    (void)ctx;
    for (i = 0; i < calls; i++) {
        fn(NULL, &d);
        sum += d;
    }
    sink = sum;
}

int main(int argc, char **argv)
{
    double x, b;
    if (xrt_set_backend("cpu") != XRT_SUCCESS) return 1;
    if (argc > 2) {
        long calls = atol(argv[2]);
        if (strcmp(argv[1], "xrt") == 0) via_xrt(NULL, calls);
        else direct(NULL, calls);
        xrt_shutdown();
        return 0;
    }
    bench_pair(direct, via_xrt, NULL, CALLS, BENCH_REPS, &b, &x);
    printf("direct call    %6.2f ns\nxrt_get_device %6.2f ns   %.2fx direct (medians of %d)\n", b, x, x / b,
           BENCH_REPS);
    xrt_shutdown();
    return 0;
}
