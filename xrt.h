/* SPDX-License-Identifier: MIT */
/* xrt.h - one runtime API over several accelerator backends (CPU, CUDA, HIP).

   xrt is header-only. In exactly ONE C or C++ translation unit of your program:

       #define XRT_IMPL
       #define XRT_ENABLE_CUDA     // and/or XRT_ENABLE_HIP: the GPU backends wanted
       #include "xrt.h"

   Every other translation unit just includes "xrt.h" (the enable macros are
   only needed in the XRT_IMPL unit). The CPU backend needs nothing and is
   always built in; XRT_DISABLE_CPU leaves it out. The part of this header
   that user code sees pulls no vendor header, so it can be included from
   C11, C++11 and CUDA (.cu) files.

   Five-line example:

       void *d; xrt_stream s; char h[64] = "hello";
       if (xrt_malloc(&d, sizeof h)) { puts(xrt_get_last_error_string()); return 1; }
       xrt_stream_create(&s);
       xrt_memcpy_async(d, h, sizeof h, XRT_MEMCPY_HOST_TO_DEVICE, s);
       xrt_stream_synchronize(s); xrt_stream_destroy(s); xrt_free(d);

   Conventions (as in the CUDA runtime): every call returns an xrt_status; a
   failure also records a per-thread detail string (xrt_get_last_error_string)
   naming the call, the backend and, for native failures, the native call,
   code and message. Every call is thread-safe. The first call initialises the
   library (xrt_init does it explicitly).

   Backend selection: each thread dispatches to one backend. A new thread uses
   the process default: env XRT_BACKEND (a name, or a comma-separated priority
   list) or else the first available of cuda, hip, cpu. xrt_set_backend()
   changes the calling thread's backend.

   The NULL stream is the current device's default stream, CUDA's legacy
   default stream: one ordered queue shared by all host threads, which waits
   for the work of every blocking stream of its device (xrt_stream_create's)
   and which their later work waits for. A stream made with
   XRT_STREAM_NON_BLOCKING takes no part; order it with events. xrt_memcpy
   and xrt_memset are ordered on the NULL stream and return when they have
   completed, except, as in CUDA, a copy from device to device and a set of
   device memory, which return at once.

   Rules that bite:
   - Host functions (xrt_launch_host_func) run on a backend thread. They must
     not wait for xrt work: a synchronize, a synchronous copy or set, or a free
     from inside one would wait for itself.
   - xrt_shutdown() needs every other thread to have stopped using xrt; handles
     and pointers from before it are invalid after it (stale handles are
     detected).
   - fork(): a child keeps a working CPU backend (its parent's streams,
     events and memory included); the GPU runtimes do not survive a fork, so
     their calls in a child return XRT_ERROR_NOT_PERMITTED.
   - Signal handlers must not call xrt: calls take locks and allocate.
   - Thread exit: a thread's backend choice and last error live in
     thread-local storage and need no clean-up.

   Logging: xrt is quiet by default, as the CUDA and HIP runtimes are: a
   failed call is answered by its status and xrt_get_last_error_string, and
   only warnings (what a caller cannot see otherwise: a plugin skipped, a
   bad XRT_LOG, a resource a module released for the caller) go to stderr. Ask for more
   with XRT_LOG or xrt_set_log_level; each level prints itself and the ones
   before it: none, error (every failed call, "xrt: error: ..."), warn, info
   (why a backend is unavailable), debug (which library file each backend
   loaded, runtime and driver versions, why a backend was chosen, plugins,
   the paths modules above the core choose). xrt_set_log_callback sends the lines elsewhere.

   Environment: XRT_BACKEND (see above), XRT_LOG (none, error, warn, info,
   debug; unset: warnings only), XRT_CUDA_LIBRARY / XRT_HIP_LIBRARY (path or soname of
   the vendor runtime to load), XRT_CUDA_DRIVER_LIBRARY (for dma-buf export
   and CUDA modules),
   XRT_PLUGINS (shared objects to load as backends, ':'-separated); the
   kernel cache and compiler: XRT_CC (the C compiler of CPU modules, default
   cc), XRT_CACHE_DIR, XRT_CACHE=0, XRT_CACHE_BYTES (see xrt_module_load);
   See README.md.

   Kernels, five lines (the CPU kernel is a C function called per block;
   give a PTX, cubin or fatbin image next to it for CUDA):

       xrt_module_image im = {XRT_IMAGE_CPU_C_SOURCE, src, strlen(src), NULL};
       xrt_module m; xrt_function k; struct { float *y; unsigned n; } a = {y, n};
       xrt_dim3 grid = {n / 256, 1, 1}, block = {256, 1, 1};
       xrt_module_load(&m, &im, 1, NULL); xrt_module_get_function(&k, m, "scale");
       xrt_launch_kernel(k, grid, block, 0, stream, &a, sizeof a);

   Compile-time switches (define before including xrt.h in the XRT_IMPL unit):
   - XRT_STATIC: the implementation is private to that unit (static), for a
     single-unit program or to hide xrt inside a library; define XRT_IMPL too.
   - XRT_API: the storage class of xrt's non-inline functions. By default they
     are extern with hidden visibility, so two copies of xrt in two shared
     libraries of one process do not bind to each other's internals.
   - XRT_MALLOC(n), XRT_CALLOC(n, size), XRT_REALLOC(p, n),
     XRT_ALIGNED_ALLOC(align, n), XRT_FREE(p): the allocator of xrt's own
     memory and of the CPU backend's pinned host memory (default: the C
     library's); define all. (CPU device memory is private anonymous memory,
     moved into a memory file of its own at its first IPC export so that
     other processes can open it: see xrt_cpu.h.)

   How this file is laid out (grep for the ">> " markers; tests/layout.sh
   checks this list against them: a marker's name, then two spaces or more
   before a note). The implementation reads bottom-up: a function is defined
   before its first use.
     >> version, >> status, >> types  the public types
     >> api                   every public function; each declaration begins on one line
     >> dispatch              private: the inline bodies of that list
     >> implementation        the XRT_IMPL unit only, in these groups:
   the kit
     >> impl: the kit         every private name of this file that another
                              header uses, with its contract (tests/kit.sh)
   utilities
     >> impl: spin lock       (the CPU backend's queues, modules' caches)
     >> impl: interval tree   (the pointer registry, the CPU backend's
                              mappings, modules' caches)
     >> impl: errors and logging  (and the core's locks)
     >> impl: environment variables  every XRT_* variable is read through these
     >> impl: sysfs           where the machine is described (NUMA, PCI)
   backends and building kernels
     >> impl: run-time loading of vendor libraries  (dlopen, symbol lists)
     >> impl: the backend registry and default selection  (with the stubs
                              that fill a table's empty slots)
     >> impl: kernel building  the kernel cache and the C compiler driver
                              live in xrt_cache.h
     >> impl: picking a module image for the device
     >> impl: pointer registry: the device of a new allocation  (a GPU
                              backend's note for the registry)
     >> impl: the built-in backends  (xrt_cuda.h, xrt_hip.h, xrt_cpu.h)
     >> impl: plugins         loading shared objects as backends
     >> impl: plugins found in directories  (XRT_PLUGIN_PATH)
     >> impl: compile targets
   handles
     >> impl: handle table
     >> impl: handle retirement
   memory
     >> impl: pointer registry  the live allocations
     >> impl: free hooks      "memory is being freed": how modules above
                              the core hear of every free (xrt_add_free_hook)
     >> impl: graph memory    allocations made in a capture
     >> impl: pointer checks  what a pointer is; the checks of every copy,
                              set, peer copy and export
     >> impl: memory shared between processes
   modules, graphs, streams
     >> impl: modules         module and function handles
     >> impl: module globals, function attributes, occupancy
     >> impl: graph nodes     graphs built node by node
     >> impl: launch attributes  a launch's and a kernel node's (checks)
     >> impl: capture graphs  a capture's graph handle while it lasts
     >> impl: user objects    their handles and destroys
     >> impl: native streams  xrt_stream_from_native's table
   the process and the public calls
     >> impl: fork
     >> impl: stream-order checker  XRT_CHECK=streams: lives in xrt_check.h
     >> impl: lifecycle: init and shutdown, the thread's backend, host functions
     >> impl: backends: registration, listing, the thread's choice
     >> impl: backends: handles and the thread's stack of pushed backends
     >> impl: plugins: the public calls
   xrt_backends.h is the backend ABI (with the "adding an operation"
   checklist); xrt_cache.h builds kernels (the kernel cache, the C compiler
   driver); xrt_check.h is the stream-order checker; xrt_cpu.h, xrt_gpu.h
   (+ xrt_cuda.h, xrt_hip.h) the backends.
   Modules above the core include xrt.h, never the reverse; the core knows
   them only as free-hook subscribers.
*/
#ifndef XRT_H_INCLUDED
#define XRT_H_INCLUDED

/* The implementation uses POSIX and GNU interfaces (futex, clock_gettime): in
   the XRT_IMPL unit, define XRT_IMPL and include xrt.h before any other header
   (xrt.h included earlier without XRT_IMPL counts as another header), or
   compile with -D_GNU_SOURCE. */
#if defined(XRT_IMPL) && !defined(_GNU_SOURCE)
#if defined(_FEATURES_H) /* glibc's and musl's <features.h>: a system header came first */
#error "xrt.h: in the unit that defines XRT_IMPL, #define XRT_IMPL and #include \"xrt.h\" before any other header (a system header included first hides the POSIX and GNU declarations xrt needs), or compile that unit with -D_GNU_SOURCE"
#endif
#define _GNU_SOURCE
#endif

#include <stddef.h>
#include <stdint.h>

/* >> version */
#define XRT_VERSION_MAJOR 0
#define XRT_VERSION_MINOR 2
#define XRT_VERSION_PATCH 0
#define XRT_VERSION (XRT_VERSION_MAJOR * 10000 + XRT_VERSION_MINOR * 100 + XRT_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define XRT__TLS __thread
#define XRT__LIKELY(x) __builtin_expect(!!(x), 1)
#define XRT__UNLIKELY(x) __builtin_expect(!!(x), 0)
#define XRT__COLD __attribute__((cold, noinline))
#define XRT__PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#error "xrt needs GCC, Clang or a compiler with their builtins (__atomic, __thread)"
#endif

#if UINTPTR_MAX < 0xffffffffffffffffu
#error "xrt needs a 64-bit target: handles carry a generation in the upper bits of a pointer-sized value"
#endif

/* XRT_API: storage class of the functions the XRT_IMPL unit defines. */
#if defined(XRT_STATIC)
#if !defined(XRT_IMPL)
#error "XRT_STATIC makes the implementation private to one unit: define XRT_IMPL there too"
#endif
#undef XRT_API
#define XRT_API static __attribute__((unused))
#else
#ifndef XRT_API
#define XRT_API extern __attribute__((visibility("hidden")))
#endif
#endif

/* >> status */
/* X(name, message). Values are dense from 0; never reorder, only append. */
#define XRT__STATUS_LIST(X)                                                        \
    X(XRT_SUCCESS, "success")                                                      \
    X(XRT_ERROR_INVALID_VALUE, "invalid value")                                    \
    X(XRT_ERROR_OUT_OF_MEMORY, "out of memory")                                    \
    X(XRT_ERROR_NOT_READY, "not ready")                                            \
    X(XRT_ERROR_NO_DEVICE, "no device")                                            \
    X(XRT_ERROR_INVALID_DEVICE, "invalid device")                                  \
    X(XRT_ERROR_INVALID_HANDLE, "invalid handle")                                  \
    X(XRT_ERROR_INVALID_POINTER, "invalid pointer")                                \
    X(XRT_ERROR_INVALID_MEMCPY_KIND, "invalid memcpy kind")                        \
    X(XRT_ERROR_UNSUPPORTED, "operation not supported by this backend")            \
    X(XRT_ERROR_BACKEND_UNAVAILABLE, "backend unavailable")                        \
    X(XRT_ERROR_NOT_FOUND, "not found")                                            \
    X(XRT_ERROR_ALREADY_EXISTS, "already exists")                                  \
    X(XRT_ERROR_ABI_MISMATCH, "backend ABI version mismatch")                      \
    X(XRT_ERROR_BACKEND, "backend native error")                                   \
    X(XRT_ERROR_SYSTEM, "operating system error")                                  \
    X(XRT_ERROR_NOT_PERMITTED, "operation not permitted")                        \
    X(XRT_ERROR_NO_BINARY_FOR_DEVICE, "no module image for the device")            \
    X(XRT_ERROR_COMPILE_FAILED, "module compilation failed")                       \
    X(XRT_ERROR_INVALID_IMAGE, "invalid module image")                             \
    X(XRT_ERROR_ILLEGAL_STATE, "operation not valid in the object's current state") \
    X(XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED, "operation not permitted when stream is capturing") \
    X(XRT_ERROR_STREAM_CAPTURE_INVALIDATED, "operation failed due to a previous error during capture") \
    X(XRT_ERROR_STREAM_CAPTURE_MERGE, "operation would merge two independent captures") \
    X(XRT_ERROR_STREAM_CAPTURE_UNMATCHED, "capture was not begun on this stream") \
    X(XRT_ERROR_STREAM_CAPTURE_UNJOINED, "capture has a fork that was not joined to the origin stream") \
    X(XRT_ERROR_STREAM_CAPTURE_ISOLATION, "dependency would cross the capture's boundary") \
    X(XRT_ERROR_CAPTURED_EVENT, "operation not permitted on an event last recorded in a capture") \
    X(XRT_ERROR_STREAM_CAPTURE_WRONG_THREAD, "capture ended from a thread that did not begin it") \
    X(XRT_ERROR_GRAPH_EXEC_UPDATE_FAILURE, "graph update refused: the graphs differ in shape") \
    X(XRT_ERROR_PEER_ACCESS_ALREADY_ENABLED, "peer access is already enabled") \
    X(XRT_ERROR_PEER_ACCESS_NOT_ENABLED, "peer access has not been enabled") \
    X(XRT_ERROR_STREAM_CAPTURE_IMPLICIT, "operation would make the legacy stream depend on a capture") \
    X(XRT_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "part or all of the range is already registered") \
    X(XRT_ERROR_HOST_MEMORY_NOT_REGISTERED, "the pointer does not start a registered range")

#define XRT__STATUS_ENUM(name, msg) name,
typedef enum xrt_status { XRT__STATUS_LIST(XRT__STATUS_ENUM) XRT_STATUS_COUNT } xrt_status;
#undef XRT__STATUS_ENUM

static inline const char *xrt_status_string(xrt_status s)
{
#define XRT__STATUS_CASE(name, msg) case name: return msg;
    switch (s) { XRT__STATUS_LIST(XRT__STATUS_CASE) default: break; }
#undef XRT__STATUS_CASE
    return "unknown status";
}

/* The enum's name ("XRT_ERROR_INVALID_VALUE"), as cudaGetErrorName gives it. */
static inline const char *xrt_status_name(xrt_status s)
{
#define XRT__STATUS_CASE(name, msg) case name: return #name;
    switch (s) { XRT__STATUS_LIST(XRT__STATUS_CASE) default: break; }
#undef XRT__STATUS_CASE
    return "XRT_ERROR_UNKNOWN";
}

/* >> types */
typedef enum xrt_memcpy_kind { /* same values as cudaMemcpyKind */
    XRT_MEMCPY_HOST_TO_HOST = 0,
    XRT_MEMCPY_HOST_TO_DEVICE = 1,
    XRT_MEMCPY_DEVICE_TO_HOST = 2,
    XRT_MEMCPY_DEVICE_TO_DEVICE = 3,
    XRT_MEMCPY_DEFAULT = 4 /* inferred from the pointers */
} xrt_memcpy_kind;

typedef enum xrt_memory_type {
    XRT_MEMORY_UNKNOWN = 0, /* not known to xrt nor the backend: treated as pageable host */
    XRT_MEMORY_HOST,        /* pageable host memory that the backend knows of */
    XRT_MEMORY_PINNED_HOST, /* page-locked host memory (xrt_malloc_host) */
    XRT_MEMORY_DEVICE,      /* device memory (xrt_malloc, xrt_malloc_async) */
    XRT_MEMORY_MANAGED      /* memory accessible from host and device */
} xrt_memory_type;

typedef struct xrt_pointer_attributes {
    xrt_memory_type type;
    int device;          /* -1 for host memory */
    const char *backend; /* owning backend's name, NULL when unknown */
    void *base;          /* start of the allocation holding the pointer, NULL if unknown */
    size_t size;         /* its size in bytes, 0 if unknown */
} xrt_pointer_attributes;

typedef struct xrt_device_prop {
    char name[256];
    char arch[32];           /* "sm_90", "gfx942", "x86_64", "aarch64" (CPU features: xrt_get_target) */
    size_t total_memory;     /* bytes */
    int warp_size;           /* threads per warp / wavefront; SIMD lanes of 32-bit on CPU */
    int multiprocessor_count;/* SMs, CUs, or CPU cores */
    /* Where the device sits, as nvidia-smi, deviceQuery and rocminfo show it
       (cudaDeviceProp's pciDomainID, pciBusID, pciDeviceID and uuid). The CPU
       has no PCI address and no UUID: all of these are 0 there. */
    int pci_domain_id;
    int pci_bus_id;
    int pci_device_id;
    unsigned char uuid[16];  /* all zero when the backend has none */
    /* The NUMA node the device is attached to (GPUs: its PCI function's, from
       sysfs) or placed on (the CPU backend under XRT_CPU_DEVICES=numa); -1
       where unknown or not placed. */
    int numa_node;
} xrt_device_prop;

/* Device attributes (xrt_device_get_attribute), by CUDA's cudaDeviceAttr
   values: X(name, value). HIP's own values differ; its backend maps them.
   What each means on the CPU backend: REFERENCE.md, "Device attributes". */
#define XRT__DEVICE_ATTRS(X)                         \
    X(MAX_THREADS_PER_BLOCK, 1)                      \
    X(MAX_BLOCK_DIM_X, 2)                            \
    X(MAX_BLOCK_DIM_Y, 3)                            \
    X(MAX_BLOCK_DIM_Z, 4)                            \
    X(MAX_GRID_DIM_X, 5)                             \
    X(MAX_GRID_DIM_Y, 6)                             \
    X(MAX_GRID_DIM_Z, 7)                             \
    X(MAX_SHARED_MEMORY_PER_BLOCK, 8)                \
    X(WARP_SIZE, 10)                                 \
    X(MAX_PITCH, 11)                                 \
    X(MAX_REGISTERS_PER_BLOCK, 12)                   \
    X(CLOCK_RATE, 13)                                \
    X(GPU_OVERLAP, 15)                               \
    X(MULTIPROCESSOR_COUNT, 16)                      \
    X(KERNEL_EXEC_TIMEOUT, 17)                       \
    X(INTEGRATED, 18)                                \
    X(CAN_MAP_HOST_MEMORY, 19)                       \
    X(COMPUTE_MODE, 20)                              \
    X(CONCURRENT_KERNELS, 31)                        \
    X(PCI_BUS_ID, 33)                                \
    X(PCI_DEVICE_ID, 34)                             \
    X(MEMORY_CLOCK_RATE, 36)                         \
    X(GLOBAL_MEMORY_BUS_WIDTH, 37)                   \
    X(L2_CACHE_SIZE, 38)                             \
    X(MAX_THREADS_PER_MULTIPROCESSOR, 39)            \
    X(ASYNC_ENGINE_COUNT, 40)                        \
    X(UNIFIED_ADDRESSING, 41)                        \
    X(PCI_DOMAIN_ID, 50)                             \
    X(COMPUTE_CAPABILITY_MAJOR, 75)                  \
    X(COMPUTE_CAPABILITY_MINOR, 76)                  \
    X(STREAM_PRIORITIES_SUPPORTED, 78)               \
    X(MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, 81)      \
    X(MANAGED_MEMORY, 83)                            \
    X(HOST_NATIVE_ATOMIC_SUPPORTED, 86)              \
    X(PAGEABLE_MEMORY_ACCESS, 88)                    \
    X(CONCURRENT_MANAGED_ACCESS, 89)                 \
    X(COOPERATIVE_LAUNCH, 95)                        \
    X(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 97)         \
    X(HOST_REGISTER_SUPPORTED, 99)                   \
    X(MEMORY_POOLS_SUPPORTED, 115)                   \
    X(GPU_DIRECT_RDMA_SUPPORTED, 116)                \
    X(GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS, 117)     \
    X(GPU_DIRECT_RDMA_WRITES_ORDERING, 118)          \
    X(NUMA_ID, 131)
typedef enum xrt_device_attr {
#define XRT__DEVATTR_ENUM(name, value) XRT_DEVATTR_##name = value,
    XRT__DEVICE_ATTRS(XRT__DEVATTR_ENUM)
#undef XRT__DEVATTR_ENUM
    XRT__DEVATTR_END
} xrt_device_attr;

/* XRT_DEVATTR_COMPUTE_MODE's values: CUDA's cudaComputeMode (a device any
   process and thread may use, one context at a time, none, one process). */
enum {
    XRT_COMPUTE_MODE_DEFAULT = 0,
    XRT_COMPUTE_MODE_EXCLUSIVE = 1,
    XRT_COMPUTE_MODE_PROHIBITED = 2,
    XRT_COMPUTE_MODE_EXCLUSIVE_PROCESS = 3
};

/* The length of a PCI bus id, "0000:41:00.0" and its terminating 0. */
#define XRT_PCI_BUS_ID_SIZE 13

/* What a compiler cache keys on: one device's code target. Fill with
   xrt_get_target; the fingerprint is the same in every run, process and
   machine for the same fields, and changes when any field does. */
typedef struct xrt_target {
    char backend[16];     /* the backend that runs the code: "cuda", "hip", "cpu" (never a forwarding plugin's) */
    char arch[32];        /* "sm_90", "gfx942", "x86_64", "aarch64" */
    int vector_width;     /* warp or wavefront size; CPU: 32-bit lanes of its widest vectors */
    char features[224];   /* comma-separated, sorted; CPU: its CPUID feature words or hwcaps (REFERENCE.md); HIP: "sramecc+,xnack-"; "" if none */
    uint64_t fingerprint; /* FNV-1a 64 of the fields above (xrt_target_fingerprint) */
} xrt_target;

/* Opaque handles. A handle records its owner and a generation: a destroyed or
   foreign handle returns XRT_ERROR_INVALID_HANDLE. NULL is the default stream. */
typedef struct xrt_stream_s *xrt_stream;
typedef struct xrt_event_s *xrt_event;
typedef struct xrt_module_s *xrt_module;
typedef struct xrt_mem_pool_s *xrt_mem_pool;

/* A memory pool's attributes: CUDA's cudaMemPoolAttr values (HIP's
   hipMemPoolAttr are the same). The reuse policies are int (0 or 1), the
   rest uint64_t; the current amounts are read only, the high-water marks
   can only be reset (set to 0). */
typedef enum xrt_mem_pool_attr {
    XRT_MEMPOOL_REUSE_FOLLOW_EVENT_DEPENDENCIES = 1,  /* int: reuse across streams ordered by an event wait */
    XRT_MEMPOOL_REUSE_ALLOW_OPPORTUNISTIC = 2,        /* int: reuse a block whose free has completed */
    XRT_MEMPOOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES = 3, /* int: may order the allocating stream after the free */
    XRT_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4,           /* uint64_t: free bytes kept over a synchronize */
    XRT_MEMPOOL_ATTR_RESERVED_MEM_CURRENT = 5,        /* uint64_t: bytes the pool holds, used or free */
    XRT_MEMPOOL_ATTR_RESERVED_MEM_HIGH = 6,
    XRT_MEMPOOL_ATTR_USED_MEM_CURRENT = 7,            /* uint64_t: bytes of its live allocations */
    XRT_MEMPOOL_ATTR_USED_MEM_HIGH = 8
} xrt_mem_pool_attr;

/* xrt_mem_pool_create's properties (cudaMemPoolProps with a device
   location and pinned allocations): handle_types must be
   XRT_MEM_HANDLE_TYPE_NONE (no exportable pools yet). */
#define XRT_MEM_HANDLE_TYPE_NONE 0u
typedef struct xrt_mem_pool_props {
    int device;            /* the pool's memory lives on this device */
    unsigned handle_types; /* XRT_MEM_HANDLE_TYPE_NONE */
} xrt_mem_pool_props;
/* A pool's access from a device (cudaMemAccessDesc of a device location;
   the flags are cudaMemAccessFlags' values): xrt_mem_pool_set_access. */
#define XRT_MEM_ACCESS_FLAGS_PROT_NONE 0u
#define XRT_MEM_ACCESS_FLAGS_PROT_READ 1u
#define XRT_MEM_ACCESS_FLAGS_PROT_READ_WRITE 3u
typedef struct xrt_mem_access_desc {
    int device;     /* the device whose access changes */
    unsigned flags; /* XRT_MEM_ACCESS_FLAGS_PROT_* */
} xrt_mem_access_desc;
typedef struct xrt_function_s *xrt_function;

/* CUDA's special streams, by value as cudaStreamLegacy and cudaStreamPerThread:
   the legacy NULL stream of the current device (NULL means it too, unless
   XRT_API_PER_THREAD_DEFAULT_STREAM), and the calling thread's own default
   stream of the current device, a blocking stream made on first use and
   released when the thread exits (xrt_stream_per_thread). Define
   XRT_API_PER_THREAD_DEFAULT_STREAM before including xrt.h, as nvcc's
   --default-stream per-thread, and NULL means XRT_STREAM_PER_THREAD in that
   translation unit. Neither can be destroyed; a capture begins on the
   per-thread stream (the calling thread's), never on the legacy one. */
#define XRT_STREAM_LEGACY ((xrt_stream)(uintptr_t)1)
#define XRT_STREAM_PER_THREAD ((xrt_stream)(uintptr_t)2)

/* A stream's attributes, as cudaStreamSetAttribute and
   cudaStreamGetAttribute (CUDA's attribute ids, and the layout of its
   value, cudaStreamAttrValue): the window of memory whose accesses the
   device's L2 keeps or streams (a hint), how a host thread waits in
   xrt_stream_synchronize, the stream's priority (as
   xrt_stream_create_with_priority's, clamped to the range), its memory
   synchronisation domain and their map. What each does on each backend:
   REFERENCE.md, "Stream attributes". */
typedef enum xrt_stream_attr {
    XRT_STREAM_ATTR_ACCESS_POLICY_WINDOW = 1,
    XRT_STREAM_ATTR_SYNCHRONIZATION_POLICY = 3,
    XRT_STREAM_ATTR_PRIORITY = 8,
    XRT_STREAM_ATTR_MEM_SYNC_DOMAIN_MAP = 9,
    XRT_STREAM_ATTR_MEM_SYNC_DOMAIN = 10
} xrt_stream_attr;
typedef enum xrt_access_property {
    XRT_ACCESS_PROPERTY_NORMAL = 0,
    XRT_ACCESS_PROPERTY_STREAMING = 1,
    XRT_ACCESS_PROPERTY_PERSISTING = 2
} xrt_access_property;
typedef struct xrt_access_policy_window {
    void *base_ptr;                /* the window's start */
    size_t num_bytes;              /* its size; 0: no window */
    float hit_ratio;               /* the part of it, 0 to 1, that gets hit_prop; the rest miss_prop */
    xrt_access_property hit_prop;
    xrt_access_property miss_prop;
} xrt_access_policy_window;
typedef enum xrt_sync_policy {
    XRT_SYNC_POLICY_AUTO = 1, /* the device's (xrt_set_device_flags) */
    XRT_SYNC_POLICY_SPIN = 2,
    XRT_SYNC_POLICY_YIELD = 3,
    XRT_SYNC_POLICY_BLOCKING_SYNC = 4
} xrt_sync_policy;
typedef union xrt_stream_attr_value {
    char pad[64];
    xrt_access_policy_window access_policy_window;
    xrt_sync_policy sync_policy;
    int priority;
    struct {
        unsigned char default_; /* the domain work of XRT_STREAM_ATTR_MEM_SYNC_DOMAIN 0 uses */
        unsigned char remote;   /* and of 1 */
    } mem_sync_domain_map;
    int mem_sync_domain; /* 0: default, 1: remote */
    /* a launch's or kernel node's only (xrt_launch_attr, below) */
    int cooperative; /* non-zero: the blocks may synchronise grid-wide */
    struct {
        unsigned x, y, z; /* blocks per cluster, each dividing the grid's; 0, 0, 0: none */
    } cluster_dim;
    int cluster_scheduling_policy_preference; /* 0 default, 1 spread, 2 load balancing */
    int programmatic_stream_serialization_allowed;
    struct {
        xrt_event event; /* recorded once every block triggered it (or began, trigger_at_block_start) */
        int flags;       /* 0 */
        int trigger_at_block_start;
    } programmatic_event;
    struct {
        xrt_event event; /* recorded once every block began */
        int flags;       /* 0 */
    } launch_completion_event;
} xrt_stream_attr_value;

/* A kernel launch's and a kernel node's attributes, as CUDA's
   cudaLaunchAttribute (ids, and one value union shared with the streams':
   cudaLaunchAttributeValue): per launch through xrt_launch_kernel_ex, per
   node through xrt_graph_kernel_node_set_attribute. Which ids each takes,
   and what each does on each backend: REFERENCE.md, "Launch attributes".
   An event attribute's event (DISABLE_TIMING, not INTERPROCESS) is
   recorded by the launch: it may complete as soon as every block began,
   so waiting for it orders nothing after the kernel's work (the
   stream-order checker holds a program to that; the CPU backend records it
   once the kernel ran). CUDA's preferred cluster dimension,
   device-updatable nodes and the per-launch shared memory carveout are not
   supported (XRT_ERROR_UNSUPPORTED). */
typedef xrt_stream_attr_value xrt_launch_attr_value;
typedef enum xrt_launch_attr {
    XRT_LAUNCH_ATTR_IGNORE = 0, /* an entry of a config's list that is skipped */
    XRT_LAUNCH_ATTR_ACCESS_POLICY_WINDOW = 1,
    XRT_LAUNCH_ATTR_COOPERATIVE = 2,
    XRT_LAUNCH_ATTR_CLUSTER_DIMENSION = 4,
    XRT_LAUNCH_ATTR_CLUSTER_SCHEDULING_POLICY_PREFERENCE = 5,
    XRT_LAUNCH_ATTR_PROGRAMMATIC_STREAM_SERIALIZATION = 6, /* a launch's only */
    XRT_LAUNCH_ATTR_PROGRAMMATIC_EVENT = 7,                /* a launch's only */
    XRT_LAUNCH_ATTR_PRIORITY = 8,
    XRT_LAUNCH_ATTR_MEM_SYNC_DOMAIN_MAP = 9,
    XRT_LAUNCH_ATTR_MEM_SYNC_DOMAIN = 10,
    XRT_LAUNCH_ATTR_LAUNCH_COMPLETION_EVENT = 12 /* a launch's only */
} xrt_launch_attr;
typedef struct xrt_launch_attribute { /* cudaLaunchAttribute's layout */
    xrt_launch_attr id;
    char pad_[8 - sizeof(xrt_launch_attr)];
    xrt_launch_attr_value val;
} xrt_launch_attribute;

enum { /* stream flags, same values as CUDA's */
    XRT_STREAM_DEFAULT = 0,     /* blocking: ordered with the NULL stream, as cudaStreamCreate's */
    XRT_STREAM_NON_BLOCKING = 1 /* no implicit order with the NULL stream */
};

enum { /* event flags, same values as CUDA's */
    XRT_EVENT_DEFAULT = 0,
    XRT_EVENT_BLOCKING_SYNC = 1, /* xrt_event_synchronize sleeps instead of spinning */
    XRT_EVENT_DISABLE_TIMING = 2, /* no timestamp: cheaper; elapsed time is an error */
    XRT_EVENT_INTERPROCESS = 4    /* may be shared with xrt_ipc_get_event_handle; only with DISABLE_TIMING */
};

enum { /* flags of xrt_event_record_with_flags, same values as CUDA's cudaEventRecord* */
    XRT_EVENT_RECORD_DEFAULT = 0,
    XRT_EVENT_RECORD_EXTERNAL = 1 /* in a capture: an event record node, not a dependency of the capture */
};

enum { /* flags of xrt_stream_wait_event_with_flags, same values as CUDA's cudaEventWait* */
    XRT_EVENT_WAIT_DEFAULT = 0,
    XRT_EVENT_WAIT_EXTERNAL = 1 /* in a capture: an event wait node, not a fork or join of the capture */
};

/* Handles that share memory and events between processes (xrt_ipc_*): plain
   bytes of a fixed size, as cudaIpcMemHandle_t / cudaIpcEventHandle_t, to be
   sent over any channel (a pipe, a socket, a file) to another process of the
   same user on the same host. On CUDA and HIP they hold the runtime's handle. */
#define XRT_IPC_HANDLE_SIZE 64
typedef struct xrt_ipc_mem_handle { unsigned char reserved[XRT_IPC_HANDLE_SIZE]; } xrt_ipc_mem_handle;
typedef struct xrt_ipc_event_handle { unsigned char reserved[XRT_IPC_HANDLE_SIZE]; } xrt_ipc_event_handle;
enum { /* xrt_ipc_open_mem_handle flags, CUDA's values */
    XRT_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 1
};

enum { /* capability bits (xrt_get_capabilities) */
    XRT_CAP_PINNED_HOST = 1u << 0,  /* xrt_malloc_host */
    XRT_CAP_MALLOC_ASYNC = 1u << 1, /* xrt_malloc_async / xrt_free_async */
    XRT_CAP_HOST_FUNC = 1u << 2,    /* xrt_launch_host_func */
    XRT_CAP_EVENT_TIMING = 1u << 3, /* xrt_event_elapsed_time */
    XRT_CAP_NATIVE_HANDLES = 1u << 4, /* xrt_stream_get_native & co */
    XRT_CAP_MODULES = 1u << 5,        /* xrt_module_load, xrt_launch_kernel & co */
    XRT_CAP_GRAPHS = 1u << 6          /* stream capture and graphs (xrt_stream_begin_capture & co) */
};

/* >> types: graphs. A stream's work captured once (xrt_stream_begin_capture
   .. xrt_stream_end_capture) is a graph; an instantiated graph (an exec) is
   launched on any stream as one operation, as many times as wanted. Values
   are CUDA's (cudaStreamCaptureMode, cudaStreamCaptureStatus). */
typedef struct xrt_graph_s *xrt_graph;
typedef struct xrt_graph_exec_s *xrt_graph_exec;
typedef struct xrt_user_object_s *xrt_user_object; /* cudaUserObject_t */
enum { XRT_USER_OBJECT_NO_DESTRUCTOR_SYNC = 1 }; /* cudaUserObjectNoDestructorSync */
enum { XRT_GRAPH_USER_OBJECT_MOVE = 1 };         /* cudaGraphUserObjectMove */

typedef enum xrt_capture_mode {
    XRT_CAPTURE_MODE_GLOBAL = 0,       /* no thread may make an unsafe call while it lasts */
    XRT_CAPTURE_MODE_THREAD_LOCAL = 1, /* the capturing thread may not */
    XRT_CAPTURE_MODE_RELAXED = 2       /* unsafe calls are not refused */
} xrt_capture_mode;

enum { /* cudaStreamUpdateCaptureDependenciesFlags */
    XRT_STREAM_ADD_CAPTURE_DEPENDENCIES = 0,
    XRT_STREAM_SET_CAPTURE_DEPENDENCIES = 1
};

typedef enum xrt_capture_status {
    XRT_CAPTURE_STATUS_NONE = 0,
    XRT_CAPTURE_STATUS_ACTIVE = 1,
    XRT_CAPTURE_STATUS_INVALIDATED = 2 /* xrt_stream_end_capture will fail, naming why */
} xrt_capture_status;

/* What a graph holds (xrt_graph_get_info): nodes by kind, and the edges
   between them. Event records and waits inside a capture become edges. */
typedef struct xrt_graph_info {
    size_t nodes, kernels, copies, sets, host_fns, edges;
} xrt_graph_info;

/* xrt_graph_debug_dot_print's flags: the value of cudaGraphDebugDotFlagsVerbose */
#define XRT_GRAPH_DEBUG_DOT_VERBOSE 1u /* each node's operands too */

/* >> types: modules and kernels. A module is loaded from a set of images;
   xrt picks the one that fits the current device (xrt_get_target): an image
   whose arch equals the device's first, then a compatible one (PTX or a
   fatbin for CUDA, an image with no arch), else
   XRT_ERROR_NO_BINARY_FOR_DEVICE naming the device's arch and those offered. */
typedef enum xrt_image_kind {
    XRT_IMAGE_CPU_SHARED_OBJECT = 1, /* a shared object built from C by the system compiler */
    XRT_IMAGE_CPU_C_SOURCE = 2,      /* C source (data need not end in 0): built with XRT_CC on first use */
    XRT_IMAGE_CUDA_CUBIN = 3,        /* arch "sm_90" */
    XRT_IMAGE_CUDA_PTX = 4,          /* arch "compute_90": JIT-compiled for that arch or newer */
    XRT_IMAGE_CUDA_FATBIN = 5,       /* nvcc -fatbin: the driver picks inside it */
    XRT_IMAGE_HIP_CODE_OBJECT = 6,   /* arch "gfx90a" */
    XRT_IMAGE_HIP_OFFLOAD_BUNDLE = 7 /* clang offload bundle: the runtime picks inside it */
} xrt_image_kind;

typedef struct xrt_module_image {
    xrt_image_kind kind;
    const void *data;
    size_t size;      /* bytes of data */
    const char *arch; /* the arch it was built for ("sm_90", "gfx90a", "x86_64"); NULL or "" = any */
} xrt_module_image;

/* xrt_dim3: a grid's or a block's shape.
   What a CPU kernel receives, once per block: `void k(const xrt_kernel_ctx
   *ctx, void *args)`. The kernel loops over its block's threads itself;
   `shared` is the block's shared memory (shared_bytes of the launch, 64-byte
   aligned, not zeroed), private to the worker running the block; `args` is
   the launch's packed argument buffer (a copy, aligned to 16 bytes).
   These declarations are also the kernel header xrt gives a C-source
   kernel's compiler: its `#include "xrt.h"` finds them with no option
   (a -I to the full xrt.h comes first). One macro, so they cannot drift.
   A CPU kernel `k` declares its parameters' layout, for
   xrt_function_get_param_info and xrt_launch_kernel_params, as an array
   `const xrt_kernel_param k_xrt_params[]` of each parameter's offset and
   size in its argument struct, ended by an entry of size 0 (extern "C" in
   C++): {{offsetof(k_args, y), sizeof(float *)}, ..., {0, 0}}. */
#define XRT__KERNEL_DECLS                                                                          \
    typedef struct xrt_dim3 { unsigned x, y, z; } xrt_dim3;                                        \
    typedef struct xrt_kernel_ctx {                                                                \
        xrt_dim3 grid_dim, block_dim, block_idx;                                                   \
        void *shared;                                                                              \
        size_t shared_bytes;                                                                       \
    } xrt_kernel_ctx;                                                                              \
    typedef void (*xrt_cpu_kernel_fn)(const xrt_kernel_ctx *ctx, void *args);                      \
    typedef struct xrt_kernel_param { size_t offset, size; } xrt_kernel_param;
XRT__KERNEL_DECLS

typedef struct xrt_function_attributes {
    int max_threads_per_block;
    size_t shared_size_bytes; /* static shared memory; 0 where unknown (CPU) */
    size_t max_dynamic_shared_bytes; /* the most shared_bytes a launch may ask for */
    int num_regs;             /* registers per thread; 0 where unknown (CPU) */
} xrt_function_attributes;

/* What xrt_function_set_attribute sets: the values of CUDA's cudaFuncAttribute
   (and CUfunction_attribute, hipFuncAttribute). */
typedef enum xrt_function_attribute {
    /* the most dynamic shared memory a launch of the function may ask for
       (cudaFuncAttributeMaxDynamicSharedMemorySize): 48 KiB until raised,
       up to the device's opt-in limit (the CPU backend's: 1 MiB) */
    XRT_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
} xrt_function_attribute;
#define XRT_DEFAULT_MAX_DYNAMIC_SHARED_BYTES (48u * 1024u)

/* The kernel cache (see xrt_module_load): counters since the process started. */
typedef struct xrt_cache_stats {
    uint64_t hits;      /* a module found built in the cache */
    uint64_t misses;    /* not found (or unloadable): built */
    uint64_t builds;    /* compiler runs, failed ones included */
    uint64_t evictions; /* entries removed to stay under XRT_CACHE_BYTES */
    uint64_t bytes;     /* bytes in the cache directory after this process's last write */
} xrt_cache_stats;

typedef void (*xrt_host_fn)(void *user);
/* cudaStreamCallback_t: the stream it was added to and its status
   (XRT_SUCCESS: xrt runs no callback after a failure of the stream) */
typedef void (*xrt_stream_callback)(xrt_stream stream, xrt_status status, void *user);

/* >> types: graphs built node by node (xrt_graph_create, xrt_graph_add_node
   & co), as CUDA's cudaGraphAddNode. A built graph and a captured one are the
   same object: nodes may be added to a captured graph, and either is
   instantiated, cloned and updated alike. A node belongs to its graph: it
   lives until xrt_graph_destroy_node or its graph's destroy, after which its
   handle is stale. Values are CUDA's (cudaGraphNodeType). */
typedef struct xrt_graph_node_s *xrt_graph_node;

typedef enum xrt_graph_node_type {
    XRT_GRAPH_NODE_KERNEL = 0,       /* xrt_launch_kernel */
    XRT_GRAPH_NODE_MEMCPY = 1,       /* a 1-D copy (cudaGraphAddMemcpyNode1D) */
    XRT_GRAPH_NODE_MEMSET = 2,       /* a 2-D set of 1-, 2- or 4-byte values */
    XRT_GRAPH_NODE_HOST = 3,         /* xrt_launch_host_func */
    XRT_GRAPH_NODE_GRAPH = 4,        /* a child graph: a copy of the graph given */
    XRT_GRAPH_NODE_EMPTY = 5,        /* nothing: a point that others depend on */
    XRT_GRAPH_NODE_WAIT_EVENT = 6,   /* xrt_stream_wait_event */
    XRT_GRAPH_NODE_EVENT_RECORD = 7, /* xrt_event_record */
    XRT_GRAPH_NODE_MEM_ALLOC = 10,   /* xrt_malloc_async */
    XRT_GRAPH_NODE_MEM_FREE = 11     /* xrt_free_async */
} xrt_graph_node_type;

typedef struct xrt_kernel_node_params {
    xrt_function function;
    xrt_dim3 grid, block;
    size_t shared_bytes;
    const void *args; /* the packed arguments, copied into the node (xrt_launch_kernel's) */
    size_t args_size;
} xrt_kernel_node_params;

/* 3-D memory, as CUDA's cudaPitchedPtr, cudaExtent, cudaPos and
   cudaMemcpy3DParms without arrays: a box of depth slices of height rows of
   width bytes. A pitched pointer's rows are pitch bytes apart and its slices
   pitch * ysize (xsize: the row's bytes in use, informative); a position is
   (x bytes, y rows, z slices) into one. */
typedef struct xrt_pitched_ptr {
    void *ptr;
    size_t pitch, xsize, ysize;
} xrt_pitched_ptr;
typedef struct xrt_extent {
    size_t width, height, depth; /* width in bytes */
} xrt_extent;
typedef struct xrt_pos {
    size_t x, y, z;
} xrt_pos;
typedef struct xrt_memcpy_3d_parms { /* cudaMemcpy3DParms less srcArray and dstArray */
    xrt_pos src_pos;
    xrt_pitched_ptr src_ptr;
    xrt_pos dst_pos;
    xrt_pitched_ptr dst_ptr;
    xrt_extent extent;
    xrt_memcpy_kind kind;
} xrt_memcpy_3d_parms;

typedef struct xrt_memcpy_node_params {
    void *dst;
    const void *src;
    size_t size;
    xrt_memcpy_kind kind;
} xrt_memcpy_node_params;

typedef struct xrt_memset_node_params { /* cudaMemsetParams: height rows of width elements, pitch bytes apart */
    void *dst;
    size_t pitch;          /* bytes; unused where height is 1 */
    unsigned value;        /* its low element_size bytes */
    unsigned element_size; /* 1, 2 or 4 */
    size_t width, height;  /* in elements, in rows */
} xrt_memset_node_params;

typedef struct xrt_host_node_params {
    xrt_host_fn fn;
    void *user;
} xrt_host_node_params;

typedef struct xrt_mem_alloc_node_params {
    int device;
    size_t size;
    void *ptr; /* out: the address the graph's allocation has at every launch */
} xrt_mem_alloc_node_params;

typedef struct xrt_child_graph_node_params {
    xrt_graph graph; /* get_params: the node's own copy, owned by the node */
} xrt_child_graph_node_params;

typedef struct xrt_event_node_params { xrt_event event; } xrt_event_node_params; /* WAIT_EVENT, EVENT_RECORD */
typedef struct xrt_mem_free_node_params { void *ptr; } xrt_mem_free_node_params;

/* A node's kind and parameters (cudaGraphNodeParams): `type` says which member holds. */
typedef struct xrt_graph_node_params {
    xrt_graph_node_type type;
    union {
        xrt_kernel_node_params kernel;
        xrt_memcpy_node_params copy;
        xrt_memset_node_params set;
        xrt_host_node_params host;
        xrt_child_graph_node_params child;
        xrt_event_node_params event;
        xrt_mem_alloc_node_params alloc;
        xrt_mem_free_node_params mem_free;
    };
} xrt_graph_node_params;

/* xrt_graph_instantiate_with_flags's flags: cudaGraphInstantiateFlags, the same values. */
enum {
    /* each launch first frees (as xrt_free_async on its stream) the previous launch's
       allocations that the caller has not freed */
    XRT_GRAPH_INSTANTIATE_AUTO_FREE_ON_LAUNCH = 1,
    /* CUDA's takes it through cudaGraphInstantiateWithParams only: refused, use xrt_graph_upload */
    XRT_GRAPH_INSTANTIATE_UPLOAD = 2,
    XRT_GRAPH_INSTANTIATE_DEVICE_LAUNCH = 4,     /* launchable from device code: not with AUTO_FREE_ON_LAUNCH */
    XRT_GRAPH_INSTANTIATE_USE_NODE_PRIORITY = 8  /* kernel nodes' own priorities, not the launch stream's */
};

/* Why xrt_graph_exec_update_with_result refused (cudaGraphExecUpdateResult's values). */
typedef enum xrt_graph_exec_update_code {
    XRT_GRAPH_EXEC_UPDATE_SUCCESS = 0,
    XRT_GRAPH_EXEC_UPDATE_ERROR = 1,                    /* none of the below: e.g. another device */
    XRT_GRAPH_EXEC_UPDATE_TOPOLOGY_CHANGED = 2,         /* nodes or edges differ */
    XRT_GRAPH_EXEC_UPDATE_NODE_TYPE_CHANGED = 3,
    XRT_GRAPH_EXEC_UPDATE_FUNCTION_CHANGED = 4,         /* a kernel's function, in a way not allowed */
    XRT_GRAPH_EXEC_UPDATE_PARAMETERS_CHANGED = 5,       /* a copy's memory types or devices, a 2-D memset */
    XRT_GRAPH_EXEC_UPDATE_NOT_SUPPORTED = 6,            /* a node that is never updated: memory nodes */
    XRT_GRAPH_EXEC_UPDATE_UNSUPPORTED_FUNCTION_CHANGE = 7,
    XRT_GRAPH_EXEC_UPDATE_ATTRIBUTES_CHANGED = 8
} xrt_graph_exec_update_code;

/* cudaGraphExecUpdateResultInfo: the code, the node of the graph given that
   made the update fail (NULL where none is to blame, e.g. a node count), and
   for a changed edge the node it comes from. */
typedef struct xrt_graph_exec_update_result {
    xrt_graph_exec_update_code result;
    xrt_graph_node error_node, error_from_node;
} xrt_graph_exec_update_result;

typedef enum xrt_log_level {
    XRT_LOG_ENV = -1, /* for xrt_set_log_level: back to XRT_LOG (or, unset, warnings only) */
    XRT_LOG_NONE = 0, XRT_LOG_ERROR, XRT_LOG_WARN, XRT_LOG_INFO, XRT_LOG_DEBUG
} xrt_log_level;
typedef void (*xrt_log_fn)(xrt_log_level level, const char *message, void *user);

typedef struct xrt_plugin_info {
    const char *path;    /* as given to xrt_load_plugin or in XRT_PLUGINS */
    int loaded;          /* 1 if its backend is registered */
    const char *backend; /* that backend's name, NULL if not loaded */
    const char *reason;  /* why not, when loaded == 0 ("" otherwise) */
    const char *origin;  /* what named it: "XRT_PLUGINS", "XRT_PLUGIN_PATH" (path: its directory's
                            entry) or "xrt_load_plugin" */
} xrt_plugin_info;

typedef struct xrt_backend_info {
    const char *name;
    int available;      /* 1 if usable on this machine */
    const char *reason; /* why not, when available == 0 ("" otherwise) */
    uint32_t abi_version;
    /* The vendor runtime the backend loaded when it was probed, also when it
       then found no device or driver: its file (a full path, also where
       XRT_CUDA_LIBRARY named it by a relative one; "" for the CPU,
       plugins, or a runtime that did not load) and the versions it reports
       (cudaRuntimeGetVersion / cudaDriverGetVersion, HIP's equivalents:
       13000 is 13.0; 0 when unknown or, for the driver, absent). */
    const char *library;
    int runtime_version;
    int driver_version;
} xrt_backend_info;


#ifdef __cplusplus
}
#endif

/* A header not copied beside xrt.h: say which, where the compiler can tell,
   rather than "No such file". */
#if defined(__has_include)
#if !__has_include("xrt_backends.h")
#error "xrt.h: xrt_backends.h is not beside xrt.h: copy it too (README.md, Vendoring: the headers of each build)"
#endif
#endif
#include "xrt_backends.h"

#ifdef __cplusplus
extern "C" {
#endif

/* >> api: every public function. The inline ones dispatch to the calling
   thread's backend (bodies under ">> dispatch" below); the others live in the
   XRT_IMPL unit. All return XRT_SUCCESS or an error status. */

/* errors and logging */
XRT_API xrt_status xrt_get_last_error(void);               /* the thread's last error; resets it */
XRT_API xrt_status xrt_peek_at_last_error(void);           /* the thread's last error */
XRT_API const char *xrt_get_last_error_string(void);       /* its detail: call, backend, native code */
XRT_API void xrt_set_log_callback(xrt_log_fn fn, void *user); /* NULL: back to stderr; called with no xrt lock held */
XRT_API void xrt_set_log_level(xrt_log_level level);       /* overrides XRT_LOG, also after xrt_init */

/* lifecycle */
XRT_API xrt_status xrt_init(void);                         /* idempotent; any first call does it */
XRT_API void xrt_shutdown(void);                           /* drains, frees everything; others must be idle */
XRT_API xrt_status xrt_runtime_get_version(int *version);  /* XRT_VERSION of the XRT_IMPL unit */

/* backends */
XRT_API xrt_status xrt_backend_count(int *count);          /* built-in and registered */
XRT_API xrt_status xrt_backend_get_info(int index, xrt_backend_info *info);
XRT_API xrt_status xrt_set_backend(const char *name);      /* for the calling thread */
XRT_API xrt_status xrt_get_backend(const char **name);     /* the calling thread's */
/* A library's calls on its own backend without moving its caller's thread
   (CUDA's cuCtxPushCurrent / cuCtxPopCurrent). A handle names a registered,
   available backend (name NULL: the thread's own) until xrt_shutdown; it costs
   a registry lookup once. xrt_push_backend makes the handle's backend the
   thread's, and with a device >= 0 that backend's current device too;
   xrt_pop_backend restores what the matching push saved (the backend, and the
   device where one was given) and gives the popped handle (popped may be
   NULL). Pushes nest XRT_BACKEND_STACK_DEPTH deep per thread; a push and a pop
   cost a few thread-local stores (with a device, also the backend's
   get/set device). See REFERENCE.md "Using xrt inside a library". */
typedef struct xrt_backend_handle_s *xrt_backend_handle;
#define XRT_BACKEND_STACK_DEPTH 16
#define XRT_DEVICE_CURRENT (-1) /* xrt_push_backend: leave the backend's device as it is */
XRT_API xrt_status xrt_get_backend_handle(const char *name, xrt_backend_handle *handle);
XRT_API xrt_status xrt_push_backend(xrt_backend_handle handle, int device);
XRT_API xrt_status xrt_pop_backend(xrt_backend_handle *popped);
static inline xrt_status xrt_get_capabilities(unsigned *caps); /* XRT_CAP_* of the thread's backend */

/* plugins: backends in shared objects (see xrt_backends.h); never unloaded */
XRT_API xrt_status xrt_load_plugin(const char *path);      /* a path or soname; once per process */
XRT_API xrt_status xrt_plugin_count(int *count);           /* loaded or failed, in load order */
XRT_API xrt_status xrt_plugin_get_info(int index, xrt_plugin_info *info);

/* devices (per thread, as in CUDA) */
static inline xrt_status xrt_get_device_count(int *count);
static inline xrt_status xrt_set_device(int device);
static inline xrt_status xrt_get_device(int *device);
static inline xrt_status xrt_device_synchronize(void);
/* The current device's flags, as cudaSetDeviceFlags / cudaGetDeviceFlags:
   at most one XRT_DEVICE_SCHEDULE_* (how a host thread waits for the
   device's work: a synchronize, a blocking copy) OR'ed with
   XRT_DEVICE_MAP_HOST and XRT_DEVICE_LMEM_RESIZE_TO_MAX (CUDA's values). An
   unknown bit or two schedule bits: XRT_ERROR_INVALID_VALUE. The get answers
   what was set, with XRT_DEVICE_MAP_HOST, which CUDA's runtime always
   implies (REFERENCE.md, "Device flags"). */
enum {
    XRT_DEVICE_SCHEDULE_AUTO = 0,
    XRT_DEVICE_SCHEDULE_SPIN = 1,
    XRT_DEVICE_SCHEDULE_YIELD = 2,
    XRT_DEVICE_SCHEDULE_BLOCKING_SYNC = 4,
    XRT_DEVICE_SCHEDULE_MASK = 7,
    XRT_DEVICE_MAP_HOST = 8,
    XRT_DEVICE_LMEM_RESIZE_TO_MAX = 0x10
};
static inline xrt_status xrt_set_device_flags(unsigned flags);
static inline xrt_status xrt_get_device_flags(unsigned *flags);
/* The current device's limits, as cudaLimit (the same values); what each
   means on each backend: REFERENCE.md, "Device limits". */
typedef enum xrt_limit {
    XRT_LIMIT_STACK_SIZE = 0,
    XRT_LIMIT_PRINTF_FIFO_SIZE = 1,
    XRT_LIMIT_MALLOC_HEAP_SIZE = 2,
    XRT_LIMIT_DEV_RUNTIME_SYNC_DEPTH = 3,
    XRT_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT = 4,
    XRT_LIMIT_MAX_L2_FETCH_GRANULARITY = 5,
    XRT_LIMIT_PERSISTING_L2_CACHE_SIZE = 6
} xrt_limit;
static inline xrt_status xrt_device_set_limit(xrt_limit limit, size_t value); /* cudaDeviceSetLimit */
static inline xrt_status xrt_device_get_limit(size_t *value, xrt_limit limit); /* cudaDeviceGetLimit */
/* A preference between L1 cache and shared memory, as cudaFuncCache (the same
   values): the current device's (cudaDeviceSetCacheConfig,
   cudaDeviceGetCacheConfig) and a function's (cudaFuncSetCacheConfig, in
   xrt_function_set_cache_config below). REFERENCE.md, "Device limits". */
typedef enum xrt_func_cache {
    XRT_FUNC_CACHE_PREFER_NONE = 0,
    XRT_FUNC_CACHE_PREFER_SHARED = 1,
    XRT_FUNC_CACHE_PREFER_L1 = 2,
    XRT_FUNC_CACHE_PREFER_EQUAL = 3
} xrt_func_cache;
static inline xrt_status xrt_device_set_cache_config(xrt_func_cache config);
static inline xrt_status xrt_device_get_cache_config(xrt_func_cache *config);
/* GPUDirect RDMA, as CUDA's: writes that a NIC (or another device) made
   into device memory, made visible to the current device's work
   (XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER) or to every device's
   (_TO_ALL_DEVICES): cudaDeviceFlushGPUDirectRDMAWrites, blocking until
   they are. Whether a device needs it: XRT_DEVATTR_GPU_DIRECT_RDMA_* (the
   flush's options, a mask of XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_*;
   the writes' ordering, XRT_GPU_DIRECT_RDMA_WRITES_ORDERING_*: writes to
   the device need no flush for consumers within that scope). CUDA's
   values. REFERENCE.md, "GPUDirect RDMA writes". */
typedef enum xrt_flush_rdma_target {
    XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_DEVICE = 0
} xrt_flush_rdma_target;
typedef enum xrt_flush_rdma_scope {
    XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER = 100,
    XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_ALL_DEVICES = 200
} xrt_flush_rdma_scope;
#define XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST 1   /* xrt_device_flush_gpu_direct_rdma_writes works */
#define XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_MEMOPS 2 /* the device's own flushing memory operations do */
#define XRT_GPU_DIRECT_RDMA_WRITES_ORDERING_NONE 0
#define XRT_GPU_DIRECT_RDMA_WRITES_ORDERING_OWNER 100
#define XRT_GPU_DIRECT_RDMA_WRITES_ORDERING_ALL_DEVICES 200
static inline xrt_status xrt_device_flush_gpu_direct_rdma_writes(xrt_flush_rdma_target target,
                                                                 xrt_flush_rdma_scope scope);
/* As cudaDeviceReset: waits for the current device's work, then destroys
   its device and managed memory (xrt_free'd as it were; pinned host memory
   stays) and its streams, events and memory
   pools (their handles then fail with XRT_ERROR_INVALID_HANDLE) and resets
   its state (peer access); what each backend resets is in REFERENCE.md
   ("Device reset"). The caller must not use the device from other threads
   meanwhile, as in CUDA. */
static inline xrt_status xrt_device_reset(void);
static inline xrt_status xrt_get_device_properties(xrt_device_prop *prop, int device);
static inline xrt_status xrt_get_target(xrt_target *target);  /* of the current device, computed now */
/* One attribute of a device, as cudaDeviceGetAttribute (unknown attribute:
   XRT_ERROR_INVALID_VALUE; one the runtime lacks: XRT_ERROR_UNSUPPORTED). */
static inline xrt_status xrt_device_get_attribute(int *value, xrt_device_attr attr, int device);
/* A device's PCI address "domain:bus:device.function" in hex, as
   cudaDeviceGetPCIBusId (len >= XRT_PCI_BUS_ID_SIZE; the CPU backend's devices
   have none: XRT_ERROR_UNSUPPORTED), and the device at such an address, as
   cudaDeviceGetByPCIBusId ("dddd:bb:dd.f", "dddd:bb:dd" or "bb:dd.f"; malformed:
   XRT_ERROR_INVALID_VALUE; no device there: XRT_ERROR_INVALID_DEVICE). */
static inline xrt_status xrt_device_get_pci_bus_id(char *bus_id, int len, int device);
static inline xrt_status xrt_device_get_by_pci_bus_id(int *device, const char *bus_id);
/* The driver version of the thread's backend as its runtime reported it when
   probed (cudaDriverGetVersion: 13000 is 13.0; 0 without a driver); a backend
   that loads no vendor runtime (the CPU, plugins): XRT_VERSION. */
XRT_API xrt_status xrt_driver_get_version(int *version);
XRT_API uint64_t xrt_target_fingerprint(const xrt_target *target); /* of backend, arch, width, features */
/* peers (cudaDeviceCanAccessPeer, cudaDeviceEnablePeerAccess, cudaMemcpyPeer):
   enable and disable act for the current device; a device is not its own peer;
   flags must be 0. A peer copy copies between device memory of dst_device and
   src_device, whole allocations' ranges only, with or without enabled access. */
static inline xrt_status xrt_device_can_access_peer(int *can, int device, int peer);
static inline xrt_status xrt_device_enable_peer_access(int peer, unsigned flags);
static inline xrt_status xrt_device_disable_peer_access(int peer);
/* As cudaDeviceGetP2PAttribute (the same values): the link from src to dst,
   two different devices; ACCESS_SUPPORTED is xrt_device_can_access_peer's
   answer. */
typedef enum xrt_p2p_attr {
    XRT_P2P_ATTR_PERFORMANCE_RANK = 1,          /* 0: the best link */
    XRT_P2P_ATTR_ACCESS_SUPPORTED = 2,
    XRT_P2P_ATTR_NATIVE_ATOMIC_SUPPORTED = 3,
    XRT_P2P_ATTR_CUDA_ARRAY_ACCESS_SUPPORTED = 4
} xrt_p2p_attr;
static inline xrt_status xrt_device_get_p2p_attribute(int *value, xrt_p2p_attr attr, int src, int dst);
/* As cudaMemcpyPeer: asynchronous with respect to the host, serialized with
   the work queued before and after it on the current, source and destination
   devices (their NULL streams and, so, their blocking streams) */
static inline xrt_status xrt_memcpy_peer(void *dst, int dst_device, const void *src, int src_device, size_t size);
static inline xrt_status xrt_memcpy_peer_async(void *dst, int dst_device, const void *src, int src_device, size_t size,
                                               xrt_stream stream);
XRT_API xrt_status xrt_target_to_string(const xrt_target *target, char *buf, size_t size); /* "cuda:sm_90:32" */

/* memory: every allocation is aligned to XRT_ALIGNMENT; xrt_malloc of size 0
   gives NULL and success (as cudaMalloc), the other allocations refuse it;
   freeing NULL is a no-op; freeing what xrt did not allocate, or twice, is
   XRT_ERROR_INVALID_VALUE, as cudaFree (another backend's memory:
   XRT_ERROR_INVALID_POINTER) */
#define XRT_ALIGNMENT 256
static inline xrt_status xrt_malloc(void **ptr, size_t size);            /* device memory */
static inline xrt_status xrt_free(void *ptr);                            /* waits for the device, as cudaFree */
static inline xrt_status xrt_malloc_host(void **ptr, size_t size);       /* pinned host memory */
/* Registered host memory, as cudaHostRegister, cudaHostUnregister and
   cudaHostGetDevicePointer: an existing host range [ptr, ptr + size) becomes
   pinned host memory (pointer attributes say XRT_MEMORY_PINNED_HOST, copies
   of it are asynchronous) until xrt_host_unregister(ptr). flags: an OR of
   XRT_HOST_REGISTER_* (CUDA's values). A range that overlaps a registered
   one or an xrt allocation is XRT_ERROR_HOST_MEMORY_ALREADY_REGISTERED; ptr
   that starts no registered range, XRT_ERROR_HOST_MEMORY_NOT_REGISTERED.
   Memory the process maps read-only needs XRT_HOST_REGISTER_READ_ONLY, as
   cudaHostRegisterReadOnly; memory mapped PROT_NONE cannot be registered
   (XRT_ERROR_INVALID_VALUE). A range registered read-only is never a
   copy's or set's destination (XRT_ERROR_INVALID_VALUE).
   xrt_host_get_device_pointer: the device's address of pinned host memory
   (flags 0). */
enum {
    XRT_HOST_REGISTER_DEFAULT = 0,
    XRT_HOST_REGISTER_PORTABLE = 1,
    XRT_HOST_REGISTER_MAPPED = 2,
    XRT_HOST_REGISTER_IO_MEMORY = 4,
    XRT_HOST_REGISTER_READ_ONLY = 8
};
static inline xrt_status xrt_host_register(void *ptr, size_t size, unsigned flags);
static inline xrt_status xrt_host_unregister(void *ptr);
static inline xrt_status xrt_host_get_device_pointer(void **dptr, void *hptr, unsigned flags);
/* Mapped host allocation, as cudaHostAlloc and cudaHostGetFlags: pinned host
   memory as xrt_malloc_host's (freed with xrt_free_host) with flags, an OR
   of XRT_HOST_ALLOC_* (CUDA's values; an unknown bit or size 0 is
   XRT_ERROR_INVALID_VALUE). xrt_host_get_flags gives the flags of the
   allocation ptr points into (xrt_malloc_host's: 0); other memory, registered
   ranges included, is XRT_ERROR_INVALID_VALUE. */
enum {
    XRT_HOST_ALLOC_DEFAULT = 0,
    XRT_HOST_ALLOC_PORTABLE = 1,
    XRT_HOST_ALLOC_MAPPED = 2,
    XRT_HOST_ALLOC_WRITE_COMBINED = 4
};
static inline xrt_status xrt_host_alloc(void **ptr, size_t size, unsigned flags);
static inline xrt_status xrt_host_get_flags(unsigned *flags, void *ptr);
static inline xrt_status xrt_free_host(void *ptr);
static inline xrt_status xrt_malloc_async(void **ptr, size_t size, xrt_stream stream); /* stream-ordered */
static inline xrt_status xrt_free_async(void *ptr, xrt_stream stream);   /* released when the stream gets there */
/* Managed memory, as cudaMallocManaged, cudaMemPrefetchAsync, cudaMemAdvise
   and cudaStreamAttachMemAsync: memory the host and every device use at the
   same addresses (pointer attributes say XRT_MEMORY_MANAGED), freed with
   xrt_free. xrt_malloc_managed's flags: XRT_MEM_ATTACH_GLOBAL (CUDA's
   default) or XRT_MEM_ATTACH_HOST; size 0 is XRT_ERROR_INVALID_VALUE.
   xrt_mem_prefetch_async moves [ptr, ptr + count) towards `device`
   (XRT_CPU_DEVICE_ID: the host) in stream order; xrt_mem_advise records an
   XRT_MEM_ADVISE_* (cudaMemoryAdvise's values) for the range;
   xrt_stream_attach_mem_async attaches a whole allocation (length 0 or its
   size) with exactly one XRT_MEM_ATTACH_* flag (XRT_MEM_ATTACH_SINGLE not
   to the legacy NULL stream, as CUDA). A range not inside one
   managed allocation, an unknown advice or flag is XRT_ERROR_INVALID_VALUE;
   a device neither XRT_CPU_DEVICE_ID nor in range, XRT_ERROR_INVALID_DEVICE.
   What each does on each backend: REFERENCE.md, "Managed memory". */
#define XRT_CPU_DEVICE_ID (-1) /* the host, as cudaCpuDeviceId */
enum { XRT_MEM_ATTACH_GLOBAL = 1, XRT_MEM_ATTACH_HOST = 2, XRT_MEM_ATTACH_SINGLE = 4 };
typedef enum xrt_mem_advice {
    XRT_MEM_ADVISE_SET_READ_MOSTLY = 1,
    XRT_MEM_ADVISE_UNSET_READ_MOSTLY = 2,
    XRT_MEM_ADVISE_SET_PREFERRED_LOCATION = 3,
    XRT_MEM_ADVISE_UNSET_PREFERRED_LOCATION = 4,
    XRT_MEM_ADVISE_SET_ACCESSED_BY = 5,
    XRT_MEM_ADVISE_UNSET_ACCESSED_BY = 6
} xrt_mem_advice;
static inline xrt_status xrt_malloc_managed(void **ptr, size_t size, unsigned flags);
static inline xrt_status xrt_mem_prefetch_async(const void *ptr, size_t count, int device, xrt_stream stream);
static inline xrt_status xrt_mem_advise(const void *ptr, size_t count, int advice, int device);
static inline xrt_status xrt_stream_attach_mem_async(xrt_stream stream, void *ptr, size_t length, unsigned flags);
/* As cudaMemRangeGetAttribute: what the advice and prefetches so far say of
   every page of [ptr, ptr + count), inside one managed allocation. READ_MOSTLY:
   an int, 1 if every page is read-mostly; PREFERRED_LOCATION and
   LAST_PREFETCH_LOCATION: an int, the location every page shares (a device
   or XRT_CPU_DEVICE_ID), else XRT_INVALID_DEVICE_ID; ACCESSED_BY: an array
   of ints, the locations set for the whole range, then XRT_INVALID_DEVICE_ID
   in the slots left. data_size is 4, or for ACCESSED_BY a multiple of 4, not
   0; else XRT_ERROR_INVALID_VALUE. A prefetch counts from its call, not from
   when the stream gets there. */
#define XRT_INVALID_DEVICE_ID (-2) /* as cudaInvalidDeviceId */
typedef enum xrt_mem_range_attribute {
    XRT_MEM_RANGE_ATTRIBUTE_READ_MOSTLY = 1,
    XRT_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION = 2,
    XRT_MEM_RANGE_ATTRIBUTE_ACCESSED_BY = 3,
    XRT_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION = 4
} xrt_mem_range_attribute;
static inline xrt_status xrt_mem_range_get_attribute(void *data, size_t data_size, int attribute, const void *ptr,
                                                     size_t count);
static inline xrt_status xrt_mem_get_info(size_t *free_bytes, size_t *total_bytes);
static inline xrt_status xrt_memset(void *dst, int value, size_t size); /* NULL stream's order; may return early */
static inline xrt_status xrt_memset_async(void *dst, int value, size_t size, xrt_stream stream);
/* xrt_memcpy: done when it returns, except into device memory from device or pageable memory */
static inline xrt_status xrt_memcpy(void *dst, const void *src, size_t size, xrt_memcpy_kind kind);
static inline xrt_status xrt_memcpy_async(void *dst, const void *src, size_t size, xrt_memcpy_kind kind,
                                          xrt_stream stream);
static inline xrt_status xrt_pointer_get_attributes(xrt_pointer_attributes *attr, const void *ptr);
/* Memory pools, as cudaMemPool*: xrt_malloc_async allocates from its
   device's current pool (the default pool unless xrt_device_set_mem_pool
   chose another), xrt_malloc_from_pool_async from the given one; a free
   gives the block back to its pool in stream order, and the pool keeps free
   blocks up to its release threshold (0 by default: what is over goes back
   at the next synchronize). The default pool cannot be destroyed; a pool
   destroyed with allocations outstanding goes once they are freed (as
   CUDA). REFERENCE.md: "Memory pools". */
static inline xrt_status xrt_device_get_default_mem_pool(xrt_mem_pool *pool, int device);
static inline xrt_status xrt_device_get_mem_pool(xrt_mem_pool *pool, int device);
static inline xrt_status xrt_device_set_mem_pool(int device, xrt_mem_pool pool);
static inline xrt_status xrt_mem_pool_create(xrt_mem_pool *pool, const xrt_mem_pool_props *props);
static inline xrt_status xrt_mem_pool_destroy(xrt_mem_pool pool);
static inline xrt_status xrt_mem_pool_set_attribute(xrt_mem_pool pool, xrt_mem_pool_attr attr, void *value);
static inline xrt_status xrt_mem_pool_get_attribute(xrt_mem_pool pool, xrt_mem_pool_attr attr, void *value);
static inline xrt_status xrt_mem_pool_trim_to(xrt_mem_pool pool, size_t min_bytes_to_keep);
static inline xrt_status xrt_malloc_from_pool_async(void **ptr, size_t size, xrt_mem_pool pool, xrt_stream stream);
/* Which devices reach a pool's memory, as cudaMemPoolSetAccess and
   cudaMemPoolGetAccess (cudaMemAccessDesc with a device location; the flags
   are cudaMemAccessFlags' values). The pool's own device is always
   READ_WRITE; READ alone is unsupported. xrt_mem_access_desc: by
   xrt_mem_pool_props. REFERENCE.md: "Memory pool access". */
static inline xrt_status xrt_mem_pool_set_access(xrt_mem_pool pool, const xrt_mem_access_desc *descs, size_t count);
static inline xrt_status xrt_mem_pool_get_access(unsigned *flags, xrt_mem_pool pool, int device);
/* As cudaDeviceGraphMemTrim: memory the runtime keeps on device for graphs'
   allocations and that no allocation uses now goes back to the system
   (REFERENCE.md, "Graphs built node by node"). */
static inline xrt_status xrt_device_graph_mem_trim(int device);
/* The memory of a device's graphs' allocations, as
   cudaDeviceGetGraphMemAttribute and cudaDeviceSetGraphMemAttribute (value:
   a uint64_t of bytes; the current amounts are read only, a high-water mark
   can only be reset, to 0, which starts it again from the current amount).
   REFERENCE.md, "Graphs built node by node". */
typedef enum xrt_graph_mem_attr {
    XRT_GRAPH_MEM_ATTR_USED_MEM_CURRENT = 0,     /* bytes of the graphs' allocations, live or not */
    XRT_GRAPH_MEM_ATTR_USED_MEM_HIGH = 1,        /* its high-water mark since the last reset */
    XRT_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT = 2, /* bytes held for them (whole pages, granules) */
    XRT_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH = 3
} xrt_graph_mem_attr;
static inline xrt_status xrt_device_get_graph_mem_attribute(int device, xrt_graph_mem_attr attr, void *value);
static inline xrt_status xrt_device_set_graph_mem_attribute(int device, xrt_graph_mem_attr attr, void *value);
/* Pitched memory, as cudaMallocPitch, cudaMemcpy2D, cudaMemset2D and cuMemsetD16/D32.
   xrt_malloc_pitch allocates height rows of width bytes as device memory,
   each row starting at a multiple of *pitch (a multiple of XRT_ALIGNMENT, at
   least width); a width or height of 0 gives NULL, pitch 0 and success. A 2-D
   copy copies height rows of width bytes from src (rows spitch bytes apart)
   to dst (dpitch apart): a pitch less than width, a rectangle whose span
   ((height - 1) * pitch + width) overflows or overruns its allocation is
   XRT_ERROR_INVALID_VALUE; height or width 0 is a no-op. A 2-D memset sets
   the low byte of value; xrt_memset_d16 / _d32 set count elements of 2 or 4
   bytes (dst aligned to the element). */
static inline xrt_status xrt_malloc_pitch(void **ptr, size_t *pitch, size_t width, size_t height);
static inline xrt_status xrt_memcpy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                       size_t height, xrt_memcpy_kind kind); /* NULL stream's order; may return early */
static inline xrt_status xrt_memcpy_2d_async(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                             size_t height, xrt_memcpy_kind kind, xrt_stream stream);
static inline xrt_status xrt_memset_2d(void *dst, size_t pitch, int value, size_t width, size_t height);
static inline xrt_status xrt_memset_2d_async(void *dst, size_t pitch, int value, size_t width, size_t height,
                                             xrt_stream stream);
static inline xrt_status xrt_memset_d16(void *dst, uint16_t value, size_t count);
static inline xrt_status xrt_memset_d16_async(void *dst, uint16_t value, size_t count, xrt_stream stream);
static inline xrt_status xrt_memset_d32(void *dst, uint32_t value, size_t count);
static inline xrt_status xrt_memset_d32_async(void *dst, uint32_t value, size_t count, xrt_stream stream);
/* 3-D memory, as cudaMalloc3D, cudaMemcpy3D and cudaMemset3D (CUDA arrays
   and textures are out of scope). xrt_malloc_3d allocates extent.depth
   slices of extent.height rows of extent.width bytes as one xrt_malloc: rows
   pitch bytes apart (xrt_malloc_pitch's pitch), ysize = height; an extent
   with a 0 gives a NULL pointer and success. A 3-D copy copies the extent's
   box from src_ptr at src_pos to dst_ptr at dst_pos; xrt_memset_3d sets the
   low byte of value in the extent's box at p. Each side: ptr not NULL,
   pos.x + width at most pitch, pos.y + height at most ysize (where the box
   has more than one slice or starts at a slice past the first), and its
   span (first byte to last) neither overflowing nor past its allocation:
   else XRT_ERROR_INVALID_VALUE. An extent with a 0 is a no-op. */
static inline xrt_pitched_ptr xrt_make_pitched_ptr(void *ptr, size_t pitch, size_t xsize, size_t ysize);
static inline xrt_extent xrt_make_extent(size_t width, size_t height, size_t depth);
static inline xrt_pos xrt_make_pos(size_t x, size_t y, size_t z);
static inline xrt_status xrt_malloc_3d(xrt_pitched_ptr *p, xrt_extent extent);
static inline xrt_status xrt_memcpy_3d(const xrt_memcpy_3d_parms *p); /* NULL stream's order; may return early */
static inline xrt_status xrt_memcpy_3d_async(const xrt_memcpy_3d_parms *p, xrt_stream stream);
static inline xrt_status xrt_memset_3d(xrt_pitched_ptr p, int value, xrt_extent extent); /* NULL stream's order; may return early */
static inline xrt_status xrt_memset_3d_async(xrt_pitched_ptr p, int value, xrt_extent extent, xrt_stream stream);
/* The host-page-aligned range of device memory around [ptr, ptr+size) as a
   dma-buf file descriptor (the caller closes it); *offset is ptr's offset in
   it. For registration with a NIC (ibv_reg_dmabuf_mr); UNSUPPORTED on the CPU. */
static inline xrt_status xrt_mem_export_dmabuf(const void *ptr, size_t size, int *fd, uint64_t *offset);

/* Memory and events shared between processes, as cudaIpc*. A handle of device
   memory (any pointer into an xrt_malloc / xrt_malloc_async allocation: the
   handle stands for the whole allocation) opens in another process as a
   pointer to the same bytes, at the allocation's start. Opening a handle a
   second time in a process returns the same pointer and counts the opens:
   each needs its xrt_ipc_close_mem_handle (which, like xrt_free, first waits
   for queued work). Opening a handle in the process that exported it is
   XRT_ERROR_INVALID_VALUE; a forged handle, a handle of freed memory or of
   another backend is XRT_ERROR_INVALID_HANDLE; xrt_free refuses an opened
   pointer and xrt_ipc_close_mem_handle one it did not open
   (XRT_ERROR_INVALID_VALUE, as CUDA). CPU backend: when the exporter frees
   the memory while other processes have it open, the bytes stay theirs until
   the last of them closes it; no new open succeeds after the free. */
static inline xrt_status xrt_ipc_get_mem_handle(xrt_ipc_mem_handle *handle, void *dev_ptr);
static inline xrt_status xrt_ipc_open_mem_handle(void **dev_ptr, xrt_ipc_mem_handle handle, unsigned flags);
static inline xrt_status xrt_ipc_close_mem_handle(void *dev_ptr);
/* The event must have been created with XRT_EVENT_INTERPROCESS |
   XRT_EVENT_DISABLE_TIMING (else XRT_ERROR_INVALID_HANDLE, as CUDA); the
   opened event belongs to the opener's current device, as in CUDA, and is
   destroyed with xrt_event_destroy. Both processes record,
   query, synchronize on and wait for it; on the CPU a waiter in the other
   process polls, and the event cannot be captured into a graph. */
static inline xrt_status xrt_ipc_get_event_handle(xrt_ipc_event_handle *handle, xrt_event event);
static inline xrt_status xrt_ipc_open_event_handle(xrt_event *event, xrt_ipc_event_handle handle);

/* Free hooks, for modules that keep state about memory (registration caches):
   fn(user, base, size, generation) runs for every allocation xrt releases
   (xrt_free, xrt_free_host, xrt_free_async, xrt_shutdown), after it left the
   pointer registry and before its memory goes back to the backend, on the
   freeing thread. `generation` numbers the allocation (never 0, never reused
   in a process): the allocation at the same base later has another. A hook
   must not call xrt's API (xrt_shutdown holds the backend registry's lock
   while it runs them); it may log. At most XRT_MAX_FREE_HOOKS hooks; adding
   the same (fn, user) twice is one hook. xrt_host_unregister runs them too,
   for memory that stays allocated (the user's): xrt__free_hook_unregisters()
   is 1 inside a hook run for it, 0 for a free. */
#define XRT_MAX_FREE_HOOKS 8
typedef void (*xrt_free_hook_fn)(void *user, uintptr_t base, size_t size, uint64_t generation);
XRT_API xrt_status xrt_add_free_hook(xrt_free_hook_fn fn, void *user);
XRT_API xrt_status xrt_remove_free_hook(xrt_free_hook_fn fn, void *user);
XRT_API int xrt__free_hook_unregisters(void);

/* streams (NULL is the default stream) */
static inline xrt_status xrt_stream_create(xrt_stream *stream);          /* blocking, as cudaStreamCreate's */
static inline xrt_status xrt_stream_create_with_flags(xrt_stream *stream, unsigned flags); /* XRT_STREAM_* */
static inline xrt_status xrt_stream_create_with_priority(xrt_stream *stream, unsigned flags, int priority);
static inline xrt_status xrt_stream_get_flags(xrt_stream stream, unsigned *flags);
static inline xrt_status xrt_stream_get_priority(xrt_stream stream, int *priority);
/* cudaStreamGetDevice: the device current when the stream was made; the
   NULL, legacy and per-thread streams' is the current device. */
static inline xrt_status xrt_stream_get_device(xrt_stream stream, int *device);
static inline xrt_status xrt_device_get_stream_priority_range(int *least, int *greatest); /* either may be NULL */
/* A stream's attributes (xrt_stream_attr_value and co, above). */
static inline xrt_status xrt_stream_set_attribute(xrt_stream stream, xrt_stream_attr attr,
                                                  const xrt_stream_attr_value *value);
static inline xrt_status xrt_stream_get_attribute(xrt_stream stream, xrt_stream_attr attr, xrt_stream_attr_value *value);
static inline xrt_status xrt_stream_per_thread(xrt_stream *stream); /* XRT_STREAM_PER_THREAD, made now if need be */
static inline xrt_status xrt_stream_destroy(xrt_stream stream);          /* returns at once; queued work completes */
static inline xrt_status xrt_stream_synchronize(xrt_stream stream);
static inline xrt_status xrt_stream_query(xrt_stream stream);            /* XRT_ERROR_NOT_READY while busy */
static inline xrt_status xrt_stream_wait_event(xrt_stream stream, xrt_event event); /* the event's latest record */
/* As cudaStreamWaitEvent's flags: XRT_EVENT_WAIT_DEFAULT is
   xrt_stream_wait_event; XRT_EVENT_WAIT_EXTERNAL, only on a capturing
   stream, adds an event wait node to the graph (REFERENCE.md, "Event nodes
   from a capture"). */
static inline xrt_status xrt_stream_wait_event_with_flags(xrt_stream stream, xrt_event event, unsigned flags);
static inline xrt_status xrt_launch_host_func(xrt_stream stream, xrt_host_fn fn, void *user);
/* cudaStreamAddCallback: fn(stream, XRT_SUCCESS, user) runs once when the
   stream reaches it, as a host function that may call no xrt function
   (XRT_ERROR_NOT_PERMITTED); flags must be 0; refused in a capture. */
static inline xrt_status xrt_stream_add_callback(xrt_stream stream, xrt_stream_callback fn, void *user, unsigned flags);

/* events */
static inline xrt_status xrt_event_create(xrt_event *event, unsigned flags); /* XRT_EVENT_* */
static inline xrt_status xrt_event_destroy(xrt_event event);
static inline xrt_status xrt_event_record(xrt_event event, xrt_stream stream);
/* As cudaEventRecordWithFlags: XRT_EVENT_RECORD_DEFAULT is xrt_event_record;
   XRT_EVENT_RECORD_EXTERNAL, only on a capturing stream, adds an event
   record node to the graph (REFERENCE.md, "Event nodes from a capture"). */
static inline xrt_status xrt_event_record_with_flags(xrt_event event, xrt_stream stream, unsigned flags);
static inline xrt_status xrt_event_query(xrt_event event);               /* XRT_ERROR_NOT_READY while pending */
static inline xrt_status xrt_event_synchronize(xrt_event event);
static inline xrt_status xrt_event_elapsed_time(float *ms, xrt_event start, xrt_event end);

/* interop: the native handles behind xrt's (cudaStream_t, hipEvent_t, ...) */
static inline xrt_status xrt_stream_get_native(xrt_stream stream, void **native);
static inline xrt_status xrt_event_get_native(xrt_event event, void **native);
static inline xrt_status xrt_stream_wrap_native(xrt_stream *stream, void *native); /* does not take ownership */
/* The one handle of a native stream, made on first use, nothing to destroy:
   0, cudaStreamLegacy and cudaStreamPerThread give xrt's NULL,
   XRT_STREAM_LEGACY and XRT_STREAM_PER_THREAD. */
XRT_API xrt_status xrt_stream_from_native(xrt_stream *stream, void *native);

/* modules and kernels (types under ">> types: modules and kernels").
   xrt_module_load picks the image that fits the current device, builds it if
   it is source (through the kernel cache, see below), and loads it. options:
   compiler options for a source image (split at spaces; NULL = none).
   A failed build returns XRT_ERROR_COMPILE_FAILED; the compiler's output is
   the thread's build log (xrt_module_get_log), also after a success.
   Arguments travel as ONE packed buffer (args, args_size bytes, at most
   XRT_MAX_KERNEL_ARGS), laid out as the kernel's parameters are (each at its
   alignment), copied when the launch is enqueued: the caller may reuse it at
   once. (CUDA and HIP get it through CU_LAUNCH_PARAM_BUFFER_POINTER /
   HIP_LAUNCH_PARAM_BUFFER_POINTER; CUDA's `void **` form cannot be used on
   the CPU, which cannot know the arguments' sizes.)
   xrt_module_unload invalidates the module's function handles at once;
   launches already queued still run: the module is kept alive until they
   have finished, on every backend (the CPU returns at once and closes the
   module after the last of them; CUDA and HIP wait for the module's device
   first, as cudaFree does). */
#define XRT_MAX_KERNEL_ARGS 4096
XRT_API xrt_status xrt_module_load(xrt_module *module, const xrt_module_image *images, size_t n_images,
                                   const char *options);
XRT_API xrt_status xrt_module_unload(xrt_module module);
XRT_API xrt_status xrt_module_get_function(xrt_function *function, xrt_module module, const char *name);
XRT_API const char *xrt_module_get_log(void);  /* the thread's last build log; "" if none */
static inline xrt_status xrt_launch_kernel(xrt_function function, xrt_dim3 grid, xrt_dim3 block, size_t shared_bytes,
                                           xrt_stream stream, const void *args, size_t args_size);
/* cudaLaunchKernelEx: xrt_launch_kernel with attributes for this launch
   (xrt_launch_attr; an id given twice: the last counts). A launch captured
   into a graph makes a kernel node with them. */
typedef struct xrt_launch_config { /* cudaLaunchConfig_t's fields */
    xrt_dim3 grid, block;
    size_t shared_bytes;
    xrt_stream stream;
    const xrt_launch_attribute *attrs; /* may be NULL when num_attrs is 0 */
    unsigned num_attrs;
} xrt_launch_config;
static inline xrt_status xrt_launch_kernel_ex(const xrt_launch_config *config, xrt_function function,
                                              const void *args, size_t args_size);
/* Arguments packed as a kernel's parameters are laid out: each at the next
   offset that is a multiple of its alignment, as CUDA lays out the values
   that kernelParams points to, and as a C struct of those members is laid
   out for a CPU kernel. One call site then serves every backend:
       xrt_kernel_args a;
       xrt_kernel_args_init(&a);
       XRT_KERNEL_ARG(a, y); XRT_KERNEL_ARG(a, factor); XRT_KERNEL_ARG(a, n);
       xrt_launch_kernel(k, grid, block, 0, stream, a.buf.bytes, a.size);
   xrt_kernel_args_add copies `size` bytes of `value` at `align` (a power of
   two). An argument past XRT_MAX_KERNEL_ARGS, a bad alignment or a NULL
   value is XRT_ERROR_INVALID_VALUE, and leaves a.size past the limit, so
   that a launch with those arguments is refused too. */
typedef struct xrt_kernel_args {
    size_t size; /* bytes packed */
    union {
        long double align_; /* the buffer at the strictest alignment of an argument */
        void *pointer_;
        unsigned char bytes[XRT_MAX_KERNEL_ARGS];
    } buf;
} xrt_kernel_args;
static inline void xrt_kernel_args_init(xrt_kernel_args *args) { args->size = 0; }
static inline xrt_status xrt_kernel_args_add(xrt_kernel_args *args, const void *value, size_t size, size_t align);
#define XRT_KERNEL_ARG(args, value) xrt_kernel_args_add(&(args), &(value), sizeof(value), __alignof__(value))
/* The layout of a kernel's parameters as the backend knows it
   (cuFuncGetParamInfo): parameter `index`'s offset and size in the packed
   buffer; an index past the last is XRT_ERROR_INVALID_VALUE. CUDA asks the
   driver (CUDA 12.4 on); the CPU backend reads the layout the kernel's source
   declares (k_xrt_params, see XRT__KERNEL_DECLS); HIP has no such call. A
   backend that cannot know it returns XRT_ERROR_UNSUPPORTED saying why.
   xrt_launch_kernel_params is cuLaunchKernel's kernelParams form:
   kernel_params[i] points to parameter i's value, which it packs by that
   layout and launches as xrt_launch_kernel (it may be NULL for a kernel
   without parameters). */
static inline xrt_status xrt_function_get_param_info(xrt_function function, size_t index, size_t *offset,
                                                     size_t *size);
static inline xrt_status xrt_launch_kernel_params(xrt_function function, xrt_dim3 grid, xrt_dim3 block,
                                                  size_t shared_bytes, xrt_stream stream, void **kernel_params);
/* cudaLaunchKernelExC: xrt_launch_kernel_ex with the arguments as
   kernel_params, packed by the kernel's layout. */
static inline xrt_status xrt_launch_kernel_ex_params(const xrt_launch_config *config, xrt_function function,
                                                     void **kernel_params);
static inline xrt_status xrt_function_get_attributes(xrt_function_attributes *attr, xrt_function function);
/* A module's variables (CUDA's __device__ globals, a CPU module's data
   symbols), each load's own. xrt_module_get_global gives the address (device
   memory of the module's device: xrt_memcpy reaches it with
   XRT_MEMCPY_DEFAULT) and size of variable `name`; either out-pointer may be
   NULL. An unknown name is XRT_ERROR_NOT_FOUND. The address is valid until
   the module is unloaded.
   The symbol copies name the variable by (module, name), as CUDA's
   cudaMemcpyToSymbol names it by its host shadow, which xrt cannot have:
   `count` bytes at `offset` into the variable; a copy past its end is
   XRT_ERROR_INVALID_VALUE. kind: to a symbol HOST_TO_DEVICE,
   DEVICE_TO_DEVICE or DEFAULT; from one DEVICE_TO_HOST, DEVICE_TO_DEVICE or
   DEFAULT (cudaMemcpyToSymbol's rule). */
XRT_API xrt_status xrt_module_get_global(void **ptr, size_t *size, xrt_module module, const char *name);
static inline xrt_status xrt_memcpy_to_symbol(xrt_module module, const char *symbol, const void *src, size_t count,
                                              size_t offset, xrt_memcpy_kind kind);
static inline xrt_status xrt_memcpy_from_symbol(void *dst, xrt_module module, const char *symbol, size_t count,
                                                size_t offset, xrt_memcpy_kind kind);
static inline xrt_status xrt_memcpy_to_symbol_async(xrt_module module, const char *symbol, const void *src,
                                                    size_t count, size_t offset, xrt_memcpy_kind kind,
                                                    xrt_stream stream);
static inline xrt_status xrt_memcpy_from_symbol_async(void *dst, xrt_module module, const char *symbol, size_t count,
                                                      size_t offset, xrt_memcpy_kind kind, xrt_stream stream);
/* Function attributes and occupancy (cudaFuncSetAttribute,
   cudaOccupancyMaxActiveBlocksPerMultiprocessor,
   cudaOccupancyMaxPotentialBlockSize). A launch asking for more dynamic
   shared memory than the function's limit fails (XRT_ERROR_INVALID_VALUE on
   the CPU; the runtime's error on a GPU). block_size_limit 0: the function's
   own limit. */
XRT_API xrt_status xrt_function_set_attribute(xrt_function function, xrt_function_attribute attr, int value);
XRT_API xrt_status xrt_function_set_cache_config(xrt_function function, xrt_func_cache config);
XRT_API xrt_status xrt_occupancy_max_active_blocks_per_multiprocessor(int *num_blocks, xrt_function function,
                                                                      int block_size, size_t dynamic_shared);
XRT_API xrt_status xrt_occupancy_max_potential_block_size(int *min_grid_size, int *block_size, xrt_function function,
                                                          size_t dynamic_shared, int block_size_limit);
/* The kernel cache: where built modules are kept (env XRT_CACHE_DIR, default
   $XDG_CACHE_HOME/xrt or ~/.cache/xrt; XRT_CACHE=0 turns it off; XRT_CACHE_BYTES
   bounds its size, least recently used entries go first). A directory or an
   entry that another user owns or can write is never used: the module is
   then built privately, with a warning. A hit checks every file the build
   read (included headers too). */
XRT_API xrt_status xrt_cache_get_stats(xrt_cache_stats *stats);

/* graphs (types under ">> types: graphs"). Capture records the work
   enqueued on a stream instead of running it: kernel launches, async copies
   and sets, host functions; other streams join by waiting on an event
   recorded in the capture and must be joined back to the origin before its
   end (XRT_ERROR_STREAM_CAPTURE_UNJOINED). The NULL stream cannot be
   captured. A call that would wait for captured work (a synchronize or query
   of a capturing stream, xrt_device_synchronize) fails with
   XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED and invalidates the capture, whose
   end then fails naming that call; so do CUDA's unsafe calls (xrt_malloc,
   xrt_malloc_host, xrt_free, xrt_free_host, xrt_memcpy, xrt_memset, a
   synchronize or query of another stream or event) in GLOBAL mode from any
   thread, in THREAD_LOCAL mode from the capturing one, unless the calling
   thread's mode allows them (xrt_thread_exchange_stream_capture_mode). Work
   for the NULL stream while a blocking stream captures fails with
   XRT_ERROR_STREAM_CAPTURE_IMPLICIT. A graph and an exec own copies of what
   they need (kernel arguments, the module): each may outlive the other and
   the module. Launches of one exec run one after the other, in launch order,
   on whatever streams they are made. */
static inline xrt_status xrt_stream_begin_capture(xrt_stream stream, xrt_capture_mode mode);
/* A capture whose nodes go into an existing graph, after deps (nodes of it;
   none: as roots), as CUDA 12.3's cudaStreamBeginCaptureToGraph; its end
   gives that graph. On the CPU backend the graph takes them only if the
   capture succeeds; CUDA and HIP put them in as captured and leave the
   graph undefined after a failed capture. It may not be destroyed while the
   capture lasts. */
static inline xrt_status xrt_stream_begin_capture_to_graph(xrt_stream stream, xrt_graph graph,
                                                           const xrt_graph_node *deps, size_t ndeps,
                                                           xrt_capture_mode mode);
static inline xrt_status xrt_stream_end_capture(xrt_stream stream, xrt_graph *graph);
static inline xrt_status xrt_stream_is_capturing(xrt_stream stream, xrt_capture_status *status);
/* The same, and while the capture is active its id (written only then; id
   may be NULL): unique in the process, the same for every stream joined to
   the capture. As cudaStreamGetCaptureInfo's first two outputs and HIP's
   hipStreamGetCaptureInfo; the capture's graph and dependencies are not
   given. */
static inline xrt_status xrt_stream_get_capture_info(xrt_stream stream, xrt_capture_status *status,
                                                     unsigned long long *id);
/* The same, and while the capture is active (else left as they were) its
   graph and the nodes the stream's next work will follow, as
   cudaStreamGetCaptureInfo's other outputs (HIP's _v2): *graph is the
   capture's, not the caller's (xrt_stream_end_capture gives it, a failed
   capture takes it away); meanwhile it takes nodes and edges as any graph,
   but is neither destroyed, instantiated, nor loses a node. *deps is an
   array of *ndeps nodes, valid until the thread's next call of this. Any
   of id, graph, deps, ndeps may be NULL (deps needs ndeps). */
static inline xrt_status xrt_stream_get_capture_info_v2(xrt_stream stream, xrt_capture_status *status,
                                                        unsigned long long *id, xrt_graph *graph,
                                                        const xrt_graph_node **deps, size_t *ndeps);
/* The nodes the stream's next captured work follows: these added to them
   (XRT_STREAM_ADD_CAPTURE_DEPENDENCIES) or instead of them (_SET), as
   cudaStreamUpdateCaptureDependencies; nodes of the capture's graph. A node
   taken out so, or added by hand, need not be joined back before the end. */
static inline xrt_status xrt_stream_update_capture_dependencies(xrt_stream stream, const xrt_graph_node *deps,
                                                                size_t ndeps, unsigned flags);
/* The calling thread's capture mode, cudaThreadExchangeStreamCaptureMode:
   sets it to *mode and gives the one it had in *mode (push, then pop with
   the same call). It decides which captures the thread's unsafe calls are
   checked against: GLOBAL (the default) its own captures that are not
   RELAXED and every GLOBAL one, THREAD_LOCAL its own that are not RELAXED,
   RELAXED none. A synchronize or query of a capturing stream or a captured
   event, and xrt_device_synchronize, stay refused in every mode. */
static inline xrt_status xrt_thread_exchange_stream_capture_mode(xrt_capture_mode *mode);
static inline xrt_status xrt_graph_instantiate(xrt_graph_exec *exec, xrt_graph graph);
/* cudaGraphInstantiateWithFlags (and CUDA 12's cudaGraphInstantiate with
   flags): XRT_GRAPH_INSTANTIATE_* (REFERENCE.md, "Graphs"); 0 is
   xrt_graph_instantiate. */
static inline xrt_status xrt_graph_instantiate_with_flags(xrt_graph_exec *exec, xrt_graph graph,
                                                          unsigned long long flags);
static inline xrt_status xrt_graph_launch(xrt_graph_exec exec, xrt_stream stream);
/* cudaGraphUpload: readies exec on stream (behind its work and the exec's
   launches) without running it, so that a later launch starts sooner. */
static inline xrt_status xrt_graph_upload(xrt_graph_exec exec, xrt_stream stream);
static inline xrt_status xrt_graph_exec_update(xrt_graph_exec exec, xrt_graph graph); /* same shape, new parameters */
/* The same, saying why it refused (CUDA 12's cudaGraphExecUpdate with its result info). */
static inline xrt_status xrt_graph_exec_update_with_result(xrt_graph_exec exec, xrt_graph graph,
                                                           xrt_graph_exec_update_result *result);
static inline xrt_status xrt_graph_exec_destroy(xrt_graph_exec exec); /* launches already made still run */
static inline xrt_status xrt_graph_destroy(xrt_graph graph);
static inline xrt_status xrt_graph_get_info(xrt_graph graph, xrt_graph_info *info);
/* >> api: graphs built node by node. Each add takes the nodes the new one depends
   on (deps, ndeps; NULL and 0 for a root) and gives the node's handle; the
   typed adds are xrt_graph_add_node with params of their type. A list call
   (get_nodes, get_root_nodes, get_edges, node_get_dependencies,
   node_get_dependent_nodes) given NULL arrays sets *count to the number
   there is; given arrays of *count entries it fills them and sets *count
   to how many it wrote (the rest of the arrays NULL), as CUDA does. */
static inline xrt_status xrt_graph_create(xrt_graph *graph, unsigned flags); /* flags: 0 */
static inline xrt_status xrt_graph_add_node(xrt_graph_node *node, xrt_graph graph, const xrt_graph_node *deps,
                                            size_t ndeps, xrt_graph_node_params *params);
static inline xrt_status xrt_graph_add_kernel_node(xrt_graph_node *node, xrt_graph graph, const xrt_graph_node *deps,
                                                   size_t ndeps, const xrt_kernel_node_params *params);
static inline xrt_status xrt_graph_add_memcpy_node_1d(xrt_graph_node *node, xrt_graph graph,
                                                      const xrt_graph_node *deps, size_t ndeps, void *dst,
                                                      const void *src, size_t size, xrt_memcpy_kind kind);
static inline xrt_status xrt_graph_add_memset_node(xrt_graph_node *node, xrt_graph graph, const xrt_graph_node *deps,
                                                   size_t ndeps, const xrt_memset_node_params *params);
static inline xrt_status xrt_graph_add_host_node(xrt_graph_node *node, xrt_graph graph, const xrt_graph_node *deps,
                                                 size_t ndeps, const xrt_host_node_params *params);
static inline xrt_status xrt_graph_add_child_graph_node(xrt_graph_node *node, xrt_graph graph,
                                                        const xrt_graph_node *deps, size_t ndeps, xrt_graph child);
static inline xrt_status xrt_graph_add_empty_node(xrt_graph_node *node, xrt_graph graph, const xrt_graph_node *deps,
                                                  size_t ndeps);
static inline xrt_status xrt_graph_add_event_record_node(xrt_graph_node *node, xrt_graph graph,
                                                         const xrt_graph_node *deps, size_t ndeps, xrt_event event);
static inline xrt_status xrt_graph_add_event_wait_node(xrt_graph_node *node, xrt_graph graph,
                                                       const xrt_graph_node *deps, size_t ndeps, xrt_event event);
/* Edges from[i] -> to[i] (to[i] runs after from[i]); an add that would
   make a cycle, or an edge there already, is refused, as is removing one
   that is not there. */
static inline xrt_status xrt_graph_add_dependencies(xrt_graph graph, const xrt_graph_node *from,
                                                    const xrt_graph_node *to, size_t n);
static inline xrt_status xrt_graph_remove_dependencies(xrt_graph graph, const xrt_graph_node *from,
                                                       const xrt_graph_node *to, size_t n);
static inline xrt_status xrt_graph_get_nodes(xrt_graph graph, xrt_graph_node *nodes, size_t *count);
static inline xrt_status xrt_graph_get_root_nodes(xrt_graph graph, xrt_graph_node *nodes, size_t *count);
static inline xrt_status xrt_graph_get_edges(xrt_graph graph, xrt_graph_node *from, xrt_graph_node *to,
                                             size_t *count);
static inline xrt_status xrt_graph_node_get_dependencies(xrt_graph_node node, xrt_graph_node *deps, size_t *count);
static inline xrt_status xrt_graph_node_get_dependent_nodes(xrt_graph_node node, xrt_graph_node *nodes,
                                                            size_t *count);
static inline xrt_status xrt_graph_node_get_type(xrt_graph_node node, xrt_graph_node_type *type);
/* A kernel's args and a child's graph point into the node: valid until it changes or goes. */
static inline xrt_status xrt_graph_node_get_params(xrt_graph_node node, xrt_graph_node_params *params);
/* New parameters of the node's own type (a child's graph: of the same shape). */
static inline xrt_status xrt_graph_node_set_params(xrt_graph_node node, const xrt_graph_node_params *params);
/* The same, for the exec's copy of node (a node of the graph it was instantiated from). */
static inline xrt_status xrt_graph_exec_node_set_params(xrt_graph_exec exec, xrt_graph_node node,
                                                        const xrt_graph_node_params *params);
/* The exec's copy of node switched off (enabled 0: later launches run it as
   an empty node, its params kept, also those set meanwhile) or on again, and
   whether it is on, as cudaGraphNodeSetEnabled and cudaGraphNodeGetEnabled:
   kernel, memset and memcpy nodes. An update of the exec keeps the state. */
static inline xrt_status xrt_graph_node_set_enabled(xrt_graph_exec exec, xrt_graph_node node, unsigned enabled);
static inline xrt_status xrt_graph_node_get_enabled(xrt_graph_exec exec, xrt_graph_node node, unsigned *enabled);
/* A kernel node's attributes (xrt_launch_attr, but the programmatic stream
   serialisation, which is a launch's), as cudaGraphKernelNodeSetAttribute,
   cudaGraphKernelNodeGetAttribute and cudaGraphKernelNodeCopyAttributes: kept
   with the node through clones, child graphs and execs made afterwards, and
   through new params; one never set reads as zeros. copy_attributes gives
   dst (a kernel node) every attribute of src's. */
static inline xrt_status xrt_graph_kernel_node_set_attribute(xrt_graph_node node, xrt_launch_attr attr,
                                                             const xrt_launch_attr_value *value);
static inline xrt_status xrt_graph_kernel_node_get_attribute(xrt_graph_node node, xrt_launch_attr attr,
                                                             xrt_launch_attr_value *value);
static inline xrt_status xrt_graph_kernel_node_copy_attributes(xrt_graph_node dst, xrt_graph_node src);
/* Copy nodes of 3-D params, as cudaGraphAddMemcpyNode, cudaGraphMemcpyNodeGetParams,
   cudaGraphMemcpyNodeSetParams and cudaGraphExecMemcpyNodeSetParams: a box as
   xrt_memcpy_3d copies it (the same checks; an empty extent is refused). The
   node's type is XRT_GRAPH_NODE_MEMCPY; get_params answers for every copy
   node, also a 1-D or a captured 2-D/3-D one (see REFERENCE.md). */
static inline xrt_status xrt_graph_add_memcpy_node(xrt_graph_node *node, xrt_graph graph, const xrt_graph_node *deps,
                                                   size_t ndeps, const xrt_memcpy_3d_parms *p);
static inline xrt_status xrt_graph_memcpy_node_get_params(xrt_graph_node node, xrt_memcpy_3d_parms *p);
static inline xrt_status xrt_graph_memcpy_node_set_params(xrt_graph_node node, const xrt_memcpy_3d_parms *p);
static inline xrt_status xrt_graph_exec_memcpy_node_set_params(xrt_graph_exec exec, xrt_graph_node node,
                                                               const xrt_memcpy_3d_parms *p);
static inline xrt_status xrt_graph_destroy_node(xrt_graph_node node); /* and its edges */
static inline xrt_status xrt_graph_clone(xrt_graph *clone, xrt_graph original);
/* The clone's node that original (a node of the cloned graph) became. */
static inline xrt_status xrt_graph_node_find_in_clone(xrt_graph_node *node, xrt_graph_node original, xrt_graph clone);
/* A Graphviz (DOT) file of the graph at `path`: cudaGraphDebugDotPrint */
static inline xrt_status xrt_graph_debug_dot_print(xrt_graph graph, const char *path, unsigned flags);
/* User objects, as cudaUserObjectCreate & co: a reference-counted object
   whose destroy(ptr) runs once its last reference is released, held by the
   caller and by graphs. A graph's references go with it to its clones, to
   the child-graph nodes made of it and to every exec instantiated from it;
   an exec's are released when it is destroyed or updated and its launches
   under way are done. destroy runs on whichever thread releases the last
   reference (on a GPU, the runtime's own thread), maybe inside an xrt call:
   it must not call xrt, as CUDA's must not call CUDA. flags must be
   XRT_USER_OBJECT_NO_DESTRUCTOR_SYNC (CUDA's only one: nothing waits for
   destroy); counts are 1 .. INT_MAX. A handle whose last reference is gone
   is XRT_ERROR_INVALID_HANDLE. */
static inline xrt_status xrt_user_object_create(xrt_user_object *object, void *ptr, xrt_host_fn destroy,
                                                unsigned initial_refcount, unsigned flags);
static inline xrt_status xrt_user_object_retain(xrt_user_object object, unsigned count);
static inline xrt_status xrt_user_object_release(xrt_user_object object, unsigned count);
/* The graph takes count new references (flags 0) or the caller's own
   (XRT_GRAPH_USER_OBJECT_MOVE); it gives back only references it holds. */
static inline xrt_status xrt_graph_retain_user_object(xrt_graph graph, xrt_user_object object, unsigned count,
                                                      unsigned flags);
static inline xrt_status xrt_graph_release_user_object(xrt_graph graph, xrt_user_object object, unsigned count);

/* >> api: the stream-order checker (">> impl: stream-order checker"). While
   on (XRT_CHECK=streams, or xrt_check_enable), xrt keeps the happens-before
   order of device work and reports, on stderr, two accesses to the same bytes
   of xrt's memory, one a write, with no order between them ("xrt: race:").
   None of these needs a backend; off, each dispatch pays one branch. */
typedef enum xrt_check_mode { XRT_CHECK_OFF = 0, XRT_CHECK_STREAMS = 1 } xrt_check_mode;
typedef enum xrt_check_access {
    XRT_CHECK_NONE = 0,       /* not touched */
    XRT_CHECK_READ = 1,
    XRT_CHECK_WRITE = 2,
    XRT_CHECK_READ_WRITE = 3 /* what an unannotated kernel argument counts as */
} xrt_check_access;
/* Off drops the bookkeeping: on again starts with no history (the race count stays). */
XRT_API xrt_status xrt_check_enable(unsigned modes);       /* XRT_CHECK_STREAMS, or XRT_CHECK_OFF */
XRT_API xrt_status xrt_check_get_modes(unsigned *modes);   /* the modes on now */
XRT_API xrt_status xrt_check_race_count(size_t *count);    /* races reported so far */
XRT_API xrt_status xrt_check_memory_bytes(size_t *bytes);  /* the checker's bookkeeping now */
/* Reports go to fn(user, report) instead of stderr (NULL: back to stderr);
   report is the whole text, lines ending in '\n'; fn must not call xrt. */
typedef void (*xrt_check_report_fn)(void *user, const char *report);
XRT_API xrt_status xrt_check_set_report_callback(xrt_check_report_fn fn, void *user);
/* A race observer (a tool's: the trace plugin marks the pair on its
   timeline) sees every report, wherever it goes, with the tags of its two
   operations. tag(user, backend, before) runs on the thread of each
   operation the checker records that touches memory, under its lock, next
   to the backend's own call of it (no other call of that backend's on the
   thread between them), with that backend and whether it has yet to run it
   (before: 1 for a synchronous copy or set, whose dispatch checks it before
   the backend's call, and for a free; 0 for queued work, checked after):
   its value stays with the operation's accesses. race(user, report,
   earlier, later) gets the report's text and the tags of its earlier and
   later operation (0: recorded with no tag function; two nodes of one graph
   launch share their launch's). One observer at a time; NULLs remove it;
   neither function may call xrt. */
typedef uint64_t (*xrt_check_tag_fn)(void *user, const xrt_backend *backend, int before);
typedef void (*xrt_check_race_fn)(void *user, const char *report, uint64_t earlier, uint64_t later);
XRT_API xrt_status xrt_check_set_race_observer(xrt_check_tag_fn tag, xrt_check_race_fn race, void *user);
/* For the calling thread's next xrt_launch_kernel or xrt_launch_host_func,
   or kernel or host node made by xrt_graph_add_kernel_node,
   xrt_graph_add_host_node, xrt_graph_add_node or xrt_graph_node_set_params
   (that call's alone, whatever its status: a refused one drops them): bytes
   [ptr, ptr + size) are accessed as `access` (a kernel's argument pointing
   into that allocation counts as that instead of a read-write of the whole
   allocation; a host function touches only what is annotated). A captured
   launch's go with its node. Up to XRT_CHECK_ANNOTATIONS per call; ignored
   while checking is off. */
#define XRT_CHECK_ANNOTATIONS 16
XRT_API xrt_status xrt_check_annotate(const void *ptr, size_t size, xrt_check_access access);

/* >> dispatch: private from here to the end of the public part. The bodies
   of the inline functions listed above, and what they use of the XRT_IMPL unit. */
/* A switch's value: 1 (1, on, yes, true), 0 (0, off, no, false), in any
   case; -1 for anything else. Here, not in the XRT_IMPL unit, so that a
   plugin reads its own switches by the same rule (tools/trace.c). */
#define XRT__ENV_SWITCH_VALID "1, on, yes, true, 0, off, no, false"
static inline int xrt__env_parse_switch(const char *v)
{
    static const char *const words[] = {"0", "off", "no", "false", "1", "on", "yes", "true"};
    int i, k;
    for (i = 0; i < 8; i++) {
        for (k = 0; words[i][k] && (v[k] >= 'A' && v[k] <= 'Z' ? v[k] + 32 : v[k]) == words[i][k]; k++) {}
        if (!words[i][k] && !v[k]) return i >= 4;
    }
    return -1;
}
XRT_API const xrt_backend *xrt__be_slow(void);
XRT_API xrt_status xrt__handle_bad(const char *fn, const void *handle) XRT__COLD;
/* The live handle of a backend's object, for messages (a scan); 0 if none.
   Any owner's: a plugin that wraps a backend hands the backend's objects on. */
XRT_API uintptr_t xrt__handle_of(const void *obj, uintptr_t kind) XRT__COLD;
XRT_API xrt_status xrt__handle_alloc(const xrt_backend *b, void *obj, uintptr_t kind, int owned, uintptr_t *out);
XRT_API void xrt__stream_keep_device(const xrt_backend *b, xrt_stream stream); /* in its handle's slot */
/* Graphs built node by node (">> impl: graph nodes"). */
enum { XRT__GRAPH_LIST_NODES, XRT__GRAPH_LIST_ROOTS, XRT__GRAPH_LIST_EDGES, XRT__GRAPH_LIST_DEPS,
       XRT__GRAPH_LIST_DEPENDENTS };
XRT_API xrt_status xrt__graph_create(const xrt_backend *b, xrt_graph *graph, unsigned flags);
XRT_API xrt_status xrt__graph_destroy(const xrt_backend *b, xrt_graph graph);
XRT_API void xrt__graph_hold(int take); /* the lock of these calls: taken (1), released (0) */
XRT_API xrt_status xrt__graph_add(const xrt_backend *b, xrt_graph_node *node, xrt_graph graph,
                                  const xrt_graph_node *deps, size_t ndeps, xrt_graph_node_params *params,
                                  const char *fn);
/* The typed adds: params of `type`'s member (size bytes; NULL for an empty node). */
XRT_API xrt_status xrt__graph_add_typed(const xrt_backend *b, xrt_graph_node *node, xrt_graph graph,
                                        const xrt_graph_node *deps, size_t ndeps, xrt_graph_node_type type,
                                        const void *params, size_t size, const char *fn);
XRT_API xrt_status xrt__graph_edges(const xrt_backend *b, xrt_graph graph, const xrt_graph_node *from,
                                    const xrt_graph_node *to, size_t n, int remove);
XRT_API xrt_status xrt__graph_list(const xrt_backend *b, int what, const void *of, xrt_graph_node *a,
                                   xrt_graph_node *to, size_t *count);
XRT_API xrt_status xrt__graph_params(const xrt_backend *b, xrt_graph_exec exec, xrt_graph_node node,
                                     xrt_graph_node_params *get, const xrt_graph_node_params *set, const char *fn);
/* Whether the exec's copy of node runs: into *get, or set to `set` (get NULL). */
XRT_API xrt_status xrt__graph_enabled(const xrt_backend *b, xrt_graph_exec exec, xrt_graph_node node, unsigned *get,
                                      unsigned set, const char *fn);
XRT_API xrt_status xrt__graph_destroy_node(const xrt_backend *b, xrt_graph_node node);
/* A kernel node's attribute: into *get, or set from set (">> impl: launch
   attributes"); and every attribute of src's given to dst. */
XRT_API xrt_status xrt__kernel_node_attr(const xrt_backend *b, xrt_graph_node node, xrt_launch_attr attr,
                                         xrt_launch_attr_value *get, const xrt_launch_attr_value *set,
                                         const char *fn);
XRT_API xrt_status xrt__kernel_node_copy_attrs(const xrt_backend *b, xrt_graph_node dst, xrt_graph_node src);
XRT_API xrt_status xrt__graph_add_copy_3d(const xrt_backend *b, xrt_graph_node *node, xrt_graph graph,
                                          const xrt_graph_node *deps, size_t ndeps, const xrt_memcpy_3d_parms *p);
XRT_API xrt_status xrt__graph_copy_3d_params(const xrt_backend *b, xrt_graph_exec exec, xrt_graph_node node,
                                             xrt_memcpy_3d_parms *get, const xrt_memcpy_3d_parms *set,
                                             const char *fn);
XRT_API xrt_status xrt__graph_clone(const xrt_backend *b, xrt_graph *clone, xrt_graph original);
/* User objects (">> impl: user objects"): create; retain (release 0) or
   release (1) the caller's; a graph's, likewise. */
XRT_API xrt_status xrt__uobj_create(const xrt_backend *b, xrt_user_object *object, void *ptr, xrt_host_fn destroy,
                                    unsigned count, unsigned flags);
XRT_API xrt_status xrt__uobj_count(const xrt_backend *b, xrt_user_object object, unsigned count, int release);
XRT_API xrt_status xrt__uobj_graph(const xrt_backend *b, xrt_graph graph, xrt_user_object object, unsigned count,
                                   unsigned flags, int release);
XRT_API xrt_status xrt__graph_update(const xrt_backend *b, xrt_graph_exec exec, xrt_graph graph,
                                     xrt_graph_exec_update_result *result);
XRT_API xrt_status xrt__capture_to_graph(const xrt_backend *b, xrt_stream stream, xrt_graph graph,
                                         const xrt_graph_node *deps, size_t ndeps, xrt_capture_mode mode);
/* The out-of-line parts of xrt_launch_kernel_params and the symbol copies
   (">> impl: modules", ">> impl: module globals"); the stream is the one
   the caller's unit means (xrt__unit_stream). */
XRT_API xrt_status xrt__launch_params(xrt_function function, xrt_dim3 grid, xrt_dim3 block, size_t shared_bytes,
                                      xrt_stream stream, void **kernel_params, const xrt_launch_config *config);
XRT_API xrt_status xrt__launch_ex(const xrt_launch_config *config, xrt_function function, const void *args,
                                  size_t args_size, xrt_stream stream);
XRT_API xrt_status xrt__symbol_copy(void *caller, int to, void *other, xrt_module module, const char *symbol,
                                    size_t count, size_t offset, xrt_memcpy_kind kind, int async, xrt_stream stream,
                                    const char *fn);
XRT_API xrt_status xrt__graph_find_in_clone(const xrt_backend *b, xrt_graph_node *node, xrt_graph_node original,
                                            xrt_graph clone);

XRT_API xrt_status xrt__handle_free(const xrt_backend *b, const void *handle, uintptr_t kind, const char *fn);
/* For a backend's device_reset: frees b's memory of `device` in the pointer
   registry (device and managed allocations, opened IPC handles; recorded
   under the table the thread dispatched to: b itself or a plugin that
   forwards to it) through the paths of the calls that free it, then retires every
   handle that b owns whose object on_device(b, kind, obj, device) says is
   the device's (kind XRT__HANDLE_*; called inside a call, so no destroy
   elsewhere frees obj meanwhile); a later use of such a handle is
   XRT_ERROR_INVALID_HANDLE. */
typedef int (*xrt__on_device_fn)(const xrt_backend *b, uintptr_t kind, void *obj, int device);
XRT_API void xrt__device_reset_objects(const xrt_backend *b, int device, xrt__on_device_fn on_device) XRT__COLD;
/* The handle of pool object `obj` owned by backend b: the live one, else a
   new one not owned (a default pool's, which the backend keeps). A plugin
   that wraps a backend gets its own handle of the backend's pool. */
XRT_API xrt_status xrt__pool_handle(const xrt_backend *b, void *obj, xrt_mem_pool *out) XRT__COLD;
XRT_API xrt_status xrt__mem_add(const xrt_backend *b, void **p, size_t n, xrt_memory_type t, const char *fn);
XRT_API xrt_status xrt__mem_add_host(const xrt_backend *b, void **p, size_t n, unsigned flags, const char *fn);
XRT_API int xrt__mem_host_flags(const void *p, unsigned *flags);
XRT_API xrt_status xrt__mem_take(const xrt_backend *b, void *p, xrt_memory_type t, const char *fn, void **record);
XRT_API xrt_status xrt__mem_register(const xrt_backend *b, void *p, size_t n, unsigned flags, const char *fn);
XRT_API xrt_status xrt__mem_unregister(const xrt_backend *b, void *p, const char *fn);
XRT_API xrt_status xrt__mem_finish(void *record, xrt_status freed);
/* Graph memory left to the caller (see ">> impl: graph memory"). */
XRT_API void xrt__capture_begun(const xrt_backend *b, xrt_stream stream) XRT__COLD;
XRT_API uintptr_t xrt__capture_into(const xrt_backend *b, xrt_stream stream) XRT__COLD; /* the graph its capture was begun into, or 0 */
/* The capture's graph handle that xrt_stream_get_capture_info_v2 gave, now
   of the graph obj that its end made (">> impl: capture graphs"), or 0. */
XRT_API uintptr_t xrt__capture_graph_keep(const xrt_backend *b, xrt_stream stream, void *obj) XRT__COLD;
XRT_API xrt_status xrt__capture_info_v2(const xrt_backend *b, xrt_stream stream, xrt_capture_status *status,
                                        unsigned long long *id, xrt_graph *graph, const xrt_graph_node **deps,
                                        size_t *ndeps) XRT__COLD;
XRT_API xrt_status xrt__capture_update_deps(const xrt_backend *b, xrt_stream stream, const xrt_graph_node *deps,
                                            size_t ndeps, unsigned flags) XRT__COLD;
XRT_API xrt_status xrt__graph_capturing(uintptr_t graph, const char *fn) XRT__COLD; /* refuses a capture's graph */
XRT_API void xrt__capture_ended(const xrt_backend *b, xrt_stream stream, void *obj, uintptr_t graph) XRT__COLD;
XRT_API void xrt__capture_stream_gone(const xrt_backend *b, uintptr_t stream) XRT__COLD;
XRT_API xrt_status xrt__mem_add_captured(const xrt_backend *b, void **p, size_t n, xrt_stream stream,
                                         void *obj) XRT__COLD;
XRT_API void xrt__graph_mem_instantiated(uintptr_t graph, uintptr_t exec, int auto_free) XRT__COLD;
XRT_API xrt_status xrt__graph_flags_check(unsigned long long flags) XRT__COLD;
XRT_API xrt_status xrt__graph_mem_one_exec(uintptr_t graph) XRT__COLD;
XRT_API xrt_status xrt__graph_mem_launched(const xrt_backend *b, uintptr_t exec) XRT__COLD;
XRT_API xrt_status xrt__graph_mem_unfreed(uintptr_t exec) XRT__COLD;
XRT_API xrt_status xrt__mem_check_copy(const xrt_backend *b, void *dst, const void *src, size_t n,
                                       xrt_memcpy_kind *kind, const char *fn);
XRT_API xrt_status xrt__mem_lookup(const xrt_backend *b, xrt_pointer_attributes *a, const void *p);
XRT_API size_t xrt__mem_device_bytes(const xrt_backend *b, int device); /* live xrt_malloc bytes of a device */
XRT_API xrt_status xrt__mem_check_peer(const xrt_backend *b, void *dst, int dst_device, const void *src,
                                       int src_device, size_t n, const char *fn);
XRT_API xrt_status xrt__mem_check_set(const xrt_backend *b, void *p, size_t n, const char *fn);
XRT_API int xrt__mem_set_waits(const xrt_backend *b, const void *p);
XRT_API int xrt__mem_copy_waits(const xrt_backend *b, const void *dst, const void *src, xrt_memcpy_kind kind);
XRT_API xrt_status xrt__mem_check_copy_2d(const xrt_backend *b, void *dst, size_t dpitch, const void *src,
                                          size_t spitch, size_t width, size_t height, xrt_memcpy_kind *kind,
                                          const char *fn);
XRT_API xrt_status xrt__mem_check_set_2d(const xrt_backend *b, void *p, size_t *pitch, unsigned element_size,
                                         size_t width, size_t height, const char *fn);
XRT_API xrt_status xrt__mem_check_copy_3d(const xrt_backend *b, xrt_memcpy_3d_parms *p, const char *fn);
XRT_API xrt_status xrt__mem_check_set_3d(const xrt_backend *b, const xrt_pitched_ptr *p, const xrt_extent *e,
                                         const char *fn);
XRT_API xrt_status xrt__mem_check_export(const xrt_backend *b, const void *p, size_t n, int *fd, uint64_t *offset);
XRT_API xrt_status xrt__ipc_get(const xrt_backend *b, xrt_ipc_mem_handle *h, void *p);
XRT_API xrt_status xrt__ipc_open(const xrt_backend *b, void **p, const xrt_ipc_mem_handle *h, unsigned flags);
XRT_API xrt_status xrt__ipc_close(const xrt_backend *b, void *p);
/* For xrt's modules: the allocation of xrt containing p, in one lookup. */
typedef struct xrt__mem_info {
    uintptr_t base;
    size_t size;
    uint64_t generation;
    xrt_memory_type type;
    int device;
    const xrt_backend *backend;
} xrt__mem_info;
XRT_API int xrt__mem_query(const void *p, xrt__mem_info *info); /* 1 if found, else 0 and *info zeroed */
XRT_API void xrt__mem_info_of(const void *record, xrt__mem_info *info); /* of a record xrt__mem_take took */
XRT_API xrt_status xrt__not_permitted(const char *fn) XRT__COLD;
/* xrt_error's refusal check: whether the thread is refused now, and its error. */
XRT_API int xrt__refused(void);
XRT_API xrt_status xrt__forbidden_fail(const char *fn) XRT__COLD;
XRT_API xrt_status xrt__no_op(const xrt_backend *b, const char *fn) XRT__COLD;
/* xrt_stream_set_attribute's (set 1) and _get_attribute's checks of the
   attribute and the value: XRT_SUCCESS, or the error recorded. */
XRT_API xrt_status xrt__stream_attr_check(const char *fn, xrt_stream_attr attr, const xrt_stream_attr_value *value,
                                          int set) XRT__COLD;
/* The failure st of a call that public call `who` made inside, reported as who's (its detail kept after). */
XRT_API xrt_status xrt__err_as(xrt_status st, const char *who) XRT__COLD;
XRT_API void xrt__host_fn_run(const xrt_backend *b, xrt_host_fn fn, void *user);
XRT_API void xrt__host_fn_lend(const xrt_backend *b, xrt_host_fn fn, void *user);
XRT_API xrt_status xrt__stream_add_callback(const xrt_backend *b, void *obj, xrt_stream stream, xrt_stream_callback fn,
                                            void *user);
XRT_API xrt_status xrt__module_destroy(const xrt_backend *b, void *module);
XRT_API xrt_status xrt__launch_bad(const char *fn, xrt_dim3 grid, xrt_dim3 block, const void *args, size_t args_size) XRT__COLD;
/* The event a launch attribute names (its programmatic event or launch
   completion event; the same place in the value), or NULL. */
static inline xrt_event xrt__attr_event(const xrt_launch_attribute *a)
{
    if (a->id == XRT_LAUNCH_ATTR_PROGRAMMATIC_EVENT) return a->val.programmatic_event.event;
    return a->id == XRT_LAUNCH_ATTR_LAUNCH_COMPLETION_EVENT ? a->val.launch_completion_event.event : NULL;
}

/* The stream-order checker's hooks (">> impl: stream-order checker"): each
   dispatch calls one, out of line, when xrt__chk_on; `st` is the call's
   status (nothing is recorded of a failed call). */
struct xrt__handle_slot;
enum { XRT__CHK_SYNC_EVENT, XRT__CHK_SYNC_DEVICE, XRT__CHK_SYNC_ALL };
XRT_API void xrt__chk_copy(void *caller, xrt_status st, const xrt_backend *b, const char *fn, xrt_stream stream,
                           const struct xrt__handle_slot *s, void *dst, size_t dst_n, const void *src, size_t src_n)
    XRT__COLD;
XRT_API xrt_status xrt__chk_memcpy(void *caller, const xrt_backend *b, void *dst, const void *src, size_t size,
                                   xrt_memcpy_kind kind) XRT__COLD;
XRT_API void xrt__chk_copy_peer(void *caller, const xrt_backend *b, void *dst, int dst_device, const void *src,
                                int src_device, size_t size) XRT__COLD;
XRT_API xrt_status xrt__chk_launch_refused(xrt_status st) XRT__COLD; /* the annotations go with a refused launch */
XRT_API void xrt__chk_launch(void *caller, xrt_status st, const xrt_backend *b, const char *fn, xrt_stream stream,
                             const struct xrt__handle_slot *s, const void *function, const void *args,
                             size_t args_size) XRT__COLD;
XRT_API void xrt__chk_node_noted(const xrt_graph_node_params *p) XRT__COLD;
/* A host function as the checker keys it: its function's and user pointer's bytes. */
typedef struct xrt__host_key { unsigned char b[sizeof(xrt_host_fn) + sizeof(void *)]; } xrt__host_key;
static inline xrt__host_key xrt__host_key_of(xrt_host_fn fn, const void *user)
{
    xrt__host_key k;
    __builtin_memcpy(k.b, &fn, sizeof fn); /* (string.h is not the public part's) */
    __builtin_memcpy(k.b + sizeof fn, &user, sizeof user);
    return k;
}
XRT_API void xrt__chk_free(void *caller, const xrt_backend *b, const char *fn, xrt_stream stream, const struct xrt__handle_slot *s,
                           const void *record) XRT__COLD;
XRT_API void xrt__chk_mem_back(uintptr_t base, uint64_t was, uint64_t now) XRT__COLD;
XRT_API uint64_t xrt__chk_record_begin(const void *event) XRT__COLD; /* before the backend's record: its ticket */
XRT_API uint64_t xrt__chk_event_seen(const void *event) XRT__COLD; /* before a wait's: what it saw */
XRT_API void xrt__chk_record(void *caller, xrt_status st, const xrt_backend *b, const void *event, xrt_stream stream,
                             const struct xrt__handle_slot *s, uint64_t ticket) XRT__COLD;
XRT_API void xrt__chk_wait(void *caller, xrt_status st, const xrt_backend *b, xrt_stream stream, const struct xrt__handle_slot *s,
                           const void *event, uint64_t seen) XRT__COLD;
XRT_API void xrt__chk_sync(void *caller, xrt_status st, const xrt_backend *b, int what, const void *event,
                           uint64_t seen) XRT__COLD;
XRT_API xrt_status xrt__chk_device_reset(void *caller, const xrt_backend *b) XRT__COLD; /* the reset, checked */
XRT_API void xrt__chk_stream_created(void *caller, xrt_status st, const xrt_backend *b, const xrt_stream *stream) XRT__COLD;
XRT_API void xrt__chk_stream_destroyed(const xrt_backend *b, xrt_stream stream) XRT__COLD;
XRT_API void xrt__chk_event_destroyed(xrt_event event) XRT__COLD;
XRT_API xrt_status xrt__chk_event_destroy(const xrt_backend *b, xrt_event event) XRT__COLD;
XRT_API xrt_status xrt__chk_graph_launch_call(void *caller, const xrt_backend *b, xrt_graph_exec exec,
                                              const struct xrt__handle_slot *x, xrt_stream stream,
                                              const struct xrt__handle_slot *s) XRT__COLD; /* the launch, checked */
XRT_API xrt_status xrt__chk_stream_wait(void *caller, const xrt_backend *b, xrt_stream stream,
                                        const struct xrt__handle_slot *s, int query) XRT__COLD; /* the same */
XRT_API void xrt__chk_instantiate(xrt_status st, const xrt_backend *b, const void *exec, void *graph)
    XRT__COLD; /* in the graph nodes' hold of the backend's instantiate or update */
XRT_API void xrt__chk_exec_gone(const void *exec, int destroyed) XRT__COLD;
XRT_API void xrt__chk_shutdown(void) XRT__COLD; /* xrt_shutdown: the bookkeeping goes, checking stays as it was */
XRT_API void xrt__chk_copy_2d(void *caller, xrt_status st, const xrt_backend *b, const char *fn, xrt_stream stream,
                              const struct xrt__handle_slot *s, void *dst, size_t dpitch, const void *src, size_t spitch,
                              size_t width, size_t height) XRT__COLD;
XRT_API void xrt__chk_copy_3d(void *caller, xrt_status st, const xrt_backend *b, const char *fn, xrt_stream stream,
                              const struct xrt__handle_slot *s, const xrt_memcpy_3d_parms *p,
                              const xrt_pitched_ptr *set, const xrt_extent *extent) XRT__COLD;

/* The globals the inline dispatch reads. Under XRT_STATIC they are defined
   here, private to the one unit; otherwise the XRT_IMPL unit defines them. */
struct xrt__tls_state {
    const xrt_backend *be;    /* the thread's backend, valid while gen == xrt__gen */
    unsigned gen;
    unsigned epoch;           /* of the thread's own choice (xrt_set_backend) */
    int chosen;               /* be is the thread's own choice */
    int host_fn;              /* inside a host function (XRT__HOST_FN_CALLBACK: a stream callback) */
    const char *forbidden_by; /* the backend that refuses the thread's calls */
};
#define XRT__HOST_FN_CALLBACK 2 /* xrt__tls.host_fn inside a stream callback: every call is refused */
#define XRT__GEN_START 1u /* odd: not initialised; even: initialised (see xrt__be) */
#if defined(XRT_STATIC)
#define XRT__GLOBAL(decl, init) static decl init
#else
#define XRT__GLOBAL(decl, init) extern __attribute__((visibility("hidden"))) decl
#endif
#if defined(XRT_STATIC)
XRT__GLOBAL(XRT__TLS struct xrt__tls_state xrt__tls, );
#else
/* The first symbol a program without its XRT_IMPL unit misses: its link
   error ("undefined reference to `xrt__tls_define_XRT_IMPL_in_one_file'")
   says what to do. Only the name changes, not the access. */
XRT__GLOBAL(XRT__TLS struct xrt__tls_state xrt__tls __asm__("xrt__tls_define_XRT_IMPL_in_one_file"), );
#endif
XRT__GLOBAL(unsigned xrt__gen, = XRT__GEN_START);

/* Calls that use a handle's object announce it, so that a destroy racing
   with them frees the object only once they are done: `seq` is odd while
   the thread is inside such a call. The announcement is two plain stores;
   a destroy makes them visible with membarrier(2) (or, where that is
   unavailable, xrt__call_fence makes every call fence itself). */
#define XRT__HANDLE_CACHE 16 /* free handle slots a thread keeps */
struct xrt__call_state {
    uint64_t seq;
    unsigned depth;
    int registered;
    int exits;                           /* unregistered at thread exit so far */
    struct xrt__call_state *prev, *next; /* all threads that made calls */
    /* Free slots of the handle table that only this thread hands out, so
       that a create and a destroy take no lock; given back to the table when
       the thread exits (and, in a forked child, by the surviving thread). */
    unsigned nfree;
    uint32_t free_slots[XRT__HANDLE_CACHE];
    /* The record of this thread's last freed allocation, for its next one
       (xrt__mem_spare_put): an allocation and its free take no atomic
       operation for it. Freed when the thread exits. */
    void *mem_spare;
    uintptr_t capture_number; /* numbers its captures of the per-thread stream (xrt__capture_key_per_thread); 0: none yet */
};
XRT__GLOBAL(XRT__TLS struct xrt__call_state xrt__call, );
XRT__GLOBAL(int xrt__call_fence, );
XRT__GLOBAL(unsigned char xrt__chk_on, ); /* the stream-order checker is on: its hooks are called */
/* A plain load of a byte: one compare with memory and a branch (gcc loads an
   int, or an atomic, into a register first: a third instruction). A byte's
   load does not tear, and each dispatch reads it anew (the backend's call
   is opaque to the compiler), so xrt_check_enable may switch it while other
   threads make calls: a call that overlaps the switch is checked or not,
   and a hook called while on that runs after an off does nothing
   (xrt__chk_lock_on). Under ThreadSanitizer the load is atomic, which it
   can see. XRT_CHECK is read by xrt_init, before xrt__gen publishes the
   backends. */
#if defined(__SANITIZE_THREAD__)
#define XRT__CHK_ON() XRT__UNLIKELY(__atomic_load_n(&xrt__chk_on, __ATOMIC_RELAXED))
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define XRT__CHK_ON() XRT__UNLIKELY(__atomic_load_n(&xrt__chk_on, __ATOMIC_RELAXED))
#endif
#endif
#ifndef XRT__CHK_ON
#define XRT__CHK_ON() XRT__UNLIKELY(xrt__chk_on)
#endif
/* A launch refused before the backend (and the hook): the thread's
   annotations were this launch's (xrt_check_annotate: "the next launch"). */
#define XRT__LAUNCH_REFUSED(st) (XRT__CHK_ON() ? xrt__chk_launch_refused(st) : (st))

static inline void xrt__call_enter(void)
{
    if (xrt__call.depth++ == 0) {
        if (XRT__UNLIKELY(__atomic_load_n(&xrt__call_fence, __ATOMIC_RELAXED)))
            __atomic_store_n(&xrt__call.seq, xrt__call.seq + 1, __ATOMIC_SEQ_CST); /* a full barrier */
        else
            __atomic_store_n(&xrt__call.seq, xrt__call.seq + 1, __ATOMIC_RELAXED);
        __atomic_signal_fence(__ATOMIC_SEQ_CST); /* the compiler keeps the lookup after the store */
    }
}

static inline xrt_status xrt__call_exit(xrt_status st)
{
    if (--xrt__call.depth == 0) __atomic_store_n(&xrt__call.seq, xrt__call.seq + 1, __ATOMIC_RELEASE);
    return st;
}

/* The thread's backend: a TLS load and one compare on the fast path. */
static inline const xrt_backend *xrt__be(void)
{
    if (XRT__LIKELY(xrt__tls.gen == __atomic_load_n(&xrt__gen, __ATOMIC_ACQUIRE)))
        return xrt__tls.be;
    return xrt__be_slow();
}

/* Handle = generation | 20-bit slot index | 3-bit kind; the slot's tag must
   equal the handle and its owner the calling thread's backend. */
#define XRT__HANDLE_STREAM ((uintptr_t)1)
#define XRT__HANDLE_EVENT ((uintptr_t)2)
#define XRT__HANDLE_MODULE ((uintptr_t)3)
#define XRT__HANDLE_FUNCTION ((uintptr_t)4)
#define XRT__HANDLE_GRAPH ((uintptr_t)5)
#define XRT__HANDLE_GRAPH_EXEC ((uintptr_t)6)
#define XRT__HANDLE_GRAPH_NODE ((uintptr_t)7) /* not owned (its graph's); flags: the graph's handle, kind bits 0 */
#define XRT__HANDLE_MEM_POOL ((uintptr_t)8) /* a default pool's is not owned (the backend's, never destroyed) */
#define XRT__HANDLE_USER_OBJECT ((uintptr_t)9) /* not owned: it dies with the object's last reference */
#define XRT__HANDLE_KIND_BITS 4
#define XRT__HANDLE_INDEX_BITS 20
#define XRT__HANDLE_CHUNK_BITS 10
#define XRT__HANDLE_OWNED ((uintptr_t)1)
#define XRT__HANDLE_DEVICE_SHIFT 1 /* a stream's flags: its device + 1 above XRT__HANDLE_OWNED (0: not known) */
#define XRT__HANDLE_CHUNK ((uintptr_t)1 << XRT__HANDLE_CHUNK_BITS)
#define XRT__HANDLE_MAX ((uintptr_t)1 << XRT__HANDLE_INDEX_BITS)
#define XRT__HANDLE_GEN_SHIFT (XRT__HANDLE_KIND_BITS + XRT__HANDLE_INDEX_BITS)
#define XRT__HANDLE_KIND_MASK (((uintptr_t)1 << XRT__HANDLE_KIND_BITS) - 1)
typedef struct xrt__handle_slot { uintptr_t tag; void *obj; const xrt_backend *owner; uintptr_t flags; } xrt__handle_slot;
XRT__GLOBAL(xrt__handle_slot *xrt__handle_chunks[1u << (XRT__HANDLE_INDEX_BITS - XRT__HANDLE_CHUNK_BITS)], );
XRT__GLOBAL(xrt__handle_slot xrt__handle_null_stream, );
/* Captures under way, and allocations that graphs leave to their callers:
   while both are 0, a stream-ordered allocation and a graph launch pay one
   load each for them (">> impl: graph memory"). */
XRT__GLOBAL(int xrt__captures, );
XRT__GLOBAL(int xrt__graph_mems, );
XRT__GLOBAL(int xrt__captures_into, ); /* of those captures, the ones into a graph */
XRT__GLOBAL(int xrt__capture_graphs, ); /* graphs of captures under way that have a handle (">> impl: capture graphs") */

/* NULL for a NULL, stale, foreign or wrong-kind handle (NULL has kind bits 0). */
static inline xrt__handle_slot *xrt__handle_lookup(const xrt_backend *b, const void *handle, uintptr_t kind)
{
    uintptr_t h = (uintptr_t)handle;
    uintptr_t i = (h >> XRT__HANDLE_KIND_BITS) & ((1u << XRT__HANDLE_INDEX_BITS) - 1);
    xrt__handle_slot *c = __atomic_load_n(&xrt__handle_chunks[i >> XRT__HANDLE_CHUNK_BITS], __ATOMIC_ACQUIRE);
    xrt__handle_slot *s;
    if (XRT__UNLIKELY(!c || (h & ((1u << XRT__HANDLE_KIND_BITS) - 1)) != kind)) return NULL;
    s = &c[i & ((1u << XRT__HANDLE_CHUNK_BITS) - 1)];
    /* owner is atomic: a destroy on another thread may recycle the slot
       meanwhile; the tag's load is sequentially consistent (xrt__call_alone) */
    return (__atomic_load_n(&s->tag, __ATOMIC_SEQ_CST) == h && __atomic_load_n(&s->owner, __ATOMIC_RELAXED) == b) ? s
                                                                                                             : NULL;
}

/* NULL, XRT_STREAM_LEGACY and XRT_STREAM_PER_THREAD: the slot of the
   thread's special stream (NULL where the per-thread one cannot be made). */
XRT_API xrt__handle_slot *xrt__handle_special_stream(const xrt_backend *b, xrt_stream s);

/* The stream the calling unit means by s: NULL is the thread's own stream
   in a unit that defines XRT_API_PER_THREAD_DEFAULT_STREAM, else the legacy
   stream. An inline front passes it to the part of a call that xrt
   implements out of line, once, in the XRT_IMPL unit (whose own setting
   may differ), which takes the stream as it is given
   (xrt__handle_stream_as): as nvcc's per-thread default stream turns each
   call of a unit into its _ptsz or _ptds form. */
static inline xrt_stream xrt__unit_stream(xrt_stream s)
{
#if defined(XRT_API_PER_THREAD_DEFAULT_STREAM)
    return s ? s : XRT_STREAM_PER_THREAD;
#else
    return s ? s : XRT_STREAM_LEGACY;
#endif
}

/* The slot of stream s as given: NULL is the legacy stream. */
static inline xrt__handle_slot *xrt__handle_stream_as(const xrt_backend *b, xrt_stream s)
{
    return XRT__LIKELY((uintptr_t)s > (uintptr_t)XRT_STREAM_PER_THREAD) ? xrt__handle_lookup(b, s, XRT__HANDLE_STREAM)
                                                                        : xrt__handle_special_stream(b, s);
}

/* The slot of stream s as the calling unit means it. */
static inline xrt__handle_slot *xrt__handle_stream(const xrt_backend *b, xrt_stream s)
{
#if defined(XRT_API_PER_THREAD_DEFAULT_STREAM)
    if (!s) s = XRT_STREAM_PER_THREAD;
#endif
    return xrt__handle_stream_as(b, s);
}

/* Under XRT_API_PER_THREAD_DEFAULT_STREAM a synchronous copy or set is
   ordered on the calling thread's own stream, as nvcc's per-thread default
   stream makes cudaMemcpy cudaMemcpy_ptds: its asynchronous form there,
   then, where CUDA's "API synchronization behavior" has the host wait for
   it (waits, evaluated after the call succeeded), a synchronize of that
   stream; else nothing. */
#if defined(XRT_API_PER_THREAD_DEFAULT_STREAM)
#define XRT__SYNC_ON_PER_THREAD(fn, async_call, waits)                                          \
    do {                                                                                        \
        xrt_status ptds_;                                                                       \
        XRT__CHECK_MAY_WAIT(fn);                                                                \
        ptds_ = (async_call);                                                                   \
        if (ptds_ != XRT_SUCCESS || !(waits)) return ptds_;                                     \
        return xrt_stream_synchronize(XRT_STREAM_PER_THREAD);                                   \
    } while (0)
#else
#define XRT__SYNC_ON_PER_THREAD(fn, async_call, waits) (void)0
#endif

#define XRT__CHECK_PTR(p, fn) \
    if (XRT__UNLIKELY(!(p))) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%s is NULL", #p)

/* A call that waits for queued work, made from a host function, would wait
   for itself: refused on every backend. */
#define XRT__CHECK_MAY_WAIT(fn) \
    if (XRT__UNLIKELY(xrt__tls.host_fn)) return xrt__not_permitted(fn)

/* >> dispatch: backends */
static inline xrt_status xrt_get_capabilities(unsigned *caps)
{
    const xrt_backend *b = xrt__be();
    XRT__CHECK_PTR(caps, "xrt_get_capabilities");
    return b->get_capabilities(b, caps);
}

/* >> dispatch: devices */
static inline xrt_status xrt_get_device_count(int *count)
{
    const xrt_backend *b = xrt__be();
    XRT__CHECK_PTR(count, "xrt_get_device_count");
    return b->get_device_count(b, count);
}

static inline xrt_status xrt_set_device(int device)
{
    const xrt_backend *b = xrt__be();
    if (XRT__UNLIKELY(device < 0))
        return xrt_error(XRT_ERROR_INVALID_DEVICE, "xrt_set_device", "device %d is negative", device);
    return b->set_device(b, device);
}

static inline xrt_status xrt_get_device(int *device)
{
    const xrt_backend *b = xrt__be();
    XRT__CHECK_PTR(device, "xrt_get_device");
    return b->get_device(b, device);
}

static inline xrt_status xrt_device_synchronize(void)
{
    const xrt_backend *b = xrt__be();
    XRT__CHECK_MAY_WAIT("xrt_device_synchronize");
    /* checked before the call, which stays a tail call (a failure here is a
       backend's, after the checks: its access counts all the same) */
    if (XRT__CHK_ON()) xrt__chk_sync(__builtin_return_address(0), XRT_SUCCESS, b, XRT__CHK_SYNC_DEVICE, NULL, 0);
    return b->device_synchronize(b);
}

/* >> dispatch: device flags. The backend gets flags already checked. */
static inline xrt_status xrt_set_device_flags(unsigned flags)
{
    const xrt_backend *b = xrt__be();
    unsigned sched = flags & XRT_DEVICE_SCHEDULE_MASK;
    if (XRT__UNLIKELY(flags & ~(unsigned)(XRT_DEVICE_SCHEDULE_MASK | XRT_DEVICE_MAP_HOST | XRT_DEVICE_LMEM_RESIZE_TO_MAX)))
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_set_device_flags",
                         "flags 0x%x has bits other than XRT_DEVICE_SCHEDULE_*, _MAP_HOST, _LMEM_RESIZE_TO_MAX", flags);
    if (XRT__UNLIKELY(sched & (sched - 1)))
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_set_device_flags",
                         "flags 0x%x has more than one XRT_DEVICE_SCHEDULE_* bit", flags);
    return b->set_device_flags(b, flags);
}

static inline xrt_status xrt_get_device_flags(unsigned *flags)
{
    const xrt_backend *b = xrt__be();
    XRT__CHECK_PTR(flags, "xrt_get_device_flags");
    return b->get_device_flags(b, flags);
}

/* >> dispatch: device limits. The backend gets a limit of xrt_limit. */
static inline int xrt__limit_known(xrt_limit limit) { return (unsigned)limit <= XRT_LIMIT_PERSISTING_L2_CACHE_SIZE; }

static inline xrt_status xrt__limit_bad(const char *fn, xrt_limit limit)
{
    return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "limit %d is none of XRT_LIMIT_* (0 .. 6)", (int)limit);
}

static inline xrt_status xrt_device_set_limit(xrt_limit limit, size_t value)
{
    const xrt_backend *b = xrt__be();
    if (XRT__UNLIKELY(!xrt__limit_known(limit)))
        return xrt__limit_bad("xrt_device_set_limit", limit);
    return b->device_set_limit(b, (int)limit, value);
}

static inline xrt_status xrt_device_get_limit(size_t *value, xrt_limit limit)
{
    const xrt_backend *b = xrt__be();
    XRT__CHECK_PTR(value, "xrt_device_get_limit");
    if (XRT__UNLIKELY(!xrt__limit_known(limit)))
        return xrt__limit_bad("xrt_device_get_limit", limit);
    return b->device_get_limit(b, value, (int)limit);
}

static inline xrt_status xrt__cache_config_bad(const char *fn, xrt_func_cache config)
{
    return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "config %d is none of XRT_FUNC_CACHE_* (0 .. 3)", (int)config);
}

static inline xrt_status xrt_device_set_cache_config(xrt_func_cache config)
{
    const xrt_backend *b = xrt__be();
    if (XRT__UNLIKELY((unsigned)config > XRT_FUNC_CACHE_PREFER_EQUAL))
        return xrt__cache_config_bad("xrt_device_set_cache_config", config);
    return b->device_set_cache_config(b, (int)config);
}

static inline xrt_status xrt_device_get_cache_config(xrt_func_cache *config)
{
    const xrt_backend *b = xrt__be();
    int got = XRT_FUNC_CACHE_PREFER_NONE;
    xrt_status st;
    XRT__CHECK_PTR(config, "xrt_device_get_cache_config");
    st = b->device_get_cache_config(b, &got);
    if (st == XRT_SUCCESS) *config = (xrt_func_cache)got;
    return st;
}

/* >> dispatch: GPUDirect RDMA writes: the backend gets a known target and scope. */
static inline xrt_status xrt_device_flush_gpu_direct_rdma_writes(xrt_flush_rdma_target target,
                                                                 xrt_flush_rdma_scope scope)
{
    const xrt_backend *b = xrt__be();
    const char *fn = "xrt_device_flush_gpu_direct_rdma_writes";
    if (XRT__UNLIKELY(target != XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_DEVICE))
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn,
                         "target %d is not XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_DEVICE (0)", (int)target);
    if (XRT__UNLIKELY(scope != XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER &&
                      scope != XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_ALL_DEVICES))
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn,
                         "scope %d is none of XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER (100), _TO_ALL_DEVICES (200)",
                         (int)scope);
    return b->device_flush_gpu_direct_rdma_writes(b, (int)target, (int)scope);
}

/* >> dispatch: device reset: the device's work is waited for here, so a
   backend's reset finds it idle. */
static inline xrt_status xrt_device_reset(void)
{
    const xrt_backend *b = xrt__be();
    xrt_status st;
    XRT__CHECK_MAY_WAIT("xrt_device_reset");
    if ((st = xrt__no_op(b, "xrt_device_reset")) != XRT_SUCCESS) return st; /* a refusal names this call */
    /* the reset while checking is a call of its own, out of line, which
       takes what the device's streams were given before the synchronize */
    if (XRT__CHK_ON()) return xrt__chk_device_reset(__builtin_return_address(0), b);
    if ((st = b->device_synchronize(b)) != XRT_SUCCESS) return xrt__err_as(st, "xrt_device_reset");
    return b->device_reset(b);
}

static inline xrt_status xrt_get_device_properties(xrt_device_prop *prop, int device)
{
    const xrt_backend *b = xrt__be();
    XRT__CHECK_PTR(prop, "xrt_get_device_properties");
    if (XRT__UNLIKELY(device < 0))
        return xrt_error(XRT_ERROR_INVALID_DEVICE, "xrt_get_device_properties", "device %d is negative", device);
    prop->numa_node = -1; /* a backend built before the field leaves it so */
    return b->get_device_properties(b, prop, device);
}

static inline int xrt__devattr_known(int attr)
{
    switch (attr) {
#define XRT__DEVATTR_CASE(name, value) case value:
        XRT__DEVICE_ATTRS(XRT__DEVATTR_CASE)
#undef XRT__DEVATTR_CASE
        return 1;
    default:
        return 0;
    }
}

static inline xrt_status xrt_device_get_attribute(int *value, xrt_device_attr attr, int device)
{
    const xrt_backend *b = xrt__be();
    XRT__CHECK_PTR(value, "xrt_device_get_attribute");
    *value = 0;
    if (XRT__UNLIKELY(device < 0))
        return xrt_error(XRT_ERROR_INVALID_DEVICE, "xrt_device_get_attribute", "device %d is negative", device);
    if (XRT__UNLIKELY(!xrt__devattr_known((int)attr)))
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_device_get_attribute", "attribute %d is no xrt_device_attr",
                         (int)attr);
    return b->device_get_attribute(b, value, (int)attr, device);
}

/* The PCI address from the device's attributes: the runtimes' own
   cudaDeviceGetPCIBusId writes the same (function 0). */
static inline xrt_status xrt__pci_address(const xrt_backend *b, int device, int addr[3], const char *fn)
{
    static const int attrs[3] = {XRT_DEVATTR_PCI_DOMAIN_ID, XRT_DEVATTR_PCI_BUS_ID, XRT_DEVATTR_PCI_DEVICE_ID};
    xrt_status st = XRT_SUCCESS;
    int i;
    if (XRT__UNLIKELY(device < 0)) return xrt_error(XRT_ERROR_INVALID_DEVICE, fn, "device %d is negative", device);
    for (i = 0; i < 3 && st == XRT_SUCCESS; i++) st = b->device_get_attribute(b, &addr[i], attrs[i], device);
    if (st == XRT_SUCCESS && (b->flags & XRT_BACKEND_HOST_MEMORY))
        return xrt_error(XRT_ERROR_UNSUPPORTED, fn, "%s: its devices are host memory and cores: no PCI address",
                         b->name);
    return st;
}

static inline xrt_status xrt_device_get_pci_bus_id(char *bus_id, int len, int device)
{
    const xrt_backend *b = xrt__be();
    int a[3];
    xrt_status st;
    XRT__CHECK_PTR(bus_id, "xrt_device_get_pci_bus_id");
    if (XRT__UNLIKELY(len < XRT_PCI_BUS_ID_SIZE))
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_device_get_pci_bus_id", "len %d: a bus id needs %d bytes", len,
                         XRT_PCI_BUS_ID_SIZE);
    bus_id[0] = 0;
    if ((st = xrt__pci_address(b, device, a, "xrt_device_get_pci_bus_id")) != XRT_SUCCESS) return st;
    {   /* "%04x:%02x:%02x.0" without stdio, which this part of xrt.h does not include */
        static const char hex[] = "0123456789abcdef";
        const unsigned v[3] = {(unsigned)a[0] & 0xffffu, (unsigned)a[1] & 0xffu, (unsigned)a[2] & 0xffu};
        const int width[3] = {4, 2, 2};
        int i, k, at = 0;
        for (i = 0; i < 3; i++) {
            for (k = width[i] - 1; k >= 0; k--) bus_id[at++] = hex[(v[i] >> (4 * k)) & 15u];
            bus_id[at++] = i < 2 ? ':' : '.';
        }
        bus_id[at++] = '0';
        bus_id[at] = 0;
    }
    return XRT_SUCCESS;
}

/* Parses "dddd:bb:dd.f", "dddd:bb:dd" or "bb:dd.f" (hex; CUDA's forms). */
static inline int xrt__pci_parse(const char *s, unsigned out[3])
{
    unsigned v[4] = {0, 0, 0, 0}, n = 0, digits = 0;
    int dot = 0;
    const char *p;
    for (p = s; *p; p++) {
        int h = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
              : *p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;
        if (h >= 0) {
            if (++digits > 8) return 0;
            v[n] = v[n] * 16u + (unsigned)h;
        } else if ((*p == ':' && !dot && n < 2) || (*p == '.' && !dot && n >= 1)) {
            if (!digits) return 0;
            dot = *p == '.';
            n++, digits = 0;
        } else {
            return 0;
        }
    }
    if (!digits) return 0;
    if (n == 3 && dot) { out[0] = v[0], out[1] = v[1], out[2] = v[2]; } /* dddd:bb:dd.f */
    else if (n == 2 && !dot) { out[0] = v[0], out[1] = v[1], out[2] = v[2]; } /* dddd:bb:dd */
    else if (n == 2 && dot) { out[0] = 0, out[1] = v[0], out[2] = v[1]; } /* bb:dd.f */
    else return 0;
    return out[0] <= 0xffffu && out[1] <= 0xffu && out[2] <= 0xffu && (!dot || v[n] <= 7u);
}

static inline xrt_status xrt_device_get_by_pci_bus_id(int *device, const char *bus_id)
{
    const xrt_backend *b = xrt__be();
    unsigned want[3];
    int i, n = 0, a[3];
    xrt_status st;
    XRT__CHECK_PTR(device, "xrt_device_get_by_pci_bus_id");
    XRT__CHECK_PTR(bus_id, "xrt_device_get_by_pci_bus_id");
    if (!xrt__pci_parse(bus_id, want))
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_device_get_by_pci_bus_id",
                         "\"%.32s\" is no PCI bus id (domain:bus:device.function, hex)", bus_id);
    if ((st = b->get_device_count(b, &n)) != XRT_SUCCESS) return st;
    for (i = 0; i < n && !(b->flags & XRT_BACKEND_HOST_MEMORY); i++) {
        if ((st = b->device_get_attribute(b, &a[0], XRT_DEVATTR_PCI_DOMAIN_ID, i)) != XRT_SUCCESS ||
            (st = b->device_get_attribute(b, &a[1], XRT_DEVATTR_PCI_BUS_ID, i)) != XRT_SUCCESS ||
            (st = b->device_get_attribute(b, &a[2], XRT_DEVATTR_PCI_DEVICE_ID, i)) != XRT_SUCCESS)
            return st;
        if ((unsigned)a[0] == want[0] && (unsigned)a[1] == want[1] && (unsigned)a[2] == want[2]) {
            *device = i;
            return XRT_SUCCESS;
        }
    }
    return xrt_error(XRT_ERROR_INVALID_DEVICE, "xrt_device_get_by_pci_bus_id", "no device of %s at %s", b->name,
                     bus_id);
}

XRT_API xrt_status xrt__target_get(const xrt_backend *b, xrt_target *t);

static inline xrt_status xrt_get_target(xrt_target *target)
{
    const xrt_backend *b = xrt__be();
    XRT__CHECK_PTR(target, "xrt_get_target");
    return xrt__target_get(b, target);
}

/* >> dispatch: memory */

static inline xrt_status xrt__mem_check_alloc(void **ptr, size_t size, const char *fn)
{
    XRT__CHECK_PTR(ptr, fn);
    *ptr = NULL;
    if (XRT__UNLIKELY(size == 0)) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "size is 0");
    return XRT_SUCCESS;
}

/* Of 0 bytes: success and NULL, as cudaMalloc and hipMalloc. */
static inline xrt_status xrt_malloc(void **ptr, size_t size)
{
    const xrt_backend *b = xrt__be();
    xrt_status st;
    XRT__CHECK_PTR(ptr, "xrt_malloc");
    *ptr = NULL;
    if (XRT__UNLIKELY(size == 0)) return xrt__no_op(b, "xrt_malloc");
    st = b->malloc(b, ptr, size);
    return st == XRT_SUCCESS ? xrt__mem_add(b, ptr, size, XRT_MEMORY_DEVICE, "xrt_malloc") : st;
}

/* Of 0 bytes too: success and NULL, as cudaMallocHost and hipHostMalloc. */
static inline xrt_status xrt_malloc_host(void **ptr, size_t size)
{
    const xrt_backend *b = xrt__be();
    xrt_status st;
    XRT__CHECK_PTR(ptr, "xrt_malloc_host");
    *ptr = NULL;
    if (XRT__UNLIKELY(size == 0)) return xrt__no_op(b, "xrt_malloc_host");
    st = b->malloc_host(b, ptr, size);
    return st == XRT_SUCCESS ? xrt__mem_add(b, ptr, size, XRT_MEMORY_PINNED_HOST, "xrt_malloc_host") : st;
}

/* >> dispatch: mapped host allocation: xrt_malloc_host's with flags, which
   the registry keeps (xrt__mem_add_host). */
static inline xrt_status xrt_host_alloc(void **ptr, size_t size, unsigned flags)
{
    const xrt_backend *b = xrt__be();
    xrt_status st = xrt__mem_check_alloc(ptr, size, "xrt_host_alloc");
    if (st == XRT_SUCCESS && (flags & ~7u))
        st = xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_host_alloc", "flags 0x%x has bits other than XRT_HOST_ALLOC_*",
                       flags);
    if (st == XRT_SUCCESS) st = b->host_alloc(b, ptr, size, flags);
    return st == XRT_SUCCESS ? xrt__mem_add_host(b, ptr, size, flags, "xrt_host_alloc") : st;
}

static inline xrt_status xrt_host_get_flags(unsigned *flags, void *ptr)
{
    const xrt_backend *b = xrt__be();
    xrt_pointer_attributes a;
    unsigned mine;
    xrt_status st = xrt__no_op(b, "xrt_host_get_flags"); /* a refusal first: the lookup names itself */
    if (st != XRT_SUCCESS) return st;
    XRT__CHECK_PTR(flags, "xrt_host_get_flags");
    *flags = 0;
    xrt__mem_lookup(b, &a, ptr);
    if (!ptr || a.type != XRT_MEMORY_PINNED_HOST || (a.backend && a.backend != b->name) ||
        !xrt__mem_host_flags(ptr, &mine))
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_host_get_flags",
                         "%p is not memory of xrt_host_alloc or xrt_malloc_host of backend %s", ptr, b->name);
    return b->host_get_flags(b, flags, ptr);
}

/* >> dispatch: registered host memory: the registry's (xrt__mem_register). */
static inline xrt_status xrt_host_register(void *ptr, size_t size, unsigned flags)
{
    return xrt__mem_register(xrt__be(), ptr, size, flags, "xrt_host_register");
}

static inline xrt_status xrt_host_unregister(void *ptr)
{
    XRT__CHECK_MAY_WAIT("xrt_host_unregister");
    return xrt__mem_unregister(xrt__be(), ptr, "xrt_host_unregister");
}

static inline xrt_status xrt_host_get_device_pointer(void **dptr, void *hptr, unsigned flags)
{
    const xrt_backend *b = xrt__be();
    xrt_pointer_attributes a;
    xrt_status st = xrt__no_op(b, "xrt_host_get_device_pointer"); /* a refusal first: the lookup names itself */
    if (st != XRT_SUCCESS) return st;
    XRT__CHECK_PTR(dptr, "xrt_host_get_device_pointer");
    *dptr = NULL;
    if (flags)
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_host_get_device_pointer", "flags 0x%x are not 0", flags);
    xrt__mem_lookup(b, &a, hptr);
    if (!hptr || a.type != XRT_MEMORY_PINNED_HOST)
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_host_get_device_pointer",
                         "%p is not pinned host memory (xrt_malloc_host or xrt_host_register)", hptr);
    return b->host_get_device_pointer(b, dptr, hptr, flags);
}

/* Stream-ordered allocation: usable by work enqueued on `stream` after this
   call. Of 0 bytes: success and NULL, nothing enqueued (nor captured), as
   cudaMallocAsync. */
static inline xrt_status xrt_malloc_async(void **ptr, size_t size, xrt_stream stream)
{
    const xrt_backend *b = xrt__be();
    xrt__call_enter();
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    xrt_status st;
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(xrt__handle_bad("xrt_malloc_async", stream));
    if (XRT__UNLIKELY(size == 0) && ptr) {
        *ptr = NULL;
        return xrt__call_exit(xrt__no_op(b, "xrt_malloc_async"));
    }
    st = xrt__mem_check_alloc(ptr, size, "xrt_malloc_async");
    if (st == XRT_SUCCESS) st = b->malloc_async(b, ptr, size, s->obj);
    if (st == XRT_SUCCESS && XRT__UNLIKELY(__atomic_load_n(&xrt__captures, __ATOMIC_RELAXED)))
        return xrt__call_exit(xrt__mem_add_captured(b, ptr, size, xrt__unit_stream(stream), s->obj));
    return xrt__call_exit(st == XRT_SUCCESS ? xrt__mem_add(b, ptr, size, XRT_MEMORY_DEVICE, "xrt_malloc_async") : st);
}

static inline xrt_status xrt_free(void *ptr)
{
    const xrt_backend *b = xrt__be();
    void *record;
    xrt_status st;
    if (!ptr) return xrt__no_op(b, "xrt_free");
    XRT__CHECK_MAY_WAIT("xrt_free");
    st = xrt__mem_take(b, ptr, XRT_MEMORY_DEVICE, "xrt_free", &record);
    if (st != XRT_SUCCESS) return st;
    if (XRT__CHK_ON()) xrt__chk_free(__builtin_return_address(0), b, "xrt_free", NULL, NULL, record);
    return xrt__mem_finish(record, b->free(b, ptr));
}

static inline xrt_status xrt_free_host(void *ptr)
{
    const xrt_backend *b = xrt__be();
    void *record;
    xrt_status st;
    if (!ptr) return xrt__no_op(b, "xrt_free_host");
    XRT__CHECK_MAY_WAIT("xrt_free_host");
    st = xrt__mem_take(b, ptr, XRT_MEMORY_PINNED_HOST, "xrt_free_host", &record);
    if (st != XRT_SUCCESS) return st;
    if (XRT__CHK_ON()) xrt__chk_free(__builtin_return_address(0), b, "xrt_free_host", NULL, NULL, record);
    return xrt__mem_finish(record, b->free_host(b, ptr));
}

/* Stream-ordered free: the memory is released when `stream` reaches this point. */
static inline xrt_status xrt_free_async(void *ptr, xrt_stream stream)
{
    const xrt_backend *b = xrt__be();
    xrt__call_enter();
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    void *record;
    xrt_status st;
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(xrt__handle_bad("xrt_free_async", stream));
    if (!ptr) return xrt__call_exit(xrt__no_op(b, "xrt_free_async"));
    st = xrt__mem_take(b, ptr, XRT_MEMORY_DEVICE, "xrt_free_async", &record);
    if (st != XRT_SUCCESS) return xrt__call_exit(st);
    if (XRT__CHK_ON()) xrt__chk_free(__builtin_return_address(0), b, "xrt_free_async", stream, s, record);
    return xrt__call_exit(xrt__mem_finish(record, b->free_async(b, ptr, s->obj)));
}

static inline xrt_status xrt_mem_get_info(size_t *free_bytes, size_t *total_bytes)
{
    const xrt_backend *b = xrt__be();
    XRT__CHECK_PTR(free_bytes, "xrt_mem_get_info");
    XRT__CHECK_PTR(total_bytes, "xrt_mem_get_info");
    return b->mem_get_info(b, free_bytes, total_bytes);
}

static inline xrt_status xrt_memset(void *dst, int value, size_t size)
{
    const xrt_backend *b = xrt__be();
    xrt_status st;
    XRT__SYNC_ON_PER_THREAD("xrt_memset", xrt_memset_async(dst, value, size, XRT_STREAM_PER_THREAD),
                            xrt__mem_set_waits(b, dst));
    XRT__CHECK_MAY_WAIT("xrt_memset");
    st = xrt__mem_check_set(b, dst, size, "xrt_memset");
    if (st != XRT_SUCCESS || size == 0) return st;
    /* checked before the call, which stays a tail call (a failure here is a
       backend's, after the checks: its access counts all the same) */
    if (XRT__CHK_ON()) xrt__chk_copy(__builtin_return_address(0), XRT_SUCCESS, b, "xrt_memset", NULL, NULL, dst, size, NULL, 0);
    return b->memset(b, dst, value, size);
}

static inline xrt_status xrt_memset_async(void *dst, int value, size_t size, xrt_stream stream)
{
    const xrt_backend *b = xrt__be();
    xrt__call_enter();
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    xrt_status st;
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(xrt__handle_bad("xrt_memset_async", stream));
    st = xrt__mem_check_set(b, dst, size, "xrt_memset_async");
    if (st != XRT_SUCCESS || size == 0) return xrt__call_exit(st);
    st = b->memset_async(b, dst, value, size, s->obj);
    if (XRT__CHK_ON()) xrt__chk_copy(__builtin_return_address(0), st, b, "xrt_memset_async", stream, s, dst, size, NULL, 0);
    return xrt__call_exit(st);
}

static inline xrt_status xrt_memcpy(void *dst, const void *src, size_t size, xrt_memcpy_kind kind)
{
    const xrt_backend *b = xrt__be();
    xrt_status st;
    XRT__SYNC_ON_PER_THREAD("xrt_memcpy", xrt_memcpy_async(dst, src, size, kind, XRT_STREAM_PER_THREAD),
                            xrt__mem_copy_waits(b, dst, src, kind));
    XRT__CHECK_MAY_WAIT("xrt_memcpy");
    st = xrt__mem_check_copy(b, dst, src, size, &kind, "xrt_memcpy");
    if (st != XRT_SUCCESS || size == 0) return st;
    /* the copy while checking is a call of its own, out of line: the
       switch's test is all the checker adds here */
    if (XRT__CHK_ON()) return xrt__chk_memcpy(__builtin_return_address(0), b, dst, src, size, kind);
    return b->memcpy(b, dst, src, size, kind);
}

static inline xrt_status xrt_memcpy_async(void *dst, const void *src, size_t size,
                                          xrt_memcpy_kind kind, xrt_stream stream)
{
    const xrt_backend *b = xrt__be();
    xrt__call_enter();
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    xrt_status st;
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(xrt__handle_bad("xrt_memcpy_async", stream));
    st = xrt__mem_check_copy(b, dst, src, size, &kind, "xrt_memcpy_async");
    if (st != XRT_SUCCESS || size == 0) return xrt__call_exit(st);
    st = b->memcpy_async(b, dst, src, size, kind, s->obj);
    if (XRT__CHK_ON()) xrt__chk_copy(__builtin_return_address(0), st, b, "xrt_memcpy_async", stream, s, dst, size, src, size);
    return xrt__call_exit(st);
}

/* >> dispatch: pitched memory. A pitched allocation is an xrt_malloc of
   pitch x height bytes: one allocation for the registry, freed by xrt_free. */
static inline xrt_status xrt_malloc_pitch(void **ptr, size_t *pitch, size_t width, size_t height)
{
    size_t p;
    xrt_status st;
    XRT__CHECK_PTR(ptr, "xrt_malloc_pitch");
    XRT__CHECK_PTR(pitch, "xrt_malloc_pitch");
    *ptr = NULL;
    *pitch = 0;
    if (width == 0 || height == 0) return XRT_SUCCESS;
    p = (width + XRT_ALIGNMENT - 1) & ~(size_t)(XRT_ALIGNMENT - 1);
    if (p < width || p > SIZE_MAX / height)
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_malloc_pitch", "width %zu x height %zu overflows", width, height);
    if ((st = xrt_malloc(ptr, p * height)) == XRT_SUCCESS) *pitch = p;
    return st;
}

static inline xrt_status xrt_memcpy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                       size_t height, xrt_memcpy_kind kind)
{
    const xrt_backend *b = xrt__be();
    xrt_status st;
    XRT__SYNC_ON_PER_THREAD("xrt_memcpy_2d",
                            xrt_memcpy_2d_async(dst, dpitch, src, spitch, width, height, kind, XRT_STREAM_PER_THREAD),
                            xrt__mem_copy_waits(b, dst, src, kind));
    XRT__CHECK_MAY_WAIT("xrt_memcpy_2d");
    st = xrt__mem_check_copy_2d(b, dst, dpitch, src, spitch, width, height, &kind, "xrt_memcpy_2d");
    if (st != XRT_SUCCESS || width == 0 || height == 0) return st;
    /* checked before the call, which stays a tail call (a failure here is a
       backend's, after the checks: its access counts all the same) */
    if (XRT__CHK_ON()) xrt__chk_copy_2d(__builtin_return_address(0), XRT_SUCCESS, b, "xrt_memcpy_2d", NULL, NULL, dst, dpitch, src, spitch,
                             width, height);
    return b->memcpy_2d(b, dst, dpitch, src, spitch, width, height, kind);
}

static inline xrt_status xrt_memcpy_2d_async(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                             size_t height, xrt_memcpy_kind kind, xrt_stream stream)
{
    const xrt_backend *b = xrt__be();
    xrt__call_enter();
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    xrt_status st;
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(xrt__handle_bad("xrt_memcpy_2d_async", stream));
    st = xrt__mem_check_copy_2d(b, dst, dpitch, src, spitch, width, height, &kind, "xrt_memcpy_2d_async");
    if (st != XRT_SUCCESS || width == 0 || height == 0) return xrt__call_exit(st);
    st = b->memcpy_2d_async(b, dst, dpitch, src, spitch, width, height, kind, s->obj);
    if (XRT__CHK_ON()) xrt__chk_copy_2d(__builtin_return_address(0), st, b, "xrt_memcpy_2d_async", stream, s, dst, dpitch, src, spitch,
                         width, height);
    return xrt__call_exit(st);
}

/* The 2-D memsets of elements of 1, 2 or 4 bytes; value is already the element's. */
static inline xrt_status xrt__memset_2d_async(void *dst, size_t pitch, unsigned value, unsigned element_size,
                                              size_t width, size_t height, xrt_stream stream, const char *fn);
static inline xrt_status xrt__memset_2d(void *dst, size_t pitch, unsigned value, unsigned element_size, size_t width,
                                        size_t height, const char *fn)
{
    const xrt_backend *b = xrt__be();
    xrt_status st;
    XRT__SYNC_ON_PER_THREAD(fn, xrt__memset_2d_async(dst, pitch, value, element_size, width, height,
                                                     XRT_STREAM_PER_THREAD, fn),
                            xrt__mem_set_waits(b, dst));
    XRT__CHECK_MAY_WAIT(fn);
    st = xrt__mem_check_set_2d(b, dst, &pitch, element_size, width, height, fn);
    if (st != XRT_SUCCESS || width == 0 || height == 0) return st;
    /* checked before the call, which stays a tail call (a failure here is a
       backend's, after the checks: its access counts all the same) */
    if (XRT__CHK_ON()) xrt__chk_copy_2d(__builtin_return_address(0), XRT_SUCCESS, b, fn, NULL, NULL, dst, pitch, NULL, 0, width * element_size, height);
    return b->memset_2d(b, dst, pitch, value, element_size, width, height);
}

static inline xrt_status xrt__memset_2d_async(void *dst, size_t pitch, unsigned value, unsigned element_size,
                                              size_t width, size_t height, xrt_stream stream, const char *fn)
{
    const xrt_backend *b = xrt__be();
    xrt__call_enter();
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    xrt_status st;
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(xrt__handle_bad(fn, stream));
    st = xrt__mem_check_set_2d(b, dst, &pitch, element_size, width, height, fn);
    if (st != XRT_SUCCESS || width == 0 || height == 0) return xrt__call_exit(st);
    st = b->memset_2d_async(b, dst, pitch, value, element_size, width, height, s->obj);
    if (XRT__CHK_ON()) xrt__chk_copy_2d(__builtin_return_address(0), st, b, fn, stream, s, dst, pitch, NULL, 0, width * element_size, height);
    return xrt__call_exit(st);
}

static inline xrt_status xrt_memset_2d(void *dst, size_t pitch, int value, size_t width, size_t height)
{
    return xrt__memset_2d(dst, pitch, (unsigned char)value, 1, width, height, "xrt_memset_2d");
}

static inline xrt_status xrt_memset_2d_async(void *dst, size_t pitch, int value, size_t width, size_t height,
                                             xrt_stream stream)
{
    return xrt__memset_2d_async(dst, pitch, (unsigned char)value, 1, width, height, stream, "xrt_memset_2d_async");
}

static inline xrt_status xrt_memset_d16(void *dst, uint16_t value, size_t count)
{
    return xrt__memset_2d(dst, 2 * count, value, 2, count, 1, "xrt_memset_d16");
}

static inline xrt_status xrt_memset_d16_async(void *dst, uint16_t value, size_t count, xrt_stream stream)
{
    return xrt__memset_2d_async(dst, 2 * count, value, 2, count, 1, stream, "xrt_memset_d16_async");
}

static inline xrt_status xrt_memset_d32(void *dst, uint32_t value, size_t count)
{
    return xrt__memset_2d(dst, 4 * count, value, 4, count, 1, "xrt_memset_d32");
}

static inline xrt_status xrt_memset_d32_async(void *dst, uint32_t value, size_t count, xrt_stream stream)
{
    return xrt__memset_2d_async(dst, 4 * count, value, 4, count, 1, stream, "xrt_memset_d32_async");
}

/* >> dispatch: 3-D memory. A 3-D allocation is an xrt_malloc_pitch of
   height x depth rows. The backends get a copy's params checked and its
   kind resolved (a copy of the caller's). */
static inline xrt_pitched_ptr xrt_make_pitched_ptr(void *ptr, size_t pitch, size_t xsize, size_t ysize)
{
    xrt_pitched_ptr p;
    p.ptr = ptr;
    p.pitch = pitch;
    p.xsize = xsize;
    p.ysize = ysize;
    return p;
}

static inline xrt_extent xrt_make_extent(size_t width, size_t height, size_t depth)
{
    xrt_extent e;
    e.width = width;
    e.height = height;
    e.depth = depth;
    return e;
}

static inline xrt_pos xrt_make_pos(size_t x, size_t y, size_t z)
{
    xrt_pos p;
    p.x = x;
    p.y = y;
    p.z = z;
    return p;
}

static inline xrt_status xrt_malloc_3d(xrt_pitched_ptr *p, xrt_extent extent)
{
    size_t rows, pitch;
    xrt_status st;
    XRT__CHECK_PTR(p, "xrt_malloc_3d");
    *p = xrt_make_pitched_ptr(NULL, 0, extent.width, extent.height);
    if (extent.width == 0 || extent.height == 0 || extent.depth == 0) return XRT_SUCCESS;
    rows = extent.height * extent.depth;
    pitch = (extent.width + XRT_ALIGNMENT - 1) & ~(size_t)(XRT_ALIGNMENT - 1);
    if (rows / extent.depth != extent.height || pitch < extent.width || pitch > SIZE_MAX / rows)
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_malloc_3d", "width %zu x height %zu x depth %zu overflows",
                         extent.width, extent.height, extent.depth);
    if ((st = xrt_malloc_pitch(&p->ptr, &p->pitch, extent.width, rows)) != XRT_SUCCESS) p->ptr = NULL;
    return st;
}

static inline xrt_status xrt_memcpy_3d(const xrt_memcpy_3d_parms *p)
{
    const xrt_backend *b = xrt__be();
    xrt_memcpy_3d_parms q;
    xrt_status st;
    XRT__SYNC_ON_PER_THREAD("xrt_memcpy_3d", xrt_memcpy_3d_async(p, XRT_STREAM_PER_THREAD),
                            xrt__mem_copy_waits(b, p->dst_ptr.ptr, p->src_ptr.ptr, p->kind));
    XRT__CHECK_MAY_WAIT("xrt_memcpy_3d");
    XRT__CHECK_PTR(p, "xrt_memcpy_3d");
    q = *p;
    st = xrt__mem_check_copy_3d(b, &q, "xrt_memcpy_3d");
    if (st != XRT_SUCCESS || !q.extent.width || !q.extent.height || !q.extent.depth) return st;
    if (XRT__CHK_ON()) xrt__chk_copy_3d(__builtin_return_address(0), XRT_SUCCESS, b, "xrt_memcpy_3d", NULL, NULL, &q, NULL, NULL);
    return b->memcpy_3d(b, &q);
}

static inline xrt_status xrt_memcpy_3d_async(const xrt_memcpy_3d_parms *p, xrt_stream stream)
{
    const xrt_backend *b = xrt__be();
    xrt__call_enter();
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    xrt_memcpy_3d_parms q;
    xrt_status st;
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(xrt__handle_bad("xrt_memcpy_3d_async", stream));
    if (!p) return xrt__call_exit(xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_memcpy_3d_async", "p is NULL"));
    q = *p;
    st = xrt__mem_check_copy_3d(b, &q, "xrt_memcpy_3d_async");
    if (st != XRT_SUCCESS || !q.extent.width || !q.extent.height || !q.extent.depth) return xrt__call_exit(st);
    st = b->memcpy_3d_async(b, &q, s->obj);
    if (XRT__CHK_ON()) xrt__chk_copy_3d(__builtin_return_address(0), st, b, "xrt_memcpy_3d_async", stream, s, &q, NULL, NULL);
    return xrt__call_exit(st);
}

static inline xrt_status xrt_memset_3d(xrt_pitched_ptr p, int value, xrt_extent extent)
{
    const xrt_backend *b = xrt__be();
    xrt_status st;
    XRT__SYNC_ON_PER_THREAD("xrt_memset_3d", xrt_memset_3d_async(p, value, extent, XRT_STREAM_PER_THREAD),
                            xrt__mem_set_waits(b, p.ptr));
    XRT__CHECK_MAY_WAIT("xrt_memset_3d");
    st = xrt__mem_check_set_3d(b, &p, &extent, "xrt_memset_3d");
    if (st != XRT_SUCCESS || !extent.width || !extent.height || !extent.depth) return st;
    if (XRT__CHK_ON()) xrt__chk_copy_3d(__builtin_return_address(0), XRT_SUCCESS, b, "xrt_memset_3d", NULL, NULL, NULL, &p, &extent);
    return b->memset_3d(b, &p, (unsigned char)value, &extent);
}

static inline xrt_status xrt_memset_3d_async(xrt_pitched_ptr p, int value, xrt_extent extent, xrt_stream stream)
{
    const xrt_backend *b = xrt__be();
    xrt__call_enter();
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    xrt_status st;
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(xrt__handle_bad("xrt_memset_3d_async", stream));
    st = xrt__mem_check_set_3d(b, &p, &extent, "xrt_memset_3d_async");
    if (st != XRT_SUCCESS || !extent.width || !extent.height || !extent.depth) return xrt__call_exit(st);
    st = b->memset_3d_async(b, &p, (unsigned char)value, &extent, s->obj);
    if (XRT__CHK_ON()) xrt__chk_copy_3d(__builtin_return_address(0), st, b, "xrt_memset_3d_async", stream, s, NULL, &p, &extent);
    return xrt__call_exit(st);
}

/* >> dispatch: peers */
static inline xrt_status xrt__peer_check(int device, const char *what, const char *fn)
{
    if (XRT__UNLIKELY(device < 0)) return xrt_error(XRT_ERROR_INVALID_DEVICE, fn, "%s %d is negative", what, device);
    return XRT_SUCCESS;
}

static inline xrt_status xrt_device_can_access_peer(int *can, int device, int peer)
{
    const xrt_backend *b = xrt__be();
    xrt_status st;
    XRT__CHECK_PTR(can, "xrt_device_can_access_peer");
    *can = 0;
    if ((st = xrt__peer_check(device, "device", "xrt_device_can_access_peer")) != XRT_SUCCESS ||
        (st = xrt__peer_check(peer, "peer", "xrt_device_can_access_peer")) != XRT_SUCCESS)
        return st;
    return b->device_can_access_peer(b, can, device, peer);
}

static inline xrt_status xrt_device_get_p2p_attribute(int *value, xrt_p2p_attr attr, int src, int dst)
{
    const char *fn = "xrt_device_get_p2p_attribute";
    const xrt_backend *b = xrt__be();
    xrt_status st;
    XRT__CHECK_PTR(value, "xrt_device_get_p2p_attribute");
    if (XRT__UNLIKELY(attr < XRT_P2P_ATTR_PERFORMANCE_RANK || attr > XRT_P2P_ATTR_CUDA_ARRAY_ACCESS_SUPPORTED))
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "attr %d is none of XRT_P2P_ATTR_* (1 .. 4)", (int)attr);
    if ((st = xrt__peer_check(src, "src", fn)) != XRT_SUCCESS || (st = xrt__peer_check(dst, "dst", fn)) != XRT_SUCCESS)
        return st;
    if (XRT__UNLIKELY(src == dst))
        return xrt_error(XRT_ERROR_INVALID_DEVICE, fn, "src and dst are both device %d: a link joins two devices", src);
    return b->device_get_p2p_attribute(b, value, (int)attr, src, dst);
}

static inline xrt_status xrt_device_enable_peer_access(int peer, unsigned flags)
{
    const xrt_backend *b = xrt__be();
    xrt_status st = xrt__peer_check(peer, "peer", "xrt_device_enable_peer_access");
    if (st != XRT_SUCCESS) return st;
    if (XRT__UNLIKELY(flags != 0))
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_device_enable_peer_access", "flags %u: must be 0", flags);
    return b->device_enable_peer_access(b, peer, flags);
}

static inline xrt_status xrt_device_disable_peer_access(int peer)
{
    const xrt_backend *b = xrt__be();
    xrt_status st = xrt__peer_check(peer, "peer", "xrt_device_disable_peer_access");
    return st == XRT_SUCCESS ? b->device_disable_peer_access(b, peer) : st;
}

static inline xrt_status xrt_memcpy_peer(void *dst, int dst_device, const void *src, int src_device, size_t size)
{
    const xrt_backend *b = xrt__be();
    xrt_status st;
    XRT__SYNC_ON_PER_THREAD("xrt_memcpy_peer",
                            xrt_memcpy_peer_async(dst, dst_device, src, src_device, size, XRT_STREAM_PER_THREAD),
                            0); /* device to device: not waited for, as cudaMemcpyPeer */
    XRT__CHECK_MAY_WAIT("xrt_memcpy_peer");
    st = xrt__mem_check_peer(b, dst, dst_device, src, src_device, size, "xrt_memcpy_peer");
    if (st != XRT_SUCCESS) return st;
    /* checked before the call, which stays a tail call (a failure here is a
       backend's, after the checks: its access counts all the same) */
    if (XRT__CHK_ON()) xrt__chk_copy_peer(__builtin_return_address(0), b, dst, dst_device, src, src_device, size);
    return b->memcpy_peer(b, dst, dst_device, src, src_device, size); /* 0 bytes too: it orders the devices' work */
}

static inline xrt_status xrt_memcpy_peer_async(void *dst, int dst_device, const void *src, int src_device, size_t size,
                                               xrt_stream stream)
{
    const xrt_backend *b = xrt__be();
    xrt__call_enter();
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    xrt_status st;
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(xrt__handle_bad("xrt_memcpy_peer_async", stream));
    st = xrt__mem_check_peer(b, dst, dst_device, src, src_device, size, "xrt_memcpy_peer_async");
    if (st != XRT_SUCCESS || size == 0) return xrt__call_exit(st);
    st = b->memcpy_peer_async(b, dst, dst_device, src, src_device, size, s->obj);
    if (XRT__CHK_ON()) xrt__chk_copy(__builtin_return_address(0), st, b, "xrt_memcpy_peer_async", stream, s, dst, size, src, size);
    return xrt__call_exit(st);
}

/* Owning backend, device and memory type of any pointer; a pointer unknown to
   xrt and to the backend gives XRT_MEMORY_UNKNOWN and success, as in CUDA. */
static inline xrt_status xrt_pointer_get_attributes(xrt_pointer_attributes *attr, const void *ptr)
{
    const xrt_backend *b = xrt__be();
    XRT__CHECK_PTR(attr, "xrt_pointer_get_attributes");
    return xrt__mem_lookup(b, attr, ptr);
}

static inline xrt_status xrt_mem_export_dmabuf(const void *ptr, size_t size, int *fd, uint64_t *offset)
{
    const xrt_backend *b = xrt__be();
    xrt_status st = xrt__mem_check_export(b, ptr, size, fd, offset);
    return st == XRT_SUCCESS ? b->mem_export_dmabuf(b, ptr, size, fd, offset) : st;
}

/* >> dispatch: memory shared between processes (the checks and the
   registry's bookkeeping live in the XRT_IMPL unit: xrt__ipc_*) */
static inline xrt_status xrt_ipc_get_mem_handle(xrt_ipc_mem_handle *handle, void *dev_ptr)
{
    return xrt__ipc_get(xrt__be(), handle, dev_ptr);
}

static inline xrt_status xrt_ipc_open_mem_handle(void **dev_ptr, xrt_ipc_mem_handle handle, unsigned flags)
{
    return xrt__ipc_open(xrt__be(), dev_ptr, &handle, flags);
}

static inline xrt_status xrt_ipc_close_mem_handle(void *dev_ptr)
{
    XRT__CHECK_MAY_WAIT("xrt_ipc_close_mem_handle");
    return xrt__ipc_close(xrt__be(), dev_ptr);
}

/* >> dispatch: streams */
static inline xrt_status xrt__handle_destroy_object(const xrt_backend *b, uintptr_t kind, void *obj)
{
    if (kind == XRT__HANDLE_STREAM) return b->stream_destroy(b, obj);
    if (kind == XRT__HANDLE_EVENT) return b->event_destroy(b, obj);
    if (kind == XRT__HANDLE_GRAPH) return b->graph_destroy(b, obj);
    if (kind == XRT__HANDLE_GRAPH_EXEC) return b->graph_exec_destroy(b, obj);
    if (kind == XRT__HANDLE_MEM_POOL) return b->mem_pool_destroy(b, obj);
    return kind == XRT__HANDLE_MODULE ? xrt__module_destroy(b, obj) : XRT_SUCCESS; /* functions: their module's */
}

/* Makes free slot i (its chunk allocated) the handle of obj: the handle. */
static inline uintptr_t xrt__handle_fill(const xrt_backend *b, void *obj, uintptr_t kind, int owned, uintptr_t i)
{
    xrt__handle_slot *s = &xrt__handle_chunks[i / XRT__HANDLE_CHUNK][i % XRT__HANDLE_CHUNK];
    uintptr_t gen, h;
    /* obj and owner are also read by scans (xrt__handle_of, xrt__handle_bad) */
    __atomic_store_n(&s->obj, obj, __ATOMIC_RELAXED);
    __atomic_store_n(&s->owner, b, __ATOMIC_RELAXED);
    s->flags = owned ? XRT__HANDLE_OWNED : 0;
    gen = (__atomic_load_n(&s->tag, __ATOMIC_RELAXED) >> XRT__HANDLE_GEN_SHIFT) + 1; /* a handle never comes back */
    h = (gen << XRT__HANDLE_GEN_SHIFT) | (i << XRT__HANDLE_KIND_BITS) | kind;
    __atomic_store_n(&s->tag, h, __ATOMIC_RELEASE); /* publishes obj, owner and flags */
    return h;
}

/* A slot from the thread's cache, inline; from the table when it is empty. */
static inline xrt_status xrt__handle_create(const xrt_backend *b, void *obj, uintptr_t kind,
                                            int owned, void **out)
{
    uintptr_t h = 0;
    unsigned n = xrt__call.nfree;
    xrt_status st;
    if (XRT__LIKELY(n != 0)) {
        xrt__call.nfree = n - 1;
        *out = (void *)xrt__handle_fill(b, obj, kind, owned, xrt__call.free_slots[n - 1]);
        return XRT_SUCCESS;
    }
    st = xrt__handle_alloc(b, obj, kind, owned, &h);
    if (st != XRT_SUCCESS && owned) xrt__handle_destroy_object(b, kind, obj);
    *out = (void *)h;
    return st;
}

/* Releases the handle first, then the object (unless it wraps a native one);
   of two threads destroying one handle exactly one wins (xrt__handle_free). */
static inline xrt_status xrt__handle_destroy(const xrt_backend *b, const void *handle, uintptr_t kind,
                                             const char *fn)
{
    return xrt__handle_free(b, handle, kind, fn);
}

static inline xrt_status xrt_stream_create(xrt_stream *stream)
{
    const xrt_backend *b = xrt__be();
    void *obj = NULL;
    xrt_status st;
    XRT__CHECK_PTR(stream, "xrt_stream_create");
    *stream = NULL;
    st = b->stream_create(b, &obj);
    if (st != XRT_SUCCESS) return st;
    st = xrt__handle_create(b, obj, XRT__HANDLE_STREAM, 1, (void **)stream);
    if (st == XRT_SUCCESS) xrt__stream_keep_device(b, *stream);
    if (XRT__CHK_ON()) xrt__chk_stream_created(__builtin_return_address(0), st, b, stream);
    return st;
}

static inline xrt_status xrt__stream_create(const char *fn, xrt_stream *stream, unsigned flags, int priority)
{
    const xrt_backend *b = xrt__be();
    void *obj = NULL;
    xrt_status st;
    if (XRT__UNLIKELY(!stream)) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "stream is NULL");
    *stream = NULL;
    if (XRT__UNLIKELY(flags & ~(unsigned)XRT_STREAM_NON_BLOCKING))
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "unknown flags 0x%x (XRT_STREAM_DEFAULT, XRT_STREAM_NON_BLOCKING)",
                         flags);
    st = b->stream_create_with_priority(b, &obj, flags, priority);
    if (st != XRT_SUCCESS) return st;
    st = xrt__handle_create(b, obj, XRT__HANDLE_STREAM, 1, (void **)stream);
    if (st == XRT_SUCCESS) xrt__stream_keep_device(b, *stream);
    if (XRT__CHK_ON()) xrt__chk_stream_created(__builtin_return_address(0), st, b, stream);
    return st;
}

/* A priority outside the device's range is clamped to it, as CUDA does. */
static inline xrt_status xrt_stream_create_with_priority(xrt_stream *stream, unsigned flags, int priority)
{
    return xrt__stream_create("xrt_stream_create_with_priority", stream, flags, priority);
}

static inline xrt_status xrt_stream_create_with_flags(xrt_stream *stream, unsigned flags)
{
    return xrt__stream_create("xrt_stream_create_with_flags", stream, flags, 0);
}

static inline xrt_status xrt_stream_get_flags(xrt_stream stream, unsigned *flags)
{
    const xrt_backend *b = xrt__be();
    XRT__CHECK_PTR(flags, "xrt_stream_get_flags");
    xrt__call_enter();
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(xrt__handle_bad("xrt_stream_get_flags", stream));
    return xrt__call_exit(b->stream_get_flags(b, s->obj, flags));
}

/* A stream xrt made answers from its slot (xrt__stream_keep_device); the
   backend answers for the NULL, legacy and per-thread streams and for a
   wrapped native one. */
static inline xrt_status xrt_stream_get_device(xrt_stream stream, int *device)
{
    const xrt_backend *b = xrt__be();
    uintptr_t kept;
    XRT__CHECK_PTR(device, "xrt_stream_get_device");
    xrt__call_enter();
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(xrt__handle_bad("xrt_stream_get_device", stream));
    if ((kept = __atomic_load_n(&s->flags, __ATOMIC_RELAXED) >> XRT__HANDLE_DEVICE_SHIFT) != 0) {
        *device = (int)kept - 1;
        return xrt__call_exit(XRT_SUCCESS);
    }
    return xrt__call_exit(b->stream_get_device(b, s->obj, device));
}

static inline xrt_status xrt_stream_get_priority(xrt_stream stream, int *priority)
{
    const xrt_backend *b = xrt__be();
    XRT__CHECK_PTR(priority, "xrt_stream_get_priority");
    xrt__call_enter();
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(xrt__handle_bad("xrt_stream_get_priority", stream));
    return xrt__call_exit(b->stream_get_priority(b, s->obj, priority));
}

/* >> dispatch: stream attributes: the backend gets an attribute of
   xrt_stream_attr, a value checked (set), a value zeroed (get). */
static inline xrt_status xrt_stream_set_attribute(xrt_stream stream, xrt_stream_attr attr,
                                                  const xrt_stream_attr_value *value)
{
    const xrt_backend *b = xrt__be();
    xrt_status st;
    if (XRT__UNLIKELY((st = xrt__stream_attr_check("xrt_stream_set_attribute", attr, value, 1)) != XRT_SUCCESS))
        return st;
    xrt__call_enter();
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(xrt__handle_bad("xrt_stream_set_attribute", stream));
    return xrt__call_exit(b->stream_set_attribute(b, s->obj, (int)attr, value));
}

static inline xrt_status xrt_stream_get_attribute(xrt_stream stream, xrt_stream_attr attr, xrt_stream_attr_value *value)
{
    const xrt_backend *b = xrt__be();
    xrt_status st;
    XRT__CHECK_PTR(value, "xrt_stream_get_attribute"); /* here: the compiler sees it before the memset */
    if (XRT__UNLIKELY((st = xrt__stream_attr_check("xrt_stream_get_attribute", attr, value, 0)) != XRT_SUCCESS))
        return st;
    __builtin_memset(value, 0, sizeof *value); /* (the part of xrt.h a program includes has no string.h) */
    xrt__call_enter();
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(xrt__handle_bad("xrt_stream_get_attribute", stream));
    return xrt__call_exit(b->stream_get_attribute(b, s->obj, (int)attr, value));
}

/* The per-thread stream of the calling thread and current device is made
   here (or by its first use), as CUDA makes cudaStreamPerThread's. */
static inline xrt_status xrt_stream_per_thread(xrt_stream *stream)
{
    const xrt_backend *b = xrt__be();
    XRT__CHECK_PTR(stream, "xrt_stream_per_thread");
    *stream = NULL;
    if (XRT__UNLIKELY(!xrt__handle_special_stream(b, XRT_STREAM_PER_THREAD)))
        return xrt__handle_bad("xrt_stream_per_thread", XRT_STREAM_PER_THREAD);
    *stream = XRT_STREAM_PER_THREAD;
    return XRT_SUCCESS;
}

/* Numerically, greatest <= least: a lower number is a higher priority. */
static inline xrt_status xrt_device_get_stream_priority_range(int *least, int *greatest)
{
    const xrt_backend *b = xrt__be();
    int l = 0, g = 0;
    xrt_status st = b->device_get_stream_priority_range(b, &l, &g);
    if (st == XRT_SUCCESS && least) *least = l;
    if (st == XRT_SUCCESS && greatest) *greatest = g;
    return st;
}

/* Returns at once; work already enqueued still completes, as with CUDA. */
static inline xrt_status xrt_stream_destroy(xrt_stream stream)
{
    const xrt_backend *b = xrt__be();
    xrt_status st;
    if (XRT__UNLIKELY(stream == XRT_STREAM_LEGACY || stream == XRT_STREAM_PER_THREAD))
        return xrt__handle_bad("xrt_stream_destroy", stream);
    st = xrt__handle_destroy(b, stream, XRT__HANDLE_STREAM, "xrt_stream_destroy");
    if (XRT__CHK_ON() && st == XRT_SUCCESS) xrt__chk_stream_destroyed(b, stream);
    if (XRT__UNLIKELY(__atomic_load_n(&xrt__captures, __ATOMIC_RELAXED))) xrt__capture_stream_gone(b, (uintptr_t)stream);
    return st;
}

static inline xrt_status xrt_stream_synchronize(xrt_stream stream)
{
    const xrt_backend *b = xrt__be();
    XRT__CHECK_MAY_WAIT("xrt_stream_synchronize");
    xrt__call_enter();
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(xrt__handle_bad("xrt_stream_synchronize", stream));
    /* the wait while checking is a call of its own, out of line, which
       takes what the stream was given before the backend's call */
    if (XRT__CHK_ON()) return xrt__call_exit(xrt__chk_stream_wait(__builtin_return_address(0), b, stream, s, 0));
    return xrt__call_exit(b->stream_synchronize(b, s->obj));
}

/* XRT_SUCCESS if all work on the stream has completed, else XRT_ERROR_NOT_READY
   (which is not recorded as the thread's last error). */
static inline xrt_status xrt_stream_query(xrt_stream stream)
{
    const xrt_backend *b = xrt__be();
    xrt__call_enter();
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(xrt__handle_bad("xrt_stream_query", stream));
    if (XRT__CHK_ON()) return xrt__call_exit(xrt__chk_stream_wait(__builtin_return_address(0), b, stream, s, 1));
    return xrt__call_exit(b->stream_query(b, s->obj));
}

/* Later work on `stream` waits for the event's most recent record (at the
   time of this call); an event never recorded imposes no wait. On the NULL
   stream it is an action all the same, ordered with the blocking streams. */
/* The wait with flags and without: one body, inlined at -O0 too, so that the
   checker's call site stays the caller's. */
static inline __attribute__((always_inline)) xrt_status xrt__stream_wait_event(xrt_stream stream, xrt_event event,
                                                                               unsigned flags, const char *who)
{
    const xrt_backend *b = xrt__be();
    if (XRT__UNLIKELY(flags & ~(unsigned)XRT_EVENT_WAIT_EXTERNAL))
        return xrt_error(XRT_ERROR_INVALID_VALUE, who, "unknown flags 0x%x (XRT_EVENT_WAIT_DEFAULT or _EXTERNAL)",
                         flags);
    xrt__call_enter();
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    xrt__handle_slot *e = xrt__handle_lookup(b, event, XRT__HANDLE_EVENT);
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(xrt__handle_bad(who, stream));
    if (XRT__UNLIKELY(!e)) return xrt__call_exit(xrt__handle_bad(who, event));
    uint64_t seen = XRT__CHK_ON() ? xrt__chk_event_seen(event) : 0; /* the record the backend takes */
    /* no flags: the operation every table has, also one built before this one was appended */
    xrt_status st =
        flags ? b->stream_wait_event_with_flags(b, s->obj, e->obj, flags) : b->stream_wait_event(b, s->obj, e->obj);
    if (XRT__CHK_ON()) xrt__chk_wait(__builtin_return_address(0), st, b, stream, s, event, seen);
    return xrt__call_exit(st);
}

static inline xrt_status xrt_stream_wait_event(xrt_stream stream, xrt_event event)
{
    return xrt__stream_wait_event(stream, event, 0, "xrt_stream_wait_event");
}

static inline xrt_status xrt_stream_wait_event_with_flags(xrt_stream stream, xrt_event event, unsigned flags)
{
    return xrt__stream_wait_event(stream, event, flags, "xrt_stream_wait_event_with_flags");
}

/* Runs fn(user) on a backend thread when the stream reaches this point. fn
   must not call xrt functions that wait on streams. */
static inline xrt_status xrt_launch_host_func(xrt_stream stream, xrt_host_fn fn, void *user)
{
    const xrt_backend *b = xrt__be();
    if (XRT__UNLIKELY(!fn))
        return XRT__LAUNCH_REFUSED(xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_launch_host_func", "fn is NULL"));
    xrt__call_enter();
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(XRT__LAUNCH_REFUSED(xrt__handle_bad("xrt_launch_host_func", stream)));
    xrt_status st = b->launch_host_func(b, s->obj, fn, user);
    if (XRT__CHK_ON()) {
        xrt__host_key k = xrt__host_key_of(fn, user);
        xrt__chk_launch(__builtin_return_address(0), st, b, "xrt_launch_host_func", stream, s, NULL, k.b, sizeof k.b);
    }
    return xrt__call_exit(st);
}

/* A stream callback is a host function (one path on every backend) whose
   closure tells it its stream. A capture is refused, as cudaStreamAddCallback
   is "not supported with cudaStreamBeginCapture": a captured closure would
   run at every launch of the graph. */
static inline xrt_status xrt_stream_add_callback(xrt_stream stream, xrt_stream_callback fn, void *user, unsigned flags)
{
    const char *name = "xrt_stream_add_callback";
    const xrt_backend *b = xrt__be();
    unsigned capturing = XRT_CAPTURE_STATUS_NONE;
    if (XRT__UNLIKELY(!fn)) return XRT__LAUNCH_REFUSED(xrt_error(XRT_ERROR_INVALID_VALUE, name, "fn is NULL"));
    if (XRT__UNLIKELY(flags))
        return XRT__LAUNCH_REFUSED(xrt_error(XRT_ERROR_INVALID_VALUE, name, "flags 0x%x: must be 0 (reserved)", flags));
    xrt__call_enter();
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(XRT__LAUNCH_REFUSED(xrt__handle_bad(name, stream)));
    if (s->obj && b->stream_is_capturing(b, s->obj, &capturing) == XRT_SUCCESS &&
        capturing != XRT_CAPTURE_STATUS_NONE)
        return xrt__call_exit(XRT__LAUNCH_REFUSED(xrt_error(XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED, name,
            "stream %p is capturing: a callback cannot be captured; use xrt_launch_host_func", (void *)stream)));
    xrt_status st = xrt__stream_add_callback(b, s->obj, stream, fn, user);
    if (XRT__CHK_ON()) xrt__chk_launch(__builtin_return_address(0), st, b, name, stream, s, NULL, NULL, 0);
    return xrt__call_exit(st);
}

/* >> dispatch: memory pools */
static inline xrt_status xrt__pool_device(const xrt_backend *b, int device, const char *fn)
{
    int count = 0;
    xrt_status st = xrt__no_op(b, fn); /* a refusal names fn, not the count's call */
    if (st != XRT_SUCCESS) return st;
    if (XRT__UNLIKELY(device < 0)) return xrt_error(XRT_ERROR_INVALID_DEVICE, fn, "device %d is negative", device);
    if ((st = b->get_device_count(b, &count)) != XRT_SUCCESS) return st;
    if (XRT__UNLIKELY(device >= count))
        return xrt_error(XRT_ERROR_INVALID_DEVICE, fn, "device %d is out of range (%d device%s)", device, count,
                         count == 1 ? "" : "s");
    return XRT_SUCCESS;
}

static inline xrt_status xrt__pool_get(xrt_mem_pool *pool, int device, int current, const char *fn)
{
    const xrt_backend *b = xrt__be();
    void *obj = NULL;
    xrt_status st;
    XRT__CHECK_PTR(pool, fn);
    *pool = NULL;
    if ((st = xrt__pool_device(b, device, fn)) != XRT_SUCCESS) return st;
    st = current ? b->device_get_mem_pool(b, &obj, device) : b->device_get_default_mem_pool(b, &obj, device);
    return st != XRT_SUCCESS ? st : xrt__pool_handle(b, obj, pool);
}

/* The pool of device `device` that xrt_malloc_async uses unless another was set. */
static inline xrt_status xrt_device_graph_mem_trim(int device)
{
    const xrt_backend *b = xrt__be();
    xrt_status st = xrt__pool_device(b, device, "xrt_device_graph_mem_trim");
    return st == XRT_SUCCESS ? b->device_graph_mem_trim(b, device) : st;
}

/* The checks of both graph memory attribute calls; set: the value to set. */
static inline xrt_status xrt__graph_mem_attr_check(const xrt_backend *b, int device, int attr, const void *value,
                                                   int set, const char *fn)
{
    xrt_status st = xrt__pool_device(b, device, fn);
    if (st != XRT_SUCCESS) return st;
    if (XRT__UNLIKELY(attr < XRT_GRAPH_MEM_ATTR_USED_MEM_CURRENT || attr > XRT_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH))
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "attribute %d is no xrt_graph_mem_attr", attr);
    XRT__CHECK_PTR(value, fn);
    if (!set) return XRT_SUCCESS;
    if (XRT__UNLIKELY(attr == XRT_GRAPH_MEM_ATTR_USED_MEM_CURRENT || attr == XRT_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT))
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "attribute %d (a current amount) is read only", attr);
    if (XRT__UNLIKELY(*(const uint64_t *)value != 0))
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "a high-water mark (attribute %d) can only be reset to 0, not %llu",
                         attr, (unsigned long long)*(const uint64_t *)value);
    return XRT_SUCCESS;
}

static inline xrt_status xrt_device_get_graph_mem_attribute(int device, xrt_graph_mem_attr attr, void *value)
{
    const xrt_backend *b = xrt__be();
    const char *fn = "xrt_device_get_graph_mem_attribute";
    xrt_status st = xrt__graph_mem_attr_check(b, device, (int)attr, value, 0, fn);
    return st == XRT_SUCCESS ? b->device_get_graph_mem_attribute(b, device, (int)attr, (uint64_t *)value) : st;
}

static inline xrt_status xrt_device_set_graph_mem_attribute(int device, xrt_graph_mem_attr attr, void *value)
{
    const xrt_backend *b = xrt__be();
    const char *fn = "xrt_device_set_graph_mem_attribute";
    xrt_status st = xrt__graph_mem_attr_check(b, device, (int)attr, value, 1, fn);
    return st == XRT_SUCCESS ? b->device_set_graph_mem_attribute(b, device, (int)attr) : st;
}

static inline xrt_status xrt_device_get_default_mem_pool(xrt_mem_pool *pool, int device)
{
    return xrt__pool_get(pool, device, 0, "xrt_device_get_default_mem_pool");
}

static inline xrt_status xrt_device_get_mem_pool(xrt_mem_pool *pool, int device)
{
    return xrt__pool_get(pool, device, 1, "xrt_device_get_mem_pool");
}

/* As cudaDeviceSetMemPool: a pool of another device is XRT_ERROR_INVALID_VALUE. */
static inline xrt_status xrt_device_set_mem_pool(int device, xrt_mem_pool pool)
{
    const xrt_backend *b = xrt__be();
    xrt__handle_slot *p;
    xrt_status st;
    if ((st = xrt__pool_device(b, device, "xrt_device_set_mem_pool")) != XRT_SUCCESS) return st;
    xrt__call_enter();
    p = xrt__handle_lookup(b, pool, XRT__HANDLE_MEM_POOL);
    if (XRT__UNLIKELY(!p)) return xrt__call_exit(xrt__handle_bad("xrt_device_set_mem_pool", pool));
    return xrt__call_exit(b->device_set_mem_pool(b, device, p->obj));
}

static inline xrt_status xrt_mem_pool_create(xrt_mem_pool *pool, const xrt_mem_pool_props *props)
{
    const xrt_backend *b = xrt__be();
    void *obj = NULL;
    xrt_status st;
    XRT__CHECK_PTR(pool, "xrt_mem_pool_create");
    *pool = NULL;
    XRT__CHECK_PTR(props, "xrt_mem_pool_create");
    if (XRT__UNLIKELY(props->handle_types != XRT_MEM_HANDLE_TYPE_NONE))
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_mem_pool_create",
                         "handle_types 0x%x: only XRT_MEM_HANDLE_TYPE_NONE (pools are not exportable yet)",
                         props->handle_types);
    if ((st = xrt__pool_device(b, props->device, "xrt_mem_pool_create")) != XRT_SUCCESS) return st;
    if ((st = b->mem_pool_create(b, &obj, props)) != XRT_SUCCESS) return st;
    return xrt__handle_create(b, obj, XRT__HANDLE_MEM_POOL, 1, (void **)pool);
}

/* The default pools are not owned by their handles: refused, as cudaMemPoolDestroy refuses them. */
static inline xrt_status xrt_mem_pool_destroy(xrt_mem_pool pool)
{
    const xrt_backend *b = xrt__be();
    xrt__handle_slot *p = xrt__handle_lookup(b, pool, XRT__HANDLE_MEM_POOL);
    if (XRT__UNLIKELY(!p)) return xrt__handle_bad("xrt_mem_pool_destroy", pool);
    if (XRT__UNLIKELY(!(__atomic_load_n(&p->flags, __ATOMIC_RELAXED) & XRT__HANDLE_OWNED)))
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_mem_pool_destroy", "%p is a device's default pool", (void *)pool);
    return xrt__handle_destroy(b, pool, XRT__HANDLE_MEM_POOL, "xrt_mem_pool_destroy");
}

/* 1 for the int-valued attributes (the reuse policies), 0 for the
   uint64_t ones, -1 for a value that is no xrt_mem_pool_attr. */
static inline int xrt__pool_attr_is_int(int attr)
{
    if (attr >= XRT_MEMPOOL_REUSE_FOLLOW_EVENT_DEPENDENCIES && attr <= XRT_MEMPOOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES)
        return 1;
    return attr >= XRT_MEMPOOL_ATTR_RELEASE_THRESHOLD && attr <= XRT_MEMPOOL_ATTR_USED_MEM_HIGH ? 0 : -1;
}

static inline xrt_status xrt__pool_attr_value(int attr, const void *value, uint64_t *v)
{
    const char *fn = "xrt_mem_pool_set_attribute";
    int is_int = xrt__pool_attr_is_int(attr), i;
    if (is_int < 0) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "attribute %d is no xrt_mem_pool_attr", attr);
    XRT__CHECK_PTR(value, "xrt_mem_pool_set_attribute");
    if (is_int) {
        i = *(const int *)value;
        if (XRT__UNLIKELY(i != 0 && i != 1))
            return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "a reuse policy is 0 or 1, not %d", i);
        *v = (uint64_t)i;
        return XRT_SUCCESS;
    }
    *v = *(const uint64_t *)value;
    if (XRT__UNLIKELY(attr == XRT_MEMPOOL_ATTR_RESERVED_MEM_CURRENT || attr == XRT_MEMPOOL_ATTR_USED_MEM_CURRENT))
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "attribute %d (a current amount) is read only", attr);
    if (XRT__UNLIKELY((attr == XRT_MEMPOOL_ATTR_RESERVED_MEM_HIGH || attr == XRT_MEMPOOL_ATTR_USED_MEM_HIGH) && *v))
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "a high-water mark (attribute %d) can only be reset to 0", attr);
    return XRT_SUCCESS;
}

/* value points to an int (the reuse policies) or a uint64_t (the rest), as cudaMemPoolSetAttribute. */
static inline xrt_status xrt_mem_pool_set_attribute(xrt_mem_pool pool, xrt_mem_pool_attr attr, void *value)
{
    const xrt_backend *b = xrt__be();
    xrt__handle_slot *p;
    uint64_t v = 0;
    xrt_status st = xrt__pool_attr_value((int)attr, value, &v);
    if (st != XRT_SUCCESS) return st;
    xrt__call_enter();
    p = xrt__handle_lookup(b, pool, XRT__HANDLE_MEM_POOL);
    if (XRT__UNLIKELY(!p)) return xrt__call_exit(xrt__handle_bad("xrt_mem_pool_set_attribute", pool));
    return xrt__call_exit(b->mem_pool_set_attribute(b, p->obj, (int)attr, v));
}

static inline xrt_status xrt_mem_pool_get_attribute(xrt_mem_pool pool, xrt_mem_pool_attr attr, void *value)
{
    const xrt_backend *b = xrt__be();
    xrt__handle_slot *p;
    int is_int = xrt__pool_attr_is_int((int)attr), i;
    uint64_t v = 0;
    xrt_status st;
    XRT__CHECK_PTR(value, "xrt_mem_pool_get_attribute");
    if (XRT__UNLIKELY(is_int < 0))
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_mem_pool_get_attribute", "attribute %d is no xrt_mem_pool_attr",
                         (int)attr);
    xrt__call_enter();
    p = xrt__handle_lookup(b, pool, XRT__HANDLE_MEM_POOL);
    if (XRT__UNLIKELY(!p)) return xrt__call_exit(xrt__handle_bad("xrt_mem_pool_get_attribute", pool));
    st = xrt__call_exit(b->mem_pool_get_attribute(b, p->obj, (int)attr, &v));
    if (st != XRT_SUCCESS) return st;
    i = (int)v;
    if (is_int) *(int *)value = i;
    else *(uint64_t *)value = v;
    return XRT_SUCCESS;
}

/* Releases the pool's free blocks until it holds at most min_bytes_to_keep (used blocks stay). */
static inline xrt_status xrt_mem_pool_trim_to(xrt_mem_pool pool, size_t min_bytes_to_keep)
{
    const xrt_backend *b = xrt__be();
    xrt__handle_slot *p;
    xrt__call_enter();
    p = xrt__handle_lookup(b, pool, XRT__HANDLE_MEM_POOL);
    if (XRT__UNLIKELY(!p)) return xrt__call_exit(xrt__handle_bad("xrt_mem_pool_trim_to", pool));
    return xrt__call_exit(b->mem_pool_trim_to(b, p->obj, min_bytes_to_keep));
}

/* >> dispatch: pool access. The flags and devices are checked here, each
   descriptor before any is applied; the backend sees NONE or READ_WRITE for
   devices in range and refuses the owner's NONE and a device that cannot
   reach the pool's. */
static inline xrt_status xrt__pool_access_desc(const xrt_backend *b, const xrt_mem_access_desc *d, const char *fn)
{
    if (XRT__UNLIKELY(d->flags == XRT_MEM_ACCESS_FLAGS_PROT_READ))
        return xrt_error(XRT_ERROR_UNSUPPORTED, fn, "device %d: XRT_MEM_ACCESS_FLAGS_PROT_READ alone is not supported "
                         "for a pool (READ_WRITE or NONE)", d->device);
    if (XRT__UNLIKELY(d->flags != XRT_MEM_ACCESS_FLAGS_PROT_NONE && d->flags != XRT_MEM_ACCESS_FLAGS_PROT_READ_WRITE))
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "flags 0x%x are none of XRT_MEM_ACCESS_FLAGS_PROT_*", d->flags);
    return xrt__pool_device(b, d->device, fn);
}

static inline xrt_status xrt_mem_pool_set_access(xrt_mem_pool pool, const xrt_mem_access_desc *descs, size_t count)
{
    const char *fn = "xrt_mem_pool_set_access";
    const xrt_backend *b = xrt__be();
    xrt__handle_slot *p;
    xrt_status st;
    size_t i;
    if (XRT__UNLIKELY(!descs && count)) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "descs is NULL, count %zu", count);
    for (i = 0; i < count; i++)
        if ((st = xrt__pool_access_desc(b, &descs[i], fn)) != XRT_SUCCESS) return st;
    xrt__call_enter();
    p = xrt__handle_lookup(b, pool, XRT__HANDLE_MEM_POOL);
    if (XRT__UNLIKELY(!p)) return xrt__call_exit(xrt__handle_bad(fn, pool));
    return xrt__call_exit(b->mem_pool_set_access(b, p->obj, descs, count));
}

static inline xrt_status xrt_mem_pool_get_access(unsigned *flags, xrt_mem_pool pool, int device)
{
    const char *fn = "xrt_mem_pool_get_access";
    const xrt_backend *b = xrt__be();
    xrt__handle_slot *p;
    xrt_status st;
    XRT__CHECK_PTR(flags, "xrt_mem_pool_get_access");
    if ((st = xrt__pool_device(b, device, fn)) != XRT_SUCCESS) /* cudaMemPoolGetAccess: cudaErrorInvalidValue */
        return st == XRT_ERROR_INVALID_DEVICE ? xrt_error(XRT_ERROR_INVALID_VALUE, fn, "device %d is no device", device) : st;
    xrt__call_enter();
    p = xrt__handle_lookup(b, pool, XRT__HANDLE_MEM_POOL);
    if (XRT__UNLIKELY(!p)) return xrt__call_exit(xrt__handle_bad(fn, pool));
    return xrt__call_exit(b->mem_pool_get_access(b, flags, p->obj, device));
}

/* As xrt_malloc_async, from `pool` (of any device; the stream's device uses
   it). Of 0 bytes: success and NULL, nothing enqueued (nor captured), as
   cudaMallocFromPoolAsync, once the handles are checked. */
static inline xrt_status xrt_malloc_from_pool_async(void **ptr, size_t size, xrt_mem_pool pool, xrt_stream stream)
{
    const xrt_backend *b = xrt__be();
    const char *fn = "xrt_malloc_from_pool_async";
    xrt__call_enter();
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    xrt__handle_slot *p = xrt__handle_lookup(b, pool, XRT__HANDLE_MEM_POOL);
    xrt_status st;
    if (XRT__UNLIKELY(!ptr)) return xrt__call_exit(xrt_error(XRT_ERROR_INVALID_VALUE, fn, "ptr is NULL"));
    *ptr = NULL;
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(xrt__handle_bad(fn, stream));
    if (XRT__UNLIKELY(!p)) return xrt__call_exit(xrt__handle_bad(fn, pool));
    if (XRT__UNLIKELY(size == 0)) return xrt__call_exit(xrt__no_op(b, fn));
    st = b->malloc_from_pool_async(b, ptr, size, p->obj, s->obj);
    if (st == XRT_SUCCESS && XRT__UNLIKELY(__atomic_load_n(&xrt__captures, __ATOMIC_RELAXED)))
        return xrt__call_exit(xrt__mem_add_captured(b, ptr, size, xrt__unit_stream(stream), s->obj));
    return xrt__call_exit(st == XRT_SUCCESS ? xrt__mem_add(b, ptr, size, XRT_MEMORY_DEVICE, fn) : st);
}

/* >> dispatch: managed memory. The checks are the dispatch layer's, once
   for every backend (xrt_backends.h says what a backend gets). */
static inline xrt_status xrt_malloc_managed(void **ptr, size_t size, unsigned flags)
{
    const xrt_backend *b = xrt__be();
    xrt_status st = xrt__mem_check_alloc(ptr, size, "xrt_malloc_managed");
    if (st == XRT_SUCCESS && flags != XRT_MEM_ATTACH_GLOBAL && flags != XRT_MEM_ATTACH_HOST)
        st = xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_malloc_managed",
                       "flags 0x%x are neither XRT_MEM_ATTACH_GLOBAL nor XRT_MEM_ATTACH_HOST", flags);
    if (st == XRT_SUCCESS) st = b->malloc_managed(b, ptr, size, flags);
    return st == XRT_SUCCESS ? xrt__mem_add(b, ptr, size, XRT_MEMORY_MANAGED, "xrt_malloc_managed") : st;
}

/* [ptr, ptr + count) inside one managed allocation of b; whole: ptr starts
   it and count is 0 or its size. */
static inline xrt_status xrt__managed_range(const xrt_backend *b, const void *ptr, size_t count, int whole,
                                            const char *fn)
{
    xrt_pointer_attributes a;
    xrt_status st = xrt__no_op(b, fn); /* a refusal first: the lookup names itself */
    if (st != XRT_SUCCESS) return st;
    if (!ptr) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "ptr is NULL");
    if (!whole && !count) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "count is 0");
    xrt__mem_lookup(b, &a, ptr);
    if (a.type != XRT_MEMORY_MANAGED || (a.backend && a.backend != b->name)) /* registry names are b->name */
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%p is not managed memory of backend %s (xrt_malloc_managed)",
                         ptr, b->name);
    if (whole && (a.base != ptr || (count && count != a.size)))
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn,
                         "%zu bytes at %p are not a whole managed allocation (%zu bytes at %p; length 0 means all)",
                         count, ptr, a.size, a.base);
    if (!whole && a.size && count > a.size - (size_t)((uintptr_t)ptr - (uintptr_t)a.base))
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%zu bytes at %p overrun its managed allocation (%zu bytes at %p)",
                         count, ptr, a.size, a.base);
    return XRT_SUCCESS;
}

/* XRT_CPU_DEVICE_ID (the host) or a device in range. */
static inline xrt_status xrt__managed_device(const xrt_backend *b, int device, const char *fn)
{
    return device == XRT_CPU_DEVICE_ID ? XRT_SUCCESS : xrt__pool_device(b, device, fn);
}

static inline xrt_status xrt_mem_prefetch_async(const void *ptr, size_t count, int device, xrt_stream stream)
{
    const xrt_backend *b = xrt__be();
    xrt_status st;
    xrt__call_enter();
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(xrt__handle_bad("xrt_mem_prefetch_async", stream));
    if ((st = xrt__managed_range(b, ptr, count, 0, "xrt_mem_prefetch_async")) == XRT_SUCCESS &&
        (st = xrt__managed_device(b, device, "xrt_mem_prefetch_async")) == XRT_SUCCESS)
        st = b->mem_prefetch_async(b, ptr, count, device, s->obj);
    return xrt__call_exit(st);
}

/* The advice that names a location checks it (as cudaMemAdvise); the others ignore it. */
static inline xrt_status xrt_mem_advise(const void *ptr, size_t count, int advice, int device)
{
    const xrt_backend *b = xrt__be();
    xrt_status st = xrt__managed_range(b, ptr, count, 0, "xrt_mem_advise");
    if (st != XRT_SUCCESS) return st;
    if (advice < XRT_MEM_ADVISE_SET_READ_MOSTLY || advice > XRT_MEM_ADVISE_UNSET_ACCESSED_BY)
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_mem_advise", "advice %d is not an XRT_MEM_ADVISE_* (1 to 6)",
                         advice);
    if (advice == XRT_MEM_ADVISE_SET_PREFERRED_LOCATION || advice >= XRT_MEM_ADVISE_SET_ACCESSED_BY)
        if ((st = xrt__managed_device(b, device, "xrt_mem_advise")) != XRT_SUCCESS) return st;
    return b->mem_advise(b, ptr, count, advice, device);
}

static inline xrt_status xrt_stream_attach_mem_async(xrt_stream stream, void *ptr, size_t length, unsigned flags)
{
    const xrt_backend *b = xrt__be();
    xrt_status st;
    xrt__call_enter();
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(xrt__handle_bad("xrt_stream_attach_mem_async", stream));
    if ((st = xrt__managed_range(b, ptr, length, 1, "xrt_stream_attach_mem_async")) != XRT_SUCCESS)
        return xrt__call_exit(st);
    if (flags != XRT_MEM_ATTACH_GLOBAL && flags != XRT_MEM_ATTACH_HOST && flags != XRT_MEM_ATTACH_SINGLE)
        return xrt__call_exit(xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_stream_attach_mem_async",
                                        "flags 0x%x are not exactly one XRT_MEM_ATTACH_*", flags));
    /* as CUDA: the legacy stream is "a virtual global stream and not a specific stream" */
    if (flags == XRT_MEM_ATTACH_SINGLE && xrt__unit_stream(stream) == XRT_STREAM_LEGACY)
        return xrt__call_exit(xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_stream_attach_mem_async",
                                        "XRT_MEM_ATTACH_SINGLE to the NULL stream (the legacy one, no stream of its own)"));
    return xrt__call_exit(b->stream_attach_mem_async(b, s->obj, ptr, length, flags));
}

static inline xrt_status xrt_mem_range_get_attribute(void *data, size_t data_size, int attribute, const void *ptr,
                                                     size_t count)
{
    const xrt_backend *b = xrt__be();
    xrt_status st = xrt__managed_range(b, ptr, count, 0, "xrt_mem_range_get_attribute");
    if (st != XRT_SUCCESS) return st;
    if (!data) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_mem_range_get_attribute", "data is NULL");
    if (attribute < XRT_MEM_RANGE_ATTRIBUTE_READ_MOSTLY || attribute > XRT_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION)
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_mem_range_get_attribute",
                         "attribute %d is not an XRT_MEM_RANGE_ATTRIBUTE_* (1 to 4)", attribute);
    if (attribute == XRT_MEM_RANGE_ATTRIBUTE_ACCESSED_BY ? !data_size || data_size % sizeof(int) : data_size != sizeof(int))
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_mem_range_get_attribute",
                         "data_size %zu is not %s", data_size,
                         attribute == XRT_MEM_RANGE_ATTRIBUTE_ACCESSED_BY ? "a multiple of sizeof(int), not 0"
                                                                          : "sizeof(int)");
    return b->mem_range_get_attribute(b, data, data_size, attribute, ptr, count);
}

/* >> dispatch: events */
static inline xrt_status xrt_event_create(xrt_event *event, unsigned flags)
{
    const xrt_backend *b = xrt__be();
    void *obj = NULL;
    xrt_status st;
    XRT__CHECK_PTR(event, "xrt_event_create");
    *event = NULL;
    if (XRT__UNLIKELY(flags & ~(unsigned)(XRT_EVENT_BLOCKING_SYNC | XRT_EVENT_DISABLE_TIMING | XRT_EVENT_INTERPROCESS)))
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_event_create", "unknown flags 0x%x", flags);
    if (XRT__UNLIKELY((flags & XRT_EVENT_INTERPROCESS) && !(flags & XRT_EVENT_DISABLE_TIMING))) /* CUDA's rule */
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_event_create",
                         "XRT_EVENT_INTERPROCESS needs XRT_EVENT_DISABLE_TIMING (flags 0x%x)", flags);
    st = b->event_create(b, &obj, flags);
    if (st != XRT_SUCCESS) return st;
    return xrt__handle_create(b, obj, XRT__HANDLE_EVENT, 1, (void **)event);
}

static inline xrt_status xrt_event_destroy(xrt_event event)
{
    /* checked first, so that the destroy stays a tail call */
    if (XRT__CHK_ON()) return xrt__chk_event_destroy(xrt__be(), event);
    return xrt__handle_destroy(xrt__be(), event, XRT__HANDLE_EVENT, "xrt_event_destroy");
}

/* The record with flags and without: one body, inlined at -O0 too, so that
   the checker's call site stays the caller's. */
static inline __attribute__((always_inline)) xrt_status xrt__event_record(xrt_event event, xrt_stream stream,
                                                                          unsigned flags, const char *who)
{
    const xrt_backend *b = xrt__be();
    if (XRT__UNLIKELY(flags & ~(unsigned)XRT_EVENT_RECORD_EXTERNAL))
        return xrt_error(XRT_ERROR_INVALID_VALUE, who,
                         "unknown flags 0x%x (XRT_EVENT_RECORD_DEFAULT or _EXTERNAL)", flags);
    xrt__call_enter();
    xrt__handle_slot *e = xrt__handle_lookup(b, event, XRT__HANDLE_EVENT);
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    if (XRT__UNLIKELY(!e)) return xrt__call_exit(xrt__handle_bad(who, event));
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(xrt__handle_bad(who, stream));
    uint64_t ticket = XRT__CHK_ON() ? xrt__chk_record_begin(event) : 0;
    /* no flags: the operation every table has, also one built before this one was appended */
    xrt_status st = flags ? b->event_record_with_flags(b, e->obj, s->obj, flags) : b->event_record(b, e->obj, s->obj);
    if (XRT__CHK_ON()) xrt__chk_record(__builtin_return_address(0), st, b, event, stream, s, ticket);
    return xrt__call_exit(st);
}

static inline xrt_status xrt_event_record(xrt_event event, xrt_stream stream)
{
    return xrt__event_record(event, stream, 0, "xrt_event_record");
}

static inline xrt_status xrt_event_record_with_flags(xrt_event event, xrt_stream stream, unsigned flags)
{
    return xrt__event_record(event, stream, flags, "xrt_event_record_with_flags");
}

/* XRT_SUCCESS when the most recent record completed (or none was made). */
static inline xrt_status xrt_event_query(xrt_event event)
{
    const xrt_backend *b = xrt__be();
    xrt__call_enter();
    xrt__handle_slot *e = xrt__handle_lookup(b, event, XRT__HANDLE_EVENT);
    if (XRT__UNLIKELY(!e)) return xrt__call_exit(xrt__handle_bad("xrt_event_query", event));
    uint64_t seen = XRT__CHK_ON() ? xrt__chk_event_seen(event) : 0;
    xrt_status st = b->event_query(b, e->obj);
    if (XRT__CHK_ON()) xrt__chk_sync(__builtin_return_address(0), st, b, XRT__CHK_SYNC_EVENT, event, seen);
    return xrt__call_exit(st);
}

static inline xrt_status xrt_event_synchronize(xrt_event event)
{
    const xrt_backend *b = xrt__be();
    XRT__CHECK_MAY_WAIT("xrt_event_synchronize");
    xrt__call_enter();
    xrt__handle_slot *e = xrt__handle_lookup(b, event, XRT__HANDLE_EVENT);
    if (XRT__UNLIKELY(!e)) return xrt__call_exit(xrt__handle_bad("xrt_event_synchronize", event));
    uint64_t seen = XRT__CHK_ON() ? xrt__chk_event_seen(event) : 0;
    xrt_status st = b->event_synchronize(b, e->obj);
    if (XRT__CHK_ON()) xrt__chk_sync(__builtin_return_address(0), st, b, XRT__CHK_SYNC_EVENT, event, seen);
    return xrt__call_exit(st);
}

/* Milliseconds between two completed records. XRT_ERROR_INVALID_HANDLE if one
   was never recorded or was created with XRT_EVENT_DISABLE_TIMING, whatever
   the other's state; else XRT_ERROR_NOT_READY while one is pending (as
   cudaEventElapsedTime). */
static inline xrt_status xrt_event_elapsed_time(float *ms, xrt_event start, xrt_event end)
{
    const xrt_backend *b = xrt__be();
    XRT__CHECK_PTR(ms, "xrt_event_elapsed_time");
    xrt__call_enter();
    xrt__handle_slot *s = xrt__handle_lookup(b, start, XRT__HANDLE_EVENT);
    xrt__handle_slot *e = xrt__handle_lookup(b, end, XRT__HANDLE_EVENT);
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(xrt__handle_bad("xrt_event_elapsed_time", start));
    if (XRT__UNLIKELY(!e)) return xrt__call_exit(xrt__handle_bad("xrt_event_elapsed_time", end));
    return xrt__call_exit(b->event_elapsed_time(b, ms, s->obj, e->obj));
}

static inline xrt_status xrt_ipc_get_event_handle(xrt_ipc_event_handle *handle, xrt_event event)
{
    const xrt_backend *b = xrt__be();
    XRT__CHECK_PTR(handle, "xrt_ipc_get_event_handle");
    xrt__call_enter();
    xrt__handle_slot *e = xrt__handle_lookup(b, event, XRT__HANDLE_EVENT);
    if (XRT__UNLIKELY(!e)) return xrt__call_exit(xrt__handle_bad("xrt_ipc_get_event_handle", event));
    return xrt__call_exit(b->ipc_get_event_handle(b, handle, e->obj));
}

static inline xrt_status xrt_ipc_open_event_handle(xrt_event *event, xrt_ipc_event_handle handle)
{
    const xrt_backend *b = xrt__be();
    void *obj = NULL;
    xrt_status st;
    XRT__CHECK_PTR(event, "xrt_ipc_open_event_handle");
    *event = NULL;
    st = b->ipc_open_event_handle(b, &obj, &handle);
    if (st != XRT_SUCCESS) return st;
    return xrt__handle_create(b, obj, XRT__HANDLE_EVENT, 1, (void **)event);
}

/* >> dispatch: interop: native handles (cudaStream_t, hipStream_t, ...) */
static inline xrt_status xrt_stream_get_native(xrt_stream stream, void **native)
{
    const xrt_backend *b = xrt__be();
    XRT__CHECK_PTR(native, "xrt_stream_get_native");
    xrt__call_enter();
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(xrt__handle_bad("xrt_stream_get_native", stream));
    return xrt__call_exit(b->stream_get_native(b, s->obj, native));
}

static inline xrt_status xrt_event_get_native(xrt_event event, void **native)
{
    const xrt_backend *b = xrt__be();
    XRT__CHECK_PTR(native, "xrt_event_get_native");
    xrt__call_enter();
    xrt__handle_slot *e = xrt__handle_lookup(b, event, XRT__HANDLE_EVENT);
    if (XRT__UNLIKELY(!e)) return xrt__call_exit(xrt__handle_bad("xrt_event_get_native", event));
    return xrt__call_exit(b->event_get_native(b, e->obj, native));
}

/* Wraps a native stream without taking ownership: xrt_stream_destroy releases
   only the xrt handle; the native stream must outlive it. */
static inline xrt_status xrt_stream_wrap_native(xrt_stream *stream, void *native)
{
    const xrt_backend *b = xrt__be();
    void *obj = NULL;
    xrt_status st;
    XRT__CHECK_PTR(stream, "xrt_stream_wrap_native");
    *stream = NULL;
    XRT__CHECK_PTR(native, "xrt_stream_wrap_native");
    st = b->stream_wrap_native(b, native, &obj);
    if (st != XRT_SUCCESS) return st;
    return xrt__handle_create(b, obj, XRT__HANDLE_STREAM, 0, (void **)stream);
}

/* >> dispatch: kernels */
/* Enqueues fn on the stream with a copy of the packed arguments. Zero
   dimensions and a NULL buffer of non-zero size are refused here; a backend
   refuses what exceeds its limits. */
static inline xrt_status xrt_launch_kernel(xrt_function function, xrt_dim3 grid, xrt_dim3 block, size_t shared_bytes,
                                           xrt_stream stream, const void *args, size_t args_size)
{
    const xrt_backend *b = xrt__be();
    xrt__call_enter();
    xrt__handle_slot *f = xrt__handle_lookup(b, function, XRT__HANDLE_FUNCTION);
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    if (XRT__UNLIKELY(!f)) return xrt__call_exit(XRT__LAUNCH_REFUSED(xrt__handle_bad("xrt_launch_kernel", function)));
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(XRT__LAUNCH_REFUSED(xrt__handle_bad("xrt_launch_kernel", stream)));
    if (XRT__UNLIKELY(!grid.x || !grid.y || !grid.z || !block.x || !block.y || !block.z || (!args && args_size) ||
                      args_size > XRT_MAX_KERNEL_ARGS))
        return xrt__call_exit(XRT__LAUNCH_REFUSED(xrt__launch_bad("xrt_launch_kernel", grid, block, args, args_size)));
    xrt_status st = b->launch_kernel(b, f->obj, grid, block, shared_bytes, s->obj, args, args_size);
    if (XRT__CHK_ON())
        xrt__chk_launch(__builtin_return_address(0), st, b, "xrt_launch_kernel", stream, s, f->obj, args, args_size);
    return xrt__call_exit(st);
}

static inline xrt_status xrt_kernel_args_add(xrt_kernel_args *args, const void *value, size_t size, size_t align)
{
    const char *fn = "xrt_kernel_args_add";
    size_t at, i;
    XRT__CHECK_PTR(args, fn);
    if (args->size > XRT_MAX_KERNEL_ARGS) /* an argument before did not fit: the launch is refused */
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "an earlier argument did not fit");
    if (!align || (align & (align - 1)) || align > XRT_MAX_KERNEL_ARGS) {
        args->size = XRT_MAX_KERNEL_ARGS + 1;
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "alignment %zu is not a power of two up to %d", align,
                         XRT_MAX_KERNEL_ARGS);
    }
    if (!value && size) {
        args->size = XRT_MAX_KERNEL_ARGS + 1;
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "value is NULL but size is %zu", size);
    }
    at = (args->size + align - 1) & ~(align - 1);
    if (at > XRT_MAX_KERNEL_ARGS || size > XRT_MAX_KERNEL_ARGS - at) {
        xrt_status st = xrt_error(XRT_ERROR_INVALID_VALUE, fn, "an argument of %zu bytes at offset %zu passes the "
                                  "limit of %d bytes (XRT_MAX_KERNEL_ARGS)", size, at, XRT_MAX_KERNEL_ARGS);
        args->size = XRT_MAX_KERNEL_ARGS + 1;
        return st;
    }
    for (i = 0; i < size; i++) args->buf.bytes[at + i] = ((const unsigned char *)value)[i]; /* no <string.h> here */
    args->size = at + size;
    return XRT_SUCCESS;
}

static inline xrt_status xrt_function_get_param_info(xrt_function function, size_t index, size_t *offset,
                                                     size_t *size)
{
    const xrt_backend *b = xrt__be();
    xrt__handle_slot *f;
    XRT__CHECK_PTR(offset, "xrt_function_get_param_info");
    XRT__CHECK_PTR(size, "xrt_function_get_param_info");
    xrt__call_enter();
    f = xrt__handle_lookup(b, function, XRT__HANDLE_FUNCTION);
    if (XRT__UNLIKELY(!f)) return xrt__call_exit(xrt__handle_bad("xrt_function_get_param_info", function));
    return xrt__call_exit(b->function_get_param_info(b, f->obj, index, offset, size));
}

/* Without attributes, xrt_launch_kernel itself; with them, out of line. */
static inline xrt_status xrt_launch_kernel_ex(const xrt_launch_config *config, xrt_function function,
                                              const void *args, size_t args_size)
{
    if (XRT__LIKELY(config && !config->num_attrs))
        return xrt_launch_kernel(function, config->grid, config->block, config->shared_bytes, config->stream, args,
                                 args_size);
    return xrt__launch_ex(config, function, args, args_size, config ? xrt__unit_stream(config->stream) : NULL);
}

static inline xrt_status xrt_launch_kernel_params(xrt_function function, xrt_dim3 grid, xrt_dim3 block,
                                                  size_t shared_bytes, xrt_stream stream, void **kernel_params)
{
    return xrt__launch_params(function, grid, block, shared_bytes, xrt__unit_stream(stream), kernel_params, NULL);
}

static inline xrt_status xrt_launch_kernel_ex_params(const xrt_launch_config *config, xrt_function function,
                                                     void **kernel_params)
{
    xrt_dim3 none = {0, 0, 0};
    if (!config) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_launch_kernel_ex_params", "config is NULL");
    return xrt__launch_params(function, none, none, 0, xrt__unit_stream(config->stream), kernel_params, config);
}

/* The symbol copies: the synchronous ones in the NULL stream's order as
   xrt_memcpy (the thread's own stream's in a unit that defines
   XRT_API_PER_THREAD_DEFAULT_STREAM, as cudaMemcpyToSymbol_ptds), the
   asynchronous ones on the stream the caller's unit means. */
static inline xrt_status xrt_memcpy_to_symbol(xrt_module module, const char *symbol, const void *src, size_t count,
                                              size_t offset, xrt_memcpy_kind kind)
{
    void *caller = __builtin_return_address(0), *from = (void *)(uintptr_t)src;
    XRT__SYNC_ON_PER_THREAD("xrt_memcpy_to_symbol",
                            xrt__symbol_copy(caller, 1, from, module, symbol, count, offset, kind, 1,
                                             XRT_STREAM_PER_THREAD, "xrt_memcpy_to_symbol"),
                            xrt__mem_copy_waits(xrt__be(), src, src, kind)); /* the variable is on the device */
    return xrt__symbol_copy(caller, 1, from, module, symbol, count, offset, kind, 0, NULL, "xrt_memcpy_to_symbol");
}

static inline xrt_status xrt_memcpy_from_symbol(void *dst, xrt_module module, const char *symbol, size_t count,
                                                size_t offset, xrt_memcpy_kind kind)
{
    void *caller = __builtin_return_address(0);
    XRT__SYNC_ON_PER_THREAD("xrt_memcpy_from_symbol",
                            xrt__symbol_copy(caller, 0, dst, module, symbol, count, offset, kind, 1,
                                             XRT_STREAM_PER_THREAD, "xrt_memcpy_from_symbol"),
                            xrt__mem_copy_waits(xrt__be(), dst, dst, kind)); /* the variable is on the device */
    return xrt__symbol_copy(caller, 0, dst, module, symbol, count, offset, kind, 0, NULL, "xrt_memcpy_from_symbol");
}

static inline xrt_status xrt_memcpy_to_symbol_async(xrt_module module, const char *symbol, const void *src,
                                                    size_t count, size_t offset, xrt_memcpy_kind kind,
                                                    xrt_stream stream)
{
    return xrt__symbol_copy(__builtin_return_address(0), 1, (void *)(uintptr_t)src, module, symbol, count, offset,
                            kind, 1, xrt__unit_stream(stream), "xrt_memcpy_to_symbol_async");
}

static inline xrt_status xrt_memcpy_from_symbol_async(void *dst, xrt_module module, const char *symbol, size_t count,
                                                      size_t offset, xrt_memcpy_kind kind, xrt_stream stream)
{
    return xrt__symbol_copy(__builtin_return_address(0), 0, dst, module, symbol, count, offset, kind, 1,
                            xrt__unit_stream(stream), "xrt_memcpy_from_symbol_async");
}

static inline xrt_status xrt_function_get_attributes(xrt_function_attributes *attr, xrt_function function)
{
    const xrt_backend *b = xrt__be();
    XRT__CHECK_PTR(attr, "xrt_function_get_attributes");
    xrt__call_enter();
    xrt__handle_slot *f = xrt__handle_lookup(b, function, XRT__HANDLE_FUNCTION);
    if (XRT__UNLIKELY(!f)) return xrt__call_exit(xrt__handle_bad("xrt_function_get_attributes", function));
    attr->max_threads_per_block = attr->num_regs = 0;
    attr->shared_size_bytes = attr->max_dynamic_shared_bytes = 0;
    return xrt__call_exit(b->function_get_attributes(b, attr, f->obj));
}

/* >> dispatch: graphs */
static inline xrt_status xrt_stream_begin_capture(xrt_stream stream, xrt_capture_mode mode)
{
    const xrt_backend *b = xrt__be();
    xrt_status st;
    xrt__call_enter();
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(xrt__handle_bad("xrt_stream_begin_capture", stream));
    if (XRT__UNLIKELY(s == &xrt__handle_null_stream || s->obj == NULL))
        return xrt__call_exit(xrt_error(XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED, "xrt_stream_begin_capture",
                                        "the NULL stream cannot be captured: capture another stream"));
    if (XRT__UNLIKELY((unsigned)mode > XRT_CAPTURE_MODE_RELAXED))
        return xrt__call_exit(xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_stream_begin_capture",
                                        "mode %d is none of XRT_CAPTURE_MODE_GLOBAL (0), _THREAD_LOCAL (1), _RELAXED (2)",
                                        (int)mode));
    st = b->stream_begin_capture(b, s->obj, (unsigned)mode);
    if (st == XRT_SUCCESS) xrt__capture_begun(b, xrt__unit_stream(stream));
    return xrt__call_exit(st);
}

static inline xrt_status xrt_stream_end_capture(xrt_stream stream, xrt_graph *graph)
{
    const xrt_backend *b = xrt__be();
    void *obj = NULL;
    xrt_status st;
    XRT__CHECK_PTR(graph, "xrt_stream_end_capture");
    *graph = NULL;
    xrt__call_enter();
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(xrt__handle_bad("xrt_stream_end_capture", stream));
    if (XRT__UNLIKELY(s == &xrt__handle_null_stream))
        return xrt__call_exit(xrt_error(XRT_ERROR_ILLEGAL_STATE, "xrt_stream_end_capture",
                                        "the NULL stream is never capturing"));
    st = b->stream_end_capture(b, s->obj, &obj);
    if (st == XRT_SUCCESS && XRT__UNLIKELY(__atomic_load_n(&xrt__captures_into, __ATOMIC_RELAXED)) &&
        (*graph = (xrt_graph)xrt__capture_into(b, xrt__unit_stream(stream))) != NULL)
        st = XRT_SUCCESS; /* the graph it was begun into: its handle */
    else if (st == XRT_SUCCESS && XRT__UNLIKELY(__atomic_load_n(&xrt__capture_graphs, __ATOMIC_RELAXED)) &&
             (*graph = (xrt_graph)xrt__capture_graph_keep(b, xrt__unit_stream(stream), obj)) != NULL)
        st = XRT_SUCCESS; /* the handle its graph had while it lasted */
    else if (st == XRT_SUCCESS)
        st = xrt__handle_create(b, obj, XRT__HANDLE_GRAPH, 1, (void **)graph);
    if (XRT__UNLIKELY(__atomic_load_n(&xrt__captures, __ATOMIC_RELAXED)))
        xrt__capture_ended(b, xrt__unit_stream(stream), s->obj, (uintptr_t)*graph);
    return xrt__call_exit(st);
}

static inline xrt_status xrt_stream_is_capturing(xrt_stream stream, xrt_capture_status *status)
{
    const xrt_backend *b = xrt__be();
    unsigned st = XRT_CAPTURE_STATUS_NONE;
    xrt_status r;
    XRT__CHECK_PTR(status, "xrt_stream_is_capturing");
    xrt__call_enter();
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(xrt__handle_bad("xrt_stream_is_capturing", stream));
    r = b->stream_is_capturing(b, s->obj, &st); /* the NULL stream never captures, but may be refused the question */
    *status = (xrt_capture_status)st;
    return xrt__call_exit(r);
}

static inline xrt_status xrt_stream_get_capture_info(xrt_stream stream, xrt_capture_status *status,
                                                     unsigned long long *id)
{
    const xrt_backend *b = xrt__be();
    unsigned st = XRT_CAPTURE_STATUS_NONE;
    unsigned long long got = 0;
    xrt_status r;
    XRT__CHECK_PTR(status, "xrt_stream_get_capture_info");
    xrt__call_enter();
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(xrt__handle_bad("xrt_stream_get_capture_info", stream));
    r = b->stream_get_capture_info(b, s->obj, &st, &got);
    *status = (xrt_capture_status)st;
    if (id && r == XRT_SUCCESS && st == XRT_CAPTURE_STATUS_ACTIVE) *id = got;
    return xrt__call_exit(r);
}

static inline xrt_status xrt_stream_get_capture_info_v2(xrt_stream stream, xrt_capture_status *status,
                                                        unsigned long long *id, xrt_graph *graph,
                                                        const xrt_graph_node **deps, size_t *ndeps)
{
    return xrt__capture_info_v2(xrt__be(), stream, status, id, graph, deps, ndeps);
}

static inline xrt_status xrt_stream_update_capture_dependencies(xrt_stream stream, const xrt_graph_node *deps,
                                                                size_t ndeps, unsigned flags)
{
    return xrt__capture_update_deps(xrt__be(), stream, deps, ndeps, flags);
}

static inline xrt_status xrt_thread_exchange_stream_capture_mode(xrt_capture_mode *mode)
{
    const xrt_backend *b = xrt__be();
    unsigned m;
    xrt_status st;
    XRT__CHECK_PTR(mode, "xrt_thread_exchange_stream_capture_mode");
    if (XRT__UNLIKELY((unsigned)*mode > XRT_CAPTURE_MODE_RELAXED))
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_thread_exchange_stream_capture_mode",
                         "*mode is %d, none of XRT_CAPTURE_MODE_GLOBAL (0), _THREAD_LOCAL (1), _RELAXED (2)", (int)*mode);
    m = (unsigned)*mode;
    xrt__call_enter();
    st = b->thread_exchange_stream_capture_mode(b, &m);
    if (st == XRT_SUCCESS) *mode = (xrt_capture_mode)m;
    return xrt__call_exit(st);
}

/* Flags 0 go to the backend's graph_instantiate (a table without the
   flags operation instantiates as before). */
static inline xrt_status xrt__graph_instantiate(xrt_graph_exec *exec, xrt_graph graph, unsigned long long flags,
                                                const char *fn)
{
    const xrt_backend *b = xrt__be();
    void *obj = NULL;
    xrt_status st;
    XRT__CHECK_PTR(exec, fn);
    *exec = NULL;
    if (XRT__UNLIKELY(flags) && (st = xrt__graph_flags_check(flags)) != XRT_SUCCESS) return st;
    xrt__call_enter();
    xrt__handle_slot *g = xrt__handle_lookup(b, graph, XRT__HANDLE_GRAPH);
    if (XRT__UNLIKELY(!g)) return xrt__call_exit(xrt__handle_bad(fn, graph));
    if (XRT__UNLIKELY(__atomic_load_n(&xrt__graph_mems, __ATOMIC_RELAXED)) &&
        (st = xrt__graph_mem_one_exec((uintptr_t)graph)) != XRT_SUCCESS)
        return xrt__call_exit(st);
    if (XRT__UNLIKELY(__atomic_load_n(&xrt__capture_graphs, __ATOMIC_RELAXED)) &&
        (st = xrt__graph_capturing((uintptr_t)graph, fn)) != XRT_SUCCESS)
        return xrt__call_exit(st);
    xrt__graph_hold(1);
    st = flags ? b->graph_instantiate_with_flags(b, &obj, g->obj, flags) : b->graph_instantiate(b, &obj, g->obj);
    if (st == XRT_SUCCESS) st = xrt__handle_create(b, obj, XRT__HANDLE_GRAPH_EXEC, 1, (void **)exec);
    /* the checker's snapshot is read in the hold the exec was made in: a
       node another thread adds once it ends is in neither */
    if (XRT__CHK_ON()) xrt__chk_instantiate(st, b, *exec, g->obj);
    xrt__graph_hold(0);
    if (st == XRT_SUCCESS && XRT__UNLIKELY(__atomic_load_n(&xrt__graph_mems, __ATOMIC_RELAXED)))
        xrt__graph_mem_instantiated((uintptr_t)graph, (uintptr_t)*exec,
                                    (flags & XRT_GRAPH_INSTANTIATE_AUTO_FREE_ON_LAUNCH) != 0);
    return xrt__call_exit(st);
}

static inline xrt_status xrt_graph_instantiate(xrt_graph_exec *exec, xrt_graph graph)
{
    return xrt__graph_instantiate(exec, graph, 0, "xrt_graph_instantiate");
}

static inline xrt_status xrt_graph_instantiate_with_flags(xrt_graph_exec *exec, xrt_graph graph,
                                                          unsigned long long flags)
{
    return xrt__graph_instantiate(exec, graph, flags, "xrt_graph_instantiate_with_flags");
}

static inline xrt_status xrt_graph_upload(xrt_graph_exec exec, xrt_stream stream)
{
    const xrt_backend *b = xrt__be();
    xrt__call_enter();
    xrt__handle_slot *x = xrt__handle_lookup(b, exec, XRT__HANDLE_GRAPH_EXEC);
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    if (XRT__UNLIKELY(!x)) return xrt__call_exit(xrt__handle_bad("xrt_graph_upload", exec));
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(xrt__handle_bad("xrt_graph_upload", stream));
    return xrt__call_exit(b->graph_upload(b, x->obj, s->obj));
}

/* xrt_graph_launch's work, once its handles are found (also the checker's,
   between what it notes before the launch and after: xrt__chk_graph_launch_call). */
static inline xrt_status xrt__graph_launch_run(const xrt_backend *b, xrt_graph_exec exec, const xrt__handle_slot *x,
                                               const xrt__handle_slot *s)
{
    xrt_status st;
    if (XRT__UNLIKELY(__atomic_load_n(&xrt__graph_mems, __ATOMIC_RELAXED)) &&
        (st = xrt__graph_mem_unfreed((uintptr_t)exec)) != XRT_SUCCESS)
        return st;
    st = b->graph_launch(b, x->obj, s->obj);
    if (st == XRT_SUCCESS && XRT__UNLIKELY(__atomic_load_n(&xrt__graph_mems, __ATOMIC_RELAXED)))
        st = xrt__graph_mem_launched(b, (uintptr_t)exec);
    return st;
}

static inline xrt_status xrt_graph_launch(xrt_graph_exec exec, xrt_stream stream)
{
    const xrt_backend *b = xrt__be();
    xrt__call_enter();
    xrt__handle_slot *x = xrt__handle_lookup(b, exec, XRT__HANDLE_GRAPH_EXEC);
    xrt__handle_slot *s = xrt__handle_stream(b, stream);
    if (XRT__UNLIKELY(!x)) return xrt__call_exit(xrt__handle_bad("xrt_graph_launch", exec));
    if (XRT__UNLIKELY(!s)) return xrt__call_exit(xrt__handle_bad("xrt_graph_launch", stream));
    /* the launch while checking is a call of its own, out of line, which
       notes the exec's snapshot and the events' records before the backend's call */
    if (XRT__CHK_ON()) return xrt__call_exit(xrt__chk_graph_launch_call(__builtin_return_address(0), b, exec, x, stream, s));
    return xrt__call_exit(xrt__graph_launch_run(b, exec, x, s));
}

static inline xrt_status xrt_graph_exec_update(xrt_graph_exec exec, xrt_graph graph)
{
    const xrt_backend *b = xrt__be();
    xrt_status st;
    xrt__call_enter();
    xrt__handle_slot *x = xrt__handle_lookup(b, exec, XRT__HANDLE_GRAPH_EXEC);
    xrt__handle_slot *g = xrt__handle_lookup(b, graph, XRT__HANDLE_GRAPH);
    if (XRT__UNLIKELY(!x)) return xrt__call_exit(xrt__handle_bad("xrt_graph_exec_update", exec));
    if (XRT__UNLIKELY(!g)) return xrt__call_exit(xrt__handle_bad("xrt_graph_exec_update", graph));
    xrt__graph_hold(1);
    st = b->graph_exec_update(b, x->obj, g->obj);
    if (XRT__CHK_ON()) xrt__chk_instantiate(st, b, exec, g->obj); /* in the update's hold, as an instantiate's */
    xrt__graph_hold(0);
    return xrt__call_exit(st);
}

static inline xrt_status xrt_graph_exec_destroy(xrt_graph_exec exec)
{
    if (XRT__CHK_ON()) xrt__chk_exec_gone(exec, 1);
    return xrt__handle_destroy(xrt__be(), exec, XRT__HANDLE_GRAPH_EXEC, "xrt_graph_exec_destroy");
}

static inline xrt_status xrt_graph_destroy(xrt_graph graph) { return xrt__graph_destroy(xrt__be(), graph); }

static inline xrt_status xrt_graph_get_info(xrt_graph graph, xrt_graph_info *info)
{
    const xrt_backend *b = xrt__be();
    xrt_status st;
    XRT__CHECK_PTR(info, "xrt_graph_get_info");
    xrt__call_enter();
    xrt__handle_slot *g = xrt__handle_lookup(b, graph, XRT__HANDLE_GRAPH);
    xrt_graph_info none = {0, 0, 0, 0, 0, 0};
    if (XRT__UNLIKELY(!g)) return xrt__call_exit(xrt__handle_bad("xrt_graph_get_info", graph));
    *info = none;
    xrt__graph_hold(1);
    st = b->graph_get_info(b, g->obj, info);
    xrt__graph_hold(0);
    return xrt__call_exit(st);
}

static inline xrt_status xrt_graph_debug_dot_print(xrt_graph graph, const char *path, unsigned flags)
{
    const xrt_backend *b = xrt__be();
    xrt_status st;
    XRT__CHECK_PTR(path, "xrt_graph_debug_dot_print");
    if (XRT__UNLIKELY(flags & ~XRT_GRAPH_DEBUG_DOT_VERBOSE))
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_graph_debug_dot_print", "unknown flags 0x%x", flags);
    xrt__call_enter();
    xrt__handle_slot *g = xrt__handle_lookup(b, graph, XRT__HANDLE_GRAPH);
    if (XRT__UNLIKELY(!g)) return xrt__call_exit(xrt__handle_bad("xrt_graph_debug_dot_print", graph));
    xrt__graph_hold(1);
    st = b->graph_debug_dot_print(b, g->obj, path, flags);
    xrt__graph_hold(0);
    return xrt__call_exit(st);
}

/* >> dispatch: graphs built node by node (the bodies live in the XRT_IMPL
   unit: ">> impl: graph nodes"; none is on a hot path) */
static inline xrt_status xrt_graph_create(xrt_graph *graph, unsigned flags)
{
    return xrt__graph_create(xrt__be(), graph, flags);
}

static inline xrt_status xrt_graph_add_node(xrt_graph_node *node, xrt_graph graph, const xrt_graph_node *deps,
                                            size_t ndeps, xrt_graph_node_params *params)
{
    return xrt__graph_add(xrt__be(), node, graph, deps, ndeps, params, "xrt_graph_add_node");
}

static inline xrt_status xrt_graph_add_kernel_node(xrt_graph_node *node, xrt_graph graph, const xrt_graph_node *deps,
                                                   size_t ndeps, const xrt_kernel_node_params *params)
{
    return xrt__graph_add_typed(xrt__be(), node, graph, deps, ndeps, XRT_GRAPH_NODE_KERNEL, params, sizeof *params,
                                "xrt_graph_add_kernel_node");
}

static inline xrt_status xrt_graph_add_memcpy_node_1d(xrt_graph_node *node, xrt_graph graph,
                                                      const xrt_graph_node *deps, size_t ndeps, void *dst,
                                                      const void *src, size_t size, xrt_memcpy_kind kind)
{
    xrt_memcpy_node_params c = {dst, src, size, kind};
    return xrt__graph_add_typed(xrt__be(), node, graph, deps, ndeps, XRT_GRAPH_NODE_MEMCPY, &c, sizeof c,
                                "xrt_graph_add_memcpy_node_1d");
}

static inline xrt_status xrt_graph_add_memset_node(xrt_graph_node *node, xrt_graph graph, const xrt_graph_node *deps,
                                                   size_t ndeps, const xrt_memset_node_params *params)
{
    return xrt__graph_add_typed(xrt__be(), node, graph, deps, ndeps, XRT_GRAPH_NODE_MEMSET, params, sizeof *params,
                                "xrt_graph_add_memset_node");
}

static inline xrt_status xrt_graph_add_host_node(xrt_graph_node *node, xrt_graph graph, const xrt_graph_node *deps,
                                                 size_t ndeps, const xrt_host_node_params *params)
{
    return xrt__graph_add_typed(xrt__be(), node, graph, deps, ndeps, XRT_GRAPH_NODE_HOST, params, sizeof *params,
                                "xrt_graph_add_host_node");
}

static inline xrt_status xrt_graph_add_child_graph_node(xrt_graph_node *node, xrt_graph graph,
                                                        const xrt_graph_node *deps, size_t ndeps, xrt_graph child)
{
    return xrt__graph_add_typed(xrt__be(), node, graph, deps, ndeps, XRT_GRAPH_NODE_GRAPH, &child, sizeof child,
                                "xrt_graph_add_child_graph_node");
}

static inline xrt_status xrt_graph_add_empty_node(xrt_graph_node *node, xrt_graph graph, const xrt_graph_node *deps,
                                                  size_t ndeps)
{
    return xrt__graph_add_typed(xrt__be(), node, graph, deps, ndeps, XRT_GRAPH_NODE_EMPTY, NULL, 0,
                                "xrt_graph_add_empty_node");
}

static inline xrt_status xrt_graph_add_event_record_node(xrt_graph_node *node, xrt_graph graph,
                                                         const xrt_graph_node *deps, size_t ndeps, xrt_event event)
{
    return xrt__graph_add_typed(xrt__be(), node, graph, deps, ndeps, XRT_GRAPH_NODE_EVENT_RECORD, &event,
                                sizeof event, "xrt_graph_add_event_record_node");
}

static inline xrt_status xrt_graph_add_event_wait_node(xrt_graph_node *node, xrt_graph graph,
                                                       const xrt_graph_node *deps, size_t ndeps, xrt_event event)
{
    return xrt__graph_add_typed(xrt__be(), node, graph, deps, ndeps, XRT_GRAPH_NODE_WAIT_EVENT, &event,
                                sizeof event, "xrt_graph_add_event_wait_node");
}

static inline xrt_status xrt_graph_add_dependencies(xrt_graph graph, const xrt_graph_node *from,
                                                    const xrt_graph_node *to, size_t n)
{
    return xrt__graph_edges(xrt__be(), graph, from, to, n, 0);
}

static inline xrt_status xrt_graph_remove_dependencies(xrt_graph graph, const xrt_graph_node *from,
                                                       const xrt_graph_node *to, size_t n)
{
    return xrt__graph_edges(xrt__be(), graph, from, to, n, 1);
}

static inline xrt_status xrt_graph_get_nodes(xrt_graph graph, xrt_graph_node *nodes, size_t *count)
{
    return xrt__graph_list(xrt__be(), XRT__GRAPH_LIST_NODES, graph, nodes, NULL, count);
}

static inline xrt_status xrt_graph_get_root_nodes(xrt_graph graph, xrt_graph_node *nodes, size_t *count)
{
    return xrt__graph_list(xrt__be(), XRT__GRAPH_LIST_ROOTS, graph, nodes, NULL, count);
}

static inline xrt_status xrt_graph_get_edges(xrt_graph graph, xrt_graph_node *from, xrt_graph_node *to,
                                             size_t *count)
{
    return xrt__graph_list(xrt__be(), XRT__GRAPH_LIST_EDGES, graph, from, to, count);
}

static inline xrt_status xrt_graph_node_get_dependencies(xrt_graph_node node, xrt_graph_node *deps, size_t *count)
{
    return xrt__graph_list(xrt__be(), XRT__GRAPH_LIST_DEPS, node, deps, NULL, count);
}

static inline xrt_status xrt_graph_node_get_dependent_nodes(xrt_graph_node node, xrt_graph_node *nodes,
                                                            size_t *count)
{
    return xrt__graph_list(xrt__be(), XRT__GRAPH_LIST_DEPENDENTS, node, nodes, NULL, count);
}

static inline xrt_status xrt_graph_node_get_type(xrt_graph_node node, xrt_graph_node_type *type)
{
    xrt_graph_node_params p;
    xrt_status st;
    XRT__CHECK_PTR(type, "xrt_graph_node_get_type");
    st = xrt__graph_params(xrt__be(), NULL, node, &p, NULL, "xrt_graph_node_get_type");
    if (st == XRT_SUCCESS) *type = p.type;
    return st;
}

static inline xrt_status xrt_graph_node_get_params(xrt_graph_node node, xrt_graph_node_params *params)
{
    return xrt__graph_params(xrt__be(), NULL, node, params, NULL, "xrt_graph_node_get_params");
}

static inline xrt_status xrt_graph_node_set_params(xrt_graph_node node, const xrt_graph_node_params *params)
{
    return xrt__graph_params(xrt__be(), NULL, node, NULL, params, "xrt_graph_node_set_params");
}

static inline xrt_status xrt_graph_exec_node_set_params(xrt_graph_exec exec, xrt_graph_node node,
                                                        const xrt_graph_node_params *params)
{
    return xrt__graph_params(xrt__be(), exec, node, NULL, params, "xrt_graph_exec_node_set_params");
}

static inline xrt_status xrt_graph_node_set_enabled(xrt_graph_exec exec, xrt_graph_node node, unsigned enabled)
{
    return xrt__graph_enabled(xrt__be(), exec, node, NULL, enabled, "xrt_graph_node_set_enabled");
}

static inline xrt_status xrt_graph_node_get_enabled(xrt_graph_exec exec, xrt_graph_node node, unsigned *enabled)
{
    XRT__CHECK_PTR(enabled, "xrt_graph_node_get_enabled");
    return xrt__graph_enabled(xrt__be(), exec, node, enabled, 0, "xrt_graph_node_get_enabled");
}

static inline xrt_status xrt_graph_kernel_node_set_attribute(xrt_graph_node node, xrt_launch_attr attr,
                                                             const xrt_launch_attr_value *value)
{
    return xrt__kernel_node_attr(xrt__be(), node, attr, NULL, value, "xrt_graph_kernel_node_set_attribute");
}

static inline xrt_status xrt_graph_kernel_node_get_attribute(xrt_graph_node node, xrt_launch_attr attr,
                                                             xrt_launch_attr_value *value)
{
    XRT__CHECK_PTR(value, "xrt_graph_kernel_node_get_attribute");
    return xrt__kernel_node_attr(xrt__be(), node, attr, value, NULL, "xrt_graph_kernel_node_get_attribute");
}

static inline xrt_status xrt_graph_kernel_node_copy_attributes(xrt_graph_node dst, xrt_graph_node src)
{
    return xrt__kernel_node_copy_attrs(xrt__be(), dst, src);
}

static inline xrt_status xrt_graph_add_memcpy_node(xrt_graph_node *node, xrt_graph graph, const xrt_graph_node *deps,
                                                   size_t ndeps, const xrt_memcpy_3d_parms *p)
{
    return xrt__graph_add_copy_3d(xrt__be(), node, graph, deps, ndeps, p);
}

static inline xrt_status xrt_graph_memcpy_node_get_params(xrt_graph_node node, xrt_memcpy_3d_parms *p)
{
    return xrt__graph_copy_3d_params(xrt__be(), NULL, node, p, NULL, "xrt_graph_memcpy_node_get_params");
}

static inline xrt_status xrt_graph_memcpy_node_set_params(xrt_graph_node node, const xrt_memcpy_3d_parms *p)
{
    return xrt__graph_copy_3d_params(xrt__be(), NULL, node, NULL, p, "xrt_graph_memcpy_node_set_params");
}

static inline xrt_status xrt_graph_exec_memcpy_node_set_params(xrt_graph_exec exec, xrt_graph_node node,
                                                               const xrt_memcpy_3d_parms *p)
{
    if (!exec) return xrt__handle_bad("xrt_graph_exec_memcpy_node_set_params", exec);
    return xrt__graph_copy_3d_params(xrt__be(), exec, node, NULL, p, "xrt_graph_exec_memcpy_node_set_params");
}

static inline xrt_status xrt_graph_destroy_node(xrt_graph_node node) { return xrt__graph_destroy_node(xrt__be(), node); }

static inline xrt_status xrt_stream_begin_capture_to_graph(xrt_stream stream, xrt_graph graph,
                                                           const xrt_graph_node *deps, size_t ndeps,
                                                           xrt_capture_mode mode)
{
    return xrt__capture_to_graph(xrt__be(), xrt__unit_stream(stream), graph, deps, ndeps, mode);
}

static inline xrt_status xrt_graph_exec_update_with_result(xrt_graph_exec exec, xrt_graph graph,
                                                           xrt_graph_exec_update_result *result)
{
    return xrt__graph_update(xrt__be(), exec, graph, result);
}

static inline xrt_status xrt_graph_clone(xrt_graph *clone, xrt_graph original)
{
    return xrt__graph_clone(xrt__be(), clone, original);
}

static inline xrt_status xrt_graph_node_find_in_clone(xrt_graph_node *node, xrt_graph_node original, xrt_graph clone)
{
    return xrt__graph_find_in_clone(xrt__be(), node, original, clone);
}

static inline xrt_status xrt_user_object_create(xrt_user_object *object, void *ptr, xrt_host_fn destroy,
                                                unsigned initial_refcount, unsigned flags)
{
    return xrt__uobj_create(xrt__be(), object, ptr, destroy, initial_refcount, flags);
}

static inline xrt_status xrt_user_object_retain(xrt_user_object object, unsigned count)
{
    return xrt__uobj_count(xrt__be(), object, count, 0);
}

static inline xrt_status xrt_user_object_release(xrt_user_object object, unsigned count)
{
    return xrt__uobj_count(xrt__be(), object, count, 1);
}

static inline xrt_status xrt_graph_retain_user_object(xrt_graph graph, xrt_user_object object, unsigned count,
                                                      unsigned flags)
{
    return xrt__uobj_graph(xrt__be(), graph, object, count, flags, 0);
}

static inline xrt_status xrt_graph_release_user_object(xrt_graph graph, xrt_user_object object, unsigned count)
{
    return xrt__uobj_graph(xrt__be(), graph, object, count, 0, 1);
}

#ifdef __cplusplus
}
#endif

#endif /* XRT_H_INCLUDED */

/* >> implementation */
#if defined(XRT_IMPL) && !defined(XRT__IMPL_INCLUDED)
#define XRT__IMPL_INCLUDED
#if !defined(_GNU_SOURCE) /* xrt.h was included before XRT_IMPL was defined */
#error "xrt.h: the unit that defines XRT_IMPL needs _GNU_SOURCE: #define XRT_IMPL before the first #include \"xrt.h\" and before any other header, or compile that unit with -D_GNU_SOURCE"
#endif
/* The CPU backend needs nothing: it is always built in, unless the program
   leaves it out with XRT_DISABLE_CPU (XRT_ENABLE_CPU is accepted, and changes nothing). */
#if defined(XRT_DISABLE_CPU) && defined(XRT_ENABLE_CPU)
#error "xrt.h: both XRT_DISABLE_CPU and XRT_ENABLE_CPU are defined: keep one"
#endif
#if !defined(XRT_DISABLE_CPU) && !defined(XRT_ENABLE_CPU)
#define XRT_ENABLE_CPU
#endif
/* The headers this unit includes, beside xrt.h (README.md, Vendoring). */
#if defined(__has_include)
#if !__has_include("xrt_cache.h")
#error "xrt.h: the XRT_IMPL unit needs xrt_cache.h beside xrt.h: copy it too (README.md, Vendoring: the headers of each build)"
#endif
#if !__has_include("xrt_check.h")
#error "xrt.h: the XRT_IMPL unit needs xrt_check.h beside xrt.h: copy it too (README.md, Vendoring: the headers of each build)"
#endif
#if defined(XRT_ENABLE_CPU) && !__has_include("xrt_cpu.h")
#error "xrt.h: the CPU backend needs xrt_cpu.h beside xrt.h: copy it too, or define XRT_DISABLE_CPU (README.md, Vendoring)"
#endif
#if (defined(XRT_ENABLE_CUDA) || defined(XRT_ENABLE_HIP)) && !__has_include("xrt_gpu.h")
#error "xrt.h: XRT_ENABLE_CUDA and XRT_ENABLE_HIP need xrt_gpu.h beside xrt.h: copy it too (README.md, Vendoring)"
#endif
#if defined(XRT_ENABLE_CUDA) && !__has_include("xrt_cuda.h")
#error "xrt.h: XRT_ENABLE_CUDA needs xrt_cuda.h beside xrt.h: copy it too (README.md, Vendoring)"
#endif
#if defined(XRT_ENABLE_HIP) && !__has_include("xrt_hip.h")
#error "xrt.h: XRT_ENABLE_HIP needs xrt_hip.h beside xrt.h: copy it too (README.md, Vendoring)"
#endif
#endif
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/auxv.h>

/* xrt's own allocations (and the CPU backend's memory) go through these. */
#if !defined(XRT_MALLOC) && !defined(XRT_CALLOC) && !defined(XRT_REALLOC) && !defined(XRT_ALIGNED_ALLOC) && \
    !defined(XRT_FREE)
#define XRT_MALLOC(n) malloc(n)
#define XRT_CALLOC(n, size) calloc(n, size)
#define XRT_REALLOC(p, n) realloc(p, n)
#define XRT_ALIGNED_ALLOC(align, n) aligned_alloc(align, n)
#define XRT_FREE(p) free(p)
#elif !defined(XRT_MALLOC) || !defined(XRT_CALLOC) || !defined(XRT_REALLOC) || !defined(XRT_ALIGNED_ALLOC) || \
    !defined(XRT_FREE)
#error "define all of XRT_MALLOC, XRT_CALLOC, XRT_REALLOC, XRT_ALIGNED_ALLOC and XRT_FREE, or none"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* >> impl: the kit. The private names of xrt.h that the other headers use
   (xrt_backends.h, xrt_cache.h, xrt_check.h, xrt_cpu.h, xrt_gpu.h, xrt_cuda.h,
   xrt_hip.h, xrt_rdma.h), each with its contract on one line "NAME: ...",
   then its prototype where one can be written here. A macro, a type, an
   enumerator or a variable defined before this point (in the public part)
   or that C++ cannot declare ahead (a static variable) is named by its line
   only. tests/kit.sh checks that a header other than xrt.h uses no other
   name defined here and that every name below is used by one. */

/* from the public part: macros, types, enumerators, variables */
/* XRT__TLS: the storage class of a thread-local variable (__thread) */
/* XRT__LIKELY, XRT__UNLIKELY: branch hints for the hot paths (__builtin_expect) */
/* XRT__COLD: a function off every hot path (cold, never inlined) */
/* XRT__PRINTF: a function whose arguments f, a are a printf format and its first value */
/* XRT__DEVICE_ATTRS: the device attributes, X(name, value) by cudaDeviceAttr's values */
/* XRT__KERNEL_DECLS: the declarations a CPU kernel's source sees as xrt.h (the kernel header) */
/* XRT__GRAPH_LIST_NODES, XRT__GRAPH_LIST_ROOTS: what a graph list holds: a graph's nodes, its roots */
/* XRT__GRAPH_LIST_EDGES, XRT__GRAPH_LIST_DEPS: what a graph list holds: a graph's edges, a node's dependencies */
/* XRT__GRAPH_LIST_DEPENDENTS: what a graph list holds: a node's dependents */
/* XRT__CHK_SYNC_EVENT: what xrt__chk_sync waited for: an event (a stream's: xrt__chk_stream_wait) */
/* XRT__CHK_SYNC_DEVICE, XRT__CHK_SYNC_ALL: what xrt__chk_sync waited for: the current device, every device */
/* XRT__HANDLE_STREAM, XRT__HANDLE_EVENT: the kind bits of a stream's, an event's handle */
/* XRT__HANDLE_GRAPH_EXEC, XRT__HANDLE_MEM_POOL: the kind bits of an executable graph's, a pool's handle */
/* XRT__HANDLE_DEVICE_SHIFT: where a stream's slot keeps its device + 1 in its flags (0: not known) */
/* XRT__CHECK_PTR: returns XRT_ERROR_INVALID_VALUE ("p is NULL", call fn) from the enclosing function */
/* xrt__handle_slot: a handle's slot (tag = the handle, obj, owner backend, flags) */
/* xrt__mem_info: an allocation of the registry (base, size, generation, type, device, backend) */
/* xrt__tls: the thread's dispatch state (backend, generation, inside a host function, refusal) */
/* xrt__handle_null_stream: the slot a stream lookup gives for the NULL stream (a per-thread one has its own) */
/* xrt__captures: the number of stream captures under way (0: no capture pays for itself) */
/* XRT__ENV_SWITCH_VALID: the valid values of a switch, for messages */
/* xrt__env_parse_switch: 1 for 1, on, yes, true; 0 for 0, off, no, false (any case); -1 for anything else */
/* xrt__host_key, xrt__host_key_of: a host function's key for the checker: its function's and user pointer's bytes */
/* xrt__attr_event: the event a launch attribute names (a programmatic or launch completion event), or NULL */

/* from the implementation: what cannot be declared ahead */
/* XRT__IMPL_INCLUDED: defined once xrt.h's implementation is in the unit: the other headers' impl guard */
/* XRT__TREE_INIT: the initialiser of an empty xrt__tree */
/* xrt__unsupported_<op>: the table entry of an operation a backend lacks (XRT_ERROR_UNSUPPORTED) */
/* xrt__err: the thread's last error and logging state (quiet > 0: failures are answers, not recorded) */
/* xrt__sysfs_root: the root under which sysfs is read ("/sys"; the tests point it at a fake tree) */

/* XRT__BACKEND_HELPER: the storage class of a helper a build may leave unused (static, unused) */
#define XRT__BACKEND_HELPER static __attribute__((unused))
/* xrt__dl_sym: a symbol to look up (name, the slot its address goes to, optional) */
struct xrt__dl_sym;
/* xrt__tree, xrt__tree_node: a treap of disjoint [start, end) intervals; the node is in the caller's record */
struct xrt__tree;
struct xrt__tree_node;

/* utilities */
/* xrt__spin_lock: takes spin lock *l (critical sections of a few pointer moves, no system call) */
static inline void xrt__spin_lock(int *l);
/* xrt__spin_unlock: releases spin lock *l */
static inline void xrt__spin_unlock(int *l);
/* xrt__log_warn_once: logs a warning unless it is the one this process logged last */
XRT__BACKEND_HELPER void xrt__log_warn_once(const char *fmt, ...) XRT__PRINTF(1, 2);
/* xrt__env_switch: env `name` as a switch; dflt when unset, empty or bad (bad: one warning) */
XRT__BACKEND_HELPER int xrt__env_switch(const char *name, int dflt);
/* xrt__env_number: env `name` as a whole number (digits only); dflt when unset, empty or bad */
XRT__BACKEND_HELPER unsigned long long xrt__env_number(const char *name, unsigned long long dflt);
/* xrt__env_size: env `name` as a size in bytes (digits, optionally k, m or g); dflt when unset, empty or bad */
XRT__BACKEND_HELPER unsigned long long xrt__env_size(const char *name, unsigned long long dflt);
/* xrt__env_count: env `name` as a count from lo to hi, or `word` (-1); dflt otherwise (bad: one warning) */
XRT__BACKEND_HELPER long long xrt__env_count(const char *name, unsigned long long dflt, unsigned long long lo,
                                             unsigned long long hi, const char *word);
/* xrt__sysfs_numa_node: the node in `dir`/numa_node; -1 where there is none or it is not a number */
XRT__BACKEND_HELPER int xrt__sysfs_numa_node(const char *dir);
/* xrt__sysfs_pci_numa_node: the NUMA node of PCI function DDDD:BB:DD.0; -1 where sysfs does not say */
XRT__BACKEND_HELPER int xrt__sysfs_pci_numa_node(int domain, int bus, int device);

/* backends and building kernels */
/* xrt__secure: 1 when the program runs with privileges its file gave it (AT_SECURE): load no code it is named */
static int xrt__secure(void);
/* xrt__getenv_code: env `name` that names code to load; NULL when unset or when xrt__secure */
static const char *xrt__getenv_code(const char *name);
/* xrt__dl_open: the library env_var names, else the first of sonames that loads; NULL and a reason if none */
XRT_API void *xrt__dl_open(const char *env_var, const char *const *sonames, char *reason, size_t n);
/* xrt__dl_bind: looks up count symbols of lib into their slots; 0, or -1 and a reason if one not optional lacks */
XRT_API int xrt__dl_bind(void *lib, const struct xrt__dl_sym *syms, size_t count, char *reason, size_t n);
/* xrt__file_full: file `name` (a loaded library's) as a full path where it is relative, into out (n bytes, cut) */
XRT_API void xrt__file_full(const char *name, char *out, size_t n);
/* xrt__backend_runtime: records what a backend's init loaded (library, versions) for xrt_backend_get_info */
XRT_API void xrt__backend_runtime(const xrt_backend *self, const char *library, int runtime_version,
                                  int driver_version);
/* xrt__fork_refuse: in a backend's fork child handler: the child may not use it; why() writes the reason */
XRT_API void xrt__fork_refuse(const xrt_backend *self, void (*why)(char *buf, size_t n));
/* xrt__image_kind_name: the words for image kind k ("cuda ptx"; "?" for no kind) */
XRT__BACKEND_HELPER const char *xrt__image_kind_name(xrt_image_kind k);
/* xrt__image_pick: the image for target t among the kinds' bits: its arch, else compatible's best, else no arch */
XRT__BACKEND_HELPER xrt_status xrt__image_pick(const char *who, const xrt_target *t, const xrt_module_image *im,
                                               size_t n, unsigned kinds,
                                               int (*compatible)(const xrt_target *t, const xrt_module_image *im),
                                               size_t *pick);
/* xrt__target_get: backend b's compile target, named and fingerprinted */
XRT_API xrt_status xrt__target_get(const xrt_backend *b, xrt_target *t);
/* xrt__args_fit: packed arguments against where a kernel's parameters end (cut to it), or the error naming both */
XRT__BACKEND_HELPER xrt_status xrt__args_fit(const char *backend, size_t params, size_t *args_size);

/* handles */
/* xrt__be: the calling thread's backend (a TLS load and one compare on the fast path) */
static inline const xrt_backend *xrt__be(void);
/* xrt__handle_lookup: the slot of a live handle of this kind that b owns; NULL for a NULL, stale or foreign one */
static inline xrt__handle_slot *xrt__handle_lookup(const xrt_backend *b, const void *handle, uintptr_t kind);
/* xrt__handle_of: the live handle of a backend's object, for messages (a scan); 0 if none */
XRT_API uintptr_t xrt__handle_of(const void *obj, uintptr_t kind);
/* xrt__handle_free: the whole of a destroy of a handle of this kind (one of two racing destroys wins) */
XRT_API xrt_status xrt__handle_free(const xrt_backend *b, const void *handle, uintptr_t kind, const char *fn);
/* xrt__limbo_holds: whether handle h's destroy waits for calls under way (xrt__limbo_finish ends it) */
XRT_API int xrt__limbo_holds(uintptr_t h);

/* memory */
/* xrt__tree_floor: the node with the greatest start <= p (the only one that can contain p); NULL if none */
static inline struct xrt__tree_node *xrt__tree_floor(const struct xrt__tree *t, uintptr_t p);
/* xrt__tree_insert: adds node n; the caller keeps the intervals disjoint */
static inline void xrt__tree_insert(struct xrt__tree *t, struct xrt__tree_node *n);
/* xrt__tree_remove: takes node n, which must be in t, out */
static inline void xrt__tree_remove(struct xrt__tree *t, struct xrt__tree_node *n);
/* xrt__tree_collect: the nodes overlapping [s, e), in order, linked through ->next; they stay in t */
static inline struct xrt__tree_node *xrt__tree_collect(const struct xrt__tree *t, uintptr_t s, uintptr_t e);
/* xrt__tree_drain: empties t; its nodes, linked through ->next */
static inline struct xrt__tree_node *xrt__tree_drain(struct xrt__tree *t);
/* xrt__mem_note_device: the device of allocation p, made now by a GPU backend, for its registry record */
static inline void xrt__mem_note_device(const void *p, int device);
/* xrt__mem_query: the allocation containing p in *info, in one lookup: 1; else 0 and *info zeroed */
/* xrt__mem_version: the registry's version, bumped by every change of its tree (read with an acquire load: an answer of xrt__mem_query taken after the read is at least that new) */
XRT_API int xrt__mem_query(const void *p, xrt__mem_info *info);
/* xrt__free_hook_unregisters: 1 inside a free hook run by xrt_host_unregister (the memory stays the user's), 0 for a free */
XRT_API int xrt__free_hook_unregisters(void);
/* xrt__mem_info_of: the allocation of a record xrt__mem_take took out of the registry, in *info */
XRT_API void xrt__mem_info_of(const void *record, xrt__mem_info *info);
/* xrt__mem_lookup: the registry's attributes of p (the backend's where the registry knows none) */
XRT_API xrt_status xrt__mem_lookup(const xrt_backend *b, xrt_pointer_attributes *a, const void *p);
/* xrt__mem_set_waits: whether a synchronous set of p is done when it returns (p not device memory) */
XRT_API int xrt__mem_set_waits(const xrt_backend *b, const void *p);
/* xrt__mem_host_flags: the flags of the host allocation p points into; 0 where p is in none */
XRT_API int xrt__mem_host_flags(const void *p, unsigned *flags);
/* xrt__mem_device_bytes: the live xrt_malloc bytes of b's device */
XRT_API size_t xrt__mem_device_bytes(const xrt_backend *b, int device);
/* xrt__pool_attr_is_int: 1 for a pool attribute of int value, 0 for a uint64_t one, -1 for no attribute */
static inline int xrt__pool_attr_is_int(int attr);

/* graphs, devices, host functions */
/* xrt__graph_launch_run: xrt_graph_launch once its handles are found (the checker's launch runs it between its notes) */
static inline xrt_status xrt__graph_launch_run(const xrt_backend *b, xrt_graph_exec exec, const xrt__handle_slot *x,
                                               const xrt__handle_slot *s);
/* xrt__device_reset_objects: frees b's device's memory and retires its handles that on_device says are its */
XRT_API void xrt__device_reset_objects(const xrt_backend *b, int device, xrt__on_device_fn on_device);
/* xrt__host_fn_run: runs host function fn for backend b; meanwhile the thread dispatches to b or is refused */
XRT_API void xrt__host_fn_run(const xrt_backend *b, xrt_host_fn fn, void *user);
/* xrt__host_fn_lend: xrt__host_fn_run on a caller's thread that waits: its last error is kept */
XRT_API void xrt__host_fn_lend(const xrt_backend *b, xrt_host_fn fn, void *user);
/* xrt__err_as: the failure st of a call that public call who made inside, reported as who's */
XRT_API xrt_status xrt__err_as(xrt_status st, const char *who);
/* xrt__capture_note_failure: after a GPU failure just recorded: the captures it invalidated (invalidated(ctx, stream)) keep its detail */
XRT__BACKEND_HELPER void xrt__capture_note_failure(int (*invalidated)(const void *ctx, void *stream), const void *ctx);
/* xrt__capture_invalidated_by: that detail for the capture of key `key` (xrt__capture_key); 0 if none */
XRT__BACKEND_HELPER int xrt__capture_invalidated_by(uintptr_t key, char *why, size_t n);
/* xrt__capture_key_per_thread: the key of a capture of the calling thread's per-thread stream of device */
XRT__BACKEND_HELPER uintptr_t xrt__capture_key_per_thread(int device);

/* >> impl: spin lock (private; the CPU backend's queues and the
   modules' caches). For critical sections of a few pointer moves, never a system call:
   released with a plain store, it costs half the atomic operations of a
   mutex. A waiter yields the CPU now and then: the holder may be descheduled. */
static void xrt__spin_wait(int *l) XRT__COLD;
static void xrt__spin_wait(int *l)
{
    unsigned i = 0;
    while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(l, __ATOMIC_RELAXED)) {
            if (++i % 64 == 0) {
                sched_yield();
            } else {
#if defined(__x86_64__) || defined(__i386__)
                __builtin_ia32_pause();
#elif defined(__aarch64__)
                __asm__ __volatile__("yield");
#endif
            }
        }
}

/* The wait is out of line: a caller's code stays that of one exchange. */
static inline void xrt__spin_lock(int *l)
{
    if (XRT__UNLIKELY(__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))) xrt__spin_wait(l);
}

static inline void xrt__spin_unlock(int *l) { __atomic_store_n(l, 0, __ATOMIC_RELEASE); }

/* >> impl: interval tree (private; the pointer registry, the CPU
   backend's mappings and the modules' caches). A treap of non-overlapping [start, end) intervals keyed by start;
   the node is embedded in the caller's record, the caller locks. Disjoint
   intervals sorted by start are sorted by end too, so a range query visits
   only subtrees that can hold an answer: O(k + log n). */
typedef struct xrt__tree_node {
    uintptr_t start, end;
    unsigned prio;
    struct xrt__tree_node *l, *r;
    struct xrt__tree_node *next; /* in a list returned by xrt__tree_collect or xrt__tree_drain */
} xrt__tree_node;

typedef struct xrt__tree {
    xrt__tree_node *root;
    unsigned seed; /* xorshift state for priorities; never 0 */
    size_t count;
} xrt__tree;

#define XRT__TREE_INIT {NULL, 2463534242u, 0}

static inline void xrt__tree_split(xrt__tree_node *t, uintptr_t key, xrt__tree_node **l, xrt__tree_node **r)
{
    if (!t) { *l = *r = NULL; return; }
    if (t->start < key) { xrt__tree_split(t->r, key, &t->r, r); *l = t; }
    else { xrt__tree_split(t->l, key, l, &t->l); *r = t; }
}

static inline xrt__tree_node *xrt__tree_merge(xrt__tree_node *l, xrt__tree_node *r)
{
    if (!l || !r) return l ? l : r;
    if (l->prio > r->prio) { l->r = xrt__tree_merge(l->r, r); return l; }
    r->l = xrt__tree_merge(l, r->l);
    return r;
}

/* The node with the greatest start <= p: the only one that can contain p. */
static inline xrt__tree_node *xrt__tree_floor(const xrt__tree *t, uintptr_t p)
{
    xrt__tree_node *n = t->root, *best = NULL;
    while (n) {
        if (n->start <= p) { best = n; n = n->r; }
        else n = n->l;
    }
    return best;
}

/* The node containing p, or NULL. */
static inline xrt__tree_node *xrt__tree_find(const xrt__tree *t, uintptr_t p)
{
    xrt__tree_node *n = xrt__tree_floor(t, p);
    return n && p < n->end ? n : NULL;
}

/* Keys are unique: the caller keeps intervals disjoint. The node goes down
   the search path only to where its priority puts it (a max-heap on prio), and
   the subtree it replaces there is split under it: one walk, no merges. */
static inline void xrt__tree_insert(xrt__tree *t, xrt__tree_node *n)
{
    xrt__tree_node **link = &t->root;
    t->seed ^= t->seed << 13;
    t->seed ^= t->seed >> 17;
    t->seed ^= t->seed << 5;
    n->prio = t->seed;
    while (*link && (*link)->prio > n->prio) link = n->start < (*link)->start ? &(*link)->l : &(*link)->r;
    xrt__tree_split(*link, n->start, &n->l, &n->r);
    *link = n;
    t->count++;
}

/* The link (the root or a child pointer) that holds the node starting at
   `start`, or the empty link where it would be. */
static inline xrt__tree_node **xrt__tree_link(xrt__tree *t, uintptr_t start)
{
    xrt__tree_node **link = &t->root;
    while (*link && (*link)->start != start) link = start < (*link)->start ? &(*link)->l : &(*link)->r;
    return link;
}

/* Takes out the node that *link holds: its children, merged, take its place. */
static inline void xrt__tree_unlink(xrt__tree *t, xrt__tree_node **link)
{
    xrt__tree_node *n = *link;
    *link = xrt__tree_merge(n->l, n->r);
    n->l = n->r = NULL;
    t->count--;
}

/* n must be in t. */
static inline void xrt__tree_remove(xrt__tree *t, xrt__tree_node *n) { xrt__tree_unlink(t, xrt__tree_link(t, n->start)); }

static inline void xrt__tree_collect_in(xrt__tree_node *n, uintptr_t s, uintptr_t e, xrt__tree_node ***tail)
{
    if (!n) return;
    if (n->start > s) xrt__tree_collect_in(n->l, s, e, tail);
    if (n->start < e && n->end > s) {
        **tail = n;
        *tail = &n->next;
    }
    if (n->end < e) xrt__tree_collect_in(n->r, s, e, tail);
}

/* The nodes overlapping [s, e), in order, linked through ->next; they stay
   in the tree. */
static inline xrt__tree_node *xrt__tree_collect(const xrt__tree *t, uintptr_t s, uintptr_t e)
{
    xrt__tree_node *head = NULL, **tail = &head;
    xrt__tree_collect_in(t->root, s, e, &tail);
    *tail = NULL;
    return head;
}

static inline void xrt__tree_drain_in(xrt__tree_node *n, xrt__tree_node **list)
{
    if (!n) return;
    xrt__tree_drain_in(n->l, list);
    xrt__tree_drain_in(n->r, list);
    n->l = n->r = NULL;
    n->next = *list;
    *list = n;
}

/* Empties the tree; its nodes, linked through ->next. */
static inline xrt__tree_node *xrt__tree_drain(xrt__tree *t)
{
    xrt__tree_node *list = NULL;
    xrt__tree_drain_in(t->root, &list);
    t->root = NULL;
    t->count = 0;
    return list;
}

/* >> impl: errors and logging */
/* Messages logged while the thread holds an xrt lock wait here and go out
   when it lets go of the last one: a log callback may call xrt. */
#define XRT__LOG_DEFERRED 8
typedef struct xrt__log_msg { xrt_log_level level; char text[768]; } xrt__log_msg;
static XRT__TLS struct {
    xrt_status status;
    char detail[512];
    int quiet;     /* > 0: a failure is an answer, neither recorded nor logged */
    int capture;   /* > 0: a failure is recorded, not logged (why a plugin is skipped) */
    int locks;     /* xrt locks held by this thread */
    int reg_held;  /* of which the registry's (a plugin's init may look backends up) */
    int ndeferred, dropped;
    xrt__log_msg deferred[XRT__LOG_DEFERRED];
} xrt__err;
static int xrt__log_level = XRT_LOG_WARN;

/* The thread's last error, kept aside while xrt runs code whose failures
   are not the caller's (a plugin's start, a host function, a deferred
   destroy) and put back after it. */
typedef struct xrt__err_kept { xrt_status status; char detail[sizeof xrt__err.detail]; } xrt__err_kept;

static void xrt__err_keep(xrt__err_kept *k)
{
    k->status = xrt__err.status;
    memcpy(k->detail, xrt__err.detail, strlen(xrt__err.detail) + 1);
}

static void xrt__err_put_back(const xrt__err_kept *k)
{
    xrt__err.status = k->status;
    memcpy(xrt__err.detail, k->detail, strlen(k->detail) + 1);
}
static int xrt__log_level_set; /* by xrt_set_log_level: XRT_LOG no longer applies */
/* Failed calls are answered by their status and xrt_get_last_error_string, as
   in CUDA, HIP and libibverbs: they are logged (at XRT_LOG_ERROR) only once a
   level was asked for, by XRT_LOG or xrt_set_log_level. */
static int xrt__log_calls;
static pthread_mutex_t xrt__log_lock = PTHREAD_MUTEX_INITIALIZER;
static xrt_log_fn xrt__log_fn;
static void *xrt__log_user;

static const char *const xrt__level_names[] = {"none", "error", "warn", "info", "debug"};

/* A plugin's error observer (xrt_plugin_host.set_error_observer), read under
   xrt__log_lock; the flag keeps the lock off the path when there is none. */
static int xrt__err_observed;
static xrt_error_observer_fn xrt__err_observer;
static void *xrt__err_observer_user;

static void xrt__set_error_observer(xrt_error_observer_fn fn, void *user)
{
    pthread_mutex_lock(&xrt__log_lock);
    xrt__err_observer = fn;
    xrt__err_observer_user = user;
    __atomic_store_n(&xrt__err_observed, fn != NULL, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&xrt__log_lock);
}

static void xrt__err_observe(xrt_status st, const char *detail)
{
    xrt_error_observer_fn fn;
    void *user;
    pthread_mutex_lock(&xrt__log_lock);
    fn = xrt__err_observer;
    user = xrt__err_observer_user;
    pthread_mutex_unlock(&xrt__log_lock);
    if (fn) fn(st, xrt__tls.be ? xrt__tls.be->name : NULL, detail, user);
}

static void xrt__log_stderr(xrt_log_level level, const char *msg, void *user)
{
    (void)user;
    fprintf(stderr, "xrt: %s: %s\n", xrt__level_names[level], msg);
}

static void xrt__log_emit(xrt_log_level level, const char *msg)
{
    xrt_log_fn fn;
    void *user;
    pthread_mutex_lock(&xrt__log_lock);
    fn = xrt__log_fn ? xrt__log_fn : xrt__log_stderr;
    user = xrt__log_user;
    pthread_mutex_unlock(&xrt__log_lock);
    fn(level, msg, user);
}

static void xrt__log_flush(void)
{
    char note[64];
    int i;
    for (i = 0; i < xrt__err.ndeferred; i++) xrt__log_emit(xrt__err.deferred[i].level, xrt__err.deferred[i].text);
    xrt__err.ndeferred = 0;
    if (xrt__err.dropped) {
        snprintf(note, sizeof note, "%d more log message(s) dropped", xrt__err.dropped);
        xrt__err.dropped = 0;
        xrt__log_emit(XRT_LOG_WARN, note);
    }
}

/* Every lock of the core is taken through these, so that logging knows. */
/* The core's locks, all here for the fork handlers; taken in this order. */
static pthread_mutex_t xrt__reg_lock = PTHREAD_MUTEX_INITIALIZER;    /* backends, selection */
static pthread_mutex_t xrt__handle_lock = PTHREAD_MUTEX_INITIALIZER; /* the handle table */
/* The pointer registry's: a spin lock (">> impl: spin lock"), as its
   critical sections are a tree walk, never a system call, a log message or a
   call out of xrt; so, unlike the others, it is taken without xrt__lock's
   bookkeeping (nothing can be logged under it). */
static int xrt__mem_lock;
static pthread_mutex_t xrt__call_lock = PTHREAD_MUTEX_INITIALIZER;   /* threads in calls, retired handles */

static void xrt__lock(pthread_mutex_t *m)
{
    pthread_mutex_lock(m);
    xrt__err.locks++;
    xrt__err.reg_held += m == &xrt__reg_lock;
}

static void xrt__unlock(pthread_mutex_t *m)
{
    xrt__err.reg_held -= m == &xrt__reg_lock;
    pthread_mutex_unlock(m);
    if (--xrt__err.locks == 0 && (xrt__err.ndeferred || xrt__err.dropped)) xrt__log_flush();
}

/* Whether a message at `level` would go out: to skip building costly ones. */
static int xrt__log_would(xrt_log_level level)
{
    return (int)level > XRT_LOG_NONE && (int)level <= __atomic_load_n(&xrt__log_level, __ATOMIC_RELAXED);
}

static void xrt__vlog(xrt_log_level level, const char *fmt, va_list ap)
{
    char msg[sizeof xrt__err.deferred[0].text];
    if ((int)level <= XRT_LOG_NONE || (int)level > __atomic_load_n(&xrt__log_level, __ATOMIC_RELAXED)) return;
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (!xrt__err.locks) {
        xrt__log_emit(level, msg);
    } else if (xrt__err.ndeferred < XRT__LOG_DEFERRED) {
        xrt__err.deferred[xrt__err.ndeferred].level = level;
        memcpy(xrt__err.deferred[xrt__err.ndeferred++].text, msg, sizeof msg);
    } else {
        xrt__err.dropped++;
    }
}

XRT_API void xrt_log(xrt_log_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    xrt__vlog(level, fmt, ap);
    va_end(ap);
}

XRT_API void xrt_set_log_callback(xrt_log_fn fn, void *user)
{
    pthread_mutex_lock(&xrt__log_lock);
    xrt__log_fn = fn;
    xrt__log_user = user;
    pthread_mutex_unlock(&xrt__log_lock);
}

static void xrt__log_set_level(xrt_log_level level, int asked)
{
    if ((int)level < XRT_LOG_NONE) level = XRT_LOG_NONE;
    if ((int)level > XRT_LOG_DEBUG) level = XRT_LOG_DEBUG;
    __atomic_store_n(&xrt__log_level, (int)level, __ATOMIC_RELAXED);
    __atomic_store_n(&xrt__log_calls, asked, __ATOMIC_RELAXED);
}

/* XRT_LOG applies until the program sets a level itself; empty means unset. */
static void xrt__log_init_from_env(void)
{
    const char *env = getenv("XRT_LOG");
    int i;
    if (!env || !env[0] || __atomic_load_n(&xrt__log_level_set, __ATOMIC_RELAXED)) return;
    for (i = XRT_LOG_NONE; i <= XRT_LOG_DEBUG; i++)
        if (strcasecmp(env, xrt__level_names[i]) == 0 || (env[0] == '0' + i && !env[1])) {
            xrt__log_set_level((xrt_log_level)i, 1);
            return;
        }
    xrt_log(XRT_LOG_WARN, "XRT_LOG=%.64s: unknown level (valid: none, error, warn, info, debug)", env);
}

XRT_API void xrt_set_log_level(xrt_log_level level)
{
    __atomic_store_n(&xrt__log_level_set, level != XRT_LOG_ENV, __ATOMIC_RELAXED);
    xrt__log_set_level(level == XRT_LOG_ENV ? XRT_LOG_WARN : level, level != XRT_LOG_ENV);
    if (level == XRT_LOG_ENV) xrt__log_init_from_env();
}

/* A thread whose backend refuses it (inside a GPU runtime's host function,
   or in a forked child) gets that refusal from every call, whatever else is
   wrong with the call: the refusal is what the caller must fix. */
XRT_API xrt_status xrt_error(xrt_status st, const char *who, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (XRT__UNLIKELY(st != XRT_ERROR_NOT_PERMITTED && xrt__refused())) return xrt__forbidden_fail(who);
    if (xrt__err.quiet) return st;
    n = snprintf(xrt__err.detail, sizeof xrt__err.detail, "%s: ", who);
    if (n < 0) n = 0;
    if ((size_t)n < sizeof xrt__err.detail) { /* a long `who` leaves no room for the rest */
        va_start(ap, fmt);
        vsnprintf(xrt__err.detail + n, sizeof xrt__err.detail - (size_t)n, fmt, ap);
        va_end(ap);
    }
    xrt__err.status = st;
    if (xrt__err.capture) return st;
    if (__atomic_load_n(&xrt__log_calls, __ATOMIC_RELAXED))
        xrt_log(XRT_LOG_ERROR, "%s (%s)", xrt__err.detail, xrt_status_string(st));
    if (__atomic_load_n(&xrt__err_observed, __ATOMIC_RELAXED)) xrt__err_observe(st, xrt__err.detail);
    return st;
}

XRT_API xrt_status xrt_native_error(xrt_status st, const char *backend, const char *call, long code,
                                    const char *code_name, const char *message)
{
    return xrt_error(st, backend, "%s: %s (%s=%ld)", call, message ? message : "?",
                     code_name ? code_name : "code", code);
}

XRT_API xrt_status xrt_get_last_error(void)
{
    xrt_status st = xrt__err.status;
    xrt__err.status = XRT_SUCCESS;
    return st;
}

XRT_API xrt_status xrt_peek_at_last_error(void) { return xrt__err.status; }

XRT_API const char *xrt_get_last_error_string(void) { return xrt__err.detail; }

XRT_API xrt_status xrt_runtime_get_version(int *version)
{
    if (!version) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_runtime_get_version", "version is NULL");
    *version = XRT_VERSION;
    return XRT_SUCCESS;
}

/* System interfaces of the implementation (files, processes, directories). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

/* >> impl: environment variables. A switch, a number or a size is read
   through one of these: a switch (xrt__env_switch), a whole number
   (xrt__env_number), a size (xrt__env_size), a count in a range or one
   word (xrt__env_count: XRT_CPU_DEVICES, 1 to 64 or numa). Unset or empty
   means the default; a bad value is ignored with one warning naming the
   valid ones (xrt__log_warn_once). Names and lists are read where they are
   used: XRT_LOG's level (xrt__log_init_from_env), XRT_BACKEND's names
   between blanks and commas (xrt__reg_select_env_locked), XRT_PLUGINS' and
   XRT_PLUGIN_PATH's ':'-separated paths and the XRT_*_LIBRARY names
   (through xrt__getenv_code), XRT_CHECK (xrt_check.h), XRT_CC and
   XRT_CACHE_DIR (xrt_cpu.h, xrt_cache.h), XRT_RDMA_DEVICE (xrt_rdma.h). */

/* A warning, unless it is the one this process gave last: a variable read
   at each load or a directory tried at each load warns once, not each time. */
XRT__BACKEND_HELPER void xrt__log_warn_once(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
XRT__BACKEND_HELPER void xrt__log_warn_once(const char *fmt, ...)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static char last[256];
    char msg[256];
    int again;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&lock);
    if (!(again = !strcmp(msg, last))) memcpy(last, msg, sizeof last);
    pthread_mutex_unlock(&lock);
    if (!again) xrt_log(XRT_LOG_WARN, "%s", msg);
}

XRT__BACKEND_HELPER int xrt__env_switch(const char *name, int dflt)
{
    const char *env = getenv(name);
    int v;
    if (!env || !*env) return dflt;
    if ((v = xrt__env_parse_switch(env)) >= 0) return v;
    xrt__log_warn_once("%.64s=%.64s: not a switch (valid: " XRT__ENV_SWITCH_VALID "); ignored", name, env);
    return dflt;
}

/* Decimal digits, then (with `units`) an optional k, m or g (binary units),
   and nothing else, below 2^64 (no sign, space or wrap-around). */
XRT__BACKEND_HELPER int xrt__parse_number(const char *s, int units, unsigned long long *out)
{
    unsigned long long v = 0;
    unsigned shift = 0;
    const char *p;
    for (p = s; *p >= '0' && *p <= '9'; p++) {
        if (v > (~0ull - (unsigned)(*p - '0')) / 10) return 0; /* would overflow */
        v = v * 10 + (unsigned)(*p - '0');
    }
    if (p == s) return 0;
    if (units && *p) {
        const char *u = strchr("kmg", *p | 0x20);
        if (!u || !*u) return 0;
        shift = 10u * (unsigned)(u - "kmg" + 1);
        p++;
    }
    if (*p || v > ~0ull >> shift) return 0;
    *out = v << shift;
    return 1;
}

XRT__BACKEND_HELPER unsigned long long xrt__env_parsed(const char *name, unsigned long long dflt, int units)
{
    const char *env = getenv(name);
    unsigned long long v;
    if (!env || !*env) return dflt;
    if (xrt__parse_number(env, units, &v)) return v;
    if (units)
        xrt__log_warn_once("%.64s=%.64s: not a size (valid: digits 0-9 with an optional k, m or g, below 2^64); ignored",
                           name, env);
    else
        xrt__log_warn_once("%.64s=%.64s: not a whole number (valid: digits 0-9, below 2^64); ignored", name, env);
    return dflt;
}

/* A count: digits only. */
XRT__BACKEND_HELPER unsigned long long xrt__env_number(const char *name, unsigned long long dflt)
{
    return xrt__env_parsed(name, dflt, 0);
}

/* A size in bytes: digits, optionally k, m or g. */
XRT__BACKEND_HELPER unsigned long long xrt__env_size(const char *name, unsigned long long dflt)
{
    return xrt__env_parsed(name, dflt, 1);
}

/* A count from lo to hi, or `word` (then -1): anything else, zero and
   negative values included, is ignored with one warning naming the valid
   values and the default used. */
XRT__BACKEND_HELPER long long xrt__env_count(const char *name, unsigned long long dflt, unsigned long long lo,
                                             unsigned long long hi, const char *word)
{
    const char *env = getenv(name);
    unsigned long long v;
    if (!env || !*env) return (long long)dflt;
    if (word && !strcmp(env, word)) return -1;
    if (xrt__parse_number(env, 0, &v) && v >= lo && v <= hi) return (long long)v;
    xrt__log_warn_once("%.64s=%.64s: not valid (valid: %llu to %llu%s%s); %llu used", name, env, lo, hi,
                       word ? " or " : "", word ? word : "", dflt);
    return (long long)dflt;
}

/* >> impl: sysfs. Where the machine is described: the CPU backend's NUMA
   nodes, a GPU's node by its PCI address, and xrt_rdma.h's PCI places are
   all read under this root; the tests point it at a fake tree. */
static const char *xrt__sysfs_root __attribute__((unused)) = "/sys";

/* The node in `dir`/numa_node: a number and a line end, nothing else; -1
   otherwise (the kernel's own -1 included: no node). */
XRT__BACKEND_HELPER int xrt__sysfs_numa_node(const char *dir)
{
    char path[PATH_MAX + 16], line[32] = "", *end;
    long v;
    FILE *f;
    snprintf(path, sizeof path, "%s/numa_node", dir);
    if (!(f = fopen(path, "r"))) return -1;
    if (!fgets(line, sizeof line, f)) line[0] = 0;
    fclose(f);
    errno = 0;
    v = strtol(line, &end, 10);
    if (end == line || (*end && *end != '\n') || errno || v < 0 || v > 4095) return -1;
    return (int)v;
}

/* The node of PCI function DDDD:BB:DD.0 (a GPU's); -1 where sysfs does not say. */
XRT__BACKEND_HELPER int xrt__sysfs_pci_numa_node(int domain, int bus, int device)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/bus/pci/devices/%04x:%02x:%02x.0", xrt__sysfs_root, (unsigned)domain & 0xffffu,
             (unsigned)bus & 0xffu, (unsigned)device & 0xffu);
    return xrt__sysfs_numa_node(dir);
}

/* >> impl: run-time loading of vendor libraries (GPU backends, modules) */

/* A program that runs with privileges its file gave it (setuid, setgid, file
   capabilities: AT_SECURE) must not load code its caller names: there the
   variables that name code (XRT_PLUGINS, XRT_*_LIBRARY) are ignored, as
   glibc ignores LD_PRELOAD, and xrt_load_plugin takes no relative path. */
static int xrt__secure(void) { return getauxval(AT_SECURE) != 0; }

static const char *xrt__getenv_code(const char *name)
{
    const char *v = getenv(name);
    if (v && v[0] && xrt__secure()) {
        xrt_log(XRT_LOG_INFO, "%.64s ignored: the program runs with elevated privileges (setuid, setgid or capabilities)", name);
        return NULL;
    }
    return v;
}


/* A loaded library's file name as a full path where the name is relative
   (XRT_CUDA_LIBRARY=build/libcudart.so.13), which a later chdir would make
   wrong; cut to n bytes. */
XRT_API void xrt__file_full(const char *name, char *out, size_t n)
{
    char full[PATH_MAX];
    size_t len;
    if (name[0] && name[0] != '/' && strchr(name, '/') && realpath(name, full)) name = full;
    len = strlen(name) < n ? strlen(name) : n - 1;
    memcpy(out, name, len);
    out[len] = 0;
}

/* The file a dlopen handle maps (its link map's name), or "" if unknown. */
XRT_API void xrt__dl_path(void *lib, char *out, size_t n)
{
    struct link_map *map = NULL;
    xrt__file_full(lib && dlinfo(lib, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name ? map->l_name : "", out, n);
}

static void xrt__dl_loaded(void *lib, const char *name, const char *env_var)
{
    char file[256];
    if (!xrt__log_would(XRT_LOG_DEBUG)) return;
    xrt__dl_path(lib, file, sizeof file);
    xrt_log(XRT_LOG_DEBUG, "loaded %s: %s (%s chooses another)", name, file, env_var);
}

/* What a backend's init loaded, for xrt_backend_get_info (defined with the registry). */
XRT_API void xrt__backend_runtime(const xrt_backend *self, const char *library, int runtime_version, int driver_version);

/* For a backend's fork child handler, which runs before the core's: this
   child may not use the backend (self: the table the registry passed to
   init). `why` writes the reason whenever a refusal is reported, in the
   child's ordinary context, so the handler itself formats nothing. */
XRT_API void xrt__fork_refuse(const xrt_backend *self, void (*why)(char *buf, size_t n));

/* Opens the library named by env `env_var`, else the first of `sonames` that
   loads. On failure writes the reason and returns NULL. */
XRT_API void *xrt__dl_open(const char *env_var, const char *const *sonames, char *reason, size_t n)
{
    const char *env = xrt__getenv_code(env_var);
    const char *err = "no candidate";
    void *h;
    size_t i;
    if (env && env[0]) {
        h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
        if (!h) snprintf(reason, n, "%s=%s: %s", env_var, env, dlerror());
        else xrt__dl_loaded(h, env, env_var);
        return h;
    }
    for (i = 0; sonames[i]; i++) {
        if ((h = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL)) != NULL) {
            xrt__dl_loaded(h, sonames[i], env_var);
            return h;
        }
        err = dlerror();
        xrt_log(XRT_LOG_DEBUG, "cannot load %s: %s", sonames[i], err ? err : "?");
    }
    snprintf(reason, n, "cannot load %s (set %s): %s", sonames[0], env_var, err ? err : "");
    return NULL;
}

/* Looks up `count` symbols into `slots` (function pointers, filled through
   memcpy to stay -pedantic clean). Optional symbols may be missing. */
typedef struct xrt__dl_sym { const char *name; void *slot; int optional; } xrt__dl_sym;

XRT_API int xrt__dl_bind(void *lib, const xrt__dl_sym *syms, size_t count, char *reason, size_t n)
{
    size_t i;
    for (i = 0; i < count; i++) {
        void *f = dlsym(lib, syms[i].name);
        if (!f && !syms[i].optional) {
            snprintf(reason, n, "symbol %s not found in the runtime library", syms[i].name);
            return 0;
        }
        memcpy(syms[i].slot, &f, sizeof f);
    }
    return 1;
}

/* >> impl: the backend registry and default selection */
#define XRT__NAME_MAX 1024
typedef struct xrt__reg_entry {
    xrt_backend t;   /* first: an entry is used as its table */
    char name[XRT__NAME_MAX]; /* t.name points here: the caller's string may not outlive the call */
    int probed;
    xrt_status probe_status;
    char reason[256];
    char library[256];                   /* xrt__backend_runtime: the vendor runtime's file */
    int runtime_version, driver_version; /* and its versions */
    unsigned lacks;                      /* XRT_CAP_* bits whose operations the table does not have */
    int caps_warned;                     /* the backend reported one of them: warned once */
    xrt_status (*get_capabilities)(const xrt_backend *self, unsigned *caps); /* the backend's own */
    void (*fork_why)(char *buf, size_t n); /* xrt__fork_refuse: why a forked child may not use it */
    const xrt_backend *memory_of;          /* host->wraps: the backend whose memory this one's is */
} xrt__reg_entry;

static xrt__reg_entry xrt__reg_entries[XRT_MAX_BACKENDS];

/* What a backend's init loaded, for xrt_backend_get_info (self: the table
   the registry passed to init). */
XRT_API void xrt__backend_runtime(const xrt_backend *self, const char *library, int runtime_version, int driver_version)
{
    xrt__reg_entry *e = (xrt__reg_entry *)(uintptr_t)self;
    if (e < xrt__reg_entries || e >= xrt__reg_entries + XRT_MAX_BACKENDS) return; /* not probed by the registry */
    snprintf(e->library, sizeof e->library, "%s", library ? library : "");
    e->runtime_version = runtime_version;
    e->driver_version = driver_version;
}

static int xrt__reg_count;
static int xrt__reg_inited;
static xrt_status xrt__reg_status;
static char xrt__reg_reason[512];

XRT_API void xrt__fork_refuse(const xrt_backend *self, void (*why)(char *buf, size_t n))
{
    int i;
    for (i = 0; i < XRT_MAX_BACKENDS; i++) /* the registry's own entry: its table is the registry's to change */
        if (&xrt__reg_entries[i].t == self) {
            xrt__reg_entries[i].t.flags &= ~(unsigned)XRT_BACKEND_FORK_SAFE;
            xrt__reg_entries[i].fork_why = why;
        }
}

/* A forked child's refusal of the backend named `name` (its table's name),
   with the backend's reason where it gave one (xrt__fork_refuse). */
static void xrt__fork_refusal(const char *name, char *buf, size_t n)
{
    char why[256] = "";
    int i;
    for (i = 0; i < XRT_MAX_BACKENDS; i++)
        if (xrt__reg_entries[i].t.name == name && xrt__reg_entries[i].fork_why)
            xrt__reg_entries[i].fork_why(why, sizeof why);
    snprintf(buf, n, "forked child: %.64s cannot be used after fork()%s%s", name, why[0] ? ": " : "", why);
}
static const xrt_backend *xrt__reg_default;
static unsigned xrt__reg_epoch = 1; /* bumped by xrt_shutdown: thread choices older than it are void */
static int xrt__reg_forked;         /* this process is a child forked after xrt was initialised */
static xrt_backend xrt__none_backend, xrt__forbidden_backend;
#ifndef XRT_STATIC
XRT__TLS struct xrt__tls_state xrt__tls;
unsigned xrt__gen = XRT__GEN_START;
XRT__TLS struct xrt__call_state xrt__call;
int xrt__call_fence;
#endif

/* Stubs ignore their parameters by design. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"

/* Every slot a backend leaves empty gets a named stub returning UNSUPPORTED. */
#define XRT__UNSUPPORTED_STUB(op, params, args)                                             \
    static xrt_status xrt__unsupported_##op params                                          \
    {                                                                                       \
        return xrt_error(XRT_ERROR_UNSUPPORTED, "xrt_" #op, "not supported by backend %s", \
                         self->name);                                                       \
    }
XRT__BACKEND_OPS(XRT__UNSUPPORTED_STUB)
#undef XRT__UNSUPPORTED_STUB

/* The table used while no backend can be selected: every slot reports why. */
static xrt_status xrt__none_fail(const char *fn)
{
    char reason[sizeof xrt__reg_reason];
    xrt_status st;
    xrt__lock(&xrt__reg_lock); /* xrt_register_backend may be selecting again */
    st = xrt__reg_status;
    memcpy(reason, xrt__reg_reason, sizeof reason);
    xrt__unlock(&xrt__reg_lock);
    return xrt_error(st, fn, "%s", reason);
}
#define XRT__NONE_STUB(op, params, args) \
    static xrt_status xrt__none_##op params { return xrt__none_fail("xrt_" #op); }
XRT__BACKEND_OPS(XRT__NONE_STUB)
#undef XRT__NONE_STUB

/* The table of a thread that may not use its backend now: inside a host
   function of a GPU runtime, or in a forked child. */
XRT_API xrt_status xrt__forbidden_fail(const char *fn)
{
    const char *name = xrt__tls.forbidden_by ? xrt__tls.forbidden_by : "?";
    char refusal[512];
    if (!xrt__call.registered && xrt__call.exits)
        return xrt_error(XRT_ERROR_NOT_PERMITTED, fn, "called from the last round of thread-exit destructors, "
                         "after xrt released the thread's state");
    if (xrt__tls.host_fn == XRT__HOST_FN_CALLBACK)
        return xrt_error(XRT_ERROR_NOT_PERMITTED, fn, "called from a stream callback: it may call no xrt function, "
                         "as CUDA's callbacks may make no CUDA call");
    if (xrt__tls.host_fn)
        return xrt_error(XRT_ERROR_NOT_PERMITTED, fn, "called from a host function: the %s runtime forbids runtime calls there",
                         name);
    xrt__fork_refusal(name, refusal, sizeof refusal);
    return xrt_error(XRT_ERROR_NOT_PERMITTED, fn, "%s", refusal);
}
/* Whether the calling thread is refused now, as far as its state tells
   without taking a lock: xrt_error's check. An entry point that succeeds
   without its backend asks xrt__refuse instead. */
XRT_API int xrt__refused(void)
{
    return xrt__tls.be == &xrt__forbidden_backend &&
           (xrt__tls.host_fn || (!xrt__call.registered && xrt__call.exits) ||
            xrt__tls.gen == __atomic_load_n(&xrt__gen, __ATOMIC_ACQUIRE));
}

/* The refusal for an entry point that answers without its backend (backend
   listing, pointer attributes, no-ops): XRT_SUCCESS where the thread may
   call. Not under a lock (it may select the thread's backend). */
static xrt_status xrt__refuse(const char *fn)
{
    const xrt_backend *b = xrt__tls.host_fn ? xrt__tls.be : xrt__be();
    return b == &xrt__forbidden_backend ? xrt__forbidden_fail(fn) : XRT_SUCCESS;
}

XRT_API xrt_status xrt__no_op(const xrt_backend *b, const char *fn)
{
    return b == &xrt__forbidden_backend ? xrt__forbidden_fail(fn) : XRT_SUCCESS;
}

#define XRT__FORBIDDEN_STUB(op, params, args) \
    static xrt_status xrt__forbidden_##op params { return xrt__forbidden_fail("xrt_" #op); }
XRT__BACKEND_OPS(XRT__FORBIDDEN_STUB)
#undef XRT__FORBIDDEN_STUB
#pragma GCC diagnostic pop

static void xrt__fill_unsupported(xrt_backend *t)
{
#define XRT__FILL(op, params, args) if (!t->op) t->op = xrt__unsupported_##op;
    XRT__BACKEND_OPS(XRT__FILL)
#undef XRT__FILL
}

/* Each capability and the operations it promises: a bit whose operations
   the table lacks (the unsupported stub) is cleared from what the backend
   reports, so that xrt_get_capabilities never promises a call that answers
   XRT_ERROR_UNSUPPORTED. */
#define XRT__CAP_OPS(X)                                                                                                \
    X(XRT_CAP_PINNED_HOST, "pinned_host", malloc_host) X(XRT_CAP_PINNED_HOST, "pinned_host", free_host)                   \
    X(XRT_CAP_MALLOC_ASYNC, "malloc_async", malloc_async) X(XRT_CAP_MALLOC_ASYNC, "malloc_async", free_async)             \
    X(XRT_CAP_HOST_FUNC, "host_func", launch_host_func) X(XRT_CAP_EVENT_TIMING, "event_timing", event_elapsed_time)     \
    X(XRT_CAP_NATIVE_HANDLES, "native_handles", stream_get_native)                                                     \
    X(XRT_CAP_NATIVE_HANDLES, "native_handles", event_get_native)                                                      \
    X(XRT_CAP_NATIVE_HANDLES, "native_handles", stream_wrap_native) X(XRT_CAP_MODULES, "modules", module_load)           \
    X(XRT_CAP_MODULES, "modules", module_unload) X(XRT_CAP_MODULES, "modules", module_get_function)                     \
    X(XRT_CAP_MODULES, "modules", launch_kernel) X(XRT_CAP_GRAPHS, "graphs", stream_begin_capture)                      \
    X(XRT_CAP_GRAPHS, "graphs", stream_end_capture) X(XRT_CAP_GRAPHS, "graphs", graph_instantiate)                      \
    X(XRT_CAP_GRAPHS, "graphs", graph_launch) X(XRT_CAP_GRAPHS, "graphs", graph_exec_destroy)                           \
    X(XRT_CAP_GRAPHS, "graphs", graph_destroy)

static unsigned xrt__caps_lacking(const xrt_backend *t)
{
    unsigned lacks = 0;
#define XRT__LACKS(cap, word, op) if (t->op == xrt__unsupported_##op) lacks |= (unsigned)cap;
    XRT__CAP_OPS(XRT__LACKS)
#undef XRT__LACKS
    return lacks;
}

/* A registered table's get_capabilities where the table lacks a capability's
   operations: the backend's answer without those bits, and one warning the
   first time it claims one. */
static xrt_status xrt__caps_checked(const xrt_backend *self, unsigned *caps)
{
    xrt__reg_entry *e = (xrt__reg_entry *)(uintptr_t)self; /* an entry is used as its table */
    xrt_status st = e->get_capabilities(self, caps);
    unsigned claimed = st == XRT_SUCCESS ? *caps & e->lacks : 0, last = 0;
    char words[160] = "";
    size_t used = 0;
    if (!claimed) return st;
    *caps &= ~e->lacks;
    if (__atomic_exchange_n(&e->caps_warned, 1, __ATOMIC_RELAXED)) return st;
#define XRT__NAME_BIT(cap, word, op)                                                                                   \
    if ((claimed & (unsigned)cap) && last != (unsigned)cap && used < sizeof words)                                    \
        used += (size_t)snprintf(words + used, sizeof words - used, " %s", word), last = (unsigned)cap;
    XRT__CAP_OPS(XRT__NAME_BIT)
#undef XRT__NAME_BIT
    xrt_log(XRT_LOG_WARN, "%.64s: get_capabilities reports operations the backend does not have:%s (cleared)", self->name,
            words);
    return st;
}

static void xrt__fill_special(void)
{
    xrt_backend *n = &xrt__none_backend, *f = &xrt__forbidden_backend;
    n->abi_version = f->abi_version = XRT_BACKEND_ABI_VERSION;
    n->size = f->size = sizeof(xrt_backend);
    n->name = "none";
    f->name = "forbidden";
#define XRT__FILL(op, params, args) n->op = xrt__none_##op; f->op = xrt__forbidden_##op;
    XRT__BACKEND_OPS(XRT__FILL)
#undef XRT__FILL
}

static xrt_status xrt__reg_add_locked(const xrt_backend *b)
{
    xrt__reg_entry *e;
    int i;
    if (!b || !b->name || !b->name[0] || !b->init)
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_register_backend", "backend needs a name and an init function");
    if (b->abi_version != XRT_BACKEND_ABI_VERSION)
        return xrt_error(XRT_ERROR_ABI_MISMATCH, "xrt_register_backend", "%.64s: ABI version %u, expected %u",
                         b->name, b->abi_version, XRT_BACKEND_ABI_VERSION);
    if (b->size < offsetof(xrt_backend, get_capabilities) || b->size > sizeof(xrt_backend))
        return xrt_error(XRT_ERROR_ABI_MISMATCH, "xrt_register_backend", "%.64s: table size %u, expected at most %u",
                         b->name, b->size, (unsigned)sizeof(xrt_backend));
    if ((b->size - offsetof(xrt_backend, get_capabilities)) % sizeof b->get_capabilities)
        return xrt_error(XRT_ERROR_ABI_MISMATCH, "xrt_register_backend",
                         "%.64s: table size %u ends inside an operation's slot", b->name, b->size);
    if (strlen(b->name) >= XRT__NAME_MAX)
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_register_backend", "%.64s...: name longer than %d characters",
                         b->name, XRT__NAME_MAX - 1);
    for (i = 0; i < xrt__reg_count; i++)
        if (strcasecmp(xrt__reg_entries[i].t.name, b->name) == 0)
            return xrt_error(XRT_ERROR_ALREADY_EXISTS, "xrt_register_backend", "a backend named %.64s is registered",
                             b->name);
    if (xrt__reg_count == XRT_MAX_BACKENDS)
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "xrt_register_backend", "at most %d backends", XRT_MAX_BACKENDS);
    e = &xrt__reg_entries[xrt__reg_count];
    memset(e, 0, sizeof *e);
    memcpy(&e->t, b, b->size);
    e->t.size = sizeof(xrt_backend);
    memcpy(e->name, b->name, strlen(b->name) + 1);
    e->t.name = e->name;
    xrt__fill_unsupported(&e->t);
    if ((e->lacks = xrt__caps_lacking(&e->t)) != 0 && e->t.get_capabilities != xrt__unsupported_get_capabilities) {
        e->get_capabilities = e->t.get_capabilities;
        e->t.get_capabilities = xrt__caps_checked;
    }
    __atomic_store_n(&xrt__reg_count, xrt__reg_count + 1, __ATOMIC_RELEASE); /* xrt__bhandle_entry reads it unlocked */
    return XRT_SUCCESS;
}

/* A backend's init runs once; while it runs (a plugin's init may look other
   backends up) the backend counts as unavailable. In a forked child, a
   backend that does not survive fork() is not probed at all. */
static xrt_status xrt__reg_probe_locked(xrt__reg_entry *e)
{
    if (!e->probed) {
        e->probed = 1;
        e->probe_status = XRT_ERROR_BACKEND_UNAVAILABLE;
        snprintf(e->reason, sizeof e->reason, "its init is running");
        if (xrt__reg_forked && !(e->t.flags & XRT_BACKEND_FORK_SAFE)) {
            xrt__fork_refusal(e->t.name, e->reason, sizeof e->reason);
            return e->probe_status;
        }
        e->reason[0] = 0;
        e->library[0] = 0;
        e->runtime_version = e->driver_version = 0;
        e->probe_status = e->t.init(&e->t, e->reason, sizeof e->reason);
        e->probed = e->probe_status != XRT_ERROR_OUT_OF_MEMORY; /* transient: probed again when next needed */
        if (e->probe_status != XRT_SUCCESS) {
            if (!e->reason[0]) snprintf(e->reason, sizeof e->reason, "%s", xrt_status_string(e->probe_status));
            xrt_log(XRT_LOG_INFO, "%.64s: unavailable: %s", e->t.name, e->reason);
        } else {
            xrt_log(XRT_LOG_DEBUG, "%.64s: available", e->t.name);
        }
    }
    return e->probe_status;
}

/* Names match without regard to case, as XRT_LOG's levels do. */
static xrt__reg_entry *xrt__reg_find_locked(const char *name, size_t len)
{
    int i;
    for (i = 0; i < xrt__reg_count; i++)
        if (strlen(xrt__reg_entries[i].t.name) == len && strncasecmp(xrt__reg_entries[i].t.name, name, len) == 0)
            return &xrt__reg_entries[i];
    return NULL;
}

static void xrt__reg_names_locked(char *out, size_t n)
{
    int i;
    size_t used = 0;
    out[0] = 0;
    for (i = 0; i < xrt__reg_count && used < n; i++)
        used += (size_t)snprintf(out + used, n - used, "%s%.64s", i ? ", " : "", xrt__reg_entries[i].t.name);
}

/* What asking for a backend whose probe failed answers: no device and out
   of memory say so; any other failure is "unavailable". */
static xrt_status xrt__reg_unavailable(xrt_status probe)
{
    return probe == XRT_ERROR_NO_DEVICE || probe == XRT_ERROR_OUT_OF_MEMORY ? probe : XRT_ERROR_BACKEND_UNAVAILABLE;
}

/* The next entry of a comma-separated list, without surrounding blanks;
   returns where the one after it starts. */
static const char *xrt__reg_next_name(const char *p, const char **name, size_t *len)
{
    size_t n = strcspn(p, ",");
    const char *end = p + n;
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    while (end > p && (end[-1] == ' ' || end[-1] == '\t')) end--;
    *name = p;
    *len = (size_t)(end - p);
    p += strcspn(p, ",");
    return *p ? p + 1 : p;
}

/* XRT_BACKEND: a name or a comma-separated priority list; the first available
   wins. An unknown name is an error wherever it stands, so that a typo is
   reported even on a machine where an earlier entry happens to be available. */
static xrt_status xrt__reg_select_env_locked(const char *list)
{
    char names[256];
    const char *p, *name;
    size_t len;
    xrt__reg_entry *e, *last = NULL;
    int count = 0;
    for (p = list; *p;) {
        p = xrt__reg_next_name(p, &name, &len);
        if (len && !xrt__reg_find_locked(name, len)) {
            xrt__reg_names_locked(names, sizeof names);
            snprintf(xrt__reg_reason, sizeof xrt__reg_reason, "XRT_BACKEND=%.128s: unknown backend '%.*s' (valid: %s)",
                     list, (int)(len < 64 ? len : 64), name, names);
            return XRT_ERROR_NOT_FOUND;
        }
    }
    for (p = list; *p;) {
        p = xrt__reg_next_name(p, &name, &len);
        if (!len) continue; /* an empty entry (", cpu", "cpu,,hip") is skipped */
        e = xrt__reg_find_locked(name, len);
        if (xrt__reg_probe_locked(e) == XRT_SUCCESS) {
            xrt__reg_default = &e->t;
            xrt_log(XRT_LOG_DEBUG, "default backend %.64s: the first available in XRT_BACKEND=%.128s", e->t.name, list);
            return XRT_SUCCESS;
        }
        last = e;
        count++;
    }
    if (!last) return XRT_ERROR_BACKEND_UNAVAILABLE; /* only commas and blanks: treated as unset by the caller */
    snprintf(xrt__reg_reason, sizeof xrt__reg_reason, "XRT_BACKEND=%.128s: %s%.64s: unavailable: %s", list,
             count > 1 ? "none available; last: " : "", last->t.name, last->reason);
    return xrt__reg_unavailable(last->probe_status);
}

/* "no backend available: cuda: <why>; hip: <why>; cpu: <why>", in the order
   they were tried, cut to the reason's room. */
static void xrt__reg_unavailable_locked(void)
{
    size_t at = (size_t)snprintf(xrt__reg_reason, sizeof xrt__reg_reason, "no backend available%s",
                                 xrt__reg_count ? ":" : " (none is built in or registered)");
    int i;
    for (i = 0; i < xrt__reg_count && at < sizeof xrt__reg_reason; i++)
        at += (size_t)snprintf(xrt__reg_reason + at, sizeof xrt__reg_reason - at, "%s %s: %s", i ? ";" : "",
                               xrt__reg_entries[i].t.name, xrt__reg_entries[i].reason);
}

/* Why entry `chosen` is the default: the ones before it were unavailable. */
static void xrt__reg_log_choice(int chosen)
{
    char order[256] = "";
    size_t used = 0;
    int i;
    for (i = 0; i < xrt__reg_count && used < sizeof order; i++)
        used += (size_t)snprintf(order + used, sizeof order - used, "%s%.32s", i ? ", " : "", xrt__reg_entries[i].t.name);
    xrt_log(XRT_LOG_DEBUG, "default backend %.64s: the first available of %s (XRT_BACKEND unset)",
            xrt__reg_entries[chosen].t.name, order);
}

static int xrt__reg_blank(const char *s) { return s[strspn(s, " \t,")] == 0; }

static xrt_status xrt__reg_select_locked(void)
{
    const char *env = getenv("XRT_BACKEND");
    xrt__reg_entry *oom = NULL;
    int i;
    xrt__reg_default = &xrt__none_backend;
    if (env && !xrt__reg_blank(env)) return xrt__reg_select_env_locked(env); /* blank means unset */
    for (i = 0; i < xrt__reg_count; i++) {
        xrt_status st = xrt__reg_probe_locked(&xrt__reg_entries[i]);
        if (st == XRT_SUCCESS) {
            xrt__reg_default = &xrt__reg_entries[i].t;
            if (xrt__log_would(XRT_LOG_DEBUG)) xrt__reg_log_choice(i);
            return XRT_SUCCESS;
        }
        if (st == XRT_ERROR_OUT_OF_MEMORY && !oom) oom = &xrt__reg_entries[i];
    }
    if (oom) { /* the answer may change: say why, and select again next time */
        snprintf(xrt__reg_reason, sizeof xrt__reg_reason, "no backend available: %.64s: %s", oom->t.name, oom->reason);
        return XRT_ERROR_OUT_OF_MEMORY;
    }
    xrt__reg_unavailable_locked();
    return XRT_ERROR_BACKEND_UNAVAILABLE;
}

/* Selecting again, where there is no default yet: a backend just registered
   or loaded may be the first usable one, and a probe that ran out of memory
   may succeed now. A new default steps the generation by 2 (it stays even:
   initialised), so that every thread looks its backend up again; threads'
   own choices survive. */
static void xrt__reg_select_again_locked(void)
{
    if (xrt__reg_default != &xrt__none_backend) return;
    xrt__reg_status = xrt__reg_select_locked();
    if (xrt__reg_status == XRT_SUCCESS) __atomic_store_n(&xrt__gen, xrt__gen + 2, __ATOMIC_RELEASE);
}

/* >> impl: kernel building (xrt_cache.h): the kernel cache and the C compiler
   driver, after the utilities they use, before the backends that use them */
#include "xrt_cache.h"

/* >> impl: picking a module image for the device */
XRT__BACKEND_HELPER const char *xrt__image_kind_name(xrt_image_kind k)
{
    static const char *const names[] = {"?", "cpu shared object", "cpu C source", "cuda cubin", "cuda ptx",
                                        "cuda fatbin", "hip code object", "hip offload bundle"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

/* The image to load on a device of target t among those of the kinds in
   `kinds` (bit 1 << kind): one labelled exactly the device's arch first,
   then the one `compatible` ranks highest (the first of equals), then one
   with no arch. `compatible` (NULL: none) ranks an image for t: > 0 it
   runs there, the higher the better fit; 0 not by compatibility (its label
   still counts); < 0 the backend read it and it does not run there, so it
   is passed over whatever its label. */
XRT__BACKEND_HELPER int xrt__image_fits(const xrt_target *t, const xrt_module_image *im, int pass,
                                        int (*compatible)(const xrt_target *t, const xrt_module_image *im))
{
    const char *a = im->arch ? im->arch : "";
    int in_pass = pass == 0 ? a[0] && !strcmp(a, t->arch) : pass == 1 ? a[0] && compatible : !a[0];
    int fit = in_pass && compatible ? compatible(t, im) : 0;
    return !in_pass || (pass == 1 && fit == 0) ? -1 : fit;
}

/* The words of XRT_ERROR_NO_BINARY_FOR_DEVICE: the device (with its
   features, where a backend judges images by them) and each image offered. */
XRT__BACKEND_HELPER xrt_status xrt__image_none(const char *who, const xrt_target *t, const xrt_module_image *im,
                                               size_t n, int (*compatible)(const xrt_target *t, const xrt_module_image *im))
{
    char offered[512] = "";
    size_t i, used = 0;
    for (i = 0; i < n && used + 1 < sizeof offered; i++) {
        int w = snprintf(offered + used, sizeof offered - used, "%s%s %s", i ? ", " : "", xrt__image_kind_name(im[i].kind),
                         im[i].arch && im[i].arch[0] ? im[i].arch : "(any arch)");
        if (w < 0) break;
        used += (size_t)w < sizeof offered - used ? (size_t)w : sizeof offered - used - 1;
    }
    return xrt_error(XRT_ERROR_NO_BINARY_FOR_DEVICE, who, "no image for %s arch %s%s%s among the %zu offered: %s",
                     t->backend, t->arch, compatible && t->features[0] ? " with " : "", compatible ? t->features : "", n,
                     offered);
}

XRT__BACKEND_HELPER xrt_status xrt__image_pick(const char *who, const xrt_target *t, const xrt_module_image *im, size_t n,
                                  unsigned kinds, int (*compatible)(const xrt_target *t, const xrt_module_image *im),
                                  size_t *pick)
{
    size_t i;
    int pass, fit, best;
    for (pass = 0; pass < 3; pass++) {
        for (i = 0, best = -1; i < n; i++) {
            if (!(kinds & (1u << im[i].kind)) || (fit = xrt__image_fits(t, &im[i], pass, compatible)) <= best) continue;
            *pick = i, best = fit;
            if (pass != 1) return XRT_SUCCESS; /* the label decides: the first that may run */
        }
        if (best >= 0) return XRT_SUCCESS;
    }
    return xrt__image_none(who, t, im, n, compatible);
}

/* >> impl: pointer registry: the device of a new allocation. A GPU backend
   asks its runtime for the current device as it allocates; it leaves the
   answer here for the registry's record of that allocation, made next in the
   same call on the same thread, which then does not ask the runtime again
   (a runtime call costs 40-60 ns). The record takes it only for the same
   pointer and always clears it. */
static XRT__TLS struct { const void *p; int device; } xrt__mem_new;

static inline void xrt__mem_note_device(const void *p, int device)
{
    xrt__mem_new.p = p;
    xrt__mem_new.device = device;
}

/* >> impl: the built-in backends (xrt_cuda.h, xrt_hip.h, xrt_cpu.h: they include
   vendor headers, so outside extern "C") */
#ifdef __cplusplus
}
#endif
#ifdef XRT_ENABLE_CUDA
#include "xrt_cuda.h"
#endif
#ifdef XRT_ENABLE_HIP
#include "xrt_hip.h"
#endif
#ifdef XRT_ENABLE_CPU
#include "xrt_cpu.h"
#endif
#ifdef __cplusplus
extern "C" {
#endif

/* Built-in backends in auto-selection order; each header defines a function
   that fills its table by name. A built-in backend that this build does not
   enable is still listed, as unavailable, so that XRT_BACKEND=cuda,cpu means
   the same in every build. */
#ifdef XRT_ENABLE_CUDA
#define XRT__CUDA_FILL xrt__cuda_fill
#else
#define XRT__CUDA_FILL NULL
#endif
#ifdef XRT_ENABLE_HIP
#define XRT__HIP_FILL xrt__hip_fill
#else
#define XRT__HIP_FILL NULL
#endif
#ifdef XRT_ENABLE_CPU
#define XRT__CPU_FILL xrt__cpu_fill
#else
#define XRT__CPU_FILL NULL
#endif

typedef struct xrt__reg_builtin {
    const char *name;
    void (*fill)(xrt_backend *t);
    const char *macro;
    uint32_t memory; /* XRT_BACKEND_*_MEMORY: what its memory is */
} xrt__reg_builtin;
static const xrt__reg_builtin xrt__reg_builtins[] = {
    {"cuda", XRT__CUDA_FILL, "XRT_ENABLE_CUDA", XRT_BACKEND_NVIDIA_MEMORY},
    {"hip", XRT__HIP_FILL, "XRT_ENABLE_HIP", XRT_BACKEND_AMD_MEMORY},
    {"cpu", XRT__CPU_FILL, "XRT_ENABLE_CPU", XRT_BACKEND_HOST_MEMORY},
};

static xrt_status xrt__disabled_init(const xrt_backend *self, char *reason, size_t n)
{
    (void)self;
    snprintf(reason, n, "not enabled in this build");
    return XRT_ERROR_BACKEND_UNAVAILABLE;
}

/* A built-in table as its backend fills it, before the registry fills any
   gap; NULL slots here are a bug (tests/test_registry.c checks). */
XRT_API int xrt__builtin_table(const char *name, xrt_backend *t)
{
    size_t i;
    memset(t, 0, sizeof *t);
    t->abi_version = XRT_BACKEND_ABI_VERSION;
    t->size = sizeof *t;
    for (i = 0; i < sizeof xrt__reg_builtins / sizeof xrt__reg_builtins[0]; i++)
        if (strcmp(xrt__reg_builtins[i].name, name) == 0 && xrt__reg_builtins[i].fill) {
            xrt__reg_builtins[i].fill(t);
            t->flags |= xrt__reg_builtins[i].memory;
            return 1;
        }
    return 0;
}

static void xrt__reg_add_builtin_locked(const xrt__reg_builtin *b)
{
    xrt_backend t;
    xrt__reg_entry *e;
    if (xrt__builtin_table(b->name, &t)) {
        xrt__reg_add_locked(&t);
        return;
    }
    t.name = b->name;
    t.init = xrt__disabled_init;
    if (xrt__reg_add_locked(&t) != XRT_SUCCESS) return;
    e = &xrt__reg_entries[xrt__reg_count - 1];
    e->probed = 1; /* known now: no probe, no log line */
    e->probe_status = XRT_ERROR_BACKEND_UNAVAILABLE;
    if (!strcmp(b->name, "cpu"))
        snprintf(e->reason, sizeof e->reason, "left out of this build (XRT_DISABLE_CPU in the XRT_IMPL unit)");
    else
        snprintf(e->reason, sizeof e->reason, "not enabled in this build (define %s in the XRT_IMPL unit)", b->macro);
}

/* >> impl: plugins. A plugin is tried once per process: its outcome, and on
   success its table, are kept, so that every init registers it again and
   neither XRT_PLUGINS nor a repeated xrt_load_plugin loads it twice. The
   shared object is opened with RTLD_NODELETE and never closed: its code
   stays mapped while any handle, pointer or thread of it may be live. */
#define XRT__PLUGIN_MAX 16
typedef struct xrt__plugin {
    char path[256];
    char real[4096]; /* the file a path with a slash names (realpath), else "" */
    int loaded;
    xrt_backend table;
    char reason[256];
    const char *origin; /* what named it: "XRT_PLUGINS", "XRT_PLUGIN_PATH", "xrt_load_plugin" */
} xrt__plugin;
static xrt__plugin xrt__plugins[XRT__PLUGIN_MAX];
static int xrt__plugin_count;

static const xrt_backend *xrt__plugin_find_backend(const char *name)
{
    xrt__reg_entry *e;
    int held = xrt__err.reg_held > 0; /* from a plugin's init, under the registry's lock */
    if (!name) return NULL;
    if (!held) xrt__lock(&xrt__reg_lock);
    e = xrt__reg_find_locked(name, strlen(name));
    if (e && xrt__reg_probe_locked(e) != XRT_SUCCESS) e = NULL;
    if (!held) xrt__unlock(&xrt__reg_lock);
    return e ? &e->t : NULL;
}

/* host->own_call: xrt's own questions of a backend are its quiet sections. */
static int xrt__plugin_own_call(void) { return xrt__err.quiet > 0; }

/* host->wraps: the registry's copy of self takes target's memory kind (the
   flags the dispatch layer and xrt_rdma.h read), its other flags stay, and
   its device allocations count against target's devices. Only
   from an init, under the registry's lock, before anyone can use self: a
   later change would race with the calls that read the flags unlocked. */
static xrt_status xrt__plugin_wraps(const xrt_backend *self, const xrt_backend *target)
{
    const uint32_t memory = XRT_BACKEND_HOST_MEMORY | XRT_BACKEND_NVIDIA_MEMORY | XRT_BACKEND_AMD_MEMORY;
    int i;
    if (!target) return xrt_error(XRT_ERROR_INVALID_VALUE, "host->wraps", "target is NULL");
    if (xrt__err.reg_held == 0)
        return xrt_error(XRT_ERROR_NOT_PERMITTED, "host->wraps", "only from the plugin's init");
    for (i = 0; i < xrt__reg_count; i++) {
        xrt_backend *t = &xrt__reg_entries[i].t;
        if (t != self) continue;
        t->flags = (t->flags & ~memory) | (target->flags & memory);
        xrt__reg_entries[i].memory_of = target; /* its allocations count as target's (xrt__mem_owner) */
        return XRT_SUCCESS;
    }
    return xrt_error(XRT_ERROR_INVALID_VALUE, "host->wraps", "%p is no registered backend's table", (const void *)self);
}

/* xrt__host_fn_run: declared with the dispatch layer, defined with the lifecycle. */
static const xrt_plugin_host xrt__plugin_host = {
    XRT_BACKEND_ABI_VERSION, sizeof(xrt_plugin_host), xrt_error, xrt_native_error, xrt_log,
    xrt_get_last_error_string, xrt__plugin_find_backend, xrt__host_fn_run, xrt__set_error_observer,
    xrt_check_set_race_observer, xrt__plugin_own_call, xrt__plugin_wraps,
};

/* The file `path` names, when it has a slash (a soname is looked up by the
   loader, so only its text can be compared). */
static void xrt__plugin_real(const char *path, char *real)
{
    real[0] = 0;
    if (strchr(path, '/') && !realpath(path, real)) real[0] = 0;
}

/* One file named two ways (./a.so, dir/../a.so) is one plugin. */
static xrt__plugin *xrt__plugin_find_locked(const char *path, const char *real)
{
    int i;
    for (i = 0; i < xrt__plugin_count; i++)
        if (strcmp(xrt__plugins[i].path, path) == 0 || (real[0] && strcmp(xrt__plugins[i].real, real) == 0))
            return &xrt__plugins[i];
    return NULL;
}

/* At debug level: which file a plugin is and the backend it gave. */
static void xrt__plugin_log(const xrt__plugin *pl)
{
    xrt_log(XRT_LOG_DEBUG, "plugin %s: loaded %s: backend %.64s", pl->path, pl->real[0] ? pl->real : pl->path,
            pl->table.name);
}

/* Where a plugin fills its table: a plugin built against a later, larger
   table may write all of it before xrt can see its ABI version, so it gets
   room for a table many times the size of this one (under the registry's
   lock). */
static union {
    xrt_backend t;
    unsigned char room[16 * sizeof(xrt_backend)];
} xrt__plugin_room;

/* Opens the object, has it fill its table and registers that; on failure
   writes why. */

static int xrt__plugin_open(xrt__plugin *pl)
{
    xrt_plugin_register_fn reg;
    void *lib = dlopen(pl->path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE), *sym;
    xrt_status st;
    if (!lib) {
        snprintf(pl->reason, sizeof pl->reason, "cannot load: %s", dlerror());
        return 0;
    }
    if (!(sym = dlsym(lib, XRT_PLUGIN_SYMBOL))) {
        snprintf(pl->reason, sizeof pl->reason, "no function %s in it", XRT_PLUGIN_SYMBOL);
        return 0;
    }
    memcpy(&reg, &sym, sizeof reg);
    memset(&xrt__plugin_room, 0, sizeof xrt__plugin_room);
    xrt__err.detail[0] = 0;
    if ((st = reg(&xrt__plugin_host, &xrt__plugin_room.t)) != XRT_SUCCESS) {
        snprintf(pl->reason, sizeof pl->reason, "%s failed: %s%s%.160s", XRT_PLUGIN_SYMBOL, xrt_status_string(st),
                 xrt__err.detail[0] ? ": " : "", xrt__err.detail);
        return 0;
    }
    if (xrt__reg_add_locked(&xrt__plugin_room.t) != XRT_SUCCESS) { /* ABI version, size, name */
        snprintf(pl->reason, sizeof pl->reason, "%.200s", xrt__err.detail);
        return 0;
    }
    memcpy(&pl->table, &xrt__plugin_room.t, sizeof pl->table); /* its size is checked: at most ours */
    xrt__plugin_log(pl);
    return 1;
}

/* xrt__plugin_open with the errors recorded meanwhile (the plugin's own,
   through host->error, or the registry's) kept as the reason only: not
   logged, not dropped by an enclosing quiet section, and the thread's last
   error left as it was. */
static int xrt__plugin_open_captured(xrt__plugin *pl)
{
    xrt__err_kept kept;
    int quiet = xrt__err.quiet, ok;
    xrt__err_keep(&kept);
    xrt__err.quiet = 0;
    xrt__err.capture++;
    ok = xrt__plugin_open(pl);
    xrt__err.capture--;
    xrt__err.quiet = quiet;
    xrt__err_put_back(&kept);
    return ok;
}

/* Loads `path` unless it was tried before; registers its backend. */
static xrt_status xrt__plugin_load_locked(const char *path, const char *origin, xrt__plugin **out)
{
    static char real[sizeof xrt__plugins[0].real]; /* under the registry's lock */
    xrt__plugin *pl;
    xrt__plugin_real(path, real);
    *out = pl = xrt__plugin_find_locked(path, real);
    if (pl) return pl->loaded ? XRT_SUCCESS : XRT_ERROR_BACKEND_UNAVAILABLE;
    if (xrt__plugin_count == XRT__PLUGIN_MAX) return XRT_ERROR_OUT_OF_MEMORY;
    *out = pl = &xrt__plugins[xrt__plugin_count++];
    snprintf(pl->path, sizeof pl->path, "%s", path);
    memcpy(pl->real, real, sizeof real);
    pl->origin = origin;
    pl->loaded = xrt__plugin_open_captured(pl);
    if (!pl->loaded) return XRT_ERROR_BACKEND_UNAVAILABLE;
    pl->reason[0] = 0;
    return XRT_SUCCESS;
}

/* >> impl: plugins found in directories (XRT_PLUGIN_PATH) */
/* Code is loaded only from what this user or root owns and nobody else can
   write, as ssh reads a key. */
static int xrt__plugin_trusted(const struct stat *st)
{
    return (st->st_uid == geteuid() || st->st_uid == 0) && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* Why `path`, a directory on the way to a plugin directory (`last`: that
   one), lets another user change what is under it; NULL if it does not. One
   above may be root's with the sticky bit (as /tmp): there only the owner of
   an entry, this user or root as checked next, can rename it. */
static const char *xrt__plugin_dir_flaw(const char *path, int last, int *missing)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        *missing = errno == ENOENT;
        return strerror(errno);
    }
    if (S_ISLNK(st.st_mode)) return "a symbolic link";
    if (!S_ISDIR(st.st_mode)) return "not a directory";
    if (xrt__plugin_trusted(&st) || (!last && st.st_uid == 0 && (st.st_mode & S_ISVTX))) return NULL;
    return "owned by another user or writable by others";
}

/* 1 if nobody but this user and root can change what `dir` names, so that
   the file checked in it is the file loaded: every directory from / down
   to it (through the working directory when it is relative) passes
   xrt__plugin_dir_flaw; a symbolic link on the way is not followed. Else
   why in `why`, and 0, or -1 when a directory does not exist. */
static int xrt__plugin_dir_safe(const char *dir, char *why, size_t n)
{
    static char full[4096 + sizeof xrt__plugins[0].path]; /* under the registry's lock */
    const char *flaw;
    size_t len = 0, i;
    int missing = 0, last;
    char c;
    if (dir[0] != '/' && !getcwd(full, 4096)) {
        snprintf(why, n, "the working directory: %s", strerror(errno));
        return 0;
    }
    if (dir[0] != '/') len = strlen(full);
    snprintf(full + len, sizeof full - len, "%s%s", len ? "/" : "", dir);
    len = strlen(full);
    if ((flaw = xrt__plugin_dir_flaw("/", full[strspn(full, "/")] == 0, &missing)) != NULL)
        snprintf(why, n, "/: %s", flaw);
    for (i = 1; !flaw && i <= len; i++) {
        if ((full[i] != '/' && full[i] != 0) || full[i - 1] == '/') continue;
        last = full[i + strspn(full + i, "/")] == 0;
        c = full[i];
        full[i] = 0;
        if ((flaw = xrt__plugin_dir_flaw(full, last, &missing)) != NULL)
            snprintf(why, n, "%.256s%s%s", last ? "" : full, last ? "" : ": ", flaw);
        full[i] = c;
    }
    return flaw ? (missing ? -1 : 0) : 1;
}

/* A shared object's name: ends in ".so" or has ".so." (a versioned soname); not hidden. */
static int xrt__plugin_so_name(const char *name)
{
    size_t n = strlen(name);
    return name[0] != '.' && ((n > 3 && strcmp(name + n - 3, ".so") == 0) || strstr(name, ".so.") != NULL);
}

static int xrt__plugin_name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether the file is to be loaded as a plugin: it exports the entry point
   (opened and closed again), or is an ELF object that does not open, which
   loading then reports as from XRT_PLUGINS. A file that cannot be read is
   a warning; one that is no ELF object or has no entry point is named, with
   why, in `skipped` (the directory's debug line). */
static int xrt__plugin_has_entry(const char *path, const char *name, char *skipped, size_t n)
{
    static const unsigned char elf[4] = {0x7f, 'E', 'L', 'F'};
    unsigned char head[sizeof elf];
    const char *why = "not a shared object";
    size_t len = strlen(skipped);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    void *lib;
    if (fd < 0) {
        xrt_log(XRT_LOG_WARN, "XRT_PLUGIN_PATH: %s skipped: cannot read it: %s", path, strerror(errno));
        return 0;
    }
    if (read(fd, head, sizeof head) == (ssize_t)sizeof head && memcmp(head, elf, sizeof elf) == 0) why = NULL;
    close(fd);
    if (!why) {
        if ((lib = dlopen(path, RTLD_LAZY | RTLD_LOCAL)) == NULL) return 1; /* loading says why, with dlerror */
        if (!dlsym(lib, XRT_PLUGIN_SYMBOL)) why = "no function " XRT_PLUGIN_SYMBOL;
        dlclose(lib);
    }
    if (why && len < n) snprintf(skipped + len, n - len, "%s%.64s (%s)", len ? ", " : "", name, why);
    return !why;
}

/* One entry of a directory (xrt__plugin_dir_safe): loaded unless tried
   before (also under another name); a symbolic link is not followed. */
static void xrt__plugin_path_one(const char *path, const char *name, char *skipped, size_t n)
{
    static char real[sizeof xrt__plugins[0].real]; /* under the registry's lock */
    struct stat st;
    xrt__plugin *pl;
    int count = xrt__plugin_count;
    if (lstat(path, &st) != 0) return;
    if (S_ISLNK(st.st_mode)) {
        xrt_log(XRT_LOG_WARN, "XRT_PLUGIN_PATH: %s skipped: a symbolic link", path);
        return;
    }
    if (!S_ISREG(st.st_mode)) return;
    if (!xrt__plugin_trusted(&st)) {
        xrt_log(XRT_LOG_WARN, "XRT_PLUGIN_PATH: %s skipped: owned by another user or writable by others", path);
        return;
    }
    xrt__plugin_real(path, real);
    if (xrt__plugin_find_locked(path, real) || !xrt__plugin_has_entry(path, name, skipped, n)) return;
    if (xrt__plugin_load_locked(path, "XRT_PLUGIN_PATH", &pl) == XRT_SUCCESS) return;
    if (xrt__plugin_count > count) xrt_log(XRT_LOG_WARN, "plugin %s skipped: %s", pl->path, pl->reason);
    else xrt_log(XRT_LOG_WARN, "plugin %s skipped: at most %d plugins", path, XRT__PLUGIN_MAX);
}

/* The shared objects' names in a directory, sorted; NULL and *n 0 if none. */
static char **xrt__plugin_dir_names(DIR *d, size_t *n)
{
    char **names = NULL;
    size_t cap = 0;
    struct dirent *de;
    *n = 0;
    while ((de = readdir(d)) != NULL) {
        if (!xrt__plugin_so_name(de->d_name)) continue;
        if (*n == cap) {
            size_t more = cap ? 2 * cap : 16;
            char **bigger = (char **)realloc(names, more * sizeof *names);
            if (!bigger) break; /* out of memory: the names so far */
            names = bigger;
            cap = more;
        }
        if ((names[*n] = strdup(de->d_name)) != NULL) (*n)++;
    }
    if (names) qsort(names, *n, sizeof *names, xrt__plugin_name_cmp);
    return names;
}

/* A directory of XRT_PLUGIN_PATH: its shared objects in name order. */
static void xrt__plugin_dir_locked(const char *dir)
{
    char path[sizeof xrt__plugins[0].path], skipped[600], why[320];
    char **names;
    size_t n, i;
    int safe;
    DIR *d;
    if ((safe = xrt__plugin_dir_safe(dir, why, sizeof why)) <= 0) {
        xrt_log(safe < 0 ? XRT_LOG_DEBUG : XRT_LOG_WARN, "XRT_PLUGIN_PATH: %s skipped: %s", dir, why);
        return;
    }
    if ((d = opendir(dir)) == NULL) {
        xrt_log(XRT_LOG_WARN, "XRT_PLUGIN_PATH: %s skipped: cannot read it: %s", dir, strerror(errno));
        return;
    }
    names = xrt__plugin_dir_names(d, &n);
    closedir(d);
    skipped[0] = 0;
    for (i = 0; i < n; i++) {
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, names[i]) < sizeof path)
            xrt__plugin_path_one(path, names[i], skipped, sizeof skipped);
        else
            xrt_log(XRT_LOG_WARN, "XRT_PLUGIN_PATH: %s/%s skipped: path too long", dir, names[i]);
        free(names[i]);
    }
    free(names);
    /* one line a directory: lines logged during init wait, and only a few */
    if (skipped[0]) xrt_log(XRT_LOG_DEBUG, "XRT_PLUGIN_PATH: %s: skipped %s", dir, skipped);
}

/* XRT_PLUGIN_PATH: directories as PATH's, in order, after XRT_PLUGINS. */
static void xrt__plugin_path_locked(void)
{
    const char *env = xrt__getenv_code("XRT_PLUGIN_PATH"), *p;
    char dir[sizeof xrt__plugins[0].path];
    for (p = env; p && *p; p += strcspn(p, ":") + (p[strcspn(p, ":")] == ':')) {
        size_t len = strcspn(p, ":");
        if (len == 0) continue;
        if (len >= sizeof dir) {
            xrt_log(XRT_LOG_WARN, "XRT_PLUGIN_PATH: a directory of %zu characters skipped: too long", len);
            continue;
        }
        memcpy(dir, p, len);
        dir[len] = 0;
        xrt__plugin_dir_locked(dir);
    }
}

/* At init: the plugins loaded before register again, then XRT_PLUGINS; one
   that fails is logged once, as a warning (xrt_load_plugin returns the
   reason instead). */
static void xrt__plugin_init_locked(void)
{
    const char *env = xrt__getenv_code("XRT_PLUGINS"), *p;
    char path[sizeof xrt__plugins[0].path];
    xrt__plugin *pl;
    int i, n;
    for (i = 0; i < xrt__plugin_count; i++)
        if (xrt__plugins[i].loaded) {
            xrt__err.quiet++;
            xrt__reg_add_locked(&xrt__plugins[i].table);
            xrt__err.quiet--;
            xrt__plugin_log(&xrt__plugins[i]);
        }
    for (p = env; p && *p; p += strcspn(p, ":") + (p[strcspn(p, ":")] == ':')) {
        size_t len = strcspn(p, ":");
        if (len == 0 || len >= sizeof path) continue;
        memcpy(path, p, len);
        path[len] = 0;
        n = xrt__plugin_count;
        if (xrt__plugin_load_locked(path, "XRT_PLUGINS", &pl) != XRT_SUCCESS && xrt__plugin_count > n) /* tried just now */
            xrt_log(XRT_LOG_WARN, "plugin %s skipped: %s", pl->path, pl->reason);
    }
    if (env && *env) xrt_log(XRT_LOG_DEBUG, "XRT_PLUGINS=%.200s: %d plugin(s) tried", env, xrt__plugin_count);
    xrt__plugin_path_locked();
}

/* >> impl: compile targets */
XRT_API uint64_t xrt_target_fingerprint(const xrt_target *t)
{
    char width[16];
    const char *parts[4];
    uint64_t h = 0xcbf29ce484222325u; /* FNV-1a 64: fixed, so keys agree across builds */
    size_t i, j;
    if (!t) return 0;
    snprintf(width, sizeof width, "%d", t->vector_width);
    parts[0] = t->backend;
    parts[1] = t->arch;
    parts[2] = width;
    parts[3] = t->features;
    for (i = 0; i < 4; i++)
        for (j = 0; j <= strnlen(parts[i], 256); j++) { /* the terminating 0 separates fields */
            h ^= (unsigned char)(j < strnlen(parts[i], 256) ? parts[i][j] : 0);
            h *= 0x100000001b3u;
        }
    return h;
}

XRT_API xrt_status xrt_target_to_string(const xrt_target *t, char *buf, size_t size)
{
    int n;
    if (!t || !buf || size == 0)
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_target_to_string", "%s", !t ? "target is NULL" : "no buffer");
    n = snprintf(buf, size, "%s:%s:%d%s%s", t->backend, t->arch, t->vector_width, t->features[0] ? ":" : "",
                 t->features);
    if (n < 0 || (size_t)n >= size)
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_target_to_string", "buffer of %zu bytes is too small", size);
    return XRT_SUCCESS;
}

/* The backend fills arch, width and features, and may name itself: a
   forwarding plugin (the tracer) passes the call to the backend that runs
   the code, whose name the target carries, so the same machine code has
   one fingerprint however it is reached. Else xrt adds the backend's name;
   and the fingerprint. A backend without get_target (a custom one) gets a target
   made of its device properties' arch and warp size. */
XRT_API xrt_status xrt__target_get(const xrt_backend *b, xrt_target *t)
{
    xrt_device_prop p;
    int device = 0;
    xrt_status st;
    memset(t, 0, sizeof *t);
    if (b == &xrt__forbidden_backend) return xrt__forbidden_fail("xrt_get_target");
    st = b->get_device(b, &device);
    if (st == XRT_SUCCESS && b->get_target != xrt__unsupported_get_target) {
        st = b->get_target(b, device, t);
    } else if (st == XRT_SUCCESS && (st = b->get_device_properties(b, &p, device)) == XRT_SUCCESS) {
        snprintf(t->arch, sizeof t->arch, "%s", p.arch);
        t->vector_width = p.warp_size;
    }
    if (st != XRT_SUCCESS) {
        memset(t, 0, sizeof *t);
        return st;
    }
    if (!t->backend[0]) snprintf(t->backend, sizeof t->backend, "%.15s", b->name); /* a forwarder's target named its own */
    t->backend[sizeof t->backend - 1] = 0;
    t->fingerprint = xrt_target_fingerprint(t);
    return XRT_SUCCESS;
}

/* >> impl: handle table. A create and a destroy take no lock in the common
   case: a thread hands out slots from its own cache of free ones
   (xrt__call_state.free_slots), refilled from and spilled to the table's
   free list under the lock a few at a time; a destroy releases a slot with
   a compare-and-swap of its tag, so of two destroys of one handle exactly
   one wins. */
#ifndef XRT_STATIC
xrt__handle_slot *xrt__handle_chunks[1u << (XRT__HANDLE_INDEX_BITS - XRT__HANDLE_CHUNK_BITS)];
xrt__handle_slot xrt__handle_null_stream;
int xrt__captures, xrt__graph_mems, xrt__captures_into, xrt__capture_graphs;
#endif
static uintptr_t xrt__handle_free_list = XRT__HANDLE_MAX; /* head of the free list, XRT__HANDLE_MAX = empty */
static uintptr_t xrt__handle_next;              /* first never-used index */

static xrt__handle_slot *xrt__handle_slot_at(uintptr_t i) { return &xrt__handle_chunks[i / XRT__HANDLE_CHUNK][i % XRT__HANDLE_CHUNK]; }
static uintptr_t xrt__handle_index(uintptr_t h) { return (h >> XRT__HANDLE_KIND_BITS) & (XRT__HANDLE_MAX - 1); }

static const char *xrt__handle_kind_name(uintptr_t kind)
{
    static const char *const names[] = {"handle", "stream", "event",      "module",
                                        "function", "graph", "graph exec", "graph node", "memory pool",
                                        "user object"};
    return kind < sizeof names / sizeof names[0] ? names[kind] : "handle";
}

/* A free slot keeps its generation in `tag` (kind bits 0, so no handle
   matches); on the table's free list, the next free index in `flags`. */
static int xrt__handle_alloc_index_locked(uintptr_t *index)
{
    uintptr_t i = xrt__handle_free_list;
    if (i != XRT__HANDLE_MAX) {
        xrt__handle_free_list = xrt__handle_slot_at(i)->flags;
    } else {
        if (xrt__handle_next == XRT__HANDLE_MAX) return 0;
        i = xrt__handle_next;
        if (!xrt__handle_chunks[i / XRT__HANDLE_CHUNK]) {
            xrt__handle_slot *c = (xrt__handle_slot *)XRT_CALLOC(XRT__HANDLE_CHUNK, sizeof *c);
            if (!c) return 0;
            __atomic_store_n(&xrt__handle_chunks[i / XRT__HANDLE_CHUNK], c, __ATOMIC_RELEASE);
        }
        xrt__handle_next++;
    }
    *index = i;
    return 1;
}

static void xrt__handle_free_locked(uintptr_t i)
{
    xrt__handle_slot_at(i)->flags = xrt__handle_free_list;
    xrt__handle_free_list = i;
}

/* A thread's cached slots back to the table down to `keep` (all at its exit,
   and, in a forked child, the other threads'). The thread itself stores the
   count after the slot it covers (release), so that a fork at any point
   leaves the child a cache without a stale entry (xrt__call_fork_child). */
static void xrt__handle_give_back_locked(struct xrt__call_state *c, unsigned keep)
{
    while (c->nfree > keep) {
        unsigned n = c->nfree - 1;
        __atomic_store_n(&c->nfree, n, __ATOMIC_RELEASE);
        xrt__handle_free_locked(c->free_slots[n]);
    }
}

/* The thread's cache is empty: one slot for this create and half a cache
   more, under one lock. A thread that is not registered would not give its
   cache back at exit: it takes one slot. */
static int xrt__handle_refill(uintptr_t *index) XRT__COLD;
static int xrt__handle_refill(uintptr_t *index)
{
    unsigned n = 0, want = xrt__call.registered ? XRT__HANDLE_CACHE / 2 : 0;
    uintptr_t i;
    int ok;
    xrt__lock(&xrt__handle_lock);
    ok = xrt__handle_alloc_index_locked(index);
    while (ok && n < want && xrt__handle_alloc_index_locked(&i)) {
        xrt__call.free_slots[n] = (uint32_t)i;
        __atomic_store_n(&xrt__call.nfree, ++n, __ATOMIC_RELEASE);
    }
    xrt__unlock(&xrt__handle_lock);
    return ok;
}

static xrt_status xrt__handle_full(uintptr_t kind) XRT__COLD;
static xrt_status xrt__handle_full(uintptr_t kind)
{
    return xrt_error(XRT_ERROR_OUT_OF_MEMORY, kind == XRT__HANDLE_STREAM  ? "xrt_stream_create"
                                              : kind == XRT__HANDLE_EVENT ? "xrt_event_create"
                                              : kind == XRT__HANDLE_MODULE ? "xrt_module_load"
                                              : kind == XRT__HANDLE_GRAPH ? "xrt_stream_end_capture"
                                              : kind == XRT__HANDLE_GRAPH_EXEC ? "xrt_graph_instantiate"
                                              : kind == XRT__HANDLE_GRAPH_NODE ? "xrt_graph_add_node"
                                              : kind == XRT__HANDLE_MEM_POOL ? "xrt_mem_pool_create"
                                              : kind == XRT__HANDLE_USER_OBJECT ? "xrt_user_object_create"
                                                                           : "xrt_module_get_function",
                     "no free handle (at most %lu live streams, events, modules, functions and graphs)",
                     (unsigned long)XRT__HANDLE_MAX);
}

/* The thread's cache is empty: a slot from the table (apart, so that the
   common case below needs no stack frame). */
static xrt_status xrt__handle_alloc_refill(const xrt_backend *b, void *obj, uintptr_t kind, int owned,
                                           uintptr_t *out) XRT__COLD;
static xrt_status xrt__handle_alloc_refill(const xrt_backend *b, void *obj, uintptr_t kind, int owned,
                                           uintptr_t *out)
{
    uintptr_t i;
    if (!xrt__handle_refill(&i)) return xrt__handle_full(kind);
    *out = xrt__handle_fill(b, obj, kind, owned, i);
    return XRT_SUCCESS;
}

XRT_API xrt_status xrt__handle_alloc(const xrt_backend *b, void *obj, uintptr_t kind, int owned, uintptr_t *out)
{
    unsigned n = xrt__call.nfree;
    if (XRT__UNLIKELY(n == 0)) return xrt__handle_alloc_refill(b, obj, kind, owned, out);
    xrt__call.nfree = n - 1;
    *out = xrt__handle_fill(b, obj, kind, owned, xrt__call.free_slots[n - 1]);
    return XRT_SUCCESS;
}

/* A created stream's slot keeps the device it was made on (its flags above
   XRT__HANDLE_OWNED, + 1; 0: not known, a wrapped native stream): the
   stream-order checker may first see a stream made before checking was on
   where another device is current, and the NULL stream's order is that of
   the stream's own device. Before the handle is returned: no other thread
   reads the slot yet. */
XRT_API void xrt__stream_keep_device(const xrt_backend *b, xrt_stream stream)
{
    xrt__handle_slot *s = xrt__handle_lookup(b, stream, XRT__HANDLE_STREAM);
    int d = -1, ok;
    xrt__err.quiet++;
    ok = b->get_device(b, &d) == XRT_SUCCESS;
    xrt__err.quiet--;
    if (s && ok && d >= 0) s->flags |= (uintptr_t)(d + 1) << XRT__HANDLE_DEVICE_SHIFT;
}

/* A released slot matches no handle (its kind bits are cleared, its
   generation kept) but keeps its object for calls that matched it before:
   it is reused only once they are done (xrt__handle_recycle). The tag's
   compare-and-swap makes one of two racing destroys the winner; a tag never
   comes back, so while it still equals h, the owner read before is h's. */
static int xrt__handle_release_slot(xrt__handle_slot *s, uintptr_t h)
{
    uintptr_t released = h & ~XRT__HANDLE_KIND_MASK;
    return __atomic_compare_exchange_n(&s->tag, &h, released, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

/* The released slot, for xrt__handle_retire; NULL if h is not a live
   handle of b or another destroy won it. */
static inline xrt__handle_slot *xrt__handle_release(const xrt_backend *b, uintptr_t h, void **obj, uintptr_t *flags)
{
    uintptr_t i = xrt__handle_index(h);
    xrt__handle_slot *c = __atomic_load_n(&xrt__handle_chunks[i / XRT__HANDLE_CHUNK], __ATOMIC_ACQUIRE), *s;
    if (!c || !(h & XRT__HANDLE_KIND_MASK)) return NULL;
    s = &c[i % XRT__HANDLE_CHUNK];
    if (__atomic_load_n(&s->tag, __ATOMIC_ACQUIRE) != h || __atomic_load_n(&s->owner, __ATOMIC_RELAXED) != b ||
        !xrt__handle_release_slot(s, h))
        return NULL;
    *obj = s->obj;
    *flags = s->flags;
    return s;
}

/* A released slot that no call can be using any more goes to the thread's
   cache; a full cache gives half of it back to the table. The slot keeps
   no object and no owner (scans read them). */
static inline void xrt__handle_clear(xrt__handle_slot *s)
{
    __atomic_store_n(&s->obj, (void *)NULL, __ATOMIC_RELAXED);
    __atomic_store_n(&s->owner, (const xrt_backend *)NULL, __ATOMIC_RELAXED);
}

static void xrt__handle_spill(xrt__handle_slot *s, uintptr_t h) XRT__COLD;
static void xrt__handle_spill(xrt__handle_slot *s, uintptr_t h)
{
    xrt__handle_clear(s);
    xrt__lock(&xrt__handle_lock);
    xrt__handle_free_locked(xrt__handle_index(h));
    xrt__handle_give_back_locked(&xrt__call, XRT__HANDLE_CACHE / 2);
    xrt__unlock(&xrt__handle_lock);
}

/* Slot s of h to the thread's cache, which has n < XRT__HANDLE_CACHE. */
static inline __attribute__((always_inline)) void xrt__handle_cache_put(xrt__handle_slot *s, uintptr_t h, unsigned n)
{
    xrt__handle_clear(s);
    xrt__call.free_slots[n] = (uint32_t)xrt__handle_index(h);
    __atomic_store_n(&xrt__call.nfree, n + 1, __ATOMIC_RELEASE); /* after the slot (a fork) */
}

static inline void xrt__handle_recycle(xrt__handle_slot *s, uintptr_t h)
{
    unsigned n = xrt__call.nfree;
    if (XRT__LIKELY(xrt__call.registered && n < XRT__HANDLE_CACHE)) xrt__handle_cache_put(s, h, n);
    else xrt__handle_spill(s, h);
}

/* The live handle of `obj` of this kind, owned by `owner` (NULL: any owner); 0 if none. */
static uintptr_t xrt__handle_scan(const xrt_backend *owner, const void *obj, uintptr_t kind)
{
    uintptr_t i, h = 0;
    xrt__lock(&xrt__handle_lock);
    for (i = 0; i < xrt__handle_next && !h; i++) {
        xrt__handle_slot *s = xrt__handle_slot_at(i);
        uintptr_t tag = __atomic_load_n(&s->tag, __ATOMIC_ACQUIRE);
        if ((tag & XRT__HANDLE_KIND_MASK) == kind && __atomic_load_n(&s->obj, __ATOMIC_RELAXED) == obj &&
            (!owner || __atomic_load_n(&s->owner, __ATOMIC_RELAXED) == owner))
            h = tag;
    }
    xrt__unlock(&xrt__handle_lock);
    return h;
}

XRT_API uintptr_t xrt__handle_of(const void *obj, uintptr_t kind) { return xrt__handle_scan(NULL, obj, kind); }

/* Held across the handle table's lock (a scan, then an alloc): fork's
   handlers take it (1; 0 lets it go) before that lock, so a child never
   inherits it held from a thread that waited for the table. */
static pthread_mutex_t xrt__pool_handle_lock = PTHREAD_MUTEX_INITIALIZER;
static void xrt__pool_handle_fork_hold(int hold) { (hold ? pthread_mutex_lock : pthread_mutex_unlock)(&xrt__pool_handle_lock); }

XRT_API xrt_status xrt__pool_handle(const xrt_backend *b, void *obj, xrt_mem_pool *out)
{
    uintptr_t h;
    xrt_status st = XRT_SUCCESS;
    pthread_mutex_lock(&xrt__pool_handle_lock); /* two first asks make one handle */
    h = xrt__handle_scan(b, obj, XRT__HANDLE_MEM_POOL); /* a plugin's handle of its backend's pool is another */
    if (!h) st = xrt__handle_alloc(b, obj, XRT__HANDLE_MEM_POOL, 0, &h);
    pthread_mutex_unlock(&xrt__pool_handle_lock);
    *out = st == XRT_SUCCESS ? (xrt_mem_pool)h : NULL;
    return st;
}

/* The per-thread stream's slot: the thread's, its object asked of the
   backend at each use (a thread-local load on the CPU, a constant on GPUs). */
static XRT__TLS xrt__handle_slot xrt__handle_per_thread;
static XRT__TLS xrt_status xrt__handle_per_thread_status; /* why it could not be made */

XRT_API xrt__handle_slot *xrt__handle_special_stream(const xrt_backend *b, xrt_stream s)
{
    xrt_status st;
    if (s != XRT_STREAM_PER_THREAD) return &xrt__handle_null_stream;
    if ((st = b->stream_per_thread(b, &xrt__handle_per_thread.obj)) != XRT_SUCCESS) {
        xrt__handle_per_thread_status = st;
        return NULL;
    }
    return &xrt__handle_per_thread;
}

/* The special streams: a destroy of either, or the per-thread one's failure
   to be made (already recorded); XRT_SUCCESS: neither (another call, or a
   value passed as another kind of handle). */
static xrt_status xrt__handle_bad_special(const char *fn, uintptr_t h)
{
    xrt_status st = XRT_SUCCESS;
    int per_thread = h == (uintptr_t)XRT_STREAM_PER_THREAD;
    if (strcmp(fn, "xrt_stream_destroy") == 0)
        return xrt_error(XRT_ERROR_INVALID_HANDLE, fn, "the %s stream (%s) cannot be destroyed",
                         per_thread ? "per-thread" : "legacy", per_thread ? "XRT_STREAM_PER_THREAD" : "XRT_STREAM_LEGACY");
    if (per_thread) {
        st = xrt__handle_per_thread_status;
        xrt__handle_per_thread_status = XRT_SUCCESS;
    }
    return st;
}

XRT_API xrt_status xrt__handle_bad(const char *fn, const void *handle)
{
    uintptr_t h = (uintptr_t)handle, kind = h & XRT__HANDLE_KIND_MASK;
    uintptr_t i = xrt__handle_index(h);
    const char *what = xrt__handle_kind_name(kind);
    const xrt_backend *owner = NULL;
    const char *why = "was never created";
    xrt_status st;
    if ((h == (uintptr_t)XRT_STREAM_LEGACY || h == (uintptr_t)XRT_STREAM_PER_THREAD) &&
        (st = xrt__handle_bad_special(fn, h)) != XRT_SUCCESS)
        return st;
    if (!h && !strncmp(fn, "xrt_graph", 9)) /* cudaGraph*'s NULL graph, exec or node: cudaErrorInvalidValue */
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "the graph, exec or node handle is NULL");
    xrt__lock(&xrt__handle_lock);
    if (!h) {
        why = "is NULL";
    } else if (kind && i < xrt__handle_next) {
        xrt__handle_slot *s = xrt__handle_slot_at(i);
        uintptr_t tag = __atomic_load_n(&s->tag, __ATOMIC_ACQUIRE);
        if (tag == h) owner = __atomic_load_n(&s->owner, __ATOMIC_RELAXED); /* NULL: recycled meanwhile */
        if (!owner && (tag >> XRT__HANDLE_GEN_SHIFT) >= (h >> XRT__HANDLE_GEN_SHIFT)) why = "was destroyed";
    }
    xrt__unlock(&xrt__handle_lock);
    if (owner && owner == xrt__tls.be && /* live and ours: only the kind can be wrong */
        (kind > XRT__HANDLE_EVENT || !strncmp(fn, "xrt_module", 10) || !strncmp(fn, "xrt_function", 12) ||
         !strncmp(fn, "xrt_graph", 9) || !strcmp(fn, "xrt_launch_kernel") || strstr(fn, "_pool")))
        return xrt_error(XRT_ERROR_INVALID_HANDLE, fn, "%p is a %s handle, not the kind %s takes", handle, what, fn);
    if (owner && owner == xrt__tls.be)
        return xrt_error(XRT_ERROR_INVALID_HANDLE, fn, "%p is %s handle, not %s handle", handle,
                         kind == XRT__HANDLE_STREAM ? "a stream" : "an event", kind == XRT__HANDLE_STREAM ? "an event" : "a stream");
    if (owner)
        return xrt_error(XRT_ERROR_INVALID_HANDLE, fn, "%s %p belongs to backend %s, not %s", what, handle,
                         owner->name, xrt__tls.be ? xrt__tls.be->name : "?");
    return xrt_error(XRT_ERROR_INVALID_HANDLE, fn, "%s %p %s", what, handle, why);
}

/* Destroys every live handle's object. Slots keep their generation and the
   table is kept, so a handle from before xrt_shutdown never equals a later
   one and stays detectably stale. */
static int xrt__survives_fork(const xrt_backend *b) { return !xrt__reg_forked || (b->flags & XRT_BACKEND_FORK_SAFE); }

static void xrt__uobj_shutdown_locked(void);

static void xrt__handle_shutdown(void)
{
    uintptr_t i, kind;
    xrt__lock(&xrt__handle_lock);
    xrt__uobj_shutdown_locked(); /* before the graphs that hold their objects (their last release would take the lock) */
    for (i = 0; i < xrt__handle_next; i++) {
        xrt__handle_slot *s = xrt__handle_slot_at(i);
        uintptr_t tag = __atomic_load_n(&s->tag, __ATOMIC_ACQUIRE);
        if (!(kind = tag & XRT__HANDLE_KIND_MASK) || !xrt__handle_release_slot(s, tag)) continue; /* free, or a destroy won it */
        if ((s->flags & XRT__HANDLE_OWNED) && xrt__survives_fork(s->owner))
            xrt__handle_destroy_object(s->owner, kind, s->obj);
        __atomic_store_n(&s->obj, (void *)NULL, __ATOMIC_RELAXED);
        __atomic_store_n(&s->owner, (const xrt_backend *)NULL, __ATOMIC_RELAXED);
        xrt__handle_free_locked(i);
    }
    xrt__unlock(&xrt__handle_lock);
}

/* >> impl: handle retirement. A destroyed handle's object is destroyed at
   once when no other thread can be inside a call that uses it; otherwise it
   waits in `limbo` until every thread that was inside a call when the
   handle died has left that call. Readers only announce their calls
   (xrt__call_enter); the destroying side pays: membarrier(2) makes those
   announcements visible, so the fast paths take no atomic operation. */
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct xrt__call_state xrt__call_list = {0, 0, 0, 0, &xrt__call_list, &xrt__call_list, 0, {0}, NULL, 0};
static int xrt__call_threads;           /* registered threads */
static pthread_key_t xrt__call_key;     /* its destructor unregisters an exiting thread */
static pthread_once_t xrt__call_once = PTHREAD_ONCE_INIT;

/* A thread the object waits for, until its seq reaches `until`. */
typedef struct xrt__limbo_wait { const struct xrt__call_state *thread; uint64_t until; } xrt__limbo_wait;
typedef struct xrt__limbo {
    struct xrt__limbo *next;
    const xrt_backend *owner;
    uintptr_t handle, flags;
    void *obj;
    size_t nwait;
    xrt__limbo_wait wait[1]; /* nwait entries */
} xrt__limbo;
static xrt__limbo *xrt__limbo_list;

/* Rounds of thread-specific-data destructors at thread exit (POSIX: at
   least 4; glibc runs 4). */
#ifdef PTHREAD_DESTRUCTOR_ITERATIONS
#define XRT__EXIT_ROUNDS PTHREAD_DESTRUCTOR_ITERATIONS
#else
#define XRT__EXIT_ROUNDS 4
#endif

static void xrt__capture_thread_gone(uintptr_t number); /* ">> impl: graph memory" */

/* At thread exit (the key's destructor, on the exiting thread). A later
   destructor of the program may still call xrt: that call finds the thread
   unregistered and registers it again, so that a concurrent destroy waits
   for it, and this destructor runs again in the next round; in the last
   round, which has no next, the call is refused instead
   (XRT_ERROR_NOT_PERMITTED): its record could not be unlinked. */
static void xrt__call_unregister(void *state)
{
    struct xrt__call_state *c = (struct xrt__call_state *)state;
    xrt__lock(&xrt__handle_lock);
    xrt__handle_give_back_locked(c, 0); /* its free handle slots are the table's again */
    xrt__unlock(&xrt__handle_lock);
    XRT_FREE(c->mem_spare); /* its spare registry record */
    c->mem_spare = NULL;
    pthread_mutex_lock(&xrt__call_lock);
    c->prev->next = c->next;
    c->next->prev = c->prev;
    __atomic_sub_fetch(&xrt__call_threads, 1, __ATOMIC_SEQ_CST); /* read without the lock: xrt__call_alone */
    c->registered = 0;
    c->exits++;
    pthread_mutex_unlock(&xrt__call_lock);
    xrt__tls.gen = __atomic_load_n(&xrt__gen, __ATOMIC_ACQUIRE) - 1; /* the next call takes xrt__be_slow */
    if (c->capture_number && __atomic_load_n(&xrt__captures, __ATOMIC_RELAXED))
        xrt__capture_thread_gone(c->capture_number); /* its per-thread captures end */
}

/* membarrier(2), or -1 where it is missing, refused (a seccomp sandbox) or,
   in xrt's own tests of the fallback (XRT__TEST_NO_MEMBARRIER), pretended to be. */
static long xrt__membarrier(int cmd)
{
#ifdef XRT__TEST_NO_MEMBARRIER
    (void)cmd;
    return -1;
#else
    return syscall(SYS_membarrier, cmd, 0, 0);
#endif
}

/* Decided before the first call announces itself: where membarrier cannot
   be registered, every call fences from the start. */
static void xrt__call_setup(void)
{
    pthread_key_create(&xrt__call_key, xrt__call_unregister);
    if (xrt__membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) != 0)
        __atomic_store_n(&xrt__call_fence, 1, __ATOMIC_SEQ_CST); /* every call fences instead */
}

static void xrt__call_register(void)
{
    pthread_once(&xrt__call_once, xrt__call_setup);
    if (xrt__call.exits >= XRT__EXIT_ROUNDS) return; /* no round left to unregister it in */
    pthread_mutex_lock(&xrt__call_lock);
    xrt__call.next = &xrt__call_list;
    xrt__call.prev = xrt__call_list.prev;
    xrt__call.prev->next = &xrt__call;
    xrt__call_list.prev = &xrt__call;
    /* sequentially consistent, as the lookups' loads of a tag: see xrt__call_alone */
    __atomic_add_fetch(&xrt__call_threads, 1, __ATOMIC_SEQ_CST);
    xrt__call.registered = 1;
    pthread_mutex_unlock(&xrt__call_lock);
    pthread_setspecific(xrt__call_key, &xrt__call);
}

/* Whether `w` is still inside the call it was in; the caller holds the lock. */
static int xrt__limbo_waiting(const xrt__limbo_wait *w)
{
    const struct xrt__call_state *c;
    for (c = xrt__call_list.next; c != &xrt__call_list; c = c->next)
        if (c == w->thread) return __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE) < w->until;
    return 0; /* the thread has exited */
}

/* The object's destroy, once its slot is recycled (obj is ours alone). */
static inline xrt_status xrt__handle_destroy_owned(const xrt_backend *b, uintptr_t h, void *obj, uintptr_t flags)
{
    if ((flags & XRT__HANDLE_OWNED) && xrt__survives_fork(b))
        return xrt__handle_destroy_object(b, h & XRT__HANDLE_KIND_MASK, obj); /* a tail call */
    return XRT_SUCCESS;
}

/* Destroys a retired handle's object (unless it wraps a native one) and
   makes its slot s free for a new handle. */
static inline xrt_status xrt__handle_finish(const xrt_backend *b, uintptr_t h, xrt__handle_slot *s, void *obj,
                                            uintptr_t flags)
{
    xrt__handle_recycle(s, h); /* obj is ours alone now: the slot may serve a new handle */
    return xrt__handle_destroy_owned(b, h, obj, flags);
}

/* Destroys a retired object whose destroy returned long ago, on whichever
   thread reclaims it: a failure is logged as that destroy's (the handle, the
   backend's detail), not recorded as this thread's last error, which belongs
   to its own calls. */
static void xrt__limbo_finish(const xrt__limbo *l)
{
    xrt__err_kept kept;
    xrt_status st;
    uintptr_t kind = l->handle & XRT__HANDLE_KIND_MASK;
    xrt__err_keep(&kept);
    xrt__err.detail[0] = 0;
    xrt__err.capture++;
    st = xrt__handle_finish(l->owner, l->handle, xrt__handle_slot_at(xrt__handle_index(l->handle)), l->obj, l->flags);
    xrt__err.capture--;
    if (st != XRT_SUCCESS)
        xrt_log(XRT_LOG_ERROR, "%s %p, destroyed once the calls using it were done: %.300s (%s)",
                kind == XRT__HANDLE_STREAM ? "xrt_stream_destroy: stream" : "xrt_event_destroy: event",
                (void *)l->handle, xrt__err.detail, xrt_status_string(st));
    xrt__err_put_back(&kept);
    /* the checker forgets it now, after the calls that were using it */
    if (XRT__CHK_ON() && kind == XRT__HANDLE_STREAM) xrt__chk_stream_destroyed(l->owner, (xrt_stream)l->handle);
    if (XRT__CHK_ON() && kind == XRT__HANDLE_EVENT) xrt__chk_event_destroyed((xrt_event)l->handle);
}

/* Whether handle h's destroy waits in limbo for the calls using it. */
XRT_API int xrt__limbo_holds(uintptr_t h)
{
    const xrt__limbo *l;
    int held = 0;
    pthread_mutex_lock(&xrt__call_lock);
    for (l = xrt__limbo_list; l && !held; l = l->next) held = l->handle == h;
    pthread_mutex_unlock(&xrt__call_lock);
    return held;
}

/* Destroys the objects nobody can be using any more (all of them: `all`). */
static void xrt__limbo_reclaim(int all)
{
    xrt__limbo **pp, *ready = NULL, *l;
    size_t i;
    if (!__atomic_load_n(&xrt__limbo_list, __ATOMIC_RELAXED)) return;
    pthread_mutex_lock(&xrt__call_lock);
    for (pp = &xrt__limbo_list; (l = *pp) != NULL;) {
        for (i = 0; !all && i < l->nwait && !xrt__limbo_waiting(&l->wait[i]); i++) {}
        if (all || i == l->nwait) {
            __atomic_store_n(pp, l->next, __ATOMIC_RELAXED); /* the head is read without the lock */
            l->next = ready;
            ready = l;
        } else {
            pp = &l->next;
        }
    }
    pthread_mutex_unlock(&xrt__call_lock);
    while ((l = ready) != NULL) {
        ready = l->next;
        xrt__limbo_finish(l);
        XRT_FREE(l);
    }
}

/* Makes every other thread's announcements visible; returns 1 when they
   are. Where calls fence (membarrier could not be registered), a full fence
   here pairs with theirs: a call either announced itself before the handle
   died, and is seen, or finds the handle dead. Where membarrier fails only
   now (a sandbox installed later), calls fence from now on, and 0 says that
   this once every other thread must be assumed inside a call: calls under
   way made their announcements without a fence. */
static int xrt__call_barrier(void)
{
    static int barrier;
    if (__atomic_load_n(&xrt__call_fence, __ATOMIC_RELAXED)) {
        __atomic_exchange_n(&barrier, 0, __ATOMIC_SEQ_CST); /* a full fence */
        return 1;
    }
    if (xrt__membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0) return 1;
    __atomic_store_n(&xrt__call_fence, 1, __ATOMIC_SEQ_CST);
    __atomic_exchange_n(&barrier, 0, __ATOMIC_SEQ_CST);
    return 0;
}

/* The threads that may be inside a call that found the handle alive: the
   others, and this one where the destroy is made from inside one of its
   own calls (a host function that a synchronize runs on the waiting
   thread, which goes on using the stream when the function returns). Each
   seq is read once, in one pass (a thread that left its call and entered
   another between two reads would be missed in its first). */
static xrt__limbo *xrt__limbo_snapshot_locked(size_t *n)
{
    const struct xrt__call_state *c;
    xrt__limbo *l;
    int all, nested = xrt__call.depth > 0 && xrt__call.registered; /* all: no barrier, wait for every thread's next step */
    *n = 0;
    if (!nested && xrt__call_threads <= (xrt__call.registered ? 1 : 0)) return NULL; /* no other thread ever called */
    all = !xrt__call_barrier();
    l = (xrt__limbo *)XRT_MALLOC(sizeof *l + (size_t)xrt__call_threads * sizeof l->wait[0]);
    if (!l) return NULL;
    for (c = xrt__call_list.next; c != &xrt__call_list; c = c->next) {
        uint64_t seq = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
        if (c == &xrt__call ? !nested : !all && !(seq & 1)) continue;
        l->wait[*n].thread = c;
        l->wait[(*n)++].until = seq + ((seq & 1) ? 1 : 2); /* the end of its call, or of its next */
    }
    return l;
}

/* Whether no call that found the handle alive can still be under way: no
   other thread has registered (or all have exited) and this one is in no
   call. Read without the lock. A thread counts itself before its first
   lookup; the count's increment and load, the release's compare-and-swap and
   the lookups' loads of a tag are all sequentially consistent, so either the
   thread is counted here or its lookups see the handle released. */
static int xrt__call_alone(void)
{
    if (xrt__call.depth > 0 && xrt__call.registered) return 0;
    return __atomic_load_n(&xrt__call_threads, __ATOMIC_SEQ_CST) <= (xrt__call.registered ? 1 : 0);
}

/* Another thread may be inside a call that found the handle alive: the
   object waits in limbo for the calls under way (or is destroyed now where
   none is). */
static xrt_status xrt__handle_retire_later(const xrt_backend *b, uintptr_t h, void *obj, uintptr_t flags)
    __attribute__((noinline));
static xrt_status xrt__handle_retire_later(const xrt_backend *b, uintptr_t h, void *obj, uintptr_t flags)
{
    xrt__limbo *l;
    size_t n;
    pthread_mutex_lock(&xrt__call_lock);
    l = xrt__limbo_snapshot_locked(&n);
    if (l && n) {
        l->owner = b;
        l->handle = h;
        l->flags = flags;
        l->obj = obj;
        l->nwait = n;
        l->next = xrt__limbo_list;
        __atomic_store_n(&xrt__limbo_list, l, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&xrt__call_lock);
    if (l && n) return XRT_SUCCESS; /* destroyed by whoever reclaims after the last of them */
    XRT_FREE(l);
    return xrt__handle_finish(b, h, xrt__handle_slot_at(xrt__handle_index(h)), obj, flags);
}

/* xrt__handle_retire's cases apart from the common one. */
static xrt_status xrt__handle_retire_slow(const xrt_backend *b, uintptr_t h, xrt__handle_slot *s, void *obj,
                                          uintptr_t flags) XRT__COLD;
static xrt_status xrt__handle_retire_slow(const xrt_backend *b, uintptr_t h, xrt__handle_slot *s, void *obj,
                                          uintptr_t flags)
{
    if (__atomic_load_n(&xrt__limbo_list, __ATOMIC_RELAXED) != NULL) xrt__limbo_reclaim(0);
    if (xrt__call_alone()) return xrt__handle_finish(b, h, s, obj, flags);
    return xrt__handle_retire_later(b, h, obj, flags);
}

/* s: h's slot, released by xrt__handle_release. Inlined into the destroy,
   so that the common case (nothing in limbo, no other thread in a call, room
   in the thread's cache of slots) is one function that calls nothing before
   the object's destroy, a tail call: it saves no register. */
static inline __attribute__((always_inline)) xrt_status xrt__handle_retire(const xrt_backend *b, uintptr_t h,
                                                                            xrt__handle_slot *s, void *obj,
                                                                            uintptr_t flags)
{
    unsigned n = xrt__call.nfree;
    /* xrt__call_alone() for a registered thread */
    if (XRT__UNLIKELY(__atomic_load_n(&xrt__limbo_list, __ATOMIC_RELAXED) != NULL || !xrt__call.registered ||
                      xrt__call.depth > 0 || __atomic_load_n(&xrt__call_threads, __ATOMIC_SEQ_CST) > 1 ||
                      n >= XRT__HANDLE_CACHE))
        return xrt__handle_retire_slow(b, h, s, obj, flags);
    xrt__handle_cache_put(s, h, n);
    return xrt__handle_destroy_owned(b, h, obj, flags);
}

/* The whole of a destroy, one call from the inline dispatch. */
XRT_API xrt_status xrt__handle_free(const xrt_backend *b, const void *handle, uintptr_t kind, const char *fn)
{
    uintptr_t h = (uintptr_t)handle, flags;
    xrt__handle_slot *s;
    void *obj;
    if (XRT__UNLIKELY((h & XRT__HANDLE_KIND_MASK) != kind || !(s = xrt__handle_release(b, h, &obj, &flags))))
        return xrt__handle_bad(fn, handle);
    return xrt__handle_retire(b, h, s, obj, flags);
}

/* A forked child has one thread: the others' records are gone, their free
   handle slots back in the table; and its address space registers for membarrier again where that is needed. */
static void xrt__call_fork_child(void)
{
    struct xrt__call_state *c;
    if (!__atomic_load_n(&xrt__call_fence, __ATOMIC_RELAXED) &&
        xrt__membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) != 0)
        xrt__call_fence = 1;
    for (c = xrt__call_list.next; c != &xrt__call_list; c = c->next) /* the fork holds the table's lock */
        if (c != &xrt__call) {
            xrt__handle_give_back_locked(c, 0); /* that thread's free slots */
            XRT_FREE(c->mem_spare); /* that thread is not in the child */
            c->mem_spare = NULL;
        }
    xrt__call_list.next = xrt__call_list.prev = &xrt__call_list;
    __atomic_store_n(&xrt__call_threads, 0, __ATOMIC_SEQ_CST);
    if (xrt__call.registered) {
        xrt__call.next = xrt__call.prev = &xrt__call_list;
        xrt__call_list.next = xrt__call_list.prev = &xrt__call;
        __atomic_store_n(&xrt__call_threads, 1, __ATOMIC_SEQ_CST);
    }
}

/* >> impl: pointer registry (the interval tree of live allocations) */
typedef struct xrt__mem_node {
    xrt__tree_node node; /* first: [base, base + size) */
    uint64_t gen;
    const xrt_backend *be;
    int device;
    xrt_memory_type type;
    unsigned ipc_opens; /* > 0: opened from another process's handle, that many times (xrt_ipc_open_mem_handle) */
    unsigned ipc_closing; /* closes of it under way (xrt__ipc_close): the last one out frees it */
    size_t *usage;      /* while in the tree: the device's count of bytes (xrt__mem_usage_of), or NULL */
    uintptr_t capture;  /* allocated in the capture begun on this stream (its handle), still under way; else 0 */
    int registered;     /* pinned host memory of xrt_host_register, not of xrt_malloc_host */
    int read_only;      /* registered with XRT_HOST_REGISTER_READ_ONLY: no copy or set writes it */
    unsigned host_flags; /* pinned host memory of xrt_host_alloc: its XRT_HOST_ALLOC_* (xrt_malloc_host's: 0) */
    int joined;         /* capture is the stream it was allocated on, which joined one of several captures */
} xrt__mem_node;

static xrt__tree xrt__mem_tree = XRT__TREE_INIT;

/* Records of freed allocations, kept for the next ones: an allocation and
   its free then cost no libc allocation. xrt__mem_spare_put pushes without a
   lock (a free's record is dropped after the backend's free, outside the
   registry's lock); xrt__mem_spare_get pops only under xrt__mem_lock, so one
   thread pops at a time and a node stays in the stack until that thread pops
   it: a pop cannot meet ABA. At most XRT__MEM_SPARES are kept (a free beyond
   them gives its record back to the allocator); xrt_shutdown frees them.
   Before them, each thread keeps one of its own (xrt__call_state.mem_spare):
   a loop that allocates and frees takes no atomic operation for its record. */
#define XRT__MEM_SPARES 64
static xrt__mem_node *xrt__mem_spares; /* linked through node.next */
static unsigned xrt__mem_spare_count;  /* a bound, not an exact count: pushes count before they link */

static void xrt__mem_spare_put(xrt__mem_node *n)
{
    xrt__mem_node *head;
    if (XRT__LIKELY(xrt__call.registered && !xrt__call.mem_spare)) {
        xrt__call.mem_spare = n;
        return;
    }
    if (__atomic_fetch_add(&xrt__mem_spare_count, 1, __ATOMIC_RELAXED) >= XRT__MEM_SPARES) {
        __atomic_fetch_sub(&xrt__mem_spare_count, 1, __ATOMIC_RELAXED);
        XRT_FREE(n);
        return;
    }
    head = __atomic_load_n(&xrt__mem_spares, __ATOMIC_RELAXED);
    do n->node.next = (xrt__tree_node *)(void *)head;
    while (!__atomic_compare_exchange_n(&xrt__mem_spares, &head, n, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

/* A spare record, or NULL if none is kept. Under xrt__mem_lock; it holds
   its last allocation's fields: xrt__mem_record sets every one. */
static xrt__mem_node *xrt__mem_spare_get(void)
{
    xrt__mem_node *n = __atomic_load_n(&xrt__mem_spares, __ATOMIC_ACQUIRE), *next;
    do {
        if (!n) return NULL;
        next = (xrt__mem_node *)(void *)n->node.next;
    } while (!__atomic_compare_exchange_n(&xrt__mem_spares, &n, next, 1, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE));
    __atomic_fetch_sub(&xrt__mem_spare_count, 1, __ATOMIC_RELAXED);
    return n;
}

/* The thread's own spare record, or NULL. */
static xrt__mem_node *xrt__mem_spare_mine(void)
{
    xrt__mem_node *n = (xrt__mem_node *)xrt__call.mem_spare;
    xrt__call.mem_spare = NULL;
    return n;
}

/* At xrt_shutdown, under xrt__mem_lock (other threads' own spare records
   stay theirs, freed when they exit). */
static void xrt__mem_spares_free(void)
{
    xrt__mem_node *n = __atomic_exchange_n(&xrt__mem_spares, (xrt__mem_node *)NULL, __ATOMIC_ACQUIRE), *next;
    XRT_FREE(xrt__mem_spare_mine());
    for (; n; n = next) {
        next = (xrt__mem_node *)(void *)n->node.next;
        __atomic_fetch_sub(&xrt__mem_spare_count, 1, __ATOMIC_RELAXED);
        XRT_FREE(n);
    }
}

static uint64_t xrt__mem_gen;     /* the last allocation generation handed out */
static uint64_t xrt__mem_version; /* bumped by every change of the tree, under the lock; 64 bits never wrap */

/* A per-thread cache of recent answers of the tree, valid while the tree's
   version has not changed: a copy loop over the same buffers takes no lock. */
#define XRT__MEM_CACHE 4
typedef struct xrt__mem_hit {
    uintptr_t key;            /* the looked-up pointer for a miss, the base for a hit */
    xrt_pointer_attributes a; /* type XRT_MEMORY_UNKNOWN and backend NULL: not in the tree */
} xrt__mem_hit;
static XRT__TLS struct {
    uint64_t version;
    unsigned next, count;
    xrt__mem_hit e[XRT__MEM_CACHE];
} xrt__mem_cache;

/* The thread's last copy that passed its checks: the same call again, with
   the tree unchanged, passes them again, once the runtime gives the same
   answer again for each side it was asked about (`native`: 1 dst, 2 src). */
static XRT__TLS struct {
    const xrt_backend *b;
    const void *dst, *src;
    size_t n;
    uint64_t version;
    xrt_memcpy_kind kind, resolved;
    int native;
} xrt__mem_last;

/* The allocation containing p, or NULL. */
static xrt__mem_node *xrt__mem_find(uintptr_t p) { return (xrt__mem_node *)(void *)xrt__tree_find(&xrt__mem_tree, p); }

/* Bytes of device memory each backend's devices hold, for their
   xrt_mem_get_info (the CPU backend's devices share one machine). */
#define XRT__MEM_DEVICES 64
static struct { const xrt_backend *be; size_t bytes[XRT__MEM_DEVICES]; } xrt__mem_usage[XRT_MAX_BACKENDS];

/* The backend whose devices hold b's memory: b, or for a forwarding plugin
   (host->wraps) its target's, followed through plugins that wrap plugins,
   so that the target's mem_get_info sees what was allocated through them. */
static const xrt_backend *xrt__mem_owner(const xrt_backend *b)
{
    int hops;
    for (hops = 0; hops < XRT_MAX_BACKENDS; hops++) {
        const xrt__reg_entry *e = (const xrt__reg_entry *)(const void *)b;
        if (e < xrt__reg_entries || e >= xrt__reg_entries + XRT_MAX_BACKENDS || !e->memory_of) break;
        b = e->memory_of;
    }
    return b;
}

static size_t *xrt__mem_usage_of(const xrt_backend *b, int device)
{
    int i;
    if (device < 0 || device >= XRT__MEM_DEVICES) return NULL;
    if (XRT__LIKELY(xrt__mem_usage[0].be == b)) return &xrt__mem_usage[0].bytes[device]; /* the first backend used */
    b = xrt__mem_owner(b); /* only owners are kept: a plugin's own table is never the first */
    for (i = 0; i < XRT_MAX_BACKENDS; i++) {
        if (!xrt__mem_usage[i].be) xrt__mem_usage[i].be = b;
        if (xrt__mem_usage[i].be == b) return &xrt__mem_usage[i].bytes[device];
    }
    return NULL;
}

/* The count an allocation adds to is found as it enters the tree and kept
   with it for its leaving (xrt_shutdown clears the counts and the tree
   together). */
static inline __attribute__((always_inline)) void xrt__mem_count_in(xrt__mem_node *node)
{
    node->usage = node->type == XRT_MEMORY_DEVICE ? xrt__mem_usage_of(node->be, node->device) : NULL;
    if (node->usage) *node->usage += node->node.end - node->node.start;
}

static void xrt__mem_count_out(const xrt__mem_node *node)
{
    if (node->usage) *node->usage -= node->node.end - node->node.start;
}

XRT_API size_t xrt__mem_device_bytes(const xrt_backend *b, int device)
{
    size_t *u, n;
    xrt__spin_lock(&xrt__mem_lock);
    u = xrt__mem_usage_of(b, device);
    n = u ? *u : 0;
    xrt__spin_unlock(&xrt__mem_lock);
    return n;
}

/* Inlined (as the unlink below) into the allocation's and the free's one
   call each. */
static inline __attribute__((always_inline)) void xrt__mem_insert(xrt__mem_node *node)
{
    xrt__mem_count_in(node);
    xrt__tree_insert(&xrt__mem_tree, &node->node);
    __atomic_store_n(&xrt__mem_version, xrt__mem_version + 1, __ATOMIC_RELEASE);
}

/* link: where the tree holds node (xrt__tree_link). */
static inline __attribute__((always_inline)) void xrt__mem_unlink_at(xrt__mem_node *node, xrt__tree_node **link)
{
    xrt__mem_count_out(node);
    xrt__tree_unlink(&xrt__mem_tree, link);
    __atomic_store_n(&xrt__mem_version, xrt__mem_version + 1, __ATOMIC_RELEASE);
}

static void xrt__mem_unlink(xrt__mem_node *node) { xrt__mem_unlink_at(node, xrt__tree_link(&xrt__mem_tree, node->node.start)); }

/* >> impl: free hooks. Slots are published with a release store of fn and
   read without a lock; an emptied slot keeps its place. */
static struct { xrt_free_hook_fn fn; void *user; } xrt__hooks[XRT_MAX_FREE_HOOKS];
static int xrt__hook_count; /* slots ever used */
static pthread_mutex_t xrt__hook_lock = PTHREAD_MUTEX_INITIALIZER;
/* Fork's handlers take it last (1; 0 lets it go): a leaf, held with no other lock. */
static void xrt__hook_fork_hold(int hold) { (hold ? pthread_mutex_lock : pthread_mutex_unlock)(&xrt__hook_lock); }

XRT_API xrt_status xrt_add_free_hook(xrt_free_hook_fn fn, void *user)
{
    int i, empty = -1;
    xrt_status st = XRT_SUCCESS;
    if (!fn) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_add_free_hook", "fn is NULL");
    pthread_mutex_lock(&xrt__hook_lock);
    for (i = 0; i < xrt__hook_count; i++) {
        if (xrt__hooks[i].fn == fn && xrt__hooks[i].user == user) break;
        if (!xrt__hooks[i].fn && empty < 0) empty = i;
    }
    if (i == xrt__hook_count) { /* not there yet */
        if (empty < 0 && xrt__hook_count == XRT_MAX_FREE_HOOKS) {
            st = XRT_ERROR_OUT_OF_MEMORY;
        } else {
            if (empty < 0) empty = xrt__hook_count;
            __atomic_store_n(&xrt__hooks[empty].user, user, __ATOMIC_RELAXED);
            __atomic_store_n(&xrt__hooks[empty].fn, fn, __ATOMIC_RELEASE);
            if (empty == xrt__hook_count) __atomic_store_n(&xrt__hook_count, xrt__hook_count + 1, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&xrt__hook_lock);
    if (st != XRT_SUCCESS)
        return xrt_error(st, "xrt_add_free_hook", "all %d free hooks are taken", XRT_MAX_FREE_HOOKS);
    return XRT_SUCCESS;
}

XRT_API xrt_status xrt_remove_free_hook(xrt_free_hook_fn fn, void *user)
{
    int i, found = 0;
    pthread_mutex_lock(&xrt__hook_lock);
    for (i = 0; i < xrt__hook_count && !found; i++)
        if (xrt__hooks[i].fn == fn && xrt__hooks[i].user == user) {
            __atomic_store_n(&xrt__hooks[i].fn, (xrt_free_hook_fn)NULL, __ATOMIC_RELEASE);
            found = 1;
        }
    pthread_mutex_unlock(&xrt__hook_lock);
    return found ? XRT_SUCCESS : xrt_error(XRT_ERROR_NOT_FOUND, "xrt_remove_free_hook", "no such free hook");
}

/* 1 while this thread runs the hooks of a registered range (its memory is
   not freed: it stays the user's). */
static XRT__TLS int xrt__hook_unregistering;

XRT_API int xrt__free_hook_unregisters(void) { return xrt__hook_unregistering; }

/* Runs the hooks for an allocation that left the registry. */
static void xrt__mem_run_hooks(const xrt__mem_node *n)
{
    int i, count = __atomic_load_n(&xrt__hook_count, __ATOMIC_ACQUIRE);
    xrt__hook_unregistering = n->registered;
    for (i = 0; i < count; i++) {
        xrt_free_hook_fn fn = __atomic_load_n(&xrt__hooks[i].fn, __ATOMIC_ACQUIRE);
        if (fn) fn(__atomic_load_n(&xrt__hooks[i].user, __ATOMIC_RELAXED), n->node.start, n->node.end - n->node.start, n->gen);
    }
    xrt__hook_unregistering = 0;
}

/* A record's allocation: one out of the tree (xrt__mem_take's) is the
   calling thread's alone; one in it, under the registry's lock. */
XRT_API void xrt__mem_info_of(const void *record, xrt__mem_info *info)
{
    const xrt__mem_node *n = (const xrt__mem_node *)record;
    info->base = n->node.start;
    info->size = n->node.end - n->node.start;
    info->generation = n->gen;
    info->type = n->type;
    info->device = n->device;
    info->backend = n->be;
}

XRT_API int xrt__mem_query(const void *p, xrt__mem_info *info)
{
    xrt__mem_node *n;
    memset(info, 0, sizeof *info);
    xrt__spin_lock(&xrt__mem_lock);
    if ((n = xrt__mem_find((uintptr_t)p)) != NULL) xrt__mem_info_of(n, info);
    xrt__spin_unlock(&xrt__mem_lock);
    return n != NULL;
}

static const char *const xrt__mem_names[] = {"unknown", "host", "pinned host", "device", "managed"};

/* A capture that makes no graph takes its allocations with it: the backend
   may give their memory out again before the end of the capture drops their
   records (xrt__capture_adopt_locked). A new allocation's record takes the
   place of such a record, so that no two records ever share a start. */
static void xrt__mem_drop_stale_locked(uintptr_t start) XRT__COLD;
static void xrt__mem_drop_stale_locked(uintptr_t start)
{
    xrt__mem_node *n = (xrt__mem_node *)(void *)*xrt__tree_link(&xrt__mem_tree, start);
    if (!n || !n->capture) return;
    xrt__mem_unlink(n); /* not xrt__mem_unlink_at: a third inlined copy would outline it from the free */
    xrt__mem_spare_put(n);
}

/* A new record of [p, p + n) in the registry, under a new generation; NULL
   without memory for it. ipc_opens: see xrt__mem_node. */
static xrt__mem_node *xrt__mem_record(const xrt_backend *b, void *p, size_t n, xrt_memory_type t, unsigned ipc_opens)
{
    xrt__mem_node *node;
    int dev = -1, noted = p && xrt__mem_new.p == p;
    xrt__mem_new.p = NULL;
    if (t != XRT_MEMORY_PINNED_HOST && noted) {
        dev = xrt__mem_new.device;
    } else if (t != XRT_MEMORY_PINNED_HOST) {
        xrt__err.quiet++;
        if (b->get_device(b, &dev) != XRT_SUCCESS) dev = -1;
        xrt__err.quiet--;
    }
    node = xrt__mem_spare_mine();
    xrt__spin_lock(&xrt__mem_lock);
    if (!node && (node = xrt__mem_spare_get()) == NULL) { /* the allocator is not called under the lock */
        xrt__spin_unlock(&xrt__mem_lock);
        if ((node = (xrt__mem_node *)XRT_CALLOC(1, sizeof *node)) == NULL) return NULL;
        xrt__spin_lock(&xrt__mem_lock);
    }
    node->node.start = (uintptr_t)p;
    node->node.end = (uintptr_t)p + n;
    node->be = b;
    node->device = dev;
    node->type = t;
    node->ipc_opens = ipc_opens;
    node->ipc_closing = 0;
    node->capture = 0;
    node->registered = 0;
    node->read_only = 0;
    node->host_flags = 0;
    node->joined = 0;
    node->gen = ++xrt__mem_gen;
    if (XRT__UNLIKELY(__atomic_load_n(&xrt__captures, __ATOMIC_RELAXED))) xrt__mem_drop_stale_locked(node->node.start);
    xrt__mem_insert(node);
    xrt__spin_unlock(&xrt__mem_lock);
    return node;
}

/* Records a new allocation; without room for its record, the allocation is
   given back and *p is NULL. */
XRT_API xrt_status xrt__mem_add(const xrt_backend *b, void **p, size_t n, xrt_memory_type t, const char *fn)
{
    if (xrt__mem_record(b, *p, n, t, 0)) return XRT_SUCCESS;
    if (t == XRT_MEMORY_PINNED_HOST) b->free_host(b, *p);
    else b->free(b, *p);
    *p = NULL;
    return xrt_error(XRT_ERROR_OUT_OF_MEMORY, fn, "no memory for the pointer registry");
}

/* xrt__mem_add of pinned host memory with its XRT_HOST_ALLOC_* flags. */
XRT_API xrt_status xrt__mem_add_host(const xrt_backend *b, void **p, size_t n, unsigned flags, const char *fn)
{
    xrt__mem_node *node = xrt__mem_record(b, *p, n, XRT_MEMORY_PINNED_HOST, 0);
    if (node) {
        node->host_flags = flags; /* before any other thread can ask: *p is not yet returned */
        return XRT_SUCCESS;
    }
    b->free_host(b, *p);
    *p = NULL;
    return xrt_error(XRT_ERROR_OUT_OF_MEMORY, fn, "no memory for the pointer registry");
}

/* The flags of the xrt_host_alloc or xrt_malloc_host allocation p points
   into; 0 where p is in none (a registered range is none). */
XRT_API int xrt__mem_host_flags(const void *p, unsigned *flags)
{
    const xrt__mem_node *n;
    int found;
    xrt__spin_lock(&xrt__mem_lock);
    n = xrt__mem_find((uintptr_t)p);
    found = n && n->type == XRT_MEMORY_PINNED_HOST && !n->registered;
    *flags = found ? n->host_flags : 0;
    xrt__spin_unlock(&xrt__mem_lock);
    return found;
}

/* Checks that p is the start of a live allocation of backend b of type t and
   takes its record out of the registry (so a concurrent double free fails
   too) and runs the free hooks; xrt__mem_finish then drops the record or, if
   the free failed, puts it back (under a new generation: the hooks forgot it). */

static int xrt__graph_mem_has(uintptr_t p) XRT__COLD;

static xrt_status xrt__mem_take_as(const xrt_backend *b, void *p, xrt_memory_type t, int registered, const char *fn,
                                   void **record);
XRT_API xrt_status xrt__mem_take(const xrt_backend *b, void *p, xrt_memory_type t, const char *fn, void **record)
{
    return xrt__mem_take_as(b, p, t, 0, fn, record);
}

/* Registration is rare: one lock keeps a range's check, the backend's call
   and its record together, so overlapping ranges registered at once cannot
   both pass. A fork waits for a registration under way (xrt__fork_prepare
   takes the lock first of all: only xrt_host_register and
   xrt_host_unregister take it, with no other lock held, and its hold
   reaches the registry's, the checker's and the log's): a child that
   inherited it held would hang in its own registrations. */
static pthread_mutex_t xrt__mem_register_lock = PTHREAD_MUTEX_INITIALIZER;
/* Fork's handlers: 1 takes the lock (the prepare handler), 0 lets it go (parent and child). */
static void xrt__register_fork_hold(int hold) { (hold ? pthread_mutex_lock : pthread_mutex_unlock)(&xrt__mem_register_lock); }

/* What a registration overlaps: an allocation's record as it was under
   the lock (the record itself may be freed once the lock is let go). */
typedef struct xrt__mem_overlap_info {
    uintptr_t start, end;
    xrt_memory_type type;
    int registered;
} xrt__mem_overlap_info;

/* The end of what record m holds: an allocation owns its bytes up to the
   next XRT_ALIGNMENT boundary (every backend's allocator hands out whole
   aligned blocks: none of them is the caller's), a registered range only
   its own. */
static uintptr_t xrt__mem_owned_end(const xrt__mem_node *m)
{
    uintptr_t a = XRT_ALIGNMENT - 1;
    if (m->registered || m->node.end > UINTPTR_MAX - a) return m->node.end;
    return (m->node.end + a) & ~a;
}

/* Whether a record's owned bytes overlap [p, p + n), and which (the one
   with the greatest start below p + n: records are disjoint and every
   allocation starts on an XRT_ALIGNMENT boundary, so no earlier one
   reaches past its start). */
static int xrt__mem_overlap(uintptr_t p, size_t n, xrt__mem_overlap_info *o)
{
    const xrt__mem_node *m;
    int found;
    xrt__spin_lock(&xrt__mem_lock);
    m = (const xrt__mem_node *)(const void *)xrt__tree_floor(&xrt__mem_tree, p + n - 1);
    found = m && xrt__mem_owned_end(m) > p;
    if (found) o->start = m->node.start, o->end = m->node.end, o->type = m->type, o->registered = m->registered;
    xrt__spin_unlock(&xrt__mem_lock);
    return found;
}

/* Ranges registered with XRT_HOST_REGISTER_READ_ONLY now: while there is
   none, a copy's or set's destination costs one load more. */
static unsigned xrt__mem_read_only_live;

/* A copy's or set's destination: depth slices, slice bytes apart, of
   height rows, pitch apart, of width bytes, from p (1-D: one row). */
typedef struct xrt__mem_dst {
    const void *p;
    size_t width, pitch, height, slice, depth;
} xrt__mem_dst;

/* Whether a row of [0, width) + i * pitch (i < height) meets [s, e): the
   first row ending past s, if there is one, starts before e. The rows'
   span does not overflow (the caller checked it). */
static int xrt__rows_meet(size_t s, size_t e, size_t width, size_t pitch, size_t height)
{
    size_t i = s < width ? 0 : pitch ? (s - width) / pitch + 1 : height;
    return i < height && i * pitch < e;
}

/* Whether a row of a destination d meets [s, e) (offsets from d's first
   byte): one of the first slice whose rows' span ends past s does. Where
   none of its rows does, its first row ending past s starts at or past e,
   and so do the next slices (a slice's rows are inside it). */
static int xrt__dst_meets(const xrt__mem_dst *d, size_t s, size_t e)
{
    size_t rect = (d->height - 1) * d->pitch + d->width;
    size_t z = s < rect ? 0 : d->slice ? (s - rect) / d->slice + 1 : d->depth, at = z * d->slice;
    return z < d->depth && at < e && xrt__rows_meet(s > at ? s - at : 0, e - at, d->width, d->pitch, d->height);
}

/* The range registered read-only that a row of d meets, looked for among
   the records overlapping d's span (from the last one down, each one's
   predecessor found by its start: no record is written). */
static xrt_status xrt__mem_read_only_dst(const xrt__mem_dst *d, const char *fn) XRT__COLD;
static xrt_status xrt__mem_read_only_dst(const xrt__mem_dst *d, const char *fn)
{
    uintptr_t p = (uintptr_t)d->p, span = (d->depth - 1) * d->slice + (d->height - 1) * d->pitch + d->width;
    uintptr_t start = 0, end = 0;
    const xrt__mem_node *n;
    if (span > UINTPTR_MAX - p) span = UINTPTR_MAX - p; /* refused elsewhere */
    xrt__spin_lock(&xrt__mem_lock);
    for (n = (const xrt__mem_node *)(const void *)xrt__tree_floor(&xrt__mem_tree, p + span - 1); n && n->node.end > p;
         n = n->node.start ? (const xrt__mem_node *)(const void *)xrt__tree_floor(&xrt__mem_tree, n->node.start - 1)
                           : NULL)
        if (n->read_only && xrt__dst_meets(d, n->node.start > p ? n->node.start - p : 0,
                                           (n->node.end < p + span ? n->node.end : p + span) - p)) {
            start = n->node.start, end = n->node.end;
            break;
        }
    xrt__spin_unlock(&xrt__mem_lock);
    if (!end) return XRT_SUCCESS;
    return xrt_error(XRT_ERROR_INVALID_VALUE, fn,
                     "dst %p writes a range registered read-only (%zu bytes at %p, XRT_HOST_REGISTER_READ_ONLY): "
                     "the device only reads it", d->p, (size_t)(end - start), (void *)start);
}

/* The destination of a copy or set, checked: a range registered with
   XRT_HOST_REGISTER_READ_ONLY is mapped for the device's reads only (on a
   GPU a write through it faults; the CPU backend's devices would write the
   host's pages, which the process may map read-only): a destination any of
   whose bytes are in one is refused, wherever it starts. */
static inline xrt_status xrt__mem_check_writable(const xrt__mem_dst *d, const char *fn)
{
    if (XRT__LIKELY(!__atomic_load_n(&xrt__mem_read_only_live, __ATOMIC_ACQUIRE))) return XRT_SUCCESS;
    return d->width && d->height && d->depth ? xrt__mem_read_only_dst(d, fn) : XRT_SUCCESS;
}

/* A registration that overlaps o: CUDA's cudaHostRegister refuses device
   and managed memory (cudaErrorInvalidValue) and memory already pinned,
   by cudaMallocHost or a registration (cudaErrorHostMemoryAlreadyRegistered). */
static xrt_status xrt__mem_overlap_refuse(const xrt__mem_overlap_info *o, void *p, size_t n, const char *fn)
{
    int dev = o->type != XRT_MEMORY_PINNED_HOST;
    const char *what = o->type == XRT_MEMORY_MANAGED ? "managed memory"
                       : dev                         ? "device memory"
                       : o->registered               ? "a registered range"
                                                     : "xrt_malloc_host memory";
    return xrt_error(dev ? XRT_ERROR_INVALID_VALUE : XRT_ERROR_HOST_MEMORY_ALREADY_REGISTERED, fn,
                     "%zu bytes at %p overlap %s (%zu bytes at %p%s)", n, p, what, (size_t)(o->end - o->start),
                     (void *)o->start,
                     (uintptr_t)p >= o->end ? ", which owns its bytes up to the next XRT_ALIGNMENT (256-byte) boundary"
                                            : "");
}

XRT_API xrt_status xrt__mem_register(const xrt_backend *b, void *p, size_t n, unsigned flags, const char *fn)
{
    xrt__mem_overlap_info o;
    xrt__mem_node *node;
    xrt_status st;
    if (!p || !n) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "ptr %p and size %zu must not be NULL and 0", p, n);
    if (flags & ~15u) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "flags 0x%x has bits other than XRT_HOST_REGISTER_*", flags);
    if ((uintptr_t)p > UINTPTR_MAX - n) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%zu bytes at %p wrap around", n, p);
    pthread_mutex_lock(&xrt__mem_register_lock);
    if (xrt__mem_overlap((uintptr_t)p, n, &o)) {
        pthread_mutex_unlock(&xrt__mem_register_lock);
        return xrt__mem_overlap_refuse(&o, p, n, fn);
    }
    if ((st = b->host_register(b, p, n, flags)) == XRT_SUCCESS) {
        if ((node = xrt__mem_record(b, p, n, XRT_MEMORY_PINNED_HOST, 0)) != NULL) {
            node->registered = 1;
            if (flags & XRT_HOST_REGISTER_READ_ONLY) {
                node->read_only = 1;
                __atomic_add_fetch(&xrt__mem_read_only_live, 1, __ATOMIC_RELEASE);
            }
        } else {
            b->host_unregister(b, p);
            st = xrt_error(XRT_ERROR_OUT_OF_MEMORY, fn, "no memory for the pointer registry");
        }
    }
    pthread_mutex_unlock(&xrt__mem_register_lock);
    return st;
}

XRT_API xrt_status xrt__mem_unregister(const xrt_backend *b, void *p, const char *fn)
{
    void *record;
    xrt_status st;
    pthread_mutex_lock(&xrt__mem_register_lock);
    if ((st = xrt__mem_take_as(b, p, XRT_MEMORY_PINNED_HOST, 1, fn, &record)) == XRT_SUCCESS) {
        if (((xrt__mem_node *)record)->read_only) __atomic_sub_fetch(&xrt__mem_read_only_live, 1, __ATOMIC_RELEASE);
        st = xrt__mem_finish(record, b->host_unregister(b, p));
    }
    pthread_mutex_unlock(&xrt__mem_register_lock);
    return st;
}

static xrt_status xrt__mem_take_as(const xrt_backend *b, void *p, xrt_memory_type t, int registered, const char *fn,
                                   void **record)
{
    xrt__mem_node *n;
    xrt__tree_node **link;
    const char *why = NULL;
    xrt__spin_lock(&xrt__mem_lock);
    /* A free names the start: one walk finds its record and where to unlink
       it; only a pointer that starts no allocation needs the containing one. */
    link = xrt__tree_link(&xrt__mem_tree, (uintptr_t)p);
    n = *link ? (xrt__mem_node *)(void *)*link : xrt__mem_find((uintptr_t)p);
    if (!n && registered) why = "is not registered or is already unregistered";
    else if (!n) why = "was not allocated by xrt or is already freed";
    else if (n->node.start != (uintptr_t)p) why = "is inside an allocation, not at its start";
    else if (n->be != b) why = "belongs to another backend";
    else if (n->ipc_opens) why = "was opened with xrt_ipc_open_mem_handle (use xrt_ipc_close_mem_handle)";
    else if ((n->type != t && !(t == XRT_MEMORY_DEVICE && n->type == XRT_MEMORY_MANAGED)) ||
             n->registered != registered)
        why = registered                        ? "is not a registered range (xrt_free or xrt_free_host frees it)"
              : n->registered                   ? "is a registered range (use xrt_host_unregister)"
              : t == XRT_MEMORY_PINNED_HOST     ? "is not pinned host memory (use xrt_free)"
                                                : "is pinned host memory (use xrt_free_host)";
    else xrt__mem_unlink_at(n, link);
    xrt__spin_unlock(&xrt__mem_lock);
    *record = n;
    if (!n && __atomic_load_n(&xrt__graph_mems, __ATOMIC_RELAXED) && xrt__graph_mem_has((uintptr_t)p))
        why = "is allocated by each launch of a graph: not before the next launch (nor twice after one)";
    /* cudaFree's failures are cudaErrorInvalidValue; another backend's memory is xrt's own rule */
    if (why)
        return xrt_error(n && n->be != b ? XRT_ERROR_INVALID_POINTER
                         : registered && (!n || n->node.start != (uintptr_t)p || !n->registered)
                             ? XRT_ERROR_HOST_MEMORY_NOT_REGISTERED
                             : XRT_ERROR_INVALID_VALUE,
                         fn, "%p %s", p, why);
    /* before the memory can be handed out again; without hooks, no call */
    if (__atomic_load_n(&xrt__hook_count, __ATOMIC_ACQUIRE)) xrt__mem_run_hooks(n);
    return XRT_SUCCESS;
}

XRT_API xrt_status xrt__mem_finish(void *record, xrt_status freed)
{
    xrt__mem_node *n = (xrt__mem_node *)record;
    uintptr_t base = n->node.start; /* out of the tree: this thread's alone until it is back */
    uint64_t was = n->gen, now;
    if (freed == XRT_SUCCESS) {
        xrt__mem_spare_put(n);
        return freed;
    }
    xrt__spin_lock(&xrt__mem_lock);
    n->gen = now = ++xrt__mem_gen;
    xrt__mem_insert(n);
    xrt__spin_unlock(&xrt__mem_lock);
    /* the same memory: its history goes on (a captured free the backend refused) */
    if (XRT__CHK_ON()) xrt__chk_mem_back(base, was, now);
    return freed;
}

/* >> impl: graph memory. An allocation made in a capture (xrt_malloc_async
   on a capturing stream) and not freed in it is left to the caller: CUDA and
   HIP allocate it at each launch of the graph's exec, at the address that the
   capture returned, and the caller frees it (xrt_free, xrt_free_async)
   before the next launch (else the launch fails). So its record leaves the
   registry when the capture ends, as the memory is not there before a
   launch, and comes back with each launch; the memory of the last launch
   outlives the graph, as any allocation. An allocation is known to be a
   capture's by its stream: the capture's origin, or, on a stream joined to
   a capture, the only capture under way; with several, the capture whose
   end finds that stream no longer capturing (a stream leaves a capture only
   at its end, whether it makes a graph or not). Only the end of a capture
   that allocated, or while such joined allocations wait, looks through the
   registry for its records.
   A capture that makes no graph (it failed, or its origin stream was
   destroyed) drops them: the runtime takes the memory with the failed
   graph.
   Lock order: xrt__graph_mem_lock, then xrt__mem_lock. */
typedef struct xrt__graph_mem {
    struct xrt__graph_mem *next;
    uintptr_t graph, exec; /* handles (exec 0: none yet); the entry goes once neither is alive */
    const xrt_backend *be;
    uintptr_t p;
    size_t size;
    int device;
    int freed; /* by a free node of its graph (built by hand), or its allocation node is gone: never the caller's */
    int frees; /* not an allocation: a free node of `graph` (freed 1; gone: 2) frees p, another graph's (size 0) */
    int auto_free; /* its exec's launch frees it if the caller has not (XRT_GRAPH_INSTANTIATE_AUTO_FREE_ON_LAUNCH) */
} xrt__graph_mem;

typedef struct xrt__capture_origin {
    uintptr_t stream; /* its capture is under way: the capture's key (xrt__capture_key) */
    const xrt_backend *be;
    size_t allocs;    /* allocations recorded as the capture's */
    uintptr_t into;   /* the graph it was begun into (xrt_stream_begin_capture_to_graph); 0: a new one */
    uintptr_t graph;  /* into 0: the handle of its graph that xrt_stream_get_capture_info_v2 made; 0: none yet */
    void *graph_obj;  /* the backend's object of that graph (into's too, once asked) */
    char why[256];    /* the failure that invalidated it, where a GPU runtime will not say ("": none seen) */
} xrt__capture_origin;

static pthread_mutex_t xrt__graph_mem_lock = PTHREAD_MUTEX_INITIALIZER; /* both lists */
/* Fork's handlers take it (1; 0 lets it go) inside the ipc lock, before the
   registry's: a thread in an xrt_malloc_async's bookkeeping holds it while it
   waits for the registry's lock, and a child that inherited it held would
   hang in its captures and in xrt_shutdown. */
static void xrt__graph_mem_fork_hold(int hold) { (hold ? pthread_mutex_lock : pthread_mutex_unlock)(&xrt__graph_mem_lock); }
static xrt__capture_origin *xrt__capture_origins; /* xrt__captures of them */
static size_t xrt__capture_cap;
static xrt__graph_mem *xrt__graph_mem_list; /* xrt__graph_mems of them */
static size_t xrt__capture_joined; /* records of allocations on joined streams whose capture is not known yet */
/* The graph whose node's params are being checked (its handle; 0: none):
   its allocations, and those other graphs leave to the caller, are device
   memory to those checks (xrt__mem_classify), as cudaGraphAddMemAllocNode's
   address is to the nodes that follow it. */
static XRT__TLS uintptr_t xrt__gnode_scope;

/* A capture's key: the handle of the stream it was begun on; for the
   per-thread stream, whose one handle XRT_STREAM_PER_THREAD is a stream of
   each thread and device, the thread's number and the device instead (the
   kind bits 0: never a stream's handle). */
static uintptr_t xrt__capture_threads; /* threads numbered so far */

XRT__BACKEND_HELPER uintptr_t xrt__capture_key_per_thread(int device)
{
    if (!xrt__call.capture_number)
        xrt__call.capture_number = __atomic_add_fetch(&xrt__capture_threads, 1, __ATOMIC_RELAXED);
    return xrt__call.capture_number << 16 | (uintptr_t)(device & 0xfff) << XRT__HANDLE_KIND_BITS;
}

static uintptr_t xrt__capture_key(const xrt_backend *b, xrt_stream stream)
{
    int d = 0;
    if (stream != XRT_STREAM_PER_THREAD) return (uintptr_t)stream;
    xrt__err.quiet++;
    if (b->get_device(b, &d) != XRT_SUCCESS) d = 0;
    xrt__err.quiet--;
    return xrt__capture_key_per_thread(d);
}

/* The backend's object of the stream that capture `key` was begun on, as
   the calling thread can name it (a stream's handle, or its own per-thread
   stream: mine, its key, or 0); NULL if it cannot. */
static void *xrt__capture_obj(const xrt_backend *b, uintptr_t key, uintptr_t mine)
{
    const xrt__handle_slot *h;
    if (key & XRT__HANDLE_KIND_MASK) h = xrt__handle_lookup(b, (const void *)key, XRT__HANDLE_STREAM);
    else h = key == mine ? xrt__handle_special_stream(b, XRT_STREAM_PER_THREAD) : NULL;
    return h ? h->obj : NULL;
}

/* Followed from its beginning, or not at all (no memory for the list: its
   allocations are then recorded as any; a capture into a graph is then
   refused): 1 if followed. stream: the capture's key. */
static int xrt__capture_follow(const xrt_backend *b, uintptr_t stream, uintptr_t into)
{
    size_t n;
    pthread_mutex_lock(&xrt__graph_mem_lock);
    n = (size_t)xrt__captures;
    if (n == xrt__capture_cap) {
        size_t cap = n ? 2 * n : 8;
        xrt__capture_origin *o = (xrt__capture_origin *)XRT_REALLOC(xrt__capture_origins, cap * sizeof *o);
        if (o) xrt__capture_origins = o, xrt__capture_cap = cap;
    }
    if (n < xrt__capture_cap) {
        xrt__capture_origins[n].stream = stream;
        xrt__capture_origins[n].be = b;
        xrt__capture_origins[n].allocs = 0;
        xrt__capture_origins[n].into = into;
        xrt__capture_origins[n].graph = 0;
        xrt__capture_origins[n].graph_obj = NULL;
        xrt__capture_origins[n].why[0] = 0;
        if (into) __atomic_store_n(&xrt__captures_into, xrt__captures_into + 1, __ATOMIC_RELAXED);
        __atomic_store_n(&xrt__captures, (int)n + 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&xrt__graph_mem_lock);
    return n < xrt__capture_cap;
}

XRT_API void xrt__capture_begun(const xrt_backend *b, xrt_stream stream)
{
    xrt__capture_follow(b, xrt__capture_key(b, stream), 0);
}

/* A GPU runtime's end of an invalidated capture does not say what
   invalidated it; the CPU backend's does. So after each failure of a GPU
   call (its detail just recorded) while captures are under way, those it
   invalidated (invalidated(ctx, their stream): the runtime's answer) keep
   its detail, and their end names it (xrt__capture_invalidated_by). A
   failure because of an earlier one is not the cause. */
XRT__BACKEND_HELPER void xrt__capture_note_failure(int (*invalidated)(const void *ctx, void *stream), const void *ctx)
{
    const xrt_backend *b = xrt__be();
    uintptr_t mine;
    int i;
    if (xrt__err.quiet || xrt__err.status == XRT_ERROR_STREAM_CAPTURE_INVALIDATED) return;
    mine = xrt__call.capture_number ? xrt__capture_key(b, XRT_STREAM_PER_THREAD) : 0;
    pthread_mutex_lock(&xrt__graph_mem_lock);
    for (i = 0; i < xrt__captures; i++) {
        xrt__capture_origin *o = &xrt__capture_origins[i];
        void *obj = o->why[0] ? NULL : xrt__capture_obj(b, o->stream, mine);
        if (obj && invalidated(ctx, obj)) snprintf(o->why, sizeof o->why, "%.255s", xrt__err.detail);
    }
    pthread_mutex_unlock(&xrt__graph_mem_lock);
}

XRT__BACKEND_HELPER int xrt__capture_invalidated_by(uintptr_t key, char *why, size_t n)
{
    int i, found = 0;
    pthread_mutex_lock(&xrt__graph_mem_lock);
    for (i = 0; i < xrt__captures && !found; i++)
        if (xrt__capture_origins[i].stream == key && xrt__capture_origins[i].why[0])
            found = snprintf(why, n, "%s", xrt__capture_origins[i].why) >= 0;
    pthread_mutex_unlock(&xrt__graph_mem_lock);
    return found;
}

XRT_API uintptr_t xrt__capture_into(const xrt_backend *b, xrt_stream origin)
{
    uintptr_t into = 0, stream = xrt__capture_key(b, origin);
    int i;
    pthread_mutex_lock(&xrt__graph_mem_lock);
    for (i = 0; i < xrt__captures; i++)
        if (xrt__capture_origins[i].stream == stream) into = xrt__capture_origins[i].into;
    pthread_mutex_unlock(&xrt__graph_mem_lock);
    return into;
}

/* Whether a capture under way goes into graph. */
static int xrt__graph_captured_into(uintptr_t graph)
{
    int i, found = 0;
    pthread_mutex_lock(&xrt__graph_mem_lock);
    for (i = 0; i < xrt__captures && !found; i++) found = xrt__capture_origins[i].into == graph;
    pthread_mutex_unlock(&xrt__graph_mem_lock);
    return found;
}

/* The capture that an allocation on `stream` belongs to (its origin), or NULL. */
static xrt__capture_origin *xrt__capture_origin_locked(uintptr_t stream)
{
    int i;
    for (i = 0; i < xrt__captures; i++)
        if (xrt__capture_origins[i].stream == stream) return &xrt__capture_origins[i];
    return xrt__captures == 1 ? &xrt__capture_origins[0] : NULL;
}

XRT_API xrt_status xrt__mem_add_captured(const xrt_backend *b, void **p, size_t n, xrt_stream origin, void *obj)
{
    unsigned status = XRT_CAPTURE_STATUS_NONE;
    xrt_status st;
    xrt__mem_node *node;
    xrt__capture_origin *o;
    uintptr_t stream;
    xrt__err.quiet++;
    if (origin != XRT_STREAM_LEGACY && b->stream_is_capturing(b, obj, &status) != XRT_SUCCESS)
        status = XRT_CAPTURE_STATUS_NONE;
    xrt__err.quiet--;
    if ((st = xrt__mem_add(b, p, n, XRT_MEMORY_DEVICE, "xrt_malloc_async")) != XRT_SUCCESS ||
        status != XRT_CAPTURE_STATUS_ACTIVE)
        return st;
    stream = xrt__capture_key(b, origin);
    pthread_mutex_lock(&xrt__graph_mem_lock);
    o = xrt__capture_origin_locked(stream);
    if (o || xrt__captures > 1) { /* else the capture is not followed (no memory for the list) */
        xrt__spin_lock(&xrt__mem_lock);
        if ((node = xrt__mem_find((uintptr_t)*p)) != NULL) {
            node->capture = o ? o->stream : stream;
            node->joined = !o;
        }
        xrt__spin_unlock(&xrt__mem_lock);
        if (o) o->allocs++;
        else if (node) xrt__capture_joined++;
    }
    pthread_mutex_unlock(&xrt__graph_mem_lock);
    return XRT_SUCCESS;
}

/* Whether an entry's graph or exec is alive. */
static int xrt__graph_mem_alive(const xrt__graph_mem *m)
{
    return xrt__handle_lookup(m->be, (const void *)m->graph, XRT__HANDLE_GRAPH) ||
           (m->exec && xrt__handle_lookup(m->be, (const void *)m->exec, XRT__HANDLE_GRAPH_EXEC));
}

/* Whether p is an allocation that a live graph other than `graph` (or its
   exec) leaves to the caller, which a free node of `graph` may free. Under
   xrt__graph_mem_lock. */
static int xrt__graph_mem_left_by_locked(uintptr_t graph, uintptr_t p)
{
    const xrt__graph_mem *m;
    for (m = xrt__graph_mem_list; m; m = m->next)
        if (m->graph != graph && m->p == p && !m->frees && !m->freed && xrt__graph_mem_alive(m)) return 1;
    return 0;
}

/* Drops the entries of graphs and execs that are gone. */
static void xrt__graph_mem_prune_locked(void)
{
    xrt__graph_mem **pm = &xrt__graph_mem_list, *m;
    while ((m = *pm) != NULL) {
        if (xrt__graph_mem_alive(m)) {
            pm = &m->next;
            continue;
        }
        *pm = m->next;
        XRT_FREE(m);
        __atomic_store_n(&xrt__graph_mems, xrt__graph_mems - 1, __ATOMIC_RELAXED);
    }
}

/* The capture's allocations that the graph did not free leave the registry
   and become the graph's entries; without a graph (the capture failed, or
   its origin was destroyed), they are gone with the capture, as in CUDA,
   where the failed capture's graph takes them. Those of capture `stream`
   (joined: the allocations on that joined stream). */
static void xrt__capture_adopt_locked(const xrt_backend *b, uintptr_t stream, int joined, uintptr_t graph)
{
    xrt__tree_node *t, *taken = NULL;
    xrt__spin_lock(&xrt__mem_lock);
    for (t = xrt__tree_collect(&xrt__mem_tree, 0, UINTPTR_MAX); t; t = t->next) {
        xrt__mem_node *n = (xrt__mem_node *)(void *)t;
        if (n->capture != stream || n->joined != joined) continue;
        xrt__mem_unlink(n);
        if (joined) xrt__capture_joined--;
        t->l = taken; /* out of the tree: a list of its own (->next is collect's) */
        taken = t;
    }
    xrt__spin_unlock(&xrt__mem_lock);
    while (taken) {
        xrt__mem_node *n = (xrt__mem_node *)(void *)taken;
        xrt__graph_mem *m = graph ? (xrt__graph_mem *)XRT_CALLOC(1, sizeof *m) : NULL;
        taken = taken->l;
        xrt__mem_run_hooks(n); /* its memory goes until a launch, or for good */
        if (m) { /* else (no graph, or no memory) the registry forgets it: a free of it fails */
            m->graph = graph;
            m->be = b;
            m->p = n->node.start;
            m->size = n->node.end - n->node.start;
            m->device = n->device;
            m->next = xrt__graph_mem_list;
            xrt__graph_mem_list = m;
            __atomic_store_n(&xrt__graph_mems, xrt__graph_mems + 1, __ATOMIC_RELAXED);
        }
        xrt__mem_spare_put(n);
    }
}

/* Whether the stream of key `stream` is in a capture, as its backend says. */
static int xrt__stream_in_capture(const xrt_backend *b, uintptr_t stream, uintptr_t mine)
{
    void *obj = xrt__capture_obj(b, stream, mine);
    unsigned status = XRT_CAPTURE_STATUS_NONE;
    if (!obj) return 0; /* destroyed, or another thread's own: its capture cannot be told; this end takes its allocations */
    xrt__err.quiet++;
    if (b->stream_is_capturing(b, obj, &status) != XRT_SUCCESS) status = XRT_CAPTURE_STATUS_NONE;
    xrt__err.quiet--;
    return status != XRT_CAPTURE_STATUS_NONE;
}

/* A capture just ended (graph: its graph, or 0): the allocations on joined
   streams that no longer capture were in it, as every other capture under
   way still holds its streams. Without memory to list the streams, they
   wait for the next end. */
static void xrt__capture_settle_joined_locked(const xrt_backend *b, uintptr_t graph) XRT__COLD;
static void xrt__capture_settle_joined_locked(const xrt_backend *b, uintptr_t graph)
{
    size_t cap = xrt__capture_joined, n = 0, i, found = 0;
    uintptr_t *streams = (uintptr_t *)XRT_MALLOC(cap * sizeof *streams), mine;
    xrt__tree_node *t;
    if (!streams) return;
    xrt__spin_lock(&xrt__mem_lock);
    for (t = xrt__tree_collect(&xrt__mem_tree, 0, UINTPTR_MAX); t; t = t->next) {
        const xrt__mem_node *m = (const xrt__mem_node *)(const void *)t;
        if (!m->joined) continue;
        found++;
        for (i = 0; i < n && streams[i] != m->capture; i++) {}
        if (i == n && n < cap) streams[n++] = m->capture;
    }
    xrt__capture_joined = found; /* exact again: xrt__mem_drop_stale_locked may have dropped some */
    xrt__spin_unlock(&xrt__mem_lock);
    mine = xrt__call.capture_number ? xrt__capture_key(b, XRT_STREAM_PER_THREAD) : 0;
    for (i = 0; i < n; i++)
        if (!xrt__stream_in_capture(b, streams[i], mine)) xrt__capture_adopt_locked(b, streams[i], 1, graph);
    XRT_FREE(streams);
}

static void xrt__capture_graph_drop(const xrt_backend *b, uintptr_t h); /* ">> impl: capture graphs" */

/* The capture begun on `stream` is over: off the list, its allocations the
   graph's (graph: its handle) or, without one, gone. The handle its graph
   had while it lasted, if its end made none (it failed, or its origin
   went), goes to *drop for xrt__capture_graph_drop, once the lock is let
   go (else 0). */
static void xrt__capture_over_locked(const xrt_backend *b, uintptr_t stream, uintptr_t graph, uintptr_t *drop)
{
    int i;
    *drop = 0;
    for (i = 0; i < xrt__captures; i++)
        if (xrt__capture_origins[i].stream == stream) {
            if ((*drop = xrt__capture_origins[i].graph) != 0)
                __atomic_store_n(&xrt__capture_graphs, xrt__capture_graphs - 1, __ATOMIC_RELAXED);
            /* its records go first: until then, xrt__mem_drop_stale_locked is on */
            if (xrt__capture_origins[i].allocs) xrt__capture_adopt_locked(b, stream, 0, graph);
            if (xrt__capture_joined) xrt__capture_settle_joined_locked(b, graph);
            if (xrt__capture_origins[i].into) __atomic_store_n(&xrt__captures_into, xrt__captures_into - 1, __ATOMIC_RELAXED);
            xrt__capture_origins[i] = xrt__capture_origins[xrt__captures - 1];
            __atomic_store_n(&xrt__captures, xrt__captures - 1, __ATOMIC_RELAXED);
            return;
        }
}

/* After xrt_stream_end_capture, whatever it returned: graph is its handle, or
   0. A capture that is still under way (an end on the wrong thread) stays. */
XRT_API void xrt__capture_ended(const xrt_backend *b, xrt_stream origin, void *obj, uintptr_t graph)
{
    unsigned status = XRT_CAPTURE_STATUS_NONE;
    uintptr_t stream, drop;
    xrt__err.quiet++;
    if (!graph && b->stream_is_capturing(b, obj, &status) != XRT_SUCCESS) status = XRT_CAPTURE_STATUS_NONE;
    xrt__err.quiet--;
    if (status != XRT_CAPTURE_STATUS_NONE) return;
    stream = xrt__capture_key(b, origin);
    pthread_mutex_lock(&xrt__graph_mem_lock);
    xrt__capture_over_locked(b, stream, graph, &drop);
    pthread_mutex_unlock(&xrt__graph_mem_lock);
    xrt__capture_graph_drop(b, drop);
}

/* Thread `number` (xrt__capture_key_per_thread) exits: the captures begun on its
   per-thread streams are over, without a graph, as a destroyed origin's. */
static void xrt__capture_thread_gone(uintptr_t number)
{
    const xrt_backend *b;
    uintptr_t drop;
    int i;
    pthread_mutex_lock(&xrt__graph_mem_lock);
    for (i = xrt__captures; i-- > 0;) { /* the last origin takes the place of one that goes */
        const xrt__capture_origin *o = &xrt__capture_origins[i];
        if ((o->stream & XRT__HANDLE_KIND_MASK) || o->stream >> 16 != number) continue;
        b = o->be;
        xrt__capture_over_locked(b, o->stream, 0, &drop);
        if (!drop) continue;
        pthread_mutex_unlock(&xrt__graph_mem_lock);
        xrt__capture_graph_drop(b, drop);
        pthread_mutex_lock(&xrt__graph_mem_lock);
        i = xrt__captures; /* look again from the end */
    }
    pthread_mutex_unlock(&xrt__graph_mem_lock);
}

/* After xrt_stream_destroy, whatever it returned (a destroy that fails finds
   no live handle): a destroyed origin's capture is over, without a graph. */
XRT_API void xrt__capture_stream_gone(const xrt_backend *b, uintptr_t stream)
{
    uintptr_t drop;
    pthread_mutex_lock(&xrt__graph_mem_lock);
    xrt__capture_over_locked(b, stream, 0, &drop);
    pthread_mutex_unlock(&xrt__graph_mem_lock);
    xrt__capture_graph_drop(b, drop);
}

/* A graph's allocations are its new exec's (one exec at a time: the
   runtime refuses a second while the first lives). */
XRT_API void xrt__graph_mem_instantiated(uintptr_t graph, uintptr_t exec, int auto_free)
{
    xrt__graph_mem *m;
    pthread_mutex_lock(&xrt__graph_mem_lock);
    xrt__graph_mem_prune_locked();
    for (m = xrt__graph_mem_list; m; m = m->next)
        if (m->graph == graph && (!m->exec || !xrt__handle_lookup(m->be, (const void *)m->exec, XRT__HANDLE_GRAPH_EXEC)))
            m->exec = exec, m->auto_free = auto_free;
    pthread_mutex_unlock(&xrt__graph_mem_lock);
}

/* cudaGraphInstantiateWithFlags's flags: CUDA's enum, and its rules. */
XRT_API xrt_status xrt__graph_flags_check(unsigned long long flags)
{
    const char *fn = "xrt_graph_instantiate_with_flags";
    if (flags & ~15ull)
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "flags 0x%llx has bits other than XRT_GRAPH_INSTANTIATE_*", flags);
    if (flags & XRT_GRAPH_INSTANTIATE_UPLOAD)
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn,
                         "XRT_GRAPH_INSTANTIATE_UPLOAD has no stream here (CUDA takes it through "
                         "cudaGraphInstantiateWithParams only): instantiate, then xrt_graph_upload");
    if ((flags & XRT_GRAPH_INSTANTIATE_DEVICE_LAUNCH) && (flags & XRT_GRAPH_INSTANTIATE_AUTO_FREE_ON_LAUNCH))
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn,
                         "XRT_GRAPH_INSTANTIATE_DEVICE_LAUNCH cannot be used with _AUTO_FREE_ON_LAUNCH, as in CUDA");
    return XRT_SUCCESS;
}

/* A graph with memory nodes (allocation or free) whose exec lives has no
   second: refused here in CUDA's words, on every backend (the runtime
   refuses it too, as a bare "invalid argument"). */
XRT_API xrt_status xrt__graph_mem_one_exec(uintptr_t graph)
{
    const xrt__graph_mem *m;
    uintptr_t exec = 0;
    pthread_mutex_lock(&xrt__graph_mem_lock);
    for (m = xrt__graph_mem_list; m && !exec; m = m->next)
        if (m->graph == graph && m->exec && xrt__handle_lookup(m->be, (const void *)m->exec, XRT__HANDLE_GRAPH_EXEC))
            exec = m->exec;
    pthread_mutex_unlock(&xrt__graph_mem_lock);
    if (!exec) return XRT_SUCCESS;
    return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_graph_instantiate",
                     "graph %p has memory nodes (allocation or free) and exec %p of it lives: such a graph has one "
                     "exec at a time, as in CUDA (destroy the other first)", (void *)graph, (void *)exec);
}

/* Another graph's allocation at p, freed by a launch's free node: its
   record leaves the registry as a free by the caller takes it (the memory
   stays the allocating graph's). */
static void xrt__graph_mem_drop(uintptr_t p)
{
    xrt__mem_node *n;
    xrt__spin_lock(&xrt__mem_lock);
    if ((n = xrt__mem_find(p)) != NULL && n->node.start == p) xrt__mem_unlink(n);
    else n = NULL;
    xrt__spin_unlock(&xrt__mem_lock);
    if (!n) return;
    xrt__mem_run_hooks(n);
    xrt__mem_spare_put(n);
}

/* The launch allocated the exec's memory again: its records come back. */
XRT_API xrt_status xrt__graph_mem_launched(const xrt_backend *b, uintptr_t exec)
{
    xrt__graph_mem *m;
    xrt_status st = XRT_SUCCESS;
    pthread_mutex_lock(&xrt__graph_mem_lock);
    for (m = xrt__graph_mem_list; m; m = m->next) {
        int known;
        if (m->exec == exec && m->frees == 1) xrt__graph_mem_drop(m->p); /* the launch freed it */
        if (m->exec != exec || m->freed) continue;
        if (m->auto_free && !m->frees) xrt__graph_mem_drop(m->p); /* the launch freed it first, then allocated it */
        xrt__spin_lock(&xrt__mem_lock);
        known = xrt__mem_find(m->p) != NULL; /* not freed: the runtime refused the launch */
        xrt__spin_unlock(&xrt__mem_lock);
        xrt__mem_note_device((const void *)m->p, m->device);
        if (!known && !xrt__mem_record(b, (void *)m->p, m->size, XRT_MEMORY_DEVICE, 0))
            st = xrt_error(XRT_ERROR_OUT_OF_MEMORY, "xrt_graph_launch",
                           "launched, but no memory to record its allocation %p (of %zu bytes)", (void *)m->p, m->size);
    }
    pthread_mutex_unlock(&xrt__graph_mem_lock);
    return st;
}

/* Before a launch: refused while an allocation of the exec's previous
   launch is not freed (CUDA's rule; every backend's runtime refuses it too,
   this says which), or while an allocation of another graph that a free
   node of it frees is not allocated (xrt's rule: CUDA leaves it undefined). */
XRT_API xrt_status xrt__graph_mem_unfreed(uintptr_t exec)
{
    xrt__graph_mem *m;
    uintptr_t p = 0;
    int absent = 0;
    pthread_mutex_lock(&xrt__graph_mem_lock);
    for (m = xrt__graph_mem_list; m && !p; m = m->next) {
        int known;
        if (m->exec != exec || (m->freed && m->frees != 1) || (m->auto_free && !m->frees)) continue;
        if (m->frees && !xrt__graph_mem_left_by_locked(m->graph, m->p)) { /* its graph went: no graph's now */
            p = m->p, absent = 2;
            break;
        }
        xrt__spin_lock(&xrt__mem_lock);
        known = xrt__mem_find(m->p) != NULL;
        xrt__spin_unlock(&xrt__mem_lock);
        if (m->frees ? !known : known) p = m->p, absent = m->frees;
    }
    pthread_mutex_unlock(&xrt__graph_mem_lock);
    if (!p) return XRT_SUCCESS;
    if (absent == 2)
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_graph_launch",
                         "the graph's free node frees %p, whose allocating graph is gone (it and its exec were "
                         "destroyed): the address is no graph's allocation now (memory there is the caller's, freed "
                         "with xrt_free)", (void *)p);
    if (absent)
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_graph_launch",
                         "the graph's free node frees %p, another graph's allocation, which is not allocated now "
                         "(launch the graph that allocates it first, and do not free it otherwise)", (void *)p);
    return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_graph_launch",
                     "the graph's allocation %p of its previous launch is not freed: free it (xrt_free, "
                     "xrt_free_async) before the next launch, as in CUDA", (void *)p);
}

/* Whether p is an allocation of a live graph, for the message of a free. */
static int xrt__graph_mem_has(uintptr_t p)
{
    const xrt__graph_mem *m;
    int has = 0;
    pthread_mutex_lock(&xrt__graph_mem_lock);
    for (m = xrt__graph_mem_list; m && !has; m = m->next) has = m->p == p && !m->freed && xrt__graph_mem_alive(m);
    pthread_mutex_unlock(&xrt__graph_mem_lock);
    return has;
}

/* An allocation node built by hand in graph (a handle): an entry as a
   captured allocation's, the caller's after each launch until a free node
   of the graph frees it. 0 without memory for it. */
static int xrt__graph_mem_built(const xrt_backend *b, uintptr_t graph, const xrt_mem_alloc_node_params *a)
{
    xrt__graph_mem *m = (xrt__graph_mem *)XRT_CALLOC(1, sizeof *m);
    if (!m) return 0;
    m->graph = graph;
    m->be = b;
    m->p = (uintptr_t)a->ptr;
    m->size = a->size;
    m->device = a->device;
    pthread_mutex_lock(&xrt__graph_mem_lock);
    xrt__graph_mem_prune_locked();
    m->next = xrt__graph_mem_list;
    xrt__graph_mem_list = m;
    __atomic_store_n(&xrt__graph_mems, xrt__graph_mems + 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&xrt__graph_mem_lock);
    return 1;
}

/* graph's allocation at p freed (1) or no longer freed (0) by a free node
   of it, or gone with its allocation node (2). */
static void xrt__graph_mem_mark(uintptr_t graph, uintptr_t p, int freed)
{
    xrt__graph_mem *m;
    pthread_mutex_lock(&xrt__graph_mem_lock);
    for (m = xrt__graph_mem_list; m; m = m->next)
        if (m->graph == graph && m->p == p && m->freed != 2) m->freed = m->frees && !freed ? 2 : freed;
    pthread_mutex_unlock(&xrt__graph_mem_lock);
}

/* A free node of graph frees p: its own allocation's entry is marked, or
   an entry of its own says that it frees another graph's. 0 without memory
   for it. */
static int xrt__graph_mem_freed_by(const xrt_backend *b, uintptr_t graph, uintptr_t p)
{
    xrt__graph_mem *m, *f;
    int own = 0;
    pthread_mutex_lock(&xrt__graph_mem_lock);
    for (m = xrt__graph_mem_list; m; m = m->next)
        if (m->graph == graph && m->p == p && m->freed != 2 && !m->frees) m->freed = 1, own = 1;
    pthread_mutex_unlock(&xrt__graph_mem_lock);
    if (own) return 1;
    if (!(f = (xrt__graph_mem *)XRT_CALLOC(1, sizeof *f))) return 0;
    f->graph = graph;
    f->be = b;
    f->p = p;
    f->freed = f->frees = 1;
    pthread_mutex_lock(&xrt__graph_mem_lock);
    f->next = xrt__graph_mem_list;
    xrt__graph_mem_list = f;
    __atomic_store_n(&xrt__graph_mems, xrt__graph_mems + 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&xrt__graph_mem_lock);
    return 1;
}

/* A free node of graph frees p: an allocation of the graph that no free
   node of it frees (cudaGraphAddMemFreeNode's rule), or another live
   graph's allocation that its graph leaves to the caller ("launching a
   graph with a free node for that allocation", cudaGraphAddMemAllocNode's
   documentation), once in this graph. */
static xrt_status xrt__graph_mem_free_in(uintptr_t graph, uintptr_t p, const char *fn)
{
    const xrt__graph_mem *m;
    int state = -1;
    pthread_mutex_lock(&xrt__graph_mem_lock);
    for (m = xrt__graph_mem_list; m && state < 0; m = m->next)
        if (m->graph == graph && m->p == p && m->freed != 2) state = m->freed;
    if (state < 0 && xrt__graph_mem_left_by_locked(graph, p)) state = 0;
    pthread_mutex_unlock(&xrt__graph_mem_lock);
    if (state == 0) return XRT_SUCCESS;
    if (state == 1) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%p is freed already by a free node of this graph", (void *)p);
    return xrt_error(XRT_ERROR_INVALID_VALUE, fn,
                     "%p was not allocated by an allocation node of this graph that the graph leaves unfreed (a free "
                     "node frees only those)", (void *)p);
}

/* In a node's check (xrt__gnode_scope): p inside an allocation of that
   graph, or one a live graph leaves to the caller, as device memory; 0 if
   none. Never remembered in the thread's cache: outside a node's check the
   memory is not there. */
static int xrt__graph_mem_scoped(const void *p, xrt_pointer_attributes *a)
{
    const xrt__graph_mem *m;
    int found = 0;
    pthread_mutex_lock(&xrt__graph_mem_lock);
    for (m = xrt__graph_mem_list; m && !found; m = m->next) {
        if ((uintptr_t)p < m->p || (uintptr_t)p - m->p >= m->size || m->freed == 2) continue;
        if (m->graph != xrt__gnode_scope && (m->freed || !xrt__graph_mem_alive(m))) continue;
        found = 1;
        a->type = XRT_MEMORY_DEVICE;
        a->device = m->device;
        a->backend = m->be->name;
        a->base = (void *)m->p;
        a->size = m->size;
    }
    pthread_mutex_unlock(&xrt__graph_mem_lock);
    return found;
}

/* By xrt_shutdown, once the graphs are destroyed. */
static void xrt__graph_mem_shutdown(void)
{
    xrt__graph_mem *m;
    pthread_mutex_lock(&xrt__graph_mem_lock);
    while ((m = xrt__graph_mem_list) != NULL) {
        xrt__graph_mem_list = m->next;
        XRT_FREE(m);
    }
    __atomic_store_n(&xrt__graph_mems, 0, __ATOMIC_RELAXED);
    xrt__capture_joined = 0;
    XRT_FREE(xrt__capture_origins);
    xrt__capture_origins = NULL;
    xrt__capture_cap = 0;
    __atomic_store_n(&xrt__captures, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&xrt__captures_into, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&xrt__capture_graphs, 0, __ATOMIC_RELAXED); /* their handles went with every other */
    pthread_mutex_unlock(&xrt__graph_mem_lock);
}

/* >> impl: pointer checks. What a pointer is (the registry, then the backend;
   the thread's cache of answers) and the checks of every copy, set, peer
   copy and export against it, made by the dispatch before a backend is
   called. */
/* From the registry; the caller holds xrt__mem_lock. Returns 0 if unknown. */
static int xrt__mem_describe(const void *p, xrt_pointer_attributes *a)
{
    xrt__mem_node *n = xrt__mem_find((uintptr_t)p);
    a->type = n ? n->type : XRT_MEMORY_UNKNOWN;
    a->device = n ? n->device : -1;
    a->backend = n ? n->be->name : NULL;
    a->base = n ? (void *)n->node.start : NULL;
    a->size = n ? n->node.end - n->node.start : 0;
    return n != NULL;
}

/* The cached answer for p, if the tree has not changed since. */
static int xrt__mem_cached(const void *p, xrt_pointer_attributes *a)
{
    uintptr_t x = (uintptr_t)p;
    unsigned i;
    if (xrt__mem_cache.version != __atomic_load_n(&xrt__mem_version, __ATOMIC_ACQUIRE)) return 0;
    for (i = 0; i < xrt__mem_cache.count; i++) {
        const xrt__mem_hit *h = &xrt__mem_cache.e[i];
        if (h->a.backend ? x - h->key < h->a.size : x == h->key) {
            *a = h->a;
            return 1;
        }
    }
    return 0;
}

/* Remembers an answer given under the lock, at the tree's version then. */
static void xrt__mem_remember(const void *p, const xrt_pointer_attributes *a)
{
    xrt__mem_hit *h;
    if (xrt__mem_cache.version != xrt__mem_version) {
        xrt__mem_cache.version = xrt__mem_version;
        xrt__mem_cache.count = xrt__mem_cache.next = 0;
    }
    h = &xrt__mem_cache.e[xrt__mem_cache.next++ % XRT__MEM_CACHE];
    if (xrt__mem_cache.count < XRT__MEM_CACHE) xrt__mem_cache.count++;
    h->key = a->backend ? (uintptr_t)a->base : (uintptr_t)p;
    h->a = *a;
}

/* Registry first (the thread's cache, else one lock for all pointers),
   then the backend, for memory it allocated natively. An unknown pointer is
   an answer, not an error: the backend's failure (or a custom backend's
   UNSUPPORTED stub) must neither log nor replace the thread's last error. */
static void xrt__mem_classify(const xrt_backend *b, size_t count, const void *const *ps, xrt_pointer_attributes *as)
{
    int cached[2] = {0, 0}; /* count <= 2: a copy's dst and src */
    size_t i;
    for (i = 0; i < count; i++) cached[i] = xrt__mem_cached(ps[i], &as[i]);
    if (!cached[0] || (count > 1 && !cached[1])) {
        xrt__spin_lock(&xrt__mem_lock);
        for (i = 0; i < count; i++)
            if (!cached[i]) {
                xrt__mem_describe(ps[i], &as[i]);
                xrt__mem_remember(ps[i], &as[i]);
            }
        xrt__spin_unlock(&xrt__mem_lock);
    }
    for (i = 0; i < count; i++) {
        if (XRT__UNLIKELY(xrt__gnode_scope) && !as[i].backend && ps[i] && xrt__graph_mem_scoped(ps[i], &as[i])) continue;
        if (as[i].backend || !ps[i] || b->pointer_get_attributes == xrt__unsupported_pointer_get_attributes) continue;
        xrt__err.quiet++;
        if (b->pointer_get_attributes(b, &as[i], ps[i]) != XRT_SUCCESS) {
            as[i].type = XRT_MEMORY_UNKNOWN;
            as[i].backend = NULL;
        }
        xrt__err.quiet--;
    }
}

XRT_API xrt_status xrt__mem_lookup(const xrt_backend *b, xrt_pointer_attributes *a, const void *p)
{
    if (XRT__UNLIKELY(b == &xrt__forbidden_backend)) return xrt__forbidden_fail("xrt_pointer_get_attributes");
    xrt__mem_classify(b, 1, &p, a);
    return XRT_SUCCESS;
}

static int xrt__mem_on_device(xrt_memory_type t) { return t == XRT_MEMORY_DEVICE || t == XRT_MEMORY_MANAGED; }
static int xrt__mem_on_host(xrt_memory_type t) { return t != XRT_MEMORY_DEVICE; }

/* One side of a copy or set: belongs to b (or is plain host memory), and
   [p, p+n) stays inside its allocation. */
static xrt_status xrt__mem_check_range(const xrt_backend *b, const void *p, size_t n, const char *what,
                                   const char *fn, const xrt_pointer_attributes *a)
{
    if (a->backend && a->backend != b->name && strcmp(a->backend, b->name) != 0) /* registry names are b->name */
        return xrt_error(XRT_ERROR_INVALID_POINTER, fn, "%s %p belongs to backend %s, not %s", what, p,
                         a->backend, b->name);
    if (a->size && n > a->size - ((uintptr_t)p - (uintptr_t)a->base)) /* p is inside: no wrap-around */
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%zu bytes at %s %p overrun its allocation (%zu bytes at %p)",
                         n, what, p, a->size, a->base);
    return XRT_SUCCESS;
}

static const char *const xrt__mem_kind_names[] = {"host-to-host", "host-to-device", "device-to-host",
                                              "device-to-device", "default"};

/* A pointer the registry does not know, for xrt__mem_fast_sides: host
   memory where b keeps no memory outside the registry, else what b's
   runtime says of it now (`side` is set in *asked). The answer is not kept:
   the address may be freed and mapped again as device memory, unseen by xrt
   (DESIGN.md, "What a GPU call costs xrt"). */
static int xrt__mem_fast_native(const xrt_backend *b, uintptr_t p, int *asked, int side)
{
    xrt_pointer_attributes a;
    xrt_status st;
    if (b->pointer_get_attributes == xrt__unsupported_pointer_get_attributes) return 0;
    memset(&a, 0, sizeof a);
    a.device = -1;
    *asked |= side;
    xrt__err.quiet++;
    st = b->pointer_get_attributes(b, &a, (const void *)p);
    xrt__err.quiet--;
    if (st != XRT_SUCCESS) return 0; /* unknown: host memory, as xrt__mem_classify says */
    if (a.size || (a.backend && a.backend != b->name)) return -1; /* the full path's range and backend checks */
    return xrt__mem_on_device(a.type);
}

/* What one entry of the thread's cache says of one side of a copy, in the
   form the checks need: 1 (device or managed memory of b, the range inside
   it), 0 (host memory of b), -1 (no answer here: take the full path), 2
   (the entry does not hold p), 3 (the registry's miss for p: the runtime
   answers, xrt__mem_fast_native). */
#define XRT__MEM_FAST_NONE 2
#define XRT__MEM_FAST_NATIVE 3
static inline int xrt__mem_fast_hit(const xrt_backend *b, const xrt__mem_hit *h, uintptr_t p, size_t n)
{
    if (!h->a.backend) return p == h->key ? XRT__MEM_FAST_NATIVE : XRT__MEM_FAST_NONE;
    if (p - h->key >= h->a.size) return XRT__MEM_FAST_NONE;
    if (h->a.backend != b->name || n > h->a.size - (p - h->key)) return -1;
    return xrt__mem_on_device(h->a.type);
}

/* Both sides from one pass over the cache, each side answered by the first
   entry that holds it; the runtime is asked only once both are found. */
static int xrt__mem_fast_sides(const xrt_backend *b, uintptr_t dst, uintptr_t src, size_t n, int *d, int *s,
                               int *asked)
{
    unsigned i;
    *d = *s = XRT__MEM_FAST_NONE;
    for (i = 0; i < xrt__mem_cache.count && (*d == XRT__MEM_FAST_NONE || *s == XRT__MEM_FAST_NONE); i++) {
        if (*d == XRT__MEM_FAST_NONE) *d = xrt__mem_fast_hit(b, &xrt__mem_cache.e[i], dst, n);
        if (*s == XRT__MEM_FAST_NONE) *s = xrt__mem_fast_hit(b, &xrt__mem_cache.e[i], src, n);
    }
    if (*d < 0 || *d == XRT__MEM_FAST_NONE || *s < 0 || *s == XRT__MEM_FAST_NONE) return 0;
    if (*d == XRT__MEM_FAST_NATIVE && (*d = xrt__mem_fast_native(b, dst, asked, 1)) < 0) return 0;
    if (*s == XRT__MEM_FAST_NATIVE && (*s = xrt__mem_fast_native(b, src, asked, 2)) < 0) return 0;
    return 1;
}

/* The common copy between buffers the thread has used before, without a
   lock or a copy of their attributes; 0 when the full check must answer.
   *asked: the sides the runtime answered for (1 dst, 2 src). */
static int xrt__mem_fast_copy(const xrt_backend *b, void *dst, const void *src, size_t n, xrt_memcpy_kind *kind,
                              int *asked)
{
    int d, s;
    if (xrt__mem_cache.version != __atomic_load_n(&xrt__mem_version, __ATOMIC_ACQUIRE) || !dst || !src) return 0;
    if (!xrt__mem_fast_sides(b, (uintptr_t)dst, (uintptr_t)src, n, &d, &s, asked)) return 0;
    if (*kind == XRT_MEMCPY_DEFAULT) *kind = (xrt_memcpy_kind)(s * 2 + d);
    return (unsigned)*kind == (unsigned)(s * 2 + d);
}

static xrt_status xrt__mem_resolve_kind(const void *dst, const void *src, const xrt_pointer_attributes *d,
                                        const xrt_pointer_attributes *s, xrt_memcpy_kind *kind, const char *fn);
static xrt_status xrt__mem_check_copy_full(const xrt_backend *b, void *dst, const void *src, size_t n,
                                           xrt_memcpy_kind *kind, const char *fn) __attribute__((noinline));
static xrt_status xrt__mem_check_copy_full(const xrt_backend *b, void *dst, const void *src, size_t n,
                                           xrt_memcpy_kind *kind, const char *fn)
{
    xrt_memcpy_kind kind_in = *kind;
    xrt_pointer_attributes as[2];
    const xrt_pointer_attributes *d = &as[0], *s = &as[1];
    const void *ps[2];
    int asked = 0;
    xrt_status st;
    if ((unsigned)*kind > XRT_MEMCPY_DEFAULT)
        return xrt_error(XRT_ERROR_INVALID_MEMCPY_KIND, fn, "kind %d is not an xrt_memcpy_kind", (int)*kind);
    if (n == 0) return xrt__no_op(b, fn);
    if (xrt__mem_fast_copy(b, dst, src, n, kind, &asked)) {
        xrt__mem_last.native = asked;
        xrt__mem_last.b = b;
        xrt__mem_last.dst = dst;
        xrt__mem_last.src = src;
        xrt__mem_last.n = n;
        xrt__mem_last.kind = kind_in;
        xrt__mem_last.resolved = *kind;
        xrt__mem_last.version = xrt__mem_cache.version;
        return XRT_SUCCESS;
    }
    if (!dst || !src) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%s is NULL", dst ? "src" : "dst");
    ps[0] = dst;
    ps[1] = src;
    xrt__mem_classify(b, 2, ps, as);
    if ((st = xrt__mem_check_range(b, dst, n, "dst", fn, d)) != XRT_SUCCESS) return st;
    if ((st = xrt__mem_check_range(b, src, n, "src", fn, s)) != XRT_SUCCESS) return st;
    return xrt__mem_resolve_kind(dst, src, d, s, kind, fn);
}

/* A copy's kind against its sides' memory; XRT_MEMCPY_DEFAULT resolved. */
static xrt_status xrt__mem_resolve_kind(const void *dst, const void *src, const xrt_pointer_attributes *d,
                                        const xrt_pointer_attributes *s, xrt_memcpy_kind *kind, const char *fn)
{
    int want_dst_dev, want_src_dev;
    if (*kind == XRT_MEMCPY_DEFAULT) {
        *kind = (xrt_memcpy_kind)((xrt__mem_on_device(s->type) ? 2 : 0) + (xrt__mem_on_device(d->type) ? 1 : 0));
        return XRT_SUCCESS;
    }
    want_dst_dev = *kind == XRT_MEMCPY_HOST_TO_DEVICE || *kind == XRT_MEMCPY_DEVICE_TO_DEVICE;
    want_src_dev = *kind == XRT_MEMCPY_DEVICE_TO_HOST || *kind == XRT_MEMCPY_DEVICE_TO_DEVICE;
    if (want_dst_dev ? !xrt__mem_on_device(d->type) : !xrt__mem_on_host(d->type))
        return xrt_error(XRT_ERROR_INVALID_MEMCPY_KIND, fn, "kind %s but dst %p is %s memory",
                         xrt__mem_kind_names[*kind], dst, xrt__mem_names[d->type]);
    if (want_src_dev ? !xrt__mem_on_device(s->type) : !xrt__mem_on_host(s->type))
        return xrt_error(XRT_ERROR_INVALID_MEMCPY_KIND, fn, "kind %s but src %p is %s memory",
                         xrt__mem_kind_names[*kind], src, xrt__mem_names[s->type]);
    return XRT_SUCCESS;
}

/* Whether the runtime still says of the last copy's sides it was asked
   about what it said then (the resolved kind is s * 2 + d). */
static int xrt__mem_last_native_same(const xrt_backend *b, const void *dst, const void *src) __attribute__((noinline));
static int xrt__mem_last_native_same(const xrt_backend *b, const void *dst, const void *src)
{
    int asked = 0, r = (int)xrt__mem_last.resolved;
    if ((xrt__mem_last.native & 1) && xrt__mem_fast_native(b, (uintptr_t)dst, &asked, 1) != (r & 1)) return 0;
    if ((xrt__mem_last.native & 2) && xrt__mem_fast_native(b, (uintptr_t)src, &asked, 2) != (r >> 1)) return 0;
    return 1;
}

/* The thread's last copy again (same pointers, size, kind and registry
   version) is answered here, without the frame of the full check; a side
   that the registry does not know is asked of the runtime again. */
XRT_API xrt_status xrt__mem_check_copy(const xrt_backend *b, void *dst, const void *src, size_t n,
                                       xrt_memcpy_kind *kind, const char *fn)
{
    const xrt__mem_dst d = {dst, n, n, 1, 0, 1};
    xrt_status st;
    if (dst == xrt__mem_last.dst && src == xrt__mem_last.src && n == xrt__mem_last.n && *kind == xrt__mem_last.kind &&
        b == xrt__mem_last.b && xrt__mem_last.version == __atomic_load_n(&xrt__mem_version, __ATOMIC_ACQUIRE) &&
        (!xrt__mem_last.native || xrt__mem_last_native_same(b, dst, src))) {
        *kind = xrt__mem_last.resolved;
        return xrt__mem_check_writable(&d, fn);
    }
    st = xrt__mem_check_copy_full(b, dst, src, n, kind, fn);
    return st != XRT_SUCCESS ? st : xrt__mem_check_writable(&d, fn);
}

/* A rectangle's side: pitch at least width, its span (first byte of the
   first row to the last byte of the last) neither overflowing nor past its
   allocation. Rows are pitch apart and increasing, so the span inside the
   allocation is every row inside it. *span: the span. */
static xrt_status xrt__mem_check_rect(const void *p, size_t pitch, size_t width, size_t height, const char *what,
                                      const char *fn, size_t *span)
{
    if (!p) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%s is NULL", what);
    if (pitch < width)
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%s pitch %zu is less than width %zu", what, pitch, width);
    if (height > 1 && pitch > (SIZE_MAX - width) / (height - 1))
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%s pitch %zu x height %zu overflows", what, pitch, height);
    *span = (height - 1) * pitch + width;
    return XRT_SUCCESS;
}

XRT_API xrt_status xrt__mem_check_copy_2d(const xrt_backend *b, void *dst, size_t dpitch, const void *src,
                                          size_t spitch, size_t width, size_t height, xrt_memcpy_kind *kind,
                                          const char *fn)
{
    size_t dspan = 0, sspan = 0; /* set by the checks (gcc -O3 cannot tell) */
    xrt__mem_dst d = {NULL, 0, 0, 0, 0, 1};
    xrt_pointer_attributes as[2];
    const void *ps[2];
    xrt_status st;
    if ((unsigned)*kind > XRT_MEMCPY_DEFAULT)
        return xrt_error(XRT_ERROR_INVALID_MEMCPY_KIND, fn, "kind %d is not an xrt_memcpy_kind", (int)*kind);
    if (width == 0 || height == 0) return xrt__no_op(b, fn);
    if ((st = xrt__mem_check_rect(dst, dpitch, width, height, "dst", fn, &dspan)) != XRT_SUCCESS) return st;
    if ((st = xrt__mem_check_rect(src, spitch, width, height, "src", fn, &sspan)) != XRT_SUCCESS) return st;
    ps[0] = dst;
    ps[1] = src;
    xrt__mem_classify(b, 2, ps, as);
    if ((st = xrt__mem_check_range(b, dst, dspan, "dst", fn, &as[0])) != XRT_SUCCESS) return st;
    if ((st = xrt__mem_check_range(b, src, sspan, "src", fn, &as[1])) != XRT_SUCCESS) return st;
    if ((st = xrt__mem_resolve_kind(dst, src, &as[0], &as[1], kind, fn)) != XRT_SUCCESS) return st;
    d.p = dst, d.width = width, d.pitch = dpitch, d.height = height;
    return xrt__mem_check_writable(&d, fn);
}

XRT_API xrt_status xrt__mem_check_set_2d(const xrt_backend *b, void *p, size_t *pitch, unsigned element_size,
                                         size_t width, size_t height, const char *fn)
{
    size_t span = 0, row = width * element_size; /* span: set by the check (gcc -O3 cannot tell) */
    xrt_status st;
    if (width == 0 || height == 0) return xrt__no_op(b, fn);
    if (row / element_size != width)
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%zu elements of %u bytes overflow", width, element_size);
    if (height == 1) *pitch = row; /* unused for one row, as cudaMemset2D's ("Unused if height is 1") */
    if ((st = xrt__mem_check_rect(p, *pitch, row, height, "dst", fn, &span)) != XRT_SUCCESS) return st;
    if (((uintptr_t)p | *pitch) % element_size)
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "dst %p or pitch %zu is not aligned to %u bytes", p, *pitch,
                         element_size);
    return xrt__mem_check_set(b, p, span, fn);
}

/* A box's side: its first byte (*start) and its span (first byte to last).
   Its rows inside the pitch and, where it has slices past the first, inside
   ysize: then rows and slices are apart and increasing, and the span inside
   the allocation is every row inside it. */
static xrt_status xrt__mem_check_box(const xrt_pitched_ptr *p, const xrt_pos *pos, const xrt_extent *e,
                                     const char *what, const char *fn, unsigned char **start, size_t *span)
{
    size_t slice = 0, off, last;
    if (!p->ptr) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%s ptr is NULL", what);
    if (p->pitch < e->width)
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%s pitch %zu is less than width %zu", what, p->pitch, e->width);
    if (pos->x > p->pitch - e->width)
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%s x %zu + width %zu is past its pitch %zu", what, pos->x,
                         e->width, p->pitch);
    if ((e->depth > 1 || pos->z) && (p->ysize < e->height || pos->y > p->ysize - e->height))
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%s y %zu + height %zu is past its ysize %zu", what, pos->y,
                         e->height, p->ysize);
    if (((e->depth > 1 || pos->z) && __builtin_mul_overflow(p->pitch, p->ysize, &slice)) ||
        __builtin_mul_overflow(pos->z, slice, &off) || __builtin_mul_overflow(pos->y, p->pitch, &last) ||
        __builtin_add_overflow(off, last, &off) || __builtin_add_overflow(off, pos->x, &off) ||
        __builtin_mul_overflow(e->depth - 1, slice, span) || __builtin_mul_overflow(e->height - 1, p->pitch, &last) ||
        __builtin_add_overflow(*span, last, span) || __builtin_add_overflow(*span, e->width, span) ||
        __builtin_add_overflow(off, *span, &last) || __builtin_add_overflow((uintptr_t)p->ptr, last, &last))
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn,
                         "%s box of %zu x %zu x %zu at (%zu, %zu, %zu), pitch %zu, ysize %zu overflows", what,
                         e->width, e->height, e->depth, pos->x, pos->y, pos->z, p->pitch, p->ysize);
    *start = (unsigned char *)p->ptr + off;
    return XRT_SUCCESS;
}

XRT_API xrt_status xrt__mem_check_copy_3d(const xrt_backend *b, xrt_memcpy_3d_parms *p, const char *fn)
{
    size_t dspan = 0, sspan = 0; /* set by the checks (gcc -O3 cannot tell) */
    unsigned char *dst = NULL, *src = NULL;
    xrt__mem_dst d;
    xrt_pointer_attributes as[2];
    const void *ps[2];
    xrt_status st;
    if ((unsigned)p->kind > XRT_MEMCPY_DEFAULT)
        return xrt_error(XRT_ERROR_INVALID_MEMCPY_KIND, fn, "kind %d is not an xrt_memcpy_kind", (int)p->kind);
    if (!p->extent.width || !p->extent.height || !p->extent.depth) return xrt__no_op(b, fn);
    if ((st = xrt__mem_check_box(&p->dst_ptr, &p->dst_pos, &p->extent, "dst", fn, &dst, &dspan)) != XRT_SUCCESS)
        return st;
    if ((st = xrt__mem_check_box(&p->src_ptr, &p->src_pos, &p->extent, "src", fn, &src, &sspan)) != XRT_SUCCESS)
        return st;
    ps[0] = dst;
    ps[1] = src;
    xrt__mem_classify(b, 2, ps, as);
    if ((st = xrt__mem_check_range(b, dst, dspan, "dst", fn, &as[0])) != XRT_SUCCESS) return st;
    if ((st = xrt__mem_check_range(b, src, sspan, "src", fn, &as[1])) != XRT_SUCCESS) return st;
    if ((st = xrt__mem_resolve_kind(dst, src, &as[0], &as[1], &p->kind, fn)) != XRT_SUCCESS) return st;
    d.p = dst, d.width = p->extent.width, d.pitch = p->dst_ptr.pitch, d.height = p->extent.height;
    d.slice = p->extent.depth > 1 ? p->dst_ptr.pitch * p->dst_ptr.ysize : 0, d.depth = p->extent.depth;
    return xrt__mem_check_writable(&d, fn);
}

XRT_API xrt_status xrt__mem_check_set_3d(const xrt_backend *b, const xrt_pitched_ptr *p, const xrt_extent *e,
                                         const char *fn)
{
    static const xrt_pos origin = {0, 0, 0};
    unsigned char *start = NULL; /* both set by the check (gcc -O3 cannot tell) */
    size_t span = 0;
    xrt_status st;
    if (!e->width || !e->height || !e->depth) return xrt__no_op(b, fn);
    if ((st = xrt__mem_check_box(p, &origin, e, "dst", fn, &start, &span)) != XRT_SUCCESS) return st;
    return xrt__mem_check_set(b, start, span, fn);
}

/* A peer copy's side on a device its memory is not on: a device that does
   not exist is cudaMemcpyPeer's cudaErrorInvalidDevice, before the pointer. */
static xrt_status xrt__mem_peer_elsewhere(const xrt_backend *b, const void *p, int device, const char *what,
                                          const char *fn, const xrt_pointer_attributes *a) XRT__COLD;
static xrt_status xrt__mem_peer_elsewhere(const xrt_backend *b, const void *p, int device, const char *what,
                                          const char *fn, const xrt_pointer_attributes *a)
{
    int count = 0;
    if (b->get_device_count(b, &count) == XRT_SUCCESS && device >= count)
        return xrt_error(XRT_ERROR_INVALID_DEVICE, fn, "%s device %d is out of range (%d device%s)", what, device, count,
                         count == 1 ? "" : "s");
    return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%s %p is memory of device %d, not of device %d", what, p, a->device,
                     device);
}

/* A peer copy's side: device memory of b on `device`, [p, p+n) inside it. */
static xrt_status xrt__mem_check_peer_side(const xrt_backend *b, const void *p, int device, size_t n,
                                           const char *what, const char *fn, const xrt_pointer_attributes *a)
{
    xrt_status st;
    if (device < 0) return xrt_error(XRT_ERROR_INVALID_DEVICE, fn, "%s device %d is negative", what, device);
    if (!p) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%s is NULL", what);
    if ((st = xrt__mem_check_range(b, p, n, what, fn, a)) != XRT_SUCCESS) return st;
    if (!xrt__mem_on_device(a->type))
        return xrt_error(XRT_ERROR_INVALID_POINTER, fn, "%s %p is %s memory, not device memory", what, p,
                         xrt__mem_names[a->type]);
    if (a->device != device) return xrt__mem_peer_elsewhere(b, p, device, what, fn, a);
    return XRT_SUCCESS;
}

XRT_API xrt_status xrt__mem_check_peer(const xrt_backend *b, void *dst, int dst_device, const void *src,
                                       int src_device, size_t n, const char *fn)
{
    xrt_pointer_attributes as[2];
    const void *ps[2];
    xrt_status st;
    ps[0] = dst;
    ps[1] = src;
    xrt__mem_classify(b, 2, ps, as);
    if ((st = xrt__mem_check_peer_side(b, dst, dst_device, n, "dst", fn, &as[0])) != XRT_SUCCESS) return st;
    if ((st = xrt__mem_check_peer_side(b, src, src_device, n, "src", fn, &as[1])) != XRT_SUCCESS) return st;
    return n == 0 ? xrt__no_op(b, fn) : XRT_SUCCESS;
}

/* memset's common case without a lock or a copy of the attributes: device
   or managed memory of b that the thread's cache holds, [p, p+n) inside it.
   Anything else (pinned memory included) takes the full check. */
static int xrt__mem_fast_set(const xrt_backend *b, uintptr_t p, size_t n)
{
    unsigned i;
    int r;
    if (xrt__mem_cache.version != __atomic_load_n(&xrt__mem_version, __ATOMIC_ACQUIRE)) return 0;
    for (i = 0; i < xrt__mem_cache.count; i++)
        if ((r = xrt__mem_fast_hit(b, &xrt__mem_cache.e[i], p, n)) != XRT__MEM_FAST_NONE) return r == 1;
    return 0;
}

/* memset targets device, managed or pinned memory, as cudaMemset does. */
XRT_API xrt_status xrt__mem_check_set(const xrt_backend *b, void *p, size_t n, const char *fn)
{
    xrt__mem_dst d = {NULL, 0, 0, 1, 0, 1};
    xrt_pointer_attributes a;
    xrt_status st;
    if (n == 0) return xrt__no_op(b, fn);
    if (!p) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "dst is NULL");
    if (xrt__mem_fast_set(b, (uintptr_t)p, n)) return XRT_SUCCESS;
    xrt__mem_classify(b, 1, (const void *const *)&p, &a);
    if ((st = xrt__mem_check_range(b, p, n, "dst", fn, &a)) != XRT_SUCCESS) return st;
    if (a.type == XRT_MEMORY_UNKNOWN || a.type == XRT_MEMORY_HOST)
        return xrt_error(XRT_ERROR_INVALID_POINTER, fn, "dst %p is %s memory, not device memory", p,
                         xrt__mem_names[a.type]);
    d.p = p, d.width = d.pitch = n;
    return a.type == XRT_MEMORY_PINNED_HOST ? xrt__mem_check_writable(&d, fn) : XRT_SUCCESS;
}

/* Whether a synchronous set (xrt_memset, _2d, _3d, _d16, _d32) of p, a
   checked target, waits for its work, as CUDA's "API synchronization
   behavior" has it: "asynchronous with respect to the host except when the
   target is pinned host memory or a Unified Memory region, in which case
   they are fully synchronous". A set of device memory does not wait. */
XRT_API int xrt__mem_set_waits(const xrt_backend *b, const void *p)
{
    xrt_pointer_attributes a;
    xrt__mem_classify(b, 1, &p, &a);
    return a.type != XRT_MEMORY_DEVICE;
}

/* Whether a synchronous copy of a checked kind waits for its work, as
   CUDA's "API synchronization behavior" has it: "For transfers from device
   memory to device memory, no host-side synchronization is performed";
   every other copy waits. XRT_MEMCPY_DEFAULT is resolved as the checks
   resolve it (xrt__mem_resolve_kind). */
XRT_API int xrt__mem_copy_waits(const xrt_backend *b, const void *dst, const void *src, xrt_memcpy_kind kind)
{
    xrt_pointer_attributes as[2];
    const void *ps[2];
    if (kind != XRT_MEMCPY_DEFAULT) return kind != XRT_MEMCPY_DEVICE_TO_DEVICE;
    ps[0] = dst;
    ps[1] = src;
    xrt__mem_classify(b, 2, ps, as);
    return !xrt__mem_on_device(as[0].type) || !xrt__mem_on_device(as[1].type);
}

/* A dma-buf export covers device memory of b only, inside one allocation. */
XRT_API xrt_status xrt__mem_check_export(const xrt_backend *b, const void *p, size_t n, int *fd, uint64_t *offset)
{
    static const char fn[] = "xrt_mem_export_dmabuf";
    xrt_pointer_attributes a;
    xrt_status st;
    if (!p || !fd || !offset) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%s is NULL", !p ? "ptr" : !fd ? "fd" : "offset");
    *fd = -1;
    *offset = 0;
    if (n == 0) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "size is 0");
    xrt__mem_classify(b, 1, &p, &a);
    if ((st = xrt__mem_check_range(b, p, n, "ptr", fn, &a)) != XRT_SUCCESS) return st;
    if (a.type != XRT_MEMORY_DEVICE)
        return xrt_error(XRT_ERROR_INVALID_POINTER, fn, "ptr %p is %s memory, not device memory", p, xrt__mem_names[a.type]);
    return XRT_SUCCESS;
}

/* >> impl: memory shared between processes. Opens are serialised (rare
   calls), so that the registry's count of a mapping's opens and the
   backend's agree. A close of a mapping of known size is not: the backend's
   close waits for the work queued before it, and a host function in that
   work may open a handle, which would wait for the close (xrt__ipc_close
   says how the counts still agree). A fork waits for an open under way
   (xrt__fork_prepare takes the lock): a child that inherited it held would
   hang in its own opens and closes, and in xrt_shutdown. Its order: inside
   the registry's lock (xrt_shutdown), outside the pointer registry's and
   the log's (an open records and reports under it). */
static pthread_mutex_t xrt__ipc_lock = PTHREAD_MUTEX_INITIALIZER;
/* Fork's handlers: 1 takes the lock (the prepare handler), 0 lets it go (parent and child). */
static void xrt__ipc_fork_hold(int hold) { (hold ? pthread_mutex_lock : pthread_mutex_unlock)(&xrt__ipc_lock); }
/* Opened mappings of unknown size (a GPU runtime's): not in the tree. */
typedef struct xrt__ipc_sizeless { void *p; const xrt_backend *be; unsigned opens; struct xrt__ipc_sizeless *next; } xrt__ipc_sizeless;
static xrt__ipc_sizeless *xrt__ipc_unsized;

static xrt__ipc_sizeless **xrt__ipc_unsized_find(const void *p)
{
    xrt__ipc_sizeless **pp = &xrt__ipc_unsized;
    while (*pp && (*pp)->p != p) pp = &(*pp)->next;
    return pp;
}

static int xrt__ipc_record_unsized(const xrt_backend *b, void *p)
{
    xrt__ipc_sizeless **pp = xrt__ipc_unsized_find(p), *u = *pp;
    if (!u && !(u = *pp = (xrt__ipc_sizeless *)XRT_CALLOC(1, sizeof *u))) return 0;
    u->p = p;
    u->be = b;
    u->opens++;
    return 1;
}

/* A close of an unsized mapping; the ipc lock held. */
static xrt_status xrt__ipc_close_unsized(const xrt_backend *b, xrt__ipc_sizeless **pp)
{
    xrt__ipc_sizeless *u = *pp;
    xrt_status st;
    if (u->be != b)
        return xrt_error(XRT_ERROR_INVALID_POINTER, "xrt_ipc_close_mem_handle", "dev_ptr %p belongs to another backend", u->p);
    if ((st = b->ipc_close_mem_handle(b, u->p)) == XRT_SUCCESS && --u->opens == 0) {
        *pp = u->next;
        XRT_FREE(u);
    }
    return st;
}

/* At shutdown: closes what the program left open. */
static void xrt__ipc_shutdown(void)
{
    xrt__ipc_sizeless *u, *next;
    pthread_mutex_lock(&xrt__ipc_lock);
    for (u = xrt__ipc_unsized, xrt__ipc_unsized = NULL; u; u = next) {
        next = u->next;
        if (xrt__survives_fork(u->be))
            while (u->opens-- && u->be->ipc_close_mem_handle(u->be, u->p) == XRT_SUCCESS) {}
        XRT_FREE(u);
    }
    pthread_mutex_unlock(&xrt__ipc_lock);
}

XRT_API xrt_status xrt__ipc_get(const xrt_backend *b, xrt_ipc_mem_handle *h, void *p)
{
    static const char fn[] = "xrt_ipc_get_mem_handle";
    xrt__mem_node *n;
    const char *why = NULL;
    void *base = NULL;
    size_t size = 0;
    if (!h || !p) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%s is NULL", !h ? "handle" : "dev_ptr");
    memset(h, 0, sizeof *h);
    xrt__spin_lock(&xrt__mem_lock);
    n = xrt__mem_find((uintptr_t)p);
    if (!n) why = "is not memory allocated by xrt (or is freed)";
    else if (n->be != b) why = "belongs to another backend";
    else if (n->type != XRT_MEMORY_DEVICE)
        why = n->type == XRT_MEMORY_MANAGED ? "is managed memory: only device memory is shared, as in CUDA"
                                            : "is pinned host memory: only device memory is shared, as in CUDA";
    else if (n->ipc_opens) why = "was opened from another process's handle: only its exporter makes handles";
    else base = (void *)n->node.start, size = n->node.end - n->node.start;
    xrt__spin_unlock(&xrt__mem_lock);
    if (why) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "dev_ptr %p %s", p, why);
    return b->ipc_get_mem_handle(b, h, base, size);
}

/* Records an opened mapping, or one more open of it; 0 without memory. */
static int xrt__ipc_record(const xrt_backend *b, void *p, size_t size)
{
    xrt__mem_node *n;
    int again;
    if (size == 0) return xrt__ipc_record_unsized(b, p);
    xrt__spin_lock(&xrt__mem_lock);
    n = xrt__mem_find((uintptr_t)p);
    if ((again = n && n->ipc_opens && n->node.start == (uintptr_t)p) != 0) n->ipc_opens++;
    xrt__spin_unlock(&xrt__mem_lock);
    return again || xrt__mem_record(b, p, size, XRT_MEMORY_DEVICE, 1) != NULL;
}

XRT_API xrt_status xrt__ipc_open(const xrt_backend *b, void **p, const xrt_ipc_mem_handle *h, unsigned flags)
{
    static const char fn[] = "xrt_ipc_open_mem_handle";
    size_t size = 0;
    void *ptr = NULL;
    xrt_status st;
    if (!p) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "dev_ptr is NULL");
    *p = NULL;
    if (flags & ~(unsigned)XRT_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "unknown flags 0x%x (XRT_IPC_MEM_LAZY_ENABLE_PEER_ACCESS is 0x1)", flags);
    pthread_mutex_lock(&xrt__ipc_lock);
    st = b->ipc_open_mem_handle(b, &ptr, &size, h, flags);
    if (st == XRT_SUCCESS && !xrt__ipc_record(b, ptr, size)) {
        b->ipc_close_mem_handle(b, ptr);
        st = xrt_error(XRT_ERROR_OUT_OF_MEMORY, fn, "no memory for the pointer registry");
    }
    pthread_mutex_unlock(&xrt__ipc_lock);
    if (st == XRT_SUCCESS) *p = ptr;
    return st;
}

/* A failed close gives its open back (the ipc lock and the registry's held):
   to its record if still in the tree, else to the record an open made
   meanwhile at the same start, else its record goes back in. */
static void xrt__ipc_close_undo(xrt__mem_node *n)
{
    xrt__mem_node *o;
    if (n->ipc_opens) n->ipc_opens++;
    else if ((o = xrt__mem_find(n->node.start)) != NULL && o->ipc_opens && o->node.start == n->node.start) o->ipc_opens++;
    else {
        n->ipc_opens = 1;
        xrt__mem_insert(n); /* still mapped: still known */
    }
}

/* The close takes its open off the record first, under the lock, and
   leaves the tree with the last one (so that an open while the backend
   closes makes a record of its own, and the backend's count, which that
   open raised, keeps the mapping); the backend's close runs without the
   lock; a failure gives the open back. The record is freed by the last
   close under way once it is out of the tree. */
XRT_API xrt_status xrt__ipc_close(const xrt_backend *b, void *p)
{
    static const char fn[] = "xrt_ipc_close_mem_handle";
    xrt__mem_node *n;
    const char *why = NULL;
    int last = 0, drop;
    xrt_status st;
    if (!p) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "dev_ptr is NULL");
    pthread_mutex_lock(&xrt__ipc_lock);
    if (*xrt__ipc_unsized_find(p)) { /* a GPU runtime's: its close waits for none of xrt's host functions */
        st = xrt__ipc_close_unsized(b, xrt__ipc_unsized_find(p));
        pthread_mutex_unlock(&xrt__ipc_lock);
        return st;
    }
    xrt__spin_lock(&xrt__mem_lock);
    n = xrt__mem_find((uintptr_t)p);
    if (!n) why = "was not opened with xrt_ipc_open_mem_handle (or is closed)";
    else if ((uintptr_t)p != n->node.start) why = "is inside an opened mapping, not at its start";
    else if (n->be != b) why = "belongs to another backend";
    else if (!n->ipc_opens) why = "is memory of this process, not opened from a handle (use xrt_free)";
    else {
        n->ipc_closing++;
        if ((last = --n->ipc_opens == 0) != 0) xrt__mem_unlink(n);
    }
    xrt__spin_unlock(&xrt__mem_lock);
    pthread_mutex_unlock(&xrt__ipc_lock);
    /* cudaIpcCloseMemHandle of a pointer it did not open: cudaErrorInvalidValue */
    if (why) return xrt_error(n && n->be != b ? XRT_ERROR_INVALID_POINTER : XRT_ERROR_INVALID_VALUE, fn, "dev_ptr %p %s", p, why);
    if (last) xrt__mem_run_hooks(n); /* before the mapping goes */
    st = b->ipc_close_mem_handle(b, p);
    pthread_mutex_lock(&xrt__ipc_lock); /* an open must not record p between the lookup and the insert of the undo */
    xrt__spin_lock(&xrt__mem_lock);
    n->ipc_closing--;
    if (st != XRT_SUCCESS) xrt__ipc_close_undo(n);
    drop = !n->ipc_opens && !n->ipc_closing;
    xrt__spin_unlock(&xrt__mem_lock);
    pthread_mutex_unlock(&xrt__ipc_lock);
    if (drop) XRT_FREE(n);
    return st;
}

/* Called by xrt_shutdown, with the registry lock held, before the backends
   shut down; a backend's free waits for queued work that may use the memory.
   The tree is emptied under its lock, the hooks and frees run without it. In
   a forked child, memory of a backend that does not survive fork() is only
   forgotten: its runtime cannot be called there. */
static void xrt__mem_shutdown(void)
{
    xrt__tree_node *list, *next;
    xrt__spin_lock(&xrt__mem_lock);
    list = xrt__tree_drain(&xrt__mem_tree);
    xrt__mem_spares_free();
    memset(xrt__mem_usage, 0, sizeof xrt__mem_usage);
    __atomic_store_n(&xrt__mem_version, xrt__mem_version + 1, __ATOMIC_RELEASE);
    xrt__spin_unlock(&xrt__mem_lock);
    for (; list; list = next) {
        xrt__mem_node *t = (xrt__mem_node *)(void *)list;
        next = list->next;
        xrt__mem_run_hooks(t);
        if (xrt__survives_fork(t->be)) {
            if (t->ipc_opens)
                while (t->ipc_opens-- && t->be->ipc_close_mem_handle(t->be, (void *)t->node.start) == XRT_SUCCESS) {}
            else if (t->registered) t->be->host_unregister(t->be, (void *)t->node.start);
            else if (t->type == XRT_MEMORY_PINNED_HOST) t->be->free_host(t->be, (void *)t->node.start);
            else t->be->free(t->be, (void *)t->node.start);
        }
        XRT_FREE(t);
    }
}

/* >> impl: modules. A module handle's object is the core's record of the
   backend's module and of the function handles given out for it, so that
   unloading the module invalidates them all. Function handles own nothing:
   the backend's functions belong to its module. */
typedef struct xrt__module_fn { char *name; uintptr_t handle; } xrt__module_fn;
typedef struct xrt__module {
    void *obj; /* the backend's module */
    pthread_mutex_t lock;
    int dead;  /* unloaded: no more functions */
    size_t n, cap;
    xrt__module_fn *fns;
} xrt__module;

static XRT__TLS char xrt__module_log[8192]; /* the thread's last build log */

XRT_API const char *xrt_module_get_log(void) { return xrt__module_log; }

XRT_API xrt_status xrt__module_destroy(const xrt_backend *b, void *module)
{
    xrt__module *m = (xrt__module *)module;
    xrt_status st = b->module_unload(b, m->obj);
    size_t i;
    for (i = 0; i < m->n; i++) XRT_FREE(m->fns[i].name);
    XRT_FREE(m->fns);
    pthread_mutex_destroy(&m->lock);
    XRT_FREE(m);
    return st;
}

/* Parameter i's value into a (zeroed up to it), at the offset the backend
   gives: 1 if packed, 0 past the last parameter; else the failure, recorded. */
static int xrt__param_pack(const xrt_backend *b, void *fn, size_t i, void **params, xrt_kernel_args *a, xrt_status *st,
                           const char *who)
{
    size_t offset = 0, size = 0, k;
    xrt__err.quiet++;
    *st = b->function_get_param_info(b, fn, i, &offset, &size);
    xrt__err.quiet--;
    if (*st == XRT_ERROR_INVALID_VALUE) return 0; /* past the last */
    if (*st != XRT_SUCCESS) { /* again, to record the backend's reason */
        *st = b->function_get_param_info(b, fn, i, &offset, &size);
        return -1;
    }
    if (!params || !params[i]) {
        *st = xrt_error(XRT_ERROR_INVALID_VALUE, who, "kernel_params%s is NULL, but the kernel "
                        "has parameter %zu", params ? "[i]" : "", i);
        return -1;
    }
    if (offset > XRT_MAX_KERNEL_ARGS || size > XRT_MAX_KERNEL_ARGS - offset) {
        *st = xrt_error(XRT_ERROR_INVALID_VALUE, who, "parameter %zu (%zu bytes at %zu) passes "
                        "the limit of %d bytes (XRT_MAX_KERNEL_ARGS)", i, size, offset, XRT_MAX_KERNEL_ARGS);
        return -1;
    }
    for (k = a->size; k < offset; k++) a->buf.bytes[k] = 0; /* padding */
    memcpy(a->buf.bytes + offset, params[i], size);
    if (offset + size > a->size) a->size = offset + size;
    return 1;
}

/* stream: never NULL (the front's xrt__unit_stream), so that the inline
   launch below does not read it by this unit's setting. With a config (its
   stream the same), xrt_launch_kernel_ex_params: grid, block and
   shared_bytes are the config's. */
XRT_API xrt_status xrt__launch_params(xrt_function function, xrt_dim3 grid, xrt_dim3 block, size_t shared_bytes,
                                      xrt_stream stream, void **kernel_params, const xrt_launch_config *config)
{
    const char *who = config ? "xrt_launch_kernel_ex_params" : "xrt_launch_kernel_params";
    const xrt_backend *b = xrt__be();
    xrt_launch_config c;
    xrt__handle_slot *f;
    xrt_kernel_args a;
    xrt_status st = XRT_SUCCESS;
    size_t i;
    int r = 1;
    memset(&c, 0, sizeof c);
    if (config) c = *config, c.stream = stream;
    xrt__call_enter();
    f = xrt__handle_lookup(b, function, XRT__HANDLE_FUNCTION);
    if (XRT__UNLIKELY(!f)) return xrt__call_exit(xrt__handle_bad(who, function));
    a.size = 0;
    for (i = 0; r > 0 && i < XRT_MAX_KERNEL_ARGS; i++) r = xrt__param_pack(b, f->obj, i, kernel_params, &a, &st, who);
    xrt__call_exit(st);
    if (r < 0) return st;
    if (config) return xrt_launch_kernel_ex(&c, function, a.size ? a.buf.bytes : NULL, a.size);
    return xrt_launch_kernel(function, grid, block, shared_bytes, stream, a.size ? a.buf.bytes : NULL, a.size);
}

XRT_API xrt_status xrt__launch_bad(const char *fn, xrt_dim3 g, xrt_dim3 b, const void *args, size_t args_size)
{
    if (!args && args_size) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "args is NULL but args_size is %zu", args_size);
    if (args_size > XRT_MAX_KERNEL_ARGS)
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "args_size %zu exceeds XRT_MAX_KERNEL_ARGS (%d)", args_size,
                         XRT_MAX_KERNEL_ARGS);
    return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%s dimension of 0: grid (%u, %u, %u), block (%u, %u, %u)",
                     (!g.x || !g.y || !g.z) ? "grid" : "block", g.x, g.y, g.z, b.x, b.y, b.z);
}

/* The packed arguments against the kernel's parameters, where the backend
   knows where they end (the CUDA driver, a CPU kernel's k_xrt_params): a C
   struct of them may end in padding (sizeof rounds up to its alignment, at
   most 16 bytes), which CUDA refuses to take
   (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES), so it is cut off; fewer bytes than
   the parameters, more than such padding, or any for a kernel without
   parameters, are an error. */
#define XRT__ARGS_PADDING 16u
XRT__BACKEND_HELPER xrt_status xrt__args_fit(const char *backend, size_t params, size_t *args_size)
{
    if (*args_size >= params && *args_size - params < XRT__ARGS_PADDING && (params || !*args_size)) {
        *args_size = params;
        return XRT_SUCCESS;
    }
    return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_launch_kernel",
                     "%s: the kernel's parameters take %zu bytes, the arguments are %zu bytes", backend, params,
                     *args_size);
}

static xrt_status xrt__images_check(const xrt_module_image *images, size_t n)
{
    size_t i;
    if (!images) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_module_load", "images is NULL");
    if (!n) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_module_load", "n_images is 0");
    for (i = 0; i < n; i++) {
        if ((int)images[i].kind < XRT_IMAGE_CPU_SHARED_OBJECT || images[i].kind > XRT_IMAGE_HIP_OFFLOAD_BUNDLE)
            return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_module_load", "image %zu: unknown kind %d", i,
                             (int)images[i].kind);
        if (!images[i].data || !images[i].size)
            return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_module_load", "image %zu: %s", i,
                             !images[i].data ? "data is NULL" : "size is 0");
    }
    return XRT_SUCCESS;
}

XRT_API xrt_status xrt_module_load(xrt_module *module, const xrt_module_image *images, size_t n_images,
                                   const char *options)
{
    const xrt_backend *b = xrt__be();
    xrt__module *m;
    uintptr_t h = 0;
    void *obj = NULL;
    xrt_status st;
    XRT__CHECK_PTR(module, "xrt_module_load");
    *module = NULL;
    xrt__module_log[0] = 0;
    if ((st = xrt__images_check(images, n_images)) != XRT_SUCCESS) return st;
    if (!(m = (xrt__module *)XRT_CALLOC(1, sizeof *m)))
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "xrt_module_load", "no memory for a module");
    st = b->module_load(b, &obj, images, n_images, options ? options : "", xrt__module_log, sizeof xrt__module_log);
    if (st != XRT_SUCCESS) {
        XRT_FREE(m);
        return st;
    }
    m->obj = obj;
    pthread_mutex_init(&m->lock, NULL);
    if ((st = xrt__handle_alloc(b, m, XRT__HANDLE_MODULE, 1, &h)) != XRT_SUCCESS) {
        xrt__module_destroy(b, m);
        return st;
    }
    *module = (xrt_module)h;
    return XRT_SUCCESS;
}

/* Releases the module's handle and then its functions' (a launch racing
   with this either found its function alive, and then the module waits
   for that call to end, or fails with an invalid handle). */
XRT_API xrt_status xrt_module_unload(xrt_module module)
{
    const xrt_backend *b = xrt__be();
    uintptr_t h = (uintptr_t)module, flags, fflags;
    void *obj, *fobj;
    xrt__handle_slot *s, *fs;
    xrt__module *m;
    size_t i;
    if (!xrt__handle_lookup(b, module, XRT__HANDLE_MODULE) || !(s = xrt__handle_release(b, h, &obj, &flags)))
        return xrt__handle_bad("xrt_module_unload", module);
    m = (xrt__module *)obj;
    pthread_mutex_lock(&m->lock);
    m->dead = 1;
    pthread_mutex_unlock(&m->lock);
    for (i = 0; i < m->n; i++)
        if ((fs = xrt__handle_release(b, m->fns[i].handle, &fobj, &fflags)) != NULL)
            xrt__handle_retire(b, m->fns[i].handle, fs, fobj, fflags);
    return xrt__handle_retire(b, h, s, m, flags);
}

static xrt_status xrt__module_function_locked(const xrt_backend *b, xrt__module *m, const char *name, uintptr_t *out)
{
    void *fobj = NULL;
    size_t i;
    xrt_status st;
    for (i = 0; i < m->n; i++)
        if (!strcmp(m->fns[i].name, name)) {
            *out = m->fns[i].handle;
            return XRT_SUCCESS;
        }
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 8;
        xrt__module_fn *fns = (xrt__module_fn *)XRT_REALLOC(m->fns, cap * sizeof *fns);
        if (!fns) return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "xrt_module_get_function", "no memory for a function");
        m->fns = fns;
        m->cap = cap;
    }
    if (!(m->fns[m->n].name = (char *)XRT_MALLOC(strlen(name) + 1)))
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "xrt_module_get_function", "no memory for a function");
    strcpy(m->fns[m->n].name, name);
    st = b->module_get_function(b, &fobj, m->obj, name);
    if (st == XRT_SUCCESS) st = xrt__handle_alloc(b, fobj, XRT__HANDLE_FUNCTION, 0, &m->fns[m->n].handle);
    if (st != XRT_SUCCESS) {
        XRT_FREE(m->fns[m->n].name);
        return st;
    }
    *out = m->fns[m->n++].handle;
    return XRT_SUCCESS;
}

/* The same name gives the same handle, valid until the module is unloaded. */
XRT_API xrt_status xrt_module_get_function(xrt_function *function, xrt_module module, const char *name)
{
    const xrt_backend *b = xrt__be();
    xrt__handle_slot *s;
    xrt__module *m;
    uintptr_t h = 0;
    xrt_status st;
    int dead;
    XRT__CHECK_PTR(function, "xrt_module_get_function");
    *function = NULL;
    XRT__CHECK_PTR(name, "xrt_module_get_function");
    if (!name[0]) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_module_get_function", "name is empty");
    xrt__call_enter();
    if (!(s = xrt__handle_lookup(b, module, XRT__HANDLE_MODULE)))
        return xrt__call_exit(xrt__handle_bad("xrt_module_get_function", module));
    m = (xrt__module *)s->obj;
    pthread_mutex_lock(&m->lock);
    dead = m->dead; /* unloaded since the lookup */
    st = dead ? XRT_ERROR_INVALID_HANDLE : xrt__module_function_locked(b, m, name, &h);
    pthread_mutex_unlock(&m->lock);
    if (dead) st = xrt__handle_bad("xrt_module_get_function", module);
    if (st == XRT_SUCCESS) *function = (xrt_function)h;
    return xrt__call_exit(st);
}

/* >> impl: module globals, function attributes, occupancy */
static xrt_status xrt__module_global(const xrt_backend *b, xrt_module module, const char *name, void **ptr,
                                     size_t *size, const char *fn);

XRT_API xrt_status xrt_module_get_global(void **ptr, size_t *size, xrt_module module, const char *name)
{
    const xrt_backend *b = xrt__be();
    void *p = NULL;
    size_t n = 0;
    xrt_status st;
    if (ptr) *ptr = NULL;
    if (size) *size = 0;
    if (!ptr && !size) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_module_get_global", "ptr and size are NULL");
    if ((st = xrt__module_global(b, module, name, &p, &n, "xrt_module_get_global")) != XRT_SUCCESS) return st;
    if (ptr) *ptr = p;
    if (size) *size = n;
    return XRT_SUCCESS;
}

/* The module's variable `name`, through its handle (an unload racing with
   this finds the module dead, as xrt_module_get_function does). */
static xrt_status xrt__module_global(const xrt_backend *b, xrt_module module, const char *name, void **ptr,
                                     size_t *size, const char *fn)
{
    xrt__handle_slot *s;
    xrt__module *m;
    xrt_status st;
    int dead;
    XRT__CHECK_PTR(name, fn);
    if (!name[0]) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "name is empty");
    xrt__call_enter();
    if (!(s = xrt__handle_lookup(b, module, XRT__HANDLE_MODULE))) return xrt__call_exit(xrt__handle_bad(fn, module));
    m = (xrt__module *)s->obj;
    pthread_mutex_lock(&m->lock);
    dead = m->dead;
    st = dead ? XRT_ERROR_INVALID_HANDLE : b->module_get_global(b, ptr, size, m->obj, name);
    pthread_mutex_unlock(&m->lock);
    if (dead) st = xrt__handle_bad(fn, module);
    return xrt__call_exit(st);
}

/* A variable of a host-memory backend's module lies in a loaded object:
   1 where p is in a segment that object cannot write (a const variable, or
   one made read-only after relocation, RELRO), where a copy to it would
   fault in the caller or in the stream's worker. */
typedef struct xrt__ro_ask { uintptr_t p; int ro; } xrt__ro_ask;
static int xrt__ro_segment(struct dl_phdr_info *info, size_t size, void *data)
{
    xrt__ro_ask *a = (xrt__ro_ask *)data;
    int i, in = 0, writable = 0, relro = 0;
    (void)size;
    for (i = 0; i < (int)info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = (uintptr_t)(info->dlpi_addr + ph->p_vaddr);
        if (a->p < lo || a->p - lo >= (uintptr_t)ph->p_memsz) continue;
        if (ph->p_type == PT_LOAD) in = 1, writable = (ph->p_flags & PF_W) != 0;
        else if (ph->p_type == PT_GNU_RELRO) relro = 1;
    }
    if (!in) return 0;
    a->ro = !writable || relro;
    return 1;
}

static int xrt__host_read_only(const void *p)
{
    xrt__ro_ask a;
    a.p = (uintptr_t)p;
    a.ro = 0;
    dl_iterate_phdr(xrt__ro_segment, &a);
    return a.ro;
}

/* A symbol copy: the variable's bytes [offset, offset + count), the other
   side checked as xrt_memcpy checks it; the kind the caller gave must fit
   the other side (the variable is device memory by definition, which the
   CPU backend's registry does not know). async: on `stream`. */
/* Managed memory is either side of a copy of any kind, as in CUDA. */
static int xrt__symbol_managed(const xrt_backend *b, const void *p)
{
    xrt_pointer_attributes a;
    return xrt__mem_lookup(b, &a, p) == XRT_SUCCESS && a.type == XRT_MEMORY_MANAGED;
}

XRT_API xrt_status xrt__symbol_copy(void *caller, int to, void *other, xrt_module module, const char *symbol,
                                    size_t count, size_t offset, xrt_memcpy_kind kind, int async, xrt_stream stream,
                                    const char *fn)
{
    const xrt_backend *b = xrt__be();
    xrt_memcpy_kind k = XRT_MEMCPY_DEFAULT;
    xrt__handle_slot *s = NULL;
    void *p = NULL;
    size_t n = 0;
    xrt_status st;
    int other_on_device;
    if (!async) XRT__CHECK_MAY_WAIT(fn);
    if (kind != XRT_MEMCPY_DEFAULT && kind != XRT_MEMCPY_DEVICE_TO_DEVICE &&
        kind != (to ? XRT_MEMCPY_HOST_TO_DEVICE : XRT_MEMCPY_DEVICE_TO_HOST))
        return xrt_error(XRT_ERROR_INVALID_MEMCPY_KIND, fn, "kind %d: a copy %s a symbol is %s, device to device or default",
                         (int)kind, to ? "to" : "from", to ? "host to device" : "device to host");
    if (!other) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%s is NULL", to ? "src" : "dst");
    xrt__call_enter();
    if (async && XRT__UNLIKELY(!(s = xrt__handle_stream_as(b, stream)))) /* the front's xrt__unit_stream */
        return xrt__call_exit(xrt__handle_bad(fn, stream));
    if ((st = xrt__module_global(b, module, symbol, &p, &n, fn)) != XRT_SUCCESS) return xrt__call_exit(st);
    if (offset > n || count > n - offset)
        return xrt__call_exit(xrt_error(XRT_ERROR_INVALID_VALUE, fn,
                                        "%zu bytes at offset %zu run past the end of '%s' (%zu bytes)", count, offset,
                                        symbol, n));
    if (!count) return xrt__call_exit(xrt__no_op(b, fn));
    p = (char *)p + offset;
    if (to && (b->flags & XRT_BACKEND_HOST_MEMORY) && xrt__host_read_only(p))
        return xrt__call_exit(xrt_error(XRT_ERROR_INVALID_VALUE, fn,
                                        "'%s' is read-only: a const variable of the module cannot be written",
                                        symbol));
    st = to ? xrt__mem_check_copy(b, p, other, count, &k, fn) : xrt__mem_check_copy(b, other, p, count, &k, fn);
    if (st != XRT_SUCCESS) return xrt__call_exit(st);
    other_on_device = to ? (int)k >> 1 : (int)k & 1;
    if (kind != XRT_MEMCPY_DEFAULT && other_on_device != (kind == XRT_MEMCPY_DEVICE_TO_DEVICE) &&
        !xrt__symbol_managed(b, other))
        return xrt__call_exit(xrt_error(XRT_ERROR_INVALID_MEMCPY_KIND, fn, "kind %s but %s %p is %s memory",
                                        xrt__mem_kind_names[kind], to ? "src" : "dst", other,
                                        other_on_device ? "device" : "host"));
    k = (xrt_memcpy_kind)(to ? ((int)k & 2) | 1 : ((int)k & 1) | 2); /* the variable's side is the device's */
    if (async) st = to ? b->memcpy_async(b, p, other, count, k, s->obj) : b->memcpy_async(b, other, p, count, k, s->obj);
    else st = to ? b->memcpy(b, p, other, count, k) : b->memcpy(b, other, p, count, k);
    if (XRT__CHK_ON()) /* the caller's call site, as an inline dispatch's */
        xrt__chk_copy(caller, st, b, fn, stream, s, to ? p : other, count, to ? other : p, count);
    return xrt__call_exit(st);
}

XRT_API xrt_status xrt_function_set_attribute(xrt_function function, xrt_function_attribute attr, int value)
{
    const xrt_backend *b = xrt__be();
    const char *fn = "xrt_function_set_attribute";
    xrt__handle_slot *f;
    if (attr != XRT_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "attribute %d is not an xrt_function_attribute", (int)attr);
    if (value < 0) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "value %d is negative", value);
    xrt__call_enter();
    if (!(f = xrt__handle_lookup(b, function, XRT__HANDLE_FUNCTION))) return xrt__call_exit(xrt__handle_bad(fn, function));
    return xrt__call_exit(b->function_set_attribute(b, f->obj, (int)attr, value));
}

XRT_API xrt_status xrt_function_set_cache_config(xrt_function function, xrt_func_cache config)
{
    const xrt_backend *b = xrt__be();
    const char *fn = "xrt_function_set_cache_config";
    xrt__handle_slot *f;
    if ((unsigned)config > XRT_FUNC_CACHE_PREFER_EQUAL) return xrt__cache_config_bad(fn, config);
    xrt__call_enter();
    if (!(f = xrt__handle_lookup(b, function, XRT__HANDLE_FUNCTION))) return xrt__call_exit(xrt__handle_bad(fn, function));
    return xrt__call_exit(b->function_set_cache_config(b, f->obj, (int)config));
}

XRT_API xrt_status xrt_occupancy_max_active_blocks_per_multiprocessor(int *num_blocks, xrt_function function,
                                                                      int block_size, size_t dynamic_shared)
{
    const xrt_backend *b = xrt__be();
    const char *fn = "xrt_occupancy_max_active_blocks_per_multiprocessor";
    xrt__handle_slot *f;
    XRT__CHECK_PTR(num_blocks, fn);
    *num_blocks = 0;
    if (block_size <= 0) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "block_size %d is not positive", block_size);
    xrt__call_enter();
    if (!(f = xrt__handle_lookup(b, function, XRT__HANDLE_FUNCTION))) return xrt__call_exit(xrt__handle_bad(fn, function));
    return xrt__call_exit(b->occupancy_max_active_blocks_per_multiprocessor(b, num_blocks, f->obj, block_size,
                                                                            dynamic_shared));
}

XRT_API xrt_status xrt_occupancy_max_potential_block_size(int *min_grid_size, int *block_size, xrt_function function,
                                                          size_t dynamic_shared, int block_size_limit)
{
    const xrt_backend *b = xrt__be();
    const char *fn = "xrt_occupancy_max_potential_block_size";
    xrt__handle_slot *f;
    XRT__CHECK_PTR(min_grid_size, fn);
    XRT__CHECK_PTR(block_size, fn);
    *min_grid_size = *block_size = 0;
    if (block_size_limit < 0)
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "block_size_limit %d is negative", block_size_limit);
    xrt__call_enter();
    if (!(f = xrt__handle_lookup(b, function, XRT__HANDLE_FUNCTION))) return xrt__call_exit(xrt__handle_bad(fn, function));
    return xrt__call_exit(
        b->occupancy_max_potential_block_size(b, min_grid_size, block_size, f->obj, dynamic_shared, block_size_limit));
}

/* >> impl: graph nodes. A node's handle is made the first time xrt hands
   the node out (its add, or a list of a captured graph's nodes) and kept in
   one table keyed by (graph handle, the backend's node), so a node always
   has one handle. A node's slot keeps its graph's handle (in flags), so a
   call given a node finds its graph; a graph's destroy frees its nodes'
   handles. A child node's own graph (get_params) gets a handle the same way,
   not owned: it goes with its node. One lock serialises these calls and
   instantiate, update, information and destroy of graphs: none is on a hot
   path, and the graphs of CUDA are not safe to share between threads. */
typedef struct xrt__gnode { uintptr_t graph; const void *obj; uintptr_t handle; } xrt__gnode;
static pthread_mutex_t xrt__gnode_lock = PTHREAD_MUTEX_INITIALIZER;
static xrt__gnode *xrt__gnodes;
static size_t xrt__gnodes_n, xrt__gnodes_cap; /* entries, slots (a power of two; 0: no table) */

XRT_API void xrt__graph_hold(int take)
{
    if (take) pthread_mutex_lock(&xrt__gnode_lock);
    else pthread_mutex_unlock(&xrt__gnode_lock);
}

static size_t xrt__gnode_home(uintptr_t graph, const void *obj)
{
    uint64_t h = (uint64_t)graph * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uintptr_t)obj * 0xC2B2AE3D27D4EB4Full;
    return (size_t)(h ^ (h >> 31)) & (xrt__gnodes_cap - 1);
}

/* The entry of (graph, obj), or the free slot where it would go. */
static xrt__gnode *xrt__gnode_at(uintptr_t graph, const void *obj)
{
    size_t m = xrt__gnodes_cap - 1, i = xrt__gnode_home(graph, obj);
    while (xrt__gnodes[i].handle && (xrt__gnodes[i].graph != graph || xrt__gnodes[i].obj != obj)) i = (i + 1) & m;
    return &xrt__gnodes[i];
}

static int xrt__gnode_grow(void)
{
    size_t i, old_cap = xrt__gnodes_cap, cap = old_cap ? 2 * old_cap : 64;
    xrt__gnode *old = xrt__gnodes, *v = (xrt__gnode *)XRT_CALLOC(cap, sizeof *v);
    if (!v) return 0;
    xrt__gnodes = v;
    xrt__gnodes_cap = cap;
    for (i = 0; i < old_cap; i++)
        if (old[i].handle) *xrt__gnode_at(old[i].graph, old[i].obj) = old[i];
    XRT_FREE(old);
    return 1;
}

/* Empties entry i; the entries after it in its run move back where their
   home allows (linear probing keeps no tombstones). */
static void xrt__gnode_remove(size_t i)
{
    size_t m = xrt__gnodes_cap - 1, j = i;
    xrt__gnodes[i].handle = 0;
    xrt__gnodes_n--;
    for (j = (i + 1) & m; xrt__gnodes[j].handle; j = (j + 1) & m) {
        size_t k = xrt__gnode_home(xrt__gnodes[j].graph, xrt__gnodes[j].obj);
        if (i <= j ? (k <= i || k > j) : (k <= i && k > j)) {
            xrt__gnodes[i] = xrt__gnodes[j];
            xrt__gnodes[j].handle = 0;
            i = j;
        }
    }
}

/* The handle (kind NODE, or GRAPH for a child's graph) of the backend's obj
   in graph, made the first time; *h = 0 for a NULL obj. */
static xrt_status xrt__gnode_handle(const xrt_backend *b, uintptr_t graph, void *obj, uintptr_t kind, uintptr_t *h,
                                    const char *fn)
{
    xrt__gnode *e;
    void *out = NULL;
    xrt_status st;
    *h = 0;
    if (!obj) return XRT_SUCCESS;
    if (xrt__gnodes_cap && (e = xrt__gnode_at(graph, obj))->handle) {
        *h = e->handle;
        return XRT_SUCCESS;
    }
    if ((xrt__gnodes_n + 1) * 2 > xrt__gnodes_cap && !xrt__gnode_grow())
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, fn, "no memory for a node's handle");
    if ((st = xrt__handle_create(b, obj, kind, 0, &out)) != XRT_SUCCESS) return st;
    if (kind == XRT__HANDLE_GRAPH_NODE) /* not published yet: no one else knows the handle */
        xrt__handle_slot_at(xrt__handle_index((uintptr_t)out))->flags = graph & ~XRT__HANDLE_KIND_MASK;
    e = xrt__gnode_at(graph, obj);
    e->graph = graph;
    e->obj = obj;
    e->handle = *h = (uintptr_t)out;
    xrt__gnodes_n++;
    return XRT_SUCCESS;
}

/* Frees the handles of graph's nodes and child graphs (and theirs). */
static void xrt__gnode_forget(const xrt_backend *b, uintptr_t graph)
{
    size_t i = 0;
    while (i < xrt__gnodes_cap) {
        xrt__gnode e = xrt__gnodes[i];
        if (!e.handle || e.graph != graph) {
            i++;
            continue;
        }
        xrt__gnode_remove(i); /* a later entry may move to i: look at i again */
        if ((e.handle & XRT__HANDLE_KIND_MASK) == XRT__HANDLE_GRAPH) {
            xrt__gnode_forget(b, e.handle);
            i = 0; /* that may have moved entries anywhere */
        }
        xrt__handle_free(b, (const void *)e.handle, e.handle & XRT__HANDLE_KIND_MASK, "xrt_graph_destroy");
    }
}

/* One node's handle and its graph's slot; an error (recorded) for a stale
   or foreign handle. */
static xrt_status xrt__gnode_find(const xrt_backend *b, const void *node, const char *fn, xrt__handle_slot **ns,
                                  xrt__handle_slot **gs, uintptr_t *graph)
{
    if (!(*ns = xrt__handle_lookup(b, node, XRT__HANDLE_GRAPH_NODE))) return xrt__handle_bad(fn, node);
    *graph = (*ns)->flags | XRT__HANDLE_GRAPH;
    if (!(*gs = xrt__handle_lookup(b, (const void *)*graph, XRT__HANDLE_GRAPH))) return xrt__handle_bad(fn, node);
    return XRT_SUCCESS;
}

/* The backend's objects of n nodes of graph, into objs. */
static xrt_status xrt__gnode_objs(const xrt_backend *b, uintptr_t graph, const xrt_graph_node *nodes, size_t n,
                                  void **objs, const char *what, const char *fn)
{
    size_t i;
    for (i = 0; i < n; i++) {
        xrt__handle_slot *s = xrt__handle_lookup(b, nodes[i], XRT__HANDLE_GRAPH_NODE);
        if (!s) return xrt__handle_bad(fn, nodes[i]);
        if ((s->flags | XRT__HANDLE_GRAPH) != graph)
            return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%s[%zu] (node %p) is a node of graph %p, not of graph %p",
                             what, i, (void *)nodes[i], (void *)(s->flags | XRT__HANDLE_GRAPH), (void *)graph);
        objs[i] = s->obj;
    }
    return XRT_SUCCESS;
}

/* A memory node's params, for graph: not in a child's own graph, an
   allocation of some bytes on a device there is, a free of some address
   (which allocation it frees is the backend's to check). */
static xrt_status xrt__gnode_mem_in(const xrt_backend *b, uintptr_t graph, const xrt_graph_node_params *p,
                                    const char *fn)
{
    const xrt__handle_slot *g = xrt__handle_lookup(b, (const void *)graph, XRT__HANDLE_GRAPH);
    int count = 0;
    xrt_status st;
    if ((st = xrt__graph_capturing(graph, fn)) != XRT_SUCCESS) return st;
    if (g && !(g->flags & XRT__HANDLE_OWNED))
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn,
                         "graph %p is a child node's own graph: memory nodes cannot be in a child graph, as in CUDA",
                         (void *)graph);
    if (p->type == XRT_GRAPH_NODE_MEM_FREE)
        return p->mem_free.ptr ? xrt__graph_mem_free_in(graph, (uintptr_t)p->mem_free.ptr, fn)
                               : xrt_error(XRT_ERROR_INVALID_VALUE, fn, "the free's ptr is NULL");
    if (!p->alloc.size) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "the allocation's size is 0");
    if ((st = b->get_device_count(b, &count)) != XRT_SUCCESS) return st;
    if (p->alloc.device < 0 || p->alloc.device >= count)
        return xrt_error(XRT_ERROR_INVALID_DEVICE, fn, "device %d is out of range (%d device%s)", p->alloc.device,
                         count, count == 1 ? "" : "s");
    return XRT_SUCCESS;
}

/* A node's params with its handles replaced by the backend's objects, checked. */
static xrt_status xrt__gnode_params_in(const xrt_backend *b, uintptr_t graph, const xrt_graph_node_params *p,
                                       xrt_graph_node_params *out, const char *fn)
{
    xrt__handle_slot *s;
    xrt_status st;
    *out = *p;
    switch (p->type) {
    case XRT_GRAPH_NODE_KERNEL: {
        const xrt_kernel_node_params *k = &p->kernel;
        if (!(s = xrt__handle_lookup(b, k->function, XRT__HANDLE_FUNCTION))) return xrt__handle_bad(fn, k->function);
        if (!k->grid.x || !k->grid.y || !k->grid.z || !k->block.x || !k->block.y || !k->block.z ||
            (!k->args && k->args_size) || k->args_size > XRT_MAX_KERNEL_ARGS)
            return xrt__launch_bad(fn, k->grid, k->block, k->args, k->args_size);
        out->kernel.function = (xrt_function)s->obj;
        return XRT_SUCCESS;
    }
    case XRT_GRAPH_NODE_MEMCPY:
        if ((unsigned)p->copy.kind > XRT_MEMCPY_DEFAULT)
            return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "unknown copy kind %d", (int)p->copy.kind);
        xrt__gnode_scope = graph;
        st = xrt__mem_check_copy(b, p->copy.dst, p->copy.src, p->copy.size, &out->copy.kind, fn);
        xrt__gnode_scope = 0;
        return st;
    case XRT_GRAPH_NODE_MEMSET: {
        const xrt_memset_node_params *m = &p->set;
        size_t row = m->width * m->element_size;
        if (m->element_size != 1 && m->element_size != 2 && m->element_size != 4)
            return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "element_size %u is not 1, 2 or 4", m->element_size);
        if (m->element_size < 4 && (m->value >> (8 * m->element_size)))
            return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "value 0x%x does not fit in %u bytes", m->value,
                             m->element_size);
        if (m->width && row / m->width != m->element_size)
            return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "width %zu overflows", m->width);
        if (m->height > 1 && m->pitch < row)
            return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "pitch %zu is less than a row's %zu bytes", m->pitch, row);
        if (m->height > 1 && m->pitch > (SIZE_MAX - row) / (m->height - 1))
            return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "pitch %zu x height %zu overflows", m->pitch, m->height);
        if (((uintptr_t)m->dst | m->pitch * (m->height > 1)) % m->element_size)
            return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "dst %p or pitch %zu is not aligned to element_size %u",
                             m->dst, m->pitch, m->element_size);
        if (!m->height || !row) return XRT_SUCCESS;
        xrt__gnode_scope = graph;
        st = xrt__mem_check_set(b, m->dst, (m->height - 1) * m->pitch + row, fn);
        xrt__gnode_scope = 0;
        return st;
    }
    case XRT_GRAPH_NODE_HOST:
        return p->host.fn ? XRT_SUCCESS : xrt_error(XRT_ERROR_INVALID_VALUE, fn, "the host function is NULL");
    case XRT_GRAPH_NODE_GRAPH:
        if (!(s = xrt__handle_lookup(b, p->child.graph, XRT__HANDLE_GRAPH))) return xrt__handle_bad(fn, p->child.graph);
        if ((uintptr_t)p->child.graph == graph)
            return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "graph %p cannot be a child of itself", (void *)graph);
        out->child.graph = (xrt_graph)s->obj;
        return XRT_SUCCESS;
    case XRT_GRAPH_NODE_WAIT_EVENT:
    case XRT_GRAPH_NODE_EVENT_RECORD:
        if (!(s = xrt__handle_lookup(b, p->event.event, XRT__HANDLE_EVENT))) return xrt__handle_bad(fn, p->event.event);
        out->event.event = (xrt_event)s->obj;
        return XRT_SUCCESS;
    case XRT_GRAPH_NODE_EMPTY:
        return XRT_SUCCESS;
    case XRT_GRAPH_NODE_MEM_ALLOC:
    case XRT_GRAPH_NODE_MEM_FREE:
        return xrt__gnode_mem_in(b, graph, p, fn);
    }
    return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "unknown node type %d", (int)p->type);
}

/* The backend's objects in params back to handles. */
static xrt_status xrt__gnode_params_out(const xrt_backend *b, uintptr_t graph, xrt_graph_node_params *p,
                                        const char *fn)
{
    uintptr_t h;
    xrt_status st = XRT_SUCCESS;
    if (p->type == XRT_GRAPH_NODE_KERNEL) {
        p->kernel.function = (xrt_function)xrt__handle_of(p->kernel.function, XRT__HANDLE_FUNCTION);
    } else if (p->type == XRT_GRAPH_NODE_WAIT_EVENT || p->type == XRT_GRAPH_NODE_EVENT_RECORD) {
        p->event.event = (xrt_event)xrt__handle_of(p->event.event, XRT__HANDLE_EVENT);
    } else if (p->type == XRT_GRAPH_NODE_GRAPH) {
        st = xrt__gnode_handle(b, graph, p->child.graph, XRT__HANDLE_GRAPH, &h, fn);
        p->child.graph = (xrt_graph)h;
    }
    return st;
}

/* The lock and the call's announcement (objects stay while it lasts). */
static void xrt__gnode_enter(void)
{
    pthread_mutex_lock(&xrt__gnode_lock);
    xrt__call_enter();
}

static xrt_status xrt__gnode_exit(xrt_status st)
{
    xrt__call_exit(st);
    pthread_mutex_unlock(&xrt__gnode_lock);
    return st;
}

XRT_API xrt_status xrt__graph_create(const xrt_backend *b, xrt_graph *graph, unsigned flags)
{
    void *obj = NULL;
    xrt_status st;
    XRT__CHECK_PTR(graph, "xrt_graph_create");
    *graph = NULL;
    if (flags) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_graph_create", "flags 0x%x: there are none (0)", flags);
    if ((st = b->graph_create(b, &obj)) != XRT_SUCCESS) return st;
    return xrt__handle_create(b, obj, XRT__HANDLE_GRAPH, 1, (void **)graph);
}

/* The graph whose node holds child graph h (a handle), or 0. */
static uintptr_t xrt__gnode_parent(uintptr_t h)
{
    size_t i;
    for (i = 0; i < xrt__gnodes_cap; i++)
        if (xrt__gnodes[i].handle == h) return xrt__gnodes[i].graph;
    return 0;
}

/* A graph being captured into that is `graph` or a child node's graph in
   it, at any depth (its destroy would free it under the capture), or 0.
   Under xrt__gnode_lock. */
static uintptr_t xrt__graph_holds_captured(uintptr_t graph)
{
    uintptr_t found = 0, g;
    int i;
    if (!__atomic_load_n(&xrt__captures_into, __ATOMIC_RELAXED)) return 0;
    pthread_mutex_lock(&xrt__graph_mem_lock);
    for (i = 0; i < xrt__captures && !found; i++) {
        for (g = xrt__capture_origins[i].into; g && g != graph;) g = xrt__gnode_parent(g);
        if (g) found = xrt__capture_origins[i].into;
    }
    pthread_mutex_unlock(&xrt__graph_mem_lock);
    return found;
}

/* Refuses the destroy of `what` (a graph, or a child node) that holds
   graph `into`, which is being captured into. */
static xrt_status xrt__graph_held(const char *fn, const char *what, const void *obj, uintptr_t into)
{
    return xrt_error(XRT_ERROR_ILLEGAL_STATE, fn,
                     "%s %p holds graph %p (a child node's graph), which is being captured into: end the capture "
                     "first", what, obj, (void *)into);
}

XRT_API xrt_status xrt__graph_destroy(const xrt_backend *b, xrt_graph graph)
{
    xrt__handle_slot *g;
    uintptr_t into;
    xrt_status st;
    pthread_mutex_lock(&xrt__gnode_lock);
    g = xrt__handle_lookup(b, graph, XRT__HANDLE_GRAPH);
    if (g && !(g->flags & XRT__HANDLE_OWNED) && (st = xrt__graph_capturing((uintptr_t)graph, "xrt_graph_destroy"))) {
        pthread_mutex_unlock(&xrt__gnode_lock);
        return st;
    }
    if (g && !(g->flags & XRT__HANDLE_OWNED)) {
        pthread_mutex_unlock(&xrt__gnode_lock);
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_graph_destroy",
                         "graph %p is a child node's own graph: it goes with its node", (void *)graph);
    }
    if (g && (into = xrt__graph_holds_captured((uintptr_t)graph)) != 0) {
        pthread_mutex_unlock(&xrt__gnode_lock);
        if (into != (uintptr_t)graph) return xrt__graph_held("xrt_graph_destroy", "graph", graph, into);
        return xrt_error(XRT_ERROR_ILLEGAL_STATE, "xrt_graph_destroy",
                         "graph %p is being captured into: end the capture first", (void *)graph);
    }
    if (g && xrt__gnodes_n) xrt__gnode_forget(b, (uintptr_t)graph);
    st = xrt__handle_destroy(b, graph, XRT__HANDLE_GRAPH, "xrt_graph_destroy");
    pthread_mutex_unlock(&xrt__gnode_lock);
    return st;
}

/* A graph being captured into keeps its nodes and edges as they are until
   the capture ends: the captured nodes follow its own (on the CPU backend
   they join it at the end, at the indices after them; CUDA's put each in
   as it comes), and a node added, destroyed or rewired by hand meanwhile
   would stand where they go. An error (recorded) while it is. */
static xrt_status xrt__graph_capture_fixed(xrt_graph graph, const char *fn)
{
    if (!__atomic_load_n(&xrt__captures_into, __ATOMIC_RELAXED) || !xrt__graph_captured_into((uintptr_t)graph))
        return XRT_SUCCESS;
    return xrt_error(XRT_ERROR_ILLEGAL_STATE, fn,
                     "graph %p is being captured into: its nodes and edges change only by the capture until it "
                     "ends (end the capture first)", (void *)graph);
}

/* xrt_graph_add_node's body, under the lock. */
static xrt_status xrt__graph_add_locked(const xrt_backend *b, xrt_graph_node *node, xrt_graph graph,
                                        const xrt_graph_node *deps, size_t ndeps, xrt_graph_node_params *params,
                                        const char *fn)
{
    xrt__handle_slot *g = xrt__handle_lookup(b, graph, XRT__HANDLE_GRAPH);
    xrt_graph_node_params p;
    void *obj = NULL, *few[8], **objs = few;
    uintptr_t h = 0;
    xrt_status st;
    if (!g) return xrt__handle_bad(fn, graph);
    if ((st = xrt__graph_capture_fixed(graph, fn)) != XRT_SUCCESS) return st;
    if (ndeps && !deps) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "deps is NULL but ndeps is %zu", ndeps);
    if (ndeps > 8 && (ndeps > SIZE_MAX / sizeof *objs || !(objs = (void **)XRT_MALLOC(ndeps * sizeof *objs))))
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, fn, "no memory for %zu dependencies", ndeps);
    if ((st = xrt__gnode_objs(b, (uintptr_t)graph, deps, ndeps, objs, "deps", fn)) == XRT_SUCCESS &&
        (st = xrt__gnode_params_in(b, (uintptr_t)graph, params, &p, fn)) == XRT_SUCCESS &&
        (st = b->graph_add_node(b, g->obj, &obj, objs, ndeps, &p)) == XRT_SUCCESS) {
        if (p.type == XRT_GRAPH_NODE_MEM_ALLOC && !xrt__graph_mem_built(b, (uintptr_t)graph, &p.alloc))
            st = xrt_error(XRT_ERROR_OUT_OF_MEMORY, fn, "no memory to follow the graph's allocation");
        else if ((st = xrt__gnode_handle(b, (uintptr_t)graph, obj, XRT__HANDLE_GRAPH_NODE, &h, fn)) != XRT_SUCCESS &&
                 p.type == XRT_GRAPH_NODE_MEM_ALLOC)
            xrt__graph_mem_mark((uintptr_t)graph, (uintptr_t)p.alloc.ptr, 2);
        if (st != XRT_SUCCESS) b->graph_destroy_node(b, g->obj, obj);
        else if (p.type == XRT_GRAPH_NODE_MEM_FREE &&
                 !xrt__graph_mem_freed_by(b, (uintptr_t)graph, (uintptr_t)p.mem_free.ptr)) {
            b->graph_destroy_node(b, g->obj, obj);
            xrt__gnode_remove((size_t)(xrt__gnode_at((uintptr_t)graph, obj) - xrt__gnodes));
            xrt__handle_free(b, (const void *)h, XRT__HANDLE_GRAPH_NODE, fn);
            h = 0;
            st = xrt_error(XRT_ERROR_OUT_OF_MEMORY, fn, "no memory to follow the graph's free");
        }
        if (params->type == XRT_GRAPH_NODE_MEM_ALLOC) params->alloc.ptr = st == XRT_SUCCESS ? p.alloc.ptr : NULL;
    }
    if (objs != few) XRT_FREE(objs);
    *node = (xrt_graph_node)h;
    return st;
}

/* For the checker, a call that added or set a kernel or host node (node:
   the graph's node it made or changed; NULL: refused, or an exec's): the
   thread's annotations are this call's, and go with the node as the backend
   gives it back (">> check: kernel and host nodes' annotations"). Under the
   graph nodes' lock. */
static void xrt__graph_node_noted(const xrt_backend *b, xrt_graph_node node)
{
    xrt__handle_slot *g, *ns;
    uintptr_t graph;
    xrt_graph_node_params p;
    int ok;
    memset(&p, 0, sizeof p);
    xrt__err.quiet++;
    ok = node && xrt__gnode_find(b, node, "xrt_graph_node_set_params", &ns, &g, &graph) == XRT_SUCCESS &&
         b->graph_node_get_params(b, g->obj, ns->obj, &p) == XRT_SUCCESS;
    xrt__err.quiet--;
    xrt__chk_node_noted(ok ? &p : NULL);
}

XRT_API xrt_status xrt__graph_add(const xrt_backend *b, xrt_graph_node *node, xrt_graph graph,
                                  const xrt_graph_node *deps, size_t ndeps, xrt_graph_node_params *params,
                                  const char *fn)
{
    xrt_status st;
    if (!node) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "node is NULL");
    if (!params) { /* *node is written last: deps may be where it points */
        *node = NULL;
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "params is NULL");
    }
    xrt__gnode_enter();
    st = xrt__graph_add_locked(b, node, graph, deps, ndeps, params, fn);
    if ((params->type == XRT_GRAPH_NODE_KERNEL || params->type == XRT_GRAPH_NODE_HOST) && XRT__CHK_ON())
        xrt__graph_node_noted(b, st == XRT_SUCCESS ? *node : NULL);
    return xrt__gnode_exit(st);
}

XRT_API xrt_status xrt__graph_add_typed(const xrt_backend *b, xrt_graph_node *node, xrt_graph graph,
                                        const xrt_graph_node *deps, size_t ndeps, xrt_graph_node_type type,
                                        const void *params, size_t size, const char *fn)
{
    xrt_graph_node_params p;
    if (size && !params) {
        if (node) *node = NULL;
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "params is NULL");
    }
    memset(&p, 0, sizeof p);
    p.type = type;
    if (size) memcpy(&p.kernel, params, size); /* every member starts where the union does */
    return xrt__graph_add(b, node, graph, deps, ndeps, &p, fn);
}

XRT_API xrt_status xrt__graph_edges(const xrt_backend *b, xrt_graph graph, const xrt_graph_node *from,
                                    const xrt_graph_node *to, size_t n, int remove)
{
    const char *fn = remove ? "xrt_graph_remove_dependencies" : "xrt_graph_add_dependencies";
    xrt__handle_slot *g;
    void **objs = NULL;
    xrt_status st;
    if (n && (!from || !to)) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%s is NULL but n is %zu", from ? "to" : "from", n);
    xrt__gnode_enter();
    if (!(g = xrt__handle_lookup(b, graph, XRT__HANDLE_GRAPH))) return xrt__gnode_exit(xrt__handle_bad(fn, graph));
    if (!n) return xrt__gnode_exit(XRT_SUCCESS);
    if ((st = xrt__graph_capture_fixed(graph, fn)) != XRT_SUCCESS) return xrt__gnode_exit(st);
    if (n > SIZE_MAX / (2 * sizeof *objs) || !(objs = (void **)XRT_MALLOC(2 * n * sizeof *objs)))
        return xrt__gnode_exit(xrt_error(XRT_ERROR_OUT_OF_MEMORY, fn, "no memory for %zu edges", n));
    if ((st = xrt__gnode_objs(b, (uintptr_t)graph, from, n, objs, "from", fn)) == XRT_SUCCESS &&
        (st = xrt__gnode_objs(b, (uintptr_t)graph, to, n, objs + n, "to", fn)) == XRT_SUCCESS)
        st = remove ? b->graph_remove_dependencies(b, g->obj, objs, objs + n, n)
                    : b->graph_add_dependencies(b, g->obj, objs, objs + n, n);
    XRT_FREE(objs);
    return xrt__gnode_exit(st);
}

/* Handles for the first `wrote` objects of v (in place), NULL for the rest of its `room`. */
static xrt_status xrt__gnode_handles(const xrt_backend *b, uintptr_t graph, void **v, size_t wrote, size_t room,
                                     const char *fn)
{
    size_t i;
    xrt_status st = XRT_SUCCESS;
    for (i = 0; i < room; i++) {
        uintptr_t h = 0;
        if (i < wrote && st == XRT_SUCCESS) st = xrt__gnode_handle(b, graph, v[i], XRT__HANDLE_GRAPH_NODE, &h, fn);
        v[i] = (void *)h;
    }
    return st;
}

static const char *const xrt__graph_list_fns[] = {"xrt_graph_get_nodes", "xrt_graph_get_root_nodes",
                                                  "xrt_graph_get_edges", "xrt_graph_node_get_dependencies",
                                                  "xrt_graph_node_get_dependent_nodes"};

static xrt_status xrt__graph_list_locked(const xrt_backend *b, int what, const void *of, xrt_graph_node *a,
                                         xrt_graph_node *to, size_t *count, const char *fn)
{
    xrt__handle_slot *g, *ns;
    uintptr_t graph = (uintptr_t)of;
    size_t room = a ? *count : 0, n = room, wrote;
    xrt_status st;
    if (what >= XRT__GRAPH_LIST_DEPS) {
        if ((st = xrt__gnode_find(b, of, fn, &ns, &g, &graph)) != XRT_SUCCESS) return st;
        st = what == XRT__GRAPH_LIST_DEPS ? b->graph_node_get_dependencies(b, g->obj, ns->obj, (void **)a, &n)
                                          : b->graph_node_get_dependent_nodes(b, g->obj, ns->obj, (void **)a, &n);
    } else {
        if (!(g = xrt__handle_lookup(b, of, XRT__HANDLE_GRAPH))) return xrt__handle_bad(fn, of);
        st = what == XRT__GRAPH_LIST_EDGES   ? b->graph_get_edges(b, g->obj, (void **)a, (void **)to, &n)
             : what == XRT__GRAPH_LIST_ROOTS ? b->graph_get_root_nodes(b, g->obj, (void **)a, &n)
                                             : b->graph_get_nodes(b, g->obj, (void **)a, &n);
    }
    if (st != XRT_SUCCESS) return st;
    wrote = n < room ? n : room;
    *count = a ? wrote : n;
    if (a && (st = xrt__gnode_handles(b, graph, (void **)a, wrote, room, fn)) == XRT_SUCCESS && to)
        st = xrt__gnode_handles(b, graph, (void **)to, wrote, room, fn);
    return st;
}

XRT_API xrt_status xrt__graph_list(const xrt_backend *b, int what, const void *of, xrt_graph_node *a,
                                   xrt_graph_node *to, size_t *count)
{
    const char *fn = xrt__graph_list_fns[what];
    if (!count) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "count is NULL");
    if (what == XRT__GRAPH_LIST_EDGES && !a != !to)
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%s is NULL and %s is not: give both, or neither to count",
                         a ? "to" : "from", a ? "from" : "to");
    xrt__gnode_enter();
    return xrt__gnode_exit(xrt__graph_list_locked(b, what, of, a, to, count, fn));
}

static xrt_status xrt__graph_params_locked(const xrt_backend *b, xrt_graph_exec exec, xrt_graph_node node,
                                           xrt_graph_node_params *get, const xrt_graph_node_params *set,
                                           const char *fn)
{
    xrt__handle_slot *g, *ns, *x = NULL;
    xrt_graph_node_params p;
    uintptr_t graph;
    xrt_status st;
    if (exec && !(x = xrt__handle_lookup(b, exec, XRT__HANDLE_GRAPH_EXEC))) return xrt__handle_bad(fn, exec);
    if (!exec && set && !get && fn[10] == 'e') return xrt__handle_bad(fn, exec); /* xrt_graph_exec_...(NULL, ...) */
    if ((st = xrt__gnode_find(b, node, fn, &ns, &g, &graph)) != XRT_SUCCESS) return st;
    if (get && strcmp(fn, "xrt_graph_node_get_type") == 0) { /* also of a node whose params the union cannot hold */
        memset(get, 0, sizeof *get);
        get->type = (xrt_graph_node_type)-1;
        xrt__err.quiet++;
        st = b->graph_node_get_params(b, g->obj, ns->obj, get);
        xrt__err.quiet--;
        if (st == XRT_SUCCESS || (int)get->type != -1) return XRT_SUCCESS;
    }
    if (get) {
        memset(get, 0, sizeof *get);
        if ((st = b->graph_node_get_params(b, g->obj, ns->obj, get)) != XRT_SUCCESS) return st;
        return xrt__gnode_params_out(b, graph, get, fn);
    }
    if ((st = xrt__gnode_params_in(b, graph, set, &p, fn)) != XRT_SUCCESS) return st;
    return x ? b->graph_exec_node_set_params(b, x->obj, g->obj, ns->obj, &p)
             : b->graph_node_set_params(b, g->obj, ns->obj, &p);
}

XRT_API xrt_status xrt__graph_params(const xrt_backend *b, xrt_graph_exec exec, xrt_graph_node node,
                                     xrt_graph_node_params *get, const xrt_graph_node_params *set, const char *fn)
{
    xrt_status st;
    if (!get && !set) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "params is NULL");
    xrt__gnode_enter();
    st = xrt__graph_params_locked(b, exec, node, get, set, fn);
    if (set && (set->type == XRT_GRAPH_NODE_KERNEL || set->type == XRT_GRAPH_NODE_HOST) && XRT__CHK_ON())
        xrt__graph_node_noted(b, st == XRT_SUCCESS && !exec ? node : NULL);
    /* its snapshot no longer says; dropped in the hold, so never after an update's meanwhile */
    if (exec && st == XRT_SUCCESS && xrt__chk_on) xrt__chk_exec_gone(exec, 0);
    return xrt__gnode_exit(st);
}

XRT_API xrt_status xrt__graph_enabled(const xrt_backend *b, xrt_graph_exec exec, xrt_graph_node node, unsigned *get,
                                      unsigned set, const char *fn)
{
    xrt__handle_slot *g, *ns, *x;
    uintptr_t graph;
    xrt_status st;
    xrt__gnode_enter();
    if (!(x = xrt__handle_lookup(b, exec, XRT__HANDLE_GRAPH_EXEC))) st = xrt__handle_bad(fn, exec);
    else if ((st = xrt__gnode_find(b, node, fn, &ns, &g, &graph)) == XRT_SUCCESS)
        st = get ? b->graph_node_get_enabled(b, x->obj, g->obj, ns->obj, get)
                 : b->graph_node_set_enabled(b, x->obj, g->obj, ns->obj, set);
    if (!get && st == XRT_SUCCESS && xrt__chk_on) xrt__chk_exec_gone(exec, 0); /* as xrt__graph_params' */
    return xrt__gnode_exit(st);
}

/* >> impl: launch attributes (cudaLaunchKernelEx and the kernel nodes'
   cudaGraphKernelNode*Attribute): each attribute is checked here, once for
   every backend (its id for the call, its value as the stream attributes'
   and as CUDA documents the rest); what needs the grid, and what a backend
   cannot do, is the backend's to refuse. */
static const char *xrt__launch_attr_lacking(int attr)
{
    switch (attr) {
    case 11: return "preferred cluster dimension";
    case 13: return "device-updatable kernel node";
    case 14: return "preferred shared memory carveout";
    default: return NULL;
    }
}

/* Why attribute attr (given at `what`) is refused: what
   xrt__launch_attr_check found. */
static xrt_status xrt__launch_attr_refused(const char *fn, const char *what, int attr, const xrt_launch_attr_value *v,
                                           int node, const char *lacking) XRT__COLD;
static xrt_status xrt__launch_attr_refused(const char *fn, const char *what, int attr, const xrt_launch_attr_value *v,
                                           int node, const char *lacking)
{
    if (lacking)
        return xrt_error(XRT_ERROR_UNSUPPORTED, fn, "%s: CUDA's launch attribute %d (%s) is not supported", what, attr,
                         lacking);
    if (attr == 3)
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn,
                         "%s: attribute 3 (synchronization policy) is a stream's (xrt_stream_set_attribute)", what);
    if (node && (attr == 6 || attr == 7 || attr == 12))
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%s: attribute %d (%s) is a launch's, not a node's", what, attr,
                         attr == 6 ? "programmatic stream serialization" : "an event");
    if (attr == XRT_LAUNCH_ATTR_CLUSTER_DIMENSION)
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%s: cluster (%u, %u, %u): all 0 (no cluster) or none", what,
                         v->cluster_dim.x, v->cluster_dim.y, v->cluster_dim.z);
    if (attr == XRT_LAUNCH_ATTR_CLUSTER_SCHEDULING_POLICY_PREFERENCE)
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn,
                         "%s: cluster scheduling policy preference %d is none of 0 (default), 1 (spread), "
                         "2 (load balancing)", what, v->cluster_scheduling_policy_preference);
    if (attr == 7 || attr == 12)
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%s: the event's record flags 0x%x: there are none (0)", what,
                         (unsigned)(attr == 7 ? v->programmatic_event.flags : v->launch_completion_event.flags));
    return xrt_error(XRT_ERROR_INVALID_VALUE, fn,
                     "%s: attribute %d is none of XRT_LAUNCH_ATTR_ACCESS_POLICY_WINDOW (1), _COOPERATIVE (2), "
                     "_CLUSTER_DIMENSION (4), _CLUSTER_SCHEDULING_POLICY_PREFERENCE (5), %s_PRIORITY (8), "
                     "_MEM_SYNC_DOMAIN_MAP (9), _MEM_SYNC_DOMAIN (10)%s",
                     what, attr, node ? "" : "_PROGRAMMATIC_STREAM_SERIALIZATION (6), _PROGRAMMATIC_EVENT (7), ",
                     node ? "" : ", _LAUNCH_COMPLETION_EVENT (12)");
}

/* Where a refused attribute was given: a config's attrs[index], or a node
   call's attr (index -1); formatted only for a refusal. */
static const char *xrt__attr_where(char *buf, size_t n, unsigned index)
{
    if (index == (unsigned)-1) return "attr";
    snprintf(buf, n, "attrs[%u]", index);
    return buf;
}

/* Attribute attr (given at index, see xrt__attr_where) of a launch or, node
   1, of a kernel node; its value too when set. No formatting unless it is
   refused: a launch's list is checked on every launch. */
static xrt_status xrt__launch_attr_check(const char *fn, unsigned index, int attr, const xrt_launch_attr_value *v,
                                         int node, int set)
{
    const char *lacking = xrt__launch_attr_lacking(attr);
    int ok;
    char at[32];
    switch (lacking || (node && (attr == 6 || attr == 7 || attr == 12)) ? -1 : attr) {
    case XRT_LAUNCH_ATTR_ACCESS_POLICY_WINDOW: case XRT_LAUNCH_ATTR_PRIORITY: case XRT_LAUNCH_ATTR_MEM_SYNC_DOMAIN_MAP:
    case XRT_LAUNCH_ATTR_MEM_SYNC_DOMAIN:
        return set ? xrt__stream_attr_check(fn, (xrt_stream_attr)attr, v, 1) : XRT_SUCCESS;
    case XRT_LAUNCH_ATTR_COOPERATIVE: case XRT_LAUNCH_ATTR_PROGRAMMATIC_STREAM_SERIALIZATION:
        return XRT_SUCCESS;
    case XRT_LAUNCH_ATTR_CLUSTER_DIMENSION:
        ok = !set || (!v->cluster_dim.x == !v->cluster_dim.y && !v->cluster_dim.x == !v->cluster_dim.z);
        break;
    case XRT_LAUNCH_ATTR_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
        ok = !set || (unsigned)v->cluster_scheduling_policy_preference <= 2;
        break;
    case XRT_LAUNCH_ATTR_PROGRAMMATIC_EVENT:
        ok = !set || !v->programmatic_event.flags;
        break;
    case XRT_LAUNCH_ATTR_LAUNCH_COMPLETION_EVENT:
        ok = !set || !v->launch_completion_event.flags;
        break;
    default:
        ok = 0;
    }
    if (ok) return XRT_SUCCESS;
    return xrt__launch_attr_refused(fn, xrt__attr_where(at, sizeof at, index), attr, v, node, lacking);
}

/* A launch's list that names events: a copy (*out, with a checker ticket
   per entry after it, freed by the caller) whose events are the backend's
   objects. */
static xrt_status xrt__launch_ex_events(const xrt_backend *b, const xrt_launch_config *c, xrt_launch_attribute **out,
                                        const char *fn) XRT__COLD;
static xrt_status xrt__launch_ex_events(const xrt_backend *b, const xrt_launch_config *c, xrt_launch_attribute **out,
                                        const char *fn)
{
    unsigned i;
    if (!(*out = (xrt_launch_attribute *)XRT_MALLOC(c->num_attrs * (sizeof **out + sizeof(uint64_t)))))
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, fn, "no memory for the launch's attributes");
    memcpy(*out, c->attrs, c->num_attrs * sizeof **out);
    for (i = 0; i < c->num_attrs; i++) {
        xrt_event ev = xrt__attr_event(&c->attrs[i]);
        uint64_t *ticket = (uint64_t *)(void *)(*out + c->num_attrs) + i;
        xrt__handle_slot *e;
        if (c->attrs[i].id != 7 && c->attrs[i].id != 12) continue;
        if (!(e = xrt__handle_lookup(b, ev, XRT__HANDLE_EVENT))) {
            XRT_FREE(*out);
            *out = NULL;
            return xrt__handle_bad(fn, ev);
        }
        (*out)[i].val.launch_completion_event.event = (xrt_event)e->obj; /* programmatic_event's too */
        *ticket = XRT__CHK_ON() ? xrt__chk_record_begin(ev) : 0;
    }
    return XRT_SUCCESS;
}

/* The launch's events, to the checker: recorded before the kernel's
   accesses, as a record may complete once every block began. */
static void xrt__launch_ex_events_noted(void *caller, xrt_status st, const xrt_backend *b, const xrt_launch_config *c,
                                        const xrt_launch_attribute *copy, xrt_stream stream,
                                        const xrt__handle_slot *s)
{
    unsigned i;
    for (i = 0; copy && i < c->num_attrs; i++)
        if (c->attrs[i].id == 7 || c->attrs[i].id == 12)
            xrt__chk_record(caller, st, b, xrt__attr_event(&c->attrs[i]), stream, s,
                            ((const uint64_t *)(const void *)(copy + c->num_attrs))[i]);
}

/* stream: never NULL (the front's xrt__unit_stream), as xrt__launch_params'. */
XRT_API xrt_status xrt__launch_ex(const xrt_launch_config *c, xrt_function function, const void *args,
                                  size_t args_size, xrt_stream stream)
{
    const char *fn = "xrt_launch_kernel_ex";
    const xrt_backend *b = xrt__be();
    xrt_launch_attribute *copy = NULL;
    xrt__handle_slot *f, *s;
    xrt_status st;
    unsigned i, events = 0;
    xrt__call_enter();
    if (!c) return xrt__call_exit(XRT__LAUNCH_REFUSED(xrt_error(XRT_ERROR_INVALID_VALUE, fn, "config is NULL")));
    if (!c->attrs)
        return xrt__call_exit(XRT__LAUNCH_REFUSED(
            xrt_error(XRT_ERROR_INVALID_VALUE, fn, "attrs is NULL but num_attrs is %u", c->num_attrs)));
    for (i = 0; i < c->num_attrs; i++) {
        if (c->attrs[i].id != XRT_LAUNCH_ATTR_IGNORE &&
            (st = xrt__launch_attr_check(fn, i, (int)c->attrs[i].id, &c->attrs[i].val, 0, 1)) != XRT_SUCCESS)
            return xrt__call_exit(XRT__LAUNCH_REFUSED(st));
        events += c->attrs[i].id == XRT_LAUNCH_ATTR_PROGRAMMATIC_EVENT ||
                  c->attrs[i].id == XRT_LAUNCH_ATTR_LAUNCH_COMPLETION_EVENT;
    }
    f = xrt__handle_lookup(b, function, XRT__HANDLE_FUNCTION);
    s = xrt__handle_stream_as(b, stream);
    if (!f) return xrt__call_exit(XRT__LAUNCH_REFUSED(xrt__handle_bad(fn, function)));
    if (!s) return xrt__call_exit(XRT__LAUNCH_REFUSED(xrt__handle_bad(fn, stream)));
    if (!c->grid.x || !c->grid.y || !c->grid.z || !c->block.x || !c->block.y || !c->block.z || (!args && args_size) ||
        args_size > XRT_MAX_KERNEL_ARGS)
        return xrt__call_exit(XRT__LAUNCH_REFUSED(xrt__launch_bad(fn, c->grid, c->block, args, args_size)));
    if (events && (st = xrt__launch_ex_events(b, c, &copy, fn)) != XRT_SUCCESS)
        return xrt__call_exit(XRT__LAUNCH_REFUSED(st));
    st = b->launch_kernel_ex(b, f->obj, c->grid, c->block, c->shared_bytes, s->obj, args, args_size,
                             copy ? copy : c->attrs, c->num_attrs);
    if (XRT__CHK_ON()) {
        xrt__launch_ex_events_noted(__builtin_return_address(0), st, b, c, copy, stream, s);
        xrt__chk_launch(__builtin_return_address(0), st, b, fn, stream, s, f->obj, args, args_size);
    }
    if (copy) XRT_FREE(copy);
    return xrt__call_exit(st);
}

/* Node's slots, when it is a kernel node (its type as xrt_graph_node_get_type
   tells it). Under xrt__gnode_lock. */
static xrt_status xrt__gnode_kernel(const xrt_backend *b, xrt_graph_node node, const char *fn, xrt__handle_slot **ns,
                                    xrt__handle_slot **g)
{
    xrt_graph_node_params p;
    uintptr_t graph;
    xrt_status st;
    if ((st = xrt__gnode_find(b, node, fn, ns, g, &graph)) != XRT_SUCCESS) return st;
    memset(&p, 0, sizeof p);
    p.type = (xrt_graph_node_type)-1;
    xrt__err.quiet++;
    (void)b->graph_node_get_params(b, (*g)->obj, (*ns)->obj, &p);
    xrt__err.quiet--;
    if (p.type == XRT_GRAPH_NODE_KERNEL) return XRT_SUCCESS;
    return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "node %p is no kernel node (its type is %d)", (void *)node,
                     (int)p.type);
}

XRT_API xrt_status xrt__kernel_node_attr(const xrt_backend *b, xrt_graph_node node, xrt_launch_attr attr,
                                         xrt_launch_attr_value *get, const xrt_launch_attr_value *set,
                                         const char *fn)
{
    xrt__handle_slot *g, *ns;
    xrt_status st;
    if (!get && !set) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "value is NULL");
    if (get) memset(get, 0, sizeof *get);
    if ((st = xrt__launch_attr_check(fn, (unsigned)-1, (int)attr, set, 1, set != NULL)) != XRT_SUCCESS) return st;
    xrt__gnode_enter();
    if ((st = xrt__gnode_kernel(b, node, fn, &ns, &g)) == XRT_SUCCESS)
        st = get ? b->graph_kernel_node_get_attribute(b, g->obj, ns->obj, (int)attr, get)
                 : b->graph_kernel_node_set_attribute(b, g->obj, ns->obj, (int)attr, set);
    return xrt__gnode_exit(st);
}

XRT_API xrt_status xrt__kernel_node_copy_attrs(const xrt_backend *b, xrt_graph_node dst, xrt_graph_node src)
{
    const char *fn = "xrt_graph_kernel_node_copy_attributes";
    xrt__handle_slot *dg, *dn, *sg, *sn;
    xrt_status st;
    xrt__gnode_enter();
    if ((st = xrt__gnode_kernel(b, dst, fn, &dn, &dg)) == XRT_SUCCESS &&
        (st = xrt__gnode_kernel(b, src, fn, &sn, &sg)) == XRT_SUCCESS)
        st = b->graph_kernel_node_copy_attributes(b, dg->obj, dn->obj, sg->obj, sn->obj);
    return xrt__gnode_exit(st);
}

/* A 3-D copy node's params, for graph: xrt_memcpy_3d's checks against the
   graph's memory (xrt__gnode_scope), the kind resolved into *out; an empty
   extent is refused, as a node of nothing is a mistake. */
static xrt_status xrt__gnode_copy_3d_in(const xrt_backend *b, uintptr_t graph, const xrt_memcpy_3d_parms *p,
                                        xrt_memcpy_3d_parms *out, const char *fn)
{
    xrt_status st;
    if (!p) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "p is NULL");
    *out = *p;
    if (!p->extent.width || !p->extent.height || !p->extent.depth)
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "the extent %zu x %zu x %zu is empty", p->extent.width,
                         p->extent.height, p->extent.depth);
    xrt__gnode_scope = graph;
    st = xrt__mem_check_copy_3d(b, out, fn);
    xrt__gnode_scope = 0;
    return st;
}

static xrt_status xrt__graph_add_copy_3d_locked(const xrt_backend *b, xrt_graph_node *node, xrt_graph graph,
                                                const xrt_graph_node *deps, size_t ndeps, const xrt_memcpy_3d_parms *p)
{
    const char *fn = "xrt_graph_add_memcpy_node";
    xrt__handle_slot *g = xrt__handle_lookup(b, graph, XRT__HANDLE_GRAPH);
    xrt_memcpy_3d_parms q;
    void *obj = NULL, *few[8], **objs = few;
    uintptr_t h = 0;
    xrt_status st;
    if (!g) return xrt__handle_bad(fn, graph);
    if ((st = xrt__graph_capture_fixed(graph, fn)) != XRT_SUCCESS) return st;
    if (ndeps && !deps) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "deps is NULL but ndeps is %zu", ndeps);
    if (ndeps > 8 && (ndeps > SIZE_MAX / sizeof *objs || !(objs = (void **)XRT_MALLOC(ndeps * sizeof *objs))))
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, fn, "no memory for %zu dependencies", ndeps);
    if ((st = xrt__gnode_objs(b, (uintptr_t)graph, deps, ndeps, objs, "deps", fn)) == XRT_SUCCESS &&
        (st = xrt__gnode_copy_3d_in(b, (uintptr_t)graph, p, &q, fn)) == XRT_SUCCESS &&
        (st = b->graph_add_memcpy_node(b, g->obj, &obj, objs, ndeps, &q)) == XRT_SUCCESS &&
        (st = xrt__gnode_handle(b, (uintptr_t)graph, obj, XRT__HANDLE_GRAPH_NODE, &h, fn)) != XRT_SUCCESS)
        b->graph_destroy_node(b, g->obj, obj);
    if (objs != few) XRT_FREE(objs);
    *node = (xrt_graph_node)h;
    return st;
}

XRT_API xrt_status xrt__graph_add_copy_3d(const xrt_backend *b, xrt_graph_node *node, xrt_graph graph,
                                          const xrt_graph_node *deps, size_t ndeps, const xrt_memcpy_3d_parms *p)
{
    if (!node) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_graph_add_memcpy_node", "node is NULL");
    if (!p) { /* *node is written last: deps may be where it points */
        *node = NULL;
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_graph_add_memcpy_node", "p is NULL");
    }
    xrt__gnode_enter();
    return xrt__gnode_exit(xrt__graph_add_copy_3d_locked(b, node, graph, deps, ndeps, p));
}

static xrt_status xrt__graph_copy_3d_params_locked(const xrt_backend *b, xrt_graph_exec exec, xrt_graph_node node,
                                                   xrt_memcpy_3d_parms *get, const xrt_memcpy_3d_parms *set,
                                                   const char *fn)
{
    xrt__handle_slot *g, *ns, *x = NULL;
    xrt_memcpy_3d_parms q;
    uintptr_t graph = 0; /* set by the find (gcc -O3 cannot tell) */
    xrt_status st;
    if (exec && !(x = xrt__handle_lookup(b, exec, XRT__HANDLE_GRAPH_EXEC))) return xrt__handle_bad(fn, exec);
    if ((st = xrt__gnode_find(b, node, fn, &ns, &g, &graph)) != XRT_SUCCESS) return st;
    if (get) {
        memset(get, 0, sizeof *get);
        return b->graph_memcpy_node_get_params(b, g->obj, ns->obj, get);
    }
    if ((st = xrt__gnode_copy_3d_in(b, graph, set, &q, fn)) != XRT_SUCCESS) return st;
    if (x) { /* cudaGraphExecMemcpyNodeSetParams: the node's copy and the new one 1-D */
        xrt_memcpy_3d_parms was;
        memset(&was, 0, sizeof was);
        if ((st = b->graph_memcpy_node_get_params(b, g->obj, ns->obj, &was)) != XRT_SUCCESS) return st;
        if (was.extent.height > 1 || was.extent.depth > 1 || q.extent.height > 1 || q.extent.depth > 1)
            return xrt_error(XRT_ERROR_INVALID_VALUE, fn,
                             "the %s copy is of %zu rows and %zu slices: an exec's copy node changes only from a "
                             "1-D copy to a 1-D copy, as in CUDA (change the graph's node and instantiate again)",
                             was.extent.height > 1 || was.extent.depth > 1 ? "node's" : "new",
                             was.extent.height > 1 || was.extent.depth > 1 ? was.extent.height : q.extent.height,
                             was.extent.height > 1 || was.extent.depth > 1 ? was.extent.depth : q.extent.depth);
    }
    return b->graph_memcpy_node_set_params(b, x ? x->obj : NULL, g->obj, ns->obj, &q);
}

XRT_API xrt_status xrt__graph_copy_3d_params(const xrt_backend *b, xrt_graph_exec exec, xrt_graph_node node,
                                             xrt_memcpy_3d_parms *get, const xrt_memcpy_3d_parms *set,
                                             const char *fn)
{
    xrt_status st;
    if (!get && !set) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "p is NULL");
    xrt__gnode_enter();
    st = xrt__graph_copy_3d_params_locked(b, exec, node, get, set, fn);
    if (exec && set && st == XRT_SUCCESS && xrt__chk_on) xrt__chk_exec_gone(exec, 0); /* as xrt__graph_params' */
    return xrt__gnode_exit(st);
}

static xrt_status xrt__graph_destroy_node_locked(const xrt_backend *b, xrt_graph_node node)
{
    const char *fn = "xrt_graph_destroy_node";
    xrt__handle_slot *g, *ns;
    xrt_graph_node_params p;
    uintptr_t graph;
    xrt_status st;
    if ((st = xrt__gnode_find(b, node, fn, &ns, &g, &graph)) != XRT_SUCCESS) return st;
    if ((st = xrt__graph_capture_fixed((xrt_graph)graph, fn)) != XRT_SUCCESS) return st;
    if ((st = xrt__graph_capturing(graph, fn)) != XRT_SUCCESS) return st;
    memset(&p, 0, sizeof p);
    xrt__err.quiet++; /* a node whose params cannot be read is no child: no error of this destroy */
    st = b->graph_node_get_params(b, g->obj, ns->obj, &p);
    xrt__err.quiet--;
    if (st == XRT_SUCCESS && p.type == XRT_GRAPH_NODE_GRAPH && xrt__gnodes_cap) { /* the child's own graph, if it has a handle */
        xrt__gnode *e = xrt__gnode_at(graph, p.child.graph);
        uintptr_t h = e->handle, into = h ? xrt__graph_holds_captured(h) : 0;
        if (into) return xrt__graph_held(fn, "node", node, into);
        if (h) {
            xrt__gnode_remove((size_t)(e - xrt__gnodes));
            xrt__gnode_forget(b, h);
            xrt__handle_free(b, (const void *)h, XRT__HANDLE_GRAPH, fn);
        }
    }
    if ((st = b->graph_destroy_node(b, g->obj, ns->obj)) != XRT_SUCCESS) return st;
    if (p.type == XRT_GRAPH_NODE_MEM_ALLOC || p.type == XRT_GRAPH_NODE_MEM_FREE) /* gone, or the caller's again */
        xrt__graph_mem_mark(graph, (uintptr_t)(p.type == XRT_GRAPH_NODE_MEM_ALLOC ? p.alloc.ptr : p.mem_free.ptr),
                            p.type == XRT_GRAPH_NODE_MEM_ALLOC ? 2 : 0);
    xrt__gnode_remove((size_t)(xrt__gnode_at(graph, ns->obj) - xrt__gnodes));
    return xrt__handle_free(b, node, XRT__HANDLE_GRAPH_NODE, fn);
}

XRT_API xrt_status xrt__graph_destroy_node(const xrt_backend *b, xrt_graph_node node)
{
    xrt__gnode_enter();
    return xrt__gnode_exit(xrt__graph_destroy_node_locked(b, node));
}

XRT_API xrt_status xrt__graph_clone(const xrt_backend *b, xrt_graph *clone, xrt_graph original)
{
    xrt__handle_slot *g;
    void *obj = NULL;
    xrt_status st;
    XRT__CHECK_PTR(clone, "xrt_graph_clone");
    *clone = NULL;
    xrt__gnode_enter();
    if (!(g = xrt__handle_lookup(b, original, XRT__HANDLE_GRAPH)))
        return xrt__gnode_exit(xrt__handle_bad("xrt_graph_clone", original));
    if ((st = b->graph_clone(b, &obj, g->obj)) == XRT_SUCCESS)
        st = xrt__handle_create(b, obj, XRT__HANDLE_GRAPH, 1, (void **)clone);
    return xrt__gnode_exit(st);
}

XRT_API xrt_status xrt__graph_find_in_clone(const xrt_backend *b, xrt_graph_node *node, xrt_graph_node original,
                                            xrt_graph clone)
{
    const char *fn = "xrt_graph_node_find_in_clone";
    xrt__handle_slot *g, *ns, *c;
    uintptr_t graph, h = 0;
    void *obj = NULL;
    xrt_status st;
    XRT__CHECK_PTR(node, "xrt_graph_node_find_in_clone");
    *node = NULL;
    xrt__gnode_enter();
    if ((st = xrt__gnode_find(b, original, fn, &ns, &g, &graph)) != XRT_SUCCESS) return xrt__gnode_exit(st);
    if (!(c = xrt__handle_lookup(b, clone, XRT__HANDLE_GRAPH))) return xrt__gnode_exit(xrt__handle_bad(fn, clone));
    if ((st = b->graph_node_find_in_clone(b, &obj, g->obj, ns->obj, c->obj)) == XRT_SUCCESS &&
        (st = xrt__gnode_handle(b, (uintptr_t)clone, obj, XRT__HANDLE_GRAPH_NODE, &h, fn)) == XRT_SUCCESS)
        *node = (xrt_graph_node)h;
    return xrt__gnode_exit(st);
}

/* >> impl: capture graphs. xrt_stream_get_capture_info_v2 names a
   capture's graph while it lasts: a handle made the first time it is asked
   (not owned: the backend drops the graph of a capture that fails), kept in
   the capture's origin record; a capture into a graph answers that graph's
   handle. Its end hands the handle over, owned from then on, as the handle
   of the graph object the end made (the CPU backend's is a new object, a
   GPU runtime's the same); a capture that makes no graph takes the handle,
   and its nodes', with it (xrt__capture_graph_drop). Lock order:
   xrt__gnode_lock, then xrt__graph_mem_lock. */
static pthread_key_t xrt__capinfo_key; /* frees a thread's buffers at its exit */
static pthread_once_t xrt__capinfo_once = PTHREAD_ONCE_INIT;
static XRT__TLS struct { void **objs; xrt_graph_node *nodes; size_t cap; } xrt__capinfo; /* the thread's last answer */

static void xrt__capinfo_free(void *p) { XRT_FREE(p); }
static void xrt__capinfo_setup(void) { pthread_key_create(&xrt__capinfo_key, xrt__capinfo_free); }

/* Room for n dependencies in the thread's buffers: 0 without memory. */
static int xrt__capinfo_room(size_t n)
{
    size_t each = sizeof(void *) + sizeof(xrt_graph_node);
    void **v;
    if (n <= xrt__capinfo.cap) return 1;
    pthread_once(&xrt__capinfo_once, xrt__capinfo_setup);
    n = n < 8 ? 16 : 2 * n;
    if (n > SIZE_MAX / each || !(v = (void **)XRT_MALLOC(n * each))) return 0;
    pthread_setspecific(xrt__capinfo_key, v);
    XRT_FREE(xrt__capinfo.objs);
    xrt__capinfo.objs = v;
    xrt__capinfo.nodes = (xrt_graph_node *)(void *)(v + n);
    xrt__capinfo.cap = n;
    return 1;
}

/* The origin record of the capture whose graph is gobj, which `stream` is
   in; NULL where none is (the capture is not followed: no memory when it
   began, or it was begun on another thread's per-thread stream and joined
   by this one). Under xrt__graph_mem_lock. */
static xrt__capture_origin *xrt__capture_of_graph_locked(const xrt_backend *b, xrt_stream stream, void *gobj)
{
    uintptr_t key = xrt__capture_key(b, stream), mine;
    int i;
    for (i = 0; i < xrt__captures; i++)
        if (xrt__capture_origins[i].be == b &&
            (xrt__capture_origins[i].graph_obj == gobj || xrt__capture_origins[i].stream == key))
            return &xrt__capture_origins[i];
    mine = xrt__call.capture_number ? xrt__capture_key(b, XRT_STREAM_PER_THREAD) : 0;
    for (i = 0; i < xrt__captures; i++) { /* a stream that joined a capture: whose graph is gobj? */
        xrt__capture_origin *o = &xrt__capture_origins[i];
        void *obj = o->be == b ? xrt__capture_obj(b, o->stream, mine) : NULL, *g = NULL;
        unsigned st = XRT_CAPTURE_STATUS_NONE;
        unsigned long long id;
        size_t n;
        int same;
        if (!obj) continue;
        xrt__err.quiet++;
        same = b->stream_get_capture_info_v2(b, obj, &st, &id, &g, NULL, 0, &n) == XRT_SUCCESS &&
               st == XRT_CAPTURE_STATUS_ACTIVE && g == gobj;
        xrt__err.quiet--;
        if (same) return o;
    }
    return NULL;
}

/* The handle of capture graph gobj, which `stream` is in, made if it has
   none yet. Under xrt__gnode_lock. */
static xrt_status xrt__capture_graph_handle(const xrt_backend *b, xrt_stream stream, void *gobj, uintptr_t *h,
                                            const char *fn)
{
    xrt__capture_origin *o;
    xrt_status st = XRT_SUCCESS;
    pthread_mutex_lock(&xrt__graph_mem_lock);
    if (!(o = xrt__capture_of_graph_locked(b, stream, gobj))) {
        st = XRT_ERROR_UNSUPPORTED;
    } else if (!(*h = o->into ? o->into : o->graph) && (st = xrt__handle_alloc(b, gobj, XRT__HANDLE_GRAPH, 0, h)) == XRT_SUCCESS) {
        o->graph = *h;
        __atomic_store_n(&xrt__capture_graphs, xrt__capture_graphs + 1, __ATOMIC_RELAXED);
    }
    if (o) o->graph_obj = gobj;
    pthread_mutex_unlock(&xrt__graph_mem_lock);
    if (st == XRT_ERROR_UNSUPPORTED)
        return xrt_error(st, fn,
                         "the capture's graph has no name here: xrt did not follow the capture (no memory when it "
                         "began), or it was begun on another thread's per-thread stream");
    return st;
}

XRT_API uintptr_t xrt__capture_graph_keep(const xrt_backend *b, xrt_stream stream, void *obj)
{
    uintptr_t key = xrt__capture_key(b, stream), h = 0;
    int i;
    pthread_mutex_lock(&xrt__graph_mem_lock);
    for (i = 0; i < xrt__captures && !h; i++) {
        xrt__capture_origin *o = &xrt__capture_origins[i];
        xrt__handle_slot *s;
        if (o->stream != key || !(h = o->graph)) continue;
        s = xrt__handle_slot_at(xrt__handle_index(h));
        __atomic_store_n(&s->obj, obj, __ATOMIC_RELAXED);
        s->flags |= XRT__HANDLE_OWNED; /* the caller's graph now */
        o->graph = 0;
        __atomic_store_n(&xrt__capture_graphs, xrt__capture_graphs - 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&xrt__graph_mem_lock);
    return h;
}

/* A capture that made no graph: the handle its graph had goes, with its
   nodes' (the backend has dropped the graph). */
static void xrt__capture_graph_drop(const xrt_backend *b, uintptr_t h)
{
    if (!h) return;
    pthread_mutex_lock(&xrt__gnode_lock);
    if (xrt__gnodes_n) xrt__gnode_forget(b, h);
    xrt__err.quiet++;
    xrt__handle_free(b, (const void *)h, XRT__HANDLE_GRAPH, "xrt_stream_end_capture"); /* not owned: nothing destroyed */
    xrt__err.quiet--;
    pthread_mutex_unlock(&xrt__gnode_lock);
}

XRT_API xrt_status xrt__graph_capturing(uintptr_t graph, const char *fn)
{
    int i, found = 0;
    if (!__atomic_load_n(&xrt__capture_graphs, __ATOMIC_RELAXED)) return XRT_SUCCESS;
    pthread_mutex_lock(&xrt__graph_mem_lock);
    for (i = 0; i < xrt__captures && !found; i++) found = xrt__capture_origins[i].graph == graph;
    pthread_mutex_unlock(&xrt__graph_mem_lock);
    if (!found) return XRT_SUCCESS;
    return xrt_error(XRT_ERROR_ILLEGAL_STATE, fn,
                     "graph %p is a capture's, under way: until xrt_stream_end_capture gives it, it takes nodes and "
                     "edges but is not destroyed, instantiated, captured into, given memory nodes or rid of a node",
                     (void *)graph);
}

XRT_API xrt_status xrt__capture_info_v2(const xrt_backend *b, xrt_stream stream, xrt_capture_status *status,
                                        unsigned long long *id, xrt_graph *graph, const xrt_graph_node **deps,
                                        size_t *ndeps)
{
    const char *fn = "xrt_stream_get_capture_info_v2";
    xrt__handle_slot *s;
    unsigned st = XRT_CAPTURE_STATUS_NONE;
    unsigned long long got = 0;
    void *gobj = NULL;
    size_t n = 0, i;
    uintptr_t h = 0, node = 0;
    xrt_status r;
    XRT__CHECK_PTR(status, fn);
    *status = XRT_CAPTURE_STATUS_NONE;
    if (deps && !ndeps) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "deps is asked for without ndeps");
    xrt__gnode_enter();
    if (!(s = xrt__handle_stream(b, stream))) return xrt__gnode_exit(xrt__handle_bad(fn, stream));
    for (;;) { /* the frontier may outgrow the thread's buffers: then again, with room */
        r = b->stream_get_capture_info_v2(b, s->obj, &st, &got, &gobj, xrt__capinfo.objs, xrt__capinfo.cap, &n);
        if (r != XRT_SUCCESS || st != XRT_CAPTURE_STATUS_ACTIVE || !deps || n <= xrt__capinfo.cap) break;
        if (!xrt__capinfo_room(n))
            return xrt__gnode_exit(xrt_error(XRT_ERROR_OUT_OF_MEMORY, fn, "no memory for %zu dependencies", n));
    }
    *status = (xrt_capture_status)st;
    if (r != XRT_SUCCESS || st != XRT_CAPTURE_STATUS_ACTIVE) return xrt__gnode_exit(r);
    if ((graph || deps) && (r = xrt__capture_graph_handle(b, stream, gobj, &h, fn)) != XRT_SUCCESS)
        return xrt__gnode_exit(r);
    for (i = 0; deps && i < n; i++) {
        if ((r = xrt__gnode_handle(b, h, xrt__capinfo.objs[i], XRT__HANDLE_GRAPH_NODE, &node, fn)) != XRT_SUCCESS)
            return xrt__gnode_exit(r);
        xrt__capinfo.nodes[i] = (xrt_graph_node)node;
    }
    if (id) *id = got;
    if (graph) *graph = (xrt_graph)h;
    if (deps) *deps = xrt__capinfo.nodes;
    if (ndeps) *ndeps = n;
    return xrt__gnode_exit(XRT_SUCCESS);
}

static xrt_status xrt__capture_update_deps_locked(const xrt_backend *b, xrt_stream stream, const xrt_graph_node *deps,
                                                  size_t ndeps, unsigned flags, void **objs)
{
    const char *fn = "xrt_stream_update_capture_dependencies";
    xrt__handle_slot *s;
    unsigned st = XRT_CAPTURE_STATUS_NONE;
    unsigned long long id;
    void *gobj = NULL;
    size_t n = 0;
    uintptr_t h = 0;
    xrt_status r;
    if (!(s = xrt__handle_stream(b, stream))) return xrt__handle_bad(fn, stream);
    if ((r = b->stream_get_capture_info_v2(b, s->obj, &st, &id, &gobj, NULL, 0, &n)) != XRT_SUCCESS) return r;
    if (st == XRT_CAPTURE_STATUS_NONE)
        return xrt_error(XRT_ERROR_ILLEGAL_STATE, fn, "stream %p is not capturing", (void *)stream);
    if (st != XRT_CAPTURE_STATUS_ACTIVE)
        return xrt_error(XRT_ERROR_STREAM_CAPTURE_INVALIDATED, fn, "the capture of stream %p was invalidated",
                         (void *)stream);
    if (ndeps && (r = xrt__capture_graph_handle(b, stream, gobj, &h, fn)) != XRT_SUCCESS) return r;
    if ((r = xrt__gnode_objs(b, h, deps, ndeps, objs, "deps", fn)) != XRT_SUCCESS) return r;
    return b->stream_update_capture_dependencies(b, s->obj, objs, ndeps, flags);
}

XRT_API xrt_status xrt__capture_update_deps(const xrt_backend *b, xrt_stream stream, const xrt_graph_node *deps,
                                            size_t ndeps, unsigned flags)
{
    const char *fn = "xrt_stream_update_capture_dependencies";
    void *few[8], **objs = few;
    xrt_status st;
    if (flags > XRT_STREAM_SET_CAPTURE_DEPENDENCIES)
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn,
                         "flags %u: XRT_STREAM_ADD_CAPTURE_DEPENDENCIES (0) or XRT_STREAM_SET_CAPTURE_DEPENDENCIES (1)",
                         flags);
    if (ndeps && !deps) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "deps is NULL but ndeps is %zu", ndeps);
    if (ndeps > 8 && (ndeps > SIZE_MAX / sizeof *objs || !(objs = (void **)XRT_MALLOC(ndeps * sizeof *objs))))
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, fn, "no memory for %zu dependencies", ndeps);
    xrt__gnode_enter();
    st = xrt__capture_update_deps_locked(b, stream, deps, ndeps, flags, objs);
    xrt__gnode_exit(st);
    if (objs != few) XRT_FREE(objs);
    return st;
}

/* >> impl: user objects. The backend's object is made with xrt__uobj_gone
   as its destroy and a record as its pointer: when the last reference goes
   (on whichever thread, maybe the GPU runtime's own), the handle dies
   first, so that a later use is refused, then the caller's destroy runs.
   At xrt_shutdown the handles die before the graphs that hold their
   objects (xrt__uobj_shutdown). */
typedef struct xrt__uobj {
    const xrt_backend *b;
    uintptr_t handle;   /* 0 until made */
    xrt_host_fn destroy; /* NULL: the create failed, the caller's destroy is not run */
    void *ptr;
} xrt__uobj;

static void xrt__uobj_gone(void *user)
{
    xrt__uobj *u = (xrt__uobj *)user;
    xrt__handle_slot *s;
    uintptr_t flags;
    void *obj;
    if (u->handle && (s = xrt__handle_release(u->b, u->handle, &obj, &flags)) != NULL)
        xrt__handle_retire(u->b, u->handle, s, obj, flags); /* not owned: it destroys nothing */
    if (u->destroy) u->destroy(u->ptr);
    XRT_FREE(u);
}

/* Under the handle table's lock: every user object's handle dies. */
static void xrt__uobj_shutdown_locked(void)
{
    uintptr_t i;
    for (i = 0; i < xrt__handle_next; i++) {
        xrt__handle_slot *s = xrt__handle_slot_at(i);
        uintptr_t tag = __atomic_load_n(&s->tag, __ATOMIC_ACQUIRE);
        if ((tag & XRT__HANDLE_KIND_MASK) != XRT__HANDLE_USER_OBJECT || !xrt__handle_release_slot(s, tag)) continue;
        __atomic_store_n(&s->obj, (void *)NULL, __ATOMIC_RELAXED);
        __atomic_store_n(&s->owner, (const xrt_backend *)NULL, __ATOMIC_RELAXED);
        xrt__handle_free_locked(i);
    }
}

/* A reference count of a call: 1 .. INT_MAX, as CUDA's. */
static xrt_status xrt__uobj_count_bad(unsigned count, const char *fn)
{
    if (count && count <= INT_MAX) return XRT_SUCCESS;
    return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "count %u is not 1 .. INT_MAX", count);
}

/* The count, and the object: a NULL one is an invalid value, as in CUDA (its only error). */
static xrt_status xrt__uobj_args_bad(const void *object, unsigned count, const char *fn)
{
    if (!object) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "the user object handle is NULL");
    return xrt__uobj_count_bad(count, fn);
}

XRT_API xrt_status xrt__uobj_create(const xrt_backend *b, xrt_user_object *object, void *ptr, xrt_host_fn destroy,
                                    unsigned count, unsigned flags)
{
    const char *fn = "xrt_user_object_create";
    xrt__uobj *u;
    void *obj = NULL;
    uintptr_t h = 0;
    xrt_status st;
    XRT__CHECK_PTR(object, fn);
    *object = NULL;
    if (!destroy) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "destroy is NULL: a user object is its destructor");
    if ((st = xrt__uobj_count_bad(count, fn)) != XRT_SUCCESS) return st;
    if (flags != XRT_USER_OBJECT_NO_DESTRUCTOR_SYNC)
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn,
                         "flags 0x%x: they must be XRT_USER_OBJECT_NO_DESTRUCTOR_SYNC (1), as in CUDA", flags);
    if (!(u = (xrt__uobj *)XRT_CALLOC(1, sizeof *u)))
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, fn, "no memory for a user object");
    u->b = b;
    u->ptr = ptr;
    xrt__call_enter();
    if ((st = b->user_object_create(b, &obj, xrt__uobj_gone, u, count)) != XRT_SUCCESS) {
        XRT_FREE(u);
        return xrt__call_exit(st);
    }
    if ((st = xrt__handle_alloc(b, obj, XRT__HANDLE_USER_OBJECT, 0, &h)) != XRT_SUCCESS) {
        b->user_object_release(b, obj, count); /* u goes with it, destroy not run */
        return xrt__call_exit(st);
    }
    u->handle = h;
    u->destroy = destroy;
    *object = (xrt_user_object)h;
    return xrt__call_exit(XRT_SUCCESS);
}

XRT_API xrt_status xrt__uobj_count(const xrt_backend *b, xrt_user_object object, unsigned count, int release)
{
    const char *fn = release ? "xrt_user_object_release" : "xrt_user_object_retain";
    xrt__handle_slot *o;
    xrt_status st;
    if ((st = xrt__uobj_args_bad(object, count, fn)) != XRT_SUCCESS) return st;
    xrt__call_enter();
    if (!(o = xrt__handle_lookup(b, object, XRT__HANDLE_USER_OBJECT)))
        return xrt__call_exit(xrt__handle_bad(fn, object));
    st = release ? b->user_object_release(b, o->obj, count) : b->user_object_retain(b, o->obj, count);
    return xrt__call_exit(st);
}

XRT_API xrt_status xrt__uobj_graph(const xrt_backend *b, xrt_graph graph, xrt_user_object object, unsigned count,
                                   unsigned flags, int release)
{
    const char *fn = release ? "xrt_graph_release_user_object" : "xrt_graph_retain_user_object";
    xrt__handle_slot *g, *o;
    xrt_status st;
    if ((st = xrt__uobj_args_bad(object, count, fn)) != XRT_SUCCESS) return st;
    if (flags & ~(unsigned)XRT_GRAPH_USER_OBJECT_MOVE)
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "unknown flags 0x%x (0, XRT_GRAPH_USER_OBJECT_MOVE)", flags);
    xrt__gnode_enter(); /* the graph stays while the backend holds it */
    if (!(g = xrt__handle_lookup(b, graph, XRT__HANDLE_GRAPH))) return xrt__gnode_exit(xrt__handle_bad(fn, graph));
    if (!(o = xrt__handle_lookup(b, object, XRT__HANDLE_USER_OBJECT)))
        return xrt__gnode_exit(xrt__handle_bad(fn, object));
    st = release ? b->graph_release_user_object(b, g->obj, o->obj, count)
                 : b->graph_retain_user_object(b, g->obj, o->obj, count, flags);
    return xrt__gnode_exit(st);
}

XRT_API xrt_status xrt__graph_update(const xrt_backend *b, xrt_graph_exec exec, xrt_graph graph,
                                     xrt_graph_exec_update_result *result)
{
    const char *fn = "xrt_graph_exec_update_with_result";
    xrt__handle_slot *x, *g;
    xrt_graph_exec_update_result r;
    uintptr_t node = 0, from = 0;
    xrt_status st;
    XRT__CHECK_PTR(result, "xrt_graph_exec_update_with_result");
    memset(result, 0, sizeof *result);
    memset(&r, 0, sizeof r);
    xrt__gnode_enter();
    if (!(x = xrt__handle_lookup(b, exec, XRT__HANDLE_GRAPH_EXEC))) return xrt__gnode_exit(xrt__handle_bad(fn, exec));
    if (!(g = xrt__handle_lookup(b, graph, XRT__HANDLE_GRAPH))) return xrt__gnode_exit(xrt__handle_bad(fn, graph));
    if ((st = xrt__graph_capturing((uintptr_t)graph, fn)) != XRT_SUCCESS) return xrt__gnode_exit(st);
    st = b->graph_exec_update_with_result(b, x->obj, g->obj, &r);
    result->result = r.result;
    if (st == XRT_ERROR_GRAPH_EXEC_UPDATE_FAILURE) { /* the nodes' handles, without losing the failure's detail */
        xrt__err.quiet++;
        if (xrt__gnode_handle(b, (uintptr_t)graph, r.error_node, XRT__HANDLE_GRAPH_NODE, &node, fn) == XRT_SUCCESS &&
            xrt__gnode_handle(b, (uintptr_t)graph, r.error_from_node, XRT__HANDLE_GRAPH_NODE, &from, fn) == XRT_SUCCESS) {
            result->error_node = (xrt_graph_node)node;
            result->error_from_node = (xrt_graph_node)from;
        }
        xrt__err.quiet--;
    }
    if (xrt__chk_on) xrt__chk_instantiate(st, b, exec, g->obj); /* in the update's hold, as xrt_graph_exec_update's */
    return xrt__gnode_exit(st);
}

static xrt_status xrt__capture_to_graph_locked(const xrt_backend *b, xrt_stream stream, xrt_graph graph,
                                               const xrt_graph_node *deps, size_t ndeps, unsigned mode,
                                               void **objs)
{
    const char *fn = "xrt_stream_begin_capture_to_graph";
    xrt__handle_slot *s = xrt__handle_stream_as(b, stream), *g; /* the front's xrt__unit_stream */
    uintptr_t key;
    xrt_status st;
    if (!s) return xrt__handle_bad(fn, stream);
    if (s == &xrt__handle_null_stream || s->obj == NULL)
        return xrt_error(XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED, fn, "the NULL stream cannot be captured: capture another stream");
    if (!(g = xrt__handle_lookup(b, graph, XRT__HANDLE_GRAPH))) return xrt__handle_bad(fn, graph);
    if (mode > XRT_CAPTURE_MODE_RELAXED)
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn,
                         "mode %u is none of XRT_CAPTURE_MODE_GLOBAL (0), _THREAD_LOCAL (1), _RELAXED (2)", mode);
    if ((st = xrt__gnode_objs(b, (uintptr_t)graph, deps, ndeps, objs, "deps", fn)) != XRT_SUCCESS) return st;
    if (xrt__graph_captured_into((uintptr_t)graph))
        return xrt_error(XRT_ERROR_ILLEGAL_STATE, fn, "graph %p is being captured into already", (void *)graph);
    if ((st = xrt__graph_capturing((uintptr_t)graph, fn)) != XRT_SUCCESS) return st;
    if (!xrt__capture_follow(b, key = xrt__capture_key(b, stream), (uintptr_t)graph))
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, fn, "no memory to follow the capture");
    if ((st = b->stream_begin_capture_to_graph(b, s->obj, g->obj, objs, ndeps, mode)) != XRT_SUCCESS) {
        uintptr_t none; /* no handle of its graph was made yet */
        pthread_mutex_lock(&xrt__graph_mem_lock);
        xrt__capture_over_locked(b, key, 0, &none);
        pthread_mutex_unlock(&xrt__graph_mem_lock);
    }
    return st;
}

XRT_API xrt_status xrt__capture_to_graph(const xrt_backend *b, xrt_stream stream, xrt_graph graph,
                                         const xrt_graph_node *deps, size_t ndeps, xrt_capture_mode mode)
{
    void *few[8], **objs = few;
    xrt_status st;
    if (ndeps && !deps)
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_stream_begin_capture_to_graph", "deps is NULL but ndeps is %zu",
                         ndeps);
    if (ndeps > 8 && (ndeps > SIZE_MAX / sizeof *objs || !(objs = (void **)XRT_MALLOC(ndeps * sizeof *objs))))
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "xrt_stream_begin_capture_to_graph", "no memory for %zu dependencies",
                         ndeps);
    xrt__gnode_enter();
    st = xrt__capture_to_graph_locked(b, stream, graph, deps, ndeps, (unsigned)mode, objs);
    xrt__gnode_exit(st);
    if (objs != few) XRT_FREE(objs);
    return st;
}

/* At xrt_shutdown, after every handle went: the table goes too. */
static void xrt__gnode_shutdown(void)
{
    /* no lock: no other thread is in a call now, and the registry's lock is
       held, which the calls here take after theirs (fork's order) */
    XRT_FREE(xrt__gnodes);
    xrt__gnodes = NULL;
    xrt__gnodes_n = xrt__gnodes_cap = 0;
}

/* >> impl: native streams. xrt_stream_from_native's table: (backend, native
   stream) -> the handle that wraps it, made on first use and kept until
   xrt_shutdown, so that a library called with a framework's stream neither
   keeps nor destroys a handle. Open addressing without removal: an entry
   whose handle went (xrt_stream_destroy) is made again in place. */
#define XRT__NATIVE_MAX 4096u /* a power of two */
typedef struct xrt__native_entry { const xrt_backend *b; void *native; xrt_stream s; } xrt__native_entry;
static xrt__native_entry *xrt__natives; /* XRT__NATIVE_MAX entries, made on first use */
static int xrt__native_lock;

/* The entry of (b, native), or the free one where it would go; NULL when the
   table is full. Under the lock. */
static xrt__native_entry *xrt__native_find(const xrt_backend *b, void *native)
{
    uintptr_t h = ((uintptr_t)native >> 4) ^ ((uintptr_t)b >> 6);
    unsigned i, n;
    h *= (uintptr_t)0x9E3779B97F4A7C15ull;
    for (i = (unsigned)(h >> 20), n = 0; n < XRT__NATIVE_MAX; n++, i++) {
        xrt__native_entry *e = &xrt__natives[i & (XRT__NATIVE_MAX - 1)];
        if (!e->native || (e->native == native && e->b == b)) return e;
    }
    return NULL;
}

/* The live handle of the entry of (b, native), NULL if there is none.
   Under the lock. */
static xrt_stream xrt__native_live(const xrt_backend *b, void *native, xrt__native_entry **at)
{
    *at = xrt__natives ? xrt__native_find(b, native) : NULL;
    return *at && (*at)->native && xrt__handle_lookup(b, (*at)->s, XRT__HANDLE_STREAM) ? (*at)->s : NULL;
}

/* Records s for (b, native), or gives the handle another thread recorded
   first (s is then released). */
static xrt_status xrt__native_keep(const xrt_backend *b, void *native, xrt_stream *s)
{
    xrt__native_entry *e;
    xrt_stream other;
    int made;
    xrt__spin_lock(&xrt__native_lock);
    if (!xrt__natives) xrt__natives = (xrt__native_entry *)XRT_CALLOC(XRT__NATIVE_MAX, sizeof *xrt__natives);
    made = xrt__natives != NULL;
    other = xrt__native_live(b, native, &e);
    if (!other && e) e->b = b, e->native = native, e->s = *s;
    xrt__spin_unlock(&xrt__native_lock);
    if (other || !e) xrt_stream_destroy(*s); /* not owned: the handle goes, the native stream stays */
    *s = other ? other : e ? *s : NULL;
    if (!made) return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "xrt_stream_from_native", "no memory for the table");
    if (!e)
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "xrt_stream_from_native",
                         "%u native streams are known already (the most xrt keeps)", XRT__NATIVE_MAX);
    return XRT_SUCCESS;
}

/* The failure of a call that public call `who` made through another entry
   (xrt_stream_from_native through xrt_stream_wrap_native), recorded under
   capture, reported as who's: the detail names the call the program made
   (a forwarding plugin names the table's slot, stream_wrap_native, not who)
   and keeps the inner detail after it. */
XRT_API xrt_status xrt__stream_attr_check(const char *fn, xrt_stream_attr attr, const xrt_stream_attr_value *value,
                                          int set)
{
    const xrt_access_policy_window *w = value ? &value->access_policy_window : NULL;
    if (!value) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "value is NULL");
    if (attr != XRT_STREAM_ATTR_ACCESS_POLICY_WINDOW && attr != XRT_STREAM_ATTR_SYNCHRONIZATION_POLICY &&
        attr != XRT_STREAM_ATTR_PRIORITY && attr != XRT_STREAM_ATTR_MEM_SYNC_DOMAIN_MAP &&
        attr != XRT_STREAM_ATTR_MEM_SYNC_DOMAIN)
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn,
                         "attribute %d is none of XRT_STREAM_ATTR_ACCESS_POLICY_WINDOW (1), _SYNCHRONIZATION_POLICY (3), "
                         "_PRIORITY (8), _MEM_SYNC_DOMAIN_MAP (9), _MEM_SYNC_DOMAIN (10)", (int)attr);
    if (!set) return XRT_SUCCESS;
    if (attr == XRT_STREAM_ATTR_ACCESS_POLICY_WINDOW && !(w->hit_ratio >= 0.0f && w->hit_ratio <= 1.0f))
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "the window's hit_ratio %g is not within 0 to 1", (double)w->hit_ratio);
    if (attr == XRT_STREAM_ATTR_ACCESS_POLICY_WINDOW &&
        ((unsigned)w->hit_prop > XRT_ACCESS_PROPERTY_PERSISTING || (unsigned)w->miss_prop > XRT_ACCESS_PROPERTY_PERSISTING))
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "the window's hit_prop %d or miss_prop %d is no xrt_access_property",
                         (int)w->hit_prop, (int)w->miss_prop);
    if (attr == XRT_STREAM_ATTR_SYNCHRONIZATION_POLICY &&
        (value->sync_policy < XRT_SYNC_POLICY_AUTO || value->sync_policy > XRT_SYNC_POLICY_BLOCKING_SYNC))
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn,
                         "sync_policy %d is none of XRT_SYNC_POLICY_AUTO (1), _SPIN (2), _YIELD (3), _BLOCKING_SYNC (4)",
                         (int)value->sync_policy);
    if (attr == XRT_STREAM_ATTR_MEM_SYNC_DOMAIN && (unsigned)value->mem_sync_domain > 1)
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "mem_sync_domain %d is neither 0 (default) nor 1 (remote)",
                         value->mem_sync_domain);
    return XRT_SUCCESS;
}

XRT_API xrt_status xrt__err_as(xrt_status st, const char *who)
{
    char inner[sizeof xrt__err.detail];
    memcpy(inner, xrt__err.detail, strlen(xrt__err.detail) + 1);
    return xrt_error(st, who, "%s", inner);
}

XRT_API xrt_status xrt_stream_from_native(xrt_stream *stream, void *native)
{
    const xrt_backend *b;
    xrt__native_entry *e;
    xrt_status st;
    XRT__CHECK_PTR(stream, "xrt_stream_from_native");
    if ((uintptr_t)native <= (uintptr_t)XRT_STREAM_PER_THREAD) { /* 0, cudaStreamLegacy, cudaStreamPerThread */
        *stream = (xrt_stream)native;
        return XRT_SUCCESS;
    }
    b = xrt__be();
    xrt__spin_lock(&xrt__native_lock);
    *stream = xrt__native_live(b, native, &e);
    xrt__spin_unlock(&xrt__native_lock);
    if (*stream) return XRT_SUCCESS;
    if (b->stream_wrap_native == xrt__unsupported_stream_wrap_native)
        return xrt_error(XRT_ERROR_UNSUPPORTED, "xrt_stream_from_native", "not supported by backend %s", b->name);
    xrt__err.capture++; /* its failure is reported once, below, as this call's */
    st = xrt_stream_wrap_native(stream, native);
    xrt__err.capture--;
    if (st != XRT_SUCCESS) return xrt__err_as(st, "xrt_stream_from_native");
    return xrt__native_keep(b, native, stream);
}

/* At xrt_shutdown, after every handle went. */
static void xrt__native_shutdown(void)
{
    xrt__spin_lock(&xrt__native_lock);
    XRT_FREE(xrt__natives);
    xrt__natives = NULL;
    xrt__spin_unlock(&xrt__native_lock);
}

/* >> impl: fork. The prepare handler takes every core lock so that the child
   starts with consistent state; the child then marks itself forked, so that
   backends that do not survive fork() answer XRT_ERROR_NOT_PERMITTED. The
   graph nodes' lock is the outermost (an instantiate's or an update's
   checker hook runs in its hold), then the checker's (its hooks take the
   core's locks inside it); xrt_check.h has the checker's handlers. */
static void xrt__chk_fork_prepare(void);
static void xrt__chk_fork_parent(void);
static void xrt__chk_fork_child(void);
static void xrt__fork_prepare(void)
{
    xrt__register_fork_hold(1);   /* taken by entry points alone; its hold reaches the checker's */
    xrt__pool_handle_fork_hold(1); /* taken by entry points alone; held across the handle table's */
    pthread_mutex_lock(&xrt__gnode_lock); /* its calls take the others */
    xrt__chk_fork_prepare();
    pthread_mutex_lock(&xrt__reg_lock);
    pthread_mutex_lock(&xrt__handle_lock);
    xrt__ipc_fork_hold(1); /* inside the registry's (xrt_shutdown), outside the memory's and the log's */
    xrt__graph_mem_fork_hold(1); /* inside the graph nodes' and the registry's, outside the memory's */
    xrt__spin_lock(&xrt__mem_lock); /* a spin lock: the child may release it too */
    pthread_mutex_lock(&xrt__call_lock);
    pthread_mutex_lock(&xrt__log_lock);
    pthread_mutex_lock(&xrt__cache_lock); /* a leaf: held with no other lock */
    xrt__spin_lock(&xrt__native_lock);    /* a leaf too */
    xrt__hook_fork_hold(1);               /* a leaf too */
}

static void xrt__fork_parent(void)
{
    xrt__hook_fork_hold(0);
    xrt__spin_unlock(&xrt__native_lock);
    pthread_mutex_unlock(&xrt__cache_lock);
    pthread_mutex_unlock(&xrt__log_lock);
    pthread_mutex_unlock(&xrt__call_lock);
    xrt__spin_unlock(&xrt__mem_lock);
    xrt__graph_mem_fork_hold(0);
    xrt__ipc_fork_hold(0);
    pthread_mutex_unlock(&xrt__handle_lock);
    pthread_mutex_unlock(&xrt__reg_lock);
    xrt__chk_fork_parent();
    pthread_mutex_unlock(&xrt__gnode_lock);
    xrt__pool_handle_fork_hold(0);
    xrt__register_fork_hold(0);
}

static void xrt__fork_child(void)
{
    xrt__call_fork_child();
    xrt__chk_fork_child();
    xrt__fork_parent();
    if (xrt__reg_inited) xrt__reg_forked = 1;
    __atomic_store_n(&xrt__gen, xrt__gen + 2, __ATOMIC_RELEASE);
}

/* >> impl: stream-order checker (xrt_check.h): XRT_CHECK=streams, the vector
   clocks, the accesses and the reports, after the registry, handles and graph
   nodes they use, before xrt_init that reads XRT_CHECK */
#include "xrt_check.h"

/* >> impl: lifecycle: init and shutdown, the thread's backend, host functions */
XRT_API xrt_status xrt_init(void)
{
    static int atfork_done;
    int chk_env = 0;
    char reason[sizeof xrt__reg_reason];
    xrt_status st;
    size_t i;
    xrt__lock(&xrt__reg_lock);
    if (!xrt__reg_inited) {
        if (!atfork_done && pthread_atfork(xrt__fork_prepare, xrt__fork_parent, xrt__fork_child) == 0)
            atfork_done = 1; /* once a process: handlers cannot be removed */
        xrt__fill_special();
        xrt__log_init_from_env();
        chk_env = xrt__chk_from_env();
        /* Before the backends start threads: registering for membarrier
           takes microseconds in a process of one thread, ~11 ms in one of
           several (the kernel waits for a grace period). */
        pthread_once(&xrt__call_once, xrt__call_setup);
        for (i = 0; i < sizeof xrt__reg_builtins / sizeof xrt__reg_builtins[0]; i++)
            xrt__reg_add_builtin_locked(&xrt__reg_builtins[i]);
        xrt__plugin_init_locked();
        xrt__reg_status = xrt__reg_select_locked();
        xrt__reg_inited = 1;
        __atomic_store_n(&xrt__gen, xrt__gen + 1, __ATOMIC_RELEASE);
    } else if (xrt__reg_status == XRT_ERROR_OUT_OF_MEMORY) {
        xrt__reg_select_again_locked();
    }
    st = xrt__reg_status; /* read under the lock: xrt_register_backend may select again */
    if (st != XRT_SUCCESS) memcpy(reason, xrt__reg_reason, sizeof reason);
    xrt__unlock(&xrt__reg_lock);
    if (chk_env) xrt__chk_env_done(chk_env);
    if (st != XRT_SUCCESS) return xrt_error(st, "xrt_init", "%s", reason);
    return XRT_SUCCESS;
}

static int xrt__reg_usable(const xrt__reg_entry *e)
{
    return e->probed && e->probe_status == XRT_SUCCESS && xrt__survives_fork(&e->t);
}

/* Waits for a backend's work. Where host functions make xrt calls, on every
   device: device synchronize waits for the current device's alone, and a
   host function of another device would otherwise meet xrt_shutdown's locks.
   (Elsewhere the current device's: a GPU backend's host functions are
   refused before any lock, and synchronizing a device never used would
   create its context.) */
static void xrt__reg_drain_one(const xrt_backend *t)
{
    int n = 0, d, current = 0;
    if (!(t->flags & XRT_BACKEND_HOST_FN_CALLS) || t->get_device(t, &current) != XRT_SUCCESS ||
        t->get_device_count(t, &n) != XRT_SUCCESS || n < 2) {
        t->device_synchronize(t);
        return;
    }
    for (d = 0; d < n; d++)
        if (t->set_device(t, d) == XRT_SUCCESS) t->device_synchronize(t);
    t->set_device(t, current);
}

/* Drains every backend before taking a lock: a host function still queued may
   make an xrt call (which takes the locks) and must be able to finish. */
static void xrt__reg_drain(void)
{
    xrt__reg_entry *usable[XRT_MAX_BACKENDS];
    int i, n = 0;
    xrt__lock(&xrt__reg_lock);
    for (i = 0; xrt__reg_inited && i < xrt__reg_count; i++)
        if (xrt__reg_usable(&xrt__reg_entries[i])) usable[n++] = &xrt__reg_entries[i];
    xrt__unlock(&xrt__reg_lock);
    xrt__err.quiet++;
    for (i = 0; i < n; i++) xrt__reg_drain_one(&usable[i]->t);
    xrt__err.quiet--;
}

XRT_API void xrt_shutdown(void)
{
    int i, was;
    if (XRT__UNLIKELY(xrt__tls.host_fn)) {
        xrt_error(XRT_ERROR_NOT_PERMITTED, "xrt_shutdown", "called from a host function: it would wait for itself");
        return;
    }
    xrt__reg_drain();
    xrt__limbo_reclaim(1); /* no other thread may be in a call now */
    xrt__lock(&xrt__reg_lock);
    was = xrt__reg_inited;
    if (xrt__reg_inited) {
        xrt__handle_shutdown();           /* destroys live streams and events */
        xrt__gnode_shutdown();
        xrt__native_shutdown();
        xrt__graph_mem_shutdown();
        xrt__ipc_shutdown();
        xrt__mem_shutdown();              /* frees what the program did not, backends still up */
        for (i = 0; i < xrt__reg_count; i++)
            if (xrt__reg_usable(&xrt__reg_entries[i]) && xrt__reg_entries[i].t.shutdown)
                xrt__reg_entries[i].t.shutdown(&xrt__reg_entries[i].t);
        __atomic_store_n(&xrt__reg_count, 0, __ATOMIC_RELEASE);
        xrt__reg_inited = 0;
        xrt__reg_default = NULL;
        xrt__reg_epoch++;
        __atomic_store_n(&xrt__gen, xrt__gen + 1, __ATOMIC_RELEASE);
    }
    xrt__unlock(&xrt__reg_lock);
    /* after the registry's lock: the checker's is taken outside it (fork's
       handlers, the hooks), and the destroys above may have called its hooks */
    if (was && xrt__chk_on) xrt__chk_shutdown();
}

/* Device reset (xrt__device_reset_objects), in the lifecycle: one of b's records of
   memory on `device` (device or managed memory, an opened IPC handle; pinned
   host memory is no device's in the registry), freed by the path of the
   call that frees it. */
typedef struct xrt__reset_mem { void *p; unsigned ipc_opens; } xrt__reset_mem;

static void xrt__reset_free(const xrt_backend *b, const xrt__reset_mem *m)
{
    void *record;
    unsigned n = m->ipc_opens;
    if (n) {
        while (n-- && xrt__ipc_close(b, m->p) == XRT_SUCCESS) {}
    } else if (xrt__mem_take(b, m->p, XRT_MEMORY_DEVICE, "xrt_device_reset", &record) == XRT_SUCCESS) {
        xrt__mem_finish(record, b->free(b, m->p));
    }
}

/* Copies out b's records of memory on device (allocated with it current),
   then frees each: a free takes the registry's lock itself. */
static void xrt__reset_memory(const xrt_backend *b, int device)
{
    xrt__reset_mem *v = NULL, *w;
    size_t n = 0, cap = 0, i;
    const xrt__tree_node *t;
    xrt__spin_lock(&xrt__mem_lock);
    for (t = xrt__tree_collect(&xrt__mem_tree, 0, UINTPTR_MAX); t; t = t->next) {
        const xrt__mem_node *m = (const xrt__mem_node *)(const void *)t;
        if (m->be != b || m->device != device || m->capture) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            if ((w = (xrt__reset_mem *)XRT_REALLOC(v, cap * sizeof *v)) == NULL) break;
            v = w;
        }
        v[n].p = (void *)m->node.start;
        v[n++].ipc_opens = m->ipc_opens;
    }
    xrt__spin_unlock(&xrt__mem_lock);
    for (i = 0; i < n; i++) xrt__reset_free(b, &v[i]);
    XRT_FREE(v);
}

/* The handles to retire, read inside a call (an object another thread
   destroys meanwhile waits in limbo), then retired after it. */
static void xrt__reset_handles(const xrt_backend *b, const xrt_backend *self, int device, xrt__on_device_fn on_device)
{
    uintptr_t *v = NULL, *w, i, end;
    size_t n = 0, cap = 0, j;
    xrt__lock(&xrt__handle_lock);
    end = xrt__handle_next;
    xrt__unlock(&xrt__handle_lock);
    xrt__call_enter();
    for (i = 0; i < end; i++) {
        xrt__handle_slot *s = xrt__handle_slot_at(i);
        uintptr_t tag = __atomic_load_n(&s->tag, __ATOMIC_SEQ_CST), kind = tag & XRT__HANDLE_KIND_MASK;
        void *obj = __atomic_load_n(&s->obj, __ATOMIC_RELAXED);
        if (!kind || __atomic_load_n(&s->owner, __ATOMIC_RELAXED) != b ||
            !(__atomic_load_n(&s->flags, __ATOMIC_RELAXED) & XRT__HANDLE_OWNED) ||
            __atomic_load_n(&s->tag, __ATOMIC_SEQ_CST) != tag || !on_device(self, kind, obj, device))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            if ((w = (uintptr_t *)XRT_REALLOC(v, cap * sizeof *v)) == NULL) break;
            v = w;
        }
        v[n++] = tag;
    }
    xrt__call_exit(XRT_SUCCESS);
    xrt__err.quiet++; /* a handle another thread destroyed first is not this call's failure */
    for (j = 0; j < n; j++) xrt__handle_free(b, (const void *)v[j], v[j] & XRT__HANDLE_KIND_MASK, "xrt_device_reset");
    xrt__err.quiet--;
    XRT_FREE(v);
}

/* b is the backend whose operation calls it; what it resets is recorded
   under the table the thread dispatched to, which may be a plugin that
   forwards to b (the tracing plugin): its objects are b's. */
XRT_API void xrt__device_reset_objects(const xrt_backend *b, int device, xrt__on_device_fn on_device)
{
    const xrt_backend *owner = xrt__be();
    xrt__reset_memory(owner, device); /* first: a pool's allocations go back to it before it goes */
    xrt__reset_handles(owner, b, device, on_device);
}

/* The thread's backend after a change of generation: its own choice, unless
   xrt was shut down since, else the default; in a forked child, a backend
   that does not survive fork() is replaced by the table that says so. */
XRT_API const xrt_backend *xrt__be_slow(void)
{
    const xrt_backend *be;
    /* a GPU runtime's host function: refused before any handle is used, so
       its thread need not register (a destroy elsewhere then need not wait
       for it, nor pay membarrier(2) for it) */
    if (xrt__tls.host_fn) return &xrt__forbidden_backend;
    if (XRT__UNLIKELY(!xrt__call.registered)) xrt__call_register();
    if (XRT__UNLIKELY(!xrt__call.registered)) { /* an exiting thread in its last destructor round */
        xrt__tls.be = &xrt__forbidden_backend;
        xrt__tls.gen = __atomic_load_n(&xrt__gen, __ATOMIC_ACQUIRE) - 1;
        return &xrt__forbidden_backend;
    }
    xrt__err.quiet++; /* a failed init is reported once, by the call that needed it */
    xrt_init();
    xrt__err.quiet--;
    xrt__lock(&xrt__reg_lock);
    be = xrt__tls.chosen && xrt__tls.epoch == xrt__reg_epoch ? xrt__tls.be : NULL;
    if (!be) be = xrt__reg_default ? xrt__reg_default : &xrt__none_backend;
    xrt__tls.chosen = be == xrt__tls.be && xrt__tls.chosen;
    xrt__tls.epoch = xrt__reg_epoch;
    if (xrt__reg_forked && be != &xrt__none_backend && !(be->flags & XRT_BACKEND_FORK_SAFE)) {
        xrt__tls.forbidden_by = be->name;
        be = &xrt__forbidden_backend;
    }
    xrt__tls.be = be;
    xrt__tls.gen = __atomic_load_n(&xrt__gen, __ATOMIC_ACQUIRE);
    xrt__unlock(&xrt__reg_lock);
    return be;
}

/* Runs a host function for backend b. While it runs, the thread dispatches to
   b; a backend without XRT_BACKEND_HOST_FN_CALLS refuses every call, and the
   dispatch layer refuses calls that wait on every backend. */
XRT_API void xrt__host_fn_run(const xrt_backend *b, xrt_host_fn fn, void *user)
{
    struct xrt__tls_state saved = xrt__tls;
    xrt__tls.host_fn = 1;
    xrt__tls.forbidden_by = b->name;
    if (b->flags & XRT_BACKEND_HOST_FN_CALLS) { /* its calls use handles: a destroy must see them */
        if (XRT__UNLIKELY(!xrt__call.registered)) xrt__call_register();
        xrt__tls.be = b;
        xrt__tls.gen = __atomic_load_n(&xrt__gen, __ATOMIC_ACQUIRE);
    } else {
        xrt__tls.be = &xrt__forbidden_backend;
        xrt__tls.gen = xrt__gen - 1; /* never current: every call takes xrt__be_slow */
    }
    fn(user);
    xrt__tls = saved;
}

/* xrt__host_fn_run on a thread that a caller lends while it waits for the
   function's stream: the function's failures stay its own, as they do on a
   backend's thread, and the caller's last error is what it was. */
XRT_API void xrt__host_fn_lend(const xrt_backend *b, xrt_host_fn fn, void *user)
{
    xrt__err_kept kept;
    xrt__err_keep(&kept);
    xrt__host_fn_run(b, fn, user);
    xrt__err_put_back(&kept);
}

typedef struct xrt__stream_cb {
    xrt_stream_callback fn;
    xrt_stream stream;
    void *user;
} xrt__stream_cb;

/* Runs inside xrt__host_fn_run: the thread's every call is refused then. */
static void xrt__stream_cb_run(void *closure)
{
    xrt__stream_cb c = *(xrt__stream_cb *)closure;
    struct xrt__tls_state saved = xrt__tls;
    XRT_FREE(closure);
    xrt__tls.host_fn = XRT__HOST_FN_CALLBACK; /* as a host function of a backend that refuses every call: */
    xrt__tls.be = &xrt__forbidden_backend;
    xrt__tls.gen = xrt__gen - 1; /* stale: each call takes xrt__be_slow, which refuses it */
    c.fn(c.stream, XRT_SUCCESS, c.user);
    xrt__tls = saved;
}

/* xrt_stream_add_callback past its checks: backend stream obj of handle stream */
XRT_API xrt_status xrt__stream_add_callback(const xrt_backend *b, void *obj, xrt_stream stream, xrt_stream_callback fn,
                                            void *user)
{
    xrt__stream_cb *c = (xrt__stream_cb *)XRT_MALLOC(sizeof *c);
    xrt_status st;
    if (!c) return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "xrt_stream_add_callback", "no memory for the callback's closure");
    c->fn = fn;
    c->stream = stream;
    c->user = user;
    if ((st = b->launch_host_func(b, obj, xrt__stream_cb_run, c)) != XRT_SUCCESS) XRT_FREE(c);
    return st;
}

XRT_API xrt_status xrt__not_permitted(const char *fn)
{
    return xrt_error(XRT_ERROR_NOT_PERMITTED, fn, "called from a host function: it would wait for itself");
}

/* >> impl: backends: registration, listing, the thread's choice */
XRT_API xrt_status xrt_register_backend(const xrt_backend *backend)
{
    xrt_status st;
    xrt__err.quiet++; /* XRT_BACKEND may name the backend being registered */
    xrt_init();
    xrt__err.quiet--;
    xrt__lock(&xrt__reg_lock);
    st = xrt__reg_add_locked(backend);
    if (st == XRT_SUCCESS) xrt__reg_select_again_locked();
    xrt__unlock(&xrt__reg_lock);
    return st;
}

XRT_API xrt_status xrt_backend_count(int *count)
{
    xrt_status st = xrt__refuse("xrt_backend_count");
    if (st != XRT_SUCCESS) return st;
    if (!count) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_backend_count", "count is NULL");
    xrt_init();
    xrt__lock(&xrt__reg_lock);
    *count = xrt__reg_count;
    xrt__unlock(&xrt__reg_lock);
    return XRT_SUCCESS;
}

/* Probes the backend if needed, so the listing is complete. */
XRT_API xrt_status xrt_driver_get_version(int *version)
{
    const xrt_backend *b;
    unsigned caps;
    xrt_status st = xrt__refuse("xrt_driver_get_version");
    if (st != XRT_SUCCESS) return st;
    if (!version) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_driver_get_version", "version is NULL");
    b = xrt__be();
    if ((st = b->get_capabilities(b, &caps)) != XRT_SUCCESS) return st; /* no usable backend: its error */
    {
        const xrt__reg_entry *e = (const xrt__reg_entry *)(uintptr_t)b;
        int own = e >= xrt__reg_entries && e < xrt__reg_entries + XRT_MAX_BACKENDS;
        *version = own && e->library[0] ? e->driver_version : XRT_VERSION;
    }
    return XRT_SUCCESS;
}

XRT_API xrt_status xrt_backend_get_info(int index, xrt_backend_info *info)
{
    xrt_status st = xrt__refuse("xrt_backend_get_info");
    if (st != XRT_SUCCESS) return st;
    if (!info) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_backend_get_info", "info is NULL");
    xrt_init();
    xrt__lock(&xrt__reg_lock);
    if (index < 0 || index >= xrt__reg_count) {
        st = XRT_ERROR_INVALID_VALUE;
    } else {
        xrt__reg_entry *e = &xrt__reg_entries[index];
        info->available = xrt__reg_probe_locked(e) == XRT_SUCCESS;
        info->name = e->t.name;
        info->reason = info->available ? "" : e->reason;
        info->abi_version = e->t.abi_version;
        info->library = e->library;
        info->runtime_version = e->runtime_version;
        info->driver_version = e->driver_version;
    }
    xrt__unlock(&xrt__reg_lock);
    if (st != XRT_SUCCESS) return xrt_error(st, "xrt_backend_get_info", "index %d out of range", index);
    return st;
}

/* The entry named (NULL: the thread's backend) if the thread may use it;
   else NULL with the status and, in why, the reason. */
static xrt__reg_entry *xrt__reg_pick_locked(const char *name, const xrt_backend *current, xrt_status *st, char *why,
                                            size_t n)
{
    xrt__reg_entry *e = NULL;
    int i;
    if (name) e = xrt__reg_find_locked(name, strlen(name));
    for (i = 0; !name && i < xrt__reg_count; i++)
        if (&xrt__reg_entries[i].t == current) e = &xrt__reg_entries[i];
    *st = XRT_SUCCESS;
    if (!e) {
        xrt__reg_names_locked(why, n);
        *st = XRT_ERROR_NOT_FOUND;
    } else if (xrt__reg_probe_locked(e) != XRT_SUCCESS) {
        *st = xrt__reg_unavailable(e->probe_status);
        snprintf(why, n, "%s", e->reason);
    } else if (xrt__reg_forked && !(e->t.flags & XRT_BACKEND_FORK_SAFE)) {
        *st = XRT_ERROR_NOT_PERMITTED;
        xrt__fork_refusal(e->t.name, why, n);
    }
    return *st == XRT_SUCCESS ? e : NULL;
}

static xrt_status xrt__reg_pick_fail(xrt_status st, const char *fn, const char *name, const char *why)
{
    if (st == XRT_ERROR_NOT_FOUND && !name)
        return xrt_error(XRT_ERROR_BACKEND_UNAVAILABLE, fn, "the thread has no usable backend (valid: %s)", why);
    if (st == XRT_ERROR_NOT_FOUND) return xrt_error(st, fn, "unknown backend '%.64s' (valid: %s)", name, why);
    if (st == XRT_ERROR_NOT_PERMITTED) return xrt_error(st, fn, "%s", why);
    return xrt_error(st, fn, "%.64s: unavailable: %s", name ? name : "the thread's backend", why);
}

/* A host function runs on its stream's backend: it may not select another. */
static xrt_status xrt__reg_choice_refused(const char *fn)
{
    if (xrt__tls.be == &xrt__forbidden_backend) return xrt__forbidden_fail(fn);
    return xrt_error(XRT_ERROR_NOT_PERMITTED, fn,
                     "called from a host function, which runs on its stream's backend: it may not select another");
}

XRT_API xrt_status xrt_set_backend(const char *name)
{
    char why[256];
    xrt__reg_entry *e;
    xrt_status st;
    if (xrt__tls.host_fn) return xrt__reg_choice_refused("xrt_set_backend");
    if (!name) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_set_backend", "name is NULL");
    xrt__be(); /* initialises and fixes this thread's generation */
    xrt__lock(&xrt__reg_lock);
    e = xrt__reg_pick_locked(name, NULL, &st, why, sizeof why);
    if (e) {
        xrt__tls.be = &e->t;
        xrt__tls.chosen = 1;
    }
    xrt__unlock(&xrt__reg_lock);
    return e ? XRT_SUCCESS : xrt__reg_pick_fail(st, "xrt_set_backend", name, why);
}

/* >> impl: backends: handles and the thread's stack of pushed backends.
   A handle is the registry's epoch above the entry's index + 1: one made
   before xrt_shutdown is refused after it, and nothing is allocated. */
#define XRT__BHANDLE_INDEX_BITS 8
struct xrt__push_frame {
    const xrt_backend *be; /* the thread's state before the push */
    unsigned gen, epoch;
    int chosen;
    xrt_backend_handle handle;
    int device;            /* the backend's device to restore, or XRT_DEVICE_CURRENT */
};
static XRT__TLS struct xrt__push_state {
    int depth;
    struct xrt__push_frame frames[XRT_BACKEND_STACK_DEPTH];
} xrt__push;

/* The handle's entry, NULL if it is not one of this registry's epoch or
   names no available backend (xrt_get_backend_handle gives no other: one
   made by hand may name an empty slot, or one left from before
   xrt_shutdown). */
static xrt__reg_entry *xrt__bhandle_entry(xrt_backend_handle handle)
{
    uintptr_t v = (uintptr_t)handle, i = (v & ((1u << XRT__BHANDLE_INDEX_BITS) - 1)) - 1;
    if (XRT__UNLIKELY(i >= (uintptr_t)__atomic_load_n(&xrt__reg_count, __ATOMIC_ACQUIRE) ||
                      (v >> XRT__BHANDLE_INDEX_BITS) != xrt__reg_epoch || !xrt__reg_usable(&xrt__reg_entries[i])))
        return NULL;
    return &xrt__reg_entries[i];
}

XRT_API xrt_status xrt_get_backend_handle(const char *name, xrt_backend_handle *handle)
{
    char why[256];
    const xrt_backend *current;
    xrt__reg_entry *e;
    xrt_status st;
    if (!handle) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_get_backend_handle", "handle is NULL");
    *handle = NULL;
    if (xrt__tls.host_fn) return xrt__reg_choice_refused("xrt_get_backend_handle");
    current = xrt__be(); /* initialises */
    xrt__lock(&xrt__reg_lock);
    e = xrt__reg_pick_locked(name, current, &st, why, sizeof why);
    if (e)
        *handle = (xrt_backend_handle)(((uintptr_t)xrt__reg_epoch << XRT__BHANDLE_INDEX_BITS) |
                                       (uintptr_t)(e - xrt__reg_entries + 1));
    xrt__unlock(&xrt__reg_lock);
    return e ? XRT_SUCCESS : xrt__reg_pick_fail(st, "xrt_get_backend_handle", name, why);
}

/* Makes the backend's device `device`, saving the one to restore in f. */
static xrt_status xrt__push_device(const xrt_backend *b, int device, struct xrt__push_frame *f)
{
    int current;
    xrt_status st = b->get_device(b, &current);
    if (st != XRT_SUCCESS) return st;
    if (current != device && (st = b->set_device(b, device)) != XRT_SUCCESS) return st;
    f->device = current;
    return XRT_SUCCESS;
}

XRT_API xrt_status xrt_push_backend(xrt_backend_handle handle, int device)
{
    struct xrt__push_frame *f = &xrt__push.frames[xrt__push.depth < XRT_BACKEND_STACK_DEPTH ? xrt__push.depth : 0];
    xrt__reg_entry *e;
    if (XRT__UNLIKELY(xrt__tls.host_fn)) return xrt__reg_choice_refused("xrt_push_backend");
    if (XRT__UNLIKELY(!handle)) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_push_backend", "handle is NULL");
    if (XRT__UNLIKELY(!(e = xrt__bhandle_entry(handle))))
        return xrt_error(XRT_ERROR_INVALID_HANDLE, "xrt_push_backend",
                         "not a backend handle of this xrt (made before xrt_shutdown, or not by xrt_get_backend_handle)");
    if (XRT__UNLIKELY(xrt__reg_forked && !(e->t.flags & XRT_BACKEND_FORK_SAFE))) {
        char why[512];
        xrt__fork_refusal(e->t.name, why, sizeof why);
        return xrt_error(XRT_ERROR_NOT_PERMITTED, "xrt_push_backend", "%s", why);
    }
    if (XRT__UNLIKELY(device < XRT_DEVICE_CURRENT))
        return xrt_error(XRT_ERROR_INVALID_DEVICE, "xrt_push_backend", "device %d is negative", device);
    if (XRT__UNLIKELY(xrt__push.depth == XRT_BACKEND_STACK_DEPTH))
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "xrt_push_backend",
                         "the thread's backend stack is full (%d pushes without a pop)", XRT_BACKEND_STACK_DEPTH);
    xrt__be(); /* the thread is registered and its state current: it is what the pop restores */
    f->device = XRT_DEVICE_CURRENT;
    if (device != XRT_DEVICE_CURRENT) {
        xrt_status st = xrt__push_device(&e->t, device, f);
        if (st != XRT_SUCCESS) return st;
    }
    f->be = xrt__tls.be;
    f->gen = xrt__tls.gen;
    f->epoch = xrt__tls.epoch;
    f->chosen = xrt__tls.chosen;
    f->handle = handle;
    xrt__push.depth++;
    xrt__tls.be = &e->t;
    xrt__tls.epoch = xrt__reg_epoch;
    xrt__tls.chosen = 1;
    return XRT_SUCCESS;
}

/* Puts the backend's device back as the push found it (not after xrt_shutdown). */
static xrt_status xrt__pop_device(const struct xrt__push_frame *f)
{
    xrt__reg_entry *e = xrt__bhandle_entry(f->handle);
    int current;
    xrt_status st;
    if (f->device == XRT_DEVICE_CURRENT || !e) return XRT_SUCCESS;
    if ((st = e->t.get_device(&e->t, &current)) != XRT_SUCCESS) return st;
    return current == f->device ? XRT_SUCCESS : e->t.set_device(&e->t, f->device);
}

XRT_API xrt_status xrt_pop_backend(xrt_backend_handle *popped)
{
    const struct xrt__push_frame *f;
    xrt_status st;
    if (XRT__UNLIKELY(xrt__tls.host_fn)) return xrt__reg_choice_refused("xrt_pop_backend");
    if (XRT__UNLIKELY(xrt__push.depth == 0)) {
        if (popped) *popped = NULL;
        return xrt_error(XRT_ERROR_ILLEGAL_STATE, "xrt_pop_backend",
                         "this thread pushed no backend: more pops than pushes (a push is popped on its own thread)");
    }
    f = &xrt__push.frames[--xrt__push.depth];
    if (popped) *popped = f->handle;
    st = xrt__pop_device(f); /* the thread is restored also when that fails */
    xrt__tls.be = f->be;
    xrt__tls.gen = f->gen; /* older than xrt__gen if the registry changed since: xrt__be_slow then decides */
    xrt__tls.epoch = f->epoch;
    xrt__tls.chosen = f->chosen;
    return st;
}

XRT_API xrt_status xrt_get_backend(const char **name)
{
    const xrt_backend *b;
    if (!name) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_get_backend", "name is NULL");
    b = xrt__be();
    *name = b == &xrt__none_backend || b == &xrt__forbidden_backend ? NULL : b->name;
    if (b == &xrt__forbidden_backend) return xrt__forbidden_fail("xrt_get_backend");
    return b == &xrt__none_backend ? xrt__none_fail("xrt_get_backend") : XRT_SUCCESS;
}

/* >> impl: plugins: the public calls */
XRT_API xrt_status xrt_load_plugin(const char *path)
{
    xrt__plugin *pl;
    char reason[sizeof pl->reason];
    xrt_status st;
    if (!path || !path[0]) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_load_plugin", "path is NULL or empty");
    if (strlen(path) >= sizeof pl->path) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_load_plugin", "path too long");
    if (path[0] != '/' && strchr(path, '/') && xrt__secure())
        return xrt_error(XRT_ERROR_NOT_PERMITTED, "xrt_load_plugin",
                         "%.200s: a relative path in a program with elevated privileges (setuid, setgid or capabilities)", path);
    xrt__err.quiet++;
    xrt_init();
    xrt__err.quiet--;
    xrt__lock(&xrt__reg_lock);
    st = xrt__plugin_load_locked(path, "xrt_load_plugin", &pl);
    if (st == XRT_SUCCESS) xrt__reg_select_again_locked();
    snprintf(reason, sizeof reason, "%s", pl ? pl->reason : "too many plugins");
    xrt__unlock(&xrt__reg_lock);
    if (st != XRT_SUCCESS) return xrt_error(st, "xrt_load_plugin", "%.200s: %s", path, reason);
    return XRT_SUCCESS;
}

XRT_API xrt_status xrt_plugin_count(int *count)
{
    if (!count) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_plugin_count", "count is NULL");
    xrt_init();
    xrt__lock(&xrt__reg_lock);
    *count = xrt__plugin_count;
    xrt__unlock(&xrt__reg_lock);
    return XRT_SUCCESS;
}

XRT_API xrt_status xrt_plugin_get_info(int index, xrt_plugin_info *info)
{
    xrt_status st = XRT_SUCCESS;
    if (!info) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_plugin_get_info", "info is NULL");
    xrt_init();
    xrt__lock(&xrt__reg_lock);
    if (index < 0 || index >= xrt__plugin_count) {
        st = XRT_ERROR_INVALID_VALUE;
    } else {
        const xrt__plugin *pl = &xrt__plugins[index];
        info->path = pl->path;
        info->loaded = pl->loaded;
        info->backend = pl->loaded ? pl->table.name : NULL;
        info->reason = pl->reason;
        info->origin = pl->origin;
    }
    xrt__unlock(&xrt__reg_lock);
    if (st != XRT_SUCCESS) return xrt_error(st, "xrt_plugin_get_info", "index %d out of range", index);
    return st;
}

#ifdef __cplusplus
}
#endif

#endif

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
