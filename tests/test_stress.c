/* SPDX-License-Identifier: MIT */
/* Stress, built and run under ThreadSanitizer: many host threads, each with
   several streams linked by events, plus concurrent allocation, event churn
   and many producers on one stream. Every byte is verified, and TSan checks
   that every hand-over inside xrt is a proper happens-before edge. Sized to
   finish in well under a minute on a 2-core machine under TSan. */
#include "xrt_test.h"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <pthread.h>

enum { THREADS = 8, STREAMS = 4, ROUNDS = 12, REPS = 40, BYTES = 2048 };

/* Threads cannot use cmocka's asserts (they longjmp into the main thread):
   they count failures and keep the first message for the main thread. */
static int failures;
static char first_failure[1024];
static pthread_mutex_t failure_lock = PTHREAD_MUTEX_INITIALIZER;

static void note_failure(const char *what, int line)
{
    pthread_mutex_lock(&failure_lock);
    if (failures++ == 0)
        snprintf(first_failure, sizeof first_failure, "line %d: %s (last xrt error: %s)", line, what,
                 xrt_get_last_error_string());
    pthread_mutex_unlock(&failure_lock);
}

#define CHECK(cond)                                   \
    do {                                              \
        if (!(cond)) note_failure(#cond, __LINE__);   \
    } while (0)
#define CHECK_OK(call) CHECK((call) == XRT_SUCCESS)

/* The threads run on the group's backend, not the process default (a GPU
   backend on a machine that has one): the shared stream is the group's. */
static void run_threads(void *(*fn)(void *))
{
    pthread_t t[THREADS];
    intptr_t i;
    failures = 0;
    first_failure[0] = 0;
    void *ret;
    for (i = 0; i < THREADS; i++) assert_int_equal(start_thread(&t[i], xrt_test_backend, fn, (void *)i), 0);
    for (i = 0; i < THREADS; i++) {
        assert_int_equal(pthread_join(t[i], &ret), 0);
        if (ret == XRT_TEST_NO_BACKEND) note_failure("a thread could not select the group's backend", __LINE__);
    }
    assert_int_equal(xrt_device_synchronize(), XRT_SUCCESS);
    if (failures) fail_msg("%d failures; first: %s", failures, first_failure);
}

static unsigned char value(int thread, int stream, int round, int rep)
{
    return (unsigned char)(thread * 31 + stream * 7 + round * 5 + rep * 13 + 1);
}

/* A host function that checks, on the worker, the copy that came before it. */
typedef struct check { const unsigned char *h; unsigned char expect; } check;

static void check_copy(void *user)
{
    check *c = (check *)user;
    int i;
    for (i = 0; i < BYTES; i++)
        if (c->h[i] != c->expect) {
            note_failure("a copy saw the wrong data: an ordering bug", __LINE__);
            return;
        }
}

/* Per thread, STREAMS streams in a ring: stream i sets its buffer, stream i+1
   waits for that and copies it out, and stream i waits for the copy before it
   sets the buffer again. */
static void *streams_and_events(void *arg)
{
    int id = (int)(intptr_t)arg, round, rep, i, counted = 0;
    static check checks[THREADS][REPS][STREAMS];
    for (round = 0; round < ROUNDS; round++) {
        xrt_stream s[STREAMS];
        xrt_event set[STREAMS], copied[STREAMS];
        void *d[STREAMS];
        unsigned char *h[STREAMS];
        for (i = 0; i < STREAMS; i++) {
            CHECK_OK(xrt_stream_create(&s[i]));
            CHECK_OK(xrt_event_create(&set[i], XRT_EVENT_DISABLE_TIMING));
            CHECK_OK(xrt_event_create(&copied[i], i % 2 ? XRT_EVENT_BLOCKING_SYNC : XRT_EVENT_DEFAULT));
            CHECK_OK(xrt_malloc(&d[i], BYTES));
            CHECK_OK(xrt_malloc_host((void **)&h[i], BYTES));
        }
        if (failures) return NULL;
        for (rep = 0; rep < REPS; rep++) {
            for (i = 0; i < STREAMS; i++) {
                CHECK_OK(xrt_stream_wait_event(s[i], copied[(i + 1) % STREAMS]));
                CHECK_OK(xrt_memset_async(d[i], value(id, i, round, rep), BYTES, s[i]));
                CHECK_OK(xrt_event_record(set[i], s[i]));
            }
            for (i = 0; i < STREAMS; i++) {
                int j = (i + 1) % STREAMS;
                check *c = &checks[id][rep][j];
                c->h = h[j];
                c->expect = value(id, i, round, rep);
                CHECK_OK(xrt_stream_wait_event(s[j], set[i]));
                CHECK_OK(xrt_memcpy_async(h[j], d[i], BYTES, XRT_MEMCPY_DEVICE_TO_HOST, s[j]));
                CHECK_OK(xrt_launch_host_func(s[j], check_copy, c));
                CHECK_OK(xrt_event_record(copied[j], s[j]));
            }
        }
        for (i = 0; i < STREAMS; i++) {
            CHECK_OK(xrt_event_synchronize(copied[i]));
            CHECK(xrt_event_query(copied[i]) == XRT_SUCCESS);
        }
        for (i = 0; i < STREAMS; i++) {
            int k;
            CHECK_OK(xrt_stream_synchronize(s[i]));
            for (k = 0; k < BYTES; k++)
                if (h[i][k] != value(id, (i + STREAMS - 1) % STREAMS, round, REPS - 1)) {
                    note_failure("final data", __LINE__);
                    break;
                }
        }
        for (i = 0; i < STREAMS; i++) {
            /* destroyed with work still queued: it completes regardless */
            CHECK_OK(xrt_launch_host_func(s[i], count_up, &counted));
            CHECK_OK(xrt_stream_destroy(s[i]));
            CHECK_OK(xrt_event_destroy(set[i]));
            CHECK_OK(xrt_event_destroy(copied[i]));
        }
        xrt_device_synchronize(); /* the destroyed streams' work, before freeing what it uses */
        for (i = 0; i < STREAMS; i++) {
            CHECK_OK(xrt_free(d[i]));
            CHECK_OK(xrt_free_host(h[i]));
        }
    }
    CHECK(__atomic_load_n(&counted, __ATOMIC_RELAXED) == ROUNDS * STREAMS);
    return NULL;
}

static void test_streams_and_events(void **state)
{
    (void)state;
    run_threads(streams_and_events);
}

/* Allocation, pointer lookups and event churn from every thread at once,
   with stream-ordered allocation on the shared NULL stream. */
static void *alloc_and_event_churn(void *arg)
{
    enum { LIVE = 32, STEPS = 2000 };
    void *p[LIVE] = {0};
    size_t size[LIVE] = {0};
    unsigned seed = (unsigned)(uintptr_t)arg * 2654435761u + 1;
    int step;
    for (step = 0; step < STEPS; step++) {
        int k = (int)((seed = seed * 1103515245u + 12345u) >> 16) % LIVE;
        xrt_pointer_attributes a;
        xrt_event e;
        if (p[k]) {
            CHECK_OK(xrt_pointer_get_attributes(&a, (char *)p[k] + size[k] - 1));
            CHECK(a.type == XRT_MEMORY_DEVICE && a.base == p[k] && a.size == size[k]);
            CHECK_OK(step % 3 ? xrt_free(p[k]) : xrt_free_async(p[k], NULL));
            p[k] = NULL;
        } else {
            size[k] = 1 + (seed >> 8) % 5000;
            if (step % 2) CHECK_OK(xrt_malloc(&p[k], size[k]));
            else CHECK_OK(xrt_malloc_async(&p[k], size[k], NULL));
            CHECK_OK(xrt_memset_async(p[k], k, size[k], NULL));
        }
        CHECK_OK(xrt_event_create(&e, (unsigned)step % 4));
        CHECK_OK(xrt_event_record(e, NULL));
        if (step % 8 == 0) CHECK_OK(xrt_event_synchronize(e));
        CHECK_OK(xrt_event_destroy(e));
    }
    for (step = 0; step < LIVE; step++) {
        if (!p[step]) continue;
        unsigned char last = 0;
        CHECK_OK(xrt_memcpy(&last, (char *)p[step] + size[step] - 1, 1, XRT_MEMCPY_DEVICE_TO_HOST));
        CHECK(last == (unsigned char)step);
        CHECK_OK(xrt_free(p[step]));
    }
    return NULL;
}

static void test_alloc_and_event_churn(void **state)
{
    (void)state;
    run_threads(alloc_and_event_churn);
}

/* Many producers on one created stream: each thread's ops stay in its order. */
static xrt_stream shared;
typedef struct tally { int n, order_broken; } tally;
static tally tallies[THREADS];
static int tally_next[THREADS][200];

static void tally_step(void *user)
{
    int *next = (int *)user;
    int thread = (int)((next - &tally_next[0][0]) / 200), want = (int)(next - tally_next[thread]);
    if (tallies[thread].n != want) tallies[thread].order_broken = 1;
    tallies[thread].n++;
}

static void *many_producers(void *arg)
{
    int id = (int)(intptr_t)arg, i;
    unsigned char h[256];
    void *d;
    CHECK_OK(xrt_malloc(&d, sizeof h));
    for (i = 0; i < 200; i++) {
        CHECK_OK(xrt_launch_host_func(shared, tally_step, &tally_next[id][i]));
        if (i % 50 == 0) CHECK_OK(xrt_memset_async(d, i, sizeof h, shared));
    }
    CHECK_OK(xrt_memcpy_async(h, d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST, shared));
    CHECK_OK(xrt_stream_synchronize(shared));
    CHECK(h[0] == 150 && h[255] == 150);
    CHECK_OK(xrt_free(d));
    return NULL;
}

static void test_many_producers_one_stream(void **state)
{
    int i;
    (void)state;
    memset(tallies, 0, sizeof tallies);
    assert_int_equal(xrt_stream_create(&shared), XRT_SUCCESS);
    run_threads(many_producers);
    assert_int_equal(xrt_stream_synchronize(shared), XRT_SUCCESS);
    for (i = 0; i < THREADS; i++) {
        assert_int_equal(tallies[i].n, 200);
        assert_false(tallies[i].order_broken);
    }
    assert_int_equal(xrt_stream_destroy(shared), XRT_SUCCESS);
}

/* The legacy NULL stream under threads: each thread queues host functions,
   at random, on its own blocking stream, its own non-blocking stream and the
   shared NULL stream, noting a clock before and after each call; each host
   function notes when it ran. Wherever one call returned before another
   began, the order CUDA gives them holds when they ran: a blocking stream's
   work before later NULL stream work, NULL stream work before later work on
   any blocking stream, each stream in order. */
enum { LEGACY_OPS = 48 };
typedef struct legacy_op { int thread, kind; long before, after, ran; } legacy_op; /* kind: 0 blocking, 1 NULL, 2 non-blocking */
static legacy_op legacy_ops[THREADS][LEGACY_OPS];
static long legacy_clock, legacy_run_clock;

static void legacy_note_run(void *user)
{
    legacy_op *o = (legacy_op *)user;
    volatile int spin;
    for (spin = 0; spin < (int)(o->before % 7) * 200; spin++) {
    }
    o->ran = __atomic_add_fetch(&legacy_run_clock, 1, __ATOMIC_SEQ_CST);
}

static void *legacy_thread(void *arg)
{
    int id = (int)(intptr_t)arg, i;
    unsigned seed = 7u * (unsigned)id + 1u;
    xrt_stream mine[3] = {NULL, NULL, NULL};
    CHECK_OK(xrt_stream_create(&mine[0]));
    CHECK_OK(xrt_stream_create_with_flags(&mine[2], XRT_STREAM_NON_BLOCKING));
    for (i = 0; i < LEGACY_OPS; i++) {
        legacy_op *o = &legacy_ops[id][i];
        o->thread = id;
        o->kind = (int)((seed = seed * 1103515245u + 12345u) >> 16) % 3;
        o->before = __atomic_add_fetch(&legacy_clock, 1, __ATOMIC_SEQ_CST);
        CHECK_OK(xrt_launch_host_func(mine[o->kind], legacy_note_run, o));
        o->after = __atomic_add_fetch(&legacy_clock, 1, __ATOMIC_SEQ_CST);
    }
    CHECK_OK(xrt_stream_synchronize(mine[0]));
    CHECK_OK(xrt_stream_synchronize(mine[2]));
    CHECK_OK(xrt_stream_destroy(mine[0]));
    CHECK_OK(xrt_stream_destroy(mine[2]));
    return NULL;
}

/* Whether a, whose call returned before b's began, must have run first. */
static int legacy_ordered(const legacy_op *a, const legacy_op *b)
{
    if (a->kind == 2 || b->kind == 2) return a->kind == b->kind && a->thread == b->thread; /* its own stream only */
    if (a->kind == 0 && b->kind == 0) return a->thread == b->thread;
    return 1; /* the NULL stream and a blocking stream, or the NULL stream twice */
}

/* Four rounds of the threads' ops; every pair that `ordered` says must keep
   the order of their calls kept it. */
static void legacy_rounds(void *(*thread)(void *), int (*ordered)(const legacy_op *, const legacy_op *))
{
    int round, t, i, u, j;
    for (round = 0; round < 4; round++) {
        memset(legacy_ops, 0, sizeof legacy_ops);
        run_threads(thread);
        assert_int_equal(xrt_stream_synchronize(NULL), XRT_SUCCESS);
        for (t = 0; t < THREADS; t++)
            for (i = 0; i < LEGACY_OPS; i++)
                for (u = 0; u < THREADS; u++)
                    for (j = 0; j < LEGACY_OPS; j++) {
                        const legacy_op *a = &legacy_ops[t][i], *b = &legacy_ops[u][j];
                        if (!a->ran) fail_msg("thread %d's op %d (kind %d) never ran", t, i, a->kind);
                        if (a->after < b->before && ordered(a, b) && a->ran > b->ran)
                            fail_msg("thread %d's op %d (kind %d) ran after thread %d's op %d (kind %d), queued later",
                                     t, i, a->kind, u, j, b->kind);
                    }
    }
}

static void test_legacy_stream_under_threads(void **state)
{
    (void)state;
    legacy_rounds(legacy_thread, legacy_ordered);
}

/* The same with events and graph launches mixed in: kind 3 launches a graph
   (one host node) on the thread's blocking stream, kind 4 on the NULL
   stream, kind 5 records an event on the blocking stream and makes the
   non-blocking one wait for it before its host function. A graph's host
   node takes its op from the launching thread's queue for that exec
   (launches of one exec run in launch order). */
typedef struct legacy_fifo { legacy_op *v[LEGACY_OPS]; unsigned head, tail; } legacy_fifo;
static legacy_fifo legacy_fifos[THREADS][2];

static void legacy_graph_node(void *user)
{
    legacy_fifo *q = (legacy_fifo *)user;
    legacy_op *o = q->v[__atomic_fetch_add(&q->head, 1, __ATOMIC_ACQ_REL) % LEGACY_OPS];
    legacy_note_run(o);
}

/* An exec of a graph of one host node that runs the next op of q. */
static int legacy_exec(legacy_fifo *q, xrt_graph_exec *x)
{
    xrt_host_node_params hp = {legacy_graph_node, NULL};
    xrt_graph_node n;
    xrt_graph g;
    hp.user = q;
    if (xrt_graph_create(&g, 0) != XRT_SUCCESS) return 0;
    if (xrt_graph_add_host_node(&n, g, NULL, 0, &hp) != XRT_SUCCESS || xrt_graph_instantiate(x, g) != XRT_SUCCESS) {
        xrt_graph_destroy(g);
        return 0;
    }
    return xrt_graph_destroy(g) == XRT_SUCCESS;
}

static xrt_status legacy_mixed_op(legacy_op *o, xrt_stream *mine, xrt_event e, xrt_graph_exec *x, legacy_fifo *q)
{
    xrt_status st;
    switch (o->kind) {
    case 3:
    case 4:
        q[o->kind - 3].v[__atomic_fetch_add(&q[o->kind - 3].tail, 1, __ATOMIC_ACQ_REL) % LEGACY_OPS] = o;
        return xrt_graph_launch(x[o->kind - 3], o->kind == 3 ? mine[0] : NULL);
    case 5:
        if ((st = xrt_event_record(e, mine[0])) != XRT_SUCCESS || (st = xrt_stream_wait_event(mine[2], e)) != XRT_SUCCESS)
            return st;
        return xrt_launch_host_func(mine[2], legacy_note_run, o);
    default:
        return xrt_launch_host_func(mine[o->kind], legacy_note_run, o);
    }
}

static void *legacy_mixed_thread(void *arg)
{
    int id = (int)(intptr_t)arg, i;
    unsigned seed = 11u * (unsigned)id + 3u;
    xrt_stream mine[3] = {NULL, NULL, NULL};
    xrt_graph_exec x[2] = {NULL, NULL};
    xrt_event e = NULL;
    memset(legacy_fifos[id], 0, sizeof legacy_fifos[id]);
    CHECK_OK(xrt_stream_create(&mine[0]));
    CHECK_OK(xrt_stream_create_with_flags(&mine[2], XRT_STREAM_NON_BLOCKING));
    CHECK_OK(xrt_event_create(&e, XRT_EVENT_DISABLE_TIMING));
    CHECK(legacy_exec(&legacy_fifos[id][0], &x[0]) && legacy_exec(&legacy_fifos[id][1], &x[1]));
    for (i = 0; i < LEGACY_OPS && !failures; i++) {
        legacy_op *o = &legacy_ops[id][i];
        o->thread = id;
        o->kind = (int)((seed = seed * 1103515245u + 12345u) >> 16) % 6;
        o->before = __atomic_add_fetch(&legacy_clock, 1, __ATOMIC_SEQ_CST);
        CHECK_OK(legacy_mixed_op(o, mine, e, x, legacy_fifos[id]));
        o->after = __atomic_add_fetch(&legacy_clock, 1, __ATOMIC_SEQ_CST);
    }
    CHECK_OK(xrt_stream_synchronize(mine[0]));
    CHECK_OK(xrt_stream_synchronize(mine[2]));
    CHECK_OK(xrt_stream_synchronize(NULL));
    CHECK_OK(xrt_graph_exec_destroy(x[0]));
    CHECK_OK(xrt_graph_exec_destroy(x[1]));
    CHECK_OK(xrt_event_destroy(e));
    CHECK_OK(xrt_stream_destroy(mine[0]));
    CHECK_OK(xrt_stream_destroy(mine[2]));
    return NULL;
}

/* As legacy_ordered, for the mixed kinds: a graph launch orders as the
   host function of its stream; kind 5 runs on the non-blocking stream after
   what its thread queued on its blocking stream before it (the event), and so
   after the NULL stream's earlier work too. */
static int legacy_mixed_ordered(const legacy_op *a, const legacy_op *b)
{
    int ka = a->kind == 3 ? 0 : a->kind == 4 ? 1 : a->kind == 5 ? 2 : a->kind;
    int kb = b->kind == 3 ? 0 : b->kind == 4 ? 1 : b->kind;
    if (kb == 5) return ka == 1 || (ka == 0 && a->thread == b->thread) || (ka == 2 && a->thread == b->thread);
    if (ka == 2 || kb == 2) return ka == kb && a->thread == b->thread;
    if (ka == 0 && kb == 0) return a->thread == b->thread;
    return 1;
}

static void test_legacy_stream_mixed_under_threads(void **state)
{
    xrt_graph g;
    (void)state;
    if (xrt_graph_create(&g, 0) == XRT_SUCCESS) assert_int_equal(xrt_graph_destroy(g), XRT_SUCCESS);
    else xrt_get_last_error();
    SKIP_UNLESS(g != NULL, "the backend does not build graphs node by node");
    legacy_rounds(legacy_mixed_thread, legacy_mixed_ordered);
}

/* The enqueue that meets a worker on its way to sleep must still wake it: each
   round lets the workers go idle for a random time around their spin-then-park
   and waits for one op. A lost wake-up hangs; the alarm turns that into a failure. */

static void on_alarm(int sig)
{
    static const char msg[] = "HANG: a stream worker missed its wake-up (synchronize waited > 5 s)\n";
    (void)sig;
    if (write(2, msg, sizeof msg - 1) < 0) _exit(2);
    _exit(1);
}

/* An event queried (and timed) on one thread while another records it on
   a stream, destroys that stream and records it elsewhere, which drops the
   last reference to the first stream: CUDA's calls are thread-safe, so the
   query must not read the stream the record let go (ASan and TSan watch). */
static xrt_event rerecorded[2];
static int rerecord_stop;

static void *query_rerecorded(void *arg)
{
    float ms;
    xrt_status st;
    unsigned n = 0;
    (void)arg;
    while (!__atomic_load_n(&rerecord_stop, __ATOMIC_ACQUIRE)) {
        st = xrt_event_query(rerecorded[1]);
        CHECK(st == XRT_SUCCESS || st == XRT_ERROR_NOT_READY);
        if (++n % 16) continue;
        st = xrt_event_elapsed_time(&ms, rerecorded[0], rerecorded[1]);
        CHECK(st == XRT_SUCCESS || st == XRT_ERROR_NOT_READY);
    }
    return NULL;
}

static void test_event_queried_while_rerecorded(void **state)
{
    xrt_stream keep, s;
    pthread_t q;
    void *ret;
    int i;
    (void)state;
    failures = 0;
    first_failure[0] = 0;
    rerecord_stop = 0;
    OK(xrt_event_create(&rerecorded[0], 0));
    OK(xrt_event_create(&rerecorded[1], 0));
    OK(xrt_stream_create_with_flags(&keep, XRT_STREAM_NON_BLOCKING));
    OK(xrt_event_record(rerecorded[0], keep));
    OK(xrt_event_record(rerecorded[1], keep));
    assert_int_equal(start_thread(&q, xrt_test_backend, query_rerecorded, NULL), 0);
    for (i = 0; i < 2000; i++) {
        OK(xrt_stream_create_with_flags(&s, XRT_STREAM_NON_BLOCKING));
        OK(xrt_event_record(rerecorded[1], s));
        OK(xrt_stream_destroy(s));
        usleep(50); /* its worker exits: the event holds the last reference */
        OK(xrt_event_record(rerecorded[1], keep)); /* and lets it go */
    }
    __atomic_store_n(&rerecord_stop, 1, __ATOMIC_RELEASE);
    assert_int_equal(pthread_join(q, &ret), 0);
    assert_ptr_not_equal(ret, XRT_TEST_NO_BACKEND);
    OK(xrt_stream_synchronize(keep));
    OK(xrt_stream_destroy(keep));
    OK(xrt_event_destroy(rerecorded[0]));
    OK(xrt_event_destroy(rerecorded[1]));
    if (failures) fail_msg("%d failures; first: %s", failures, first_failure);
}

static void test_parking_worker_wakes(void **state)
{
    xrt_stream s[4];
    unsigned seed = 1;
    double end = now_ms(CLOCK_MONOTONIC) + 2000;
    int i;
    (void)state;
    signal(SIGALRM, on_alarm);
    for (i = 0; i < 4; i++) assert_int_equal(xrt_stream_create(&s[i]), XRT_SUCCESS);
    while (now_ms(CLOCK_MONOTONIC) < end) {
        struct timespec ts = {0, (long)((seed = seed * 1103515245u + 12345u) >> 8) % 200000};
        nanosleep(&ts, NULL);
        for (i = 0; i < 4; i++) assert_int_equal(xrt_launch_host_func(s[i], nop, NULL), XRT_SUCCESS);
        alarm(5);
        for (i = 0; i < 4; i++) assert_int_equal(xrt_stream_synchronize(s[i]), XRT_SUCCESS);
        alarm(0);
    }
    for (i = 0; i < 4; i++) assert_int_equal(xrt_stream_destroy(s[i]), XRT_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_streams_and_events),
        cmocka_unit_test(test_alloc_and_event_churn),
        cmocka_unit_test(test_many_producers_one_stream),
        cmocka_unit_test(test_parking_worker_wakes),
        cmocka_unit_test(test_event_queried_while_rerecorded),
        cmocka_unit_test(test_legacy_stream_under_threads),
        cmocka_unit_test(test_legacy_stream_mixed_under_threads),
    };
    static const char *const cpu[] = {"cpu", NULL};
    return xrt_test_run_on_backends("stress", tests, sizeof tests / sizeof tests[0], cpu);
}
