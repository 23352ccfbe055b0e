/* SPDX-License-Identifier: MIT */
/* The CUDA and HIP backends. Most of it runs everywhere: how an absent
   driver, device or library is reported, how the program falls back to the
   CPU, how native errors read and map, and (with a fake runtime in place of
   the real one) the host-function trampoline, the dma-buf export and the
   HIP 5 / ROCm 6 struct layouts. What needs a GPU runs on every GPU backend
   that is available and says "skipped: <reason>" otherwise; the shared
   runtime suite (test_suite.c) covers the common behaviour there. */
#define XRT_IMPL /* white-box: the GPU backends' code on fake runtimes */
#include "xrt_test.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#if !defined(XRT_ENABLE_CUDA) && !defined(XRT_ENABLE_HIP)
/* A build with neither GPU backend (no CUDA Toolkit, no HIP headers): one
   test that says so, which tests/run.sh counts as skipped. */
static void test_gpu_backends(void **state)
{
    (void)state;
    SKIP_UNLESS(0, "neither XRT_ENABLE_CUDA nor XRT_ENABLE_HIP in this build");
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_gpu_backends)};
    return xrt_test_run_group("gpu", tests, NULL);
}
#else

/* >> helpers */
static const char *const gpu_names[] = {
#ifdef XRT_ENABLE_CUDA
    "cuda",
#endif
#ifdef XRT_ENABLE_HIP
    "hip",
#endif
    NULL};

static int available(const char *name)
{
    xrt_backend_info info;
    return backend_index(name, &info) >= 0 && info.available;
}

#if defined(XRT_ENABLE_CUDA) || defined(XRT_ENABLE_HIP)
/* The first of `names` that loads, or NULL. NODELETE: unmapping a vendor
   runtime orphans what its constructors allocated (LeakSanitizer reports
   it), as xrt's own loader knows. */
static const char *loadable(const char *const *names)
{
    for (; *names; names++) {
        void *h = dlopen(*names, RTLD_LAZY | RTLD_LOCAL | RTLD_NODELETE);
        if (h) {
            dlclose(h);
            return *names;
        }
    }
    return NULL;
}

static int can_load(const char *const *names) { return loadable(names) != NULL; }
#endif
#ifdef XRT_ENABLE_CUDA
static const char *const cudart_names[] = {"libcudart.so.13", "libcudart.so.12", "libcudart.so", NULL};
static const char *const cuda_driver_names[] = {"libcuda.so.1", NULL};
#endif
#ifdef XRT_ENABLE_HIP
static int kfd_present(void) { return access("/dev/kfd", F_OK) == 0; }
static const char *const hip_names[] = {"libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so", NULL};
#endif

#if defined(XRT_ENABLE_CUDA) || defined(XRT_ENABLE_HIP)
/* A GPU backend's table as the registry gets it, and its data (self->user). */
static xrt__gpu *gpu_table(const char *name, xrt_backend *table)
{
    assert_true(xrt__builtin_table(name, table));
    assert_non_null(table->user);
    return (xrt__gpu *)table->user;
}
#endif

/* Environment of the run, restored after every test that changes it. */
static const char *const env_names[] = {"XRT_BACKEND", "XRT_CUDA_LIBRARY", "XRT_HIP_LIBRARY", "XRT_LOG",
                                        "XRT_CUDA_DRIVER_LIBRARY"};
#define ENV_COUNT (sizeof env_names / sizeof env_names[0])
static char *env_saved[ENV_COUNT];

static void env_save(void)
{
    size_t i;
    for (i = 0; i < ENV_COUNT; i++) {
        const char *v = getenv(env_names[i]);
        env_saved[i] = v ? strdup(v) : NULL;
    }
}

static int env_restore(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < ENV_COUNT; i++) {
        if (env_saved[i]) setenv(env_names[i], env_saved[i], 1);
        else unsetenv(env_names[i]);
    }
    xrt_shutdown();
    xrt_set_log_level(XRT_LOG_WARN);
    xrt_test_log_capture();
    return 0;
}

/* Every log line, for tests that look at more than the last one. */
static struct { char text[4096]; int errors; } logs;

static void log_all(xrt_log_level level, const char *msg, void *user)
{
    size_t used = strlen(logs.text);
    (void)user;
    if (level <= XRT_LOG_WARN) logs.errors++;
    snprintf(logs.text + used, sizeof logs.text - used, "%d %s\n", (int)level, msg);
}

/* >> reporting an absent GPU (runs everywhere) */

/* Each GPU backend is listed; when unavailable, the reason says why exactly. */
static void test_listing(void **state)
{
    xrt_backend_info info;
    (void)state;
#ifdef XRT_ENABLE_CUDA
    assert_true(backend_index("cuda", &info) >= 0);
    assert_int_equal(info.abi_version, XRT_BACKEND_ABI_VERSION);
    if (info.available) {
        assert_string_equal(info.reason, "");
    } else if (!can_load(cudart_names)) {
        assert_non_null(strstr(info.reason, "cannot load libcudart.so.13 (set XRT_CUDA_LIBRARY)"));
    } else if (!can_load(cuda_driver_names)) { /* not cudart's "driver version is insufficient" */
        assert_string_equal(info.reason, "no NVIDIA driver: libcuda.so.1 not found");
    } else {
        assert_non_null(strstr(info.reason, "cudaGetDeviceCount: "));
    }
    if (can_load(cudart_names)) { /* the runtime that was loaded, and its version */
        assert_non_null(strstr(info.library, "libcudart.so"));
        assert_true(info.library[0] == '/');
        assert_true(info.runtime_version >= 12000);
        if (!can_load(cuda_driver_names)) assert_int_equal(info.driver_version, 0);
        else assert_true(info.driver_version >= 12000);
    }
    print_message("cuda: %s\n", info.available ? "available" : info.reason);
#endif
#ifdef XRT_ENABLE_HIP
    assert_true(backend_index("hip", &info) >= 0);
    if (!kfd_present()) {
        size_t i;
        assert_false(info.available);
        assert_string_equal(info.reason, "no /dev/kfd: no AMD GPU driver");
        for (i = 0; i < 3; i++) /* not even loaded: that costs ~15 ms */
            assert_null(dlopen(hip_names[i], RTLD_LAZY | RTLD_NOLOAD));
    }
    print_message("hip: %s\n", info.available ? "available" : info.reason);
#endif
    (void)info;
}

/* An absent GPU is logged by the registry at info level, and nothing else:
   a program without a GPU prints nothing. */
static void test_absent_is_quiet(void **state)
{
    const char *const *g;
    int n = 0, i;
    xrt_backend_info info;
    (void)state;
    unsetenv("XRT_LOG");
    memset(&logs, 0, sizeof logs);
    xrt_set_log_callback(log_all, NULL);
    xrt_set_log_level(XRT_LOG_DEBUG);
    xrt_shutdown();
    xrt_init();
    OK(xrt_backend_count(&n));
    for (i = 0; i < n; i++) OK(xrt_backend_get_info(i, &info));
    for (g = gpu_names; *g; g++) {
        char line[300];
        if (available(*g) || backend_index(*g, &info) < 0) continue;
        snprintf(line, sizeof line, "%d %s: unavailable: %s\n", (int)XRT_LOG_INFO, *g, info.reason);
        assert_non_null(strstr(logs.text, line));
    }
    assert_int_equal(logs.errors, 0);
}

/* XRT_LOG=debug names the file of each runtime loaded and its versions. */
static void test_debug_names_runtime(void **state)
{
    xrt_backend_info info;
    (void)state;
#ifdef XRT_ENABLE_CUDA
    SKIP_UNLESS(can_load(cudart_names), "libcudart is not installed");
    unsetenv("XRT_LOG");
    memset(&logs, 0, sizeof logs);
    xrt_set_log_callback(log_all, NULL);
    xrt_set_log_level(XRT_LOG_DEBUG);
    xrt_shutdown();
    xrt_init();
    assert_true(backend_index("cuda", &info) >= 0);
    {
        char line[400];
        const char *env = getenv("XRT_CUDA_LIBRARY"); /* the suite's run with a runtime double sets it */
        snprintf(line, sizeof line, "%d loaded %s: %s (XRT_CUDA_LIBRARY chooses another)\n", (int)XRT_LOG_DEBUG,
                 env && *env ? env : loadable(cudart_names), info.library);
        assert_non_null(strstr(logs.text, line));
        snprintf(line, sizeof line, "%d cuda: runtime version %d in %s; driver version %d", (int)XRT_LOG_DEBUG,
                 info.runtime_version, info.library, info.driver_version);
        assert_non_null(strstr(logs.text, line));
    }
#else
    (void)info;
    SKIP_UNLESS(0, "cuda: not enabled in this build");
#endif
}

/* XRT_BACKEND=<gpu> without that GPU: xrt_init fails with the reason, and
   every call then reports it. */
static void test_env_backend_gpu(void **state)
{
    const char *const *g;
    (void)state;
    for (g = gpu_names; *g; g++) {
        xrt_backend_info info;
        xrt_status st = reinit("XRT_BACKEND", *g);
        void *p = NULL;
        assert_true(backend_index(*g, &info) >= 0);
        if (info.available) {
            const char *name = NULL;
            assert_int_equal(st, XRT_SUCCESS);
            OK(xrt_get_backend(&name));
            assert_string_equal(name, *g);
            continue;
        }
        assert_true(st == XRT_ERROR_BACKEND_UNAVAILABLE || st == XRT_ERROR_NO_DEVICE);
        assert_non_null(strstr(xrt_get_last_error_string(), info.reason));
        assert_non_null(strstr(xrt_get_last_error_string(), "unavailable"));
        XRT_ASSERT_FAILS(xrt_malloc(&p, 64), st, info.reason);
    }
}

/* Without XRT_BACKEND the first available backend wins: the CPU when no GPU is there. */
static void test_auto_falls_back_to_cpu(void **state)
{
    const char *name = NULL;
    const char *const *g;
    int gpu = 0;
    (void)state;
    OK(reinit("XRT_BACKEND", NULL));
    OK(xrt_get_backend(&name));
    for (g = gpu_names; *g; g++) gpu |= available(*g);
    if (!gpu) assert_string_equal(name, "cpu");
    else assert_string_not_equal(name, "cpu");
}

/* A backend the thread asks for by name: refused with the reason; the thread
   keeps its backend. */
static void test_set_backend_refused(void **state)
{
    const char *const *g;
    (void)state;
    for (g = gpu_names; *g; g++) {
        xrt_backend_info info;
        const char *before = NULL, *after = NULL;
        char needle[300];
        if (backend_index(*g, &info) < 0 || info.available) continue;
        OK(xrt_get_backend(&before));
        snprintf(needle, sizeof needle, "xrt_set_backend: %s: unavailable: %s", *g, info.reason);
        XRT_ASSERT_FAILS(xrt_set_backend(*g), XRT_ERROR_BACKEND_UNAVAILABLE, needle);
        OK(xrt_get_backend(&after));
        assert_string_equal(before, after);
    }
}

/* XRT_<GPU>_LIBRARY names the runtime; a wrong one makes the backend
   unavailable with that path in the reason, and the program runs on the CPU. */
static void check_library_override(const char *gpu, const char *var, const char *value, const char *needle)
{
    xrt_backend_info info;
    char h[64] = "runs on the cpu", back[64] = {0};
    void *d = NULL;
    const char *name = NULL;
    OK(reinit(var, value));
    assert_true(backend_index(gpu, &info) >= 0);
    assert_false(info.available);
    if (!strstr(info.reason, needle)) fail_msg("%s: reason \"%s\" lacks \"%s\"", gpu, info.reason, needle);
    OK(xrt_get_backend(&name));
    if (strcmp(name, "cpu") != 0) return; /* the other GPU took over */
    OK(xrt_malloc(&d, sizeof h));
    OK(xrt_memcpy(d, h, sizeof h, XRT_MEMCPY_HOST_TO_DEVICE));
    OK(xrt_memcpy(back, d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST));
    OK(xrt_free(d));
    assert_string_equal(back, h);
}

static void test_library_override(void **state)
{
    (void)state;
#ifdef XRT_ENABLE_CUDA
    check_library_override("cuda", "XRT_CUDA_LIBRARY", "/nonexistent/libcudart.so",
                           "XRT_CUDA_LIBRARY=/nonexistent/libcudart.so: /nonexistent/libcudart.so: cannot open");
    check_library_override("cuda", "XRT_CUDA_LIBRARY", "libm.so.6",
                           "symbol cudaGetErrorName not found in the runtime library");
#endif
#ifdef XRT_ENABLE_HIP
    /* /dev/kfd is probed before any library is loaded */
    check_library_override("hip", "XRT_HIP_LIBRARY", "/nonexistent/libamdhip64.so",
                           kfd_present() ? "XRT_HIP_LIBRARY=/nonexistent/libamdhip64.so" : "no /dev/kfd");
#endif
    (void)check_library_override;
}

/* >> native errors (runs everywhere: the runtime loads without a driver) */

/* Every native error with an xrt meaning maps to it; any other is BACKEND. */
static void test_error_mapping(void **state)
{
    xrt_backend t;
    xrt__gpu *g;
    (void)state;
    (void)t;
    (void)g;
#ifdef XRT_ENABLE_CUDA
    g = gpu_table("cuda", &t);
    assert_int_equal(xrt__gpu_status(g, cudaErrorInvalidValue), XRT_ERROR_INVALID_VALUE);
    assert_int_equal(xrt__gpu_status(g, cudaErrorMemoryAllocation), XRT_ERROR_OUT_OF_MEMORY);
    assert_int_equal(xrt__gpu_status(g, cudaErrorInsufficientDriver), XRT_ERROR_BACKEND_UNAVAILABLE);
    assert_int_equal(xrt__gpu_status(g, cudaErrorNoDevice), XRT_ERROR_NO_DEVICE);
    assert_int_equal(xrt__gpu_status(g, cudaErrorInvalidDevice), XRT_ERROR_INVALID_DEVICE);
    assert_int_equal(xrt__gpu_status(g, cudaErrorInvalidDevicePointer), XRT_ERROR_INVALID_POINTER);
    assert_int_equal(xrt__gpu_status(g, cudaErrorInvalidMemcpyDirection), XRT_ERROR_INVALID_MEMCPY_KIND);
    assert_int_equal(xrt__gpu_status(g, cudaErrorInvalidResourceHandle), XRT_ERROR_INVALID_HANDLE);
    assert_int_equal(xrt__gpu_status(g, cudaErrorNotReady), XRT_ERROR_NOT_READY);
    assert_int_equal(xrt__gpu_status(g, cudaErrorNotSupported), XRT_ERROR_UNSUPPORTED);
    assert_int_equal(xrt__gpu_status(g, cudaErrorLaunchFailure), XRT_ERROR_BACKEND);
    assert_int_equal(xrt__gpu_status(g, cudaErrorIllegalAddress), XRT_ERROR_BACKEND);
#endif
#ifdef XRT_ENABLE_HIP
    g = gpu_table("hip", &t);
    assert_int_equal(xrt__gpu_status(g, hipErrorInvalidValue), XRT_ERROR_INVALID_VALUE);
    assert_int_equal(xrt__gpu_status(g, hipErrorMemoryAllocation), XRT_ERROR_OUT_OF_MEMORY);
    assert_int_equal(xrt__gpu_status(g, hipErrorInsufficientDriver), XRT_ERROR_BACKEND_UNAVAILABLE);
    assert_int_equal(xrt__gpu_status(g, hipErrorNoDevice), XRT_ERROR_NO_DEVICE);
    assert_int_equal(xrt__gpu_status(g, hipErrorInvalidDevice), XRT_ERROR_INVALID_DEVICE);
    assert_int_equal(xrt__gpu_status(g, hipErrorInvalidDevicePointer), XRT_ERROR_INVALID_POINTER);
    assert_int_equal(xrt__gpu_status(g, hipErrorInvalidMemcpyDirection), XRT_ERROR_INVALID_MEMCPY_KIND);
    assert_int_equal(xrt__gpu_status(g, hipErrorInvalidResourceHandle), XRT_ERROR_INVALID_HANDLE);
    assert_int_equal(xrt__gpu_status(g, hipErrorNotReady), XRT_ERROR_NOT_READY);
    assert_int_equal(xrt__gpu_status(g, hipErrorNotSupported), XRT_ERROR_UNSUPPORTED);
    assert_int_equal(xrt__gpu_status(g, hipErrorLaunchFailure), XRT_ERROR_BACKEND);
#endif
}

#if defined(XRT_ENABLE_CUDA) || defined(XRT_ENABLE_HIP)
/* An error table maps each native error once, to a real meaning, and never success. */
static void check_error_table(const char *what, const xrt__gpu_error *table, size_t count, int success)
{
    size_t i, j;
    for (i = 0; i < count; i++) {
        if (table[i].native == success) fail_msg("%s: entry %zu is the success code", what, i);
        if (table[i].status == XRT_SUCCESS || table[i].status == XRT_ERROR_BACKEND || table[i].status >= XRT_STATUS_COUNT)
            fail_msg("%s: entry %zu (%d) maps to %d, which says nothing", what, i, table[i].native, (int)table[i].status);
        for (j = 0; j < i; j++)
            if (table[j].native == table[i].native) fail_msg("%s: %d is listed twice", what, table[i].native);
        assert_int_equal(xrt__gpu_error_status(table, count, table[i].native), table[i].status);
    }
    assert_int_equal(xrt__gpu_error_status(table, count, 12345), XRT_ERROR_BACKEND);
}

/* A symbol list names every entry point of xrt__gpu_rt exactly once, by the
   vendor's name; the runtime table maps NOT_READY (queries depend on it). */
static void check_gpu_tables(const char *name, const char *memcpy_async)
{
    xrt_backend t;
    xrt__gpu *g = gpu_table(name, &t);
    size_t i, j, fields = sizeof(xrt__gpu_rt) / sizeof(void (*)(void));
    int not_ready = 0;
    check_error_table(name, g->errors, g->nerrors, g->success);
    for (i = 0; i < g->nerrors; i++) not_ready |= g->errors[i].status == XRT_ERROR_NOT_READY;
    assert_true(not_ready);
    assert_int_equal(g->nsyms, fields);
    for (i = 0; i < g->nsyms; i++) {
        assert_memory_equal(g->syms[i].name, name, strlen(name));
        assert_true(g->syms[i].offset < sizeof(xrt__gpu_rt) && g->syms[i].offset % sizeof(void (*)(void)) == 0);
        for (j = 0; j < i; j++)
            if (g->syms[j].offset == g->syms[i].offset) fail_msg("%s: %s and %s fill one field", name, g->syms[j].name, g->syms[i].name);
    }
    assert_string_equal(xrt__gpu_call_name(g, XRT__GPU_CALL(MemcpyAsync)), memcpy_async);
    assert_string_equal(t.name, name);
    /* neither fork-safe nor open to calls from host functions; what its memory is */
    assert_int_equal(t.flags & (XRT_BACKEND_FORK_SAFE | XRT_BACKEND_HOST_FN_CALLS), 0);
    assert_int_equal(t.flags & ~(XRT_BACKEND_FORK_SAFE | XRT_BACKEND_HOST_FN_CALLS),
                     strcmp(name, "cuda") == 0 ? XRT_BACKEND_NVIDIA_MEMORY : XRT_BACKEND_AMD_MEMORY);
}
#endif

static void test_error_tables(void **state)
{
    (void)state;
#ifdef XRT_ENABLE_CUDA
    check_gpu_tables("cuda", "cudaMemcpyAsync");
    check_error_table("cuda driver", xrt__cuda_driver_errors,
                      sizeof xrt__cuda_driver_errors / sizeof xrt__cuda_driver_errors[0], CUDA_SUCCESS);
#endif
#ifdef XRT_ENABLE_HIP
    check_gpu_tables("hip", "hipMemcpyAsync");
#endif
}

/* A failure is recorded and logged as "<backend>: <native call>: <message>
   (<name>=<code>)"; NOT_READY is returned without either. */
#define CHECK_NATIVE_DETAIL(g, err, call, expected)                                            \
    do {                                                                                      \
        int logs_;                                                                            \
        xrt_get_last_error();                                                                 \
        logs_ = xrt_test_log.count;                                                           \
        assert_int_equal(xrt__gpu_check(g, err, XRT__GPU_CALL(call)), xrt__gpu_status(g, err)); \
        assert_string_equal(xrt_get_last_error_string(), expected);                           \
        assert_int_equal(xrt_peek_at_last_error(), xrt__gpu_status(g, err));                  \
        assert_int_equal(xrt_test_log.count, logs_ + 1);                                      \
        assert_int_equal(xrt_test_log.level, XRT_LOG_ERROR);                                  \
    } while (0)

#define CHECK_NOT_READY(g, err, call)                                                          \
    do {                                                                                      \
        int logs_;                                                                            \
        xrt_get_last_error();                                                                 \
        logs_ = xrt_test_log.count;                                                           \
        assert_int_equal(xrt__gpu_check(g, err, XRT__GPU_CALL(call)), XRT_ERROR_NOT_READY);   \
        assert_int_equal(xrt_peek_at_last_error(), XRT_SUCCESS);                              \
        assert_int_equal(xrt_test_log.count, logs_);                                          \
    } while (0)

/* Loads the runtime's table unless the backend already did (a GPU is there). */
#define LOAD_OR_SKIP(g, names)                                                                \
    int loaded_ = 0;                                                                          \
    char why_[256] = "";                                                                      \
    if (!(g)->rt.GetErrorName) {                                                              \
        SKIP_UNLESS(can_load(names), "no runtime library");                                   \
        if (!xrt__gpu_load(g, why_, sizeof why_)) fail_msg("%s", why_);                       \
        loaded_ = 1;                                                                          \
    }

static void test_cuda_native_errors(void **state)
{
#ifdef XRT_ENABLE_CUDA
    void *p = &p;
    /* before loading: probing the backend (inside available) resets the table */
    int no_driver = !available("cuda") && !can_load(cuda_driver_names);
    xrt_backend t;
    xrt__gpu *g = gpu_table("cuda", &t);
    (void)state;
    {
        LOAD_OR_SKIP(g, cudart_names)
        xrt_test_log_capture();
        assert_true(g->version >= 12000); /* cudaRuntimeGetVersion works without a driver */
        CHECK_NATIVE_DETAIL(g, cudaErrorMemoryAllocation, Malloc,
                            "cuda: cudaMalloc: out of memory (cudaErrorMemoryAllocation=2)");
        CHECK_NATIVE_DETAIL(g, cudaErrorInvalidResourceHandle, StreamSynchronize,
                            "cuda: cudaStreamSynchronize: invalid resource handle "
                            "(cudaErrorInvalidResourceHandle=400)");
        CHECK_NOT_READY(g, cudaErrorNotReady, StreamQuery);
        if (no_driver) { /* a real call into the runtime */
            XRT_ASSERT_FAILS(xrt__gpu_malloc(&t, &p, 64), XRT_ERROR_BACKEND_UNAVAILABLE,
                             "xrt_malloc: cuda: cudaMalloc: CUDA driver version is insufficient for CUDA runtime version "
                             "(cudaErrorInsufficientDriver=35)");
            assert_null(p);
        }
        if (loaded_) xrt__gpu_unload(g);
        (void)why_;
    }
#else
    (void)state;
    SKIP_UNLESS(0, "cuda: not enabled in this build");
#endif
}

static void test_hip_native_errors(void **state)
{
#ifdef XRT_ENABLE_HIP
    void *p = &p;
    int no_device = !available("hip"); /* before loading, as for CUDA */
    xrt_backend t;
    xrt__gpu *g = gpu_table("hip", &t);
    (void)state;
    {
        LOAD_OR_SKIP(g, hip_names)
        char expected[256];
        void *r0600 = dlsym(g->lib, "hipGetDevicePropertiesR0600"), *handle;
        int fd = -1;
        snprintf(expected, sizeof expected, "hip: hipHostMalloc: %s (hipErrorOutOfMemory=2)", /* HIP 5 gives the name */
                 g->rt.GetErrorString(hipErrorOutOfMemory));
        xrt_test_log_capture();
        CHECK_NATIVE_DETAIL(g, hipErrorOutOfMemory, HostAlloc, expected);
        CHECK_NOT_READY(g, hipErrorNotReady, EventQuery);
        if (no_device) { /* a real call: it fails, whatever the runtime calls the reason */
            assert_int_not_equal(xrt__gpu_malloc(&t, &p, 64), XRT_SUCCESS);
            assert_non_null(strstr(xrt_get_last_error_string(), "xrt_malloc: hip: hipMalloc: "));
            assert_null(p);
        }
        /* the entry points chosen for the loaded runtime's version */
        print_message("hip: runtime version %d\n", g->version);
        assert_int_equal(xrt__hip_ext.r0600, g->version >= XRT__HIP_VERSION_6 && r0600 != NULL);
        memcpy(&handle, &xrt__hip_ext.MemGetHandleForAddressRange, sizeof handle);
        assert_ptr_equal(handle, dlsym(g->lib, "hipMemGetHandleForAddressRange"));
        memcpy(&handle, &xrt__hip_ext.ModuleLaunchKernel, sizeof handle); /* modules: found where exported */
        assert_ptr_equal(handle, dlsym(g->lib, "hipModuleLaunchKernel"));
        assert_int_equal(g->module_load != NULL, handle != NULL);
        if (!xrt__hip_ext.MemGetHandleForAddressRange) /* HIP 5.2 */
            FAILS(xrt__hip_export_dmabuf(g, 0, (void *)(uintptr_t)0x200000, 4096, &fd), XRT_ERROR_UNSUPPORTED,
                  "hip: xrt_mem_export_dmabuf: the HIP runtime has no hipMemGetHandleForAddressRange");
        if (loaded_) xrt__gpu_unload(g);
        (void)why_;
    }
#else
    (void)state;
    SKIP_UNLESS(0, "hip: not enabled in this build");
#endif
}

#if defined(XRT_ENABLE_CUDA) || defined(XRT_ENABLE_HIP)
/* >> a fake runtime: the shared code runs against these functions in place
   of the vendor's, so that what it does with the runtime's answers (host
   function closures, struct layouts, the dma-buf range) is tested without a
   GPU. The types are xrt__gpu_rt's. */
static struct {
    int fail;             /* what the fakes return; 0: success */
    int device;           /* GetDevice's answer */
    int get_devices;      /* GetDevice's calls */
    int stream_devices;   /* StreamGetDevice's calls; it answers 1 for every stream */
    int set_devices[4];   /* SetDevice's arguments, in order */
    int nset;
    int launches, callbacks;
    void *closure;        /* the last closure a host function was launched with */
    int capturing;        /* StreamIsCapturing's answer */
    int update_result;    /* the exec update's cudaGraphExecUpdateResult */
    int attr[8];          /* what PointerGetAttributes fills (32 bytes) */
    unsigned char prop[XRT__GPU_PROP_BYTES];
    int supported;        /* the driver's CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED */
    uintptr_t handle_ptr; /* what the dma-buf export was asked for */
    size_t handle_len;
    int handle_type;
    unsigned long long handle_flags;
} fake;

static const char *fake_error_name(int e) { return e == 1 ? "fakeErrorInvalidValue" : "fakeError"; }
static const char *fake_error_string(int e) { return e ? "fake failure" : "no error"; }
static int fake_get_last_error(void) { return 0; }

static int fake_get_device(int *device)
{
    fake.get_devices++;
    *device = fake.device;
    return 0;
}

static int fake_stream_get_device(void *stream, int *device)
{
    (void)stream;
    fake.stream_devices++;
    *device = 1;
    return 0;
}

static xrt__gpu *fake_gpu; /* whose runtime the fake replaces */

/* A device at PCI 0000:c1:00.0; any other attribute is "not supported" (1). */
static int fake_device_get_attribute(int *value, int attr, int device)
{
    (void)device;
    if (attr == fake_gpu->attr_pci[0] || attr == fake_gpu->attr_pci[2]) *value = 0;
    else if (attr == fake_gpu->attr_pci[1]) *value = 0xc1;
    else return 1;
    return 0;
}

static int fake_set_device(int device)
{
    if (fake.nset < 4) fake.set_devices[fake.nset++] = device;
    return 0;
}

static int fake_get_device_properties(void *prop, int device)
{
    (void)device;
    memcpy(prop, fake.prop, sizeof fake.prop);
    return fake.fail;
}

static int fake_pointer_get_attributes(void *attr, const void *ptr)
{
    (void)ptr;
    memcpy(attr, fake.attr, sizeof fake.attr);
    return fake.fail;
}

/* Both run the function at once, as if the stream were idle. */
static int fake_launch_host_func(void *stream, xrt_host_fn fn, void *user)
{
    (void)stream;
    if (fake.fail) return fake.fail;
    fake.launches++;
    fake.closure = user;
    fn(user);
    return 0;
}

static int fake_stream_add_callback(void *stream, xrt__gpu_callback callback, void *user, unsigned flags)
{
    assert_int_equal(flags, 0);
    if (fake.fail) return fake.fail;
    fake.callbacks++;
    callback(stream, 0, user);
    return 0;
}

static xrt__gpu fake_saved;

/* Puts the fake runtime in place of g's; fake_end puts g back (and so does
   fakes_restore, the teardown of every test that uses a fake). */
static void fake_begin(xrt__gpu *g)
{
    memcpy(&fake_saved, g, sizeof *g);
    fake_gpu = g;
    memset(&g->rt, 0, sizeof g->rt);
    memset(&fake, 0, sizeof fake);
    g->rt.GetErrorName = fake_error_name;
    g->rt.GetErrorString = fake_error_string;
    g->rt.GetLastError = fake_get_last_error;
    g->rt.GetDevice = fake_get_device;
    g->rt.SetDevice = fake_set_device;
    g->rt.GetDeviceProperties = fake_get_device_properties;
    g->rt.DeviceGetAttribute = fake_device_get_attribute;
    g->rt.PointerGetAttributes = fake_pointer_get_attributes;
    g->rt.LaunchHostFunc = fake_launch_host_func;
    g->rt.StreamAddCallback = fake_stream_add_callback;
    g->stream_device = NULL;
    xrt__gpu_set_count(g, 1);
}

#ifdef XRT_ENABLE_CUDA
static xrt__cuda_driver driver_saved;
static int driver_faked;
#endif
#ifdef XRT_ENABLE_HIP
static unsigned char hip_ext_saved[sizeof xrt__hip_ext];
static int hip_ext_faked;

/* The HIP entry points looked up by name are faked too: fakes_end restores them. */
static void hip_ext_fake(void)
{
    memcpy(hip_ext_saved, &xrt__hip_ext, sizeof hip_ext_saved);
    hip_ext_faked = 1;
}
#endif

static void fake_end(void)
{
    if (fake_gpu) memcpy(fake_gpu, &fake_saved, sizeof *fake_gpu);
    fake_gpu = NULL;
}

static void fakes_end(void)
{
    fake_end();
#ifdef XRT_ENABLE_CUDA
    if (driver_faked) xrt__cuda_drv = driver_saved;
    driver_faked = 0;
#endif
#ifdef XRT_ENABLE_HIP
    if (hip_ext_faked) memcpy(&xrt__hip_ext, hip_ext_saved, sizeof hip_ext_saved);
    hip_ext_faked = 0;
#endif
}
#else
static void fakes_end(void) {}
#endif

static int fakes_restore(void **state)
{
    fakes_end();
    return env_restore(state);
}

/* The prologue of the tests that run on the fake runtime of each GPU
   backend: fn gets the backend's name, its table as the registry gets it
   and its data, the fake runtime in place (fake_begin), and the real one is
   put back after it (fake_end; fakes_restore, the teardown, does it where
   fn fails). */
static void on_each_fake_gpu(void (*fn)(const char *name, xrt_backend *t, xrt__gpu *g))
{
    const char *const *name;
    for (name = gpu_names; *name; name++) {
        xrt_backend t;
        xrt__gpu *g = gpu_table(*name, &t);
        fake_begin(g);
        fn(*name, &t, g);
        fake_end();
    }
}

/* >> host functions */

/* What a host function saw when it made an xrt call. */
static struct { int ran; xrt_status status; char detail[512]; } inside;

static void call_xrt_inside(void *user)
{
    int d = 0;
    (void)user;
    inside.ran++;
    inside.status = xrt_get_device(&d);
    snprintf(inside.detail, sizeof inside.detail, "%s", xrt_get_last_error_string());
}

static void assert_refused_inside(const char *gpu, int runs)
{
    char expected[160];
    snprintf(expected, sizeof expected, "xrt_get_device: called from a host function: the %s runtime forbids runtime calls there",
             gpu);
    assert_int_equal(inside.ran, runs);
    assert_int_equal(inside.status, XRT_ERROR_NOT_PERMITTED);
    assert_string_equal(inside.detail, expected);
}

/* The trampoline the runtime calls: the user's function runs as a host
   function of the backend (every xrt call refused), its closure is freed
   (ASan checks), and the thread is itself again afterwards. */
static void test_host_fn_trampoline(void **state)
{
    const char *const *name;
    (void)state;
    for (name = gpu_names; *name; name++) {
        xrt_backend t;
        xrt__gpu_host_call *c;
        int d = -1;
        gpu_table(*name, &t);
        memset(&inside, 0, sizeof inside);
        c = (xrt__gpu_host_call *)XRT_MALLOC(sizeof *c);
        assert_non_null(c);
        c->self = &t;
        c->fn = call_xrt_inside;
        c->user = NULL;
        xrt__gpu_host_trampoline(c);
        assert_refused_inside(*name, 1);
        c = (xrt__gpu_host_call *)XRT_MALLOC(sizeof *c);
        assert_non_null(c);
        c->self = &t;
        c->fn = call_xrt_inside;
        c->user = NULL;
        xrt__gpu_host_callback(NULL, 0, c); /* the stream callback's form */
        assert_refused_inside(*name, 2);
        OK(xrt_get_device(&d)); /* outside, the thread's own backend again */
    }
}

/* An allocation notes its device for the registry's record and marks it
   used. With one device that is device 0, and the runtime is not asked
   (cudaGetDevice, 40-60 ns on an H200, on every allocation); with several
   it is. */
static int fake_malloc(void **p, size_t n)
{
    *p = malloc(n);
    return *p ? 0 : 2;
}

static int fake_malloc_async(void **p, size_t n, void *stream)
{
    (void)stream;
    return fake_malloc(p, n);
}

static int fake_free_async(void *p, void *stream)
{
    (void)p;
    (void)stream;
    return 0;
}

static void test_gpu_allocation_asks_device_on(const char *name, xrt_backend *t, xrt__gpu *g)
{
    void *p[3] = {NULL, NULL, NULL};
    int i;
    (void)name;
    g->rt.Malloc = fake_malloc;
    g->rt.MallocAsync = fake_malloc_async;
    g->rt.FreeAsync = fake_free_async;
    g->pools = g->pools_known = 3; /* devices 0 and 1 have pools */
    g->used = 0;
    OK(xrt__gpu_malloc_async(t, &p[0], 64, NULL));
    assert_ptr_equal(xrt__mem_new.p, p[0]);
    assert_int_equal(xrt__mem_new.device, 0);
    OK(xrt__gpu_malloc(t, &p[1], 64));
    assert_ptr_equal(xrt__mem_new.p, p[1]);
    assert_int_equal(xrt__mem_new.device, 0);
    assert_int_equal(fake.get_devices, 0); /* one device: nothing to ask */
    assert_true(xrt__gpu_was_used(g, 0));
    xrt__gpu_set_count(g, 2);
    fake.device = 1;
    OK(xrt__gpu_malloc_async(t, &p[2], 64, NULL));
    assert_int_equal(fake.get_devices, 1);
    assert_ptr_equal(xrt__mem_new.p, p[2]);
    assert_int_equal(xrt__mem_new.device, 1);
    assert_true(xrt__gpu_was_used(g, 1));
    free(p[2]);
    /* a stream's allocation is its device's: the runtime names it (device 1
       here, the current one being 0); without StreamGetDevice, the current */
    fake.device = 0;
    g->used = 0;
    g->stream_device = fake_stream_get_device;
    OK(xrt__gpu_malloc_async(t, &p[2], 64, (void *)t));
    assert_int_equal(fake.stream_devices, 1);
    assert_int_equal(fake.get_devices, 1);
    assert_int_equal(xrt__mem_new.device, 1);
    assert_true(xrt__gpu_was_used(g, 1) && !xrt__gpu_was_used(g, 0));
    free(p[2]);
    OK(xrt__gpu_malloc_async(t, &p[2], 64, NULL)); /* the NULL stream: the current device's */
    assert_int_equal(fake.stream_devices, 1);
    assert_int_equal(fake.get_devices, 2);
    assert_int_equal(xrt__mem_new.device, 0);
    free(p[2]);
    g->stream_device = NULL;
    OK(xrt__gpu_malloc_async(t, &p[2], 64, (void *)t));
    assert_int_equal(fake.get_devices, 3);
    assert_int_equal(xrt__mem_new.device, 0);
    xrt__mem_new.p = NULL;
    for (i = 0; i < 3; i++) free(p[i]);
}

static void test_gpu_allocation_asks_device(void **state)
{
    (void)state;
    on_each_fake_gpu(test_gpu_allocation_asks_device_on);
}

/* xrt_launch_host_func hands the runtime the trampoline: through
   LaunchHostFunc where the runtime has it, else through StreamAddCallback
   (HIP 5); a refused launch frees the closure. */
static void test_launch_host_func_fake_on(const char *name, xrt_backend *t, xrt__gpu *g)
{
    char expected[160];
    memset(&inside, 0, sizeof inside);
    OK(xrt__gpu_launch_host_func(t, NULL, call_xrt_inside, NULL));
    assert_int_equal(fake.launches, 1);
    assert_refused_inside(name, 1);
    g->rt.LaunchHostFunc = NULL;
    OK(xrt__gpu_launch_host_func(t, NULL, call_xrt_inside, NULL));
    assert_int_equal(fake.callbacks, 1);
    assert_refused_inside(name, 2);
    fake.fail = 1;
    snprintf(expected, sizeof expected, "%s: %sStreamAddCallback: fake failure (fakeErrorInvalidValue=1)", name, name);
    FAILS(xrt__gpu_launch_host_func(t, NULL, call_xrt_inside, NULL), XRT_ERROR_INVALID_VALUE, expected);
    assert_int_equal(inside.ran, 2);
}

static void test_launch_host_func_fake(void **state)
{
    (void)state;
    on_each_fake_gpu(test_launch_host_func_fake_on);
}

#if defined(XRT_ENABLE_CUDA) || defined(XRT_ENABLE_HIP)
static int closure_in_table(const xrt__gpu_host_call *c)
{
    return (uintptr_t)c >= (uintptr_t)xrt__gpu_closures &&
           (uintptr_t)c < (uintptr_t)(xrt__gpu_closures + XRT__GPU_CLOSURE_WORDS * 64);
}
#endif

/* A host function's closure is given back when it runs and taken again by
   the next one (no allocation per host function); with every closure of
   the table taken, one comes from the allocator and goes back to it when it
   runs or when the runtime refuses it (ASan checks). */
static void test_host_fn_closures_reused_on(const char *name, xrt_backend *t, xrt__gpu *g)
{
    static xrt__gpu_host_call *taken[XRT__GPU_CLOSURE_WORDS * 64];
    xrt__gpu_host_call *c;
    void *first;
    size_t n = 0, k;
    char expected[160];
    (void)g;
    memset(&inside, 0, sizeof inside);
    OK(xrt__gpu_launch_host_func(t, NULL, call_xrt_inside, NULL));
    first = fake.closure;
    assert_true(closure_in_table((const xrt__gpu_host_call *)first));
    OK(xrt__gpu_launch_host_func(t, NULL, call_xrt_inside, NULL));
    assert_ptr_equal(fake.closure, first); /* given back when it ran */
    while ((c = xrt__gpu_closure_take()) != NULL && closure_in_table(c)) {
        for (k = 0; k < n; k++) assert_ptr_not_equal(taken[k], c);
        taken[n++] = c;
    }
    assert_non_null(c);
    xrt__gpu_closure_give(c); /* the allocator's */
    assert_int_equal(n, XRT__GPU_CLOSURE_WORDS * 64);
    OK(xrt__gpu_launch_host_func(t, NULL, call_xrt_inside, NULL));
    assert_false(closure_in_table((const xrt__gpu_host_call *)fake.closure));
    assert_refused_inside(name, 3);
    fake.fail = 1;
    snprintf(expected, sizeof expected, "%s: %sLaunchHostFunc: fake failure (fakeErrorInvalidValue=1)", name, name);
    FAILS(xrt__gpu_launch_host_func(t, NULL, call_xrt_inside, NULL), XRT_ERROR_INVALID_VALUE, expected);
    fake.fail = 0;
    for (k = 0; k < n; k++) xrt__gpu_closure_give(taken[k]);
    OK(xrt__gpu_launch_host_func(t, NULL, call_xrt_inside, NULL));
    assert_ptr_equal(fake.closure, first);
    assert_refused_inside(name, 4);
}

static void test_host_fn_closures_reused(void **state)
{
    (void)state;
    on_each_fake_gpu(test_host_fn_closures_reused_on);
}

/* >> graphs: XRT_CAP_GRAPHS only where every entry point and hook is there;
   the node types each vendor counts; the capture errors each maps; an
   update's reason; host functions captured keep their closures. */
static int fake_begin_capture(void *stream, int mode) { (void)stream; (void)mode; return fake.fail; }
static int fake_end_capture(void *stream, void **graph) { (void)stream; *graph = &fake; return fake.fail; }
static int fake_is_capturing(void *stream, int *status) { (void)stream; *status = fake.capturing; return fake.fail; }
static int fake_instantiate(void **exec, void *graph, unsigned long long flags) { (void)flags; *exec = graph; return fake.fail; }
static int fake_graph_launch(void *exec, void *stream) { (void)exec; (void)stream; return fake.fail; }
static int fake_graph_destroy(void *graph) { (void)graph; return fake.fail; }
static xrt__gpu *fake_graph_gpu;
/* Four nodes: one of each kind the vendor's table counts first, and one of
   a type xrt does not count. */
static int fake_get_nodes(void *graph, void **nodes, size_t *count)
{
    static int types[4];
    size_t i;
    (void)graph;
    if (nodes)
        for (i = 0; i < 4 && i < *count; i++) {
            types[i] = i < 3 ? fake_graph_gpu->node_kinds[i].native : -7;
            nodes[i] = &types[i];
        }
    *count = 4;
    return fake.fail;
}
static int fake_node_type(void *node, int *type) { *type = *(int *)node; return fake.fail; }
static int fake_exec_update(const xrt__gpu *g, void *exec, void *graph, int *result, void **node, void **from)
{
    (void)g, (void)exec, (void)graph;
    *result = fake.update_result;
    *node = *from = NULL;
    return fake.fail;
}
static xrt_status fake_edges(const xrt__gpu *g, void *graph, size_t *count) { (void)g, (void)graph; *count = 3; return XRT_SUCCESS; }

static void fake_graphs(xrt__gpu *g)
{
    fake_graph_gpu = g;
    g->rt.StreamBeginCapture = fake_begin_capture;
    g->rt.StreamEndCapture = fake_end_capture;
    g->rt.StreamIsCapturing = fake_is_capturing;
    g->rt.GraphInstantiateWithFlags = fake_instantiate;
    g->rt.GraphLaunch = fake_graph_launch;
    g->rt.GraphExecDestroy = fake_graph_destroy;
    g->rt.GraphDestroy = fake_graph_destroy;
    g->rt.GraphGetNodes = fake_get_nodes;
    g->rt.GraphNodeGetType = fake_node_type;
    g->exec_update = fake_exec_update;
    g->graph_edges = fake_edges;
}

static unsigned fake_caps(xrt_backend *t)
{
    unsigned caps = 0;
    OK(xrt__gpu_get_capabilities(t, &caps));
    return caps;
}

static int host_runs;
static void count_host_run(void *user) { (void)user; host_runs++; }

static void test_graphs_fake_on(const char *name, xrt_backend *t, xrt__gpu *g)
{
    static const struct { int native; xrt_status st; } codes[] = {
        {401, XRT_ERROR_ILLEGAL_STATE}, {900, XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED},
        {901, XRT_ERROR_STREAM_CAPTURE_INVALIDATED}, {902, XRT_ERROR_STREAM_CAPTURE_MERGE},
        {903, XRT_ERROR_STREAM_CAPTURE_UNMATCHED}, {904, XRT_ERROR_STREAM_CAPTURE_UNJOINED},
        {905, XRT_ERROR_STREAM_CAPTURE_ISOLATION}, {906, XRT_ERROR_STREAM_CAPTURE_IMPLICIT},
        {907, XRT_ERROR_CAPTURED_EVENT}, {908, XRT_ERROR_STREAM_CAPTURE_WRONG_THREAD},
        {910, XRT_ERROR_GRAPH_EXEC_UPDATE_FAILURE}};
    xrt_graph_info info;
    void *obj = NULL, *first;
    unsigned status = 9;
    char expected[200];
    size_t i;
    /* the capture errors: the same codes in CUDA and HIP */
    for (i = 0; i < sizeof codes / sizeof codes[0]; i++)
        if (xrt__gpu_status(g, codes[i].native) != codes[i].st)
            fail_msg("%s: native %d is %s", name, codes[i].native, xrt_status_string(xrt__gpu_status(g, codes[i].native)));
    /* no entry points: no graphs, each call says so */
    g->exec_update = NULL;
    g->graph_edges = NULL;
    assert_false(fake_caps(t) & XRT_CAP_GRAPHS);
    snprintf(expected, sizeof expected, "%s: xrt_stream_begin_capture: graphs are not supported by this runtime", name);
    FAILS(xrt__gpu_stream_begin_capture(t, &fake, XRT_CAPTURE_MODE_GLOBAL), XRT_ERROR_UNSUPPORTED, expected);
    fake_graphs(g);
    assert_true(fake_caps(t) & XRT_CAP_GRAPHS);
    g->rt.GraphNodeGetType = NULL; /* one entry point missing */
    assert_false(fake_caps(t) & XRT_CAP_GRAPHS);
    fake_graphs(g);
    g->exec_update = NULL; /* one hook missing */
    assert_false(fake_caps(t) & XRT_CAP_GRAPHS);
    fake_graphs(g);
    /* the calls pass through */
    OK(xrt__gpu_stream_begin_capture(t, &fake, XRT_CAPTURE_MODE_GLOBAL));
    fake.capturing = XRT_CAPTURE_STATUS_INVALIDATED;
    OK(xrt__gpu_stream_is_capturing(t, &fake, &status));
    assert_int_equal(status, XRT_CAPTURE_STATUS_INVALIDATED);
    OK(xrt__gpu_stream_end_capture(t, &fake, &obj));
    assert_ptr_equal(obj, &fake);
    memset(&info, 0, sizeof info);
    OK(xrt__gpu_graph_get_info(t, obj, &info));
    /* CUDA's first three kinds: kernel, copy, set; HIP's: kernel, copy, 1D copy */
    assert_int_equal(info.nodes, 4);
    assert_int_equal(info.kernels, 1);
    assert_int_equal(info.copies, strcmp(name, "hip") == 0 ? 2 : 1);
    assert_int_equal(info.sets, strcmp(name, "hip") == 0 ? 0 : 1);
    assert_int_equal(info.host_fns, 0);
    assert_int_equal(info.edges, 3);
    /* a refused update says why, beside the runtime's error */
    fake.fail = 910, fake.update_result = 3;
    snprintf(expected, sizeof expected, "xrt_graph_exec_update: %s: %sGraphExecUpdate: a node changed its type: fake failure",
             name, name);
    FAILS(xrt__gpu_graph_exec_update(t, obj, obj), XRT_ERROR_GRAPH_EXEC_UPDATE_FAILURE, expected);
    fake.fail = 0;
    /* host functions on a capturing stream: one closure per function and
       argument, kept over every launch of the graph */
    fake.capturing = XRT_CAPTURE_STATUS_ACTIVE;
    host_runs = 0;
    OK(xrt__gpu_launch_host_func(t, &fake, count_host_run, &host_runs));
    first = fake.closure;
    OK(xrt__gpu_launch_host_func(t, &fake, count_host_run, &host_runs));
    assert_ptr_equal(fake.closure, first);
    xrt__gpu_host_kept_trampoline(first); /* a launch of the graph runs it again */
    assert_int_equal(host_runs, 3);
    OK(xrt__gpu_launch_host_func(t, &fake, count_host_run, NULL));
    assert_ptr_not_equal(fake.closure, first);
    xrt__gpu_host_kept_free(t); /* as at shutdown: nothing leaks (ASan) */
    /* memory nodes built by hand: none on HIP, whatever its version */
    if (!strcmp(name, "hip")) {
        xrt_graph_node_params mp;
        void *made = NULL;
        memset(&mp, 0, sizeof mp);
        mp.type = XRT_GRAPH_NODE_MEM_ALLOC;
        mp.alloc.size = 64;
        FAILS(xrt__gpu_graph_add_node(t, obj, &made, NULL, 0, &mp), XRT_ERROR_UNSUPPORTED,
              "hip: xrt_graph_add_node: graph memory nodes built by hand are not supported on hip (xrt calls no "
              "hipGraphAddMemAllocNode)");
        assert_null(made);
    }
}

static void test_graphs_fake(void **state)
{
    (void)state;
    on_each_fake_gpu(test_graphs_fake_on);
}

/* >> HIP 5 and ROCm 6 layouts */
#ifdef XRT_ENABLE_HIP
static void put_bytes(size_t offset, const void *value, size_t n) { memcpy(fake.prop + offset, value, n); }

/* The device struct at the offsets ROCm's documentation gives for the layout. */
static void fake_hip_prop(size_t mem_at, size_t warp_at, size_t cus_at, size_t arch_at)
{
    size_t mem = (size_t)192 << 30;
    int warp = 64, cus = 304;
    memset(fake.prop, 0, sizeof fake.prop);
    put_bytes(0, "AMD Instinct MI300X", 20);
    put_bytes(mem_at, &mem, sizeof mem);
    put_bytes(warp_at, &warp, sizeof warp);
    put_bytes(cus_at, &cus, sizeof cus);
    put_bytes(arch_at, "gfx942:sramecc+:xnack-", 23);
}

static void assert_mi300x(const xrt_device_prop *p)
{
    assert_string_equal(p->name, "AMD Instinct MI300X");
    assert_int_equal(p->total_memory, (size_t)192 << 30);
    assert_int_equal(p->warp_size, 64);
    assert_int_equal(p->multiprocessor_count, 304);
    assert_string_equal(p->arch, "gfx942");
    assert_int_equal(p->pci_domain_id, 0); /* from hipDeviceGetAttribute */
    assert_int_equal(p->pci_bus_id, 0xc1);
    assert_int_equal(p->pci_device_id, 0);
}

/* The pointer attributes a runtime of `version` reports as type `type`. */
static void check_hip_pointer(xrt_backend *t, int version, int type, int managed, xrt_memory_type want)
{
    xrt__gpu *g = (xrt__gpu *)t->user;
    xrt_pointer_attributes a;
    int host = 0;
    memset(&a, 0, sizeof a);
    a.type = XRT_MEMORY_UNKNOWN; /* as the core asks: filled only when the runtime knows the pointer */
    a.device = -1;
    g->version = version;
    memset(fake.attr, 0, sizeof fake.attr);
    fake.attr[0] = type; /* memoryType (HIP 5), type (ROCm 6) */
    fake.attr[1] = 3;    /* device */
    fake.attr[6] = managed;
    OK(xrt__gpu_pointer_get_attributes(t, &a, &host));
    if (a.type != want) fail_msg("version %d, type %d, managed %d: got %d, want %d", version, type, managed, (int)a.type, (int)want);
    if (want == XRT_MEMORY_UNKNOWN) {
        assert_null(a.backend);
    } else {
        assert_string_equal(a.backend, "hip");
        assert_int_equal(a.device, want == XRT_MEMORY_PINNED_HOST ? -1 : 3);
    }
}
#endif

/* Properties and pointer attributes are read by the layout of the runtime
   that was loaded, not of the installed headers (Debian's are HIP 5). */
static void test_hip_layouts(void **state)
{
#ifdef XRT_ENABLE_HIP
    xrt_backend t;
    xrt__gpu *g = gpu_table("hip", &t);
    xrt_device_prop p;
    (void)state;
    fake_begin(g);
    hip_ext_fake();
    /* ROCm 6: hipDeviceProp_tR0600 through hipGetDevicePropertiesR0600 */
    xrt__hip_ext.r0600 = 1;
    fake_hip_prop(288, 308, 388, 1160);
    OK(xrt__gpu_get_device_properties(&t, &p, 0));
    assert_mi300x(&p);
    /* HIP 5 (and ROCm 6's plain hipGetDeviceProperties): hipDeviceProp_t / R0000 */
    xrt__hip_ext.r0600 = 0;
    fake_hip_prop(256, 276, 336, 396);
    OK(xrt__gpu_get_device_properties(&t, &p, 0));
    assert_mi300x(&p);
#if HIP_VERSION_MAJOR < 6
    { /* the same through the installed HIP 5 header's struct */
        hipDeviceProp_t h;
        memset(&h, 0, sizeof h);
        strcpy(h.name, "AMD Instinct MI210");
        h.totalGlobalMem = (size_t)64 << 30;
        h.warpSize = 64;
        h.multiProcessorCount = 104;
        strcpy(h.gcnArchName, "gfx90a:sramecc+:xnack-");
        memset(fake.prop, 0, sizeof fake.prop);
        memcpy(fake.prop, &h, sizeof h);
        OK(xrt__gpu_get_device_properties(&t, &p, 0));
        assert_string_equal(p.name, "AMD Instinct MI210");
        assert_int_equal(p.total_memory, (size_t)64 << 30);
        assert_int_equal(p.multiprocessor_count, 104);
        assert_string_equal(p.arch, "gfx90a");
    }
#endif
    /* hipPointerAttribute_t: ROCm 6 (hipMemoryType renumbered) */
    check_hip_pointer(&t, 60032830, 0, 0, XRT_MEMORY_UNKNOWN);
    check_hip_pointer(&t, 60032830, 1, 0, XRT_MEMORY_PINNED_HOST);
    check_hip_pointer(&t, 60032830, 2, 0, XRT_MEMORY_DEVICE);
    check_hip_pointer(&t, 60032830, 3, 1, XRT_MEMORY_MANAGED);
    check_hip_pointer(&t, 60032830, 10, 0, XRT_MEMORY_DEVICE);
    check_hip_pointer(&t, 60032830, 11, 0, XRT_MEMORY_MANAGED);
    /* HIP 5 */
    check_hip_pointer(&t, 50221153, 0, 0, XRT_MEMORY_PINNED_HOST);
    check_hip_pointer(&t, 50221153, 1, 0, XRT_MEMORY_DEVICE);
    check_hip_pointer(&t, 50221153, 1, 1, XRT_MEMORY_MANAGED);
    check_hip_pointer(&t, 50221153, 2, 0, XRT_MEMORY_DEVICE);
    check_hip_pointer(&t, 50221153, 3, 0, XRT_MEMORY_MANAGED);
    check_hip_pointer(&t, 50221153, 7, 0, XRT_MEMORY_UNKNOWN);
#if HIP_VERSION_MAJOR < 6
    { /* the installed header's names for HIP 5 */
        hipPointerAttribute_t h;
        xrt_pointer_attributes a;
        int host = 0;
        memset(&h, 0, sizeof h);
        h.memoryType = hipMemoryTypeDevice;
        h.device = 2;
        memcpy(fake.attr, &h, sizeof h);
        memset(&a, 0, sizeof a);
        OK(xrt__gpu_pointer_get_attributes(&t, &a, &host));
        assert_int_equal(a.type, XRT_MEMORY_DEVICE);
        assert_int_equal(a.device, 2);
    }
#endif
    /* a pointer the runtime does not know: an answer, not an error */
    {
        xrt_pointer_attributes a;
        int host = 0;
        memset(&a, 0, sizeof a);
        fake.fail = 1;
        xrt_get_last_error();
        OK(xrt__gpu_pointer_get_attributes(&t, &a, &host));
        assert_int_equal(a.type, XRT_MEMORY_UNKNOWN);
        assert_int_equal(xrt_peek_at_last_error(), XRT_SUCCESS);
    }
#else
    (void)state;
    SKIP_UNLESS(0, "hip: not enabled in this build");
#endif
}

/* A HIP device's target carries its SRAMECC and XNACK modes, sorted: AMD's
   loader refuses code built for the other mode, so two modes of one
   processor have two fingerprints. The arch stays bare: images are picked
   by it. */
static void test_hip_target_features(void **state)
{
#ifdef XRT_ENABLE_HIP
    static const struct { int r0600; size_t at; const char *name, *features; } cases[] = {
        {1, 1160, "gfx90a:sramecc+:xnack-", "sramecc+,xnack-"}, /* ROCm 6's struct */
        {0, 396, "gfx90a:sramecc-:xnack+", "sramecc-,xnack+"},   /* HIP 5's */
        {1, 1160, "gfx90a:xnack-:sramecc+", "sramecc+,xnack-"}, /* sorted */
        {0, 396, "gfx90a:sramecc+:xnack+", "sramecc+,xnack+"},
        {0, 396, "gfx90a", ""},
        {1, 1160, "gfx90a::xnack-:", "xnack-"},
    };
    uint64_t fingerprint[sizeof cases / sizeof cases[0]];
    xrt_backend t;
    xrt__gpu *g = gpu_table("hip", &t);
    xrt_target target;
    size_t i, j;
    (void)state;
    fake_begin(g);
    hip_ext_fake();
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        xrt__hip_ext.r0600 = cases[i].r0600;
        memset(fake.prop, 0, sizeof fake.prop);
        put_bytes(cases[i].at, cases[i].name, strlen(cases[i].name) + 1);
        OK(xrt__target_get(&t, &target));
        assert_string_equal(target.backend, "hip");
        assert_string_equal(target.arch, "gfx90a");
        assert_string_equal(target.features, cases[i].features);
        fingerprint[i] = target.fingerprint;
    }
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (j = 0; j < i; j++)
            if ((fingerprint[i] == fingerprint[j]) != !strcmp(cases[i].features, cases[j].features))
                fail_msg("%s and %s: fingerprints %s", cases[i].name, cases[j].name,
                         fingerprint[i] == fingerprint[j] ? "equal" : "differ");
#else
    (void)state;
    SKIP_UNLESS(0, "hip: not enabled in this build");
#endif
}

/* >> numbers of the runtime that was loaded */
static unsigned fake_ipc_flags;
static int fake_ipc_open(void **p, xrt__gpu_ipc_handle h, unsigned flags)
{
    static char mapped[64];
    (void)h;
    fake_ipc_flags = flags;
    *p = mapped;
    return fake.fail;
}

/* The flags IpcOpenMemHandle got for xrt's `flags`. */
static unsigned ipc_flags_sent(xrt_backend *t, unsigned flags)
{
    xrt_ipc_mem_handle h;
    void *p = NULL;
    size_t size = 1;
    memset(&h, 0, sizeof h);
    fake_ipc_flags = 99;
    OK(xrt__gpu_ipc_open_mem_handle(t, &p, &size, &h, flags));
    assert_non_null(p);
    return fake_ipc_flags;
}

#ifdef XRT_ENABLE_HIP
/* A runtime's numbers: its version, its empty node, 1-D copy (-1: none),
   symbol copies and hipIpcMemLazyEnablePeerAccess. */
typedef struct { int version, empty, copy_1d, from_symbol, to_symbol; unsigned lazy; } hip_numbers;

static int node_type(xrt__gpu *g, int native)
{
    int type = -2;
    OK(xrt__gpu_node_type_of(g, &native, &type, "graph_node_get_type"));
    return type;
}

static void check_hip_numbers(xrt_backend *t, xrt__gpu *g, const hip_numbers *n)
{
    static int natives[4];
    void *nodes[4] = {&natives[0], &natives[1], &natives[2], &natives[3]};
    xrt_graph_info info;
    g->version = n->version;
    xrt__hip_versioned(g);
    /* the runtime's numbers, whatever the installed header's */
    assert_int_equal(node_type(g, n->empty), XRT_GRAPH_NODE_EMPTY);
    assert_int_equal(node_type(g, n->empty - 5), XRT_GRAPH_NODE_KERNEL);
    assert_int_equal(node_type(g, n->empty + 2), XRT_GRAPH_NODE_EVENT_RECORD);
    assert_int_equal(node_type(g, n->from_symbol), -1); /* counted as copies, no type of xrt's */
    if (n->copy_1d >= 0) assert_int_equal(node_type(g, n->copy_1d), XRT_GRAPH_NODE_MEMCPY);
    memset(&info, 0, sizeof info);
    natives[0] = n->empty - 4, natives[1] = n->from_symbol, natives[2] = n->to_symbol, natives[3] = n->empty;
    OK(xrt__gpu_count_nodes(g, nodes, 4, &info));
    assert_int_equal(info.copies, 3);
    assert_int_equal(info.kernels + info.sets + info.host_fns, 0);
    /* hipIpcOpenMemHandle takes its lazy flag only, for both of xrt's */
    assert_int_equal(ipc_flags_sent(t, 0), n->lazy);
    assert_int_equal(ipc_flags_sent(t, XRT_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), n->lazy);
}
#endif

/* Graph node types and the IPC open flag are the loaded runtime's numbers:
   HIP 5.2 numbers node types from 1 (a 1-D copy 9, symbol copies 10 and
   11), ROCm 5.3 on from 0 as CUDA (symbol copies 12 and 13); HIP's
   hipIpcOpenMemHandle takes nothing but its hipIpcMemLazyEnablePeerAccess,
   0 before ROCm 6 and 1 from it. CUDA takes xrt's flags as they are. */
static void test_runtime_numbers_fake_on(const char *name, xrt_backend *t, xrt__gpu *g)
{
    g->rt.IpcOpenMemHandle = fake_ipc_open;
    g->rt.GraphNodeGetType = fake_node_type;
    if (!strcmp(name, "hip")) {
#ifdef XRT_ENABLE_HIP
        static const hip_numbers runtimes[] = {{50221153, 6, 9, 10, 11, 0}, {50300000, 5, -1, 12, 13, 0},
                                               {50702310, 5, -1, 12, 13, 0}, {60032830, 5, -1, 12, 13, 1},
                                               {60443483, 5, -1, 12, 13, 1}};
        size_t i;
        for (i = 0; i < sizeof runtimes / sizeof runtimes[0]; i++) check_hip_numbers(t, g, &runtimes[i]);
        g->version = 60032830; /* HIP 5.2's empty node is a wait on ROCm 6 */
        xrt__hip_versioned(g);
        assert_int_equal(node_type(g, 6), XRT_GRAPH_NODE_WAIT_EVENT);
#endif
    } else {
        assert_int_equal(ipc_flags_sent(t, 0), 0);
        assert_int_equal(ipc_flags_sent(t, XRT_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), XRT_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
    }
}

static void test_runtime_numbers_fake(void **state)
{
    (void)state;
    on_each_fake_gpu(test_runtime_numbers_fake_on);
}

/* >> the HIP runtimes xrt supports: HIP 5 and ROCm 6. AMD documents ROCm
   7's HIP API as changed incompatibly (hipGetLastError's meaning among
   others), so a runtime of 7 or later (the unversioned libamdhip64.so, or
   XRT_HIP_LIBRARY) leaves the backend unavailable, saying why; a version
   the runtime does not tell (0) is taken as HIP 5's. */
static void test_hip_runtime_versions(void **state)
{
#ifdef XRT_ENABLE_HIP
    static const struct { int version, supported; } cases[] = {
        {50221153, 1}, {50702310, 1}, {60032830, 1}, {60443483, 1}, {0, 1},
        {69999999, 1}, {70000000, 0}, {70051830, 0}, {70100000, 0}, {80000000, 0},
    };
    xrt_backend t;
    xrt__gpu *g = gpu_table("hip", &t);
    char reason[512];
    size_t i;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        reason[0] = 0;
        if (xrt__hip_supported(cases[i].version, reason, sizeof reason) != cases[i].supported)
            fail_msg("HIP runtime %d: expected %s", cases[i].version, cases[i].supported ? "supported" : "refused");
        assert_true(cases[i].supported ? !reason[0] : strstr(reason, "ROCm 7") != NULL);
    }
    xrt__hip_supported(70051830, reason, sizeof reason);
    assert_string_equal(reason, "hipRuntimeGetVersion: 70051830 (HIP 7.0.51830): xrt supports the HIP runtimes of "
                                "HIP 5 and ROCm 6; ROCm 7 changed HIP's API incompatibly (hipGetLastError's meaning "
                                "among others)");
    /* the hook that the loaded runtime goes through refuses it before looking anything up */
    fake_begin(g);
    hip_ext_fake();
    g->version = 70051830;
    reason[0] = 0;
    assert_int_equal(g->loaded(g, reason, sizeof reason), 0);
    assert_non_null(strstr(reason, "hipRuntimeGetVersion: 70051830 (HIP 7.0.51830): "));
#else
    (void)state;
    SKIP_UNLESS(0, "hip: not enabled in this build");
#endif
}

/* The test's directory of runtimes, removed with what it holds by the
   teardown (hip_dir_restore), also after a failure. */
static char hip_dir[32];
static int hip_dir_restore(void **state)
{
    static const char *const files[] = {"libamdhip64.so.7.0.70000", "libamdhip64.so.7", "libamdhip64.so",
                                        "libamdhip64.so.6", "libamdhip64.so.7x", "ld.so.cache"};
    char path[128];
    size_t i;
#ifdef XRT_ENABLE_HIP
    xrt__gpu_ld_cache = "/etc/ld.so.cache";
#endif
    for (i = 0; hip_dir[0] && i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", hip_dir, files[i]);
        (void)unlink(path);
    }
    if (hip_dir[0] && rmdir(hip_dir) != 0) fail_msg("%s: not empty", hip_dir);
    hip_dir[0] = 0;
    return fakes_restore(state);
}
#ifdef XRT_ENABLE_HIP
/* A file of `bytes` zero bytes (not a library: dlopen says "file too short"). */
static void hip_file(const char *dir, const char *name, const void *bytes, size_t n)
{
    char path[512];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_non_null(f = fopen(path, "wb"));
    assert_int_equal(fwrite(bytes, 1, n, f), n);
    fclose(f);
}
static void hip_link(const char *dir, const char *name, const char *target)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(symlink(target, path), 0);
}
/* A loader cache ("glibc-ld.so.cache1.1") of one entry: name -> path. */
static void hip_ld_cache(const char *dir, const char *file, const char *name, const char *path)
{
    unsigned char c[600] = "glibc-ld.so.cache1.1";
    uint32_t one = 1, flags = 0x0303, key = 72, value = (uint32_t)(72 + strlen(name) + 1);
    memcpy(c + 20, &one, 4);
    memcpy(c + 48, &flags, 4), memcpy(c + 52, &key, 4), memcpy(c + 56, &value, 4);
    memcpy(c + key, name, strlen(name) + 1);
    memcpy(c + value, path, strlen(path) + 1);
    hip_file(dir, file, c, value + strlen(path) + 1);
}
static void hip_load_refused(xrt__gpu *g, const char *library, const char *expect)
{
    char reason[1024] = "";
    assert_int_equal(setenv("XRT_HIP_LIBRARY", library, 1), 0);
    assert_int_equal(xrt__gpu_load(g, reason, sizeof reason), 0);
    if (!strstr(reason, expect)) fail_msg("XRT_HIP_LIBRARY=%s: reason \"%s\" lacks \"%s\"", library, reason, expect);
}
#endif

/* ROCm 7's runtime is refused by its file's name before dlopen, so it is
   never mapped (a runtime once loaded stays mapped): named by
   XRT_HIP_LIBRARY itself or through links, or found as the unversioned
   libamdhip64.so where the loader would find it (here: its cache). A ROCm 6
   file is opened. */
static void test_hip_rocm7_refused_by_name(void **state)
{
#ifdef XRT_ENABLE_HIP
    static const char why[] = "the HIP runtime of ROCm 7: xrt supports the HIP runtimes of HIP 5 and ROCm 6; ROCm 7 "
                              "changed HIP's API incompatibly (hipGetLastError's meaning among others)";
    xrt_backend t;
    xrt__gpu *g = gpu_table("hip", &t);
    char *dir = hip_dir, path[128], expect[1024], reason[1024];
    (void)state;
    snprintf(hip_dir, sizeof hip_dir, "/tmp/xrt-hip-XXXXXX");
    assert_non_null(mkdtemp(dir));
    hip_file(dir, "libamdhip64.so.7.0.70000", "", 0);
    hip_link(dir, "libamdhip64.so.7", "libamdhip64.so.7.0.70000");
    snprintf(path, sizeof path, "%s/libamdhip64.so.7", dir);
    hip_link(dir, "libamdhip64.so", path); /* an absolute link */
    hip_file(dir, "libamdhip64.so.6", "", 0);
    hip_file(dir, "libamdhip64.so.7x", "", 0); /* not a major version's name */

    snprintf(path, sizeof path, "%s/libamdhip64.so", dir);
    snprintf(expect, sizeof expect, "XRT_HIP_LIBRARY=%s: %s/libamdhip64.so.7: %s", path, dir, why);
    hip_load_refused(g, path, expect);
    snprintf(path, sizeof path, "%s/libamdhip64.so.7.0.70000", dir);
    snprintf(expect, sizeof expect, "XRT_HIP_LIBRARY=%s: %s: %s", path, path, why);
    hip_load_refused(g, path, expect);
    snprintf(expect, sizeof expect, "XRT_HIP_LIBRARY=libamdhip64.so.7: libamdhip64.so.7: %s", why);
    hip_load_refused(g, "libamdhip64.so.7", expect);
    /* opened (and not a library): not refused by its name */
    snprintf(path, sizeof path, "%s/libamdhip64.so.6", dir);
    hip_load_refused(g, path, "file too short");
    snprintf(path, sizeof path, "%s/libamdhip64.so.7x", dir);
    hip_load_refused(g, path, "file too short");
    assert_null(g->lib);

    /* the unversioned name, found as the loader finds it */
    snprintf(path, sizeof path, "%s/libamdhip64.so", dir);
    hip_ld_cache(dir, "ld.so.cache", "libamdhip64.so", path);
    snprintf(path, sizeof path, "%s/ld.so.cache", dir);
    xrt__gpu_ld_cache = path;
    reason[0] = 0;
    assert_int_equal(xrt__gpu_refused_file(g, "libamdhip64.so", reason, sizeof reason), 1);
    snprintf(expect, sizeof expect, "%s/libamdhip64.so.7: %s", dir, why);
    assert_string_equal(reason, expect);
    assert_int_equal(xrt__gpu_refused_file(g, "libamdhip64.so.6", reason, sizeof reason), 0);
#else
    (void)state;
    SKIP_UNLESS(0, "hip: not enabled in this build");
#endif
}

/* >> host registration flags: what HostRegister is handed is the loaded
   runtime's meaning of xrt's flags. CUDA takes them as they are; HIP's
   hipHostRegister agrees on portable, mapped and I/O memory, but its 8 is
   hipExtHostRegisterCoarseGrained (HIP 5.2; in ROCm 6 also
   hipHostRegisterReadOnly, "ignored on AMD devices"): a read-only
   registration is XRT_ERROR_UNSUPPORTED there, and the runtime is not
   called. */
static unsigned fake_register_flags;
static int fake_register_calls;
static int fake_host_register(void *p, size_t n, unsigned flags)
{
    (void)p, (void)n;
    fake_register_calls++;
    fake_register_flags = flags;
    return 0;
}

static void test_host_register_flags_fake_on(const char *name, xrt_backend *t, xrt__gpu *g)
{
    static const int versions[] = {50221153, 60032830, 60443483}; /* HIP's: HIP 5.2, ROCm 6.0 and 6.4 */
    static char range[4096];
    const unsigned ro = XRT_HOST_REGISTER_READ_ONLY;
    size_t i, n = strcmp(name, "hip") ? 1 : sizeof versions / sizeof versions[0];
    g->rt.HostRegister = fake_host_register;
    for (i = 0; i < n; i++) {
#ifdef XRT_ENABLE_HIP
        if (!strcmp(name, "hip")) g->version = versions[i], xrt__hip_versioned(g);
#endif
        fake_register_calls = 0;
        OK(xrt__gpu_host_register(t, range, sizeof range, XRT_HOST_REGISTER_PORTABLE | XRT_HOST_REGISTER_MAPPED));
        assert_int_equal(fake_register_flags, XRT_HOST_REGISTER_PORTABLE | XRT_HOST_REGISTER_MAPPED);
        OK(xrt__gpu_host_register(t, range, sizeof range, XRT_HOST_REGISTER_IO_MEMORY));
        assert_int_equal(fake_register_flags, XRT_HOST_REGISTER_IO_MEMORY);
        assert_int_equal(fake_register_calls, 2);
        if (!strcmp(name, "hip")) {
            FAILS(xrt__gpu_host_register(t, range, sizeof range, ro | XRT_HOST_REGISTER_MAPPED), XRT_ERROR_UNSUPPORTED,
                  "hip: xrt_host_register: XRT_HOST_REGISTER_READ_ONLY: the HIP runtime has no read-only registration");
            assert_int_equal(fake_register_calls, 2);
        } else {
            OK(xrt__gpu_host_register(t, range, sizeof range, ro | XRT_HOST_REGISTER_MAPPED));
            assert_int_equal(fake_register_flags, ro | XRT_HOST_REGISTER_MAPPED);
        }
    }
}

static void test_host_register_flags_fake(void **state)
{
    (void)state;
    xrt_test_log_capture();
    on_each_fake_gpu(test_host_register_flags_fake_on);
}

/* >> dma-buf export */

/* Whole host pages around the range, for any page size. */
static void test_dmabuf_page_range(void **state)
{
#if defined(XRT_ENABLE_CUDA) || defined(XRT_ENABLE_HIP)
    static const struct { uintptr_t p; size_t size, page; uintptr_t start; size_t len; } cases[] = {
        {0x10000, 1, 4096, 0x10000, 4096},
        {0x10000, 4096, 4096, 0x10000, 4096},
        {0x10064, 4096, 4096, 0x10000, 8192},
        {0x10fff, 2, 4096, 0x10000, 8192},
        {0x11000, 4097, 4096, 0x11000, 8192},
        {0x200064, (2u << 20) - 100, 4096, 0x200000, 2u << 20},
        {0x12345, 10, 65536, 0x10000, 65536},
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uintptr_t start = 0;
        size_t len = 0;
        xrt__gpu_page_range(cases[i].p, cases[i].size, cases[i].page, &start, &len);
        if (start != cases[i].start || len != cases[i].len)
            fail_msg("case %zu: [%#lx, +%zu) -> %#lx +%zu", i, (unsigned long)cases[i].p, cases[i].size,
                     (unsigned long)start, len);
    }
#else
    (void)state;
    SKIP_UNLESS(0, "no GPU backend in this build");
#endif
}

#if defined(XRT_ENABLE_CUDA) || defined(XRT_ENABLE_HIP)
/* What both runtimes' fake "get a handle for an address range" record. */
static int fake_get_handle(int *handle, uintptr_t ptr, size_t size, int type, unsigned long long flags, int fd)
{
    fake.handle_ptr = ptr;
    fake.handle_len = size;
    fake.handle_type = type;
    fake.handle_flags = flags;
    if (fake.fail) return fake.fail;
    *handle = fd;
    return 0;
}
#endif

#ifdef XRT_ENABLE_CUDA
/* The driver's names; its texts for the image errors, "fake driver failure" otherwise. */
static int fake_cu_error_name(int e, const char **name)
{
    *name = e == CUDA_ERROR_INVALID_VALUE ? "CUDA_ERROR_INVALID_VALUE"
          : e == CUDA_ERROR_OUT_OF_MEMORY ? "CUDA_ERROR_OUT_OF_MEMORY"
          : e == CUDA_ERROR_INVALID_IMAGE ? "CUDA_ERROR_INVALID_IMAGE"
          : e == CUDA_ERROR_INVALID_PTX ? "CUDA_ERROR_INVALID_PTX"
          : e == CUDA_ERROR_INVALID_HANDLE ? "CUDA_ERROR_INVALID_HANDLE"
          : e == CUDA_ERROR_INVALID_CONTEXT ? "CUDA_ERROR_INVALID_CONTEXT"
          : e == CUDA_ERROR_NOT_SUPPORTED ? "CUDA_ERROR_NOT_SUPPORTED" : "CUDA_ERROR_UNKNOWN";
    return 0;
}
static int fake_cu_error_string(int e, const char **text)
{
    *text = e == CUDA_ERROR_INVALID_IMAGE ? "device kernel image is invalid"
          : e == CUDA_ERROR_INVALID_PTX ? "a PTX JIT compilation failed" : "fake driver failure";
    return 0;
}
static int fake_cu_device_get(int *device, int ordinal)
{
    *device = ordinal + 100; /* a CUdevice is not the ordinal */
    return 0;
}
static int fake_cu_attribute(int *value, int attr, int device)
{
    assert_int_equal(attr, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED);
    assert_true(device >= 100);
    *value = fake.supported;
    return 0;
}
static int fake_cu_get_handle(void *handle, unsigned long long ptr, size_t size, int type, unsigned long long flags)
{
    return fake_get_handle((int *)handle, (uintptr_t)ptr, size, type, flags, 77);
}
#endif


/* >> the CUDA driver's double, for modules: as strict as the driver (what an
   H200 showed, driver 580). It takes no image size and reads an image as far
   as its own headers say (an ELF's header tables and sections, a fatbin's
   header, PTX to its NUL), copying those bytes, so a short buffer is an ASan
   error as on the driver. It tells the format from the bytes, as the driver
   does; a cubin, a fatbin or PTX with .version, .target and balanced braces
   loads. A library loads lazily: cuLibraryLoadData succeeds on anything,
   writes what is wrong into the JIT error log, and the error (INVALID_IMAGE
   for what it does not recognise, INVALID_PTX for PTX that does not
   compile) comes from every call that looks into the library
   (cuLibraryGetKernel, cuLibraryGetKernelCount); a module (cuModuleLoadDataEx)
   fails at once. A library's kernel (a CUkernel, 0x6789) is not a module's
   function (a CUfunction, 0x5678): cuFuncGetParamInfo refuses it. Every call
   fails with fk.fail[its CU_ row] when that is set. */
#ifdef XRT_ENABLE_CUDA
enum { CU_LOAD, CU_UNLOAD, CU_FUNCTION, CU_LAUNCH, CU_ATTRIBUTE, CU_FUNC_PARAMS, CU_LIB_LOAD, CU_LIB_UNLOAD,
       CU_LIB_KERNEL, CU_LIB_COUNT, CU_KERNEL_FUNCTION, CU_KERNEL_PARAMS, CU_CALLS };
#define CU_MODULE ((void *)(uintptr_t)0x1234)
#define CU_FUNCTION_HANDLE ((void *)(uintptr_t)0x5678)
#define CU_KERNEL_HANDLE ((void *)(uintptr_t)0x6789)
#define CU_KERNEL_FUNCTION_HANDLE ((void *)(uintptr_t)0x9999) /* cuKernelGetFunction's */
#define CU_GLOBAL 0xd0000100ull /* the module's one variable, `g` (4 bytes) */
static int cu_function(void *f) { return f == CU_FUNCTION_HANDLE || f == CU_KERNEL_FUNCTION_HANDLE; }
typedef struct { int live, verdict; } cu_lib;
static struct {
    int fail[CU_CALLS];
    int loads, unloads;
    char image[32]; /* what the last load read: "cubin sm_90", "fatbin", or the first line of PTX */
    unsigned dims[7];
    void *stream;
    unsigned char args[64];
    size_t args_size;
    void *end; /* CU_LAUNCH_PARAM_END (0: as memset leaves it) or HIP_LAUNCH_PARAM_END */
    int library_loads, library_unloads, kernel_functions, kernel_counts;
    int launches, contexts; /* cuLaunchKernel's calls; the runtime's cudaFree(NULL), which makes the context */
    int synchronize; /* what cudaDeviceSynchronize returns: an error of earlier work */
    int max_dynamic_shared; /* what cuFuncSetAttribute set (0: the default, 48 KiB less the static 256) */
    cu_lib libs[4]; /* a CUlibrary is &libs[i] */
    unsigned nattrs;     /* cuLaunchKernelEx's: the number of attributes, the first's id and priority */
    int attr_id, attr_priority;
} fk;

static int fake_rt_attribute(int *v, int attr, int device)
{
    (void)device;
    *v = attr == cudaDevAttrComputeCapabilityMajor ? 9 : attr == cudaDevAttrComputeCapabilityMinor ? 0
       : attr == cudaDevAttrWarpSize ? 32 : 132;
    return 0;
}
static int fake_rt_synchronize(void) { return fk.synchronize; }
static int fake_rt_free(void *p)
{
    fk.contexts += p == NULL;
    return 0;
}

/* Copies n bytes of the image from p, as the driver reads them. */
static void cu_read(const void *p, uint64_t n)
{
    void *copy = malloc(n ? (size_t)n : 1);
    assert_non_null(copy);
    memcpy(copy, p, (size_t)n);
    free(copy);
}

static uint64_t cu_le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    while (bytes--) v = v << 8 | p[bytes];
    return v;
}

/* An ELF: its header, then its header tables, then to the end of its furthest section. */
static void cu_read_elf(const unsigned char *p)
{
    unsigned char h[64];
    uint64_t end, i, e;
    memcpy(h, p, sizeof h);
    end = sizeof h;
    if ((e = cu_le(h + 32, 8) + cu_le(h + 56, 2) * cu_le(h + 54, 2)) > end) end = e;
    if ((e = cu_le(h + 40, 8) + cu_le(h + 60, 2) * cu_le(h + 58, 2)) > end) end = e;
    cu_read(p, end);
    for (i = 0; i < cu_le(h + 60, 2); i++) {
        const unsigned char *sh = p + cu_le(h + 40, 8) + i * cu_le(h + 58, 2);
        if (cu_le(sh + 4, 4) != 8 && (e = cu_le(sh + 24, 8) + cu_le(sh + 32, 8)) > end) end = e;
    }
    cu_read(p, end);
    snprintf(fk.image, sizeof fk.image, "cubin sm_%u", (unsigned)((cu_le(h + 48, 4) >> 8) & 0xff));
}

/* PTX "compiles" when it has .version and .target and its braces balance. */
static int cu_ptx_verdict(const char *text, char *log, size_t n)
{
    const char *c;
    int depth = 0;
    for (c = text; *c; c++) depth += *c == '{' ? 1 : *c == '}' ? -1 : 0;
    if (!strstr(text, ".version")) {
        snprintf(log, n, "error   : Binary format for key='0', ident='' is not recognized");
        return CUDA_ERROR_INVALID_IMAGE;
    }
    if (!strstr(text, ".target") || depth != 0) {
        snprintf(log, n, "ptxas application ptx input, line 1; error   : syntax error");
        return CUDA_ERROR_INVALID_PTX;
    }
    return 0;
}

/* Reads the image as the driver does; its verdict (0 or the driver's error),
   what is wrong in the JIT error log. */
static int cu_image(const void *image, int *options, void **values, unsigned n)
{
    const unsigned char *p = (const unsigned char *)image;
    char *log = NULL, scratch[128];
    size_t log_size = 0;
    unsigned i;
    for (i = 0; i < n; i++)
        if (options[i] == CU_JIT_ERROR_LOG_BUFFER) log = (char *)values[i];
        else if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES) log_size = (size_t)(uintptr_t)values[i];
    if (!log || !log_size) log = scratch, log_size = sizeof scratch;
    log[0] = 0;
    if (!memcmp(p, "\177ELF", 4)) {
        cu_read_elf(p);
        return 0;
    }
    if (cu_le(p, 4) == 0xBA55ED50u) {
        cu_read(p, cu_le(p + 6, 2) + cu_le(p + 8, 8));
        snprintf(fk.image, sizeof fk.image, "fatbin");
        return 0;
    }
    cu_read(p, strlen((const char *)p) + 1);
    snprintf(fk.image, sizeof fk.image, "%.*s", (int)strcspn((const char *)p, "\n"), (const char *)p);
    return cu_ptx_verdict((const char *)p, log, log_size);
}

static int fake_cu_load(void **m, const void *image, unsigned n, int *options, void **values)
{
    int e;
    fk.loads++;
    if ((e = cu_image(image, options, values, n)) != 0) return e;
    if (fk.fail[CU_LOAD]) return fk.fail[CU_LOAD];
    *m = CU_MODULE;
    return 0;
}
static int fake_cu_unload(void *m)
{
    assert_ptr_equal(m, CU_MODULE);
    fk.unloads++;
    return fk.fail[CU_UNLOAD];
}
static int fake_cu_function(void **f, void *m, const char *name)
{
    assert_ptr_equal(m, CU_MODULE);
    if (fk.fail[CU_FUNCTION]) return fk.fail[CU_FUNCTION];
    if (strcmp(name, "k") != 0) return CUDA_ERROR_NOT_FOUND;
    *f = CU_FUNCTION_HANDLE;
    return 0;
}
static int fake_cu_launch(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                          unsigned shared, void *stream, void **params, void **extra)
{
    assert_true(f == CU_FUNCTION_HANDLE || f == CU_KERNEL_HANDLE); /* a CUkernel launches as a CUfunction */
    assert_null(params);
    fk.launches++;
    if (fk.fail[CU_LAUNCH]) return fk.fail[CU_LAUNCH];
    fk.dims[0] = gx, fk.dims[1] = gy, fk.dims[2] = gz, fk.dims[3] = bx, fk.dims[4] = by, fk.dims[5] = bz;
    fk.dims[6] = shared;
    fk.stream = stream;
    fk.args_size = 0;
    if (extra) {
        assert_ptr_equal(extra[0], CU_LAUNCH_PARAM_BUFFER_POINTER);
        assert_ptr_equal(extra[2], CU_LAUNCH_PARAM_BUFFER_SIZE);
        assert_ptr_equal(extra[4], fk.end);
        fk.args_size = *(size_t *)extra[3];
        memcpy(fk.args, extra[1], fk.args_size);
    }
    return 0;
}
/* cuLaunchKernelEx: the config as cuLaunchKernel's arguments; an attribute
   list the driver would refuse (NULL with a count, an id past CUDA 13's) is
   CUDA_ERROR_INVALID_VALUE. */
static int fake_cu_launch_ex(const void *config, void *f, void **params, void **extra)
{
    const CUlaunchConfig *c = (const CUlaunchConfig *)config;
    unsigned i;
    int e;
    if (!c || (c->numAttrs && !c->attrs)) return CUDA_ERROR_INVALID_VALUE;
    for (i = 0; i < c->numAttrs; i++)
        if ((int)c->attrs[i].id < 0 || (int)c->attrs[i].id > 16) return CUDA_ERROR_INVALID_VALUE;
    e = fake_cu_launch(f, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY, c->blockDimZ,
                       c->sharedMemBytes, c->hStream, params, extra);
    fk.nattrs = c->numAttrs;
    fk.attr_id = c->numAttrs ? (int)c->attrs[0].id : -1;
    fk.attr_priority = c->numAttrs ? c->attrs[0].value.priority : 0;
    return e;
}
static int fake_cu_library_load(void **lib, const void *code, int *options, void **values, unsigned n, int *lo,
                                void **lv, unsigned ln)
{
    int i, verdict;
    (void)lo, (void)lv;
    assert_int_equal(ln, 0);
    verdict = cu_image(code, options, values, n); /* kept for the first lookup */
    if (fk.fail[CU_LIB_LOAD]) return fk.fail[CU_LIB_LOAD];
    for (i = 0; i < 4 && fk.libs[i].live; i++) {}
    assert_true(i < 4);
    fk.libs[i].live = 1, fk.libs[i].verdict = verdict;
    fk.library_loads++;
    *lib = &fk.libs[i];
    return 0;
}
/* The library's verdict, or CUDA_ERROR_INVALID_HANDLE for one not loaded. */
static int cu_library(void *lib)
{
    int i;
    for (i = 0; i < 4; i++)
        if (lib == (void *)&fk.libs[i]) return fk.libs[i].live ? fk.libs[i].verdict : CUDA_ERROR_INVALID_HANDLE;
    return CUDA_ERROR_INVALID_HANDLE;
}
static int fake_cu_library_unload(void *lib)
{
    int e = cu_library(lib);
    if (e == CUDA_ERROR_INVALID_HANDLE) return e;
    ((cu_lib *)lib)->live = 0;
    fk.library_unloads++;
    return fk.fail[CU_LIB_UNLOAD];
}
static int fake_cu_library_kernel(void **k, void *lib, const char *name)
{
    int e = cu_library(lib);
    if (e || (e = fk.fail[CU_LIB_KERNEL]) != 0) return e;
    if (strcmp(name, "k") != 0) return CUDA_ERROR_NOT_FOUND;
    *k = CU_KERNEL_HANDLE; /* what fake_cu_launch expects */
    return 0;
}
static int fake_cu_library_count(unsigned *count, void *lib)
{
    int e = cu_library(lib);
    fk.kernel_counts++;
    if (e || (e = fk.fail[CU_LIB_COUNT]) != 0) return e;
    *count = 1;
    return 0;
}
static int fake_cu_kernel_function(void **f, void *k)
{
    assert_ptr_equal(k, CU_KERNEL_HANDLE);
    if (fk.fail[CU_KERNEL_FUNCTION]) return fk.fail[CU_KERNEL_FUNCTION];
    fk.kernel_functions++;
    *f = CU_KERNEL_FUNCTION_HANDLE;
    return 0;
}
/* a kernel (float, pointer, unsigned) as saxpy's: its parameters end at 20 */
static int cu_param_info(int fail, size_t i, size_t *offset, size_t *size)
{
    static const size_t at[] = {0, 8, 16}, bytes[] = {4, 8, 4};
    if (fail) return fail;
    if (i >= 3) return CUDA_ERROR_INVALID_VALUE;
    *offset = at[i], *size = bytes[i];
    return 0;
}
static int fake_cu_func_param_info(void *f, size_t i, size_t *offset, size_t *size)
{
    if (f != CU_FUNCTION_HANDLE) return CUDA_ERROR_INVALID_HANDLE; /* a CUkernel is not a CUfunction here */
    return cu_param_info(fk.fail[CU_FUNC_PARAMS], i, offset, size);
}
static int fake_cu_kernel_param_info(void *k, size_t i, size_t *offset, size_t *size)
{
    if (k != CU_KERNEL_HANDLE) return CUDA_ERROR_INVALID_HANDLE;
    return cu_param_info(fk.fail[CU_KERNEL_PARAMS], i, offset, size);
}
static int fake_cu_func_attribute(int *v, int attr, void *f)
{
    if (!cu_function(f)) return CUDA_ERROR_INVALID_HANDLE;
    if (fk.fail[CU_ATTRIBUTE]) return fk.fail[CU_ATTRIBUTE];
    *v = attr == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK ? 1024 : attr == CU_FUNC_ATTRIBUTE_NUM_REGS ? 40
       : attr == CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES ? 256 : 49152;
    return 0;
}

/* A function's attributes and occupancy, as the driver tells them for a
   kernel of 256 bytes of static shared memory on an sm_90 of 132 SMs (2048
   threads, 32 blocks, 228 KiB of shared memory an SM, 1 KiB of it reserved
   a block, 227 KiB a block with opt-in): a handle that is not a CUfunction
   is CUDA_ERROR_INVALID_HANDLE, a NULL out pointer, a block size that is not
   positive, an attribute that cannot be set or a value out of its range
   CUDA_ERROR_INVALID_VALUE; a block that cannot run gives 0 blocks. */
#define CU_STATIC_SHARED 256
#define CU_OPTIN_SHARED (227 * 1024)
static int fake_cu_func_set_attribute(void *f, int attr, int value)
{
    if (!cu_function(f)) return CUDA_ERROR_INVALID_HANDLE;
    if (attr == CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT)
        return value >= -1 && value <= 100 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    if (attr != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) return CUDA_ERROR_INVALID_VALUE; /* read-only */
    if (value < 0 || value > CU_OPTIN_SHARED - CU_STATIC_SHARED) return CUDA_ERROR_INVALID_VALUE;
    fk.max_dynamic_shared = value;
    return CUDA_SUCCESS;
}
static int cu_blocks_per_sm(int block, size_t shared)
{
    size_t limit = fk.max_dynamic_shared ? (size_t)fk.max_dynamic_shared : 48 * 1024 - CU_STATIC_SHARED;
    int warps = (block + 31) / 32, by_threads = 64 / warps, by_shared;
    if (block > 1024 || shared > limit) return 0;
    by_shared = (int)((228 * 1024) / (shared + CU_STATIC_SHARED + 1024));
    return by_threads < by_shared ? (by_threads < 32 ? by_threads : 32) : (by_shared < 32 ? by_shared : 32);
}
static int fake_cu_occupancy_blocks(int *blocks, void *f, int block, size_t shared)
{
    if (!cu_function(f)) return CUDA_ERROR_INVALID_HANDLE;
    if (!blocks || block <= 0) return CUDA_ERROR_INVALID_VALUE;
    *blocks = cu_blocks_per_sm(block, shared);
    return CUDA_SUCCESS;
}
/* The largest block (a multiple of the warp) of the most threads an SM. */
static int fake_cu_occupancy_block_size(int *min_grid, int *block, void *f, size_t (*to_shared)(int), size_t shared,
                                        int limit)
{
    int b, best = 0, best_threads = 0;
    if (!cu_function(f)) return CUDA_ERROR_INVALID_HANDLE;
    if (!min_grid || !block || limit < 0) return CUDA_ERROR_INVALID_VALUE;
    for (b = 32; b <= 1024 && (!limit || b <= limit); b += 32) {
        int threads = cu_blocks_per_sm(b, to_shared ? to_shared(b) : shared) * b;
        if (threads >= best_threads && threads > 0) best = b, best_threads = threads;
    }
    *block = best;
    *min_grid = best ? cu_blocks_per_sm(best, to_shared ? to_shared(best) : shared) * 132 : 0;
    return CUDA_SUCCESS;
}
/* cuModuleGetGlobal / cuLibraryGetGlobal: `g` is the one variable; either
   out pointer may be NULL (the driver ignores it). */
static int cu_global(unsigned long long *ptr, size_t *bytes, const char *name)
{
    if (!name) return CUDA_ERROR_INVALID_VALUE;
    if (strcmp(name, "g") != 0) return CUDA_ERROR_NOT_FOUND;
    if (ptr) *ptr = CU_GLOBAL;
    if (bytes) *bytes = 4;
    return CUDA_SUCCESS;
}
static int fake_cu_module_global(unsigned long long *ptr, size_t *bytes, void *m, const char *name)
{
    return m != CU_MODULE ? CUDA_ERROR_INVALID_HANDLE : cu_global(ptr, bytes, name);
}
static int fake_cu_library_global(unsigned long long *ptr, size_t *bytes, void *lib, const char *name)
{
    int e = cu_library(lib);
    return e ? e : cu_global(ptr, bytes, name);
}

/* Puts the driver's double in place, with every entry point (with_libraries:
   also the CUDA 12 library ones), on g's fake runtime. */
static void fake_driver(xrt__gpu *g, int with_libraries)
{
    g->rt.DeviceGetAttribute = fake_rt_attribute;
    g->rt.DeviceSynchronize = fake_rt_synchronize;
    g->rt.Free = fake_rt_free;
    driver_saved = xrt__cuda_drv;
    driver_faked = 1;
    memset(&xrt__cuda_drv, 0, sizeof xrt__cuda_drv);
    memset(&fk, 0, sizeof fk);
    xrt__cuda_drv.GetErrorName = fake_cu_error_name;
    xrt__cuda_drv.GetErrorString = fake_cu_error_string;
    xrt__cuda_drv.ModuleLoadDataEx = fake_cu_load;
    xrt__cuda_drv.ModuleUnload = fake_cu_unload;
    xrt__cuda_drv.ModuleGetFunction = fake_cu_function;
    xrt__cuda_drv.LaunchKernel = fake_cu_launch;
    xrt__cuda_drv.LaunchKernelEx = fake_cu_launch_ex;
    xrt__cuda_drv.FuncGetAttribute = fake_cu_func_attribute;
    xrt__cuda_drv.FuncGetParamInfo = fake_cu_func_param_info;
    xrt__cuda_drv.FuncSetAttribute = fake_cu_func_set_attribute;
    xrt__cuda_drv.OccupancyMaxActiveBlocksPerMultiprocessor = fake_cu_occupancy_blocks;
    xrt__cuda_drv.OccupancyMaxPotentialBlockSize = fake_cu_occupancy_block_size;
    xrt__cuda_drv.ModuleGetGlobal = fake_cu_module_global;
    if (with_libraries) {
        xrt__cuda_drv.LibraryGetGlobal = fake_cu_library_global;
        xrt__cuda_drv.LibraryLoadData = fake_cu_library_load;
        xrt__cuda_drv.LibraryUnload = fake_cu_library_unload;
        xrt__cuda_drv.LibraryGetKernel = fake_cu_library_kernel;
        xrt__cuda_drv.LibraryGetKernelCount = fake_cu_library_count;
        xrt__cuda_drv.KernelGetFunction = fake_cu_kernel_function;
        xrt__cuda_drv.KernelGetParamInfo = fake_cu_kernel_param_info;
    }
    xrt__cuda_drv.lib = &driver_saved; /* "loaded" */
}

/* Small images that pass xrt's checks, each told apart by what the double
   reads: an ELF header alone (a cubin for sm_XY) and PTX text. */
static void mini_cubin(unsigned char elf[64], unsigned sm)
{
    memset(elf, 0, 64);
    memcpy(elf, "\177ELF\2\1\1", 7);
    elf[18] = 190; /* EM_CUDA */
    elf[49] = (unsigned char)sm; /* e_flags: the SM in bits 8..15 */
    elf[52] = 64; /* e_ehsize */
}
#endif

#ifdef XRT_ENABLE_CUDA
/* A copy of n bytes of p that ends where an unreadable page begins, so that
   reading one byte past it faults in any build; free with guarded_free. */
static void *guarded(const void *p, size_t n, size_t *mapped)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = (n + page - 1) / page + 1;
    unsigned char *m = (unsigned char *)mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(m != MAP_FAILED);
    assert_int_equal(mprotect(m + (pages - 1) * page, page, PROT_NONE), 0);
    *mapped = pages * page;
    memcpy(m + (pages - 1) * page - n, p, n);
    return m + (pages - 1) * page - n;
}
static void guarded_free(void *p, size_t n, size_t mapped)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    munmap((unsigned char *)p + n - (mapped - page), mapped);
}

/* xrt refuses the image with XRT_ERROR_INVALID_IMAGE and exactly `detail`,
   and the driver never sees it. */
static void cuda_refused(xrt_backend *t, xrt_image_kind kind, const char *arch, const void *data, size_t size,
                         const char *detail)
{
    xrt_module_image im;
    void *mod = NULL;
    char log[64];
    int loads = fk.library_loads + fk.loads;
    im.kind = kind, im.data = data, im.size = size, im.arch = arch;
    FAILS(xrt__gpu_module_load(t, &mod, &im, 1, "", log, sizeof log), XRT_ERROR_INVALID_IMAGE, detail);
    assert_string_equal(xrt_get_last_error_string(), detail);
    assert_null(mod);
    assert_int_equal(fk.library_loads + fk.loads, loads);
}

/* Loads and unloads the image: what the driver read of it. */
static const char *cuda_loaded(xrt_backend *t, const xrt_module_image *im)
{
    void *mod = NULL;
    char log[64];
    OK(xrt__gpu_module_load(t, &mod, im, 1, "", log, sizeof log));
    OK(xrt__gpu_module_unload(t, mod));
    return fk.image;
}

/* A little-endian 64-bit field of an ELF. */
static uint64_t elf_u64(const unsigned char *p)
{
    uint64_t v = 0;
    int i;
    for (i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

/* The end of an ELF's header tables. */
static size_t elf_tables_end(const unsigned char *p)
{
    size_t ph = (size_t)(p[32] | p[33] << 8 | p[34] << 16) + (size_t)(p[56] | p[57] << 8) * (size_t)(p[54] | p[55] << 8),
           sh = (size_t)(p[40] | p[41] << 8 | p[42] << 16) + (size_t)(p[60] | p[61] << 8) * (size_t)(p[58] | p[59] << 8);
    return ph > sh ? ph : sh;
}
#endif

/* A module unloaded while a capture, graph or exec may launch its kernels
   stays loaded; the next module unloaded once none lives takes it along. */
#ifdef XRT_ENABLE_CUDA
/* The CUDA table on the fake runtime and driver, with graphs. */
static const char fake_ptx80[] = "// ptx80\n.version 8.0\n.target sm_80\n";
static const xrt_module_image fake_ptx80_image = {XRT_IMAGE_CUDA_PTX, fake_ptx80, sizeof fake_ptx80 - 1, "compute_80"};
static xrt__gpu *fake_cuda_graphs(xrt_backend *t)
{
    xrt__gpu *g = gpu_table("cuda", t);
    fake_begin(g);
    fake_driver(g, 0);
    fake_graphs(g);
    return g;
}
#endif

#ifdef XRT_ENABLE_CUDA
static void *fake_current_context;
static int fake_cu_ctx_current(void **ctx)
{
    *ctx = fake_current_context;
    return 0;
}
#endif

/* The runtime makes the primary context current with cudaFree(0), one of
   CUDA's unsafe calls in a capture (it would invalidate one): xrt makes it
   only where the driver says no context is current, as in no capture. */
static void test_cuda_context_made_only_where_none_is_current_fake(void **state)
{
#ifdef XRT_ENABLE_CUDA
    xrt_backend t;
    xrt__gpu *g = fake_cuda_graphs(&t);
    xrt_module_image im = fake_ptx80_image;
    void *m = NULL, *graph = NULL;
    int ctx;
    (void)state;
    xrt__cuda_drv.CtxGetCurrent = fake_cu_ctx_current;
    fake_current_context = NULL;
    fk.contexts = 0;
    OK(xrt__gpu_module_load(&t, &m, &im, 1, "", NULL, 0));
    assert_int_equal(fk.contexts, 1); /* none was current: the runtime made it */
    OK(xrt__gpu_module_unload(&t, m));
    fake_current_context = &ctx;
    fk.contexts = 0;
    OK(xrt__gpu_stream_begin_capture(&t, &fake, XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt__gpu_module_load(&t, &m, &im, 1, "", NULL, 0));
    assert_int_equal(fk.contexts, 0); /* current: no cudaFree(0) to invalidate the capture */
    OK(xrt__gpu_module_unload(&t, m)); /* kept while the capture may hold it */
    OK(xrt__gpu_stream_end_capture(&t, &fake, &graph));
    OK(xrt__gpu_graph_destroy(&t, graph));
    xrt__cuda_drv.CtxGetCurrent = NULL; /* a driver without it: the runtime's way, as before */
    fk.contexts = 0;
    OK(xrt__gpu_module_load(&t, &m, &im, 1, "", NULL, 0));
    assert_int_equal(fk.contexts, 1);
    OK(xrt__gpu_module_unload(&t, m)); /* no graph lives: it and the one kept go */
    assert_int_equal(g->graphs, 0);
    fake_end();
#else
    (void)state;
    SKIP_UNLESS(0, "cuda: not enabled in this build");
#endif
}

static void test_cuda_module_kept_for_graphs_fake(void **state)
{
#ifdef XRT_ENABLE_CUDA
    xrt_backend t;
    xrt__gpu *g = fake_cuda_graphs(&t);
    xrt_module_image im = fake_ptx80_image;
    void *m1 = NULL, *m2 = NULL, *graph = NULL, *exec = NULL;
    int unloads;
    (void)state;
    OK(xrt__gpu_module_load(&t, &m1, &im, 1, "", NULL, 0));
    unloads = fk.unloads;
    OK(xrt__gpu_stream_begin_capture(&t, &fake, XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt__gpu_module_unload(&t, m1)); /* the capture may hold its kernels */
    assert_int_equal(fk.unloads, unloads);
    OK(xrt__gpu_stream_end_capture(&t, &fake, &graph));
    OK(xrt__gpu_graph_instantiate(&t, &exec, graph));
    OK(xrt__gpu_graph_destroy(&t, graph));
    OK(xrt__gpu_module_load(&t, &m2, &im, 1, "", NULL, 0));
    OK(xrt__gpu_module_unload(&t, m2)); /* the exec lives */
    assert_int_equal(fk.unloads, unloads);
    OK(xrt__gpu_graph_exec_destroy(&t, exec));
    OK(xrt__gpu_module_load(&t, &m1, &im, 1, "", NULL, 0));
    OK(xrt__gpu_module_unload(&t, m1)); /* none lives: it and the two kept */
    assert_int_equal(fk.unloads, unloads + 3);
    /* a capture that ends invalidated drops its count */
    fake.fail = 901;
    assert_int_equal(xrt__gpu_stream_begin_capture(&t, &fake, XRT_CAPTURE_MODE_GLOBAL), XRT_ERROR_STREAM_CAPTURE_INVALIDATED);
    fake.fail = 0;
    assert_int_equal(g->graphs, 0); /* the begin failed: nothing counted */
    OK(xrt__gpu_stream_begin_capture(&t, &fake, XRT_CAPTURE_MODE_GLOBAL));
    fake.fail = 901;
    assert_int_equal(xrt__gpu_stream_end_capture(&t, &fake, &graph), XRT_ERROR_STREAM_CAPTURE_INVALIDATED);
    fake.fail = 0;
    assert_int_equal(g->graphs, 0);
    fake_end();
#else
    (void)state;
    SKIP_UNLESS(0, "cuda: not enabled in this build");
#endif
}

/* >> kernels launched into a capture: the capture's last node is the
   kernel (cudaStreamGetCaptureInfo); xrt records its params, which the
   runtime does not give back, so xrt_graph_node_get_params answers for it
   as for a node xrt added. Nothing is asked outside a capture xrt began;
   a front of two nodes records nothing; a failed capture drops its
   records, a destroyed graph too. */
static int fake_captured_kernel;  /* the captured node: its native type */
static size_t fake_capture_front; /* how many nodes the next work would follow */
static int fake_capture_infos;
#ifdef XRT_ENABLE_CUDA
/* Each thread's capture of the runtime's per-thread stream has its own
   graph (the thread's fake_pt_graph). */
static __thread void *fake_pt_graph;
static int fake_pt_capture_last(const xrt__gpu *g, void *stream, void **graph, void **node)
{
    (void)g, (void)stream;
    *graph = fake_pt_graph, *node = NULL;
    return 0;
}

typedef struct pt_entry_job { xrt__gpu *g; gate *begun, *go; void *found; int taken; } pt_entry_job;

static void *pt_entry_main(void *arg)
{
    pt_entry_job *j = (pt_entry_job *)arg;
    xrt__gpu_capture *c = (xrt__gpu_capture *)malloc(sizeof *c), *mine;
    fake_pt_graph = &j->found;
    xrt__gpu_capture_put(j->g, c, j->g->per_thread);
    gate_wait(j->begun); /* entered: the test's thread begins its own */
    gate_wait(j->go);
    j->found = xrt__gpu_capture_graph(j->g, j->g->per_thread);
    mine = xrt__gpu_capture_take(j->g, j->g->per_thread);
    j->taken = mine == c;
    free(mine);
    return NULL;
}

static void *pt_begin_and_exit(void *arg)
{
    xrt__gpu *g = (xrt__gpu *)arg;
    xrt__gpu_capture *c = (xrt__gpu_capture *)malloc(sizeof *c);
    fake_pt_graph = &fake_pt_graph;
    (void)xrt__gpu_capture_begun(g, g->per_thread, g->success, "cudaStreamBeginCapture", "stream_begin_capture", c);
    return NULL; /* without an end */
}
#endif

/* >> a thread that exits in the middle of a capture of its per-thread
   stream leaves no entry behind, and launches stop asking the runtime about
   captures (xrt once kept it, and its count, until xrt_shutdown) */
static void test_cuda_per_thread_capture_of_exited_thread_fake(void **state)
{
#ifdef XRT_ENABLE_CUDA
    xrt_backend t;
    xrt__gpu *g = fake_cuda_graphs(&t);
    pthread_t th;
    int graphs;
    (void)state;
    g->capture_last = fake_pt_capture_last;
    graphs = g->graphs;
    assert_int_equal(g->captures, 0);
    assert_int_equal(start_thread(&th, XRT_TEST_DEFAULT, pt_begin_and_exit, g), 0); /* no call through a backend */
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_int_equal(g->captures, 0);
    assert_null(xrt__gpu_capture_list);
    g->graphs = graphs; /* the capture's graph count, which the runtime's own end would have dropped */
#else
    (void)state;
    SKIP_UNLESS(0, "cuda: not enabled in this build");
#endif
}

/* >> the runtime's per-thread stream is one value on every thread: two
   threads that capture theirs at once are two captures, each ended with
   its own graph. xrt once kept one entry per stream value, so that the
   second begin took the first's entry. */
static void test_cuda_per_thread_captures_fake(void **state)
{
#ifdef XRT_ENABLE_CUDA
    xrt_backend t;
    xrt__gpu *g = fake_cuda_graphs(&t);
    pt_entry_job j = {g, &gates[0], &gates[1], NULL, 0};
    xrt__gpu_capture *c = (xrt__gpu_capture *)malloc(sizeof *c), *mine;
    pthread_t th;
    int graph;
    (void)state;
    assert_non_null(c);
    g->capture_last = fake_pt_capture_last;
    g->captures = 2;
    /* the thread makes no call through a backend: selecting one would load
       the real runtime's table over the fake */
    assert_int_equal(start_thread(&th, XRT_TEST_DEFAULT, pt_entry_main, &j), 0);
    gate_wait_entered(&gates[0]);
    fake_pt_graph = &graph;
    xrt__gpu_capture_put(g, c, g->per_thread);
    gate_open(&gates[0]);
    gate_open(&gates[1]);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_ptr_equal(j.found, &j.found);
    assert_true(j.taken);
    assert_ptr_equal(xrt__gpu_capture_graph(g, g->per_thread), &graph);
    mine = xrt__gpu_capture_take(g, g->per_thread);
    assert_ptr_equal(mine, c);
    free(mine);
    g->captures = 0;
#else
    (void)state;
    SKIP_UNLESS(0, "cuda: not enabled in this build");
#endif
}

/* As strict as the runtime: the graph, the front and its size are "valid
   data" only for a capture that is active (cudaStreamGetCaptureInfo); else
   they are left as garbage here. */
static int fake_capture_info(void *stream, int *status, unsigned long long *id, void **graph, void *const **deps,
                             const void **data, size_t *n)
{
    static void *front[2] = {&fake_captured_kernel, &fake_captured_kernel};
    static char garbage[16];
    (void)stream, (void)id;
    fake_capture_infos++;
    assert_non_null(data); /* asked, so that annotated edges do not fail the question */
    *status = fake.capturing;
    if (fake.capturing != XRT_CAPTURE_STATUS_ACTIVE) {
        *graph = garbage, *deps = (void *const *)(void *)garbage, *data = garbage, *n = 5;
        return 0;
    }
    *graph = &fake;
    *deps = front;
    *data = NULL;
    *n = fake_capture_front;
    return 0;
}

static void captured_kernel_is(xrt_backend *t, void *fn, const unsigned char *args, size_t n)
{
    xrt_graph_node_params p;
    memset(&p, 0, sizeof p);
    OK(xrt__gpu_graph_node_get_params(t, &fake, &fake_captured_kernel, &p));
    assert_int_equal(p.type, XRT_GRAPH_NODE_KERNEL);
    assert_ptr_equal((void *)p.kernel.function, fn);
    assert_int_equal(p.kernel.grid.x, 3);
    assert_int_equal(p.kernel.block.x, 64);
    assert_int_equal(p.kernel.shared_bytes, 128);
    assert_int_equal(p.kernel.args_size, n);
    assert_memory_equal(p.kernel.args, args, n);
}

static void captured_kernel_unknown(xrt_backend *t)
{
    xrt_graph_node_params p;
    FAILS(xrt__gpu_graph_node_get_params(t, &fake, &fake_captured_kernel, &p), XRT_ERROR_UNSUPPORTED,
          "cuda: xrt_graph_node_get_params: a kernel node whose params xrt did not record (not added nor launched "
          "into a capture through xrt, or in a child graph's copy): the runtime does not give its function and "
          "packed arguments back");
}

static void test_cuda_captured_kernel_params_fake(void **state)
{
#ifdef XRT_ENABLE_CUDA
    xrt_backend t;
    xrt__gpu *g = fake_cuda_graphs(&t);
    xrt_module_image im = fake_ptx80_image;
    xrt_dim3 grid = {3, 2, 1}, block = {64, 1, 1};
    unsigned char args[20], sent[20]; /* the fake kernel's parameters take 20 bytes */
    void *mod = NULL, *fn = NULL, *graph = NULL, *info;
    size_t i;
    (void)state;
    xrt_test_log_calls();
    memcpy(&info, &xrt__cuda_graph.CaptureInfo, sizeof info);
    for (i = 0; i < g->nnode_types; i++)
        if (g->node_types[i].type == XRT_GRAPH_NODE_KERNEL) fake_captured_kernel = g->node_types[i].native;
    xrt__cuda_graph.CaptureInfo = fake_capture_info;
    g->capture_last = xrt__cuda_capture_last;
    fake_capture_infos = 0, fake_capture_front = 1;
    OK(xrt__gpu_module_load(&t, &mod, &im, 1, "", NULL, 0));
    OK(xrt__gpu_module_get_function(&t, &fn, mod, "k"));
    for (i = 0; i < sizeof args; i++) args[i] = sent[i] = (unsigned char)(i + 1);
    OK(xrt__gpu_launch_kernel(&t, fn, grid, block, 128, &fake, args, sizeof args));
    assert_int_equal(fake_capture_infos, 0); /* no capture begun: the launch asks nothing more */
    fake.capturing = XRT_CAPTURE_STATUS_ACTIVE; /* from its begin on */
    OK(xrt__gpu_stream_begin_capture(&t, &fake, XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt__gpu_launch_kernel(&t, fn, grid, block, 128, &fake, args, sizeof args));
    args[0] = 99; /* the record is a copy */
    captured_kernel_is(&t, fn, sent, sizeof sent);
    fake.capturing = XRT_CAPTURE_STATUS_NONE;
    OK(xrt__gpu_stream_end_capture(&t, &fake, &graph));
    assert_int_equal(g->captures, 0);
    captured_kernel_is(&t, fn, sent, sizeof sent); /* kept with its graph */
    OK(xrt__gpu_graph_destroy(&t, graph));
    captured_kernel_unknown(&t);
    /* two nodes before the next work: which is the kernel is not known */
    fake.capturing = XRT_CAPTURE_STATUS_ACTIVE, fake_capture_front = 2;
    OK(xrt__gpu_stream_begin_capture(&t, &fake, XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt__gpu_launch_kernel(&t, fn, grid, block, 128, &fake, args, sizeof args));
    captured_kernel_unknown(&t);
    /* a capture that fails drops what it recorded, although the runtime no
       longer names its graph once it is invalidated */
    fake_capture_front = 1;
    OK(xrt__gpu_launch_kernel(&t, fn, grid, block, 128, &fake, sent, sizeof sent));
    captured_kernel_is(&t, fn, sent, sizeof sent);
    fake.capturing = XRT_CAPTURE_STATUS_INVALIDATED, fake.fail = 901;
    assert_int_equal(xrt__gpu_stream_end_capture(&t, &fake, &graph), XRT_ERROR_STREAM_CAPTURE_INVALIDATED);
    fake.fail = 0, fake.capturing = XRT_CAPTURE_STATUS_NONE;
    assert_int_equal(g->captures, 0);
    captured_kernel_unknown(&t);
    /* an end of a capture xrt did not begin leaves the count at 0 */
    OK(xrt__gpu_stream_end_capture(&t, &fake, &graph));
    assert_int_equal(g->captures, 0);
    fake_capture_infos = 0;
    OK(xrt__gpu_launch_kernel(&t, fn, grid, block, 128, &fake, args, sizeof args));
    assert_int_equal(fake_capture_infos, 0);
    OK(xrt__gpu_module_unload(&t, mod));
    memcpy(&xrt__cuda_graph.CaptureInfo, &info, sizeof info);
#else
    (void)state;
    SKIP_UNLESS(0, "cuda: not enabled in this build");
#endif
}

static int fake_stream_destroy(void *stream) { (void)stream; return fake.fail; }

/* A capture whose origin stream is destroyed is over (the CUDA double and
   the CPU backend end it, its graph dropped): xrt's count of captures, the
   capture's entry and the records of the kernels launched into it go with
   it, so that a later stream at the same address finds none of them. They
   once stayed until xrt_shutdown. A destroy that fails keeps them. */
static void test_cuda_capture_of_destroyed_stream_forgotten_fake(void **state)
{
#ifdef XRT_ENABLE_CUDA
    xrt_backend t;
    xrt__gpu *g = fake_cuda_graphs(&t);
    xrt_module_image im = fake_ptx80_image;
    xrt_dim3 grid = {3, 2, 1}, block = {64, 1, 1};
    unsigned char args[20];
    void *mod = NULL, *fn = NULL, *info;
    size_t i;
    (void)state;
    memcpy(&info, &xrt__cuda_graph.CaptureInfo, sizeof info);
    for (i = 0; i < g->nnode_types; i++)
        if (g->node_types[i].type == XRT_GRAPH_NODE_KERNEL) fake_captured_kernel = g->node_types[i].native;
    xrt__cuda_graph.CaptureInfo = fake_capture_info;
    g->capture_last = xrt__cuda_capture_last;
    g->rt.StreamDestroy = fake_stream_destroy;
    fake_capture_infos = 0, fake_capture_front = 1;
    OK(xrt__gpu_module_load(&t, &mod, &im, 1, "", NULL, 0));
    OK(xrt__gpu_module_get_function(&t, &fn, mod, "k"));
    for (i = 0; i < sizeof args; i++) args[i] = (unsigned char)(i + 1);
    fake.capturing = XRT_CAPTURE_STATUS_ACTIVE;
    OK(xrt__gpu_stream_begin_capture(&t, &fake, XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt__gpu_launch_kernel(&t, fn, grid, block, 128, &fake, args, sizeof args));
    captured_kernel_is(&t, fn, args, sizeof args);
    assert_int_equal(g->captures, 1);
    fake.fail = 709; /* a destroy the runtime refuses leaves the capture as it was */
    assert_int_not_equal(xrt__gpu_stream_destroy(&t, &fake), XRT_SUCCESS);
    fake.fail = 0;
    assert_int_equal(g->captures, 1);
    assert_non_null(xrt__gpu_capture_list);
    captured_kernel_is(&t, fn, args, sizeof args);
    OK(xrt__gpu_stream_destroy(&t, &fake));
    fake.capturing = XRT_CAPTURE_STATUS_NONE;
    assert_int_equal(g->captures, 0);
    assert_null(xrt__gpu_capture_list);
    captured_kernel_unknown(&t);
    /* a stream at the same address that captures again starts afresh */
    fake.capturing = XRT_CAPTURE_STATUS_ACTIVE;
    OK(xrt__gpu_stream_begin_capture(&t, &fake, XRT_CAPTURE_MODE_GLOBAL));
    assert_int_equal(g->captures, 1);
    captured_kernel_unknown(&t);
    fake.capturing = XRT_CAPTURE_STATUS_NONE;
    OK(xrt__gpu_stream_destroy(&t, &fake));
    assert_int_equal(g->captures, 0);
    assert_null(xrt__gpu_capture_list);
    assert_int_equal(g->graphs, 2); /* their graphs stay counted: modules unloaded wait */
    g->graphs = 0;                  /* for xrt_shutdown, which sets it so */
    OK(xrt__gpu_module_unload(&t, mod));
    memcpy(&xrt__cuda_graph.CaptureInfo, &info, sizeof info);
#else
    (void)state;
    SKIP_UNLESS(0, "cuda: not enabled in this build");
#endif
}

/* HIP's question (hipStreamGetCaptureInfo_v2, no edge data) answers alike. */
static int fake_hip_capture_info(void *stream, int *status, unsigned long long *id, void **graph, void *const **deps,
                                 size_t *n)
{
    const void *data;
    return fake_capture_info(stream, status, id, graph, deps, &data, n);
}

static void test_hip_capture_last_fake(void **state)
{
#ifdef XRT_ENABLE_HIP
    xrt_backend t;
    xrt__gpu *g = gpu_table("hip", &t);
    void *info, *graph = NULL, *node = NULL;
    (void)state;
    fake_begin(g);
    memcpy(&info, &xrt__hip_graph.CaptureInfo, sizeof info);
    xrt__hip_graph.CaptureInfo = fake_hip_capture_info;
    fake.capturing = XRT_CAPTURE_STATUS_ACTIVE, fake_capture_front = 1;
    assert_int_equal(xrt__hip_capture_last(g, &fake, &graph, &node), 1);
    assert_ptr_equal(graph, &fake);
    assert_ptr_equal(node, &fake_captured_kernel);
    fake_capture_front = 2, graph = node = NULL;
    assert_int_equal(xrt__hip_capture_last(g, &fake, &graph, &node), 0);
    assert_ptr_equal(graph, &fake); /* the graph all the same: xrt keeps it for a failed end */
    assert_null(node);
    fake.capturing = XRT_CAPTURE_STATUS_INVALIDATED; /* the runtime's answers are garbage now */
    assert_int_equal(xrt__hip_capture_last(g, &fake, &graph, &node), 0);
    assert_null(graph);
    assert_null(node);
    fake.capturing = XRT_CAPTURE_STATUS_NONE;
    graph = &fake;
    assert_int_equal(xrt__hip_capture_last(g, &fake, &graph, &node), 0);
    assert_null(graph);
    memcpy(&xrt__hip_graph.CaptureInfo, &info, sizeof info);
#else
    (void)state;
    SKIP_UNLESS(0, "hip: not enabled in this build");
#endif
}

/* >> which CUDA image runs on which device: a cubin on its own major arch
   and a minor no newer than the device's, PTX of an arch no newer, a fatbin
   anywhere (the driver picks inside it); and the order of the choice: the
   exact arch, then a compatible one, then one offered without an arch. */
static void test_cuda_image_choice(void **state)
{
#ifdef XRT_ENABLE_CUDA
    static const struct { const char *device; xrt_image_kind kind; const char *arch; int runs; } cases[] = {
        {"sm_89", XRT_IMAGE_CUDA_CUBIN, "sm_86", 1},   {"sm_86", XRT_IMAGE_CUDA_CUBIN, "sm_89", 0},
        {"sm_90", XRT_IMAGE_CUDA_CUBIN, "sm_86", 0},   {"sm_90", XRT_IMAGE_CUDA_CUBIN, "sm_90", 1},
        {"sm_90", XRT_IMAGE_CUDA_PTX, "compute_90", 1}, {"sm_90", XRT_IMAGE_CUDA_PTX, "compute_100", 0},
        {"sm_90", XRT_IMAGE_CUDA_PTX, "compute_75", 1}, {"sm_75", XRT_IMAGE_CUDA_FATBIN, "sm_90", 1},
        /* arch-specific (sm_90a: that arch alone) and family (sm_100f: the same major) images */
        {"sm_90", XRT_IMAGE_CUDA_CUBIN, "sm_90a", 1},  {"sm_103", XRT_IMAGE_CUDA_CUBIN, "sm_100a", 0},
        {"sm_103", XRT_IMAGE_CUDA_CUBIN, "sm_100f", 1}, {"sm_100", XRT_IMAGE_CUDA_CUBIN, "sm_103f", 0},
        {"sm_90", XRT_IMAGE_CUDA_PTX, "compute_90a", 1}, {"sm_100", XRT_IMAGE_CUDA_PTX, "compute_90a", 0},
        {"sm_103", XRT_IMAGE_CUDA_PTX, "compute_100f", 1}, {"sm_120", XRT_IMAGE_CUDA_PTX, "compute_100f", 0},
        {"sm_90", XRT_IMAGE_CUDA_CUBIN, "sm_90x", 0},  {"sm_90", XRT_IMAGE_CUDA_CUBIN, "sm_90aa", 0},
    };
    xrt_module_image im[3];
    xrt_target t;
    size_t i, pick = 99;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        xrt_module_image one = {cases[i].kind, "x", 1, cases[i].arch};
        memset(&t, 0, sizeof t);
        snprintf(t.arch, sizeof t.arch, "%s", cases[i].device);
        if (xrt__cuda_image_compatible(&t, &one) != cases[i].runs)
            fail_msg("a %s for %s on %s: expected %s", xrt__image_kind_name(cases[i].kind), cases[i].arch,
                     cases[i].device, cases[i].runs ? "runs" : "does not run");
    }
    memset(&t, 0, sizeof t);
    snprintf(t.backend, sizeof t.backend, "cuda");
    snprintf(t.arch, sizeof t.arch, "sm_89");
    memset(im, 0, sizeof im);
    im[0].kind = XRT_IMAGE_CUDA_PTX, im[0].arch = NULL;      /* no arch */
    im[1].kind = XRT_IMAGE_CUDA_CUBIN, im[1].arch = "sm_86"; /* compatible */
    im[2].kind = XRT_IMAGE_CUDA_CUBIN, im[2].arch = "sm_89"; /* exact */
    OK(xrt__image_pick("test", &t, im, 3, 1u << XRT_IMAGE_CUDA_CUBIN | 1u << XRT_IMAGE_CUDA_PTX,
                       xrt__cuda_image_compatible, &pick));
    assert_int_equal(pick, 2);
    OK(xrt__image_pick("test", &t, im, 2, 1u << XRT_IMAGE_CUDA_CUBIN | 1u << XRT_IMAGE_CUDA_PTX,
                       xrt__cuda_image_compatible, &pick));
    assert_int_equal(pick, 1);
    OK(xrt__image_pick("test", &t, im, 1, 1u << XRT_IMAGE_CUDA_CUBIN | 1u << XRT_IMAGE_CUDA_PTX,
                       xrt__cuda_image_compatible, &pick));
    assert_int_equal(pick, 0);
#else
    (void)state;
    SKIP_UNLESS(0, "cuda: not enabled in this build");
#endif
}

/* >> sets of 2- and 4-byte values whose bytes differ: the runtime's memset
   sets bytes, so xrt asks CUDA's driver (cuMemsetD2D16 / _32) and HIP's
   hipMemsetD16 / _D32; one of equal bytes stays the runtime's. xrt once
   refused the first as unsupported. */
static struct { int calls, fail; unsigned long long dst; size_t pitch, width, height; unsigned value; void *stream; }
    wide;
static int wide_note(unsigned long long dst, size_t pitch, unsigned value, size_t width, size_t height, void *stream)
{
    wide.calls++, wide.dst = dst, wide.pitch = pitch, wide.value = value, wide.width = width, wide.height = height;
    wide.stream = stream;
    return wide.fail;
}
#ifdef XRT_ENABLE_CUDA
static int fake_cu_set16_async(unsigned long long d, size_t p, unsigned short v, size_t w, size_t h, void *s)
{
    return wide_note(d, p, v, w, h, s);
}
static int fake_cu_set32(unsigned long long d, size_t p, unsigned v, size_t w, size_t h)
{
    return wide_note(d, p, v, w, h, NULL);
}
static int fake_rt_set2d_async(void *d, size_t p, int v, size_t w, size_t h, void *s)
{
    return wide_note((unsigned long long)(uintptr_t)d, p, (unsigned)v, w, h, s);
}
#endif
#ifdef XRT_ENABLE_HIP
static int fake_hip_set16_async(void *d, unsigned short v, size_t n, void *s)
{
    return wide_note((unsigned long long)(uintptr_t)d, 0, v, n, 1, s);
}
static int fake_hip_set32(void *d, int v, size_t n) { return wide_note((unsigned long long)(uintptr_t)d, 0, (unsigned)v, n, 1, NULL); }
#endif

static void test_cuda_set_of_unequal_bytes_fake(void **state)
{
#ifdef XRT_ENABLE_CUDA
    xrt_backend t;
    xrt__gpu *g = fake_cuda_graphs(&t);
    unsigned char buf[256];
    (void)state;
    xrt_test_log_calls();
    memset(&wide, 0, sizeof wide);
    xrt__cuda_drv.MemsetD2D16Async = fake_cu_set16_async;
    xrt__cuda_drv.MemsetD2D32 = fake_cu_set32;
    g->rt.Memset2DAsync = fake_rt_set2d_async;
    OK(xrt__gpu_memset_2d_async(&t, buf + 2, 64, 0xbeef, 2, 21, 3, &fake));
    assert_int_equal(wide.calls, 1);
    assert_true(wide.dst == (unsigned long long)(uintptr_t)(buf + 2));
    assert_int_equal(wide.pitch, 64);
    assert_int_equal(wide.value, 0xbeef);
    assert_int_equal(wide.width, 21); /* elements, not bytes */
    assert_int_equal(wide.height, 3);
    assert_ptr_equal(wide.stream, &fake);
    OK(xrt__gpu_memset_2d(&t, buf, 128, 0xdeadbeefu, 4, 7, 1)); /* the synchronous form */
    assert_int_equal(wide.calls, 2);
    assert_int_equal(wide.value, 0xdeadbeefu);
    assert_int_equal(wide.width, 7);
    assert_null(wide.stream);
    /* equal bytes: the runtime's memset of bytes, as before */
    OK(xrt__gpu_memset_2d_async(&t, buf, 64, 0x7777, 2, 21, 1, &fake));
    assert_int_equal(wide.calls, 3);
    assert_int_equal(wide.value, 0x77);
    assert_int_equal(wide.width, 42); /* bytes */
    /* the driver's refusal in a capture is the capture's status */
    wide.fail = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
    assert_int_equal(xrt__gpu_memset_2d_async(&t, buf, 64, 0x1234, 2, 3, 1, &fake), XRT_ERROR_STREAM_CAPTURE_IMPLICIT);
    assert_non_null(strstr(xrt_get_last_error_string(), "cuMemsetD2D16Async"));
    wide.fail = 0;
    /* a driver without the entry point */
    assert_int_equal(xrt__gpu_memset_2d_async(&t, buf, 64, 0x01020304u, 4, 3, 1, &fake), XRT_ERROR_UNSUPPORTED);
    assert_non_null(strstr(xrt_get_last_error_string(), "cuMemsetD2D32Async is not there"));
    assert_int_equal(wide.calls, 4);
#else
    (void)state;
    SKIP_UNLESS(0, "cuda: not enabled in this build");
#endif
}

static void test_hip_set_of_unequal_bytes_fake(void **state)
{
#ifdef XRT_ENABLE_HIP
    xrt_backend t;
    xrt__gpu *g = gpu_table("hip", &t);
    unsigned char buf[256];
    (void)state;
    fake_begin(g);
    hip_ext_fake();
    xrt_test_log_calls();
    memset(&wide, 0, sizeof wide);
    g->memset_wide = xrt__hip_memset_wide;
    xrt__hip_ext.MemsetD16Async = fake_hip_set16_async;
    xrt__hip_ext.MemsetD32 = fake_hip_set32;
    xrt__hip_ext.MemsetD16 = NULL, xrt__hip_ext.MemsetD32Async = NULL;
    OK(xrt__gpu_memset_2d_async(&t, buf + 2, 42, 0xbeef, 2, 21, 1, &fake));
    assert_int_equal(wide.calls, 1);
    assert_int_equal(wide.value, 0xbeef);
    assert_int_equal(wide.width, 21);
    assert_ptr_equal(wide.stream, &fake);
    OK(xrt__gpu_memset_2d(&t, buf, 28, 0xdeadbeefu, 4, 7, 2)); /* rows without a gap: one run of 14 */
    assert_int_equal(wide.width, 14);
    assert_int_equal(xrt__gpu_memset_2d(&t, buf, 32, 0xdeadbeefu, 4, 7, 2), XRT_ERROR_UNSUPPORTED);
    assert_non_null(strstr(xrt_get_last_error_string(), "HIP has no 2-D set of 4-byte values"));
    assert_int_equal(xrt__gpu_memset_2d(&t, buf, 42, 0xbeef, 2, 21, 1), XRT_ERROR_UNSUPPORTED);
    assert_non_null(strstr(xrt_get_last_error_string(), "the runtime has no hipMemsetD16"));
    assert_int_equal(wide.calls, 2);
    wide.fail = hipErrorInvalidValue;
    assert_int_equal(xrt__gpu_memset_2d_async(&t, buf, 42, 0xbeef, 2, 21, 1, &fake), XRT_ERROR_INVALID_VALUE);
    assert_non_null(strstr(xrt_get_last_error_string(), "hipMemsetD16Async"));
#else
    (void)state;
    SKIP_UNLESS(0, "hip: not enabled in this build");
#endif
}

/* >> modules on CUDA, on the driver's double: the image picked for an sm_90
   device, the packed arguments handed over with CU_LAUNCH_PARAM_BUFFER_POINTER,
   the JIT log of a failed load, the device a module belongs to. */
static void test_cuda_modules_fake_driver(void **state)
{
#ifdef XRT_ENABLE_CUDA
    static const char src[] = "void k(void) {}", ptx80[] = "// ptx80\n.version 8.0\n.target sm_80\n",
                      broken[] = "// broken\n.version 8.0\n.target sm_90\n.entry k() {\n";
    xrt_backend t;
    xrt__gpu *g = gpu_table("cuda", &t);
    xrt_module_image im[3], ptx = {XRT_IMAGE_CUDA_PTX, NULL, sizeof ptx80 - 1, "compute_80"};
    xrt_function_attributes at;
    xrt_dim3 grid = {3, 2, 1}, block = {128, 1, 1};
    unsigned char args[24], big[36] = {0}, cubin[64];
    void *mod = NULL, *fn = NULL, *p;
    char log[256] = "";
    size_t i, mapped;
    (void)state;
    fake_begin(g);
    fake_driver(g, 0);
    xrt_test_log_capture();
    mini_cubin(cubin, 90);
    im[0].kind = XRT_IMAGE_CUDA_PTX, im[0].data = ptx80, im[0].size = sizeof ptx80 - 1, im[0].arch = "compute_80";
    im[1].kind = XRT_IMAGE_CUDA_CUBIN, im[1].data = cubin, im[1].size = sizeof cubin, im[1].arch = "sm_90";
    im[2].kind = XRT_IMAGE_CPU_C_SOURCE, im[2].data = src, im[2].size = sizeof src, im[2].arch = NULL;
    xrt__cuda_drv.ModuleLoadDataEx = NULL;
    FAILS(xrt__gpu_module_load(&t, &mod, im, 2, "", log, sizeof log), XRT_ERROR_UNSUPPORTED,
          "cuda: xrt_module_load: the CUDA driver lacks the module entry points (cuModuleLoadDataEx & co)");
    xrt__cuda_drv.ModuleLoadDataEx = fake_cu_load;
    /* exact arch first, whatever the order */
    OK(xrt__gpu_module_load(&t, &mod, im, 3, "", log, sizeof log));
    assert_string_equal(fk.image, "cubin sm_90");
    OK(xrt__gpu_module_unload(&t, mod));
    /* a cubin of another major does not run; PTX of an older arch is JIT-compiled */
    im[1].arch = "sm_86";
    OK(xrt__gpu_module_load(&t, &mod, im, 2, "", log, sizeof log));
    assert_string_equal(fk.image, "// ptx80");
    OK(xrt__gpu_module_unload(&t, mod));
    /* PTX without a NUL, right before an unreadable page: the driver reads xrt's copy */
    ptx.data = p = guarded(ptx80, sizeof ptx80 - 1, &mapped);
    assert_string_equal(cuda_loaded(&t, &ptx), "// ptx80");
    guarded_free(p, sizeof ptx80 - 1, mapped);
    im[0].arch = "compute_100";
    FAILS(xrt__gpu_module_load(&t, &mod, im, 3, "", log, sizeof log), XRT_ERROR_NO_BINARY_FOR_DEVICE,
          "cuda: xrt_module_load: no image for cuda arch sm_90 among the 3 offered: cuda ptx compute_100, cuda cubin sm_86, "
          "cpu C source (any arch)");
    /* PTX that does not compile: a module fails at once, with the JIT log */
    mod = NULL;
    im[0].data = broken, im[0].size = sizeof broken - 1, im[0].arch = "compute_90";
    FAILS(xrt__gpu_module_load(&t, &mod, im, 1, "", log, sizeof log), XRT_ERROR_INVALID_IMAGE,
          "xrt_module_load: cuda: cuModuleLoadDataEx: a PTX JIT compilation failed (CUDA_ERROR_INVALID_PTX=218)");
    assert_string_equal(log, "ptxas application ptx input, line 1; error   : syntax error");
    assert_null(mod);
    assert_int_equal(fk.loads, 4);
    /* functions, launches, attributes */
    im[0].data = ptx80, im[0].size = sizeof ptx80 - 1;
    OK(xrt__gpu_module_load(&t, &mod, im, 1, "", log, sizeof log));
    FAILS(xrt__gpu_module_get_function(&t, &fn, mod, "nope"), XRT_ERROR_NOT_FOUND,
          "cuda: xrt_module_get_function: no kernel named 'nope' in the module");
    OK(xrt__gpu_module_get_function(&t, &fn, mod, "k"));
    for (i = 0; i < sizeof args; i++) args[i] = (unsigned char)(i + 1);
    OK(xrt__gpu_launch_kernel(&t, fn, grid, block, 512, (void *)(uintptr_t)0xabc, args, 20));
    assert_int_equal(fk.dims[0], 3);
    assert_int_equal(fk.dims[1], 2);
    assert_int_equal(fk.dims[3], 128);
    assert_int_equal(fk.dims[6], 512);
    assert_ptr_equal(fk.stream, (void *)(uintptr_t)0xabc);
    assert_int_equal(fk.args_size, 20);
    assert_memory_equal(fk.args, args, 20);
    OK(xrt__gpu_function_get_attributes(&t, &at, fn));
    assert_int_equal(at.max_threads_per_block, 1024);
    assert_int_equal(at.num_regs, 40);
    assert_int_equal(at.shared_size_bytes, 256);
    assert_int_equal(at.max_dynamic_shared_bytes, 49152);
    /* the driver tells the parameters' size (cuFuncGetParamInfo): a struct's
       end padding is cut off (CUDA refuses it); too few bytes, or more than
       padding, fail */
    OK(xrt__gpu_launch_kernel(&t, fn, grid, block, 0, NULL, args, 24));
    assert_int_equal(fk.args_size, 20);
    assert_memory_equal(fk.args, args, 20);
    FAILS(xrt__gpu_launch_kernel(&t, fn, grid, block, 0, NULL, args, 16), XRT_ERROR_INVALID_VALUE,
          "xrt_launch_kernel: cuda: the kernel's parameters take 20 bytes, the arguments are 16 bytes");
    FAILS(xrt__gpu_launch_kernel(&t, fn, grid, block, 0, NULL, NULL, 0), XRT_ERROR_INVALID_VALUE,
          "xrt_launch_kernel: cuda: the kernel's parameters take 20 bytes, the arguments are 0 bytes");
    FAILS(xrt__gpu_launch_kernel(&t, fn, grid, block, 0, NULL, big, 36), XRT_ERROR_INVALID_VALUE,
          "xrt_launch_kernel: cuda: the kernel's parameters take 20 bytes, the arguments are 36 bytes");
    /* where the driver cannot tell, the arguments go as they are */
    xrt__cuda_drv.FuncGetParamInfo = NULL;
    OK(xrt__gpu_module_get_function(&t, &fn, mod, "k"));
    OK(xrt__gpu_launch_kernel(&t, fn, grid, block, 0, NULL, args, sizeof args));
    assert_int_equal(fk.args_size, sizeof args);
    OK(xrt__gpu_launch_kernel(&t, fn, grid, block, 0, NULL, NULL, 0));
    assert_int_equal(fk.args_size, 0);
    xrt__gpu_set_count(g, 2); /* with one device, the thread's device is the module's */
    fake.device = 1; /* the module lives in device 0's context */
    FAILS(xrt__gpu_launch_kernel(&t, fn, grid, block, 0, NULL, NULL, 0), XRT_ERROR_INVALID_VALUE,
          "xrt_launch_kernel: the function's module was loaded on device 0, the thread's device is 1");
    OK(xrt__gpu_module_unload(&t, mod));
    assert_int_equal(fk.unloads, 4);
    assert_int_equal(fake.set_devices[0], 0); /* unloading waited on the module's device */
    assert_int_equal(fake.set_devices[1], 1);
#else
    (void)state;
    SKIP_UNLESS(0, "cuda: not enabled in this build");
#endif
}

/* With a CUDA 12 driver: a library, loaded once for every device, launched
   as a CUkernel from any device, its parameters told by cuKernelGetParamInfo
   (cuFuncGetParamInfo does not take a CUkernel); unloading waits for the
   devices used. */
static void test_cuda_library_fake_driver(void **state)
{
#ifdef XRT_ENABLE_CUDA
    static const char ptx75[] = "// ptx75\n.version 7.5\n.target sm_75\n";
    xrt_backend t;
    xrt__gpu *g = gpu_table("cuda", &t);
    xrt_module_image im = {XRT_IMAGE_CUDA_PTX, ptx75, sizeof ptx75 - 1, "compute_75"};
    xrt_function_attributes at;
    xrt_dim3 one = {1, 1, 1};
    unsigned char args[24] = {1, 2, 3};
    void *mod = NULL, *fn = NULL;
    char log[64];
    (void)state;
    fake_begin(g);
    fake_driver(g, 1);
    g->used = 0;
    xrt__gpu_set_count(g, 2);
    xrt_test_log_capture();
    OK(xrt__gpu_module_load(&t, &mod, &im, 1, "", log, sizeof log));
    assert_int_equal(fk.library_loads, 1);
    assert_int_equal(fk.loads, 0);
    assert_string_equal(fk.image, "// ptx75");
    FAILS(xrt__gpu_module_get_function(&t, &fn, mod, "nope"), XRT_ERROR_NOT_FOUND,
          "cuda: xrt_module_get_function: no kernel named 'nope' in the module");
    OK(xrt__gpu_module_get_function(&t, &fn, mod, "k"));
    fake.device = 1; /* not the device it was loaded on: a library runs anywhere */
    OK(xrt__gpu_launch_kernel(&t, fn, one, one, 0, NULL, args, sizeof args));
    assert_int_equal(fk.args_size, 20);
    FAILS(xrt__gpu_launch_kernel(&t, fn, one, one, 0, NULL, args, 16), XRT_ERROR_INVALID_VALUE,
          "xrt_launch_kernel: cuda: the kernel's parameters take 20 bytes, the arguments are 16 bytes");
    OK(xrt__gpu_function_get_attributes(&t, &at, fn));
    assert_int_equal(fk.kernel_functions, 1);
    assert_int_equal(at.max_threads_per_block, 1024);
    /* a driver that cannot tell the parameters: the arguments go as they are */
    fk.fail[CU_KERNEL_PARAMS] = CUDA_ERROR_NOT_SUPPORTED;
    OK(xrt__gpu_module_get_function(&t, &fn, mod, "k"));
    OK(xrt__gpu_launch_kernel(&t, fn, one, one, 0, NULL, args, sizeof args));
    assert_int_equal(fk.args_size, sizeof args);
    OK(xrt__gpu_module_unload(&t, mod));
    assert_int_equal(fk.library_unloads, 1);
    assert_int_equal(fk.unloads, 0);
    assert_int_equal(fake.nset, 2); /* device 1 was used: synchronized, then the thread's device again */
    assert_int_equal(fake.set_devices[0], 1);
    assert_int_equal(fake.set_devices[1], 1);
#else
    (void)state;
    SKIP_UNLESS(0, "cuda: not enabled in this build");
#endif
}

/* xrt_launch_kernel_ex on CUDA: cuLaunchKernelEx with the launch's config
   and xrt's attributes as they are (CUlaunchAttribute's layout), the
   arguments packed as a plain launch's; a thread without the context tried
   once more; the driver's refusal named; a driver without it (before CUDA
   12) unsupported. */
static void test_cuda_launch_ex_fake_driver(void **state)
{
#ifdef XRT_ENABLE_CUDA
    static const char ptx75[] = "// ptx75\n.version 7.5\n.target sm_75\n";
    xrt_backend t;
    xrt__gpu *g = gpu_table("cuda", &t);
    xrt_module_image im = {XRT_IMAGE_CUDA_PTX, ptx75, sizeof ptx75 - 1, "compute_75"};
    xrt_dim3 grid = {4, 2, 1}, block = {32, 1, 1};
    xrt_launch_attribute a[2];
    unsigned char args[20] = {7, 1, 2};
    void *mod = NULL, *fn = NULL;
    (void)state;
    fake_begin(g);
    fake_driver(g, 0);
    xrt_test_log_capture();
    OK(xrt__gpu_module_load(&t, &mod, &im, 1, "", NULL, 0));
    OK(xrt__gpu_module_get_function(&t, &fn, mod, "k"));
    memset(a, 0, sizeof a);
    a[0].id = XRT_LAUNCH_ATTR_PRIORITY, a[0].val.priority = -3;
    a[1].id = XRT_LAUNCH_ATTR_CLUSTER_DIMENSION, a[1].val.cluster_dim.x = 2;
    a[1].val.cluster_dim.y = a[1].val.cluster_dim.z = 1;
    fk.launches = fk.contexts = 0;
    OK(xrt__gpu_launch_kernel_ex(&t, fn, grid, block, 128, (void *)0x5, args, sizeof args, a, 2));
    assert_int_equal(fk.launches, 1);
    assert_true(fk.dims[0] == 4 && fk.dims[1] == 2 && fk.dims[2] == 1 && fk.dims[3] == 32 && fk.dims[6] == 128);
    assert_ptr_equal(fk.stream, (void *)0x5);
    assert_int_equal(fk.args_size, sizeof args);
    assert_int_equal(fk.args[0], 7);
    assert_int_equal(fk.nattrs, 2);
    assert_int_equal(fk.attr_id, XRT_LAUNCH_ATTR_PRIORITY);
    assert_int_equal(fk.attr_priority, -3);
    fk.fail[CU_LAUNCH] = CUDA_ERROR_INVALID_CONTEXT;
    FAILS(xrt__gpu_launch_kernel_ex(&t, fn, grid, block, 0, NULL, args, sizeof args, a, 1), XRT_ERROR_BACKEND,
          "xrt_launch_kernel_ex: cuda: cuLaunchKernelEx: fake driver failure (CUDA_ERROR_INVALID_CONTEXT=201)");
    assert_int_equal(fk.launches, 3);
    assert_int_equal(fk.contexts, 1);
    fk.fail[CU_LAUNCH] = 0;
    a[0].id = (xrt_launch_attr)40; /* past what the dispatch layer lets through: the driver's own answer */
    FAILS(xrt__gpu_launch_kernel_ex(&t, fn, grid, block, 0, NULL, args, sizeof args, a, 1), XRT_ERROR_INVALID_VALUE,
          "xrt_launch_kernel_ex: cuda: cuLaunchKernelEx: fake driver failure (CUDA_ERROR_INVALID_VALUE=1)");
    xrt__cuda_drv.LaunchKernelEx = NULL;
    FAILS(xrt__gpu_launch_kernel_ex(&t, fn, grid, block, 0, NULL, args, sizeof args, a, 1), XRT_ERROR_UNSUPPORTED,
          "cuda: the runtime has no cuLaunchKernelEx (a CUDA 12 driver)");
    OK(xrt__gpu_module_unload(&t, mod));
    fakes_end();
#else
    (void)state;
    SKIP_UNLESS(0, "cuda: not enabled in this build");
#endif
}

/* stream_get_device on a GPU: the NULL, legacy and per-thread streams are
   the current device's; a wrapped stream's is the runtime's answer, or with
   one device 0; with several and a runtime that cannot tell, unsupported. */
static void test_gpu_stream_get_device(void **state)
{
#ifdef XRT_ENABLE_CUDA
    xrt_backend t;
    xrt__gpu *g = gpu_table("cuda", &t);
    void *native = (void *)0x1000;
    int d = -1;
    (void)state;
    fake_begin(g);
    xrt_test_log_capture();
    xrt__gpu_set_count(g, 2);
    g->stream_device = fake_stream_get_device;
    fake.device = 1;
    OK(xrt__gpu_stream_get_device(&t, NULL, &d));
    assert_int_equal(d, 1);
    fake.device = 0;
    OK(xrt__gpu_stream_get_device(&t, (void *)XRT_STREAM_PER_THREAD, &d));
    assert_int_equal(d, 0);
    assert_int_equal(fake.stream_devices, 0);
    OK(xrt__gpu_stream_get_device(&t, native, &d));
    assert_int_equal(d, 1);
    assert_int_equal(fake.stream_devices, 1);
    g->stream_device = NULL;
    FAILS(xrt__gpu_stream_get_device(&t, native, &d), XRT_ERROR_UNSUPPORTED, "the runtime has no cudaStreamGetDevice");
    xrt__gpu_set_count(g, 1);
    OK(xrt__gpu_stream_get_device(&t, native, &d));
    assert_int_equal(d, 0);
    fakes_end();
#else
    (void)state;
    SKIP_UNLESS(0, "cuda: not enabled in this build");
#endif
}

/* A kernel node's attributes: the runtime's calls, the node and value as
   they are; its refusal named; a runtime without them (HIP 5) unsupported. */
#ifdef XRT_ENABLE_CUDA
static struct { void *node, *src; int attr, priority; } kn;
static int fake_knode_set(void *node, int attr, const void *value)
{
    kn.node = node, kn.attr = attr, kn.priority = ((const xrt_launch_attr_value *)value)->priority;
    return attr == 99 ? 1 : 0;
}
static int fake_knode_get(void *node, int attr, void *value)
{
    ((xrt_launch_attr_value *)value)->priority = kn.node == node && kn.attr == attr ? kn.priority : 0;
    return 0;
}
static int fake_knode_copy(void *dst, void *src)
{
    kn.node = dst, kn.src = src;
    return 0;
}
#endif

static void test_gpu_kernel_node_attributes(void **state)
{
#ifdef XRT_ENABLE_CUDA
    xrt_backend t;
    xrt__gpu *g = gpu_table("cuda", &t);
    xrt_launch_attr_value v;
    void *node = (void *)0x40, *other = (void *)0x80;
    (void)state;
    fake_begin(g);
    xrt_test_log_capture();
    g->knode_set_attr = fake_knode_set, g->knode_get_attr = fake_knode_get, g->knode_copy_attrs = fake_knode_copy;
    g->knode_attr_sym[0] = "fakeSetAttribute", g->knode_attr_sym[1] = "fakeGetAttribute";
    g->knode_attr_sym[2] = "fakeCopyAttributes";
    memset(&v, 0, sizeof v);
    v.priority = -2;
    OK(xrt__gpu_graph_kernel_node_set_attribute(&t, NULL, node, XRT_LAUNCH_ATTR_PRIORITY, &v));
    assert_true(kn.node == node && kn.attr == XRT_LAUNCH_ATTR_PRIORITY && kn.priority == -2);
    memset(&v, 0, sizeof v);
    OK(xrt__gpu_graph_kernel_node_get_attribute(&t, NULL, node, XRT_LAUNCH_ATTR_PRIORITY, &v));
    assert_int_equal(v.priority, -2);
    OK(xrt__gpu_graph_kernel_node_copy_attributes(&t, NULL, other, NULL, node));
    assert_true(kn.node == other && kn.src == node);
    FAILS(xrt__gpu_graph_kernel_node_set_attribute(&t, NULL, node, 99, &v), XRT_ERROR_INVALID_VALUE,
          "fakeSetAttribute");
    g->knode_set_attr = NULL, g->knode_get_attr = NULL, g->knode_copy_attrs = NULL;
    FAILS(xrt__gpu_graph_kernel_node_set_attribute(&t, NULL, node, XRT_LAUNCH_ATTR_PRIORITY, &v),
          XRT_ERROR_UNSUPPORTED, "the runtime has no kernel node attributes");
    FAILS(xrt__gpu_graph_kernel_node_get_attribute(&t, NULL, node, XRT_LAUNCH_ATTR_PRIORITY, &v),
          XRT_ERROR_UNSUPPORTED, "the runtime has no kernel node attributes");
    FAILS(xrt__gpu_graph_kernel_node_copy_attributes(&t, NULL, other, NULL, node), XRT_ERROR_UNSUPPORTED,
          "the runtime has no kernel node attributes");
    fakes_end();
#else
    (void)state;
    SKIP_UNLESS(0, "cuda: not enabled in this build");
#endif
}

/* A launch makes no runtime call where its answer is known: a module of one
   device needs the thread's device only where there are several (its record
   keeps the module's device, a module loaded later its own); a library needs
   the device marked for its unload, asked only until every device is. */
static void test_cuda_launch_asks_device(void **state)
{
#ifdef XRT_ENABLE_CUDA
    static const char ptx75[] = "// ptx75\n.version 7.5\n.target sm_75\n";
    xrt_backend t;
    xrt__gpu *g = gpu_table("cuda", &t);
    xrt_module_image im = {XRT_IMAGE_CUDA_PTX, ptx75, sizeof ptx75 - 1, "compute_75"};
    xrt_dim3 one = {1, 1, 1};
    unsigned char args[20] = {0};
    void *mod = NULL, *fn = NULL;
    int asked;
    (void)state;
    fake_begin(g);
    fake_driver(g, 0); /* modules of one device */
    xrt_test_log_capture();
    OK(xrt__gpu_module_load(&t, &mod, &im, 1, "", NULL, 0));
    OK(xrt__gpu_module_get_function(&t, &fn, mod, "k"));
    asked = fake.get_devices;
    OK(xrt__gpu_launch_kernel(&t, fn, one, one, 0, NULL, args, sizeof args));
    OK(xrt__gpu_launch_kernel(&t, fn, one, one, 0, NULL, args, sizeof args));
    assert_int_equal(fake.get_devices, asked); /* one device: nothing to ask */
    xrt__gpu_set_count(g, 2);
    OK(xrt__gpu_launch_kernel(&t, fn, one, one, 0, NULL, args, sizeof args));
    assert_int_equal(fake.get_devices, asked + 1);
    OK(xrt__gpu_module_unload(&t, mod));
    fake.device = 1; /* a module loaded there: its functions launch from device 1 only */
    OK(xrt__gpu_module_load(&t, &mod, &im, 1, "", NULL, 0));
    OK(xrt__gpu_module_get_function(&t, &fn, mod, "k"));
    OK(xrt__gpu_launch_kernel(&t, fn, one, one, 0, NULL, args, sizeof args));
    fake.device = 0;
    FAILS(xrt__gpu_launch_kernel(&t, fn, one, one, 0, NULL, args, sizeof args), XRT_ERROR_INVALID_VALUE,
          "xrt_launch_kernel: the function's module was loaded on device 1, the thread's device is 0");
    fake.device = 1;
    /* what the driver cannot take, and a thread without the context: tried once more after the runtime made it */
    FAILS(xrt__gpu_launch_kernel(&t, fn, one, one, (size_t)1 << 32, NULL, args, sizeof args), XRT_ERROR_INVALID_VALUE,
          "cuda: xrt_launch_kernel: 4294967296 bytes of shared memory");
    fk.launches = fk.contexts = 0;
    fk.fail[CU_LAUNCH] = CUDA_ERROR_INVALID_CONTEXT;
    FAILS(xrt__gpu_launch_kernel(&t, fn, one, one, 0, NULL, args, sizeof args), XRT_ERROR_BACKEND,
          "xrt_launch_kernel: cuda: cuLaunchKernel: fake driver failure (CUDA_ERROR_INVALID_CONTEXT=201)");
    assert_int_equal(fk.launches, 2);
    assert_int_equal(fk.contexts, 1);
    fk.fail[CU_LAUNCH] = CUDA_ERROR_INVALID_VALUE; /* no second try */
    FAILS(xrt__gpu_launch_kernel(&t, fn, one, one, 0, NULL, args, sizeof args), XRT_ERROR_INVALID_VALUE,
          "xrt_launch_kernel: cuda: cuLaunchKernel: fake driver failure (CUDA_ERROR_INVALID_VALUE=1)");
    assert_int_equal(fk.launches, 3);
    fk.fail[CU_LAUNCH] = 0;
    OK(xrt__gpu_module_unload(&t, mod));
    fakes_end();
    /* a library: the launch marks the thread's device, asking until both are marked */
    fake_begin(g);
    fake_driver(g, 1);
    xrt__gpu_set_count(g, 2);
    g->used = 0;
    OK(xrt__gpu_module_load(&t, &mod, &im, 1, "", NULL, 0));
    OK(xrt__gpu_module_get_function(&t, &fn, mod, "k"));
    g->used = 0; /* as if no stream or allocation had marked one */
    OK(xrt__gpu_launch_kernel(&t, fn, one, one, 0, NULL, args, sizeof args));
    assert_int_equal(g->used, 1);
    fake.device = 1;
    OK(xrt__gpu_launch_kernel(&t, fn, one, one, 0, NULL, args, sizeof args));
    assert_int_equal(g->used, 3);
    asked = fake.get_devices;
    OK(xrt__gpu_launch_kernel(&t, fn, one, one, 0, NULL, args, sizeof args));
    fake.device = 0;
    OK(xrt__gpu_launch_kernel(&t, fn, one, one, 0, NULL, args, sizeof args));
    assert_int_equal(fake.get_devices, asked); /* both marked: nothing to ask */
    fake.nset = 0;
    OK(xrt__gpu_module_unload(&t, mod)); /* waits for both devices, then device 0 again */
    assert_int_equal(fake.nset, 3);
    assert_int_equal(fake.set_devices[0], 0);
    assert_int_equal(fake.set_devices[1], 1);
    assert_int_equal(fake.set_devices[2], 0);
#else
    (void)state;
    SKIP_UNLESS(0, "cuda: not enabled in this build");
#endif
}


/* The driver reads a cubin, a fatbin and PTX as far as their own headers (or
   NUL) say, whatever size xrt was given: xrt reads each within its size
   first and refuses one that claims more, naming both sizes (on an H200 a
   third of a cubin made the driver read 16 KiB from a 5 KiB block). PTX
   needs no NUL within its size: the driver gets xrt's copy, which ends in one. */
static void test_cuda_images_within_size(void **state)
{
#ifdef XRT_ENABLE_CUDA
    xrt_backend t;
    xrt__gpu *g = gpu_table("cuda", &t);
    xrt_module_image cubin, ptx, fatbin, im;
    unsigned char *copy;
    char want[300];
    size_t mapped, third;
    void *p;
    (void)state;
    SKIP_UNLESS(saxpy_cuda_images(&cubin, &ptx, &fatbin), XRT_TEST_NO_NVCC);
    fake_begin(g);
    fake_driver(g, 1);
    xrt_test_log_capture();
    /* whole images load; PTX without a NUL, right before an unreadable page */
    assert_string_equal(cuda_loaded(&t, &cubin), "cubin sm_90");
    assert_string_equal(cuda_loaded(&t, &fatbin), "fatbin");
    im = ptx;
    im.data = p = guarded(ptx.data, ptx.size, &mapped);
    assert_string_equal(cuda_loaded(&t, &im), "//");
    guarded_free(p, ptx.size, mapped);
    /* a third of the cubin, and all of it but its last byte */
    third = cubin.size / 3;
    snprintf(want, sizeof want,
             "cuda: xrt_module_load: the image (cuda cubin sm_90, %zu bytes) is cut short: %zu bytes, its headers "
             "declare at least %zu", third, third, elf_tables_end((const unsigned char *)cubin.data));
    cuda_refused(&t, XRT_IMAGE_CUDA_CUBIN, "sm_90", cubin.data, third, want);
    snprintf(want, sizeof want,
             "cuda: xrt_module_load: the image (cuda cubin sm_90, %zu bytes) is cut short: %zu bytes, its headers "
             "declare at least %zu", cubin.size - 1, cubin.size - 1, elf_tables_end((const unsigned char *)cubin.data));
    cuda_refused(&t, XRT_IMAGE_CUDA_CUBIN, "sm_90", cubin.data, cubin.size - 1, want);
    cuda_refused(&t, XRT_IMAGE_CUDA_CUBIN, "sm_90", cubin.data, 40,
                 "cuda: xrt_module_load: the image (cuda cubin sm_90, 40 bytes) is cut short: 40 bytes, less than an "
                 "ELF header");
    /* a fatbin cut short, and one whose entry claims more than the fatbin */
    snprintf(want, sizeof want,
             "cuda: xrt_module_load: the image (cuda fatbin sm_90, %zu bytes) is a fatbin cut short: %zu bytes, its "
             "header declares %zu", fatbin.size / 3, fatbin.size / 3, fatbin.size);
    cuda_refused(&t, XRT_IMAGE_CUDA_FATBIN, "sm_90", fatbin.data, fatbin.size / 3, want);
    cuda_refused(&t, XRT_IMAGE_CUDA_FATBIN, "sm_90", fatbin.data, 12,
                 "cuda: xrt_module_load: the image (cuda fatbin sm_90, 12 bytes) is a fatbin cut short: 12 bytes, less "
                 "than its header");
    copy = (unsigned char *)malloc(cubin.size > fatbin.size ? cubin.size : fatbin.size);
    assert_non_null(copy);
    memcpy(copy, fatbin.data, fatbin.size);
    copy[16 + 8] = 0xff, copy[16 + 9] = 0xff; /* the first entry's payload size */
    snprintf(want, sizeof want,
             "cuda: xrt_module_load: the image (cuda fatbin sm_90, %zu bytes) is a fatbin whose entry 0 ends past the "
             "%zu bytes its header declares", fatbin.size, fatbin.size);
    cuda_refused(&t, XRT_IMAGE_CUDA_FATBIN, "sm_90", copy, fatbin.size, want);
    /* a cubin whose tables are whole but one of its sections claims more */
    memcpy(copy, cubin.data, cubin.size);
    {
        unsigned char *sh = copy + elf_u64(copy + 40) + 1 * (size_t)(copy[58] | copy[59] << 8); /* section 1 */
        uint64_t end = elf_u64(sh + 24) + elf_u64(sh + 32) + cubin.size;
        memcpy(sh + 32, &(uint64_t){elf_u64(sh + 32) + cubin.size}, 8); /* sh_size, little-endian as this machine */
        snprintf(want, sizeof want,
                 "cuda: xrt_module_load: the image (cuda cubin sm_90, %zu bytes) is cut short: %zu bytes, its headers "
                 "declare %llu", cubin.size, cubin.size, (unsigned long long)end);
        cuda_refused(&t, XRT_IMAGE_CUDA_CUBIN, "sm_90", copy, cubin.size, want);
    }
    /* what the driver would read as another format than the kind says */
    memcpy(copy, cubin.data, cubin.size);
    copy[18] = 62; /* e_machine: x86-64 */
    snprintf(want, sizeof want,
             "cuda: xrt_module_load: the image (cuda cubin sm_90, %zu bytes) is an ELF for machine 62, not CUDA "
             "(EM_CUDA, 190)", cubin.size);
    cuda_refused(&t, XRT_IMAGE_CUDA_CUBIN, "sm_90", copy, cubin.size, want);
    snprintf(want, sizeof want, "cuda: xrt_module_load: the image (cuda ptx compute_90, %zu bytes) is a cuda cubin, "
             "not a cuda ptx", cubin.size);
    cuda_refused(&t, XRT_IMAGE_CUDA_PTX, "compute_90", cubin.data, cubin.size, want);
    snprintf(want, sizeof want, "cuda: xrt_module_load: the image (cuda cubin sm_90, %zu bytes) is a cuda fatbin, "
             "not a cuda cubin", fatbin.size);
    cuda_refused(&t, XRT_IMAGE_CUDA_CUBIN, "sm_90", fatbin.data, fatbin.size, want);
    assert_int_equal(fk.library_loads, fk.library_unloads);
    free(copy);
    free((void *)cubin.data);
    free((void *)ptx.data);
    free((void *)fatbin.data);
#else
    (void)state;
    SKIP_UNLESS(0, "cuda: not enabled in this build");
#endif
}

/* Junk does not load (REFERENCE.md's XRT_ERROR_INVALID_IMAGE at
   xrt_module_load), though cuLibraryLoadData accepts it (an H200, driver
   580): xrt refuses what is not a cubin, a fatbin or PTX itself, and asks
   the library for its kernels before returning, which brings out what the
   driver deferred (PTX that does not compile), with the JIT log. */
static void test_cuda_junk_images(void **state)
{
#ifdef XRT_ENABLE_CUDA
    static const char not_ptx[] = "this is not ptx",
                      broken[] = "// broken\n.version 8.0\n.target sm_90\n.entry k() {\n";
    xrt_backend t;
    xrt__gpu *g = gpu_table("cuda", &t);
    xrt_module_image im = {XRT_IMAGE_CUDA_PTX, broken, sizeof broken - 1, "compute_90"};
    unsigned char junk[4096];
    void *mod = NULL, *fn = NULL;
    char log[256];
    (void)state;
    fake_begin(g);
    fake_driver(g, 1);
    xrt_test_log_capture();
    memset(junk, 0x5a, sizeof junk);
    cuda_refused(&t, XRT_IMAGE_CUDA_CUBIN, "sm_90", junk, sizeof junk,
                 "cuda: xrt_module_load: the image (cuda cubin sm_90, 4096 bytes) is not a 64-bit little-endian ELF");
    cuda_refused(&t, XRT_IMAGE_CUDA_FATBIN, "sm_90", junk, sizeof junk,
                 "cuda: xrt_module_load: the image (cuda fatbin sm_90, 4096 bytes) is not a fatbin (no magic 0xba55ed50)");
    cuda_refused(&t, XRT_IMAGE_CUDA_PTX, "compute_90", not_ptx, sizeof not_ptx - 1,
                 "cuda: xrt_module_load: the image (cuda ptx compute_90, 15 bytes) is not PTX: it does not begin with a "
                 ".version directive");
    /* PTX that does not compile: the library "loads", the count brings the error out */
    FAILS(xrt__gpu_module_load(&t, &mod, &im, 1, "", log, sizeof log), XRT_ERROR_INVALID_IMAGE,
          "xrt_module_load: cuda: cuLibraryGetKernelCount: a PTX JIT compilation failed (CUDA_ERROR_INVALID_PTX=218)");
    assert_string_equal(log, "ptxas application ptx input, line 1; error   : syntax error");
    assert_null(mod);
    assert_int_equal(fk.library_loads, 1);
    assert_int_equal(fk.library_unloads, 1);
    /* a driver without cuLibraryGetKernelCount (before CUDA 12.4): at the lookup, as the driver gives it */
    xrt__cuda_drv.LibraryGetKernelCount = NULL;
    OK(xrt__gpu_module_load(&t, &mod, &im, 1, "", log, sizeof log));
    FAILS(xrt__gpu_module_get_function(&t, &fn, mod, "k"), XRT_ERROR_INVALID_IMAGE,
          "xrt_module_get_function: cuda: cuLibraryGetKernel: a PTX JIT compilation failed (CUDA_ERROR_INVALID_PTX=218)");
    OK(xrt__gpu_module_unload(&t, mod));
    assert_int_equal(fk.library_unloads, 2);
#else
    (void)state;
    SKIP_UNLESS(0, "cuda: not enabled in this build");
#endif
}

#ifdef XRT_ENABLE_CUDA
/* A driver call that fails in each operation that makes it: the status and
   the exact detail; nothing is left loaded. */
static const struct {
    int with_libraries, call, error;
    xrt_status status;
    const char *detail;
} cu_failures[] = {
    {0, CU_LOAD, CUDA_ERROR_OUT_OF_MEMORY, XRT_ERROR_OUT_OF_MEMORY,
     "xrt_module_load: cuda: cuModuleLoadDataEx: fake driver failure (CUDA_ERROR_OUT_OF_MEMORY=2)"},
    {0, CU_FUNCTION, CUDA_ERROR_INVALID_HANDLE, XRT_ERROR_INVALID_HANDLE,
     "xrt_module_get_function: cuda: cuModuleGetFunction: fake driver failure (CUDA_ERROR_INVALID_HANDLE=400)"},
    {0, CU_ATTRIBUTE, CUDA_ERROR_INVALID_VALUE, XRT_ERROR_INVALID_VALUE,
     "xrt_function_get_attributes: cuda: cuFuncGetAttribute: fake driver failure (CUDA_ERROR_INVALID_VALUE=1)"},
    {0, CU_LAUNCH, CUDA_ERROR_INVALID_VALUE, XRT_ERROR_INVALID_VALUE,
     "xrt_launch_kernel: cuda: cuLaunchKernel: fake driver failure (CUDA_ERROR_INVALID_VALUE=1)"},
    {0, CU_UNLOAD, CUDA_ERROR_INVALID_HANDLE, XRT_ERROR_INVALID_HANDLE,
     "xrt_module_unload: cuda: cuModuleUnload: fake driver failure (CUDA_ERROR_INVALID_HANDLE=400)"},
    {1, CU_LIB_LOAD, CUDA_ERROR_OUT_OF_MEMORY, XRT_ERROR_OUT_OF_MEMORY,
     "xrt_module_load: cuda: cuLibraryLoadData: fake driver failure (CUDA_ERROR_OUT_OF_MEMORY=2)"},
    {1, CU_LIB_COUNT, CUDA_ERROR_INVALID_IMAGE, XRT_ERROR_INVALID_IMAGE,
     "xrt_module_load: cuda: cuLibraryGetKernelCount: device kernel image is invalid (CUDA_ERROR_INVALID_IMAGE=200)"},
    {1, CU_LIB_KERNEL, CUDA_ERROR_INVALID_IMAGE, XRT_ERROR_INVALID_IMAGE,
     "xrt_module_get_function: cuda: cuLibraryGetKernel: device kernel image is invalid (CUDA_ERROR_INVALID_IMAGE=200)"},
    {1, CU_KERNEL_FUNCTION, CUDA_ERROR_INVALID_HANDLE, XRT_ERROR_INVALID_HANDLE,
     "xrt_function_get_attributes: cuda: cuKernelGetFunction: fake driver failure (CUDA_ERROR_INVALID_HANDLE=400)"},
    {1, CU_ATTRIBUTE, CUDA_ERROR_INVALID_VALUE, XRT_ERROR_INVALID_VALUE,
     "xrt_function_get_attributes: cuda: cuFuncGetAttribute: fake driver failure (CUDA_ERROR_INVALID_VALUE=1)"},
    {1, CU_LAUNCH, CUDA_ERROR_INVALID_VALUE, XRT_ERROR_INVALID_VALUE,
     "xrt_launch_kernel: cuda: cuLaunchKernel: fake driver failure (CUDA_ERROR_INVALID_VALUE=1)"},
    {1, CU_LIB_UNLOAD, CUDA_ERROR_INVALID_VALUE, XRT_ERROR_INVALID_VALUE,
     "xrt_module_unload: cuda: cuLibraryUnload: fake driver failure (CUDA_ERROR_INVALID_VALUE=1)"},
};

/* Runs load, get_function, attributes, launch and unload until the one
   whose driver call fails as the row says. */
static void cu_fail_one(xrt_backend *t, int row)
{
    static const char ptx[] = "// k\n.version 8.0\n.target sm_90\n";
    xrt_module_image im = {XRT_IMAGE_CUDA_PTX, ptx, sizeof ptx - 1, "compute_90"};
    xrt_function_attributes at;
    xrt_dim3 one = {1, 1, 1};
    unsigned char args[20] = {0};
    void *mod = NULL, *fn = NULL;
    char log[64];
    xrt_status st;
    fk.fail[cu_failures[row].call] = cu_failures[row].error;
    if ((st = xrt__gpu_module_load(t, &mod, &im, 1, "", log, sizeof log)) == XRT_SUCCESS &&
        (st = xrt__gpu_module_get_function(t, &fn, mod, "k")) == XRT_SUCCESS &&
        (st = xrt__gpu_function_get_attributes(t, &at, fn)) == XRT_SUCCESS &&
        (st = xrt__gpu_launch_kernel(t, fn, one, one, 0, NULL, args, sizeof args)) == XRT_SUCCESS)
        st = xrt__gpu_module_unload(t, mod);
    else if (mod)
        OK(xrt__gpu_module_unload(t, mod));
    assert_int_equal(st, cu_failures[row].status);
    assert_string_equal(xrt_get_last_error_string(), cu_failures[row].detail);
    assert_int_equal(fk.library_loads, fk.library_unloads);
    assert_int_equal(fk.loads - (cu_failures[row].call == CU_LOAD), fk.unloads);
}
#endif

/* Every driver call of the module path can fail; each failure is the
   operation's, with the driver's code and text. */
static void test_cuda_driver_failures(void **state)
{
#ifdef XRT_ENABLE_CUDA
    xrt_backend t;
    xrt__gpu *g = gpu_table("cuda", &t);
    size_t row;
    (void)state;
    xrt_test_log_capture();
    for (row = 0; row < sizeof cu_failures / sizeof cu_failures[0]; row++) {
        fake_begin(g);
        fake_driver(g, cu_failures[row].with_libraries);
        cu_fail_one(&t, (int)row);
        fakes_end();
    }
#else
    (void)state;
    SKIP_UNLESS(0, "cuda: not enabled in this build");
#endif
}

/* A module's variable, a function's attribute and its occupancy go to the
   driver (a module's or, on CUDA 12 drivers, a library's calls), with its
   answers and its errors. */
#ifdef XRT_ENABLE_CUDA
static void cu_symbols_and_occupancy(xrt_backend *t, int with_libraries)
{
    static const char ptx[] = "// k\n.version 8.0\n.target sm_90\n";
    xrt_module_image im = {XRT_IMAGE_CUDA_PTX, ptx, sizeof ptx - 1, "compute_90"};
    const char *global = with_libraries ? "cuLibraryGetGlobal" : "cuModuleGetGlobal";
    void *mod = NULL, *fn = NULL, *p = NULL;
    size_t size = 0;
    int blocks = -1, grid = -1, block = -1;
    char detail[160];
    OK(xrt__gpu_module_load(t, &mod, &im, 1, "", NULL, 0));
    OK(xrt__gpu_module_get_function(t, &fn, mod, "k"));
    OK(xrt__gpu_module_get_global(t, &p, &size, mod, "g"));
    assert_true((uintptr_t)p == CU_GLOBAL);
    assert_int_equal(size, 4);
    FAILS(xrt__gpu_module_get_global(t, &p, &size, mod, "h"), XRT_ERROR_NOT_FOUND,
          "cuda: xrt_module_get_global: no variable named 'h' in the module");
    assert_string_equal(xrt_get_last_error_string(), "cuda: xrt_module_get_global: no variable named 'h' in the module");
    snprintf(detail, sizeof detail, "xrt_module_get_global: cuda: %s: fake driver failure (CUDA_ERROR_INVALID_VALUE=1)",
             global);
    FAILS(xrt__gpu_module_get_global(t, &p, &size, mod, NULL), XRT_ERROR_INVALID_VALUE, detail);
    assert_string_equal(xrt_get_last_error_string(), detail);
    /* 48 KiB of dynamic shared memory without opt-in: no block fits */
    OK(xrt__gpu_occupancy_max_active_blocks_per_multiprocessor(t, &blocks, fn, 256, 48 * 1024));
    assert_int_equal(blocks, 0);
    OK(xrt__gpu_occupancy_max_active_blocks_per_multiprocessor(t, &blocks, fn, 256, 0));
    assert_int_equal(blocks, 8); /* by threads: 2048 / 256 */
    OK(xrt__gpu_occupancy_max_potential_block_size(t, &grid, &block, fn, 0, 0));
    assert_int_equal(block, 1024);
    assert_int_equal(grid, 2 * 132);
    OK(xrt__gpu_occupancy_max_potential_block_size(t, &grid, &block, fn, 0, 100));
    assert_int_equal(block, 64); /* 32 blocks of 64 fill an SM; 21 of 96 do not */
    assert_int_equal(grid, 32 * 132);
    FAILS(xrt__gpu_occupancy_max_active_blocks_per_multiprocessor(t, &blocks, fn, 0, 0), XRT_ERROR_INVALID_VALUE,
          "xrt_occupancy_max_active_blocks_per_multiprocessor: cuda: cuOccupancyMaxActiveBlocksPerMultiprocessor: "
          "fake driver failure (CUDA_ERROR_INVALID_VALUE=1)");
    /* opt-in to 64 KiB: now 3 blocks of 64 KiB + 1.25 KiB fit in 228 KiB */
    OK(xrt__gpu_function_set_attribute(t, fn, XRT_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 64 * 1024));
    assert_int_equal(fk.max_dynamic_shared, 64 * 1024);
    OK(xrt__gpu_occupancy_max_active_blocks_per_multiprocessor(t, &blocks, fn, 256, 64 * 1024));
    assert_int_equal(blocks, 3);
    FAILS(xrt__gpu_function_set_attribute(t, fn, XRT_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 227 * 1024),
          XRT_ERROR_INVALID_VALUE,
          "xrt_function_set_attribute: cuda: cuFuncSetAttribute: fake driver failure (CUDA_ERROR_INVALID_VALUE=1)");
    assert_int_equal(fk.max_dynamic_shared, 64 * 1024);
    OK(xrt__gpu_module_unload(t, mod));
}
#endif

static void test_cuda_module_symbols_and_occupancy_fake(void **state)
{
#ifdef XRT_ENABLE_CUDA
    xrt_backend t;
    xrt__gpu *g = gpu_table("cuda", &t);
    int with_libraries;
    (void)state;
    xrt_test_log_capture();
    for (with_libraries = 0; with_libraries < 2; with_libraries++) {
        fake_begin(g);
        fake_driver(g, with_libraries);
        cu_symbols_and_occupancy(&t, with_libraries);
        assert_int_equal(fk.loads + fk.library_loads, fk.unloads + fk.library_unloads);
        fakes_end();
    }
#else
    (void)state;
    SKIP_UNLESS(0, "cuda: not enabled in this build");
#endif
}

/* The device synchronize before an unload reports an error of earlier work
   (a kernel that faulted): that error is the unload's, and the module is
   unloaded all the same, as nothing else could unload it. */
static void test_cuda_module_unloaded_when_synchronize_fails_fake(void **state)
{
#ifdef XRT_ENABLE_CUDA
    xrt_backend t;
    xrt__gpu *g = gpu_table("cuda", &t);
    xrt_module_image im = fake_ptx80_image;
    void *m = NULL;
    (void)state;
    xrt_test_log_capture();
    fake_begin(g);
    fake_driver(g, 0);
    OK(xrt__gpu_module_load(&t, &m, &im, 1, "", NULL, 0));
    fk.synchronize = cudaErrorLaunchFailure;
    FAILS(xrt__gpu_module_unload(&t, m), XRT_ERROR_BACKEND, "cudaDeviceSynchronize");
    assert_string_equal(xrt_get_last_error_string(), "cuda: cudaDeviceSynchronize: fake failure (fakeError=719)");
    assert_int_equal(fk.unloads, 1);
    /* an unload that fails too: the synchronize's error is still the one told */
    OK(xrt__gpu_module_load(&t, &m, &im, 1, "", NULL, 0));
    fk.fail[CU_UNLOAD] = CUDA_ERROR_INVALID_HANDLE;
    FAILS(xrt__gpu_module_unload(&t, m), XRT_ERROR_BACKEND, "cudaDeviceSynchronize");
    assert_string_equal(xrt_get_last_error_string(), "cuda: cudaDeviceSynchronize: fake failure (fakeError=719)");
    assert_int_equal(fk.unloads, 2);
    fk.synchronize = 0;
    fakes_end();
#else
    (void)state;
    SKIP_UNLESS(0, "cuda: not enabled in this build");
#endif
}


/* HIP's launch hands the packed arguments over as CUDA's does, with HIP's
   end marker. */
static void test_hip_launch_fake(void **state)
{
#if defined(XRT_ENABLE_HIP) && defined(XRT_ENABLE_CUDA)
    xrt_backend t;
    (void)gpu_table("hip", &t);
    int (*saved)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *, void **, void **) =
        xrt__hip_ext.ModuleLaunchKernel;
    xrt_dim3 grid = {5, 1, 1}, block = {64, 2, 1};
    unsigned char args[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    xrt__gpu_function fn; /* of a module of every device; its parameters unknown */
    (void)state;
    memset(&fn, 0, sizeof fn);
    fn.native = (void *)(uintptr_t)0x5678;
    fn.device = -1;
    assert_ptr_equal(HIP_LAUNCH_PARAM_BUFFER_POINTER, CU_LAUNCH_PARAM_BUFFER_POINTER);
    assert_ptr_equal(HIP_LAUNCH_PARAM_BUFFER_SIZE, CU_LAUNCH_PARAM_BUFFER_SIZE);
    memset(&fk, 0, sizeof fk);
    fk.end = HIP_LAUNCH_PARAM_END;
    xrt__hip_ext.ModuleLaunchKernel = fake_cu_launch;
    OK(xrt__gpu_launch_kernel(&t, &fn, grid, block, 64, (void *)(uintptr_t)0xdef, args, sizeof args));
    xrt_test_log_capture();
    { /* HIP 5 has no launch with attributes */
        xrt_launch_attribute a;
        memset(&a, 0, sizeof a);
        a.id = XRT_LAUNCH_ATTR_PRIORITY;
        FAILS(xrt__gpu_launch_kernel_ex(&t, &fn, grid, block, 0, NULL, args, sizeof args, &a, 1),
              XRT_ERROR_UNSUPPORTED, "hip: the runtime has no launches with attributes");
    }
    xrt__hip_ext.ModuleLaunchKernel = saved;
    assert_int_equal(fk.dims[0], 5);
    assert_int_equal(fk.dims[4], 2);
    assert_int_equal(fk.dims[6], 64);
    assert_ptr_equal(fk.stream, (void *)(uintptr_t)0xdef);
    assert_int_equal(fk.args_size, sizeof args);
    assert_memory_equal(fk.args, args, sizeof args);
    xrt__hip_ext.ModuleLaunchKernel = NULL;
    FAILS(xrt__gpu_launch_kernel(&t, &fn, grid, block, 0, NULL, NULL, 0), XRT_ERROR_UNSUPPORTED,
          "xrt_launch_kernel: not supported by backend hip: no module loader");
    xrt__hip_ext.ModuleLaunchKernel = saved;
#else
    (void)state;
    SKIP_UNLESS(0, "hip and cuda: not both enabled in this build");
#endif
}

/* >> HIP modules on the images hipcc built from examples/saxpy/saxpy.cu: with
   a fake runtime, the image picked for each device arch and what xrt reads in
   an image before the runtime may; with the real runtime and no device, how
   far a real code object gets. */
#ifdef XRT_ENABLE_HIP
static struct { int loads, unloads, fail; const void *image; } fh;

static int fake_hip_load(void **m, const void *image)
{
    fh.loads++;
    fh.image = image;
    if (fh.fail) return fh.fail;
    *m = (void *)(uintptr_t)0x1234;
    return 0;
}
static int fake_hip_unload(void *m)
{
    assert_ptr_equal(m, (void *)(uintptr_t)0x1234);
    fh.unloads++;
    return 0;
}
static int fake_hip_function(void **f, void *m, const char *name)
{
    assert_ptr_equal(m, (void *)(uintptr_t)0x1234);
    if (strcmp(name, "saxpy") != 0) return hipErrorNotFound;
    *f = (void *)(uintptr_t)0x5678;
    return 0;
}
static int fake_hip_synchronize(void) { return 0; }

/* A device whose arch HIP 5 names `gcn_arch_name` (features and all). */
static void fake_hip_device(const char *gcn_arch_name)
{
    fake_hip_prop(256, 276, 336, 396);
    memset(fake.prop + 396, 0, 256);
    put_bytes(396, gcn_arch_name, strlen(gcn_arch_name) + 1);
}

/* The image the runtime is handed when xrt loads from `im`. */
static const void *hip_picked(xrt_backend *t, const xrt_module_image *im, size_t n)
{
    void *mod = NULL;
    char log[64];
    int loads = fh.loads;
    OK(xrt__gpu_module_load(t, &mod, im, n, "", log, sizeof log));
    assert_int_equal(fh.loads, loads + 1);
    OK(xrt__gpu_module_unload(t, mod));
    return fh.image;
}

/* xrt refuses the image (XRT_ERROR_INVALID_IMAGE, saying `why`) on a gfx90a
   device without handing it to the runtime. */
static void hip_refused(xrt_backend *t, xrt_image_kind kind, const void *data, size_t size, const char *why)
{
    xrt_module_image im;
    void *mod = NULL;
    char log[64];
    int loads = fh.loads;
    im.kind = kind, im.data = data, im.size = size, im.arch = "gfx90a";
    FAILS(xrt__gpu_module_load(t, &mod, &im, 1, "", log, sizeof log), XRT_ERROR_INVALID_IMAGE, why);
    assert_null(mod);
    assert_int_equal(fh.loads, loads);
}

static void put_le64(unsigned char *p, uint64_t v)
{
    int k;
    for (k = 0; k < 8; k++) p[k] = (unsigned char)(v >> 8 * k);
}

/* A clang offload bundle made by hand: an entry for each of the n ids, each
   holding the same `size` bytes of `code` (the caller frees it; *total: its
   size). */
static unsigned char *hand_bundle_of(const char *const *ids, size_t n, const void *code, size_t size, size_t *total)
{
    size_t head = 24 + 8, i, at;
    unsigned char *b;
    for (i = 0; i < n; i++) head += 24 + strlen(ids[i]);
    b = (unsigned char *)malloc(head + size);
    assert_non_null(b);
    memcpy(b, "__CLANG_OFFLOAD_BUNDLE__", 24);
    put_le64(b + 24, n);
    for (i = 0, at = 32; i < n; at += 24 + strlen(ids[i]), i++) { /* each entry: offset, size, id length, id */
        put_le64(b + at, head), put_le64(b + at + 8, size), put_le64(b + at + 16, strlen(ids[i]));
        memcpy(b + at + 24, ids[i], strlen(ids[i]));
    }
    memcpy(b + head, code, size);
    *total = head + size;
    return b;
}

/* A clang offload bundle made by hand: one entry, `id`. */
static unsigned char *hand_bundle(const char *id, const void *code, size_t size, size_t *total)
{
    return hand_bundle_of(&id, 1, code, size, total);
}

/* An AMDGPU code object made by hand: an ELF header alone (no sections),
   code object v4 (EI_ABIVERSION 2) with these e_flags: the processor
   (gfx90a 0x3f), XNACK bits 8-9 and SRAMECC bits 10-11 (0 unsupported,
   1 any, 2 off, 3 on). */
static void hand_code_object(unsigned char elf[64], uint32_t flags)
{
    int k;
    memset(elf, 0, 64);
    memcpy(elf, "\177ELF\2\1\1\100\2", 9); /* 64-bit, little-endian, version 1, ELFOSABI_AMDGPU_HSA, v4 */
    elf[16] = 3, elf[18] = 224, elf[20] = 1, elf[52] = 64; /* ET_DYN, EM_AMDGPU, EV_CURRENT, e_ehsize */
    for (k = 0; k < 4; k++) elf[48 + k] = (unsigned char)(flags >> 8 * k);
}

/* The first AMDGPU ELF inside a bundle. */
static size_t first_elf(const unsigned char *p, size_t size)
{
    size_t i;
    for (i = 64; i + 4 <= size; i++)
        if (!memcmp(p + i, "\177ELF", 4)) return i;
    fail_msg("no code object in the bundle");
    return 0;
}

/* The fake runtime loads modules: fh counts them and keeps the image loaded. */
static void fake_hip_loader(xrt__gpu *g)
{
    fake_begin(g);
    hip_ext_fake();
    xrt__hip_ext.r0600 = 0;
    xrt__hip_ext.ModuleLoadData = fake_hip_load;
    xrt__hip_ext.ModuleUnload = fake_hip_unload;
    xrt__hip_ext.ModuleGetFunction = fake_hip_function;
    g->rt.DeviceSynchronize = fake_hip_synchronize;
    memset(&fh, 0, sizeof fh);
    xrt_test_log_capture();
}

/* An image of a choice: a bundle of the processors' target ids in `ids`
   (space-separated), else a code object with e_flags `flags`; its label. */
typedef struct { const char *arch, *ids; uint32_t flags; } hip_offer;

static void hip_offer_make(const hip_offer *o, xrt_module_image *im, unsigned char elf[64])
{
    char buf[256], *save = NULL, *tok;
    const char *ids[8];
    size_t n = 0, total = 0;
    static char names[8][96];
    im->arch = o->arch;
    if (!o->ids) {
        hand_code_object(elf, o->flags);
        im->kind = XRT_IMAGE_HIP_CODE_OBJECT, im->data = elf, im->size = 64;
        return;
    }
    hand_code_object(elf, 0x53f); /* the entries' code: gfx90a, either mode */
    snprintf(buf, sizeof buf, "%s", o->ids);
    for (tok = strtok_r(buf, " ", &save); tok && n < 8; tok = strtok_r(NULL, " ", &save), n++) {
        snprintf(names[n], sizeof names[n], "hipv4-amdgcn-amd-amdhsa--%s", tok);
        ids[n] = names[n];
    }
    im->kind = XRT_IMAGE_HIP_OFFLOAD_BUNDLE;
    im->data = hand_bundle_of(ids, n, elf, 64, &total);
    im->size = total;
}
#endif

/* >> which HIP image runs on which device: AMD's rule for target ids (a
   bundle entry's "hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", a code
   object's e_flags): a feature left unspecified runs in either mode, one
   that is named must be the device's mode; of the images that fit by
   compatibility, the most specific wins (the first of equals). Picked
   through xrt_module_load on the fake runtime; -1: refused by xrt
   (XRT_ERROR_NO_BINARY_FOR_DEVICE, naming the device's features) without
   trying the runtime. */
static void test_hip_image_choice(void **state)
{
#ifdef XRT_ENABLE_HIP
#define L2 "gfx90a,gfx1030"
    static const struct { const char *device; hip_offer offer[3]; int pick; } cases[] = {
        {"gfx90a:sramecc+:xnack-", {{L2, "gfx90a:xnack+", 0}, {L2, "gfx90a", 0}}, 1},
        {"gfx90a:sramecc+:xnack-", {{L2, "gfx90a:xnack+", 0}, {L2, "gfx90a:xnack-", 0}}, 1},
        {"gfx90a:sramecc+:xnack-", {{L2, "gfx90a", 0}, {L2, "gfx90a:xnack-", 0}, {L2, "gfx90a:sramecc+:xnack-", 0}}, 2},
        {"gfx90a:sramecc+:xnack-", {{L2, "gfx90a:xnack-", 0}, {L2, "gfx90a:sramecc+", 0}}, 0},
        {"gfx90a:sramecc-:xnack+", {{L2, "gfx90a:xnack+", 0}, {L2, "gfx90a", 0}}, 0},
        /* labelled for exactly the arch, but not in the device's mode: passed over */
        {"gfx90a:sramecc+:xnack-", {{"gfx90a", "gfx90a:xnack+", 0}, {"gfx908,gfx90a", "gfx908 gfx90a", 0}}, 1},
        {"gfx90a:sramecc+:xnack-", {{NULL, "gfx90a:xnack+", 0}, {NULL, "gfx90a", 0}}, 1},
        /* one bundle with either mode: the runtime picks inside it */
        {"gfx90a:sramecc+:xnack-", {{"gfx908,gfx90a", "gfx90a:xnack+ gfx90a:xnack-", 0}}, 0},
        {"gfx90a:sramecc+:xnack-", {{"gfx90a", "gfx90a:xnack+ gfx90a:sramecc-", 0}}, -1},
        {"gfx90a:sramecc+:xnack-", {{NULL, "gfx90a:xnack+", 0}}, -1},
        /* a feature the device does not name (gfx1030 has neither) */
        {"gfx1030", {{"gfx1030", "gfx1030:xnack-", 0}, {"gfx1030", "gfx1030", 0}}, 1},
        /* a generic target's entry (ROCm 6.2 on) may run: xrt leaves it to the runtime */
        {"gfx942:sramecc+:xnack-", {{"gfx942", "gfx942:xnack+ gfx9-4-generic:xnack-", 0}}, 0},
        /* code objects: their e_flags' modes (XNACK on 0x300, any 0x100; SRAMECC any 0x400) */
        {"gfx90a:sramecc+:xnack-", {{"gfx90a", NULL, 0x73f}, {"gfx90a", NULL, 0x53f}}, 1},
        {"gfx90a:sramecc+:xnack-", {{"gfx90a", NULL, 0x33f}}, -1},
        {"gfx90a:sramecc+:xnack-", {{"gfx90a:xnack+", NULL, 0x53f}, {"gfx90a:xnack-", NULL, 0x63f}}, 1},
    };
#undef L2
    xrt_backend t;
    xrt__gpu *g = gpu_table("hip", &t);
    xrt_module_image im[3];
    unsigned char elf[3][64];
    size_t i, k, n;
    (void)state;
    fake_hip_loader(g);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        void *mod = NULL;
        char log[64], want[160];
        int loads = fh.loads;
        fake_hip_device(cases[i].device);
        for (n = 0; n < 3 && (cases[i].offer[n].ids || cases[i].offer[n].flags); n++)
            hip_offer_make(&cases[i].offer[n], &im[n], elf[n]);
        if (cases[i].pick >= 0) {
            const void *got = hip_picked(&t, im, n);
            for (k = 0; k < n && got != im[k].data; k++) {}
            if (k != (size_t)cases[i].pick)
                fail_msg("case %zu on %s: picked image %d, expected %d", i, cases[i].device, k < n ? (int)k : -1,
                         cases[i].pick);
        } else {
            snprintf(want, sizeof want, "no image for hip arch %.*s with %s among the %zu offered",
                     (int)strcspn(cases[i].device, ":"), cases[i].device, "sramecc+,xnack-", n);
            FAILS(xrt__gpu_module_load(&t, &mod, im, n, "", log, sizeof log), XRT_ERROR_NO_BINARY_FOR_DEVICE, want);
            assert_null(mod);
            assert_int_equal(fh.loads, loads);
        }
        for (k = 0; k < n; k++)
            if (im[k].kind == XRT_IMAGE_HIP_OFFLOAD_BUNDLE) free((void *)im[k].data);
    }
#else
    (void)state;
    SKIP_UNLESS(0, "hip: not enabled in this build");
#endif
}

static void test_hip_modules_fake(void **state)
{
#ifdef XRT_ENABLE_HIP
    xrt_backend t;
    xrt__gpu *g = gpu_table("hip", &t);
    xrt_module_image im[3], any;
    void *mod = NULL, *fn = NULL;
    unsigned char *copy;
    char log[64], want[300];
    size_t elf;
    (void)state;
    SKIP_UNLESS(saxpy_hip_images(&im[0], &im[1]), XRT_TEST_NO_HIPCC);
    im[2].kind = XRT_IMAGE_CUDA_FATBIN, im[2].data = "fatbin", im[2].size = 6, im[2].arch = "sm_90"; /* not HIP's */
    fake_hip_loader(g);
    /* gfx90a: the code object built for exactly it; gfx1030: the bundle, which holds code for it */
    fake_hip_device("gfx90a:sramecc+:xnack-");
    assert_ptr_equal(hip_picked(&t, im, 3), im[0].data);
    fake_hip_device("gfx1030");
    assert_ptr_equal(hip_picked(&t, im, 3), im[1].data);
    /* gfx942 (Debian's hipcc cannot build for it): neither; the bundle was read, not tried */
    fake_hip_device("gfx942:sramecc+:xnack-");
    snprintf(want, sizeof want,
             "hip: xrt_module_load: no image for hip arch gfx942 with sramecc+,xnack- among the 3 offered: "
             "hip code object gfx90a, "
             "hip offload bundle %s, cuda fatbin sm_90", XRT_TEST_HIP_BUNDLE_ARCHS);
    FAILS(xrt__gpu_module_load(&t, &mod, im, 3, "", log, sizeof log), XRT_ERROR_NO_BINARY_FOR_DEVICE, want);
    assert_null(mod);
    assert_int_equal(fh.loads, 2);
    /* a bundle offered for any arch is the runtime's to refuse */
    any = im[1], any.arch = NULL;
    fh.fail = hipErrorNoBinaryForGpu;
    FAILS(xrt__gpu_module_load(&t, &mod, &any, 1, "", log, sizeof log), XRT_ERROR_NO_BINARY_FOR_DEVICE,
          "hip: hipModuleLoadData: ");
    assert_ptr_equal(fh.image, im[1].data);
    fh.fail = 0;
    /* its functions */
    fake_hip_device("gfx90a");
    OK(xrt__gpu_module_load(&t, &mod, im, 3, "", log, sizeof log));
    FAILS(xrt__gpu_module_get_function(&t, &fn, mod, "nope"), XRT_ERROR_NOT_FOUND, "no kernel named 'nope'");
    OK(xrt__gpu_module_get_function(&t, &fn, mod, "saxpy"));
    OK(xrt__gpu_module_unload(&t, mod));
    assert_int_equal(fh.unloads, 3);
    /* what xrt reads first: the runtime takes no size and would read past a short image */
    hip_refused(&t, XRT_IMAGE_HIP_CODE_OBJECT, "not a code object", 17,
                "hip: xrt_module_load: the image (hip code object gfx90a, 17 bytes) is neither an AMDGPU code object "
                "(ELF) nor a clang offload bundle");
    hip_refused(&t, XRT_IMAGE_HIP_CODE_OBJECT, im[0].data, 40, "is cut short: 40 bytes, less than an ELF header");
    hip_refused(&t, XRT_IMAGE_HIP_CODE_OBJECT, im[0].data, im[0].size - 1, "is cut short: ");
    hip_refused(&t, XRT_IMAGE_HIP_OFFLOAD_BUNDLE, im[1].data, im[1].size - 1, "is a clang offload bundle cut short: ");
    hip_refused(&t, XRT_IMAGE_HIP_OFFLOAD_BUNDLE, im[1].data, 40, "is a clang offload bundle cut short: entry 0");
    copy = (unsigned char *)malloc(im[1].size);
    assert_non_null(copy);
    memcpy(copy, im[1].data, im[1].size);
    elf = first_elf(copy, im[1].size);
    copy[elf + 18] = 62; /* e_machine: x86-64 */
    hip_refused(&t, XRT_IMAGE_HIP_OFFLOAD_BUNDLE, copy, im[1].size, "code object is an ELF for machine 62, not AMDGPU");
    memcpy(copy, im[0].data, im[0].size);
    copy[4] = 1; /* ELFCLASS32 */
    hip_refused(&t, XRT_IMAGE_HIP_CODE_OBJECT, copy, im[0].size, "is not a 64-bit little-endian ELF");
    copy[4] = 2;
    copy[18] = 62;
    hip_refused(&t, XRT_IMAGE_HIP_CODE_OBJECT, copy, im[0].size,
                "hip: xrt_module_load: the image (hip code object gfx90a, ");
    hip_refused(&t, XRT_IMAGE_HIP_CODE_OBJECT, copy, im[0].size, "is an ELF for machine 62, not AMDGPU (EM_AMDGPU, 224)");
    free(copy);
    { /* an entry's id of any length is read: behind it, a sound code object is picked, a cut one refused */
        static const size_t lens[] = {31, 127, 128, 4096};
        char id[4200];
        size_t k, total;
        unsigned char *b;
        fake_hip_device("gfx90a");
        for (k = 0; k < sizeof lens / sizeof lens[0]; k++) {
            snprintf(id, sizeof id, "hipv4-amdgcn-amd-amdhsa--gfx90a"); /* 31 bytes; then empty features, ":::..." */
            if (lens[k] > 31) memset(id + 31, ':', lens[k] - 31), id[lens[k]] = 0;
            assert_int_equal(strlen(id), lens[k]);
            b = hand_bundle(id, im[0].data, im[0].size, &total);
            any.kind = XRT_IMAGE_HIP_OFFLOAD_BUNDLE, any.data = b, any.size = total, any.arch = "gfx90a,gfx1030";
            assert_ptr_equal(hip_picked(&t, &any, 1), b);
            free(b);
            b = hand_bundle(id, im[0].data, im[0].size - 1, &total);
            hip_refused(&t, XRT_IMAGE_HIP_OFFLOAD_BUNDLE, b, total,
                        "is a clang offload bundle whose gfx90a code object is cut short: ");
            free(b);
        }
    }
    { /* extended numbering: e_shnum 0, the count in section 0's sh_size (e_phnum 0xffff: in its sh_info) */
        const unsigned char *e = (const unsigned char *)im[0].data;
        uint64_t shoff = 0, shnum = (uint64_t)e[60] | (uint64_t)e[61] << 8, phnum = (uint64_t)e[56] | (uint64_t)e[57] << 8;
        xrt_module_image x;
        int k;
        for (k = 7; k >= 0; k--) shoff = shoff << 8 | e[40 + k];
        assert_true(shnum > 0 && shoff + 64 <= im[0].size);
        copy = (unsigned char *)malloc(im[0].size);
        assert_non_null(copy);
        memcpy(copy, im[0].data, im[0].size);
        copy[60] = copy[61] = 0;
        for (k = 0; k < 8; k++) copy[shoff + 32 + k] = (unsigned char)(shnum >> 8 * k); /* sh_size */
        copy[56] = copy[57] = 0xff;
        for (k = 0; k < 4; k++) copy[shoff + 44 + k] = (unsigned char)(phnum >> 8 * k); /* sh_info */
        x.kind = XRT_IMAGE_HIP_CODE_OBJECT, x.data = copy, x.size = im[0].size, x.arch = "gfx90a";
        assert_ptr_equal(hip_picked(&t, &x, 1), copy);
        hip_refused(&t, XRT_IMAGE_HIP_CODE_OBJECT, copy, (size_t)(shoff + 64 * shnum - 1), "is cut short: ");
        hip_refused(&t, XRT_IMAGE_HIP_CODE_OBJECT, copy, (size_t)shoff + 63, "is cut short: ");
        free(copy);
    }
    { /* a compressed bundle (clang 19 on): xrt reads its header, which gives its size from version 2 on */
        static const unsigned char ccob[32] = {'C', 'C', 'O', 'B', 2, 0, 1, 0, 32, 0, 0, 0, 0xff, 0xff};
        xrt_module_image z;
        z.kind = XRT_IMAGE_HIP_OFFLOAD_BUNDLE, z.data = ccob, z.size = sizeof ccob, z.arch = NULL;
        assert_ptr_equal(hip_picked(&t, &z, 1), ccob);
        hip_refused(&t, XRT_IMAGE_HIP_OFFLOAD_BUNDLE, ccob, 31,
                    "is a compressed offload bundle cut short: 31 of its 32 bytes");
        hip_refused(&t, XRT_IMAGE_HIP_OFFLOAD_BUNDLE, ccob, 12, "is a compressed offload bundle cut short (12 bytes)");
    }
    free((void *)im[0].data);
    free((void *)im[1].data);
#else
    (void)state;
    SKIP_UNLESS(0, "hip: not enabled in this build");
#endif
}

/* The real runtime, where it loads: a real code object reaches
   hipModuleLoadData, which, without a device, refuses it for that reason. */
static void test_hip_module_real_runtime(void **state)
{
#ifdef XRT_ENABLE_HIP
    int no_device = !available("hip");
    xrt_backend t;
    xrt__gpu *g = gpu_table("hip", &t);
    xrt_module_image co, bundle;
    (void)state;
    memset(&bundle, 0, sizeof bundle); /* gcc does not know that a skip does not return */
    SKIP_UNLESS(saxpy_hip_images(&co, &bundle), XRT_TEST_NO_HIPCC);
    free((void *)bundle.data);
    {
        LOAD_OR_SKIP(g, hip_names)
        void *native = NULL;
        char log[64];
        int any = 0;
        xrt_test_log_capture();
        if (!g->module_load) {
            free((void *)co.data);
            SKIP_UNLESS(0, "the HIP runtime lacks the module entry points");
        }
        if (no_device) {
            FAILS(xrt__hip_module_load(g, &co, &native, &any, log, sizeof log), XRT_ERROR_INVALID_DEVICE,
                  "hip: hipModuleLoadData: ");
        } else {
            /* on a gfx90a the code object loads; on another device the
               runtime refuses it as built for another arch */
            xrt_target t;
            xrt_status st;
            OK(xrt_set_backend("hip"));
            OK(xrt_get_target(&t));
            st = xrt__hip_module_load(g, &co, &native, &any, log, sizeof log);
            if (strcmp(t.arch, "gfx90a") == 0) {
                if (st != XRT_SUCCESS) fail_msg("a gfx90a code object on a gfx90a: %s", xrt_get_last_error_string());
                OK(xrt__hip_module_unload(g, native));
            } else {
                if (st != XRT_ERROR_NO_BINARY_FOR_DEVICE && st != XRT_ERROR_INVALID_IMAGE)
                    fail_msg("a gfx90a code object on a %s: %s", t.arch, xrt_get_last_error_string());
                assert_non_null(strstr(xrt_get_last_error_string(), "hip: hipModuleLoadData: "));
            }
        }
        co.size = 100; /* refused before the runtime reads it */
        FAILS(xrt__hip_module_load(g, &co, &native, &any, log, sizeof log), XRT_ERROR_INVALID_IMAGE, "is cut short");
        if (loaded_) xrt__gpu_unload(g);
        (void)why_;
    }
    free((void *)co.data);
#else
    (void)state;
    SKIP_UNLESS(0, "hip: not enabled in this build");
#endif
}

/* Without libcuda.so.1 (no driver, as here), or with a library that is not
   the driver, the export is unsupported and says why; a failure is not
   remembered. */
static void test_cuda_dmabuf_without_driver(void **state)
{
#ifdef XRT_ENABLE_CUDA
    xrt_backend t;
    xrt__gpu *g = gpu_table("cuda", &t);
    const char *cudart;
    int fd = -1;
    (void)state;
    SKIP_UNLESS(!__atomic_load_n(&xrt__cuda_drv.lib, __ATOMIC_ACQUIRE), "the CUDA driver API is loaded");
    xrt_test_log_capture();
    setenv("XRT_CUDA_DRIVER_LIBRARY", "/nonexistent/libcuda.so.1", 1);
    FAILS(xrt__cuda_export_dmabuf(g, 0, (void *)(uintptr_t)0x200000, 4096, &fd), XRT_ERROR_UNSUPPORTED,
          "cuda: xrt_mem_export_dmabuf: no CUDA driver API: XRT_CUDA_DRIVER_LIBRARY=/nonexistent/libcuda.so.1: "
          "/nonexistent/libcuda.so.1: cannot open shared object file");
    /* the runtime named by mistake (not libm: closing a library that the
       process holds only as HIP's dependency leaks in glibc, valgrind says) */
    if ((cudart = loadable(cudart_names)) != NULL) {
        setenv("XRT_CUDA_DRIVER_LIBRARY", cudart, 1);
        FAILS(xrt__cuda_export_dmabuf(g, 0, (void *)(uintptr_t)0x200000, 4096, &fd), XRT_ERROR_UNSUPPORTED,
              "cuda: xrt_mem_export_dmabuf: no CUDA driver API: symbol cuInit not found");
    }
    unsetenv("XRT_CUDA_DRIVER_LIBRARY");
    if (!can_load(cuda_driver_names))
        FAILS(xrt__cuda_export_dmabuf(g, 0, (void *)(uintptr_t)0x200000, 4096, &fd), XRT_ERROR_UNSUPPORTED,
              "cuda: xrt_mem_export_dmabuf: no CUDA driver API: cannot load libcuda.so.1 (set XRT_CUDA_DRIVER_LIBRARY): "
              "libcuda.so.1: cannot open shared object file");
    assert_int_equal(fd, -1);
    assert_null(xrt__cuda_drv.lib);
#else
    (void)state;
    SKIP_UNLESS(0, "cuda: not enabled in this build");
#endif
}

/* With a fake driver: each refusal says why; a success hands over the fd,
   the page-aligned range and ptr's offset in it, on the allocation's device. */
static void test_cuda_dmabuf_fake_driver(void **state)
{
#ifdef XRT_ENABLE_CUDA
    xrt_backend t;
    xrt__gpu *g = gpu_table("cuda", &t);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t base = (uintptr_t)0x7f0000000000ull;
    uint64_t offset = 0;
    int fd = -1;
    (void)state;
    fake_begin(g);
    driver_saved = xrt__cuda_drv;
    driver_faked = 1;
    memset(&xrt__cuda_drv, 0, sizeof xrt__cuda_drv);
    xrt__cuda_drv.GetErrorName = fake_cu_error_name;
    xrt__cuda_drv.GetErrorString = fake_cu_error_string;
    xrt__cuda_drv.DeviceGet = fake_cu_device_get;
    xrt__cuda_drv.DeviceGetAttribute = fake_cu_attribute;
    xrt__cuda_drv.lib = &driver_saved; /* "loaded" */
    xrt_test_log_capture();
    FAILS(xrt__cuda_export_dmabuf(g, 0, (void *)base, page, &fd), XRT_ERROR_UNSUPPORTED,
          "cuda: xrt_mem_export_dmabuf: the CUDA driver has no cuMemGetHandleForAddressRange (it came with CUDA 11.7)");
    xrt__cuda_drv.MemGetHandleForAddressRange = fake_cu_get_handle;
    FAILS(xrt__cuda_export_dmabuf(g, 0, (void *)base, page, &fd), XRT_ERROR_UNSUPPORTED,
          "cuda: xrt_mem_export_dmabuf: device 0 cannot export dma-bufs (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED is 0)");
    fake.supported = 1;
    fake.fail = CUDA_ERROR_INVALID_VALUE;
    FAILS(xrt__cuda_export_dmabuf(g, 0, (void *)base, page, &fd), XRT_ERROR_INVALID_VALUE,
          "cuda: cuMemGetHandleForAddressRange: fake driver failure (CUDA_ERROR_INVALID_VALUE=1)");
    fake.fail = CUDA_ERROR_NOT_SUPPORTED;
    FAILS(xrt__gpu_mem_export_dmabuf(&t, (void *)(base + 100), 10, &fd, &offset), XRT_ERROR_UNSUPPORTED,
          "cuda: cuMemGetHandleForAddressRange: fake driver failure (CUDA_ERROR_NOT_SUPPORTED=801)");
    assert_int_equal(fd, -1);
    /* the whole operation: device memory on device 1 while the thread is on 0 */
    fake.fail = 0;
    fake.attr[0] = cudaMemoryTypeDevice;
    fake.attr[1] = 1;
    OK(xrt__gpu_mem_export_dmabuf(&t, (void *)(base + page + 100), page, &fd, &offset));
    assert_int_equal(fd, 77);
    assert_int_equal(offset, 100);
    assert_int_equal(fake.handle_ptr, base + page);
    assert_int_equal(fake.handle_len, 2 * page);
    assert_int_equal(fake.handle_type, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD);
    assert_int_equal(fake.handle_flags, 0);
    assert_int_equal(fake.nset, 3);
    assert_int_equal(fake.set_devices[1], 1); /* the allocation's device for the export, */
    assert_int_equal(fake.set_devices[2], 0); /* then the thread's again */
#else
    (void)state;
    SKIP_UNLESS(0, "cuda: not enabled in this build");
#endif
}

#ifdef XRT_ENABLE_HIP
static int fake_hip_get_handle(void *handle, void *ptr, size_t size, int type, unsigned long long flags)
{
    return fake_get_handle((int *)handle, (uintptr_t)ptr, size, type, flags, 78);
}
#endif

/* HIP 5 has no hipMemGetHandleForAddressRange: unsupported, with that reason;
   a runtime that has it exports (a fake here). */
static void test_hip_dmabuf_fake(void **state)
{
#ifdef XRT_ENABLE_HIP
    xrt_backend t;
    xrt__gpu *g = gpu_table("hip", &t);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t base = (uintptr_t)0x7f0000000000ull;
    uint64_t offset = 7;
    int fd = 5;
    (void)state;
    fake_begin(g);
    hip_ext_fake();
    xrt__hip_ext.MemGetHandleForAddressRange = NULL;
    g->version = 60032830;
    fake.attr[0] = 2; /* hipMemoryTypeDevice (ROCm 6) */
    xrt_test_log_capture();
    FAILS(xrt__gpu_mem_export_dmabuf(&t, (void *)(base + 100), 10, &fd, &offset), XRT_ERROR_UNSUPPORTED,
          "hip: xrt_mem_export_dmabuf: the HIP runtime has no hipMemGetHandleForAddressRange");
    assert_int_equal(fd, -1);
    xrt__hip_ext.MemGetHandleForAddressRange = fake_hip_get_handle;
    fake.fail = 1;
    FAILS(xrt__gpu_mem_export_dmabuf(&t, (void *)(base + 100), 10, &fd, &offset), XRT_ERROR_INVALID_VALUE,
          "hip: hipMemGetHandleForAddressRange: fake failure (fakeErrorInvalidValue=1)");
    fake.fail = 0;
    OK(xrt__gpu_mem_export_dmabuf(&t, (void *)(base + 3 * page - 1), 2, &fd, &offset));
    assert_int_equal(fd, 78);
    assert_int_equal(offset, page - 1);
    assert_int_equal(fake.handle_ptr, base + 2 * page);
    assert_int_equal(fake.handle_len, 2 * page);
    assert_int_equal(fake.handle_type, 1); /* hipMemRangeHandleTypeDmaBufFd */
#else
    (void)state;
    SKIP_UNLESS(0, "hip: not enabled in this build");
#endif
}

/* Memory the runtime allocated for another than xrt (cudaMalloc called
   directly): the pointer attributes give its allocation's base and size as
   the driver tells them (cuMemGetAddressRange, hipMemGetAddressRange), none
   where it cannot. The drivers' doubles know one allocation of 1 MiB; either
   out pointer may be NULL; another address is CUDA_ERROR_NOT_FOUND
   (hipErrorNotFound). */
#define RANGE_BASE ((uintptr_t)0x7f0000100000ull)
#define RANGE_SIZE ((size_t)1 << 20)
static int range_of(uintptr_t p, uintptr_t *base, size_t *size)
{
    if (p < RANGE_BASE || p - RANGE_BASE >= RANGE_SIZE) return 0;
    if (base) *base = RANGE_BASE;
    if (size) *size = RANGE_SIZE;
    return 1;
}
#ifdef XRT_ENABLE_CUDA
static int fake_cu_address_range(unsigned long long *base, size_t *size, unsigned long long p)
{
    uintptr_t b = 0;
    if (!range_of((uintptr_t)p, &b, size)) return CUDA_ERROR_NOT_FOUND;
    if (base) *base = b;
    return CUDA_SUCCESS;
}
#endif
#ifdef XRT_ENABLE_HIP
static int fake_hip_address_range(void **base, size_t *size, void *p)
{
    uintptr_t b = 0;
    if (!range_of((uintptr_t)p, &b, size)) return hipErrorNotFound;
    if (base) *base = (void *)b;
    return hipSuccess;
}
#endif

static void check_native_range(xrt_backend *t, xrt_memory_type type, int device, int known)
{
    xrt_pointer_attributes a;
    memset(&a, 0, sizeof a);
    a.device = -1;
    OK(xrt__gpu_pointer_get_attributes(t, &a, (void *)(RANGE_BASE + 100)));
    assert_int_equal(a.type, type);
    assert_int_equal(a.device, device);
    assert_ptr_equal(a.base, known ? (void *)RANGE_BASE : NULL);
    assert_int_equal(a.size, known ? RANGE_SIZE : 0);
    memset(&a, 0, sizeof a); /* outside what the driver knows: no base, no size */
    OK(xrt__gpu_pointer_get_attributes(t, &a, (void *)(RANGE_BASE + RANGE_SIZE)));
    assert_int_equal(a.type, type);
    assert_null(a.base);
    assert_int_equal(a.size, 0);
}

static void test_native_memory_range_fake(void **state)
{
    xrt_backend t;
    xrt__gpu *g;
    xrt_memcpy_kind kind = XRT_MEMCPY_DEFAULT;
    (void)state, (void)kind;
    (void)g, (void)t, (void)check_native_range;
#ifdef XRT_ENABLE_CUDA
    g = gpu_table("cuda", &t);
    fake_begin(g);
    fake_driver(g, 0);
    xrt__cuda_no_range = 0;
    fake.attr[0] = cudaMemoryTypeDevice;
    fake.attr[1] = 1;
    check_native_range(&t, XRT_MEMORY_DEVICE, 1, 0); /* a driver without the call */
    xrt__cuda_drv.MemGetAddressRange = fake_cu_address_range;
    check_native_range(&t, XRT_MEMORY_DEVICE, 1, 1);
    /* a copy that runs past its end is refused, as one of xrt's memory */
    xrt_test_log_capture();
    FAILS(xrt__mem_check_copy(&t, (void *)(RANGE_BASE + RANGE_SIZE - 10), (void *)(RANGE_BASE + 2 * RANGE_SIZE), 20,
                              &kind, "xrt_memcpy"),
          XRT_ERROR_INVALID_VALUE, "overrun its allocation");
    OK(xrt__mem_check_copy(&t, (void *)(RANGE_BASE + RANGE_SIZE - 10), (void *)(RANGE_BASE + 2 * RANGE_SIZE), 10,
                           &kind, "xrt_memcpy"));
    fake.attr[0] = cudaMemoryTypeHost; /* cudaMallocHost's */
    check_native_range(&t, XRT_MEMORY_PINNED_HOST, -1, 1);
    fakes_end();
#endif
#ifdef XRT_ENABLE_HIP
    g = gpu_table("hip", &t);
    fake_begin(g);
    hip_ext_fake();
    xrt__hip_ext.MemGetAddressRange = NULL;
    g->version = 60032830;
    fake.attr[0] = 2; /* hipMemoryTypeDevice (ROCm 6) */
    fake.attr[1] = 3;
    check_native_range(&t, XRT_MEMORY_DEVICE, 3, 0);
    xrt__hip_ext.MemGetAddressRange = fake_hip_address_range;
    check_native_range(&t, XRT_MEMORY_DEVICE, 3, 1);
    fakes_end();
#endif
}

/* >> with a GPU (each test runs on every available GPU backend) */
static void test_gpu_properties(void **state)
{
    xrt_device_prop p;
    int n = 0, d = 0;
    char needle[64];
    (void)state;
    OK(xrt_get_device_count(&n));
    assert_true(n > 0);
    OK(xrt_get_device(&d));
    OK(xrt_get_device_properties(&p, d));
    assert_true(p.name[0] != 0);
    assert_true(p.total_memory > 0);
    assert_true(p.multiprocessor_count > 0);
    if (strcmp(current_backend(), "cuda") == 0) {
        assert_int_equal(p.warp_size, 32);
        assert_memory_equal(p.arch, "sm_", 3);
    } else {
        assert_true(p.warp_size == 32 || p.warp_size == 64);
        assert_memory_equal(p.arch, "gfx", 3);
        assert_null(strchr(p.arch, ':'));
    }
    print_message("%s: device %d: %s, %s, %d SMs, warp %d\n", current_backend(), d, p.name, p.arch,
                  p.multiprocessor_count, p.warp_size);
    snprintf(needle, sizeof needle, "device %d out of range (%d device", n, n);
    XRT_ASSERT_FAILS(xrt_set_device(n), XRT_ERROR_INVALID_DEVICE, needle);
    XRT_ASSERT_FAILS(xrt_get_device_properties(&p, n), XRT_ERROR_INVALID_DEVICE, needle);
    OK(xrt_set_device(d));
}

static void test_gpu_capabilities(void **state)
{
    unsigned caps = 0, want = XRT_CAP_PINNED_HOST | XRT_CAP_HOST_FUNC | XRT_CAP_EVENT_TIMING | XRT_CAP_NATIVE_HANDLES;
    void *p = NULL;
    (void)state;
    OK(xrt_get_capabilities(&caps));
    assert_int_equal(caps & want, want);
    if (caps & XRT_CAP_MALLOC_ASYNC) {
        OK(xrt_malloc_async(&p, 4096, NULL));
        OK(xrt_memset_async(p, 1, 4096, NULL));
        OK(xrt_free_async(p, NULL));
        OK(xrt_stream_synchronize(NULL));
    } else {
        XRT_ASSERT_FAILS(xrt_malloc_async(&p, 4096, NULL), XRT_ERROR_UNSUPPORTED, "stream-ordered");
        assert_null(p);
    }
}

/* The data of the GPU backend the group runs on. */
static xrt__gpu *current_gpu(void)
{
    static xrt_backend t;
    return gpu_table(current_backend(), &t);
}

/* Whether a device has memory pools is asked once and kept; a device known to
   have none, and a runtime without the entry points, are refused with their
   reasons, and nothing is allocated or recorded. The test sets what the
   backend knows; the teardown gives it back. */
static struct {
    xrt__gpu *g;
    uint64_t pools, pools_known;
    xrt__gpu_rt rt;
} pools_saved;

static int pools_restore(void **state)
{
    (void)state;
    if (pools_saved.g) {
        pools_saved.g->pools = pools_saved.pools;
        pools_saved.g->pools_known = pools_saved.pools_known;
        pools_saved.g->rt = pools_saved.rt;
    }
    pools_saved.g = NULL;
    return 0;
}

static void test_gpu_stream_ordered_refused(void **state)
{
    xrt__gpu *g = current_gpu();
    xrt_pointer_attributes a;
    char expected[160];
    void *p = NULL;
    int d = 0;
    (void)state;
    OK(xrt_get_device(&d));
    OK(xrt_malloc_async(&p, 4096, NULL)); /* the double has pools: now known */
    assert_true(g->pools & g->pools_known & ((uint64_t)1 << d));
    OK(xrt_free_async(p, NULL));
    pools_saved.g = g;
    pools_saved.pools = g->pools;
    pools_saved.pools_known = g->pools_known;
    pools_saved.rt = g->rt;
    g->pools &= ~((uint64_t)1 << d); /* known to have none */
    snprintf(expected, sizeof expected, "%s: xrt_malloc_async: device %d has no memory pools (stream-ordered allocation)",
             current_backend(), d);
    p = &a;
    FAILS(xrt_malloc_async(&p, 4096, NULL), XRT_ERROR_UNSUPPORTED, expected);
    assert_null(p);
    g->pools = g->pools_known = 0; /* a runtime without the allocator never knows a device's pools */
    g->rt.MallocAsync = NULL;
    snprintf(expected, sizeof expected, "%s: xrt_malloc_async: the runtime has no stream-ordered allocator",
             current_backend());
    p = &a;
    FAILS(xrt_malloc_async(&p, 4096, NULL), XRT_ERROR_UNSUPPORTED, expected);
    assert_null(p);
    assert_int_equal(g->pools_known, 0);
    pools_restore(NULL);
    OK(xrt_malloc_async(&p, 4096, NULL));
    OK(xrt_pointer_get_attributes(&a, p));
    assert_int_equal(a.device, d);
    OK(xrt_free_async(p, NULL));
    OK(xrt_stream_synchronize(NULL));
}

/* Memory the program allocated natively is known through the runtime. The
   test clears the thread's last error first: it asserts that these calls
   leave none, whatever earlier tests left. */
static void test_gpu_native_pointers(void **state)
{
    xrt_pointer_attributes a;
    xrt__gpu *g = current_gpu();
    void *native = NULL, *pinned = NULL;
    char host[16];
    int d = 0;
    (void)state;
    xrt_get_last_error();
    OK(xrt_get_device(&d));
    assert_int_equal(g->rt.Malloc(&native, 4096), g->success);
    OK(xrt_pointer_get_attributes(&a, (char *)native + 100));
    assert_int_equal(a.type, XRT_MEMORY_DEVICE);
    assert_string_equal(a.backend, current_backend());
    assert_int_equal(a.device, d);
    OK(xrt_memset(native, 7, 4096)); /* usable through xrt */
    assert_int_equal(g->rt.Free(native), g->success);
    OK(xrt_pointer_get_attributes(&a, host));
    assert_int_equal(a.type, XRT_MEMORY_UNKNOWN);
    assert_null(a.backend);
    assert_int_equal(xrt_peek_at_last_error(), XRT_SUCCESS);
    OK(xrt_malloc_host(&pinned, 64));
    OK(xrt_pointer_get_attributes(&a, pinned));
    assert_int_equal(a.type, XRT_MEMORY_PINNED_HOST);
    assert_int_equal(a.device, -1);
    OK(xrt_free_host(pinned));
}

/* What the runtime says of memory xrt did not allocate is asked at each copy,
   not remembered: after a host buffer is freed, the program may map device
   memory at its address natively, which xrt does not see. Here the runtime's
   answer for one host address changes between copies (it answers as for a
   native device allocation); the copy that was right before is then refused. */
static struct {
    xrt__gpu *g;
    int (*real)(void *attr, const void *ptr);
    const void *host, *device; /* while on, the runtime calls host what it calls device */
    int on;
} moved;

static int moved_pointer_get_attributes(void *attr, const void *ptr)
{
    return moved.real(attr, moved.on && ptr == moved.host ? moved.device : ptr);
}

static int moved_restore(void **state)
{
    (void)state;
    if (moved.g) moved.g->rt.PointerGetAttributes = moved.real;
    moved.g = NULL;
    return 0;
}

static void test_gpu_copy_asks_runtime(void **state)
{
    static unsigned char host[64];
    xrt__gpu *g = current_gpu();
    void *d = NULL, *native = NULL;
    char expected[160];
    (void)state;
    OK(xrt_malloc(&d, sizeof host));
    assert_int_equal(g->rt.Malloc(&native, sizeof host), g->success);
    moved.g = g;
    moved.real = g->rt.PointerGetAttributes;
    moved.host = host;
    moved.device = native;
    moved.on = 0;
    g->rt.PointerGetAttributes = moved_pointer_get_attributes;
    OK(xrt_memcpy_async(d, host, sizeof host, XRT_MEMCPY_DEFAULT, NULL));
    OK(xrt_memcpy_async(d, host, sizeof host, XRT_MEMCPY_HOST_TO_DEVICE, NULL));
    OK(xrt_memcpy_async(d, host, sizeof host, XRT_MEMCPY_HOST_TO_DEVICE, NULL)); /* the same copy again */
    OK(xrt_stream_synchronize(NULL));
    moved.on = 1; /* and the same copy once more */
    snprintf(expected, sizeof expected, "xrt_memcpy_async: kind host-to-device but src %p is device memory", (void *)host);
    FAILS(xrt_memcpy_async(d, host, sizeof host, XRT_MEMCPY_HOST_TO_DEVICE, NULL), XRT_ERROR_INVALID_MEMCPY_KIND, expected);
    FAILS(xrt_memcpy_async(d, host, sizeof host, XRT_MEMCPY_HOST_TO_DEVICE, NULL), XRT_ERROR_INVALID_MEMCPY_KIND, expected);
    snprintf(expected, sizeof expected, "xrt_memcpy_async: kind device-to-host but dst %p is device memory", (void *)host);
    FAILS(xrt_memcpy_async(host, d, sizeof host, XRT_MEMCPY_DEVICE_TO_HOST, NULL), XRT_ERROR_INVALID_MEMCPY_KIND, expected);
    moved.on = 0;
    OK(xrt_memcpy_async(d, host, sizeof host, XRT_MEMCPY_HOST_TO_DEVICE, NULL));
    OK(xrt_memcpy_async(host, d, sizeof host, XRT_MEMCPY_DEVICE_TO_HOST, NULL));
    OK(xrt_memcpy_async(host, d, sizeof host, XRT_MEMCPY_DEVICE_TO_HOST, NULL)); /* the same copy again */
    OK(xrt_stream_synchronize(NULL));
    moved.on = 1; /* and once more, its dst now device memory */
    FAILS(xrt_memcpy_async(host, d, sizeof host, XRT_MEMCPY_DEVICE_TO_HOST, NULL), XRT_ERROR_INVALID_MEMCPY_KIND, expected);
    moved.on = 0;
    OK(xrt_stream_synchronize(NULL));
    moved_restore(NULL);
    assert_int_equal(g->rt.Free(native), g->success);
    OK(xrt_free(d));
}

/* Looks a runtime function up in the loaded library (run-time loading only). */
static void *native_symbol(const char *name)
{
    void *lib = current_gpu()->lib;
    return lib ? dlsym(lib, name) : NULL;
}

static int on_cuda(void) { return strcmp(current_backend(), "cuda") == 0; }

static void never_called(void *stream, int status, void *user)
{
    (void)stream, (void)status, (void)user;
    fail_msg("a refused stream callback ran");
}

/* The runtime's own answers to bad flags and arguments of its stream and
   event calls, as CUDA documents them (xrt checks most first, so only a
   direct call shows them; the double must be as strict): cudaStreamWaitEvent
   takes cudaEventWaitDefault, and cudaEventWaitExternal only in a capture
   ("invalid when used outside of capture"); cudaStreamAddCallback's flags
   "must be 0"; cudaEventCreateWithFlags knows four flags; cudaLaunchHostFunc
   needs a function; "It is illegal to attach singly to the NULL stream". */
static void test_gpu_runtime_stream_event_arguments(void **state)
{
    xrt__gpu *g = current_gpu();
    void *native = NULL, *ev = NULL, *made = &made, *m = NULL;
    xrt_stream s;
    xrt_event e;
    (void)state;
    SKIP_UNLESS(on_cuda(), "CUDA's documented answers (HIP documents its own)");
    OK(xrt_stream_create(&s));
    OK(xrt_stream_get_native(s, &native));
    OK(xrt_event_create(&e, XRT_EVENT_DISABLE_TIMING));
    OK(xrt_event_get_native(e, &ev));
    OK(xrt_event_record(e, s));
    assert_int_equal(g->rt.StreamWaitEvent(native, ev, 2), cudaErrorInvalidValue);
    assert_int_equal(g->rt.StreamWaitEvent(native, ev, cudaEventWaitExternal), cudaErrorInvalidValue);
    assert_int_equal(g->rt.StreamWaitEvent(native, ev, cudaEventWaitDefault), g->success);
    assert_int_equal(g->rt.StreamAddCallback(native, never_called, NULL, 1), cudaErrorInvalidValue);
    assert_int_equal(g->rt.EventCreateWithFlags(&made, 8), cudaErrorInvalidValue);
    assert_ptr_equal(made, &made); /* nothing made */
    assert_int_equal(g->rt.LaunchHostFunc(native, NULL, NULL), cudaErrorInvalidValue);
    OK(xrt_malloc_managed(&m, 4096, XRT_MEM_ATTACH_GLOBAL));
    assert_int_equal(g->rt.StreamAttachMemAsync(NULL, m, 0, cudaMemAttachSingle), cudaErrorInvalidValue);
    assert_int_equal(g->rt.StreamAttachMemAsync(g->legacy_native, m, 0, cudaMemAttachSingle), cudaErrorInvalidValue);
    assert_int_equal(g->rt.StreamAttachMemAsync(native, m, 0, cudaMemAttachSingle), g->success);
    OK(xrt_stream_synchronize(s));
    OK(xrt_free(m));
    OK(xrt_event_destroy(e));
    OK(xrt_stream_destroy(s));
}

/* The object is the native stream; xrt_stream_create's is blocking, as
   cudaStreamCreate's, XRT_STREAM_NON_BLOCKING's is not; a wrapped stream is
   not destroyed with its handle. */
static void test_gpu_native_handles(void **state)
{
    typedef int (*get_flags_fn)(void *stream, unsigned *flags);
    xrt_stream s, w;
    xrt_event e;
    void *native = &native, *again = NULL, *ev = NULL, *fp;
    unsigned flags = 0;
    (void)state;
    OK(xrt_stream_get_native(NULL, &native));
    assert_ptr_equal(native, on_cuda() ? (void *)1 : NULL); /* cudaStreamLegacy, unambiguous; HIP has no name */
    OK(xrt_stream_create(&s));
    OK(xrt_stream_get_native(s, &native));
    assert_non_null(native);
    fp = native_symbol(on_cuda() ? "cudaStreamGetFlags" : "hipStreamGetFlags");
    if (fp) {
        get_flags_fn get_flags;
        memcpy(&get_flags, &fp, sizeof get_flags);
        xrt_stream nb;
        void *nb_native = NULL;
        assert_int_equal(get_flags(native, &flags), 0);
        assert_int_equal(flags & 1u, 0u); /* cudaStreamNonBlocking, hipStreamNonBlocking */
        OK(xrt_stream_create_with_flags(&nb, XRT_STREAM_NON_BLOCKING));
        OK(xrt_stream_get_native(nb, &nb_native));
        assert_int_equal(get_flags(nb_native, &flags), 0);
        assert_int_equal(flags & 1u, 1u);
        OK(xrt_stream_destroy(nb));
    } else {
        /* every CUDA and HIP runtime exports it: only a library named in
           XRT_CUDA_LIBRARY / XRT_HIP_LIBRARY (a test double), or a runtime
           linked in rather than loaded, may leave it out */
        if (current_gpu()->lib && !getenv(on_cuda() ? "XRT_CUDA_LIBRARY" : "XRT_HIP_LIBRARY"))
            fail_msg("%s: the runtime does not export its StreamGetFlags", current_backend());
        print_message("skipped: %s: the stream's flags: the runtime loaded does not export StreamGetFlags\n",
                      current_backend());
    }
    OK(xrt_stream_wrap_native(&w, native));
    OK(xrt_stream_get_native(w, &again));
    assert_ptr_equal(again, native);
    OK(xrt_stream_destroy(w));
    OK(xrt_stream_synchronize(s)); /* the native stream outlives the wrapper */
    OK(xrt_event_create(&e, XRT_EVENT_DEFAULT));
    OK(xrt_event_get_native(e, &ev));
    assert_non_null(ev);
    OK(xrt_event_destroy(e));
    OK(xrt_stream_destroy(s));
}

/* A non-blocking stream's work runs while the legacy default stream (NULL)
   is held up by a host function; a blocking stream would wait for it (on
   CUDA and on the runtime's double). Polled, so a blocking stream fails the
   test instead of hanging it. */
static void test_gpu_stream_not_blocked_by_null(void **state)
{
    xrt_status st = XRT_ERROR_NOT_READY;
    xrt_stream s;
    void *d;
    int i;
    (void)state;
    OK(xrt_stream_create_with_flags(&s, XRT_STREAM_NON_BLOCKING));
    OK(xrt_malloc(&d, 64));
    OK(xrt_launch_host_func(NULL, gate_wait, &gates[0]));
    gate_wait_entered(&gates[0]);
    OK(xrt_memset_async(d, 0x3c, 64, s));
    for (i = 0; i < 5000 && (st = xrt_stream_query(s)) == XRT_ERROR_NOT_READY; i++) sleep_ms(1);
    gate_open(&gates[0]);
    OK(xrt_stream_synchronize(NULL));
    assert_int_equal(st, XRT_SUCCESS);
    OK(xrt_free(d));
    OK(xrt_stream_destroy(s));
}

/* The runtime itself refuses a second exec of a graph with a memory node
   while the first lives ("If graph contains any allocation or free nodes,
   there can be at most one executable graph in existence for that graph at
   a time", cudaGraphInstantiate), and takes one again once the first is
   destroyed: the rule that xrt refuses first in its own words
   (xrt__graph_mem_one_exec), asked of the runtime directly, so that the
   test double is held to what CUDA does. */
static void test_gpu_runtime_one_exec_of_memory_graph(void **state)
{
#ifdef XRT_ENABLE_CUDA
    typedef cudaError_t (*create_fn)(cudaGraph_t *, unsigned);
    typedef cudaError_t (*alloc_fn)(cudaGraphNode_t *, cudaGraph_t, const cudaGraphNode_t *, size_t,
                                    struct cudaMemAllocNodeParams *);
    typedef cudaError_t (*instantiate_fn)(cudaGraphExec_t *, cudaGraph_t, unsigned long long);
    typedef cudaError_t (*exec_destroy_fn)(cudaGraphExec_t);
    typedef cudaError_t (*destroy_fn)(cudaGraph_t);
    void *f[5] = {native_symbol("cudaGraphCreate"), native_symbol("cudaGraphAddMemAllocNode"),
                  native_symbol("cudaGraphInstantiateWithFlags"), native_symbol("cudaGraphExecDestroy"),
                  native_symbol("cudaGraphDestroy")};
    create_fn create;
    alloc_fn add_alloc;
    instantiate_fn instantiate;
    exec_destroy_fn exec_destroy;
    destroy_fn destroy;
    struct cudaMemAllocNodeParams p;
    cudaGraph_t g = NULL;
    cudaGraphNode_t node = NULL;
    cudaGraphExec_t x = NULL, x2 = NULL;
    int dev = 0;
    (void)state;
    SKIP_UNLESS(on_cuda(), "the CUDA runtime's graph calls");
    SKIP_UNLESS(f[0] && f[1] && f[2] && f[3] && f[4], "the runtime has no memory nodes");
    memcpy(&create, &f[0], sizeof f[0]), memcpy(&add_alloc, &f[1], sizeof f[1]);
    memcpy(&instantiate, &f[2], sizeof f[2]), memcpy(&exec_destroy, &f[3], sizeof f[3]);
    memcpy(&destroy, &f[4], sizeof f[4]);
    OK(xrt_get_device(&dev));
    memset(&p, 0, sizeof p);
    p.poolProps.allocType = cudaMemAllocationTypePinned;
    p.poolProps.location.type = cudaMemLocationTypeDevice;
    p.poolProps.location.id = dev;
    p.bytesize = 1 << 16;
    assert_int_equal(create(&g, 0), cudaSuccess);
    assert_int_equal(add_alloc(&node, g, NULL, 0, &p), cudaSuccess);
    assert_non_null(p.dptr);
    assert_int_equal(instantiate(&x, g, 0), cudaSuccess);
    assert_int_not_equal(instantiate(&x2, g, 0), cudaSuccess);
    assert_int_equal(exec_destroy(x), cudaSuccess);
    assert_int_equal(instantiate(&x2, g, 0), cudaSuccess);
    assert_int_equal(exec_destroy(x2), cudaSuccess);
    assert_int_equal(destroy(g), cudaSuccess);
#else
    (void)state;
    SKIP_UNLESS(0, "no XRT_ENABLE_CUDA in this build");
#endif
}

/* A child graph node's own graph takes no memory node: "Allocation and free
   nodes cannot be added to the returned graph. Attempting to do so will
   return an error" (cudaGraphChildGraphNodeGetGraph), cudaErrorInvalidValue
   its documented error. xrt refuses it first (xrt__gnode_mem_in); asked of
   the runtime directly, so that the test double is held to what CUDA does. */
static void test_gpu_runtime_no_memory_node_in_child_graph(void **state)
{
#ifdef XRT_ENABLE_CUDA
    typedef cudaError_t (*create_fn)(cudaGraph_t *, unsigned);
    typedef cudaError_t (*child_fn)(cudaGraphNode_t *, cudaGraph_t, const cudaGraphNode_t *, size_t, cudaGraph_t);
    typedef cudaError_t (*get_fn)(cudaGraphNode_t, cudaGraph_t *);
    typedef cudaError_t (*alloc_fn)(cudaGraphNode_t *, cudaGraph_t, const cudaGraphNode_t *, size_t,
                                    struct cudaMemAllocNodeParams *);
    typedef cudaError_t (*free_fn)(cudaGraphNode_t *, cudaGraph_t, const cudaGraphNode_t *, size_t, void *);
    typedef cudaError_t (*destroy_fn)(cudaGraph_t);
    void *f[6] = {native_symbol("cudaGraphCreate"),          native_symbol("cudaGraphAddChildGraphNode"),
                  native_symbol("cudaGraphChildGraphNodeGetGraph"), native_symbol("cudaGraphAddMemAllocNode"),
                  native_symbol("cudaGraphAddMemFreeNode"),  native_symbol("cudaGraphDestroy")};
    create_fn create;
    child_fn add_child;
    get_fn get_graph;
    alloc_fn add_alloc;
    free_fn add_free;
    destroy_fn destroy;
    struct cudaMemAllocNodeParams p;
    cudaGraph_t g = NULL, empty = NULL, own = NULL, other = NULL;
    cudaGraphNode_t child = NULL, node = NULL, al = NULL;
    int dev = 0, i;
    (void)state;
    SKIP_UNLESS(on_cuda(), "the CUDA runtime's graph calls");
    for (i = 0; i < 6; i++) SKIP_UNLESS(f[i], "the runtime has no memory nodes");
    memcpy(&create, &f[0], sizeof f[0]), memcpy(&add_child, &f[1], sizeof f[1]);
    memcpy(&get_graph, &f[2], sizeof f[2]), memcpy(&add_alloc, &f[3], sizeof f[3]);
    memcpy(&add_free, &f[4], sizeof f[4]), memcpy(&destroy, &f[5], sizeof f[5]);
    OK(xrt_get_device(&dev));
    memset(&p, 0, sizeof p);
    p.poolProps.allocType = cudaMemAllocationTypePinned;
    p.poolProps.location.type = cudaMemLocationTypeDevice;
    p.poolProps.location.id = dev;
    p.bytesize = 1 << 16;
    assert_int_equal(create(&g, 0), cudaSuccess);
    assert_int_equal(create(&empty, 0), cudaSuccess);
    assert_int_equal(add_child(&child, g, NULL, 0, empty), cudaSuccess);
    assert_int_equal(get_graph(child, &own), cudaSuccess);
    assert_int_equal(add_alloc(&node, own, NULL, 0, &p), cudaErrorInvalidValue);
    assert_int_equal(create(&other, 0), cudaSuccess); /* an allocation another graph leaves to the caller */
    assert_int_equal(add_alloc(&al, other, NULL, 0, &p), cudaSuccess);
    assert_int_equal(add_free(&node, own, NULL, 0, p.dptr), cudaErrorInvalidValue);
    assert_int_equal(destroy(other), cudaSuccess);
    assert_int_equal(destroy(empty), cudaSuccess);
    assert_int_equal(destroy(g), cudaSuccess);
#else
    (void)state;
    SKIP_UNLESS(0, "no XRT_ENABLE_CUDA in this build");
#endif
}

/* NOT_READY is an answer: neither recorded nor logged. Host functions run
   (on HIP 5 through a stream callback). */
static void test_gpu_not_ready(void **state)
{
    xrt_stream s;
    xrt_event e;
    int logs;
    (void)state;
    OK(xrt_stream_create(&s));
    OK(xrt_event_create(&e, XRT_EVENT_DEFAULT));
    OK(xrt_launch_host_func(s, gate_wait, &gates[0]));
    OK(xrt_event_record(e, s));
    xrt_get_last_error();
    logs = xrt_test_log.count;
    assert_int_equal(xrt_stream_query(s), XRT_ERROR_NOT_READY);
    assert_int_equal(xrt_event_query(e), XRT_ERROR_NOT_READY);
    assert_int_equal(xrt_peek_at_last_error(), XRT_SUCCESS);
    assert_int_equal(xrt_test_log.count, logs);
    gate_open(&gates[0]);
    OK(xrt_stream_synchronize(s));
    OK(xrt_stream_query(s));
    OK(xrt_event_query(e));
    OK(xrt_event_destroy(e));
    OK(xrt_stream_destroy(s));
}

/* A host function's xrt calls are refused with the reason, on the runtime's
   own thread; the stream and the caller's thread carry on. */
static void test_gpu_host_fn_refused(void **state)
{
    xrt_stream s;
    (void)state;
    memset(&inside, 0, sizeof inside);
    OK(xrt_stream_create(&s));
    OK(xrt_launch_host_func(s, call_xrt_inside, NULL));
    OK(xrt_stream_synchronize(s)); /* s does not wait for the NULL stream: one at a time into `inside` */
    OK(xrt_launch_host_func(NULL, call_xrt_inside, NULL));
    OK(xrt_stream_synchronize(NULL));
    assert_refused_inside(current_backend(), 2);
    assert_stream_works(s, 0x5a);
    OK(xrt_stream_destroy(s));
}

/* Whether this machine can export the current device's memory as a
   dma-buf, asked of the vendor's libraries directly (not through xrt): on
   CUDA, the driver library is there and the device's
   CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED is 1; on HIP, the runtime exports
   hipMemGetHandleForAddressRange (HIP 5 does not). The README promises the
   export wherever this holds. */
static int machine_exports_dmabuf(void)
{
#ifdef XRT_ENABLE_CUDA
    if (on_cuda()) {
        typedef int (*init_fn)(unsigned);
        typedef int (*get_fn)(int *, int);
        typedef int (*attr_fn)(int *, int, int);
        void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL), *f[3];
        init_fn init;
        get_fn get;
        attr_fn attr;
        int ordinal = 0, dev = 0, v = 0;
        if (!lib) return 0;
        f[0] = dlsym(lib, "cuInit"), f[1] = dlsym(lib, "cuDeviceGet"), f[2] = dlsym(lib, "cuDeviceGetAttribute");
        if (f[0] && f[1] && f[2] && xrt_get_device(&ordinal) == XRT_SUCCESS) {
            memcpy(&init, &f[0], sizeof init);
            memcpy(&get, &f[1], sizeof get);
            memcpy(&attr, &f[2], sizeof attr);
            if (init(0) != 0 || get(&dev, ordinal) != 0 || attr(&v, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, dev) != 0)
                v = 0;
        }
        dlclose(lib);
        return v == 1;
    }
#endif
    return native_symbol("hipMemGetHandleForAddressRange") != NULL;
}

/* A page-sized range inside a 2 MiB allocation exports as a dma-buf where
   the machine can (machine_exports_dmabuf); otherwise the reason is given. */
static void test_gpu_dmabuf_export(void **state)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void *d = NULL;
    uint64_t offset = 0;
    int fd = -1;
    xrt_status st;
    (void)state;
    OK(xrt_malloc(&d, 2u << 20));
    st = xrt_mem_export_dmabuf((char *)d + page + 100, 4096, &fd, &offset);
    if (st == XRT_ERROR_UNSUPPORTED) {
        if (machine_exports_dmabuf()) fail_msg("the device exports dma-bufs, but: %s", xrt_get_last_error_string());
        assert_non_null(strstr(xrt_get_last_error_string(), "xrt_mem_export_dmabuf: "));
        print_message("%s: dma-buf export: %s\n", current_backend(), xrt_get_last_error_string());
    } else {
        if (st != XRT_SUCCESS) fail_msg("%s", xrt_get_last_error_string());
        assert_true(fd >= 0);
        assert_int_equal(offset, 100);
        close(fd);
        OK(xrt_mem_export_dmabuf(d, 2u << 20, &fd, &offset)); /* the whole allocation */
        assert_int_equal(offset, (uintptr_t)d % page);
        close(fd);
    }
    OK(xrt_free(d));
}

/* cudaStreamBeginCaptureToGraph's dependencyData (cudaGraphEdgeData, CUDA
   12.3): "Only kernel nodes define non-zero ports", no node type defines a
   non-zero to_port ("this field must be set to zero"), a programmatic edge
   "may only be used between kernel nodes", and the reserved bytes "must be
   zeroed". From an empty node each is refused with the one error the call
   documents, cudaErrorInvalidValue, and the stream is not capturing; an
   all-zero entry is a plain edge, as no data. cudaGraphAddDependencies takes
   the same data. The runtime's own calls: xrt passes no edge data. */
typedef struct {
    unsigned char from_port, to_port, type, reserved[5];
} edge_data; /* cudaGraphEdgeData */

static void test_gpu_capture_to_graph_edge_data(void **state)
{
    typedef int (*create_fn)(void **graph, unsigned flags);
    typedef int (*empty_fn)(void **node, void *graph, void *const *deps, size_t n);
    typedef int (*begin_fn)(void *stream, void *graph, void *const *deps, const edge_data *data, size_t n, int mode);
    typedef int (*end_fn)(void *stream, void **graph);
    typedef int (*capturing_fn)(void *stream, int *status);
    typedef int (*memset_fn)(void *p, int v, size_t n, void *stream);
    typedef int (*edges_fn)(void *graph, void **from, void **to, edge_data *data, size_t *count);
    typedef int (*depend_fn)(void *graph, void *const *from, void *const *to, const edge_data *data, size_t n);
    typedef int (*destroy_fn)(void *graph);
    static const char *const names[] = {"cudaGraphCreate", "cudaGraphAddEmptyNode", "cudaStreamBeginCaptureToGraph",
                                        "cudaStreamEndCapture", "cudaStreamIsCapturing", "cudaMemsetAsync",
                                        "cudaGraphGetEdges", "cudaGraphAddDependencies", "cudaGraphDestroy"};
    void *fp[9], *graph = NULL, *made = NULL, *root = NULL, *root2 = NULL, *native = NULL, *from[2], *to[2], *d = NULL;
    create_fn create;
    empty_fn empty;
    begin_fn begin;
    end_fn end;
    capturing_fn capturing;
    memset_fn set;
    edges_fn edges;
    depend_fn depend;
    destroy_fn destroy;
    edge_data bad[4], plain;
    size_t i, count = 2;
    int status = -1, double_ = getenv("XRT_CUDA_LIBRARY") != NULL;
    xrt_stream s;
    (void)state;
    SKIP_UNLESS(on_cuda(), "cudaStreamBeginCaptureToGraph is CUDA's (HIP 5 has none)");
    for (i = 0; i < 9; i++) fp[i] = native_symbol(names[i]);
    SKIP_UNLESS(fp[2] != NULL, "the runtime has no cudaStreamBeginCaptureToGraph (CUDA 12.3)");
    for (i = 0; i < 9; i++) assert_non_null(fp[i]);
    memcpy(&create, &fp[0], sizeof create), memcpy(&empty, &fp[1], sizeof empty), memcpy(&begin, &fp[2], sizeof begin);
    memcpy(&end, &fp[3], sizeof end), memcpy(&capturing, &fp[4], sizeof capturing), memcpy(&set, &fp[5], sizeof set);
    memcpy(&edges, &fp[6], sizeof edges), memcpy(&depend, &fp[7], sizeof depend), memcpy(&destroy, &fp[8], sizeof destroy);
    OK(xrt_stream_create(&s));
    OK(xrt_stream_get_native(s, &native));
    OK(xrt_malloc(&d, 64));
    assert_int_equal(create(&graph, 0), 0);
    assert_int_equal(empty(&root, graph, NULL, 0), 0);
    assert_int_equal(empty(&root2, graph, NULL, 0), 0);
    memset(bad, 0, sizeof bad);
    bad[0].type = 1;                      /* cudaGraphDependencyTypeProgrammatic */
    bad[1].from_port = 1, bad[1].type = 1; /* cudaGraphKernelNodePortProgrammatic */
    bad[2].to_port = 1;
    bad[3].reserved[4] = 1;
    for (i = 0; i < 4; i++) {
        if (i == 3 && !double_) break; /* "must be zeroed": whether the runtime checks it is not documented */
        assert_int_equal(begin(native, graph, &root, &bad[i], 1, 0), 1); /* cudaErrorInvalidValue */
        assert_int_equal(capturing(native, &status), 0);
        assert_int_equal(status, 0); /* cudaStreamCaptureStatusNone */
        assert_int_equal(depend(graph, &root, &root2, &bad[i], 1), 1);
    }
    memset(&plain, 0, sizeof plain);
    assert_int_equal(begin(native, graph, &root, &plain, 1, 0), 0);
    assert_int_equal(capturing(native, &status), 0);
    assert_int_equal(status, 1); /* cudaStreamCaptureStatusActive */
    assert_int_equal(set(d, 0, 64, native), 0);
    assert_int_equal(end(native, &made), 0);
    assert_ptr_equal(made, graph);
    memset(bad, 0xff, sizeof bad);
    assert_int_equal(edges(graph, from, to, bad, &count), 0);
    assert_int_equal(count, 1); /* the memset after the root, a plain edge */
    assert_ptr_equal(from[0], root);
    assert_true(bad[0].from_port == 0 && bad[0].to_port == 0 && bad[0].type == 0);
    assert_int_equal(destroy(graph), 0);
    OK(xrt_free(d));
    OK(xrt_stream_destroy(s));
}

/* >> annotated edges (cudaGraphEdgeData, CUDA 12.3): a programmatic edge
   between two kernel nodes, made natively, is what xrt's lists cannot
   express. The runtime answers a list of edges or of a node's neighbours
   asked without edge data with cudaErrorLossyQuery for it, and a count as
   for any edge; xrt asks with edge data, and its lists answer
   XRT_ERROR_UNSUPPORTED naming the edge, its walks (the cycle check of an
   added edge) follow it as any edge, and a removal of it, which
   cudaGraphRemoveDependencies matches by its data, is refused likewise.
   The kernel nodes: on the test double, of its own empty kernel
   (cudaGraphAddKernelNode, into the graph a capture into it names through
   cudaStreamGetCaptureInfo); on a GPU, of an empty PTX kernel added through
   xrt, whose native handles are that capture's front. */
typedef struct {
    void *func;
    unsigned grid[3], block[3], shared;
    void **params, **extra;
} kernel_node_params; /* cudaKernelNodeParams */

static const char nop_ptx[] = ".version 7.5\n.target sm_75\n.address_size 64\n.visible .entry nop()\n{\n\tret;\n}\n";

/* Two kernel nodes of graph (k, k + 1) and their native handles (kn), the
   second after the first through a programmatic edge made natively; *ng
   the native graph. */
static void annotated_pair(xrt_graph graph, xrt_stream s, xrt_module *m, xrt_graph_node *k, void **kn, void **ng)
{
    typedef int (*info_fn)(void *stream, int *status, unsigned long long *id, void **graph, void *const **deps,
                           const edge_data **data, size_t *n);
    typedef int (*kernel_fn)(void **node, void *graph, void *const *deps, size_t n, const kernel_node_params *p);
    typedef int (*depend_fn)(void *graph, void *const *from, void *const *to, const edge_data *data, size_t n);
    void *fp[3] = {native_symbol("cudaStreamGetCaptureInfo"), native_symbol("cudaGraphAddKernelNode"),
                   native_symbol("cudaGraphAddDependencies")};
    void *empty = native_symbol("cudart_double_empty_kernel"), *native = NULL, *const *front = NULL;
    xrt_graph made = NULL;
    const edge_data *data = NULL;
    kernel_node_params kp = {NULL, {1, 1, 1}, {1, 1, 1}, 0, NULL, NULL};
    edge_data prog;
    info_fn info;
    kernel_fn kernel;
    depend_fn depend;
    size_t n = 0;
    int status = -1;
    memcpy(&info, &fp[0], sizeof info), memcpy(&kernel, &fp[1], sizeof kernel), memcpy(&depend, &fp[2], sizeof depend);
    k[0] = k[1] = NULL;
    if (!empty) { /* a GPU: kernels through xrt */
        xrt_module_image im = {XRT_IMAGE_CUDA_PTX, nop_ptx, sizeof nop_ptx - 1, "compute_75"};
        xrt_function fn = NULL;
        xrt_kernel_node_params p;
        memset(&p, 0, sizeof p);
        OK(xrt_module_load(m, &im, 1, NULL));
        OK(xrt_module_get_function(&fn, *m, "nop"));
        p.function = fn;
        p.grid.x = p.grid.y = p.grid.z = p.block.x = p.block.y = p.block.z = 1;
        OK(xrt_graph_add_kernel_node(&k[0], graph, NULL, 0, &p));
        OK(xrt_graph_add_kernel_node(&k[1], graph, NULL, 0, &p));
    }
    OK(xrt_stream_get_native(s, &native));
    OK(xrt_stream_begin_capture_to_graph(s, graph, k, empty ? 0 : 2, XRT_CAPTURE_MODE_GLOBAL));
    assert_int_equal(info(native, &status, NULL, ng, &front, &data, &n), 0);
    assert_int_equal(status, 1); /* cudaStreamCaptureStatusActive */
    assert_non_null(*ng);
    if (empty) {
        memcpy(&kp.func, &empty, sizeof empty);
        assert_int_equal(kernel(&kn[0], *ng, NULL, 0, &kp), 0);
        assert_int_equal(kernel(&kn[1], *ng, NULL, 0, &kp), 0);
    } else {
        assert_int_equal(n, 2);
        kn[0] = front[0], kn[1] = front[1];
        assert_true(data[0].type == 0 && data[1].type == 0);
    }
    memset(&prog, 0, sizeof prog);
    prog.from_port = 1, prog.type = 1; /* cudaGraphKernelNodePortProgrammatic, cudaGraphDependencyTypeProgrammatic */
    assert_int_equal(depend(*ng, &kn[0], &kn[1], &prog, 1), 0);
    OK(xrt_stream_end_capture(s, &made));
    assert_ptr_equal(made, graph);
}

/* The runtime's own answers for the annotated edge kn[0] -> kn[1] of ng. */
static void annotated_native(void *ng, void *const *kn)
{
    typedef int (*edges_fn)(void *graph, void **from, void **to, edge_data *data, size_t *count);
    typedef int (*deps_fn)(void *node, void **nodes, edge_data *data, size_t *count);
    void *fp[2] = {native_symbol("cudaGraphGetEdges"), native_symbol("cudaGraphNodeGetDependencies")};
    void *from[2], *to[2];
    edge_data ed[2];
    edges_fn edges;
    deps_fn deps;
    size_t count = 0;
    memcpy(&edges, &fp[0], sizeof edges), memcpy(&deps, &fp[1], sizeof deps);
    assert_int_equal(edges(ng, NULL, NULL, NULL, &count), 0);
    assert_int_equal(count, 1);
    count = 2;
    assert_int_equal(edges(ng, from, to, NULL, &count), 402); /* cudaErrorLossyQuery */
    assert_int_equal(edges(ng, from, to, ed, &count), 0);
    assert_int_equal(count, 1);
    assert_ptr_equal(from[0], kn[0]);
    assert_ptr_equal(to[0], kn[1]);
    assert_true(ed[0].from_port == 1 && ed[0].to_port == 0 && ed[0].type == 1);
    count = 0;
    assert_int_equal(deps(kn[1], NULL, NULL, &count), 0);
    assert_int_equal(count, 1);
    count = 2;
    assert_int_equal(deps(kn[1], from, NULL, &count), 402);
    assert_int_equal(deps(kn[1], from, ed, &count), 0);
    assert_true(count == 1 && from[0] == kn[0] && ed[0].type == 1);
}

static void test_gpu_annotated_edges(void **state)
{
    static const char annotated[] = "has edge data (from_port 1, to_port 0, type 1: a programmatic dependency)";
    void *kn[2] = {NULL, NULL}, *ng = NULL;
    xrt_graph_node k[2], nodes[4], head = NULL, tail = NULL, e = NULL, *ends[2];
    xrt_graph g = NULL;
    xrt_graph_info gi;
    xrt_module m = NULL;
    xrt_stream s;
    size_t count, i, c;
    (void)state;
    SKIP_UNLESS(on_cuda(), "annotated edges are CUDA's (HIP's edges carry no data)");
    SKIP_UNLESS(native_symbol("cudaStreamGetCaptureInfo") && native_symbol("cudaGraphAddKernelNode"),
                "the runtime has no edge data (CUDA 12.3)");
    SKIP_UNLESS(native_symbol("cudart_double_empty_kernel") || (caps() & XRT_CAP_MODULES),
                "no kernel to make kernel nodes of");
    OK(xrt_stream_create(&s));
    OK(xrt_graph_create(&g, 0));
    annotated_pair(g, s, &m, k, kn, &ng);
    annotated_native(ng, kn);
    /* counts answer; which node is the head, by its dependents */
    OK(xrt_graph_get_info(g, &gi));
    assert_int_equal(gi.edges, 1);
    assert_int_equal(gi.kernels, 2);
    count = 4;
    OK(xrt_graph_get_nodes(g, nodes, &count));
    assert_int_equal(count, 2);
    for (i = 0; i < 2; i++) {
        c = 9;
        OK(xrt_graph_node_get_dependent_nodes(nodes[i], NULL, &c));
        ends[c == 1 ? 0 : 1] = &nodes[i];
    }
    head = *ends[0], tail = *ends[1];
    assert_true(head != tail);
    /* the lists cannot express it */
    count = 4;
    FAILS(xrt_graph_get_edges(g, nodes, nodes + 2, &count), XRT_ERROR_UNSUPPORTED, annotated);
    FAILS(xrt_graph_get_edges(g, nodes, nodes + 2, &count), XRT_ERROR_UNSUPPORTED, "cuda: xrt_graph_get_edges: edge 0 ");
    count = 4;
    FAILS(xrt_graph_node_get_dependencies(tail, nodes, &count), XRT_ERROR_UNSUPPORTED, annotated);
    count = 4;
    FAILS(xrt_graph_node_get_dependent_nodes(head, nodes, &count), XRT_ERROR_UNSUPPORTED, annotated);
    count = 0;
    OK(xrt_graph_node_get_dependencies(tail, NULL, &count));
    assert_int_equal(count, 1);
    /* a walk follows it: e -> head is no cycle, tail -> e would close one */
    OK(xrt_graph_add_empty_node(&e, g, NULL, 0));
    OK(xrt_graph_add_dependencies(g, &e, &head, 1));
    FAILS(xrt_graph_add_dependencies(g, &tail, &e, 1), XRT_ERROR_INVALID_VALUE, "it would close a cycle");
    FAILS(xrt_graph_remove_dependencies(g, &head, &tail, 1), XRT_ERROR_UNSUPPORTED, annotated);
    OK(xrt_graph_remove_dependencies(g, &e, &head, 1)); /* a plain one goes */
    OK(xrt_graph_destroy(g));
    if (m) OK(xrt_module_unload(m));
    OK(xrt_stream_destroy(s));
}

/* xrt_shutdown with memory still allocated frees it, then a new xrt_init
   works again (the runtime stays loaded until the last free). */
static void test_gpu_shutdown_with_live_memory(void **state)
{
    const char *name = current_backend();
    char h[32] = "still works", back[32] = {0};
    void *d = NULL, *pinned = NULL;
    xrt_stream s;
    (void)state;
    OK(xrt_malloc(&d, 1 << 20));
    OK(xrt_malloc_host(&pinned, 4096));
    OK(xrt_stream_create(&s));
    OK(xrt_memset_async(d, 0, 1 << 20, s));
    xrt_shutdown();
    OK(xrt_set_backend(name));
    OK(xrt_malloc(&d, sizeof h));
    OK(xrt_memcpy(d, h, sizeof h, XRT_MEMCPY_HOST_TO_DEVICE));
    OK(xrt_memcpy(back, d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_string_equal(back, h);
    OK(xrt_free(d));
    xrt_test_log_capture(); /* the group's logger, as before the shutdown */
}

int main(void)
{
    const struct CMUnitTest everywhere[] = {
        cmocka_unit_test_teardown(test_listing, env_restore),
        cmocka_unit_test_teardown(test_absent_is_quiet, env_restore),
        cmocka_unit_test_teardown(test_debug_names_runtime, env_restore),
        cmocka_unit_test_teardown(test_env_backend_gpu, env_restore),
        cmocka_unit_test_teardown(test_auto_falls_back_to_cpu, env_restore),
        cmocka_unit_test_teardown(test_set_backend_refused, env_restore),
        cmocka_unit_test_teardown(test_library_override, env_restore),
        cmocka_unit_test(test_error_mapping),
        cmocka_unit_test(test_error_tables),
        cmocka_unit_test_teardown(test_cuda_native_errors, env_restore),
        cmocka_unit_test_teardown(test_hip_native_errors, env_restore),
        cmocka_unit_test_teardown(test_host_fn_trampoline, env_restore),
        cmocka_unit_test_teardown(test_launch_host_func_fake, fakes_restore),
        cmocka_unit_test_teardown(test_gpu_allocation_asks_device, fakes_restore),
        cmocka_unit_test_teardown(test_host_fn_closures_reused, fakes_restore),
        cmocka_unit_test_teardown(test_graphs_fake, fakes_restore),
        cmocka_unit_test_teardown(test_hip_layouts, fakes_restore),
        cmocka_unit_test_teardown(test_runtime_numbers_fake, fakes_restore),
        cmocka_unit_test_teardown(test_hip_runtime_versions, fakes_restore),
        cmocka_unit_test_teardown(test_hip_rocm7_refused_by_name, hip_dir_restore),
        cmocka_unit_test_teardown(test_native_memory_range_fake, fakes_restore),
        cmocka_unit_test_teardown(test_host_register_flags_fake, fakes_restore),
        cmocka_unit_test_teardown(test_hip_target_features, fakes_restore),
        cmocka_unit_test(test_dmabuf_page_range),
        cmocka_unit_test_teardown(test_cuda_dmabuf_without_driver, env_restore),
        cmocka_unit_test_teardown(test_cuda_dmabuf_fake_driver, fakes_restore),
        cmocka_unit_test_teardown(test_hip_dmabuf_fake, fakes_restore),
        cmocka_unit_test(test_cuda_image_choice),
        cmocka_unit_test_teardown(test_cuda_modules_fake_driver, fakes_restore),
        cmocka_unit_test_teardown(test_cuda_set_of_unequal_bytes_fake, fakes_restore),
        cmocka_unit_test_teardown(test_hip_set_of_unequal_bytes_fake, fakes_restore),
        cmocka_unit_test_teardown(test_cuda_module_kept_for_graphs_fake, fakes_restore),
        cmocka_unit_test_teardown(test_cuda_context_made_only_where_none_is_current_fake, fakes_restore),
        cmocka_unit_test_teardown(test_cuda_captured_kernel_params_fake, fakes_restore),
        cmocka_unit_test_setup_teardown(test_cuda_per_thread_captures_fake, gates_reset, fakes_restore),
        cmocka_unit_test_teardown(test_cuda_per_thread_capture_of_exited_thread_fake, fakes_restore),
        cmocka_unit_test_teardown(test_cuda_capture_of_destroyed_stream_forgotten_fake, fakes_restore),
        cmocka_unit_test_teardown(test_hip_capture_last_fake, fakes_restore),
        cmocka_unit_test_teardown(test_hip_launch_fake, fakes_restore),
        cmocka_unit_test_teardown(test_hip_image_choice, fakes_restore),
        cmocka_unit_test_teardown(test_hip_modules_fake, fakes_restore),
        cmocka_unit_test_teardown(test_hip_module_real_runtime, env_restore),
        cmocka_unit_test_teardown(test_cuda_library_fake_driver, fakes_restore),
        cmocka_unit_test_teardown(test_cuda_launch_asks_device, fakes_restore),
        cmocka_unit_test_teardown(test_cuda_launch_ex_fake_driver, fakes_restore),
        cmocka_unit_test_teardown(test_gpu_kernel_node_attributes, fakes_restore),
        cmocka_unit_test_teardown(test_gpu_stream_get_device, fakes_restore),
        cmocka_unit_test_teardown(test_cuda_images_within_size, fakes_restore),
        cmocka_unit_test_teardown(test_cuda_junk_images, fakes_restore),
        cmocka_unit_test_teardown(test_cuda_driver_failures, fakes_restore),
        cmocka_unit_test_teardown(test_cuda_module_symbols_and_occupancy_fake, fakes_restore),
        cmocka_unit_test_teardown(test_cuda_module_unloaded_when_synchronize_fails_fake, fakes_restore),
    };
    const struct CMUnitTest with_gpu[] = {
        cmocka_unit_test(test_gpu_properties),
        cmocka_unit_test(test_gpu_capabilities),
        cmocka_unit_test_teardown(test_gpu_stream_ordered_refused, pools_restore),
        cmocka_unit_test(test_gpu_native_pointers),
        cmocka_unit_test_teardown(test_gpu_copy_asks_runtime, moved_restore),
        cmocka_unit_test(test_gpu_native_handles),
        cmocka_unit_test(test_gpu_runtime_stream_event_arguments),
        cmocka_unit_test(test_gpu_runtime_one_exec_of_memory_graph),
        cmocka_unit_test(test_gpu_runtime_no_memory_node_in_child_graph),
        gated_test(test_gpu_not_ready),
        gated_test(test_gpu_stream_not_blocked_by_null),
        cmocka_unit_test(test_gpu_host_fn_refused),
        cmocka_unit_test(test_gpu_dmabuf_export),
        cmocka_unit_test(test_gpu_capture_to_graph_edge_data),
        cmocka_unit_test(test_gpu_annotated_edges),
        cmocka_unit_test(test_gpu_shutdown_with_live_memory),
    };
    int failed;
    env_save();
    xrt_test_log_calls(); /* as env_restore leaves it after each test */
    xrt_init(); /* the tests that call xrt's internals directly find it initialised */
    failed = xrt_test_run_group("gpu: selection and errors", everywhere, NULL);
    failed += xrt_test_run_on_backends("gpu", with_gpu, sizeof with_gpu / sizeof with_gpu[0], gpu_names);
    return failed;
}

#endif /* a GPU backend is enabled */
