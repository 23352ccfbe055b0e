/* SPDX-License-Identifier: MIT */
/* Allocation-failure injection. xrt routes every allocation of its own (the
   core's tables and records, the backends' objects, the CPU backend's pinned
   host memory; its device memory is a memory file's mapping)
   through XRT_MALLOC, XRT_CALLOC, XRT_REALLOC, XRT_ALIGNED_ALLOC and XRT_FREE, which a program
   may define before it includes xrt.h in its XRT_IMPL unit (as stb does).
   This program defines them to a counting allocator that fails the Nth call,
   and runs a representative scenario (init, allocations, streams, events,
   copies, frees, shutdown) for every N up to the number of allocations it
   makes, twice: with one failure at the Nth call, and with every call
   from the Nth on failing. Each N runs in a forked child, so a crash fails
   that N. For each: every call returns XRT_SUCCESS or XRT_ERROR_OUT_OF_MEMORY
   (a failed allocation leaves *ptr NULL and a detail naming the call),
   nothing xrt allocated is left after xrt_shutdown (for every N; a cold
   round keeps what one without failures keeps: the handle table's chunks,
   made once per process), and once allocations
   succeed again xrt works (at once if xrt_init had succeeded, else after
   xrt_shutdown). Under ASan and valgrind (make test) the same runs also check
   every access. The scenario includes RDMA registration (xrt_rdma.h's
   cache, references and free hook) on the test double of libibverbs
   (tests/doubles/fake_verbs.h), which needs no RDMA device. */
#define _GNU_SOURCE /* before any header: xrt.h comes after the allocator */
#include <stddef.h>
#include <stdlib.h>

/* >> the counting allocator */
static struct {
    long calls;     /* allocation calls while counting */
    long fail_at;   /* the call that fails (1-based); 0: none */
    int persistent; /* every call from fail_at on fails */
    int counting;
    long failed;    /* calls that were made to fail */
    long live;      /* blocks from these functions not yet freed */
} oom;

/* Returns 1 if this allocation call must fail. */
static inline int oom_fail_now(void)
{
    long n;
    if (!__atomic_load_n(&oom.counting, __ATOMIC_ACQUIRE)) return 0;
    n = __atomic_add_fetch(&oom.calls, 1, __ATOMIC_ACQ_REL);
    if (!oom.fail_at || n < oom.fail_at || (n > oom.fail_at && !oom.persistent)) return 0;
    __atomic_add_fetch(&oom.failed, 1, __ATOMIC_ACQ_REL);
    return 1;
}

static inline void *oom_malloc(size_t size)
{
    void *p = oom_fail_now() ? NULL : malloc(size);
    if (p) __atomic_add_fetch(&oom.live, 1, __ATOMIC_ACQ_REL);
    return p;
}

static inline void *oom_calloc(size_t n, size_t size)
{
    void *p = oom_fail_now() ? NULL : calloc(n, size);
    if (p) __atomic_add_fetch(&oom.live, 1, __ATOMIC_ACQ_REL);
    return p;
}

static inline void *oom_aligned_alloc(size_t align, size_t size)
{
    void *p = oom_fail_now() ? NULL : aligned_alloc(align, size);
    if (p) __atomic_add_fetch(&oom.live, 1, __ATOMIC_ACQ_REL);
    return p;
}

static inline void *oom_realloc(void *old, size_t size)
{
    void *p;
    if (!old) return oom_malloc(size);
    if (oom_fail_now()) return NULL;
    p = realloc(old, size);
    return p;
}

static inline void oom_free(void *p)
{
    if (p) __atomic_sub_fetch(&oom.live, 1, __ATOMIC_ACQ_REL);
    free(p);
}

#define XRT_MALLOC(size) oom_malloc(size)
#define XRT_CALLOC(n, size) oom_calloc(n, size)
#define XRT_REALLOC(p, size) oom_realloc(p, size)
#define XRT_ALIGNED_ALLOC(align, size) oom_aligned_alloc(align, size)
#define XRT_FREE(p) oom_free(p)
#define XRT_ENABLE_RDMA
#define XRT_IMPL /* white-box: its own allocator; the RDMA contexts */
#include "xrt_test.h"
#include "xrt_rdma.h"
#include "doubles/fake_verbs.h"

/* What a child tells its parent (child_report): the allocation calls it
   counted, how many it made fail, and that the scenario ran to its end;
   then, at its end, a second report with `kept`: the blocks left after its
   last xrt_shutdown (the process-wide state a cold round creates). */
typedef struct report { long calls; long failed; int done; long kept; } report;
static report rep;

static void arm(long fail_at, int persistent)
{
    oom.calls = oom.failed = 0;
    oom.fail_at = fail_at;
    oom.persistent = persistent;
    __atomic_store_n(&oom.counting, 1, __ATOMIC_RELEASE);
}

static void disarm(void)
{
    __atomic_store_n(&oom.counting, 0, __ATOMIC_RELEASE);
    rep.calls = oom.calls;
    rep.failed = oom.failed;
    rep.done = 1;
    child_report(&rep, sizeof rep);
}

/* >> the scenario */
/* A call under injection: success or out of memory, and a failure names the
   call. Evaluates to 1 on success. */
#define TRY(call, fn) try_call((call), #call, fn)

static int try_call(xrt_status st, const char *call, const char *fn)
{
    if (st == XRT_SUCCESS) return 1;
    if (st != XRT_ERROR_OUT_OF_MEMORY)
        CHILD_FAIL("allocation %ld of %ld failed: %s -> %s (\"%s\"), expected success or out of memory", oom.fail_at,
                   oom.calls, call, xrt_status_string(st), xrt_get_last_error_string());
    if (!strstr(xrt_get_last_error_string(), fn))
        CHILD_FAIL("%s -> out of memory, but the detail \"%s\" does not name %s", call, xrt_get_last_error_string(), fn);
    return 0;
}

/* An allocation under injection: on failure the out-pointer is NULL. */
#define TRY_ALLOC(call, p, fn) try_alloc((call), &(p), #call, fn)

static int try_alloc(xrt_status st, void **p, const char *call, const char *fn)
{
    if (try_call(st, call, fn)) return 1;
    if (*p) CHILD_FAIL("%s failed but left %p in its out-pointer", call, *p);
    return 0;
}

static int host_calls;

/* >> RDMA on the test double: a context, a miss, a hit, a private
   registration of memory xrt did not allocate; `held` stays referenced
   until the buffer is freed (the free hook deregisters it). */
#define RW (XRT_RDMA_LOCAL_WRITE | XRT_RDMA_REMOTE_WRITE | XRT_RDMA_REMOTE_READ)
typedef struct rdma_state { xrt_rdma_ctx ctx; xrt_rdma_reg held; int ok_ctx, ok_held; } rdma_state;

static int try_reg(xrt_status st, xrt_rdma_reg *r, const char *call)
{
    if (try_call(st, call, "xrt_rdma_register")) return 1;
    if (r->opaque || r->mr) CHILD_FAIL("%s failed but left a registration", call);
    return 0;
}

static void rdma_steps(rdma_state *rs, void *buf, size_t n)
{
    static char foreign[512];
    xrt_rdma_reg a, p;
    memset(rs, 0, sizeof *rs);
    if (!(rs->ok_ctx = TRY(fake_open(&rs->ctx), "xrt_rdma_open_pd"))) return;
    if (!buf) return;
    if (try_reg(xrt_rdma_register(rs->ctx, buf, n, RW, &a), &a, "register (miss)")) {
        rs->ok_held = try_reg(xrt_rdma_register(rs->ctx, (char *)buf + 64, 64, RW, &rs->held), &rs->held, "register (hit)");
        CHILD_OK(xrt_rdma_release(&a));
    }
    if (try_reg(xrt_rdma_register(rs->ctx, foreign, sizeof foreign, RW, &p), &p, "register (private)"))
        CHILD_OK(xrt_rdma_release(&p));
}

static void rdma_finish(rdma_state *rs)
{
    if (rs->ok_held) CHILD_OK(xrt_rdma_release(&rs->held)); /* its MR went with the buffer */
    if (rs->ok_ctx) CHILD_OK(fake_close(rs->ctx));
}

/* Runs the scenario; every step that depends on a failed one is left out. The
   out-pointers start non-NULL: a failed allocation must clear them.
   Returns 1 if xrt_init succeeded. */
static int scenario(const char *backend)
{
    enum { N = 4096 };
    unsigned char *h = NULL;
    void *d = &d, *ph = &ph, *da = &da;
    xrt_stream s1 = (xrt_stream)&s1, s2 = (xrt_stream)&s2;
    xrt_event e = (xrt_event)&e;
    unsigned caps = 0;
    int ok_d, ok_ph, ok_da = 0, ok_s1, ok_s2, ok_e, inited, all = 1, i;
    rdma_state rs;
    host_calls = 0;
    inited = TRY(xrt_init(), "xrt_init");
    if (!TRY(xrt_set_backend(backend), "xrt_set_backend")) return inited;
    if (!TRY(xrt_get_capabilities(&caps), "xrt_get_capabilities")) return inited;
    ok_d = TRY_ALLOC(xrt_malloc(&d, N), d, "xrt_malloc");
    ok_ph = TRY_ALLOC(xrt_malloc_host(&ph, N), ph, "xrt_malloc_host");
    rdma_steps(&rs, ok_ph ? ph : NULL, N);
    if (caps & XRT_CAP_MALLOC_ASYNC) ok_da = TRY_ALLOC(xrt_malloc_async(&da, N, NULL), da, "xrt_malloc_async");
    ok_s1 = TRY(xrt_stream_create(&s1), "xrt_stream_create");
    ok_s2 = TRY(xrt_stream_create(&s2), "xrt_stream_create");
    ok_e = TRY(xrt_event_create(&e, 0), "xrt_event_create");
    if ((!ok_s1 && s1) || (!ok_s2 && s2)) CHILD_FAIL("xrt_stream_create failed but left a handle");
    if (!ok_e && e) CHILD_FAIL("xrt_event_create failed but left a handle");
    h = (unsigned char *)ph;
    if (ok_d && ok_s1) all &= TRY(xrt_memset_async(d, 0x2b, N, s1), "xrt_memset_async");
    else all = 0;
    if (ok_d && ok_ph && ok_s1) all &= TRY(xrt_memcpy_async(ph, d, N, XRT_MEMCPY_DEVICE_TO_HOST, s1), "xrt_memcpy_async");
    else all = 0;
    if (ok_e && ok_s1) TRY(xrt_event_record(e, s1), "xrt_event_record");
    if (ok_e && ok_s2) TRY(xrt_stream_wait_event(s2, e), "xrt_stream_wait_event");
    if (ok_s1 && (caps & XRT_CAP_HOST_FUNC)) TRY(xrt_launch_host_func(s1, count_up, &host_calls), "xrt_launch_host_func");
    if (ok_da && ok_s2) TRY(xrt_memset_async(da, 0, N, s2), "xrt_memset_async");
    if (ok_s1) all &= TRY(xrt_stream_synchronize(s1), "xrt_stream_synchronize");
    if (ok_s2) TRY(xrt_stream_synchronize(s2), "xrt_stream_synchronize");
    TRY(xrt_device_synchronize(), "xrt_device_synchronize");
    if (all && ok_ph)
        for (i = 0; i < N; i++)
            if (h[i] != 0x2b) CHILD_FAIL("allocation %ld failed: byte %d of the copy is 0x%02x", oom.fail_at, i, h[i]);
    if (ok_d) TRY(xrt_memset(d, 0x3c, N), "xrt_memset");
    if (ok_d && ok_ph) TRY(xrt_memcpy(ph, d, N, XRT_MEMCPY_DEVICE_TO_HOST), "xrt_memcpy");
    if (ok_da) TRY(xrt_free_async(da, ok_s2 ? s2 : NULL), "xrt_free_async");
    if (ok_e) TRY(xrt_event_destroy(e), "xrt_event_destroy");
    if (ok_s1) TRY(xrt_stream_destroy(s1), "xrt_stream_destroy");
    if (ok_s2) TRY(xrt_stream_destroy(s2), "xrt_stream_destroy");
    if (ok_d) TRY(xrt_free(d), "xrt_free");
    if (ok_ph) TRY(xrt_free_host(ph), "xrt_free_host");
    rdma_finish(&rs);
    return inited;
}

/* With allocations succeeding: everything works. */
static void works(const char *backend)
{
    unsigned char h[256];
    xrt_stream s;
    void *d;
    int i;
    CHILD_OK(xrt_set_backend(backend));
    CHILD_OK(xrt_malloc(&d, sizeof h));
    CHILD_OK(xrt_stream_create(&s));
    CHILD_OK(xrt_memset_async(d, 0x4d, sizeof h, s));
    CHILD_OK(xrt_memcpy_async(h, d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST, s));
    CHILD_OK(xrt_stream_synchronize(s));
    for (i = 0; i < (int)sizeof h; i++)
        if (h[i] != 0x4d) CHILD_FAIL("after the failures: byte %d is 0x%02x", i, h[i]);
    CHILD_OK(xrt_stream_destroy(s));
    CHILD_OK(xrt_free(d));
}

/* >> one N in a child */
/* kept: in a cold round, the blocks a cold round without failures leaves
   after xrt_shutdown (the handle table's chunks, which live as long as the
   process); a warm round made them before counting; -1: not checked (the
   cold probe that measures it). */
typedef struct round_args { const char *backend; long fail_at; int persistent, warm, check; long kept; } round_args;

/* Every N is checked: after the round's xrt_shutdown at most `kept` blocks
   are left (a failure may have kept xrt from making them: the handle
   table's chunks, an RDMA context slot's reference table), also once xrt
   ran again without failures (which may make them); a third clean run
   leaves exactly as many as the second (`exact`, not -1): one more is a
   leak. Returns the count left. */
static long leak_check(long before, long kept, long exact, const char *when)
{
    long left = oom.live - before, want = exact >= 0 ? exact : kept;
    if (exact >= 0 ? left != exact : left > kept)
        CHILD_FAIL("allocation %ld failed%s: %ld block(s) xrt allocated are left %s (%ld expected)", oom.fail_at,
                   oom.persistent ? " (and every one after it)" : "", left, when, want);
    return left;
}

static int round_child(void *arg)
{
    const round_args *a = (const round_args *)arg;
    long base, left;
    int inited;
    size_t races = 0;
    xrt_test_log_capture();
    xrt_set_log_level(XRT_LOG_NONE);
    if (a->check) CHILD_OK(xrt_check_enable(XRT_CHECK_STREAMS)); /* it stays on across xrt_shutdown */
    if (a->warm) { /* the handle table's chunks and the backends' first-use state, before counting */
        scenario(a->backend);
        xrt_shutdown();
    }
    base = oom.live;
    arm(a->fail_at, a->persistent);
    inited = scenario(a->backend);
    disarm();
    if (a->check && (xrt_check_race_count(&races), races))
        CHILD_FAIL("allocation %ld failed%s: the checker reported %zu race(s) the scenario does not have", oom.fail_at,
                   oom.persistent ? " (and every one after it)" : "", races);
    if (inited) works(a->backend); /* at once: a failure poisoned nothing */
    xrt_shutdown();
    if (a->kept >= 0) leak_check(base, a->kept, -1, "after xrt_shutdown");
    CHILD_OK(xrt_init());
    works(a->backend);
    xrt_shutdown();
    left = a->kept >= 0 ? leak_check(base, a->kept, -1, "after a second xrt_init and xrt_shutdown") : 0;
    CHILD_OK(xrt_init());
    works(a->backend);
    xrt_shutdown();
    if (a->kept >= 0) leak_check(base, a->kept, left, "after a third xrt_init and xrt_shutdown");
    rep.kept = oom.live - base;
    child_report(&rep, sizeof rep);
    return 0;
}

/* Runs one round in a child that starts with xrt shut down; returns 1 if it
   failed (why says how) and fills rep with what it reported. */
static int run_round(const round_args *a, char *why, size_t n)
{
    report both[2];
    int bad = run_child_raw(round_child, (void *)(uintptr_t)a, 20, why, n);
    memset(both, 0, sizeof both);
    child_report_get(both, sizeof both);
    rep = both[0];
    rep.kept = both[1].kept;
    return bad;
}

/* Runs N = 1 .. calls + 4 (the scenario makes about `calls` allocations; a
   few more or less depending on timing) and lists every failing N. The loop
   does not depend on what the children report, so that a re-executed child
   (xrt_test.h) meets the same cases in the same order. Returns the number of
   N values run; *injected counts those whose child reported a failed
   allocation and ran to its end. */
static int injection_pass(const char *backend, long calls, long kept, int persistent, int warm, int check, int *failed,
                          int *injected)
{
    char why[256];
    long n;
    for (n = 1; n <= calls + 4; n++) {
        round_args a = {backend, n, persistent, warm, check, warm ? 0 : kept};
        if (run_round(&a, why, sizeof why)) {
            (*failed)++;
            print_error("%s, %s, allocation %ld fails%s: %s\n", backend, warm ? "warm" : "cold", n,
                        persistent ? " and every one after it" : "", why);
            if (*failed > 20) break; /* enough to go on */
        }
        *injected += rep.failed > 0;
    }
    return (int)n - 1;
}

/* Every N, in the four passes, after a probe that counts the scenario's
   allocations and a cold round that counts what it keeps (a re-executed
   child learns both from its parent, through the environment: NAME_CALLS,
   NAME_KEPT). check: with the stream-order checker on, whose bookkeeping's
   allocations fail too: it never reports a race the scenario does not
   have. */
static void failures(int check, const char *env)
{
    const char *backend = xrt_test_backend;
    round_args probe = {backend, 0, 0, 1, check, 0}, cold = {backend, 0, 0, 0, check, -1};
    char why[256], count[32], name[64];
    int failed = 0, pass, total = 0;
    long calls, kept;
    /* first, without failures: how many allocations the scenario makes */
    if (run_round(&probe, why, sizeof why)) fail_msg("the scenario fails without any injected failure: %s", why);
    snprintf(name, sizeof name, "%s_CALLS", env);
    calls = child_rerun() && getenv(name) ? atol(getenv(name)) : rep.calls;
    snprintf(count, sizeof count, "%ld", calls);
    setenv(name, count, 1);
    print_message("%s: the scenario makes %ld allocations through the XRT_* allocator\n", backend, calls);
    /* what a cold round without failures keeps (passed on as calls is) */
    if (run_round(&cold, why, sizeof why)) fail_msg("a cold scenario fails without any injected failure: %s", why);
    snprintf(name, sizeof name, "%s_KEPT", env);
    kept = child_rerun() && getenv(name) ? atol(getenv(name)) : rep.kept;
    snprintf(count, sizeof count, "%ld", kept);
    setenv(name, count, 1);
    print_message("%s: a cold round keeps %ld block(s) after xrt_shutdown\n", backend, kept);
    if (calls == 0)
        fail_msg("xrt made no allocation through XRT_MALLOC, XRT_CALLOC, XRT_REALLOC or XRT_ALIGNED_ALLOC: the core "
                 "does not use the override macros");
    for (pass = 0; pass < 4; pass++) {
        int persistent = pass & 1, warm = pass >> 1, injected = 0;
        int n = injection_pass(backend, calls, kept, persistent, warm, check, &failed, &injected);
        print_message("%s: %s, %s: N = 1..%d (%d ran to the end with a failed allocation)\n", backend,
                      warm ? "warm" : "cold", persistent ? "every allocation from the Nth fails" : "the Nth allocation fails",
                      n, injected);
        total += n;
    }
    if (failed) fail_msg("%d of %d injected failures broke xrt (listed above)", failed, total);
}

static void test_allocation_failures(void **state)
{
    (void)state;
    failures(0, "XRT_TEST_OOM");
}

static void test_allocation_failures_checked(void **state)
{
    (void)state;
    failures(1, "XRT_TEST_OOM_CHECKED");
}

/* A thread keeps the registry record of the allocation it freed last for
   its next one, and gives it back when it exits: threads that come and go
   leave no block behind. */
static void *thread_allocates(void *arg)
{
    void *p = NULL;
    xrt_status st = xrt_set_backend((const char *)arg);
    int i;
    for (i = 0; st == XRT_SUCCESS && i < 3; i++)
        if ((st = xrt_malloc(&p, 64)) == XRT_SUCCESS) st = xrt_free(p);
    return (void *)(uintptr_t)st;
}

static void test_thread_records_freed_at_exit(void **state)
{
    void *ret = NULL;
    pthread_t t;
    long before;
    unsigned modes = 0;
    int i;
    (void)state;
    xrt_shutdown(); /* no spare record kept from before */
    OK(xrt_set_backend(xrt_test_backend));
    OK(xrt_check_get_modes(&modes));
    OK(xrt_check_enable(XRT_CHECK_OFF)); /* under XRT_CHECK: its bookkeeping's blocks are not the records */
    before = oom.live;
    for (i = 0; i < 4; i++) {
        assert_int_equal(pthread_create(&t, NULL, thread_allocates, (void *)xrt_test_backend), 0);
        assert_int_equal(pthread_join(t, &ret), 0);
        assert_int_equal((uintptr_t)ret, XRT_SUCCESS);
    }
    assert_int_equal(oom.live, before);
    OK(xrt_check_enable(modes));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thread_records_freed_at_exit),
        cmocka_unit_test(test_allocation_failures),
        cmocka_unit_test(test_allocation_failures_checked),
    };
    return xrt_test_run_on_backends("allocation failures", tests, sizeof tests / sizeof tests[0], NULL);
}
