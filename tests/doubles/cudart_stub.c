/* SPDX-License-Identifier: MIT */
/* A stand-in for libcudart whose calls do nothing (allocations return host
   memory; copies, memsets and synchronizations return at once), exporting the
   calls xrt's CUDA backend and bench/gpu_overhead.c make. gpu_overhead run
   against it (LD_LIBRARY_PATH) on a machine without a GPU measures what xrt
   alone adds to each call: the ratios mean nothing there, the differences are
   xrt's own cost. Not a test double for correctness: nothing is checked.
   Every other entry point of xrt's list answers "not supported"
   (cudart_unsupported.c). */
#include <cuda_runtime_api.h>

#include <stdlib.h>
#include <string.h>

int xrt_bench_cudart_stub = 1; /* gpu_overhead looks for this symbol */

static char objects[4096];
static unsigned next_object;
static __thread int current_device;

static void *new_object(void) { return &objects[__atomic_fetch_add(&next_object, 1, __ATOMIC_RELAXED) % sizeof objects]; }

#define UNUSED(x) (void)(x)

const char *cudaGetErrorName(cudaError_t e) { return e ? "cudaErrorStub" : "cudaSuccess"; }
const char *cudaGetErrorString(cudaError_t e) { return e ? "stub runtime error" : "no error"; }
cudaError_t cudaGetLastError(void) { return cudaSuccess; }
cudaError_t cudaRuntimeGetVersion(int *v) { *v = CUDART_VERSION; return cudaSuccess; }
cudaError_t cudaGetDeviceCount(int *count) { *count = 1; return cudaSuccess; }
cudaError_t cudaSetDevice(int d) { current_device = d; return d == 0 ? cudaSuccess : cudaErrorInvalidDevice; }
cudaError_t cudaGetDevice(int *d) { *d = current_device; return cudaSuccess; }
cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int d)
{
    UNUSED(d);
    strcpy(p->name, "stub runtime (no GPU)");
    p->totalGlobalMem = (size_t)1 << 34;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *v, enum cudaDeviceAttr a, int d)
{
    UNUSED(d);
    *v = a == cudaDevAttrComputeCapabilityMajor ? 9 : a == cudaDevAttrComputeCapabilityMinor ? 0 :
         a == cudaDevAttrWarpSize ? 32 : a == cudaDevAttrMultiProcessorCount ? 1 : 1;
    return cudaSuccess;
}

cudaError_t cudaMalloc(void **p, size_t n)
{
    *p = aligned_alloc(256, (n + 255) & ~(size_t)255);
    return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaFree(void *p) { free(p); return cudaSuccess; }
cudaError_t cudaHostAlloc(void **p, size_t n, unsigned f) { UNUSED(f); return cudaMalloc(p, n); }
cudaError_t cudaFreeHost(void *p) { free(p); return cudaSuccess; }
cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t s) { UNUSED(s); return cudaMalloc(p, n); }
cudaError_t cudaFreeAsync(void *p, cudaStream_t s) { UNUSED(s); free(p); return cudaSuccess; }
cudaError_t cudaMemGetInfo(size_t *f, size_t *t) { *f = *t = (size_t)1 << 34; return cudaSuccess; }
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int d) { UNUSED(d); *pool = new_object(); return cudaSuccess; }

cudaError_t cudaMallocFromPoolAsync(void **p, size_t n, cudaMemPool_t pool, cudaStream_t s)
{
    UNUSED(pool), UNUSED(s);
    return cudaMalloc(p, n);
}

cudaError_t cudaHostRegister(void *p, size_t n, unsigned f) { UNUSED(p), UNUSED(n), UNUSED(f); return cudaSuccess; }
cudaError_t cudaHostUnregister(void *p) { UNUSED(p); return cudaSuccess; }

cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t s)
{
    UNUSED(d), UNUSED(v), UNUSED(n), UNUSED(s);
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *d, const void *src, size_t n, enum cudaMemcpyKind k, cudaStream_t s)
{
    UNUSED(d), UNUSED(src), UNUSED(n), UNUSED(k), UNUSED(s);
    return cudaSuccess;
}

cudaError_t cudaMemcpy2DAsync(void *d, size_t dp, const void *src, size_t sp, size_t w, size_t h,
                              enum cudaMemcpyKind k, cudaStream_t s)
{
    UNUSED(d), UNUSED(dp), UNUSED(src), UNUSED(sp), UNUSED(w), UNUSED(h), UNUSED(k), UNUSED(s);
    return cudaSuccess;
}

cudaError_t cudaMemset2DAsync(void *d, size_t p, int v, size_t w, size_t h, cudaStream_t s)
{
    UNUSED(d), UNUSED(p), UNUSED(v), UNUSED(w), UNUSED(h), UNUSED(s);
    return cudaSuccess;
}

cudaError_t cudaMemcpyPeer(void *d, int dd, const void *src, int sd, size_t n)
{
    UNUSED(d), UNUSED(dd), UNUSED(src), UNUSED(sd), UNUSED(n);
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void *d, const void *src, size_t n, enum cudaMemcpyKind k)
{
    UNUSED(d), UNUSED(src), UNUSED(n), UNUSED(k);
    return cudaSuccess;
}

cudaError_t cudaMemset(void *d, int v, size_t n)
{
    UNUSED(d), UNUSED(v), UNUSED(n);
    return cudaSuccess;
}

/* Every pointer is unknown to the stub, as plain host memory is to CUDA. */
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *a, const void *p)
{
    UNUSED(p);
    memset(a, 0, sizeof *a);
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned f) { UNUSED(f); *s = new_object(); return cudaSuccess; }
cudaError_t cudaStreamCreate(cudaStream_t *s) { *s = new_object(); return cudaSuccess; }

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned f, int priority)
{
    UNUSED(f), UNUSED(priority);
    *s = new_object();
    return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest)
{
    if (least) *least = 0;
    if (greatest) *greatest = -5;
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t s) { UNUSED(s); return cudaSuccess; }
cudaError_t cudaStreamSynchronize(cudaStream_t s) { UNUSED(s); return cudaSuccess; }
cudaError_t cudaStreamQuery(cudaStream_t s) { UNUSED(s); return cudaSuccess; }
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned f) { UNUSED(s), UNUSED(e), UNUSED(f); return cudaSuccess; }

cudaError_t cudaStreamAddCallback(cudaStream_t s, cudaStreamCallback_t cb, void *u, unsigned f)
{
    UNUSED(f);
    cb(s, cudaSuccess, u);
    return cudaSuccess;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void *u) { UNUSED(s); fn(u); return cudaSuccess; }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned f) { UNUSED(f); *e = new_object(); return cudaSuccess; }
cudaError_t cudaEventDestroy(cudaEvent_t e) { UNUSED(e); return cudaSuccess; }
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) { UNUSED(e), UNUSED(s); return cudaSuccess; }
cudaError_t cudaEventQuery(cudaEvent_t e) { UNUSED(e); return cudaSuccess; }
cudaError_t cudaEventSynchronize(cudaEvent_t e) { UNUSED(e); return cudaSuccess; }

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    UNUSED(a), UNUSED(b);
    *ms = 0;
    return cudaSuccess;
}
