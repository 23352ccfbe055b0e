/* SPDX-License-Identifier: MIT */
/* Stream priorities on the CPU backend: one stream and three others of one
   device, each running a burst of single-block kernels of about 0.3 ms;
   how long the one stream's burst takes when it has the highest priority
   (-5) against when all four have priority 0, alternating, in the same run
   (target: <= 0.75x). The process runs on one core (the first it may use):
   more streams than cores on any machine, and the all-priority-0 side the
   system's fair share, a quarter of the core. On two cores that side was
   whatever the scheduler made of four threads: a new worker sometimes had
   a core of its own for the whole burst (7-20 ms from run to run). */
#define XRT_IMPL
#include "xrt.h"

#include "bench.h"

#include <sched.h>

#define CHECK(call) BENCH_CHECK(call)

static const char src[] =
    "typedef struct { unsigned x, y, z; } dim3;\n"
    "typedef struct { dim3 grid_dim, block_dim, block_idx; void *shared; unsigned long shared_bytes; } ctx_t;\n"
    "void busy(const ctx_t *c, void *p) { volatile unsigned long i, n = *(unsigned long *)p; (void)c;\n"
    "  for (i = 0; i < n; i++) { } }\n";

enum { OTHERS = 3, BURST = 24 };
static xrt_function busy;
static unsigned long spins;

static double burst_ms(int prio)
{
    xrt_stream one, other[OTHERS];
    xrt_dim3 g = {1, 1, 1};
    double t0, t1;
    int i, k;
    CHECK(xrt_stream_create_with_priority(&one, XRT_STREAM_NON_BLOCKING, prio));
    for (i = 0; i < OTHERS; i++) CHECK(xrt_stream_create_with_priority(&other[i], XRT_STREAM_NON_BLOCKING, 0));
    for (k = 0; k < 2 * BURST; k++) /* the others start first, and outlast the one */
        for (i = 0; i < OTHERS; i++) CHECK(xrt_launch_kernel(busy, g, g, 0, other[i], &spins, sizeof spins));
    t0 = bench_now_ns();
    for (k = 0; k < BURST; k++) CHECK(xrt_launch_kernel(busy, g, g, 0, one, &spins, sizeof spins));
    CHECK(xrt_stream_synchronize(one));
    t1 = bench_now_ns();
    for (i = 0; i < OTHERS; i++) {
        CHECK(xrt_stream_synchronize(other[i]));
        CHECK(xrt_stream_destroy(other[i]));
    }
    CHECK(xrt_stream_destroy(one));
    return (t1 - t0) / 1e6;
}

/* The process on the first core it may use (its threads inherit it). */
static void one_core(void)
{
    cpu_set_t all, one;
    int c;
    CPU_ZERO(&one);
    if (sched_getaffinity(0, sizeof all, &all) != 0) return;
    for (c = 0; c < CPU_SETSIZE && !CPU_ISSET(c, &all); c++) continue;
    if (c == CPU_SETSIZE) return;
    CPU_SET(c, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) perror("stream_priority: sched_setaffinity (runs unpinned)");
}

int main(void)
{
    xrt_module_image im = {XRT_IMAGE_CPU_C_SOURCE, src, sizeof src - 1, NULL};
    xrt_module m;
    double base[5], high[5], t0;
    char v[64];
    int r;
    bench_load_start(NULL);
    one_core();
    CHECK(xrt_set_backend("cpu"));
    setenv("XRT_CACHE", "0", 1);
    CHECK(xrt_module_load(&m, &im, 1, NULL));
    CHECK(xrt_module_get_function(&busy, m, "busy"));
    { /* spins for about 0.3 ms: the fastest of 9 runs of a million (a loaded machine slows some) */
        xrt_stream s;
        xrt_dim3 g = {1, 1, 1};
        double best = 1e18;
        CHECK(xrt_stream_create(&s));
        spins = 1000000;
        for (r = 0; r < 9; r++) {
            t0 = bench_now_ns();
            CHECK(xrt_launch_kernel(busy, g, g, 0, s, &spins, sizeof spins));
            CHECK(xrt_stream_synchronize(s));
            if (bench_now_ns() - t0 < best) best = bench_now_ns() - t0;
        }
        spins = (unsigned long)(spins * 0.3e6 / best);
        CHECK(xrt_stream_destroy(s));
    }
    for (r = 0; r < 5; r++) {
        base[r] = burst_ms(0);
        high[r] = burst_ms(-5);
    }
    printf("stream priorities on the CPU backend, one core (%d kernels of 0.3 ms beside %d busy streams)\n", BURST, OTHERS);
    printf("  %-38s %8.2f ms  all priority 0 %8.2f ms  %.2fx  %s\n", "the burst at priority -5", bench_median(high, 5),
           bench_median(base, 5), bench_median(high, 5) / bench_median(base, 5),
           bench_target(v, sizeof v, bench_median(high, 5) / bench_median(base, 5), 0.75, 0, "x", "CPU stream priority -5 burst / priority 0"));
    bench_load_report();
    CHECK(xrt_module_unload(m));
    return 0;
}
