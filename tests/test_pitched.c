/* SPDX-License-Identifier: MIT */
/* Pitched memory on every backend: xrt_malloc_pitch, xrt_memcpy_2d (every
   direction, sub-rectangles at odd offsets and pitches), xrt_memset_2d and
   xrt_memset_d16 / _d32 (and their _async forms), each checked byte for byte
   against a plain loop over a copy of the whole buffers, padding included;
   the range checks (a rectangle past its allocation, a pitch less than the
   width, an overflowing span); a 2-D copy and set captured into a graph and
   launched twice; a 2-D copy large enough for the CPU backend to split. */
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

/* Elements of 2 and 4 bytes; a value of unequal bytes may be unsupported on a
   GPU backend (the runtime's memset is of bytes), one of equal bytes never. */
static void test_memset_d16_d32(void **state)
{
    pitched a;
    xrt_stream s;
    xrt_status st;
    int gpu = strcmp(xrt_test_backend, "cpu") != 0;
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
    SKIP_UNLESS(!gpu || st != XRT_ERROR_UNSUPPORTED, "memsets of 2 and 4 bytes of unequal bytes are unsupported");
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
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_GRAPHS, "the backend has no graphs (XRT_CAP_GRAPHS is clear)");
    SKIP_UNLESS(strcmp(xrt_test_backend, "cpu") == 0, "the capture of 2-D copies is tested on the CPU backend only");
    OK(xrt_stream_create(&s));
    pitched_make(&a, HP, H, 12);
    pitched_make(&b, HP, H, 13);
    OK(xrt_stream_begin_capture(s, XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_memcpy_2d_async(b.d + 3, b.pitch, a.d + 1, a.pitch, W, H - 1, XRT_MEMCPY_DEVICE_TO_DEVICE, s));
    OK(xrt_memset_2d_async(a.d + 2, a.pitch, 0x42, W - 3, H, s));
    OK(xrt_memset_d16_async(a.d + 4, 0xa1b2, 5, s));
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
        set_rows(a.model + 4, 0, 0xa1b2, 2, 5, 1);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_malloc_pitch),          cmocka_unit_test(test_memcpy_2d_directions),
        cmocka_unit_test(test_memset_2d),             cmocka_unit_test(test_memset_d16_d32),
        cmocka_unit_test(test_pitched_bad_input),     cmocka_unit_test(test_pitched_capture),
        cmocka_unit_test(test_memcpy_2d_large),
    };
    return xrt_test_run_on_backends("pitched memory", tests, sizeof tests / sizeof tests[0], NULL);
}
