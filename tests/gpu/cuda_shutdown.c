/* SPDX-License-Identifier: MIT */
/* tests/gpu/cuda_shutdown.c - the CUDA runtime calls that xrt makes in
   test_shutdown's case (xrt_shutdown, on another thread, while a host
   function runs; then xrt_init and xrt_stream_create), made directly, without
   xrt, so that a failure can be told apart: the runtime's own behaviour, or
   xrt's. The sequence is the one the runtime test double records for that
   case (ltrace -x 'cuda*' on build/plain/test_shutdown).

   Each variant leaves out one part of the sequence and runs in its own
   process (the runtime does not survive fork(): the parent never touches
   it). Each prints one line: the variant, then what the last
   cudaStreamCreateWithFlags returned. Exit status: 0 if every variant's last
   call succeeded, 1 if one failed, 2 if the runtime could not be loaded.

     cuda_shutdown [LIBRARY]   (default: $XRT_CUDA_LIBRARY, else libcudart.so.13) */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The runtime, bound by name as xrt binds it (and dlclosed between the two
   halves, as xrt_shutdown does). Pinned as xrt pins it (RTLD_NODELETE): the
   dlclose does not unmap a library whose own threads may still run its code
   (a destroyed stream's worker, in the runtime double). */
#define RT(X)                                                                                      \
    X(RuntimeGetVersion, cudaError_t, (int *))                                                     \
    X(GetDeviceCount, cudaError_t, (int *))                                                        \
    X(GetDevice, cudaError_t, (int *))                                                             \
    X(SetDevice, cudaError_t, (int))                                                               \
    X(DeviceSynchronize, cudaError_t, (void))                                                      \
    X(StreamCreateWithFlags, cudaError_t, (cudaStream_t *, unsigned))                              \
    X(StreamDestroy, cudaError_t, (cudaStream_t))                                                  \
    X(Malloc, cudaError_t, (void **, size_t))                                                      \
    X(Free, cudaError_t, (void *))                                                                 \
    X(LaunchHostFunc, cudaError_t, (cudaStream_t, cudaHostFn_t, void *))                           \
    X(GetErrorName, const char *, (cudaError_t))
#define FIELD(name, ret, params) ret(*name) params;
static struct { RT(FIELD) } rt;
#undef FIELD

enum { NO_HOST_FN = 1, SAME_THREAD = 2, NO_RELOAD = 4, NO_FREE = 8 };
static const struct { const char *name; int flags; } variants[] = {
    {"the whole sequence", 0},
    {"without the host function", NO_HOST_FN},
    {"shut down on the main thread", SAME_THREAD},
    {"without dlclose and dlopen", NO_RELOAD},
    {"without freeing the stream and memory", NO_FREE},
    {"on the main thread, no host function, no reload", SAME_THREAD | NO_HOST_FN | NO_RELOAD},
};

static const char *library;
static void *lib;
static cudaStream_t s;
static void *d;
static int shutting_down, flags;

static int load(void)
{
#define BIND(name, ret, params) \
    if (!(*(void **)&rt.name = dlsym(lib, "cuda" #name))) return fprintf(stderr, "no cuda%s in %s\n", #name, library), 0;
    if (!(lib = dlopen(library, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE))) return fprintf(stderr, "%s\n", dlerror()), 0;
    RT(BIND)
#undef BIND
    return 1;
}

static void sleep_ms(int ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* as test_shutdown's host function: waits for the shutdown to begin, then
   holds it up for 100 ms (its xrt calls are refused before reaching CUDA) */
static void CUDART_CB host_fn(void *user)
{
    (void)user;
    while (!__atomic_load_n(&shutting_down, __ATOMIC_ACQUIRE)) sleep_ms(1);
    sleep_ms(100);
}

/* xrt_shutdown's calls: drain, destroy the live stream, free the live
   allocation, synchronize each used device, back to the current device */
static void *shutdown_calls(void *arg)
{
    int current = 0;
    (void)arg;
    __atomic_store_n(&shutting_down, 1, __ATOMIC_RELEASE);
    rt.DeviceSynchronize();
    if (!(flags & NO_FREE)) {
        rt.StreamDestroy(s);
        rt.Free(d);
    }
    rt.GetDevice(&current);
    rt.SetDevice(0);
    rt.DeviceSynchronize();
    rt.SetDevice(current);
    return NULL;
}

static cudaError_t check(const char *what, cudaError_t e)
{
    if (e != cudaSuccess) printf("  %s: %s\n", what, rt.GetErrorName(e));
    return e;
}

static int run(int v)
{
    cudaStream_t a, again;
    pthread_t t;
    int n, version;
    cudaError_t e;
    flags = variants[v].flags;
    if (!load()) return 2;
    /* xrt_init, then the test's own calls before the shutdown */
    if (check("cudaRuntimeGetVersion", rt.RuntimeGetVersion(&version)) ||
        check("cudaGetDeviceCount", rt.GetDeviceCount(&n)) ||
        check("cudaStreamCreateWithFlags", rt.StreamCreateWithFlags(&a, cudaStreamNonBlocking)) ||
        check("cudaStreamDestroy", rt.StreamDestroy(a)) || check("cudaMalloc", rt.Malloc(&d, 64)) ||
        check("cudaStreamCreateWithFlags", rt.StreamCreateWithFlags(&s, cudaStreamNonBlocking)))
        return 1;
    if (!(flags & NO_HOST_FN) && check("cudaLaunchHostFunc", rt.LaunchHostFunc(s, host_fn, NULL))) return 1;
    if (flags & SAME_THREAD) {
        if (!(flags & NO_HOST_FN)) __atomic_store_n(&shutting_down, 1, __ATOMIC_RELEASE);
        shutdown_calls(NULL);
    } else if (pthread_create(&t, NULL, shutdown_calls, NULL) == 0) {
        pthread_join(t, NULL);
    }
    if (!(flags & NO_RELOAD)) { /* xrt's unload and load (the library is pinned: the same copy) */
        dlclose(lib);
        if (!load()) return 2;
    }
    /* xrt_init's probe, then xrt_stream_create */
    rt.RuntimeGetVersion(&version);
    rt.GetDeviceCount(&n);
    e = rt.StreamCreateWithFlags(&again, cudaStreamNonBlocking);
    printf("%-52s cudaStreamCreateWithFlags after it: %s\n", variants[v].name, rt.GetErrorName(e));
    if (e == cudaSuccess) rt.StreamDestroy(again);
    return e != cudaSuccess;
}

int main(int argc, char **argv)
{
    size_t v;
    int worst = 0;
    library = argc > 1 ? argv[1] : getenv("XRT_CUDA_LIBRARY") ? getenv("XRT_CUDA_LIBRARY") : "libcudart.so.13";
    for (v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        int status = 0;
        pid_t pid;
        fflush(stdout);
        if ((pid = fork()) == 0) exit(run((int)v)); /* exit: stdout is flushed */
        if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
            printf("%-52s crashed or could not run (status %d)\n", variants[v].name, status);
            status = 1 << 8;
        }
        if (WEXITSTATUS(status) > worst) worst = WEXITSTATUS(status);
        if (worst == 2) break; /* no runtime: every variant would say so */
    }
    return worst;
}
