/* SPDX-License-Identifier: MIT */
/* graph: one pipeline (a scratch buffer, copy in, three kernels, a host
   function, copy out, the buffer freed) captured once from a stream and
   launched many times, each result checked.
   Kernels are C source for the CPU backend; a backend without graphs says
   so and exits 1. */
#define XRT_IMPL
#include "xrt.h"

#include <stdio.h>
#include <string.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        if ((call) != XRT_SUCCESS) {                                                  \
            fprintf(stderr, "graph: %s\n", xrt_get_last_error_string());              \
            return 1;                                                                 \
        }                                                                             \
    } while (0)

/* The CPU kernel ABI (REFERENCE.md, "The CPU kernel ABI"): called once per block
   with the context xrt.h declares as xrt_kernel_ctx, spelled out here. */
static const char source[] =
    "#include <stddef.h>\n"
    "typedef struct { unsigned x, y, z; } dim3;\n"
    "typedef struct { dim3 grid_dim, block_dim, block_idx; void *shared; size_t shared_bytes; } xrt_kernel_ctx;\n"
    "typedef struct { float *x; float a; unsigned n; } args;\n"
    "static unsigned first(const xrt_kernel_ctx *c) { return c->block_idx.x * c->block_dim.x; }\n"
    "void scale(const xrt_kernel_ctx *c, args *p) { unsigned i;\n"
    "    for (i = first(c); i < first(c) + c->block_dim.x && i < p->n; i++) p->x[i] *= p->a; }\n"
    "void shift(const xrt_kernel_ctx *c, args *p) { unsigned i;\n"
    "    for (i = first(c); i < first(c) + c->block_dim.x && i < p->n; i++) p->x[i] += p->a; }\n";

typedef struct { float *x; float a; unsigned n; } args;

enum { N = 1 << 16, LAUNCHES = 200 };

static void done(void *user) { ++*(int *)user; }

int main(void)
{
    const char *backend;
    xrt_module_image image = {XRT_IMAGE_CPU_C_SOURCE, source, sizeof source - 1, NULL};
    xrt_module m;
    xrt_function scale, shift;
    xrt_stream s;
    xrt_graph g;
    xrt_graph_exec x;
    xrt_graph_info info;
    xrt_dim3 grid = {N / 256, 1, 1}, block = {256, 1, 1};
    float *h, *d;
    args a;
    unsigned caps = 0, i;
    int runs = 0, r;
    CHECK(xrt_get_backend(&backend));
    CHECK(xrt_get_capabilities(&caps));
    if (!(caps & XRT_CAP_GRAPHS)) {
        fprintf(stderr, "graph: backend %s has no graphs (XRT_CAP_GRAPHS); try XRT_BACKEND=cpu\n", backend);
        return 1;
    }
    CHECK(xrt_module_load(&m, &image, 1, NULL));
    CHECK(xrt_module_get_function(&scale, m, "scale"));
    CHECK(xrt_module_get_function(&shift, m, "shift"));
    CHECK(xrt_stream_create(&s));
    CHECK(xrt_malloc_host((void **)&h, N * sizeof *h));

    /* capture: x = (x * 2 + 1) * 3, then count the run, then copy out; the
       device buffer is the graph's, allocated and freed in each launch */
    CHECK(xrt_stream_begin_capture(s, XRT_CAPTURE_MODE_GLOBAL));
    CHECK(xrt_malloc_async((void **)&d, N * sizeof *d, s));
    CHECK(xrt_memcpy_async(d, h, N * sizeof *h, XRT_MEMCPY_HOST_TO_DEVICE, s));
    a.x = d, a.a = 2, a.n = N;
    CHECK(xrt_launch_kernel(scale, grid, block, 0, s, &a, sizeof a)); /* the arguments are copied now */
    a.a = 1;
    CHECK(xrt_launch_kernel(shift, grid, block, 0, s, &a, sizeof a));
    a.a = 3;
    CHECK(xrt_launch_kernel(scale, grid, block, 0, s, &a, sizeof a));
    CHECK(xrt_launch_host_func(s, done, &runs));
    CHECK(xrt_memcpy_async(h, d, N * sizeof *h, XRT_MEMCPY_DEVICE_TO_HOST, s));
    CHECK(xrt_free_async(d, s));
    CHECK(xrt_stream_end_capture(s, &g));
    CHECK(xrt_graph_get_info(g, &info));
    printf("graph on %s: %zu nodes (kernels %zu, copies %zu, host functions %zu, memory %zu), %zu edges\n", backend,
           info.nodes, info.kernels, info.copies, info.host_fns,
           info.nodes - info.kernels - info.copies - info.sets - info.host_fns, info.edges);
    CHECK(xrt_graph_instantiate(&x, g));
    CHECK(xrt_graph_destroy(g)); /* the exec keeps what it needs */

    for (r = 0; r < LAUNCHES; r++) {
        for (i = 0; i < N; i++) h[i] = (float)(i % 1000) + (float)r;
        CHECK(xrt_graph_launch(x, s));
        CHECK(xrt_stream_synchronize(s));
        for (i = 0; i < N; i++) {
            float want = ((float)(i % 1000) + (float)r) * 2 * 3 + 3;
            if (h[i] != want) {
                fprintf(stderr, "graph: launch %d: h[%u] = %g, expected %g\n", r, i, h[i], want);
                return 1;
            }
        }
    }
    if (runs != LAUNCHES) {
        fprintf(stderr, "graph: the host function ran %d times, expected %d\n", runs, LAUNCHES);
        return 1;
    }
    printf("  %d launches of one exec, each result verified\n", LAUNCHES);
    CHECK(xrt_graph_exec_destroy(x));
    CHECK(xrt_stream_destroy(s));
    CHECK(xrt_free_host(h));
    CHECK(xrt_module_unload(m));
    return 0;
}
