/* xrt_hip.h - the HIP backend: AMD's HIP runtime (libamdhip64) behind xrt.

   Enabled by XRT_ENABLE_HIP; the XRT_IMPL unit needs the HIP headers and
   -D__HIP_PLATFORM_AMD__. Included by xrt.h in the XRT_IMPL translation
   unit; never include it yourself.

   The runtime is loaded at run time, the first of libamdhip64.so.6, .so.5,
   .so that loads, or the one env XRT_HIP_LIBRARY names. Without /dev/kfd
   (no amdgpu kernel driver) the library is not even loaded: that takes ~15 ms
   and could only fail. Define XRT_NO_RUNTIME_LINKING to call the runtime
   directly and link -lamdhip64.

   The logic is shared with CUDA (xrt_gpu.h); this file holds what is HIP's:
   the symbols, the errors, the types and three hooks.
*/
#if defined(XRT__IMPL_INCLUDED) && !defined(XRT__HIP_IMPL_INCLUDED)
#define XRT__HIP_IMPL_INCLUDED

#ifndef __HIP_PLATFORM_AMD__
#error "the xrt HIP backend needs -D__HIP_PLATFORM_AMD__ (HIP's NVIDIA path is CUDA: use XRT_ENABLE_CUDA)"
#endif

#ifdef XRT_ENABLE_CUDA
/* CUDA's runtime header is in: keep HIP's vector types and dim3 out of its
   way (both define uchar1 .. double4 and struct dim3). Depends on HIP's
   include-guard name; tests/compile/gpu.sh builds this combination. */
#define HIP_INCLUDE_HIP_AMD_DETAIL_HIP_VECTOR_TYPES_H
#define dim3 hip_dim3_t
#include <hip/hip_runtime_api.h>
#undef dim3
#else
#include <hip/hip_runtime_api.h>
#endif

/* X(field, symbol, optional, return type, parameters). hipGetDeviceProperties
   fills the HIP 5 struct in every runtime (HIP 6 added ...R0600 for its own).
   Optional: HIP 5 declares hipLaunchHostFunc without exporting it, and the
   stream-ordered allocator came with HIP 5.1. */
#define XRT__HIP_SYMBOLS(X)                                                                              \
    X(GetErrorName, hipGetErrorName, 0, const char *, (hipError_t error))                                \
    X(GetErrorString, hipGetErrorString, 0, const char *, (hipError_t error))                            \
    X(GetLastError, hipGetLastError, 0, hipError_t, (void))                                              \
    X(RuntimeGetVersion, hipRuntimeGetVersion, 0, hipError_t, (int *version))                            \
    X(GetDeviceCount, hipGetDeviceCount, 0, hipError_t, (int *count))                                    \
    X(SetDevice, hipSetDevice, 0, hipError_t, (int device))                                              \
    X(GetDevice, hipGetDevice, 0, hipError_t, (int *device))                                             \
    X(DeviceSynchronize, hipDeviceSynchronize, 0, hipError_t, (void))                                    \
    X(GetDeviceProperties, hipGetDeviceProperties, 0, hipError_t, (hipDeviceProp_t * prop, int device)) \
    X(DeviceGetAttribute, hipDeviceGetAttribute, 0, hipError_t, (int *value, hipDeviceAttribute_t attr, int device)) \
    X(Malloc, hipMalloc, 0, hipError_t, (void **ptr, size_t size))                                       \
    X(Free, hipFree, 0, hipError_t, (void *ptr))                                                         \
    X(HostAlloc, hipHostMalloc, 0, hipError_t, (void **ptr, size_t size, unsigned int flags))            \
    X(FreeHost, hipHostFree, 0, hipError_t, (void *ptr))                                                 \
    X(MallocAsync, hipMallocAsync, 1, hipError_t, (void **ptr, size_t size, hipStream_t stream))         \
    X(FreeAsync, hipFreeAsync, 1, hipError_t, (void *ptr, hipStream_t stream))                           \
    X(MemGetInfo, hipMemGetInfo, 0, hipError_t, (size_t *free_bytes, size_t *total_bytes))               \
    X(MemsetAsync, hipMemsetAsync, 0, hipError_t, (void *dst, int value, size_t size, hipStream_t stream)) \
    X(MemcpyAsync, hipMemcpyAsync, 0, hipError_t,                                                        \
      (void *dst, const void *src, size_t size, hipMemcpyKind kind, hipStream_t stream))                 \
    X(PointerGetAttributes, hipPointerGetAttributes, 0, hipError_t, (hipPointerAttribute_t * attr, const void *ptr)) \
    X(StreamCreateWithFlags, hipStreamCreateWithFlags, 0, hipError_t, (hipStream_t * stream, unsigned int flags)) \
    X(StreamDestroy, hipStreamDestroy, 0, hipError_t, (hipStream_t stream))                              \
    X(StreamSynchronize, hipStreamSynchronize, 0, hipError_t, (hipStream_t stream))                      \
    X(StreamQuery, hipStreamQuery, 0, hipError_t, (hipStream_t stream))                                  \
    X(StreamWaitEvent, hipStreamWaitEvent, 0, hipError_t, (hipStream_t stream, hipEvent_t event, unsigned int flags)) \
    X(StreamAddCallback, hipStreamAddCallback, 0, hipError_t,                                            \
      (hipStream_t stream, hipStreamCallback_t callback, void *user, unsigned int flags))                \
    X(LaunchHostFunc, hipLaunchHostFunc, 1, hipError_t, (hipStream_t stream, hipHostFn_t fn, void *user)) \
    X(EventCreateWithFlags, hipEventCreateWithFlags, 0, hipError_t, (hipEvent_t * event, unsigned flags)) \
    X(EventDestroy, hipEventDestroy, 0, hipError_t, (hipEvent_t event))                                  \
    X(EventRecord, hipEventRecord, 0, hipError_t, (hipEvent_t event, hipStream_t stream))                \
    X(EventQuery, hipEventQuery, 0, hipError_t, (hipEvent_t event))                                      \
    X(EventSynchronize, hipEventSynchronize, 0, hipError_t, (hipEvent_t event))                          \
    X(EventElapsedTime, hipEventElapsedTime, 0, hipError_t, (float *ms, hipEvent_t start, hipEvent_t end))

/* E(native error, xrt status); every other error is XRT_ERROR_BACKEND.
   hipErrorMemoryAllocation and hipErrorInvalidResourceHandle are aliases. */
#define XRT__HIP_ERRORS(E)                                              \
    E(hipErrorInvalidValue, XRT_ERROR_INVALID_VALUE)                    \
    E(hipErrorOutOfMemory, XRT_ERROR_OUT_OF_MEMORY)                     \
    E(hipErrorInsufficientDriver, XRT_ERROR_BACKEND_UNAVAILABLE)        \
    E(hipErrorNoDevice, XRT_ERROR_NO_DEVICE)                            \
    E(hipErrorInvalidDevice, XRT_ERROR_INVALID_DEVICE)                  \
    E(hipErrorInvalidDevicePointer, XRT_ERROR_INVALID_POINTER)          \
    E(hipErrorInvalidMemcpyDirection, XRT_ERROR_INVALID_MEMCPY_KIND)    \
    E(hipErrorInvalidHandle, XRT_ERROR_INVALID_HANDLE)                  \
    E(hipErrorNotReady, XRT_ERROR_NOT_READY)                            \
    E(hipErrorNotSupported, XRT_ERROR_UNSUPPORTED)

#define XRT__GPU_ID hip
#define XRT__GPU_NAME "hip"
#define XRT__GPU_SYMBOLS XRT__HIP_SYMBOLS
#define XRT__GPU_ERRORS XRT__HIP_ERRORS
#define XRT__GPU_LIBRARY_ENV "XRT_HIP_LIBRARY"
#define XRT__GPU_SONAMES "libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so"
#define XRT__GPU_ERROR_T hipError_t
#define XRT__GPU_STREAM_T hipStream_t
#define XRT__GPU_EVENT_T hipEvent_t
#define XRT__GPU_KIND_T hipMemcpyKind
#define XRT__GPU_ATTR_T hipDeviceAttribute_t
#define XRT__GPU_PROP_T hipDeviceProp_t
#define XRT__GPU_POINTER_T hipPointerAttribute_t
#define XRT__GPU_STREAM_NON_BLOCKING hipStreamNonBlocking
#define XRT__GPU_ATTR_POOLS hipDeviceAttributeMemoryPoolsSupported
#include "xrt_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* >> hip: hooks */
static xrt_status xrt__hip_probe(char *reason, size_t n)
{
    /* Only a missing /dev/kfd means no driver; any other failure (no access
       to /dev, say) is for the runtime to explain. */
    if (access("/dev/kfd", F_OK) == 0 || errno != ENOENT) return XRT_SUCCESS;
    snprintf(reason, n, "no /dev/kfd: no AMD GPU driver");
    return XRT_ERROR_BACKEND_UNAVAILABLE;
}

static xrt_status xrt__hip_fill_prop(xrt_device_prop *out, const hipDeviceProp_t *p, int device)
{
    (void)device;
    out->warp_size = p->warpSize;
    out->multiprocessor_count = p->multiProcessorCount;
    /* "gfx90a:sramecc+:xnack-": the target without its feature flags */
    snprintf(out->arch, sizeof out->arch, "%.*s", (int)strcspn(p->gcnArchName, ":"), p->gcnArchName);
    return XRT_SUCCESS;
}

/* HIP 6 renumbered hipMemoryType (adding Unregistered = 0, Managed = 3) and
   dropped isManaged; the fields before it kept their place. */
static xrt_memory_type xrt__hip_memory_type(const hipPointerAttribute_t *a)
{
    int t = (int)a->memoryType;
    if (xrt__hip_state.version >= 60000000) /* HIP_VERSION: major * 10^7 + minor * 10^5 + patch */
        return t == 1 ? XRT_MEMORY_PINNED_HOST : t == 2 || t == 10 ? XRT_MEMORY_DEVICE
             : t == 3 || t == 11 ? XRT_MEMORY_MANAGED : XRT_MEMORY_UNKNOWN;
    if (a->isManaged) return XRT_MEMORY_MANAGED;
    switch (t) {
    case hipMemoryTypeHost: return XRT_MEMORY_PINNED_HOST;
    case hipMemoryTypeDevice: case hipMemoryTypeArray: return XRT_MEMORY_DEVICE;
    case hipMemoryTypeUnified: return XRT_MEMORY_MANAGED;
    default: return XRT_MEMORY_UNKNOWN;
    }
}

#ifdef __cplusplus
}
#endif

#endif /* implementation */
