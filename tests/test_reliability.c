/* Reliability: misuse gives a clear status, never a crash or a hang. One
   regression test per defect of the reliability issue (size overflow in the
   range checks, waiting inside host functions, fork, destroy racing with use,
   two destroys of one handle, log callbacks that call xrt, shutdown behind a
   host function, an overlong error detail, the smaller ones) and a thread-exit
   growth check. Public API only; every group runs on each available backend.

   A case that may crash or hang runs in a forked child with an alarm
   (xrt_test.h: in_child, run_child, child_fork): a crash or a hang fails that
   test with what happened, and the program goes on. A call that may block is
   made on a watched thread (finishes_within) so that the child reports which
   call hung instead of only timing out.

   The rules these tests hold xrt to, where the issue left a choice:
   - Waiting from inside a host function (stream, device or event
     synchronize; xrt_memcpy / xrt_memset, which wait on the NULL stream;
     xrt_free / xrt_free_host; xrt_shutdown) returns XRT_ERROR_NOT_PERMITTED
     on every backend. Calls that do not wait (enqueue, query, allocate,
     record) are allowed inside host functions on the CPU backend; on CUDA and
     HIP every xrt call from a host function returns XRT_ERROR_NOT_PERMITTED
     (the runtimes forbid runtime calls there).
   - After fork(), the child's CPU backend works, whether the parent was idle
     or had work in flight (the child's copy of queued work is dropped; the
     parent's streams are usable); xrt_shutdown in the child returns. In a
     child, a GPU backend answers every call with XRT_ERROR_NOT_PERMITTED and a
     detail that mentions fork.
   - A destroy racing with use: the losers get XRT_ERROR_INVALID_HANDLE. Two
     destroys of one handle: exactly one XRT_SUCCESS. */
#include "xrt_test.h"

#include <limits.h>
#include <malloc.h>
#include <sched.h>

#if defined(__SANITIZE_ADDRESS__)
#define XRT_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define XRT_TEST_ASAN 1
#endif
#endif

static int on_gpu(void)
{
    const char *name = NULL;
    return xrt_get_backend(&name) == XRT_SUCCESS && name && strcmp(name, "cpu") != 0;
}

static void nop(void *user) { (void)user; }

/* Waits (up to ms, times the slowdown) for *flag to become nonzero. */
static int wait_flag(int *f, int ms)
{
    double end = now_ms(CLOCK_MONOTONIC) + (double)ms * xrt_test_slowdown();
    while (!__atomic_load_n(f, __ATOMIC_ACQUIRE) && now_ms(CLOCK_MONOTONIC) < end) sleep_ms(1);
    return __atomic_load_n(f, __ATOMIC_ACQUIRE);
}

/* In a child: 64 bytes set and read back on stream s, in order. */
static void child_stream_works(xrt_stream s, unsigned char v)
{
    unsigned char h[64];
    void *d;
    int i;
    CHILD_OK(xrt_malloc(&d, sizeof h));
    memset(h, (unsigned char)~v, sizeof h);
    CHILD_OK(xrt_memset_async(d, v, sizeof h, s));
    CHILD_OK(xrt_memcpy_async(h, d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST, s));
    CHILD_OK(xrt_stream_synchronize(s));
    for (i = 0; i < (int)sizeof h; i++)
        if (h[i] != v) CHILD_FAIL("byte %d is 0x%02x, expected 0x%02x", i, h[i], v);
    CHILD_OK(xrt_free(d));
}

/* Runs each case of a table in its own child; lists every failing case, then
   fails the test if any did. */
typedef struct child_case { const char *name; int (*fn)(void *); const void *arg; } child_case;

static void run_cases(const char *what, const child_case *cases, size_t n, int seconds)
{
    char why[256];
    size_t i;
    int failed = 0;
    for (i = 0; i < n; i++)
        if (run_child(cases[i].fn, (void *)(uintptr_t)cases[i].arg, seconds, why, sizeof why)) {
            failed++;
            print_error("%s: %s: %s\n", what, cases[i].name, why);
        }
    if (failed) fail_msg("%d of %d %s cases failed (listed above)", failed, (int)n, what);
}

/* >> the status */
static void test_not_permitted_status(void **state)
{
    (void)state;
    assert_string_equal(xrt_status_string(XRT_ERROR_NOT_PERMITTED), "operation not permitted");
    assert_true(XRT_ERROR_NOT_PERMITTED < XRT_STATUS_COUNT);
}

/* >> defect 1: size overflow in the range checks */
enum { BIG = 8192 };
typedef struct overflow_case {
    const char *fn;
    int op;        /* 0 memcpy, 1 memcpy_async, 2 memset, 3 memset_async */
    int dst, src;  /* 0 host buffer, 1 device d, 2 device d2, 3 pinned */
    size_t offset; /* into the xrt allocation that is the range-checked side */
    size_t size;
    xrt_memcpy_kind kind;
} overflow_case;

static const overflow_case overflow_cases[] = {
    {"xrt_memcpy", 0, 1, 0, 16, SIZE_MAX - 15, XRT_MEMCPY_HOST_TO_DEVICE},
    {"xrt_memcpy", 0, 0, 1, 16, SIZE_MAX - 15, XRT_MEMCPY_DEVICE_TO_HOST},
    {"xrt_memcpy", 0, 1, 0, 4095, SIZE_MAX - 4094, XRT_MEMCPY_DEFAULT},
    {"xrt_memcpy", 0, 3, 0, 16, SIZE_MAX - 15, XRT_MEMCPY_HOST_TO_HOST},
    {"xrt_memcpy", 0, 0, 3, 1, SIZE_MAX, XRT_MEMCPY_HOST_TO_HOST},
    {"xrt_memcpy", 0, 1, 2, 16, SIZE_MAX - 15, XRT_MEMCPY_DEVICE_TO_DEVICE},
    {"xrt_memcpy_async", 1, 1, 0, 4095, SIZE_MAX - 4094, XRT_MEMCPY_HOST_TO_DEVICE},
    {"xrt_memcpy_async", 1, 0, 1, 4095, SIZE_MAX - 4094, XRT_MEMCPY_DEVICE_TO_HOST},
    {"xrt_memcpy_async", 1, 0, 1, BIG - 1, SIZE_MAX - (BIG - 2), XRT_MEMCPY_DEFAULT},
    {"xrt_memset", 2, 1, 0, 16, SIZE_MAX - 15, XRT_MEMCPY_DEFAULT},
    {"xrt_memset", 2, 3, 0, 1, SIZE_MAX, XRT_MEMCPY_DEFAULT},
    {"xrt_memset_async", 3, 1, 0, 4095, SIZE_MAX - 4094, XRT_MEMCPY_DEFAULT},
    {"xrt_memset_async", 3, 1, 0, BIG - 1, SIZE_MAX - (BIG - 2), XRT_MEMCPY_DEFAULT},
};

static int overflow_child(void *arg)
{
    const overflow_case *c = (const overflow_case *)arg;
    static unsigned char host[64], back[BIG];
    unsigned char *mem[4];
    void *d, *d2, *pinned;
    xrt_stream s;
    xrt_status st;
    int i;
    xrt_test_log_capture();
    CHILD_OK(xrt_malloc(&d, BIG));
    CHILD_OK(xrt_malloc(&d2, BIG));
    CHILD_OK(xrt_malloc_host(&pinned, BIG));
    CHILD_OK(xrt_stream_create(&s));
    CHILD_OK(xrt_memset(d, 0x5a, BIG));
    CHILD_OK(xrt_memset(pinned, 0x5a, BIG));
    memset(host, 0x77, sizeof host);
    mem[0] = host;
    mem[1] = (unsigned char *)d;
    mem[2] = (unsigned char *)d2;
    mem[3] = (unsigned char *)pinned;
    {
        unsigned char *dst = mem[c->dst] + (c->dst ? c->offset : 0);
        unsigned char *src = mem[c->src] + (c->dst ? 0 : c->offset);
        xrt_get_last_error();
        switch (c->op) {
        case 0: st = xrt_memcpy(dst, src, c->size, c->kind); break;
        case 1: st = xrt_memcpy_async(dst, src, c->size, c->kind, s); break;
        case 2: st = xrt_memset(dst, 0, c->size); break;
        default: st = xrt_memset_async(dst, 0, c->size, s); break;
        }
    }
    if (st == XRT_SUCCESS) CHILD_FAIL("%s of %zu bytes at offset %zu returned success", c->fn, c->size, c->offset);
    CHILD_EXPECT(st, XRT_ERROR_INVALID_VALUE);
    if (!strstr(xrt_get_last_error_string(), c->fn)) CHILD_FAIL("detail \"%s\" does not name %s", xrt_get_last_error_string(), c->fn);
    CHILD_OK(xrt_device_synchronize());
    /* nothing was written: not the allocation, not the host buffer */
    CHILD_OK(xrt_memcpy(back, d, BIG, XRT_MEMCPY_DEVICE_TO_HOST));
    for (i = 0; i < BIG; i++)
        if (back[i] != 0x5a || ((unsigned char *)pinned)[i] != 0x5a) CHILD_FAIL("byte %d of an allocation was written", i);
    for (i = 0; i < (int)sizeof host; i++)
        if (host[i] != 0x77) CHILD_FAIL("byte %d of the host buffer was written", i);
    child_stream_works(s, 0x21);
    CHILD_OK(xrt_stream_destroy(s));
    CHILD_OK(xrt_free(d));
    CHILD_OK(xrt_free(d2));
    CHILD_OK(xrt_free_host(pinned));
    xrt_shutdown();
    return 0;
}

static void test_size_overflow(void **state)
{
    child_case cases[sizeof overflow_cases / sizeof overflow_cases[0]];
    char names[sizeof cases / sizeof cases[0]][96];
    size_t i;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const overflow_case *c = &overflow_cases[i];
        snprintf(names[i], sizeof names[i], "%s, offset %zu, SIZE_MAX - %zu bytes", c->fn, c->offset, SIZE_MAX - c->size);
        cases[i].name = names[i];
        cases[i].fn = overflow_child;
        cases[i].arg = c;
    }
    run_cases("size overflow", cases, sizeof cases / sizeof cases[0], 10);
}

/* >> defect 2: waiting from inside a host function */
typedef struct hf_env {
    xrt_stream s, other;
    xrt_event after, never, mine;
    void *d, *d2, *pinned, *p;
    unsigned char h[64];
    xrt_module mod; /* the CPU's: a kernel that writes one byte */
    xrt_function fn;
} hf_env;
static hf_env env; /* each child has its own copy */

typedef struct hf_case {
    const char *fn;
    xrt_status (*call)(hf_env *e);
    int waits;         /* a waiting call: XRT_ERROR_NOT_PERMITTED everywhere */
    xrt_status on_cpu; /* else its status on the CPU backend (GPU: NOT_PERMITTED) */
} hf_case;

static xrt_status hf_sync_own(hf_env *e) { return xrt_stream_synchronize(e->s); }
static xrt_status hf_sync_null(hf_env *e) { (void)e; return xrt_stream_synchronize(NULL); }
static xrt_status hf_sync_other(hf_env *e) { return xrt_stream_synchronize(e->other); }
static xrt_status hf_device_sync(hf_env *e) { (void)e; return xrt_device_synchronize(); }
static xrt_status hf_memcpy(hf_env *e) { return xrt_memcpy(e->d, e->h, sizeof e->h, XRT_MEMCPY_HOST_TO_DEVICE); }
static xrt_status hf_memset(hf_env *e) { return xrt_memset(e->d, 1, 64); }
static xrt_status hf_event_sync_after(hf_env *e) { return xrt_event_synchronize(e->after); }
static xrt_status hf_event_sync_never(hf_env *e) { return xrt_event_synchronize(e->never); }
static xrt_status hf_free(hf_env *e) { return xrt_free(e->d); }
static xrt_status hf_free_host(hf_env *e) { return xrt_free_host(e->pinned); }
static xrt_status hf_shutdown(hf_env *e)
{
    (void)e;
    xrt_get_last_error();
    xrt_shutdown();
    return xrt_peek_at_last_error();
}
static xrt_status hf_memset_async(hf_env *e) { return xrt_memset_async(e->d, 7, 64, e->s); }
static xrt_status hf_memcpy_async(hf_env *e)
{
    return xrt_memcpy_async(e->h, e->d2, sizeof e->h, XRT_MEMCPY_DEVICE_TO_HOST, e->other);
}
static xrt_status hf_record(hf_env *e) { return xrt_event_record(e->mine, e->s); }
static xrt_status hf_query_own(hf_env *e) { return xrt_stream_query(e->s); }
static xrt_status hf_event_query(hf_env *e) { return xrt_event_query(e->never); }
static xrt_status hf_malloc(hf_env *e) { return xrt_malloc(&e->p, 64); }
static xrt_status hf_free_async(hf_env *e) { return xrt_free_async(e->d2, e->s); }
static xrt_status hf_launch(hf_env *e) { return xrt_launch_host_func(e->s, nop, NULL); }
static xrt_status hf_device_count(hf_env *e)
{
    int n;
    (void)e;
    return xrt_get_device_count(&n);
}
static xrt_status hf_attributes(hf_env *e)
{
    xrt_pointer_attributes a;
    return xrt_pointer_get_attributes(&a, e->d);
}

static xrt_status hf_kernel(hf_env *e)
{
    xrt_dim3 one = {1, 1, 1};
    void *args = e->d2;
    return xrt_launch_kernel(e->fn, one, one, 0, e->other, &args, sizeof args);
}
static xrt_status hf_get_function(hf_env *e)
{
    xrt_function f;
    return xrt_module_get_function(&f, e->mod, "k");
}
static xrt_status hf_function_attributes(hf_env *e)
{
    xrt_function_attributes a;
    return xrt_function_get_attributes(&a, e->fn);
}

static const hf_case hf_cases[] = {
    {"xrt_stream_synchronize", hf_sync_own, 1, XRT_SUCCESS},
    {"xrt_stream_synchronize", hf_sync_null, 1, XRT_SUCCESS},
    {"xrt_stream_synchronize", hf_sync_other, 1, XRT_SUCCESS},
    {"xrt_device_synchronize", hf_device_sync, 1, XRT_SUCCESS},
    {"xrt_memcpy", hf_memcpy, 1, XRT_SUCCESS},
    {"xrt_memset", hf_memset, 1, XRT_SUCCESS},
    {"xrt_event_synchronize", hf_event_sync_after, 1, XRT_SUCCESS},
    {"xrt_event_synchronize", hf_event_sync_never, 1, XRT_SUCCESS},
    {"xrt_free", hf_free, 1, XRT_SUCCESS},
    {"xrt_free_host", hf_free_host, 1, XRT_SUCCESS},
    {"xrt_shutdown", hf_shutdown, 1, XRT_SUCCESS},
    {"xrt_memset_async", hf_memset_async, 0, XRT_SUCCESS},
    {"xrt_memcpy_async", hf_memcpy_async, 0, XRT_SUCCESS},
    {"xrt_event_record", hf_record, 0, XRT_SUCCESS},
    {"xrt_stream_query", hf_query_own, 0, XRT_ERROR_NOT_READY}, /* its own host function is running */
    {"xrt_event_query", hf_event_query, 0, XRT_SUCCESS},
    {"xrt_malloc", hf_malloc, 0, XRT_SUCCESS},
    {"xrt_free_async", hf_free_async, 0, XRT_SUCCESS},
    {"xrt_launch_host_func", hf_launch, 0, XRT_SUCCESS},
    {"xrt_get_device_count", hf_device_count, 0, XRT_SUCCESS},
    {"xrt_pointer_get_attributes", hf_attributes, 0, XRT_SUCCESS},
    {"xrt_launch_kernel", hf_kernel, 0, XRT_SUCCESS},
    {"xrt_module_get_function", hf_get_function, 0, XRT_SUCCESS},
    {"xrt_function_get_attributes", hf_function_attributes, 0, XRT_SUCCESS},
};
static const char *const hf_names[] = {
    "stream synchronize of its own stream", "stream synchronize of the NULL stream",
    "stream synchronize of another stream", "device synchronize", "memcpy (NULL stream)", "memset (NULL stream)",
    "event synchronize of an event recorded after it", "event synchronize of a never-recorded event", "free",
    "free_host", "shutdown", "memset_async on its own stream", "memcpy_async on another stream", "event record",
    "stream query of its own stream", "event query", "malloc", "free_async", "launch_host_func", "get_device_count",
    "pointer_get_attributes", "launch_kernel on another stream", "module_get_function", "function_get_attributes",
};

static struct { xrt_status st; char detail[1024]; int done; } hf_out;

static void hf_run(void *user)
{
    const hf_case *c = (const hf_case *)user;
    hf_out.st = c->call(&env);
    snprintf(hf_out.detail, sizeof hf_out.detail, "%s", xrt_get_last_error_string());
    __atomic_store_n(&hf_out.done, 1, __ATOMIC_RELEASE);
}

static int host_func_child(void *arg)
{
    const hf_case *c = (const hf_case *)arg;
    xrt_status want = (c->waits || on_gpu()) ? XRT_ERROR_NOT_PERMITTED : c->on_cpu;
    CHILD_OK(xrt_stream_create(&env.s));
    CHILD_OK(xrt_stream_create(&env.other));
    CHILD_OK(xrt_event_create(&env.after, 0));
    CHILD_OK(xrt_event_create(&env.never, 0));
    CHILD_OK(xrt_event_create(&env.mine, 0));
    CHILD_OK(xrt_malloc(&env.d, 4096));
    CHILD_OK(xrt_malloc(&env.d2, 4096));
    CHILD_OK(xrt_malloc_host(&env.pinned, 4096));
    CHILD_OK(xrt_memset(env.d, 0, 4096));
    if (!on_gpu()) { /* built privately: nothing left in the user's cache */
        static const char src[] = "void k(const void *c, void *a) { (void)c; **(unsigned char **)a = 9; }\n";
        xrt_module_image im = {XRT_IMAGE_CPU_C_SOURCE, src, sizeof src - 1, NULL};
        setenv("XRT_CACHE", "0", 1);
        CHILD_OK(xrt_module_load(&env.mod, &im, 1, NULL));
        CHILD_OK(xrt_module_get_function(&env.fn, env.mod, "k"));
    }
    /* the gate holds the stream until the record behind the host function is queued */
    CHILD_OK(xrt_launch_host_func(env.s, gate_wait, &gates[0]));
    CHILD_OK(xrt_launch_host_func(env.s, hf_run, (void *)(uintptr_t)c));
    CHILD_OK(xrt_event_record(env.after, env.s)); /* completes after the host function */
    gate_open(&gates[0]);
    if (!wait_flag(&hf_out.done, 2000))
        CHILD_FAIL("%s from inside a host function did not return within 2 s (a hang)", c->fn);
    if (hf_out.st != want)
        CHILD_FAIL("%s from inside a host function returned %s (\"%s\"), expected %s", c->fn, xrt_status_string(hf_out.st),
                   hf_out.st == XRT_SUCCESS ? "" : hf_out.detail, xrt_status_string(want));
    if (want == XRT_ERROR_NOT_PERMITTED && !strstr(hf_out.detail, c->fn))
        CHILD_FAIL("the detail \"%s\" does not name %s", hf_out.detail, c->fn);
    /* the stream and xrt carry on */
    CHILD_OK(xrt_stream_synchronize(env.s));
    CHILD_OK(xrt_event_synchronize(env.after));
    child_stream_works(env.s, 0x3c);
    child_stream_works(NULL, 0x3d);
    if (c->call == hf_memset_async) {
        unsigned char b[64];
        int i;
        CHILD_OK(xrt_memcpy(b, env.d, 64, XRT_MEMCPY_DEVICE_TO_HOST));
        for (i = 0; i < 64; i++)
            if (b[i] != 7) CHILD_FAIL("the memset_async from the host function did not run");
    }
    if (c->call == hf_kernel) {
        unsigned char b;
        CHILD_OK(xrt_stream_synchronize(env.other));
        CHILD_OK(xrt_memcpy(&b, env.d2, 1, XRT_MEMCPY_DEVICE_TO_HOST));
        if (b != 9) CHILD_FAIL("the kernel launched from the host function did not run");
    }
    if (env.mod) CHILD_OK(xrt_module_unload(env.mod));
    if (env.p) CHILD_OK(xrt_free(env.p));
    xrt_shutdown();
    return 0;
}

static void test_waiting_inside_host_function(void **state)
{
    child_case cases[sizeof hf_cases / sizeof hf_cases[0]];
    size_t i;
    (void)state;
    assert_int_equal(sizeof hf_names / sizeof hf_names[0], sizeof cases / sizeof cases[0]);
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cases[i].name = hf_names[i];
        cases[i].fn = host_func_child;
        cases[i].arg = &hf_cases[i];
    }
    run_cases("host function", cases, sizeof cases / sizeof cases[0], 10);
}

/* >> defect 3: fork */
/* In the child of a fork: the CPU backend works on the parent's stream and
   memory; a GPU backend refuses every call. `first` is the value the
   parent's allocation held before any work in flight. */
static void forked_child(xrt_stream s, void *d, unsigned char first, int shutdown_only)
{
    unsigned char b[64];
    xrt_stream t;
    void *p = NULL;
    int n, i;
    if (shutdown_only) {
        xrt_shutdown();
        _exit(0);
    }
    if (on_gpu()) {
        CHILD_EXPECT(xrt_stream_synchronize(s), XRT_ERROR_NOT_PERMITTED);
        CHILD_TRUE(strstr(xrt_get_last_error_string(), "fork") != NULL);
        CHILD_EXPECT(xrt_malloc(&p, 64), XRT_ERROR_NOT_PERMITTED);
        CHILD_EXPECT(xrt_get_device_count(&n), XRT_ERROR_NOT_PERMITTED);
        CHILD_EXPECT(xrt_free(d), XRT_ERROR_NOT_PERMITTED);
        xrt_shutdown();
        _exit(0);
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
    _exit(0);
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

static void test_fork_parent_idle(void **state) { (void)state; fork_case(0, 0); }
static void test_fork_work_in_flight(void **state) { (void)state; fork_case(1, 0); }
static void test_fork_shutdown_in_child_parent_idle(void **state) { (void)state; fork_case(0, 1); }
static void test_fork_shutdown_in_child_work_in_flight(void **state) { (void)state; fork_case(1, 1); }

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
        void *p = NULL;
        int n;
        xrt_pointer_get_attributes(&a, d0);
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
    void *p = NULL;
    child_step("xrt_malloc in a child forked while another thread was in xrt");
    if (on_gpu()) {
        CHILD_EXPECT(xrt_malloc(&p, 64), XRT_ERROR_NOT_PERMITTED);
        xrt_shutdown();
        _exit(0);
    }
    CHILD_OK(xrt_malloc(&p, 64));
    CHILD_OK(xrt_free(p));
    CHILD_EXPECT(xrt_malloc(&p, 0), XRT_ERROR_INVALID_VALUE);
    CHILD_OK(xrt_stream_create(&s));
    child_stream_works(s, 0x51);
    CHILD_OK(xrt_stream_destroy(s));
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

/* >> defect 5: destroy racing with use */
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

/* >> defect 6: two threads destroying one handle */
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
    int rounds = arg ? 10000 : 200000, r, i, j; /* or 1.5 s, whichever ends first */
    double end = now_ms(CLOCK_MONOTONIC) + 1500.0;
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

/* >> defect 7: a log callback that calls xrt */
static __thread int cb_depth;
static struct { int calls; xrt_status failing, count, backends; } cb;

static void calling_callback(xrt_log_level level, const char *msg, void *user)
{
    int n;
    void *p;
    (void)level, (void)msg;
    if (cb_depth) return; /* its own failing call logs too */
    cb_depth++;
    __atomic_add_fetch(&cb.calls, 1, __ATOMIC_ACQ_REL);
    if (user) cb.failing = xrt_malloc(&p, 0);
    cb.count = xrt_get_device_count(&n);
    cb.backends = xrt_backend_count(&n);
    cb_depth--;
}

static xrt_status watched_status;
static void *do_failing_malloc(void *arg)
{
    void *p;
    (void)arg;
    watched_status = xrt_malloc(&p, 0);
    return NULL;
}
static void *do_init(void *arg)
{
    (void)arg;
    watched_status = xrt_init();
    return NULL;
}
static void *do_set_unknown_backend(void *arg)
{
    (void)arg;
    watched_status = xrt_set_backend("nosuch");
    return NULL;
}

static xrt_status broken_init(const xrt_backend *self, char *reason, size_t n)
{
    (void)self;
    snprintf(reason, n, "no widget found");
    return XRT_ERROR_NO_DEVICE;
}
static int broken_index;
static void *do_probe(void *arg)
{
    xrt_backend_info info;
    (void)arg;
    watched_status = xrt_backend_get_info(broken_index, &info);
    if (watched_status == XRT_SUCCESS && info.available) watched_status = XRT_ERROR_BACKEND;
    return NULL;
}

static int log_error_child(void *arg)
{
    (void)arg;
    memset(&cb, 0, sizeof cb);
    xrt_set_log_callback(calling_callback, &cb);
    if (!finishes_within(3000, NULL, do_failing_malloc, NULL))
        CHILD_FAIL("a failing xrt_malloc deadlocks when the log callback makes a failing xrt call");
    CHILD_EXPECT(watched_status, XRT_ERROR_INVALID_VALUE);
    CHILD_TRUE(cb.calls >= 1);
    CHILD_EXPECT(cb.failing, XRT_ERROR_INVALID_VALUE);
    CHILD_EXPECT(cb.count, XRT_SUCCESS);
    CHILD_EXPECT(cb.backends, XRT_SUCCESS);
    if (!finishes_within(3000, NULL, do_set_unknown_backend, NULL))
        CHILD_FAIL("xrt_set_backend(\"nosuch\") deadlocks when the log callback calls xrt");
    CHILD_EXPECT(watched_status, XRT_ERROR_NOT_FOUND);
    xrt_set_log_callback(NULL, NULL);
    xrt_shutdown();
    return 0;
}

static int log_init_child(void *arg)
{
    (void)arg;
    memset(&cb, 0, sizeof cb);
    xrt_shutdown();
    unsetenv("XRT_LOG");
    xrt_set_log_level(XRT_LOG_ENV); /* XRT_LOG decides again (earlier tests set a level) */
    setenv("XRT_LOG", "loud", 1);   /* xrt_init warns about it */
    xrt_set_log_callback(calling_callback, NULL);
    if (!finishes_within(3000, XRT_TEST_DEFAULT, do_init, NULL))
        CHILD_FAIL("xrt_init deadlocks when the log callback (called for a bad XRT_LOG) calls xrt_get_device_count");
    CHILD_TRUE(cb.calls >= 1);
    CHILD_OK(watched_status);
    unsetenv("XRT_LOG");
    xrt_set_log_callback(NULL, NULL);
    xrt_shutdown();
    return 0;
}

static int log_probe_child(void *arg)
{
    static xrt_backend broken;
    (void)arg;
    memset(&cb, 0, sizeof cb);
    memset(&broken, 0, sizeof broken);
    broken.abi_version = XRT_BACKEND_ABI_VERSION;
    broken.size = sizeof broken;
    broken.name = "broken";
    broken.init = broken_init;
    CHILD_OK(xrt_register_backend(&broken));
    CHILD_OK(xrt_backend_count(&broken_index));
    broken_index--;
    xrt_set_log_level(XRT_LOG_DEBUG); /* the probe logs at info */
    xrt_set_log_callback(calling_callback, NULL);
    if (!finishes_within(3000, NULL, do_probe, NULL))
        CHILD_FAIL("probing a backend deadlocks when the log callback (called for its info line) calls xrt_backend_count");
    CHILD_OK(watched_status);
    CHILD_TRUE(cb.calls >= 1);
    CHILD_OK(cb.count);
    CHILD_OK(cb.backends);
    xrt_set_log_callback(NULL, NULL);
    xrt_set_log_level(XRT_LOG_WARN);
    xrt_shutdown();
    return 0;
}

static void test_log_callback_calls_xrt(void **state)
{
    static const child_case cases[] = {
        {"error logging; the callback makes a failing call, xrt_get_device_count, xrt_backend_count", log_error_child, NULL},
        {"init logging (bad XRT_LOG); the callback calls xrt_get_device_count, xrt_backend_count", log_init_child, NULL},
        {"probe logging (info); the callback calls xrt_get_device_count, xrt_backend_count", log_probe_child, NULL},
    };
    (void)state;
    run_cases("log callback", cases, sizeof cases / sizeof cases[0], 10);
}

/* >> defect 8: xrt_shutdown behind a host function that calls xrt */
static struct { xrt_status attr, count, devices, stale, alloc; int shutting_down, done; xrt_stream stale_s; void *d, *p; } sh;

static void calls_during_shutdown(void *user)
{
    xrt_pointer_attributes a;
    int n;
    (void)user;
    wait_flag(&sh.shutting_down, 3000);
    sleep_ms(100); /* xrt_shutdown is waiting meanwhile */
    sh.attr = xrt_pointer_get_attributes(&a, sh.d);
    sh.count = xrt_backend_count(&n);
    sh.devices = xrt_get_device_count(&n);
    sh.stale = xrt_stream_query(sh.stale_s);
    sh.alloc = xrt_malloc(&sh.p, 64); /* xrt_shutdown frees it */
    __atomic_store_n(&sh.done, 1, __ATOMIC_RELEASE);
}

static void *do_shutdown(void *arg)
{
    (void)arg;
    __atomic_store_n(&sh.shutting_down, 1, __ATOMIC_RELEASE);
    xrt_shutdown();
    return NULL;
}

static int shutdown_behind_host_func_child(void *arg)
{
    xrt_status want = on_gpu() ? XRT_ERROR_NOT_PERMITTED : XRT_SUCCESS;
    xrt_stream s;
    (void)arg;
    memset(&sh, 0, sizeof sh);
    xrt_set_log_level(XRT_LOG_NONE);
    CHILD_OK(xrt_stream_create(&sh.stale_s));
    CHILD_OK(xrt_stream_destroy(sh.stale_s));
    CHILD_OK(xrt_malloc(&sh.d, 64));
    CHILD_OK(xrt_stream_create(&s));
    CHILD_OK(xrt_launch_host_func(s, calls_during_shutdown, NULL));
    if (!finishes_within(5000, NULL, do_shutdown, NULL))
        CHILD_FAIL("xrt_shutdown deadlocks behind a host function that makes non-waiting xrt calls (host function %s)",
                   sh.done ? "returned" : "did not return");
    CHILD_TRUE(sh.done);
    CHILD_EXPECT(sh.attr, want);
    CHILD_EXPECT(sh.count, want);
    CHILD_EXPECT(sh.devices, want);
    CHILD_EXPECT(sh.stale, on_gpu() ? XRT_ERROR_NOT_PERMITTED : XRT_ERROR_INVALID_HANDLE);
    CHILD_EXPECT(sh.alloc, want);
    /* and xrt starts again */
    CHILD_OK(xrt_init());
    CHILD_OK(xrt_stream_create(&s));
    child_stream_works(s, 0x61);
    CHILD_OK(xrt_stream_destroy(s));
    xrt_shutdown();
    return 0;
}

static void test_shutdown_behind_host_function(void **state)
{
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    in_child("xrt_shutdown while a host function calls xrt", shutdown_behind_host_func_child, NULL, 15);
}

/* >> defect 9: an error detail longer than the per-thread buffer */
enum { LONG_NAME = 600 };
static char long_name[LONG_NAME + 1], long_unknown[LONG_NAME + 101];

static xrt_status long_init(const xrt_backend *self, char *reason, size_t n)
{
    (void)self, (void)reason, (void)n;
    return XRT_SUCCESS;
}
static xrt_status long_get_device(const xrt_backend *self, int *device)
{
    (void)self;
    *device = 0;
    return XRT_SUCCESS;
}
static xrt_status long_malloc(const xrt_backend *self, void **p, size_t n)
{
    (void)self, (void)p, (void)n;
    return xrt_native_error(XRT_ERROR_OUT_OF_MEMORY, long_name, "long_malloc", 2, "LONG_ERROR_MEMORY", "no memory left");
}
static xrt_status long_get_device_count(const xrt_backend *self, int *count)
{
    char who[LONG_NAME + 64];
    (void)self, (void)count;
    snprintf(who, sizeof who, "%s: xrt_get_device_count", long_name);
    return xrt_error(XRT_ERROR_BACKEND, who, "%s", "a failure with a long caller name");
}

/* After each failure: the detail is a sane string, and the thread's memory
   around it is intact (printf, a new thread, another call). */
static void *long_thread(void *arg)
{
    void *p;
    (void)arg;
    return (void *)(uintptr_t)xrt_malloc(&p, 64);
}

static void detail_is_sane(const char *what)
{
    const char *d = xrt_get_last_error_string();
    pthread_t t;
    void *ret = NULL;
    CHILD_TRUE(strlen(d) < 4096);
    {
    FILE *null = fopen("/dev/null", "w");
    CHILD_TRUE(null != NULL);
    fprintf(null, "after %s: the detail has %zu characters\n", what, strlen(d)); /* stdio takes the thread's lock */
    fclose(null);
    }
    CHILD_OK(xrt_get_device(&(int){0})); /* the thread's backend choice is intact */
    child_step(what);
    if (start_thread(&t, long_name, long_thread, NULL) != 0) CHILD_FAIL("pthread_create after %s", what);
    pthread_join(t, &ret);
    CHILD_TRUE((xrt_status)(uintptr_t)ret == XRT_ERROR_OUT_OF_MEMORY);
}

static int long_detail_child(void *arg)
{
    static xrt_backend table;
    const char *group = (const char *)arg;
    xrt_stream s;
    void *p;
    int n;
    memset(long_name, 'n', LONG_NAME);
    memset(long_unknown, 'u', sizeof long_unknown - 1);
    memset(&table, 0, sizeof table);
    table.abi_version = XRT_BACKEND_ABI_VERSION;
    table.size = sizeof table;
    table.name = long_name;
    table.init = long_init;
    table.get_device = long_get_device;
    table.malloc = long_malloc;
    table.get_device_count = long_get_device_count;
    xrt_set_log_callback(NULL, NULL); /* the stderr logger formats the line too */
    CHILD_OK(xrt_stream_create(&s)); /* on the group's backend */
    CHILD_OK(xrt_register_backend(&table));
    CHILD_OK(xrt_set_backend(long_name));
    CHILD_EXPECT(xrt_malloc(&p, 64), XRT_ERROR_OUT_OF_MEMORY);
    CHILD_TRUE(strncmp(xrt_get_last_error_string(), long_name, 32) == 0);
    detail_is_sane("a native error of a backend with a 600-character name");
    CHILD_EXPECT(xrt_get_device_count(&n), XRT_ERROR_BACKEND);
    detail_is_sane("an error whose caller is 600 characters long");
    CHILD_EXPECT(xrt_stream_create(&s), XRT_ERROR_UNSUPPORTED);
    detail_is_sane("an unsupported call on a backend with a 600-character name");
    CHILD_OK(xrt_set_backend(group));
    CHILD_OK(xrt_stream_create(&s));
    CHILD_OK(xrt_set_backend(long_name));
    CHILD_EXPECT(xrt_stream_query(s), XRT_ERROR_INVALID_HANDLE);
    detail_is_sane("a foreign stream used from a backend with a 600-character name");
    CHILD_EXPECT(xrt_set_backend(long_unknown), XRT_ERROR_NOT_FOUND);
    detail_is_sane("xrt_set_backend of an unknown 700-character name");
    CHILD_EXPECT(xrt_register_backend(&table), XRT_ERROR_ALREADY_EXISTS);
    detail_is_sane("registering a 600-character name twice");
    /* where the overrun lands depends on the length: a backend's own errors
       with caller names of every length around the buffer's */
    xrt_test_log_capture();
    for (n = 480; n <= LONG_NAME; n += 4) {
        char who[LONG_NAME + 1];
        memset(who, 'w', (size_t)n);
        who[n] = 0;
        CHILD_EXPECT(xrt_native_error(XRT_ERROR_BACKEND, who, "native_call", 7, "NATIVE_CODE", "native message"),
                     XRT_ERROR_BACKEND);
        detail_is_sane("xrt_native_error with a long backend name");
    }
    CHILD_OK(xrt_set_backend(group));
    xrt_shutdown();
    return 0;
}

static void test_error_detail_longer_than_its_buffer(void **state)
{
    (void)state;
    in_child("a 600-character backend name in error details", long_detail_child, (void *)xrt_test_backend, 10);
}

/* >> defect 10: the smaller ones */
/* xrt_log with a level outside the enum: nothing read outside the level names
   (ASan sees it), and whatever is printed names a real level. */
static int log_level_child(void *arg)
{
    static const char *const names[] = {"none", "error", "warn", "info", "debug"};
    char line[512];
    FILE *f = tmpfile();
    int saved = dup(2), i;
    (void)arg;
    CHILD_TRUE(f != NULL && saved >= 0);
    xrt_set_log_callback(NULL, NULL);
    xrt_set_log_level(XRT_LOG_DEBUG);
    fflush(stderr);
    dup2(fileno(f), 2);
    xrt_log((xrt_log_level)-1, "level minus one");
    xrt_log((xrt_log_level)INT_MIN, "level INT_MIN");
    xrt_log((xrt_log_level)5, "level five");
    xrt_log((xrt_log_level)INT_MAX, "level INT_MAX");
    fflush(stderr);
    dup2(saved, 2);
    rewind(f);
    while (fgets(line, sizeof line, f)) {
        int known = 0;
        for (i = 0; i < 5; i++) {
            char want[32];
            snprintf(want, sizeof want, "xrt: %s: ", names[i]);
            known |= strncmp(line, want, strlen(want)) == 0;
        }
        if (!known) CHILD_FAIL("xrt_log with a bad level printed \"%s\"", line);
    }
    fclose(f);
    xrt_set_log_level(XRT_LOG_WARN);
    xrt_shutdown();
    return 0;
}

/* xrt_set_log_level wins over XRT_LOG, also across xrt_shutdown + xrt_init
   and when it is called before the first xrt_init. */
static int log_level_kept_child(void *arg)
{
    void *p;
    (void)arg;
    xrt_test_log_capture();
    unsetenv("XRT_LOG");
    xrt_set_log_level(XRT_LOG_ENV); /* from XRT_LOG, as in a fresh process */
    setenv("XRT_LOG", "error", 1);
    xrt_shutdown();
    CHILD_OK(xrt_init());
    xrt_set_log_level(XRT_LOG_NONE);
    CHILD_EXPECT(xrt_malloc(&p, 0), XRT_ERROR_INVALID_VALUE);
    CHILD_TRUE(xrt_test_log.count == 0);
    CHILD_OK(xrt_init());
    CHILD_EXPECT(xrt_malloc(&p, 0), XRT_ERROR_INVALID_VALUE);
    if (xrt_test_log.count) CHILD_FAIL("xrt_init re-applied XRT_LOG over xrt_set_log_level");
    xrt_shutdown();
    CHILD_OK(xrt_init());
    CHILD_EXPECT(xrt_malloc(&p, 0), XRT_ERROR_INVALID_VALUE);
    if (xrt_test_log.count) CHILD_FAIL("xrt_shutdown + xrt_init re-applied XRT_LOG=error over xrt_set_log_level(NONE)");
    xrt_shutdown();
    xrt_set_log_level(XRT_LOG_NONE); /* before the next start */
    setenv("XRT_LOG", "debug", 1);
    CHILD_OK(xrt_init());
    CHILD_EXPECT(xrt_malloc(&p, 0), XRT_ERROR_INVALID_VALUE);
    if (xrt_test_log.count) CHILD_FAIL("xrt_init applied XRT_LOG=debug over an earlier xrt_set_log_level(NONE)");
    unsetenv("XRT_LOG");
    xrt_shutdown();
    return 0;
}

/* XRT_LOG='' is unset: no warning, the default level. */
static int log_empty_child(void *arg)
{
    void *p;
    (void)arg;
    xrt_test_log_capture();
    unsetenv("XRT_LOG");
    xrt_set_log_level(XRT_LOG_ENV); /* from XRT_LOG, as in a fresh process */
    setenv("XRT_LOG", "", 1);
    xrt_shutdown();
    CHILD_OK(xrt_init());
    if (xrt_test_log.count) CHILD_FAIL("XRT_LOG='' logged \"%s\"", xrt_test_log.last);
    CHILD_EXPECT(xrt_malloc(&p, 0), XRT_ERROR_INVALID_VALUE);
    CHILD_TRUE(xrt_test_log.count == 1 && xrt_test_log.level == XRT_LOG_ERROR); /* the default, warn, logs errors */
    unsetenv("XRT_LOG");
    xrt_shutdown();
    return 0;
}

/* XRT_BACKEND entries are trimmed of spaces and matched case-insensitively. */
static const char *const backend_lists[] = {"CPU", "Cpu", " cpu", "cpu ", " cpu ", "cuda, cpu", "cuda , CPU", "HIP,cpu",
                                            " cuda , hip , cpu ", ", cpu", "cpu,,hip", ",cpu,"};

static int backend_list_child(void *arg)
{
    const char *list = (const char *)arg, *name = NULL, *expect = NULL;
    char copy[64], *tok, *save = NULL;
    xrt_status st;
    xrt_set_log_level(XRT_LOG_NONE);
    setenv("XRT_BACKEND", list, 1);
    xrt_shutdown();
    st = xrt_init();
    snprintf(copy, sizeof copy, "%s", list);
    for (tok = strtok_r(copy, ",", &save); tok && !expect; tok = strtok_r(NULL, ",", &save)) {
        char word[16];
        size_t i = 0;
        xrt_backend_info info;
        int n = 0, k;
        while (*tok == ' ') tok++;
        while (*tok && *tok != ' ' && i < sizeof word - 1) word[i++] = (char)(*tok >= 'A' && *tok <= 'Z' ? *tok + 32 : *tok), tok++;
        word[i] = 0;
        CHILD_OK(xrt_backend_count(&n));
        for (k = 0; k < n; k++) {
            CHILD_OK(xrt_backend_get_info(k, &info));
            if (strcmp(info.name, word) == 0 && info.available) expect = info.name;
        }
    }
    CHILD_TRUE(expect != NULL);
    if (st != XRT_SUCCESS) CHILD_FAIL("XRT_BACKEND=\"%s\": xrt_init -> %s (\"%s\"), expected %s", list, xrt_status_string(st),
                                      xrt_get_last_error_string(), expect);
    CHILD_OK(xrt_get_backend(&name));
    if (strcmp(name, expect) != 0) CHILD_FAIL("XRT_BACKEND=\"%s\" selects %s, expected %s", list, name, expect);
    unsetenv("XRT_BACKEND");
    xrt_shutdown();
    return 0;
}

/* Registering the backend that XRT_BACKEND names: no spurious "unknown
   backend" error, and another thread's xrt_set_backend choice stays. */
static xrt_status mine_init(const xrt_backend *self, char *reason, size_t n)
{
    (void)self, (void)reason, (void)n;
    return XRT_SUCCESS;
}
static int chooser_ready, chooser_go;
static const char *chooser_after;

static void *chooser(void *arg)
{
    (void)arg;
    __atomic_store_n(&chooser_ready, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&chooser_go, __ATOMIC_ACQUIRE)) sleep_ms(1);
    if (xrt_get_backend(&chooser_after) != XRT_SUCCESS) chooser_after = NULL;
    return NULL;
}

static int register_named_child(void *arg)
{
    static xrt_backend mine;
    const char *group = (const char *)arg, *name = NULL;
    pthread_t t;
    memset(&mine, 0, sizeof mine);
    mine.abi_version = XRT_BACKEND_ABI_VERSION;
    mine.size = sizeof mine;
    mine.name = "mine";
    mine.init = mine_init;
    setenv("XRT_BACKEND", "mine", 1);
    xrt_shutdown();
    if (start_thread(&t, group, chooser, NULL) != 0) CHILD_FAIL("pthread_create");
    if (!wait_flag(&chooser_ready, 3000)) CHILD_FAIL("the thread could not select %s", group);
    xrt_test_log_capture();
    CHILD_OK(xrt_register_backend(&mine));
    if (xrt_test_log.count)
        CHILD_FAIL("registering the backend XRT_BACKEND names logged \"%s\"", xrt_test_log.last);
    CHILD_OK(xrt_get_backend(&name));
    CHILD_TRUE(strcmp(name, "mine") == 0);
    __atomic_store_n(&chooser_go, 1, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
    if (!chooser_after || strcmp(chooser_after, group) != 0)
        CHILD_FAIL("registering a backend dropped another thread's xrt_set_backend(\"%s\"): it now uses %s", group,
                   chooser_after ? chooser_after : "none");
    unsetenv("XRT_BACKEND");
    xrt_shutdown();
    return 0;
}

static void test_smaller_ones(void **state)
{
    child_case cases[5 + sizeof backend_lists / sizeof backend_lists[0]];
    char names[sizeof cases / sizeof cases[0]][64];
    size_t i, n = 0;
    (void)state;
    cases[n++] = (child_case){"xrt_log with levels outside the enum", log_level_child, NULL};
    cases[n++] = (child_case){"xrt_set_log_level survives xrt_init and XRT_LOG", log_level_kept_child, NULL};
    cases[n++] = (child_case){"XRT_LOG='' means unset", log_empty_child, NULL};
    cases[n++] = (child_case){"registering the backend XRT_BACKEND names", register_named_child, xrt_test_backend};
    for (i = 0; i < sizeof backend_lists / sizeof backend_lists[0]; i++) {
        snprintf(names[n], sizeof names[n], "XRT_BACKEND=\"%s\"", backend_lists[i]);
        cases[n] = (child_case){names[n], backend_list_child, backend_lists[i]};
        n++;
    }
    run_cases("smaller", cases, n, 10);
}

/* >> thread exit: per-thread state is released when a thread exits */
#ifdef XRT_TEST_ASAN
size_t __sanitizer_get_current_allocated_bytes(void);
#endif
#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define XRT_TEST_VALGRIND 1
#endif
#endif

/* Bytes the program has allocated and not freed. */
static size_t heap_in_use(void)
{
#ifdef XRT_TEST_ASAN
    return __sanitizer_get_current_allocated_bytes();
#else
#ifdef XRT_TEST_VALGRIND
    if (RUNNING_ON_VALGRIND) {
        unsigned long leaked = 0, dubious = 0, reachable = 0, suppressed = 0;
        VALGRIND_DO_QUICK_LEAK_CHECK;
        VALGRIND_COUNT_LEAKS(leaked, dubious, reachable, suppressed);
        return leaked + dubious + reachable + suppressed;
    }
#endif
    {
        struct mallinfo2 m = mallinfo2();
        return m.uordblks + m.hblkhd;
    }
#endif
}

static long rss_kib(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
        fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static void *one_call(void *arg)
{
    void *p;
    int n;
    switch ((uintptr_t)arg % 4) {
    case 0: return (void *)(uintptr_t)xrt_get_device_count(&n);
    case 1: xrt_malloc(&p, 0); return (void *)(uintptr_t)(xrt_get_last_error() != XRT_ERROR_INVALID_VALUE);
    case 2: return (void *)(uintptr_t)xrt_stream_query(NULL);
    default: return (void *)(uintptr_t)xrt_get_device(&n);
    }
}

/* In batches of 8 threads at a time; one at a time under valgrind, which
   runs one thread at a time and hands over slowly. */
static int short_lived_threads(int count)
{
    int i, j, bad = 0, batch = xrt_test_slowdown() > 1 ? 1 : 8;
    for (i = 0; i < count; i += batch) {
        pthread_t t[8];
        for (j = 0; j < batch; j++) assert_int_equal(start_thread(&t[j], NULL, one_call, (void *)(uintptr_t)(i + j)), 0);
        for (j = 0; j < batch; j++) {
            void *ret = NULL;
            assert_int_equal(pthread_join(t[j], &ret), 0);
            bad += ret != NULL;
        }
    }
    return bad;
}

static void test_thread_exit_releases_state(void **state)
{
    enum { THREADS = 10000 };
    size_t heap0, heap1;
    long rss0, rss1;
    double t0;
    (void)state;
    xrt_set_log_level(XRT_LOG_NONE); /* every fourth thread fails a call on purpose */
    assert_int_equal(short_lived_threads(256), 0); /* thread stacks, malloc arenas */
    heap0 = heap_in_use();
    rss0 = rss_kib();
    t0 = now_ms(CLOCK_MONOTONIC);
    assert_int_equal(short_lived_threads(THREADS), 0);
    heap1 = heap_in_use();
    rss1 = rss_kib();
    xrt_set_log_level(XRT_LOG_WARN);
    print_message("%d threads in %.0f ms: heap in use %zu -> %zu bytes, RSS %ld -> %ld KiB\n", THREADS,
                  now_ms(CLOCK_MONOTONIC) - t0, heap0, heap1, rss0, rss1);
    /* 32 KiB: a per-thread leak of even 4 bytes would be 40 KB */
    if (heap1 > heap0 + 32 * 1024)
        fail_msg("%d short-lived threads left %zu bytes allocated", THREADS, heap1 - heap0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_not_permitted_status),
        cmocka_unit_test(test_size_overflow),
        cmocka_unit_test(test_waiting_inside_host_function),
        gated_test(test_fork_parent_idle),
        gated_test(test_fork_work_in_flight),
        gated_test(test_fork_shutdown_in_child_parent_idle),
        gated_test(test_fork_shutdown_in_child_work_in_flight),
        cmocka_unit_test(test_fork_while_another_thread_calls),
        cmocka_unit_test(test_destroy_event_racing_with_use),
        cmocka_unit_test(test_destroy_stream_racing_with_use),
        cmocka_unit_test(test_double_destroy_event),
        cmocka_unit_test(test_double_destroy_stream),
        cmocka_unit_test(test_log_callback_calls_xrt),
        cmocka_unit_test(test_shutdown_behind_host_function),
        cmocka_unit_test(test_error_detail_longer_than_its_buffer),
        cmocka_unit_test(test_smaller_ones),
        cmocka_unit_test(test_thread_exit_releases_state),
    };
    return xrt_test_run_on_backends("reliability", tests, sizeof tests / sizeof tests[0], NULL);
}
