/* SPDX-License-Identifier: MIT */
/* xrt_hip.h - the HIP backend: AMD's HIP runtime (libamdhip64) behind xrt.

   Enabled by XRT_ENABLE_HIP; the XRT_IMPL unit needs the HIP headers and
   -D__HIP_PLATFORM_AMD__. Included by xrt.h in the XRT_IMPL translation
   unit; never include it yourself.

   The runtime is loaded at run time, the first of libamdhip64.so.6, .so.5,
   .so that loads, or the one env XRT_HIP_LIBRARY names. HIP 5 and ROCm 6
   are supported; ROCm 7 (libamdhip64.so.7) is not tried, as AMD changed its
   HIP API incompatibly (REFERENCE.md), and a ROCm 7 runtime found otherwise
   (.so, XRT_HIP_LIBRARY) leaves the backend unavailable: refused by its
   file's name (libamdhip64.so.7, or a link to it) before it is loaded, else
   by hipRuntimeGetVersion once loaded. Without /dev/kfd
   (no amdgpu kernel driver) the library is not even loaded: that takes ~15 ms
   and could only fail. Define XRT_NO_RUNTIME_LINKING to call the runtime
   directly and link -lamdhip64.

   HIP 5 and ROCm 6 runtimes both work, whichever headers are installed: the
   structs the runtime fills are read by the layout of the runtime that was
   loaded (hipRuntimeGetVersion), through xrt's own declarations below, and
   so are the numbers that changed between versions (graph node types, the
   IPC open flag).

   The operations are xrt__gpu_* (xrt_gpu.h); this file holds what is HIP's:
   the symbol list, the error table, the struct layouts, the hooks and
   xrt__hip_fill.
*/
#if defined(XRT__IMPL_INCLUDED) && !defined(XRT__HIP_IMPL_INCLUDED)
#define XRT__HIP_IMPL_INCLUDED

#ifndef __HIP_PLATFORM_AMD__
#error "the xrt HIP backend needs -D__HIP_PLATFORM_AMD__ (HIP's NVIDIA path is CUDA: use XRT_ENABLE_CUDA)"
#endif
#if defined(__has_include)
#if !__has_include(<hip/hip_runtime_api.h>)
#error "XRT_ENABLE_HIP: hip/hip_runtime_api.h not found: install libamdhip64-dev (Debian, Ubuntu) or ROCm and add its include directory (-I/opt/rocm/include), or do not define XRT_ENABLE_HIP"
#endif
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

#include "xrt_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* >> hip: the runtime's symbols: the HIP columns of XRT__GPU_RT_FIELDS
   (xrt_gpu.h), in HIP's types, checked against hip_runtime_api.h as for
   CUDA. hipGetDeviceProperties fills the HIP 5 layout in every runtime;
   xrt__hip_loaded picks ROCm 6's. */
#define XRT__HIP_TYPES(X)                         \
    X(error, hipError_t)                          \
    X(stream, hipStream_t)                        \
    X(event, hipEvent_t)                          \
    X(device_attr, hipDeviceAttribute_t)          \
    X(device_prop, hipDeviceProp_t *)             \
    X(memcpy_kind, hipMemcpyKind)                 \
    X(pointer_attr, hipPointerAttribute_t *)      \
    X(callback, hipStreamCallback_t)              \
    X(host_fn, hipHostFn_t)                       \
    X(graph, hipGraph_t)                          \
    X(graph_exec, hipGraphExec_t)                 \
    X(graph_node, hipGraphNode_t)                 \
    X(capture_mode, hipStreamCaptureMode)         \
    X(capture_status, hipStreamCaptureStatus)     \
    X(node_type, hipGraphNodeType)                \
    X(kernel_params, hipKernelNodeParams *)       \
    X(kernel_params_in, const hipKernelNodeParams *) \
    X(memset_params, hipMemsetParams *)           \
    X(memset_params_in, const hipMemsetParams *)  \
    X(host_params, hipHostNodeParams *)           \
    X(host_params_in, const hipHostNodeParams *)  \
    X(memcpy3d, hipMemcpy3DParms *)               \
    X(memcpy3d_in, const hipMemcpy3DParms *)      \
    X(memcpy3d_exec_in, hipMemcpy3DParms *)       \
    X(pitched_ptr, hipPitchedPtr)                 \
    X(extent, hipExtent)                          \
    X(ipc_mem_handle, hipIpcMemHandle_t)          \
    X(ipc_event_handle, hipIpcEventHandle_t)      \
    X(mem_pool, hipMemPool_t)                     \
    X(pool_props_in, const hipMemPoolProps *)     \
    X(pool_attr, hipMemPoolAttr)                  \
    X(access_desc_in, const hipMemAccessDesc *)   \
    X(access_flags_out, hipMemAccessFlags *)      \
    X(mem_location, hipMemLocation *)             \
    X(range_attr, hipMemRangeAttribute)
#define XRT__HIP_TYPEDEF(name, type) typedef type xrt__hip_t_##name;
XRT__HIP_TYPES(XRT__HIP_TYPEDEF)
#undef XRT__HIP_TYPEDEF
#define XRT__HIP_SAME_SIZE(name, type) \
    XRT__GPU_ASSERT(sizeof(xrt__hip_t_##name) == sizeof(xrt__gpu_t_##name), "HIP's " #type " is not the size of xrt's");
XRT__HIP_TYPES(XRT__HIP_SAME_SIZE)
#undef XRT__HIP_SAME_SIZE

#define XRT__GPU_VENDOR hip
#define XRT__HIP_TYPE(field, cuda, cuda_optional, sym, optional, ret, params) \
    XRT__GPU_SAME_TYPE(xrt__hip_type_##field, ret(*) params, sym)
XRT__GPU_RT_FIELDS(XRT__HIP_TYPE)
#undef XRT__HIP_TYPE

#define XRT__HIP_SYM(field, cuda, cuda_optional, sym, optional, ret, params) {#sym, XRT__GPU_CALL(field), optional},
static const xrt__gpu_sym xrt__hip_syms[] = {XRT__GPU_RT_FIELDS(XRT__HIP_SYM)};
#undef XRT__HIP_SYM

#ifdef XRT_NO_RUNTIME_LINKING
/* Optional symbols: redeclared weak, so a library without them links and they are NULL. */
#define XRT__HIP_WEAK_0(sym, ret, params)
#define XRT__HIP_WEAK_1(sym, ret, params) ret sym params __attribute__((weak));
#define XRT__HIP_WEAK(field, cuda, cuda_optional, sym, optional, ret, params) XRT__HIP_WEAK_##optional(sym, ret, params)
XRT__GPU_RT_FIELDS(XRT__HIP_WEAK)
#undef XRT__HIP_WEAK
#undef XRT__HIP_WEAK_0
#undef XRT__HIP_WEAK_1

static void xrt__hip_link(xrt__gpu *g)
{
#define XRT__HIP_LINK(field, cuda, cuda_optional, sym, optional, ret, params) \
    {                                                                        \
        ret(*checked_) params = &sym;                                        \
        memcpy(&g->rt.field, &checked_, sizeof checked_);                    \
    }
    XRT__GPU_RT_FIELDS(XRT__HIP_LINK)
#undef XRT__HIP_LINK
}
#endif
#undef XRT__GPU_VENDOR

/* Entry points that HIP 5's headers do not declare, so they cannot be in the
   checked list: looked up by name after loading (xrt__hip_loaded). Both take
   ROCm 6's types. */
static struct {
    int r0600; /* GetDeviceProperties is hipGetDevicePropertiesR0600 */
    int (*MemGetHandleForAddressRange)(void *handle, void *ptr, size_t size, int type, unsigned long long flags);
    /* modules: declared by HIP 5 and 6 alike, looked up as optional (not
       rows of the runtime table, which CUDA's runtime would need too) */
    int (*ModuleLoadData)(void **module, const void *image);
    int (*ModuleUnload)(void *module);
    int (*ModuleGetFunction)(void **function, void *module, const char *name);
    int (*ModuleLaunchKernel)(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                              unsigned shared, void *stream, void **params, void **extra);
    int (*FuncGetAttribute)(int *value, int attr, void *function);
    int (*ModuleGetGlobal)(void **ptr, size_t *bytes, void *module, const char *name);
    int (*ModuleOccupancyMaxActiveBlocksPerMultiprocessor)(int *blocks, void *function, int block_size, size_t shared);
    int (*ModuleOccupancyMaxPotentialBlockSize)(int *grid, int *block, void *function, size_t shared, int limit);
    int (*MemGetAddressRange)(void **base, size_t *size, void *ptr); /* optional, as the module ones */
    /* sets of 2- and 4-byte values (optional, as the module ones) */
    int (*MemsetD16Async)(void *dst, unsigned short value, size_t count, void *stream);
    int (*MemsetD32Async)(void *dst, int value, size_t count, void *stream);
    int (*MemsetD16)(void *dst, unsigned short value, size_t count);
    int (*MemsetD32)(void *dst, int value, size_t count);
} xrt__hip_ext;
/* X(field of xrt__hip_ext, symbol, return type, parameters): the module
   entry points, hipMemGetAddressRange (pointer attributes' base and size)
   and the sets of 2- and 4-byte values, their types checked against the
   header in every build. */
#define XRT__HIP_MODULE_SYMBOLS(X)                                                                            \
    X(ModuleLoadData, hipModuleLoadData, hipError_t, (hipModule_t * module, const void *image))             \
    X(ModuleUnload, hipModuleUnload, hipError_t, (hipModule_t module))                                       \
    X(ModuleGetFunction, hipModuleGetFunction, hipError_t, (hipFunction_t * function, hipModule_t module, const char *kname)) \
    X(ModuleLaunchKernel, hipModuleLaunchKernel, hipError_t,                                                \
      (hipFunction_t f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ, unsigned int blockDimX, \
       unsigned int blockDimY, unsigned int blockDimZ, unsigned int sharedMemBytes, hipStream_t stream,     \
       void **kernelParams, void **extra))                                                                  \
    X(FuncGetAttribute, hipFuncGetAttribute, hipError_t, (int *value, hipFunction_attribute attrib, hipFunction_t hfunc)) \
    X(ModuleGetGlobal, hipModuleGetGlobal, hipError_t,                                                      \
      (hipDeviceptr_t * dptr, size_t *bytes, hipModule_t hmod, const char *name))                           \
    X(ModuleOccupancyMaxActiveBlocksPerMultiprocessor, hipModuleOccupancyMaxActiveBlocksPerMultiprocessor,  \
      hipError_t, (int *numBlocks, hipFunction_t f, int blockSize, size_t dynSharedMemPerBlk))             \
    X(ModuleOccupancyMaxPotentialBlockSize, hipModuleOccupancyMaxPotentialBlockSize, hipError_t,            \
      (int *gridSize, int *blockSize, hipFunction_t f, size_t dynSharedMemPerBlk, int blockSizeLimit))     \
    X(MemGetAddressRange, hipMemGetAddressRange, hipError_t, (hipDeviceptr_t * base, size_t *size, hipDeviceptr_t ptr)) \
    X(MemsetD16Async, hipMemsetD16Async, hipError_t, (hipDeviceptr_t dst, unsigned short value, size_t count, hipStream_t stream)) \
    X(MemsetD32Async, hipMemsetD32Async, hipError_t, (hipDeviceptr_t dst, int value, size_t count, hipStream_t stream)) \
    X(MemsetD16, hipMemsetD16, hipError_t, (hipDeviceptr_t dst, unsigned short value, size_t count))        \
    X(MemsetD32, hipMemsetD32, hipError_t, (hipDeviceptr_t dst, int value, size_t count))
#define XRT__HIP_MODULE_TYPE(field, sym, ret, params) \
    typedef char xrt__hip_module_type_##field[sizeof((ret(*) params)0 == &sym)];
XRT__HIP_MODULE_SYMBOLS(XRT__HIP_MODULE_TYPE)
#undef XRT__HIP_MODULE_TYPE
/* hipMemRangeHandleTypeDmaBufFd (CUDA's value): declared, with
   hipMemGetHandleForAddressRange, by ROCm releases after 6.0 (rocm-6.0.0's
   header has neither), so the entry point is looked up by name. */
#define XRT__HIP_DMABUF_FD 1

/* hipErrorGraphExecUpdateFailure: in HIP 5.2's header and ROCm 6's, CUDA's value. */
XRT__GPU_ASSERT(hipErrorGraphExecUpdateFailure == 910, "hipErrorGraphExecUpdateFailure is not CUDA's 910");

/* >> hip: errors. Every other error is XRT_ERROR_BACKEND; hipErrorMemoryAllocation
   and hipErrorInvalidResourceHandle are aliases of hipErrorOutOfMemory and
   hipErrorInvalidHandle. */
static const xrt__gpu_error xrt__hip_errors[] = {
    {hipErrorInvalidValue, XRT_ERROR_INVALID_VALUE},
    {hipErrorOutOfMemory, XRT_ERROR_OUT_OF_MEMORY},
    {hipErrorInsufficientDriver, XRT_ERROR_BACKEND_UNAVAILABLE},
    {hipErrorNoDevice, XRT_ERROR_NO_DEVICE},
    {hipErrorInvalidDevice, XRT_ERROR_INVALID_DEVICE},
    {hipErrorInvalidDevicePointer, XRT_ERROR_INVALID_POINTER},
    {hipErrorInvalidMemcpyDirection, XRT_ERROR_INVALID_MEMCPY_KIND},
    {hipErrorInvalidHandle, XRT_ERROR_INVALID_HANDLE},
    {hipErrorNotReady, XRT_ERROR_NOT_READY},
    {hipErrorNotSupported, XRT_ERROR_UNSUPPORTED},
    {hipErrorUnsupportedLimit, XRT_ERROR_UNSUPPORTED},
    {hipErrorNoBinaryForGpu, XRT_ERROR_NO_BINARY_FOR_DEVICE},
    {hipErrorInvalidImage, XRT_ERROR_INVALID_IMAGE},
    {hipErrorNotFound, XRT_ERROR_NOT_FOUND},
    {hipErrorIllegalState, XRT_ERROR_ILLEGAL_STATE},
    {hipErrorStreamCaptureUnsupported, XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED},
    {hipErrorStreamCaptureInvalidated, XRT_ERROR_STREAM_CAPTURE_INVALIDATED},
    {hipErrorStreamCaptureMerge, XRT_ERROR_STREAM_CAPTURE_MERGE},
    {hipErrorStreamCaptureUnmatched, XRT_ERROR_STREAM_CAPTURE_UNMATCHED},
    {hipErrorStreamCaptureUnjoined, XRT_ERROR_STREAM_CAPTURE_UNJOINED},
    {hipErrorStreamCaptureIsolation, XRT_ERROR_STREAM_CAPTURE_ISOLATION},
    {hipErrorStreamCaptureImplicit, XRT_ERROR_STREAM_CAPTURE_IMPLICIT}, /* the NULL stream would join a capture */
    {hipErrorCapturedEvent, XRT_ERROR_CAPTURED_EVENT},
    {hipErrorStreamCaptureWrongThread, XRT_ERROR_STREAM_CAPTURE_WRONG_THREAD},
    {hipErrorGraphExecUpdateFailure, XRT_ERROR_GRAPH_EXEC_UPDATE_FAILURE},
    {hipErrorPeerAccessAlreadyEnabled, XRT_ERROR_PEER_ACCESS_ALREADY_ENABLED},
    {hipErrorPeerAccessNotEnabled, XRT_ERROR_PEER_ACCESS_NOT_ENABLED},
    {hipErrorHostMemoryAlreadyRegistered, XRT_ERROR_HOST_MEMORY_ALREADY_REGISTERED},
    {hipErrorHostMemoryNotRegistered, XRT_ERROR_HOST_MEMORY_NOT_REGISTERED},
};

/* xrt's capture modes and statuses are HIP's. */
/* xrt's stream flags are HIP's. */
XRT__GPU_ASSERT((int)hipStreamDefault == (int)XRT_STREAM_DEFAULT && (int)hipStreamNonBlocking == (int)XRT_STREAM_NON_BLOCKING,
                "hipStreamNonBlocking");
XRT__GPU_ASSERT((int)hipStreamCaptureModeGlobal == (int)XRT_CAPTURE_MODE_GLOBAL &&
                    (int)hipStreamCaptureModeThreadLocal == (int)XRT_CAPTURE_MODE_THREAD_LOCAL &&
                    (int)hipStreamCaptureModeRelaxed == (int)XRT_CAPTURE_MODE_RELAXED,
                "hipStreamCaptureMode");
XRT__GPU_ASSERT((int)hipStreamCaptureStatusNone == (int)XRT_CAPTURE_STATUS_NONE &&
                    (int)hipStreamCaptureStatusActive == (int)XRT_CAPTURE_STATUS_ACTIVE &&
                    (int)hipStreamCaptureStatusInvalidated == (int)XRT_CAPTURE_STATUS_INVALIDATED,
                "hipStreamCaptureStatus");

/* >> hip: layouts. The structs the runtime fills, as each major version lays
   them out, written from ROCm's documentation: only the fields xrt reads are
   named; the rest is counted. HIP_VERSION = major * 10^7 + minor * 10^5 + patch. */
#define XRT__HIP_VERSION_6 60000000

/* hipDeviceProp_t of HIP 5 (ROCm 6 keeps it as hipDeviceProp_tR0000, still
   filled by the plain hipGetDeviceProperties). */
typedef struct xrt__hip_prop_r0000 {
    char name[256];
    size_t totalGlobalMem, sharedMemPerBlock;
    int regsPerBlock, warpSize;
    int unread1[10];          /* maxThreadsPerBlock .. memoryBusWidth */
    size_t totalConstMem;
    int major, minor, multiProcessorCount;
    int unread2[9];           /* l2CacheSize .. pciDeviceID */
    size_t maxSharedMemoryPerMultiProcessor;
    int isMultiGpuBoard, canMapHostMemory, gcnArch;
    char gcnArchName[256];
} xrt__hip_prop_r0000;
XRT__GPU_ASSERT(offsetof(xrt__hip_prop_r0000, warpSize) == 276, "HIP 5 hipDeviceProp_t layout");
XRT__GPU_ASSERT(offsetof(xrt__hip_prop_r0000, multiProcessorCount) == 336, "HIP 5 hipDeviceProp_t layout");
XRT__GPU_ASSERT(offsetof(xrt__hip_prop_r0000, gcnArchName) == 396, "HIP 5 hipDeviceProp_t layout");

/* hipDeviceProp_tR0600 (ROCm 6 and 7, hipGetDevicePropertiesR0600): CUDA's
   head with uuid and luid, then HIP's own fields after 95 reserved ints. */
typedef struct xrt__hip_prop_r0600 {
    char name[256];
    char uuid_luid[28];       /* hipUUID uuid, char luid[8], unsigned luidDeviceNodeMask */
    size_t totalGlobalMem, sharedMemPerBlock;
    int regsPerBlock, warpSize;
    size_t memPitch;
    int unread1[8];           /* maxThreadsPerBlock .. clockRate */
    size_t totalConstMem;
    int major, minor;
    size_t textureAlignment, texturePitchAlignment;
    int deviceOverlap, multiProcessorCount;
    int unread2[192];         /* kernelExecTimeoutEnabled .. hipReserved[32] */
    char gcnArchName[256];
} xrt__hip_prop_r0600;
XRT__GPU_ASSERT(offsetof(xrt__hip_prop_r0600, totalGlobalMem) == 288, "ROCm 6 hipDeviceProp_tR0600 layout");
XRT__GPU_ASSERT(offsetof(xrt__hip_prop_r0600, warpSize) == 308, "ROCm 6 hipDeviceProp_tR0600 layout");
XRT__GPU_ASSERT(offsetof(xrt__hip_prop_r0600, multiProcessorCount) == 388, "ROCm 6 hipDeviceProp_tR0600 layout");
XRT__GPU_ASSERT(offsetof(xrt__hip_prop_r0600, gcnArchName) == 1160, "ROCm 6 hipDeviceProp_tR0600 layout");

/* hipPointerAttribute_t: one layout in HIP 5 and ROCm 6, but ROCm 6 renamed
   memoryType to type and renumbered hipMemoryType (adding Unregistered = 0
   and Managed = 3). */
typedef struct xrt__hip_pointer_attr {
    int type; /* HIP 5: memoryType */
    int device;
    void *devicePointer, *hostPointer;
    int isManaged;
    unsigned allocationFlags;
} xrt__hip_pointer_attr;

/* The installed headers must agree with the declarations above for their
   own version. */
#if HIP_VERSION_MAJOR >= 6
XRT__GPU_ASSERT(offsetof(hipDeviceProp_tR0600, totalGlobalMem) == offsetof(xrt__hip_prop_r0600, totalGlobalMem) &&
                    offsetof(hipDeviceProp_tR0600, warpSize) == offsetof(xrt__hip_prop_r0600, warpSize) &&
                    offsetof(hipDeviceProp_tR0600, multiProcessorCount) == offsetof(xrt__hip_prop_r0600, multiProcessorCount) &&
                    offsetof(hipDeviceProp_tR0600, gcnArchName) == offsetof(xrt__hip_prop_r0600, gcnArchName),
                "hipDeviceProp_tR0600 differs from xrt's declaration");
XRT__GPU_ASSERT(offsetof(hipPointerAttribute_t, type) == offsetof(xrt__hip_pointer_attr, type),
                "hipPointerAttribute_t differs from xrt's declaration");
#else
XRT__GPU_ASSERT(offsetof(hipDeviceProp_t, totalGlobalMem) == offsetof(xrt__hip_prop_r0000, totalGlobalMem) &&
                    offsetof(hipDeviceProp_t, warpSize) == offsetof(xrt__hip_prop_r0000, warpSize) &&
                    offsetof(hipDeviceProp_t, multiProcessorCount) == offsetof(xrt__hip_prop_r0000, multiProcessorCount) &&
                    offsetof(hipDeviceProp_t, gcnArchName) == offsetof(xrt__hip_prop_r0000, gcnArchName),
                "hipDeviceProp_t differs from xrt's declaration");
XRT__GPU_ASSERT(offsetof(hipPointerAttribute_t, memoryType) == offsetof(xrt__hip_pointer_attr, type),
                "hipPointerAttribute_t differs from xrt's declaration");
#endif
XRT__GPU_ASSERT(offsetof(hipPointerAttribute_t, device) == offsetof(xrt__hip_pointer_attr, device) &&
                    offsetof(hipPointerAttribute_t, isManaged) == offsetof(xrt__hip_pointer_attr, isManaged) &&
                    sizeof(hipPointerAttribute_t) == sizeof(xrt__hip_pointer_attr),
                "hipPointerAttribute_t differs from xrt's declaration");
XRT__GPU_ASSERT(sizeof(xrt__hip_pointer_attr) <= XRT__GPU_POINTER_ATTR_BYTES,
                "hipPointerAttribute_t is larger than the part xrt clears");

/* >> hip: hooks */
static xrt_status xrt__hip_probe(char *reason, size_t n)
{
    /* Only a missing /dev/kfd means no driver; any other failure (no access
       to /dev, say) is for the runtime to explain. */
    if (access("/dev/kfd", F_OK) == 0 || errno != ENOENT) return XRT_SUCCESS;
    snprintf(reason, n, "no /dev/kfd: no AMD GPU driver");
    return XRT_ERROR_BACKEND_UNAVAILABLE;
}

/* ROCm 6 fills its new device struct through a new symbol (its headers map
   hipGetDeviceProperties to it); the plain one keeps filling HIP 5's. */
/* >> hip: graphs. hipGraphExecUpdate keeps CUDA 11's form (exec, graph,
   &errorNode, &result) and hipGraphGetEdges takes no edge data: both looked
   up by name, as CUDA's differ (xrt_cuda.h). Exported since HIP 4.5.

   The node types by the numbers of the runtime that was loaded, which may
   not be the installed header's: HIP 5.2 and before number them from 1,
   with a 1-D copy of their own (9) and the symbol copies at 10 and 11;
   ROCm 5.3 on number them from 0 as CUDA does, without the 1-D copy, the
   symbol copies at 12 and 13. xrt__hip_versioned picks the tables; the
   header must agree with one of them. */
#define XRT__HIP_VERSION_5_3 50300000
#if HIP_VERSION >= XRT__HIP_VERSION_5_3
XRT__GPU_ASSERT(hipGraphNodeTypeKernel == 0 && hipGraphNodeTypeMemcpy == 1 && hipGraphNodeTypeMemset == 2 &&
                    hipGraphNodeTypeHost == 3 && hipGraphNodeTypeGraph == 4 && hipGraphNodeTypeEmpty == 5 &&
                    hipGraphNodeTypeWaitEvent == 6 && hipGraphNodeTypeEventRecord == 7 &&
                    hipGraphNodeTypeMemcpyFromSymbol == 12 && hipGraphNodeTypeMemcpyToSymbol == 13,
                "hipGraphNodeType is not numbered as xrt's ROCm 5.3 tables");
#else
XRT__GPU_ASSERT(hipGraphNodeTypeKernel == 1 && hipGraphNodeTypeMemcpy == 2 && hipGraphNodeTypeMemset == 3 &&
                    hipGraphNodeTypeHost == 4 && hipGraphNodeTypeGraph == 5 && hipGraphNodeTypeEmpty == 6 &&
                    hipGraphNodeTypeWaitEvent == 7 && hipGraphNodeTypeEventRecord == 8 &&
                    hipGraphNodeTypeMemcpy1D == 9 && hipGraphNodeTypeMemcpyFromSymbol == 10 &&
                    hipGraphNodeTypeMemcpyToSymbol == 11,
                "hipGraphNodeType is not numbered as xrt's HIP 5.2 tables");
#endif
/* What xrt_graph_get_info counts: ROCm 5.3 on; HIP 5.2 */
static const xrt__gpu_node_kind xrt__hip_node_kinds[] = {
    {0, offsetof(xrt_graph_info, kernels)}, {1, offsetof(xrt_graph_info, copies)},
    {12, offsetof(xrt_graph_info, copies)}, {13, offsetof(xrt_graph_info, copies)},
    {2, offsetof(xrt_graph_info, sets)},    {3, offsetof(xrt_graph_info, host_fns)},
};
static const xrt__gpu_node_kind xrt__hip5_node_kinds[] = {
    {1, offsetof(xrt_graph_info, kernels)}, {2, offsetof(xrt_graph_info, copies)},
    {9, offsetof(xrt_graph_info, copies)},  {10, offsetof(xrt_graph_info, copies)},
    {11, offsetof(xrt_graph_info, copies)}, {3, offsetof(xrt_graph_info, sets)},
    {4, offsetof(xrt_graph_info, host_fns)},
};

static struct {
    int (*ExecUpdate)(void *exec, void *graph, void **error_node, int *result);
    int (*Edges)(void *graph, void **from, void **to, size_t *count);
    /* a node's dependencies [0] and dependents [1]; adding [0] and removing [1] edges */
    int (*NodeEdges[2])(void *node, void **nodes, size_t *count);
    int (*Edit[2])(void *graph, void *const *from, void *const *to, size_t n);
    int (*CaptureInfo)(void *stream, int *status, unsigned long long *id, void **graph, void *const **deps, size_t *n);
    int (*UpdateDeps)(void *stream, void *const *deps, size_t n, unsigned flags);
} xrt__hip_graph;
XRT__GPU_SAME_TYPE(xrt__hip_type_update_deps, hipError_t(*)(hipStream_t, hipGraphNode_t *, size_t, unsigned int),
                   hipStreamUpdateCaptureDependencies)
XRT__GPU_SAME_TYPE(xrt__hip_type_capture_info,
                   hipError_t(*)(hipStream_t, hipStreamCaptureStatus *, unsigned long long *, hipGraph_t *,
                                 const hipGraphNode_t **, size_t *),
                   hipStreamGetCaptureInfo_v2)

static int xrt__hip_capture_last(const xrt__gpu *g, void *stream, void **graph, void **node)
{
    void *const *deps = NULL, *into = NULL;
    size_t n = 0;
    int status = 0, e = xrt__hip_graph.CaptureInfo(stream, &status, NULL, &into, &deps, &n);
    return xrt__gpu_capture_last_of(g, e, status, into, deps, n, graph, node);
}

static int xrt__hip_capture_id(void *stream, int *status, unsigned long long *id)
{
    return xrt__hip_graph.CaptureInfo(stream, status, id, NULL, NULL, NULL);
}

static int xrt__hip_capture_graph(void *stream, int *status, unsigned long long *id, void **graph, void *const **deps,
                                  size_t *n)
{
    return xrt__hip_graph.CaptureInfo(stream, status, id, graph, deps, n);
}

static int xrt__hip_capture_update(void *stream, void *const *deps, size_t n, unsigned flags)
{
    return xrt__hip_graph.UpdateDeps(stream, deps, n, flags); /* hipStreamAddCaptureDependencies 0, _Set 1: xrt's */
}
static const char *const xrt__hip_node_edges_calls[2] = {"hipGraphNodeGetDependencies", "hipGraphNodeGetDependentNodes"};
static const char *const xrt__hip_edit_calls[2] = {"hipGraphAddDependencies", "hipGraphRemoveDependencies"};
XRT__GPU_SAME_TYPE(xrt__hip_type_deps, hipError_t(*)(hipGraphNode_t, hipGraphNode_t *, size_t *), hipGraphNodeGetDependencies)
XRT__GPU_SAME_TYPE(xrt__hip_type_dependents, hipError_t(*)(hipGraphNode_t, hipGraphNode_t *, size_t *),
                   hipGraphNodeGetDependentNodes)
XRT__GPU_SAME_TYPE(xrt__hip_type_add_deps, hipError_t(*)(hipGraph_t, const hipGraphNode_t *, const hipGraphNode_t *, size_t),
                   hipGraphAddDependencies)
XRT__GPU_SAME_TYPE(xrt__hip_type_remove_deps,
                   hipError_t(*)(hipGraph_t, const hipGraphNode_t *, const hipGraphNode_t *, size_t),
                   hipGraphRemoveDependencies)

/* HIP's node types as xrt's (ROCm 5.3 on; HIP 5.2, with its 1-D copy),
   and where HIP's node structs keep their fields (another order than CUDA's). */
static const xrt__gpu_node_type xrt__hip_node_types[] = {
    {0, XRT_GRAPH_NODE_KERNEL}, {1, XRT_GRAPH_NODE_MEMCPY}, {2, XRT_GRAPH_NODE_MEMSET},
    {3, XRT_GRAPH_NODE_HOST},   {4, XRT_GRAPH_NODE_GRAPH},  {5, XRT_GRAPH_NODE_EMPTY},
    {6, XRT_GRAPH_NODE_WAIT_EVENT}, {7, XRT_GRAPH_NODE_EVENT_RECORD},
};
static const xrt__gpu_node_type xrt__hip5_node_types[] = {
    {1, XRT_GRAPH_NODE_KERNEL}, {2, XRT_GRAPH_NODE_MEMCPY}, {9, XRT_GRAPH_NODE_MEMCPY},
    {3, XRT_GRAPH_NODE_MEMSET}, {4, XRT_GRAPH_NODE_HOST},   {5, XRT_GRAPH_NODE_GRAPH},
    {6, XRT_GRAPH_NODE_EMPTY},  {7, XRT_GRAPH_NODE_WAIT_EVENT}, {8, XRT_GRAPH_NODE_EVENT_RECORD},
};
static const xrt__gpu_layout xrt__hip_layout = {
    sizeof(hipKernelNodeParams), offsetof(hipKernelNodeParams, func), offsetof(hipKernelNodeParams, gridDim),
    offsetof(hipKernelNodeParams, blockDim), offsetof(hipKernelNodeParams, sharedMemBytes),
    offsetof(hipKernelNodeParams, kernelParams), offsetof(hipKernelNodeParams, extra),
    sizeof(hipMemsetParams), offsetof(hipMemsetParams, dst), offsetof(hipMemsetParams, pitch),
    offsetof(hipMemsetParams, value), offsetof(hipMemsetParams, elementSize), offsetof(hipMemsetParams, width),
    offsetof(hipMemsetParams, height),
    sizeof(hipMemcpy3DParms), offsetof(hipMemcpy3DParms, srcArray), offsetof(hipMemcpy3DParms, srcPos),
    offsetof(hipMemcpy3DParms, srcPtr), offsetof(hipMemcpy3DParms, dstArray), offsetof(hipMemcpy3DParms, dstPos),
    offsetof(hipMemcpy3DParms, dstPtr), offsetof(hipMemcpy3DParms, extent), offsetof(hipMemcpy3DParms, kind)};
XRT__GPU_ASSERT(sizeof(hipKernelNodeParams) <= XRT__GPU_NODE_BYTES && sizeof(hipMemsetParams) <= XRT__GPU_NODE_BYTES &&
                    sizeof(hipMemcpy3DParms) <= XRT__GPU_NODE_BYTES,
                "a HIP node struct is larger than xrt's buffer");
XRT__GPU_ASSERT(sizeof(((hipKernelNodeParams *)0)->gridDim) == sizeof(xrt_dim3) &&
                    sizeof(((hipKernelNodeParams *)0)->sharedMemBytes) == sizeof(unsigned) &&
                    sizeof(((hipMemsetParams *)0)->value) == sizeof(unsigned) &&
                    sizeof(((hipMemsetParams *)0)->elementSize) == sizeof(unsigned) &&
                    sizeof(struct hipPos) == 3 * sizeof(size_t) && sizeof(struct hipExtent) == 3 * sizeof(size_t) &&
                    offsetof(struct hipPitchedPtr, ptr) == 0 && sizeof(hipMemcpyKind) == sizeof(int) &&
                    offsetof(struct hipPitchedPtr, pitch) == offsetof(xrt_pitched_ptr, pitch) &&
                    offsetof(struct hipPitchedPtr, ysize) == offsetof(xrt_pitched_ptr, ysize) &&
                    offsetof(struct hipExtent, depth) == offsetof(xrt_extent, depth) &&
                    offsetof(struct hipPos, z) == offsetof(xrt_pos, z),
                "HIP's node struct fields are not of the sizes xrt writes");
XRT__GPU_ASSERT(sizeof(hipHostNodeParams) == 2 * sizeof(void *) && offsetof(hipHostNodeParams, userData) == sizeof(void *),
                "hipHostNodeParams is not (fn, user)");

/* HIP's edges carry no data: data stays plain. */
static int xrt__hip_list_edges(const xrt__gpu *g, int what, void *of, void **a, void **b, xrt__gpu_edge_data *data,
                               size_t *count, const char **call)
{
    int k = what == XRT__GRAPH_LIST_DEPENDENTS;
    (void)g, (void)data;
    if (what == XRT__GRAPH_LIST_EDGES) {
        *call = "hipGraphGetEdges";
        return xrt__hip_graph.Edges(of, a, b, count);
    }
    *call = xrt__hip_node_edges_calls[k];
    return xrt__hip_graph.NodeEdges[k](of, a, count);
}

static int xrt__hip_edit_edges(const xrt__gpu *g, void *graph, void *const *from, void *const *to, size_t n, int remove,
                               const char **call)
{
    (void)g;
    *call = xrt__hip_edit_calls[remove != 0];
    return xrt__hip_graph.Edit[remove != 0](graph, from, to, n);
}
XRT__GPU_SAME_TYPE(xrt__hip_type_exec_update,
                   hipError_t(*)(hipGraphExec_t, hipGraph_t, hipGraphNode_t *, hipGraphExecUpdateResult *),
                   hipGraphExecUpdate)
/* Memory pools: the props xrt__gpu_mem_pool_create writes, and the attributes' numbers. */
XRT__GPU_ASSERT(sizeof(hipMemPoolProps) <= sizeof(xrt__gpu_pool_props) &&
                    offsetof(hipMemPoolProps, allocType) == offsetof(xrt__gpu_pool_props, alloc_type) &&
                    offsetof(hipMemPoolProps, handleTypes) == offsetof(xrt__gpu_pool_props, handle_types) &&
                    offsetof(hipMemPoolProps, location.type) == offsetof(xrt__gpu_pool_props, location_type) &&
                    offsetof(hipMemPoolProps, location.id) == offsetof(xrt__gpu_pool_props, location_id) &&
                    hipMemAllocationTypePinned == XRT__GPU_POOL_PINNED &&
                    hipMemLocationTypeDevice == XRT__GPU_LOCATION_DEVICE,
                "hipMemPoolProps does not begin as xrt writes it");
XRT__GPU_ASSERT(sizeof(hipMemAccessDesc) == sizeof(xrt__gpu_access_desc) &&
                    offsetof(hipMemAccessDesc, location.type) == offsetof(xrt__gpu_access_desc, location_type) &&
                    offsetof(hipMemAccessDesc, location.id) == offsetof(xrt__gpu_access_desc, location_id) &&
                    offsetof(hipMemAccessDesc, flags) == offsetof(xrt__gpu_access_desc, flags) &&
                    sizeof(hipMemAccessFlags) == sizeof(int) && hipMemAccessFlagsProtNone == XRT_MEM_ACCESS_FLAGS_PROT_NONE &&
                    hipMemAccessFlagsProtRead == XRT_MEM_ACCESS_FLAGS_PROT_READ &&
                    hipMemAccessFlagsProtReadWrite == XRT_MEM_ACCESS_FLAGS_PROT_READ_WRITE &&
                    sizeof(hipMemLocation) == 2 * sizeof(int),
                "hipMemAccessDesc is not as xrt writes it");
XRT__GPU_ASSERT((int)hipMemPoolReuseFollowEventDependencies == XRT_MEMPOOL_REUSE_FOLLOW_EVENT_DEPENDENCIES &&
                    (int)hipMemPoolReuseAllowOpportunistic == XRT_MEMPOOL_REUSE_ALLOW_OPPORTUNISTIC &&
                    (int)hipMemPoolReuseAllowInternalDependencies == XRT_MEMPOOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES &&
                    (int)hipMemPoolAttrReleaseThreshold == XRT_MEMPOOL_ATTR_RELEASE_THRESHOLD &&
                    (int)hipMemPoolAttrReservedMemCurrent == XRT_MEMPOOL_ATTR_RESERVED_MEM_CURRENT &&
                    (int)hipMemPoolAttrReservedMemHigh == XRT_MEMPOOL_ATTR_RESERVED_MEM_HIGH &&
                    (int)hipMemPoolAttrUsedMemCurrent == XRT_MEMPOOL_ATTR_USED_MEM_CURRENT &&
                    (int)hipMemPoolAttrUsedMemHigh == XRT_MEMPOOL_ATTR_USED_MEM_HIGH,
                "hipMemPoolAttr's numbers are not xrt_mem_pool_attr's");
XRT__GPU_ASSERT((int)hipMemRangeAttributeReadMostly == XRT_MEM_RANGE_ATTRIBUTE_READ_MOSTLY &&
                    (int)hipMemRangeAttributePreferredLocation == XRT_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION &&
                    (int)hipMemRangeAttributeAccessedBy == XRT_MEM_RANGE_ATTRIBUTE_ACCESSED_BY &&
                    (int)hipMemRangeAttributeLastPrefetchLocation == XRT_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION &&
                    hipCpuDeviceId == XRT_CPU_DEVICE_ID && hipInvalidDeviceId == XRT_INVALID_DEVICE_ID,
                "hipMemRangeAttribute's numbers or HIP's location ids are not xrt's");
XRT__GPU_SAME_TYPE(xrt__hip_type_edges, hipError_t(*)(hipGraph_t, hipGraphNode_t *, hipGraphNode_t *, size_t *),
                   hipGraphGetEdges)
XRT__GPU_ASSERT(sizeof(hipGraphExecUpdateResult) == sizeof(int), "hipGraphExecUpdateResult");

static int xrt__hip_exec_update(const xrt__gpu *g, void *exec, void *graph, int *result, void **node, void **from)
{
    (void)g;
    *result = 0;
    *node = *from = NULL; /* hipGraphExecUpdate names no edge's source */
    return xrt__hip_graph.ExecUpdate(exec, graph, node, result);
}

static xrt_status xrt__hip_graph_edges(const xrt__gpu *g, void *graph, size_t *count)
{
    int e;
    *count = 0;
    e = xrt__hip_graph.Edges(graph, NULL, NULL, count);
    return e == g->success ? XRT_SUCCESS : xrt__gpu_fail_as(g, e, "hipGraphGetEdges", "graph_get_info");
}

static void xrt__hip_graph_hooks(xrt__gpu *g)
{
    void *update = xrt__gpu_lookup(g, "hipGraphExecUpdate"), *edges = xrt__gpu_lookup(g, "hipGraphGetEdges");
    void *info = xrt__gpu_lookup(g, "hipStreamGetCaptureInfo_v2");
    memcpy(&xrt__hip_graph.CaptureInfo, &info, sizeof info);
    g->capture_last = info ? xrt__hip_capture_last : NULL;
    g->capture_id = info ? xrt__hip_capture_id : NULL;
    g->capture_info_call = "hipStreamGetCaptureInfo_v2";
    g->capture_graph = info ? xrt__hip_capture_graph : NULL;
    info = xrt__gpu_lookup(g, "hipStreamUpdateCaptureDependencies");
    memcpy(&xrt__hip_graph.UpdateDeps, &info, sizeof info);
    g->capture_update = info ? xrt__hip_capture_update : NULL;
    g->capture_update_call = "hipStreamUpdateCaptureDependencies";
    memcpy(&xrt__hip_graph.ExecUpdate, &update, sizeof update);
    memcpy(&xrt__hip_graph.Edges, &edges, sizeof edges);
    int k, all = edges != NULL;
    g->exec_update = update ? xrt__hip_exec_update : NULL;
    g->graph_edges = edges ? xrt__hip_graph_edges : NULL;
    for (k = 0; k < 2; k++) {
        void *list = xrt__gpu_lookup(g, xrt__hip_node_edges_calls[k]), *change = xrt__gpu_lookup(g, xrt__hip_edit_calls[k]);
        memcpy(&xrt__hip_graph.NodeEdges[k], &list, sizeof list);
        memcpy(&xrt__hip_graph.Edit[k], &change, sizeof change);
        all = all && list && change;
    }
    g->list_edges = all ? xrt__hip_list_edges : NULL;
    g->edit_edges = all ? xrt__hip_edit_edges : NULL;
}

/* >> hip: managed memory: hipMemPrefetchAsync and hipMemAdvise take an int
   device (hipCpuDeviceId is XRT_CPU_DEVICE_ID) and the advice as CUDA's
   values; looked up by name (their signatures are not CUDA 13's). */
static struct {
    int (*Prefetch)(const void *ptr, size_t count, int device, void *stream);
    int (*Advise)(const void *ptr, size_t count, int advice, int device);
} xrt__hip_managed;

static int xrt__hip_mem_prefetch(const xrt__gpu *g, const void *ptr, size_t count, int device, void *stream,
                                 const char **call)
{
    (void)g;
    *call = "hipMemPrefetchAsync";
    return xrt__hip_managed.Prefetch(ptr, count, device, stream);
}

static int xrt__hip_mem_advise(const xrt__gpu *g, const void *ptr, size_t count, int advice, int device,
                               const char **call)
{
    (void)g;
    *call = "hipMemAdvise";
    return xrt__hip_managed.Advise(ptr, count, advice, device);
}

static void xrt__hip_managed_hooks(xrt__gpu *g)
{
    void *prefetch = xrt__gpu_lookup(g, "hipMemPrefetchAsync"), *advise = xrt__gpu_lookup(g, "hipMemAdvise");
    memcpy(&xrt__hip_managed.Prefetch, &prefetch, sizeof prefetch);
    memcpy(&xrt__hip_managed.Advise, &advise, sizeof advise);
    g->mem_prefetch = prefetch ? xrt__hip_mem_prefetch : NULL;
    g->mem_advise = advise ? xrt__hip_mem_advise : NULL;
}

/* What the runtime that was loaded numbers otherwise than another HIP may
   (and than the installed header may): the graph node types (renumbered in
   ROCm 5.3), and the one flag hipIpcOpenMemHandle takes,
   hipIpcMemLazyEnablePeerAccess (0 in HIP 5, 1 from ROCm 6: clr's
   hipIpcOpenMemHandle refuses any other value, so xrt's 0 and
   XRT_IPC_MEM_LAZY_ENABLE_PEER_ACCESS both pass as it). */
static void xrt__hip_versioned(xrt__gpu *g)
{
    int renumbered = g->version >= XRT__HIP_VERSION_5_3;
    g->node_kinds = renumbered ? xrt__hip_node_kinds : xrt__hip5_node_kinds;
    g->nnode_kinds = renumbered ? sizeof xrt__hip_node_kinds / sizeof xrt__hip_node_kinds[0]
                                : sizeof xrt__hip5_node_kinds / sizeof xrt__hip5_node_kinds[0];
    g->node_types = renumbered ? xrt__hip_node_types : xrt__hip5_node_types;
    g->nnode_types = renumbered ? sizeof xrt__hip_node_types / sizeof xrt__hip_node_types[0]
                                : sizeof xrt__hip5_node_types / sizeof xrt__hip5_node_types[0];
    g->ipc_open_flags = g->version >= XRT__HIP_VERSION_6 ? 1 : 0;
}

/* >> hip: the runtimes xrt supports: HIP 5 and ROCm 6. AMD documents ROCm
   7's HIP API as changed incompatibly (hipGetLastError's meaning among
   others), so xrt uses no runtime of 7 or later: the unversioned
   libamdhip64.so or XRT_HIP_LIBRARY may name one. A version the runtime
   does not tell (0) is taken as HIP 5's. 1 where xrt uses `version`
   (hipRuntimeGetVersion's), else 0 and why. */
#define XRT__HIP_VERSION_7 70000000
static int xrt__hip_supported(int version, char *reason, size_t n)
{
    if (version < XRT__HIP_VERSION_7) return 1;
    snprintf(reason, n,
             "hipRuntimeGetVersion: %d (HIP %d.%d.%d): xrt supports the HIP runtimes of HIP 5 and ROCm 6; ROCm 7 "
             "changed HIP's API incompatibly (hipGetLastError's meaning among others)",
             version, version / 10000000, version / 100000 % 100, version % 100000);
    return 0;
}

/* ROCm 7 and later by the name of the file, before it is loaded: a runtime
   once mapped stays mapped (xrt__gpu_pin). libamdhip64.so.N, N >= 7. */
static int xrt__hip_refused_name(const char *base, char *why, size_t n)
{
    static const char stem[] = "libamdhip64.so.";
    char *end;
    long major;
    if (strncmp(base, stem, sizeof stem - 1) != 0 || base[sizeof stem - 1] < '0' ||
        base[sizeof stem - 1] > '9')
        return 0;
    major = strtol(base + sizeof stem - 1, &end, 10);
    if (major < XRT__HIP_VERSION_7 / 10000000 || (*end && *end != '.')) return 0;
    snprintf(why, n,
             "the HIP runtime of ROCm %ld: xrt supports the HIP runtimes of HIP 5 and ROCm 6; ROCm 7 changed HIP's API "
             "incompatibly (hipGetLastError's meaning among others)",
             major);
    return 1;
}

/* >> hip: sets of 2- and 4-byte values whose bytes differ: hipMemsetD16
   and _D32 (the runtime's 2-D memset sets bytes), of contiguous elements
   only (HIP has no 2-D form of them: a pitch wider than a row is
   XRT_ERROR_UNSUPPORTED; xrt_memset_d16 and _d32 are contiguous). */
static xrt_status xrt__hip_memset_wide(xrt__gpu *g, void *dst, size_t pitch, unsigned value, unsigned element_size,
                                       size_t width, size_t height, void *stream, int async)
{
    const char *op = element_size == 2 ? "memset_d16" : "memset_d32";
    const char *call = element_size == 2 ? (async ? "hipMemsetD16Async" : "hipMemsetD16")
                                         : (async ? "hipMemsetD32Async" : "hipMemsetD32");
    size_t count = width * height;
    char who[64];
    int e;
    snprintf(who, sizeof who, "hip: xrt_%s", op);
    if (height > 1 && pitch != width * element_size)
        return xrt_error(XRT_ERROR_UNSUPPORTED, who, "value 0x%x has unequal bytes, and HIP has no 2-D set of %u-byte "
                         "values (rows %zu bytes apart)", value, element_size, pitch);
    if (!(element_size == 2 ? (async ? xrt__hip_ext.MemsetD16Async != NULL : xrt__hip_ext.MemsetD16 != NULL)
                            : (async ? xrt__hip_ext.MemsetD32Async != NULL : xrt__hip_ext.MemsetD32 != NULL)))
        return xrt_error(XRT_ERROR_UNSUPPORTED, who, "value 0x%x has unequal bytes, and the runtime has no %s", value, call);
    if (element_size == 2)
        e = async ? xrt__hip_ext.MemsetD16Async(dst, (unsigned short)value, count, stream)
                  : xrt__hip_ext.MemsetD16(dst, (unsigned short)value, count);
    else
        e = async ? xrt__hip_ext.MemsetD32Async(dst, (int)value, count, stream) : xrt__hip_ext.MemsetD32(dst, (int)value, count);
    return xrt__gpu_answer(g, e, call, op);
}

static int xrt__hip_loaded(xrt__gpu *g, char *reason, size_t n)
{
    if (!xrt__hip_supported(g->version, reason, n)) return 0;
    xrt__hip_versioned(g);
    xrt__hip_graph_hooks(g);
    xrt__hip_managed_hooks(g);
    void *r0600 = g->version >= XRT__HIP_VERSION_6 ? xrt__gpu_lookup(g, "hipGetDevicePropertiesR0600") : NULL;
    void *handle = xrt__gpu_lookup(g, "hipMemGetHandleForAddressRange");
    xrt__hip_ext.r0600 = r0600 != NULL;
    if (r0600) memcpy(&g->rt.GetDeviceProperties, &r0600, sizeof r0600);
    memcpy(&xrt__hip_ext.MemGetHandleForAddressRange, &handle, sizeof handle);
#define XRT__HIP_MODULE_LOOKUP(field, sym, ret, params) \
    handle = xrt__gpu_lookup(g, #sym);                  \
    memcpy(&xrt__hip_ext.field, &handle, sizeof handle);
    XRT__HIP_MODULE_SYMBOLS(XRT__HIP_MODULE_LOOKUP)
#undef XRT__HIP_MODULE_LOOKUP
    if (!xrt__hip_ext.ModuleLoadData || !xrt__hip_ext.ModuleUnload || !xrt__hip_ext.ModuleGetFunction ||
        !xrt__hip_ext.ModuleLaunchKernel || !xrt__hip_ext.FuncGetAttribute)
        g->module_load = NULL; /* no XRT_CAP_MODULES: loading is XRT_ERROR_UNSUPPORTED */
    g->memset_wide = xrt__hip_memset_wide;
    return 1;
}

/* "gfx90a:sramecc+:xnack-": the processor without its feature flags (the
   flags are the target's features: images are picked by both). */
static void xrt__hip_arch(xrt_device_prop *out, char *gcn_arch_name /* [256] */)
{
    gcn_arch_name[255] = 0;
    snprintf(out->arch, sizeof out->arch, "%.*s", (int)strcspn(gcn_arch_name, ":"), gcn_arch_name);
}

/* The device struct's gcnArchName, by the layout of the runtime that was loaded. */
static void xrt__hip_gcn_arch_name(const void *prop, char name[256])
{
    size_t at = xrt__hip_ext.r0600 ? offsetof(xrt__hip_prop_r0600, gcnArchName) : offsetof(xrt__hip_prop_r0000, gcnArchName);
    memcpy(name, (const char *)prop + at, 256);
    name[255] = 0;
}

/* The target's features: gcnArchName's feature flags, sorted and
   comma-separated ("gfx90a:xnack-:sramecc+": "sramecc+,xnack-"). AMD's
   loader refuses code built for the other SRAMECC or XNACK mode, so two
   modes of one processor are two targets. */
static void xrt__hip_target_features(const void *prop, char *features, size_t n)
{
    char name[256], *flag[16], *at, *t;
    size_t count = 0, i, j, used = 0;
    xrt__hip_gcn_arch_name(prop, name);
    for (at = strchr(name, ':'); at && count < sizeof flag / sizeof flag[0]; at = strchr(at, ':')) {
        *at++ = 0;
        if (*at && *at != ':') flag[count++] = at;
    }
    for (i = 1; i < count; i++) /* insertion sort: a handful of flags */
        for (j = i; j > 0 && strcmp(flag[j - 1], flag[j]) > 0; j--) t = flag[j], flag[j] = flag[j - 1], flag[j - 1] = t;
    features[0] = 0;
    for (i = 0; i < count && used < n; i++) used += (size_t)snprintf(features + used, n - used, "%s%s", i ? "," : "", flag[i]);
}

/* HIP 5's hipDeviceProp_t has no uuid: ask hipDeviceGetUuid (HIP 5.1 on),
   where it is exported; otherwise the uuid stays zero. */
static void xrt__hip_uuid(const xrt__gpu *g, xrt_device_prop *out, int device)
{
    int (*get)(unsigned char *uuid, int device) = NULL;
    void *sym;
    unsigned char uuid[16];
#ifndef XRT_NO_RUNTIME_LINKING
    if (!g->lib) return; /* no runtime loaded: a stand-in table (tests) */
#endif
    if (!(sym = xrt__gpu_lookup(g, "hipDeviceGetUuid"))) return;
    memcpy(&get, &sym, sizeof get);
    if (get(uuid, device) == hipSuccess) memcpy(out->uuid, uuid, sizeof uuid);
    else (void)g->rt.GetLastError();
}

/* HIP has no "no driver" error of its own: a missing /dev/kfd is found by the probe. */
static int xrt__hip_no_driver(const xrt__gpu *g, int e, char *reason, size_t n)
{
    (void)g;
    (void)e;
    (void)reason;
    (void)n;
    return 0;
}

static xrt_status xrt__hip_fill_prop(const xrt__gpu *g, xrt_device_prop *out, const void *prop, int device)
{
    if (xrt__hip_ext.r0600) {
        xrt__hip_prop_r0600 p;
        memcpy(&p, prop, sizeof p);
        out->total_memory = p.totalGlobalMem;
        out->warp_size = p.warpSize;
        out->multiprocessor_count = p.multiProcessorCount;
        xrt__hip_arch(out, p.gcnArchName);
        memcpy(out->uuid, p.uuid_luid, sizeof out->uuid); /* hipUUID uuid */
    } else {
        xrt__hip_prop_r0000 p;
        memcpy(&p, prop, sizeof p);
        out->total_memory = p.totalGlobalMem;
        out->warp_size = p.warpSize;
        out->multiprocessor_count = p.multiProcessorCount;
        xrt__hip_arch(out, p.gcnArchName);
        xrt__hip_uuid(g, out, device);
    }
    return XRT_SUCCESS;
}

static xrt_memory_type xrt__hip_memory_type(const xrt__gpu *g, const void *attr, int *device)
{
    xrt__hip_pointer_attr a;
    memcpy(&a, attr, sizeof a);
    *device = a.device;
    if (g->version >= XRT__HIP_VERSION_6) /* Unregistered 0, Host 1, Device 2, Managed 3, Array 10, Unified 11 */
        return a.type == 1 ? XRT_MEMORY_PINNED_HOST : a.type == 2 || a.type == 10 ? XRT_MEMORY_DEVICE
             : a.type == 3 || a.type == 11 ? XRT_MEMORY_MANAGED : XRT_MEMORY_UNKNOWN;
    if (a.isManaged) return XRT_MEMORY_MANAGED;
    switch (a.type) { /* HIP 5: Host 0, Device 1, Array 2, Unified 3 */
    case 0: return XRT_MEMORY_PINNED_HOST;
    case 1: case 2: return XRT_MEMORY_DEVICE;
    case 3: return XRT_MEMORY_MANAGED;
    default: return XRT_MEMORY_UNKNOWN;
    }
}

/* The allocation around memory the runtime made for another than xrt:
   hipMemGetAddressRange; its failure is not left as the last error. */
static void xrt__hip_address_range(const xrt__gpu *g, const void *p, void **base, size_t *size)
{
    if (!xrt__hip_ext.MemGetAddressRange) return;
    if (xrt__hip_ext.MemGetAddressRange(base, size, (void *)(uintptr_t)p) != g->success) {
        (void)g->rt.GetLastError();
        *base = NULL;
        *size = 0;
    }
}

static xrt_status xrt__hip_export_dmabuf(xrt__gpu *g, int device, void *start, size_t len, int *fd)
{
    int e;
    (void)device;
    if (!xrt__hip_ext.MemGetHandleForAddressRange)
        return xrt_error(XRT_ERROR_UNSUPPORTED, "hip: xrt_mem_export_dmabuf",
                         "the HIP runtime has no hipMemGetHandleForAddressRange");
    e = xrt__hip_ext.MemGetHandleForAddressRange(fd, start, len, XRT__HIP_DMABUF_FD, 0);
    return e == g->success ? XRT_SUCCESS : xrt__gpu_fail_as(g, e, "hipMemGetHandleForAddressRange", "mem_export_dmabuf");
}

/* >> hip: modules: hipModuleLoadData, hipModuleGetFunction and
   hipModuleLaunchKernel with the packed arguments
   (HIP_LAUNCH_PARAM_BUFFER_POINTER), where the runtime exports them. */
static xrt_status xrt__hip_no_modules(const char *who)
{
    return xrt_error(XRT_ERROR_UNSUPPORTED, who, "the HIP runtime lacks the module entry points (hipModuleLoadData & co)");
}

/* >> hip: images. hipModuleLoadData takes no size, so xrt reads an image
   first, within its size: an AMDGPU code object (a 64-bit ELF with e_machine
   EM_AMDGPU, 224: hipcc --genco --no-gpu-bundle-output), or a clang offload
   bundle (magic "__CLANG_OFFLOAD_BUNDLE__": what hipcc --genco writes), its
   entries and the code objects in them, or a compressed bundle ("CCOB",
   clang 19 on: its header only; from version 2 on, it gives the bundle's
   size). The runtime loads either format under either image kind; the kind
   says how xrt picks. */
#define XRT__HIP_BUNDLE_MAGIC "__CLANG_OFFLOAD_BUNDLE__"
#define XRT__HIP_EM_AMDGPU 224

static int xrt__hip_is_bundle(const unsigned char *p, size_t size)
{
    return size >= sizeof XRT__HIP_BUNDLE_MAGIC - 1 && !memcmp(p, XRT__HIP_BUNDLE_MAGIC, sizeof XRT__HIP_BUNDLE_MAGIC - 1);
}

/* An AMDGPU ELF within size bytes (xrt__gpu_elf_bad): 0, or 1 and why. */
static int xrt__hip_elf_bad(const unsigned char *p, size_t size, char *why, size_t n)
{
    return xrt__gpu_elf_bad(p, size, XRT__HIP_EM_AMDGPU, "AMDGPU", why, n);
}

/* >> hip: target ids. AMD's rule for code built for a target id (a
   processor and feature modes, "gfx90a:sramecc+:xnack-"): a feature it
   leaves unspecified runs in either mode; one it names must be the
   device's mode (xrt_target.features, "sramecc+,xnack-"). */

/* Whether the device's features (comma-separated) include the k bytes at f. */
static int xrt__hip_device_has(const char *device, const char *f, size_t k)
{
    size_t len;
    for (; *device; device += len + (device[len] == ',')) {
        len = strcspn(device, ",");
        if (len == k && !memcmp(device, f, k)) return 1;
    }
    return 0;
}

/* The fit of a target id's features (":sramecc+:xnack-", len bytes, not
   NUL-terminated) on a device: -1 where one names another mode or one the
   device lacks, else 2 + how many it names, so that the most specific match
   ranks highest (xrt__hip_image_compatible's 1: xrt cannot tell). */
static int xrt__hip_features_fit(const char *f, size_t len, const char *device)
{
    const char *colon;
    size_t at = 0, k;
    int named = 0;
    for (; at < len; at += k + 1) {
        colon = (const char *)memchr(f + at, ':', len - at);
        k = colon ? (size_t)(colon - (f + at)) : len - at;
        if (k && !xrt__hip_device_has(device, f + at, k)) return -1;
        named += k != 0;
    }
    return 2 + named;
}

/* The processor of a bundle entry's id ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+",
   "hip-amdgcn-amd-amdhsa-gfx906"), of any length, copied into cpu, and its
   features (":xnack+", *flen bytes); 0 for another target (the host's entry). */
static int xrt__hip_entry_cpu(const unsigned char *id, uint64_t len, char *cpu, size_t n, const char **features,
                              size_t *flen)
{
    static const char triple[] = "amdgcn-amd-amdhsa-";
    const unsigned char *at = (const unsigned char *)memmem(id, (size_t)len, triple, sizeof triple - 1), *end = id + len;
    const unsigned char *colon;
    if (!at) return 0;
    at += sizeof triple - 1;
    if (at < end && *at == '-') at++; /* the empty environment of hipv4 ids */
    colon = (const unsigned char *)memchr(at, ':', (size_t)(end - at));
    *features = colon ? (const char *)colon : "";
    *flen = colon ? (size_t)(end - colon) : 0;
    if (colon) end = colon;
    snprintf(cpu, n, "%.*s", (int)((size_t)(end - at) < n ? (size_t)(end - at) : n), (const char *)at);
    return 1;
}

/* An entry's fit on target t: its processor's by its features; 0 for a
   generic target's (gfx9-4-generic, ROCm 6.2 on), which may run there (the
   runtime knows which processors it covers); -2 for another processor's. */
static int xrt__hip_entry_fit(const xrt_target *t, const char *cpu, const char *features, size_t flen)
{
    if (!strcmp(cpu, t->arch)) return xrt__hip_features_fit(features, flen, t->features);
    return strstr(cpu, "-generic") ? 0 : -2;
}

/* Walks a bundle's entries, checking each lies within size and each AMDGPU
   entry is a sound code object. Returns 0 when the bundle is sound (and,
   for a target t, *fit: its best entry's fit; 0 where it has none for t's
   processor), or 1 and why. */
static int xrt__hip_bundle_bad(const unsigned char *p, size_t size, const xrt_target *t, int *fit, char *why, size_t n)
{
    uint64_t count, at = sizeof XRT__HIP_BUNDLE_MAGIC - 1 + 8, i;
    char cpu[64], inner[160];
    const char *features;
    size_t flen;
    int best = -2, f;
    *fit = 0;
    if (!xrt__gpu_within(0, at, size)) return snprintf(why, n, "a clang offload bundle cut short (%zu bytes)", size) > 0;
    count = xrt__gpu_le(p + at - 8, 8);
    for (i = 0; i < count; i++) {
        uint64_t off, len, id_len = 0;
        if (xrt__gpu_within(at, 24, size)) id_len = xrt__gpu_le(p + at + 16, 8);
        if (!xrt__gpu_within(at, 24, size) || !xrt__gpu_within(at + 24, id_len, size))
            return snprintf(why, n, "a clang offload bundle cut short: entry %u of %llu ends past its %zu bytes",
                            (unsigned)i, (unsigned long long)count, size) > 0;
        off = xrt__gpu_le(p + at, 8), len = xrt__gpu_le(p + at + 8, 8);
        if (!xrt__gpu_within(off, len, size))
            return snprintf(why, n, "a clang offload bundle cut short: the code of entry %u ends past its %zu bytes",
                            (unsigned)i, size) > 0;
        if (xrt__hip_entry_cpu(p + at + 24, id_len, cpu, sizeof cpu, &features, &flen)) {
            if (xrt__hip_elf_bad(p + off, (size_t)len, inner, sizeof inner))
                return snprintf(why, n, "a clang offload bundle whose %s code object is %s", cpu, inner) > 0;
            if (t && (f = xrt__hip_entry_fit(t, cpu, features, flen)) > best) best = f;
        }
        at += 24 + id_len;
    }
    *fit = best == -2 ? 0 : best;
    return 0;
}

/* A code object's modes from its e_flags (code object v4 on: ELFOSABI_AMDGPU_HSA,
   EI_ABIVERSION 2 and up), as a target id's features (":sramecc+:xnack-"):
   XNACK bits 8-9, SRAMECC bits 10-11, each 0 unsupported, 1 any, 2 off,
   3 on. An older code object names none. */
static void xrt__hip_elf_features(const unsigned char *p, char *out, size_t n)
{
    static const char *const mode[] = {"", "", "-", "+"};
    unsigned flags = (unsigned)xrt__gpu_le(p + 48, 4), x = flags >> 8 & 3, s = flags >> 10 & 3;
    if (p[7] != 64 || p[8] < 2) x = s = 0;
    snprintf(out, n, "%s%s%s%s", s >= 2 ? ":sramecc" : "", mode[s], x >= 2 ? ":xnack" : "", mode[x]);
}

/* A code object runs on its label's processor ("gfx90a", or a target id,
   "gfx90a:xnack-", whose modes are its e_flags') in the modes its e_flags
   allow: -1 in another, 0 on another processor or without a label. */
static int xrt__hip_code_object_fit(const xrt_target *t, const xrt_module_image *im)
{
    const char *a = im->arch ? im->arch : "";
    size_t len = strcspn(a, ":");
    char features[32];
    int fit;
    if (im->size < 64) return 0; /* no ELF header: the check before loading refuses it */
    xrt__hip_elf_features((const unsigned char *)im->data, features, sizeof features);
    if ((fit = xrt__hip_features_fit(features, strlen(features), t->features)) < 0) return -1;
    return len && len == strlen(t->arch) && !memcmp(a, t->arch, len) ? fit : 0;
}

/* How well an image runs on target t (xrt__image_pick's rank): a code
   object by its label and e_flags, a bundle by its entries' target ids; 1
   where xrt cannot tell (a compressed bundle, or one the check before
   loading refuses): it is tried. */
static int xrt__hip_image_compatible(const xrt_target *t, const xrt_module_image *im)
{
    const unsigned char *p = (const unsigned char *)im->data;
    char why[200]; /* unused: an unsound image is tried, and refused by the check before loading */
    int fit = 0;
    if (xrt__hip_is_bundle(p, im->size)) return xrt__hip_bundle_bad(p, im->size, t, &fit, why, sizeof why) ? 1 : fit;
    if (im->size >= 4 && !memcmp(p, "\177ELF", 4)) return xrt__hip_code_object_fit(t, im);
    return im->kind == XRT_IMAGE_HIP_OFFLOAD_BUNDLE;
}

/* A compressed bundle's header: "CCOB", version (2 bytes), method (2), then
   from version 2 on the bundle's size (4 bytes; 8 from version 3): 0, or 1
   and why. */
static int xrt__hip_ccob_bad(const unsigned char *p, size_t size, char *why, size_t n)
{
    uint64_t version, total;
    if (size < 16) return snprintf(why, n, "a compressed offload bundle cut short (%zu bytes)", size) > 0;
    version = xrt__gpu_le(p + 4, 2);
    if (version < 2) return 0;
    total = xrt__gpu_le(p + 8, version == 2 ? 4 : 8);
    if (total > size)
        return snprintf(why, n, "a compressed offload bundle cut short: %zu of its %llu bytes", size,
                        (unsigned long long)total) > 0;
    return 0;
}

/* XRT_SUCCESS, or XRT_ERROR_INVALID_IMAGE saying what the image is. */
static xrt_status xrt__hip_image_check(const xrt_module_image *im)
{
    const unsigned char *p = (const unsigned char *)im->data;
    char why[200];
    int fit, bad;
    if (xrt__hip_is_bundle(p, im->size)) bad = xrt__hip_bundle_bad(p, im->size, NULL, &fit, why, sizeof why);
    else if (im->size >= 4 && !memcmp(p, "CCOB", 4)) bad = xrt__hip_ccob_bad(p, im->size, why, sizeof why);
    else if (im->size >= 4 && !memcmp(p, "\177ELF", 4)) bad = xrt__hip_elf_bad(p, im->size, why, sizeof why);
    else bad = snprintf(why, sizeof why, "neither an AMDGPU code object (ELF) nor a clang offload bundle") > 0;
    if (!bad) return XRT_SUCCESS;
    return xrt_error(XRT_ERROR_INVALID_IMAGE, "hip: xrt_module_load", "the image (%s %s, %zu bytes) is %s",
                     xrt__image_kind_name(im->kind), im->arch && im->arch[0] ? im->arch : "(any arch)", im->size, why);
}

static xrt_status xrt__hip_module_load(xrt__gpu *g, const xrt_module_image *im, void **native, int *any_device,
                                       char *log, size_t n)
{
    xrt_status st;
    int e;
    (void)log, (void)n, (void)any_device; /* a module of the current device */
    if (!xrt__hip_ext.ModuleLoadData) return xrt__hip_no_modules("hip: xrt_module_load");
    if ((st = xrt__hip_image_check(im)) != XRT_SUCCESS) return st;
    e = xrt__hip_ext.ModuleLoadData(native, im->data);
    return e == g->success ? XRT_SUCCESS : xrt__gpu_fail_as(g, e, "hipModuleLoadData", "module_load");
}

static xrt_status xrt__hip_module_unload(xrt__gpu *g, void *native)
{
    int e;
    if (!xrt__hip_ext.ModuleUnload) return xrt__hip_no_modules("hip: xrt_module_unload");
    e = xrt__hip_ext.ModuleUnload(native);
    return e == g->success ? XRT_SUCCESS : xrt__gpu_fail_as(g, e, "hipModuleUnload", "module_unload");
}

static xrt_status xrt__hip_module_function(xrt__gpu *g, void *native, const char *name, void **fn)
{
    int e;
    if (!xrt__hip_ext.ModuleGetFunction) return xrt__hip_no_modules("hip: xrt_module_get_function");
    if ((e = xrt__hip_ext.ModuleGetFunction(fn, native, name)) == hipErrorNotFound)
        return xrt_error(XRT_ERROR_NOT_FOUND, "hip: xrt_module_get_function", "no kernel named '%s' in the module", name);
    return e == g->success ? XRT_SUCCESS : xrt__gpu_fail_as(g, e, "hipModuleGetFunction", "module_get_function");
}

/* A launch (xrt__gpu_launch_kernel) calls hipModuleLaunchKernel directly. */
static xrt_status xrt__hip_launch_failed(xrt__gpu *g, int e) XRT__COLD;
static xrt_status xrt__hip_launch_failed(xrt__gpu *g, int e)
{
    return xrt__gpu_fail_as(g, e, "hipModuleLaunchKernel", "launch_kernel");
}

static xrt_status xrt__hip_function_attributes(xrt__gpu *g, void *fn, xrt_function_attributes *a)
{
    int v[4] = {0, 0, 0, 0}, e;
    if (!xrt__hip_ext.FuncGetAttribute) return xrt__hip_no_modules("hip: xrt_function_get_attributes");
    if ((e = xrt__hip_ext.FuncGetAttribute(&v[0], HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn)) == g->success &&
        (e = xrt__hip_ext.FuncGetAttribute(&v[1], HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn)) == g->success &&
        (e = xrt__hip_ext.FuncGetAttribute(&v[2], HIP_FUNC_ATTRIBUTE_NUM_REGS, fn)) == g->success)
        e = xrt__hip_ext.FuncGetAttribute(&v[3], HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, fn);
    if (e != g->success) return xrt__gpu_fail_as(g, e, "hipFuncGetAttribute", "function_get_attributes");
    a->max_threads_per_block = v[0];
    a->shared_size_bytes = (size_t)v[1];
    a->num_regs = v[2];
    a->max_dynamic_shared_bytes = (size_t)v[3];
    return XRT_SUCCESS;
}

static xrt_status xrt__hip_module_global(xrt__gpu *g, void *native, const char *name, void **ptr, size_t *size)
{
    int e;
    if (!xrt__hip_ext.ModuleGetGlobal) return xrt__hip_no_modules("hip: xrt_module_get_global");
    if ((e = xrt__hip_ext.ModuleGetGlobal(ptr, size, native, name)) == hipErrorNotFound)
        return xrt_error(XRT_ERROR_NOT_FOUND, "hip: xrt_module_get_global", "no variable named '%s' in the module", name);
    return e == g->success ? XRT_SUCCESS : xrt__gpu_fail_as(g, e, "hipModuleGetGlobal", "module_get_global");
}

static xrt_status xrt__hip_occupancy_blocks(xrt__gpu *g, void *fn, int block_size, size_t shared, int *blocks)
{
    int e;
    if (!xrt__hip_ext.ModuleOccupancyMaxActiveBlocksPerMultiprocessor)
        return xrt__hip_no_modules("hip: xrt_occupancy_max_active_blocks_per_multiprocessor");
    e = xrt__hip_ext.ModuleOccupancyMaxActiveBlocksPerMultiprocessor(blocks, fn, block_size, shared);
    return e == g->success ? XRT_SUCCESS
                           : xrt__gpu_fail_as(g, e, "hipModuleOccupancyMaxActiveBlocksPerMultiprocessor",
                                              "occupancy_max_active_blocks_per_multiprocessor");
}

static xrt_status xrt__hip_occupancy_block_size(xrt__gpu *g, void *fn, size_t shared, int limit, int *min_grid,
                                                int *block)
{
    int e;
    if (!xrt__hip_ext.ModuleOccupancyMaxPotentialBlockSize)
        return xrt__hip_no_modules("hip: xrt_occupancy_max_potential_block_size");
    e = xrt__hip_ext.ModuleOccupancyMaxPotentialBlockSize(min_grid, block, fn, shared, limit);
    return e == g->success ? XRT_SUCCESS
                           : xrt__gpu_fail_as(g, e, "hipModuleOccupancyMaxPotentialBlockSize",
                                              "occupancy_max_potential_block_size");
}

/* >> hip: the table */
/* xrt's attributes (CUDA's values) as HIP's, whose enum is ordered otherwise;
   -1 for one HIP 5 lacks. */
static int xrt__hip_native_attr(int attr)
{
    switch (attr) {
    case XRT_DEVATTR_MAX_THREADS_PER_BLOCK: return hipDeviceAttributeMaxThreadsPerBlock;
    case XRT_DEVATTR_MAX_BLOCK_DIM_X: return hipDeviceAttributeMaxBlockDimX;
    case XRT_DEVATTR_MAX_BLOCK_DIM_Y: return hipDeviceAttributeMaxBlockDimY;
    case XRT_DEVATTR_MAX_BLOCK_DIM_Z: return hipDeviceAttributeMaxBlockDimZ;
    case XRT_DEVATTR_MAX_GRID_DIM_X: return hipDeviceAttributeMaxGridDimX;
    case XRT_DEVATTR_MAX_GRID_DIM_Y: return hipDeviceAttributeMaxGridDimY;
    case XRT_DEVATTR_MAX_GRID_DIM_Z: return hipDeviceAttributeMaxGridDimZ;
    case XRT_DEVATTR_MAX_SHARED_MEMORY_PER_BLOCK: return hipDeviceAttributeMaxSharedMemoryPerBlock;
    case XRT_DEVATTR_WARP_SIZE: return hipDeviceAttributeWarpSize;
    case XRT_DEVATTR_MAX_PITCH: return hipDeviceAttributeMaxPitch;
    case XRT_DEVATTR_MAX_REGISTERS_PER_BLOCK: return hipDeviceAttributeMaxRegistersPerBlock;
    case XRT_DEVATTR_CLOCK_RATE: return hipDeviceAttributeClockRate;
    case XRT_DEVATTR_MULTIPROCESSOR_COUNT: return hipDeviceAttributeMultiprocessorCount;
    case XRT_DEVATTR_INTEGRATED: return hipDeviceAttributeIntegrated;
    case XRT_DEVATTR_CAN_MAP_HOST_MEMORY: return hipDeviceAttributeCanMapHostMemory;
    case XRT_DEVATTR_CONCURRENT_KERNELS: return hipDeviceAttributeConcurrentKernels;
    case XRT_DEVATTR_PCI_BUS_ID: return hipDeviceAttributePciBusId;
    case XRT_DEVATTR_PCI_DEVICE_ID: return hipDeviceAttributePciDeviceId;
    case XRT_DEVATTR_MEMORY_CLOCK_RATE: return hipDeviceAttributeMemoryClockRate;
    case XRT_DEVATTR_GLOBAL_MEMORY_BUS_WIDTH: return hipDeviceAttributeMemoryBusWidth;
    case XRT_DEVATTR_L2_CACHE_SIZE: return hipDeviceAttributeL2CacheSize;
    case XRT_DEVATTR_MAX_THREADS_PER_MULTIPROCESSOR: return hipDeviceAttributeMaxThreadsPerMultiProcessor;
    case XRT_DEVATTR_ASYNC_ENGINE_COUNT: return hipDeviceAttributeAsyncEngineCount;
    case XRT_DEVATTR_UNIFIED_ADDRESSING: return hipDeviceAttributeUnifiedAddressing;
    case XRT_DEVATTR_PCI_DOMAIN_ID: return hipDeviceAttributePciDomainID;
    case XRT_DEVATTR_COMPUTE_CAPABILITY_MAJOR: return hipDeviceAttributeComputeCapabilityMajor;
    case XRT_DEVATTR_COMPUTE_CAPABILITY_MINOR: return hipDeviceAttributeComputeCapabilityMinor;
    case XRT_DEVATTR_STREAM_PRIORITIES_SUPPORTED: return hipDeviceAttributeStreamPrioritiesSupported;
    case XRT_DEVATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: return hipDeviceAttributeMaxSharedMemoryPerMultiprocessor;
    case XRT_DEVATTR_MANAGED_MEMORY: return hipDeviceAttributeManagedMemory;
    case XRT_DEVATTR_PAGEABLE_MEMORY_ACCESS: return hipDeviceAttributePageableMemoryAccess;
    case XRT_DEVATTR_CONCURRENT_MANAGED_ACCESS: return hipDeviceAttributeConcurrentManagedAccess;
    case XRT_DEVATTR_COOPERATIVE_LAUNCH: return hipDeviceAttributeCooperativeLaunch;
    case XRT_DEVATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: return hipDeviceAttributeSharedMemPerBlockOptin;
    case XRT_DEVATTR_MEMORY_POOLS_SUPPORTED: return hipDeviceAttributeMemoryPoolsSupported;
    case XRT_DEVATTR_KERNEL_EXEC_TIMEOUT: return hipDeviceAttributeKernelExecTimeout;
    case XRT_DEVATTR_COMPUTE_MODE: return hipDeviceAttributeComputeMode;
    case XRT_DEVATTR_HOST_NATIVE_ATOMIC_SUPPORTED: return hipDeviceAttributeHostNativeAtomicSupported;
    default: return -1; /* HOST_REGISTER_SUPPORTED, NUMA_ID, GPU_OVERLAP, GPU_DIRECT_RDMA_* */
    }
}

static xrt__gpu xrt__hip; /* the backend's data: self->user */

static void xrt__hip_fill(xrt_backend *t)
{
    static const char *const sonames[] = {"libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so", NULL};
    xrt__gpu *g = &xrt__hip;
    g->name = "hip";
    g->library_env = "XRT_HIP_LIBRARY";
    g->refused_name = xrt__hip_refused_name;
    g->sonames = sonames;
    g->syms = xrt__hip_syms;
    g->nsyms = sizeof xrt__hip_syms / sizeof xrt__hip_syms[0];
    g->errors = xrt__hip_errors;
    g->nerrors = sizeof xrt__hip_errors / sizeof xrt__hip_errors[0];
    g->success = hipSuccess;
    g->per_thread = (void *)hipStreamPerThread;
    g->attr_pools = hipDeviceAttributeMemoryPoolsSupported;
    g->attr_pci[0] = hipDeviceAttributePciDomainID;
    g->attr_pci[1] = hipDeviceAttributePciBusId;
    g->attr_pci[2] = hipDeviceAttributePciDeviceId;
    g->native_attr = xrt__hip_native_attr;
    g->driver_version = "hipDriverGetVersion";
    g->stream_device_sym = "hipStreamGetDevice";
    g->dot_print_sym = "hipGraphDebugDotPrint";
    g->upload_sym = "hipGraphUpload";
    g->instantiate_flags = hipGraphInstantiateFlagAutoFreeOnLaunch;
    g->instantiate_flags_why = "HIP 5.2's hipGraphInstantiateFlags has hipGraphInstantiateFlagAutoFreeOnLaunch only";
    g->capture_to_graph_sym = "hipStreamBeginCaptureToGraph";
    g->graph_mem_trim_sym = "hipDeviceGraphMemTrim";
    g->graph_mem_attr_sym[0] = "hipDeviceGetGraphMemAttribute";
    g->graph_mem_attr_sym[1] = "hipDeviceSetGraphMemAttribute";
    g->node_enabled_sym[0] = "hipGraphNodeSetEnabled";
    g->node_enabled_sym[1] = "hipGraphNodeGetEnabled";
    g->get_limit_sym = "hipDeviceGetLimit";
    g->set_limit_sym = "hipDeviceSetLimit";
    g->cache_config_sym[0] = "hipDeviceSetCacheConfig";
    g->cache_config_sym[1] = "hipDeviceGetCacheConfig";
    g->p2p_attr_sym = "hipDeviceGetP2PAttribute";
    g->p2p_attr_shift = hipDevP2PAttrPerformanceRank - 1; /* -1 */
    g->limits = 3; /* stack, printf FIFO, malloc heap: hipLimit_t has no more */
#ifdef hipEventRecordExternal /* later HIPs (not HIP 5): the same values as CUDA's */
    g->record_flags_sym = "hipEventRecordWithFlags";
#endif
#ifdef hipEventWaitExternal
    g->wait_external = 1;
#endif
    g->probe = xrt__hip_probe;
    g->no_driver = xrt__hip_no_driver;
    g->loaded = xrt__hip_loaded;
    g->fill_prop = xrt__hip_fill_prop;
    g->target_features = xrt__hip_target_features;
    g->memory_type = xrt__hip_memory_type;
    g->address_range = xrt__hip_address_range;
    g->export_dmabuf = xrt__hip_export_dmabuf;
    /* no read-only registration: hipHostRegister's 8 is
       hipExtHostRegisterCoarseGrained in HIP 5 and ROCm 6 (whose
       hipHostRegisterReadOnly is the same 8, "ignored on AMD devices") */
    g->host_register_read_only = 0;
    g->read_only_lack = "the HIP runtime has no read-only registration (hipHostRegister takes 8 as "
                        "hipExtHostRegisterCoarseGrained)";
    g->image_kinds = 1u << XRT_IMAGE_HIP_CODE_OBJECT | 1u << XRT_IMAGE_HIP_OFFLOAD_BUNDLE;
    g->image_compatible = xrt__hip_image_compatible;
    g->module_load = xrt__hip_module_load;
    g->module_unload = xrt__hip_module_unload;
    g->module_function = xrt__hip_module_function;
    g->launch = &xrt__hip_ext.ModuleLaunchKernel; /* NULL where the runtime lacks it */
    g->launch_params[0] = HIP_LAUNCH_PARAM_BUFFER_POINTER;
    g->launch_params[1] = HIP_LAUNCH_PARAM_BUFFER_SIZE;
    g->launch_params[2] = HIP_LAUNCH_PARAM_END;
    g->launch_failed = xrt__hip_launch_failed;
    g->function_attributes = xrt__hip_function_attributes;
    g->module_global = xrt__hip_module_global;
    g->function_set_attribute = NULL; /* hipFuncSetAttribute takes a host stub, not a module's function: not yet */
    g->function_set_cache_config = NULL; /* hipFuncSetCacheConfig too */
    g->param_info = NULL;             /* HIP has no hipFuncGetParamInfo */
    g->occupancy_blocks = xrt__hip_occupancy_blocks;
    g->occupancy_block_size = xrt__hip_occupancy_block_size;
    g->exec_update_call = "hipGraphExecUpdate";
    xrt__hip_versioned(g); /* HIP 5's until a runtime is loaded (g->version 0) */
    g->layout = &xrt__hip_layout;
#ifdef XRT_NO_RUNTIME_LINKING
    g->link = xrt__hip_link;
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
