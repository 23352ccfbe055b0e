/* SPDX-License-Identifier: MIT */
/* xrt_cuda.h - the CUDA backend: the CUDA runtime (libcudart) behind xrt.

   Enabled by XRT_ENABLE_CUDA; the XRT_IMPL unit needs the CUDA headers
   (-isystem /usr/local/cuda/include). Included by xrt.h in the XRT_IMPL
   translation unit; never include it yourself. Only this unit sees CUDA's
   headers: a .cu file includes xrt.h like any other file.

   The runtime is loaded at run time, the first of libcudart.so.13, .so.12,
   .so that loads, or the one env XRT_CUDA_LIBRARY names; a program built
   with CUDA runs, on the CPU backend, where CUDA is absent. Define
   XRT_NO_RUNTIME_LINKING to call the runtime directly and link -lcudart.

   xrt_mem_export_dmabuf needs the driver API (libcuda.so.1, or the file env
   XRT_CUDA_DRIVER_LIBRARY names), loaded the first time it is used; without
   it the export is unsupported and says why.

   The operations are xrt__gpu_* (xrt_gpu.h); this file holds what is CUDA's:
   the symbol list, the error table, the hooks and xrt__cuda_fill.
*/
/* CUDA's types for the neutral ones of the runtime table's rows
   (XRT__GPU_TYPES, XRT__GPU_RT_FIELDS in xrt_gpu.h): X(name, type). Expanded
   with XRT__CUDA_TYPEDEF after <cuda_runtime_api.h>; outside the
   implementation guard for tests/doubles/cudart_stub.c. */
#ifndef XRT__CUDA_TYPES
#define XRT__CUDA_TYPES(X)                        \
    X(error, cudaError_t)                         \
    X(stream, cudaStream_t)                       \
    X(event, cudaEvent_t)                         \
    X(device_attr, enum cudaDeviceAttr)           \
    X(device_prop, struct cudaDeviceProp *)       \
    X(memcpy_kind, enum cudaMemcpyKind)           \
    X(pointer_attr, struct cudaPointerAttributes *) \
    X(callback, cudaStreamCallback_t)             \
    X(host_fn, cudaHostFn_t)                      \
    X(graph, cudaGraph_t)                         \
    X(graph_exec, cudaGraphExec_t)                \
    X(graph_node, cudaGraphNode_t)                \
    X(capture_mode, enum cudaStreamCaptureMode)   \
    X(capture_status, enum cudaStreamCaptureStatus) \
    X(node_type, enum cudaGraphNodeType)          \
    X(kernel_params, struct cudaKernelNodeParams *) \
    X(kernel_params_in, const struct cudaKernelNodeParams *) \
    X(memset_params, struct cudaMemsetParams *)   \
    X(memset_params_in, const struct cudaMemsetParams *) \
    X(host_params, struct cudaHostNodeParams *)   \
    X(host_params_in, const struct cudaHostNodeParams *) \
    X(memcpy3d, struct cudaMemcpy3DParms *)       \
    X(memcpy3d_in, const struct cudaMemcpy3DParms *) \
    X(memcpy3d_exec_in, const struct cudaMemcpy3DParms *) \
    X(pitched_ptr, struct cudaPitchedPtr)         \
    X(extent, struct cudaExtent)                  \
    X(ipc_mem_handle, cudaIpcMemHandle_t)         \
    X(ipc_event_handle, cudaIpcEventHandle_t)     \
    X(mem_pool, cudaMemPool_t)                    \
    X(pool_props_in, const struct cudaMemPoolProps *) \
    X(pool_attr, enum cudaMemPoolAttr)            \
    X(access_desc_in, const struct cudaMemAccessDesc *) \
    X(access_flags_out, enum cudaMemAccessFlags *) \
    X(mem_location, struct cudaMemLocation *)     \
    X(range_attr, enum cudaMemRangeAttribute)
#define XRT__CUDA_TYPEDEF(name, type) typedef type xrt__cuda_t_##name;
#endif

#if defined(XRT__IMPL_INCLUDED) && !defined(XRT__CUDA_IMPL_INCLUDED)
#define XRT__CUDA_IMPL_INCLUDED

#if defined(__has_include)
#if !__has_include(<cuda_runtime_api.h>)
#error "XRT_ENABLE_CUDA: cuda_runtime_api.h not found: add the CUDA Toolkit's include directory to this unit's flags (-isystem /usr/local/cuda/include; CMake: find_package(xrt COMPONENTS cuda)), or do not define XRT_ENABLE_CUDA"
#endif
#endif

#include <cuda.h> /* the driver API, for the dma-buf export */
#include <cuda_runtime_api.h>
#include <pthread.h>

#include "xrt_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* >> cuda: the runtime's symbols: the CUDA columns of XRT__GPU_RT_FIELDS
   (xrt_gpu.h), in CUDA's types. Every row's prototype is checked against
   cuda_runtime_api.h (XRT__GPU_SAME_TYPE), so a drift fails to compile;
   cudaGetDeviceProperties keeps one name across versions, its struct does
   not (see xrt__cuda_fill_prop). */
#define XRT__GPU_VENDOR cuda
XRT__CUDA_TYPES(XRT__CUDA_TYPEDEF)
#define XRT__CUDA_SAME_SIZE(name, type) \
    XRT__GPU_ASSERT(sizeof(xrt__cuda_t_##name) == sizeof(xrt__gpu_t_##name), "CUDA's " #type " is not the size of xrt's");
XRT__CUDA_TYPES(XRT__CUDA_SAME_SIZE)
#undef XRT__CUDA_SAME_SIZE

#define XRT__CUDA_TYPE(field, sym, optional, hip, hip_optional, ret, params) \
    XRT__GPU_SAME_TYPE(xrt__cuda_type_##field, ret(*) params, sym)
XRT__GPU_RT_FIELDS(XRT__CUDA_TYPE)
#undef XRT__CUDA_TYPE

#define XRT__CUDA_SYM(field, sym, optional, hip, hip_optional, ret, params) {#sym, XRT__GPU_CALL(field), optional},
static const xrt__gpu_sym xrt__cuda_syms[] = {XRT__GPU_RT_FIELDS(XRT__CUDA_SYM)};
#undef XRT__CUDA_SYM

#ifdef XRT_NO_RUNTIME_LINKING
/* Optional symbols: redeclared weak, so a library without them links and they are NULL. */
#define XRT__CUDA_WEAK_0(sym, ret, params)
#define XRT__CUDA_WEAK_1(sym, ret, params) ret sym params __attribute__((weak));
#define XRT__CUDA_WEAK(field, sym, optional, hip, hip_optional, ret, params) XRT__CUDA_WEAK_##optional(sym, ret, params)
XRT__GPU_RT_FIELDS(XRT__CUDA_WEAK)
#undef XRT__CUDA_WEAK
#undef XRT__CUDA_WEAK_0
#undef XRT__CUDA_WEAK_1

/* The entry points of the linked runtime, each through a pointer of its
   CUDA prototype, copied into the neutral field. */
static void xrt__cuda_link(xrt__gpu *g)
{
#define XRT__CUDA_LINK(field, sym, optional, hip, hip_optional, ret, params) \
    {                                                                       \
        ret(*checked_) params = &sym;                                       \
        memcpy(&g->rt.field, &checked_, sizeof checked_);                   \
    }
    XRT__GPU_RT_FIELDS(XRT__CUDA_LINK)
#undef XRT__CUDA_LINK
}
#endif
#undef XRT__GPU_VENDOR

/* >> cuda: errors. Every other error is XRT_ERROR_BACKEND. */
static const xrt__gpu_error xrt__cuda_errors[] = {
    {cudaErrorInvalidValue, XRT_ERROR_INVALID_VALUE},
    {cudaErrorMemoryAllocation, XRT_ERROR_OUT_OF_MEMORY},
    {cudaErrorInsufficientDriver, XRT_ERROR_BACKEND_UNAVAILABLE},
    {cudaErrorNoDevice, XRT_ERROR_NO_DEVICE},
    {cudaErrorInvalidDevice, XRT_ERROR_INVALID_DEVICE},
    {cudaErrorInvalidDevicePointer, XRT_ERROR_INVALID_POINTER},
    {cudaErrorInvalidMemcpyDirection, XRT_ERROR_INVALID_MEMCPY_KIND},
    {cudaErrorInvalidResourceHandle, XRT_ERROR_INVALID_HANDLE},
    {cudaErrorNotReady, XRT_ERROR_NOT_READY},
    {cudaErrorNotSupported, XRT_ERROR_UNSUPPORTED},
    {cudaErrorUnsupportedLimit, XRT_ERROR_UNSUPPORTED},
    {cudaErrorIllegalState, XRT_ERROR_ILLEGAL_STATE},
    {cudaErrorStreamCaptureUnsupported, XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED},
    {cudaErrorStreamCaptureInvalidated, XRT_ERROR_STREAM_CAPTURE_INVALIDATED},
    {cudaErrorStreamCaptureMerge, XRT_ERROR_STREAM_CAPTURE_MERGE},
    {cudaErrorStreamCaptureUnmatched, XRT_ERROR_STREAM_CAPTURE_UNMATCHED},
    {cudaErrorStreamCaptureUnjoined, XRT_ERROR_STREAM_CAPTURE_UNJOINED},
    {cudaErrorStreamCaptureIsolation, XRT_ERROR_STREAM_CAPTURE_ISOLATION},
    {cudaErrorStreamCaptureImplicit, XRT_ERROR_STREAM_CAPTURE_IMPLICIT}, /* the legacy stream would join a capture */
    {cudaErrorCapturedEvent, XRT_ERROR_CAPTURED_EVENT},
    {cudaErrorStreamCaptureWrongThread, XRT_ERROR_STREAM_CAPTURE_WRONG_THREAD},
    {cudaErrorGraphExecUpdateFailure, XRT_ERROR_GRAPH_EXEC_UPDATE_FAILURE},
    {cudaErrorPeerAccessAlreadyEnabled, XRT_ERROR_PEER_ACCESS_ALREADY_ENABLED},
    {cudaErrorPeerAccessNotEnabled, XRT_ERROR_PEER_ACCESS_NOT_ENABLED},
    {cudaErrorHostMemoryAlreadyRegistered, XRT_ERROR_HOST_MEMORY_ALREADY_REGISTERED},
    {cudaErrorHostMemoryNotRegistered, XRT_ERROR_HOST_MEMORY_NOT_REGISTERED},
};

/* xrt's capture modes and statuses are CUDA's. */
/* xrt's stream flags are CUDA's. */
XRT__GPU_ASSERT((int)cudaStreamDefault == (int)XRT_STREAM_DEFAULT && (int)cudaStreamNonBlocking == (int)XRT_STREAM_NON_BLOCKING,
                "cudaStreamNonBlocking");
XRT__GPU_ASSERT((int)cudaStreamCaptureModeGlobal == (int)XRT_CAPTURE_MODE_GLOBAL &&
                    (int)cudaStreamCaptureModeThreadLocal == (int)XRT_CAPTURE_MODE_THREAD_LOCAL &&
                    (int)cudaStreamCaptureModeRelaxed == (int)XRT_CAPTURE_MODE_RELAXED,
                "cudaStreamCaptureMode");
XRT__GPU_ASSERT((int)cudaStreamCaptureStatusNone == (int)XRT_CAPTURE_STATUS_NONE &&
                    (int)cudaStreamCaptureStatusActive == (int)XRT_CAPTURE_STATUS_ACTIVE &&
                    (int)cudaStreamCaptureStatusInvalidated == (int)XRT_CAPTURE_STATUS_INVALIDATED,
                "cudaStreamCaptureStatus");
/* xrt's event record and wait flags are CUDA's (passed on as they are). */
XRT__GPU_ASSERT((int)cudaEventRecordDefault == (int)XRT_EVENT_RECORD_DEFAULT &&
                    (int)cudaEventRecordExternal == (int)XRT_EVENT_RECORD_EXTERNAL &&
                    (int)cudaEventWaitDefault == (int)XRT_EVENT_WAIT_DEFAULT &&
                    (int)cudaEventWaitExternal == (int)XRT_EVENT_WAIT_EXTERNAL,
                "cudaEventRecordExternal");

/* >> cuda: hooks */
static xrt_status xrt__cuda_probe(char *reason, size_t n)
{
    /* Nothing cheaper than the runtime tells a driver apart from none (WSL has
       no /dev/nvidia*), and loading libcudart costs under a millisecond. */
    (void)reason;
    (void)n;
    return XRT_SUCCESS;
}

/* cudart says "CUDA driver version is insufficient" also when there is no
   driver at all (no libcuda.so.1): say which. */
static int xrt__cuda_no_driver(const xrt__gpu *g, int e, char *reason, size_t n)
{
    const char *env = xrt__getenv_code("XRT_CUDA_DRIVER_LIBRARY");
    const char *file = env && env[0] ? env : "libcuda.so.1";
    void *lib;
    (void)g;
    if (e != cudaErrorInsufficientDriver) return 0;
    if ((lib = dlopen(file, RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD)) != NULL) {
        dlclose(lib);
        return 0;
    }
    if ((lib = dlopen(file, RTLD_LAZY | RTLD_LOCAL | RTLD_NODELETE)) != NULL) {
        dlclose(lib);
        return 0;
    }
    snprintf(reason, n, "no NVIDIA driver: %s not found", file);
    return 1;
}

/* The numbers come from attributes: cudaDeviceProp lost fields in CUDA 13,
   moving everything after its head (name, totalGlobalMem), and run-time
   loading may find a runtime of another major version than the header. */
static xrt_status xrt__cuda_fill_prop(const xrt__gpu *g, xrt_device_prop *out, const void *prop, int device)
{
    int major, minor;
    xrt_status st;
    memcpy(&out->total_memory, (const char *)prop + offsetof(struct cudaDeviceProp, totalGlobalMem),
           sizeof out->total_memory);
    if ((st = xrt__gpu_attribute(g, &major, cudaDevAttrComputeCapabilityMajor, device)) != XRT_SUCCESS ||
        (st = xrt__gpu_attribute(g, &minor, cudaDevAttrComputeCapabilityMinor, device)) != XRT_SUCCESS ||
        (st = xrt__gpu_attribute(g, &out->warp_size, cudaDevAttrWarpSize, device)) != XRT_SUCCESS ||
        (st = xrt__gpu_attribute(g, &out->multiprocessor_count, cudaDevAttrMultiProcessorCount, device)) != XRT_SUCCESS)
        return st;
    snprintf(out->arch, sizeof out->arch, "sm_%d%d", major, minor);
    memcpy(out->uuid, (const char *)prop + offsetof(struct cudaDeviceProp, uuid), sizeof out->uuid);
    return XRT_SUCCESS;
}
XRT__GPU_ASSERT(offsetof(struct cudaDeviceProp, totalGlobalMem) == 288, "cudaDeviceProp's head moved");

/* cudaPointerAttributes has had this layout since CUDA 11. */
XRT__GPU_ASSERT(sizeof(struct cudaPointerAttributes) <= XRT__GPU_POINTER_ATTR_BYTES,
                "cudaPointerAttributes is larger than the part xrt clears");
static xrt_memory_type xrt__cuda_memory_type(const xrt__gpu *g, const void *attr, int *device)
{
    struct cudaPointerAttributes a;
    (void)g;
    memcpy(&a, attr, sizeof a);
    *device = a.device;
    switch (a.type) {
    case cudaMemoryTypeHost: return XRT_MEMORY_PINNED_HOST; /* page-locked or registered */
    case cudaMemoryTypeDevice: return XRT_MEMORY_DEVICE;
    case cudaMemoryTypeManaged: return XRT_MEMORY_MANAGED;
    default: return XRT_MEMORY_UNKNOWN; /* cudaMemoryTypeUnregistered: plain host memory */
    }
}

/* >> cuda: the driver API (libcuda.so.1: modules, launches, dma-buf export) */

/* The driver's entry points, vendor-neutral as xrt__gpu_rt (CUresult is int,
   CUdevice int, CUdeviceptr unsigned long long). */
typedef struct xrt__cuda_driver {
    void *lib; /* set last: a loaded table is complete */
    int (*Init)(unsigned flags);
    int (*GetErrorName)(int error, const char **name);
    int (*GetErrorString)(int error, const char **text);
    int (*DeviceGet)(int *device, int ordinal);
    int (*DeviceGetAttribute)(int *value, int attr, int device);
    int (*CtxGetCurrent)(void **ctx);
    int (*MemGetHandleForAddressRange)(void *handle, unsigned long long ptr, size_t size, int type,
                                       unsigned long long flags);
    int (*ModuleLoadDataEx)(void **module, const void *image, unsigned n, int *options, void **values);
    int (*ModuleUnload)(void *module);
    int (*ModuleGetFunction)(void **function, void *module, const char *name);
    int (*LaunchKernel)(void *function, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, void *stream, void **params, void **extra);
    int (*FuncGetAttribute)(int *value, int attr, void *function);
    int (*MemGetAddressRange)(unsigned long long *base, size_t *size, unsigned long long ptr);
    int (*LibraryLoadData)(void **library, const void *code, int *options, void **values, unsigned n,
                           int *library_options, void **library_values, unsigned library_n);
    int (*LibraryUnload)(void *library);
    int (*LibraryGetKernel)(void **kernel, void *library, const char *name);
    int (*KernelGetFunction)(void **function, void *kernel);
    /* CUDA 12.4 drivers; looked up by name, as older headers lack them */
    int (*FuncGetParamInfo)(void *function, size_t index, size_t *offset, size_t *size);
    int (*KernelGetParamInfo)(void *kernel, size_t index, size_t *offset, size_t *size);
    int (*LibraryGetKernelCount)(unsigned *count, void *library);
    int (*ModuleGetGlobal)(unsigned long long *ptr, size_t *bytes, void *module, const char *name);
    int (*LibraryGetGlobal)(unsigned long long *ptr, size_t *bytes, void *library, const char *name);
    int (*FuncSetAttribute)(void *function, int attr, int value);
    int (*FuncSetCacheConfig)(void *function, int config);
    int (*OccupancyMaxActiveBlocksPerMultiprocessor)(int *blocks, void *function, int block_size, size_t shared);
    int (*OccupancyMaxPotentialBlockSize)(int *min_grid, int *block, void *function, size_t (*to_shared)(int),
                                          size_t shared, int limit);
    int (*MemsetD2D16Async)(unsigned long long dst, size_t pitch, unsigned short value, size_t width, size_t height,
                            void *stream);
    int (*MemsetD2D32Async)(unsigned long long dst, size_t pitch, unsigned value, size_t width, size_t height,
                            void *stream);
    int (*MemsetD2D16)(unsigned long long dst, size_t pitch, unsigned short value, size_t width, size_t height);
    int (*MemsetD2D32)(unsigned long long dst, size_t pitch, unsigned value, size_t width, size_t height);
    int (*LaunchKernelEx)(const void *config, void *function, void **params, void **extra); /* CUDA 12 */
} xrt__cuda_driver;

/* X(field of xrt__cuda_driver, symbol, optional, return type, parameters).
   cuMemGetHandleForAddressRange came with CUDA 11.7 drivers. The types are
   checked against cuda.h in every build (the driver is never linked). */
#define XRT__CUDA_DRIVER_SYMBOLS(X)                                                                        \
    X(Init, cuInit, 0, CUresult, (unsigned int flags))                                                     \
    X(GetErrorName, cuGetErrorName, 0, CUresult, (CUresult error, const char **name))                      \
    X(GetErrorString, cuGetErrorString, 0, CUresult, (CUresult error, const char **text))                  \
    X(DeviceGet, cuDeviceGet, 0, CUresult, (CUdevice * device, int ordinal))                               \
    X(DeviceGetAttribute, cuDeviceGetAttribute, 0, CUresult, (int *value, CUdevice_attribute attr, CUdevice device)) \
    X(CtxGetCurrent, cuCtxGetCurrent, 1, CUresult, (CUcontext * ctx))                                      \
    X(MemGetAddressRange, cuMemGetAddressRange_v2, 1, CUresult, (CUdeviceptr * base, size_t *size, CUdeviceptr ptr)) \
    X(MemGetHandleForAddressRange, cuMemGetHandleForAddressRange, 1, CUresult,                             \
      (void *handle, CUdeviceptr ptr, size_t size, CUmemRangeHandleType type, unsigned long long flags))   \
    X(ModuleLoadDataEx, cuModuleLoadDataEx, 1, CUresult,                                                   \
      (CUmodule * module, const void *image, unsigned int n, CUjit_option *options, void **values))        \
    X(ModuleUnload, cuModuleUnload, 1, CUresult, (CUmodule module))                                        \
    X(ModuleGetFunction, cuModuleGetFunction, 1, CUresult, (CUfunction * function, CUmodule module, const char *name)) \
    X(LaunchKernel, cuLaunchKernel, 1, CUresult,                                                           \
      (CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by,  \
       unsigned int bz, unsigned int shared, CUstream stream, void **params, void **extra))                \
    X(FuncGetAttribute, cuFuncGetAttribute, 1, CUresult, (int *value, CUfunction_attribute attr, CUfunction f)) \
    X(LibraryLoadData, cuLibraryLoadData, 1, CUresult,                                                     \
      (CUlibrary * library, const void *code, CUjit_option *options, void **values, unsigned int n,        \
       CUlibraryOption *library_options, void **library_values, unsigned int library_n))                   \
    X(LibraryUnload, cuLibraryUnload, 1, CUresult, (CUlibrary library))                                    \
    X(LibraryGetKernel, cuLibraryGetKernel, 1, CUresult, (CUkernel * kernel, CUlibrary library, const char *name)) \
    X(KernelGetFunction, cuKernelGetFunction, 1, CUresult, (CUfunction * function, CUkernel kernel))       \
    X(ModuleGetGlobal, cuModuleGetGlobal_v2, 1, CUresult,                                                  \
      (CUdeviceptr * ptr, size_t *bytes, CUmodule module, const char *name))                               \
    X(LibraryGetGlobal, cuLibraryGetGlobal, 1, CUresult,                                                   \
      (CUdeviceptr * ptr, size_t *bytes, CUlibrary library, const char *name))                             \
    X(FuncSetAttribute, cuFuncSetAttribute, 1, CUresult, (CUfunction f, CUfunction_attribute attr, int value)) \
    X(FuncSetCacheConfig, cuFuncSetCacheConfig, 1, CUresult, (CUfunction f, CUfunc_cache config))         \
    X(OccupancyMaxActiveBlocksPerMultiprocessor, cuOccupancyMaxActiveBlocksPerMultiprocessor, 1, CUresult, \
      (int *blocks, CUfunction f, int block_size, size_t shared))                                          \
    X(OccupancyMaxPotentialBlockSize, cuOccupancyMaxPotentialBlockSize, 1, CUresult,                       \
      (int *min_grid, int *block, CUfunction f, CUoccupancyB2DSize to_shared, size_t shared, int limit))    \
    X(MemsetD2D16Async, cuMemsetD2D16Async, 1, CUresult,                                                   \
      (CUdeviceptr dst, size_t pitch, unsigned short value, size_t width, size_t height, CUstream stream)) \
    X(MemsetD2D32Async, cuMemsetD2D32Async, 1, CUresult,                                                   \
      (CUdeviceptr dst, size_t pitch, unsigned int value, size_t width, size_t height, CUstream stream))   \
    X(MemsetD2D16, cuMemsetD2D16_v2, 1, CUresult,                                                          \
      (CUdeviceptr dst, size_t pitch, unsigned short value, size_t width, size_t height))                  \
    X(MemsetD2D32, cuMemsetD2D32_v2, 1, CUresult,                                                          \
      (CUdeviceptr dst, size_t pitch, unsigned int value, size_t width, size_t height))                    \
    X(LaunchKernelEx, cuLaunchKernelEx, 1, CUresult,                                                       \
      (const CUlaunchConfig *config, CUfunction f, void **params, void **extra))

#define XRT__CUDA_DRIVER_SYM(field, sym, optional, ret, params) {#sym, offsetof(xrt__cuda_driver, field), optional},
static const xrt__gpu_sym xrt__cuda_driver_syms[] = {XRT__CUDA_DRIVER_SYMBOLS(XRT__CUDA_DRIVER_SYM)};
#undef XRT__CUDA_DRIVER_SYM

/* Unevaluated (sizeof), so the driver need not be linked. */
#define XRT__CUDA_DRIVER_TYPE(field, sym, optional, ret, params) \
    typedef char xrt__cuda_driver_type_##field[sizeof((ret(*) params)0 == &sym)];
XRT__CUDA_DRIVER_SYMBOLS(XRT__CUDA_DRIVER_TYPE)
#undef XRT__CUDA_DRIVER_TYPE

static const xrt__gpu_error xrt__cuda_driver_errors[] = {
    {CUDA_ERROR_INVALID_VALUE, XRT_ERROR_INVALID_VALUE},
    {CUDA_ERROR_OUT_OF_MEMORY, XRT_ERROR_OUT_OF_MEMORY},
    {CUDA_ERROR_NO_DEVICE, XRT_ERROR_NO_DEVICE},
    {CUDA_ERROR_INVALID_DEVICE, XRT_ERROR_INVALID_DEVICE},
    {CUDA_ERROR_NOT_SUPPORTED, XRT_ERROR_UNSUPPORTED},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, XRT_ERROR_NO_BINARY_FOR_DEVICE},
    {CUDA_ERROR_INVALID_IMAGE, XRT_ERROR_INVALID_IMAGE},
    {CUDA_ERROR_INVALID_PTX, XRT_ERROR_INVALID_IMAGE},
    {CUDA_ERROR_UNSUPPORTED_PTX_VERSION, XRT_ERROR_INVALID_IMAGE},
    {CUDA_ERROR_NOT_FOUND, XRT_ERROR_NOT_FOUND},
    {CUDA_ERROR_INVALID_HANDLE, XRT_ERROR_INVALID_HANDLE},
    {CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED},
    {CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, XRT_ERROR_STREAM_CAPTURE_INVALIDATED},
    {CUDA_ERROR_STREAM_CAPTURE_MERGE, XRT_ERROR_STREAM_CAPTURE_MERGE},
    {CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, XRT_ERROR_STREAM_CAPTURE_UNMATCHED},
    {CUDA_ERROR_STREAM_CAPTURE_UNJOINED, XRT_ERROR_STREAM_CAPTURE_UNJOINED},
    {CUDA_ERROR_STREAM_CAPTURE_ISOLATION, XRT_ERROR_STREAM_CAPTURE_ISOLATION},
    {CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, XRT_ERROR_STREAM_CAPTURE_IMPLICIT},
    {CUDA_ERROR_CAPTURED_EVENT, XRT_ERROR_CAPTURED_EVENT},
    {CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, XRT_ERROR_STREAM_CAPTURE_WRONG_THREAD},
};

static xrt__cuda_driver xrt__cuda_drv; /* loaded on first use, kept for the process */
static pthread_mutex_t xrt__cuda_drv_lock = PTHREAD_MUTEX_INITIALIZER;

/* A failed driver call in xrt_<op>: the detail names both, as the runtime's
   do ("xrt_launch_kernel: cuda: cuLaunchKernel: ..."). */
static xrt_status xrt__cuda_driver_fail(const xrt__cuda_driver *d, int e, const char *call, const char *op) XRT__COLD;
static xrt_status xrt__cuda_driver_fail(const xrt__cuda_driver *d, int e, const char *call, const char *op)
{
    const char *name = NULL, *text = NULL;
    char who[96];
    snprintf(who, sizeof who, "xrt_%.64s: cuda", op);
    if (d->GetErrorName(e, &name) != CUDA_SUCCESS) name = NULL;
    if (d->GetErrorString(e, &text) != CUDA_SUCCESS) text = NULL;
    return xrt_native_error(xrt__gpu_error_status(xrt__cuda_driver_errors, sizeof xrt__cuda_driver_errors /
                                                  sizeof xrt__cuda_driver_errors[0], e),
                            who, call, e, name, text);
}

/* Entry points not every cuda.h declares (so not in the type-checked list);
   optional, so binding them cannot fail. */
static void xrt__cuda_driver_extra(xrt__cuda_driver *d, void *lib)
{
    const xrt__dl_sym syms[] = {{"cuFuncGetParamInfo", &d->FuncGetParamInfo, 1},
                                {"cuKernelGetParamInfo", &d->KernelGetParamInfo, 1},
                                {"cuLibraryGetKernelCount", &d->LibraryGetKernelCount, 1}};
    char reason[96]; /* unused: every symbol is optional */
    (void)xrt__dl_bind(lib, syms, sizeof syms / sizeof syms[0], reason, sizeof reason);
}

/* Opens the driver into *d; on failure says why. */
static int xrt__cuda_driver_open(xrt__cuda_driver *d, char *reason, size_t n)
{
    static const char *const sonames[] = {"libcuda.so.1", NULL};
    void *lib = xrt__dl_open("XRT_CUDA_DRIVER_LIBRARY", sonames, reason, n);
    const char *name = NULL, *text = NULL;
    int e;
    memset(d, 0, sizeof *d);
    if (!lib) return 0;
    if (!xrt__gpu_bind(d, xrt__cuda_driver_syms, sizeof xrt__cuda_driver_syms / sizeof xrt__cuda_driver_syms[0], lib,
                       reason, n)) {
        dlclose(lib);
        return 0;
    }
    if ((e = d->Init(0)) != CUDA_SUCCESS) {
        (void)d->GetErrorName(e, &name);
        (void)d->GetErrorString(e, &text);
        snprintf(reason, n, "cuInit: %s (%s=%d)", text ? text : "?", name ? name : "code", e);
        dlclose(lib);
        return 0;
    }
    xrt__cuda_driver_extra(d, lib);
    xrt__gpu_pin(lib, "cuInit");
    d->lib = lib;
    return 1;
}

/* The driver, loaded on first use; NULL and the reason if it cannot be. A
   failure is not remembered: exports are rare (RDMA registration). */
static const xrt__cuda_driver *xrt__cuda_driver_get(char *reason, size_t n)
{
    if (!__atomic_load_n(&xrt__cuda_drv.lib, __ATOMIC_ACQUIRE)) {
        xrt__cuda_driver d;
        pthread_mutex_lock(&xrt__cuda_drv_lock);
        if (!xrt__cuda_drv.lib && xrt__cuda_driver_open(&d, reason, n)) {
            void *lib = d.lib;
            d.lib = NULL;
            xrt__cuda_drv = d;
            __atomic_store_n(&xrt__cuda_drv.lib, lib, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&xrt__cuda_drv_lock);
    }
    return __atomic_load_n(&xrt__cuda_drv.lib, __ATOMIC_ACQUIRE) ? &xrt__cuda_drv : NULL;
}

static xrt_status xrt__cuda_export_dmabuf(xrt__gpu *g, int device, void *start, size_t len, int *fd)
{
    static const char who[] = "cuda: xrt_mem_export_dmabuf";
    const xrt__cuda_driver *d;
    char reason[256] = "";
    int dev = 0, supported = 0, e;
    (void)g;
    if (!(d = xrt__cuda_driver_get(reason, sizeof reason)))
        return xrt_error(XRT_ERROR_UNSUPPORTED, who, "no CUDA driver API: %s", reason);
    if (!d->MemGetHandleForAddressRange)
        return xrt_error(XRT_ERROR_UNSUPPORTED, who,
                         "the CUDA driver has no cuMemGetHandleForAddressRange (it came with CUDA 11.7)");
    if ((e = d->DeviceGet(&dev, device)) != CUDA_SUCCESS) return xrt__cuda_driver_fail(d, e, "cuDeviceGet", "mem_export_dmabuf");
    if ((e = d->DeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, dev)) != CUDA_SUCCESS)
        return xrt__cuda_driver_fail(d, e, "cuDeviceGetAttribute", "mem_export_dmabuf");
    if (!supported)
        return xrt_error(XRT_ERROR_UNSUPPORTED, who,
                         "device %d cannot export dma-bufs (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED is 0)", device);
    e = d->MemGetHandleForAddressRange(fd, (unsigned long long)(uintptr_t)start, len, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
    return e == CUDA_SUCCESS ? XRT_SUCCESS : xrt__cuda_driver_fail(d, e, "cuMemGetHandleForAddressRange", "mem_export_dmabuf");
}

/* The allocation around memory the runtime made for another than xrt:
   cuMemGetAddressRange (the runtime has no such call). A driver that cannot
   be loaded is not looked for again for this: the question comes with
   every copy of such memory. */
static int xrt__cuda_no_range; /* the driver could not be loaded */
static void xrt__cuda_address_range(const xrt__gpu *g, const void *p, void **base, size_t *size)
{
    const xrt__cuda_driver *d = NULL;
    unsigned long long b = 0;
    size_t n = 0;
    char reason[256];
    (void)g;
    if (__atomic_load_n(&xrt__cuda_no_range, __ATOMIC_RELAXED)) return;
    if (!(d = xrt__cuda_driver_get(reason, sizeof reason))) __atomic_store_n(&xrt__cuda_no_range, 1, __ATOMIC_RELAXED);
    if (!d || !d->MemGetAddressRange || d->MemGetAddressRange(&b, &n, (unsigned long long)(uintptr_t)p) != CUDA_SUCCESS)
        return;
    *base = (void *)(uintptr_t)b;
    *size = n;
}

/* >> cuda: modules, through the driver API (libcuda.so.1, loaded at run
   time): a library (cuLibraryLoadData, CUDA 12 drivers: one load for every
   device, launched as a CUkernel) where the driver has it, else a module
   (cuModuleLoadDataEx) in the current device's primary context (the
   runtime's); cuLaunchKernel with the packed arguments
   (CU_LAUNCH_PARAM_BUFFER_POINTER) on the stream's native handle. */
static int xrt__cuda_has_libraries(const xrt__cuda_driver *d)
{
    return d->LibraryLoadData && d->LibraryUnload && d->LibraryGetKernel && d->KernelGetFunction;
}

static const xrt__cuda_driver *xrt__cuda_modules(const char *who)
{
    const xrt__cuda_driver *d;
    char reason[256] = "";
    if (!(d = xrt__cuda_driver_get(reason, sizeof reason))) {
        xrt_error(XRT_ERROR_UNSUPPORTED, who, "no CUDA driver API: %s", reason);
        return NULL;
    }
    if (!d->ModuleLoadDataEx || !d->ModuleUnload || !d->ModuleGetFunction || !d->LaunchKernel || !d->FuncGetAttribute) {
        xrt_error(XRT_ERROR_UNSUPPORTED, who, "the CUDA driver lacks the module entry points (cuModuleLoadDataEx & co)");
        return NULL;
    }
    return d;
}

/* sm_XY or compute_XY as XY (sm_100: 100), -1 if not one of those; *suffix
   is the letter after it, if any: 'a' (sm_90a: that arch's own features,
   for that arch alone) or 'f' (sm_100f: its family's, the same major arch),
   else 0. */
static int xrt__cuda_arch_number(const char *arch, const char *prefix, char *suffix)
{
    size_t n = strlen(prefix);
    char *end;
    long v;
    *suffix = 0;
    if (!arch || strncmp(arch, prefix, n) != 0) return -1;
    v = strtol(arch + n, &end, 10);
    if (end == arch + n || v <= 0 || v > 10000) return -1;
    if ((*end == 'a' || *end == 'f') && !end[1]) *suffix = *end++;
    return *end ? -1 : (int)v;
}

/* A cubin runs on the same major arch with an equal or newer minor; PTX
   is JIT-compiled for its arch or newer; an 'a' arch (either) only on that
   arch; a fatbin: the driver decides. */
static int xrt__cuda_image_compatible(const xrt_target *t, const xrt_module_image *im)
{
    char ds, is;
    int dev = xrt__cuda_arch_number(t->arch, "sm_", &ds), v;
    if (im->kind == XRT_IMAGE_CUDA_FATBIN) return 1;
    if (dev < 0) return 0;
    v = xrt__cuda_arch_number(im->arch, im->kind == XRT_IMAGE_CUDA_PTX ? "compute_" : "sm_", &is);
    if (v <= 0) return 0;
    if (is == 'a') return v == dev;
    if (im->kind == XRT_IMAGE_CUDA_PTX && is != 'f') return v <= dev;
    return v / 10 == dev / 10 && v <= dev;
}

/* >> cuda: images. The driver takes no size and tells an image's format
   from its bytes: an ELF (a cubin) or a fatbin it reads as far as its own
   headers say, anything else as PTX text, to its NUL. So xrt reads a cubin
   or fatbin within its size first, refuses an image that is not what its
   kind says, and hands the driver a copy that ends in a NUL. */
#define XRT__CUDA_EM_CUDA 190
#define XRT__CUDA_FATBIN_MAGIC 0xBA55ED50u

/* A fatbin (nvcc -fatbin): a header (magic 0xBA55ED50, version (2 bytes),
   the header's size (2), the size of the entries after it (8)), then the
   entries, each a header (kind (2), version (2), the header's size (4), the
   payload's size (8), ...) and its payload. 0 when all of it lies within
   size bytes, or 1 and why. */
static int xrt__cuda_fatbin_bad(const unsigned char *p, size_t size, char *why, size_t n)
{
    uint64_t header, end, at, i, entry, payload;
    if (size < 4 || xrt__gpu_le(p, 4) != XRT__CUDA_FATBIN_MAGIC)
        return snprintf(why, n, "not a fatbin (no magic 0x%x)", XRT__CUDA_FATBIN_MAGIC) > 0;
    if (size < 16) return snprintf(why, n, "a fatbin cut short: %zu bytes, less than its header", size) > 0;
    header = xrt__gpu_le(p + 6, 2);
    end = xrt__gpu_end(header, xrt__gpu_le(p + 8, 8));
    if (header < 16) return snprintf(why, n, "a fatbin with a %u-byte header", (unsigned)header) > 0;
    if (end > size)
        return snprintf(why, n, "a fatbin cut short: %zu bytes, its header declares %llu", size, (unsigned long long)end) > 0;
    for (at = header, i = 0; at < end; at += entry + payload, i++) {
        entry = xrt__gpu_within(at, 16, (size_t)end) ? xrt__gpu_le(p + at + 4, 4) : 0;
        payload = entry ? xrt__gpu_le(p + at + 8, 8) : 0;
        if (entry < 16 || !xrt__gpu_within(at, entry, (size_t)end) || !xrt__gpu_within(at + entry, payload, (size_t)end))
            return snprintf(why, n, "a fatbin whose entry %u ends past the %llu bytes its header declares", (unsigned)i,
                            (unsigned long long)end) > 0;
    }
    return 0;
}

/* Whether PTX text (to its NUL, within size) begins, after white space and
   comments, with the .version directive that begins every PTX module. */
static int xrt__cuda_ptx_begins(const char *p, size_t size)
{
    size_t i = 0;
    while (i < size && p[i]) {
        if (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r') i++;
        else if (i + 1 < size && p[i] == '/' && p[i + 1] == '/')
            while (i < size && p[i] && p[i] != '\n') i++;
        else if (i + 1 < size && p[i] == '/' && p[i + 1] == '*') {
            for (i += 2; i + 1 < size && p[i] && !(p[i] == '*' && p[i + 1] == '/'); i++) {}
            i += 2;
        } else return size - i >= 8 && !memcmp(p + i, ".version", 8);
    }
    return 0;
}

/* The kind an image's bytes are, as the driver tells them. */
static xrt_image_kind xrt__cuda_image_format(const unsigned char *p, size_t size)
{
    if (size >= 4 && !memcmp(p, "\177ELF", 4)) return XRT_IMAGE_CUDA_CUBIN;
    if (size >= 4 && xrt__gpu_le(p, 4) == XRT__CUDA_FATBIN_MAGIC) return XRT_IMAGE_CUDA_FATBIN;
    return XRT_IMAGE_CUDA_PTX;
}

/* XRT_SUCCESS, or XRT_ERROR_INVALID_IMAGE saying what the image is. */
static xrt_status xrt__cuda_image_check(const xrt_module_image *im)
{
    const unsigned char *p = (const unsigned char *)im->data;
    xrt_image_kind f = xrt__cuda_image_format(p, im->size);
    char why[200];
    int bad;
    if (f != im->kind && f != XRT_IMAGE_CUDA_PTX)
        bad = snprintf(why, sizeof why, "a %s, not a %s", xrt__image_kind_name(f), xrt__image_kind_name(im->kind)) > 0;
    else if (im->kind == XRT_IMAGE_CUDA_CUBIN)
        bad = xrt__gpu_elf_bad(p, im->size, XRT__CUDA_EM_CUDA, "CUDA", why, sizeof why);
    else if (im->kind == XRT_IMAGE_CUDA_FATBIN)
        bad = xrt__cuda_fatbin_bad(p, im->size, why, sizeof why);
    else if ((bad = !xrt__cuda_ptx_begins((const char *)p, im->size)) != 0)
        snprintf(why, sizeof why, "not PTX: it does not begin with a .version directive");
    if (!bad) return XRT_SUCCESS;
    return xrt_error(XRT_ERROR_INVALID_IMAGE, "cuda: xrt_module_load", "the image (%s %s, %zu bytes) is %s",
                     xrt__image_kind_name(im->kind), im->arch && im->arch[0] ? im->arch : "(any arch)", im->size, why);
}

/* The runtime creates the primary context lazily: cudaFree(0) makes it
   current on this thread, as the driver calls need. Only where none is:
   cudaFree is one of CUDA's unsafe calls, which would invalidate a capture
   under way (whose thread has a context already). */
static void xrt__cuda_context(xrt__gpu *g)
{
    char why[8];
    const xrt__cuda_driver *d = xrt__cuda_driver_get(why, sizeof why);
    void *ctx = NULL;
    if (d && d->CtxGetCurrent && d->CtxGetCurrent(&ctx) == CUDA_SUCCESS && ctx) return;
    (void)g->rt.Free(NULL);
}

/* A library loads lazily: cuLibraryLoadData accepts an image it cannot use
   (one it does not recognise, PTX that does not compile: its JIT log says
   why) and the error comes from the first kernel lookup (seen on an H200,
   driver 580, also with CUDA_MODULE_LOADING=EAGER). Counting the library's
   kernels asks for its contents but loads nothing on a device, so a valid
   image keeps lazy loading's benefit and a broken one fails here. This
   follows the test double's model of that driver; it has not run on a GPU
   yet. Drivers before CUDA 12.4 lack the count: their errors still come at
   the lookup. Returns the driver's code; *call names the call that gave it. */
static int xrt__cuda_library_load(const xrt__cuda_driver *d, void **lib, const char *image, int *options,
                                  void **values, unsigned n, const char **call)
{
    unsigned count = 0;
    int e;
    *call = "cuLibraryLoadData";
    if ((e = d->LibraryLoadData(lib, image, options, values, n, NULL, NULL, 0)) != CUDA_SUCCESS ||
        !d->LibraryGetKernelCount)
        return e;
    *call = "cuLibraryGetKernelCount";
    if ((e = d->LibraryGetKernelCount(&count, *lib)) != CUDA_SUCCESS) (void)d->LibraryUnload(*lib);
    return e;
}

static xrt_status xrt__cuda_module_load(xrt__gpu *g, const xrt_module_image *im, void **native, int *any_device,
                                        char *log, size_t n)
{
    const xrt__cuda_driver *d = xrt__cuda_modules("cuda: xrt_module_load");
    int options[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES}, e;
    const char *call = "cuModuleLoadDataEx";
    void *values[2];
    xrt_status st;
    char *copy;
    if (!d) return XRT_ERROR_UNSUPPORTED;
    if ((st = xrt__cuda_image_check(im)) != XRT_SUCCESS) return st;
    values[0] = log;
    values[1] = (void *)(uintptr_t)(n ? n : 0);
    /* PTX must end in 0; the image's size need not include it */
    if (!(copy = (char *)XRT_MALLOC(im->size + 1))) return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "cuda: xrt_module_load", "no memory");
    memcpy(copy, im->data, im->size);
    copy[im->size] = 0;
    xrt__cuda_context(g);
    if ((*any_device = xrt__cuda_has_libraries(d)) != 0)
        e = xrt__cuda_library_load(d, native, copy, options, values, n ? 2u : 0u, &call);
    else
        e = d->ModuleLoadDataEx(native, copy, n ? 2u : 0u, options, values);
    XRT_FREE(copy);
    return e == CUDA_SUCCESS ? XRT_SUCCESS : xrt__cuda_driver_fail(d, e, call, "module_load");
}

static xrt_status xrt__cuda_module_unload(xrt__gpu *g, void *native)
{
    const xrt__cuda_driver *d = xrt__cuda_modules("cuda: xrt_module_unload");
    int e;
    (void)g;
    if (!d) return XRT_ERROR_UNSUPPORTED;
    if (xrt__cuda_has_libraries(d)) {
        e = d->LibraryUnload(native);
        return e == CUDA_SUCCESS ? XRT_SUCCESS : xrt__cuda_driver_fail(d, e, "cuLibraryUnload", "module_unload");
    }
    e = d->ModuleUnload(native);
    return e == CUDA_SUCCESS ? XRT_SUCCESS : xrt__cuda_driver_fail(d, e, "cuModuleUnload", "module_unload");
}

static xrt_status xrt__cuda_module_function(xrt__gpu *g, void *native, const char *name, void **fn)
{
    const xrt__cuda_driver *d = xrt__cuda_modules("cuda: xrt_module_get_function");
    int e;
    (void)g;
    int lib;
    if (!d) return XRT_ERROR_UNSUPPORTED;
    lib = xrt__cuda_has_libraries(d); /* a CUkernel launches as a CUfunction */
    if ((e = lib ? d->LibraryGetKernel(fn, native, name) : d->ModuleGetFunction(fn, native, name)) == CUDA_ERROR_NOT_FOUND)
        return xrt_error(XRT_ERROR_NOT_FOUND, "cuda: xrt_module_get_function", "no kernel named '%s' in the module", name);
    return e == CUDA_SUCCESS ? XRT_SUCCESS : xrt__cuda_driver_fail(d, e, lib ? "cuLibraryGetKernel" : "cuModuleGetFunction", "module_get_function");
}

/* A launch (xrt__gpu_launch_kernel) calls the driver's cuLaunchKernel
   directly. A thread that made no runtime call yet has no context: once
   the runtime made it current, the launch is tried again. */
static int xrt__cuda_launch_again(xrt__gpu *g, int e) XRT__COLD;
static int xrt__cuda_launch_again(xrt__gpu *g, int e)
{
    if (e != CUDA_ERROR_INVALID_CONTEXT) return 0;
    xrt__cuda_context(g);
    return 1;
}

static xrt_status xrt__cuda_launch_failed(xrt__gpu *g, int e) XRT__COLD;
static xrt_status xrt__cuda_launch_failed(xrt__gpu *g, int e)
{
    (void)g;
    return xrt__cuda_driver_fail(&xrt__cuda_drv, e, "cuLaunchKernel", "launch_kernel");
}

/* A launch with attributes (xrt__gpu_launch_kernel_ex): cuLaunchKernelEx,
   xrt's attributes passed as they are (CUlaunchAttribute's layout, checked
   below), tried again as a plain launch is. */
static xrt_status xrt__cuda_launch_ex(xrt__gpu *g, void *fn, xrt_dim3 grid, xrt_dim3 block, unsigned shared,
                                      void *stream, void **extra, const xrt_launch_attribute *attrs, unsigned n)
{
    const xrt__cuda_driver *d = &xrt__cuda_drv;
    CUlaunchConfig c;
    int e;
    if (!d->LaunchKernelEx) return xrt__gpu_lacks(g, "xrt_launch_kernel_ex", "cuLaunchKernelEx (a CUDA 12 driver)");
    c.gridDimX = grid.x, c.gridDimY = grid.y, c.gridDimZ = grid.z; /* every field: no memset on the hot path */
    c.blockDimX = block.x, c.blockDimY = block.y, c.blockDimZ = block.z;
    c.sharedMemBytes = shared;
    c.hStream = (CUstream)stream;
    c.attrs = (CUlaunchAttribute *)(void *)(uintptr_t)attrs; /* the driver only reads them */
    c.numAttrs = n;
    if ((e = d->LaunchKernelEx(&c, fn, NULL, extra)) != CUDA_SUCCESS && xrt__cuda_launch_again(g, e))
        e = d->LaunchKernelEx(&c, fn, NULL, extra);
    return e == CUDA_SUCCESS ? XRT_SUCCESS : xrt__cuda_driver_fail(d, e, "cuLaunchKernelEx", "launch_kernel_ex");
}

/* The end of the kernel's last parameter; 0 where the driver cannot tell. A
   kernel without parameters answers CUDA_ERROR_INVALID_VALUE at index 0. */
static int xrt__cuda_param_bytes(xrt__gpu *g, void *fn, size_t *bytes)
{
    const xrt__cuda_driver *d = &xrt__cuda_drv;
    int (*info)(void *, size_t, size_t *, size_t *) =
        xrt__cuda_has_libraries(d) ? d->KernelGetParamInfo : d->FuncGetParamInfo;
    size_t i, offset, size;
    int e = CUDA_SUCCESS;
    (void)g;
    *bytes = 0;
    if (!info) return 0;
    for (i = 0; (e = info(fn, i, &offset, &size)) == CUDA_SUCCESS; i++)
        if (offset + size > *bytes) *bytes = offset + size;
    return i > 0 || e == CUDA_ERROR_INVALID_VALUE;
}

/* Parameter `index` of the kernel, as the driver tells it (CUDA 12.4 on). */
static xrt_status xrt__cuda_param_info(xrt__gpu *g, void *fn, size_t index, size_t *offset, size_t *size)
{
    const xrt__cuda_driver *d = &xrt__cuda_drv;
    int lib = xrt__cuda_has_libraries(d), e;
    int (*info)(void *, size_t, size_t *, size_t *) = lib ? d->KernelGetParamInfo : d->FuncGetParamInfo;
    const char *call = lib ? "cuKernelGetParamInfo" : "cuFuncGetParamInfo";
    (void)g;
    if (!info)
        return xrt_error(XRT_ERROR_UNSUPPORTED, "cuda: xrt_function_get_param_info",
                         "the driver has no %s (CUDA 12.4 on): pack the arguments with xrt_kernel_args", call);
    e = info(fn, index, offset, size);
    if (e == CUDA_ERROR_INVALID_VALUE)
        return xrt_error(XRT_ERROR_INVALID_VALUE, "cuda: xrt_function_get_param_info",
                         "no parameter %zu (%s: CUDA_ERROR_INVALID_VALUE)", index, call);
    return e == CUDA_SUCCESS ? XRT_SUCCESS : xrt__cuda_driver_fail(d, e, call, "function_get_param_info");
}

static xrt_status xrt__cuda_function_attributes(xrt__gpu *g, void *fn, xrt_function_attributes *a)
{
    const xrt__cuda_driver *d = &xrt__cuda_drv;
    int v[4] = {0, 0, 0, 0}, e = CUDA_SUCCESS;
    if (xrt__cuda_has_libraries(d)) { /* the kernel's function in the current context */
        xrt__cuda_context(g);
        if ((e = d->KernelGetFunction(&fn, fn)) != CUDA_SUCCESS) return xrt__cuda_driver_fail(d, e, "cuKernelGetFunction", "function_get_attributes");
    }
    if ((e = d->FuncGetAttribute(&v[0], CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn)) == CUDA_SUCCESS &&
        (e = d->FuncGetAttribute(&v[1], CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn)) == CUDA_SUCCESS &&
        (e = d->FuncGetAttribute(&v[2], CU_FUNC_ATTRIBUTE_NUM_REGS, fn)) == CUDA_SUCCESS)
        e = d->FuncGetAttribute(&v[3], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, fn);
    if (e != CUDA_SUCCESS) return xrt__cuda_driver_fail(d, e, "cuFuncGetAttribute", "function_get_attributes");
    a->max_threads_per_block = v[0];
    a->shared_size_bytes = (size_t)v[1];
    a->num_regs = v[2];
    a->max_dynamic_shared_bytes = (size_t)v[3];
    return XRT_SUCCESS;
}

/* The function of a CUDA 12 library's kernel in the current context (the
   one a launch from this thread uses), or fn itself. */
static int xrt__cuda_context_function(xrt__gpu *g, void **fn)
{
    const xrt__cuda_driver *d = &xrt__cuda_drv;
    if (!xrt__cuda_has_libraries(d)) return CUDA_SUCCESS;
    xrt__cuda_context(g);
    return d->KernelGetFunction(fn, *fn);
}

static xrt_status xrt__cuda_module_global(xrt__gpu *g, void *native, const char *name, void **ptr, size_t *size)
{
    const xrt__cuda_driver *d = &xrt__cuda_drv;
    int lib = xrt__cuda_has_libraries(d), e;
    unsigned long long p = 0;
    const char *call = lib ? "cuLibraryGetGlobal" : "cuModuleGetGlobal";
    if (lib ? !d->LibraryGetGlobal : !d->ModuleGetGlobal)
        return xrt_error(XRT_ERROR_UNSUPPORTED, "cuda: xrt_module_get_global", "the driver has no %s", call);
    if (lib) xrt__cuda_context(g);
    e = lib ? d->LibraryGetGlobal(&p, size, native, name) : d->ModuleGetGlobal(&p, size, native, name);
    if (e == CUDA_ERROR_NOT_FOUND)
        return xrt_error(XRT_ERROR_NOT_FOUND, "cuda: xrt_module_get_global", "no variable named '%s' in the module", name);
    if (e != CUDA_SUCCESS) return xrt__cuda_driver_fail(d, e, call, "module_get_global");
    *ptr = (void *)(uintptr_t)p;
    return XRT_SUCCESS;
}

static xrt_status xrt__cuda_function_set_attribute(xrt__gpu *g, void *fn, int attr, int value)
{
    const xrt__cuda_driver *d = &xrt__cuda_drv;
    int e;
    if (!d->FuncSetAttribute)
        return xrt_error(XRT_ERROR_UNSUPPORTED, "cuda: xrt_function_set_attribute", "the driver has no cuFuncSetAttribute");
    if ((e = xrt__cuda_context_function(g, &fn)) != CUDA_SUCCESS)
        return xrt__cuda_driver_fail(d, e, "cuKernelGetFunction", "function_set_attribute");
    e = d->FuncSetAttribute(fn, attr, value); /* xrt_function_attribute's values are CUfunction_attribute's */
    return e == CUDA_SUCCESS ? XRT_SUCCESS : xrt__cuda_driver_fail(d, e, "cuFuncSetAttribute", "function_set_attribute");
}

static xrt_status xrt__cuda_function_set_cache_config(xrt__gpu *g, void *fn, int config)
{
    const xrt__cuda_driver *d = &xrt__cuda_drv;
    int e;
    if (!d->FuncSetCacheConfig)
        return xrt_error(XRT_ERROR_UNSUPPORTED, "cuda: xrt_function_set_cache_config", "the driver has no cuFuncSetCacheConfig");
    if ((e = xrt__cuda_context_function(g, &fn)) != CUDA_SUCCESS)
        return xrt__cuda_driver_fail(d, e, "cuKernelGetFunction", "function_set_cache_config");
    e = d->FuncSetCacheConfig(fn, config); /* xrt_func_cache's values are CUfunc_cache's */
    return e == CUDA_SUCCESS ? XRT_SUCCESS
                             : xrt__cuda_driver_fail(d, e, "cuFuncSetCacheConfig", "function_set_cache_config");
}

static xrt_status xrt__cuda_occupancy_blocks(xrt__gpu *g, void *fn, int block_size, size_t shared, int *blocks)
{
    const xrt__cuda_driver *d = &xrt__cuda_drv;
    const char *op = "occupancy_max_active_blocks_per_multiprocessor";
    int e;
    if (!d->OccupancyMaxActiveBlocksPerMultiprocessor)
        return xrt_error(XRT_ERROR_UNSUPPORTED, "cuda: xrt_occupancy_max_active_blocks_per_multiprocessor",
                         "the driver has no cuOccupancyMaxActiveBlocksPerMultiprocessor");
    if ((e = xrt__cuda_context_function(g, &fn)) != CUDA_SUCCESS)
        return xrt__cuda_driver_fail(d, e, "cuKernelGetFunction", op);
    e = d->OccupancyMaxActiveBlocksPerMultiprocessor(blocks, fn, block_size, shared);
    return e == CUDA_SUCCESS ? XRT_SUCCESS : xrt__cuda_driver_fail(d, e, "cuOccupancyMaxActiveBlocksPerMultiprocessor", op);
}

static xrt_status xrt__cuda_occupancy_block_size(xrt__gpu *g, void *fn, size_t shared, int limit, int *min_grid,
                                                 int *block)
{
    const xrt__cuda_driver *d = &xrt__cuda_drv;
    const char *op = "occupancy_max_potential_block_size";
    int e;
    if (!d->OccupancyMaxPotentialBlockSize)
        return xrt_error(XRT_ERROR_UNSUPPORTED, "cuda: xrt_occupancy_max_potential_block_size",
                         "the driver has no cuOccupancyMaxPotentialBlockSize");
    if ((e = xrt__cuda_context_function(g, &fn)) != CUDA_SUCCESS)
        return xrt__cuda_driver_fail(d, e, "cuKernelGetFunction", op);
    e = d->OccupancyMaxPotentialBlockSize(min_grid, block, fn, NULL, shared, limit);
    return e == CUDA_SUCCESS ? XRT_SUCCESS : xrt__cuda_driver_fail(d, e, "cuOccupancyMaxPotentialBlockSize", op);
}

/* >> cuda: graphs. Two entry points changed their signatures under the same
   name: cudaGraphExecUpdate (exec, graph, &errorNode, &result) became
   (exec, graph, &resultInfo) in CUDA 12, and cudaGraphGetEdges (graph, from,
   to, &count) took edge data after `to` in CUDA 13 (12.3 to 12.9 have that
   form as cudaGraphGetEdges_v2). The runtime's version picks the form: they
   are looked up by name, not rows of the runtime table. */
static const xrt__gpu_node_kind xrt__cuda_node_kinds[] = {
    {cudaGraphNodeTypeKernel, offsetof(xrt_graph_info, kernels)},
    {cudaGraphNodeTypeMemcpy, offsetof(xrt_graph_info, copies)},
    {cudaGraphNodeTypeMemset, offsetof(xrt_graph_info, sets)},
    {cudaGraphNodeTypeHost, offsetof(xrt_graph_info, host_fns)},
};

static struct {
    int (*ExecUpdate)(void *exec, void *graph, void *result_info);          /* CUDA 12 */
    int (*Edges)(void *graph, void **from, void **to, void *data, size_t *count); /* 13, and 12.3's _v2 */
    int (*EdgesNoData)(void *graph, void **from, void **to, size_t *count); /* 12.0 to 12.2 */
    /* a node's dependencies [0] and dependents [1]; adding [0] and removing [1] edges */
    int (*NodeEdges[2])(void *node, void **nodes, void *data, size_t *count);           /* 13 */
    int (*NodeEdgesNoData[2])(void *node, void **nodes, size_t *count);                 /* 12 */
    int (*Edit[2])(void *graph, void *const *from, void *const *to, const void *data, size_t n); /* 13 */
    int (*EditNoData[2])(void *graph, void *const *from, void *const *to, size_t n);   /* 12 */
    int (*CaptureInfo)(void *stream, int *status, unsigned long long *id, void **graph, void *const **deps,
                       const void **data, size_t *n); /* cudaStreamGetCaptureInfo: 13, and 12.3's _v3 */
    int (*UpdateDeps)(void *stream, void *const *deps, const void *data, size_t n, unsigned flags); /* 13 */
    int (*UpdateDepsNoData)(void *stream, void *const *deps, size_t n, unsigned flags);           /* 11.3 .. 12 */
} xrt__cuda_graph;
#if CUDART_VERSION >= 13000
XRT__GPU_SAME_TYPE(xrt__cuda_type_capture_info,
                   cudaError_t(*)(cudaStream_t, enum cudaStreamCaptureStatus *, unsigned long long *, cudaGraph_t *,
                                  const cudaGraphNode_t **, const cudaGraphEdgeData **, size_t *),
                   cudaStreamGetCaptureInfo)
XRT__GPU_SAME_TYPE(xrt__cuda_type_update_deps,
                   cudaError_t(*)(cudaStream_t, cudaGraphNode_t *, const cudaGraphEdgeData *, size_t, unsigned int),
                   cudaStreamUpdateCaptureDependencies)
#endif
XRT__GPU_ASSERT((int)XRT_STREAM_ADD_CAPTURE_DEPENDENCIES == (int)cudaStreamAddCaptureDependencies &&
                    (int)XRT_STREAM_SET_CAPTURE_DEPENDENCIES == (int)cudaStreamSetCaptureDependencies,
                "xrt's capture dependency flags are not CUDA's");

/* Edge data asked for, so that a capture whose next node would take an
   annotated edge does not fail the question (cudaErrorLossyQuery). */
static int xrt__cuda_capture_last(const xrt__gpu *g, void *stream, void **graph, void **node)
{
    void *const *deps = NULL, *into = NULL;
    const void *data = NULL;
    size_t n = 0;
    int status = 0, e = xrt__cuda_graph.CaptureInfo(stream, &status, NULL, &into, &deps, &data, &n);
    return xrt__gpu_capture_last_of(g, e, status, into, deps, n, graph, node);
}

static int xrt__cuda_capture_id(void *stream, int *status, unsigned long long *id)
{
    return xrt__cuda_graph.CaptureInfo(stream, status, id, NULL, NULL, NULL, NULL);
}

/* Edge data asked for (xrt makes none: a native one is the runtime's). */
static int xrt__cuda_capture_graph(void *stream, int *status, unsigned long long *id, void **graph, void *const **deps,
                                   size_t *n)
{
    const void *data = NULL;
    return xrt__cuda_graph.CaptureInfo(stream, status, id, graph, deps, &data, n);
}

static int xrt__cuda_capture_update(void *stream, void *const *deps, size_t n, unsigned flags)
{
    return xrt__cuda_graph.UpdateDeps ? xrt__cuda_graph.UpdateDeps(stream, deps, NULL, n, flags)
                                      : xrt__cuda_graph.UpdateDepsNoData(stream, deps, n, flags);
}
static const char *const xrt__cuda_node_edges_calls[2] = {"cudaGraphNodeGetDependencies", "cudaGraphNodeGetDependentNodes"};
static const char *const xrt__cuda_edit_calls[2] = {"cudaGraphAddDependencies", "cudaGraphRemoveDependencies"};
#if CUDART_VERSION >= 13000
XRT__GPU_SAME_TYPE(xrt__cuda_type_deps,
                   cudaError_t(*)(cudaGraphNode_t, cudaGraphNode_t *, cudaGraphEdgeData *, size_t *),
                   cudaGraphNodeGetDependencies)
XRT__GPU_SAME_TYPE(xrt__cuda_type_dependents,
                   cudaError_t(*)(cudaGraphNode_t, cudaGraphNode_t *, cudaGraphEdgeData *, size_t *),
                   cudaGraphNodeGetDependentNodes)
XRT__GPU_SAME_TYPE(xrt__cuda_type_add_deps,
                   cudaError_t(*)(cudaGraph_t, const cudaGraphNode_t *, const cudaGraphNode_t *,
                                  const cudaGraphEdgeData *, size_t),
                   cudaGraphAddDependencies)
XRT__GPU_SAME_TYPE(xrt__cuda_type_remove_deps,
                   cudaError_t(*)(cudaGraph_t, const cudaGraphNode_t *, const cudaGraphNode_t *,
                                  const cudaGraphEdgeData *, size_t),
                   cudaGraphRemoveDependencies)
#endif
/* Memory pools: the props xrt__gpu_mem_pool_create writes, and the attributes' numbers. */
XRT__GPU_ASSERT(sizeof(struct cudaMemPoolProps) <= sizeof(xrt__gpu_pool_props) &&
                    offsetof(struct cudaMemPoolProps, allocType) == offsetof(xrt__gpu_pool_props, alloc_type) &&
                    offsetof(struct cudaMemPoolProps, handleTypes) == offsetof(xrt__gpu_pool_props, handle_types) &&
                    offsetof(struct cudaMemPoolProps, location.type) == offsetof(xrt__gpu_pool_props, location_type) &&
                    offsetof(struct cudaMemPoolProps, location.id) == offsetof(xrt__gpu_pool_props, location_id) &&
                    cudaMemAllocationTypePinned == XRT__GPU_POOL_PINNED &&
                    cudaMemLocationTypeDevice == XRT__GPU_LOCATION_DEVICE,
                "cudaMemPoolProps does not begin as xrt writes it");
XRT__GPU_ASSERT(sizeof(struct cudaMemAccessDesc) == sizeof(xrt__gpu_access_desc) &&
                    offsetof(struct cudaMemAccessDesc, location.type) == offsetof(xrt__gpu_access_desc, location_type) &&
                    offsetof(struct cudaMemAccessDesc, location.id) == offsetof(xrt__gpu_access_desc, location_id) &&
                    offsetof(struct cudaMemAccessDesc, flags) == offsetof(xrt__gpu_access_desc, flags) &&
                    sizeof(enum cudaMemAccessFlags) == sizeof(int) && cudaMemAccessFlagsProtNone == XRT_MEM_ACCESS_FLAGS_PROT_NONE &&
                    cudaMemAccessFlagsProtRead == XRT_MEM_ACCESS_FLAGS_PROT_READ &&
                    cudaMemAccessFlagsProtReadWrite == XRT_MEM_ACCESS_FLAGS_PROT_READ_WRITE &&
                    sizeof(struct cudaMemLocation) == 2 * sizeof(int),
                "cudaMemAccessDesc is not as xrt writes it");
XRT__GPU_ASSERT((int)cudaMemPoolReuseFollowEventDependencies == XRT_MEMPOOL_REUSE_FOLLOW_EVENT_DEPENDENCIES &&
                    (int)cudaMemPoolReuseAllowOpportunistic == XRT_MEMPOOL_REUSE_ALLOW_OPPORTUNISTIC &&
                    (int)cudaMemPoolReuseAllowInternalDependencies == XRT_MEMPOOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES &&
                    (int)cudaMemPoolAttrReleaseThreshold == XRT_MEMPOOL_ATTR_RELEASE_THRESHOLD &&
                    (int)cudaMemPoolAttrReservedMemCurrent == XRT_MEMPOOL_ATTR_RESERVED_MEM_CURRENT &&
                    (int)cudaMemPoolAttrReservedMemHigh == XRT_MEMPOOL_ATTR_RESERVED_MEM_HIGH &&
                    (int)cudaMemPoolAttrUsedMemCurrent == XRT_MEMPOOL_ATTR_USED_MEM_CURRENT &&
                    (int)cudaMemPoolAttrUsedMemHigh == XRT_MEMPOOL_ATTR_USED_MEM_HIGH,
                "cudaMemPoolAttr's numbers are not xrt_mem_pool_attr's");
XRT__GPU_ASSERT((int)cudaMemRangeAttributeReadMostly == XRT_MEM_RANGE_ATTRIBUTE_READ_MOSTLY &&
                    (int)cudaMemRangeAttributePreferredLocation == XRT_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION &&
                    (int)cudaMemRangeAttributeAccessedBy == XRT_MEM_RANGE_ATTRIBUTE_ACCESSED_BY &&
                    (int)cudaMemRangeAttributeLastPrefetchLocation == XRT_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION &&
                    cudaCpuDeviceId == XRT_CPU_DEVICE_ID && cudaInvalidDeviceId == XRT_INVALID_DEVICE_ID,
                "cudaMemRangeAttribute's numbers or CUDA's location ids are not xrt's");

#if CUDART_VERSION >= 12030 /* the form xrt__gpu's capture_to_graph calls, looked up by name */
XRT__GPU_SAME_TYPE(xrt__cuda_type_capture_to_graph,
                   cudaError_t(*)(cudaStream_t, cudaGraph_t, const cudaGraphNode_t *, const cudaGraphEdgeData *, size_t,
                                  enum cudaStreamCaptureMode),
                   cudaStreamBeginCaptureToGraph)
#endif

/* >> cuda: graph memory nodes built by hand (CUDA 11.4), through the entry
   points looked up by name (xrt__gpu's mem_node_syms): an allocation of
   pinned device memory on a device, as cudaMallocAsync's default pool. */
typedef cudaError_t (*xrt__cuda_add_alloc_fn)(cudaGraphNode_t *, cudaGraph_t, const cudaGraphNode_t *, size_t,
                                              struct cudaMemAllocNodeParams *);
typedef cudaError_t (*xrt__cuda_add_free_fn)(cudaGraphNode_t *, cudaGraph_t, const cudaGraphNode_t *, size_t, void *);
typedef cudaError_t (*xrt__cuda_get_alloc_fn)(cudaGraphNode_t, struct cudaMemAllocNodeParams *);
typedef cudaError_t (*xrt__cuda_get_free_fn)(cudaGraphNode_t, void *);
XRT__GPU_SAME_TYPE(xrt__cuda_type_add_alloc, xrt__cuda_add_alloc_fn, cudaGraphAddMemAllocNode)
XRT__GPU_SAME_TYPE(xrt__cuda_type_add_free, xrt__cuda_add_free_fn, cudaGraphAddMemFreeNode)
XRT__GPU_SAME_TYPE(xrt__cuda_type_get_alloc, xrt__cuda_get_alloc_fn, cudaGraphMemAllocNodeGetParams)
XRT__GPU_SAME_TYPE(xrt__cuda_type_get_free, xrt__cuda_get_free_fn, cudaGraphMemFreeNodeGetParams)
static const char *const xrt__cuda_mem_node_syms[4] = {"cudaGraphAddMemAllocNode", "cudaGraphAddMemFreeNode",
                                                       "cudaGraphMemAllocNodeGetParams",
                                                       "cudaGraphMemFreeNodeGetParams"};

static int xrt__cuda_mem_node(const xrt__gpu *g, int which, void **node, void *graph, void *const *deps, size_t n,
                              xrt_graph_node_params *p)
{
    struct cudaMemAllocNodeParams a;
    void *fn = g->mem_node_fns[which], *ptr = NULL;
    cudaError_t e;
    memset(&a, 0, sizeof a);
    a.poolProps.allocType = cudaMemAllocationTypePinned;
    a.poolProps.location.type = cudaMemLocationTypeDevice;
    a.poolProps.location.id = p->alloc.device;
    a.bytesize = p->alloc.size;
    if (which == XRT__GPU_MEM_ADD_ALLOC) {
        xrt__cuda_add_alloc_fn f;
        memcpy(&f, &fn, sizeof f);
        e = f((cudaGraphNode_t *)node, (cudaGraph_t)graph, (const cudaGraphNode_t *)(const void *)deps, n, &a);
        if (e == cudaSuccess) p->alloc.ptr = a.dptr;
    } else if (which == XRT__GPU_MEM_ADD_FREE) {
        xrt__cuda_add_free_fn f;
        memcpy(&f, &fn, sizeof f);
        e = f((cudaGraphNode_t *)node, (cudaGraph_t)graph, (const cudaGraphNode_t *)(const void *)deps, n,
              p->mem_free.ptr);
    } else if (which == XRT__GPU_MEM_GET_ALLOC) {
        xrt__cuda_get_alloc_fn f;
        memcpy(&f, &fn, sizeof f);
        if ((e = f((cudaGraphNode_t)*node, &a)) == cudaSuccess) {
            p->alloc.device = a.poolProps.location.id;
            p->alloc.size = a.bytesize;
            p->alloc.ptr = a.dptr;
        }
    } else {
        xrt__cuda_get_free_fn f;
        memcpy(&f, &fn, sizeof f);
        if ((e = f((cudaGraphNode_t)*node, &ptr)) == cudaSuccess) p->mem_free.ptr = ptr;
    }
    return (int)e;
}

/* The node types xrt has (its values are CUDA's), and where CUDA's node
   structs keep their fields. */
static const xrt__gpu_node_type xrt__cuda_node_types[] = {
    {cudaGraphNodeTypeKernel, XRT_GRAPH_NODE_KERNEL},       {cudaGraphNodeTypeMemcpy, XRT_GRAPH_NODE_MEMCPY},
    {cudaGraphNodeTypeMemset, XRT_GRAPH_NODE_MEMSET},       {cudaGraphNodeTypeHost, XRT_GRAPH_NODE_HOST},
    {cudaGraphNodeTypeGraph, XRT_GRAPH_NODE_GRAPH},         {cudaGraphNodeTypeEmpty, XRT_GRAPH_NODE_EMPTY},
    {cudaGraphNodeTypeWaitEvent, XRT_GRAPH_NODE_WAIT_EVENT}, {cudaGraphNodeTypeEventRecord, XRT_GRAPH_NODE_EVENT_RECORD},
    {cudaGraphNodeTypeMemAlloc, XRT_GRAPH_NODE_MEM_ALLOC},  {cudaGraphNodeTypeMemFree, XRT_GRAPH_NODE_MEM_FREE},
};
static const xrt__gpu_layout xrt__cuda_layout = {
    sizeof(struct cudaKernelNodeParams), offsetof(struct cudaKernelNodeParams, func),
    offsetof(struct cudaKernelNodeParams, gridDim), offsetof(struct cudaKernelNodeParams, blockDim),
    offsetof(struct cudaKernelNodeParams, sharedMemBytes), offsetof(struct cudaKernelNodeParams, kernelParams),
    offsetof(struct cudaKernelNodeParams, extra),
    sizeof(struct cudaMemsetParams), offsetof(struct cudaMemsetParams, dst), offsetof(struct cudaMemsetParams, pitch),
    offsetof(struct cudaMemsetParams, value), offsetof(struct cudaMemsetParams, elementSize),
    offsetof(struct cudaMemsetParams, width), offsetof(struct cudaMemsetParams, height),
    sizeof(struct cudaMemcpy3DParms), offsetof(struct cudaMemcpy3DParms, srcArray),
    offsetof(struct cudaMemcpy3DParms, srcPos), offsetof(struct cudaMemcpy3DParms, srcPtr),
    offsetof(struct cudaMemcpy3DParms, dstArray), offsetof(struct cudaMemcpy3DParms, dstPos),
    offsetof(struct cudaMemcpy3DParms, dstPtr), offsetof(struct cudaMemcpy3DParms, extent),
    offsetof(struct cudaMemcpy3DParms, kind)};
XRT__GPU_ASSERT(sizeof(struct cudaKernelNodeParams) <= XRT__GPU_NODE_BYTES && sizeof(struct cudaMemsetParams) <= XRT__GPU_NODE_BYTES &&
                    sizeof(struct cudaMemcpy3DParms) <= XRT__GPU_NODE_BYTES,
                "a CUDA node struct is larger than xrt's buffer");
XRT__GPU_ASSERT(sizeof(dim3) == sizeof(xrt_dim3) && sizeof(((struct cudaKernelNodeParams *)0)->sharedMemBytes) == sizeof(unsigned) &&
                    sizeof(((struct cudaMemsetParams *)0)->value) == sizeof(unsigned) &&
                    sizeof(((struct cudaMemsetParams *)0)->elementSize) == sizeof(unsigned) &&
                    sizeof(struct cudaPos) == 3 * sizeof(size_t) && sizeof(struct cudaExtent) == 3 * sizeof(size_t) &&
                    offsetof(struct cudaPitchedPtr, ptr) == 0 && sizeof(enum cudaMemcpyKind) == sizeof(int) &&
                    offsetof(struct cudaPitchedPtr, pitch) == offsetof(xrt_pitched_ptr, pitch) &&
                    offsetof(struct cudaPitchedPtr, ysize) == offsetof(xrt_pitched_ptr, ysize) &&
                    offsetof(struct cudaExtent, depth) == offsetof(xrt_extent, depth) &&
                    offsetof(struct cudaPos, z) == offsetof(xrt_pos, z),
                "CUDA's node struct fields are not of the sizes xrt writes");
XRT__GPU_ASSERT(sizeof(struct cudaHostNodeParams) == 2 * sizeof(void *) && offsetof(struct cudaHostNodeParams, userData) == sizeof(void *),
                "cudaHostNodeParams is not (fn, user)");

/* With data (the caller's, zeroed) where the runtime takes it: a list
   without it fails where an edge is annotated (cudaErrorLossyQuery); CUDA
   12.0 to 12.2 have plain edges only. */
static int xrt__cuda_list_edges(const xrt__gpu *g, int what, void *of, void **a, void **b, xrt__gpu_edge_data *data,
                                size_t *count, const char **call)
{
    int k = what == XRT__GRAPH_LIST_DEPENDENTS;
    (void)g;
    if (what == XRT__GRAPH_LIST_EDGES) {
        *call = xrt__cuda_graph.Edges && g->version < 13000 ? "cudaGraphGetEdges_v2" : "cudaGraphGetEdges";
        return xrt__cuda_graph.Edges ? xrt__cuda_graph.Edges(of, a, b, data, count)
                                     : xrt__cuda_graph.EdgesNoData(of, a, b, count);
    }
    *call = xrt__cuda_node_edges_calls[k];
    return xrt__cuda_graph.NodeEdges[k] ? xrt__cuda_graph.NodeEdges[k](of, a, data, count)
                                        : xrt__cuda_graph.NodeEdgesNoData[k](of, a, count);
}

static int xrt__cuda_edit_edges(const xrt__gpu *g, void *graph, void *const *from, void *const *to, size_t n, int remove,
                                const char **call)
{
    (void)g;
    *call = xrt__cuda_edit_calls[remove != 0];
    return xrt__cuda_graph.Edit[remove != 0] ? xrt__cuda_graph.Edit[remove != 0](graph, from, to, NULL, n)
                                             : xrt__cuda_graph.EditNoData[remove != 0](graph, from, to, n);
}
#if CUDART_VERSION >= 12000
XRT__GPU_SAME_TYPE(xrt__cuda_type_exec_update, cudaError_t(*)(cudaGraphExec_t, cudaGraph_t, cudaGraphExecUpdateResultInfo *),
                   cudaGraphExecUpdate)
#endif
#if CUDART_VERSION >= 12030
XRT__GPU_ASSERT(sizeof(cudaGraphEdgeData) == sizeof(xrt__gpu_edge_data) &&
                    offsetof(cudaGraphEdgeData, from_port) == offsetof(xrt__gpu_edge_data, from_port) &&
                    offsetof(cudaGraphEdgeData, to_port) == offsetof(xrt__gpu_edge_data, to_port) &&
                    offsetof(cudaGraphEdgeData, type) == offsetof(xrt__gpu_edge_data, type) &&
                    cudaGraphDependencyTypeProgrammatic == 1,
                "cudaGraphEdgeData is not as xrt reads it");
#endif
#if CUDART_VERSION >= 13000
XRT__GPU_SAME_TYPE(xrt__cuda_type_edges,
                   cudaError_t(*)(cudaGraph_t, cudaGraphNode_t *, cudaGraphNode_t *, cudaGraphEdgeData *, size_t *),
                   cudaGraphGetEdges)
#endif

/* cudaGraphExecUpdateResultInfo of CUDA 12 and 13: the result, then the node
   that failed and the node it was compared with. */
typedef struct xrt__cuda_update_info {
    int result;
    void *error_node, *error_from_node;
} xrt__cuda_update_info;
#if CUDART_VERSION >= 12000
XRT__GPU_ASSERT(sizeof(cudaGraphExecUpdateResultInfo) == sizeof(xrt__cuda_update_info) &&
                    offsetof(cudaGraphExecUpdateResultInfo, errorNode) == offsetof(xrt__cuda_update_info, error_node),
                "cudaGraphExecUpdateResultInfo's layout");
#endif

static int xrt__cuda_exec_update(const xrt__gpu *g, void *exec, void *graph, int *result, void **node, void **from)
{
    xrt__cuda_update_info info;
    int e;
    (void)g;
    memset(&info, 0, sizeof info);
    e = xrt__cuda_graph.ExecUpdate(exec, graph, &info);
    *result = info.result;
    *node = info.error_node;
    *from = info.error_from_node;
    return e;
}

/* A count: no edge data (the runtime takes it only with the nodes), and
   no cudaErrorLossyQuery for an annotated edge. */
static xrt_status xrt__cuda_graph_edges(const xrt__gpu *g, void *graph, size_t *count)
{
    int e;
    *count = 0;
    if (xrt__cuda_graph.Edges) e = xrt__cuda_graph.Edges(graph, NULL, NULL, NULL, count);
    else e = xrt__cuda_graph.EdgesNoData(graph, NULL, NULL, count);
    if (e == g->success) return XRT_SUCCESS;
    return xrt__gpu_fail_as(g, e, g->version >= 13000 || !xrt__cuda_graph.Edges ? "cudaGraphGetEdges" : "cudaGraphGetEdges_v2",
                            "graph_get_info");
}

/* The edge entry points of graphs built node by node, in the form the
   runtime's version says: CUDA 13's take edge data (NULL here), 12's
   plain ones do not (12.3's _v2 forms are not needed). */
static void xrt__cuda_node_hooks(xrt__gpu *g, int edges)
{
    static const char *const edit[2] = {"cudaGraphAddDependencies", "cudaGraphRemoveDependencies"};
    int k, data = g->version >= 13000, all = edges && g->version >= 12000;
    for (k = 0; k < 2; k++) {
        void *list = g->version >= 12000 ? xrt__gpu_lookup(g, xrt__cuda_node_edges_calls[k]) : NULL;
        void *change = g->version >= 12000 ? xrt__gpu_lookup(g, edit[k]) : NULL;
        void *none = NULL;
        memcpy(&xrt__cuda_graph.NodeEdges[k], data ? &list : &none, sizeof list);
        memcpy(&xrt__cuda_graph.NodeEdgesNoData[k], data ? &none : &list, sizeof list);
        memcpy(&xrt__cuda_graph.Edit[k], data ? &change : &none, sizeof change);
        memcpy(&xrt__cuda_graph.EditNoData[k], data ? &none : &change, sizeof change);
        all = all && list && change;
    }
    g->list_edges = all ? xrt__cuda_list_edges : NULL;
    g->edit_edges = all ? xrt__cuda_edit_edges : NULL;
}

/* The graph hooks where the runtime has the entry points in the form
   its version says; else none (no XRT_CAP_GRAPHS). */
static void xrt__cuda_graph_hooks(xrt__gpu *g)
{
    void *update = g->version >= 12000 ? xrt__gpu_lookup(g, "cudaGraphExecUpdate") : NULL;
    void *edges = g->version >= 13000 ? xrt__gpu_lookup(g, "cudaGraphGetEdges")
                  : g->version >= 12030 ? xrt__gpu_lookup(g, "cudaGraphGetEdges_v2") : NULL;
    void *plain = !edges && g->version >= 12000 ? xrt__gpu_lookup(g, "cudaGraphGetEdges") : NULL;
    void *info = g->version >= 13000 ? xrt__gpu_lookup(g, "cudaStreamGetCaptureInfo")
                 : g->version >= 12030 ? xrt__gpu_lookup(g, "cudaStreamGetCaptureInfo_v3") : NULL, *update_deps;
    memcpy(&xrt__cuda_graph.CaptureInfo, &info, sizeof info);
    g->capture_last = info ? xrt__cuda_capture_last : NULL;
    g->capture_id = info ? xrt__cuda_capture_id : NULL;
    g->capture_info_call = g->version >= 13000 ? "cudaStreamGetCaptureInfo" : "cudaStreamGetCaptureInfo_v3";
    g->capture_graph = info ? xrt__cuda_capture_graph : NULL;
    update_deps = xrt__gpu_lookup(g, "cudaStreamUpdateCaptureDependencies");
    if (g->version >= 13000) memcpy(&xrt__cuda_graph.UpdateDeps, &update_deps, sizeof update_deps);
    else memcpy(&xrt__cuda_graph.UpdateDepsNoData, &update_deps, sizeof update_deps);
    g->capture_update = update_deps ? xrt__cuda_capture_update : NULL;
    g->capture_update_call = "cudaStreamUpdateCaptureDependencies";
    memcpy(&xrt__cuda_graph.ExecUpdate, &update, sizeof update);
    memcpy(&xrt__cuda_graph.Edges, &edges, sizeof edges);
    memcpy(&xrt__cuda_graph.EdgesNoData, &plain, sizeof plain);
    g->exec_update = update ? xrt__cuda_exec_update : NULL;
    g->graph_edges = edges || plain ? xrt__cuda_graph_edges : NULL;
    xrt__cuda_node_hooks(g, edges || plain);
}

/* >> cuda: managed memory. cudaMemPrefetchAsync and cudaMemAdvise took an
   int device up to CUDA 12 and take a cudaMemLocation (and the prefetch a
   flags word) in CUDA 13, under the same names (12.2 to 12.9 have the new
   form as _v2): the runtime's version picks the form, as for graphs. */
static struct {
    int (*Prefetch)(const void *ptr, size_t count, struct cudaMemLocation loc, unsigned flags, void *stream); /* 13 */
    int (*PrefetchDevice)(const void *ptr, size_t count, int device, void *stream);                        /* 12 */
    int (*Advise)(const void *ptr, size_t count, enum cudaMemoryAdvise advice, struct cudaMemLocation loc); /* 13 */
    int (*AdviseDevice)(const void *ptr, size_t count, enum cudaMemoryAdvise advice, int device);          /* 12 */
} xrt__cuda_managed;
#if CUDART_VERSION >= 13000
XRT__GPU_SAME_TYPE(xrt__cuda_type_prefetch,
                   cudaError_t(*)(const void *, size_t, struct cudaMemLocation, unsigned int, cudaStream_t),
                   cudaMemPrefetchAsync)
XRT__GPU_SAME_TYPE(xrt__cuda_type_advise,
                   cudaError_t(*)(const void *, size_t, enum cudaMemoryAdvise, struct cudaMemLocation), cudaMemAdvise)
#endif

/* XRT_CPU_DEVICE_ID is cudaCpuDeviceId: the host's location. */
static struct cudaMemLocation xrt__cuda_location(int device)
{
    struct cudaMemLocation loc;
    memset(&loc, 0, sizeof loc);
    loc.type = device == XRT_CPU_DEVICE_ID ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
    loc.id = device == XRT_CPU_DEVICE_ID ? 0 : device;
    return loc;
}

static int xrt__cuda_mem_prefetch(const xrt__gpu *g, const void *ptr, size_t count, int device, void *stream,
                                  const char **call)
{
    (void)g;
    *call = "cudaMemPrefetchAsync";
    return xrt__cuda_managed.Prefetch ? xrt__cuda_managed.Prefetch(ptr, count, xrt__cuda_location(device), 0, stream)
                                      : xrt__cuda_managed.PrefetchDevice(ptr, count, device, stream);
}

static int xrt__cuda_mem_advise(const xrt__gpu *g, const void *ptr, size_t count, int advice, int device,
                                const char **call)
{
    (void)g;
    *call = "cudaMemAdvise";
    return xrt__cuda_managed.Advise
               ? xrt__cuda_managed.Advise(ptr, count, (enum cudaMemoryAdvise)advice, xrt__cuda_location(device))
               : xrt__cuda_managed.AdviseDevice(ptr, count, (enum cudaMemoryAdvise)advice, device);
}

/* >> cuda: sets of 2- and 4-byte values whose bytes differ: the driver's
   cuMemsetD2D16 / _32 (the runtime has none), on the runtime's stream (a
   cudaStream_t is a CUstream), in the runtime's primary context. A capture
   takes them as memset nodes of 2- or 4-byte elements, as the runtime's. */
static xrt_status xrt__cuda_memset_wide(xrt__gpu *g, void *dst, size_t pitch, unsigned value, unsigned element_size,
                                        size_t width, size_t height, void *stream, int async)
{
    char why[256] = "", who[64];
    const xrt__cuda_driver *d = xrt__cuda_driver_get(why, sizeof why);
    unsigned long long p = (unsigned long long)(uintptr_t)dst;
    const char *call = element_size == 2 ? (async ? "cuMemsetD2D16Async" : "cuMemsetD2D16")
                                         : (async ? "cuMemsetD2D32Async" : "cuMemsetD2D32");
    const char *op = element_size == 2 ? "memset_d16" : "memset_d32";
    int e, there = d && (element_size == 2 ? (async ? d->MemsetD2D16Async != NULL : d->MemsetD2D16 != NULL)
                                        : (async ? d->MemsetD2D32Async != NULL : d->MemsetD2D32 != NULL));
    if (!there) {
        snprintf(who, sizeof who, "cuda: xrt_%s", op);
        return xrt_error(XRT_ERROR_UNSUPPORTED, who, "value 0x%x has unequal bytes: the runtime's memset sets bytes, and "
                         "the driver's %s is not there (%s)", value, call, d ? "an old driver" : why);
    }
    xrt__cuda_context(g);
    if (element_size == 2)
        e = async ? d->MemsetD2D16Async(p, pitch, (unsigned short)value, width, height, stream)
                  : d->MemsetD2D16(p, pitch, (unsigned short)value, width, height);
    else
        e = async ? d->MemsetD2D32Async(p, pitch, value, width, height, stream) : d->MemsetD2D32(p, pitch, value, width, height);
    return e == CUDA_SUCCESS ? XRT_SUCCESS : xrt__gpu_failed(g, xrt__cuda_driver_fail(d, e, call, op));
}

static void xrt__cuda_managed_hooks(xrt__gpu *g)
{
    void *prefetch = xrt__gpu_lookup(g, "cudaMemPrefetchAsync"), *advise = xrt__gpu_lookup(g, "cudaMemAdvise");
    void *none = NULL;
    int located = g->version >= 13000;
    memcpy(&xrt__cuda_managed.Prefetch, located ? &prefetch : &none, sizeof prefetch);
    memcpy(&xrt__cuda_managed.PrefetchDevice, located ? &none : &prefetch, sizeof prefetch);
    memcpy(&xrt__cuda_managed.Advise, located ? &advise : &none, sizeof advise);
    memcpy(&xrt__cuda_managed.AdviseDevice, located ? &none : &advise, sizeof advise);
    g->mem_prefetch = prefetch ? xrt__cuda_mem_prefetch : NULL;
    g->mem_advise = advise ? xrt__cuda_mem_advise : NULL;
}

/* Every CUDA entry point xrt uses has kept its name and layout-free
   signature, but for those of graphs above. Modules need the driver
   library: without it (no NVIDIA driver) CUDA offers no XRT_CAP_MODULES and
   loading is XRT_ERROR_UNSUPPORTED. */
static int xrt__cuda_loaded(xrt__gpu *g, char *reason, size_t n)
{
    char why[256] = "";
    (void)reason, (void)n; /* every runtime that loads is used */
    xrt__cuda_graph_hooks(g);
    xrt__cuda_managed_hooks(g);
    g->memset_wide = xrt__cuda_memset_wide; /* the driver's, looked for at the first call */
    if (!xrt__cuda_driver_get(why, sizeof why)) {
        g->module_load = NULL;
        xrt_log(XRT_LOG_DEBUG, "cuda: no modules: %s", why);
    }
    return 1;
}

/* >> cuda: the table */
/* xrt's attributes are CUDA's values (checked here, as a CUDA build compiles). */
#define XRT__CUDA_DEVATTR_SAME(name, value) \
    XRT__GPU_ASSERT((int)XRT_DEVATTR_##name == (int)XRT__CUDA_DEVATTR_##name, "XRT_DEVATTR_" #name " is not CUDA's");
#define XRT__CUDA_DEVATTR_MAX_THREADS_PER_BLOCK cudaDevAttrMaxThreadsPerBlock
#define XRT__CUDA_DEVATTR_MAX_BLOCK_DIM_X cudaDevAttrMaxBlockDimX
#define XRT__CUDA_DEVATTR_MAX_BLOCK_DIM_Y cudaDevAttrMaxBlockDimY
#define XRT__CUDA_DEVATTR_MAX_BLOCK_DIM_Z cudaDevAttrMaxBlockDimZ
#define XRT__CUDA_DEVATTR_MAX_GRID_DIM_X cudaDevAttrMaxGridDimX
#define XRT__CUDA_DEVATTR_MAX_GRID_DIM_Y cudaDevAttrMaxGridDimY
#define XRT__CUDA_DEVATTR_MAX_GRID_DIM_Z cudaDevAttrMaxGridDimZ
#define XRT__CUDA_DEVATTR_MAX_SHARED_MEMORY_PER_BLOCK cudaDevAttrMaxSharedMemoryPerBlock
#define XRT__CUDA_DEVATTR_WARP_SIZE cudaDevAttrWarpSize
#define XRT__CUDA_DEVATTR_MAX_PITCH cudaDevAttrMaxPitch
#define XRT__CUDA_DEVATTR_MAX_REGISTERS_PER_BLOCK cudaDevAttrMaxRegistersPerBlock
#define XRT__CUDA_DEVATTR_CLOCK_RATE cudaDevAttrClockRate
#define XRT__CUDA_DEVATTR_GPU_OVERLAP cudaDevAttrGpuOverlap
#define XRT__CUDA_DEVATTR_MULTIPROCESSOR_COUNT cudaDevAttrMultiProcessorCount
#define XRT__CUDA_DEVATTR_KERNEL_EXEC_TIMEOUT cudaDevAttrKernelExecTimeout
#define XRT__CUDA_DEVATTR_INTEGRATED cudaDevAttrIntegrated
#define XRT__CUDA_DEVATTR_CAN_MAP_HOST_MEMORY cudaDevAttrCanMapHostMemory
#define XRT__CUDA_DEVATTR_COMPUTE_MODE cudaDevAttrComputeMode
#define XRT__CUDA_DEVATTR_CONCURRENT_KERNELS cudaDevAttrConcurrentKernels
#define XRT__CUDA_DEVATTR_PCI_BUS_ID cudaDevAttrPciBusId
#define XRT__CUDA_DEVATTR_PCI_DEVICE_ID cudaDevAttrPciDeviceId
#define XRT__CUDA_DEVATTR_MEMORY_CLOCK_RATE cudaDevAttrMemoryClockRate
#define XRT__CUDA_DEVATTR_GLOBAL_MEMORY_BUS_WIDTH cudaDevAttrGlobalMemoryBusWidth
#define XRT__CUDA_DEVATTR_L2_CACHE_SIZE cudaDevAttrL2CacheSize
#define XRT__CUDA_DEVATTR_MAX_THREADS_PER_MULTIPROCESSOR cudaDevAttrMaxThreadsPerMultiProcessor
#define XRT__CUDA_DEVATTR_ASYNC_ENGINE_COUNT cudaDevAttrAsyncEngineCount
#define XRT__CUDA_DEVATTR_UNIFIED_ADDRESSING cudaDevAttrUnifiedAddressing
#define XRT__CUDA_DEVATTR_PCI_DOMAIN_ID cudaDevAttrPciDomainId
#define XRT__CUDA_DEVATTR_COMPUTE_CAPABILITY_MAJOR cudaDevAttrComputeCapabilityMajor
#define XRT__CUDA_DEVATTR_COMPUTE_CAPABILITY_MINOR cudaDevAttrComputeCapabilityMinor
#define XRT__CUDA_DEVATTR_STREAM_PRIORITIES_SUPPORTED cudaDevAttrStreamPrioritiesSupported
#define XRT__CUDA_DEVATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR cudaDevAttrMaxSharedMemoryPerMultiprocessor
#define XRT__CUDA_DEVATTR_MANAGED_MEMORY cudaDevAttrManagedMemory
#define XRT__CUDA_DEVATTR_HOST_NATIVE_ATOMIC_SUPPORTED cudaDevAttrHostNativeAtomicSupported
#define XRT__CUDA_DEVATTR_PAGEABLE_MEMORY_ACCESS cudaDevAttrPageableMemoryAccess
#define XRT__CUDA_DEVATTR_CONCURRENT_MANAGED_ACCESS cudaDevAttrConcurrentManagedAccess
#define XRT__CUDA_DEVATTR_COOPERATIVE_LAUNCH cudaDevAttrCooperativeLaunch
#define XRT__CUDA_DEVATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN cudaDevAttrMaxSharedMemoryPerBlockOptin
#define XRT__CUDA_DEVATTR_HOST_REGISTER_SUPPORTED cudaDevAttrHostRegisterSupported
#define XRT__CUDA_DEVATTR_MEMORY_POOLS_SUPPORTED cudaDevAttrMemoryPoolsSupported
#define XRT__CUDA_DEVATTR_GPU_DIRECT_RDMA_SUPPORTED cudaDevAttrGPUDirectRDMASupported
#define XRT__CUDA_DEVATTR_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS cudaDevAttrGPUDirectRDMAFlushWritesOptions
#define XRT__CUDA_DEVATTR_GPU_DIRECT_RDMA_WRITES_ORDERING cudaDevAttrGPUDirectRDMAWritesOrdering
#define XRT__CUDA_DEVATTR_NUMA_ID 131 /* cudaDevAttrNumaId: CUDA 12.2 on */
XRT__DEVICE_ATTRS(XRT__CUDA_DEVATTR_SAME)
XRT__GPU_ASSERT(XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER == (int)cudaFlushGPUDirectRDMAWritesToOwner &&
                    XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_ALL_DEVICES == (int)cudaFlushGPUDirectRDMAWritesToAllDevices &&
                    XRT_GPU_DIRECT_RDMA_WRITES_ORDERING_OWNER == (int)cudaGPUDirectRDMAWritesOrderingOwner &&
                    XRT_GPU_DIRECT_RDMA_WRITES_ORDERING_ALL_DEVICES == (int)cudaGPUDirectRDMAWritesOrderingAllDevices &&
                    XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST == (int)cudaFlushGPUDirectRDMAWritesOptionHost &&
                    XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_MEMOPS == (int)cudaFlushGPUDirectRDMAWritesOptionMemOps,
                "xrt's GPUDirect RDMA values are not CUDA's");
/* User objects' flags are passed as they are. */
XRT__GPU_ASSERT((int)XRT_USER_OBJECT_NO_DESTRUCTOR_SYNC == (int)cudaUserObjectNoDestructorSync &&
                    (int)XRT_GRAPH_USER_OBJECT_MOVE == (int)cudaGraphUserObjectMove,
                "xrt's user object flags are not CUDA's");
/* xrt_stream_attr_value is cudaStreamAttrValue, passed as it is. */
XRT__GPU_ASSERT(sizeof(xrt_stream_attr_value) == sizeof(cudaStreamAttrValue) &&
                    sizeof(xrt_access_policy_window) == sizeof(struct cudaAccessPolicyWindow) &&
                    offsetof(xrt_access_policy_window, num_bytes) == offsetof(struct cudaAccessPolicyWindow, num_bytes) &&
                    offsetof(xrt_access_policy_window, hit_ratio) == offsetof(struct cudaAccessPolicyWindow, hitRatio) &&
                    offsetof(xrt_access_policy_window, hit_prop) == offsetof(struct cudaAccessPolicyWindow, hitProp) &&
                    offsetof(xrt_access_policy_window, miss_prop) == offsetof(struct cudaAccessPolicyWindow, missProp) &&
                    sizeof(((xrt_stream_attr_value *)0)->mem_sync_domain_map) == sizeof(cudaLaunchMemSyncDomainMap) &&
                    (int)XRT_STREAM_ATTR_ACCESS_POLICY_WINDOW == (int)cudaStreamAttributeAccessPolicyWindow &&
                    (int)XRT_STREAM_ATTR_SYNCHRONIZATION_POLICY == (int)cudaStreamAttributeSynchronizationPolicy &&
                    (int)XRT_STREAM_ATTR_PRIORITY == (int)cudaStreamAttributePriority &&
                    (int)XRT_STREAM_ATTR_MEM_SYNC_DOMAIN_MAP == (int)cudaStreamAttributeMemSyncDomainMap &&
                    (int)XRT_STREAM_ATTR_MEM_SYNC_DOMAIN == (int)cudaStreamAttributeMemSyncDomain &&
                    (int)XRT_SYNC_POLICY_BLOCKING_SYNC == (int)cudaSyncPolicyBlockingSync &&
                    (int)XRT_ACCESS_PROPERTY_PERSISTING == (int)cudaAccessPropertyPersisting,
                "xrt_stream_attr_value is not cudaStreamAttrValue");
/* xrt_launch_attribute is CUlaunchAttribute (and cudaLaunchAttribute), its
   ids CUDA's, passed as they are. */
XRT__GPU_ASSERT(sizeof(xrt_launch_attribute) == sizeof(CUlaunchAttribute) &&
                    offsetof(xrt_launch_attribute, val) == offsetof(CUlaunchAttribute, value) &&
                    sizeof(xrt_launch_attribute) == sizeof(cudaLaunchAttribute) &&
                    sizeof(((xrt_launch_attr_value *)0)->cluster_dim) ==
                        sizeof(((cudaLaunchAttributeValue *)0)->clusterDim) &&
                    (int)XRT_LAUNCH_ATTR_COOPERATIVE == (int)cudaLaunchAttributeCooperative &&
                    (int)XRT_LAUNCH_ATTR_CLUSTER_DIMENSION == (int)cudaLaunchAttributeClusterDimension &&
                    (int)XRT_LAUNCH_ATTR_CLUSTER_SCHEDULING_POLICY_PREFERENCE ==
                        (int)cudaLaunchAttributeClusterSchedulingPolicyPreference &&
                    (int)XRT_LAUNCH_ATTR_PROGRAMMATIC_STREAM_SERIALIZATION ==
                        (int)cudaLaunchAttributeProgrammaticStreamSerialization &&
                    (int)XRT_LAUNCH_ATTR_PRIORITY == (int)cudaLaunchAttributePriority &&
                    (int)XRT_LAUNCH_ATTR_MEM_SYNC_DOMAIN == (int)cudaLaunchAttributeMemSyncDomain &&
                    (int)CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN == (int)cudaLaunchAttributeMemSyncDomain,
                "xrt_launch_attribute is not CUDA's");
XRT__GPU_ASSERT((int)XRT_COMPUTE_MODE_DEFAULT == (int)cudaComputeModeDefault &&
                    (int)XRT_COMPUTE_MODE_EXCLUSIVE == (int)cudaComputeModeExclusive &&
                    (int)XRT_COMPUTE_MODE_PROHIBITED == (int)cudaComputeModeProhibited &&
                    (int)XRT_COMPUTE_MODE_EXCLUSIVE_PROCESS == (int)cudaComputeModeExclusiveProcess,
                "XRT_COMPUTE_MODE_* are not CUDA's");

static int xrt__cuda_native_attr(int attr) { return attr; }

static xrt__gpu xrt__cuda; /* the backend's data: self->user */

static void xrt__cuda_fill(xrt_backend *t)
{
    static const char *const sonames[] = {"libcudart.so.13", "libcudart.so.12", "libcudart.so", NULL};
    xrt__gpu *g = &xrt__cuda;
    g->name = "cuda";
    g->library_env = "XRT_CUDA_LIBRARY";
    g->sonames = sonames;
    g->syms = xrt__cuda_syms;
    g->nsyms = sizeof xrt__cuda_syms / sizeof xrt__cuda_syms[0];
    g->errors = xrt__cuda_errors;
    g->nerrors = sizeof xrt__cuda_errors / sizeof xrt__cuda_errors[0];
    g->success = cudaSuccess;
    g->legacy_native = (void *)cudaStreamLegacy;
    g->per_thread = (void *)cudaStreamPerThread;
    g->attr_pools = cudaDevAttrMemoryPoolsSupported;
    g->attr_pci[0] = cudaDevAttrPciDomainId;
    g->attr_pci[1] = cudaDevAttrPciBusId;
    g->attr_pci[2] = cudaDevAttrPciDeviceId;
    g->native_attr = xrt__cuda_native_attr;
    g->driver_version = "cudaDriverGetVersion";
    g->stream_device_sym = "cudaStreamGetDevice";
    g->dot_print_sym = "cudaGraphDebugDotPrint";
    g->upload_sym = "cudaGraphUpload";
    g->instantiate_flags = cudaGraphInstantiateFlagAutoFreeOnLaunch | cudaGraphInstantiateFlagDeviceLaunch |
                           cudaGraphInstantiateFlagUseNodePriority;
    g->instantiate_flags_why = "cudaGraphInstantiateFlags";
    g->capture_to_graph_sym = "cudaStreamBeginCaptureToGraph";
    g->graph_mem_trim_sym = "cudaDeviceGraphMemTrim";
    g->graph_mem_attr_sym[0] = "cudaDeviceGetGraphMemAttribute";
    g->graph_mem_attr_sym[1] = "cudaDeviceSetGraphMemAttribute";
    g->node_enabled_sym[0] = "cudaGraphNodeSetEnabled";
    g->node_enabled_sym[1] = "cudaGraphNodeGetEnabled";
    g->get_limit_sym = "cudaDeviceGetLimit";
    g->set_limit_sym = "cudaDeviceSetLimit";
    g->cache_config_sym[0] = "cudaDeviceSetCacheConfig";
    g->cache_config_sym[1] = "cudaDeviceGetCacheConfig";
    g->rdma_flush_sym = "cudaDeviceFlushGPUDirectRDMAWrites";
    g->stream_attr_sym[0] = "cudaStreamSetAttribute";
    g->stream_attr_sym[1] = "cudaStreamGetAttribute";
    g->uobj_sym[0] = "cudaUserObjectCreate";
    g->uobj_sym[1] = "cudaUserObjectRetain";
    g->uobj_sym[2] = "cudaUserObjectRelease";
    g->uobj_sym[3] = "cudaGraphRetainUserObject";
    g->uobj_sym[4] = "cudaGraphReleaseUserObject";
    g->p2p_attr_sym = "cudaDeviceGetP2PAttribute";
    g->limits = 7; /* cudaLimitStackSize .. cudaLimitPersistingL2CacheSize */
    g->record_flags_sym = "cudaEventRecordWithFlags";
    g->wait_external = 1; /* XRT_EVENT_WAIT_EXTERNAL == cudaEventWaitExternal */
    memcpy(g->mem_node_syms, xrt__cuda_mem_node_syms, sizeof g->mem_node_syms);
    g->mem_node = xrt__cuda_mem_node;
    g->probe = xrt__cuda_probe;
    g->no_driver = xrt__cuda_no_driver;
    g->loaded = xrt__cuda_loaded;
    g->fill_prop = xrt__cuda_fill_prop;
    g->target_features = NULL; /* sm_XX says it all */
    g->memory_type = xrt__cuda_memory_type;
    g->address_range = xrt__cuda_address_range;
    g->export_dmabuf = xrt__cuda_export_dmabuf;
    g->ipc_open_flags = -1; /* xrt's flags are CUDA's */
    g->host_register_read_only = cudaHostRegisterReadOnly;
    g->image_kinds = 1u << XRT_IMAGE_CUDA_CUBIN | 1u << XRT_IMAGE_CUDA_PTX | 1u << XRT_IMAGE_CUDA_FATBIN;
    g->image_compatible = xrt__cuda_image_compatible;
    g->module_load = xrt__cuda_module_load;
    g->module_unload = xrt__cuda_module_unload;
    g->module_function = xrt__cuda_module_function;
    g->launch = &xrt__cuda_drv.LaunchKernel; /* the driver's, once loaded */
    g->launch_params[0] = CU_LAUNCH_PARAM_BUFFER_POINTER;
    g->launch_params[1] = CU_LAUNCH_PARAM_BUFFER_SIZE;
    g->launch_params[2] = CU_LAUNCH_PARAM_END;
    g->launch_again = xrt__cuda_launch_again;
    g->launch_failed = xrt__cuda_launch_failed;
    g->launch_ex = xrt__cuda_launch_ex;
    g->knode_attr_sym[0] = "cudaGraphKernelNodeSetAttribute";
    g->knode_attr_sym[1] = "cudaGraphKernelNodeGetAttribute";
    g->knode_attr_sym[2] = "cudaGraphKernelNodeCopyAttributes";
    g->function_attributes = xrt__cuda_function_attributes;
    g->module_global = xrt__cuda_module_global;
    g->function_set_attribute = xrt__cuda_function_set_attribute;
    g->function_set_cache_config = xrt__cuda_function_set_cache_config;
    g->occupancy_blocks = xrt__cuda_occupancy_blocks;
    g->occupancy_block_size = xrt__cuda_occupancy_block_size;
    g->param_bytes = xrt__cuda_param_bytes;
    g->param_info = xrt__cuda_param_info;
    g->node_kinds = xrt__cuda_node_kinds;
    g->nnode_kinds = sizeof xrt__cuda_node_kinds / sizeof xrt__cuda_node_kinds[0];
    g->exec_update_call = "cudaGraphExecUpdate";
    g->node_types = xrt__cuda_node_types;
    g->nnode_types = sizeof xrt__cuda_node_types / sizeof xrt__cuda_node_types[0];
    g->layout = &xrt__cuda_layout;
#ifdef XRT_NO_RUNTIME_LINKING
    g->link = xrt__cuda_link;
#endif
    xrt__gpu_fill(t, g);
}

#ifdef __cplusplus
}
#endif

#endif /* implementation */

/*
------------------------------------------------------------------------------
xrt is available under the MIT licence, whose text every copy must carry:

MIT License

Copyright (c) 2026 the xrt authors

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
------------------------------------------------------------------------------
*/
