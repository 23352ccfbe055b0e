/* SPDX-License-Identifier: MIT */
/* The backend registry and run-time selection: custom backends, probing,
   XRT_BACKEND and XRT_LOG, per-thread selection, init/shutdown. Every test
   starts from a fresh xrt_shutdown + xrt_init with no environment set;
   backends registered at run time are gone after xrt_shutdown. */
#include "xrt_test.h"

/* Backend callbacks take their table (`self`) by ABI; these ignore it. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>

static int fresh(void **state)
{
    (void)state;
    unsetenv("XRT_BACKEND");
    unsetenv("XRT_LOG");
    xrt_shutdown();
    xrt_test_log_calls(); /* failed calls are logged: the tests assert on their lines */
    return xrt_init() == XRT_SUCCESS ? 0 : -1;
}

static int cleanup(void **state)
{
    (void)state;
    unsetenv("XRT_BACKEND");
    unsetenv("XRT_LOG");
    xrt_shutdown();
    xrt_set_log_level(XRT_LOG_ENV);
    xrt_set_log_callback(NULL, NULL);
    return 0;
}


/* >> a custom backend: malloc, free, memcpy and device queries; the rest NULL */
static struct { int init, malloc, free, memcpy; } mine_calls;

static xrt_status mine_init(const xrt_backend *self, char *reason, size_t n)
{
    (void)reason;
    (void)n;
    mine_calls.init++;
    return XRT_SUCCESS;
}
static xrt_status mine_get_device_count(const xrt_backend *self, int *count) { *count = 1; return XRT_SUCCESS; }
static xrt_status mine_get_device(const xrt_backend *self, int *device) { *device = 0; return XRT_SUCCESS; }
static xrt_status mine_malloc(const xrt_backend *self, void **p, size_t n)
{
    mine_calls.malloc++;
    *p = aligned_alloc(XRT_ALIGNMENT, (n + XRT_ALIGNMENT - 1) & ~(size_t)(XRT_ALIGNMENT - 1));
    return *p ? XRT_SUCCESS : xrt_error(XRT_ERROR_OUT_OF_MEMORY, "mine: xrt_malloc", "%zu bytes", n);
}
static xrt_status mine_free(const xrt_backend *self, void *p)
{
    mine_calls.free++;
    free(p);
    return XRT_SUCCESS;
}
static xrt_status mine_memcpy(const xrt_backend *self, void *dst, const void *src, size_t n, xrt_memcpy_kind kind)
{
    (void)kind;
    mine_calls.memcpy++;
    memcpy(dst, src, n);
    return XRT_SUCCESS;
}

static xrt_backend mine_table(const char *name)
{
    xrt_backend b;
    memset(&b, 0, sizeof b);
    b.abi_version = XRT_BACKEND_ABI_VERSION;
    b.size = sizeof b;
    b.name = name;
    b.init = mine_init;
    b.get_device_count = mine_get_device_count;
    b.get_device = mine_get_device;
    b.malloc = mine_malloc;
    b.free = mine_free;
    b.memcpy = mine_memcpy;
    return b;
}

/* Backends whose probe fails: one with a reason, one without. */
static int broken_inits;
static xrt_status broken_init(const xrt_backend *self, char *reason, size_t n)
{
    broken_inits++;
    snprintf(reason, n, "no widget found");
    return XRT_ERROR_NO_DEVICE;
}
static xrt_status flaky_init(const xrt_backend *self, char *reason, size_t n)
{
    (void)reason;
    (void)n;
    return XRT_ERROR_BACKEND_UNAVAILABLE;
}

static void register_failing(void)
{
    static xrt_backend broken, flaky;
    broken = mine_table("broken");
    broken.init = broken_init;
    flaky = mine_table("flaky");
    flaky.init = flaky_init;
    OK(xrt_register_backend(&broken));
    OK(xrt_register_backend(&flaky));
}

/* >> registration and dispatch */
/* xrt_shutdown frees what the program did not while the backend is still up,
   and shuts the backend down last. */
static int mine_frees_before_shutdown = -1;
static void mine_shutdown(const xrt_backend *self) { mine_frees_before_shutdown = mine_calls.free; }

static void test_shutdown_frees_before_backend_shutdown(void **state)
{
    static xrt_backend mine;
    void *p, *q;
    (void)state;
    memset(&mine_calls, 0, sizeof mine_calls);
    mine = mine_table("leaky");
    mine.shutdown = mine_shutdown;
    OK(xrt_register_backend(&mine));
    OK(xrt_set_backend("leaky"));
    OK(xrt_malloc(&p, 64));
    OK(xrt_malloc(&q, 64));
    xrt_shutdown();
    assert_int_equal(mine_calls.free, 2);
    assert_int_equal(mine_frees_before_shutdown, 2);
}

/* A backend with one buffer whose free pauses after releasing it: another
   thread is handed the same address while the first xrt_free is still inside
   the backend. The registry must end up knowing the new allocation. */
static unsigned char reuse_buf[256] __attribute__((aligned(XRT_ALIGNMENT)));
static gate reuse_gate;
static xrt_status reuse_malloc(const xrt_backend *self, void **p, size_t n)
{
    (void)n;
    *p = reuse_buf;
    return XRT_SUCCESS;
}
static xrt_status reuse_free(const xrt_backend *self, void *p)
{
    (void)p;
    gate_wait(&reuse_gate); /* the buffer is back with the "allocator" */
    return XRT_SUCCESS;
}

static void *free_on_reuse(void *arg) { return (void *)(uintptr_t)xrt_free(arg); }

static void test_address_reused_during_free(void **state)
{
    static xrt_backend reuse;
    xrt_pointer_attributes a;
    void *p, *q, *ret = NULL;
    pthread_t t;
    (void)state;
    memset(&reuse_gate, 0, sizeof reuse_gate);
    reuse = mine_table("reuse");
    reuse.malloc = reuse_malloc;
    reuse.free = reuse_free;
    OK(xrt_register_backend(&reuse));
    OK(xrt_set_backend("reuse"));
    OK(xrt_malloc(&p, 64));
    assert_int_equal(start_thread(&t, "reuse", free_on_reuse, p), 0);
    gate_wait_entered(&reuse_gate);
    OK(xrt_malloc(&q, 64)); /* the same address, while the first free is unfinished */
    assert_ptr_equal(p, q);
    gate_open(&reuse_gate);
    assert_int_equal(pthread_join(t, &ret), 0);
    assert_int_equal((uintptr_t)ret, XRT_SUCCESS);
    OK(xrt_pointer_get_attributes(&a, q));
    assert_int_equal(a.type, XRT_MEMORY_DEVICE);
    assert_ptr_equal(a.base, q);
    OK(xrt_free(q));
    xrt_shutdown(); /* forgets the backend */
}

static void test_register_and_dispatch(void **state)
{
    static xrt_backend mine;
    xrt_backend_info info;
    xrt_pointer_attributes a;
    unsigned char in[100], out[100];
    int n0 = 0, n1 = 0, logs;
    void *p;
    (void)state;
    memset(&mine_calls, 0, sizeof mine_calls);
    mine = mine_table("mine");
    OK(xrt_backend_count(&n0));
    OK(xrt_register_backend(&mine));
    mine.malloc = NULL; /* the registry keeps a copy */
    OK(xrt_backend_count(&n1));
    assert_int_equal(n1, n0 + 1);
    assert_int_equal(mine_calls.init, 0); /* probed lazily */
    OK(xrt_backend_get_info(n0, &info));
    assert_string_equal(info.name, "mine");
    assert_true(info.available);
    assert_string_equal(info.reason, "");
    assert_int_equal(info.abi_version, XRT_BACKEND_ABI_VERSION);

    OK(xrt_set_backend("mine"));
    assert_string_equal(current_backend(), "mine");
    logs = xrt_test_log.count;
    OK(xrt_malloc(&p, sizeof in));
    assert_int_equal(mine_calls.malloc, 1);
    OK(xrt_pointer_get_attributes(&a, p));
    assert_int_equal(a.type, XRT_MEMORY_DEVICE);
    assert_string_equal(a.backend, "mine");
    memset(in, 0x6d, sizeof in);
    /* `in` is unknown to the registry and mine has no pointer_get_attributes:
       still plain host memory, and no error is logged or recorded */
    xrt_get_last_error();
    OK(xrt_memcpy(p, in, sizeof in, XRT_MEMCPY_HOST_TO_DEVICE));
    OK(xrt_memcpy(out, p, sizeof out, XRT_MEMCPY_DEFAULT));
    assert_int_equal(mine_calls.memcpy, 2);
    assert_memory_equal(in, out, sizeof in);
    assert_int_equal(xrt_peek_at_last_error(), XRT_SUCCESS);
    assert_int_equal(xrt_test_log.count, logs);
    OK(xrt_free(p));
    assert_int_equal(mine_calls.free, 1);
    OK(xrt_set_backend("mine"));
    assert_int_equal(mine_calls.init, 1); /* probed once */
}

static void test_null_slots_are_unsupported(void **state)
{
    static xrt_backend mine;
    xrt_stream s = (xrt_stream)&s;
    xrt_event e = (xrt_event)&e;
    unsigned caps = 0;
    void *p;
    (void)state;
    mine = mine_table("mine");
    OK(xrt_register_backend(&mine));
    OK(xrt_set_backend("mine"));
    FAILS(xrt_stream_create(&s), XRT_ERROR_UNSUPPORTED, "xrt_stream_create: not supported by backend mine");
    assert_null(s);
    FAILS(xrt_event_create(&e, 0), XRT_ERROR_UNSUPPORTED, "xrt_event_create: not supported by backend mine");
    assert_null(e);
    FAILS(xrt_get_capabilities(&caps), XRT_ERROR_UNSUPPORTED, "xrt_get_capabilities: not supported by backend mine");
    FAILS(xrt_device_synchronize(), XRT_ERROR_UNSUPPORTED, "xrt_device_synchronize: not supported by backend mine");
    FAILS(xrt_malloc_host(&p, 64), XRT_ERROR_UNSUPPORTED, "xrt_malloc_host: not supported by backend mine");
    assert_null(p);
    OK(xrt_malloc(&p, 64));
    FAILS(xrt_memset(p, 0, 64), XRT_ERROR_UNSUPPORTED, "xrt_memset: not supported by backend mine");
    FAILS(xrt_free_async(p, NULL), XRT_ERROR_UNSUPPORTED, "xrt_free_async: not supported by backend mine");
    OK(xrt_free(p)); /* the failed free_async kept the allocation */
}

static void test_register_errors(void **state)
{
    static xrt_backend mine, b;
    char needle[96];
    int n0 = 0, n1 = 0;
    (void)state;
    mine = mine_table("mine");
    OK(xrt_register_backend(&mine));
    OK(xrt_backend_count(&n0));
    FAILS(xrt_register_backend(&mine), XRT_ERROR_ALREADY_EXISTS, "a backend named mine is registered");
    b = mine_table("cpu");
    FAILS(xrt_register_backend(&b), XRT_ERROR_ALREADY_EXISTS, "a backend named cpu is registered");
    b = mine_table("v2");
    b.abi_version = XRT_BACKEND_ABI_VERSION + 1;
    snprintf(needle, sizeof needle, "xrt_register_backend: v2: ABI version %u, expected %u",
             XRT_BACKEND_ABI_VERSION + 1, XRT_BACKEND_ABI_VERSION);
    FAILS(xrt_register_backend(&b), XRT_ERROR_ABI_MISMATCH, needle);
    b.abi_version = 0;
    FAILS(xrt_register_backend(&b), XRT_ERROR_ABI_MISMATCH, "ABI version 0");
    b = mine_table("big");
    b.size = sizeof b + 8;
    FAILS(xrt_register_backend(&b), XRT_ERROR_ABI_MISMATCH, "big: table size");
    b.size = 8;
    FAILS(xrt_register_backend(&b), XRT_ERROR_ABI_MISMATCH, "big: table size 8");
    FAILS(xrt_register_backend(NULL), XRT_ERROR_INVALID_VALUE, "needs a name and an init function");
    b = mine_table(NULL);
    FAILS(xrt_register_backend(&b), XRT_ERROR_INVALID_VALUE, "needs a name");
    b = mine_table("");
    FAILS(xrt_register_backend(&b), XRT_ERROR_INVALID_VALUE, "needs a name");
    b = mine_table("noinit");
    b.init = NULL;
    FAILS(xrt_register_backend(&b), XRT_ERROR_INVALID_VALUE, "an init function");
    OK(xrt_backend_count(&n1));
    assert_int_equal(n1, n0);
}

/* A table from an older ABI minor (smaller size): the missing tail is filled
   with UNSUPPORTED, never read from the caller's memory. */
static xrt_status must_not_be_called(const xrt_backend *self, void **obj)
{
    (void)obj;
    fail_msg("a slot beyond the table's size was used");
    return XRT_ERROR_BACKEND;
}

static void test_older_table(void **state)
{
    static xrt_backend small;
    xrt_stream s;
    void *p;
    (void)state;
    small = mine_table("small");
    small.stream_create = must_not_be_called;
    small.size = (uint32_t)offsetof(xrt_backend, stream_create);
    OK(xrt_register_backend(&small));
    OK(xrt_set_backend("small"));
    OK(xrt_malloc(&p, 16));
    OK(xrt_free(p));
    FAILS(xrt_stream_create(&s), XRT_ERROR_UNSUPPORTED, "xrt_stream_create: not supported by backend small");
}

/* A size that ends inside an operation's slot is no table of any ABI minor
   (they differ by whole slots): refused, never half a pointer copied and
   called. */
static void test_table_size_inside_a_slot(void **state)
{
    static xrt_backend torn;
    char needle[96];
    int n0 = 0, n1 = 0;
    (void)state;
    OK(xrt_backend_count(&n0));
    torn = mine_table("torn");
    torn.stream_create = must_not_be_called;
    torn.size = (uint32_t)(offsetof(xrt_backend, stream_create) + sizeof(uint32_t));
    snprintf(needle, sizeof needle, "torn: table size %u ends inside an operation's slot", torn.size);
    FAILS(xrt_register_backend(&torn), XRT_ERROR_ABI_MISMATCH, needle);
    torn.size = (uint32_t)(offsetof(xrt_backend, get_capabilities) + 1);
    FAILS(xrt_register_backend(&torn), XRT_ERROR_ABI_MISMATCH, "ends inside an operation's slot");
    torn.size = (uint32_t)sizeof torn - 1;
    FAILS(xrt_register_backend(&torn), XRT_ERROR_ABI_MISMATCH, "ends inside an operation's slot");
    OK(xrt_backend_count(&n1));
    assert_int_equal(n1, n0);
    torn.size = (uint32_t)offsetof(xrt_backend, get_capabilities); /* no operation at all: accepted */
    OK(xrt_register_backend(&torn));
}

static void test_backend_limit(void **state)
{
    static char names[XRT_MAX_BACKENDS][16];
    static xrt_backend b[XRT_MAX_BACKENDS];
    int n = 0, i;
    xrt_status st = XRT_SUCCESS;
    (void)state;
    for (i = 0; i < XRT_MAX_BACKENDS && st == XRT_SUCCESS; i++) {
        snprintf(names[i], sizeof names[i], "b%d", i);
        b[i] = mine_table(names[i]);
        st = xrt_register_backend(&b[i]);
    }
    assert_int_equal(st, XRT_ERROR_OUT_OF_MEMORY);
    assert_non_null(strstr(xrt_get_last_error_string(), "at most 16 backends"));
    OK(xrt_backend_count(&n));
    assert_int_equal(n, XRT_MAX_BACKENDS);
}

/* >> listing and probing */
static void test_backend_info(void **state)
{
    xrt_backend_info info, other;
    int n = 0, i, j;
    (void)state;
    OK(xrt_backend_count(&n));
    assert_true(n >= 1);
    assert_true(backend_index("cpu", &info) >= 0); /* every test build enables it */
    assert_true(info.available);
    for (i = 0; i < n; i++) {
        OK(xrt_backend_get_info(i, &info));
        assert_non_null(info.name);
        assert_non_null(info.reason);
        assert_int_equal(info.abi_version, XRT_BACKEND_ABI_VERSION);
        for (j = 0; j < i; j++) {
            OK(xrt_backend_get_info(j, &other));
            assert_string_not_equal(info.name, other.name);
        }
        /* the listing agrees with what selecting it does */
        if (info.available) {
            assert_string_equal(info.reason, "");
            OK(xrt_set_backend(info.name));
        } else {
            xrt_status st = xrt_set_backend(info.name);
            assert_true(st == XRT_ERROR_NO_DEVICE || st == XRT_ERROR_BACKEND_UNAVAILABLE);
            assert_true(info.reason[0] != 0);
            assert_non_null(strstr(xrt_get_last_error_string(), info.reason));
            print_message("%s: unavailable: %s\n", info.name, info.reason);
        }
    }
    FAILS(xrt_backend_get_info(n, &info), XRT_ERROR_INVALID_VALUE, "xrt_backend_get_info: index");
    assert_non_null(strstr(xrt_get_last_error_string(), "out of range"));
    FAILS(xrt_backend_get_info(-1, &info), XRT_ERROR_INVALID_VALUE, "index -1 out of range");
}

/* Probes every built-in backend now: where a GPU backend is the default, the
   ones after it are probed only when listed, and would log then. */
static void probe_builtins(void)
{
    assert_int_equal(backend_index("nosuch", NULL), -1);
}

static void test_unavailable_backend(void **state)
{
    xrt_backend_info info;
    (void)state;
    broken_inits = 0;
    probe_builtins();
    register_failing();
    xrt_set_log_level(XRT_LOG_INFO);
    xrt_test_log_capture();
    assert_true(backend_index("broken", &info) >= 0);
    assert_false(info.available);
    assert_string_equal(info.reason, "no widget found");
    /* absent is not an error: the probe's verdict is logged at info level */
    assert_int_equal(xrt_test_log.count, 1);
    assert_int_equal(xrt_test_log.level, XRT_LOG_INFO);
    assert_string_equal(xrt_test_log.last, "broken: unavailable: no widget found");
    assert_true(backend_index("flaky", &info) >= 0);
    assert_false(info.available);
    assert_string_equal(info.reason, "backend unavailable"); /* no reason given: the status */
    xrt_set_log_level(XRT_LOG_WARN);

    FAILS(xrt_set_backend("broken"), XRT_ERROR_NO_DEVICE, "xrt_set_backend: broken: unavailable: no widget found");
    FAILS(xrt_set_backend("flaky"), XRT_ERROR_BACKEND_UNAVAILABLE, "flaky: unavailable: backend unavailable");
    assert_string_equal(current_backend(), first_available()); /* unchanged */
    assert_int_equal(broken_inits, 1);                          /* probed once */
}

/* >> XRT_BACKEND */
static void test_env_selects_backend(void **state)
{
    (void)state;
    OK(reinit("XRT_BACKEND", "cpu"));
    assert_string_equal(current_backend(), "cpu");
    OK(reinit("XRT_BACKEND", NULL));
    assert_string_equal(current_backend(), first_available());
}

/* A new thread that uses the process default: these tests are about the
   default itself, so their threads do not select a backend. */
static void *thread_malloc_status(void *arg)
{
    void *p = NULL;
    xrt_status st = xrt_malloc(&p, 16);
    (void)arg;
    if (st == XRT_SUCCESS) xrt_free(p);
    return (void *)(uintptr_t)st;
}

static void test_env_unknown_name_fails(void **state)
{
    static const char *const lists[] = {"nosuch", "nosuch,cpu", "cpu,nosuch", "cpu,,nosuch"};
    const char *name = (const char *)&name;
    void *p, *ret = NULL;
    xrt_stream s;
    pthread_t t;
    size_t i;
    int n;
    (void)state;
    for (i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        char needle[96];
        const char *bad = "'nosuch'"; /* empty entries are skipped, not unknown */
        snprintf(needle, sizeof needle, "XRT_BACKEND=%s: unknown backend %s (valid: ", lists[i], bad);
        FAILS(reinit("XRT_BACKEND", lists[i]), XRT_ERROR_NOT_FOUND, needle);
        assert_non_null(strstr(xrt_get_last_error_string(), "cpu")); /* lists the valid names */
        /* no silent fallback: every call reports why */
        FAILS(xrt_get_backend(&name), XRT_ERROR_NOT_FOUND, needle);
        assert_null(name);
        FAILS(xrt_malloc(&p, 16), XRT_ERROR_NOT_FOUND, needle);
        FAILS(xrt_stream_create(&s), XRT_ERROR_NOT_FOUND, needle);
        FAILS(xrt_get_device_count(&n), XRT_ERROR_NOT_FOUND, needle);
        assert_int_equal(pthread_create(&t, NULL, thread_malloc_status, NULL), 0);
        assert_int_equal(pthread_join(t, &ret), 0);
        assert_int_equal((uintptr_t)ret, XRT_ERROR_NOT_FOUND);
    }
    /* an explicit choice still works */
    OK(xrt_set_backend("cpu"));
    OK(xrt_malloc(&p, 16));
    OK(xrt_free(p));
}

/* A failed start is reported once, by the call that needed it: a thread's
   first call logs one error line, which names the unknown backend, not a
   second one for the implicit xrt_init. */
static void test_env_failure_logged_once_per_call(void **state)
{
    void *p = NULL, *ret = NULL;
    pthread_t t;
    (void)state;
    setenv("XRT_BACKEND", "nosuch", 1);
    xrt_shutdown();
    xrt_test_log_capture();
    assert_int_equal(xrt_malloc(&p, 16), XRT_ERROR_NOT_FOUND); /* this thread's first call starts xrt */
    assert_int_equal(xrt_test_log.count, 1);
    assert_int_equal(xrt_test_log.level, XRT_LOG_ERROR);
    assert_non_null(strstr(xrt_test_log.last, "unknown backend 'nosuch'"));
    assert_non_null(strstr(xrt_get_last_error_string(), "unknown backend 'nosuch'"));

    xrt_test_log_capture();
    assert_int_equal(pthread_create(&t, NULL, thread_malloc_status, NULL), 0); /* a new thread's first call */
    assert_int_equal(pthread_join(t, &ret), 0);
    assert_int_equal((uintptr_t)ret, XRT_ERROR_NOT_FOUND);
    assert_int_equal(xrt_test_log.count, 1);
    assert_int_equal(xrt_test_log.level, XRT_LOG_ERROR);
    assert_non_null(strstr(xrt_test_log.last, "unknown backend 'nosuch'"));
}

/* An empty XRT_BACKEND is the same as none: automatic selection. */
static void test_env_empty_is_unset(void **state)
{
    const char *dflt;
    (void)state;
    OK(reinit("XRT_BACKEND", NULL));
    dflt = first_available();
    xrt_test_log_capture();
    OK(reinit("XRT_BACKEND", ""));
    assert_string_equal(current_backend(), dflt);
    assert_int_equal(xrt_test_log.count, 0);
    assert_stream_works(NULL, 0x5f);
}

/* "cuda,cpu": the first available of the list, as xrt_backend_get_info says.
   The built-in names are known in every build (test_cpu_only.c: when not
   enabled, they are listed as unavailable). */
static void test_env_priority_list(void **state)
{
    static const char *const lists[] = {"cuda,cpu", "hip,cpu", "cuda,hip,cpu"};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        char list[32], *name, *save = NULL;
        const char *expect = NULL;
        xrt_backend_info info;
        OK(reinit("XRT_BACKEND", NULL));
        snprintf(list, sizeof list, "%s", lists[i]);
        for (name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
            assert_true(backend_index(name, &info) >= 0);
            if (!expect && info.available) expect = info.name;
        }
        OK(reinit("XRT_BACKEND", lists[i]));
        assert_string_equal(current_backend(), expect);
        print_message("XRT_BACKEND=%s selects %s\n", lists[i], expect);
    }
}

/* A list naming only backends that cannot run; and a name that becomes
   valid when a backend of that name is registered. */
static void test_env_unavailable_and_late_registration(void **state)
{
    static xrt_backend mine;
    (void)state;
    FAILS(reinit("XRT_BACKEND", "broken,flaky"), XRT_ERROR_NOT_FOUND, "unknown backend 'broken'");
    register_failing(); /* nothing was selected, so registering selects again */
    FAILS(xrt_get_device_count(&(int){0}), XRT_ERROR_BACKEND_UNAVAILABLE,
          "XRT_BACKEND=broken,flaky: none available; last: flaky: unavailable: backend unavailable");

    FAILS(reinit("XRT_BACKEND", "broken"), XRT_ERROR_NOT_FOUND, "unknown backend 'broken'");
    register_failing();
    FAILS(xrt_get_device_count(&(int){0}), XRT_ERROR_NO_DEVICE,
          "XRT_BACKEND=broken: broken: unavailable: no widget found");

    FAILS(reinit("XRT_BACKEND", "mine"), XRT_ERROR_NOT_FOUND, "unknown backend 'mine'");
    mine = mine_table("mine");
    OK(xrt_register_backend(&mine));
    assert_string_equal(current_backend(), "mine");
}

/* >> handles across a restart */
/* A handle from before xrt_shutdown never equals one handed out after the
   next xrt_init, and stays detectably stale. */
static void test_handles_stale_across_restart(void **state)
{
    enum { K = 3 };
    xrt_stream s0[K], s1[K];
    xrt_event e0[K], e1[K];
    float ms;
    void *d;
    int i, j;
    (void)state;
    for (i = 0; i < K; i++) {
        OK(xrt_stream_create(&s0[i]));
        OK(xrt_event_create(&e0[i], 0));
    }
    OK(xrt_event_record(e0[0], s0[0]));
    xrt_shutdown();
    OK(xrt_init());
    xrt_test_log_capture();
    for (i = 0; i < K; i++) {
        OK(xrt_stream_create(&s1[i]));
        OK(xrt_event_create(&e1[i], 0));
    }
    for (i = 0; i < K; i++)
        for (j = 0; j < K; j++) {
            assert_ptr_not_equal(s0[i], s1[j]);
            assert_ptr_not_equal(e0[i], e1[j]);
        }
    OK(xrt_malloc(&d, 64));
    for (i = 0; i < K; i++) {
        FAILS(xrt_stream_query(s0[i]), XRT_ERROR_INVALID_HANDLE, "destroyed");
        FAILS(xrt_stream_synchronize(s0[i]), XRT_ERROR_INVALID_HANDLE, "destroyed");
        FAILS(xrt_memset_async(d, 0, 64, s0[i]), XRT_ERROR_INVALID_HANDLE, "destroyed");
        FAILS(xrt_launch_host_func(s0[i], set_flag, &(int){0}), XRT_ERROR_INVALID_HANDLE, "destroyed");
        FAILS(xrt_event_record(e1[i], s0[i]), XRT_ERROR_INVALID_HANDLE, "destroyed");
        FAILS(xrt_stream_wait_event(s0[i], e1[i]), XRT_ERROR_INVALID_HANDLE, "destroyed");
        FAILS(xrt_stream_destroy(s0[i]), XRT_ERROR_INVALID_HANDLE, "destroyed");
        FAILS(xrt_event_query(e0[i]), XRT_ERROR_INVALID_HANDLE, "destroyed");
        FAILS(xrt_event_synchronize(e0[i]), XRT_ERROR_INVALID_HANDLE, "destroyed");
        FAILS(xrt_event_record(e0[i], s1[i]), XRT_ERROR_INVALID_HANDLE, "destroyed");
        FAILS(xrt_stream_wait_event(s1[i], e0[i]), XRT_ERROR_INVALID_HANDLE, "destroyed");
        FAILS(xrt_event_elapsed_time(&ms, e0[i], e1[i]), XRT_ERROR_INVALID_HANDLE, "destroyed");
        FAILS(xrt_event_destroy(e0[i]), XRT_ERROR_INVALID_HANDLE, "destroyed");
    }
    for (i = 0; i < K; i++) { /* the new ones were not touched */
        OK(xrt_event_record(e1[i], s1[i]));
        OK(xrt_stream_synchronize(s1[i]));
        OK(xrt_event_query(e1[i]));
        OK(xrt_event_destroy(e1[i]));
        OK(xrt_stream_destroy(s1[i]));
    }
    OK(xrt_free(d));
}

/* >> XRT_LOG */
/* Every line logged, for tests that look at more than the last one. */
static struct { char text[8192]; } debug_lines;

static void collect_debug(xrt_log_level level, const char *msg, void *user)
{
    size_t used = strlen(debug_lines.text);
    (void)level;
    (void)user;
    snprintf(debug_lines.text + used, sizeof debug_lines.text - used, "%s\n", msg);
}

static void test_env_log_level(void **state)
{
    (void)state;
    xrt_set_log_level(XRT_LOG_ENV); /* XRT_LOG applies again */
    setenv("XRT_LOG", "debug", 1);
    OK(reinit("XRT_BACKEND", NULL));
    probe_builtins();
    xrt_test_log_capture();
    register_failing();
    assert_true(backend_index("broken", NULL) >= 0); /* the probe logs at info */
    assert_int_equal(xrt_test_log.count, 1);
    assert_int_equal(xrt_test_log.level, XRT_LOG_INFO);

    setenv("XRT_LOG", "ERROR", 1); /* any case */
    OK(reinit("XRT_BACKEND", NULL));
    probe_builtins();
    xrt_test_log_capture();
    register_failing();
    assert_true(backend_index("broken", NULL) >= 0);
    assert_int_equal(xrt_test_log.count, 0);
    assert_int_equal(xrt_malloc(NULL, 64), XRT_ERROR_INVALID_VALUE);
    assert_int_equal(xrt_test_log.count, 1);
    assert_int_equal(xrt_test_log.level, XRT_LOG_ERROR);

    setenv("XRT_LOG", "none", 1);
    OK(reinit("XRT_BACKEND", NULL));
    xrt_test_log_capture();
    assert_int_equal(xrt_malloc(NULL, 64), XRT_ERROR_INVALID_VALUE);
    assert_int_equal(xrt_get_last_error(), XRT_ERROR_INVALID_VALUE); /* recorded, not logged */
    assert_int_equal(xrt_test_log.count, 0);

    setenv("XRT_LOG", "3", 1); /* a number is a level */
    OK(reinit("XRT_BACKEND", NULL));
    probe_builtins();
    xrt_test_log_capture();
    register_failing();
    assert_true(backend_index("flaky", NULL) >= 0); /* probes broken, then flaky */
    assert_int_equal(xrt_test_log.count, 2);
    assert_int_equal(xrt_test_log.level, XRT_LOG_INFO);
    assert_string_equal(xrt_test_log.last, "flaky: unavailable: backend unavailable");

    setenv("XRT_LOG", "loud", 1);
    xrt_shutdown();
    xrt_set_log_level(XRT_LOG_ENV);
    xrt_test_log_capture();
    OK(xrt_init());
    assert_int_equal(xrt_test_log.count, 1);
    assert_int_equal(xrt_test_log.level, XRT_LOG_WARN);
    assert_non_null(strstr(xrt_test_log.last, "XRT_LOG=loud: unknown level"));

    /* the program's own level outlives XRT_LOG and restarts */
    setenv("XRT_LOG", "debug", 1);
    xrt_set_log_level(XRT_LOG_NONE);
    OK(reinit("XRT_BACKEND", NULL));
    xrt_test_log_capture();
    assert_int_equal(xrt_malloc(NULL, 64), XRT_ERROR_INVALID_VALUE);
    assert_int_equal(xrt_test_log.count, 0);

    setenv("XRT_LOG", "", 1); /* empty means unset, without a warning */
    xrt_set_log_level(XRT_LOG_ENV);
    xrt_test_log_capture();
    OK(reinit("XRT_BACKEND", NULL));
    assert_int_equal(xrt_test_log.count, 0);
}

/* XRT_LOG=debug says why the default backend is the one it is. */
static void test_debug_says_why(void **state)
{
    const char *name = NULL;
    char line[256];
    (void)state;
    xrt_set_log_level(XRT_LOG_ENV);
    setenv("XRT_LOG", "debug", 1);
    xrt_shutdown();
    memset(&debug_lines, 0, sizeof debug_lines);
    xrt_set_log_callback(collect_debug, NULL);
    OK(xrt_init());
    OK(xrt_get_backend(&name));
    snprintf(line, sizeof line, "default backend %s: the first available of ", name);
    assert_non_null(strstr(debug_lines.text, line));
    assert_non_null(strstr(debug_lines.text, " (XRT_BACKEND unset)"));
    snprintf(line, sizeof line, "%s: available\n", name);
    assert_non_null(strstr(debug_lines.text, line));

    xrt_shutdown();
    memset(&debug_lines, 0, sizeof debug_lines);
    setenv("XRT_BACKEND", "cpu", 1);
    OK(xrt_init());
    assert_non_null(strstr(debug_lines.text, "default backend cpu: the first available in XRT_BACKEND=cpu"));
    unsetenv("XRT_BACKEND");
    unsetenv("XRT_LOG");
    xrt_test_log_calls();
}

/* >> threads */
typedef struct thread_view { const char *before, *after; } thread_view;

static void *thread_selects(void *arg)
{
    thread_view *v = (thread_view *)arg;
    xrt_get_backend(&v->before);
    xrt_set_backend("cpu");
    xrt_get_backend(&v->after);
    return NULL;
}

static void test_selection_is_per_thread(void **state)
{
    static xrt_backend mine;
    thread_view v = {NULL, NULL};
    const char *dflt = first_available();
    pthread_t t;
    (void)state;
    mine = mine_table("mine");
    OK(xrt_register_backend(&mine));
    OK(xrt_set_backend("mine"));
    assert_int_equal(pthread_create(&t, NULL, thread_selects, &v), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_string_equal(v.before, dflt); /* the process default, not this thread's choice */
    assert_string_equal(v.after, "cpu");
    assert_string_equal(current_backend(), "mine"); /* its choice did not leak here */
}

enum { THREADS = 8 };
static pthread_barrier_t barrier;

static void *thread_starts_xrt(void *arg)
{
    void *p = NULL;
    xrt_status st;
    /* on the process default: the first call of each thread takes part in
       starting xrt, which an explicit xrt_set_backend would do before the barrier */
    pthread_barrier_wait(&barrier);
    /* half call xrt_init, half let their first call initialise */
    st = ((uintptr_t)arg % 2) ? xrt_init() : xrt_malloc(&p, 64);
    if (st == XRT_SUCCESS && !p) st = xrt_malloc(&p, 64);
    if (st == XRT_SUCCESS) st = xrt_free(p);
    return (void *)(uintptr_t)st;
}

static void test_concurrent_init(void **state)
{
    pthread_t t[THREADS];
    void *ret;
    uintptr_t i;
    int round;
    (void)state;
    for (round = 0; round < 20; round++) {
        xrt_shutdown();
        assert_int_equal(pthread_barrier_init(&barrier, NULL, THREADS), 0);
        for (i = 0; i < THREADS; i++) assert_int_equal(pthread_create(&t[i], NULL, thread_starts_xrt, (void *)i), 0);
        for (i = 0; i < THREADS; i++) {
            assert_int_equal(pthread_join(t[i], &ret), 0);
            assert_int_equal((uintptr_t)ret, XRT_SUCCESS);
        }
        pthread_barrier_destroy(&barrier);
    }
    OK(xrt_init());
    OK(xrt_init());
    xrt_shutdown();
    xrt_shutdown();
    OK(xrt_init());
}

static void test_version(void **state)
{
    int v = -1;
    (void)state;
    OK(xrt_runtime_get_version(&v));
    assert_int_equal(v, XRT_VERSION);
    assert_int_equal(XRT_VERSION, XRT_VERSION_MAJOR * 10000 + XRT_VERSION_MINOR * 100 + XRT_VERSION_PATCH);
}

/* The name a parameter declaration declares: "const char *name" -> name,
   "void (*fn)(void *)" -> fn, "int a[4]" -> a. */
static void param_name(const char *decl, size_t n, char *out, size_t outn)
{
    const char *fp = strstr(decl, "(*"), *end = decl + n, *b;
    if (fp && fp < end) { /* a function pointer: the name follows "(*" */
        for (b = fp + 2; b < end && *b == ' '; b++) continue;
        for (end = b; end < decl + n && (isalnum((unsigned char)*end) || *end == '_'); end++) continue;
    } else {
        const char *br = memchr(decl, '[', n);
        if (br) end = br;
        while (end > decl && end[-1] == ' ') end--;
        for (b = end; b > decl && (isalnum((unsigned char)b[-1]) || b[-1] == '_'); b--) continue;
    }
    snprintf(out, outn, "%.*s", (int)(end - b), b);
}

/* Every row of XRT__BACKEND_OPS names its parameters, in their order, as its
   third argument: generated code passes calls on with it (the tracing
   plugin's forwarders). A name that is no parameter fails to compile there;
   this finds names in another order, which may still compile. */
static void test_operation_arguments_name_the_parameters(void **state)
{
#define OP_ROW(op, params, args) {#op, #params, #args},
    static const struct { const char *op, *params, *args; } rows[] = {XRT__BACKEND_OPS(OP_ROW)};
#undef OP_ROW
    size_t i;
    int bad = 0;
    (void)state;
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *p = rows[i].params + 1, *q;
        char want[512] = "(", name[128];
        int depth = 0;
        for (q = p; *q; q++) { /* split at the commas outside parentheses */
            if (*q == '(') depth++;
            if (*q == ')' && depth-- > 0) continue;
            if ((*q == ',' && depth == 0) || (*q == ')' && depth < 0)) {
                while (*p == ' ') p++;
                param_name(p, (size_t)(q - p), name, sizeof name);
                snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s", want[1] ? ", " : "", name);
                p = q + 1;
            }
        }
        snprintf(want + strlen(want), sizeof want - strlen(want), ")");
        if (strcmp(want, rows[i].args) != 0) {
            print_error("operation %s: arguments %s, but its parameters %s are %s\n", rows[i].op, rows[i].args,
                        rows[i].params, want);
            bad++;
        }
    }
    if (bad) fail_msg("%d rows of XRT__BACKEND_OPS (xrt_backends.h) do not name their parameters (listed above)", bad);
}

/* The registry keeps its own copy of a backend's name: the caller's string
   may be a buffer it reuses. */
static void test_register_copies_name(void **state)
{
    static xrt_backend b;
    char *name = (char *)malloc(16);
    xrt_backend_info info;
    int i;
    (void)state;
    assert_non_null(name);
    snprintf(name, 16, "transient");
    b = mine_table(name);
    OK(xrt_register_backend(&b));
    memset(name, 'x', 15);
    free(name);
    i = backend_index("transient", &info);
    assert_true(i >= 0);
    assert_string_equal(info.name, "transient");
    OK(xrt_set_backend("transient"));
    assert_string_equal(current_backend(), "transient");
    {
        static char huge[2048];
        memset(huge, 'h', sizeof huge - 1);
        b.name = huge;
        FAILS(xrt_register_backend(&b), XRT_ERROR_INVALID_VALUE, "name longer than 1023 characters");
    }
}

/* Pageable host memory that a backend knows of (XRT_MEMORY_HOST, which only
   a plugin's pointer_get_attributes can say) is no target of a memset, as
   for cudaMemset; a copy from it is a host-to-device copy. */
static int knows_sets;
static xrt_status knows_attributes(const xrt_backend *self, xrt_pointer_attributes *a, const void *p)
{
    (void)self, (void)p;
    memset(a, 0, sizeof *a);
    a->type = XRT_MEMORY_HOST;
    a->device = -1;
    return XRT_SUCCESS;
}
static xrt_status knows_memset(const xrt_backend *self, void *dst, int value, size_t n)
{
    (void)self;
    knows_sets++;
    memset(dst, value, n);
    return XRT_SUCCESS;
}

static void test_memset_of_host_memory_a_backend_knows(void **state)
{
    static xrt_backend knows;
    xrt_pointer_attributes a;
    char host[64];
    void *d;
    (void)state;
    knows = mine_table("knows");
    knows.pointer_get_attributes = knows_attributes;
    knows.memset = knows_memset;
    OK(xrt_register_backend(&knows));
    OK(xrt_set_backend("knows"));
    OK(xrt_pointer_get_attributes(&a, host));
    assert_int_equal(a.type, XRT_MEMORY_HOST);
    FAILS(xrt_memset(host, 0, sizeof host), XRT_ERROR_INVALID_POINTER, "is host memory, not device memory");
    assert_int_equal(knows_sets, 0);
    OK(xrt_malloc(&d, sizeof host));
    OK(xrt_memset(d, 1, sizeof host)); /* its own device memory: the registry answers */
    assert_int_equal(knows_sets, 1);
    OK(xrt_memcpy(d, host, sizeof host, XRT_MEMCPY_HOST_TO_DEVICE));
    OK(xrt_free(d));
}

#define T(f) cmocka_unit_test_setup_teardown(f, fresh, cleanup)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_register_and_dispatch),
        T(test_shutdown_frees_before_backend_shutdown),
        T(test_address_reused_during_free),
        T(test_null_slots_are_unsupported),
        T(test_register_errors),
        T(test_register_copies_name),
        T(test_older_table),
        T(test_table_size_inside_a_slot),
        T(test_backend_limit),
        T(test_backend_info),
        T(test_unavailable_backend),
        T(test_env_selects_backend),
        T(test_env_unknown_name_fails),
        T(test_env_failure_logged_once_per_call),
        T(test_env_empty_is_unset),
        T(test_env_priority_list),
        T(test_env_unavailable_and_late_registration),
        T(test_handles_stale_across_restart),
        T(test_env_log_level),
        T(test_debug_says_why),
        T(test_selection_is_per_thread),
        T(test_concurrent_init),
        T(test_version),
        T(test_operation_arguments_name_the_parameters),
        T(test_memset_of_host_memory_a_backend_knows),
    };
    return xrt_test_run_group("registry", tests, NULL);
}
