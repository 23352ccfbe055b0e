/* SPDX-License-Identifier: MIT */
/* Registration with a libfabric domain (xrt_rdma_open_fabric): every
   region says what the memory is (fi_mr_attr's iface and device, from xrt's
   registry), the access flags map to libfabric's, keys are xrt's where the
   provider does not choose them, reg.addr follows FI_MR_VIRT_ADDR, a cached
   region serves a range inside it, xrt_free closes the regions of the
   memory it frees, memory xrt does not know gets a private region, and every
   misuse has its status. A recording domain stands in for a provider in
   the first group (libfabric calls a provider only through the domain's
   operations, which it fills in); the second group registers with the tcp
   provider for real (skipped where libfabric finds no tcp provider). */
#define XRT_ENABLE_RDMA
#define XRT_ENABLE_FABRIC
#define XRT_IMPL /* white-box: built with RDMA and libfabric */
#include "xrt_test.h"
#include "xrt_rdma.h"

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>

enum { N = 3 * 4096 };

/* >> a recording domain: regattr makes a region and remembers its attr;
   close counts. As a provider, it refuses an iface it is not told of. */
typedef struct rec_mr {
    struct fid_mr mr;
    struct fi_mr_attr attr;
    struct iovec iov;
} rec_mr;

static struct {
    int regs, closes, fail;
    uint64_t next_key, taken_key; /* taken_key: the domain has a region with it already */
    struct fi_mr_attr last;
    struct iovec last_iov;
} rec;

static int rec_close(struct fid *fid)
{
    rec_mr *m = (rec_mr *)(void *)fid;
    rec.closes++;
    free(m);
    return 0;
}

static struct fi_ops rec_mr_ops = {.size = sizeof(struct fi_ops), .close = rec_close};

static int rec_regattr(struct fid *fid, const struct fi_mr_attr *attr, uint64_t flags, struct fid_mr **out)
{
    rec_mr *m;
    (void)fid;
    (void)flags;
    if (rec.fail) return -rec.fail;
    if (attr && attr->requested_key && attr->requested_key == rec.taken_key) return -FI_ENOKEY;
    if (!attr || attr->iov_count != 1 || !attr->mr_iov || attr->iface > FI_HMEM_SYNAPSEAI) return -FI_EINVAL;
    if ((m = (rec_mr *)calloc(1, sizeof *m)) == NULL) return -FI_ENOMEM;
    m->attr = *attr;
    m->iov = attr->mr_iov[0];
    m->mr.fid.fclass = FI_CLASS_MR;
    m->mr.fid.ops = &rec_mr_ops;
    m->mr.mem_desc = m;
    m->mr.key = attr->requested_key ? attr->requested_key : 1000 + ++rec.next_key; /* a provider's key */
    rec.regs++;
    rec.last = *attr;
    rec.last_iov = m->iov;
    *out = &m->mr;
    return 0;
}

static struct fi_ops_mr rec_ops_mr = {.size = sizeof(struct fi_ops_mr), .regattr = rec_regattr};
static struct fid_domain rec_domain;

static xrt_rdma_ctx open_rec(uint64_t mr_mode)
{
    xrt_rdma_ctx c = NULL;
    memset(&rec, 0, sizeof rec);
    rec_domain.fid.fclass = FI_CLASS_DOMAIN;
    rec_domain.mr = &rec_ops_mr;
    OK(xrt_rdma_open_fabric(&c, &rec_domain, mr_mode));
    return c;
}

/* What the thread's backend's device memory is to libfabric. */
static enum fi_hmem_iface device_iface(void)
{
    if (!strcmp(xrt_test_backend, "cuda")) return FI_HMEM_CUDA;
    if (!strcmp(xrt_test_backend, "hip")) return FI_HMEM_ROCR;
    return FI_HMEM_SYSTEM;
}

static void test_device_memory_says_what_it_is(void **state)
{
    xrt_rdma_ctx c = open_rec(FI_MR_VIRT_ADDR | FI_MR_ALLOCATED);
    xrt_rdma_reg reg;
    void *d = NULL, *h = NULL;
    int dev = 0;
    (void)state;
    OK(xrt_get_device(&dev));
    OK(xrt_malloc(&d, N));
    OK(xrt_rdma_register(c, d, N, XRT_RDMA_LOCAL_WRITE | XRT_RDMA_REMOTE_WRITE, &reg));
    assert_int_equal(rec.regs, 1);
    assert_int_equal(rec.last.iface, device_iface());
    if (device_iface() == FI_HMEM_CUDA) assert_int_equal(rec.last.device.cuda, dev);
    assert_int_equal(rec.last.access, FI_SEND | FI_WRITE | FI_RECV | FI_READ | FI_REMOTE_WRITE);
    assert_ptr_equal(rec.last_iov.iov_base, d);
    assert_int_equal(rec.last_iov.iov_len, N);
    assert_true(rec.last.requested_key != 0); /* no FI_MR_PROV_KEY: xrt's keys */
    assert_int_equal(reg.key, rec.last.requested_key);
    assert_non_null(reg.fabric_mr);
    assert_ptr_equal(reg.desc, fi_mr_desc(reg.fabric_mr));
    assert_int_equal(reg.addr, (uint64_t)(uintptr_t)d); /* FI_MR_VIRT_ADDR */
    assert_null(reg.mr);
    assert_int_equal(reg.lkey, 0);
    assert_int_equal(reg.path, device_iface() == FI_HMEM_SYSTEM ? XRT_RDMA_PATH_HOST : XRT_RDMA_PATH_PEER);
    OK(xrt_rdma_release(&reg));
    OK(xrt_malloc_host(&h, N));
    OK(xrt_rdma_register(c, h, N, XRT_RDMA_REMOTE_READ, &reg)); /* pinned host memory: the host's */
    assert_int_equal(rec.last.iface, FI_HMEM_SYSTEM);
    assert_int_equal(rec.last.access, FI_SEND | FI_WRITE | FI_REMOTE_READ);
    assert_int_equal(reg.key, rec.last.requested_key);
    OK(xrt_rdma_release(&reg));
    OK(xrt_free_host(h));
    OK(xrt_free(d));
    OK(xrt_rdma_close(c));
    assert_int_equal(rec.closes, rec.regs); /* every region closed */
}

/* A range inside a cached region is a hit; without FI_MR_VIRT_ADDR its
   address is its offset in the region. The provider's keys are taken as
   they are where it has FI_MR_PROV_KEY. */
static void test_cache_hit_and_offsets(void **state)
{
    xrt_rdma_ctx c = open_rec(FI_MR_PROV_KEY);
    xrt_rdma_reg a, b;
    char *d = NULL;
    (void)state;
    OK(xrt_malloc((void **)&d, N));
    OK(xrt_rdma_register(c, d, N, XRT_RDMA_LOCAL_WRITE | XRT_RDMA_REMOTE_READ, &a));
    assert_int_equal(rec.last.requested_key, 0);
    assert_int_equal(a.key, 1001);
    assert_int_equal(a.addr, 0);
    OK(xrt_rdma_register(c, d + 4096 + 8, 100, XRT_RDMA_LOCAL_WRITE | XRT_RDMA_REMOTE_READ, &b));
    assert_int_equal(rec.regs, 1); /* a hit */
    assert_ptr_equal(b.fabric_mr, a.fabric_mr);
    assert_int_equal(b.key, a.key);
    assert_int_equal(b.addr, 4096 + 8);
    assert_int_equal(b.cached, 1);
    OK(xrt_rdma_release(&a));
    OK(xrt_rdma_release(&b));
    assert_int_equal(rec.closes, 0); /* cached */
    OK(xrt_free(d));                 /* xrt's free closes the memory's regions */
    assert_int_equal(rec.closes, 1);
    OK(xrt_rdma_close(c));
}

/* Freed and allocated again at the same address: a new region, never the
   closed one (the key a peer still holds does not reach the new memory). */
static void test_free_invalidates(void **state)
{
    xrt_rdma_ctx c = open_rec(FI_MR_VIRT_ADDR);
    xrt_rdma_reg reg;
    struct fid_mr *first;
    uint64_t key;
    void *d = NULL, *again = NULL;
    (void)state;
    OK(xrt_malloc(&d, N));
    OK(xrt_rdma_register(c, d, N, XRT_RDMA_LOCAL_WRITE | XRT_RDMA_REMOTE_READ, &reg));
    first = reg.fabric_mr;
    key = reg.key;
    OK(xrt_rdma_release(&reg));
    OK(xrt_free(d));
    assert_int_equal(rec.closes, 1);
    OK(xrt_malloc(&again, N));
    OK(xrt_rdma_register(c, again, N, XRT_RDMA_LOCAL_WRITE | XRT_RDMA_REMOTE_READ, &reg));
    assert_int_equal(rec.regs, 2);
    assert_true(reg.key != key);
    (void)first; /* closed: not compared (its memory may hold the new one) */
    OK(xrt_rdma_release(&reg));
    OK(xrt_free(again));
    OK(xrt_rdma_close(c));
    assert_int_equal(rec.closes, 2);
}

/* A region without remote access reports key 0, as a verbs registration
   reports rkey 0 (xrt_rdma_reg), though the provider gave the region a key:
   a miss, a hit and a private region alike, with xrt's keys or the
   provider's; with remote access the region's own key. */
static void test_local_only_region_has_no_key(void **state)
{
    static const uint64_t modes[] = {FI_MR_VIRT_ADDR, FI_MR_PROV_KEY};
    xrt_rdma_reg miss, hit, priv, remote;
    char *foreign = (char *)malloc(N);
    void *d = NULL;
    size_t i;
    (void)state;
    assert_non_null(foreign);
    for (i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        xrt_rdma_ctx c = open_rec(modes[i]);
        OK(xrt_malloc(&d, N));
        OK(xrt_rdma_register(c, d, N, XRT_RDMA_LOCAL_WRITE, &miss));
        OK(xrt_rdma_register(c, d, 100, 0, &hit));
        assert_ptr_equal(hit.fabric_mr, miss.fabric_mr);
        OK(xrt_rdma_register(c, foreign, N, XRT_RDMA_LOCAL_WRITE, &priv));
        assert_false(priv.cached);
        assert_true(fi_mr_key(miss.fabric_mr) != 0 && fi_mr_key(priv.fabric_mr) != 0); /* the provider's */
        assert_int_equal(miss.key, 0);
        assert_int_equal(hit.key, 0);
        assert_int_equal(priv.key, 0);
        assert_non_null(miss.desc);
        OK(xrt_rdma_register(c, d, N, XRT_RDMA_REMOTE_READ, &remote));
        assert_true(remote.fabric_mr != miss.fabric_mr);
        assert_int_equal(remote.key, fi_mr_key(remote.fabric_mr));
        assert_true(remote.key != 0);
        OK(xrt_rdma_release(&remote));
        OK(xrt_rdma_release(&priv));
        OK(xrt_rdma_release(&hit));
        OK(xrt_rdma_release(&miss));
        OK(xrt_free(d));
        OK(xrt_rdma_close(c));
        assert_int_equal(rec.closes, rec.regs);
    }
    free(foreign);
}

/* Device memory that xrt did not allocate (cudaMalloc'd on device 1): its
   region names the device the backend says it is on, not device 0. A
   backend that says its memory is NVIDIA GPU memory stands in for CUDA,
   its pointer attributes for the driver's. */
static xrt_status fakecu_init(const xrt_backend *self, char *reason, size_t n)
{
    (void)self;
    (void)reason;
    (void)n;
    return XRT_SUCCESS;
}

static xrt_status fakecu_get_device(const xrt_backend *self, int *device)
{
    (void)self;
    *device = 0;
    return XRT_SUCCESS;
}

static xrt_status fakecu_attributes(const xrt_backend *self, xrt_pointer_attributes *a, const void *p)
{
    a->type = XRT_MEMORY_DEVICE;
    a->device = 1;
    a->backend = self->name;
    a->base = (void *)(uintptr_t)p;
    a->size = N;
    return XRT_SUCCESS;
}

static void test_foreign_device_memory_names_its_device(void **state)
{
    xrt_backend t;
    xrt_rdma_ctx c;
    xrt_rdma_reg reg;
    char *m = (char *)malloc(N);
    (void)state;
    assert_non_null(m);
    memset(&t, 0, sizeof t);
    t.abi_version = XRT_BACKEND_ABI_VERSION;
    t.size = sizeof t;
    t.name = "fakecu";
    t.flags = XRT_BACKEND_NVIDIA_MEMORY;
    t.init = fakecu_init;
    t.get_device = fakecu_get_device;
    t.pointer_get_attributes = fakecu_attributes;
    if (xrt_register_backend(&t) != XRT_SUCCESS) assert_int_equal(xrt_get_last_error(), XRT_ERROR_ALREADY_EXISTS);
    OK(xrt_set_backend("fakecu"));
    c = open_rec(FI_MR_VIRT_ADDR);
    OK(xrt_rdma_register(c, m, N, XRT_RDMA_LOCAL_WRITE, &reg));
    assert_int_equal(reg.cached, 0);
    assert_int_equal(rec.last.iface, FI_HMEM_CUDA);
    assert_int_equal(rec.last.device.cuda, 1);
    OK(xrt_rdma_release(&reg));
    OK(xrt_rdma_close(c));
    OK(xrt_set_backend(xrt_test_backend));
    free(m);
}

/* Memory xrt does not know: a private region, closed by its release. */
static void test_foreign_memory_private(void **state)
{
    xrt_rdma_ctx c = open_rec(FI_MR_VIRT_ADDR);
    xrt_rdma_reg reg;
    char *m = (char *)malloc(N);
    (void)state;
    assert_non_null(m);
    OK(xrt_rdma_register(c, m, N, XRT_RDMA_LOCAL_WRITE, &reg));
    assert_int_equal(rec.last.iface, FI_HMEM_SYSTEM);
    assert_int_equal(reg.cached, 0);
    OK(xrt_rdma_release(&reg));
    assert_int_equal(rec.closes, 1);
    OK(xrt_rdma_close(c));
    free(m);
}

/* Two contexts on one domain never ask for the same key, and a key the
   domain has already (an application's own region) is skipped. */
static void test_keys_are_unique_in_the_process(void **state)
{
    xrt_rdma_ctx c1 = open_rec(FI_MR_VIRT_ADDR), c2;
    xrt_rdma_reg a, b, e;
    void *p = NULL, *q = NULL, *r = NULL;
    (void)state;
    OK(xrt_rdma_open_fabric(&c2, &rec_domain, FI_MR_VIRT_ADDR));
    OK(xrt_malloc(&p, N));
    OK(xrt_malloc(&q, N));
    OK(xrt_malloc(&r, N));
    OK(xrt_rdma_register(c1, p, N, XRT_RDMA_LOCAL_WRITE | XRT_RDMA_REMOTE_WRITE, &a));
    OK(xrt_rdma_register(c2, q, N, XRT_RDMA_LOCAL_WRITE | XRT_RDMA_REMOTE_WRITE, &b));
    assert_true(a.key != b.key);
    rec.taken_key = b.key + 1; /* the next key xrt would ask for */
    OK(xrt_rdma_register(c1, r, N, XRT_RDMA_LOCAL_WRITE | XRT_RDMA_REMOTE_WRITE, &e));
    assert_int_equal(e.key, b.key + 2);
    assert_int_equal(rec.regs, 3);
    OK(xrt_rdma_release(&a));
    OK(xrt_rdma_release(&b));
    OK(xrt_rdma_release(&e));
    OK(xrt_free(p));
    OK(xrt_free(q));
    OK(xrt_free(r));
    OK(xrt_rdma_close(c1));
    OK(xrt_rdma_close(c2));
    assert_int_equal(rec.closes, rec.regs);
}

/* libfabric's own error codes (above 255) are named by fi_strerror. */
static void test_fabric_errors_are_named(void **state)
{
    xrt_rdma_ctx c = open_rec(FI_MR_PROV_KEY);
    xrt_rdma_reg reg;
    void *d = NULL;
    char want[160];
    (void)state;
    OK(xrt_malloc(&d, N));
    rec.fail = FI_ENOKEY;
    snprintf(want, sizeof want, "%s (%d)", fi_strerror(FI_ENOKEY), FI_ENOKEY); /* after "fi_mr_regattr" and the memory's interface */
    FAILS(xrt_rdma_register(c, d, N, XRT_RDMA_LOCAL_WRITE, &reg), XRT_ERROR_BACKEND, want);
    assert_non_null(strstr(xrt_get_last_error_string(), "fi_mr_regattr"));
    assert_null(strstr(xrt_get_last_error_string(), "Unknown error"));
    rec.fail = 0;
    OK(xrt_free(d));
    OK(xrt_rdma_close(c));
}

static void test_fabric_bad_input(void **state)
{
    xrt_rdma_ctx c = NULL;
    xrt_rdma_reg reg;
    struct fid_domain bare;
    struct ibv_pd *pd = NULL;
    void *d = NULL;
    (void)state;
    xrt_test_log_capture();
    FAILS(xrt_rdma_open_fabric(NULL, &rec_domain, 0), XRT_ERROR_INVALID_VALUE, "ctx is NULL");
    FAILS(xrt_rdma_open_fabric(&c, NULL, 0), XRT_ERROR_INVALID_VALUE, "domain is NULL");
    memset(&bare, 0, sizeof bare);
    FAILS(xrt_rdma_open_fabric(&c, &bare, 0), XRT_ERROR_INVALID_VALUE, "no memory-region operations");
    rec_domain.mr = &rec_ops_mr;
    FAILS(xrt_rdma_open_fabric(&c, &rec_domain, FI_MR_ENDPOINT), XRT_ERROR_UNSUPPORTED, "FI_MR_ENDPOINT");
    FAILS(xrt_rdma_open_fabric(&c, &rec_domain, FI_MR_RAW), XRT_ERROR_UNSUPPORTED, "FI_MR_RAW");
    assert_null(c);
    c = open_rec(FI_MR_VIRT_ADDR);
    FAILS(xrt_rdma_get_pd(c, &pd), XRT_ERROR_UNSUPPORTED, "libfabric");
    assert_null(pd);
    OK(xrt_malloc(&d, N));
    rec.fail = FI_ENOSPC; /* the provider refuses: its errno, named */
    FAILS(xrt_rdma_register(c, d, N, XRT_RDMA_LOCAL_WRITE, &reg), XRT_ERROR_BACKEND, "fi_mr_regattr");
    assert_null(reg.fabric_mr);
    rec.fail = 0;
    FAILS(xrt_rdma_register(c, (char *)d + 8, N, XRT_RDMA_LOCAL_WRITE, &reg), XRT_ERROR_INVALID_VALUE, "overrun");
    OK(xrt_free(d));
    OK(xrt_rdma_close(c));
    FAILS(xrt_rdma_register(c, &reg, 8, XRT_RDMA_LOCAL_WRITE, &reg), XRT_ERROR_INVALID_HANDLE, "was closed");
    assert_int_equal(rec.closes, rec.regs);
}

/* >> the tcp provider, for real */
typedef struct tcp {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
} tcp;

static int tcp_open(tcp *t)
{
    struct fi_info *hints = fi_allocinfo();
    int rc;
    memset(t, 0, sizeof *t);
    if (!hints) return -1;
    hints->caps = FI_RMA;
    hints->ep_attr->type = FI_EP_RDM;
    hints->fabric_attr->prov_name = strdup("tcp");
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    rc = fi_getinfo(FI_VERSION(1, 9), "127.0.0.1", NULL, 0, hints, &t->info);
    fi_freeinfo(hints);
    if (rc) return rc;
    if ((rc = fi_fabric(t->info->fabric_attr, &t->fabric, NULL)) != 0) return rc;
    return fi_domain(t->fabric, t->info, &t->domain, NULL);
}

static void tcp_close(tcp *t)
{
    if (t->domain) fi_close(&t->domain->fid);
    if (t->fabric) fi_close(&t->fabric->fid);
    if (t->info) fi_freeinfo(t->info);
}

static void test_tcp_provider(void **state)
{
    tcp t;
    xrt_rdma_ctx c = NULL;
    xrt_rdma_reg a, b;
    xrt_rdma_cache_stats stats;
    char *d = NULL;
    int rc = tcp_open(&t);
    (void)state;
    if (rc) {
        tcp_close(&t);
        SKIP_UNLESS(0, "libfabric has no tcp provider for 127.0.0.1 here");
    }
    OK(xrt_rdma_open_fabric(&c, t.domain, t.info->domain_attr->mr_mode));
    OK(xrt_malloc((void **)&d, N));
    if (device_iface() != FI_HMEM_SYSTEM) { /* GPU memory: a libfabric built without that hmem says so */
        xrt_status st = xrt_rdma_register(c, d, N, XRT_RDMA_LOCAL_WRITE, &a);
        if (st == XRT_SUCCESS) OK(xrt_rdma_release(&a));
        else assert_non_null(strstr(xrt_get_last_error_string(), "fi_mr_regattr (FI_HMEM_"));
        OK(xrt_free(d));
        OK(xrt_malloc_host((void **)&d, N)); /* the cache on pinned host memory */
    }
    OK(xrt_rdma_register(c, d, N, XRT_RDMA_LOCAL_WRITE | XRT_RDMA_REMOTE_WRITE | XRT_RDMA_REMOTE_READ, &a));
    assert_non_null(a.fabric_mr);
    assert_int_equal(a.key, fi_mr_key(a.fabric_mr));
    OK(xrt_rdma_register(c, d + 100, 200, XRT_RDMA_LOCAL_WRITE | XRT_RDMA_REMOTE_WRITE | XRT_RDMA_REMOTE_READ, &b));
    assert_ptr_equal(b.fabric_mr, a.fabric_mr);
    OK(xrt_rdma_release(&a));
    OK(xrt_rdma_release(&b));
    OK(device_iface() != FI_HMEM_SYSTEM ? xrt_free_host(d) : xrt_free(d)); /* closes the region */
    OK(xrt_rdma_cache_get_stats(c, &stats));
    assert_int_equal(stats.entries, 0);
    assert_int_equal(stats.hits, 1);
    OK(xrt_rdma_close(c));
    tcp_close(&t);
}

int main(void)
{
    const struct CMUnitTest each[] = {
        cmocka_unit_test(test_device_memory_says_what_it_is),
        cmocka_unit_test(test_cache_hit_and_offsets),
        cmocka_unit_test(test_free_invalidates),
        cmocka_unit_test(test_foreign_memory_private),
        cmocka_unit_test(test_local_only_region_has_no_key),
        cmocka_unit_test(test_foreign_device_memory_names_its_device),
        cmocka_unit_test(test_fabric_bad_input),
        cmocka_unit_test(test_keys_are_unique_in_the_process),
        cmocka_unit_test(test_fabric_errors_are_named),
    };
    const struct CMUnitTest real[] = {
        cmocka_unit_test(test_tcp_provider),
    };
    int failed = xrt_test_run_on_backends("libfabric registration", each, sizeof each / sizeof each[0], NULL);
    return failed + xrt_test_run_on_backends("libfabric tcp", real, sizeof real / sizeof real[0], NULL);
}
