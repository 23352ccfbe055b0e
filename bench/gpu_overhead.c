/* SPDX-License-Identifier: MIT */
/* GPU overhead: every xrt call against the same call made directly on the
   CUDA runtime, in one process, on the same memory and the same kind of
   stream (non-blocking on both sides), medians of BENCH_REPS alternating
   runs after a warm-up of each side (which side goes first alternates too);
   then small copies from 1 to 16 threads at once; then a captured graph's
   launch against cudaGraphLaunch; then an empty kernel launched through
   xrt_launch_kernel against cuLaunchKernel (the driver API, libcuda.so.1,
   the kernel loaded along xrt's path, arguments passed the same way) on the
   same stream; then a fatbin's load and unload. Target: at most 1.03x on
   every row, and no worse scaling with threads than the runtime's.

   bench/bench.mk builds it with -DBENCH_CUDART and links libcudart; xrt's CUDA
   backend is pointed (XRT_CUDA_LIBRARY) at the very library the direct calls
   resolve to, so both sides use one runtime. Without a CUDA GPU it says so
   and exits 0. Run against tests/doubles/cudart_stub.c (a runtime whose calls do
   nothing; `make bench` does so without a GPU) it shows what xrt alone adds
   to each call: there the differences count, not the ratios. The driver
   (libcuda.so.1, or the file XRT_CUDA_DRIVER_LIBRARY names) is likewise
   the one xrt loads: the stub's own (tests/doubles/cuda_stub.c) beside the stub
   runtime. */
#define XRT_IMPL
#include "xrt.h"

#include "bench.h"
#include "tools/cli.h" /* the tools' argument convention */

#include <stdio.h>

static const char usage[] =
    "Usage: gpu_overhead [--rows | --count ROW raw|xrt N]\n"
    "Every xrt call against the same CUDA runtime call, medians of alternating runs.\n"
    "\n"
    "  --rows                 list the rows with their numbers and exit\n"
    "  --count ROW raw|xrt N  run one row's loop N times and nothing else (for callgrind;\n"
    "                         a kernel or graph row: exit 1 where no kernel can be\n"
    "                         loaded or no graph captured)\n"
    "  -h, --help             print this help and exit\n"
    "\n"
    "Exit status: 0 (also without a CUDA GPU: it says so); 1 when xrt fails; 2 for\n"
    "bad arguments.\n";

#ifndef BENCH_CUDART
int main(int argc, char **argv)
{
    cli c = {"gpu_overhead", argc, 1, argv};
    for (; c.i < argc; c.i++) {
        cli_help(&c, usage);
        cli_unknown(&c);
    }
    puts("gpu_overhead: built without the CUDA Toolkit: nothing to measure");
    return 0;
}
#else
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define SMALL ((size_t)64)
#define BIG ((size_t)256 << 20)
#define MIB ((size_t)1 << 20)
#define MAX_THREADS 16
#define THREAD_COPIES 2000

typedef struct ctx {
    cudaStream_t rs; /* raw stream */
    xrt_stream xs;
    cudaEvent_t re;
    xrt_event xe;
    void *pinned, *pageable, *dev; /* BIG bytes each, shared by both sides */
    size_t n;                      /* bytes per copy, memset or allocation in this row */
    CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                       void **, void **); /* the driver's cuLaunchKernel */
    CUresult (*launch_ex)(const CUlaunchConfig *, CUfunction, void **, void **); /* cuLaunchKernelEx */
    CUfunction rf;                        /* the empty kernel, loaded by the driver directly */
    xrt_function xf;                      /* the same kernel, loaded through xrt */
    cudaMemPool_t rpool;                  /* device 0's default pool, both sides */
    xrt_mem_pool xpool;
    cudaGraphExec_t rexec; /* a graph of one 64-byte memset, captured on each side */
    xrt_graph_exec xexec;
} ctx;

static void raw_check(cudaError_t e, const char *call)
{
    if (e == cudaSuccess || e == cudaErrorNotReady) return;
    fprintf(stderr, "gpu_overhead: %s: %s (%s)\n", call, cudaGetErrorString(e), cudaGetErrorName(e));
    exit(1);
}

static void xrt_check(xrt_status st, const char *call)
{
    if (st == XRT_SUCCESS || st == XRT_ERROR_NOT_READY) return;
    fprintf(stderr, "gpu_overhead: %s: %s\n", call, xrt_get_last_error_string());
    exit(1);
}

#define RAW(call) raw_check(call, #call)
#define XRT(call) xrt_check(call, #call)

static void CUDART_CB nothing(void *user) { (void)user; }

/* PAIR(name, raw body, xrt body): two loops that do the same work, one on the
   runtime, one through xrt. A body sees the context c, the index i and the
   count n (to synchronize after the last of a series of enqueues). */
#define PAIR(name, raw_body, xrt_body)                                                             \
    static void raw_##name(void *p, long n)                                                        \
    {                                                                                              \
        ctx *c = p;                                                                                \
        long i;                                                                                    \
        (void)c;                                                                                   \
        for (i = 0; i < n; i++) { raw_body; }                                                      \
    }                                                                                              \
    static void via_xrt_##name(void *p, long n)                                                    \
    {                                                                                              \
        ctx *c = p;                                                                                \
        long i;                                                                                    \
        (void)c;                                                                                   \
        for (i = 0; i < n; i++) { xrt_body; }                                                      \
    }

#define RAW_SYNC RAW(cudaStreamSynchronize(c->rs))
#define XRT_SYNC XRT(xrt_stream_synchronize(c->xs))
#define H2D cudaMemcpyHostToDevice
#define XH2D XRT_MEMCPY_HOST_TO_DEVICE

PAIR(get_device, int d; RAW(cudaGetDevice(&d)), int d; XRT(xrt_get_device(&d)))
PAIR(sync, RAW_SYNC, XRT_SYNC)
PAIR(query, RAW(cudaStreamQuery(c->rs)), XRT(xrt_stream_query(c->xs)))
/* a library handed a framework's stream: the handle from xrt_stream_from_native */
PAIR(native_query, RAW(cudaStreamQuery(c->rs)),
     xrt_stream s; XRT(xrt_stream_from_native(&s, (void *)c->rs)); XRT(xrt_stream_query(s)))
PAIR(event, RAW(cudaEventRecord(c->re, c->rs)); RAW(cudaEventQuery(c->re)),
     XRT(xrt_event_record(c->xe, c->xs)); XRT(xrt_event_query(c->xe)))
/* xrt_memcpy is cudaMemcpyAsync on stream 0 + cudaStreamSynchronize(0): the
   raw side makes the same two calls (cudaMemcpy would be another call) */
PAIR(memcpy_sync, RAW(cudaMemcpyAsync(c->dev, c->pinned, c->n, H2D, 0)); RAW(cudaStreamSynchronize(0)),
     XRT(xrt_memcpy(c->dev, c->pinned, c->n, XH2D)))
PAIR(h2d_pinned, RAW(cudaMemcpyAsync(c->dev, c->pinned, c->n, H2D, c->rs)); RAW_SYNC,
     XRT(xrt_memcpy_async(c->dev, c->pinned, c->n, XH2D, c->xs)); XRT_SYNC)
PAIR(h2d_pageable, RAW(cudaMemcpyAsync(c->dev, c->pageable, c->n, H2D, c->rs)); RAW_SYNC,
     XRT(xrt_memcpy_async(c->dev, c->pageable, c->n, XH2D, c->xs)); XRT_SYNC)
PAIR(d2h_pinned, RAW(cudaMemcpyAsync(c->pinned, c->dev, c->n, cudaMemcpyDeviceToHost, c->rs)); RAW_SYNC,
     XRT(xrt_memcpy_async(c->pinned, c->dev, c->n, XRT_MEMCPY_DEVICE_TO_HOST, c->xs)); XRT_SYNC)
PAIR(h2d_enqueue, RAW(cudaMemcpyAsync(c->dev, c->pinned, c->n, H2D, c->rs)); if (i == n - 1) RAW_SYNC,
     XRT(xrt_memcpy_async(c->dev, c->pinned, c->n, XH2D, c->xs)); if (i == n - 1) XRT_SYNC)
PAIR(memset, RAW(cudaMemsetAsync(c->dev, (int)i, c->n, c->rs)); RAW_SYNC,
     XRT(xrt_memset_async(c->dev, (int)i, c->n, c->xs)); XRT_SYNC)
PAIR(host_func, RAW(cudaLaunchHostFunc(c->rs, nothing, NULL)); RAW_SYNC,
     XRT(xrt_launch_host_func(c->xs, nothing, NULL)); XRT_SYNC)
PAIR(malloc, void *q; RAW(cudaMalloc(&q, c->n)); RAW(cudaFree(q)), void *q; XRT(xrt_malloc(&q, c->n)); XRT(xrt_free(q)))
PAIR(malloc_async, void *q; RAW(cudaMallocAsync(&q, c->n, c->rs)); RAW(cudaFreeAsync(q, c->rs)); if (i == n - 1) RAW_SYNC,
     void *q; XRT(xrt_malloc_async(&q, c->n, c->xs)); XRT(xrt_free_async(q, c->xs)); if (i == n - 1) XRT_SYNC)
PAIR(stream, cudaStream_t s; RAW(cudaStreamCreate(&s)); RAW(cudaStreamDestroy(s)),
     xrt_stream s; XRT(xrt_stream_create(&s)); XRT(xrt_stream_destroy(s)))
PAIR(stream_priority, cudaStream_t s; RAW(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, -1)); RAW(cudaStreamDestroy(s)),
     xrt_stream s; XRT(xrt_stream_create_with_priority(&s, XRT_STREAM_NON_BLOCKING, -1)); XRT(xrt_stream_destroy(s)))
PAIR(event_create, cudaEvent_t e; RAW(cudaEventCreateWithFlags(&e, cudaEventDefault)); RAW(cudaEventDestroy(e)),
     xrt_event e; XRT(xrt_event_create(&e, XRT_EVENT_DEFAULT)); XRT(xrt_event_destroy(e)))
PAIR(attribute, int v; RAW(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0)),
     int v; XRT(xrt_device_get_attribute(&v, XRT_DEVATTR_MULTIPROCESSOR_COUNT, 0)))
/* 64 rows of 64 bytes: pinned host rows packed, device rows PITCH apart */
#define PITCH 512
PAIR(copy_2d, RAW(cudaMemcpy2DAsync(c->dev, PITCH, c->pinned, SMALL, SMALL, SMALL, H2D, c->rs)); RAW_SYNC,
     XRT(xrt_memcpy_2d_async(c->dev, PITCH, c->pinned, SMALL, SMALL, SMALL, XH2D, c->xs)); XRT_SYNC)
PAIR(memset_2d, RAW(cudaMemset2DAsync(c->dev, PITCH, (int)i, SMALL, SMALL, c->rs)); RAW_SYNC,
     XRT(xrt_memset_2d_async(c->dev, PITCH, (int)i, SMALL, SMALL, c->xs)); XRT_SYNC)
PAIR(pool, void *q; RAW(cudaMallocFromPoolAsync(&q, c->n, c->rpool, c->rs)); RAW(cudaFreeAsync(q, c->rs)); if (i == n - 1) RAW_SYNC,
     void *q; XRT(xrt_malloc_from_pool_async(&q, c->n, c->xpool, c->xs)); XRT(xrt_free_async(q, c->xs)); if (i == n - 1) XRT_SYNC)
/* 1 MiB of the pageable buffer, page-aligned, registered and unregistered */
PAIR(host_register, RAW(cudaHostRegister(c->pageable, c->n, cudaHostRegisterDefault)); RAW(cudaHostUnregister(c->pageable)),
     XRT(xrt_host_register(c->pageable, c->n, XRT_HOST_REGISTER_DEFAULT)); XRT(xrt_host_unregister(c->pageable)))

/* An empty kernel with one pointer argument: one block of 32 threads. The
   raw side passes the argument as xrt does (packed, CU_LAUNCH_PARAM_BUFFER_POINTER),
   or, for the last row, as kernelParams. */
static void raw_launch(ctx *c, int packed)
{
    void *arg = c->dev, *params[1] = {&arg};
    size_t size = sizeof arg;
    void *extra[5] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &arg, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    CUresult e = c->launch(c->rf, 1, 1, 1, 32, 1, 1, 0, (CUstream)c->rs, packed ? NULL : params, packed ? extra : NULL);
    if (e == CUDA_SUCCESS) return;
    fprintf(stderr, "gpu_overhead: cuLaunchKernel: CUresult %d\n", (int)e);
    exit(1);
}
/* The same launch with one attribute (a priority of 0), through
   cuLaunchKernelEx and xrt_launch_kernel_ex, each side's config made once. */
static void raw_launch_ex(ctx *c)
{
    static void *arg;
    static size_t size = sizeof arg;
    static void *extra[5] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &arg, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                             CU_LAUNCH_PARAM_END};
    static CUlaunchAttribute a; /* id and value 0 set below: a priority of 0 */
    static CUlaunchConfig lc;
    CUresult e;
    a.id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
    lc.gridDimX = lc.gridDimY = lc.gridDimZ = 1, lc.blockDimX = 32, lc.blockDimY = lc.blockDimZ = 1;
    lc.attrs = &a, lc.numAttrs = 1;
    arg = c->dev, lc.hStream = (CUstream)c->rs;
    if ((e = c->launch_ex(&lc, c->rf, NULL, extra)) == CUDA_SUCCESS) return;
    fprintf(stderr, "gpu_overhead: cuLaunchKernelEx: CUresult %d\n", (int)e);
    exit(1);
}
static void xrt_launch_ex(ctx *c)
{
    static xrt_launch_attribute a; /* as the raw side's */
    static xrt_launch_config lc;
    a.id = XRT_LAUNCH_ATTR_PRIORITY;
    lc.grid.x = lc.grid.y = lc.grid.z = 1, lc.block.x = 32, lc.block.y = lc.block.z = 1;
    lc.attrs = &a, lc.num_attrs = 1;
    lc.stream = c->xs;
    XRT(xrt_launch_kernel_ex(&lc, c->xf, &c->dev, sizeof c->dev));
}
#define RAW_LAUNCH raw_launch(c, 1)
#define XRT_LAUNCH XRT(xrt_launch_kernel(c->xf, one, warp, 0, c->xs, &c->dev, sizeof c->dev))
static const xrt_dim3 one = {1, 1, 1}, warp = {32, 1, 1};
PAIR(launch_sync, RAW_LAUNCH; RAW_SYNC, XRT_LAUNCH; XRT_SYNC)
PAIR(launch_enqueue, RAW_LAUNCH; if (i == n - 1) RAW_SYNC, XRT_LAUNCH; if (i == n - 1) XRT_SYNC)
PAIR(launch_params, raw_launch(c, 0); RAW_SYNC, XRT_LAUNCH; XRT_SYNC)
PAIR(launch_ex_enqueue, raw_launch_ex(c); if (i == n - 1) RAW_SYNC, xrt_launch_ex(c); if (i == n - 1) XRT_SYNC)

typedef struct row {
    const char *name;
    bench_loop raw, xrt;
    size_t n;
    long iters;
} row;

#define ROW(name, fn, n, iters) {name, raw_##fn, via_xrt_##fn, n, iters}
static const row rows[] = {
    ROW("get device", get_device, 0, 100000),
    ROW("stream synchronize, idle", sync, 0, 20000),
    ROW("stream query, idle", query, 0, 20000),
    ROW("stream query, idle, of a native stream", native_query, 0, 20000),
    ROW("event record + query", event, 0, 20000),
    ROW("memcpy H2D 64 B pinned (sync, stream 0)", memcpy_sync, SMALL, 5000),
    ROW("memcpy_async H2D 64 B pinned + sync", h2d_pinned, SMALL, 5000),
    ROW("memcpy_async H2D 64 B pageable + sync", h2d_pageable, SMALL, 5000),
    ROW("memcpy_async D2H 64 B pinned + sync", d2h_pinned, SMALL, 5000),
    ROW("memcpy_async H2D 64 B pinned, enqueue", h2d_enqueue, SMALL, 1000),
    ROW("memcpy_async H2D 256 MiB pinned + sync", h2d_pinned, BIG, 4),
    ROW("memcpy_async H2D 256 MiB pageable + sync", h2d_pageable, BIG, 2),
    ROW("memset_async 64 B + sync", memset, SMALL, 5000),
    ROW("memset_async 256 MiB + sync", memset, BIG, 20),
    ROW("host function + sync", host_func, 0, 2000),
    ROW("malloc + free 1 MiB", malloc, MIB, 200),
    ROW("malloc_async + free_async 1 MiB", malloc_async, MIB, 5000),
    ROW("stream create + destroy", stream, 0, 1000),
    ROW("event create + destroy", event_create, 0, 5000),
    ROW("stream create, non-blocking, priority -1", stream_priority, 0, 1000),
    ROW("device attribute", attribute, 0, 100000),
    ROW("memcpy_2d_async H2D 64x64 B pinned + sync", copy_2d, 0, 5000),
    ROW("memset_2d_async 64x64 B + sync", memset_2d, 0, 5000),
    ROW("malloc_from_pool_async + free_async 1 MiB", pool, MIB, 5000),
    ROW("host register + unregister 1 MiB", host_register, MIB, 200),
};

static const row kernel_rows[] = {
    ROW("empty kernel launch + sync", launch_sync, 0, 5000),
    ROW("empty kernel launch, enqueue", launch_enqueue, 0, 1000),
    ROW("launch + sync, raw with kernelParams", launch_params, 0, 5000),
    ROW("launch_ex (a priority), enqueue", launch_ex_enqueue, 0, 1000),
};

#define NROWS (sizeof rows / sizeof rows[0])
#define NKERNEL_ROWS (sizeof kernel_rows / sizeof kernel_rows[0])

static int stub; /* running on tests/doubles/cudart_stub.c: no GPU behind the calls */

static void print_row(const char *name, double raw, double x)
{
    char a[32], b[32], v[48];
    printf("%-42s %10s %10s %+8.0f", name, bench_fmt_ns(a, sizeof a, raw), bench_fmt_ns(b, sizeof b, x), x - raw);
    if (stub) printf("\n");
    else printf(" %7.3fx  %s\n", x / raw, bench_target(v, sizeof v, x / raw, 1.03, 0, "x", "CUDA %s / raw", name));
}

static void print_header(const char *first)
{
    printf("%-42s %10s %10s %8s%s\n", first, "raw", "xrt", "xrt-raw", stub ? " (ns)" : "  xrt/raw");
}

/* A table's rows: each timed both ways, printed. */
static void measure_rows(ctx *c, const row *r, size_t n)
{
    size_t k;
    print_header("call (per iteration)");
    for (k = 0; k < n; k++) {
        double raw, x;
        c->n = r[k].n;
        bench_pair(r[k].raw, r[k].xrt, c, r[k].iters, BENCH_REPS, &raw, &x);
        print_row(r[k].name, raw, x);
    }
}

/* >> threads: each copies 64 bytes and synchronizes its own stream */
typedef struct worker {
    pthread_t thread;
    pthread_barrier_t *start;
    int raw;
    cudaStream_t rs;
    xrt_stream xs;
    void *src, *dst;
    double t0, t1;
} worker;

static void *copier(void *p)
{
    worker *w = p;
    int i;
    XRT(xrt_set_backend("cuda"));
    pthread_barrier_wait(w->start);
    w->t0 = bench_now_ns();
    for (i = 0; i < THREAD_COPIES; i++) {
        if (w->raw) {
            RAW(cudaMemcpyAsync(w->dst, w->src, SMALL, H2D, w->rs));
            RAW(cudaStreamSynchronize(w->rs));
        } else {
            XRT(xrt_memcpy_async(w->dst, w->src, SMALL, XH2D, w->xs));
            XRT(xrt_stream_synchronize(w->xs));
        }
    }
    w->t1 = bench_now_ns();
    return NULL;
}

/* Wall time per copy, all threads together. */
static double copies_from_threads(worker *w, int threads, int raw)
{
    pthread_barrier_t start;
    double t0 = 1e300, t1 = 0;
    int k;
    pthread_barrier_init(&start, NULL, (unsigned)threads);
    for (k = 0; k < threads; k++) {
        w[k].start = &start;
        w[k].raw = raw;
        pthread_create(&w[k].thread, NULL, copier, &w[k]);
    }
    for (k = 0; k < threads; k++) {
        pthread_join(w[k].thread, NULL);
        t0 = w[k].t0 < t0 ? w[k].t0 : t0;
        t1 = w[k].t1 > t1 ? w[k].t1 : t1;
    }
    pthread_barrier_destroy(&start);
    return (t1 - t0) / ((double)threads * THREAD_COPIES);
}

static void threads_table(ctx *c)
{
    static const int counts[] = {1, 2, 4, 8, 16};
    worker w[MAX_THREADS];
    size_t k;
    int r;
    memset(w, 0, sizeof w);
    for (k = 0; k < MAX_THREADS; k++) {
        RAW(cudaStreamCreateWithFlags(&w[k].rs, cudaStreamNonBlocking));
        XRT(xrt_stream_create_with_flags(&w[k].xs, XRT_STREAM_NON_BLOCKING));
        w[k].src = (char *)c->pinned + k * 4096;
        w[k].dst = (char *)c->dev + k * 4096;
    }
    printf("\n64 B pinned memcpy_async H2D + synchronize, each thread on its own stream, %d per thread\n",
           THREAD_COPIES);
    print_header("threads (wall time per copy, all threads)");
    for (k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        double raw[BENCH_REPS], x[BENCH_REPS];
        char name[64];
        copies_from_threads(w, counts[k], 1); /* warm-ups */
        copies_from_threads(w, counts[k], 0);
        for (r = 0; r < BENCH_REPS; r++) { /* alternating which side goes first */
            if (r % 2 == 0) raw[r] = copies_from_threads(w, counts[k], 1);
            x[r] = copies_from_threads(w, counts[k], 0);
            if (r % 2 == 1) raw[r] = copies_from_threads(w, counts[k], 1);
        }
        snprintf(name, sizeof name, "%d thread%s", counts[k], counts[k] == 1 ? "" : "s");
        print_row(name, bench_median(raw, BENCH_REPS), bench_median(x, BENCH_REPS));
    }
    for (k = 0; k < MAX_THREADS; k++) {
        RAW(cudaStreamDestroy(w[k].rs));
        XRT(xrt_stream_destroy(w[k].xs));
    }
}

/* >> graph launch: a graph of one 64-byte memset, captured on each side's
   stream (cudaStreamBeginCapture .. cudaGraphInstantiate; xrt's calls),
   launched and waited for, and launched in bursts */
PAIR(graph_sync, RAW(cudaGraphLaunch(c->rexec, c->rs)); RAW_SYNC, XRT(xrt_graph_launch(c->xexec, c->xs)); XRT_SYNC)
PAIR(graph_enqueue, RAW(cudaGraphLaunch(c->rexec, c->rs)); if (i == n - 1) RAW_SYNC,
     XRT(xrt_graph_launch(c->xexec, c->xs)); if (i == n - 1) XRT_SYNC)

static const row graph_rows[] = {
    ROW("graph launch (1 memset node) + sync", graph_sync, 0, 5000),
    ROW("graph launch (1 memset node), enqueue", graph_enqueue, 0, 1000),
};

#define NGRAPH_ROWS (sizeof graph_rows / sizeof graph_rows[0])

/* 1 when both sides captured and instantiated their graph, else why not
   (a runtime without graphs: the stub's). */
static int graph_setup(ctx *c)
{
    cudaGraph_t rg = NULL;
    xrt_graph xg = NULL;
    cudaError_t e = cudaStreamBeginCapture(c->rs, cudaStreamCaptureModeRelaxed), set;
    xrt_status st;
    if (e == cudaSuccess) {
        set = cudaMemsetAsync(c->dev, 1, SMALL, c->rs);
        e = cudaStreamEndCapture(c->rs, &rg);
        if (set != cudaSuccess) e = set;
    }
    if (e == cudaSuccess) e = cudaGraphInstantiate(&c->rexec, rg, 0);
    if (rg) RAW(cudaGraphDestroy(rg));
    if (e != cudaSuccess) {
        printf("\ngraph launch: skipped: the runtime captured no graph (%s)\n", cudaGetErrorName(e));
        return 0;
    }
    if ((st = xrt_stream_begin_capture(c->xs, XRT_CAPTURE_MODE_RELAXED)) == XRT_SUCCESS) {
        xrt_status set_st = xrt_memset_async(c->dev, 1, SMALL, c->xs);
        st = xrt_stream_end_capture(c->xs, &xg);
        if (set_st != XRT_SUCCESS) st = set_st;
    }
    if (st == XRT_SUCCESS) st = xrt_graph_instantiate(&c->xexec, xg);
    if (xg) XRT(xrt_graph_destroy(xg));
    if (st != XRT_SUCCESS) printf("\ngraph launch: skipped: %s\n", xrt_get_last_error_string());
    return st == XRT_SUCCESS;
}

static void graph_teardown(ctx *c)
{
    if (c->rexec) RAW(cudaGraphExecDestroy(c->rexec));
    if (c->xexec) XRT(xrt_graph_exec_destroy(c->xexec));
    c->rexec = NULL, c->xexec = NULL;
}

static void graph_table(ctx *c)
{
    if (graph_setup(c)) {
        printf("\ngraph launch: xrt_graph_launch against cudaGraphLaunch, each side's captured graph\n");
        measure_rows(c, graph_rows, NGRAPH_ROWS);
    }
    graph_teardown(c);
}

/* >> kernel launch: the PTX below, JIT-compiled by the driver, loaded once
   by the driver directly along the path xrt's CUDA backend takes
   (cuLibraryLoadData, cuLibraryGetKernel; the kernel handle is what
   cuLaunchKernel gets) and once through xrt_module_load */
static const char empty_ptx[] = ".version 7.0\n.target sm_50\n.address_size 64\n"
                                ".visible .entry empty(.param .u64 empty_p)\n{\n\tret;\n}\n";

/* The driver both sides use: the file XRT_CUDA_DRIVER_LIBRARY names, else
   libcuda.so.1; xrt is pointed at the very file (same_runtime). */
static void *driver;

static void *driver_open(void)
{
    const char *file = getenv("XRT_CUDA_DRIVER_LIBRARY");
    void *init;
    Dl_info info;
    if (driver) return driver;
    if (!(driver = dlopen(file && *file ? file : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL))) return NULL;
    if ((init = dlsym(driver, "cuInit")) != NULL && dladdr(init, &info) && info.dli_fname)
        setenv("XRT_CUDA_DRIVER_LIBRARY", info.dli_fname, 1);
    return driver;
}

/* The driver's entry point `name` into *fn (a function pointer's bytes). */
static int driver_sym(void *lib, const char *name, void *fn, size_t size)
{
    void *p = dlsym(lib, name);
    if (p) memcpy(fn, &p, size);
    return p != NULL;
}

/* 1 when the driver and xrt both loaded the kernel, else why not. */
static int kernel_setup(ctx *c, CUlibrary *rm, xrt_module *xm)
{
    const xrt_module_image im = {XRT_IMAGE_CUDA_PTX, empty_ptx, sizeof empty_ptx - 1, "compute_50"};
    CUresult (*load)(CUlibrary *, const void *, CUjit_option *, void **, unsigned, CUlibraryOption *, void **,
                     unsigned) = NULL;
    CUresult (*get)(CUkernel *, CUlibrary, const char *) = NULL;
    CUkernel k = NULL;
    void *lib = driver_open();
    if (!lib || !driver_sym(lib, "cuLibraryLoadData", &load, sizeof load) ||
        !driver_sym(lib, "cuLibraryGetKernel", &get, sizeof get) ||
        !driver_sym(lib, "cuLaunchKernel", &c->launch, sizeof c->launch) ||
        !driver_sym(lib, "cuLaunchKernelEx", &c->launch_ex, sizeof c->launch_ex)) {
        printf("\nkernel launch: skipped: no CUDA driver API with libraries (libcuda.so.1: %s)\n",
               lib ? "cuLibraryLoadData, cuLibraryGetKernel, cuLaunchKernel or cuLaunchKernelEx missing" : dlerror());
        return 0;
    }
    if (load(rm, empty_ptx, NULL, NULL, 0, NULL, NULL, 0) != CUDA_SUCCESS || get(&k, *rm, "empty") != CUDA_SUCCESS) {
        printf("\nkernel launch: skipped: the driver did not load the PTX\n");
        return 0;
    }
    c->rf = (CUfunction)k; /* cuLaunchKernel takes a CUkernel as a CUfunction (CUDA 12) */
    if (xrt_module_load(xm, &im, 1, NULL) != XRT_SUCCESS || xrt_module_get_function(&c->xf, *xm, "empty") != XRT_SUCCESS) {
        printf("\nkernel launch: skipped: %s\n", xrt_get_last_error_string());
        return 0;
    }
    return 1;
}

static void kernel_table(ctx *c)
{
    CUlibrary rm = NULL;
    xrt_module xm = NULL;
    if (kernel_setup(c, &rm, &xm)) {
        printf("\nkernel launch: xrt_launch_kernel against cuLaunchKernel, both with packed arguments\n"
               "(CU_LAUNCH_PARAM_BUFFER_POINTER) on a kernel from cuLibraryLoadData; the last row: raw with kernelParams\n");
        measure_rows(c, kernel_rows, NKERNEL_ROWS);
    }
    if (xm) XRT(xrt_module_unload(xm));
    (void)rm; /* the driver's library goes with the context */
}

/* >> module load: a valid fatbin (saxpy's, which `make examples` builds
   where nvcc is; env BENCH_FATBIN names another) loaded and unloaded through
   xrt_module_load against cuLibraryLoadData + cuLibraryUnload. xrt adds its
   reading of the image within its size, its copy of it, the kernel count
   that brings out what a lazily loaded library deferred, and, at unload, a
   wait for the devices that ran the module's kernels (none here). */
typedef struct load_ctx {
    const void *image;
    size_t size;
    CUresult (*load)(CUlibrary *, const void *, CUjit_option *, void **, unsigned, CUlibraryOption *, void **, unsigned);
    CUresult (*unload)(CUlibrary);
} load_ctx;

static void raw_module_load(void *p, long n)
{
    load_ctx *l = (load_ctx *)p;
    CUlibrary lib;
    long i;
    for (i = 0; i < n; i++)
        if (l->load(&lib, l->image, NULL, NULL, 0, NULL, NULL, 0) != CUDA_SUCCESS || l->unload(lib) != CUDA_SUCCESS) {
            fprintf(stderr, "gpu_overhead: cuLibraryLoadData or cuLibraryUnload failed\n");
            exit(1);
        }
}

static void via_xrt_module_load(void *p, long n)
{
    load_ctx *l = (load_ctx *)p;
    xrt_module_image im = {XRT_IMAGE_CUDA_FATBIN, NULL, 0, NULL};
    xrt_module m;
    long i;
    im.data = l->image, im.size = l->size;
    for (i = 0; i < n; i++) {
        XRT(xrt_module_load(&m, &im, 1, NULL));
        XRT(xrt_module_unload(m));
    }
}

/* The whole file at path into *size bytes (free it), or NULL. */
static void *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    void *data = NULL;
    long len;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (data = malloc((size_t)len)) != NULL && fread(data, 1, (size_t)len, f) == (size_t)len)
        *size = (size_t)len;
    else {
        free(data);
        data = NULL;
    }
    fclose(f);
    return data;
}

static void module_load_table(void)
{
    const char *path = getenv("BENCH_FATBIN") ? getenv("BENCH_FATBIN") : "build/examples/saxpy/saxpy.fatbin";
    void *lib = driver_open();
    load_ctx l;
    double raw, x;
    memset(&l, 0, sizeof l);
    if (!lib || !driver_sym(lib, "cuLibraryLoadData", &l.load, sizeof l.load) ||
        !driver_sym(lib, "cuLibraryUnload", &l.unload, sizeof l.unload)) {
        printf("\nmodule load: skipped: no CUDA 12 driver API (libcuda.so.1: %s)\n", lib ? "no cuLibraryLoadData" : dlerror());
        return;
    }
    if (!(l.image = read_file(path, &l.size))) {
        printf("\nmodule load: skipped: %s not found (make examples builds it where nvcc is; env BENCH_FATBIN)\n", path);
        return;
    }
    printf("\nmodule load: xrt_module_load + xrt_module_unload against cuLibraryLoadData + cuLibraryUnload, %s (%zu bytes)\n",
           path, l.size);
    print_header("call (per iteration)");
    bench_pair(raw_module_load, via_xrt_module_load, &l, 200, BENCH_REPS, &raw, &x);
    print_row("fatbin load + unload", raw, x);
    free((void *)l.image);
}

/* >> set-up */
/* xrt's CUDA backend must load the library the direct calls resolve to. */
static void same_runtime(void)
{
    cudaError_t (*sym)(cudaStream_t) = cudaStreamSynchronize;
    Dl_info info;
    void *fn;
    memcpy(&fn, &sym, sizeof fn); /* -pedantic: no cast from a function pointer */
    if (dladdr(fn, &info) && info.dli_fname) setenv("XRT_CUDA_LIBRARY", info.dli_fname, 1);
    (void)driver_open(); /* before xrt loads the driver */
}

/* 0 when there is a GPU to measure on. */
static int have_gpu(void)
{
    int count = 0; /* cudaGetDeviceCount leaves it untouched on failure */
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaSuccess && count > 0) return 1;
    printf("gpu_overhead: no CUDA GPU here (cudaGetDeviceCount: %s): nothing to measure\n",
           e == cudaSuccess ? "0 devices" : cudaGetErrorString(e));
    return 0;
}

/* quiet: for --count, no header and no first touch of the host buffers
   (under callgrind, touching 512 MiB would take most of the run). */
static void setup(ctx *c, int quiet)
{
    xrt_device_prop prop;
    int version = 0;
    memset(c, 0, sizeof *c);
    XRT(xrt_set_backend("cuda"));
    XRT(xrt_get_device_properties(&prop, 0));
    RAW(cudaRuntimeGetVersion(&version));
    XRT(xrt_malloc_host(&c->pinned, BIG));
    XRT(xrt_malloc(&c->dev, BIG));
    if (!(c->pageable = aligned_alloc(4096, BIG))) exit(1); /* whole pages: host_register's row */
    RAW(cudaStreamCreateWithFlags(&c->rs, cudaStreamNonBlocking));
    XRT(xrt_stream_create_with_flags(&c->xs, XRT_STREAM_NON_BLOCKING));
    RAW(cudaDeviceGetDefaultMemPool(&c->rpool, 0));
    XRT(xrt_device_get_default_mem_pool(&c->xpool, 0));
    RAW(cudaEventCreateWithFlags(&c->re, cudaEventDefault));
    XRT(xrt_event_create(&c->xe, XRT_EVENT_DEFAULT));
    if (quiet) return;
    memset(c->pageable, 1, BIG);
    memset(c->pinned, 1, BIG);
    printf("gpu_overhead: cuda device 0 (%s, %s), CUDA runtime %d, medians of %d\n", prop.name, prop.arch, version,
           BENCH_REPS);
    if (stub)
        printf("stub runtime: its calls do nothing, so xrt-raw is what xrt adds to each call; ratios are left out\n");
}

static void teardown(ctx *c)
{
    XRT(xrt_event_destroy(c->xe));
    RAW(cudaEventDestroy(c->re));
    XRT(xrt_stream_destroy(c->xs));
    RAW(cudaStreamDestroy(c->rs));
    XRT(xrt_free(c->dev));
    XRT(xrt_free_host(c->pinned));
    free(c->pageable);
}

/* `gpu_overhead --count ROW raw|xrt N` runs one row's loop N times and
   nothing else, for bench/gpu_instructions.sh (callgrind); `--rows` lists
   the rows with their numbers. */
typedef struct args {
    int rows;       /* --rows */
    long row, iters; /* --count; row -1: not asked */
    int raw;
} args;

static args parse_args(int argc, char **argv)
{
    static const char *const sides[] = {"raw", "xrt"};
    args a = {0, -1, 0, 0};
    cli c = {"gpu_overhead", argc, 1, argv};
    const char *v;
    for (; c.i < argc; c.i++) {
        cli_help(&c, usage);
        if (cli_flag(&c, "--rows")) {
            a.rows = 1;
        } else if (cli_option(&c, "--count", &v)) {
            a.row = cli_long(&c, "--count ROW", v, 0, (long)(NROWS + NKERNEL_ROWS + NGRAPH_ROWS) - 1);
            if (c.i + 2 >= argc) cli_fail(&c, "option '--count' needs ROW raw|xrt N");
            a.raw = cli_choice(&c, "--count", argv[++c.i], sides, 2) == 0;
            a.iters = cli_long(&c, "--count N", argv[++c.i], 1, 1000000000);
        } else {
            cli_unknown(&c);
        }
    }
    return a;
}

/* Rows are numbered on from the first table into the kernel table, then
   the graph table. */
static int count_one(const args *a)
{
    size_t k = (size_t)a->row;
    const row *r = k < NROWS ? &rows[k] : k < NROWS + NKERNEL_ROWS ? &kernel_rows[k - NROWS]
                                                                 : &graph_rows[k - NROWS - NKERNEL_ROWS];
    CUlibrary rm = NULL;
    xrt_module xm = NULL;
    int ok = 1;
    ctx c;
    setup(&c, 1);
    c.n = r->n;
    if (k >= NROWS + NKERNEL_ROWS) ok = graph_setup(&c);
    else if (k >= NROWS) ok = kernel_setup(&c, &rm, &xm);
    if (ok) (a->raw ? r->raw : r->xrt)(&c, a->iters);
    if (xm) XRT(xrt_module_unload(xm));
    graph_teardown(&c);
    teardown(&c);
    xrt_shutdown();
    return ok ? 0 : 1;
}

static void measure_all(void)
{
    ctx c;
    setup(&c, 0);
    measure_rows(&c, rows, NROWS);
    threads_table(&c);
    graph_table(&c);
    kernel_table(&c);
    module_load_table();
    teardown(&c);
    xrt_shutdown();
}

int main(int argc, char **argv)
{
    args a = parse_args(argc, argv);
    size_t k;
    if (a.rows) {
        for (k = 0; k < NROWS; k++) printf("%zu %s\n", k, rows[k].name);
        for (k = 0; k < NKERNEL_ROWS; k++) printf("%zu %s\n", NROWS + k, kernel_rows[k].name);
        for (k = 0; k < NGRAPH_ROWS; k++) printf("%zu %s\n", NROWS + NKERNEL_ROWS + k, graph_rows[k].name);
        return 0;
    }
    same_runtime();
    stub = dlsym(RTLD_DEFAULT, "xrt_bench_cudart_stub") != NULL;
    if (!have_gpu()) return 0;
    if (a.row >= 0) return count_one(&a);
    measure_all();
    return 0;
}
#endif
