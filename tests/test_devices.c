/* SPDX-License-Identifier: MIT */
/* Many devices in one process: the CPU backend with XRT_CPU_DEVICES=4 (set
   here, before xrt starts) and, where it runs, the cuda backend (on the
   CUDA runtime test double: two devices). A thread per device, each
   device's NULL stream, streams and device synchronize of the device current
   at creation, events waited for across devices, memory freed from another
   device's thread, per-device memory info, peer copies at odd sizes and
   offsets, peer access errors, XRT_CPU_DEVICES values that are not
   valid, and XRT_CPU_DEVICES=numa: devices placed on the nodes that sysfs
   lists, on this machine's own and on fake trees (each in a child on a
   fresh xrt). */
#define XRT_IMPL /* white-box: a fake sysfs tree */
#include "xrt_test.h"

#include <pthread.h>
#include <time.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>

enum { CPU_DEVICES = 4 };

static int devices(void)
{
    int n = 0;
    OK(xrt_get_device_count(&n));
    return n;
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    size_t i;
    for (i = 0; i < n; i++) p[i] = (unsigned char)(i * 131u + seed * 7u + 1u);
}

/* >> devices */
static void test_device_count_and_names(void **state)
{
    xrt_device_prop p;
    char want[64];
    int i;
    (void)state;
    SKIP_UNLESS(on_cpu(), "XRT_CPU_DEVICES is the CPU backend's");
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

static void test_a_thread_per_device(void **state)
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
static void test_null_stream_and_synchronize_per_device(void **state)
{
    xrt_stream s1;
    int ran = 0, i;
    (void)state;
    SKIP_UNLESS(devices() >= 2, "one device");
    OK(xrt_set_device(0));
    OK(xrt_launch_host_func(NULL, gate_wait, &gates[0]));
    OK(xrt_set_device(1));
    OK(xrt_stream_create_with_flags(&s1, XRT_STREAM_NON_BLOCKING)); /* the NULL stream does not wait for it */
    OK(xrt_launch_host_func(s1, gate_wait, &gates[1]));
    OK(xrt_launch_host_func(NULL, set_flag, &ran));
    for (i = 0; i < 5000 && xrt_stream_query(NULL) == XRT_ERROR_NOT_READY; i++) sleep_ms(1);
    if (!flag(&ran)) fail_msg("device 1's NULL stream waits behind device 0's"); /* not a hang: gates_release opens */
    OK(xrt_stream_synchronize(NULL));
    OK(xrt_set_device(devices() - 1 > 1 ? 2 : 1));
    if (devices() > 2) OK(xrt_device_synchronize()); /* nothing of device 2 is queued */
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

/* cudaStreamGetDevice: a stream's device is the one current at its
   creation, whichever is current now; the NULL, legacy and per-thread
   streams' is the current device; a wrapped native stream's, the runtime's
   answer. */
static void test_stream_get_device(void **state)
{
    xrt_stream s1, wrapped;
    void *native;
    int d = -1;
    xrt_status st;
    (void)state;
    SKIP_UNLESS(devices() >= 2, "one device");
    OK(xrt_set_device(1));
    OK(xrt_stream_create(&s1));
    OK(xrt_set_device(0));
    OK(xrt_stream_get_device(s1, &d));
    assert_int_equal(d, 1);
    OK(xrt_stream_get_device(NULL, &d));
    assert_int_equal(d, 0);
    OK(xrt_stream_get_device(XRT_STREAM_LEGACY, &d));
    assert_int_equal(d, 0);
    OK(xrt_set_device(1));
    OK(xrt_stream_get_device(XRT_STREAM_PER_THREAD, &d));
    assert_int_equal(d, 1);
    OK(xrt_stream_get_device(NULL, &d));
    assert_int_equal(d, 1);
    OK(xrt_set_device(0));
    if ((st = xrt_stream_get_native(s1, &native)) == XRT_SUCCESS) {
        OK(xrt_stream_wrap_native(&wrapped, native));
        d = -1;
        OK(xrt_stream_get_device(wrapped, &d)); /* not kept: the runtime's answer */
        assert_int_equal(d, 1);
        OK(xrt_stream_destroy(wrapped));
    } else {
        assert_int_equal(st, XRT_ERROR_UNSUPPORTED);
        xrt_get_last_error();
    }
    FAILS(xrt_stream_get_device(s1, NULL), XRT_ERROR_INVALID_VALUE, "device is NULL");
    OK(xrt_stream_destroy(s1));
    FAILS(xrt_stream_get_device(s1, &d), XRT_ERROR_INVALID_HANDLE, "xrt_stream_get_device");
}

/* A host function's current device is its stream's, whichever thread runs
   it: its calls on the NULL stream go to that device's. */
static void note_device(void *user) { xrt_get_device((int *)user); }

static void test_host_function_runs_on_its_streams_device(void **state)
{
    xrt_stream s2;
    int seen[2] = {-1, -1};
    (void)state;
    SKIP_UNLESS(on_cpu() && devices() >= 3, "the CPU backend's devices");
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
static void test_wait_for_another_devices_event(void **state)
{
    xrt_stream s0, s1;
    xrt_event e;
    void *d;
    unsigned char h[256];
    (void)state;
    SKIP_UNLESS(devices() >= 2, "one device");
    OK(xrt_set_device(0));
    OK(xrt_stream_create(&s0));
    OK(xrt_event_create(&e, 0));
    OK(xrt_launch_host_func(s0, gate_wait, &gates[0]));
    OK(xrt_event_record(e, s0));
    OK(xrt_set_device(1));
    OK(xrt_stream_create(&s1));
    FAILS(xrt_event_record(e, s1), XRT_ERROR_INVALID_HANDLE,
          on_cpu() ? "the event belongs to device 0, the stream to device 1" : "cudaErrorInvalidResourceHandle");
    FAILS(xrt_event_record(e, NULL), XRT_ERROR_INVALID_HANDLE, /* device 1's NULL stream */
          on_cpu() ? "the stream to device 1" : "cudaErrorInvalidResourceHandle");
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

/* As cudaEventElapsedTime: two events of different devices have no common
   clock to measure by. */
static void test_elapsed_time_across_devices(void **state)
{
    xrt_event e0, e1;
    float ms = -1;
    (void)state;
    SKIP_UNLESS(devices() >= 2, "one device");
    OK(xrt_set_device(0));
    OK(xrt_event_create(&e0, 0));
    OK(xrt_event_record(e0, NULL));
    OK(xrt_set_device(1));
    OK(xrt_event_create(&e1, 0));
    OK(xrt_event_record(e1, NULL));
    OK(xrt_event_synchronize(e1));
    OK(xrt_event_synchronize(e0));
    FAILS(xrt_event_elapsed_time(&ms, e0, e1), XRT_ERROR_INVALID_HANDLE,
          on_cpu() ? "the start event belongs to device 0, the end event to device 1" : "cudaErrorInvalidResourceHandle");
    OK(xrt_event_elapsed_time(&ms, e1, e1)); /* one device: fine from any current device */
    OK(xrt_set_device(0));
    OK(xrt_event_elapsed_time(&ms, e1, e1));
    OK(xrt_event_destroy(e0));
    OK(xrt_event_destroy(e1));
}

/* As CUDA: a kernel launches only on a stream of the current device (a copy
   or an event wait may use another device's stream). */
static const char empty_kernel_src[] = "typedef struct { unsigned x, y, z; } dim3;\n"
                                       "typedef struct { dim3 grid_dim, block_dim, block_idx; void *shared; "
                                       "unsigned long shared_bytes; } ctx_t;\n"
                                       "void bump(const ctx_t *c, void *p) { (void)c; ++**(unsigned **)p; }\n";

static void test_launch_on_another_devices_stream(void **state)
{
    xrt_module_image im;
    xrt_module m;
    xrt_function f;
    xrt_stream s1;
    xrt_dim3 one = {1, 1, 1};
    unsigned *count;
    (void)state;
    SKIP_UNLESS(on_cpu() && devices() >= 2, "kernels from C source: the CPU backend's");
    im.kind = XRT_IMAGE_CPU_C_SOURCE, im.data = empty_kernel_src, im.size = strlen(empty_kernel_src), im.arch = NULL;
    OK(xrt_set_device(1));
    OK(xrt_stream_create(&s1));
    OK(xrt_malloc_host((void **)&count, sizeof *count));
    *count = 0;
    OK(xrt_module_load(&m, &im, 1, NULL));
    OK(xrt_module_get_function(&f, m, "bump"));
    OK(xrt_launch_kernel(f, one, one, 0, s1, &count, sizeof count));
    OK(xrt_set_device(0));
    FAILS(xrt_launch_kernel(f, one, one, 0, s1, &count, sizeof count), XRT_ERROR_INVALID_HANDLE,
          "the stream belongs to device 1; a kernel launches on a stream of the current device (0)");
    OK(xrt_stream_synchronize(s1));
    assert_int_equal(*count, 1);
    { /* a launch's event of another device is refused before the launch, as its record would be */
        xrt_launch_attribute a;
        xrt_launch_config c;
        xrt_event e0;
        OK(xrt_event_create(&e0, XRT_EVENT_DISABLE_TIMING)); /* device 0's */
        OK(xrt_set_device(1));
        memset(&a, 0, sizeof a);
        a.id = XRT_LAUNCH_ATTR_LAUNCH_COMPLETION_EVENT, a.val.launch_completion_event.event = e0;
        memset(&c, 0, sizeof c);
        c.grid = c.block = one, c.stream = s1, c.attrs = &a, c.num_attrs = 1;
        FAILS(xrt_launch_kernel_ex(&c, f, &count, sizeof count), XRT_ERROR_INVALID_HANDLE,
              "the event of attribute 12 belongs to device 0, the stream to device 1");
        OK(xrt_stream_synchronize(s1));
        assert_int_equal(*count, 1);
        OK(xrt_set_device(0));
        OK(xrt_event_destroy(e0));
    }
    OK(xrt_stream_destroy(s1));
    OK(xrt_module_unload(m));
    OK(xrt_free_host(count));
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

static void test_memory_freed_from_another_device(void **state)
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
    a.size = on_cpu() ? t0 / 3 : 1 << 20; /* never touched: costs no memory */
    assert_int_equal(start_thread(&t, xrt_test_backend, alloc_main, &a), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_non_null(a.p);
    OK(xrt_pointer_get_attributes(&attr, a.p));
    assert_int_equal(attr.device, n - 1);
    if (on_cpu()) { /* through a forwarding plugin too: its allocations count against its target */
        mem_of(n - 1, &f2, &t2);
        assert_int_equal(t2, t0);
        assert_true(f2 <= t2 - a.size);
        mem_of(0, &f0, &t0); /* device 0 holds none of it */
        assert_true(f0 <= t0);
    }
    OK(xrt_set_device(0));
    OK(xrt_free(a.p));
    if (on_cpu()) {
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

static void test_peer_copies_at_odd_sizes_and_offsets(void **state)
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
static void test_peer_copy_in_a_graph(void **state)
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

/* xrt_memcpy_peer, as cudaMemcpyPeer: "asynchronous with respect to the
   host, but serialized with respect to all pending and future asynchronous
   work in to the current device, srcDevice, and dstDevice". The source
   device's NULL stream holds a set behind a gate, a third device (the
   current one, where there are three; else the destination) a gate of its
   own: the copy returns with both closed, and the work queued afterwards on
   the source device (a set of the source) and on the current one (a read of
   the destination) comes after it. A watchdog opens the gates if the copy
   has not returned after 5 s, so that a copy that waits fails, not hangs. */
static int peer_returned, peer_late;
static void *open_if_stuck(void *arg)
{
    int i;
    (void)arg;
    for (i = 0; i < 500 && !__atomic_load_n(&peer_returned, __ATOMIC_ACQUIRE); i++) sleep_ms(10);
    if (!__atomic_load_n(&peer_returned, __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&peer_late, 1, __ATOMIC_RELEASE);
        gate_open(&gates[0]);
        gate_open(&gates[1]);
    }
    return NULL;
}

static void test_peer_copy_serialized_not_waited_for(void **state)
{
    unsigned char h[64], *pinned;
    void *src, *dst;
    pthread_t watchdog;
    int round, cur = devices() > 2 ? 2 : 0;
    (void)state;
    SKIP_UNLESS(devices() >= 2, "one device");
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    SKIP_UNLESS(caps() & XRT_CAP_PINNED_HOST, "no pinned host memory");
    OK(xrt_malloc_host((void **)&pinned, sizeof h));
    OK(xrt_set_device(1));
    OK(xrt_malloc(&src, sizeof h));
    OK(xrt_set_device(0));
    OK(xrt_malloc(&dst, sizeof h));
    for (round = 0; round < 2; round++) {
        gates_reset(NULL);
        OK(xrt_set_device(1));
        OK(xrt_memset(src, 1, sizeof h));
        OK(xrt_launch_host_func(NULL, gate_wait, &gates[0]));
        OK(xrt_memset_async(src, 7 + round, sizeof h, NULL));
        OK(xrt_set_device(0));
        OK(xrt_memset(dst, 0, sizeof h));
        gate_wait_entered(&gates[0]);
        OK(xrt_set_device(cur));
        OK(xrt_launch_host_func(NULL, gate_wait, &gates[1]));
        gate_wait_entered(&gates[1]);
        memset(pinned, 0, sizeof h);
        peer_returned = peer_late = 0;
        assert_int_equal(pthread_create(&watchdog, NULL, open_if_stuck, NULL), 0);
        OK(xrt_memcpy_peer(dst, 0, src, 1, sizeof h));
        __atomic_store_n(&peer_returned, 1, __ATOMIC_RELEASE);
        OK(xrt_memcpy_async(pinned, dst, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST, NULL)); /* the current device's */
        OK(xrt_set_device(1));
        OK(xrt_memset_async(src, 99, sizeof h, NULL)); /* the source device's */
        gate_open(&gates[0]);
        gate_open(&gates[1]);
        assert_int_equal(pthread_join(watchdog, NULL), 0);
        assert_int_equal(__atomic_load_n(&peer_late, __ATOMIC_ACQUIRE), 0); /* it returned with the gates closed */
        OK(xrt_stream_synchronize(NULL));
        OK(xrt_set_device(cur));
        OK(xrt_stream_synchronize(NULL));
        assert_bytes(pinned, sizeof h, (unsigned char)(7 + round));
        OK(xrt_set_device(0));
        OK(xrt_memcpy(h, dst, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST));
        assert_bytes(h, sizeof h, (unsigned char)(7 + round));
        OK(xrt_memcpy(h, src, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST));
        assert_bytes(h, sizeof h, 99);
    }
    OK(xrt_free(dst));
    OK(xrt_set_device(1));
    OK(xrt_free(src));
    OK(xrt_set_device(0));
    OK(xrt_free_host(pinned));
}

/* A peer copy of 0 bytes is serialized too, as CUDA's: work queued after it
   on the current device comes after the source device's earlier work. */
static void test_peer_copy_of_zero_bytes_serialized(void **state)
{
    unsigned char *pinned;
    void *src, *dst;
    (void)state;
    SKIP_UNLESS(devices() >= 2, "one device");
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    SKIP_UNLESS(caps() & XRT_CAP_PINNED_HOST, "no pinned host memory");
    OK(xrt_malloc_host((void **)&pinned, 64));
    OK(xrt_set_device(1));
    OK(xrt_malloc(&src, 64));
    OK(xrt_memset(src, 1, 64));
    OK(xrt_launch_host_func(NULL, gate_wait, &gates[0]));
    OK(xrt_memset_async(src, 5, 64, NULL));
    gate_wait_entered(&gates[0]);
    OK(xrt_set_device(0));
    OK(xrt_malloc(&dst, 64));
    OK(xrt_memcpy_peer(dst, 0, src, 1, 0));
    OK(xrt_memcpy_async(pinned, src, 64, XRT_MEMCPY_DEVICE_TO_HOST, NULL));
    gate_open(&gates[0]);
    OK(xrt_stream_synchronize(NULL));
    assert_bytes(pinned, 64, 5);
    OK(xrt_free(dst));
    OK(xrt_set_device(1));
    OK(xrt_free(src));
    OK(xrt_set_device(0));
    OK(xrt_free_host(pinned));
}

static void test_peer_copy_checks(void **state)
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
    FAILS(xrt_memcpy_peer(a, 0, b, n, 8), XRT_ERROR_INVALID_DEVICE, "is out of range");
    FAILS(xrt_memcpy_peer_async(a, 0, NULL, 1, 8, NULL), XRT_ERROR_INVALID_VALUE, "src is NULL");
    OK(xrt_memcpy_peer(a, 0, b, 1, 0)); /* nothing to copy */
    OK(xrt_free(a));
    OK(xrt_free(b));
    OK(xrt_set_device(0));
}

/* CUDA's rules: access is the current device's, to another device, once. */
static void test_peer_access(void **state)
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

/* Valid values: a count, 64, unset or empty (1); numa: test_numa_devices_on_this_machine. */
static int good_count_child(void *arg)
{
    static const struct { const char *value; int devices; } values[] = {{"1", 1}, {"64", 64}, {"", 1}, {"3", 3}};
    size_t i;
    int n = -1;
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
    xrt_shutdown();
    return 0;
}

static void test_device_count_variable(void **state)
{
    child_case cases[2];
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "XRT_CPU_DEVICES is the CPU backend's"); /* its children select cpu */
    cases[0] = (child_case){"XRT_CPU_DEVICES values that are not valid", bad_count_child, NULL};
    cases[1] = (child_case){"XRT_CPU_DEVICES values that are", good_count_child, NULL};
    run_cases("XRT_CPU_DEVICES", cases, 2, 20);
}

/* >> XRT_CPU_DEVICES=numa: a device per online node, its workers on the
   node's CPUs, its memory on the node. Checked against the machine's own
   sysfs (one node here; two in the NUMA VM, tests/rdma/numa.sh), and on
   fake trees (the core's xrt__sysfs_root) for gaps, nodes the kernel does
   not have and lists that are not valid. */
static const char *sysfs_root(void) { return xrt__sysfs_root; }

/* A sysfs list ("0,2-3\n") into *set; 0 if it is none. */
static int parse_ids(const char *s, cpu_set_t *set)
{
    CPU_ZERO(set);
    while (*s >= '0' && *s <= '9') {
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (*end == '-') b = strtol(end + 1, &end, 10);
        if (b >= CPU_SETSIZE) return 0;
        for (; a <= b; a++) CPU_SET((int)a, set);
        s = *end == ',' ? end + 1 : end;
    }
    return !*s || *s == '\n';
}

static int read_ids(const char *rel, cpu_set_t *set)
{
    char path[600], text[4096] = "";
    FILE *f;
    size_t n;
    snprintf(path, sizeof path, "%s/devices/system/node/%s", sysfs_root(), rel);
    if (!(f = fopen(path, "r"))) return 0;
    n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    return parse_ids(text, set);
}

/* The node ids sysfs lists online, in order; their count. */
static int online_nodes(int ids[64])
{
    cpu_set_t set;
    int n = 0, id;
    if (!read_ids("online", &set)) return 0;
    for (id = 0; id < CPU_SETSIZE && n < 64; id++)
        if (CPU_ISSET(id, &set)) ids[n++] = id;
    return n;
}

/* A node's meminfo value in bytes ("Node 0 MemTotal:  8131856 kB"); 0 if none. */
static size_t node_meminfo(int id, const char *key)
{
    char path[600], line[256], name[64];
    unsigned long long kb, found = 0;
    FILE *f;
    snprintf(path, sizeof path, "%s/devices/system/node/node%d/meminfo", sysfs_root(), id);
    if (!(f = fopen(path, "r"))) return 0;
    while (!found && fgets(line, sizeof line, f))
        if (sscanf(line, "Node %*d %63[^:]: %llu", name, &kb) == 2 && strcmp(name, key) == 0) found = kb;
    fclose(f);
    return (size_t)found * 1024;
}

/* Device d's size as xrt_get_device_properties and xrt_mem_get_info (of
   the current device, d) give it: `total` bytes, `cores` CPUs. */
static int check_size(int d, size_t total, int cores)
{
    xrt_device_prop p;
    size_t free_bytes = 0, total_bytes = 0;
    CHILD_OK(xrt_set_device(d));
    CHILD_OK(xrt_get_device_properties(&p, d));
    if (p.total_memory != total) CHILD_FAIL("device %d: total_memory %zu, not %zu", d, p.total_memory, total);
    if (p.multiprocessor_count != cores)
        CHILD_FAIL("device %d: multiprocessor_count %d, not %d", d, p.multiprocessor_count, cores);
    CHILD_OK(xrt_mem_get_info(&free_bytes, &total_bytes));
    if (total_bytes != total) CHILD_FAIL("device %d: xrt_mem_get_info's total %zu, not %zu", d, total_bytes, total);
    if (free_bytes > total_bytes) CHILD_FAIL("device %d: %zu bytes free of %zu", d, free_bytes, total_bytes);
    return 0;
}

static void note_affinity(void *user) { pthread_getaffinity_np(pthread_self(), sizeof(cpu_set_t), (cpu_set_t *)user); }

/* In a child: the CPUs a host function on the current device's NULL stream
   (seen[0]) and on a new stream of it (seen[1]) may run on. */
static void note_host_fn_affinities(cpu_set_t seen[2])
{
    xrt_stream s;
    CHILD_OK(xrt_stream_create(&s));
    CHILD_OK(xrt_launch_host_func(NULL, note_affinity, &seen[0]));
    CHILD_OK(xrt_launch_host_func(s, note_affinity, &seen[1]));
    CHILD_OK(xrt_device_synchronize());
    CHILD_OK(xrt_stream_destroy(s));
}

/* The node of the page at p (MPOL_F_NODE | MPOL_F_ADDR) and the policy of
   its range (MPOL_F_ADDR: 0 default, 1 preferred), or 0 with why in `why`. */
static int page_place(void *p, int *node, int *mode, char *why, size_t n)
{
    if (syscall(SYS_get_mempolicy, node, NULL, 0ul, p, 3ul) != 0 ||
        syscall(SYS_get_mempolicy, mode, NULL, 0ul, p, 2ul) != 0) {
        snprintf(why, n, "get_mempolicy: %s", strerror(errno));
        return 0;
    }
    return 1;
}

static int xrt_test_ndev; /* the child's device count */

/* Device d's properties, a host function's CPUs on its NULL stream and on a
   stream of its own, and the node of its memory. */
static int check_placed(int d, int node, const cpu_set_t *cpus)
{
    xrt_device_prop p;
    cpu_set_t seen[2];
    char why[128], name[64];
    void *m = NULL;
    int i, got = -1, mode = -1, known;
    CHILD_OK(xrt_set_device(d));
    CHILD_OK(xrt_get_device_properties(&p, d));
    if (p.numa_node != node) CHILD_FAIL("device %d: numa_node %d, not %d", d, p.numa_node, node);
    if (node >= 0) snprintf(name, sizeof name, "CPU device %d of %d, NUMA node %d: ", d, xrt_test_ndev, node);
    else snprintf(name, sizeof name, "CPU device %d of %d: ", d, xrt_test_ndev);
    if (xrt_test_ndev > 1 && strncmp(p.name, name, strlen(name)) != 0)
        CHILD_FAIL("device %d is named \"%s\", not \"%s...\"", d, p.name, name);
    note_host_fn_affinities(seen);
    for (i = 0; i < 2; i++)
        if (!CPU_EQUAL(&seen[i], cpus))
            CHILD_FAIL("device %d: a host function on its %s ran on %d CPUs, not on node %d's %d", d,
                       i ? "stream" : "NULL stream", CPU_COUNT(&seen[i]), node, CPU_COUNT(cpus));
    CHILD_OK(xrt_malloc(&m, 1 << 20));
    CHILD_OK(xrt_memset(m, 1, 1 << 20));
    CHILD_OK(xrt_device_synchronize()); /* a set of device memory may return before its bytes are written (CUDA's rule) */
    known = page_place((char *)m + (1 << 19), &got, &mode, why, sizeof why);
    CHILD_OK(xrt_free(m));
    if (!known) fprintf(stderr, "skipped: device %d's memory placement not checked: %s\n", d, why);
    else if (mode != (node >= 0)) CHILD_FAIL("device %d: its memory's policy is %d, not %d", d, mode, node >= 0);
    else if (node >= 0 && got != node) CHILD_FAIL("device %d: its memory is on node %d, not %d", d, got, node);
    return 0;
}

static int numa_here_child(void *arg)
{
    cpu_set_t cpus;
    char rel[64];
    int ids[64], n = online_nodes(ids), d;
    (void)arg;
    if (n < 1) CHILD_FAIL("%s/devices/system/node/online lists no node", sysfs_root());
    xrt_shutdown();
    setenv("XRT_CPU_DEVICES", "numa", 1);
    xrt_test_log_calls();
    CHILD_OK(xrt_set_backend("cpu"));
    CHILD_OK(xrt_get_device_count(&xrt_test_ndev));
    if (xrt_test_ndev != n) CHILD_FAIL("XRT_CPU_DEVICES=numa gave %d devices for %d nodes", xrt_test_ndev, n);
    for (d = 0; d < n; d++) {
        snprintf(rel, sizeof rel, "node%d/cpulist", ids[d]);
        if (!read_ids(rel, &cpus)) CHILD_FAIL("cannot read node %d's CPUs", ids[d]);
        check_placed(d, ids[d], &cpus);
        if (!node_meminfo(ids[d], "MemTotal")) CHILD_FAIL("cannot read node %d's MemTotal", ids[d]);
        check_size(d, node_meminfo(ids[d], "MemTotal"), CPU_COUNT(&cpus) ? CPU_COUNT(&cpus) : (int)sysconf(_SC_NPROCESSORS_ONLN));
    }
    if (xrt_test_log.count) CHILD_FAIL("%d log lines, the last \"%s\"", xrt_test_log.count, xrt_test_log.last);
    xrt_shutdown();
    return 0;
}

/* A count places nothing: numa_node -1, the workers where the process runs. */
static int count_unplaced_child(void *arg)
{
    cpu_set_t all;
    (void)arg;
    xrt_shutdown();
    setenv("XRT_CPU_DEVICES", "2", 1);
    CHILD_OK(xrt_set_backend("cpu"));
    CHILD_OK(xrt_get_device_count(&xrt_test_ndev));
    pthread_getaffinity_np(pthread_self(), sizeof all, &all);
    check_placed(1, -1, &all);
    xrt_shutdown();
    return 0;
}

static void test_numa_devices_on_this_machine(void **state)
{
    child_case cases[2];
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "XRT_CPU_DEVICES is the CPU backend's"); /* its children select cpu */
    cases[0] = (child_case){"XRT_CPU_DEVICES=numa on this machine's nodes", numa_here_child, NULL};
    cases[1] = (child_case){"XRT_CPU_DEVICES=2 places nothing", count_unplaced_child, NULL};
    run_cases("XRT_CPU_DEVICES=numa", cases, 2, 30);
}

/* A fake tree under a temporary root: node/online and each node's cpulist. */
static char fake_root[256];

static void fake_file(const char *rel, const char *text)
{
    char path[600], cmd[700];
    FILE *f;
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s/%s')\"", fake_root, rel);
    if (system(cmd) != 0) CHILD_FAIL("%s", cmd);
    snprintf(path, sizeof path, "%s/%s", fake_root, rel);
    if (!(f = fopen(path, "w")) || fputs(text, f) < 0 || fclose(f) != 0) CHILD_FAIL("cannot write %s", path);
}

static void fake_tree(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(fake_root, sizeof fake_root, "%s/xrt-numa-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(fake_root)) CHILD_FAIL("mkdtemp: %s", strerror(errno));
    xrt__sysfs_root = fake_root;
}

static void fake_tree_gone(void)
{
    char cmd[300];
    xrt__sysfs_root = "/sys";
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fake_root);
    if (system(cmd) != 0) CHILD_FAIL("%s", cmd);
}

static int numa_start(void)
{
    int n = -1;
    xrt_shutdown();
    setenv("XRT_CPU_DEVICES", "numa", 1);
    xrt_test_log_calls();
    CHILD_OK(xrt_set_backend("cpu"));
    CHILD_OK(xrt_get_device_count(&n));
    return n;
}

/* Nodes 0 and 2 (a gap): devices 0 and 1. Node 2 is one the kernel does
   not have: its workers run on the CPU its cpulist names, and its memory
   stays unplaced with one warning, however many allocations. */
static int numa_gap_child(void *arg)
{
    cpu_set_t cpus01, seen;
    char want[160];
    size_t free_bytes, total_bytes;
    void *m[3];
    int i;
    (void)arg;
    CPU_ZERO(&cpus01);
    CPU_SET(0, &cpus01);
    CPU_SET(1, &cpus01);
    fake_tree();
    fake_file("devices/system/node/online", "0,2\n");
    fake_file("devices/system/node/node0/cpulist", "0-1\n");
    fake_file("devices/system/node/node2/cpulist", "0\n");
    fake_file("devices/system/node/node0/meminfo", "Node 0 MemTotal:        2048 kB\nNode 0 MemFree:         1024 kB\n");
    if ((xrt_test_ndev = numa_start()) != 2) CHILD_FAIL("nodes 0,2 gave %d devices", xrt_test_ndev);
    if (xrt_test_log.count) CHILD_FAIL("%d log lines at start, the last \"%s\"", xrt_test_log.count, xrt_test_log.last);
    check_placed(0, 0, &cpus01);
    if (xrt_test_log.count) CHILD_FAIL("device 0 logged \"%s\"", xrt_test_log.last);
    CPU_CLR(1, &cpus01); /* node 2's CPUs: CPU 0 */
    CHILD_OK(xrt_set_device(1));
    CHILD_OK(xrt_launch_host_func(NULL, note_affinity, &seen));
    CHILD_OK(xrt_stream_synchronize(NULL));
    if (!CPU_EQUAL(&seen, &cpus01)) CHILD_FAIL("device 1's host function ran on %d CPUs, not on CPU 0", CPU_COUNT(&seen));
    for (i = 0; i < 3; i++) {
        CHILD_OK(xrt_set_device(1));
        CHILD_OK(xrt_malloc(&m[i], 4096 << i));
        CHILD_OK(xrt_memset(m[i], 7, 4096 << i));
    }
    for (i = 0; i < 3; i++) CHILD_OK(xrt_free(m[i]));
    /* node 0's size is its own; node 2, without a meminfo, has the machine's memory */
    check_size(0, 2048 * 1024, 2);
    check_size(1, (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE), 1);
    CHILD_OK(xrt_set_device(0));
    CHILD_OK(xrt_malloc(&m[0], 1536 * 1024)); /* node 0's free memory, less what device 0 holds */
    CHILD_OK(xrt_mem_get_info(&free_bytes, &total_bytes));
    CHILD_OK(xrt_free(m[0]));
    if (free_bytes != 512 * 1024) CHILD_FAIL("device 0 holding 1.5 of node 0's 2 MiB: %zu bytes free", free_bytes);
    CHILD_OK(xrt_mem_get_info(&free_bytes, &total_bytes));
    if (free_bytes != 1024 * 1024) CHILD_FAIL("node 0's MemFree is 1 MiB: %zu bytes free", free_bytes);
    snprintf(want, sizeof want, "cpu: device 1 is not placed on NUMA node 2: mbind: %s; it runs unplaced",
             strerror(EINVAL));
    if (xrt_test_log.count != 1 || xrt_test_log.level != XRT_LOG_WARN || strcmp(xrt_test_log.last, want) != 0)
        CHILD_FAIL("%d log lines, the last \"%s\", not one \"%s\"", xrt_test_log.count, xrt_test_log.last, want);
    xrt_shutdown();
    fake_tree_gone();
    return 0;
}

/* node/online that is missing, empty, not a list or over 64 nodes: one
   warning naming the file and why, one unplaced device. */
static int numa_bad_online_child(void *arg)
{
    static const struct { const char *text, *why; } cases[] = {
        {NULL, "No such file or directory"},
        {"", "lists 0 nodes (1 to 64 are valid)"},
        {"zero\n", "not a list of numbers ('zero')"},
        {"\n", "lists 0 nodes (1 to 64 are valid)"}, /* not right after "": a warning repeated at once is not */
        {"0,\n", "not a list of numbers ('0,')"},
        {"0-\n", "not a list of numbers ('0-')"},
        {"3-1\n", "a range runs backwards ('3-1')"},
        {"0 1\n", "not a list of numbers ('0 1')"},
        {"0-64\n", "lists 65 nodes (1 to 64 are valid)"},
        {"2000\n", "a number past 1023 ('2000')"},
        {"99999999999999999999999\n", "a number past 1023 ('99999999999999999999999')"},
    };
    xrt_device_prop p;
    char want[700];
    size_t i;
    int n;
    (void)arg;
    fake_tree();
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[600];
        snprintf(path, sizeof path, "%s/devices/system/node/online", fake_root);
        unlink(path);
        if (cases[i].text) fake_file("devices/system/node/online", cases[i].text);
        if ((n = numa_start()) != 1) CHILD_FAIL("online \"%s\" gave %d devices", cases[i].text ? cases[i].text : "(none)", n);
        snprintf(want, sizeof want, "XRT_CPU_DEVICES=numa: %s%s%s; 1 device, not placed", path,
                 cases[i].text && cases[i].why[0] == 'l' ? " " : ": ", cases[i].why);
        if (xrt_test_log.count != 1 || xrt_test_log.level != XRT_LOG_WARN || strcmp(xrt_test_log.last, want) != 0)
            CHILD_FAIL("online \"%s\": %d log lines, the last \"%s\", not one \"%s\"", cases[i].text ? cases[i].text : "(none)",
                       xrt_test_log.count, xrt_test_log.last, want);
        CHILD_OK(xrt_get_device_properties(&p, 0));
        if (p.numa_node != -1) CHILD_FAIL("online \"%s\": numa_node %d", cases[i].text ? cases[i].text : "(none)", p.numa_node);
    }
    xrt_shutdown();
    fake_tree_gone();
    return 0;
}

/* A node whose cpulist is not valid: its device works, its memory placed,
   its workers not, with one warning naming the file. */
static int numa_bad_cpulist_child(void *arg)
{
    xrt_device_prop p;
    char want[700];
    void *m = NULL;
    (void)arg;
    fake_tree();
    fake_file("devices/system/node/online", "0\n");
    fake_file("devices/system/node/node0/cpulist", "0-x\n");
    if (numa_start() != 1) CHILD_FAIL("node 0 gave no device");
    snprintf(want, sizeof want,
             "XRT_CPU_DEVICES=numa: %s/devices/system/node/node0/cpulist: not a list of numbers ('0-x'); device 0's "
             "workers not placed",
             fake_root);
    if (xrt_test_log.count != 1 || xrt_test_log.level != XRT_LOG_WARN || strcmp(xrt_test_log.last, want) != 0)
        CHILD_FAIL("%d log lines, the last \"%s\", not one \"%s\"", xrt_test_log.count, xrt_test_log.last, want);
    CHILD_OK(xrt_get_device_properties(&p, 0));
    if (p.numa_node != 0) CHILD_FAIL("numa_node %d, not 0", p.numa_node);
    CHILD_OK(xrt_malloc(&m, 4096));
    CHILD_OK(xrt_memset(m, 1, 4096));
    CHILD_OK(xrt_free(m));
    if (xrt_test_log.count != 1) CHILD_FAIL("node 0's memory logged \"%s\"", xrt_test_log.last);
    xrt_shutdown();
    fake_tree_gone();
    return 0;
}

/* The process restricted to one CPU `a` of two allowed, a and b (taskset,
   a cgroup's cpuset): node 0's CPUs a,b leave device 0's workers on a;
   node 1, whose only CPU is b, leaves device 1's workers unplaced (where
   the process may run: on a), with one warning. */
static int numa_restricted_child(void *arg)
{
    static const char want_fmt[] = "XRT_CPU_DEVICES=numa: none of node 1's CPUs is in the process's affinity mask "
                                   "(sched_getaffinity); device 1's workers not placed";
    cpu_set_t allowed, only_a, seen[2];
    char list[64];
    xrt_device_prop p;
    int a = -1, b = -1, i, d;
    (void)arg;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) CHILD_FAIL("sched_getaffinity: %s", strerror(errno));
    for (i = 0; i < CPU_SETSIZE && b < 0; i++)
        if (CPU_ISSET(i, &allowed)) *(a < 0 ? &a : &b) = i;
    if (b < 0) {
        fprintf(stderr, "skipped: a restricted affinity mask needs two CPUs to choose from\n");
        return 0;
    }
    CPU_ZERO(&only_a);
    CPU_SET(a, &only_a);
    if (sched_setaffinity(0, sizeof only_a, &only_a) != 0) CHILD_FAIL("sched_setaffinity: %s", strerror(errno));
    fake_tree();
    fake_file("devices/system/node/online", "0-1\n");
    snprintf(list, sizeof list, "%d,%d\n", a, b);
    fake_file("devices/system/node/node0/cpulist", list);
    snprintf(list, sizeof list, "%d\n", b);
    fake_file("devices/system/node/node1/cpulist", list);
    if ((xrt_test_ndev = numa_start()) != 2) CHILD_FAIL("nodes 0-1 gave %d devices", xrt_test_ndev);
    if (xrt_test_log.count != 1 || xrt_test_log.level != XRT_LOG_WARN || strcmp(xrt_test_log.last, want_fmt) != 0)
        CHILD_FAIL("%d log lines, the last \"%s\", not one \"%s\"", xrt_test_log.count, xrt_test_log.last, want_fmt);
    for (d = 0; d < 2; d++) {
        CHILD_OK(xrt_set_device(d));
        note_host_fn_affinities(seen);
        for (i = 0; i < 2; i++)
            if (!CPU_EQUAL(&seen[i], &only_a))
                CHILD_FAIL("device %d: a host function on its %s ran on %d CPUs (CPU %d %s), not on CPU %d alone", d,
                           i ? "stream" : "NULL stream", CPU_COUNT(&seen[i]), b, CPU_ISSET(b, &seen[i]) ? "among them" : "not",
                           a);
    }
    CHILD_OK(xrt_get_device_properties(&p, 0));
    if (p.multiprocessor_count != 1 || p.numa_node != 0)
        CHILD_FAIL("device 0: %d CPUs, numa_node %d; not 1 and 0", p.multiprocessor_count, p.numa_node);
    if (xrt_test_log.count != 1) CHILD_FAIL("then \"%s\"", xrt_test_log.last);
    xrt_shutdown();
    fake_tree_gone();
    return 0;
}

static void test_numa_devices_on_fake_trees(void **state)
{
    child_case cases[4];
    (void)state;
    SKIP_UNLESS(on_cpu_backend(), "XRT_CPU_DEVICES is the CPU backend's"); /* its children select cpu */
    cases[0] = (child_case){"nodes 0 and 2, node 2 unknown to the kernel", numa_gap_child, NULL};
    cases[1] = (child_case){"node/online not valid", numa_bad_online_child, NULL};
    cases[2] = (child_case){"a node's cpulist not valid", numa_bad_cpulist_child, NULL};
    cases[3] = (child_case){"the process restricted to fewer CPUs than a node has", numa_restricted_child, NULL};
    run_cases("XRT_CPU_DEVICES=numa on fake trees", cases, 4, 30);
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

static void test_allocation_device_recorded(void **state)
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

/* A stream-ordered allocation comes from the stream's device (CUDA's and
   HIP's rule), whichever device is current: the registry records that one. */
static void test_async_allocation_on_streams_device(void **state)
{
    int n = devices();
    xrt_stream s;
    void *p;
    (void)state;
    SKIP_UNLESS(n >= 2, "one device");
    SKIP_UNLESS(caps() & XRT_CAP_MALLOC_ASYNC, "no stream-ordered allocation");
    OK(xrt_set_device(n - 1));
    OK(xrt_stream_create(&s));
    OK(xrt_set_device(0));
    OK(xrt_malloc_async(&p, 64, s));
    assert_allocated_on(p, n - 1);
    OK(xrt_memset_async(p, 0, 64, s));
    OK(xrt_free_async(p, s));
    OK(xrt_stream_synchronize(s));
    OK(xrt_malloc_async(&p, 64, NULL)); /* the NULL stream: the current device's */
    assert_allocated_on(p, 0);
    OK(xrt_free_async(p, NULL));
    OK(xrt_stream_synchronize(NULL));
    OK(xrt_stream_destroy(s));
}

/* >> XRT_STREAM_PER_THREAD is the calling thread's stream of the current
   device: a capture begun on device 0's is not device 1's, which captures
   on its own at the same time; each ends on its device, with its own
   allocation (xrt keeps the captures by thread and device). */
static void test_per_thread_capture_per_device(void **state)
{
    xrt_graph g0 = NULL, g1 = NULL, none;
    xrt_capture_status cs;
    void *p0 = NULL, *p1 = NULL;
    (void)state;
    SKIP_UNLESS(devices() >= 2, "one device");
    SKIP_UNLESS(caps() & XRT_CAP_GRAPHS, "no graphs");
    SKIP_UNLESS(caps() & XRT_CAP_MALLOC_ASYNC, "no stream-ordered allocation");
    OK(xrt_set_device(0));
    OK(xrt_stream_begin_capture(XRT_STREAM_PER_THREAD, XRT_CAPTURE_MODE_RELAXED));
    OK(xrt_malloc_async(&p0, 64, XRT_STREAM_PER_THREAD));
    OK(xrt_memset_async(p0, 1, 64, XRT_STREAM_PER_THREAD));
    OK(xrt_set_device(1));
    OK(xrt_stream_is_capturing(XRT_STREAM_PER_THREAD, &cs));
    assert_int_equal(cs, XRT_CAPTURE_STATUS_NONE);
    FAILS(xrt_stream_end_capture(XRT_STREAM_PER_THREAD, &none), XRT_ERROR_ILLEGAL_STATE, "");
    OK(xrt_stream_begin_capture(XRT_STREAM_PER_THREAD, XRT_CAPTURE_MODE_RELAXED));
    OK(xrt_malloc_async(&p1, 64, XRT_STREAM_PER_THREAD));
    OK(xrt_stream_end_capture(XRT_STREAM_PER_THREAD, &g1));
    OK(xrt_graph_destroy(g1)); /* never launched: its allocation goes with it */
    FAILS(xrt_free(p1), XRT_ERROR_INVALID_VALUE, "already freed");
    OK(xrt_set_device(0));
    OK(xrt_stream_is_capturing(XRT_STREAM_PER_THREAD, &cs));
    assert_int_equal(cs, XRT_CAPTURE_STATUS_ACTIVE);
    OK(xrt_stream_end_capture(XRT_STREAM_PER_THREAD, &g0));
    FAILS(xrt_free(p0), XRT_ERROR_INVALID_VALUE, "is allocated by each launch of a graph");
    OK(xrt_graph_destroy(g0));
}

/* >> attributes */
static int attribute(xrt_device_attr a, int device)
{
    int v = -12345;
    OK(xrt_device_get_attribute(&v, a, device));
    return v;
}

/* Every device's attributes agree with its properties and are in the ranges
   CUDA's are; on the CPU backend they are its launch limits, its cores and
   its host memory's (REFERENCE.md, "Device attributes"). */
static void test_device_attributes(void **state)
{
    static const xrt_device_attr flags[] = {
        XRT_DEVATTR_INTEGRATED, XRT_DEVATTR_CAN_MAP_HOST_MEMORY, XRT_DEVATTR_CONCURRENT_KERNELS,
        XRT_DEVATTR_UNIFIED_ADDRESSING, XRT_DEVATTR_STREAM_PRIORITIES_SUPPORTED, XRT_DEVATTR_MANAGED_MEMORY,
        XRT_DEVATTR_PAGEABLE_MEMORY_ACCESS, XRT_DEVATTR_CONCURRENT_MANAGED_ACCESS, XRT_DEVATTR_COOPERATIVE_LAUNCH,
        XRT_DEVATTR_HOST_REGISTER_SUPPORTED, XRT_DEVATTR_MEMORY_POOLS_SUPPORTED, XRT_DEVATTR_GPU_OVERLAP,
        XRT_DEVATTR_KERNEL_EXEC_TIMEOUT, XRT_DEVATTR_HOST_NATIVE_ATOMIC_SUPPORTED};
    int n = devices(), d;
    size_t i;
    (void)state;
    for (d = 0; d < n; d++) {
        xrt_device_prop p;
        int least = 0, greatest = 0;
        OK(xrt_get_device_properties(&p, d));
        assert_int_equal(attribute(XRT_DEVATTR_MULTIPROCESSOR_COUNT, d), p.multiprocessor_count);
        assert_int_equal(attribute(XRT_DEVATTR_WARP_SIZE, d), p.warp_size);
        assert_int_equal(attribute(XRT_DEVATTR_PCI_DOMAIN_ID, d), p.pci_domain_id);
        assert_int_equal(attribute(XRT_DEVATTR_PCI_BUS_ID, d), p.pci_bus_id);
        assert_int_equal(attribute(XRT_DEVATTR_PCI_DEVICE_ID, d), p.pci_device_id);
        assert_in_range(attribute(XRT_DEVATTR_MAX_THREADS_PER_BLOCK, d), 64, 1u << 20);
        assert_true(attribute(XRT_DEVATTR_MAX_THREADS_PER_MULTIPROCESSOR, d) >=
                    attribute(XRT_DEVATTR_MAX_THREADS_PER_BLOCK, d));
        assert_true(attribute(XRT_DEVATTR_MAX_BLOCK_DIM_X, d) >= 1 && attribute(XRT_DEVATTR_MAX_BLOCK_DIM_Z, d) >= 1);
        assert_true(attribute(XRT_DEVATTR_MAX_GRID_DIM_X, d) >= 65535 && attribute(XRT_DEVATTR_MAX_GRID_DIM_Y, d) >= 1);
        assert_true(attribute(XRT_DEVATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, d) >=
                    attribute(XRT_DEVATTR_MAX_SHARED_MEMORY_PER_BLOCK, d));
        assert_true(attribute(XRT_DEVATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, d) >=
                    attribute(XRT_DEVATTR_MAX_SHARED_MEMORY_PER_BLOCK, d));
        assert_true(attribute(XRT_DEVATTR_MAX_PITCH, d) > 0);
        assert_true(attribute(XRT_DEVATTR_CLOCK_RATE, d) >= 0 && attribute(XRT_DEVATTR_L2_CACHE_SIZE, d) >= 0);
        for (i = 0; i < sizeof flags / sizeof flags[0]; i++) assert_in_range(attribute(flags[i], d), 0, 1);
        OK(xrt_device_get_stream_priority_range(&least, &greatest));
        assert_int_equal(attribute(XRT_DEVATTR_STREAM_PRIORITIES_SUPPORTED, d), least != greatest);
        assert_int_equal(attribute(XRT_DEVATTR_MEMORY_POOLS_SUPPORTED, d), (caps() & XRT_CAP_MALLOC_ASYNC) != 0);
        assert_in_range(attribute(XRT_DEVATTR_COMPUTE_MODE, d), XRT_COMPUTE_MODE_DEFAULT,
                        XRT_COMPUTE_MODE_EXCLUSIVE_PROCESS);
        if (!on_cpu()) continue;
        assert_int_equal(attribute(XRT_DEVATTR_COMPUTE_MODE, d), XRT_COMPUTE_MODE_DEFAULT); /* shared by all */
        assert_int_equal(attribute(XRT_DEVATTR_KERNEL_EXEC_TIMEOUT, d), 0);                /* no watchdog */
        assert_int_equal(attribute(XRT_DEVATTR_GPU_OVERLAP, d), 1);
        assert_int_equal(attribute(XRT_DEVATTR_HOST_NATIVE_ATOMIC_SUPPORTED, d), 1);
        assert_int_equal(attribute(XRT_DEVATTR_MAX_THREADS_PER_BLOCK, d), 1024);
        assert_int_equal(attribute(XRT_DEVATTR_MAX_BLOCK_DIM_Z, d), 1024); /* only the product is limited */
        assert_int_equal(attribute(XRT_DEVATTR_MAX_GRID_DIM_X, d), 0x7fffffff);
        assert_int_equal(attribute(XRT_DEVATTR_MAX_GRID_DIM_Z, d), 65535);
        assert_int_equal(attribute(XRT_DEVATTR_MAX_SHARED_MEMORY_PER_BLOCK, d), 1 << 20);
        assert_int_equal(attribute(XRT_DEVATTR_COMPUTE_CAPABILITY_MAJOR, d), 0);
        assert_int_equal(attribute(XRT_DEVATTR_INTEGRATED, d), 1);
        assert_int_equal(attribute(XRT_DEVATTR_UNIFIED_ADDRESSING, d), 1);
        assert_int_equal(attribute(XRT_DEVATTR_PAGEABLE_MEMORY_ACCESS, d), 1);
        assert_int_equal(attribute(XRT_DEVATTR_COOPERATIVE_LAUNCH, d), 0);
        assert_int_equal(attribute(XRT_DEVATTR_NUMA_ID, d), p.numa_node);
        assert_true(attribute(XRT_DEVATTR_L2_CACHE_SIZE, d) == 0 ||
                    attribute(XRT_DEVATTR_L2_CACHE_SIZE, d) == (int)sysconf(_SC_LEVEL2_CACHE_SIZE));
    }
    if (strcmp(xrt_test_backend, "cuda") == 0) { /* the runtime's own values (the double's: an H100's) */
        assert_int_equal(attribute(XRT_DEVATTR_COMPUTE_CAPABILITY_MAJOR, 0), 9);
        assert_int_equal(attribute(XRT_DEVATTR_MAX_BLOCK_DIM_Z, 0), 64);
        assert_int_equal(attribute(XRT_DEVATTR_COMPUTE_MODE, 0), XRT_COMPUTE_MODE_DEFAULT);
        assert_int_equal(attribute(XRT_DEVATTR_KERNEL_EXEC_TIMEOUT, 0), 0);
        assert_int_equal(attribute(XRT_DEVATTR_HOST_NATIVE_ATOMIC_SUPPORTED, 0), 0); /* a PCIe H100 */
    }
}

static void test_device_attribute_errors(void **state)
{
    int n = devices(), v = 7;
    xrt_test_log_capture();
    (void)state;
    FAILS(xrt_device_get_attribute(NULL, XRT_DEVATTR_WARP_SIZE, 0), XRT_ERROR_INVALID_VALUE, "value is NULL");
    FAILS(xrt_device_get_attribute(&v, XRT_DEVATTR_WARP_SIZE, n), XRT_ERROR_INVALID_DEVICE, "out of range");
    FAILS(xrt_device_get_attribute(&v, XRT_DEVATTR_WARP_SIZE, -1), XRT_ERROR_INVALID_DEVICE, "device -1 is negative");
    FAILS(xrt_device_get_attribute(&v, (xrt_device_attr)0, 0), XRT_ERROR_INVALID_VALUE, "attribute 0 is no");
    FAILS(xrt_device_get_attribute(&v, (xrt_device_attr)44, 0), XRT_ERROR_INVALID_VALUE, "attribute 44 is no");
    FAILS(xrt_device_get_attribute(&v, XRT__DEVATTR_END, 0), XRT_ERROR_INVALID_VALUE, "is no xrt_device_attr");
    assert_int_equal(v, 0);
}

/* The driver's version as the runtime reported it at its probe (the
   backend's info); the CPU backend's is xrt's own. */
static void test_driver_version(void **state)
{
    int v = -1, i, count = 0;
    const char *name = NULL;
    xrt_test_log_capture();
    (void)state;
    OK(xrt_driver_get_version(&v));
    OK(xrt_get_backend(&name));
    OK(xrt_backend_count(&count));
    for (i = 0; i < count; i++) {
        xrt_backend_info info;
        OK(xrt_backend_get_info(i, &info));
        if (strcmp(info.name, name) == 0) assert_int_equal(v, info.library[0] ? info.driver_version : XRT_VERSION);
    }
    if (on_cpu()) assert_int_equal(v, XRT_VERSION);
    FAILS(xrt_driver_get_version(NULL), XRT_ERROR_INVALID_VALUE, "version is NULL");
}

/* >> device flags (issue 45 item 1): each device keeps its own; the get
   adds XRT_DEVICE_MAP_HOST, as CUDA's; a refused set changes nothing. */
static void test_device_flags_per_device(void **state)
{
    unsigned f = 0;
    int n = devices(), i;
    (void)state;
    for (i = 0; i < n; i++) {
        OK(xrt_set_device(i));
        OK(xrt_get_device_flags(&f));
        assert_int_equal(f, XRT_DEVICE_SCHEDULE_AUTO | XRT_DEVICE_MAP_HOST);
    }
    OK(xrt_set_device(1));
    OK(xrt_set_device_flags(XRT_DEVICE_SCHEDULE_SPIN));
    OK(xrt_set_device(0));
    OK(xrt_set_device_flags(XRT_DEVICE_SCHEDULE_BLOCKING_SYNC | XRT_DEVICE_LMEM_RESIZE_TO_MAX));
    OK(xrt_get_device_flags(&f));
    assert_int_equal(f, XRT_DEVICE_SCHEDULE_BLOCKING_SYNC | XRT_DEVICE_LMEM_RESIZE_TO_MAX | XRT_DEVICE_MAP_HOST);
    FAILS(xrt_set_device_flags(XRT_DEVICE_SCHEDULE_SPIN | XRT_DEVICE_SCHEDULE_YIELD), XRT_ERROR_INVALID_VALUE,
          "xrt_set_device_flags: flags 0x3 has more than one XRT_DEVICE_SCHEDULE_* bit");
    FAILS(xrt_set_device_flags(0x40), XRT_ERROR_INVALID_VALUE,
          "xrt_set_device_flags: flags 0x40 has bits other than XRT_DEVICE_SCHEDULE_*, _MAP_HOST, _LMEM_RESIZE_TO_MAX");
    OK(xrt_get_device_flags(&f));
    assert_int_equal(f, XRT_DEVICE_SCHEDULE_BLOCKING_SYNC | XRT_DEVICE_LMEM_RESIZE_TO_MAX | XRT_DEVICE_MAP_HOST);
    OK(xrt_set_device(1));
    OK(xrt_get_device_flags(&f));
    assert_int_equal(f, XRT_DEVICE_SCHEDULE_SPIN | XRT_DEVICE_MAP_HOST);
    OK(xrt_set_device_flags(XRT_DEVICE_SCHEDULE_AUTO));
    OK(xrt_get_device_flags(&f));
    assert_int_equal(f, XRT_DEVICE_MAP_HOST);
    OK(xrt_set_device(0));
    OK(xrt_set_device_flags(0));
}

/* How the calling thread waited for a host function that sleeps 40 ms on
   device 1's stream, through a stream, event or device synchronize: its
   own CPU time and voluntary context switches (sleeps). */
typedef struct waited { double cpu_ms; long sleeps, yields; } waited;

/* The program's sched_yield comes before the C library's for xrt's calls
   too: it counts the calling thread's. */
static __thread long yields;
int sched_yield(void)
{
    yields++;
    return (int)syscall(SYS_sched_yield);
}

static void sleep_40ms(void *user)
{
    struct timespec ts = {0, 40000000};
    (void)user;
    nanosleep(&ts, NULL);
}

static double ms_of(struct timeval t) { return (double)t.tv_sec * 1e3 + (double)t.tv_usec / 1e3; }

/* The stream's synchronization policy (0: none set). */
static xrt_sync_policy sleeper_policy;

static waited wait_for_sleeper(int how)
{
    struct rusage a, b;
    xrt_stream s;
    xrt_event e;
    waited w;
    long y;
    OK(xrt_stream_create_with_priority(&s, XRT_STREAM_NON_BLOCKING, 0));
    if (sleeper_policy) {
        xrt_stream_attr_value v;
        v.sync_policy = sleeper_policy;
        OK(xrt_stream_set_attribute(s, XRT_STREAM_ATTR_SYNCHRONIZATION_POLICY, &v));
    }
    OK(xrt_event_create(&e, XRT_EVENT_DEFAULT));
    OK(xrt_launch_host_func(s, sleep_40ms, NULL));
    OK(xrt_event_record(e, s));
    getrusage(RUSAGE_THREAD, &a);
    y = yields;
    if (how == 0) OK(xrt_stream_synchronize(s));
    else if (how == 1) OK(xrt_event_synchronize(e));
    else OK(xrt_device_synchronize());
    w.yields = yields - y;
    getrusage(RUSAGE_THREAD, &b);
    OK(xrt_event_destroy(e));
    OK(xrt_stream_destroy(s));
    w.cpu_ms = ms_of(b.ru_utime) - ms_of(a.ru_utime) + ms_of(b.ru_stime) - ms_of(a.ru_stime);
    w.sleeps = b.ru_nvcsw - a.ru_nvcsw;
    return w;
}

/* On the CPU backend the schedule is the host's real wait: spin polls and
   never sleeps nor yields (but a contended lock may), yield polls through sched_yield and never sleeps,
   blocking sync sleeps at once (little CPU time; a loaded machine only
   lowers it); another device's schedule does not change this one's. A wait
   that misses is measured again, up to three times in all: a loaded
   machine can take a core from one wait, not from three. */
#define WAITED(cond, what)                                                                                   \
    for (tries = 1; !(cond) && tries < 3; tries++) w = wait_for_sleeper(i); /* a busy machine's one-off */    \
    if (!(cond))                                                                                             \
    fail_msg("%s, %s synchronize: %ld sleeps, %ld yields, %.1f ms of CPU", what, how[i], w.sleeps, w.yields, \
             w.cpu_ms)
static void test_device_flags_schedule_the_cpu_waits(void **state)
{
    static const char *const how[] = {"stream", "event", "device"};
    int i, tries;
    (void)state;
    SKIP_UNLESS(on_cpu(), "the CPU backend's waits");
    /* valgrind runs one thread at a time: a spinning waiter is put to sleep */
    SKIP_UNLESS(xrt_test_slowdown() == 1, "under valgrind, which runs one thread at a time");
    OK(xrt_set_device(0));
    OK(xrt_set_device_flags(XRT_DEVICE_SCHEDULE_BLOCKING_SYNC)); /* device 0's: not device 1's */
    OK(xrt_set_device(1));
    for (i = 0; i < 3; i++) {
        waited w;
        OK(xrt_set_device_flags(XRT_DEVICE_SCHEDULE_SPIN));
        w = wait_for_sleeper(i);
        /* a contended lock may yield, or sleep once (TSan's locks); a spin still burns the wait */
        WAITED(w.yields <= 2 && (w.sleeps == 0 || (w.sleeps == 1 && w.cpu_ms >= 20)), "spin");
        OK(xrt_set_device_flags(XRT_DEVICE_SCHEDULE_YIELD));
        w = wait_for_sleeper(i);
        /* one a poll: under load a yield can hand the core over for 5 ms */
        WAITED(w.sleeps == 0 && w.yields >= 3, "yield");
        OK(xrt_set_device_flags(XRT_DEVICE_SCHEDULE_BLOCKING_SYNC));
        w = wait_for_sleeper(i);
        WAITED(w.sleeps > 0 && w.cpu_ms < 20, "blocking sync");
        OK(xrt_set_device_flags(XRT_DEVICE_SCHEDULE_AUTO));
        w = wait_for_sleeper(i);
        WAITED(w.sleeps > 0, "auto"); /* it spins a while, then sleeps */
    }
    OK(xrt_set_device(0));
    OK(xrt_set_device_flags(XRT_DEVICE_SCHEDULE_AUTO));
}

/* A stream's synchronization policy (XRT_STREAM_ATTR_SYNCHRONIZATION_POLICY)
   is how a host thread waits in its synchronize, whatever the device's
   schedule (AUTO: the device's). */
static void test_stream_sync_policy_schedules_the_cpu_wait(void **state)
{
    static const char *const how[] = {"stream"};
    int i = 0, tries;
    waited w;
    (void)state;
    SKIP_UNLESS(on_cpu(), "the CPU backend's waits");
    SKIP_UNLESS(xrt_test_slowdown() == 1, "under valgrind, which runs one thread at a time");
    OK(xrt_set_device(0));
    OK(xrt_set_device_flags(XRT_DEVICE_SCHEDULE_BLOCKING_SYNC)); /* the stream's policy over the device's */
    sleeper_policy = XRT_SYNC_POLICY_SPIN;
    w = wait_for_sleeper(i);
    WAITED(w.yields <= 2 && (w.sleeps == 0 || (w.sleeps == 1 && w.cpu_ms >= 20)), "spin");
    sleeper_policy = XRT_SYNC_POLICY_YIELD;
    w = wait_for_sleeper(i);
    WAITED(w.sleeps == 0 && w.yields >= 3, "yield");
    OK(xrt_set_device_flags(XRT_DEVICE_SCHEDULE_SPIN));
    sleeper_policy = XRT_SYNC_POLICY_BLOCKING_SYNC;
    w = wait_for_sleeper(i);
    WAITED(w.sleeps > 0 && w.cpu_ms < 20, "blocking sync");
    sleeper_policy = XRT_SYNC_POLICY_AUTO; /* the device's: spin */
    w = wait_for_sleeper(i);
    WAITED(w.yields <= 2 && (w.sleeps == 0 || (w.sleeps == 1 && w.cpu_ms >= 20)), "auto, the device's spin");
    sleeper_policy = (xrt_sync_policy)0;
    OK(xrt_set_device_flags(XRT_DEVICE_SCHEDULE_AUTO));
}
#undef WAITED

/* >> device reset (issue 45 item 1): device 1's work is waited for, its
   memory (device, from a pool) freed and, on the CPU backend, its
   streams, events and pools destroyed (their handles then fail cleanly) and
   its peer access disabled both ways; device 0's memory and objects, and
   graphs, stay; device 1 works on. */
static void set_flag_later(void *user)
{
    struct timespec ts = {0, 20000000};
    nanosleep(&ts, NULL);
    __atomic_store_n((int *)user, 1, __ATOMIC_RELEASE);
}

static void test_device_reset_of_one_device(void **state)
{
    xrt_mem_pool_props props = {1, XRT_MEM_HANDLE_TYPE_NONE};
    xrt_stream s0, s1;
    xrt_event e0, e1;
    xrt_mem_pool pool = NULL, dflt = NULL;
    uint64_t reserved = 1;
    xrt_graph g;
    void *d0, *d1, *h1, *a1 = NULL;
    unsigned char back[64];
    int ran = 0, cpu = on_cpu();
    (void)state;
    OK(xrt_set_device(0));
    OK(xrt_malloc(&d0, 64));
    OK(xrt_stream_create(&s0));
    OK(xrt_event_create(&e0, 0));
    OK(xrt_device_enable_peer_access(1, 0));
    OK(xrt_set_device(1));
    OK(xrt_device_enable_peer_access(0, 0));
    OK(xrt_malloc(&d1, 64));
    OK(xrt_malloc_host(&h1, 64));
    OK(xrt_stream_create(&s1));
    OK(xrt_event_create(&e1, 0));
    OK(xrt_graph_create(&g, 0));
    if (cpu) { /* a created pool's allocation; the default pool keeps a freed block (threshold: all) */
        uint64_t all = UINT64_MAX;
        void *kept;
        OK(xrt_mem_pool_create(&pool, &props));
        OK(xrt_malloc_from_pool_async(&a1, 64, pool, s1));
        OK(xrt_device_get_default_mem_pool(&dflt, 1));
        OK(xrt_mem_pool_set_attribute(dflt, XRT_MEMPOOL_ATTR_RELEASE_THRESHOLD, &all));
        OK(xrt_malloc_async(&kept, 1 << 20, s1));
        OK(xrt_free_async(kept, s1));
    }
    OK(xrt_launch_host_func(s1, set_flag_later, &ran));
    OK(xrt_event_record(e1, s1));
    OK(xrt_device_reset());
    assert_int_equal(__atomic_load_n(&ran, __ATOMIC_ACQUIRE), 1); /* it waited for the device's work */
    FAILS(xrt_free(d1), XRT_ERROR_INVALID_VALUE, "xrt_free");
    OK(xrt_free_host(h1)); /* host memory: no device's */
    if (cpu) {
        FAILS(xrt_free(a1), XRT_ERROR_INVALID_VALUE, "xrt_free");
        FAILS(xrt_stream_synchronize(s1), XRT_ERROR_INVALID_HANDLE, "xrt_stream_synchronize");
        FAILS(xrt_event_query(e1), XRT_ERROR_INVALID_HANDLE, "xrt_event_query");
        FAILS(xrt_event_destroy(e1), XRT_ERROR_INVALID_HANDLE, "xrt_event_destroy");
        FAILS(xrt_stream_destroy(s1), XRT_ERROR_INVALID_HANDLE, "xrt_stream_destroy");
        FAILS(xrt_mem_pool_destroy(pool), XRT_ERROR_INVALID_HANDLE, "xrt_mem_pool_destroy");
        OK(xrt_mem_pool_get_attribute(dflt, XRT_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &reserved));
        assert_int_equal(reserved, 0);
        reserved = 0;
        OK(xrt_mem_pool_set_attribute(dflt, XRT_MEMPOOL_ATTR_RELEASE_THRESHOLD, &reserved)); /* as it was */
        OK(xrt_device_enable_peer_access(0, 0)); /* disabled by the reset */
        OK(xrt_device_disable_peer_access(0));
    } else { /* several GPUs: the runtime's objects carry no device xrt can read */
        OK(xrt_event_destroy(e1));
        OK(xrt_stream_destroy(s1));
    }
    OK(xrt_graph_destroy(g)); /* no device's */
    OK(xrt_malloc(&d1, sizeof back)); /* the device works on */
    OK(xrt_stream_create(&s1));
    OK(xrt_memset_async(d1, 7, sizeof back, s1));
    OK(xrt_memcpy_async(back, d1, sizeof back, XRT_MEMCPY_DEVICE_TO_HOST, s1));
    OK(xrt_stream_synchronize(s1));
    assert_int_equal(back[63], 7);
    OK(xrt_stream_destroy(s1));
    OK(xrt_free(d1));
    OK(xrt_set_device(0)); /* device 0's stay */
    OK(xrt_event_record(e0, s0));
    OK(xrt_event_synchronize(e0));
    OK(xrt_memset(d0, 1, 64));
    if (cpu) OK(xrt_device_enable_peer_access(1, 0)); /* its access to device 1 went too */
    OK(xrt_device_disable_peer_access(1));
    OK(xrt_event_destroy(e0));
    OK(xrt_stream_destroy(s0));
    OK(xrt_free(d0));
}

/* A device with work and no memory: the reset waits all the same (a free
   waits for the device's work; here none is freed). */
/* A device's stream that joined a capture begun on another device's
   stream is in that capture too: its device's synchronize and reset are
   refused (they would wait for it), and the capture is invalidated, as for
   a capture begun there. */
static void test_device_with_a_stream_in_another_devices_capture(void **state)
{
    xrt_stream s0, s1;
    xrt_event e0, e1;
    xrt_graph g = NULL;
    void *m1;
    (void)state;
    SKIP_UNLESS(devices() >= 2, "one device");
    SKIP_UNLESS(caps() & XRT_CAP_GRAPHS, "no graphs");
    OK(xrt_set_device(1));
    OK(xrt_stream_create(&s1));
    OK(xrt_event_create(&e1, 0));
    OK(xrt_malloc(&m1, 4096));
    OK(xrt_set_device(0));
    OK(xrt_stream_create(&s0));
    OK(xrt_event_create(&e0, 0));
    OK(xrt_stream_begin_capture(s0, XRT_CAPTURE_MODE_RELAXED));
    OK(xrt_event_record(e0, s0));
    OK(xrt_stream_wait_event(s1, e0)); /* device 1's stream joins */
    OK(xrt_memset_async(m1, 1, 4096, s1));
    OK(xrt_event_record(e1, s1));
    OK(xrt_stream_wait_event(s0, e1));
    OK(xrt_set_device(1));
    FAILS(xrt_device_synchronize(), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED, "xrt_device_synchronize");
    FAILS(xrt_device_reset(), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED, "xrt_device_synchronize"); /* it waits first */
    OK(xrt_set_device(0));
    FAILS(xrt_stream_end_capture(s0, &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED, "");
    assert_null(g);
    OK(xrt_stream_destroy(s0));
    OK(xrt_event_destroy(e0));
    OK(xrt_set_device(1));
    OK(xrt_stream_destroy(s1));
    OK(xrt_event_destroy(e1));
    OK(xrt_free(m1));
    OK(xrt_set_device(0));
}

static void test_device_reset_waits_without_memory(void **state)
{
    xrt_stream s;
    int ran = 0;
    (void)state;
    OK(xrt_set_device(1));
    OK(xrt_stream_create(&s));
    OK(xrt_launch_host_func(s, set_flag_later, &ran));
    OK(xrt_device_reset());
    assert_int_equal(__atomic_load_n(&ran, __ATOMIC_ACQUIRE), 1);
    if (xrt_stream_destroy(s) != XRT_SUCCESS) xrt_get_last_error(); /* destroyed by the reset where xrt can tell */
    OK(xrt_set_device(0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_count_and_names),
        cmocka_unit_test(test_a_thread_per_device),
        gated_test(test_null_stream_and_synchronize_per_device),
        cmocka_unit_test(test_stream_get_device),
        cmocka_unit_test(test_host_function_runs_on_its_streams_device),
        gated_test(test_wait_for_another_devices_event),
        cmocka_unit_test(test_elapsed_time_across_devices),
        cmocka_unit_test(test_launch_on_another_devices_stream),
        cmocka_unit_test(test_memory_freed_from_another_device),
        cmocka_unit_test(test_peer_copies_at_odd_sizes_and_offsets),
        cmocka_unit_test(test_peer_copy_in_a_graph),
        gated_test(test_peer_copy_serialized_not_waited_for),
        gated_test(test_peer_copy_of_zero_bytes_serialized),
        cmocka_unit_test(test_peer_copy_checks),
        cmocka_unit_test(test_peer_access),
        cmocka_unit_test(test_device_count_variable),
        cmocka_unit_test(test_numa_devices_on_this_machine),
        cmocka_unit_test(test_numa_devices_on_fake_trees),
        cmocka_unit_test(test_allocation_device_recorded),
        cmocka_unit_test(test_async_allocation_on_streams_device),
        cmocka_unit_test(test_per_thread_capture_per_device),
        cmocka_unit_test(test_stream_sync_policy_schedules_the_cpu_wait),
        cmocka_unit_test(test_device_attributes),
        cmocka_unit_test(test_device_attribute_errors),
        cmocka_unit_test(test_driver_version),
        cmocka_unit_test(test_device_flags_per_device),
        cmocka_unit_test(test_device_flags_schedule_the_cpu_waits),
        cmocka_unit_test(test_device_reset_of_one_device),
        cmocka_unit_test(test_device_with_a_stream_in_another_devices_capture),
        cmocka_unit_test(test_device_reset_waits_without_memory),
    };
    setenv("XRT_CPU_DEVICES", "4", 1); /* before xrt starts: the CPU backend reads it at init */
    setenv("XRT_CACHE", "off", 1);       /* the one kernel built here stays out of the user's cache */
    return xrt_test_run_on_backends("devices", tests, sizeof tests / sizeof tests[0], NULL);
}
