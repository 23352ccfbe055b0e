/* The bad-input table: one row per misuse of the public API, each with its
   exact status, a last-error detail and an error log line that name the
   function, and the status recorded as the thread's last error. The table runs
   on every enabled and available backend; all rows run and every failing row
   is listed before the test fails. A row that gives another status on cuda or
   hip than on cpu is a defect unless CUDA itself differs: such rows say why.

   Rows marked CHILD may crash a core that lacks the check (a range check
   that wraps lets the copy run): each runs in a forked child on a fresh xrt,
   so a crash fails that row, not the program. */
#include "xrt_test.h"

#include <limits.h>

/* >> fixtures: live and dead handles, xrt memory, plain host memory */
typedef struct fixtures {
    xrt_stream s, dead_s, other_s;
    xrt_event e, never, notiming, dead_e, other_e;
    void *d, *d2, *pinned, *freed, *other_d;
    xrt_module mod, dead_mod; /* where the backend loads modules (XRT_CAP_MODULES) */
    xrt_function fn, dead_fn;
    unsigned caps;
    int devices, backends;
} fixtures;

enum { N = 4096 };
static unsigned char h[N], h2[N];
static fixtures fx;

static void nop(void *user) { (void)user; }

/* A module for every backend that loads C source, and images it cannot load. */
static const char kernel_src[] = "void k(const void *ctx, void *args) { (void)ctx; (void)args; }\n";
static const char kernel_ptx[] = ".version 7.5\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n";
static const xrt_module_image src_images[2] = {{XRT_IMAGE_CPU_C_SOURCE, kernel_src, sizeof kernel_src - 1, NULL},
                                               {XRT_IMAGE_CUDA_PTX, kernel_ptx, sizeof kernel_ptx - 1, "compute_75"}};
#define src_image src_images[0]
static const xrt_module_image cuda_only = {XRT_IMAGE_CUDA_CUBIN, kernel_src, sizeof kernel_src, "sm_1"};
static const xrt_module_image no_data = {XRT_IMAGE_CPU_C_SOURCE, NULL, 16, NULL};
static const xrt_module_image no_size = {XRT_IMAGE_CPU_C_SOURCE, kernel_src, 0, NULL};
static const xrt_module_image bad_kind = {(xrt_image_kind)0, kernel_src, sizeof kernel_src, NULL};
static const xrt_dim3 one = {1, 1, 1}, zero_x = {0, 1, 1}, zero_z = {1, 1, 0}, huge_block = {1025, 1, 1};
static unsigned char big_args[XRT_MAX_KERNEL_ARGS + 1];

/* A second backend that owns a stream, an event and memory the tested one
   does not. */
static xrt_status other_init(const xrt_backend *self, char *reason, size_t n)
{
    (void)self, (void)reason, (void)n;
    return XRT_SUCCESS;
}
static xrt_status other_get_device(const xrt_backend *self, int *device)
{
    (void)self;
    *device = 0;
    return XRT_SUCCESS;
}
static xrt_status other_malloc(const xrt_backend *self, void **p, size_t n)
{
    (void)self;
    *p = aligned_alloc(XRT_ALIGNMENT, (n + XRT_ALIGNMENT - 1) & ~(size_t)(XRT_ALIGNMENT - 1));
    return *p ? XRT_SUCCESS : XRT_ERROR_OUT_OF_MEMORY;
}
static xrt_status other_free(const xrt_backend *self, void *p)
{
    (void)self;
    free(p);
    return XRT_SUCCESS;
}
static xrt_status other_object_create(const xrt_backend *self, void **s)
{
    (void)self;
    *s = malloc(1);
    return *s ? XRT_SUCCESS : XRT_ERROR_OUT_OF_MEMORY;
}
static xrt_status other_event_create(const xrt_backend *self, void **e, unsigned flags)
{
    (void)flags;
    return other_object_create(self, e);
}

static xrt_backend other_table(void)
{
    xrt_backend b;
    memset(&b, 0, sizeof b);
    b.abi_version = XRT_BACKEND_ABI_VERSION;
    b.size = sizeof b;
    b.name = "badinput_other";
    b.init = other_init;
    b.get_device = other_get_device;
    b.malloc = other_malloc;
    b.free = other_free;
    b.stream_create = other_object_create;
    b.stream_destroy = other_free;
    b.event_create = other_event_create;
    b.event_destroy = other_free;
    return b;
}

/* Creates the fixtures on the calling thread's backend `backend`. Returns 0
   or the line that failed (usable in a child, where cmocka cannot assert). */
static int fixtures_make(fixtures *f, const char *backend)
{
    static xrt_backend other;
    xrt_status st;
    memset(f, 0, sizeof *f);
    other = other_table();
    st = xrt_register_backend(&other);
    if (st != XRT_SUCCESS && st != XRT_ERROR_ALREADY_EXISTS) return __LINE__;
    if (xrt_set_backend("badinput_other") || xrt_stream_create(&f->other_s) || xrt_event_create(&f->other_e, 0) ||
        xrt_malloc(&f->other_d, N) || xrt_set_backend(backend))
        return __LINE__;
    if (xrt_get_capabilities(&f->caps) || xrt_get_device_count(&f->devices) || xrt_backend_count(&f->backends))
        return __LINE__;
    if (xrt_stream_create(&f->s) || xrt_stream_create(&f->dead_s) || xrt_stream_destroy(f->dead_s)) return __LINE__;
    if (xrt_event_create(&f->e, 0) || xrt_event_create(&f->never, 0) ||
        xrt_event_create(&f->notiming, XRT_EVENT_DISABLE_TIMING) || xrt_event_create(&f->dead_e, 0) ||
        xrt_event_destroy(f->dead_e))
        return __LINE__;
    /* the live allocations first: a later one could reuse the freed address */
    if (xrt_malloc(&f->d, N) || xrt_malloc(&f->d2, N) || xrt_malloc_host(&f->pinned, N)) return __LINE__;
    if (xrt_malloc(&f->freed, N) || xrt_free(f->freed)) return __LINE__;
    if ((f->caps & XRT_CAP_MODULES) &&
        (xrt_module_load(&f->mod, src_images, 2, NULL) || xrt_module_get_function(&f->fn, f->mod, "k") ||
         xrt_module_load(&f->dead_mod, src_images, 2, NULL) || xrt_module_get_function(&f->dead_fn, f->dead_mod, "k") ||
         xrt_module_unload(f->dead_mod)))
        return __LINE__;
    if (xrt_memset(f->d, 0x5a, N) || xrt_event_record(f->e, f->s) || xrt_event_record(f->notiming, f->s) ||
        xrt_stream_synchronize(f->s))
        return __LINE__;
    return 0;
}

static void fixtures_free(fixtures *f, const char *backend)
{
    xrt_stream_destroy(f->s);
    xrt_event_destroy(f->e);
    xrt_event_destroy(f->never);
    xrt_event_destroy(f->notiming);
    xrt_free(f->d);
    xrt_free(f->d2);
    xrt_free_host(f->pinned);
    if (f->mod) xrt_module_unload(f->mod);
    if (xrt_set_backend("badinput_other") == XRT_SUCCESS) {
        xrt_stream_destroy(f->other_s);
        xrt_event_destroy(f->other_e);
        xrt_free(f->other_d);
    }
    xrt_set_backend(backend);
}

/* >> the table */
enum {
    CHILD = 1,     /* run in a forked child on a fresh xrt (may crash a core without the check) */
    IF_NATIVE = 2, /* a bad input only where the backend has native handles */
    IF_NO_NATIVE = 4, /* a bad input only where it has none: then XRT_ERROR_UNSUPPORTED */
    ASYNC_ALLOC = 8,  /* XRT_ERROR_UNSUPPORTED instead where the backend lacks XRT_CAP_MALLOC_ASYNC */
    MODULES = 16,     /* XRT_ERROR_UNSUPPORTED instead where the backend lacks XRT_CAP_MODULES */
    HAS_MODULES = 32  /* needs a loaded module: not run where the backend lacks XRT_CAP_MODULES */
};

static xrt_backend table_no_name(void) { xrt_backend b = other_table(); b.name = NULL; return b; }
static xrt_backend table_empty_name(void) { xrt_backend b = other_table(); b.name = ""; return b; }
static xrt_backend table_no_init(void) { xrt_backend b = other_table(); b.name = "badinput_noinit"; b.init = NULL; return b; }
static xrt_backend table_abi(void) { xrt_backend b = other_table(); b.name = "badinput_abi"; b.abi_version = 999; return b; }
static xrt_backend table_tiny(void) { xrt_backend b = other_table(); b.name = "badinput_tiny"; b.size = 4; return b; }
static xrt_backend table_huge(void) { xrt_backend b = other_table(); b.name = "badinput_huge"; b.size = sizeof b + 64; return b; }
static xrt_backend table_cpu(void) { xrt_backend b = other_table(); b.name = "cpu"; return b; }
static xrt_backend table_other(void) { return other_table(); }

/* X(id, function named in the detail, expected status, flags, call...). The
   call sees the fixtures as `f`; p, attr, ms and friends are scratch. */
#define BAD_ROWS(X)                                                                                                    \
    /* >> lifecycle and backends */                                                                                    \
    X(version_null, "xrt_runtime_get_version", XRT_ERROR_INVALID_VALUE, 0, xrt_runtime_get_version(NULL))              \
    X(count_null, "xrt_backend_count", XRT_ERROR_INVALID_VALUE, 0, xrt_backend_count(NULL))                           \
    X(info_null, "xrt_backend_get_info", XRT_ERROR_INVALID_VALUE, 0, xrt_backend_get_info(0, NULL))                   \
    X(info_negative, "xrt_backend_get_info", XRT_ERROR_INVALID_VALUE, 0, xrt_backend_get_info(-1, &info))             \
    X(info_int_min, "xrt_backend_get_info", XRT_ERROR_INVALID_VALUE, 0, xrt_backend_get_info(INT_MIN, &info))         \
    X(info_past_end, "xrt_backend_get_info", XRT_ERROR_INVALID_VALUE, 0, xrt_backend_get_info(f->backends, &info)) \
    X(info_int_max, "xrt_backend_get_info", XRT_ERROR_INVALID_VALUE, 0, xrt_backend_get_info(INT_MAX, &info))         \
    X(set_backend_null, "xrt_set_backend", XRT_ERROR_INVALID_VALUE, 0, xrt_set_backend(NULL))                         \
    X(set_backend_empty, "xrt_set_backend", XRT_ERROR_NOT_FOUND, 0, xrt_set_backend(""))                              \
    X(set_backend_unknown, "xrt_set_backend", XRT_ERROR_NOT_FOUND, 0, xrt_set_backend("nosuch"))                      \
    X(get_backend_null, "xrt_get_backend", XRT_ERROR_INVALID_VALUE, 0, xrt_get_backend(NULL))                         \
    X(register_null, "xrt_register_backend", XRT_ERROR_INVALID_VALUE, 0, xrt_register_backend(NULL))                  \
    X(register_no_name, "xrt_register_backend", XRT_ERROR_INVALID_VALUE, 0, (b = table_no_name(), xrt_register_backend(&b))) \
    X(register_empty_name, "xrt_register_backend", XRT_ERROR_INVALID_VALUE, 0,                                         \
      (b = table_empty_name(), xrt_register_backend(&b)))                                                              \
    X(register_no_init, "xrt_register_backend", XRT_ERROR_INVALID_VALUE, 0, (b = table_no_init(), xrt_register_backend(&b))) \
    X(register_abi, "xrt_register_backend", XRT_ERROR_ABI_MISMATCH, 0, (b = table_abi(), xrt_register_backend(&b)))     \
    X(register_tiny, "xrt_register_backend", XRT_ERROR_ABI_MISMATCH, 0, (b = table_tiny(), xrt_register_backend(&b)))   \
    X(register_huge, "xrt_register_backend", XRT_ERROR_ABI_MISMATCH, 0, (b = table_huge(), xrt_register_backend(&b)))   \
    X(register_taken_builtin, "xrt_register_backend", XRT_ERROR_ALREADY_EXISTS, 0, (b = table_cpu(), xrt_register_backend(&b))) \
    X(register_twice, "xrt_register_backend", XRT_ERROR_ALREADY_EXISTS, 0, (b = table_other(), xrt_register_backend(&b))) \
    /* >> devices */                                                                                                   \
    X(caps_null, "xrt_get_capabilities", XRT_ERROR_INVALID_VALUE, 0, xrt_get_capabilities(NULL))                       \
    X(device_count_null, "xrt_get_device_count", XRT_ERROR_INVALID_VALUE, 0, xrt_get_device_count(NULL))              \
    X(set_device_negative, "xrt_set_device", XRT_ERROR_INVALID_DEVICE, 0, xrt_set_device(-1))                         \
    X(set_device_int_min, "xrt_set_device", XRT_ERROR_INVALID_DEVICE, 0, xrt_set_device(INT_MIN))                     \
    X(set_device_past_end, "xrt_set_device", XRT_ERROR_INVALID_DEVICE, 0, xrt_set_device(f->devices))                 \
    X(set_device_int_max, "xrt_set_device", XRT_ERROR_INVALID_DEVICE, 0, xrt_set_device(INT_MAX))                     \
    X(get_device_null, "xrt_get_device", XRT_ERROR_INVALID_VALUE, 0, xrt_get_device(NULL))                            \
    X(props_null, "xrt_get_device_properties", XRT_ERROR_INVALID_VALUE, 0, xrt_get_device_properties(NULL, 0))        \
    X(props_negative, "xrt_get_device_properties", XRT_ERROR_INVALID_DEVICE, 0, xrt_get_device_properties(&prop, -1)) \
    X(props_past_end, "xrt_get_device_properties", XRT_ERROR_INVALID_DEVICE, 0,                                        \
      xrt_get_device_properties(&prop, f->devices))                                                                    \
    /* >> allocation */                                                                                                \
    X(malloc_null, "xrt_malloc", XRT_ERROR_INVALID_VALUE, 0, xrt_malloc(NULL, 64))                                     \
    X(malloc_zero, "xrt_malloc", XRT_ERROR_INVALID_VALUE, 0, xrt_malloc(&p, 0))                                        \
    X(malloc_size_max, "xrt_malloc", XRT_ERROR_OUT_OF_MEMORY, 0, xrt_malloc(&p, SIZE_MAX))                             \
    X(malloc_rounds_over, "xrt_malloc", XRT_ERROR_OUT_OF_MEMORY, 0, xrt_malloc(&p, SIZE_MAX - 100))                   \
    X(malloc_host_null, "xrt_malloc_host", XRT_ERROR_INVALID_VALUE, 0, xrt_malloc_host(NULL, 64))                      \
    X(malloc_host_zero, "xrt_malloc_host", XRT_ERROR_INVALID_VALUE, 0, xrt_malloc_host(&p, 0))                         \
    X(malloc_host_size_max, "xrt_malloc_host", XRT_ERROR_OUT_OF_MEMORY, 0, xrt_malloc_host(&p, SIZE_MAX))              \
    X(malloc_async_null, "xrt_malloc_async", XRT_ERROR_INVALID_VALUE, 0, xrt_malloc_async(NULL, 64, f->s))             \
    X(malloc_async_zero, "xrt_malloc_async", XRT_ERROR_INVALID_VALUE, 0, xrt_malloc_async(&p, 0, f->s))                \
    X(malloc_async_size_max, "xrt_malloc_async", XRT_ERROR_OUT_OF_MEMORY, ASYNC_ALLOC, xrt_malloc_async(&p, SIZE_MAX, NULL)) \
    X(malloc_async_dead_stream, "xrt_malloc_async", XRT_ERROR_INVALID_HANDLE, 0, xrt_malloc_async(&p, 64, f->dead_s))  \
    X(malloc_async_event_as_stream, "xrt_malloc_async", XRT_ERROR_INVALID_HANDLE, 0,                                   \
      xrt_malloc_async(&p, 64, (xrt_stream)f->e))                                                                      \
    X(malloc_async_foreign_stream, "xrt_malloc_async", XRT_ERROR_INVALID_HANDLE, 0, xrt_malloc_async(&p, 64, f->other_s)) \
    X(free_stack, "xrt_free", XRT_ERROR_INVALID_POINTER, 0, xrt_free(&p))                                              \
    X(free_interior, "xrt_free", XRT_ERROR_INVALID_POINTER, 0, xrt_free((char *)f->d + 1))                            \
    X(free_pinned, "xrt_free", XRT_ERROR_INVALID_POINTER, 0, xrt_free(f->pinned))                                     \
    X(free_twice, "xrt_free", XRT_ERROR_INVALID_POINTER, 0, xrt_free(f->freed))                                       \
    X(free_foreign, "xrt_free", XRT_ERROR_INVALID_POINTER, 0, xrt_free(f->other_d))                                   \
    X(free_host_device, "xrt_free_host", XRT_ERROR_INVALID_POINTER, 0, xrt_free_host(f->d))                           \
    X(free_host_stack, "xrt_free_host", XRT_ERROR_INVALID_POINTER, 0, xrt_free_host(h))                               \
    X(free_host_interior, "xrt_free_host", XRT_ERROR_INVALID_POINTER, 0, xrt_free_host((char *)f->pinned + 8))        \
    X(free_async_stack, "xrt_free_async", XRT_ERROR_INVALID_POINTER, 0, xrt_free_async(h, f->s))                      \
    X(free_async_pinned, "xrt_free_async", XRT_ERROR_INVALID_POINTER, 0, xrt_free_async(f->pinned, NULL))             \
    X(free_async_twice, "xrt_free_async", XRT_ERROR_INVALID_POINTER, 0, xrt_free_async(f->freed, f->s))               \
    X(free_async_dead_stream, "xrt_free_async", XRT_ERROR_INVALID_HANDLE, 0, xrt_free_async(f->d, f->dead_s))         \
    X(mem_info_free_null, "xrt_mem_get_info", XRT_ERROR_INVALID_VALUE, 0, xrt_mem_get_info(NULL, &total))              \
    X(mem_info_total_null, "xrt_mem_get_info", XRT_ERROR_INVALID_VALUE, 0, xrt_mem_get_info(&total, NULL))             \
    X(attributes_null, "xrt_pointer_get_attributes", XRT_ERROR_INVALID_VALUE, 0, xrt_pointer_get_attributes(NULL, f->d)) \
    X(export_null_ptr, "xrt_mem_export_dmabuf", XRT_ERROR_INVALID_VALUE, 0, xrt_mem_export_dmabuf(NULL, 64, &fd, &off)) \
    X(export_null_fd, "xrt_mem_export_dmabuf", XRT_ERROR_INVALID_VALUE, 0, xrt_mem_export_dmabuf(f->d, 64, NULL, &off)) \
    X(export_null_offset, "xrt_mem_export_dmabuf", XRT_ERROR_INVALID_VALUE, 0, xrt_mem_export_dmabuf(f->d, 64, &fd, NULL)) \
    X(export_size_zero, "xrt_mem_export_dmabuf", XRT_ERROR_INVALID_VALUE, 0, xrt_mem_export_dmabuf(f->d, 0, &fd, &off)) \
    X(export_host, "xrt_mem_export_dmabuf", XRT_ERROR_INVALID_POINTER, 0, xrt_mem_export_dmabuf(h, 64, &fd, &off))   \
    X(export_pinned, "xrt_mem_export_dmabuf", XRT_ERROR_INVALID_POINTER, 0,                                           \
      xrt_mem_export_dmabuf(f->pinned, 64, &fd, &off))                                                               \
    X(export_foreign, "xrt_mem_export_dmabuf", XRT_ERROR_INVALID_POINTER, 0,                                          \
      xrt_mem_export_dmabuf(f->other_d, 64, &fd, &off))                                                              \
    X(export_overrun, "xrt_mem_export_dmabuf", XRT_ERROR_INVALID_VALUE, 0, xrt_mem_export_dmabuf(f->d, N + 1, &fd, &off)) \
    X(export_wraps, "xrt_mem_export_dmabuf", XRT_ERROR_INVALID_VALUE, 0,                                              \
      xrt_mem_export_dmabuf((char *)f->d + 16, SIZE_MAX - 15, &fd, &off))                                            \
    X(target_null, "xrt_get_target", XRT_ERROR_INVALID_VALUE, 0, xrt_get_target(NULL))                                \
    /* >> modules and kernels */                                                                                       \
    X(module_load_null, "xrt_module_load", XRT_ERROR_INVALID_VALUE, 0, xrt_module_load(NULL, &src_image, 1, NULL))     \
    X(module_load_no_images, "xrt_module_load", XRT_ERROR_INVALID_VALUE, 0, xrt_module_load(&mod, NULL, 1, NULL))      \
    X(module_load_zero_images, "xrt_module_load", XRT_ERROR_INVALID_VALUE, 0, xrt_module_load(&mod, &src_image, 0, NULL)) \
    X(module_load_no_data, "xrt_module_load", XRT_ERROR_INVALID_VALUE, 0, xrt_module_load(&mod, &no_data, 1, NULL))    \
    X(module_load_no_size, "xrt_module_load", XRT_ERROR_INVALID_VALUE, 0, xrt_module_load(&mod, &no_size, 1, NULL))    \
    X(module_load_bad_kind, "xrt_module_load", XRT_ERROR_INVALID_VALUE, 0, xrt_module_load(&mod, &bad_kind, 1, NULL))  \
    X(module_load_no_binary, "xrt_module_load", XRT_ERROR_NO_BINARY_FOR_DEVICE, MODULES,                               \
      xrt_module_load(&mod, &cuda_only, 1, NULL))                                                                      \
    X(module_unload_null, "xrt_module_unload", XRT_ERROR_INVALID_HANDLE, 0, xrt_module_unload(NULL))                   \
    X(module_unload_dead, "xrt_module_unload", XRT_ERROR_INVALID_HANDLE, HAS_MODULES, xrt_module_unload(f->dead_mod))  \
    X(module_unload_stream, "xrt_module_unload", XRT_ERROR_INVALID_HANDLE, 0, xrt_module_unload((xrt_module)f->s))     \
    X(get_function_null, "xrt_module_get_function", XRT_ERROR_INVALID_VALUE, 0, xrt_module_get_function(NULL, f->mod, "k")) \
    X(get_function_null_name, "xrt_module_get_function", XRT_ERROR_INVALID_VALUE, 0,                                  \
      xrt_module_get_function(&fun, f->mod, NULL))                                                                      \
    X(get_function_empty_name, "xrt_module_get_function", XRT_ERROR_INVALID_VALUE, 0, xrt_module_get_function(&fun, f->mod, "")) \
    X(get_function_null_module, "xrt_module_get_function", XRT_ERROR_INVALID_HANDLE, 0,                               \
      xrt_module_get_function(&fun, NULL, "k"))                                                                         \
    X(get_function_dead_module, "xrt_module_get_function", XRT_ERROR_INVALID_HANDLE, HAS_MODULES,                     \
      xrt_module_get_function(&fun, f->dead_mod, "k"))                                                                  \
    X(get_function_missing, "xrt_module_get_function", XRT_ERROR_NOT_FOUND, HAS_MODULES,                             \
      xrt_module_get_function(&fun, f->mod, "no_such_kernel"))                                                          \
    X(launch_null_function, "xrt_launch_kernel", XRT_ERROR_INVALID_HANDLE, 0, xrt_launch_kernel(NULL, one, one, 0, f->s, NULL, 0)) \
    X(launch_dead_function, "xrt_launch_kernel", XRT_ERROR_INVALID_HANDLE, HAS_MODULES,                               \
      xrt_launch_kernel(f->dead_fn, one, one, 0, f->s, NULL, 0))                                                       \
    X(launch_stream_as_function, "xrt_launch_kernel", XRT_ERROR_INVALID_HANDLE, 0,                                    \
      xrt_launch_kernel((xrt_function)f->s, one, one, 0, f->s, NULL, 0))                                               \
    X(launch_dead_stream, "xrt_launch_kernel", XRT_ERROR_INVALID_HANDLE, HAS_MODULES,                                 \
      xrt_launch_kernel(f->fn, one, one, 0, f->dead_s, NULL, 0))                                                       \
    X(launch_grid_zero, "xrt_launch_kernel", XRT_ERROR_INVALID_VALUE, HAS_MODULES,                                    \
      xrt_launch_kernel(f->fn, zero_x, one, 0, f->s, NULL, 0))                                                         \
    X(launch_block_zero, "xrt_launch_kernel", XRT_ERROR_INVALID_VALUE, HAS_MODULES,                                   \
      xrt_launch_kernel(f->fn, one, zero_z, 0, f->s, NULL, 0))                                                         \
    X(launch_block_huge, "xrt_launch_kernel", XRT_ERROR_INVALID_VALUE, HAS_MODULES,                                   \
      xrt_launch_kernel(f->fn, one, huge_block, 0, f->s, NULL, 0))                                                     \
    X(launch_shared_huge, "xrt_launch_kernel", XRT_ERROR_INVALID_VALUE, HAS_MODULES,                                  \
      xrt_launch_kernel(f->fn, one, one, SIZE_MAX, f->s, NULL, 0))                                                     \
    X(launch_args_null, "xrt_launch_kernel", XRT_ERROR_INVALID_VALUE, HAS_MODULES,                                    \
      xrt_launch_kernel(f->fn, one, one, 0, f->s, NULL, 16))                                                           \
    X(launch_args_huge, "xrt_launch_kernel", XRT_ERROR_INVALID_VALUE, HAS_MODULES,                                    \
      xrt_launch_kernel(f->fn, one, one, 0, f->s, big_args, sizeof big_args))                                          \
    X(fattr_null, "xrt_function_get_attributes", XRT_ERROR_INVALID_VALUE, 0, xrt_function_get_attributes(NULL, f->fn)) \
    X(fattr_null_function, "xrt_function_get_attributes", XRT_ERROR_INVALID_HANDLE, 0,                           \
      xrt_function_get_attributes(&fattr, NULL))                                                                       \
    X(fattr_dead_function, "xrt_function_get_attributes", XRT_ERROR_INVALID_HANDLE, HAS_MODULES,                 \
      xrt_function_get_attributes(&fattr, f->dead_fn))                                                                 \
    X(cache_stats_null, "xrt_cache_get_stats", XRT_ERROR_INVALID_VALUE, 0, xrt_cache_get_stats(NULL))                  \
    /* >> memset */                                                                                                    \
    X(memset_null, "xrt_memset", XRT_ERROR_INVALID_VALUE, 0, xrt_memset(NULL, 0, 64))                                  \
    X(memset_host, "xrt_memset", XRT_ERROR_INVALID_POINTER, 0, xrt_memset(h, 0, 64))                                   \
    X(memset_overrun, "xrt_memset", XRT_ERROR_INVALID_VALUE, 0, xrt_memset(f->d, 0, N + 1))                           \
    X(memset_overrun_inside, "xrt_memset", XRT_ERROR_INVALID_VALUE, 0, xrt_memset((char *)f->d + N - 1, 0, 2))        \
    X(memset_foreign, "xrt_memset", XRT_ERROR_INVALID_POINTER, 0, xrt_memset(f->other_d, 0, 64))                      \
    X(memset_wraps, "xrt_memset", XRT_ERROR_INVALID_VALUE, CHILD, xrt_memset((char *)f->d + 16, 0, SIZE_MAX - 15))    \
    X(memset_size_max, "xrt_memset", XRT_ERROR_INVALID_VALUE, CHILD, xrt_memset((char *)f->d + 1, 0, SIZE_MAX))       \
    X(memset_async_null, "xrt_memset_async", XRT_ERROR_INVALID_VALUE, 0, xrt_memset_async(NULL, 0, 64, f->s))         \
    X(memset_async_host, "xrt_memset_async", XRT_ERROR_INVALID_POINTER, 0, xrt_memset_async(h, 0, 64, f->s))          \
    X(memset_async_overrun, "xrt_memset_async", XRT_ERROR_INVALID_VALUE, 0, xrt_memset_async(f->d, 0, N + 1, NULL))   \
    X(memset_async_dead_stream, "xrt_memset_async", XRT_ERROR_INVALID_HANDLE, 0, xrt_memset_async(f->d, 0, 64, f->dead_s)) \
    X(memset_async_wraps, "xrt_memset_async", XRT_ERROR_INVALID_VALUE, CHILD,                                          \
      xrt_memset_async((char *)f->d + 4095, 0, SIZE_MAX - 4094, f->s))                                                 \
    /* >> memcpy */                                                                                                    \
    X(memcpy_kind_5, "xrt_memcpy", XRT_ERROR_INVALID_MEMCPY_KIND, 0, xrt_memcpy(f->d, h, 64, (xrt_memcpy_kind)5))      \
    X(memcpy_kind_negative, "xrt_memcpy", XRT_ERROR_INVALID_MEMCPY_KIND, 0, xrt_memcpy(f->d, h, 64, (xrt_memcpy_kind)-1)) \
    X(memcpy_dst_null, "xrt_memcpy", XRT_ERROR_INVALID_VALUE, 0, xrt_memcpy(NULL, h, 64, XRT_MEMCPY_DEFAULT))          \
    X(memcpy_src_null, "xrt_memcpy", XRT_ERROR_INVALID_VALUE, 0, xrt_memcpy(h, NULL, 64, XRT_MEMCPY_DEFAULT))          \
    X(memcpy_src_overrun, "xrt_memcpy", XRT_ERROR_INVALID_VALUE, 0, xrt_memcpy(h, f->d, N + 1, XRT_MEMCPY_DEVICE_TO_HOST)) \
    X(memcpy_dst_overrun, "xrt_memcpy", XRT_ERROR_INVALID_VALUE, 0,                                                    \
      xrt_memcpy((char *)f->d + 1, h, N, XRT_MEMCPY_HOST_TO_DEVICE))                                                   \
    X(memcpy_d2d_overrun, "xrt_memcpy", XRT_ERROR_INVALID_VALUE, 0,                                                    \
      xrt_memcpy(f->d, (char *)f->d2 + 64, N, XRT_MEMCPY_DEVICE_TO_DEVICE))                                            \
    X(memcpy_pinned_overrun, "xrt_memcpy", XRT_ERROR_INVALID_VALUE, 0,                                                 \
      xrt_memcpy(f->pinned, f->d, N + 1, XRT_MEMCPY_DEVICE_TO_HOST))                                                   \
    X(memcpy_kind_dst_not_host, "xrt_memcpy", XRT_ERROR_INVALID_MEMCPY_KIND, 0,                                        \
      xrt_memcpy(f->d, h, 64, XRT_MEMCPY_HOST_TO_HOST))                                                                \
    X(memcpy_kind_dst_not_device, "xrt_memcpy", XRT_ERROR_INVALID_MEMCPY_KIND, 0,                                      \
      xrt_memcpy(h, h2, 64, XRT_MEMCPY_HOST_TO_DEVICE))                                                                \
    X(memcpy_kind_src_not_device, "xrt_memcpy", XRT_ERROR_INVALID_MEMCPY_KIND, 0,                                      \
      xrt_memcpy(h, h2, 64, XRT_MEMCPY_DEVICE_TO_HOST))                                                                \
    X(memcpy_kind_src_not_host, "xrt_memcpy", XRT_ERROR_INVALID_MEMCPY_KIND, 0,                                        \
      xrt_memcpy(f->d2, f->d, 64, XRT_MEMCPY_HOST_TO_DEVICE))                                                          \
    X(memcpy_foreign, "xrt_memcpy", XRT_ERROR_INVALID_POINTER, 0, xrt_memcpy(h, f->other_d, 64, XRT_MEMCPY_DEFAULT))   \
    X(memcpy_h2d_wraps, "xrt_memcpy", XRT_ERROR_INVALID_VALUE, CHILD,                                                  \
      xrt_memcpy((char *)f->d + 16, h, SIZE_MAX - 15, XRT_MEMCPY_HOST_TO_DEVICE))                                      \
    X(memcpy_d2h_wraps, "xrt_memcpy", XRT_ERROR_INVALID_VALUE, CHILD,                                                  \
      xrt_memcpy(h, (char *)f->d + 16, SIZE_MAX - 15, XRT_MEMCPY_DEVICE_TO_HOST))                                      \
    X(memcpy_d2d_wraps, "xrt_memcpy", XRT_ERROR_INVALID_VALUE, CHILD,                                                  \
      xrt_memcpy((char *)f->d + 16, f->d2, SIZE_MAX - 15, XRT_MEMCPY_DEVICE_TO_DEVICE))                                \
    X(memcpy_default_wraps, "xrt_memcpy", XRT_ERROR_INVALID_VALUE, CHILD,                                              \
      xrt_memcpy((char *)f->pinned + 4095, h, SIZE_MAX - 4094, XRT_MEMCPY_DEFAULT))                                    \
    X(memcpy_async_dead_stream, "xrt_memcpy_async", XRT_ERROR_INVALID_HANDLE, 0,                                       \
      xrt_memcpy_async(f->d, h, 64, XRT_MEMCPY_HOST_TO_DEVICE, f->dead_s))                                            \
    X(memcpy_async_kind_7, "xrt_memcpy_async", XRT_ERROR_INVALID_MEMCPY_KIND, 0,                                       \
      xrt_memcpy_async(f->d, h, 64, (xrt_memcpy_kind)7, f->s))                                                         \
    X(memcpy_async_overrun, "xrt_memcpy_async", XRT_ERROR_INVALID_VALUE, 0,                                            \
      xrt_memcpy_async(f->d2, f->d, N + 256, XRT_MEMCPY_DEVICE_TO_DEVICE, f->s))                                       \
    X(memcpy_async_kind_mismatch, "xrt_memcpy_async", XRT_ERROR_INVALID_MEMCPY_KIND, 0,                                \
      xrt_memcpy_async(h, f->d, 64, XRT_MEMCPY_HOST_TO_DEVICE, f->s))                                                  \
    X(memcpy_async_h2d_wraps, "xrt_memcpy_async", XRT_ERROR_INVALID_VALUE, CHILD,                                      \
      xrt_memcpy_async((char *)f->d + 4095, h, SIZE_MAX - 4094, XRT_MEMCPY_HOST_TO_DEVICE, f->s))                      \
    X(memcpy_async_d2h_wraps, "xrt_memcpy_async", XRT_ERROR_INVALID_VALUE, CHILD,                                      \
      xrt_memcpy_async(h, (char *)f->d + 4095, SIZE_MAX - 4094, XRT_MEMCPY_DEVICE_TO_HOST, f->s))                      \
    /* >> streams */                                                                                                   \
    X(stream_create_null, "xrt_stream_create", XRT_ERROR_INVALID_VALUE, 0, xrt_stream_create(NULL))                    \
    X(stream_destroy_null, "xrt_stream_destroy", XRT_ERROR_INVALID_HANDLE, 0, xrt_stream_destroy(NULL))                \
    X(stream_destroy_dead, "xrt_stream_destroy", XRT_ERROR_INVALID_HANDLE, 0, xrt_stream_destroy(f->dead_s))           \
    X(stream_destroy_event, "xrt_stream_destroy", XRT_ERROR_INVALID_HANDLE, 0, xrt_stream_destroy((xrt_stream)f->e))  \
    X(stream_destroy_garbage, "xrt_stream_destroy", XRT_ERROR_INVALID_HANDLE, 0,                                       \
      xrt_stream_destroy((xrt_stream)(uintptr_t)0x12345))                                                              \
    X(stream_destroy_all_ones, "xrt_stream_destroy", XRT_ERROR_INVALID_HANDLE, 0, xrt_stream_destroy((xrt_stream)(uintptr_t)-1)) \
    X(stream_destroy_foreign, "xrt_stream_destroy", XRT_ERROR_INVALID_HANDLE, 0, xrt_stream_destroy(f->other_s))       \
    X(stream_sync_dead, "xrt_stream_synchronize", XRT_ERROR_INVALID_HANDLE, 0, xrt_stream_synchronize(f->dead_s))     \
    X(stream_sync_event, "xrt_stream_synchronize", XRT_ERROR_INVALID_HANDLE, 0, xrt_stream_synchronize((xrt_stream)f->e)) \
    X(stream_query_dead, "xrt_stream_query", XRT_ERROR_INVALID_HANDLE, 0, xrt_stream_query(f->dead_s))                \
    X(stream_query_foreign, "xrt_stream_query", XRT_ERROR_INVALID_HANDLE, 0, xrt_stream_query(f->other_s))            \
    X(wait_event_null_event, "xrt_stream_wait_event", XRT_ERROR_INVALID_HANDLE, 0, xrt_stream_wait_event(f->s, NULL)) \
    X(wait_event_dead_event, "xrt_stream_wait_event", XRT_ERROR_INVALID_HANDLE, 0, xrt_stream_wait_event(f->s, f->dead_e)) \
    X(wait_event_dead_stream, "xrt_stream_wait_event", XRT_ERROR_INVALID_HANDLE, 0, xrt_stream_wait_event(f->dead_s, f->e)) \
    X(wait_event_foreign_event, "xrt_stream_wait_event", XRT_ERROR_INVALID_HANDLE, 0,                                  \
      xrt_stream_wait_event(NULL, f->other_e))                                                                         \
    X(host_func_null, "xrt_launch_host_func", XRT_ERROR_INVALID_VALUE, 0, xrt_launch_host_func(f->s, NULL, NULL))      \
    X(host_func_dead_stream, "xrt_launch_host_func", XRT_ERROR_INVALID_HANDLE, 0, xrt_launch_host_func(f->dead_s, nop, NULL)) \
    /* >> events */                                                                                                    \
    X(event_create_null, "xrt_event_create", XRT_ERROR_INVALID_VALUE, 0, xrt_event_create(NULL, 0))                    \
    X(event_create_flag_4, "xrt_event_create", XRT_ERROR_INVALID_VALUE, 0, xrt_event_create(&ev, 4))                   \
    X(event_create_flag_high, "xrt_event_create", XRT_ERROR_INVALID_VALUE, 0, xrt_event_create(&ev, 0x80000000u))      \
    X(event_destroy_null, "xrt_event_destroy", XRT_ERROR_INVALID_HANDLE, 0, xrt_event_destroy(NULL))                   \
    X(event_destroy_dead, "xrt_event_destroy", XRT_ERROR_INVALID_HANDLE, 0, xrt_event_destroy(f->dead_e))              \
    X(event_destroy_stream, "xrt_event_destroy", XRT_ERROR_INVALID_HANDLE, 0, xrt_event_destroy((xrt_event)f->s))     \
    X(event_destroy_foreign, "xrt_event_destroy", XRT_ERROR_INVALID_HANDLE, 0, xrt_event_destroy(f->other_e))          \
    X(event_record_null, "xrt_event_record", XRT_ERROR_INVALID_HANDLE, 0, xrt_event_record(NULL, f->s))                \
    X(event_record_dead, "xrt_event_record", XRT_ERROR_INVALID_HANDLE, 0, xrt_event_record(f->dead_e, NULL))           \
    X(event_record_dead_stream, "xrt_event_record", XRT_ERROR_INVALID_HANDLE, 0, xrt_event_record(f->e, f->dead_s))    \
    X(event_query_null, "xrt_event_query", XRT_ERROR_INVALID_HANDLE, 0, xrt_event_query(NULL))                         \
    X(event_query_dead, "xrt_event_query", XRT_ERROR_INVALID_HANDLE, 0, xrt_event_query(f->dead_e))                    \
    X(event_query_stream, "xrt_event_query", XRT_ERROR_INVALID_HANDLE, 0, xrt_event_query((xrt_event)f->s))           \
    X(event_sync_null, "xrt_event_synchronize", XRT_ERROR_INVALID_HANDLE, 0, xrt_event_synchronize(NULL))              \
    X(event_sync_dead, "xrt_event_synchronize", XRT_ERROR_INVALID_HANDLE, 0, xrt_event_synchronize(f->dead_e))         \
    X(elapsed_null, "xrt_event_elapsed_time", XRT_ERROR_INVALID_VALUE, 0, xrt_event_elapsed_time(NULL, f->e, f->e))    \
    X(elapsed_null_start, "xrt_event_elapsed_time", XRT_ERROR_INVALID_HANDLE, 0, xrt_event_elapsed_time(&ms, NULL, f->e)) \
    X(elapsed_dead_end, "xrt_event_elapsed_time", XRT_ERROR_INVALID_HANDLE, 0, xrt_event_elapsed_time(&ms, f->e, f->dead_e)) \
    /* as cudaEventElapsedTime: cudaErrorInvalidResourceHandle for these two */                                         \
    X(elapsed_never_recorded, "xrt_event_elapsed_time", XRT_ERROR_INVALID_HANDLE, 0,                                   \
      xrt_event_elapsed_time(&ms, f->never, f->e))                                                                     \
    X(elapsed_no_timing, "xrt_event_elapsed_time", XRT_ERROR_INVALID_HANDLE, 0,                                        \
      xrt_event_elapsed_time(&ms, f->e, f->notiming))                                                                  \
    /* >> native handles */                                                                                            \
    X(stream_native_null, "xrt_stream_get_native", XRT_ERROR_INVALID_VALUE, 0, xrt_stream_get_native(f->s, NULL))      \
    X(stream_native_dead, "xrt_stream_get_native", XRT_ERROR_INVALID_HANDLE, 0, xrt_stream_get_native(f->dead_s, &p))  \
    X(event_native_null, "xrt_event_get_native", XRT_ERROR_INVALID_VALUE, 0, xrt_event_get_native(f->e, NULL))         \
    X(event_native_dead, "xrt_event_get_native", XRT_ERROR_INVALID_HANDLE, 0, xrt_event_get_native(f->dead_e, &p))     \
    X(wrap_native_null_out, "xrt_stream_wrap_native", XRT_ERROR_INVALID_VALUE, 0, xrt_stream_wrap_native(NULL, h))     \
    X(wrap_native_null, "xrt_stream_wrap_native", XRT_ERROR_INVALID_VALUE, 0, xrt_stream_wrap_native(&ws, NULL))       \
    /* the CPU backend has no native handles: a capability, not a CUDA difference */                                   \
    X(stream_native_unsupported, "xrt_stream_get_native", XRT_ERROR_UNSUPPORTED, IF_NO_NATIVE, xrt_stream_get_native(f->s, &p)) \
    X(event_native_unsupported, "xrt_event_get_native", XRT_ERROR_UNSUPPORTED, IF_NO_NATIVE, xrt_event_get_native(f->e, &p)) \
    X(wrap_native_unsupported, "xrt_stream_wrap_native", XRT_ERROR_UNSUPPORTED, IF_NO_NATIVE, xrt_stream_wrap_native(&ws, h))

/* One function per row; the scratch variables are the rows' out-parameters. */
#define BAD_ROW_FN(id, fn, status, flags, ...)                                                                         \
    static xrt_status row_##id(fixtures *f)                                                                            \
    {                                                                                                                  \
        void *p = NULL;                                                                                                \
        size_t total = 0;                                                                                              \
        int fd = -1;                                                                                                   \
        uint64_t off = 0;                                                                                              \
        float ms = 0;                                                                                                  \
        xrt_event ev = NULL;                                                                                           \
        xrt_stream ws = NULL;                                                                                          \
        xrt_backend_info info;                                                                                         \
        xrt_device_prop prop;                                                                                          \
        xrt_backend b;                                                                                                 \
        xrt_module mod = NULL;                                                                                         \
        xrt_function fun = NULL;                                                                                       \
        xrt_function_attributes fattr;                                                                                 \
        xrt_status st;                                                                                                 \
        (void)mod, (void)fun, (void)fattr;                                                                              \
        (void)f, (void)p, (void)total, (void)fd, (void)off, (void)ms, (void)ev, (void)ws, (void)info, (void)prop, (void)b;                 \
        memset(&b, 0, sizeof b);                                                                                       \
        st = (__VA_ARGS__);                                                                                            \
        if (st == XRT_SUCCESS) { /* a row that wrongly succeeds must not leak */                                       \
            xrt_status keep = st;                                                                                      \
            if (ev) xrt_event_destroy(ev);                                                                             \
            if (ws) xrt_stream_destroy(ws);                                                                            \
            if (mod) xrt_module_unload(mod);                                                                           \
            st = keep;                                                                                                 \
        }                                                                                                              \
        return st;                                                                                                     \
    }
BAD_ROWS(BAD_ROW_FN)
#undef BAD_ROW_FN

typedef struct bad_row {
    const char *id, *fn, *call;
    xrt_status status;
    unsigned flags;
    xrt_status (*run)(fixtures *f);
} bad_row;

#define BAD_ROW_ENTRY(id, fn, status, flags, ...) {#id, fn, #__VA_ARGS__, status, flags, row_##id},
static const bad_row rows[] = {BAD_ROWS(BAD_ROW_ENTRY)};
#undef BAD_ROW_ENTRY

/* The status a row expects on this backend, or XRT_STATUS_COUNT if the row
   is not a bad input here. */
static xrt_status expected(const bad_row *r, unsigned caps)
{
    if ((r->flags & IF_NO_NATIVE) && (caps & XRT_CAP_NATIVE_HANDLES)) return XRT_STATUS_COUNT;
    if ((r->flags & IF_NATIVE) && !(caps & XRT_CAP_NATIVE_HANDLES)) return XRT_STATUS_COUNT;
    if ((r->flags & ASYNC_ALLOC) && !(caps & XRT_CAP_MALLOC_ASYNC)) return XRT_ERROR_UNSUPPORTED;
    if ((r->flags & HAS_MODULES) && !(caps & XRT_CAP_MODULES)) return XRT_STATUS_COUNT;
    if ((r->flags & MODULES) && !(caps & XRT_CAP_MODULES)) return XRT_ERROR_UNSUPPORTED;
    return r->status;
}

/* Runs one row and checks it; returns 0, or 1 with the reason in why. */
static int check_row(const bad_row *r, fixtures *f, char *why, size_t n)
{
    xrt_status want = expected(r, f->caps), st;
    int logs;
    xrt_get_last_error();
    logs = xrt_test_log.count;
    st = r->run(f);
    if (st != want) {
        if (st == XRT_SUCCESS) snprintf(why, n, "returned success, expected %s", xrt_status_string(want));
        else snprintf(why, n, "returned %s (\"%s\"), expected %s", xrt_status_string(st), xrt_get_last_error_string(),
                      xrt_status_string(want));
        return 1;
    }
    if (!strstr(xrt_get_last_error_string(), r->fn)) {
        snprintf(why, n, "the detail \"%s\" does not name %s", xrt_get_last_error_string(), r->fn);
        return 1;
    }
    if (xrt_peek_at_last_error() != want) {
        snprintf(why, n, "the last error is %s, not %s", xrt_status_string(xrt_peek_at_last_error()),
                 xrt_status_string(want));
        return 1;
    }
    if (xrt_test_log.count <= logs || xrt_test_log.level != XRT_LOG_ERROR || !strstr(xrt_test_log.last, r->fn)) {
        snprintf(why, n, "no error log line naming %s (last: \"%.300s\")", r->fn, xrt_test_log.last);
        return 1;
    }
    return 0;
}

/* A CHILD row: fresh xrt, its own fixtures, the same checks. */
static const bad_row *child_row;
static const char *child_backend;

static int row_in_child(void *arg)
{
    fixtures f;
    char why[1024];
    int line;
    (void)arg;
    xrt_test_log_capture();
    if ((line = fixtures_make(&f, child_backend)) != 0) CHILD_FAIL("fixtures: line %d: %s", line, xrt_get_last_error_string());
    if (check_row(child_row, &f, why, sizeof why)) CHILD_FAIL("%s", why);
    /* the memory next to the rejected range is untouched */
    memset(h2, 0, 64);
    xrt_device_synchronize();
    if (xrt_memcpy(h2, f.d, 64, XRT_MEMCPY_DEVICE_TO_HOST) != XRT_SUCCESS) CHILD_FAIL("copy back: %s", xrt_get_last_error_string());
    if (h2[0] != 0x5a || h2[63] != 0x5a) CHILD_FAIL("the allocation was written: 0x%02x", h2[0]);
    fixtures_free(&f, child_backend);
    xrt_shutdown();
    return 0;
}

/* In-process rows first, on one set of fixtures; then the CHILD rows, each in
   a child on a fresh xrt (run_child shuts the parent's xrt down). */
static void test_bad_input_table(void **state)
{
    size_t i, count = sizeof rows / sizeof rows[0];
    int failed = 0, ran = 0, line, pass;
    char why[1024];
    (void)state;
    assert_true(count >= 60);
    line = fixtures_make(&fx, xrt_test_backend);
    if (line) fail_msg("fixtures: line %d: %s", line, xrt_get_last_error_string());
    for (pass = 0; pass < 2; pass++) {
        for (i = 0; i < count; i++) {
            const bad_row *r = &rows[i];
            int bad;
            if (expected(r, fx.caps) == XRT_STATUS_COUNT || !(r->flags & CHILD) != !pass) continue;
            ran++;
            if (pass) {
                child_row = r;
                child_backend = xrt_test_backend;
                bad = run_child(row_in_child, NULL, 10, why, sizeof why);
            } else {
                bad = check_row(r, &fx, why, sizeof why);
            }
            if (bad) {
                failed++;
                print_error("row %s: %s: %s\n", r->id, r->call, why);
            }
        }
        if (!pass) fixtures_free(&fx, xrt_test_backend);
    }
    print_message("%d rows on %s, %d failed\n", ran, xrt_test_backend, failed);
    if (failed) fail_msg("%d of %d bad-input rows failed on %s (listed above)", failed, ran, xrt_test_backend);
}

/* >> every operation of XRT__BACKEND_OPS has a row above, or says here why
   it takes no bad input; a new operation without either fails, named. */
static const char *const no_bad_input[] = {
    "xrt_device_synchronize", /* takes no argument */
};

static void test_every_operation_has_a_row(void **state)
{
#define OP_NAME(op, params) "xrt_" #op,
    static const char *const ops[] = {XRT__BACKEND_OPS(OP_NAME)};
#undef OP_NAME
    size_t i, j;
    int missing = 0;
    (void)state;
    for (i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        int found = 0;
        for (j = 0; j < sizeof rows / sizeof rows[0] && !found; j++) found = strcmp(rows[j].fn, ops[i]) == 0;
        for (j = 0; j < sizeof no_bad_input / sizeof no_bad_input[0] && !found; j++)
            found = strcmp(no_bad_input[j], ops[i]) == 0;
        if (!found) {
            missing++;
            print_error("operation %s has no row in BAD_ROWS of tests/test_badinput.c\n", ops[i]);
        }
    }
    if (missing) fail_msg("%d operations of XRT__BACKEND_OPS have no bad-input row (listed above)", missing);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_input_table),
        cmocka_unit_test(test_every_operation_has_a_row),
    };
    char dir[] = "/tmp/xrt-badinput-XXXXXX", cmd[64];
    int failed;
    /* the fixtures' module is built once into a private cache, not the user's */
    if (!getenv("XRT_TEST_CHILD")) {
        if (!mkdtemp(dir)) return 1;
        setenv("XRT_CACHE_DIR", dir, 1);
    }
    failed = xrt_test_run_on_backends("bad input", tests, sizeof tests / sizeof tests[0], NULL);
    if (!getenv("XRT_TEST_CHILD")) { /* a re-executed child leaves the directory to its parent */
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
    }
    return failed;
}
