/* SPDX-License-Identifier: MIT */
/* Shared by the benchmarks: a monotonic clock, medians, and a harness that
   times a baseline and xrt alternately, repetition by repetition, so that
   both see the same machine state (frequency, caches, neighbours). */
#ifndef XRT_BENCH_H
#define XRT_BENCH_H

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BENCH_REPS 9 /* repetitions behind every median */

/* An xrt call that must succeed: else the benchmark stops, naming its file
   and the error (for benchmarks that include xrt.h first). */
#define BENCH_CHECK(call)                                                            \
    do {                                                                             \
        if ((call) != XRT_SUCCESS) {                                                 \
            fprintf(stderr, "%s: %s\n", __FILE__, xrt_get_last_error_string());      \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

static inline double bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static inline int bench__cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v in place. */
static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], bench__cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A timed loop: runs its operation `iters` times on `ctx`. */
typedef void (*bench_loop)(void *ctx, long iters);

/* Microseconds to sleep before each timed loop (0: none): where the two
   sides keep threads of their own that spin after their work (an OpenMP team
   spins for milliseconds after a parallel region), the gap lets them go to
   sleep, so that neither side is timed against the other's spinning threads. */
static long bench_gap_us;

static inline double bench__time(bench_loop loop, void *ctx, long iters)
{
    double t0;
    if (bench_gap_us) usleep((useconds_t)bench_gap_us);
    t0 = bench_now_ns();
    loop(ctx, iters);
    return (bench_now_ns() - t0) / (double)iters;
}

/* Median nanoseconds per iteration of `base` and of `test`, measured in
   alternation over `reps` repetitions (at most 64) after one warm-up each;
   which side goes first alternates too (the side that runs second finds
   caches and clocks as the first left them). */
static inline void bench_pair(bench_loop base, bench_loop test, void *ctx, long iters, int reps,
                              double *base_ns, double *test_ns)
{
    double b[64], t[64];
    int r;
    if (reps > 64) reps = 64;
    base(ctx, iters);
    test(ctx, iters);
    for (r = 0; r < reps; r++) {
        if (r % 2 == 0) {
            b[r] = bench__time(base, ctx, iters);
            t[r] = bench__time(test, ctx, iters);
        } else {
            t[r] = bench__time(test, ctx, iters);
            b[r] = bench__time(base, ctx, iters);
        }
    }
    *base_ns = bench_median(b, reps);
    *test_ns = bench_median(t, reps);
}

/* "12.3 us": a duration in a readable unit. */
static inline const char *bench_fmt_ns(char *buf, size_t n, double ns)
{
    if (ns < 1e3) snprintf(buf, n, "%.0f ns", ns);
    else if (ns < 1e6) snprintf(buf, n, "%.2f us", ns / 1e3);
    else snprintf(buf, n, "%.2f ms", ns / 1e6);
    return buf;
}

/* "ok (target <= 1.03x)" or "MISSED (target >= 1 M/s)": a value against its
   target. For costs (times, their ratios) lower is better; for speeds (rates,
   their ratios) higher is better. unit: "x" for a ratio, else e.g. " ms". */
static inline const char *bench_verdict(char *buf, size_t n, double value, double target, int higher_is_better,
                                        const char *unit)
{
    int ok = higher_is_better ? value >= target : value <= target;
    snprintf(buf, n, "%s (target %s %.*f%s)", ok ? "ok" : "MISSED", higher_is_better ? ">=" : "<=",
             unit[0] == 'x' ? 2 : 0, target, unit);
    return buf;
}

/* bench_verdict, and the figure kept for bench/RESULTS.md's table of
   current figures: where BENCH_FIGURES names a file (bench/run.sh sets it),
   one line is appended: metric, value, target, verdict and the command
   (BENCH_COMMAND, else the program), tab-separated; bench/table.sh makes
   the table. metric: a printf format and its arguments. */
static inline const char *bench_target(char *buf, size_t n, double value, double target, int higher_is_better,
                                       const char *unit, const char *metric, ...) __attribute__((format(printf, 7, 8)));
static inline const char *bench_target(char *buf, size_t n, double value, double target, int higher_is_better,
                                       const char *unit, const char *metric, ...)
{
    const char *path = getenv("BENCH_FIGURES"), *cmd = getenv("BENCH_COMMAND");
    char name[160], comm[256] = "?";
    va_list ap;
    FILE *f;
    bench_verdict(buf, n, value, target, higher_is_better, unit);
    if (!path || !path[0] || (f = fopen(path, "a")) == NULL) return buf;
    if (!cmd || !cmd[0]) { /* the program's name: argv[0]'s last part */
        FILE *c = fopen("/proc/self/cmdline", "r");
        size_t got = c ? fread(comm, 1, sizeof comm - 1, c) : 0;
        if (c) fclose(c);
        comm[got] = 0;
        cmd = strrchr(comm, '/') ? strrchr(comm, '/') + 1 : comm;
    }
    va_start(ap, metric);
    vsnprintf(name, sizeof name, metric, ap);
    va_end(ap);
    fprintf(f, "%s\t%.*f%s\t%s %.*f%s\t%s\t%s\n", name, unit[0] == 'x' ? 2 : value < 10 ? 2 : 0, value, unit,
            higher_is_better ? ">=" : "<=", unit[0] == 'x' ? 2 : target < 10 ? 2 : 0, target, unit,
            strncmp(buf, "ok", 2) ? "missed" : "ok", cmd);
    fclose(f);
    return buf;
}

/* >> load: BENCH_LOAD=N (or `--load N` where a benchmark takes it) starts N
   processes that spin for the whole run, to measure under a busy machine:
   N = the number of cores keeps every core busy besides the benchmark. */
#define BENCH_MAX_LOAD 64
static pid_t bench__load_pids[BENCH_MAX_LOAD];
static int bench__load_n;

static inline void bench_load_stop(void)
{
    int i;
    for (i = 0; i < bench__load_n; i++) {
        kill(bench__load_pids[i], SIGKILL);
        waitpid(bench__load_pids[i], NULL, 0);
    }
    bench__load_n = 0;
}

/* Reads BENCH_LOAD (or `arg` when not NULL); returns the number of spinners started. */
static inline int bench_load_start(const char *arg)
{
    const char *v = arg ? arg : getenv("BENCH_LOAD");
    int n = v ? atoi(v) : 0, i;
    if (n > BENCH_MAX_LOAD) n = BENCH_MAX_LOAD;
    for (i = 0; i < n; i++) {
        pid_t p = fork();
        if (p == 0) {
            volatile unsigned long spin = 0;
            for (;;) spin++;
        }
        if (p > 0) bench__load_pids[bench__load_n++] = p;
    }
    if (bench__load_n) {
        atexit(bench_load_stop);
        usleep(20000); /* the spinners get going */
    }
    return bench__load_n;
}

/* One line that says under which load the figures were taken. */
static inline void bench_load_report(void)
{
    FILE *f = fopen("/proc/loadavg", "r");
    char la[64] = "?";
    if (f) {
        if (!fgets(la, sizeof la, f)) la[0] = 0;
        fclose(f);
    }
    la[strcspn(la, "\n")] = 0;
    printf("load: %d spinning processes started by the benchmark; /proc/loadavg %s\n", bench__load_n, la);
}

/* >> copies: one copy loop per side, for the copy benchmarks (memcpy.c,
   split.c): libc memcpy on the calling thread against xrt_memcpy_async back
   to back on one stream, then one synchronize. */
#ifdef XRT_H_INCLUDED
typedef struct bench_copies {
    void *dst, *src;
    size_t n;
    xrt_stream s;
} bench_copies;

static inline void bench_libc_copies(void *p, long iters)
{
    bench_copies *c = (bench_copies *)p;
    long i;
    for (i = 0; i < iters; i++) {
        memcpy(c->dst, c->src, c->n);
        __asm__ volatile("" ::: "memory"); /* every copy happens */
    }
}

static inline void bench_async_copies(void *p, long iters)
{
    bench_copies *c = (bench_copies *)p;
    long i;
    for (i = 0; i < iters; i++) xrt_memcpy_async(c->dst, c->src, c->n, XRT_MEMCPY_DEVICE_TO_DEVICE, c->s);
    xrt_stream_synchronize(c->s);
}
#endif

#ifdef _GNU_SOURCE /* an XRT_IMPL unit */
#include <sched.h>

/* The threads one CPU copy may use, as the CPU backend documents them
   (README, XRT_CPU_THREADS): the usable cores (this process's affinity
   mask: `taskset -c 0` gives 1), at most XRT_CPU_THREADS. For the heading of
   a benchmark, which reads no backend's internals. */
static inline long bench_cpu_threads(void)
{
    cpu_set_t set;
    const char *env = getenv("XRT_CPU_THREADS");
    long n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : sysconf(_SC_NPROCESSORS_ONLN);
    if (env && *env && strspn(env, "0123456789") == strlen(env) && atol(env) >= 1 && atol(env) < n) n = atol(env);
    return n < 1 ? 1 : n;
}
#endif

#endif
