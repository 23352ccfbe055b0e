/* SPDX-License-Identifier: MIT */
/* CPU stream throughput: 64-byte xrt_memset_async calls per second on one
   stream, against the same memsets handed to a worker thread through a
   mutex + condition variable queue, medians of BENCH_REPS alternating runs.
   Two shapes: bursts of BURST calls, each followed by a synchronize (the
   queue never fills), and OPS calls in one go (the queue is full most of the
   time, so the producer waits for room). Targets: a million calls a second,
   and at least as many as the queue (xrt/cv >= 1.0x); the verdict names both.
   Then: idle stream workers use no CPU (getrusage over one second). */
#define XRT_IMPL
#include "xrt.h"

#include "bench.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define OPS 200000
#define BURST 256
#define SLOTS 64 /* 64-byte targets the memsets cycle through */
#define QCAP 1024
#define IDLE_STREAMS 4

static unsigned char (*target)[64]; /* SLOTS x 64 bytes of device memory */

/* >> baseline: a bounded queue under one mutex, two condition variables */
typedef struct cv_queue {
    pthread_mutex_t lock;
    pthread_cond_t not_empty, not_full, drained;
    void *dst[QCAP];
    int value[QCAP];
    long head, tail, stop;
} cv_queue;

static void *cv_worker(void *arg)
{
    cv_queue *q = arg;
    pthread_mutex_lock(&q->lock);
    for (;;) {
        void *dst;
        int value;
        while (q->head == q->tail && !q->stop) pthread_cond_wait(&q->not_empty, &q->lock);
        if (q->head == q->tail) break;
        dst = q->dst[q->head % QCAP];
        value = q->value[q->head % QCAP];
        pthread_mutex_unlock(&q->lock);
        memset(dst, value, 64);
        pthread_mutex_lock(&q->lock);
        if (++q->head == q->tail) pthread_cond_signal(&q->drained);
        pthread_cond_signal(&q->not_full);
    }
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

static void cv_push(cv_queue *q, void *dst, int value)
{
    pthread_mutex_lock(&q->lock);
    while (q->tail - q->head == QCAP) pthread_cond_wait(&q->not_full, &q->lock);
    q->dst[q->tail % QCAP] = dst;
    q->value[q->tail % QCAP] = value;
    q->tail++;
    pthread_cond_signal(&q->not_empty);
    pthread_mutex_unlock(&q->lock);
}

static void cv_drain(cv_queue *q)
{
    pthread_mutex_lock(&q->lock);
    while (q->head != q->tail) pthread_cond_wait(&q->drained, &q->lock);
    pthread_mutex_unlock(&q->lock);
}

/* ctx: the burst length; a drain follows every burst. */
static void cv_memsets(void *ctx, long ops)
{
    static cv_queue q = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER,
                         PTHREAD_COND_INITIALIZER, {0}, {0}, 0, 0, 0};
    long burst = *(long *)ctx, i;
    pthread_t t;
    q.head = q.tail = q.stop = 0;
    pthread_create(&t, NULL, cv_worker, &q);
    for (i = 0; i < ops; i++) {
        cv_push(&q, target[i % SLOTS], (int)i);
        if ((i + 1) % burst == 0) cv_drain(&q);
    }
    cv_drain(&q);
    pthread_mutex_lock(&q.lock);
    q.stop = 1;
    pthread_cond_signal(&q.not_empty);
    pthread_mutex_unlock(&q.lock);
    pthread_join(t, NULL);
}

/* >> xrt */
static xrt_stream stream;

static void xrt_check(xrt_status st)
{
    if (st == XRT_SUCCESS) return;
    fprintf(stderr, "stream_throughput: %s\n", xrt_get_last_error_string());
    exit(1);
}

static void xrt_memsets(void *ctx, long ops)
{
    long burst = *(long *)ctx, i;
    for (i = 0; i < ops; i++) {
        xrt_check(xrt_memset_async(target[i % SLOTS], (int)i, 64, stream));
        if ((i + 1) % burst == 0) xrt_check(xrt_stream_synchronize(stream));
    }
    xrt_check(xrt_stream_synchronize(stream));
}

static void throughput(long burst)
{
    double cv, x;
    char v[48], q[48];
    bench_pair(cv_memsets, xrt_memsets, &burst, OPS, BENCH_REPS, &cv, &x);
    printf("%-24s %10.2f %10.2f %7.2fx  %s, %s\n", burst < OPS ? "bursts of 256" : "200000 in one go", 1e3 / cv,
           1e3 / x, cv / x, bench_target(v, sizeof v, 1e3 / x, 1, 1, " M/s", "CPU 64-byte memsets, %s", burst < OPS ? "bursts of 256" : "200000 in one go"),
           bench_target(q, sizeof q, cv / x, 1.0, 1, "x the queue", "CPU 64-byte memsets, %s, / condvar queue", burst < OPS ? "bursts of 256" : "200000 in one go"));
}

/* >> idle workers */
static double cpu_seconds(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/* Streams that have worked and gone idle, the default stream and the pool's
   helpers: over one second of sleep, the process's CPU time should not grow. */
static int idle_check(void)
{
    xrt_stream s[IDLE_STREAMS];
    void *big;
    double before;
    int i;
    for (i = 0; i < IDLE_STREAMS; i++) {
        if (xrt_stream_create(&s[i]) || xrt_memset_async(target[i], 0, 64, s[i]) || xrt_stream_synchronize(s[i]))
            return 1;
    }
    if (xrt_memset(target[0], 0, 64)) return 1;
    if (xrt_malloc(&big, 16u << 20) || xrt_memset_async(big, 1, 16u << 20, s[0]) || xrt_stream_synchronize(s[0]) ||
        xrt_free(big))
        return 1; /* a split memset: the pool's helpers are started, then idle too */
    usleep(10000); /* past the workers' spin before they sleep */
    before = cpu_seconds();
    sleep(1);
    before = (cpu_seconds() - before) * 1e3;
    printf("idle: %d streams + the default stream + the pool, CPU time over 1 s of sleep: %.2f ms %s\n", IDLE_STREAMS, before,
           before <= 1.0 ? "ok (target: none; <= 1 ms counts as none)" : "MISSED (target: none)");
    for (i = 0; i < IDLE_STREAMS; i++) xrt_stream_destroy(s[i]);
    return 0;
}

int main(void)
{
    bench_load_start(NULL);
    bench_load_report();
    if (xrt_set_backend("cpu") || xrt_malloc((void **)&target, SLOTS * 64) || xrt_stream_create(&stream)) goto fail;
    printf("64-byte memsets on one stream, M calls/s, medians of %d\n", BENCH_REPS);
    printf("%-24s %10s %10s %8s\n", "", "condvar", "xrt", "xrt/cv");
    throughput(BURST);
    throughput(OPS);
    xrt_stream_destroy(stream);
    if (idle_check()) goto fail;
    xrt_free(target);
    xrt_shutdown();
    return 0;
fail:
    fprintf(stderr, "stream_throughput: %s\n", xrt_get_last_error_string());
    return 1;
}
