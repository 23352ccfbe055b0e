/* SPDX-License-Identifier: MIT */
/* Three translation units: this one and the XRT_IMPL unit (tests/impl.c),
   built without XRT_API_PER_THREAD_DEFAULT_STREAM, and
   tests/per_thread/caller.c, built with it, as nvcc's --default-stream
   per-thread builds a unit. The calls xrt implements out of line (the
   symbol copies, xrt_launch_kernel_params,
   xrt_stream_begin_capture_to_graph) are compiled once, there; the NULL
   stream the caller passes them is the caller's: its thread's own stream
   there, as the inline calls' NULL there (cudaMemcpyToSymbolAsync_ptsz &
   co). Another thread's own stream held by a host function holds the
   legacy stream too (which waits for every blocking stream), but not the
   caller's own. */
#include "xrt_test.h"

#include "per_thread/caller.h"

#include <pthread.h>

/* Holds its thread's own stream until the gate opens. */
static void *hold_own_stream(void *arg)
{
    xrt_status st = xrt_launch_host_func(XRT_STREAM_PER_THREAD, gate_wait, arg);
    if (st == XRT_SUCCESS) st = xrt_stream_synchronize(XRT_STREAM_PER_THREAD);
    return (void *)(intptr_t)st;
}

/* Opens the gate after 3 s: a call that wrongly waits for the held stream
   is then slow, not stuck. */
static void *open_late(void *arg)
{
    sleep_ms(3000);
    gate_open((gate *)arg);
    return NULL;
}

static const char kernel_src[] = "#include \"xrt.h\"\n"
                                 "int table[16];\n"
                                 "const xrt_kernel_param k_xrt_params[] = {{0, 4}, {0, 0}};\n"
                                 "void k(const xrt_kernel_ctx *c, void *a) { (void)c; table[15] = *(int *)a; }\n";

static void test_out_of_line_calls_follow_the_caller(void **state)
{
    int in[16], in2[16], back[16], v = 77, i;
    void *params[1] = {&v};
    xrt_module_image im;
    xrt_module m = NULL;
    xrt_function f = NULL;
    pthread_t holder, late;
    void *held = NULL;
    double t0;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    SKIP_UNLESS(caps() & XRT_CAP_MODULES, "the backend loads no modules (XRT_CAP_MODULES)");
    setenv("XRT_CACHE", "0", 1);
    im.kind = XRT_IMAGE_CPU_C_SOURCE, im.data = kernel_src, im.size = sizeof kernel_src - 1, im.arch = NULL;
    OK(xrt_module_load(&m, &im, 1, NULL));
    OK(xrt_module_get_function(&f, m, "k"));
    for (i = 0; i < 16; i++) in[i] = i + 1, in2[i] = 100 + i;
    assert_int_equal(start_thread(&holder, xrt_test_backend, hold_own_stream, &gates[0]), 0);
    gate_wait_entered(&gates[0]);
    assert_int_equal(pthread_create(&late, NULL, open_late, &gates[0]), 0);
    t0 = now_ms(CLOCK_MONOTONIC);
    memset(back, 0, sizeof back);
    OK(caller_symbol_async(m, "table", in, back, sizeof in));
    assert_memory_equal(back, in, sizeof in);
    OK(caller_launch_params(f, params));
    memset(back, 0, sizeof back);
    OK(caller_symbol_read(m, "table", back, sizeof back));
    assert_memory_equal(back, in, 15 * sizeof v);
    assert_int_equal(back[15], v); /* the kernel's write, in the caller's stream's order */
    OK(caller_symbol_sync(m, "table", in2, back, sizeof in2));
    assert_memory_equal(back, in2, sizeof in2);
    assert_true(now_ms(CLOCK_MONOTONIC) - t0 < 1500);
    assert_int_equal(xrt_stream_query(XRT_STREAM_LEGACY), XRT_ERROR_NOT_READY); /* still held */
    gate_open(&gates[0]);
    assert_int_equal(pthread_join(holder, &held), 0);
    OK((xrt_status)(intptr_t)held);
    assert_int_equal(pthread_join(late, NULL), 0);
    OK(xrt_module_unload(m));
}

/* A capture of the caller's NULL: its thread's own stream, captured into
   the graph (this unit's NULL is the legacy stream, which no capture begins
   on). */
static void test_capture_of_the_callers_null(void **state)
{
    xrt_graph g = NULL, ended = NULL;
    xrt_capture_status cs;
    xrt_status st;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_GRAPHS, "no graphs");
    OK(xrt_graph_create(&g, 0));
    FAILS(xrt_stream_begin_capture_to_graph(NULL, g, NULL, 0, XRT_CAPTURE_MODE_GLOBAL),
          XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED, "the NULL stream cannot be captured");
    if ((st = caller_capture_null(g)) == XRT_ERROR_UNSUPPORTED) { /* a runtime before cudaStreamBeginCaptureToGraph */
        OK(xrt_graph_destroy(g));
        return;
    }
    OK(st);
    OK(xrt_stream_is_capturing(XRT_STREAM_PER_THREAD, &cs));
    assert_int_equal(cs, XRT_CAPTURE_STATUS_ACTIVE);
    FAILS(xrt_stream_is_capturing(XRT_STREAM_LEGACY, &cs), XRT_ERROR_STREAM_CAPTURE_IMPLICIT, "");
    OK(xrt_stream_end_capture(XRT_STREAM_PER_THREAD, &ended));
    assert_ptr_equal(ended, g);
    OK(xrt_graph_destroy(g));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        gated_test(test_out_of_line_calls_follow_the_caller),
        cmocka_unit_test(test_capture_of_the_callers_null),
    };
    return xrt_test_run_on_backends("per-thread units", tests, sizeof tests / sizeof tests[0], NULL);
}
