/* xrt_backends.h - the backend ABI: what a backend is and may call.

   A backend is one xrt_backend struct: its name, the ABI version it was built
   against, a `user` pointer for its own data, an init/shutdown pair and one
   function pointer per operation. Every operation takes the backend's table
   first (`self`) and works on the backend's own objects: the dispatch layer
   in xrt.h turns xrt handles into stream/event objects (NULL = the default
   stream), checks arguments and keeps the pointer registry, so a backend
   never sees an invalid handle, a NULL out-pointer or a pointer it did not
   allocate.

   Built-in backends fill every slot, by name (see xrt__cpu_fill in
   xrt_cpu.h). A backend registered at run time (xrt_register_backend) may
   leave slots NULL: they are filled with functions that return
   XRT_ERROR_UNSUPPORTED, so no call site tests for NULL. A table built
   against an older ABI minor (smaller `size`) is accepted; its missing tail
   is filled the same way. Errors are recorded with xrt_error(); native
   failures with xrt_native_error().

       static xrt_status my_init(const xrt_backend *self, char *reason, size_t n)
       { (void)self; (void)reason; (void)n; return XRT_SUCCESS; }
       xrt_backend my;
       memset(&my, 0, sizeof my);
       my.abi_version = XRT_BACKEND_ABI_VERSION; my.size = sizeof my;
       my.name = "mine"; my.init = my_init; my.malloc = my_malloc; ...
       xrt_register_backend(&my);  xrt_set_backend("mine");

   Adding an operation (the checklist; the compiler checks the rest):
     1. append X(name, (const xrt_backend *self, ...)) to XRT__BACKEND_OPS
        below (append only: the order is the ABI);
     2. declare the public call in xrt.h's function list and write its
        dispatch body in xrt.h's ">> dispatch" section: argument checks and
        handle lookups there, never in a backend;
     3. CPU: write xrt__cpu_<name> and assign it in xrt__cpu_fill (xrt_cpu.h),
        or assign xrt__unsupported_<name> when the CPU cannot do it;
     4. CUDA and HIP: write xrt__gpu_<name> (xrt_gpu.h) and assign it in
        xrt__gpu_fill; a runtime entry point it needs is a field of
        xrt__gpu_rt plus an entry in the symbol lists of both xrt_cuda.h and
        xrt_hip.h (a test checks that each list names every field once);
     5. a test in tests/test_suite.c (runs on every backend) and a row in the
        README's support table.
*/
#ifndef XRT_BACKENDS_H_INCLUDED
#define XRT_BACKENDS_H_INCLUDED

#ifdef __cplusplus
extern "C" {
#endif

#define XRT_BACKEND_ABI_VERSION 2u
#define XRT_MAX_BACKENDS 16

typedef struct xrt_backend xrt_backend;

enum { /* xrt_backend.flags */
    XRT_BACKEND_FORK_SAFE = 1u << 0,   /* usable in a child process after fork() */
    XRT_BACKEND_HOST_FN_CALLS = 1u << 1, /* host functions may make xrt calls that do not wait */
    /* What its memory is, for modules that hand memory to other devices (xrt_rdma.h): */
    XRT_BACKEND_HOST_MEMORY = 1u << 2,   /* its device memory is ordinary host memory */
    XRT_BACKEND_NVIDIA_MEMORY = 1u << 3, /* its device memory is NVIDIA GPU memory (nvidia_peermem serves it) */
    XRT_BACKEND_AMD_MEMORY = 1u << 4     /* its device memory is AMD GPU memory (amdkfd's peer-memory client) */
};

/* X(name, parameters): every operation of a backend. Each takes the backend's
   own table first (`self`, the registry's copy: `self->user` reaches the
   backend's data). Stream and event parameters are the backend's own objects.
   Append only: the order is the ABI. */
#define XRT__BACKEND_OPS(X)                                                                                   \
    X(get_capabilities, (const xrt_backend *self, unsigned *caps))                                            \
    X(get_device_count, (const xrt_backend *self, int *count))                                                \
    X(set_device, (const xrt_backend *self, int device))                                                      \
    X(get_device, (const xrt_backend *self, int *device))                                                     \
    X(device_synchronize, (const xrt_backend *self))                                                          \
    X(get_device_properties, (const xrt_backend *self, xrt_device_prop *prop, int device))                    \
    X(malloc, (const xrt_backend *self, void **ptr, size_t size))                                             \
    X(free, (const xrt_backend *self, void *ptr))                                                             \
    X(malloc_host, (const xrt_backend *self, void **ptr, size_t size))                                        \
    X(free_host, (const xrt_backend *self, void *ptr))                                                        \
    X(malloc_async, (const xrt_backend *self, void **ptr, size_t size, void *stream))                         \
    X(free_async, (const xrt_backend *self, void *ptr, void *stream))                                         \
    X(mem_get_info, (const xrt_backend *self, size_t *free_bytes, size_t *total_bytes))                       \
    X(memset, (const xrt_backend *self, void *dst, int value, size_t size))                                   \
    X(memset_async, (const xrt_backend *self, void *dst, int value, size_t size, void *stream))               \
    X(memcpy, (const xrt_backend *self, void *dst, const void *src, size_t size, xrt_memcpy_kind kind))       \
    X(memcpy_async,                                                                                           \
      (const xrt_backend *self, void *dst, const void *src, size_t size, xrt_memcpy_kind kind, void *stream)) \
    X(pointer_get_attributes, (const xrt_backend *self, xrt_pointer_attributes *attr, const void *ptr))       \
    X(stream_create, (const xrt_backend *self, void **stream))                                                \
    X(stream_destroy, (const xrt_backend *self, void *stream))                                                \
    X(stream_synchronize, (const xrt_backend *self, void *stream))                                            \
    X(stream_query, (const xrt_backend *self, void *stream))                                                  \
    X(stream_wait_event, (const xrt_backend *self, void *stream, void *event))                                \
    X(launch_host_func, (const xrt_backend *self, void *stream, xrt_host_fn fn, void *user))                  \
    X(event_create, (const xrt_backend *self, void **event, unsigned flags))                                  \
    X(event_destroy, (const xrt_backend *self, void *event))                                                  \
    X(event_record, (const xrt_backend *self, void *event, void *stream))                                     \
    X(event_query, (const xrt_backend *self, void *event))                                                    \
    X(event_synchronize, (const xrt_backend *self, void *event))                                              \
    X(event_elapsed_time, (const xrt_backend *self, float *ms, void *start, void *end))                       \
    X(stream_get_native, (const xrt_backend *self, void *stream, void **native))                              \
    X(event_get_native, (const xrt_backend *self, void *event, void **native))                                \
    X(stream_wrap_native, (const xrt_backend *self, void *native, void **stream))                             \
    X(mem_export_dmabuf, (const xrt_backend *self, const void *ptr, size_t size, int *fd, uint64_t *offset))    \
    X(get_target, (const xrt_backend *self, int device, xrt_target *target))

struct xrt_backend {
    uint32_t abi_version; /* XRT_BACKEND_ABI_VERSION the backend was built against */
    uint32_t size;        /* sizeof(xrt_backend) as the backend was built */
    const char *name;     /* unique, lower case: "cpu", "cuda", ... */
    void *user;           /* the backend's own data, reached through self->user */
    uint32_t flags;       /* XRT_BACKEND_* below */
    /* Probe: XRT_SUCCESS if usable, else a status and a one-line reason. Called once,
       with the registry lock held, the first time the backend is needed. */
    xrt_status (*init)(const xrt_backend *self, char *reason, size_t reason_size);
    /* Waits for all queued work and releases everything; may be NULL. Called
       last: xrt has already destroyed the live handles and freed the remaining
       allocations through stream_destroy, event_destroy, free and free_host
       (which, like cudaFree, wait for the work that may still use them). */
    void (*shutdown)(const xrt_backend *self);
#define XRT__OP_FIELD(name, params) xrt_status(*name) params;
    XRT__BACKEND_OPS(XRT__OP_FIELD)
#undef XRT__OP_FIELD
};

/* Registers a backend (copied; probed lazily). XRT_ERROR_ALREADY_EXISTS for a
   taken name, XRT_ERROR_ABI_MISMATCH for another ABI version. */
XRT_API xrt_status xrt_register_backend(const xrt_backend *backend);

/* For backends: record the calling thread's error and log it, then return st.
   `who` is "backend: function". */
XRT_API xrt_status xrt_error(xrt_status st, const char *who, const char *fmt, ...) XRT__PRINTF(3, 4) XRT__COLD;
XRT_API xrt_status xrt_native_error(xrt_status st, const char *backend, const char *call, long code,
                                    const char *code_name, const char *message) XRT__COLD;
XRT_API void xrt_log(xrt_log_level level, const char *fmt, ...) XRT__PRINTF(2, 3);

/* >> plugins: a backend in a shared object, loaded with xrt_load_plugin() or
   env XRT_PLUGINS. The object exports one function, named XRT_PLUGIN_SYMBOL,
   of type xrt_plugin_register_fn: it fills `table` (abi_version, size, name,
   init and the operations it has; `user` is its own) and returns
   XRT_SUCCESS. xrt registers the table as xrt_register_backend() does, and
   again after every xrt_shutdown() + init; the object is never unloaded.
   A plugin must not define XRT_IMPL: it reaches xrt through `host`, which
   lives as long as the process. */
#define XRT_PLUGIN_SYMBOL "xrt_plugin_register"

typedef struct xrt_plugin_host {
    uint32_t abi_version; /* XRT_BACKEND_ABI_VERSION of the loading xrt */
    uint32_t size;        /* sizeof(xrt_plugin_host) */
    xrt_status (*error)(xrt_status st, const char *who, const char *fmt, ...) XRT__PRINTF(3, 4);
    xrt_status (*native_error)(xrt_status st, const char *backend, const char *call, long code,
                               const char *code_name, const char *message);
    void (*log)(xrt_log_level level, const char *fmt, ...) XRT__PRINTF(2, 3);
    const char *(*last_error_string)(void);
    /* A registered, available backend by name (probed if need be), or NULL;
       callable from the plugin's init. Its operations take it as `self`. */
    const xrt_backend *(*find_backend)(const char *name);
    /* For a backend that runs host functions on threads of its own. */
    void (*host_fn_run)(const xrt_backend *b, xrt_host_fn fn, void *user);
} xrt_plugin_host;

typedef xrt_status (*xrt_plugin_register_fn)(const xrt_plugin_host *host, xrt_backend *table);

#ifdef __cplusplus
}
#endif

#endif /* XRT_BACKENDS_H_INCLUDED */
