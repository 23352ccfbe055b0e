/* SPDX-License-Identifier: MIT */
/* Kernels on the CPU backend, each against a baseline measured in the same
   run: SAXPY and a 2D 5-point stencil over 64 MiB arrays through
   xrt_launch_kernel against the same loop under OpenMP (gcc -fopenmp, the
   same -O2; both use every usable core); an empty kernel's launch +
   synchronize against the stream's round trip (a no-op host function +
   synchronize); SAXPY cut into blocks on one thread without xrt against the
   whole loop (what the kernel ABI's per-block call costs, for the reading
   of the first row); and xrt_module_load from the kernel cache against a
   compile. The kernels are built by xrt from C source with XRT_CC. */
#define XRT_IMPL
#include "xrt.h"
#include "bench/bench.h"

#include <omp.h>

#define CHECK(call) BENCH_CHECK(call)

static const char src[] =
    "typedef struct { unsigned x, y, z; } dim3;\n"
    "typedef struct { dim3 grid_dim, block_dim, block_idx; void *shared; unsigned long shared_bytes; } ctx_t;\n"
    "typedef struct { float a; const float *x; float *y; unsigned long n; } saxpy_args;\n"
    "void saxpy(const ctx_t *c, void *p) {\n"
    "  const saxpy_args *a = (const saxpy_args *)p;\n"
    "  unsigned long i = (unsigned long)c->block_idx.x * c->block_dim.x, end = i + c->block_dim.x;\n"
    "  const float *x = a->x; float *y = a->y; float k = a->a;\n"
    "  if (end > a->n) end = a->n;\n"
    "  for (; i < end; i++) y[i] = k * x[i] + y[i];\n"
    "}\n"
    "typedef struct { const float *in; float *out; unsigned w, h; } stencil_args;\n"
    "void stencil(const ctx_t *c, void *p) {\n" /* block: a run of block_dim.x columns of row block_idx.y */
    "  const stencil_args *a = (const stencil_args *)p;\n"
    "  unsigned y = c->block_idx.y, x0 = c->block_idx.x * c->block_dim.x, x1 = x0 + c->block_dim.x, w = a->w;\n"
    "  const float *in = a->in; float *out = a->out;\n"
    "  if (y == 0 || y + 1 >= a->h) return;\n"
    "  if (x0 == 0) x0 = 1;\n"
    "  if (x1 > w - 1) x1 = w - 1;\n"
    "  for (unsigned x = x0; x < x1; x++)\n"
    "    out[(unsigned long)y * w + x] = 0.25f * (in[(unsigned long)(y - 1) * w + x] + in[(unsigned long)(y + 1) * w + x] +\n"
    "                                             in[(unsigned long)y * w + x - 1] + in[(unsigned long)y * w + x + 1]);\n"
    "}\n"
    "void empty(const ctx_t *c, void *p) { (void)c; (void)p; }\n";

typedef struct { float a; const float *x; float *y; unsigned long n; } saxpy_args;
typedef struct { const float *in; float *out; unsigned w, h; } stencil_args;

enum { N = 16 << 20, W = 4096, H = 4096, BLOCK = 1024 }; /* 64 MiB per array */

static struct {
    xrt_function saxpy, stencil, empty;
    xrt_stream s;
    float *x, *y, *in, *out;
} b;

static void nop(void *user) { (void)user; }

static void omp_saxpy(void *ctx, long iters)
{
    long r, i;
    (void)ctx;
    for (r = 0; r < iters; r++) {
#pragma omp parallel for schedule(static)
        for (i = 0; i < N; i++) b.y[i] = 2.0f * b.x[i] + b.y[i];
    }
}

static void xrt_saxpy(void *ctx, long iters)
{
    saxpy_args a = {2.0f, NULL, NULL, N};
    xrt_dim3 grid = {N / BLOCK, 1, 1}, block = {BLOCK, 1, 1};
    long r;
    (void)ctx;
    a.x = b.x, a.y = b.y;
    for (r = 0; r < iters; r++) CHECK(xrt_launch_kernel(b.saxpy, grid, block, 0, b.s, &a, sizeof a));
    CHECK(xrt_stream_synchronize(b.s));
}

static void omp_stencil(void *ctx, long iters)
{
    long r;
    int y;
    (void)ctx;
    for (r = 0; r < iters; r++) {
#pragma omp parallel for schedule(static)
        for (y = 1; y < H - 1; y++) {
            unsigned x;
            for (x = 1; x < W - 1; x++)
                b.out[(size_t)y * W + x] = 0.25f * (b.in[(size_t)(y - 1) * W + x] + b.in[(size_t)(y + 1) * W + x] +
                                                    b.in[(size_t)y * W + x - 1] + b.in[(size_t)y * W + x + 1]);
        }
    }
}

static void xrt_stencil(void *ctx, long iters)
{
    stencil_args a = {NULL, NULL, W, H};
    xrt_dim3 grid = {W / BLOCK, H, 1}, block = {BLOCK, 1, 1};
    long r;
    (void)ctx;
    a.in = b.in, a.out = b.out;
    for (r = 0; r < iters; r++) CHECK(xrt_launch_kernel(b.stencil, grid, block, 0, b.s, &a, sizeof a));
    CHECK(xrt_stream_synchronize(b.s));
}

/* One thread, no xrt: the SAXPY loop whole, against the same loop called
   once per block of BLOCK elements through a function pointer, as xrt's CPU
   backend calls a kernel. What a kernel pays for being cut into blocks: the
   memory pipeline drains at the end of each block's loop. */
typedef struct { float a; const float *x; float *y; size_t begin, end; } block_args;

static void saxpy_block(const block_args *a)
{
    size_t i;
    for (i = a->begin; i < a->end; i++) a->y[i] = a->a * a->x[i] + a->y[i];
}

static void (*volatile saxpy_block_fn)(const block_args *) = saxpy_block;

static void one_loop(void *ctx, long iters)
{
    block_args a = {2.0f, NULL, NULL, 0, N};
    long r;
    (void)ctx;
    a.x = b.x, a.y = b.y;
    for (r = 0; r < iters; r++) saxpy_block_fn(&a);
}

static void per_block(void *ctx, long iters)
{
    block_args a = {2.0f, NULL, NULL, 0, 0};
    long r;
    (void)ctx;
    a.x = b.x, a.y = b.y;
    for (r = 0; r < iters; r++)
        for (a.begin = 0; a.begin < N; a.begin += BLOCK) {
            a.end = a.begin + BLOCK;
            saxpy_block_fn(&a);
        }
}

static void roundtrip(void *ctx, long iters)
{
    long r;
    (void)ctx;
    for (r = 0; r < iters; r++) {
        CHECK(xrt_launch_host_func(b.s, nop, NULL));
        CHECK(xrt_stream_synchronize(b.s));
    }
}

static void empty_launch(void *ctx, long iters)
{
    xrt_dim3 one = {1, 1, 1};
    long r;
    (void)ctx;
    for (r = 0; r < iters; r++) {
        CHECK(xrt_launch_kernel(b.empty, one, one, 0, b.s, NULL, 0));
        CHECK(xrt_stream_synchronize(b.s));
    }
}

/* The same launch through xrt_launch_kernel_ex with two attributes (a
   priority and programmatic stream serialisation, as a PDL launch gives). */
static void empty_launch_ex(void *ctx, long iters)
{
    xrt_launch_attribute a[2];
    xrt_launch_config c;
    long r;
    (void)ctx;
    memset(a, 0, sizeof a);
    a[0].id = XRT_LAUNCH_ATTR_PRIORITY;
    a[1].id = XRT_LAUNCH_ATTR_PROGRAMMATIC_STREAM_SERIALIZATION, a[1].val.programmatic_stream_serialization_allowed = 1;
    memset(&c, 0, sizeof c);
    c.grid.x = c.grid.y = c.grid.z = c.block.x = c.block.y = c.block.z = 1;
    c.stream = b.s, c.attrs = a, c.num_attrs = 2;
    for (r = 0; r < iters; r++) {
        CHECK(xrt_launch_kernel_ex(&c, b.empty, NULL, 0));
        CHECK(xrt_stream_synchronize(b.s));
    }
}

static void report(const char *what, double base_ns, double test_ns, double target, int higher)
{
    char t1[32], t2[32], v[64];
    double ratio = higher ? base_ns / test_ns : test_ns / base_ns;
    printf("  %-34s %10s  baseline %10s  %.2fx  %s\n", what, bench_fmt_ns(t1, sizeof t1, test_ns),
           bench_fmt_ns(t2, sizeof t2, base_ns), ratio, bench_target(v, sizeof v, ratio, target, higher, "x", "CPU kernels: %s", what));
}

/* Loads (and unloads) the small module `s`; nanoseconds. */
static double load_ns(const char *s, const char *options)
{
    xrt_module_image im = {XRT_IMAGE_CPU_C_SOURCE, NULL, 0, NULL};
    xrt_module m;
    double t0;
    im.data = s, im.size = strlen(s);
    t0 = bench_now_ns();
    CHECK(xrt_module_load(&m, &im, 1, options));
    t0 = bench_now_ns() - t0;
    CHECK(xrt_module_unload(m));
    return t0;
}

static void cache_bench(void)
{
    static const char small[] = "void k(const void *c, void *p) { (void)c; (void)p; }\n";
    char dir[] = "/tmp/xrt-bench-cache-XXXXXX", cmd[128], opt[32], t1[32], t2[32], v[64];
    double hit[BENCH_REPS], miss[3];
    int i;
    if (!mkdtemp(dir)) return;
    setenv("XRT_CACHE_DIR", dir, 1);
    for (i = 0; i < 3; i++) { /* each a new key: a compile */
        snprintf(opt, sizeof opt, "-DBENCH_MISS=%d", i);
        miss[i] = load_ns(small, opt);
    }
    for (i = 0; i < BENCH_REPS; i++) hit[i] = load_ns(small, "-DBENCH_MISS=0");
    printf("  %-34s %10s  compile  %10s  %s\n", "module load, cache hit", bench_fmt_ns(t1, sizeof t1, bench_median(hit, BENCH_REPS)),
           bench_fmt_ns(t2, sizeof t2, bench_median(miss, 3)),
           bench_target(v, sizeof v, bench_median(hit, BENCH_REPS) / 1e6, 2, 0, " ms", "CPU kernels: module load, cache hit"));
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
    unsetenv("XRT_CACHE_DIR");
}

int main(void)
{
    xrt_module_image im = {XRT_IMAGE_CPU_C_SOURCE, src, sizeof src - 1, NULL};
    xrt_module m;
    double base, test;
    size_t i;
    char dir[] = "/tmp/xrt-bench-kernels-XXXXXX", cmd[128], t1[32], t2[32];
    bench_load_start(NULL);
    CHECK(xrt_set_backend("cpu"));
    if (!mkdtemp(dir)) return 1;
    setenv("XRT_CACHE_DIR", dir, 1);
    CHECK(xrt_module_load(&m, &im, 1, NULL));
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
    unsetenv("XRT_CACHE_DIR");
    CHECK(xrt_module_get_function(&b.saxpy, m, "saxpy"));
    CHECK(xrt_module_get_function(&b.stencil, m, "stencil"));
    CHECK(xrt_module_get_function(&b.empty, m, "empty"));
    CHECK(xrt_stream_create(&b.s));
    CHECK(xrt_malloc((void **)&b.x, N * sizeof(float)));
    CHECK(xrt_malloc((void **)&b.y, N * sizeof(float)));
    CHECK(xrt_malloc((void **)&b.in, (size_t)W * H * sizeof(float)));
    CHECK(xrt_malloc((void **)&b.out, (size_t)W * H * sizeof(float)));
    for (i = 0; i < N; i++) b.x[i] = (float)(i & 1023), b.y[i] = 1.0f; /* first touch on this thread for both */
    for (i = 0; i < (size_t)W * H; i++) b.in[i] = (float)(i % 977), b.out[i] = 0;
    printf("kernels on the CPU backend: %d OpenMP threads\n", omp_get_max_threads());
    bench_gap_us = 50000; /* libgomp's team spins ~300,000 pauses (7 ms here) after a parallel region */
    bench_pair(omp_saxpy, xrt_saxpy, NULL, 3, BENCH_REPS, &base, &test);
    report("SAXPY 64 MiB (vs OpenMP)", base, test, 0.9, 1);
    bench_pair(omp_stencil, xrt_stencil, NULL, 3, BENCH_REPS, &base, &test);
    report("2D stencil 4096^2 (vs OpenMP)", base, test, 0.9, 1);
    bench_gap_us = 0;
    bench_pair(one_loop, per_block, NULL, 3, BENCH_REPS, &base, &test);
    printf("  %-34s %10s  one loop %10s  %.2fx  (no target: what blocks cost)\n", "SAXPY per block, 1 thread, no xrt",
           bench_fmt_ns(t1, sizeof t1, test), bench_fmt_ns(t2, sizeof t2, base), base / test);
    bench_pair(roundtrip, empty_launch, NULL, 2000, BENCH_REPS, &base, &test);
    report("empty kernel launch + sync", base, test, 2.0, 0);
    bench_pair(empty_launch, empty_launch_ex, NULL, 2000, BENCH_REPS, &base, &test);
    report("launch_kernel_ex (2 attributes) + sync", base, test, 1.35, 0);
    cache_bench();
    bench_load_report();
    xrt_free(b.x), xrt_free(b.y), xrt_free(b.in), xrt_free(b.out);
    xrt_stream_destroy(b.s);
    xrt_module_unload(m);
    return 0;
}
