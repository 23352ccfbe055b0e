/* Round trip of an empty host function through a CPU stream (enqueue, then
   synchronize), against two baselines measured in the same run: a bare
   spinning hand-off between two threads, and a mutex + condition variable
   queue. Prints the ratios; the design target is xrt / spin <= 3. */
#define XRT_IMPL
#include "xrt.h"

#include "bench.h"

#include <pthread.h>
#include <stdio.h>

#define ROUNDS 200000

/* >> baseline: spinning hand-off */
static unsigned long spin_req, spin_ack;

static void *spin_worker(void *arg)
{
    unsigned long i;
    (void)arg;
    for (i = 1; i <= ROUNDS; i++) {
        while (__atomic_load_n(&spin_req, __ATOMIC_ACQUIRE) != i) __builtin_ia32_pause();
        __atomic_store_n(&spin_ack, i, __ATOMIC_RELEASE);
    }
    return NULL;
}

static double bench_spin(void)
{
    pthread_t t;
    unsigned long i;
    double t0;
    pthread_create(&t, NULL, spin_worker, NULL);
    t0 = bench_now_ns();
    for (i = 1; i <= ROUNDS; i++) {
        __atomic_store_n(&spin_req, i, __ATOMIC_RELEASE);
        while (__atomic_load_n(&spin_ack, __ATOMIC_ACQUIRE) != i) __builtin_ia32_pause();
    }
    t0 = (bench_now_ns() - t0) / ROUNDS;
    pthread_join(t, NULL);
    return t0;
}

/* >> baseline: mutex + condition variable */
static pthread_mutex_t cv_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv_req = PTHREAD_COND_INITIALIZER, cv_ack = PTHREAD_COND_INITIALIZER;
static unsigned long cv_req_n, cv_ack_n;
#define CV_ROUNDS (ROUNDS / 20)

static void *cv_worker(void *arg)
{
    unsigned long i;
    (void)arg;
    for (i = 1; i <= CV_ROUNDS; i++) {
        pthread_mutex_lock(&cv_lock);
        while (cv_req_n != i) pthread_cond_wait(&cv_req, &cv_lock);
        cv_ack_n = i;
        pthread_cond_signal(&cv_ack);
        pthread_mutex_unlock(&cv_lock);
    }
    return NULL;
}

static double bench_condvar(void)
{
    pthread_t t;
    unsigned long i;
    double t0;
    pthread_create(&t, NULL, cv_worker, NULL);
    t0 = bench_now_ns();
    for (i = 1; i <= CV_ROUNDS; i++) {
        pthread_mutex_lock(&cv_lock);
        cv_req_n = i;
        pthread_cond_signal(&cv_req);
        while (cv_ack_n != i) pthread_cond_wait(&cv_ack, &cv_lock);
        pthread_mutex_unlock(&cv_lock);
    }
    t0 = (bench_now_ns() - t0) / CV_ROUNDS;
    pthread_join(t, NULL);
    return t0;
}

/* >> xrt */
static void empty(void *user) { (void)user; }

static double bench_xrt(void)
{
    xrt_stream s;
    int i;
    double t0;
    if (xrt_set_backend("cpu") || xrt_stream_create(&s)) return -1;
    xrt_launch_host_func(s, empty, NULL); /* wake the worker once */
    xrt_stream_synchronize(s);
    t0 = bench_now_ns();
    for (i = 0; i < ROUNDS; i++) {
        xrt_launch_host_func(s, empty, NULL);
        xrt_stream_synchronize(s);
    }
    t0 = (bench_now_ns() - t0) / ROUNDS;
    xrt_stream_destroy(s);
    return t0;
}

int main(void)
{
    double spin = bench_spin(), cv = bench_condvar(), x = bench_xrt();
    if (x < 0) {
        fprintf(stderr, "stream_roundtrip: %s\n", xrt_get_last_error_string());
        return 1;
    }
    printf("spinning hand-off      %8.0f ns\n", spin);
    printf("mutex+condvar queue    %8.0f ns\n", cv);
    printf("xrt cpu stream         %8.0f ns   %.2fx spin (target <= 3x), %.3fx condvar\n", x, x / spin, x / cv);
    xrt_shutdown();
    return 0;
}
