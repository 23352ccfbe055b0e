/* trace.c - an xrt plugin: a backend named "trace" that forwards every
   operation to another backend and logs each call with its arguments, status
   and duration, one line per call:

       trace: memcpy_async(dst=0x7f.., src=0x55.., size=4096, kind=1, stream=0x55..) -> success 1.2 us

   Build and use (`make examples` builds build/plugins/libxrt_trace.so):

       cc -std=c11 -I. -shared -fPIC -o libxrt_trace.so examples/plugin/trace.c
       XRT_PLUGINS=./libxrt_trace.so XRT_BACKEND=trace ./my_program

   Environment:
     XRT_TRACE_BACKEND  the backend to trace (any registered name). Default:
                        the first available of cuda, hip, cpu. Read by the
                        tracer's init, which runs again after every
                        xrt_shutdown + init, so a change takes effect there.
     XRT_TRACE_FILE     where the lines go (appended to; default stderr).

   The tracer reaches xrt only through the xrt_plugin_host it is given: it
   does not define XRT_IMPL, and includes xrt.h for the types only.

   Handles and pointers. The stream and event objects of the tracer ARE its
   target's objects, but xrt's handle table records the backend a handle was
   created through, and its pointer registry the backend that allocated: a
   stream, event or allocation made with "trace" selected belongs to trace,
   one made with the target selected belongs to the target. Using one with
   the other is XRT_ERROR_INVALID_HANDLE / XRT_ERROR_INVALID_POINTER, as
   between any two backends; so the tracer sees every operation on its own
   objects. Memory the target knows natively (a cudaMalloc'd buffer) is
   reported as the tracer's, since the tracer drives that runtime.

   Host functions run on the target, wrapped so that xrt calls made from them
   dispatch to the tracer (where its handles are valid) when the target allows
   such calls at all; the tracer therefore declares XRT_BACKEND_HOST_FN_CALLS,
   and a target without it (CUDA, HIP) keeps its own rule: the function runs
   as it would untraced. Each run is logged as host_fn(...).

   Fork. The tracer is fork-safe only if its target is, but its flags are
   fixed when it registers, before init knows the target: it declares
   itself not fork-safe, so a forked child is refused the tracer (and can
   still use a fork-safe backend, such as cpu, directly).

   The tracer neither initialises nor shuts down its target: xrt probes it
   (host->find_backend) and shuts it down like any other backend. An
   operation the target lacks is reported again under the tracer's name, so
   that the detail names the thread's backend as xrt's own stubs do. */
#define _POSIX_C_SOURCE 200809L
#include "xrt.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

typedef struct trace_state {
    const xrt_plugin_host *host;
    const xrt_backend *target; /* resolved by every init */
    FILE *out;                 /* stderr or XRT_TRACE_FILE */
} trace_state;

static trace_state trace;

static const xrt_backend *trace_target(const xrt_backend *self) { return ((trace_state *)self->user)->target; }

static uint64_t trace_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A function pointer as a printable address (ISO C has no cast for it). */
static void *trace_fn_addr(xrt_host_fn fn)
{
    void *p = NULL;
    memcpy(&p, &fn, sizeof(p) < sizeof(fn) ? sizeof(p) : sizeof(fn));
    return p;
}

/* Writes "trace: op(args) -> status T us" as one write, so that lines of
   concurrent calls do not interleave. */
static void trace_line(const xrt_backend *self, const char *op, uint64_t t0, xrt_status st, const char *fmt,
                       va_list ap)
{
    trace_state *ts = (trace_state *)self->user;
    char args[384], line[512];
    double us = (double)(trace_now() - t0) / 1000.0;
    vsnprintf(args, sizeof args, fmt, ap);
    snprintf(line, sizeof line, "trace: %s(%s) -> %s %.1f us\n", op, args, xrt_status_string(st), us);
    fputs(line, ts->out ? ts->out : stderr);
}

/* Ends every traced call: logs it and returns its status. */
static xrt_status trace_end(const xrt_backend *self, const char *op, uint64_t t0, xrt_status st, const char *fmt,
                            ...) __attribute__((format(printf, 5, 6)));
static xrt_status trace_end(const xrt_backend *self, const char *op, uint64_t t0, xrt_status st, const char *fmt,
                            ...)
{
    trace_state *ts = (trace_state *)self->user;
    va_list ap;
    va_start(ap, fmt);
    trace_line(self, op, t0, st, fmt, ap);
    va_end(ap);
    if (st == XRT_ERROR_UNSUPPORTED) {
        char detail[256];
        snprintf(detail, sizeof detail, "%s", ts->host->last_error_string());
        return ts->host->error(st, "trace", "xrt_%s: not supported by backend %s (target: %s)", op, self->name,
                               detail);
    }
    return st;
}

/* >> trace: lifecycle */
static const xrt_backend *trace_resolve(const xrt_backend *self, char *reason, size_t n)
{
    static const char *const dflt[] = {"cuda", "hip", "cpu"};
    const char *want = getenv("XRT_TRACE_BACKEND");
    const xrt_backend *t = NULL;
    size_t i;
    if (want && want[0]) {
        if (strcasecmp(want, self->name) == 0) { /* names match without regard to case */
            snprintf(reason, n, "XRT_TRACE_BACKEND=%.64s: the tracer cannot trace itself", want);
            return NULL;
        }
        t = trace.host->find_backend(want);
        if (!t) snprintf(reason, n, "XRT_TRACE_BACKEND=%.64s: no such backend, or it is unavailable", want);
        return t;
    }
    for (i = 0; i < sizeof dflt / sizeof dflt[0] && !t; i++) t = trace.host->find_backend(dflt[i]);
    if (!t) snprintf(reason, n, "none of cuda, hip, cpu is available to trace (set XRT_TRACE_BACKEND)");
    return t;
}

static xrt_status trace_init(const xrt_backend *self, char *reason, size_t n)
{
    trace_state *ts = (trace_state *)self->user;
    const char *file = getenv("XRT_TRACE_FILE");
    uint64_t t0 = trace_now();
    ts->target = trace_resolve(self, reason, n);
    if (!ts->target) return XRT_ERROR_BACKEND_UNAVAILABLE;
    ts->out = stderr;
    if (file && file[0]) {
        if (!(ts->out = fopen(file, "a"))) {
            snprintf(reason, n, "XRT_TRACE_FILE=%.128s: %s", file, strerror(errno));
            return XRT_ERROR_BACKEND_UNAVAILABLE;
        }
        setvbuf(ts->out, NULL, _IOLBF, 0); /* a line is out when its call returns */
    }
    return trace_end(self, "init", t0, XRT_SUCCESS, "target=%s", ts->target->name);
}

/* Runs after the target's own shutdown (xrt shuts backends down in
   registration order); only the log file is the tracer's to close. */
static void trace_shutdown(const xrt_backend *self)
{
    trace_state *ts = (trace_state *)self->user;
    trace_end(self, "shutdown", trace_now(), XRT_SUCCESS, "target=%s", ts->target->name);
    if (ts->out && ts->out != stderr) fclose(ts->out);
    ts->out = NULL;
    ts->target = NULL;
}

/* >> trace: devices */
static xrt_status trace_get_capabilities(const xrt_backend *self, unsigned *caps)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->get_capabilities(t, caps);
    return trace_end(self, "get_capabilities", t0, st, "*caps=0x%x", st == XRT_SUCCESS ? *caps : 0u);
}

static xrt_status trace_get_device_count(const xrt_backend *self, int *count)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->get_device_count(t, count);
    return trace_end(self, "get_device_count", t0, st, "*count=%d", st == XRT_SUCCESS ? *count : -1);
}

static xrt_status trace_set_device(const xrt_backend *self, int device)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->set_device(t, device);
    return trace_end(self, "set_device", t0, st, "device=%d", device);
}

static xrt_status trace_get_device(const xrt_backend *self, int *device)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->get_device(t, device);
    return trace_end(self, "get_device", t0, st, "*device=%d", st == XRT_SUCCESS ? *device : -1);
}

static xrt_status trace_device_synchronize(const xrt_backend *self)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->device_synchronize(t);
    return trace_end(self, "device_synchronize", t0, st, "%s", "");
}

static xrt_status trace_get_device_properties(const xrt_backend *self, xrt_device_prop *prop, int device)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->get_device_properties(t, prop, device);
    return trace_end(self, "get_device_properties", t0, st, "device=%d, arch=%s", device,
                     st == XRT_SUCCESS ? prop->arch : "?");
}

/* >> trace: memory */
static xrt_status trace_malloc(const xrt_backend *self, void **ptr, size_t size)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->malloc(t, ptr, size);
    return trace_end(self, "malloc", t0, st, "size=%zu, *ptr=%p", size, *ptr);
}

static xrt_status trace_free(const xrt_backend *self, void *ptr)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->free(t, ptr);
    return trace_end(self, "free", t0, st, "ptr=%p", ptr);
}

static xrt_status trace_malloc_host(const xrt_backend *self, void **ptr, size_t size)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->malloc_host(t, ptr, size);
    return trace_end(self, "malloc_host", t0, st, "size=%zu, *ptr=%p", size, *ptr);
}

static xrt_status trace_free_host(const xrt_backend *self, void *ptr)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->free_host(t, ptr);
    return trace_end(self, "free_host", t0, st, "ptr=%p", ptr);
}

static xrt_status trace_malloc_async(const xrt_backend *self, void **ptr, size_t size, void *stream)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->malloc_async(t, ptr, size, stream);
    return trace_end(self, "malloc_async", t0, st, "size=%zu, stream=%p, *ptr=%p", size, stream, *ptr);
}

static xrt_status trace_free_async(const xrt_backend *self, void *ptr, void *stream)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->free_async(t, ptr, stream);
    return trace_end(self, "free_async", t0, st, "ptr=%p, stream=%p", ptr, stream);
}

static xrt_status trace_mem_get_info(const xrt_backend *self, size_t *free_bytes, size_t *total_bytes)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->mem_get_info(t, free_bytes, total_bytes);
    return trace_end(self, "mem_get_info", t0, st, "*free=%zu, *total=%zu", st == XRT_SUCCESS ? *free_bytes : 0,
                     st == XRT_SUCCESS ? *total_bytes : 0);
}

static xrt_status trace_memset(const xrt_backend *self, void *dst, int value, size_t size)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->memset(t, dst, value, size);
    return trace_end(self, "memset", t0, st, "dst=%p, value=%d, size=%zu", dst, value, size);
}

static xrt_status trace_memset_async(const xrt_backend *self, void *dst, int value, size_t size, void *stream)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->memset_async(t, dst, value, size, stream);
    return trace_end(self, "memset_async", t0, st, "dst=%p, value=%d, size=%zu, stream=%p", dst, value, size, stream);
}

static xrt_status trace_memcpy(const xrt_backend *self, void *dst, const void *src, size_t size, xrt_memcpy_kind kind)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->memcpy(t, dst, src, size, kind);
    return trace_end(self, "memcpy", t0, st, "dst=%p, src=%p, size=%zu, kind=%d", dst, src, size, (int)kind);
}

static xrt_status trace_memcpy_async(const xrt_backend *self, void *dst, const void *src, size_t size,
                                     xrt_memcpy_kind kind, void *stream)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->memcpy_async(t, dst, src, size, kind, stream);
    return trace_end(self, "memcpy_async", t0, st, "dst=%p, src=%p, size=%zu, kind=%d, stream=%p", dst, src, size,
                     (int)kind, stream);
}

/* xrt asks only about pointers missing from its registry; what the target
   knows natively is the tracer's (see the top of the file). */
static xrt_status trace_pointer_get_attributes(const xrt_backend *self, xrt_pointer_attributes *attr,
                                               const void *ptr)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->pointer_get_attributes(t, attr, ptr);
    if (st == XRT_SUCCESS && attr->backend && strcmp(attr->backend, t->name) == 0) attr->backend = self->name;
    return trace_end(self, "pointer_get_attributes", t0, st, "ptr=%p, type=%d", ptr,
                     st == XRT_SUCCESS ? (int)attr->type : -1);
}

static xrt_status trace_mem_export_dmabuf(const xrt_backend *self, const void *ptr, size_t size, int *fd,
                                          uint64_t *offset)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->mem_export_dmabuf(t, ptr, size, fd, offset);
    return trace_end(self, "mem_export_dmabuf", t0, st, "ptr=%p, size=%zu, *fd=%d, *offset=%llu", ptr, size,
                     st == XRT_SUCCESS ? *fd : -1, st == XRT_SUCCESS ? (unsigned long long)*offset : 0ull);
}

/* >> trace: streams */
static xrt_status trace_stream_create(const xrt_backend *self, void **stream)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->stream_create(t, stream);
    return trace_end(self, "stream_create", t0, st, "*stream=%p", *stream);
}

static xrt_status trace_stream_destroy(const xrt_backend *self, void *stream)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->stream_destroy(t, stream);
    return trace_end(self, "stream_destroy", t0, st, "stream=%p", stream);
}

static xrt_status trace_stream_synchronize(const xrt_backend *self, void *stream)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->stream_synchronize(t, stream);
    return trace_end(self, "stream_synchronize", t0, st, "stream=%p", stream);
}

static xrt_status trace_stream_query(const xrt_backend *self, void *stream)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->stream_query(t, stream);
    return trace_end(self, "stream_query", t0, st, "stream=%p", stream);
}

static xrt_status trace_stream_wait_event(const xrt_backend *self, void *stream, void *event)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->stream_wait_event(t, stream, event);
    return trace_end(self, "stream_wait_event", t0, st, "stream=%p, event=%p", stream, event);
}

/* What the target runs in place of a host function: the function, with xrt
   calls made from it dispatched to the tracer when the target allows them. */
typedef struct trace_host_call {
    const xrt_backend *self;
    xrt_host_fn fn;
    void *user;
    int calls; /* the target lets host functions call xrt */
} trace_host_call;

static void trace_host_call_run(void *p)
{
    trace_host_call c = *(trace_host_call *)p;
    trace_state *ts = (trace_state *)c.self->user;
    uint64_t t0 = trace_now();
    free(p);
    if (c.calls) ts->host->host_fn_run(c.self, c.fn, c.user);
    else c.fn(c.user);
    trace_end(c.self, "host_fn", t0, XRT_SUCCESS, "fn=%p, user=%p", trace_fn_addr(c.fn), c.user);
}

static xrt_status trace_launch_host_func(const xrt_backend *self, void *stream, xrt_host_fn fn, void *user)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    trace_host_call *c = (trace_host_call *)malloc(sizeof *c);
    xrt_status st = XRT_ERROR_OUT_OF_MEMORY;
    if (c) {
        c->self = self;
        c->fn = fn;
        c->user = user;
        c->calls = (t->flags & XRT_BACKEND_HOST_FN_CALLS) != 0;
        st = t->launch_host_func(t, stream, trace_host_call_run, c);
        if (st != XRT_SUCCESS) free(c);
    } else {
        ((trace_state *)self->user)->host->error(st, "trace: xrt_launch_host_func", "no memory");
    }
    return trace_end(self, "launch_host_func", t0, st, "stream=%p, fn=%p, user=%p", stream, trace_fn_addr(fn), user);
}

/* >> trace: events */
static xrt_status trace_event_create(const xrt_backend *self, void **event, unsigned flags)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->event_create(t, event, flags);
    return trace_end(self, "event_create", t0, st, "flags=0x%x, *event=%p", flags, *event);
}

static xrt_status trace_event_destroy(const xrt_backend *self, void *event)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->event_destroy(t, event);
    return trace_end(self, "event_destroy", t0, st, "event=%p", event);
}

static xrt_status trace_event_record(const xrt_backend *self, void *event, void *stream)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->event_record(t, event, stream);
    return trace_end(self, "event_record", t0, st, "event=%p, stream=%p", event, stream);
}

static xrt_status trace_event_query(const xrt_backend *self, void *event)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->event_query(t, event);
    return trace_end(self, "event_query", t0, st, "event=%p", event);
}

static xrt_status trace_event_synchronize(const xrt_backend *self, void *event)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->event_synchronize(t, event);
    return trace_end(self, "event_synchronize", t0, st, "event=%p", event);
}

static xrt_status trace_event_elapsed_time(const xrt_backend *self, float *ms, void *start, void *end)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->event_elapsed_time(t, ms, start, end);
    return trace_end(self, "event_elapsed_time", t0, st, "start=%p, end=%p, *ms=%.3f", start, end,
                     st == XRT_SUCCESS ? (double)*ms : -1.0);
}

/* >> trace: interop */
static xrt_status trace_stream_get_native(const xrt_backend *self, void *stream, void **native)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->stream_get_native(t, stream, native);
    return trace_end(self, "stream_get_native", t0, st, "stream=%p, *native=%p", stream,
                     st == XRT_SUCCESS ? *native : NULL);
}

static xrt_status trace_event_get_native(const xrt_backend *self, void *event, void **native)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->event_get_native(t, event, native);
    return trace_end(self, "event_get_native", t0, st, "event=%p, *native=%p", event,
                     st == XRT_SUCCESS ? *native : NULL);
}

static xrt_status trace_stream_wrap_native(const xrt_backend *self, void *native, void **stream)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->stream_wrap_native(t, native, stream);
    return trace_end(self, "stream_wrap_native", t0, st, "native=%p, *stream=%p", native, *stream);
}

static xrt_status trace_get_target(const xrt_backend *self, int device, xrt_target *target)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->get_target(t, device, target);
    return trace_end(self, "get_target", t0, st, "device=%d, arch=%s, vector_width=%d, features=%s", device,
                     st == XRT_SUCCESS ? target->arch : "", st == XRT_SUCCESS ? target->vector_width : 0,
                     st == XRT_SUCCESS ? target->features : "");
}

static xrt_status trace_module_load(const xrt_backend *self, void **module, const xrt_module_image *images,
                                    size_t n_images, const char *options, char *log, size_t log_size)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->module_load(t, module, images, n_images, options, log, log_size);
    return trace_end(self, "module_load", t0, st, "n_images=%zu, options=\"%s\", *module=%p", n_images, options,
                     st == XRT_SUCCESS ? *module : NULL);
}

static xrt_status trace_module_unload(const xrt_backend *self, void *module)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->module_unload(t, module);
    return trace_end(self, "module_unload", t0, st, "module=%p", module);
}

static xrt_status trace_module_get_function(const xrt_backend *self, void **function, void *module, const char *name)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->module_get_function(t, function, module, name);
    return trace_end(self, "module_get_function", t0, st, "module=%p, name=%s, *function=%p", module, name,
                     st == XRT_SUCCESS ? *function : NULL);
}

static xrt_status trace_launch_kernel(const xrt_backend *self, void *function, xrt_dim3 grid, xrt_dim3 block,
                                      size_t shared_bytes, void *stream, const void *args, size_t args_size)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->launch_kernel(t, function, grid, block, shared_bytes, stream, args, args_size);
    return trace_end(self, "launch_kernel", t0, st,
                     "function=%p, grid=(%u,%u,%u), block=(%u,%u,%u), shared=%zu, stream=%p, args_size=%zu", function,
                     grid.x, grid.y, grid.z, block.x, block.y, block.z, shared_bytes, stream, args_size);
}

static xrt_status trace_function_get_attributes(const xrt_backend *self, xrt_function_attributes *attr, void *function)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = t->function_get_attributes(t, attr, function);
    return trace_end(self, "function_get_attributes", t0, st, "function=%p, max_threads_per_block=%d", function,
                     st == XRT_SUCCESS ? attr->max_threads_per_block : 0);
}

/* >> trace: registration. The table is filled from xrt's operation list: an
   operation without its trace_<name> fails to compile here. */
xrt_status xrt_plugin_register(const xrt_plugin_host *host, xrt_backend *t);

xrt_status xrt_plugin_register(const xrt_plugin_host *host, xrt_backend *t)
{
    if (host->abi_version != XRT_BACKEND_ABI_VERSION || host->size < sizeof(xrt_plugin_host))
        return XRT_ERROR_ABI_MISMATCH;
    trace.host = host;
    t->abi_version = XRT_BACKEND_ABI_VERSION;
    t->size = sizeof *t;
    t->name = "trace";
    t->user = &trace;
    t->flags = XRT_BACKEND_HOST_FN_CALLS; /* not FORK_SAFE: see the top of the file */
    t->init = trace_init;
    t->shutdown = trace_shutdown;
#define TRACE_OP(op, params) t->op = trace_##op;
    XRT__BACKEND_OPS(TRACE_OP)
#undef TRACE_OP
    return XRT_SUCCESS;
}
