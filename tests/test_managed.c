/* SPDX-License-Identifier: MIT */
/* Managed memory (xrt_malloc_managed .. xrt_stream_attach_mem_async): pointer
   attributes say managed and xrt_free frees it; copies of every kind and
   XRT_MEMCPY_DEFAULT to and from it; a CPU kernel and the host use it
   directly; a prefetch is stream-ordered (it returns before the stream gets
   there, and the work behind it sees what was before it); misuse (ranges
   past the allocation or not managed, devices out of range, unknown advice
   and flags, a prefetch in a capture on the CPU backend); and under
   XRT_CPU_DEVICES=numa a prefetch moves the pages to the device's node
   (mbind) without a warning. Mapped host allocation (xrt_host_alloc,
   xrt_host_get_flags) too: pinned host memory with its flags. */
#include "xrt_test.h"

#include <sys/syscall.h>
#include <sys/wait.h>

enum { N = 3 * 4096 + 100 };

static int device_count(void)
{
    int n = 0;
    OK(xrt_get_device_count(&n));
    return n;
}

static void test_attributes_and_free(void **state)
{
    xrt_pointer_attributes a;
    int dev = -1;
    void *m = NULL;
    (void)state;
    OK(xrt_get_device(&dev));
    OK(xrt_malloc_managed(&m, N, XRT_MEM_ATTACH_HOST));
    assert_non_null(m);
    assert_int_equal((uintptr_t)m % XRT_ALIGNMENT, 0);
    OK(xrt_pointer_get_attributes(&a, (char *)m + N - 1));
    assert_int_equal(a.type, XRT_MEMORY_MANAGED);
    assert_ptr_equal(a.base, m);
    assert_int_equal(a.size, N);
    assert_int_equal(a.device, dev);
    FAILS(xrt_free_host(m), XRT_ERROR_INVALID_VALUE, "not pinned host memory");
    FAILS(xrt_free((char *)m + 1), XRT_ERROR_INVALID_VALUE, "inside an allocation");
    OK(xrt_free(m));
    FAILS(xrt_free(m), XRT_ERROR_INVALID_VALUE, "already freed");
    FAILS(xrt_mem_prefetch_async(m, 64, 0, NULL), XRT_ERROR_INVALID_VALUE, "not managed memory");
}

/* Every kind that names managed memory as either side works (CUDA: "any
   kind"), and the default kind finds it: per round, the kinds of host ->
   managed, managed -> device, device -> managed (at an offset), managed ->
   host. */
static void test_copies(void **state)
{
    static const xrt_memcpy_kind rounds[][4] = {
        {XRT_MEMCPY_DEFAULT, XRT_MEMCPY_DEFAULT, XRT_MEMCPY_DEFAULT, XRT_MEMCPY_DEFAULT},
        {XRT_MEMCPY_HOST_TO_DEVICE, XRT_MEMCPY_DEVICE_TO_DEVICE, XRT_MEMCPY_DEVICE_TO_DEVICE, XRT_MEMCPY_DEVICE_TO_HOST},
        {XRT_MEMCPY_HOST_TO_HOST, XRT_MEMCPY_HOST_TO_DEVICE, XRT_MEMCPY_DEVICE_TO_HOST, XRT_MEMCPY_HOST_TO_HOST},
    };
    unsigned char h[N], back[N];
    unsigned char *m;
    void *d;
    size_t i, r;
    (void)state;
    for (i = 0; i < N; i++) h[i] = (unsigned char)(i * 13 + 1);
    OK(xrt_malloc_managed((void **)&m, N, XRT_MEM_ATTACH_GLOBAL));
    OK(xrt_malloc(&d, N));
    for (r = 0; r < sizeof rounds / sizeof rounds[0]; r++) {
        memset(back, 0, sizeof back);
        OK(xrt_memcpy(m, h, N, rounds[r][0]));
        assert_memory_equal(m, h, N); /* the host reads it directly */
        OK(xrt_memcpy(d, m, N, rounds[r][1]));
        /* device to device (managed memory counts as device memory), a copy
           does not wait (CUDA's "API synchronization behavior"): the host
           waits before it writes m */
        OK(xrt_stream_synchronize(NULL));
        memset(m, 0, N);
        OK(xrt_memcpy(m + 7, (char *)d + 7, N - 7, rounds[r][2]));
        OK(xrt_memcpy(back, m, N, rounds[r][3]));
        assert_bytes(back, 7, 0);
        assert_memory_equal(back + 7, h + 7, N - 7);
    }
    OK(xrt_memset(m, 0x3c, N));
    assert_bytes(m, N, 0x3c);
    OK(xrt_free(d));
    OK(xrt_free(m));
}

/* A CPU kernel writes managed memory; the host reads it after a synchronize. */
static const char kernel_src[] = "typedef struct { unsigned x, y, z; } dim3;\n"
                                 "typedef struct { dim3 grid_dim, block_dim, block_idx; void *shared; unsigned long shared_bytes; } ctx_t;\n"
                                 "typedef struct { unsigned char *m; unsigned n; } args_t;\n"
                                 "void twice(const ctx_t *c, void *p) {\n"
                                 "  args_t *a = (args_t *)p;\n"
                                 "  for (unsigned t = 0; t < c->block_dim.x; t++) {\n"
                                 "    unsigned i = c->block_idx.x * c->block_dim.x + t;\n"
                                 "    if (i < a->n) a->m[i] = (unsigned char)(a->m[i] * 2);\n"
                                 "  }\n"
                                 "}\n";

static void test_cpu_kernel(void **state)
{
    struct { unsigned char *m; unsigned n; } args;
    xrt_module_image im = {XRT_IMAGE_CPU_C_SOURCE, kernel_src, sizeof kernel_src - 1, NULL};
    xrt_dim3 grid = {(N + 63) / 64, 1, 1}, block = {64, 1, 1};
    xrt_module mod;
    xrt_function f;
    unsigned caps = 0;
    size_t i;
    (void)state;
    OK(xrt_get_capabilities(&caps));
    SKIP_UNLESS(caps & XRT_CAP_MODULES, "the backend loads no modules (XRT_CAP_MODULES)");
    SKIP_UNLESS(on_cpu(), "the kernel is C, for the CPU backend");
    OK(xrt_module_load(&mod, &im, 1, NULL));
    OK(xrt_module_get_function(&f, mod, "twice"));
    OK(xrt_malloc_managed((void **)&args.m, N, XRT_MEM_ATTACH_GLOBAL));
    args.n = N;
    for (i = 0; i < N; i++) args.m[i] = (unsigned char)i;
    OK(xrt_mem_prefetch_async(args.m, N, 0, NULL));
    OK(xrt_launch_kernel(f, grid, block, 0, NULL, &args, sizeof args));
    OK(xrt_mem_prefetch_async(args.m, N, XRT_CPU_DEVICE_ID, NULL));
    OK(xrt_device_synchronize());
    for (i = 0; i < N; i++)
        if (args.m[i] != (unsigned char)(i * 2)) fail_msg("byte %zu is %u, not %u", i, args.m[i], (unsigned)(unsigned char)(i * 2));
    OK(xrt_free(args.m));
    OK(xrt_module_unload(mod));
}

/* A prefetch and an attach return while their stream is held; the memset
   behind them runs after the gate, in order. */
static void test_prefetch_in_stream_order(void **state)
{
    gate g = {0, 0};
    unsigned char *m;
    xrt_stream s;
    (void)state;
    OK(xrt_stream_create(&s));
    OK(xrt_malloc_managed((void **)&m, N, XRT_MEM_ATTACH_GLOBAL));
    memset(m, 1, N);
    OK(xrt_launch_host_func(s, gate_wait, &g));
    OK(xrt_mem_prefetch_async(m, N, 0, s));
    OK(xrt_stream_attach_mem_async(s, m, N, XRT_MEM_ATTACH_SINGLE));
    OK(xrt_memset_async(m + 100, 2, 100, s));
    OK(xrt_mem_prefetch_async(m + 5, 10, XRT_CPU_DEVICE_ID, s));
    assert_bytes(m + 100, 100, 1); /* held at the gate (tests/xrt_test.h) */
    gate_open(&g);
    OK(xrt_stream_synchronize(s));
    assert_bytes(m, 100, 1);
    assert_bytes(m + 100, 100, 2);
    assert_bytes(m + 200, N - 200, 1);
    OK(xrt_stream_destroy(s));
    OK(xrt_free(m));
}

static void test_bad_input(void **state)
{
    int n = device_count();
    unsigned char h[64];
    void *m, *p = NULL, *d;
    xrt_stream s;
    (void)state;
    OK(xrt_stream_create(&s));
    OK(xrt_malloc(&d, 4096));
    OK(xrt_malloc_managed(&m, 4096, XRT_MEM_ATTACH_GLOBAL));
    if (on_cpu()) { /* (a GPU backend's IPC may be unsupported first) */
        xrt_ipc_mem_handle ipc;
        FAILS(xrt_ipc_get_mem_handle(&ipc, m), XRT_ERROR_INVALID_VALUE, "is managed memory");
    }
    FAILS(xrt_malloc_managed(NULL, 64, XRT_MEM_ATTACH_GLOBAL), XRT_ERROR_INVALID_VALUE, "NULL");
    FAILS(xrt_malloc_managed(&p, 0, XRT_MEM_ATTACH_GLOBAL), XRT_ERROR_INVALID_VALUE, "size is 0");
    assert_null(p);
    FAILS(xrt_malloc_managed(&p, 64, XRT_MEM_ATTACH_SINGLE), XRT_ERROR_INVALID_VALUE, "XRT_MEM_ATTACH_GLOBAL");
    FAILS(xrt_malloc_managed(&p, 64, 3), XRT_ERROR_INVALID_VALUE, "flags 0x3");
    assert_null(p);
    /* prefetch: the range, then the device */
    FAILS(xrt_mem_prefetch_async((char *)m + 4000, 97, 0, s), XRT_ERROR_INVALID_VALUE, "overrun");
    FAILS(xrt_mem_prefetch_async(m, SIZE_MAX, 0, s), XRT_ERROR_INVALID_VALUE, "overrun");
    FAILS(xrt_mem_prefetch_async(m, 0, 0, s), XRT_ERROR_INVALID_VALUE, "count is 0");
    FAILS(xrt_mem_prefetch_async(NULL, 64, 0, s), XRT_ERROR_INVALID_VALUE, "NULL");
    FAILS(xrt_mem_prefetch_async(d, 64, 0, s), XRT_ERROR_INVALID_VALUE, "not managed memory");
    FAILS(xrt_mem_prefetch_async(h, 64, 0, s), XRT_ERROR_INVALID_VALUE, "not managed memory");
    FAILS(xrt_mem_prefetch_async(m, 64, n, s), XRT_ERROR_INVALID_DEVICE, "out of range");
    FAILS(xrt_mem_prefetch_async(m, 64, -2, s), XRT_ERROR_INVALID_DEVICE, "negative");
    OK(xrt_mem_prefetch_async((char *)m + 4000, 96, n - 1, s));
    /* advice: the range, the advice, the device where it names one */
    FAILS(xrt_mem_advise(m, 4097, XRT_MEM_ADVISE_SET_READ_MOSTLY, 0), XRT_ERROR_INVALID_VALUE, "overrun");
    FAILS(xrt_mem_advise(m, 64, 0, 0), XRT_ERROR_INVALID_VALUE, "advice 0");
    FAILS(xrt_mem_advise(m, 64, 7, 0), XRT_ERROR_INVALID_VALUE, "advice 7");
    FAILS(xrt_mem_advise(m, 64, XRT_MEM_ADVISE_SET_PREFERRED_LOCATION, n), XRT_ERROR_INVALID_DEVICE, "out of range");
    FAILS(xrt_mem_advise(m, 64, XRT_MEM_ADVISE_SET_ACCESSED_BY, -5), XRT_ERROR_INVALID_DEVICE, "negative");
    FAILS(xrt_mem_advise(d, 64, XRT_MEM_ADVISE_SET_READ_MOSTLY, 0), XRT_ERROR_INVALID_VALUE, "not managed memory");
    OK(xrt_mem_advise(m, 64, XRT_MEM_ADVISE_SET_READ_MOSTLY, n)); /* no location: not checked, as CUDA */
    OK(xrt_mem_advise(m, 4096, XRT_MEM_ADVISE_UNSET_PREFERRED_LOCATION, 0));
    OK(xrt_mem_advise(m, 64, XRT_MEM_ADVISE_SET_ACCESSED_BY, XRT_CPU_DEVICE_ID));
    OK(xrt_mem_advise(m, 64, XRT_MEM_ADVISE_UNSET_ACCESSED_BY, 0));
    /* attach: a whole allocation, one flag */
    FAILS(xrt_stream_attach_mem_async(s, m, 64, XRT_MEM_ATTACH_GLOBAL), XRT_ERROR_INVALID_VALUE, "not a whole");
    FAILS(xrt_stream_attach_mem_async(s, (char *)m + 256, 0, XRT_MEM_ATTACH_GLOBAL), XRT_ERROR_INVALID_VALUE,
          "not a whole");
    FAILS(xrt_stream_attach_mem_async(s, m, 0, 0), XRT_ERROR_INVALID_VALUE, "exactly one");
    FAILS(xrt_stream_attach_mem_async(s, m, 0, 8), XRT_ERROR_INVALID_VALUE, "exactly one");
    FAILS(xrt_stream_attach_mem_async(s, d, 0, XRT_MEM_ATTACH_HOST), XRT_ERROR_INVALID_VALUE, "not managed memory");
    OK(xrt_stream_attach_mem_async(NULL, m, 4096, XRT_MEM_ATTACH_HOST));
    /* CUDA: "It is illegal to attach singly to the NULL stream" (the legacy
       stream, a virtual global one); the per-thread stream is a stream of its own */
    FAILS(xrt_stream_attach_mem_async(NULL, m, 0, XRT_MEM_ATTACH_SINGLE), XRT_ERROR_INVALID_VALUE, "NULL stream");
    FAILS(xrt_stream_attach_mem_async(XRT_STREAM_LEGACY, m, 0, XRT_MEM_ATTACH_SINGLE), XRT_ERROR_INVALID_VALUE,
          "NULL stream");
    OK(xrt_stream_attach_mem_async(XRT_STREAM_PER_THREAD, m, 0, XRT_MEM_ATTACH_SINGLE));
    OK(xrt_stream_attach_mem_async(XRT_STREAM_PER_THREAD, m, 0, XRT_MEM_ATTACH_GLOBAL));
    OK(xrt_stream_synchronize(s));
    OK(xrt_stream_destroy(s));
    FAILS(xrt_mem_prefetch_async(m, 64, 0, s), XRT_ERROR_INVALID_HANDLE, "");
    FAILS(xrt_stream_attach_mem_async(s, m, 0, XRT_MEM_ATTACH_GLOBAL), XRT_ERROR_INVALID_HANDLE, "");
    OK(xrt_free(m));
    OK(xrt_free(d));
}

/* >> what the advice said: xrt_mem_range_get_attribute over runs of pages
   (64 KiB apart, a GPU's large page), each attribute on a range that agrees
   and one that does not; a prefetch counts from its call. */
enum { RUN = 64 * 1024 };

static int range_int(void *m, size_t off, size_t count, int attribute)
{
    int v = 12345;
    OK(xrt_mem_range_get_attribute(&v, sizeof v, attribute, (char *)m + off, count));
    return v;
}

/* Whether the accessed-by list of the range is exactly {a, b} (order free), then invalid ids. */
static int accessed_by_is(void *m, size_t off, size_t count, int a, int b)
{
    int v[4] = {7, 7, 7, 7}, want = (a != XRT_INVALID_DEVICE_ID) + (b != XRT_INVALID_DEVICE_ID), i, k = 0;
    OK(xrt_mem_range_get_attribute(v, sizeof v, XRT_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, (char *)m + off, count));
    for (i = 0; i < 4; i++) k += i < want ? (v[i] == a || v[i] == b) : v[i] == XRT_INVALID_DEVICE_ID;
    return k == 4;
}

static void test_range_attributes(void **state)
{
    void *m;
    xrt_stream s;
    int last = device_count() - 1;
    (void)state;
    OK(xrt_stream_create(&s));
    OK(xrt_malloc_managed(&m, 4 * RUN, XRT_MEM_ATTACH_GLOBAL));
    /* nothing said yet */
    assert_int_equal(range_int(m, 0, 4 * RUN, XRT_MEM_RANGE_ATTRIBUTE_READ_MOSTLY), 0);
    assert_int_equal(range_int(m, 0, 4 * RUN, XRT_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION), XRT_INVALID_DEVICE_ID);
    assert_int_equal(range_int(m, 0, 4 * RUN, XRT_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION), XRT_INVALID_DEVICE_ID);
    assert_true(accessed_by_is(m, 0, 4 * RUN, XRT_INVALID_DEVICE_ID, XRT_INVALID_DEVICE_ID));
    /* read-mostly on the first half: the half says 1, the whole 0; unset on the first run */
    OK(xrt_mem_advise(m, 2 * RUN, XRT_MEM_ADVISE_SET_READ_MOSTLY, 0));
    assert_int_equal(range_int(m, 0, 2 * RUN, XRT_MEM_RANGE_ATTRIBUTE_READ_MOSTLY), 1);
    assert_int_equal(range_int(m, RUN, 100, XRT_MEM_RANGE_ATTRIBUTE_READ_MOSTLY), 1);
    assert_int_equal(range_int(m, 0, 4 * RUN, XRT_MEM_RANGE_ATTRIBUTE_READ_MOSTLY), 0);
    OK(xrt_mem_advise(m, RUN, XRT_MEM_ADVISE_UNSET_READ_MOSTLY, 0));
    assert_int_equal(range_int(m, 0, 2 * RUN, XRT_MEM_RANGE_ATTRIBUTE_READ_MOSTLY), 0);
    assert_int_equal(range_int(m, RUN, RUN, XRT_MEM_RANGE_ATTRIBUTE_READ_MOSTLY), 1);
    /* preferred location: the whole on the last device, then the host on the last run */
    OK(xrt_mem_advise(m, 4 * RUN, XRT_MEM_ADVISE_SET_PREFERRED_LOCATION, last));
    assert_int_equal(range_int(m, 0, 4 * RUN, XRT_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION), last);
    OK(xrt_mem_advise((char *)m + 3 * RUN, RUN, XRT_MEM_ADVISE_SET_PREFERRED_LOCATION, XRT_CPU_DEVICE_ID));
    assert_int_equal(range_int(m, 0, 4 * RUN, XRT_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION), XRT_INVALID_DEVICE_ID);
    assert_int_equal(range_int(m, 3 * RUN, RUN, XRT_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION), XRT_CPU_DEVICE_ID);
    assert_int_equal(range_int(m, RUN, 2 * RUN, XRT_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION), last);
    OK(xrt_mem_advise(m, 4 * RUN, XRT_MEM_ADVISE_UNSET_PREFERRED_LOCATION, 0));
    assert_int_equal(range_int(m, 3 * RUN, RUN, XRT_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION), XRT_INVALID_DEVICE_ID);
    /* accessed by: device 0 on the whole, the host on the first half; only what the whole range has */
    OK(xrt_mem_advise(m, 4 * RUN, XRT_MEM_ADVISE_SET_ACCESSED_BY, 0));
    OK(xrt_mem_advise(m, 2 * RUN, XRT_MEM_ADVISE_SET_ACCESSED_BY, XRT_CPU_DEVICE_ID));
    assert_true(accessed_by_is(m, 0, 4 * RUN, 0, XRT_INVALID_DEVICE_ID));
    assert_true(accessed_by_is(m, 0, 2 * RUN, 0, XRT_CPU_DEVICE_ID));
    OK(xrt_mem_advise(m, 4 * RUN, XRT_MEM_ADVISE_UNSET_ACCESSED_BY, 0));
    assert_true(accessed_by_is(m, 0, RUN, XRT_CPU_DEVICE_ID, XRT_INVALID_DEVICE_ID));
    assert_true(accessed_by_is(m, 2 * RUN, 2 * RUN, XRT_INVALID_DEVICE_ID, XRT_INVALID_DEVICE_ID));
    { /* one slot: as many as fit */
        int one = 7;
        OK(xrt_mem_range_get_attribute(&one, sizeof one, XRT_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, RUN));
        assert_int_equal(one, XRT_CPU_DEVICE_ID);
    }
    /* prefetches: counted from the call */
    OK(xrt_mem_prefetch_async(m, 4 * RUN, last, s));
    OK(xrt_mem_prefetch_async(m, RUN, XRT_CPU_DEVICE_ID, s));
    assert_int_equal(range_int(m, 0, 4 * RUN, XRT_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION), XRT_INVALID_DEVICE_ID);
    assert_int_equal(range_int(m, 0, RUN, XRT_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION), XRT_CPU_DEVICE_ID);
    assert_int_equal(range_int(m, RUN, 3 * RUN, XRT_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION), last);
    OK(xrt_stream_synchronize(s));
    /* a new allocation at the same place starts with nothing said */
    OK(xrt_free(m));
    OK(xrt_malloc_managed(&m, 4 * RUN, XRT_MEM_ATTACH_GLOBAL));
    assert_int_equal(range_int(m, 0, RUN, XRT_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION), XRT_INVALID_DEVICE_ID);
    assert_int_equal(range_int(m, RUN, RUN, XRT_MEM_RANGE_ATTRIBUTE_READ_MOSTLY), 0);
    OK(xrt_free(m));
    OK(xrt_stream_destroy(s));
}

static void test_range_attributes_bad_input(void **state)
{
    int v[2];
    void *m, *d;
    (void)state;
    OK(xrt_malloc(&d, 4096));
    OK(xrt_malloc_managed(&m, 4096, XRT_MEM_ATTACH_GLOBAL));
    FAILS(xrt_mem_range_get_attribute(NULL, 4, XRT_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 64), XRT_ERROR_INVALID_VALUE,
          "data is NULL");
    FAILS(xrt_mem_range_get_attribute(v, 8, XRT_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 64), XRT_ERROR_INVALID_VALUE,
          "data_size 8 is not sizeof(int)");
    FAILS(xrt_mem_range_get_attribute(v, 0, XRT_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, 64), XRT_ERROR_INVALID_VALUE,
          "not 0");
    FAILS(xrt_mem_range_get_attribute(v, 6, XRT_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, 64), XRT_ERROR_INVALID_VALUE,
          "a multiple of sizeof(int)");
    FAILS(xrt_mem_range_get_attribute(v, 4, 0, m, 64), XRT_ERROR_INVALID_VALUE, "attribute 0");
    FAILS(xrt_mem_range_get_attribute(v, 4, 5, m, 64), XRT_ERROR_INVALID_VALUE, "attribute 5");
    FAILS(xrt_mem_range_get_attribute(v, 4, XRT_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 4097), XRT_ERROR_INVALID_VALUE,
          "overrun");
    FAILS(xrt_mem_range_get_attribute(v, 4, XRT_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 0), XRT_ERROR_INVALID_VALUE,
          "count is 0");
    FAILS(xrt_mem_range_get_attribute(v, 4, XRT_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, 64), XRT_ERROR_INVALID_VALUE,
          "not managed memory");
    FAILS(xrt_mem_range_get_attribute(v, 4, XRT_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, v, 4), XRT_ERROR_INVALID_VALUE,
          "not managed memory");
    OK(xrt_free(m));
    FAILS(xrt_mem_range_get_attribute(v, 4, XRT_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 64), XRT_ERROR_INVALID_VALUE,
          "not managed memory");
    OK(xrt_free(d));
}

/* The CPU backend cannot capture a prefetch: the capture is invalidated
   (a GPU's runtime answers for itself). */
static void test_prefetch_in_capture(void **state)
{
    xrt_capture_status cs;
    unsigned caps = 0;
    xrt_graph g = NULL;
    xrt_stream s;
    void *m;
    (void)state;
    OK(xrt_get_capabilities(&caps));
    SKIP_UNLESS(caps & XRT_CAP_GRAPHS, "no graphs");
    SKIP_UNLESS(on_cpu(), "the runtime decides what a GPU captures");
    OK(xrt_malloc_managed(&m, 4096, XRT_MEM_ATTACH_GLOBAL));
    OK(xrt_stream_create(&s));
    OK(xrt_stream_begin_capture(s, XRT_CAPTURE_MODE_RELAXED));
    FAILS(xrt_mem_prefetch_async(m, 4096, 0, s), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED, "a prefetch of managed memory");
    OK(xrt_stream_is_capturing(s, &cs));
    assert_int_equal(cs, XRT_CAPTURE_STATUS_INVALIDATED);
    assert_int_equal(xrt_stream_end_capture(s, &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED);
    xrt_get_last_error();
    OK(xrt_stream_destroy(s));
    OK(xrt_free(m));
}

/* The node of the page at p (get_mempolicy MPOL_F_NODE | MPOL_F_ADDR). */
static int node_of(void *p)
{
    int node = -1;
    return syscall(SYS_get_mempolicy, &node, NULL, 0ul, p, 3ul) == 0 ? node : -2;
}

/* In a child: XRT_CPU_DEVICES=numa; a prefetch to each device moves the
   pages of the range to its node, with no warning (mbind accepted). */
static int numa_child(void)
{
    int n = 0, d, logs;
    unsigned char *m;
    xrt_shutdown();
    setenv("XRT_CPU_DEVICES", "numa", 1);
    if (xrt_set_backend("cpu") || xrt_get_device_count(&n)) return 1;
    logs = xrt_test_log.count;
    if (xrt_malloc_managed((void **)&m, 1 << 20, XRT_MEM_ATTACH_GLOBAL)) return 2;
    memset(m, 1, 1 << 20);
    for (d = n - 1; d >= 0; d--) {
        xrt_device_prop p;
        if (xrt_get_device_properties(&p, d) || xrt_mem_prefetch_async(m, 1 << 20, d, NULL) ||
            xrt_stream_synchronize(NULL))
            return 3;
        if (p.numa_node >= 0 && node_of(m + (1 << 19)) != p.numa_node) {
            fprintf(stderr, "device %d: the page is on node %d, not %d\n", d, node_of(m + (1 << 19)), p.numa_node);
            return 4;
        }
    }
    if (xrt_mem_advise(m, 1 << 20, XRT_MEM_ADVISE_SET_PREFERRED_LOCATION, 0) || xrt_free(m)) return 5;
    if (xrt_test_log.count != logs) {
        fprintf(stderr, "logged: %s\n", xrt_test_log.last);
        return 6;
    }
    xrt_shutdown();
    return 0;
}

static void test_numa_prefetch(void **state)
{
    int status = 0;
    pid_t pid;
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "XRT_CPU_DEVICES is the CPU backend's"); /* its child selects cpu */
    SKIP_IF_CHILD_STREAMS_UNDER_TSAN();
    fflush(NULL);
    if ((pid = fork()) == 0) _exit(numa_child());
    assert_true(pid > 0);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status)) fail_msg("the numa child failed: status %d", status);
}

/* Mapped host allocation (xrt_host_alloc, xrt_host_get_flags): pinned host
   memory with its flags, a device pointer, copies, xrt_free_host. */
static void test_host_alloc(void **state)
{
    static const unsigned all[] = {XRT_HOST_ALLOC_DEFAULT, XRT_HOST_ALLOC_PORTABLE,
                                   XRT_HOST_ALLOC_MAPPED | XRT_HOST_ALLOC_WRITE_COMBINED,
                                   XRT_HOST_ALLOC_PORTABLE | XRT_HOST_ALLOC_MAPPED | XRT_HOST_ALLOC_WRITE_COMBINED};
    static unsigned char reg[4096];
    unsigned char back[100];
    xrt_pointer_attributes a;
    unsigned flags = 99;
    size_t i;
    void *h, *pinned, *d, *dp = NULL, *p = NULL;
    (void)state;
    OK(xrt_malloc(&d, 4096));
    for (i = 0; i < sizeof all / sizeof all[0]; i++) {
        OK(xrt_host_alloc(&h, N, all[i]));
        assert_int_equal((uintptr_t)h % XRT_ALIGNMENT, 0);
        OK(xrt_host_get_flags(&flags, (char *)h + N - 1));
        assert_int_equal(flags, all[i]);
        OK(xrt_pointer_get_attributes(&a, h));
        assert_int_equal(a.type, XRT_MEMORY_PINNED_HOST);
        assert_int_equal(a.size, N);
        OK(xrt_host_get_device_pointer(&dp, (char *)h + 5, 0));
        assert_non_null(dp);
        memset(h, (int)i + 1, N);
        OK(xrt_memcpy_async(d, (char *)h + 3, 100, XRT_MEMCPY_HOST_TO_DEVICE, NULL));
        OK(xrt_memcpy_async(back, d, 100, XRT_MEMCPY_DEFAULT, NULL));
        OK(xrt_stream_synchronize(NULL));
        assert_bytes(back, sizeof back, (unsigned char)(i + 1));
        FAILS(xrt_free(h), XRT_ERROR_INVALID_VALUE, "use xrt_free_host");
        OK(xrt_free_host(h));
        FAILS(xrt_host_get_flags(&flags, h), XRT_ERROR_INVALID_VALUE, "not memory of xrt_host_alloc");
    }
    OK(xrt_malloc_host(&pinned, 64));
    flags = 99;
    OK(xrt_host_get_flags(&flags, pinned));
    assert_int_equal(flags, 0);
    OK(xrt_free_host(pinned));
    OK(xrt_host_register(reg, sizeof reg, XRT_HOST_REGISTER_MAPPED));
    FAILS(xrt_host_get_flags(&flags, reg), XRT_ERROR_INVALID_VALUE, "not memory of xrt_host_alloc");
    OK(xrt_host_unregister(reg));
    FAILS(xrt_host_alloc(&p, 64, 8), XRT_ERROR_INVALID_VALUE, "flags 0x8");
    FAILS(xrt_host_alloc(&p, 0, 0), XRT_ERROR_INVALID_VALUE, "size is 0");
    FAILS(xrt_host_alloc(NULL, 64, 0), XRT_ERROR_INVALID_VALUE, "NULL");
    assert_null(p);
    FAILS(xrt_host_get_flags(NULL, d), XRT_ERROR_INVALID_VALUE, "NULL");
    FAILS(xrt_host_get_flags(&flags, d), XRT_ERROR_INVALID_VALUE, "not memory of xrt_host_alloc");
    FAILS(xrt_host_get_flags(&flags, back), XRT_ERROR_INVALID_VALUE, "not memory of xrt_host_alloc");
    OK(xrt_free(d));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attributes_and_free), cmocka_unit_test(test_copies),
        cmocka_unit_test(test_cpu_kernel),          cmocka_unit_test(test_prefetch_in_stream_order),
        cmocka_unit_test(test_bad_input),           cmocka_unit_test(test_prefetch_in_capture),
        cmocka_unit_test(test_numa_prefetch),       cmocka_unit_test(test_host_alloc),
        cmocka_unit_test(test_range_attributes),    cmocka_unit_test(test_range_attributes_bad_input),
    };
    setenv("XRT_CPU_DEVICES", "2", 0); /* a device out of range is 2 */
    return xrt_test_run_on_backends("managed memory", tests, sizeof tests / sizeof tests[0], NULL);
}
