/* SPDX-License-Identifier: MIT */
/* A library's call on its own backend (issue 47 item 1): xrt_push_backend +
   xrt_pop_backend against the least it can be, a thread-local save, store and
   restore of a pointer; and against the way before them, xrt_get_backend +
   xrt_set_backend to the library's + xrt_set_backend back. Medians of
   BENCH_REPS alternating runs; target: push + pop <= 10 ns. */
#define XRT_IMPL
#include "xrt.h"

#include "bench.h"

#define CALLS 2000000
#define SET_CALLS 200000

static xrt_backend_handle handle;
static __thread const void *volatile tls_current; /* the baseline's "thread's backend" */
static int sink;

__attribute__((noinline)) static void tls_store(void *ctx, long calls)
{
    long i;
    (void)ctx;
    for (i = 0; i < calls; i++) {
        const void *saved = tls_current;
        tls_current = &handle;
        tls_current = saved;
    }
}

__attribute__((noinline)) static void push_pop(void *ctx, long calls)
{
    long i;
    int bad = 0;
    (void)ctx;
    for (i = 0; i < calls; i++) {
        bad |= xrt_push_backend(handle, XRT_DEVICE_CURRENT);
        bad |= xrt_pop_backend(NULL);
    }
    sink = bad;
}

__attribute__((noinline)) static void push_pop_device(void *ctx, long calls)
{
    long i;
    int bad = 0;
    (void)ctx;
    for (i = 0; i < calls; i++) {
        bad |= xrt_push_backend(handle, 0);
        bad |= xrt_pop_backend(NULL);
    }
    sink = bad;
}

__attribute__((noinline)) static void set_restore(void *ctx, long calls)
{
    long i;
    int bad = 0;
    (void)ctx;
    for (i = 0; i < calls; i++) {
        const char *app = NULL;
        bad |= xrt_get_backend(&app);
        bad |= xrt_set_backend("cpu");
        bad |= xrt_set_backend(app);
    }
    sink = bad;
}

int main(void)
{
    double b, x;
    char v[64];
    BENCH_CHECK(xrt_set_backend("cpu"));
    BENCH_CHECK(xrt_get_backend_handle("cpu", &handle));
    bench_pair(tls_store, push_pop, NULL, CALLS, BENCH_REPS, &b, &x);
    printf("thread-local save, store, restore %6.2f ns\n", b);
    printf("xrt_push_backend + xrt_pop_backend %6.2f ns   %.2fx the store   %s\n", x, x / b,
           bench_target(v, sizeof v, x, 10, 0, " ns", "backend push + pop"));
    bench_pair(tls_store, push_pop_device, NULL, CALLS, BENCH_REPS, &b, &x);
    printf("  with a device (cpu, device 0)    %6.2f ns   %.2fx the store (medians of %d)\n", x, x / b, BENCH_REPS);
    bench_pair(push_pop, set_restore, NULL, SET_CALLS, BENCH_REPS, &b, &x);
    printf("before: get + set + set backend    %6.2f ns   %.1fx push + pop\n", x, x / b);
    xrt_shutdown();
    return sink != 0;
}
