/* SPDX-License-Identifier: MIT */
/* Pitched memory on every backend: xrt_malloc_pitch, xrt_memcpy_2d (every
   direction, sub-rectangles at odd offsets and pitches), xrt_memset_2d and
   xrt_memset_d16 / _d32 (and their _async forms), each checked byte for byte
   against a plain loop over a copy of the whole buffers, padding included;
   the range checks (a rectangle past its allocation, a pitch less than the
   width, an overflowing span); a 2-D copy and set captured into a graph and
   launched twice; a 2-D copy large enough for the CPU backend to split.
   3-D memory likewise: xrt_malloc_3d, xrt_memcpy_3d (every direction, boxes
   at odd positions, pitches and slice heights), xrt_memset_3d, their checks
   (each side, every slice), capture and a split. */
#include "xrt_test.h"

enum { W = 37, H = 13, HP = 53, BIG_W = 4099, BIG_H = 4100 };

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    size_t i;
    for (i = 0; i < n; i++) p[i] = (unsigned char)(i * 31u + seed * 7u + (i >> 8));
}

/* The model: height rows of width bytes from src (spitch) to dst (dpitch). */
static void copy_rows(unsigned char *dst, size_t dpitch, const unsigned char *src, size_t spitch, size_t width,
                      size_t height)
{
    size_t r, i;
    for (r = 0; r < height; r++)
        for (i = 0; i < width; i++) dst[r * dpitch + i] = src[r * spitch + i];
}

static void assert_same(const unsigned char *got, const unsigned char *want, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (got[i] != want[i]) fail_msg("byte %zu is 0x%02x, want 0x%02x", i, got[i], want[i]);
}

/* A pitched device buffer of HP x H with known bytes, and its model on the host. */
typedef struct pitched {
    unsigned char *d;
    size_t pitch, size;
    unsigned char *model;
} pitched;

static void pitched_make(pitched *p, size_t width, size_t height, unsigned seed)
{
    void *d = NULL;
    OK(xrt_malloc_pitch(&d, &p->pitch, width, height));
    assert_non_null(d);
    assert_true(p->pitch >= width);
    assert_int_equal(p->pitch % XRT_ALIGNMENT, 0);
    p->d = (unsigned char *)d;
    p->size = p->pitch * height;
    p->model = (unsigned char *)malloc(p->size);
    assert_non_null(p->model);
    fill(p->model, p->size, seed);
    OK(xrt_memcpy(p->d, p->model, p->size, XRT_MEMCPY_HOST_TO_DEVICE));
}

static void pitched_check(const pitched *p)
{
    unsigned char *h = (unsigned char *)malloc(p->size);
    assert_non_null(h);
    OK(xrt_memcpy(h, p->d, p->size, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_same(h, p->model, p->size);
    free(h);
}

static void pitched_free(pitched *p)
{
    OK(xrt_free(p->d));
    free(p->model);
}

static void test_malloc_pitch(void **state)
{
    void *d = (void *)1;
    size_t pitch = 1;
    xrt_pointer_attributes a;
    (void)state;
    OK(xrt_malloc_pitch(&d, &pitch, 1, 1));
    assert_int_equal(pitch, XRT_ALIGNMENT);
    OK(xrt_pointer_get_attributes(&a, d));
    assert_int_equal(a.type, XRT_MEMORY_DEVICE);
    OK(xrt_free(d));
    OK(xrt_malloc_pitch(&d, &pitch, XRT_ALIGNMENT + 1, 3));
    assert_int_equal(pitch, 2 * XRT_ALIGNMENT);
    OK(xrt_memset(d, 1, pitch * 3)); /* all of it is the allocation's */
    OK(xrt_free(d));
    OK(xrt_malloc_pitch(&d, &pitch, 0, 5));
    assert_null(d);
    assert_int_equal(pitch, 0);
    OK(xrt_malloc_pitch(&d, &pitch, 5, 0));
    assert_null(d);
    XRT_ASSERT_FAILS(xrt_malloc_pitch(NULL, &pitch, 5, 5), XRT_ERROR_INVALID_VALUE, "NULL");
    XRT_ASSERT_FAILS(xrt_malloc_pitch(&d, NULL, 5, 5), XRT_ERROR_INVALID_VALUE, "NULL");
    XRT_ASSERT_FAILS(xrt_malloc_pitch(&d, &pitch, SIZE_MAX / 2, 3), XRT_ERROR_INVALID_VALUE, "overflows");
}

/* Host to device, device to device, device to host and host to host, each at
   an odd offset on both sides, odd pitches on the host, explicit and default
   kinds, synchronous and on a stream. */
static void test_memcpy_2d_directions(void **state)
{
    const size_t hpitch = HP + 2, hsize = hpitch * H + 5;
    unsigned char *h = (unsigned char *)malloc(hsize), *h2 = (unsigned char *)malloc(hsize);
    unsigned char *hmodel = (unsigned char *)malloc(hsize), *h2model = (unsigned char *)malloc(hsize);
    pitched a, b;
    xrt_stream s;
    int async;
    (void)state;
    assert_true(h && h2 && hmodel && h2model);
    OK(xrt_stream_create(&s));
    for (async = 0; async < 2; async++) {
        xrt_memcpy_kind k = async ? XRT_MEMCPY_DEFAULT : XRT_MEMCPY_HOST_TO_DEVICE;
        pitched_make(&a, HP, H, 1 + async);
        pitched_make(&b, HP - 10, H + 2, 3 + async);
        fill(h, hsize, 5);
        memcpy(hmodel, h, hsize);
        fill(h2, hsize, 6);
        memcpy(h2model, h2, hsize);
        /* host (offset 3, pitch hpitch) -> a (row 1, column 5): W x (H - 2) */
        if (async) OK(xrt_memcpy_2d_async(a.d + a.pitch + 5, a.pitch, h + 3, hpitch, W, H - 2, k, s));
        else OK(xrt_memcpy_2d(a.d + a.pitch + 5, a.pitch, h + 3, hpitch, W, H - 2, k));
        copy_rows(a.model + a.pitch + 5, a.pitch, h + 3, hpitch, W, H - 2);
        /* a (row 2, column 1) -> b (row 0, column 7): W - 4 x (H - 3) */
        k = async ? XRT_MEMCPY_DEFAULT : XRT_MEMCPY_DEVICE_TO_DEVICE;
        if (async) OK(xrt_memcpy_2d_async(b.d + 7, b.pitch, a.d + 2 * a.pitch + 1, a.pitch, W - 4, H - 3, k, s));
        else OK(xrt_memcpy_2d(b.d + 7, b.pitch, a.d + 2 * a.pitch + 1, a.pitch, W - 4, H - 3, k));
        copy_rows(b.model + 7, b.pitch, a.model + 2 * a.pitch + 1, a.pitch, W - 4, H - 3);
        /* b -> host h2 at offset 1, pitch hpitch - 1: the whole width of b's rows */
        k = async ? XRT_MEMCPY_DEFAULT : XRT_MEMCPY_DEVICE_TO_HOST;
        if (async) OK(xrt_memcpy_2d_async(h2 + 1, hpitch - 1, b.d, b.pitch, HP - 10, H, k, s));
        else OK(xrt_memcpy_2d(h2 + 1, hpitch - 1, b.d, b.pitch, HP - 10, H, k));
        if (async) OK(xrt_stream_synchronize(s));
        copy_rows(h2model + 1, hpitch - 1, b.model, b.pitch, HP - 10, H);
        assert_same(h2, h2model, hsize);
        /* host -> host, pitches equal to the width (one contiguous block) */
        k = async ? XRT_MEMCPY_DEFAULT : XRT_MEMCPY_HOST_TO_HOST;
        if (async) OK(xrt_memcpy_2d_async(h2, W, h, W, W, H, k, s));
        else OK(xrt_memcpy_2d(h2, W, h, W, W, H, k));
        if (async) OK(xrt_stream_synchronize(s));
        copy_rows(h2model, W, h, W, W, H);
        assert_same(h2, h2model, hsize);
        pitched_check(&a);
        pitched_check(&b);
        /* width or height 0: nothing happens */
        OK(xrt_memcpy_2d(a.d, a.pitch, b.d, b.pitch, 0, H, XRT_MEMCPY_DEVICE_TO_DEVICE));
        OK(xrt_memcpy_2d_async(a.d, a.pitch, b.d, b.pitch, W, 0, XRT_MEMCPY_DEVICE_TO_DEVICE, s));
        pitched_check(&a);
        pitched_free(&a);
        pitched_free(&b);
    }
    OK(xrt_stream_destroy(s));
    free(h);
    free(h2);
    free(hmodel);
    free(h2model);
}

static void set_rows(unsigned char *p, size_t pitch, unsigned value, unsigned esize, size_t width, size_t height)
{
    size_t r, i;
    unsigned k;
    for (r = 0; r < height; r++)
        for (i = 0; i < width; i++)
            for (k = 0; k < esize; k++) p[r * pitch + i * esize + k] = (unsigned char)(value >> (8 * k)); /* little endian */
}

static void test_memset_2d(void **state)
{
    pitched a;
    xrt_stream s;
    (void)state;
    OK(xrt_stream_create(&s));
    pitched_make(&a, HP, H, 9);
    OK(xrt_memset_2d(a.d + a.pitch + 3, a.pitch, 0x1a5, W, H - 3)); /* the low byte only */
    set_rows(a.model + a.pitch + 3, a.pitch, 0xa5, 1, W, H - 3);
    pitched_check(&a);
    OK(xrt_memset_2d_async(a.d + 11, a.pitch, 0x3c, W - 9, H, s));
    OK(xrt_stream_synchronize(s));
    set_rows(a.model + 11, a.pitch, 0x3c, 1, W - 9, H);
    pitched_check(&a);
    OK(xrt_memset_2d(a.d, a.pitch, 0, 0, H));
    OK(xrt_memset_2d_async(a.d, a.pitch, 0, W, 0, s));
    pitched_check(&a);
    pitched_free(&a);
    OK(xrt_stream_destroy(s));
}

/* One row: the pitch is unused, as cudaMemset2D's ("Unused if height is
   1"): a pitch less than the width (0, 1) sets the row all the same, and
   one past the allocation is not looked at. The row itself is checked. */
static void test_memset_2d_one_row(void **state)
{
    pitched a;
    xrt_stream s;
    (void)state;
    xrt_test_log_calls();
    OK(xrt_stream_create(&s));
    pitched_make(&a, HP, H, 12);
    OK(xrt_memset_2d(a.d + 5, 0, 0x5e, W, 1));
    set_rows(a.model + 5, 0, 0x5e, 1, W, 1);
    OK(xrt_memset_2d_async(a.d + a.pitch + 1, 1, 0x61, W, 1, s));
    OK(xrt_stream_synchronize(s));
    set_rows(a.model + a.pitch + 1, 0, 0x61, 1, W, 1);
    OK(xrt_memset_2d(a.d + (H - 1) * a.pitch, SIZE_MAX, 0x77, a.pitch, 1));
    set_rows(a.model + (H - 1) * a.pitch, 0, 0x77, 1, a.pitch, 1);
    pitched_check(&a);
    FAILS(xrt_memset_2d(a.d + (H - 1) * a.pitch + 1, 0, 0, a.pitch, 1), XRT_ERROR_INVALID_VALUE, "overrun");
    FAILS(xrt_memset_2d(NULL, 0, 0, W, 1), XRT_ERROR_INVALID_VALUE, "dst is NULL");
    pitched_check(&a);
    pitched_free(&a);
    OK(xrt_stream_destroy(s));
}

/* Elements of 2 and 4 bytes; a value of unequal bytes is unsupported on a
   GPU backend only without CUDA's driver (the runtime's memset is of bytes:
   the driver's cuMemsetD2D16 sets them) or HIP's hipMemsetD16; one of equal
   bytes never is. */
static void test_memset_d16_d32(void **state)
{
    pitched a;
    xrt_stream s;
    xrt_status st;
    int gpu = !on_cpu();
    (void)state;
    OK(xrt_stream_create(&s));
    pitched_make(&a, HP * 4, 2, 10);
    OK(xrt_memset_d16(a.d + 2, 0x7777, 21));
    set_rows(a.model + 2, 0, 0x7777, 2, 21, 1);
    OK(xrt_memset_d32_async(a.d + 60, 0x3b3b3b3bu, 19, s));
    OK(xrt_stream_synchronize(s));
    set_rows(a.model + 60, 0, 0x3b3b3b3bu, 4, 19, 1);
    pitched_check(&a);
    st = xrt_memset_d16(a.d + 200, 0xbeef, 33);
    if (!(gpu && st == XRT_ERROR_UNSUPPORTED)) {
        OK(st);
        set_rows(a.model + 200, 0, 0xbeef, 2, 33, 1);
        OK(xrt_memset_d16_async(a.d + a.pitch + 6, 0x1234, 3, s));
        set_rows(a.model + a.pitch + 6, 0, 0x1234, 2, 3, 1);
        OK(xrt_memset_d32(a.d + 300, 0xdeadbeefu, 17));
        set_rows(a.model + 300, 0, 0xdeadbeefu, 4, 17, 1);
        OK(xrt_memset_d32_async(a.d + a.pitch + 100, 0x01020304u, 29, s));
        set_rows(a.model + a.pitch + 100, 0, 0x01020304u, 4, 29, 1);
        OK(xrt_stream_synchronize(s));
        pitched_check(&a);
    }
    OK(xrt_memset_d16(a.d, 1, 0));
    pitched_free(&a);
    OK(xrt_stream_destroy(s));
    SKIP_UNLESS(!gpu || st != XRT_ERROR_UNSUPPORTED, "memsets of 2 and 4 bytes of unequal bytes: no driver");
}

/* Each side's rectangle is checked against its allocation: its last row's
   end past it is XRT_ERROR_INVALID_VALUE naming the overrun; so are a pitch
   less than the width and a span that overflows. */
static void test_pitched_bad_input(void **state)
{
    pitched a;
    unsigned char h[64];
    xrt_stream s;
    (void)state;
    xrt_test_log_calls();
    OK(xrt_stream_create(&s));
    pitched_make(&a, W, H, 11);
    FAILS(xrt_memcpy_2d(a.d + 1, a.pitch, a.d, a.pitch, a.pitch, H, XRT_MEMCPY_DEVICE_TO_DEVICE), XRT_ERROR_INVALID_VALUE,
          "at dst");
    FAILS(xrt_memcpy_2d(a.d, a.pitch, a.d + a.pitch, a.pitch, 1, H, XRT_MEMCPY_DEVICE_TO_DEVICE), XRT_ERROR_INVALID_VALUE,
          "at src");
    FAILS(xrt_memcpy_2d(a.d + a.pitch - 2, a.pitch, h, 0, 3, 1, XRT_MEMCPY_HOST_TO_DEVICE), XRT_ERROR_INVALID_VALUE,
          "src pitch 0 is less than width 3");
    FAILS(xrt_memcpy_2d_async(h, 4, a.d + (H - 1) * a.pitch + 2, a.pitch, 4, 2, XRT_MEMCPY_DEVICE_TO_HOST, s), XRT_ERROR_INVALID_VALUE,
          "overrun");
    FAILS(xrt_memcpy_2d(a.d, 4, h, 4, 5, 2, XRT_MEMCPY_HOST_TO_DEVICE), XRT_ERROR_INVALID_VALUE,
          "dst pitch 4 is less than width 5");
    FAILS(xrt_memcpy_2d(a.d, SIZE_MAX / 2, h, 4, 4, 3, XRT_MEMCPY_HOST_TO_DEVICE), XRT_ERROR_INVALID_VALUE,
          "overflows");
    FAILS(xrt_memcpy_2d(NULL, 4, h, 4, 4, 3, XRT_MEMCPY_HOST_TO_DEVICE), XRT_ERROR_INVALID_VALUE, "dst is NULL");
    FAILS(xrt_memcpy_2d(a.d, a.pitch, h, 4, 4, 3, XRT_MEMCPY_DEVICE_TO_HOST), XRT_ERROR_INVALID_MEMCPY_KIND,
          "kind device-to-host but dst");
    FAILS(xrt_memcpy_2d(a.d, a.pitch, h, 4, 4, 3, (xrt_memcpy_kind)9), XRT_ERROR_INVALID_MEMCPY_KIND, "kind 9");
    FAILS(xrt_memset_2d(a.d + 1, a.pitch, 0, a.pitch, H), XRT_ERROR_INVALID_VALUE, "overrun");
    FAILS(xrt_memset_2d_async(a.d, 2, 0, 3, 2, s), XRT_ERROR_INVALID_VALUE, "dst pitch 2 is less than width 3");
    FAILS(xrt_memset_2d(h, 8, 0, 8, 8), XRT_ERROR_INVALID_POINTER, "not device memory");
    FAILS(xrt_memset_d16(a.d + 1, 0, 3), XRT_ERROR_INVALID_VALUE, "not aligned to 2 bytes");
    FAILS(xrt_memset_d32_async(a.d + 2, 0, 3, s), XRT_ERROR_INVALID_VALUE, "not aligned to 4 bytes");
    FAILS(xrt_memset_d32(a.d, 0, a.size / 4 + 1), XRT_ERROR_INVALID_VALUE, "overrun");
    FAILS(xrt_memset_d32(a.d, 0, SIZE_MAX / 2), XRT_ERROR_INVALID_VALUE, "overflow");
    FAILS(xrt_memcpy_2d_async(a.d, a.pitch, h, 4, 4, 3, XRT_MEMCPY_HOST_TO_DEVICE, (xrt_stream)(uintptr_t)12345),
          XRT_ERROR_INVALID_HANDLE, "xrt_memcpy_2d_async");
    pitched_check(&a); /* nothing was written */
    pitched_free(&a);
    OK(xrt_stream_destroy(s));
}

/* A 2-D copy and a 2-D set on a capturing stream are nodes: the graph
   holds them, and each launch does them again. */
static void test_pitched_capture(void **state)
{
    pitched a, b;
    xrt_stream s;
    xrt_graph g;
    xrt_graph_exec e;
    xrt_graph_info info;
    int i;
    unsigned v16 = on_cpu() ? 0xa1b2 : 0x5c5c; /* a GPU's sets bytes (see test_memset_d16_d32) */
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_GRAPHS, "the backend has no graphs (XRT_CAP_GRAPHS is clear)");
    OK(xrt_stream_create(&s));
    pitched_make(&a, HP, H, 12);
    pitched_make(&b, HP, H, 13);
    OK(xrt_stream_begin_capture(s, XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_memcpy_2d_async(b.d + 3, b.pitch, a.d + 1, a.pitch, W, H - 1, XRT_MEMCPY_DEVICE_TO_DEVICE, s));
    OK(xrt_memset_2d_async(a.d + 2, a.pitch, 0x42, W - 3, H, s));
    OK(xrt_memset_d16_async(a.d + 4, (uint16_t)v16, 5, s));
    OK(xrt_stream_end_capture(s, &g));
    OK(xrt_graph_get_info(g, &info));
    assert_int_equal(info.nodes, 3);
    assert_int_equal(info.copies, 1);
    assert_int_equal(info.sets, 2);
    pitched_check(&a); /* captured, not done */
    pitched_check(&b);
    OK(xrt_graph_instantiate(&e, g));
    for (i = 0; i < 2; i++) {
        OK(xrt_graph_launch(e, s));
        OK(xrt_stream_synchronize(s));
        copy_rows(b.model + 3, b.pitch, a.model + 1, a.pitch, W, H - 1);
        set_rows(a.model + 2, a.pitch, 0x42, 1, W - 3, H);
        set_rows(a.model + 4, 0, v16, 2, 5, 1);
        pitched_check(&a);
        pitched_check(&b);
    }
    OK(xrt_graph_exec_destroy(e));
    OK(xrt_graph_destroy(g));
    pitched_free(&a);
    pitched_free(&b);
    OK(xrt_stream_destroy(s));
}

/* A copy larger than the CPU backend's split size, host to device and back. */
static void test_memcpy_2d_large(void **state)
{
    pitched a;
    size_t hpitch = BIG_W + 3, hsize = hpitch * BIG_H;
    unsigned char *h = (unsigned char *)malloc(hsize), *back = (unsigned char *)malloc(hsize);
    (void)state;
    assert_true(h && back);
    pitched_make(&a, BIG_W, BIG_H, 14);
    fill(h, hsize, 15);
    OK(xrt_memcpy_2d(a.d + 1, a.pitch, h, hpitch, BIG_W - 1, BIG_H, XRT_MEMCPY_HOST_TO_DEVICE));
    copy_rows(a.model + 1, a.pitch, h, hpitch, BIG_W - 1, BIG_H);
    pitched_check(&a);
    memset(back, 0, hsize);
    OK(xrt_memcpy_2d(back, hpitch, a.d, a.pitch, BIG_W, BIG_H, XRT_MEMCPY_DEVICE_TO_HOST));
    memset(h, 0, hsize);
    copy_rows(h, hpitch, a.model, a.pitch, BIG_W, BIG_H);
    assert_same(back, h, hsize);
    pitched_free(&a);
    free(h);
    free(back);
}

/* >> 3-D memory */

/* The model: depth slices of height rows of width bytes. */
static void copy_box(unsigned char *dst, size_t dpitch, size_t dslice, const unsigned char *src, size_t spitch,
                     size_t sslice, size_t width, size_t height, size_t depth)
{
    size_t z;
    for (z = 0; z < depth; z++) copy_rows(dst + z * dslice, dpitch, src + z * sslice, spitch, width, height);
}

static void set_box(unsigned char *p, size_t pitch, size_t slice, unsigned value, size_t width, size_t height,
                    size_t depth)
{
    size_t z;
    for (z = 0; z < depth; z++) set_rows(p + z * slice, pitch, value, 1, width, height);
}

/* A 3-D device buffer with known bytes (as pitched: d, pitch, size, model) and its ysize. */
static void box_make(pitched *p, size_t *ysize, size_t width, size_t height, size_t depth, unsigned seed)
{
    xrt_pitched_ptr pp;
    OK(xrt_malloc_3d(&pp, xrt_make_extent(width, height, depth)));
    assert_non_null(pp.ptr);
    assert_true(pp.pitch >= width);
    assert_int_equal(pp.pitch % XRT_ALIGNMENT, 0);
    assert_int_equal(pp.xsize, width);
    assert_int_equal(pp.ysize, height);
    *ysize = pp.ysize;
    p->d = (unsigned char *)pp.ptr;
    p->pitch = pp.pitch;
    p->size = pp.pitch * height * depth;
    p->model = (unsigned char *)malloc(p->size);
    assert_non_null(p->model);
    fill(p->model, p->size, seed);
    OK(xrt_memcpy(p->d, p->model, p->size, XRT_MEMCPY_HOST_TO_DEVICE));
}

static void test_malloc_3d(void **state)
{
    xrt_pitched_ptr p = xrt_make_pitched_ptr((void *)1, 1, 1, 1);
    xrt_pointer_attributes a;
    xrt_pos pos = xrt_make_pos(1, 2, 3);
    (void)state;
    assert_true(pos.x == 1 && pos.y == 2 && pos.z == 3);
    OK(xrt_malloc_3d(&p, xrt_make_extent(XRT_ALIGNMENT + 1, 3, 5)));
    assert_int_equal(p.pitch, 2 * XRT_ALIGNMENT);
    assert_int_equal(p.xsize, XRT_ALIGNMENT + 1);
    assert_int_equal(p.ysize, 3);
    OK(xrt_pointer_get_attributes(&a, p.ptr));
    assert_int_equal(a.type, XRT_MEMORY_DEVICE);
    assert_int_equal(a.size, p.pitch * 3 * 5);
    OK(xrt_memset(p.ptr, 1, p.pitch * 3 * 5)); /* all of it is the allocation's */
    OK(xrt_free(p.ptr));
    OK(xrt_malloc_3d(&p, xrt_make_extent(5, 3, 0)));
    assert_null(p.ptr);
    assert_int_equal(p.pitch, 0);
    OK(xrt_malloc_3d(&p, xrt_make_extent(0, 3, 2)));
    assert_null(p.ptr);
    XRT_ASSERT_FAILS(xrt_malloc_3d(NULL, xrt_make_extent(5, 5, 5)), XRT_ERROR_INVALID_VALUE, "NULL");
    XRT_ASSERT_FAILS(xrt_malloc_3d(&p, xrt_make_extent(64, SIZE_MAX / 2, 3)), XRT_ERROR_INVALID_VALUE, "overflows");
    XRT_ASSERT_FAILS(xrt_malloc_3d(&p, xrt_make_extent(SIZE_MAX / 4, 2, 3)), XRT_ERROR_INVALID_VALUE, "overflows");
    assert_null(p.ptr);
}

static xrt_memcpy_3d_parms parms_of(void *dst, size_t dpitch, size_t dysize, xrt_pos dpos, const void *src,
                                    size_t spitch, size_t sysize, xrt_pos spos, xrt_extent e, xrt_memcpy_kind kind)
{
    xrt_memcpy_3d_parms p;
    memset(&p, 0, sizeof p);
    p.dst_ptr = xrt_make_pitched_ptr(dst, dpitch, dpitch, dysize);
    p.dst_pos = dpos;
    p.src_ptr = xrt_make_pitched_ptr((void *)(uintptr_t)src, spitch, spitch, sysize);
    p.src_pos = spos;
    p.extent = e;
    p.kind = kind;
    return p;
}

static xrt_status copy_3d(const xrt_memcpy_3d_parms *p, int async, xrt_stream s)
{
    return async ? xrt_memcpy_3d_async(p, s) : xrt_memcpy_3d(p);
}

enum { BW = 29, BH = 7, BD = 5, HY = BH + 3 };

/* Host to device, device to device, device to host and host to host, boxes
   at odd positions on both sides, odd pitches and slice heights on the host,
   explicit and default kinds, synchronous and on a stream. */
static void test_memcpy_3d_directions(void **state)
{
    const size_t hpitch = BW + 6, hslice = hpitch * HY, hsize = hslice * (BD + 1) + 3;
    unsigned char *h = (unsigned char *)malloc(hsize), *h2 = (unsigned char *)malloc(hsize);
    unsigned char *h2model = (unsigned char *)malloc(hsize);
    pitched a, b;
    size_t ay, by;
    xrt_stream s;
    xrt_memcpy_3d_parms p;
    int async;
    (void)state;
    assert_true(h && h2 && h2model);
    OK(xrt_stream_create(&s));
    for (async = 0; async < 2; async++) {
        xrt_memcpy_kind k = async ? XRT_MEMCPY_DEFAULT : XRT_MEMCPY_HOST_TO_DEVICE;
        box_make(&a, &ay, BW + 4, BH + 2, BD + 1, 21 + async);
        box_make(&b, &by, BW + 1, BH, BD, 23 + async);
        fill(h, hsize, 25);
        fill(h2, hsize, 26);
        memcpy(h2model, h2, hsize);
        /* host (pitch hpitch, ysize HY) at (3, 1, 1) -> a at (2, 1, 1): BW x BH x (BD - 1) */
        p = parms_of(a.d, a.pitch, ay, xrt_make_pos(2, 1, 1), h, hpitch, HY, xrt_make_pos(3, 1, 1),
                     xrt_make_extent(BW, BH, BD - 1), k);
        OK(copy_3d(&p, async, s));
        copy_box(a.model + ay * a.pitch + a.pitch + 2, a.pitch, a.pitch * ay, h + hslice + hpitch + 3, hpitch, hslice,
                 BW, BH, BD - 1);
        /* a at (1, 2, 0) -> b at (0, 0, 1): (BW - 3) x (BH - 1) x (BD - 1) */
        k = async ? XRT_MEMCPY_DEFAULT : XRT_MEMCPY_DEVICE_TO_DEVICE;
        p = parms_of(b.d, b.pitch, by, xrt_make_pos(0, 0, 1), a.d, a.pitch, ay, xrt_make_pos(1, 2, 0),
                     xrt_make_extent(BW - 3, BH - 1, BD - 1), k);
        OK(copy_3d(&p, async, s));
        copy_box(b.model + b.pitch * by, b.pitch, b.pitch * by, a.model + 2 * a.pitch + 1, a.pitch, a.pitch * ay,
                 BW - 3, BH - 1, BD - 1);
        /* all of b -> host h2 at (1, 2, 0), pitch hpitch - 1, ysize HY */
        k = async ? XRT_MEMCPY_DEFAULT : XRT_MEMCPY_DEVICE_TO_HOST;
        p = parms_of(h2, hpitch - 1, HY, xrt_make_pos(1, 2, 0), b.d, b.pitch, by, xrt_make_pos(0, 0, 0),
                     xrt_make_extent(BW + 1, BH, BD), k);
        OK(copy_3d(&p, async, s));
        if (async) OK(xrt_stream_synchronize(s));
        copy_box(h2model + 2 * (hpitch - 1) + 1, hpitch - 1, (hpitch - 1) * HY, b.model, b.pitch, b.pitch * by, BW + 1,
                 BH, BD);
        assert_same(h2, h2model, hsize);
        /* host -> host: one slice of one row at a far position */
        k = async ? XRT_MEMCPY_DEFAULT : XRT_MEMCPY_HOST_TO_HOST;
        p = parms_of(h2, hpitch, HY, xrt_make_pos(5, HY - 1, BD), h, hpitch, HY, xrt_make_pos(0, 0, 0),
                     xrt_make_extent(BW, 1, 1), k);
        OK(copy_3d(&p, async, s));
        if (async) OK(xrt_stream_synchronize(s));
        copy_rows(h2model + BD * hslice + (HY - 1) * hpitch + 5, hpitch, h, hpitch, BW, 1);
        assert_same(h2, h2model, hsize);
        pitched_check(&a);
        pitched_check(&b);
        /* an extent with a 0: nothing happens */
        p = parms_of(a.d, a.pitch, ay, xrt_make_pos(0, 0, 0), b.d, b.pitch, by, xrt_make_pos(0, 0, 0),
                     xrt_make_extent(BW, BH, 0), XRT_MEMCPY_DEVICE_TO_DEVICE);
        OK(copy_3d(&p, async, s));
        p.extent = xrt_make_extent(0, BH, BD);
        OK(copy_3d(&p, async, s));
        OK(xrt_stream_synchronize(s));
        pitched_check(&a);
        pitched_free(&a);
        pitched_free(&b);
    }
    OK(xrt_stream_destroy(s));
    free(h);
    free(h2);
    free(h2model);
}

/* The whole box and a box inside a taller ysize (a pointer past the first
   row and column, ysize left as allocated). */
static void test_memset_3d(void **state)
{
    pitched a;
    size_t ay;
    xrt_stream s;
    (void)state;
    OK(xrt_stream_create(&s));
    box_make(&a, &ay, BW, BH, BD, 27);
    OK(xrt_memset_3d(xrt_make_pitched_ptr(a.d, a.pitch, BW, ay), 0x1a5, xrt_make_extent(BW, BH, BD)));
    set_box(a.model, a.pitch, a.pitch * ay, 0xa5, BW, BH, BD); /* the low byte only */
    pitched_check(&a);
    OK(xrt_memset_3d_async(xrt_make_pitched_ptr(a.d + a.pitch + 3, a.pitch, BW, ay), 0x3c,
                           xrt_make_extent(BW - 5, BH - 2, BD - 1), s));
    OK(xrt_stream_synchronize(s));
    set_box(a.model + a.pitch + 3, a.pitch, a.pitch * ay, 0x3c, BW - 5, BH - 2, BD - 1);
    pitched_check(&a);
    OK(xrt_memset_3d(xrt_make_pitched_ptr(a.d, a.pitch, BW, ay), 0, xrt_make_extent(BW, BH, 0)));
    OK(xrt_memset_3d_async(xrt_make_pitched_ptr(a.d, a.pitch, BW, ay), 0, xrt_make_extent(0, BH, BD), s));
    OK(xrt_stream_synchronize(s));
    pitched_check(&a);
    pitched_free(&a);
    OK(xrt_stream_destroy(s));
}

/* Each side's box against its pitch, its ysize and its allocation (its last
   slice's last row), overflowing geometry, NULL and kinds. */
static void test_pitched_3d_bad_input(void **state)
{
    pitched a;
    size_t ay;
    unsigned char h[4096];
    xrt_stream s;
    xrt_memcpy_3d_parms p;
    const xrt_pos o = {0, 0, 0};
    (void)state;
    xrt_test_log_calls();
    fill(h, sizeof h, 29); /* the one copy that goes through carries known bytes */
    OK(xrt_stream_create(&s));
    box_make(&a, &ay, BW, BH, BD, 28);
    /* the whole box fits; one more slice, row or byte on either side does not */
    p = parms_of(a.d, a.pitch, ay, o, h, 64, BH, o, xrt_make_extent(BW, BH, BD + 1), XRT_MEMCPY_HOST_TO_DEVICE);
    FAILS(xrt_memcpy_3d(&p), XRT_ERROR_INVALID_VALUE, "dst");
    p = parms_of(h, 64, BH, o, a.d, a.pitch, ay, xrt_make_pos(0, 0, 1), xrt_make_extent(BW, BH, BD),
                 XRT_MEMCPY_DEVICE_TO_HOST);
    FAILS(xrt_memcpy_3d_async(&p, s), XRT_ERROR_INVALID_VALUE, "at src");
    p = parms_of(a.d, a.pitch, ay, xrt_make_pos(0, 1, 0), h, 64, BH + 1, o, xrt_make_extent(BW, BH, BD),
                 XRT_MEMCPY_HOST_TO_DEVICE);
    FAILS(xrt_memcpy_3d(&p), XRT_ERROR_INVALID_VALUE, "dst y 1 + height 7 is past its ysize 7");
    p = parms_of(a.d, a.pitch, ay, xrt_make_pos(0, 1, 0), h, 64, BH, o, xrt_make_extent(BW, BH - 1, BD),
                 XRT_MEMCPY_HOST_TO_DEVICE);
    OK(xrt_memcpy_3d(&p)); /* rows 1 .. BH - 1 of every slice: inside */
    copy_box(a.model + a.pitch, a.pitch, a.pitch * ay, h, 64, 64 * BH, BW, BH - 1, BD);
    p = parms_of(a.d, a.pitch, 0, xrt_make_pos(a.pitch - BW + 1, 0, 0), h, 64, 1, o, xrt_make_extent(BW, 1, 1),
                 XRT_MEMCPY_HOST_TO_DEVICE);
    FAILS(xrt_memcpy_3d(&p), XRT_ERROR_INVALID_VALUE, "is past its pitch");
    p = parms_of(a.d, a.pitch, ay, o, h, BW - 1, BH, o, xrt_make_extent(BW, 2, 2), XRT_MEMCPY_HOST_TO_DEVICE);
    FAILS(xrt_memcpy_3d(&p), XRT_ERROR_INVALID_VALUE, "src pitch 28 is less than width 29");
    p = parms_of(a.d, a.pitch, ay, o, h, 64, SIZE_MAX / 32, o, xrt_make_extent(8, 2, 3), XRT_MEMCPY_HOST_TO_DEVICE);
    FAILS(xrt_memcpy_3d(&p), XRT_ERROR_INVALID_VALUE, "overflows");
    p = parms_of(a.d, a.pitch, ay, o, h, 64, 2, xrt_make_pos(0, 0, SIZE_MAX / 64), xrt_make_extent(8, 2, 1),
                 XRT_MEMCPY_HOST_TO_DEVICE);
    FAILS(xrt_memcpy_3d(&p), XRT_ERROR_INVALID_VALUE, "overflows");
    p = parms_of(NULL, a.pitch, ay, o, h, 64, BH, o, xrt_make_extent(8, 2, 2), XRT_MEMCPY_HOST_TO_DEVICE);
    FAILS(xrt_memcpy_3d(&p), XRT_ERROR_INVALID_VALUE, "dst ptr is NULL");
    p = parms_of(a.d, a.pitch, ay, o, h, 64, BH, o, xrt_make_extent(8, 2, 2), XRT_MEMCPY_DEVICE_TO_HOST);
    FAILS(xrt_memcpy_3d(&p), XRT_ERROR_INVALID_MEMCPY_KIND, "kind device-to-host but dst");
    p.kind = (xrt_memcpy_kind)9;
    FAILS(xrt_memcpy_3d(&p), XRT_ERROR_INVALID_MEMCPY_KIND, "kind 9");
    FAILS(xrt_memcpy_3d(NULL), XRT_ERROR_INVALID_VALUE, "p is NULL");
    FAILS(xrt_memcpy_3d_async(NULL, s), XRT_ERROR_INVALID_VALUE, "p is NULL");
    p.kind = XRT_MEMCPY_HOST_TO_DEVICE;
    FAILS(xrt_memcpy_3d_async(&p, (xrt_stream)(uintptr_t)12345), XRT_ERROR_INVALID_HANDLE, "xrt_memcpy_3d_async");
    FAILS(xrt_memset_3d(xrt_make_pitched_ptr(a.d, a.pitch, BW, ay), 0, xrt_make_extent(BW, BH, BD + 1)),
          XRT_ERROR_INVALID_VALUE, "overrun");
    FAILS(xrt_memset_3d(xrt_make_pitched_ptr(a.d + 1, a.pitch, BW, ay), 0, xrt_make_extent(a.pitch + 1, 1, 1)),
          XRT_ERROR_INVALID_VALUE, "dst pitch");
    FAILS(xrt_memset_3d_async(xrt_make_pitched_ptr(a.d, a.pitch, BW, BH - 1), 0, xrt_make_extent(BW, BH, 2), s),
          XRT_ERROR_INVALID_VALUE, "past its ysize 6");
    FAILS(xrt_memset_3d(xrt_make_pitched_ptr(a.d, SIZE_MAX / 2, BW, 4), 0, xrt_make_extent(BW, 2, 2)),
          XRT_ERROR_INVALID_VALUE, "overflows");
    FAILS(xrt_memset_3d(xrt_make_pitched_ptr(h, 64, 64, 4), 0, xrt_make_extent(8, 2, 2)), XRT_ERROR_INVALID_POINTER,
          "not device memory");
    FAILS(xrt_memset_3d(xrt_make_pitched_ptr(NULL, 64, 64, 4), 0, xrt_make_extent(8, 2, 2)), XRT_ERROR_INVALID_VALUE,
          "dst ptr is NULL");
    pitched_check(&a); /* nothing else was written */
    pitched_free(&a);
    OK(xrt_stream_destroy(s));
}

/* A 3-D copy and a 3-D set on a capturing stream are nodes: the graph holds
   them, and each launch does them again. */
static void test_pitched_3d_capture(void **state)
{
    pitched a, b;
    size_t ay, by;
    xrt_stream s;
    xrt_graph g;
    xrt_graph_exec e;
    xrt_graph_info info;
    xrt_memcpy_3d_parms p;
    int i;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_GRAPHS, "the backend has no graphs (XRT_CAP_GRAPHS is clear)");
    SKIP_UNLESS(on_cpu(), "the capture of 3-D copies is tested on the CPU backend only");
    OK(xrt_stream_create(&s));
    box_make(&a, &ay, BW, BH, BD, 29);
    box_make(&b, &by, BW, BH, BD, 30);
    p = parms_of(b.d, b.pitch, by, xrt_make_pos(3, 1, 1), a.d, a.pitch, ay, xrt_make_pos(1, 0, 0),
                 xrt_make_extent(BW - 3, BH - 1, BD - 1), XRT_MEMCPY_DEVICE_TO_DEVICE);
    OK(xrt_stream_begin_capture(s, XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_memcpy_3d_async(&p, s));
    OK(xrt_memset_3d_async(xrt_make_pitched_ptr(a.d + 2, a.pitch, BW, ay), 0x42, xrt_make_extent(BW - 3, BH, BD), s));
    OK(xrt_stream_end_capture(s, &g));
    OK(xrt_graph_get_info(g, &info));
    assert_int_equal(info.nodes, 1 + BD); /* a captured 3-D memset: one 2-D memset node a slice */
    assert_int_equal(info.copies, 1);
    assert_int_equal(info.sets, BD);
    pitched_check(&a); /* captured, not done */
    pitched_check(&b);
    OK(xrt_graph_instantiate(&e, g));
    for (i = 0; i < 2; i++) {
        OK(xrt_graph_launch(e, s));
        OK(xrt_stream_synchronize(s));
        copy_box(b.model + b.pitch * by + b.pitch + 3, b.pitch, b.pitch * by, a.model + 1, a.pitch, a.pitch * ay,
                 BW - 3, BH - 1, BD - 1);
        set_box(a.model + 2, a.pitch, a.pitch * ay, 0x42, BW - 3, BH, BD);
        pitched_check(&a);
        pitched_check(&b);
    }
    OK(xrt_graph_exec_destroy(e));
    OK(xrt_graph_destroy(g));
    pitched_free(&a);
    pitched_free(&b);
    OK(xrt_stream_destroy(s));
}

/* A 3-D copy larger than the CPU backend's split size, there and back,
   slices of a taller ysize on the host. */
static void test_memcpy_3d_large(void **state)
{
    enum { LW = 1031, LH = 517, LD = 9, LY = LH + 2 };
    pitched a;
    size_t ay, hpitch = LW + 5, hsize = hpitch * LY * LD;
    unsigned char *h = (unsigned char *)malloc(hsize), *back = (unsigned char *)malloc(hsize);
    const xrt_pos o = {0, 0, 0};
    xrt_memcpy_3d_parms p;
    (void)state;
    assert_true(h && back);
    box_make(&a, &ay, LW, LH, LD, 31);
    fill(h, hsize, 32);
    p = parms_of(a.d, a.pitch, ay, xrt_make_pos(1, 0, 0), h, hpitch, LY, xrt_make_pos(0, 2, 0),
                 xrt_make_extent(LW - 1, LH, LD), XRT_MEMCPY_HOST_TO_DEVICE);
    OK(xrt_memcpy_3d(&p));
    copy_box(a.model + 1, a.pitch, a.pitch * ay, h + 2 * hpitch, hpitch, hpitch * LY, LW - 1, LH, LD);
    pitched_check(&a);
    memset(back, 0, hsize);
    p = parms_of(back, hpitch, LY, o, a.d, a.pitch, ay, o, xrt_make_extent(LW, LH, LD), XRT_MEMCPY_DEVICE_TO_HOST);
    OK(xrt_memcpy_3d(&p));
    memset(h, 0, hsize);
    copy_box(h, hpitch, hpitch * LY, a.model, a.pitch, a.pitch * ay, LW, LH, LD);
    assert_same(back, h, hsize);
    pitched_free(&a);
    free(h);
    free(back);
}

/* >> pitched copies and memsets as nodes of built graphs */

/* Where a box starts: the params' pointer moved to their position. */
static const unsigned char *box_start(const xrt_pitched_ptr *p, const xrt_pos *pos)
{
    return (const unsigned char *)p->ptr + pos->z * p->pitch * p->ysize + pos->y * p->pitch + pos->x;
}

/* got describes the same box as want (get_params may fold positions into the pointers). */
static void assert_same_box(const xrt_memcpy_3d_parms *got, const xrt_memcpy_3d_parms *want)
{
    assert_ptr_equal(box_start(&got->dst_ptr, &got->dst_pos), box_start(&want->dst_ptr, &want->dst_pos));
    assert_ptr_equal(box_start(&got->src_ptr, &got->src_pos), box_start(&want->src_ptr, &want->src_pos));
    assert_int_equal(got->dst_ptr.pitch, want->dst_ptr.pitch);
    assert_int_equal(got->src_ptr.pitch, want->src_ptr.pitch);
    assert_int_equal(got->extent.width, want->extent.width);
    assert_int_equal(got->extent.height, want->extent.height);
    assert_int_equal(got->extent.depth, want->extent.depth);
    if (want->extent.depth > 1) {
        assert_int_equal(got->dst_ptr.ysize, want->dst_ptr.ysize);
        assert_int_equal(got->src_ptr.ysize, want->src_ptr.ysize);
    }
    if (want->kind != XRT_MEMCPY_DEFAULT) assert_int_equal(got->kind, want->kind); /* else resolved at the add */
    else assert_true(got->kind != XRT_MEMCPY_DEFAULT);
}

static void launch_once(xrt_graph_exec e, xrt_stream s)
{
    OK(xrt_graph_launch(e, s));
    OK(xrt_stream_synchronize(s));
}

/* xrt_graph_add_memcpy_node: host to device, device to device and device to
   host boxes at odd positions, pitches and slice heights, launched twice;
   their params read back, changed in the graph and in an exec. */
static void test_memcpy_node_3d(void **state)
{
    enum { HPITCH = BW + 6 };
    pitched a, b;
    size_t ay, by, hsize = HPITCH * HY * BD;
    unsigned char *h = NULL, *back = NULL, *want = (unsigned char *)malloc(hsize);
    const xrt_pos o = {0, 0, 0};
    xrt_memcpy_3d_parms up, across, down, got;
    xrt_graph_node n[4];
    xrt_graph g;
    xrt_graph_exec e;
    xrt_stream s;
    int i;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_GRAPHS, "the backend has no graphs (XRT_CAP_GRAPHS is clear)");
    assert_non_null(want);
    OK(xrt_stream_create(&s));
    OK(xrt_malloc_host((void **)&h, hsize));
    OK(xrt_malloc_host((void **)&back, hsize));
    box_make(&a, &ay, BW, BH, BD, 40);
    box_make(&b, &by, BW, BH, BD, 41);
    fill(h, hsize, 42);
    memset(back, 0, hsize);
    up = parms_of(a.d, a.pitch, ay, xrt_make_pos(1, 0, 1), h, HPITCH, HY, xrt_make_pos(2, 3, 0),
                  xrt_make_extent(BW - 3, BH - 1, BD - 1), XRT_MEMCPY_HOST_TO_DEVICE);
    across = parms_of(b.d, b.pitch, by, xrt_make_pos(3, 1, 0), a.d, a.pitch, ay, xrt_make_pos(0, 0, 1),
                      xrt_make_extent(BW - 5, BH - 2, BD - 2), XRT_MEMCPY_DEVICE_TO_DEVICE);
    down = parms_of(back, HPITCH, HY, xrt_make_pos(5, 2, 1), b.d, b.pitch, by, o, xrt_make_extent(BW, BH, BD - 1),
                    XRT_MEMCPY_DEFAULT);
    OK(xrt_graph_create(&g, 0));
    OK(xrt_graph_add_memcpy_node(&n[0], g, NULL, 0, &up));
    OK(xrt_graph_add_memcpy_node(&n[1], g, &n[0], 1, &across));
    OK(xrt_graph_add_memcpy_node(&n[2], g, &n[1], 1, &down));
    pitched_check(&a); /* built, not done */
    OK(xrt_graph_instantiate(&e, g));
    for (i = 0; i < 2; i++) {
        launch_once(e, s);
        copy_box(a.model + a.pitch * ay + 1, a.pitch, a.pitch * ay, h + 3 * HPITCH + 2, HPITCH, HPITCH * HY, BW - 3,
                 BH - 1, BD - 1);
        copy_box(b.model + b.pitch + 3, b.pitch, b.pitch * by, a.model + a.pitch * ay, a.pitch, a.pitch * ay, BW - 5,
                 BH - 2, BD - 2);
        memset(want, 0, hsize);
        copy_box(want + HPITCH * HY + 2 * HPITCH + 5, HPITCH, HPITCH * HY, b.model, b.pitch, b.pitch * by, BW, BH,
                 BD - 1);
        pitched_check(&a);
        pitched_check(&b);
        assert_same(back, want, hsize);
        fill(h, hsize, 43 + (unsigned)i); /* the next launch copies the new bytes */
    }
    for (i = 0; i < 3; i++) {
        const xrt_memcpy_3d_parms *w = i == 0 ? &up : i == 1 ? &across : &down;
        xrt_graph_node_type t;
        memset(&got, 0xa5, sizeof got);
        OK(xrt_graph_memcpy_node_get_params(n[i], &got));
        assert_same_box(&got, w);
        OK(xrt_graph_node_get_type(n[i], &t));
        assert_int_equal(t, XRT_GRAPH_NODE_MEMCPY);
    }
    /* the graph's node changes; the exec keeps its copy until made again */
    across = parms_of(b.d, b.pitch, by, xrt_make_pos(0, 2, 2), a.d, a.pitch, ay, xrt_make_pos(4, 1, 0),
                      xrt_make_extent(BW - 7, BH - 3, 2), XRT_MEMCPY_DEVICE_TO_DEVICE);
    OK(xrt_graph_memcpy_node_set_params(n[1], &across));
    OK(xrt_graph_memcpy_node_get_params(n[1], &got));
    assert_same_box(&got, &across);
    OK(xrt_graph_exec_destroy(e));
    OK(xrt_graph_instantiate(&e, g));
    launch_once(e, s);
    copy_box(a.model + a.pitch * ay + 1, a.pitch, a.pitch * ay, h + 3 * HPITCH + 2, HPITCH, HPITCH * HY, BW - 3,
             BH - 1, BD - 1);
    copy_box(b.model + b.pitch * by * 2 + 2 * b.pitch, b.pitch, b.pitch * by, a.model + a.pitch + 4, a.pitch,
             a.pitch * ay, BW - 7, BH - 3, 2);
    pitched_check(&a);
    pitched_check(&b);
    /* an exec's copy changes only from 1-D to 1-D, as in CUDA */
    FAILS(xrt_graph_exec_memcpy_node_set_params(e, n[1], &across), XRT_ERROR_INVALID_VALUE, "1-D copy");
    OK(xrt_graph_add_memcpy_node_1d(&n[3], g, &n[2], 1, b.d + 1, a.d + 2, BW, XRT_MEMCPY_DEVICE_TO_DEVICE));
    OK(xrt_graph_memcpy_node_get_params(n[3], &got));
    assert_ptr_equal(box_start(&got.dst_ptr, &got.dst_pos), b.d + 1);
    assert_ptr_equal(box_start(&got.src_ptr, &got.src_pos), a.d + 2);
    assert_true(got.extent.width == BW && got.extent.height == 1 && got.extent.depth == 1);
    OK(xrt_graph_exec_destroy(e));
    OK(xrt_graph_instantiate(&e, g));
    got = parms_of(b.d, b.pitch, by, xrt_make_pos(7, 3, 1), a.d, a.pitch, ay, xrt_make_pos(3, 1, 2),
                   xrt_make_extent(BW - 8, 1, 1), XRT_MEMCPY_DEVICE_TO_DEVICE);
    FAILS(xrt_graph_exec_memcpy_node_set_params(e, n[3], &across), XRT_ERROR_INVALID_VALUE, "1-D copy");
    OK(xrt_graph_exec_memcpy_node_set_params(e, n[3], &got));
    launch_once(e, s);
    copy_box(a.model + a.pitch * ay + 1, a.pitch, a.pitch * ay, h + 3 * HPITCH + 2, HPITCH, HPITCH * HY, BW - 3,
             BH - 1, BD - 1);
    copy_box(b.model + b.pitch * by * 2 + 2 * b.pitch, b.pitch, b.pitch * by, a.model + a.pitch + 4, a.pitch,
             a.pitch * ay, BW - 7, BH - 3, 2);
    copy_rows(b.model + b.pitch * by + 3 * b.pitch + 7, 0, a.model + 2 * a.pitch * ay + a.pitch + 3, 0, BW - 8, 1);
    pitched_check(&a);
    pitched_check(&b);
    OK(xrt_graph_exec_destroy(e));
    OK(xrt_graph_destroy(g));
    /* a 3-D copy made on a capturing stream is one such node, as in CUDA */
    OK(xrt_stream_begin_capture(s, XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_memcpy_3d_async(&across, s));
    OK(xrt_stream_end_capture(s, &g));
    {
        size_t count = 0;
        xrt_graph_node_type t;
        OK(xrt_graph_get_nodes(g, NULL, &count));
        assert_int_equal(count, 1);
        count = 1;
        OK(xrt_graph_get_nodes(g, n, &count));
        OK(xrt_graph_node_get_type(n[0], &t));
        assert_int_equal(t, XRT_GRAPH_NODE_MEMCPY);
        OK(xrt_graph_memcpy_node_get_params(n[0], &got));
        assert_same_box(&got, &across);
    }
    OK(xrt_graph_instantiate(&e, g));
    launch_once(e, s);
    copy_box(b.model + b.pitch * by * 2 + 2 * b.pitch, b.pitch, b.pitch * by, a.model + a.pitch + 4, a.pitch,
             a.pitch * ay, BW - 7, BH - 3, 2);
    pitched_check(&b);
    OK(xrt_graph_exec_destroy(e));
    OK(xrt_graph_destroy(g));
    { /* a captured 1-D copy keeps the kind it was given */
        xrt_graph_node_params p;
        size_t count = 1;
        OK(xrt_stream_begin_capture(s, XRT_CAPTURE_MODE_GLOBAL));
        OK(xrt_memcpy_async(back, a.d, 16, XRT_MEMCPY_DEVICE_TO_HOST, s));
        OK(xrt_stream_end_capture(s, &g));
        OK(xrt_graph_get_nodes(g, n, &count));
        OK(xrt_graph_node_get_params(n[0], &p));
        assert_int_equal(p.type, XRT_GRAPH_NODE_MEMCPY);
        assert_int_equal(p.copy.kind, XRT_MEMCPY_DEVICE_TO_HOST);
        OK(xrt_graph_destroy(g));
    }
    pitched_free(&a);
    pitched_free(&b);
    OK(xrt_free_host(h));
    OK(xrt_free_host(back));
    free(want);
    OK(xrt_stream_destroy(s));
}

/* Each bad 3-D copy node is refused with its reason, and the graph keeps nothing of it. */
static void test_memcpy_node_bad_input(void **state)
{
    pitched a;
    size_t ay;
    xrt_memcpy_3d_parms p, q;
    xrt_graph_node n = (xrt_graph_node)(uintptr_t)1, set, ok;
    xrt_graph g;
    xrt_graph_exec e;
    xrt_graph_info info;
    xrt_memset_node_params ms;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_GRAPHS, "the backend has no graphs (XRT_CAP_GRAPHS is clear)");
    box_make(&a, &ay, BW, BH, BD, 44);
    OK(xrt_graph_create(&g, 0));
    p = parms_of(a.d, a.pitch, ay, xrt_make_pos(0, 0, 0), a.d, a.pitch, ay, xrt_make_pos(0, 0, 1),
                 xrt_make_extent(BW, BH, 1), XRT_MEMCPY_DEVICE_TO_DEVICE);
    q = p;
    q.dst_ptr.pitch = BW - 1;
    FAILS(xrt_graph_add_memcpy_node(&n, g, NULL, 0, &q), XRT_ERROR_INVALID_VALUE, "pitch 28 is less than width 29");
    assert_null(n);
    q = p;
    q.extent.depth = BD; /* from slice 1: past the source's last slice */
    FAILS(xrt_graph_add_memcpy_node(&n, g, NULL, 0, &q), XRT_ERROR_INVALID_VALUE, "src");
    q = p;
    q.dst_pos.x = a.pitch - BW + 1;
    FAILS(xrt_graph_add_memcpy_node(&n, g, NULL, 0, &q), XRT_ERROR_INVALID_VALUE, "past its pitch");
    q = p;
    q.extent.height = 0;
    FAILS(xrt_graph_add_memcpy_node(&n, g, NULL, 0, &q), XRT_ERROR_INVALID_VALUE, "is empty");
    q = p;
    q.kind = (xrt_memcpy_kind)9;
    FAILS(xrt_graph_add_memcpy_node(&n, g, NULL, 0, &q), XRT_ERROR_INVALID_MEMCPY_KIND, "kind 9");
    q = p;
    q.src_ptr.ptr = NULL;
    FAILS(xrt_graph_add_memcpy_node(&n, g, NULL, 0, &q), XRT_ERROR_INVALID_VALUE, "src ptr is NULL");
    FAILS(xrt_graph_add_memcpy_node(&n, g, NULL, 0, NULL), XRT_ERROR_INVALID_VALUE, "p is NULL");
    FAILS(xrt_graph_add_memcpy_node(NULL, g, NULL, 0, &p), XRT_ERROR_INVALID_VALUE, "node is NULL");
    FAILS(xrt_graph_add_memcpy_node(&n, g, NULL, 1, &p), XRT_ERROR_INVALID_VALUE, "deps is NULL");
    FAILS(xrt_graph_add_memcpy_node(&n, (xrt_graph)(uintptr_t)12345, NULL, 0, &p), XRT_ERROR_INVALID_HANDLE,
          "xrt_graph_add_memcpy_node");
    OK(xrt_graph_get_info(g, &info));
    assert_int_equal(info.nodes, 0);
    OK(xrt_graph_add_memcpy_node(&ok, g, NULL, 0, &p));
    memset(&ms, 0, sizeof ms);
    ms.dst = a.d;
    ms.element_size = 1;
    ms.width = ms.height = 1;
    OK(xrt_graph_add_memset_node(&set, g, NULL, 0, &ms));
    FAILS(xrt_graph_memcpy_node_get_params(set, &q), XRT_ERROR_INVALID_VALUE, "not a copy");
    FAILS(xrt_graph_memcpy_node_set_params(set, &p), XRT_ERROR_INVALID_VALUE, "xrt_graph_memcpy_node_set_params");
    FAILS(xrt_graph_memcpy_node_get_params(ok, NULL), XRT_ERROR_INVALID_VALUE, "p is NULL");
    FAILS(xrt_graph_memcpy_node_set_params(ok, NULL), XRT_ERROR_INVALID_VALUE, "p is NULL");
    q = p;
    q.src_pos.y = 1; /* one slice, rows past the allocation's end at slice 4 */
    q.src_pos.z = BD - 1;
    FAILS(xrt_graph_memcpy_node_set_params(ok, &q), XRT_ERROR_INVALID_VALUE, "src");
    FAILS(xrt_graph_memcpy_node_get_params((xrt_graph_node)g, &q), XRT_ERROR_INVALID_HANDLE,
          "xrt_graph_memcpy_node_get_params");
    OK(xrt_graph_memcpy_node_get_params(ok, &q));
    assert_same_box(&q, &p); /* the refused changes left it as it was */
    OK(xrt_graph_instantiate(&e, g));
    FAILS(xrt_graph_exec_memcpy_node_set_params(NULL, ok, &p), XRT_ERROR_INVALID_VALUE, "handle is NULL");
    FAILS(xrt_graph_exec_memcpy_node_set_params((xrt_graph_exec)g, ok, &p), XRT_ERROR_INVALID_HANDLE,
          "xrt_graph_exec_memcpy_node_set_params");
    FAILS(xrt_graph_exec_memcpy_node_set_params(e, ok, NULL), XRT_ERROR_INVALID_VALUE, "p is NULL");
    OK(xrt_graph_exec_destroy(e));
    OK(xrt_graph_destroy(g));
    pitched_free(&a);
}

/* 2-D memset nodes of 1-, 2- and 4-byte values at odd offsets and pitches,
   checked against a plain loop; their bad params refused. */
static void test_memset_node_2d(void **state)
{
    static const unsigned sizes[] = {1, 2, 4};
    pitched a;
    xrt_graph g;
    xrt_graph_exec e;
    xrt_graph_node n[3], bad = NULL;
    xrt_memset_node_params m[3], q;
    xrt_stream s;
    unsigned i;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_GRAPHS, "the backend has no graphs (XRT_CAP_GRAPHS is clear)");
    OK(xrt_stream_create(&s));
    pitched_make(&a, HP, H, 45);
    OK(xrt_graph_create(&g, 0));
    for (i = 0; i < 3; i++) {
        unsigned es = sizes[i];
        memset(&m[i], 0, sizeof m[i]);
        m[i].dst = a.d + es * (1 + 5 * i) + i * 4 * a.pitch; /* rows 0, 4, 8 */
        m[i].pitch = i == 0 ? a.pitch - 3 : a.pitch - es; /* odd where the element allows */
        m[i].value = es == 1 ? 0x5au : es == 2 ? 0xa1b2u : 0x01c2d3e4u;
        m[i].element_size = es;
        m[i].width = (W - 5) / es;
        m[i].height = 4;
        OK(xrt_graph_add_memset_node(&n[i], g, i ? &n[i - 1] : NULL, i ? 1 : 0, &m[i]));
    }
    OK(xrt_graph_instantiate(&e, g));
    launch_once(e, s);
    for (i = 0; i < 3; i++)
        set_rows((unsigned char *)m[i].dst - (uintptr_t)a.d + (uintptr_t)a.model, m[i].pitch, m[i].value, sizes[i],
                 m[i].width, m[i].height);
    pitched_check(&a);
    for (i = 0; i < 3; i++) {
        xrt_graph_node_params p;
        OK(xrt_graph_node_get_params(n[i], &p));
        assert_int_equal(p.type, XRT_GRAPH_NODE_MEMSET);
        assert_ptr_equal(p.set.dst, m[i].dst);
        assert_int_equal(p.set.pitch, m[i].pitch);
        assert_int_equal(p.set.value, m[i].value);
        assert_int_equal(p.set.element_size, m[i].element_size);
        assert_int_equal(p.set.width, m[i].width);
        assert_int_equal(p.set.height, m[i].height);
    }
    q = m[0];
    q.pitch = q.width - 1;
    FAILS(xrt_graph_add_memset_node(&bad, g, NULL, 0, &q), XRT_ERROR_INVALID_VALUE, "less than a row's");
    q = m[0];
    q.height = H; /* from row 0 at an offset with a pitch less than the allocation's: still inside */
    q.pitch = a.pitch;
    q.dst = a.d + a.pitch * 2;
    FAILS(xrt_graph_add_memset_node(&bad, g, NULL, 0, &q), XRT_ERROR_INVALID_VALUE, "");
    q = m[1];
    q.element_size = 3;
    FAILS(xrt_graph_add_memset_node(&bad, g, NULL, 0, &q), XRT_ERROR_INVALID_VALUE, "element_size 3");
    q = m[2];
    q.pitch = a.pitch - 2; /* not a multiple of 4 */
    FAILS(xrt_graph_add_memset_node(&bad, g, NULL, 0, &q), XRT_ERROR_INVALID_VALUE, "not aligned");
    q = m[1];
    q.value = 0x12345;
    FAILS(xrt_graph_node_set_params(n[1], &(xrt_graph_node_params){.type = XRT_GRAPH_NODE_MEMSET, .set = q}),
          XRT_ERROR_INVALID_VALUE, "does not fit");
    assert_null(bad);
    OK(xrt_graph_exec_destroy(e));
    OK(xrt_graph_destroy(g));
    pitched_free(&a);
    OK(xrt_stream_destroy(s));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_malloc_pitch),          cmocka_unit_test(test_memcpy_2d_directions),
        cmocka_unit_test(test_memset_2d),             cmocka_unit_test(test_memset_2d_one_row),
        cmocka_unit_test(test_memset_d16_d32),
        cmocka_unit_test(test_pitched_bad_input),     cmocka_unit_test(test_pitched_capture),
        cmocka_unit_test(test_memcpy_2d_large),       cmocka_unit_test(test_malloc_3d),
        cmocka_unit_test(test_memcpy_3d_directions),  cmocka_unit_test(test_memset_3d),
        cmocka_unit_test(test_pitched_3d_bad_input),  cmocka_unit_test(test_pitched_3d_capture),
        cmocka_unit_test(test_memcpy_3d_large),       cmocka_unit_test(test_memcpy_node_3d),
        cmocka_unit_test(test_memcpy_node_bad_input), cmocka_unit_test(test_memset_node_2d),
    };
    return xrt_test_run_on_backends("pitched memory", tests, sizeof tests / sizeof tests[0], NULL);
}
