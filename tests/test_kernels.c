/* SPDX-License-Identifier: MIT */
/* Modules and kernels on every enabled and available backend: loading,
   launch shapes and limits, packed arguments, shared memory, ordering with
   copies, events and host functions, threads, unloading with launches
   queued, bad images, compile errors, fork; and the kernel cache (hits,
   misses, a corrupt entry, eviction, two processes). Backends without
   modules (XRT_CAP_MODULES) say "skipped". The cache is a private directory
   per run (XRT_CACHE_DIR). */
#define XRT_IMPL /* white-box: the CPU backend's module loader */
#include "xrt_test.h"

#include <dirent.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>

/* The kernel ABI, as a kernel file spells it (it could include xrt.h). */
#define PRELUDE                                                                                   \
    "typedef struct { unsigned x, y, z; } dim3;\n"                                                \
    "typedef struct { dim3 grid_dim, block_dim, block_idx; void *shared; unsigned long shared_bytes; } ctx_t;\n"

static const char kernels_src[] = PRELUDE
    "typedef struct { float a; const float *x; float *y; unsigned n; } saxpy_args;\n"
    "void saxpy(const ctx_t *c, void *p) {\n"
    "  saxpy_args *a = (saxpy_args *)p;\n"
    "  for (unsigned t = 0; t < c->block_dim.x; t++) {\n"
    "    unsigned i = c->block_idx.x * c->block_dim.x + t;\n"
    "    if (i < a->n) a->y[i] = a->a * a->x[i] + a->y[i];\n"
    "  }\n"
    "}\n"
    "typedef struct { unsigned *out; } ids_args;\n"
    "void ids(const ctx_t *c, void *p) {\n" /* one word per thread: its block and thread ids */
    "  ids_args *a = (ids_args *)p;\n"
    "  const dim3 g = c->grid_dim, b = c->block_dim, k = c->block_idx;\n"
    "  unsigned long block = ((unsigned long)k.z * g.y + k.y) * g.x + k.x;\n"
    "  for (unsigned z = 0; z < b.z; z++) for (unsigned y = 0; y < b.y; y++) for (unsigned x = 0; x < b.x; x++)\n"
    "    a->out[block * b.x * b.y * b.z + (z * b.y + y) * b.x + x] = k.x | k.y << 8 | k.z << 16 | (x + y + z) << 24;\n"
    "}\n"
    "typedef struct { char c; double d; short s; long long ll; float f[3]; unsigned char tail; } mixed;\n"
    "typedef struct { mixed m; double *out; } mixed_args;\n"
    "void args_mixed(const ctx_t *c, void *p) {\n"
    "  mixed_args *a = (mixed_args *)p; (void)c;\n"
    "  a->out[0] = a->m.c; a->out[1] = a->m.d; a->out[2] = a->m.s; a->out[3] = (double)a->m.ll;\n"
    "  a->out[4] = a->m.f[0] + a->m.f[1] + a->m.f[2]; a->out[5] = a->m.tail;\n"
    "}\n"
    "#include <stddef.h>\n"
    "const struct { unsigned long offset, size; } args_mixed_xrt_params[] = {\n" /* xrt_kernel_param's layout */
    "  {offsetof(mixed, c), 1}, {offsetof(mixed, d), 8}, {offsetof(mixed, s), 2}, {offsetof(mixed, ll), 8},\n"
    "  {offsetof(mixed, f), 12}, {offsetof(mixed, tail), 1}, {offsetof(mixed_args, out), 8}, {0, 0}};\n"
    "void args_big(const ctx_t *c, void *p) {\n" /* a pointer, then bytes up to the end of the buffer */
    "  unsigned char **out = (unsigned char **)p; unsigned char *b = (unsigned char *)p; (void)c;\n"
    "  for (unsigned i = 8; i < 4096; i++) (*out)[i] = b[i];\n"
    "}\n"
    "typedef struct { unsigned *out; } shared_args;\n"
    "void shared_sum(const ctx_t *c, void *p) {\n" /* fills the block's shared memory, sums it */
    "  shared_args *a = (shared_args *)p; unsigned *s = (unsigned *)c->shared, n = (unsigned)(c->shared_bytes / 4), sum = 0;\n"
    "  for (unsigned i = 0; i < n; i++) s[i] = c->block_idx.x + i;\n"
    "  for (unsigned i = 0; i < n; i++) sum += s[i];\n"
    "  a->out[c->block_idx.x] = sum;\n"
    "}\n"
    "typedef struct { unsigned *v; unsigned n; unsigned add; } inc_args;\n"
    "void inc(const ctx_t *c, void *p) {\n"
    "  inc_args *a = (inc_args *)p;\n"
    "  for (unsigned t = 0; t < c->block_dim.x; t++) {\n"
    "    unsigned i = c->block_idx.x * c->block_dim.x + t;\n"
    "    if (i < a->n) a->v[i] = a->v[i] * 2 + a->add;\n"
    "  }\n"
    "}\n"
    "typedef struct { unsigned *out; unsigned i; } chain_args;\n"
    "void chain(const ctx_t *c, void *p) {\n" /* out[i] = out[i - 1] + 1: each launch sees the one before */
    "  chain_args *a = (chain_args *)p; (void)c;\n"
    "  a->out[a->i] = a->i ? a->out[a->i - 1] + 1 : 1;\n"
    "}\n"
    "void empty(const ctx_t *c, void *p) { (void)c; (void)p; }\n";

typedef struct { float a; const float *x; float *y; unsigned n; } saxpy_args;
typedef struct { unsigned *out; } ptr_args;
typedef struct { char c; double d; short s; long long ll; float f[3]; unsigned char tail; } mixed;
typedef struct { mixed m; double *out; } mixed_args;
typedef struct { unsigned *v; unsigned n; unsigned add; } inc_args;
typedef struct { unsigned *out; unsigned i; } chain_args;

static char cache_dir[256];

static xrt_module_image source_image(const char *src)
{
    xrt_module_image im;
    im.kind = XRT_IMAGE_CPU_C_SOURCE;
    im.data = src;
    im.size = strlen(src);
    im.arch = NULL;
    return im;
}

/* Skips a backend without modules; loads the kernels otherwise. */
static xrt_module load_kernels(void)
{
    xrt_module m = NULL;
    xrt_module_image im = source_image(kernels_src);
    SKIP_UNLESS(caps() & XRT_CAP_MODULES, "the backend loads no modules (XRT_CAP_MODULES)");
    SKIP_UNLESS(on_cpu(),
                "these kernels are C for the CPU backend (a GPU launch: test_kernel_launch in test_suite)");
    OK(xrt_module_load(&m, &im, 1, NULL));
    return m;
}

static xrt_function get(xrt_module m, const char *name)
{
    xrt_function f = NULL;
    OK(xrt_module_get_function(&f, m, name));
    return f;
}

static xrt_dim3 d3(unsigned x, unsigned y, unsigned z)
{
    xrt_dim3 d;
    d.x = x, d.y = y, d.z = z;
    return d;
}

/* >> loading and launching */
static void test_saxpy(void **state)
{
    enum { n = 100000 };
    xrt_module m = load_kernels();
    xrt_function f = get(m, "saxpy"), again = NULL;
    float *x, *y;
    saxpy_args a;
    unsigned i;
    (void)state;
    OK(xrt_module_get_function(&again, m, "saxpy"));
    assert_ptr_equal(again, f); /* the same name, the same handle */
    OK(xrt_malloc((void **)&x, n * sizeof *x));
    OK(xrt_malloc((void **)&y, n * sizeof *y));
    for (i = 0; i < n; i++) x[i] = (float)i, y[i] = 1.0f;
    a.a = 2.0f, a.x = x, a.y = y, a.n = n;
    OK(xrt_launch_kernel(f, d3((n + 255) / 256, 1, 1), d3(256, 1, 1), 0, NULL, &a, sizeof a));
    OK(xrt_stream_synchronize(NULL));
    for (i = 0; i < n; i++)
        if (y[i] != 2.0f * (float)i + 1.0f) fail_msg("y[%u] = %g", i, (double)y[i]);
    OK(xrt_free(x));
    OK(xrt_free(y));
    OK(xrt_module_unload(m));
}

/* 1D, 2D and 3D grids and blocks: every thread of every block exactly once. */
static void test_shapes(void **state)
{
    static const unsigned shapes[][6] = {{7, 1, 1, 5, 1, 1}, {3, 4, 1, 2, 3, 1}, {2, 3, 4, 4, 2, 3}, {1, 1, 1, 1024, 1, 1},
                                         {65, 1, 2, 1, 1, 1}};
    xrt_module m = load_kernels();
    xrt_function f = get(m, "ids");
    size_t s;
    (void)state;
    for (s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const unsigned *v = shapes[s];
        size_t total = (size_t)v[0] * v[1] * v[2] * v[3] * v[4] * v[5], i;
        unsigned *out;
        ptr_args a;
        OK(xrt_malloc((void **)&out, total * sizeof *out));
        a.out = out;
        OK(xrt_launch_kernel(f, d3(v[0], v[1], v[2]), d3(v[3], v[4], v[5]), 0, NULL, &a, sizeof a));
        OK(xrt_device_synchronize());
        for (i = 0; i < total; i++) {
            size_t threads = (size_t)v[3] * v[4] * v[5], blk = i / threads, t = i % threads;
            unsigned bx = (unsigned)(blk % v[0]), by = (unsigned)(blk / v[0] % v[1]), bz = (unsigned)(blk / v[0] / v[1]);
            unsigned tx = (unsigned)(t % v[3]), ty = (unsigned)(t / v[3] % v[4]), tz = (unsigned)(t / v[3] / v[4]);
            unsigned want = bx | by << 8 | bz << 16 | (tx + ty + tz) << 24;
            if (out[i] != want) fail_msg("shape %zu: word %zu is 0x%x, expected 0x%x", s, i, out[i], want);
        }
        OK(xrt_free(out));
    }
    OK(xrt_module_unload(m));
}

static void test_bad_launches(void **state)
{
    xrt_module m = load_kernels();
    xrt_function f = get(m, "empty");
    xrt_function_attributes at;
    char args[XRT_MAX_KERNEL_ARGS + 1] = {0};
    (void)state;
    FAILS(xrt_launch_kernel(f, d3(0, 1, 1), d3(1, 1, 1), 0, NULL, NULL, 0), XRT_ERROR_INVALID_VALUE, "grid dimension of 0");
    FAILS(xrt_launch_kernel(f, d3(1, 1, 0), d3(1, 1, 1), 0, NULL, NULL, 0), XRT_ERROR_INVALID_VALUE, "grid dimension of 0");
    FAILS(xrt_launch_kernel(f, d3(1, 1, 1), d3(1, 0, 1), 0, NULL, NULL, 0), XRT_ERROR_INVALID_VALUE, "block dimension of 0");
    FAILS(xrt_launch_kernel(f, d3(1, 1, 1), d3(1, 1, 1), 0, NULL, NULL, 8), XRT_ERROR_INVALID_VALUE, "args is NULL");
    FAILS(xrt_launch_kernel(f, d3(1, 1, 1), d3(1, 1, 1), 0, NULL, args, sizeof args), XRT_ERROR_INVALID_VALUE,
          "XRT_MAX_KERNEL_ARGS");
    OK(xrt_function_get_attributes(&at, f));
    assert_true(at.max_threads_per_block >= 1);
    FAILS(xrt_launch_kernel(f, d3(1, 1, 1), d3((unsigned)at.max_threads_per_block + 1, 1, 1), 0, NULL, NULL, 0),
          XRT_ERROR_INVALID_VALUE, "threads");
    FAILS(xrt_launch_kernel(f, d3(1, 1, 1), d3(32, 32, 2), 0, NULL, NULL, 0), XRT_ERROR_INVALID_VALUE, "threads");
    FAILS(xrt_launch_kernel(f, d3(1, 65536, 1), d3(1, 1, 1), 0, NULL, NULL, 0), XRT_ERROR_INVALID_VALUE, "exceeds");
    FAILS(xrt_launch_kernel(f, d3(1, 1, 1), d3(1, 1, 1), at.max_dynamic_shared_bytes + 1, NULL, NULL, 0),
          XRT_ERROR_INVALID_VALUE, "shared memory");
    OK(xrt_launch_kernel(f, d3(1, 1, 1), d3(1, 1, 1), 0, NULL, args, XRT_MAX_KERNEL_ARGS));
    OK(xrt_device_synchronize());
    OK(xrt_module_unload(m));
}

/* A struct of mixed alignments, and a full 4 KiB buffer; the caller's buffer
   is overwritten right after each launch (the launch copied it). */
static void test_arguments(void **state)
{
    xrt_module m = load_kernels();
    xrt_function fm = get(m, "args_mixed"), fb = get(m, "args_big");
    static unsigned char big[XRT_MAX_KERNEL_ARGS], *out;
    mixed_args a;
    double *res;
    xrt_stream s;
    xrt_event e;
    size_t i;
    (void)state;
    OK(xrt_stream_create(&s));
    OK(xrt_event_create(&e, 0));
    OK(xrt_malloc((void **)&res, 6 * sizeof *res));
    OK(xrt_malloc((void **)&out, sizeof big));
    memset(&a, 0, sizeof a);
    a.m.c = 'x', a.m.d = 2.5, a.m.s = -7, a.m.ll = 1ll << 40, a.m.f[0] = 1, a.m.f[1] = 2, a.m.f[2] = 4, a.m.tail = 200;
    a.out = res;
    OK(xrt_launch_host_func(s, gate_wait, &gates[0])); /* the launches wait: their buffers must have been copied */
    OK(xrt_launch_kernel(fm, d3(1, 1, 1), d3(1, 1, 1), 0, s, &a, sizeof a));
    memset(&a, 0xff, sizeof a);
    memcpy(big, &out, sizeof out);
    for (i = 8; i < sizeof big; i++) big[i] = (unsigned char)(i * 7);
    OK(xrt_launch_kernel(fb, d3(1, 1, 1), d3(1, 1, 1), 0, s, big, sizeof big));
    memset(big, 0, sizeof big);
    OK(xrt_event_record(e, s));
    assert_int_equal(xrt_event_query(e), XRT_ERROR_NOT_READY);
    gate_open(&gates[0]);
    OK(xrt_stream_synchronize(s));
    assert_true(res[0] == 'x' && res[1] == 2.5 && res[2] == -7 && res[3] == (double)(1ll << 40) && res[4] == 7 &&
                res[5] == 200);
    for (i = 8; i < sizeof big; i++)
        if (out[i] != (unsigned char)(i * 7)) fail_msg("byte %zu of the arguments is %u", i, out[i]);
    OK(xrt_free(res));
    OK(xrt_free(out));
    OK(xrt_event_destroy(e));
    OK(xrt_stream_destroy(s));
    OK(xrt_module_unload(m));
}

/* >> arguments packed one by one (xrt_kernel_args, as CUDA lays out the
   values of kernelParams): the layout of the kernel's struct, so the same
   call site serves the CPU; a bad alignment or an argument past the limit
   fails, and so does a launch with those arguments (issue 45 item 8) */
static void test_packed_arguments(void **state)
{
    xrt_module m = load_kernels();
    xrt_function fm = get(m, "args_mixed");
    static xrt_kernel_args a, big;
    static const unsigned char filler[XRT_MAX_KERNEL_ARGS];
    char c = 'q';
    double d = -1.25, *res;
    short sh = 300;
    long long ll = -(1ll << 41);
    float f[3] = {1, 10, 100};
    unsigned char tail = 7, one = 1;
    int x = 5;
    xrt_stream s;
    (void)state;
    OK(xrt_stream_create(&s));
    OK(xrt_malloc((void **)&res, 6 * sizeof *res));
    xrt_kernel_args_init(&a);
    OK(XRT_KERNEL_ARG(a, c));
    OK(XRT_KERNEL_ARG(a, d));
    OK(XRT_KERNEL_ARG(a, sh));
    OK(XRT_KERNEL_ARG(a, ll));
    OK(XRT_KERNEL_ARG(a, f));
    OK(XRT_KERNEL_ARG(a, tail));
    OK(XRT_KERNEL_ARG(a, res));
    assert_int_equal(a.size, sizeof(mixed_args)); /* each member where the struct has it */
    assert_memory_equal(a.buf.bytes + offsetof(mixed, d), &d, sizeof d);
    assert_memory_equal(a.buf.bytes + offsetof(mixed, ll), &ll, sizeof ll);
    assert_memory_equal(a.buf.bytes + offsetof(mixed, tail), &tail, 1);
    assert_memory_equal(a.buf.bytes + offsetof(mixed_args, out), &res, sizeof res);
    OK(xrt_launch_kernel(fm, d3(1, 1, 1), d3(1, 1, 1), 0, s, a.buf.bytes, a.size));
    OK(xrt_stream_synchronize(s));
    assert_true(res[0] == 'q' && res[1] == -1.25 && res[2] == 300 && res[3] == (double)ll && res[4] == 111 &&
                res[5] == 7);
    /* bad input: the arguments and the launch fail */
    FAILS(xrt_kernel_args_add(&a, &x, sizeof x, 3), XRT_ERROR_INVALID_VALUE, "alignment 3 is not a power of two");
    FAILS(xrt_launch_kernel(fm, d3(1, 1, 1), d3(1, 1, 1), 0, s, a.buf.bytes, a.size), XRT_ERROR_INVALID_VALUE, "");
    FAILS(XRT_KERNEL_ARG(a, x), XRT_ERROR_INVALID_VALUE, "an earlier argument did not fit");
    xrt_kernel_args_init(&a);
    FAILS(xrt_kernel_args_add(&a, NULL, 4, 4), XRT_ERROR_INVALID_VALUE, "value is NULL");
    FAILS(xrt_kernel_args_add(NULL, &x, 4, 4), XRT_ERROR_INVALID_VALUE, "args is NULL");
    xrt_kernel_args_init(&big);
    OK(xrt_kernel_args_add(&big, filler, sizeof filler - 1, 1));
    OK(XRT_KERNEL_ARG(big, one)); /* exactly the limit */
    assert_int_equal(big.size, XRT_MAX_KERNEL_ARGS);
    FAILS(XRT_KERNEL_ARG(big, one), XRT_ERROR_INVALID_VALUE, "passes the limit of 4096 bytes");
    assert_true(big.size > XRT_MAX_KERNEL_ARGS);
    xrt_kernel_args_init(&big);
    OK(xrt_kernel_args_add(&big, filler, 1, 1));
    FAILS(xrt_kernel_args_add(&big, filler, 1, 8192), XRT_ERROR_INVALID_VALUE, "up to 4096");
    OK(xrt_free(res));
    OK(xrt_stream_destroy(s));
    OK(xrt_module_unload(m));
}

/* A kernel whose source declares its parameters' layout (k_xrt_params) is
   held to it as a CUDA kernel is to the layout its driver tells: arguments
   shorter than the parameters, or longer by 16 bytes or more, are refused
   (a launch and a kernel node), where the kernel would read past them. */
static void test_arguments_against_declared_layout(void **state)
{
    xrt_module m = load_kernels();
    xrt_function fm = get(m, "args_mixed");
    unsigned char buf[sizeof(mixed_args) + 16];
    mixed_args a;
    double *res;
    xrt_graph g = NULL;
    xrt_graph_node node = NULL;
    xrt_kernel_node_params k;
    (void)state;
    OK(xrt_malloc((void **)&res, 6 * sizeof *res));
    memset(&a, 0, sizeof a);
    a.out = res;
    memset(buf, 0, sizeof buf);
    memcpy(buf, &a, sizeof a);
    FAILS(xrt_launch_kernel(fm, d3(1, 1, 1), d3(1, 1, 1), 0, NULL, buf, 8), XRT_ERROR_INVALID_VALUE,
          "cpu: the kernel's parameters take 56 bytes, the arguments are 8 bytes");
    FAILS(xrt_launch_kernel(fm, d3(1, 1, 1), d3(1, 1, 1), 0, NULL, buf, sizeof buf), XRT_ERROR_INVALID_VALUE,
          "the arguments are 72 bytes");
    FAILS(xrt_launch_kernel(fm, d3(1, 1, 1), d3(1, 1, 1), 0, NULL, NULL, 0), XRT_ERROR_INVALID_VALUE,
          "the arguments are 0 bytes");
    OK(xrt_launch_kernel(fm, d3(1, 1, 1), d3(1, 1, 1), 0, NULL, buf, sizeof a));
    OK(xrt_launch_kernel(fm, d3(1, 1, 1), d3(1, 1, 1), 0, NULL, buf, sizeof a + 15)); /* a struct's padding */
    OK(xrt_stream_synchronize(NULL));
    if (caps() & XRT_CAP_GRAPHS) {
        OK(xrt_graph_create(&g, 0));
        memset(&k, 0, sizeof k);
        k.function = fm, k.grid = d3(1, 1, 1), k.block = d3(1, 1, 1), k.args = buf, k.args_size = 8;
        FAILS(xrt_graph_add_kernel_node(&node, g, NULL, 0, &k), XRT_ERROR_INVALID_VALUE, "the arguments are 8 bytes");
        k.args_size = sizeof a;
        OK(xrt_graph_add_kernel_node(&node, g, NULL, 0, &k));
        OK(xrt_graph_destroy(g));
    }
    OK(xrt_free(res));
    OK(xrt_module_unload(m));
}

/* >> CUDA's kernelParams form on the CPU: the layout the kernel's source
   declares (args_mixed_xrt_params), read back and used to pack the values
   kernel_params points to; a kernel that declares none is UNSUPPORTED for
   both, saying how to declare it (issue 45 item 8) */
static void test_launch_kernel_params(void **state)
{
    xrt_module m = load_kernels();
    xrt_function fm = get(m, "args_mixed"), fb = get(m, "args_big");
    char c = 'z';
    double d = 0.5, *res;
    short sh = -2;
    long long ll = 1ll << 50;
    float f[3] = {2, 3, 4};
    unsigned char tail = 250;
    void *params[7];
    size_t off = 0, size = 0;
    xrt_launch_attribute prio;
    xrt_launch_config cfg;
    xrt_stream s;
    (void)state;
    SKIP_UNLESS(on_cpu(), "the layout a CPU kernel's source declares (CUDA asks its driver)");
    OK(xrt_stream_create(&s));
    OK(xrt_malloc((void **)&res, 6 * sizeof *res));
    params[0] = &c, params[1] = &d, params[2] = &sh, params[3] = &ll, params[4] = f, params[5] = &tail, params[6] = &res;
    OK(xrt_function_get_param_info(fm, 3, &off, &size));
    assert_true(off == offsetof(mixed, ll) && size == 8);
    OK(xrt_function_get_param_info(fm, 6, &off, &size));
    assert_true(off == offsetof(mixed_args, out) && size == sizeof res);
    FAILS(xrt_function_get_param_info(fm, 7, &off, &size), XRT_ERROR_INVALID_VALUE, "no parameter 7: the kernel has 7");
    OK(xrt_launch_kernel_params(fm, d3(1, 1, 1), d3(1, 1, 1), 0, s, params));
    OK(xrt_stream_synchronize(s));
    assert_true(res[0] == 'z' && res[1] == 0.5 && res[2] == -2 && res[3] == (double)ll && res[4] == 9 && res[5] == 250);
    memset(&prio, 0, sizeof prio); /* cudaLaunchKernelExC's form: the same, with attributes */
    prio.id = XRT_LAUNCH_ATTR_PRIORITY, prio.val.priority = -1;
    memset(&cfg, 0, sizeof cfg);
    cfg.grid = cfg.block = d3(1, 1, 1), cfg.stream = s, cfg.attrs = &prio, cfg.num_attrs = 1;
    c = 'y';
    OK(xrt_launch_kernel_ex_params(&cfg, fm, params));
    OK(xrt_stream_synchronize(s));
    assert_true(res[0] == 'y' && res[3] == (double)ll && res[5] == 250);
    FAILS(xrt_launch_kernel_ex_params(NULL, fm, params), XRT_ERROR_INVALID_VALUE, "config is NULL");
    params[6] = NULL;
    FAILS(xrt_launch_kernel_ex_params(&cfg, fm, params), XRT_ERROR_INVALID_VALUE,
          "xrt_launch_kernel_ex_params: kernel_params[i] is NULL, but the kernel has parameter 6");
    FAILS(xrt_launch_kernel_params(fm, d3(1, 1, 1), d3(1, 1, 1), 0, s, params), XRT_ERROR_INVALID_VALUE,
          "kernel_params[i] is NULL, but the kernel has parameter 6");
    FAILS(xrt_launch_kernel_params(fm, d3(1, 1, 1), d3(1, 1, 1), 0, s, NULL), XRT_ERROR_INVALID_VALUE,
          "kernel_params is NULL");
    FAILS(xrt_function_get_param_info(fb, 0, &off, &size), XRT_ERROR_UNSUPPORTED, "_xrt_params");
    FAILS(xrt_launch_kernel_params(fb, d3(1, 1, 1), d3(1, 1, 1), 0, s, params), XRT_ERROR_UNSUPPORTED,
          "declares no layout");
    OK(xrt_free(res));
    OK(xrt_stream_destroy(s));
    OK(xrt_module_unload(m));
}

static void test_shared_memory(void **state)
{
    static const size_t sizes[] = {64, 48 << 10, 1 << 20};
    xrt_module m = load_kernels();
    xrt_function f = get(m, "shared_sum");
    xrt_function_attributes at;
    enum { blocks = 37 };
    unsigned *out;
    ptr_args a;
    size_t k;
    (void)state;
    OK(xrt_function_set_attribute(f, XRT_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1 << 20));
    OK(xrt_function_get_attributes(&at, f));
    OK(xrt_malloc((void **)&out, blocks * sizeof *out));
    a.out = out;
    for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        unsigned n = (unsigned)(sizes[k] / 4), b, i;
        if (sizes[k] > at.max_dynamic_shared_bytes) continue;
        OK(xrt_launch_kernel(f, d3(blocks, 1, 1), d3(1, 1, 1), sizes[k], NULL, &a, sizeof a));
        OK(xrt_device_synchronize());
        for (b = 0; b < blocks; b++) {
            unsigned want = 0;
            for (i = 0; i < n; i++) want += b + i;
            if (out[b] != want) fail_msg("%zu bytes: block %u summed %u, expected %u", sizes[k], b, out[b], want);
        }
    }
    OK(xrt_free(out));
    OK(xrt_module_unload(m));
}

/* Many small launches, each with its own arguments: queued behind a host
   function (all in flight at once), then back to back while the calling
   thread synchronizes (it runs them itself when the worker sleeps). Each
   sees its own arguments and the launch before it. */
static void test_many_launches(void **state)
{
    enum { queued = 600, total = 3000 };
    xrt_module m = load_kernels();
    xrt_function f = get(m, "chain");
    xrt_stream s;
    unsigned *out, i;
    chain_args a;
    (void)state;
    OK(xrt_stream_create(&s));
    OK(xrt_malloc((void **)&out, total * sizeof *out));
    memset(out, 0, total * sizeof *out);
    a.out = out;
    OK(xrt_launch_host_func(s, gate_wait, &gates[0]));
    for (a.i = 0; a.i < queued; a.i++) OK(xrt_launch_kernel(f, d3(1, 1, 1), d3(1, 1, 1), 0, s, &a, sizeof a));
    assert_int_equal(out[0], 0);
    gate_open(&gates[0]);
    for (; a.i < total; a.i++) {
        OK(xrt_launch_kernel(f, d3(1, 1, 1), d3(1, 1, 1), 0, s, &a, sizeof a));
        if (a.i % 7 == 0) OK(xrt_stream_synchronize(s));
    }
    OK(xrt_stream_synchronize(s));
    for (i = 0; i < total; i++)
        if (out[i] != i + 1) fail_msg("launch %u wrote %u, expected %u", i, out[i], i + 1);
    OK(xrt_free(out));
    OK(xrt_stream_destroy(s));
    OK(xrt_module_unload(m));
}

/* With no helper threads (XRT_CPU_THREADS=1), a thread that synchronizes
   while the worker runs a launch takes blocks of it: block 0 waits until
   another thread has run a block, which only the synchronizing thread can. */
static const char helper_src[] = PRELUDE
    "#include <sys/syscall.h>\n"
    "#include <time.h>\n"
    "#include <unistd.h>\n"
    "typedef struct { long first; int others; long bound_ns; } helped;\n"
    "long syscall(long, ...);\n"
    "void help_me(const ctx_t *c, void *p) {\n"
    "  helped *h = *(helped **)p; long me = syscall(SYS_gettid); long none = 0;\n"
    "  struct timespec t0, t;\n"
    "  __atomic_compare_exchange_n(&h->first, &none, me, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);\n"
    "  if (__atomic_load_n(&h->first, __ATOMIC_SEQ_CST) != me) __atomic_store_n(&h->others, 1, __ATOMIC_SEQ_CST);\n"
    "  if (c->block_idx.x != 0) return;\n"
    "  clock_gettime(CLOCK_MONOTONIC, &t0);\n"
    "  do clock_gettime(CLOCK_MONOTONIC, &t); while (!__atomic_load_n(&h->others, __ATOMIC_SEQ_CST) &&\n"
    "                                               (t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec < h->bound_ns);\n"
    "}\n";

typedef struct { long first; int others; long bound_ns; } helped;

static int sync_helps_child(void *arg)
{
    xrt_module_image im = source_image(helper_src);
    xrt_module m;
    xrt_function f;
    xrt_stream s;
    static helped h;
    helped *hp = &h;
    (void)arg;
    h.bound_ns = 5000000000L; /* block 0 waits at most this long for another thread */
    xrt_shutdown();
    setenv("XRT_CPU_THREADS", "1", 1);
    CHILD_OK(xrt_set_backend("cpu"));
    CHILD_OK(xrt_module_load(&m, &im, 1, NULL));
    CHILD_OK(xrt_module_get_function(&f, m, "help_me"));
    CHILD_OK(xrt_stream_create(&s));
    CHILD_OK(xrt_launch_kernel(f, d3(64, 1, 1), d3(1, 1, 1), 0, s, &hp, sizeof hp));
    while (!__atomic_load_n(&h.first, __ATOMIC_SEQ_CST)) sleep_ms(1); /* the worker is in the launch */
    CHILD_OK(xrt_stream_synchronize(s));
    if (!h.others) CHILD_FAIL("the synchronizing thread ran no block of the launch in flight");
    CHILD_OK(xrt_stream_destroy(s));
    CHILD_OK(xrt_module_unload(m));
    xrt_shutdown();
    return 0;
}

static void test_synchronize_helps_launch(void **state)
{
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the CPU backend's pool");
    SKIP_UNLESS(caps() & XRT_CAP_MODULES, "the backend loads no modules (XRT_CAP_MODULES)");
    /* valgrind runs one thread at a time and may keep the spinning block 0
       running while the synchronizing thread waits for its turn */
    SKIP_UNLESS(xrt_test_slowdown() == 1, "under valgrind, which runs one thread at a time");
    in_child("synchronize takes blocks of the launch in flight", sync_helps_child, NULL, 20);
}

/* A thread that synchronizes while the worker runs an op asks for the rest
   of the queue and runs it itself: a host function holds the worker until
   the request is in (the default stream's `exec` reads HANDOVER), and the
   launches after it run on the synchronizing thread. */
static const char takeover_src[] = PRELUDE
    "#include <sys/syscall.h>\n"
    "long syscall(long, ...);\n"
    "typedef struct { long *tid; } who_args;\n"
    "void who(const ctx_t *c, void *p) { (void)c; *((who_args *)p)->tid = syscall(SYS_gettid); }\n";

typedef struct { long *tid; } who_args;
typedef struct { const unsigned *exec; long tid; } holder;

static void hold_until_asked(void *p)
{
    holder *h = (holder *)p;
    double t0 = now_ms(CLOCK_MONOTONIC);
    __atomic_store_n(&h->tid, syscall(SYS_gettid), __ATOMIC_SEQ_CST);
    while (__atomic_load_n(h->exec, __ATOMIC_SEQ_CST) != XRT__CPU_HANDOVER && now_ms(CLOCK_MONOTONIC) - t0 < 5000) sleep_ms(1);
}

static int takeover_child(void *arg)
{
    xrt_module_image im = source_image(takeover_src);
    xrt_module m;
    xrt_function f;
    static holder h;
    static long tid[3];
    long me = syscall(SYS_gettid);
    who_args a;
    int i;
    (void)arg;
    xrt_shutdown();
    setenv("XRT_CPU_THREADS", "1", 1); /* a launch runs on the thread that runs its op */
    CHILD_OK(xrt_set_backend("cpu"));
    CHILD_OK(xrt_module_load(&m, &im, 1, NULL));
    CHILD_OK(xrt_module_get_function(&f, m, "who"));
    h.exec = &xrt__cpu.dflt[0]->exec;
    CHILD_OK(xrt_launch_host_func(NULL, hold_until_asked, &h));
    for (i = 0; i < 3; i++) {
        a.tid = &tid[i];
        CHILD_OK(xrt_launch_kernel(f, d3(1, 1, 1), d3(1, 1, 1), 0, NULL, &a, sizeof a));
    }
    while (!__atomic_load_n(&h.tid, __ATOMIC_SEQ_CST)) sleep_ms(1); /* the worker holds the stream */
    CHILD_OK(xrt_stream_synchronize(NULL));
    if (h.tid == me) CHILD_FAIL("the host function ran on the synchronizing thread, not the worker");
    for (i = 0; i < 3; i++)
        if (tid[i] != me) CHILD_FAIL("launch %d ran on thread %ld, not on the synchronizing thread %ld", i, tid[i], me);
    CHILD_OK(xrt_module_unload(m));
    xrt_shutdown();
    return 0;
}

static void test_synchronize_takes_the_queue(void **state)
{
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the CPU backend's streams");
    SKIP_UNLESS(caps() & XRT_CAP_MODULES, "the backend loads no modules (XRT_CAP_MODULES)");
    in_child("synchronize runs the queue after the worker's op", takeover_child, NULL, 20);
}

/* The files under `dir` that the process maps (at most `max`, distinct);
   returns how many. */
enum { MAPPED_MAX = 32 };
typedef char mapped_path[512];

static int mapped(const char *dir, mapped_path *out, int max)
{
    char line[1024];
    int n = 0, i;
    FILE *f = fopen("/proc/self/maps", "r");
    assert_non_null(f);
    while (fgets(line, sizeof line, f) && n < max) {
        char *p = strstr(line, dir);
        if (!p) continue;
        p[strcspn(p, "\n")] = 0;
        for (i = 0; i < n && strcmp(out[i], p) != 0; i++) {}
        if (i == n) snprintf(out[n++], sizeof out[0], "%s", p);
    }
    fclose(f);
    return n;
}

static int is_mapped(const char *path)
{
    mapped_path now[MAPPED_MAX];
    int n = mapped(path, now, MAPPED_MAX);
    return n > 0;
}

/* An unloaded module is closed once the launches queued before have run,
   also where they ran back to back, each synchronized: its object leaves
   the process's mappings. (Other modules of earlier tests may close
   meanwhile: only this one's file is looked for.) */
static void test_unloaded_module_closes(void **state)
{
    static const char src[] = PRELUDE "void closes(const ctx_t *c, void *p) { (void)c; (void)p; }\n";
    xrt_module_image im = source_image(src);
    mapped_path before[MAPPED_MAX], after[MAPPED_MAX];
    const char *mine = NULL;
    xrt_module m;
    xrt_function f;
    xrt_stream s;
    double end;
    int i, j, nb, na;
    (void)state;
    SKIP_UNLESS(on_cpu(), "the CPU backend's modules are shared objects in the cache");
    nb = mapped(cache_dir, before, MAPPED_MAX);
    OK(xrt_module_load(&m, &im, 1, NULL));
    na = mapped(cache_dir, after, MAPPED_MAX);
    for (i = 0; i < na && !mine; i++) {
        for (j = 0; j < nb && strcmp(after[i], before[j]) != 0; j++) {}
        if (j == nb) mine = after[i];
    }
    assert_non_null(mine); /* the module's file under the cache */
    f = get(m, "closes");
    OK(xrt_stream_create(&s));
    for (i = 0; i < 1000; i++) {
        OK(xrt_launch_kernel(f, d3(1, 1, 1), d3(1, 1, 1), 0, s, NULL, 0));
        OK(xrt_stream_synchronize(s));
    }
    OK(xrt_module_unload(m));
    end = now_ms(CLOCK_MONOTONIC) + 2000.0 * xrt_test_slowdown();
    while (is_mapped(mine) && now_ms(CLOCK_MONOTONIC) < end) sleep_ms(1);
    if (is_mapped(mine)) fail_msg("%s is still mapped after its module was unloaded and its launches ran", mine);
    OK(xrt_stream_destroy(s));
}

/* A launch's own priority (xrt_launch_kernel_ex, XRT_LAUNCH_ATTR_PRIORITY)
   acts as a stream's on the CPU backend: while a launch of priority -5 runs
   on a stream of priority 0, another stream of priority 0 defers its next
   operation (for 2 ms at most, XRT__CPU_DEFER_NS). The kernel spins until
   the test has seen that operation run, so the bound holds whatever the
   timing. */
static const char spin_src[] = PRELUDE
    "typedef struct { int *flag; } spin_args;\n"
    "void spin(const ctx_t *c, void *p) {\n" /* flag[1] = 1, then wait for flag[0] */
    "  int *f = ((spin_args *)p)->flag; (void)c;\n"
    "  __atomic_store_n(&f[1], 1, __ATOMIC_SEQ_CST);\n"
    "  while (!__atomic_load_n(&f[0], __ATOMIC_SEQ_CST)) ;\n"
    "}\n";

static void note_time(void *p)
{
    long long us = (long long)(now_ms(CLOCK_MONOTONIC) * 1000.0);
    __atomic_store_n((long long *)p, us, __ATOMIC_SEQ_CST);
}

static void test_launch_priority_defers_lower_work(void **state)
{
    xrt_module_image im = source_image(spin_src);
    static int flag[2];
    static long long ran; /* us */
    struct { int *flag; } a = {flag};
    xrt_launch_attribute prio;
    xrt_launch_config c;
    xrt_module m;
    xrt_function f;
    xrt_stream hi, lo;
    double t0, waited;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the CPU backend's priorities");
    SKIP_UNLESS(caps() & XRT_CAP_MODULES, "the backend loads no modules (XRT_CAP_MODULES)");
    OK(xrt_module_load(&m, &im, 1, NULL));
    OK(xrt_module_get_function(&f, m, "spin"));
    OK(xrt_stream_create_with_flags(&hi, XRT_STREAM_NON_BLOCKING));
    OK(xrt_stream_create_with_flags(&lo, XRT_STREAM_NON_BLOCKING));
    flag[0] = flag[1] = 0, ran = 0;
    memset(&prio, 0, sizeof prio);
    prio.id = XRT_LAUNCH_ATTR_PRIORITY, prio.val.priority = -5;
    memset(&c, 0, sizeof c);
    c.grid = c.block = d3(1, 1, 1), c.stream = hi, c.attrs = &prio, c.num_attrs = 1;
    OK(xrt_launch_kernel_ex(&c, f, &a, sizeof a));
    while (!__atomic_load_n(&flag[1], __ATOMIC_SEQ_CST)) sleep_ms(1);
    t0 = now_ms(CLOCK_MONOTONIC);
    OK(xrt_launch_host_func(lo, note_time, &ran));
    while (!__atomic_load_n(&ran, __ATOMIC_SEQ_CST) && now_ms(CLOCK_MONOTONIC) - t0 < 10000) sleep_ms(1);
    waited = (double)ran / 1000.0 - t0;
    __atomic_store_n(&flag[0], 1, __ATOMIC_SEQ_CST);
    OK(xrt_stream_synchronize(hi));
    OK(xrt_stream_synchronize(lo));
    if (waited < 2.0)
        fail_msg("the stream of priority 0 ran %.3f ms after its op was enqueued, while a launch of priority -5 ran: "
                 "it did not defer (2 ms)", waited);
    OK(xrt_stream_destroy(hi));
    OK(xrt_stream_destroy(lo));
    OK(xrt_module_unload(m));
}

/* s1: set, kernel (v = 2v + 1), record; s2: wait, kernel (v = 2v + 3), host
   function, copy back. Every step sees the one before. */
static void test_ordering(void **state)
{
    enum { n = 1 << 16 };
    xrt_module m = load_kernels();
    xrt_function f = get(m, "inc");
    xrt_stream s1, s2;
    xrt_event e;
    unsigned *v, *h;
    inc_args a;
    int ran = 0;
    unsigned i;
    (void)state;
    OK(xrt_stream_create(&s1));
    OK(xrt_stream_create(&s2));
    OK(xrt_event_create(&e, 0));
    OK(xrt_malloc((void **)&v, n * sizeof *v));
    OK(xrt_malloc_host((void **)&h, n * sizeof *h));
    OK(xrt_launch_host_func(s1, gate_wait, &gates[0]));
    OK(xrt_memset_async(v, 0, n * sizeof *v, s1));
    a.v = v, a.n = n, a.add = 1;
    OK(xrt_launch_kernel(f, d3(n / 128, 1, 1), d3(128, 1, 1), 0, s1, &a, sizeof a));
    OK(xrt_event_record(e, s1));
    OK(xrt_stream_wait_event(s2, e));
    a.add = 3;
    OK(xrt_launch_kernel(f, d3(n / 128, 1, 1), d3(128, 1, 1), 0, s2, &a, sizeof a));
    OK(xrt_launch_host_func(s2, set_flag, &ran));
    OK(xrt_memcpy_async(h, v, n * sizeof *v, XRT_MEMCPY_DEVICE_TO_HOST, s2));
    assert_int_equal(xrt_stream_query(s2), XRT_ERROR_NOT_READY);
    gate_open(&gates[0]);
    OK(xrt_stream_synchronize(s2));
    assert_true(flag(&ran));
    for (i = 0; i < n; i++)
        if (h[i] != 5) fail_msg("word %u is %u, expected 5", i, h[i]);
    OK(xrt_free_host(h));
    OK(xrt_free(v));
    OK(xrt_event_destroy(e));
    OK(xrt_stream_destroy(s1));
    OK(xrt_stream_destroy(s2));
    OK(xrt_module_unload(m));
}

/* >> threads: one module, 8 threads, each with its stream and buffer */
typedef struct kthread { xrt_module m; unsigned id; int failed; } kthread;

static void *launcher(void *p)
{
    kthread *k = (kthread *)p;
    enum { n = 4096, rounds = 50 };
    xrt_function f = NULL;
    xrt_stream s = NULL;
    unsigned *v = NULL, i, want = 0;
    inc_args a;
    if (xrt_module_get_function(&f, k->m, "inc") || xrt_stream_create(&s) || xrt_malloc((void **)&v, n * sizeof *v) ||
        xrt_memset_async(v, 0, n * sizeof *v, s)) {
        k->failed = __LINE__;
        return NULL;
    }
    a.v = v, a.n = n, a.add = k->id;
    for (i = 0; i < rounds; i++)
        if (xrt_launch_kernel(f, d3(n / 64, 1, 1), d3(64, 1, 1), 0, s, &a, sizeof a)) k->failed = __LINE__;
    if (xrt_stream_synchronize(s)) k->failed = __LINE__;
    for (i = 0; i < rounds; i++) want = want * 2 + k->id;
    for (i = 0; i < n; i++)
        if (v[i] != want) k->failed = __LINE__;
    xrt_free(v);
    xrt_stream_destroy(s);
    return NULL;
}

static void test_threads(void **state)
{
    xrt_module m = load_kernels();
    kthread k[8];
    pthread_t t[8];
    int i;
    (void)state;
    for (i = 0; i < 8; i++) {
        k[i].m = m, k[i].id = (unsigned)i + 1, k[i].failed = 0;
        assert_int_equal(start_thread(&t[i], xrt_test_backend, launcher, &k[i]), 0);
    }
    for (i = 0; i < 8; i++) {
        pthread_join(t[i], NULL);
        if (k[i].failed) fail_msg("thread %d failed at line %d", i, k[i].failed);
    }
    OK(xrt_module_unload(m));
}

/* Unloading races with launches and lookups on other threads: each call
   either works or returns XRT_ERROR_INVALID_HANDLE, never anything else
   (and ASan/TSan see no use after free); every launch that was accepted runs. */
typedef struct racer { xrt_module m; xrt_function f; unsigned *v; int ok, refused, other; } racer;

static void *race_launches(void *p)
{
    racer *r = (racer *)p;
    inc_args a;
    int i;
    a.v = r->v, a.n = 1, a.add = 1;
    for (i = 0; i < 2000; i++) {
        xrt_function f = NULL;
        xrt_status st = xrt_launch_kernel(r->f, d3(1, 1, 1), d3(1, 1, 1), 0, NULL, &a, sizeof a);
        if (st == XRT_SUCCESS) r->ok++;
        else if (st == XRT_ERROR_INVALID_HANDLE) r->refused++;
        else r->other++;
        st = xrt_module_get_function(&f, r->m, "inc");
        if (st != XRT_SUCCESS && st != XRT_ERROR_INVALID_HANDLE) r->other++;
    }
    return NULL;
}

static void test_unload_races_launches(void **state)
{
    racer r[2];
    pthread_t t[2];
    unsigned *v;
    int round, i;
    (void)state;
    for (round = 0; round < 5; round++) {
        xrt_module m = load_kernels();
        xrt_function f = get(m, "inc");
        OK(xrt_malloc_host((void **)&v, 2 * sizeof *v));
        v[0] = v[1] = 0;
        xrt_set_log_level(XRT_LOG_NONE); /* the refusals would be logged from two threads into the test's capture */
        for (i = 0; i < 2; i++) {
            memset(&r[i], 0, sizeof r[i]);
            r[i].m = m, r[i].f = f, r[i].v = v + i;
            assert_int_equal(start_thread(&t[i], xrt_test_backend, race_launches, &r[i]), 0);
        }
        sleep_ms(round); /* unload early, or late */
        OK(xrt_module_unload(m));
        for (i = 0; i < 2; i++) pthread_join(t[i], NULL);
        xrt_test_log_calls(); /* back to the group's level */
        OK(xrt_device_synchronize());
        for (i = 0; i < 2; i++) {
            unsigned want = 0;
            int k;
            assert_int_equal(r[i].other, 0);
            for (k = 0; k < r[i].ok; k++) want = want * 2 + 1;
            assert_int_equal(v[i], want); /* (2^ok - 1) mod 2^32: every accepted launch ran, in order */
        }
        OK(xrt_free_host(v));
    }
}

/* >> errors */
static void test_missing_function(void **state)
{
    xrt_module m = load_kernels();
    xrt_function f = (xrt_function)1;
    (void)state;
    FAILS(xrt_module_get_function(&f, m, "no_such_kernel"), XRT_ERROR_NOT_FOUND, "no_such_kernel");
    assert_null(f);
    FAILS(xrt_module_get_function(&f, m, ""), XRT_ERROR_INVALID_VALUE, "name is empty");
    OK(xrt_module_unload(m));
    FAILS(xrt_module_get_function(&f, m, "saxpy"), XRT_ERROR_INVALID_HANDLE, "module");
    FAILS(xrt_module_unload(m), XRT_ERROR_INVALID_HANDLE, "was destroyed");
}

/* Only the module's own functions are kernels: a name its dependencies
   define (libc's free, malloc) or one of its variables is not one. A launch
   of either would call it as a kernel. */
static const char globals_src[] = PRELUDE
    "#include <stdlib.h>\n"
    "unsigned count;\n"
    "typedef struct { unsigned *out; } bump_args;\n"
    "void bump(const ctx_t *c, void *p) {\n"
    "  void *volatile q = malloc(1); (void)c;\n" /* the module needs libc */
    "  free(q);\n"
    "  *((bump_args *)p)->out = ++count;\n"
    "}\n";

static void test_function_not_in_module(void **state)
{
    xrt_module_image im = source_image(globals_src);
    xrt_function f = (xrt_function)1;
    xrt_module m;
    (void)state;
    SKIP_UNLESS(on_cpu(), "the CPU backend's modules are shared objects");
    OK(xrt_module_load(&m, &im, 1, NULL));
    FAILS(xrt_module_get_function(&f, m, "free"), XRT_ERROR_NOT_FOUND,
          "cpu: xrt_module_get_function: 'free' is not defined in the module but in ");
    assert_null(f);
    assert_non_null(strstr(xrt_get_last_error_string(), "libc"));
    FAILS(xrt_module_get_function(&f, m, "malloc"), XRT_ERROR_NOT_FOUND, "'malloc' is not defined in the module");
    FAILS(xrt_module_get_function(&f, m, "count"), XRT_ERROR_NOT_FOUND,
          "cpu: xrt_module_get_function: 'count' in the module is not a function");
    assert_null(f);
    OK(xrt_module_get_function(&f, m, "bump"));
    OK(xrt_module_unload(m));
}

static void test_bad_images(void **state)
{
    static const char garbage[] = "\x7f" "ELF this is not a shared object";
    xrt_module m = (xrt_module)1;
    xrt_module_image im[2];
    xrt_target t;
    char want[64];
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_MODULES, "the backend loads no modules (XRT_CAP_MODULES)");
    OK(xrt_get_target(&t));
    im[0].kind = XRT_IMAGE_CUDA_FATBIN, im[0].data = garbage, im[0].size = sizeof garbage, im[0].arch = "sm_90";
    im[1].kind = XRT_IMAGE_HIP_CODE_OBJECT, im[1].data = garbage, im[1].size = sizeof garbage, im[1].arch = "gfx90a";
    if (strcmp(t.backend, "cpu") == 0) { /* the CPU loads none of these */
        snprintf(want, sizeof want, "arch %s", t.arch);
        FAILS(xrt_module_load(&m, im, 2, NULL), XRT_ERROR_NO_BINARY_FOR_DEVICE, want);
        assert_null(m);
        assert_non_null(strstr(xrt_get_last_error_string(), "cuda fatbin sm_90, hip code object gfx90a"));
        im[0].kind = XRT_IMAGE_CPU_SHARED_OBJECT, im[0].arch = "not-this-arch";
        FAILS(xrt_module_load(&m, im, 1, NULL), XRT_ERROR_NO_BINARY_FOR_DEVICE, "not-this-arch");
        im[0].arch = t.arch; /* the right arch, a corrupt object */
        FAILS(xrt_module_load(&m, im, 1, NULL), XRT_ERROR_INVALID_IMAGE, "does not load");
        assert_null(m);
        assert_null(strstr(xrt_get_last_error_string(), ".tmp.")); /* not a file the user never made */
        im[0].data = "junk", im[0].size = 4; /* not even ELF */
        FAILS(xrt_module_load(&m, im, 1, NULL), XRT_ERROR_INVALID_IMAGE,
              "cpu: xrt_module_load: the image (cpu shared object, 4 bytes) is not an ELF shared object");
        assert_null(m);
    } else if (strcmp(t.backend, "cuda") == 0) { /* refused at the load, though the driver defers its errors */
        static const char broken_ptx[] = ".version 7.0\n.target sm_50\n.address_size 64\n.visible .entry k()\n{\n\tret\n";
        FAILS(xrt_module_load(&m, im, 1, NULL), XRT_ERROR_INVALID_IMAGE,
              "cuda: xrt_module_load: the image (cuda fatbin sm_90, 33 bytes) is a cuda cubin, not a cuda fatbin");
        assert_null(m);
        im[0].kind = XRT_IMAGE_CUDA_PTX, im[0].data = broken_ptx, im[0].size = sizeof broken_ptx - 1;
        im[0].arch = "compute_50";
        FAILS(xrt_module_load(&m, im, 1, NULL), XRT_ERROR_INVALID_IMAGE, "(CUDA_ERROR_INVALID_PTX=218)");
        assert_null(m);
        assert_true(xrt_module_get_log()[0] != 0); /* ptxas's error */
    }
    FAILS(xrt_module_load(&m, im, 0, NULL), XRT_ERROR_INVALID_VALUE, "n_images is 0");
    im[0].kind = (xrt_image_kind)99;
    FAILS(xrt_module_load(&m, im, 1, NULL), XRT_ERROR_INVALID_VALUE, "unknown kind 99");
}

static void test_compile_error(void **state)
{
    xrt_module m = (xrt_module)1;
    xrt_module_image im = source_image("void broken(void) { this is not C }\n");
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_MODULES, "the backend loads no modules (XRT_CAP_MODULES)");
    SKIP_UNLESS(on_cpu(), "C source is built on the CPU backend only");
    FAILS(xrt_module_load(&m, &im, 1, NULL), XRT_ERROR_COMPILE_FAILED, "exited with");
    assert_null(m);
    assert_non_null(strstr(xrt_module_get_log(), "error"));
    assert_non_null(strstr(xrt_module_get_log(), "<kernel source>:1:")); /* the user's source, not a temporary */
    assert_null(strstr(xrt_module_get_log(), ".tmp."));
    assert_null(strstr(xrt_get_last_error_string(), ".tmp."));
    FAILS(xrt_module_load(&m, &im, 1, "-DX=1"), XRT_ERROR_COMPILE_FAILED, "exited with"); /* failures are not cached */
}

/* A C++ compiler mangles the kernel's name: the lookup says so. */
static void test_cxx_compiler_hint(void **state)
{
    xrt_module m = NULL;
    xrt_function f = (xrt_function)1;
    xrt_module_image im = source_image(PRELUDE "void fill2d(const ctx_t *c, void *a) { (void)c; (void)a; }\n");
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_MODULES, "the backend loads no modules (XRT_CAP_MODULES)");
    SKIP_UNLESS(on_cpu(), "C source is built on the CPU backend only");
    SKIP_UNLESS(system("g++ --version > /dev/null 2>&1") == 0, "no g++");
    setenv("XRT_CC", "g++", 1);
    OK(xrt_module_load(&m, &im, 1, NULL));
    unsetenv("XRT_CC");
    FAILS(xrt_module_get_function(&f, m, "fill2d"), XRT_ERROR_NOT_FOUND,
          "cpu: xrt_module_get_function: no kernel named 'fill2d' in the module (built by g++, a C++ compiler, "
          "which mangles names: declare kernels extern \"C\")");
    assert_null(f);
    OK(xrt_module_unload(m));
}

/* The module is unloaded while a launch waits behind a gate: the launch
   still runs; the function's handle is dead at once. */
static void test_unload_with_queued_launches(void **state)
{
    xrt_module m = load_kernels();
    xrt_function f = get(m, "inc");
    xrt_stream s;
    unsigned *v;
    inc_args a;
    (void)state;
    OK(xrt_stream_create(&s));
    OK(xrt_malloc((void **)&v, 64 * sizeof *v));
    OK(xrt_memset(v, 0, 64 * sizeof *v));
    a.v = v, a.n = 64, a.add = 9;
    OK(xrt_launch_host_func(s, gate_wait, &gates[0]));
    OK(xrt_launch_kernel(f, d3(1, 1, 1), d3(64, 1, 1), 0, s, &a, sizeof a));
    OK(xrt_module_unload(m));
    FAILS(xrt_launch_kernel(f, d3(1, 1, 1), d3(64, 1, 1), 0, s, &a, sizeof a), XRT_ERROR_INVALID_HANDLE, "function");
    gate_open(&gates[0]);
    OK(xrt_stream_synchronize(s));
    assert_int_equal(v[0], 9);
    assert_int_equal(v[63], 9);
    OK(xrt_free(v));
    OK(xrt_stream_destroy(s));
}

static void test_destroyed_stream(void **state)
{
    xrt_module m = load_kernels();
    xrt_function f = get(m, "empty");
    xrt_stream s;
    xrt_event e;
    (void)state;
    OK(xrt_stream_create(&s));
    OK(xrt_stream_destroy(s));
    FAILS(xrt_launch_kernel(f, d3(1, 1, 1), d3(1, 1, 1), 0, s, NULL, 0), XRT_ERROR_INVALID_HANDLE, "was destroyed");
    OK(xrt_event_create(&e, 0));
    FAILS(xrt_launch_kernel((xrt_function)e, d3(1, 1, 1), d3(1, 1, 1), 0, NULL, NULL, 0), XRT_ERROR_INVALID_HANDLE,
          "not the kind xrt_launch_kernel takes");
    FAILS(xrt_module_get_function(&f, (xrt_module)e, "empty"), XRT_ERROR_INVALID_HANDLE, "not the kind");
    OK(xrt_event_destroy(e));
    OK(xrt_module_unload(m));
}

/* xrt_shutdown with a module loaded and a launch queued: the launch runs,
   the module is released (ASan and valgrind see no leak), its handles are
   stale afterwards. */
static void test_shutdown_with_live_module(void **state)
{
    xrt_module m = load_kernels();
    xrt_function f = get(m, "inc");
    xrt_function_attributes at;
    unsigned *v;
    inc_args a;
    (void)state;
    OK(xrt_malloc_host((void **)&v, 64 * sizeof *v));
    memset(v, 0, 64 * sizeof *v);
    a.v = v, a.n = 64, a.add = 3;
    OK(xrt_launch_kernel(f, d3(1, 1, 1), d3(64, 1, 1), 0, NULL, &a, sizeof a));
    xrt_shutdown(); /* drains the stream, then frees the module and the buffer */
    OK(xrt_set_backend(xrt_test_backend));
    FAILS(xrt_function_get_attributes(&at, f), XRT_ERROR_INVALID_HANDLE, "function");
    FAILS(xrt_module_unload(m), XRT_ERROR_INVALID_HANDLE, "module");
}

/* >> fork: a child loads and launches on a fresh xrt */
static int child_launch(void *arg)
{
    xrt_module m = NULL;
    xrt_function f = NULL;
    xrt_module_image im = source_image(kernels_src);
    unsigned *v = NULL;
    inc_args a;
    (void)arg;
    CHILD_EXPECT(xrt_module_load(&m, &im, 1, NULL), XRT_SUCCESS);
    CHILD_EXPECT(xrt_module_get_function(&f, m, "inc"), XRT_SUCCESS);
    CHILD_EXPECT(xrt_malloc((void **)&v, 64 * sizeof *v), XRT_SUCCESS);
    CHILD_EXPECT(xrt_memset(v, 0, 64 * sizeof *v), XRT_SUCCESS);
    a.v = v, a.n = 64, a.add = 4;
    CHILD_EXPECT(xrt_launch_kernel(f, d3(2, 1, 1), d3(32, 1, 1), 0, NULL, &a, sizeof a), XRT_SUCCESS);
    CHILD_EXPECT(xrt_device_synchronize(), XRT_SUCCESS);
    CHILD_TRUE(v[0] == 4 && v[63] == 4);
    CHILD_EXPECT(xrt_module_unload(m), XRT_SUCCESS);
    xrt_free(v);
    xrt_shutdown();
    return 0;
}

static void test_after_fork(void **state)
{
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_MODULES, "the backend loads no modules (XRT_CAP_MODULES)");
    SKIP_UNLESS(survives_fork(), "the backend does not survive fork() (a GPU runtime, the tracer)");
    in_child("launch after fork", child_launch, NULL, 60);
}

/* >> the kernel cache (CPU: the backend that compiles). XRT_CC is a wrapper
   that counts its compilations, so a hit is proven to run no compiler (the
   questions a build asks first, with -### and gcc's -print-prog-name=ld,
   compile nothing: not counted). */
#define NOT_COUNTED "for a; do case \"$a\" in '-###'|-print-prog-name=*) exec cc \"$@\";; esac; done\n"
static char wrapper[512], counter[512];

static void write_wrapper(const char *version)
{
    FILE *f = fopen(wrapper, "w");
    assert_non_null(f);
    fprintf(f, "#!/bin/sh\ncase \"$1\" in --version) echo \"%s\"; exit 0;; esac\n" NOT_COUNTED "echo x >> '%s'\n%sexec cc \"$@\"\n",
            version, counter, getenv("KERNELS_SLOW_CC") ? "sleep 0.3\n" : "");
    fclose(f);
    chmod(wrapper, 0755);
}

static int compiles(void)
{
    FILE *f = fopen(counter, "r");
    int n = 0, c;
    if (!f) return 0;
    while ((c = fgetc(f)) != EOF) n += c == '\n';
    fclose(f);
    return n;
}

static int files_ending(const char *dir, const char *suffix)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    if (!d) return 0;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        n += len > strlen(suffix) && !strcmp(e->d_name + len - strlen(suffix), suffix);
    }
    closedir(d);
    return n;
}

static char sub_dir[300];
static int cache_setup(void **state)
{
    static int k;
    (void)state;
    snprintf(sub_dir, sizeof sub_dir, "%s/c%d", cache_dir, ++k);
    snprintf(wrapper, sizeof wrapper, "%s/cc%d.sh", cache_dir, k);
    snprintf(counter, sizeof counter, "%s/count%d", cache_dir, k);
    write_wrapper("fakecc 1.0");
    setenv("XRT_CC", wrapper, 1);
    setenv("XRT_CACHE_DIR", sub_dir, 1);
    return 0;
}

static int cache_teardown(void **state)
{
    (void)state;
    unsetenv("XRT_CC");
    unsetenv("XRT_CACHE");
    unsetenv("XRT_CACHE_BYTES");
    unsetenv("CPATH");
    unsetenv("C_INCLUDE_PATH");
    setenv("XRT_CACHE_DIR", cache_dir, 1);
    return 0;
}

static void load_unload(const char *src, const char *options)
{
    xrt_module m;
    xrt_module_image im = source_image(src);
    OK(xrt_module_load(&m, &im, 1, options));
    OK(xrt_module_unload(m));
}

static void test_cache_hits_and_misses(void **state)
{
    xrt_cache_stats a, b;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    OK(xrt_cache_get_stats(&a));
    load_unload(kernels_src, NULL);
    assert_int_equal(compiles(), 1);
    load_unload(kernels_src, NULL); /* identical: a hit, no compiler run */
    load_unload(kernels_src, NULL);
    assert_int_equal(compiles(), 1);
    OK(xrt_cache_get_stats(&b));
    assert_int_equal(b.hits - a.hits, 2);
    assert_int_equal(b.misses - a.misses, 1);
    assert_int_equal(b.builds - a.builds, 1);
    assert_true(b.bytes > 0);
    load_unload(kernels_src, "-DCHANGED=1"); /* another option */
    assert_int_equal(compiles(), 2);
    load_unload(PRELUDE "void other(const ctx_t *c, void *p) { (void)c; (void)p; }\n", NULL); /* another source */
    assert_int_equal(compiles(), 3);
    sleep_ms(20); /* the wrapper's modification time must change */
    write_wrapper("fakecc 2.0"); /* another compiler version */
    load_unload(kernels_src, NULL);
    assert_int_equal(compiles(), 4);
    load_unload(kernels_src, "-DCHANGED=1");
    assert_int_equal(compiles(), 5);
    load_unload(kernels_src, NULL); /* all of them still there */
    assert_int_equal(compiles(), 5);
    assert_int_equal(files_ending(sub_dir, ".so"), 5);
}

/* Another target: the CPU's loader called with a backend table whose target
   has other features. */
static xrt_status other_get_device(const xrt_backend *self, int *d) { (void)self; *d = 0; return XRT_SUCCESS; }
static xrt_status other_get_target(const xrt_backend *self, int device, xrt_target *t)
{
    (void)self, (void)device;
    snprintf(t->arch, sizeof t->arch, "x86_64");
    snprintf(t->features, sizeof t->features, "imaginary");
    t->vector_width = 4;
    return XRT_SUCCESS;
}

static void test_cache_target(void **state)
{
    xrt_backend other;
    xrt_module_image im = source_image(kernels_src);
    void *mod = NULL;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    load_unload(kernels_src, NULL);
    assert_int_equal(compiles(), 1);
    memset(&other, 0, sizeof other);
    other.name = "cpu";
    other.get_device = other_get_device;
    other.get_target = other_get_target;
    char log[256];
    OK(xrt__cpu_module_load(&other, &mod, &im, 1, "", log, sizeof log));
    assert_int_equal(compiles(), 2);
    xrt__cpu_module_unload(&other, mod);
}

/* An entry that does not load is deleted and built again. */
static void test_cache_corrupt_entry(void **state)
{
    DIR *d;
    struct dirent *e;
    char path[700] = "";
    FILE *f;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    load_unload(kernels_src, NULL);
    d = opendir(sub_dir);
    assert_non_null(d);
    while ((e = readdir(d)) != NULL)
        if (strstr(e->d_name, ".so")) snprintf(path, sizeof path, "%s/%s", sub_dir, e->d_name);
    closedir(d);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("garbage", f);
    fclose(f);
    load_unload(kernels_src, NULL);
    assert_int_equal(compiles(), 2);
    load_unload(kernels_src, NULL);
    assert_int_equal(compiles(), 2);
}

/* A second load of an entry open already goes through a private copy of
   it: where that copy cannot be made (here: files are limited to 1 KiB),
   the load fails with the reason, and the entry, which loads, stays:
   nothing is built again. */
static int copy_fails_child(void *arg)
{
    xrt_module m1, m2 = NULL;
    xrt_module_image im = source_image(kernels_src);
    struct rlimit small = {1024, 1024};
    xrt_status st;
    (void)arg;
    CHILD_OK(xrt_module_load(&m1, &im, 1, NULL));
    CHILD_TRUE(compiles() == 1);
    signal(SIGXFSZ, SIG_IGN);
    CHILD_TRUE(setrlimit(RLIMIT_FSIZE, &small) == 0);
    st = xrt_module_load(&m2, &im, 1, NULL);
    if (st != XRT_ERROR_SYSTEM || !strstr(xrt_get_last_error_string(), "a private copy of"))
        CHILD_FAIL("status %d: %s", (int)st, xrt_get_last_error_string());
    CHILD_TRUE(m2 == NULL && compiles() == 1 && files_ending(sub_dir, ".so") == 1);
    CHILD_OK(xrt_module_unload(m1));
    xrt_shutdown();
    return 0;
}

static void test_cache_entry_kept_when_copy_fails(void **state)
{
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    in_child("a private copy that cannot be made", copy_fails_child, NULL, 60);
    load_unload(kernels_src, NULL); /* the entry is still there, and loads */
    assert_int_equal(compiles(), 1);
}

static void test_cache_off_and_bound(void **state)
{
    xrt_cache_stats a, b;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    setenv("XRT_CACHE", "0", 1);
    load_unload(kernels_src, NULL);
    load_unload(kernels_src, NULL);
    assert_int_equal(compiles(), 2); /* no cache: built each time */
    assert_int_equal(files_ending(sub_dir, ".so"), 0);
    unsetenv("XRT_CACHE");
    setenv("XRT_CACHE_BYTES", "1", 1); /* room for nothing but the newest */
    OK(xrt_cache_get_stats(&a));
    load_unload(kernels_src, NULL);
    load_unload(kernels_src, "-DA=1");
    load_unload(kernels_src, "-DA=2");
    OK(xrt_cache_get_stats(&b));
    assert_int_equal(b.evictions - a.evictions, 2);
    assert_int_equal(files_ending(sub_dir, ".so"), 1);
    assert_int_equal(files_ending(sub_dir, ".lock"), 1); /* evicted with their entries */
}

/* Two processes load the same new source at once: one compiles, the other
   waits for it and loads the result. */
static int child_load(void *arg)
{
    xrt_module m = NULL;
    xrt_module_image im = source_image(kernels_src);
    (void)arg;
    CHILD_EXPECT(xrt_set_backend("cpu"), XRT_SUCCESS);
    CHILD_EXPECT(xrt_module_load(&m, &im, 1, "-DTWO_PROCESSES"), XRT_SUCCESS);
    CHILD_EXPECT(xrt_module_unload(m), XRT_SUCCESS);
    xrt_shutdown();
    return 0;
}

static void test_cache_two_processes(void **state)
{
    pid_t p[2];
    int i;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    setenv("KERNELS_SLOW_CC", "1", 1);
    write_wrapper("fakecc 1.0");
    unsetenv("KERNELS_SLOW_CC");
    for (i = 0; i < 2; i++) {
        fflush(NULL);
        p[i] = fork();
        if (p[i] == 0) child_exit(child_load(NULL));
        assert_true(p[i] > 0);
    }
    for (i = 0; i < 2; i++) child_wait(p[i], 60, "loading in two processes");
    assert_int_equal(compiles(), 1);
}

/* >> the kernel cache's trust, names and limits. A kernel `value` writes one
   number; the planted build of the same kernel writes 666. */
#define VALUE_SRC(expr) PRELUDE "void value(const ctx_t *c, void *p) { (void)c; **(int **)p = (" expr "); }\n"
static const char genuine_src[] = VALUE_SRC("1");
static const char planted_src[] = VALUE_SRC("666");

/* Loads `src` with `options`, runs `value` once, unloads; its number. */
static int value_of(const char *src, const char *options)
{
    xrt_module m;
    xrt_module_image im = source_image(src);
    int out = -1, *p = &out;
    OK(xrt_module_load(&m, &im, 1, options));
    OK(xrt_launch_kernel(get(m, "value"), d3(1, 1, 1), d3(1, 1, 1), 0, NULL, &p, sizeof p));
    OK(xrt_stream_synchronize(NULL));
    OK(xrt_module_unload(m));
    return out;
}

/* A kernel includes "xrt.h" with no option: xrt gives the compiler its
   kernel header (the kernel context type), cache on and off; the header's
   place is stable, so a second load is a hit. */
static const char includes_xrt_src[] = "#include \"xrt.h\"\n"
                                       "void value(const xrt_kernel_ctx *c, void *a) {\n"
                                       "    xrt_cpu_kernel_fn self = value;\n"
                                       "    **(int **)a = (int)(c->grid_dim.x + c->block_dim.y + sizeof(xrt_dim3)) + (self != 0);\n"
                                       "}\n";

static void test_kernel_includes_xrt_h(void **state)
{
    xrt_cache_stats a, b;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    unsetenv("XRT_CC"); /* the system compiler, its own include path */
    OK(xrt_cache_get_stats(&a));
    assert_int_equal(value_of(includes_xrt_src, NULL), 1 + 1 + 12 + 1);
    assert_int_equal(value_of(includes_xrt_src, NULL), 15);
    OK(xrt_cache_get_stats(&b));
    assert_int_equal(b.builds - a.builds, 1);
    assert_int_equal(b.hits - a.hits, 1);
    setenv("XRT_CACHE", "0", 1);
    assert_int_equal(value_of(includes_xrt_src, "-DPRIVATE"), 15);
    unsetenv("XRT_CACHE");
}

/* Builds src with cc into `so`. */
static void build_so(const char *src, const char *so)
{
    char c[600], cmd[1400];
    FILE *f;
    snprintf(c, sizeof c, "%s.c", so);
    f = fopen(c, "w");
    assert_non_null(f);
    fputs(src, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "cc -shared -fPIC -o '%s' '%s'", so, c);
    assert_int_equal(system(cmd), 0);
    unlink(c);
}

/* The name of the only entry (<32 hex>.so) in dir, into out. */
static void only_entry(const char *dir, char *out, size_t n)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int found = 0;
    assert_non_null(d);
    while ((e = readdir(d)) != NULL)
        if (strlen(e->d_name) == 35 && !strcmp(e->d_name + 32, ".so")) snprintf(out, n, "%s/%s", dir, e->d_name), found++;
    closedir(d);
    assert_int_equal(found, 1);
}

/* A directory of its own under /tmp (anyone may pass through), with `mode`,
   owned by `uid`. */
static void shared_tmp_dir(char *dir, size_t n, mode_t mode, uid_t uid)
{
    snprintf(dir, n, "/tmp/xrt-shared-XXXXXX");
    assert_non_null(mkdtemp(dir));
    assert_int_equal(chown(dir, uid, uid), 0);
    assert_int_equal(chmod(dir, mode), 0);
}

static void remove_tree(const char *dir)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* In a child that became uid/gid 65534: puts the planted build over every
   entry of the directory, as that user can where the directory lets them. */
typedef struct plant { const char *dir, *planted; } plant;
static int plant_child(void *arg)
{
    const plant *p = (const plant *)arg;
    DIR *d;
    struct dirent *e;
    char cmd[1400];
    int n = 0;
    CHILD_TRUE(setresgid(65534, 65534, 65534) == 0 && setresuid(65534, 65534, 65534) == 0);
    CHILD_TRUE((d = opendir(p->dir)) != NULL);
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".so")) continue;
        snprintf(cmd, sizeof cmd, "cp '%s' '%s/x.tmp' && mv -f '%s/x.tmp' '%s/%s'", p->planted, p->dir, p->dir, p->dir,
                 e->d_name);
        CHILD_TRUE(system(cmd) == 0);
        n++;
    }
    closedir(d);
    return 0;
}

/* A cache directory another user can write (world-writable, or theirs):
   never used; the module is built privately, with one warning. */
static void refuses_dir(mode_t mode, uid_t owner, const char *why)
{
    char dir[64], plant_dir[64], planted[128];
    xrt_cache_stats a, b;
    plant p;
    shared_tmp_dir(plant_dir, sizeof plant_dir, 0755, 0);
    snprintf(planted, sizeof planted, "%s/planted.so", plant_dir);
    build_so(planted_src, planted);
    assert_int_equal(chmod(planted, 0644), 0);
    shared_tmp_dir(dir, sizeof dir, mode, owner);
    setenv("XRT_CACHE_DIR", dir, 1);
    xrt_test_log_capture();
    assert_int_equal(value_of(genuine_src, NULL), 1);
    assert_int_equal(xrt_test_log.level, XRT_LOG_WARN);
    if (!strstr(xrt_test_log.last, why) || !strstr(xrt_test_log.last, "building privately"))
        fail_msg("logged \"%s\", not \"...%s...building privately\"", xrt_test_log.last, why);
    assert_int_equal(files_ending(dir, ".so"), 0); /* nothing written there */
    p.dir = dir, p.planted = planted;
    in_child("another user plants code in the cache", plant_child, &p, 30);
    OK(xrt_cache_get_stats(&a));
    assert_int_equal(value_of(genuine_src, NULL), 1); /* never the planted code */
    OK(xrt_cache_get_stats(&b));
    assert_int_equal(b.hits - a.hits, 0);
    assert_int_equal(b.builds - a.builds, 1);
    remove_tree(dir);
    remove_tree(plant_dir);
}

static void test_cache_refuses_others_dir(void **state)
{
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    SKIP_UNLESS(getuid() == 0, "not root: cannot act as a second user (uid 65534)");
    refuses_dir(0777, 0, "writable by group or others");
    refuses_dir(0755, 65534, "owned by uid 65534");
}

/* xrt's directory is 0700 and its entries 0700; an entry that is not the
   user's own regular file, or others can write, is never loaded. */
static void test_cache_entry_trust(void **state)
{
    char entry[700], planted[700];
    struct stat st;
    int c;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    assert_int_equal(value_of(genuine_src, NULL), 1);
    assert_int_equal(stat(sub_dir, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    only_entry(sub_dir, entry, sizeof entry);
    assert_int_equal(stat(entry, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    snprintf(planted, sizeof planted, "%s/planted.so", cache_dir);
    build_so(planted_src, planted);
    c = compiles();
    xrt_test_log_capture();
    if (getuid() == 0) { /* another user's file */
        unlink(entry);
        assert_int_equal(link(planted, entry), 0);
        assert_int_equal(chown(entry, 65534, 65534), 0);
        assert_int_equal(chmod(entry, 0700), 0);
        assert_int_equal(value_of(genuine_src, NULL), 1);
        assert_non_null(strstr(xrt_test_log.last, "owned by uid 65534"));
        assert_int_equal(compiles(), ++c);
        unlink(entry);
    }
    unlink(entry); /* a file others can write */
    assert_int_equal(link(planted, entry), 0);
    assert_int_equal(chown(entry, getuid(), getgid()), 0);
    assert_int_equal(chmod(entry, 0722), 0);
    assert_int_equal(value_of(genuine_src, NULL), 1);
    assert_non_null(strstr(xrt_test_log.last, "writable by group or others"));
    assert_int_equal(compiles(), ++c);
    unlink(entry); /* a symbolic link */
    assert_int_equal(chmod(planted, 0700), 0);
    assert_int_equal(symlink(planted, entry), 0);
    assert_int_equal(value_of(genuine_src, NULL), 1);
    assert_non_null(strstr(xrt_test_log.last, "not a regular file"));
    assert_int_equal(compiles(), ++c);
    unlink(entry);
    unlink(planted);
}

/* Eviction counts and deletes only xrt's own entry names, never through a
   symbolic link, and a directory named like an entry does not stop it. */
static void test_cache_evicts_only_entries(void **state)
{
    static const char *const keep[] = {"libuser.so", "0123456789abcdef0123456789abcdeg.so", "0123456789abcdef.so",
                                       "0123456789ABCDEF0123456789ABCDEF.so"};
    char path[700], target[700];
    xrt_cache_stats a, b;
    size_t i;
    FILE *f;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    assert_int_equal(mkdir(sub_dir, 0700), 0);
    for (i = 0; i < sizeof keep / sizeof keep[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", sub_dir, keep[i]);
        assert_non_null(f = fopen(path, "w"));
        fputs("the user's own file\n", f);
        fclose(f);
    }
    snprintf(target, sizeof target, "%s/target", cache_dir);
    assert_non_null(f = fopen(target, "w"));
    fclose(f);
    snprintf(path, sizeof path, "%s/00000000000000000000000000000001.so", sub_dir);
    assert_int_equal(symlink(target, path), 0);
    snprintf(path, sizeof path, "%s/00000000000000000000000000000000.so", sub_dir);
    assert_int_equal(mkdir(path, 0700), 0);
    setenv("XRT_CACHE_BYTES", "1", 1);
    OK(xrt_cache_get_stats(&a));
    assert_int_equal(value_of(genuine_src, NULL), 1);
    assert_int_equal(value_of(genuine_src, "-DSECOND"), 1);
    OK(xrt_cache_get_stats(&b));
    assert_int_equal(b.evictions - a.evictions, 1); /* the first entry, nothing else */
    for (i = 0; i < sizeof keep / sizeof keep[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", sub_dir, keep[i]);
        if (access(path, F_OK) != 0) fail_msg("%s was deleted", keep[i]);
    }
    assert_int_equal(access(target, F_OK), 0);
    snprintf(path, sizeof path, "%s/00000000000000000000000000000001.so", sub_dir);
    assert_int_equal(access(path, F_OK), 0);
    assert_int_equal(files_ending(sub_dir, ".so"), 4 + 2 + 1);
    unlink(target);
}

/* xrt_module_load leaves the caller's strtok alone (it splits without a
   hidden state), and two threads loading at once do not mix their words. */
static void *load_many(void *arg)
{
    const char *options = (const char *)arg;
    int i;
    for (i = 0; i < 40; i++) {
        xrt_module m;
        xrt_module_image im = source_image(genuine_src);
        if (xrt_module_load(&m, &im, 1, options) != XRT_SUCCESS) return (void *)options;
        xrt_module_unload(m);
    }
    return NULL;
}

static void test_cache_split_reentrant(void **state)
{
    char words[] = "one two three", opt[2][2048];
    xrt_cache_stats a, b;
    pthread_t t[2];
    void *r[2];
    int i, j;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    assert_string_equal(strtok(words, " "), "one");
    load_unload(kernels_src, "-DA=1 -DB=2");
    assert_string_equal(strtok(NULL, " "), "two");
    for (i = 0; i < 2; i++) {
        size_t n = 0;
        for (j = 0; j < 30; j++) n += (size_t)snprintf(opt[i] + n, sizeof opt[i] - n, "-DTHREAD%d_WORD%d=%d ", i, j, j);
    }
    OK(xrt_cache_get_stats(&a));
    for (i = 0; i < 2; i++) assert_int_equal(start_thread(&t[i], "cpu", load_many, opt[i]), 0);
    for (i = 0; i < 2; i++) pthread_join(t[i], &r[i]);
    OK(xrt_cache_get_stats(&b));
    assert_null(r[0]);
    assert_null(r[1]);
    assert_int_equal(b.builds - a.builds, 2);
}

/* Options and XRT_CC of any length reach the compiler whole. */
static void test_cache_long_options(void **state)
{
    char opt[4096], cc[2048];
    size_t n = 0, k = 0;
    int i;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    for (i = 0; i < 100; i++) n += (size_t)snprintf(opt + n, sizeof opt - n, "-DPADDING_WORD_NUMBER_%03d=1 ", i);
    snprintf(opt + n, sizeof opt - n, "-DVAL=123456");
    k = (size_t)snprintf(cc, sizeof cc, "%s", wrapper);
    for (i = 0; i < 50; i++) k += (size_t)snprintf(cc + k, sizeof cc - k, " -DCC_PADDING_WORD_%03d=1", i);
    snprintf(cc + k, sizeof cc - k, " -DCCVAL=777");
    setenv("XRT_CC", cc, 1);
    assert_true(strlen(opt) > 2048 && strlen(cc) > 1024);
    assert_int_equal(value_of(VALUE_SRC("VAL + CCVAL"), opt), 123456 + 777);
}

/* With XRT_CACHE_BYTES=0 every new entry evicts the others at once: a load
   still gets its own. A fast compiler (it copies a prebuilt module) makes
   many builds cheap. */
static char fast_cc[600];
static void write_fast_cc(void)
{
    char so[600];
    FILE *f;
    snprintf(so, sizeof so, "%s/prebuilt.so", cache_dir);
    build_so(genuine_src, so);
    snprintf(fast_cc, sizeof fast_cc, "%s/fastcc.sh", cache_dir);
    assert_non_null(f = fopen(fast_cc, "w"));
    fprintf(f, "#!/bin/sh\ncase \"$1\" in --version) echo fast 1; exit 0;; esac\n"
               "while [ $# -gt 1 ]; do [ \"$1\" = -o ] && out=$2; shift; done\nexec cp '%s' \"$out\"\n", so);
    fclose(f);
    chmod(fast_cc, 0755);
}

typedef struct evict_racer { int id, failed; char why[512]; } evict_racer;
static void *evict_race(void *arg)
{
    evict_racer *r = (evict_racer *)arg;
    char opt[64];
    int i;
    for (i = 0; i < 150; i++) {
        xrt_module m;
        xrt_module_image im = source_image(genuine_src);
        snprintf(opt, sizeof opt, "-DRACER=%d -DROUND=%d", r->id, i);
        if (xrt_module_load(&m, &im, 1, opt) != XRT_SUCCESS) {
            if (!r->failed++) snprintf(r->why, sizeof r->why, "%s", xrt_get_last_error_string());
            continue;
        }
        xrt_module_unload(m);
    }
    return NULL;
}

static void test_cache_evict_race(void **state)
{
    evict_racer r[2];
    pthread_t t[2];
    int i;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    write_fast_cc();
    setenv("XRT_CC", fast_cc, 1);
    setenv("XRT_CACHE_BYTES", "0", 1);
    for (i = 0; i < 2; i++) {
        r[i].id = i, r[i].failed = 0, r[i].why[0] = 0;
        assert_int_equal(start_thread(&t[i], "cpu", evict_race, &r[i]), 0);
    }
    for (i = 0; i < 2; i++) pthread_join(t[i], NULL);
    for (i = 0; i < 2; i++)
        if (r[i].failed) fail_msg("thread %d: %d of 150 loads failed, first: %s", i, r[i].failed, r[i].why);
}

/* The compiler that runs is the one identified: a changed program behind a
   wrapper rebuilds, and an empty PATH element is the working directory, as
   posix_spawnp takes it. */
static void test_cache_compiler_identity(void **state)
{
    char wrap[600], cc[1300], here[600], cwd[4096], *path;
    FILE *f;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    snprintf(wrap, sizeof wrap, "%s/wrap.sh", cache_dir);
    assert_non_null(f = fopen(wrap, "w"));
    fputs("#!/bin/sh\nexec \"$@\"\n", f);
    fclose(f);
    chmod(wrap, 0755);
    snprintf(cc, sizeof cc, "%s %s", wrap, wrapper);
    setenv("XRT_CC", cc, 1);
    load_unload(kernels_src, NULL);
    assert_int_equal(compiles(), 1);
    load_unload(kernels_src, NULL);
    assert_int_equal(compiles(), 1);
    sleep_ms(20);
    write_wrapper("fakecc 2.0"); /* the compiler behind the wrapper changed */
    load_unload(kernels_src, NULL);
    assert_int_equal(compiles(), 2);
    /* PATH=":/usr/bin:/bin": the empty element is "." */
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(here, sizeof here, "%s/xrt-cc-here", cache_dir);
    assert_int_equal(link(wrapper, here), 0);
    path = strdup(getenv("PATH"));
    assert_int_equal(chdir(cache_dir), 0);
    setenv("PATH", ":/usr/bin:/bin", 1);
    setenv("XRT_CC", "xrt-cc-here", 1);
    {
        xrt_module m;
        xrt_module_image im = source_image(kernels_src);
        xrt_status st = xrt_module_load(&m, &im, 1, "-DHERE");
        setenv("PATH", path, 1);
        assert_int_equal(chdir(cwd), 0);
        free(path);
        unlink(here);
        OK(st);
        OK(xrt_module_unload(m));
    }
    assert_int_equal(compiles(), 3);
}

/* A cache directory that exists but cannot be written: built privately, as
   where it cannot be created, with a warning. */
static char ro_dir[64];
static int unwritable_child(void *arg)
{
    xrt_module m = NULL;
    xrt_module_image im = source_image(genuine_src);
    (void)arg;
    CHILD_TRUE(setresgid(65534, 65534, 65534) == 0 && setresuid(65534, 65534, 65534) == 0);
    setenv("XRT_CACHE_DIR", ro_dir, 1);
    setenv("XRT_CC", "cc", 1);
    setenv("TMPDIR", "/tmp", 1);
    xrt_test_log_capture();
    CHILD_OK(xrt_module_load(&m, &im, 1, NULL));
    CHILD_OK(xrt_module_unload(m));
    if (xrt_test_log.count != 1 || xrt_test_log.level != XRT_LOG_WARN || !strstr(xrt_test_log.last, "cannot be written") ||
        !strstr(xrt_test_log.last, "building privately"))
        CHILD_FAIL("logged %d lines, the last \"%s\"", xrt_test_log.count, xrt_test_log.last);
    xrt_shutdown();
    return 0;
}

static void test_cache_unwritable_dir(void **state)
{
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    SKIP_UNLESS(getuid() == 0, "not root: cannot act as a second user (uid 65534), for whom a mode is binding");
    shared_tmp_dir(ro_dir, sizeof ro_dir, 0500, 65534);
    in_child("a read-only cache directory", unwritable_child, NULL, 60);
    remove_tree(ro_dir);
}

/* Temporaries and locks a killed build left behind are swept once stale;
   those of a build in progress, and other files, stay. */
static void test_cache_sweeps_leftovers(void **state)
{
    static const char *const stale[] = {"0123456789abcdef0123456789abcdef.so.tmp.4000000.1",
                                        "0123456789abcdef0123456789abcdef.so.tmp.4000000.1.c",
                                        "0123456789abcdef0123456789abcdef.lock", "cc-0123456789abcdef.id.tmp.4000000"};
    static const char *const fresh[] = {"fedcba9876543210fedcba9876543210.so.tmp.4000001.1",
                                        "fedcba9876543210fedcba9876543210.lock", "notes.txt"};
    struct timespec old[2];
    char path[700];
    size_t i;
    FILE *f;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    assert_int_equal(mkdir(sub_dir, 0700), 0);
    clock_gettime(CLOCK_REALTIME, &old[0]);
    old[0].tv_sec -= 2 * 3600;
    old[1] = old[0];
    for (i = 0; i < sizeof stale / sizeof stale[0] + sizeof fresh / sizeof fresh[0]; i++) {
        int is_stale = i < sizeof stale / sizeof stale[0];
        snprintf(path, sizeof path, "%s/%s", sub_dir, is_stale ? stale[i] : fresh[i - sizeof stale / sizeof stale[0]]);
        assert_non_null(f = fopen(path, "w"));
        fclose(f);
        if (is_stale || !strcmp(path + strlen(path) - 9, "notes.txt")) assert_int_equal(utimensat(AT_FDCWD, path, old, 0), 0);
    }
    assert_int_equal(value_of(genuine_src, NULL), 1);
    for (i = 0; i < sizeof stale / sizeof stale[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", sub_dir, stale[i]);
        if (access(path, F_OK) == 0) fail_msg("%s was not swept", stale[i]);
    }
    for (i = 0; i < sizeof fresh / sizeof fresh[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", sub_dir, fresh[i]);
        if (access(path, F_OK) != 0) fail_msg("%s was deleted", fresh[i]);
    }
    assert_int_equal(files_ending(sub_dir, ".lock"), 2); /* the fresh one, the new entry's */
    {
        xrt_module m;
        xrt_module_image im = source_image("not C\n");
        FAILS(xrt_module_load(&m, &im, 1, NULL), XRT_ERROR_COMPILE_FAILED, "exited with");
    }
    assert_int_equal(files_ending(sub_dir, ".lock"), 2); /* a failed build leaves no lock */
}

/* With SIGCHLD ignored the compiler's status cannot be had: the run counts
   as failed, and says why. */
static int sigchld_child(void *arg)
{
    xrt_module m = NULL;
    xrt_module_image im = source_image("this is not C\n");
    (void)arg;
    signal(SIGCHLD, SIG_IGN);
    CHILD_EXPECT(xrt_module_load(&m, &im, 1, NULL), XRT_ERROR_COMPILE_FAILED);
    CHILD_TRUE(strstr(xrt_get_last_error_string(), "waitpid") != NULL);
    xrt_shutdown();
    return 0;
}

static void test_cache_sigchld_ignored(void **state)
{
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    in_child("a compile with SIGCHLD ignored", sigchld_child, NULL, 60);
}

/* XRT_CACHE_BYTES is digits only: anything else is one warning and the
   default. */
static void test_cache_bytes_digits_only(void **state)
{
    xrt_cache_stats a, b;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    setenv("XRT_CACHE_BYTES", " -1", 1);
    xrt_test_log_capture();
    OK(xrt_cache_get_stats(&a));
    assert_int_equal(value_of(genuine_src, NULL), 1);
    assert_int_equal(xrt_test_log.count, 1);
    assert_non_null(strstr(xrt_test_log.last, "XRT_CACHE_BYTES= -1: not a size (valid: digits 0-9 with an optional k, m or g"));
    assert_int_equal(value_of(genuine_src, "-DSECOND"), 1);
    OK(xrt_cache_get_stats(&b));
    assert_int_equal(b.evictions - a.evictions, 0); /* the default: 1 GiB */
}

/* XRT_CACHE_BYTES is read at each use of the cache, a hit included: a bad
   value warns then, not only once a build makes the cache evict. */
static void test_cache_bytes_checked_on_a_hit(void **state)
{
    xrt_cache_stats a, b;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    assert_int_equal(value_of(genuine_src, NULL), 1); /* built */
    setenv("XRT_CACHE_BYTES", "2q", 1);
    xrt_test_log_capture();
    OK(xrt_cache_get_stats(&a));
    assert_int_equal(value_of(genuine_src, NULL), 1);
    OK(xrt_cache_get_stats(&b));
    assert_int_equal(b.hits - a.hits, 1);
    assert_int_equal(b.builds - a.builds, 0);
    assert_int_equal(xrt_test_log.count, 1);
    assert_non_null(strstr(xrt_test_log.last, "XRT_CACHE_BYTES=2q: not a size (valid: digits 0-9 with an optional k, m or g"));
}

/* An XRT_CACHE_DIR that is not a directory (a regular file) is a cache that
   cannot be used: the module is built privately, with one warning naming
   it, as for the other unusable directories. */
static void test_cache_dir_a_file(void **state)
{
    char file[400];
    FILE *f;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    snprintf(file, sizeof file, "%s.file", sub_dir);
    assert_non_null(f = fopen(file, "w"));
    fclose(f);
    setenv("XRT_CACHE_DIR", file, 1);
    xrt_test_log_capture();
    assert_int_equal(value_of(genuine_src, NULL), 1);
    assert_int_equal(value_of(genuine_src, NULL), 1);
    assert_int_equal(xrt_test_log.count, 1);
    if (!strstr(xrt_test_log.last, "kernel cache ") || !strstr(xrt_test_log.last, ".file") ||
        !strstr(xrt_test_log.last, "not a directory") || !strstr(xrt_test_log.last, "building privately"))
        fail_msg("the warning is \"%s\"", xrt_test_log.last);
    assert_int_equal(remove(file), 0);
}

/* An XRT_CACHE_DIR too long for an entry's path is not cut short: the
   module is built privately, with a warning, and nothing is made in a
   parent directory. */
static void test_cache_long_dir(void **state)
{
    char dir[4200];
    size_t n;
    struct stat st;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    n = (size_t)snprintf(dir, sizeof dir, "%s", sub_dir);
    while (n < 4040) n += (size_t)snprintf(dir + n, sizeof dir - n, "/%.100s", "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd");
    assert_true(n < PATH_MAX);
    setenv("XRT_CACHE_DIR", dir, 1);
    xrt_test_log_capture();
    assert_int_equal(value_of(genuine_src, NULL), 1);
    assert_int_equal(xrt_test_log.level, XRT_LOG_WARN);
    assert_non_null(strstr(xrt_test_log.last, "too long"));
    assert_int_equal(stat(sub_dir, &st), -1);
}

/* A build's key covers every file it read: a changed header, one reached
   through a relative -I (resolved against the working directory) and one
   found through CPATH each rebuild; unchanged, they hit. */
static void write_text(const char *dir, const char *name, const char *text)
{
    char path[700];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_non_null(f = fopen(path, "w"));
    fputs(text, f);
    fclose(f);
}

static void test_cache_includes(void **state)
{
    static const char src[] = "#include <myk.h>\n" VALUE_SRC("MYK");
    char inc[300], a[400], b[400], opt[700], cwd[4096];
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    snprintf(inc, sizeof inc, "%s/inc", cache_dir);
    snprintf(a, sizeof a, "%s.a", inc);
    snprintf(b, sizeof b, "%s.b", inc);
    assert_int_equal(mkdir(inc, 0700), 0);
    assert_int_equal(mkdir(a, 0700), 0);
    assert_int_equal(mkdir(b, 0700), 0);
    write_text(inc, "myk.h", "#define MYK 2\n");
    snprintf(opt, sizeof opt, "-I%s", inc);
    assert_int_equal(value_of(src, opt), 2);
    assert_int_equal(value_of(src, opt), 2);
    assert_int_equal(compiles(), 1);
    write_text(inc, "myk.h", "#define MYK 3\n"); /* a changed header */
    assert_int_equal(value_of(src, opt), 3);
    assert_int_equal(value_of(src, opt), 3);
    assert_int_equal(compiles(), 2);
    write_text(inc, "myk.h", "#define MYK 2\n"); /* and back */
    assert_int_equal(value_of(src, opt), 2);
    /* -I. in two working directories */
    write_text(a, "myk.h", "#define MYK 5\n");
    write_text(b, "myk.h", "#define MYK 7\n");
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(a), 0);
    assert_int_equal(value_of(src, "-I."), 5);
    assert_int_equal(chdir(b), 0);
    assert_int_equal(value_of(src, "-I."), 7);
    assert_int_equal(chdir(cwd), 0);
    /* CPATH */
    write_text(a, "myk.h", "#define MYK 11\n");
    setenv("CPATH", a, 1);
    assert_int_equal(value_of(src, NULL), 11);
    write_text(a, "myk.h", "#define MYK 12\n");
    assert_int_equal(value_of(src, NULL), 12);
    unsetenv("CPATH");
}

/* The key covers what the compiler could have read, not only what it did
   (issue 46 item 10): the contents of a response file (@file, nested ones
   too), and the include directories searched before the header it found,
   so a header of that name that appears in an earlier -I directory (given
   directly or in a response file) is a miss, never the old build. */
static void test_cache_could_have_read(void **state)
{
    static const char rsrc[] = VALUE_SRC("RV");
    static const char isrc[] = "#include <myk.h>\n#include <sub/mys.h>\n" VALUE_SRC("MYK + MYS");
    char rsp[400], inner[400], a[420], b[420], sub[440], opt[1300];
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    snprintf(rsp, sizeof rsp, "%s/opts.rsp", sub_dir);
    snprintf(inner, sizeof inner, "%s/inner.rsp", sub_dir);
    assert_int_equal(mkdir(sub_dir, 0700) == 0 || errno == EEXIST, 1);
    write_text(sub_dir, "opts.rsp", "-DRV=21\n");
    snprintf(opt, sizeof opt, "@%s", rsp);
    assert_int_equal(value_of(rsrc, opt), 21);
    assert_int_equal(value_of(rsrc, opt), 21);
    assert_int_equal(compiles(), 1);
    write_text(sub_dir, "opts.rsp", "-DRV=22\n"); /* a changed response file */
    assert_int_equal(value_of(rsrc, opt), 22);
    snprintf(opt, sizeof opt, "-DRV=20 @%s", inner);
    snprintf(a, sizeof a, "@%s\n", rsp);
    write_text(sub_dir, "inner.rsp", a); /* a response file that names another */
    assert_int_equal(value_of(rsrc, opt), 22);
    write_text(sub_dir, "opts.rsp", "-URV -DRV=23\n");
    assert_int_equal(value_of(rsrc, opt), 23);
    assert_int_equal(compiles(), 4);
    /* -Ia -Ib: headers only in b, then one of the same name in a */
    snprintf(a, sizeof a, "%s/shadow.a", sub_dir);
    snprintf(b, sizeof b, "%s/shadow.b", sub_dir);
    assert_int_equal(mkdir(a, 0700), 0);
    assert_int_equal(mkdir(b, 0700), 0);
    snprintf(sub, sizeof sub, "%s/sub", a);
    assert_int_equal(mkdir(sub, 0700), 0); /* an earlier directory with the subdirectory, but not the file */
    snprintf(sub, sizeof sub, "%s/sub", b);
    assert_int_equal(mkdir(sub, 0700), 0);
    write_text(b, "myk.h", "#define MYK 100\n");
    write_text(sub, "mys.h", "#define MYS 1\n");
    snprintf(opt, sizeof opt, "-I%s -I%s", a, b);
    assert_int_equal(value_of(isrc, opt), 101);
    assert_int_equal(value_of(isrc, opt), 101);
    assert_int_equal(compiles(), 5);
    write_text(a, "myk.h", "#define MYK 200\n"); /* now found first */
    assert_int_equal(value_of(isrc, opt), 201);
    snprintf(sub, sizeof sub, "%s/sub", a);
    write_text(sub, "mys.h", "#define MYS 2\n");
    assert_int_equal(value_of(isrc, opt), 202);
    assert_int_equal(value_of(isrc, opt), 202);
    assert_int_equal(compiles(), 7);
    /* the same directories named in a response file */
    snprintf(opt, sizeof opt, "-I%s\n-I%s\n", a, b);
    write_text(sub_dir, "opts.rsp", opt);
    snprintf(opt, sizeof opt, "@%s", rsp);
    snprintf(sub, sizeof sub, "%s/myk.h", a);
    assert_int_equal(unlink(sub), 0);
    assert_int_equal(value_of(isrc, opt), 102);
    write_text(a, "myk.h", "#define MYK 300\n");
    assert_int_equal(value_of(isrc, opt), 302);
    assert_int_equal(compiles(), 9);
}

/* A cache directory on a file system mounted noexec: its entries cannot be
   mapped as code, so every load builds privately (with one warning) and
   succeeds (issue 46 item 15). Needs a mount namespace of its own. */
static char noexec_dir[300];
static int noexec_mount(void)
{
    return unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
           mount("xrt-noexec", noexec_dir, "tmpfs", MS_NOEXEC | MS_NOSUID | MS_NODEV, "mode=0700") == 0;
}

static int noexec_child(void *arg)
{
    int i, warned = 0;
    char cache[400];
    (void)arg;
    CHILD_TRUE(noexec_mount());
    snprintf(cache, sizeof cache, "%s/cache", noexec_dir);
    setenv("XRT_CACHE_DIR", cache, 1);
    setenv("TMPDIR", "/tmp", 1);
    xrt_test_log_capture();
    for (i = 0; i < 3; i++) {
        int before = xrt_test_log.count;
        CHILD_TRUE(value_of(genuine_src, NULL) == 1);
        if (xrt_test_log.count != before) {
            warned++;
            if (xrt_test_log.level != XRT_LOG_WARN || !strstr(xrt_test_log.last, "noexec") ||
                !strstr(xrt_test_log.last, "building privately"))
                CHILD_FAIL("logged \"%s\"", xrt_test_log.last);
        }
    }
    if (warned != 1) CHILD_FAIL("%d warnings in three loads, expected one", warned);
    xrt_shutdown();
    umount2(noexec_dir, MNT_DETACH); /* the namespace goes with the process, but perhaps not at once */
    return 0;
}

static void test_cache_noexec_dir(void **state)
{
    pid_t pid;
    int status = -1;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    snprintf(noexec_dir, sizeof noexec_dir, "%s/noexec", cache_dir);
    assert_int_equal(mkdir(noexec_dir, 0700) == 0 || errno == EEXIST, 1);
    if ((pid = fork()) == 0) _exit(noexec_mount() && umount2(noexec_dir, MNT_DETACH) == 0 ? 0 : 1); /* may this process mount? */
    assert_true(pid > 0 && waitpid(pid, &status, 0) == pid);
    SKIP_UNLESS(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                "no noexec tmpfs can be mounted here (needs CAP_SYS_ADMIN in a mount namespace)");
    in_child("a cache directory on a noexec file system", noexec_child, NULL, 120);
    rmdir(noexec_dir);
}

/* Each part of the key that no file the build read can stand for: the
   options in XRT_CC's own words, a wrapper that changed while its --version
   did not, and an include path from the environment that now names another
   directory (whose header of the same name the old entry never read). */
static void test_cache_key_parts(void **state)
{
    static const char src[] = "#include <envk.h>\n" VALUE_SRC("ENVK * 100 + CCW");
    char cc[700], wrap[400], text[900], a[400], b[400];
    int n;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    snprintf(a, sizeof a, "%s/env.a", cache_dir);
    snprintf(b, sizeof b, "%s/env.b", cache_dir);
    assert_int_equal(mkdir(a, 0700), 0);
    assert_int_equal(mkdir(b, 0700), 0);
    write_text(a, "envk.h", "#define ENVK 1\n");
    write_text(b, "envk.h", "#define ENVK 2\n");
    setenv("C_INCLUDE_PATH", a, 1);
    /* XRT_CC's words */
    snprintf(cc, sizeof cc, "%s -DCCW=3", wrapper);
    setenv("XRT_CC", cc, 1);
    assert_int_equal(value_of(src, NULL), 103);
    snprintf(cc, sizeof cc, "%s -DCCW=4", wrapper);
    setenv("XRT_CC", cc, 1);
    assert_int_equal(value_of(src, NULL), 104);
    /* a wrapper with the same --version that now compiles otherwise */
    snprintf(wrap, sizeof wrap, "%s/same-version.sh", cache_dir);
    snprintf(text, sizeof text, "#!/bin/sh\nexec %s -DCCW=5 \"$@\"\n", wrapper);
    write_text(cache_dir, "same-version.sh", text);
    assert_int_equal(chmod(wrap, 0755), 0);
    setenv("XRT_CC", wrap, 1);
    assert_int_equal(value_of(src, NULL), 105);
    n = compiles();
    assert_int_equal(value_of(src, NULL), 105); /* a hit */
    assert_int_equal(compiles(), n);
    sleep_ms(20); /* its modification time must change */
    snprintf(text, sizeof text, "#!/bin/sh\nexec %s -DCCW=6 \"$@\"\n", wrapper);
    write_text(cache_dir, "same-version.sh", text);
    assert_int_equal(chmod(wrap, 0755), 0);
    assert_int_equal(value_of(src, NULL), 106);
    /* the environment's include path names another directory */
    setenv("C_INCLUDE_PATH", b, 1);
    assert_int_equal(value_of(src, NULL), 206);
    n = compiles();
    setenv("C_INCLUDE_PATH", a, 1);
    assert_int_equal(value_of(src, NULL), 106); /* both entries kept: a hit */
    assert_int_equal(compiles(), n);
    unsetenv("C_INCLUDE_PATH");
}

/* A static library named in the options is part of what a build read: a
   changed library is another entry. */
static void write_lib(const char *dir, int value)
{
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "printf 'int libv(void) { return %d; }\\n' > %s/v.c && cc -c -fPIC -o %s/v.o %s/v.c && "
             "rm -f %s/libv.a && ar rcs %s/libv.a %s/v.o", value, dir, dir, dir, dir, dir, dir);
    assert_int_equal(system(cmd), 0);
}

static void test_cache_libraries(void **state)
{
    static const char src[] = "int libv(void);\n" VALUE_SRC("libv()");
    char dir[300], opt[700];
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    snprintf(dir, sizeof dir, "%s/lib", cache_dir);
    assert_int_equal(mkdir(dir, 0700), 0);
    write_lib(dir, 2);
    snprintf(opt, sizeof opt, "-Wl,--whole-archive %s/libv.a -Wl,--no-whole-archive", dir);
    assert_int_equal(value_of(src, opt), 2);
    assert_int_equal(value_of(src, opt), 2);
    assert_int_equal(compiles(), 1);
    write_lib(dir, 3); /* a changed library */
    assert_int_equal(value_of(src, opt), 3);
    assert_int_equal(value_of(src, opt), 3);
    assert_int_equal(compiles(), 2);
    snprintf(opt, sizeof opt, "-L%s -Wl,--whole-archive -lv -Wl,--no-whole-archive", dir); /* found through -L */
    write_lib(dir, 4);
    assert_int_equal(value_of(src, opt), 4);
    write_lib(dir, 5);
    assert_int_equal(value_of(src, opt), 5);
    assert_int_equal(value_of(src, opt), 5);
    assert_int_equal(compiles(), 4);
}

/* A linker that cannot list its inputs (GNU ld before 2.35, here a wrapper
   that refuses the option as it does): the build runs again without the
   option, loads, and is not cached. */
static int saw_unlisted;
static void watch_unlisted(xrt_log_level level, const char *msg, void *user)
{
    (void)level, (void)user;
    if (strstr(msg, "does not list its inputs (--dependency-file): the module is not cached")) saw_unlisted = 1;
}

static void test_cache_linker_without_list(void **state)
{
    FILE *f = fopen(wrapper, "w");
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    assert_non_null(f);
    fprintf(f, "#!/bin/sh\ncase \"$1\" in --version) echo old; exit 0;; esac\n" NOT_COUNTED "echo x >> '%s'\n"
               "for a; do case \"$a\" in *--dependency-file*) echo \"ld: unrecognized option '$a'\" >&2; exit 1;; esac; done\n"
               "exec cc \"$@\"\n", counter);
    fclose(f);
    saw_unlisted = 0;
    xrt_set_log_callback(watch_unlisted, NULL);
    xrt_set_log_level(XRT_LOG_INFO);
    assert_int_equal(value_of(genuine_src, NULL), 1);
    xrt_test_log_calls(); /* back to the group's capture and level */
    assert_true(saw_unlisted);
    assert_int_equal(files_ending(sub_dir, ".so"), 0);
    assert_int_equal(value_of(genuine_src, NULL), 1);
    assert_int_equal(compiles(), 4);
}

/* A child forked while a build holds its lock shares the lock's open file:
   the lock is released by the build, not only when every copy is closed,
   or a later build of that key in any process would wait for the child. */
static void *load_genuine(void *arg)
{
    (void)arg;
    load_unload(genuine_src, NULL);
    return NULL;
}

static void *load_genuine_watched(void *arg)
{
    xrt_module m;
    xrt_module_image im = source_image(genuine_src);
    xrt_status st = xrt_module_load(&m, &im, 1, NULL);
    if (st == XRT_SUCCESS) xrt_module_unload(m);
    __atomic_store_n((int *)arg, (int)st, __ATOMIC_RELEASE);
    return NULL;
}

static void test_cache_lock_across_fork(void **state)
{
    char entry[700];
    pthread_t t;
    pid_t child;
    int i, done, st = -1;
    double forked, first_ms;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    setenv("KERNELS_SLOW_CC", "1", 1);
    write_wrapper("fakecc 1.0"); /* each compile takes 0.3 s */
    unsetenv("KERNELS_SLOW_CC");
    assert_int_equal(start_thread(&t, "cpu", load_genuine, NULL), 0);
    for (i = 0; i < 5000 && files_ending(sub_dir, ".lock") == 0; i++) sleep_ms(1); /* the build holds its lock */
    assert_int_equal(files_ending(sub_dir, ".lock"), 1);
    fflush(NULL);
    forked = now_ms(CLOCK_MONOTONIC);
    if ((child = fork()) == 0) { /* keeps its copy of the lock's file open (and of the compiler's pipe, if open) */
        sleep_ms(10000);
        _exit(0);
    }
    assert_true(child > 0);
    pthread_join(t, NULL);
    first_ms = now_ms(CLOCK_MONOTONIC) - forked;
    if (first_ms > 5000 * xrt_test_slowdown()) { /* the build is 0.3 s, the child lives 10 s */
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
        fail_msg("the build under way at the fork took %.0f ms: it waited for the child", first_ms);
    }
    only_entry(sub_dir, entry, sizeof entry);
    assert_int_equal(unlink(entry), 0); /* evicted: the next load builds, under the same lock */
    done = finishes_within(3000, "cpu", load_genuine_watched, &st);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    if (!done) { /* the load waited for the child: wait for it now that the child is gone */
        for (i = 0; i < 5000 && __atomic_load_n(&st, __ATOMIC_ACQUIRE) < 0; i++) sleep_ms(1);
        fail_msg("a build waited for the lock of a forked child");
    }
    OK((xrt_status)st);
}

/* A build is over when its compiler exits, not when every copy of the
   compiler's output pipe is closed: a process the compiler leaves behind with
   its output (a wrapper that starts a server, as sccache does; a child the
   program forked while the build was starting) must not hold the build. */
static void test_cache_compiler_leaves_process(void **state)
{
    char pidfile[600];
    FILE *f = fopen(wrapper, "w");
    int i, done, st = -1;
    long pid = 0;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    assert_non_null(f);
    snprintf(pidfile, sizeof pidfile, "%s.pid", wrapper);
    fprintf(f, "#!/bin/sh\ncase \"$1\" in --version) echo lingering; exit 0;; esac\n" NOT_COUNTED "echo x >> '%s'\n"
               "sleep 30 & echo $! > '%s'\nexec cc \"$@\"\n", counter, pidfile);
    fclose(f);
    chmod(wrapper, 0755);
    done = finishes_within(5000, "cpu", load_genuine_watched, &st);
    if ((f = fopen(pidfile, "r")) != NULL) { /* the process left behind, holding the pipe */
        if (fscanf(f, "%ld", &pid) != 1) pid = 0;
        fclose(f);
    }
    if (pid > 0) kill((pid_t)pid, SIGKILL);
    if (!done) { /* the build waited for it: wait for the build now that it is gone */
        for (i = 0; i < 5000 && __atomic_load_n(&st, __ATOMIC_ACQUIRE) < 0; i++) sleep_ms(1);
        fail_msg("a build waited for a process its compiler left behind with its output");
    }
    assert_true(pid > 0);
    OK((xrt_status)st);
    assert_int_equal(compiles(), 1);
}

/* >> what the key covers, and what is never cached. A log callback that
   notes whether a message with `watch_text` was logged. */
static const char *watch_text;
static int watch_seen;
static void watch_log(xrt_log_level level, const char *msg, void *user)
{
    (void)level, (void)user;
    if (watch_text && strstr(msg, watch_text)) watch_seen = 1;
}

static void watch_start(const char *text)
{
    watch_text = text, watch_seen = 0;
    xrt_set_log_callback(watch_log, NULL);
    xrt_set_log_level(XRT_LOG_INFO);
}

/* Back to the group's capture; whether the text was logged. */
static int watch_end(void)
{
    xrt_test_log_calls();
    return watch_seen;
}

/* With umask 002 (a user with a group of their own) the compiler writes its
   dependency lists group-writable: they are the build's own temporaries in
   the cache's private directory, and the build is cached all the same. */
static void test_cache_umask_group_writable(void **state)
{
    mode_t old;
    int v1, v2;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    old = umask(002);
    v1 = value_of(genuine_src, NULL);
    v2 = value_of(genuine_src, NULL);
    umask(old);
    assert_int_equal(v1, 1);
    assert_int_equal(v2, 1);
    assert_int_equal(compiles(), 1);
    assert_int_equal(files_ending(sub_dir, ".so"), 1);
}

/* The environment that changes a build is in the key: each variable set
   is a miss, and PATH, which picks the programs the compiler runs (here the
   wrapper's cc), is another build. */
static void test_cache_environment(void **state)
{
    static const char *const vars[] = {"CPLUS_INCLUDE_PATH", "OBJC_INCLUDE_PATH", "LD_RUN_PATH", "CCC_OVERRIDE_OPTIONS",
                                       "CLANG_NO_DEFAULT_CONFIG"};
    static const char src[] = "#ifndef PV\n#define PV 1\n#endif\n" VALUE_SRC("PV");
    char bin[400], text[4600], path[4600], old[4096];
    size_t i;
    int v;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    snprintf(old, sizeof old, "%s", getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    assert_int_equal(value_of(src, NULL), 1);
    for (i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        setenv(vars[i], "/nonexistent-xrt", 1);
        v = value_of(src, NULL);
        unsetenv(vars[i]);
        assert_int_equal(v, 1);
        if (compiles() != (int)i + 2) fail_msg("%s set: a hit, not a new build", vars[i]);
    }
    snprintf(bin, sizeof bin, "%s/pathbin", cache_dir);
    assert_int_equal(mkdir(bin, 0700), 0);
    snprintf(text, sizeof text, "#!/bin/sh\nPATH='%s' exec cc -DPV=2 \"$@\"\n", old);
    write_text(bin, "cc", text);
    snprintf(path, sizeof path, "%s/cc", bin);
    assert_int_equal(chmod(path, 0755), 0);
    snprintf(path, sizeof path, "%s:%s", bin, old);
    setenv("PATH", path, 1);
    v = value_of(src, NULL);
    setenv("PATH", old, 1);
    assert_int_equal(v, 2);
}

/* A build whose source or headers use __DATE__, __TIME__ or __TIMESTAMP__
   is never cached (as ccache): a hit would freeze the time. */
static void test_cache_time_macros(void **state)
{
    static const char src[] = "static const char *stamp = __TIME__;\n" VALUE_SRC("stamp[2] == ':'");
    static const char hsrc[] = "#include <stamp.h>\n" VALUE_SRC("sizeof STAMP == 12");
    char inc[400], opt[500];
    int seen;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    watch_start("__DATE__, __TIME__ or __TIMESTAMP__");
    assert_int_equal(value_of(src, NULL), 1);
    assert_int_equal(value_of(src, NULL), 1);
    seen = watch_end();
    assert_int_equal(compiles(), 2);
    assert_true(seen);
    snprintf(inc, sizeof inc, "%s/stamp", cache_dir);
    assert_int_equal(mkdir(inc, 0700), 0);
    write_text(inc, "stamp.h", "#define STAMP __DATE__\n");
    snprintf(opt, sizeof opt, "-I%s", inc);
    assert_int_equal(value_of(hsrc, opt), 1);
    assert_int_equal(value_of(hsrc, opt), 1);
    assert_int_equal(compiles(), 4);
    assert_int_equal(files_ending(sub_dir, ".so"), 0);
}

/* Every temporary a killed build leaves is swept once stale: those of an
   entry (.c, .d, .ld, .absent), of a manifest, and of the kernel header in
   include-<hex>/; a fresh one and other names stay. */
static void test_cache_sweeps_build_temporaries(void **state)
{
    static const char *const stale[] = {"0123456789abcdef0123456789abcdef.so.tmp.4000000.1.absent",
                                        "0123456789abcdef0123456789abcdef.so.tmp.4000000.1.d",
                                        "0123456789abcdef0123456789abcdef.so.tmp.4000000.1.ld",
                                        "0123456789abcdef0123456789abcdef.deps.tmp.4000000.1", "INC/xrt.h.tmp.4000000.2"};
    static const char *const kept[] = {"INC/xrt.h.tmp.4000001.3", "INC/notes.txt", "INC/xrt.h"};
    struct timespec old[2];
    char inc[64] = "", path[800];
    DIR *d;
    struct dirent *e;
    size_t i;
    FILE *f;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    assert_int_equal(value_of(genuine_src, NULL), 1); /* makes include-<hex>/ */
    assert_non_null(d = opendir(sub_dir));
    while ((e = readdir(d)) != NULL)
        if (!strncmp(e->d_name, "include-", 8)) snprintf(inc, sizeof inc, "%.40s", e->d_name);
    closedir(d);
    assert_true(inc[0]);
    clock_gettime(CLOCK_REALTIME, &old[0]);
    old[0].tv_sec -= 2 * 3600;
    old[1] = old[0];
    for (i = 0; i < sizeof stale / sizeof stale[0] + 2; i++) {
        const char *name = i < sizeof stale / sizeof stale[0] ? stale[i] : kept[i - sizeof stale / sizeof stale[0]];
        snprintf(path, sizeof path, "%s/%s%s", sub_dir, strncmp(name, "INC/", 4) ? "" : inc, name + (strncmp(name, "INC/", 4) ? 0 : 3));
        assert_non_null(f = fopen(path, "w"));
        fclose(f);
        if (strstr(name, "4000001") == NULL) assert_int_equal(utimensat(AT_FDCWD, path, old, 0), 0);
    }
    assert_int_equal(value_of(genuine_src, "-DNEW"), 1); /* a new entry: evicts, and sweeps */
    for (i = 0; i < sizeof stale / sizeof stale[0] + 3; i++) {
        int is_stale = i < sizeof stale / sizeof stale[0];
        const char *name = is_stale ? stale[i] : kept[i - sizeof stale / sizeof stale[0]];
        snprintf(path, sizeof path, "%s/%s%s", sub_dir, strncmp(name, "INC/", 4) ? "" : inc, name + (strncmp(name, "INC/", 4) ? 0 : 3));
        if (is_stale && access(path, F_OK) == 0) fail_msg("%s was not swept", name);
        if (!is_stale && access(path, F_OK) != 0) fail_msg("%s was deleted", name);
    }
}

/* The list of paths a build needs absent is written private whatever the
   umask, so the cache can trust and keep it: with umask 002 a header that
   appears in an earlier -I directory is still a miss. */
static void test_cache_absent_list_private(void **state)
{
    static const char src[] = "#include <myk.h>\n" VALUE_SRC("MYK");
    char a[400], b[400], opt[900];
    mode_t old;
    int v[3];
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    snprintf(a, sizeof a, "%s/umask.a", cache_dir);
    snprintf(b, sizeof b, "%s/umask.b", cache_dir);
    assert_int_equal(mkdir(a, 0700), 0);
    assert_int_equal(mkdir(b, 0700), 0);
    write_text(b, "myk.h", "#define MYK 1\n");
    snprintf(opt, sizeof opt, "-I%s -I%s", a, b);
    old = umask(002);
    v[0] = value_of(src, opt);
    v[1] = value_of(src, opt);
    write_text(a, "myk.h", "#define MYK 2\n"); /* now found first */
    v[2] = value_of(src, opt);
    umask(old);
    assert_int_equal(v[0], 1);
    assert_int_equal(v[1], 1);
    assert_int_equal(v[2], 2);
    assert_int_equal(compiles(), 2);
}

/* Headers reached through a symbolic link: retargeting a link to a
   directory above them, or a header that is itself a link, is a miss;
   back to the first target, a hit. */
/* Points the link at `to` in one step (a new link renamed over it), as a
   `current` link is switched. */
static void retarget_link(const char *link, const char *to)
{
    char q[600];
    snprintf(q, sizeof q, "%s.new", link);
    assert_int_equal(symlink(to, q), 0);
    assert_int_equal(rename(q, link), 0);
}

static void test_cache_symlinked_headers(void **state)
{
    static const char src[] = "#include <myk.h>\n" VALUE_SRC("MYK");
    char d[400], p[500], opt[600];
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    snprintf(d, sizeof d, "%s/links", cache_dir);
    assert_int_equal(mkdir(d, 0700), 0);
    snprintf(p, sizeof p, "%s/v1", d), assert_int_equal(mkdir(p, 0700), 0);
    write_text(p, "myk.h", "#define MYK 1\n");
    snprintf(p, sizeof p, "%s/v2", d), assert_int_equal(mkdir(p, 0700), 0);
    write_text(p, "myk.h", "#define MYK 2\n");
    snprintf(p, sizeof p, "%s/current", d);
    assert_int_equal(symlink("v1", p), 0);
    snprintf(opt, sizeof opt, "-I%s", p);
    assert_int_equal(value_of(src, opt), 1);
    assert_int_equal(value_of(src, opt), 1);
    assert_int_equal(compiles(), 1);
    retarget_link(p, "v2");
    assert_int_equal(value_of(src, opt), 2);
    assert_int_equal(compiles(), 2);
    /* the header itself a link */
    snprintf(p, sizeof p, "%s/inc", d), assert_int_equal(mkdir(p, 0700), 0);
    write_text(d, "h1.h", "#define MYK 11\n");
    write_text(d, "h2.h", "#define MYK 12\n");
    snprintf(p, sizeof p, "%s/inc/myk.h", d);
    assert_int_equal(symlink("../h1.h", p), 0);
    snprintf(opt, sizeof opt, "-I%s/inc", d);
    assert_int_equal(value_of(src, opt), 11);
    assert_int_equal(value_of(src, opt), 11);
    assert_int_equal(compiles(), 3);
    retarget_link(p, "../h2.h");
    assert_int_equal(value_of(src, opt), 12);
    assert_int_equal(compiles(), 4);
}

/* Whether the output of the shell command `cmd` (stdout and stderr) has
   `text`. */
static int output_has(const char *cmd, const char *text)
{
    char line[4096], full[4200];
    int has = 0;
    FILE *p;
    snprintf(full, sizeof full, "%s 2>&1", cmd);
    if (!(p = popen(full, "r"))) return 0;
    while (fgets(line, sizeof line, p))
        if (strstr(line, text)) has = 1;
    pclose(p);
    return has;
}

/* The compiler that runs is the file the key names. A link XRT_CC names,
   retargeted after its key was made (here by the compiler's own --version
   run), still builds with the file it named then; a link a wrapper runs,
   retargeted while the build runs, leaves that build uncached. Either way a
   later load with the link back on the first compiler gets that compiler's
   object, never one built by the other under its key. */
static void test_cache_compiler_retargeted(void **state)
{
    static const char src[] = VALUE_SRC("WHO");
    char d[400], link_[500], flag[500], text[2000], cc[1100];
    int v;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    snprintf(d, sizeof d, "%s/retarget", cache_dir);
    assert_int_equal(mkdir(d, 0700), 0);
    snprintf(link_, sizeof link_, "%s/cc", d);
    snprintf(text, sizeof text, "#!/bin/sh\ncase \"$1\" in --version) ln -sfn b.sh '%s'; echo a; exit 0;; esac\n"
             "exec cc -DWHO=1 \"$@\"\n", link_);
    write_text(d, "a.sh", text);
    write_text(d, "b.sh", "#!/bin/sh\ncase \"$1\" in --version) echo b; exit 0;; esac\nexec cc -DWHO=2 \"$@\"\n");
    snprintf(text, sizeof text, "%s/a.sh", d), assert_int_equal(chmod(text, 0755), 0);
    snprintf(text, sizeof text, "%s/b.sh", d), assert_int_equal(chmod(text, 0755), 0);
    assert_int_equal(symlink("a.sh", link_), 0);
    setenv("XRT_CC", link_, 1);
    v = value_of(src, NULL);
    if (v != 1) fail_msg("XRT_CC's link was retargeted after its key was made: built by %s", v == 2 ? "the new target" : "?");
    retarget_link(link_, "a.sh");
    assert_int_equal(value_of(src, NULL), 1);
    /* a wrapper whose compiler word is the link retargets it, once, before it runs it */
    snprintf(flag, sizeof flag, "%s/retargeted", d);
    write_text(d, "a2.sh", "#!/bin/sh\ncase \"$1\" in --version) echo a2; exit 0;; esac\nexec cc -DWHO=3 \"$@\"\n");
    snprintf(text, sizeof text, "%s/a2.sh", d), assert_int_equal(chmod(text, 0755), 0);
    retarget_link(link_, "a2.sh");
    snprintf(text, sizeof text,
             "#!/bin/sh\nfor a; do [ \"$a\" = --version ] || [ \"$a\" = '-###' ] && exec \"$@\"; done\n"
             "[ -e '%s' ] || { : > '%s'; ln -sfn b.sh '%s'; }\nexec \"$@\"\n", flag, flag, link_);
    write_text(d, "wrap.sh", text);
    snprintf(text, sizeof text, "%s/wrap.sh", d), assert_int_equal(chmod(text, 0755), 0);
    snprintf(cc, sizeof cc, "%s/wrap.sh %s", d, link_);
    setenv("XRT_CC", cc, 1);
    assert_int_equal(value_of(src, NULL), 2); /* what ran: the wrapper's choice */
    retarget_link(link_, "a2.sh");
    v = value_of(src, NULL);
    if (v != 3) fail_msg("a build whose compiler was retargeted while it ran was stored under the old compiler's key (%d)", v);
}

/* Two working directories, <tag>.a and <tag>.b in the cache's folder, each
   with inc/<header> defining <macro> as 1 and 2. */
static void two_include_dirs(const char *tag, const char *header, const char *macro, char *a, char *b, size_t n)
{
    char inc[600], text[64];
    int v;
    snprintf(a, n, "%s/%s.a", cache_dir, tag);
    snprintf(b, n, "%s/%s.b", cache_dir, tag);
    for (v = 1; v <= 2; v++) {
        const char *dir = v == 1 ? a : b;
        assert_int_equal(mkdir(dir, 0700), 0);
        snprintf(inc, sizeof inc, "%s/inc", dir), assert_int_equal(mkdir(inc, 0700), 0);
        snprintf(text, sizeof text, "#define %s %d\n", macro, v);
        write_text(inc, header, text);
    }
}

/* The host's clang, as the file its name resolves to along PATH, and the
   triple it targets; 0 without one. */
static int find_clang(char *path, size_t n, char *triple, size_t tn)
{
    FILE *p = popen("command -v clang 2>/dev/null", "r");
    char line[600] = "", *nl;
    if (!p) return 0;
    if (!fgets(line, sizeof line, p)) line[0] = 0;
    pclose(p);
    if ((nl = strchr(line, '\n'))) *nl = 0;
    if (!line[0] || !realpath(line, path) || strlen(path) >= n) return 0;
    if (snprintf(line, sizeof line, "'%s' -dumpmachine 2>/dev/null", path) >= (int)sizeof line) return 0;
    if (!(p = popen(line, "r"))) return 0;
    if (!fgets(triple, (int)tn, p)) triple[0] = 0;
    pclose(p);
    if ((nl = strchr(triple, '\n'))) *nl = 0;
    return triple[0] != 0;
}

/* Configuration files clang reads with no option (here the one named after
   its program, beside it: <triple>-clang.cfg) are inputs of the build: a
   changed one, or a changed file it names with @file, is a new build, an
   unchanged one a hit; a word of one that may be a relative path (-Iinc)
   ties the entry to the working directory. */
static void test_cache_config_files(void **state)
{
    static const char src[] = VALUE_SRC("CFGV");
    static const char inc_src[] = "#include <cfgk.h>\n" VALUE_SRC("CFGK");
    char clang[600], triple[128], bin[400], prog[700], cc[800], cfg[200], a[400], b[400], p[900], cwd[4096];
    xrt_cache_stats s0, s1;
    int va, vb;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    SKIP_UNLESS(find_clang(clang, sizeof clang, triple, sizeof triple), "no clang on PATH");
    snprintf(bin, sizeof bin, "%s/cfgbin", cache_dir);
    assert_int_equal(mkdir(bin, 0700), 0);
    snprintf(prog, sizeof prog, "%s/%s-clang", bin, triple);
    assert_int_equal(symlink(clang, prog), 0);
    snprintf(cfg, sizeof cfg, "%s-clang.cfg", triple);
    write_text(bin, cfg, "-DCFGV=1\n");
    snprintf(cc, sizeof cc, "%s -no-canonical-prefixes", prog); /* the configuration beside the link, not beside clang */
    snprintf(p, sizeof p, "%s --version", cc);
    SKIP_UNLESS(output_has(p, "Configuration file:"), "this clang reads no configuration file named after its program");
    setenv("XRT_CC", cc, 1);
    assert_int_equal(value_of(src, NULL), 1);
    OK(xrt_cache_get_stats(&s0));
    assert_int_equal(value_of(src, NULL), 1);
    OK(xrt_cache_get_stats(&s1));
    assert_int_equal(s1.hits - s0.hits, 1); /* cached all the same */
    write_text(bin, cfg, "# edited\n-DCFGV=2\n");
    va = value_of(src, NULL);
    if (va != 2) fail_msg("the configuration file changed: a stale hit (%d, not 2)", va);
    write_text(bin, cfg, "@more.cfg\n");
    write_text(bin, "more.cfg", "-DCFGV=3\n");
    assert_int_equal(value_of(src, NULL), 3);
    write_text(bin, "more.cfg", "-DCFGV=4\n");
    assert_int_equal(value_of(src, NULL), 4);
    OK(xrt_cache_get_stats(&s0));
    assert_int_equal(value_of(src, NULL), 4);
    OK(xrt_cache_get_stats(&s1));
    assert_int_equal(s1.hits - s0.hits, 1);
    /* -Iinc in the configuration: relative to the working directory */
    write_text(bin, cfg, "-Iinc\n");
    two_include_dirs("cfg", "cfgk.h", "CFGK", a, b, sizeof a);
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(a), 0);
    va = value_of(inc_src, NULL);
    assert_int_equal(chdir(b), 0);
    vb = value_of(inc_src, NULL);
    assert_int_equal(chdir(cwd), 0);
    if (va != 1 || vb != 2) fail_msg("-Iinc in a configuration file: %d in a, %d in b (expected 1, 2)", va, vb);
}

/* The file `name` resolves to along PATH into out; 0 if none. */
static int along_path(const char *name, char *out, size_t n)
{
    char cmd[128], line[600] = "", *nl;
    FILE *p;
    snprintf(cmd, sizeof cmd, "command -v %s 2>/dev/null", name);
    if (!(p = popen(cmd, "r"))) return 0;
    if (!fgets(line, sizeof line, p)) line[0] = 0;
    pclose(p);
    if ((nl = strchr(line, '\n'))) *nl = 0;
    return line[0] == '/' && realpath(line, out) && strlen(out) < n;
}

/* A program `dir`/`name` that runs `real`, first running `before` (shell). */
static void write_program(const char *dir, const char *name, const char *before, const char *real)
{
    char text[1400], path[700];
    snprintf(text, sizeof text, "#!/bin/sh\n%s\nexec '%s' \"$@\"\n", before, real);
    write_text(dir, name, text);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(chmod(path, 0755), 0);
}

/* The programs the compiler driver runs on its own (gcc's cc1, as and the
   linker, found in its directories or along PATH; those clang names) built
   the entry as much as the driver did: one replaced is a new build, never a
   stale hit. Here an `as` found along PATH is replaced by one that edits
   what it assembles, and clang's linker in a -B directory by another. */
static void test_cache_driver_programs(void **state)
{
    static const char src[] = VALUE_SRC("4242");
    static const char edit[] = "for a; do last=$a; done\nsed -i 's/\\$4242/$4343/' \"$last\"";
    char d[400], as[600], ld[600], clang[600], triple[128], path[2000], opt[500], mark[500], *saved;
    int probe, before, after;
    xrt_cache_stats s0, s1;
    struct stat st;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    SKIP_UNLESS(along_path("as", as, sizeof as) && along_path("ld", ld, sizeof ld), "no as or ld on PATH");
    snprintf(d, sizeof d, "%s/progs", cache_dir);
    assert_int_equal(mkdir(d, 0700), 0);
    saved = strdup(getenv("PATH"));
    snprintf(path, sizeof path, "%s:%s", d, saved);
    setenv("PATH", path, 1);
    write_program(d, "as", edit, as);
    probe = value_of(src, "-DPROBE"); /* the compiler runs the `as` PATH finds (not clang's own assembler) */
    write_program(d, "as", ":", as);
    before = value_of(src, NULL);
    sleep_ms(20); /* the new program's times differ */
    write_program(d, "as", edit, as);
    after = value_of(src, NULL);
    setenv("PATH", saved, 1);
    free(saved);
    if (probe == 4343) {
        assert_int_equal(before, 4242);
        if (after != 4343) fail_msg("the assembler the compiler runs was replaced: a stale hit (%d, not 4343)", after);
    }
    if (!find_clang(clang, sizeof clang, triple, sizeof triple)) return;
    setenv("XRT_CC", clang, 1);
    snprintf(opt, sizeof opt, "-B%s", d);
    snprintf(mark, sizeof mark, "%s/ld-ran", d);
    write_program(d, "ld", ":", ld);
    assert_int_equal(value_of(src, opt), 4242);
    OK(xrt_cache_get_stats(&s0));
    assert_int_equal(value_of(src, opt), 4242);
    OK(xrt_cache_get_stats(&s1));
    assert_int_equal(s1.hits - s0.hits, 1);
    sleep_ms(20);
    snprintf(path, sizeof path, ": > '%s'", mark);
    write_program(d, "ld", path, ld);
    assert_int_equal(value_of(src, opt), 4242);
    if (stat(mark, &st) != 0) fail_msg("the linker clang runs (-B) was replaced: a stale hit, the new one never ran");
}

/* The build's dependency list is the cache's own (-MD -MF after the
   options): a user's -MMD would leave the headers of -isystem directories
   out of it (gcc keeps -MMD's rule though -MD follows), so one that changed
   would be a stale hit. A build whose options ask for a dependency list of
   their own (-M..., -Wp,-M...) is not cached, with an info line. */
static void test_cache_dependency_options(void **state)
{
    static const char src[] = "#include <depk.h>\n" VALUE_SRC("DEPK");
    static const char *const opts[] = {"-MMD", "-Wp,-MMD,%s/user.d", "-MP", "-MF%s/user.d"};
    char d[400], opt[1000], fmt[600];
    size_t i;
    int v;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    snprintf(d, sizeof d, "%s/depopt", cache_dir);
    assert_int_equal(mkdir(d, 0700), 0);
    write_text(d, "depk.h", "#define DEPK 1\n");
    snprintf(opt, sizeof opt, "-isystem %s -MMD", d);
    assert_int_equal(value_of(src, opt), 1);
    write_text(d, "depk.h", "#define DEPK 2\n");
    v = value_of(src, opt);
    if (v != 2) fail_msg("-MMD and a changed header of an -isystem directory: a stale hit (%d, not 2)", v);
    for (i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        xrt_cache_stats s0, s1;
        snprintf(fmt, sizeof fmt, "-isystem %%s %s", opts[i]);
        snprintf(opt, sizeof opt, fmt, d, d);
        watch_start("is not cached: the option ");
        v = value_of(src, opt);
        OK(xrt_cache_get_stats(&s0));
        v += value_of(src, opt);
        OK(xrt_cache_get_stats(&s1));
        if (!watch_end()) fail_msg("%s: no info line says the build is not cached", opts[i]);
        assert_int_equal(v, 4);
        assert_int_equal(s1.hits - s0.hits, 0);
    }
}

/* An option the driver does not know may name a path relative to the
   working directory (--include-directory=inc, -Wp,-Iinc): the working
   directory is then in the key. */
static void test_cache_unknown_options_relative(void **state)
{
    static const char src[] = "#include <myk.h>\n" VALUE_SRC("MYK");
    static const char *const opts[] = {"--include-directory=inc", "-Wp,-Iinc"};
    char a[400], b[400], cwd[4096];
    size_t i;
    int va, vb;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    two_include_dirs("rel", "myk.h", "MYK", a, b, sizeof a);
    assert_non_null(getcwd(cwd, sizeof cwd));
    for (i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        assert_int_equal(chdir(a), 0);
        va = value_of(src, opts[i]);
        assert_int_equal(chdir(b), 0);
        vb = value_of(src, opts[i]);
        assert_int_equal(chdir(cwd), 0);
        if (va != 1 || vb != 2) fail_msg("%s: %d in a, %d in b (expected 1, 2)", opts[i], va, vb);
    }
}

/* Files a build reads that the compiler's list does not name (data an
   .incbin reads, a -specs= file) are unknown to the cache: such a build is
   never cached, and the log says why. */
static void test_cache_unlisted_inputs(void **state)
{
    char data[400], specs[400], src[1200], opt[500];
    int one = 1, two = 2, seen;
    FILE *f;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    snprintf(data, sizeof data, "%s/incbin.dat", cache_dir);
    assert_non_null(f = fopen(data, "wb"));
    fwrite(&one, sizeof one, 1, f), fclose(f);
    snprintf(src, sizeof src,
             "__asm__(\".section .rodata\\n.globl incv\\n.type incv,@object\\n.size incv,4\\nincv: .incbin \\\"%s\\\"\\n.previous\");\n"
             "extern const int incv;\n" VALUE_SRC("incv"), data);
    watch_start("not cached");
    assert_int_equal(value_of(src, NULL), 1);
    assert_non_null(f = fopen(data, "wb"));
    fwrite(&two, sizeof two, 1, f), fclose(f);
    assert_int_equal(value_of(src, NULL), 2);
    seen = watch_end();
    assert_true(seen);
    snprintf(specs, sizeof specs, "%s/my.specs", cache_dir);
    snprintf(opt, sizeof opt, "-specs=%s", specs);
    write_text(cache_dir, "my.specs", "*cc1:\n+ -DSV=1\n");
    assert_int_equal(value_of(VALUE_SRC("SV"), opt), 1);
    write_text(cache_dir, "my.specs", "*cc1:\n+ -DSV=2\n");
    assert_int_equal(value_of(VALUE_SRC("SV"), opt), 2);
    assert_int_equal(compiles(), 4);
    assert_int_equal(files_ending(sub_dir, ".so"), 0);
    /* a specs file the compiler finds on its own: gcc's, in a -B directory */
    snprintf(specs, sizeof specs, "%s/bdir", cache_dir);
    assert_int_equal(mkdir(specs, 0700), 0);
    write_text(specs, "specs", "*cc1:\n+ -DSV=3\n");
    snprintf(opt, sizeof opt, "-B%s/", specs);
    snprintf(src, sizeof src, "cc %s -### -c -x c /dev/null -o /dev/null", opt);
    if (!output_has(src, "Reading specs from")) return; /* not gcc: no specs */
    assert_int_equal(value_of(VALUE_SRC("SV"), opt), 3);
    write_text(specs, "specs", "*cc1:\n+ -DSV=4\n");
    seen = value_of(VALUE_SRC("SV"), opt);
    if (seen != 4) fail_msg("the specs file of a -B directory changed: a stale hit (%d, not 4)", seen);
    assert_int_equal(files_ending(sub_dir, ".so"), 0);
}

/* A private build (XRT_CACHE=0) killed mid-way leaves its xrt-XXXXXX
   directory in TMPDIR: a later private build sweeps this user's own once an
   hour old, only the names xrt makes there, never through a link. */
static void test_cache_private_dirs_swept(void **state)
{
    char tmp[400], old_dir[500], fresh[500], other[500], link_[500], target[500], inc[600], path[800];
    struct timespec old[2];
    struct stat st;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "the cache holds C builds, made by the CPU backend");
    snprintf(tmp, sizeof tmp, "%s/tmpdir", cache_dir);
    assert_int_equal(mkdir(tmp, 0700), 0);
    snprintf(old_dir, sizeof old_dir, "%s/xrt-Ab12Cd", tmp);
    snprintf(fresh, sizeof fresh, "%s/xrt-Fr12sh", tmp);
    snprintf(other, sizeof other, "%s/xrt-Ot12er", tmp);
    snprintf(link_, sizeof link_, "%s/xrt-Li12nk", tmp);
    snprintf(target, sizeof target, "%s/target", cache_dir);
    assert_int_equal(mkdir(old_dir, 0700), 0);
    assert_int_equal(mkdir(fresh, 0700), 0);
    assert_int_equal(mkdir(other, 0700), 0);
    assert_int_equal(mkdir(target, 0700), 0);
    assert_int_equal(symlink(target, link_), 0);
    write_text(old_dir, "module.so.c", "int x;\n");
    write_text(old_dir, "module.so.d", "x:\n");
    snprintf(inc, sizeof inc, "%s/include-0123456789abcdef", old_dir);
    assert_int_equal(mkdir(inc, 0700), 0);
    write_text(inc, "xrt.h", "\n");
    write_text(fresh, "module.so.c", "int x;\n");
    write_text(other, "notes.txt", "mine\n"); /* a name xrt does not make: the directory stays */
    write_text(target, "module.so.c", "int x;\n");
    clock_gettime(CLOCK_REALTIME, &old[0]);
    old[0].tv_sec -= 2 * 3600;
    old[1] = old[0];
    assert_int_equal(utimensat(AT_FDCWD, old_dir, old, 0), 0);
    assert_int_equal(utimensat(AT_FDCWD, other, old, 0), 0);
    assert_int_equal(utimensat(AT_FDCWD, target, old, 0), 0);
    assert_int_equal(utimensat(AT_FDCWD, link_, old, AT_SYMLINK_NOFOLLOW), 0);
    setenv("TMPDIR", tmp, 1);
    setenv("XRT_CACHE", "0", 1);
    assert_int_equal(value_of(genuine_src, NULL), 1);
    setenv("TMPDIR", "/tmp", 1);
    if (lstat(old_dir, &st) == 0) fail_msg("%s was not swept", old_dir);
    assert_int_equal(lstat(fresh, &st), 0);
    snprintf(path, sizeof path, "%s/notes.txt", other);
    assert_int_equal(lstat(path, &st), 0);
    assert_int_equal(lstat(link_, &st), 0);
    snprintf(path, sizeof path, "%s/module.so.c", target);
    assert_int_equal(lstat(path, &st), 0);
}

/* >> shared objects: built here with cc, given to xrt as bytes */
/* `src` built as a shared object under the test's directory; its bytes
   (the caller frees them). */
static xrt_module_image so_image(const char *name, const char *src)
{
    char c[300], so[300], cmd[1024];
    xrt_module_image im;
    FILE *fp;
    long size;
    void *data;
    snprintf(c, sizeof c, "%s/%s.c", cache_dir, name);
    snprintf(so, sizeof so, "%s/%s.so", cache_dir, name);
    fp = fopen(c, "w");
    assert_non_null(fp);
    fputs(src, fp);
    fclose(fp);
    snprintf(cmd, sizeof cmd, "cc -shared -fPIC -O2 -o %s %s", so, c);
    assert_int_equal(system(cmd), 0);
    fp = fopen(so, "rb");
    assert_non_null(fp);
    fseek(fp, 0, SEEK_END);
    size = ftell(fp);
    rewind(fp);
    data = malloc((size_t)size);
    assert_non_null(data);
    assert_int_equal(fread(data, 1, (size_t)size, fp), (size_t)size);
    fclose(fp);
    im.kind = XRT_IMAGE_CPU_SHARED_OBJECT, im.data = data, im.size = (size_t)size, im.arch = NULL;
    return im;
}

static void test_shared_object_image(void **state)
{
    xrt_module m;
    xrt_module_image im;
    xrt_function f;
    unsigned *v;
    inc_args a;
    (void)state;
    SKIP_UNLESS(on_cpu(), "a CPU shared object loads on the CPU backend only");
    im = so_image("k", kernels_src);
    OK(xrt_module_load(&m, &im, 1, NULL));
    free((void *)im.data);
    f = get(m, "inc");
    OK(xrt_malloc((void **)&v, 16 * sizeof *v));
    OK(xrt_memset(v, 0, 16 * sizeof *v));
    a.v = v, a.n = 16, a.add = 6;
    OK(xrt_launch_kernel(f, d3(1, 1, 1), d3(16, 1, 1), 0, NULL, &a, sizeof a));
    OK(xrt_device_synchronize());
    assert_int_equal(v[15], 6);
    OK(xrt_free(v));
    OK(xrt_module_unload(m));
}

/* >> each load its own module: two loads of one image (one cache entry) do
   not share their globals, as two cuModuleLoadData of one image do not. */
static unsigned bump_once(xrt_module m)
{
    xrt_function f = get(m, "bump");
    unsigned *out, v;
    OK(xrt_malloc_host((void **)&out, sizeof *out));
    *out = 0;
    OK(xrt_launch_kernel(f, d3(1, 1, 1), d3(1, 1, 1), 0, NULL, &out, sizeof out));
    OK(xrt_stream_synchronize(NULL));
    v = *out;
    OK(xrt_free_host(out));
    return v;
}

/* Two loads, a third after the first is unloaded; with -z nodelete the
   first one's object stays in the process after its unload. */
static void own_globals(const xrt_module_image *im, const char *options)
{
    xrt_module m[3];
    OK(xrt_module_load(&m[0], im, 1, options));
    OK(xrt_module_load(&m[1], im, 1, options));
    assert_int_equal(bump_once(m[0]), 1);
    assert_int_equal(bump_once(m[1]), 1);
    assert_int_equal(bump_once(m[0]), 2);
    OK(xrt_module_unload(m[0]));
    OK(xrt_module_load(&m[2], im, 1, options));
    assert_int_equal(bump_once(m[2]), 1);
    assert_int_equal(bump_once(m[1]), 2);
    OK(xrt_module_unload(m[1]));
    OK(xrt_module_unload(m[2]));
}

static void test_loads_have_own_globals(void **state)
{
    xrt_module_image im = source_image(globals_src);
    (void)state;
    SKIP_UNLESS(on_cpu(), "the CPU backend's modules are shared objects");
    own_globals(&im, NULL);
    own_globals(&im, "-Wl,-z,nodelete");
    setenv("XRT_CACHE", "0", 1);
    own_globals(&im, NULL);
    unsetenv("XRT_CACHE");
    im = so_image("globals", globals_src);
    own_globals(&im, NULL);
    free((void *)im.data);
}

/* A module's variable, written from the host by name, read by a kernel,
   changed by it and copied back; offsets and bounds against its size; each
   load its own; the pointer of xrt_module_get_global usable by copies. */
static const char table_src[] = PRELUDE
    "int table[16];\n"
    "const char label[] = \"xrt\";\n"
    "typedef struct { int *out; } table_args;\n"
    "void sum_table(const ctx_t *c, void *p) {\n" /* out = the sum, then every entry doubled */
    "  table_args *a = (table_args *)p; int s = 0; (void)c;\n"
    "  for (int i = 0; i < 16; i++) { s += table[i]; table[i] *= 2; }\n"
    "  *a->out = s;\n"
    "}\n";

static void test_module_globals(void **state)
{
    xrt_module_image im = source_image(table_src);
    xrt_module m = NULL, m2 = NULL;
    xrt_function f;
    xrt_stream s;
    int in[16], back[16], other[16], *out, *dev, i;
    void *p = NULL;
    size_t n = 0;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_MODULES, "the backend loads no modules (XRT_CAP_MODULES)");
    SKIP_UNLESS(on_cpu(), "a C kernel for the CPU backend");
    OK(xrt_module_load(&m, &im, 1, NULL));
    OK(xrt_module_load(&m2, &im, 1, NULL));
    f = get(m, "sum_table");
    OK(xrt_module_get_global(&p, &n, m, "table"));
    assert_non_null(p);
    assert_int_equal(n, sizeof in);
    OK(xrt_module_get_global(NULL, &n, m, "label"));
    assert_int_equal(n, 4);
    FAILS(xrt_module_get_global(&p, &n, m, "no_such_variable"), XRT_ERROR_NOT_FOUND, "no_such_variable");
    FAILS(xrt_module_get_global(&p, &n, m, "sum_table"), XRT_ERROR_NOT_FOUND, "not a variable");
    FAILS(xrt_module_get_global(NULL, NULL, m, "table"), XRT_ERROR_INVALID_VALUE, "NULL");
    for (i = 0; i < 16; i++) in[i] = i + 1;
    OK(xrt_memcpy_to_symbol(m, "table", in, sizeof in, 0, XRT_MEMCPY_HOST_TO_DEVICE));
    OK(xrt_malloc((void **)&out, sizeof *out));
    OK(xrt_launch_kernel(f, d3(1, 1, 1), d3(1, 1, 1), 0, NULL, &out, sizeof out));
    OK(xrt_memcpy_from_symbol(back, m, "table", sizeof back, 0, XRT_MEMCPY_DEVICE_TO_HOST));
    OK(xrt_memcpy(&i, out, sizeof i, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_int_equal(i, 136);
    for (i = 0; i < 16; i++) assert_int_equal(back[i], 2 * (i + 1));
    /* the other load's table is its own: still zero */
    OK(xrt_memcpy_from_symbol(other, m2, "table", sizeof other, 0, XRT_MEMCPY_DEFAULT));
    for (i = 0; i < 16; i++) assert_int_equal(other[i], 0);
    /* an offset; the bounds */
    i = 99;
    OK(xrt_memcpy_to_symbol(m, "table", &i, sizeof i, 15 * sizeof i, XRT_MEMCPY_DEFAULT));
    OK(xrt_memcpy_from_symbol(back, m, "table", sizeof i, 15 * sizeof i, XRT_MEMCPY_DEFAULT));
    assert_int_equal(back[0], 99);
    FAILS(xrt_memcpy_to_symbol(m, "table", in, sizeof in, 4, XRT_MEMCPY_HOST_TO_DEVICE), XRT_ERROR_INVALID_VALUE,
          "past the end of 'table' (64 bytes)");
    FAILS(xrt_memcpy_from_symbol(back, m, "table", 1, 65, XRT_MEMCPY_DEVICE_TO_HOST), XRT_ERROR_INVALID_VALUE,
          "past the end");
    FAILS(xrt_memcpy_to_symbol(m, "nothing", in, 4, 0, XRT_MEMCPY_HOST_TO_DEVICE), XRT_ERROR_NOT_FOUND, "nothing");
    FAILS(xrt_memcpy_to_symbol(m, "table", in, 4, 0, XRT_MEMCPY_DEVICE_TO_HOST), XRT_ERROR_INVALID_MEMCPY_KIND,
          "to a symbol");
    FAILS(xrt_memcpy_from_symbol(back, m, "table", 4, 0, XRT_MEMCPY_HOST_TO_DEVICE), XRT_ERROR_INVALID_MEMCPY_KIND,
          "from a symbol");
    FAILS(xrt_memcpy_to_symbol(m, "table", in, 4, 0, XRT_MEMCPY_DEVICE_TO_DEVICE), XRT_ERROR_INVALID_MEMCPY_KIND,
          "host memory");
    OK(xrt_memcpy_to_symbol(m, "table", in, 0, 64, XRT_MEMCPY_DEFAULT)); /* 0 bytes at the end */
    /* device to device, and on a stream */
    OK(xrt_malloc((void **)&dev, sizeof in));
    OK(xrt_memcpy(dev, in, sizeof in, XRT_MEMCPY_HOST_TO_DEVICE));
    OK(xrt_memcpy_to_symbol(m, "table", dev, sizeof in, 0, XRT_MEMCPY_DEVICE_TO_DEVICE));
    OK(xrt_stream_create(&s));
    OK(xrt_memcpy_from_symbol_async(dev, m, "table", 8, 8, XRT_MEMCPY_DEVICE_TO_DEVICE, s));
    OK(xrt_memcpy_to_symbol_async(m2, "table", in, sizeof in, 0, XRT_MEMCPY_DEFAULT, s));
    OK(xrt_stream_synchronize(s));
    OK(xrt_memcpy(back, dev, 8, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_int_equal(back[0], 3);
    assert_int_equal(back[1], 4);
    /* the address from get_global, with xrt_memcpy */
    OK(xrt_module_get_global(&p, NULL, m2, "table"));
    OK(xrt_memcpy(back, p, sizeof back, XRT_MEMCPY_DEFAULT));
    for (i = 0; i < 16; i++) assert_int_equal(back[i], i + 1);
    OK(xrt_stream_destroy(s));
    OK(xrt_free(dev));
    OK(xrt_free(out));
    OK(xrt_module_unload(m2));
    OK(xrt_module_unload(m));
    FAILS(xrt_module_get_global(&p, &n, m, "table"), XRT_ERROR_INVALID_HANDLE, "");
}

static void wait_for_flag(void *p) /* at most 5 s: a failed check before the flag is set does not hang the suite */
{
    double t0 = now_ms(CLOCK_MONOTONIC);
    while (!__atomic_load_n((int *)p, __ATOMIC_ACQUIRE) && now_ms(CLOCK_MONOTONIC) - t0 < 5000) sleep_ms(1);
}

/* Managed memory is either side of a symbol copy with any kind (as of
   every copy, CUDA: "managed memory ... with any kind"); symbol copies
   queued behind other work still run after the module's unload, as
   queued launches do. */
static void test_module_globals_managed_and_unload(void **state)
{
    xrt_module_image im = source_image(table_src);
    xrt_module m = NULL;
    xrt_stream s;
    int *man, *pin, i, open = 0;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_MODULES, "the backend loads no modules (XRT_CAP_MODULES)");
    SKIP_UNLESS(on_cpu(), "a C kernel for the CPU backend");
    OK(xrt_module_load(&m, &im, 1, NULL));
    OK(xrt_malloc_managed((void **)&man, 64, XRT_MEM_ATTACH_GLOBAL));
    OK(xrt_stream_create(&s));
    for (i = 0; i < 16; i++) man[i] = 7 * i;
    OK(xrt_memcpy_to_symbol(m, "table", man, 64, 0, XRT_MEMCPY_HOST_TO_DEVICE));
    OK(xrt_memcpy_to_symbol(m, "table", man, 64, 0, XRT_MEMCPY_DEVICE_TO_DEVICE));
    OK(xrt_memcpy_to_symbol_async(m, "table", man, 64, 0, XRT_MEMCPY_HOST_TO_DEVICE, s));
    OK(xrt_stream_synchronize(s));
    memset(man, 0, 64);
    OK(xrt_memcpy_from_symbol(man, m, "table", 64, 0, XRT_MEMCPY_DEVICE_TO_HOST));
    OK(xrt_memcpy_from_symbol_async(man, m, "table", 64, 0, XRT_MEMCPY_DEVICE_TO_HOST, s));
    OK(xrt_stream_synchronize(s));
    for (i = 0; i < 16; i++) assert_int_equal(man[i], 7 * i);
    /* queued behind a host function, then the module unloaded */
    OK(xrt_malloc_host((void **)&pin, 64));
    for (i = 0; i < 16; i++) pin[i] = 100 + i;
    OK(xrt_launch_host_func(s, wait_for_flag, &open));
    OK(xrt_memcpy_to_symbol_async(m, "table", pin, 64, 0, XRT_MEMCPY_HOST_TO_DEVICE, s));
    OK(xrt_memcpy_from_symbol_async(man, m, "table", 64, 0, XRT_MEMCPY_DEVICE_TO_HOST, s));
    OK(xrt_module_unload(m));
    __atomic_store_n(&open, 1, __ATOMIC_RELEASE);
    OK(xrt_stream_synchronize(s));
    for (i = 0; i < 16; i++) assert_int_equal(man[i], 100 + i);
    OK(xrt_stream_destroy(s));
    OK(xrt_free_host(pin));
    OK(xrt_free(man));
}


/* A variable the module cannot write (a const object in a read-only
   segment) is refused by the symbol copies that would write it, with a
   status rather than a fault in the caller or the stream's worker; reading
   it is fine. */
static const char readonly_src[] = PRELUDE
    "const int fixed[4] = {1, 2, 3, 4};\n"
    "int *const fixed_ptr = (int *)&fixed;\n" /* relocated, then read-only (RELRO) */
    "int open_table[4];\n";

static void test_symbol_copy_to_read_only(void **state)
{
    xrt_module_image im = source_image(readonly_src);
    xrt_module m = NULL;
    xrt_stream s;
    int in[4] = {9, 9, 9, 9}, back[4] = {0, 0, 0, 0};
    void *p = NULL;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_MODULES, "the backend loads no modules (XRT_CAP_MODULES)");
    SKIP_UNLESS(on_cpu(), "a C module for the CPU backend");
    OK(xrt_module_load(&m, &im, 1, NULL));
    OK(xrt_stream_create(&s));
    FAILS(xrt_memcpy_to_symbol(m, "fixed", in, sizeof in, 0, XRT_MEMCPY_HOST_TO_DEVICE), XRT_ERROR_INVALID_VALUE,
          "'fixed' is read-only");
    FAILS(xrt_memcpy_to_symbol_async(m, "fixed", in, 4, 4, XRT_MEMCPY_DEFAULT, s), XRT_ERROR_INVALID_VALUE,
          "read-only");
    FAILS(xrt_memcpy_to_symbol(m, "fixed_ptr", &p, sizeof p, 0, XRT_MEMCPY_DEFAULT), XRT_ERROR_INVALID_VALUE,
          "read-only");
    OK(xrt_memcpy_from_symbol(back, m, "fixed", sizeof back, 0, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_int_equal(back[0], 1);
    assert_int_equal(back[3], 4);
    OK(xrt_memcpy_to_symbol_async(m, "open_table", in, sizeof in, 0, XRT_MEMCPY_DEFAULT, s));
    OK(xrt_memcpy_from_symbol_async(back, m, "open_table", sizeof back, 0, XRT_MEMCPY_DEFAULT, s));
    OK(xrt_stream_synchronize(s));
    assert_int_equal(back[2], 9);
    OK(xrt_stream_destroy(s));
    OK(xrt_module_unload(m));
}

/* A symbol copy captured in a graph: the module unloaded after the
   capture stays loaded while the graph or its exec lives, as a kernel
   node's module does (REFERENCE "Lifetimes"), so the exec's copies still
   reach the variable; once none lives, the module goes. */
static void test_symbol_copy_in_graph_after_unload(void **state)
{
    xrt_module_image im = source_image(table_src);
    xrt_module m = NULL;
    xrt_stream s;
    xrt_graph g = NULL;
    xrt_graph_exec e = NULL;
    int in[16], back[16], i;
    void *p = NULL;
    Dl_info info;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_MODULES, "the backend loads no modules (XRT_CAP_MODULES)");
    SKIP_UNLESS(caps() & XRT_CAP_GRAPHS, "the backend has no graphs");
    SKIP_UNLESS(on_cpu(), "a C kernel for the CPU backend");
    for (i = 0; i < 16; i++) in[i] = 5 * i, back[i] = -1;
    OK(xrt_module_load(&m, &im, 1, NULL));
    OK(xrt_stream_create(&s));
    OK(xrt_module_get_global(&p, NULL, m, "table"));
    OK(xrt_stream_begin_capture(s, XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_memcpy_to_symbol_async(m, "table", in, sizeof in, 0, XRT_MEMCPY_HOST_TO_DEVICE, s));
    OK(xrt_memcpy_from_symbol_async(back, m, "table", sizeof back, 0, XRT_MEMCPY_DEVICE_TO_HOST, s));
    OK(xrt_stream_end_capture(s, &g));
    OK(xrt_graph_instantiate(&e, g));
    OK(xrt_module_unload(m));
    OK(xrt_device_synchronize()); /* a point where the CPU backend lets unloaded modules go */
    assert_int_not_equal(dladdr(p, &info), 0); /* still mapped, in its object */
    OK(xrt_graph_launch(e, s));
    OK(xrt_stream_synchronize(s));
    for (i = 0; i < 16; i++) assert_int_equal(back[i], 5 * i);
    OK(xrt_graph_exec_destroy(e));
    OK(xrt_graph_destroy(g));
    OK(xrt_stream_destroy(s));
    OK(xrt_device_synchronize()); /* no graph lives: the module goes */
    assert_int_equal(dladdr(p, &info), 0);
}
/* The dynamic shared memory a function allows: 48 KiB until raised (as on
   a GPU), at most the device's opt-in limit; and the occupancy calls. */
static void test_function_attribute_and_occupancy(void **state)
{
    xrt_module m = load_kernels();
    xrt_function f = get(m, "shared_sum"), g = get(m, "empty");
    xrt_function_attributes at;
    xrt_device_prop prop;
    unsigned *out;
    int n = -1, grid = -1, block = -1;
    (void)state;
    OK(xrt_malloc((void **)&out, sizeof *out));
    OK(xrt_function_get_attributes(&at, f));
    assert_int_equal(at.max_dynamic_shared_bytes, XRT_DEFAULT_MAX_DYNAMIC_SHARED_BYTES);
    OK(xrt_launch_kernel(f, d3(1, 1, 1), d3(1, 1, 1), 48 << 10, NULL, &out, sizeof out));
    FAILS(xrt_launch_kernel(f, d3(1, 1, 1), d3(1, 1, 1), (48 << 10) + 1, NULL, &out, sizeof out),
          XRT_ERROR_INVALID_VALUE, "shared memory");
    OK(xrt_function_set_attribute(f, XRT_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1 << 20));
    OK(xrt_function_get_attributes(&at, f));
    assert_int_equal(at.max_dynamic_shared_bytes, 1 << 20);
    OK(xrt_launch_kernel(f, d3(1, 1, 1), d3(1, 1, 1), 1 << 20, NULL, &out, sizeof out));
    OK(xrt_device_synchronize());
    FAILS(xrt_function_set_attribute(f, XRT_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (1 << 20) + 1),
          XRT_ERROR_INVALID_VALUE, "exceed");
    FAILS(xrt_function_set_attribute(f, (xrt_function_attribute)99, 0), XRT_ERROR_INVALID_VALUE, "attribute 99");
    FAILS(xrt_function_set_attribute(f, XRT_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, -1), XRT_ERROR_INVALID_VALUE,
          "negative");
    /* another function keeps its own limit */
    OK(xrt_function_get_attributes(&at, g));
    assert_int_equal(at.max_dynamic_shared_bytes, XRT_DEFAULT_MAX_DYNAMIC_SHARED_BYTES);
    /* occupancy: a CPU core runs one block at a time */
    OK(xrt_get_device_properties(&prop, 0));
    OK(xrt_occupancy_max_active_blocks_per_multiprocessor(&n, g, 256, 0));
    assert_int_equal(n, 1);
    OK(xrt_occupancy_max_active_blocks_per_multiprocessor(&n, g, 1025, 0));
    assert_int_equal(n, 0);
    OK(xrt_occupancy_max_active_blocks_per_multiprocessor(&n, g, 1, (48 << 10) + 1)); /* more than g allows */
    assert_int_equal(n, 0);
    OK(xrt_occupancy_max_potential_block_size(&grid, &block, g, 0, 0));
    assert_int_equal(block, 1024);
    assert_int_equal(grid, prop.multiprocessor_count);
    OK(xrt_occupancy_max_potential_block_size(&grid, &block, g, 0, 100));
    assert_int_equal(block, 100);
    OK(xrt_occupancy_max_potential_block_size(&grid, &block, f, 1 << 20, 0));
    assert_int_equal(block, 1024);
    FAILS(xrt_occupancy_max_active_blocks_per_multiprocessor(&n, g, 0, 0), XRT_ERROR_INVALID_VALUE, "block_size");
    FAILS(xrt_occupancy_max_potential_block_size(&grid, &block, g, 0, -1), XRT_ERROR_INVALID_VALUE, "negative");
    OK(xrt_free(out));
    OK(xrt_module_unload(m));
}

/* Threads load one new image at once: each gets its own module. */
typedef struct loader { unsigned seen; int failed; } loader;

static void *load_and_bump(void *p)
{
    loader *l = (loader *)p;
    xrt_module_image im = source_image(globals_src);
    xrt_function f = NULL;
    xrt_module m = NULL;
    unsigned *out = NULL;
    if (xrt_module_load(&m, &im, 1, "-DAT_ONCE") || xrt_module_get_function(&f, m, "bump") ||
        xrt_malloc_host((void **)&out, sizeof *out) || xrt_launch_kernel(f, d3(1, 1, 1), d3(1, 1, 1), 0, NULL, &out, sizeof out) ||
        xrt_stream_synchronize(NULL))
        l->failed = __LINE__;
    else l->seen = *out;
    xrt_free_host(out);
    if (m && xrt_module_unload(m)) l->failed = __LINE__;
    return NULL;
}

static void test_threads_load_own_modules(void **state)
{
    enum { n = 4 };
    pthread_t t[n];
    loader l[n];
    int i;
    (void)state;
    SKIP_UNLESS(on_cpu(), "the CPU backend's modules are shared objects");
    memset(l, 0, sizeof l);
    for (i = 0; i < n; i++) assert_int_equal(start_thread(&t[i], xrt_test_backend, load_and_bump, &l[i]), 0);
    for (i = 0; i < n; i++) pthread_join(t[i], NULL);
    for (i = 0; i < n; i++) {
        if (l[i].failed) fail_msg("thread %d failed at line %d", i, l[i].failed);
        assert_int_equal(l[i].seen, 1);
    }
}

/* >> the images the Makefile builds from examples/saxpy: the CPU shared
   object, the CUDA fatbin where nvcc is, the HIP code object and offload
   bundle where hipcc is. Offered together, as saxpy offers them, they give
   each backend its own (run and checked) or, on a device none was built for,
   XRT_ERROR_NO_BINARY_FOR_DEVICE naming its arch. */
static void run_saxpy(xrt_module m)
{
    enum { n = 5000 };
    xrt_function f = get(m, "saxpy");
    float *x, *y, h[n];
    saxpy_args a;
    unsigned i;
    OK(xrt_malloc((void **)&x, n * sizeof *x));
    OK(xrt_malloc((void **)&y, n * sizeof *y));
    for (i = 0; i < n; i++) h[i] = (float)i;
    OK(xrt_memcpy(x, h, sizeof h, XRT_MEMCPY_HOST_TO_DEVICE));
    for (i = 0; i < n; i++) h[i] = 1.0f;
    OK(xrt_memcpy(y, h, sizeof h, XRT_MEMCPY_HOST_TO_DEVICE));
    a.a = 2.0f, a.x = x, a.y = y, a.n = n;
    OK(xrt_launch_kernel(f, d3((n + 127) / 128, 1, 1), d3(128, 1, 1), 0, NULL, &a, sizeof a));
    OK(xrt_memcpy(h, y, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST));
    for (i = 0; i < n; i++)
        if (h[i] != 2.0f * (float)i + 1.0f) fail_msg("y[%u] = %g", i, (double)h[i]);
    OK(xrt_free(x));
    OK(xrt_free(y));
}

/* The GPU images found (0 to 3) into im. */
static size_t gpu_images(xrt_module_image *im)
{
    size_t n = saxpy_hip_images(&im[0], &im[1]) ? 2 : 0;
    if ((im[n].data = saxpy_image("saxpy.fatbin", &im[n].size)) != NULL)
        im[n].kind = XRT_IMAGE_CUDA_FATBIN, im[n++].arch = "sm_90";
    return n;
}

static void test_saxpy_images(void **state)
{
    xrt_module_image im[4];
    xrt_module m = NULL;
    xrt_target t;
    xrt_status st;
    size_t n, i;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_MODULES, "the backend loads no modules (XRT_CAP_MODULES)");
    OK(xrt_get_target(&t));
    n = gpu_images(im);
    im[n].data = saxpy_image("saxpy_cpu.so", &im[n].size);
    assert_non_null(im[n].data); /* built wherever the tests are */
    im[n].kind = XRT_IMAGE_CPU_SHARED_OBJECT, im[n++].arch = NULL;
    st = xrt_module_load(&m, im, n, NULL);
    for (i = 0; i < n; i++) free((void *)im[i].data);
    if (st == XRT_ERROR_NO_BINARY_FOR_DEVICE) { /* a GPU none of the images was built for */
        assert_string_not_equal(t.backend, "cpu");
        assert_non_null(strstr(xrt_get_last_error_string(), t.arch));
        SKIP_UNLESS(0, "no saxpy image for this device's arch");
    }
    OK(st);
    run_saxpy(m);
    OK(xrt_module_unload(m));
}

/* The HIP images alone (and the fatbin where there is one) on the CPU: the
   error names the CPU's arch and every image offered, in order. */
static void test_saxpy_gpu_images_on_cpu(void **state)
{
    xrt_module_image im[3];
    xrt_module m = NULL;
    xrt_target t;
    char want[400];
    size_t n, i;
    (void)state;
    SKIP_UNLESS(on_cpu(), "GPU images on the CPU backend");
    SKIP_UNLESS(saxpy_hip_images(&im[0], &im[1]), XRT_TEST_NO_HIPCC);
    n = 2;
    if ((im[n].data = saxpy_image("saxpy.fatbin", &im[n].size)) != NULL)
        im[n].kind = XRT_IMAGE_CUDA_FATBIN, im[n++].arch = "sm_90";
    OK(xrt_get_target(&t));
    snprintf(want, sizeof want, "xrt_module_load: no image for cpu arch %s among the %zu offered: hip code object gfx90a, "
             "hip offload bundle %s%s", t.arch, n, XRT_TEST_HIP_BUNDLE_ARCHS, n > 2 ? ", cuda fatbin sm_90" : "");
    FAILS(xrt_module_load(&m, im, n, NULL), XRT_ERROR_NO_BINARY_FOR_DEVICE, want);
    assert_null(m);
    for (i = 0; i < n; i++) free((void *)im[i].data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_saxpy),
        cmocka_unit_test(test_cxx_compiler_hint),
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_bad_launches),
        gated_test(test_arguments),
        gated_test(test_packed_arguments),
        cmocka_unit_test(test_launch_kernel_params),
        cmocka_unit_test(test_arguments_against_declared_layout),
        cmocka_unit_test(test_shared_memory),
        gated_test(test_many_launches),
        cmocka_unit_test(test_synchronize_helps_launch),
        cmocka_unit_test(test_synchronize_takes_the_queue),
        gated_test(test_ordering),
        cmocka_unit_test(test_launch_priority_defers_lower_work),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_unload_races_launches),
        cmocka_unit_test(test_unloaded_module_closes),
        cmocka_unit_test(test_missing_function),
        cmocka_unit_test(test_function_not_in_module),
        cmocka_unit_test(test_bad_images),
        cmocka_unit_test(test_compile_error),
        gated_test(test_unload_with_queued_launches),
        cmocka_unit_test(test_destroyed_stream),
        cmocka_unit_test(test_after_fork),
        cmocka_unit_test(test_shutdown_with_live_module),
        cmocka_unit_test_setup_teardown(test_cache_hits_and_misses, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_target, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_corrupt_entry, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_entry_kept_when_copy_fails, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_off_and_bound, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_two_processes, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_refuses_others_dir, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_entry_trust, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_evicts_only_entries, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_split_reentrant, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_long_options, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_evict_race, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_compiler_identity, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_unwritable_dir, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_sweeps_leftovers, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_sigchld_ignored, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_bytes_digits_only, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_bytes_checked_on_a_hit, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_dir_a_file, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_kernel_includes_xrt_h, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_long_dir, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_includes, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_could_have_read, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_noexec_dir, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_key_parts, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_libraries, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_linker_without_list, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_lock_across_fork, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_compiler_leaves_process, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_umask_group_writable, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_environment, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_time_macros, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_sweeps_build_temporaries, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_absent_list_private, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_symlinked_headers, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_compiler_retargeted, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_driver_programs, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_config_files, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_dependency_options, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_unknown_options_relative, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_unlisted_inputs, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_private_dirs_swept, cache_setup, cache_teardown),
        cmocka_unit_test(test_shared_object_image),
        cmocka_unit_test(test_loads_have_own_globals),
        cmocka_unit_test(test_threads_load_own_modules),
        cmocka_unit_test(test_module_globals),
        cmocka_unit_test(test_module_globals_managed_and_unload),
        cmocka_unit_test(test_symbol_copy_to_read_only),
        cmocka_unit_test(test_symbol_copy_in_graph_after_unload),
        cmocka_unit_test(test_function_attribute_and_occupancy),
        cmocka_unit_test(test_saxpy_images),
        cmocka_unit_test(test_saxpy_gpu_images_on_cpu),
    };
    return xrt_test_run_with_private_cache("kernels", tests, sizeof tests / sizeof tests[0], cache_dir, sizeof cache_dir);
}
