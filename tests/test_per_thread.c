/* SPDX-License-Identifier: MIT */
/* A translation unit built as nvcc's --default-stream per-thread builds one:
   XRT_API_PER_THREAD_DEFAULT_STREAM makes NULL mean each thread's own
   stream (XRT_STREAM_PER_THREAD). Two threads blocked on their NULL streams
   do not wait for each other; XRT_STREAM_LEGACY still names the legacy
   stream, which waits for both (their streams are blocking ones). */
#define XRT_API_PER_THREAD_DEFAULT_STREAM
#include "xrt_test.h"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

typedef struct job { gate *g; void *d; unsigned char v; xrt_status st; } job;

static void *blocked_main(void *arg)
{
    job *j = (job *)arg;
    if ((j->st = xrt_launch_host_func(NULL, gate_wait, j->g)) == XRT_SUCCESS &&
        (j->st = xrt_memset_async(j->d, j->v, 64, NULL)) == XRT_SUCCESS)
        j->st = xrt_stream_synchronize(NULL);
    return NULL;
}

/* Opens both gates after 3 s: a call that wrongly waits for the blocked
   threads' streams is then slow, not stuck. */
static void *open_late(void *arg)
{
    (void)arg;
    sleep_ms(3000);
    gate_open(&gates[0]);
    gate_open(&gates[1]);
    return NULL;
}

/* The synchronous calls too (cudaMemcpy_ptds & co): ordered on the thread's
   own stream, not behind the other threads' blocked ones; d holds 3s. */
static void sync_calls_on_own_stream(void *d, unsigned char *h, size_t n)
{
    xrt_memcpy_3d_parms p;
    unsigned char h2[64];
    pthread_t late;
    double t0;
    assert_int_equal(pthread_create(&late, NULL, open_late, NULL), 0);
    t0 = now_ms(CLOCK_MONOTONIC);
    OK(xrt_memcpy(h, d, n, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_bytes(h, n, 3);
    OK(xrt_memset(d, 4, n));
    OK(xrt_memset_2d(d, 16, 5, 8, 4));
    OK(xrt_memcpy_2d(h2, 16, d, 16, 16, 4, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_int_equal(h2[0], 5);
    assert_int_equal(h2[8], 4);
    OK(xrt_memset_d32(d, 0x06060606u, n / 4));
    memset(&p, 0, sizeof p);
    p.src_ptr.ptr = d, p.src_ptr.pitch = n, p.src_ptr.xsize = n, p.src_ptr.ysize = 1;
    p.dst_ptr.ptr = h2, p.dst_ptr.pitch = sizeof h2, p.dst_ptr.xsize = sizeof h2, p.dst_ptr.ysize = 1;
    p.extent.width = n, p.extent.height = 1, p.extent.depth = 1;
    p.kind = XRT_MEMCPY_DEVICE_TO_HOST;
    OK(xrt_memcpy_3d(&p));
    assert_bytes(h2, n, 6);
    OK(xrt_memset(d, 3, n));
    assert_true(now_ms(CLOCK_MONOTONIC) - t0 < 1500);
    assert_int_equal(xrt_stream_query(XRT_STREAM_LEGACY), XRT_ERROR_NOT_READY); /* still blocked */
    assert_int_equal(pthread_detach(late), 0); /* the test opens the gates itself next */
}

static void test_null_is_the_threads_own_stream(void **state)
{
    job a = {&gates[0], NULL, 1, XRT_ERROR_BACKEND}, b = {&gates[1], NULL, 2, XRT_ERROR_BACKEND};
    unsigned char h[64];
    pthread_t ta, tb;
    void *d;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    OK(xrt_malloc(&a.d, 64));
    OK(xrt_malloc(&b.d, 64));
    OK(xrt_malloc(&d, sizeof h));
    assert_int_equal(start_thread(&ta, xrt_test_backend, blocked_main, &a), 0);
    assert_int_equal(start_thread(&tb, xrt_test_backend, blocked_main, &b), 0);
    gate_wait_entered(&gates[0]);
    gate_wait_entered(&gates[1]);
    OK(xrt_memset_async(d, 3, sizeof h, NULL)); /* this thread's own: not behind theirs */
    OK(xrt_stream_synchronize(NULL));
    OK(xrt_stream_query(NULL));
    sync_calls_on_own_stream(d, h, sizeof h);
    assert_int_equal(xrt_stream_query(XRT_STREAM_LEGACY), XRT_ERROR_NOT_READY); /* the legacy stream waits for both */
    gate_open(&gates[0]);
    assert_int_equal(pthread_join(ta, NULL), 0);
    OK(a.st);
    gate_open(&gates[1]);
    assert_int_equal(pthread_join(tb, NULL), 0);
    OK(b.st);
    OK(xrt_stream_synchronize(XRT_STREAM_LEGACY));
    OK(xrt_memcpy_async(h, d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST, NULL));
    OK(xrt_stream_synchronize(NULL));
    assert_bytes(h, sizeof h, 3);
    FAILS(xrt_stream_destroy(NULL), XRT_ERROR_INVALID_HANDLE, "is NULL");
    OK(xrt_free(a.d));
    OK(xrt_free(b.d));
    OK(xrt_free(d));
}

/* A thread that exits releases its per-thread stream: many threads come and
   go, and each one's stream does its work (nothing leaks: ASan, valgrind). */
static void *short_main(void *arg)
{
    job *j = (job *)arg;
    if ((j->st = xrt_memset_async(j->d, j->v, 64, NULL)) == XRT_SUCCESS) j->st = xrt_stream_synchronize(NULL);
    return NULL;
}

static void test_per_thread_streams_of_exited_threads(void **state)
{
    unsigned char h[64];
    job j = {NULL, NULL, 0, XRT_ERROR_BACKEND};
    pthread_t t;
    int i;
    (void)state;
    OK(xrt_malloc(&j.d, 64));
    for (i = 0; i < 50; i++) {
        j.v = (unsigned char)(i + 1);
        assert_int_equal(start_thread(&t, xrt_test_backend, short_main, &j), 0);
        assert_int_equal(pthread_join(t, NULL), 0);
        OK(j.st);
        /* through the legacy stream, which waits for the threads' streams and
           they for it: the order the stream-order checker sees (it does not
           see pthread_join); NULL here would be this thread's own stream */
        OK(xrt_memcpy_async(h, j.d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST, XRT_STREAM_LEGACY));
        OK(xrt_stream_synchronize(XRT_STREAM_LEGACY));
        assert_bytes(h, sizeof h, (unsigned char)(i + 1));
    }
    OK(xrt_free(j.d));
}

/* Threads that exit while xrt_shutdown closes their per-thread streams:
   whichever closes a stream first, the other does not touch it again (a
   thread's exit once tried to close a stream that the shutdown had closed
   and its worker freed: ThreadSanitizer saw the free unordered with it). */
static int streams_made;
typedef struct owner { xrt_status st; unsigned delay_us; } owner;

static void *own_and_exit(void *arg)
{
    owner *o = (owner *)arg;
    xrt_stream s;
    o->st = xrt_stream_per_thread(&s);
    __atomic_add_fetch(&streams_made, 1, __ATOMIC_RELEASE);
    usleep(o->delay_us); /* some exit before the shutdown, some during it */
    return NULL; /* its per-thread stream is closed on the way out, or by the shutdown */
}

static void test_shutdown_beside_exiting_owners(void **state)
{
    enum { THREADS = 4 };
    pthread_t t[THREADS];
    owner o[THREADS];
    int round, i;
    (void)state;
    for (round = 0; round < 150; round++) {
        OK(xrt_set_backend(xrt_test_backend));
        __atomic_store_n(&streams_made, 0, __ATOMIC_RELAXED);
        for (i = 0; i < THREADS; i++) {
            o[i].delay_us = (unsigned)(round % 10) * 20 + (unsigned)i * 7;
            assert_int_equal(start_thread(&t[i], xrt_test_backend, own_and_exit, &o[i]), 0);
        }
        while (__atomic_load_n(&streams_made, __ATOMIC_ACQUIRE) < THREADS) sched_yield();
        xrt_shutdown(); /* beside the threads' exits */
        for (i = 0; i < THREADS; i++) {
            assert_int_equal(pthread_join(t[i], NULL), 0);
            OK(o[i].st);
        }
    }
    OK(xrt_set_backend(xrt_test_backend));
}

/* A stream whose host function asked for its thread's per-thread stream:
   its worker owns one, closed when the worker exits, while the caller makes
   and destroys streams (each creation joins the workers that finished). */
static void take_own_stream(void *user)
{
    xrt_stream s;
    *(xrt_status *)user = xrt_stream_per_thread(&s);
}

static void test_worker_owning_a_per_thread_stream(void **state)
{
    xrt_status st = XRT_ERROR_BACKEND;
    xrt_stream s, t;
    int round;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    SKIP_UNLESS(on_cpu(), "a GPU runtime's host functions make no xrt calls");
    for (round = 0; round < 100; round++) {
        OK(xrt_stream_create(&s));
        OK(xrt_launch_host_func(s, take_own_stream, &st));
        OK(xrt_stream_synchronize(s));
        OK(st);
        OK(xrt_stream_destroy(s)); /* its worker exits and closes its own stream */
        OK(xrt_stream_create(&t));
        OK(xrt_stream_destroy(t));
    }
}

/* In such a unit NULL is the thread's own stream, a stream of its own: a
   managed allocation may be attached to it singly (cudaStreamAttachMemAsync
   refuses that of the legacy stream only, which XRT_STREAM_LEGACY names). */
static void test_attach_single_to_null(void **state)
{
    void *m;
    (void)state;
    OK(xrt_malloc_managed(&m, 4096, XRT_MEM_ATTACH_GLOBAL));
    OK(xrt_stream_attach_mem_async(NULL, m, 0, XRT_MEM_ATTACH_SINGLE));
    OK(xrt_stream_synchronize(NULL));
    FAILS(xrt_stream_attach_mem_async(XRT_STREAM_LEGACY, m, 0, XRT_MEM_ATTACH_SINGLE), XRT_ERROR_INVALID_VALUE,
          "NULL stream");
    OK(xrt_free(m));
}

/* A host function that waits (at most 2 s) for the caller's flag: *late
   says whether the caller came after the deadline. */
typedef struct late_gate { int open, late; } late_gate;

static void late_gate_wait(void *user)
{
    late_gate *g = (late_gate *)user;
    double t0 = now_ms(CLOCK_MONOTONIC);
    while (!__atomic_load_n(&g->open, __ATOMIC_ACQUIRE))
        if (now_ms(CLOCK_MONOTONIC) - t0 > 2000) {
            g->late = 1;
            return;
        }
}

/* CUDA's "API synchronization behavior" holds on the per-thread stream as
   on the legacy one (cudaMemset_ptds, cudaMemcpy2D_ptds & co): the
   synchronous sets of device memory and the synchronous copies from device
   to device (1-D, 2-D, 3-D, between peers) return while the thread's own
   stream is held by a host function, and run in its order there. */
static void test_sync_device_work_not_waited_for(void **state)
{
    enum { P = 256, R = 4 };
    late_gate g = {0, 0};
    unsigned char h[P * R];
    xrt_memcpy_3d_parms p;
    unsigned char *a, *b, *c;
    size_t i;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    OK(xrt_malloc((void **)&a, sizeof h));
    OK(xrt_malloc((void **)&b, sizeof h));
    OK(xrt_malloc((void **)&c, sizeof h));
    OK(xrt_launch_host_func(NULL, late_gate_wait, &g));
    OK(xrt_memset_async(a, 9, sizeof h, NULL));
    OK(xrt_memset(b, 1, sizeof h));
    OK(xrt_memset_2d(b, P, 2, P / 2, R));
    OK(xrt_memset_3d(xrt_make_pitched_ptr(b, P, P, R / 2), 3, xrt_make_extent(P / 4, R / 2, 2)));
    OK(xrt_memset_d32(b + sizeof h - 16, 0x05050505u, 4));
    OK(xrt_memcpy(c, a, sizeof h, XRT_MEMCPY_DEVICE_TO_DEVICE));
    OK(xrt_memcpy(c, a, sizeof h, XRT_MEMCPY_DEFAULT)); /* resolved to device to device */
    OK(xrt_memcpy_2d(c, P, b, P, P / 2, R, XRT_MEMCPY_DEVICE_TO_DEVICE));
    memset(&p, 0, sizeof p);
    p.src_ptr = xrt_make_pitched_ptr(b, P, P, R);
    p.dst_ptr = xrt_make_pitched_ptr(c, P, P, R);
    p.extent = xrt_make_extent(P / 4, R, 1);
    p.kind = XRT_MEMCPY_DEFAULT; /* resolved to device to device */
    OK(xrt_memcpy_3d(&p));
    OK(xrt_memcpy_peer(c + sizeof h - 16, 0, b + sizeof h - 16, 0, 16));
    __atomic_store_n(&g.open, 1, __ATOMIC_RELEASE);
    OK(xrt_memcpy(h, c, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_int_equal(g.late, 0);
    for (i = 0; i < sizeof h; i++) {
        unsigned char want = i >= sizeof h - 16 ? 5 : i % P < P / 4 ? 3 : i % P < P / 2 ? 2 : 9;
        if (h[i] != want) fail_msg("c[%zu] = %d, not %d: a call ran out of the thread's stream's order", i, h[i], want);
    }
    OK(xrt_free(a));
    OK(xrt_free(b));
    OK(xrt_free(c));
}

/* The synchronous sets of pinned host memory are "fully synchronous" there
   too: done when they return, after the work queued before them. */
static void nap_20ms(void *user)
{
    (void)user;
    sleep_ms(20);
}

static void test_sync_set_of_pinned_done(void **state)
{
    unsigned char *t;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    OK(xrt_malloc_host((void **)&t, 256));
    OK(xrt_launch_host_func(NULL, nap_20ms, NULL));
    OK(xrt_memset_async(t, 9, 256, NULL));
    OK(xrt_memset(t, 1, 256));
    assert_bytes(t, 256, 1);
    OK(xrt_free_host(t));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        gated_test(test_null_is_the_threads_own_stream),
        cmocka_unit_test(test_per_thread_streams_of_exited_threads),
        cmocka_unit_test(test_shutdown_beside_exiting_owners),
        cmocka_unit_test(test_worker_owning_a_per_thread_stream),
        cmocka_unit_test(test_attach_single_to_null),
        cmocka_unit_test(test_sync_device_work_not_waited_for),
        cmocka_unit_test(test_sync_set_of_pinned_done),
    };
    return xrt_test_run_on_backends("per_thread", tests, sizeof tests / sizeof tests[0], NULL);
}
