/* SPDX-License-Identifier: MIT */
/* Shared helpers for the xrt test programs (cmocka). Each tests/test_*.c is one
   program that includes this header first; the Makefile enables every backend
   whose headers are installed. A program is one of two kinds:
   - an application, as a user writes one: its unit sees xrt's API only, and
     the Makefile links the XRT_IMPL unit of its flavour (tests/impl.c,
     compiled once for all of them);
   - white-box: it reaches into the implementation (private functions and
     state, compile-time test switches), so it defines XRT_IMPL before this
     header and is its own XRT_IMPL unit (the Makefile's TESTS_IMPL finds it
     by that line). The helpers that read xrt's private state are here for
     these only.

   The helpers are `static inline` functions and macros, so that a program that
   uses only some of them still compiles under -Werror. The short names (OK,
   FAILS, sleep_ms, gate_wait, ...) are the tests' vocabulary: a test program
   does not define its own under these names. */
#ifndef XRT_TEST_H
#define XRT_TEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* the helpers use POSIX and GNU calls (setenv, mkdtemp, strsignal) */
#endif
#include "xrt.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

/* >> log capture: tests assert on what was logged, not only on the status */
static struct { int count; xrt_log_level level; char last[1024]; } xrt_test_log;
static pthread_mutex_t xrt_test_log_lock = PTHREAD_MUTEX_INITIALIZER; /* threads of a test may fail at once */

static inline void xrt_test_log_fn(xrt_log_level level, const char *msg, void *user)
{
    (void)user;
    pthread_mutex_lock(&xrt_test_log_lock);
    xrt_test_log.count++;
    xrt_test_log.level = level;
    snprintf(xrt_test_log.last, sizeof xrt_test_log.last, "%s", msg);
    pthread_mutex_unlock(&xrt_test_log_lock);
}

static inline void xrt_test_log_capture(void)
{
    memset(&xrt_test_log, 0, sizeof xrt_test_log);
    xrt_set_log_callback(xrt_test_log_fn, NULL);
}

/* Groups assert on the log line of each failed call: by default xrt logs
   none (a failed call is answered by its status), so they ask for warn. */
static inline void xrt_test_log_calls(void)
{
    xrt_test_log_capture();
    xrt_set_log_level(XRT_LOG_WARN);
}

/* The backend the current group runs on (set by xrt_test_run_on_backends);
   NULL outside such a group. */
static const char *xrt_test_backend;

/* >> assertions */
/* A call that must succeed; on failure shows the status and the detail. */
#define OK(call)                                                                                   \
    do {                                                                                           \
        xrt_status ok_ = (call);                                                                   \
        if (ok_ != XRT_SUCCESS) {                                                                  \
            print_error("%s -> %s: %s\n", #call, xrt_status_string(ok_), xrt_get_last_error_string()); \
            fail();                                                                                \
        }                                                                                          \
    } while (0)

/* Asserts a call's exact status and that the detail string mentions `needle`. */
#define XRT_ASSERT_FAILS(call, status, needle)                                      \
    do {                                                                            \
        xrt_status st_ = (call);                                                    \
        assert_int_equal(st_, (status));                                            \
        assert_non_null(strstr(xrt_get_last_error_string(), (needle)));             \
    } while (0)

/* A call that must fail with `status`, record it as the last error and log
   it at XRT_LOG_ERROR, the detail and the log line both containing `needle`
   (the log must be captured: xrt_test_log_capture). */
#define FAILS(call, status, needle)                                                                \
    do {                                                                                           \
        int logs_;                                                                                 \
        xrt_status st2_;                                                                           \
        xrt_get_last_error();                                                                      \
        logs_ = xrt_test_log.count;                                                                \
        st2_ = (call);                                                                             \
        if (st2_ != (status) || !strstr(xrt_get_last_error_string(), (needle)))                    \
            print_error("%s -> %s: \"%s\"; expected %s with \"%s\"\n", #call, xrt_status_string(st2_), \
                        xrt_get_last_error_string(), xrt_status_string(status), (needle));         \
        XRT_ASSERT_FAILS(st2_, (status), (needle));                                                \
        assert_int_equal(xrt_peek_at_last_error(), (status));                                      \
        assert_true(xrt_test_log.count > logs_);                                                   \
        assert_int_equal(xrt_test_log.level, XRT_LOG_ERROR);                                       \
        assert_non_null(strstr(xrt_test_log.last, (needle)));                                      \
    } while (0)

/* cmocka's skip, with the reason that tests/run.sh shows ("skipped: <backend>:
   <why>" inside a per-backend group, "skipped: <why>" outside one). */
#define SKIP_UNLESS(cond, why)                                                                     \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            if (xrt_test_backend) print_message("skipped: %s: %s\n", xrt_test_backend, (why));     \
            else print_message("skipped: %s\n", (why));                                            \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

static inline void assert_bytes(const unsigned char *p, size_t n, unsigned char v)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (p[i] != v) fail_msg("byte %zu is 0x%02x, expected 0x%02x", i, p[i], v);
}

/* Sets 64 bytes of fresh device memory to `v` on stream `s`, copies them
   back on `s` and checks them: the stream runs work in order. */
static inline void assert_stream_works(xrt_stream s, unsigned char v)
{
    unsigned char h[64];
    void *d;
    OK(xrt_malloc(&d, sizeof h));
    memset(h, (unsigned char)~v, sizeof h);
    OK(xrt_memset_async(d, v, sizeof h, s));
    OK(xrt_memcpy_async(h, d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST, s));
    OK(xrt_stream_synchronize(s));
    assert_bytes(h, sizeof h, v);
    OK(xrt_free(d));
}

/* >> the images the Makefile builds from examples/saxpy, in
   XRT_TEST_SAXPY_DIR; XRT_TEST_HIPCC is 1 where hipcc was there to build the
   HIP ones. */
#ifndef XRT_TEST_SAXPY_DIR
#define XRT_TEST_SAXPY_DIR "build/examples/saxpy"
#endif
#ifndef XRT_TEST_HIPCC
#define XRT_TEST_HIPCC 0
#endif
#ifndef XRT_TEST_HIP_BUNDLE_ARCHS /* the Makefile's HIP_BUNDLE_LABEL */
#define XRT_TEST_HIP_BUNDLE_ARCHS "gfx908,gfx90a,gfx1030"
#endif
#define XRT_TEST_HIP_CODE_OBJECT "saxpy_gfx90a.hsaco"
#define XRT_TEST_HIP_BUNDLE "saxpy.hipfb"

/* The file `name` of that directory, read whole (free it); NULL if absent. */
static inline void *saxpy_image(const char *name, size_t *size)
{
    char path[512];
    FILE *f;
    long len;
    void *data = NULL;
    snprintf(path, sizeof path, "%s/%s", XRT_TEST_SAXPY_DIR, name);
    if (!(f = fopen(path, "rb"))) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (data = malloc((size_t)len)) != NULL && fread(data, 1, (size_t)len, f) == (size_t)len) {
        *size = (size_t)len;
    } else {
        free(data);
        data = NULL;
    }
    fclose(f);
    return data;
}

/* Reads the gfx90a code object and the offload bundle hipcc built: 1, or 0
   where hipcc is not installed (a failure where it is and they are missing). */
#define XRT_TEST_NO_HIPCC XRT_TEST_SAXPY_DIR "/" XRT_TEST_HIP_CODE_OBJECT " not built: hipcc not installed (install hipcc)"
static inline int saxpy_hip_images(xrt_module_image *co, xrt_module_image *bundle)
{
    void *c = saxpy_image(XRT_TEST_HIP_CODE_OBJECT, &co->size), *b = saxpy_image(XRT_TEST_HIP_BUNDLE, &bundle->size);
    if (!c || !b) {
        free(c);
        free(b);
        if (XRT_TEST_HIPCC) fail_msg("hipcc is installed, but %s/%s or %s is missing", XRT_TEST_SAXPY_DIR,
                                     XRT_TEST_HIP_CODE_OBJECT, XRT_TEST_HIP_BUNDLE);
        return 0;
    }
    co->kind = XRT_IMAGE_HIP_CODE_OBJECT, co->data = c, co->arch = "gfx90a";
    bundle->kind = XRT_IMAGE_HIP_OFFLOAD_BUNDLE, bundle->data = b, bundle->arch = XRT_TEST_HIP_BUNDLE_ARCHS;
    return 1;
}

/* The sm_90 cubin, the PTX (compute_90) and the fatbin nvcc built: 1, or 0
   where nvcc is not installed (a failure where it is and they are missing). */
#ifndef XRT_TEST_NVCC
#define XRT_TEST_NVCC 0
#endif
#define XRT_TEST_NO_NVCC XRT_TEST_SAXPY_DIR "/saxpy_sm90.cubin not built: nvcc not installed (install the CUDA Toolkit)"
static inline int saxpy_cuda_images(xrt_module_image *cubin, xrt_module_image *ptx, xrt_module_image *fatbin)
{
    void *c = saxpy_image("saxpy_sm90.cubin", &cubin->size), *p = saxpy_image("saxpy.ptx", &ptx->size),
         *f = saxpy_image("saxpy.fatbin", &fatbin->size);
    if (!c || !p || !f) {
        free(c);
        free(p);
        free(f);
        if (XRT_TEST_NVCC) fail_msg("nvcc is installed, but saxpy_sm90.cubin, saxpy.ptx or saxpy.fatbin is missing in %s",
                                    XRT_TEST_SAXPY_DIR);
        return 0;
    }
    cubin->kind = XRT_IMAGE_CUDA_CUBIN, cubin->data = c, cubin->arch = "sm_90";
    ptx->kind = XRT_IMAGE_CUDA_PTX, ptx->data = p, ptx->arch = "compute_90";
    fatbin->kind = XRT_IMAGE_CUDA_FATBIN, fatbin->data = f, fatbin->arch = "sm_90";
    return 1;
}

/* >> backends */
static inline unsigned caps(void)
{
    unsigned c = 0;
    OK(xrt_get_capabilities(&c));
    return c;
}

/* The calling thread's backend. */
static inline const char *current_backend(void)
{
    const char *name = NULL;
    OK(xrt_get_backend(&name));
    assert_non_null(name);
    return name;
}

/* Index of a registered backend by name (its info in *out when not NULL), or
   -1 (*out zeroed). */
static inline int backend_index(const char *name, xrt_backend_info *out)
{
    xrt_backend_info info;
    int n = 0, i;
    if (out) memset(out, 0, sizeof *out);
    OK(xrt_backend_count(&n));
    for (i = 0; i < n; i++) {
        OK(xrt_backend_get_info(i, &info));
        if (strcmp(info.name, name) == 0) {
            if (out) *out = info;
            return i;
        }
    }
    return -1;
}

/* The process default with XRT_BACKEND unset: the first available backend
   (cuda or hip on a machine with a GPU, else cpu). */
static inline const char *first_available(void)
{
    xrt_backend_info info;
    int n = 0, i;
    OK(xrt_backend_count(&n));
    for (i = 0; i < n; i++) {
        OK(xrt_backend_get_info(i, &info));
        if (info.available) return info.name;
    }
    return NULL;
}

/* Sets environment variable `name` (value NULL: unsets it), clears the last
   error and starts xrt again; returns xrt_init's status. */
static inline xrt_status reinit(const char *name, const char *value)
{
    xrt_shutdown();
    if (value) setenv(name, value, 1);
    else unsetenv(name);
    xrt_get_last_error();
    return xrt_init();
}

/* >> time */
static inline void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {}
}

static inline double now_ms(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* >> gates and flags */
/* A host function that blocks its stream until the test opens the gate: it
   stands in for a long kernel. With gates_reset / gates_release as a test's
   setup and teardown, a failed test never leaves a stream blocked. */
typedef struct gate { int open, entered; } gate;
static gate gates[2];

static inline void gate_wait(void *user)
{
    gate *g = (gate *)user;
    __atomic_store_n(&g->entered, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&g->open, __ATOMIC_ACQUIRE)) sleep_ms(1);
}

static inline void gate_open(gate *g) { __atomic_store_n(&g->open, 1, __ATOMIC_RELEASE); }

/* Waits (up to 5 s) until a stream has reached the gate. */
static inline void gate_wait_entered(gate *g)
{
    int i;
    for (i = 0; i < 5000 && !__atomic_load_n(&g->entered, __ATOMIC_ACQUIRE); i++) sleep_ms(1);
    assert_true(__atomic_load_n(&g->entered, __ATOMIC_ACQUIRE));
}

static inline int gates_reset(void **state)
{
    (void)state;
    memset(gates, 0, sizeof gates);
    return 0;
}

static inline int gates_release(void **state)
{
    (void)state;
    gate_open(&gates[0]);
    gate_open(&gates[1]);
    xrt_device_synchronize();
    return 0;
}

/* A test that blocks streams with gates. */
#define gated_test(f) cmocka_unit_test_setup_teardown(f, gates_reset, gates_release)

/* Host functions that leave a trace for the test thread. */
static inline void set_flag(void *user) { __atomic_store_n((int *)user, 1, __ATOMIC_RELEASE); }
static inline int flag(int *f) { return __atomic_load_n(f, __ATOMIC_ACQUIRE); }
static inline void count_up(void *user) { __atomic_add_fetch((int *)user, 1, __ATOMIC_ACQ_REL); }

/* >> threads: every thread a test starts picks its backend */
/* A new thread uses the process default backend, which is cuda or hip on a
   machine with a GPU, whatever the group runs on. start_thread runs fn(arg)
   on a new thread that first selects `backend` (NULL: the calling thread's;
   XRT_TEST_DEFAULT: none, for tests of the process default itself).
   If the selection fails, the thread prints why and returns
   XRT_TEST_NO_BACKEND instead of running fn. Returns pthread_create's code. */
#define XRT_TEST_NO_BACKEND ((void *)(intptr_t)-1)
#define XRT_TEST_DEFAULT ""

typedef struct xrt_test_start { void *(*fn)(void *); void *arg; const char *backend; } xrt_test_start;

static inline void *xrt_test_thread_main(void *p)
{
    xrt_test_start st = *(xrt_test_start *)p;
    free(p);
    if (!st.backend || (st.backend[0] && xrt_set_backend(st.backend) != XRT_SUCCESS)) {
        fprintf(stderr, "thread: cannot select backend %s: %s\n", st.backend ? st.backend : "(none)",
                xrt_get_last_error_string());
        return XRT_TEST_NO_BACKEND;
    }
    return st.fn(st.arg);
}

static inline int start_thread(pthread_t *t, const char *backend, void *(*fn)(void *), void *arg)
{
    xrt_test_start *st = (xrt_test_start *)malloc(sizeof *st);
    int rc;
    if (!st) return -1;
    if (!backend && xrt_get_backend(&backend) != XRT_SUCCESS) backend = NULL;
    st->fn = fn;
    st->arg = arg;
    st->backend = backend;
    rc = pthread_create(t, NULL, xrt_test_thread_main, st);
    if (rc != 0) free(st);
    return rc;
}

/* >> child processes: a case that may crash or hang fails the test, not the program */
/* Under valgrind everything is slower: deadlines are multiplied by this. */
static inline int xrt_test_slowdown(void)
{
    const char *pre = getenv("LD_PRELOAD");
    return pre && strstr(pre, "vgpreload") ? 3 : 1;
}

/* What a child is doing, for the message when its alarm goes off. */
static const char *volatile xrt_test_child_step;
#define child_step(what) (xrt_test_child_step = (what))

/* In a child, cmocka's asserts must not be used: they would jump back into
   the child's copy of the test runner. These print where and why, then end
   the child with status 1. */
#define CHILD_FAIL(...)                                                                            \
    do {                                                                                           \
        fprintf(stderr, "child: %s:%d: ", __FILE__, __LINE__);                                     \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fprintf(stderr, "\n");                                                                     \
        _exit(1);                                                                                  \
    } while (0)
#define CHILD_TRUE(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) CHILD_FAIL("%s is false (last xrt error: %s)", #cond, xrt_get_last_error_string()); \
    } while (0)
/* The call's exact status. */
#define CHILD_EXPECT(call, status)                                                                 \
    do {                                                                                           \
        xrt_status ce_;                                                                            \
        child_step(#call);                                                                         \
        ce_ = (call);                                                                              \
        if (ce_ != (status))                                                                       \
            CHILD_FAIL("%s -> %s (\"%s\"), expected %s", #call, xrt_status_string(ce_),            \
                       xrt_get_last_error_string(), xrt_status_string(status));                    \
    } while (0)
#define CHILD_OK(call) CHILD_EXPECT(call, XRT_SUCCESS)


/* The child machinery's state. A child can send its parent a short report
   through a pipe (child_report; the parent reads it with child_report_get).
   A GPU runtime does not survive fork(): on a backend other than cpu, a
   case runs in a re-executed copy of the test program instead, which runs
   the same group up to the same run_child call (counted per group) and
   then only that case. XRT_TEST_CHILD_EXEC=1 forces that on every backend. */
enum { XRT_TEST_REPORT = 4096 };
static struct {
    int calls;        /* run_child calls so far in this group */
    int target;       /* in a re-executed child: the run_child call it is for; else 0 */
    const char *only; /* in a re-executed child: its group's backend */
    int report_fd;    /* in a child: the pipe to its parent, else -1 */
    int stderr_fd;    /* in a re-executed child: its stderr, kept while the tests before its case run */
    int read_fd;      /* in the parent: the pipe from the child being waited for, else -1 */
    unsigned char report[XRT_TEST_REPORT];
    size_t report_len;
} xrt_test_child = {0, 0, NULL, -1, -1, -1, {0}, 0};

/* A child that ends with this marker and SIGKILL passed (child_end_quietly). */
static const char xrt_test_ok_marker[] = "\001xrt-child-passed";

static inline void xrt_test_child_alarm(int sig)
{
    const char *step = xrt_test_child_step;
    static const char head[] = "child: hung in: ";
    if (step && write(2, head, sizeof head - 1) > 0 && write(2, step, strlen(step)) > 0 && write(2, "\n", 1) > 0) {}
    signal(sig, SIG_DFL);
    raise(sig);
}

/* In a child: crash signals back to their default action (cmocka's handlers
   would jump into the child's copy of the runner), and an alarm of
   `seconds` (times the slowdown) that ends a hang after printing the step
   set by child_step. */
static inline void xrt_test_child_enter(int seconds)
{
    static const int crash[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGSYS};
    size_t i;
    for (i = 0; i < sizeof crash / sizeof crash[0]; i++) signal(crash[i], SIG_DFL);
    xrt_test_child_step = NULL;
    signal(SIGALRM, xrt_test_child_alarm);
    alarm((unsigned)(seconds * xrt_test_slowdown()));
}

/* fork() for a test case: flushes stdio first (or the child would print the
   parent's buffered output again), opens the report pipe, and in the child
   calls xrt_test_child_enter. Wait for the child with child_status. */
static inline pid_t child_fork(int seconds)
{
    int fds[2] = {-1, -1};
    pid_t pid;
    fflush(NULL);
    if (pipe(fds) != 0) fds[0] = fds[1] = -1;
    pid = fork();
    if (pid == 0) {
        if (fds[0] >= 0) close(fds[0]);
        xrt_test_child.report_fd = fds[1];
        xrt_test_child.read_fd = -1;
        xrt_test_child_enter(seconds);
        return 0;
    }
    if (fds[1] >= 0) close(fds[1]);
    xrt_test_child.read_fd = fds[0];
    return pid;
}

/* In a child: sends `n` bytes to the parent (at most XRT_TEST_REPORT in all). */
static inline void child_report(const void *data, size_t n)
{
    if (xrt_test_child.report_fd >= 0 && write(xrt_test_child.report_fd, data, n) < 0) {}
}

/* In the parent: what the last child reported; returns the bytes copied. */
static inline size_t child_report_get(void *data, size_t n)
{
    if (n > xrt_test_child.report_len) n = xrt_test_child.report_len;
    memcpy(data, xrt_test_child.report, n);
    return n;
}

/* In a re-executed child, before its case: the other cases' results are
   not known there, so a test must not judge them. */
static inline int child_rerun(void) { return xrt_test_child.target != 0; }

/* Ends a child with `code`. _exit skips LeakSanitizer's check at exit, so
   under ASan a child that passed runs it first: a leak in the child then
   ends it with ASan's failure status, which its parent sees. */
#ifdef __has_feature
#define XRT_TEST_HAS_FEATURE(f) __has_feature(f)
#else
#define XRT_TEST_HAS_FEATURE(f) 0
#endif
#if defined(__SANITIZE_THREAD__) || XRT_TEST_HAS_FEATURE(thread_sanitizer)
#define UNDER_TSAN 1
#else
#define UNDER_TSAN 0
#endif
/* A case whose forked child uses a stream (a queued set or copy, a host
   function) starts a worker thread there: TSan starts no thread in the
   forked child of a process with threads (its die_after_fork). */
#define SKIP_IF_CHILD_STREAMS_UNDER_TSAN()                                                         \
    SKIP_UNLESS(!UNDER_TSAN, "TSan cannot start the child's stream thread after fork (its die_after_fork)")
#if defined(__SANITIZE_ADDRESS__) || XRT_TEST_HAS_FEATURE(address_sanitizer)
#include <sanitizer/lsan_interface.h>
#define XRT_TEST_LEAK_CHECK() __lsan_do_leak_check()
#else
#define XRT_TEST_LEAK_CHECK() ((void)0)
#endif
static inline void child_exit(int code)
{
    if (code == 0) {
        fflush(NULL);
        XRT_TEST_LEAK_CHECK();
    }
    _exit(code);
}

/* Ends a child that passed without the leak check valgrind would run at its
   exit: for a child forked while other threads of the parent were inside
   xrt, whose blocks in flight are lost to the child (only those threads
   pointed at them). Elsewhere the same as _exit(0). */
static inline void child_end_quietly(void)
{
    if (xrt_test_slowdown() > 1 && xrt_test_child.report_fd >= 0) {
        child_report(xrt_test_ok_marker, sizeof xrt_test_ok_marker);
        kill(getpid(), SIGKILL);
    }
    _exit(0);
}

/* Waits for the child (killing it once it overran its alarm by 5 s) and
   reads its report. Returns 0 if it passed (exit status 0), else 1 with
   what happened in `why`. */
static inline int child_status(pid_t pid, int seconds, char *why, size_t n)
{
    double end = now_ms(CLOCK_MONOTONIC) + 1000.0 * (seconds * xrt_test_slowdown() + 5);
    int status = 0, passed = 0;
    pid_t r = -1;
    ssize_t got;
    if (pid > 0)
        while ((r = waitpid(pid, &status, WNOHANG)) == 0 && now_ms(CLOCK_MONOTONIC) < end) sleep_ms(2);
    if (pid > 0 && r == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    xrt_test_child.report_len = 0;
    if (xrt_test_child.read_fd >= 0) {
        while (xrt_test_child.report_len < XRT_TEST_REPORT &&
               (got = read(xrt_test_child.read_fd, xrt_test_child.report + xrt_test_child.report_len,
                           XRT_TEST_REPORT - xrt_test_child.report_len)) > 0)
            xrt_test_child.report_len += (size_t)got;
        close(xrt_test_child.read_fd);
        xrt_test_child.read_fd = -1;
    }
    if (xrt_test_child.report_len >= sizeof xrt_test_ok_marker &&
        memcmp(xrt_test_child.report + xrt_test_child.report_len - sizeof xrt_test_ok_marker, xrt_test_ok_marker,
               sizeof xrt_test_ok_marker) == 0) {
        xrt_test_child.report_len -= sizeof xrt_test_ok_marker;
        passed = 1;
    }
    if (pid <= 0) snprintf(why, n, "fork failed");
    else if (r == 0) snprintf(why, n, "HANG: the child ignored its alarm (killed)");
    else if (r != pid) snprintf(why, n, "waitpid failed");
    else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL && passed) return 0;
    else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
        snprintf(why, n, "HANG: the child did not finish within %d s", seconds * xrt_test_slowdown());
    else if (WIFSIGNALED(status))
        snprintf(why, n, "CRASH: the child died of signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else if (WEXITSTATUS(status) == 99)
        snprintf(why, n, "the re-executed child did not reach its case (the tests before it changed)");
    else if (WEXITSTATUS(status) != 0)
        snprintf(why, n, "the child failed with exit status %d (its message is above)", WEXITSTATUS(status));
    else return 0;
    return 1;
}

/* The same, as a cmocka failure naming `what`. */
static inline void child_wait(pid_t pid, int seconds, const char *what)
{
    char why[256];
    if (child_status(pid, seconds, why, sizeof why)) fail_msg("%s: %s", what, why);
}

/* Runs fn(arg) in a child on a fresh xrt: the parent shuts xrt down first, so
   the child inherits no streams or worker threads; with `select`, the child
   selects the parent's backend first (else fn starts from nothing, xrt not
   even initialised). The child ends with fn's return value (0: passed); the
   parent selects its backend again (xrt_shutdown forgot it). Returns 0, or
   1 with what went wrong in `why`. */
static inline int xrt_test_run_child(int (*fn)(void *), void *arg, int seconds, char *why, size_t n, int select)
{
    const char *name = NULL;
    char backend[64] = "";
    int k = ++xrt_test_child.calls, re_exec;
    pid_t pid;
    if (xrt_get_backend(&name) == XRT_SUCCESS && name) snprintf(backend, sizeof backend, "%s", name);
    if (xrt_test_child.target) { /* a re-executed child: only its own case */
        if (k != xrt_test_child.target) return 0;
        if (xrt_test_child.stderr_fd >= 0) dup2(xrt_test_child.stderr_fd, 2); /* its own case speaks */
        xrt_test_child_enter(seconds);
        xrt_shutdown();
        if (select && backend[0] && xrt_set_backend(backend) != XRT_SUCCESS)
            CHILD_FAIL("xrt_set_backend(%s): %s", backend, xrt_get_last_error_string());
        _exit(fn(arg));
    }
    re_exec = getenv("XRT_TEST_CHILD_EXEC") || (backend[0] && strcmp(backend, "cpu") != 0);
    xrt_shutdown();
    pid = child_fork(seconds + (re_exec ? 30 : 0)); /* a re-executed child first runs the tests before */
    if (pid == 0) {
        if (re_exec) {
            char spec[128], self[4096];
            int null = open("/dev/null", O_WRONLY), err = dup(2);
            /* the program itself: under valgrind /proc/self/exe is valgrind's tool */
            if (!realpath(program_invocation_name, self)) snprintf(self, sizeof self, "/proc/self/exe");
            snprintf(spec, sizeof spec, "%s:%d:%d:%d", backend, k, xrt_test_child.report_fd, err);
            setenv("XRT_TEST_CHILD", spec, 1);
            unsetenv("LD_PRELOAD"); /* valgrind's: the copy runs on its own */
            unsetenv("XRT_TRACE_JSON"); /* the tracer's timeline is the parent's: a copy would open it anew */
            if (null >= 0) dup2(null, 1); /* its copy of the tests before the case says nothing */
            if (null >= 0) dup2(null, 2);
            execl(self, "xrt-test-child", (char *)NULL);
            if (err >= 0) dup2(err, 2);
            CHILD_FAIL("cannot re-execute the test program %s: %s", self, strerror(errno));
        }
        if (select && backend[0] && xrt_set_backend(backend) != XRT_SUCCESS)
            CHILD_FAIL("xrt_set_backend(%s): %s", backend, xrt_get_last_error_string());
        _exit(fn(arg));
    }
    if (backend[0]) xrt_set_backend(backend);
    return child_status(pid, seconds + (re_exec ? 30 : 0), why, n);
}

static inline int run_child(int (*fn)(void *), void *arg, int seconds, char *why, size_t n)
{
    return xrt_test_run_child(fn, arg, seconds, why, n, 1);
}

/* The same with no backend selected and xrt not started in the child. */
static inline int run_child_raw(int (*fn)(void *), void *arg, int seconds, char *why, size_t n)
{
    return xrt_test_run_child(fn, arg, seconds, why, n, 0);
}

static inline void in_child(const char *what, int (*fn)(void *), void *arg, int seconds)
{
    char why[256];
    if (run_child(fn, arg, seconds, why, sizeof why)) fail_msg("%s: %s", what, why);
}

/* For a call that may hang: runs fn(arg) on a thread of the backend `backend`
   (NULL: the caller's) and waits up to `ms` (times the slowdown) for it.
   Returns 1 if it finished, 0 if it is still blocked (the thread is then
   left behind: use it in a child only). */
typedef struct xrt_test_watch { void *(*fn)(void *); void *arg; int done; } xrt_test_watch;

static inline void *xrt_test_watch_main(void *p)
{
    xrt_test_watch *w = (xrt_test_watch *)p;
    w->fn(w->arg);
    __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static inline int finishes_within(int ms, const char *backend, void *(*fn)(void *), void *arg)
{
    static xrt_test_watch w; /* static: it outlives a call that never returns */
    pthread_t t;
    double end;
    w.fn = fn;
    w.arg = arg;
    w.done = 0;
    if (start_thread(&t, backend, xrt_test_watch_main, &w) != 0) return 0;
    end = now_ms(CLOCK_MONOTONIC) + (double)ms * xrt_test_slowdown();
    while (!__atomic_load_n(&w.done, __ATOMIC_ACQUIRE) && now_ms(CLOCK_MONOTONIC) < end) sleep_ms(1);
    if (!__atomic_load_n(&w.done, __ATOMIC_ACQUIRE)) return 0;
    pthread_join(t, NULL);
    return 1;
}

/* >> sanitizers: some cases cannot run under them */
#if defined(__SANITIZE_ADDRESS__)
#define XRT_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define XRT_TEST_ASAN 1
#endif
#endif

/* >> small shared pieces */
/* Whether the group runs on a GPU backend (cuda or hip). Decided by the
   group's backend, not by asking xrt: after xrt_shutdown the thread's choice
   is forgotten, and in a forked child on a GPU backend xrt_get_backend is
   refused. */
static inline int on_gpu(void)
{
    return xrt_test_backend && (strcmp(xrt_test_backend, "cuda") == 0 || strcmp(xrt_test_backend, "hip") == 0);
}

/* The flags (XRT_BACKEND_*) of the group's backend, as its registry table
   has them: noted by the group's setup, so that a test reads them after
   xrt_shutdown and in a forked child too (as on_gpu). */
static uint32_t xrt_test_backend_flags;

/* Whether the group runs on the CPU: the cpu backend, or a plugin that
   wraps it (the tracer over cpu), whose memory is host memory
   (XRT_BACKEND_HOST_MEMORY: host->wraps gives a forwarder its target's).
   Its behaviour and its details are the CPU's: a test that means "on the
   CPU" asks this, not for the name "cpu"; one about the cpu backend
   itself (its internals, its variables in a child that selects "cpu")
   keeps the name. */
static inline int on_cpu(void) { return xrt_test_backend && (xrt_test_backend_flags & XRT_BACKEND_HOST_MEMORY) != 0; }

/* Whether a forked child may use the group's backend
   (XRT_BACKEND_FORK_SAFE): the cpu backend; not a GPU runtime, nor the
   tracer, which refuses a forked child whatever its target. */
static inline int survives_fork(void) { return xrt_test_backend && (xrt_test_backend_flags & XRT_BACKEND_FORK_SAFE) != 0; }

/* Whether the group is the cpu backend itself, by name: for a test of its
   internals (its structures, its variables), or one whose children select
   "cpu" themselves, which then runs once, not again in a wrapper's group. */
static inline int on_cpu_backend(void) { return xrt_test_backend && strcmp(xrt_test_backend, "cpu") == 0; }

/* A host function that does nothing. */
static inline void nop(void *user) { (void)user; }

/* Waits (up to ms, times the slowdown) for *f to become nonzero. */
static inline int wait_flag(int *f, int ms)
{
    double end = now_ms(CLOCK_MONOTONIC) + (double)ms * xrt_test_slowdown();
    while (!__atomic_load_n(f, __ATOMIC_ACQUIRE) && now_ms(CLOCK_MONOTONIC) < end) sleep_ms(1);
    return __atomic_load_n(f, __ATOMIC_ACQUIRE);
}

/* In a child: 64 bytes set and read back on stream s, in order. */
static inline void child_stream_works(xrt_stream s, unsigned char v)
{
    unsigned char h[64];
    void *d;
    int i;
    CHILD_OK(xrt_malloc(&d, sizeof h));
    memset(h, (unsigned char)~v, sizeof h);
    CHILD_OK(xrt_memset_async(d, v, sizeof h, s));
    CHILD_OK(xrt_memcpy_async(h, d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST, s));
    CHILD_OK(xrt_stream_synchronize(s));
    for (i = 0; i < (int)sizeof h; i++)
        if (h[i] != v) CHILD_FAIL("byte %d is 0x%02x, expected 0x%02x", i, h[i], v);
    CHILD_OK(xrt_free(d));
}

/* Runs each case of a table in its own child (run_child); lists every
   failing case, then fails the test if any did. */
typedef struct child_case { const char *name; int (*fn)(void *); const void *arg; } child_case;

static inline void run_cases(const char *what, const child_case *cases, size_t n, int seconds)
{
    char why[256];
    size_t i;
    int failed = 0;
    for (i = 0; i < n; i++)
        if (run_child(cases[i].fn, (void *)(uintptr_t)cases[i].arg, seconds, why, sizeof why)) {
            failed++;
            print_error("%s: %s: %s\n", what, cases[i].name, why);
        }
    if (failed) fail_msg("%d of %d %s cases failed (listed above)", failed, (int)n, what);
}


/* Creates `events` events and `streams` streams (8 at most each) on the
   calling thread, then destroys them: the thread then keeps free handle
   slots of its own. 0, or 1 when a call failed (its error is the thread's). */
static inline int handles_made_and_destroyed(int events, int streams)
{
    xrt_event e[8];
    xrt_stream s[8];
    int i;
    for (i = 0; i < events; i++)
        if (xrt_event_create(&e[i], 0) != XRT_SUCCESS) return 1;
    for (i = 0; i < streams; i++)
        if (xrt_stream_create(&s[i]) != XRT_SUCCESS) return 1;
    for (i = 0; i < events; i++)
        if (xrt_event_destroy(e[i]) != XRT_SUCCESS) return 1;
    for (i = 0; i < streams; i++)
        if (xrt_stream_destroy(s[i]) != XRT_SUCCESS) return 1;
    return 0;
}
#ifdef XRT_IMPL
/* >> the handle table (white-box): slots handed out so far that are neither
   live, nor waiting for calls to finish (retired), nor free (on the table's
   free list or in a registered thread's cache) are lost; a slot counted twice
   makes the result negative, and a thread's cache holding more than
   XRT__HANDLE_CACHE slots very negative. Call while no other thread creates
   or destroys handles. */
static inline long handle_slots_lost(void)
{
    const struct xrt__call_state *c;
    const xrt__limbo *l;
    uintptr_t i;
    long n;
    pthread_mutex_lock(&xrt__handle_lock);
    pthread_mutex_lock(&xrt__call_lock);
    n = (long)xrt__handle_next;
    for (i = xrt__handle_free_list; i != XRT__HANDLE_MAX; i = xrt__handle_slot_at(i)->flags) n--;
    for (c = xrt__call_list.next; c != &xrt__call_list; c = c->next) {
        if (c->nfree > XRT__HANDLE_CACHE) n = -1000000; /* a cache written past its array */
        n -= (long)c->nfree;
    }
    for (l = xrt__limbo_list; l; l = l->next) n--;
    for (i = 0; i < xrt__handle_next; i++)
        n -= (__atomic_load_n(&xrt__handle_slot_at(i)->tag, __ATOMIC_ACQUIRE) & XRT__HANDLE_KIND_MASK) != 0;
    pthread_mutex_unlock(&xrt__call_lock);
    pthread_mutex_unlock(&xrt__handle_lock);
    return n;
}
#endif

/* >> another backend: it owns streams, events and memory that the tested
   backend does not, for the tests of foreign handles and pointers. Its
   memory is host memory; its streams and events are one-byte tokens. */
#define XRT_TEST_OTHER "other"

static inline xrt_status xrt_test_other_init(const xrt_backend *self, char *reason, size_t n)
{
    (void)self, (void)reason, (void)n;
    return XRT_SUCCESS;
}
static inline xrt_status xrt_test_other_get_device(const xrt_backend *self, int *device)
{
    (void)self;
    *device = 0;
    return XRT_SUCCESS;
}
static inline xrt_status xrt_test_other_malloc(const xrt_backend *self, void **p, size_t n)
{
    (void)self;
    *p = aligned_alloc(XRT_ALIGNMENT, (n + XRT_ALIGNMENT - 1) & ~(size_t)(XRT_ALIGNMENT - 1));
    return *p ? XRT_SUCCESS : XRT_ERROR_OUT_OF_MEMORY;
}
static inline xrt_status xrt_test_other_free(const xrt_backend *self, void *p)
{
    (void)self;
    free(p);
    return XRT_SUCCESS;
}
static inline xrt_status xrt_test_other_object_create(const xrt_backend *self, void **obj)
{
    (void)self;
    *obj = malloc(1);
    return *obj ? XRT_SUCCESS : XRT_ERROR_OUT_OF_MEMORY;
}
static inline xrt_status xrt_test_other_stream_create_with_priority(const xrt_backend *self, void **s, unsigned flags,
                                                                    int priority)
{
    (void)flags, (void)priority;
    return xrt_test_other_object_create(self, s);
}
static inline xrt_status xrt_test_other_event_create(const xrt_backend *self, void **e, unsigned flags)
{
    (void)flags;
    return xrt_test_other_object_create(self, e);
}

/* Its table, named XRT_TEST_OTHER (tests of registration change a copy). */
static inline xrt_backend xrt_test_other_table(void)
{
    xrt_backend b;
    memset(&b, 0, sizeof b);
    b.abi_version = XRT_BACKEND_ABI_VERSION;
    b.size = sizeof b;
    b.name = XRT_TEST_OTHER;
    b.init = xrt_test_other_init;
    b.get_device = xrt_test_other_get_device;
    b.malloc = xrt_test_other_malloc;
    b.free = xrt_test_other_free;
    b.stream_create = xrt_test_other_object_create;
    b.stream_create_with_priority = xrt_test_other_stream_create_with_priority;
    b.stream_destroy = xrt_test_other_free;
    b.event_create = xrt_test_other_event_create;
    b.event_destroy = xrt_test_other_free;
    return b;
}

/* Registers it unless it is registered (groups run once per backend):
   XRT_SUCCESS, or the registration's error. */
static inline xrt_status xrt_test_other_register(void)
{
    static xrt_backend other;
    xrt_status st;
    other = xrt_test_other_table();
    st = xrt_register_backend(&other);
    if (st == XRT_ERROR_ALREADY_EXISTS) {
        xrt_get_last_error(); /* not the caller's error */
        st = XRT_SUCCESS;
    }
    return st;
}

#ifdef XRT_IMPL /* (xrt__host_fn_run, xrt__builtin_table) */
/* >> a backend that refuses: like the other backend, but neither fork-safe
   nor letting host functions call xrt (flags 0), as CUDA and HIP; its host
   functions run at once, on the launching thread, through xrt's host-function
   runner. It stands in for a GPU backend where there is none. */
#define XRT_TEST_REFUSER "refuser"

static inline xrt_status xrt_test_refuser_launch(const xrt_backend *self, void *stream, xrt_host_fn fn, void *user)
{
    (void)stream;
    xrt__host_fn_run(self, fn, user);
    return XRT_SUCCESS;
}
static inline xrt_status xrt_test_refuser_sync(const xrt_backend *self, void *stream)
{
    (void)self, (void)stream;
    return XRT_SUCCESS;
}
static inline xrt_status xrt_test_refuser_count(const xrt_backend *self, int *count)
{
    (void)self;
    *count = 1;
    return XRT_SUCCESS;
}

/* Its modules are the CPU backend's, where this build has it (C source
   built with cc), so that the refused calls meet live module and function
   handles, as on a GPU; a launch is not supported (its streams are no CPU
   streams). */
static xrt_backend xrt_test_refuser_cpu;

static inline xrt_status xrt_test_refuser_module_load(const xrt_backend *self, void **module,
                                                       const xrt_module_image *images, size_t n, const char *options,
                                                       char *log, size_t log_size)
{
    (void)self;
    return xrt_test_refuser_cpu.module_load(&xrt_test_refuser_cpu, module, images, n, options, log, log_size);
}
static inline xrt_status xrt_test_refuser_module_unload(const xrt_backend *self, void *module)
{
    (void)self;
    return xrt_test_refuser_cpu.module_unload(&xrt_test_refuser_cpu, module);
}
static inline xrt_status xrt_test_refuser_module_get_function(const xrt_backend *self, void **function, void *module,
                                                               const char *name)
{
    (void)self;
    return xrt_test_refuser_cpu.module_get_function(&xrt_test_refuser_cpu, function, module, name);
}
static inline xrt_status xrt_test_refuser_function_get_attributes(const xrt_backend *self,
                                                                   xrt_function_attributes *attr, void *function)
{
    (void)self;
    return xrt_test_refuser_cpu.function_get_attributes(&xrt_test_refuser_cpu, attr, function);
}

static inline xrt_status xrt_test_refuser_register(void)
{
    static xrt_backend t;
    xrt_status st;
    t = xrt_test_other_table();
    if (xrt__builtin_table("cpu", &xrt_test_refuser_cpu)) {
        t.module_load = xrt_test_refuser_module_load;
        t.module_unload = xrt_test_refuser_module_unload;
        t.module_get_function = xrt_test_refuser_module_get_function;
        t.function_get_attributes = xrt_test_refuser_function_get_attributes;
    }
    t.name = XRT_TEST_REFUSER;
    t.malloc_host = xrt_test_other_malloc;
    t.free_host = xrt_test_other_free;
    t.get_device_count = xrt_test_refuser_count;
    t.launch_host_func = xrt_test_refuser_launch;
    t.stream_synchronize = xrt_test_refuser_sync;
    st = xrt_register_backend(&t);
    if (st == XRT_ERROR_ALREADY_EXISTS) {
        xrt_get_last_error();
        st = XRT_SUCCESS;
    }
    return st;
}
#endif

/* >> every call made with live objects: one table, XRT_TEST_CALLS, for two
   rules.
   - Inside a host function (tests/test_host_fn.c, each row in a child of its
     own): on the CPU backend a call that waits returns
     XRT_ERROR_NOT_PERMITTED, a call that does not wait its own status (the
     table's); on a backend that refuses every call from its host functions
     (cuda, hip), XRT_ERROR_NOT_PERMITTED.
   - On a refusing backend, every call made from one of its host functions
     (tests/test_host_fn.c) or in a forked child (tests/test_fork.c), all the
     rows one after the other on the same objects, returns
     XRT_ERROR_NOT_PERMITTED before any check of its handles, pointers or
     arguments: hence the rows with bad arguments.
   - A row whose status is an argument error (not success, not ready, not
     permitted or unsupported) is also a bad input (tests/test_badinput.c):
     outside a host function, on every backend, it gets that status, named
     in the detail and logged. A simple operation's misuse (a NULL out-value)
     is such a row; misuse that needs other objects (stale or foreign
     handles) is a row of BAD_ROWS there.
   Every operation of XRT__BACKEND_OPS has a row (test_every_operation_has_a_case,
   tests/test_host_fn.c). xrt_test_calls_make creates the objects on the
   calling thread's backend (a module and its function where the backend
   loads the CPU's C source; else they stay NULL, and the calls must be
   refused all the same). */
static inline void xrt_test_calls_nothing(void *user) { (void)user; } /* a user object's destroy */

typedef struct xrt_test_calls {
    /* made by xrt_test_calls_make */
    xrt_stream s;      /* the stream of the host function that makes a call */
    xrt_stream other;  /* another stream; t0 and t1 may be recorded on it */
    xrt_stream doomed; /* idle, for xrt_stream_destroy */
    xrt_event after;   /* may be recorded on s behind the host function */
    xrt_event never;   /* never recorded */
    xrt_event mine, t0, t1, doomed_event;
    xrt_event ipc_able; /* XRT_EVENT_INTERPROCESS | XRT_EVENT_DISABLE_TIMING */
    void *d, *d2, *pinned; /* 4096 bytes each */
    unsigned char h[64];
    unsigned char reg[256]; /* host memory to register */
    xrt_module m;   /* the CPU's C source: k(a) writes 9 to the byte **a */
    xrt_function fn;
    xrt_graph graph;     /* where the backend has graphs: a memset of d2 captured on other */
    xrt_graph_exec exec; /* and its exec */
    xrt_dim3 one, zero;
    const char *backend;
    /* what the calls make and write */
    xrt_stream made, wrapped, made_flagged, made_prio, per_thread;
    xrt_event made_event;
    xrt_module made_mod;
    xrt_function got;
    xrt_graph made_graph;
    xrt_graph_exec made_exec, flags_exec, flags_exec_bad; /* flags_exec_bad: never made */
    xrt_graph built, clone;           /* where the backend builds graphs: empty nodes node, node2 and */
    xrt_graph_exec built_exec;        /* node3 after node; a clone of it and an exec */
    xrt_graph_node node, node2, node3;
    xrt_graph_node copy_node;         /* a copy node of 3-D params in built: row */
    xrt_memcpy_3d_parms row, got_box; /* row: box's first row (1-D); got_box: get_params' */
    xrt_graph created;                /* what the calls make */
    xrt_graph_node added, found;
    xrt_graph_node_params empty, got_params; /* empty: of an empty node (made); got_params: get_params. */
    size_t listed, limit;
    xrt_func_cache cache; /* device_get_cache_config's */
    xrt_stream_attr_value stream_attr; /* stream_get_attribute's, then stream_set_attribute's */
    xrt_graph_exec_update_result update;
    xrt_capture_status capture;
    const xrt_graph_node *capture_deps;
    xrt_capture_mode capture_mode; /* GLOBAL, the default: an exchange leaves the thread as it was */
    xrt_graph_info ginfo;
    xrt_ipc_mem_handle ipc, ipc_none;          /* ipc_none: all zero, no handle */
    xrt_ipc_event_handle ipc_event, ipc_event_none;
    xrt_event opened_event;
    void *p, *p_host, *p_async, *native, *opened;
    const char *name;
    unsigned caps;
    int n, fd, priority, least, greatest;
    unsigned flags;
    size_t free_bytes, total_bytes;
    float ms;
    uint64_t offset;
    xrt_device_prop prop;
    xrt_pointer_attributes attr;
    xrt_memcpy_3d_parms box, box_bad; /* h (16 x 2 x 2) into d2 (pitch 64, ysize 4); box_bad: src pitch 8 */
    xrt_function_attributes fattr;
    xrt_mem_pool dpool, pool, doomed_pool; /* made where the backend has pools: the default one, two created */
    xrt_mem_pool got_pool, made_pool;
    xrt_user_object uobj, made_uobj, uobj_none; /* uobj: made with one reference where the backend has them */
    xrt_graph kgraph;  /* where the backend builds graphs and has the module: a kernel node knode of fn */
    xrt_graph_node knode;
    xrt_launch_attribute launch_attrs[2]; /* a priority of 0; synchronization policy (a stream's) */
    xrt_launch_config launch, launch_bad; /* fn on other, with launch_attrs[0]; launch_bad: [1] */
    xrt_launch_attr_value kattr;          /* graph_kernel_node_get_attribute's, then _set_attribute's */
    xrt_mem_pool_props pool_props;
    xrt_mem_access_desc access; /* {0, 0}: made the owner's READ_WRITE */
    void *p_pool;
    void *managed; /* 4096 bytes of xrt_malloc_managed, where the backend has it */
    uint64_t u64;
    uint64_t mark; /* 0: the value a graph memory mark is reset with */
    xrt_target target;
    xrt_backend_info info;
    /* xrt_test_calls_run's record: each call's entry point, status and detail */
    int count;
    struct { const char *fn; xrt_status st; char detail[160]; } out[320]; /* room for every row */
} xrt_test_calls;

/* X(id, what, waits, status, call): a call on the objects of `c`. `what`
   names the case; `waits`: 1 if it waits for queued work; `status`: what it
   returns from inside a CPU host function (XRT_ERROR_NOT_PERMITTED where it
   waits). The entry point is the call's own name. */
#define XRT_TEST_CALLS(X)                                                                                               \
    X(capabilities, "get_capabilities", 0, XRT_SUCCESS, xrt_get_capabilities(&c->caps))                                \
    X(device_count, "get_device_count", 0, XRT_SUCCESS, xrt_get_device_count(&c->n))                                   \
    X(set_device, "set_device", 0, XRT_SUCCESS, xrt_set_device(0))                                                     \
    X(get_device, "get_device", 0, XRT_SUCCESS, xrt_get_device(&c->n))                                                 \
    X(device_sync, "device synchronize", 1, XRT_ERROR_NOT_PERMITTED, xrt_device_synchronize())                         \
    X(properties, "get_device_properties", 0, XRT_SUCCESS, xrt_get_device_properties(&c->prop, 0))                     \
    X(target, "get_target", 0, XRT_SUCCESS, xrt_get_target(&c->target))                                               \
    X(backend_count, "backend_count (the core's)", 0, XRT_SUCCESS, xrt_backend_count(&c->n))                          \
    X(backend_info, "backend_get_info (the core's)", 0, XRT_SUCCESS, xrt_backend_get_info(0, &c->info))               \
    X(get_backend, "get_backend (the core's)", 0, XRT_SUCCESS, xrt_get_backend(&c->name))                             \
    X(set_backend, "set_backend of its own backend (the core's)", 0, XRT_ERROR_NOT_PERMITTED, xrt_set_backend(c->backend))         \
    X(malloc, "malloc", 0, XRT_SUCCESS, xrt_malloc(&c->p, 64))                                                         \
    X(malloc_null, "malloc to NULL", 0, XRT_ERROR_INVALID_VALUE, xrt_malloc(NULL, 64))                                 \
    X(malloc_zero, "malloc of 0 bytes (NULL, as cudaMalloc)", 0, XRT_SUCCESS, xrt_malloc(&c->p, 0))                               \
    X(free, "free", 1, XRT_ERROR_NOT_PERMITTED, xrt_free(c->d))                                                        \
    X(free_null, "free of NULL (a no-op, no wait)", 0, XRT_SUCCESS, xrt_free(NULL))                                           \
    X(malloc_host, "malloc_host", 0, XRT_SUCCESS, xrt_malloc_host(&c->p_host, 64))                                     \
    X(free_host, "free_host", 1, XRT_ERROR_NOT_PERMITTED, xrt_free_host(c->pinned))                                    \
    X(malloc_async, "malloc_async on another stream", 0, XRT_SUCCESS, xrt_malloc_async(&c->p_async, 64, c->other))     \
    X(free_async, "free_async", 0, XRT_SUCCESS, xrt_free_async(c->d2, c->s))                                           \
    X(free_async_null, "free_async of NULL", 0, XRT_SUCCESS, xrt_free_async(NULL, c->s))                               \
    X(mem_get_info, "mem_get_info", 0, XRT_SUCCESS, xrt_mem_get_info(&c->free_bytes, &c->total_bytes))                 \
    X(memset, "memset (NULL stream)", 1, XRT_ERROR_NOT_PERMITTED, xrt_memset(c->d, 1, 64))                             \
    X(memset_zero, "memset of 0 bytes", 1, XRT_ERROR_NOT_PERMITTED, xrt_memset(c->d, 1, 0))                            \
    X(memset_async, "memset_async on its own stream", 0, XRT_SUCCESS, xrt_memset_async(c->d, 7, 64, c->s))             \
    X(memset_async_null, "memset_async on the NULL stream", 0, XRT_SUCCESS, xrt_memset_async(c->d2, 1, 64, NULL))      \
    X(memcpy, "memcpy (NULL stream)", 1, XRT_ERROR_NOT_PERMITTED,                                                      \
      xrt_memcpy(c->d, c->h, sizeof c->h, XRT_MEMCPY_HOST_TO_DEVICE))                                                  \
    X(memcpy_zero, "memcpy of 0 bytes", 1, XRT_ERROR_NOT_PERMITTED, xrt_memcpy(c->d, c->h, 0, XRT_MEMCPY_HOST_TO_DEVICE)) \
    X(memcpy_kind, "memcpy of a bad kind", 1, XRT_ERROR_NOT_PERMITTED, xrt_memcpy(c->d, c->h, 64, (xrt_memcpy_kind)7)) \
    X(memcpy_async, "memcpy_async on another stream", 0, XRT_SUCCESS,                                                  \
      xrt_memcpy_async(c->h, c->d2, sizeof c->h, XRT_MEMCPY_DEVICE_TO_HOST, c->other))                                 \
    X(memcpy_2d, "memcpy_2d (NULL stream)", 1, XRT_ERROR_NOT_PERMITTED,                                                \
      xrt_memcpy_2d(c->d, 64, c->h, 16, 16, 4, XRT_MEMCPY_HOST_TO_DEVICE))                                             \
    X(memcpy_2d_pitch, "memcpy_2d of a pitch less than the width", 1, XRT_ERROR_NOT_PERMITTED,                         \
      xrt_memcpy_2d(c->d, 8, c->h, 16, 16, 4, XRT_MEMCPY_HOST_TO_DEVICE))                                              \
    X(memcpy_2d_async, "memcpy_2d_async on another stream", 0, XRT_SUCCESS,                                            \
      xrt_memcpy_2d_async(c->h, 16, c->d2, 64, 16, 4, XRT_MEMCPY_DEVICE_TO_HOST, c->other))                            \
    X(memcpy_2d_async_pitch, "memcpy_2d_async of a pitch less than the width", 0, XRT_ERROR_INVALID_VALUE,             \
      xrt_memcpy_2d_async(c->h, 16, c->d2, 8, 16, 4, XRT_MEMCPY_DEVICE_TO_HOST, c->other))                             \
    X(memset_2d, "memset_2d (NULL stream)", 1, XRT_ERROR_NOT_PERMITTED, xrt_memset_2d(c->d, 64, 1, 32, 4))             \
    X(memset_2d_pitch, "memset_2d of a pitch less than the width", 1, XRT_ERROR_NOT_PERMITTED,                         \
      xrt_memset_2d(c->d, 8, 1, 32, 4))                                                                                \
    X(memset_2d_async, "memset_2d_async on its own stream", 0, XRT_SUCCESS, xrt_memset_2d_async(c->d, 64, 7, 32, 4, c->s)) \
    X(memset_2d_async_pitch, "memset_2d_async of a pitch less than the width", 0, XRT_ERROR_INVALID_VALUE,             \
      xrt_memset_2d_async(c->d, 8, 7, 32, 4, c->s))                                                                    \
    X(memcpy_3d, "memcpy_3d (NULL stream)", 1, XRT_ERROR_NOT_PERMITTED, xrt_memcpy_3d(&c->box))                        \
    X(memcpy_3d_pitch, "memcpy_3d of a pitch less than the width", 1, XRT_ERROR_NOT_PERMITTED,                         \
      xrt_memcpy_3d(&c->box_bad))                                                                                      \
    X(memcpy_3d_async, "memcpy_3d_async on another stream", 0, XRT_SUCCESS, xrt_memcpy_3d_async(&c->box, c->other))    \
    X(memcpy_3d_async_pitch, "memcpy_3d_async of a pitch less than the width", 0, XRT_ERROR_INVALID_VALUE,             \
      xrt_memcpy_3d_async(&c->box_bad, c->other))                                                                      \
    X(memset_3d, "memset_3d (NULL stream)", 1, XRT_ERROR_NOT_PERMITTED, xrt_memset_3d(c->box.dst_ptr, 1, c->box.extent)) \
    X(memset_3d_pitch, "memset_3d of a pitch less than the width", 1, XRT_ERROR_NOT_PERMITTED,                         \
      xrt_memset_3d(c->box_bad.src_ptr, 1, c->box.extent))                                                             \
    X(memset_3d_async, "memset_3d_async on its own stream", 0, XRT_SUCCESS,                                            \
      xrt_memset_3d_async(c->box.dst_ptr, 7, c->box.extent, c->s))                                                     \
    X(memset_3d_async_pitch, "memset_3d_async of a pitch less than the width", 0, XRT_ERROR_INVALID_VALUE,             \
      xrt_memset_3d_async(c->box_bad.src_ptr, 7, c->box.extent, c->s))                                                 \
    X(host_register, "host_register of a buffer", 0, XRT_SUCCESS, xrt_host_register(c->reg, sizeof c->reg, 0))        \
    X(host_register_null, "host_register of NULL", 0, XRT_ERROR_INVALID_VALUE, xrt_host_register(NULL, 64, 0))         \
    X(host_register_pinned, "host_register of xrt_malloc_host memory", 0, XRT_ERROR_HOST_MEMORY_ALREADY_REGISTERED,   \
      xrt_host_register(c->pinned, 64, 0))                                                                             \
    X(host_unregister, "host_unregister of a range never registered", 1, XRT_ERROR_NOT_PERMITTED,                     \
      xrt_host_unregister(c->reg))                                                                                     \
    X(host_device_pointer, "host_get_device_pointer of pinned memory", 0, XRT_SUCCESS,                                \
      xrt_host_get_device_pointer(&c->p, c->pinned, 0))                                                                \
    X(host_device_pointer_pageable, "host_get_device_pointer of pageable memory", 0, XRT_ERROR_INVALID_VALUE,          \
      xrt_host_get_device_pointer(&c->p, c->h, 0))                                                                     \
    X(attributes, "pointer_get_attributes of device memory", 0, XRT_SUCCESS, xrt_pointer_get_attributes(&c->attr, c->d)) \
    X(attributes_host, "pointer_get_attributes of host memory", 0, XRT_SUCCESS,                                        \
      xrt_pointer_get_attributes(&c->attr, c->h))                                                                      \
    X(export, "mem_export_dmabuf", 0, XRT_ERROR_UNSUPPORTED, xrt_mem_export_dmabuf(c->d, 4096, &c->fd, &c->offset))    \
    X(stream_create, "stream create", 0, XRT_SUCCESS, xrt_stream_create(&c->made))                                     \
    X(stream_create_flags, "stream create with flags and a priority", 0, XRT_SUCCESS,                                  \
      xrt_stream_create_with_priority(&c->made_flagged, XRT_STREAM_NON_BLOCKING, 0))                                   \
    X(stream_create_priority, "stream create with a priority", 0, XRT_SUCCESS,                                         \
      xrt_stream_create_with_priority(&c->made_prio, XRT_STREAM_DEFAULT, -1))                                          \
    X(stream_create_priority_null, "stream create with a priority to NULL", 0, XRT_ERROR_INVALID_VALUE,                \
      xrt_stream_create_with_priority(NULL, XRT_STREAM_DEFAULT, 0))                                                    \
    X(stream_flags, "stream get_flags", 0, XRT_SUCCESS, xrt_stream_get_flags(c->other, &c->flags))                     \
    X(stream_flags_null, "stream get_flags to NULL", 0, XRT_ERROR_INVALID_VALUE, xrt_stream_get_flags(c->other, NULL)) \
    X(stream_priority, "stream get_priority", 0, XRT_SUCCESS, xrt_stream_get_priority(c->s, &c->priority))             \
    X(stream_device, "stream_get_device of the NULL stream", 0, XRT_SUCCESS, xrt_stream_get_device(NULL, &c->n))     \
    X(stream_device_null, "stream_get_device to NULL", 0, XRT_ERROR_INVALID_VALUE, xrt_stream_get_device(c->other, NULL)) \
    X(stream_get_attribute, "stream_get_attribute of the priority", 0, XRT_SUCCESS,                                    \
      xrt_stream_get_attribute(c->other, XRT_STREAM_ATTR_PRIORITY, &c->stream_attr))                                  \
    X(stream_set_attribute, "stream_set_attribute of the priority it has", 0, XRT_SUCCESS,                              \
      xrt_stream_set_attribute(c->other, XRT_STREAM_ATTR_PRIORITY, &c->stream_attr))                                  \
    X(stream_set_attribute_bad, "stream_set_attribute of attribute 2", 0, XRT_ERROR_INVALID_VALUE,                     \
      xrt_stream_set_attribute(c->other, (xrt_stream_attr)2, &c->stream_attr))                                        \
    X(stream_get_attribute_null, "stream_get_attribute into NULL", 0, XRT_ERROR_INVALID_VALUE,                         \
      xrt_stream_get_attribute(c->other, XRT_STREAM_ATTR_PRIORITY, NULL))                                             \
    X(stream_priority_null, "stream get_priority to NULL", 0, XRT_ERROR_INVALID_VALUE,                                 \
      xrt_stream_get_priority(NULL, NULL))                                                                             \
    X(priority_range, "device_get_stream_priority_range", 0, XRT_SUCCESS,                                              \
      xrt_device_get_stream_priority_range(&c->least, &c->greatest))                                                   \
    X(per_thread, "stream_per_thread", 0, XRT_SUCCESS, xrt_stream_per_thread(&c->per_thread))                           \
    X(per_thread_null, "stream_per_thread to NULL", 0, XRT_ERROR_INVALID_VALUE, xrt_stream_per_thread(NULL))          \
    X(stream_destroy, "stream destroy of an idle stream", 0, XRT_SUCCESS, xrt_stream_destroy(c->doomed))               \
    X(sync_own, "stream synchronize of its own stream", 1, XRT_ERROR_NOT_PERMITTED, xrt_stream_synchronize(c->s))      \
    X(sync_null, "stream synchronize of the NULL stream", 1, XRT_ERROR_NOT_PERMITTED, xrt_stream_synchronize(NULL))   \
    X(sync_other, "stream synchronize of another stream", 1, XRT_ERROR_NOT_PERMITTED, xrt_stream_synchronize(c->other)) \
    /* its own host function is running: */                                                                            \
    X(query_own, "stream query of its own stream", 0, XRT_ERROR_NOT_READY, xrt_stream_query(c->s))                    \
    X(query_null, "stream query of the NULL stream (waits for s, a blocking stream)", 0, XRT_ERROR_NOT_READY,          \
      xrt_stream_query(NULL))                                                                                          \
    X(wait_event, "stream_wait_event", 0, XRT_SUCCESS, xrt_stream_wait_event(c->other, c->t1))                         \
    X(launch, "launch_host_func", 0, XRT_SUCCESS, xrt_launch_host_func(c->s, nop, NULL))                               \
    X(event_create, "event create", 0, XRT_SUCCESS, xrt_event_create(&c->made_event, 0))                               \
    X(event_destroy, "event destroy", 0, XRT_SUCCESS, xrt_event_destroy(c->doomed_event))                              \
    X(record, "event record", 0, XRT_SUCCESS, xrt_event_record(c->mine, c->s))                                         \
    X(record_flags, "event_record_with_flags", 0, XRT_SUCCESS,                                                         \
      xrt_event_record_with_flags(c->mine, c->s, XRT_EVENT_RECORD_DEFAULT))                                            \
    X(record_flags_bad, "event_record_with_flags of an unknown flag", 0, XRT_ERROR_INVALID_VALUE,                      \
      xrt_event_record_with_flags(c->mine, c->s, 2))                                                                   \
    X(wait_flags, "stream_wait_event_with_flags", 0, XRT_SUCCESS,                                                      \
      xrt_stream_wait_event_with_flags(c->other, c->t1, XRT_EVENT_WAIT_DEFAULT))                                       \
    X(wait_flags_bad, "stream_wait_event_with_flags of an unknown flag", 0, XRT_ERROR_INVALID_VALUE,                   \
      xrt_stream_wait_event_with_flags(c->other, c->t1, 2))                                                            \
    X(event_query, "event query of a never-recorded event", 0, XRT_SUCCESS, xrt_event_query(c->never))                 \
    X(event_sync_after, "event synchronize of an event recorded after it", 1, XRT_ERROR_NOT_PERMITTED,                 \
      xrt_event_synchronize(c->after))                                                                                 \
    X(event_sync_never, "event synchronize of a never-recorded event", 1, XRT_ERROR_NOT_PERMITTED,                     \
      xrt_event_synchronize(c->never))                                                                                 \
    X(elapsed, "event_elapsed_time of completed events", 0, XRT_SUCCESS, xrt_event_elapsed_time(&c->ms, c->t0, c->t1)) \
    X(stream_native, "stream_get_native", 0, XRT_ERROR_UNSUPPORTED, xrt_stream_get_native(c->s, &c->native))           \
    X(event_native, "event_get_native", 0, XRT_ERROR_UNSUPPORTED, xrt_event_get_native(c->mine, &c->native))           \
    X(wrap_native, "stream_wrap_native", 0, XRT_ERROR_UNSUPPORTED, xrt_stream_wrap_native(&c->wrapped, c->h))          \
    X(module_load, "module_load (C source)", 0, XRT_SUCCESS, xrt_module_load(&c->made_mod, &xrt_test_calls_image, 1, NULL)) \
    X(module_load_null, "module_load to NULL", 0, XRT_ERROR_INVALID_VALUE,                                             \
      xrt_module_load(NULL, &xrt_test_calls_image, 1, NULL))                                                           \
    X(module_unload, "module_unload", 0, XRT_SUCCESS, xrt_module_unload(c->m))                                         \
    X(get_function, "module_get_function", 0, XRT_SUCCESS, xrt_module_get_function(&c->got, c->m, "k"))               \
    X(get_function_empty, "module_get_function of \"\"", 0, XRT_ERROR_INVALID_VALUE,                                  \
      xrt_module_get_function(&c->got, c->m, ""))                                                                      \
    X(kernel, "launch_kernel on another stream", 0, XRT_SUCCESS,                                                       \
      xrt_launch_kernel(c->fn, c->one, c->one, 0, c->other, &c->d2, sizeof c->d2))                                     \
    X(kernel_zero, "launch_kernel of an empty grid", 0, XRT_ERROR_INVALID_VALUE,                                       \
      xrt_launch_kernel(c->fn, c->zero, c->one, 0, c->s, NULL, 8))                                                     \
    X(kernel_ex, "launch_kernel_ex of a priority on another stream", 0, XRT_SUCCESS,                                  \
      xrt_launch_kernel_ex(&c->launch, c->fn, &c->d2, sizeof c->d2))                                                   \
    X(kernel_ex_bad, "launch_kernel_ex of a stream's attribute", 0, XRT_ERROR_INVALID_VALUE,                           \
      xrt_launch_kernel_ex(&c->launch_bad, c->fn, &c->d2, sizeof c->d2))                                               \
    X(knode_get_attribute, "graph_kernel_node_get_attribute of the priority", 0, XRT_SUCCESS,                          \
      xrt_graph_kernel_node_get_attribute(c->knode, XRT_LAUNCH_ATTR_PRIORITY, &c->kattr))                             \
    X(knode_get_attribute_null, "graph_kernel_node_get_attribute into NULL", 0, XRT_ERROR_INVALID_VALUE,               \
      xrt_graph_kernel_node_get_attribute(c->knode, XRT_LAUNCH_ATTR_PRIORITY, NULL))                                  \
    X(knode_set_attribute, "graph_kernel_node_set_attribute of the priority it has", 0, XRT_SUCCESS,                   \
      xrt_graph_kernel_node_set_attribute(c->knode, XRT_LAUNCH_ATTR_PRIORITY, &c->kattr))                             \
    X(knode_set_attribute_bad, "graph_kernel_node_set_attribute of a stream's attribute", 0, XRT_ERROR_INVALID_VALUE, \
      xrt_graph_kernel_node_set_attribute(c->knode, (xrt_launch_attr)3, &c->kattr))                                    \
    X(knode_copy_attributes, "graph_kernel_node_copy_attributes", 0, XRT_SUCCESS,                                      \
      xrt_graph_kernel_node_copy_attributes(c->knode, c->knode))                                                       \
    X(knode_copy_attributes_empty, "graph_kernel_node_copy_attributes to an empty node", 0, XRT_ERROR_INVALID_VALUE,    \
      xrt_graph_kernel_node_copy_attributes(c->node, c->knode))                                                        \
    X(function_attributes, "function_get_attributes", 0, XRT_SUCCESS, xrt_function_get_attributes(&c->fattr, c->fn)) \
    X(get_global_null, "module_get_global to NULL and NULL", 0, XRT_ERROR_INVALID_VALUE,                              \
      xrt_module_get_global(NULL, NULL, c->m, "k"))                                                                    \
    X(param_info_null, "function_get_param_info to NULL", 0, XRT_ERROR_INVALID_VALUE,                              \
      xrt_function_get_param_info(c->fn, 0, NULL, NULL))                                                               \
    X(set_attribute_bad, "function_set_attribute of an unknown attribute", 0, XRT_ERROR_INVALID_VALUE,               \
      xrt_function_set_attribute(c->fn, (xrt_function_attribute)1, 0))                                                 \
    X(occupancy_null, "occupancy_max_active_blocks_per_multiprocessor to NULL", 0, XRT_ERROR_INVALID_VALUE,          \
      xrt_occupancy_max_active_blocks_per_multiprocessor(NULL, c->fn, 32, 0))                                          \
    X(block_size_null, "occupancy_max_potential_block_size to NULL", 0, XRT_ERROR_INVALID_VALUE,                     \
      xrt_occupancy_max_potential_block_size(NULL, &c->n, c->fn, 0, 0))                                                \
    X(begin_capture, "stream_begin_capture", 0, XRT_SUCCESS, xrt_stream_begin_capture(c->doomed, XRT_CAPTURE_MODE_RELAXED)) \
    X(begin_capture_null, "stream_begin_capture of the NULL stream", 0, XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED,         \
      xrt_stream_begin_capture(NULL, XRT_CAPTURE_MODE_GLOBAL))                                                         \
    X(begin_capture_to_graph_mode, "stream_begin_capture_to_graph in mode 7", 0, XRT_ERROR_INVALID_VALUE,             \
      xrt_stream_begin_capture_to_graph(c->doomed, c->graph, NULL, 0, (xrt_capture_mode)7))                            \
    X(end_capture_idle, "stream_end_capture of a stream that is not capturing", 0, XRT_ERROR_ILLEGAL_STATE,             \
      xrt_stream_end_capture(c->other, &c->made_graph))                                                                \
    X(end_capture_null, "stream_end_capture to NULL", 0, XRT_ERROR_INVALID_VALUE, xrt_stream_end_capture(c->other, NULL)) \
    X(is_capturing, "stream_is_capturing", 0, XRT_SUCCESS, xrt_stream_is_capturing(c->other, &c->capture))             \
    X(is_capturing_null, "stream_is_capturing to NULL", 0, XRT_ERROR_INVALID_VALUE, xrt_stream_is_capturing(c->other, NULL)) \
    X(capture_info, "stream_get_capture_info", 0, XRT_SUCCESS, xrt_stream_get_capture_info(c->other, &c->capture, NULL)) \
    X(capture_info_null, "stream_get_capture_info to NULL", 0, XRT_ERROR_INVALID_VALUE,                                \
      xrt_stream_get_capture_info(c->other, NULL, NULL))                                                               \
    X(capture_info_v2, "stream_get_capture_info_v2", 0, XRT_SUCCESS,                                                   \
      xrt_stream_get_capture_info_v2(c->other, &c->capture, NULL, NULL, NULL, NULL))                                   \
    X(capture_info_v2_deps, "stream_get_capture_info_v2 of deps without ndeps", 0, XRT_ERROR_INVALID_VALUE,             \
      xrt_stream_get_capture_info_v2(c->other, &c->capture, NULL, NULL, &c->capture_deps, NULL))                      \
    X(update_capture_deps, "stream_update_capture_dependencies of a stream not capturing", 0, XRT_ERROR_ILLEGAL_STATE, \
      xrt_stream_update_capture_dependencies(c->other, NULL, 0, XRT_STREAM_ADD_CAPTURE_DEPENDENCIES))                 \
    X(update_capture_deps_flags, "stream_update_capture_dependencies of flags 2", 0, XRT_ERROR_INVALID_VALUE,          \
      xrt_stream_update_capture_dependencies(c->other, NULL, 0, 2))                                                     \
    X(exchange_capture_mode, "thread_exchange_stream_capture_mode", 0, XRT_SUCCESS,                                      \
      xrt_thread_exchange_stream_capture_mode(&c->capture_mode))                                                       \
    X(exchange_capture_mode_null, "thread_exchange_stream_capture_mode to NULL", 0, XRT_ERROR_INVALID_VALUE,             \
      xrt_thread_exchange_stream_capture_mode(NULL))                                                                   \
    X(instantiate, "graph_instantiate", 0, XRT_SUCCESS, xrt_graph_instantiate(&c->made_exec, c->graph))                \
    X(instantiate_null, "graph_instantiate to NULL", 0, XRT_ERROR_INVALID_VALUE, xrt_graph_instantiate(NULL, c->graph)) \
    X(graph_launch, "graph_launch on another stream", 0, XRT_SUCCESS, xrt_graph_launch(c->exec, c->other))            \
    X(instantiate_flags, "graph_instantiate_with_flags", 0, XRT_SUCCESS,                                               \
      xrt_graph_instantiate_with_flags(&c->flags_exec, c->graph, XRT_GRAPH_INSTANTIATE_AUTO_FREE_ON_LAUNCH))          \
    X(instantiate_flags_bad, "graph_instantiate_with_flags of an unknown flag", 0, XRT_ERROR_INVALID_VALUE,            \
      xrt_graph_instantiate_with_flags(&c->flags_exec_bad, c->graph, 1ull << 40))                                      \
    X(graph_upload, "graph_upload on another stream", 0, XRT_SUCCESS, xrt_graph_upload(c->exec, c->other))            \
    X(graph_upload_event, "graph_upload on an event for a stream", 0, XRT_ERROR_INVALID_HANDLE,                        \
      xrt_graph_upload(c->exec, (xrt_stream)c->mine))                                                                  \
    X(graph_launch_event, "graph_launch on an event for a stream", 0, XRT_ERROR_INVALID_HANDLE,                        \
      xrt_graph_launch(c->exec, (xrt_stream)c->mine))                                                                  \
    X(exec_update, "graph_exec_update", 0, XRT_SUCCESS, xrt_graph_exec_update(c->exec, c->graph))                      \
    X(exec_update_swapped, "graph_exec_update with a graph for the exec", 0, XRT_ERROR_INVALID_HANDLE,                 \
      xrt_graph_exec_update((xrt_graph_exec)c->graph, c->graph))                                                       \
    X(exec_update_result, "graph_exec_update_with_result", 0, XRT_SUCCESS,                                          \
      xrt_graph_exec_update_with_result(c->exec, c->graph, &c->update))                                                \
    X(exec_update_result_null, "graph_exec_update_with_result to NULL", 0, XRT_ERROR_INVALID_VALUE,                   \
      xrt_graph_exec_update_with_result(c->exec, c->graph, NULL))                                                      \
    X(exec_destroy, "graph_exec_destroy", 0, XRT_SUCCESS, xrt_graph_exec_destroy(c->exec))                             \
    X(exec_destroy_stream, "graph_exec_destroy of a stream", 0, XRT_ERROR_INVALID_HANDLE,                              \
      xrt_graph_exec_destroy((xrt_graph_exec)c->other))                                                                \
    X(graph_destroy, "graph_destroy", 0, XRT_SUCCESS, xrt_graph_destroy(c->graph))                                     \
    X(graph_destroy_null, "graph_destroy of NULL", 0, XRT_ERROR_INVALID_VALUE, xrt_graph_destroy(NULL))               \
    X(graph_info, "graph_get_info", 0, XRT_SUCCESS, xrt_graph_get_info(c->graph, &c->ginfo))                          \
    X(graph_info_null, "graph_get_info to NULL", 0, XRT_ERROR_INVALID_VALUE, xrt_graph_get_info(c->graph, NULL))  \
    X(graph_dot, "graph_debug_dot_print", 0, XRT_SUCCESS, xrt_graph_debug_dot_print(c->graph, "/dev/null", 0))       \
    X(graph_dot_null, "graph_debug_dot_print to no path", 0, XRT_ERROR_INVALID_VALUE,                                 \
      xrt_graph_debug_dot_print(c->graph, NULL, 0))                                                                    \
    X(graph_dot_flags, "graph_debug_dot_print with unknown flags", 0, XRT_ERROR_INVALID_VALUE,                        \
      xrt_graph_debug_dot_print(c->graph, "/dev/null", 2))                                                             \
    X(graph_create, "graph_create", 0, XRT_SUCCESS, xrt_graph_create(&c->created, 0))                                 \
    X(graph_create_flags, "graph_create with flags", 0, XRT_ERROR_INVALID_VALUE, xrt_graph_create(&c->created, 1))    \
    X(graph_add_node, "graph_add_node", 0, XRT_SUCCESS, xrt_graph_add_node(&c->added, c->built, &c->node, 1, &c->empty)) \
    X(graph_add_node_null, "graph_add_node to NULL", 0, XRT_ERROR_INVALID_VALUE,                                       \
      xrt_graph_add_node(NULL, c->built, NULL, 0, &c->empty))                                                          \
    X(graph_get_params, "graph_node_get_params", 0, XRT_SUCCESS, xrt_graph_node_get_params(c->node, &c->got_params))        \
    X(graph_get_params_null, "graph_node_get_params to NULL", 0, XRT_ERROR_INVALID_VALUE,                             \
      xrt_graph_node_get_params(c->node, NULL))                                                                        \
    X(graph_set_params, "graph_node_set_params", 0, XRT_SUCCESS, xrt_graph_node_set_params(c->node, &c->empty))      \
    X(graph_add_deps, "graph_add_dependencies", 0, XRT_SUCCESS,                                                       \
      xrt_graph_add_dependencies(c->built, &c->node, &c->node2, 1))                                                    \
    X(graph_add_deps_null, "graph_add_dependencies of NULL arrays", 0, XRT_ERROR_INVALID_VALUE,                        \
      xrt_graph_add_dependencies(c->built, NULL, NULL, 1))                                                             \
    X(graph_nodes, "graph_get_nodes", 0, XRT_SUCCESS, xrt_graph_get_nodes(c->built, NULL, &c->listed))                \
    X(graph_nodes_null, "graph_get_nodes to no count", 0, XRT_ERROR_INVALID_VALUE,                                    \
      xrt_graph_get_nodes(c->built, NULL, NULL))                                                                       \
    X(graph_roots, "graph_get_root_nodes", 0, XRT_SUCCESS, xrt_graph_get_root_nodes(c->built, NULL, &c->listed))      \
    X(graph_roots_null, "graph_get_root_nodes to no count", 0, XRT_ERROR_INVALID_VALUE,                               \
      xrt_graph_get_root_nodes(c->built, NULL, NULL))                                                                  \
    X(graph_edges, "graph_get_edges", 0, XRT_SUCCESS, xrt_graph_get_edges(c->built, NULL, NULL, &c->listed))          \
    X(graph_edges_half, "graph_get_edges to one array", 0, XRT_ERROR_INVALID_VALUE,                                   \
      xrt_graph_get_edges(c->built, &c->found, NULL, &c->listed))                                                      \
    X(graph_deps, "graph_node_get_dependencies", 0, XRT_SUCCESS,                                                      \
      xrt_graph_node_get_dependencies(c->node3, NULL, &c->listed))                                                     \
    X(graph_deps_null, "graph_node_get_dependencies to no count", 0, XRT_ERROR_INVALID_VALUE,                         \
      xrt_graph_node_get_dependencies(c->node3, NULL, NULL))                                                           \
    X(graph_dependents, "graph_node_get_dependent_nodes", 0, XRT_SUCCESS,                                             \
      xrt_graph_node_get_dependent_nodes(c->node, NULL, &c->listed))                                                   \
    X(graph_dependents_null, "graph_node_get_dependent_nodes to no count", 0, XRT_ERROR_INVALID_VALUE,                \
      xrt_graph_node_get_dependent_nodes(c->node, NULL, NULL))                                                         \
    X(graph_remove_deps, "graph_remove_dependencies", 0, XRT_SUCCESS,                                                 \
      xrt_graph_remove_dependencies(c->built, &c->node, &c->node3, 1))                                                 \
    X(graph_remove_deps_null, "graph_remove_dependencies of NULL arrays", 0, XRT_ERROR_INVALID_VALUE,                  \
      xrt_graph_remove_dependencies(c->built, NULL, NULL, 1))                                                          \
    X(graph_clone, "graph_clone", 0, XRT_SUCCESS, xrt_graph_clone(&c->created, c->built))                             \
    X(user_object_create, "user_object_create", 0, XRT_SUCCESS,                                                        \
      xrt_user_object_create(&c->made_uobj, c, xrt_test_calls_nothing, 1, XRT_USER_OBJECT_NO_DESTRUCTOR_SYNC))        \
    X(user_object_create_flags, "user_object_create of flags 0", 0, XRT_ERROR_INVALID_VALUE,                           \
      xrt_user_object_create(&c->uobj_none, c, xrt_test_calls_nothing, 1, 0))                                          \
    X(user_object_retain, "user_object_retain", 0, XRT_SUCCESS, xrt_user_object_retain(c->uobj, 1))                     \
    X(user_object_retain_zero, "user_object_retain of no reference", 0, XRT_ERROR_INVALID_VALUE,                      \
      xrt_user_object_retain(c->uobj, 0))                                                                              \
    X(graph_retain_user_object, "graph_retain_user_object", 0, XRT_SUCCESS,                                            \
      xrt_graph_retain_user_object(c->built, c->uobj, 1, 0))                                                           \
    X(graph_retain_user_object_flags, "graph_retain_user_object of flags 2", 0, XRT_ERROR_INVALID_VALUE,              \
      xrt_graph_retain_user_object(c->built, c->uobj, 1, 2))                                                           \
    X(graph_release_user_object, "graph_release_user_object of no reference", 0, XRT_ERROR_INVALID_VALUE,             \
      xrt_graph_release_user_object(c->built, c->uobj, 0))                                                             \
    X(user_object_release, "user_object_release of no reference", 0, XRT_ERROR_INVALID_VALUE,                          \
      xrt_user_object_release(c->uobj, 0))                                                                             \
    X(graph_clone_null, "graph_clone to NULL", 0, XRT_ERROR_INVALID_VALUE, xrt_graph_clone(NULL, c->built))           \
    X(graph_find, "graph_node_find_in_clone", 0, XRT_SUCCESS, xrt_graph_node_find_in_clone(&c->found, c->node, c->clone)) \
    X(graph_find_null, "graph_node_find_in_clone to NULL", 0, XRT_ERROR_INVALID_VALUE,                                \
      xrt_graph_node_find_in_clone(NULL, c->node, c->clone))                                                           \
    X(graph_exec_set, "graph_exec_node_set_params", 0, XRT_SUCCESS,                                                   \
      xrt_graph_exec_node_set_params(c->built_exec, c->node, &c->empty))                                               \
    X(graph_exec_set_null, "graph_exec_node_set_params of no params", 0, XRT_ERROR_INVALID_VALUE,                     \
      xrt_graph_exec_node_set_params(c->built_exec, c->node, NULL))                                                    \
    X(graph_destroy_node, "graph_destroy_node", 0, XRT_SUCCESS, xrt_graph_destroy_node(c->node2))                     \
    X(graph_destroy_node_null, "graph_destroy_node of NULL", 0, XRT_ERROR_INVALID_VALUE, xrt_graph_destroy_node(NULL)) \
    X(graph_mem_trim, "device_graph_mem_trim", 0, XRT_SUCCESS, xrt_device_graph_mem_trim(0))                         \
    X(graph_mem_trim_bad, "device_graph_mem_trim of a negative device", 0, XRT_ERROR_INVALID_DEVICE,                  \
      xrt_device_graph_mem_trim(-1))                                                                                   \
    X(graph_mem_attr_get, "device_get_graph_mem_attribute", 0, XRT_SUCCESS,                                            \
      xrt_device_get_graph_mem_attribute(0, XRT_GRAPH_MEM_ATTR_USED_MEM_HIGH, &c->u64))                                \
    X(graph_mem_attr_get_null, "device_get_graph_mem_attribute into NULL", 0, XRT_ERROR_INVALID_VALUE,                 \
      xrt_device_get_graph_mem_attribute(0, XRT_GRAPH_MEM_ATTR_USED_MEM_HIGH, NULL))                                   \
    X(graph_mem_attr_set, "device_set_graph_mem_attribute", 0, XRT_SUCCESS,                                            \
      xrt_device_set_graph_mem_attribute(0, XRT_GRAPH_MEM_ATTR_USED_MEM_HIGH, &c->mark))                               \
    X(graph_mem_attr_set_current, "device_set_graph_mem_attribute of a current amount", 0, XRT_ERROR_INVALID_VALUE,    \
      xrt_device_set_graph_mem_attribute(0, XRT_GRAPH_MEM_ATTR_USED_MEM_CURRENT, &c->mark))                            \
    X(graph_add_copy_3d, "graph_add_memcpy_node", 0, XRT_SUCCESS,                                                     \
      xrt_graph_add_memcpy_node(&c->added, c->built, &c->node, 1, &c->box))                                            \
    X(graph_add_copy_3d_bad, "graph_add_memcpy_node of a pitch less than the width", 0, XRT_ERROR_INVALID_VALUE,      \
      xrt_graph_add_memcpy_node(&c->added, c->built, NULL, 0, &c->box_bad))                                            \
    X(graph_copy_3d_get, "graph_memcpy_node_get_params", 0, XRT_SUCCESS,                                              \
      xrt_graph_memcpy_node_get_params(c->copy_node, &c->got_box))                                                     \
    X(graph_copy_3d_get_null, "graph_memcpy_node_get_params to NULL", 0, XRT_ERROR_INVALID_VALUE,                     \
      xrt_graph_memcpy_node_get_params(c->copy_node, NULL))                                                            \
    X(graph_copy_3d_set, "graph_memcpy_node_set_params", 0, XRT_SUCCESS,                                              \
      xrt_graph_memcpy_node_set_params(c->copy_node, &c->box))                                                         \
    X(graph_copy_3d_set_bad, "graph_memcpy_node_set_params of a pitch less than the width", 0,                        \
      XRT_ERROR_INVALID_VALUE, xrt_graph_memcpy_node_set_params(c->copy_node, &c->box_bad))                            \
    X(graph_exec_copy_3d_set, "graph_exec_memcpy_node_set_params", 0, XRT_SUCCESS,                                    \
      xrt_graph_exec_memcpy_node_set_params(c->built_exec, c->copy_node, &c->row))                                     \
    X(graph_exec_copy_3d_set_box, "graph_exec_memcpy_node_set_params of a 3-D box", 0, XRT_ERROR_INVALID_VALUE,      \
      xrt_graph_exec_memcpy_node_set_params(c->built_exec, c->copy_node, &c->box))                                     \
    X(graph_node_set_enabled, "graph_node_set_enabled", 0, XRT_SUCCESS,                                                \
      xrt_graph_node_set_enabled(c->built_exec, c->copy_node, 1))                                                      \
    X(graph_node_set_enabled_empty, "graph_node_set_enabled of an empty node", 0, XRT_ERROR_INVALID_VALUE,             \
      xrt_graph_node_set_enabled(c->built_exec, c->node, 0))                                                           \
    X(graph_node_get_enabled, "graph_node_get_enabled", 0, XRT_SUCCESS,                                                \
      xrt_graph_node_get_enabled(c->built_exec, c->copy_node, &c->flags))                                              \
    X(graph_node_get_enabled_null, "graph_node_get_enabled into NULL", 0, XRT_ERROR_INVALID_VALUE,                     \
      xrt_graph_node_get_enabled(c->built_exec, c->copy_node, NULL))                                                   \
    X(ipc_get, "ipc_get_mem_handle (the first: it waits)", 1, XRT_ERROR_NOT_PERMITTED,                              \
      xrt_ipc_get_mem_handle(&c->ipc, c->d))                                                                           \
    X(ipc_get_null, "ipc_get_mem_handle to NULL", 0, XRT_ERROR_INVALID_VALUE, xrt_ipc_get_mem_handle(NULL, c->d))     \
    X(ipc_open, "ipc_open_mem_handle of no handle", 0, XRT_ERROR_INVALID_HANDLE,                                      \
      xrt_ipc_open_mem_handle(&c->opened, c->ipc_none, 0))                                                             \
    X(ipc_open_null, "ipc_open_mem_handle to NULL", 0, XRT_ERROR_INVALID_VALUE,                                       \
      xrt_ipc_open_mem_handle(NULL, c->ipc_none, 0))                                                                   \
    X(ipc_close, "ipc_close_mem_handle of memory of its own", 1, XRT_ERROR_NOT_PERMITTED, xrt_ipc_close_mem_handle(c->d)) \
    X(ipc_get_event, "ipc_get_event_handle", 0, XRT_SUCCESS, xrt_ipc_get_event_handle(&c->ipc_event, c->ipc_able))    \
    X(ipc_open_event, "ipc_open_event_handle of no handle", 0, XRT_ERROR_INVALID_VALUE,                              \
      xrt_ipc_open_event_handle(&c->opened_event, c->ipc_event_none))                                                  \
    X(ipc_open_event_null, "ipc_open_event_handle to NULL", 0, XRT_ERROR_INVALID_VALUE,                               \
      xrt_ipc_open_event_handle(NULL, c->ipc_event_none))                                                             \
    X(can_access_peer, "device_can_access_peer of device 0 to itself", 0, XRT_SUCCESS,                                \
      xrt_device_can_access_peer(&c->n, 0, 0))                                                                         \
    X(can_access_peer_null, "device_can_access_peer to NULL", 0, XRT_ERROR_INVALID_VALUE,                              \
      xrt_device_can_access_peer(NULL, 0, 0))                                                                          \
    X(device_get_p2p_attribute, "device_get_p2p_attribute of device 0 to itself", 0, XRT_ERROR_INVALID_DEVICE,        \
      xrt_device_get_p2p_attribute(&c->n, XRT_P2P_ATTR_ACCESS_SUPPORTED, 0, 0))                                        \
    X(device_get_p2p_attribute_null, "device_get_p2p_attribute to NULL", 0, XRT_ERROR_INVALID_VALUE,                  \
      xrt_device_get_p2p_attribute(NULL, XRT_P2P_ATTR_ACCESS_SUPPORTED, 0, 0))                                         \
    X(get_attribute, "device_get_attribute", 0, XRT_SUCCESS, xrt_device_get_attribute(&c->n, XRT_DEVATTR_WARP_SIZE, 0)) \
    X(get_attribute_null, "device_get_attribute to NULL", 0, XRT_ERROR_INVALID_VALUE,                                 \
      xrt_device_get_attribute(NULL, XRT_DEVATTR_WARP_SIZE, 0))                                                       \
    X(get_attribute_unknown, "device_get_attribute of attribute 0", 0, XRT_ERROR_INVALID_VALUE,                       \
      xrt_device_get_attribute(&c->n, (xrt_device_attr)0, 0))                                                         \
    X(driver_version, "driver_get_version", 0, XRT_SUCCESS, xrt_driver_get_version(&c->n))                           \
    X(enable_peer_self, "device_enable_peer_access to itself", 0, XRT_ERROR_INVALID_DEVICE,                            \
      xrt_device_enable_peer_access(0, 0))                                                                             \
    X(enable_peer_flags, "device_enable_peer_access with flags", 0, XRT_ERROR_INVALID_VALUE,                           \
      xrt_device_enable_peer_access(0, 1))                                                                             \
    X(disable_peer_negative, "device_disable_peer_access of device -1", 0, XRT_ERROR_INVALID_DEVICE,                   \
      xrt_device_disable_peer_access(-1))                                                                              \
    X(memcpy_peer, "memcpy_peer", 1, XRT_ERROR_NOT_PERMITTED, xrt_memcpy_peer((char *)c->d + 2048, 0, c->d, 0, 64))   \
    X(memcpy_peer_async, "memcpy_peer_async on its own stream", 0, XRT_SUCCESS,                                        \
      xrt_memcpy_peer_async((char *)c->d + 2048, 0, c->d, 0, 64, c->s))                                                \
    X(memcpy_peer_async_over, "memcpy_peer_async past the allocation's end", 0, XRT_ERROR_INVALID_VALUE,               \
      xrt_memcpy_peer_async((char *)c->d + 2048, 0, c->d, 0, 4096, c->s))                                              \
    X(default_mem_pool, "device_get_default_mem_pool", 0, XRT_SUCCESS, xrt_device_get_default_mem_pool(&c->got_pool, 0)) \
    X(default_mem_pool_null, "device_get_default_mem_pool to NULL", 0, XRT_ERROR_INVALID_VALUE,                        \
      xrt_device_get_default_mem_pool(NULL, 0))                                                                        \
    X(get_mem_pool, "device_get_mem_pool", 0, XRT_SUCCESS, xrt_device_get_mem_pool(&c->got_pool, 0))                   \
    X(get_mem_pool_negative, "device_get_mem_pool of device -1", 0, XRT_ERROR_INVALID_DEVICE,                          \
      xrt_device_get_mem_pool(&c->got_pool, -1))                                                                       \
    X(set_mem_pool, "device_set_mem_pool to the default pool", 0, XRT_SUCCESS, xrt_device_set_mem_pool(0, c->dpool))   \
    X(set_mem_pool_null, "device_set_mem_pool of NULL", 0, XRT_ERROR_INVALID_HANDLE, xrt_device_set_mem_pool(0, NULL)) \
    X(mem_pool_create_null, "mem_pool_create without props", 0, XRT_ERROR_INVALID_VALUE,                               \
      xrt_mem_pool_create(&c->got_pool, NULL))                                                                         \
    X(mem_pool_create, "mem_pool_create", 0, XRT_SUCCESS, xrt_mem_pool_create(&c->made_pool, &c->pool_props))           \
    X(mem_pool_destroy, "mem_pool_destroy", 0, XRT_SUCCESS, xrt_mem_pool_destroy(c->doomed_pool))                      \
    X(mem_pool_destroy_null, "mem_pool_destroy of NULL", 0, XRT_ERROR_INVALID_HANDLE, xrt_mem_pool_destroy(NULL))      \
    X(mem_pool_set_attribute, "mem_pool_set_attribute", 0, XRT_SUCCESS,                                               \
      xrt_mem_pool_set_attribute(c->pool, XRT_MEMPOOL_ATTR_RELEASE_THRESHOLD, &c->u64))                                \
    X(mem_pool_set_attribute_unknown, "mem_pool_set_attribute of attribute 0", 0, XRT_ERROR_INVALID_VALUE,            \
      xrt_mem_pool_set_attribute(c->pool, (xrt_mem_pool_attr)0, &c->u64))                                             \
    X(mem_pool_get_attribute, "mem_pool_get_attribute", 0, XRT_SUCCESS,                                               \
      xrt_mem_pool_get_attribute(c->pool, XRT_MEMPOOL_ATTR_USED_MEM_CURRENT, &c->u64))                                 \
    X(mem_pool_get_attribute_null, "mem_pool_get_attribute to NULL", 0, XRT_ERROR_INVALID_VALUE,                       \
      xrt_mem_pool_get_attribute(c->pool, XRT_MEMPOOL_ATTR_USED_MEM_CURRENT, NULL))                                    \
    X(mem_pool_trim_to, "mem_pool_trim_to", 0, XRT_SUCCESS, xrt_mem_pool_trim_to(c->pool, 0))                          \
    X(mem_pool_trim_to_null, "mem_pool_trim_to of NULL", 0, XRT_ERROR_INVALID_HANDLE, xrt_mem_pool_trim_to(NULL, 0))   \
    X(mem_pool_set_access, "mem_pool_set_access of its owner's READ_WRITE", 0, XRT_SUCCESS,                           \
      xrt_mem_pool_set_access(c->pool, &c->access, 1))                                                                 \
    X(mem_pool_set_access_null, "mem_pool_set_access of NULL descriptors", 0, XRT_ERROR_INVALID_VALUE,                \
      xrt_mem_pool_set_access(c->pool, NULL, 1))                                                                       \
    X(mem_pool_get_access, "mem_pool_get_access of its owner", 0, XRT_SUCCESS,                                        \
      xrt_mem_pool_get_access(&c->flags, c->pool, 0))                                                                  \
    X(mem_pool_get_access_null, "mem_pool_get_access to NULL", 0, XRT_ERROR_INVALID_VALUE,                            \
      xrt_mem_pool_get_access(NULL, c->pool, 0))                                                                       \
    X(malloc_from_pool_async, "malloc_from_pool_async on its own stream", 0, XRT_SUCCESS,                             \
      xrt_malloc_from_pool_async(&c->p_pool, 64, c->pool, c->s))                                                       \
    X(malloc_from_pool_async_null, "malloc_from_pool_async to NULL", 0, XRT_ERROR_INVALID_VALUE,                      \
      xrt_malloc_from_pool_async(NULL, 64, c->pool, c->s))                                                             \
    X(malloc_managed, "malloc_managed", 0, XRT_SUCCESS, xrt_malloc_managed(&c->p, 64, XRT_MEM_ATTACH_GLOBAL))        \
    X(malloc_managed_flags, "malloc_managed attached to a single stream", 0, XRT_ERROR_INVALID_VALUE,                 \
      xrt_malloc_managed(&c->p, 64, XRT_MEM_ATTACH_SINGLE))                                                            \
    X(mem_prefetch_async, "mem_prefetch_async to the host on another stream", 0, XRT_SUCCESS,                         \
      xrt_mem_prefetch_async(c->managed, 64, XRT_CPU_DEVICE_ID, c->other))                                             \
    X(mem_prefetch_async_device, "mem_prefetch_async of device memory", 0, XRT_ERROR_INVALID_VALUE,                   \
      xrt_mem_prefetch_async(c->d, 64, 0, c->other))                                                                   \
    X(mem_advise, "mem_advise", 0, XRT_SUCCESS, xrt_mem_advise(c->managed, 64, XRT_MEM_ADVISE_SET_READ_MOSTLY, 0))    \
    X(mem_advise_unknown, "mem_advise of an unknown advice", 0, XRT_ERROR_INVALID_VALUE,                              \
      xrt_mem_advise(c->managed, 64, 7, 0))                                                                            \
    X(mem_range_get_attribute, "mem_range_get_attribute", 0, XRT_SUCCESS,                                              \
      xrt_mem_range_get_attribute(&c->n, sizeof c->n, XRT_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, c->managed, 64))            \
    X(stream_attach_mem_async, "stream_attach_mem_async on another stream", 0, XRT_SUCCESS,                           \
      xrt_stream_attach_mem_async(c->other, c->managed, 0, XRT_MEM_ATTACH_GLOBAL))                                     \
    X(stream_attach_mem_async_flags, "stream_attach_mem_async of two flags", 0, XRT_ERROR_INVALID_VALUE,              \
      xrt_stream_attach_mem_async(c->other, c->managed, 0, XRT_MEM_ATTACH_GLOBAL | XRT_MEM_ATTACH_HOST))             \
    X(host_alloc, "host_alloc, mapped", 0, XRT_SUCCESS, xrt_host_alloc(&c->p_host, 64, XRT_HOST_ALLOC_MAPPED))         \
    X(host_alloc_flags, "host_alloc of an unknown flag", 0, XRT_ERROR_INVALID_VALUE, xrt_host_alloc(&c->p_host, 64, 8)) \
    X(host_get_flags, "host_get_flags of xrt_malloc_host memory", 0, XRT_SUCCESS, xrt_host_get_flags(&c->flags, c->pinned)) \
    X(host_get_flags_device, "host_get_flags of device memory", 0, XRT_ERROR_INVALID_VALUE,                            \
      xrt_host_get_flags(&c->flags, c->d))                                                                              \
    X(set_device_flags, "set_device_flags, blocking sync", 0, XRT_SUCCESS,                                             \
      xrt_set_device_flags(XRT_DEVICE_SCHEDULE_BLOCKING_SYNC | XRT_DEVICE_MAP_HOST))                                   \
    X(set_device_flags_two, "set_device_flags of two schedules", 0, XRT_ERROR_INVALID_VALUE,                           \
      xrt_set_device_flags(XRT_DEVICE_SCHEDULE_SPIN | XRT_DEVICE_SCHEDULE_YIELD))                                       \
    X(get_device_flags, "get_device_flags", 0, XRT_SUCCESS, xrt_get_device_flags(&c->flags))                          \
    X(device_set_limit, "device_set_limit of the malloc heap, its default", 0, XRT_SUCCESS,                            \
      xrt_device_set_limit(XRT_LIMIT_MALLOC_HEAP_SIZE, (size_t)8 << 20))                                               \
    X(device_set_limit_bad, "device_set_limit of an unknown limit", 0, XRT_ERROR_INVALID_VALUE,                         \
      xrt_device_set_limit((xrt_limit)7, 1))                                                                           \
    X(device_set_cache_config, "device_set_cache_config of none, the default", 0, XRT_SUCCESS,                         \
      xrt_device_set_cache_config(XRT_FUNC_CACHE_PREFER_NONE))                                                         \
    X(device_set_cache_config_bad, "device_set_cache_config of an unknown preference", 0, XRT_ERROR_INVALID_VALUE,     \
      xrt_device_set_cache_config((xrt_func_cache)4))                                                                  \
    X(device_get_cache_config, "device_get_cache_config", 0, XRT_SUCCESS,                                              \
      xrt_device_get_cache_config(&c->cache))                                                                          \
    X(device_get_cache_config_null, "device_get_cache_config into NULL", 0, XRT_ERROR_INVALID_VALUE,                   \
      xrt_device_get_cache_config(NULL))                                                                               \
    X(function_set_cache_config, "function_set_cache_config", 0, XRT_SUCCESS,                                          \
      xrt_function_set_cache_config(c->fn, XRT_FUNC_CACHE_PREFER_SHARED))                                              \
    X(function_set_cache_config_bad, "function_set_cache_config of an unknown preference", 0, XRT_ERROR_INVALID_VALUE, \
      xrt_function_set_cache_config(c->fn, (xrt_func_cache)-1))                                                        \
    X(device_flush_gpu_direct_rdma_writes, "device_flush_gpu_direct_rdma_writes to the owner", 0, XRT_SUCCESS,         \
      xrt_device_flush_gpu_direct_rdma_writes(XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_DEVICE,                  \
                                              XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER))                              \
    X(device_flush_gpu_direct_rdma_writes_target, "device_flush_gpu_direct_rdma_writes of target 1", 0,                 \
      XRT_ERROR_INVALID_VALUE,                                                                                         \
      xrt_device_flush_gpu_direct_rdma_writes((xrt_flush_rdma_target)1, XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER))   \
    X(device_flush_gpu_direct_rdma_writes_scope, "device_flush_gpu_direct_rdma_writes of scope 0", 0,                   \
      XRT_ERROR_INVALID_VALUE,                                                                                         \
      xrt_device_flush_gpu_direct_rdma_writes(XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_DEVICE,                  \
                                              (xrt_flush_rdma_scope)0))                                                \
    X(device_get_limit, "device_get_limit of the stack size", 0, XRT_SUCCESS,                                          \
      xrt_device_get_limit(&c->limit, XRT_LIMIT_STACK_SIZE))                                                           \
    X(device_get_limit_null, "device_get_limit into NULL", 0, XRT_ERROR_INVALID_VALUE,                                 \
      xrt_device_get_limit(NULL, XRT_LIMIT_STACK_SIZE))                                                                \
    X(device_reset, "device reset", 1, XRT_ERROR_NOT_PERMITTED, xrt_device_reset())

static const char xrt_test_calls_source[] = "void k(const void *c, void *a) { (void)c; **(unsigned char **)a = 9; }\n";
static const xrt_module_image xrt_test_calls_image = {XRT_IMAGE_CPU_C_SOURCE, xrt_test_calls_source,
                                                      sizeof xrt_test_calls_source - 1, NULL};

/* Each row as a function xrt_test_call_<id>, and the table of rows. */
#define XRT_TEST_CALL_FN(id, what, waits, status, ...)                                                                  \
    static inline xrt_status xrt_test_call_##id(xrt_test_calls *c) { (void)c; return __VA_ARGS__; }
XRT_TEST_CALLS(XRT_TEST_CALL_FN)
#undef XRT_TEST_CALL_FN

typedef struct xrt_test_call {
    const char *what;
    const char *text; /* the call as written: "xrt_<name>(...)" */
    int waits;
    xrt_status on_cpu;
    xrt_status (*call)(xrt_test_calls *c);
} xrt_test_call;

/* The rows, in order; their number in *n. */
static inline const xrt_test_call *xrt_test_calls_rows(size_t *n)
{
#define XRT_TEST_CALL_ROW(id, what, waits, status, ...) {what, #__VA_ARGS__, waits, status, xrt_test_call_##id},
    static const xrt_test_call rows[] = {XRT_TEST_CALLS(XRT_TEST_CALL_ROW)};
#undef XRT_TEST_CALL_ROW
    *n = sizeof rows / sizeof rows[0];
    return rows;
}

/* The entry point a row calls ("xrt_<name>"), in buf. */
static inline const char *xrt_test_call_name(const xrt_test_call *r, char *buf, size_t size)
{
    snprintf(buf, size, "%.*s", (int)strcspn(r->text, "( "), r->text);
    return buf;
}

static inline int xrt_test_calls_make(xrt_test_calls *c)
{
    memset(c, 0, sizeof *c);
    c->fd = -1;
    c->one.x = c->one.y = c->one.z = 1;
    c->launch_attrs[0].id = XRT_LAUNCH_ATTR_PRIORITY;
    c->launch_attrs[1].id = (xrt_launch_attr)3; /* XRT_STREAM_ATTR_SYNCHRONIZATION_POLICY */
    c->launch_attrs[1].val.sync_policy = XRT_SYNC_POLICY_AUTO;
    c->launch.grid = c->launch.block = c->launch_bad.grid = c->launch_bad.block = c->one;
    c->launch.attrs = &c->launch_attrs[0], c->launch_bad.attrs = &c->launch_attrs[1];
    c->launch.num_attrs = c->launch_bad.num_attrs = 1;
    c->zero = c->one;
    c->zero.x = 0;
    c->empty.type = XRT_GRAPH_NODE_EMPTY;
    if (xrt_get_backend(&c->backend) || xrt_stream_create(&c->s) || xrt_stream_create(&c->other) ||
        xrt_stream_create_with_flags(&c->doomed, XRT_STREAM_NON_BLOCKING)) /* its capture leaves the NULL stream free */
        return __LINE__;
    c->launch.stream = c->launch_bad.stream = c->other;
    if (xrt_event_create(&c->after, 0) || xrt_event_create(&c->never, 0) || xrt_event_create(&c->mine, 0) ||
        xrt_event_create(&c->t0, 0) || xrt_event_create(&c->t1, 0) || xrt_event_create(&c->doomed_event, 0) ||
        xrt_event_create(&c->ipc_able, XRT_EVENT_INTERPROCESS | XRT_EVENT_DISABLE_TIMING))
        return __LINE__;
    if (xrt_malloc(&c->d, 4096) || xrt_malloc(&c->d2, 4096) || xrt_malloc_host(&c->pinned, 4096)) return __LINE__;
    c->box.dst_ptr = xrt_make_pitched_ptr(c->d2, 64, 64, 4);
    c->box.src_ptr = xrt_make_pitched_ptr(c->h, 16, 16, 2);
    c->box.extent = xrt_make_extent(16, 2, 2);
    c->box.kind = XRT_MEMCPY_HOST_TO_DEVICE;
    c->box_bad = c->box;
    c->box_bad.src_ptr.pitch = 8;
    c->row = c->box;
    c->row.extent = xrt_make_extent(16, 1, 1);
    c->access.flags = XRT_MEM_ACCESS_FLAGS_PROT_READ_WRITE;
    if (xrt_device_get_default_mem_pool(&c->dpool, 0) == XRT_SUCCESS) {
        if (xrt_mem_pool_create(&c->pool, &c->pool_props) || xrt_mem_pool_create(&c->doomed_pool, &c->pool_props))
            return __LINE__;
    } else {
        xrt_get_last_error(); /* a backend without pools: the calls are refused all the same */
    }
    if (xrt_malloc_managed(&c->managed, 4096, XRT_MEM_ATTACH_GLOBAL) != XRT_SUCCESS)
        xrt_get_last_error(); /* a backend without managed memory: the calls are refused all the same */
    if (xrt_module_load(&c->m, &xrt_test_calls_image, 1, NULL) != XRT_SUCCESS) {
        xrt_get_last_error(); /* a backend without modules, or without a C compiler: no module */
        c->m = NULL;
    } else if (xrt_module_get_function(&c->fn, c->m, "k") != XRT_SUCCESS) {
        return __LINE__;
    }
    if (xrt_get_capabilities(&c->caps) || !(c->caps & XRT_CAP_GRAPHS)) return 0;
    if (xrt_stream_begin_capture(c->other, XRT_CAPTURE_MODE_GLOBAL) || xrt_memset_async(c->d2, 0, 64, c->other) ||
        xrt_stream_end_capture(c->other, &c->graph) || xrt_graph_instantiate(&c->exec, c->graph))
        return __LINE__;
    if (xrt_graph_create(&c->built, 0) != XRT_SUCCESS) { /* a backend that does not build graphs */
        xrt_get_last_error();
        return 0;
    }
    if (xrt_graph_add_node(&c->node, c->built, NULL, 0, &c->empty) ||
        xrt_graph_add_node(&c->node2, c->built, NULL, 0, &c->empty) ||
        xrt_graph_add_node(&c->node3, c->built, &c->node, 1, &c->empty) ||
        xrt_graph_add_memcpy_node(&c->copy_node, c->built, NULL, 0, &c->row) || xrt_graph_clone(&c->clone, c->built) ||
        xrt_graph_instantiate(&c->built_exec, c->built))
        return __LINE__;
    if (xrt_user_object_create(&c->uobj, c, xrt_test_calls_nothing, 1, XRT_USER_OBJECT_NO_DESTRUCTOR_SYNC))
        xrt_get_last_error(); /* a backend without user objects */
    if (c->fn) {
        xrt_graph_node_params k;
        memset(&k, 0, sizeof k);
        k.type = XRT_GRAPH_NODE_KERNEL;
        k.kernel.function = c->fn, k.kernel.grid = c->one, k.kernel.block = c->one;
        k.kernel.args = &c->d2, k.kernel.args_size = sizeof c->d2;
        if (xrt_graph_create(&c->kgraph, 0) || xrt_graph_add_node(&c->knode, c->kgraph, NULL, 0, &k)) return __LINE__;
    }
    return 0;
}

/* Releases the objects, those the calls made included (on the backend that
   made them). */
static inline void xrt_test_calls_free(xrt_test_calls *c)
{
    xrt_stream streams[] = {c->s, c->other, c->doomed, c->made, c->made_flagged, c->made_prio};
    xrt_event events[] = {c->after, c->never, c->mine, c->t0, c->t1, c->doomed_event, c->made_event, c->ipc_able,
                          c->opened_event};
    void *mem[] = {c->d, c->d2, c->p, c->p_async, c->p_pool, c->managed};
    size_t i;
    for (i = 0; i < sizeof streams / sizeof streams[0]; i++)
        if (streams[i]) xrt_stream_synchronize(streams[i]);
    for (i = 0; i < sizeof streams / sizeof streams[0]; i++)
        if (streams[i]) xrt_stream_destroy(streams[i]);
    for (i = 0; i < sizeof events / sizeof events[0]; i++)
        if (events[i]) xrt_event_destroy(events[i]);
    for (i = 0; i < sizeof mem / sizeof mem[0]; i++)
        if (mem[i]) xrt_free(mem[i]);
    if (c->pinned) xrt_free_host(c->pinned);
    if (c->p_host) xrt_free_host(c->p_host);
    if (c->opened) xrt_ipc_close_mem_handle(c->opened);
    if (c->exec) xrt_graph_exec_destroy(c->exec);
    if (c->made_exec) xrt_graph_exec_destroy(c->made_exec);
    if (c->flags_exec) xrt_graph_exec_destroy(c->flags_exec);
    if (c->graph) xrt_graph_destroy(c->graph);
    if (c->made_graph) xrt_graph_destroy(c->made_graph);
    if (c->built_exec) xrt_graph_exec_destroy(c->built_exec);
    if (c->kgraph) xrt_graph_destroy(c->kgraph);
    if (c->built) xrt_graph_destroy(c->built);
    if (c->clone) xrt_graph_destroy(c->clone);
    if (c->created) xrt_graph_destroy(c->created);
    if (c->m) xrt_module_unload(c->m);
    if (c->made_mod) xrt_module_unload(c->made_mod);
    if (c->pool) xrt_mem_pool_destroy(c->pool);
    if (c->made_pool) xrt_mem_pool_destroy(c->made_pool);
    if (c->made_uobj) xrt_user_object_release(c->made_uobj, 1);
    if (c->uobj) xrt_user_object_release(c->uobj, 1);
    if (c->doomed_pool) xrt_mem_pool_destroy(c->doomed_pool); /* if the row did not */
    xrt_get_last_error();
}

static inline void xrt_test_calls_note(xrt_test_calls *c, const char *fn, xrt_status st)
{
    if (c->count >= (int)(sizeof c->out / sizeof c->out[0])) return;
    c->out[c->count].fn = fn;
    c->out[c->count].st = st;
    snprintf(c->out[c->count].detail, sizeof c->out[c->count].detail, "%.150s", st ? xrt_get_last_error_string() : "");
    c->count++;
}

/* Makes every call of the table on `user`, an xrt_test_calls, and keeps each
   status and detail. A host function. */
static inline void xrt_test_calls_run(void *user)
{
    xrt_test_calls *c = (xrt_test_calls *)user;
    size_t i, n;
    const xrt_test_call *rows = xrt_test_calls_rows(&n);
    for (i = 0; i < n; i++) xrt_test_calls_note(c, rows[i].text, rows[i].call(c));
}

/* >> every operation has its row: a list a new operation must join names
   each operation of XRT__BACKEND_OPS for which has(name) is 0 ("xrt_" and
   the operation's name), printing "operation NAME has no row in `where`";
   their number. */
static inline int xrt_test_ops_missing(int (*has)(const char *name), const char *where)
{
#define XRT_TEST_OP(op, params, args) "xrt_" #op,
    static const char *const ops[] = {XRT__BACKEND_OPS(XRT_TEST_OP)};
#undef XRT_TEST_OP
    size_t i;
    int missing = 0;
    for (i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (!has(ops[i])) {
            print_error("operation %s has no row in %s\n", ops[i], where);
            missing++;
        }
    return missing;
}

static inline int xrt_test_calls_has(const char *name)
{
    char fn[64];
    size_t j, n;
    const xrt_test_call *rows = xrt_test_calls_rows(&n);
    for (j = 0; j < n; j++)
        if (strcmp(xrt_test_call_name(&rows[j], fn, sizeof fn), name) == 0) return 1;
    return 0;
}

/* The operations of XRT__BACKEND_OPS that XRT_TEST_CALLS does not call, and
   the rows whose call waits but whose status on the CPU is not
   XRT_ERROR_NOT_PERMITTED, each printed; their number. */
static inline int xrt_test_calls_missing(void)
{
    size_t j, n;
    const xrt_test_call *rows = xrt_test_calls_rows(&n);
    int bad = xrt_test_ops_missing(xrt_test_calls_has, "XRT_TEST_CALLS of tests/xrt_test.h");
    for (j = 0; j < n; j++)
        if (rows[j].waits && rows[j].on_cpu != XRT_ERROR_NOT_PERMITTED) {
            print_error("%s waits, but its status in XRT_TEST_CALLS of tests/xrt_test.h is %s, not %s\n", rows[j].text,
                        xrt_status_string(rows[j].on_cpu), xrt_status_string(XRT_ERROR_NOT_PERMITTED));
            bad++;
        }
    return bad;
}

/* Every call was refused with XRT_ERROR_NOT_PERMITTED and a detail that
   names its entry point and says `why`; else prints each that was not and
   returns 0. */
static inline int xrt_test_calls_refused(const xrt_test_calls *c, const char *why)
{
    char fn[64];
    int i, bad = 0;
    size_t rows;
    const xrt_test_call *row = xrt_test_calls_rows(&rows);
    if (c->count != (int)rows) {
        fprintf(stderr, "%d calls were made, not the %zu of XRT_TEST_CALLS\n", c->count, rows);
        return 0;
    }
    for (i = 0; i < c->count; i++)
        if (c->out[i].st != XRT_ERROR_NOT_PERMITTED ||
            !strstr(c->out[i].detail, xrt_test_call_name(&row[i], fn, sizeof fn)) || !strstr(c->out[i].detail, why)) {
            fprintf(stderr, "call %d, %s: %s (\"%s\"), expected %s naming %s and \"%s\"\n", i, c->out[i].fn,
                    xrt_status_string(c->out[i].st), c->out[i].detail, xrt_status_string(XRT_ERROR_NOT_PERMITTED), fn,
                    why);
            bad++;
        }
    if (bad) fprintf(stderr, "%d of %d calls were not refused first\n", bad, c->count);
    return bad == 0;
}

/* >> running groups */
static inline int xrt_test_group_setup(void **state)
{
    (void)state;
    xrt_test_log_calls();
    if (xrt_set_backend(xrt_test_backend) != XRT_SUCCESS) return -1;
    xrt_test_backend_flags = xrt__be()->flags; /* on_cpu, survives_fork */
    return 0;
}

static inline int xrt_test_group_teardown(void **state)
{
    (void)state;
    xrt_set_log_callback(NULL, NULL);
    xrt_set_log_level(XRT_LOG_ENV);
    return 0;
}

/* XRT_TEST_FILTER=<glob> (e.g. "test_fork*") runs only the tests whose names
   match, in every group of the program; XRT_TEST_SKIP=<glob> leaves out
   those whose names match (the caller says so: they are not counted). */
static inline void xrt_test_filter(void)
{
    if (getenv("XRT_TEST_FILTER")) cmocka_set_test_filter(getenv("XRT_TEST_FILTER"));
    if (getenv("XRT_TEST_SKIP")) cmocka_set_skip_filter(getenv("XRT_TEST_SKIP"));
}

/* A group that runs once, on whatever backend each test chooses. */
#define xrt_test_run_group(name, tests, teardown) \
    (xrt_test_filter(), cmocka_run_group_tests_name(name, tests, NULL, teardown))

static inline int xrt_test_listed(const char *name, const char *const *only)
{
    if (!only) return 1;
    for (; *only; only++)
        if (strcmp(*only, name) == 0) return 1;
    return 0;
}

/* XRT_TEST_BACKENDS=<name>[,<name>...]: the groups of xrt_test_run_on_backends
   run on these backends only (make test's second run of the ASan programs,
   with the CUDA runtime double: its cuda groups, the cpu groups having run). */
static inline int xrt_test_backend_wanted(const char *name)
{
    const char *list = getenv("XRT_TEST_BACKENDS");
    size_t n = strlen(name);
    if (!list) return 1;
    for (; *list; list += strcspn(list, ","), list += *list == ',')
        if (strncmp(list, name, n) == 0 && (list[n] == ',' || list[n] == 0)) return 1;
    return 0;
}

/* Runs `tests` as the group "<suite> on <backend>" once per registered
   backend named in `only` (a NULL-terminated list; NULL: every backend) and
   in XRT_TEST_BACKENDS; prints "skipped: <reason>" for the unavailable ones
   and those XRT_TEST_BACKENDS leaves out. XRT_TEST_FILTER=<glob>
   runs only the tests whose names match. Then shuts xrt down,
   so that the leak checker sees everything released. Returns the number of
   failed tests. */
/* A re-executed child (XRT_TEST_CHILD=<backend>:<call>:<report fd>:<stderr fd>, set by
   xrt_test_run_child) runs only its backend's group, up to its case. */
static inline void xrt_test_child_spec(void)
{
    static char only[64];
    const char *spec = getenv("XRT_TEST_CHILD");
    int k = 0, fd = -1, err = -1;
    if (!spec || sscanf(spec, "%63[^:]:%d:%d:%d", only, &k, &fd, &err) != 4 || k < 1) return;
    xrt_test_child.only = only;
    xrt_test_child.target = k;
    xrt_test_child.report_fd = fd;
    xrt_test_child.stderr_fd = err;
    unsetenv("XRT_TEST_CHILD"); /* not for its own children */
}

static inline int xrt_test_run_on_backends(const char *suite, const struct CMUnitTest *tests, size_t count,
                                           const char *const *only)
{
    int n = 0, i, failed = 0;
    char name[128];
    xrt_test_child_spec();
    xrt_test_filter();
    if (xrt_backend_count(&n) != XRT_SUCCESS) return 1;
    for (i = 0; i < n; i++) {
        xrt_backend_info info;
        if (xrt_backend_get_info(i, &info) != XRT_SUCCESS) return 1;
        if (!xrt_test_listed(info.name, only)) continue;
        if (xrt_test_child.only && strcmp(info.name, xrt_test_child.only) != 0) continue;
        if (!xrt_test_backend_wanted(info.name)) {
            printf("skipped: %s on %s: not in XRT_TEST_BACKENDS\n", suite, info.name);
            printf("[  SKIPPED ] %d test(s): the group %s on %s\n", (int)count, suite, info.name);
            continue;
        }
        if (!info.available) {
            /* the group's tests did not run: counted as skipped (tests/run.sh) */
            printf("skipped: %s on %s: %s\n", suite, info.name, info.reason);
            printf("[  SKIPPED ] %d test(s): the group %s on %s\n", (int)count, suite, info.name);
            continue;
        }
        xrt_test_backend = info.name;
        xrt_test_child.calls = 0;
        snprintf(name, sizeof name, "%s on %s", suite, info.name);
        failed += _cmocka_run_group_tests(name, tests, count, xrt_test_group_setup, xrt_test_group_teardown);
    }
    if (xrt_test_child.target) _exit(99); /* a re-executed child that did not meet its case */
    xrt_test_backend = NULL;
    xrt_shutdown();
    return failed;
}

/* xrt_test_run_on_backends (every backend) with XRT_CACHE_DIR a new private
   directory under $TMPDIR (or /tmp), its path written to dir[n], removed
   afterwards: the modules the tests build leave nothing in the user's
   cache. A re-executed child (xrt_test_run_child) uses its parent's
   directory and leaves it to the parent. Returns the failed count, or 1
   where the directory cannot be made. */
static inline int xrt_test_run_with_private_cache(const char *suite, const struct CMUnitTest *tests, size_t count,
                                                  char *dir, size_t n)
{
    const char *tmp = getenv("TMPDIR"), *inherited = getenv("XRT_CACHE_DIR");
    char cmd[600];
    int failed;
    if (getenv("XRT_TEST_CHILD") && inherited) {
        snprintf(dir, n, "%s", inherited);
        return xrt_test_run_on_backends(suite, tests, count, NULL);
    }
    snprintf(dir, n, "%s/xrt-test-cache-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) return 1;
    setenv("XRT_CACHE_DIR", dir, 1);
    failed = xrt_test_run_on_backends(suite, tests, count, NULL);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
    return failed;
}

#endif
