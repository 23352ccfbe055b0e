/* SPDX-License-Identifier: MIT */
/* Cost of dispatch: an xrt call against a direct call of the same backend
   function through a volatile function pointer, medians of BENCH_REPS
   alternating runs. The backend is this program's own, registered through
   the public door (xrt_register_backend), whose get_device does what the
   CPU backend's does (the thread's current device, bounded by the device
   count): a registered backend is dispatched as a built-in one is, and the
   benchmark reads no backend's internals. `dispatch xrt N` or `dispatch
   direct N` runs one loop only: bench/instructions.sh counts their
   instructions with callgrind to give the extra instructions per call. */
#define XRT_IMPL
#include "xrt.h"

#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CALLS 2000000

static int sink;

/* The CPU backend's current device: a thread's choice, within the count. */
static __thread int current;
static int devices = 1;

static xrt_status bench_get_device(const xrt_backend *self, int *device)
{
    (void)self;
    *device = current < devices ? current : 0;
    return XRT_SUCCESS;
}

static xrt_status bench_init(const xrt_backend *self, char *reason, size_t n)
{
    (void)self;
    (void)reason;
    (void)n;
    return XRT_SUCCESS;
}

/* Registers the backend and makes it the calling thread's. */
static int use_bench_backend(void)
{
    static xrt_backend be;
    memset(&be, 0, sizeof be);
    be.abi_version = XRT_BACKEND_ABI_VERSION;
    be.size = sizeof be;
    be.name = "dispatch";
    be.init = bench_init;
    be.get_device = bench_get_device;
    return xrt_register_backend(&be) == XRT_SUCCESS && xrt_set_backend("dispatch") == XRT_SUCCESS;
}

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
    xrt_status (*volatile fn)(const xrt_backend *, int *) = bench_get_device;
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
    if (!use_bench_backend()) {
        fprintf(stderr, "dispatch: %s\n", xrt_get_last_error_string());
        return 1;
    }
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
