/* xrt_cuda.h - the CUDA backend: the CUDA runtime (libcudart) behind xrt.

   Enabled by XRT_ENABLE_CUDA; the XRT_IMPL unit needs the CUDA headers
   (-isystem /usr/local/cuda/include). Included by xrt.h in the XRT_IMPL
   translation unit; never include it yourself. Only this unit sees CUDA's
   headers: a .cu file includes xrt.h like any other file.

   The runtime is loaded at run time, the first of libcudart.so.13, .so.12,
   .so that loads, or the one env XRT_CUDA_LIBRARY names; a program built
   with CUDA runs, on the CPU backend, where CUDA is absent. Define
   XRT_NO_RUNTIME_LINKING to call the runtime directly and link -lcudart.

   The logic is shared with HIP (xrt_gpu.h); this file holds what is CUDA's:
   the symbols, the errors, the types and three hooks.
*/
#if defined(XRT__IMPL_INCLUDED) && !defined(XRT__CUDA_IMPL_INCLUDED)
#define XRT__CUDA_IMPL_INCLUDED

#include <cuda_runtime_api.h>

/* X(field, symbol, optional, return type, parameters). cudaGetDeviceProperties
   keeps one name across versions; its struct does not (see fill_prop). */
#define XRT__CUDA_SYMBOLS(X)                                                                             \
    X(GetErrorName, cudaGetErrorName, 0, const char *, (cudaError_t error))                              \
    X(GetErrorString, cudaGetErrorString, 0, const char *, (cudaError_t error))                          \
    X(GetLastError, cudaGetLastError, 0, cudaError_t, (void))                                            \
    X(RuntimeGetVersion, cudaRuntimeGetVersion, 0, cudaError_t, (int *version))                          \
    X(GetDeviceCount, cudaGetDeviceCount, 0, cudaError_t, (int *count))                                  \
    X(SetDevice, cudaSetDevice, 0, cudaError_t, (int device))                                            \
    X(GetDevice, cudaGetDevice, 0, cudaError_t, (int *device))                                           \
    X(DeviceSynchronize, cudaDeviceSynchronize, 0, cudaError_t, (void))                                  \
    X(GetDeviceProperties, cudaGetDeviceProperties, 0, cudaError_t, (struct cudaDeviceProp * prop, int device)) \
    X(DeviceGetAttribute, cudaDeviceGetAttribute, 0, cudaError_t, (int *value, enum cudaDeviceAttr attr, int device)) \
    X(Malloc, cudaMalloc, 0, cudaError_t, (void **ptr, size_t size))                                     \
    X(Free, cudaFree, 0, cudaError_t, (void *ptr))                                                       \
    X(HostAlloc, cudaHostAlloc, 0, cudaError_t, (void **ptr, size_t size, unsigned int flags))           \
    X(FreeHost, cudaFreeHost, 0, cudaError_t, (void *ptr))                                               \
    X(MallocAsync, cudaMallocAsync, 0, cudaError_t, (void **ptr, size_t size, cudaStream_t stream))      \
    X(FreeAsync, cudaFreeAsync, 0, cudaError_t, (void *ptr, cudaStream_t stream))                        \
    X(MemGetInfo, cudaMemGetInfo, 0, cudaError_t, (size_t *free_bytes, size_t *total_bytes))             \
    X(MemsetAsync, cudaMemsetAsync, 0, cudaError_t, (void *dst, int value, size_t size, cudaStream_t stream)) \
    X(MemcpyAsync, cudaMemcpyAsync, 0, cudaError_t,                                                      \
      (void *dst, const void *src, size_t size, enum cudaMemcpyKind kind, cudaStream_t stream))          \
    X(PointerGetAttributes, cudaPointerGetAttributes, 0, cudaError_t,                                    \
      (struct cudaPointerAttributes * attr, const void *ptr))                                            \
    X(StreamCreateWithFlags, cudaStreamCreateWithFlags, 0, cudaError_t, (cudaStream_t * stream, unsigned int flags)) \
    X(StreamDestroy, cudaStreamDestroy, 0, cudaError_t, (cudaStream_t stream))                           \
    X(StreamSynchronize, cudaStreamSynchronize, 0, cudaError_t, (cudaStream_t stream))                   \
    X(StreamQuery, cudaStreamQuery, 0, cudaError_t, (cudaStream_t stream))                               \
    X(StreamWaitEvent, cudaStreamWaitEvent, 0, cudaError_t, (cudaStream_t stream, cudaEvent_t event, unsigned int flags)) \
    X(StreamAddCallback, cudaStreamAddCallback, 0, cudaError_t,                                          \
      (cudaStream_t stream, cudaStreamCallback_t callback, void *user, unsigned int flags))               \
    X(LaunchHostFunc, cudaLaunchHostFunc, 0, cudaError_t, (cudaStream_t stream, cudaHostFn_t fn, void *user)) \
    X(EventCreateWithFlags, cudaEventCreateWithFlags, 0, cudaError_t, (cudaEvent_t * event, unsigned int flags)) \
    X(EventDestroy, cudaEventDestroy, 0, cudaError_t, (cudaEvent_t event))                               \
    X(EventRecord, cudaEventRecord, 0, cudaError_t, (cudaEvent_t event, cudaStream_t stream))            \
    X(EventQuery, cudaEventQuery, 0, cudaError_t, (cudaEvent_t event))                                   \
    X(EventSynchronize, cudaEventSynchronize, 0, cudaError_t, (cudaEvent_t event))                       \
    X(EventElapsedTime, cudaEventElapsedTime, 0, cudaError_t, (float *ms, cudaEvent_t start, cudaEvent_t end))

/* E(native error, xrt status); every other error is XRT_ERROR_BACKEND. */
#define XRT__CUDA_ERRORS(E)                                              \
    E(cudaErrorInvalidValue, XRT_ERROR_INVALID_VALUE)                    \
    E(cudaErrorMemoryAllocation, XRT_ERROR_OUT_OF_MEMORY)                \
    E(cudaErrorInsufficientDriver, XRT_ERROR_BACKEND_UNAVAILABLE)        \
    E(cudaErrorNoDevice, XRT_ERROR_NO_DEVICE)                            \
    E(cudaErrorInvalidDevice, XRT_ERROR_INVALID_DEVICE)                  \
    E(cudaErrorInvalidDevicePointer, XRT_ERROR_INVALID_POINTER)          \
    E(cudaErrorInvalidMemcpyDirection, XRT_ERROR_INVALID_MEMCPY_KIND)    \
    E(cudaErrorInvalidResourceHandle, XRT_ERROR_INVALID_HANDLE)          \
    E(cudaErrorNotReady, XRT_ERROR_NOT_READY)                            \
    E(cudaErrorNotSupported, XRT_ERROR_UNSUPPORTED)

#define XRT__GPU_ID cuda
#define XRT__GPU_NAME "cuda"
#define XRT__GPU_SYMBOLS XRT__CUDA_SYMBOLS
#define XRT__GPU_ERRORS XRT__CUDA_ERRORS
#define XRT__GPU_LIBRARY_ENV "XRT_CUDA_LIBRARY"
#define XRT__GPU_SONAMES "libcudart.so.13", "libcudart.so.12", "libcudart.so"
#define XRT__GPU_ERROR_T cudaError_t
#define XRT__GPU_STREAM_T cudaStream_t
#define XRT__GPU_EVENT_T cudaEvent_t
#define XRT__GPU_KIND_T enum cudaMemcpyKind
#define XRT__GPU_ATTR_T enum cudaDeviceAttr
#define XRT__GPU_PROP_T struct cudaDeviceProp
#define XRT__GPU_POINTER_T struct cudaPointerAttributes
#define XRT__GPU_STREAM_NON_BLOCKING cudaStreamNonBlocking
#define XRT__GPU_ATTR_POOLS cudaDevAttrMemoryPoolsSupported
#include "xrt_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* >> cuda: hooks */
static xrt_status xrt__cuda_probe(char *reason, size_t n)
{
    /* Nothing cheaper than the runtime tells a driver apart from none (WSL has
       no /dev/nvidia*), and loading libcudart costs under a millisecond. */
    (void)reason;
    (void)n;
    return XRT_SUCCESS;
}

/* The numbers come from attributes: cudaDeviceProp lost fields in CUDA 13,
   moving everything after its head (name, totalGlobalMem), and run-time
   loading may find a runtime of another major version than the header. */
static xrt_status xrt__cuda_fill_prop(xrt_device_prop *out, const struct cudaDeviceProp *p, int device)
{
    int major, minor;
    xrt_status st;
    (void)p;
    if ((st = xrt__cuda_attribute(&major, cudaDevAttrComputeCapabilityMajor, device)) != XRT_SUCCESS ||
        (st = xrt__cuda_attribute(&minor, cudaDevAttrComputeCapabilityMinor, device)) != XRT_SUCCESS ||
        (st = xrt__cuda_attribute(&out->warp_size, cudaDevAttrWarpSize, device)) != XRT_SUCCESS ||
        (st = xrt__cuda_attribute(&out->multiprocessor_count, cudaDevAttrMultiProcessorCount, device)) != XRT_SUCCESS)
        return st;
    snprintf(out->arch, sizeof out->arch, "sm_%d%d", major, minor);
    return XRT_SUCCESS;
}

static xrt_memory_type xrt__cuda_memory_type(const struct cudaPointerAttributes *a)
{
    switch (a->type) {
    case cudaMemoryTypeHost: return XRT_MEMORY_PINNED_HOST; /* page-locked or registered */
    case cudaMemoryTypeDevice: return XRT_MEMORY_DEVICE;
    case cudaMemoryTypeManaged: return XRT_MEMORY_MANAGED;
    default: return XRT_MEMORY_UNKNOWN; /* cudaMemoryTypeUnregistered: plain host memory */
    }
}

#ifdef __cplusplus
}
#endif

#endif /* implementation */
