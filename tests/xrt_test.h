/* Shared helpers for the xrt test programs (cmocka). Each tests/test_*.c is one
   program: it defines XRT_IMPL, includes this header, and the Makefile enables
   every backend whose headers are installed. */
#ifndef XRT_TEST_H
#define XRT_TEST_H

#define XRT_IMPL
#include "xrt.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

/* Log capture: tests assert on what was logged, not only on the status. */
static struct { int count; xrt_log_level level; char last[1024]; } xrt_test_log;

static inline void xrt_test_log_fn(xrt_log_level level, const char *msg, void *user)
{
    (void)user;
    xrt_test_log.count++;
    xrt_test_log.level = level;
    snprintf(xrt_test_log.last, sizeof xrt_test_log.last, "%s", msg);
}

static inline void xrt_test_log_capture(void)
{
    memset(&xrt_test_log, 0, sizeof xrt_test_log);
    xrt_set_log_callback(xrt_test_log_fn, NULL);
}

/* Asserts a call's exact status and that the detail string mentions `needle`. */
#define XRT_ASSERT_FAILS(call, status, needle)                                      \
    do {                                                                            \
        xrt_status st_ = (call);                                                    \
        assert_int_equal(st_, (status));                                            \
        assert_non_null(strstr(xrt_get_last_error_string(), (needle)));             \
    } while (0)

/* The backend the current group runs on (set by xrt_test_setup_backend). */
static const char *xrt_test_backend;

static inline int xrt_test_group_setup(void **state)
{
    (void)state;
    xrt_test_log_capture();
    return xrt_set_backend(xrt_test_backend) == XRT_SUCCESS ? 0 : -1;
}

static inline int xrt_test_group_teardown(void **state)
{
    (void)state;
    xrt_set_log_callback(NULL, NULL);
    return 0;
}

/* Runs `tests` once per enabled backend; prints "skipped: <reason>" for the
   unavailable ones. Returns the number of failed tests. */
static inline int xrt_test_run_on_backends(const char *suite, const struct CMUnitTest *tests, size_t count)
{
    int n = 0, i, failed = 0;
    char name[128];
    if (xrt_backend_count(&n) != XRT_SUCCESS) return 1;
    for (i = 0; i < n; i++) {
        xrt_backend_info info;
        if (xrt_backend_get_info(i, &info) != XRT_SUCCESS) return 1;
        if (!info.available) {
            printf("[ SKIPPED  ] %s on %s: skipped: %s\n", suite, info.name, info.reason);
            continue;
        }
        xrt_test_backend = info.name;
        snprintf(name, sizeof name, "%s on %s", suite, info.name);
        failed += _cmocka_run_group_tests(name, tests, count, xrt_test_group_setup, xrt_test_group_teardown);
    }
    return failed;
}

#endif
