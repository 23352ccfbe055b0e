/* xrt.h - one runtime API over several accelerator backends (CPU, CUDA, HIP).

   xrt is header-only. In exactly ONE C or C++ translation unit of your program:

       #define XRT_IMPL
       #define XRT_ENABLE_CPU      // and/or XRT_ENABLE_CUDA, XRT_ENABLE_HIP
       #include "xrt.h"

   Every other translation unit just includes "xrt.h" (the enable macros are
   only needed in the XRT_IMPL unit). With no XRT_ENABLE_* defined, the CPU
   backend is enabled. The part of this header that user code sees pulls no
   vendor header, so it can be included from C11, C++11 and CUDA (.cu) files.

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

   The NULL stream is the current device's default stream: one ordered queue
   shared by all host threads. It does NOT synchronise implicitly with other
   streams (every xrt stream behaves like a CUDA non-blocking stream); order
   work across streams with events. xrt_memcpy and xrt_memset are ordered on
   the NULL stream and return when they have completed.

   Environment: XRT_BACKEND (see above), XRT_LOG (none, error, warn, info,
   debug; default warn), XRT_CUDA_LIBRARY / XRT_HIP_LIBRARY (path or soname of
   the vendor runtime to load). See README.md.
*/
#ifndef XRT_H_INCLUDED
#define XRT_H_INCLUDED

/* The implementation uses POSIX and GNU interfaces (futex, clock_gettime): in
   the XRT_IMPL unit, define XRT_IMPL and include xrt.h before any other header
   (xrt.h included earlier without XRT_IMPL counts as another header), or
   compile with -D_GNU_SOURCE. */
#if defined(XRT_IMPL) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif

#include <stddef.h>
#include <stdint.h>

/* >> version */
#define XRT_VERSION_MAJOR 0
#define XRT_VERSION_MINOR 1
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
    X(XRT_ERROR_SYSTEM, "operating system error")

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
    char arch[32];           /* "sm_90", "gfx942", "x86_64-avx2", ... */
    size_t total_memory;     /* bytes */
    int warp_size;           /* threads per warp / wavefront; SIMD lanes of 32-bit on CPU */
    int multiprocessor_count;/* SMs, CUs, or CPU cores */
} xrt_device_prop;

/* Opaque handles. A handle records its owner and a generation: a destroyed or
   foreign handle returns XRT_ERROR_INVALID_HANDLE. NULL is the default stream. */
typedef struct xrt_stream_s *xrt_stream;
typedef struct xrt_event_s *xrt_event;

enum { /* event flags, same values as CUDA's */
    XRT_EVENT_DEFAULT = 0,
    XRT_EVENT_BLOCKING_SYNC = 1, /* xrt_event_synchronize sleeps instead of spinning */
    XRT_EVENT_DISABLE_TIMING = 2 /* no timestamp: cheaper; elapsed time is an error */
};

enum { /* capability bits (xrt_get_capabilities) */
    XRT_CAP_PINNED_HOST = 1u << 0,  /* xrt_malloc_host */
    XRT_CAP_MALLOC_ASYNC = 1u << 1, /* xrt_malloc_async / xrt_free_async */
    XRT_CAP_HOST_FUNC = 1u << 2,    /* xrt_launch_host_func */
    XRT_CAP_EVENT_TIMING = 1u << 3, /* xrt_event_elapsed_time */
    XRT_CAP_NATIVE_HANDLES = 1u << 4 /* xrt_stream_get_native & co */
};

typedef void (*xrt_host_fn)(void *user);

typedef enum xrt_log_level {
    XRT_LOG_NONE = 0, XRT_LOG_ERROR, XRT_LOG_WARN, XRT_LOG_INFO, XRT_LOG_DEBUG
} xrt_log_level;
typedef void (*xrt_log_fn)(xrt_log_level level, const char *message, void *user);

typedef struct xrt_backend_info {
    const char *name;
    int available;      /* 1 if usable on this machine */
    const char *reason; /* why not, when available == 0 ("" otherwise) */
    uint32_t abi_version;
} xrt_backend_info;

#ifdef __cplusplus
}
#endif

#include "xrt_backends.h"

#ifdef __cplusplus
extern "C" {
#endif

/* >> private: implemented in the XRT_IMPL translation unit */
const xrt_backend *xrt__be_slow(void);
xrt_status xrt__bad_handle(const char *fn, const void *handle) XRT__COLD;
xrt_status xrt__handle_new(const xrt_backend *b, void *obj, uintptr_t kind, int owned, uintptr_t *out);
void xrt__handle_free(uintptr_t h);
xrt_status xrt__mem_add(const xrt_backend *b, void *p, size_t n, xrt_memory_type t);
xrt_status xrt__mem_take(const xrt_backend *b, void *p, xrt_memory_type t, const char *fn, void **record);
xrt_status xrt__mem_finish(void *record, xrt_status freed);
xrt_status xrt__memcpy_check(const xrt_backend *b, void *dst, const void *src, size_t n,
                             xrt_memcpy_kind *kind, const char *fn);
xrt_status xrt__pointer_lookup(const xrt_backend *b, xrt_pointer_attributes *a, const void *p);
xrt_status xrt__memset_check(const xrt_backend *b, void *p, size_t n, const char *fn);

struct xrt__tls_state { const xrt_backend *be; unsigned gen; };
extern XRT__TLS struct xrt__tls_state xrt__tls;
extern unsigned xrt__gen;

/* The thread's backend: a TLS load and one compare on the fast path. */
static inline const xrt_backend *xrt__be(void)
{
    if (XRT__LIKELY(xrt__tls.gen == __atomic_load_n(&xrt__gen, __ATOMIC_ACQUIRE)))
        return xrt__tls.be;
    return xrt__be_slow();
}

/* Handle = generation | 20-bit slot index | 2-bit kind; the slot's tag must
   equal the handle and its owner the calling thread's backend. */
#define XRT__H_STREAM ((uintptr_t)1)
#define XRT__H_EVENT ((uintptr_t)2)
#define XRT__H_KIND_BITS 2
#define XRT__H_INDEX_BITS 20
#define XRT__H_CHUNK_BITS 10
#define XRT__H_OWNED ((uintptr_t)1)
typedef struct xrt__slot { uintptr_t tag; void *obj; const xrt_backend *owner; uintptr_t flags; } xrt__slot;
extern xrt__slot *xrt__chunks[1u << (XRT__H_INDEX_BITS - XRT__H_CHUNK_BITS)];
extern xrt__slot xrt__null_stream_slot;

/* NULL for a NULL, stale, foreign or wrong-kind handle (NULL has kind bits 0). */
static inline xrt__slot *xrt__slot_of(const xrt_backend *b, const void *handle, uintptr_t kind)
{
    uintptr_t h = (uintptr_t)handle;
    uintptr_t i = (h >> XRT__H_KIND_BITS) & ((1u << XRT__H_INDEX_BITS) - 1);
    xrt__slot *c = __atomic_load_n(&xrt__chunks[i >> XRT__H_CHUNK_BITS], __ATOMIC_ACQUIRE);
    xrt__slot *s;
    if (XRT__UNLIKELY(!c || (h & ((1u << XRT__H_KIND_BITS) - 1)) != kind)) return NULL;
    s = &c[i & ((1u << XRT__H_CHUNK_BITS) - 1)];
    return (s->tag == h && s->owner == b) ? s : NULL;
}

static inline xrt__slot *xrt__stream_slot(const xrt_backend *b, xrt_stream s)
{
    return s ? xrt__slot_of(b, s, XRT__H_STREAM) : &xrt__null_stream_slot;
}

#define XRT__CHECK_PTR(p, fn) \
    if (XRT__UNLIKELY(!(p))) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%s is NULL", #p)

/* >> errors and logging */
xrt_status xrt_get_last_error(void);   /* returns the thread's last error and resets it */
xrt_status xrt_peek_at_last_error(void);
const char *xrt_get_last_error_string(void); /* detail of the thread's last error */
void xrt_set_log_callback(xrt_log_fn fn, void *user); /* NULL restores the stderr logger */
void xrt_set_log_level(xrt_log_level level);

/* >> lifecycle */
xrt_status xrt_init(void);      /* idempotent; the first call of any other function does it */
void xrt_shutdown(void);        /* frees everything; no other thread may use xrt meanwhile */
xrt_status xrt_runtime_get_version(int *version); /* XRT_VERSION of the XRT_IMPL unit */

/* >> backends */
xrt_status xrt_backend_count(int *count);
xrt_status xrt_backend_get_info(int index, xrt_backend_info *info);
xrt_status xrt_set_backend(const char *name); /* for the calling thread */
xrt_status xrt_get_backend(const char **name);

static inline xrt_status xrt_get_capabilities(unsigned *caps)
{
    const xrt_backend *b = xrt__be();
    XRT__CHECK_PTR(caps, "xrt_get_capabilities");
    return b->get_capabilities(caps);
}

/* >> devices */
static inline xrt_status xrt_get_device_count(int *count)
{
    const xrt_backend *b = xrt__be();
    XRT__CHECK_PTR(count, "xrt_get_device_count");
    return b->get_device_count(count);
}

static inline xrt_status xrt_set_device(int device)
{
    const xrt_backend *b = xrt__be();
    if (XRT__UNLIKELY(device < 0))
        return xrt_error(XRT_ERROR_INVALID_DEVICE, "xrt_set_device", "device %d is negative", device);
    return b->set_device(device);
}

static inline xrt_status xrt_get_device(int *device)
{
    const xrt_backend *b = xrt__be();
    XRT__CHECK_PTR(device, "xrt_get_device");
    return b->get_device(device);
}

static inline xrt_status xrt_device_synchronize(void)
{
    return xrt__be()->device_synchronize();
}

static inline xrt_status xrt_get_device_properties(xrt_device_prop *prop, int device)
{
    const xrt_backend *b = xrt__be();
    XRT__CHECK_PTR(prop, "xrt_get_device_properties");
    if (XRT__UNLIKELY(device < 0))
        return xrt_error(XRT_ERROR_INVALID_DEVICE, "xrt_get_device_properties", "device %d is negative", device);
    return b->get_device_properties(prop, device);
}

/* >> memory */
/* All allocations are aligned to at least XRT_ALIGNMENT bytes. Size 0 is an
   invalid value. xrt_free(NULL) is a no-op; freeing a pointer that this
   backend did not allocate (or freeing twice) is XRT_ERROR_INVALID_POINTER. */
#define XRT_ALIGNMENT 256

static inline xrt_status xrt__alloc_check(void **ptr, size_t size, const char *fn)
{
    XRT__CHECK_PTR(ptr, fn);
    *ptr = NULL;
    if (XRT__UNLIKELY(size == 0)) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "size is 0");
    return XRT_SUCCESS;
}

static inline xrt_status xrt_malloc(void **ptr, size_t size)
{
    const xrt_backend *b = xrt__be();
    xrt_status st = xrt__alloc_check(ptr, size, "xrt_malloc");
    if (st == XRT_SUCCESS) st = b->malloc(ptr, size);
    return st == XRT_SUCCESS ? xrt__mem_add(b, *ptr, size, XRT_MEMORY_DEVICE) : st;
}

static inline xrt_status xrt_malloc_host(void **ptr, size_t size)
{
    const xrt_backend *b = xrt__be();
    xrt_status st = xrt__alloc_check(ptr, size, "xrt_malloc_host");
    if (st == XRT_SUCCESS) st = b->malloc_host(ptr, size);
    return st == XRT_SUCCESS ? xrt__mem_add(b, *ptr, size, XRT_MEMORY_PINNED_HOST) : st;
}

/* Stream-ordered allocation: usable by work enqueued on `stream` after this call. */
static inline xrt_status xrt_malloc_async(void **ptr, size_t size, xrt_stream stream)
{
    const xrt_backend *b = xrt__be();
    xrt__slot *s = xrt__stream_slot(b, stream);
    xrt_status st;
    if (XRT__UNLIKELY(!s)) return xrt__bad_handle("xrt_malloc_async", stream);
    st = xrt__alloc_check(ptr, size, "xrt_malloc_async");
    if (st == XRT_SUCCESS) st = b->malloc_async(ptr, size, s->obj);
    return st == XRT_SUCCESS ? xrt__mem_add(b, *ptr, size, XRT_MEMORY_DEVICE) : st;
}

static inline xrt_status xrt_free(void *ptr)
{
    const xrt_backend *b = xrt__be();
    void *record;
    xrt_status st;
    if (!ptr) return XRT_SUCCESS;
    st = xrt__mem_take(b, ptr, XRT_MEMORY_DEVICE, "xrt_free", &record);
    if (st != XRT_SUCCESS) return st;
    return xrt__mem_finish(record, b->free(ptr));
}

static inline xrt_status xrt_free_host(void *ptr)
{
    const xrt_backend *b = xrt__be();
    void *record;
    xrt_status st;
    if (!ptr) return XRT_SUCCESS;
    st = xrt__mem_take(b, ptr, XRT_MEMORY_PINNED_HOST, "xrt_free_host", &record);
    if (st != XRT_SUCCESS) return st;
    return xrt__mem_finish(record, b->free_host(ptr));
}

/* Stream-ordered free: the memory is released when `stream` reaches this point. */
static inline xrt_status xrt_free_async(void *ptr, xrt_stream stream)
{
    const xrt_backend *b = xrt__be();
    xrt__slot *s = xrt__stream_slot(b, stream);
    void *record;
    xrt_status st;
    if (XRT__UNLIKELY(!s)) return xrt__bad_handle("xrt_free_async", stream);
    if (!ptr) return XRT_SUCCESS;
    st = xrt__mem_take(b, ptr, XRT_MEMORY_DEVICE, "xrt_free_async", &record);
    if (st != XRT_SUCCESS) return st;
    return xrt__mem_finish(record, b->free_async(ptr, s->obj));
}

static inline xrt_status xrt_mem_get_info(size_t *free_bytes, size_t *total_bytes)
{
    const xrt_backend *b = xrt__be();
    XRT__CHECK_PTR(free_bytes, "xrt_mem_get_info");
    XRT__CHECK_PTR(total_bytes, "xrt_mem_get_info");
    return b->mem_get_info(free_bytes, total_bytes);
}

static inline xrt_status xrt_memset(void *dst, int value, size_t size)
{
    const xrt_backend *b = xrt__be();
    xrt_status st = xrt__memset_check(b, dst, size, "xrt_memset");
    if (st != XRT_SUCCESS || size == 0) return st;
    return b->memset(dst, value, size);
}

static inline xrt_status xrt_memset_async(void *dst, int value, size_t size, xrt_stream stream)
{
    const xrt_backend *b = xrt__be();
    xrt__slot *s = xrt__stream_slot(b, stream);
    xrt_status st;
    if (XRT__UNLIKELY(!s)) return xrt__bad_handle("xrt_memset_async", stream);
    st = xrt__memset_check(b, dst, size, "xrt_memset_async");
    if (st != XRT_SUCCESS || size == 0) return st;
    return b->memset_async(dst, value, size, s->obj);
}

static inline xrt_status xrt_memcpy(void *dst, const void *src, size_t size, xrt_memcpy_kind kind)
{
    const xrt_backend *b = xrt__be();
    xrt_status st = xrt__memcpy_check(b, dst, src, size, &kind, "xrt_memcpy");
    if (st != XRT_SUCCESS || size == 0) return st;
    return b->memcpy(dst, src, size, kind);
}

static inline xrt_status xrt_memcpy_async(void *dst, const void *src, size_t size,
                                          xrt_memcpy_kind kind, xrt_stream stream)
{
    const xrt_backend *b = xrt__be();
    xrt__slot *s = xrt__stream_slot(b, stream);
    xrt_status st;
    if (XRT__UNLIKELY(!s)) return xrt__bad_handle("xrt_memcpy_async", stream);
    st = xrt__memcpy_check(b, dst, src, size, &kind, "xrt_memcpy_async");
    if (st != XRT_SUCCESS || size == 0) return st;
    return b->memcpy_async(dst, src, size, kind, s->obj);
}

/* Owning backend, device and memory type of any pointer; a pointer unknown to
   xrt and to the backend gives XRT_MEMORY_UNKNOWN and success, as in CUDA. */
static inline xrt_status xrt_pointer_get_attributes(xrt_pointer_attributes *attr, const void *ptr)
{
    const xrt_backend *b = xrt__be();
    XRT__CHECK_PTR(attr, "xrt_pointer_get_attributes");
    return xrt__pointer_lookup(b, attr, ptr);
}

/* >> streams */
static inline xrt_status xrt__destroy_object(const xrt_backend *b, uintptr_t kind, void *obj)
{
    return kind == XRT__H_STREAM ? b->stream_destroy(obj) : b->event_destroy(obj);
}

static inline xrt_status xrt__handle_create(const xrt_backend *b, void *obj, uintptr_t kind,
                                            int owned, void **out)
{
    uintptr_t h = 0;
    xrt_status st = xrt__handle_new(b, obj, kind, owned, &h);
    if (st != XRT_SUCCESS && owned) xrt__destroy_object(b, kind, obj);
    *out = (void *)h;
    return st;
}

/* Releases the handle first, then the object (unless it wraps a native one). */
static inline xrt_status xrt__handle_destroy(const xrt_backend *b, const void *handle, uintptr_t kind,
                                             const char *fn)
{
    xrt__slot *s = xrt__slot_of(b, handle, kind);
    void *obj;
    uintptr_t flags;
    if (XRT__UNLIKELY(!s)) return xrt__bad_handle(fn, handle);
    obj = s->obj;
    flags = s->flags;
    xrt__handle_free((uintptr_t)handle);
    return (flags & XRT__H_OWNED) ? xrt__destroy_object(b, kind, obj) : XRT_SUCCESS;
}

static inline xrt_status xrt_stream_create(xrt_stream *stream)
{
    const xrt_backend *b = xrt__be();
    void *obj = NULL;
    xrt_status st;
    XRT__CHECK_PTR(stream, "xrt_stream_create");
    *stream = NULL;
    st = b->stream_create(&obj);
    if (st != XRT_SUCCESS) return st;
    return xrt__handle_create(b, obj, XRT__H_STREAM, 1, (void **)stream);
}

/* Returns at once; work already enqueued still completes, as with CUDA. */
static inline xrt_status xrt_stream_destroy(xrt_stream stream)
{
    return xrt__handle_destroy(xrt__be(), stream, XRT__H_STREAM, "xrt_stream_destroy");
}

static inline xrt_status xrt_stream_synchronize(xrt_stream stream)
{
    const xrt_backend *b = xrt__be();
    xrt__slot *s = xrt__stream_slot(b, stream);
    if (XRT__UNLIKELY(!s)) return xrt__bad_handle("xrt_stream_synchronize", stream);
    return b->stream_synchronize(s->obj);
}

/* XRT_SUCCESS if all work on the stream has completed, else XRT_ERROR_NOT_READY
   (which is not recorded as the thread's last error). */
static inline xrt_status xrt_stream_query(xrt_stream stream)
{
    const xrt_backend *b = xrt__be();
    xrt__slot *s = xrt__stream_slot(b, stream);
    if (XRT__UNLIKELY(!s)) return xrt__bad_handle("xrt_stream_query", stream);
    return b->stream_query(s->obj);
}

/* Later work on `stream` waits for the event's most recent record (at the
   time of this call); an event never recorded imposes no wait. */
static inline xrt_status xrt_stream_wait_event(xrt_stream stream, xrt_event event)
{
    const xrt_backend *b = xrt__be();
    xrt__slot *s = xrt__stream_slot(b, stream);
    xrt__slot *e = xrt__slot_of(b, event, XRT__H_EVENT);
    if (XRT__UNLIKELY(!s)) return xrt__bad_handle("xrt_stream_wait_event", stream);
    if (XRT__UNLIKELY(!e)) return xrt__bad_handle("xrt_stream_wait_event", event);
    return b->stream_wait_event(s->obj, e->obj);
}

/* Runs fn(user) on a backend thread when the stream reaches this point. fn
   must not call xrt functions that wait on streams. */
static inline xrt_status xrt_launch_host_func(xrt_stream stream, xrt_host_fn fn, void *user)
{
    const xrt_backend *b = xrt__be();
    xrt__slot *s = xrt__stream_slot(b, stream);
    if (XRT__UNLIKELY(!s)) return xrt__bad_handle("xrt_launch_host_func", stream);
    XRT__CHECK_PTR(fn, "xrt_launch_host_func");
    return b->launch_host_func(s->obj, fn, user);
}

/* >> events */
static inline xrt_status xrt_event_create(xrt_event *event, unsigned flags)
{
    const xrt_backend *b = xrt__be();
    void *obj = NULL;
    xrt_status st;
    XRT__CHECK_PTR(event, "xrt_event_create");
    *event = NULL;
    if (XRT__UNLIKELY(flags & ~(unsigned)(XRT_EVENT_BLOCKING_SYNC | XRT_EVENT_DISABLE_TIMING)))
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_event_create", "unknown flags 0x%x", flags);
    st = b->event_create(&obj, flags);
    if (st != XRT_SUCCESS) return st;
    return xrt__handle_create(b, obj, XRT__H_EVENT, 1, (void **)event);
}

static inline xrt_status xrt_event_destroy(xrt_event event)
{
    return xrt__handle_destroy(xrt__be(), event, XRT__H_EVENT, "xrt_event_destroy");
}

static inline xrt_status xrt_event_record(xrt_event event, xrt_stream stream)
{
    const xrt_backend *b = xrt__be();
    xrt__slot *e = xrt__slot_of(b, event, XRT__H_EVENT);
    xrt__slot *s = xrt__stream_slot(b, stream);
    if (XRT__UNLIKELY(!e)) return xrt__bad_handle("xrt_event_record", event);
    if (XRT__UNLIKELY(!s)) return xrt__bad_handle("xrt_event_record", stream);
    return b->event_record(e->obj, s->obj);
}

/* XRT_SUCCESS when the most recent record completed (or none was made). */
static inline xrt_status xrt_event_query(xrt_event event)
{
    const xrt_backend *b = xrt__be();
    xrt__slot *e = xrt__slot_of(b, event, XRT__H_EVENT);
    if (XRT__UNLIKELY(!e)) return xrt__bad_handle("xrt_event_query", event);
    return b->event_query(e->obj);
}

static inline xrt_status xrt_event_synchronize(xrt_event event)
{
    const xrt_backend *b = xrt__be();
    xrt__slot *e = xrt__slot_of(b, event, XRT__H_EVENT);
    if (XRT__UNLIKELY(!e)) return xrt__bad_handle("xrt_event_synchronize", event);
    return b->event_synchronize(e->obj);
}

/* Milliseconds between two completed records. XRT_ERROR_NOT_READY while one is
   pending; XRT_ERROR_INVALID_HANDLE if one was never recorded or was created
   with XRT_EVENT_DISABLE_TIMING (as cudaEventElapsedTime). */
static inline xrt_status xrt_event_elapsed_time(float *ms, xrt_event start, xrt_event end)
{
    const xrt_backend *b = xrt__be();
    xrt__slot *s = xrt__slot_of(b, start, XRT__H_EVENT);
    xrt__slot *e = xrt__slot_of(b, end, XRT__H_EVENT);
    XRT__CHECK_PTR(ms, "xrt_event_elapsed_time");
    if (XRT__UNLIKELY(!s)) return xrt__bad_handle("xrt_event_elapsed_time", start);
    if (XRT__UNLIKELY(!e)) return xrt__bad_handle("xrt_event_elapsed_time", end);
    return b->event_elapsed_time(ms, s->obj, e->obj);
}

/* >> interop: native handles (cudaStream_t, hipStream_t, ...) */
static inline xrt_status xrt_stream_get_native(xrt_stream stream, void **native)
{
    const xrt_backend *b = xrt__be();
    xrt__slot *s = xrt__stream_slot(b, stream);
    if (XRT__UNLIKELY(!s)) return xrt__bad_handle("xrt_stream_get_native", stream);
    XRT__CHECK_PTR(native, "xrt_stream_get_native");
    return b->stream_get_native(s->obj, native);
}

static inline xrt_status xrt_event_get_native(xrt_event event, void **native)
{
    const xrt_backend *b = xrt__be();
    xrt__slot *e = xrt__slot_of(b, event, XRT__H_EVENT);
    if (XRT__UNLIKELY(!e)) return xrt__bad_handle("xrt_event_get_native", event);
    XRT__CHECK_PTR(native, "xrt_event_get_native");
    return b->event_get_native(e->obj, native);
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
    st = b->stream_wrap_native(native, &obj);
    if (st != XRT_SUCCESS) return st;
    return xrt__handle_create(b, obj, XRT__H_STREAM, 0, (void **)stream);
}

#ifdef __cplusplus
}
#endif

#endif /* XRT_H_INCLUDED */

/* >> implementation */
#if defined(XRT_IMPL) && !defined(XRT__IMPL_INCLUDED)
#define XRT__IMPL_INCLUDED
#if !defined(XRT_ENABLE_CPU) && !defined(XRT_ENABLE_CUDA) && !defined(XRT_ENABLE_HIP)
#define XRT_ENABLE_CPU
#endif
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifdef __cplusplus
extern "C" {
#endif

/* >> impl: errors and logging */
static XRT__TLS struct { xrt_status status; char detail[512]; } xrt__err;
static XRT__TLS int xrt__quiet; /* > 0: a failure is an answer, neither recorded nor logged */
static int xrt__log_level = XRT_LOG_WARN;
static pthread_mutex_t xrt__log_lock = PTHREAD_MUTEX_INITIALIZER;
static xrt_log_fn xrt__log_fn;
static void *xrt__log_user;

static const char *const xrt__level_names[] = {"none", "error", "warn", "info", "debug"};

static void xrt__log_stderr(xrt_log_level level, const char *msg, void *user)
{
    (void)user;
    fprintf(stderr, "xrt: %s: %s\n", xrt__level_names[level], msg);
}

static void xrt__vlog(xrt_log_level level, const char *fmt, va_list ap)
{
    char msg[768];
    xrt_log_fn fn;
    void *user;
    if ((int)level > __atomic_load_n(&xrt__log_level, __ATOMIC_RELAXED)) return;
    vsnprintf(msg, sizeof msg, fmt, ap);
    pthread_mutex_lock(&xrt__log_lock);
    fn = xrt__log_fn ? xrt__log_fn : xrt__log_stderr;
    user = xrt__log_user;
    fn(level, msg, user);
    pthread_mutex_unlock(&xrt__log_lock);
}

void xrt_log(xrt_log_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    xrt__vlog(level, fmt, ap);
    va_end(ap);
}

void xrt_set_log_callback(xrt_log_fn fn, void *user)
{
    pthread_mutex_lock(&xrt__log_lock);
    xrt__log_fn = fn;
    xrt__log_user = user;
    pthread_mutex_unlock(&xrt__log_lock);
}

void xrt_set_log_level(xrt_log_level level)
{
    if ((int)level < XRT_LOG_NONE) level = XRT_LOG_NONE;
    if ((int)level > XRT_LOG_DEBUG) level = XRT_LOG_DEBUG;
    __atomic_store_n(&xrt__log_level, (int)level, __ATOMIC_RELAXED);
}

void xrt__log_init_from_env(void)
{
    const char *env = getenv("XRT_LOG");
    int i;
    if (!env) return;
    for (i = XRT_LOG_NONE; i <= XRT_LOG_DEBUG; i++)
        if (strcasecmp(env, xrt__level_names[i]) == 0 || (env[0] == '0' + i && !env[1])) {
            xrt_set_log_level((xrt_log_level)i);
            return;
        }
    xrt_log(XRT_LOG_WARN, "XRT_LOG=%s: unknown level (valid: none, error, warn, info, debug)", env);
}

xrt_status xrt_error(xrt_status st, const char *who, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (xrt__quiet) return st;
    n = snprintf(xrt__err.detail, sizeof xrt__err.detail, "%s: ", who);
    va_start(ap, fmt);
    vsnprintf(xrt__err.detail + n, sizeof xrt__err.detail - (size_t)n, fmt, ap);
    va_end(ap);
    xrt__err.status = st;
    xrt_log(XRT_LOG_ERROR, "%s (%s)", xrt__err.detail, xrt_status_string(st));
    return st;
}

xrt_status xrt_native_error(xrt_status st, const char *backend, const char *call, long code,
                            const char *code_name, const char *message)
{
    return xrt_error(st, backend, "%s: %s (%s=%ld)", call, message ? message : "?",
                     code_name ? code_name : "code", code);
}

xrt_status xrt_get_last_error(void)
{
    xrt_status st = xrt__err.status;
    xrt__err.status = XRT_SUCCESS;
    return st;
}

xrt_status xrt_peek_at_last_error(void) { return xrt__err.status; }

const char *xrt_get_last_error_string(void) { return xrt__err.detail; }

xrt_status xrt_runtime_get_version(int *version)
{
    if (!version) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_runtime_get_version", "version is NULL");
    *version = XRT_VERSION;
    return XRT_SUCCESS;
}

/* >> impl: handle table */
#define XRT__H_CHUNK ((uintptr_t)1 << XRT__H_CHUNK_BITS)
#define XRT__H_MAX ((uintptr_t)1 << XRT__H_INDEX_BITS)
#define XRT__H_GEN_SHIFT (XRT__H_KIND_BITS + XRT__H_INDEX_BITS)
xrt__slot *xrt__chunks[1u << (XRT__H_INDEX_BITS - XRT__H_CHUNK_BITS)];
xrt__slot xrt__null_stream_slot;
static pthread_mutex_t xrt__h_lock = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t xrt__h_free = XRT__H_MAX; /* head of the free list, XRT__H_MAX = empty */
static uintptr_t xrt__h_next;              /* first never-used index */

static xrt__slot *xrt__slot_at(uintptr_t i) { return &xrt__chunks[i / XRT__H_CHUNK][i % XRT__H_CHUNK]; }

/* A free slot keeps its generation in `tag` (kind bits 0, so no handle matches)
   and the next free index in `flags`. */
static int xrt__h_alloc_index(uintptr_t *index)
{
    uintptr_t i = xrt__h_free;
    if (i != XRT__H_MAX) {
        xrt__h_free = xrt__slot_at(i)->flags;
    } else {
        if (xrt__h_next == XRT__H_MAX) return 0;
        i = xrt__h_next;
        if (!xrt__chunks[i / XRT__H_CHUNK]) {
            xrt__slot *c = (xrt__slot *)calloc(XRT__H_CHUNK, sizeof *c);
            if (!c) return 0;
            __atomic_store_n(&xrt__chunks[i / XRT__H_CHUNK], c, __ATOMIC_RELEASE);
        }
        xrt__h_next++;
    }
    *index = i;
    return 1;
}

xrt_status xrt__handle_new(const xrt_backend *b, void *obj, uintptr_t kind, int owned, uintptr_t *out)
{
    uintptr_t i;
    xrt__slot *s;
    pthread_mutex_lock(&xrt__h_lock);
    if (!xrt__h_alloc_index(&i)) {
        pthread_mutex_unlock(&xrt__h_lock);
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, kind == XRT__H_STREAM ? "xrt_stream_create" : "xrt_event_create",
                         "no free handle (at most %lu live streams and events)", (unsigned long)XRT__H_MAX);
    }
    s = xrt__slot_at(i);
    s->tag = (((s->tag >> XRT__H_GEN_SHIFT) + 1) << XRT__H_GEN_SHIFT) | (i << XRT__H_KIND_BITS) | kind;
    s->obj = obj;
    s->owner = b;
    s->flags = owned ? XRT__H_OWNED : 0;
    *out = s->tag;
    pthread_mutex_unlock(&xrt__h_lock);
    return XRT_SUCCESS;
}

/* Keeps the generation (kind bits cleared) and pushes the slot on the free list. */
static void xrt__slot_release_locked(uintptr_t i)
{
    xrt__slot *s = xrt__slot_at(i);
    s->tag &= ~(uintptr_t)((1u << XRT__H_KIND_BITS) - 1);
    s->obj = NULL;
    s->owner = NULL;
    s->flags = xrt__h_free;
    xrt__h_free = i;
}

void xrt__handle_free(uintptr_t h)
{
    pthread_mutex_lock(&xrt__h_lock);
    xrt__slot_release_locked((h >> XRT__H_KIND_BITS) & (XRT__H_MAX - 1));
    pthread_mutex_unlock(&xrt__h_lock);
}

xrt_status xrt__bad_handle(const char *fn, const void *handle)
{
    uintptr_t h = (uintptr_t)handle, kind = h & ((1u << XRT__H_KIND_BITS) - 1);
    uintptr_t i = (h >> XRT__H_KIND_BITS) & (XRT__H_MAX - 1);
    const char *what = kind == XRT__H_STREAM ? "stream" : kind == XRT__H_EVENT ? "event" : "handle";
    const xrt_backend *owner = NULL;
    const char *why = "was never created";
    pthread_mutex_lock(&xrt__h_lock);
    if (!h) {
        why = "is NULL";
    } else if (kind && i < xrt__h_next) {
        xrt__slot *s = xrt__slot_at(i);
        if (s->tag == h) owner = s->owner;
        else if ((s->tag >> XRT__H_GEN_SHIFT) >= (h >> XRT__H_GEN_SHIFT)) why = "was destroyed";
    }
    pthread_mutex_unlock(&xrt__h_lock);
    if (owner && owner == xrt__tls.be) /* live and ours: only the kind can be wrong */
        return xrt_error(XRT_ERROR_INVALID_HANDLE, fn, "%p is %s handle, not %s handle", handle,
                         kind == XRT__H_STREAM ? "a stream" : "an event", kind == XRT__H_STREAM ? "an event" : "a stream");
    if (owner)
        return xrt_error(XRT_ERROR_INVALID_HANDLE, fn, "%s %p belongs to backend %s, not %s", what, handle,
                         owner->name, xrt__tls.be ? xrt__tls.be->name : "?");
    return xrt_error(XRT_ERROR_INVALID_HANDLE, fn, "%s %p %s", what, handle, why);
}

/* Destroys every live handle's object. Slots keep their generation and the
   table is kept, so a handle from before xrt_shutdown never equals a later
   one and stays detectably stale. */
void xrt__handles_shutdown(void)
{
    uintptr_t i, kind;
    pthread_mutex_lock(&xrt__h_lock);
    for (i = 0; i < xrt__h_next; i++) {
        xrt__slot *s = xrt__slot_at(i);
        if (!(kind = s->tag & ((1u << XRT__H_KIND_BITS) - 1))) continue;
        if (s->flags & XRT__H_OWNED) xrt__destroy_object(s->owner, kind, s->obj);
        xrt__slot_release_locked(i);
    }
    pthread_mutex_unlock(&xrt__h_lock);
}

/* >> impl: pointer registry (a treap of allocations keyed by base address) */
typedef struct xrt__mnode {
    uintptr_t base;
    size_t size;
    const xrt_backend *be;
    int device;
    xrt_memory_type type;
    unsigned prio;
    struct xrt__mnode *l, *r;
} xrt__mnode;

static pthread_mutex_t xrt__m_lock = PTHREAD_MUTEX_INITIALIZER;
static xrt__mnode *xrt__m_root;
static unsigned xrt__m_seed = 2463534242u;

static void xrt__m_split(xrt__mnode *t, uintptr_t key, xrt__mnode **l, xrt__mnode **r)
{
    if (!t) { *l = *r = NULL; return; }
    if (t->base < key) { xrt__m_split(t->r, key, &t->r, r); *l = t; }
    else { xrt__m_split(t->l, key, l, &t->l); *r = t; }
}

static xrt__mnode *xrt__m_merge(xrt__mnode *l, xrt__mnode *r)
{
    if (!l || !r) return l ? l : r;
    if (l->prio > r->prio) { l->r = xrt__m_merge(l->r, r); return l; }
    r->l = xrt__m_merge(l, r->l);
    return r;
}

/* The allocation containing p, or NULL. */
static xrt__mnode *xrt__m_find(uintptr_t p)
{
    xrt__mnode *t = xrt__m_root, *best = NULL;
    while (t) {
        if (t->base <= p) { best = t; t = t->r; }
        else t = t->l;
    }
    return best && p - best->base < best->size ? best : NULL;
}

/* Keys are unique: a record leaves the tree before its memory goes back to
   the allocator, which may hand the same address out again at once. */
static void xrt__m_insert(xrt__mnode *node)
{
    xrt__mnode *a, *c;
    xrt__m_seed ^= xrt__m_seed << 13;
    xrt__m_seed ^= xrt__m_seed >> 17;
    xrt__m_seed ^= xrt__m_seed << 5;
    node->prio = xrt__m_seed;
    node->l = node->r = NULL;
    xrt__m_split(xrt__m_root, node->base, &a, &c);
    xrt__m_root = xrt__m_merge(xrt__m_merge(a, node), c);
}

static void xrt__m_unlink(uintptr_t base)
{
    xrt__mnode *a, *m, *c;
    xrt__m_split(xrt__m_root, base, &a, &m);
    xrt__m_split(m, base + 1, &m, &c);
    xrt__m_root = xrt__m_merge(a, c);
}

static const char *const xrt__mem_names[] = {"unknown", "host", "pinned host", "device", "managed"};

xrt_status xrt__mem_add(const xrt_backend *b, void *p, size_t n, xrt_memory_type t)
{
    xrt__mnode *node = (xrt__mnode *)calloc(1, sizeof *node);
    int dev = -1;
    if (!node) {
        if (t == XRT_MEMORY_PINNED_HOST) b->free_host(p);
        else b->free(p);
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "xrt_malloc", "no memory for the pointer registry");
    }
    if (t != XRT_MEMORY_PINNED_HOST && b->get_device(&dev) != XRT_SUCCESS) dev = -1;
    node->base = (uintptr_t)p;
    node->size = n;
    node->be = b;
    node->device = dev;
    node->type = t;
    pthread_mutex_lock(&xrt__m_lock);
    xrt__m_insert(node);
    pthread_mutex_unlock(&xrt__m_lock);
    return XRT_SUCCESS;
}

/* Checks that p is the start of a live allocation of backend b of type t and
   takes its record out of the registry (so a concurrent double free fails
   too); xrt__mem_finish then drops the record or, if the free failed, puts it
   back. */
xrt_status xrt__mem_take(const xrt_backend *b, void *p, xrt_memory_type t, const char *fn, void **record)
{
    xrt__mnode *n;
    const char *why = NULL;
    pthread_mutex_lock(&xrt__m_lock);
    n = xrt__m_find((uintptr_t)p);
    if (!n) why = "was not allocated by xrt or is already freed";
    else if (n->base != (uintptr_t)p) why = "is inside an allocation, not at its start";
    else if (n->be != b) why = "belongs to another backend";
    else if (n->type != t) why = t == XRT_MEMORY_PINNED_HOST ? "is not pinned host memory (use xrt_free)"
                                                             : "is pinned host memory (use xrt_free_host)";
    else xrt__m_unlink(n->base);
    pthread_mutex_unlock(&xrt__m_lock);
    *record = n;
    if (why) return xrt_error(XRT_ERROR_INVALID_POINTER, fn, "%p %s", p, why);
    return XRT_SUCCESS;
}

xrt_status xrt__mem_finish(void *record, xrt_status freed)
{
    if (freed == XRT_SUCCESS) {
        free(record);
        return freed;
    }
    pthread_mutex_lock(&xrt__m_lock);
    xrt__m_insert((xrt__mnode *)record);
    pthread_mutex_unlock(&xrt__m_lock);
    return freed;
}

/* From the registry; the caller holds xrt__m_lock. Returns 0 if unknown. */
static int xrt__m_describe(const void *p, xrt_pointer_attributes *a)
{
    xrt__mnode *n = xrt__m_find((uintptr_t)p);
    a->type = n ? n->type : XRT_MEMORY_UNKNOWN;
    a->device = n ? n->device : -1;
    a->backend = n ? n->be->name : NULL;
    a->base = n ? (void *)n->base : NULL;
    a->size = n ? n->size : 0;
    return n != NULL;
}

/* Registry first (one lock for all pointers), then the backend, for memory
   it allocated natively. An unknown pointer is an answer, not an error: the
   backend's failure (or a custom backend's UNSUPPORTED stub) must neither log
   nor replace the thread's last error. */
static void xrt__classify(const xrt_backend *b, size_t count, const void *const *ps, xrt_pointer_attributes *as)
{
    int known[2] = {0, 0}; /* count <= 2: a copy's dst and src */
    size_t i;
    pthread_mutex_lock(&xrt__m_lock);
    for (i = 0; i < count; i++) known[i] = xrt__m_describe(ps[i], &as[i]);
    pthread_mutex_unlock(&xrt__m_lock);
    for (i = 0; i < count; i++) {
        if (known[i] || !ps[i]) continue;
        xrt__quiet++;
        if (b->pointer_get_attributes(&as[i], ps[i]) != XRT_SUCCESS) {
            as[i].type = XRT_MEMORY_UNKNOWN;
            as[i].backend = NULL;
        }
        xrt__quiet--;
    }
}

xrt_status xrt__pointer_lookup(const xrt_backend *b, xrt_pointer_attributes *a, const void *p)
{
    xrt__classify(b, 1, &p, a);
    return XRT_SUCCESS;
}

static int xrt__on_device(xrt_memory_type t) { return t == XRT_MEMORY_DEVICE || t == XRT_MEMORY_MANAGED; }
static int xrt__on_host(xrt_memory_type t) { return t != XRT_MEMORY_DEVICE; }

/* One side of a copy or set: belongs to b (or is plain host memory), and
   [p, p+n) stays inside its allocation. */
static xrt_status xrt__check_range(const xrt_backend *b, const void *p, size_t n, const char *what,
                                   const char *fn, const xrt_pointer_attributes *a)
{
    if (a->backend && a->backend != b->name && strcmp(a->backend, b->name) != 0) /* registry names are b->name */
        return xrt_error(XRT_ERROR_INVALID_POINTER, fn, "%s %p belongs to backend %s, not %s", what, p,
                         a->backend, b->name);
    if (a->size && (uintptr_t)p - (uintptr_t)a->base + n > a->size)
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%zu bytes at %s %p overrun its allocation (%zu bytes at %p)",
                         n, what, p, a->size, a->base);
    return XRT_SUCCESS;
}

static const char *const xrt__kind_names[] = {"host-to-host", "host-to-device", "device-to-host",
                                              "device-to-device", "default"};

xrt_status xrt__memcpy_check(const xrt_backend *b, void *dst, const void *src, size_t n,
                             xrt_memcpy_kind *kind, const char *fn)
{
    xrt_pointer_attributes as[2];
    const xrt_pointer_attributes *d = &as[0], *s = &as[1];
    const void *ps[2];
    int want_dst_dev, want_src_dev;
    xrt_status st;
    if ((unsigned)*kind > XRT_MEMCPY_DEFAULT)
        return xrt_error(XRT_ERROR_INVALID_MEMCPY_KIND, fn, "kind %d is not an xrt_memcpy_kind", (int)*kind);
    if (n == 0) return XRT_SUCCESS;
    if (!dst || !src) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "%s is NULL", dst ? "src" : "dst");
    ps[0] = dst;
    ps[1] = src;
    xrt__classify(b, 2, ps, as);
    if ((st = xrt__check_range(b, dst, n, "dst", fn, d)) != XRT_SUCCESS) return st;
    if ((st = xrt__check_range(b, src, n, "src", fn, s)) != XRT_SUCCESS) return st;
    if (*kind == XRT_MEMCPY_DEFAULT) {
        *kind = (xrt_memcpy_kind)((xrt__on_device(s->type) ? 2 : 0) + (xrt__on_device(d->type) ? 1 : 0));
        return XRT_SUCCESS;
    }
    want_dst_dev = *kind == XRT_MEMCPY_HOST_TO_DEVICE || *kind == XRT_MEMCPY_DEVICE_TO_DEVICE;
    want_src_dev = *kind == XRT_MEMCPY_DEVICE_TO_HOST || *kind == XRT_MEMCPY_DEVICE_TO_DEVICE;
    if (want_dst_dev ? !xrt__on_device(d->type) : !xrt__on_host(d->type))
        return xrt_error(XRT_ERROR_INVALID_MEMCPY_KIND, fn, "kind %s but dst %p is %s memory",
                         xrt__kind_names[*kind], dst, xrt__mem_names[d->type]);
    if (want_src_dev ? !xrt__on_device(s->type) : !xrt__on_host(s->type))
        return xrt_error(XRT_ERROR_INVALID_MEMCPY_KIND, fn, "kind %s but src %p is %s memory",
                         xrt__kind_names[*kind], src, xrt__mem_names[s->type]);
    return XRT_SUCCESS;
}

/* memset targets device, managed or pinned memory, as cudaMemset does. */
xrt_status xrt__memset_check(const xrt_backend *b, void *p, size_t n, const char *fn)
{
    xrt_pointer_attributes a;
    xrt_status st;
    if (n == 0) return XRT_SUCCESS;
    if (!p) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "dst is NULL");
    xrt__classify(b, 1, (const void *const *)&p, &a);
    if ((st = xrt__check_range(b, p, n, "dst", fn, &a)) != XRT_SUCCESS) return st;
    if (a.type == XRT_MEMORY_UNKNOWN || a.type == XRT_MEMORY_HOST)
        return xrt_error(XRT_ERROR_INVALID_POINTER, fn, "dst %p is %s memory, not device memory", p,
                         xrt__mem_names[a.type]);
    return XRT_SUCCESS;
}

static void xrt__mem_shutdown(xrt__mnode *t)
{
    if (!t) return;
    xrt__mem_shutdown(t->l);
    xrt__mem_shutdown(t->r);
    if (t->type == XRT_MEMORY_PINNED_HOST) t->be->free_host((void *)t->base);
    else t->be->free((void *)t->base);
    free(t);
}

/* Called by xrt_shutdown, with the registry lock held, before the backends
   shut down; a backend's free waits for queued work that may use the memory. */
void xrt__core_shutdown_memory(void)
{
    pthread_mutex_lock(&xrt__m_lock);
    xrt__mem_shutdown(xrt__m_root);
    xrt__m_root = NULL;
    pthread_mutex_unlock(&xrt__m_lock);
}

#ifdef __cplusplus
}
#endif

#include "xrt_backends.h" /* its implementation part */
#ifdef XRT_ENABLE_CUDA
#include "xrt_cuda.h"
#endif
#ifdef XRT_ENABLE_HIP
#include "xrt_hip.h"
#endif
#ifdef XRT_ENABLE_CPU
#include "xrt_cpu.h"
#endif
#endif
