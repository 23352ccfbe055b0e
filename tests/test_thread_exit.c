/* SPDX-License-Identifier: MIT */
/* Thread exit: the per-thread state xrt keeps (last error, backend choice,
   caches, the in-call registration) is released when a thread exits. Every
   group runs on each available backend. */
#define XRT_IMPL /* white-box: the handle table and the CPU backend's exited threads */
#include "xrt_test.h"

#include <malloc.h>

/* >> thread exit: per-thread state is released when a thread exits */
#ifdef XRT_TEST_ASAN
size_t __sanitizer_get_current_allocated_bytes(void);
#endif
#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define XRT_TEST_VALGRIND 1
#endif
#endif

/* Bytes the program has allocated and not freed. */
static size_t heap_in_use(void)
{
#ifdef XRT_TEST_ASAN
    return __sanitizer_get_current_allocated_bytes();
#else
#ifdef XRT_TEST_VALGRIND
    if (RUNNING_ON_VALGRIND) {
        unsigned long leaked = 0, dubious = 0, reachable = 0, suppressed = 0;
        VALGRIND_DO_QUICK_LEAK_CHECK;
        VALGRIND_COUNT_LEAKS(leaked, dubious, reachable, suppressed);
        return leaked + dubious + reachable + suppressed;
    }
#endif
    {
        struct mallinfo2 m = mallinfo2();
        return m.uordblks + m.hblkhd;
    }
#endif
}

static long rss_kib(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
        fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static void *one_call(void *arg)
{
    int n;
    switch ((uintptr_t)arg % 4) {
    case 0: return (void *)(uintptr_t)xrt_get_device_count(&n);
    case 1: xrt_malloc(NULL, 64); return (void *)(uintptr_t)(xrt_get_last_error() != XRT_ERROR_INVALID_VALUE);
    case 2: return (void *)(uintptr_t)xrt_stream_query(NULL);
    default: return (void *)(uintptr_t)xrt_get_device(&n);
    }
}

/* In batches of 8 threads at a time; one at a time under valgrind, which
   runs one thread at a time and hands over slowly. */
static int short_lived_threads(int count)
{
    int i, j, bad = 0, batch = xrt_test_slowdown() > 1 ? 1 : 8;
    for (i = 0; i < count; i += batch) {
        pthread_t t[8];
        for (j = 0; j < batch; j++) assert_int_equal(start_thread(&t[j], NULL, one_call, (void *)(uintptr_t)(i + j)), 0);
        for (j = 0; j < batch; j++) {
            void *ret = NULL;
            assert_int_equal(pthread_join(t[j], &ret), 0);
            bad += ret != NULL;
        }
    }
    return bad;
}

static void test_thread_exit_releases_state(void **state)
{
    enum { THREADS = 10000 };
    size_t heap0, heap1;
    long rss0, rss1;
    double t0;
    (void)state;
    xrt_set_log_level(XRT_LOG_NONE); /* every fourth thread fails a call on purpose */
    assert_int_equal(short_lived_threads(256), 0); /* thread stacks, malloc arenas */
    heap0 = heap_in_use();
    rss0 = rss_kib();
    t0 = now_ms(CLOCK_MONOTONIC);
    assert_int_equal(short_lived_threads(THREADS), 0);
    heap1 = heap_in_use();
    rss1 = rss_kib();
    xrt_set_log_level(XRT_LOG_WARN);
    print_message("%d threads in %.0f ms: heap in use %zu -> %zu bytes, RSS %ld -> %ld KiB\n", THREADS,
                  now_ms(CLOCK_MONOTONIC) - t0, heap0, heap1, rss0, rss1);
    /* 32 KiB: a per-thread leak of even 4 bytes would be 40 KB */
    if (heap1 > heap0 + 32 * 1024)
        fail_msg("%d short-lived threads left %zu bytes allocated", THREADS, heap1 - heap0);
}

/* >> thread exit: a thread's free handle slots go back to the table */
/* A thread keeps free slots of the handle table for its creates; when it
   exits they are the table's again: none is lost, none counted twice. */
static void *handles_made(void *arg)
{
    (void)arg;
    return handles_made_and_destroyed(3, 2) ? (void *)1 : NULL;
}

static void test_thread_exit_gives_back_handle_slots(void **state)
{
    enum { THREADS = 64 };
    long lost;
    int i;
    (void)state;
    for (i = 0; i < THREADS; i++) {
        pthread_t t;
        void *ret = NULL;
        assert_int_equal(start_thread(&t, NULL, handles_made, NULL), 0);
        assert_int_equal(pthread_join(t, &ret), 0);
        if (ret) fail_msg("thread %d: %s", i, xrt_get_last_error_string());
    }
    if ((lost = handle_slots_lost()) != 0)
        fail_msg("%d exited threads that created and destroyed 5 handles each: %ld slots of the handle table %s", THREADS,
                 lost < 0 ? -lost : lost, lost < 0 ? "counted twice" : "neither live nor free");
}

/* >> calls from thread-exit destructors that run after xrt's own */
/* A thread-specific-data destructor of the program that runs after xrt
   released the thread's state (its key was made later) calls
   xrt_stream_synchronize on a stream blocked by a host function, while the
   main thread destroys that stream. The destroy must wait for that call (a
   use after free otherwise), and the call returns a status. Then calls in
   every later round of destructors return a status too. */
static struct { xrt_stream s; pthread_key_t key; int entered, rounds; xrt_status sync, later[8]; } dx;

static void late_destructor(void *value)
{
    int round = (int)(uintptr_t)value;
    int n;
    if (round == 1) {
        __atomic_store_n(&dx.entered, 1, __ATOMIC_RELEASE);
        dx.sync = xrt_stream_synchronize(dx.s);
    }
    if (round <= 8) dx.later[round - 1] = xrt_get_device_count(&n);
    dx.rounds = round;
    pthread_setspecific(dx.key, (void *)(uintptr_t)(round + 1)); /* once more, in the next round */
}

static void *exiting_thread(void *arg)
{
    int n;
    (void)arg;
    if (xrt_get_device_count(&n) != XRT_SUCCESS) return (void *)1; /* xrt's own key and state first */
    pthread_setspecific(dx.key, (void *)(uintptr_t)1);
    return NULL;
}

static int late_destructor_child(void *arg)
{
    pthread_t t;
    int i;
    (void)arg;
    memset(&dx, 0, sizeof dx);
    xrt_set_log_level(XRT_LOG_NONE);
    CHILD_OK(xrt_stream_create(&dx.s));
    CHILD_OK(xrt_launch_host_func(dx.s, gate_wait, &gates[0]));
    CHILD_TRUE(pthread_key_create(&dx.key, late_destructor) == 0);
    if (start_thread(&t, NULL, exiting_thread, NULL) != 0) CHILD_FAIL("pthread_create");
    if (!wait_flag(&dx.entered, 3000)) CHILD_FAIL("the destructor did not run");
    sleep_ms(50); /* its xrt_stream_synchronize is waiting now */
    child_step("xrt_stream_destroy while a destructor synchronizes the stream");
    CHILD_OK(xrt_stream_destroy(dx.s));
    sleep_ms(20);
    gate_open(&gates[0]);
    child_step("joining the exiting thread");
    pthread_join(t, NULL);
    CHILD_TRUE(dx.rounds >= 2);
    CHILD_EXPECT(dx.sync, XRT_SUCCESS);
    /* every round but the last can still register the thread; the last is refused */
    for (i = 0; i < dx.rounds && i < 8; i++)
        if (dx.later[i] != (i + 1 < dx.rounds ? XRT_SUCCESS : XRT_ERROR_NOT_PERMITTED))
            CHILD_FAIL("the call in destructor round %d of %d returned %s", i + 1, dx.rounds, xrt_status_string(dx.later[i]));
    pthread_key_delete(dx.key);
    CHILD_OK(xrt_device_synchronize());
    xrt_shutdown();
    return 0;
}

static void test_calls_from_later_destructors(void **state)
{
    (void)state;
    SKIP_UNLESS(!UNDER_TSAN, "TSan cannot run code in the last rounds of thread-exit destructors, with or without "
                             "xrt (tests/late_destructor.c)");
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions to block a stream with");
    in_child("calls from thread-exit destructors after xrt's own", late_destructor_child, NULL, 10);
}

/* >> a program that ends without xrt_shutdown: the workers of its destroyed
   streams are joined, not left behind (ThreadSanitizer reports each one
   left as a leaked thread, and exits with 66). xrt once joined them only at
   the next stream creation or xrt_shutdown. */
static int threads_now(void)
{
    char line[128];
    int n = -1;
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "Threads: %d", &n) == 1) break;
    if (f) fclose(f);
    return n;
}

/* Last of the exit handlers (the first registered): where ThreadSanitizer
   is not there to tell, the CPU backend's own list of finished workers to
   join says whether they were joined. */
static void exit_joined(void)
{
    if (xrt__cpu.nzombies) _exit(7);
}

/* The program itself, re-executed with XRT_TEST_EXIT_CHILD set: streams
   made and destroyed, their workers finished, and main returns. */
static int exit_child(void)
{
    xrt_stream s[4];
    int i, before, waited;
    if (atexit(exit_joined) != 0 || xrt_set_backend("cpu") != XRT_SUCCESS) return 3;
    before = threads_now();
    for (i = 0; i < 4; i++)
        if (xrt_stream_create(&s[i]) != XRT_SUCCESS || xrt_memset_async(NULL, 0, 0, s[i]) != XRT_SUCCESS) return 4;
    for (i = 0; i < 4; i++)
        if (xrt_stream_destroy(s[i]) != XRT_SUCCESS) return 5;
    for (waited = 0; threads_now() > before && waited < 5000; waited += 10) sleep_ms(10);
    return threads_now() > before ? 6 : 0; /* their workers are gone: they wait to be joined */
}

static void test_exit_without_shutdown(void **state)
{
    char self[4096], out[8192] = "";
    int fd[2], status = 0;
    ssize_t got, len = 0;
    pid_t pid;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the CPU backend's workers");
    assert_non_null(realpath(program_invocation_name, self)); /* not /proc/self/exe: that is valgrind under valgrind */
    assert_int_equal(pipe(fd), 0);
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        dup2(fd[1], 2);
        setenv("XRT_TEST_EXIT_CHILD", "1", 1);
        unsetenv("LD_PRELOAD"); /* valgrind's: the copy runs on its own */
        execl(self, self, (char *)NULL);
        _exit(127);
    }
    assert_true(pid > 0);
    close(fd[1]);
    while ((got = read(fd[0], out + len, sizeof out - 1 - (size_t)len)) > 0) len += got;
    out[len] = 0;
    close(fd[0]);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || strstr(out, "thread leak"))
        fail_msg("the program that ended without xrt_shutdown: status 0x%x, stderr:\n%s", status, out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thread_exit_releases_state),
        cmocka_unit_test(test_thread_exit_gives_back_handle_slots),
        gated_test(test_calls_from_later_destructors),
        cmocka_unit_test(test_exit_without_shutdown),
    };
    if (getenv("XRT_TEST_EXIT_CHILD")) return exit_child();
    return xrt_test_run_on_backends("thread exit", tests, sizeof tests / sizeof tests[0], NULL);
}
