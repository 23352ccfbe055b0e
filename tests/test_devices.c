/* SPDX-License-Identifier: MIT */
/* Many devices in one process: the CPU backend with XRT_CPU_DEVICES=4 (set
   here, before xrt starts) and, where it runs, the cuda backend (on the
   CUDA runtime test double: two devices). A thread per device, each
   device's NULL stream, streams and device synchronize of the device current
   at creation, events waited for across devices, memory freed from another
   device's thread, per-device memory info, peer copies at odd sizes and
   offsets, peer access errors, and XRT_CPU_DEVICES values that are not
   valid (each in a child on a fresh xrt). */
#include "xrt_test.h"

#include <pthread.h>

enum { CPU_DEVICES = 4 };

static int devices(void)
{
    int n = 0;
    OK(xrt_get_device_count(&n));
    return n;
}

static int is_cpu(void) { return strcmp(xrt_test_backend, "cpu") == 0; }

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    size_t i;
    for (i = 0; i < n; i++) p[i] = (unsigned char)(i * 131u + seed * 7u + 1u);
}

/* >> devices */
XRT_TEST(test_device_count_and_names)
{
    xrt_device_prop p;
    char want[64];
    int i;
    (void)state;
    SKIP_UNLESS(is_cpu(), "XRT_CPU_DEVICES is the CPU backend's");
    assert_int_equal(devices(), CPU_DEVICES);
    for (i = 0; i < CPU_DEVICES; i++) {
        OK(xrt_get_device_properties(&p, i));
        snprintf(want, sizeof want, "CPU device %d of %d: ", i, CPU_DEVICES);
        if (strncmp(p.name, want, strlen(want)) != 0) fail_msg("device %d is named \"%s\"", i, p.name);
    }
    FAILS(xrt_get_device_properties(&p, CPU_DEVICES), XRT_ERROR_INVALID_DEVICE,
          "device 4 out of range (4 devices; XRT_CPU_DEVICES sets how many)");
    FAILS(xrt_set_device(CPU_DEVICES), XRT_ERROR_INVALID_DEVICE, "device 4 out of range");
}

/* A thread per device: each starts on device 0, sets its own, allocates
   there (the pointer's attributes name it) and copies through its NULL
   stream. */
typedef struct per_device { int device, started_on, current, attr_device; unsigned char back[999]; } per_device;

static void *device_main(void *arg)
{
    per_device *d = (per_device *)arg;
    unsigned char h[999];
    xrt_pointer_attributes a;
    void *p = NULL;
    if (xrt_get_device(&d->started_on) || xrt_set_device(d->device) || xrt_get_device(&d->current) ||
        xrt_malloc(&p, sizeof h))
        return NULL;
    fill(h, sizeof h, (unsigned)d->device);
    if (xrt_pointer_get_attributes(&a, p) == XRT_SUCCESS) d->attr_device = a.device;
    if (xrt_memcpy_async(p, h, sizeof h, XRT_MEMCPY_HOST_TO_DEVICE, NULL) ||
        xrt_memcpy(d->back, p, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST) || xrt_free(p))
        d->current = -2;
    return NULL;
}

XRT_TEST(test_a_thread_per_device)
{
    per_device d[CPU_DEVICES];
    pthread_t t[CPU_DEVICES];
    unsigned char h[999];
    int n = devices(), i;
    (void)state;
    SKIP_UNLESS(n >= 2, "one device");
    if (n > CPU_DEVICES) n = CPU_DEVICES;
    memset(d, 0, sizeof d);
    for (i = 0; i < n; i++) {
        d[i].device = i;
        d[i].started_on = d[i].current = d[i].attr_device = -1;
        assert_int_equal(start_thread(&t[i], xrt_test_backend, device_main, &d[i]), 0);
    }
    for (i = 0; i < n; i++) assert_int_equal(pthread_join(t[i], NULL), 0);
    for (i = 0; i < n; i++) {
        assert_int_equal(d[i].started_on, 0);
        assert_int_equal(d[i].current, i);
        assert_int_equal(d[i].attr_device, i);
        fill(h, sizeof h, (unsigned)i);
        assert_memory_equal(d[i].back, h, sizeof h);
    }
}

/* Each device has its own NULL stream: device 0's blocked, device 1's runs;
   a stream belongs to the device current at its creation, and device
   synchronize waits for the current device's streams only (as
   cudaDeviceSynchronize). */
XRT_GATED_TEST(test_null_stream_and_synchronize_per_device)
{
    xrt_stream s1;
    int ran = 0;
    (void)state;
    SKIP_UNLESS(is_cpu() && devices() >= 2, "the CPU backend's devices");
    OK(xrt_set_device(0));
    OK(xrt_launch_host_func(NULL, gate_wait, &gates[0]));
    OK(xrt_set_device(1));
    OK(xrt_stream_create(&s1));
    OK(xrt_launch_host_func(s1, gate_wait, &gates[1]));
    OK(xrt_launch_host_func(NULL, set_flag, &ran));
    OK(xrt_stream_synchronize(NULL)); /* device 1's NULL stream: not behind device 0's gate */
    assert_true(flag(&ran));
    OK(xrt_set_device(2));
    OK(xrt_device_synchronize()); /* nothing of device 2 is queued */
    OK(xrt_set_device(0));
    assert_int_equal(xrt_stream_query(NULL), XRT_ERROR_NOT_READY);
    gate_open(&gates[0]);
    OK(xrt_device_synchronize()); /* device 0's: its NULL stream, not s1 */
    assert_int_equal(xrt_stream_query(s1), XRT_ERROR_NOT_READY);
    OK(xrt_stream_query(NULL));
    gate_open(&gates[1]);
    OK(xrt_set_device(1));
    OK(xrt_device_synchronize());
    OK(xrt_stream_query(s1));
    OK(xrt_stream_destroy(s1));
    OK(xrt_set_device(0));
}

/* A host function's current device is its stream's, whichever thread runs
   it: its calls on the NULL stream go to that device's. */
static void note_device(void *user) { xrt_get_device((int *)user); }

XRT_TEST(test_host_function_runs_on_its_streams_device)
{
    xrt_stream s2;
    int seen[2] = {-1, -1};
    (void)state;
    SKIP_UNLESS(is_cpu() && devices() >= 3, "the CPU backend's devices");
    OK(xrt_set_device(2));
    OK(xrt_stream_create(&s2));
    OK(xrt_set_device(0));
    OK(xrt_launch_host_func(s2, note_device, &seen[0]));
    OK(xrt_stream_synchronize(s2)); /* may run it on this thread */
    OK(xrt_launch_host_func(s2, note_device, &seen[1]));
    sleep_ms(5);
    OK(xrt_stream_synchronize(s2));
    assert_int_equal(seen[0], 2);
    assert_int_equal(seen[1], 2);
    OK(xrt_get_device(&seen[0]));
    assert_int_equal(seen[0], 0); /* the synchronizing thread's own device is unchanged */
    OK(xrt_stream_destroy(s2));
}

/* An event recorded on device 0 holds a stream of device 1 back. */
XRT_GATED_TEST(test_wait_for_another_devices_event)
{
    xrt_stream s0, s1;
    xrt_event e;
    void *d;
    unsigned char h[256];
    (void)state;
    SKIP_UNLESS(is_cpu() && devices() >= 2, "the CPU backend's devices");
    OK(xrt_set_device(0));
    OK(xrt_stream_create(&s0));
    OK(xrt_event_create(&e, 0));
    OK(xrt_launch_host_func(s0, gate_wait, &gates[0]));
    OK(xrt_event_record(e, s0));
    OK(xrt_set_device(1));
    OK(xrt_stream_create(&s1));
    FAILS(xrt_event_record(e, s1), XRT_ERROR_INVALID_HANDLE, "the event belongs to device 0, the stream to device 1");
    FAILS(xrt_event_record(e, NULL), XRT_ERROR_INVALID_HANDLE, "the stream to device 1"); /* device 1's NULL stream */
    OK(xrt_malloc(&d, sizeof h));
    OK(xrt_memset(d, 0, sizeof h));
    OK(xrt_stream_wait_event(s1, e));
    OK(xrt_memset_async(d, 0x5c, sizeof h, s1));
    sleep_ms(20);
    assert_int_equal(xrt_stream_query(s1), XRT_ERROR_NOT_READY);
    gate_open(&gates[0]);
    OK(xrt_stream_synchronize(s1));
    OK(xrt_memcpy(h, d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_bytes(h, sizeof h, 0x5c);
    OK(xrt_free(d));
    OK(xrt_stream_destroy(s1));
    OK(xrt_set_device(0));
    OK(xrt_stream_destroy(s0));
    OK(xrt_event_destroy(e));
}

/* Memory of device 2 allocated on its thread, freed from device 0's. */
typedef struct alloc_on { int device; size_t size; void *p; } alloc_on;

static void *alloc_main(void *arg)
{
    alloc_on *a = (alloc_on *)arg;
    if (xrt_set_device(a->device) || xrt_malloc(&a->p, a->size)) a->p = NULL;
    return NULL;
}

/* This device's view: the machine's memory as total; free never more than
   the total less what this device holds. */
static void mem_of(int device, size_t *free_bytes, size_t *total)
{
    OK(xrt_set_device(device));
    OK(xrt_mem_get_info(free_bytes, total));
}

XRT_TEST(test_memory_freed_from_another_device)
{
    alloc_on a;
    pthread_t t;
    xrt_pointer_attributes attr;
    size_t f0, f2, t0, t2;
    int n = devices();
    (void)state;
    SKIP_UNLESS(n >= 2, "one device");
    a.device = n - 1;
    mem_of(0, &f0, &t0);
    a.size = is_cpu() ? t0 / 3 : 1 << 20; /* never touched: costs no memory */
    assert_int_equal(start_thread(&t, xrt_test_backend, alloc_main, &a), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_non_null(a.p);
    OK(xrt_pointer_get_attributes(&attr, a.p));
    assert_int_equal(attr.device, n - 1);
    if (is_cpu()) {
        mem_of(n - 1, &f2, &t2);
        assert_int_equal(t2, t0);
        assert_true(f2 <= t2 - a.size);
        mem_of(0, &f0, &t0); /* device 0 holds none of it */
        assert_true(f0 <= t0);
    }
    OK(xrt_set_device(0));
    OK(xrt_free(a.p));
    if (is_cpu()) {
        size_t f2_after, t2_after;
        mem_of(n - 1, &f2_after, &t2_after);
        assert_true(f2_after > f2 || f2_after > t2 - a.size); /* its share came back */
        OK(xrt_set_device(0));
    }
}

/* >> peers */
static void peer_copy(int dst_dev, int src_dev, size_t size, size_t dst_off, size_t src_off, int async)
{
    unsigned char *h = (unsigned char *)malloc(size + src_off), *back = (unsigned char *)malloc(size + dst_off);
    void *src, *dst;
    xrt_stream s = NULL;
    assert_true(h && back);
    OK(xrt_set_device(src_dev));
    OK(xrt_malloc(&src, size + src_off));
    OK(xrt_set_device(dst_dev));
    OK(xrt_malloc(&dst, size + dst_off));
    if (async) OK(xrt_stream_create(&s));
    fill(h, size + src_off, (unsigned)(size + async));
    OK(xrt_memcpy(src, h, size + src_off, XRT_MEMCPY_HOST_TO_DEVICE));
    OK(xrt_memset(dst, 0xee, size + dst_off));
    if (async) {
        OK(xrt_memcpy_peer_async((char *)dst + dst_off, dst_dev, (char *)src + src_off, src_dev, size, s));
        OK(xrt_stream_synchronize(s));
        OK(xrt_stream_destroy(s));
    } else {
        OK(xrt_memcpy_peer((char *)dst + dst_off, dst_dev, (char *)src + src_off, src_dev, size));
    }
    OK(xrt_memcpy(back, dst, size + dst_off, XRT_MEMCPY_DEFAULT)); /* the default kind between devices */
    assert_bytes(back, dst_off, 0xee);
    if (memcmp(back + dst_off, h + src_off, size) != 0)
        fail_msg("peer copy %d -> %d of %zu bytes (+%zu, +%zu, %s) differs", src_dev, dst_dev, size, src_off, dst_off,
                 async ? "async" : "sync");
    FAILS(xrt_memcpy_peer((char *)dst + dst_off, dst_dev, src, src_dev, size + 1), XRT_ERROR_INVALID_VALUE,
          "overrun its allocation");
    if (size > 1) /* src + src_off + 1 still inside */
        FAILS(xrt_memcpy_peer((char *)dst + dst_off, dst_dev, (char *)src + src_off + 1, src_dev, size),
              XRT_ERROR_INVALID_VALUE, "at src");
    OK(xrt_free(src));
    OK(xrt_free(dst));
    free(h);
    free(back);
}

XRT_TEST(test_peer_copies_at_odd_sizes_and_offsets)
{
    static const size_t sizes[] = {1, 7, 4133, (1u << 20) + 3, (17u << 20) + 5}; /* the last is split over the pool */
    int n = devices(), async;
    size_t i;
    (void)state;
    SKIP_UNLESS(n >= 2, "one device");
    for (async = 0; async <= 1; async++)
        for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            peer_copy(1, 0, sizes[i], i, 2 * i + 1, async);
            peer_copy(0, n - 1, sizes[i], 3 * i + 1, i, async);
        }
    OK(xrt_set_device(0));
}

/* A peer copy captured into a graph is replayed at each launch. */
XRT_TEST(test_peer_copy_in_a_graph)
{
    unsigned char *a, *b;
    xrt_stream s;
    xrt_graph g;
    xrt_graph_exec x;
    int n = devices(), i;
    (void)state;
    SKIP_UNLESS(n >= 2, "one device");
    SKIP_UNLESS(caps() & XRT_CAP_GRAPHS, "no graphs");
    OK(xrt_set_device(0));
    OK(xrt_malloc((void **)&a, 4099));
    OK(xrt_stream_create(&s));
    OK(xrt_set_device(1));
    OK(xrt_malloc((void **)&b, 4099));
    OK(xrt_set_device(0));
    OK(xrt_stream_begin_capture(s, XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_memcpy_peer_async(b, 1, a, 0, 4099, s));
    OK(xrt_stream_end_capture(s, &g));
    OK(xrt_graph_instantiate(&x, g));
    for (i = 1; i <= 3; i++) {
        unsigned char got[2];
        OK(xrt_memset(a, i, 4099));
        OK(xrt_graph_launch(x, s));
        OK(xrt_stream_synchronize(s));
        OK(xrt_memcpy(&got[0], b, 1, XRT_MEMCPY_DEVICE_TO_HOST));
        OK(xrt_memcpy(&got[1], b + 4098, 1, XRT_MEMCPY_DEVICE_TO_HOST));
        assert_int_equal(got[0], i);
        assert_int_equal(got[1], i);
    }
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    OK(xrt_stream_destroy(s));
    OK(xrt_free(a));
    OK(xrt_free(b));
}

XRT_TEST(test_peer_copy_checks)
{
    void *a, *b;
    int n = devices();
    char want[96];
    (void)state;
    SKIP_UNLESS(n >= 2, "one device");
    OK(xrt_set_device(0));
    OK(xrt_malloc(&a, 64));
    OK(xrt_set_device(1));
    OK(xrt_malloc(&b, 64));
    snprintf(want, sizeof want, "src %p is memory of device 1, not of device 0", b);
    FAILS(xrt_memcpy_peer(a, 0, b, 0, 8), XRT_ERROR_INVALID_VALUE, want);
    FAILS(xrt_memcpy_peer(a, 0, b, -1, 8), XRT_ERROR_INVALID_DEVICE, "src device -1 is negative");
    FAILS(xrt_memcpy_peer(a, 0, b, n, 8), XRT_ERROR_INVALID_VALUE, "not of device");
    FAILS(xrt_memcpy_peer_async(a, 0, NULL, 1, 8, NULL), XRT_ERROR_INVALID_VALUE, "src is NULL");
    OK(xrt_memcpy_peer(a, 0, b, 1, 0)); /* nothing to copy */
    OK(xrt_free(a));
    OK(xrt_free(b));
    OK(xrt_set_device(0));
}

/* CUDA's rules: access is the current device's, to another device, once. */
XRT_TEST(test_peer_access)
{
    int n = devices(), can = -1, i;
    (void)state;
    SKIP_UNLESS(n >= 2, "one device");
    for (i = 0; i < n; i++) {
        OK(xrt_device_can_access_peer(&can, i, (i + 1) % n));
        assert_int_equal(can, 1);
        OK(xrt_device_can_access_peer(&can, i, i));
        assert_int_equal(can, 0);
    }
    FAILS(xrt_device_can_access_peer(&can, 0, n), XRT_ERROR_INVALID_DEVICE, "out of range");
    OK(xrt_set_device(1));
    FAILS(xrt_device_enable_peer_access(1, 0), XRT_ERROR_INVALID_DEVICE, "device");
    FAILS(xrt_device_disable_peer_access(0), XRT_ERROR_PEER_ACCESS_NOT_ENABLED, "enabled");
    FAILS(xrt_device_enable_peer_access(0, 2), XRT_ERROR_INVALID_VALUE, "flags 2: must be 0");
    OK(xrt_device_enable_peer_access(0, 0));
    FAILS(xrt_device_enable_peer_access(0, 0), XRT_ERROR_PEER_ACCESS_ALREADY_ENABLED, "already");
    OK(xrt_set_device(0)); /* device 0's access to device 1 is its own */
    OK(xrt_device_enable_peer_access(1, 0));
    OK(xrt_device_disable_peer_access(1));
    OK(xrt_set_device(1));
    OK(xrt_device_disable_peer_access(0));
    FAILS(xrt_device_disable_peer_access(0), XRT_ERROR_PEER_ACCESS_NOT_ENABLED, "enabled");
    FAILS(xrt_device_enable_peer_access(n, 0), XRT_ERROR_INVALID_DEVICE, "out of range");
    OK(xrt_set_device(0));
}

/* >> XRT_CPU_DEVICES values: one warning naming the valid values, and 1 device. */
static int bad_count_child(void *arg)
{
    static const char *const values[] = {"0", "-1", "65", "99999999999999999999", "two", " 2", "2x", "NUMA"};
    size_t i;
    int n = -1;
    (void)arg;
    for (i = 0; i < sizeof values / sizeof values[0]; i++) {
        char want[160];
        xrt_shutdown();
        setenv("XRT_CPU_DEVICES", values[i], 1);
        xrt_test_log_calls();
        CHILD_OK(xrt_set_backend("cpu"));
        CHILD_OK(xrt_get_device_count(&n));
        if (n != 1) CHILD_FAIL("XRT_CPU_DEVICES=%s gave %d devices", values[i], n);
        snprintf(want, sizeof want, "XRT_CPU_DEVICES=%s: not valid (valid: 1 to 64 or numa); 1 used", values[i]);
        if (xrt_test_log.count != 1 || xrt_test_log.level != XRT_LOG_WARN || !strstr(xrt_test_log.last, want))
            CHILD_FAIL("XRT_CPU_DEVICES=%s logged %d lines, the last \"%s\", not one \"%s\"", values[i],
                       xrt_test_log.count, xrt_test_log.last, want);
    }
    xrt_shutdown();
    return 0;
}

/* Valid values: a count, 64, unset or empty (1), numa (a device per node). */
static int good_count_child(void *arg)
{
    static const struct { const char *value; int devices; } values[] = {{"1", 1}, {"64", 64}, {"", 1}, {"3", 3}};
    char path[64];
    size_t i;
    int n = -1, nodes = 0;
    (void)arg;
    for (i = 0; i < sizeof values / sizeof values[0]; i++) {
        xrt_shutdown();
        setenv("XRT_CPU_DEVICES", values[i].value, 1);
        xrt_test_log_calls();
        CHILD_OK(xrt_set_backend("cpu"));
        CHILD_OK(xrt_get_device_count(&n));
        if (n != values[i].devices || xrt_test_log.count)
            CHILD_FAIL("XRT_CPU_DEVICES=\"%s\" gave %d devices and %d log lines", values[i].value, n, xrt_test_log.count);
    }
    do snprintf(path, sizeof path, "/sys/devices/system/node/node%d", nodes);
    while (access(path, F_OK) == 0 && ++nodes < 64);
    xrt_shutdown();
    setenv("XRT_CPU_DEVICES", "numa", 1);
    CHILD_OK(xrt_set_backend("cpu"));
    CHILD_OK(xrt_get_device_count(&n));
    if (n != (nodes ? nodes : 1)) CHILD_FAIL("XRT_CPU_DEVICES=numa gave %d devices for %d nodes", n, nodes);
    xrt_shutdown();
    return 0;
}

XRT_TEST(test_device_count_variable)
{
    child_case cases[2];
    (void)state;
    SKIP_UNLESS(is_cpu(), "XRT_CPU_DEVICES is the CPU backend's");
    cases[0] = (child_case){"XRT_CPU_DEVICES values that are not valid", bad_count_child, NULL};
    cases[1] = (child_case){"XRT_CPU_DEVICES values that are", good_count_child, NULL};
    run_cases("XRT_CPU_DEVICES", cases, 2, 20);
}

/* The pointer registry records the device each allocation was made on
   (xrt_malloc, xrt_malloc_async), also right after an allocation on another
   device: the device a backend notes for its allocation is that one's. */
static void assert_allocated_on(void *p, int device)
{
    xrt_pointer_attributes a;
    OK(xrt_pointer_get_attributes(&a, p));
    assert_int_equal(a.type, XRT_MEMORY_DEVICE);
    assert_int_equal(a.device, device);
}

XRT_TEST(test_allocation_device_recorded)
{
    int n = devices(), i, dev;
    void *p;
    (void)state;
    SKIP_UNLESS(n >= 2, "one device");
    for (i = 0; i < 4; i++) {
        dev = i % 2 ? n - 1 : 0;
        OK(xrt_set_device(dev));
        OK(xrt_malloc(&p, 64));
        assert_allocated_on(p, dev);
        OK(xrt_free(p));
        if (caps() & XRT_CAP_MALLOC_ASYNC) {
            OK(xrt_malloc_async(&p, 64, NULL));
            assert_allocated_on(p, dev);
            OK(xrt_free_async(p, NULL));
            OK(xrt_stream_synchronize(NULL));
        }
    }
    OK(xrt_set_device(0));
}

int main(void)
{
    const xrt_test_list *l = xrt_test_defined();
    setenv("XRT_CPU_DEVICES", "4", 1); /* before xrt starts: the CPU backend reads it at init */
    return xrt_test_run_on_backends("devices", l->tests, l->count, NULL);
}
