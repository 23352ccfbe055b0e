/* SPDX-License-Identifier: MIT */
/* The runtime suite: behaviour every backend shares, written once and run on
   every enabled and available backend (xrt_test_run_on_backends). Device
   memory is only touched through xrt calls, never dereferenced, so the same
   code is valid on a GPU. Backend-specific proofs live in test_cpu.c. */
#define XRT_IMPL /* white-box: the memory registry */
#include "xrt_test.h"

#include <sys/mman.h>

/* Every operation of XRT__BACKEND_OPS is a public call, xrt_<name>: one
   without it fails to compile here ("'xrt_<name>' undeclared"), one declared
   without its body fails as "used but never defined". */
#define PUBLIC_CALL(name, params, args) (void (*)(void))xrt_##name,
static void (*const public_calls[])(void) = {XRT__BACKEND_OPS(PUBLIC_CALL)};
#undef PUBLIC_CALL

static void test_every_operation_is_a_public_call(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < sizeof public_calls / sizeof public_calls[0]; i++) assert_non_null(public_calls[i]);
}

#define N 4133 /* odd on purpose: not a multiple of any vector width */

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    size_t i;
    for (i = 0; i < n; i++) p[i] = (unsigned char)(i * 131u + seed * 7u + 1u);
}

static void assert_filled(const unsigned char *p, size_t n, unsigned seed)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (p[i] != (unsigned char)(i * 131u + seed * 7u + 1u)) fail_msg("byte %zu differs", i);
}

/* >> devices */
static void test_device_count_get_set(void **state)
{
    int n = -1, d = -1, i;
    (void)state;
    OK(xrt_get_device_count(&n));
    assert_true(n >= 1);
    for (i = 0; i < n; i++) {
        OK(xrt_set_device(i));
        OK(xrt_get_device(&d));
        assert_int_equal(d, i);
    }
    FAILS(xrt_set_device(n), XRT_ERROR_INVALID_DEVICE, "device");
    OK(xrt_get_device(&d));
    assert_int_equal(d, n - 1); /* a failed set keeps the current device */
    OK(xrt_set_device(0));
}

/* Device flags, each call once (tests/test_devices.c has the rest). */
static void test_device_flags(void **state)
{
    unsigned f = 0;
    (void)state;
    OK(xrt_set_device_flags(XRT_DEVICE_SCHEDULE_YIELD));
    OK(xrt_get_device_flags(&f));
    assert_int_equal(f, XRT_DEVICE_SCHEDULE_YIELD | XRT_DEVICE_MAP_HOST);
    OK(xrt_device_synchronize());
    OK(xrt_set_device_flags(XRT_DEVICE_SCHEDULE_AUTO));
}

/* Device limits (cudaDeviceSetLimit, cudaDeviceGetLimit): CUDA's defaults
   for the stack, printf FIFO and malloc heap (the CPU backend keeps them;
   the CUDA double answers as a runtime); a set value is read back; the
   device runtime's and L2 limits are unsupported on the CPU; a reset
   restores the defaults. */
/* The L1/shared-memory preference (cudaDeviceSetCacheConfig,
   cudaDeviceGetCacheConfig): none until set; then the one set, but on a
   device whose split is fixed (a CPU's), which answers none ("will return
   ... cudaFuncCachePreferNone on devices where the size of the L1 cache and
   shared memory are fixed"); none again after a device reset; an unknown
   one is refused. The CUDA double is of compute capability 9.0, whose split
   is configurable. */
static void test_cache_config(void **state)
{
    xrt_func_cache c = XRT_FUNC_CACHE_PREFER_EQUAL;
    xrt_status st;
    (void)state;
    st = xrt_device_get_cache_config(&c);
    if (st == XRT_ERROR_UNSUPPORTED) xrt_get_last_error();
    SKIP_UNLESS(st != XRT_ERROR_UNSUPPORTED, "the runtime has no cache preference");
    OK(st);
    assert_int_equal(c, XRT_FUNC_CACHE_PREFER_NONE);
    OK(xrt_device_set_cache_config(XRT_FUNC_CACHE_PREFER_SHARED));
    OK(xrt_device_get_cache_config(&c));
    assert_int_equal(c, on_cpu() ? XRT_FUNC_CACHE_PREFER_NONE : XRT_FUNC_CACHE_PREFER_SHARED);
    OK(xrt_device_reset());
    OK(xrt_device_get_cache_config(&c));
    assert_int_equal(c, XRT_FUNC_CACHE_PREFER_NONE);
    FAILS(xrt_device_set_cache_config((xrt_func_cache)4), XRT_ERROR_INVALID_VALUE, "none of XRT_FUNC_CACHE_*");
    FAILS(xrt_device_set_cache_config((xrt_func_cache)-1), XRT_ERROR_INVALID_VALUE, "none of XRT_FUNC_CACHE_*");
    FAILS(xrt_device_get_cache_config(NULL), XRT_ERROR_INVALID_VALUE, "config is NULL");
}

/* GPUDirect RDMA: a device says whether a NIC may write its memory
   directly, whether xrt_device_flush_gpu_direct_rdma_writes works (the
   flush options' host bit) and within which scope such writes need no
   flush; the flush then works in both scopes. A CPU device's memory is host
   memory: supported, flushed by the host, ordered for every device. HIP
   has none of this (XRT_ERROR_UNSUPPORTED). */
static void test_gpu_direct_rdma_writes(void **state)
{
    int supported = -1, options = -1, ordering = -1;
    xrt_status st;
    (void)state;
    st = xrt_device_get_attribute(&supported, XRT_DEVATTR_GPU_DIRECT_RDMA_SUPPORTED, 0);
    if (st == XRT_ERROR_UNSUPPORTED) xrt_get_last_error();
    SKIP_UNLESS(st != XRT_ERROR_UNSUPPORTED, "the runtime has no GPUDirect RDMA attributes");
    OK(st);
    OK(xrt_device_get_attribute(&options, XRT_DEVATTR_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS, 0));
    OK(xrt_device_get_attribute(&ordering, XRT_DEVATTR_GPU_DIRECT_RDMA_WRITES_ORDERING, 0));
    assert_true(supported == 0 || supported == 1);
    assert_int_equal(options & ~(XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST | XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_MEMOPS), 0);
    assert_true(ordering == XRT_GPU_DIRECT_RDMA_WRITES_ORDERING_NONE || ordering == XRT_GPU_DIRECT_RDMA_WRITES_ORDERING_OWNER ||
                ordering == XRT_GPU_DIRECT_RDMA_WRITES_ORDERING_ALL_DEVICES);
    if (on_cpu()) {
        assert_int_equal(supported, 1);
        assert_int_equal(options, XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST);
        assert_int_equal(ordering, XRT_GPU_DIRECT_RDMA_WRITES_ORDERING_ALL_DEVICES);
    }
    if (options & XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST) {
        OK(xrt_device_flush_gpu_direct_rdma_writes(XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_DEVICE,
                                                   XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER));
        OK(xrt_device_flush_gpu_direct_rdma_writes(XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_DEVICE,
                                                   XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_ALL_DEVICES));
    }
    FAILS(xrt_device_flush_gpu_direct_rdma_writes((xrt_flush_rdma_target)1, XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER),
          XRT_ERROR_INVALID_VALUE, "target 1 is not");
    FAILS(xrt_device_flush_gpu_direct_rdma_writes(XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_DEVICE,
                                                  (xrt_flush_rdma_scope)150),
          XRT_ERROR_INVALID_VALUE, "scope 150 is none of");
}

/* A capture's graph and dependencies, each call once: the stream follows
   a node added by hand. The rules: tests/test_graph.c. */
static void test_capture_graph_and_dependencies(void **state)
{
    xrt_stream s;
    xrt_capture_status cs = XRT_CAPTURE_STATUS_NONE;
    xrt_graph g = NULL, got;
    xrt_graph_node mine;
    const xrt_graph_node *deps = NULL;
    size_t n = 0;
    void *d;
    xrt_status st;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_GRAPHS, "the backend has no graphs");
    OK(xrt_stream_create_with_flags(&s, XRT_STREAM_NON_BLOCKING));
    OK(xrt_malloc(&d, 64));
    OK(xrt_stream_begin_capture(s, XRT_CAPTURE_MODE_THREAD_LOCAL));
    OK(xrt_memset_async(d, 1, 64, s));
    st = xrt_stream_get_capture_info_v2(s, &cs, NULL, &g, &deps, &n);
    if (st == XRT_ERROR_UNSUPPORTED) xrt_get_last_error();
    if (st == XRT_SUCCESS) {
        assert_int_equal(cs, XRT_CAPTURE_STATUS_ACTIVE);
        assert_int_equal(n, 1);
        OK(xrt_graph_add_empty_node(&mine, g, deps, n));
        OK(xrt_stream_update_capture_dependencies(s, &mine, 1, XRT_STREAM_SET_CAPTURE_DEPENDENCIES));
    }
    OK(xrt_memset_async(d, 2, 64, s));
    OK(xrt_stream_end_capture(s, &got));
    if (st == XRT_SUCCESS) assert_ptr_equal(got, g);
    OK(xrt_graph_destroy(got));
    OK(xrt_stream_destroy(s));
    OK(xrt_free(d));
    SKIP_UNLESS(st != XRT_ERROR_UNSUPPORTED, "the runtime does not tell a capture's graph");
    OK(st);
}

/* User objects (cudaUserObjectCreate & co), each call once: a graph takes
   a reference and gives it back, the caller's last release runs the
   destroy (on a GPU on the runtime's thread: waited for). The rules:
   tests/test_graph_nodes.c. HIP 5 has none. */
static void suite_uobj_destroy(void *user) { __atomic_add_fetch((int *)user, 1, __ATOMIC_RELEASE); }

static void test_user_objects(void **state)
{
    xrt_user_object o;
    xrt_graph g;
    int gone = 0, i;
    xrt_status st;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_GRAPHS, "the backend has no graphs");
    st = xrt_user_object_create(&o, &gone, suite_uobj_destroy, 1, XRT_USER_OBJECT_NO_DESTRUCTOR_SYNC);
    if (st == XRT_ERROR_UNSUPPORTED) xrt_get_last_error();
    SKIP_UNLESS(st != XRT_ERROR_UNSUPPORTED, "the runtime has no user objects");
    OK(st);
    st = xrt_graph_create(&g, 0);
    if (st == XRT_ERROR_UNSUPPORTED) xrt_get_last_error();
    if (st == XRT_SUCCESS) {
        OK(xrt_graph_retain_user_object(g, o, 2, 0));
        OK(xrt_graph_release_user_object(g, o, 1));
        OK(xrt_graph_destroy(g)); /* the graph's other reference */
    }
    OK(xrt_user_object_retain(o, 1));
    OK(xrt_user_object_release(o, 1));
    assert_int_equal(__atomic_load_n(&gone, __ATOMIC_ACQUIRE), 0);
    OK(xrt_user_object_release(o, 1));
    for (i = 0; i < 10000 && !__atomic_load_n(&gone, __ATOMIC_ACQUIRE); i++) sleep_ms(1);
    assert_int_equal(__atomic_load_n(&gone, __ATOMIC_ACQUIRE), 1);
}

/* Stream attributes (cudaStreamSetAttribute, cudaStreamGetAttribute):
   what a stream has before (no window, AUTO, its priority, domain 0 and the
   map {0, 1}), what is set after, a priority clamped to the range and seen
   by xrt_stream_get_priority, and the refusals of a bad attribute or value.
   The policy's effect on a wait: tests/test_devices.c. HIP 5 has none. */
static void test_stream_attributes(void **state)
{
    xrt_stream s;
    xrt_stream_attr_value v, got;
    int p = 1;
    static int window[256];
    xrt_status st;
    (void)state;
    OK(xrt_stream_create_with_priority(&s, XRT_STREAM_NON_BLOCKING, -1));
    st = xrt_stream_get_attribute(s, XRT_STREAM_ATTR_PRIORITY, &got);
    if (st == XRT_ERROR_UNSUPPORTED) {
        xrt_get_last_error();
        OK(xrt_stream_destroy(s));
        SKIP_UNLESS(0, "the runtime has no stream attributes");
    }
    OK(st);
    assert_int_equal(got.priority, -1);
    OK(xrt_stream_get_attribute(s, XRT_STREAM_ATTR_SYNCHRONIZATION_POLICY, &got));
    assert_int_equal(got.sync_policy, XRT_SYNC_POLICY_AUTO);
    OK(xrt_stream_get_attribute(s, XRT_STREAM_ATTR_ACCESS_POLICY_WINDOW, &got));
    assert_int_equal(got.access_policy_window.num_bytes, 0);
    OK(xrt_stream_get_attribute(s, XRT_STREAM_ATTR_MEM_SYNC_DOMAIN, &got));
    assert_int_equal(got.mem_sync_domain, 0);
    OK(xrt_stream_get_attribute(s, XRT_STREAM_ATTR_MEM_SYNC_DOMAIN_MAP, &got));
    assert_int_equal(got.mem_sync_domain_map.default_, 0);
    assert_int_equal(got.mem_sync_domain_map.remote, 1);
    memset(&v, 0, sizeof v);
    v.access_policy_window.base_ptr = window;
    v.access_policy_window.num_bytes = sizeof window;
    v.access_policy_window.hit_ratio = 0.5f;
    v.access_policy_window.hit_prop = XRT_ACCESS_PROPERTY_PERSISTING;
    v.access_policy_window.miss_prop = XRT_ACCESS_PROPERTY_STREAMING;
    OK(xrt_stream_set_attribute(s, XRT_STREAM_ATTR_ACCESS_POLICY_WINDOW, &v));
    OK(xrt_stream_get_attribute(s, XRT_STREAM_ATTR_ACCESS_POLICY_WINDOW, &got));
    assert_memory_equal(&got.access_policy_window, &v.access_policy_window, sizeof v.access_policy_window);
    v.sync_policy = XRT_SYNC_POLICY_BLOCKING_SYNC;
    OK(xrt_stream_set_attribute(s, XRT_STREAM_ATTR_SYNCHRONIZATION_POLICY, &v));
    OK(xrt_stream_get_attribute(s, XRT_STREAM_ATTR_SYNCHRONIZATION_POLICY, &got));
    assert_int_equal(got.sync_policy, XRT_SYNC_POLICY_BLOCKING_SYNC);
    v.mem_sync_domain = 1;
    OK(xrt_stream_set_attribute(s, XRT_STREAM_ATTR_MEM_SYNC_DOMAIN, &v));
    OK(xrt_stream_get_attribute(s, XRT_STREAM_ATTR_MEM_SYNC_DOMAIN, &got));
    assert_int_equal(got.mem_sync_domain, 1);
    v.priority = -99; /* clamped to the greatest, as at creation */
    OK(xrt_stream_set_attribute(s, XRT_STREAM_ATTR_PRIORITY, &v));
    OK(xrt_stream_get_priority(s, &p));
    assert_int_equal(p, -5);
    OK(xrt_launch_host_func(s, count_up, &p)); /* the stream works on, at its new priority */
    OK(xrt_stream_synchronize(s));
    assert_int_equal(p, -4);
    FAILS(xrt_stream_set_attribute(s, (xrt_stream_attr)2, &v), XRT_ERROR_INVALID_VALUE, "attribute 2 is none of");
    FAILS(xrt_stream_get_attribute(s, XRT_STREAM_ATTR_PRIORITY, NULL), XRT_ERROR_INVALID_VALUE, "value is NULL");
    v.access_policy_window.hit_ratio = 1.5f;
    FAILS(xrt_stream_set_attribute(s, XRT_STREAM_ATTR_ACCESS_POLICY_WINDOW, &v), XRT_ERROR_INVALID_VALUE,
          "hit_ratio 1.5 is not within 0 to 1");
    v.sync_policy = (xrt_sync_policy)5;
    FAILS(xrt_stream_set_attribute(s, XRT_STREAM_ATTR_SYNCHRONIZATION_POLICY, &v), XRT_ERROR_INVALID_VALUE,
          "sync_policy 5 is none of");
    v.mem_sync_domain = 2;
    FAILS(xrt_stream_set_attribute(s, XRT_STREAM_ATTR_MEM_SYNC_DOMAIN, &v), XRT_ERROR_INVALID_VALUE, "mem_sync_domain 2");
    OK(xrt_stream_get_attribute(s, XRT_STREAM_ATTR_ACCESS_POLICY_WINDOW, &got)); /* the refusals changed nothing */
    assert_true(got.access_policy_window.hit_ratio == 0.5f);
    OK(xrt_stream_destroy(s));
    FAILS(xrt_stream_get_attribute(s, XRT_STREAM_ATTR_PRIORITY, &got), XRT_ERROR_INVALID_HANDLE, "xrt_stream_get_attribute");
}

static void test_device_limits(void **state)
{
    static const size_t defaults[3] = {1024, (size_t)1 << 20, (size_t)8 << 20};
    int cpu_like = !xrt_test_backend || (strcmp(xrt_test_backend, "cuda") && strcmp(xrt_test_backend, "hip"));
    size_t v = 0, l2 = 0;
    int l;
    (void)state;
    for (l = XRT_LIMIT_STACK_SIZE; l <= XRT_LIMIT_MALLOC_HEAP_SIZE; l++) {
        OK(xrt_device_get_limit(&v, (xrt_limit)l));
        if (cpu_like) assert_int_equal(v, defaults[l]);
        OK(xrt_device_set_limit((xrt_limit)l, 4096 * (size_t)(l + 1)));
        OK(xrt_device_get_limit(&v, (xrt_limit)l));
        assert_int_equal(v, 4096 * (size_t)(l + 1));
    }
    if (cpu_like) {
        for (l = XRT_LIMIT_DEV_RUNTIME_SYNC_DEPTH; l <= XRT_LIMIT_PERSISTING_L2_CACHE_SIZE; l++) {
            FAILS(xrt_device_get_limit(&v, (xrt_limit)l), XRT_ERROR_UNSUPPORTED, "nothing behind it");
            FAILS(xrt_device_set_limit((xrt_limit)l, 1), XRT_ERROR_UNSUPPORTED, "nothing behind it");
        }
        OK(xrt_device_reset());
        OK(xrt_device_get_limit(&v, XRT_LIMIT_MALLOC_HEAP_SIZE));
        assert_int_equal(v, defaults[XRT_LIMIT_MALLOC_HEAP_SIZE]);
    }
    if (xrt_test_backend && !strcmp(xrt_test_backend, "cuda")) { /* a device of compute capability 9.0 */
        FAILS(xrt_device_get_limit(&v, XRT_LIMIT_DEV_RUNTIME_SYNC_DEPTH), XRT_ERROR_UNSUPPORTED, "cudaDeviceGetLimit");
        OK(xrt_device_get_limit(&v, XRT_LIMIT_MAX_L2_FETCH_GRANULARITY));
        OK(xrt_device_set_limit(XRT_LIMIT_MAX_L2_FETCH_GRANULARITY, 1000)); /* a hint, clamped to 128 bytes */
        OK(xrt_device_get_limit(&l2, XRT_LIMIT_MAX_L2_FETCH_GRANULARITY));
        assert_int_equal(l2, 128);
        OK(xrt_device_set_limit(XRT_LIMIT_MAX_L2_FETCH_GRANULARITY, v));
    }
    for (l = XRT_LIMIT_STACK_SIZE; l <= XRT_LIMIT_MALLOC_HEAP_SIZE; l++) OK(xrt_device_set_limit((xrt_limit)l, defaults[l]));
    FAILS(xrt_device_get_limit(NULL, XRT_LIMIT_STACK_SIZE), XRT_ERROR_INVALID_VALUE, "value is NULL");
    FAILS(xrt_device_get_limit(&v, (xrt_limit)7), XRT_ERROR_INVALID_VALUE, "none of XRT_LIMIT_*");
    FAILS(xrt_device_set_limit((xrt_limit)-1, 1), XRT_ERROR_INVALID_VALUE, "none of XRT_LIMIT_*");
}

/* Device reset, once: memory and a stream of the device go (tests/test_devices.c has the rest). */
static void test_device_reset(void **state)
{
    xrt_stream s;
    void *d;
    (void)state;
    OK(xrt_malloc(&d, 64));
    OK(xrt_stream_create(&s));
    OK(xrt_device_reset());
    FAILS(xrt_free(d), XRT_ERROR_INVALID_VALUE, "xrt_free");
    if (xrt_stream_destroy(s) != XRT_SUCCESS) xrt_get_last_error(); /* destroyed by the reset where xrt can tell */
    OK(xrt_malloc(&d, 64)); /* the device works on */
    OK(xrt_free(d));
    OK(xrt_device_synchronize());
}

static void test_device_properties(void **state)
{
    xrt_device_prop p;
    int n = 0, i;
    (void)state;
    OK(xrt_get_device_count(&n));
    for (i = 0; i < n; i++) {
        memset(&p, 0, sizeof p);
        OK(xrt_get_device_properties(&p, i));
        assert_true(p.name[0] != 0 && strlen(p.name) < sizeof p.name);
        assert_true(p.arch[0] != 0 && strlen(p.arch) < sizeof p.arch);
        assert_true(p.total_memory > 0);
        assert_true(p.warp_size > 0);
        assert_true(p.multiprocessor_count > 0);
        if (on_cpu()) { /* no PCI address, no UUID */
            static const unsigned char zero[sizeof p.uuid];
            assert_int_equal(p.pci_domain_id, 0);
            assert_int_equal(p.pci_bus_id, 0);
            assert_int_equal(p.pci_device_id, 0);
            assert_memory_equal(p.uuid, zero, sizeof zero);
            if (!getenv("XRT_CPU_DEVICES")) assert_int_equal(p.numa_node, -1); /* one device, not placed */
        } else if (on_gpu()) {
            static const unsigned char zero[sizeof p.uuid];
            assert_true(p.pci_bus_id > 0 || p.pci_device_id > 0 || p.pci_domain_id > 0); /* as nvidia-smi shows */
            assert_memory_not_equal(p.uuid, zero, sizeof zero);
            assert_true(p.numa_node >= -1); /* -1 where sysfs does not say */
        }
    }
    FAILS(xrt_get_device_properties(&p, n), XRT_ERROR_INVALID_DEVICE, "device");
}

static void test_capabilities(void **state)
{
    unsigned c = caps();
    unsigned known = XRT_CAP_PINNED_HOST | XRT_CAP_MALLOC_ASYNC | XRT_CAP_HOST_FUNC | XRT_CAP_EVENT_TIMING |
                     XRT_CAP_NATIVE_HANDLES | XRT_CAP_MODULES | XRT_CAP_GRAPHS;
    void *native = NULL;
    char needle[64];
    (void)state;
    assert_int_equal(c & ~known, 0);
    snprintf(needle, sizeof needle, "not supported by backend %s", current_backend());
    { /* the native NULL, legacy and per-thread streams are xrt's, everywhere */
        xrt_stream w = (xrt_stream)&native;
        OK(xrt_stream_from_native(&w, NULL));
        assert_null(w);
        OK(xrt_stream_from_native(&w, (void *)XRT_STREAM_LEGACY));
        assert_ptr_equal(w, XRT_STREAM_LEGACY);
        OK(xrt_stream_from_native(&w, (void *)XRT_STREAM_PER_THREAD));
        assert_ptr_equal(w, XRT_STREAM_PER_THREAD);
        assert_stream_works(w, 0x45);
    }
    if (!(c & XRT_CAP_NATIVE_HANDLES)) {
        xrt_stream w = (xrt_stream)&native;
        xrt_event e;
        FAILS(xrt_stream_get_native(NULL, &native), XRT_ERROR_UNSUPPORTED, needle);
        OK(xrt_event_create(&e, 0));
        FAILS(xrt_event_get_native(e, &native), XRT_ERROR_UNSUPPORTED, needle);
        FAILS(xrt_stream_wrap_native(&w, &native), XRT_ERROR_UNSUPPORTED, needle);
        assert_null(w);
        w = (xrt_stream)&native;
        FAILS(xrt_stream_from_native(&w, &native), XRT_ERROR_UNSUPPORTED, needle);
        assert_null(w);
        OK(xrt_event_destroy(e));
    } else {
        xrt_stream s, w, w2;
        xrt_event e;
        OK(xrt_stream_create(&s));
        OK(xrt_stream_get_native(s, &native));
        assert_non_null(native);
        OK(xrt_stream_wrap_native(&w, native)); /* not owned: destroying w leaves s alive */
        assert_stream_works(w, 0x42);
        OK(xrt_stream_destroy(w));
        /* one handle per native stream, nothing to destroy; made again
           if the program destroys it anyway */
        OK(xrt_stream_from_native(&w, native));
        OK(xrt_stream_from_native(&w2, native));
        assert_ptr_equal(w, w2);
        assert_stream_works(w2, 0x43);
        OK(xrt_stream_destroy(w));
        OK(xrt_stream_from_native(&w2, native));
        assert_non_null(w2);
        assert_stream_works(w2, 0x44);
        OK(xrt_stream_synchronize(s));
        OK(xrt_stream_destroy(s));
        OK(xrt_event_create(&e, 0));
        native = NULL;
        OK(xrt_event_get_native(e, &native));
        assert_non_null(native);
        OK(xrt_event_destroy(e));
    }
}

/* The current device's compile target: the backend that runs the code (a
   forwarding plugin's target's: the tracer's is "cpu"), an arch, a
   fingerprint. */
static void test_target(void **state)
{
    xrt_target t;
    (void)state;
    memset(&t, 0, sizeof t);
    OK(xrt_get_target(&t));
    if (strcmp(current_backend(), "trace") != 0) assert_string_equal(t.backend, current_backend());
    else assert_true(t.backend[0] != 0 && strcmp(t.backend, "trace") != 0);
    assert_true(t.arch[0] != 0);
    assert_true(t.vector_width > 0);
    assert_true(t.fingerprint == xrt_target_fingerprint(&t));
}

/* >> memory */
static void test_malloc_free(void **state)
{
    static const size_t sizes[] = {1, 100, 256, 4097, (size_t)1 << 20};
    void *p[sizeof sizes / sizeof sizes[0]];
    size_t i, j;
    (void)state;
    for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        OK(xrt_malloc(&p[i], sizes[i]));
        assert_non_null(p[i]);
        assert_int_equal((uintptr_t)p[i] % XRT_ALIGNMENT, 0);
        for (j = 0; j < i; j++) assert_ptr_not_equal(p[i], p[j]);
    }
    for (i = sizeof sizes / sizeof sizes[0]; i-- > 0;) OK(xrt_free(p[i]));
    OK(xrt_free(NULL));
}

static void test_malloc_host(void **state)
{
    void *p = (void *)&p;
    (void)state;
    if (!(caps() & XRT_CAP_PINNED_HOST)) {
        FAILS(xrt_malloc_host(&p, 64), XRT_ERROR_UNSUPPORTED, "xrt_malloc_host");
        assert_null(p);
        return;
    }
    OK(xrt_malloc_host(&p, N));
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % XRT_ALIGNMENT, 0);
    fill((unsigned char *)p, N, 3); /* pinned memory is host memory */
    assert_filled((unsigned char *)p, N, 3);
    OK(xrt_free_host(p));
    OK(xrt_free_host(NULL));
}

static void test_malloc_async(void **state)
{
    unsigned char h[N];
    xrt_stream s;
    void *p = (void *)&p;
    int k;
    (void)state;
    if (!(caps() & XRT_CAP_MALLOC_ASYNC)) {
        FAILS(xrt_malloc_async(&p, 64, NULL), XRT_ERROR_UNSUPPORTED, "xrt_malloc_async");
        assert_null(p);
        return;
    }
    OK(xrt_stream_create(&s));
    for (k = 0; k < 2; k++) { /* a created stream, then the NULL stream */
        xrt_stream on = k ? NULL : s;
        memset(h, 0, sizeof h);
        OK(xrt_malloc_async(&p, N, on));
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % XRT_ALIGNMENT, 0);
        OK(xrt_memset_async(p, 0x3c + k, N, on));
        OK(xrt_memcpy_async(h, p, N, XRT_MEMCPY_DEVICE_TO_HOST, on));
        OK(xrt_free_async(p, on));
        OK(xrt_stream_synchronize(on));
        assert_bytes(h, N, (unsigned char)(0x3c + k));
    }
    OK(xrt_free_async(NULL, s));
    OK(xrt_stream_destroy(s));
}

/* A /proc/meminfo field in bytes, read here on its own; 0 if absent. */
static size_t meminfo_bytes(const char *key)
{
    char line[256];
    unsigned long long kb = 0;
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, strlen(key)) == 0 && sscanf(line + strlen(key), ": %llu kB", &kb) == 1) break;
    fclose(f);
    return (size_t)kb * 1024;
}

static void test_mem_get_info(void **state)
{
    size_t free_bytes = 0, total = 0, before, after, slack;
    (void)state;
    before = meminfo_bytes("MemAvailable");
    OK(xrt_mem_get_info(&free_bytes, &total));
    after = meminfo_bytes("MemAvailable");
    assert_true(total > 0);
    assert_true(free_bytes <= total);
    /* REFERENCE.md: on the CPU, MemAvailable of physical memory (MemTotal);
       what is available moves between the reads, by a little */
    if (on_cpu() && meminfo_bytes("MemTotal")) {
        assert_int_equal(total, meminfo_bytes("MemTotal"));
        slack = total / 50;
        assert_true(free_bytes + slack >= (before < after ? before : after));
        assert_true(free_bytes <= (before > after ? before : after) + slack);
    }
}

static void test_memset(void **state)
{
    unsigned char h[N];
    void *d;
    unsigned char *dc;
    (void)state;
    OK(xrt_malloc(&d, N));
    dc = (unsigned char *)d;
    OK(xrt_memset(d, 0xab, N));
    OK(xrt_memcpy(h, d, N, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_bytes(h, N, 0xab);
    OK(xrt_memset(dc + 100, 0x11, 50)); /* an interior range */
    OK(xrt_memcpy(h, d, N, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_bytes(h, 100, 0xab);
    assert_bytes(h + 100, 50, 0x11);
    assert_bytes(h + 150, N - 150, 0xab);
    OK(xrt_memset(d, 0x1ff, 16)); /* only the low byte counts, as with cudaMemset */
    OK(xrt_memcpy(h, d, 16, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_bytes(h, 16, 0xff);
    OK(xrt_memset(d, 0, 0));
    OK(xrt_free(d));
}

/* Pitched memory: a 2-D copy there and back and 2-D memsets (each
   direction and odd geometry: tests/test_pitched.c). */
static void test_pitched_round_trip(void **state)
{
    unsigned char h[3 * 40], back[3 * 40];
    void *d;
    size_t pitch, i;
    (void)state;
    for (i = 0; i < sizeof h; i++) h[i] = (unsigned char)i;
    OK(xrt_malloc_pitch(&d, &pitch, 40, 3));
    OK(xrt_memset_2d(d, pitch, 0x11, 40, 3));
    OK(xrt_memcpy_2d(d, pitch, h, 40, 30, 3, XRT_MEMCPY_HOST_TO_DEVICE));
    OK(xrt_memset_2d_async(d, pitch, 0x22, 2, 3, NULL));
    OK(xrt_memcpy_2d_async(back, 40, d, pitch, 40, 3, XRT_MEMCPY_DEVICE_TO_HOST, NULL));
    OK(xrt_stream_synchronize(NULL));
    for (i = 0; i < sizeof h; i++)
        assert_int_equal(back[i], i % 40 < 2 ? 0x22 : i % 40 < 30 ? h[i] : 0x11);
    OK(xrt_free(d));
}

/* 3-D memory: a box there and back and 3-D memsets (each direction and odd
   geometry: tests/test_pitched.c). */
static void test_3d_round_trip(void **state)
{
    unsigned char h[2 * 3 * 40], back[2 * 3 * 40];
    xrt_pitched_ptr d;
    xrt_memcpy_3d_parms p;
    size_t i;
    (void)state;
    for (i = 0; i < sizeof h; i++) h[i] = (unsigned char)i;
    OK(xrt_malloc_3d(&d, xrt_make_extent(40, 3, 2)));
    OK(xrt_memset_3d(d, 0x11, xrt_make_extent(40, 3, 2)));
    memset(&p, 0, sizeof p);
    p.src_ptr = xrt_make_pitched_ptr(h, 40, 40, 3);
    p.dst_ptr = d;
    p.extent = xrt_make_extent(30, 3, 2);
    p.kind = XRT_MEMCPY_HOST_TO_DEVICE;
    OK(xrt_memcpy_3d(&p));
    OK(xrt_memset_3d_async(d, 0x22, xrt_make_extent(2, 3, 2), NULL));
    p.src_ptr = d;
    p.dst_ptr = xrt_make_pitched_ptr(back, 40, 40, 3);
    p.extent = xrt_make_extent(40, 3, 2);
    p.kind = XRT_MEMCPY_DEVICE_TO_HOST;
    OK(xrt_memcpy_3d_async(&p, NULL));
    OK(xrt_stream_synchronize(NULL));
    for (i = 0; i < sizeof h; i++)
        assert_int_equal(back[i], i % 40 < 2 ? 0x22 : i % 40 < 30 ? h[i] : 0x11);
    OK(xrt_free(d.ptr));
}

/* A host function that waits (at most 2 s) for the caller's flag: *late
   says whether the caller came after the deadline. */
typedef struct late_gate {
    int open, late;
} late_gate;

static void late_gate_wait(void *user)
{
    late_gate *g = (late_gate *)user;
    double t0 = now_ms(CLOCK_MONOTONIC);
    while (!__atomic_load_n(&g->open, __ATOMIC_ACQUIRE))
        if (now_ms(CLOCK_MONOTONIC) - t0 > 2000) {
            g->late = 1;
            return;
        }
}

/* A copy from registered memory is asynchronous as one from pinned memory:
   it returns while the stream is still held by a host function (a pageable
   source would make it wait for the stream, and the gate would close late). */
static void test_host_register_copies_async(void **state)
{
    static unsigned char h[4096];
    late_gate g = {0, 0};
    xrt_stream s;
    void *d;
    (void)state;
    OK(xrt_malloc(&d, sizeof h));
    OK(xrt_stream_create(&s));
    OK(xrt_host_register(h, sizeof h, 0));
    OK(xrt_launch_host_func(s, late_gate_wait, &g));
    OK(xrt_memcpy_async(d, h, sizeof h, XRT_MEMCPY_HOST_TO_DEVICE, s));
    __atomic_store_n(&g.open, 1, __ATOMIC_RELEASE);
    OK(xrt_stream_synchronize(s));
    assert_int_equal(g.late, 0);
    OK(xrt_host_unregister(h));
    OK(xrt_stream_destroy(s));
    OK(xrt_free(d));
}

/* xrt_memcpy from device to device, as cudaMemcpy: "For transfers from
   device memory to device memory, no host-side synchronization is
   performed" (CUDA's "API synchronization behavior"): it returns while the
   NULL stream is held by a host function, and runs in its order there. */
static void test_memcpy_d2d_not_waited_for(void **state)
{
    late_gate g = {0, 0};
    unsigned char h[256];
    void *a, *b;
    size_t i;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    OK(xrt_malloc(&a, sizeof h));
    OK(xrt_malloc(&b, sizeof h));
    OK(xrt_memset(a, 3, sizeof h));
    OK(xrt_memset(b, 0, sizeof h));
    OK(xrt_launch_host_func(NULL, late_gate_wait, &g));
    OK(xrt_memset_async(a, 9, sizeof h, NULL));
    OK(xrt_memcpy(b, a, sizeof h, XRT_MEMCPY_DEVICE_TO_DEVICE));
    OK(xrt_memcpy(b, a, sizeof h, XRT_MEMCPY_DEFAULT)); /* resolved to device to device */
    __atomic_store_n(&g.open, 1, __ATOMIC_RELEASE);
    OK(xrt_memcpy(h, b, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_int_equal(g.late, 0);
    for (i = 0; i < sizeof h; i++)
        if (h[i] != 9) fail_msg("b[%zu] = %d: the copy ran out of the NULL stream's order", i, h[i]);
    OK(xrt_free(a));
    OK(xrt_free(b));
}

/* xrt_memcpy_2d and xrt_memcpy_3d from device to device, as cudaMemcpy2D
   and cudaMemcpy3D: synchronous copies, of which "For transfers from
   device memory to device memory, no host-side synchronization is
   performed" (CUDA's "API synchronization behavior"): each returns while
   the NULL stream is held by a host function, and runs in its order. */
static void test_memcpy_2d_3d_d2d_not_waited_for(void **state)
{
    enum { P = 256, R = 4 };
    late_gate g = {0, 0};
    unsigned char h[P * R];
    xrt_memcpy_3d_parms p;
    unsigned char *a, *b, *c;
    size_t i;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    OK(xrt_malloc((void **)&a, sizeof h));
    OK(xrt_malloc((void **)&b, sizeof h));
    OK(xrt_malloc((void **)&c, sizeof h));
    OK(xrt_memset(a, 3, sizeof h));
    OK(xrt_memset(b, 0, sizeof h));
    OK(xrt_memset(c, 0, sizeof h));
    OK(xrt_launch_host_func(NULL, late_gate_wait, &g));
    OK(xrt_memset_async(a, 9, sizeof h, NULL));
    OK(xrt_memcpy_2d(b, P, a, P, P, R, XRT_MEMCPY_DEVICE_TO_DEVICE));
    memset(&p, 0, sizeof p);
    p.src_ptr = xrt_make_pitched_ptr(b, P, P, R);
    p.dst_ptr = xrt_make_pitched_ptr(c, P, P, R);
    p.extent = xrt_make_extent(P, R, 1);
    p.kind = XRT_MEMCPY_DEFAULT; /* resolved to device to device */
    OK(xrt_memcpy_3d(&p));
    __atomic_store_n(&g.open, 1, __ATOMIC_RELEASE);
    OK(xrt_memcpy(h, c, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_int_equal(g.late, 0);
    for (i = 0; i < sizeof h; i++)
        if (h[i] != 9) fail_msg("c[%zu] = %d: a copy ran out of the NULL stream's order", i, h[i]);
    OK(xrt_free(a));
    OK(xrt_free(b));
    OK(xrt_free(c));
}

/* The bytes a row of set_rows_expected's sets leaves at offset x of a row:
   all 1, the first half 2 (2-D), the first quarter 3 (3-D). */
static unsigned char set_rows_expected(size_t x, size_t pitch)
{
    return (unsigned char)(x < pitch / 4 ? 3 : x < pitch / 2 ? 2 : 1);
}

/* The synchronous sets of device memory (xrt_memset, xrt_memset_2d,
   xrt_memset_3d, xrt_memset_d32), as cudaMemset, cudaMemset2D,
   cudaMemset3D and cuMemsetD32: "The synchronous memset functions are
   asynchronous with respect to the host except when the target is pinned
   host memory or a Unified Memory region" (CUDA's "API synchronization
   behavior"): each returns while the NULL stream is held by a host
   function, and runs in its order, after the set queued before them. */
static void test_memset_sync_not_waited_for(void **state)
{
    enum { P = 256, R = 4 };
    late_gate g = {0, 0};
    unsigned char h[P * R];
    unsigned char *a;
    size_t i;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    OK(xrt_malloc((void **)&a, sizeof h));
    OK(xrt_launch_host_func(NULL, late_gate_wait, &g));
    OK(xrt_memset_async(a, 9, sizeof h, NULL));
    OK(xrt_memset(a, 1, sizeof h));
    OK(xrt_memset_2d(a, P, 2, P / 2, R));
    OK(xrt_memset_3d(xrt_make_pitched_ptr(a, P, P, R / 2), 3, xrt_make_extent(P / 4, R / 2, 2)));
    OK(xrt_memset_d32(a + sizeof h - 16, 0x05050505u, 4));
    __atomic_store_n(&g.open, 1, __ATOMIC_RELEASE);
    OK(xrt_memcpy(h, a, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_int_equal(g.late, 0);
    for (i = 0; i < sizeof h; i++)
        if (h[i] != (i >= sizeof h - 16 ? 5 : set_rows_expected(i % P, P)))
            fail_msg("a[%zu] = %d: a set ran out of the NULL stream's order", i, h[i]);
    OK(xrt_free(a));
}

static void nap_20ms(void *user)
{
    (void)user;
    sleep_ms(20);
}

/* Each synchronous set of t (P x R bytes), after a host function that naps
   and a set queued on the NULL stream: done, after them, when it returns. */
static void sets_done_on_return(unsigned char *t, size_t pitch, size_t rows)
{
    size_t i;
    OK(xrt_launch_host_func(NULL, nap_20ms, NULL));
    OK(xrt_memset_async(t, 9, pitch * rows, NULL));
    OK(xrt_memset(t, 1, pitch * rows));
    assert_bytes(t, pitch * rows, 1);
    OK(xrt_launch_host_func(NULL, nap_20ms, NULL));
    OK(xrt_memset_async(t, 1, pitch * rows, NULL));
    OK(xrt_memset_2d(t, pitch, 2, pitch / 2, rows));
    for (i = 0; i < pitch * rows; i++)
        if (t[i] != (i % pitch < pitch / 2 ? 2 : 1)) fail_msg("t[%zu] = %d after xrt_memset_2d", i, t[i]);
    OK(xrt_launch_host_func(NULL, nap_20ms, NULL));
    OK(xrt_memset_async(t, 9, pitch / 2, NULL));
    OK(xrt_memset_3d(xrt_make_pitched_ptr(t, pitch, pitch, rows / 2), 3, xrt_make_extent(pitch / 4, rows / 2, 2)));
    for (i = 0; i < pitch * rows; i++)
        if (t[i] != (i < pitch / 2 && i % pitch >= pitch / 4 ? 9 : set_rows_expected(i % pitch, pitch)))
            fail_msg("t[%zu] = %d after xrt_memset_3d", i, t[i]);
}

/* The synchronous sets of pinned host memory (xrt_malloc_host's, a
   registered range) and of managed memory are "fully synchronous" (CUDA's
   "API synchronization behavior"): each is done when it returns. */
static void test_memset_sync_to_host_done(void **state)
{
    enum { P = 256, R = 4 };
    static unsigned char reg[8192];
    unsigned char *pinned, *m;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    OK(xrt_malloc_host((void **)&pinned, P * R));
    sets_done_on_return(pinned, P, R);
    OK(xrt_free_host(pinned));
    OK(xrt_host_register(reg, sizeof reg, 0));
    sets_done_on_return(reg, P, R);
    OK(xrt_host_unregister(reg));
    OK(xrt_malloc_managed((void **)&m, P * R, XRT_MEM_ATTACH_GLOBAL));
    sets_done_on_return(m, P, R);
    OK(xrt_free(m));
}

/* Registered host memory (xrt_host_register): pinned while registered
   (pointer attributes, xrt_free_host refuses it), its device pointer, an
   asynchronous copy from it, a copy that runs past its end refused,
   overlaps refused with XRT_ERROR_HOST_MEMORY_ALREADY_REGISTERED, a second
   unregister with XRT_ERROR_HOST_MEMORY_NOT_REGISTERED; then pageable
   again. */
static void test_host_register(void **state)
{
    static unsigned char h[3 * 4096];
    unsigned char back[100];
    xrt_pointer_attributes a;
    void *d, *dp;
    size_t i;
    (void)state;
    for (i = 0; i < sizeof h; i++) h[i] = (unsigned char)(i * 7);
    OK(xrt_malloc(&d, 4096));
    OK(xrt_host_register(h + 4096, 4096, XRT_HOST_REGISTER_PORTABLE | XRT_HOST_REGISTER_MAPPED));
    OK(xrt_pointer_get_attributes(&a, h + 4100));
    assert_int_equal(a.type, XRT_MEMORY_PINNED_HOST);
    assert_ptr_equal(a.base, h + 4096);
    assert_int_equal(a.size, 4096);
    OK(xrt_pointer_get_attributes(&a, h));
    assert_int_not_equal(a.type, XRT_MEMORY_PINNED_HOST);
    OK(xrt_host_get_device_pointer(&dp, h + 4096 + 5, 0));
    assert_non_null(dp);
    OK(xrt_memcpy_async(d, h + 4096 + 3, 100, XRT_MEMCPY_HOST_TO_DEVICE, NULL));
    OK(xrt_memcpy_async(back, d, 100, XRT_MEMCPY_DEVICE_TO_HOST, NULL));
    OK(xrt_stream_synchronize(NULL));
    assert_memory_equal(back, h + 4096 + 3, 100);
    FAILS(xrt_host_register(h + 4095, 2, 0), XRT_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "overlap a registered range");
    FAILS(xrt_host_register(h + 8191, 100, 0), XRT_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "overlap");
    FAILS(xrt_host_register(h, sizeof h, 0), XRT_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "overlap");
    /* a copy that starts in the range ends in it: CUDA refuses a range that
       spans registered and unregistered memory (cudaErrorInvalidValue) */
    FAILS(xrt_memcpy(d, h + 8000, 400, XRT_MEMCPY_HOST_TO_DEVICE), XRT_ERROR_INVALID_VALUE, "overrun");
    FAILS(xrt_memcpy(d, h + 8000, 400, XRT_MEMCPY_DEFAULT), XRT_ERROR_INVALID_VALUE, "overrun");
    FAILS(xrt_memcpy_async(h + 8000, d, 400, XRT_MEMCPY_DEVICE_TO_HOST, NULL), XRT_ERROR_INVALID_VALUE, "overrun");
    FAILS(xrt_free_host(h + 4096), XRT_ERROR_INVALID_VALUE, "use xrt_host_unregister");
    FAILS(xrt_host_unregister(h + 4097), XRT_ERROR_HOST_MEMORY_NOT_REGISTERED, "inside");
    OK(xrt_host_register(h, 4096, 0)); /* the neighbours: no overlap */
    OK(xrt_host_register(h + 8192, 4096, XRT_HOST_REGISTER_READ_ONLY));
    OK(xrt_host_unregister(h + 4096));
    FAILS(xrt_host_unregister(h + 4096), XRT_ERROR_HOST_MEMORY_NOT_REGISTERED, "already unregistered");
    OK(xrt_pointer_get_attributes(&a, h + 4100));
    assert_int_not_equal(a.type, XRT_MEMORY_PINNED_HOST);
    FAILS(xrt_host_get_device_pointer(&dp, h + 4100, 0), XRT_ERROR_INVALID_VALUE, "not pinned host memory");
    OK(xrt_host_unregister(h));
    OK(xrt_host_unregister(h + 8192));
    OK(xrt_free(d));
}

/* A range that is not mapped in the process, whole or in part, cannot be
   pinned: cudaHostRegister fails (the driver's page pinning fails:
   cudaErrorInvalidValue, "invalid argument"). Page rounding: a range that
   ends on the page boundary before the hole, or starts on the one after
   it, is mapped; one byte into the hole is not. Mapped pages never touched
   yet are mapped. */
static void test_host_register_unmapped(void **state)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    const char *why = on_gpu() ? "cudaHostRegister" : "not mapped";
    char *m = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    (void)state;
    assert_true(m != MAP_FAILED);
    assert_int_equal(munmap(m + pg, pg), 0); /* a hole in the middle page */
    FAILS(xrt_host_register(m, 3 * pg, 0), XRT_ERROR_INVALID_VALUE, why);
    FAILS(xrt_host_register(m + pg, pg, 0), XRT_ERROR_INVALID_VALUE, why);
    FAILS(xrt_host_register(m + pg + 10, 1, 0), XRT_ERROR_INVALID_VALUE, why);
    FAILS(xrt_host_register(m + pg - 1, 2, 0), XRT_ERROR_INVALID_VALUE, why);
    FAILS(xrt_host_register(m + 2 * pg - 1, 1, 0), XRT_ERROR_INVALID_VALUE, why);
    OK(xrt_host_register(m + pg - 10, 10, 0)); /* ends at the hole */
    OK(xrt_host_unregister(m + pg - 10));
    OK(xrt_host_register(m + 2 * pg, 10, 0)); /* starts after it */
    OK(xrt_host_unregister(m + 2 * pg));
    OK(xrt_host_register(m, pg, 0));
    OK(xrt_host_unregister(m));
    assert_int_equal(munmap(m, 3 * pg), 0);
    FAILS(xrt_host_register(m + 2 * pg, pg, 0), XRT_ERROR_INVALID_VALUE, why); /* freed */
}

/* Memory the process maps read-only can be pinned only for the device's
   reads: cudaHostRegister needs cudaHostRegisterReadOnly for it ("this flag
   is required in order to register memory mapped to the CPU as read-only"
   on a GPU that does not use the host's page tables), else the driver's
   pinning for writes fails (cudaErrorInvalidValue); memory mapped
   PROT_NONE cannot be pinned at all. A range with one such page is refused
   whole. */
static void test_host_register_read_only_memory(void **state)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    int gpu = on_gpu();
    char *m = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    (void)state;
    assert_true(m != MAP_FAILED);
    assert_int_equal(mprotect(m + pg, pg, PROT_READ), 0);
    assert_int_equal(mprotect(m + 2 * pg, pg, PROT_NONE), 0);
    FAILS(xrt_host_register(m + pg, pg, 0), XRT_ERROR_INVALID_VALUE, gpu ? "cudaHostRegister" : "without write access");
    FAILS(xrt_host_register(m + pg + 10, 1, XRT_HOST_REGISTER_MAPPED), XRT_ERROR_INVALID_VALUE,
          gpu ? "cudaHostRegister" : "XRT_HOST_REGISTER_READ_ONLY");
    FAILS(xrt_host_register(m, 2 * pg, 0), XRT_ERROR_INVALID_VALUE, gpu ? "cudaHostRegister" : "without write access");
    FAILS(xrt_host_register(m + 2 * pg, pg, 0), XRT_ERROR_INVALID_VALUE, gpu ? "cudaHostRegister" : "without write");
    FAILS(xrt_host_register(m + 2 * pg, pg, XRT_HOST_REGISTER_READ_ONLY), XRT_ERROR_INVALID_VALUE,
          gpu ? "cudaHostRegister" : "PROT_NONE");
    FAILS(xrt_host_register(m + pg, 2 * pg, XRT_HOST_REGISTER_READ_ONLY), XRT_ERROR_INVALID_VALUE,
          gpu ? "cudaHostRegister" : "PROT_NONE");
    OK(xrt_host_register(m, pg, 0)); /* ends where the read-only page starts */
    OK(xrt_host_unregister(m));
    OK(xrt_host_register(m, 2 * pg, XRT_HOST_REGISTER_READ_ONLY)); /* read-write and read-only pages */
    OK(xrt_host_unregister(m));
    OK(xrt_host_register(m + pg, pg, XRT_HOST_REGISTER_READ_ONLY | XRT_HOST_REGISTER_MAPPED));
    OK(xrt_host_unregister(m + pg));
    assert_int_equal(munmap(m, 3 * pg), 0);
}

/* A range registered read-only is mapped for the device's reads only (on a
   GPU a write through it faults; the process may map it read-only): a copy
   or set into it is refused before anything is queued, on every backend,
   also where the host may write it; copies out of it work. */
static void test_host_register_read_only_not_written(void **state)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), back[64];
    const char *why = "registered read-only";
    xrt_memcpy_3d_parms p;
    unsigned char *d;
    (void)state;
    assert_true(m != MAP_FAILED);
    memset(m, 7, 2 * pg);
    assert_int_equal(mprotect(m + pg, pg, PROT_READ), 0);
    OK(xrt_malloc((void **)&d, 256));
    OK(xrt_memset(d, 1, 256));
    OK(xrt_host_register(m, pg, XRT_HOST_REGISTER_READ_ONLY)); /* the host may write it */
    OK(xrt_host_register(m + pg, pg, XRT_HOST_REGISTER_READ_ONLY)); /* the host may not */
    FAILS(xrt_memcpy(m + pg + 8, d, 64, XRT_MEMCPY_DEVICE_TO_HOST), XRT_ERROR_INVALID_VALUE, why);
    FAILS(xrt_memcpy(m + pg, d, 64, XRT_MEMCPY_DEFAULT), XRT_ERROR_INVALID_VALUE, why);
    FAILS(xrt_memcpy_async(m + 8, d, 64, XRT_MEMCPY_DEVICE_TO_HOST, NULL), XRT_ERROR_INVALID_VALUE, why);
    FAILS(xrt_memcpy(m, back, 64, XRT_MEMCPY_HOST_TO_HOST), XRT_ERROR_INVALID_VALUE, why);
    FAILS(xrt_memset(m + pg, 0, 64), XRT_ERROR_INVALID_VALUE, why);
    FAILS(xrt_memset_async(m, 0, 64, NULL), XRT_ERROR_INVALID_VALUE, why);
    FAILS(xrt_memset_d32(m + pg, 0, 16), XRT_ERROR_INVALID_VALUE, why);
    FAILS(xrt_memset_2d(m, 32, 0, 16, 2), XRT_ERROR_INVALID_VALUE, why);
    FAILS(xrt_memcpy_2d(m + pg, 32, d, 32, 16, 2, XRT_MEMCPY_DEVICE_TO_HOST), XRT_ERROR_INVALID_VALUE, why);
    memset(&p, 0, sizeof p);
    p.src_ptr = xrt_make_pitched_ptr(d, 32, 32, 2);
    p.dst_ptr = xrt_make_pitched_ptr(m + pg, 32, 32, 2);
    p.extent = xrt_make_extent(16, 2, 1);
    p.kind = XRT_MEMCPY_DEVICE_TO_HOST;
    FAILS(xrt_memcpy_3d(&p), XRT_ERROR_INVALID_VALUE, why);
    FAILS(xrt_memcpy_3d_async(&p, NULL), XRT_ERROR_INVALID_VALUE, why);
    OK(xrt_stream_synchronize(NULL));
    assert_bytes(m, 2 * pg, 7); /* nothing was written */
    OK(xrt_memcpy(d, m + pg, 64, XRT_MEMCPY_HOST_TO_DEVICE)); /* reads */
    OK(xrt_memcpy(back, d, 64, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_bytes(back, 64, 7);
    OK(xrt_host_unregister(m));
    OK(xrt_host_unregister(m + pg));
    OK(xrt_host_register(m, pg, 0)); /* read-write again: written */
    OK(xrt_memset(d, 1, 64));
    OK(xrt_memcpy(m, d, 64, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_bytes(m, 64, 1);
    OK(xrt_host_unregister(m));
    OK(xrt_free(d));
    assert_int_equal(munmap(m, 2 * pg), 0);
}

/* The whole destination is checked, not its first byte: a copy that starts
   in ordinary memory and runs into a range registered read-only, a 2-D
   copy one of whose rows lands in it, a 3-D copy whose box (its position
   taken) or one of whose slices does, are refused before anything is
   queued; rows and slices that step over it are written. */
static void test_host_register_read_only_whole_dst(void **state)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char *m = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), back[64];
    const char *why = "registered read-only";
    xrt_memcpy_3d_parms p;
    unsigned char *d;
    (void)state;
    assert_true(m != MAP_FAILED);
    memset(m, 7, 4 * pg);
    memset(back, 1, sizeof back);
    assert_int_equal(mprotect(m + pg, pg, PROT_READ), 0);
    OK(xrt_malloc((void **)&d, 256));
    OK(xrt_memset(d, 1, 256));
    OK(xrt_host_register(m + pg, pg, XRT_HOST_REGISTER_READ_ONLY));
    FAILS(xrt_memcpy(m + pg - 8, d, 64, XRT_MEMCPY_DEVICE_TO_HOST), XRT_ERROR_INVALID_VALUE, why);
    FAILS(xrt_memcpy_async(m + pg - 8, d, 64, XRT_MEMCPY_DEFAULT, NULL), XRT_ERROR_INVALID_VALUE, why);
    FAILS(xrt_memcpy(m + pg - 1, back, 2, XRT_MEMCPY_HOST_TO_HOST), XRT_ERROR_INVALID_VALUE, why);
    OK(xrt_memcpy(m + pg - 8, back, 8, XRT_MEMCPY_HOST_TO_HOST)); /* up to it */
    FAILS(xrt_memcpy_2d(m + 16, pg, d, 16, 16, 2, XRT_MEMCPY_DEVICE_TO_HOST), XRT_ERROR_INVALID_VALUE, why);
    FAILS(xrt_memcpy_2d_async(m + pg - 8, 2 * pg, d, 16, 16, 2, XRT_MEMCPY_DEVICE_TO_HOST, NULL),
          XRT_ERROR_INVALID_VALUE, why);
    OK(xrt_memcpy_2d(m + pg - 16, pg + 32, d, 16, 16, 2, XRT_MEMCPY_DEVICE_TO_HOST)); /* its rows step over it */
    memset(&p, 0, sizeof p);
    p.src_ptr = xrt_make_pitched_ptr(d, 16, 16, 1);
    p.dst_ptr = xrt_make_pitched_ptr(m, 64, 16, pg / 64);
    p.dst_pos = xrt_make_pos(0, pg / 64, 0); /* the box starts in it */
    p.extent = xrt_make_extent(16, 1, 1);
    p.kind = XRT_MEMCPY_DEVICE_TO_HOST;
    FAILS(xrt_memcpy_3d(&p), XRT_ERROR_INVALID_VALUE, why);
    p.dst_pos = xrt_make_pos(0, 0, 0); /* its second slice is in it */
    p.extent = xrt_make_extent(16, 1, 2);
    FAILS(xrt_memcpy_3d_async(&p, NULL), XRT_ERROR_INVALID_VALUE, why);
    p.dst_ptr = xrt_make_pitched_ptr(m, pg, 16, 2); /* its second row is */
    p.extent = xrt_make_extent(16, 2, 1);
    p.src_ptr = xrt_make_pitched_ptr(d, 16, 16, 2);
    FAILS(xrt_memcpy_3d(&p), XRT_ERROR_INVALID_VALUE, why);
    p.dst_ptr = xrt_make_pitched_ptr(m, 64, 16, 2 * pg / 64); /* its slices step over it */
    p.dst_pos = xrt_make_pos(0, pg / 64 - 1, 0);
    p.extent = xrt_make_extent(16, 1, 2);
    p.src_ptr = xrt_make_pitched_ptr(d, 16, 16, 1);
    OK(xrt_memcpy_3d(&p));
    OK(xrt_stream_synchronize(NULL));
    assert_bytes(m + pg, pg, 7); /* nothing was written there */
    assert_bytes(m + pg - 8, 8, 1);
    assert_bytes(m + 2 * pg + 16, 16, 1);
    assert_bytes(m + 3 * pg - 64, 16, 1);
    OK(xrt_host_unregister(m + pg));
    OK(xrt_free(d));
    assert_int_equal(munmap(m, 4 * pg), 0);
}

/* Managed memory, each call once (semantics and misuse: tests/test_managed.c):
   the host writes it, a prefetch to the device and back, an advice, an
   attach, a copy out with XRT_MEMCPY_DEFAULT; pointer attributes say
   managed; xrt_free frees it. */
static void test_managed_round_trip(void **state)
{
    unsigned char back[100];
    xrt_pointer_attributes a;
    unsigned char *m;
    xrt_stream s;
    (void)state;
    OK(xrt_stream_create(&s));
    OK(xrt_malloc_managed((void **)&m, 4096, XRT_MEM_ATTACH_GLOBAL));
    memset(m, 0x5a, 4096);
    OK(xrt_pointer_get_attributes(&a, m + 10));
    assert_int_equal(a.type, XRT_MEMORY_MANAGED);
    assert_ptr_equal(a.base, m);
    OK(xrt_stream_attach_mem_async(s, m, 0, XRT_MEM_ATTACH_GLOBAL));
    OK(xrt_mem_advise(m, 4096, XRT_MEM_ADVISE_SET_PREFERRED_LOCATION, 0));
    {
        int where = 7;
        OK(xrt_mem_range_get_attribute(&where, sizeof where, XRT_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, 4096));
        assert_int_equal(where, 0);
    }
    OK(xrt_mem_prefetch_async(m, 4096, 0, s));
    OK(xrt_memset_async(m + 100, 0x11, 100, s));
    OK(xrt_mem_prefetch_async(m, 4096, XRT_CPU_DEVICE_ID, s));
    OK(xrt_stream_synchronize(s));
    OK(xrt_memcpy(back, m + 100, sizeof back, XRT_MEMCPY_DEFAULT));
    assert_bytes(back, sizeof back, 0x11);
    assert_bytes(m, 100, 0x5a);
    OK(xrt_stream_destroy(s));
    OK(xrt_free(m));
}

/* Mapped host allocation, each call once (tests/test_managed.c has the rest). */
static void test_host_alloc_round_trip(void **state)
{
    unsigned flags = 0;
    void *h;
    (void)state;
    OK(xrt_host_alloc(&h, 4096, XRT_HOST_ALLOC_PORTABLE | XRT_HOST_ALLOC_MAPPED));
    OK(xrt_host_get_flags(&flags, h));
    assert_int_equal(flags, XRT_HOST_ALLOC_PORTABLE | XRT_HOST_ALLOC_MAPPED);
    OK(xrt_free_host(h));
}

/* Memory pools: the default pool and a created one, each call once (reuse,
   thresholds and misuse: tests/test_pools.c); a runtime without pools says so. */
static void test_mem_pool_round_trip(void **state)
{
    xrt_mem_pool d = NULL, cur = NULL, p = NULL;
    xrt_mem_pool_props props = {0, XRT_MEM_HANDLE_TYPE_NONE};
    xrt_mem_access_desc owner = {0, XRT_MEM_ACCESS_FLAGS_PROT_READ_WRITE};
    unsigned char h[64];
    unsigned access = 0;
    uint64_t v = 1 << 20;
    void *a;
    xrt_status st;
    (void)state;
    if ((st = xrt_device_get_default_mem_pool(&d, 0)) == XRT_ERROR_UNSUPPORTED) {
        FAILS(xrt_mem_pool_create(&p, &props), XRT_ERROR_UNSUPPORTED, "memory pools");
        return;
    }
    OK(st);
    OK(xrt_device_get_mem_pool(&cur, 0));
    OK(xrt_mem_pool_create(&p, &props));
    OK(xrt_device_set_mem_pool(0, p));
    OK(xrt_mem_pool_set_attribute(p, XRT_MEMPOOL_ATTR_RELEASE_THRESHOLD, &v));
    OK(xrt_malloc_from_pool_async(&a, sizeof h, p, NULL));
    OK(xrt_memset_async(a, 0x42, sizeof h, NULL));
    OK(xrt_memcpy_async(h, a, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST, NULL));
    OK(xrt_free_async(a, NULL));
    OK(xrt_stream_synchronize(NULL));
    assert_bytes(h, sizeof h, 0x42);
    OK(xrt_mem_pool_get_attribute(p, XRT_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &v));
    assert_true(v > 0); /* under the threshold: kept */
    OK(xrt_mem_pool_trim_to(p, 0));
    OK(xrt_mem_pool_set_access(p, &owner, 1));
    OK(xrt_mem_pool_get_access(&access, p, 0));
    assert_int_equal(access, XRT_MEM_ACCESS_FLAGS_PROT_READ_WRITE);
    OK(xrt_device_set_mem_pool(0, cur));
    OK(xrt_mem_pool_destroy(p));
}

/* Host -> device -> device -> host -> host, with explicit kinds and with
   XRT_MEMCPY_DEFAULT, at aligned and odd offsets. */
static void test_memcpy_kinds(void **state)
{
    static const xrt_memcpy_kind explicit_kinds[4] = {XRT_MEMCPY_HOST_TO_DEVICE, XRT_MEMCPY_DEVICE_TO_DEVICE,
                                                      XRT_MEMCPY_DEVICE_TO_HOST, XRT_MEMCPY_HOST_TO_HOST};
    static const xrt_memcpy_kind inferred[4] = {XRT_MEMCPY_DEFAULT, XRT_MEMCPY_DEFAULT, XRT_MEMCPY_DEFAULT,
                                                XRT_MEMCPY_DEFAULT};
    static unsigned char h1[N], h2[N], h3[N];
    void *d1, *d2;
    unsigned char *d1c;
    unsigned k;
    (void)state;
    OK(xrt_malloc(&d1, N));
    OK(xrt_malloc(&d2, N));
    d1c = (unsigned char *)d1;

    for (k = 1; k <= 2; k++) {
        const xrt_memcpy_kind *kind = k == 1 ? explicit_kinds : inferred;
        fill(h1, N, k);
        memset(h2, 0, N);
        memset(h3, 0, N);
        OK(xrt_memcpy(d1, h1, N, kind[0]));
        OK(xrt_memcpy(d2, d1, N, kind[1]));
        OK(xrt_memcpy(h2, d2, N, kind[2]));
        assert_filled(h2, N, k);
        OK(xrt_memcpy(h3, h2, N, kind[3]));
        assert_filled(h3, N, k);
    }

    memset(h2, 0, N);
    OK(xrt_memcpy(d1c + 13, h1 + 7, N / 2, XRT_MEMCPY_HOST_TO_DEVICE));
    OK(xrt_memcpy(h2, d1c + 13, N / 2, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_memory_equal(h2, h1 + 7, N / 2);

    OK(xrt_memcpy(NULL, NULL, 0, XRT_MEMCPY_HOST_TO_DEVICE)); /* size 0 is a no-op */
    OK(xrt_free(d1));
    OK(xrt_free(d2));
}

static void test_memcpy_pinned(void **state)
{
    void *p1, *p2, *d;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_PINNED_HOST, "no pinned host memory");
    OK(xrt_malloc_host(&p1, N));
    OK(xrt_malloc_host(&p2, N));
    OK(xrt_malloc(&d, N));
    fill((unsigned char *)p1, N, 4);
    memset(p2, 0, N);
    OK(xrt_memcpy(d, p1, N, XRT_MEMCPY_HOST_TO_DEVICE));
    OK(xrt_memcpy(p2, d, N, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_filled((unsigned char *)p2, N, 4);
    fill((unsigned char *)p1, N, 5);
    OK(xrt_memcpy(d, p1, N, XRT_MEMCPY_DEFAULT));
    OK(xrt_memcpy(p2, d, N, XRT_MEMCPY_DEFAULT));
    assert_filled((unsigned char *)p2, N, 5);
    OK(xrt_memset(p2, 0x77, N)); /* memset may target pinned memory, as cudaMemset */
    assert_bytes((unsigned char *)p2, N, 0x77);
    OK(xrt_free(d));
    OK(xrt_free_host(p2));
    OK(xrt_free_host(p1));
}

/* CUDA's "API synchronization behavior": "For transfers from any host memory
   to any host memory, the function is fully synchronous with respect to the
   host", pinned on both sides too, and after the stream's earlier work (a
   host function that sleeps and notes that it ran). */
static void sleep_then_flag(void *user)
{
    sleep_ms(30);
    set_flag(user);
}

static void test_memcpy_async_host_to_host_is_synchronous(void **state)
{
    unsigned char *p1, *p2, h[64];
    xrt_memcpy_kind kinds[2] = {XRT_MEMCPY_HOST_TO_HOST, XRT_MEMCPY_DEFAULT};
    xrt_stream s;
    int i, ran;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_PINNED_HOST, "no pinned host memory");
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    OK(xrt_malloc_host((void **)&p1, N));
    OK(xrt_malloc_host((void **)&p2, N));
    OK(xrt_stream_create(&s));
    for (i = 0; i < 4; i++) {
        ran = 0;
        fill(p1, N, 6 + i);
        memset(p2, 0, N);
        memset(h, 0, sizeof h);
        OK(xrt_launch_host_func(s, sleep_then_flag, &ran));
        if (i < 2) OK(xrt_memcpy_async(p2, p1, N, kinds[i], s)); /* pinned to pinned */
        else OK(xrt_memcpy_async(h, p1, sizeof h, kinds[i - 2], s)); /* pinned to pageable */
        assert_int_equal(flag(&ran), 1);
        if (i < 2) assert_filled(p2, N, 6 + i);
        else assert_filled(h, sizeof h, 6 + i);
    }
    OK(xrt_stream_destroy(s));
    OK(xrt_free_host(p2));
    OK(xrt_free_host(p1));
}

/* >> stream callbacks (cudaStreamAddCallback): run once, after the
   stream's earlier work, told their stream and XRT_SUCCESS; every xrt call
   from inside is refused, as CUDA's "Callbacks must not make any CUDA API
   calls" (cudaErrorNotPermitted). */
typedef struct {
    xrt_stream stream;
    xrt_status status, refused;
    int calls, earlier_ran, ran;
} callback_seen;

static void callback_notes(xrt_stream stream, xrt_status status, void *user)
{
    callback_seen *c = (callback_seen *)user;
    int device;
    c->stream = stream;
    c->status = status;
    c->earlier_ran = flag(&c->ran);
    c->refused = xrt_get_device(&device);
    __atomic_add_fetch(&c->calls, 1, __ATOMIC_SEQ_CST);
}

static void test_stream_add_callback(void **state)
{
    xrt_stream streams[2] = {NULL, NULL};
    int i;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    OK(xrt_stream_create(&streams[1]));
    for (i = 0; i < 2; i++) {
        callback_seen c;
        memset(&c, 0, sizeof c);
        c.status = c.refused = XRT_ERROR_INVALID_VALUE; /* neither answer */
        OK(xrt_launch_host_func(streams[i], sleep_then_flag, &c.ran));
        OK(xrt_stream_add_callback(streams[i], callback_notes, &c, 0));
        OK(xrt_stream_synchronize(streams[i]));
        assert_int_equal(c.calls, 1);
        assert_ptr_equal(c.stream, streams[i]);
        assert_int_equal(c.status, XRT_SUCCESS);
        assert_int_equal(c.earlier_ran, 1);
        assert_int_equal(c.refused, XRT_ERROR_NOT_PERMITTED);
    }
    OK(xrt_stream_destroy(streams[1]));
}

static void test_stream_add_callback_misuse(void **state)
{
    callback_seen c;
    xrt_stream s, gone;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    memset(&c, 0, sizeof c);
    OK(xrt_stream_create(&s));
    OK(xrt_stream_create(&gone));
    OK(xrt_stream_destroy(gone));
    FAILS(xrt_stream_add_callback(s, NULL, &c, 0), XRT_ERROR_INVALID_VALUE, "fn is NULL");
    FAILS(xrt_stream_add_callback(s, callback_notes, &c, 1), XRT_ERROR_INVALID_VALUE, "must be 0");
    FAILS(xrt_stream_add_callback(gone, callback_notes, &c, 0), XRT_ERROR_INVALID_HANDLE, "xrt_stream_add_callback");
    if (caps() & XRT_CAP_GRAPHS) { /* "not supported with cudaStreamBeginCapture" */
        xrt_graph g;
        OK(xrt_stream_begin_capture(s, XRT_CAPTURE_MODE_GLOBAL));
        FAILS(xrt_stream_add_callback(s, callback_notes, &c, 0), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED,
              "cannot be captured");
        OK(xrt_stream_end_capture(s, &g));
        OK(xrt_graph_destroy(g));
    }
    OK(xrt_stream_synchronize(s));
    assert_int_equal(c.calls, 0);
    OK(xrt_stream_destroy(s));
}

/* Async operations on one stream run in the order they were enqueued: each
   later one overwrites part of the earlier. */
static void test_async_ordered(void **state)
{
    static unsigned char src[N], out[N];
    xrt_stream s;
    void *d;
    unsigned char *dc;
    int k;
    (void)state;
    OK(xrt_malloc(&d, N));
    dc = (unsigned char *)d;
    OK(xrt_stream_create(&s));
    for (k = 0; k < 2; k++) {
        xrt_stream on = k ? NULL : s;
        memset(src, 0x22, N);
        memset(out, 0, N);
        OK(xrt_memset_async(d, 0x11, N, on));
        OK(xrt_memcpy_async(d, src, N / 2, XRT_MEMCPY_HOST_TO_DEVICE, on));
        OK(xrt_memset_async(dc + N / 4, 0x33, N / 4, on));
        OK(xrt_memcpy_async(out, d, N, XRT_MEMCPY_DEVICE_TO_HOST, on));
        OK(xrt_stream_synchronize(on));
        assert_bytes(out, N / 4, 0x22);
        assert_bytes(out + N / 4, N / 2 - N / 4, 0x33);
        assert_bytes(out + N / 2, N - N / 2, 0x11);
        OK(xrt_stream_query(on));
    }
    OK(xrt_stream_destroy(s));
    OK(xrt_free(d));
}

/* Device memory as a dma-buf, for RDMA: an fd where the backend exports one;
   unsupported, saying so, on the CPU (its memory is registered directly). */
static void test_export_dmabuf(void **state)
{
    void *d;
    int fd = -1;
    uint64_t off = 1;
    xrt_status st;
    (void)state;
    OK(xrt_malloc(&d, 1 << 16));
    st = xrt_mem_export_dmabuf(d, 4096, &fd, &off);
    if (st == XRT_SUCCESS) {
        assert_true(on_gpu());
        assert_true(fd >= 0);
        assert_int_equal(off, 0);
        close(fd);
    } else {
        assert_int_equal(st, XRT_ERROR_UNSUPPORTED);
        assert_non_null(strstr(xrt_get_last_error_string(), "xrt_mem_export_dmabuf"));
    }
    OK(xrt_free(d));
}

/* >> memory and events shared between processes. On the CPU a forked child
   (another process, on the cpu backend: what the suite runs on may not
   survive fork) exports memory and an event; this process opens them,
   checks and overwrites the memory, and the child sees that. A GPU runtime's double has no
   second process: opening in the exporter fails. */
static void ipc_child_exports(int to_parent, int from_parent)
{
    xrt_ipc_mem_handle h;
    xrt_ipc_event_handle eh;
    unsigned char b[N];
    char done = 0;
    xrt_event e;
    void *d;
    CHILD_OK(xrt_set_backend("cpu"));
    CHILD_OK(xrt_malloc(&d, N));
    CHILD_OK(xrt_memset(d, 0x21, N));
    CHILD_OK(xrt_ipc_get_mem_handle(&h, d));
    CHILD_OK(xrt_event_create(&e, XRT_EVENT_INTERPROCESS | XRT_EVENT_DISABLE_TIMING));
    CHILD_OK(xrt_event_record(e, NULL));
    CHILD_OK(xrt_ipc_get_event_handle(&eh, e));
    if (write(to_parent, &h, sizeof h) != (ssize_t)sizeof h || write(to_parent, &eh, sizeof eh) != (ssize_t)sizeof eh)
        CHILD_FAIL("cannot send the handles");
    if (read(from_parent, &done, 1) != 1 || done != 'x') CHILD_FAIL("the parent did not finish");
    CHILD_OK(xrt_memcpy(b, d, N, XRT_MEMCPY_DEVICE_TO_HOST));
    CHILD_TRUE(b[0] == 0x42 && b[N - 1] == 0x42);
    CHILD_OK(xrt_free(d));
    CHILD_OK(xrt_event_destroy(e));
    xrt_shutdown();
    child_exit(0);
}

static void ipc_open_childs(void)
{
    int up[2], down[2];
    unsigned char b[N];
    xrt_ipc_mem_handle h;
    xrt_ipc_event_handle eh;
    xrt_event e;
    char why[256];
    void *p = NULL, *again = NULL;
    pid_t pid;
    assert_int_equal(pipe(up), 0);
    assert_int_equal(pipe(down), 0);
    if ((pid = child_fork(20)) == 0) ipc_child_exports(up[1], down[0]);
    close(up[1]);
    close(down[0]);
    assert_int_equal(read(up[0], &h, sizeof h), (ssize_t)sizeof h);
    assert_int_equal(read(up[0], &eh, sizeof eh), (ssize_t)sizeof eh);
    OK(xrt_ipc_open_event_handle(&e, eh));
    OK(xrt_event_synchronize(e)); /* the child's record: on its idle stream, done */
    OK(xrt_event_query(e));
    OK(xrt_event_destroy(e));
    OK(xrt_ipc_open_mem_handle(&p, h, XRT_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
    OK(xrt_ipc_open_mem_handle(&again, h, 0));
    assert_ptr_equal(p, again);
    OK(xrt_memcpy(b, p, N, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_bytes(b, N, 0x21);
    OK(xrt_memset(p, 0x42, N));
    OK(xrt_ipc_close_mem_handle(again));
    OK(xrt_ipc_close_mem_handle(p));
    assert_int_equal(write(down[1], "x", 1), 1);
    close(up[0]);
    close(down[1]);
    if (child_status(pid, 20, why, sizeof why)) fail_msg("child: %s", why);
}

static void test_ipc_calls(void **state)
{
    xrt_ipc_mem_handle h;
    xrt_ipc_event_handle eh;
    xrt_event e, opened;
    void *d, *p = NULL;
    (void)state;
    OK(xrt_malloc(&d, N));
    OK(xrt_ipc_get_mem_handle(&h, d));
    if (on_gpu()) assert_int_equal(xrt_ipc_open_mem_handle(&p, h, 0), XRT_ERROR_BACKEND);
    else ipc_open_childs();
    OK(xrt_free(d));
    OK(xrt_event_create(&e, XRT_EVENT_INTERPROCESS | XRT_EVENT_DISABLE_TIMING));
    if (on_gpu()) {
        OK(xrt_ipc_get_event_handle(&eh, e));
        assert_int_equal(xrt_ipc_open_event_handle(&opened, eh), XRT_ERROR_BACKEND);
    } else {
        OK(xrt_ipc_get_event_handle(&eh, e));
        FAILS(xrt_ipc_open_event_handle(&opened, eh), XRT_ERROR_INVALID_VALUE, "made by this process");
    }
    OK(xrt_event_destroy(e));
}

/* >> pointer attributes */
static void assert_unknown(const void *p)
{
    xrt_pointer_attributes a;
    memset(&a, 0x5a, sizeof a);
    OK(xrt_pointer_get_attributes(&a, p));
    assert_int_equal(a.type, XRT_MEMORY_UNKNOWN);
    assert_null(a.backend);
    assert_null(a.base);
    assert_int_equal(a.size, 0);
    assert_int_equal(a.device, -1);
}

static void test_pointer_attributes(void **state)
{
    xrt_pointer_attributes a;
    char stack[16];
    char *heap = (char *)malloc(64);
    void *d;
    int dev = -1, logs;
    (void)state;
    assert_non_null(heap);
    OK(xrt_get_device(&dev));
    OK(xrt_malloc(&d, N));
    xrt_get_last_error();
    logs = xrt_test_log.count;

    OK(xrt_pointer_get_attributes(&a, d));
    assert_int_equal(a.type, XRT_MEMORY_DEVICE);
    assert_string_equal(a.backend, current_backend());
    assert_int_equal(a.device, dev);
    assert_ptr_equal(a.base, d);
    assert_int_equal(a.size, N);
    OK(xrt_pointer_get_attributes(&a, (char *)d + 100)); /* interior pointer: same allocation */
    assert_int_equal(a.type, XRT_MEMORY_DEVICE);
    assert_ptr_equal(a.base, d);
    assert_int_equal(a.size, N);
    OK(xrt_pointer_get_attributes(&a, (char *)d + N)); /* one past its end: not in it */
    assert_true(a.base != d);
    if (a.base) assert_ptr_equal(a.base, (char *)d + N); /* the next allocation, if one starts there */

    if (caps() & XRT_CAP_PINNED_HOST) {
        void *p;
        OK(xrt_malloc_host(&p, 100));
        OK(xrt_pointer_get_attributes(&a, (char *)p + 99));
        assert_int_equal(a.type, XRT_MEMORY_PINNED_HOST);
        assert_string_equal(a.backend, current_backend());
        assert_int_equal(a.device, -1);
        assert_ptr_equal(a.base, p);
        assert_int_equal(a.size, 100);
        OK(xrt_free_host(p));
        assert_unknown(p);
    }

    /* memory xrt did not allocate is an answer (UNKNOWN), not an error */
    assert_unknown(stack);
    assert_unknown(heap);
    assert_unknown(NULL);
    OK(xrt_free(d));
    assert_unknown(d);
    assert_int_equal(xrt_peek_at_last_error(), XRT_SUCCESS);
    assert_int_equal(xrt_test_log.count, logs);
    free(heap);
}

/* >> streams */
static void test_streams(void **state)
{
    xrt_stream s[16];
    void *d;
    int i, j;
    (void)state;
    OK(xrt_malloc(&d, N));
    for (i = 0; i < 16; i++) {
        OK(xrt_stream_create(&s[i]));
        assert_non_null(s[i]);
        for (j = 0; j < i; j++) assert_ptr_not_equal(s[i], s[j]);
        OK(xrt_stream_query(s[i])); /* an empty stream is complete */
        OK(xrt_stream_synchronize(s[i]));
    }
    OK(xrt_memset_async(d, 1, N, s[3]));
    OK(xrt_stream_synchronize(s[3]));
    OK(xrt_stream_query(s[3]));
    for (i = 0; i < 16; i++) OK(xrt_stream_destroy(s[i]));

    /* the NULL stream needs no creation */
    OK(xrt_stream_query(NULL));
    OK(xrt_memset_async(d, 2, N, NULL));
    OK(xrt_stream_synchronize(NULL));
    OK(xrt_stream_query(NULL));
    OK(xrt_device_synchronize());
    OK(xrt_free(d));
}

/* >> stream flags and the legacy NULL stream */
static void test_stream_flags_and_priorities(void **state)
{
    xrt_stream s;
    unsigned f = 99;
    int least = 99, greatest = 99, p = 99, asked[5], i;
    (void)state;
    OK(xrt_stream_create(&s)); /* blocking, as cudaStreamCreate's */
    OK(xrt_stream_get_flags(s, &f));
    assert_int_equal(f, XRT_STREAM_DEFAULT);
    OK(xrt_stream_destroy(s));
    OK(xrt_stream_create_with_flags(&s, XRT_STREAM_NON_BLOCKING));
    OK(xrt_stream_get_flags(s, &f));
    assert_int_equal(f, XRT_STREAM_NON_BLOCKING);
    assert_stream_works(s, 0x31);
    OK(xrt_stream_destroy(s));
    OK(xrt_stream_get_flags(NULL, &f)); /* the legacy stream */
    assert_int_equal(f, XRT_STREAM_DEFAULT);

    OK(xrt_device_get_stream_priority_range(&least, &greatest));
    assert_true(greatest <= least); /* a lower number is a higher priority */
    if (on_cpu()) assert_true(least == 0 && greatest == -5); /* CUDA's range on recent GPUs */
    OK(xrt_device_get_stream_priority_range(NULL, NULL));
    asked[0] = least, asked[1] = greatest, asked[2] = least + 1, asked[3] = greatest - 100, asked[4] = 0;
    for (i = 0; i < 5; i++) { /* clamped to the range, as CUDA does */
        int want = asked[i] > least ? least : asked[i] < greatest ? greatest : asked[i];
        OK(xrt_stream_create_with_priority(&s, XRT_STREAM_NON_BLOCKING, asked[i]));
        OK(xrt_stream_get_priority(s, &p));
        assert_int_equal(p, want);
        OK(xrt_stream_get_flags(s, &f));
        assert_int_equal(f, XRT_STREAM_NON_BLOCKING);
        OK(xrt_stream_destroy(s));
    }
    OK(xrt_stream_get_priority(NULL, &p));
    assert_int_equal(p, least);
    OK(xrt_stream_get_device(NULL, &p)); /* the current device's */
    assert_int_equal(p, 0);
}

/* *d: n bytes of device memory, zeroed; *s: a new blocking stream holding a
   set of them to value behind gates[0]. */
static void set_behind_gate(void **d, size_t n, int value, xrt_stream *s)
{
    OK(xrt_malloc(d, n));
    OK(xrt_memset(*d, 0, n));
    OK(xrt_stream_create(s));
    OK(xrt_launch_host_func(*s, gate_wait, &gates[0]));
    OK(xrt_memset_async(*d, value, n, *s));
}

/* Work on a blocking stream, then on the NULL stream: the NULL stream's
   waits for it (CUDA's "Stream synchronization behavior"), and so do a
   query and a synchronize of the NULL stream. */
static void test_legacy_stream_waits_for_blocking_streams(void **state)
{
    unsigned char h[64];
    xrt_stream s;
    void *d;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    set_behind_gate(&d, sizeof h, 1, &s);
    gate_wait_entered(&gates[0]);
    assert_int_equal(xrt_stream_query(NULL), XRT_ERROR_NOT_READY); /* before the NULL stream has work */
    OK(xrt_memset_async(d, 2, sizeof h, NULL));
    sleep_ms(20);
    assert_int_equal(xrt_stream_query(NULL), XRT_ERROR_NOT_READY);
    gate_open(&gates[0]);
    OK(xrt_stream_synchronize(NULL));
    OK(xrt_stream_query(s));
    OK(xrt_memcpy(h, d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_bytes(h, sizeof h, 2); /* the NULL stream's set came second */
    OK(xrt_stream_destroy(s));
    OK(xrt_free(d));
}

/* Work on the NULL stream, then on a blocking stream: the blocking stream's
   waits for it, an event recorded there too; a non-blocking stream's does
   not. */
static void test_blocking_stream_waits_for_the_legacy_stream(void **state)
{
    unsigned char h[64];
    xrt_stream s, nb;
    xrt_event e;
    void *d, *d2;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    OK(xrt_malloc(&d, sizeof h));
    OK(xrt_malloc(&d2, sizeof h));
    OK(xrt_memset(d, 0, sizeof h));
    OK(xrt_stream_create(&s));
    OK(xrt_stream_create_with_flags(&nb, XRT_STREAM_NON_BLOCKING));
    OK(xrt_event_create(&e, XRT_EVENT_DISABLE_TIMING));
    OK(xrt_launch_host_func(NULL, gate_wait, &gates[0]));
    OK(xrt_memset_async(d, 1, sizeof h, NULL));
    OK(xrt_memset_async(d, 2, sizeof h, s));
    OK(xrt_event_record(e, s));
    OK(xrt_memset_async(d2, 3, sizeof h, nb)); /* takes no part */
    OK(xrt_stream_synchronize(nb));
    OK(xrt_stream_query(nb));
    sleep_ms(20);
    assert_int_equal(xrt_stream_query(s), XRT_ERROR_NOT_READY);
    assert_int_equal(xrt_event_query(e), XRT_ERROR_NOT_READY);
    gate_open(&gates[0]);
    OK(xrt_stream_synchronize(s));
    OK(xrt_event_query(e));
    OK(xrt_memcpy(h, d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_bytes(h, sizeof h, 2); /* the blocking stream's set came second */
    OK(xrt_memcpy(h, d2, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_bytes(h, sizeof h, 3);
    OK(xrt_event_destroy(e));
    OK(xrt_stream_destroy(s));
    OK(xrt_stream_destroy(nb));
    OK(xrt_free(d));
    OK(xrt_free(d2));
}

/* A non-blocking stream's work does not hold the NULL stream back. */
static void test_legacy_stream_ignores_non_blocking_streams(void **state)
{
    xrt_stream nb;
    void *d;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    OK(xrt_malloc(&d, 64));
    OK(xrt_stream_create_with_flags(&nb, XRT_STREAM_NON_BLOCKING));
    OK(xrt_launch_host_func(nb, gate_wait, &gates[0]));
    gate_wait_entered(&gates[0]);
    OK(xrt_memset_async(d, 4, 64, NULL));
    OK(xrt_stream_synchronize(NULL));
    OK(xrt_stream_query(NULL));
    OK(xrt_memset(d, 5, 64));
    assert_int_equal(xrt_stream_query(nb), XRT_ERROR_NOT_READY);
    gate_open(&gates[0]);
    OK(xrt_stream_synchronize(nb));
    OK(xrt_stream_destroy(nb));
    OK(xrt_free(d));
}

typedef struct gate_later { gate *g; int ms; } gate_later;

static void *open_gate_later(void *arg)
{
    gate_later *l = (gate_later *)arg;
    sleep_ms(l->ms);
    gate_open(l->g);
    return NULL;
}

/* A kernel-like op on a blocking stream, then a synchronous copy back: the
   copy (on the NULL stream) waits for it, as cudaMemcpy does. */
static void test_synchronous_copy_waits_for_blocking_streams(void **state)
{
    unsigned char h[256];
    gate_later later = {&gates[0], 30};
    pthread_t t;
    xrt_stream s;
    void *d;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    set_behind_gate(&d, sizeof h, 7, &s);
    assert_int_equal(pthread_create(&t, NULL, open_gate_later, &later), 0);
    memset(h, 0xee, sizeof h);
    OK(xrt_memcpy(h, d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_bytes(h, sizeof h, 7);
    assert_int_equal(pthread_join(t, NULL), 0);
    OK(xrt_stream_destroy(s));
    OK(xrt_free(d));
}

/* XRT_STREAM_PER_THREAD: each thread's own blocking stream. Another
   thread's blocked per-thread stream holds nothing of this thread's back;
   the NULL stream waits for it, as for any blocking stream; it cannot be
   destroyed (its captures: test_graph). */
typedef struct per_thread_job { gate *g; int ran; xrt_status st; } per_thread_job;

static void *per_thread_main(void *arg)
{
    per_thread_job *j = (per_thread_job *)arg;
    xrt_stream s = NULL;
    if ((j->st = xrt_stream_per_thread(&s)) == XRT_SUCCESS && s == XRT_STREAM_PER_THREAD &&
        (j->st = xrt_launch_host_func(XRT_STREAM_PER_THREAD, gate_wait, j->g)) == XRT_SUCCESS)
        j->st = xrt_stream_synchronize(XRT_STREAM_PER_THREAD); /* its own gate: opened by the test */
    __atomic_store_n(&j->ran, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void test_per_thread_stream(void **state)
{
    per_thread_job job = {&gates[0], 0, XRT_ERROR_BACKEND};
    unsigned char h[64];
    unsigned f = 99;
    pthread_t t;
    void *d;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    OK(xrt_malloc(&d, sizeof h));
    assert_int_equal(start_thread(&t, xrt_test_backend, per_thread_main, &job), 0);
    gate_wait_entered(&gates[0]); /* the other thread's per-thread stream is blocked */
    OK(xrt_memset_async(d, 5, sizeof h, XRT_STREAM_PER_THREAD)); /* this thread's is not */
    OK(xrt_stream_synchronize(XRT_STREAM_PER_THREAD));
    OK(xrt_stream_query(XRT_STREAM_PER_THREAD));
    OK(xrt_stream_get_flags(XRT_STREAM_PER_THREAD, &f));
    assert_int_equal(f, XRT_STREAM_DEFAULT);
    assert_int_equal(xrt_stream_query(NULL), XRT_ERROR_NOT_READY); /* the NULL stream waits for blocking ones */
    assert_int_equal(xrt_stream_query(XRT_STREAM_LEGACY), XRT_ERROR_NOT_READY);
    gate_open(&gates[0]);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_true(job.ran);
    OK(job.st);
    OK(xrt_stream_synchronize(XRT_STREAM_LEGACY));
    OK(xrt_memcpy_async(h, d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST, XRT_STREAM_PER_THREAD));
    OK(xrt_stream_synchronize(XRT_STREAM_PER_THREAD));
    assert_bytes(h, sizeof h, 5);
    FAILS(xrt_stream_destroy(XRT_STREAM_PER_THREAD), XRT_ERROR_INVALID_HANDLE, "cannot be destroyed");
    FAILS(xrt_stream_destroy(XRT_STREAM_LEGACY), XRT_ERROR_INVALID_HANDLE, "cannot be destroyed");
    OK(xrt_free(d));
}

/* Work on the per-thread stream after NULL stream work waits for it: the
   per-thread stream is a blocking stream. */
static void test_per_thread_stream_follows_the_legacy_stream(void **state)
{
    unsigned char h[64];
    void *d;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    OK(xrt_malloc(&d, sizeof h));
    OK(xrt_memset(d, 0, sizeof h));
    OK(xrt_launch_host_func(NULL, gate_wait, &gates[0]));
    OK(xrt_memset_async(d, 1, sizeof h, NULL));
    OK(xrt_memset_async(d, 2, sizeof h, XRT_STREAM_PER_THREAD));
    sleep_ms(20);
    assert_int_equal(xrt_stream_query(XRT_STREAM_PER_THREAD), XRT_ERROR_NOT_READY);
    gate_open(&gates[0]);
    OK(xrt_stream_synchronize(XRT_STREAM_PER_THREAD));
    OK(xrt_memcpy(h, d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_bytes(h, sizeof h, 2);
    OK(xrt_free(d));
}

/* >> events */
static void test_events(void **state)
{
    static const unsigned flags[] = {XRT_EVENT_DEFAULT, XRT_EVENT_BLOCKING_SYNC, XRT_EVENT_DISABLE_TIMING,
                                     XRT_EVENT_BLOCKING_SYNC | XRT_EVENT_DISABLE_TIMING};
    xrt_event e0, e1, ef;
    xrt_stream s;
    void *d;
    float ms = -1.0f;
    size_t i;
    (void)state;
    OK(xrt_malloc(&d, (size_t)1 << 20));
    OK(xrt_stream_create(&s));
    OK(xrt_event_create(&e0, XRT_EVENT_DEFAULT));
    OK(xrt_event_create(&e1, XRT_EVENT_DEFAULT));
    OK(xrt_event_query(e0)); /* never recorded: complete, as in CUDA */
    OK(xrt_event_synchronize(e0));

    OK(xrt_event_record(e0, s));
    OK(xrt_memset_async(d, 9, (size_t)1 << 20, s));
    OK(xrt_event_record(e1, s));
    OK(xrt_event_synchronize(e1));
    OK(xrt_event_query(e0));
    OK(xrt_event_query(e1));
    if (caps() & XRT_CAP_EVENT_TIMING) {
        OK(xrt_event_elapsed_time(&ms, e0, e1));
        assert_true(ms >= 0.0f);
        OK(xrt_event_elapsed_time(&ms, e1, e1));
        assert_true(ms == 0.0f);
    } else {
        FAILS(xrt_event_elapsed_time(&ms, e0, e1), XRT_ERROR_UNSUPPORTED, "elapsed");
    }
    OK(xrt_event_record(e1, NULL)); /* re-record, on the NULL stream */
    OK(xrt_event_synchronize(e1));

    for (i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        OK(xrt_event_create(&ef, flags[i]));
        OK(xrt_memset_async(d, (int)i, 4096, s));
        OK(xrt_event_record(ef, s));
        OK(xrt_event_synchronize(ef));
        OK(xrt_event_query(ef));
        OK(xrt_event_destroy(ef));
    }
    OK(xrt_event_destroy(e0));
    OK(xrt_event_destroy(e1));
    OK(xrt_stream_destroy(s));
    OK(xrt_free(d));
}

/* An event recorded last on a stream has completed only when the stream's
   work before it has: after its synchronize, the stream is idle (a query is
   a success), and after the stream's synchronize, so is the event, every
   time (a few thousand rounds: a race shows in some). */
static void test_last_event_and_its_stream(void **state)
{
    static const unsigned flags[] = {XRT_EVENT_DISABLE_TIMING, XRT_EVENT_DEFAULT};
    xrt_stream s;
    xrt_event e;
    size_t f;
    int i, busy = 0;
    (void)state;
    OK(xrt_stream_create(&s));
    for (f = 0; f < sizeof flags / sizeof flags[0]; f++) {
        OK(xrt_event_create(&e, flags[f]));
        for (i = 0; i < 2000; i++) {
            OK(xrt_event_record(e, s));
            OK(xrt_event_synchronize(e));
            busy += xrt_stream_query(s) != XRT_SUCCESS;
            OK(xrt_event_record(e, s));
            OK(xrt_stream_synchronize(s));
            busy += xrt_event_query(e) != XRT_SUCCESS;
        }
        if (busy) fail_msg("event flags %u: %d of %d queries found work after a synchronize", flags[f], busy, 2 * i);
        OK(xrt_event_destroy(e));
    }
    OK(xrt_stream_destroy(s));
}

/* The time between two events, asked before the end event completes: not
   ready (as cudaEventElapsedTime), and the answer once it has. */
static void test_elapsed_time_before_the_end(void **state)
{
    xrt_stream s;
    xrt_event e0, e1;
    float ms = -1.0f;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    SKIP_UNLESS(caps() & XRT_CAP_EVENT_TIMING, "no event timing");
    OK(xrt_stream_create(&s));
    OK(xrt_event_create(&e0, XRT_EVENT_DEFAULT));
    OK(xrt_event_create(&e1, XRT_EVENT_DEFAULT));
    OK(xrt_event_record(e0, s));
    OK(xrt_launch_host_func(s, gate_wait, &gates[0]));
    OK(xrt_event_record(e1, s));
    gate_wait_entered(&gates[0]);
    assert_int_equal(xrt_event_elapsed_time(&ms, e0, e1), XRT_ERROR_NOT_READY);
    assert_true(ms == -1.0f);
    assert_int_equal(xrt_event_elapsed_time(&ms, e1, e0), XRT_ERROR_NOT_READY);
    sleep_ms(5);
    gate_open(&gates[0]);
    OK(xrt_stream_synchronize(s));
    OK(xrt_event_elapsed_time(&ms, e0, e1));
    assert_true(ms >= 5.0f);
    OK(xrt_event_destroy(e0));
    OK(xrt_event_destroy(e1));
    OK(xrt_stream_destroy(s));
}

/* cudaEventElapsedTime's order of answers: an event never recorded, or
   made with XRT_EVENT_DISABLE_TIMING, is an invalid handle whatever the
   other one's state; not ready only once both have records. */
static void test_elapsed_time_invalid_before_not_ready(void **state)
{
    xrt_stream s;
    xrt_event pending, never, untimed;
    float ms = -1.0f;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    SKIP_UNLESS(caps() & XRT_CAP_EVENT_TIMING, "no event timing");
    OK(xrt_stream_create(&s));
    OK(xrt_event_create(&pending, XRT_EVENT_DEFAULT));
    OK(xrt_event_create(&never, XRT_EVENT_DEFAULT));
    OK(xrt_event_create(&untimed, XRT_EVENT_DISABLE_TIMING));
    OK(xrt_launch_host_func(s, gate_wait, &gates[0]));
    OK(xrt_event_record(pending, s));
    OK(xrt_event_record(untimed, s));
    gate_wait_entered(&gates[0]);
    FAILS(xrt_event_elapsed_time(&ms, pending, never), XRT_ERROR_INVALID_HANDLE, "xrt_event_elapsed_time");
    FAILS(xrt_event_elapsed_time(&ms, never, pending), XRT_ERROR_INVALID_HANDLE, "xrt_event_elapsed_time");
    FAILS(xrt_event_elapsed_time(&ms, pending, untimed), XRT_ERROR_INVALID_HANDLE, "xrt_event_elapsed_time");
    FAILS(xrt_event_elapsed_time(&ms, untimed, pending), XRT_ERROR_INVALID_HANDLE, "xrt_event_elapsed_time");
    assert_int_equal(xrt_event_elapsed_time(&ms, pending, pending), XRT_ERROR_NOT_READY);
    assert_true(ms == -1.0f);
    gate_open(&gates[0]);
    OK(xrt_stream_synchronize(s));
    FAILS(xrt_event_elapsed_time(&ms, pending, never), XRT_ERROR_INVALID_HANDLE, "xrt_event_elapsed_time");
    OK(xrt_event_elapsed_time(&ms, pending, pending));
    OK(xrt_event_destroy(pending));
    OK(xrt_event_destroy(never));
    OK(xrt_event_destroy(untimed));
    OK(xrt_stream_destroy(s));
}

/* A wait on the NULL stream is an action there even when the event gives
   nothing to wait for (never recorded, or complete): the NULL stream waits
   for the blocking streams, and a blocking stream's later work waits for
   it (CUDA's "Stream synchronization behavior" names cudaStreamWaitEvent). */
static void test_legacy_wait_event_orders_blocking_streams(void **state)
{
    xrt_stream a, b;
    xrt_event never, done, eb;
    int round;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    OK(xrt_stream_create(&a));
    OK(xrt_stream_create(&b));
    OK(xrt_event_create(&never, XRT_EVENT_DISABLE_TIMING));
    OK(xrt_event_create(&done, XRT_EVENT_DISABLE_TIMING));
    OK(xrt_event_create(&eb, XRT_EVENT_DISABLE_TIMING));
    OK(xrt_event_record(done, b));
    OK(xrt_event_synchronize(done));
    for (round = 0; round < 2; round++) {
        gates[round].open = gates[round].entered = 0;
        OK(xrt_launch_host_func(a, gate_wait, &gates[round]));
        gate_wait_entered(&gates[round]);
        OK(xrt_stream_wait_event(NULL, round ? done : never));
        OK(xrt_event_record(eb, b));
        sleep_ms(20);
        assert_int_equal(xrt_event_query(eb), XRT_ERROR_NOT_READY); /* b -> the NULL stream's wait -> a */
        assert_int_equal(xrt_stream_query(NULL), XRT_ERROR_NOT_READY);
        gate_open(&gates[round]);
        OK(xrt_event_synchronize(eb));
        OK(xrt_stream_query(a));
    }
    OK(xrt_event_destroy(never));
    OK(xrt_event_destroy(done));
    OK(xrt_event_destroy(eb));
    OK(xrt_stream_destroy(a));
    OK(xrt_stream_destroy(b));
}

/* Stream B waits for an event recorded on A behind a blocked host function:
   B's copy cannot complete until A is released, and then sees A's data.
   Blocked streams get device-side work only: on a GPU, an async copy to
   pageable host memory returns only when it has completed, which would
   wait for the gate this thread has yet to open. With with_flags, the
   record and the wait are the calls with flags (XRT_EVENT_RECORD_DEFAULT,
   XRT_EVENT_WAIT_DEFAULT), and while A is blocked the flags that are not
   for this place are refused. */
static void stream_waits_for_blocked_stream(int with_flags)
{
    unsigned char h[256];
    xrt_stream a, b;
    xrt_event e;
    void *d, *d2;
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    OK(xrt_malloc(&d, sizeof h));
    OK(xrt_malloc(&d2, sizeof h));
    OK(xrt_memset(d, 0, sizeof h));
    OK(xrt_memset(d2, 0, sizeof h));
    OK(xrt_stream_create(&a));
    OK(xrt_stream_create(&b));
    OK(xrt_event_create(&e, XRT_EVENT_DISABLE_TIMING));

    OK(xrt_launch_host_func(a, gate_wait, &gates[0]));
    OK(xrt_memset_async(d, 0x5a, sizeof h, a));
    if (with_flags) {
        OK(xrt_event_record_with_flags(e, a, XRT_EVENT_RECORD_DEFAULT));
        OK(xrt_stream_wait_event_with_flags(b, e, XRT_EVENT_WAIT_DEFAULT));
    } else {
        OK(xrt_event_record(e, a));
        OK(xrt_stream_wait_event(b, e));
    }
    OK(xrt_memcpy_async(d2, d, sizeof h, XRT_MEMCPY_DEVICE_TO_DEVICE, b));
    sleep_ms(20);
    assert_int_equal(xrt_stream_query(b), XRT_ERROR_NOT_READY);
    assert_int_equal(xrt_event_query(e), XRT_ERROR_NOT_READY);
    if (with_flags) {
        FAILS(xrt_event_record_with_flags(e, a, XRT_EVENT_RECORD_EXTERNAL), XRT_ERROR_INVALID_VALUE, "");
        FAILS(xrt_stream_wait_event_with_flags(b, e, XRT_EVENT_WAIT_EXTERNAL), XRT_ERROR_INVALID_VALUE, "");
        FAILS(xrt_event_record_with_flags(e, a, 4), XRT_ERROR_INVALID_VALUE, "flags 0x4");
        FAILS(xrt_stream_wait_event_with_flags(b, e, 2), XRT_ERROR_INVALID_VALUE, "flags 0x2");
    }
    gate_open(&gates[0]);
    OK(xrt_stream_synchronize(b));
    OK(xrt_event_query(e));
    memset(h, 0xee, sizeof h);
    OK(xrt_memcpy(h, d2, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_bytes(h, sizeof h, 0x5a); /* B's copy ran after A's memset */
    if (with_flags) {
        OK(xrt_event_record_with_flags(e, NULL, XRT_EVENT_RECORD_DEFAULT)); /* the NULL stream, both ways */
        OK(xrt_stream_wait_event_with_flags(NULL, e, XRT_EVENT_WAIT_DEFAULT));
        OK(xrt_stream_synchronize(NULL));
    }

    OK(xrt_event_destroy(e));
    OK(xrt_stream_destroy(a));
    OK(xrt_stream_destroy(b));
    OK(xrt_free(d));
    OK(xrt_free(d2));
}

static void test_stream_wait_event(void **state)
{
    (void)state;
    stream_waits_for_blocked_stream(0);
}

/* The calls with flags, outside a capture: XRT_EVENT_RECORD_DEFAULT and
   XRT_EVENT_WAIT_DEFAULT are xrt_event_record and xrt_stream_wait_event;
   the EXTERNAL flags are for captures only (cudaEventRecordExternal,
   cudaEventWaitExternal: "invalid when used outside of capture"), and an
   unknown flag is refused. */
static void test_event_flags_outside_capture(void **state)
{
    (void)state;
    stream_waits_for_blocked_stream(1);
}

/* The same calls with the external flags in a capture: an event record node
   and an event wait node of the graph (HIP 5.2's runtime has no such call:
   "not supported"). */
static void test_event_flags_in_capture(void **state)
{
    xrt_stream s;
    xrt_event e;
    xrt_graph g;
    xrt_graph_info info;
    xrt_status want = xrt_test_backend && strcmp(xrt_test_backend, "hip") == 0 ? XRT_ERROR_UNSUPPORTED : XRT_SUCCESS;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_GRAPHS, "no graphs");
    OK(xrt_stream_create(&s));
    OK(xrt_event_create(&e, XRT_EVENT_DISABLE_TIMING));
    OK(xrt_stream_begin_capture(s, XRT_CAPTURE_MODE_GLOBAL));
    assert_int_equal(xrt_event_record_with_flags(e, s, XRT_EVENT_RECORD_EXTERNAL), want);
    assert_int_equal(xrt_stream_wait_event_with_flags(s, e, XRT_EVENT_WAIT_EXTERNAL), want);
    OK(xrt_stream_end_capture(s, &g));
    OK(xrt_graph_get_info(g, &info));
    assert_int_equal(info.nodes, want == XRT_SUCCESS ? 2 : 0);
    OK(xrt_graph_destroy(g));
    OK(xrt_event_destroy(e));
    OK(xrt_stream_destroy(s));
}

/* Waiting on an event that was never recorded imposes no wait. */
static void test_wait_unrecorded_event(void **state)
{
    xrt_stream s;
    xrt_event e;
    (void)state;
    OK(xrt_stream_create(&s));
    OK(xrt_event_create(&e, 0));
    OK(xrt_stream_wait_event(s, e));
    assert_stream_works(s, 0x21);
    OK(xrt_stream_wait_event(NULL, e)); /* the NULL stream can wait too */
    OK(xrt_stream_synchronize(NULL));
    OK(xrt_event_destroy(e));
    OK(xrt_stream_destroy(s));
}

/* >> host functions */
typedef struct seq_log { int n; int order[200]; } seq_log;
typedef struct seq_item { seq_log *log; int value; } seq_item;

static void seq_append(void *user)
{
    seq_item *it = (seq_item *)user;
    it->log->order[it->log->n++] = it->value;
}

static void test_host_func_order(void **state)
{
    static seq_log log;
    static seq_item items[200];
    unsigned char h[16];
    xrt_stream s;
    void *d;
    int i, k;
    (void)state;
    if (!(caps() & XRT_CAP_HOST_FUNC)) {
        FAILS(xrt_launch_host_func(NULL, seq_append, items), XRT_ERROR_UNSUPPORTED, "xrt_launch_host_func");
        return;
    }
    OK(xrt_stream_create(&s));
    OK(xrt_malloc(&d, sizeof h));
    for (k = 0; k < 2; k++) {
        xrt_stream on = k ? NULL : s;
        memset(&log, 0, sizeof log);
        for (i = 0; i < 200; i++) {
            items[i].log = &log;
            items[i].value = i;
            OK(xrt_launch_host_func(on, seq_append, &items[i]));
            if (i == 100) OK(xrt_memset_async(d, 0x44, sizeof h, on));
        }
        OK(xrt_memcpy_async(h, d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST, on));
        OK(xrt_stream_synchronize(on));
        assert_int_equal(log.n, 200);
        for (i = 0; i < 200; i++) assert_int_equal(log.order[i], i);
        assert_bytes(h, sizeof h, 0x44);
    }
    OK(xrt_free(d));
    OK(xrt_stream_destroy(s));
}

/* Streams are independent: with one blocked, the others run to completion.
   The blocked one gets device-side work only (see stream_waits_for_blocked_stream). */
static void test_stream_independence(void **state)
{
    enum { S = 4 };
    static unsigned char h[S][N];
    xrt_stream s[S];
    void *d[S];
    int i, blocked = (caps() & XRT_CAP_HOST_FUNC) != 0;
    (void)state;
    for (i = 0; i < S; i++) {
        OK(xrt_stream_create(&s[i]));
        OK(xrt_malloc(&d[i], N));
        memset(h[i], 0, N);
    }
    if (blocked) OK(xrt_launch_host_func(s[0], gate_wait, &gates[0]));
    for (i = 0; i < S; i++) OK(xrt_memset_async(d[i], i + 1, N, s[i]));
    for (i = 1; i < S; i++) {
        OK(xrt_memcpy_async(h[i], d[i], N, XRT_MEMCPY_DEVICE_TO_HOST, s[i]));
        OK(xrt_stream_synchronize(s[i]));
        assert_bytes(h[i], N, (unsigned char)(i + 1));
    }
    if (blocked) {
        assert_int_equal(xrt_stream_query(s[0]), XRT_ERROR_NOT_READY);
        gate_open(&gates[0]);
    }
    OK(xrt_memcpy_async(h[0], d[0], N, XRT_MEMCPY_DEVICE_TO_HOST, s[0]));
    OK(xrt_stream_synchronize(s[0]));
    assert_bytes(h[0], N, 1);
    for (i = 0; i < S; i++) {
        OK(xrt_stream_destroy(s[i]));
        OK(xrt_free(d[i]));
    }
}

/* >> pageable memory: CUDA's rule. A copy from pageable memory has read its
   source when the call returns (CUDA stages it), and a copy to pageable
   memory has written its destination (CUDA returns once it is done), even
   with the stream busy; copies between pinned and device memory stay
   asynchronous. */
static void sleep_20ms(void *user)
{
    (void)user;
    sleep_ms(20);
}

static void test_pageable_copies(void **state)
{
    unsigned char *h = (unsigned char *)malloc(N), *out = (unsigned char *)malloc(N), *pinned;
    int hf = (caps() & XRT_CAP_HOST_FUNC) != 0, k;
    xrt_stream s;
    void *d;
    (void)state;
    assert_non_null(h);
    assert_non_null(out);
    OK(xrt_stream_create(&s));
    OK(xrt_malloc(&d, N));
    for (k = 0; k < 2; k++) {
        xrt_stream on = k ? NULL : s;
        fill(h, N, 1);
        if (hf) OK(xrt_launch_host_func(on, sleep_20ms, NULL)); /* the stream is busy at the copy */
        OK(xrt_memcpy_async(d, h, N, XRT_MEMCPY_HOST_TO_DEVICE, on));
        fill(h, N, 2); /* the copy has its bytes already */
        OK(xrt_stream_synchronize(on));
        memset(out, 0, N);
        OK(xrt_memcpy(out, d, N, XRT_MEMCPY_DEVICE_TO_HOST));
        assert_filled(out, N, 1);

        if (hf) OK(xrt_launch_host_func(on, sleep_20ms, NULL));
        OK(xrt_memset_async(d, 0x6b, N, on));
        memset(out, 0, N);
        OK(xrt_memcpy_async(out, d, N, XRT_MEMCPY_DEVICE_TO_HOST, on));
        assert_bytes(out, N, 0x6b); /* written before the call returned, after the memset */
        OK(xrt_stream_synchronize(on));
    }
    if (hf) { /* pinned memory: the copy waits in the stream, the call does not */
        OK(xrt_malloc_host((void **)&pinned, N));
        fill(pinned, N, 3);
        OK(xrt_launch_host_func(s, gate_wait, &gates[0]));
        OK(xrt_memcpy_async(d, pinned, N, XRT_MEMCPY_HOST_TO_DEVICE, s));
        assert_int_equal(xrt_stream_query(s), XRT_ERROR_NOT_READY);
        gate_open(&gates[0]);
        OK(xrt_stream_synchronize(s));
        OK(xrt_memcpy(out, d, N, XRT_MEMCPY_DEVICE_TO_HOST));
        assert_filled(out, N, 3);
        OK(xrt_free_host(pinned));
    }
    OK(xrt_free(d));
    OK(xrt_stream_destroy(s));
    free(h);
    free(out);
}

/* >> a host function that fills its own stream. Where a backend lets host
   functions call it (the CPU backend), an enqueue from a stream's own host
   function never waits: the queue grows (only that host function's return
   could free a slot). Elsewhere the call is refused. */
enum { FLOOD = 5000 }; /* several times a queue's initial size */
static struct {
    xrt_stream s;
    void *d;
    int n, order[FLOOD];
    xrt_status first_error;
    int sent, done;
} flood;

static void flood_note(void *user) { flood.order[flood.n++] = (int)(intptr_t)user; }

static void flood_fill(void *user)
{
    int i;
    (void)user;
    flood.first_error = XRT_SUCCESS;
    for (i = 0; i < FLOOD; i++) {
        xrt_status st = xrt_launch_host_func(flood.s, flood_note, (void *)(intptr_t)i);
        if (st == XRT_SUCCESS && i == FLOOD / 2) st = xrt_memset_async(flood.d, 0x3e, 64, flood.s);
        if (st != XRT_SUCCESS) {
            flood.first_error = st;
            break;
        }
        __atomic_store_n(&flood.sent, i + 1, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&flood.done, 1, __ATOMIC_RELEASE);
}

static void test_host_func_fills_own_stream(void **state)
{
    int calls_allowed = on_cpu(), i; /* the CPU's rule (also through the tracer); the GPU runtimes refuse */
    unsigned char h[64];
    double end;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    memset(&flood, 0, sizeof flood);
    OK(xrt_stream_create(&flood.s));
    OK(xrt_malloc(&flood.d, sizeof h));
    OK(xrt_launch_host_func(flood.s, flood_fill, NULL));
    end = now_ms(CLOCK_MONOTONIC) + 10000.0 * xrt_test_slowdown();
    while (!__atomic_load_n(&flood.done, __ATOMIC_ACQUIRE) && now_ms(CLOCK_MONOTONIC) < end) sleep_ms(1);
    if (!__atomic_load_n(&flood.done, __ATOMIC_ACQUIRE))
        fail_msg("the host function hung at enqueue #%d onto its own stream", __atomic_load_n(&flood.sent, __ATOMIC_ACQUIRE) + 1);
    OK(xrt_stream_synchronize(flood.s));
    if (calls_allowed) {
        assert_int_equal(flood.first_error, XRT_SUCCESS);
        assert_int_equal(flood.n, FLOOD);
        for (i = 0; i < FLOOD; i++)
            if (flood.order[i] != i) fail_msg("op %d ran at position %d", flood.order[i], i);
        OK(xrt_memcpy(h, flood.d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST));
        assert_bytes(h, sizeof h, 0x3e);
    } else {
        assert_int_equal(flood.first_error, XRT_ERROR_NOT_PERMITTED);
        assert_int_equal(flood.n, 0);
    }
    assert_stream_works(flood.s, 0x3f); /* the grown queue goes on working */
    OK(xrt_free(flood.d));
    OK(xrt_stream_destroy(flood.s));
}

/* Launch attributes, each call once (cudaLaunchKernelEx and the kernel
   node attributes): the launch of `fill` (16 bytes of args) with a
   priority, and a kernel node given one and its copy. The rules:
   tests/test_graph_nodes.c. */
static void suite_launch_attributes(xrt_function f, xrt_stream s, void *d, unsigned char *args)
{
    xrt_launch_attribute a;
    xrt_launch_config c;
    xrt_graph_node_params p;
    xrt_graph_node k[2];
    xrt_launch_attr_value v;
    unsigned char h[64];
    xrt_graph g;
    xrt_status st;
    memset(&a, 0, sizeof a);
    a.id = XRT_LAUNCH_ATTR_PRIORITY, a.val.priority = -1;
    memset(&c, 0, sizeof c);
    c.grid.x = 4, c.block.x = 16, c.grid.y = c.grid.z = c.block.y = c.block.z = 1;
    c.stream = s, c.attrs = &a, c.num_attrs = 1;
    args[8] = 0x7d;
    st = xrt_launch_kernel_ex(&c, f, args, 16);
    if (st == XRT_ERROR_UNSUPPORTED) xrt_get_last_error(); /* HIP 5 */
    else OK(st);
    OK(xrt_memcpy_async(h, d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST, s));
    OK(xrt_stream_synchronize(s));
    assert_bytes(h, sizeof h, st == XRT_SUCCESS ? 0x7d : 0x7c);
    if (!(caps() & XRT_CAP_GRAPHS) || xrt_graph_create(&g, 0) != XRT_SUCCESS) {
        xrt_get_last_error();
        return;
    }
    memset(&p, 0, sizeof p);
    p.type = XRT_GRAPH_NODE_KERNEL;
    p.kernel.function = f, p.kernel.grid = c.grid, p.kernel.block = c.block;
    p.kernel.args = args, p.kernel.args_size = 16;
    OK(xrt_graph_add_node(&k[0], g, NULL, 0, &p));
    OK(xrt_graph_add_node(&k[1], g, NULL, 0, &p));
    st = xrt_graph_kernel_node_set_attribute(k[0], XRT_LAUNCH_ATTR_PRIORITY, &a.val);
    if (st == XRT_ERROR_UNSUPPORTED) xrt_get_last_error(); /* HIP 5 */
    if (st == XRT_SUCCESS) {
        OK(xrt_graph_kernel_node_copy_attributes(k[1], k[0]));
        OK(xrt_graph_kernel_node_get_attribute(k[1], XRT_LAUNCH_ATTR_PRIORITY, &v));
        assert_int_equal(v.priority, -1);
    }
    OK(xrt_graph_destroy(g));
}

/* A kernel written twice, as C source for the CPU and as PTX for CUDA (the
   image for the device is picked), launched on a stream; without modules,
   loading is UNSUPPORTED. (tests/test_kernels.c has the rest.) */
static void test_kernel_launch(void **state)
{
    static const char src[] =
        "typedef struct { unsigned x, y, z; } d3;\n"
        "typedef struct { d3 grid_dim, block_dim, block_idx; void *shared; unsigned long shared_bytes; } ctx;\n"
        "void fill(const ctx *c, void *a) {\n"
        "  unsigned char *p = *(unsigned char **)a, v = ((unsigned char *)a)[8];\n"
        "  for (unsigned t = 0; t < c->block_dim.x; t++) p[c->block_idx.x * c->block_dim.x + t] = v;\n"
        "}\n";
    static const char ptx[] =
        ".version 7.5\n"
        ".target sm_75\n"
        ".address_size 64\n"
        ".visible .entry fill(.param .u64 fill_p, .param .u32 fill_v, .param .u32 fill_n)\n"
        "{\n"
        "	.reg .b16 %rs<2>;\n"
        "	.reg .b32 %r<6>;\n"
        "	.reg .b64 %rd<5>;\n"
        "	ld.param.u64 %rd1, [fill_p];\n"
        "	ld.param.u32 %r1, [fill_v];\n"
        "	mov.u32 %r2, %ctaid.x;\n"
        "	mov.u32 %r3, %ntid.x;\n"
        "	mov.u32 %r4, %tid.x;\n"
        "	mad.lo.s32 %r5, %r2, %r3, %r4;\n"
        "	cvta.to.global.u64 %rd2, %rd1;\n"
        "	cvt.u64.u32 %rd3, %r5;\n"
        "	add.s64 %rd4, %rd2, %rd3;\n"
        "	cvt.u16.u32 %rs1, %r1;\n"
        "	st.global.u8 [%rd4], %rs1;\n"
        "	ret;\n"
        "}\n"
        ".visible .entry k()\n"
        "{\n"
        "	ret;\n"
        "}\n"
;
    xrt_module_image im[2];
    xrt_module m = NULL;
    xrt_function f = NULL;
    xrt_function_attributes fa;
    xrt_dim3 grid = {4, 1, 1}, block = {16, 1, 1};
    unsigned char args[16] = {0}, h[64];
    char needle[64];
    xrt_stream s;
    void *d;
    (void)state;
    setenv("XRT_CACHE", "0", 1); /* built privately: the suite leaves nothing in the user's cache */
    im[0].kind = XRT_IMAGE_CPU_C_SOURCE, im[0].data = src, im[0].size = sizeof src - 1, im[0].arch = NULL;
    im[1].kind = XRT_IMAGE_CUDA_PTX, im[1].data = ptx, im[1].size = sizeof ptx - 1, im[1].arch = "compute_75";
    if (!(caps() & XRT_CAP_MODULES)) {
        snprintf(needle, sizeof needle, "not supported by backend %s", current_backend());
        FAILS(xrt_module_load(&m, im, 2, NULL), XRT_ERROR_UNSUPPORTED, needle);
        assert_null(m);
        return;
    }
    OK(xrt_module_load(&m, im, 2, NULL));
    OK(xrt_module_get_function(&f, m, "fill"));
    memset(&fa, 0, sizeof fa);
    OK(xrt_function_get_attributes(&fa, f));
    assert_true(fa.max_threads_per_block >= (int)block.x);
    OK(xrt_stream_create(&s));
    OK(xrt_malloc(&d, sizeof h));
    memcpy(args, &d, sizeof d);
    args[8] = 0x7c;
    OK(xrt_launch_kernel(f, grid, block, 0, s, args, sizeof args));
    OK(xrt_memcpy_async(h, d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST, s));
    OK(xrt_stream_synchronize(s));
    assert_bytes(h, sizeof h, 0x7c);
    suite_launch_attributes(f, s, d, args);
    OK(xrt_free(d));
    OK(xrt_stream_destroy(s));
    OK(xrt_module_unload(m));
}

/* A module's variable written and read by name and through its address;
   a function's dynamic shared memory limit; occupancy. C source for the
   CPU, PTX for CUDA (tests/test_kernels.c has the rest). */
static void test_module_global_and_occupancy(void **state)
{
    static const char src[] = "#include \"xrt.h\"\n"
                              "int table[16];\n"
                              "const xrt_kernel_param k_xrt_params[] = {{0, 4}, {8, 8}, {0, 0}};\n"
                              "void k(const xrt_kernel_ctx *c, void *a) { (void)c; table[15] = *(int *)a; }\n";
    static const char ptx[] = ".version 7.5\n"
                              ".target sm_75\n"
                              ".address_size 64\n"
                              ".visible .global .align 4 .b8 table[64];\n"
                              ".visible .entry k()\n"
                              "{\n"
                              "	ret;\n"
                              "}\n";
    xrt_module_image im[2];
    xrt_module m = NULL;
    xrt_function f = NULL;
    xrt_function_attributes fa;
    int in[16], back[16], i, n = 0, grid = 0, block = 0;
    size_t size = 0;
    void *p = NULL;
    (void)state;
    setenv("XRT_CACHE", "0", 1);
    im[0].kind = XRT_IMAGE_CPU_C_SOURCE, im[0].data = src, im[0].size = sizeof src - 1, im[0].arch = NULL;
    im[1].kind = XRT_IMAGE_CUDA_PTX, im[1].data = ptx, im[1].size = sizeof ptx - 1, im[1].arch = "compute_75";
    SKIP_UNLESS(caps() & XRT_CAP_MODULES, "the backend loads no modules (XRT_CAP_MODULES)");
    OK(xrt_module_load(&m, im, 2, NULL));
    OK(xrt_module_get_function(&f, m, "k"));
    OK(xrt_module_get_global(&p, &size, m, "table"));
    assert_non_null(p);
    assert_int_equal(size, sizeof in);
    for (i = 0; i < 16; i++) in[i] = 3 * i;
    OK(xrt_memcpy_to_symbol(m, "table", in, sizeof in, 0, XRT_MEMCPY_HOST_TO_DEVICE));
    memset(back, 0, sizeof back);
    OK(xrt_memcpy_from_symbol(back, m, "table", sizeof back, 0, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_memory_equal(back, in, sizeof in);
    OK(xrt_memcpy_to_symbol_async(m, "table", in, sizeof in / 2, sizeof in / 2, XRT_MEMCPY_DEFAULT, NULL));
    OK(xrt_memcpy_from_symbol_async(back, m, "table", sizeof back, 0, XRT_MEMCPY_DEFAULT, NULL));
    OK(xrt_stream_synchronize(NULL));
    assert_memory_equal(back + 8, in, sizeof in / 2);
    OK(xrt_memcpy(back, p, sizeof back, XRT_MEMCPY_DEFAULT));
    assert_memory_equal(back, in, sizeof in / 2);
    FAILS(xrt_memcpy_to_symbol(m, "table", in, sizeof in, 1, XRT_MEMCPY_HOST_TO_DEVICE), XRT_ERROR_INVALID_VALUE,
          "past the end");
    FAILS(xrt_module_get_global(&p, &size, m, "no_such_table"), XRT_ERROR_NOT_FOUND, "no_such_table");
    OK(xrt_function_set_attribute(f, XRT_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 32 << 10));
    OK(xrt_function_set_cache_config(f, XRT_FUNC_CACHE_PREFER_SHARED));
    FAILS(xrt_function_set_cache_config(f, (xrt_func_cache)4), XRT_ERROR_INVALID_VALUE, "none of XRT_FUNC_CACHE_*");
    OK(xrt_function_get_attributes(&fa, f));
    assert_int_equal(fa.max_dynamic_shared_bytes + fa.shared_size_bytes >= (32 << 10), 1);
    OK(xrt_occupancy_max_active_blocks_per_multiprocessor(&n, f, 64, 0));
    assert_true(n >= 1);
    OK(xrt_occupancy_max_potential_block_size(&grid, &block, f, 0, 0));
    assert_true(grid >= 1 && block >= 1);
    { /* the layout k's C source declares; the PTX's k has no parameters, HIP cannot tell */
        int v = 77;
        double w = 0;
        void *params[2];
        xrt_dim3 d1 = {1, 1, 1};
        size_t off = 1, sz = 0;
        xrt_status st = xrt_function_get_param_info(f, 1, &off, &sz);
        params[0] = &v, params[1] = &w;
        if (st != XRT_SUCCESS) {
            assert_true(st == XRT_ERROR_INVALID_VALUE || st == XRT_ERROR_UNSUPPORTED);
            assert_false(on_cpu());
            OK(xrt_module_unload(m));
            return;
        }
        assert_true(off == 8 && sz == 8);
        FAILS(xrt_function_get_param_info(f, 2, &off, &sz), XRT_ERROR_INVALID_VALUE, "no parameter 2");
        OK(xrt_launch_kernel_params(f, d1, d1, 0, NULL, params));
        OK(xrt_memcpy_from_symbol(back, m, "table", sizeof back, 0, XRT_MEMCPY_DEFAULT));
        assert_int_equal(back[15], 77);
    }
    OK(xrt_module_unload(m));
}

/* >> free hooks: every free path tells the subscribers, with the
   allocation's base, size and a generation of its own */
typedef struct hook_log { int calls, foreign; uintptr_t base; size_t size; uint64_t gen; } hook_log;
static pthread_t hook_thread; /* the thread that frees */

static void hook_record(void *user, uintptr_t base, size_t size, uint64_t gen)
{
    hook_log *l = (hook_log *)user;
    l->calls++;
    if (!pthread_equal(pthread_self(), hook_thread)) l->foreign++; /* REFERENCE.md: on the freeing thread */
    l->base = base;
    l->size = size;
    l->gen = gen;
}

/* Every graph call once, on every backend: a memset and a copy captured,
   launched twice; where the backend has no graphs, each call says so. */
static void test_graph_calls(void **state)
{
    xrt_stream s;
    xrt_graph g, g2;
    xrt_graph_exec x;
    xrt_graph_info info;
    xrt_capture_status cs;
    xrt_capture_mode mode;
    xrt_status st;
    unsigned char *d, h[N];
    (void)state;
    OK(xrt_stream_create(&s));
    OK(xrt_malloc((void **)&d, N));
    if (!(caps() & XRT_CAP_GRAPHS)) {
        FAILS(xrt_stream_begin_capture(s, XRT_CAPTURE_MODE_GLOBAL), XRT_ERROR_UNSUPPORTED, "not supported");
        FAILS(xrt_stream_is_capturing(s, &cs), XRT_ERROR_UNSUPPORTED, "not supported");
        FAILS(xrt_stream_end_capture(s, &g), XRT_ERROR_UNSUPPORTED, "not supported");
        mode = XRT_CAPTURE_MODE_RELAXED;
        FAILS(xrt_thread_exchange_stream_capture_mode(&mode), XRT_ERROR_UNSUPPORTED, "not supported");
        OK(xrt_stream_destroy(s));
        OK(xrt_free(d));
        return;
    }
    mode = XRT_CAPTURE_MODE_THREAD_LOCAL;
    OK(xrt_thread_exchange_stream_capture_mode(&mode));
    assert_int_equal(mode, XRT_CAPTURE_MODE_GLOBAL);
    OK(xrt_thread_exchange_stream_capture_mode(&mode)); /* back */
    assert_int_equal(mode, XRT_CAPTURE_MODE_THREAD_LOCAL);
    OK(xrt_stream_begin_capture(s, XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_stream_is_capturing(s, &cs));
    assert_int_equal(cs, XRT_CAPTURE_STATUS_ACTIVE);
    if ((st = xrt_stream_get_capture_info(s, &cs, NULL)) == XRT_SUCCESS) /* CUDA before 12.3 cannot tell */
        assert_int_equal(cs, XRT_CAPTURE_STATUS_ACTIVE);
    else
        assert_int_equal(xrt_get_last_error(), XRT_ERROR_UNSUPPORTED);
    OK(xrt_memset_async(d, 7, N, s));
    OK(xrt_memcpy_async(h, d, N, XRT_MEMCPY_DEVICE_TO_HOST, s)); /* pageable: captured all the same */
    OK(xrt_stream_end_capture(s, &g));
    OK(xrt_graph_get_info(g, &info));
    assert_true(info.nodes == 2 && info.sets == 1 && info.copies == 1 && info.edges == 1);
    if (xrt_graph_debug_dot_print(g, "/dev/null", XRT_GRAPH_DEBUG_DOT_VERBOSE) != XRT_SUCCESS) /* the runtime lacks it */
        assert_int_equal(xrt_get_last_error(), XRT_ERROR_UNSUPPORTED);
    OK(xrt_graph_instantiate(&x, g));
    OK(xrt_stream_begin_capture(s, XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_memset_async(d, 9, N, s));
    OK(xrt_memcpy_async(h, d, N, XRT_MEMCPY_DEVICE_TO_HOST, s));
    OK(xrt_stream_end_capture(s, &g2));
    memset(h, 0, N);
    OK(xrt_graph_launch(x, s));
    OK(xrt_stream_synchronize(s));
    assert_bytes(h, N, 7);
    OK(xrt_graph_exec_update(x, g2));
    OK(xrt_graph_launch(x, NULL));
    OK(xrt_stream_synchronize(NULL));
    assert_bytes(h, N, 9);
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_instantiate_with_flags(&x, g, XRT_GRAPH_INSTANTIATE_AUTO_FREE_ON_LAUNCH));
    if ((st = xrt_graph_upload(x, s)) != XRT_SUCCESS) { /* HIP 5.2 has no hipGraphUpload */
        assert_int_equal(st, XRT_ERROR_UNSUPPORTED);
        xrt_get_last_error();
    }
    memset(h, 0, N);
    OK(xrt_graph_launch(x, s));
    OK(xrt_stream_synchronize(s));
    assert_bytes(h, N, 7);
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    OK(xrt_graph_destroy(g2));
    OK(xrt_stream_destroy(s));
    OK(xrt_free(d));
}

/* >> graphs built node by node: each call once where the backend builds
   them (tests/test_graph_nodes.c has the behaviour) */
static void count_fn(void *user) { ++*(int *)user; }

static void test_graph_node_calls(void **state)
{
    xrt_stream s;
    xrt_graph g, c, c2;
    xrt_graph_exec x;
    xrt_graph_node a, b, found, list[2];
    xrt_graph_node_params p;
    xrt_graph_exec_update_result r;
    xrt_host_node_params hp = {count_fn, NULL};
    size_t n = 2;
    int count = 0;
    xrt_status st;
    (void)state;
    hp.user = &count;
    if ((st = xrt_graph_create(&g, 0)) != XRT_SUCCESS) {
        assert_int_equal(st, XRT_ERROR_UNSUPPORTED);
        assert_int_equal(xrt_get_last_error(), XRT_ERROR_UNSUPPORTED);
        return;
    }
    OK(xrt_stream_create(&s));
    OK(xrt_graph_add_host_node(&a, g, NULL, 0, &hp));
    memset(&p, 0, sizeof p);
    p.type = XRT_GRAPH_NODE_EMPTY;
    OK(xrt_graph_add_node(&b, g, NULL, 0, &p));
    OK(xrt_graph_add_dependencies(g, &a, &b, 1));
    OK(xrt_graph_get_nodes(g, list, &n));
    assert_int_equal(n, 2);
    OK(xrt_graph_get_root_nodes(g, list, &n));
    assert_true(n == 1 && list[0] == a);
    OK(xrt_graph_get_edges(g, NULL, NULL, &n));
    assert_int_equal(n, 1);
    OK(xrt_graph_node_get_dependencies(b, NULL, &n));
    assert_int_equal(n, 1);
    OK(xrt_graph_node_get_dependent_nodes(a, NULL, &n));
    assert_int_equal(n, 1);
    OK(xrt_graph_node_get_params(a, &p));
    assert_true(p.type == XRT_GRAPH_NODE_HOST && p.host.user == &count);
    OK(xrt_graph_node_set_params(a, &p));
    OK(xrt_graph_clone(&c, g));
    OK(xrt_graph_node_find_in_clone(&found, a, c));
    OK(xrt_graph_instantiate(&x, g));
    OK(xrt_graph_exec_node_set_params(x, a, &p));
    OK(xrt_graph_exec_update_with_result(x, c, &r));
    assert_int_equal(r.result, XRT_GRAPH_EXEC_UPDATE_SUCCESS);
    OK(xrt_graph_launch(x, s));
    OK(xrt_stream_synchronize(s));
    assert_int_equal(count, 1);
    if ((st = xrt_stream_begin_capture_to_graph(s, g, &b, 1, XRT_CAPTURE_MODE_GLOBAL)) == XRT_SUCCESS) {
        OK(xrt_launch_host_func(s, count_fn, &count));
        OK(xrt_stream_end_capture(s, &c2));
        assert_ptr_equal(c2, g);
    } else { /* a runtime without cudaStreamBeginCaptureToGraph (HIP before ROCm 6.2) */
        assert_int_equal(st, XRT_ERROR_UNSUPPORTED);
        assert_false(on_cpu());
        assert_non_null(strstr(xrt_get_last_error_string(), "BeginCaptureToGraph"));
        xrt_get_last_error();
    }
    OK(xrt_graph_remove_dependencies(g, &a, &b, 1));
    OK(xrt_graph_destroy_node(b));
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(c));
    OK(xrt_graph_destroy(g));
    OK(xrt_stream_destroy(s));
}

/* Copy nodes of 3-D params: each call once where the backend builds graphs
   (tests/test_pitched.c has the behaviour). */
static void test_graph_copy_node_calls(void **state)
{
    static unsigned char h[256], back[256];
    xrt_stream s;
    xrt_graph g;
    xrt_graph_exec x;
    xrt_graph_node n;
    xrt_memcpy_3d_parms p, got;
    void *d;
    size_t i;
    uint64_t mark;
    unsigned on = 0;
    xrt_status st;
    (void)state;
    if ((st = xrt_graph_create(&g, 0)) != XRT_SUCCESS) {
        assert_int_equal(st, XRT_ERROR_UNSUPPORTED);
        xrt_get_last_error();
        return;
    }
    OK(xrt_stream_create(&s));
    OK(xrt_malloc(&d, 256));
    for (i = 0; i < sizeof h; i++) h[i] = (unsigned char)(i * 7 + 1);
    OK(xrt_memcpy(d, h, 256, XRT_MEMCPY_HOST_TO_DEVICE));
    memset(&p, 0, sizeof p);
    p.src_ptr = xrt_make_pitched_ptr(d, 32, 32, 4); /* 2 slices of 4 rows of 32 bytes */
    p.dst_ptr = xrt_make_pitched_ptr((char *)d + 128, 32, 32, 4);
    p.src_pos = xrt_make_pos(1, 1, 0);
    p.extent = xrt_make_extent(5, 3, 1);
    p.kind = XRT_MEMCPY_DEVICE_TO_DEVICE;
    OK(xrt_graph_add_memcpy_node(&n, g, NULL, 0, &p));
    OK(xrt_graph_memcpy_node_get_params(n, &got));
    assert_int_equal(got.extent.height, 3);
    p.extent.height = 1;
    OK(xrt_graph_memcpy_node_set_params(n, &p));
    OK(xrt_graph_instantiate(&x, g));
    p.src_pos = xrt_make_pos(2, 0, 0);
    OK(xrt_graph_exec_memcpy_node_set_params(x, n, &p));
    if ((st = xrt_graph_node_set_enabled(x, n, 1)) == XRT_SUCCESS) { /* HIP 5.2 has no hipGraphNodeSetEnabled */
        OK(xrt_graph_node_get_enabled(x, n, &on));
        assert_int_equal(on, 1);
    } else {
        assert_int_equal(st, XRT_ERROR_UNSUPPORTED);
        xrt_get_last_error();
    }
    OK(xrt_graph_launch(x, s));
    OK(xrt_stream_synchronize(s));
    OK(xrt_memcpy(back, d, 256, XRT_MEMCPY_DEVICE_TO_HOST));
    for (i = 0; i < 5; i++) assert_int_equal(back[128 + i], h[2 + i]);
    assert_int_equal(back[128 + 5], h[128 + 5]);
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    OK(xrt_free(d));
    OK(xrt_stream_destroy(s));
    if ((st = xrt_device_graph_mem_trim(0)) != XRT_SUCCESS) { /* HIP 5.2 has no hipDeviceGraphMemTrim */
        assert_int_equal(st, XRT_ERROR_UNSUPPORTED);
        xrt_get_last_error();
    }
    if ((st = xrt_device_get_graph_mem_attribute(0, XRT_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH, &mark)) == XRT_SUCCESS) {
        mark = 0;
        OK(xrt_device_set_graph_mem_attribute(0, XRT_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH, &mark));
    } else {
        assert_int_equal(st, XRT_ERROR_UNSUPPORTED); /* HIP 5.2 has no hipDeviceGetGraphMemAttribute */
        xrt_get_last_error();
    }
}

/* >> peers: between the first and the last device (the same one where there
   is one), at odd sizes and offsets; access errors as CUDA's. */
static void peer_round_trip(int d0, int d1, int async)
{
    static unsigned char h[N], back[N];
    void *a, *b;
    xrt_stream s = NULL;
    OK(xrt_set_device(d0));
    OK(xrt_malloc(&a, N));
    OK(xrt_set_device(d1));
    OK(xrt_malloc(&b, N));
    if (async) OK(xrt_stream_create(&s));
    fill(h, N, (unsigned)(d0 + 3 * d1 + async));
    OK(xrt_set_device(d0));
    OK(xrt_memcpy(a, h, N, XRT_MEMCPY_HOST_TO_DEVICE));
    OK(xrt_memset(b, 0, N)); /* any device's memory is set from any device */
    /* The memset is queued on device d0's legacy stream (it does not wait,
       as cudaMemset), and s is d1's: a legacy stream orders only its own
       device's blocking streams, so the program waits, as a CUDA one must. */
    OK(xrt_device_synchronize());
    if (async) {
        OK(xrt_memcpy_peer_async((char *)b + 5, d1, (char *)a + 3, d0, N - 9, s));
        OK(xrt_stream_synchronize(s));
    } else {
        OK(xrt_memcpy_peer((char *)b + 5, d1, (char *)a + 3, d0, N - 9));
    }
    OK(xrt_memcpy(back, b, N, XRT_MEMCPY_DEFAULT));
    assert_bytes(back, 5, 0);
    assert_memory_equal(back + 5, h + 3, N - 9);
    assert_bytes(back + N - 4, 4, 0);
    FAILS(xrt_memcpy_peer(b, d1, a, d0, N + 1), XRT_ERROR_INVALID_VALUE, "overrun its allocation");
    if (s) OK(xrt_stream_destroy(s));
    OK(xrt_free(a));
    OK(xrt_free(b));
}

/* The device's attributes agree with its properties (tests/test_devices.c
   checks every attribute and the errors). */
static void test_device_attribute(void **state)
{
    xrt_device_prop p;
    int v = 0, version = 0;
    (void)state;
    OK(xrt_get_device_properties(&p, 0));
    OK(xrt_device_get_attribute(&v, XRT_DEVATTR_MULTIPROCESSOR_COUNT, 0));
    assert_int_equal(v, p.multiprocessor_count);
    OK(xrt_device_get_attribute(&v, XRT_DEVATTR_WARP_SIZE, 0));
    assert_int_equal(v, p.warp_size);
    OK(xrt_driver_get_version(&version));
    assert_true(version >= 0);
}

static int pci_attribute(xrt_device_attr a, int device)
{
    int v = -12345;
    OK(xrt_device_get_attribute(&v, a, device));
    return v;
}

/* A GPU's PCI address, as the runtime's cudaDeviceGetPCIBusId writes it,
   finds the device again. Devices that are not GPUs (the CPU's, also behind
   a plugin that forwards to the CPU, such as the tracer) have none. */
static void test_pci_bus_id(void **state)
{
    char id[XRT_PCI_BUS_ID_SIZE + 3], want[32];
    int n = 0, d, found = -1;
    xrt_test_log_capture();
    (void)state;
    OK(xrt_get_device_count(&n));
    for (d = 0; d < n; d++) {
        if (on_cpu()) {
            FAILS(xrt_device_get_pci_bus_id(id, (int)sizeof id, d), XRT_ERROR_UNSUPPORTED, "no PCI address");
            FAILS(xrt_device_get_by_pci_bus_id(&found, "0000:00:00.0"), XRT_ERROR_INVALID_DEVICE, "no device");
            continue;
        }
        OK(xrt_device_get_pci_bus_id(id, (int)sizeof id, d));
        snprintf(want, sizeof want, "%04x:%02x:%02x.0", pci_attribute(XRT_DEVATTR_PCI_DOMAIN_ID, d),
                 pci_attribute(XRT_DEVATTR_PCI_BUS_ID, d), pci_attribute(XRT_DEVATTR_PCI_DEVICE_ID, d));
        assert_string_equal(id, want);
        OK(xrt_device_get_by_pci_bus_id(&found, id));
        assert_int_equal(found, d);
        found = -1;
        id[10] = 0; /* "dddd:bb:dd" */
        OK(xrt_device_get_by_pci_bus_id(&found, id));
        assert_int_equal(found, d);
        found = -1; /* "bb:dd.f", upper case */
        snprintf(want, sizeof want, "%02X:%02X.0", pci_attribute(XRT_DEVATTR_PCI_BUS_ID, d),
                 pci_attribute(XRT_DEVATTR_PCI_DEVICE_ID, d));
        OK(xrt_device_get_by_pci_bus_id(&found, want));
        assert_int_equal(found, d);
        found = -1;
    }
    FAILS(xrt_device_get_by_pci_bus_id(&found, "7fff:ee:1f.7"), XRT_ERROR_INVALID_DEVICE, "no device");
    FAILS(xrt_device_get_pci_bus_id(id, (int)sizeof id, n), XRT_ERROR_INVALID_DEVICE, "out of range");
    FAILS(xrt_device_get_pci_bus_id(id, -1 + XRT_PCI_BUS_ID_SIZE, 0), XRT_ERROR_INVALID_VALUE, "needs 13 bytes");
    FAILS(xrt_device_get_pci_bus_id(NULL, 64, 0), XRT_ERROR_INVALID_VALUE, "bus_id is NULL");
    FAILS(xrt_device_get_by_pci_bus_id(NULL, "0000:41:00.0"), XRT_ERROR_INVALID_VALUE, "device is NULL");
    FAILS(xrt_device_get_by_pci_bus_id(&found, NULL), XRT_ERROR_INVALID_VALUE, "bus_id is NULL");
    {
        static const char *const bad[] = {"", "41", "0000:41", "0000:41:00.8", "0000:41:00.0 ", "g000:41:00.0",
                                          "0000::00.0", "0000:41:00:0", "0000:141:00.0", ":41:00.0",
                                          "0000:41:00.", "123456789:41:00.0", "0000.41:00"};
        size_t i;
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
            FAILS(xrt_device_get_by_pci_bus_id(&found, bad[i]), XRT_ERROR_INVALID_VALUE, "is no PCI bus id");
    }
    assert_int_equal(found, -1);
}

static void test_peers(void **state)
{
    int n = 0, can = -1, last;
    (void)state;
    OK(xrt_get_device_count(&n));
    last = n - 1;
    OK(xrt_device_can_access_peer(&can, 0, 0));
    assert_int_equal(can, 0); /* a device is not its own peer */
    OK(xrt_set_device(0));
    FAILS(xrt_device_enable_peer_access(0, 0), XRT_ERROR_INVALID_DEVICE, "device");
    FAILS(xrt_device_enable_peer_access(n, 0), XRT_ERROR_INVALID_DEVICE, "out of range");
    if (n >= 2) {
        OK(xrt_device_can_access_peer(&can, 0, last));
        if (can) {
            OK(xrt_device_enable_peer_access(last, 0));
            FAILS(xrt_device_enable_peer_access(last, 0), XRT_ERROR_PEER_ACCESS_ALREADY_ENABLED, "already");
            OK(xrt_device_disable_peer_access(last));
            FAILS(xrt_device_disable_peer_access(last), XRT_ERROR_PEER_ACCESS_NOT_ENABLED, "enabled");
        }
    }
    peer_round_trip(0, last, 0);
    peer_round_trip(last, 0, 1);
    OK(xrt_set_device(0));
}

/* cudaDeviceGetP2PAttribute: the link between two devices, its access as
   xrt_device_can_access_peer answers; one device is no link. */
static void test_p2p_attributes(void **state)
{
    int cpu_like = !xrt_test_backend || (strcmp(xrt_test_backend, "cuda") && strcmp(xrt_test_backend, "hip"));
    int n = 0, can = -1, v = -1, last;
    (void)state;
    OK(xrt_get_device_count(&n));
    last = n - 1;
    if (n >= 2) {
        OK(xrt_device_can_access_peer(&can, 0, last));
        OK(xrt_device_get_p2p_attribute(&v, XRT_P2P_ATTR_ACCESS_SUPPORTED, 0, last));
        assert_int_equal(v, can);
        OK(xrt_device_get_p2p_attribute(&v, XRT_P2P_ATTR_PERFORMANCE_RANK, last, 0));
        assert_true(v >= 0);
        OK(xrt_device_get_p2p_attribute(&v, XRT_P2P_ATTR_NATIVE_ATOMIC_SUPPORTED, 0, last));
        if (cpu_like) assert_int_equal(v, 1); /* one host memory */
        OK(xrt_device_get_p2p_attribute(&v, XRT_P2P_ATTR_CUDA_ARRAY_ACCESS_SUPPORTED, 0, last));
        if (cpu_like) assert_int_equal(v, 0); /* no CUDA arrays */
        FAILS(xrt_device_get_p2p_attribute(&v, XRT_P2P_ATTR_ACCESS_SUPPORTED, 0, n), XRT_ERROR_INVALID_DEVICE,
              "xrt_device_get_p2p_attribute");
    }
    FAILS(xrt_device_get_p2p_attribute(&v, XRT_P2P_ATTR_ACCESS_SUPPORTED, last, last), XRT_ERROR_INVALID_DEVICE,
          "a link joins two devices");
    FAILS(xrt_device_get_p2p_attribute(&v, XRT_P2P_ATTR_ACCESS_SUPPORTED, -1, 0), XRT_ERROR_INVALID_DEVICE, "negative");
    FAILS(xrt_device_get_p2p_attribute(&v, (xrt_p2p_attr)0, 0, last), XRT_ERROR_INVALID_VALUE, "none of XRT_P2P_ATTR_*");
    FAILS(xrt_device_get_p2p_attribute(&v, (xrt_p2p_attr)5, 0, last), XRT_ERROR_INVALID_VALUE, "none of XRT_P2P_ATTR_*");
    FAILS(xrt_device_get_p2p_attribute(NULL, XRT_P2P_ATTR_ACCESS_SUPPORTED, 0, last), XRT_ERROR_INVALID_VALUE,
          "value is NULL");
}

static void test_free_hooks(void **state)
{
    hook_log a, b;
    void *p, *q;
    uint64_t first;
    int i;
    (void)state;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    hook_thread = pthread_self();
    OK(xrt_add_free_hook(hook_record, &a));
    OK(xrt_add_free_hook(hook_record, &a)); /* the same (fn, user): one hook */
    OK(xrt_add_free_hook(hook_record, &b));
    OK(xrt_malloc(&p, N));
    OK(xrt_free(p));
    assert_int_equal(a.calls, 1);
    assert_int_equal(b.calls, 1);
    assert_true(a.base == (uintptr_t)p && a.size == N && a.gen != 0);
    first = a.gen;
    OK(xrt_malloc(&q, N)); /* maybe at the same address: another generation */
    OK(xrt_free(q));
    assert_true(a.base == (uintptr_t)q && a.gen > first);
    if (caps() & XRT_CAP_PINNED_HOST) {
        OK(xrt_malloc_host(&p, 100));
        OK(xrt_free_host(p));
        assert_true(a.calls == 3 && a.base == (uintptr_t)p && a.size == 100);
    }
    if (caps() & XRT_CAP_MALLOC_ASYNC) {
        int before = a.calls;
        OK(xrt_malloc_async(&p, 64, NULL));
        OK(xrt_free_async(p, NULL));
        assert_true(a.calls == before + 1 && a.base == (uintptr_t)p && a.size == 64);
        OK(xrt_stream_synchronize(NULL));
    }
    /* a failed free calls no hook */
    i = a.calls;
    FAILS(xrt_free((char *)&a), XRT_ERROR_INVALID_VALUE, "was not allocated by xrt");
    assert_int_equal(a.calls, i);
    OK(xrt_remove_free_hook(hook_record, &a));
    FAILS(xrt_remove_free_hook(hook_record, &a), XRT_ERROR_NOT_FOUND, "no such free hook");
    assert_int_equal(b.calls, i);
    OK(xrt_malloc(&p, 8));
    OK(xrt_free(p));
    assert_int_equal(a.calls, i);
    assert_int_equal(b.calls, i + 1); /* a hook after an emptied slot still runs */
    assert_int_equal(a.foreign + b.foreign, 0);
    OK(xrt_remove_free_hook(hook_record, &b));
    FAILS(xrt_add_free_hook(NULL, &a), XRT_ERROR_INVALID_VALUE, "fn is NULL");
    {
        /* exactly XRT_MAX_FREE_HOOKS fit (the emptied slots of a and b
           are taken again), and every one of them runs once per free */
        hook_log many[XRT_MAX_FREE_HOOKS + 1];
        char taken[64];
        int k, added = 0;
        xrt_status st = XRT_SUCCESS;
        memset(many, 0, sizeof many);
        for (k = 0; k <= XRT_MAX_FREE_HOOKS && st == XRT_SUCCESS; k++)
            if ((st = xrt_add_free_hook(hook_record, &many[k])) == XRT_SUCCESS) added++;
        assert_int_equal(st, XRT_ERROR_OUT_OF_MEMORY);
        snprintf(taken, sizeof taken, "all %d free hooks are taken", XRT_MAX_FREE_HOOKS);
        assert_non_null(strstr(xrt_get_last_error_string(), taken));
        assert_int_equal(added, XRT_MAX_FREE_HOOKS);
        OK(xrt_malloc(&p, 8));
        OK(xrt_free(p));
        for (k = 0; k < added; k++) assert_int_equal(many[k].calls, 1);
        assert_int_equal(many[XRT_MAX_FREE_HOOKS].calls, 0);
        for (k = 0; k < added; k++) OK(xrt_remove_free_hook(hook_record, &many[k]));
    }
}

/* A freed allocation's record in the pointer registry is kept for the next
   allocation (no allocation of xrt's own per xrt_malloc + xrt_free): first
   as the thread's own spare, then in a shared stack of up to
   XRT__MEM_SPARES records; a reused record describes its new allocation. */
static void test_registry_records_reused(void **state)
{
    void *p, *q, *many[XRT__MEM_SPARES + 8];
    xrt__mem_node *spare, *n;
    xrt_pointer_attributes a;
    size_t k, kept = 0;
    int d = 0;
    (void)state;
    OK(xrt_get_device(&d));
    if (caps() & XRT_CAP_PINNED_HOST) OK(xrt_malloc_host(&p, 100)); /* takes the thread's spare, if it had one */
    else OK(xrt_malloc(&p, 100));
    assert_null(xrt__call.mem_spare);
    OK(caps() & XRT_CAP_PINNED_HOST ? xrt_free_host(p) : xrt_free(p));
    spare = (xrt__mem_node *)xrt__call.mem_spare;
    assert_non_null(spare);
    OK(xrt_malloc(&q, N));
    assert_ptr_equal(xrt__mem_find((uintptr_t)q), spare); /* the freed one's record */
    assert_null(xrt__call.mem_spare);
    OK(xrt_pointer_get_attributes(&a, (char *)q + 1));
    assert_int_equal(a.type, XRT_MEMORY_DEVICE);
    assert_int_equal(a.device, d);
    assert_ptr_equal(a.base, q);
    assert_int_equal(a.size, N);
    OK(xrt_free(q));
    assert_ptr_equal(xrt__call.mem_spare, spare);
    /* the shared stack: at most XRT__MEM_SPARES kept; the rest go back to the allocator */
    for (k = 0; k < sizeof many / sizeof many[0]; k++) OK(xrt_malloc(&many[k], 8));
    assert_null(xrt__call.mem_spare);
    assert_null(__atomic_load_n(&xrt__mem_spares, __ATOMIC_ACQUIRE));
    for (k = 0; k < sizeof many / sizeof many[0]; k++) OK(xrt_free(many[k]));
    assert_non_null(xrt__call.mem_spare); /* the first free's */
    for (n = xrt__mem_spares; n; n = (xrt__mem_node *)(void *)n->node.next) kept++;
    assert_int_equal(kept, XRT__MEM_SPARES);
    assert_int_equal(xrt__mem_spare_count, XRT__MEM_SPARES);
}

/* The registry's interval tree stays a treap through allocations and frees
   in a shuffled order: starts in order, intervals disjoint, each node's
   priority at least its children's (insert places a node by priority in one
   walk, a free unlinks it where one walk found it), its count right; every
   live allocation is found at each of its bytes, a freed one at none, and a
   device's count of live bytes follows (kept with each record). */
static size_t tree_check(const xrt__tree_node *n, uintptr_t *last_end)
{
    size_t count;
    if (!n) return 0;
    if (n->l) assert_true(n->l->prio <= n->prio);
    if (n->r) assert_true(n->r->prio <= n->prio);
    count = tree_check(n->l, last_end);
    assert_true(n->start >= *last_end);
    assert_true(n->end > n->start);
    *last_end = n->end;
    return count + 1 + tree_check(n->r, last_end);
}

static void tree_verify(void)
{
    uintptr_t end = 0;
    xrt__spin_lock(&xrt__mem_lock);
    assert_int_equal(tree_check(xrt__mem_tree.root, &end), xrt__mem_tree.count);
    xrt__spin_unlock(&xrt__mem_lock);
}

static const xrt_backend no_allocations; /* a backend that allocated nothing */

static void test_registry_tree_stays_a_treap(void **state)
{
    enum { M = 96 };
    void *p[M];
    size_t size[M], live = 0, before;
    unsigned order[M], seed = 12345, k, i, t;
    xrt_pointer_attributes a;
    int d = 0;
    (void)state;
    OK(xrt_get_device(&d));
    before = xrt__mem_device_bytes(xrt__be(), d);
    for (k = 0; k < M; k++) {
        size[k] = 8 + (k % 7) * 24;
        OK(xrt_malloc(&p[k], size[k]));
        live += size[k];
        order[k] = k;
    }
    tree_verify();
    assert_int_equal(xrt__mem_device_bytes(xrt__be(), d), before + live);
    assert_int_equal(xrt__mem_device_bytes(&no_allocations, d), 0); /* each backend's own count */
    for (k = M - 1; k > 0; k--) { /* a fixed shuffle of the frees */
        seed = seed * 1103515245u + 12345u;
        i = (seed >> 8) % (k + 1);
        t = order[k], order[k] = order[i], order[i] = t;
    }
    for (k = 0; k < M; k++) {
        xrt__mem_node *n = xrt__mem_find((uintptr_t)p[order[k]]);
        assert_non_null(n);
        assert_int_equal(n->node.start, (uintptr_t)p[order[k]]);
        OK(xrt_free(p[order[k]]));
        live -= size[order[k]];
        assert_null(xrt__mem_find((uintptr_t)p[order[k]]));
        if (k % 8 == 0) tree_verify();
        for (i = k + 1; i < M; i += 5) { /* the others are still found, by their last byte too */
            OK(xrt_pointer_get_attributes(&a, (char *)p[order[i]] + size[order[i]] - 1));
            assert_ptr_equal(a.base, p[order[i]]);
            assert_int_equal(a.size, size[order[i]]);
        }
        assert_int_equal(xrt__mem_device_bytes(xrt__be(), d), before + live);
    }
    tree_verify();
}

/* The stream-order checker's calls, each once (tests/test_check.c has the
   corpus): on, an annotation, the counts, a report callback, off again
   (unless XRT_CHECK had it on). */
static void no_report(void *user, const char *report)
{
    (void)report;
    ++*(int *)user;
}

static void test_check_calls_succeed(void **state)
{
    unsigned before = 0, modes = 0;
    size_t races = 0, bytes = 0;
    int reports = 0;
    void *d;
    (void)state;
    OK(xrt_check_get_modes(&before));
    OK(xrt_check_set_report_callback(no_report, &reports));
    OK(xrt_check_enable(XRT_CHECK_STREAMS));
    OK(xrt_check_get_modes(&modes));
    assert_int_equal(modes, XRT_CHECK_STREAMS);
    OK(xrt_malloc(&d, 256));
    OK(xrt_check_annotate(d, 256, XRT_CHECK_READ));
    OK(xrt_memset_async(d, 0, 256, NULL));
    OK(xrt_stream_synchronize(NULL));
    OK(xrt_free(d));
    OK(xrt_check_race_count(&races));
    OK(xrt_check_memory_bytes(&bytes));
    assert_true(bytes > 0);
    assert_int_equal(reports, 0);
    OK(xrt_check_enable(before));
    OK(xrt_check_set_report_callback(NULL, NULL));
}

/* >> the registry's version after 2^32 changes */
/* A thread remembers its last copy that passed the checks, with the
   version of the pointer registry. After 2^32 changes (made here by moving
   the private counter on, as 2^32 allocations would) and a free of the copy's
   destination, the same copy must be checked again and refused, not let
   through by a 32-bit version that wrapped back to the remembered one. */
static int version_wrap_child(void *arg)
{
    unsigned char h[64];
    void *d, *d2;
    (void)arg;
    xrt_test_log_capture();
    CHILD_OK(xrt_malloc(&d, sizeof h));
    CHILD_OK(xrt_malloc(&d2, sizeof h));
    CHILD_OK(xrt_memcpy(d2, d, sizeof h, XRT_MEMCPY_DEVICE_TO_DEVICE)); /* remembered */
    CHILD_OK(xrt_memcpy(d2, d, sizeof h, XRT_MEMCPY_DEVICE_TO_DEVICE));
    xrt__mem_version += 0xffffffffu; /* 2^32 - 1 changes; the free below is the 2^32nd */
    CHILD_OK(xrt_free(d2));
    CHILD_EXPECT(xrt_memcpy(d2, d, sizeof h, XRT_MEMCPY_DEVICE_TO_DEVICE), XRT_ERROR_INVALID_MEMCPY_KIND);
    CHILD_TRUE(strstr(xrt_get_last_error_string(), "xrt_memcpy: kind device-to-device but dst") != NULL);
    CHILD_OK(xrt_free(d));
    xrt_shutdown();
    return 0;
}

static void test_copy_check_after_version_wraps(void **state)
{
    (void)state;
    in_child("a copy into freed memory after 2^32 registry changes", version_wrap_child, NULL, 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_operation_is_a_public_call),
        cmocka_unit_test(test_device_count_get_set),
        cmocka_unit_test(test_device_flags),
        cmocka_unit_test(test_device_reset),
        cmocka_unit_test(test_device_limits),
        cmocka_unit_test(test_cache_config),
        cmocka_unit_test(test_gpu_direct_rdma_writes),
        cmocka_unit_test(test_stream_attributes),
        cmocka_unit_test(test_user_objects),
        cmocka_unit_test(test_capture_graph_and_dependencies),
        cmocka_unit_test(test_device_properties),
        cmocka_unit_test(test_capabilities),
        cmocka_unit_test(test_target),
        cmocka_unit_test(test_malloc_free),
        cmocka_unit_test(test_malloc_host),
        cmocka_unit_test(test_malloc_async),
        cmocka_unit_test(test_mem_get_info),
        cmocka_unit_test(test_memset),
        cmocka_unit_test(test_pitched_round_trip),
        cmocka_unit_test(test_3d_round_trip),
        cmocka_unit_test(test_host_register_copies_async),
        cmocka_unit_test(test_memcpy_d2d_not_waited_for),
        cmocka_unit_test(test_memcpy_2d_3d_d2d_not_waited_for),
        cmocka_unit_test(test_memset_sync_not_waited_for),
        cmocka_unit_test(test_memset_sync_to_host_done),
        cmocka_unit_test(test_host_register),
        cmocka_unit_test(test_host_register_unmapped),
        cmocka_unit_test(test_host_register_read_only_memory),
        cmocka_unit_test(test_host_register_read_only_not_written),
        cmocka_unit_test(test_host_register_read_only_whole_dst),
        cmocka_unit_test(test_managed_round_trip),
        cmocka_unit_test(test_host_alloc_round_trip),
        cmocka_unit_test(test_mem_pool_round_trip),
        cmocka_unit_test(test_memcpy_kinds),
        cmocka_unit_test(test_memcpy_pinned),
        cmocka_unit_test(test_memcpy_async_host_to_host_is_synchronous),
        cmocka_unit_test(test_stream_add_callback),
        cmocka_unit_test(test_stream_add_callback_misuse),
        cmocka_unit_test(test_async_ordered),
        cmocka_unit_test(test_export_dmabuf),
        cmocka_unit_test(test_ipc_calls),
        cmocka_unit_test(test_pointer_attributes),
        cmocka_unit_test(test_streams),
        cmocka_unit_test(test_stream_flags_and_priorities),
        gated_test(test_legacy_stream_waits_for_blocking_streams),
        gated_test(test_blocking_stream_waits_for_the_legacy_stream),
        gated_test(test_legacy_stream_ignores_non_blocking_streams),
        gated_test(test_synchronous_copy_waits_for_blocking_streams),
        gated_test(test_per_thread_stream),
        gated_test(test_per_thread_stream_follows_the_legacy_stream),
        cmocka_unit_test(test_events), cmocka_unit_test(test_last_event_and_its_stream),
        gated_test(test_elapsed_time_before_the_end),
        gated_test(test_elapsed_time_invalid_before_not_ready),
        gated_test(test_legacy_wait_event_orders_blocking_streams),
        gated_test(test_stream_wait_event),
        cmocka_unit_test(test_wait_unrecorded_event),
        gated_test(test_event_flags_outside_capture),
        cmocka_unit_test(test_event_flags_in_capture),
        cmocka_unit_test(test_host_func_order),
        gated_test(test_stream_independence),
        gated_test(test_pageable_copies),
        cmocka_unit_test(test_host_func_fills_own_stream),
        cmocka_unit_test(test_kernel_launch),
        cmocka_unit_test(test_module_global_and_occupancy),
        cmocka_unit_test(test_graph_calls),
        cmocka_unit_test(test_graph_node_calls),
        cmocka_unit_test(test_graph_copy_node_calls),
        cmocka_unit_test(test_device_attribute),
        cmocka_unit_test(test_pci_bus_id),
        cmocka_unit_test(test_peers),
        cmocka_unit_test(test_p2p_attributes),
        cmocka_unit_test(test_free_hooks),
        cmocka_unit_test(test_registry_records_reused),
        cmocka_unit_test(test_registry_tree_stays_a_treap),
        cmocka_unit_test(test_copy_check_after_version_wraps),
        cmocka_unit_test(test_check_calls_succeed),
    };
    return xrt_test_run_on_backends("suite", tests, sizeof tests / sizeof tests[0], NULL);
}
