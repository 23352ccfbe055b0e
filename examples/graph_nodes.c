/* SPDX-License-Identifier: MIT */
/* graph_nodes: the pattern of CUDA's simpleCudaGraphs sample, ported: a
   reduction (copy in, clear the partial sums, a kernel per block, a final
   kernel, copy out, a host function that checks the sum) made two ways, as
   a graph built node by node (and a clone of it) and as a graph captured
   from two streams forked and joined by events; each launched a few times,
   each result checked.
   Kernels are C source for the CPU backend; a backend that does not build
   graphs says so and exits 1. */
#define XRT_IMPL
#include "xrt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        if ((call) != XRT_SUCCESS) {                                                  \
            fprintf(stderr, "graph_nodes: %s\n", xrt_get_last_error_string());        \
            return 1;                                                                 \
        }                                                                             \
    } while (0)

/* The CPU kernel ABI (REFERENCE.md, "The CPU kernel ABI"). reduce: block b
   sums the elements of its grid-stride share into partial[b]; reduce_final
   (one block) sums the partial sums into *result. */
static const char source[] =
    "#include <stddef.h>\n"
    "typedef struct { unsigned x, y, z; } dim3;\n"
    "typedef struct { dim3 grid_dim, block_dim, block_idx; void *shared; size_t shared_bytes; } xrt_kernel_ctx;\n"
    "typedef struct { const float *in; double *partial; size_t n; } reduce_args;\n"
    "typedef struct { const double *partial; double *result; size_t n; } final_args;\n"
    "void reduce(const xrt_kernel_ctx *c, reduce_args *a) {\n"
    "    size_t t, i, stride = (size_t)c->grid_dim.x * c->block_dim.x; double sum = 0;\n"
    "    for (t = 0; t < c->block_dim.x; t++)\n"
    "        for (i = (size_t)c->block_idx.x * c->block_dim.x + t; i < a->n; i += stride) sum += a->in[i];\n"
    "    a->partial[c->block_idx.x] = sum; }\n"
    "void reduce_final(const xrt_kernel_ctx *c, final_args *a) {\n"
    "    size_t i; double sum = 0; (void)c;\n"
    "    for (i = 0; i < a->n; i++) sum += a->partial[i];\n"
    "    *a->result = sum; }\n";

typedef struct { const float *in; double *partial; size_t n; } reduce_args;
typedef struct { const double *partial; double *result; size_t n; } final_args;

enum { N = 1 << 20, BLOCKS = 64, THREADS = 256, LAUNCHES = 3 };

typedef struct check { const double *result; double want; int verified, wrong; } check;

/* The sample's host node: reads the result the graph copied out, then clears it. */
static void check_sum(void *user)
{
    check *c = (check *)user;
    if (fabs(*c->result - c->want) <= 1e-6 * fabs(c->want)) c->verified++;
    else c->wrong++;
    *(double *)(uintptr_t)c->result = 0;
}

typedef struct bufs {
    xrt_function reduce, final;
    float *h_in, *d_in;
    double *d_partial, *d_result, *h_result;
    reduce_args ra;
    final_args fa;
    check chk;
} bufs;

static xrt_status build(bufs *b, xrt_graph *out)
{
    xrt_graph g;
    xrt_graph_node copy_in, clear, reduce, final, copy_out, host, deps[2];
    xrt_memset_node_params ms = {NULL, 0, 0, 4, BLOCKS * 2, 1}; /* BLOCKS doubles as 4-byte zeros */
    xrt_kernel_node_params kr = {NULL, {BLOCKS, 1, 1}, {THREADS, 1, 1}, 0, NULL, sizeof(reduce_args)};
    xrt_kernel_node_params kf = {NULL, {1, 1, 1}, {1, 1, 1}, 0, NULL, sizeof(final_args)};
    xrt_host_node_params hp = {check_sum, NULL};
    xrt_status st;
    ms.dst = b->d_partial;
    kr.function = b->reduce;
    kr.args = &b->ra;
    kf.function = b->final;
    kf.args = &b->fa;
    hp.user = &b->chk;
    if ((st = xrt_graph_create(&g, 0)) != XRT_SUCCESS) return st;
    if ((st = xrt_graph_add_memcpy_node_1d(&copy_in, g, NULL, 0, b->d_in, b->h_in, N * sizeof(float),
                                           XRT_MEMCPY_HOST_TO_DEVICE)) != XRT_SUCCESS ||
        (st = xrt_graph_add_memset_node(&clear, g, NULL, 0, &ms)) != XRT_SUCCESS)
        return st;
    deps[0] = copy_in;
    deps[1] = clear;
    if ((st = xrt_graph_add_kernel_node(&reduce, g, deps, 2, &kr)) != XRT_SUCCESS ||
        (st = xrt_graph_add_kernel_node(&final, g, &reduce, 1, &kf)) != XRT_SUCCESS ||
        (st = xrt_graph_add_memcpy_node_1d(&copy_out, g, &final, 1, b->h_result, b->d_result, sizeof(double),
                                           XRT_MEMCPY_DEVICE_TO_HOST)) != XRT_SUCCESS ||
        (st = xrt_graph_add_host_node(&host, g, &copy_out, 1, &hp)) != XRT_SUCCESS)
        return st;
    *out = g;
    return XRT_SUCCESS;
}

/* The same work captured: the clear forked onto a second stream, joined back. */
static xrt_status capture(bufs *b, xrt_stream s1, xrt_stream s2, xrt_event fork, xrt_event join, xrt_graph *out)
{
    xrt_dim3 grid = {BLOCKS, 1, 1}, block = {THREADS, 1, 1}, one = {1, 1, 1};
    xrt_status st;
    if ((st = xrt_stream_begin_capture(s1, XRT_CAPTURE_MODE_GLOBAL)) != XRT_SUCCESS) return st;
    if ((st = xrt_event_record(fork, s1)) || (st = xrt_stream_wait_event(s2, fork)) ||
        (st = xrt_memcpy_async(b->d_in, b->h_in, N * sizeof(float), XRT_MEMCPY_HOST_TO_DEVICE, s1)) ||
        (st = xrt_memset_async(b->d_partial, 0, BLOCKS * sizeof(double), s2)) || (st = xrt_event_record(join, s2)) ||
        (st = xrt_stream_wait_event(s1, join)) ||
        (st = xrt_launch_kernel(b->reduce, grid, block, 0, s1, &b->ra, sizeof b->ra)) ||
        (st = xrt_launch_kernel(b->final, one, one, 0, s1, &b->fa, sizeof b->fa)) ||
        (st = xrt_memcpy_async(b->h_result, b->d_result, sizeof(double), XRT_MEMCPY_DEVICE_TO_HOST, s1)) ||
        (st = xrt_launch_host_func(s1, check_sum, &b->chk)))
        return st;
    return xrt_stream_end_capture(s1, out);
}

static xrt_status launch_n(xrt_graph g, xrt_stream s, const char *what, const bufs *b)
{
    xrt_graph_exec x;
    xrt_graph_info info;
    xrt_status st;
    int r;
    if ((st = xrt_graph_get_info(g, &info)) || (st = xrt_graph_instantiate(&x, g))) return st;
    for (r = 0; r < LAUNCHES && st == XRT_SUCCESS; r++) st = xrt_graph_launch(x, s);
    if (st == XRT_SUCCESS) st = xrt_stream_synchronize(s);
    printf("  %-28s %zu nodes, %zu edges: %d launches, %d sums verified\n", what, info.nodes, info.edges, LAUNCHES,
           b->chk.verified);
    xrt_graph_exec_destroy(x);
    return st;
}

int main(void)
{
    const char *backend;
    xrt_module_image image = {XRT_IMAGE_CPU_C_SOURCE, source, sizeof source - 1, NULL};
    xrt_module m;
    xrt_stream s1, s2;
    xrt_event fork, join;
    xrt_graph built, clone, captured;
    bufs b;
    size_t i;
    int total = 0;
    memset(&b, 0, sizeof b);
    CHECK(xrt_get_backend(&backend));
    if (xrt_graph_create(&built, 0) != XRT_SUCCESS) {
        fprintf(stderr, "graph_nodes: backend %s does not build graphs node by node (%s); try XRT_BACKEND=cpu\n",
                backend, xrt_get_last_error_string());
        return 1;
    }
    CHECK(xrt_graph_destroy(built));
    CHECK(xrt_module_load(&m, &image, 1, NULL));
    CHECK(xrt_module_get_function(&b.reduce, m, "reduce"));
    CHECK(xrt_module_get_function(&b.final, m, "reduce_final"));
    CHECK(xrt_stream_create(&s1));
    CHECK(xrt_stream_create(&s2));
    CHECK(xrt_event_create(&fork, XRT_EVENT_DISABLE_TIMING));
    CHECK(xrt_event_create(&join, XRT_EVENT_DISABLE_TIMING));
    CHECK(xrt_malloc_host((void **)&b.h_in, N * sizeof(float)));
    CHECK(xrt_malloc_host((void **)&b.h_result, sizeof(double)));
    CHECK(xrt_malloc((void **)&b.d_in, N * sizeof(float)));
    CHECK(xrt_malloc((void **)&b.d_partial, BLOCKS * sizeof(double)));
    CHECK(xrt_malloc((void **)&b.d_result, sizeof(double)));
    for (i = 0; i < N; i++) {
        b.h_in[i] = (float)((i * 2654435761u) % 1000) / 1000.0f; /* the sample's rand() / RAND_MAX, reproducibly */
        b.chk.want += b.h_in[i];
    }
    b.ra.in = b.d_in, b.ra.partial = b.d_partial, b.ra.n = N;
    b.fa.partial = b.d_partial, b.fa.result = b.d_result, b.fa.n = BLOCKS;
    b.chk.result = b.h_result;
    printf("graph_nodes on %s: the sum of %d floats, %g\n", backend, N, b.chk.want);
    CHECK(build(&b, &built));
    CHECK(launch_n(built, s1, "built node by node", &b));
    total += LAUNCHES;
    CHECK(xrt_graph_clone(&clone, built));
    CHECK(launch_n(clone, s1, "its clone", &b));
    total += LAUNCHES;
    CHECK(capture(&b, s1, s2, fork, join, &captured));
    CHECK(launch_n(captured, s1, "captured from two streams", &b));
    total += LAUNCHES;
    if (b.chk.verified != total || b.chk.wrong) {
        fprintf(stderr, "graph_nodes: %d of %d sums verified, %d wrong\n", b.chk.verified, total, b.chk.wrong);
        return 1;
    }
    printf("  each result verified\n");
    CHECK(xrt_graph_destroy(built));
    CHECK(xrt_graph_destroy(clone));
    CHECK(xrt_graph_destroy(captured));
    CHECK(xrt_free(b.d_in));
    CHECK(xrt_free(b.d_partial));
    CHECK(xrt_free(b.d_result));
    CHECK(xrt_free_host(b.h_in));
    CHECK(xrt_free_host(b.h_result));
    CHECK(xrt_event_destroy(fork));
    CHECK(xrt_event_destroy(join));
    CHECK(xrt_stream_destroy(s1));
    CHECK(xrt_stream_destroy(s2));
    CHECK(xrt_module_unload(m));
    return 0;
}
