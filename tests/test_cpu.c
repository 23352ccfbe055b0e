/* SPDX-License-Identifier: MIT */
/* CPU backend: proofs that it keeps GPU semantics (asynchrony, stream order,
   sources read late, cross-stream waits, timing), so that code developed on it
   shows the bugs it would show on a GPU. A host function that waits on a gate
   stands in for a long kernel. */
#define XRT_IMPL /* white-box: the CPU backend's memory and IPC records */
#include "xrt_test.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Opens a gate from another thread after `ms` (unless the test opened it
   first), for tests whose main thread blocks in xrt until the gate opens, and
   as a watchdog, so that a test that would hang fails instead. */
typedef struct opener { gate *g; int ms; pthread_t thread; } opener;

static void *opener_main(void *arg)
{
    opener *o = (opener *)arg;
    double end = now_ms(CLOCK_MONOTONIC) + o->ms;
    while (now_ms(CLOCK_MONOTONIC) < end && !__atomic_load_n(&o->g->open, __ATOMIC_ACQUIRE)) sleep_ms(1);
    gate_open(o->g);
    return NULL;
}

static void opener_start(opener *o, gate *g, int ms)
{
    o->g = g;
    o->ms = ms;
    assert_int_equal(start_thread(&o->thread, NULL, opener_main, o), 0);
}

static void opener_join(opener *o) { assert_int_equal(pthread_join(o->thread, NULL), 0); }

/* A blocked stream keeps later work pending (the enqueuing thread returned at
   once), while another stream runs to completion. Host buffers are pinned:
   a copy to pageable memory would wait, as in CUDA. */
static void test_asynchrony(void **state)
{
    enum { H = 4096 };
    unsigned char *h1, *h2;
    xrt_stream s1, s2;
    xrt_event e;
    void *d1, *d2;
    int ran1 = 0, ran2 = 0;
    (void)state;
    OK(xrt_malloc_host((void **)&h1, H));
    OK(xrt_malloc_host((void **)&h2, H));
    OK(xrt_stream_create(&s1));
    OK(xrt_stream_create(&s2));
    OK(xrt_event_create(&e, 0));
    OK(xrt_malloc(&d1, H));
    OK(xrt_malloc(&d2, H));
    memset(h1, 0, H);

    OK(xrt_launch_host_func(s1, gate_wait, &gates[0]));
    OK(xrt_memset_async(d1, 0x11, H, s1));
    OK(xrt_memcpy_async(h1, d1, H, XRT_MEMCPY_DEVICE_TO_HOST, s1));
    OK(xrt_event_record(e, s1));
    OK(xrt_launch_host_func(s1, set_flag, &ran1));
    gate_wait_entered(&gates[0]);

    OK(xrt_memset_async(d2, 0x22, H, s2));
    OK(xrt_memcpy_async(h2, d2, H, XRT_MEMCPY_DEVICE_TO_HOST, s2));
    OK(xrt_launch_host_func(s2, set_flag, &ran2));
    OK(xrt_stream_synchronize(s2));
    assert_true(flag(&ran2));
    assert_bytes(h2, H, 0x22);
    OK(xrt_stream_query(s2));

    sleep_ms(10);
    assert_int_equal(xrt_stream_query(s1), XRT_ERROR_NOT_READY);
    assert_int_equal(xrt_event_query(e), XRT_ERROR_NOT_READY);
    assert_false(flag(&ran1));

    gate_open(&gates[0]);
    OK(xrt_stream_synchronize(s1));
    OK(xrt_stream_query(s1));
    OK(xrt_event_query(e));
    assert_true(flag(&ran1));
    assert_bytes(h1, H, 0x11);

    OK(xrt_event_destroy(e));
    OK(xrt_stream_destroy(s1));
    OK(xrt_stream_destroy(s2));
    OK(xrt_free(d1));
    OK(xrt_free(d2));
    OK(xrt_free_host(h1));
    OK(xrt_free_host(h2));
}

/* An async copy from pinned memory reads its source when the stream reaches
   it, not when it is enqueued: changing the source before the stream gets
   there changes the result. This is the bug a user would see on a GPU.
   (From pageable memory the copy is done before the call returns, as in
   CUDA: test_suite's test_pageable_copies.) */
static void test_async_copy_reads_source_late(void **state)
{
    enum { H = 256 };
    unsigned char *src, *dst;
    xrt_stream s;
    void *d;
    (void)state;
    OK(xrt_stream_create(&s));
    OK(xrt_malloc(&d, H));
    OK(xrt_malloc_host((void **)&src, H));
    OK(xrt_malloc_host((void **)&dst, H));
    memset(src, 1, H);
    memset(dst, 0, H);
    OK(xrt_launch_host_func(s, gate_wait, &gates[0]));
    OK(xrt_memcpy_async(d, src, H, XRT_MEMCPY_HOST_TO_DEVICE, s));
    OK(xrt_memcpy_async(dst, d, H, XRT_MEMCPY_DEVICE_TO_HOST, s));
    memset(src, 2, H); /* legal only because the stream is blocked: a race otherwise */
    gate_open(&gates[0]);
    OK(xrt_stream_synchronize(s));
    assert_bytes(dst, H, 2);
    OK(xrt_stream_destroy(s));
    OK(xrt_free(d));
    OK(xrt_free_host(src));
    OK(xrt_free_host(dst));
}

/* Many operations, more than the ring holds, complete in enqueue order. */
enum { MANY = 10000 };
static struct { int n; int order[MANY]; } seq;

static void seq_append(void *user)
{
    int n = __atomic_load_n(&seq.n, __ATOMIC_RELAXED); /* one writer at a time: stream order */
    seq.order[n] = (int)(intptr_t)user;
    __atomic_store_n(&seq.n, n + 1, __ATOMIC_RELEASE); /* read while later ops run */
}

/* After a synchronize, which makes the worker's writes visible: ops 0..n-1
   ran, in that order. */
static void assert_seq_in_order(int n)
{
    int i;
    assert_int_equal(seq.n, n);
    for (i = 0; i < n; i++)
        if (seq.order[i] != i) fail_msg("op %d ran at position %d", seq.order[i], i);
}

static void test_in_order_execution(void **state)
{
    xrt_stream s;
    int i, k;
    (void)state;
    OK(xrt_stream_create(&s));
    for (k = 0; k < 2; k++) {
        xrt_stream on = k ? NULL : s;
        memset(&seq, 0, sizeof seq);
        for (i = 0; i < MANY; i++) OK(xrt_launch_host_func(on, seq_append, (void *)(intptr_t)i));
        OK(xrt_stream_synchronize(on));
        assert_seq_in_order(MANY);
    }
    OK(xrt_stream_destroy(s));
}

/* Events time what the stream did between them. */
static void sleep_50ms(void *user)
{
    (void)user;
    sleep_ms(50);
}

static void test_event_timing(void **state)
{
    xrt_stream s;
    xrt_event e0, e1;
    float ms = -1.0f, back = 1.0f;
    (void)state;
    OK(xrt_stream_create(&s));
    OK(xrt_event_create(&e0, 0));
    OK(xrt_event_create(&e1, XRT_EVENT_BLOCKING_SYNC));
    OK(xrt_event_record(e0, s));
    OK(xrt_launch_host_func(s, sleep_50ms, NULL));
    OK(xrt_event_record(e1, s));
    OK(xrt_event_synchronize(e1));
    OK(xrt_event_elapsed_time(&ms, e0, e1));
    print_message("elapsed %.3f ms around a 50 ms sleep\n", (double)ms);
    assert_true(ms >= 50.0f);  /* the sleep is a lower bound */
    assert_true(ms < 1000.0f); /* generous: a loaded 2-core machine under a sanitizer */
    OK(xrt_event_elapsed_time(&back, e1, e0));
    assert_true(back <= -50.0f);
    OK(xrt_event_destroy(e0));
    OK(xrt_event_destroy(e1));
    OK(xrt_stream_destroy(s));
}

/* Stream B waits for an event recorded on A behind a blocked host function:
   nothing after the wait runs on B until A is released. */
static struct { int n; char order[8]; } marks;
static void mark_a(void *user) { (void)user; marks.order[__atomic_fetch_add(&marks.n, 1, __ATOMIC_ACQ_REL)] = 'A'; }
static void mark_b(void *user) { (void)user; marks.order[__atomic_fetch_add(&marks.n, 1, __ATOMIC_ACQ_REL)] = 'B'; }

static void test_cross_stream_wait(void **state)
{
    xrt_stream a, b;
    xrt_event e;
    int b_ran = 0;
    (void)state;
    memset(&marks, 0, sizeof marks);
    OK(xrt_stream_create(&a));
    OK(xrt_stream_create(&b));
    OK(xrt_event_create(&e, XRT_EVENT_DISABLE_TIMING));
    OK(xrt_launch_host_func(a, gate_wait, &gates[0]));
    OK(xrt_launch_host_func(a, mark_a, NULL));
    OK(xrt_event_record(e, a));
    OK(xrt_stream_wait_event(b, e));
    OK(xrt_launch_host_func(b, mark_b, NULL));
    OK(xrt_launch_host_func(b, set_flag, &b_ran));
    sleep_ms(30);
    assert_false(flag(&b_ran));
    assert_int_equal(xrt_stream_query(b), XRT_ERROR_NOT_READY);
    assert_int_equal(__atomic_load_n(&marks.n, __ATOMIC_ACQUIRE), 0);
    gate_open(&gates[0]);
    OK(xrt_stream_synchronize(b));
    assert_true(flag(&b_ran));
    assert_int_equal(marks.n, 2);
    assert_memory_equal(marks.order, "AB", 2);
    OK(xrt_stream_query(a)); /* B's completion implies A reached the record */
    OK(xrt_event_destroy(e)); /* destroying an event a finished wait used is fine */
    OK(xrt_stream_destroy(a));
    OK(xrt_stream_destroy(b));
}

/* An event destroyed while a wait on it is still queued stays alive until
   the wait is done. */
static void test_event_destroyed_while_waited_on(void **state)
{
    xrt_stream a, b;
    xrt_event e;
    int b_ran = 0;
    (void)state;
    OK(xrt_stream_create(&a));
    OK(xrt_stream_create(&b));
    OK(xrt_event_create(&e, 0));
    OK(xrt_launch_host_func(a, gate_wait, &gates[0]));
    OK(xrt_event_record(e, a));
    OK(xrt_stream_wait_event(b, e));
    OK(xrt_launch_host_func(b, set_flag, &b_ran));
    OK(xrt_event_destroy(e));
    sleep_ms(10);
    assert_false(flag(&b_ran));
    gate_open(&gates[0]);
    OK(xrt_stream_synchronize(b));
    assert_true(flag(&b_ran));
    OK(xrt_stream_destroy(a));
    OK(xrt_stream_destroy(b));
}

/* A wait captures the event's latest record at the time of the wait, as
   cudaStreamWaitEvent does: recording the event again elsewhere, even a
   record that completes at once, does not release a wait on the earlier one.
   The event itself reports its newest record. */
static void test_wait_captures_the_record_at_the_time(void **state)
{
    xrt_stream a, b, c;
    xrt_event e;
    static int c_ran; /* static: queued work may outlive a failed assertion */
    (void)state;
    c_ran = 0;
    OK(xrt_stream_create(&a));
    OK(xrt_stream_create(&b));
    OK(xrt_stream_create(&c));
    OK(xrt_event_create(&e, 0));
    OK(xrt_launch_host_func(a, gate_wait, &gates[0]));
    gate_wait_entered(&gates[0]);
    OK(xrt_event_record(e, a)); /* record N: pending behind the gate */
    OK(xrt_stream_wait_event(c, e));
    OK(xrt_event_record(e, b)); /* record N+1: B is idle, so it completes at once */
    OK(xrt_launch_host_func(c, set_flag, &c_ran));
    sleep_ms(50);
    assert_false(flag(&c_ran));
    assert_int_equal(xrt_stream_query(c), XRT_ERROR_NOT_READY);
    OK(xrt_event_query(e)); /* the newest record, N+1, is complete */
    OK(xrt_event_synchronize(e));
    assert_false(flag(&c_ran));
    gate_open(&gates[0]);
    OK(xrt_stream_synchronize(c));
    assert_true(flag(&c_ran));
    OK(xrt_event_destroy(e));
    OK(xrt_stream_destroy(a));
    OK(xrt_stream_destroy(b));
    OK(xrt_stream_destroy(c));
}

/* The time of an event is that of its newest record: an older record that
   completes later does not overwrite it. */
static void test_elapsed_time_of_the_newest_record(void **state)
{
    xrt_stream a, b;
    xrt_event t0, t1;
    float ms = -1.0f, again = -1.0f;
    (void)state;
    OK(xrt_stream_create(&a));
    OK(xrt_stream_create(&b));
    OK(xrt_event_create(&t0, 0));
    OK(xrt_event_create(&t1, 0));
    OK(xrt_launch_host_func(a, gate_wait, &gates[0]));
    OK(xrt_event_record(t1, a)); /* pending until A is released, well after the newer record */
    OK(xrt_event_record(t0, b));
    OK(xrt_launch_host_func(b, sleep_50ms, NULL));
    OK(xrt_event_record(t1, b)); /* the newest record of t1: 50 ms after t0 */
    OK(xrt_event_synchronize(t1));
    OK(xrt_event_elapsed_time(&ms, t0, t1));
    print_message("elapsed %.3f ms around a 50 ms sleep, the older record still pending\n", (double)ms);
    assert_true(ms >= 50.0f);
    assert_true(ms < 1000.0f);
    sleep_ms(50);
    gate_open(&gates[0]);
    OK(xrt_stream_synchronize(a)); /* the older record of t1 runs now */
    OK(xrt_event_elapsed_time(&again, t0, t1));
    assert_true(again == ms);
    OK(xrt_event_destroy(t0));
    OK(xrt_event_destroy(t1));
    OK(xrt_stream_destroy(a));
    OK(xrt_stream_destroy(b));
}

/* An event outlives the stream it was recorded on: once that stream is
   destroyed the event can still be queried, synchronized and waited on. */
static void test_event_outlives_its_stream(void **state)
{
    xrt_stream s, c;
    xrt_event e, idle;
    static int c_ran; /* static: queued work may outlive a failed assertion */
    (void)state;
    c_ran = 0;
    OK(xrt_stream_create(&s));
    OK(xrt_stream_create(&c));
    OK(xrt_event_create(&e, XRT_EVENT_BLOCKING_SYNC));
    OK(xrt_event_create(&idle, 0));
    OK(xrt_event_record(idle, s)); /* on an idle stream: complete */
    OK(xrt_launch_host_func(s, gate_wait, &gates[0]));
    OK(xrt_event_record(e, s));
    OK(xrt_stream_destroy(s));
    OK(xrt_event_query(idle));
    OK(xrt_event_synchronize(idle));
    assert_int_equal(xrt_event_query(e), XRT_ERROR_NOT_READY);
    OK(xrt_stream_wait_event(c, e));
    OK(xrt_launch_host_func(c, set_flag, &c_ran));
    sleep_ms(20);
    assert_false(flag(&c_ran));
    gate_open(&gates[0]);
    OK(xrt_event_synchronize(e));
    OK(xrt_event_query(e));
    OK(xrt_stream_synchronize(c));
    assert_true(flag(&c_ran));
    /* after the stream's worker is gone too */
    OK(xrt_device_synchronize());
    OK(xrt_event_query(e));
    OK(xrt_event_synchronize(e));
    OK(xrt_stream_wait_event(c, e));
    OK(xrt_stream_wait_event(NULL, idle));
    assert_stream_works(c, 0x3e);
    OK(xrt_event_destroy(e));
    OK(xrt_event_destroy(idle));
    OK(xrt_stream_destroy(c));
}

/* Stream-ordered allocation: the memory is usable by work enqueued after
   malloc_async and released only when the stream reaches free_async (ASan
   would report a use after free otherwise). */
static void test_malloc_free_async_order(void **state)
{
    enum { H = 512 };
    unsigned char *h;
    xrt_pointer_attributes a;
    xrt_stream s;
    void *p;
    (void)state;
    OK(xrt_stream_create(&s));
    OK(xrt_malloc_host((void **)&h, H)); /* pinned: the copy stays queued */
    memset(h, 0, H);
    OK(xrt_launch_host_func(s, gate_wait, &gates[0]));
    OK(xrt_malloc_async(&p, H, s));
    OK(xrt_memset_async(p, 7, H, s));
    OK(xrt_memcpy_async(h, p, H, XRT_MEMCPY_DEVICE_TO_HOST, s));
    OK(xrt_free_async(p, s));
    OK(xrt_pointer_get_attributes(&a, p)); /* gone for the program at once */
    assert_int_equal(a.type, XRT_MEMORY_UNKNOWN);
    gate_open(&gates[0]);
    OK(xrt_stream_synchronize(s));
    assert_bytes(h, H, 7);
    OK(xrt_stream_destroy(s));
    OK(xrt_free_host(h));
}

/* xrt_memcpy and xrt_memset are ordered on the NULL stream: they wait for
   work queued there first, but not for other streams. */
static void test_sync_ops_ordered_on_null_stream(void **state)
{
    unsigned char h[256];
    xrt_stream s;
    opener o;
    void *d;
    double t0;
    (void)state;
    OK(xrt_malloc(&d, sizeof h));
    OK(xrt_memset(d, 0, sizeof h));

    OK(xrt_launch_host_func(NULL, gate_wait, &gates[0]));
    OK(xrt_memset_async(d, 0x5e, sizeof h, NULL));
    t0 = now_ms(CLOCK_MONOTONIC);
    opener_start(&o, &gates[0], 50);
    OK(xrt_memcpy(h, d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_true(now_ms(CLOCK_MONOTONIC) - t0 >= 49.0);
    opener_join(&o);
    assert_bytes(h, sizeof h, 0x5e);

    OK(xrt_launch_host_func(NULL, gate_wait, &gates[1]));
    OK(xrt_memset_async(d, 0x01, sizeof h, NULL));
    opener_start(&o, &gates[1], 20);
    OK(xrt_memset(d, 0x02, sizeof h)); /* after the queued memset, so it wins */
    opener_join(&o);
    OK(xrt_memcpy(h, d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_bytes(h, sizeof h, 0x02);

    /* a blocked non-blocking stream does not hold up the NULL stream */
    gates[0].open = 0;
    OK(xrt_stream_create_with_flags(&s, XRT_STREAM_NON_BLOCKING));
    OK(xrt_launch_host_func(s, gate_wait, &gates[0]));
    OK(xrt_memset(d, 0x03, sizeof h));
    OK(xrt_memcpy(h, d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_bytes(h, sizeof h, 0x03);
    assert_int_equal(xrt_stream_query(s), XRT_ERROR_NOT_READY);
    gate_open(&gates[0]);
    OK(xrt_stream_destroy(s));
    OK(xrt_free(d));
}

/* xrt_free and xrt_free_host wait for queued work, as cudaFree and
   cudaFreeHost do: work enqueued before the free may still use the memory
   (ASan reports a use after free otherwise). */
static void test_free_waits_for_queued_work(void **state)
{
    xrt_stream s;
    opener o;
    void *d, *p;
    double t0;
    (void)state;
    OK(xrt_stream_create(&s));
    OK(xrt_malloc(&d, 1 << 16));
    OK(xrt_malloc_host(&p, 1 << 16));
    OK(xrt_launch_host_func(s, gate_wait, &gates[0]));
    OK(xrt_memset_async(d, 1, 1 << 16, s));
    OK(xrt_memcpy_async(p, d, 1 << 16, XRT_MEMCPY_DEVICE_TO_HOST, s));
    t0 = now_ms(CLOCK_MONOTONIC);
    opener_start(&o, &gates[0], 50);
    OK(xrt_free(d));
    assert_true(now_ms(CLOCK_MONOTONIC) - t0 >= 49.0);
    opener_join(&o);
    assert_bytes((unsigned char *)p, 1 << 16, 1);

    OK(xrt_launch_host_func(s, gate_wait, &gates[1]));
    OK(xrt_memset_async(p, 2, 1 << 16, s));
    t0 = now_ms(CLOCK_MONOTONIC);
    opener_start(&o, &gates[1], 50);
    OK(xrt_free_host(p));
    assert_true(now_ms(CLOCK_MONOTONIC) - t0 >= 49.0);
    opener_join(&o);
    OK(xrt_stream_destroy(s));
}

static void sleep_then_count(void *user)
{
    sleep_ms(20);
    count_up((int *)user);
}

static void test_device_synchronize_waits_for_all(void **state)
{
    xrt_stream s[3];
    int done = 0, i;
    (void)state;
    for (i = 0; i < 3; i++) {
        OK(xrt_stream_create(&s[i]));
        OK(xrt_launch_host_func(s[i], sleep_then_count, &done));
    }
    OK(xrt_launch_host_func(NULL, sleep_then_count, &done));
    OK(xrt_device_synchronize());
    assert_int_equal(__atomic_load_n(&done, __ATOMIC_ACQUIRE), 4);
    for (i = 0; i < 3; i++) OK(xrt_stream_destroy(s[i]));
}

/* xrt_device_synchronize waits for the streams without holding up other
   threads: while one thread waits for a blocked stream, another creates and
   destroys streams and events and allocates and copies. (Not xrt_free: like
   cudaFree, it synchronizes the device.) */
typedef struct syncer { pthread_t thread; xrt_status status; int done; } syncer;

static void *syncer_main(void *arg)
{
    syncer *y = (syncer *)arg;
    y->status = xrt_device_synchronize();
    __atomic_store_n(&y->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void test_device_synchronize_blocks_no_other_thread(void **state)
{
    unsigned char h[256];
    xrt_stream x, s;
    xrt_event e;
    static syncer y; /* static: the threads outlive a failed assertion */
    static opener watchdog;
    void *d;
    double t0, took;
    (void)state;
    memset(&y, 0, sizeof y);
    OK(xrt_stream_create_with_flags(&x, XRT_STREAM_NON_BLOCKING)); /* the NULL stream's copies below do not wait for it */
    OK(xrt_launch_host_func(x, gate_wait, &gates[0]));
    gate_wait_entered(&gates[0]);
    opener_start(&watchdog, &gates[0], 5000); /* a call that waits for X fails the test, not hangs */
    assert_int_equal(start_thread(&y.thread, NULL, syncer_main, &y), 0); /* on this group's backend */
    sleep_ms(50); /* let it block in xrt_device_synchronize */
    assert_false(flag(&y.done));

    t0 = now_ms(CLOCK_MONOTONIC);
    OK(xrt_stream_create(&s));
    OK(xrt_event_create(&e, 0));
    OK(xrt_event_record(e, s));
    OK(xrt_event_synchronize(e));
    OK(xrt_event_destroy(e));
    OK(xrt_stream_destroy(s));
    OK(xrt_malloc(&d, sizeof h));
    memset(h, 0x6c, sizeof h);
    OK(xrt_memcpy(d, h, sizeof h, XRT_MEMCPY_HOST_TO_DEVICE));
    memset(h, 0, sizeof h);
    OK(xrt_memcpy(h, d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST));
    took = now_ms(CLOCK_MONOTONIC) - t0;
    print_message("created, destroyed, allocated and copied in %.3f ms during a device synchronize\n", took);
    assert_true(took < 1000.0);
    assert_bytes(h, sizeof h, 0x6c);
    assert_false(flag(&y.done)); /* X is still blocked */

    gate_open(&gates[0]);
    opener_join(&watchdog);
    assert_int_equal(pthread_join(y.thread, NULL), 0);
    assert_int_equal(y.status, XRT_SUCCESS);
    OK(xrt_free(d));
    OK(xrt_stream_destroy(x));
}

/* Destroying a stream returns at once; its queued work still completes. */
static void test_destroy_with_pending_work(void **state)
{
    static int counter;
    xrt_stream s;
    int i;
    (void)state;
    counter = 0;
    OK(xrt_stream_create(&s));
    OK(xrt_launch_host_func(s, gate_wait, &gates[0]));
    for (i = 0; i < 100; i++) OK(xrt_launch_host_func(s, count_up, &counter));
    OK(xrt_stream_destroy(s));
    assert_int_equal(xrt_stream_query(s), XRT_ERROR_INVALID_HANDLE);
    assert_int_equal(__atomic_load_n(&counter, __ATOMIC_ACQUIRE), 0);
    gate_open(&gates[0]);
    for (i = 0; i < 5000 && __atomic_load_n(&counter, __ATOMIC_ACQUIRE) < 100; i++) sleep_ms(1);
    assert_int_equal(__atomic_load_n(&counter, __ATOMIC_ACQUIRE), 100);
    OK(xrt_device_synchronize());
}

/* More work than the ring holds, queued behind a blocker: the enqueuing
   thread waits for room, and everything runs in order once released. */
static void test_full_ring(void **state)
{
    enum { OPS = 3000 };
    xrt_stream s;
    opener o;
    int i;
    double t0;
    (void)state;
    memset(&seq, 0, sizeof seq);
    OK(xrt_stream_create(&s));
    OK(xrt_launch_host_func(s, gate_wait, &gates[0]));
    t0 = now_ms(CLOCK_MONOTONIC);
    opener_start(&o, &gates[0], 50);
    for (i = 0; i < OPS; i++) OK(xrt_launch_host_func(s, seq_append, (void *)(intptr_t)i));
    assert_true(now_ms(CLOCK_MONOTONIC) - t0 >= 49.0); /* it had to wait for room */
    opener_join(&o);
    OK(xrt_stream_synchronize(s));
    assert_seq_in_order(OPS);
    OK(xrt_stream_destroy(s));
}

/* An op enqueued on a stream just seen empty takes the stream's express slot
   and the ops after it the ring: mixed so, in every proportion, they still
   run in enqueue order, an event recorded among them completes with its op,
   and a synchronize waits for all of them (now and then the first one is
   held at a gate while the others queue behind it). */
static void test_express_slot_keeps_order(void **state)
{
    enum { ROUNDS = 2000 };
    xrt_stream s;
    xrt_event e;
    opener o;
    int r, i, n = 0;
    (void)state;
    memset(&seq, 0, sizeof seq);
    OK(xrt_stream_create(&s));
    OK(xrt_event_create(&e, 0));
    for (r = 0; r < ROUNDS; r++) {
        int ops = 1 + r % 4, held = r % 500 == 0;
        OK(xrt_stream_synchronize(s));
        if (held) {
            gates_reset(NULL);
            OK(xrt_launch_host_func(s, gate_wait, &gates[0]));
            opener_start(&o, &gates[0], 20);
        }
        for (i = 0; i < ops; i++) {
            OK(xrt_launch_host_func(s, seq_append, (void *)(intptr_t)n++));
            if (i == 0) OK(xrt_event_record(e, s));
        }
        if (held) assert_int_equal(xrt_event_query(e), XRT_ERROR_NOT_READY);
        OK(xrt_event_synchronize(e));
        assert_true(__atomic_load_n(&seq.n, __ATOMIC_ACQUIRE) >= n - ops + 1);
        if (held) {
            OK(xrt_stream_synchronize(s));
            opener_join(&o);
        }
    }
    OK(xrt_stream_synchronize(s));
    assert_seq_in_order(n);
    OK(xrt_event_destroy(e));
    OK(xrt_stream_destroy(s));
}

/* Where the worker sleeps, a thread that synchronizes the stream runs the
   queued host functions itself (as CUDA runs them on a thread of its own
   choosing). Such a function keeps a host function's rules: a wait is
   refused, and an enqueue onto its own full stream grows the queue instead
   of waiting for the thread that runs it; its failures stay its own, not
   the synchronizing caller's last error. A worker woken by the enqueue may
   win the race to run it, so the test goes on until the caller has run one. */
enum { LENT_OPS = 1500 }; /* more than a queue's initial size */
static struct { xrt_stream s; long tid; xrt_status inner, flood; } lent;

static void lent_fn(void *user)
{
    int i;
    (void)user;
    lent.tid = syscall(SYS_gettid);
    lent.inner = xrt_stream_synchronize(lent.s);
    lent.flood = XRT_SUCCESS;
    for (i = 0; i < LENT_OPS && lent.flood == XRT_SUCCESS; i++)
        lent.flood = xrt_launch_host_func(lent.s, seq_append, (void *)(intptr_t)i);
}

static void test_synchronizing_thread_runs_host_functions(void **state)
{
    long me = syscall(SYS_gettid);
    char detail[512];
    int tries, here = 0;
    (void)state;
    OK(xrt_stream_create(&lent.s));
    for (tries = 0; tries < 100 && !here; tries++) {
        memset(&seq, 0, sizeof seq);
        lent.tid = 0;
        sleep_ms(10); /* the worker goes to sleep (it stays awake for at most 4 ms) */
        assert_int_equal(xrt_malloc(NULL, 1), XRT_ERROR_INVALID_VALUE);
        snprintf(detail, sizeof detail, "%s", xrt_get_last_error_string());
        OK(xrt_launch_host_func(lent.s, lent_fn, NULL));
        OK(xrt_stream_synchronize(lent.s));
        assert_int_equal(lent.inner, XRT_ERROR_NOT_PERMITTED);
        assert_int_equal(lent.flood, XRT_SUCCESS);
        assert_int_equal(xrt_peek_at_last_error(), XRT_ERROR_INVALID_VALUE);
        assert_string_equal(xrt_get_last_error_string(), detail);
        OK(xrt_stream_synchronize(lent.s));
        assert_seq_in_order(LENT_OPS);
        here = lent.tid == me;
    }
    if (!here) fail_msg("in %d tries the synchronizing thread never ran the host function", tries);
    xrt_get_last_error();
    assert_stream_works(lent.s, 0x5a); /* the queue it grew goes on working */
    OK(xrt_stream_destroy(lent.s));
}

/* A host function that destroys its own stream while a thread synchronizes
   it: where the synchronizing thread runs the function, its synchronize goes
   on using the stream after the function returns, so the destroy waits for
   the end of that call (under TSan and ASan in make test: a stream freed
   too early shows there). A worker woken by the enqueue may run the function
   before the synchronize begins, which then finds the handle destroyed:
   the test tries until the synchronizing thread has run it three times,
   and fails only if it never did (under make test's load the worker won
   399 of 400 rounds once). */
static struct { xrt_stream s; long tid; xrt_status st; int done; } doomed;

static void destroy_own_stream(void *user)
{
    (void)user;
    doomed.tid = syscall(SYS_gettid);
    doomed.st = xrt_stream_destroy(doomed.s);
    __atomic_store_n(&doomed.done, 1, __ATOMIC_RELEASE);
}

static void test_host_function_destroys_its_stream(void **state)
{
    long me = syscall(SYS_gettid);
    int round, here = 0, i;
    (void)state;
    for (round = 0; round < 400 && here < 3; round++) { /* on a loaded machine the worker may win most rounds */
        xrt_status st;
        OK(xrt_stream_create(&doomed.s));
        doomed.done = 0;
        sleep_ms(5); /* the worker goes to sleep (it stays awake for at most 4 ms) */
        OK(xrt_launch_host_func(doomed.s, destroy_own_stream, NULL));
        st = xrt_stream_synchronize(doomed.s);
        if (st != XRT_SUCCESS) { /* the worker ran it first */
            assert_int_equal(st, XRT_ERROR_INVALID_HANDLE);
            for (i = 0; i < 5000 && !__atomic_load_n(&doomed.done, __ATOMIC_ACQUIRE); i++) sleep_ms(1);
        }
        assert_true(__atomic_load_n(&doomed.done, __ATOMIC_ACQUIRE));
        OK(doomed.st);
        assert_int_equal(xrt_stream_query(doomed.s), XRT_ERROR_INVALID_HANDLE);
        here += doomed.tid == me;
    }
    if (!here) fail_msg("in %d rounds the synchronizing thread never ran the host function", round);
    xrt_get_last_error();
}

/* xrt_shutdown releases everything (streams, events, memory: the leak
   checker holds it to that) and a new xrt_init starts afresh. */
static void test_shutdown_and_init_again(void **state)
{
    xrt_stream s;
    xrt_event e;
    void *leaked;
    int round;
    (void)state;
    for (round = 0; round < 3; round++) {
        OK(xrt_malloc(&leaked, 1000));
        OK(xrt_stream_create(&s));
        OK(xrt_event_create(&e, 0));
        OK(xrt_memset_async(leaked, 1, 1000, s));
        OK(xrt_event_record(e, s));
        xrt_shutdown();
        xrt_shutdown(); /* idempotent */
        OK(xrt_init());
        OK(xrt_init());
        OK(xrt_set_backend("cpu"));
        OK(xrt_stream_create(&s));
        assert_stream_works(s, 0x4b);
        OK(xrt_stream_destroy(s));
    }
}

/* Idle workers park on a futex instead of spinning. */
static void test_idle_workers_park(void **state)
{
    xrt_stream s[4];
    int i, done = 0;
    double wall0, cpu0, wall, cpu;
    (void)state;
    for (i = 0; i < 4; i++) {
        OK(xrt_stream_create(&s[i]));
        OK(xrt_launch_host_func(s[i], count_up, &done));
    }
    OK(xrt_device_synchronize());
    sleep_ms(50); /* let them go from spinning to parked */
    wall0 = now_ms(CLOCK_MONOTONIC);
    cpu0 = now_ms(CLOCK_PROCESS_CPUTIME_ID);
    sleep_ms(200);
    wall = now_ms(CLOCK_MONOTONIC) - wall0;
    cpu = now_ms(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
    print_message("idle: %.1f ms CPU in %.1f ms wall with 5 workers\n", cpu, wall);
    assert_true(cpu < wall / 10);
    for (i = 0; i < 4; i++) OK(xrt_stream_destroy(s[i]));
}

/* Copies and memsets above the split size (XRT_CPU_SPLIT_BYTES, 16 MiB by
   default) run in parts across the pool's threads: every byte lands where
   it should, and stream order holds between whole and split operations. */
static void test_split_operations(void **state)
{
    const size_t n = (24u << 20) + 4133; /* not a multiple of a part */
    unsigned char *a, *b;
    xrt_stream s;
    size_t i;
    (void)state;
    OK(xrt_stream_create(&s));
    OK(xrt_malloc((void **)&a, n));
    OK(xrt_malloc((void **)&b, n));
    for (i = 0; i < n; i++) a[i] = (unsigned char)(i * 131u + (i >> 20));
    OK(xrt_memset_async(b, 0x77, n, s));
    OK(xrt_memcpy_async(b, a, n, XRT_MEMCPY_DEVICE_TO_DEVICE, s)); /* after the memset */
    OK(xrt_memset_async(a, 0x11, 4096, s));                        /* after the copy read a */
    OK(xrt_stream_synchronize(s));
    for (i = 0; i < n; i++)
        if (b[i] != (unsigned char)(i * 131u + (i >> 20))) fail_msg("byte %zu of the split copy is 0x%02x", i, b[i]);
    assert_bytes(a, 4096, 0x11);
    OK(xrt_memset(b + 1, 0x3c, n - 2)); /* split too; of device memory, it returns before it is done */
    OK(xrt_stream_synchronize(NULL));
    assert_int_equal(b[0], 0);
    assert_bytes(b + 1, n - 2, 0x3c);
    assert_int_equal(b[n - 1], (unsigned char)((n - 1) * 131u + ((n - 1) >> 20)));
    OK(xrt_stream_destroy(s));
    OK(xrt_free(a));
    OK(xrt_free(b));
}

/* >> the worker joins its producer under load */
/* Two cores, each kept busy by a spinning thread: the test thread on one,
   the stream's worker put on the other. A worker preempted there moves onto
   its producer's core, where the two take turns (xrt__cpu_worker_join);
   with each core as loaded as the other, the scheduler's balancing alone
   would leave it apart. */
static int hogs_stop;

static void *hog_main(void *arg)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET((int)(intptr_t)arg, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) return NULL;
    while (!__atomic_load_n(&hogs_stop, __ATOMIC_RELAXED)) {
    }
    return NULL;
}

typedef struct hop_to { int cpu, seen; } hop_to;

/* On the worker: onto `cpu`, with its mask given back at once (as the
   scheduler might have put it there); then says where it runs. */
static void worker_hop(void *arg)
{
    hop_to *h = (hop_to *)arg;
    cpu_set_t mask, one;
    if (h->cpu >= 0 && sched_getaffinity(0, sizeof mask, &mask) == 0) {
        CPU_ZERO(&one);
        CPU_SET(h->cpu, &one);
        if (sched_setaffinity(0, sizeof one, &one) == 0) sched_setaffinity(0, sizeof mask, &mask);
    }
    h->seen = sched_getcpu();
}

static void test_worker_joins_its_producer_under_load(void **state)
{
    cpu_set_t all, mine;
    pthread_t hog[2];
    int cpu[2], n = 0, i, joined = 0;
    hop_to where = {-1, -1};
    unsigned char *d;
    xrt_stream s;
    double end;
    (void)state;
    SKIP_UNLESS(xrt_test_slowdown() == 1, "under valgrind, which runs one thread at a time");
    assert_int_equal(sched_getaffinity(0, sizeof all, &all), 0);
    for (i = 0; i < CPU_SETSIZE && n < 2; i++)
        if (CPU_ISSET(i, &all)) cpu[n++] = i;
    SKIP_UNLESS(n == 2, "one usable core");
    OK(xrt_stream_create(&s));
    OK(xrt_malloc((void **)&d, 64));
    where.cpu = cpu[1];
    OK(xrt_launch_host_func(s, worker_hop, &where));
    OK(xrt_stream_synchronize(s));
    assert_int_equal(where.seen, cpu[1]);
    CPU_ZERO(&mine);
    CPU_SET(cpu[0], &mine);
    assert_int_equal(sched_setaffinity(0, sizeof mine, &mine), 0);
    __atomic_store_n(&hogs_stop, 0, __ATOMIC_RELAXED);
    for (i = 0; i < 2; i++) assert_int_equal(start_thread(&hog[i], NULL, hog_main, (void *)(intptr_t)cpu[i]), 0);
    where.cpu = -1;
    for (end = now_ms(CLOCK_MONOTONIC) + 3000; !joined && now_ms(CLOCK_MONOTONIC) < end;) {
        for (i = 0; i < 256; i++) OK(xrt_memset_async(d, i, 64, s));
        OK(xrt_launch_host_func(s, worker_hop, &where));
        OK(xrt_stream_synchronize(s));
        joined = where.seen == cpu[0];
    }
    __atomic_store_n(&hogs_stop, 1, __ATOMIC_RELAXED);
    for (i = 0; i < 2; i++) assert_int_equal(pthread_join(hog[i], NULL), 0);
    assert_int_equal(sched_setaffinity(0, sizeof all, &all), 0);
    OK(xrt_free(d));
    OK(xrt_stream_destroy(s));
    if (!joined) fail_msg("the worker stayed on cpu %d for 3 s, apart from its producer on cpu %d", where.seen, cpu[0]);
}

/* >> a poll that gives the core to the worker. CUDA code waits with a
   loop of cudaStreamQuery or cudaEventQuery. Where the stream's worker
   shares the polling thread's core (a one-core machine or container, or a
   worker that joined its producer), a query that found the work not done
   gives the core to the worker, or the loop would keep it for its whole
   time slice each round (3 ms a round on one core). The thread polls 100
   host functions' stream and 100 events, pinned with the worker to one
   core: about one poll each, never thousands. */
static void nothing(void *arg) { (void)arg; }

static void test_poll_yields_to_a_worker_on_its_core(void **state)
{
    cpu_set_t all, one;
    xrt_stream s;
    xrt_event e;
    long polls[2] = {0, 0};
    int i, k;
    (void)state;
    SKIP_UNLESS(xrt_test_slowdown() == 1, "under valgrind, which runs one thread at a time");
    assert_int_equal(sched_getaffinity(0, sizeof all, &all), 0);
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
    OK(xrt_stream_create_with_flags(&s, XRT_STREAM_NON_BLOCKING)); /* its worker starts on this core, and stays */
    OK(xrt_event_create(&e, 0));
    for (k = 0; k < 2; k++)
        for (i = 0; i < 100; i++) {
            OK(xrt_launch_host_func(s, nothing, NULL));
            if (k == 0) {
                while (xrt_stream_query(s) == XRT_ERROR_NOT_READY) polls[k]++;
            } else {
                OK(xrt_event_record(e, s));
                while (xrt_event_query(e) == XRT_ERROR_NOT_READY) polls[k]++;
            }
        }
    xrt_get_last_error(); /* the NOT_READY answers */
    OK(xrt_stream_synchronize(s));
    assert_int_equal(sched_setaffinity(0, sizeof all, &all), 0);
    OK(xrt_event_destroy(e));
    OK(xrt_stream_destroy(s));
    if (polls[0] > 100 * 100 || polls[1] > 100 * 100)
        fail_msg("polls for 100 rounds on one core: %ld (xrt_stream_query), %ld (xrt_event_query)", polls[0], polls[1]);
}

/* >> a handover that ends the wait */
/* A synchronizing thread asks the worker for the ops after the one it runs;
   where that very op was the last one waited for, the thread's wait ends
   as the worker hands the queue over. The thread must still take the queue
   (and give it back), or the worker waits for a taker for ever: the next
   wait that does not take queues (xrt_device_synchronize, an event's) hung.
   A race: many rounds of two copies and a synchronize, each followed by a
   copy and a device synchronize, in a child with an alarm. */
static int handover_child(void *arg)
{
    const size_t n = 64 << 10;
    double end = now_ms(CLOCK_MONOTONIC) + 1500;
    unsigned char *a, *b;
    xrt_stream s;
    long rounds = 0;
    (void)arg;
    CHILD_OK(xrt_stream_create(&s));
    CHILD_OK(xrt_malloc((void **)&a, n));
    CHILD_OK(xrt_malloc((void **)&b, n));
    while (now_ms(CLOCK_MONOTONIC) < end) {
        CHILD_OK(xrt_memcpy_async(b, a, n, XRT_MEMCPY_DEVICE_TO_DEVICE, s));
        CHILD_OK(xrt_memcpy_async(a, b, n, XRT_MEMCPY_DEVICE_TO_DEVICE, s));
        CHILD_OK(xrt_stream_synchronize(s));
        CHILD_OK(xrt_memset_async(a, (int)rounds, 64, s));
        child_step("xrt_device_synchronize after a synchronize");
        CHILD_OK(xrt_device_synchronize());
        rounds++;
    }
    CHILD_OK(xrt_free(a));
    CHILD_OK(xrt_free(b));
    CHILD_OK(xrt_stream_destroy(s));
    xrt_shutdown(); /* joins the worker */
    fprintf(stderr, "%ld rounds\n", rounds);
    return 0;
}

static void test_handover_after_the_wait_ends(void **state)
{
    (void)state;
    in_child("synchronizes whose wait ends as the worker hands the queue over", handover_child, NULL, 10);
}

/* >> freed device ranges (white-box): a small range is kept mapped for the
   next allocation of the same span; never one that was shared (an IPC
   handle was made: another process may still map it), one larger than
   XRT__CPU_KEPT_SPAN (unmapped, so that a memory monitor sees it go), nor
   one of another span (its tail would stay mapped, unaccounted). */
static int kept_ranges(size_t *first_size)
{
    xrt__cpu_devmem *m = &xrt__cpu_mem[0];
    int n;
    xrt__cpu_lock(&m->lock);
    n = m->nkept;
    if (n && first_size) *first_size = m->kept[0]->size;
    xrt__cpu_unlock(&m->lock);
    return n;
}

static void test_freed_ranges_kept_for_reuse(void **state)
{
    xrt_ipc_mem_handle h;
    void *held[XRT__CPU_KEPT], *a, *b;
    size_t size;
    int n = 0, i;
    (void)state;
    OK(xrt_set_device(0));
    while (kept_ranges(&size) > 0) OK(xrt_malloc(&held[n++], size)); /* what earlier tests left */
    OK(xrt_malloc(&a, 64 << 10));
    OK(xrt_free(a));
    assert_int_equal(kept_ranges(NULL), 1);
    OK(xrt_malloc(&b, 4096)); /* another span: a range of its own */
    assert_int_equal(kept_ranges(NULL), 1);
    OK(xrt_malloc(&a, 64 << 10)); /* the same span: the kept range */
    assert_int_equal(kept_ranges(NULL), 0);
    OK(xrt_free(a));
    OK(xrt_free(b));
    assert_int_equal(kept_ranges(NULL), 2);
    OK(xrt_malloc(&a, 1 << 20)); /* larger than XRT__CPU_KEPT_SPAN */
    OK(xrt_free(a));
    assert_int_equal(kept_ranges(NULL), 2);
    OK(xrt_malloc(&a, 8192));
    OK(xrt_ipc_get_mem_handle(&h, a)); /* shared */
    OK(xrt_free(a));
    assert_int_equal(kept_ranges(NULL), 2);
    for (i = 0; i < n; i++) OK(xrt_free(held[i]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        gated_test(test_asynchrony),
        gated_test(test_async_copy_reads_source_late),
        cmocka_unit_test(test_in_order_execution),
        cmocka_unit_test(test_event_timing),
        gated_test(test_cross_stream_wait),
        gated_test(test_event_destroyed_while_waited_on),
        gated_test(test_wait_captures_the_record_at_the_time),
        gated_test(test_elapsed_time_of_the_newest_record),
        gated_test(test_event_outlives_its_stream),
        gated_test(test_malloc_free_async_order),
        gated_test(test_sync_ops_ordered_on_null_stream),
        gated_test(test_free_waits_for_queued_work),
        cmocka_unit_test(test_device_synchronize_waits_for_all),
        gated_test(test_device_synchronize_blocks_no_other_thread),
        gated_test(test_destroy_with_pending_work),
        gated_test(test_full_ring),
        gated_test(test_express_slot_keeps_order),
        cmocka_unit_test(test_synchronizing_thread_runs_host_functions),
        cmocka_unit_test(test_host_function_destroys_its_stream),
        cmocka_unit_test(test_shutdown_and_init_again),
        cmocka_unit_test(test_idle_workers_park),
        cmocka_unit_test(test_split_operations),
        cmocka_unit_test(test_worker_joins_its_producer_under_load),
        cmocka_unit_test(test_poll_yields_to_a_worker_on_its_core),
        cmocka_unit_test(test_handover_after_the_wait_ends),
        cmocka_unit_test(test_freed_ranges_kept_for_reuse),
    };
    static const char *const cpu[] = {"cpu", NULL};
    return xrt_test_run_on_backends("semantics", tests, sizeof tests / sizeof tests[0], cpu);
}
