/* SPDX-License-Identifier: MIT */
/* Shared helpers for the xrt test programs (cmocka). Each tests/test_*.c is one
   program: it defines XRT_IMPL, includes this header, and the Makefile enables
   every backend whose headers are installed.

   The helpers are `static inline` functions and macros, so that a program that
   uses only some of them still compiles under -Werror. The short names (OK,
   FAILS, sleep_ms, gate_wait, ...) are the tests' vocabulary: a test program
   does not define its own under these names. */
#ifndef XRT_TEST_H
#define XRT_TEST_H

#define XRT_IMPL
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

/* >> every entry point, called with live arguments of one backend: for the
   rule that a refused thread gets XRT_ERROR_NOT_PERMITTED from each, before
   any check of its arguments. xrt_test_calls_make creates the objects on the
   thread's backend (a module and its function where the backend loads the
   CPU's C source; else they stay NULL, and the calls must be refused all the
   same); xrt_test_calls_run makes every call (from a host function or a
   forked child) and keeps each status and detail. */
typedef struct xrt_test_calls {
    xrt_stream s;
    xrt_event e;
    xrt_module m;
    xrt_function fn;
    void *d, *pinned;
    unsigned char h[64];
    const char *backend;
    int count;
    struct { const char *fn; xrt_status st; char detail[160]; } out[96];
} xrt_test_calls;

static const char xrt_test_calls_source[] = "void k(const void *c, void *a) { (void)c; (void)a; }\n";
static const xrt_module_image xrt_test_calls_image = {XRT_IMAGE_CPU_C_SOURCE, xrt_test_calls_source,
                                                      sizeof xrt_test_calls_source - 1, NULL};

static inline int xrt_test_calls_make(xrt_test_calls *c)
{
    memset(c, 0, sizeof *c);
    if (xrt_get_backend(&c->backend) || xrt_stream_create(&c->s) || xrt_event_create(&c->e, 0) ||
        xrt_malloc(&c->d, 4096) || xrt_malloc_host(&c->pinned, 4096))
        return __LINE__;
    if (xrt_module_load(&c->m, &xrt_test_calls_image, 1, NULL) != XRT_SUCCESS) {
        xrt_get_last_error(); /* a backend without modules, or without a C compiler: no module */
        c->m = NULL;
    } else if (xrt_module_get_function(&c->fn, c->m, "k") != XRT_SUCCESS) {
        return __LINE__;
    }
    return 0;
}

static inline void xrt_test_calls_free(xrt_test_calls *c)
{
    xrt_stream_synchronize(c->s);
    xrt_stream_destroy(c->s);
    xrt_event_destroy(c->e);
    xrt_free(c->d);
    xrt_free_host(c->pinned);
    if (c->m) xrt_module_unload(c->m);
}

static inline void xrt_test_calls_note(xrt_test_calls *c, const char *fn, xrt_status st)
{
    if (c->count >= (int)(sizeof c->out / sizeof c->out[0])) return;
    c->out[c->count].fn = fn;
    c->out[c->count].st = st;
    snprintf(c->out[c->count].detail, sizeof c->out[c->count].detail, "%.150s", st ? xrt_get_last_error_string() : "");
    c->count++;
}

/* X(entry point, call): every call xrt_test_calls_run makes, on the objects
   of `c` and the locals there. Every operation of XRT__BACKEND_OPS has a row
   (xrt_test_calls_missing). */
#define XRT_TEST_CALLS(X)                                                                    \
    X("xrt_get_capabilities", xrt_get_capabilities(&caps))                                   \
    X("xrt_get_device_count", xrt_get_device_count(&n))                                      \
    X("xrt_set_device", xrt_set_device(0))                                                   \
    X("xrt_get_device", xrt_get_device(&n))                                                  \
    X("xrt_device_synchronize", xrt_device_synchronize())                                    \
    X("xrt_get_device_properties", xrt_get_device_properties(&prop, 0))                      \
    X("xrt_get_target", xrt_get_target(&target))                                             \
    X("xrt_backend_count", xrt_backend_count(&n))                                            \
    X("xrt_backend_get_info", xrt_backend_get_info(0, &info))                                \
    X("xrt_get_backend", xrt_get_backend(&name))                                             \
    X("xrt_set_backend", xrt_set_backend(c->backend))                                        \
    X("xrt_malloc", xrt_malloc(&p, 64))                                                      \
    X("xrt_malloc", xrt_malloc(NULL, 64))                                                    \
    X("xrt_malloc", xrt_malloc(&p, 0))                                                       \
    X("xrt_malloc_host", xrt_malloc_host(&p, 64))                                            \
    X("xrt_malloc_async", xrt_malloc_async(&p, 64, c->s))                                    \
    X("xrt_free", xrt_free(c->d))                                                            \
    X("xrt_free", xrt_free(NULL))                                                            \
    X("xrt_free_host", xrt_free_host(c->pinned))                                             \
    X("xrt_free_async", xrt_free_async(c->d, c->s))                                          \
    X("xrt_free_async", xrt_free_async(NULL, c->s))                                          \
    X("xrt_mem_get_info", xrt_mem_get_info(&f, &t))                                          \
    X("xrt_memset", xrt_memset(c->d, 1, 64))                                                 \
    X("xrt_memset", xrt_memset(c->d, 1, 0))                                                  \
    X("xrt_memset_async", xrt_memset_async(c->d, 1, 64, c->s))                               \
    X("xrt_memset_async", xrt_memset_async(c->d, 1, 64, NULL))                               \
    X("xrt_memcpy", xrt_memcpy(c->d, c->h, 64, XRT_MEMCPY_HOST_TO_DEVICE))                   \
    X("xrt_memcpy", xrt_memcpy(c->d, c->h, 0, XRT_MEMCPY_HOST_TO_DEVICE))                    \
    X("xrt_memcpy", xrt_memcpy(c->d, c->h, 64, (xrt_memcpy_kind)7))                          \
    X("xrt_memcpy_async", xrt_memcpy_async(c->h, c->d, 64, XRT_MEMCPY_DEVICE_TO_HOST, c->s)) \
    X("xrt_pointer_get_attributes", xrt_pointer_get_attributes(&a, c->d))                    \
    X("xrt_pointer_get_attributes", xrt_pointer_get_attributes(&a, c->h))                    \
    X("xrt_mem_export_dmabuf", xrt_mem_export_dmabuf(c->d, 64, &fd, &off))                   \
    X("xrt_stream_create", xrt_stream_create(&s2))                                           \
    X("xrt_stream_destroy", xrt_stream_destroy(c->s))                                        \
    X("xrt_stream_synchronize", xrt_stream_synchronize(c->s))                                \
    X("xrt_stream_query", xrt_stream_query(c->s))                                            \
    X("xrt_stream_query", xrt_stream_query(NULL))                                            \
    X("xrt_stream_wait_event", xrt_stream_wait_event(c->s, c->e))                            \
    X("xrt_launch_host_func", xrt_launch_host_func(c->s, nop, NULL))                         \
    X("xrt_event_create", xrt_event_create(&e2, 0))                                          \
    X("xrt_event_destroy", xrt_event_destroy(c->e))                                          \
    X("xrt_event_record", xrt_event_record(c->e, c->s))                                      \
    X("xrt_event_query", xrt_event_query(c->e))                                              \
    X("xrt_event_synchronize", xrt_event_synchronize(c->e))                                  \
    X("xrt_event_elapsed_time", xrt_event_elapsed_time(&ms, c->e, c->e))                     \
    X("xrt_stream_get_native", xrt_stream_get_native(c->s, &p))                              \
    X("xrt_event_get_native", xrt_event_get_native(c->e, &p))                                \
    X("xrt_stream_wrap_native", xrt_stream_wrap_native(&s2, c->h))                           \
    X("xrt_module_load", xrt_module_load(&m2, &xrt_test_calls_image, 1, NULL))               \
    X("xrt_module_load", xrt_module_load(NULL, &xrt_test_calls_image, 1, NULL))              \
    X("xrt_module_unload", xrt_module_unload(c->m))                                          \
    X("xrt_module_get_function", xrt_module_get_function(&f2, c->m, "k"))                    \
    X("xrt_module_get_function", xrt_module_get_function(&f2, c->m, ""))                     \
    X("xrt_launch_kernel", xrt_launch_kernel(c->fn, one, one, 0, c->s, &p, sizeof p))        \
    X("xrt_launch_kernel", xrt_launch_kernel(c->fn, zero, one, 0, c->s, NULL, 8))            \
    X("xrt_function_get_attributes", xrt_function_get_attributes(&fa, c->fn))

/* Every call; `user` is an xrt_test_calls. A host function. */
static inline void xrt_test_calls_run(void *user)
{
    xrt_test_calls *c = (xrt_test_calls *)user;
    xrt_pointer_attributes a;
    xrt_device_prop prop;
    xrt_backend_info info;
    xrt_target target;
    xrt_function_attributes fa;
    xrt_stream s2 = NULL;
    xrt_event e2 = NULL;
    xrt_module m2 = NULL;
    xrt_function f2 = NULL;
    const xrt_dim3 one = {1, 1, 1}, zero = {0, 1, 1};
    const char *name = NULL;
    void *p = NULL;
    size_t f = 0, t = 0;
    uint64_t off = 0;
    unsigned caps = 0;
    float ms = 0;
    int n = 0, fd = -1;
#define XRT_TEST_CALL(fn, call) xrt_test_calls_note(c, fn, (call));
    XRT_TEST_CALLS(XRT_TEST_CALL)
#undef XRT_TEST_CALL
}

/* The entry points XRT_TEST_CALLS calls, a row each; their number in *n. */
static inline const char *const *xrt_test_calls_names(size_t *n)
{
#define XRT_TEST_CALL(fn, call) fn,
    static const char *const called[] = {XRT_TEST_CALLS(XRT_TEST_CALL)};
#undef XRT_TEST_CALL
    *n = sizeof called / sizeof called[0];
    return called;
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
    size_t j, n;
    const char *const *called = xrt_test_calls_names(&n);
    for (j = 0; j < n; j++)
        if (strcmp(called[j], name) == 0) return 1;
    return 0;
}

/* The operations of XRT__BACKEND_OPS that XRT_TEST_CALLS does not call, each
   printed; their number. */
static inline int xrt_test_calls_missing(void)
{
    return xrt_test_ops_missing(xrt_test_calls_has, "XRT_TEST_CALLS of tests/xrt_test.h");
}

/* Every call was refused with XRT_ERROR_NOT_PERMITTED and a detail that
   names it and says `why`; else prints each that was not and returns 0. */
static inline int xrt_test_calls_refused(const xrt_test_calls *c, const char *why)
{
    int i, bad = 0;
    size_t rows;
    xrt_test_calls_names(&rows);
    if (c->count != (int)rows) {
        fprintf(stderr, "%d calls were made, not the %zu of XRT_TEST_CALLS\n", c->count, rows);
        return 0;
    }
    for (i = 0; i < c->count; i++)
        if (c->out[i].st != XRT_ERROR_NOT_PERMITTED || !strstr(c->out[i].detail, c->out[i].fn) ||
            !strstr(c->out[i].detail, why)) {
            fprintf(stderr, "call %d, %s: %s (\"%s\"), expected %s naming it and \"%s\"\n", i, c->out[i].fn,
                    xrt_status_string(c->out[i].st), c->out[i].detail, xrt_status_string(XRT_ERROR_NOT_PERMITTED), why);
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
    return xrt_set_backend(xrt_test_backend) == XRT_SUCCESS ? 0 : -1;
}

static inline int xrt_test_group_teardown(void **state)
{
    (void)state;
    xrt_set_log_callback(NULL, NULL);
    xrt_set_log_level(XRT_LOG_ENV);
    return 0;
}

static inline int xrt_test_listed(const char *name, const char *const *only)
{
    if (!only) return 1;
    for (; *only; only++)
        if (strcmp(*only, name) == 0) return 1;
    return 0;
}

/* Runs `tests` as the group "<suite> on <backend>" once per registered
   backend named in `only` (a NULL-terminated list; NULL: every backend);
   prints "skipped: <reason>" for the unavailable ones. XRT_TEST_FILTER=<glob>
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
    if (getenv("XRT_TEST_FILTER")) cmocka_set_test_filter(getenv("XRT_TEST_FILTER")); /* e.g. "test_fork*" */
    if (xrt_backend_count(&n) != XRT_SUCCESS) return 1;
    for (i = 0; i < n; i++) {
        xrt_backend_info info;
        if (xrt_backend_get_info(i, &info) != XRT_SUCCESS) return 1;
        if (!xrt_test_listed(info.name, only)) continue;
        if (xrt_test_child.only && strcmp(info.name, xrt_test_child.only) != 0) continue;
        if (!info.available) {
            printf("[ SKIPPED  ] %s on %s: skipped: %s\n", suite, info.name, info.reason);
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

#endif
