/* SPDX-License-Identifier: MIT */
/* Handles under concurrent use: a destroy racing with use, two destroys of
   one handle. The losers get XRT_ERROR_INVALID_HANDLE, never a crash or a
   use after free; of two destroys of one handle exactly one returns
   XRT_SUCCESS. Stale, foreign and mixed-up handles used by one thread:
   tests/test_badinput.c. Every group runs on each available backend, each
   case in a child with an alarm. */
#define XRT_IMPL /* white-box: the handle table and its limbo */
#include "xrt_test.h"

#include <sched.h>

#ifndef XRT_TEST_HANDLES_GROUP
#define XRT_TEST_HANDLES_GROUP "handles"
#endif

/* >> destroy racing with use */
enum { USERS = 3 };
static void *race_handle; /* the handle the users hammer; the destroyer swaps it */
static int race_stop, race_bad;
static char race_msg[512];

static void race_note(const char *call, xrt_status st)
{
    if (__atomic_fetch_add(&race_bad, 1, __ATOMIC_ACQ_REL) == 0)
        snprintf(race_msg, sizeof race_msg, "%s returned %s (\"%.300s\")", call, xrt_status_string(st),
                 xrt_get_last_error_string());
}

#define RACE_ALLOWED(st) ((st) == XRT_SUCCESS || (st) == XRT_ERROR_NOT_READY || (st) == XRT_ERROR_INVALID_HANDLE)

static void *event_user(void *arg)
{
    xrt_stream own;
    unsigned i;
    float ms;
    (void)arg;
    if (xrt_stream_create(&own) != XRT_SUCCESS) {
        race_note("xrt_stream_create", xrt_peek_at_last_error());
        return NULL;
    }
    for (i = 0; !__atomic_load_n(&race_stop, __ATOMIC_ACQUIRE); i++) {
        xrt_event e = (xrt_event)__atomic_load_n(&race_handle, __ATOMIC_ACQUIRE);
        xrt_status st;
        const char *call;
        switch (i % 5) {
        case 0: call = "xrt_event_record"; st = xrt_event_record(e, own); break;
        case 1: call = "xrt_event_query"; st = xrt_event_query(e); break;
        case 2: call = "xrt_event_synchronize"; st = xrt_event_synchronize(e); break;
        case 3: call = "xrt_stream_wait_event"; st = xrt_stream_wait_event(own, e); break;
        default: call = "xrt_event_elapsed_time"; st = xrt_event_elapsed_time(&ms, e, e); break;
        }
        if (!RACE_ALLOWED(st)) race_note(call, st);
    }
    xrt_stream_synchronize(own);
    xrt_stream_destroy(own);
    return NULL;
}

static void *stream_user(void *arg)
{
    unsigned char h[64];
    xrt_event own;
    xrt_stream wrote = NULL; /* the stream this thread last used d on */
    void *d;
    unsigned i;
    (void)arg;
    if (xrt_event_create(&own, 0) != XRT_SUCCESS || xrt_malloc(&d, sizeof h) != XRT_SUCCESS) {
        race_note("setup", xrt_peek_at_last_error());
        return NULL;
    }
    for (i = 0; !__atomic_load_n(&race_stop, __ATOMIC_ACQUIRE); i++) {
        xrt_stream s = (xrt_stream)__atomic_load_n(&race_handle, __ATOMIC_ACQUIRE);
        xrt_status st;
        const char *call;
        if ((i % 7 == 0 || i % 7 == 6) && s != wrote) {
            /* d is written and read on one stream at a time: the last one may
               be destroyed already, so it cannot be synchronized by itself */
            xrt_device_synchronize();
            wrote = s;
        }
        switch (i % 7) {
        case 0: call = "xrt_memset_async"; st = xrt_memset_async(d, (int)i, sizeof h, s); break;
        case 1: call = "xrt_stream_query"; st = xrt_stream_query(s); break;
        case 2: call = "xrt_stream_synchronize"; st = xrt_stream_synchronize(s); break;
        case 3: call = "xrt_launch_host_func"; st = xrt_launch_host_func(s, nop, NULL); break;
        case 4: call = "xrt_event_record"; st = xrt_event_record(own, s); break;
        case 5: call = "xrt_stream_wait_event"; st = xrt_stream_wait_event(s, own); break;
        default: call = "xrt_memcpy_async"; st = xrt_memcpy_async(h, d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST, s); break;
        }
        if (!RACE_ALLOWED(st)) race_note(call, st);
    }
    xrt_device_synchronize();
    xrt_event_destroy(own);
    xrt_free(d);
    return NULL;
}

static int destroy_race_child(void *arg)
{
    int streams = arg != NULL;
    double end = now_ms(CLOCK_MONOTONIC) + 400.0 * xrt_test_slowdown();
    pthread_t t[USERS];
    unsigned rounds = 0;
    int i;
    xrt_set_log_level(XRT_LOG_NONE); /* the losers' invalid handles */
    race_handle = NULL;
    race_stop = race_bad = 0;
    for (i = 0; i < USERS; i++)
        if (start_thread(&t[i], NULL, streams ? stream_user : event_user, NULL) != 0) CHILD_FAIL("pthread_create");
    while (now_ms(CLOCK_MONOTONIC) < end && !__atomic_load_n(&race_bad, __ATOMIC_ACQUIRE)) {
        void *h;
        int k;
        if (streams) CHILD_OK(xrt_stream_create((xrt_stream *)&h));
        else CHILD_OK(xrt_event_create((xrt_event *)&h, rounds % 2 ? XRT_EVENT_DEFAULT : XRT_EVENT_DISABLE_TIMING));
        __atomic_store_n(&race_handle, h, __ATOMIC_RELEASE);
        for (k = 0; k < (int)(rounds % 4); k++) sched_yield();
        if (streams) CHILD_OK(xrt_stream_destroy((xrt_stream)h)); /* only this thread destroys */
        else CHILD_OK(xrt_event_destroy((xrt_event)h));
        rounds++;
    }
    __atomic_store_n(&race_stop, 1, __ATOMIC_RELEASE);
    for (i = 0; i < USERS; i++) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 3 * xrt_test_slowdown();
        if (pthread_timedjoin_np(t[i], NULL, &ts) != 0)
            CHILD_FAIL("after %u rounds a thread using %s destroyed meanwhile is stuck in xrt (a use after free?)", rounds,
                       streams ? "streams" : "events");
    }
    if (race_bad) CHILD_FAIL("%d calls on a handle destroyed meanwhile gave a wrong status; first: %s", race_bad, race_msg);
    fprintf(stderr, "%u %s destroyed under %d users\n", rounds, streams ? "streams" : "events", USERS);
    xrt_shutdown();
    return 0;
}

static void test_destroy_event_racing_with_use(void **state)
{
    (void)state;
    in_child("events destroyed while other threads record, query, wait on them", destroy_race_child, NULL, 10);
}

static void test_destroy_stream_racing_with_use(void **state)
{
    (void)state;
    in_child("streams destroyed while other threads enqueue on, query, synchronize them", destroy_race_child, (void *)1, 10);
}

/* >> two threads destroying one handle */
#if defined(__x86_64__) || defined(__i386__)
#define XRT_TEST_PAUSE() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define XRT_TEST_PAUSE() __asm__ __volatile__("yield")
#else
#define XRT_TEST_PAUSE() ((void)0)
#endif

/* The main thread and one other destroy each handle at the same moment: the
   other spins on the round number (no yield: the two threads are all that
   run), the main thread destroys right after publishing it. */
static struct { void *h; int round, done, streams; xrt_status st; } dd;

static xrt_status destroy_dd(void)
{
    return dd.streams ? xrt_stream_destroy((xrt_stream)dd.h) : xrt_event_destroy((xrt_event)dd.h);
}

static void *double_destroyer(void *arg)
{
    int seen = 0;
    (void)arg;
    for (;;) {
        int r;
        unsigned spins = 0;
        while ((r = __atomic_load_n(&dd.round, __ATOMIC_ACQUIRE)) == seen)
            if (++spins % 4096 == 0) sched_yield(); /* in case the machine is busy */
        if (r < 0) return NULL;
        seen = r;
        dd.st = destroy_dd();
        __atomic_store_n(&dd.done, 1, __ATOMIC_RELEASE);
    }
}

static int double_destroy_child(void *arg)
{
    int rounds = arg ? 20000 : 400000, r, i, j; /* or 3 s, whichever ends first */
    double end = now_ms(CLOCK_MONOTONIC) + 3000.0; /* a loaded machine seldom runs the two at once */
    xrt_event bystander, fresh[64];
    pthread_t t;
    xrt_set_log_level(XRT_LOG_NONE);
    dd.streams = arg != NULL;
    dd.round = 0;
    CHILD_OK(xrt_event_create(&bystander, 0));
    if (start_thread(&t, NULL, double_destroyer, NULL) != 0) CHILD_FAIL("pthread_create");
    for (r = 1; r <= rounds && (r % 256 || now_ms(CLOCK_MONOTONIC) < end); r++) {
        unsigned spins = 0;
        xrt_status mine;
        if (dd.streams) CHILD_OK(xrt_stream_create((xrt_stream *)&dd.h));
        else CHILD_OK(xrt_event_create((xrt_event *)&dd.h, 0));
        dd.done = 0;
        __atomic_store_n(&dd.round, r, __ATOMIC_RELEASE);
        /* The other thread sees the round a cache-line transfer later: a
           delay that sweeps 0-31 pauses lines the two destroys up at some
           offset every 32 rounds, however long that transfer takes here. */
        for (i = 0; i < r % 32; i++) XRT_TEST_PAUSE();
        mine = destroy_dd();
        child_step("waiting for the other destroy");
        while (!__atomic_load_n(&dd.done, __ATOMIC_ACQUIRE))
            if (++spins % 4096 == 0) sched_yield();
        if ((mine == XRT_SUCCESS) + (dd.st == XRT_SUCCESS) != 1 ||
            (mine != XRT_ERROR_INVALID_HANDLE && dd.st != XRT_ERROR_INVALID_HANDLE)) {
            __atomic_store_n(&dd.round, -1, __ATOMIC_RELEASE);
            CHILD_FAIL("round %d: the two destroys of one %s returned %s and %s (expected one success, one invalid handle)",
                       r, dd.streams ? "stream" : "event", xrt_status_string(mine), xrt_status_string(dd.st));
        }
    }
    __atomic_store_n(&dd.round, -1, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
    fprintf(stderr, "%d %ss destroyed by two threads at once\n", r - 1, dd.streams ? "stream" : "event");
    /* the table is sound: an unrelated event still works, new handles are distinct and live */
    CHILD_OK(xrt_event_record(bystander, NULL));
    CHILD_OK(xrt_event_synchronize(bystander));
    CHILD_OK(xrt_event_query(bystander));
    for (i = 0; i < 64; i++) CHILD_OK(xrt_event_create(&fresh[i], 0));
    for (i = 0; i < 64; i++) {
        for (j = 0; j < i; j++)
            if (fresh[i] == fresh[j]) CHILD_FAIL("xrt_event_create handed out %p twice", (void *)fresh[i]);
        CHILD_TRUE(fresh[i] != bystander);
        CHILD_OK(xrt_event_record(fresh[i], NULL));
        CHILD_OK(xrt_event_synchronize(fresh[i])); /* a GPU's NULL stream may still be busy */
        CHILD_OK(xrt_event_query(fresh[i]));
    }
    for (i = 0; i < 64; i++) CHILD_OK(xrt_event_destroy(fresh[i]));
    CHILD_OK(xrt_event_destroy(bystander));
    xrt_shutdown();
    return 0;
}

static void test_double_destroy_event(void **state)
{
    (void)state;
    in_child("two threads destroying one event", double_destroy_child, NULL, 10);
}

static void test_double_destroy_stream(void **state)
{
    (void)state;
    in_child("two threads destroying one stream", double_destroy_child, (void *)1, 10);
}

/* >> destroys and idle threads */
/* A thread that made xrt calls and then idles (a pool thread, a thread that
   initialised xrt) is in no call: destroys do not wait for it. 300 streams
   and events created and destroyed: none is left waiting for it, with
   membarrier(2) and without (tests/test_handles_no_membarrier.c). */
static int idle_stop;

static void *idle_thread(void *arg)
{
    int n;
    (void)arg;
    xrt_get_device_count(&n);
    while (!__atomic_load_n(&idle_stop, __ATOMIC_ACQUIRE)) sleep_ms(1);
    return NULL;
}

static size_t limbo_length(void)
{
    size_t n = 0;
    const xrt__limbo *l;
    pthread_mutex_lock(&xrt__call_lock);
    for (l = xrt__limbo_list; l; l = l->next) n++;
    pthread_mutex_unlock(&xrt__call_lock);
    return n;
}

static void test_idle_thread_does_not_hold_destroys(void **state)
{
    pthread_t t;
    int i;
    (void)state;
    idle_stop = 0;
    assert_int_equal(start_thread(&t, NULL, idle_thread, NULL), 0);
    sleep_ms(20); /* it made its call */
    for (i = 0; i < 300; i++) {
        xrt_stream s;
        xrt_event e;
        OK(xrt_stream_create(&s));
        OK(xrt_event_create(&e, 0));
        OK(xrt_stream_destroy(s));
        OK(xrt_event_destroy(e));
    }
    i = (int)limbo_length();
    __atomic_store_n(&idle_stop, 1, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
    if (i) fail_msg("%d of 600 destroyed objects wait for a thread that is in no call (membarrier %s)", i,
                    __atomic_load_n(&xrt__call_fence, __ATOMIC_RELAXED) ? "not used: calls fence" : "used");
}

/* >> a deferred destroy that fails */
/* A destroy while another thread is inside a call on the stream returns at
   once; the backend's destroy runs when that call is done, on whichever
   thread then reclaims it. If it fails, the failure is logged as that
   destroy's, and the reclaiming thread's last error stays its own. A backend
   whose streams block in synchronize until told, and whose first stream
   cannot be destroyed. */
static int fd_block, fd_inside;

static xrt_status fd_stream_create(const xrt_backend *self, void **s)
{
    static int made;
    (void)self;
    *s = malloc(1);
    if (!*s) return XRT_ERROR_OUT_OF_MEMORY;
    *(unsigned char *)*s = made++ == 0; /* the first one fails its destroy */
    return XRT_SUCCESS;
}
static xrt_status fd_stream_destroy(const xrt_backend *self, void *s)
{
    int fails = *(unsigned char *)s;
    (void)self;
    free(s);
    return fails ? xrt_error(XRT_ERROR_BACKEND, "failing_destroy", "cannot destroy stream") : XRT_SUCCESS;
}
static xrt_status fd_stream_synchronize(const xrt_backend *self, void *s)
{
    (void)self, (void)s;
    __atomic_store_n(&fd_inside, 1, __ATOMIC_RELEASE);
    while (__atomic_load_n(&fd_block, __ATOMIC_ACQUIRE)) sleep_ms(1);
    return XRT_SUCCESS;
}

static void *fd_synchronizer(void *arg) { return (void *)(uintptr_t)xrt_stream_synchronize((xrt_stream)arg); }

static int deferred_destroy_child(void *arg)
{
    static xrt_backend t;
    xrt_stream s, s2;
    pthread_t th;
    void *ret = NULL;
    (void)arg;
    t = xrt_test_other_table();
    t.name = "failing_destroy";
    t.stream_create = fd_stream_create;
    t.stream_destroy = fd_stream_destroy;
    t.stream_synchronize = fd_stream_synchronize;
    CHILD_OK(xrt_register_backend(&t));
    CHILD_OK(xrt_set_backend("failing_destroy"));
    CHILD_OK(xrt_stream_create(&s));
    fd_block = 1;
    if (start_thread(&th, "failing_destroy", fd_synchronizer, s) != 0) CHILD_FAIL("pthread_create");
    if (!wait_flag(&fd_inside, 3000)) CHILD_FAIL("the other thread did not reach the backend's synchronize");
    CHILD_OK(xrt_stream_destroy(s)); /* deferred: the other thread is inside a call on it */
    __atomic_store_n(&fd_block, 0, __ATOMIC_RELEASE);
    pthread_join(th, &ret);
    CHILD_EXPECT((xrt_status)(uintptr_t)ret, XRT_SUCCESS);
    xrt_test_log_capture();
    CHILD_EXPECT(xrt_malloc(NULL, 64), XRT_ERROR_INVALID_VALUE); /* this thread's last error */
    CHILD_OK(xrt_stream_create(&s2));
    CHILD_OK(xrt_stream_destroy(s2)); /* reclaims the first stream first */
    CHILD_TRUE(xrt_peek_at_last_error() == XRT_ERROR_INVALID_VALUE);
    CHILD_TRUE(strstr(xrt_get_last_error_string(), "xrt_malloc: ptr is NULL") != NULL);
    if (xrt_test_log.level != XRT_LOG_ERROR || !strstr(xrt_test_log.last, "xrt_stream_destroy: stream") ||
        !strstr(xrt_test_log.last, "destroyed once the calls using it were done: failing_destroy: cannot destroy stream"))
        CHILD_FAIL("the deferred destroy's failure was logged as \"%s\"", xrt_test_log.last);
    CHILD_OK(xrt_set_backend(xrt_test_backend));
    xrt_shutdown();
    return 0;
}

static void test_deferred_destroy_failure_is_its_own(void **state)
{
    (void)state;
    in_child("a deferred destroy that fails", deferred_destroy_child, NULL, 10);
}

/* >> a destroy from inside the thread's own call */
/* A synchronize may run a host function on the waiting thread (the CPU
   backend lends it); a host function that destroys the stream being
   synchronized must not have its object destroyed before that synchronize is
   done with it, even when no other thread makes calls. A backend whose
   synchronize runs the host function so, then looks at its stream. */
static struct { int destroyed, made; xrt_stream handle; xrt_status in_fn; } nd;

static xrt_status nd_stream_create(const xrt_backend *self, void **s)
{
    (void)self;
    nd.made++;
    *s = &nd;
    return XRT_SUCCESS;
}
static xrt_status nd_stream_destroy(const xrt_backend *self, void *s)
{
    (void)self, (void)s;
    nd.destroyed++;
    return XRT_SUCCESS;
}
static void nd_destroy_fn(void *user)
{
    (void)user;
    nd.in_fn = xrt_stream_destroy(nd.handle);
}
static xrt_status nd_stream_synchronize(const xrt_backend *self, void *s)
{
    xrt__host_fn_run(self, nd_destroy_fn, NULL);
    if (nd.destroyed)
        return xrt_error(XRT_ERROR_BACKEND, "nested_destroy", "stream %p destroyed while its synchronize ran", s);
    return XRT_SUCCESS;
}

static int nested_destroy_child(void *arg)
{
    static xrt_backend t;
    xrt_stream other;
    (void)arg;
    t = xrt_test_other_table();
    t.name = "nested_destroy";
    t.flags |= XRT_BACKEND_HOST_FN_CALLS;
    t.stream_create = nd_stream_create;
    t.stream_destroy = nd_stream_destroy;
    t.stream_synchronize = nd_stream_synchronize;
    memset(&nd, 0, sizeof nd);
    CHILD_OK(xrt_register_backend(&t));
    CHILD_OK(xrt_set_backend("nested_destroy"));
    CHILD_OK(xrt_stream_create(&nd.handle));
    CHILD_OK(xrt_stream_synchronize(nd.handle)); /* its host function destroys the stream */
    CHILD_EXPECT(nd.in_fn, XRT_SUCCESS);
    CHILD_EXPECT(xrt_stream_query(nd.handle), XRT_ERROR_INVALID_HANDLE);
    CHILD_TRUE(strstr(xrt_get_last_error_string(), "was destroyed") != NULL);
    CHILD_OK(xrt_stream_create(&other));
    CHILD_OK(xrt_stream_destroy(other)); /* reclaims the first one: its call is done */
    if (nd.destroyed != 2) CHILD_FAIL("%d of 2 streams destroyed by the backend", nd.destroyed);
    CHILD_OK(xrt_set_backend(xrt_test_backend));
    xrt_shutdown();
    return 0;
}

static void test_destroy_inside_own_call_waits_for_it(void **state)
{
    (void)state;
    in_child("a host function run by a synchronize destroys its stream", nested_destroy_child, NULL, 10);
}

/* >> the thread's cache of free slots holds at most XRT__HANDLE_CACHE,
   through destroys that fill it and creates that refill it: one more would
   be written past its array. */
static void test_thread_cache_stays_bounded(void **state)
{
    enum { MANY = 3 * XRT__HANDLE_CACHE + 5 };
    xrt_event e[MANY];
    int i, round;
    (void)state;
    for (round = 0; round < 2; round++) {
        for (i = 0; i < MANY; i++) {
            OK(xrt_event_create(&e[i], XRT_EVENT_DISABLE_TIMING));
            assert_true(xrt__call.nfree <= XRT__HANDLE_CACHE);
        }
        for (i = 0; i < MANY; i++) {
            OK(xrt_event_destroy(e[i]));
            assert_true(xrt__call.nfree <= XRT__HANDLE_CACHE);
        }
    }
    assert_int_equal(handle_slots_lost(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_destroy_event_racing_with_use),
        cmocka_unit_test(test_destroy_stream_racing_with_use),
        cmocka_unit_test(test_double_destroy_event),
        cmocka_unit_test(test_double_destroy_stream),
        cmocka_unit_test(test_idle_thread_does_not_hold_destroys),
        cmocka_unit_test(test_deferred_destroy_failure_is_its_own),
        cmocka_unit_test(test_destroy_inside_own_call_waits_for_it),
        cmocka_unit_test(test_thread_cache_stays_bounded),
    };
    return xrt_test_run_on_backends(XRT_TEST_HANDLES_GROUP, tests, sizeof tests / sizeof tests[0], NULL);
}
