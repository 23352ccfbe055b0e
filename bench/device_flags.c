/* SPDX-License-Identifier: MIT */
/* Event synchronize under each device schedule (xrt_set_device_flags) on the
   CPU backend: a round enqueues a host function that runs for about 20 us on
   the stream's worker, records an event after it and synchronizes the event,
   so the calling thread waits about 20 us each round. Printed per schedule:
   the median time a round took and the calling thread's CPU time per round
   (getrusage), and each schedule's round time against auto's, measured in
   the same run, the schedules alternating (their order rotates with each of
   BENCH_REPS repetitions). What to expect: spin about as fast as auto and
   with the most CPU; blocking sync slower by a wake-up but nearly no CPU;
   yield between. BENCH_LOAD=N runs it beside N spinning processes. */
#define XRT_IMPL
#include "xrt.h"

#include "bench.h"

#include <sys/resource.h>

#define CHECK(call) BENCH_CHECK(call)
#define ROUNDS 2000
#define WORK_NS 20000.0

static const struct { unsigned flags; const char *name; } schedules[] = {
    {XRT_DEVICE_SCHEDULE_AUTO, "auto"},
    {XRT_DEVICE_SCHEDULE_SPIN, "spin"},
    {XRT_DEVICE_SCHEDULE_YIELD, "yield"},
    {XRT_DEVICE_SCHEDULE_BLOCKING_SYNC, "blocking sync"},
};
enum { SCHEDULES = sizeof schedules / sizeof schedules[0] };

static void work(void *user)
{
    double t0 = bench_now_ns();
    (void)user;
    while (bench_now_ns() - t0 < WORK_NS) {}
}

static double thread_cpu_ns(void)
{
    struct rusage u;
    getrusage(RUSAGE_THREAD, &u);
    return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e9 + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e3;
}

/* ROUNDS rounds under one schedule: ns a round, and the thread's CPU ns a round. */
static void rounds(xrt_stream s, xrt_event e, unsigned flags, double *round_ns, double *cpu_ns)
{
    double t0, c0;
    int i;
    CHECK(xrt_set_device_flags(flags));
    usleep(1000); /* the worker's linger after the last side ends */
    c0 = thread_cpu_ns();
    t0 = bench_now_ns();
    for (i = 0; i < ROUNDS; i++) {
        CHECK(xrt_launch_host_func(s, work, NULL));
        CHECK(xrt_event_record(e, s));
        CHECK(xrt_event_synchronize(e));
    }
    *round_ns = (bench_now_ns() - t0) / ROUNDS;
    *cpu_ns = (thread_cpu_ns() - c0) / ROUNDS;
}

int main(void)
{
    double t[SCHEDULES][BENCH_REPS], c[SCHEDULES][BENCH_REPS], med[SCHEDULES], dummy;
    char a[32], b[32], cpu[32];
    xrt_stream s;
    xrt_event e;
    int r, k;
    bench_load_start(NULL);
    CHECK(xrt_set_backend("cpu"));
    CHECK(xrt_stream_create_with_priority(&s, XRT_STREAM_NON_BLOCKING, 0));
    CHECK(xrt_event_create(&e, XRT_EVENT_DISABLE_TIMING));
    rounds(s, e, XRT_DEVICE_SCHEDULE_AUTO, &dummy, &dummy); /* warm-up: the worker exists */
    for (r = 0; r < BENCH_REPS; r++)
        for (k = 0; k < SCHEDULES; k++) {
            int i = (k + r) % SCHEDULES;
            rounds(s, e, schedules[i].flags, &t[i][r], &c[i][r]);
        }
    CHECK(xrt_set_device_flags(XRT_DEVICE_SCHEDULE_AUTO));
    printf("event synchronize behind a 20 us host function, by device schedule (CPU backend, %d rounds, median of %d)\n",
           ROUNDS, BENCH_REPS);
    for (k = 0; k < SCHEDULES; k++) med[k] = bench_median(t[k], BENCH_REPS);
    for (k = 0; k < SCHEDULES; k++)
        printf("  %-14s a round %9s  of it waiting beyond the work %9s  CPU of the waiting thread %9s  %.2fx auto\n",
               schedules[k].name, bench_fmt_ns(a, sizeof a, med[k]),
               bench_fmt_ns(b, sizeof b, med[k] > WORK_NS ? med[k] - WORK_NS : 0),
               bench_fmt_ns(cpu, sizeof cpu, bench_median(c[k], BENCH_REPS)), med[k] / med[0]);
    bench_load_report();
    CHECK(xrt_event_destroy(e));
    CHECK(xrt_stream_destroy(s));
    return 0;
}
