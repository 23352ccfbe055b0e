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
#include "xrt_test.h"

/* >> the status */
static void test_not_permitted_status(void **state)
{
    (void)state;
    assert_string_equal(xrt_status_string(XRT_ERROR_NOT_PERMITTED), "operation not permitted");
    assert_true(XRT_ERROR_NOT_PERMITTED < XRT_STATUS_COUNT);
}

/* >> waiting from inside a host function */
typedef struct hf_env {
    xrt_stream s, other, doomed, made;
    xrt_event after, never, mine, t0, t1, doomed_event, made_event;
    void *d, *d2, *pinned, *p, *p_host, *p_async;
    unsigned char h[64];
    xrt_module mod, made_mod; /* the CPU's: a kernel that writes one byte */
    xrt_function fn;
} hf_env;
static hf_env env; /* each child has its own copy */

typedef struct hf_case {
    const char *fn;
    const char *name;  /* the case */
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

static xrt_status hf_capabilities(hf_env *e)
{
    unsigned c;
    (void)e;
    return xrt_get_capabilities(&c);
}
static xrt_status hf_set_device(hf_env *e) { (void)e; return xrt_set_device(0); }
static xrt_status hf_get_device(hf_env *e)
{
    int d;
    (void)e;
    return xrt_get_device(&d);
}
static xrt_status hf_properties(hf_env *e)
{
    xrt_device_prop p;
    (void)e;
    return xrt_get_device_properties(&p, 0);
}
static xrt_status hf_malloc_host(hf_env *e) { return xrt_malloc_host(&e->p_host, 64); }
static xrt_status hf_malloc_async(hf_env *e) { return xrt_malloc_async(&e->p_async, 64, e->other); }
static xrt_status hf_mem_get_info(hf_env *e)
{
    size_t f, t;
    (void)e;
    return xrt_mem_get_info(&f, &t);
}
static xrt_status hf_stream_create(hf_env *e) { return xrt_stream_create(&e->made); }
static xrt_status hf_stream_destroy(hf_env *e)
{
    xrt_status st = xrt_stream_destroy(e->doomed);
    if (st == XRT_SUCCESS) e->doomed = NULL;
    return st;
}
static xrt_status hf_wait_event(hf_env *e) { return xrt_stream_wait_event(e->other, e->t1); }
static xrt_status hf_event_create(hf_env *e) { return xrt_event_create(&e->made_event, 0); }
static xrt_status hf_event_destroy(hf_env *e)
{
    xrt_status st = xrt_event_destroy(e->doomed_event);
    if (st == XRT_SUCCESS) e->doomed_event = NULL;
    return st;
}
static xrt_status hf_elapsed(hf_env *e)
{
    float ms;
    return xrt_event_elapsed_time(&ms, e->t0, e->t1);
}
static xrt_status hf_stream_native(hf_env *e)
{
    void *n;
    return xrt_stream_get_native(e->s, &n);
}
static xrt_status hf_event_native(hf_env *e)
{
    void *n;
    return xrt_event_get_native(e->mine, &n);
}
static xrt_status hf_wrap_native(hf_env *e)
{
    xrt_stream w;
    return xrt_stream_wrap_native(&w, e->h);
}
static xrt_status hf_export(hf_env *e)
{
    int fd;
    uint64_t off;
    return xrt_mem_export_dmabuf(e->d, 4096, &fd, &off);
}
static xrt_status hf_target(hf_env *e)
{
    xrt_target t;
    (void)e;
    return xrt_get_target(&t);
}
static const char hf_kernel_src[] = "void k(const void *c, void *a) { (void)c; **(unsigned char **)a = 9; }\n";
static xrt_status hf_module_load(hf_env *e)
{
    xrt_module_image im = {XRT_IMAGE_CPU_C_SOURCE, hf_kernel_src, sizeof hf_kernel_src - 1, NULL};
    return xrt_module_load(&e->made_mod, &im, 1, NULL);
}
static xrt_status hf_module_unload(hf_env *e)
{
    xrt_status st = xrt_module_unload(e->mod);
    if (st == XRT_SUCCESS) e->mod = NULL, e->fn = NULL;
    return st;
}

/* Every operation of XRT__BACKEND_OPS has a case (test_every_operation_has_a_case). */
static const hf_case hf_cases[] = {
    {"xrt_stream_synchronize", "stream synchronize of its own stream", hf_sync_own, 1, XRT_SUCCESS},
    {"xrt_stream_synchronize", "stream synchronize of the NULL stream", hf_sync_null, 1, XRT_SUCCESS},
    {"xrt_stream_synchronize", "stream synchronize of another stream", hf_sync_other, 1, XRT_SUCCESS},
    {"xrt_device_synchronize", "device synchronize", hf_device_sync, 1, XRT_SUCCESS},
    {"xrt_memcpy", "memcpy (NULL stream)", hf_memcpy, 1, XRT_SUCCESS},
    {"xrt_memset", "memset (NULL stream)", hf_memset, 1, XRT_SUCCESS},
    {"xrt_event_synchronize", "event synchronize of an event recorded after it", hf_event_sync_after, 1, XRT_SUCCESS},
    {"xrt_event_synchronize", "event synchronize of a never-recorded event", hf_event_sync_never, 1, XRT_SUCCESS},
    {"xrt_free", "free", hf_free, 1, XRT_SUCCESS},
    {"xrt_free_host", "free_host", hf_free_host, 1, XRT_SUCCESS},
    {"xrt_shutdown", "shutdown", hf_shutdown, 1, XRT_SUCCESS},
    {"xrt_memset_async", "memset_async on its own stream", hf_memset_async, 0, XRT_SUCCESS},
    {"xrt_memcpy_async", "memcpy_async on another stream", hf_memcpy_async, 0, XRT_SUCCESS},
    {"xrt_event_record", "event record", hf_record, 0, XRT_SUCCESS},
    {"xrt_stream_query", "stream query of its own stream", hf_query_own, 0, XRT_ERROR_NOT_READY}, /* its own host function is running */
    {"xrt_event_query", "event query", hf_event_query, 0, XRT_SUCCESS},
    {"xrt_malloc", "malloc", hf_malloc, 0, XRT_SUCCESS},
    {"xrt_free_async", "free_async", hf_free_async, 0, XRT_SUCCESS},
    {"xrt_launch_host_func", "launch_host_func", hf_launch, 0, XRT_SUCCESS},
    {"xrt_get_device_count", "get_device_count", hf_device_count, 0, XRT_SUCCESS},
    {"xrt_pointer_get_attributes", "pointer_get_attributes", hf_attributes, 0, XRT_SUCCESS},
    {"xrt_launch_kernel", "launch_kernel on another stream", hf_kernel, 0, XRT_SUCCESS},
    {"xrt_module_get_function", "module_get_function", hf_get_function, 0, XRT_SUCCESS},
    {"xrt_function_get_attributes", "function_get_attributes", hf_function_attributes, 0, XRT_SUCCESS},
    {"xrt_get_capabilities", "get_capabilities", hf_capabilities, 0, XRT_SUCCESS},
    {"xrt_set_device", "set_device", hf_set_device, 0, XRT_SUCCESS},
    {"xrt_get_device", "get_device", hf_get_device, 0, XRT_SUCCESS},
    {"xrt_get_device_properties", "get_device_properties", hf_properties, 0, XRT_SUCCESS},
    {"xrt_malloc_host", "malloc_host", hf_malloc_host, 0, XRT_SUCCESS},
    {"xrt_malloc_async", "malloc_async on another stream", hf_malloc_async, 0, XRT_SUCCESS},
    {"xrt_mem_get_info", "mem_get_info", hf_mem_get_info, 0, XRT_SUCCESS},
    {"xrt_stream_create", "stream create", hf_stream_create, 0, XRT_SUCCESS},
    {"xrt_stream_destroy", "stream destroy of an idle stream", hf_stream_destroy, 0, XRT_SUCCESS},
    {"xrt_stream_wait_event", "stream_wait_event", hf_wait_event, 0, XRT_SUCCESS},
    {"xrt_event_create", "event create", hf_event_create, 0, XRT_SUCCESS},
    {"xrt_event_destroy", "event destroy", hf_event_destroy, 0, XRT_SUCCESS},
    {"xrt_event_elapsed_time", "event_elapsed_time of completed events", hf_elapsed, 0, XRT_SUCCESS},
    {"xrt_stream_get_native", "stream_get_native", hf_stream_native, 0, XRT_ERROR_UNSUPPORTED},
    {"xrt_event_get_native", "event_get_native", hf_event_native, 0, XRT_ERROR_UNSUPPORTED},
    {"xrt_stream_wrap_native", "stream_wrap_native", hf_wrap_native, 0, XRT_ERROR_UNSUPPORTED},
    {"xrt_mem_export_dmabuf", "mem_export_dmabuf", hf_export, 0, XRT_ERROR_UNSUPPORTED},
    {"xrt_get_target", "get_target", hf_target, 0, XRT_SUCCESS},
    {"xrt_module_load", "module_load (C source)", hf_module_load, 0, XRT_SUCCESS},
    {"xrt_module_unload", "module_unload", hf_module_unload, 0, XRT_SUCCESS},
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
    CHILD_OK(xrt_stream_create(&env.doomed));
    CHILD_OK(xrt_event_create(&env.doomed_event, 0));
    CHILD_OK(xrt_event_create(&env.t0, 0));
    CHILD_OK(xrt_event_create(&env.t1, 0));
    CHILD_OK(xrt_event_record(env.t0, env.other));
    CHILD_OK(xrt_event_record(env.t1, env.other));
    CHILD_OK(xrt_stream_synchronize(env.other));
    CHILD_OK(xrt_malloc(&env.d, 4096));
    CHILD_OK(xrt_malloc(&env.d2, 4096));
    CHILD_OK(xrt_malloc_host(&env.pinned, 4096));
    CHILD_OK(xrt_memset(env.d, 0, 4096));
    if (!on_gpu()) { /* built privately: nothing left in the user's cache */
        xrt_module_image im = {XRT_IMAGE_CPU_C_SOURCE, hf_kernel_src, sizeof hf_kernel_src - 1, NULL};
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
    if (c->call == hf_memset_async && want == XRT_SUCCESS) { /* a refused memset did not run */
        unsigned char b[64];
        int i;
        CHILD_OK(xrt_memcpy(b, env.d, 64, XRT_MEMCPY_DEVICE_TO_HOST));
        for (i = 0; i < 64; i++)
            if (b[i] != 7) CHILD_FAIL("the memset_async from the host function did not run");
    }
    if (c->call == hf_kernel && want == XRT_SUCCESS) { /* a refused launch did not run */
        unsigned char b;
        CHILD_OK(xrt_stream_synchronize(env.other));
        CHILD_OK(xrt_memcpy(&b, env.d2, 1, XRT_MEMCPY_DEVICE_TO_HOST));
        if (b != 9) CHILD_FAIL("the kernel launched from the host function did not run");
    }
    if (env.mod) CHILD_OK(xrt_module_unload(env.mod));
    if (env.made_mod) CHILD_OK(xrt_module_unload(env.made_mod));
    if (env.p) CHILD_OK(xrt_free(env.p));
    if (env.p_host) CHILD_OK(xrt_free_host(env.p_host));
    if (env.p_async) CHILD_OK(xrt_free_async(env.p_async, env.other));
    if (env.made) CHILD_OK(xrt_stream_destroy(env.made));
    if (env.doomed) CHILD_OK(xrt_stream_destroy(env.doomed));
    if (env.made_event) CHILD_OK(xrt_event_destroy(env.made_event));
    if (env.doomed_event) CHILD_OK(xrt_event_destroy(env.doomed_event));
    xrt_shutdown();
    return 0;
}

static void test_waiting_inside_host_function(void **state)
{
    child_case cases[sizeof hf_cases / sizeof hf_cases[0]];
    size_t i;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cases[i].name = hf_cases[i].name;
        cases[i].fn = host_func_child;
        cases[i].arg = &hf_cases[i];
    }
    run_cases("host function", cases, sizeof cases / sizeof cases[0], 10);
}

/* Every operation of XRT__BACKEND_OPS has a row in hf_cases, or says here
   why it has none; a new operation without either fails, named. */
static const char *const hf_no_case[] = {
    NULL, /* none: every operation has a case */
};

static void test_every_operation_has_a_case(void **state)
{
#define OP_NAME(op, params) "xrt_" #op,
    static const char *const ops[] = {XRT__BACKEND_OPS(OP_NAME)};
#undef OP_NAME
    size_t i, j;
    int missing = 0;
    (void)state;
    for (i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        int found = 0;
        for (j = 0; j < sizeof hf_cases / sizeof hf_cases[0] && !found; j++) found = strcmp(hf_cases[j].fn, ops[i]) == 0;
        for (j = 0; j < sizeof hf_no_case / sizeof hf_no_case[0] && !found; j++)
            found = hf_no_case[j] && strcmp(hf_no_case[j], ops[i]) == 0;
        if (!found) {
            missing++;
            print_error("operation %s has no row in hf_cases of tests/test_host_fn.c\n", ops[i]);
        }
    }
    if (missing) fail_msg("%d operations of XRT__BACKEND_OPS have no host-function case (listed above)", missing);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_not_permitted_status),
        cmocka_unit_test(test_every_operation_has_a_case),
        cmocka_unit_test(test_waiting_inside_host_function),
        cmocka_unit_test(test_refusal_comes_first),
    };
    return xrt_test_run_on_backends("host functions", tests, sizeof tests / sizeof tests[0], NULL);
}
