/* SPDX-License-Identifier: MIT */
/* xrt_rdma.h - RDMA memory registration over libibverbs, with a registration cache.

   Registers any buffer xrt can classify (host, pinned host, device memory) with
   an RDMA device, and keeps the registrations in a cache that xrt's free calls
   invalidate, so that memory freed and allocated again at the same address
   never gets a stale registration. This comment is a summary; the manual (the
   registration paths, the cache and its limits, handles, fork(), the nearest
   device, libfabric) is REFERENCE.md, section "RDMA registration (xrt_rdma.h)"
   and the two after it.

   Enable it in the XRT_IMPL unit (it needs <infiniband/verbs.h>: libibverbs-dev),
   including it after xrt.h (xrt.h does not include it; the core knows nothing
   of RDMA: this module subscribes to xrt's free hook, xrt_add_free_hook):

       #define XRT_IMPL
       #define XRT_ENABLE_RDMA
       #include "xrt.h"
       #include "xrt_rdma.h"

   Other units include "xrt_rdma.h" (after xrt.h, or alone) for the declarations; they see no verbs
   header (struct ibv_pd and struct ibv_mr are only declared). libibverbs is
   loaded at run time when first needed (XRT_NO_RUNTIME_LINKING: link
   -libverbs instead); where /sys/class/infiniband is absent nothing is loaded
   and every call says why there is no device.

       xrt_rdma_ctx ctx; xrt_rdma_reg reg; void *buf;
       if (xrt_rdma_open(&ctx, NULL)) { puts(xrt_get_last_error_string()); return 1; }
       xrt_malloc_host(&buf, 1 << 20);
       xrt_rdma_register(ctx, buf, 1 << 20, XRT_RDMA_LOCAL_WRITE | XRT_RDMA_REMOTE_WRITE, &reg);
       ... post work requests with reg.lkey / reg.rkey / reg.addr ...
       xrt_rdma_release(&reg); xrt_free_host(buf); xrt_rdma_close(ctx);

   Rules that bite (every function is thread-safe):
   - A free of xrt's memory deregisters every registration of it, a held one
     with a warning (its keys stop working): release before freeing.
   - Memory xrt did not allocate (malloc, mmap, cudaMalloc) is registered
     uncached, and xrt cannot see it freed: call xrt_rdma_notify_free(ptr,
     size) before freeing or unmapping it. So is a range after
     xrt_host_unregister: its registrations live on (held cached ones
     become private), the cache no longer serves it.
   - Release every registration before xrt_rdma_close (it deregisters what is
     still held, with a warning); a registration released twice is
     XRT_ERROR_INVALID_HANDLE.
   - A context belongs to the process that opened it: in a child of fork()
     its calls, and releases of its registrations, return
     XRT_ERROR_INVALID_HANDLE; the child opens its own.

   Environment (read when a context is opened, except XRT_IBVERBS_LIBRARY):
     XRT_RDMA_DEVICE        device xrt_rdma_open(ctx, NULL) opens (default: the nearest with an active port)
     XRT_RDMA_DMABUF        auto (default), 0: never use dma-buf, 1: try it even when not detected
     XRT_RDMA_PEERMEM       auto (default), 0: never use peer memory, 1: try it even when not detected
     XRT_RDMA_CACHE         1 (default), 0: every registration is uncached
                            (these three: 0 is also off, no, false, never; 1 is on, yes, true, force)
     XRT_RDMA_CACHE_ENTRIES most cached registrations (default 4096)
     XRT_RDMA_CACHE_BYTES   most cached bytes (default: no limit)
                            (either: a size, digits with an optional k, m or g; anything else is
                            ignored with a warning)
     XRT_IBVERBS_LIBRARY    path or soname of libibverbs (default libibverbs.so.1)
*/
#if defined(XRT_IMPL) && !defined(XRT_ENABLE_RDMA)
#error "xrt_rdma.h in the XRT_IMPL unit: #define XRT_ENABLE_RDMA there too, before #include \"xrt.h\" (else the program links without xrt_rdma_*)"
#endif
#ifndef XRT_RDMA_H_INCLUDED
#define XRT_RDMA_H_INCLUDED

#include "xrt.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ibv_context;
struct ibv_pd;
struct ibv_mr;
struct fid_domain;
struct fid_mr;

/* A device context with its protection domain and registration cache. The
   handle records a generation: a closed context gives XRT_ERROR_INVALID_HANDLE. */
typedef struct xrt_rdma_ctx_s *xrt_rdma_ctx;

enum { /* access flags: the values of enum ibv_access_flags */
    XRT_RDMA_LOCAL_WRITE = 1,
    XRT_RDMA_REMOTE_WRITE = 2, /* needs XRT_RDMA_LOCAL_WRITE */
    XRT_RDMA_REMOTE_READ = 4,
    XRT_RDMA_REMOTE_ATOMIC = 8, /* needs XRT_RDMA_LOCAL_WRITE */
    XRT_RDMA_RELAXED_ORDERING = 1 << 20
};

typedef enum xrt_rdma_path {
    XRT_RDMA_PATH_NONE = 0,
    XRT_RDMA_PATH_HOST,   /* ibv_reg_mr on host memory */
    XRT_RDMA_PATH_DMABUF, /* device memory exported as a dma-buf, ibv_reg_dmabuf_mr */
    XRT_RDMA_PATH_PEER    /* ibv_reg_mr on a device pointer, through a peer-memory driver */
} xrt_rdma_path;

/* One registration. addr is the pointer that was registered: use it (and
   offsets from it) as the address in work requests; lkey and rkey may cover
   more than [addr, addr+size) when the registration came from the cache. */
typedef struct xrt_rdma_reg {
    uint32_t lkey;
    uint32_t rkey;         /* 0 without remote access flags */
    uint64_t addr;
    size_t size;
    xrt_rdma_path path;
    int cached;            /* 1: shared through the cache; 0: a private registration */
    struct ibv_mr *mr;     /* the verbs MR (shared when cached: never deregister it yourself); NULL for libfabric */
    void *opaque;          /* xrt's: NULL once released */
    /* A libfabric context's (xrt_rdma_open_fabric); lkey, rkey and mr are 0 there. addr is then
       the address for fi_write/fi_read: the pointer where the domain's mr_mode has FI_MR_VIRT_ADDR,
       else its offset in the memory region. */
    struct fid_mr *fabric_mr; /* shared when cached: never close it yourself */
    void *desc;               /* fi_mr_desc: the local descriptor */
    uint64_t key;             /* fi_mr_key: the remote key; 0 without remote access flags */
} xrt_rdma_reg;

#define XRT_RDMA_MAX_PORTS 4
#define XRT_RDMA_MAX_GIDS 8
#define XRT_RDMA_UNLIMITED ((size_t)-1)

typedef struct xrt_rdma_gid {
    int index;
    uint8_t raw[16];
    char type[16]; /* "IB", "RoCE v1", "RoCE v2" */
} xrt_rdma_gid;

typedef struct xrt_rdma_port_info {
    int port;               /* 1-based */
    int active;             /* 1 when the port state is active */
    const char *state;      /* "down", "init", "armed", "active", ... */
    const char *link_layer; /* "InfiniBand", "Ethernet" */
    int active_mtu;         /* bytes */
    int max_mtu;            /* bytes */
    unsigned lid;
    int gid_table_size;
    int gid_count;          /* valid GIDs listed below (at most XRT_RDMA_MAX_GIDS) */
    xrt_rdma_gid gids[XRT_RDMA_MAX_GIDS];
} xrt_rdma_port_info;

typedef struct xrt_rdma_device_info {
    char name[64];
    uint64_t node_guid;     /* host byte order */
    int port_count;         /* ports of the device; the first XRT_RDMA_MAX_PORTS are listed */
    xrt_rdma_port_info ports[XRT_RDMA_MAX_PORTS];
} xrt_rdma_device_info;

typedef struct xrt_rdma_context_info {
    char device[64];
    struct ibv_context *context;
    struct ibv_pd *pd;
    int owns_pd;            /* 0 when the PD was adopted (xrt_rdma_open_pd) */
    int dmabuf;             /* 1 when the device takes dma-buf registrations */
    char dmabuf_reason[160];/* why not, when dmabuf is 0 */
    int cache;              /* 0 when XRT_RDMA_CACHE=0 */
    const char *fork;       /* what libibverbs says of fork(): "unneeded", "enabled", "disabled", "unknown" */
} xrt_rdma_context_info;

typedef struct xrt_rdma_cache_stats {
    /* Each registration made counts once: hits, misses or uncached; a refused one counts in none. */
    uint64_t hits;          /* served by a cached MR (no system call) */
    uint64_t misses;        /* registered a new cached MR */
    uint64_t evictions;     /* unreferenced entries dropped: the sum of the three below */
    uint64_t evictions_limit;  /* to meet the limits */
    uint64_t evictions_enomem; /* because ibv_reg_mr failed with ENOMEM */
    uint64_t evictions_flush;  /* by xrt_rdma_cache_flush */
    uint64_t invalidations; /* registrations dropped because their memory was freed (or notified so, or
                               xrt_host_unregister took an idle entry's range out of xrt's hands) */
    uint64_t uncached;      /* private MRs registered (memory that is not xrt's, or XRT_RDMA_CACHE=0) */
    size_t entries, bytes;  /* in the cache now, referenced or not */
    size_t referenced;      /* entries with at least one reference */
    size_t max_entries, max_bytes;
} xrt_rdma_cache_stats;

/* >> rdma: devices */
XRT_API xrt_status xrt_rdma_device_count(int *count);
XRT_API xrt_status xrt_rdma_device_get_info(int index, xrt_rdma_device_info *info);

/* How near an RDMA device sits to a compute device on the PCI tree, in the
   classes of `nvidia-smi topo -m` (NCCL ranks its paths alike), nearest
   first. Read from sysfs: the device's PCI address (xrt_device_prop) under
   /sys/bus/pci/devices, the RDMA device's /sys/class/infiniband/NAME/device,
   and their numa_node files. */
typedef enum xrt_rdma_affinity {
    XRT_RDMA_AFFINITY_UNKNOWN = 0, /* "?": either has no PCI place in sysfs (a CPU device, soft-RoCE) */
    XRT_RDMA_AFFINITY_PIX,  /* through at most one PCIe switch */
    XRT_RDMA_AFFINITY_PXB,  /* through several PCIe switches, not through the host bridge */
    XRT_RDMA_AFFINITY_PHB,  /* through one PCIe host bridge (the same root complex) */
    XRT_RDMA_AFFINITY_NODE, /* between host bridges of one NUMA node */
    XRT_RDMA_AFFINITY_SYS   /* between NUMA nodes */
} xrt_rdma_affinity;

/* The class of the path between `device` (of the calling thread's backend)
   and the RDMA device named `rdma_device` (as in /sys/class/infiniband).
   XRT_ERROR_NOT_FOUND when sysfs lists no such RDMA device; UNKNOWN (with a
   debug line saying why) when either has no place on the PCI tree.
   xrt_rdma_open(ctx, NULL) opens the nearest device by these classes. */
XRT_API xrt_status xrt_rdma_device_affinity(int device, const char *rdma_device, xrt_rdma_affinity *affinity);
XRT_API const char *xrt_rdma_affinity_name(xrt_rdma_affinity affinity); /* "PIX", ..., "SYS"; "?" */

/* >> rdma: contexts */
/* device: a name, or NULL for env XRT_RDMA_DEVICE or else the device with
   an active port nearest to the thread's current device (xrt_rdma_affinity;
   ties: the lowest name). Allocates a protection domain. */
XRT_API xrt_status xrt_rdma_open(xrt_rdma_ctx *ctx, const char *device);
/* Uses the caller's protection domain (and its device context); close leaves both open. */
XRT_API xrt_status xrt_rdma_open_pd(xrt_rdma_ctx *ctx, struct ibv_pd *pd);
/* Deregisters everything; release your registrations first. */
XRT_API xrt_status xrt_rdma_close(xrt_rdma_ctx ctx);
XRT_API xrt_status xrt_rdma_get_pd(xrt_rdma_ctx ctx, struct ibv_pd **pd);
XRT_API xrt_status xrt_rdma_get_info(xrt_rdma_ctx ctx, xrt_rdma_context_info *info);

/* >> rdma: libfabric */
/* A context whose registrations are libfabric memory regions of `domain`
   (fi_mr_regattr), with the same cache, invalidation by xrt's frees and
   handles as verbs contexts. mr_mode is the domain's
   (info->domain_attr->mr_mode): without FI_MR_PROV_KEY xrt chooses each
   region's key; without FI_MR_VIRT_ADDR reg.addr is an offset. Domains
   with FI_MR_ENDPOINT (a region must be bound to an endpoint) or FI_MR_RAW
   are refused. Each region says what the memory is (fi_mr_attr's iface
   and device) from xrt's pointer registry: host memory and the cpu
   backend's device memory as FI_HMEM_SYSTEM, CUDA device and managed
   memory as FI_HMEM_CUDA, HIP's as FI_HMEM_ROCR. close leaves the domain
   open. Needs XRT_ENABLE_FABRIC in the XRT_IMPL unit (<rdma/fi_domain.h>:
   libfabric-dev); xrt calls libfabric only through the domain's own
   operations, so nothing more is linked. */
XRT_API xrt_status xrt_rdma_open_fabric(xrt_rdma_ctx *ctx, struct fid_domain *domain, uint64_t mr_mode);

/* >> rdma: registration */
XRT_API xrt_status xrt_rdma_register(xrt_rdma_ctx ctx, const void *ptr, size_t size, unsigned access,
                             xrt_rdma_reg *reg);
/* Drops the reference (a private registration is deregistered); zeroes *reg.
   A copy of an xrt_rdma_reg is the same reference: release it once. */
XRT_API xrt_status xrt_rdma_release(xrt_rdma_reg *reg);
XRT_API const char *xrt_rdma_path_name(xrt_rdma_path path);

/* >> rdma: cache */
XRT_API xrt_status xrt_rdma_cache_get_stats(xrt_rdma_ctx ctx, xrt_rdma_cache_stats *stats);
/* XRT_RDMA_UNLIMITED for no limit; evicts unreferenced entries at once to meet them. */
XRT_API xrt_status xrt_rdma_cache_set_limits(xrt_rdma_ctx ctx, size_t max_entries, size_t max_bytes);
/* Deregisters every unreferenced entry. */
XRT_API xrt_status xrt_rdma_cache_flush(xrt_rdma_ctx ctx);

/* For memory xrt did not allocate: call it before [ptr, ptr+size) is freed
   or unmapped (or handed to another owner). Every registration overlapping it,
   in every context, is deregistered (one still held: with a warning, as for
   xrt memory), and a registration of it in flight fails. xrt's own frees do
   this by themselves. */
XRT_API xrt_status xrt_rdma_notify_free(const void *ptr, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* XRT_RDMA_H_INCLUDED */

/* >> rdma: implementation, in the XRT_IMPL unit (after xrt.h's). It reaches
   the core through its public calls (the free hook, the backends' flags and
   operations, the error API) and through the core's kit (">> impl: the kit"
   in xrt.h): the pointer registry's lookup (xrt__mem_query), the interval
   tree, the spin lock, the readers of environment variables and sysfs, the
   loading of vendor libraries. */
#if defined(XRT__IMPL_INCLUDED) && defined(XRT_ENABLE_RDMA) && !defined(XRT__RDMA_IMPL_INCLUDED)
#define XRT__RDMA_IMPL_INCLUDED

#include <dirent.h>
#include <dlfcn.h>
#include <endian.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <stddef.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef XRT_ENABLE_FABRIC
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The public flags are verbs' own values, passed through unchanged. */
#define XRT__RDMA_SAME(a, b) ((int)(a) == (int)(b))
typedef char xrt__rdma_access_values_match[(XRT__RDMA_SAME(XRT_RDMA_LOCAL_WRITE, IBV_ACCESS_LOCAL_WRITE) &&
                                            XRT__RDMA_SAME(XRT_RDMA_REMOTE_WRITE, IBV_ACCESS_REMOTE_WRITE) &&
                                            XRT__RDMA_SAME(XRT_RDMA_REMOTE_READ, IBV_ACCESS_REMOTE_READ) &&
                                            XRT__RDMA_SAME(XRT_RDMA_REMOTE_ATOMIC, IBV_ACCESS_REMOTE_ATOMIC) &&
                                            XRT__RDMA_SAME(XRT_RDMA_RELAXED_ORDERING, IBV_ACCESS_RELAXED_ORDERING))
                                               ? 1 : -1];
#undef XRT__RDMA_SAME

/* >> rdma impl: libibverbs symbols */
/* X(field, symbol, optional, return type, parameters). ibv_query_port is
   the exported function behind verbs.h's macro of that name (the macro is
   not expanded here: no parenthesis follows the name). */
#define XRT__RDMA_SYMBOLS(X)                                                                            \
    X(get_device_list, ibv_get_device_list, 0, struct ibv_device **, (int *num_devices))                \
    X(free_device_list, ibv_free_device_list, 0, void, (struct ibv_device **list))                      \
    X(get_device_name, ibv_get_device_name, 0, const char *, (struct ibv_device *device))               \
    X(get_device_guid, ibv_get_device_guid, 0, __be64, (struct ibv_device *device))                      \
    X(open_device, ibv_open_device, 0, struct ibv_context *, (struct ibv_device *device))               \
    X(close_device, ibv_close_device, 0, int, (struct ibv_context *context))                            \
    X(query_device, ibv_query_device, 0, int, (struct ibv_context *context, struct ibv_device_attr *attr)) \
    X(query_port, ibv_query_port, 0, int,                                                               \
      (struct ibv_context *context, uint8_t port_num, struct _compat_ibv_port_attr *port_attr))         \
    X(query_gid, ibv_query_gid, 0, int, (struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid)) \
    X(query_gid_table, _ibv_query_gid_table, 1, ssize_t,                                                \
      (struct ibv_context *context, struct ibv_gid_entry *entries, size_t max_entries, uint32_t flags,  \
       size_t entry_size))                                                                              \
    X(alloc_pd, ibv_alloc_pd, 0, struct ibv_pd *, (struct ibv_context *context))                        \
    X(dealloc_pd, ibv_dealloc_pd, 0, int, (struct ibv_pd *pd))                                          \
    X(reg_mr, ibv_reg_mr, 0, struct ibv_mr *, (struct ibv_pd *pd, void *addr, size_t length, int access)) \
    X(dereg_mr, ibv_dereg_mr, 0, int, (struct ibv_mr *mr))                                              \
    X(reg_dmabuf_mr, ibv_reg_dmabuf_mr, 1, struct ibv_mr *,                                             \
      (struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova, int fd, int access))           \
    X(is_fork_initialized, ibv_is_fork_initialized, 1, enum ibv_fork_status, (void))

#define XRT__RDMA_SYM_FIELD(field, sym, opt, ret, params) ret(*field) params;
static struct { XRT__RDMA_SYMBOLS(XRT__RDMA_SYM_FIELD) } xrt__rdma_rt;
#undef XRT__RDMA_SYM_FIELD

#ifdef XRT_NO_RUNTIME_LINKING
/* Optional symbols: redeclared weak, so an older libibverbs links and they are NULL. */
#define XRT__RDMA_WEAK_0(sym, ret, params)
#define XRT__RDMA_WEAK_1(sym, ret, params) ret sym params __attribute__((weak));
#define XRT__RDMA_SYM_WEAK(field, sym, opt, ret, params) XRT__RDMA_WEAK_##opt(sym, ret, params)
XRT__RDMA_SYMBOLS(XRT__RDMA_SYM_WEAK)
#undef XRT__RDMA_SYM_WEAK
#undef XRT__RDMA_WEAK_0
#undef XRT__RDMA_WEAK_1
#else
#define XRT__RDMA_SYM_ENTRY(field, sym, opt, ret, params) {#sym, (void *)&xrt__rdma_rt.field, opt},
static const xrt__dl_sym xrt__rdma_syms[] = {XRT__RDMA_SYMBOLS(XRT__RDMA_SYM_ENTRY)};
#undef XRT__RDMA_SYM_ENTRY
#endif

/* >> rdma impl: loading */
/* The state of loading, the context table, the slots' reference tables. It
   is taken inside the core's locks (free hooks run under them: xrt_shutdown,
   the end of a capture), and fork() takes it after them
   (xrt__rdma_atfork_register); so nothing under it may take one of the core's
   locks: no error or log is reported under it. */
static pthread_mutex_t xrt__rdma_lock = PTHREAD_MUTEX_INITIALIZER;
static int xrt__rdma_state;                  /* 0: not loaded, 1: loaded, 2: the library failed */
static int xrt__rdma_loading;                /* a thread is loading it, without the lock (dlopen logs) */
static char xrt__rdma_load_reason[256];
static const char *xrt__rdma_sysfs = "/sys/class/infiniband"; /* the tests point it elsewhere */

static int xrt__rdma_bind(char *reason, size_t n)
{
#ifdef XRT_NO_RUNTIME_LINKING
#define XRT__RDMA_SYM_LINK(field, sym, opt, ret, params) xrt__rdma_rt.field = &sym;
    XRT__RDMA_SYMBOLS(XRT__RDMA_SYM_LINK)
#undef XRT__RDMA_SYM_LINK
    (void)reason;
    (void)n;
    return 1;
#else
    static const char *const sonames[] = {"libibverbs.so.1", "libibverbs.so", NULL};
    void *lib = xrt__dl_open("XRT_IBVERBS_LIBRARY", sonames, reason, n);
    if (!lib) return 0;
    if (!xrt__dl_bind(lib, xrt__rdma_syms, sizeof xrt__rdma_syms / sizeof xrt__rdma_syms[0], reason, n)) {
        memset(&xrt__rdma_rt, 0, sizeof xrt__rdma_rt);
        dlclose(lib);
        return 0;
    }
    return 1; /* never unloaded: providers keep threads and state of their own */
#endif
}

/* Loads libibverbs once. Without /sys/class/infiniband the kernel offers no
   RDMA device and libibverbs could only report ENOSYS, so nothing is loaded:
   probing costs one stat(). Checked again on every call until it loads, since
   modules may be loaded later. */
static xrt_status xrt__rdma_load(const char *fn)
{
    struct stat sb;
    char reason[sizeof xrt__rdma_load_reason];
    int state, mine = 0;
    if (XRT__LIKELY(__atomic_load_n(&xrt__rdma_state, __ATOMIC_ACQUIRE) == 1)) return XRT_SUCCESS;
    if (stat(xrt__rdma_sysfs, &sb) != 0)
        return xrt_error(XRT_ERROR_NO_DEVICE, fn,
                         "no RDMA device: %s is absent, the kernel has no RDMA support loaded "
                         "(ibv_get_device_list would fail with ENOSYS); load ib_uverbs and a device driver "
                         "(soft-RoCE: rdma_rxe)", xrt__rdma_sysfs);
    pthread_mutex_lock(&xrt__rdma_lock);
    while (xrt__rdma_state == 0 && xrt__rdma_loading) { /* another thread loads it */
        pthread_mutex_unlock(&xrt__rdma_lock);
        sched_yield();
        pthread_mutex_lock(&xrt__rdma_lock);
    }
    if (xrt__rdma_state == 0) xrt__rdma_loading = mine = 1;
    pthread_mutex_unlock(&xrt__rdma_lock);
    if (mine) {
        state = xrt__rdma_bind(reason, sizeof reason) ? 1 : 2;
        pthread_mutex_lock(&xrt__rdma_lock);
        memcpy(xrt__rdma_load_reason, reason, sizeof reason);
        __atomic_store_n(&xrt__rdma_state, state, __ATOMIC_RELEASE);
        xrt__rdma_loading = 0;
        pthread_mutex_unlock(&xrt__rdma_lock);
    }
    pthread_mutex_lock(&xrt__rdma_lock);
    state = xrt__rdma_state;
    memcpy(reason, xrt__rdma_load_reason, sizeof reason);
    pthread_mutex_unlock(&xrt__rdma_lock);
    if (state != 1) return xrt_error(XRT_ERROR_BACKEND_UNAVAILABLE, fn, "libibverbs: %s", reason);
    return XRT_SUCCESS;
}

/* >> rdma impl: errors */
static const char *xrt__rdma_errno_name(int e)
{
    switch (e) {
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case EIO: return "EIO";
    case EBADF: return "EBADF";
    case EAGAIN: return "EAGAIN";
    case ENOMEM: return "ENOMEM";
    case EACCES: return "EACCES";
    case EFAULT: return "EFAULT";
    case EBUSY: return "EBUSY";
    case ENODEV: return "ENODEV";
    case EINVAL: return "EINVAL";
    case ENOSPC: return "ENOSPC";
    case ENOSYS: return "ENOSYS";
    case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    default: return "errno";
    }
}

static xrt_status xrt__rdma_errno_status(int e)
{
    switch (e) {
    case ENOMEM: return XRT_ERROR_OUT_OF_MEMORY;
    case EINVAL:
    case EFAULT: return XRT_ERROR_INVALID_VALUE;
    case ENOSYS:
    case EPROTONOSUPPORT:
    case EOPNOTSUPP: return XRT_ERROR_UNSUPPORTED;
    case ENODEV: return XRT_ERROR_NO_DEVICE;
    default: return XRT_ERROR_SYSTEM;
    }
}

/* "call: message (ENAME=n)", the format of xrt_native_error. */
static void xrt__rdma_describe(char *out, size_t n, const char *call, int e)
{
    char buf[128];
    const char *msg = strerror_r(e, buf, sizeof buf); /* GNU: returns the message */
    snprintf(out, n, "%s: %s (%s=%d)", call, msg, xrt__rdma_errno_name(e), e);
}

/* Pinning fails with ENOMEM (or EPERM) at RLIMIT_MEMLOCK: say what it is. */
static void xrt__rdma_memlock_hint(char *out, size_t n, int e)
{
    struct rlimit rl;
    size_t used = strlen(out);
    if ((e != ENOMEM && e != EPERM) || getrlimit(RLIMIT_MEMLOCK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return;
    snprintf(out + used, n - used, "; RLIMIT_MEMLOCK is %llu KiB (ulimit -l)", (unsigned long long)rl.rlim_cur / 1024);
}

/* >> rdma impl: devices */
/* The device list, or an error naming why there is none. */
static xrt_status xrt__rdma_devices(struct ibv_device ***list, int *count, const char *fn)
{
    char why[200];
    int e, listed = 0;
    DIR *d;
    struct dirent *de;
    xrt_status st = xrt__rdma_load(fn);
    *list = NULL;
    *count = 0;
    if (st != XRT_SUCCESS) return st;
    errno = 0;
    *list = xrt__rdma_rt.get_device_list(count);
    if (!*list) {
        e = errno;
        xrt__rdma_describe(why, sizeof why, "ibv_get_device_list", e);
        *count = 0;
        return xrt_error(e == ENOSYS ? XRT_ERROR_NO_DEVICE : XRT_ERROR_SYSTEM, fn, "%s%s", why,
                         e == ENOSYS ? ": the kernel has no RDMA (uverbs) support loaded" : "");
    }
    if (*count > 0) return XRT_SUCCESS;
    xrt__rdma_rt.free_device_list(*list);
    *list = NULL;
    if ((d = opendir(xrt__rdma_sysfs)) != NULL) {
        while ((de = readdir(d)) != NULL) listed += de->d_name[0] != '.';
        closedir(d);
    }
    if (listed)
        return xrt_error(XRT_ERROR_NO_DEVICE, fn,
                         "no RDMA device: ibv_get_device_list found none of the %d in %s "
                         "(is the userspace provider installed? Debian: ibverbs-providers)", listed, xrt__rdma_sysfs);
    return xrt_error(XRT_ERROR_NO_DEVICE, fn, "no RDMA device: %s is empty (load a device driver, e.g. rdma_rxe)",
                     xrt__rdma_sysfs);
}

static const char *xrt__rdma_port_state(int s)
{
    static const char *const names[] = {"nop", "down", "init", "armed", "active", "active defer"};
    return s >= 0 && s < 6 ? names[s] : "unknown";
}

static const char *xrt__rdma_link_layer(int l)
{
    return l == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : l == IBV_LINK_LAYER_INFINIBAND ? "InfiniBand" : "unspecified";
}

static int xrt__rdma_mtu_bytes(int mtu) { return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128 << mtu : 0; }

/* ibv_query_port through the exported function, as verbs.h's inline wrapper
   does when the provider has no extended query. */
static int xrt__rdma_query_port(struct ibv_context *vc, int port, struct ibv_port_attr *pa)
{
    memset(pa, 0, sizeof *pa);
    return xrt__rdma_rt.query_port(vc, (uint8_t)port, (struct _compat_ibv_port_attr *)(void *)pa);
}

static void xrt__rdma_add_gid(xrt_rdma_port_info *p, int index, const union ibv_gid *gid, const char *type)
{
    xrt_rdma_gid *g;
    if (p->gid_count >= XRT_RDMA_MAX_GIDS) return;
    g = &p->gids[p->gid_count++];
    g->index = index;
    memcpy(g->raw, gid->raw, sizeof g->raw);
    snprintf(g->type, sizeof g->type, "%s", type);
}

static const char *xrt__rdma_gid_type(uint32_t t)
{
    return t == IBV_GID_TYPE_ROCE_V2 ? "RoCE v2" : t == IBV_GID_TYPE_ROCE_V1 ? "RoCE v1" : "IB";
}

/* Valid GIDs of the listed ports: one call with ibv_query_gid_table
   (rdma-core 32+), else entry by entry, with the type from sysfs. */
static void xrt__rdma_fill_gids(struct ibv_context *vc, xrt_rdma_device_info *info)
{
    size_t total = 0;
    ssize_t got, i;
    int p, k;
    struct ibv_gid_entry *t;
    for (p = 0; p < info->port_count && p < XRT_RDMA_MAX_PORTS; p++) total += (size_t)info->ports[p].gid_table_size;
    if (xrt__rdma_rt.query_gid_table && total &&
        (t = (struct ibv_gid_entry *)XRT_CALLOC(total, sizeof *t)) != NULL) {
        got = xrt__rdma_rt.query_gid_table(vc, t, total, 0, sizeof *t);
        for (i = 0; i < got; i++)
            if (t[i].port_num >= 1 && t[i].port_num <= XRT_RDMA_MAX_PORTS)
                xrt__rdma_add_gid(&info->ports[t[i].port_num - 1], (int)t[i].gid_index, &t[i].gid,
                                  xrt__rdma_gid_type(t[i].gid_type));
        XRT_FREE(t);
        return;
    }
    for (p = 0; p < info->port_count && p < XRT_RDMA_MAX_PORTS; p++)
        for (k = 0; k < info->ports[p].gid_table_size && k < 64; k++) {
            union ibv_gid gid;
            static const uint8_t zero[16] = {0};
            char path[256], type[16] = "IB";
            FILE *f;
            if (xrt__rdma_rt.query_gid(vc, (uint8_t)(p + 1), k, &gid) != 0 || !memcmp(gid.raw, zero, 16)) continue;
            snprintf(path, sizeof path, "%s/%s/ports/%d/gid_attrs/types/%d", xrt__rdma_sysfs, info->name, p + 1, k);
            if ((f = fopen(path, "r")) != NULL) {
                if (fgets(type, sizeof type, f)) type[strcspn(type, "\n")] = 0;
                fclose(f);
            }
            xrt__rdma_add_gid(&info->ports[p], k, &gid, strstr(type, "v2") ? "RoCE v2" : strstr(type, "v1") ? "RoCE v1" : "IB");
        }
}

static xrt_status xrt__rdma_fill_info(struct ibv_device *dev, struct ibv_context *vc, xrt_rdma_device_info *info,
                                      const char *fn)
{
    struct ibv_device_attr da;
    struct ibv_port_attr pa;
    char why[200];
    int p, e;
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "%s", xrt__rdma_rt.get_device_name(dev));
    info->node_guid = be64toh(xrt__rdma_rt.get_device_guid(dev));
    if ((e = xrt__rdma_rt.query_device(vc, &da)) != 0) {
        xrt__rdma_describe(why, sizeof why, "ibv_query_device", e < 0 ? errno : e);
        return xrt_error(XRT_ERROR_SYSTEM, fn, "%s: %s", info->name, why);
    }
    info->port_count = da.phys_port_cnt;
    for (p = 0; p < info->port_count && p < XRT_RDMA_MAX_PORTS; p++) {
        xrt_rdma_port_info *o = &info->ports[p];
        if ((e = xrt__rdma_query_port(vc, p + 1, &pa)) != 0) {
            xrt__rdma_describe(why, sizeof why, "ibv_query_port", e < 0 ? errno : e);
            return xrt_error(XRT_ERROR_SYSTEM, fn, "%s port %d: %s", info->name, p + 1, why);
        }
        o->port = p + 1;
        o->active = pa.state == IBV_PORT_ACTIVE;
        o->state = xrt__rdma_port_state(pa.state);
        o->link_layer = xrt__rdma_link_layer(pa.link_layer);
        o->active_mtu = xrt__rdma_mtu_bytes(pa.active_mtu);
        o->max_mtu = xrt__rdma_mtu_bytes(pa.max_mtu);
        o->lid = pa.lid;
        o->gid_table_size = pa.gid_tbl_len;
    }
    xrt__rdma_fill_gids(vc, info);
    return XRT_SUCCESS;
}

XRT_API xrt_status xrt_rdma_device_count(int *count)
{
    struct ibv_device **list;
    xrt_status st;
    if (!count) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_rdma_device_count", "count is NULL");
    st = xrt__rdma_devices(&list, count, "xrt_rdma_device_count");
    if (list) xrt__rdma_rt.free_device_list(list);
    return st;
}

XRT_API xrt_status xrt_rdma_device_get_info(int index, xrt_rdma_device_info *info)
{
    static const char fn[] = "xrt_rdma_device_get_info";
    struct ibv_device **list;
    struct ibv_context *vc;
    int n, e;
    char why[200];
    xrt_status st;
    if (!info) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "info is NULL");
    if ((st = xrt__rdma_devices(&list, &n, fn)) != XRT_SUCCESS) return st;
    if (index < 0 || index >= n) {
        xrt__rdma_rt.free_device_list(list);
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "index %d out of range (%d devices)", index, n);
    }
    errno = 0;
    if ((vc = xrt__rdma_rt.open_device(list[index])) == NULL) {
        e = errno;
        xrt__rdma_describe(why, sizeof why, "ibv_open_device", e);
        st = xrt_error(xrt__rdma_errno_status(e), fn, "%s: %s", xrt__rdma_rt.get_device_name(list[index]), why);
    } else {
        st = xrt__rdma_fill_info(list[index], vc, info, fn);
        xrt__rdma_rt.close_device(vc);
    }
    xrt__rdma_rt.free_device_list(list);
    return st;
}

/* >> rdma impl: the nearest device. A device's place on the PCI tree is
   the path sysfs gives it under devices/: its host bridge ("pci0000:00")
   and the chain of PCI functions from the root port down to itself, read
   under the core's xrt__sysfs_root (the tests point it at a fake tree). */

#define XRT__PCI_DEPTH 16

typedef struct xrt__pci_place {
    char host[32];                      /* "pci0000:00" */
    char chain[XRT__PCI_DEPTH][20];     /* "0000:00:01.0" (the root port) .. the device */
    int depth;
    int numa;                           /* -1: sysfs does not say */
} xrt__pci_place;

static int xrt__pci_hex(const char *s, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || ((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'f'))) return 0;
    return n > 0;
}

/* "DDDD:BB:DD.F", the domain 4 to 8 hex digits. */
static int xrt__pci_is_address(const char *s, size_t n)
{
    return n >= 12 && n <= 16 && s[n - 2] == '.' && s[n - 5] == ':' && s[n - 8] == ':' && xrt__pci_hex(s, n - 8) &&
           xrt__pci_hex(s + n - 7, 2) && xrt__pci_hex(s + n - 4, 2) && s[n - 1] >= '0' && s[n - 1] <= '7';
}

/* "pciDDDD:BB". */
static int xrt__pci_is_host(const char *s, size_t n)
{
    return n >= 10 && n < 32 && !strncmp(s, "pci", 3) && s[n - 3] == ':' && xrt__pci_hex(s + 3, n - 6) &&
           xrt__pci_hex(s + n - 2, 2);
}

/* The place of what `link` (a sysfs symlink) points at, or 0 with why not. */
static int xrt__pci_place_of(const char *link, xrt__pci_place *p, char *why, size_t n)
{
    char devices[PATH_MAX + 16], top[PATH_MAX], real[PATH_MAX], *s, *tok, *save = NULL;
    size_t len;
    memset(p, 0, sizeof *p);
    p->numa = -1;
    snprintf(devices, sizeof devices, "%s/devices", xrt__sysfs_root);
    if (!realpath(devices, top)) {
        xrt__rdma_describe(why, n, devices, errno);
        return 0;
    }
    if (!realpath(link, real)) {
        xrt__rdma_describe(why, n, link, errno); /* ENOENT: a broken link; ELOOP: a loop */
        return 0;
    }
    p->numa = xrt__sysfs_numa_node(real); /* the device's own directory: before strtok_r cuts the path */
    len = strlen(top);
    if (strncmp(real, top, len) != 0 || real[len] != '/') {
        snprintf(why, n, "%s leads out of %s", link, devices);
        return 0;
    }
    s = real + len + 1;
    for (tok = strtok_r(s, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
        size_t tl = strlen(tok);
        if (!p->host[0] && xrt__pci_is_host(tok, tl)) {
            memcpy(p->host, tok, tl + 1);
        } else if (p->host[0] && xrt__pci_is_address(tok, tl) && p->depth < XRT__PCI_DEPTH) {
            memcpy(p->chain[p->depth++], tok, tl + 1);
        } else {
            snprintf(why, n, "%s is no PCI device (at '%.40s')", link, tok);
            return 0;
        }
    }
    if (!p->depth) {
        snprintf(why, n, "%s is no PCI device", link);
        return 0;
    }
    return 1;
}

/* Whether the machine has one NUMA node (or sysfs does not say): then a
   numa_node of -1 is that node. */
static int xrt__pci_single_node(void)
{
    char path[PATH_MAX];
    DIR *d;
    struct dirent *de;
    int nodes = 0;
    snprintf(path, sizeof path, "%s/devices/system/node", xrt__sysfs_root);
    if (!(d = opendir(path))) return 1;
    while ((de = readdir(d)) != NULL)
        nodes += !strncmp(de->d_name, "node", 4) && de->d_name[4] >= '0' && de->d_name[4] <= '9';
    closedir(d);
    return nodes <= 1;
}

/* The path's class: the functions it crosses below the deepest one the two
   chains share. A switch is an upstream port with its downstream ports, so
   one switch is at most one bridge below the shared upstream port on each
   side; a shared root port alone joins only the functions of one device. */
static xrt_rdma_affinity xrt__pci_affinity(const xrt__pci_place *a, const xrt__pci_place *b, int single_node)
{
    int c = 0, below_a, below_b;
    if (strcmp(a->host, b->host) != 0) {
        if (a->numa < 0 || b->numa < 0) return single_node ? XRT_RDMA_AFFINITY_NODE : XRT_RDMA_AFFINITY_SYS;
        return a->numa == b->numa ? XRT_RDMA_AFFINITY_NODE : XRT_RDMA_AFFINITY_SYS;
    }
    while (c < a->depth && c < b->depth && !strcmp(a->chain[c], b->chain[c])) c++;
    if (c == 0) return XRT_RDMA_AFFINITY_PHB;
    below_a = a->depth - 1 - c;
    below_b = b->depth - 1 - c;
    if (below_a <= 1 && below_b <= 1 && (c >= 2 || (below_a <= 0 && below_b <= 0))) return XRT_RDMA_AFFINITY_PIX;
    return XRT_RDMA_AFFINITY_PXB;
}

XRT_API const char *xrt_rdma_affinity_name(xrt_rdma_affinity affinity)
{
    static const char *const names[] = {"?", "PIX", "PXB", "PHB", "NODE", "SYS"};
    return (unsigned)affinity < sizeof names / sizeof names[0] ? names[affinity] : "?";
}

/* The place of the thread's backend's `device`, or 0 with why not (a device
   without a PCI address or a NUMA node). A device with a node and no PCI
   address (a CPU device under XRT_CPU_DEVICES=numa) is placed on its node
   alone: no host bridge, no chain, so that every NIC is NODE or SYS to it
   (xrt__pci_affinity). Fails only when the backend cannot describe it. */
static xrt_status xrt__rdma_device_place(int device, xrt__pci_place *p, int *placed, char *why, size_t n)
{
    xrt_device_prop prop;
    char link[PATH_MAX];
    const char *backend = NULL;
    xrt_status st;
    *placed = 0;
    if ((st = xrt_get_device_properties(&prop, device)) != XRT_SUCCESS) return st;
    if (xrt_get_backend(&backend) != XRT_SUCCESS || !backend) backend = "?";
    if (!prop.pci_domain_id && !prop.pci_bus_id && !prop.pci_device_id) {
        memset(p, 0, sizeof *p);
        p->numa = prop.numa_node;
        *placed = prop.numa_node >= 0;
        if (!*placed) snprintf(why, n, "%s device %d has no PCI address and no NUMA node", backend, device);
        return XRT_SUCCESS;
    }
    snprintf(link, sizeof link, "%s/bus/pci/devices/%04x:%02x:%02x.0", xrt__sysfs_root,
             (unsigned)prop.pci_domain_id, (unsigned)prop.pci_bus_id, (unsigned)prop.pci_device_id);
    *placed = xrt__pci_place_of(link, p, why, n);
    return XRT_SUCCESS;
}

/* An RDMA device's name as a single path component of /sys/class/infiniband. */
static int xrt__rdma_name_ok(const char *name)
{
    size_t n = strlen(name);
    return n > 0 && n < 64 && !strchr(name, '/') && strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

/* The class of the RDMA device `name` from a placed device; why says what
   sysfs could not tell. */
static xrt_rdma_affinity xrt__rdma_affinity_from(const xrt__pci_place *dev, const char *name, int single_node,
                                                 char *why, size_t n)
{
    xrt__pci_place nic;
    char link[PATH_MAX];
    snprintf(link, sizeof link, "%s/class/infiniband/%s/device", xrt__sysfs_root, name);
    if (!xrt__pci_place_of(link, &nic, why, n)) return XRT_RDMA_AFFINITY_UNKNOWN;
    return xrt__pci_affinity(dev, &nic, single_node);
}

XRT_API xrt_status xrt_rdma_device_affinity(int device, const char *rdma_device, xrt_rdma_affinity *affinity)
{
    static const char fn[] = "xrt_rdma_device_affinity";
    xrt__pci_place dev;
    char path[PATH_MAX], why[PATH_MAX + 64] = "";
    struct stat sb;
    int placed;
    xrt_status st;
    if (!affinity) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "affinity is NULL");
    *affinity = XRT_RDMA_AFFINITY_UNKNOWN;
    if (!rdma_device) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "rdma_device is NULL");
    if (!xrt__rdma_name_ok(rdma_device))
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "'%.64s' is no RDMA device name", rdma_device);
    snprintf(path, sizeof path, "%s/class/infiniband/%s", xrt__sysfs_root, rdma_device);
    if (lstat(path, &sb) != 0) /* listed, even where the link is broken: then its class is unknown */
        return xrt_error(XRT_ERROR_NOT_FOUND, fn, "no RDMA device named '%s' in %s/class/infiniband", rdma_device,
                         xrt__sysfs_root);
    if ((st = xrt__rdma_device_place(device, &dev, &placed, why, sizeof why)) != XRT_SUCCESS) return st;
    if (placed) *affinity = xrt__rdma_affinity_from(&dev, rdma_device, xrt__pci_single_node(), why, sizeof why);
    if (*affinity == XRT_RDMA_AFFINITY_UNKNOWN) xrt_log(XRT_LOG_DEBUG, "%s: %s: unknown: %s", fn, rdma_device, why);
    return XRT_SUCCESS;
}

/* Puts the devices of libibverbs' list nearest to the thread's current
   device first (xrt__rdma_open_device opens the first with an active port),
   equals by name; unknown ones last. A device without a PCI place keeps
   the list as it is. */
static void xrt__rdma_order_nearest(struct ibv_device **list, int n, const char *fn)
{
    xrt__pci_place dev;
    xrt_rdma_affinity cls[64];
    char why[PATH_MAX + 64] = "", line[512];
    size_t used = 0;
    int device, placed = 0, single, i, j;
    if (n < 1 || n > 64) return; /* more than 64: libibverbs' order */
    if (xrt_get_device(&device) != XRT_SUCCESS ||
        xrt__rdma_device_place(device, &dev, &placed, why, sizeof why) != XRT_SUCCESS) {
        (void)xrt_get_last_error(); /* the open goes on: this query's failure is not the caller's */
        xrt_log(XRT_LOG_DEBUG, "%s: the thread has no device to be near; libibverbs' order", fn);
        return;
    }
    if (!placed) {
        xrt_log(XRT_LOG_DEBUG, "%s: %s; libibverbs' order", fn, why);
        return;
    }
    single = xrt__pci_single_node();
    for (i = 0; i < n; i++) {
        const char *name = xrt__rdma_rt.get_device_name(list[i]);
        cls[i] = xrt__rdma_affinity_from(&dev, name, single, why, sizeof why);
        if (!cls[i]) xrt_log(XRT_LOG_DEBUG, "%s: %s: unknown: %s", fn, name, why);
    }
    for (i = 1; i < n; i++) { /* insertion sort by (class, unknown last; name) */
        struct ibv_device *d = list[i];
        xrt_rdma_affinity c = cls[i];
        unsigned rank = c ? (unsigned)c : 99u;
        for (j = i; j > 0; j--) {
            unsigned prev = cls[j - 1] ? (unsigned)cls[j - 1] : 99u;
            if (prev < rank || (prev == rank && strcmp(xrt__rdma_rt.get_device_name(list[j - 1]),
                                                       xrt__rdma_rt.get_device_name(d)) <= 0))
                break;
            list[j] = list[j - 1];
            cls[j] = cls[j - 1];
        }
        list[j] = d;
        cls[j] = c;
    }
    for (i = 0; i < n && used < sizeof line; i++)
        used += (size_t)snprintf(line + used, sizeof line - used, "%s%s %s", i ? ", " : "",
                                 xrt__rdma_rt.get_device_name(list[i]), xrt_rdma_affinity_name(cls[i]));
    if (dev.depth)
        xrt_log(XRT_LOG_DEBUG, "%s: nearest to device %d (%s, %s, NUMA node %d) first: %s", fn, device, dev.host,
                dev.chain[dev.depth - 1], dev.numa, line);
    else
        xrt_log(XRT_LOG_DEBUG, "%s: nearest to device %d (NUMA node %d, no PCI address) first: %s", fn, device,
                dev.numa, line);
}

/* >> rdma impl: contexts */
typedef struct xrt__rdma_link { struct xrt__rdma_link *prev, *next; } xrt__rdma_link;

enum { XRT__RDMA_IN_CACHE, XRT__RDMA_DETACHED, XRT__RDMA_PRIVATE, XRT__RDMA_DEAD };

/* The remote access flags: a cached MR serves requests of exactly its own
   (xrt__rdma_serves), so the cache keeps a tree for each combination. */
#define XRT__RDMA_REMOTE (XRT_RDMA_REMOTE_WRITE | XRT_RDMA_REMOTE_READ | XRT_RDMA_REMOTE_ATOMIC)
#define XRT__RDMA_CLASSES 8

/* One MR. In the cache it is a node of one of the context's interval trees
   (the core's, keyed by start), the one of its remote access: entries of one
   remote access never overlap, entries of another live beside them. While
   unreferenced it is also on the LRU list. A cached entry replaced by a
   wider one while referenced is DETACHED (on the detached list, never found
   again); a private registration is PRIVATE (on the privates list); an entry
   whose memory was freed while referenced is DEAD (on the dead list; its MR
   is gone). */
typedef struct xrt__rdma_entry {
    xrt__tree_node node; /* first: [start, end) */
    xrt__rdma_link link; /* LRU, detached, privates or dead list */
    unsigned access;
    int refs;
    int where;
    xrt_rdma_path path;
    int has_ident;       /* GPU memory: ident was read from its driver at registration */
    uint64_t ident;      /* the allocation's identity (xrt__rdma_ident) */
    const xrt_backend *be;
    void *mr; /* struct ibv_mr, or a libfabric context's struct fid_mr */
    struct xrt__rdma_ctx *ctx;
    struct xrt__rdma_entry *victim; /* next in a list of entries to deregister */
} xrt__rdma_entry;

#define XRT__RDMA_START(x) ((x)->node.start)
#define XRT__RDMA_END(x) ((x)->node.end)

static inline xrt__rdma_entry *xrt__rdma_of_link(xrt__rdma_link *l)
{
    return (xrt__rdma_entry *)(void *)((char *)l - offsetof(xrt__rdma_entry, link));
}

/* A registration in flight (ibv_reg_mr runs without the lock), published
   before the memory is looked up in xrt's registry. A free of the allocation
   it found (the same generation) marks it, and it is then refused; a free
   before the lookup is noted by generation, since the lookup may still have
   seen the allocation. xrt_rdma_notify_free marks it by range. */
#define XRT__RDMA_FREED_MAX 4
typedef struct xrt__rdma_pending {
    uintptr_t start, end;
    uint64_t gen;                          /* of the allocation found; 0 until then */
    uint64_t freed[XRT__RDMA_FREED_MAX];   /* generations freed while gen was 0 */
    int nfreed;
    int invalidated;
    int unregistered; /* the range found stopped being xrt's (xrt_host_unregister): not cached */
    struct xrt__rdma_pending *next;
} xrt__rdma_pending;

/* A reference: what an xrt_rdma_reg's opaque names, with a generation, so
   that a released (or copied and released) registration is recognised. */
typedef struct xrt__rdma_ref {
    uint32_t gen;  /* the last given out in this slot (0: none yet) */
    uint32_t next; /* next free slot */
    xrt__rdma_entry *x; /* NULL: free */
} xrt__rdma_ref;

enum { XRT__RDMA_AUTO, XRT__RDMA_NEVER, XRT__RDMA_FORCE };

typedef struct xrt__rdma_ctx {
    uintptr_t handle;
    unsigned fork_gen;
    struct ibv_context *vc;
    struct ibv_pd *pd;
    struct fid_domain *domain; /* a libfabric context's (vc and pd NULL) */
    uint64_t mr_mode;            /* its mr_mode */
    int owns; /* opened the device and allocated the PD */
    char name[64];
    int lock; /* everything below (xrt__rdma_lock_ctx) */
    xrt__tree trees[XRT__RDMA_CLASSES]; /* by remote access (xrt__rdma_class) */
    size_t count;                       /* entries in them */
    xrt__rdma_link lru;      /* unreferenced cached entries, oldest first */
    xrt__rdma_link detached; /* referenced entries no longer in the cache */
    xrt__rdma_link privates; /* private registrations */
    xrt__rdma_link dead;     /* referenced entries whose memory was freed */
    xrt__rdma_pending *pending;
    xrt__rdma_ref *refs;
    uint32_t nrefs, ref_free;
    size_t bytes, referenced, max_count, max_bytes;
    uint64_t hits, misses, evict_limit, evict_enomem, evict_flush, invalidations, uncached;
    int cache, dmabuf_mode, peer_mode, nic_dmabuf;
    char nic_dmabuf_why[160];
} xrt__rdma_ctx;

/* A context's lock guards a few pointer moves per call (never a system call
   on the hit path, never ibv_reg_mr): the core's spin lock. */
static void xrt__rdma_lock_ctx(xrt__rdma_ctx *c) { xrt__spin_lock(&c->lock); }
static void xrt__rdma_unlock_ctx(xrt__rdma_ctx *c) { xrt__spin_unlock(&c->lock); }

/* Handles: generation << 6 | slot. A handle from before a close, or from a
   closed slot now reused, no longer matches its slot. */
#define XRT__RDMA_SLOTS 64
static xrt__rdma_ctx *xrt__rdma_ctxs[XRT__RDMA_SLOTS];
static uintptr_t xrt__rdma_slot_gen[XRT__RDMA_SLOTS];
/* Calls under way on each slot's context (xrt__rdma_enter): a close frees
   the context only once they are done. They live outside the context, so
   a call that comes too late reads a count, not freed memory. A slot whose
   close is waiting for them is not taken again before it is done. */
static unsigned xrt__rdma_slot_users[XRT__RDMA_SLOTS];
static unsigned char xrt__rdma_slot_closing[XRT__RDMA_SLOTS];
static unsigned xrt__rdma_fork_gen;  /* bumped in the child of every fork() */
static size_t xrt__rdma_tracked;     /* entries (any list) and pending registrations, all contexts */
/* The reference tables of closed contexts, by context slot: the next
   context in the slot goes on with their generations (xrt__rdma_refs_adopt). */
static xrt__rdma_ref *xrt__rdma_slot_refs[XRT__RDMA_SLOTS];
static uint32_t xrt__rdma_slot_nrefs[XRT__RDMA_SLOTS];

/* The context table's lock is held across fork(), so that the child never
   starts with it taken; the child's contexts from before are marked foreign.
   Their own locks are never taken in the child (see xrt__rdma_forked). A
   load under way was another thread's: the child loads again. */
static void xrt__rdma_atfork_prepare(void) { pthread_mutex_lock(&xrt__rdma_lock); }
static void xrt__rdma_atfork_parent(void) { pthread_mutex_unlock(&xrt__rdma_lock); }
static void xrt__rdma_atfork_child(void)
{
    __atomic_add_fetch(&xrt__rdma_fork_gen, 1, __ATOMIC_RELEASE);
    /* the calls and closes under way were other threads', which the child has not */
    memset(xrt__rdma_slot_users, 0, sizeof xrt__rdma_slot_users);
    memset(xrt__rdma_slot_closing, 0, sizeof xrt__rdma_slot_closing);
    xrt__rdma_loading = 0;
    pthread_mutex_unlock(&xrt__rdma_lock);
}

/* Registered before main, so before the core's (xrt_init): prepare handlers
   run in reverse order, so fork() takes the core's locks before this one,
   the order of every other path (a free hook runs under the core's locks).
   Registered when the first context opened, after xrt_init, fork() would
   take this lock first and deadlock with xrt_shutdown's free hooks. */
__attribute__((constructor)) static void xrt__rdma_atfork_register(void)
{
    pthread_atfork(xrt__rdma_atfork_prepare, xrt__rdma_atfork_parent, xrt__rdma_atfork_child);
}

static void xrt__rdma_track(long delta) { __atomic_add_fetch(&xrt__rdma_tracked, (size_t)delta, __ATOMIC_RELEASE); }

static int xrt__rdma_forked(const xrt__rdma_ctx *c)
{
    return c->fork_gen != __atomic_load_n(&xrt__rdma_fork_gen, __ATOMIC_ACQUIRE);
}

/* Why a handle names no context of this process: XRT_ERROR_INVALID_HANDLE.
   c: the context in its slot, if any. */
static xrt_status xrt__rdma_ctx_bad(xrt_rdma_ctx h, const char *fn, const xrt__rdma_ctx *c) XRT__COLD;
static xrt_status xrt__rdma_ctx_bad(xrt_rdma_ctx h, const char *fn, const xrt__rdma_ctx *c)
{
    uintptr_t v = (uintptr_t)h;
    if (!v) return xrt_error(XRT_ERROR_INVALID_HANDLE, fn, "context is NULL");
    if (c && c->handle == v) /* a context from before fork() */
        return xrt_error(XRT_ERROR_INVALID_HANDLE, fn,
                         "context %p was opened before fork(), in the parent process: a child opens its own", (void *)h);
    return xrt_error(XRT_ERROR_INVALID_HANDLE, fn, "context %p %s", (void *)h,
                     v / XRT__RDMA_SLOTS <= __atomic_load_n(&xrt__rdma_slot_gen[v % XRT__RDMA_SLOTS], __ATOMIC_RELAXED)
                         ? "was closed" : "was never opened");
}

/* A call on the context of handle (or registration) v begins and ends. The
   count's increment and the slot's load in xrt__rdma_ctx_of, and the
   close's store and load, are sequentially consistent: either the call
   finds the slot emptied, or the close sees the call counted and waits. */
static inline void xrt__rdma_enter(uintptr_t v)
{
    __atomic_add_fetch(&xrt__rdma_slot_users[v % XRT__RDMA_SLOTS], 1, __ATOMIC_SEQ_CST);
}

static inline xrt_status xrt__rdma_leave(uintptr_t v, xrt_status st)
{
    __atomic_sub_fetch(&xrt__rdma_slot_users[v % XRT__RDMA_SLOTS], 1, __ATOMIC_RELEASE);
    return st;
}

/* The caller has entered h's slot (xrt__rdma_enter). */
static inline xrt_status xrt__rdma_ctx_of(xrt_rdma_ctx h, const char *fn, xrt__rdma_ctx **out)
{
    uintptr_t v = (uintptr_t)h;
    xrt__rdma_ctx *c = __atomic_load_n(&xrt__rdma_ctxs[v % XRT__RDMA_SLOTS], __ATOMIC_SEQ_CST);
    *out = NULL;
    if (XRT__UNLIKELY(!v || !c || c->handle != v || xrt__rdma_forked(c)))
        return xrt__rdma_ctx_bad(h, fn, c);
    *out = c;
    return XRT_SUCCESS;
}

static void xrt__rdma_on_free(void *user, uintptr_t base, size_t size, uint64_t gen);

/* auto, or a switch (xrt__env_switch's words; also never, force). */
static int xrt__rdma_env_mode(const char *var)
{
    const char *v = getenv(var);
    int on;
    if (!v || !v[0] || !strcasecmp(v, "auto")) return XRT__RDMA_AUTO;
    if (!strcasecmp(v, "never")) return XRT__RDMA_NEVER;
    if (!strcasecmp(v, "force")) return XRT__RDMA_FORCE;
    if ((on = xrt__env_parse_switch(v)) >= 0) return on ? XRT__RDMA_FORCE : XRT__RDMA_NEVER;
    xrt__log_warn_once("%.64s=%.64s: not a mode (valid: auto, " XRT__ENV_SWITCH_VALID ", never, force); using auto", var, v);
    return XRT__RDMA_AUTO;
}

/* A size (xrt__env_size's), which must also fit in a size_t. */
static size_t xrt__rdma_env_size(const char *var, size_t fallback)
{
    unsigned long long n = xrt__env_size(var, fallback);
    if (n <= (unsigned long long)SIZE_MAX) return (size_t)n;
    xrt__log_warn_once("%.64s=%.64s: not a size (at most %zu bytes); ignored", var, getenv(var), (size_t)SIZE_MAX);
    return fallback;
}

/* Does the device take dma-bufs? ibv_reg_dmabuf_mr with fd -1 fails with
   EBADF where the driver supports them (it got as far as looking the fd up)
   and with EOPNOTSUPP where it does not. */
static void xrt__rdma_probe_dmabuf(xrt__rdma_ctx *c)
{
    struct ibv_mr *mr;
    int e;
    c->nic_dmabuf = 0;
    if (!xrt__rdma_rt.reg_dmabuf_mr) {
        snprintf(c->nic_dmabuf_why, sizeof c->nic_dmabuf_why, "libibverbs has no ibv_reg_dmabuf_mr (rdma-core < 34)");
        return;
    }
    errno = 0;
    mr = xrt__rdma_rt.reg_dmabuf_mr(c->pd, 0, 4096, 0, -1, IBV_ACCESS_LOCAL_WRITE);
    e = errno;
    if (mr) xrt__rdma_rt.dereg_mr(mr);
    c->nic_dmabuf = mr || e == EBADF;
    if (!c->nic_dmabuf)
        snprintf(c->nic_dmabuf_why, sizeof c->nic_dmabuf_why,
                 "%s does not take dma-bufs (ibv_reg_dmabuf_mr with fd -1: %s, not EBADF)", c->name,
                 xrt__rdma_errno_name(e));
}

static void xrt__rdma_refs_adopt(xrt__rdma_ctx *c, int slot);

static xrt_status xrt__rdma_ctx_make(struct ibv_context *vc, struct ibv_pd *pd, struct fid_domain *domain,
                                     uint64_t mr_mode, int owns, const char *name, const char *fn, xrt_rdma_ctx *out)
{
    xrt__rdma_ctx *c;
    xrt__tree empty = XRT__TREE_INIT;
    xrt_status st;
    int i;
    /* every free of xrt memory reaches the caches (idempotent: one hook for all contexts) */
    if ((st = xrt_add_free_hook(xrt__rdma_on_free, NULL)) != XRT_SUCCESS) return st;
    if ((c = (xrt__rdma_ctx *)XRT_CALLOC(1, sizeof *c)) == NULL)
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, fn, "no memory for the context");
    c->vc = vc;
    c->pd = pd;
    c->owns = owns;
    snprintf(c->name, sizeof c->name, "%s", name);
    c->lru.prev = c->lru.next = &c->lru;
    c->detached.prev = c->detached.next = &c->detached;
    c->privates.prev = c->privates.next = &c->privates;
    c->dead.prev = c->dead.next = &c->dead;
    for (i = 0; i < XRT__RDMA_CLASSES; i++) c->trees[i] = empty;
    c->ref_free = UINT32_MAX;
    c->cache = xrt__rdma_env_mode("XRT_RDMA_CACHE") != XRT__RDMA_NEVER;
    c->dmabuf_mode = xrt__rdma_env_mode("XRT_RDMA_DMABUF");
    c->peer_mode = xrt__rdma_env_mode("XRT_RDMA_PEERMEM");
    c->max_count = xrt__rdma_env_size("XRT_RDMA_CACHE_ENTRIES", 4096);
    c->max_bytes = xrt__rdma_env_size("XRT_RDMA_CACHE_BYTES", XRT_RDMA_UNLIMITED);
    c->fork_gen = __atomic_load_n(&xrt__rdma_fork_gen, __ATOMIC_ACQUIRE);
    c->domain = domain;
    c->mr_mode = mr_mode;
    if (!domain) xrt__rdma_probe_dmabuf(c);
    else snprintf(c->nic_dmabuf_why, sizeof c->nic_dmabuf_why, "libfabric decides (fi_mr_regattr)");
    pthread_mutex_lock(&xrt__rdma_lock);
    for (i = 0; i < XRT__RDMA_SLOTS && (xrt__rdma_ctxs[i] || xrt__rdma_slot_closing[i]); i++) {}
    if (i < XRT__RDMA_SLOTS) {
        c->handle = ++xrt__rdma_slot_gen[i] * XRT__RDMA_SLOTS + (uintptr_t)i;
        xrt__rdma_refs_adopt(c, i);
        __atomic_store_n(&xrt__rdma_ctxs[i], c, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&xrt__rdma_lock);
    if (i == XRT__RDMA_SLOTS) {
        XRT_FREE(c);
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, fn, "at most %d contexts may be open", XRT__RDMA_SLOTS);
    }
    *out = (xrt_rdma_ctx)c->handle;
    return XRT_SUCCESS;
}

/* A verbs context: a device context and its protection domain. */
static xrt_status xrt__rdma_ctx_new(struct ibv_context *vc, struct ibv_pd *pd, int owns, const char *name,
                                    const char *fn, xrt_rdma_ctx *out)
{
    return xrt__rdma_ctx_make(vc, pd, NULL, 0, owns, name, fn, out);
}

static int xrt__rdma_has_active_port(struct ibv_context *vc)
{
    struct ibv_device_attr da;
    struct ibv_port_attr pa;
    int p;
    if (xrt__rdma_rt.query_device(vc, &da) != 0) return 0;
    for (p = 1; p <= da.phys_port_cnt; p++)
        if (xrt__rdma_query_port(vc, p, &pa) == 0 && pa.state == IBV_PORT_ACTIVE) return 1;
    return 0;
}

/* Opens the device called `name`, or the first with an active port. */
static xrt_status xrt__rdma_open_device(struct ibv_device **list, int n, const char *name, const char *from,
                                        struct ibv_context **vc, const char *fn)
{
    char names[256] = "", why[200];
    size_t used = 0;
    int i, e;
    for (i = 0; i < n; i++) {
        const char *dn = xrt__rdma_rt.get_device_name(list[i]);
        if (used < sizeof names) used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", dn);
        if (name && strcmp(dn, name) != 0) continue;
        errno = 0;
        if ((*vc = xrt__rdma_rt.open_device(list[i])) == NULL) {
            e = errno;
            xrt__rdma_describe(why, sizeof why, "ibv_open_device", e);
            return xrt_error(xrt__rdma_errno_status(e), fn, "%s: %s", dn, why);
        }
        if (name || xrt__rdma_has_active_port(*vc)) return XRT_SUCCESS;
        xrt__rdma_rt.close_device(*vc);
    }
    *vc = NULL;
    if (name) return xrt_error(XRT_ERROR_NOT_FOUND, fn, "%sno RDMA device named '%s' (devices: %s)", from, name, names);
    return xrt_error(XRT_ERROR_NO_DEVICE, fn, "no RDMA device has an active port (devices: %s)", names);
}

XRT_API xrt_status xrt_rdma_open(xrt_rdma_ctx *ctx, const char *device)
{
    static const char fn[] = "xrt_rdma_open";
    struct ibv_device **list;
    struct ibv_context *vc = NULL;
    struct ibv_pd *pd;
    const char *env = getenv("XRT_RDMA_DEVICE"), *from = "";
    char name[64], why[200];
    int n;
    xrt_status st;
    if (!ctx) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "ctx is NULL");
    *ctx = NULL;
    if (!device && env && env[0]) {
        device = env;
        from = "XRT_RDMA_DEVICE: ";
    }
    if ((st = xrt__rdma_devices(&list, &n, fn)) != XRT_SUCCESS) return st;
    if (!device) xrt__rdma_order_nearest(list, n, fn);
    st = xrt__rdma_open_device(list, n, device, from, &vc, fn);
    xrt__rdma_rt.free_device_list(list);
    if (st != XRT_SUCCESS) return st;
    snprintf(name, sizeof name, "%s", xrt__rdma_rt.get_device_name(vc->device));
    errno = 0;
    if ((pd = xrt__rdma_rt.alloc_pd(vc)) == NULL) {
        int e = errno;
        xrt__rdma_describe(why, sizeof why, "ibv_alloc_pd", e);
        xrt__rdma_rt.close_device(vc);
        return xrt_error(xrt__rdma_errno_status(e), fn, "%s: %s", name, why);
    }
    if ((st = xrt__rdma_ctx_new(vc, pd, 1, name, fn, ctx)) != XRT_SUCCESS) {
        xrt__rdma_rt.dealloc_pd(pd);
        xrt__rdma_rt.close_device(vc);
    }
    return st;
}

XRT_API xrt_status xrt_rdma_open_pd(xrt_rdma_ctx *ctx, struct ibv_pd *pd)
{
    static const char fn[] = "xrt_rdma_open_pd";
    xrt_status st;
    if (!ctx) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "ctx is NULL");
    *ctx = NULL;
    if (!pd || !pd->context) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "pd is NULL or has no device context");
    if ((st = xrt__rdma_load(fn)) != XRT_SUCCESS) return st;
    return xrt__rdma_ctx_new(pd->context, pd, 0, xrt__rdma_rt.get_device_name(pd->context->device), fn, ctx);
}

XRT_API xrt_status xrt_rdma_open_fabric(xrt_rdma_ctx *ctx, struct fid_domain *domain, uint64_t mr_mode)
{
    static const char fn[] = "xrt_rdma_open_fabric";
    if (!ctx) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "ctx is NULL");
    *ctx = NULL;
#ifdef XRT_ENABLE_FABRIC
    if (!domain || !domain->mr || !domain->mr->regattr)
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "domain is NULL or has no memory-region operations");
    if (mr_mode & (FI_MR_ENDPOINT | FI_MR_RAW))
        return xrt_error(XRT_ERROR_UNSUPPORTED, fn, "the domain's mr_mode has %s: its regions %s, which a cache shared "
                         "by every endpoint cannot do", (mr_mode & FI_MR_ENDPOINT) ? "FI_MR_ENDPOINT" : "FI_MR_RAW",
                         (mr_mode & FI_MR_ENDPOINT) ? "must be bound to one endpoint" : "have raw keys");
    return xrt__rdma_ctx_make(NULL, NULL, domain, mr_mode, 0, "libfabric", fn, ctx);
#else
    (void)domain;
    (void)mr_mode;
    return xrt_error(XRT_ERROR_UNSUPPORTED, fn, "built without libfabric: define XRT_ENABLE_FABRIC in the XRT_IMPL unit "
                     "(needs <rdma/fi_domain.h>, Debian's libfabric-dev)");
#endif
}

XRT_API xrt_status xrt_rdma_get_pd(xrt_rdma_ctx ctx, struct ibv_pd **pd)
{
    xrt__rdma_ctx *c;
    xrt_status st;
    if (!pd) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_rdma_get_pd", "pd is NULL");
    *pd = NULL;
    xrt__rdma_enter((uintptr_t)ctx);
    if ((st = xrt__rdma_ctx_of(ctx, "xrt_rdma_get_pd", &c)) == XRT_SUCCESS && c->domain)
        st = xrt_error(XRT_ERROR_UNSUPPORTED, "xrt_rdma_get_pd", "context %p is a libfabric domain's: it has no "
                       "verbs protection domain", (void *)ctx);
    else if (st == XRT_SUCCESS)
        *pd = c->pd;
    return xrt__rdma_leave((uintptr_t)ctx, st);
}

static const char *xrt__rdma_fork_status(void)
{
    if (!xrt__rdma_rt.is_fork_initialized) return "unknown";
    switch (xrt__rdma_rt.is_fork_initialized()) {
    case IBV_FORK_UNNEEDED: return "unneeded";
    case IBV_FORK_ENABLED: return "enabled";
    default: return "disabled";
    }
}

XRT_API xrt_status xrt_rdma_get_info(xrt_rdma_ctx ctx, xrt_rdma_context_info *info)
{
    xrt__rdma_ctx *c;
    xrt_status st;
    if (!info) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_rdma_get_info", "info is NULL");
    memset(info, 0, sizeof *info);
    xrt__rdma_enter((uintptr_t)ctx);
    if ((st = xrt__rdma_ctx_of(ctx, "xrt_rdma_get_info", &c)) != XRT_SUCCESS) return xrt__rdma_leave((uintptr_t)ctx, st);
    snprintf(info->device, sizeof info->device, "%s", c->name);
    info->context = c->vc;
    info->pd = c->pd;
    info->owns_pd = c->owns;
    info->dmabuf = c->nic_dmabuf;
    snprintf(info->dmabuf_reason, sizeof info->dmabuf_reason, "%s", c->nic_dmabuf ? "" : c->nic_dmabuf_why);
    info->cache = c->cache;
    info->fork = xrt__rdma_fork_status();
    return xrt__rdma_leave((uintptr_t)ctx, XRT_SUCCESS);
}

/* >> rdma impl: the cache (the core's interval trees and an LRU list) */
typedef char xrt__rdma_classes_fit[XRT__RDMA_REMOTE >> 1 == XRT__RDMA_CLASSES - 1 ? 1 : -1];

/* The index of the tree of the entries with the remote access of `access`. */
static inline unsigned xrt__rdma_class(unsigned access) { return (access & XRT__RDMA_REMOTE) >> 1; }

/* The entry of access `access`'s tree with the greatest start <= p. */
static inline xrt__rdma_entry *xrt__rdma_floor(const xrt__rdma_ctx *c, unsigned access, uintptr_t p)
{
    return (xrt__rdma_entry *)(void *)xrt__tree_floor(&c->trees[xrt__rdma_class(access)], p);
}

static inline void xrt__rdma_list_add(xrt__rdma_link *head, xrt__rdma_link *n)
{
    n->prev = head->prev;
    n->next = head;
    head->prev->next = n;
    head->prev = n;
}

static inline void xrt__rdma_list_del(xrt__rdma_link *n)
{
    n->prev->next = n->next;
    n->next->prev = n->prev;
    n->prev = n->next = n;
}

/* An MR registered with `have` serves a request for `want`: exactly the same
   remote access (a local-only request never gets a live remote key, and remote
   access is never widened behind the caller's back), at least the local. */
static inline int xrt__rdma_serves(unsigned have, unsigned want)
{
    return !((have ^ want) & XRT__RDMA_REMOTE) && !(want & ~have);
}

static void xrt__rdma_insert(xrt__rdma_ctx *c, xrt__rdma_entry *x)
{
    x->where = XRT__RDMA_IN_CACHE;
    xrt__tree_insert(&c->trees[xrt__rdma_class(x->access)], &x->node);
    c->count++;
    c->bytes += XRT__RDMA_END(x) - XRT__RDMA_START(x);
    xrt__rdma_track(1);
}

/* Takes x out of the tree (and the LRU list if unreferenced). */
static void xrt__rdma_remove(xrt__rdma_ctx *c, xrt__rdma_entry *x)
{
    xrt__tree_remove(&c->trees[xrt__rdma_class(x->access)], &x->node);
    c->count--;
    if (!x->refs) xrt__rdma_list_del(&x->link);
    else c->referenced--;
    c->bytes -= XRT__RDMA_END(x) - XRT__RDMA_START(x);
    xrt__rdma_track(-1);
}

/* The entries of `access`'s tree overlapping [s, e), in order, onto a list
   (through ->victim) that *tail ends, and out of the tree; returns the new
   end of the list. */
static xrt__rdma_entry **xrt__rdma_take_overlapping(xrt__rdma_ctx *c, unsigned access, uintptr_t s, uintptr_t e,
                                                    xrt__rdma_entry **tail)
{
    xrt__tree_node *n = xrt__tree_collect(&c->trees[xrt__rdma_class(access)], s, e), *next;
    for (; n; n = next) {
        xrt__rdma_entry *x = (xrt__rdma_entry *)(void *)n;
        next = n->next;
        xrt__rdma_remove(c, x);
        *tail = x;
        tail = &x->victim;
    }
    *tail = NULL;
    return tail;
}

/* Widens [*s, *e) and *access over the entries overlapping [s0, e0) that
   have the same remote access; the new registration then replaces them. */
static void xrt__rdma_widen(const xrt__rdma_ctx *c, uintptr_t s0, uintptr_t e0, uintptr_t *s, uintptr_t *e,
                            unsigned *access)
{
    xrt__tree_node *n;
    for (n = xrt__tree_collect(&c->trees[xrt__rdma_class(*access)], s0, e0); n; n = n->next) {
        const xrt__rdma_entry *x = (const xrt__rdma_entry *)(void *)n;
        if (n->start < *s) *s = n->start;
        if (n->end > *e) *e = n->end;
        *access |= x->access;
    }
}

/* Why unreferenced entries go (xrt_rdma_cache_stats counts each). */
enum { XRT__RDMA_EVICT_LIMIT, XRT__RDMA_EVICT_ENOMEM, XRT__RDMA_EVICT_FLUSH };

/* Unreferenced entries, oldest first, until the limits hold (all of them
   after ENOMEM or for a flush), onto *victims. */
static void xrt__rdma_evict(xrt__rdma_ctx *c, int reason, xrt__rdma_entry **victims)
{
    int all = reason != XRT__RDMA_EVICT_LIMIT;
    while (c->lru.next != &c->lru && (all || c->count > c->max_count || c->bytes > c->max_bytes)) {
        xrt__rdma_entry *x = xrt__rdma_of_link(c->lru.next);
        xrt__rdma_remove(c, x);
        x->victim = *victims;
        *victims = x;
        if (reason == XRT__RDMA_EVICT_LIMIT) c->evict_limit++;
        else if (reason == XRT__RDMA_EVICT_ENOMEM) c->evict_enomem++;
        else c->evict_flush++;
    }
}

/* ibv_dereg_mr or fi_close of an entry's MR; 0 or an errno. */
static int xrt__rdma_dereg(const xrt__rdma_ctx *c, void *mr)
{
#ifdef XRT_ENABLE_FABRIC
    if (c->domain) return -fi_close(&((struct fid_mr *)mr)->fid);
#endif
    (void)c;
    return xrt__rdma_rt.dereg_mr((struct ibv_mr *)mr) ? errno : 0;
}

/* Deregisters and frees a list of entries that nothing references any more
   (no lock held: ibv_dereg_mr is a system call). In a fork() child the MRs
   are the parent's and are left alone. */
static void xrt__rdma_destroy(xrt__rdma_entry *x)
{
    while (x) {
        xrt__rdma_entry *next = x->victim;
        if (x->mr && !xrt__rdma_forked(x->ctx)) {
            int e = xrt__rdma_dereg(x->ctx, x->mr);
            if (e) xrt_log(XRT_LOG_WARN, "rdma: %s of [%p, %p): %s", x->ctx->domain ? "fi_close" : "ibv_dereg_mr",
                           (void *)XRT__RDMA_START(x), (void *)XRT__RDMA_END(x), strerror(e));
        }
        XRT_FREE(x);
        x = next;
    }
}

/* Replaced entries: the referenced ones stay alive, detached; the others go. */
static void xrt__rdma_retire(xrt__rdma_ctx *c, xrt__rdma_entry *taken, xrt__rdma_entry **victims)
{
    while (taken) {
        xrt__rdma_entry *next = taken->victim;
        if (taken->refs) {
            taken->where = XRT__RDMA_DETACHED;
            xrt__rdma_list_add(&c->detached, &taken->link);
            xrt__rdma_track(1);
        } else {
            taken->victim = *victims;
            *victims = taken;
        }
        taken = next;
    }
}

static inline void xrt__rdma_unref_last(xrt__rdma_ctx *c, xrt__rdma_entry *x, xrt__rdma_entry **victims);

/* A referenced entry whose memory is gone (freed, or found stale) goes to
   the dead list, where it waits for its release; its MR is deregistered at
   once (its keys stop working), but not under the lock: a driver call can
   block, and a driver's callback may come back into xrt. So the MR stays
   with the entry, which the caller pins (one more reference) and chains
   onto *dying for xrt__rdma_bury. The caller holds the lock; returns 1. */
static int xrt__rdma_kill_held(xrt__rdma_ctx *c, xrt__rdma_entry *x, int forked, xrt__rdma_entry **dying)
{
    x->where = XRT__RDMA_DEAD;
    xrt__rdma_list_add(&c->dead, &x->link);
    c->invalidations++;
    if (x->mr && !forked) { /* in a fork() child the MR is the parent's */
        x->refs++;
        x->victim = *dying;
        *dying = x;
    } else {
        x->mr = NULL;
    }
    return 1;
}

/* Deregisters the MRs of the entries xrt__rdma_kill_held chained, no lock
   held (the caller keeps their contexts open), then drops its pins: an
   entry released meanwhile goes now. */
static void xrt__rdma_bury(xrt__rdma_entry *dying)
{
    while (dying) {
        xrt__rdma_entry *x = dying, *victims = NULL;
        xrt__rdma_ctx *c = x->ctx;
        int e;
        dying = x->victim;
        if ((e = xrt__rdma_dereg(c, x->mr)) != 0)
            xrt_log(XRT_LOG_WARN, "rdma: %s of [%p, %p): %s", c->domain ? "fi_close" : "ibv_dereg_mr",
                    (void *)XRT__RDMA_START(x), (void *)XRT__RDMA_END(x), strerror(e));
        xrt__rdma_lock_ctx(c);
        x->mr = NULL;
        if (--x->refs == 0) xrt__rdma_unref_last(c, x, &victims);
        xrt__rdma_unlock_ctx(c);
        xrt__rdma_destroy(victims);
    }
}

/* >> rdma impl: references. An xrt_rdma_reg's opaque is a handle: the
   reference's generation << 32 | its slot << 6 | the context's slot. A
   released reference's slot no longer matches, so releasing a registration
   (or a copy of it) twice is XRT_ERROR_INVALID_HANDLE, not a use after free.
   No handle is ever given out twice in a process: each reference slot counts
   its own generations, a slot that reached the last one is never used
   again, and a context takes over the table of the context closed before it
   in its slot (xrt__rdma_refs_adopt, xrt__rdma_refs_leave), so that it goes
   on with that one's generations. A kept copy of a registration therefore
   never matches another one, of its context or of a later one. */
#define XRT__RDMA_REF_BITS 26
#define XRT__RDMA_REF_MAX ((uint32_t)1 << XRT__RDMA_REF_BITS)

/* Frees slot i of c's table, unless its generations are all used. */
static inline void xrt__rdma_ref_free(xrt__rdma_ctx *c, uint32_t i)
{
    c->refs[i].x = NULL;
    if (c->refs[i].gen == UINT32_MAX) return; /* retired */
    c->refs[i].next = c->ref_free;
    c->ref_free = i;
}

/* The table left in context slot `slot` becomes c's (no reference is live
   in it); the caller holds xrt__rdma_lock. */
static void xrt__rdma_refs_adopt(xrt__rdma_ctx *c, int slot)
{
    uint32_t i;
    c->refs = xrt__rdma_slot_refs[slot];
    c->nrefs = xrt__rdma_slot_nrefs[slot];
    xrt__rdma_slot_refs[slot] = NULL;
    xrt__rdma_slot_nrefs[slot] = 0;
    c->ref_free = UINT32_MAX;
    for (i = c->nrefs; i-- > 0;) xrt__rdma_ref_free(c, i); /* the lowest slots first */
}

/* c's table stays with its context slot for the next context there; the
   caller holds xrt__rdma_lock and c's lock. */
static void xrt__rdma_refs_leave(xrt__rdma_ctx *c)
{
    int slot = (int)(c->handle % XRT__RDMA_SLOTS);
    XRT_FREE(xrt__rdma_slot_refs[slot]); /* none: the slot was c's */
    xrt__rdma_slot_refs[slot] = c->refs;
    xrt__rdma_slot_nrefs[slot] = c->nrefs;
    c->refs = NULL;
    c->nrefs = 0;
    c->ref_free = UINT32_MAX;
}

/* A new reference to x, or 0 without memory for it; the caller holds the lock. */
static inline uintptr_t xrt__rdma_ref_new(xrt__rdma_ctx *c, xrt__rdma_entry *x)
{
    uint32_t i;
    if (c->ref_free == UINT32_MAX) {
        uint32_t n = c->nrefs ? c->nrefs * 2 : 64, k;
        xrt__rdma_ref *t;
        if (c->nrefs >= XRT__RDMA_REF_MAX) return 0;
        if (n > XRT__RDMA_REF_MAX) n = XRT__RDMA_REF_MAX;
        if ((t = (xrt__rdma_ref *)XRT_REALLOC(c->refs, n * sizeof *t)) == NULL) return 0;
        for (k = c->nrefs; k < n; k++) {
            t[k].gen = 0;
            t[k].x = NULL;
            t[k].next = k + 1 < n ? k + 1 : UINT32_MAX;
        }
        c->ref_free = c->nrefs;
        c->refs = t;
        c->nrefs = n;
    }
    i = c->ref_free;
    c->ref_free = c->refs[i].next;
    c->refs[i].x = x;
    return ((uintptr_t)++c->refs[i].gen << 32) | ((uintptr_t)i << 6) | (c->handle % XRT__RDMA_SLOTS);
}

/* The live reference behind handle h, or NULL; the caller holds the lock. */
static inline xrt__rdma_ref *xrt__rdma_ref_at(const xrt__rdma_ctx *c, uintptr_t h)
{
    uint32_t i = (uint32_t)(h >> 6) & (XRT__RDMA_REF_MAX - 1), gen = (uint32_t)(h >> 32);
    if (i >= c->nrefs || !c->refs[i].x || c->refs[i].gen != gen) return NULL;
    return &c->refs[i];
}

static inline void xrt__rdma_ref_drop(xrt__rdma_ctx *c, xrt__rdma_ref *ref)
{
    xrt__rdma_ref_free(c, (uint32_t)(ref - c->refs));
}

/* >> rdma impl: registration paths */
typedef struct xrt__rdma_req {
    const void *ptr;               /* what the caller asked for */
    size_t size;
    uintptr_t start, end;          /* what is registered */
    unsigned access;
    xrt_memory_type type;          /* of the memory (XRT_MEMORY_UNKNOWN: plain host memory) */
    int device;                    /* the device it is on (device and managed memory) */
    const xrt_backend *be;         /* the backend that knows the memory, or NULL */
    uintptr_t base;                /* the xrt allocation holding it (0: not xrt's) */
    size_t alloc_size;
    uint64_t gen;                  /* that allocation's generation (0: not xrt's) */
} xrt__rdma_req;

/* What decides which paths device memory may take (a struct, so that the
   decision can be tested on a machine without any of them). */
typedef struct xrt__rdma_facts {
    int dmabuf_mode, peer_mode; /* XRT_RDMA_DMABUF, XRT_RDMA_PEERMEM */
    int have_reg_dmabuf;        /* libibverbs has ibv_reg_dmabuf_mr */
    int have_export;            /* this xrt can export device memory as a dma-buf */
    int nic_dmabuf;             /* the device takes dma-bufs */
    const char *nic_why;
    int peer;                   /* a peer-memory driver serves the memory's backend */
    const char *peer_why;
} xrt__rdma_facts;

typedef struct xrt__rdma_plan {
    int dmabuf, peer;           /* 1: try it */
    char dmabuf_why[192], peer_why[192]; /* why not, or (after trying) why it failed */
} xrt__rdma_plan;

static void xrt__rdma_plan_device(const xrt__rdma_facts *f, xrt__rdma_plan *p)
{
    memset(p, 0, sizeof *p);
    if (f->dmabuf_mode == XRT__RDMA_NEVER)
        snprintf(p->dmabuf_why, sizeof p->dmabuf_why, "disabled by XRT_RDMA_DMABUF=0");
    else if (!f->have_reg_dmabuf)
        snprintf(p->dmabuf_why, sizeof p->dmabuf_why, "libibverbs has no ibv_reg_dmabuf_mr (rdma-core < 34)");
    else if (!f->have_export)
        snprintf(p->dmabuf_why, sizeof p->dmabuf_why, "this xrt cannot export device memory as a dma-buf");
    else if (f->dmabuf_mode == XRT__RDMA_AUTO && !f->nic_dmabuf)
        snprintf(p->dmabuf_why, sizeof p->dmabuf_why, "%s", f->nic_why);
    else
        p->dmabuf = 1;
    if (f->peer_mode == XRT__RDMA_NEVER)
        snprintf(p->peer_why, sizeof p->peer_why, "disabled by XRT_RDMA_PEERMEM=0");
    else if (f->peer_mode == XRT__RDMA_AUTO && !f->peer)
        snprintf(p->peer_why, sizeof p->peer_why, "%s", f->peer_why);
    else
        p->peer = 1;
}

static int xrt__rdma_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* Is a peer-memory driver there for this backend's device memory? The
   backend says what its memory is (XRT_BACKEND_*_MEMORY). */
static int xrt__rdma_peer_present(const xrt_backend *be, char *why, size_t n)
{
    uint32_t flags = be ? be->flags : 0;
    if (flags & XRT_BACKEND_NVIDIA_MEMORY) {
        if (xrt__rdma_exists("/sys/module/nvidia_peermem") || xrt__rdma_exists("/sys/module/nv_peer_mem")) return 1;
        snprintf(why, n, "no peer-memory driver: /sys/module/nvidia_peermem is absent (modprobe nvidia_peermem)");
    } else if (flags & XRT_BACKEND_AMD_MEMORY) {
        if (xrt__rdma_exists("/dev/kfd") && xrt__rdma_exists("/sys/kernel/mm/memory_peers/amdkfd")) return 1;
        snprintf(why, n, "no peer-memory client: /sys/kernel/mm/memory_peers/amdkfd is absent (amdgpu without it)");
    } else {
        snprintf(why, n, "backend %s has no known peer-memory driver", be && be->name ? be->name : "(unknown)");
    }
    return 0;
}

/* ibv_reg_mr of [start, end); on failure `why` names the call and errno. */
static struct ibv_mr *xrt__rdma_try_reg_mr(xrt__rdma_ctx *c, const xrt__rdma_req *r, int *err, char *why, size_t n)
{
    struct ibv_mr *mr;
    errno = 0;
    mr = xrt__rdma_rt.reg_mr(c->pd, (void *)r->start, r->end - r->start, (int)r->access);
    *err = mr ? 0 : errno ? errno : EINVAL;
    if (!mr) {
        xrt__rdma_describe(why, n, "ibv_reg_mr", *err);
        xrt__rdma_memlock_hint(why, n, *err);
    }
    return mr;
}

static struct ibv_mr *xrt__rdma_try_dmabuf(xrt__rdma_ctx *c, const xrt__rdma_req *r, int *err, char *why, size_t n)
{
    struct ibv_mr *mr;
    uint64_t offset = 0;
    int fd = -1;
    /* the allocation's own backend, with the record already found (the
       backend logs a failure; the next path is tried) */
    xrt_status st = r->be->mem_export_dmabuf(r->be, (const void *)r->start, r->end - r->start, &fd, &offset);
    if (st != XRT_SUCCESS) {
        *err = EOPNOTSUPP;
        snprintf(why, n, "xrt_mem_export_dmabuf: %s", xrt_status_string(st));
        return NULL;
    }
    errno = 0;
    mr = xrt__rdma_rt.reg_dmabuf_mr(c->pd, offset, r->end - r->start, (uint64_t)r->start, fd, (int)r->access);
    *err = mr ? 0 : errno ? errno : EINVAL;
    close(fd); /* the MR holds its own reference to the dma-buf */
    if (!mr) xrt__rdma_describe(why, n, "ibv_reg_dmabuf_mr", *err);
    return mr;
}

/* Device memory that is not host memory (the cpu backend's is). */
static int xrt__rdma_is_device(xrt_memory_type type, const xrt_backend *be)
{
    return type == XRT_MEMORY_DEVICE && be && !(be->flags & XRT_BACKEND_HOST_MEMORY);
}

static const char *const xrt__rdma_mem_names[] = {"host", "host", "pinned host", "device", "managed"};

#ifdef XRT_ENABLE_FABRIC
/* libfabric's access bits for verbs-valued flags: local use as a source
   always, as a destination with LOCAL_WRITE, remote use as asked (an
   atomic reads and writes). */
static uint64_t xrt__rdma_fabric_access(unsigned access)
{
    uint64_t a = FI_SEND | FI_WRITE;
    if (access & XRT_RDMA_LOCAL_WRITE) a |= FI_RECV | FI_READ;
    if (access & (XRT_RDMA_REMOTE_WRITE | XRT_RDMA_REMOTE_ATOMIC)) a |= FI_REMOTE_WRITE;
    if (access & (XRT_RDMA_REMOTE_READ | XRT_RDMA_REMOTE_ATOMIC)) a |= FI_REMOTE_READ;
    return a;
}

/* xrt's keys, where the provider does not choose them: one counter for the
   process, so that two contexts on one domain never ask for the same key; a
   key the domain has already (the application's own regions) is skipped,
   a bounded number of times. */
#define XRT__RDMA_KEY_TRIES 64
static uint64_t xrt__rdma_fabric_key;

static int xrt__rdma_fabric_regattr(const xrt__rdma_ctx *c, struct fi_mr_attr *a, struct fid_mr **mr)
{
    int rc, tries = 0;
    if (c->mr_mode & FI_MR_PROV_KEY) return fi_mr_regattr(c->domain, a, 0, mr);
    do a->requested_key = __atomic_add_fetch(&xrt__rdma_fabric_key, 1, __ATOMIC_RELAXED);
    while ((rc = fi_mr_regattr(c->domain, a, 0, mr)) == -FI_ENOKEY && ++tries < XRT__RDMA_KEY_TRIES);
    return rc;
}

/* fi_mr_regattr of [start, end), with the memory's interface and device
   from xrt's registry (the allocation's backend says whose memory it is). */
static void *xrt__rdma_fabric_reg(xrt__rdma_ctx *c, const xrt__rdma_req *r, xrt_rdma_path *path, int *err, char *why,
                                  size_t n)
{
    struct fi_mr_attr a;
    struct iovec iov;
    struct fid_mr *mr = NULL;
    uint32_t flags = r->be ? r->be->flags : 0;
    int rc;
    memset(&a, 0, sizeof a);
    iov.iov_base = (void *)r->start;
    iov.iov_len = r->end - r->start;
    a.mr_iov = &iov;
    a.iov_count = 1;
    a.access = xrt__rdma_fabric_access(r->access);
    a.iface = FI_HMEM_SYSTEM;
    if ((r->type == XRT_MEMORY_DEVICE || r->type == XRT_MEMORY_MANAGED) && !(flags & XRT_BACKEND_HOST_MEMORY)) {
        if (flags & XRT_BACKEND_NVIDIA_MEMORY) a.iface = FI_HMEM_CUDA, a.device.cuda = r->device;
        else if (flags & XRT_BACKEND_AMD_MEMORY) a.iface = FI_HMEM_ROCR, a.device.reserved = (uint64_t)r->device;
        else {
            *err = EOPNOTSUPP;
            snprintf(why, n, "backend %s's device memory has no libfabric interface", r->be->name);
            return NULL;
        }
    }
    *path = a.iface == FI_HMEM_SYSTEM ? XRT_RDMA_PATH_HOST : XRT_RDMA_PATH_PEER;
    rc = xrt__rdma_fabric_regattr(c, &a, &mr);
    *err = rc ? -rc : 0;
    if (rc) {
        /* libfabric's own codes (FI_ENOKEY and others above 255) are not strerror's */
        snprintf(why, n, "%s: %s (%d)",
                 a.iface == FI_HMEM_CUDA ? "fi_mr_regattr (FI_HMEM_CUDA)"
                 : a.iface == FI_HMEM_ROCR ? "fi_mr_regattr (FI_HMEM_ROCR)" : "fi_mr_regattr",
                 fi_strerror(-rc), -rc);
        xrt__rdma_memlock_hint(why, n, -rc);
        return NULL;
    }
    return mr;
}
#endif

/* Registers r through the first path that works. On failure *err is the last
   errno and `why` names every path and why it was skipped or failed. */
static void *xrt__rdma_reg_paths(xrt__rdma_ctx *c, const xrt__rdma_req *r, xrt_rdma_path *path, int *err, char *why,
                                 size_t n)
{
    xrt__rdma_facts f;
    xrt__rdma_plan p;
    char peer_why[160];
    struct ibv_mr *mr;
#ifdef XRT_ENABLE_FABRIC
    if (c->domain) return xrt__rdma_fabric_reg(c, r, path, err, why, n);
#endif
    if (!xrt__rdma_is_device(r->type, r->be)) {
        *path = XRT_RDMA_PATH_HOST;
        return xrt__rdma_try_reg_mr(c, r, err, why, n);
    }
    memset(&f, 0, sizeof f);
    f.dmabuf_mode = c->dmabuf_mode;
    f.peer_mode = c->peer_mode;
    f.have_reg_dmabuf = xrt__rdma_rt.reg_dmabuf_mr != NULL;
    f.have_export = 1;
    f.nic_dmabuf = c->nic_dmabuf;
    f.nic_why = c->nic_dmabuf_why;
    f.peer = xrt__rdma_peer_present(r->be, peer_why, sizeof peer_why);
    f.peer_why = peer_why;
    xrt__rdma_plan_device(&f, &p);
    *err = EOPNOTSUPP;
    if (p.dmabuf) {
        *path = XRT_RDMA_PATH_DMABUF;
        if ((mr = xrt__rdma_try_dmabuf(c, r, err, p.dmabuf_why, sizeof p.dmabuf_why)) != NULL) {
            xrt_log(XRT_LOG_DEBUG, "rdma: %s: %zu bytes of %s device memory at %p: through a dma-buf", c->name,
                    r->size, r->be ? r->be->name : "?", r->ptr);
            return mr;
        }
    }
    if (p.peer) {
        *path = XRT_RDMA_PATH_PEER;
        if ((mr = xrt__rdma_try_reg_mr(c, r, err, p.peer_why, sizeof p.peer_why)) != NULL) {
            xrt_log(XRT_LOG_DEBUG, "rdma: %s: %zu bytes of %s device memory at %p: through peer memory%s%s%s", c->name,
                    r->size, r->be ? r->be->name : "?", r->ptr, p.dmabuf ? " (dma-buf failed: " : "",
                    p.dmabuf ? p.dmabuf_why : "", p.dmabuf ? ")" : "");
            return mr;
        }
    }
    *path = XRT_RDMA_PATH_NONE;
    snprintf(why, n, "no path registers device memory of backend %s: dma-buf: %s; peer memory: %s",
             r->be->name, p.dmabuf_why, p.peer_why);
    return NULL;
}

/* The final error of a registration that failed. */
static xrt_status xrt__rdma_reg_error(const xrt__rdma_req *r, const char *name, int err, const char *why)
{
    xrt_status st = xrt__rdma_errno_status(err);
    return xrt_error(st == XRT_ERROR_SYSTEM ? XRT_ERROR_BACKEND : st, "xrt_rdma_register",
                     "%s: %zu bytes of %s memory at %p: %s", name, r->size,
                     xrt__rdma_mem_names[r->type <= XRT_MEMORY_MANAGED ? r->type : 0], r->ptr, why);
}

/* >> rdma impl: the identity of GPU memory. A cached registration of GPU
   memory is checked on every hit against the driver's own view of the
   allocation, so that memory freed behind xrt's back (cudaFree, hipFree on
   xrt's pointer) and allocated again at the same address is not served the
   old MR: CUDA's buffer id (cuPointerGetAttribute with
   CU_POINTER_ATTRIBUTE_BUFFER_ID, the driver API), HIP's allocation base
   and size (hipMemGetAddressRange). The entry points are looked up in the
   libraries the backend already loaded (RTLD_NOLOAD), once; without them
   nothing is checked. A pointer-sized lookup in the driver, no system call.
   The lookup holds no lock: a thread can wait in dlopen for the loader's
   lock, and fork() may come at any moment (a child would start with the
   lock taken). Threads that look up at once store the same pointers,
   atomically; a child whose parent's lookup had not ended makes its own. */
#define XRT__RDMA_CU_POINTER_ATTRIBUTE_BUFFER_ID 7
#define XRT__RDMA_CU_POINTER_ATTRIBUTE_RANGE_START_ADDR 11
#define XRT__RDMA_CU_POINTER_ATTRIBUTE_RANGE_SIZE 12
typedef int (*xrt__rdma_cu_attr_fn)(void *data, int attribute, unsigned long long ptr);
typedef int (*xrt__rdma_hip_range_fn)(void **base, size_t *size, void *ptr);
static struct {
    int state; /* 0: not looked up, 1: done */
    xrt__rdma_cu_attr_fn cu_attr;
    xrt__rdma_hip_range_fn hip_range;
} xrt__rdma_id;

static void *xrt__rdma_loaded_sym(const char *const *libs, const char *sym)
{
    void *f = NULL, *h;
    for (; *libs && !f; libs++)
        if ((h = dlopen(*libs, RTLD_LAZY | RTLD_NOLOAD)) != NULL) {
            f = dlsym(h, sym);
            dlclose(h); /* NOLOAD: the backend keeps it loaded */
        }
    return f;
}
/* the lookup; the tests hold a thread inside it */
static void *(*xrt__rdma_id_sym)(const char *const *libs, const char *sym) = xrt__rdma_loaded_sym;

static void xrt__rdma_id_load(void)
{
    static const char *const cuda[] = {"libcuda.so.1", "libcuda.so", NULL};
    static const char *const hip[] = {"libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so", NULL};
    xrt__rdma_cu_attr_fn cu_attr;
    xrt__rdma_hip_range_fn hip_range;
    void *f;
    if ((f = xrt__rdma_id_sym(cuda, "cuPointerGetAttribute")) != NULL) {
        memcpy(&cu_attr, &f, sizeof f);
        __atomic_store_n(&xrt__rdma_id.cu_attr, cu_attr, __ATOMIC_RELAXED);
    }
    if ((f = xrt__rdma_id_sym(hip, "hipMemGetAddressRange")) != NULL) {
        memcpy(&hip_range, &f, sizeof f);
        __atomic_store_n(&xrt__rdma_id.hip_range, hip_range, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&xrt__rdma_id.state, 1, __ATOMIC_RELEASE);
}

/* The driver's entry points for be's memory: NULL where be's memory is not
   that driver's, or the driver lacks it. */
static void xrt__rdma_driver(const xrt_backend *be, xrt__rdma_cu_attr_fn *cu_attr, xrt__rdma_hip_range_fn *hip_range)
{
    uint32_t flags = be ? be->flags : 0;
    *cu_attr = NULL;
    *hip_range = NULL;
    if (!(flags & (XRT_BACKEND_NVIDIA_MEMORY | XRT_BACKEND_AMD_MEMORY))) return;
    if (!__atomic_load_n(&xrt__rdma_id.state, __ATOMIC_ACQUIRE)) xrt__rdma_id_load();
    if (flags & XRT_BACKEND_NVIDIA_MEMORY) *cu_attr = __atomic_load_n(&xrt__rdma_id.cu_attr, __ATOMIC_RELAXED);
    if (flags & XRT_BACKEND_AMD_MEMORY) *hip_range = __atomic_load_n(&xrt__rdma_id.hip_range, __ATOMIC_RELAXED);
}

/* 1 and *id: the identity of the GPU allocation holding p; 0: not GPU
   memory, or its driver cannot tell. */
static int xrt__rdma_ident(const xrt_backend *be, uintptr_t p, uint64_t *id)
{
    xrt__rdma_cu_attr_fn cu_attr;
    xrt__rdma_hip_range_fn hip_range;
    xrt__rdma_driver(be, &cu_attr, &hip_range);
    if (cu_attr) {
        unsigned long long v = 0;
        if (cu_attr(&v, XRT__RDMA_CU_POINTER_ATTRIBUTE_BUFFER_ID, (unsigned long long)p) != 0) return 0;
        *id = v;
        return 1;
    }
    if (hip_range) {
        void *base = NULL;
        size_t size = 0;
        if (hip_range(&base, &size, (void *)p) != 0) return 0;
        *id = (uint64_t)(uintptr_t)base * 1000003u ^ (uint64_t)size;
        return 1;
    }
    return 0;
}

/* 1 and the allocation holding p as the driver of be's memory tells it
   (cudaMalloc'd memory, of which the backend reports no extent); 0: not
   GPU memory, or its driver cannot tell. */
static int xrt__rdma_driver_range(const xrt_backend *be, uintptr_t p, uintptr_t *base, size_t *size)
{
    xrt__rdma_cu_attr_fn cu_attr;
    xrt__rdma_hip_range_fn hip_range;
    xrt__rdma_driver(be, &cu_attr, &hip_range);
    if (cu_attr) {
        unsigned long long b = 0;
        size_t n = 0;
        if (cu_attr(&b, XRT__RDMA_CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, (unsigned long long)p) != 0 ||
            cu_attr(&n, XRT__RDMA_CU_POINTER_ATTRIBUTE_RANGE_SIZE, (unsigned long long)p) != 0)
            return 0;
        *base = (uintptr_t)b;
        *size = n;
        return 1;
    }
    if (hip_range) {
        void *b = NULL;
        size_t n = 0;
        if (hip_range(&b, &n, (void *)p) != 0) return 0;
        *base = (uintptr_t)b;
        *size = n;
        return 1;
    }
    return 0;
}

/* A hit on GPU memory whose driver now names another allocation: the entry
   is stale (its memory was freed behind xrt's back) and leaves the cache;
   held, it is killed (xrt__rdma_kill_held). The caller holds the lock;
   returns 1 if x was held. */
static int xrt__rdma_stale(xrt__rdma_ctx *c, xrt__rdma_entry *x, xrt__rdma_entry **victims, xrt__rdma_entry **dying)
{
    xrt__rdma_remove(c, x);
    if (x->refs) return xrt__rdma_kill_held(c, x, xrt__rdma_forked(c), dying);
    c->invalidations++;
    x->victim = *victims;
    *victims = x;
    return 0;
}

/* >> rdma impl: register and release */
static const xrt_rdma_reg xrt__rdma_no_reg = {0, 0, 0, 0, XRT_RDMA_PATH_NONE, 0, NULL, NULL, NULL, NULL, 0};
/* The hit path in one function: a hit is a few dozen instructions, calls cost
   a noticeable part of them. */
#define XRT__RDMA_HOT __attribute__((always_inline))

static inline void xrt__rdma_fill(xrt_rdma_reg *reg, const xrt__rdma_entry *x, const xrt__rdma_req *r, uintptr_t handle)
{
#ifdef XRT_ENABLE_FABRIC
    if (x->ctx->domain) {
        reg->lkey = reg->rkey = 0;
        reg->mr = NULL;
        reg->fabric_mr = (struct fid_mr *)x->mr;
        reg->desc = fi_mr_desc(reg->fabric_mr);
        /* the provider gives every region a key; one without remote access reports none, as rkey does */
        reg->key = (x->access & XRT__RDMA_REMOTE) ? fi_mr_key(reg->fabric_mr) : 0;
        reg->addr = (x->ctx->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)r->ptr
                                                       : (uint64_t)((uintptr_t)r->ptr - XRT__RDMA_START(x));
    } else
#endif
    {
        reg->lkey = ((struct ibv_mr *)x->mr)->lkey;
        /* devices give every MR a remote key (mlx5: the lkey); one without remote access reports none */
        reg->rkey = (x->access & XRT__RDMA_REMOTE) ? ((struct ibv_mr *)x->mr)->rkey : 0;
        reg->mr = (struct ibv_mr *)x->mr;
        reg->addr = (uint64_t)(uintptr_t)r->ptr;
        reg->fabric_mr = NULL;
        reg->desc = NULL;
        reg->key = 0;
    }
    reg->size = r->size;
    reg->path = x->path;
    reg->cached = x->where == XRT__RDMA_IN_CACHE;
    reg->opaque = (void *)handle;
}

/* A hit on a cached entry: one more reference. Called with the lock held;
   unlocks. */
static inline xrt_status xrt__rdma_hit(xrt__rdma_ctx *c, xrt__rdma_entry *x, const xrt__rdma_req *r,
                                       xrt_rdma_reg *reg) XRT__RDMA_HOT;
static inline xrt_status xrt__rdma_hit(xrt__rdma_ctx *c, xrt__rdma_entry *x, const xrt__rdma_req *r, xrt_rdma_reg *reg)
{
    uintptr_t h = xrt__rdma_ref_new(c, x);
    if (!h) {
        xrt__rdma_unlock_ctx(c);
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "xrt_rdma_register", "no memory for a registration");
    }
    if (x->refs++ == 0) {
        xrt__rdma_list_del(&x->link);
        c->referenced++;
    }
    c->hits++;
    xrt__rdma_fill(reg, x, r, h);
    xrt__rdma_unlock_ctx(c);
    return XRT_SUCCESS;
}

/* The cached entry that serves r, if any; the caller holds the lock. */
static inline xrt__rdma_entry *xrt__rdma_lookup(const xrt__rdma_ctx *c, const xrt__rdma_req *r)
{
    uintptr_t p = (uintptr_t)r->ptr;
    xrt__rdma_entry *x = xrt__rdma_floor(c, r->access, p);
    return x && XRT__RDMA_END(x) >= p + r->size && xrt__rdma_serves(x->access, r->access) ? x : NULL;
}

/* The entry x that a lookup of r found, of GPU memory, checked against its
   driver: the entry that serves r, or NULL for a miss. Called and returns
   with the lock held, but the driver is asked without it (a driver call can
   block, and a driver's callback may come back into xrt), so x may be
   released, evicted, invalidated or replaced meanwhile: what is checked is
   the entry then found at the start that was asked about. A stale entry
   leaves the cache, and the lookup is made again. */
static xrt__rdma_entry *xrt__rdma_checked(xrt__rdma_ctx *c, const xrt__rdma_req *r, xrt__rdma_entry *x)
{
    while (x && x->has_ident) {
        uintptr_t start = XRT__RDMA_START(x);
        const xrt_backend *be = x->be;
        xrt__rdma_entry *victims = NULL, *dying = NULL;
        uint64_t id = 0;
        int known, held;
        xrt__rdma_unlock_ctx(c);
        known = xrt__rdma_ident(be, start, &id);
        xrt__rdma_lock_ctx(c);
        x = xrt__rdma_lookup(c, r);
        if (!x || !x->has_ident || XRT__RDMA_START(x) != start || x->be != be) continue; /* changed: again */
        if (known && id == x->ident) return x;
        held = xrt__rdma_stale(c, x, &victims, &dying);
        xrt__rdma_unlock_ctx(c);
        xrt__rdma_destroy(victims);
        xrt__rdma_bury(dying);
        if (held)
            xrt_log(XRT_LOG_WARN, "rdma: the GPU memory at %p was freed and allocated again behind xrt's back while "
                    "%d registration(s) of it were held: deregistered (free xrt memory with xrt_free)", r->ptr, held);
        xrt__rdma_lock_ctx(c);
        x = xrt__rdma_lookup(c, r);
    }
    return x;
}

/* The cached entry that serves r, checked with its driver if it is of GPU
   memory, or NULL: every hit is found through here. Called and returns
   with the lock held (the check lets it go meanwhile). */
static inline xrt__rdma_entry *xrt__rdma_find(xrt__rdma_ctx *c, const xrt__rdma_req *r) XRT__RDMA_HOT;
static inline xrt__rdma_entry *xrt__rdma_find(xrt__rdma_ctx *c, const xrt__rdma_req *r)
{
    xrt__rdma_entry *x = xrt__rdma_lookup(c, r);
    return x && XRT__UNLIKELY(x->has_ident) ? xrt__rdma_checked(c, r, x) : x;
}

/* The pages of [ptr, ptr+size), clipped to the allocation: entries of two
   allocations never overlap, and a later sub-range of the same pages hits. */
static void xrt__rdma_span(xrt__rdma_req *r)
{
    static uintptr_t page_size;
    uintptr_t p = (uintptr_t)r->ptr, q = p + r->size;
    uintptr_t b = r->base, be = b + r->alloc_size;
    uintptr_t page = __atomic_load_n(&page_size, __ATOMIC_RELAXED);
    if (!page) __atomic_store_n(&page_size, page = (uintptr_t)sysconf(_SC_PAGESIZE), __ATOMIC_RELAXED);
    r->start = p & ~(page - 1);
    r->end = (q + page - 1) & ~(page - 1);
    if (r->start < b) r->start = b;
    if (r->end > be) r->end = be;
}

/* ibv_reg_mr through the paths; on ENOMEM (RLIMIT_MEMLOCK or pinned memory
   exhausted) drops the unreferenced entries and tries once more. */
static void *xrt__rdma_reg_retry(xrt__rdma_ctx *c, const xrt__rdma_req *r, xrt_rdma_path *path, int *err, char *why,
                                 size_t n)
{
    xrt__rdma_entry *victims = NULL;
    void *mr = xrt__rdma_reg_paths(c, r, path, err, why, n);
    if (mr || *err != ENOMEM) return mr;
    xrt__rdma_lock_ctx(c);
    xrt__rdma_evict(c, XRT__RDMA_EVICT_ENOMEM, &victims);
    xrt__rdma_unlock_ctx(c);
    if (!victims) return NULL;
    xrt__rdma_destroy(victims);
    return xrt__rdma_reg_paths(c, r, path, err, why, n);
}

/* >> rdma impl: registrations in flight; the caller holds the lock */
static void xrt__rdma_publish(xrt__rdma_ctx *c, xrt__rdma_pending *p, const xrt__rdma_req *r)
{
    memset(p, 0, sizeof *p);
    p->start = (uintptr_t)r->ptr;
    p->end = (uintptr_t)r->ptr + r->size;
    p->next = c->pending;
    c->pending = p;
    xrt__rdma_track(1);
}

static void xrt__rdma_unpublish(xrt__rdma_ctx *c, xrt__rdma_pending *p)
{
    xrt__rdma_pending **pp;
    for (pp = &c->pending; *pp != p; pp = &(*pp)->next) {}
    *pp = p->next;
    xrt__rdma_track(-1);
}

/* Was the memory found freed since p was published? A registration that
   found no allocation (gen 0) while a free of xrt memory in its range ran
   may have looked after the free took the allocation out of the registry
   and before its hook: the memory was freed, not foreign. */
static int xrt__rdma_pend_freed(const xrt__rdma_pending *p)
{
    int i;
    if (p->invalidated || (!p->gen && p->nfreed)) return 1;
    for (i = 0; i < p->nfreed; i++)
        if (p->gen && p->freed[i] == p->gen) return 1;
    return 0;
}

static xrt_status xrt__rdma_freed_error(const xrt__rdma_ctx *c, const xrt__rdma_req *r)
{
    return xrt_error(XRT_ERROR_INVALID_POINTER, "xrt_rdma_register", "%s: %p was freed while being registered",
                     c->name, r->ptr);
}

/* r's range inside the allocation of `size` bytes at base that holds r->ptr
   (size 0: not known). */
static xrt_status xrt__rdma_inside(const xrt__rdma_req *r, uintptr_t base, size_t size)
{
    uintptr_t p = (uintptr_t)r->ptr;
    if (size && (p < base || p - base > size || r->size > size - (p - base)))
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_rdma_register",
                         "%zu bytes at %p overrun its allocation (%zu bytes at %p)", r->size, r->ptr, size,
                         (void *)base);
    return XRT_SUCCESS;
}

/* The memory's type and allocation, from xrt's registry (one lookup), else
   from the thread's backend (memory it allocated natively: its extent as
   the backend, else its driver, gives it); a range that runs past its
   allocation is refused. */
static xrt_status xrt__rdma_classify(xrt__rdma_req *r)
{
    uintptr_t p = (uintptr_t)r->ptr, base;
    xrt__mem_info m;
    xrt_pointer_attributes a;
    xrt_status st;
    size_t size;
    if (xrt__mem_query(r->ptr, &m)) {
        if ((st = xrt__rdma_inside(r, m.base, m.size)) != XRT_SUCCESS) return st;
        r->type = m.type;
        r->device = m.device;
        r->be = m.backend;
        r->base = m.base;
        r->alloc_size = m.size;
        r->gen = m.generation;
        return XRT_SUCCESS;
    }
    if ((st = xrt_pointer_get_attributes(&a, r->ptr)) != XRT_SUCCESS) return st;
    r->type = a.backend ? a.type : XRT_MEMORY_UNKNOWN;
    r->device = a.backend && a.device >= 0 ? a.device : 0; /* memory the backend knows natively: its device */
    r->be = a.backend ? xrt__be() : NULL; /* the thread's backend answered */
    r->base = 0;
    r->alloc_size = 0;
    r->gen = 0;
    base = (uintptr_t)a.base;
    size = a.size;
    if (r->be && !size && !xrt__rdma_driver_range(r->be, p, &base, &size)) size = 0;
    return xrt__rdma_inside(r, base, size);
}

/* A miss: registers r (xrt memory through the cache: its pages, widened over
   the entries it overlaps; other memory, or any with the cache off, as a
   private MR), without the lock, unless the memory was freed meanwhile.
   `pend` was published before the lookup. */
static xrt_status xrt__rdma_register_new(xrt__rdma_ctx *c, xrt__rdma_req *r, xrt__rdma_pending *pend,
                                         xrt_rdma_reg *reg)
{
    xrt__rdma_entry *x = (xrt__rdma_entry *)XRT_CALLOC(1, sizeof *x), *hit, *victims = NULL;
    uintptr_t h = 0;
    char why[512];
    int err = 0, freed, cached;
    xrt__rdma_lock_ctx(c);
    pend->gen = r->gen;
    cached = c->cache && r->gen && !pend->unregistered;
    freed = xrt__rdma_pend_freed(pend);
    if (!x || freed) {
        xrt__rdma_unpublish(c, pend);
        xrt__rdma_unlock_ctx(c);
        XRT_FREE(x);
        if (freed) return xrt__rdma_freed_error(c, r);
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "xrt_rdma_register", "no memory for a registration");
    }
    if (cached && (hit = xrt__rdma_find(c, r)) != NULL) { /* another thread registered it meanwhile */
        xrt__rdma_unpublish(c, pend);
        XRT_FREE(x);
        return xrt__rdma_hit(c, hit, r, reg); /* unlocks */
    }
    if (cached) {
        xrt__rdma_span(r);
        xrt__rdma_widen(c, r->start, r->end, &r->start, &r->end, &r->access);
    } else {
        r->start = (uintptr_t)r->ptr;
        r->end = r->start + r->size;
    }
    if (r->start < pend->start) pend->start = r->start;
    if (r->end > pend->end) pend->end = r->end;
    xrt__rdma_unlock_ctx(c);

    x->be = r->be;
    if (cached) x->has_ident = xrt__rdma_ident(r->be, r->start, &x->ident);
    x->mr = xrt__rdma_reg_retry(c, r, &x->path, &err, why, sizeof why);

    xrt__rdma_lock_ctx(c);
    freed = xrt__rdma_pend_freed(pend);
    if (pend->unregistered) cached = 0; /* the cache holds only memory xrt would hear the free of */
    if (x->mr && !freed && (h = xrt__rdma_ref_new(c, x)) != 0) {
        x->node.start = r->start;
        x->node.end = r->end;
        x->access = r->access;
        x->refs = 1;
        x->ctx = c;
        if (cached) {
            xrt__rdma_entry *taken = NULL;
            xrt__rdma_take_overlapping(c, r->access, r->start, r->end, &taken);
            xrt__rdma_retire(c, taken, &victims);
            xrt__rdma_insert(c, x);
            c->referenced++;
            c->misses++;
            xrt__rdma_evict(c, XRT__RDMA_EVICT_LIMIT, &victims);
        } else {
            x->where = XRT__RDMA_PRIVATE;
            xrt__rdma_list_add(&c->privates, &x->link); /* a free or close finds it there */
            xrt__rdma_track(1);
            c->uncached++;
        }
        xrt__rdma_fill(reg, x, r, h);
        x = NULL;
    }
    /* Last: until the entry is counted, the registration in flight keeps
       xrt__rdma_tracked above 0, or a free that reads it between the two
       (xrt__rdma_invalidate's unlocked test) would skip the entry. */
    xrt__rdma_unpublish(c, pend);
    xrt__rdma_unlock_ctx(c);
    xrt__rdma_destroy(victims);
    if (!x) return XRT_SUCCESS;
    if (x->mr) { /* registered, but the memory was freed meanwhile (or no memory for the reference) */
        x->ctx = c;
        x->victim = NULL;
        xrt__rdma_destroy(x);
        if (freed) return xrt__rdma_freed_error(c, r);
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "xrt_rdma_register", "no memory for a registration");
    }
    XRT_FREE(x);
    return xrt__rdma_reg_error(r, c->name, err, why);
}

static inline xrt_status xrt__rdma_check_access(unsigned access)
{
    const unsigned all = XRT_RDMA_LOCAL_WRITE | XRT_RDMA_REMOTE_WRITE | XRT_RDMA_REMOTE_READ | XRT_RDMA_REMOTE_ATOMIC |
                         XRT_RDMA_RELAXED_ORDERING;
    if (access & ~all)
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_rdma_register", "unknown access flags 0x%x", access & ~all);
    if ((access & (XRT_RDMA_REMOTE_WRITE | XRT_RDMA_REMOTE_ATOMIC)) && !(access & XRT_RDMA_LOCAL_WRITE))
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_rdma_register", "%s needs XRT_RDMA_LOCAL_WRITE (verbs rule)",
                         access & XRT_RDMA_REMOTE_WRITE ? "XRT_RDMA_REMOTE_WRITE" : "XRT_RDMA_REMOTE_ATOMIC");
    return XRT_SUCCESS;
}

/* A hit needs no lookup in xrt's registry: the cache holds only live xrt
   allocations (a free takes their entries out before the memory goes). A
   miss publishes itself as in flight before it looks the memory up, so that
   a free from then on is seen. */
static inline xrt_status xrt__rdma_register(xrt_rdma_ctx ctx, const void *ptr, size_t size, unsigned access,
                                            xrt_rdma_reg *reg) XRT__RDMA_HOT;
static inline xrt_status xrt__rdma_register(xrt_rdma_ctx ctx, const void *ptr, size_t size, unsigned access,
                                     xrt_rdma_reg *reg)
{
    static const char fn[] = "xrt_rdma_register";
    xrt__rdma_ctx *c;
    xrt__rdma_req r; /* its other fields are set on a miss */
    xrt__rdma_pending pend;
    xrt__rdma_entry *x;
    xrt_status st;
    if ((st = xrt__rdma_ctx_of(ctx, fn, &c)) != XRT_SUCCESS) return st;
    if (!ptr) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "ptr is NULL");
    if (size == 0) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "size is 0");
    if ((uintptr_t)ptr + size < (uintptr_t)ptr)
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%zu bytes at %p wrap around the address space", size, ptr);
    if ((st = xrt__rdma_check_access(access)) != XRT_SUCCESS) return st;
    r.ptr = ptr;
    r.size = size;
    r.access = access;
    xrt__rdma_lock_ctx(c);
    if (c->cache) {
        if ((x = xrt__rdma_find(c, &r)) != NULL) return xrt__rdma_hit(c, x, &r, reg); /* unlocks */
    }
    xrt__rdma_publish(c, &pend, &r);
    xrt__rdma_unlock_ctx(c);
    if ((st = xrt__rdma_classify(&r)) != XRT_SUCCESS) {
        xrt__rdma_lock_ctx(c);
        xrt__rdma_unpublish(c, &pend);
        xrt__rdma_unlock_ctx(c);
        return st;
    }
    return xrt__rdma_register_new(c, &r, &pend, reg);
}

XRT_API xrt_status xrt_rdma_register(xrt_rdma_ctx ctx, const void *ptr, size_t size, unsigned access, xrt_rdma_reg *reg)
{
    xrt_status st;
    if (!reg) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_rdma_register", "reg is NULL");
    xrt__rdma_enter((uintptr_t)ctx);
    st = xrt__rdma_leave((uintptr_t)ctx, xrt__rdma_register(ctx, ptr, size, access, reg));
    if (st != XRT_SUCCESS) memset(reg, 0, sizeof *reg);
    return st;
}

/* The last reference of an entry is gone; the caller holds the lock. */
static inline void xrt__rdma_unref_last(xrt__rdma_ctx *c, xrt__rdma_entry *x, xrt__rdma_entry **victims)
{
    switch (x->where) {
    case XRT__RDMA_IN_CACHE:
        c->referenced--;
        xrt__rdma_list_add(&c->lru, &x->link);
        if (c->count > c->max_count || c->bytes > c->max_bytes) /* this one (the newest) goes last */
            xrt__rdma_evict(c, XRT__RDMA_EVICT_LIMIT, victims);
        return;
    case XRT__RDMA_DETACHED:
    case XRT__RDMA_PRIVATE:
        xrt__rdma_list_del(&x->link);
        xrt__rdma_track(-1);
        break;
    default: /* dead: its MR is already gone */
        xrt__rdma_list_del(&x->link);
        break;
    }
    x->victim = *victims;
    *victims = x;
}

/* h: reg's handle; the caller has entered its slot. */
static xrt_status xrt__rdma_release(xrt_rdma_reg *reg, uintptr_t h)
{
    static const char fn[] = "xrt_rdma_release";
    xrt__rdma_entry *x, *victims = NULL;
    xrt__rdma_ctx *c = __atomic_load_n(&xrt__rdma_ctxs[h % XRT__RDMA_SLOTS], __ATOMIC_SEQ_CST);
    xrt__rdma_ref *ref;
    if (!c) return xrt_error(XRT_ERROR_INVALID_HANDLE, fn, "registration %p: its context was closed", reg->opaque);
    if (XRT__UNLIKELY(xrt__rdma_forked(c))) /* a fork() child: the parent's, not ours to touch */
        return xrt_error(XRT_ERROR_INVALID_HANDLE, fn,
                         "registration %p is of a context opened before fork(), in the parent process: its MR is the "
                         "parent's (a child registers through a context of its own)", reg->opaque);
    xrt__rdma_lock_ctx(c);
    if ((ref = xrt__rdma_ref_at(c, h)) == NULL) {
        xrt__rdma_unlock_ctx(c);
        return xrt_error(XRT_ERROR_INVALID_HANDLE, fn,
                         "registration %p was released already (a copy of an xrt_rdma_reg is the same "
                         "registration: release it once), or its context was closed", reg->opaque);
    }
    x = ref->x;
    xrt__rdma_ref_drop(c, ref);
    if (--x->refs == 0) xrt__rdma_unref_last(c, x, &victims);
    xrt__rdma_unlock_ctx(c);
    if (victims) xrt__rdma_destroy(victims);
    *reg = xrt__rdma_no_reg;
    return XRT_SUCCESS;
}

XRT_API xrt_status xrt_rdma_release(xrt_rdma_reg *reg)
{
    uintptr_t h;
    if (!reg) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_rdma_release", "reg is NULL");
    if (!(h = (uintptr_t)reg->opaque))
        return xrt_error(XRT_ERROR_INVALID_HANDLE, "xrt_rdma_release", "registration is released or was never made");
    xrt__rdma_enter(h);
    return xrt__rdma_leave(h, xrt__rdma_release(reg, h));
}

XRT_API const char *xrt_rdma_path_name(xrt_rdma_path path)
{
    switch (path) {
    case XRT_RDMA_PATH_HOST: return "host";
    case XRT_RDMA_PATH_DMABUF: return "dma-buf";
    case XRT_RDMA_PATH_PEER: return "peer memory";
    default: return "none";
    }
}

/* >> rdma impl: invalidation (xrt's free hook and xrt_rdma_notify_free) */
/* Referenced entries of a list (detached or private) overlapping [s, e). */
static int xrt__rdma_kill_listed(xrt__rdma_ctx *c, xrt__rdma_link *head, uintptr_t s, uintptr_t e, int forked,
                                 xrt__rdma_entry **dying)
{
    xrt__rdma_link *l, *ln;
    int held = 0;
    for (l = head->next; l != head; l = ln) {
        xrt__rdma_entry *x = xrt__rdma_of_link(l);
        ln = l->next;
        if (XRT__RDMA_START(x) >= e || XRT__RDMA_END(x) <= s) continue;
        xrt__rdma_list_del(l);
        xrt__rdma_track(-1);
        held += xrt__rdma_kill_held(c, x, forked, dying);
    }
    return held;
}

/* A registration in flight over freed memory: refused when it found the
   freed allocation (by generation; gen 0: any memory in the range). */
static void xrt__rdma_mark_pending(xrt__rdma_ctx *c, uintptr_t s, uintptr_t e, uint64_t gen, int unreg)
{
    xrt__rdma_pending *p;
    for (p = c->pending; p; p = p->next) {
        if (unreg) { /* the memory stays: a registration of it goes on, private */
            if (p->gen ? p->gen == gen : p->start < e && p->end > s) p->unregistered = 1;
            continue;
        }
        if (gen && p->gen) {
            if (p->gen == gen) p->invalidated = 1;
        } else if (p->start < e && p->end > s) {
            if (!gen || p->nfreed == XRT__RDMA_FREED_MAX) p->invalidated = 1;
            else p->freed[p->nfreed++] = gen; /* its lookup may have found it, or nothing (gen 0) */
        }
    }
}

/* A held cached entry of a range that xrt_host_unregister gave back to the
   user: its memory is still there, so the registration lives on, private
   (a free or xrt_rdma_notify_free of the memory finds it there). */
static void xrt__rdma_privatize(xrt__rdma_ctx *c, xrt__rdma_entry *x)
{
    x->where = XRT__RDMA_PRIVATE;
    x->has_ident = 0;
    xrt__rdma_list_add(&c->privates, &x->link);
    xrt__rdma_track(1); /* not in uncached: it was counted (a miss) when it was made */
}

/* unreg: xrt_host_unregister, whose memory stays allocated: the cache lets
   go of the range (a held entry becomes private), private registrations
   stay. Returns the held registrations killed (onto *dying). */
static int xrt__rdma_invalidate_ctx(xrt__rdma_ctx *c, uintptr_t s, uintptr_t e, uint64_t gen, int unreg,
                                    xrt__rdma_entry **victims, xrt__rdma_entry **dying)
{
    xrt__rdma_entry *x, *next, *taken = NULL, **tail = &taken;
    int held = 0, forked = xrt__rdma_forked(c);
    unsigned k;
    xrt__rdma_lock_ctx(c);
    for (k = 0; k < XRT__RDMA_CLASSES; k++) tail = xrt__rdma_take_overlapping(c, k << 1, s, e, tail);
    for (x = taken; x; x = next) {
        next = x->victim;
        if (x->refs && unreg) {
            xrt__rdma_privatize(c, x);
            continue;
        }
        if (x->refs) {
            held += xrt__rdma_kill_held(c, x, forked, dying);
            continue;
        }
        c->invalidations++;
        x->victim = *victims;
        *victims = x;
    }
    if (!unreg) {
        held += xrt__rdma_kill_listed(c, &c->detached, s, e, forked, dying);
        held += xrt__rdma_kill_listed(c, &c->privates, s, e, forked, dying);
    }
    xrt__rdma_mark_pending(c, s, e, gen, unreg);
    xrt__rdma_unlock_ctx(c);
    return held;
}

/* Drops every registration overlapping [base, base+size) in every context:
   cached, detached and private ones, and marks those in flight. */
static void xrt__rdma_invalidate(uintptr_t base, size_t size, uint64_t gen, int unreg)
{
    uintptr_t end = size > UINTPTR_MAX - base ? UINTPTR_MAX : base + size;
    xrt__rdma_entry *victims = NULL, *dying = NULL;
    uint64_t entered = 0;
    int i, held = 0;
    /* Unlocked: 0 means no entry and no registration in flight anywhere. A
       registration that found this allocation was published (counted)
       before its lookup, so before this free took the allocation out of the
       registry; it stays counted until its entry is (xrt__rdma_register_new). */
    if (XRT__LIKELY(!__atomic_load_n(&xrt__rdma_tracked, __ATOMIC_ACQUIRE)) || !size) return;
    pthread_mutex_lock(&xrt__rdma_lock);
    for (i = 0; i < XRT__RDMA_SLOTS; i++) { /* a context from before fork() is the parent's business */
        xrt__rdma_entry *had = victims, *had_dying = dying;
        if (!xrt__rdma_ctxs[i] || xrt__rdma_forked(xrt__rdma_ctxs[i])) continue;
        held += xrt__rdma_invalidate_ctx(xrt__rdma_ctxs[i], base, end, gen, unreg, &victims, &dying);
        if (victims != had || dying != had_dying) { /* their context (its PD) outlives their deregistration */
            xrt__rdma_enter((uintptr_t)i);
            entered |= (uint64_t)1 << i;
        }
    }
    pthread_mutex_unlock(&xrt__rdma_lock);
    xrt__rdma_destroy(victims);
    xrt__rdma_bury(dying);
    for (i = 0; i < XRT__RDMA_SLOTS; i++)
        if (entered >> i & 1) xrt__rdma_leave((uintptr_t)i, XRT_SUCCESS);
    if (held)
        xrt_log(XRT_LOG_WARN,
                "rdma: %zu bytes at %p freed while %d registration(s) of them were held: deregistered, their keys no "
                "longer work (release registrations before freeing)", size, (void *)base, held);
}

static void xrt__rdma_on_free(void *user, uintptr_t base, size_t size, uint64_t gen)
{
    (void)user;
    xrt__rdma_invalidate(base, size, gen, xrt__free_hook_unregisters()); /* gen: never 0 */
}

XRT_API xrt_status xrt_rdma_notify_free(const void *ptr, size_t size)
{
    if (size == 0) return XRT_SUCCESS;
    if (!ptr) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_rdma_notify_free", "ptr is NULL");
    xrt__rdma_invalidate((uintptr_t)ptr, size, 0, 0);
    return XRT_SUCCESS;
}

/* >> rdma impl: cache control */
XRT_API xrt_status xrt_rdma_cache_get_stats(xrt_rdma_ctx ctx, xrt_rdma_cache_stats *stats)
{
    xrt__rdma_ctx *c;
    xrt_status st;
    if (!stats) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_rdma_cache_get_stats", "stats is NULL");
    memset(stats, 0, sizeof *stats);
    xrt__rdma_enter((uintptr_t)ctx);
    if ((st = xrt__rdma_ctx_of(ctx, "xrt_rdma_cache_get_stats", &c)) != XRT_SUCCESS)
        return xrt__rdma_leave((uintptr_t)ctx, st);
    xrt__rdma_lock_ctx(c);
    stats->hits = c->hits;
    stats->misses = c->misses;
    stats->evictions = c->evict_limit + c->evict_enomem + c->evict_flush;
    stats->evictions_limit = c->evict_limit;
    stats->evictions_enomem = c->evict_enomem;
    stats->evictions_flush = c->evict_flush;
    stats->invalidations = c->invalidations;
    stats->uncached = c->uncached;
    stats->entries = c->count;
    stats->bytes = c->bytes;
    stats->referenced = c->referenced;
    stats->max_entries = c->max_count;
    stats->max_bytes = c->max_bytes;
    xrt__rdma_unlock_ctx(c);
    return xrt__rdma_leave((uintptr_t)ctx, XRT_SUCCESS);
}

static xrt_status xrt__rdma_trim(xrt_rdma_ctx ctx, const char *fn, int flush, size_t max_entries, size_t max_bytes)
{
    xrt__rdma_ctx *c;
    xrt__rdma_entry *victims = NULL;
    xrt_status st;
    xrt__rdma_enter((uintptr_t)ctx);
    if ((st = xrt__rdma_ctx_of(ctx, fn, &c)) != XRT_SUCCESS) return xrt__rdma_leave((uintptr_t)ctx, st);
    xrt__rdma_lock_ctx(c);
    if (!flush) {
        c->max_count = max_entries;
        c->max_bytes = max_bytes;
    }
    xrt__rdma_evict(c, flush ? XRT__RDMA_EVICT_FLUSH : XRT__RDMA_EVICT_LIMIT, &victims);
    xrt__rdma_unlock_ctx(c);
    xrt__rdma_destroy(victims);
    return xrt__rdma_leave((uintptr_t)ctx, XRT_SUCCESS);
}

XRT_API xrt_status xrt_rdma_cache_set_limits(xrt_rdma_ctx ctx, size_t max_entries, size_t max_bytes)
{
    return xrt__rdma_trim(ctx, "xrt_rdma_cache_set_limits", 0, max_entries, max_bytes);
}

XRT_API xrt_status xrt_rdma_cache_flush(xrt_rdma_ctx ctx) { return xrt__rdma_trim(ctx, "xrt_rdma_cache_flush", 1, 0, 0); }

/* >> rdma impl: close */
/* Moves every entry of a list onto *all; returns how many. */
static size_t xrt__rdma_gather_list(xrt__rdma_link *head, xrt__rdma_entry **all, int tracked)
{
    xrt__rdma_link *l;
    size_t n = 0;
    while ((l = head->next) != head) {
        xrt__rdma_entry *x = xrt__rdma_of_link(l);
        xrt__rdma_list_del(l);
        if (tracked) xrt__rdma_track(-1);
        x->victim = *all;
        *all = x;
        n++;
    }
    return n;
}

/* Takes c out of its slot, unless another close did: no call or
   invalidation finds it from then on, and the slot is not taken again
   before xrt__rdma_vacate. The caller has entered the slot. A bad handle is
   reported after the lock is let go: the report takes the log's lock, which
   fork() takes before this one (xrt__rdma_lock). */
static xrt_status xrt__rdma_unpublish_ctx(xrt_rdma_ctx ctx, xrt__rdma_ctx **out)
{
    uintptr_t v = (uintptr_t)ctx;
    unsigned slot = (unsigned)(v % XRT__RDMA_SLOTS);
    xrt__rdma_ctx *c;
    pthread_mutex_lock(&xrt__rdma_lock);
    c = __atomic_load_n(&xrt__rdma_ctxs[slot], __ATOMIC_SEQ_CST);
    if (v && c && c->handle == v) { /* one of this process, or inherited through fork() */
        __atomic_store_n(&xrt__rdma_ctxs[slot], (xrt__rdma_ctx *)NULL, __ATOMIC_SEQ_CST);
        xrt__rdma_slot_closing[slot] = 1;
    } else {
        c = NULL;
    }
    pthread_mutex_unlock(&xrt__rdma_lock);
    *out = c;
    return c ? XRT_SUCCESS : xrt__rdma_ctx_bad(ctx, "xrt_rdma_close", NULL);
}

/* Waits for the calls that found c before it left its slot, then frees the
   slot for a new context. */
static void xrt__rdma_vacate(xrt__rdma_ctx *c)
{
    unsigned slot = (unsigned)(c->handle % XRT__RDMA_SLOTS);
    while (__atomic_load_n(&xrt__rdma_slot_users[slot], __ATOMIC_SEQ_CST) != 0) sched_yield();
    pthread_mutex_lock(&xrt__rdma_lock);
    xrt__rdma_refs_leave(c); /* before the slot can be taken again */
    xrt__rdma_slot_closing[slot] = 0;
    pthread_mutex_unlock(&xrt__rdma_lock);
}

XRT_API xrt_status xrt_rdma_close(xrt_rdma_ctx ctx)
{
    xrt__rdma_ctx *c;
    xrt__rdma_entry *all = NULL;
    xrt__tree_node *n, *next;
    size_t held = 0;
    unsigned k;
    int forked;
    xrt_status st;
    xrt__rdma_enter((uintptr_t)ctx);
    st = xrt__rdma_leave((uintptr_t)ctx, xrt__rdma_unpublish_ctx(ctx, &c));
    if (st != XRT_SUCCESS) return st;
    xrt__rdma_vacate(c);
    forked = xrt__rdma_forked(c);
    if (!forked) xrt__rdma_lock_ctx(c); /* in a fork() child a parent's thread may have held it */
    held = c->referenced;
    xrt__rdma_track(-(long)c->count);
    for (k = 0; k < XRT__RDMA_CLASSES; k++)
        for (n = xrt__tree_drain(&c->trees[k]); n; n = next) {
            xrt__rdma_entry *x = (xrt__rdma_entry *)(void *)n;
            next = n->next;
            x->victim = all;
            all = x;
        }
    held += xrt__rdma_gather_list(&c->detached, &all, 1);
    held += xrt__rdma_gather_list(&c->privates, &all, 1);
    xrt__rdma_gather_list(&c->dead, &all, 0); /* counted when their memory was freed */
    xrt__rdma_unlock_ctx(c);
    if (held && !forked)
        xrt_log(XRT_LOG_WARN, "rdma: %s closed with %zu registration(s) still held: deregistered (release them before "
                "closing; releasing them now is XRT_ERROR_INVALID_HANDLE)", c->name, held);
    xrt__rdma_destroy(all);
    if (c->owns && !forked) { /* in a fork() child these are the parent's */
        xrt__rdma_rt.dealloc_pd(c->pd);
        xrt__rdma_rt.close_device(c->vc);
    }
    XRT_FREE(c);
    return XRT_SUCCESS;
}

#ifdef __cplusplus
}
#endif

#endif /* implementation */

/*
------------------------------------------------------------------------------
xrt is available under the MIT licence, whose text every copy must carry:

MIT License

Copyright (c) 2026 the xrt authors

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
------------------------------------------------------------------------------
*/
