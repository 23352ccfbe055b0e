/* SPDX-License-Identifier: MIT */
/* Host functions: what an xrt call made from inside one returns. Waiting
   from inside a host function (stream, device or event synchronize;
   xrt_memcpy / xrt_memset, which wait on the NULL stream; xrt_free /
   xrt_free_host; xrt_shutdown) returns XRT_ERROR_NOT_PERMITTED on every
   backend. Calls that do not wait (enqueue, query, allocate, record) are
   allowed inside host functions on the CPU backend; on CUDA and HIP every xrt
   call from a host function returns XRT_ERROR_NOT_PERMITTED (the runtimes
   forbid runtime calls there). Each case runs in a child (xrt_test.h:
   run_cases), so that a hang or a crash fails that case only. Every group
   runs on each available backend.

   xrt_shutdown behind a host function that calls xrt: tests/test_shutdown.c. */
#define XRT_IMPL /* white-box: the call and capture records */
#include "xrt_test.h"

/* >> the status */
static void test_not_permitted_status(void **state)
{
    (void)state;
    assert_string_equal(xrt_status_string(XRT_ERROR_NOT_PERMITTED), "operation not permitted");
    assert_true(XRT_ERROR_NOT_PERMITTED < XRT_STATUS_COUNT);
}

/* >> each call from inside a host function: the rows of XRT_TEST_CALLS
   (tests/xrt_test.h), and xrt_shutdown */
static xrt_test_calls env; /* each child has its own copy */

static xrt_status hf_shutdown_call(xrt_test_calls *c)
{
    (void)c;
    xrt_get_last_error();
    xrt_shutdown();
    return xrt_peek_at_last_error();
}
static const xrt_test_call hf_shutdown = {"shutdown", "xrt_shutdown()", 1, XRT_ERROR_NOT_PERMITTED, hf_shutdown_call};

static struct { xrt_status st; char detail[1024]; int done; } hf_out;

static void hf_run(void *user)
{
    const xrt_test_call *c = (const xrt_test_call *)user;
    hf_out.st = c->call(&env);
    snprintf(hf_out.detail, sizeof hf_out.detail, "%s", xrt_get_last_error_string());
    __atomic_store_n(&hf_out.done, 1, __ATOMIC_RELEASE);
}

static int host_func_child(void *arg)
{
    const xrt_test_call *c = (const xrt_test_call *)arg;
    xrt_status want = on_gpu() ? XRT_ERROR_NOT_PERMITTED : c->on_cpu;
    char fn[64];
    int line;
    xrt_test_call_name(c, fn, sizeof fn);
    if ((line = xrt_test_calls_make(&env)) != 0)
        CHILD_FAIL("objects: tests/xrt_test.h line %d: %s", line, xrt_get_last_error_string());
    CHILD_OK(xrt_event_record(env.t0, env.other));
    CHILD_OK(xrt_event_record(env.t1, env.other));
    CHILD_OK(xrt_stream_synchronize(env.other));
    CHILD_OK(xrt_memset(env.d, 0, 4096));
    CHILD_OK(xrt_memset(env.d2, 0, 4096));
    /* the gate holds the stream until the record behind the host function is queued */
    CHILD_OK(xrt_launch_host_func(env.s, gate_wait, &gates[0]));
    CHILD_OK(xrt_launch_host_func(env.s, hf_run, (void *)(uintptr_t)c));
    CHILD_OK(xrt_event_record(env.after, env.s)); /* completes after the host function */
    gate_open(&gates[0]);
    if (!wait_flag(&hf_out.done, 2000))
        CHILD_FAIL("%s from inside a host function did not return within 2 s (a hang)", c->text);
    if (hf_out.st != want)
        CHILD_FAIL("%s from inside a host function returned %s (\"%s\"), expected %s (XRT_TEST_CALLS of tests/xrt_test.h)",
                   c->text, xrt_status_string(hf_out.st), hf_out.st == XRT_SUCCESS ? "" : hf_out.detail,
                   xrt_status_string(want));
    if (want != XRT_SUCCESS && want != XRT_ERROR_NOT_READY && !strstr(hf_out.detail, fn))
        CHILD_FAIL("the detail \"%s\" does not name %s", hf_out.detail, fn);
    /* the stream and xrt carry on */
    CHILD_OK(xrt_stream_synchronize(env.s));
    CHILD_OK(xrt_event_synchronize(env.after));
    child_stream_works(env.s, 0x3c);
    child_stream_works(NULL, 0x3d);
    if (c->call == xrt_test_call_memset_async && want == XRT_SUCCESS) { /* a refused memset did not run */
        unsigned char b[64];
        int i;
        CHILD_OK(xrt_memcpy(b, env.d, 64, XRT_MEMCPY_DEVICE_TO_HOST));
        for (i = 0; i < 64; i++)
            if (b[i] != 7) CHILD_FAIL("the memset_async from the host function did not run");
    }
    if (c->call == xrt_test_call_kernel && want == XRT_SUCCESS) { /* a refused launch did not run */
        unsigned char b;
        CHILD_OK(xrt_stream_synchronize(env.other));
        CHILD_OK(xrt_memcpy(&b, env.d2, 1, XRT_MEMCPY_DEVICE_TO_HOST));
        if (b != 9) CHILD_FAIL("the kernel launched from the host function did not run");
    }
    if (env.m && c->call != xrt_test_call_module_unload) CHILD_OK(xrt_module_unload(env.m));
    xrt_shutdown(); /* frees what the calls made */
    return 0;
}

/* A host function on a blocking stream enqueues on the NULL stream, whose
   queue is full of work that waits (the legacy stream's order) for that
   blocking stream, so for the host function itself: the enqueue does not
   wait for room, which would never come; it says the queue is full. */
typedef struct full_legacy { gate g; void *d; xrt_status st; int done; } full_legacy;

static void enqueue_on_full_legacy(void *user)
{
    full_legacy *f = (full_legacy *)user;
    gate_wait(&f->g);
    f->st = xrt_memset_async(f->d, 1, 64, NULL);
    __atomic_store_n(&f->done, 1, __ATOMIC_RELEASE);
}

static void *open_after_filling(void *user)
{
    full_legacy *f = (full_legacy *)user;
    sleep_ms(300); /* the main thread fills the NULL stream's queue meanwhile */
    gate_open(&f->g);
    return NULL;
}

static int full_legacy_child(void *arg)
{
    static full_legacy f;
    xrt_stream s;
    pthread_t opener;
    int i;
    (void)arg;
    CHILD_OK(xrt_malloc(&f.d, 64));
    CHILD_OK(xrt_stream_create(&s)); /* blocking */
    CHILD_OK(xrt_launch_host_func(s, enqueue_on_full_legacy, &f));
    gate_wait_entered(&f.g);
    CHILD_TRUE(pthread_create(&opener, NULL, open_after_filling, &f) == 0);
    for (i = 0; i < 3000; i++) CHILD_OK(xrt_memset_async(f.d, 0, 64, NULL)); /* each waits for s */
    CHILD_OK(xrt_stream_synchronize(s));
    CHILD_TRUE(__atomic_load_n(&f.done, __ATOMIC_ACQUIRE));
    CHILD_EXPECT(f.st, XRT_ERROR_OUT_OF_MEMORY);
    CHILD_OK(xrt_device_synchronize());
    CHILD_TRUE(pthread_join(opener, NULL) == 0);
    CHILD_OK(xrt_stream_destroy(s));
    CHILD_OK(xrt_free(f.d));
    xrt_shutdown(); /* joins the streams' threads */
    return 0;
}

static void test_enqueue_on_a_full_stream_that_waits_for_it(void **state)
{
    (void)state;
    SKIP_UNLESS(on_cpu(), "calls from host functions are the CPU backend's");
    in_child("a host function's enqueue on a full NULL stream", full_legacy_child, NULL, 20);
}

static void test_inside_host_function(void **state)
{
    size_t i, n;
    const xrt_test_call *rows = xrt_test_calls_rows(&n);
    child_case *cases;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    assert_non_null(cases = (child_case *)calloc(n + 1, sizeof *cases));
    for (i = 0; i <= n; i++) {
        cases[i].name = i < n ? rows[i].what : hf_shutdown.what;
        cases[i].fn = host_func_child;
        cases[i].arg = i < n ? &rows[i] : &hf_shutdown;
    }
    run_cases("host function", cases, n + 1, 10);
    free(cases);
}

/* Every operation of XRT__BACKEND_OPS has a row in XRT_TEST_CALLS, made
   from a host function above and refused first below and in a forked child
   (tests/test_fork.c); a new operation without one fails, named. */
static void test_every_operation_has_a_case(void **state)
{
    int missing;
    (void)state;
    if ((missing = xrt_test_calls_missing()) != 0)
        fail_msg("%d operations of XRT__BACKEND_OPS have no call in XRT_TEST_CALLS of tests/xrt_test.h, or rows are "
                 "wrong (listed above)",
                 missing);
}

/* >> the refusal comes first */
/* On a backend whose runtime forbids calls from its host functions (the
   refuser here, cuda and hip where a group runs on them), every entry point
   called from a host function with live handles and memory of that backend
   returns XRT_ERROR_NOT_PERMITTED, before any check of its handles, pointers
   or arguments, and says why. */
static void refused_in_host_function(const char *backend)
{
    static xrt_test_calls c;
    int line;
    OK(xrt_set_backend(backend));
    if ((line = xrt_test_calls_make(&c)) != 0) fail_msg("%s: objects: line %d: %s", backend, line, xrt_get_last_error_string());
    OK(xrt_launch_host_func(c.s, xrt_test_calls_run, &c));
    OK(xrt_stream_synchronize(c.s));
    xrt_test_calls_free(&c);
    OK(xrt_set_backend(xrt_test_backend));
    if (!xrt_test_calls_refused(&c, "called from a host function")) fail_msg("on %s: calls from a host function (above)", backend);
}

static void test_refusal_comes_first(void **state)
{
    (void)state;
    OK(xrt_test_refuser_register());
    refused_in_host_function(XRT_TEST_REFUSER);
    if (on_gpu()) refused_in_host_function(xrt_test_backend);
}

/* >> a GPU runtime's thread that runs host functions: every xrt call it makes
   is refused before a handle is looked at, so it does not register with the
   handle retirement (a destroy on another thread then pays no membarrier(2)
   and waits for nothing on its account) */
static int refused_count;
static xrt_status refused_status;
static void hf_counts_devices(void *user)
{
    (void)user;
    refused_status = xrt_get_device_count(&refused_count);
}

static void test_gpu_host_function_threads_stay_unregistered(void **state)
{
    xrt_stream s;
    int before;
    (void)state;
    SKIP_UNLESS(on_gpu(), "the CPU runs host functions on its own streams' threads, which call xrt");
    OK(xrt_stream_create(&s));
    OK(xrt_stream_synchronize(s));
    before = xrt__call_threads;
    OK(xrt_launch_host_func(s, hf_counts_devices, NULL));
    OK(xrt_stream_synchronize(s));
    assert_int_equal(refused_status, XRT_ERROR_NOT_PERMITTED);
    assert_int_equal(xrt__call_threads, before);
    OK(xrt_stream_destroy(s));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_not_permitted_status),
        cmocka_unit_test(test_every_operation_has_a_case),
        cmocka_unit_test(test_inside_host_function),
        cmocka_unit_test(test_enqueue_on_a_full_stream_that_waits_for_it),
        cmocka_unit_test(test_refusal_comes_first),
        cmocka_unit_test(test_gpu_host_function_threads_stay_unregistered),
    };
    char dir[256];
    /* the cases' module is built once into a private cache, not the user's */
    return xrt_test_run_with_private_cache("host functions", tests, sizeof tests / sizeof tests[0], dir, sizeof dir);
}
