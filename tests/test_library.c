/* SPDX-License-Identifier: MIT */
/* xrt inside another library (issue 47 item 1): tests/library/lib.c runs its
   calls on its own backend (the plugin "good", or the cpu backend's other
   device) through xrt_push_backend / xrt_pop_backend, while this program, its
   application, uses the cpu backend on device 1 on the same threads; after
   every library call the application's backend, device, memory and stream
   are checked. Then the misuse: unbalanced pops, a pop on a thread that did
   not push, a full stack, bad handles and devices, calls from host functions,
   a handle used after xrt_shutdown. The Makefile links tests/library/lib.c
   and passes XRT_TEST_PLUGIN_DIR. */
#include "xrt_test.h"

#include "library/lib.h"

#ifndef XRT_TEST_PLUGIN_DIR
#define XRT_TEST_PLUGIN_DIR "build/plugins"
#endif

#define N 4096

/* The application's view: backend cpu, device 1. */
static void app_unmoved(void)
{
    const char *name = NULL;
    int device = -1;
    OK(xrt_get_backend(&name));
    assert_string_equal(name, "cpu");
    OK(xrt_get_device(&device));
    assert_int_equal(device, 1);
}

static int setup(void **state)
{
    (void)state;
    xrt_test_log_calls();
    OK(xrt_set_backend("cpu"));
    OK(xrt_set_device(1));
    return 0;
}

/* The application's own work between the library's calls. */
static void app_work(void *d, xrt_stream s, unsigned char *host, int value)
{
    size_t i;
    OK(xrt_memset_async(d, value, N, s));
    OK(xrt_memcpy_async(host, d, N, XRT_MEMCPY_DEVICE_TO_HOST, s));
    OK(xrt_stream_synchronize(s));
    for (i = 0; i < N; i++) assert_int_equal(host[i], value);
    app_unmoved();
}

static void check_bytes(const unsigned char *b, int value)
{
    size_t i;
    for (i = 0; i < N; i++) assert_int_equal(b[i], value);
}

/* The library on the plugin backend and the application on cpu, interleaved. */
static void *interleave(void *arg)
{
    static unsigned char lib_out[2][N], app_out[2][N];
    int t = arg != NULL, round;
    void *d = NULL;
    xrt_stream s = NULL;
    const char *seen = NULL;
    if (t) { /* a thread of its own starts on the default backend */
        OK(xrt_set_backend("cpu"));
        OK(xrt_set_device(1));
    }
    OK(xrt_malloc(&d, N));
    OK(xrt_stream_create(&s));
    for (round = 0; round < 8; round++) {
        OK(lib_fill(lib_out[t], N, 0x40 + round, &seen));
        assert_string_equal(seen, "good");
        check_bytes(lib_out[t], 0x40 + round);
        app_unmoved();
        app_work(d, s, app_out[t], 0x10 + round);
    }
    OK(xrt_stream_destroy(s));
    OK(xrt_free(d));
    return NULL;
}

static void test_library_beside_application(void **state)
{
    pthread_t th;
    (void)state;
    OK(lib_open("good", 0));
    app_unmoved();
    assert_int_equal(pthread_create(&th, NULL, interleave, (void *)1), 0);
    interleave(NULL);
    assert_int_equal(pthread_join(th, NULL), 0);
    app_unmoved();
}

/* The library on the application's own backend, another device: the device
   is the library's inside and the application's again after the pop, also
   when the library moved it meanwhile. */
static void test_same_backend_other_device(void **state)
{
    xrt_backend_handle cpu = NULL;
    unsigned char out[N];
    const char *seen = NULL;
    int device = -1;
    (void)state;
    OK(lib_open("cpu", 0));
    OK(lib_fill(out, N, 0x5a, &seen));
    assert_string_equal(seen, "cpu");
    check_bytes(out, 0x5a);
    app_unmoved();
    OK(xrt_get_backend_handle(NULL, &cpu)); /* the thread's own: cpu */
    assert_ptr_equal(cpu, lib_handle());
    OK(xrt_push_backend(cpu, 0));
    OK(xrt_get_device(&device));
    assert_int_equal(device, 0);
    OK(xrt_set_device(1));
    OK(xrt_set_device(0)); /* the library moves its device: the pop still restores 1 */
    OK(xrt_pop_backend(NULL));
    app_unmoved();
    OK(xrt_push_backend(cpu, XRT_DEVICE_CURRENT)); /* the device as it is: 1 */
    OK(xrt_get_device(&device));
    assert_int_equal(device, 1);
    OK(xrt_pop_backend(NULL));
    app_unmoved();
}

/* A library inside the library: the outer one on the plugin, the inner one on cpu device 0. */
static void test_nested(void **state)
{
    xrt_backend_handle cpu = NULL;
    unsigned char out[N];
    const char *outer = NULL;
    (void)state;
    OK(lib_open("good", 0));
    OK(xrt_get_backend_handle("cpu", &cpu));
    OK(lib_nested(cpu, 0, out, N, 0x33, &outer));
    assert_string_equal(outer, "good");
    check_bytes(out, 0x33);
    app_unmoved();
}

/* Objects carry their backend, but calls go to the thread's: the library's
   memory is refused outside its push (REFERENCE.md, "Using xrt inside a library"). */
static void test_objects_need_their_backend(void **state)
{
    xrt_backend_handle good = NULL;
    void *d = NULL;
    (void)state;
    OK(xrt_get_backend_handle("good", &good));
    OK(xrt_push_backend(good, 0));
    OK(xrt_malloc(&d, N));
    OK(xrt_pop_backend(NULL));
    FAILS(xrt_free(d), XRT_ERROR_INVALID_POINTER, "belongs to another backend");
    OK(xrt_push_backend(good, 0));
    OK(xrt_free(d));
    OK(xrt_pop_backend(NULL));
    app_unmoved();
}

static void *pop_elsewhere(void *arg)
{
    xrt_backend_handle popped = (xrt_backend_handle)arg;
    FAILS(xrt_pop_backend(&popped), XRT_ERROR_ILLEGAL_STATE, "xrt_pop_backend: this thread pushed no backend");
    assert_null(popped);
    return NULL;
}

/* Handles of this epoch made by hand: one naming an available backend is
   that backend's handle; every other index (an empty slot, a backend that
   is not available here, one past the registry) is refused as a forgery,
   with a device and without, and pushes nothing. */
static void forged_handles_refused(xrt_backend_handle good)
{
    uintptr_t epoch = (uintptr_t)good & ~(uintptr_t)0xff, i;
    xrt_backend_info info;
    xrt_backend_handle h;
    int n = 0, d;
    OK(xrt_backend_count(&n));
    for (i = 1; i <= XRT_MAX_BACKENDS; i++) {
        int available = (int)i <= n && xrt_backend_get_info((int)i - 1, &info) == XRT_SUCCESS && info.available;
        for (d = XRT_DEVICE_CURRENT; d <= 0; d++) {
            if (available) {
                OK(xrt_push_backend((xrt_backend_handle)(epoch | i), d));
                OK(xrt_pop_backend(&h));
                assert_ptr_equal(h, (xrt_backend_handle)(epoch | i));
                OK(xrt_get_backend_handle(info.name, &h));
                assert_ptr_equal(h, (xrt_backend_handle)(epoch | i));
                continue;
            }
            FAILS(xrt_push_backend((xrt_backend_handle)(epoch | i), d), XRT_ERROR_INVALID_HANDLE,
                  "not a backend handle of this xrt");
        }
    }
    FAILS(xrt_pop_backend(NULL), XRT_ERROR_ILLEGAL_STATE, "more pops than pushes");
}

static void test_misuse(void **state)
{
    xrt_backend_handle good = NULL, h = NULL;
    pthread_t th;
    int i;
    (void)state;
    FAILS(xrt_pop_backend(NULL), XRT_ERROR_ILLEGAL_STATE, "more pops than pushes");
    FAILS(xrt_get_backend_handle("good", NULL), XRT_ERROR_INVALID_VALUE, "xrt_get_backend_handle: handle is NULL");
    FAILS(xrt_get_backend_handle("nosuch", &h), XRT_ERROR_NOT_FOUND, "unknown backend 'nosuch' (valid: ");
    assert_null(h);
    FAILS(xrt_push_backend(NULL, 0), XRT_ERROR_INVALID_VALUE, "xrt_push_backend: handle is NULL");
    FAILS(xrt_push_backend((xrt_backend_handle)(uintptr_t)0x7f, 0), XRT_ERROR_INVALID_HANDLE,
          "not a backend handle of this xrt");
    OK(xrt_get_backend_handle("good", &good));
    forged_handles_refused(good);
    FAILS(xrt_push_backend(good, -2), XRT_ERROR_INVALID_DEVICE, "xrt_push_backend: device -2 is negative");
    FAILS(xrt_push_backend(good, 1), XRT_ERROR_INVALID_DEVICE, "good: xrt_set_device"); /* the plugin has one */
    FAILS(xrt_pop_backend(NULL), XRT_ERROR_ILLEGAL_STATE, "more pops than pushes"); /* the failed pushes pushed nothing */
    app_unmoved();
    /* a push is popped on its own thread only */
    OK(xrt_push_backend(good, 0));
    assert_int_equal(pthread_create(&th, NULL, pop_elsewhere, good), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    OK(xrt_pop_backend(&h));
    assert_ptr_equal(h, good);
    app_unmoved();
    /* a full stack */
    for (i = 0; i < XRT_BACKEND_STACK_DEPTH; i++) OK(xrt_push_backend(good, XRT_DEVICE_CURRENT));
    FAILS(xrt_push_backend(good, 0), XRT_ERROR_OUT_OF_MEMORY, "the thread's backend stack is full (16 pushes");
    for (i = 0; i < XRT_BACKEND_STACK_DEPTH; i++) OK(xrt_pop_backend(NULL));
    FAILS(xrt_pop_backend(NULL), XRT_ERROR_ILLEGAL_STATE, "more pops than pushes");
    app_unmoved();
}

static void refused_in_host_fn(void *user)
{
    xrt_status *st = (xrt_status *)user;
    xrt_backend_handle h = NULL;
    st[0] = xrt_push_backend(lib_handle(), 0);
    st[1] = xrt_pop_backend(NULL);
    st[2] = xrt_get_backend_handle("cpu", &h);
}

/* A host function runs on its stream's backend: it may push nothing, nor pop its lender's push. */
static void test_host_fn_refused(void **state)
{
    xrt_status st[3] = {XRT_SUCCESS, XRT_SUCCESS, XRT_SUCCESS};
    xrt_stream s = NULL;
    xrt_backend_handle cpu = NULL;
    (void)state;
    OK(lib_open("good", 0));
    OK(xrt_get_backend_handle("cpu", &cpu));
    OK(xrt_stream_create(&s));
    OK(xrt_push_backend(cpu, XRT_DEVICE_CURRENT)); /* a host function lent this thread must not pop it */
    OK(xrt_launch_host_func(s, refused_in_host_fn, st));
    OK(xrt_stream_synchronize(s));
    OK(xrt_pop_backend(NULL));
    assert_int_equal(st[0], XRT_ERROR_NOT_PERMITTED);
    assert_int_equal(st[1], XRT_ERROR_NOT_PERMITTED);
    assert_int_equal(st[2], XRT_ERROR_NOT_PERMITTED);
    OK(xrt_stream_destroy(s));
    app_unmoved();
}

/* A handle does not outlive xrt_shutdown, also pushed: the pop then restores
   the thread, and the registry's new start decides its backend. */
static void test_after_shutdown(void **state)
{
    xrt_backend_handle good = NULL, h = NULL;
    const char *name = NULL;
    (void)state;
    OK(xrt_get_backend_handle("good", &good));
    OK(xrt_push_backend(good, 0));
    xrt_shutdown();
    OK(xrt_init());
    FAILS(xrt_push_backend(good, 0), XRT_ERROR_INVALID_HANDLE, "made before xrt_shutdown");
    OK(xrt_pop_backend(&h)); /* the push before the shutdown */
    assert_ptr_equal(h, good);
    OK(xrt_get_backend(&name));
    assert_non_null(name);
    OK(xrt_get_backend_handle("good", &h)); /* the plugin registers again at every init */
    assert_ptr_not_equal(h, good);
    FAILS(xrt_push_backend(good, 0), XRT_ERROR_INVALID_HANDLE, "made before xrt_shutdown"); /* its backend is up again */
    OK(xrt_push_backend(h, 0));
    OK(xrt_pop_backend(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_library_beside_application, setup),
        cmocka_unit_test_setup(test_same_backend_other_device, setup),
        cmocka_unit_test_setup(test_nested, setup),
        cmocka_unit_test_setup(test_objects_need_their_backend, setup),
        cmocka_unit_test_setup(test_misuse, setup),
        cmocka_unit_test_setup(test_host_fn_refused, setup),
        cmocka_unit_test_setup(test_after_shutdown, setup),
    };
    setenv("XRT_CPU_DEVICES", "2", 1);
    setenv("XRT_PLUGINS", XRT_TEST_PLUGIN_DIR "/test_good.so", 1);
    unsetenv("XRT_BACKEND");
    return xrt_test_run_group("library", tests, NULL);
}
