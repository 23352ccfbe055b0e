/* SPDX-License-Identifier: MIT */
/* xrt_shutdown while other work is under way: behind a host function that
   calls xrt, xrt_shutdown neither deadlocks nor frees what the host function
   still uses; xrt starts again afterwards. Every group runs on each
   available backend, in a child with an alarm. */
#define XRT_IMPL /* white-box: the memory registry's spares */
#include "xrt_test.h"

/* >> xrt_shutdown behind a host function that calls xrt */
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

/* The case itself, on the current device: a host function that calls xrt
   once the shutdown began, xrt_shutdown on another thread (from `device`,
   if not -1), and xrt started again. */
static int shutdown_behind(int device, const char *whose)
{
    xrt_status want = on_gpu() ? XRT_ERROR_NOT_PERMITTED : XRT_SUCCESS;
    xrt_stream s;
    CHILD_OK(xrt_stream_create(&sh.stale_s));
    CHILD_OK(xrt_stream_destroy(sh.stale_s));
    CHILD_OK(xrt_malloc(&sh.d, 64));
    CHILD_OK(xrt_stream_create(&s));
    CHILD_OK(xrt_launch_host_func(s, calls_during_shutdown, NULL));
    if (device >= 0) CHILD_OK(xrt_set_device(device));
    if (!finishes_within(5000, NULL, do_shutdown, NULL))
        CHILD_FAIL("xrt_shutdown deadlocks behind %s that makes non-waiting xrt calls (host function %s)", whose,
                   sh.done ? "returned" : "did not return");
    if (!__atomic_load_n(&sh.done, __ATOMIC_ACQUIRE))
        CHILD_FAIL("xrt_shutdown returned while %s was still to run", whose);
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

static int shutdown_behind_host_func_child(void *arg)
{
    (void)arg;
    memset(&sh, 0, sizeof sh);
    xrt_set_log_level(XRT_LOG_NONE);
    return shutdown_behind(-1, "a host function");
}

static void test_shutdown_behind_host_function(void **state)
{
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    in_child("xrt_shutdown while a host function calls xrt", shutdown_behind_host_func_child, NULL, 15);
}

/* The same behind a host function of another device's stream: xrt_shutdown
   waits for every device's work, not the current device's alone (as
   xrt_device_synchronize does). */
static int shutdown_behind_other_device_child(void *arg)
{
    const char *backend = (const char *)arg;
    int n = 0;
    memset(&sh, 0, sizeof sh);
    setenv("XRT_CPU_DEVICES", "2", 1); /* the cuda double has two devices of its own */
    xrt_set_log_level(XRT_LOG_NONE);
    CHILD_OK(xrt_set_backend(backend));
    CHILD_OK(xrt_get_device_count(&n));
    if (n < 2) CHILD_FAIL("%d device(s) on %s; 2 expected", n, backend);
    CHILD_OK(xrt_set_device(1));
    return shutdown_behind(0, "a host function of device 1");
}

static void test_shutdown_behind_other_devices_host_function(void **state)
{
    char why[256];
    int n = 0;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    OK(xrt_get_device_count(&n));
    SKIP_UNLESS(n >= 2 || on_cpu(), "one device"); /* cpu: the child asks for two */
    if (run_child_raw(shutdown_behind_other_device_child, (void *)xrt_test_backend, 15, why, sizeof why))
        fail_msg("xrt_shutdown while a host function of another device calls xrt: %s", why);
}

/* >> xrt_shutdown frees what xrt keeps for later calls */
/* The pointer registry's spare records (kept from frees for the next
   allocations: the calling thread's own and the shared ones) are freed by
   xrt_shutdown: still reachable from a static,
   they would be no leak to LSan or valgrind, only memory never given back. */
static int spares_freed_child(void *arg)
{
    void *p, *q;
    (void)arg;
    CHILD_OK(xrt_malloc(&p, 64));
    CHILD_OK(xrt_malloc(&q, 64));
    CHILD_OK(xrt_free(p)); /* the thread's own spare */
    CHILD_OK(xrt_free(q)); /* the shared stack's */
    CHILD_TRUE(xrt__call.mem_spare != NULL);
    CHILD_TRUE(__atomic_load_n(&xrt__mem_spares, __ATOMIC_ACQUIRE) != NULL);
    xrt_shutdown();
    CHILD_TRUE(xrt__call.mem_spare == NULL);
    CHILD_TRUE(__atomic_load_n(&xrt__mem_spares, __ATOMIC_ACQUIRE) == NULL);
    CHILD_TRUE(__atomic_load_n(&xrt__mem_spare_count, __ATOMIC_ACQUIRE) == 0);
    return 0;
}

static void test_shutdown_frees_spares(void **state)
{
    (void)state;
    in_child("xrt_shutdown frees the registry's spare records", spares_freed_child, NULL, 10);
}

/* >> xrt_shutdown while the thread's per-thread stream captures: on the
   CPU backend the capture goes with the stream, and xrt starts again with
   none. It once stayed, its stream freed: a GLOBAL capture refused the next
   xrt_malloc, reading the freed stream's name (ASan: use after free). A GPU
   runtime's capture is the runtime's: xrt_shutdown does not end it. */
static int shutdown_in_capture_child(void *arg)
{
    xrt_capture_status cs = XRT_CAPTURE_STATUS_ACTIVE;
    void *d = NULL;
    (void)arg;
    CHILD_OK(xrt_stream_begin_capture(XRT_STREAM_PER_THREAD, XRT_CAPTURE_MODE_GLOBAL));
    xrt_shutdown();
    CHILD_OK(xrt_init());
    CHILD_OK(xrt_malloc(&d, 64)); /* no GLOBAL capture is under way */
    CHILD_OK(xrt_stream_is_capturing(XRT_STREAM_PER_THREAD, &cs));
    CHILD_TRUE(cs == XRT_CAPTURE_STATUS_NONE);
    CHILD_OK(xrt_free(d));
    xrt_shutdown();
    return 0;
}

static void test_shutdown_in_per_thread_capture(void **state)
{
    (void)state;
    SKIP_UNLESS(on_cpu(), "a GPU runtime's capture is not xrt_shutdown's to end");
    SKIP_UNLESS(caps() & XRT_CAP_GRAPHS, "no graphs");
    in_child("xrt_shutdown while the per-thread stream captures", shutdown_in_capture_child, NULL, 10);
}

/* >> xrt_shutdown while a graph holds a user object: the graph goes, the
   object's destroy runs once (on a GPU, on the runtime's thread), without
   deadlocking on the handle table that xrt_shutdown holds, and the object's
   handle is refused after xrt_init. */
static void shutdown_uobj_destroy(void *user) { __atomic_add_fetch((int *)user, 1, __ATOMIC_RELEASE); }

static int shutdown_with_user_object_child(void *arg)
{
    xrt_graph g[2];
    xrt_user_object o[2];
    int gone = 0, i;
    (void)arg;
    /* made in both orders: a handle before its graph's, and after */
    CHILD_OK(xrt_user_object_create(&o[0], &gone, shutdown_uobj_destroy, 1, XRT_USER_OBJECT_NO_DESTRUCTOR_SYNC));
    CHILD_OK(xrt_graph_create(&g[0], 0));
    CHILD_OK(xrt_graph_create(&g[1], 0));
    CHILD_OK(xrt_user_object_create(&o[1], &gone, shutdown_uobj_destroy, 1, XRT_USER_OBJECT_NO_DESTRUCTOR_SYNC));
    for (i = 0; i < 2; i++) CHILD_OK(xrt_graph_retain_user_object(g[i], o[i], 1, XRT_GRAPH_USER_OBJECT_MOVE));
    xrt_shutdown();
    for (i = 0; i < 5000 && __atomic_load_n(&gone, __ATOMIC_ACQUIRE) < 2; i++) sleep_ms(1);
    CHILD_TRUE(__atomic_load_n(&gone, __ATOMIC_ACQUIRE) == 2);
    CHILD_OK(xrt_init());
    CHILD_TRUE(xrt_user_object_retain(o[0], 1) == XRT_ERROR_INVALID_HANDLE);
    xrt_get_last_error();
    xrt_shutdown();
    return 0;
}

static void test_shutdown_with_user_object_in_graph(void **state)
{
    xrt_user_object o;
    int gone = 0;
    xrt_status st;
    xrt_graph g;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_GRAPHS, "no graphs");
    st = xrt_graph_create(&g, 0);
    if (st == XRT_SUCCESS) OK(xrt_graph_destroy(g));
    else xrt_get_last_error();
    SKIP_UNLESS(st == XRT_SUCCESS, "the backend does not build graphs node by node");
    st = xrt_user_object_create(&o, &gone, shutdown_uobj_destroy, 1, XRT_USER_OBJECT_NO_DESTRUCTOR_SYNC);
    if (st == XRT_SUCCESS) OK(xrt_user_object_release(o, 1));
    else xrt_get_last_error();
    SKIP_UNLESS(st == XRT_SUCCESS, "the runtime has no user objects");
    in_child("xrt_shutdown while a graph holds a user object", shutdown_with_user_object_child, NULL, 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shutdown_behind_host_function),
        cmocka_unit_test(test_shutdown_behind_other_devices_host_function),
        cmocka_unit_test(test_shutdown_frees_spares),
        cmocka_unit_test(test_shutdown_in_per_thread_capture),
        cmocka_unit_test(test_shutdown_with_user_object_in_graph),
    };
    return xrt_test_run_on_backends("shutdown", tests, sizeof tests / sizeof tests[0], NULL);
}
