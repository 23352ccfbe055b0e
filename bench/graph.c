/* SPDX-License-Identifier: MIT */
/* Graphs on the CPU backend, each against the same work enqueued one by one
   in the same run, alternating:
   - a chain of 100 empty kernels: one graph launch + synchronize against 100
     launches + one synchronize (target <= 0.1x, the built chain too);
   - 4 independent branches of 25 SAXPY kernels on 64 KiB each: one graph
     launch against the same launches on 4 streams, joined by events
     (target: the graph at least as fast, <= 1.0x);
   - the chain built node by node (xrt_graph_add_kernel_node) against the
     captured chain, launch + synchronize (target <= 1.05x), and its build
     per node;
   - capture and instantiate, per node (no target: what they cost). */
#define XRT_IMPL
#include "xrt.h"

#include "bench.h"

#define CHECK(call) BENCH_CHECK(call)

static const char src[] =
    "typedef struct { unsigned x, y, z; } dim3;\n"
    "typedef struct { dim3 grid_dim, block_dim, block_idx; void *shared; unsigned long shared_bytes; } ctx_t;\n"
    "typedef struct { float a; const float *x; float *y; unsigned long n; } saxpy_args;\n"
    "void saxpy(const ctx_t *c, void *p) {\n"
    "  const saxpy_args *a = (const saxpy_args *)p;\n"
    "  unsigned long i = (unsigned long)c->block_idx.x * c->block_dim.x, end = i + c->block_dim.x;\n"
    "  if (end > a->n) end = a->n;\n"
    "  for (; i < end; i++) a->y[i] = a->a * a->x[i] + a->y[i];\n"
    "}\n"
    "void empty(const ctx_t *c, void *p) { (void)c; (void)p; }\n";

typedef struct { float a; const float *x; float *y; unsigned long n; } saxpy_args;

enum { CHAIN = 100, BRANCHES = 4, DEPTH = 25, ELEMS = 16384 /* 64 KiB of floats */, BLOCK = 1024 };

static struct {
    xrt_function saxpy, empty;
    xrt_stream s, br[BRANCHES];
    xrt_event fork, join[BRANCHES];
    xrt_graph_exec chain, branches, built;
    float *x[BRANCHES], *y[BRANCHES];
} b;

static void chain_enqueue(xrt_stream s)
{
    xrt_dim3 one = {1, 1, 1};
    int i;
    for (i = 0; i < CHAIN; i++) CHECK(xrt_launch_kernel(b.empty, one, one, 0, s, NULL, 0));
}

static void eager_chain(void *ctx, long iters)
{
    long r;
    (void)ctx;
    for (r = 0; r < iters; r++) {
        chain_enqueue(b.s);
        CHECK(xrt_stream_synchronize(b.s));
    }
}

static void graph_run(void *ctx, long iters)
{
    xrt_graph_exec x = *(xrt_graph_exec *)ctx;
    long r;
    for (r = 0; r < iters; r++) {
        CHECK(xrt_graph_launch(x, b.s));
        CHECK(xrt_stream_synchronize(b.s));
    }
}

/* The 4 branches forked from b.s and joined back into it. */
static void branches_enqueue(void)
{
    xrt_dim3 grid = {ELEMS / BLOCK, 1, 1}, block = {BLOCK, 1, 1};
    saxpy_args a;
    int i, k;
    CHECK(xrt_event_record(b.fork, b.s));
    for (i = 0; i < BRANCHES; i++) {
        CHECK(xrt_stream_wait_event(b.br[i], b.fork));
        a.a = 1.0001f, a.x = b.x[i], a.y = b.y[i], a.n = ELEMS;
        for (k = 0; k < DEPTH; k++) CHECK(xrt_launch_kernel(b.saxpy, grid, block, 0, b.br[i], &a, sizeof a));
        CHECK(xrt_event_record(b.join[i], b.br[i]));
        CHECK(xrt_stream_wait_event(b.s, b.join[i]));
    }
}

static void eager_branches(void *ctx, long iters)
{
    long r;
    (void)ctx;
    for (r = 0; r < iters; r++) {
        branches_enqueue();
        CHECK(xrt_stream_synchronize(b.s));
    }
}

static xrt_graph_exec capture(void (*enqueue)(void), double *capture_ns, double *instantiate_ns, size_t *nodes)
{
    xrt_graph g;
    xrt_graph_exec x;
    xrt_graph_info info;
    double t0 = bench_now_ns();
    CHECK(xrt_stream_begin_capture(b.s, XRT_CAPTURE_MODE_GLOBAL));
    enqueue();
    CHECK(xrt_stream_end_capture(b.s, &g));
    *capture_ns = bench_now_ns() - t0;
    t0 = bench_now_ns();
    CHECK(xrt_graph_instantiate(&x, g));
    *instantiate_ns = bench_now_ns() - t0;
    CHECK(xrt_graph_get_info(g, &info));
    *nodes = info.nodes;
    CHECK(xrt_graph_destroy(g));
    return x;
}

static void chain_on_s(void) { chain_enqueue(b.s); }

static void captured_chain_run(void *ctx, long iters)
{
    (void)ctx;
    graph_run(&b.chain, iters);
}

static void built_chain_run(void *ctx, long iters)
{
    (void)ctx;
    graph_run(&b.built, iters);
}

/* The chain of empty kernels, built a node at a time. */
static xrt_graph_exec build_chain(double *build_ns, double *instantiate_ns)
{
    xrt_kernel_node_params kp = {NULL, {1, 1, 1}, {1, 1, 1}, 0, NULL, 0};
    xrt_graph g;
    xrt_graph_node prev = NULL, node;
    xrt_graph_exec x;
    double t0 = bench_now_ns();
    int i;
    kp.function = b.empty;
    CHECK(xrt_graph_create(&g, 0));
    for (i = 0; i < CHAIN; i++) {
        CHECK(xrt_graph_add_kernel_node(&node, g, prev ? &prev : NULL, prev ? 1 : 0, &kp));
        prev = node;
    }
    *build_ns = bench_now_ns() - t0;
    t0 = bench_now_ns();
    CHECK(xrt_graph_instantiate(&x, g));
    *instantiate_ns = bench_now_ns() - t0;
    CHECK(xrt_graph_destroy(g));
    return x;
}

static void report(const char *what, double base_ns, double test_ns, double target)
{
    char t1[32], t2[32], v[64];
    printf("  %-38s %10s  eager %10s  %.2fx  %s\n", what, bench_fmt_ns(t1, sizeof t1, test_ns),
           bench_fmt_ns(t2, sizeof t2, base_ns), test_ns / base_ns,
           bench_target(v, sizeof v, test_ns / base_ns, target, 0, "x", "CPU graph: %s / eager", what));
}

int main(void)
{
    xrt_module_image im = {XRT_IMAGE_CPU_C_SOURCE, src, sizeof src - 1, NULL};
    xrt_module m;
    double base, test, cap_ns, inst_ns;
    size_t nodes;
    char t1[32], t2[32], v[64];
    int i;
    bench_load_start(NULL);
    CHECK(xrt_set_backend("cpu"));
    setenv("XRT_CACHE", "0", 1);
    CHECK(xrt_module_load(&m, &im, 1, NULL));
    CHECK(xrt_module_get_function(&b.saxpy, m, "saxpy"));
    CHECK(xrt_module_get_function(&b.empty, m, "empty"));
    CHECK(xrt_stream_create(&b.s));
    CHECK(xrt_event_create(&b.fork, XRT_EVENT_DISABLE_TIMING));
    for (i = 0; i < BRANCHES; i++) {
        CHECK(xrt_stream_create(&b.br[i]));
        CHECK(xrt_event_create(&b.join[i], XRT_EVENT_DISABLE_TIMING));
        CHECK(xrt_malloc((void **)&b.x[i], ELEMS * sizeof(float)));
        CHECK(xrt_malloc((void **)&b.y[i], ELEMS * sizeof(float)));
        CHECK(xrt_memset(b.x[i], 0, ELEMS * sizeof(float)));
        CHECK(xrt_memset(b.y[i], 0, ELEMS * sizeof(float)));
    }
    printf("graphs on the CPU backend\n");
    b.chain = capture(chain_on_s, &cap_ns, &inst_ns, &nodes);
    printf("  %-38s %10s  instantiate %10s per node (%zu nodes)\n", "capture of a chain", bench_fmt_ns(t1, sizeof t1, cap_ns / nodes),
           bench_fmt_ns(t2, sizeof t2, inst_ns / nodes), nodes);
    b.branches = capture(branches_enqueue, &cap_ns, &inst_ns, &nodes);
    printf("  %-38s %10s  instantiate %10s per node (%zu nodes)\n", "capture of 4 branches", bench_fmt_ns(t1, sizeof t1, cap_ns / nodes),
           bench_fmt_ns(t2, sizeof t2, inst_ns / nodes), nodes);
    b.built = build_chain(&cap_ns, &inst_ns);
    printf("  %-38s %10s  instantiate %10s per node (%d nodes)\n", "build of a chain, node by node",
           bench_fmt_ns(t1, sizeof t1, cap_ns / CHAIN), bench_fmt_ns(t2, sizeof t2, inst_ns / CHAIN), CHAIN);
    bench_pair(eager_chain, graph_run, &b.chain, 200, BENCH_REPS, &base, &test);
    report("100 empty kernels + sync", base, test, 0.1);
    bench_pair(eager_chain, graph_run, &b.built, 200, BENCH_REPS, &base, &test);
    report("the same, built node by node", base, test, 0.1);
    bench_pair(captured_chain_run, built_chain_run, NULL, 200, BENCH_REPS, &base, &test);
    printf("  %-38s %10s  captured %10s  %.2fx  %s\n", "100 kernels built against captured", bench_fmt_ns(t1, sizeof t1, test),
           bench_fmt_ns(t2, sizeof t2, base), test / base, bench_target(v, sizeof v, test / base, 1.05, 0, "x", "CPU graph: 100 kernels built / captured"));
    bench_pair(eager_branches, graph_run, &b.branches, 50, BENCH_REPS, &base, &test);
    report("4 x 25 SAXPY 64 KiB + sync", base, test, 1.0);
    bench_load_report();
    CHECK(xrt_graph_exec_destroy(b.chain));
    CHECK(xrt_graph_exec_destroy(b.branches));
    CHECK(xrt_graph_exec_destroy(b.built));
    for (i = 0; i < BRANCHES; i++) {
        xrt_stream_destroy(b.br[i]);
        xrt_event_destroy(b.join[i]);
        xrt_free(b.x[i]);
        xrt_free(b.y[i]);
    }
    xrt_event_destroy(b.fork);
    xrt_stream_destroy(b.s);
    xrt_module_unload(m);
    return 0;
}
