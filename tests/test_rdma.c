/* SPDX-License-Identifier: MIT */
/* xrt_rdma.h on any machine, without an RDMA device: the errors that say why
   there is none, the choice of registration paths, argument checks, and the
   cache's tree against a model. The registrations themselves are tested on a
   real soft-RoCE stack, in a VM (tests/rdma/). */
#define _GNU_SOURCE /* before any header: xrt.h comes after the allocator */
#include <stddef.h>
#include <stdlib.h>

/* xrt's allocations (libc's, not cmocka's, which xrt_test.h brings in
   after xrt.h), with a hook that runs once inside the next one of `size`
   bytes: a registration's entry, allocated between a miss's two lookups
   (xrt__rdma_register_new). */
static struct {
    void (*fn)(void);
    size_t size;
} calloc_during;

static inline void *rdma_calloc(size_t n, size_t size)
{
    void (*fn)(void) = NULL;
    if (__atomic_load_n(&calloc_during.fn, __ATOMIC_ACQUIRE) && n == 1 &&
        size == __atomic_load_n(&calloc_during.size, __ATOMIC_ACQUIRE))
        fn = __atomic_exchange_n(&calloc_during.fn, (void (*)(void))NULL, __ATOMIC_ACQ_REL);
    if (fn) fn();
    return calloc(n, size);
}
static inline void *rdma_malloc(size_t n) { return malloc(n); }
static inline void *rdma_realloc(void *p, size_t n) { return realloc(p, n); }
static inline void *rdma_aligned_alloc(size_t align, size_t n) { return aligned_alloc(align, n); }
static inline void rdma_free(void *p) { free(p); }
#define XRT_MALLOC(n) rdma_malloc(n)
#define XRT_CALLOC(n, size) rdma_calloc(n, size)
#define XRT_REALLOC(p, n) rdma_realloc(p, n)
#define XRT_ALIGNED_ALLOC(align, n) rdma_aligned_alloc(align, n)
#define XRT_FREE(p) rdma_free(p)
#define XRT_ENABLE_RDMA
#define XRT_IMPL /* white-box: the RDMA cache on fake verbs; its own allocator */
#include "xrt_test.h"
#include "xrt_rdma.h" /* after xrt.h: the core does not include it */
#include "doubles/fake_verbs.h"

#include <dlfcn.h>
#include <sys/stat.h>

static int exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

static int libibverbs_loaded(void)
{
    void *h = dlopen("libibverbs.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (h) dlclose(h);
    return h != NULL;
}

/* >> no RDMA in the kernel */
static void no_device_says_why_and_loads_nothing(void **state)
{
    xrt_rdma_ctx ctx = (xrt_rdma_ctx)1;
    xrt_rdma_device_info info;
    int n = -1;
    (void)state;
    SKIP_UNLESS(!exists("/sys/class/infiniband"), "this kernel has RDMA devices (the VM tests cover them)");
    FAILS(xrt_rdma_device_count(&n), XRT_ERROR_NO_DEVICE, "/sys/class/infiniband is absent");
    assert_int_equal(n, 0);
    FAILS(xrt_rdma_device_get_info(0, &info), XRT_ERROR_NO_DEVICE, "ENOSYS");
    FAILS(xrt_rdma_open(&ctx, NULL), XRT_ERROR_NO_DEVICE, "load ib_uverbs and a device driver");
    assert_null(ctx);
    FAILS(xrt_rdma_open(&ctx, "mlx5_0"), XRT_ERROR_NO_DEVICE, "no RDMA device");
    assert_false(libibverbs_loaded()); /* no sysfs, no dlopen: probing costs one stat() */
}

/* By default a failed query is answered by its status alone: nothing logged. */
static void no_device_is_quiet_by_default(void **state)
{
    int n = -1;
    (void)state;
    SKIP_UNLESS(!exists("/sys/class/infiniband"), "this kernel has RDMA devices (the VM tests cover them)");
    unsetenv("XRT_LOG");
    xrt_set_log_level(XRT_LOG_ENV);
    xrt_test_log_capture();
    assert_int_equal(xrt_rdma_device_count(&n), XRT_ERROR_NO_DEVICE);
    assert_int_equal(n, 0);
    assert_int_equal(xrt_test_log.count, 0);
    assert_non_null(strstr(xrt_get_last_error_string(), "/sys/class/infiniband is absent"));
    xrt_test_log_calls(); /* as the other tests of this group expect */
}

/* Past the sysfs check, libibverbs itself reports the kernel's ENOSYS. */
static void enosys_from_libibverbs_is_named(void **state)
{
    int n = -1;
    (void)state;
    SKIP_UNLESS(!exists("/sys/class/infiniband_verbs"), "this kernel has RDMA support");
    SKIP_UNLESS(exists("/usr/lib/x86_64-linux-gnu/libibverbs.so.1") || exists("/usr/lib/libibverbs.so.1") ||
                    exists("/lib64/libibverbs.so.1"),
                "libibverbs.so.1 is not installed");
    xrt__rdma_sysfs = "/";
    FAILS(xrt_rdma_device_count(&n), XRT_ERROR_NO_DEVICE,
          "ibv_get_device_list: Function not implemented (ENOSYS=38): the kernel has no RDMA (uverbs) support");
    assert_int_equal(n, 0);
    assert_true(libibverbs_loaded());
    xrt__rdma_sysfs = "/sys/class/infiniband";
}

/* A missing library is "unavailable" with dlopen's reason (tested first: the
   load result is kept once libibverbs loaded). */
static void missing_library_is_named(void **state)
{
    int n;
    (void)state;
    SKIP_UNLESS(xrt__rdma_state == 0, "libibverbs was loaded already");
    setenv("XRT_IBVERBS_LIBRARY", "libibverbs-absent.so.1", 1);
    xrt__rdma_sysfs = "/";
    FAILS(xrt_rdma_device_count(&n), XRT_ERROR_BACKEND_UNAVAILABLE,
          "libibverbs: XRT_IBVERBS_LIBRARY=libibverbs-absent.so.1: libibverbs-absent.so.1: cannot open");
    FAILS(xrt_rdma_device_count(&n), XRT_ERROR_BACKEND_UNAVAILABLE, "libibverbs-absent.so.1"); /* kept */
    xrt__rdma_state = 0;
    unsetenv("XRT_IBVERBS_LIBRARY");
    xrt__rdma_sysfs = "/sys/class/infiniband";
}

/* >> arguments and handles */
static void bad_arguments_and_handles(void **state)
{
    xrt_rdma_reg reg;
    xrt_rdma_ctx ctx;
    xrt_rdma_cache_stats stats;
    char buf[64];
    (void)state;
    FAILS(xrt_rdma_device_count(NULL), XRT_ERROR_INVALID_VALUE, "count is NULL");
    FAILS(xrt_rdma_open(NULL, NULL), XRT_ERROR_INVALID_VALUE, "ctx is NULL");
    FAILS(xrt_rdma_open_pd(&ctx, NULL), XRT_ERROR_INVALID_VALUE, "pd is NULL");
    FAILS(xrt_rdma_register(NULL, buf, sizeof buf, 0, &reg), XRT_ERROR_INVALID_HANDLE, "context is NULL");
    FAILS(xrt_rdma_register((xrt_rdma_ctx)(uintptr_t)(5 * 64 + 3), buf, sizeof buf, 0, &reg),
          XRT_ERROR_INVALID_HANDLE, "was never opened");
    FAILS(xrt_rdma_register(NULL, buf, sizeof buf, 0, NULL), XRT_ERROR_INVALID_VALUE, "reg is NULL");
    FAILS(xrt_rdma_close(NULL), XRT_ERROR_INVALID_HANDLE, "context is NULL");
    FAILS(xrt_rdma_cache_get_stats(NULL, &stats), XRT_ERROR_INVALID_HANDLE, "context is NULL");
    memset(&reg, 0, sizeof reg);
    FAILS(xrt_rdma_release(&reg), XRT_ERROR_INVALID_HANDLE, "released or was never made");
    FAILS(xrt_rdma_release(NULL), XRT_ERROR_INVALID_VALUE, "reg is NULL");
    assert_string_equal(xrt_rdma_path_name(XRT_RDMA_PATH_DMABUF), "dma-buf");
    assert_string_equal(xrt_rdma_path_name((xrt_rdma_path)42), "none");
}

static void access_flags_are_checked(void **state)
{
    (void)state;
    OK(xrt__rdma_check_access(0));
    OK(xrt__rdma_check_access(XRT_RDMA_LOCAL_WRITE | XRT_RDMA_REMOTE_WRITE | XRT_RDMA_REMOTE_READ));
    OK(xrt__rdma_check_access(XRT_RDMA_REMOTE_READ | XRT_RDMA_RELAXED_ORDERING));
    FAILS(xrt__rdma_check_access(XRT_RDMA_REMOTE_WRITE), XRT_ERROR_INVALID_VALUE,
          "XRT_RDMA_REMOTE_WRITE needs XRT_RDMA_LOCAL_WRITE");
    FAILS(xrt__rdma_check_access(XRT_RDMA_REMOTE_ATOMIC | XRT_RDMA_REMOTE_READ), XRT_ERROR_INVALID_VALUE,
          "XRT_RDMA_REMOTE_ATOMIC needs XRT_RDMA_LOCAL_WRITE");
    FAILS(xrt__rdma_check_access(XRT_RDMA_LOCAL_WRITE | 0x40), XRT_ERROR_INVALID_VALUE, "unknown access flags 0x40");
}

/* >> which path device memory takes */
static xrt__rdma_facts facts(int dmabuf_mode, int peer_mode, int symbol, int export_, int nic, int peer)
{
    xrt__rdma_facts f;
    memset(&f, 0, sizeof f);
    f.dmabuf_mode = dmabuf_mode;
    f.peer_mode = peer_mode;
    f.have_reg_dmabuf = symbol;
    f.have_export = export_;
    f.nic_dmabuf = nic;
    f.nic_why = "rxe0 does not take dma-bufs (ibv_reg_dmabuf_mr with fd -1: EOPNOTSUPP, not EBADF)";
    f.peer = peer;
    f.peer_why = "no peer-memory driver: /sys/module/nvidia_peermem is absent";
    return f;
}

static void plan_is(xrt__rdma_facts f, int dmabuf, const char *dmabuf_why, int peer, const char *peer_why)
{
    xrt__rdma_plan p;
    xrt__rdma_plan_device(&f, &p);
    if (p.dmabuf != dmabuf || p.peer != peer || !strstr(p.dmabuf_why, dmabuf_why) || !strstr(p.peer_why, peer_why))
        fail_msg("plan: dma-buf %d \"%s\", peer %d \"%s\"; expected %d \"%s\", %d \"%s\"", p.dmabuf, p.dmabuf_why,
                 p.peer, p.peer_why, dmabuf, dmabuf_why, peer, peer_why);
}

static void device_memory_paths_follow_detection_and_env(void **state)
{
    const int A = XRT__RDMA_AUTO, N = XRT__RDMA_NEVER, F = XRT__RDMA_FORCE;
    (void)state;
    /* detected: both paths, dma-buf first */
    plan_is(facts(A, A, 1, 1, 1, 1), 1, "", 1, "");
    /* nothing detected: each path says why */
    plan_is(facts(A, A, 1, 1, 0, 0), 0, "EOPNOTSUPP, not EBADF", 0, "nvidia_peermem is absent");
    plan_is(facts(A, A, 0, 1, 1, 1), 0, "libibverbs has no ibv_reg_dmabuf_mr", 1, "");
    plan_is(facts(A, A, 1, 0, 1, 1), 0, "cannot export device memory as a dma-buf", 1, "");
    /* forbidden by env, even when detected */
    plan_is(facts(N, N, 1, 1, 1, 1), 0, "disabled by XRT_RDMA_DMABUF=0", 0, "disabled by XRT_RDMA_PEERMEM=0");
    /* forced: tried without detection, but not without the means */
    plan_is(facts(F, F, 1, 1, 0, 0), 1, "", 1, "");
    plan_is(facts(F, A, 0, 1, 0, 0), 0, "no ibv_reg_dmabuf_mr", 0, "nvidia_peermem");
    plan_is(facts(F, A, 1, 0, 0, 0), 0, "cannot export", 0, "nvidia_peermem");
}

/* The backends say what their memory is (flags), not their names. */
static void memory_types_map_to_paths(void **state)
{
    xrt_backend cuda, hip, cpu, mine, real;
    char why[160];
    (void)state;
    memset(&cuda, 0, sizeof cuda);
    hip = cpu = mine = cuda;
    cuda.name = "cuda";
    cuda.flags = XRT_BACKEND_NVIDIA_MEMORY;
    hip.name = "hip";
    hip.flags = XRT_BACKEND_AMD_MEMORY;
    cpu.name = "cpu";
    cpu.flags = XRT_BACKEND_HOST_MEMORY | XRT_BACKEND_FORK_SAFE;
    mine.name = "mine";
    assert_true(xrt__rdma_is_device(XRT_MEMORY_DEVICE, &cuda));
    assert_true(xrt__rdma_is_device(XRT_MEMORY_DEVICE, &hip));
    assert_true(xrt__rdma_is_device(XRT_MEMORY_DEVICE, &mine));
    assert_false(xrt__rdma_is_device(XRT_MEMORY_DEVICE, &cpu)); /* its device memory is host memory */
    assert_false(xrt__rdma_is_device(XRT_MEMORY_PINNED_HOST, &cuda));
    assert_false(xrt__rdma_is_device(XRT_MEMORY_MANAGED, &cuda));
    assert_false(xrt__rdma_is_device(XRT_MEMORY_UNKNOWN, NULL));
    /* the built-in tables carry the flags */
    assert_true(xrt__builtin_table("cpu", &real));
    assert_true(real.flags & XRT_BACKEND_HOST_MEMORY);

    if (!exists("/sys/module/nvidia_peermem") && !exists("/sys/module/nv_peer_mem")) {
        assert_false(xrt__rdma_peer_present(&cuda, why, sizeof why));
        assert_non_null(strstr(why, "/sys/module/nvidia_peermem is absent"));
    }
    if (!exists("/sys/kernel/mm/memory_peers/amdkfd")) {
        assert_false(xrt__rdma_peer_present(&hip, why, sizeof why));
        assert_non_null(strstr(why, "memory_peers/amdkfd is absent"));
    }
    assert_false(xrt__rdma_peer_present(&mine, why, sizeof why));
    assert_string_equal(why, "backend mine has no known peer-memory driver");
}

/* The error when every path fails names each one. */
static void failed_registration_names_every_path(void **state)
{
    xrt__rdma_req r;
    char why[512];
    (void)state;
    xrt_test_log_capture();
    memset(&r, 0, sizeof r);
    r.ptr = (void *)(uintptr_t)0x7f0000001000;
    r.size = 4096;
    r.type = XRT_MEMORY_DEVICE;
    snprintf(why, sizeof why, "no path registers device memory of backend cuda: dma-buf: x; peer memory: y");
    FAILS(xrt__rdma_reg_error(&r, "rxe0", EOPNOTSUPP, why), XRT_ERROR_UNSUPPORTED,
          "xrt_rdma_register: rxe0: 4096 bytes of device memory at 0x7f0000001000: no path registers device memory "
          "of backend cuda: dma-buf: x; peer memory: y");
    r.type = XRT_MEMORY_PINNED_HOST;
    FAILS(xrt__rdma_reg_error(&r, "rxe0", ENOMEM, "ibv_reg_mr: Cannot allocate memory (ENOMEM=12)"),
          XRT_ERROR_OUT_OF_MEMORY, "pinned host memory at 0x7f0000001000: ibv_reg_mr: Cannot allocate memory");
    FAILS(xrt__rdma_reg_error(&r, "rxe0", EACCES, "ibv_reg_mr: Permission denied (EACCES=13)"), XRT_ERROR_BACKEND,
          "EACCES=13");
    xrt_set_log_callback(NULL, NULL);
}

/* >> environment */
static void env_values_are_parsed(void **state)
{
    (void)state;
    xrt_test_log_capture();
    unsetenv("XRT_RDMA_DMABUF");
    assert_int_equal(xrt__rdma_env_mode("XRT_RDMA_DMABUF"), XRT__RDMA_AUTO);
    setenv("XRT_RDMA_DMABUF", "0", 1);
    assert_int_equal(xrt__rdma_env_mode("XRT_RDMA_DMABUF"), XRT__RDMA_NEVER);
    setenv("XRT_RDMA_DMABUF", "force", 1);
    assert_int_equal(xrt__rdma_env_mode("XRT_RDMA_DMABUF"), XRT__RDMA_FORCE);
    setenv("XRT_RDMA_DMABUF", "maybe", 1);
    assert_int_equal(xrt__rdma_env_mode("XRT_RDMA_DMABUF"), XRT__RDMA_AUTO);
    assert_int_equal(xrt_test_log.level, XRT_LOG_WARN);
    assert_string_equal(xrt_test_log.last, "XRT_RDMA_DMABUF=maybe: not a mode (valid: auto, 1, on, yes, true, 0, off, no, "
                                           "false, never, force); using auto");
    setenv("XRT_RDMA_DMABUF", "False", 1); /* every switch's words */
    assert_int_equal(xrt__rdma_env_mode("XRT_RDMA_DMABUF"), XRT__RDMA_NEVER);
    setenv("XRT_RDMA_DMABUF", "true", 1);
    assert_int_equal(xrt__rdma_env_mode("XRT_RDMA_DMABUF"), XRT__RDMA_FORCE);
    unsetenv("XRT_RDMA_DMABUF");

    setenv("XRT_RDMA_CACHE_BYTES", "64k", 1);
    assert_int_equal(xrt__rdma_env_size("XRT_RDMA_CACHE_BYTES", 7), 65536);
    setenv("XRT_RDMA_CACHE_BYTES", "3G", 1);
    assert_true(xrt__rdma_env_size("XRT_RDMA_CACHE_BYTES", 7) == (size_t)3 << 30);
    setenv("XRT_RDMA_CACHE_BYTES", "12x", 1);
    assert_int_equal(xrt__rdma_env_size("XRT_RDMA_CACHE_BYTES", 7), 7);
    assert_non_null(strstr(xrt_test_log.last, "XRT_RDMA_CACHE_BYTES=12x: not a size"));
    setenv("XRT_RDMA_CACHE_BYTES", "-1", 1);
    assert_int_equal(xrt__rdma_env_size("XRT_RDMA_CACHE_BYTES", 7), 7);
    /* what strtoull would take and wrap: a sign after a blank, a suffix that overflows */
    xrt_test_log.count = 0;
    setenv("XRT_RDMA_CACHE_BYTES", " -1", 1);
    assert_int_equal(xrt__rdma_env_size("XRT_RDMA_CACHE_BYTES", 7), 7);
    assert_non_null(strstr(xrt_test_log.last, "XRT_RDMA_CACHE_BYTES= -1: not a size"));
    setenv("XRT_RDMA_CACHE_BYTES", "17179869184g", 1); /* 2^64: 0 after the shift */
    assert_int_equal(xrt__rdma_env_size("XRT_RDMA_CACHE_BYTES", 7), 7);
    assert_non_null(strstr(xrt_test_log.last, "XRT_RDMA_CACHE_BYTES=17179869184g: not a size"));
    setenv("XRT_RDMA_CACHE_ENTRIES", "18446744073709551616", 1); /* 2^64: strtoull's ERANGE */
    assert_int_equal(xrt__rdma_env_size("XRT_RDMA_CACHE_ENTRIES", 7), 7);
    setenv("XRT_RDMA_CACHE_ENTRIES", "+5", 1);
    assert_int_equal(xrt__rdma_env_size("XRT_RDMA_CACHE_ENTRIES", 7), 7);
    setenv("XRT_RDMA_CACHE_ENTRIES", "5 ", 1);
    assert_int_equal(xrt__rdma_env_size("XRT_RDMA_CACHE_ENTRIES", 7), 7);
    assert_int_equal(xrt_test_log.count, 5);
    setenv("XRT_RDMA_CACHE_ENTRIES", "18446744073709551615", 1); /* the largest: taken */
    assert_true(xrt__rdma_env_size("XRT_RDMA_CACHE_ENTRIES", 7) == SIZE_MAX);
    setenv("XRT_RDMA_CACHE_ENTRIES", "17179869183g", 1);
    assert_true(xrt__rdma_env_size("XRT_RDMA_CACHE_ENTRIES", 7) == (size_t)17179869183u << 30);
    assert_int_equal(xrt_test_log.count, 5);
    unsetenv("XRT_RDMA_CACHE_ENTRIES");
    unsetenv("XRT_RDMA_CACHE_BYTES");
    assert_int_equal(xrt__rdma_env_size("XRT_RDMA_CACHE_BYTES", 7), 7);
    xrt_set_log_callback(NULL, NULL);
}

/* >> the cache's structure */
/* The registered span: whole pages, clipped to the allocation. */
static void span_is_pages_clipped_to_the_allocation(void **state)
{
    xrt__rdma_req r;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    (void)state;
    memset(&r, 0, sizeof r);
    r.base = 10 * page + 256;
    r.alloc_size = 3 * page;
    r.ptr = (void *)(11 * page + 8);
    r.size = 16;
    xrt__rdma_span(&r);
    assert_true(r.start == 11 * page && r.end == 12 * page);
    r.ptr = (void *)r.base;
    r.size = 3 * page;
    xrt__rdma_span(&r);
    assert_true(r.start == 10 * page + 256 && r.end == 13 * page + 256);
}

/* A context without a device: the tree, the LRU list and the limits work on
   entries with no MR. */
static void fake_ctx(xrt__rdma_ctx *c)
{
    xrt__tree empty = XRT__TREE_INIT;
    int k;
    memset(c, 0, sizeof *c);
    for (k = 0; k < XRT__RDMA_CLASSES; k++) c->trees[k] = empty;
    c->lru.prev = c->lru.next = &c->lru;
    c->detached.prev = c->detached.next = &c->detached;
    c->privates.prev = c->privates.next = &c->privates;
    c->dead.prev = c->dead.next = &c->dead;
    c->max_count = XRT_RDMA_UNLIMITED;
    c->max_bytes = XRT_RDMA_UNLIMITED;
    c->fork_gen = xrt__rdma_fork_gen;
}

static xrt__rdma_entry *fake_entry(xrt__rdma_ctx *c, uintptr_t s, uintptr_t e, int refs)
{
    xrt__rdma_entry *x = (xrt__rdma_entry *)calloc(1, sizeof *x);
    assert_non_null(x);
    x->node.start = s;
    x->node.end = e;
    x->ctx = c;
    x->refs = refs;
    xrt__rdma_insert(c, x);
    if (refs) c->referenced++;
    else xrt__rdma_list_add(&c->lru, &x->link);
    return x;
}

#define MODEL 64 /* a model of the cache: slot i is the range [i*16, i*16+len) or empty */
static void tree_matches_a_model(void **state)
{
    xrt__rdma_ctx c;
    uintptr_t len[MODEL];
    int i, k, round;
    unsigned rnd = 7;
    (void)state;
    fake_ctx(&c);
    memset(len, 0, sizeof len);
    for (round = 0; round < 3000; round++) {
        uintptr_t s, e, ws, we;
        unsigned acc = 0;
        xrt__rdma_entry *x, *taken;
        rnd = rnd * 1103515245u + 12345u;
        i = (int)((rnd >> 8) % MODEL);
        s = (uintptr_t)i * 16 + 1000;
        e = s + 1 + (rnd >> 20) % 40; /* up to 40 bytes: may overlap the next two slots */
        /* floor finds the entry containing s, if any */
        x = xrt__rdma_floor(&c, 0, s);
        for (k = i; k >= 0 && !len[k]; k--) {}
        if (k >= 0 && (uintptr_t)k * 16 + 1000 + len[k] > s) assert_true(x && x->node.start == (uintptr_t)k * 16 + 1000);
        else assert_true(!x || x->node.end <= s);
        /* widen covers exactly the model's overlapping ranges */
        ws = s;
        we = e;
        xrt__rdma_widen(&c, s, e, &ws, &we, &acc);
        for (k = 0; k < MODEL; k++) {
            uintptr_t ks = (uintptr_t)k * 16 + 1000, ke = ks + len[k];
            if (len[k] && ks < e && ke > s) assert_true(ws <= ks && we >= ke);
        }
        /* replace the overlapping entries by the widened one */
        taken = NULL;
        xrt__rdma_take_overlapping(&c, 0, ws, we, &taken);
        while (taken) {
            xrt__rdma_entry *next = taken->victim;
            k = (int)((taken->node.start - 1000) / 16);
            assert_true(len[k] && taken->node.end == taken->node.start + len[k]);
            len[k] = 0;
            free(taken);
            taken = next;
        }
        for (k = 0; k < MODEL; k++) { /* nothing overlapping is left */
            uintptr_t ks = (uintptr_t)k * 16 + 1000;
            assert_false(len[k] && ks < we && ks + len[k] > ws);
        }
        if ((ws - 1000) % 16 == 0 && round % 5) { /* keep the model's slot layout */
            fake_entry(&c, ws, we, 0);
            len[(ws - 1000) / 16] = we - ws;
        }
        for (i = 0, k = 0; k < MODEL; k++) i += len[k] != 0;
        assert_int_equal(c.count, (size_t)i);
    }
    {
        xrt__rdma_entry *victims = NULL;
        xrt__rdma_evict(&c, 1, &victims);
        xrt__rdma_destroy(victims);
    }
    assert_int_equal(c.count, 0);
}

static void lru_evicts_oldest_unreferenced_first(void **state)
{
    xrt__rdma_ctx c;
    xrt__rdma_entry *a, *b, *d, *victims = NULL, *held;
    (void)state;
    fake_ctx(&c);
    a = fake_entry(&c, 0x1000, 0x2000, 0);
    held = fake_entry(&c, 0x3000, 0x4000, 1);
    b = fake_entry(&c, 0x5000, 0x6000, 0);
    d = fake_entry(&c, 0x7000, 0x9000, 0);
    assert_int_equal(c.count, 4);
    assert_int_equal(c.bytes, 0x5000);
    c.max_count = 2;
    xrt__rdma_evict(&c, 0, &victims);
    assert_ptr_equal(victims, b); /* pushed last: a first, then b */
    assert_ptr_equal(victims->victim, a);
    assert_int_equal(c.count, 2);
    assert_int_equal(c.evict_limit, 2);
    c.max_bytes = 0x1000; /* d (8 KiB) goes; the referenced one stays over the limit */
    xrt__rdma_evict(&c, 0, &victims);
    assert_ptr_equal(victims, d);
    assert_int_equal(c.count, 1);
    assert_ptr_equal(xrt__rdma_floor(&c, 0, 0x3800), held);
    xrt__rdma_destroy(victims);
    victims = NULL;
    c.max_bytes = 0x800;
    held->refs = 0; /* its last release, while over the byte limit: evicted */
    xrt__rdma_unref_last(&c, held, &victims);
    assert_ptr_equal(victims, held);
    assert_int_equal(c.count, 0);
    xrt__rdma_destroy(victims);
    assert_int_equal(xrt__rdma_tracked, 0);
}

/* Invalidation with no context, or nothing cached, is a no-op. */
static void invalidate_without_contexts_is_a_no_op(void **state)
{
    (void)state;
    xrt_test_log_capture();
    assert_int_equal(xrt__rdma_tracked, 0);
    xrt__rdma_invalidate(0x1000, 0x1000, 5, 0);
    xrt__rdma_invalidate(0, (size_t)-1, 0, 0);
    xrt__rdma_invalidate((uintptr_t)-4096, 1 << 20, 0, 0); /* wraps: clamped */
    OK(xrt_rdma_notify_free((void *)(uintptr_t)0x1000, 0x1000));
    OK(xrt_rdma_notify_free(NULL, 0));
    FAILS(xrt_rdma_notify_free(NULL, 16), XRT_ERROR_INVALID_VALUE, "ptr is NULL");
}

/* >> registrations on the test double of libibverbs (tests/doubles/fake_verbs.h):
   the cache's rules, checked on the MRs it makes; the VM tests check the
   same with real WRITEs */
#define RW (XRT_RDMA_LOCAL_WRITE | XRT_RDMA_REMOTE_WRITE | XRT_RDMA_REMOTE_READ)

static xrt_rdma_cache_stats fstats(xrt_rdma_ctx c)
{
    xrt_rdma_cache_stats st;
    OK(xrt_rdma_cache_get_stats(c, &st));
    return st;
}

/* A case on the double begins with the log captured and a context open, and
   returns the MRs live before it registers anything; fake_end checks that
   it left none behind, closes the context and gives the log back. */
static long fake_begin(xrt_rdma_ctx *c)
{
    xrt_test_log_capture();
    OK(fake_open(c));
    return fake_live();
}

static void fake_end(xrt_rdma_ctx c, long live)
{
    assert_int_equal(fake_live(), live);
    OK(fake_close(c));
    xrt_set_log_callback(NULL, NULL);
}

/* Freed memory never keeps a registration, with the cache off too: its MR
   is deregistered and its rkey reaches nothing. */
static void fake_cache_off_free_deregisters(void **state)
{
    xrt_rdma_ctx c;
    xrt_rdma_reg r;
    void *buf;
    long live;
    (void)state;
    xrt_test_log_capture();
    setenv("XRT_RDMA_CACHE", "0", 1);
    OK(fake_open(&c));
    unsetenv("XRT_RDMA_CACHE");
    OK(xrt_malloc_host(&buf, 8192));
    live = fake_live();
    OK(xrt_rdma_register(c, buf, 8192, RW, &r));
    assert_false(r.cached);
    assert_non_null(fake_by_rkey(r.rkey));
    assert_int_equal(fake_live(), live + 1);
    OK(xrt_free_host(buf));
    assert_null(fake_by_rkey(r.rkey));
    assert_int_equal(fake_live(), live);
    assert_int_equal(xrt_test_log.level, XRT_LOG_WARN);
    assert_non_null(strstr(xrt_test_log.last, "freed while 1 registration(s) of them were held: deregistered"));
    assert_int_equal(fstats(c).invalidations, 1);
    OK(xrt_rdma_release(&r)); /* still to be released: frees xrt's record */
    /* released before the free: nothing is left either */
    OK(xrt_malloc_host(&buf, 8192));
    OK(xrt_rdma_register(c, buf, 8192, RW, &r));
    OK(xrt_rdma_release(&r));
    OK(xrt_free_host(buf));
    fake_end(c, live);
}

/* Remote access is part of the cache's key: a local-only request after a
   remote one gets rkey 0 and an MR without remote access (the remote MR
   stays cached beside it); a request never gets more remote access than
   asked. */
static void fake_remote_access_is_never_widened(void **state)
{
    xrt_rdma_ctx c;
    xrt_rdma_reg a, b, d, e;
    void *buf;
    uint32_t old;
    (void)state;
    OK(fake_open(&c));
    OK(xrt_malloc_host(&buf, 16384));
    OK(xrt_rdma_register(c, buf, 16384, XRT_RDMA_LOCAL_WRITE | XRT_RDMA_REMOTE_WRITE, &a));
    old = a.rkey;
    assert_true(old != 0);
    OK(xrt_rdma_release(&a));
    OK(xrt_rdma_register(c, buf, 4096, XRT_RDMA_LOCAL_WRITE, &b)); /* was a hit on the remote MR */
    assert_int_equal(b.rkey, 0);
    assert_int_equal(fake_of(&b)->access, IBV_ACCESS_LOCAL_WRITE);
    assert_non_null(fake_by_rkey(old)); /* the unreferenced remote entry stays beside it */
    assert_int_equal(fstats(c).hits, 0);
    assert_int_equal(fstats(c).entries, 2);
    /* held remote entry, then a read-only request: its own MR, no write access */
    OK(xrt_rdma_register(c, buf, 16384, RW, &d));
    OK(xrt_rdma_register(c, buf, 100, XRT_RDMA_REMOTE_READ, &e));
    assert_true(e.rkey != 0 && e.rkey != d.rkey);
    assert_int_equal(fake_of(&e)->access, IBV_ACCESS_REMOTE_READ);
    OK(xrt_rdma_release(&e));
    OK(xrt_rdma_release(&d));
    OK(xrt_rdma_release(&b));
    /* the same remote access, less local access: a hit */
    OK(xrt_rdma_register(c, buf, 16384, XRT_RDMA_LOCAL_WRITE | XRT_RDMA_REMOTE_READ, &d));
    OK(xrt_rdma_register(c, (char *)buf + 8192, 10, XRT_RDMA_REMOTE_READ, &e));
    assert_ptr_equal(e.mr, d.mr);
    assert_int_equal(fstats(c).hits, 1);
    OK(xrt_rdma_release(&e));
    OK(xrt_rdma_release(&d));
    OK(xrt_free_host(buf));
    assert_int_equal(fstats(c).entries, 0);
    OK(fake_close(c));
}

/* A hit must serve the whole request: an entry without the local write
   access asked for, or one that ends a byte short of the request, is a
   miss, and the new MR has both. */
static void fake_hit_serves_all_that_is_asked(void **state)
{
    xrt_rdma_ctx c;
    xrt_rdma_reg ro, lw, longer;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), end;
    char *buf;
    (void)state;
    OK(fake_open(&c));
    OK(xrt_malloc_host((void **)&buf, 16384));
    end = ((uintptr_t)buf / page + 1) * page; /* where the entry of buf's first byte ends */
    OK(xrt_rdma_register(c, buf, 1, 0, &ro)); /* local read only */
    assert_int_equal(fake_of(&ro)->access, 0);
    OK(xrt_rdma_release(&ro));
    OK(xrt_rdma_register(c, buf, 1, XRT_RDMA_LOCAL_WRITE, &lw)); /* the same range, more local access */
    assert_int_equal(fake_of(&lw)->access, IBV_ACCESS_LOCAL_WRITE);
    assert_int_equal(fstats(c).hits, 0);
    assert_true((uintptr_t)fake_of(&lw)->mr.addr + fake_of(&lw)->mr.length == end);
    assert_int_equal(fstats(c).entries, 1); /* the union replaced the read-only entry */
    OK(xrt_rdma_register(c, (void *)(end - 10), 11, XRT_RDMA_LOCAL_WRITE, &longer)); /* a byte past it */
    assert_int_equal(fstats(c).hits, 0);
    assert_true((uintptr_t)fake_of(&longer)->mr.addr + fake_of(&longer)->mr.length >= end + 1);
    OK(xrt_rdma_release(&longer));
    OK(xrt_rdma_release(&lw));
    OK(xrt_free_host(buf));
    assert_int_equal(fstats(c).entries, 0);
    OK(fake_close(c));
}

/* Entries of one range with different remote access live side by side: LW,
   then LW|RW, then LW again is two misses and a hit; a miss widens over the
   entries of its own remote access only; a free drops them all. */
static void fake_access_classes_live_side_by_side(void **state)
{
    xrt_rdma_ctx c;
    xrt_rdma_reg lw, rw, again, wide, in;
    xrt_rdma_cache_stats st;
    uint32_t rkey;
    char *buf;
    (void)state;
    OK(fake_open(&c));
    OK(xrt_malloc_host((void **)&buf, 16384));
    OK(xrt_rdma_register(c, buf, 8192, XRT_RDMA_LOCAL_WRITE, &lw));
    OK(xrt_rdma_release(&lw));
    OK(xrt_rdma_register(c, buf, 8192, RW, &rw));
    rkey = rw.rkey;
    OK(xrt_rdma_release(&rw));
    OK(xrt_rdma_register(c, buf, 8192, XRT_RDMA_LOCAL_WRITE, &again));
    st = fstats(c);
    assert_int_equal(st.misses, 2);
    assert_int_equal(st.hits, 1);
    assert_int_equal(st.entries, 2);
    assert_int_equal(again.rkey, 0);
    assert_int_equal(fake_of(&again)->access, IBV_ACCESS_LOCAL_WRITE);
    OK(xrt_rdma_release(&again));
    /* a wider local request replaces the local entry; the remote one stays and still hits */
    OK(xrt_rdma_register(c, buf, 16384, XRT_RDMA_LOCAL_WRITE, &wide));
    assert_int_equal(fake_of(&wide)->mr.length, 16384);
    OK(xrt_rdma_register(c, buf + 4096, 100, RW, &in));
    assert_true(in.rkey != 0);
    assert_int_equal(in.rkey, rkey); /* the remote entry of before */
    st = fstats(c);
    assert_int_equal(st.misses, 3);
    assert_int_equal(st.hits, 2);
    assert_int_equal(st.entries, 2);
    OK(xrt_rdma_release(&in));
    OK(xrt_rdma_release(&wide));
    OK(xrt_free_host(buf)); /* both entries go */
    st = fstats(c);
    assert_int_equal(st.entries, 0);
    assert_int_equal(st.invalidations, 2);
    OK(fake_close(c));
}

/* A copy of an xrt_rdma_reg is the same registration: releasing it after
   the original is XRT_ERROR_INVALID_HANDLE, cached or private, and the
   cache's counts stay right (a flush afterwards completes). */
static void fake_double_release_of_a_copy(void **state)
{
    xrt_rdma_ctx c;
    xrt_rdma_reg r, copy, r2, r3, p, pcopy;
    char foreign[3000];
    void *buf;
    long live;
    (void)state;
    xrt_test_log_capture();
    OK(fake_open(&c));
    OK(xrt_malloc_host(&buf, 8192));
    OK(xrt_rdma_register(c, buf, 8192, RW, &r));
    copy = r;
    OK(xrt_rdma_register(c, buf, 8192, RW, &r2)); /* another holder of the same entry */
    OK(xrt_rdma_release(&r));
    FAILS(xrt_rdma_release(&copy), XRT_ERROR_INVALID_HANDLE, "was released already (a copy of an xrt_rdma_reg");
    assert_int_equal(fstats(c).referenced, 1); /* r2 still holds it */
    /* a new reference takes the slot r had: the copy's generation no longer matches */
    OK(xrt_rdma_register(c, buf, 8192, RW, &r3));
    assert_true((uintptr_t)r3.opaque != (uintptr_t)copy.opaque);
    FAILS(xrt_rdma_release(&copy), XRT_ERROR_INVALID_HANDLE, "was released already");
    OK(xrt_rdma_release(&r3));
    OK(xrt_rdma_release(&r2));
    FAILS(xrt_rdma_release(&copy), XRT_ERROR_INVALID_HANDLE, "released already");
    assert_int_equal(fstats(c).referenced, 0);
    OK(xrt_rdma_cache_flush(c));
    assert_int_equal(fstats(c).entries, 0);
    /* private: the record is gone after the first release, the copy is refused */
    live = fake_live();
    OK(xrt_rdma_register(c, foreign, sizeof foreign, RW, &p));
    pcopy = p;
    OK(xrt_rdma_release(&p));
    assert_int_equal(fake_live(), live);
    FAILS(xrt_rdma_release(&pcopy), XRT_ERROR_INVALID_HANDLE, "released already");
    /* a made-up handle */
    pcopy.opaque = (void *)(uintptr_t)0x123456789abcdefull;
    FAILS(xrt_rdma_release(&pcopy), XRT_ERROR_INVALID_HANDLE, "registration");
    OK(xrt_free_host(buf));
    OK(fake_close(c));
    FAILS(xrt_rdma_release(&copy), XRT_ERROR_INVALID_HANDLE, "registration");
    xrt_set_log_callback(NULL, NULL);
}

/* A kept copy of a registration of a closed context, made after 2^24
   references, never matches a registration of a later context in its slot
   (a handle that matched would release another owner's registration). */
static void fake_stale_handle_of_a_closed_context(void **state)
{
    xrt_rdma_ctx c1, c2;
    xrt_rdma_reg r, copy, live;
    void *buf;
    uint32_t i;
    (void)state;
    SKIP_UNLESS(xrt_test_slowdown() == 1, "16.8 million registrations: not under valgrind");
    xrt_test_log_capture();
    xrt_set_log_level(XRT_LOG_ERROR); /* closing c1 with r held warns */
    OK(xrt_malloc_host(&buf, 4096));
    OK(fake_open(&c1));
    for (i = 0; i < 1u << 24; i++) {
        OK(xrt_rdma_register(c1, buf, 4096, RW, &r));
        OK(xrt_rdma_release(&r));
    }
    OK(xrt_rdma_register(c1, buf, 4096, RW, &r));
    copy = r;
    OK(fake_close(c1));
    OK(fake_open(&c2));
    assert_int_equal((uintptr_t)c2 % 64, (uintptr_t)c1 % 64); /* the same slot */
    for (i = 0; i < 4096; i++) {
        OK(xrt_rdma_register(c2, buf, 4096, RW, &live));
        if (live.opaque == copy.opaque) break;
        OK(xrt_rdma_release(&live));
    }
    if (i == 4096) OK(xrt_rdma_register(c2, buf, 4096, RW, &live));
    FAILS(xrt_rdma_release(&copy), XRT_ERROR_INVALID_HANDLE, "released already");
    OK(xrt_rdma_release(&live));
    OK(xrt_free_host(buf));
    OK(fake_close(c2));
    xrt_test_log_calls();
}

/* A reference slot reused 2^32 times in one context: the generation of its
   handles does not wrap around to one given out before; the slot is retired. */
static void fake_reference_generations_do_not_wrap(void **state)
{
    xrt_rdma_ctx c;
    xrt_rdma_reg r, copy, last, again;
    xrt__rdma_ctx *cc;
    uint32_t slot;
    void *buf;
    (void)state;
    xrt_test_log_capture();
    OK(xrt_malloc_host(&buf, 4096));
    OK(fake_open(&c));
    OK(xrt__rdma_ctx_of(c, "test", &cc));
    OK(xrt_rdma_register(c, buf, 4096, RW, &r));
    copy = r;
    OK(xrt_rdma_release(&r));
    slot = (uint32_t)((uintptr_t)copy.opaque >> 6) & (XRT__RDMA_REF_MAX - 1);
    cc->refs[slot].gen = UINT32_MAX - 1; /* as after 2^32 - 2 more references in it */
    OK(xrt_rdma_register(c, buf, 4096, RW, &last));
    assert_int_equal((uintptr_t)last.opaque >> 32, UINT32_MAX); /* its last generation */
    assert_int_equal((uint32_t)((uintptr_t)last.opaque >> 6) & (XRT__RDMA_REF_MAX - 1), slot);
    r = last;
    OK(xrt_rdma_release(&r));
    OK(xrt_rdma_register(c, buf, 4096, RW, &again));
    assert_ptr_not_equal(again.opaque, copy.opaque);
    assert_int_not_equal((uint32_t)((uintptr_t)again.opaque >> 6) & (XRT__RDMA_REF_MAX - 1), slot); /* retired */
    FAILS(xrt_rdma_release(&copy), XRT_ERROR_INVALID_HANDLE, "released already");
    FAILS(xrt_rdma_release(&last), XRT_ERROR_INVALID_HANDLE, "released already");
    OK(xrt_rdma_release(&again));
    OK(xrt_free_host(buf));
    OK(fake_close(c));
    xrt_set_log_callback(NULL, NULL);
}

/* A closed context's handle is refused, also once another context took its
   slot (the handle's generation no longer matches). */
static void fake_closed_context_is_refused(void **state)
{
    xrt_rdma_ctx old, c;
    xrt_rdma_cache_stats stats;
    xrt_rdma_reg r;
    char buf[64];
    (void)state;
    xrt_test_log_capture();
    OK(fake_open(&old));
    OK(fake_close(old));
    FAILS(xrt_rdma_cache_get_stats(old, &stats), XRT_ERROR_INVALID_HANDLE, "was closed");
    OK(fake_open(&c));
    assert_true((uintptr_t)c % 64 == (uintptr_t)old % 64); /* the same slot, the next generation */
    assert_true(c != old);
    FAILS(xrt_rdma_cache_get_stats(old, &stats), XRT_ERROR_INVALID_HANDLE, "was closed");
    FAILS(xrt_rdma_register(old, buf, sizeof buf, RW, &r), XRT_ERROR_INVALID_HANDLE, "was closed");
    FAILS(xrt_rdma_close(old), XRT_ERROR_INVALID_HANDLE, "was closed");
    OK(xrt_rdma_cache_get_stats(c, &stats)); /* the new one is untouched */
    OK(fake_close(c));
    xrt_set_log_callback(NULL, NULL);
}

/* The free of a buffer while its registration is in ibv_reg_mr, and a new
   allocation at the same address: the registration is refused, nothing of
   the old pages stays cached, the new buffer gets an MR of its own. */
static void *race_buf;
static void free_and_reallocate(void *arg)
{
    void *again;
    (void)arg;
    OK(xrt_free_host(race_buf));
    OK(xrt_malloc_host(&again, 65536));
    race_buf = again;
}

static void fake_free_during_registration_is_refused(void **state)
{
    xrt_rdma_ctx c;
    xrt_rdma_reg r;
    xrt__mem_info m;
    void *old;
    long live;
    (void)state;
    live = fake_begin(&c);
    OK(xrt_malloc_host(&race_buf, 65536)); /* no MR */
    old = race_buf;
    fake_verbs.during_reg = free_and_reallocate;
    FAILS(xrt_rdma_register(c, old, 65536, RW, &r), XRT_ERROR_INVALID_POINTER, "was freed while being registered");
    assert_null(r.opaque);
    assert_int_equal(fake_live(), live);
    assert_int_equal(fstats(c).entries, 0);
    OK(xrt_rdma_register(c, race_buf, 65536, RW, &r));
    assert_true(xrt__mem_query(race_buf, &m));
    assert_true(fake_of(&r)->gen == m.generation);
    OK(xrt_rdma_release(&r));
    /* with the cache off, the same */
    OK(fake_close(c));
    setenv("XRT_RDMA_CACHE", "0", 1);
    OK(fake_open(&c));
    unsetenv("XRT_RDMA_CACHE");
    fake_verbs.during_reg = free_and_reallocate;
    FAILS(xrt_rdma_register(c, race_buf, 65536, RW, &r), XRT_ERROR_INVALID_POINTER, "freed while being registered");
    assert_int_equal(fake_live(), live);
    OK(xrt_free_host(race_buf));
    fake_end(c, live);
}


/* A registration that looks the memory up after the free took it out of
   xrt's registry but before the RDMA free hook ran finds no allocation (a
   private MR would follow): it is refused, and no MR outlives the free.
   Free hooks around the RDMA one force the timing. */
static int unl_armed, unl_in_hook, unl_in_reg, unl_done;
static xrt_rdma_ctx unl_ctx;
static void *unl_buf;
static xrt_status unl_st;
static xrt_rdma_reg unl_reg;
static char unl_why[512];

static void unl_wait(int *f)
{
    while (!__atomic_load_n(f, __ATOMIC_ACQUIRE)) sched_yield();
}

static void unl_before(void *u, uintptr_t b, size_t s, uint64_t g)
{
    (void)u, (void)b, (void)s, (void)g;
    if (!__atomic_load_n(&unl_armed, __ATOMIC_ACQUIRE)) return;
    __atomic_store_n(&unl_in_hook, 1, __ATOMIC_RELEASE);
    unl_wait(&unl_in_reg); /* the registration is in ibv_reg_mr, its lookup done */
}

static void unl_after(void *u, uintptr_t b, size_t s, uint64_t g)
{
    (void)u, (void)b, (void)s, (void)g;
    if (__atomic_load_n(&unl_armed, __ATOMIC_ACQUIRE)) __atomic_store_n(&unl_done, 1, __ATOMIC_RELEASE);
}

static void unl_during(void *a)
{
    (void)a;
    __atomic_store_n(&unl_in_reg, 1, __ATOMIC_RELEASE);
    unl_wait(&unl_done); /* the RDMA hook has run */
}

static void *unl_registrar(void *a)
{
    (void)a;
    OK(xrt_set_backend("cpu"));
    unl_wait(&unl_in_hook);
    fake_verbs.during_reg = unl_during;
    unl_st = xrt_rdma_register(unl_ctx, unl_buf, 65536, RW, &unl_reg);
    snprintf(unl_why, sizeof unl_why, "%s", xrt_get_last_error_string());
    return NULL;
}

static void fake_register_between_unlink_and_hook_is_refused(void **state)
{
    pthread_t t;
    long live;
    (void)state;
    OK(fake_open(&unl_ctx));
    /* the order of the hooks: ours, the RDMA one, ours */
    OK(xrt_remove_free_hook(xrt__rdma_on_free, NULL));
    OK(xrt_add_free_hook(unl_before, NULL));
    OK(xrt_add_free_hook(xrt__rdma_on_free, NULL));
    OK(xrt_add_free_hook(unl_after, NULL));
    OK(xrt_malloc_host(&unl_buf, 65536));
    live = fake_live();
    assert_int_equal(pthread_create(&t, NULL, unl_registrar, NULL), 0);
    __atomic_store_n(&unl_armed, 1, __ATOMIC_RELEASE);
    OK(xrt_free_host(unl_buf));
    assert_int_equal(pthread_join(t, NULL), 0);
    __atomic_store_n(&unl_armed, 0, __ATOMIC_RELEASE);
    OK(xrt_remove_free_hook(unl_before, NULL));
    OK(xrt_remove_free_hook(unl_after, NULL));
    if (unl_st == XRT_SUCCESS) OK(xrt_rdma_release(&unl_reg));
    assert_int_equal(unl_st, XRT_ERROR_INVALID_POINTER);
    assert_non_null(strstr(unl_why, "was freed while being registered"));
    assert_null(unl_reg.opaque);
    assert_int_equal(fake_live(), live);
    OK(fake_close(unl_ctx));
}
/* xrt_rdma_notify_free: memory xrt did not allocate loses its registrations
   (a held one with a warning) before its owner frees it. */
static void fake_notify_free_drops_foreign_registrations(void **state)
{
    xrt_rdma_ctx c;
    xrt_rdma_reg r, q;
    char *m = (char *)malloc(1 << 16);
    long live;
    (void)state;
    assert_non_null(m);
    live = fake_begin(&c);
    OK(xrt_rdma_register(c, m + 100, 1000, RW, &r));
    OK(xrt_rdma_register(c, m + 30000, 1000, RW, &q));
    OK(xrt_rdma_notify_free(m, 20000)); /* the first only */
    assert_null(fake_by_rkey(r.rkey));
    assert_non_null(fake_by_rkey(q.rkey));
    assert_non_null(strstr(xrt_test_log.last, "freed while 1 registration(s) of them were held"));
    OK(xrt_rdma_release(&r));
    OK(xrt_rdma_release(&q));
    fake_end(c, live);
    free(m);
}


/* xrt_host_unregister gives the memory back to its owner without freeing
   it: a private registration made before xrt_host_register, and a cached one
   held across the unregister, keep working (nothing is said); the cache no
   longer serves the range, and xrt_rdma_notify_free still reaches both. */
static void fake_host_unregister_keeps_registrations(void **state)
{
    xrt_rdma_ctx c;
    xrt_rdma_reg priv, held, again;
    char *h = (char *)aligned_alloc(4096, 1 << 16);
    long live;
    (void)state;
    assert_non_null(h);
    live = fake_begin(&c);
    OK(xrt_rdma_register(c, h, 1 << 16, RW, &priv));
    assert_false(priv.cached);
    OK(xrt_host_register(h, 1 << 16, 0));
    OK(xrt_rdma_register(c, h, 4096, RW, &held));
    assert_true(held.cached);
    OK(xrt_host_unregister(h));
    assert_int_equal(xrt_test_log.count, 0);
    assert_non_null(fake_by_rkey(priv.rkey));
    assert_non_null(fake_by_rkey(held.rkey));
    assert_int_equal(fstats(c).entries, 0);
    OK(xrt_rdma_register(c, h, 4096, RW, &again)); /* not a hit on the old entry */
    assert_false(again.cached);
    assert_true(again.rkey != held.rkey);
    OK(xrt_rdma_release(&again));
    OK(xrt_rdma_notify_free(h, 1 << 16)); /* the owner is about to free it */
    assert_null(fake_by_rkey(priv.rkey));
    assert_null(fake_by_rkey(held.rkey));
    assert_non_null(strstr(xrt_test_log.last, "freed while 2 registration(s) of them were held"));
    OK(xrt_rdma_release(&held));
    OK(xrt_rdma_release(&priv));
    fake_end(c, live);
    free(h);
}
/* Evictions are counted by reason. */
static void fake_evictions_by_reason(void **state)
{
    xrt_rdma_ctx c;
    xrt_rdma_reg r;
    xrt_rdma_cache_stats st;
    void *b[3];
    int i;
    (void)state;
    OK(fake_open(&c));
    for (i = 0; i < 3; i++) OK(xrt_malloc_host(&b[i], 8192));
    OK(xrt_rdma_cache_set_limits(c, 1, XRT_RDMA_UNLIMITED));
    for (i = 0; i < 2; i++) {
        OK(xrt_rdma_register(c, b[i], 8192, RW, &r));
        OK(xrt_rdma_release(&r));
    }
    OK(xrt_rdma_register(c, b[2], 8192, RW, &r));
    OK(xrt_rdma_release(&r));
    fake_verbs.fail_errno = ENOMEM; /* the next ibv_reg_mr: the cache is dropped and it is tried again */
    OK(xrt_rdma_register(c, b[0], 8192, RW, &r));
    OK(xrt_rdma_release(&r));
    OK(xrt_rdma_cache_flush(c));
    st = fstats(c);
    assert_int_equal(st.evictions_limit, 2);
    assert_int_equal(st.evictions_enomem, 1);
    assert_int_equal(st.evictions_flush, 1);
    assert_int_equal(st.evictions, 4);
    for (i = 0; i < 3; i++) OK(xrt_free_host(b[i]));
    OK(fake_close(c));
}

/* The counters count each registration once, by what it got: a hit is a
   request served by a cached MR, a miss one that registered a new cached MR,
   uncached a private MR made (memory xrt did not allocate, or the cache off).
   A refused registration counts in none; a held entry that
   xrt_host_unregister turns private was counted when it was made. */
static void fake_stats_count_each_registration_once(void **state)
{
    xrt_rdma_ctx c, off;
    xrt_rdma_reg r, held;
    xrt_rdma_cache_stats st;
    char foreign[3000];
    char *h = (char *)aligned_alloc(4096, 16384);
    (void)state;
    assert_non_null(h);
    xrt_test_log_capture();
    OK(fake_open(&c));
    OK(xrt_malloc_host(&race_buf, 16384));
    OK(xrt_rdma_register(c, race_buf, 16384, RW, &r)); /* a miss */
    OK(xrt_rdma_release(&r));
    OK(xrt_rdma_register(c, race_buf, 4096, RW, &r)); /* a hit */
    OK(xrt_rdma_release(&r));
    /* refused: past its allocation, by the device, freed while being registered */
    FAILS(xrt_rdma_register(c, race_buf, 16385, RW, &r), XRT_ERROR_INVALID_VALUE, "overrun its allocation");
    fake_verbs.fail_errno = EFAULT;
    FAILS(xrt_rdma_register(c, race_buf, 4096, XRT_RDMA_LOCAL_WRITE, &r), XRT_ERROR_INVALID_VALUE, "EFAULT");
    fake_verbs.during_reg = free_and_reallocate;
    FAILS(xrt_rdma_register(c, race_buf, 4096, XRT_RDMA_REMOTE_READ, &r), XRT_ERROR_INVALID_POINTER,
          "was freed while being registered");
    OK(xrt_rdma_register(c, foreign, sizeof foreign, RW, &r)); /* private: xrt did not allocate it */
    assert_false(r.cached);
    OK(xrt_rdma_release(&r));
    OK(xrt_host_register(h, 16384, 0));
    OK(xrt_rdma_register(c, h, 4096, RW, &held)); /* a miss */
    OK(xrt_host_unregister(h));                   /* held: it lives on, private */
    OK(xrt_rdma_release(&held));
    st = fstats(c);
    assert_int_equal(st.hits, 1);
    assert_int_equal(st.misses, 2);
    assert_int_equal(st.uncached, 1);
    assert_int_equal(st.invalidations, 1); /* the first buffer's entry, at its free */
    assert_int_equal(st.entries, 0);
    /* with the cache off, every registration made is uncached, and nothing is a miss */
    setenv("XRT_RDMA_CACHE", "0", 1);
    OK(fake_open(&off));
    unsetenv("XRT_RDMA_CACHE");
    OK(xrt_rdma_register(off, race_buf, 4096, RW, &r));
    OK(xrt_rdma_release(&r));
    FAILS(xrt_rdma_register(off, race_buf, 1 << 20, RW, &r), XRT_ERROR_INVALID_VALUE, "overrun its allocation");
    st = fstats(off);
    assert_int_equal(st.hits, 0);
    assert_int_equal(st.misses, 0);
    assert_int_equal(st.uncached, 1);
    OK(xrt_rdma_close(off));
    OK(xrt_free_host(race_buf));
    OK(fake_close(c));
    free(h);
    xrt_set_log_callback(NULL, NULL);
}

/* A registration without remote access has rkey 0, as xrt_rdma_reg says,
   though the device gives every MR a remote key (mlx5's key is the lkey):
   a miss, a hit and a private registration alike; with remote access the
   MR's own key. */
static void fake_local_only_registration_has_no_rkey(void **state)
{
    xrt_rdma_ctx c;
    xrt_rdma_reg miss, hit, priv, remote;
    char foreign[3000];
    void *buf;
    (void)state;
    OK(fake_open(&c));
    OK(xrt_malloc_host(&buf, 8192));
    OK(xrt_rdma_register(c, buf, 8192, XRT_RDMA_LOCAL_WRITE, &miss));
    OK(xrt_rdma_register(c, buf, 100, 0, &hit));
    assert_ptr_equal(hit.mr, miss.mr);
    OK(xrt_rdma_register(c, foreign, sizeof foreign, XRT_RDMA_LOCAL_WRITE | XRT_RDMA_RELAXED_ORDERING, &priv));
    assert_false(priv.cached);
    assert_true(fake_of(&miss)->mr.rkey != 0 && fake_of(&priv)->mr.rkey != 0); /* the device's */
    assert_int_equal(miss.rkey, 0);
    assert_int_equal(hit.rkey, 0);
    assert_int_equal(priv.rkey, 0);
    assert_int_equal(miss.lkey, fake_of(&miss)->mr.lkey);
    OK(xrt_rdma_register(c, buf, 8192, XRT_RDMA_REMOTE_READ, &remote));
    assert_int_equal(remote.rkey, fake_of(&remote)->mr.rkey);
    assert_true(remote.rkey != 0);
    OK(xrt_rdma_release(&remote));
    OK(xrt_rdma_release(&priv));
    OK(xrt_rdma_release(&hit));
    OK(xrt_rdma_release(&miss));
    OK(xrt_free_host(buf));
    OK(fake_close(c));
}

/* fork() takes the core's locks and RDMA's in the order every other path
   takes them (TSan sees an inversion): the close of a stale handle takes
   RDMA's, then the log's to report it; xrt_shutdown the core's, then RDMA's
   in its free hook. main initialised xrt before any context was opened, as
   a program that opens RDMA after its first xrt call. */
static void fake_fork_takes_the_locks_in_order(void **state)
{
    xrt_rdma_ctx c, old;
    xrt_rdma_reg r;
    char why[512];
    void *buf;
    long live;
    pid_t pid;
    int bad;
    (void)state;
    xrt_test_log_capture();
    OK(fake_open(&old));
    OK(xrt_rdma_close(old));
    FAILS(xrt_rdma_close(old), XRT_ERROR_INVALID_HANDLE, "was closed");
    OK(fake_open(&c));
    OK(xrt_malloc_host(&buf, 8192));
    live = fake_live();
    OK(xrt_rdma_register(c, buf, 8192, RW, &r));
    OK(xrt_rdma_release(&r)); /* idle: xrt_shutdown's free of buf drops it */
    pid = child_fork(10);
    if (pid == 0) {
        CHILD_OK(xrt_rdma_close(c));
        fake_restore();
        xrt_shutdown();
        child_exit(0);
    }
    bad = child_status(pid, 10, why, sizeof why);
    xrt_shutdown();
    fake_end(c, live);
    if (bad) fail_msg("child: %s", why);
}

/* A context belongs to the process that opened it: in a fork() child,
   releasing a registration the parent made is XRT_ERROR_INVALID_HANDLE (and
   leaves it as it was), as is every call on the parent's context; nothing
   of the parent's is deregistered, also when the child frees the memory or
   closes the context (which frees xrt's records only). The parent's
   registrations are untouched. The memory is the CPU backend's: a GPU
   runtime refuses every call in a child. */
static void fake_fork_child_refuses_the_parents_registrations(void **state)
{
    xrt_rdma_ctx c;
    xrt_rdma_reg r, p, copy;
    xrt_rdma_cache_stats st;
    char foreign[3000], why[512];
    const char *was;
    void *buf;
    long live, deregs;
    pid_t pid;
    int bad;
    (void)state;
    xrt_test_log_capture();
    OK(xrt_get_backend(&was));
    OK(xrt_set_backend("cpu"));
    OK(fake_open(&c));
    OK(xrt_malloc_host(&buf, 8192));
    live = fake_live();
    OK(xrt_rdma_register(c, buf, 8192, RW, &r));
    OK(xrt_rdma_register(c, foreign, sizeof foreign, RW, &p));
    deregs = fake_verbs.deregs;
    pid = child_fork(10);
    if (pid == 0) {
        copy = r;
        CHILD_EXPECT(xrt_rdma_release(&r), XRT_ERROR_INVALID_HANDLE);
        CHILD_TRUE(strstr(xrt_get_last_error_string(), "opened before fork(), in the parent process") != NULL);
        CHILD_TRUE(memcmp(&r, &copy, sizeof r) == 0);
        CHILD_EXPECT(xrt_rdma_release(&p), XRT_ERROR_INVALID_HANDLE);
        CHILD_TRUE(p.opaque != NULL);
        CHILD_EXPECT(xrt_rdma_cache_get_stats(c, &st), XRT_ERROR_INVALID_HANDLE);
        CHILD_OK(xrt_free_host(buf));
        CHILD_TRUE(fake_verbs.deregs == deregs);
        CHILD_OK(xrt_rdma_close(c));
        CHILD_TRUE(fake_verbs.deregs == deregs);
        CHILD_EXPECT(xrt_rdma_release(&r), XRT_ERROR_INVALID_HANDLE); /* its context is closed now */
        fake_restore();
        xrt_shutdown();
        child_exit(0);
    }
    bad = child_status(pid, 10, why, sizeof why);
    assert_int_equal(fake_verbs.deregs, deregs);
    OK(xrt_rdma_release(&p));
    OK(xrt_rdma_release(&r));
    OK(xrt_rdma_cache_flush(c));
    OK(xrt_free_host(buf));
    fake_end(c, live);
    OK(xrt_set_backend(was));
    if (bad) fail_msg("child: %s", why);
}

/* Threads register a buffer while another frees it and allocates it again
   at the same address, then registers the new one as its owner: that
   registration must be of the new allocation, never a cached MR of the
   freed one. */
#define RACE_ROUNDS 3000
static int race_stop;
static void *race_shared;
static xrt_rdma_ctx race_ctx;

static void *race_registrar(void *arg)
{
    xrt_rdma_reg r;
    (void)arg;
    OK(xrt_set_backend("cpu"));
    while (!__atomic_load_n(&race_stop, __ATOMIC_ACQUIRE)) {
        void *p = __atomic_load_n(&race_shared, __ATOMIC_ACQUIRE);
        if (xrt_rdma_register(race_ctx, p, 65536, RW, &r) == XRT_SUCCESS) xrt_rdma_release(&r);
    }
    return NULL;
}

static void fake_register_racing_free_never_caches_freed_memory(void **state)
{
    pthread_t t[3];
    xrt_rdma_reg r;
    xrt__mem_info m;
    void *p;
    int i, stale = 0, same = 0;
    (void)state;
    /* three registrars in busy loops: under valgrind, which runs one thread
       at a time, they starve the freeing thread (CI: over 17 min for a
       part of the rounds); the race is the plain, ASan and TSan runs' */
    SKIP_UNLESS(xrt_test_slowdown() == 1, "busy registrar threads starve the freeing one under valgrind");
    SKIP_UNLESS(xrt_set_backend("cpu") == XRT_SUCCESS, "no cpu backend");
    xrt_test_log_capture();
    xrt_set_log_level(XRT_LOG_NONE); /* registrations of freed memory fail and frees of held ones warn, from
                                          several threads at once: expected here, and the log capture is not thread-safe */
    OK(fake_open(&race_ctx));
    OK(xrt_malloc_host(&p, 65536));
    __atomic_store_n(&race_shared, p, __ATOMIC_RELEASE);
    for (i = 0; i < 3; i++) assert_int_equal(pthread_create(&t[i], NULL, race_registrar, NULL), 0);
    for (i = 0; i < RACE_ROUNDS; i++) {
        void *q;
        int k;
        /* The odd epoch must lie inside the time the buffer is really
           freed: bumped after the free, and again before the allocation,
           since a registrar may register the new buffer (rightly) between
           xrt_malloc_host's record of it and its return. */
        OK(xrt_free_host(p));
        __atomic_add_fetch(&fake_verbs.epoch, 1, __ATOMIC_ACQ_REL); /* odd: freed */
        for (k = 0; k < 5000; k++) __asm__ __volatile__("" ::: "memory"); /* the allocator takes a while */
        __atomic_add_fetch(&fake_verbs.epoch, 1, __ATOMIC_ACQ_REL);
        OK(xrt_malloc_host(&q, 65536));
        same += q == p;
        __atomic_store_n(&race_shared, q, __ATOMIC_RELEASE);
        p = q;
        OK(xrt_rdma_register(race_ctx, p, 65536, RW, &r)); /* the owner, correctly */
        assert_true(xrt__mem_query(p, &m));
        /* of another allocation, or made while the buffer was freed (an MR
           records the epoch after the generation it found) */
        stale += fake_of(&r)->gen != m.generation || fake_of(&r)->epoch != __atomic_load_n(&fake_verbs.epoch, __ATOMIC_ACQUIRE);
        OK(xrt_rdma_release(&r));
    }
    __atomic_store_n(&race_stop, 1, __ATOMIC_RELEASE);
    for (i = 0; i < 3; i++) pthread_join(t[i], NULL);
    print_message("%d rounds (%d at the same address): %d registrations of the new buffer got an MR of freed memory\n",
                  RACE_ROUNDS, same, stale);
    assert_int_equal(stale, 0);
    OK(xrt_free_host(p));
    OK(fake_close(race_ctx));
    xrt_set_log_level(XRT_LOG_ENV);
    xrt_set_log_callback(NULL, NULL);
}

/* A context closed while other threads call on it: each call either ran on
   the open context or is refused as closed; none touches the freed context
   (ASan: a use after free), and a registration made just before the close
   is deregistered by it. Two closes of one context: one wins. */
#define CLOSE_ROUNDS 300
static struct { xrt_rdma_ctx ctx; void *buf; int go, bad; char why[640]; } closing;

static void closing_bad(const char *what, xrt_status st)
{
    if (__atomic_fetch_add(&closing.bad, 1, __ATOMIC_ACQ_REL) == 0)
        snprintf(closing.why, sizeof closing.why, "%.40s: %.40s: %.500s", what, xrt_status_string(st), xrt_get_last_error_string());
}

static void *closing_caller(void *arg)
{
    xrt_rdma_cache_stats stats;
    xrt_rdma_context_info info;
    xrt_rdma_reg r;
    xrt_status st;
    (void)arg;
    xrt_set_backend("cpu");
    while (!__atomic_load_n(&closing.go, __ATOMIC_ACQUIRE)) {}
    for (;;) {
        if ((st = xrt_rdma_register(closing.ctx, closing.buf, 4096, RW, &r)) != XRT_SUCCESS) {
            if (st != XRT_ERROR_INVALID_HANDLE || !strstr(xrt_get_last_error_string(), "was closed"))
                closing_bad("xrt_rdma_register", st);
            break;
        }
        st = xrt_rdma_release(&r);
        if (st != XRT_SUCCESS && (st != XRT_ERROR_INVALID_HANDLE || !strstr(xrt_get_last_error_string(), "closed")))
            closing_bad("xrt_rdma_release", st);
        st = xrt_rdma_cache_get_stats(closing.ctx, &stats);
        if (st != XRT_SUCCESS && st != XRT_ERROR_INVALID_HANDLE) closing_bad("xrt_rdma_cache_get_stats", st);
        st = xrt_rdma_get_info(closing.ctx, &info);
        if (st != XRT_SUCCESS && st != XRT_ERROR_INVALID_HANDLE) closing_bad("xrt_rdma_get_info", st);
        st = xrt_rdma_cache_flush(closing.ctx);
        if (st != XRT_SUCCESS && st != XRT_ERROR_INVALID_HANDLE) closing_bad("xrt_rdma_cache_flush", st);
    }
    return NULL;
}

static void *closing_closer(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&closing.go, __ATOMIC_ACQUIRE)) {}
    return (void *)(uintptr_t)xrt_rdma_close(closing.ctx);
}

static void fake_close_racing_calls(void **state)
{
    enum { CALLERS = 3 };
    pthread_t t[CALLERS], closer;
    void *won;
    int round, i, wins = 0;
    (void)state;
    SKIP_UNLESS(xrt_set_backend("cpu") == XRT_SUCCESS, "no cpu backend");
    xrt_test_log_capture();
    xrt_set_log_level(XRT_LOG_NONE); /* closes with held registrations warn, from several threads */
    OK(xrt_malloc_host(&closing.buf, 4096));
    for (round = 0; round < CLOSE_ROUNDS && !closing.bad; round++) {
        OK(fake_open(&closing.ctx));
        __atomic_store_n(&closing.go, 0, __ATOMIC_RELEASE);
        for (i = 0; i < CALLERS; i++) assert_int_equal(pthread_create(&t[i], NULL, closing_caller, NULL), 0);
        assert_int_equal(pthread_create(&closer, NULL, closing_closer, NULL), 0);
        __atomic_store_n(&closing.go, 1, __ATOMIC_RELEASE);
        for (i = 0; i < 2000 * (round % 8); i++) __asm__ __volatile__("" ::: "memory"); /* close at varied points */
        won = (void *)(uintptr_t)xrt_rdma_close(closing.ctx);
        wins += won == (void *)(uintptr_t)XRT_SUCCESS;
        if (won != (void *)(uintptr_t)XRT_SUCCESS) {
            assert_int_equal((int)(uintptr_t)won, XRT_ERROR_INVALID_HANDLE);
            assert_non_null(strstr(xrt_get_last_error_string(), "was closed"));
        }
        pthread_join(closer, &won);
        wins += won == (void *)(uintptr_t)XRT_SUCCESS;
        for (i = 0; i < CALLERS; i++) pthread_join(t[i], NULL);
        fake_restore();
        assert_int_equal(wins, round + 1); /* one of the two closes won */
    }
    if (closing.bad) fail_msg("round %d: %s", round, closing.why);
    assert_int_equal(fake_live(), 0); /* the closes deregistered every MR */
    OK(xrt_free_host(closing.buf));
    xrt_set_log_level(XRT_LOG_ENV);
    xrt_set_log_callback(NULL, NULL);
}

/* A close waits for a call inside the context, whatever the timing: a
   registration held inside ibv_reg_mr (the fake's hook) while another thread
   closes keeps the close from returning until the registration is done,
   and the close then deregisters it (a close that did not wait would free
   the context under the call). */
static struct { xrt_rdma_ctx ctx; int inside, closed, closed_inside; xrt_status st; } held;

static void held_in_reg(void *arg)
{
    int i;
    (void)arg;
    __atomic_store_n(&held.inside, 1, __ATOMIC_RELEASE);
    for (i = 0; i < 200 && !__atomic_load_n(&held.closed, __ATOMIC_ACQUIRE); i++) usleep(1000);
    held.closed_inside = __atomic_load_n(&held.closed, __ATOMIC_ACQUIRE);
}

static void *held_closer(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&held.inside, __ATOMIC_ACQUIRE)) sched_yield();
    held.st = xrt_rdma_close(held.ctx);
    __atomic_store_n(&held.closed, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void fake_close_waits_for_a_call_inside(void **state)
{
    pthread_t closer;
    xrt_rdma_reg r;
    xrt_status st;
    void *buf;
    (void)state;
    SKIP_UNLESS(xrt_set_backend("cpu") == XRT_SUCCESS, "no cpu backend");
    xrt_test_log_capture();
    xrt_set_log_level(XRT_LOG_NONE); /* the close warns of the held registration */
    memset(&held, 0, sizeof held);
    OK(xrt_malloc_host(&buf, 4096));
    OK(fake_open(&held.ctx));
    fake_verbs.during_reg = held_in_reg;
    assert_int_equal(pthread_create(&closer, NULL, held_closer, NULL), 0);
    OK(xrt_rdma_register(held.ctx, buf, 4096, RW, &r));
    pthread_join(closer, NULL);
    assert_false(held.closed_inside); /* the close returned while the registration was inside the context */
    assert_int_equal(held.st, XRT_SUCCESS);
    st = xrt_rdma_release(&r); /* deregistered by the close */
    assert_int_equal(st, XRT_ERROR_INVALID_HANDLE);
    fake_restore();
    assert_int_equal(fake_live(), 0);
    OK(xrt_free_host(buf));
    xrt_set_log_level(XRT_LOG_ENV);
    xrt_set_log_callback(NULL, NULL);
}

/* GPU memory freed behind xrt's back (cudaFree on xrt's pointer) and
   allocated again at the same address: the driver's buffer id changes, and
   the next registration is a miss with an MR of its own, not the cached one.
   A backend that says its memory is NVIDIA GPU memory stands in for CUDA
   (its "device memory" is host memory the test double can register), and a
   double of cuPointerGetAttribute for the driver. */
static unsigned long long fake_buffer_id = 41;
static int fake_cu_calls;
/* Memory of the fake backend that xrt did not allocate (cudaMalloc'd by the
   application): its pointer attributes name it, with its base and size when
   `sized` (a backend may leave them out, as xrt's CUDA backend does). */
static struct {
    char *base;
    size_t size;
    int sized;
} fake_native;

static int fake_cu_pointer_get_attribute(void *data, int attribute, unsigned long long ptr)
{
    int native = ptr - (uintptr_t)fake_native.base < fake_native.size;
    fake_cu_calls++;
    if (attribute == XRT__RDMA_CU_POINTER_ATTRIBUTE_RANGE_START_ADDR && native)
        *(unsigned long long *)data = (uintptr_t)fake_native.base;
    else if (attribute == XRT__RDMA_CU_POINTER_ATTRIBUTE_RANGE_SIZE && native)
        *(size_t *)data = fake_native.size;
    else if (attribute == XRT__RDMA_CU_POINTER_ATTRIBUTE_BUFFER_ID)
        *(unsigned long long *)data = fake_buffer_id;
    else
        return 1; /* CUDA_ERROR_INVALID_VALUE */
    return 0;
}

static xrt_status fakecu_init(const xrt_backend *self, char *reason, size_t n)
{
    (void)self;
    (void)reason;
    (void)n;
    return XRT_SUCCESS;
}

static xrt_status fakecu_malloc(const xrt_backend *self, void **ptr, size_t size)
{
    (void)self;
    return (*ptr = aligned_alloc(4096, (size + 4095) & ~(size_t)4095)) != NULL ? XRT_SUCCESS : XRT_ERROR_OUT_OF_MEMORY;
}

static xrt_status fakecu_free(const xrt_backend *self, void *ptr)
{
    (void)self;
    free(ptr);
    return XRT_SUCCESS;
}

static xrt_status fakecu_get_device(const xrt_backend *self, int *device)
{
    (void)self;
    *device = 0;
    return XRT_SUCCESS;
}

static xrt_status fakecu_pointer_get_attributes(const xrt_backend *self, xrt_pointer_attributes *attr, const void *ptr)
{
    if ((uintptr_t)ptr - (uintptr_t)fake_native.base >= fake_native.size) return XRT_SUCCESS; /* not its memory */
    attr->type = XRT_MEMORY_DEVICE;
    attr->device = 0;
    attr->backend = self->name;
    if (fake_native.sized) {
        attr->base = fake_native.base;
        attr->size = fake_native.size;
    }
    return XRT_SUCCESS;
}

/* The thread's backend: one whose memory is NVIDIA GPU memory, as CUDA's. */
static void fakecu_use(void)
{
    xrt_backend t;
    memset(&t, 0, sizeof t);
    t.abi_version = XRT_BACKEND_ABI_VERSION;
    t.size = sizeof t;
    t.name = "fakecu";
    t.flags = XRT_BACKEND_NVIDIA_MEMORY;
    t.init = fakecu_init;
    t.malloc = fakecu_malloc;
    t.free = fakecu_free;
    t.get_device = fakecu_get_device;
    t.pointer_get_attributes = fakecu_pointer_get_attributes;
    if (xrt_register_backend(&t) != XRT_SUCCESS) assert_int_equal(xrt_get_last_error(), XRT_ERROR_ALREADY_EXISTS);
    OK(xrt_set_backend("fakecu"));
}

static void fake_gpu_hits_are_checked_with_the_driver(void **state)
{
    xrt_rdma_ctx c;
    xrt_rdma_reg r, held;
    void *dev;
    uint32_t old;
    int calls;
    (void)state;
    xrt_test_log_capture();
    fakecu_use();
    xrt__rdma_id.state = 1; /* the driver's entry point: the double */
    xrt__rdma_id.cu_attr = fake_cu_pointer_get_attribute;
    setenv("XRT_RDMA_PEERMEM", "1", 1); /* the double registers "device pointers" */
    OK(fake_open(&c));
    unsetenv("XRT_RDMA_PEERMEM");
    OK(xrt_malloc(&dev, 65536));
    OK(xrt_rdma_register(c, dev, 65536, RW, &r));
    assert_int_equal(r.path, XRT_RDMA_PATH_PEER);
    old = r.rkey;
    OK(xrt_rdma_release(&r));
    calls = fake_cu_calls;
    OK(xrt_rdma_register(c, dev, 4096, RW, &r)); /* the same buffer id: a hit, checked */
    assert_int_equal(r.rkey, old);
    assert_int_equal(fake_cu_calls, calls + 1);
    assert_int_equal(fstats(c).hits, 1);
    OK(xrt_rdma_release(&r));
    fake_buffer_id++; /* cudaFree + cudaMalloc at the same address, behind xrt's back */
    OK(xrt_rdma_register(c, dev, 65536, RW, &r));
    assert_true(r.rkey != old);
    assert_null(fake_by_rkey(old)); /* the stale MR is gone */
    assert_int_equal(fstats(c).hits, 1);
    assert_int_equal(fstats(c).invalidations, 1);
    /* held while it goes stale: deregistered, with a warning */
    OK(xrt_rdma_register(c, dev, 100, RW, &held)); /* a hit on r's entry */
    OK(xrt_rdma_release(&r));
    fake_buffer_id++;
    OK(xrt_rdma_register(c, dev, 100, RW, &r));
    assert_true(r.rkey != held.rkey);
    assert_null(fake_by_rkey(held.rkey));
    assert_non_null(strstr(xrt_test_log.last, "freed and allocated again behind xrt's back while 1 registration(s)"));
    OK(xrt_rdma_release(&held));
    OK(xrt_rdma_release(&r));
    OK(xrt_free(dev));
    assert_int_equal(fstats(c).entries, 0);
    OK(fake_close(c));
    xrt__rdma_id.cu_attr = NULL;
    xrt__rdma_id.state = 0;
    OK(xrt_set_backend("cpu"));
    xrt_set_log_callback(NULL, NULL);
}

/* The driver calls of a hit on GPU memory (the identity query, and the
   deregistration of a stale MR that is held) run without the context's lock:
   a driver call can block, and a driver's callback may come back into xrt.
   The doubles of cuPointerGetAttribute and ibv_dereg_mr note whether the
   lock is held, and, when it is not, call back into the cache (a call that
   takes the lock), or release the registration or register the same range
   while the hit is being checked. */
enum { IN_DRIVER_NOTHING, IN_DRIVER_STATS, IN_DRIVER_RELEASE, IN_DRIVER_REGISTER };
static struct {
    xrt_rdma_ctx c;
    int action;          /* IN_DRIVER_*: done once, by the next identity query */
    int locked;          /* driver calls made with the context's lock held */
    int calls, derefs;
    void *ptr;
    size_t size;
    xrt_rdma_reg reg;    /* IN_DRIVER_RELEASE: released; IN_DRIVER_REGISTER: made */
    xrt_status st;
} in_driver;

static int ctx_locked(xrt_rdma_ctx c)
{
    return __atomic_load_n(&xrt__rdma_ctxs[(uintptr_t)c % XRT__RDMA_SLOTS]->lock, __ATOMIC_ACQUIRE) != 0;
}

static void in_driver_act(void)
{
    xrt_rdma_cache_stats s;
    int action = in_driver.action;
    in_driver.action = IN_DRIVER_NOTHING;
    if (action == IN_DRIVER_STATS) in_driver.st = xrt_rdma_cache_get_stats(in_driver.c, &s);
    else if (action == IN_DRIVER_RELEASE) in_driver.st = xrt_rdma_release(&in_driver.reg);
    else if (action == IN_DRIVER_REGISTER)
        in_driver.st = xrt_rdma_register(in_driver.c, in_driver.ptr, in_driver.size, RW, &in_driver.reg);
}

static int in_driver_cu_attr(void *data, int attribute, unsigned long long ptr)
{
    in_driver.calls++;
    if (ctx_locked(in_driver.c)) in_driver.locked++; /* calling back in would spin forever */
    else in_driver_act();
    return fake_cu_pointer_get_attribute(data, attribute, ptr);
}

static int in_driver_dereg(struct ibv_mr *mr)
{
    in_driver.derefs++;
    if (ctx_locked(in_driver.c)) in_driver.locked++;
    return fake_dereg_mr(mr);
}

/* The fake CUDA-like backend and the doubles of its driver, on a fake context. */
static void in_driver_open(void)
{
    memset(&in_driver, 0, sizeof in_driver);
    fakecu_use();
    xrt__rdma_id.state = 1;
    xrt__rdma_id.cu_attr = in_driver_cu_attr;
    setenv("XRT_RDMA_PEERMEM", "1", 1);
    OK(fake_open(&in_driver.c));
    unsetenv("XRT_RDMA_PEERMEM");
    xrt__rdma_rt.dereg_mr = in_driver_dereg;
}

static void in_driver_close(void)
{
    OK(fake_close(in_driver.c));
    xrt__rdma_id.cu_attr = NULL;
    xrt__rdma_id.state = 0;
    OK(xrt_set_backend("cpu"));
}

static void fake_gpu_driver_calls_run_without_the_lock(void **state)
{
    xrt_rdma_ctx c;
    xrt_rdma_reg r, held;
    void *dev;
    (void)state;
    xrt_test_log_capture();
    in_driver_open();
    c = in_driver.c;
    OK(xrt_malloc(&dev, 65536));
    OK(xrt_rdma_register(c, dev, 65536, RW, &r)); /* a miss: the identity read at registration */
    OK(xrt_rdma_release(&r));
    in_driver.action = IN_DRIVER_STATS;
    OK(xrt_rdma_register(c, dev, 4096, RW, &r)); /* a hit, checked: the check calls back into the cache */
    assert_int_equal(in_driver.locked, 0);
    assert_int_equal(in_driver.action, IN_DRIVER_NOTHING);
    OK(in_driver.st);
    assert_int_equal(fstats(c).hits, 1);
    /* held while it goes stale: its MR is deregistered at once, without the lock */
    OK(xrt_rdma_register(c, dev, 100, RW, &held));
    OK(xrt_rdma_release(&r));
    fake_buffer_id++;
    in_driver.derefs = 0;
    OK(xrt_rdma_register(c, dev, 100, RW, &r));
    assert_int_equal(in_driver.derefs, 1);
    assert_int_equal(in_driver.locked, 0);
    assert_null(fake_by_rkey(held.rkey));
    assert_non_null(fake_by_rkey(r.rkey));
    assert_non_null(strstr(xrt_test_log.last, "freed and allocated again behind xrt's back while 1 registration(s)"));
    assert_int_equal(fstats(c).invalidations, 1);
    OK(xrt_rdma_release(&held));
    OK(xrt_rdma_release(&r));
    assert_int_equal(fstats(c).entries, 1);
    assert_int_equal(fstats(c).referenced, 0);
    OK(xrt_free(dev));
    assert_int_equal(fstats(c).entries, 0);
    in_driver_close();
    assert_int_equal(fake_live(), 0);
    xrt_set_log_callback(NULL, NULL);
}

/* While a hit is checked without the lock, the registration it hit is
   released (and the cache flushed: the entry is gone), or another
   registration of the same range replaces the stale entry: the hit ends
   as a miss of its own, or as a hit on the new entry, never on freed memory. */
static void fake_gpu_check_races_release_and_register(void **state)
{
    xrt_rdma_ctx c;
    xrt_rdma_reg r, s;
    void *dev;
    long live;
    (void)state;
    xrt_test_log_capture();
    in_driver_open();
    c = in_driver.c;
    live = fake_live();
    OK(xrt_malloc(&dev, 65536));
    /* a release meanwhile: the last reference goes, and a flush in the driver's callback drops the entry */
    OK(xrt_rdma_register(c, dev, 65536, RW, &in_driver.reg));
    OK(xrt_rdma_cache_set_limits(c, 0, XRT_RDMA_UNLIMITED)); /* an unreferenced entry goes at once */
    in_driver.action = IN_DRIVER_RELEASE;
    OK(xrt_rdma_register(c, dev, 4096, RW, &r)); /* hits the held entry; checking it, the hold goes */
    OK(in_driver.st);
    assert_int_equal(in_driver.locked, 0);
    assert_non_null(fake_by_rkey(r.rkey));
    assert_int_equal(fstats(c).referenced, 1);
    OK(xrt_rdma_release(&r));
    assert_int_equal(fstats(c).entries, 0);
    assert_int_equal(fake_live(), live);
    OK(xrt_rdma_cache_set_limits(c, 4096, XRT_RDMA_UNLIMITED));
    /* a stale entry, replaced meanwhile by a registration of the same range: the hit is on that one */
    OK(xrt_rdma_register(c, dev, 65536, RW, &r));
    OK(xrt_rdma_release(&r));
    fake_buffer_id++;
    in_driver.action = IN_DRIVER_REGISTER;
    in_driver.ptr = dev;
    in_driver.size = 65536;
    OK(xrt_rdma_register(c, dev, 65536, RW, &s));
    OK(in_driver.st);
    assert_int_equal(in_driver.locked, 0);
    assert_ptr_equal(s.mr, in_driver.reg.mr); /* the new entry's MR */
    assert_non_null(fake_by_rkey(s.rkey));
    assert_int_equal(fstats(c).entries, 1);
    assert_int_equal(fstats(c).invalidations, 1);
    assert_int_equal(fake_live(), live + 1);
    OK(xrt_rdma_release(&s));
    OK(xrt_rdma_release(&in_driver.reg));
    OK(xrt_free(dev));
    in_driver_close();
    assert_int_equal(fake_live(), live);
    xrt_set_log_callback(NULL, NULL);
}

/* Between a miss's first lookup and its second (xrt__rdma_register_new,
   once the memory is classified), another registration of the same range
   is made, and its memory is then freed behind xrt's back and allocated
   again at the same address: the entry the second lookup finds is checked
   with the driver, as a hit is, not served. */
static struct {
    xrt_rdma_reg reg;
    xrt_status st;
} between;

static void between_register_then_reallocate(void)
{
    between.st = xrt_rdma_register(in_driver.c, in_driver.ptr, in_driver.size, RW, &between.reg);
    fake_buffer_id++; /* cudaFree + cudaMalloc at the same address */
}

static void fake_gpu_second_lookup_of_a_miss_is_checked(void **state)
{
    xrt_rdma_ctx c;
    xrt_rdma_reg r;
    void *dev;
    long live;
    (void)state;
    xrt_test_log_capture();
    in_driver_open();
    c = in_driver.c;
    live = fake_live();
    OK(xrt_malloc(&dev, 65536));
    in_driver.ptr = dev;
    in_driver.size = 65536;
    memset(&between, 0, sizeof between);
    __atomic_store_n(&calloc_during.size, sizeof(xrt__rdma_entry), __ATOMIC_RELEASE);
    __atomic_store_n(&calloc_during.fn, between_register_then_reallocate, __ATOMIC_RELEASE);
    OK(xrt_rdma_register(c, dev, 65536, RW, &r));
    assert_null(__atomic_load_n(&calloc_during.fn, __ATOMIC_ACQUIRE)); /* it ran */
    OK(between.st);
    assert_true(r.rkey != between.reg.rkey); /* not the stale MR */
    assert_null(fake_by_rkey(between.reg.rkey)); /* deregistered, though held */
    assert_non_null(fake_by_rkey(r.rkey));
    assert_non_null(strstr(xrt_test_log.last, "freed and allocated again behind xrt's back while 1 registration(s)"));
    assert_int_equal(fstats(c).invalidations, 1);
    assert_int_equal(in_driver.locked, 0);
    OK(xrt_rdma_release(&between.reg));
    OK(xrt_rdma_release(&r));
    OK(xrt_free(dev));
    in_driver_close();
    assert_int_equal(fake_live(), live);
    xrt_set_log_callback(NULL, NULL);
}

/* A free of memory whose registration is held deregisters it at once, but
   not under the context's lock (nor the context table's). */
static void fake_free_of_held_memory_deregisters_without_the_lock(void **state)
{
    xrt_rdma_ctx c;
    xrt_rdma_reg r, priv;
    void *buf;
    char foreign[4096];
    (void)state;
    xrt_test_log_capture();
    memset(&in_driver, 0, sizeof in_driver);
    OK(fake_open(&c));
    in_driver.c = c;
    xrt__rdma_rt.dereg_mr = in_driver_dereg;
    OK(xrt_malloc_host(&buf, 8192));
    OK(xrt_rdma_register(c, buf, 8192, RW, &r));
    OK(xrt_rdma_register(c, foreign, sizeof foreign, RW, &priv));
    OK(xrt_free_host(buf));
    OK(xrt_rdma_notify_free(foreign, sizeof foreign));
    assert_int_equal(in_driver.derefs, 2);
    assert_int_equal(in_driver.locked, 0);
    assert_null(fake_by_rkey(r.rkey));
    assert_null(fake_by_rkey(priv.rkey));
    assert_int_equal(fstats(c).invalidations, 2);
    OK(xrt_rdma_release(&r));
    OK(xrt_rdma_release(&priv));
    assert_int_equal(in_driver.derefs, 2); /* dead: nothing more to deregister */
    OK(fake_close(c));
    assert_int_equal(fake_live(), 0);
    xrt_set_log_callback(NULL, NULL);
}

/* fork() while another thread is inside the one-time lookup of the GPU
   driver's entry points (dlopen): the child's first registration of GPU
   memory (the parent's: a GPU backend refuses a child its calls) makes the
   lookup itself, it does not wait forever for a lock the other thread held.
   The thread stays inside until the fork returns, or a while if fork()
   waits for it. */
static struct {
    int inside, forked;
} id_held;

static void *id_held_sym(const char *const *libs, const char *sym)
{
    int i;
    if (!__atomic_exchange_n(&id_held.inside, 1, __ATOMIC_ACQ_REL))
        for (i = 0; i < 300 * xrt_test_slowdown() && !__atomic_load_n(&id_held.forked, __ATOMIC_ACQUIRE); i++)
            sleep_ms(1);
    return xrt__rdma_loaded_sym(libs, sym);
}

static void *id_held_lookup(void *arg)
{
    uint64_t id;
    (void)xrt__rdma_ident((const xrt_backend *)arg, 4096, &id);
    return NULL;
}

static void fake_fork_during_the_gpu_lookup_leaves_the_child_usable(void **state)
{
    xrt_rdma_ctx c;
    xrt_rdma_reg r;
    pthread_t t;
    char why[512];
    void *dev;
    pid_t pid;
    int bad;
    (void)state;
    xrt_test_log_capture();
    fakecu_use();
    memset(&xrt__rdma_id, 0, sizeof xrt__rdma_id); /* not looked up yet */
    memset(&id_held, 0, sizeof id_held);
    xrt__rdma_id_sym = id_held_sym;
    OK(xrt_malloc(&dev, 65536));
    assert_int_equal(pthread_create(&t, NULL, id_held_lookup, (void *)xrt__be()), 0);
    while (!__atomic_load_n(&id_held.inside, __ATOMIC_ACQUIRE)) sleep_ms(1);
    pid = child_fork(10);
    if (pid == 0) {
        xrt__rdma_id_sym = xrt__rdma_loaded_sym;
        setenv("XRT_RDMA_PEERMEM", "1", 1); /* the double registers "device pointers" */
        CHILD_OK(fake_open(&c));
        CHILD_OK(xrt_rdma_register(c, dev, 65536, RW, &r)); /* the lookup, at the first registration */
        CHILD_TRUE(r.path == XRT_RDMA_PATH_PEER && r.cached);
        CHILD_OK(xrt_rdma_release(&r));
        CHILD_OK(fake_close(c));
        xrt_shutdown();
        child_exit(0);
    }
    __atomic_store_n(&id_held.forked, 1, __ATOMIC_RELEASE);
    bad = child_status(pid, 10, why, sizeof why);
    assert_int_equal(pthread_join(t, NULL), 0);
    OK(xrt_free(dev));
    xrt__rdma_id_sym = xrt__rdma_loaded_sym;
    memset(&xrt__rdma_id, 0, sizeof xrt__rdma_id);
    OK(xrt_set_backend("cpu"));
    xrt_set_log_callback(NULL, NULL);
    if (bad) fail_msg("child: %s", why);
}

/* Device memory xrt did not allocate (found through the backend's pointer
   attributes): a range that runs past its allocation is refused as one of
   xrt's own is, whether the backend gives the allocation's extent or only
   the driver does (cuPointerGetAttribute's range, as for cudaMalloc'd
   memory, of which xrt's CUDA backend reports no size). */
static void fake_foreign_gpu_memory_overrun_is_refused(void **state)
{
    xrt_rdma_ctx c;
    xrt_rdma_reg r;
    int sized;
    (void)state;
    xrt_test_log_calls();
    fakecu_use();
    xrt__rdma_id.state = 1;
    xrt__rdma_id.cu_attr = fake_cu_pointer_get_attribute;
    fake_native.size = 3 * 4096;
    fake_native.base = (char *)aligned_alloc(4096, fake_native.size);
    assert_non_null(fake_native.base);
    setenv("XRT_RDMA_PEERMEM", "1", 1);
    OK(fake_open(&c));
    unsetenv("XRT_RDMA_PEERMEM");
    for (sized = 0; sized < 2; sized++) {
        fake_native.sized = sized;
        FAILS(xrt_rdma_register(c, fake_native.base + 4096, 2 * 4096 + 1, RW, &r), XRT_ERROR_INVALID_VALUE,
              "overrun its allocation (12288 bytes at");
        assert_null(r.mr);
        assert_int_equal(fake_live(), 0); /* the driver was not asked */
        OK(xrt_rdma_register(c, fake_native.base + 4096, 2 * 4096, RW, &r)); /* up to its end */
        assert_int_equal(r.path, XRT_RDMA_PATH_PEER);
        assert_false(r.cached);
        OK(xrt_rdma_release(&r));
    }
    fake_native.sized = 0;
    xrt__rdma_id.cu_attr = NULL; /* a driver that cannot tell: the registration is the driver's to judge */
    OK(xrt_rdma_register(c, fake_native.base + 4096, 2 * 4096 + 1, RW, &r));
    OK(xrt_rdma_release(&r));
    OK(fake_close(c));
    xrt__rdma_id.state = 0;
    free(fake_native.base);
    memset(&fake_native, 0, sizeof fake_native);
    OK(xrt_set_backend("cpu"));
    xrt_set_log_callback(NULL, NULL);
}

/* xrt_shutdown frees what is left through the free hook too. */
static void fake_shutdown_drops_registrations(void **state)
{
    xrt_rdma_ctx c;
    xrt_rdma_reg r;
    void *buf;
    long live;
    (void)state;
    OK(fake_open(&c));
    OK(xrt_malloc_host(&buf, 8192));
    live = fake_live();
    OK(xrt_rdma_register(c, buf, 8192, RW, &r));
    OK(xrt_rdma_release(&r));
    assert_int_equal(fake_live(), live + 1);
    xrt_shutdown();
    assert_int_equal(fake_live(), live);
    assert_int_equal(fstats(c).entries, 0);
    OK(fake_close(c));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(missing_library_is_named),
        cmocka_unit_test(no_device_says_why_and_loads_nothing),
        cmocka_unit_test(no_device_is_quiet_by_default),
        cmocka_unit_test(enosys_from_libibverbs_is_named),
        cmocka_unit_test(bad_arguments_and_handles),
        cmocka_unit_test(access_flags_are_checked),
        cmocka_unit_test(device_memory_paths_follow_detection_and_env),
        cmocka_unit_test(memory_types_map_to_paths),
        cmocka_unit_test(failed_registration_names_every_path),
        cmocka_unit_test(env_values_are_parsed),
        cmocka_unit_test(span_is_pages_clipped_to_the_allocation),
        cmocka_unit_test(tree_matches_a_model),
        cmocka_unit_test(lru_evicts_oldest_unreferenced_first),
        cmocka_unit_test(invalidate_without_contexts_is_a_no_op),
        cmocka_unit_test(fake_cache_off_free_deregisters),
        cmocka_unit_test(fake_remote_access_is_never_widened),
        cmocka_unit_test(fake_hit_serves_all_that_is_asked),
        cmocka_unit_test(fake_access_classes_live_side_by_side),
        cmocka_unit_test(fake_double_release_of_a_copy),
        cmocka_unit_test(fake_stale_handle_of_a_closed_context),
        cmocka_unit_test(fake_reference_generations_do_not_wrap),
        cmocka_unit_test(fake_closed_context_is_refused),
        cmocka_unit_test(fake_free_during_registration_is_refused),
        cmocka_unit_test(fake_register_between_unlink_and_hook_is_refused),
        cmocka_unit_test(fake_notify_free_drops_foreign_registrations),
        cmocka_unit_test(fake_host_unregister_keeps_registrations),
        cmocka_unit_test(fake_evictions_by_reason),
        cmocka_unit_test(fake_stats_count_each_registration_once),
        cmocka_unit_test(fake_local_only_registration_has_no_rkey),
        cmocka_unit_test(fake_fork_takes_the_locks_in_order),
        cmocka_unit_test(fake_fork_child_refuses_the_parents_registrations),
        cmocka_unit_test(fake_register_racing_free_never_caches_freed_memory),
        cmocka_unit_test(fake_close_racing_calls), cmocka_unit_test(fake_close_waits_for_a_call_inside),
        cmocka_unit_test(fake_gpu_hits_are_checked_with_the_driver),
        cmocka_unit_test(fake_gpu_driver_calls_run_without_the_lock),
        cmocka_unit_test(fake_gpu_check_races_release_and_register),
        cmocka_unit_test(fake_gpu_second_lookup_of_a_miss_is_checked),
        cmocka_unit_test(fake_free_of_held_memory_deregisters_without_the_lock),
        cmocka_unit_test(fake_fork_during_the_gpu_lookup_leaves_the_child_usable),
        cmocka_unit_test(fake_foreign_gpu_memory_overrun_is_refused),
        cmocka_unit_test(fake_shutdown_drops_registrations),
    };
    int failed;
    /* as a program that uses xrt before it opens RDMA: the core's fork
       handlers are registered before the first context is opened (a test of
       fork() sees the order of the locks it takes) */
    OK(xrt_init());
    xrt_test_log_calls();
    failed = xrt_test_run_group("rdma without a device", tests, NULL);
    xrt_set_log_callback(NULL, NULL);
    xrt_shutdown();
    return failed;
}
