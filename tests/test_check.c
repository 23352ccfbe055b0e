/* SPDX-License-Identifier: MIT */
/* The stream-order checker (XRT_CHECK=streams, xrt_check_enable): a corpus
   of small programs, each racy (its exact report expected) or correct (no
   report), on every backend: a copy on one stream and a copy or kernel on
   another without an event, with one, with the event recorded on the wrong
   stream or recorded again before the wait; a free racing queued work; a
   host function reading (annotated) what a later copy writes; the NULL
   stream's implicit order, with blocking and non-blocking streams; two
   devices and a peer copy; a stream made before checking was on; graph
   launches (nodes without an edge, annotated kernel and host nodes, a child graph's nodes, 2-D copy nodes
   whose rows interleave, one exec launched on two streams, an exec's copy
   node changed, event nodes captured with the external flags); frees refused or captured; a synchronous copy from
   pageable memory; two host threads; the exit status of a process that
   reported a race. Each case runs ROUNDS times, every other round with the first
   stream held back by a host function, and must give the same report: a
   report depends on the order of the calls, never on timing. */
#define XRT_IMPL /* white-box: the graph nodes' lock */
#include "xrt_test.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

enum { N = 4096, ROUNDS = 6 };

static char reports[1 << 15];
static int nreports;

static void sink(void *user, const char *report)
{
    (void)user;
    nreports++;
    if (strlen(reports) + strlen(report) < sizeof reports) strcat(reports, report);
}

static void hold_back(void *user) { usleep((useconds_t)(uintptr_t)user); }

/* A round: checking on with a fresh bookkeeping, reports into `reports`. */
static void begin(void)
{
    reports[0] = 0;
    nreports = 0;
    OK(xrt_check_set_report_callback(sink, NULL));
    OK(xrt_check_enable(XRT_CHECK_OFF)); /* a round that failed left it on */
    OK(xrt_check_enable(XRT_CHECK_STREAMS));
}

static void end(void)
{
    OK(xrt_check_enable(XRT_CHECK_OFF));
    OK(xrt_check_set_report_callback(NULL, NULL));
}

/* Round r's timing: odd rounds hold the stream back 2 ms before its work. */
static void perturb(xrt_stream s, int r)
{
    if (r & 1) OK(xrt_launch_host_func(s, hold_back, (void *)(uintptr_t)2000));
}

/* A round's fixture: checking on, streams 1 to 3 (s1 and s2 made with the
   flags given, s3 blocking; the checker numbers them in that order), an
   event, and round r's timing on s1. */
typedef struct round_ {
    xrt_stream s1, s2, s3;
    xrt_event e;
} round_;

static void round_begin(round_ *w, int r, unsigned flags1, unsigned flags2)
{
    begin();
    OK(xrt_stream_create_with_flags(&w->s1, flags1));
    OK(xrt_stream_create_with_flags(&w->s2, flags2));
    OK(xrt_stream_create(&w->s3));
    OK(xrt_event_create(&w->e, XRT_EVENT_DISABLE_TIMING));
    perturb(w->s1, r);
}

static void round_end(round_ *w)
{
    end();
    OK(xrt_event_destroy(w->e));
    OK(xrt_stream_destroy(w->s1));
    OK(xrt_stream_destroy(w->s2));
    OK(xrt_stream_destroy(w->s3));
}

static void expect_clean(void)
{
    if (nreports) print_error("unexpected report:\n%s", reports);
    assert_int_equal(nreports, 0);
}

/* One report: its first line and the missing edge exactly; the two accesses'
   lines up to their call sites, which lie in this file. The allocation is
   of a kind ("device", "pinned host") and a place ("device 0", "host"). */
static void expect_race_of(const char *kind, const char *where, const char *fa, const char *fb, const void *alloc,
                           size_t size, size_t lo, size_t hi, const char *a, const char *b, const char *edge)
{
    char line[1024], *at;
    if (nreports != 1) print_error("%d reports, expected 1:\n%s", nreports, reports);
    assert_int_equal(nreports, 1);
    snprintf(line, sizeof line,
             "xrt: race: %s and %s touch bytes [%zu, %zu) of the %s allocation %p (%zu bytes, %s) in no order\n", fa,
             fb, lo, hi, kind, alloc, size, where);
    if (strncmp(reports, line, strlen(line)) != 0) print_error("got:\n%sexpected first line:\n%s", reports, line);
    assert_memory_equal(reports, line, strlen(line));
    at = reports + strlen(line);
    snprintf(line, sizeof line, "xrt:   %s, at ", a);
    if (strncmp(at, line, strlen(line)) != 0) print_error("got:\n%sexpected:\n%s", reports, line);
    assert_memory_equal(at, line, strlen(line));
    at = strchr(at, '\n');
    assert_non_null(at);
    assert_non_null(strstr(at - 40 > reports ? at - 40 : reports, "test_check.c:"));
    snprintf(line, sizeof line, "\nxrt:   %s, at ", b);
    if (strncmp(at, line, strlen(line)) != 0) print_error("got:\n%sexpected:\n%s", reports, line + 1);
    assert_memory_equal(at, line, strlen(line));
    snprintf(line, sizeof line, "xrt:   missing edge: %s\n", edge);
    if (!strstr(reports, line)) print_error("got:\n%sexpected:\n%s", reports, line);
    assert_non_null(strstr(reports, line));
}

/* The same of a device allocation of device 0. */
static void expect_race(const char *fa, const char *fb, const void *alloc, size_t size, size_t lo, size_t hi,
                        const char *a, const char *b, const char *edge)
{
    expect_race_of("device", "device 0", fa, fb, alloc, size, lo, hi, a, b, edge);
}

/* A kernel that writes its first argument's n bytes (n its second), beside
   a 64-byte global `table`: C source for the CPU backend, PTX for CUDA (one
   thread walks the bytes); NULL where the backend loads no modules or has
   no use for either image (XRT_ERROR_NO_BINARY_FOR_DEVICE). */
static xrt_module kernel_module;

static xrt_function kernel(void)
{
    static const char src[] =
        "typedef struct { unsigned x, y, z; } d3;\n"
        "typedef struct { d3 grid_dim, block_dim, block_idx; void *shared; unsigned long shared_bytes; } ctx;\n"
        "unsigned char table[64];\n"
        "void touch(const ctx *c, void *a) {\n"
        "  unsigned char *p = *(unsigned char **)a; unsigned long n = ((unsigned long *)a)[1];\n"
        "  (void)c; for (unsigned long i = 0; i < n; i++) p[i]++;\n"
        "}\n";
    static const char ptx[] = ".version 7.5\n.target sm_75\n.address_size 64\n"
                              ".visible .global .align 1 .b8 table[64];\n"
                              ".visible .entry touch(.param .u64 touch_p, .param .u64 touch_n)\n"
                              "{\n"
                              "	.reg .pred %p<2>;\n"
                              "	.reg .b16 %rs<2>;\n"
                              "	.reg .b64 %rd<3>;\n"
                              "	ld.param.u64 %rd1, [touch_p];\n"
                              "	ld.param.u64 %rd2, [touch_n];\n"
                              "	cvta.to.global.u64 %rd1, %rd1;\n"
                              "	add.s64 %rd2, %rd1, %rd2;\n"
                              "touch_loop:\n"
                              "	setp.ge.u64 %p1, %rd1, %rd2;\n"
                              "	@%p1 bra touch_done;\n"
                              "	ld.global.u8 %rs1, [%rd1];\n"
                              "	add.s16 %rs1, %rs1, 1;\n"
                              "	st.global.u8 [%rd1], %rs1;\n"
                              "	add.s64 %rd1, %rd1, 1;\n"
                              "	bra touch_loop;\n"
                              "touch_done:\n"
                              "	ret;\n"
                              "}\n";
    static xrt_module m;
    static const char *on;
    xrt_module_image im[2] = {{XRT_IMAGE_CPU_C_SOURCE, src, sizeof src - 1, NULL},
                              {XRT_IMAGE_CUDA_PTX, ptx, sizeof ptx - 1, "compute_75"}};
    xrt_function f = NULL;
    xrt_status st;
    if (!(caps() & XRT_CAP_MODULES)) return NULL;
    if (on != xrt_test_backend) {
        if ((st = xrt_module_load(&m, im, 2, NULL)) == XRT_ERROR_NO_BINARY_FOR_DEVICE) return NULL;
        OK(st);
        on = xrt_test_backend;
    }
    OK(xrt_module_get_function(&f, m, "touch"));
    kernel_module = m;
    return f;
}

static void launch(xrt_function f, void *p, size_t n, xrt_stream s)
{
    xrt_dim3 one = {1, 1, 1};
    xrt_kernel_args a;
    unsigned long nn = n;
    xrt_kernel_args_init(&a);
    XRT_KERNEL_ARG(a, p);
    XRT_KERNEL_ARG(a, nn);
    OK(xrt_launch_kernel(f, one, one, 0, s, a.buf.bytes, a.size));
}

#define EDGE_1_2(fa, fb) \
    "record an event on stream 1 (device 0) after the " fa " and wait for it on stream 2 (device 0) " \
    "(xrt_stream_wait_event) before the " fb

/* A copy into d on stream 1, a copy out of it on stream 2 with no event:
   racy; with the event: clean. */
static void test_copy_copy(void **state)
{
    static unsigned char h[N], g[N];
    round_ w;
    void *d;
    int r, with_event;
    (void)state;
    OK(xrt_malloc(&d, N));
    for (r = 0; r < 2 * ROUNDS; r++) {
        with_event = r >= ROUNDS;
        round_begin(&w, r, XRT_STREAM_DEFAULT, XRT_STREAM_DEFAULT);
        OK(xrt_memcpy_async(d, h, N, XRT_MEMCPY_HOST_TO_DEVICE, w.s1));
        if (with_event) {
            OK(xrt_event_record(w.e, w.s1));
            OK(xrt_stream_wait_event(w.s2, w.e));
        }
        OK(xrt_memcpy_async(g, d, N, XRT_MEMCPY_DEVICE_TO_HOST, w.s2));
        OK(xrt_stream_synchronize(w.s2));
        OK(xrt_stream_synchronize(w.s1));
        if (with_event) expect_clean();
        else
            expect_race("xrt_memcpy_async", "xrt_memcpy_async", d, N, 0, N, "write by xrt_memcpy_async on stream 1 (device 0)",
                        "read by xrt_memcpy_async on stream 2 (device 0)",
                        EDGE_1_2("xrt_memcpy_async", "xrt_memcpy_async"));
        round_end(&w);
    }
    OK(xrt_free(d));
}

/* Two races between the same two calls from two pairs of call sites are two
   reports, however the dispatch functions were compiled. Called through a
   pointer, xrt_memcpy_async is a function of its own (as at -O0 or -Og,
   where it is not inlined): the checker's hook returns into it at the same
   place for every site, and the call site is the frame above. */
static xrt_status (*volatile copy_async)(void *, const void *, size_t, xrt_memcpy_kind, xrt_stream) = xrt_memcpy_async;

static void test_two_sites_two_reports(void **state)
{
    static unsigned char h[N], g[N];
    round_ w;
    void *d, *d2;
    (void)state;
    OK(xrt_malloc(&d, N));
    OK(xrt_malloc(&d2, N));
    round_begin(&w, 0, XRT_STREAM_DEFAULT, XRT_STREAM_DEFAULT);
    OK(copy_async(d, h, N, XRT_MEMCPY_HOST_TO_DEVICE, w.s1));
    OK(copy_async(g, d, N, XRT_MEMCPY_DEVICE_TO_HOST, w.s2));
    OK(xrt_stream_synchronize(w.s2));
    OK(xrt_stream_synchronize(w.s1));
    OK(copy_async(d2, h, N, XRT_MEMCPY_HOST_TO_DEVICE, w.s1));
    OK(copy_async(g, d2, N, XRT_MEMCPY_DEVICE_TO_HOST, w.s2));
    OK(xrt_stream_synchronize(w.s2));
    OK(xrt_stream_synchronize(w.s1));
    if (nreports != 2) print_error("got %d reports:\n%s", nreports, reports);
    assert_int_equal(nreports, 2);
    round_end(&w);
    OK(xrt_free(d2));
    OK(xrt_free(d));
}

/* Two call sites in a unit built without debug information
   (tests/check/nodebug.c, at -O0: xrt_memcpy_async is a function of its
   own there): each is named by its own function, from the symbol table,
   not by the place inside the dispatch function that both share. */
xrt_status nodebug_copy_in(void *dst, const void *src, size_t n, xrt_stream stream);
xrt_status nodebug_copy_out(void *dst, const void *src, size_t n, xrt_stream stream);

static void test_sites_without_debug_info(void **state)
{
    static unsigned char h[N], g[N];
    round_ w;
    void *d;
    (void)state;
    OK(xrt_malloc(&d, N));
    round_begin(&w, 0, XRT_STREAM_DEFAULT, XRT_STREAM_DEFAULT);
    OK(nodebug_copy_in(d, h, N, w.s1));
    OK(nodebug_copy_out(g, d, N, w.s2));
    OK(xrt_stream_synchronize(w.s2));
    OK(xrt_stream_synchronize(w.s1));
    if (nreports != 1 || !strstr(reports, "on stream 1 (device 0), at nodebug_copy_in (") ||
        !strstr(reports, "on stream 2 (device 0), at nodebug_copy_out ("))
        print_error("got %d reports:\n%s", nreports, reports);
    assert_int_equal(nreports, 1);
    assert_non_null(strstr(reports, "on stream 1 (device 0), at nodebug_copy_in ("));
    assert_non_null(strstr(reports, "on stream 2 (device 0), at nodebug_copy_out ("));
    round_end(&w);
    OK(xrt_free(d));
}

/* A pair of call sites racing in a loop: the second round's copy into d
   races the first round's copy out of it, the other way round: still one
   pair, reported once. */
static void test_pair_in_loop_reported_once(void **state)
{
    static unsigned char h[N], g[N];
    round_ w;
    void *d;
    int i;
    (void)state;
    OK(xrt_malloc(&d, N));
    round_begin(&w, 0, XRT_STREAM_DEFAULT, XRT_STREAM_DEFAULT);
    for (i = 0; i < 3; i++) {
        OK(xrt_memcpy_async(d, h, N, XRT_MEMCPY_HOST_TO_DEVICE, w.s1));
        OK(xrt_memcpy_async(g, d, N, XRT_MEMCPY_DEVICE_TO_HOST, w.s2));
    }
    OK(xrt_stream_synchronize(w.s2));
    OK(xrt_stream_synchronize(w.s1));
    if (nreports != 1) print_error("got %d reports:\n%s", nreports, reports);
    assert_int_equal(nreports, 1);
    round_end(&w);
    OK(xrt_free(d));
}

/* The same with a kernel reading and writing d on stream 2 (an argument
   counts as a read-write of its whole allocation). */
static void test_copy_kernel(void **state)
{
    static unsigned char h[N];
    round_ w;
    xrt_function f;
    void *d;
    int r, with_event;
    (void)state;
    f = kernel();
    SKIP_UNLESS(f, "no CPU kernel here (no modules, or no CPU image for the device)");
    OK(xrt_malloc(&d, N));
    for (r = 0; r < 2 * ROUNDS; r++) {
        with_event = r >= ROUNDS;
        round_begin(&w, r, XRT_STREAM_DEFAULT, XRT_STREAM_DEFAULT);
        OK(xrt_memcpy_async(d, h, 100, XRT_MEMCPY_HOST_TO_DEVICE, w.s1));
        if (with_event) {
            OK(xrt_event_record(w.e, w.s1));
            OK(xrt_stream_wait_event(w.s2, w.e));
        }
        launch(f, d, N, w.s2);
        OK(xrt_device_synchronize());
        if (with_event) expect_clean();
        else
            expect_race("xrt_memcpy_async", "xrt_launch_kernel", d, N, 0, 100,
                        "write by xrt_memcpy_async on stream 1 (device 0)",
                        "read-write by xrt_launch_kernel on stream 2 (device 0)",
                        EDGE_1_2("xrt_memcpy_async", "xrt_launch_kernel"));
        round_end(&w);
    }
    OK(xrt_free(d));
}

/* A launch's completion event may complete once every block began
   (cudaLaunchAttributeLaunchCompletionEvent): a copy of the kernel's output
   on a stream that waits for it races the kernel, whatever the backend
   does; one that waits for an event recorded after the launch does not.
   What came before the launch on its stream (a set of d2) is ordered
   before the wait either way. */
static void test_launch_completion_event_orders_nothing(void **state)
{
    static unsigned char h[N];
    xrt_dim3 one = {1, 1, 1};
    xrt_launch_attribute a;
    xrt_launch_config c;
    xrt_kernel_args k;
    unsigned long nn = N;
    xrt_function f;
    round_ w;
    void *d, *d2;
    int r, after;
    (void)state;
    f = kernel();
    SKIP_UNLESS(f, "no CPU kernel here (no modules, or no CPU image for the device)");
    OK(xrt_malloc(&d, N));
    OK(xrt_malloc(&d2, N));
    for (r = 0; r < 2 * ROUNDS; r++) {
        after = r >= ROUNDS;
        round_begin(&w, r, XRT_STREAM_DEFAULT, XRT_STREAM_DEFAULT);
        OK(xrt_memset_async(d2, 1, N, w.s1));
        xrt_kernel_args_init(&k);
        XRT_KERNEL_ARG(k, d);
        XRT_KERNEL_ARG(k, nn);
        memset(&a, 0, sizeof a);
        a.id = XRT_LAUNCH_ATTR_LAUNCH_COMPLETION_EVENT, a.val.launch_completion_event.event = w.e;
        memset(&c, 0, sizeof c);
        c.grid = c.block = one, c.stream = w.s1, c.attrs = &a, c.num_attrs = 1;
        OK(xrt_launch_kernel_ex(&c, f, k.buf.bytes, k.size));
        if (after) OK(xrt_event_record(w.e, w.s1));
        OK(xrt_stream_wait_event(w.s2, w.e));
        OK(xrt_memcpy_async(h, d2, N, XRT_MEMCPY_DEVICE_TO_HOST, w.s2));
        OK(xrt_memcpy_async(h, d, N, XRT_MEMCPY_DEVICE_TO_HOST, w.s2));
        OK(xrt_device_synchronize());
        if (after) expect_clean();
        else
            expect_race("xrt_launch_kernel_ex", "xrt_memcpy_async", d, N, 0, N,
                        "read-write by xrt_launch_kernel_ex on stream 1 (device 0)",
                        "read by xrt_memcpy_async on stream 2 (device 0)",
                        EDGE_1_2("xrt_launch_kernel_ex", "xrt_memcpy_async"));
        round_end(&w);
    }
    OK(xrt_free(d));
    OK(xrt_free(d2));
}

/* The event is recorded on stream 3, not after the copy on stream 1; or it
   is recorded after the copy and then again on stream 3 before the wait (a
   wait takes the record current at the wait). Both racy, as without it. */
static void test_wrong_event(void **state)
{
    static unsigned char h[N], g[N];
    round_ w;
    void *d;
    int r, again;
    (void)state;
    OK(xrt_malloc(&d, N));
    for (r = 0; r < 2 * ROUNDS; r++) {
        again = r >= ROUNDS;
        round_begin(&w, r, XRT_STREAM_DEFAULT, XRT_STREAM_DEFAULT);
        OK(xrt_memcpy_async(d, h, N, XRT_MEMCPY_HOST_TO_DEVICE, w.s1));
        if (again) OK(xrt_event_record(w.e, w.s1));
        OK(xrt_event_record(w.e, w.s3));
        OK(xrt_stream_wait_event(w.s2, w.e));
        OK(xrt_memcpy_async(g, d, N, XRT_MEMCPY_DEVICE_TO_HOST, w.s2));
        OK(xrt_device_synchronize());
        expect_race("xrt_memcpy_async", "xrt_memcpy_async", d, N, 0, N, "write by xrt_memcpy_async on stream 1 (device 0)",
                    "read by xrt_memcpy_async on stream 2 (device 0)", EDGE_1_2("xrt_memcpy_async", "xrt_memcpy_async"));
        round_end(&w);
    }
    OK(xrt_free(d));
}

/* Host functions that order two streams behind the checker's back: the
   racy programs that free must not free while the set still runs (the CUDA
   double frees at once; without this, only a slow report kept the memset
   from writing freed memory). A 5 s bound: never a hang. */
static void mark_done(void *flag) { __atomic_store_n((int *)flag, 1, __ATOMIC_RELEASE); }

static void wait_done(void *flag)
{
    int i;
    for (i = 0; i < 5000 && !__atomic_load_n((int *)flag, __ATOMIC_ACQUIRE); i++) usleep(1000);
}

/* xrt_free_async on stream 2 of memory stream 1 still sets: racy. xrt_free
   waits for the device (as cudaFree): clean. */
static void test_free_racing(void **state)
{
    round_ w;
    void *d;
    int r, sync_free, done;
    (void)state;
    for (r = 0; r < 2 * ROUNDS; r++) {
        sync_free = r >= ROUNDS;
        round_begin(&w, r, XRT_STREAM_DEFAULT, XRT_STREAM_DEFAULT);
        OK(xrt_malloc(&d, N));
        OK(xrt_memset_async(d, 1, N, w.s1));
        if (sync_free) {
            OK(xrt_free(d));
            expect_clean();
        } else {
            done = 0;
            OK(xrt_launch_host_func(w.s1, mark_done, &done)); /* unannotated: no access, no order seen */
            OK(xrt_launch_host_func(w.s2, wait_done, &done));
            OK(xrt_free_async(d, w.s2));
            expect_race("xrt_memset_async", "xrt_free_async", d, N, 0, N,
                        "write by xrt_memset_async on stream 1 (device 0)",
                        "write by xrt_free_async on stream 2 (device 0)", EDGE_1_2("xrt_memset_async", "xrt_free_async"));
        }
        OK(xrt_device_synchronize());
        round_end(&w);
    }
}

/* A free that xrt refuses (pinned host memory given to xrt_free_async or
   xrt_free) frees nothing: no access, no order, and the memory's history
   stays. Stream 1 sets h, the refused free, a copy out of h on stream 2:
   racy, the report naming the set and the copy, of pinned host memory
   ("host": no device's). */
static void test_refused_free_not_recorded(void **state)
{
    round_ w;
    void *d, *h;
    int r, sync_free;
    (void)state;
    OK(xrt_malloc(&d, N));
    OK(xrt_malloc_host(&h, N));
    for (r = 0; r < 2 * ROUNDS; r++) {
        sync_free = r >= ROUNDS;
        round_begin(&w, r, XRT_STREAM_NON_BLOCKING, XRT_STREAM_NON_BLOCKING);
        OK(xrt_memset_async(h, 1, N, w.s1));
        if (sync_free) XRT_ASSERT_FAILS(xrt_free(h), XRT_ERROR_INVALID_VALUE, "is pinned host memory");
        else XRT_ASSERT_FAILS(xrt_free_async(h, w.s2), XRT_ERROR_INVALID_VALUE, "is pinned host memory");
        xrt_get_last_error(); /* not the test's error */
        OK(xrt_memcpy_async(d, h, N, XRT_MEMCPY_HOST_TO_DEVICE, w.s2));
        OK(xrt_device_synchronize());
        expect_race_of("pinned host", "host", "xrt_memset_async", "xrt_memcpy_async", h, N, 0, N,
                       "write by xrt_memset_async on stream 1 (device 0)", "read by xrt_memcpy_async on stream 2 (device 0)",
                       EDGE_1_2("xrt_memset_async", "xrt_memcpy_async"));
        round_end(&w);
    }
    OK(xrt_free_host(h));
    OK(xrt_free(d));
}

/* xrt_free_async on a capturing stream frees nothing before a launch of
   the graph: the memory's history stays. Stream 1 sets d, a capture on
   stream 2 takes the free (the CPU backend and the CUDA runtime double
   refuse it: the free fails, and d is still there), stream 3 sets d: racy
   with stream 1's set. */
static void test_captured_free_keeps_history(void **state)
{
    round_ w;
    xrt_graph graph = NULL;
    xrt_status freed, ended;
    void *d;
    int r;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_GRAPHS, "no graphs");
    OK(xrt_malloc(&d, N));
    for (r = 0; r < ROUNDS; r++) {
        round_begin(&w, r, XRT_STREAM_NON_BLOCKING, XRT_STREAM_NON_BLOCKING);
        OK(xrt_memset_async(d, 1, N, w.s1));
        OK(xrt_stream_begin_capture(w.s2, XRT_CAPTURE_MODE_RELAXED));
        freed = xrt_free_async(d, w.s2);
        ended = xrt_stream_end_capture(w.s2, &graph);
        xrt_get_last_error(); /* the refusal's, not the test's */
        if (freed == XRT_SUCCESS) { /* a runtime that captures it (a GPU's): d is the graph's to free */
            if (ended == XRT_SUCCESS) OK(xrt_graph_destroy(graph));
            OK(xrt_device_synchronize());
            round_end(&w);
            skip();
        }
        OK(xrt_memset_async(d, 2, N, w.s3));
        OK(xrt_device_synchronize());
        expect_race("xrt_memset_async", "xrt_memset_async", d, N, 0, N, "write by xrt_memset_async on stream 1 (device 0)",
                    "write by xrt_memset_async on stream 3 (device 0)",
                    "record an event on stream 1 (device 0) after the xrt_memset_async and wait for it on stream 3 "
                    "(device 0) (xrt_stream_wait_event) before the xrt_memset_async");
        round_end(&w);
    }
    OK(xrt_free(d));
}

static void reader(void *user) { (void)user; }

/* A host function annotated as reading d, then a copy into d on another
   stream: racy; a host function without annotation touches nothing. */
static void test_host_fn_annotated(void **state)
{
    static unsigned char h[N];
    round_ w;
    void *d;
    int r, noted;
    (void)state;
    OK(xrt_malloc(&d, N));
    for (r = 0; r < 2 * ROUNDS; r++) {
        noted = r < ROUNDS;
        round_begin(&w, r, XRT_STREAM_DEFAULT, XRT_STREAM_DEFAULT);
        if (noted) OK(xrt_check_annotate((char *)d + 64, 64, XRT_CHECK_READ));
        OK(xrt_launch_host_func(w.s1, reader, d));
        OK(xrt_memcpy_async(d, h, N, XRT_MEMCPY_HOST_TO_DEVICE, w.s2));
        OK(xrt_device_synchronize());
        if (!noted) expect_clean();
        else
            expect_race("xrt_launch_host_func", "xrt_memcpy_async", d, N, 64, 128,
                        "read by xrt_launch_host_func on stream 1 (device 0)",
                        "write by xrt_memcpy_async on stream 2 (device 0)",
                        EDGE_1_2("xrt_launch_host_func", "xrt_memcpy_async"));
        round_end(&w);
    }
    OK(xrt_free(d));
}

/* An annotation is for the thread's next launch, whether xrt refuses it or
   not: a launch refused before it reaches the backend (a bad function or
   stream handle, a zero dimension, a NULL host function) takes its
   annotations with it. Here d annotated as written, then a refused launch,
   then an unannotated host function on stream 1 (touching nothing) and a
   copy out of d on stream 2: clean. */
static void test_refused_launch_drops_annotations(void **state)
{
    static unsigned char g[N];
    xrt_dim3 one = {1, 1, 1}, none = {0, 1, 1};
    xrt_function f = NULL;
    xrt_stream gone;
    round_ w;
    void *d;
    int k;
    (void)state;
    f = kernel();
    OK(xrt_malloc(&d, N));
    for (k = 0; k < 5; k++) {
        if (k >= 3 && !f) continue; /* no kernel to launch */
        round_begin(&w, 0, XRT_STREAM_DEFAULT, XRT_STREAM_DEFAULT);
        OK(xrt_stream_create(&gone));
        OK(xrt_stream_destroy(gone));
        OK(xrt_check_annotate(d, N, XRT_CHECK_WRITE));
        if (k == 0) assert_int_equal(xrt_launch_host_func(gone, reader, NULL), XRT_ERROR_INVALID_HANDLE);
        if (k == 1) assert_int_equal(xrt_launch_host_func(w.s1, NULL, NULL), XRT_ERROR_INVALID_VALUE);
        if (k == 2) assert_int_equal(xrt_launch_kernel((xrt_function)(void *)gone, one, one, 0, w.s1, NULL, 0),
                                     XRT_ERROR_INVALID_HANDLE);
        if (k == 3) assert_int_equal(xrt_launch_kernel(f, one, one, 0, gone, NULL, 0), XRT_ERROR_INVALID_HANDLE);
        if (k == 4) assert_int_equal(xrt_launch_kernel(f, none, one, 0, w.s1, NULL, 0), XRT_ERROR_INVALID_VALUE);
        OK(xrt_launch_host_func(w.s1, reader, NULL));
        OK(xrt_memcpy_async(g, d, N, XRT_MEMCPY_DEVICE_TO_HOST, w.s2));
        OK(xrt_device_synchronize());
        if (nreports) print_error("after refused launch %d:\n", k);
        expect_clean();
        round_end(&w);
    }
    OK(xrt_free(d));
}

/* xrt_memset of device memory and xrt_memcpy from device to device memory
   return before their work is done on a GPU (CUDA's "API synchronization
   behavior"), so work on a non-blocking stream after them is in no order
   with them, whatever the CPU backend's timing; on a blocking stream it is
   (the legacy stream's order). */
static void test_sync_set_and_d2d_copy_return_early(void **state)
{
    static unsigned char h[N];
    round_ w;
    void *d, *d2;
    int r, non_blocking, set;
    (void)state;
    OK(xrt_malloc(&d, N));
    OK(xrt_malloc(&d2, N));
    for (r = 0; r < 4 * ROUNDS; r++) {
        non_blocking = r % (2 * ROUNDS) >= ROUNDS;
        set = r < 2 * ROUNDS;
        round_begin(&w, r, non_blocking ? XRT_STREAM_NON_BLOCKING : XRT_STREAM_DEFAULT, XRT_STREAM_DEFAULT);
        if (set) OK(xrt_memset(d, 0, N));
        else OK(xrt_memcpy(d, d2, N, XRT_MEMCPY_DEVICE_TO_DEVICE));
        OK(xrt_memcpy_async(h, d, N, XRT_MEMCPY_DEVICE_TO_HOST, w.s1));
        OK(xrt_stream_synchronize(w.s1));
        OK(xrt_device_synchronize());
        if (!non_blocking) expect_clean();
        else
            expect_race(set ? "xrt_memset" : "xrt_memcpy", "xrt_memcpy_async", d, N, 0, N,
                        set ? "write by xrt_memset on the NULL stream of device 0"
                            : "write by xrt_memcpy on the NULL stream of device 0",
                        "read by xrt_memcpy_async on stream 1 (device 0)",
                        set ? "record an event on the NULL stream of device 0 after the xrt_memset and wait for it on "
                              "stream 1 (device 0) (xrt_stream_wait_event) before the xrt_memcpy_async"
                            : "record an event on the NULL stream of device 0 after the xrt_memcpy and wait for it on "
                              "stream 1 (device 0) (xrt_stream_wait_event) before the xrt_memcpy_async");
        round_end(&w);
    }
    OK(xrt_free(d2));
    OK(xrt_free(d));
}

/* A synchronous set of managed memory ("a Unified Memory region") or of
   pinned host memory is "fully synchronous" (CUDA's "API synchronization
   behavior"): the host waits for it, so work on a non-blocking stream after
   it is in order with it, whatever the backend's timing. */
static void test_sync_set_of_managed_or_pinned_waits(void **state)
{
    static unsigned char h[N];
    round_ w;
    void *m, *pinned, *t;
    int r;
    (void)state;
    OK(xrt_malloc_managed(&m, N, XRT_MEM_ATTACH_GLOBAL));
    OK(xrt_malloc_host(&pinned, N));
    for (r = 0; r < 2 * ROUNDS; r++) {
        t = r < ROUNDS ? m : pinned;
        round_begin(&w, r, XRT_STREAM_NON_BLOCKING, XRT_STREAM_DEFAULT);
        if (r % 2) OK(xrt_memset(t, 0, N));
        else OK(xrt_memset_2d(t, N / 4, 0, N / 4, 4));
        OK(xrt_memcpy_async(h, t, N, XRT_MEMCPY_DEFAULT, w.s1));
        OK(xrt_device_synchronize());
        expect_clean();
        round_end(&w);
    }
    OK(xrt_free_host(pinned));
    OK(xrt_free(m));
}

/* xrt_memcpy from pageable host memory to device memory returns once the
   source is staged, before the copy reaches the device (CUDA's "API
   synchronization behavior": "the DMA to final destination may not have
   completed"): a memset of the destination on a non-blocking stream after
   it is in no order with it, whatever the CPU backend's timing. From pinned
   memory the host waits for the copy: clean. */
static void test_sync_copy_from_pageable_returns_early(void **state)
{
    static unsigned char h[N];
    round_ w;
    void *d, *pinned;
    int r, pageable;
    (void)state;
    OK(xrt_malloc(&d, N));
    OK(xrt_malloc_host(&pinned, N));
    for (r = 0; r < 2 * ROUNDS; r++) {
        pageable = r < ROUNDS;
        round_begin(&w, r, XRT_STREAM_NON_BLOCKING, XRT_STREAM_DEFAULT);
        OK(xrt_memcpy(d, pageable ? (void *)h : pinned, N, XRT_MEMCPY_HOST_TO_DEVICE));
        OK(xrt_memset_async(d, 0, N, w.s1));
        OK(xrt_device_synchronize());
        if (!pageable) expect_clean();
        else
            expect_race("xrt_memcpy", "xrt_memset_async", d, N, 0, N,
                        "write by xrt_memcpy on the NULL stream of device 0",
                        "write by xrt_memset_async on stream 1 (device 0)",
                        "record an event on the NULL stream of device 0 after the xrt_memcpy and wait for it on "
                        "stream 1 (device 0) (xrt_stream_wait_event) before the xrt_memset_async");
        round_end(&w);
    }
    OK(xrt_free_host(pinned));
    OK(xrt_free(d));
}

/* The NULL stream's implicit order: a copy on blocking stream 1, a memset on
   the NULL stream, a copy out on blocking stream 2, then xrt_memcpy: clean.
   Stream 1 non-blocking: its copy and the NULL stream's memset race. */
static void test_legacy_order(void **state)
{
    static unsigned char h[N], g[N];
    round_ w;
    void *d;
    int r, non_blocking;
    (void)state;
    OK(xrt_malloc(&d, N));
    for (r = 0; r < 2 * ROUNDS; r++) {
        non_blocking = r >= ROUNDS;
        round_begin(&w, r, non_blocking ? XRT_STREAM_NON_BLOCKING : XRT_STREAM_DEFAULT, XRT_STREAM_DEFAULT);
        OK(xrt_memcpy_async(d, h, N, XRT_MEMCPY_HOST_TO_DEVICE, w.s1));
        OK(xrt_memset_async(d, 0, N, NULL));
        if (non_blocking) OK(xrt_stream_synchronize(w.s1)); /* else s2's and the host's copies race with s1's too */
        OK(xrt_memcpy_async(g, d, N, XRT_MEMCPY_DEVICE_TO_HOST, w.s2));
        OK(xrt_memcpy(h, d, N, XRT_MEMCPY_DEVICE_TO_HOST));
        OK(xrt_memset(d, 0, N));
        if (!non_blocking) expect_clean();
        else
            expect_race("xrt_memcpy_async", "xrt_memset_async", d, N, 0, N,
                        "write by xrt_memcpy_async on stream 1 (device 0)",
                        "write by xrt_memset_async on the NULL stream of device 0",
                        "record an event on stream 1 (device 0) after the xrt_memcpy_async and wait for it on the NULL "
                        "stream of device 0 (xrt_stream_wait_event) before the xrt_memset_async");
        OK(xrt_device_synchronize());
        round_end(&w);
    }
    OK(xrt_free(d));
}

/* Two devices: a memset of d0 on device 0's stream, a peer copy out of d0
   on device 1's stream: racy without an event, clean with one. */
static void test_peer_copy(void **state)
{
    xrt_stream s0, s1;
    xrt_event e;
    void *d0, *d1;
    int r, n = 0, with_event;
    (void)state;
    OK(xrt_get_device_count(&n));
    SKIP_UNLESS(n >= 2, "one device");
    OK(xrt_set_device(0));
    OK(xrt_malloc(&d0, N));
    OK(xrt_set_device(1));
    OK(xrt_malloc(&d1, N));
    for (r = 0; r < 2 * ROUNDS; r++) {
        with_event = r >= ROUNDS;
        begin();
        OK(xrt_set_device(0));
        OK(xrt_stream_create(&s0));
        OK(xrt_event_create(&e, XRT_EVENT_DISABLE_TIMING));
        OK(xrt_set_device(1));
        OK(xrt_stream_create(&s1));
        OK(xrt_set_device(0));
        perturb(s0, r);
        OK(xrt_memset_async(d0, 3, N, s0));
        if (with_event) OK(xrt_event_record(e, s0));
        OK(xrt_set_device(1));
        if (with_event) OK(xrt_stream_wait_event(s1, e));
        OK(xrt_memcpy_peer_async(d1, 1, d0, 0, N, s1));
        OK(xrt_stream_synchronize(s1));
        OK(xrt_set_device(0));
        OK(xrt_stream_synchronize(s0));
        if (with_event) expect_clean();
        else
            expect_race("xrt_memset_async", "xrt_memcpy_peer_async", d0, N, 0, N,
                        "write by xrt_memset_async on stream 1 (device 0)",
                        "read by xrt_memcpy_peer_async on stream 2 (device 1)",
                        "record an event on stream 1 (device 0) after the xrt_memset_async and wait for it on stream 2 "
                        "(device 1) (xrt_stream_wait_event) before the xrt_memcpy_peer_async");
        end();
        OK(xrt_event_destroy(e));
        OK(xrt_stream_destroy(s0));
        OK(xrt_stream_destroy(s1));
    }
    OK(xrt_free(d0));
    OK(xrt_free(d1));
    OK(xrt_set_device(0));
}

/* A stream made on device 1 while checking is off, first used while device
   0 is current: it is device 1's, where it was made, so the NULL stream of
   device 1 comes after its work (blocking): clean; non-blocking: racy, the
   report naming it stream 1 (device 1). */
static void test_stream_made_before_checking(void **state)
{
    static unsigned char h[N];
    xrt_stream s;
    void *d1;
    int r, n = 0, non_blocking;
    (void)state;
    OK(xrt_get_device_count(&n));
    SKIP_UNLESS(n >= 2, "one device");
    OK(xrt_set_device(1));
    OK(xrt_malloc(&d1, N));
    for (r = 0; r < 2 * ROUNDS; r++) {
        non_blocking = r >= ROUNDS;
        OK(xrt_check_enable(XRT_CHECK_OFF));
        OK(xrt_set_device(1));
        OK(xrt_stream_create_with_flags(&s, non_blocking ? XRT_STREAM_NON_BLOCKING : XRT_STREAM_DEFAULT));
        begin();
        OK(xrt_set_device(0));
        perturb(s, r);
        OK(xrt_memcpy_async(d1, h, N, XRT_MEMCPY_HOST_TO_DEVICE, s));
        OK(xrt_set_device(1));
        OK(xrt_memset(d1, 0, N));
        OK(xrt_device_synchronize());
        if (!non_blocking) expect_clean();
        else
            expect_race_of("device", "device 1", "xrt_memcpy_async", "xrt_memset", d1, N, 0, N,
                           "write by xrt_memcpy_async on stream 1 (device 1)",
                           "write by xrt_memset on the NULL stream of device 1",
                           "record an event on stream 1 (device 1) after the xrt_memcpy_async and wait for it on the "
                           "NULL stream of device 1 (xrt_stream_wait_event) before the xrt_memset");
        end();
        OK(xrt_stream_destroy(s));
    }
    OK(xrt_free(d1));
    OK(xrt_set_device(0));
}

/* xrt_memcpy_peer, as cudaMemcpyPeer: after the work queued on the NULL
   streams of the source's and the destination's devices (and so on their
   blocking streams), before their later work, not waited for by the host,
   and in no order with a non-blocking stream: the non-blocking stream's
   write of the destination is the one race. */
static void test_peer_copy_serialized(void **state)
{
    xrt_stream blocking1, nb0;
    void *d0, *d1;
    int r, n = 0;
    (void)state;
    OK(xrt_get_device_count(&n));
    SKIP_UNLESS(n >= 2, "one device");
    OK(xrt_set_device(0));
    OK(xrt_malloc(&d0, N));
    OK(xrt_set_device(1));
    OK(xrt_malloc(&d1, N));
    for (r = 0; r < ROUNDS; r++) {
        begin();
        OK(xrt_set_device(1));
        OK(xrt_stream_create(&blocking1));
        perturb(blocking1, r);
        OK(xrt_memset_async(d1, 1, N, blocking1)); /* before the copy reads d1 */
        OK(xrt_set_device(0));
        OK(xrt_stream_create_with_flags(&nb0, XRT_STREAM_NON_BLOCKING));
        OK(xrt_memcpy_peer(d0, 0, d1, 1, N));
        OK(xrt_set_device(1));
        OK(xrt_memset_async(d1, 2, N, blocking1)); /* after it */
        OK(xrt_set_device(0));
        OK(xrt_memset_async(d0, 3, N, nb0));
        OK(xrt_stream_synchronize(nb0));
        OK(xrt_set_device(1));
        OK(xrt_device_synchronize());
        OK(xrt_set_device(0));
        OK(xrt_device_synchronize());
        expect_race("xrt_memcpy_peer", "xrt_memset_async", d0, N, 0, N,
                    "write by xrt_memcpy_peer on the NULL stream of device 0",
                    "write by xrt_memset_async on stream 2 (device 0)",
                    "record an event on the NULL stream of device 0 after the xrt_memcpy_peer and wait for it on stream 2 "
                    "(device 0) (xrt_stream_wait_event) before the xrt_memset_async");
        end();
        OK(xrt_stream_destroy(nb0));
        OK(xrt_stream_destroy(blocking1));
    }
    OK(xrt_free(d0));
    OK(xrt_set_device(1));
    OK(xrt_free(d1));
    OK(xrt_set_device(0));
}

/* A synchronize (stream, event, query that succeeded) orders the host: its
   later work on another stream is after. Each pair is reported once. */
static void test_sync_orders_host(void **state)
{
    static unsigned char h[N], g[N];
    round_ w;
    void *d;
    int r, i;
    (void)state;
    OK(xrt_malloc(&d, N));
    for (r = 0; r < ROUNDS; r++) {
        round_begin(&w, r, XRT_STREAM_NON_BLOCKING, XRT_STREAM_NON_BLOCKING);
        OK(xrt_memcpy_async(d, h, N, XRT_MEMCPY_HOST_TO_DEVICE, w.s1));
        OK(xrt_stream_synchronize(w.s1));
        OK(xrt_memcpy_async(g, d, N, XRT_MEMCPY_DEVICE_TO_HOST, w.s2));
        OK(xrt_memcpy_async(d, h, N, XRT_MEMCPY_HOST_TO_DEVICE, w.s1)); /* racy: s2 reads */
        OK(xrt_event_record(w.e, w.s1));
        OK(xrt_event_synchronize(w.e));
        while (xrt_stream_query(w.s2) != XRT_SUCCESS) usleep(100);
        for (i = 0; i < 3; i++) OK(xrt_memcpy_async(g, d, N, XRT_MEMCPY_DEVICE_TO_HOST, w.s2));
        OK(xrt_stream_synchronize(w.s2));
        expect_race("xrt_memcpy_async", "xrt_memcpy_async", d, N, 0, N,
                    "read by xrt_memcpy_async on stream 2 (device 0)", "write by xrt_memcpy_async on stream 1 (device 0)",
                    "record an event on stream 2 (device 0) after the xrt_memcpy_async and wait for it on stream 1 "
                    "(device 0) (xrt_stream_wait_event) before the xrt_memcpy_async");
        round_end(&w);
    }
    OK(xrt_free(d));
}

/* A graph of a copy into d (node 0), an empty node (1) and a memset of d
   (2) after node 1; with the edge 0 -> 1 the copy and the memset are
   ordered through node 1: clean; without it they race inside each launch. */
static xrt_graph_exec copy_then_set(void *d, const void *h, int with_edge)
{
    xrt_graph graph;
    xrt_graph_exec exec;
    xrt_graph_node n0, n1, n2;
    xrt_memset_node_params set = {d, 0, 7, 1, N, 1};
    OK(xrt_graph_create(&graph, 0));
    OK(xrt_graph_add_memcpy_node_1d(&n0, graph, NULL, 0, d, h, N, XRT_MEMCPY_HOST_TO_DEVICE));
    OK(xrt_graph_add_empty_node(&n1, graph, with_edge ? &n0 : NULL, with_edge ? 1 : 0));
    OK(xrt_graph_add_memset_node(&n2, graph, &n1, 1, &set));
    OK(xrt_graph_instantiate(&exec, graph));
    OK(xrt_graph_destroy(graph));
    return exec;
}

static void test_graph_nodes_without_edge(void **state)
{
    static unsigned char h[N];
    round_ w;
    xrt_graph_exec exec;
    void *d;
    int r, with_edge;
    (void)state;
    OK(xrt_malloc(&d, N));
    for (r = 0; r < 2 * ROUNDS; r++) {
        with_edge = r >= ROUNDS;
        round_begin(&w, r, XRT_STREAM_DEFAULT, XRT_STREAM_DEFAULT);
        exec = copy_then_set(d, h, with_edge);
        OK(xrt_graph_launch(exec, w.s1));
        OK(xrt_graph_launch(exec, w.s1)); /* the same pair: reported once */
        OK(xrt_stream_synchronize(w.s1));
        if (with_edge) expect_clean();
        else
            expect_race("memcpy node 0 of xrt_graph_launch", "memset node 2 of xrt_graph_launch", d, N, 0, N,
                        "write by memcpy node 0 of xrt_graph_launch on stream 1 (device 0)",
                        "write by memset node 2 of xrt_graph_launch on stream 1 (device 0)",
                        "add an edge from the memcpy node 0 to the memset node 2 (xrt_graph_add_dependencies; in a "
                        "capture, an event or the same stream), or one the other way");
        OK(xrt_graph_exec_destroy(exec));
        round_end(&w);
    }
    OK(xrt_free(d));
}

/* A graph of one node that sets d's N bytes to 7, and an exec of it. */
static void memset_graph(xrt_graph *graph, xrt_graph_exec *exec, void *d)
{
    xrt_memset_node_params set = {d, 0, 7, 1, N, 1};
    xrt_graph_node n0;
    OK(xrt_graph_create(graph, 0));
    OK(xrt_graph_add_memset_node(&n0, *graph, NULL, 0, &set));
    OK(xrt_graph_instantiate(exec, *graph));
}

/* The same graph captured on the calling thread's per-thread stream. */
static void memset_graph_captured(xrt_graph *graph, xrt_graph_exec *exec, void *d)
{
    OK(xrt_stream_begin_capture(XRT_STREAM_PER_THREAD, XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_memset_async(d, 7, N, XRT_STREAM_PER_THREAD));
    OK(xrt_stream_end_capture(XRT_STREAM_PER_THREAD, graph));
    OK(xrt_graph_instantiate(exec, *graph));
}

/* A graph setting d launched on stream 1, a copy out of d on stream 2:
   racy without an event; with one recorded after the launch, clean. Then
   the graph again on stream 1, after the copy through an event: clean. The
   graph is built in even rounds, captured on the per-thread stream in odd
   ones (its capture touches nothing). */
static void test_graph_races_eager(void **state)
{
    static unsigned char g[N];
    round_ w;
    xrt_graph graph;
    xrt_graph_exec exec;
    void *d;
    int r, with_event;
    (void)state;
    OK(xrt_malloc(&d, N));
    for (r = 0; r < 2 * ROUNDS; r++) {
        with_event = r >= ROUNDS;
        round_begin(&w, r, XRT_STREAM_DEFAULT, XRT_STREAM_DEFAULT);
        (r % 2 ? memset_graph_captured : memset_graph)(&graph, &exec, d);
        OK(xrt_graph_launch(exec, w.s1));
        if (with_event) {
            OK(xrt_event_record(w.e, w.s1));
            OK(xrt_stream_wait_event(w.s2, w.e));
        }
        OK(xrt_memcpy_async(g, d, N, XRT_MEMCPY_DEVICE_TO_HOST, w.s2));
        OK(xrt_event_record(w.e, w.s2));
        OK(xrt_stream_wait_event(w.s1, w.e));
        OK(xrt_graph_launch(exec, w.s1));
        OK(xrt_device_synchronize());
        if (with_event) expect_clean();
        else
            expect_race("memset node 0 of xrt_graph_launch", "xrt_memcpy_async", d, N, 0, N,
                        "write by memset node 0 of xrt_graph_launch on stream 1 (device 0)",
                        "read by xrt_memcpy_async on stream 2 (device 0)",
                        EDGE_1_2("memset node 0 of xrt_graph_launch", "xrt_memcpy_async"));
        OK(xrt_graph_exec_destroy(exec));
        OK(xrt_graph_destroy(graph));
        round_end(&w);
    }
    OK(xrt_free(d));
}

/* A captured graph with external event nodes (XRT_EVENT_WAIT_EXTERNAL,
   XRT_EVENT_RECORD_EXTERNAL) orders as one built with them: its wait node
   follows a set of d on stream 2 recorded before the launch, and a copy out
   of d on stream 3 that waits for its record node follows its memset node:
   clean. Captured without the wait node, the set on stream 2 races the
   graph's memset and the copy. */
static void test_graph_external_event_nodes(void **state)
{
    static unsigned char g[N];
    round_ w;
    xrt_graph graph;
    xrt_graph_exec exec;
    xrt_event in, out;
    void *d;
    int r, with_wait;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_GRAPHS, "no graphs");
    OK(xrt_malloc(&d, N));
    for (r = 0; r < 2 * ROUNDS; r++) {
        with_wait = r < ROUNDS;
        round_begin(&w, r, XRT_STREAM_NON_BLOCKING, XRT_STREAM_NON_BLOCKING);
        OK(xrt_event_create(&in, XRT_EVENT_DISABLE_TIMING));
        OK(xrt_event_create(&out, XRT_EVENT_DISABLE_TIMING));
        OK(xrt_stream_begin_capture(w.s1, XRT_CAPTURE_MODE_GLOBAL));
        if (with_wait) OK(xrt_stream_wait_event_with_flags(w.s1, in, XRT_EVENT_WAIT_EXTERNAL));
        OK(xrt_memset_async(d, 7, N, w.s1));
        OK(xrt_event_record_with_flags(out, w.s1, XRT_EVENT_RECORD_EXTERNAL));
        OK(xrt_stream_end_capture(w.s1, &graph));
        OK(xrt_graph_instantiate(&exec, graph));
        OK(xrt_memset_async(d, 1, N, w.s2));
        OK(xrt_event_record(in, w.s2));
        OK(xrt_graph_launch(exec, w.s1));
        OK(xrt_stream_wait_event(w.s3, out));
        OK(xrt_memcpy_async(g, d, N, XRT_MEMCPY_DEVICE_TO_HOST, w.s3));
        OK(xrt_device_synchronize());
        if (with_wait) {
            expect_clean();
        } else {
            /* the set races the memset node, and the copy, which follows only the graph */
            if (nreports != 2 || !strstr(reports, "memset node 0 of xrt_graph_launch") ||
                !strstr(reports, "read by xrt_memcpy_async on stream 3"))
                print_error("%d reports, expected 2 of the set (the memset node, the copy):\n%s", nreports, reports);
            assert_int_equal(nreports, 2);
        }
        OK(xrt_graph_exec_destroy(exec));
        OK(xrt_graph_destroy(graph));
        OK(xrt_event_destroy(in));
        OK(xrt_event_destroy(out));
        round_end(&w);
    }
    OK(xrt_free(d));
}

/* One exec setting d launched on stream 1, then on stream 2 with no event:
   clean, as cudaGraphLaunch orders a launch after the exec's previous ones
   (also after xrt_graph_exec_update); a copy out of d on stream 2 after the
   second launch: clean too. Two execs of one graph, one a stream: racy. */
static void test_graph_exec_launches_ordered(void **state)
{
    static unsigned char g[N];
    round_ w;
    xrt_graph graph;
    xrt_graph_exec exec, other;
    void *d;
    int r, two_execs;
    (void)state;
    OK(xrt_malloc(&d, N));
    for (r = 0; r < 2 * ROUNDS; r++) {
        two_execs = r >= ROUNDS;
        round_begin(&w, r, XRT_STREAM_NON_BLOCKING, XRT_STREAM_NON_BLOCKING);
        memset_graph(&graph, &exec, d);
        OK(xrt_graph_instantiate(&other, graph));
        OK(xrt_graph_launch(exec, w.s1));
        OK(xrt_graph_exec_update(exec, graph));
        OK(xrt_graph_launch(two_execs ? other : exec, w.s2));
        if (!two_execs) OK(xrt_memcpy_async(g, d, N, XRT_MEMCPY_DEVICE_TO_HOST, w.s2));
        OK(xrt_device_synchronize());
        if (!two_execs) expect_clean();
        else
            expect_race("memset node 0 of xrt_graph_launch", "memset node 0 of xrt_graph_launch", d, N, 0, N,
                        "write by memset node 0 of xrt_graph_launch on stream 1 (device 0)",
                        "write by memset node 0 of xrt_graph_launch on stream 2 (device 0)",
                        EDGE_1_2("memset node 0 of xrt_graph_launch", "memset node 0 of xrt_graph_launch"));
        OK(xrt_graph_exec_destroy(other));
        OK(xrt_graph_exec_destroy(exec));
        OK(xrt_graph_destroy(graph));
        round_end(&w);
    }
    OK(xrt_free(d));
}

/* An exec's copy node moved from d to d2 (xrt_graph_exec_memcpy_node_set_params)
   no longer writes d: the exec's snapshot goes, its launches being
   operations without accesses, as after xrt_graph_exec_node_set_params.
   A set of d on stream 2 after the launch on stream 1: clean. */
static void test_graph_exec_copy_node_changed(void **state)
{
    static unsigned char h[N];
    round_ w;
    xrt_graph graph;
    xrt_graph_exec exec;
    xrt_graph_node n0;
    xrt_memcpy_3d_parms p;
    void *d, *d2;
    int r;
    (void)state;
    OK(xrt_malloc(&d, N));
    OK(xrt_malloc(&d2, N));
    for (r = 0; r < ROUNDS; r++) {
        round_begin(&w, r, XRT_STREAM_NON_BLOCKING, XRT_STREAM_NON_BLOCKING);
        OK(xrt_graph_create(&graph, 0));
        OK(xrt_graph_add_memcpy_node_1d(&n0, graph, NULL, 0, d, h, N, XRT_MEMCPY_HOST_TO_DEVICE));
        OK(xrt_graph_instantiate(&exec, graph));
        OK(xrt_graph_memcpy_node_get_params(n0, &p));
        p.dst_ptr.ptr = d2;
        OK(xrt_graph_exec_memcpy_node_set_params(exec, n0, &p));
        OK(xrt_graph_launch(exec, w.s1));
        OK(xrt_memset_async(d, 0, N, w.s2));
        OK(xrt_device_synchronize());
        expect_clean();
        OK(xrt_graph_exec_destroy(exec));
        OK(xrt_graph_destroy(graph));
        round_end(&w);
    }
    OK(xrt_free(d2));
    OK(xrt_free(d));
}

/* A kernel node reading and writing d (its pointer argument) beside a
   memcpy node into d with no edge: racy; with the edge: clean. A second
   kernel node on d after the copy, in no order with the first: not
   reported (two kernel nodes' whole-allocation guesses are not compared). */
static void test_graph_kernel_node(void **state)
{
    static unsigned char h[N];
    round_ w;
    xrt_graph graph;
    xrt_graph_exec exec;
    xrt_graph_node n0, n1, n2;
    xrt_function f;
    void *d;
    int r, with_edge;
    (void)state;
    f = kernel();
    SKIP_UNLESS(f, "no CPU kernel here (no modules, or no CPU image for the device)");
    OK(xrt_malloc(&d, N));
    for (r = 0; r < 2 * ROUNDS; r++) {
        xrt_kernel_node_params k;
        xrt_kernel_args a;
        unsigned long nn = N;
        xrt_dim3 one = {1, 1, 1};
        with_edge = r >= ROUNDS;
        xrt_kernel_args_init(&a);
        XRT_KERNEL_ARG(a, d);
        XRT_KERNEL_ARG(a, nn);
        k.function = f, k.grid = one, k.block = one, k.shared_bytes = 0, k.args = a.buf.bytes, k.args_size = a.size;
        round_begin(&w, r, XRT_STREAM_DEFAULT, XRT_STREAM_DEFAULT);
        OK(xrt_graph_create(&graph, 0));
        OK(xrt_graph_add_memcpy_node_1d(&n0, graph, NULL, 0, d, h, 100, XRT_MEMCPY_HOST_TO_DEVICE));
        OK(xrt_graph_add_kernel_node(&n1, graph, with_edge ? &n0 : NULL, with_edge ? 1 : 0, &k));
        OK(xrt_graph_add_kernel_node(&n2, graph, &n0, 1, &k));
        OK(xrt_graph_instantiate(&exec, graph));
        OK(xrt_graph_launch(exec, w.s1));
        OK(xrt_stream_synchronize(w.s1));
        if (with_edge) expect_clean();
        else
            expect_race("memcpy node 0 of xrt_graph_launch", "kernel node 1 of xrt_graph_launch", d, N, 0, 100,
                        "write by memcpy node 0 of xrt_graph_launch on stream 1 (device 0)",
                        "read-write by kernel node 1 of xrt_graph_launch on stream 1 (device 0)",
                        "add an edge from the memcpy node 0 to the kernel node 1 (xrt_graph_add_dependencies; in a "
                        "capture, an event or the same stream), or one the other way");
        OK(xrt_graph_exec_destroy(exec));
        OK(xrt_graph_destroy(graph));
        round_end(&w);
    }
    OK(xrt_free(d));
}

/* Kernel nodes annotated as their eager launches are (xrt_check_annotate
   before the call that makes the node), each beside a memcpy node writing
   d's bytes [0, 100) with no edge. Case 0: a node added by hand, reading
   d's [100, 200): clean. 1: the same writing [50, 150): a race on [50,
   100). 2: the node set (xrt_graph_node_set_params) to read [100, 200)
   after an unannotated add: clean. 3: a captured launch writing [50, 150),
   on a stream forked from the copy's: the race. 4: three annotated kernel
   nodes in no order, writing [0, 64) and [32, 96), reading [200, 300),
   and the copy after them: a race on [32, 64) (annotated kernel nodes are
   compared). */
/* A graph of a memcpy node writing d's bytes [0, 100) and node p beside it
   with no edge; how: 0 p unannotated, 1 p annotated as touching d's [at,
   at + 100) as access before its add, 2 the same before its
   xrt_graph_node_set_params, after an unannotated add. */
static xrt_graph copy_beside_node(void *d, const void *h, xrt_graph_node_params *p, int how, size_t at,
                                  xrt_check_access access)
{
    xrt_graph graph;
    xrt_graph_node n[2];
    OK(xrt_graph_create(&graph, 0));
    OK(xrt_graph_add_memcpy_node_1d(&n[0], graph, NULL, 0, d, h, 100, XRT_MEMCPY_HOST_TO_DEVICE));
    if (how == 1) OK(xrt_check_annotate((char *)d + at, 100, access));
    OK(xrt_graph_add_node(&n[1], graph, NULL, 0, p));
    if (how == 2) {
        OK(xrt_check_annotate((char *)d + at, 100, access));
        OK(xrt_graph_node_set_params(n[1], p));
    }
    return graph;
}

/* A capture on stream 1 of a copy into d's bytes [0, 100) and, on stream 2
   forked from it, node p's launch annotated as touching d's [50, 150) as
   access: the graph. */
static xrt_graph captured_beside_copy(const round_ *w, void *d, const void *h, const xrt_graph_node_params *p,
                                      xrt_check_access access)
{
    xrt_graph graph = NULL;
    OK(xrt_stream_begin_capture(w->s1, XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_event_record(w->e, w->s1));
    OK(xrt_stream_wait_event(w->s2, w->e));
    OK(xrt_memcpy_async(d, h, 100, XRT_MEMCPY_HOST_TO_DEVICE, w->s1));
    OK(xrt_check_annotate((char *)d + 50, 100, access));
    if (p->type == XRT_GRAPH_NODE_KERNEL)
        OK(xrt_launch_kernel(p->kernel.function, p->kernel.grid, p->kernel.block, 0, w->s2, p->kernel.args,
                             p->kernel.args_size));
    else
        OK(xrt_launch_host_func(w->s2, p->host.fn, p->host.user));
    OK(xrt_event_record(w->e, w->s2));
    OK(xrt_stream_wait_event(w->s1, w->e));
    OK(xrt_stream_end_capture(w->s1, &graph));
    return graph;
}

/* Case 4 below: three kernel nodes (p's function) annotated, in no order,
   then a copy after them. */
static xrt_graph three_kernel_nodes(void *d, const void *h, xrt_graph_node_params *p)
{
    xrt_graph graph;
    xrt_graph_node n[4];
    xrt_kernel_args a;
    unsigned long nn = N;
    OK(xrt_graph_create(&graph, 0));
    OK(xrt_check_annotate(d, 64, XRT_CHECK_WRITE));
    OK(xrt_graph_add_node(&n[0], graph, NULL, 0, p));
    xrt_kernel_args_init(&a); /* another node: other argument bytes, more of them */
    XRT_KERNEL_ARG(a, d);
    XRT_KERNEL_ARG(a, nn);
    XRT_KERNEL_ARG(a, nn);
    p->kernel.args = a.buf.bytes, p->kernel.args_size = a.size;
    OK(xrt_check_annotate((char *)d + 32, 64, XRT_CHECK_WRITE));
    OK(xrt_graph_add_node(&n[1], graph, NULL, 0, p));
    xrt_kernel_args_init(&a); /* and a third: node 0's size, another n */
    nn = N / 2;
    XRT_KERNEL_ARG(a, d);
    XRT_KERNEL_ARG(a, nn);
    p->kernel.args_size = a.size;
    OK(xrt_check_annotate((char *)d + 200, 100, XRT_CHECK_READ));
    OK(xrt_graph_add_node(&n[2], graph, NULL, 0, p));
    OK(xrt_graph_add_memcpy_node_1d(&n[3], graph, n, 3, d, h, 100, XRT_MEMCPY_HOST_TO_DEVICE));
    return graph;
}

static xrt_graph annotated_kernel_graph(int c, xrt_function f, void *d, const void *h, const round_ *w)
{
    xrt_graph_node_params p;
    xrt_kernel_args a;
    unsigned long nn = N;
    xrt_dim3 one = {1, 1, 1};
    xrt_kernel_args_init(&a);
    XRT_KERNEL_ARG(a, d);
    XRT_KERNEL_ARG(a, nn);
    memset(&p, 0, sizeof p);
    p.type = XRT_GRAPH_NODE_KERNEL;
    p.kernel.function = f, p.kernel.grid = one, p.kernel.block = one, p.kernel.args = a.buf.bytes;
    p.kernel.args_size = a.size;
    if (c == 3) return captured_beside_copy(w, d, h, &p, XRT_CHECK_WRITE);
    if (c == 4) return three_kernel_nodes(d, h, &p);
    return copy_beside_node(d, h, &p, c == 2 ? 2 : 1, c == 1 ? 50 : 100, c == 1 ? XRT_CHECK_WRITE : XRT_CHECK_READ);
}

static void test_graph_kernel_node_annotated(void **state)
{
    static unsigned char h[N];
    static const char edge[] = "(xrt_graph_add_dependencies; in a capture, an event or the same stream), or one the "
                               "other way";
    char e[256];
    round_ w;
    xrt_graph graph;
    xrt_graph_exec exec;
    xrt_function f;
    void *d;
    int r, c;
    (void)state;
    f = kernel();
    SKIP_UNLESS(f, "no CPU kernel here (no modules, or no CPU image for the device)");
    OK(xrt_malloc(&d, N));
    for (r = 0; r < 5 * ROUNDS; r++) {
        c = r % 5;
        round_begin(&w, r, XRT_STREAM_NON_BLOCKING, XRT_STREAM_NON_BLOCKING);
        graph = annotated_kernel_graph(c, f, d, h, &w);
        OK(xrt_graph_instantiate(&exec, graph));
        OK(xrt_graph_launch(exec, w.s3));
        OK(xrt_stream_synchronize(w.s3));
        if (c == 0 || c == 2) expect_clean();
        if (c == 1 || c == 3) {
            snprintf(e, sizeof e, "add an edge from the memcpy node 0 to the kernel node 1 %s", edge);
            expect_race("memcpy node 0 of xrt_graph_launch", "kernel node 1 of xrt_graph_launch", d, N, 50, 100,
                        "write by memcpy node 0 of xrt_graph_launch on stream 3 (device 0)",
                        "write by kernel node 1 of xrt_graph_launch on stream 3 (device 0)", e);
        }
        if (c == 4) {
            snprintf(e, sizeof e, "add an edge from the kernel node 0 to the kernel node 1 %s", edge);
            expect_race("kernel node 0 of xrt_graph_launch", "kernel node 1 of xrt_graph_launch", d, N, 32, 64,
                        "write by kernel node 0 of xrt_graph_launch on stream 3 (device 0)",
                        "write by kernel node 1 of xrt_graph_launch on stream 3 (device 0)", e);
        }
        OK(xrt_graph_exec_destroy(exec));
        OK(xrt_graph_destroy(graph));
        round_end(&w);
    }
    OK(xrt_free(d));
}

/* Host nodes annotated as their eager launches are, each beside a memcpy
   node writing d's bytes [0, 100) with no edge. Case 0: a host node added
   by hand, reading d's [50, 150): a race on [50, 100). 1: the same
   unannotated: clean (a host function touches only what is annotated). 2:
   a captured xrt_launch_host_func annotated so, on a stream forked from the
   copy's: the race. 3: the node set (xrt_graph_node_set_params) with the
   annotation after an unannotated add: the race. */
static void host_nothing(void *user) { (void)user; }

static xrt_graph annotated_host_graph(int c, void *d, const void *h, const round_ *w)
{
    xrt_graph_node_params p;
    memset(&p, 0, sizeof p);
    p.type = XRT_GRAPH_NODE_HOST;
    p.host.fn = host_nothing, p.host.user = d;
    if (c == 2) return captured_beside_copy(w, d, h, &p, XRT_CHECK_READ);
    return copy_beside_node(d, h, &p, c == 0 ? 1 : c == 1 ? 0 : 2, 50, XRT_CHECK_READ);
}

static void test_graph_host_node_annotated(void **state)
{
    static unsigned char h[N];
    round_ w;
    xrt_graph graph;
    xrt_graph_exec exec;
    void *d;
    int r, c;
    (void)state;
    OK(xrt_malloc(&d, N));
    for (r = 0; r < 4 * ROUNDS; r++) {
        c = r % 4;
        round_begin(&w, r, XRT_STREAM_NON_BLOCKING, XRT_STREAM_NON_BLOCKING);
        graph = annotated_host_graph(c, d, h, &w);
        OK(xrt_graph_instantiate(&exec, graph));
        OK(xrt_graph_launch(exec, w.s3));
        OK(xrt_stream_synchronize(w.s3));
        if (c == 1) expect_clean();
        else
            expect_race("memcpy node 0 of xrt_graph_launch", "host node 1 of xrt_graph_launch", d, N, 50, 100,
                        "write by memcpy node 0 of xrt_graph_launch on stream 3 (device 0)",
                        "read by host node 1 of xrt_graph_launch on stream 3 (device 0)",
                        "add an edge from the memcpy node 0 to the host node 1 (xrt_graph_add_dependencies; in a "
                        "capture, an event or the same stream), or one the other way");
        OK(xrt_graph_exec_destroy(exec));
        OK(xrt_graph_destroy(graph));
        round_end(&w);
    }
    OK(xrt_free(d));
}

/* A child graph's memset node setting d beside a parent's memcpy node into
   d, with no edge between the child node and the copy: racy, the child's
   node named by its place in the parent (node 1) and the child (0); with
   the edge: clean. */
static void test_graph_child_nodes(void **state)
{
    static unsigned char h[N];
    round_ w;
    xrt_graph graph, child;
    xrt_graph_exec exec;
    xrt_graph_node n0, n1, c0;
    void *d;
    int r, with_edge;
    (void)state;
    OK(xrt_malloc(&d, N));
    for (r = 0; r < 2 * ROUNDS; r++) {
        xrt_memset_node_params set = {d, 0, 7, 1, N, 1};
        with_edge = r >= ROUNDS;
        round_begin(&w, r, XRT_STREAM_DEFAULT, XRT_STREAM_DEFAULT);
        OK(xrt_graph_create(&child, 0));
        OK(xrt_graph_add_memset_node(&c0, child, NULL, 0, &set));
        OK(xrt_graph_create(&graph, 0));
        OK(xrt_graph_add_memcpy_node_1d(&n0, graph, NULL, 0, d, h, N, XRT_MEMCPY_HOST_TO_DEVICE));
        OK(xrt_graph_add_child_graph_node(&n1, graph, with_edge ? &n0 : NULL, with_edge ? 1 : 0, child));
        OK(xrt_graph_instantiate(&exec, graph));
        OK(xrt_graph_launch(exec, w.s1));
        OK(xrt_stream_synchronize(w.s1));
        if (with_edge) expect_clean();
        else
            expect_race("memcpy node 0 of xrt_graph_launch", "memset node 1.0 of xrt_graph_launch", d, N, 0, N,
                        "write by memcpy node 0 of xrt_graph_launch on stream 1 (device 0)",
                        "write by memset node 1.0 of xrt_graph_launch on stream 1 (device 0)",
                        "add an edge from the memcpy node 0 to the memset node 1.0 (xrt_graph_add_dependencies; in "
                        "a capture, an event or the same stream), or one the other way");
        OK(xrt_graph_exec_destroy(exec));
        OK(xrt_graph_destroy(graph));
        OK(xrt_graph_destroy(child));
        round_end(&w);
    }
    OK(xrt_free(d));
}

/* Two 2-D copy nodes into d, rows of 64 bytes 256 apart, with no edge: the
   second's rows start 64 bytes after the first's (interleaved, no byte in
   common): clean; 32 bytes after (each row overlaps): racy, over the bytes
   the two boxes' bounding ranges share. A 2-D memset node beside them, on
   the bytes between: clean. */
static void test_graph_2d_nodes(void **state)
{
    static unsigned char h[64 * 4];
    round_ w;
    xrt_graph graph;
    xrt_graph_exec exec;
    xrt_graph_node n0, n1, n2;
    xrt_memcpy_3d_parms c;
    void *d;
    int r, overlap;
    (void)state;
    OK(xrt_malloc(&d, N));
    memset(&c, 0, sizeof c);
    c.src_ptr = xrt_make_pitched_ptr(h, 64, 64, 4);
    c.dst_ptr = xrt_make_pitched_ptr(d, 256, 64, 4);
    c.extent = xrt_make_extent(64, 4, 1), c.kind = XRT_MEMCPY_HOST_TO_DEVICE;
    for (r = 0; r < 2 * ROUNDS; r++) {
        xrt_memset_node_params set = {(char *)d + 192, 256, 7, 1, 64, 4};
        overlap = r >= ROUNDS;
        round_begin(&w, r, XRT_STREAM_DEFAULT, XRT_STREAM_DEFAULT);
        OK(xrt_graph_create(&graph, 0));
        c.dst_pos = xrt_make_pos(0, 0, 0);
        OK(xrt_graph_add_memcpy_node(&n0, graph, NULL, 0, &c));
        c.dst_pos = xrt_make_pos(overlap ? 32 : 64, 0, 0);
        OK(xrt_graph_add_memcpy_node(&n1, graph, NULL, 0, &c));
        OK(xrt_graph_add_memset_node(&n2, graph, NULL, 0, &set));
        OK(xrt_graph_instantiate(&exec, graph));
        OK(xrt_graph_launch(exec, w.s1));
        OK(xrt_stream_synchronize(w.s1));
        if (!overlap) expect_clean();
        else
            expect_race("memcpy node 0 of xrt_graph_launch", "memcpy node 1 of xrt_graph_launch", d, N, 32,
                        3 * 256 + 64, "write by memcpy node 0 of xrt_graph_launch on stream 1 (device 0)",
                        "write by memcpy node 1 of xrt_graph_launch on stream 1 (device 0)",
                        "add an edge from the memcpy node 0 to the memcpy node 1 (xrt_graph_add_dependencies; in a "
                        "capture, an event or the same stream), or one the other way");
        OK(xrt_graph_exec_destroy(exec));
        OK(xrt_graph_destroy(graph));
        round_end(&w);
    }
    OK(xrt_free(d));
}

/* The left and the right half of a pitched image's rows (each 2-D row
   beside a gap the other fills), set on two streams with no event: no
   byte is shared, no race; likewise the halves of 3-D slices, and a graph's
   2-D memset node of another image's right half launched on stream 3
   beside stream 1's set of its left half.
   Then a 2-D copy out of the left half on stream 2: racy with stream 1's
   set, over the bytes their bounding ranges share; and a set of bytes
   inside the rows' bounding range but in no row is not forgotten when the
   rows' set follows it. */
static void test_2d_rows_between_streams(void **state)
{
    static unsigned char h[128 * 16];
    round_ w;
    xrt_pitched_ptr p3;
    xrt_graph graph;
    xrt_graph_exec exec;
    xrt_graph_node n;
    size_t pitch, pitch2;
    void *d, *d2;
    int r;
    (void)state;
    OK(xrt_malloc_pitch(&d, &pitch, 256, 16));
    OK(xrt_malloc_pitch(&d2, &pitch2, 256, 16));
    OK(xrt_malloc_3d(&p3, xrt_make_extent(256, 4, 3)));
    for (r = 0; r < ROUNDS; r++) {
        xrt_memset_node_params right = {(char *)d2 + 128, pitch2, 3, 1, 128, 16};
        round_begin(&w, r, XRT_STREAM_DEFAULT, XRT_STREAM_DEFAULT);
        OK(xrt_graph_create(&graph, 0));
        OK(xrt_graph_add_memset_node(&n, graph, NULL, 0, &right));
        OK(xrt_graph_instantiate(&exec, graph));
        OK(xrt_memset_2d_async(d, pitch, 1, 128, 16, w.s1));
        OK(xrt_memset_2d_async((char *)d + 128, pitch, 2, 128, 16, w.s2));
        OK(xrt_memset_2d_async(d2, pitch2, 1, 128, 16, w.s1));
        OK(xrt_graph_launch(exec, w.s3));
        OK(xrt_memset_3d_async(p3, 1, xrt_make_extent(128, 4, 3), w.s1));
        p3.ptr = (char *)p3.ptr + 128;
        OK(xrt_memset_3d_async(p3, 2, xrt_make_extent(128, 4, 3), w.s2));
        p3.ptr = (char *)p3.ptr - 128;
        OK(xrt_device_synchronize());
        expect_clean();
        OK(xrt_memset_2d_async(d, pitch, 1, 128, 16, w.s1));
        OK(xrt_memcpy_2d_async(h, 128, d, pitch, 128, 16, XRT_MEMCPY_DEVICE_TO_HOST, w.s2));
        OK(xrt_device_synchronize());
        expect_race("xrt_memset_2d_async", "xrt_memcpy_2d_async", d, pitch * 16, 0, 15 * pitch + 128,
                    "write by xrt_memset_2d_async on stream 1 (device 0)",
                    "read by xrt_memcpy_2d_async on stream 2 (device 0)",
                    EDGE_1_2("xrt_memset_2d_async", "xrt_memcpy_2d_async"));
        /* a set of row 0's right half, then the left half's rows, on stream
           1: the rows do not cover the first set, which stays to race with
           stream 2's copy out of row 0's right half */
        reports[0] = 0, nreports = 0;
        OK(xrt_memset_async((char *)d + 128, 1, 128, w.s1));
        OK(xrt_memset_2d_async(d, pitch, 1, 128, 16, w.s1));
        OK(xrt_memcpy_async(h, (char *)d + 128, 128, XRT_MEMCPY_DEVICE_TO_HOST, w.s2));
        OK(xrt_device_synchronize());
        expect_race("xrt_memset_async", "xrt_memcpy_async", d, pitch * 16, 128, 256,
                    "write by xrt_memset_async on stream 1 (device 0)", "read by xrt_memcpy_async on stream 2 (device 0)",
                    EDGE_1_2("xrt_memset_async", "xrt_memcpy_async"));
        OK(xrt_graph_exec_destroy(exec));
        OK(xrt_graph_destroy(graph));
        round_end(&w);
    }
    OK(xrt_free(p3.ptr));
    OK(xrt_free(d2));
    OK(xrt_free(d));
}

/* A 3-D memset of a box of d on stream 1, a 3-D copy out of an
   overlapping box on stream 2: racy over the bytes the two boxes' bounding
   ranges share; with an event: clean. */
static void test_copy_3d(void **state)
{
    static unsigned char h[8 * 4 * 2];
    round_ w;
    xrt_pitched_ptr p;
    xrt_memcpy_3d_parms c;
    xrt_extent box = {8, 4, 2};
    int r, with_event;
    size_t slice;
    (void)state;
    OK(xrt_malloc_3d(&p, xrt_make_extent(64, 8, 4)));
    slice = p.pitch * p.ysize;
    memset(&c, 0, sizeof c);
    c.src_ptr = p, c.src_pos = xrt_make_pos(16, 2, 1);
    c.dst_ptr = xrt_make_pitched_ptr(h, 8, 8, 4);
    c.extent = box, c.kind = XRT_MEMCPY_DEVICE_TO_HOST;
    for (r = 0; r < 2 * ROUNDS; r++) {
        with_event = r >= ROUNDS;
        round_begin(&w, r, XRT_STREAM_DEFAULT, XRT_STREAM_DEFAULT);
        OK(xrt_memset_3d_async(p, 1, xrt_make_extent(64, 8, 2), w.s1)); /* slices 0 and 1 */
        if (with_event) {
            OK(xrt_event_record(w.e, w.s1));
            OK(xrt_stream_wait_event(w.s2, w.e));
        }
        OK(xrt_memcpy_3d_async(&c, w.s2)); /* slices 1 and 2, from row 2, byte 16 */
        OK(xrt_device_synchronize());
        if (with_event) expect_clean();
        else
            expect_race("xrt_memset_3d_async", "xrt_memcpy_3d_async", p.ptr, slice * 4, slice + 2 * p.pitch + 16,
                        slice + 7 * p.pitch + 64, "write by xrt_memset_3d_async on stream 1 (device 0)",
                        "read by xrt_memcpy_3d_async on stream 2 (device 0)",
                        EDGE_1_2("xrt_memset_3d_async", "xrt_memcpy_3d_async"));
        round_end(&w);
    }
    OK(xrt_free(p.ptr));
}

/* A 3-D memset captured (32 bytes of 4 rows in each of 2 slices of p) and
   a copy node added beside it, with no edge: the copy writes rows 4 to 7 of
   slice 0, which lie inside the memset's bounding range but share no byte
   with its rows: clean; or bytes 16 to 48 of slice 1's row 0: racy, with
   the memset's node of that slice. */
static void test_graph_3d_memset_node(void **state)
{
    static unsigned char h[64 * 4];
    round_ w;
    xrt_pitched_ptr p;
    xrt_graph graph;
    xrt_graph_exec exec;
    xrt_graph_node n;
    xrt_memcpy_3d_parms c;
    size_t slice;
    int r, overlap;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_GRAPHS, "no graphs");
    OK(xrt_malloc_3d(&p, xrt_make_extent(64, 8, 2)));
    slice = p.pitch * p.ysize;
    memset(&c, 0, sizeof c);
    c.src_ptr = xrt_make_pitched_ptr(h, 64, 64, 4);
    c.dst_ptr = p, c.kind = XRT_MEMCPY_HOST_TO_DEVICE;
    for (r = 0; r < 2 * ROUNDS; r++) {
        overlap = r >= ROUNDS;
        round_begin(&w, r, XRT_STREAM_DEFAULT, XRT_STREAM_DEFAULT);
        OK(xrt_stream_begin_capture(w.s3, XRT_CAPTURE_MODE_GLOBAL));
        OK(xrt_memset_3d_async(p, 1, xrt_make_extent(32, 4, 2), w.s3));
        OK(xrt_stream_end_capture(w.s3, &graph));
        c.dst_pos = overlap ? xrt_make_pos(16, 0, 1) : xrt_make_pos(0, 4, 0);
        c.extent = overlap ? xrt_make_extent(32, 1, 1) : xrt_make_extent(64, 4, 1);
        OK(xrt_graph_add_memcpy_node(&n, graph, NULL, 0, &c));
        OK(xrt_graph_instantiate(&exec, graph));
        OK(xrt_graph_launch(exec, w.s1));
        OK(xrt_stream_synchronize(w.s1));
        if (!overlap) expect_clean();
        else
            expect_race("memset node 1 of xrt_graph_launch", "memcpy node 2 of xrt_graph_launch", p.ptr, 2 * slice,
                        slice + 16, slice + 48, "write by memset node 1 of xrt_graph_launch on stream 1 (device 0)",
                        "write by memcpy node 2 of xrt_graph_launch on stream 1 (device 0)",
                        "add an edge from the memset node 1 to the memcpy node 2 (xrt_graph_add_dependencies; in a "
                        "capture, an event or the same stream), or one the other way");
        OK(xrt_graph_exec_destroy(exec));
        OK(xrt_graph_destroy(graph));
        round_end(&w);
    }
    OK(xrt_free(p.ptr));
}

/* A copy from d into a module's variable on stream 2 while stream 1 sets d:
   racy (the copy reads d); with an event: clean. */
static void test_symbol_copy(void **state)
{
    round_ w;
    void *d;
    int r, with_event;
    (void)state;
    SKIP_UNLESS(kernel(), "no CPU kernel here (no modules, or no CPU image for the device)");
    OK(xrt_malloc(&d, N));
    for (r = 0; r < 2 * ROUNDS; r++) {
        with_event = r >= ROUNDS;
        round_begin(&w, r, XRT_STREAM_DEFAULT, XRT_STREAM_DEFAULT);
        OK(xrt_memset_async(d, 2, N, w.s1));
        if (with_event) {
            OK(xrt_event_record(w.e, w.s1));
            OK(xrt_stream_wait_event(w.s2, w.e));
        }
        OK(xrt_memcpy_to_symbol_async(kernel_module, "table", d, 64, 0, XRT_MEMCPY_DEVICE_TO_DEVICE, w.s2));
        OK(xrt_device_synchronize());
        if (with_event) expect_clean();
        else
            expect_race("xrt_memset_async", "xrt_memcpy_to_symbol_async", d, N, 0, 64,
                        "write by xrt_memset_async on stream 1 (device 0)",
                        "read by xrt_memcpy_to_symbol_async on stream 2 (device 0)",
                        EDGE_1_2("xrt_memset_async", "xrt_memcpy_to_symbol_async"));
        round_end(&w);
    }
    OK(xrt_free(d));
}

/* Stream 2 works first on other memory; stream 1 sets d; the host
   synchronizes stream 1, then stream 2 reads d: clean (stream 2's work
   after the synchronize comes after what the host waited for, also where
   stream 2 was used before it). Without the synchronize: racy. */
static void test_host_sync_after_first_use(void **state)
{
    static unsigned char h[N], g[N];
    round_ w;
    void *d, *other;
    int r, sync;
    (void)state;
    OK(xrt_malloc(&d, N));
    OK(xrt_malloc(&other, N));
    for (r = 0; r < 2 * ROUNDS; r++) {
        sync = r < ROUNDS;
        round_begin(&w, r, XRT_STREAM_NON_BLOCKING, XRT_STREAM_NON_BLOCKING);
        OK(xrt_memcpy_async(other, h, N, XRT_MEMCPY_HOST_TO_DEVICE, w.s2));
        OK(xrt_memset_async(d, 1, N, w.s1));
        if (sync) OK(xrt_stream_synchronize(w.s1));
        OK(xrt_memcpy_async(g, d, N, XRT_MEMCPY_DEVICE_TO_HOST, w.s2));
        OK(xrt_device_synchronize());
        if (sync) expect_clean();
        else
            expect_race("xrt_memset_async", "xrt_memcpy_async", d, N, 0, N, "write by xrt_memset_async on stream 1 (device 0)",
                        "read by xrt_memcpy_async on stream 2 (device 0)", EDGE_1_2("xrt_memset_async", "xrt_memcpy_async"));
        round_end(&w);
    }
    OK(xrt_free(other));
    OK(xrt_free(d));
}

/* Host thread 1 copies into d on stream 1 and synchronizes it, then starts
   host thread 2, which sets d on stream 2. The program is correct
   (pthread_create orders thread 2 after the synchronize), but xrt does not
   see what orders threads: reported, the missing edge saying so; thread 2
   synchronizing stream 1 itself (done: it returns at once) tells xrt:
   clean. */
typedef struct handoff {
    void *d;
    xrt_stream s1, s2;
    int sync_first;
    const char *backend;
} handoff;

static void *handoff_thread(void *user)
{
    handoff *h = (handoff *)user;
    if (xrt_set_backend(h->backend) != XRT_SUCCESS) return (void *)1;
    if (h->sync_first && xrt_stream_synchronize(h->s1) != XRT_SUCCESS) return (void *)1;
    if (xrt_memset_async(h->d, 0, N, h->s2) != XRT_SUCCESS || xrt_stream_synchronize(h->s2) != XRT_SUCCESS)
        return (void *)1;
    return NULL;
}

static void test_thread_order_not_seen(void **state)
{
    static unsigned char g[N];
    round_ w;
    handoff h;
    pthread_t t;
    void *res;
    int r;
    (void)state;
    OK(xrt_malloc(&h.d, N));
    h.backend = xrt_test_backend;
    for (r = 0; r < 2 * ROUNDS; r++) {
        h.sync_first = r >= ROUNDS;
        round_begin(&w, r, XRT_STREAM_NON_BLOCKING, XRT_STREAM_NON_BLOCKING);
        h.s1 = w.s1, h.s2 = w.s2;
        OK(xrt_memcpy_async(h.d, g, N, XRT_MEMCPY_HOST_TO_DEVICE, w.s1));
        OK(xrt_stream_synchronize(w.s1));
        assert_int_equal(pthread_create(&t, NULL, handoff_thread, &h), 0);
        assert_int_equal(pthread_join(t, &res), 0);
        assert_null(res);
        if (h.sync_first) expect_clean();
        else
            expect_race("xrt_memcpy_async", "xrt_memset_async", h.d, N, 0, N,
                        "write by xrt_memcpy_async on stream 1 (device 0)",
                        "write by xrt_memset_async on stream 2 (device 0)",
                        EDGE_1_2("xrt_memcpy_async", "xrt_memset_async")
                        "; host thread 1 made the xrt_memcpy_async and host thread 2 the xrt_memset_async: xrt does "
                        "not see what orders threads (pthread_create, pthread_join, a lock), so if host thread 2 "
                        "comes after a synchronize of stream 1 (device 0) on host thread 1, synchronize it on host "
                        "thread 2 too (done, it returns at once)");
        round_end(&w);
    }
    OK(xrt_free(h.d));
}

/* Streams made and destroyed while checking is on: each sets d, records
   the event and is destroyed with its work queued. Waited for through the
   event, on stream 2: clean; without the wait: racy, the report naming the
   destroyed stream. Then a blocking stream sets d and is destroyed: the
   NULL stream's copy out of d comes after it (as after any blocking
   stream's work); a non-blocking one does the same: after
   xrt_device_synchronize, the host's copy comes after it. */
static void test_destroyed_stream_orders(void **state)
{
    static unsigned char g[N];
    round_ w;
    xrt_stream t;
    void *d;
    int r, waited;
    (void)state;
    OK(xrt_malloc(&d, N));
    for (r = 0; r < 2 * ROUNDS; r++) {
        waited = r >= ROUNDS;
        round_begin(&w, 0, XRT_STREAM_DEFAULT, XRT_STREAM_DEFAULT);
        OK(xrt_stream_create_with_flags(&t, XRT_STREAM_NON_BLOCKING)); /* stream 4 */
        perturb(t, r);
        OK(xrt_memset_async(d, 1, N, t));
        OK(xrt_event_record(w.e, t));
        OK(xrt_stream_destroy(t));
        if (waited) OK(xrt_stream_wait_event(w.s2, w.e));
        OK(xrt_memcpy_async(g, d, N, XRT_MEMCPY_DEVICE_TO_HOST, w.s2));
        OK(xrt_device_synchronize());
        if (waited) expect_clean();
        else
            expect_race("xrt_memset_async", "xrt_memcpy_async", d, N, 0, N, "write by xrt_memset_async on stream 4 (device 0)",
                        "read by xrt_memcpy_async on stream 2 (device 0)",
                        "record an event on stream 4 (device 0) after the xrt_memset_async and wait for it on stream 2 "
                        "(device 0) (xrt_stream_wait_event) before the xrt_memcpy_async");
        nreports = 0, reports[0] = 0;
        OK(xrt_stream_create(&t)); /* stream 5, blocking */
        perturb(t, r);
        OK(xrt_memset_async(d, 2, N, t));
        OK(xrt_stream_destroy(t));
        OK(xrt_memcpy_async(g, d, N, XRT_MEMCPY_DEVICE_TO_HOST, NULL));
        OK(xrt_device_synchronize());
        OK(xrt_stream_create_with_flags(&t, XRT_STREAM_NON_BLOCKING)); /* stream 6 */
        perturb(t, r);
        OK(xrt_memset_async(d, 3, N, t));
        OK(xrt_stream_destroy(t));
        OK(xrt_device_synchronize());
        OK(xrt_memcpy(g, d, N, XRT_MEMCPY_DEVICE_TO_HOST));
        expect_clean();
        round_end(&w);
    }
    OK(xrt_free(d));
}

/* A destroyed stream's place taken by a new stream: stream 4 sets d,
   records the event and is destroyed; stream 1 waits for it and sets d (the
   history entry of stream 4 goes, and its place is free), stream 2 waits
   for stream 1; stream 5, in that place, sets d2 and stream 2 copies d2
   out without waiting: racy (stream 2 saw stream 4's work through the events,
   not stream 5's; the host saw neither). Then stream 6 copies into d and
   is destroyed with the copy unwaited for: stream 7's copy out races with
   it (stream 6's place is not taken while a history names it). */
static void test_destroyed_stream_place_taken(void **state)
{
    static unsigned char h[N], g[N];
    round_ w;
    xrt_stream t, u;
    void *d, *d2;
    int r;
    (void)state;
    OK(xrt_malloc(&d, N));
    OK(xrt_malloc(&d2, N));
    for (r = 0; r < ROUNDS; r++) {
        round_begin(&w, 0, XRT_STREAM_NON_BLOCKING, XRT_STREAM_NON_BLOCKING);
        OK(xrt_stream_create_with_flags(&t, XRT_STREAM_NON_BLOCKING)); /* stream 4 */
        OK(xrt_memset_async(d, 1, N, t));
        OK(xrt_event_record(w.e, t));
        OK(xrt_stream_destroy(t));
        OK(xrt_stream_wait_event(w.s1, w.e));
        OK(xrt_memset_async(d, 2, N, w.s1));
        OK(xrt_event_record(w.e, w.s1));
        OK(xrt_stream_wait_event(w.s2, w.e));
        OK(xrt_stream_create_with_flags(&u, XRT_STREAM_NON_BLOCKING)); /* stream 5 */
        perturb(u, r);
        OK(xrt_memset_async(d2, 3, N, u));
        OK(xrt_memcpy_async(g, d2, N, XRT_MEMCPY_DEVICE_TO_HOST, w.s2));
        OK(xrt_device_synchronize());
        expect_race("xrt_memset_async", "xrt_memcpy_async", d2, N, 0, N, "write by xrt_memset_async on stream 5 (device 0)",
                    "read by xrt_memcpy_async on stream 2 (device 0)",
                    "record an event on stream 5 (device 0) after the xrt_memset_async and wait for it on stream 2 "
                    "(device 0) (xrt_stream_wait_event) before the xrt_memcpy_async");
        nreports = 0, reports[0] = 0;
        OK(xrt_stream_destroy(u));
        OK(xrt_stream_create_with_flags(&t, XRT_STREAM_NON_BLOCKING)); /* stream 6 */
        perturb(t, r);
        OK(xrt_memcpy_async(d, h, N, XRT_MEMCPY_HOST_TO_DEVICE, t));
        OK(xrt_stream_destroy(t));
        OK(xrt_stream_create_with_flags(&u, XRT_STREAM_NON_BLOCKING)); /* stream 7 */
        OK(xrt_memcpy_async(g, d, N, XRT_MEMCPY_DEVICE_TO_HOST, u));
        OK(xrt_device_synchronize());
        expect_race("xrt_memcpy_async", "xrt_memcpy_async", d, N, 0, N, "write by xrt_memcpy_async on stream 6 (device 0)",
                    "read by xrt_memcpy_async on stream 7 (device 0)",
                    "record an event on stream 6 (device 0) after the xrt_memcpy_async and wait for it on stream 7 "
                    "(device 0) (xrt_stream_wait_event) before the xrt_memcpy_async");
        OK(xrt_stream_destroy(u));
        round_end(&w);
    }
    OK(xrt_free(d));
}

/* Many streams made and destroyed while checking is on, each copying into
   d and out of h, synchronized before its destroy: the bookkeeping stays
   as large as after the first few (a destroyed stream's clock goes at its
   destroy, its place once no history names it). */
static void test_destroyed_streams_bounded(void **state)
{
    static unsigned char h[N];
    xrt_stream t;
    size_t early = 0, late = 0;
    void *d;
    int i;
    (void)state;
    OK(xrt_malloc(&d, N));
    begin();
    for (i = 0; i < 300; i++) {
        OK(xrt_stream_create(&t));
        OK(xrt_memcpy_async(d, h, N, XRT_MEMCPY_HOST_TO_DEVICE, t));
        OK(xrt_stream_synchronize(t));
        OK(xrt_stream_destroy(t));
        if (i == 20) OK(xrt_check_memory_bytes(&early));
    }
    OK(xrt_check_memory_bytes(&late));
    expect_clean();
    end();
    if (late > early) print_error("bookkeeping %zu bytes after 300 streams, %zu after 21\n", late, early);
    assert_true(late <= early);
    OK(xrt_free(d));
}

/* A write racing the oldest of many reads still kept (each of another
   row: none covers another) is reported: the history grows to hold them. */
static void test_race_with_an_older_access(void **state)
{
    enum { READS = 24, ROW = 16 };
    static unsigned char h[N];
    round_ w;
    void *d;
    int i;
    (void)state;
    OK(xrt_malloc(&d, N));
    round_begin(&w, 0, XRT_STREAM_NON_BLOCKING, XRT_STREAM_NON_BLOCKING);
    for (i = 0; i < READS; i++)
        OK(xrt_memcpy_async(h + i * ROW, (char *)d + i * ROW, ROW, XRT_MEMCPY_DEVICE_TO_HOST, w.s1));
    OK(xrt_memset_async(d, 0, ROW, w.s2));
    OK(xrt_device_synchronize());
    expect_race("xrt_memcpy_async", "xrt_memset_async", d, N, 0, ROW, "read by xrt_memcpy_async on stream 1 (device 0)",
                "write by xrt_memset_async on stream 2 (device 0)", EDGE_1_2("xrt_memcpy_async", "xrt_memset_async"));
    round_end(&w);
    OK(xrt_free(d));
}

/* An allocation's history takes the room its live accesses need: 64
   buffers written once each cost far less than one buffer holding 32
   accesses (32 reads of distinct rows, each kept: no later read covers it). */
static void test_history_takes_what_it_holds(void **state)
{
    enum { BUFS = 64, READS = 32 };
    static unsigned char h[N];
    size_t before = 0, once = 0, full = 0;
    void *d[BUFS + 1];
    int i;
    (void)state;
    for (i = 0; i <= BUFS; i++) OK(xrt_malloc(&d[i], N));
    begin();
    OK(xrt_memcpy_async(h, d[BUFS], 1, XRT_MEMCPY_DEVICE_TO_HOST, NULL)); /* the contexts, made */
    OK(xrt_stream_synchronize(NULL));
    OK(xrt_check_memory_bytes(&before));
    for (i = 0; i < BUFS; i++) OK(xrt_memcpy_async(d[i], h, N, XRT_MEMCPY_HOST_TO_DEVICE, NULL));
    OK(xrt_stream_synchronize(NULL));
    OK(xrt_check_memory_bytes(&once));
    for (i = 1; i <= READS; i++) OK(xrt_memcpy_async(h + i, (char *)d[BUFS] + i, 1, XRT_MEMCPY_DEVICE_TO_HOST, NULL));
    OK(xrt_stream_synchronize(NULL));
    OK(xrt_check_memory_bytes(&full));
    expect_clean();
    end();
    if (4 * (once - before) / BUFS >= full - once)
        print_error("bookkeeping: %zu bytes a buffer written once, %zu for one holding %d reads\n", (once - before) / BUFS,
                    full - once, READS);
    assert_true(4 * (once - before) / BUFS < full - once);
    for (i = 0; i <= BUFS; i++) OK(xrt_free(d[i]));
}

/* Host ranges registered, copied into, unregistered, one after another
   (each at an address of its own): the records of memory that left xrt
   other than by a free (an unregister, an IPC close, a reset) go too, so
   that the bookkeeping stops growing. */
static void test_unregistered_memory_forgotten(void **state)
{
    enum { RANGES = 600, EARLY = 200 };
    static void *h[RANGES];
    size_t bytes = 0, early = 0, late = 0;
    void *d;
    int i;
    (void)state;
    OK(xrt_malloc(&d, N));
    begin();
    for (i = 0; i < RANGES; i++) {
        assert_non_null(h[i] = malloc(N));
        OK(xrt_host_register(h[i], N, XRT_HOST_REGISTER_DEFAULT));
        OK(xrt_memcpy_async(h[i], d, N, XRT_MEMCPY_DEVICE_TO_HOST, NULL));
        OK(xrt_stream_synchronize(NULL));
        OK(xrt_host_unregister(h[i]));
        OK(xrt_check_memory_bytes(&bytes));
        if (i < EARLY && bytes > early) early = bytes;
        if (i >= EARLY && bytes > late) late = bytes;
    }
    expect_clean();
    end();
    for (i = 0; i < RANGES; i++) free(h[i]);
    if (late > early) print_error("bookkeeping up to %zu bytes in ranges %d to %d, %zu before\n", late, EARLY, RANGES, early);
    assert_true(late <= early);
    OK(xrt_free(d));
}

/* Host memory copied from on stream 1 while xrt does not know it (the
   checker's lookup finds no allocation there), then registered: stream 1's
   copy into it and stream 2's copy out of it race, as into any pinned
   memory; with an event: clean. The checker's lookups are as fresh as the
   registry. */
static void test_registered_after_lookup(void **state)
{
    static unsigned char g[N];
    round_ w;
    void *d, *h;
    int r, with_event;
    (void)state;
    OK(xrt_malloc(&d, N));
    for (r = 0; r < 2 * ROUNDS; r++) {
        with_event = r >= ROUNDS;
        h = aligned_alloc(4096, N);
        assert_non_null(h);
        memset(h, 0, N);
        round_begin(&w, r, XRT_STREAM_DEFAULT, XRT_STREAM_DEFAULT);
        OK(xrt_memcpy_async(d, h, N, XRT_MEMCPY_HOST_TO_DEVICE, w.s1));
        OK(xrt_stream_synchronize(w.s1));
        OK(xrt_host_register(h, N, XRT_HOST_REGISTER_DEFAULT));
        OK(xrt_memcpy_async(h, d, N, XRT_MEMCPY_DEVICE_TO_HOST, w.s1));
        if (with_event) {
            OK(xrt_event_record(w.e, w.s1));
            OK(xrt_stream_wait_event(w.s2, w.e));
        }
        OK(xrt_memcpy_async(g, h, N, XRT_MEMCPY_HOST_TO_HOST, w.s2));
        OK(xrt_device_synchronize());
        if (with_event) expect_clean();
        else {
            if (nreports != 1 || !strstr(reports, "of the pinned host allocation"))
                print_error("%d reports, expected 1 on the pinned host allocation:\n%s", nreports, reports);
            assert_int_equal(nreports, 1);
            assert_non_null(strstr(reports, "xrt:   write by xrt_memcpy_async on stream 1 (device 0), at "));
            assert_non_null(strstr(reports, "xrt:   read by xrt_memcpy_async on stream 2 (device 0), at "));
        }
        round_end(&w);
        OK(xrt_host_unregister(h));
        free(h);
    }
    OK(xrt_free(d));
}

/* The same racy program, 100 rounds, each with another timing (nothing
   held back, stream 1 or stream 2 held back, a host thread busy beside):
   every round's reports are the first round's, byte for byte. */
static void *spin(void *user)
{
    unsigned long *stop = (unsigned long *)user;
    volatile unsigned long x = 0;
    while (!__atomic_load_n(stop, __ATOMIC_RELAXED)) x++;
    return NULL;
}

static void test_reports_deterministic(void **state)
{
    static unsigned char h[N], g[N];
    static char first[sizeof reports];
    unsigned long stop;
    round_ w;
    xrt_graph_exec exec;
    pthread_t busy;
    void *d;
    int r;
    (void)state;
    OK(xrt_malloc(&d, N));
    for (r = 0; r < 100; r++) {
        __atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
        round_begin(&w, 0, XRT_STREAM_DEFAULT, XRT_STREAM_DEFAULT);
        if (r % 4 == 1) perturb(w.s1, 1);
        if (r % 4 == 2) perturb(w.s2, 1);
        if (r % 4 == 3) assert_int_equal(pthread_create(&busy, NULL, spin, (void *)&stop), 0);
        exec = copy_then_set(d, h, 0);
        OK(xrt_graph_launch(exec, w.s1));
        OK(xrt_memcpy_async(g, d, N, XRT_MEMCPY_DEVICE_TO_HOST, w.s2));
        OK(xrt_device_synchronize());
        __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
        if (r % 4 == 3) assert_int_equal(pthread_join(busy, NULL), 0);
        assert_int_equal(nreports, 2);
        if (r == 0) memcpy(first, reports, sizeof first);
        else if (strcmp(first, reports) != 0) print_error("round %d:\n%sround 0:\n%s", r, reports, first);
        assert_string_equal(first, reports);
        OK(xrt_graph_exec_destroy(exec));
        round_end(&w);
    }
    OK(xrt_free(d));
}

/* fork() while stream 1 (non-blocking: the NULL stream does not order it)
   has a memset of d queued behind a host function: the child, whose copy of
   that work is dropped, sets d on a stream of its own and copies it out
   synchronously: no report there (the parent's queued work is before the
   child's); the parent, after its own synchronize, none either. */
static void test_forked_child_clean(void **state)
{
    static unsigned char h[N];
    round_ w;
    void *d;
    pid_t pid;
    (void)state;
    SKIP_UNLESS(survives_fork(), "the backend refuses every call in a forked child (a GPU runtime, the tracer)");
    OK(xrt_malloc(&d, N));
    round_begin(&w, 0, XRT_STREAM_NON_BLOCKING, XRT_STREAM_NON_BLOCKING);
    OK(xrt_launch_host_func(w.s1, hold_back, (void *)(uintptr_t)100000));
    OK(xrt_memset_async(d, 2, N, w.s1));
    pid = child_fork(20);
    if (pid == 0) {
        xrt_stream t;
        /* TSan cannot start the child's stream thread (its die_after_fork);
           the fork's handlers, which it checks, ran in the parent */
        if (UNDER_TSAN) child_exit(0);
        CHILD_OK(xrt_stream_create_with_flags(&t, XRT_STREAM_NON_BLOCKING));
        CHILD_OK(xrt_memset_async(d, 1, N, t));
        CHILD_OK(xrt_stream_synchronize(t));
        CHILD_OK(xrt_memcpy(h, d, N, XRT_MEMCPY_DEVICE_TO_HOST));
        if (nreports) CHILD_FAIL("a report in the child:\n%s", reports);
        child_exit(0);
    }
    child_wait(pid, 20, "the forked child");
    OK(xrt_stream_synchronize(w.s1));
    expect_clean();
    round_end(&w);
    OK(xrt_free(d));
}

/* A copy into pinned host memory h queued on a non-blocking stream, then
   xrt_device_reset (which waits for the device's work and retires the
   stream; h stays): a copy out of h on a stream made after the reset is
   clean. */
static void test_device_reset_clean(void **state)
{
    xrt_stream s1, s2;
    void *d, *h;
    (void)state;
    OK(xrt_malloc_host(&h, N));
    begin();
    OK(xrt_stream_create_with_flags(&s1, XRT_STREAM_NON_BLOCKING));
    OK(xrt_malloc(&d, N));
    OK(xrt_memcpy_async(h, d, N, XRT_MEMCPY_DEVICE_TO_HOST, s1));
    OK(xrt_device_reset()); /* frees d, retires s1 */
    OK(xrt_stream_create_with_flags(&s2, XRT_STREAM_NON_BLOCKING));
    OK(xrt_malloc(&d, N));
    OK(xrt_memcpy_async(d, h, N, XRT_MEMCPY_HOST_TO_DEVICE, s2));
    OK(xrt_stream_synchronize(s2));
    expect_clean();
    end();
    OK(xrt_free(d));
    OK(xrt_stream_destroy(s2));
    OK(xrt_free_host(h));
}

/* Checking turned on and off while two threads make calls on streams of
   their own and instantiate graphs (whose hook reads the graph before it
   takes the checker's lock): no report, and a moment after each off no
   bookkeeping (a hook that saw "on" and ran on after the off must not make
   new). */
typedef struct toggler {
    void *d;
    xrt_stream s;
    xrt_graph g;
    int stop; /* atomic */
    const char *backend;
} toggler;

static void *copier(void *user)
{
    toggler *t = (toggler *)user;
    xrt_graph_exec exec;
    if (xrt_set_backend(t->backend) != XRT_SUCCESS) return (void *)1;
    while (!__atomic_load_n(&t->stop, __ATOMIC_RELAXED))
        if (xrt_memset_async(t->d, 1, N, t->s) != XRT_SUCCESS || xrt_stream_synchronize(t->s) != XRT_SUCCESS ||
            xrt_graph_instantiate(&exec, t->g) != XRT_SUCCESS || xrt_graph_exec_destroy(exec) != XRT_SUCCESS)
            return (void *)1;
    return NULL;
}

static void test_enable_under_threads(void **state)
{
    toggler t[2];
    pthread_t th[2];
    xrt_graph_node n;
    size_t bytes, left = 0;
    void *res;
    int i;
    (void)state;
    begin();
    for (i = 0; i < 2; i++) {
        xrt_memset_node_params set = {NULL, 0, 7, 1, N, 1};
        OK(xrt_malloc(&t[i].d, N));
        OK(xrt_stream_create_with_flags(&t[i].s, XRT_STREAM_NON_BLOCKING));
        OK(xrt_graph_create(&t[i].g, 0));
        set.dst = t[i].d;
        OK(xrt_graph_add_memset_node(&n, t[i].g, NULL, 0, &set));
        t[i].stop = 0;
        t[i].backend = xrt_test_backend;
        assert_int_equal(pthread_create(&th[i], NULL, copier, &t[i]), 0);
    }
    for (i = 0; i < 40; i++) {
        OK(xrt_check_enable(XRT_CHECK_STREAMS));
        usleep(1000);
        OK(xrt_check_enable(XRT_CHECK_OFF));
        usleep(1000);
        OK(xrt_check_memory_bytes(&bytes));
        left += bytes;
    }
    for (i = 0; i < 2; i++) __atomic_store_n(&t[i].stop, 1, __ATOMIC_RELAXED);
    for (i = 0; i < 2; i++) {
        assert_int_equal(pthread_join(th[i], &res), 0);
        assert_null(res);
    }
    expect_clean();
    assert_int_equal(left, 0);
    end();
    for (i = 0; i < 2; i++) {
        OK(xrt_graph_destroy(t[i].g));
        OK(xrt_free(t[i].d));
        OK(xrt_stream_destroy(t[i].s));
    }
}

/* A thread's work on its per-thread stream, into its own allocation, then
   its exit (what test_bookkeeping_bounded repeats). */
static void *short_lived(void *user)
{
    void *d;
    if (xrt_set_backend((const char *)user) != XRT_SUCCESS || xrt_malloc(&d, 64) != XRT_SUCCESS) return (void *)1;
    if (xrt_memset_async(d, 1, 64, XRT_STREAM_PER_THREAD) != XRT_SUCCESS ||
        xrt_stream_synchronize(XRT_STREAM_PER_THREAD) != XRT_SUCCESS)
        return (void *)1;
    return xrt_free(d) == XRT_SUCCESS ? NULL : (void *)1;
}

/* Rounds of threads that come and go, and of events made, recorded, waited
   for and destroyed: the bookkeeping after many rounds is what it was after
   the first two (an exited thread's contexts and a destroyed event's clock
   go; a new thread takes the places its predecessor left). */
static size_t churn(xrt_stream s, int rounds)
{
    pthread_t t;
    xrt_event e;
    size_t bytes = 0;
    void *res;
    int r, i;
    for (r = 0; r < rounds; r++) {
        for (i = 0; i < 8; i++) { /* one at a time: each takes the places the last left */
            assert_int_equal(pthread_create(&t, NULL, short_lived, (void *)xrt_test_backend), 0);
            assert_int_equal(pthread_join(t, &res), 0);
            assert_null(res);
        }
        for (i = 0; i < 8; i++) {
            OK(xrt_event_create(&e, 0));
            OK(xrt_event_record(e, s));
            OK(xrt_stream_wait_event(NULL, e));
            OK(xrt_event_destroy(e));
        }
        OK(xrt_stream_synchronize(NULL));
    }
    OK(xrt_check_memory_bytes(&bytes));
    return bytes;
}

static void test_bookkeeping_bounded(void **state)
{
    xrt_stream s;
    size_t first, later;
    (void)state;
    begin();
    OK(xrt_stream_create_with_flags(&s, XRT_STREAM_NON_BLOCKING));
    first = churn(s, 3); /* places and clocks' lengths settle in a few rounds */
    later = churn(s, 20);
    if (later != first) print_error("bookkeeping: %zu bytes after 3 rounds, %zu after 20 more\n", first, later);
    assert_int_equal(later, first);
    expect_clean();
    end();
    OK(xrt_stream_destroy(s));
}

static xrt_status sync_nothing(const xrt_backend *self, void *stream)
{
    (void)self, (void)stream;
    return XRT_SUCCESS;
}

/* Backend t, registered unless it is (xrt_shutdown, between the groups,
   forgets it), made the thread's. */
static void use_backend(xrt_backend *t)
{
    xrt_status st = xrt_register_backend(t);
    if (st == XRT_ERROR_ALREADY_EXISTS) xrt_get_last_error(); /* not the test's error */
    else OK(st);
    OK(xrt_set_backend(t->name));
}

/* The checker's own queries of the backend (here a stream's flags, which
   this one cannot answer) leave the thread's last error alone. */
static void test_queries_keep_last_error(void **state)
{
    static xrt_backend t;
    xrt_stream s;
    (void)state;
    if (!t.name) {
        t = xrt_test_other_table();
        t.name = "check_no_flags";
        t.stream_synchronize = sync_nothing;
    }
    use_backend(&t);
    begin();
    XRT_ASSERT_FAILS(xrt_malloc(NULL, 64), XRT_ERROR_INVALID_VALUE, "xrt_malloc: ptr is NULL");
    OK(xrt_stream_create(&s));
    OK(xrt_stream_synchronize(s));
    if (xrt_peek_at_last_error() != XRT_ERROR_INVALID_VALUE) print_error("last error: %s\n", xrt_get_last_error_string());
    assert_int_equal(xrt_peek_at_last_error(), XRT_ERROR_INVALID_VALUE);
    assert_non_null(strstr(xrt_get_last_error_string(), "xrt_malloc: ptr is NULL"));
    end();
    OK(xrt_stream_destroy(s));
    OK(xrt_set_backend(xrt_test_backend));
}

/* A backend whose memset holds its caller while the gate is shut. */
static int gate_shut, gate_inside;

static xrt_status gated_memset(const xrt_backend *self, void *dst, int value, size_t size, void *stream)
{
    (void)self, (void)dst, (void)value, (void)size, (void)stream;
    if (__atomic_load_n(&gate_shut, __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&gate_inside, 1, __ATOMIC_RELEASE);
        while (__atomic_load_n(&gate_shut, __ATOMIC_ACQUIRE)) usleep(100);
    }
    return XRT_SUCCESS;
}

typedef struct gated { xrt_backend *t; xrt_stream s; void *d; } gated;

static void *gated_setter(void *user)
{
    gated *g = (gated *)user;
    if (xrt_set_backend(g->t->name) != XRT_SUCCESS) return (void *)1;
    return xrt_memset_async(g->d, 2, 64, g->s) == XRT_SUCCESS ? NULL : (void *)1;
}

/* A stream destroyed while another thread is inside a call on it (the
   destroy waits for the call, as every handle's does): that call's
   operation is the stream's, after its earlier ones, not a new stream's. */
static void test_destroy_during_a_call(void **state)
{
    static xrt_backend t;
    gated g;
    pthread_t th;
    void *res;
    (void)state;
    if (!t.name) {
        t = xrt_test_other_table();
        t.name = "check_gated";
        t.memset_async = gated_memset;
    }
    use_backend(&t);
    g.t = &t;
    OK(xrt_malloc(&g.d, 64));
    begin();
    OK(xrt_stream_create(&g.s));
    OK(xrt_memset_async(g.d, 1, 64, g.s));
    __atomic_store_n(&gate_inside, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&gate_shut, 1, __ATOMIC_RELEASE);
    assert_int_equal(pthread_create(&th, NULL, gated_setter, &g), 0);
    while (!__atomic_load_n(&gate_inside, __ATOMIC_ACQUIRE)) usleep(100);
    OK(xrt_stream_destroy(g.s)); /* waits in limbo for the memset */
    __atomic_store_n(&gate_shut, 0, __ATOMIC_RELEASE);
    assert_int_equal(pthread_join(th, &res), 0);
    assert_null(res);
    expect_clean();
    end();
    OK(xrt_free(g.d));
    OK(xrt_set_backend(xrt_test_backend));
}

/* A backend whose stream waits and event synchronizes hold their caller,
   once they have taken the event's record, while the gate is shut; the
   rest does nothing (the checker sees the calls alone). */
static int ev_gate_shut, ev_gate_inside;

static void ev_gate(void)
{
    if (!__atomic_load_n(&ev_gate_shut, __ATOMIC_ACQUIRE)) return;
    __atomic_store_n(&ev_gate_inside, 1, __ATOMIC_RELEASE);
    while (__atomic_load_n(&ev_gate_shut, __ATOMIC_ACQUIRE)) usleep(100);
}

static xrt_status ev_gated_wait(const xrt_backend *self, void *stream, void *event)
{
    (void)self, (void)stream, (void)event;
    ev_gate();
    return XRT_SUCCESS;
}

static xrt_status ev_gated_sync(const xrt_backend *self, void *event)
{
    (void)self, (void)event;
    ev_gate();
    return XRT_SUCCESS;
}

static xrt_status ev_record(const xrt_backend *self, void *event, void *stream)
{
    (void)self, (void)event, (void)stream;
    return XRT_SUCCESS;
}

static xrt_status ev_memset_async(const xrt_backend *self, void *dst, int value, size_t size, void *stream)
{
    (void)self, (void)dst, (void)value, (void)size, (void)stream;
    return XRT_SUCCESS;
}

typedef struct rerecord { xrt_backend *t; xrt_event e; xrt_stream s; } rerecord;

/* Records the event again on s while the main thread is inside the gate. */
static void *rerecorder(void *user)
{
    rerecord *g = (rerecord *)user;
    void *res = NULL;
    while (!__atomic_load_n(&ev_gate_inside, __ATOMIC_ACQUIRE)) usleep(100);
    if (xrt_set_backend(g->t->name) != XRT_SUCCESS || xrt_event_record(g->e, g->s) != XRT_SUCCESS) res = (void *)1;
    __atomic_store_n(&ev_gate_shut, 0, __ATOMIC_RELEASE);
    return res;
}

/* A wait (or an event synchronize) takes the event's record current at its
   call: the record on stream 3, before the memset on stream 1. Another
   thread records the event again, after that memset, while the wait is
   still inside the backend: the checker must not take that record, which
   the wait never saw (the memset on stream 2 races the one on stream 1
   whatever the timing). */
static void test_wait_takes_record_of_its_call(void **state)
{
    static xrt_backend t;
    rerecord g;
    pthread_t th;
    void *d, *res;
    round_ w;
    int sync;
    (void)state;
    if (!t.name) {
        t = xrt_test_other_table();
        t.name = "check_event_gate";
        t.stream_wait_event = ev_gated_wait;
        t.event_synchronize = ev_gated_sync;
        t.event_record = ev_record;
        t.memset_async = ev_memset_async;
    }
    use_backend(&t);
    OK(xrt_malloc(&d, 64));
    for (sync = 0; sync < 2; sync++) {
        begin();
        OK(xrt_stream_create(&w.s1));
        OK(xrt_stream_create(&w.s2));
        OK(xrt_stream_create(&w.s3));
        OK(xrt_event_create(&w.e, XRT_EVENT_DISABLE_TIMING));
        OK(xrt_memset_async(d, 1, 64, w.s1));
        OK(xrt_event_record(w.e, w.s3));
        g.t = &t, g.e = w.e, g.s = w.s1;
        __atomic_store_n(&ev_gate_inside, 0, __ATOMIC_RELEASE);
        __atomic_store_n(&ev_gate_shut, 1, __ATOMIC_RELEASE);
        assert_int_equal(pthread_create(&th, NULL, rerecorder, &g), 0);
        if (sync) OK(xrt_event_synchronize(w.e));
        else OK(xrt_stream_wait_event(w.s2, w.e));
        assert_int_equal(pthread_join(th, &res), 0);
        assert_null(res);
        OK(xrt_memset_async(d, 2, 64, w.s2));
        if (nreports != 1) print_error("%s: %d reports:\n%s", sync ? "xrt_event_synchronize" : "xrt_stream_wait_event",
                                       nreports, reports);
        assert_int_equal(nreports, 1);
        round_end(&w);
    }
    OK(xrt_free(d));
    OK(xrt_set_backend(xrt_test_backend));
}

static xrt_status ev_gated_stream_sync(const xrt_backend *self, void *stream)
{
    (void)self, (void)stream;
    ev_gate();
    return XRT_SUCCESS;
}

typedef struct queuer { xrt_backend *t; void *d; xrt_stream s; } queuer;

/* Queues a memset of d on s while the main thread is inside the gate. */
static void *queuer_thread(void *user)
{
    queuer *q = (queuer *)user;
    void *res = NULL;
    while (!__atomic_load_n(&ev_gate_inside, __ATOMIC_ACQUIRE)) usleep(100);
    if (xrt_set_backend(q->t->name) != XRT_SUCCESS || xrt_memset_async(q->d, 3, 64, q->s) != XRT_SUCCESS)
        res = (void *)1;
    __atomic_store_n(&ev_gate_shut, 0, __ATOMIC_RELEASE);
    return res;
}

/* A stream synchronize (or a query that succeeds) waits for what its
   stream was given before its call: the memset on stream 1. Another thread
   queues a second memset on stream 1 while the synchronize is still inside
   the backend: the host did not wait for that one (nothing orders it before
   the call), so it races the memset on stream 2 made after the synchronize. */
static void test_stream_sync_takes_work_of_its_call(void **state)
{
    static xrt_backend t;
    queuer q;
    pthread_t th;
    xrt_stream s1, s2;
    void *d, *res;
    int query;
    (void)state;
    if (!t.name) {
        t = xrt_test_other_table();
        t.name = "check_sync_gate";
        t.stream_synchronize = ev_gated_stream_sync;
        t.stream_query = ev_gated_stream_sync;
        t.memset_async = ev_memset_async;
    }
    use_backend(&t);
    OK(xrt_malloc(&d, 64));
    for (query = 0; query < 2; query++) {
        begin();
        OK(xrt_stream_create(&s1));
        OK(xrt_stream_create(&s2));
        OK(xrt_memset_async(d, 1, 64, s1));
        q.t = &t, q.d = d, q.s = s1;
        __atomic_store_n(&ev_gate_inside, 0, __ATOMIC_RELEASE);
        __atomic_store_n(&ev_gate_shut, 1, __ATOMIC_RELEASE);
        assert_int_equal(pthread_create(&th, NULL, queuer_thread, &q), 0);
        if (query) OK(xrt_stream_query(s1));
        else OK(xrt_stream_synchronize(s1));
        assert_int_equal(pthread_join(th, &res), 0);
        assert_null(res);
        OK(xrt_memset_async(d, 2, 64, s2));
        if (nreports != 1 || !strstr(reports, "by xrt_memset_async on stream 1 (device 0), at ") ||
            !strstr(reports, "host thread "))
            print_error("%s: %d reports, expected 1 (the other thread's memset on stream 1, the one on stream 2):\n%s",
                        query ? "xrt_stream_query" : "xrt_stream_synchronize", nreports, reports);
        assert_int_equal(nreports, 1);
        end();
        OK(xrt_stream_destroy(s1));
        OK(xrt_stream_destroy(s2));
    }
    OK(xrt_free(d));
    OK(xrt_set_backend(xrt_test_backend));
}

/* The test's backend with a graph launch that holds its caller, once the
   launch is made, while the gate is shut (the first launch that finds it
   shut: another thread's launch meanwhile passes): made per backend (a
   name each). */
static xrt_status (*ungated_launch)(const xrt_backend *, void *, void *);

static xrt_status gated_launch(const xrt_backend *self, void *exec, void *stream)
{
    xrt_status st = ungated_launch(self, exec, stream);
    if (!__atomic_load_n(&ev_gate_inside, __ATOMIC_ACQUIRE)) ev_gate(); /* the first launch only */
    return st;
}

/* The copy shares the backend's state, which the backend's own entry
   starts and stops. */
static xrt_status shared_init(const xrt_backend *self, char *reason, size_t n)
{
    (void)self, (void)reason, (void)n;
    return XRT_SUCCESS;
}

static void shared_shutdown(const xrt_backend *self) { (void)self; }

static xrt_backend *launch_gate(void)
{
    static xrt_backend t[4];
    static char names[4][32];
    static const char *of[4];
    int i;
    for (i = 0; i < 3 && of[i] && of[i] != xrt_test_backend; i++) {
    }
    if (of[i] != xrt_test_backend) {
        t[i] = *xrt__be();
        ungated_launch = t[i].graph_launch;
        snprintf(names[i], sizeof names[i], "check_launch_gate_%.12s", xrt_test_backend);
        t[i].name = names[i];
        t[i].init = shared_init;
        t[i].shutdown = shared_shutdown;
        t[i].graph_launch = gated_launch;
        of[i] = xrt_test_backend;
    }
    use_backend(&t[i]);
    return &t[i];
}

typedef struct changer { const char *backend; xrt_event e; xrt_stream s; xrt_graph_exec exec; xrt_graph g; } changer;

/* While the main thread is inside the gate: records event e again on s,
   or updates the exec to graph g, or (neither) launches the exec on s. */
static void *changer_thread(void *user)
{
    changer *c = (changer *)user;
    void *res = NULL;
    while (!__atomic_load_n(&ev_gate_inside, __ATOMIC_ACQUIRE)) usleep(100);
    if (xrt_set_backend(c->backend) != XRT_SUCCESS ||
        (c->g   ? xrt_graph_exec_update(c->exec, c->g)
         : c->e ? xrt_event_record(c->e, c->s)
                : xrt_graph_launch(c->exec, c->s)) != XRT_SUCCESS)
        res = (void *)1;
    __atomic_store_n(&ev_gate_shut, 0, __ATOMIC_RELEASE);
    return res;
}

/* A graph launch's wait node takes the event's record current at the
   launch's call: the record on stream 3, which orders nothing. Another
   thread records the event again, after the memset on stream 2, while the
   launch is inside the backend: the launch did not wait for that record,
   so the memset node races the memset on stream 2. */
static void test_graph_launch_takes_record_of_its_call(void **state)
{
    changer c;
    pthread_t th;
    round_ w;
    xrt_graph graph;
    xrt_graph_exec exec;
    xrt_event in;
    void *d, *res;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_GRAPHS, "no graphs");
    memset(&c, 0, sizeof c);
    c.backend = launch_gate()->name;
    OK(xrt_malloc(&d, N));
    round_begin(&w, 0, XRT_STREAM_NON_BLOCKING, XRT_STREAM_NON_BLOCKING);
    OK(xrt_event_create(&in, XRT_EVENT_DISABLE_TIMING));
    OK(xrt_stream_begin_capture(w.s1, XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_stream_wait_event_with_flags(w.s1, in, XRT_EVENT_WAIT_EXTERNAL));
    OK(xrt_memset_async(d, 7, N, w.s1));
    OK(xrt_stream_end_capture(w.s1, &graph));
    OK(xrt_graph_instantiate(&exec, graph));
    OK(xrt_event_record(in, w.s3));
    OK(xrt_memset_async(d, 1, N, w.s2));
    c.e = in, c.s = w.s2;
    __atomic_store_n(&ev_gate_inside, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&ev_gate_shut, 1, __ATOMIC_RELEASE);
    assert_int_equal(pthread_create(&th, NULL, changer_thread, &c), 0);
    OK(xrt_graph_launch(exec, w.s1));
    assert_int_equal(pthread_join(th, &res), 0);
    assert_null(res);
    OK(xrt_device_synchronize());
    expect_race("xrt_memset_async", "memset node 1 of xrt_graph_launch", d, N, 0, N,
                "write by xrt_memset_async on stream 2 (device 0)",
                "write by memset node 1 of xrt_graph_launch on stream 1 (device 0)",
                "record an event on stream 2 (device 0) after the xrt_memset_async and wait for it on stream 1 "
                "(device 0) (xrt_stream_wait_event) before the memset node 1 of xrt_graph_launch");
    OK(xrt_graph_exec_destroy(exec));
    OK(xrt_graph_destroy(graph));
    OK(xrt_event_destroy(in));
    round_end(&w);
    OK(xrt_free(d));
    OK(xrt_set_backend(xrt_test_backend));
}

/* A graph launch runs the exec as it is at its call: its memset node sets
   the first half of d, clean beside the memset of the second half on
   stream 2. Another thread updates the exec to a graph whose memset node
   sets the second half while the launch is inside the backend: that
   update is not this launch's (which nodes the launch ran is then not
   known to the checker: none), so no race is reported. Then the exec
   launched on stream 2 by another thread while its launch on stream 1 is
   inside the backend: the two are ordered (cudaGraphLaunch), whichever
   came first: no race between their memset nodes. */
static void test_graph_launch_takes_snapshot_of_its_call(void **state)
{
    changer c;
    pthread_t th;
    round_ w;
    xrt_graph first, second;
    xrt_graph_node n;
    xrt_graph_exec exec;
    unsigned char *d;
    void *res;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_GRAPHS, "no graphs");
    memset(&c, 0, sizeof c);
    c.backend = launch_gate()->name;
    OK(xrt_malloc((void **)&d, N));
    {
        xrt_memset_node_params lo = {d, 0, 7, 1, N / 2, 1}, hi = {d + N / 2, 0, 7, 1, N / 2, 1};
        round_begin(&w, 0, XRT_STREAM_NON_BLOCKING, XRT_STREAM_NON_BLOCKING);
        OK(xrt_graph_create(&first, 0));
        OK(xrt_graph_add_memset_node(&n, first, NULL, 0, &lo));
        OK(xrt_graph_create(&second, 0));
        OK(xrt_graph_add_memset_node(&n, second, NULL, 0, &hi));
    }
    OK(xrt_graph_instantiate(&exec, first));
    OK(xrt_memset_async(d + N / 2, 1, N / 2, w.s2));
    c.exec = exec, c.g = second;
    __atomic_store_n(&ev_gate_inside, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&ev_gate_shut, 1, __ATOMIC_RELEASE);
    assert_int_equal(pthread_create(&th, NULL, changer_thread, &c), 0);
    OK(xrt_graph_launch(exec, w.s1));
    assert_int_equal(pthread_join(th, &res), 0);
    assert_null(res);
    OK(xrt_device_synchronize());
    expect_clean();
    c.g = NULL, c.s = w.s2;
    __atomic_store_n(&ev_gate_inside, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&ev_gate_shut, 1, __ATOMIC_RELEASE);
    assert_int_equal(pthread_create(&th, NULL, changer_thread, &c), 0);
    OK(xrt_graph_launch(exec, w.s1));
    assert_int_equal(pthread_join(th, &res), 0);
    assert_null(res);
    OK(xrt_device_synchronize());
    expect_clean();
    OK(xrt_graph_exec_destroy(exec));
    OK(xrt_graph_destroy(first));
    OK(xrt_graph_destroy(second));
    round_end(&w);
    OK(xrt_free(d));
    OK(xrt_set_backend(xrt_test_backend));
}

static xrt_status ev_gated_device_sync(const xrt_backend *self)
{
    (void)self;
    ev_gate();
    return XRT_SUCCESS;
}

static xrt_status ev_device_reset(const xrt_backend *self)
{
    (void)self;
    return XRT_SUCCESS;
}

/* A device reset waits, as a device synchronize, for what the device's
   streams were given before its call: the memset on stream 1. Another
   thread queues a second memset on stream 1 while the reset's synchronize
   is still inside the backend: the host did not wait for that one, so it
   races the memset on stream 2 (made after the reset) all the same. */
static void test_device_reset_takes_work_of_its_call(void **state)
{
    static xrt_backend t;
    queuer q;
    pthread_t th;
    xrt_stream s1, s2;
    void *d, *res;
    (void)state;
    if (!t.name) {
        t = xrt_test_other_table();
        t.name = "check_reset_gate";
        t.device_synchronize = ev_gated_device_sync;
        t.device_reset = ev_device_reset;
        t.memset_async = ev_memset_async;
    }
    use_backend(&t);
    OK(xrt_malloc(&d, 64));
    begin();
    OK(xrt_stream_create(&s1));
    OK(xrt_memset_async(d, 1, 64, s1));
    q.t = &t, q.d = d, q.s = s1;
    __atomic_store_n(&ev_gate_inside, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&ev_gate_shut, 1, __ATOMIC_RELEASE);
    assert_int_equal(pthread_create(&th, NULL, queuer_thread, &q), 0);
    OK(xrt_device_reset());
    assert_int_equal(pthread_join(th, &res), 0);
    assert_null(res);
    OK(xrt_stream_create(&s2));
    OK(xrt_memset_async(d, 2, 64, s2));
    if (nreports != 1 || !strstr(reports, "by xrt_memset_async on stream 1 (device 0), at "))
        print_error("%d reports, expected 1 (the other thread's memset on stream 1, the one on stream 2):\n%s",
                    nreports, reports);
    assert_int_equal(nreports, 1);
    end();
    OK(xrt_stream_destroy(s1));
    OK(xrt_stream_destroy(s2));
    OK(xrt_free(d));
    OK(xrt_set_backend(xrt_test_backend));
}

/* The test's backend with a graph_get_nodes (the checker's first read of
   a graph) that asks another thread, while probing, whether the graph
   nodes' lock is free: made per backend, as launch_gate's. */
static xrt_status (*unprobed_get_nodes)(const xrt_backend *, void *, void **, size_t *);
static int probing, probes, probe_found_free; /* atomic */

static void *lock_prober(void *user)
{
    (void)user;
    if (pthread_mutex_trylock(&xrt__gnode_lock) == 0) {
        pthread_mutex_unlock(&xrt__gnode_lock);
        __atomic_store_n(&probe_found_free, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static xrt_status probed_get_nodes(const xrt_backend *self, void *graph, void **nodes, size_t *count)
{
    pthread_t th;
    if (__atomic_load_n(&probing, __ATOMIC_RELAXED) && pthread_create(&th, NULL, lock_prober, NULL) == 0) {
        pthread_join(th, NULL);
        __atomic_add_fetch(&probes, 1, __ATOMIC_RELAXED);
    }
    return unprobed_get_nodes(self, graph, nodes, count);
}

static void probe_gate(void)
{
    static xrt_backend t[4];
    static char names[4][32];
    static const char *of[4];
    int i;
    for (i = 0; i < 3 && of[i] && of[i] != xrt_test_backend; i++) {
    }
    if (of[i] != xrt_test_backend) {
        t[i] = *xrt__be();
        unprobed_get_nodes = t[i].graph_get_nodes;
        snprintf(names[i], sizeof names[i], "check_probe_gate_%.12s", xrt_test_backend);
        t[i].name = names[i];
        t[i].init = shared_init;
        t[i].shutdown = shared_shutdown;
        t[i].graph_get_nodes = probed_get_nodes;
        of[i] = xrt_test_backend;
    }
    use_backend(&t[i]);
}

/* An instantiate's and an update's snapshot is read in the graph nodes'
   hold of the backend's call (no other thread's node or edge, nor its
   update of the exec, comes between the exec and what the checker takes
   it for): the lock is never free while the checker reads the graph.
   (Which of two threads takes a plain mutex first once it is given back
   is not the test's to decide, so another thread's add in a gap between
   the two is not made certain; the hold is what makes it impossible.) */
static void test_instantiate_reads_graph_in_its_hold(void **state)
{
    xrt_graph graph;
    xrt_graph_node n;
    xrt_graph_exec exec;
    xrt_graph_exec_update_result r;
    void *d;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_GRAPHS, "no graphs");
    probe_gate();
    OK(xrt_malloc(&d, N));
    {
        xrt_memset_node_params p = {d, 0, 7, 1, N, 1};
        OK(xrt_graph_create(&graph, 0));
        OK(xrt_graph_add_memset_node(&n, graph, NULL, 0, &p));
    }
    begin();
    __atomic_store_n(&probes, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&probe_found_free, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&probing, 1, __ATOMIC_RELAXED);
    OK(xrt_graph_instantiate(&exec, graph));
    OK(xrt_graph_exec_update(exec, graph));
    OK(xrt_graph_exec_update_with_result(exec, graph, &r));
    __atomic_store_n(&probing, 0, __ATOMIC_RELAXED);
    assert_true(__atomic_load_n(&probes, __ATOMIC_RELAXED) >= 3); /* the checker read the graph each time */
    assert_int_equal(__atomic_load_n(&probe_found_free, __ATOMIC_RELAXED), 0);
    end();
    OK(xrt_graph_exec_destroy(exec));
    OK(xrt_graph_destroy(graph));
    OK(xrt_free(d));
    OK(xrt_set_backend(xrt_test_backend));
}

/* The teardown of a test that switches to a backend of its own: one that
   failed partway leaves the next test neither its backend, nor checking
   on, nor a gate shut on another thread. */
static int restore_backend(void **state)
{
    (void)state;
    __atomic_store_n(&gate_shut, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&ev_gate_shut, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&probing, 0, __ATOMIC_RELAXED);
    xrt_check_enable(XRT_CHECK_OFF);
    xrt_check_set_report_callback(NULL, NULL);
    return xrt_set_backend(xrt_test_backend) == XRT_SUCCESS ? 0 : -1;
}

/* A hook that a dispatch called while on, running after the toggle to off
   (the window test_enable_under_threads races for, made certain): it starts
   no bookkeeping, which nothing would free. */
static void test_hook_after_off(void **state)
{
    size_t bytes = 1;
    (void)state;
    begin();
    end();
    xrt__chk_sync(NULL, XRT_SUCCESS, xrt__be(), XRT__CHK_SYNC_DEVICE, NULL, 0);
    OK(xrt_check_memory_bytes(&bytes));
    assert_int_equal(bytes, 0);
}

/* The calls' bad input, and what they say while off. */
static void test_check_calls(void **state)
{
    size_t n = 1, bytes = 1;
    unsigned modes = 9;
    int i;
    (void)state;
    XRT_ASSERT_FAILS(xrt_check_enable(4), XRT_ERROR_INVALID_VALUE, "unknown modes 0x4");
    XRT_ASSERT_FAILS(xrt_check_race_count(NULL), XRT_ERROR_INVALID_VALUE, "count is NULL");
    XRT_ASSERT_FAILS(xrt_check_memory_bytes(NULL), XRT_ERROR_INVALID_VALUE, "bytes is NULL");
    XRT_ASSERT_FAILS(xrt_check_get_modes(NULL), XRT_ERROR_INVALID_VALUE, "modes is NULL");
    XRT_ASSERT_FAILS(xrt_check_annotate(NULL, 1, XRT_CHECK_READ), XRT_ERROR_INVALID_VALUE, "ptr is NULL");
    XRT_ASSERT_FAILS(xrt_check_annotate(&n, 0, XRT_CHECK_READ), XRT_ERROR_INVALID_VALUE, "size is 0");
    XRT_ASSERT_FAILS(xrt_check_annotate(&n, 1, (xrt_check_access)7), XRT_ERROR_INVALID_VALUE, "access 7");
    begin();
    for (i = 0; i < XRT_CHECK_ANNOTATIONS; i++) OK(xrt_check_annotate(&n, 1, XRT_CHECK_READ));
    XRT_ASSERT_FAILS(xrt_check_annotate(&n, 1, XRT_CHECK_READ), XRT_ERROR_INVALID_VALUE, "more than XRT_CHECK_ANNOTATIONS");
    end(); /* off: the annotations go with the bookkeeping */
    begin();
    OK(xrt_check_annotate(&n, 1, XRT_CHECK_READ));
    end();
    OK(xrt_check_get_modes(&modes));
    assert_int_equal(modes, XRT_CHECK_OFF);
    OK(xrt_check_race_count(&n));
    OK(xrt_check_memory_bytes(&bytes));
    assert_int_equal(bytes, 0); /* off: nothing kept */
    begin();
    OK(xrt_check_get_modes(&modes));
    assert_int_equal(modes, XRT_CHECK_STREAMS);
    end();
}

/* The race observer (xrt_check_set_race_observer): every operation that
   touches memory is tagged, asked next to its backend's call (before: a
   synchronous copy and a free, which the backend has yet to run; queued
   work, which it has run), and every report comes with the tags of its
   earlier and its later operation, while it still goes to its destination.
   NULLs remove the observer. */
static uint64_t observed_tags;
static int observed_before[8], nobserved;
static uint64_t observed_pairs[4][2];
static int nobserved_pairs;

static uint64_t observe_tag(void *user, const xrt_backend *backend, int before)
{
    assert_ptr_equal(user, &observed_tags);
    assert_non_null(backend);
    if (nobserved < 8) observed_before[nobserved] = before;
    nobserved++;
    return ++observed_tags;
}

static void observe_race(void *user, const char *report, uint64_t earlier, uint64_t later)
{
    assert_ptr_equal(user, &observed_tags);
    assert_memory_equal(report, "xrt: race: ", 11);
    if (nobserved_pairs < 4) observed_pairs[nobserved_pairs][0] = earlier, observed_pairs[nobserved_pairs][1] = later;
    nobserved_pairs++;
}

static void test_race_observer(void **state)
{
    static unsigned char h[N];
    static const int before[] = {0, 0, 1, 1};
    round_ w;
    void *d;
    (void)state;
    round_begin(&w, 0, XRT_STREAM_DEFAULT, XRT_STREAM_NON_BLOCKING);
    OK(xrt_malloc(&d, N));
    observed_tags = 0, nobserved = nobserved_pairs = 0;
    OK(xrt_check_set_race_observer(observe_tag, observe_race, &observed_tags));
    OK(xrt_memcpy_async(d, h, N, XRT_MEMCPY_HOST_TO_DEVICE, w.s1)); /* 1 */
    OK(xrt_memset_async(d, 0, N, w.s2));                            /* 2: races with 1 */
    OK(xrt_memcpy(h, d, N, XRT_MEMCPY_DEVICE_TO_HOST));             /* 3: races with 2 (s2 does not block) */
    OK(xrt_stream_synchronize(w.s2));
    OK(xrt_free(d));                                                /* 4: waits for all */
    assert_int_equal(nobserved, 4);
    assert_memory_equal(observed_before, before, sizeof before);
    assert_int_equal(nobserved_pairs, 2);
    assert_int_equal(observed_pairs[0][0], 1);
    assert_int_equal(observed_pairs[0][1], 2);
    assert_int_equal(observed_pairs[1][0], 2);
    assert_int_equal(observed_pairs[1][1], 3);
    assert_int_equal(nreports, 2); /* the reports still go to their destination */
    OK(xrt_check_set_race_observer(NULL, NULL, NULL));
    OK(xrt_malloc(&d, N));
    OK(xrt_memset_async(d, 1, N, w.s1)); /* another pair of functions: reported (one report a pair) */
    OK(xrt_memcpy_async(h, d, N, XRT_MEMCPY_DEVICE_TO_HOST, w.s2));
    OK(xrt_device_synchronize());
    OK(xrt_free(d));
    assert_int_equal(nobserved, 4);
    assert_int_equal(nobserved_pairs, 2);
    assert_int_equal(nreports, 3);
    round_end(&w);
}

/* A copy into d on s1 and out of it on s2, in no order: one race, from the
   same two call sites wherever it is called. */
static int racy_pair(void *d, xrt_stream s1, xrt_stream s2)
{
    static unsigned char h[N];
    return xrt_memcpy_async(d, h, N, XRT_MEMCPY_HOST_TO_DEVICE, s1) ||
           xrt_memcpy_async(h, d, N, XRT_MEMCPY_DEVICE_TO_HOST, s2) || xrt_device_synchronize();
}

/* A forked child of the racy process, which exits through exit() (its
   handlers run); racy: it makes the parent's race again, from the same call
   sites. Its exit status, on stderr. */
static void exit_grandchild(void *d, xrt_stream s1, xrt_stream s2, int racy)
{
    int status = 0;
    pid_t pid;
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        int failed = racy && racy_pair(d, s1, s2);
        xrt_shutdown();
        exit(failed ? 3 : 0);
    }
    if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status))
        fprintf(stderr, "%s child: exit status %d\n", racy ? "racy" : "clean", WEXITSTATUS(status));
}

/* A process that reported a race exits with XRT_CHECK_EXITCODE (66 unless
   set), whatever main returned; XRT_CHECK=streams turns checking on. With
   XRT_CHECK_TEST_EXIT_CHILD=fork, it forks a clean child and a racy one. */
static int exit_child(void)
{
    xrt_stream s1, s2;
    void *d;
    if (xrt_set_backend("cpu") != XRT_SUCCESS || xrt_stream_create(&s1) || xrt_stream_create(&s2) ||
        xrt_malloc(&d, N) || racy_pair(d, s1, s2))
        return 3;
    if (!strcmp(getenv("XRT_CHECK_TEST_EXIT_CHILD"), "fork")) {
        exit_grandchild(d, s1, s2, 0);
        exit_grandchild(d, s1, s2, 1);
    }
    return 0;
}

/* The child's exit status; what it printed goes to `err` (n bytes) where
   given, else nowhere. */
static int exit_status_of_mode(const char *mode, const char *code, const char *check, char *err, size_t n);
static int exit_status_of(const char *code, const char *check, char *err, size_t n)
{
    return exit_status_of_mode("1", code, check, err, n);
}

static int exit_status_of_mode(const char *mode, const char *code, const char *check, char *err, size_t n)
{
    int status = 0;
    FILE *f = err ? tmpfile() : NULL;
    pid_t pid;
    assert_true(!err || f);
    pid = fork();
    if (pid == 0) {
        int null = f ? fileno(f) : open("/dev/null", O_WRONLY);
        dup2(null, 2);
        setenv("XRT_CHECK_TEST_EXIT_CHILD", mode, 1);
        if (check) setenv("XRT_CHECK", check, 1);
        else unsetenv("XRT_CHECK");
        if (code) setenv("XRT_CHECK_EXITCODE", code, 1);
        else unsetenv("XRT_CHECK_EXITCODE");
        char self[4096];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1); /* valgrind answers with its client */
        if (n > 0) self[n] = 0, execl(self, "test_check", (char *)NULL);
        _exit(98);
    }
    assert_true(pid > 0);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    if (f) {
        rewind(f);
        err[fread(err, 1, n - 1, f)] = 0;
        fclose(f);
    }
    return WEXITSTATUS(status);
}

static void test_exit_status(void **state)
{
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the child runs on the CPU backend");
    assert_int_equal(exit_status_of(NULL, "streams", NULL, 0), 66);
    assert_int_equal(exit_status_of("7", "streams", NULL, 0), 7);
    assert_int_equal(exit_status_of(NULL, NULL, NULL, 0), 0);
    assert_int_equal(exit_status_of(NULL, "none", NULL, 0), 0);
}

/* A forked child's exit status speaks of its own races: one that made none
   exits with its own status though its parent reported one before the
   fork; one that makes the parent's race again, from the same call sites,
   reports it and exits with XRT_CHECK_EXITCODE. */
static void test_exit_status_forked(void **state)
{
    char err[8192];
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the child runs on the CPU backend");
    assert_int_equal(exit_status_of_mode("fork", NULL, "streams", err, sizeof err), 66);
    if (!strstr(err, "clean child: exit status 0\n") || !strstr(err, "racy child: exit status 66\n"))
        fail_msg("the forked children's exit statuses are not 0 and 66:\n%s", err);
    /* the parent's report, and the racy child's */
    assert_non_null(strstr(strstr(err, "xrt: race: ") + 1, "xrt: race: "));
}

/* A program started by a name without a slash (as a shell finds it on
   PATH; here, execl's argv[0] "test_check") has its call sites resolved in
   its own file: the report names the function, file and line. */
static void test_sites_of_program_started_by_name(void **state)
{
    char err[8192];
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the child runs on the CPU backend");
    assert_int_equal(exit_status_of(NULL, "streams", err, sizeof err), 66);
    if (!strstr(err, "xrt:   write by xrt_memcpy_async on stream 1 (device 0), at racy_pair (test_check.c:") ||
        !strstr(err, "xrt:   read by xrt_memcpy_async on stream 2 (device 0), at racy_pair (test_check.c:"))
        fail_msg("the call sites are not racy_pair's lines:\n%s", err);
}

/* An exit status is 0 to 255: another value is ignored with one warning,
   as every variable's bad value is, and the default holds. */
static void test_exit_status_out_of_range(void **state)
{
    static const char *const bad[] = {"300", "256", "-1", "7x"};
    char err[8192];
    size_t i;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the child runs on the CPU backend");
    assert_int_equal(exit_status_of("255", "streams", err, sizeof err), 255);
    assert_null(strstr(err, "XRT_CHECK_EXITCODE"));
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[96];
        assert_int_equal(exit_status_of(bad[i], "streams", err, sizeof err), 66);
        snprintf(want, sizeof want, "XRT_CHECK_EXITCODE=%s: not valid (valid: 0 to 255); 66 used", bad[i]);
        if (!strstr(err, want)) fail_msg("XRT_CHECK_EXITCODE=%s: no warning \"%s\" in:\n%s", bad[i], want, err);
    }
}

/* xrt_shutdown gives the checker's bookkeeping back, as it does every other
   record of xrt's (checking stays on: the next call starts afresh). Last in
   its group: the shutdown drops the module kernel() keeps. */
static void test_shutdown_forgets(void **state)
{
    void *d;
    size_t bytes = 0;
    (void)state;
    begin();
    OK(xrt_malloc(&d, N));
    OK(xrt_memset_async(d, 0, N, NULL));
    OK(xrt_free(d));
    OK(xrt_check_memory_bytes(&bytes));
    assert_true(bytes > 0);
    xrt_shutdown();
    OK(xrt_check_memory_bytes(&bytes));
    assert_int_equal(bytes, 0);
    OK(xrt_set_backend(xrt_test_backend));
    end();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_copy),         cmocka_unit_test(test_copy_kernel),
        cmocka_unit_test(test_launch_completion_event_orders_nothing),
        cmocka_unit_test(test_two_sites_two_reports),
        cmocka_unit_test(test_sites_without_debug_info),
        cmocka_unit_test(test_pair_in_loop_reported_once),
        cmocka_unit_test(test_sync_set_and_d2d_copy_return_early),
        cmocka_unit_test(test_sync_copy_from_pageable_returns_early),
        cmocka_unit_test(test_sync_set_of_managed_or_pinned_waits),
        cmocka_unit_test(test_wrong_event),       cmocka_unit_test(test_free_racing),
        cmocka_unit_test(test_refused_free_not_recorded), cmocka_unit_test(test_captured_free_keeps_history),
        cmocka_unit_test(test_host_fn_annotated), cmocka_unit_test(test_refused_launch_drops_annotations),
        cmocka_unit_test(test_legacy_order),
        cmocka_unit_test(test_peer_copy),         cmocka_unit_test(test_peer_copy_serialized),
        cmocka_unit_test(test_stream_made_before_checking),
                cmocka_unit_test(test_sync_orders_host),
        cmocka_unit_test(test_graph_nodes_without_edge),
        cmocka_unit_test(test_graph_races_eager), cmocka_unit_test(test_graph_exec_launches_ordered),
        cmocka_unit_test(test_graph_external_event_nodes),
        cmocka_unit_test(test_graph_exec_copy_node_changed),
        cmocka_unit_test(test_graph_kernel_node), cmocka_unit_test(test_graph_kernel_node_annotated),
        cmocka_unit_test(test_graph_host_node_annotated),
        cmocka_unit_test(test_graph_child_nodes), cmocka_unit_test(test_graph_2d_nodes),
        cmocka_unit_test(test_copy_3d),           cmocka_unit_test(test_graph_3d_memset_node),
        cmocka_unit_test(test_2d_rows_between_streams),
        cmocka_unit_test(test_symbol_copy),
        cmocka_unit_test(test_host_sync_after_first_use), cmocka_unit_test(test_thread_order_not_seen),
        cmocka_unit_test(test_registered_after_lookup), cmocka_unit_test(test_unregistered_memory_forgotten),
        cmocka_unit_test(test_destroyed_stream_orders), cmocka_unit_test(test_destroyed_stream_place_taken),
        cmocka_unit_test(test_destroyed_streams_bounded), cmocka_unit_test(test_history_takes_what_it_holds), cmocka_unit_test(test_race_with_an_older_access),
        cmocka_unit_test(test_reports_deterministic), cmocka_unit_test(test_forked_child_clean),
        cmocka_unit_test(test_device_reset_clean), cmocka_unit_test(test_enable_under_threads),
        cmocka_unit_test(test_hook_after_off),
        cmocka_unit_test_teardown(test_queries_keep_last_error, restore_backend),
        cmocka_unit_test_teardown(test_destroy_during_a_call, restore_backend),
        cmocka_unit_test_teardown(test_wait_takes_record_of_its_call, restore_backend),
        cmocka_unit_test_teardown(test_stream_sync_takes_work_of_its_call, restore_backend),
        cmocka_unit_test_teardown(test_graph_launch_takes_record_of_its_call, restore_backend),
        cmocka_unit_test_teardown(test_graph_launch_takes_snapshot_of_its_call, restore_backend),
        cmocka_unit_test_teardown(test_device_reset_takes_work_of_its_call, restore_backend),
        cmocka_unit_test_teardown(test_instantiate_reads_graph_in_its_hold, restore_backend),
             cmocka_unit_test(test_bookkeeping_bounded),
        cmocka_unit_test(test_check_calls),       cmocka_unit_test(test_exit_status),
        cmocka_unit_test(test_exit_status_out_of_range), cmocka_unit_test(test_exit_status_forked),
        cmocka_unit_test(test_sites_of_program_started_by_name),
        cmocka_unit_test(test_race_observer),
        cmocka_unit_test(test_shutdown_forgets), /* last: see there */
    };
    char dir[256];
    if (getenv("XRT_CHECK_TEST_EXIT_CHILD")) return exit_child();
    setenv("XRT_CHECK_EXITCODE", "0", 1); /* the races reported here are expected */
    unsetenv("XRT_CHECK");
    setenv("XRT_CPU_DEVICES", "2", 0); /* the peer copy */
    return xrt_test_run_with_private_cache("stream-order checker", tests, sizeof tests / sizeof tests[0], dir,
                                           sizeof dir);
}
