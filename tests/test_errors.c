/* SPDX-License-Identifier: MIT */
/* Bad inputs, each with its exact status, detail and log line; run on every
   enabled and available backend. */
#include "xrt_test.h"

/* Backend callbacks take their table (`self`) by ABI; these ignore it. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <strings.h>

static void nop(void *user) { (void)user; }

/* >> a second backend, to hold handles and memory the tested one does not own */
static xrt_status other_init(const xrt_backend *self, char *reason, size_t n) { (void)reason; (void)n; return XRT_SUCCESS; }
static xrt_status other_get_device(const xrt_backend *self, int *device) { *device = 0; return XRT_SUCCESS; }
static xrt_status other_malloc(const xrt_backend *self, void **p, size_t n) { *p = aligned_alloc(XRT_ALIGNMENT, (n + 255) & ~(size_t)255); return *p ? XRT_SUCCESS : XRT_ERROR_OUT_OF_MEMORY; }
static xrt_status other_free(const xrt_backend *self, void *p) { free(p); return XRT_SUCCESS; }
static xrt_status other_stream_create(const xrt_backend *self, void **s) { *s = malloc(1); return *s ? XRT_SUCCESS : XRT_ERROR_OUT_OF_MEMORY; }
static xrt_status other_stream_destroy(const xrt_backend *self, void *s) { free(s); return XRT_SUCCESS; }
static xrt_status other_event_create(const xrt_backend *self, void **e, unsigned flags) { (void)flags; return other_stream_create(self, e); }

static void register_other(void)
{
    static xrt_backend other = {.abi_version = XRT_BACKEND_ABI_VERSION, .size = sizeof(xrt_backend),
                                .name = "other", .init = other_init};
    xrt_status st;
    other.get_device = other_get_device;
    other.malloc = other_malloc;
    other.free = other_free;
    other.stream_create = other_stream_create;
    other.stream_destroy = other_stream_destroy;
    other.event_create = other_event_create;
    other.event_destroy = other_stream_destroy;
    st = xrt_register_backend(&other); /* the suite runs once per backend: once is enough */
    assert_true(st == XRT_SUCCESS || st == XRT_ERROR_ALREADY_EXISTS);
}

/* >> out-pointers and sizes */
static void test_null_out_pointers(void **state)
{
    xrt_event e;
    xrt_stream s = (xrt_stream)&s;
    size_t sz = 0;
    int i = 0;
    (void)state;
    OK(xrt_event_create(&e, 0));
    FAILS(xrt_get_capabilities(NULL), XRT_ERROR_INVALID_VALUE, "xrt_get_capabilities: caps is NULL");
    FAILS(xrt_get_device_count(NULL), XRT_ERROR_INVALID_VALUE, "xrt_get_device_count: count is NULL");
    FAILS(xrt_get_device(NULL), XRT_ERROR_INVALID_VALUE, "xrt_get_device: device is NULL");
    FAILS(xrt_get_device_properties(NULL, 0), XRT_ERROR_INVALID_VALUE, "xrt_get_device_properties: prop is NULL");
    FAILS(xrt_malloc(NULL, 64), XRT_ERROR_INVALID_VALUE, "xrt_malloc: ptr is NULL");
    FAILS(xrt_malloc_host(NULL, 64), XRT_ERROR_INVALID_VALUE, "xrt_malloc_host: ptr is NULL");
    FAILS(xrt_malloc_async(NULL, 64, NULL), XRT_ERROR_INVALID_VALUE, "xrt_malloc_async: ptr is NULL");
    FAILS(xrt_mem_get_info(NULL, &sz), XRT_ERROR_INVALID_VALUE, "xrt_mem_get_info: free_bytes is NULL");
    FAILS(xrt_mem_get_info(&sz, NULL), XRT_ERROR_INVALID_VALUE, "xrt_mem_get_info: total_bytes is NULL");
    FAILS(xrt_pointer_get_attributes(NULL, &i), XRT_ERROR_INVALID_VALUE, "xrt_pointer_get_attributes: attr is NULL");
    FAILS(xrt_stream_create(NULL), XRT_ERROR_INVALID_VALUE, "xrt_stream_create: stream is NULL");
    FAILS(xrt_event_create(NULL, 0), XRT_ERROR_INVALID_VALUE, "xrt_event_create: event is NULL");
    FAILS(xrt_event_elapsed_time(NULL, e, e), XRT_ERROR_INVALID_VALUE, "xrt_event_elapsed_time: ms is NULL");
    FAILS(xrt_launch_host_func(NULL, NULL, NULL), XRT_ERROR_INVALID_VALUE, "xrt_launch_host_func: fn is NULL");
    FAILS(xrt_stream_get_native(NULL, NULL), XRT_ERROR_INVALID_VALUE, "xrt_stream_get_native: native is NULL");
    FAILS(xrt_event_get_native(e, NULL), XRT_ERROR_INVALID_VALUE, "xrt_event_get_native: native is NULL");
    FAILS(xrt_stream_wrap_native(NULL, &i), XRT_ERROR_INVALID_VALUE, "xrt_stream_wrap_native: stream is NULL");
    FAILS(xrt_stream_wrap_native(&s, NULL), XRT_ERROR_INVALID_VALUE, "xrt_stream_wrap_native: native is NULL");
    assert_null(s);
    FAILS(xrt_runtime_get_version(NULL), XRT_ERROR_INVALID_VALUE, "xrt_runtime_get_version: version is NULL");
    FAILS(xrt_backend_count(NULL), XRT_ERROR_INVALID_VALUE, "xrt_backend_count: count is NULL");
    FAILS(xrt_backend_get_info(0, NULL), XRT_ERROR_INVALID_VALUE, "xrt_backend_get_info: info is NULL");
    FAILS(xrt_set_backend(NULL), XRT_ERROR_INVALID_VALUE, "xrt_set_backend: name is NULL");
    FAILS(xrt_get_backend(NULL), XRT_ERROR_INVALID_VALUE, "xrt_get_backend: name is NULL");
    OK(xrt_event_destroy(e));
}

static void test_zero_size(void **state)
{
    void *p = (void *)&p;
    (void)state;
    FAILS(xrt_malloc(&p, 0), XRT_ERROR_INVALID_VALUE, "xrt_malloc: size is 0");
    assert_null(p);
    p = (void *)&p;
    FAILS(xrt_malloc_host(&p, 0), XRT_ERROR_INVALID_VALUE, "xrt_malloc_host: size is 0");
    assert_null(p);
    p = (void *)&p;
    FAILS(xrt_malloc_async(&p, 0, NULL), XRT_ERROR_INVALID_VALUE, "xrt_malloc_async: size is 0");
    assert_null(p);
}

static void test_bad_device(void **state)
{
    xrt_device_prop prop;
    int n = 0, d = -1;
    (void)state;
    OK(xrt_get_device_count(&n));
    FAILS(xrt_set_device(-1), XRT_ERROR_INVALID_DEVICE, "xrt_set_device: device -1 is negative");
    FAILS(xrt_set_device(INT_MIN), XRT_ERROR_INVALID_DEVICE, "is negative");
    FAILS(xrt_set_device(n), XRT_ERROR_INVALID_DEVICE, "device");
    FAILS(xrt_set_device(INT_MAX), XRT_ERROR_INVALID_DEVICE, "device");
    FAILS(xrt_get_device_properties(&prop, -1), XRT_ERROR_INVALID_DEVICE,
          "xrt_get_device_properties: device -1 is negative");
    FAILS(xrt_get_device_properties(&prop, n), XRT_ERROR_INVALID_DEVICE, "device");
    OK(xrt_get_device(&d));
    assert_int_equal(d, 0); /* failed sets leave the device alone */
}

static void test_unknown_backend(void **state)
{
    const char *name = NULL;
    (void)state;
    FAILS(xrt_set_backend("nosuch"), XRT_ERROR_NOT_FOUND, "xrt_set_backend: unknown backend 'nosuch' (valid: ");
    assert_non_null(strstr(xrt_get_last_error_string(), xrt_test_backend)); /* lists the valid names */
    FAILS(xrt_set_backend(""), XRT_ERROR_NOT_FOUND, "unknown backend ''");
    OK(xrt_get_backend(&name));
    assert_string_equal(name, xrt_test_backend); /* the thread's backend is unchanged */
}

/* >> handles */
static void test_destroyed_stream(void **state)
{
    xrt_stream s, s2;
    xrt_event e;
    void *d, *p = NULL;
    (void)state;
    OK(xrt_malloc(&d, 64));
    OK(xrt_event_create(&e, 0));
    OK(xrt_stream_create(&s));
    OK(xrt_stream_destroy(s));
    FAILS(xrt_stream_query(s), XRT_ERROR_INVALID_HANDLE, "xrt_stream_query: stream");
    FAILS(xrt_stream_query(s), XRT_ERROR_INVALID_HANDLE, "was destroyed");
    FAILS(xrt_stream_synchronize(s), XRT_ERROR_INVALID_HANDLE, "was destroyed");
    FAILS(xrt_stream_destroy(s), XRT_ERROR_INVALID_HANDLE, "was destroyed");
    FAILS(xrt_memset_async(d, 0, 64, s), XRT_ERROR_INVALID_HANDLE, "was destroyed");
    FAILS(xrt_memcpy_async(d, d, 64, XRT_MEMCPY_DEVICE_TO_DEVICE, s), XRT_ERROR_INVALID_HANDLE, "was destroyed");
    FAILS(xrt_launch_host_func(s, nop, NULL), XRT_ERROR_INVALID_HANDLE, "was destroyed");
    FAILS(xrt_event_record(e, s), XRT_ERROR_INVALID_HANDLE, "was destroyed");
    FAILS(xrt_stream_wait_event(s, e), XRT_ERROR_INVALID_HANDLE, "was destroyed");
    FAILS(xrt_malloc_async(&p, 64, s), XRT_ERROR_INVALID_HANDLE, "was destroyed");
    FAILS(xrt_free_async(d, s), XRT_ERROR_INVALID_HANDLE, "was destroyed");

    /* the slot is reused with a new generation: the old handle stays dead */
    OK(xrt_stream_create(&s2));
    FAILS(xrt_stream_query(s), XRT_ERROR_INVALID_HANDLE, "was destroyed");
    OK(xrt_stream_query(s2));
    /* a handle from a future generation was never handed out */
    FAILS(xrt_stream_query((xrt_stream)((uintptr_t)s2 + ((uintptr_t)1 << 22))), XRT_ERROR_INVALID_HANDLE,
          "was never created");
    FAILS(xrt_stream_query((xrt_stream)(uintptr_t)0x7ffff01u), XRT_ERROR_INVALID_HANDLE, "was never created");
    OK(xrt_stream_destroy(s2));
    OK(xrt_event_destroy(e));
    OK(xrt_free(d)); /* still allocated: the failed free_async kept it */
}

static void test_destroyed_event(void **state)
{
    xrt_event e, live;
    float ms;
    (void)state;
    OK(xrt_event_create(&live, 0));
    OK(xrt_event_create(&e, 0));
    OK(xrt_event_record(e, NULL));
    OK(xrt_event_destroy(e));
    FAILS(xrt_event_query(e), XRT_ERROR_INVALID_HANDLE, "xrt_event_query: event");
    FAILS(xrt_event_query(e), XRT_ERROR_INVALID_HANDLE, "was destroyed");
    FAILS(xrt_event_synchronize(e), XRT_ERROR_INVALID_HANDLE, "was destroyed");
    FAILS(xrt_event_record(e, NULL), XRT_ERROR_INVALID_HANDLE, "was destroyed");
    FAILS(xrt_event_destroy(e), XRT_ERROR_INVALID_HANDLE, "was destroyed");
    FAILS(xrt_event_elapsed_time(&ms, e, live), XRT_ERROR_INVALID_HANDLE, "was destroyed");
    FAILS(xrt_event_elapsed_time(&ms, live, e), XRT_ERROR_INVALID_HANDLE, "was destroyed");
    FAILS(xrt_stream_wait_event(NULL, e), XRT_ERROR_INVALID_HANDLE, "was destroyed");
    OK(xrt_event_destroy(live));
}

static void test_null_and_mixed_handles(void **state)
{
    xrt_stream s;
    xrt_event e;
    (void)state;
    OK(xrt_stream_create(&s));
    OK(xrt_event_create(&e, 0));
    FAILS(xrt_stream_destroy(NULL), XRT_ERROR_INVALID_HANDLE, "xrt_stream_destroy: handle");
    assert_non_null(strstr(xrt_get_last_error_string(), "is NULL"));
    FAILS(xrt_event_query(NULL), XRT_ERROR_INVALID_HANDLE, "is NULL");
    FAILS(xrt_event_record(NULL, s), XRT_ERROR_INVALID_HANDLE, "is NULL");
    FAILS(xrt_stream_wait_event(s, NULL), XRT_ERROR_INVALID_HANDLE, "is NULL");
    /* an event where a stream belongs, and the reverse */
    FAILS(xrt_stream_query((xrt_stream)e), XRT_ERROR_INVALID_HANDLE, "is an event handle, not a stream handle");
    FAILS(xrt_event_query((xrt_event)s), XRT_ERROR_INVALID_HANDLE, "is a stream handle, not an event handle");
    FAILS(xrt_stream_destroy((xrt_stream)e), XRT_ERROR_INVALID_HANDLE, "is an event handle");
    OK(xrt_event_query(e)); /* neither was harmed */
    OK(xrt_stream_query(s));
    OK(xrt_event_destroy(e));
    OK(xrt_stream_destroy(s));
}

/* Handles and memory of another backend are rejected, not misused. */
static void test_foreign_objects(void **state)
{
    unsigned char h[64];
    xrt_stream fs;
    xrt_event fe;
    void *fp, *d;
    (void)state;
    register_other();
    OK(xrt_set_backend("other"));
    OK(xrt_stream_create(&fs));
    OK(xrt_event_create(&fe, 0));
    OK(xrt_malloc(&fp, sizeof h));
    OK(xrt_set_backend(xrt_test_backend));
    OK(xrt_malloc(&d, sizeof h));

    FAILS(xrt_stream_query(fs), XRT_ERROR_INVALID_HANDLE, "belongs to backend other");
    FAILS(xrt_stream_synchronize(fs), XRT_ERROR_INVALID_HANDLE, "belongs to backend other");
    FAILS(xrt_memset_async(d, 0, sizeof h, fs), XRT_ERROR_INVALID_HANDLE, "belongs to backend other");
    FAILS(xrt_stream_destroy(fs), XRT_ERROR_INVALID_HANDLE, "belongs to backend other");
    FAILS(xrt_event_record(fe, NULL), XRT_ERROR_INVALID_HANDLE, "belongs to backend other");
    FAILS(xrt_event_query(fe), XRT_ERROR_INVALID_HANDLE, "belongs to backend other");
    FAILS(xrt_stream_wait_event(NULL, fe), XRT_ERROR_INVALID_HANDLE, "belongs to backend other");
    assert_non_null(strstr(xrt_get_last_error_string(), xrt_test_backend)); /* "..., not <this one>" */
    FAILS(xrt_free(fp), XRT_ERROR_INVALID_POINTER, "belongs to another backend");
    FAILS(xrt_memcpy(h, fp, sizeof h, XRT_MEMCPY_DEFAULT), XRT_ERROR_INVALID_POINTER,
          "belongs to backend other");
    assert_non_null(strstr(xrt_get_last_error_string(), "xrt_memcpy: src"));
    FAILS(xrt_memcpy(d, fp, sizeof h, XRT_MEMCPY_DEVICE_TO_DEVICE), XRT_ERROR_INVALID_POINTER,
          "belongs to backend other");
    FAILS(xrt_memset(fp, 0, sizeof h), XRT_ERROR_INVALID_POINTER, "belongs to backend other");

    OK(xrt_set_backend("other")); /* the owner can still use and release them */
    OK(xrt_stream_destroy(fs));
    OK(xrt_event_destroy(fe));
    OK(xrt_free(fp));
    OK(xrt_set_backend(xrt_test_backend));
    OK(xrt_free(d));
}

/* >> frees */
static void test_bad_frees(void **state)
{
    unsigned char h[64];
    char stack[64];
    char *heap = (char *)malloc(64);
    void *d;
    (void)state;
    assert_non_null(heap);
    OK(xrt_malloc(&d, sizeof h));
    FAILS(xrt_free(stack), XRT_ERROR_INVALID_POINTER, "was not allocated by xrt");
    FAILS(xrt_free(heap), XRT_ERROR_INVALID_POINTER, "was not allocated by xrt");
    FAILS(xrt_free((char *)d + 16), XRT_ERROR_INVALID_POINTER, "is inside an allocation, not at its start");
    FAILS(xrt_free_async((char *)d + 1, NULL), XRT_ERROR_INVALID_POINTER, "is inside an allocation");
    FAILS(xrt_free_host(d), XRT_ERROR_INVALID_POINTER, "xrt_free_host");
    FAILS(xrt_free_host(d), XRT_ERROR_INVALID_POINTER, "is not pinned host memory (use xrt_free)");
    OK(xrt_memset(d, 0x61, sizeof h)); /* the failed frees left it intact */
    OK(xrt_memcpy(h, d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_int_equal(h[63], 0x61);
    OK(xrt_free(d));
    FAILS(xrt_free(d), XRT_ERROR_INVALID_POINTER, "was not allocated by xrt or is already freed");
    FAILS(xrt_free_async(d, NULL), XRT_ERROR_INVALID_POINTER, "is already freed");
    free(heap);
}

static void test_bad_frees_pinned(void **state)
{
    void *p;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_PINNED_HOST, "no pinned host memory");
    OK(xrt_malloc_host(&p, 64));
    FAILS(xrt_free(p), XRT_ERROR_INVALID_POINTER, "xrt_free");
    FAILS(xrt_free(p), XRT_ERROR_INVALID_POINTER, "is pinned host memory (use xrt_free_host)");
    FAILS(xrt_free_async(p, NULL), XRT_ERROR_INVALID_POINTER, "is pinned host memory (use xrt_free_host)");
    FAILS(xrt_free_host((char *)p + 8), XRT_ERROR_INVALID_POINTER, "is inside an allocation");
    OK(xrt_free_host(p));
    FAILS(xrt_free_host(p), XRT_ERROR_INVALID_POINTER, "is already freed");
}

/* >> copies and sets */
static void test_memcpy_errors(void **state)
{
    unsigned char h[64];
    void *d, *d2;
    unsigned char *dc;
    (void)state;
    OK(xrt_malloc(&d, sizeof h));
    OK(xrt_malloc(&d2, sizeof h));
    dc = (unsigned char *)d;
    memset(h, 0, sizeof h);

    FAILS(xrt_memcpy(NULL, h, 16, XRT_MEMCPY_HOST_TO_DEVICE), XRT_ERROR_INVALID_VALUE, "xrt_memcpy: dst is NULL");
    FAILS(xrt_memcpy(d, NULL, 16, XRT_MEMCPY_HOST_TO_DEVICE), XRT_ERROR_INVALID_VALUE, "xrt_memcpy: src is NULL");
    FAILS(xrt_memcpy_async(NULL, h, 16, XRT_MEMCPY_DEFAULT, NULL), XRT_ERROR_INVALID_VALUE,
          "xrt_memcpy_async: dst is NULL");
    FAILS(xrt_memcpy(d, h, 16, (xrt_memcpy_kind)7), XRT_ERROR_INVALID_MEMCPY_KIND, "xrt_memcpy: kind 7 is not");
    FAILS(xrt_memcpy(d, h, 16, (xrt_memcpy_kind)-1), XRT_ERROR_INVALID_MEMCPY_KIND, "kind -1 is not");
    FAILS(xrt_memcpy(d, h, 0, (xrt_memcpy_kind)5), XRT_ERROR_INVALID_MEMCPY_KIND, "kind 5"); /* even for 0 bytes */
    FAILS(xrt_memcpy_async(d, h, 16, (xrt_memcpy_kind)7, NULL), XRT_ERROR_INVALID_MEMCPY_KIND,
          "xrt_memcpy_async: kind 7");

    /* the kind must match the memory */
    FAILS(xrt_memcpy(d, d2, 16, XRT_MEMCPY_HOST_TO_DEVICE), XRT_ERROR_INVALID_MEMCPY_KIND,
          "kind host-to-device but src");
    FAILS(xrt_memcpy(h, h + 32, 16, XRT_MEMCPY_HOST_TO_DEVICE), XRT_ERROR_INVALID_MEMCPY_KIND,
          "kind host-to-device but dst");
    assert_non_null(strstr(xrt_get_last_error_string(), "is unknown memory"));
    FAILS(xrt_memcpy(d, d2, 16, XRT_MEMCPY_DEVICE_TO_HOST), XRT_ERROR_INVALID_MEMCPY_KIND,
          "kind device-to-host but dst");
    assert_non_null(strstr(xrt_get_last_error_string(), "is device memory"));
    FAILS(xrt_memcpy(h, h + 32, 16, XRT_MEMCPY_DEVICE_TO_HOST), XRT_ERROR_INVALID_MEMCPY_KIND,
          "kind device-to-host but src");
    FAILS(xrt_memcpy(d, h, 16, XRT_MEMCPY_DEVICE_TO_DEVICE), XRT_ERROR_INVALID_MEMCPY_KIND,
          "kind device-to-device but src");
    FAILS(xrt_memcpy(d, h, 16, XRT_MEMCPY_HOST_TO_HOST), XRT_ERROR_INVALID_MEMCPY_KIND,
          "kind host-to-host but dst");
    FAILS(xrt_memcpy_async(h, d, 16, XRT_MEMCPY_HOST_TO_DEVICE, NULL), XRT_ERROR_INVALID_MEMCPY_KIND,
          "xrt_memcpy_async: kind host-to-device but dst");

    /* copies that run off the end of an allocation */
    FAILS(xrt_memcpy(dc + 56, h, 16, XRT_MEMCPY_HOST_TO_DEVICE), XRT_ERROR_INVALID_VALUE,
          "16 bytes at dst");
    assert_non_null(strstr(xrt_get_last_error_string(), "overrun its allocation (64 bytes"));
    FAILS(xrt_memcpy(h, dc + 1, 64, XRT_MEMCPY_DEVICE_TO_HOST), XRT_ERROR_INVALID_VALUE, "at src");
    assert_non_null(strstr(xrt_get_last_error_string(), "overrun"));
    FAILS(xrt_memcpy(d2, d, 65, XRT_MEMCPY_DEFAULT), XRT_ERROR_INVALID_VALUE, "overrun");
    FAILS(xrt_memcpy_async(dc + 63, h, 2, XRT_MEMCPY_HOST_TO_DEVICE, NULL), XRT_ERROR_INVALID_VALUE, "overrun");

    OK(xrt_memcpy(dc + 48, h, 16, XRT_MEMCPY_HOST_TO_DEVICE)); /* exactly to the end is fine */
    OK(xrt_memcpy(NULL, NULL, 0, XRT_MEMCPY_DEFAULT));
    OK(xrt_free(d));
    OK(xrt_free(d2));
}

static void test_memset_errors(void **state)
{
    char stack[64];
    char *heap = (char *)malloc(64);
    void *d;
    (void)state;
    assert_non_null(heap);
    OK(xrt_malloc(&d, 64));
    FAILS(xrt_memset(NULL, 0, 16), XRT_ERROR_INVALID_VALUE, "xrt_memset: dst is NULL");
    FAILS(xrt_memset(stack, 0, 16), XRT_ERROR_INVALID_POINTER, "xrt_memset: dst");
    FAILS(xrt_memset(stack, 0, 16), XRT_ERROR_INVALID_POINTER, "is unknown memory, not device memory");
    FAILS(xrt_memset(heap, 0, 16), XRT_ERROR_INVALID_POINTER, "not device memory");
    FAILS(xrt_memset_async(stack, 0, 16, NULL), XRT_ERROR_INVALID_POINTER, "xrt_memset_async: dst");
    FAILS(xrt_memset((char *)d + 60, 0, 8), XRT_ERROR_INVALID_VALUE, "overrun");
    FAILS(xrt_memset_async((char *)d + 1, 0, 64, NULL), XRT_ERROR_INVALID_VALUE, "overrun");
    OK(xrt_memset(NULL, 0, 0));
    OK(xrt_memset(stack, 0, 0)); /* nothing to set: nothing to check */
    OK(xrt_free(d));
    free(heap);
}

/* >> events */
static void test_event_flags(void **state)
{
    xrt_event e = (xrt_event)&e;
    (void)state;
    FAILS(xrt_event_create(&e, 4), XRT_ERROR_INVALID_VALUE, "xrt_event_create: unknown flags 0x4");
    assert_null(e);
    FAILS(xrt_event_create(&e, 0x80000001u), XRT_ERROR_INVALID_VALUE, "unknown flags 0x80000001");
    assert_null(e);
}

/* The dispatch layer does not know an event's flags or records, so the words
   are the backend's: the CPU backend's are pinned down exactly; another must
   at least name the call (xrt_event_elapsed_time, cudaEventElapsedTime). */
static const char *backend_words(const char *cpu_words)
{
    return strcmp(xrt_test_backend, "cpu") == 0 ? cpu_words : "lapsed";
}

static void test_elapsed_time_errors(void **state)
{
    xrt_event t0, t1, untimed, never;
    float ms = -1.0f;
    (void)state;
    OK(xrt_event_create(&t0, 0));
    OK(xrt_event_create(&t1, 0));
    OK(xrt_event_create(&untimed, XRT_EVENT_DISABLE_TIMING));
    OK(xrt_event_create(&never, 0));
    OK(xrt_event_record(t0, NULL));
    OK(xrt_event_record(untimed, NULL));
    OK(xrt_event_record(t1, NULL));
    OK(xrt_event_synchronize(t1));
    if (!(caps() & XRT_CAP_EVENT_TIMING)) {
        FAILS(xrt_event_elapsed_time(&ms, t0, t1), XRT_ERROR_UNSUPPORTED, "xrt_event_elapsed_time");
    } else {
        FAILS(xrt_event_elapsed_time(&ms, untimed, t1), XRT_ERROR_INVALID_HANDLE,
              backend_words("xrt_event_elapsed_time: start event was created with XRT_EVENT_DISABLE_TIMING"));
        FAILS(xrt_event_elapsed_time(&ms, t0, untimed), XRT_ERROR_INVALID_HANDLE,
              backend_words("end event was created with XRT_EVENT_DISABLE_TIMING"));
        FAILS(xrt_event_elapsed_time(&ms, never, t1), XRT_ERROR_INVALID_HANDLE,
              backend_words("start event was never recorded"));
        FAILS(xrt_event_elapsed_time(&ms, t0, never), XRT_ERROR_INVALID_HANDLE,
              backend_words("end event was never recorded"));
        OK(xrt_event_elapsed_time(&ms, t0, t1));
        assert_true(ms >= 0.0f);
    }
    OK(xrt_event_destroy(t0));
    OK(xrt_event_destroy(t1));
    OK(xrt_event_destroy(untimed));
    OK(xrt_event_destroy(never));
}

/* NOT_READY is an answer: not recorded as the last error, nothing logged. */
static void test_not_ready_is_not_an_error(void **state)
{
    xrt_stream s;
    xrt_event before, after;
    float ms = -1.0f;
    int logs;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions to block a stream with");
    OK(xrt_stream_create(&s));
    OK(xrt_event_create(&before, 0));
    OK(xrt_event_create(&after, 0));
    OK(xrt_event_record(before, s));
    OK(xrt_launch_host_func(s, gate_wait, &gates[0]));
    OK(xrt_event_record(after, s));
    xrt_get_last_error();
    logs = xrt_test_log.count;
    assert_int_equal(xrt_stream_query(s), XRT_ERROR_NOT_READY);
    assert_int_equal(xrt_event_query(after), XRT_ERROR_NOT_READY);
    if (caps() & XRT_CAP_EVENT_TIMING)
        assert_int_equal(xrt_event_elapsed_time(&ms, before, after), XRT_ERROR_NOT_READY);
    assert_int_equal(xrt_peek_at_last_error(), XRT_SUCCESS);
    assert_int_equal(xrt_test_log.count, logs);
    gate_open(&gates[0]);
    OK(xrt_stream_synchronize(s));
    OK(xrt_event_query(after));
    OK(xrt_event_destroy(before));
    OK(xrt_event_destroy(after));
    OK(xrt_stream_destroy(s));
}

/* >> status codes, last error, logging */
static void test_status_strings(void **state)
{
    int i, j;
    (void)state;
    for (i = 0; i < XRT_STATUS_COUNT; i++) {
        const char *s = xrt_status_string((xrt_status)i);
        assert_non_null(s);
        assert_true(s[0] != 0);
        assert_string_not_equal(s, "unknown status");
        for (j = 0; j < i; j++) assert_string_not_equal(s, xrt_status_string((xrt_status)j));
    }
    assert_string_equal(xrt_status_string(XRT_SUCCESS), "success");
    assert_string_equal(xrt_status_string(XRT_STATUS_COUNT), "unknown status");
    assert_string_equal(xrt_status_string((xrt_status)-1), "unknown status");
}

static void *error_in_thread(void *arg)
{
    void *p;
    (void)arg;
    xrt_malloc(&p, 0);
    return (void *)(uintptr_t)xrt_peek_at_last_error();
}

static void test_last_error(void **state)
{
    void *p, *ret = NULL;
    int n;
    pthread_t t;
    (void)state;
    FAILS(xrt_malloc(&p, 0), XRT_ERROR_INVALID_VALUE, "size is 0");
    assert_int_equal(xrt_peek_at_last_error(), XRT_ERROR_INVALID_VALUE); /* peeking keeps it */
    assert_int_equal(xrt_peek_at_last_error(), XRT_ERROR_INVALID_VALUE);
    OK(xrt_get_device_count(&n)); /* a success does not clear it, as in CUDA */
    assert_int_equal(xrt_peek_at_last_error(), XRT_ERROR_INVALID_VALUE);
    assert_int_equal(xrt_get_last_error(), XRT_ERROR_INVALID_VALUE); /* getting resets it */
    assert_int_equal(xrt_get_last_error(), XRT_SUCCESS);
    assert_int_equal(xrt_peek_at_last_error(), XRT_SUCCESS);

    /* the last error is per thread */
    assert_int_equal(start_thread(&t, NULL, error_in_thread, NULL), 0);
    assert_int_equal(pthread_join(t, &ret), 0);
    assert_int_equal((uintptr_t)ret, XRT_ERROR_INVALID_VALUE);
    assert_int_equal(xrt_peek_at_last_error(), XRT_SUCCESS);
}

static struct { int count; void *user; } own_log;
static void own_log_fn(xrt_log_level level, const char *msg, void *user)
{
    (void)level;
    (void)msg;
    own_log.count++;
    own_log.user = user;
}

static void test_logging(void **state)
{
    unsigned char h[64];
    xrt_stream s;
    xrt_event e;
    xrt_pointer_attributes a;
    xrt_device_prop prop;
    void *d, *p;
    int logs, marker = 0;
    (void)state;
    FAILS(xrt_malloc(&p, 0), XRT_ERROR_INVALID_VALUE, "xrt_malloc: size is 0");
    assert_non_null(strstr(xrt_test_log.last, "(invalid value)")); /* the status is in the line */

    /* success logs nothing */
    logs = xrt_test_log.count;
    OK(xrt_malloc(&d, sizeof h));
    OK(xrt_memset(d, 1, sizeof h));
    OK(xrt_memcpy(h, d, sizeof h, XRT_MEMCPY_DEFAULT));
    OK(xrt_stream_create(&s));
    OK(xrt_event_create(&e, 0));
    OK(xrt_memcpy_async(d, h, sizeof h, XRT_MEMCPY_HOST_TO_DEVICE, s));
    OK(xrt_event_record(e, s));
    OK(xrt_stream_wait_event(NULL, e));
    OK(xrt_event_synchronize(e));
    OK(xrt_stream_synchronize(s));
    OK(xrt_pointer_get_attributes(&a, h));
    OK(xrt_get_device_properties(&prop, 0));
    OK(xrt_event_destroy(e));
    OK(xrt_stream_destroy(s));
    OK(xrt_free(d));
    assert_int_equal(xrt_test_log.count, logs);

    /* the callback gets its user pointer; level NONE silences errors but not the status */
    xrt_set_log_callback(own_log_fn, &marker);
    memset(&own_log, 0, sizeof own_log);
    assert_int_equal(xrt_malloc(&p, 0), XRT_ERROR_INVALID_VALUE);
    assert_int_equal(own_log.count, 1);
    assert_ptr_equal(own_log.user, &marker);
    xrt_set_log_level(XRT_LOG_NONE);
    assert_int_equal(xrt_malloc(&p, 0), XRT_ERROR_INVALID_VALUE);
    assert_int_equal(xrt_get_last_error(), XRT_ERROR_INVALID_VALUE);
    assert_int_equal(own_log.count, 1);
}

static int restore_log(void **state)
{
    (void)state;
    xrt_set_log_level(XRT_LOG_WARN);
    xrt_test_log_capture();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_out_pointers),
        cmocka_unit_test(test_zero_size),
        cmocka_unit_test(test_bad_device),
        cmocka_unit_test(test_unknown_backend),
        cmocka_unit_test(test_destroyed_stream),
        cmocka_unit_test(test_destroyed_event),
        cmocka_unit_test(test_null_and_mixed_handles),
        cmocka_unit_test(test_foreign_objects),
        cmocka_unit_test(test_bad_frees),
        cmocka_unit_test(test_bad_frees_pinned),
        cmocka_unit_test(test_memcpy_errors),
        cmocka_unit_test(test_memset_errors),
        cmocka_unit_test(test_event_flags),
        cmocka_unit_test(test_elapsed_time_errors),
        gated_test(test_not_ready_is_not_an_error),
        cmocka_unit_test(test_status_strings),
        cmocka_unit_test(test_last_error),
        cmocka_unit_test_teardown(test_logging, restore_log),
    };
    return xrt_test_run_on_backends("errors", tests, sizeof tests / sizeof tests[0], NULL);
}
