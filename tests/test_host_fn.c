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
    /* what the calls write */
    unsigned caps;
    int n, fd;
    size_t free_bytes, total_bytes;
    float ms;
    void *native;
    uint64_t offset;
    xrt_stream wrapped;
    xrt_function got;
    xrt_device_prop prop;
    xrt_pointer_attributes attr;
    xrt_function_attributes fattr;
    xrt_target target;
} hf_env;
static hf_env env; /* each child has its own copy */

static const char hf_kernel_src[] = "void k(const void *c, void *a) { (void)c; **(unsigned char **)a = 9; }\n";
static const xrt_module_image hf_image = {XRT_IMAGE_CPU_C_SOURCE, hf_kernel_src, sizeof hf_kernel_src - 1, NULL};
static const xrt_dim3 hf_one = {1, 1, 1};

static xrt_status hf_shutdown_call(void)
{
    xrt_get_last_error();
    xrt_shutdown();
    return xrt_peek_at_last_error();
}

/* X(id, call, case, waits, status on the CPU, the call on `e`): what a call
   from inside a host function returns. A waiting call: XRT_ERROR_NOT_PERMITTED
   everywhere; else the status on the CPU backend (GPU: NOT_PERMITTED). Every
   operation of XRT__BACKEND_OPS has a row (test_every_operation_has_a_case). */
#define HF_CASES(X)                                                                                                   \
    X(sync_own, "xrt_stream_synchronize", "stream synchronize of its own stream", 1, XRT_SUCCESS,                    \
      xrt_stream_synchronize(e->s))                                                                                   \
    X(sync_null, "xrt_stream_synchronize", "stream synchronize of the NULL stream", 1, XRT_SUCCESS,                  \
      xrt_stream_synchronize(NULL))                                                                                   \
    X(sync_other, "xrt_stream_synchronize", "stream synchronize of another stream", 1, XRT_SUCCESS,                  \
      xrt_stream_synchronize(e->other))                                                                               \
    X(device_sync, "xrt_device_synchronize", "device synchronize", 1, XRT_SUCCESS, xrt_device_synchronize())         \
    X(memcpy, "xrt_memcpy", "memcpy (NULL stream)", 1, XRT_SUCCESS,                                                  \
      xrt_memcpy(e->d, e->h, sizeof e->h, XRT_MEMCPY_HOST_TO_DEVICE))                                                 \
    X(memset, "xrt_memset", "memset (NULL stream)", 1, XRT_SUCCESS, xrt_memset(e->d, 1, 64))                         \
    X(event_sync_after, "xrt_event_synchronize", "event synchronize of an event recorded after it", 1, XRT_SUCCESS,  \
      xrt_event_synchronize(e->after))                                                                                \
    X(event_sync_never, "xrt_event_synchronize", "event synchronize of a never-recorded event", 1, XRT_SUCCESS,      \
      xrt_event_synchronize(e->never))                                                                                \
    X(free, "xrt_free", "free", 1, XRT_SUCCESS, xrt_free(e->d))                                                      \
    X(free_host, "xrt_free_host", "free_host", 1, XRT_SUCCESS, xrt_free_host(e->pinned))                             \
    X(shutdown, "xrt_shutdown", "shutdown", 1, XRT_SUCCESS, hf_shutdown_call())                                      \
    X(memset_async, "xrt_memset_async", "memset_async on its own stream", 0, XRT_SUCCESS,                            \
      xrt_memset_async(e->d, 7, 64, e->s))                                                                            \
    X(memcpy_async, "xrt_memcpy_async", "memcpy_async on another stream", 0, XRT_SUCCESS,                            \
      xrt_memcpy_async(e->h, e->d2, sizeof e->h, XRT_MEMCPY_DEVICE_TO_HOST, e->other))                                \
    X(record, "xrt_event_record", "event record", 0, XRT_SUCCESS, xrt_event_record(e->mine, e->s))                   \
    /* its own host function is running: */                                                                           \
    X(query_own, "xrt_stream_query", "stream query of its own stream", 0, XRT_ERROR_NOT_READY, xrt_stream_query(e->s)) \
    X(event_query, "xrt_event_query", "event query", 0, XRT_SUCCESS, xrt_event_query(e->never))                      \
    X(malloc, "xrt_malloc", "malloc", 0, XRT_SUCCESS, xrt_malloc(&e->p, 64))                                         \
    X(free_async, "xrt_free_async", "free_async", 0, XRT_SUCCESS, xrt_free_async(e->d2, e->s))                       \
    X(launch, "xrt_launch_host_func", "launch_host_func", 0, XRT_SUCCESS, xrt_launch_host_func(e->s, nop, NULL))     \
    X(device_count, "xrt_get_device_count", "get_device_count", 0, XRT_SUCCESS, xrt_get_device_count(&e->n))         \
    X(attributes, "xrt_pointer_get_attributes", "pointer_get_attributes", 0, XRT_SUCCESS,                            \
      xrt_pointer_get_attributes(&e->attr, e->d))                                                                     \
    X(kernel, "xrt_launch_kernel", "launch_kernel on another stream", 0, XRT_SUCCESS,                                \
      xrt_launch_kernel(e->fn, hf_one, hf_one, 0, e->other, &e->d2, sizeof e->d2))                                    \
    X(get_function, "xrt_module_get_function", "module_get_function", 0, XRT_SUCCESS,                                \
      xrt_module_get_function(&e->got, e->mod, "k"))                                                                  \
    X(function_attributes, "xrt_function_get_attributes", "function_get_attributes", 0, XRT_SUCCESS,                 \
      xrt_function_get_attributes(&e->fattr, e->fn))                                                                  \
    X(capabilities, "xrt_get_capabilities", "get_capabilities", 0, XRT_SUCCESS, xrt_get_capabilities(&e->caps))      \
    X(set_device, "xrt_set_device", "set_device", 0, XRT_SUCCESS, xrt_set_device(0))                                 \
    X(get_device, "xrt_get_device", "get_device", 0, XRT_SUCCESS, xrt_get_device(&e->n))                             \
    X(properties, "xrt_get_device_properties", "get_device_properties", 0, XRT_SUCCESS,                              \
      xrt_get_device_properties(&e->prop, 0))                                                                         \
    X(malloc_host, "xrt_malloc_host", "malloc_host", 0, XRT_SUCCESS, xrt_malloc_host(&e->p_host, 64))                \
    X(malloc_async, "xrt_malloc_async", "malloc_async on another stream", 0, XRT_SUCCESS,                            \
      xrt_malloc_async(&e->p_async, 64, e->other))                                                                    \
    X(mem_get_info, "xrt_mem_get_info", "mem_get_info", 0, XRT_SUCCESS, xrt_mem_get_info(&e->free_bytes, &e->total_bytes)) \
    X(stream_create, "xrt_stream_create", "stream create", 0, XRT_SUCCESS, xrt_stream_create(&e->made))              \
    X(stream_destroy, "xrt_stream_destroy", "stream destroy of an idle stream", 0, XRT_SUCCESS,                      \
      xrt_stream_destroy(e->doomed))                                                                                  \
    X(wait_event, "xrt_stream_wait_event", "stream_wait_event", 0, XRT_SUCCESS, xrt_stream_wait_event(e->other, e->t1)) \
    X(event_create, "xrt_event_create", "event create", 0, XRT_SUCCESS, xrt_event_create(&e->made_event, 0))         \
    X(event_destroy, "xrt_event_destroy", "event destroy", 0, XRT_SUCCESS, xrt_event_destroy(e->doomed_event))       \
    X(elapsed, "xrt_event_elapsed_time", "event_elapsed_time of completed events", 0, XRT_SUCCESS,                   \
      xrt_event_elapsed_time(&e->ms, e->t0, e->t1))                                                                   \
    X(stream_native, "xrt_stream_get_native", "stream_get_native", 0, XRT_ERROR_UNSUPPORTED,                         \
      xrt_stream_get_native(e->s, &e->native))                                                                        \
    X(event_native, "xrt_event_get_native", "event_get_native", 0, XRT_ERROR_UNSUPPORTED,                            \
      xrt_event_get_native(e->mine, &e->native))                                                                      \
    X(wrap_native, "xrt_stream_wrap_native", "stream_wrap_native", 0, XRT_ERROR_UNSUPPORTED,                         \
      xrt_stream_wrap_native(&e->wrapped, e->h))                                                                      \
    X(export, "xrt_mem_export_dmabuf", "mem_export_dmabuf", 0, XRT_ERROR_UNSUPPORTED,                                \
      xrt_mem_export_dmabuf(e->d, 4096, &e->fd, &e->offset))                                                          \
    X(target, "xrt_get_target", "get_target", 0, XRT_SUCCESS, xrt_get_target(&e->target))                            \
    X(module_load, "xrt_module_load", "module_load (C source)", 0, XRT_SUCCESS, xrt_module_load(&e->made_mod, &hf_image, 1, NULL)) \
    X(module_unload, "xrt_module_unload", "module_unload", 0, XRT_SUCCESS, xrt_module_unload(e->mod))

typedef struct hf_case {
    const char *fn;
    const char *name;
    xrt_status (*call)(hf_env *e);
    int waits;
    xrt_status on_cpu;
} hf_case;

#define HF_FN(id, fn, name, waits, on_cpu, ...) \
    static xrt_status hf_##id(hf_env *e) { (void)e; return __VA_ARGS__; }
HF_CASES(HF_FN)
#undef HF_FN
#define HF_ROW(id, fn, name, waits, on_cpu, ...) {fn, name, hf_##id, waits, on_cpu},
static const hf_case hf_cases[] = {HF_CASES(HF_ROW)};
#undef HF_ROW

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
        setenv("XRT_CACHE", "0", 1);
        CHILD_OK(xrt_module_load(&env.mod, &hf_image, 1, NULL));
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
    if (env.mod && c->call != hf_module_unload) CHILD_OK(xrt_module_unload(env.mod));
    xrt_shutdown(); /* frees what the calls made */
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

static int hf_has(const char *name)
{
    size_t j;
    for (j = 0; j < sizeof hf_cases / sizeof hf_cases[0]; j++)
        if (strcmp(hf_cases[j].fn, name) == 0) return 1;
    for (j = 0; j < sizeof hf_no_case / sizeof hf_no_case[0]; j++)
        if (hf_no_case[j] && strcmp(hf_no_case[j], name) == 0) return 1;
    return 0;
}

static void test_every_operation_has_a_case(void **state)
{
    int missing;
    (void)state;
    if ((missing = xrt_test_ops_missing(hf_has, "HF_CASES of tests/test_host_fn.c")) != 0)
        fail_msg("%d operations of XRT__BACKEND_OPS have no host-function case (listed above)", missing);
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
