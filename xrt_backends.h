/* xrt_backends.h - the backend table, the registry and run-time selection.

   A backend is one xrt_backend struct: its name, the ABI version it was built
   against, an init/shutdown pair and one function pointer per operation.
   Backends work on their own objects: the dispatch layer in xrt.h turns xrt
   handles into the backend's stream/event objects (NULL = default stream),
   checks arguments, and keeps the pointer registry, so a backend never sees
   an invalid handle, a NULL out-pointer or a pointer it did not allocate.

   A backend registered at run time (xrt_register_backend) may leave slots
   NULL: they are filled with functions that return XRT_ERROR_UNSUPPORTED. A
   table built against an older ABI minor (smaller `size`) is accepted; its
   missing tail is filled the same way. Errors are recorded with xrt_error();
   native failures with xrt_native_error().

       static xrt_status my_init(char *reason, size_t n) { (void)reason; (void)n; return XRT_SUCCESS; }
       xrt_backend my;
       memset(&my, 0, sizeof my);
       my.abi_version = XRT_BACKEND_ABI_VERSION; my.size = sizeof my;
       my.name = "mine"; my.init = my_init; my.malloc = my_malloc; ...
       xrt_register_backend(&my);  xrt_set_backend("mine");
*/
#ifndef XRT_BACKENDS_H_INCLUDED
#define XRT_BACKENDS_H_INCLUDED

#ifdef __cplusplus
extern "C" {
#endif

#define XRT_BACKEND_ABI_VERSION 1u
#define XRT_MAX_BACKENDS 16

/* X(name, parameters, arguments): every operation of a backend, in table order.
   Append only: the order is the ABI. Stream and event parameters are the
   backend's own objects. */
#define XRT__BACKEND_OPS(X)                                                                      \
    X(get_capabilities, (unsigned *caps), (caps))                                                \
    X(get_device_count, (int *count), (count))                                                   \
    X(set_device, (int device), (device))                                                        \
    X(get_device, (int *device), (device))                                                       \
    X(device_synchronize, (void), ())                                                            \
    X(get_device_properties, (xrt_device_prop *prop, int device), (prop, device))                \
    X(malloc, (void **ptr, size_t size), (ptr, size))                                            \
    X(free, (void *ptr), (ptr))                                                                  \
    X(malloc_host, (void **ptr, size_t size), (ptr, size))                                       \
    X(free_host, (void *ptr), (ptr))                                                             \
    X(malloc_async, (void **ptr, size_t size, void *stream), (ptr, size, stream))                \
    X(free_async, (void *ptr, void *stream), (ptr, stream))                                      \
    X(mem_get_info, (size_t *free_bytes, size_t *total_bytes), (free_bytes, total_bytes))        \
    X(memset, (void *dst, int value, size_t size), (dst, value, size))                           \
    X(memset_async, (void *dst, int value, size_t size, void *stream), (dst, value, size, stream)) \
    X(memcpy, (void *dst, const void *src, size_t size, xrt_memcpy_kind kind),                   \
      (dst, src, size, kind))                                                                    \
    X(memcpy_async, (void *dst, const void *src, size_t size, xrt_memcpy_kind kind, void *stream), \
      (dst, src, size, kind, stream))                                                            \
    X(pointer_get_attributes, (xrt_pointer_attributes *attr, const void *ptr), (attr, ptr))      \
    X(stream_create, (void **stream), (stream))                                                  \
    X(stream_destroy, (void *stream), (stream))                                                  \
    X(stream_synchronize, (void *stream), (stream))                                              \
    X(stream_query, (void *stream), (stream))                                                    \
    X(stream_wait_event, (void *stream, void *event), (stream, event))                           \
    X(launch_host_func, (void *stream, xrt_host_fn fn, void *user), (stream, fn, user))          \
    X(event_create, (void **event, unsigned flags), (event, flags))                              \
    X(event_destroy, (void *event), (event))                                                     \
    X(event_record, (void *event, void *stream), (event, stream))                                \
    X(event_query, (void *event), (event))                                                       \
    X(event_synchronize, (void *event), (event))                                                 \
    X(event_elapsed_time, (float *ms, void *start, void *end), (ms, start, end))                 \
    X(stream_get_native, (void *stream, void **native), (stream, native))                        \
    X(event_get_native, (void *event, void **native), (event, native))                          \
    X(stream_wrap_native, (void *native, void **stream), (native, stream))

typedef struct xrt_backend {
    uint32_t abi_version; /* XRT_BACKEND_ABI_VERSION the backend was built against */
    uint32_t size;        /* sizeof(xrt_backend) as the backend was built */
    const char *name;     /* unique, lower case: "cpu", "cuda", ... */
    /* Probe: XRT_SUCCESS if usable, else a status and a one-line reason. Called once,
       with the registry lock held, the first time the backend is needed. */
    xrt_status (*init)(char *reason, size_t reason_size);
    /* Waits for all queued work and releases everything; may be NULL. Called
       last: xrt has already destroyed the live handles and freed the remaining
       allocations through stream_destroy, event_destroy, free and free_host
       (which, like cudaFree, wait for the work that may still use them). */
    void (*shutdown)(void);
#define XRT__OP_FIELD(name, params, args) xrt_status(*name) params;
    XRT__BACKEND_OPS(XRT__OP_FIELD)
#undef XRT__OP_FIELD
} xrt_backend;

/* Registers a backend (copied; probed lazily). XRT_ERROR_ALREADY_EXISTS for a
   taken name, XRT_ERROR_ABI_MISMATCH for another ABI version. */
xrt_status xrt_register_backend(const xrt_backend *backend);

/* For backends: record the calling thread's error and log it, then return st.
   `who` is "backend: function". */
xrt_status xrt_error(xrt_status st, const char *who, const char *fmt, ...) XRT__PRINTF(3, 4) XRT__COLD;
xrt_status xrt_native_error(xrt_status st, const char *backend, const char *call, long code,
                            const char *code_name, const char *message) XRT__COLD;
void xrt_log(xrt_log_level level, const char *fmt, ...) XRT__PRINTF(2, 3);

#ifdef __cplusplus
}
#endif

#endif /* XRT_BACKENDS_H_INCLUDED */

/* >> implementation: registry and selection */
#if defined(XRT__IMPL_INCLUDED) && !defined(XRT__BACKENDS_IMPL_INCLUDED)
#define XRT__BACKENDS_IMPL_INCLUDED

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct xrt__entry {
    xrt_backend t;   /* first: an entry is used as its table */
    int probed;
    xrt_status probe_status;
    char reason[256];
} xrt__entry;

static pthread_mutex_t xrt__reg_lock = PTHREAD_MUTEX_INITIALIZER;
static xrt__entry xrt__entries[XRT_MAX_BACKENDS];
static int xrt__nentries;
static int xrt__inited;
static xrt_status xrt__init_status;
static char xrt__init_reason[512];
static const xrt_backend *xrt__default_be;
unsigned xrt__gen = 1; /* odd: not initialised; even: initialised (see xrt__be) */
XRT__TLS struct xrt__tls_state xrt__tls;

/* Stubs ignore their parameters by design. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"

/* Every slot a backend leaves empty gets a named stub returning UNSUPPORTED. */
#define XRT__UNSUPPORTED_STUB(op, params, args)                                             \
    static xrt_status xrt__unsupported_##op params                                          \
    {                                                                                       \
        return xrt_error(XRT_ERROR_UNSUPPORTED, "xrt_" #op, "not supported by backend %s", \
                         xrt__tls.be ? xrt__tls.be->name : "?");                              \
    }
XRT__BACKEND_OPS(XRT__UNSUPPORTED_STUB)
#undef XRT__UNSUPPORTED_STUB

/* The table used while no backend can be selected: every slot reports why. */
static xrt_status xrt__none_fail(void)
{
    char reason[sizeof xrt__init_reason];
    xrt_status st;
    pthread_mutex_lock(&xrt__reg_lock); /* xrt_register_backend may be selecting again */
    st = xrt__init_status;
    memcpy(reason, xrt__init_reason, sizeof reason);
    pthread_mutex_unlock(&xrt__reg_lock);
    return xrt_error(st, "xrt", "%s", reason);
}
#define XRT__NONE_STUB(name, params, args) \
    static xrt_status xrt__none_##name params { return xrt__none_fail(); }
XRT__BACKEND_OPS(XRT__NONE_STUB)
#undef XRT__NONE_STUB
#pragma GCC diagnostic pop

static void xrt__fill_unsupported(xrt_backend *t)
{
#define XRT__FILL(name, params, args) if (!t->name) t->name = xrt__unsupported_##name;
    XRT__BACKEND_OPS(XRT__FILL)
#undef XRT__FILL
}

static const xrt_backend xrt__none_backend = {
    XRT_BACKEND_ABI_VERSION, sizeof(xrt_backend), "none", NULL, NULL,
#define XRT__NONE_SLOT(name, params, args) xrt__none_##name,
    XRT__BACKEND_OPS(XRT__NONE_SLOT)
#undef XRT__NONE_SLOT
};

static xrt_status xrt__register_locked(const xrt_backend *b)
{
    xrt__entry *e;
    int i;
    if (!b || !b->name || !b->name[0] || !b->init)
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_register_backend", "backend needs a name and an init function");
    if (b->abi_version != XRT_BACKEND_ABI_VERSION)
        return xrt_error(XRT_ERROR_ABI_MISMATCH, "xrt_register_backend", "%s: ABI version %u, expected %u",
                         b->name, b->abi_version, XRT_BACKEND_ABI_VERSION);
    if (b->size < offsetof(xrt_backend, get_capabilities) || b->size > sizeof(xrt_backend))
        return xrt_error(XRT_ERROR_ABI_MISMATCH, "xrt_register_backend", "%s: table size %u, expected at most %u",
                         b->name, b->size, (unsigned)sizeof(xrt_backend));
    for (i = 0; i < xrt__nentries; i++)
        if (strcmp(xrt__entries[i].t.name, b->name) == 0)
            return xrt_error(XRT_ERROR_ALREADY_EXISTS, "xrt_register_backend", "a backend named %s is registered", b->name);
    if (xrt__nentries == XRT_MAX_BACKENDS)
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "xrt_register_backend", "at most %d backends", XRT_MAX_BACKENDS);
    e = &xrt__entries[xrt__nentries++];
    memset(e, 0, sizeof *e);
    memcpy(&e->t, b, b->size);
    e->t.size = sizeof(xrt_backend);
    xrt__fill_unsupported(&e->t);
    return XRT_SUCCESS;
}

static xrt_status xrt__probe_locked(xrt__entry *e)
{
    if (!e->probed) {
        e->probed = 1;
        e->probe_status = e->t.init(e->reason, sizeof e->reason);
        if (e->probe_status != XRT_SUCCESS) {
            if (!e->reason[0]) snprintf(e->reason, sizeof e->reason, "%s", xrt_status_string(e->probe_status));
            xrt_log(XRT_LOG_INFO, "%s: unavailable: %s", e->t.name, e->reason);
        }
    }
    return e->probe_status;
}

static xrt__entry *xrt__find_locked(const char *name, size_t len)
{
    int i;
    for (i = 0; i < xrt__nentries; i++)
        if (strlen(xrt__entries[i].t.name) == len && strncmp(xrt__entries[i].t.name, name, len) == 0)
            return &xrt__entries[i];
    return NULL;
}

static void xrt__names_locked(char *out, size_t n)
{
    int i;
    size_t used = 0;
    out[0] = 0;
    for (i = 0; i < xrt__nentries && used < n; i++)
        used += (size_t)snprintf(out + used, n - used, "%s%s", i ? ", " : "", xrt__entries[i].t.name);
}

/* XRT_BACKEND: a name or a comma-separated priority list; the first available
   wins. An unknown name is an error wherever it stands, so that a typo is
   reported even on a machine where an earlier entry happens to be available. */
static xrt_status xrt__select_from_env_locked(const char *list)
{
    char names[256];
    const char *p;
    size_t len;
    xrt__entry *last = NULL;
    int count = 0;
    for (p = list; *p; p += len + (p[len] == ',')) {
        len = strcspn(p, ",");
        if (!xrt__find_locked(p, len)) {
            xrt__names_locked(names, sizeof names);
            snprintf(xrt__init_reason, sizeof xrt__init_reason, "XRT_BACKEND=%s: unknown backend '%.*s' (valid: %s)",
                     list, (int)len, p, names);
            return XRT_ERROR_NOT_FOUND;
        }
    }
    for (p = list; *p; p += len + (p[len] == ',')) {
        xrt__entry *e = xrt__find_locked(p, len = strcspn(p, ","));
        if (xrt__probe_locked(e) == XRT_SUCCESS) { xrt__default_be = &e->t; return XRT_SUCCESS; }
        last = e;
        count++;
    }
    snprintf(xrt__init_reason, sizeof xrt__init_reason, "XRT_BACKEND=%s: %s%s: unavailable: %s", list,
             count > 1 ? "none available; last: " : "", last->t.name, last->reason);
    return last->probe_status == XRT_ERROR_NO_DEVICE ? XRT_ERROR_NO_DEVICE : XRT_ERROR_BACKEND_UNAVAILABLE;
}

static xrt_status xrt__select_default_locked(void)
{
    const char *env = getenv("XRT_BACKEND");
    int i;
    xrt__default_be = &xrt__none_backend;
    if (env && env[0]) return xrt__select_from_env_locked(env); /* empty means unset */
    for (i = 0; i < xrt__nentries; i++)
        if (xrt__probe_locked(&xrt__entries[i]) == XRT_SUCCESS) {
            xrt__default_be = &xrt__entries[i].t;
            return XRT_SUCCESS;
        }
    snprintf(xrt__init_reason, sizeof xrt__init_reason, "no backend available%s",
             xrt__nentries ? " (see xrt_backend_get_info)" : "");
    return XRT_ERROR_BACKEND_UNAVAILABLE;
}

/* Built-in backends in auto-selection order; each header defines its table. */
#ifdef XRT_ENABLE_CUDA
extern const xrt_backend xrt__cuda_backend;
#endif
#ifdef XRT_ENABLE_HIP
extern const xrt_backend xrt__hip_backend;
#endif
#ifdef XRT_ENABLE_CPU
extern const xrt_backend xrt__cpu_backend;
#endif
#ifdef XRT_ENABLE_CUDA
#define XRT__CUDA_TABLE &xrt__cuda_backend
#else
#define XRT__CUDA_TABLE NULL
#endif
#ifdef XRT_ENABLE_HIP
#define XRT__HIP_TABLE &xrt__hip_backend
#else
#define XRT__HIP_TABLE NULL
#endif
#ifdef XRT_ENABLE_CPU
#define XRT__CPU_TABLE &xrt__cpu_backend
#else
#define XRT__CPU_TABLE NULL
#endif

/* A built-in backend that this build does not enable is still listed, as
   unavailable, so that XRT_BACKEND=cuda,cpu means the same in every build. */
typedef struct xrt__builtin { const char *name; const xrt_backend *table; const char *macro; } xrt__builtin;
static const xrt__builtin xrt__builtins[] = {
    {"cuda", XRT__CUDA_TABLE, "XRT_ENABLE_CUDA"},
    {"hip", XRT__HIP_TABLE, "XRT_ENABLE_HIP"},
    {"cpu", XRT__CPU_TABLE, "XRT_ENABLE_CPU"},
};

static xrt_status xrt__disabled_init(char *reason, size_t n)
{
    snprintf(reason, n, "not enabled in this build");
    return XRT_ERROR_BACKEND_UNAVAILABLE;
}

static void xrt__register_builtin_locked(const xrt__builtin *b)
{
    xrt_backend t;
    xrt__entry *e;
    if (b->table) {
        xrt__register_locked(b->table);
        return;
    }
    memset(&t, 0, sizeof t);
    t.abi_version = XRT_BACKEND_ABI_VERSION;
    t.size = sizeof t;
    t.name = b->name;
    t.init = xrt__disabled_init;
    if (xrt__register_locked(&t) != XRT_SUCCESS) return;
    e = &xrt__entries[xrt__nentries - 1];
    e->probed = 1; /* known now: no probe, no log line */
    e->probe_status = XRT_ERROR_BACKEND_UNAVAILABLE;
    snprintf(e->reason, sizeof e->reason, "not enabled in this build (define %s in the XRT_IMPL unit)", b->macro);
}

void xrt__log_init_from_env(void);
void xrt__handles_shutdown(void);
void xrt__core_shutdown_memory(void);

xrt_status xrt_init(void)
{
    char reason[sizeof xrt__init_reason];
    xrt_status st;
    size_t i;
    pthread_mutex_lock(&xrt__reg_lock);
    if (!xrt__inited) {
        xrt__log_init_from_env();
        for (i = 0; i < sizeof xrt__builtins / sizeof xrt__builtins[0]; i++)
            xrt__register_builtin_locked(&xrt__builtins[i]);
        xrt__init_status = xrt__select_default_locked();
        xrt__inited = 1;
        __atomic_store_n(&xrt__gen, xrt__gen + 1, __ATOMIC_RELEASE);
    }
    st = xrt__init_status; /* read under the lock: xrt_register_backend may select again */
    if (st != XRT_SUCCESS) memcpy(reason, xrt__init_reason, sizeof reason);
    pthread_mutex_unlock(&xrt__reg_lock);
    if (st != XRT_SUCCESS) return xrt_error(st, "xrt_init", "%s", reason);
    return XRT_SUCCESS;
}

void xrt_shutdown(void)
{
    int i;
    pthread_mutex_lock(&xrt__reg_lock);
    if (xrt__inited) {
        xrt__handles_shutdown();     /* destroys live streams and events */
        xrt__core_shutdown_memory(); /* frees what the program did not, backends still up */
        for (i = 0; i < xrt__nentries; i++)
            if (xrt__entries[i].probed && xrt__entries[i].probe_status == XRT_SUCCESS && xrt__entries[i].t.shutdown)
                xrt__entries[i].t.shutdown();
        xrt__nentries = 0;
        xrt__inited = 0;
        xrt__default_be = NULL;
        __atomic_store_n(&xrt__gen, xrt__gen + 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&xrt__reg_lock);
}

const xrt_backend *xrt__be_slow(void)
{
    xrt__quiet++; /* a failed init is reported once, by the call that needed it */
    xrt_init();
    xrt__quiet--;
    pthread_mutex_lock(&xrt__reg_lock);
    xrt__tls.be = xrt__default_be ? xrt__default_be : &xrt__none_backend;
    xrt__tls.gen = __atomic_load_n(&xrt__gen, __ATOMIC_ACQUIRE);
    pthread_mutex_unlock(&xrt__reg_lock);
    return xrt__tls.be;
}

xrt_status xrt_register_backend(const xrt_backend *backend)
{
    xrt_status st;
    xrt_init();
    pthread_mutex_lock(&xrt__reg_lock);
    st = xrt__register_locked(backend);
    if (st == XRT_SUCCESS && xrt__default_be == &xrt__none_backend) {
        xrt__init_status = xrt__select_default_locked(); /* the first usable backend may be this one */
        __atomic_store_n(&xrt__gen, xrt__gen + 2, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&xrt__reg_lock);
    return st;
}

xrt_status xrt_backend_count(int *count)
{
    if (!count) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_backend_count", "count is NULL");
    xrt_init();
    pthread_mutex_lock(&xrt__reg_lock);
    *count = xrt__nentries;
    pthread_mutex_unlock(&xrt__reg_lock);
    return XRT_SUCCESS;
}

/* Probes the backend if needed, so the listing is complete. */
xrt_status xrt_backend_get_info(int index, xrt_backend_info *info)
{
    xrt_status st = XRT_SUCCESS;
    if (!info) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_backend_get_info", "info is NULL");
    xrt_init();
    pthread_mutex_lock(&xrt__reg_lock);
    if (index < 0 || index >= xrt__nentries) {
        st = XRT_ERROR_INVALID_VALUE;
    } else {
        xrt__entry *e = &xrt__entries[index];
        info->available = xrt__probe_locked(e) == XRT_SUCCESS;
        info->name = e->t.name;
        info->reason = info->available ? "" : e->reason;
        info->abi_version = e->t.abi_version;
    }
    pthread_mutex_unlock(&xrt__reg_lock);
    if (st != XRT_SUCCESS) return xrt_error(st, "xrt_backend_get_info", "index %d out of range", index);
    return st;
}

xrt_status xrt_set_backend(const char *name)
{
    char names[256];
    xrt__entry *e;
    xrt_status st = XRT_SUCCESS;
    if (!name) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_set_backend", "name is NULL");
    xrt__be(); /* initialises and fixes this thread's generation */
    pthread_mutex_lock(&xrt__reg_lock);
    e = xrt__find_locked(name, strlen(name));
    if (!e) {
        xrt__names_locked(names, sizeof names);
        st = XRT_ERROR_NOT_FOUND;
    } else if (xrt__probe_locked(e) != XRT_SUCCESS) {
        st = e->probe_status == XRT_ERROR_NO_DEVICE ? XRT_ERROR_NO_DEVICE : XRT_ERROR_BACKEND_UNAVAILABLE;
        snprintf(names, sizeof names, "%s", e->reason);
    } else {
        xrt__tls.be = &e->t;
    }
    pthread_mutex_unlock(&xrt__reg_lock);
    if (st == XRT_ERROR_NOT_FOUND)
        return xrt_error(st, "xrt_set_backend", "unknown backend '%s' (valid: %s)", name, names);
    if (st != XRT_SUCCESS) return xrt_error(st, "xrt_set_backend", "%s: unavailable: %s", name, names);
    return st;
}

xrt_status xrt_get_backend(const char **name)
{
    const xrt_backend *b;
    if (!name) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_get_backend", "name is NULL");
    b = xrt__be();
    *name = b == &xrt__none_backend ? NULL : b->name;
    return b == &xrt__none_backend ? xrt__none_fail() : XRT_SUCCESS;
}

/* >> run-time loading of vendor libraries (used by the GPU backends) */

/* Opens the library named by env `env_var`, else the first of `sonames` that
   loads. On failure writes the reason and returns NULL. */
void *xrt__dl_open(const char *env_var, const char *const *sonames, char *reason, size_t n)
{
    const char *env = getenv(env_var);
    const char *err = "no candidate";
    void *h;
    size_t i;
    if (env && env[0]) {
        h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
        if (!h) snprintf(reason, n, "%s=%s: %s", env_var, env, dlerror());
        return h;
    }
    for (i = 0; sonames[i]; i++) {
        if ((h = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL)) != NULL) return h;
        err = dlerror();
    }
    snprintf(reason, n, "cannot load %s (set %s): %s", sonames[0], env_var, err ? err : "");
    return NULL;
}

/* Looks up `count` symbols into `slots` (function pointers, filled through
   memcpy to stay -pedantic clean). Optional symbols may be missing. */
typedef struct xrt__dl_sym { const char *name; void *slot; int optional; } xrt__dl_sym;

int xrt__dl_bind(void *lib, const xrt__dl_sym *syms, size_t count, char *reason, size_t n)
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

#ifdef __cplusplus
}
#endif

#endif /* implementation */
