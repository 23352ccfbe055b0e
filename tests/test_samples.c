/* SPDX-License-Identifier: MIT */
/* Patterns of the public CUDA samples, their host code written as the
   samples write it with xrt's names (cudaX -> xrt_x), and their kernels in C
   for the CPU backend:
   - simpleMultiCopy: pitched sub-matrices copied in and out on several
     streams around a kernel, each stream's work overlapping the others';
   - simpleCallback: a host function per stream that checks its stream's
     results when they are there;
   - a __constant__ table written with cudaMemcpyToSymbol and read by a
     kernel, rewritten between launches on the stream;
   - an occupancy-sized launch: cudaOccupancyMaxPotentialBlockSize picks the
     block, the grid covers the data, the occupancy is computed from
     cudaOccupancyMaxActiveBlocksPerMultiprocessor and the device's
     multiprocessor count;
   - graphMemoryNodes: stream-ordered allocations over two streams, run,
     captured, and built with memory nodes, a result left to the caller;
   - simpleCudaGraphs: a reduction built node by node and captured over
     three streams, each graph and its clone launched;
   - jacobiCudaGraphs: an exec's kernel node given new arguments each
     sweep, and a graph captured each sweep and updated into the exec;
   - findCudaDevice: the fastest device whose compute mode allows it.
   Each with kernels runs on every backend that loads modules and has C
   kernels (the CPU); elsewhere it says why it skips. */

#include "xrt_test.h"

#include <stdint.h>

#define PRELUDE                                                                                   \
    "typedef struct { unsigned x, y, z; } dim3;\n"                                                \
    "typedef struct { dim3 grid_dim, block_dim, block_idx; void *shared; unsigned long shared_bytes; } ctx_t;\n"

static const char samples_src[] = PRELUDE
    /* simpleMultiCopy's incKernel on a pitched matrix: one row a block */
    "typedef struct { unsigned char *m; unsigned long pitch; unsigned w; } inc_args;\n"
    "void inc_rows(const ctx_t *c, void *p) {\n"
    "  inc_args *a = (inc_args *)p; unsigned char *row = a->m + c->block_idx.x * a->pitch;\n"
    "  for (unsigned i = 0; i < a->w; i++) row[i]++;\n"
    "}\n"
    /* a __constant__ table */
    "float coeffs[4];\n"
    "typedef struct { const float *x; float *y; unsigned n; } poly_args;\n"
    "void poly(const ctx_t *c, void *p) {\n"
    "  poly_args *a = (poly_args *)p;\n"
    "  for (unsigned t = 0; t < c->block_dim.x; t++) {\n"
    "    unsigned i = c->block_idx.x * c->block_dim.x + t; float v;\n"
    "    if (i >= a->n) continue;\n"
    "    v = a->x[i]; a->y[i] = coeffs[0] + v * (coeffs[1] + v * (coeffs[2] + v * coeffs[3]));\n"
    "  }\n"
    "}\n"
    /* square, for the callback and occupancy samples */
    "typedef struct { int *d; unsigned n; } sq_args;\n"
    "void square(const ctx_t *c, void *p) {\n"
    "  sq_args *a = (sq_args *)p;\n"
    "  for (unsigned t = 0; t < c->block_dim.x; t++) {\n"
    "    unsigned i = c->block_idx.x * c->block_dim.x + t;\n"
    "    if (i < a->n) a->d[i] *= a->d[i];\n"
    "  }\n"
    "}\n"
    /* graphMemoryNodes' squareArray and negateArray: out[i] = f(in[i]) */
    "typedef struct { const float *in; float *out; int n; } map_args;\n"
    "void square_array(const ctx_t *c, void *p) {\n"
    "  map_args *a = (map_args *)p;\n"
    "  for (unsigned t = 0; t < c->block_dim.x; t++) {\n"
    "    int i = (int)(c->block_idx.x * c->block_dim.x + t);\n"
    "    if (i < a->n) a->out[i] = a->in[i] * a->in[i];\n"
    "  }\n"
    "}\n"
    "void negate_array(const ctx_t *c, void *p) {\n"
    "  map_args *a = (map_args *)p;\n"
    "  for (unsigned t = 0; t < c->block_dim.x; t++) {\n"
    "    int i = (int)(c->block_idx.x * c->block_dim.x + t);\n"
    "    if (i < a->n) a->out[i] = -a->in[i];\n"
    "  }\n"
    "}\n"
    /* vectorAdd, for streamOrderedAllocation and simpleZeroCopy */
    "typedef struct { const float *a, *b; float *c; int n; } add_args;\n"
    "void vector_add(const ctx_t *c, void *p) {\n"
    "  add_args *a = (add_args *)p;\n"
    "  for (unsigned t = 0; t < c->block_dim.x; t++) {\n"
    "    int i = (int)(c->block_idx.x * c->block_dim.x + t);\n"
    "    if (i < a->n) a->c[i] = a->a[i] + a->b[i];\n"
    "  }\n"
    "}\n"
    /* simpleCudaGraphs' reduce (a partial sum a block, grid-strided) and reduceFinal */
    "typedef struct { const float *in; double *out; unsigned long n, blocks; } reduce_args;\n"
    "void reduce(const ctx_t *c, void *p) {\n"
    "  reduce_args *a = (reduce_args *)p; double sum = 0;\n"
    "  for (unsigned long i = c->block_idx.x; i < a->n; i += c->grid_dim.x) sum += a->in[i];\n"
    "  a->out[c->block_idx.x] = sum;\n"
    "}\n"
    "typedef struct { const double *in; double *result; unsigned long n; } final_args;\n"
    "void reduce_final(const ctx_t *c, void *p) {\n"
    "  final_args *a = (final_args *)p; double sum = 0; (void)c;\n"
    "  for (unsigned long i = 0; i < a->n; i++) sum += a->in[i];\n"
    "  *a->result += sum;\n"
    "}\n"
    /* jacobiCudaGraphs' JacobiMethod: one sweep, x_new from x, and the sum of |x_new - x| (one block) */
    "typedef struct { const float *a; const double *b; const double *x; double *x_new; double *sum; int n; } jacobi_args;\n"
    "void jacobi(const ctx_t *c, void *p) {\n"
    "  jacobi_args *j = (jacobi_args *)p; (void)c;\n"
    "  for (int i = 0; i < j->n; i++) {\n"
    "    double r = j->b[i], d;\n"
    "    for (int k = 0; k < j->n; k++) if (k != i) r -= j->a[i * j->n + k] * j->x[k];\n"
    "    j->x_new[i] = r / j->a[i * j->n + i]; d = j->x_new[i] - j->x[i];\n"
    "    *j->sum += d < 0 ? -d : d;\n"
    "  }\n"
    "}\n";

typedef struct { unsigned char *m; unsigned long pitch; unsigned w; } inc_args;
typedef struct { const float *x; float *y; unsigned n; } poly_args;
typedef struct { int *d; unsigned n; } sq_args;
typedef struct { const float *in; float *out; int n; } map_args;
typedef struct { const float *a, *b; float *c; int n; } add_args;
typedef struct { const float *in; double *out; unsigned long n, blocks; } reduce_args;
typedef struct { const double *in; double *result; unsigned long n; } final_args;
typedef struct { const float *a; const double *b; const double *x; double *x_new; double *sum; int n; } jacobi_args;

static xrt_module load_samples(void)
{
    xrt_module_image im;
    xrt_module m = NULL;
    im.kind = XRT_IMAGE_CPU_C_SOURCE;
    im.data = samples_src;
    im.size = strlen(samples_src);
    im.arch = NULL;
    OK(xrt_module_load(&m, &im, 1, NULL));
    return m;
}

static xrt_function function_of(xrt_module m, const char *name)
{
    xrt_function f = NULL;
    OK(xrt_module_get_function(&f, m, name));
    return f;
}

#define NEEDS_C_KERNELS()                                                                          \
    SKIP_UNLESS(caps() & XRT_CAP_MODULES, "the backend loads no modules (XRT_CAP_MODULES)");       \
    SKIP_UNLESS(on_cpu(), "the samples' kernels are C, for the CPU backend")

/* simpleMultiCopy: STREAMS streams each copy a W x H sub-matrix (at an
   offset inside a wider host matrix) to pitched device memory, increment it,
   and copy it back to another place in the host matrix. */
#define STREAMS 4
#define W 33
#define H 17
#define HOST_PITCH 80
static void test_simple_multi_copy(void **state)
{
    xrt_module m;
    xrt_function inc;
    xrt_stream s[STREAMS];
    unsigned char *host, *dev[STREAMS];
    size_t pitch[STREAMS];
    int i, x, y;
    (void)state;
    NEEDS_C_KERNELS();
    m = load_samples();
    inc = function_of(m, "inc_rows");
    OK(xrt_malloc_host((void **)&host, (size_t)HOST_PITCH * H * STREAMS * 2));
    for (i = 0; i < HOST_PITCH * H * STREAMS * 2; i++) host[i] = (unsigned char)(i * 7);
    for (i = 0; i < STREAMS; i++) {
        OK(xrt_stream_create(&s[i]));
        OK(xrt_malloc_pitch((void **)&dev[i], &pitch[i], W, H));
        assert_true(pitch[i] >= W);
    }
    for (i = 0; i < STREAMS; i++) { /* in: rows of stream i's band, 5 bytes in; out: the band below */
        unsigned char *in = host + (size_t)i * HOST_PITCH * H + 5;
        unsigned char *out = host + (size_t)(STREAMS + i) * HOST_PITCH * H + 5;
        inc_args a = {dev[i], (unsigned long)pitch[i], W};
        xrt_dim3 grid = {H, 1, 1}, block = {1, 1, 1};
        OK(xrt_memcpy_2d_async(dev[i], pitch[i], in, HOST_PITCH, W, H, XRT_MEMCPY_HOST_TO_DEVICE, s[i]));
        OK(xrt_launch_kernel(inc, grid, block, 0, s[i], &a, sizeof a));
        OK(xrt_memcpy_2d_async(out, HOST_PITCH, dev[i], pitch[i], W, H, XRT_MEMCPY_DEVICE_TO_HOST, s[i]));
    }
    OK(xrt_device_synchronize());
    for (i = 0; i < STREAMS; i++)
        for (y = 0; y < H; y++)
            for (x = 0; x < HOST_PITCH; x++) {
                size_t in = (size_t)i * HOST_PITCH * H + (size_t)y * HOST_PITCH + (size_t)x;
                size_t out = in + (size_t)STREAMS * HOST_PITCH * H;
                unsigned char want = x >= 5 && x < 5 + W ? (unsigned char)(in * 7 + 1) : (unsigned char)(out * 7);
                assert_int_equal(host[out], want);
            }
    for (i = 0; i < STREAMS; i++) {
        OK(xrt_free(dev[i]));
        OK(xrt_stream_destroy(s[i]));
    }
    OK(xrt_free_host(host));
    OK(xrt_module_unload(m));
}

/* simpleCallback: each workload's host function checks its results once its
   stream has them, and counts itself done. */
#define WORKLOADS 3
#define WN 1000
typedef struct workload {
    int id, *h, *d, ok;
    xrt_stream s;
} workload;

static void check_workload(void *user)
{
    workload *w = (workload *)user;
    int i;
    w->ok = 1;
    for (i = 0; i < WN; i++)
        if (w->h[i] != (i + w->id) * (i + w->id)) w->ok = 0;
}

static void test_simple_callback(void **state)
{
    xrt_module m;
    xrt_function sq;
    workload w[WORKLOADS];
    int i, j;
    (void)state;
    NEEDS_C_KERNELS();
    m = load_samples();
    sq = function_of(m, "square");
    for (i = 0; i < WORKLOADS; i++) {
        sq_args a;
        xrt_dim3 grid = {(WN + 127) / 128, 1, 1}, block = {128, 1, 1};
        w[i].id = i, w[i].ok = -1;
        OK(xrt_stream_create(&w[i].s));
        OK(xrt_malloc_host((void **)&w[i].h, WN * sizeof(int)));
        OK(xrt_malloc((void **)&w[i].d, WN * sizeof(int)));
        for (j = 0; j < WN; j++) w[i].h[j] = j + i;
        a.d = w[i].d, a.n = WN;
        OK(xrt_memcpy_async(w[i].d, w[i].h, WN * sizeof(int), XRT_MEMCPY_HOST_TO_DEVICE, w[i].s));
        OK(xrt_launch_kernel(sq, grid, block, 0, w[i].s, &a, sizeof a));
        OK(xrt_memcpy_async(w[i].h, w[i].d, WN * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST, w[i].s));
        OK(xrt_launch_host_func(w[i].s, check_workload, &w[i]));
    }
    OK(xrt_device_synchronize());
    for (i = 0; i < WORKLOADS; i++) {
        assert_int_equal(w[i].ok, 1);
        OK(xrt_free(w[i].d));
        OK(xrt_free_host(w[i].h));
        OK(xrt_stream_destroy(w[i].s));
    }
    OK(xrt_module_unload(m));
}

/* A __constant__ table: written from the host by name, read by a kernel,
   rewritten in stream order between two launches, read back. */
#define PN 300
static float poly_of(const float *c, float v) { return c[0] + v * (c[1] + v * (c[2] + v * c[3])); }

static void test_constant_table(void **state)
{
    static const float first[4] = {1, 2, 0.5f, -1}, second[4] = {-3, 0, 4, 0.25f};
    xrt_module m;
    xrt_function poly;
    xrt_stream s;
    float *x, *y, *hx, *hy, back[4];
    poly_args a;
    xrt_dim3 grid = {(PN + 63) / 64, 1, 1}, block = {64, 1, 1};
    int i;
    (void)state;
    NEEDS_C_KERNELS();
    m = load_samples();
    poly = function_of(m, "poly");
    OK(xrt_stream_create(&s));
    OK(xrt_malloc((void **)&x, PN * sizeof(float)));
    OK(xrt_malloc((void **)&y, 2 * PN * sizeof(float)));
    OK(xrt_malloc_host((void **)&hx, PN * sizeof(float)));
    OK(xrt_malloc_host((void **)&hy, 2 * PN * sizeof(float)));
    for (i = 0; i < PN; i++) hx[i] = (float)(i % 11) * 0.25f - 1;
    OK(xrt_memcpy(x, hx, PN * sizeof(float), XRT_MEMCPY_HOST_TO_DEVICE));
    OK(xrt_memcpy_to_symbol(m, "coeffs", first, sizeof first, 0, XRT_MEMCPY_HOST_TO_DEVICE));
    a.x = x, a.y = y, a.n = PN;
    OK(xrt_launch_kernel(poly, grid, block, 0, s, &a, sizeof a));
    /* the second table goes in after the first launch, in stream order */
    OK(xrt_memcpy_to_symbol_async(m, "coeffs", second, sizeof second, 0, XRT_MEMCPY_HOST_TO_DEVICE, s));
    a.y = y + PN;
    OK(xrt_launch_kernel(poly, grid, block, 0, s, &a, sizeof a));
    OK(xrt_memcpy_async(hy, y, 2 * PN * sizeof(float), XRT_MEMCPY_DEVICE_TO_HOST, s));
    OK(xrt_memcpy_from_symbol_async(back, m, "coeffs", sizeof back, 0, XRT_MEMCPY_DEVICE_TO_HOST, s));
    OK(xrt_stream_synchronize(s));
    for (i = 0; i < PN; i++) {
        assert_float_equal(hy[i], poly_of(first, hx[i]), 1e-5);
        assert_float_equal(hy[PN + i], poly_of(second, hx[i]), 1e-5);
    }
    assert_memory_equal(back, second, sizeof back);
    OK(xrt_free(x));
    OK(xrt_free(y));
    OK(xrt_free_host(hx));
    OK(xrt_free_host(hy));
    OK(xrt_stream_destroy(s));
    OK(xrt_module_unload(m));
}

/* An occupancy-sized launch, as the samples' simpleOccupancy: the block size
   from the calculator, the grid to cover the data, the occupancy reported. */
#define ON 100000
static void test_occupancy_sized_launch(void **state)
{
    xrt_module m;
    xrt_function sq;
    int min_grid = 0, block_size = 0, active = 0, sms = 0, warp = 0, max_threads = 0, *d, *h, i;
    xrt_dim3 grid = {1, 1, 1}, block = {1, 1, 1};
    sq_args a;
    double occupancy;
    (void)state;
    NEEDS_C_KERNELS();
    m = load_samples();
    sq = function_of(m, "square");
    OK(xrt_occupancy_max_potential_block_size(&min_grid, &block_size, sq, 0, 0));
    OK(xrt_device_get_attribute(&sms, XRT_DEVATTR_MULTIPROCESSOR_COUNT, 0));
    OK(xrt_device_get_attribute(&warp, XRT_DEVATTR_WARP_SIZE, 0));
    OK(xrt_device_get_attribute(&max_threads, XRT_DEVATTR_MAX_THREADS_PER_MULTIPROCESSOR, 0));
    assert_true(block_size > 0 && min_grid > 0 && sms > 0 && warp > 0);
    OK(xrt_occupancy_max_active_blocks_per_multiprocessor(&active, sq, block_size, 0));
    assert_true(active > 0);
    occupancy = (double)(active * block_size / warp) / (double)(max_threads / warp);
    assert_true(occupancy > 0 && occupancy <= 1);
    grid.x = (unsigned)((ON + block_size - 1) / block_size);
    block.x = (unsigned)block_size;
    OK(xrt_malloc((void **)&d, ON * sizeof(int)));
    OK(xrt_malloc_host((void **)&h, ON * sizeof(int)));
    for (i = 0; i < ON; i++) h[i] = i % 1000;
    OK(xrt_memcpy(d, h, ON * sizeof(int), XRT_MEMCPY_HOST_TO_DEVICE));
    a.d = d, a.n = ON;
    OK(xrt_launch_kernel(sq, grid, block, 0, NULL, &a, sizeof a));
    OK(xrt_memcpy(h, d, ON * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST));
    for (i = 0; i < ON; i++) assert_int_equal(h[i], (i % 1000) * (i % 1000));
    OK(xrt_free(d));
    OK(xrt_free_host(h));
    OK(xrt_module_unload(m));
}

/* graphMemoryNodes: -(x * x) of an input, with stream-ordered allocations
   (cudaMallocAsync / cudaFreeAsync) across two streams, captured into a
   graph, and built node by node with memory nodes; then a graph that leaves
   its last allocation to the caller, who frees it with xrt_free, with
   xrt_free_async, and in another graph's free node. */
#define GN 3000
#define GT 128
typedef struct neg_squares {
    float *input, *square, *neg;
    size_t bytes;
    xrt_function sq, ng;
} neg_squares;

static void neg_squares_reset(neg_squares *h)
{
    int i;
    for (i = 0; i < GN; i++) h->square[i] = h->neg[i] = 12345.0f;
}

static void neg_squares_check(const neg_squares *h)
{
    int i;
    for (i = 0; i < GN; i++) {
        assert_float_equal(h->square[i], h->input[i] * h->input[i], 1e-6);
        assert_float_equal(h->neg[i], -(h->input[i] * h->input[i]), 1e-6);
    }
}

static void neg_squares_launch(xrt_function f, const float *in, float *out, xrt_stream s)
{
    map_args a;
    xrt_dim3 grid = {(GN + GT - 1) / GT, 1, 1}, block = {GT, 1, 1};
    a.in = in, a.out = out, a.n = GN;
    OK(xrt_check_annotate(in, GN * sizeof(float), XRT_CHECK_READ)); /* for XRT_CHECK=streams */
    OK(xrt_check_annotate(out, GN * sizeof(float), XRT_CHECK_WRITE));
    OK(xrt_launch_kernel(f, grid, block, 0, s, &a, sizeof a));
}

/* doNegateSquaresInStream, call for call; keep: the result is left allocated */
static void neg_squares_in_stream(xrt_stream s1, neg_squares *h, float **keep)
{
    float *d_input, *d_square, *d_neg;
    xrt_stream s2;
    xrt_event sq_done, neg_done, sq_freed;
    OK(xrt_stream_create_with_flags(&s2, XRT_STREAM_NON_BLOCKING));
    OK(xrt_event_create(&sq_done, XRT_EVENT_DEFAULT));
    OK(xrt_event_create(&neg_done, XRT_EVENT_DEFAULT));
    OK(xrt_event_create(&sq_freed, XRT_EVENT_DEFAULT));
    OK(xrt_malloc_async((void **)&d_input, h->bytes, s1));
    OK(xrt_malloc_async((void **)&d_square, h->bytes, s1));
    OK(xrt_memcpy_async(d_input, h->input, h->bytes, XRT_MEMCPY_HOST_TO_DEVICE, s1));
    neg_squares_launch(h->sq, d_input, d_square, s1);
    OK(xrt_event_record(sq_done, s1));
    OK(xrt_stream_wait_event(s2, sq_done));
    OK(xrt_memcpy_async(h->square, d_square, h->bytes, XRT_MEMCPY_DEVICE_TO_HOST, s2));
    OK(xrt_free_async(d_input, s1));
    OK(xrt_malloc_async((void **)&d_neg, h->bytes, s1));
    neg_squares_launch(h->ng, d_square, d_neg, s1);
    OK(xrt_event_record(neg_done, s1));
    OK(xrt_memcpy_async(h->neg, d_neg, h->bytes, XRT_MEMCPY_DEVICE_TO_HOST, s1));
    if (keep) *keep = d_neg;
    else OK(xrt_free_async(d_neg, s1));
    OK(xrt_stream_wait_event(s2, neg_done));
    OK(xrt_free_async(d_square, s2));
    OK(xrt_event_record(sq_freed, s2));
    OK(xrt_stream_wait_event(s1, sq_freed));
    OK(xrt_stream_destroy(s2)); /* in a capture too: s2 has been joined back */
    OK(xrt_event_destroy(sq_done));
    OK(xrt_event_destroy(neg_done));
    OK(xrt_event_destroy(sq_freed));
}

static xrt_graph_exec neg_squares_captured(neg_squares *h, float **keep)
{
    xrt_stream s;
    xrt_graph g;
    xrt_graph_exec x;
    OK(xrt_stream_create_with_flags(&s, XRT_STREAM_NON_BLOCKING));
    OK(xrt_stream_begin_capture(s, XRT_CAPTURE_MODE_GLOBAL));
    neg_squares_in_stream(s, h, keep);
    OK(xrt_stream_end_capture(s, &g));
    OK(xrt_graph_instantiate(&x, g));
    OK(xrt_stream_destroy(s));
    OK(xrt_graph_destroy(g));
    return x;
}

static xrt_graph_node add_kernel_node(xrt_graph g, const xrt_graph_node *deps, size_t n, xrt_function f,
                                      const float *in, float *out)
{
    xrt_graph_node node;
    xrt_kernel_node_params kp;
    map_args a;
    a.in = in, a.out = out, a.n = GN;
    memset(&kp, 0, sizeof kp);
    kp.function = f;
    kp.grid.x = (GN + GT - 1) / GT, kp.grid.y = kp.grid.z = 1;
    kp.block.x = GT, kp.block.y = kp.block.z = 1;
    kp.args = &a, kp.args_size = sizeof a;
    OK(xrt_graph_add_kernel_node(&node, g, deps, n, &kp));
    return node;
}

static xrt_graph_node add_mem_node(xrt_graph g, const xrt_graph_node *deps, size_t n, int alloc, float **ptr,
                                   size_t bytes)
{
    xrt_graph_node node;
    xrt_graph_node_params p;
    memset(&p, 0, sizeof p);
    if (alloc) {
        p.type = XRT_GRAPH_NODE_MEM_ALLOC;
        OK(xrt_get_device(&p.alloc.device));
        p.alloc.size = bytes;
    } else {
        p.type = XRT_GRAPH_NODE_MEM_FREE;
        p.mem_free.ptr = *ptr;
    }
    OK(xrt_graph_add_node(&node, g, deps, n, &p));
    if (alloc) *ptr = (float *)p.alloc.ptr;
    return node;
}

/* createNegateSquaresGraphExplicitly */
static xrt_graph_exec neg_squares_built(neg_squares *h, float **keep)
{
    xrt_graph g;
    xrt_graph_exec x;
    xrt_graph_node al_in, al_sq, al_neg, cp_in, cp_sq, cp_neg, k_sq, k_neg, fr_in, fr_sq, fr_neg, deps[2];
    float *d_input, *d_square, *d_neg;
    OK(xrt_graph_create(&g, 0));
    al_in = add_mem_node(g, NULL, 0, 1, &d_input, h->bytes);
    al_sq = add_mem_node(g, &al_in, 1, 1, &d_square, h->bytes);
    OK(xrt_graph_add_memcpy_node_1d(&cp_in, g, &al_sq, 1, d_input, h->input, h->bytes, XRT_MEMCPY_HOST_TO_DEVICE));
    k_sq = add_kernel_node(g, &cp_in, 1, h->sq, d_input, d_square);
    OK(xrt_graph_add_memcpy_node_1d(&cp_sq, g, &k_sq, 1, h->square, d_square, h->bytes, XRT_MEMCPY_DEVICE_TO_HOST));
    fr_in = add_mem_node(g, &k_sq, 1, 0, &d_input, 0);
    al_neg = add_mem_node(g, &fr_in, 1, 1, &d_neg, h->bytes);
    k_neg = add_kernel_node(g, &al_neg, 1, h->ng, d_square, d_neg);
    deps[0] = cp_sq, deps[1] = k_neg;
    fr_sq = add_mem_node(g, deps, 2, 0, &d_square, 0);
    OK(xrt_graph_add_memcpy_node_1d(&cp_neg, g, &k_neg, 1, h->neg, d_neg, h->bytes, XRT_MEMCPY_DEVICE_TO_HOST));
    if (keep) *keep = d_neg;
    else fr_neg = add_mem_node(g, &cp_neg, 1, 0, &d_neg, 0);
    (void)fr_sq, (void)fr_neg;
    OK(xrt_graph_instantiate(&x, g));
    OK(xrt_graph_destroy(g));
    return x;
}

/* createFreeGraph */
static xrt_graph_exec free_graph(float *d)
{
    xrt_graph g;
    xrt_graph_exec x;
    OK(xrt_graph_create(&g, 0));
    add_mem_node(g, NULL, 0, 0, &d, 0);
    OK(xrt_graph_instantiate(&x, g));
    OK(xrt_graph_destroy(g));
    return x;
}

static void test_graph_memory_nodes(void **state)
{
    xrt_module m;
    xrt_stream s;
    xrt_graph_exec x, kept, freer;
    neg_squares h;
    float *d_neg = NULL, *back;
    int i, pools = 0;
    (void)state;
    NEEDS_C_KERNELS();
    OK(xrt_device_get_attribute(&pools, XRT_DEVATTR_MEMORY_POOLS_SUPPORTED, 0));
    SKIP_UNLESS(pools, "no memory pools");
    m = load_samples();
    h.sq = function_of(m, "square_array");
    h.ng = function_of(m, "negate_array");
    h.bytes = GN * sizeof(float);
    h.input = (float *)malloc(h.bytes), h.square = (float *)malloc(h.bytes), h.neg = (float *)malloc(h.bytes);
    back = (float *)malloc(h.bytes);
    assert_true(h.input && h.square && h.neg && back);
    for (i = 0; i < GN; i++) h.input[i] = (float)(i % 97) / 97.0f;
    OK(xrt_stream_create_with_flags(&s, XRT_STREAM_NON_BLOCKING));
    /* in a stream */
    neg_squares_reset(&h);
    neg_squares_in_stream(s, &h, NULL);
    OK(xrt_stream_synchronize(s));
    neg_squares_check(&h);
    /* captured, launched twice */
    x = neg_squares_captured(&h, NULL);
    for (i = 0; i < 2; i++) {
        neg_squares_reset(&h);
        OK(xrt_graph_launch(x, s));
        OK(xrt_stream_synchronize(s));
        neg_squares_check(&h);
    }
    OK(xrt_graph_exec_destroy(x));
    /* built node by node, launched twice */
    x = neg_squares_built(&h, NULL);
    for (i = 0; i < 2; i++) {
        neg_squares_reset(&h);
        OK(xrt_graph_launch(x, s));
        OK(xrt_stream_synchronize(s));
        neg_squares_check(&h);
    }
    OK(xrt_graph_exec_destroy(x));
    /* the result left to the caller, read after the launch on the stream */
    for (i = 0; i < 2; i++) {
        kept = i ? neg_squares_captured(&h, &d_neg) : neg_squares_built(&h, &d_neg);
        neg_squares_reset(&h);
        OK(xrt_graph_launch(kept, s));
        OK(xrt_memcpy_async(back, d_neg, h.bytes, XRT_MEMCPY_DEVICE_TO_HOST, s));
        OK(xrt_stream_synchronize(s));
        neg_squares_check(&h);
        assert_memory_equal(back, h.neg, h.bytes);
        OK(xrt_free(d_neg)); /* freed outside the stream: cudaFree */
        neg_squares_reset(&h);
        OK(xrt_graph_launch(kept, s)); /* relaunched once its allocation is freed */
        OK(xrt_memcpy_async(back, d_neg, h.bytes, XRT_MEMCPY_DEVICE_TO_HOST, s));
        OK(xrt_free_async(d_neg, s)); /* freed outside the graph */
        OK(xrt_stream_synchronize(s));
        neg_squares_check(&h);
        assert_memory_equal(back, h.neg, h.bytes);
        freer = free_graph(d_neg); /* freed in another graph */
        neg_squares_reset(&h);
        OK(xrt_graph_launch(kept, s));
        OK(xrt_memcpy_async(back, d_neg, h.bytes, XRT_MEMCPY_DEVICE_TO_HOST, s));
        OK(xrt_graph_launch(freer, s));
        OK(xrt_stream_synchronize(s));
        neg_squares_check(&h);
        assert_memory_equal(back, h.neg, h.bytes);
        OK(xrt_graph_exec_destroy(kept));
        OK(xrt_graph_exec_destroy(freer));
    }
    OK(xrt_stream_destroy(s));
    free(h.input), free(h.square), free(h.neg), free(back);
    OK(xrt_module_unload(m));
}

/* simpleCudaGraphs: a sum reduced in two kernels, as a graph built node by
   node (a 3-D copy node from pinned memory, memset nodes of 4-byte elements
   over doubles, kernel nodes, a copy node to a pageable host double, a host
   node that reads and resets it) and as a capture forked over three
   streams; each graph cloned, the original and the clone launched in turn. */
#define RN 100000
#define RBLOCKS 64
#define RLAUNCHES 3
typedef struct reduce_run {
    double *result_h;
    double sums[2 * RLAUNCHES];
    int calls;
} reduce_run;

static void reduce_seen(void *user) /* myHostNodeCallback */
{
    reduce_run *r = (reduce_run *)user;
    r->sums[r->calls++] = *r->result_h;
    *r->result_h = 0.0;
}

typedef struct reduce_fx {
    xrt_module m;
    xrt_function reduce, final;
    float *in_h, *in_d;
    double *out_d, *result_d, want;
} reduce_fx;

static void reduce_fx_make(reduce_fx *f)
{
    int i;
    f->m = load_samples();
    f->reduce = function_of(f->m, "reduce");
    f->final = function_of(f->m, "reduce_final");
    OK(xrt_malloc_host((void **)&f->in_h, RN * sizeof(float)));
    OK(xrt_malloc((void **)&f->in_d, RN * sizeof(float)));
    OK(xrt_malloc((void **)&f->out_d, RBLOCKS * sizeof(double)));
    OK(xrt_malloc((void **)&f->result_d, sizeof(double)));
    for (i = 0, f->want = 0; i < RN; i++) f->in_h[i] = (float)(i % 7), f->want += (double)(i % 7);
}

static void reduce_fx_free(reduce_fx *f)
{
    OK(xrt_free(f->in_d));
    OK(xrt_free(f->out_d));
    OK(xrt_free(f->result_d));
    OK(xrt_free_host(f->in_h));
    OK(xrt_module_unload(f->m));
}

static void reduce_args_of(const reduce_fx *f, reduce_args *r, final_args *fa)
{
    r->in = f->in_d, r->out = f->out_d, r->n = RN, r->blocks = RBLOCKS;
    fa->in = f->out_d, fa->result = f->result_d, fa->n = RBLOCKS;
}

/* launches the graph and its clone RLAUNCHES times each; each launch's host node saw the sum */
static void reduce_launch_both(xrt_graph g, reduce_run *run, double want)
{
    xrt_graph clone;
    xrt_graph_exec x, cx;
    xrt_stream s;
    size_t nodes = 0;
    int i;
    OK(xrt_graph_get_nodes(g, NULL, &nodes));
    assert_int_equal(nodes, 7);
    OK(xrt_stream_create(&s));
    OK(xrt_graph_instantiate(&x, g));
    OK(xrt_graph_clone(&clone, g));
    OK(xrt_graph_instantiate(&cx, clone));
    for (i = 0; i < RLAUNCHES; i++) OK(xrt_graph_launch(x, s));
    OK(xrt_stream_synchronize(s));
    for (i = 0; i < RLAUNCHES; i++) OK(xrt_graph_launch(cx, s));
    OK(xrt_stream_synchronize(s));
    assert_int_equal(run->calls, 2 * RLAUNCHES);
    for (i = 0; i < 2 * RLAUNCHES; i++) assert_float_equal(run->sums[i], want, 1e-6);
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_exec_destroy(cx));
    OK(xrt_graph_destroy(g));
    OK(xrt_graph_destroy(clone));
    OK(xrt_stream_destroy(s));
}

static void test_cuda_graphs_manual(void **state)
{
    reduce_fx f;
    reduce_run run;
    double result_h = -1;
    xrt_graph g;
    xrt_graph_node copy_in, set_out, k1, set_result, k2, copy_out, host, deps[2];
    xrt_memcpy_3d_parms cp;
    xrt_memset_node_params ms;
    xrt_kernel_node_params kp;
    xrt_host_node_params hp;
    reduce_args ra;
    final_args fa;
    (void)state;
    NEEDS_C_KERNELS();
    reduce_fx_make(&f);
    memset(&run, 0, sizeof run);
    run.result_h = &result_h;
    reduce_args_of(&f, &ra, &fa);
    OK(xrt_graph_create(&g, 0));
    memset(&cp, 0, sizeof cp);
    cp.src_ptr = xrt_make_pitched_ptr(f.in_h, sizeof(float) * RN, RN, 1); /* xsize in elements, as the sample */
    cp.dst_ptr = xrt_make_pitched_ptr(f.in_d, sizeof(float) * RN, RN, 1);
    cp.extent = xrt_make_extent(sizeof(float) * RN, 1, 1);
    cp.kind = XRT_MEMCPY_HOST_TO_DEVICE;
    OK(xrt_graph_add_memcpy_node(&copy_in, g, NULL, 0, &cp));
    memset(&ms, 0, sizeof ms);
    ms.dst = f.out_d, ms.element_size = sizeof(float), ms.width = RBLOCKS * 2, ms.height = 1;
    OK(xrt_graph_add_memset_node(&set_out, g, NULL, 0, &ms));
    deps[0] = set_out, deps[1] = copy_in;
    memset(&kp, 0, sizeof kp);
    kp.function = f.reduce, kp.grid.x = RBLOCKS, kp.block.x = 1, kp.grid.y = kp.grid.z = kp.block.y = kp.block.z = 1;
    kp.args = &ra, kp.args_size = sizeof ra;
    OK(xrt_graph_add_kernel_node(&k1, g, deps, 2, &kp));
    memset(&ms, 0, sizeof ms);
    ms.dst = f.result_d, ms.element_size = sizeof(float), ms.width = 2, ms.height = 1;
    OK(xrt_graph_add_memset_node(&set_result, g, NULL, 0, &ms));
    deps[0] = k1, deps[1] = set_result;
    kp.function = f.final, kp.grid.x = 1, kp.args = &fa, kp.args_size = sizeof fa;
    OK(xrt_graph_add_kernel_node(&k2, g, deps, 2, &kp));
    memset(&cp, 0, sizeof cp);
    cp.src_ptr = xrt_make_pitched_ptr(f.result_d, sizeof(double), 1, 1);
    cp.dst_ptr = xrt_make_pitched_ptr(&result_h, sizeof(double), 1, 1);
    cp.extent = xrt_make_extent(sizeof(double), 1, 1);
    cp.kind = XRT_MEMCPY_DEVICE_TO_HOST;
    OK(xrt_graph_add_memcpy_node(&copy_out, g, &k2, 1, &cp));
    hp.fn = reduce_seen, hp.user = &run;
    OK(xrt_graph_add_host_node(&host, g, &copy_out, 1, &hp));
    reduce_launch_both(g, &run, f.want);
    reduce_fx_free(&f);
}

static void test_cuda_graphs_captured(void **state)
{
    reduce_fx f;
    reduce_run run;
    double result_h = -1;
    xrt_stream s1, s2, s3;
    xrt_event fork, set1, set2;
    xrt_graph g;
    reduce_args ra;
    final_args fa;
    xrt_dim3 grid = {RBLOCKS, 1, 1}, one = {1, 1, 1};
    (void)state;
    NEEDS_C_KERNELS();
    reduce_fx_make(&f);
    memset(&run, 0, sizeof run);
    run.result_h = &result_h;
    reduce_args_of(&f, &ra, &fa);
    OK(xrt_stream_create(&s1));
    OK(xrt_stream_create(&s2));
    OK(xrt_stream_create(&s3));
    OK(xrt_event_create(&fork, XRT_EVENT_DEFAULT));
    OK(xrt_event_create(&set1, XRT_EVENT_DEFAULT));
    OK(xrt_event_create(&set2, XRT_EVENT_DEFAULT));
    OK(xrt_stream_begin_capture(s1, XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_event_record(fork, s1));
    OK(xrt_stream_wait_event(s2, fork));
    OK(xrt_stream_wait_event(s3, fork));
    OK(xrt_memcpy_async(f.in_d, f.in_h, sizeof(float) * RN, XRT_MEMCPY_DEFAULT, s1));
    OK(xrt_memset_async(f.out_d, 0, sizeof(double) * RBLOCKS, s2));
    OK(xrt_event_record(set1, s2));
    OK(xrt_memset_async(f.result_d, 0, sizeof(double), s3));
    OK(xrt_event_record(set2, s3));
    OK(xrt_stream_wait_event(s1, set1));
    OK(xrt_launch_kernel(f.reduce, grid, one, 0, s1, &ra, sizeof ra));
    OK(xrt_stream_wait_event(s1, set2));
    OK(xrt_launch_kernel(f.final, one, one, 0, s1, &fa, sizeof fa));
    OK(xrt_memcpy_async(&result_h, f.result_d, sizeof(double), XRT_MEMCPY_DEFAULT, s1)); /* to pageable memory */
    OK(xrt_launch_host_func(s1, reduce_seen, &run));
    OK(xrt_stream_end_capture(s1, &g));
    reduce_launch_both(g, &run, f.want);
    OK(xrt_event_destroy(fork));
    OK(xrt_event_destroy(set1));
    OK(xrt_event_destroy(set2));
    OK(xrt_stream_destroy(s1));
    OK(xrt_stream_destroy(s2));
    OK(xrt_stream_destroy(s3));
    reduce_fx_free(&f);
}

/* jacobiCudaGraphs: Jacobi sweeps until they converge, as a graph built
   once whose kernel node's arguments the loop swaps in the exec
   (cudaGraphExecKernelNodeSetParams), and as a graph captured again each
   sweep and updated into the exec (cudaGraphExecUpdate). Each sweep's
   residual goes to a pageable host double. As the sample, the exec of the
   first is still alive when the residual's device memory is freed, and a
   final residual is computed on the stream after the graph. */
#define JN 48
typedef struct jacobi_fx {
    xrt_module m;
    xrt_function k;
    float *a;
    double *b, *x, *x_new, *d_sum;
    xrt_stream s;
} jacobi_fx;

static void jacobi_fx_make(jacobi_fx *f)
{
    float a[JN * JN];
    double b[JN];
    int i, k;
    for (i = 0; i < JN; i++) {
        for (k = 0; k < JN; k++) a[i * JN + k] = i == k ? (float)(4 * JN) : (float)((i + k) % 3);
        b[i] = (double)(i % 5 + 1);
    }
    f->m = load_samples();
    f->k = function_of(f->m, "jacobi");
    OK(xrt_malloc((void **)&f->a, sizeof a));
    OK(xrt_malloc((void **)&f->b, sizeof b));
    OK(xrt_malloc((void **)&f->x, sizeof b));
    OK(xrt_malloc((void **)&f->x_new, sizeof b));
    OK(xrt_malloc((void **)&f->d_sum, sizeof(double)));
    OK(xrt_stream_create_with_flags(&f->s, XRT_STREAM_NON_BLOCKING));
    /* on the stream: a non-blocking stream is not ordered after the NULL stream's xrt_memset */
    OK(xrt_memcpy_async(f->a, a, sizeof a, XRT_MEMCPY_HOST_TO_DEVICE, f->s));
    OK(xrt_memcpy_async(f->b, b, sizeof b, XRT_MEMCPY_HOST_TO_DEVICE, f->s));
    OK(xrt_memset_async(f->x, 0, sizeof b, f->s));
    OK(xrt_memset_async(f->x_new, 0, sizeof b, f->s));
    OK(xrt_stream_synchronize(f->s));
}

/* the solution checked on the host, then everything freed but d_sum */
static void jacobi_fx_check_free(jacobi_fx *f, int sweeps)
{
    float a[JN * JN];
    double b[JN], x[JN];
    int i, k;
    const double *last = sweeps & 1 ? f->x_new : f->x;
    OK(xrt_memcpy(a, f->a, sizeof a, XRT_MEMCPY_DEVICE_TO_HOST));
    OK(xrt_memcpy(b, f->b, sizeof b, XRT_MEMCPY_DEVICE_TO_HOST));
    OK(xrt_memcpy(x, last, sizeof x, XRT_MEMCPY_DEVICE_TO_HOST));
    for (i = 0; i < JN; i++) {
        double r = 0;
        for (k = 0; k < JN; k++) r += a[i * JN + k] * x[k];
        assert_float_equal(r, b[i], 1e-6);
    }
    OK(xrt_free(f->a));
    OK(xrt_free(f->b));
    OK(xrt_free(f->x));
    OK(xrt_free(f->x_new));
    OK(xrt_stream_destroy(f->s));
    OK(xrt_module_unload(f->m));
}

static void jacobi_args_of(const jacobi_fx *f, int k, jacobi_args *j)
{
    j->a = f->a, j->b = f->b, j->sum = f->d_sum, j->n = JN;
    j->x = k & 1 ? f->x_new : f->x;
    j->x_new = k & 1 ? f->x : f->x_new;
}

/* finalError's place: the residual of the last sweep again, on the stream */
static double jacobi_final(jacobi_fx *f, int k)
{
    double sum = -1;
    jacobi_args j;
    xrt_dim3 one = {1, 1, 1};
    jacobi_args_of(f, k, &j);
    OK(xrt_memset_async(f->d_sum, 0, sizeof(double), f->s));
    OK(xrt_launch_kernel(f->k, one, one, 0, f->s, &j, sizeof j));
    OK(xrt_memcpy_async(&sum, f->d_sum, sizeof(double), XRT_MEMCPY_DEVICE_TO_HOST, f->s));
    OK(xrt_stream_synchronize(f->s));
    return sum;
}

#define JACOBI_THRESHOLD 1e-9
#define JACOBI_MAX 200
static void test_jacobi_exec_kernel_set_params(void **state)
{
    jacobi_fx f;
    xrt_graph g;
    xrt_graph_exec x;
    xrt_graph_node set, kern, copy;
    xrt_memset_node_params ms;
    xrt_memcpy_3d_parms cp;
    xrt_graph_node_params kp;
    jacobi_args j[2];
    double sum = -1;
    int k;
    (void)state;
    NEEDS_C_KERNELS();
    jacobi_fx_make(&f);
    memset(&ms, 0, sizeof ms);
    ms.dst = f.d_sum, ms.element_size = sizeof(float), ms.width = 2, ms.height = 1;
    OK(xrt_graph_create(&g, 0));
    OK(xrt_graph_add_memset_node(&set, g, NULL, 0, &ms));
    jacobi_args_of(&f, 0, &j[0]);
    jacobi_args_of(&f, 1, &j[1]);
    memset(&kp, 0, sizeof kp);
    kp.type = XRT_GRAPH_NODE_KERNEL;
    kp.kernel.function = f.k;
    kp.kernel.grid.x = kp.kernel.grid.y = kp.kernel.grid.z = 1;
    kp.kernel.block = kp.kernel.grid;
    kp.kernel.args = &j[0], kp.kernel.args_size = sizeof j[0];
    OK(xrt_graph_add_kernel_node(&kern, g, &set, 1, &kp.kernel));
    memset(&cp, 0, sizeof cp);
    cp.src_ptr = xrt_make_pitched_ptr(f.d_sum, sizeof(double), 1, 1);
    cp.dst_ptr = xrt_make_pitched_ptr(&sum, sizeof(double), 1, 1);
    cp.extent = xrt_make_extent(sizeof(double), 1, 1);
    cp.kind = XRT_MEMCPY_DEVICE_TO_HOST;
    OK(xrt_graph_add_memcpy_node(&copy, g, &kern, 1, &cp));
    OK(xrt_graph_instantiate(&x, g));
    for (k = 0; k < JACOBI_MAX; k++) {
        kp.kernel.args = &j[k & 1];
        OK(xrt_graph_exec_node_set_params(x, kern, &kp));
        OK(xrt_graph_launch(x, f.s));
        OK(xrt_stream_synchronize(f.s));
        if (sum <= JACOBI_THRESHOLD) break;
    }
    assert_true(k < JACOBI_MAX);
    assert_true(jacobi_final(&f, k + 1) <= JACOBI_THRESHOLD);
    OK(xrt_free(f.d_sum)); /* the exec still names it: it is not launched again */
    jacobi_fx_check_free(&f, k + 1);
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
}

static void test_jacobi_exec_update(void **state)
{
    jacobi_fx f;
    xrt_graph g;
    xrt_graph_exec x = NULL;
    xrt_graph_exec_update_result r;
    jacobi_args j;
    xrt_dim3 one = {1, 1, 1};
    double sum = -1;
    int k;
    (void)state;
    NEEDS_C_KERNELS();
    jacobi_fx_make(&f);
    for (k = 0; k < JACOBI_MAX; k++) {
        jacobi_args_of(&f, k, &j);
        OK(xrt_stream_begin_capture(f.s, XRT_CAPTURE_MODE_GLOBAL));
        OK(xrt_memset_async(f.d_sum, 0, sizeof(double), f.s));
        OK(xrt_launch_kernel(f.k, one, one, 0, f.s, &j, sizeof j));
        OK(xrt_memcpy_async(&sum, f.d_sum, sizeof(double), XRT_MEMCPY_DEVICE_TO_HOST, f.s));
        OK(xrt_stream_end_capture(f.s, &g));
        if (!x) {
            OK(xrt_graph_instantiate(&x, g));
        } else {
            memset(&r, 0xff, sizeof r);
            OK(xrt_graph_exec_update_with_result(x, g, &r));
            assert_int_equal(r.result, XRT_GRAPH_EXEC_UPDATE_SUCCESS);
        }
        OK(xrt_graph_destroy(g));
        OK(xrt_graph_launch(x, f.s));
        OK(xrt_stream_synchronize(f.s));
        if (sum <= JACOBI_THRESHOLD) break;
    }
    assert_true(k < JACOBI_MAX);
    assert_true(jacobi_final(&f, k + 1) <= JACOBI_THRESHOLD);
    OK(xrt_free(f.d_sum));
    jacobi_fx_check_free(&f, k + 1);
    OK(xrt_graph_exec_destroy(x));
}

/* findCudaDevice with no device asked for (helper_cuda.h's
   gpuGetMaxGflopsDeviceId), which most samples start with: every device's
   compute mode, compute capability, multiprocessor count and clock rate,
   the fastest device not prohibited picked and made current. Needs no
   kernels: it runs on every backend. */
static void test_find_cuda_device(void **state)
{
    int count = 0, d, best = -1, got = -1;
    uint64_t best_perf = 0;
    (void)state;
    OK(xrt_get_device_count(&count));
    assert_true(count > 0);
    for (d = 0; d < count; d++) {
        int mode = -1, major = -1, minor = -1, sms = 0, clock = 0;
        uint64_t perf;
        OK(xrt_device_get_attribute(&mode, XRT_DEVATTR_COMPUTE_MODE, d));
        OK(xrt_device_get_attribute(&major, XRT_DEVATTR_COMPUTE_CAPABILITY_MAJOR, d));
        OK(xrt_device_get_attribute(&minor, XRT_DEVATTR_COMPUTE_CAPABILITY_MINOR, d));
        assert_true(major >= 0 && minor >= 0);
        if (mode == XRT_COMPUTE_MODE_PROHIBITED) continue;
        OK(xrt_device_get_attribute(&sms, XRT_DEVATTR_MULTIPROCESSOR_COUNT, d));
        OK(xrt_device_get_attribute(&clock, XRT_DEVATTR_CLOCK_RATE, d));
        perf = (uint64_t)sms * (uint64_t)(clock > 0 ? clock : 1); /* the CPU may not know its clock */
        if (best < 0 || perf > best_perf) best = d, best_perf = perf;
    }
    assert_true(best >= 0); /* no device is prohibited */
    OK(xrt_set_device(best));
    OK(xrt_get_device(&got));
    assert_int_equal(got, best);
    OK(xrt_set_device(0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_simple_multi_copy),
        cmocka_unit_test(test_simple_callback),
        cmocka_unit_test(test_constant_table),
        cmocka_unit_test(test_occupancy_sized_launch),
        cmocka_unit_test(test_graph_memory_nodes),
        cmocka_unit_test(test_cuda_graphs_manual),
        cmocka_unit_test(test_cuda_graphs_captured),
        cmocka_unit_test(test_jacobi_exec_kernel_set_params),
        cmocka_unit_test(test_jacobi_exec_update),
        cmocka_unit_test(test_find_cuda_device),
    };
    return xrt_test_run_on_backends("CUDA samples", tests, sizeof tests / sizeof tests[0], NULL);
}
