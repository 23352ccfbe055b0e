/* SPDX-License-Identifier: MIT */
/* Four patterns of the public CUDA samples, their host code written as the
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
     multiprocessor count.
   Each runs on every backend that loads modules and has C kernels (the CPU);
   elsewhere it says why it skips. */
#define XRT_IMPL
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
    "}\n";

typedef struct { unsigned char *m; unsigned long pitch; unsigned w; } inc_args;
typedef struct { const float *x; float *y; unsigned n; } poly_args;
typedef struct { int *d; unsigned n; } sq_args;

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
    SKIP_UNLESS(strcmp(xrt_test_backend, "cpu") == 0, "the samples' kernels are C, for the CPU backend")

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_simple_multi_copy),
        cmocka_unit_test(test_simple_callback),
        cmocka_unit_test(test_constant_table),
        cmocka_unit_test(test_occupancy_sized_launch),
    };
    return xrt_test_run_on_backends("CUDA samples", tests, sizeof tests / sizeof tests[0], NULL);
}
