/* Cost of dispatch: an xrt call against a direct call of the same backend
   function through a volatile function pointer. `dispatch xrt N` or
   `dispatch direct N` runs one loop only: bench/instructions.sh counts their
   instructions with callgrind to give the extra instructions per call. */
#define XRT_IMPL
#include "xrt.h"

#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CALLS 20000000

__attribute__((noinline)) static double via_xrt(int calls)
{
    int i, d = 0, sum = 0;
    double t0 = bench_now_ns();
    for (i = 0; i < calls; i++) {
        xrt_get_device(&d);
        sum += d;
    }
    t0 = bench_now_ns() - t0;
    return sum ? -1 : t0 / calls;
}

__attribute__((noinline)) static double direct(int calls)
{
    xrt_status (*volatile fn)(const xrt_backend *, int *) = xrt__cpu_get_device;
    int i, d = 0, sum = 0;
    double t0 = bench_now_ns();
    for (i = 0; i < calls; i++) {
        fn(NULL, &d);
        sum += d;
    }
    t0 = bench_now_ns() - t0;
    return sum ? -1 : t0 / calls;
}

int main(int argc, char **argv)
{
    int calls = argc > 2 ? atoi(argv[2]) : CALLS;
    double x, b;
    if (xrt_set_backend("cpu") != XRT_SUCCESS) return 1;
    if (argc > 2) {
        if (strcmp(argv[1], "xrt") == 0) via_xrt(calls);
        else direct(calls);
        xrt_shutdown();
        return 0;
    }
    x = via_xrt(calls);
    b = direct(calls);
    printf("direct call   %6.2f ns\nxrt_get_device %6.2f ns   %.2fx direct\n", b, x, x / b);
    xrt_shutdown();
    return 0;
}
