/* SPDX-License-Identifier: MIT */
/* xrt_rdma.h on a real kernel RDMA stack: soft-RoCE (rdma_rxe) in the test
   VM (tests/rdma/vm.sh). Every registration is a real MR, and every claim
   about one is checked by moving bytes with RDMA WRITE and READ.

     test_rdma_vm                      the single-host suite (device rxe0)
     test_rdma_vm --two-hosts server   this host's half of the cross-host test
     test_rdma_vm --two-hosts client PEER
*/
#define XRT_ENABLE_RDMA
#define XRT_IMPL /* white-box: the PCI place of a device; built with RDMA */
#include "../xrt_test.h"
#include "../../xrt_rdma.h" /* after xrt.h */
#include "rc.h"

#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>

#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN 1
#endif
#endif

#define DEV "rxe0"
#define RW (XRT_RDMA_LOCAL_WRITE | XRT_RDMA_REMOTE_WRITE | XRT_RDMA_REMOTE_READ)
#define MIB (1u << 20)

static xrt_rdma_ctx ctx;
static struct ibv_pd *pd;

static void fill(void *p, size_t n, unsigned seed)
{
    size_t i;
    for (i = 0; i < n; i++) ((unsigned char *)p)[i] = (unsigned char)(i * 7 + seed);
}

static void check(const void *p, size_t n, unsigned seed)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (((const unsigned char *)p)[i] != (unsigned char)(i * 7 + seed))
            fail_msg("byte %zu is 0x%02x, expected 0x%02x", i, ((const unsigned char *)p)[i],
                     (unsigned char)(i * 7 + seed));
}

static xrt_rdma_cache_stats stats(void)
{
    xrt_rdma_cache_stats s;
    OK(xrt_rdma_cache_get_stats(ctx, &s));
    return s;
}

static int setup(void **state)
{
    (void)state;
    xrt_test_log_calls(); /* the tests assert on the log line of each failed call */
    if (xrt_rdma_open(&ctx, DEV) != XRT_SUCCESS) return -1;
    return xrt_rdma_get_pd(ctx, &pd) == XRT_SUCCESS ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    xrt_rdma_close(ctx);
    xrt_set_log_callback(NULL, NULL);
    return 0;
}

/* Each test starts with an empty cache and default limits. */
static int fresh_cache(void **state)
{
    (void)state;
    xrt_rdma_cache_set_limits(ctx, 4096, XRT_RDMA_UNLIMITED);
    return xrt_rdma_cache_flush(ctx) == XRT_SUCCESS ? 0 : -1;
}

/* >> devices and contexts */
static void devices_are_listed(void **state)
{
    xrt_rdma_device_info info;
    const xrt_rdma_port_info *p;
    char want[64];
    int n = 0, g, found = 0;
    unsigned a, b, c, d;
    (void)state;
    OK(xrt_rdma_device_count(&n));
    assert_int_equal(n, 1);
    OK(xrt_rdma_device_get_info(0, &info));
    print_message("%s: guid %016llx, %d port(s)\n", info.name, (unsigned long long)info.node_guid, info.port_count);
    assert_string_equal(info.name, DEV);
    assert_int_equal(info.port_count, 1);
    p = &info.ports[0];
    print_message("  port %d: %s, %s, mtu %d (max %d), %d GIDs of %d\n", p->port, p->state, p->link_layer,
                  p->active_mtu, p->max_mtu, p->gid_count, p->gid_table_size);
    assert_true(p->active);
    assert_string_equal(p->state, "active");
    assert_string_equal(p->link_layer, "Ethernet");
    assert_int_equal(p->active_mtu, 1024); /* a 1500-byte Ethernet MTU */
    assert_true(p->gid_count >= 2);
    assert_int_equal(sscanf(getenv("XRT_SELF"), "%u.%u.%u.%u", &a, &b, &c, &d), 4);
    for (g = 0; g < p->gid_count; g++) {
        const uint8_t *r = p->gids[g].raw;
        snprintf(want, sizeof want, "%u.%u.%u.%u", r[12], r[13], r[14], r[15]);
        print_message("  gid %d: %s %02x%02x:...:%s\n", p->gids[g].index, p->gids[g].type, r[0], r[1], want);
        found += !strcmp(p->gids[g].type, "RoCE v2") && r[10] == 0xff && r[12] == a && r[13] == b && r[14] == c &&
                 r[15] == d;
    }
    assert_int_equal(found, 1);
    FAILS(xrt_rdma_device_get_info(1, &info), XRT_ERROR_INVALID_VALUE, "index 1 out of range (1 devices)");
}

static void open_by_name_env_or_first_active(void **state)
{
    xrt_rdma_ctx c;
    xrt_rdma_context_info info;
    (void)state;
    OK(xrt_rdma_open(&c, NULL));
    OK(xrt_rdma_get_info(c, &info));
    assert_string_equal(info.device, DEV);
    assert_true(info.owns_pd);
    assert_non_null(info.pd);
    assert_ptr_equal(info.context, info.pd->context);
    assert_true(info.cache);
    /* rxe has no dma-buf support: the probe says so rather than guessing */
    print_message("dma-buf: %d (%s); fork: %s\n", info.dmabuf, info.dmabuf_reason, info.fork);
    assert_false(info.dmabuf);
    assert_non_null(strstr(info.dmabuf_reason, "rxe0 does not take dma-bufs (ibv_reg_dmabuf_mr with fd -1:"));
    assert_string_equal(info.fork, "unneeded");
    OK(xrt_rdma_close(c));
    FAILS(xrt_rdma_get_info(c, &info), XRT_ERROR_INVALID_HANDLE, "was closed");

    setenv("XRT_RDMA_DEVICE", DEV, 1);
    OK(xrt_rdma_open(&c, NULL));
    OK(xrt_rdma_close(c));
    setenv("XRT_RDMA_DEVICE", "mlx5_0", 1);
    FAILS(xrt_rdma_open(&c, NULL), XRT_ERROR_NOT_FOUND,
          "XRT_RDMA_DEVICE: no RDMA device named 'mlx5_0' (devices: rxe0)");
    assert_null(c);
    unsetenv("XRT_RDMA_DEVICE");
    FAILS(xrt_rdma_open(&c, "mlx5_0"), XRT_ERROR_NOT_FOUND, "no RDMA device named 'mlx5_0' (devices: rxe0)");
}

/* The nearest device, on a real sysfs: the thread's CPU device has no PCI
   address, so xrt_rdma_open(ctx, NULL) keeps libibverbs' order (the one
   device) and says so at debug level. */
static char nearest_log[4096];

static void nearest_log_fn(xrt_log_level level, const char *msg, void *user)
{
    size_t used = strlen(nearest_log);
    (void)level;
    (void)user;
    snprintf(nearest_log + used, sizeof nearest_log - used, "%s\n", msg);
}

static void nearest_of_a_cpu_device_is_the_first(void **state)
{
    xrt_rdma_ctx c;
    xrt_rdma_context_info info;
    xrt_rdma_affinity a = XRT_RDMA_AFFINITY_PIX;
    xrt__pci_place place;
    char why[PATH_MAX + 64] = "";
    (void)state;
    OK(xrt_set_backend("cpu"));
    nearest_log[0] = 0;
    xrt_set_log_callback(nearest_log_fn, NULL);
    xrt_set_log_level(XRT_LOG_DEBUG);
    OK(xrt_rdma_open(&c, NULL));
    OK(xrt_rdma_device_affinity(0, DEV, &a));
    xrt_test_log_calls(); /* as the other tests of this group expect */
    assert_int_equal(a, XRT_RDMA_AFFINITY_UNKNOWN);
    assert_non_null(strstr(nearest_log, "xrt_rdma_open: cpu device 0 has no PCI address and no NUMA node; libibverbs' order\n"));
    assert_non_null(strstr(nearest_log, "xrt_rdma_device_affinity: " DEV ": unknown: cpu device 0 has no PCI address and no NUMA node\n"));
    OK(xrt_rdma_get_info(c, &info));
    assert_string_equal(info.device, DEV);
    OK(xrt_rdma_close(c));
    /* soft-RoCE sits on no PCI function: its place is refused with a reason */
    assert_false(xrt__pci_place_of("/sys/class/infiniband/" DEV "/device", &place, why, sizeof why));
    print_message("%s: %s\n", DEV, why);
    assert_true(why[0] != 0);
}

/* An adopted PD is used, not owned: it outlives the context. */
static void adopted_pd_stays_the_callers(void **state)
{
    struct ibv_device **list = ibv_get_device_list(NULL);
    struct ibv_context *vc = ibv_open_device(list[0]);
    struct ibv_pd *own = ibv_alloc_pd(vc);
    struct ibv_pd *got = NULL;
    xrt_rdma_ctx c;
    xrt_rdma_reg reg;
    void *buf;
    (void)state;
    ibv_free_device_list(list);
    OK(xrt_rdma_open_pd(&c, own));
    OK(xrt_rdma_get_pd(c, &got));
    assert_ptr_equal(got, own);
    OK(xrt_malloc_host(&buf, 8192));
    OK(xrt_rdma_register(c, buf, 8192, RW, &reg));
    assert_ptr_equal(reg.mr->pd, own);
    OK(xrt_rdma_release(&reg));
    OK(xrt_rdma_close(c));
    OK(xrt_free_host(buf));
    assert_int_equal(ibv_dealloc_pd(own), 0); /* still valid, and nothing registered in it any more */
    assert_int_equal(ibv_close_device(vc), 0);
}

/* >> registration */
static void host_pinned_and_foreign_memory_register(void **state)
{
    void *pinned, *dev, *foreign = malloc(3000);
    xrt_rdma_reg a, b, c, d;
    (void)state;
    OK(xrt_malloc_host(&pinned, 4096));
    OK(xrt_malloc(&dev, 4096)); /* the cpu backend's device memory: host memory */
    OK(xrt_rdma_register(ctx, pinned, 4096, RW, &a));
    OK(xrt_rdma_register(ctx, dev, 100, XRT_RDMA_LOCAL_WRITE, &b));
    OK(xrt_rdma_register(ctx, foreign, 3000, RW, &c));
    assert_int_equal(a.path, XRT_RDMA_PATH_HOST);
    assert_int_equal(b.path, XRT_RDMA_PATH_HOST);
    assert_int_equal(c.path, XRT_RDMA_PATH_HOST);
    assert_true(a.cached && b.cached);
    assert_false(c.cached); /* xrt did not allocate it: uncached */
    assert_true(a.lkey && a.rkey && b.lkey && c.lkey && c.rkey);
    assert_int_equal(b.rkey, 0); /* no remote access asked for */
    assert_true(a.addr == (uintptr_t)pinned && b.addr == (uintptr_t)dev && c.size == 3000);
    /* foreign memory again: another private MR */
    OK(xrt_rdma_register(ctx, foreign, 3000, RW, &d));
    assert_ptr_not_equal(d.mr, c.mr);
    assert_int_equal(stats().uncached, 2);
    assert_int_equal(stats().entries, 2);
    /* what verbs itself would refuse, refused with the reason */
    FAILS(xrt_rdma_register(ctx, pinned, 4096, XRT_RDMA_REMOTE_WRITE, &d), XRT_ERROR_INVALID_VALUE,
          "XRT_RDMA_REMOTE_WRITE needs XRT_RDMA_LOCAL_WRITE");
    FAILS(xrt_rdma_register(ctx, (char *)pinned + 16, 4096, RW, &d), XRT_ERROR_INVALID_VALUE,
          "4096 bytes at");
    assert_non_null(strstr(xrt_get_last_error_string(), "overrun its allocation"));
    FAILS(xrt_rdma_register(ctx, pinned, 0, RW, &d), XRT_ERROR_INVALID_VALUE, "size is 0");
    OK(xrt_rdma_release(&a));
    OK(xrt_rdma_release(&b));
    OK(xrt_rdma_release(&c));
    FAILS(xrt_rdma_release(&c), XRT_ERROR_INVALID_HANDLE, "released");
    OK(xrt_free_host(pinned));
    OK(xrt_free(dev));
    free(foreign);
}

/* Two QPs on rxe0 (it loops back through its own GID): WRITE from pinned
   host memory into the cpu backend's device memory, READ it back. */
static void write_and_read_between_two_qps(void **state)
{
    void *src, *dst, *back;
    xrt_rdma_reg rs, rd, rb;
    rc_ep a, b;
    (void)state;
    OK(xrt_malloc_host(&src, MIB));
    OK(xrt_malloc(&dst, MIB));
    OK(xrt_malloc_host(&back, MIB));
    fill(src, MIB, 1);
    memset(dst, 0, MIB);
    memset(back, 0, MIB);
    OK(xrt_rdma_register(ctx, src, MIB, XRT_RDMA_LOCAL_WRITE, &rs));
    OK(xrt_rdma_register(ctx, dst, MIB, RW, &rd));
    OK(xrt_rdma_register(ctx, back, MIB, XRT_RDMA_LOCAL_WRITE, &rb));
    assert_int_equal(rc_pair(pd, &a, &b), 0);
    assert_int_equal(rc_rdma(&a, IBV_WR_RDMA_WRITE, src, rs.lkey, MIB, rd.addr, rd.rkey), IBV_WC_SUCCESS);
    check(dst, MIB, 1);
    assert_int_equal(rc_rdma(&b, IBV_WR_RDMA_READ, back, rb.lkey, MIB, rd.addr, rd.rkey), IBV_WC_SUCCESS);
    check(back, MIB, 1);
    /* a sub-range at an offset, through a registration of that sub-range */
    fill(src, 5000, 9);
    OK(xrt_rdma_release(&rd));
    OK(xrt_rdma_register(ctx, (char *)dst + 12345, 5000, RW, &rd));
    assert_int_equal(rc_rdma(&a, IBV_WR_RDMA_WRITE, src, rs.lkey, 5000, rd.addr, rd.rkey), IBV_WC_SUCCESS);
    check((char *)dst + 12345, 5000, 9);
    rc_close(&a);
    rc_close(&b);
    OK(xrt_rdma_release(&rs));
    OK(xrt_rdma_release(&rd));
    OK(xrt_rdma_release(&rb));
    OK(xrt_free_host(src));
    OK(xrt_free(dst));
    OK(xrt_free_host(back));
}

/* >> the cache */
static void repeated_registration_hits_the_cache(void **state)
{
    void *buf, *src;
    xrt_rdma_reg r1, r2, r3, r4, rs;
    xrt_rdma_cache_stats s, s0 = stats();
    rc_ep a, b;
    (void)state;
    OK(xrt_malloc_host(&buf, 64 * 1024));
    OK(xrt_malloc_host(&src, 4096));
    OK(xrt_rdma_register(ctx, buf, 64 * 1024, XRT_RDMA_LOCAL_WRITE, &r1));
    OK(xrt_rdma_register(ctx, buf, 64 * 1024, XRT_RDMA_LOCAL_WRITE, &r2)); /* same range */
    OK(xrt_rdma_register(ctx, (char *)buf + 100, 50, XRT_RDMA_LOCAL_WRITE, &r3)); /* sub-range */
    assert_int_equal(r2.lkey, r1.lkey);
    assert_ptr_equal(r2.mr, r1.mr);
    assert_ptr_equal(r3.mr, r1.mr);
    assert_true(r3.addr == (uintptr_t)buf + 100 && r3.size == 50);
    s = stats();
    assert_int_equal(s.misses - s0.misses, 1);
    assert_int_equal(s.hits - s0.hits, 2);
    assert_int_equal(s.entries, 1);
    assert_int_equal(s.referenced, 1);
    /* remote access: a miss; the new entry is not widened over the local-only
       one (remote access is never widened) and lives beside it */
    OK(xrt_rdma_register(ctx, buf, 4096, RW, &r4));
    assert_ptr_not_equal(r4.mr, r1.mr);
    assert_true(r4.rkey != 0);
    s = stats();
    assert_int_equal(s.misses - s0.misses, 2);
    assert_int_equal(s.entries, 2);
    OK(xrt_rdma_register(ctx, src, 4096, XRT_RDMA_LOCAL_WRITE, &rs));
    assert_int_equal(rc_pair(pd, &a, &b), 0);
    fill(src, 4096, 3);
    assert_int_equal(rc_rdma(&a, IBV_WR_RDMA_WRITE, src, rs.lkey, 4096, r4.addr, r4.rkey), IBV_WC_SUCCESS);
    check(buf, 4096, 3); /* r4 covers its own page only */
    assert_int_equal(rc_rdma(&b, IBV_WR_RDMA_READ, (char *)buf + 100, r3.lkey, 50, r4.addr, r4.rkey),
                     IBV_WC_SUCCESS); /* the local-only MR works as a local key beside it */
    rc_close(&a);
    rc_close(&b);
    OK(xrt_rdma_release(&r1));
    OK(xrt_rdma_release(&r2));
    OK(xrt_rdma_release(&r3));
    OK(xrt_rdma_register(ctx, (char *)buf + 1000, 10, XRT_RDMA_LOCAL_WRITE, &r2)); /* the local-only entry: a hit */
    assert_int_equal(r2.rkey, 0);
    assert_ptr_not_equal(r2.mr, r4.mr);
    OK(xrt_rdma_release(&r2));
    assert_int_equal(stats().hits - s0.hits, 3);
    OK(xrt_rdma_register(ctx, (char *)buf + 1000, 10, RW, &r1)); /* inside r4, the same access */
    assert_ptr_equal(r1.mr, r4.mr);
    OK(xrt_rdma_release(&r1));
    OK(xrt_rdma_register(ctx, (char *)buf + 1000, 10, XRT_RDMA_REMOTE_READ, &r1)); /* other remote access */
    assert_ptr_not_equal(r1.mr, r4.mr);
    assert_true(r1.rkey != r4.rkey);
    OK(xrt_rdma_release(&r1));
    OK(xrt_rdma_release(&r4));
    OK(xrt_rdma_release(&rs));
    s = stats();
    assert_int_equal(s.entries, 4); /* buf's local-only, remote-write and remote-read entries; src's */
    assert_int_equal(s.referenced, 0);
    OK(xrt_free_host(buf));
    OK(xrt_free_host(src));
    assert_int_equal(stats().entries, 0);
    assert_int_equal(stats().invalidations - s0.invalidations, 4);
}

/* The classic MR-cache bug: memory freed and allocated again at the same
   address must not be served the old registration, whose pages are gone. A
   real RDMA WRITE through the new registration must land in the new buffer. */
static void free_and_reallocate_at_the_same_address_registers_afresh(void **state)
{
    const size_t n = MIB; /* above the mmap threshold: free unmaps, malloc maps new pages */
    void *buf, *again[8], *src;
    xrt_rdma_reg r, rs;
    xrt_rdma_cache_stats s0, s1;
    rc_ep a, b;
    int i, k = 0;
    (void)state;
#ifdef ASAN
    SKIP_UNLESS(0, "ASan's allocator holds freed memory back: the address is not handed out again at once");
#endif
    OK(xrt_malloc_host(&src, n));
    OK(xrt_rdma_register(ctx, src, n, XRT_RDMA_LOCAL_WRITE, &rs));
    OK(xrt_malloc_host(&buf, n));
    OK(xrt_rdma_register(ctx, buf, n, RW, &r));
    OK(xrt_rdma_release(&r)); /* unreferenced, still cached */
    s0 = stats();
    OK(xrt_free_host(buf));
    for (i = 0; i < 8; i++) {
        OK(xrt_malloc_host(&again[i], n));
        if (again[i] == buf) break;
    }
    assert_true(i < 8 && again[i] == buf); /* mmap handed the address out again */
    k = i;
    memset(buf, 0, n);
    OK(xrt_rdma_register(ctx, buf, n, RW, &r));
    s1 = stats();
    assert_int_equal(s1.invalidations, s0.invalidations + 1);
    assert_int_equal(s1.misses, s0.misses + 1);
    assert_int_equal(s1.hits, s0.hits);
    assert_int_equal(rc_pair(pd, &a, &b), 0);
    fill(src, n, 77);
    assert_int_equal(rc_rdma(&a, IBV_WR_RDMA_WRITE, src, rs.lkey, n, r.addr, r.rkey), IBV_WC_SUCCESS);
    check(buf, n, 77); /* landed in the new pages */
    OK(xrt_rdma_release(&r));
    rc_close(&a);
    rc_close(&b);
    for (i = 0; i <= k; i++) OK(xrt_free_host(again[i]));
    OK(xrt_rdma_release(&rs));
    OK(xrt_free_host(src));
}

/* The control: a stale MR really is detectable this way. A private
   registration of mmap'd memory survives munmap + mmap at the same address,
   and a WRITE through it lands in the old pages, not in the new mapping. */
static void stale_registration_misses_the_new_pages(void **state)
{
    const size_t n = 256 * 1024;
    void *src, *m, *m2;
    xrt_rdma_reg old, rs;
    rc_ep a, b;
    (void)state;
    OK(xrt_malloc_host(&src, n));
    OK(xrt_rdma_register(ctx, src, n, XRT_RDMA_LOCAL_WRITE, &rs));
    m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(m != MAP_FAILED);
    memset(m, 0, n);
    OK(xrt_rdma_register(ctx, m, n, RW, &old));
    assert_false(old.cached);
    munmap(m, n);
    m2 = mmap(m, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    assert_ptr_equal(m2, m);
    assert_int_equal(rc_pair(pd, &a, &b), 0);
    fill(src, n, 5);
    assert_int_equal(rc_rdma(&a, IBV_WR_RDMA_WRITE, src, rs.lkey, n, old.addr, old.rkey), IBV_WC_SUCCESS);
    assert_bytes((const unsigned char *)m2, n, 0); /* the new pages never saw it */
    rc_close(&a);
    rc_close(&b);
    OK(xrt_rdma_release(&old));
    munmap(m2, n);
    OK(xrt_rdma_release(&rs));
    OK(xrt_free_host(src));
}

/* Freeing memory whose registration is still held: the MR is deregistered,
   with a warning, so the remote key stops working. */
static void free_while_held_kills_the_registration(void **state)
{
    void *buf, *src;
    xrt_rdma_reg r, rs;
    rc_ep a, b;
    int logs;
    (void)state;
    OK(xrt_malloc_host(&buf, 8192));
    OK(xrt_malloc_host(&src, 8192));
    OK(xrt_rdma_register(ctx, src, 8192, XRT_RDMA_LOCAL_WRITE, &rs));
    OK(xrt_rdma_register(ctx, buf, 8192, RW, &r));
    logs = xrt_test_log.count;
    OK(xrt_free_host(buf));
    assert_int_equal(xrt_test_log.count, logs + 1);
    assert_int_equal(xrt_test_log.level, XRT_LOG_WARN);
    assert_non_null(strstr(xrt_test_log.last, "freed while 1 registration(s) of them were held: deregistered"));
    assert_int_equal(rc_pair(pd, &a, &b), 0);
    assert_int_equal(rc_rdma(&a, IBV_WR_RDMA_WRITE, src, rs.lkey, 64, r.addr, r.rkey), IBV_WC_REM_ACCESS_ERR);
    rc_close(&a);
    rc_close(&b);
    OK(xrt_rdma_release(&r)); /* still to be released: frees xrt's record */
    OK(xrt_rdma_release(&rs));
    OK(xrt_free_host(src));
    assert_int_equal(stats().entries, 0);
}

static void limits_evict_least_recently_used(void **state)
{
    void *b[4];
    xrt_rdma_reg r[4], again;
    xrt_rdma_cache_stats s, s0 = stats();
    xrt_rdma_ctx c;
    int i;
    (void)state;
    for (i = 0; i < 4; i++) OK(xrt_malloc_host(&b[i], 32 * 1024));
    OK(xrt_rdma_cache_set_limits(ctx, 2, XRT_RDMA_UNLIMITED));
    for (i = 0; i < 4; i++) {
        OK(xrt_rdma_register(ctx, b[i], 32 * 1024, RW, &r[i]));
        OK(xrt_rdma_release(&r[i]));
    }
    s = stats();
    assert_int_equal(s.entries, 2);
    assert_int_equal(s.evictions - s0.evictions, 2);
    OK(xrt_rdma_register(ctx, b[3], 32 * 1024, RW, &again)); /* kept: a hit */
    OK(xrt_rdma_release(&again));
    OK(xrt_rdma_register(ctx, b[0], 32 * 1024, RW, &again)); /* evicted first: a miss */
    OK(xrt_rdma_release(&again));
    s = stats();
    assert_int_equal(s.hits - s0.hits, 1);
    assert_int_equal(s.misses - s0.misses, 5);
    assert_int_equal(s.evictions - s0.evictions, 3); /* b[2], the least recently used, made room */
    /* referenced entries are never evicted: the limit bounds what is kept idle */
    OK(xrt_rdma_cache_flush(ctx));
    for (i = 0; i < 4; i++) OK(xrt_rdma_register(ctx, b[i], 32 * 1024, RW, &r[i]));
    s = stats();
    assert_int_equal(s.entries, 4);
    assert_int_equal(s.referenced, 4);
    for (i = 0; i < 4; i++) OK(xrt_rdma_release(&r[i]));
    assert_int_equal(stats().entries, 2);
    /* a byte limit */
    OK(xrt_rdma_cache_set_limits(ctx, XRT_RDMA_UNLIMITED, 64 * 1024));
    for (i = 0; i < 4; i++) {
        OK(xrt_rdma_register(ctx, b[i], 32 * 1024, RW, &r[i]));
        OK(xrt_rdma_release(&r[i]));
    }
    s = stats();
    assert_true(s.bytes <= 64 * 1024 && s.entries == 2);
    /* limits from the environment; the cache switched off */
    setenv("XRT_RDMA_CACHE_ENTRIES", "1", 1);
    setenv("XRT_RDMA_CACHE_BYTES", "1m", 1);
    OK(xrt_rdma_open(&c, DEV));
    OK(xrt_rdma_cache_get_stats(c, &s));
    assert_true(s.max_entries == 1 && s.max_bytes == MIB);
    OK(xrt_rdma_close(c));
    unsetenv("XRT_RDMA_CACHE_ENTRIES");
    unsetenv("XRT_RDMA_CACHE_BYTES");
    setenv("XRT_RDMA_CACHE", "0", 1);
    OK(xrt_rdma_open(&c, DEV));
    OK(xrt_rdma_register(c, b[0], 4096, RW, &r[0]));
    OK(xrt_rdma_register(c, b[0], 4096, RW, &r[1]));
    assert_false(r[0].cached);
    assert_ptr_not_equal(r[0].mr, r[1].mr);
    FAILS(xrt_rdma_register(c, (char *)b[0] + 16, 32 * 1024, RW, &r[2]), XRT_ERROR_INVALID_VALUE,
          "overrun its allocation");
    OK(xrt_rdma_release(&r[0]));
    OK(xrt_rdma_release(&r[1]));
    OK(xrt_rdma_close(c));
    unsetenv("XRT_RDMA_CACHE");
    for (i = 0; i < 4; i++) OK(xrt_free_host(b[i]));
}

/* >> defects that need real WRITEs to show */
/* A WRITE through (lkey of src) to raddr/rkey on a fresh pair of QPs: the
   completion status (a failed one leaves the QPs in error). */
static int write_on(struct ibv_pd *on, void *src, uint32_t lkey, size_t n, uint64_t raddr, uint32_t rkey)
{
    rc_ep a, b;
    int st;
    if (rc_pair(on, &a, &b) != 0) return -1;
    st = rc_rdma(&a, IBV_WR_RDMA_WRITE, src, lkey, n, raddr, rkey);
    rc_close(&a);
    rc_close(&b);
    return st;
}

static int write_once(void *src, uint32_t lkey, size_t n, uint64_t raddr, uint32_t rkey)
{
    return write_on(pd, src, lkey, n, raddr, rkey);
}

/* Threads register a 1 MiB buffer (mapped and unmapped by malloc: freed
   memory loses its pages) while the owner frees it, allocates it again at
   the same address and registers the new one: a WRITE through the owner's
   registration must land in the new buffer. */
#define RACE_N MIB
static int race_stop;
static void *race_shared;

static void *race_registrar(void *arg)
{
    xrt_rdma_reg r;
    (void)arg;
    OK(xrt_set_backend("cpu"));
    while (!__atomic_load_n(&race_stop, __ATOMIC_ACQUIRE)) {
        void *p = __atomic_load_n(&race_shared, __ATOMIC_ACQUIRE);
        if (xrt_rdma_register(ctx, p, RACE_N, RW, &r) == XRT_SUCCESS) xrt_rdma_release(&r);
        sched_yield(); /* three spinning threads on two virtual CPUs starved the freeing thread under TSan */
    }
    return NULL;
}

static void registration_racing_free_never_misses_the_new_buffer(void **state)
{
    pthread_t t[3];
    void *p, *src;
    xrt_rdma_reg r, rs;
    rc_ep a, b;
    int i, lost = 0, same = 0, rounds = 60;
    (void)state;
    xrt_set_log_level(XRT_LOG_NONE); /* registrations of freed memory fail and frees of held ones warn, from
                                          several threads at once: expected here, and the log capture is not thread-safe */
    OK(xrt_malloc_host(&src, RACE_N));
    OK(xrt_rdma_register(ctx, src, RACE_N, XRT_RDMA_LOCAL_WRITE, &rs));
    assert_int_equal(rc_pair(pd, &a, &b), 0);
    OK(xrt_malloc_host(&p, RACE_N));
    race_stop = 0;
    __atomic_store_n(&race_shared, p, __ATOMIC_RELEASE);
    for (i = 0; i < 3; i++) assert_int_equal(pthread_create(&t[i], NULL, race_registrar, NULL), 0);
    for (i = 0; i < rounds; i++) {
        void *q;
        OK(xrt_free_host(p));
        OK(xrt_malloc_host(&q, RACE_N));
        same += q == p;
        memset(q, 0, RACE_N);
        __atomic_store_n(&race_shared, q, __ATOMIC_RELEASE);
        p = q;
        OK(xrt_rdma_register(ctx, p, RACE_N, RW, &r));
        fill(src, RACE_N, (unsigned)i);
        if (rc_rdma(&a, IBV_WR_RDMA_WRITE, src, rs.lkey, RACE_N, r.addr, r.rkey) != IBV_WC_SUCCESS) {
            lost++; /* the QPs are in error now: a new pair */
            rc_close(&a);
            rc_close(&b);
            assert_int_equal(rc_pair(pd, &a, &b), 0);
        } else if (((unsigned char *)p)[RACE_N - 1] != (unsigned char)((RACE_N - 1) * 7 + (unsigned)i) ||
                   ((unsigned char *)p)[0] != (unsigned char)i) {
            lost++;
        }
        OK(xrt_rdma_release(&r));
    }
    __atomic_store_n(&race_stop, 1, __ATOMIC_RELEASE);
    for (i = 0; i < 3; i++) pthread_join(t[i], NULL);
    print_message("%d rounds (%d at the same address): %d WRITEs through the new buffer's registration missed it\n",
                  rounds, same, lost);
    assert_int_equal(lost, 0);
    rc_close(&a);
    rc_close(&b);
    OK(xrt_rdma_release(&rs));
    OK(xrt_free_host(p));
    OK(xrt_free_host(src));
    xrt_test_log_calls(); /* back to the group's level */
}

/* With the cache off, freeing registered memory deregisters its MR: the
   rkey reaches nothing. */
static void cache_off_free_kills_the_rkey(void **state)
{
    xrt_rdma_ctx c;
    xrt_rdma_reg r, rs;
    struct ibv_pd *cpd;
    void *buf, *src;
    (void)state;
    setenv("XRT_RDMA_CACHE", "0", 1);
    OK(xrt_rdma_open(&c, DEV));
    unsetenv("XRT_RDMA_CACHE");
    OK(xrt_rdma_get_pd(c, &cpd));
    OK(xrt_malloc_host(&buf, 65536));
    OK(xrt_malloc_host(&src, 65536));
    OK(xrt_rdma_register(c, src, 65536, XRT_RDMA_LOCAL_WRITE, &rs));
    OK(xrt_rdma_register(c, buf, 65536, RW, &r));
    assert_false(r.cached);
    fill(src, 4096, 4);
    assert_int_equal(write_on(cpd, src, rs.lkey, 4096, r.addr, r.rkey), IBV_WC_SUCCESS);
    check(buf, 4096, 4);
    OK(xrt_free_host(buf));
    assert_non_null(strstr(xrt_test_log.last, "freed while 1 registration(s) of them were held: deregistered"));
    assert_int_equal(write_on(cpd, src, rs.lkey, 64, r.addr, r.rkey), IBV_WC_REM_ACCESS_ERR);
    OK(xrt_rdma_release(&r));
    OK(xrt_rdma_release(&rs));
    OK(xrt_rdma_close(c));
    OK(xrt_free_host(src));
}

/* A local-only request after a remote one: rkey 0; the remote MR stays
   cached beside it (its key works) until it is evicted. */
static void local_request_gets_no_remote_key(void **state)
{
    xrt_rdma_reg r, l, rs;
    void *buf, *src;
    uint32_t old;
    uint64_t addr;
    (void)state;
    OK(xrt_malloc_host(&buf, 65536));
    OK(xrt_malloc_host(&src, 65536));
    OK(xrt_rdma_register(ctx, src, 65536, XRT_RDMA_LOCAL_WRITE, &rs));
    OK(xrt_rdma_register(ctx, buf, 65536, XRT_RDMA_LOCAL_WRITE | XRT_RDMA_REMOTE_WRITE, &r));
    old = r.rkey;
    addr = r.addr;
    OK(xrt_rdma_release(&r));
    OK(xrt_rdma_register(ctx, buf, 4096, XRT_RDMA_LOCAL_WRITE, &l));
    assert_int_equal(l.rkey, 0);
    assert_int_equal(write_once(src, rs.lkey, 64, addr, old), IBV_WC_SUCCESS);
    OK(xrt_rdma_cache_flush(ctx)); /* the remote entry, unreferenced, goes */
    assert_int_equal(write_once(src, rs.lkey, 64, addr, old), IBV_WC_REM_ACCESS_ERR);
    OK(xrt_rdma_release(&l));
    OK(xrt_rdma_release(&rs));
    OK(xrt_free_host(buf));
    OK(xrt_free_host(src));
}

/* Releasing a copy after the original: XRT_ERROR_INVALID_HANDLE, and the
   cache still works (a flush returns; a WRITE through a new registration
   lands). */
static void double_release_of_a_copy_is_refused(void **state)
{
    xrt_rdma_reg r, copy, again, rs;
    void *buf, *src;
    (void)state;
    OK(xrt_malloc_host(&buf, 65536));
    OK(xrt_malloc_host(&src, 65536));
    OK(xrt_rdma_register(ctx, src, 65536, XRT_RDMA_LOCAL_WRITE, &rs));
    OK(xrt_rdma_register(ctx, buf, 65536, RW, &r));
    copy = r;
    OK(xrt_rdma_release(&r));
    FAILS(xrt_rdma_release(&copy), XRT_ERROR_INVALID_HANDLE, "released already");
    OK(xrt_rdma_cache_flush(ctx));
    assert_int_equal(stats().referenced, 1); /* rs */
    OK(xrt_rdma_register(ctx, buf, 65536, RW, &again));
    fill(src, 65536, 8);
    assert_int_equal(write_once(src, rs.lkey, 65536, again.addr, again.rkey), IBV_WC_SUCCESS);
    check(buf, 65536, 8);
    OK(xrt_rdma_release(&again));
    OK(xrt_rdma_release(&rs));
    OK(xrt_free_host(buf));
    OK(xrt_free_host(src));
}

/* Sizes that would wrap are refused with the warning; the defaults stay. */
static void cache_size_variables_do_not_wrap(void **state)
{
    xrt_rdma_ctx c;
    xrt_rdma_cache_stats s;
    (void)state;
    setenv("XRT_RDMA_CACHE_BYTES", "17179869184g", 1);
    setenv("XRT_RDMA_CACHE_ENTRIES", " -1", 1);
    OK(xrt_rdma_open(&c, DEV));
    unsetenv("XRT_RDMA_CACHE_BYTES");
    unsetenv("XRT_RDMA_CACHE_ENTRIES");
    OK(xrt_rdma_cache_get_stats(c, &s));
    assert_true(s.max_bytes == XRT_RDMA_UNLIMITED && s.max_entries == 4096);
    assert_non_null(strstr(xrt_test_log.last, "XRT_RDMA_CACHE_BYTES=17179869184g: not a size"));
    OK(xrt_rdma_close(c));
}

/* Memory xrt did not allocate: xrt_rdma_notify_free before munmap drops its
   registration; the rkey reaches nothing. */
static void notify_free_kills_a_foreign_registration(void **state)
{
    const size_t n = 256 * 1024;
    xrt_rdma_reg r, rs;
    void *src, *m;
    (void)state;
    OK(xrt_malloc_host(&src, n));
    OK(xrt_rdma_register(ctx, src, n, XRT_RDMA_LOCAL_WRITE, &rs));
    m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(m != MAP_FAILED);
    OK(xrt_rdma_register(ctx, m, n, RW, &r));
    fill(src, n, 6);
    assert_int_equal(write_once(src, rs.lkey, n, r.addr, r.rkey), IBV_WC_SUCCESS);
    check(m, n, 6);
    OK(xrt_rdma_notify_free(m, n));
    assert_int_equal(write_once(src, rs.lkey, 64, r.addr, r.rkey), IBV_WC_REM_ACCESS_ERR);
    munmap(m, n);
    OK(xrt_rdma_release(&r));
    OK(xrt_rdma_release(&rs));
    OK(xrt_free_host(src));
}

/* >> threads */
#define NBUF 12
#define NTHREADS 8
#define ROUNDS 300
static void *shared_bufs[NBUF];
static const size_t shared_size = 64 * 1024;

typedef struct worker { unsigned seed; int failures; long regs; } worker;

static void *worker_main(void *arg)
{
    worker *w = (worker *)arg;
    xrt_rdma_reg held[4];
    void *own;
    int nheld = 0, i;
    memset(held, 0, sizeof held);
    for (i = 0; i < ROUNDS; i++) {
        unsigned r = w->seed = w->seed * 1103515245u + 12345u;
        char *base = (char *)shared_bufs[(r >> 4) % NBUF];
        size_t off = (r >> 9) % (shared_size - 1), len = 1 + (r >> 3) % (shared_size - off);
        unsigned access = (r & 1) ? RW : XRT_RDMA_LOCAL_WRITE;
        if (nheld == 4 || (r >> 28) % 3 == 0) { /* release one, not necessarily the oldest */
            int k = nheld ? (int)((r >> 12) % (unsigned)nheld) : 0;
            if (nheld && xrt_rdma_release(&held[k]) != XRT_SUCCESS) w->failures++;
            if (nheld) held[k] = held[--nheld];
        }
        if (xrt_rdma_register(ctx, base + off, len, access, &held[nheld]) != XRT_SUCCESS ||
            held[nheld].addr != (uintptr_t)(base + off) || !held[nheld].lkey || held[nheld].size != len ||
            ((access & XRT_RDMA_REMOTE_WRITE) && !held[nheld].rkey))
            w->failures++;
        else
            nheld++;
        w->regs++;
        if (i % 25 == 0) { /* memory of its own, registered and freed while other threads register */
            xrt_rdma_reg mine;
            if (xrt_malloc_host(&own, 16384) != XRT_SUCCESS ||
                xrt_rdma_register(ctx, own, 16384, RW, &mine) != XRT_SUCCESS ||
                xrt_rdma_release(&mine) != XRT_SUCCESS || xrt_free_host(own) != XRT_SUCCESS)
                w->failures++;
        }
    }
    while (nheld) xrt_rdma_release(&held[--nheld]);
    return NULL;
}

static void eight_threads_register_and_release(void **state)
{
    pthread_t t[NTHREADS];
    worker w[NTHREADS];
    xrt_rdma_cache_stats s, s0 = stats();
    void *src;
    xrt_rdma_reg rs, r;
    rc_ep a, b;
    long regs = 0;
    int i;
    (void)state;
    for (i = 0; i < NBUF; i++) OK(xrt_malloc_host(&shared_bufs[i], shared_size));
    OK(xrt_rdma_cache_set_limits(ctx, 8, XRT_RDMA_UNLIMITED)); /* evictions race too */
    for (i = 0; i < NTHREADS; i++) {
        w[i].seed = 1234u + (unsigned)i * 7919u;
        w[i].failures = 0;
        w[i].regs = 0;
        assert_int_equal(pthread_create(&t[i], NULL, worker_main, &w[i]), 0);
    }
    for (i = 0; i < NTHREADS; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(w[i].failures, 0);
        regs += w[i].regs;
    }
    s = stats();
    s.hits -= s0.hits;
    s.misses -= s0.misses;
    s.evictions -= s0.evictions;
    s.invalidations -= s0.invalidations;
    print_message("%ld registrations: %llu hits, %llu misses, %llu evictions, %llu invalidations, %zu entries\n",
                  regs, (unsigned long long)s.hits, (unsigned long long)s.misses, (unsigned long long)s.evictions,
                  (unsigned long long)s.invalidations, s.entries);
    assert_int_equal(s.referenced, 0);
    assert_true(s.entries <= 8);
    assert_true(s.hits + s.misses >= (uint64_t)regs); /* plus the threads' own buffers */
    assert_true(s.hits > 0 && s.evictions > 0); /* invalidations: those of the threads' own buffers not evicted first */
    /* every shared buffer is still registered correctly: move bytes into it */
    OK(xrt_malloc_host(&src, shared_size));
    OK(xrt_rdma_register(ctx, src, shared_size, XRT_RDMA_LOCAL_WRITE, &rs));
    assert_int_equal(rc_pair(pd, &a, &b), 0);
    for (i = 0; i < NBUF; i++) {
        size_t pg;
        fill(src, shared_size, (unsigned)i);
        OK(xrt_rdma_register(ctx, shared_bufs[i], shared_size, RW, &r));
        assert_int_equal(rc_rdma(&a, IBV_WR_RDMA_WRITE, src, rs.lkey, shared_size, r.addr, r.rkey), IBV_WC_SUCCESS);
        check(shared_bufs[i], shared_size, (unsigned)i);
        OK(xrt_rdma_release(&r));
        for (pg = 0; pg < shared_size; pg += 4096) { /* every page, through a registration of that page */
            fill(src, 4096, (unsigned)(i + pg / 4096 + 50));
            OK(xrt_rdma_register(ctx, (char *)shared_bufs[i] + pg, 4096, RW, &r));
            assert_int_equal(rc_rdma(&a, IBV_WR_RDMA_WRITE, src, rs.lkey, 4096, r.addr, r.rkey), IBV_WC_SUCCESS);
            check((char *)shared_bufs[i] + pg, 4096, (unsigned)(i + pg / 4096 + 50));
            OK(xrt_rdma_release(&r));
        }
    }
    rc_close(&a);
    rc_close(&b);
    OK(xrt_rdma_release(&rs));
    OK(xrt_free_host(src));
    for (i = 0; i < NBUF; i++) OK(xrt_free_host(shared_bufs[i]));
    assert_int_equal(stats().entries, 0);
}

/* >> fork */
/* In the child: a context of its own starts with an empty cache (the
   parent's entries are not reachable from it), and a WRITE through its
   registration of the inherited buffer lands in the child's pages. */
static int child_own_cache(void *parent_buf)
{
    xrt_rdma_ctx mine;
    xrt_rdma_cache_stats st;
    struct ibv_pd *mpd;
    xrt_rdma_reg r, rs;
    void *src;
    rc_ep a, b;
    int rc = 0;
    if (xrt_rdma_open(&mine, DEV) != XRT_SUCCESS || xrt_rdma_get_pd(mine, &mpd) != XRT_SUCCESS) return 10;
    if (xrt_malloc_host(&src, 4096) != XRT_SUCCESS) return 11;
    if (xrt_rdma_register(mine, parent_buf, 4096, RW, &r) != XRT_SUCCESS ||
        xrt_rdma_register(mine, src, 4096, XRT_RDMA_LOCAL_WRITE, &rs) != XRT_SUCCESS)
        return 12;
    if (xrt_rdma_cache_get_stats(mine, &st) != XRT_SUCCESS || st.hits != 0 || st.misses != 2) return 13;
    memset(src, 0x5a, 4096);
    if (rc_pair(mpd, &a, &b) != 0) return 14;
    if (rc_rdma(&a, IBV_WR_RDMA_WRITE, src, rs.lkey, 4096, r.addr, r.rkey) != IBV_WC_SUCCESS) rc = 15;
    else if (((unsigned char *)parent_buf)[0] != 0x5a || ((unsigned char *)parent_buf)[4095] != 0x5a) rc = 16;
    rc_close(&a);
    rc_close(&b);
    xrt_rdma_release(&r);
    xrt_rdma_release(&rs);
    xrt_free_host(src);
    xrt_rdma_close(mine);
    return rc;
}

/* In the child: the parent's context and its registrations are refused; a
   context of its own works; closing the parent's context only forgets xrt's
   records. Exit status: 0 or the check that failed. */
static int child_after_fork(void *parent_buf, xrt_rdma_reg parent_reg)
{
    xrt_rdma_ctx mine;
    xrt_rdma_reg r;
    char buf[4096];
    if (xrt_rdma_release(&parent_reg) != XRT_ERROR_INVALID_HANDLE || !parent_reg.opaque) return 7;
    if (xrt_rdma_register(ctx, parent_buf, 4096, RW, &r) != XRT_ERROR_INVALID_HANDLE) return 1;
    if (!strstr(xrt_get_last_error_string(), "was opened before fork(), in the parent process")) return 2;
    if (xrt_rdma_open(&mine, DEV) != XRT_SUCCESS) return 3;
    if (xrt_rdma_register(mine, buf, sizeof buf, RW, &r) != XRT_SUCCESS || !r.lkey) return 4;
    if (xrt_rdma_release(&r) != XRT_SUCCESS || xrt_rdma_close(mine) != XRT_SUCCESS) return 5;
    if (xrt_rdma_close(ctx) != XRT_SUCCESS) return 6; /* the parent's MRs stay the parent's */
    return child_own_cache(parent_buf);
}

static void fork_leaves_the_parent_working(void **state)
{
    void *buf, *src;
    xrt_rdma_reg r, rs, again;
    rc_ep a, b;
    pid_t pid;
    int status = -1;
    (void)state;
    OK(xrt_malloc_host(&buf, 64 * 1024));
    OK(xrt_malloc_host(&src, 64 * 1024));
    memset(buf, 1, 64 * 1024);
    OK(xrt_rdma_register(ctx, buf, 64 * 1024, RW, &r));
    OK(xrt_rdma_register(ctx, src, 64 * 1024, XRT_RDMA_LOCAL_WRITE, &rs));
    assert_int_equal(rc_pair(pd, &a, &b), 0);
    fflush(NULL);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) _exit(child_after_fork(buf, r));
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    /* the parent writes its pages after the fork, then the NIC writes them:
       both land in the memory the parent sees */
    memset(buf, 2, 64 * 1024);
    fill(src, 64 * 1024, 33);
    assert_int_equal(rc_rdma(&a, IBV_WR_RDMA_WRITE, src, rs.lkey, 32 * 1024, r.addr + 32 * 1024, r.rkey),
                     IBV_WC_SUCCESS);
    assert_bytes((const unsigned char *)buf, 32 * 1024, 2);
    check((char *)buf + 32 * 1024, 32 * 1024, 33);
    OK(xrt_rdma_register(ctx, buf, 100, RW, &again)); /* the cache is intact */
    assert_ptr_equal(again.mr, r.mr);
    rc_close(&a);
    rc_close(&b);
    OK(xrt_rdma_release(&again));
    OK(xrt_rdma_release(&r));
    OK(xrt_rdma_release(&rs));
    OK(xrt_free_host(buf));
    OK(xrt_free_host(src));
}

static void close_with_held_registrations_warns(void **state)
{
    xrt_rdma_ctx c;
    xrt_rdma_reg r, p;
    void *buf;
    char foreign[512];
    (void)state;
    OK(xrt_rdma_open(&c, DEV));
    OK(xrt_malloc_host(&buf, 4096));
    OK(xrt_rdma_register(c, buf, 4096, RW, &r));
    OK(xrt_rdma_register(c, foreign, sizeof foreign, RW, &p));
    OK(xrt_rdma_close(c)); /* deregisters both, so the PD can go */
    assert_int_equal(xrt_test_log.level, XRT_LOG_WARN);
    assert_non_null(strstr(xrt_test_log.last, "rxe0 closed with 2 registration(s) still held"));
    FAILS(xrt_rdma_register(c, buf, 4096, RW, &r), XRT_ERROR_INVALID_HANDLE, "was closed");
    OK(xrt_free_host(buf));
}

/* >> two hosts */
/* Host a (server) and host b (client), each its own kernel and rxe device,
   joined by the VMs' virtual cable. The client WRITEs into the server's
   buffer and READs the server's other half; each side checks what it got. */
static const char *role, *peer;

static void two_hosts_write_and_read(void **state)
{
    const size_t n = MIB;
    void *buf;
    xrt_rdma_reg r;
    rc_ep ep;
    rc_wire mine, theirs;
    char done = 0;
    int fd, server = !strcmp(role, "server");
    (void)state;
    OK(xrt_malloc_host(&buf, 2 * n)); /* first half: written by the client; second: read by it */
    memset(buf, 0, 2 * n);
    if (server) fill((char *)buf + n, n, 201);
    OK(xrt_rdma_register(ctx, buf, 2 * n, RW, &r));
    assert_int_equal(rc_open(&ep, pd), 0);
    rc_wire_of(&ep, &mine);
    mine.addr = r.addr;
    mine.rkey = r.rkey;
    fd = rc_tcp(server ? NULL : peer, 18515, 240);
    assert_true(fd >= 0);
    assert_int_equal(rc_exchange(fd, &mine, &theirs), 0);
    assert_int_equal(rc_connect(&ep, &theirs), 0);
    if (server) {
        assert_int_equal(rc_read_all(fd, &done, 1), 0); /* the client is done */
        check(buf, n, 102);
        print_message("server: the client's RDMA WRITE of %zu bytes arrived\n", n);
    } else {
        fill((char *)buf + n, n, 102);
        assert_int_equal(rc_rdma(&ep, IBV_WR_RDMA_WRITE, (char *)buf + n, r.lkey, n, theirs.addr, theirs.rkey),
                         IBV_WC_SUCCESS);
        assert_int_equal(rc_rdma(&ep, IBV_WR_RDMA_READ, buf, r.lkey, n, theirs.addr + n, theirs.rkey),
                         IBV_WC_SUCCESS);
        check(buf, n, 201);
        print_message("client: wrote %zu bytes to %s and read %zu back\n", n, peer, n);
        assert_int_equal(rc_write_all(fd, "d", 1), 0);
    }
    close(fd);
    rc_close(&ep);
    OK(xrt_rdma_release(&r));
    OK(xrt_free_host(buf));
}

int main(int argc, char **argv)
{
    const struct CMUnitTest suite[] = {
        cmocka_unit_test(devices_are_listed),
        cmocka_unit_test(open_by_name_env_or_first_active),
        cmocka_unit_test(nearest_of_a_cpu_device_is_the_first),
        cmocka_unit_test(adopted_pd_stays_the_callers),
        cmocka_unit_test_setup(host_pinned_and_foreign_memory_register, fresh_cache),
        cmocka_unit_test_setup(write_and_read_between_two_qps, fresh_cache),
        cmocka_unit_test_setup(repeated_registration_hits_the_cache, fresh_cache),
        cmocka_unit_test_setup(free_and_reallocate_at_the_same_address_registers_afresh, fresh_cache),
        cmocka_unit_test_setup(stale_registration_misses_the_new_pages, fresh_cache),
        cmocka_unit_test_setup(free_while_held_kills_the_registration, fresh_cache),
        cmocka_unit_test_setup(limits_evict_least_recently_used, fresh_cache),
        cmocka_unit_test_setup(registration_racing_free_never_misses_the_new_buffer, fresh_cache),
        cmocka_unit_test_setup(cache_off_free_kills_the_rkey, fresh_cache),
        cmocka_unit_test_setup(local_request_gets_no_remote_key, fresh_cache),
        cmocka_unit_test_setup(double_release_of_a_copy_is_refused, fresh_cache),
        cmocka_unit_test(cache_size_variables_do_not_wrap),
        cmocka_unit_test_setup(notify_free_kills_a_foreign_registration, fresh_cache),
        cmocka_unit_test_setup(eight_threads_register_and_release, fresh_cache),
        cmocka_unit_test_setup(fork_leaves_the_parent_working, fresh_cache),
        cmocka_unit_test(close_with_held_registrations_warns),
    };
    const struct CMUnitTest two_hosts[] = {
        cmocka_unit_test(two_hosts_write_and_read),
    };
    int failed;
    /* A fixed mmap threshold: large host allocations are always mapped and
       unmapped, so freed memory really loses its pages. */
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    srand((unsigned)getpid());
    if (argc >= 3 && !strcmp(argv[1], "--two-hosts")) {
        role = argv[2];
        peer = argc > 3 ? argv[3] : NULL;
        if (strcmp(role, "server") && !peer) {
            fprintf(stderr, "usage: %s --two-hosts server | --two-hosts client PEER\n", argv[0]);
            return 2;
        }
        failed = cmocka_run_group_tests_name(!strcmp(role, "server") ? "rdma across two hosts (server)"
                                                                      : "rdma across two hosts (client)",
                                             two_hosts, setup, teardown);
    } else {
        failed = cmocka_run_group_tests_name("rdma on soft-RoCE", suite, setup, teardown);
    }
    xrt_shutdown();
    return failed;
}
