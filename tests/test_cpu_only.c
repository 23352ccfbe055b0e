/* SPDX-License-Identifier: MIT */
/* A CPU-only build: the Makefile enables every backend whose headers are
   installed, so this program takes CUDA and HIP out again before xrt.h sees
   the macros. __HIP_PLATFORM_AMD__ may still be defined: it says which HIP
   platform, not that HIP is enabled. The built-in names stay known, as
   unavailable backends, so that XRT_BACKEND=cuda,cpu means the same in every
   build. */
#undef XRT_ENABLE_CUDA
#undef XRT_ENABLE_HIP
#define XRT_IMPL /* white-box: built without the GPU backends */
#include "xrt_test.h"

static int fresh(void **state)
{
    (void)state;
    xrt_test_log_calls();
    return reinit("XRT_BACKEND", NULL) == XRT_SUCCESS ? 0 : -1;
}

static int cleanup(void **state)
{
    (void)state;
    unsetenv("XRT_BACKEND");
    xrt_shutdown();
    xrt_set_log_callback(NULL, NULL);
    return 0;
}

/* The reason a disabled backend gives, and the macro that would enable it. */
static const char *const disabled[][2] = {{"cuda", "XRT_ENABLE_CUDA"}, {"hip", "XRT_ENABLE_HIP"}};

static void test_listing(void **state)
{
    xrt_backend_info info;
    int n = 0;
    size_t i;
    (void)state;
    OK(xrt_backend_count(&n));
    assert_int_equal(n, 3);
    for (i = 0; i < 2; i++) {
        assert_true(backend_index(disabled[i][0], &info) >= 0);
        assert_string_equal(info.name, disabled[i][0]);
        assert_false(info.available);
        assert_int_equal(info.abi_version, XRT_BACKEND_ABI_VERSION);
        assert_non_null(strstr(info.reason, "not enabled in this build"));
        assert_non_null(strstr(info.reason, disabled[i][1]));
    }
    assert_true(backend_index("cpu", &info) >= 0);
    assert_true(info.available);
    assert_string_equal(current_backend(), "cpu");
}

static void test_env_priority_list_selects_cpu(void **state)
{
    static const char *const lists[] = {"cuda,cpu", "hip,cpu", "cuda,hip,cpu"};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        OK(reinit("XRT_BACKEND", lists[i]));
        assert_string_equal(current_backend(), "cpu");
        assert_stream_works(NULL, (unsigned char)(0x10 + i));
    }
}

/* Asking for a disabled backend is refused with its reason, whether through
   XRT_BACKEND or xrt_set_backend; the thread keeps its backend. */
static void test_disabled_backend_refused(void **state)
{
    void *p = NULL;
    size_t i;
    (void)state;
    for (i = 0; i < 2; i++) {
        FAILS(reinit("XRT_BACKEND", disabled[i][0]), XRT_ERROR_BACKEND_UNAVAILABLE, "not enabled in this build");
        assert_non_null(strstr(xrt_get_last_error_string(), disabled[i][1]));
        FAILS(xrt_malloc(&p, 16), XRT_ERROR_BACKEND_UNAVAILABLE, "not enabled in this build");
        assert_null(p);
        OK(reinit("XRT_BACKEND", NULL));
        FAILS(xrt_set_backend(disabled[i][0]), XRT_ERROR_BACKEND_UNAVAILABLE, "not enabled in this build");
        assert_non_null(strstr(xrt_get_last_error_string(), disabled[i][1]));
        assert_string_equal(current_backend(), "cpu");
    }
}

static void test_unknown_name_still_unknown(void **state)
{
    (void)state;
    FAILS(reinit("XRT_BACKEND", "nosuch"), XRT_ERROR_NOT_FOUND, "unknown backend 'nosuch'");
    FAILS(xrt_set_backend("nosuch"), XRT_ERROR_NOT_FOUND, "unknown backend 'nosuch'");
}

#define T(f) cmocka_unit_test_setup_teardown(f, fresh, cleanup)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_listing),
        T(test_env_priority_list_selects_cpu),
        T(test_disabled_backend_refused),
        T(test_unknown_name_still_unknown),
    };
    return xrt_test_run_group("cpu only", tests, NULL);
}
