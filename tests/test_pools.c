/* SPDX-License-Identifier: MIT */
/* Memory pools (xrt_device_get_default_mem_pool .. xrt_malloc_from_pool_async):
   the default pool behind xrt_malloc_async, a block reused in stream order
   (at once on the stream that freed it, on another only once that free is
   done and the pool allows opportunistic reuse), the release threshold at a
   synchronize, trimming, the attributes and their misuse, a pool destroyed
   with an allocation outstanding, a pool of another device, which devices
   may reach a pool (xrt_mem_pool_set_access) and its misuse, and streams
   allocating, using and freeing blocks concurrently with their bytes
   checked. A backend without pools (a runtime without them) says so. A GPU
   runtime may reuse a block on another stream by making that stream wait
   (the internal-dependency policy): the tests that say a block is not
   shared turn that policy off. */
#include "xrt_test.h"

#include <pthread.h>

enum { N = 3 * 4096 + 100, STREAMS = 4, ROUNDS = 200 };

static int has_pools(void)
{
    xrt_mem_pool p = NULL;
    xrt_status st = xrt_device_get_default_mem_pool(&p, 0);
    xrt_get_last_error();
    return st == XRT_SUCCESS;
}

static uint64_t attr64(xrt_mem_pool p, xrt_mem_pool_attr a)
{
    uint64_t v = 7;
    OK(xrt_mem_pool_get_attribute(p, a, &v));
    return v;
}

static void set64(xrt_mem_pool p, xrt_mem_pool_attr a, uint64_t v) { OK(xrt_mem_pool_set_attribute(p, a, &v)); }

static void set_int(xrt_mem_pool p, xrt_mem_pool_attr a, int v) { OK(xrt_mem_pool_set_attribute(p, a, &v)); }

static void wait_for_gate(void *user)
{
    while (!__atomic_load_n((int *)user, __ATOMIC_ACQUIRE)) usleep(100);
}

/* A block whose free its stream has not reached is still that stream's:
   another stream does not get it, opportunistic reuse or not. */
static void test_unreached_free_not_shared(void **state)
{
    xrt_stream s1, s2;
    void *a = NULL, *b = NULL;
    xrt_mem_pool d = NULL;
    int gate = 0;
    (void)state;
    SKIP_UNLESS(has_pools(), "no memory pools");
    OK(xrt_device_get_default_mem_pool(&d, 0));
    set_int(d, XRT_MEMPOOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES, 0);
    OK(xrt_stream_create(&s1));
    OK(xrt_stream_create(&s2));
    OK(xrt_launch_host_func(s1, wait_for_gate, &gate)); /* s1 stops here until the gate opens */
    OK(xrt_malloc_async(&a, N, s1));
    OK(xrt_memset_async(a, 1, N, s1));
    OK(xrt_free_async(a, s1));
    OK(xrt_malloc_async(&b, N, s2));
    assert_ptr_not_equal(a, b); /* s1 has not run its memset: the block is in use */
    __atomic_store_n(&gate, 1, __ATOMIC_RELEASE);
    OK(xrt_free_async(b, s2));
    OK(xrt_stream_synchronize(s1));
    OK(xrt_stream_synchronize(s2));
    OK(xrt_stream_destroy(s1));
    OK(xrt_stream_destroy(s2));
    set_int(d, XRT_MEMPOOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES, 1); /* CUDA's default again */
}

/* Each device's legacy NULL stream is a stream of its own: a block whose
   free device 0's NULL stream has not reached is not device 1's NULL
   stream's to take from the same pool. */
static void test_unreached_free_not_shared_across_null_streams(void **state)
{
    void *a = NULL, *b = NULL;
    xrt_mem_pool d = NULL;
    int gate = 0, n = 0;
    (void)state;
    SKIP_UNLESS(has_pools(), "no memory pools");
    OK(xrt_get_device_count(&n));
    SKIP_UNLESS(n >= 2, "one device");
    OK(xrt_set_device(0));
    OK(xrt_device_get_default_mem_pool(&d, 0));
    set_int(d, XRT_MEMPOOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES, 0);
    OK(xrt_launch_host_func(NULL, wait_for_gate, &gate)); /* device 0's NULL stream stops here */
    OK(xrt_malloc_async(&a, N, NULL));
    OK(xrt_memset_async(a, 1, N, NULL));
    OK(xrt_free_async(a, NULL));
    OK(xrt_set_device(1));
    OK(xrt_malloc_from_pool_async(&b, N, d, NULL));
    assert_ptr_not_equal(a, b); /* device 0 has not run its memset: the block is in use */
    OK(xrt_free_async(b, NULL));
    OK(xrt_stream_synchronize(NULL));
    OK(xrt_set_device(0));
    __atomic_store_n(&gate, 1, __ATOMIC_RELEASE);
    OK(xrt_stream_synchronize(NULL));
    set_int(d, XRT_MEMPOOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES, 1); /* CUDA's default again */
}

static void test_pools_unsupported(void **state)
{
    xrt_mem_pool p = (xrt_mem_pool)&p;
    (void)state;
    SKIP_UNLESS(!has_pools(), "the backend has memory pools");
    FAILS(xrt_device_get_default_mem_pool(&p, 0), XRT_ERROR_UNSUPPORTED, "memory pools");
    assert_null(p);
}

/* xrt_malloc_async's pool is the default one; a block freed on a stream
   serves that stream's next allocation at once; threshold 0: a synchronize
   gives it back. */
static void test_default_pool_reuse(void **state)
{
    xrt_mem_pool d = NULL, cur = NULL;
    xrt_stream s;
    void *a = NULL, *b = NULL;
    unsigned char h[64];
    (void)state;
    SKIP_UNLESS(has_pools(), "no memory pools");
    OK(xrt_device_get_default_mem_pool(&d, 0));
    OK(xrt_device_get_mem_pool(&cur, 0));
    assert_non_null(d);
    assert_ptr_equal(d, cur);
    assert_int_equal(attr64(d, XRT_MEMPOOL_ATTR_RELEASE_THRESHOLD), 0);
    OK(xrt_stream_create(&s));
    OK(xrt_malloc_async(&a, N, s));
    assert_true(attr64(d, XRT_MEMPOOL_ATTR_USED_MEM_CURRENT) >= N);
    assert_true(attr64(d, XRT_MEMPOOL_ATTR_RESERVED_MEM_CURRENT) >= N);
    OK(xrt_memset_async(a, 0x5a, N, s));
    OK(xrt_free_async(a, s));
    OK(xrt_malloc_async(&b, N, s)); /* the same stream: the freed block, at once */
    assert_ptr_equal(a, b);
    OK(xrt_memcpy_async(h, b, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST, s));
    OK(xrt_free_async(b, s));
    OK(xrt_stream_synchronize(s));
    assert_bytes(h, sizeof h, 0x5a);
    assert_int_equal(attr64(d, XRT_MEMPOOL_ATTR_USED_MEM_CURRENT), 0);
    assert_int_equal(attr64(d, XRT_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 0); /* threshold 0: gone at the synchronize */
    assert_true(attr64(d, XRT_MEMPOOL_ATTR_USED_MEM_HIGH) >= N);
    FAILS(xrt_free_async(b, s), XRT_ERROR_INVALID_VALUE, "xrt_free_async"); /* freed twice */
    OK(xrt_stream_destroy(s));
}

/* A threshold keeps free blocks over a synchronize; trimming releases them. */
static void test_release_threshold_and_trim(void **state)
{
    xrt_mem_pool d = NULL;
    void *a = NULL, *b = NULL, *c = NULL;
    (void)state;
    SKIP_UNLESS(has_pools(), "no memory pools");
    OK(xrt_device_get_default_mem_pool(&d, 0));
    set64(d, XRT_MEMPOOL_ATTR_RELEASE_THRESHOLD, (uint64_t)1 << 30);
    OK(xrt_malloc_async(&a, N, NULL));
    OK(xrt_malloc_async(&b, N, NULL));
    OK(xrt_free_async(a, NULL));
    OK(xrt_free_async(b, NULL));
    OK(xrt_device_synchronize());
    assert_true(attr64(d, XRT_MEMPOOL_ATTR_RESERVED_MEM_CURRENT) >= 2 * N); /* kept */
    assert_int_equal(attr64(d, XRT_MEMPOOL_ATTR_USED_MEM_CURRENT), 0);
    OK(xrt_malloc_async(&c, N, NULL));
    assert_true(c == a || c == b);
    OK(xrt_free_async(c, NULL));
    OK(xrt_device_synchronize());
    OK(xrt_mem_pool_trim_to(d, N)); /* one block of N and its page rounding is more than N: both go */
    assert_true(attr64(d, XRT_MEMPOOL_ATTR_RESERVED_MEM_CURRENT) <= N);
    OK(xrt_mem_pool_trim_to(d, 0));
    assert_int_equal(attr64(d, XRT_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 0);
    set64(d, XRT_MEMPOOL_ATTR_RELEASE_THRESHOLD, 0);
    set64(d, XRT_MEMPOOL_ATTR_RESERVED_MEM_HIGH, 0); /* a reset: the high mark is the current amount again */
    assert_int_equal(attr64(d, XRT_MEMPOOL_ATTR_RESERVED_MEM_HIGH), 0);
}

/* Another stream reuses a block only once its free is done, and only while
   the pool allows opportunistic reuse. */
static void test_reuse_across_streams(void **state)
{
    xrt_mem_pool p = NULL;
    xrt_mem_pool_props props = {0, XRT_MEM_HANDLE_TYPE_NONE};
    xrt_stream s1, s2;
    void *a = NULL, *b = NULL;
    int v = 5;
    (void)state;
    SKIP_UNLESS(has_pools(), "no memory pools");
    OK(xrt_mem_pool_create(&p, &props));
    OK(xrt_mem_pool_get_attribute(p, XRT_MEMPOOL_REUSE_ALLOW_OPPORTUNISTIC, &v));
    assert_int_equal(v, 1); /* CUDA's default */
    set64(p, XRT_MEMPOOL_ATTR_RELEASE_THRESHOLD, UINT64_MAX);
    OK(xrt_stream_create(&s1));
    OK(xrt_stream_create(&s2));
    set_int(p, XRT_MEMPOOL_REUSE_ALLOW_OPPORTUNISTIC, 0);
    set_int(p, XRT_MEMPOOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES, 0);
    OK(xrt_malloc_from_pool_async(&a, N, p, s1));
    OK(xrt_free_async(a, s1));
    OK(xrt_stream_synchronize(s1));
    OK(xrt_malloc_from_pool_async(&b, N, p, s2));
    assert_ptr_not_equal(a, b); /* not opportunistic: s2 does not take s1's block */
    OK(xrt_free_async(b, s2));
    OK(xrt_stream_synchronize(s2));
    set_int(p, XRT_MEMPOOL_REUSE_ALLOW_OPPORTUNISTIC, 1);
    OK(xrt_malloc_from_pool_async(&b, N, p, s2));
    assert_true(b == a || b != NULL); /* s2's own block or s1's: both frees are done */
    OK(xrt_free_async(b, s2));
    OK(xrt_stream_synchronize(s2));
    OK(xrt_stream_synchronize(s1));
    OK(xrt_malloc_from_pool_async(&b, N, p, s1)); /* both done: s1 gets one of them */
    assert_true(attr64(p, XRT_MEMPOOL_ATTR_RESERVED_MEM_CURRENT) <= 2 * (uint64_t)(N + 4096));
    OK(xrt_free_async(b, s1));
    OK(xrt_stream_destroy(s1));
    OK(xrt_stream_destroy(s2));
    OK(xrt_mem_pool_destroy(p));
}

/* A device's current pool serves xrt_malloc_async; a destroy with an
   allocation outstanding succeeds and the allocation stays usable. */
static void test_current_pool_and_destroy(void **state)
{
    xrt_mem_pool p = NULL, d = NULL, cur = NULL;
    xrt_mem_pool_props props = {0, XRT_MEM_HANDLE_TYPE_NONE};
    unsigned char h[N];
    void *a = NULL;
    (void)state;
    SKIP_UNLESS(has_pools(), "no memory pools");
    OK(xrt_mem_pool_create(&p, &props));
    OK(xrt_device_get_default_mem_pool(&d, 0));
    OK(xrt_device_set_mem_pool(0, p));
    OK(xrt_device_get_mem_pool(&cur, 0));
    assert_ptr_equal(cur, p);
    OK(xrt_malloc_async(&a, N, NULL));
    assert_true(attr64(p, XRT_MEMPOOL_ATTR_USED_MEM_CURRENT) >= N);
    OK(xrt_mem_pool_destroy(p)); /* outstanding: as CUDA, it goes with the allocation */
    OK(xrt_device_get_mem_pool(&cur, 0));
    assert_ptr_equal(cur, d); /* the default again */
    FAILS(xrt_mem_pool_get_attribute(p, XRT_MEMPOOL_ATTR_USED_MEM_CURRENT, &h), XRT_ERROR_INVALID_HANDLE, "destroyed");
    OK(xrt_memset_async(a, 0x11, N, NULL));
    OK(xrt_memcpy_async(h, a, N, XRT_MEMCPY_DEVICE_TO_HOST, NULL));
    OK(xrt_free_async(a, NULL));
    OK(xrt_device_synchronize());
    assert_bytes(h, N, 0x11);
    FAILS(xrt_mem_pool_destroy(d), XRT_ERROR_INVALID_VALUE, "default pool");
}

/* Of 0 bytes, as cudaMallocFromPoolAsync and cudaMallocAsync (and xrt_malloc_async):
   success and NULL, nothing used from the pool, nothing enqueued or
   captured, no error recorded; the arguments are still checked first. */
static void test_pool_zero_size(void **state)
{
    xrt_mem_pool d = NULL;
    xrt_stream s;
    xrt_graph g;
    uint64_t used = 1;
    unsigned caps = 0;
    size_t n = 1;
    int logs;
    void *a = &a;
    (void)state;
    SKIP_UNLESS(has_pools(), "no memory pools");
    OK(xrt_get_capabilities(&caps));
    OK(xrt_device_get_default_mem_pool(&d, 0));
    OK(xrt_stream_create(&s));
    xrt_get_last_error();
    logs = xrt_test_log.count;
    OK(xrt_malloc_from_pool_async(&a, 0, d, s));
    assert_null(a);
    OK(xrt_free_async(a, s));
    OK(xrt_stream_synchronize(s));
    OK(xrt_mem_pool_get_attribute(d, XRT_MEMPOOL_ATTR_USED_MEM_CURRENT, &used));
    assert_int_equal(used, 0);
    assert_int_equal(xrt_peek_at_last_error(), XRT_SUCCESS);
    assert_int_equal(xrt_test_log.count, logs);
    if (caps & XRT_CAP_GRAPHS) {
        OK(xrt_stream_begin_capture(s, XRT_CAPTURE_MODE_GLOBAL));
        a = &a;
        OK(xrt_malloc_from_pool_async(&a, 0, d, s));
        assert_null(a);
        OK(xrt_stream_end_capture(s, &g));
        OK(xrt_graph_get_nodes(g, NULL, &n));
        assert_int_equal(n, 0);
        OK(xrt_graph_destroy(g));
    }
    FAILS(xrt_malloc_from_pool_async(NULL, 0, d, s), XRT_ERROR_INVALID_VALUE, "NULL");
    FAILS(xrt_malloc_from_pool_async(&a, 0, (xrt_mem_pool)s, s), XRT_ERROR_INVALID_HANDLE, "not the kind");
    FAILS(xrt_malloc_from_pool_async(&a, 0, d, (xrt_stream)d), XRT_ERROR_INVALID_HANDLE, "xrt_malloc_from_pool_async");
    OK(xrt_stream_destroy(s));
}

static void test_pool_bad_input(void **state)
{
    xrt_mem_pool p = NULL, d = NULL;
    xrt_mem_pool_props props = {0, XRT_MEM_HANDLE_TYPE_NONE};
    xrt_stream s;
    uint64_t v = 1;
    int count = 0, i = 2;
    void *a = NULL;
    (void)state;
    SKIP_UNLESS(has_pools(), "no memory pools");
    OK(xrt_get_device_count(&count));
    OK(xrt_device_get_default_mem_pool(&d, 0));
    FAILS(xrt_device_get_default_mem_pool(&p, count), XRT_ERROR_INVALID_DEVICE, "out of range");
    FAILS(xrt_device_get_mem_pool(&p, -1), XRT_ERROR_INVALID_DEVICE, "negative");
    FAILS(xrt_device_get_mem_pool(NULL, 0), XRT_ERROR_INVALID_VALUE, "pool is NULL");
    FAILS(xrt_mem_pool_create(&p, NULL), XRT_ERROR_INVALID_VALUE, "props is NULL");
    props.handle_types = 1;
    FAILS(xrt_mem_pool_create(&p, &props), XRT_ERROR_INVALID_VALUE, "handle_types");
    props.handle_types = 0;
    props.device = count;
    FAILS(xrt_mem_pool_create(&p, &props), XRT_ERROR_INVALID_DEVICE, "out of range");
    FAILS(xrt_mem_pool_get_attribute(d, (xrt_mem_pool_attr)0, &v), XRT_ERROR_INVALID_VALUE, "no xrt_mem_pool_attr");
    FAILS(xrt_mem_pool_get_attribute(d, (xrt_mem_pool_attr)9, &v), XRT_ERROR_INVALID_VALUE, "no xrt_mem_pool_attr");
    FAILS(xrt_mem_pool_set_attribute(d, (xrt_mem_pool_attr)9, &v), XRT_ERROR_INVALID_VALUE, "no xrt_mem_pool_attr");
    FAILS(xrt_mem_pool_set_attribute(d, XRT_MEMPOOL_ATTR_USED_MEM_CURRENT, &v), XRT_ERROR_INVALID_VALUE, "read only");
    FAILS(xrt_mem_pool_set_attribute(d, XRT_MEMPOOL_ATTR_USED_MEM_HIGH, &v), XRT_ERROR_INVALID_VALUE, "reset to 0");
    FAILS(xrt_mem_pool_set_attribute(d, XRT_MEMPOOL_REUSE_ALLOW_OPPORTUNISTIC, &i), XRT_ERROR_INVALID_VALUE, "0 or 1");
    FAILS(xrt_mem_pool_get_attribute(d, XRT_MEMPOOL_ATTR_USED_MEM_HIGH, NULL), XRT_ERROR_INVALID_VALUE, "NULL");
    OK(xrt_stream_create(&s));
    FAILS(xrt_mem_pool_trim_to((xrt_mem_pool)s, 0), XRT_ERROR_INVALID_HANDLE, "not the kind");
    FAILS(xrt_malloc_from_pool_async(&a, 64, (xrt_mem_pool)s, s), XRT_ERROR_INVALID_HANDLE, "not the kind");
    FAILS(xrt_malloc_from_pool_async(&a, SIZE_MAX, d, s), XRT_ERROR_OUT_OF_MEMORY, "xrt_malloc_from_pool_async");
    FAILS(xrt_device_set_mem_pool(0, (xrt_mem_pool)s), XRT_ERROR_INVALID_HANDLE, "not the kind");
    OK(xrt_stream_destroy(s));
    if (count > 1) { /* a pool of another device */
        props.device = 1;
        OK(xrt_mem_pool_create(&p, &props));
        FAILS(xrt_device_set_mem_pool(0, p), XRT_ERROR_INVALID_VALUE, "xrt_device_set_mem_pool");
        OK(xrt_malloc_from_pool_async(&a, 64, p, NULL)); /* allocating from it anywhere is allowed, as CUDA */
        OK(xrt_free_async(a, NULL));
        OK(xrt_mem_pool_destroy(p));
    }
}

static unsigned access_of(xrt_mem_pool p, int device)
{
    unsigned f = 7;
    OK(xrt_mem_pool_get_access(&f, p, device));
    return f;
}

/* As cudaMemPoolSetAccess and cudaMemPoolGetAccess: the owner is always
   READ_WRITE, a peer NONE until given READ_WRITE, and NONE again when taken
   back; a default pool likewise; no descriptor changes nothing. */
static void test_pool_access(void **state)
{
    xrt_mem_pool p = NULL, d = NULL;
    xrt_mem_pool_props props = {0, XRT_MEM_HANDLE_TYPE_NONE};
    xrt_mem_access_desc both[2] = {{0, XRT_MEM_ACCESS_FLAGS_PROT_READ_WRITE}, {1, XRT_MEM_ACCESS_FLAGS_PROT_READ_WRITE}};
    int count = 0;
    (void)state;
    SKIP_UNLESS(has_pools(), "no memory pools");
    OK(xrt_get_device_count(&count));
    OK(xrt_mem_pool_create(&p, &props));
    OK(xrt_device_get_default_mem_pool(&d, 0));
    assert_int_equal(access_of(p, 0), XRT_MEM_ACCESS_FLAGS_PROT_READ_WRITE);
    assert_int_equal(access_of(d, 0), XRT_MEM_ACCESS_FLAGS_PROT_READ_WRITE);
    OK(xrt_mem_pool_set_access(p, NULL, 0));
    OK(xrt_mem_pool_set_access(p, both, 1)); /* the owner's READ_WRITE: as it was */
    assert_int_equal(access_of(p, 0), XRT_MEM_ACCESS_FLAGS_PROT_READ_WRITE);
    if (count > 1) {
        assert_int_equal(access_of(p, 1), XRT_MEM_ACCESS_FLAGS_PROT_NONE);
        assert_int_equal(access_of(d, 1), XRT_MEM_ACCESS_FLAGS_PROT_NONE);
        OK(xrt_mem_pool_set_access(p, both, 2));
        assert_int_equal(access_of(p, 1), XRT_MEM_ACCESS_FLAGS_PROT_READ_WRITE);
        assert_int_equal(access_of(d, 1), XRT_MEM_ACCESS_FLAGS_PROT_NONE); /* another pool's, untouched */
        both[1].flags = XRT_MEM_ACCESS_FLAGS_PROT_NONE;
        OK(xrt_mem_pool_set_access(p, &both[1], 1));
        assert_int_equal(access_of(p, 1), XRT_MEM_ACCESS_FLAGS_PROT_NONE);
        assert_int_equal(access_of(p, 0), XRT_MEM_ACCESS_FLAGS_PROT_READ_WRITE);
        both[1].flags = XRT_MEM_ACCESS_FLAGS_PROT_READ_WRITE;
        OK(xrt_mem_pool_set_access(d, &both[1], 1));
        assert_int_equal(access_of(d, 1), XRT_MEM_ACCESS_FLAGS_PROT_READ_WRITE);
        both[1].flags = XRT_MEM_ACCESS_FLAGS_PROT_NONE;
        OK(xrt_mem_pool_set_access(d, &both[1], 1)); /* as it was, for the tests after this one */
        assert_int_equal(access_of(d, 1), XRT_MEM_ACCESS_FLAGS_PROT_NONE);
    }
    OK(xrt_mem_pool_destroy(p));
}

/* A device reset leaves its default pool as a fresh device has it, as a
   new primary context does on CUDA: CUDA's reuse policies, no release
   threshold, no peer's access, the high-water marks at the current amounts. */
static void test_reset_gives_a_fresh_default_pool(void **state)
{
    xrt_mem_pool d = NULL;
    xrt_mem_access_desc peer = {1, XRT_MEM_ACCESS_FLAGS_PROT_READ_WRITE};
    xrt_stream s = NULL;
    uint64_t v = 1 << 20, high = 0, now = 1;
    int policy = 0, count = 0;
    void *a;
    (void)state;
    SKIP_UNLESS(has_pools(), "no memory pools");
    OK(xrt_get_device_count(&count));
    OK(xrt_set_device(0));
    OK(xrt_stream_create(&s));
    OK(xrt_device_get_default_mem_pool(&d, 0));
    OK(xrt_mem_pool_set_attribute(d, XRT_MEMPOOL_ATTR_RELEASE_THRESHOLD, &v));
    OK(xrt_mem_pool_set_attribute(d, XRT_MEMPOOL_REUSE_FOLLOW_EVENT_DEPENDENCIES, &policy));
    if (count > 1) OK(xrt_mem_pool_set_access(d, &peer, 1));
    OK(xrt_malloc_from_pool_async(&a, 1 << 16, d, s));
    OK(xrt_free_async(a, s));
    OK(xrt_stream_synchronize(s));
    OK(xrt_stream_destroy(s));
    OK(xrt_device_reset());
    OK(xrt_device_get_default_mem_pool(&d, 0));
    OK(xrt_mem_pool_get_attribute(d, XRT_MEMPOOL_ATTR_RELEASE_THRESHOLD, &v));
    assert_int_equal(v, 0);
    OK(xrt_mem_pool_get_attribute(d, XRT_MEMPOOL_REUSE_FOLLOW_EVENT_DEPENDENCIES, &policy));
    assert_int_equal(policy, 1);
    if (count > 1) assert_int_equal(access_of(d, 1), XRT_MEM_ACCESS_FLAGS_PROT_NONE);
    OK(xrt_mem_pool_get_attribute(d, XRT_MEMPOOL_ATTR_USED_MEM_HIGH, &high));
    OK(xrt_mem_pool_get_attribute(d, XRT_MEMPOOL_ATTR_USED_MEM_CURRENT, &now));
    assert_int_equal(high, now);
    OK(xrt_mem_pool_get_attribute(d, XRT_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &high));
    OK(xrt_mem_pool_get_attribute(d, XRT_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &now));
    assert_int_equal(high, now);
}

/* Bad descriptors, each refused before any of the call's is applied:
   READ alone is unsupported, other flags invalid, a device out of range
   invalid, the owner's NONE (HIP's tests: hipErrorInvalidDevice) refused;
   the pool and the out-pointer are checked. */
static void test_pool_access_bad_input(void **state)
{
    xrt_mem_pool p = NULL;
    xrt_mem_pool_props props = {0, XRT_MEM_HANDLE_TYPE_NONE};
    xrt_mem_access_desc desc[2] = {{0, XRT_MEM_ACCESS_FLAGS_PROT_READ}, {0, XRT_MEM_ACCESS_FLAGS_PROT_READ_WRITE}};
    xrt_stream s = NULL;
    unsigned f = 7;
    int count = 0;
    (void)state;
    SKIP_UNLESS(has_pools(), "no memory pools");
    OK(xrt_get_device_count(&count));
    OK(xrt_mem_pool_create(&p, &props));
    FAILS(xrt_mem_pool_set_access(p, desc, 1), XRT_ERROR_UNSUPPORTED, "PROT_READ");
    desc[0].flags = 2;
    FAILS(xrt_mem_pool_set_access(p, desc, 1), XRT_ERROR_INVALID_VALUE, "flags 0x2");
    desc[0].flags = 0xffff;
    FAILS(xrt_mem_pool_set_access(p, desc, 1), XRT_ERROR_INVALID_VALUE, "flags 0xffff");
    desc[0].flags = XRT_MEM_ACCESS_FLAGS_PROT_READ_WRITE;
    desc[0].device = -1;
    FAILS(xrt_mem_pool_set_access(p, desc, 1), XRT_ERROR_INVALID_DEVICE, "negative");
    desc[0].device = count;
    FAILS(xrt_mem_pool_set_access(p, desc, 1), XRT_ERROR_INVALID_DEVICE, "out of range");
    desc[0].device = 0;
    desc[0].flags = XRT_MEM_ACCESS_FLAGS_PROT_NONE;
    FAILS(xrt_mem_pool_set_access(p, desc, 1), XRT_ERROR_INVALID_DEVICE, "xrt_mem_pool_set_access");
    assert_int_equal(access_of(p, 0), XRT_MEM_ACCESS_FLAGS_PROT_READ_WRITE);
    if (count > 1) { /* a peer's READ_WRITE before the owner's NONE: neither applied */
        desc[0].device = 1, desc[0].flags = XRT_MEM_ACCESS_FLAGS_PROT_READ_WRITE;
        desc[1].device = 0, desc[1].flags = XRT_MEM_ACCESS_FLAGS_PROT_NONE;
        FAILS(xrt_mem_pool_set_access(p, desc, 2), XRT_ERROR_INVALID_DEVICE, "xrt_mem_pool_set_access");
        assert_int_equal(access_of(p, 1), XRT_MEM_ACCESS_FLAGS_PROT_NONE);
        desc[1].flags = 1; /* READ, after a good one: nothing applied either */
        FAILS(xrt_mem_pool_set_access(p, desc, 2), XRT_ERROR_UNSUPPORTED, "PROT_READ");
        assert_int_equal(access_of(p, 1), XRT_MEM_ACCESS_FLAGS_PROT_NONE);
    }
    FAILS(xrt_mem_pool_set_access(p, NULL, 1), XRT_ERROR_INVALID_VALUE, "descs is NULL");
    FAILS(xrt_mem_pool_get_access(NULL, p, 0), XRT_ERROR_INVALID_VALUE, "NULL");
    FAILS(xrt_mem_pool_get_access(&f, p, count), XRT_ERROR_INVALID_VALUE, "no device");
    FAILS(xrt_mem_pool_get_access(&f, p, -1), XRT_ERROR_INVALID_VALUE, "no device");
    assert_int_equal(f, 7);
    OK(xrt_stream_create(&s));
    desc[0].device = 0, desc[0].flags = XRT_MEM_ACCESS_FLAGS_PROT_READ_WRITE;
    FAILS(xrt_mem_pool_set_access((xrt_mem_pool)s, desc, 1), XRT_ERROR_INVALID_HANDLE, "not the kind");
    FAILS(xrt_mem_pool_get_access(&f, (xrt_mem_pool)s, 0), XRT_ERROR_INVALID_HANDLE, "not the kind");
    OK(xrt_stream_destroy(s));
    OK(xrt_mem_pool_destroy(p));
    FAILS(xrt_mem_pool_get_access(&f, p, 0), XRT_ERROR_INVALID_HANDLE, "destroyed");
}

/* Streams allocating, writing, reading back and freeing blocks of a few
   sizes at once, the pool reusing them: no block is handed to two streams
   while both use it (each checks its own bytes), and threshold 0 leaves
   nothing reserved after a synchronize. */
static void test_concurrent_streams(void **state)
{
    static unsigned char h[STREAMS][ROUNDS][64];
    xrt_stream s[STREAMS];
    xrt_mem_pool d = NULL;
    void *a;
    int i, r;
    (void)state;
    SKIP_UNLESS(has_pools(), "no memory pools");
    OK(xrt_device_get_default_mem_pool(&d, 0));
    for (i = 0; i < STREAMS; i++) OK(xrt_stream_create(&s[i]));
    for (r = 0; r < ROUNDS; r++)
        for (i = 0; i < STREAMS; i++) {
            size_t n = (size_t)4096 << (r % 3);
            OK(xrt_malloc_async(&a, n, s[i]));
            OK(xrt_memset_async(a, (i * 31 + r) & 0xff, n, s[i]));
            OK(xrt_memcpy_async(h[i][r], (char *)a + n - 64, 64, XRT_MEMCPY_DEVICE_TO_HOST, s[i]));
            OK(xrt_free_async(a, s[i]));
            if (r % 50 == 49) OK(xrt_stream_synchronize(s[(i + 1) % STREAMS])); /* others' frees get done */
        }
    OK(xrt_device_synchronize());
    for (i = 0; i < STREAMS; i++)
        for (r = 0; r < ROUNDS; r++) assert_bytes(h[i][r], 64, (unsigned char)((i * 31 + r) & 0xff));
    assert_int_equal(attr64(d, XRT_MEMPOOL_ATTR_USED_MEM_CURRENT), 0);
    assert_int_equal(attr64(d, XRT_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 0);
    for (i = 0; i < STREAMS; i++) OK(xrt_stream_destroy(s[i]));
}

/* A pool destroyed while its stream runs the frees queued on it: the
   destroy and the stream's worker reaching the last free each may find the
   pool's last hold gone, and exactly one of them releases the pool (ASan
   and TSan see the other touch it otherwise). Many rounds, for the race. */
static void test_destroy_while_frees_run(void **state)
{
    xrt_mem_pool_props props = {0, XRT_MEM_HANDLE_TYPE_NONE};
    xrt_stream s;
    int r, i;
    (void)state;
    SKIP_UNLESS(has_pools(), "no memory pools");
    OK(xrt_stream_create(&s));
    for (r = 0; r < ROUNDS; r++) {
        xrt_mem_pool p = NULL;
        void *a[4];
        OK(xrt_mem_pool_create(&p, &props));
        for (i = 0; i < 4; i++) OK(xrt_malloc_from_pool_async(&a[i], 4096, p, s));
        for (i = 0; i < 4; i++) OK(xrt_free_async(a[i], s));
        if (r % 2) OK(xrt_malloc_from_pool_async(&a[0], 4096, p, s)); /* one still live: xrt_free below */
        OK(xrt_mem_pool_destroy(p));
        if (r % 2) OK(xrt_free(a[0]));
    }
    OK(xrt_stream_synchronize(s));
    OK(xrt_stream_destroy(s));
}

/* Threads, each with a stream of its own, allocating from one pool at once:
   each block's bytes are its own thread's until that thread frees it. */
typedef struct worker { xrt_mem_pool pool; const char *backend; int id, bad; } worker;

static void *worker_main(void *arg)
{
    worker *w = (worker *)arg;
    unsigned char h[64];
    xrt_stream s;
    void *a;
    int r, i;
    /* a new thread starts on the default backend: the group's, as the pool's */
    if (xrt_set_backend(w->backend) != XRT_SUCCESS || xrt_stream_create(&s) != XRT_SUCCESS)
        return (void *)(w->bad = 1, NULL);
    for (r = 0; r < ROUNDS && !w->bad; r++) {
        size_t n = (size_t)4096 << (r % 2);
        unsigned char v = (unsigned char)(w->id * 64 + r);
        if (xrt_malloc_from_pool_async(&a, n, w->pool, s) || xrt_memset_async(a, v, n, s) ||
            xrt_memcpy_async(h, (char *)a + n - sizeof h, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST, s) ||
            xrt_free_async(a, s) || xrt_stream_synchronize(s))
            w->bad = 2;
        for (i = 0; i < (int)sizeof h && !w->bad; i++)
            if (h[i] != v) w->bad = 3;
    }
    xrt_stream_destroy(s);
    return NULL;
}

static void test_threads_share_a_pool(void **state)
{
    enum { THREADS = 3 };
    xrt_mem_pool p = NULL;
    xrt_mem_pool_props props = {0, XRT_MEM_HANDLE_TYPE_NONE};
    pthread_t t[THREADS];
    worker w[THREADS];
    int i;
    (void)state;
    SKIP_UNLESS(has_pools(), "no memory pools");
    OK(xrt_mem_pool_create(&p, &props));
    set64(p, XRT_MEMPOOL_ATTR_RELEASE_THRESHOLD, 64 << 10); /* some kept over each synchronize, some released */
    for (i = 0; i < THREADS; i++) {
        w[i].pool = p;
        OK(xrt_get_backend(&w[i].backend));
        w[i].id = i;
        w[i].bad = 0;
        assert_int_equal(pthread_create(&t[i], NULL, worker_main, &w[i]), 0);
    }
    for (i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        if (w[i].bad) fail_msg("thread %d: %s", i, w[i].bad == 3 ? "another thread's bytes" : "a call failed");
    }
    assert_int_equal(attr64(p, XRT_MEMPOOL_ATTR_USED_MEM_CURRENT), 0);
    assert_true(attr64(p, XRT_MEMPOOL_ATTR_RESERVED_MEM_CURRENT) <= (64 << 10) + 2 * (4096 + 8192));
    OK(xrt_mem_pool_destroy(p));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pools_unsupported),      cmocka_unit_test(test_default_pool_reuse),
        cmocka_unit_test(test_release_threshold_and_trim), cmocka_unit_test(test_reuse_across_streams),
        cmocka_unit_test(test_current_pool_and_destroy), cmocka_unit_test(test_pool_bad_input),
        cmocka_unit_test(test_pool_zero_size),          cmocka_unit_test(test_pool_access), cmocka_unit_test(test_reset_gives_a_fresh_default_pool),
        cmocka_unit_test(test_pool_access_bad_input),
        cmocka_unit_test(test_concurrent_streams),     cmocka_unit_test(test_unreached_free_not_shared),
        cmocka_unit_test(test_unreached_free_not_shared_across_null_streams),
        cmocka_unit_test(test_threads_share_a_pool),   cmocka_unit_test(test_destroy_while_frees_run),
    };
    setenv("XRT_CPU_DEVICES", "2", 0); /* a pool of another device */
    return xrt_test_run_on_backends("memory pools", tests, sizeof tests / sizeof tests[0], NULL);
}
