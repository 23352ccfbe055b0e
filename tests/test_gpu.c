/* The CUDA and HIP backends. Most of it runs everywhere: how an absent
   driver, device or library is reported, how the program falls back to the
   CPU, how native errors read and map. What needs a GPU runs on every GPU
   backend that is available and says "skipped: <reason>" otherwise; the
   shared runtime suite (test_suite.c) covers the common behaviour there. */
#include "xrt_test.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

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
/* NODELETE: unmapping a vendor runtime orphans what its constructors
   allocated (LeakSanitizer reports it), as xrt's own loader knows. */
static int can_load(const char *const *names)
{
    for (; *names; names++) {
        void *h = dlopen(*names, RTLD_LAZY | RTLD_LOCAL | RTLD_NODELETE);
        if (h) {
            dlclose(h);
            return 1;
        }
    }
    return 0;
}
#endif
#ifdef XRT_ENABLE_CUDA
static const char *const cudart_names[] = {"libcudart.so.13", "libcudart.so.12", "libcudart.so", NULL};
static const char *const cuda_driver_names[] = {"libcuda.so.1", NULL};
#endif
#ifdef XRT_ENABLE_HIP
static int kfd_present(void) { return access("/dev/kfd", F_OK) == 0; }
#endif

/* Environment of the run, restored after every test that changes it. */
static const char *const env_names[] = {"XRT_BACKEND", "XRT_CUDA_LIBRARY", "XRT_HIP_LIBRARY", "XRT_LOG"};
static char *env_saved[4];

static void env_save(void)
{
    size_t i;
    for (i = 0; i < 4; i++) {
        const char *v = getenv(env_names[i]);
        env_saved[i] = v ? strdup(v) : NULL;
    }
}

static int env_restore(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < 4; i++) {
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
    } else {
        assert_non_null(strstr(info.reason, "cudaGetDeviceCount: "));
        if (!can_load(cuda_driver_names))
            assert_non_null(strstr(info.reason, "(cudaErrorInsufficientDriver=35)"));
    }
    print_message("cuda: %s\n", info.available ? "available" : info.reason);
#endif
#ifdef XRT_ENABLE_HIP
    assert_true(backend_index("hip", &info) >= 0);
    if (!kfd_present()) {
        static const char *const hip_names[] = {"libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so"};
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
    (void)state;
#ifdef XRT_ENABLE_CUDA
    assert_int_equal(xrt__cuda_status(cudaErrorInvalidValue), XRT_ERROR_INVALID_VALUE);
    assert_int_equal(xrt__cuda_status(cudaErrorMemoryAllocation), XRT_ERROR_OUT_OF_MEMORY);
    assert_int_equal(xrt__cuda_status(cudaErrorInsufficientDriver), XRT_ERROR_BACKEND_UNAVAILABLE);
    assert_int_equal(xrt__cuda_status(cudaErrorNoDevice), XRT_ERROR_NO_DEVICE);
    assert_int_equal(xrt__cuda_status(cudaErrorInvalidDevice), XRT_ERROR_INVALID_DEVICE);
    assert_int_equal(xrt__cuda_status(cudaErrorInvalidDevicePointer), XRT_ERROR_INVALID_POINTER);
    assert_int_equal(xrt__cuda_status(cudaErrorInvalidMemcpyDirection), XRT_ERROR_INVALID_MEMCPY_KIND);
    assert_int_equal(xrt__cuda_status(cudaErrorInvalidResourceHandle), XRT_ERROR_INVALID_HANDLE);
    assert_int_equal(xrt__cuda_status(cudaErrorNotReady), XRT_ERROR_NOT_READY);
    assert_int_equal(xrt__cuda_status(cudaErrorNotSupported), XRT_ERROR_UNSUPPORTED);
    assert_int_equal(xrt__cuda_status(cudaErrorLaunchFailure), XRT_ERROR_BACKEND);
    assert_int_equal(xrt__cuda_status(cudaErrorIllegalAddress), XRT_ERROR_BACKEND);
#endif
#ifdef XRT_ENABLE_HIP
    assert_int_equal(xrt__hip_status(hipErrorInvalidValue), XRT_ERROR_INVALID_VALUE);
    assert_int_equal(xrt__hip_status(hipErrorMemoryAllocation), XRT_ERROR_OUT_OF_MEMORY);
    assert_int_equal(xrt__hip_status(hipErrorInsufficientDriver), XRT_ERROR_BACKEND_UNAVAILABLE);
    assert_int_equal(xrt__hip_status(hipErrorNoDevice), XRT_ERROR_NO_DEVICE);
    assert_int_equal(xrt__hip_status(hipErrorInvalidDevice), XRT_ERROR_INVALID_DEVICE);
    assert_int_equal(xrt__hip_status(hipErrorInvalidDevicePointer), XRT_ERROR_INVALID_POINTER);
    assert_int_equal(xrt__hip_status(hipErrorInvalidMemcpyDirection), XRT_ERROR_INVALID_MEMCPY_KIND);
    assert_int_equal(xrt__hip_status(hipErrorInvalidResourceHandle), XRT_ERROR_INVALID_HANDLE);
    assert_int_equal(xrt__hip_status(hipErrorNotReady), XRT_ERROR_NOT_READY);
    assert_int_equal(xrt__hip_status(hipErrorNotSupported), XRT_ERROR_UNSUPPORTED);
    assert_int_equal(xrt__hip_status(hipErrorLaunchFailure), XRT_ERROR_BACKEND);
#endif
}

/* A failure is recorded and logged as "<backend>: <native call>: <message>
   (<name>=<code>)"; NOT_READY is returned without either. */
#define CHECK_NATIVE_DETAIL(id, err, sym, expected)                                           \
    do {                                                                                      \
        int logs_;                                                                            \
        xrt_get_last_error();                                                                 \
        logs_ = xrt_test_log.count;                                                           \
        assert_int_equal(xrt__##id##_check(err, sym), xrt__##id##_status(err));               \
        assert_string_equal(xrt_get_last_error_string(), expected);                           \
        assert_int_equal(xrt_peek_at_last_error(), xrt__##id##_status(err));                  \
        assert_int_equal(xrt_test_log.count, logs_ + 1);                                      \
        assert_int_equal(xrt_test_log.level, XRT_LOG_ERROR);                                  \
    } while (0)

#define CHECK_NOT_READY(id, err, sym)                                                         \
    do {                                                                                      \
        int logs_;                                                                            \
        xrt_get_last_error();                                                                 \
        logs_ = xrt_test_log.count;                                                           \
        assert_int_equal(xrt__##id##_check(err, sym), XRT_ERROR_NOT_READY);                   \
        assert_int_equal(xrt_peek_at_last_error(), XRT_SUCCESS);                              \
        assert_int_equal(xrt_test_log.count, logs_);                                          \
    } while (0)

/* Loads the runtime's table unless the backend already did (a GPU is there). */
#define LOAD_OR_SKIP(id, names)                                                               \
    int loaded_ = 0;                                                                          \
    char why_[256] = "";                                                                      \
    if (!xrt__##id##_rt.GetErrorName) {                                                       \
        SKIP_UNLESS(can_load(names), #id ": no runtime library");                             \
        assert_true(xrt__##id##_load(why_, sizeof why_));                                     \
        loaded_ = 1;                                                                          \
    }

static void test_cuda_native_errors(void **state)
{
#ifdef XRT_ENABLE_CUDA
    void *p = &p;
    /* before loading: probing the backend (inside available) resets the table */
    int no_driver = !available("cuda") && !can_load(cuda_driver_names);
    (void)state;
    {
        LOAD_OR_SKIP(cuda, cudart_names)
        xrt_test_log_capture();
        CHECK_NATIVE_DETAIL(cuda, cudaErrorMemoryAllocation, xrt__cuda_i_Malloc,
                            "cuda: cudaMalloc: out of memory (cudaErrorMemoryAllocation=2)");
        CHECK_NATIVE_DETAIL(cuda, cudaErrorInvalidResourceHandle, xrt__cuda_i_StreamSynchronize,
                            "cuda: cudaStreamSynchronize: invalid resource handle "
                            "(cudaErrorInvalidResourceHandle=400)");
        CHECK_NOT_READY(cuda, cudaErrorNotReady, xrt__cuda_i_StreamQuery);
        if (no_driver) { /* a real call into the runtime */
            XRT_ASSERT_FAILS(xrt__cuda_malloc(NULL, &p, 64), XRT_ERROR_BACKEND_UNAVAILABLE,
                             "cuda: cudaMalloc: CUDA driver version is insufficient for CUDA runtime version "
                             "(cudaErrorInsufficientDriver=35)");
            assert_null(p);
        }
        if (loaded_) xrt__cuda_unload();
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
    static const char *const names[] = {"libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so", NULL};
    void *p = &p;
    int no_device = !available("hip"); /* before loading, as for CUDA */
    (void)state;
    {
        LOAD_OR_SKIP(hip, names)
        char expected[256];
        snprintf(expected, sizeof expected, "hip: hipHostMalloc: %s (hipErrorOutOfMemory=2)", /* HIP 5 gives the name */
                 xrt__hip_rt.GetErrorString(hipErrorOutOfMemory));
        xrt_test_log_capture();
        CHECK_NATIVE_DETAIL(hip, hipErrorOutOfMemory, xrt__hip_i_HostAlloc, expected);
        CHECK_NOT_READY(hip, hipErrorNotReady, xrt__hip_i_EventQuery);
        if (no_device) { /* a real call: it fails, whatever the runtime calls the reason */
            assert_int_not_equal(xrt__hip_malloc(NULL, &p, 64), XRT_SUCCESS);
            assert_non_null(strstr(xrt_get_last_error_string(), "hip: hipMalloc: "));
            assert_null(p);
        }
        if (loaded_) xrt__hip_unload();
        (void)why_;
    }
#else
    (void)state;
    SKIP_UNLESS(0, "hip: not enabled in this build");
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

/* Memory the program allocated natively is known through the runtime. */
static void test_gpu_native_pointers(void **state)
{
    xrt_pointer_attributes a;
    void *native = NULL, *pinned = NULL;
    char host[16];
    int d = 0, is_cuda = strcmp(current_backend(), "cuda") == 0;
    (void)state;
    (void)is_cuda;
    OK(xrt_get_device(&d));
#ifdef XRT_ENABLE_CUDA
    if (is_cuda) assert_int_equal(xrt__cuda_rt.Malloc(&native, 4096), 0);
#endif
#ifdef XRT_ENABLE_HIP
    if (!is_cuda) assert_int_equal(xrt__hip_rt.Malloc(&native, 4096), 0);
#endif
    OK(xrt_pointer_get_attributes(&a, (char *)native + 100));
    assert_int_equal(a.type, XRT_MEMORY_DEVICE);
    assert_string_equal(a.backend, current_backend());
    assert_int_equal(a.device, d);
    OK(xrt_memset(native, 7, 4096)); /* usable through xrt */
#ifdef XRT_ENABLE_CUDA
    if (is_cuda) assert_int_equal(xrt__cuda_rt.Free(native), 0);
#endif
#ifdef XRT_ENABLE_HIP
    if (!is_cuda) assert_int_equal(xrt__hip_rt.Free(native), 0);
#endif
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

/* Looks a runtime function up in the loaded library (run-time loading only). */
static void *native_symbol(const char *name)
{
    void *lib = NULL;
#ifdef XRT_ENABLE_CUDA
    if (strcmp(current_backend(), "cuda") == 0) lib = xrt__cuda_state.lib;
#endif
#ifdef XRT_ENABLE_HIP
    if (strcmp(current_backend(), "hip") == 0) lib = xrt__hip_state.lib;
#endif
    return lib ? dlsym(lib, name) : NULL;
}

/* The object is the native stream; xrt streams are non-blocking; a wrapped
   stream is not destroyed with its handle. */
static void test_gpu_native_handles(void **state)
{
    typedef int (*get_flags_fn)(void *stream, unsigned *flags);
    xrt_stream s, w;
    xrt_event e;
    void *native = &native, *again = NULL, *ev = NULL, *fp;
    unsigned flags = 0;
    (void)state;
    OK(xrt_stream_get_native(NULL, &native));
    assert_null(native);
    OK(xrt_stream_create(&s));
    OK(xrt_stream_get_native(s, &native));
    assert_non_null(native);
    fp = native_symbol(strcmp(current_backend(), "cuda") == 0 ? "cudaStreamGetFlags" : "hipStreamGetFlags");
    if (fp) {
        get_flags_fn get_flags;
        memcpy(&get_flags, &fp, sizeof get_flags);
        assert_int_equal(get_flags(native, &flags), 0);
        assert_int_equal(flags & 1u, 1u); /* cudaStreamNonBlocking, hipStreamNonBlocking */
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
        cmocka_unit_test_teardown(test_env_backend_gpu, env_restore),
        cmocka_unit_test_teardown(test_auto_falls_back_to_cpu, env_restore),
        cmocka_unit_test_teardown(test_set_backend_refused, env_restore),
        cmocka_unit_test_teardown(test_library_override, env_restore),
        cmocka_unit_test(test_error_mapping),
        cmocka_unit_test_teardown(test_cuda_native_errors, env_restore),
        cmocka_unit_test_teardown(test_hip_native_errors, env_restore),
    };
    const struct CMUnitTest with_gpu[] = {
        cmocka_unit_test(test_gpu_properties),
        cmocka_unit_test(test_gpu_capabilities),
        cmocka_unit_test(test_gpu_native_pointers),
        cmocka_unit_test(test_gpu_native_handles),
        gated_test(test_gpu_not_ready),
        cmocka_unit_test(test_gpu_shutdown_with_live_memory),
    };
    int failed;
    env_save();
    xrt_test_log_capture();
    failed = cmocka_run_group_tests_name("gpu: selection and errors", everywhere, NULL, NULL);
    failed += xrt_test_run_on_backends("gpu", with_gpu, sizeof with_gpu / sizeof with_gpu[0], gpu_names);
    return failed;
}
