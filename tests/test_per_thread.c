/* SPDX-License-Identifier: MIT */
/* A translation unit built as nvcc's --default-stream per-thread builds one:
   XRT_API_PER_THREAD_DEFAULT_STREAM makes NULL mean each thread's own
   stream (XRT_STREAM_PER_THREAD). Two threads blocked on their NULL streams
   do not wait for each other; XRT_STREAM_LEGACY still names the legacy
   stream, which waits for both (their streams are blocking ones). */
#define XRT_API_PER_THREAD_DEFAULT_STREAM
#include "xrt_test.h"

#include <pthread.h>

typedef struct job { gate *g; void *d; unsigned char v; xrt_status st; } job;

static void *blocked_main(void *arg)
{
    job *j = (job *)arg;
    if ((j->st = xrt_launch_host_func(NULL, gate_wait, j->g)) == XRT_SUCCESS &&
        (j->st = xrt_memset_async(j->d, j->v, 64, NULL)) == XRT_SUCCESS)
        j->st = xrt_stream_synchronize(NULL);
    return NULL;
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
        OK(xrt_memcpy(h, j.d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST));
        assert_bytes(h, sizeof h, (unsigned char)(i + 1));
    }
    OK(xrt_free(j.d));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        gated_test(test_null_is_the_threads_own_stream),
        cmocka_unit_test(test_per_thread_streams_of_exited_threads),
    };
    return xrt_test_run_on_backends("per_thread", tests, sizeof tests / sizeof tests[0], NULL);
}
