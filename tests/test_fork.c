/* SPDX-License-Identifier: MIT */
/* fork(): after fork(), the child's CPU backend works, whether the parent
   was idle or had work in flight (the child's copy of queued work is
   dropped; the parent's streams are usable); xrt_shutdown in the child
   returns. In a child, a backend that is not fork-safe (a GPU runtime,
   the tracer) answers every call with XRT_ERROR_NOT_PERMITTED and a detail
   that mentions fork. A fork while another thread is inside xrt leaves the
   child no lock that no thread will release. Every group runs on each available backend; each child has an
   alarm (xrt_test.h: child_fork, child_status). */
#define XRT_IMPL /* white-box: the handle table, locks and records across fork */
#include "xrt_test.h"

/* >> fork */
/* In the child of a fork: the CPU backend works on the parent's stream and
   memory; a backend that is not fork-safe refuses every call. `first` is
   the value the parent's allocation held before any work in flight. */
static void forked_child(xrt_stream s, void *d, unsigned char first, int shutdown_only)
{
    unsigned char b[64];
    xrt_stream t;
    void *p = NULL;
    int n, i;
    if (shutdown_only) {
        xrt_shutdown();
        child_exit(0);
    }
    if (!survives_fork()) {
        CHILD_EXPECT(xrt_stream_synchronize(s), XRT_ERROR_NOT_PERMITTED);
        CHILD_TRUE(strstr(xrt_get_last_error_string(), "fork") != NULL);
        CHILD_EXPECT(xrt_malloc(&p, 64), XRT_ERROR_NOT_PERMITTED);
        CHILD_EXPECT(xrt_get_device_count(&n), XRT_ERROR_NOT_PERMITTED);
        CHILD_EXPECT(xrt_free(d), XRT_ERROR_NOT_PERMITTED);
        xrt_shutdown();
        child_end_quietly(); /* the parent's GPU objects are lost to the child */
    }
    CHILD_OK(xrt_stream_query(s)); /* the parent's work in flight is not the child's */
    CHILD_OK(xrt_stream_synchronize(s));
    CHILD_OK(xrt_memcpy(b, d, sizeof b, XRT_MEMCPY_DEVICE_TO_HOST));
    for (i = 0; i < (int)sizeof b; i++)
        if (b[i] != first) CHILD_FAIL("byte %d is 0x%02x: queued work of the parent ran in the child", i, b[i]);
    child_stream_works(s, 0x41);
    child_stream_works(NULL, 0x42);
    CHILD_OK(xrt_stream_create(&t));
    child_stream_works(t, 0x43);
    CHILD_OK(xrt_stream_destroy(t));
    CHILD_OK(xrt_device_synchronize());
    CHILD_OK(xrt_free(d));
    CHILD_OK(xrt_stream_destroy(s));
    xrt_shutdown();
    child_exit(0);
}

/* Parent: a stream and 64 bytes of memory, idle or with work in flight (a
   host function blocked on a gate, a memset queued behind it); forks; the
   child checks what forked_child says; the parent's xrt is unaffected. */
static void fork_case(int in_flight, int shutdown_only)
{
    const unsigned char first = 0x11;
    unsigned char b[64];
    char why[256];
    xrt_stream s;
    void *d;
    pid_t pid;
    int bad;
    OK(xrt_stream_create(&s));
    OK(xrt_malloc(&d, sizeof b));
    OK(xrt_memset(d, first, sizeof b));
    assert_stream_works(s, 0x10);
    if (in_flight) {
        OK(xrt_launch_host_func(s, gate_wait, &gates[0]));
        OK(xrt_memset_async(d, 0x33, sizeof b, s));
        gate_wait_entered(&gates[0]);
    }
    pid = child_fork(4);
    if (pid == 0) forked_child(s, d, first, shutdown_only);
    bad = child_status(pid, 4, why, sizeof why);
    gate_open(&gates[0]);
    OK(xrt_stream_synchronize(s));
    OK(xrt_memcpy(b, d, sizeof b, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_bytes(b, sizeof b, in_flight ? 0x33 : first);
    assert_stream_works(s, 0x44);
    OK(xrt_stream_destroy(s));
    OK(xrt_free(d));
    if (bad) fail_msg("fork with the parent %s, child %s: %s", in_flight ? "having work in flight" : "idle",
                      shutdown_only ? "calling xrt_shutdown" : "using xrt", why);
}

static void test_fork_parent_idle(void **state)
{
    (void)state;
    SKIP_IF_CHILD_STREAMS_UNDER_TSAN(); /* the shutdown_in_child cases fork the same way */
    fork_case(0, 0);
}
static void test_fork_work_in_flight(void **state)
{
    (void)state;
    SKIP_IF_CHILD_STREAMS_UNDER_TSAN();
    fork_case(1, 0);
}
static void test_fork_shutdown_in_child_parent_idle(void **state) { (void)state; fork_case(0, 1); }
static void test_fork_shutdown_in_child_work_in_flight(void **state) { (void)state; fork_case(1, 1); }

/* fork() just after streams were created and destroyed: their workers may
   still be starting or exiting, inside the C library's (or a sanitizer's)
   thread set-up and tear-down, which allocate. A child forked then would
   inherit an allocator lock that no thread releases (gcc's ASan takes none
   around fork()), and its own first new thread would hang: the CPU backend
   lets no worker of its own be half started or half gone at a fork. The
   child needs a new worker: a host function runs only on one. Some of the
   exiting workers have called xrt (a host function): their exit takes the
   core's call lock, which a fork must not be holding while it waits for them. */
static void calls_xrt(void *user)
{
    int n;
    (void)user;
    xrt_get_device_count(&n);
}

static void fork_as_workers_come_and_go_child(void)
{
    xrt_stream t;
    if (UNDER_TSAN) { /* no thread starts in the child (TSan's die_after_fork): the parent's side is what it checks */
        xrt_shutdown();
        child_exit(0);
    }
    child_step("a new stream's host function, in a child forked as workers started and exited");
    CHILD_OK(xrt_stream_create(&t));
    CHILD_OK(xrt_launch_host_func(t, nop, NULL));
    CHILD_OK(xrt_stream_synchronize(t));
    CHILD_OK(xrt_stream_destroy(t));
    CHILD_OK(xrt_device_synchronize());
    xrt_shutdown();
    child_exit(0);
}

static void test_fork_as_workers_come_and_go(void **state)
{
    enum { FORKS = 16, STREAMS = 6 };
    char why[256];
    xrt_stream s[STREAMS];
    int k, i, bad = 0;
    (void)state;
    SKIP_UNLESS(survives_fork(), "the CPU backend's workers: the backend refuses every call in a forked child");
    for (k = 0; k < FORKS && !bad; k++) {
        pid_t pid;
        for (i = 0; i < STREAMS; i++) OK(xrt_stream_create(&s[i]));
        for (i = 0; i < STREAMS / 2; i++) {
            if (i % 2 == 0) OK(xrt_launch_host_func(s[i], calls_xrt, NULL));
            OK(xrt_stream_destroy(s[i])); /* its worker exits now */
        }
        pid = child_fork(4);
        if (pid == 0) fork_as_workers_come_and_go_child();
        bad = child_status(pid, 4, why, sizeof why);
        for (i = STREAMS / 2; i < STREAMS; i++) OK(xrt_stream_destroy(s[i]));
    }
    if (bad) fail_msg("fork %d, as stream workers started and exited: %s", k, why);
}

/* fork() while another thread is inside xrt (holding its locks): the child
   must not inherit a lock that no thread will release. */
static int churn_stop;

/* The other thread's calls: they take xrt's registry, handle, stream and
   log locks, and create and free memory, streams and events. */
static void *churn(void *arg)
{
    unsigned i;
    xrt_stream s0 = NULL, stale = NULL;
    xrt_event e0 = NULL;
    void *d0 = NULL;
    (void)arg;
    if (xrt_stream_create(&s0) || xrt_event_create(&e0, 0) || xrt_malloc(&d0, 64) || xrt_stream_create(&stale) ||
        xrt_stream_destroy(stale))
        return (void *)1;
    for (i = 0; !__atomic_load_n(&churn_stop, __ATOMIC_ACQUIRE); i++) {
        xrt_pointer_attributes a;
        xrt_cache_stats cs;
        void *p = NULL;
        int n;
        xrt_pointer_get_attributes(&a, d0);
        xrt_cache_get_stats(&cs); /* the kernel cache's lock */
        xrt_backend_count(&n);
        xrt_stream_query(stale); /* an error: the log path */
        xrt_memset_async(d0, (int)i, 64, s0);
        xrt_event_record(e0, s0);
        xrt_event_query(e0);
        xrt_stream_query(s0);
        if (xrt_malloc(&p, 64) == XRT_SUCCESS) xrt_free(p);
        if (i % 8 == 0) {
            xrt_stream s;
            xrt_event e;
            if (xrt_stream_create(&s) == XRT_SUCCESS) {
                xrt_launch_host_func(s, nop, NULL);
                xrt_stream_destroy(s);
            }
            if (xrt_event_create(&e, 0) == XRT_SUCCESS) {
                xrt_event_record(e, NULL);
                xrt_event_destroy(e);
            }
        }
    }
    xrt_stream_synchronize(s0);
    xrt_event_destroy(e0);
    xrt_stream_destroy(s0);
    xrt_free(d0);
    return NULL;
}

static void churn_child(void)
{
    xrt_stream s;
    xrt_cache_stats cs;
    void *p = NULL;
    child_step("xrt_cache_get_stats in a child forked while another thread was in xrt");
    CHILD_OK(xrt_cache_get_stats(&cs));
    child_step("xrt_malloc in a child forked while another thread was in xrt");
    if (!survives_fork()) {
        CHILD_EXPECT(xrt_malloc(&p, 64), XRT_ERROR_NOT_PERMITTED);
        xrt_shutdown();
        child_exit(0);
    }
    CHILD_OK(xrt_malloc(&p, 64));
    CHILD_OK(xrt_free(p));
    CHILD_EXPECT(xrt_malloc(NULL, 64), XRT_ERROR_INVALID_VALUE);
    if (!UNDER_TSAN) { /* a stream's worker: no thread starts in the child under TSan */
        CHILD_OK(xrt_stream_create(&s));
        child_stream_works(s, 0x51);
        CHILD_OK(xrt_stream_destroy(s));
    }
    child_step("xrt_shutdown in a child forked while another thread was in xrt");
    xrt_shutdown();
    child_end_quietly(); /* the other thread's allocations in flight are lost to the child */
}

static void test_fork_while_another_thread_calls(void **state)
{
    enum { FORKS = 12 };
    char why[256];
    void *ret = NULL;
    pthread_t t;
    int k, failed = 0;
    (void)state;
#ifdef XRT_TEST_ASAN
    /* gcc's ASan runtime takes no lock around fork() for its allocator: a
       child forked while any other thread is inside it deadlocks in its own
       first allocation, xrt or not */
    SKIP_UNLESS(0, "under ASan: its allocator does not survive fork() during other threads' allocations");
#endif
    xrt_set_log_level(XRT_LOG_NONE); /* the churn's errors */
    churn_stop = 0;
    assert_int_equal(start_thread(&t, NULL, churn, NULL), 0);
    for (k = 0; k < FORKS && !failed; k++) { /* the first failure says it all */
        pid_t pid;
        sleep_ms(1 + k % 3);
        pid = child_fork(4);
        if (pid == 0) churn_child();
        if (child_status(pid, 4, why, sizeof why)) {
            failed++;
            print_error("fork %d: %s\n", k, why);
        }
    }
    __atomic_store_n(&churn_stop, 1, __ATOMIC_RELEASE);
    assert_int_equal(pthread_join(t, &ret), 0);
    assert_null(ret); /* its set-up worked */
    xrt_set_log_level(XRT_LOG_WARN);
    OK(xrt_device_synchronize());
    if (failed) fail_msg("fork %d of %d while another thread was in xrt: the child failed (above)", k, FORKS);
}

/* >> fork: the other threads' free handle slots */
/* Threads of the parent keep free slots of the handle table for their
   creates; in the child, where they do not exist, those slots are the
   table's again: none is lost, none counted twice, and new handles work.
   Their spare registry records are freed there. */
enum { KEEPERS = 3 };
static int keepers_ready, keepers_stop;
static struct xrt__call_state *keeper_state[KEEPERS]; /* each keeper's, with its spare registry record */

static void *slot_keeper(void *arg)
{
    void *p;
    if (handles_made_and_destroyed(4, 0)) return (void *)1;
    if (xrt_malloc(&p, 64) != XRT_SUCCESS || xrt_free(p) != XRT_SUCCESS || !xrt__call.mem_spare) return (void *)2;
    keeper_state[(intptr_t)arg] = &xrt__call;
    __atomic_add_fetch(&keepers_ready, 1, __ATOMIC_ACQ_REL);
    while (!__atomic_load_n(&keepers_stop, __ATOMIC_ACQUIRE)) sleep_ms(1);
    return NULL;
}

static void slot_keepers_child(void)
{
    xrt_event e[64];
    long lost;
    int i;
    if ((lost = handle_slots_lost()) != 0)
        CHILD_FAIL("in the child of a fork, %ld slots of the handle table were %s", lost < 0 ? -lost : lost,
                   lost < 0 ? "counted twice" : "neither live nor free (the other threads' free slots?)");
    for (i = 0; i < KEEPERS; i++) /* their spare records are freed (leaked in the child, else) */
        if (keeper_state[i]->mem_spare) CHILD_FAIL("in the child of a fork, thread %d's spare registry record is kept", i);
    if (survives_fork()) {
        for (i = 0; i < 64; i++) CHILD_OK(xrt_event_create(&e[i], 0));
        for (i = 0; i < 64; i++) CHILD_OK(xrt_event_destroy(e[i]));
        CHILD_TRUE(handle_slots_lost() == 0);
    }
    xrt_shutdown();
    child_exit(0);
}

static void test_fork_gives_back_other_threads_handle_slots(void **state)
{
    pthread_t t[KEEPERS];
    char why[256];
    pid_t pid;
    int i, bad;
    (void)state;
    keepers_ready = keepers_stop = 0;
    for (i = 0; i < KEEPERS; i++) assert_int_equal(start_thread(&t[i], NULL, slot_keeper, (void *)(intptr_t)i), 0);
    while (__atomic_load_n(&keepers_ready, __ATOMIC_ACQUIRE) < KEEPERS) sleep_ms(1);
    pid = child_fork(10);
    if (pid == 0) slot_keepers_child();
    bad = child_status(pid, 10, why, sizeof why);
    __atomic_store_n(&keepers_stop, 1, __ATOMIC_RELEASE);
    for (i = 0; i < KEEPERS; i++) {
        void *ret = NULL;
        assert_int_equal(pthread_join(t[i], &ret), 0);
        assert_null(ret);
    }
    if (bad) fail_msg("fork with %d threads that keep free handle slots: %s", KEEPERS, why);
    assert_int_equal(handle_slots_lost(), 0);
}

/* Work queued in the parent behind a blocked host function never runs in
   the child: what it held (a launch's arguments record, large and small, and
   its module; a recorded event; a stream waited for; memory freed on the
   stream) is released there all the same, when the child first uses the
   stream or destroys it (white-box: the module's and the event's reference
   counts; the rest valgrind's leak check sees). */
static void test_fork_releases_queued_work(void **state)
{
    static unsigned char args[600], byte; /* more than a stream keeps for reuse: a record of its own */
    unsigned char *to = &byte;             /* the kernel writes 9 where its first argument points */
    const xrt_dim3 one = {1, 1, 1};
    xrt_module m;
    xrt_function f;
    xrt_stream s, t;
    xrt_event e, r;
    void *d;
    char why[256];
    pid_t pid;
    int bad;
    (void)state;
    SKIP_UNLESS(survives_fork(), "the backend refuses every call in a forked child (a GPU runtime, the tracer)");
    setenv("XRT_CACHE", "0", 1); /* built privately: nothing left in the user's cache */
    OK(xrt_module_load(&m, &xrt_test_calls_image, 1, NULL));
    unsetenv("XRT_CACHE");
    OK(xrt_module_get_function(&f, m, "k"));
    OK(xrt_stream_create(&s));
    OK(xrt_stream_create(&t));
    OK(xrt_event_create(&e, 0));
    OK(xrt_event_create(&r, 0));
    OK(xrt_malloc(&d, 64));
    OK(xrt_launch_host_func(t, gate_wait, &gates[0]));
    OK(xrt_event_record(r, t));
    OK(xrt_launch_host_func(s, gate_wait, &gates[1]));
    gate_wait_entered(&gates[1]);
    memcpy(args, &to, sizeof to);
    OK(xrt_launch_kernel(f, one, one, 0, s, args, sizeof args));
    OK(xrt_launch_kernel(f, one, one, 0, s, args, 8));
    OK(xrt_event_record(e, s));
    OK(xrt_stream_wait_event(s, r));
    OK(xrt_free_async(d, s));
    pid = child_fork(10);
    if (pid == 0) {
        xrt__module *core = (xrt__module *)xrt__handle_lookup(xrt__be(), m, XRT__HANDLE_MODULE)->obj;
        xrt__cpu_module *cm = (xrt__cpu_module *)core->obj;
        xrt__cpu_event *ce = (xrt__cpu_event *)xrt__handle_lookup(xrt__be(), e, XRT__HANDLE_EVENT)->obj;
        int module_refs = cm->refs;
        CHILD_OK(xrt_event_query(e)); /* the parent's records are not the child's to wait for */
        CHILD_OK(xrt_stream_destroy(s));
        if (cm->refs != module_refs - 2) CHILD_FAIL("the module has %d references, not %d", cm->refs, module_refs - 2);
        if (ce->refs != 1) CHILD_FAIL("the event has %d references, not 1 (its handle)", ce->refs);
        xrt_shutdown();
        child_exit(0);
    }
    bad = child_status(pid, 10, why, sizeof why);
    gate_open(&gates[0]);
    gate_open(&gates[1]);
    OK(xrt_stream_synchronize(s));
    assert_int_equal(byte, 9); /* the parent's launches ran */
    OK(xrt_event_destroy(e));
    OK(xrt_event_destroy(r));
    OK(xrt_stream_destroy(s));
    OK(xrt_stream_destroy(t));
    OK(xrt_module_unload(m));
    if (bad) fail_msg("child forked with work queued: %s", why);
}

/* An event's lock held at fork() by a thread inside the event (recording
   it, or completing a record): that thread does not come along, so the child
   frees the lock, and its calls on the event return instead of spinning for
   ever. White-box: the test thread takes the CPU backend's event lock itself
   around the fork, as such a thread would hold it. */
static void test_fork_while_an_event_is_locked(void **state)
{
    xrt_stream s;
    xrt_event e;
    xrt__cpu_event *ce;
    char why[256];
    pid_t pid;
    int bad;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the CPU backend's event lock");
    OK(xrt_stream_create(&s));
    OK(xrt_event_create(&e, 0));
    OK(xrt_event_record(e, s));
    OK(xrt_stream_synchronize(s));
    ce = (xrt__cpu_event *)xrt__handle_lookup(xrt__be(), e, XRT__HANDLE_EVENT)->obj;
    xrt__cpu_lock(&ce->lock);
    pid = child_fork(10);
    if (pid == 0) {
        CHILD_OK(xrt_event_query(e));
        if (!UNDER_TSAN) CHILD_OK(xrt_event_record(e, NULL)); /* the NULL stream's worker: no thread under TSan */
        CHILD_OK(xrt_event_synchronize(e));
        CHILD_OK(xrt_event_destroy(e));
        xrt_shutdown();
        child_end_quietly();
    }
    xrt__cpu_unlock(&ce->lock);
    bad = child_status(pid, 10, why, sizeof why);
    OK(xrt_event_destroy(e));
    OK(xrt_stream_destroy(s));
    if (bad) fail_msg("child forked while an event was locked: %s", why);
}

/* The pointer registry's lock is a spin lock: fork() waits for a thread
   inside the registry to leave it, so the child never starts with a tree
   that thread was halfway through changing. White-box: the holder takes the
   lock itself and, while holding it, leaves the tree's count wrong for a
   while, as a thread in the middle of an insert would. */
static int registry_holder_in;

static void *registry_holder(void *arg)
{
    (void)arg;
    xrt__spin_lock(&xrt__mem_lock);
    xrt__mem_tree.count++;
    __atomic_store_n(&registry_holder_in, 1, __ATOMIC_RELEASE);
    sleep_ms(100); /* the main thread forks meanwhile */
    xrt__mem_tree.count--;
    xrt__spin_unlock(&xrt__mem_lock);
    return NULL;
}

static void test_fork_waits_for_the_registry(void **state)
{
    pthread_t t;
    size_t count;
    char why[256];
    void *d;
    pid_t pid;
    int bad;
    (void)state;
    OK(xrt_malloc(&d, 64));
    count = xrt__mem_tree.count;
    registry_holder_in = 0;
    assert_int_equal(start_thread(&t, NULL, registry_holder, NULL), 0);
    while (!__atomic_load_n(&registry_holder_in, __ATOMIC_ACQUIRE)) sleep_ms(1);
    pid = child_fork(10);
    if (pid == 0) {
        if (xrt__mem_tree.count != count)
            CHILD_FAIL("the child's registry counts %zu allocations, the parent's %zu: fork() did not wait for the "
                       "thread inside it", xrt__mem_tree.count, count);
        child_end_quietly();
    }
    bad = child_status(pid, 10, why, sizeof why);
    assert_int_equal(pthread_join(t, NULL), 0);
    OK(xrt_free(d));
    if (bad) fail_msg("%s", why);
}

/* A core lock that a thread holds at fork() while it waits for another
   lock (the registry's, the handle table's), or across a call out of xrt:
   fork() waits for that thread to let it go, so the child's calls that take
   it return (each child has an alarm: a lock inherited held fails the test
   instead of hanging it). White-box: the holder takes the lock itself, as
   such a thread would hold it, for a while in which the main thread forks. */
typedef struct lock_holder_arg { pthread_mutex_t *lock; int in, forked; } lock_holder_arg;

static void *lock_holder(void *arg)
{
    lock_holder_arg *h = (lock_holder_arg *)arg;
    pthread_mutex_lock(h->lock);
    __atomic_store_n(&h->in, 1, __ATOMIC_RELEASE);
    sleep_ms(100 * xrt_test_slowdown()); /* the main thread forks meanwhile */
    pthread_mutex_unlock(h->lock);
    while (!__atomic_load_n(&h->forked, __ATOMIC_ACQUIRE)) sleep_ms(1); /* alive at the fork (TSan) */
    return NULL;
}

static void fork_while_held(pthread_mutex_t *lock, void (*child)(void), const char *what)
{
    lock_holder_arg h;
    pthread_t t;
    char why[256];
    pid_t pid;
    int bad;
    h.lock = lock, h.in = h.forked = 0;
    assert_int_equal(start_thread(&t, NULL, lock_holder, &h), 0);
    while (!__atomic_load_n(&h.in, __ATOMIC_ACQUIRE)) sleep_ms(1);
    pid = child_fork(10);
    if (pid == 0) {
        child();
        child_step("xrt_shutdown");
        xrt_shutdown();
        child_end_quietly(); /* the holder's thread is the parent's alone */
    }
    __atomic_store_n(&h.forked, 1, __ATOMIC_RELEASE);
    bad = child_status(pid, 10, why, sizeof why);
    assert_int_equal(pthread_join(t, NULL), 0);
    if (bad) fail_msg("child forked while another thread held %s: %s", what, why);
}

/* The graph memory's lock: a capture's begin and end take it (and
   xrt_shutdown, after the child's own calls). The stream is the parent's:
   the child starts no thread (TSan). */
static xrt_stream graph_mem_stream;

static void graph_mem_child(void)
{
    xrt_graph g = NULL;
    if (!survives_fork()) return;
    child_step("xrt_stream_begin_capture");
    CHILD_OK(xrt_stream_begin_capture(graph_mem_stream, XRT_CAPTURE_MODE_GLOBAL));
    CHILD_OK(xrt_stream_end_capture(graph_mem_stream, &g));
    CHILD_OK(xrt_graph_destroy(g));
}

static void test_fork_waits_for_the_graph_memory(void **state)
{
    (void)state;
    OK(xrt_stream_create(&graph_mem_stream));
    fork_while_held(&xrt__graph_mem_lock, graph_mem_child, "the graph memory's lock");
    OK(xrt_stream_destroy(graph_mem_stream));
}

/* The registration lock, held across the backend's host_register. */
static void register_child(void)
{
    static char buf[4096];
    xrt_status want = survives_fork() ? XRT_SUCCESS : XRT_ERROR_NOT_PERMITTED;
    child_step("xrt_host_register");
    CHILD_EXPECT(xrt_host_register(buf, sizeof buf, 0), want);
    CHILD_EXPECT(xrt_host_unregister(buf), want);
}

static void test_fork_waits_for_a_registration(void **state)
{
    (void)state;
    fork_while_held(&xrt__mem_register_lock, register_child, "the registration lock");
}

/* The pools' handle lock, held across the handle table's. */
static void pool_handle_child(void)
{
    xrt_mem_pool pool = NULL, again = NULL;
    if (!survives_fork()) return;
    child_step("xrt_device_get_default_mem_pool");
    CHILD_OK(xrt_device_get_default_mem_pool(&pool, 0));
    CHILD_OK(xrt_device_get_default_mem_pool(&again, 0));
    CHILD_TRUE(pool == again);
}

static void test_fork_waits_for_a_pool_handle(void **state)
{
    (void)state;
    fork_while_held(&xrt__pool_handle_lock, pool_handle_child, "the pools' handle lock");
}

/* The free hooks' lock. */
static void fork_test_hook(void *user, uintptr_t base, size_t size, uint64_t generation)
{
    (void)user, (void)base, (void)size, (void)generation;
}

static void hook_child(void)
{
    child_step("xrt_add_free_hook");
    CHILD_OK(xrt_add_free_hook(fork_test_hook, NULL));
    CHILD_OK(xrt_remove_free_hook(fork_test_hook, NULL));
}

static void test_fork_waits_for_the_free_hooks(void **state)
{
    (void)state;
    fork_while_held(&xrt__hook_lock, hook_child, "the free hooks' lock");
}

/* >> the refusal comes first */
/* In a forked child, on a backend that does not survive fork() (the refuser
   here, cuda and hip where a group runs on them), every entry point called
   with the parent's live handles and memory returns XRT_ERROR_NOT_PERMITTED,
   before any check of its handles, pointers or arguments, and says why: the
   calls of XRT_TEST_CALLS (tests/xrt_test.h; every operation has one,
   test_every_operation_has_a_case in tests/test_host_fn.c). */
static void refused_in_forked_child(const char *backend)
{
    static xrt_test_calls c;
    char why[256];
    pid_t pid;
    int line, bad;
    OK(xrt_set_backend(backend));
    if ((line = xrt_test_calls_make(&c)) != 0) fail_msg("%s: objects: line %d: %s", backend, line, xrt_get_last_error_string());
    pid = child_fork(10);
    if (pid == 0) {
        xrt_test_calls_run(&c);
        if (!xrt_test_calls_refused(&c, "forked child")) CHILD_FAIL("on %s: calls in a forked child (above)", backend);
        xrt_shutdown();
        child_end_quietly(); /* the parent's objects are lost to the child */
    }
    bad = child_status(pid, 10, why, sizeof why);
    xrt_test_calls_free(&c);
    OK(xrt_set_backend(xrt_test_backend));
    if (bad) fail_msg("forked child on %s: %s", backend, why);
}

static void test_fork_refusal_comes_first(void **state)
{
    (void)state;
    OK(xrt_test_refuser_register());
    refused_in_forked_child(XRT_TEST_REFUSER);
    if (!survives_fork()) refused_in_forked_child(xrt_test_backend);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        gated_test(test_fork_parent_idle),
        gated_test(test_fork_work_in_flight),
        gated_test(test_fork_shutdown_in_child_parent_idle),
        gated_test(test_fork_shutdown_in_child_work_in_flight),
        cmocka_unit_test(test_fork_as_workers_come_and_go),
        cmocka_unit_test(test_fork_while_another_thread_calls),
        cmocka_unit_test(test_fork_while_an_event_is_locked),
        cmocka_unit_test(test_fork_waits_for_the_registry),
        cmocka_unit_test(test_fork_waits_for_the_graph_memory),
        cmocka_unit_test(test_fork_waits_for_a_registration),
        cmocka_unit_test(test_fork_waits_for_a_pool_handle),
        cmocka_unit_test(test_fork_waits_for_the_free_hooks),
        cmocka_unit_test(test_fork_gives_back_other_threads_handle_slots),
        gated_test(test_fork_releases_queued_work),
        cmocka_unit_test(test_fork_refusal_comes_first),
    };
    return xrt_test_run_on_backends("fork", tests, sizeof tests / sizeof tests[0], NULL);
}
