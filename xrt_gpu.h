/* xrt_gpu.h - the logic of the CUDA and HIP backends, written once.

   Implementation only: included by xrt_cuda.h and xrt_hip.h, never by user
   code. HIP mirrors the CUDA runtime call for call, so the two backends differ
   only in data (their symbol list, error table and types) and in three small
   hooks. This file is a template: a backend header defines the parameters
   below and includes it; it then defines one complete backend, every function
   named xrt__<id>_*, and #undefs the parameters so the next backend can
   define its own.

   Parameters:
     XRT__GPU_ID           cuda | hip: the prefix of every generated name
     XRT__GPU_NAME         "cuda" | "hip": the backend's name in the registry and in errors
     XRT__GPU_SYMBOLS(X)   X(field, symbol, optional, return type, (parameters)): every
                           runtime call the backend makes; optional is 0 or 1
     XRT__GPU_ERRORS(E)    E(native error, xrt_status): native errors that have an xrt meaning
     XRT__GPU_LIBRARY_ENV  env variable naming the runtime library to load
     XRT__GPU_SONAMES      the sonames to try, newest first
     XRT__GPU_ERROR_T, XRT__GPU_STREAM_T, XRT__GPU_EVENT_T, XRT__GPU_KIND_T,
     XRT__GPU_ATTR_T, XRT__GPU_PROP_T, XRT__GPU_POINTER_T   the runtime's types
     XRT__GPU_STREAM_NON_BLOCKING, XRT__GPU_ATTR_POOLS   its constants

   Hooks the backend header defines after including this file:
     xrt_status xrt__<id>_probe(char *reason, size_t n)
         a cheap check before loading the runtime (HIP: is there a /dev/kfd?)
     xrt_status xrt__<id>_fill_prop(xrt_device_prop *out, const PROP_T *p, int device)
         arch, warp size and multiprocessor count (name and memory are filled here)
     xrt_memory_type xrt__<id>_memory_type(const POINTER_T *a)
         the runtime's memory type as an xrt_memory_type

   Run-time loading (the default) dlopens the runtime and looks every symbol
   up; with XRT_NO_RUNTIME_LINKING the table is filled from the linked
   library instead (`rt.Malloc = &cudaMalloc;`), so a prototype that no
   longer matches the list fails to compile. Optional symbols are then weak
   references: NULL when the linked library lacks them.
*/

/* >> gpu: shared by every instantiation (defined once) */
#if defined(XRT__IMPL_INCLUDED) && !defined(XRT__GPU_SHARED_INCLUDED)
#define XRT__GPU_SHARED_INCLUDED

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* xrt__<id>_<name>: two levels so that XRT__GPU_ID is expanded before pasting. */
#define XRT__GPU_F(name) XRT__GPU_F2(XRT__GPU_ID, name)
#define XRT__GPU_F2(id, name) XRT__GPU_F3(id, name)
#define XRT__GPU_F3(id, name) xrt__##id##_##name
#define XRT__GPU_RT XRT__GPU_F(rt)    /* the runtime's function table */
#define XRT__GPU_ST XRT__GPU_F(state) /* the backend's state */

/* Calls a runtime function; a failure is recorded with the native name, code and message. */
#define XRT__GPU_TRY(field, args) XRT__GPU_F(check)(XRT__GPU_RT.field args, XRT__GPU_F(i_##field))

/* Room for a runtime's struct that is bigger than the header's (another major version). */
#define XRT__GPU_PAD 4096

#ifdef __cplusplus
extern "C" {
#endif

typedef struct xrt__gpu_state {
    void *lib;     /* dlopen handle; NULL when not loaded or linked directly */
    int count;     /* devices, fixed at init as in the runtimes */
    int version;   /* cudaRuntimeGetVersion / hipRuntimeGetVersion */
    uint64_t used; /* devices worked on, synchronized at shutdown (bit 63: 63 and up) */
} xrt__gpu_state;

/* What a stream callback needs to run an xrt_host_fn. */
typedef struct xrt__gpu_host_call {
    xrt_host_fn fn;
    void *user;
} xrt__gpu_host_call;

static void xrt__gpu_mark_used(xrt__gpu_state *s, int device)
{
    if (device >= 0) __atomic_fetch_or(&s->used, (uint64_t)1 << (device < 63 ? device : 63), __ATOMIC_RELAXED);
}

static int xrt__gpu_was_used(const xrt__gpu_state *s, int device)
{
    return (int)((__atomic_load_n(&s->used, __ATOMIC_RELAXED) >> (device < 63 ? device : 63)) & 1);
}

#ifndef XRT_NO_RUNTIME_LINKING
/* Vendor runtimes keep worker threads and thread-exit destructors after their
   last call, so unmapping one can crash the process later. Mark the loaded
   library as never to be unmapped: dlclose then just drops our reference, and
   loading it again after xrt_shutdown finds it initialised. */
static void xrt__gpu_pin(void *lib, const char *symbol)
{
    Dl_info info;
    void *self;
    void *addr = dlsym(lib, symbol);
    if (!addr || !dladdr(addr, &info) || !info.dli_fname) return;
    self = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    if (self) dlclose(self);
}
#endif

#ifdef __cplusplus
}
#endif

#endif /* shared part */

/* >> gpu: one backend (instantiated once per runtime) */
#if defined(XRT__IMPL_INCLUDED) && defined(XRT__GPU_ID)

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"

/* >> gpu: the runtime's symbols */
#define XRT__GPU_SYM_FIELD(field, sym, opt, ret, params) ret(*field) params;
static struct { XRT__GPU_SYMBOLS(XRT__GPU_SYM_FIELD) } XRT__GPU_RT;
#undef XRT__GPU_SYM_FIELD

#define XRT__GPU_SYM_INDEX(field, sym, opt, ret, params) XRT__GPU_F(i_##field),
enum { XRT__GPU_SYMBOLS(XRT__GPU_SYM_INDEX) XRT__GPU_F(nsyms) };
#undef XRT__GPU_SYM_INDEX

/* Names for the dlsym loop and for error messages, in both linking modes. */
#define XRT__GPU_SYM_ENTRY(field, sym, opt, ret, params) {#sym, (void *)&XRT__GPU_RT.field, opt},
static const xrt__dl_sym XRT__GPU_F(syms)[] = {XRT__GPU_SYMBOLS(XRT__GPU_SYM_ENTRY)};
#undef XRT__GPU_SYM_ENTRY

#ifdef XRT_NO_RUNTIME_LINKING
/* Optional symbols: redeclared weak, so a library without them links and they are NULL. */
#define XRT__GPU_WEAK_0(sym, ret, params)
#define XRT__GPU_WEAK_1(sym, ret, params) ret sym params __attribute__((weak));
#define XRT__GPU_SYM_WEAK(field, sym, opt, ret, params) XRT__GPU_WEAK_##opt(sym, ret, params)
XRT__GPU_SYMBOLS(XRT__GPU_SYM_WEAK)
#undef XRT__GPU_SYM_WEAK
#undef XRT__GPU_WEAK_0
#undef XRT__GPU_WEAK_1
#endif

static xrt__gpu_state XRT__GPU_ST;

/* Hooks: defined by the backend header. */
static xrt_status XRT__GPU_F(probe)(char *reason, size_t n);
static xrt_status XRT__GPU_F(fill_prop)(xrt_device_prop *out, const XRT__GPU_PROP_T *p, int device);
static xrt_memory_type XRT__GPU_F(memory_type)(const XRT__GPU_POINTER_T *a);

/* >> gpu: errors */
static xrt_status XRT__GPU_F(status)(XRT__GPU_ERROR_T e)
{
#define XRT__GPU_ERROR_CASE(native, status) case native: return status;
    switch (e) {
    XRT__GPU_ERRORS(XRT__GPU_ERROR_CASE)
    default: return XRT_ERROR_BACKEND;
    }
#undef XRT__GPU_ERROR_CASE
}

static xrt_status XRT__GPU_F(fail)(XRT__GPU_ERROR_T e, int sym) XRT__COLD;
static xrt_status XRT__GPU_F(fail)(XRT__GPU_ERROR_T e, int sym)
{
    xrt_status st = XRT__GPU_F(status)(e);
    if (st == XRT_ERROR_NOT_READY) return st; /* the answer to a query, not an error */
    return xrt_native_error(st, XRT__GPU_NAME, XRT__GPU_F(syms)[sym].name, (long)e, XRT__GPU_RT.GetErrorName(e),
                            XRT__GPU_RT.GetErrorString(e));
}

static inline xrt_status XRT__GPU_F(check)(XRT__GPU_ERROR_T e, int sym)
{
    return XRT__LIKELY(e == 0) ? XRT_SUCCESS : XRT__GPU_F(fail)(e, sym); /* cudaSuccess, hipSuccess */
}

/* The reason an init failed, in the format of xrt_native_error (the registry adds the name). */
static void XRT__GPU_F(describe)(XRT__GPU_ERROR_T e, int sym, char *reason, size_t n)
{
    snprintf(reason, n, "%s: %s (%s=%ld)", XRT__GPU_F(syms)[sym].name, XRT__GPU_RT.GetErrorString(e),
             XRT__GPU_RT.GetErrorName(e), (long)e);
}

/* >> gpu: loading */
static void XRT__GPU_F(unload)(void)
{
#ifndef XRT_NO_RUNTIME_LINKING
    void *lib = __atomic_exchange_n(&XRT__GPU_ST.lib, NULL, __ATOMIC_ACQ_REL);
    if (!lib) return;
    memset(&XRT__GPU_RT, 0, sizeof XRT__GPU_RT);
    dlclose(lib);
#endif
}

static int XRT__GPU_F(load)(char *reason, size_t n)
{
#ifdef XRT_NO_RUNTIME_LINKING
#define XRT__GPU_SYM_LINK(field, sym, opt, ret, params) XRT__GPU_RT.field = &sym;
    XRT__GPU_SYMBOLS(XRT__GPU_SYM_LINK)
#undef XRT__GPU_SYM_LINK
    (void)reason;
    (void)n;
    return 1;
#else
    static const char *const sonames[] = {XRT__GPU_SONAMES, NULL};
    void *lib;
    lib = xrt__dl_open(XRT__GPU_LIBRARY_ENV, sonames, reason, n);
    if (!lib) return 0;
    if (!xrt__dl_bind(lib, XRT__GPU_F(syms), XRT__GPU_F(nsyms), reason, n)) {
        dlclose(lib);
        return 0;
    }
    xrt__gpu_pin(lib, XRT__GPU_F(syms)[0].name);
    XRT__GPU_ST.lib = lib;
    return 1;
#endif
}

static xrt_status XRT__GPU_F(count_devices)(char *reason, size_t n)
{
    int count = 0; /* cudaGetDeviceCount leaves it untouched when it fails */
    XRT__GPU_ERROR_T e = XRT__GPU_RT.GetDeviceCount(&count);
    if (e != 0) {
        XRT__GPU_F(describe)(e, XRT__GPU_F(i_GetDeviceCount), reason, n);
        (void)XRT__GPU_RT.GetLastError(); /* leave no error behind for code that uses the runtime directly */
        return XRT__GPU_F(status)(e) == XRT_ERROR_NO_DEVICE ? XRT_ERROR_NO_DEVICE : XRT_ERROR_BACKEND_UNAVAILABLE;
    }
    if (count <= 0) {
        snprintf(reason, n, "%s: no device", XRT__GPU_F(syms)[XRT__GPU_F(i_GetDeviceCount)].name);
        return XRT_ERROR_NO_DEVICE;
    }
    XRT__GPU_ST.count = count;
    return XRT_SUCCESS;
}

static xrt_status XRT__GPU_F(init)(const xrt_backend *self, char *reason, size_t n)
{
    xrt_status st;
    XRT__GPU_ST.count = 0;
    if ((st = XRT__GPU_F(probe)(reason, n)) != XRT_SUCCESS) return st;
    if (!XRT__GPU_F(load)(reason, n)) return XRT_ERROR_BACKEND_UNAVAILABLE;
    st = XRT__GPU_F(count_devices)(reason, n);
    if (st != XRT_SUCCESS) {
        XRT__GPU_F(unload)();
        return st;
    }
    (void)XRT__GPU_RT.RuntimeGetVersion(&XRT__GPU_ST.version);
    XRT__GPU_ST.used = 0;
    return XRT_SUCCESS;
}

/* Waits for the devices this backend worked on; the thread keeps its device. */
static void XRT__GPU_F(synchronize_used)(void)
{
    int current, d;
    if (!__atomic_load_n(&XRT__GPU_ST.used, __ATOMIC_RELAXED) || XRT__GPU_RT.GetDevice(&current) != 0) return;
    for (d = 0; d < XRT__GPU_ST.count; d++)
        if (xrt__gpu_was_used(&XRT__GPU_ST, d) && XRT__GPU_TRY(SetDevice, (d)) == XRT_SUCCESS)
            XRT__GPU_TRY(DeviceSynchronize, ());
    (void)XRT__GPU_RT.SetDevice(current);
}

/* Called after xrt_shutdown freed the remaining allocations and handles. */
static void XRT__GPU_F(shutdown)(const xrt_backend *self)
{
    XRT__GPU_F(synchronize_used)();
    XRT__GPU_F(unload)();
}

/* >> gpu: devices */
static void XRT__GPU_F(mark_current)(void)
{
    int d;
    if (XRT__GPU_RT.GetDevice(&d) == 0) xrt__gpu_mark_used(&XRT__GPU_ST, d);
}

/* Stream-ordered allocation needs the entry points and a device with memory pools. */
static int XRT__GPU_F(has_pools)(int *device)
{
    int v = 0;
    *device = -1;
    if (!XRT__GPU_RT.MallocAsync || !XRT__GPU_RT.FreeAsync || XRT__GPU_RT.GetDevice(device) != 0) return 0;
    return XRT__GPU_RT.DeviceGetAttribute(&v, XRT__GPU_ATTR_POOLS, *device) == 0 && v != 0;
}

static xrt_status XRT__GPU_F(get_capabilities)(const xrt_backend *self, unsigned *caps)
{
    int d;
    *caps = XRT_CAP_PINNED_HOST | XRT_CAP_HOST_FUNC | XRT_CAP_EVENT_TIMING | XRT_CAP_NATIVE_HANDLES;
    if (XRT__GPU_F(has_pools)(&d)) *caps |= XRT_CAP_MALLOC_ASYNC;
    return XRT_SUCCESS;
}

static xrt_status XRT__GPU_F(get_device_count)(const xrt_backend *self, int *count)
{
    *count = XRT__GPU_ST.count;
    return XRT_SUCCESS;
}

static xrt_status XRT__GPU_F(check_device)(int device, const char *who)
{
    if (device < XRT__GPU_ST.count) return XRT_SUCCESS;
    return xrt_error(XRT_ERROR_INVALID_DEVICE, who, "device %d out of range (%d device%s)", device,
                     XRT__GPU_ST.count, XRT__GPU_ST.count == 1 ? "" : "s");
}

/* The runtime's current device is per thread already, as xrt's is. */
static xrt_status XRT__GPU_F(set_device)(const xrt_backend *self, int device)
{
    xrt_status st = XRT__GPU_F(check_device)(device, XRT__GPU_NAME ": xrt_set_device");
    if (st == XRT_SUCCESS) st = XRT__GPU_TRY(SetDevice, (device));
    if (st == XRT_SUCCESS) xrt__gpu_mark_used(&XRT__GPU_ST, device);
    return st;
}

static xrt_status XRT__GPU_F(get_device)(const xrt_backend *self, int *device) { return XRT__GPU_TRY(GetDevice, (device)); }

static xrt_status XRT__GPU_F(device_synchronize)(const xrt_backend *self) { return XRT__GPU_TRY(DeviceSynchronize, ()); }

/* For the hooks: one integer attribute of a device (inline: a backend may not need it). */
static inline xrt_status XRT__GPU_F(attribute)(int *value, XRT__GPU_ATTR_T attr, int device)
{
    *value = 0;
    return XRT__GPU_TRY(DeviceGetAttribute, (value, attr, device));
}

static xrt_status XRT__GPU_F(get_device_properties)(const xrt_backend *self, xrt_device_prop *prop, int device)
{
    union { XRT__GPU_PROP_T p; char pad[XRT__GPU_PAD]; } u;
    xrt_status st = XRT__GPU_F(check_device)(device, XRT__GPU_NAME ": xrt_get_device_properties");
    if (st != XRT_SUCCESS) return st;
    memset(&u, 0, sizeof u);
    if ((st = XRT__GPU_TRY(GetDeviceProperties, (&u.p, device))) != XRT_SUCCESS) return st;
    memset(prop, 0, sizeof *prop);
    memcpy(prop->name, u.p.name, sizeof prop->name - 1);
    prop->total_memory = u.p.totalGlobalMem; /* name and totalGlobalMem: the stable head of the struct */
    return XRT__GPU_F(fill_prop)(prop, &u.p, device);
}

/* >> gpu: memory */
static xrt_status XRT__GPU_F(allocated)(void **ptr, xrt_status st)
{
    if (st != XRT_SUCCESS) {
        *ptr = NULL;
        return st;
    }
    XRT__GPU_F(mark_current)();
    return XRT_SUCCESS;
}

static xrt_status XRT__GPU_F(malloc)(const xrt_backend *self, void **ptr, size_t size)
{
    return XRT__GPU_F(allocated)(ptr, XRT__GPU_TRY(Malloc, (ptr, size)));
}

static xrt_status XRT__GPU_F(free)(const xrt_backend *self, void *ptr) { return XRT__GPU_TRY(Free, (ptr)); }

static xrt_status XRT__GPU_F(malloc_host)(const xrt_backend *self, void **ptr, size_t size)
{
    return XRT__GPU_F(allocated)(ptr, XRT__GPU_TRY(HostAlloc, (ptr, size, 0))); /* 0: default flags in both */
}

static xrt_status XRT__GPU_F(free_host)(const xrt_backend *self, void *ptr) { return XRT__GPU_TRY(FreeHost, (ptr)); }

static xrt_status XRT__GPU_F(no_pools)(const char *who, int device)
{
    if (!XRT__GPU_RT.MallocAsync || !XRT__GPU_RT.FreeAsync)
        return xrt_error(XRT_ERROR_UNSUPPORTED, who, "the runtime has no stream-ordered allocator");
    return xrt_error(XRT_ERROR_UNSUPPORTED, who, "device %d has no memory pools (stream-ordered allocation)", device);
}

static xrt_status XRT__GPU_F(malloc_async)(const xrt_backend *self, void **ptr, size_t size, void *stream)
{
    int d;
    if (!XRT__GPU_F(has_pools)(&d)) return XRT__GPU_F(no_pools)(XRT__GPU_NAME ": xrt_malloc_async", d);
    return XRT__GPU_F(allocated)(ptr, XRT__GPU_TRY(MallocAsync, (ptr, size, (XRT__GPU_STREAM_T)stream)));
}

static xrt_status XRT__GPU_F(free_async)(const xrt_backend *self, void *ptr, void *stream)
{
    int d;
    if (!XRT__GPU_F(has_pools)(&d)) return XRT__GPU_F(no_pools)(XRT__GPU_NAME ": xrt_free_async", d);
    return XRT__GPU_TRY(FreeAsync, (ptr, (XRT__GPU_STREAM_T)stream));
}

static xrt_status XRT__GPU_F(mem_get_info)(const xrt_backend *self, size_t *free_bytes, size_t *total_bytes)
{
    return XRT__GPU_TRY(MemGetInfo, (free_bytes, total_bytes));
}

/* >> gpu: streams (NULL is the legacy default stream, handle 0) */
static xrt_status XRT__GPU_F(stream_synchronize)(const xrt_backend *self, void *stream)
{
    return XRT__GPU_TRY(StreamSynchronize, ((XRT__GPU_STREAM_T)stream));
}

static xrt_status XRT__GPU_F(memset_async)(const xrt_backend *self, void *dst, int value, size_t size, void *stream)
{
    return XRT__GPU_TRY(MemsetAsync, (dst, value, size, (XRT__GPU_STREAM_T)stream));
}

/* cudaMemset and a device-to-device cudaMemcpy may return before they are
   done; xrt's synchronous forms return when the work is complete. */
static xrt_status XRT__GPU_F(memset)(const xrt_backend *self, void *dst, int value, size_t size)
{
    xrt_status st = XRT__GPU_F(memset_async)(self, dst, value, size, NULL);
    return st == XRT_SUCCESS ? XRT__GPU_F(stream_synchronize)(self, NULL) : st;
}

static xrt_status XRT__GPU_F(memcpy_async)(const xrt_backend *self, void *dst, const void *src, size_t size, xrt_memcpy_kind kind,
                                           void *stream)
{
    /* xrt's kinds have the runtime's values; the dispatch layer has resolved XRT_MEMCPY_DEFAULT. */
    return XRT__GPU_TRY(MemcpyAsync, (dst, src, size, (XRT__GPU_KIND_T)kind, (XRT__GPU_STREAM_T)stream));
}

static xrt_status XRT__GPU_F(memcpy)(const xrt_backend *self, void *dst, const void *src, size_t size, xrt_memcpy_kind kind)
{
    xrt_status st = XRT__GPU_F(memcpy_async)(self, dst, src, size, kind, NULL);
    return st == XRT_SUCCESS ? XRT__GPU_F(stream_synchronize)(self, NULL) : st;
}

/* Runs for every pointer the registry does not know (pageable host buffers of
   every memcpy), so an unknown pointer is an answer, never a logged error. */
static xrt_status XRT__GPU_F(pointer_get_attributes)(const xrt_backend *self, xrt_pointer_attributes *attr, const void *ptr)
{
    union { XRT__GPU_POINTER_T a; char pad[256]; } u;
    memset(&u, 0, sizeof u);
    if (XRT__GPU_RT.PointerGetAttributes(&u.a, ptr) != 0) {
        (void)XRT__GPU_RT.GetLastError(); /* HIP 5 fails for plain host memory and keeps it as its last error */
        return XRT_SUCCESS;
    }
    attr->type = XRT__GPU_F(memory_type)(&u.a);
    if (attr->type == XRT_MEMORY_UNKNOWN) return XRT_SUCCESS;
    attr->backend = XRT__GPU_NAME;
    if (attr->type != XRT_MEMORY_PINNED_HOST) attr->device = u.a.device; /* xrt: -1 for host memory */
    return XRT_SUCCESS;
}

/* Non-blocking: xrt's NULL stream does not synchronise with other streams. */
static xrt_status XRT__GPU_F(stream_create)(const xrt_backend *self, void **stream)
{
    XRT__GPU_STREAM_T s = NULL;
    xrt_status st = XRT__GPU_TRY(StreamCreateWithFlags, (&s, XRT__GPU_STREAM_NON_BLOCKING));
    if (st != XRT_SUCCESS) return st;
    *stream = (void *)s;
    XRT__GPU_F(mark_current)();
    return XRT_SUCCESS;
}

static xrt_status XRT__GPU_F(stream_destroy)(const xrt_backend *self, void *stream)
{
    return XRT__GPU_TRY(StreamDestroy, ((XRT__GPU_STREAM_T)stream));
}

static xrt_status XRT__GPU_F(stream_query)(const xrt_backend *self, void *stream)
{
    return XRT__GPU_TRY(StreamQuery, ((XRT__GPU_STREAM_T)stream));
}

static xrt_status XRT__GPU_F(stream_wait_event)(const xrt_backend *self, void *stream, void *event)
{
    return XRT__GPU_TRY(StreamWaitEvent, ((XRT__GPU_STREAM_T)stream, (XRT__GPU_EVENT_T)event, 0));
}

static void XRT__GPU_F(host_call)(XRT__GPU_STREAM_T stream, XRT__GPU_ERROR_T status, void *p)
{
    xrt__gpu_host_call c = *(xrt__gpu_host_call *)p;
    (void)stream;
    (void)status; /* xrt runs fn when the stream reaches it, as the runtimes' host functions do */
    free(p);
    c.fn(c.user);
}

/* HIP 5 declares hipLaunchHostFunc but does not export it: a stream callback
   that calls fn does the same work. */
static xrt_status XRT__GPU_F(launch_host_func)(const xrt_backend *self, void *stream, xrt_host_fn fn, void *user)
{
    xrt__gpu_host_call *c;
    xrt_status st;
    if (XRT__GPU_RT.LaunchHostFunc) return XRT__GPU_TRY(LaunchHostFunc, ((XRT__GPU_STREAM_T)stream, fn, user));
    c = (xrt__gpu_host_call *)malloc(sizeof *c);
    if (!c) return xrt_error(XRT_ERROR_OUT_OF_MEMORY, XRT__GPU_NAME ": xrt_launch_host_func", "no memory");
    c->fn = fn;
    c->user = user;
    st = XRT__GPU_TRY(StreamAddCallback, ((XRT__GPU_STREAM_T)stream, XRT__GPU_F(host_call), c, 0));
    if (st != XRT_SUCCESS) free(c);
    return st;
}

/* >> gpu: events (xrt's flags have the runtimes' values) */
static xrt_status XRT__GPU_F(event_create)(const xrt_backend *self, void **event, unsigned flags)
{
    XRT__GPU_EVENT_T e = NULL;
    xrt_status st = XRT__GPU_TRY(EventCreateWithFlags, (&e, flags));
    if (st != XRT_SUCCESS) return st;
    *event = (void *)e;
    XRT__GPU_F(mark_current)();
    return XRT_SUCCESS;
}

static xrt_status XRT__GPU_F(event_destroy)(const xrt_backend *self, void *event)
{
    return XRT__GPU_TRY(EventDestroy, ((XRT__GPU_EVENT_T)event));
}

static xrt_status XRT__GPU_F(event_record)(const xrt_backend *self, void *event, void *stream)
{
    return XRT__GPU_TRY(EventRecord, ((XRT__GPU_EVENT_T)event, (XRT__GPU_STREAM_T)stream));
}

static xrt_status XRT__GPU_F(event_query)(const xrt_backend *self, void *event)
{
    return XRT__GPU_TRY(EventQuery, ((XRT__GPU_EVENT_T)event));
}

static xrt_status XRT__GPU_F(event_synchronize)(const xrt_backend *self, void *event)
{
    return XRT__GPU_TRY(EventSynchronize, ((XRT__GPU_EVENT_T)event));
}

/* Never recorded or XRT_EVENT_DISABLE_TIMING: the runtime's invalid resource
   handle, so XRT_ERROR_INVALID_HANDLE as documented. */
static xrt_status XRT__GPU_F(event_elapsed_time)(const xrt_backend *self, float *ms, void *start, void *end)
{
    return XRT__GPU_TRY(EventElapsedTime, (ms, (XRT__GPU_EVENT_T)start, (XRT__GPU_EVENT_T)end));
}

/* >> gpu: interop. A backend stream or event object IS the native handle. */
static xrt_status XRT__GPU_F(stream_get_native)(const xrt_backend *self, void *stream, void **native)
{
    *native = stream; /* NULL: the legacy default stream, 0 */
    return XRT_SUCCESS;
}

static xrt_status XRT__GPU_F(event_get_native)(const xrt_backend *self, void *event, void **native)
{
    *native = event;
    return XRT_SUCCESS;
}

static xrt_status XRT__GPU_F(stream_wrap_native)(const xrt_backend *self, void *native, void **stream)
{
    *stream = native;
    XRT__GPU_F(mark_current)(); /* work may reach the device through it */
    return XRT_SUCCESS;
}

static xrt_status XRT__GPU_F(mem_export_dmabuf)(const xrt_backend *self, const void *ptr, size_t size, int *fd,
                                                uint64_t *offset)
{
    return xrt__unsupported_mem_export_dmabuf(self, ptr, size, fd, offset);
}

/* The compile target: the architecture and warp size of the properties. */
static xrt_status XRT__GPU_F(get_target)(const xrt_backend *self, int device, xrt_target *t)
{
    xrt_device_prop p;
    xrt_status st = XRT__GPU_F(get_device_properties)(self, &p, device);
    if (st != XRT_SUCCESS) return st;
    snprintf(t->arch, sizeof t->arch, "%s", p.arch);
    t->vector_width = p.warp_size;
    return XRT_SUCCESS;
}

#pragma GCC diagnostic pop

/* >> gpu: the table */
static void XRT__GPU_F(fill)(xrt_backend *t)
{
    t->name = XRT__GPU_NAME;
    t->init = XRT__GPU_F(init);
    t->shutdown = XRT__GPU_F(shutdown);
#define XRT__GPU_SLOT(name, params) t->name = XRT__GPU_F(name);
    XRT__BACKEND_OPS(XRT__GPU_SLOT)
#undef XRT__GPU_SLOT
}

#ifdef __cplusplus
}
#endif

#undef XRT__GPU_ID
#undef XRT__GPU_NAME
#undef XRT__GPU_SYMBOLS
#undef XRT__GPU_ERRORS
#undef XRT__GPU_LIBRARY_ENV
#undef XRT__GPU_SONAMES
#undef XRT__GPU_ERROR_T
#undef XRT__GPU_STREAM_T
#undef XRT__GPU_EVENT_T
#undef XRT__GPU_KIND_T
#undef XRT__GPU_ATTR_T
#undef XRT__GPU_PROP_T
#undef XRT__GPU_POINTER_T
#undef XRT__GPU_STREAM_NON_BLOCKING
#undef XRT__GPU_ATTR_POOLS

#endif /* one backend */
