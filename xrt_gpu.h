/* SPDX-License-Identifier: MIT */
/* xrt_gpu.h - the CUDA and HIP backends, written once.

   Implementation only: included by xrt_cuda.h and xrt_hip.h, never by user
   code. HIP mirrors the CUDA runtime call for call, so one set of functions,
   xrt__gpu_<op>, serves both; what differs is data, in one xrt__gpu struct
   per vendor that the operations reach through `self->user`:

     - the vendor's description, filled by name in xrt__cuda_fill or
       xrt__hip_fill: its name, the library to load, the symbol list, the
       error table, a few constants and five hooks (below);
     - `rt`, the loaded runtime's entry points, in vendor-neutral types:
       error codes are int, streams and events void *, enums int, and the
       structs the runtime fills are opaque buffers that only the hooks read;
     - the backend's state: the library handle, the device count, the
       runtime's version and the devices worked on.

   Every call into the runtime is written out where it is made:

       return xrt__gpu_check(g, g->rt.MemcpyAsync(dst, src, size, (int)kind, stream),
                             XRT__GPU_CALL(MemcpyAsync));

   `grep MemcpyAsync xrt_*.h` finds its row of XRT__GPU_RT_FIELDS (the field
   of xrt__gpu_rt, cudaMemcpyAsync, hipMemcpyAsync) and xrt__gpu_memcpy_async,
   the one function that calls it. XRT__GPU_CALL names the entry point in an
   error detail ("cuda: cudaMemcpyAsync: invalid argument
   (cudaErrorInvalidValue=1)").

   Adding an entry point: one row of XRT__GPU_RT_FIELDS (below) names it for
   both vendors, in neutral types; each vendor's header is checked against it
   when compiling. The stand-in runtimes (tests/doubles/cudart_stub.c,
   tests/doubles/cudart_double.c) answer it "not supported" until they
   define it (tests/doubles/cudart_unsupported.c).

   Hooks (xrt__cuda_* in xrt_cuda.h, xrt__hip_* in xrt_hip.h):
     probe(reason, n)        a cheap check before loading (HIP: /dev/kfd)
     loaded(g, reason, n)    after loading: entry points chosen by version,
                             or 0 where xrt cannot use that runtime (HIP 7)
     fill_prop(g, out, p, d) arch, memory, warp size, SMs from the runtime's
                             device struct `p` (the name is copied here)
     memory_type(g, a, &d)   the runtime's pointer attributes `a` as an
                             xrt_memory_type, and their device
     export_dmabuf(g, d, start, len, &fd)   a dma-buf of whole pages

   Host functions: the runtimes forbid runtime calls from inside one, so
   every host function runs through a trampoline that tells the core
   (xrt__host_fn_run): an xrt call from inside then returns
   XRT_ERROR_NOT_PERMITTED instead of deadlocking in the runtime.
*/
/* X(field, CUDA symbol, optional in CUDA, HIP symbol, optional in HIP,
   return type, parameters): the runtimes' entry points, one row each. It
   gives the fields of the table xrt__gpu_rt (in neutral types), both symbol
   lists (an optional symbol may be missing from the library: its field is
   then NULL) and the signature checks against each vendor's header. Types
   are written XRT__GPU_T(name): int or void * in the table, the vendor's own
   type (cudaStream_t, hipStream_t) where a vendor file expands the list with
   XRT__GPU_VENDOR defined as cuda or hip (see XRT__GPU_TYPES). Outside the
   implementation guard for tests/doubles/cudart_stub.c. HIP: hipLaunchHostFunc
   is declared by HIP 5 but not exported; the stream-ordered allocator came
   with HIP 5.1. Capture and graphs (StreamBeginCapture .. GraphNodeGetType)
   are optional in both: a runtime without one of them has no XRT_CAP_GRAPHS
   (cudaGraphInstantiateWithFlags: CUDA 11.4, hipGraphInstantiateWithFlags:
   HIP 4.5; their plain Instantiate differs between the vendors). Graphs
   built node by node (GraphCreate .. GraphNodeFindInClone) are optional
   too: each call says which entry point the runtime lacks; the node
   structs (kernel, memset, 3-D copy params) are opaque in the table and
   read and written by the vendor's layout (xrt__gpu_layout). */
#ifndef XRT__GPU_RT_FIELDS
#define XRT__GPU_T(name) XRT__GPU_T_(XRT__GPU_VENDOR, name)
#define XRT__GPU_T_(vendor, name) XRT__GPU_T__(vendor, name)
#define XRT__GPU_T__(vendor, name) xrt__##vendor##_t_##name
#define XRT__GPU_RT_FIELDS(X) \
    X(GetErrorName, cudaGetErrorName, 0, hipGetErrorName, 0, const char *, (XRT__GPU_T(error) error))                    \
    X(GetErrorString, cudaGetErrorString, 0, hipGetErrorString, 0, const char *, (XRT__GPU_T(error) error))              \
    X(GetLastError, cudaGetLastError, 0, hipGetLastError, 0, XRT__GPU_T(error), (void))                                  \
    X(RuntimeGetVersion, cudaRuntimeGetVersion, 0, hipRuntimeGetVersion, 0, XRT__GPU_T(error), (int *version))           \
    X(GetDeviceCount, cudaGetDeviceCount, 0, hipGetDeviceCount, 0, XRT__GPU_T(error), (int *count))                      \
    X(SetDevice, cudaSetDevice, 0, hipSetDevice, 0, XRT__GPU_T(error), (int device))                                     \
    X(GetDevice, cudaGetDevice, 0, hipGetDevice, 0, XRT__GPU_T(error), (int *device))                                    \
    X(DeviceSynchronize, cudaDeviceSynchronize, 0, hipDeviceSynchronize, 0, XRT__GPU_T(error), (void))                   \
    X(SetDeviceFlags, cudaSetDeviceFlags, 0, hipSetDeviceFlags, 0, XRT__GPU_T(error), (unsigned flags))                  \
    X(GetDeviceFlags, cudaGetDeviceFlags, 0, hipGetDeviceFlags, 0, XRT__GPU_T(error), (unsigned *flags))                 \
    X(DeviceReset, cudaDeviceReset, 0, hipDeviceReset, 0, XRT__GPU_T(error), (void))                                     \
    X(GetDeviceProperties, cudaGetDeviceProperties, 0, hipGetDeviceProperties, 0, XRT__GPU_T(error),                     \
      (XRT__GPU_T(device_prop) prop, int device))                                                                        \
    X(DeviceGetAttribute, cudaDeviceGetAttribute, 0, hipDeviceGetAttribute, 0, XRT__GPU_T(error),                        \
      (int *value, XRT__GPU_T(device_attr) attr, int device))                                                            \
    X(Malloc, cudaMalloc, 0, hipMalloc, 0, XRT__GPU_T(error), (void **ptr, size_t size))                                 \
    X(Free, cudaFree, 0, hipFree, 0, XRT__GPU_T(error), (void *ptr))                                                     \
    X(HostAlloc, cudaHostAlloc, 0, hipHostMalloc, 0, XRT__GPU_T(error), (void **ptr, size_t size, unsigned flags))       \
    X(FreeHost, cudaFreeHost, 0, hipHostFree, 0, XRT__GPU_T(error), (void *ptr))                                         \
    X(HostGetFlags, cudaHostGetFlags, 1, hipHostGetFlags, 1, XRT__GPU_T(error), (unsigned *flags, void *ptr))          \
    X(HostRegister, cudaHostRegister, 1, hipHostRegister, 1, XRT__GPU_T(error),                                          \
      (void *ptr, size_t size, unsigned flags))                                                                          \
    X(HostUnregister, cudaHostUnregister, 1, hipHostUnregister, 1, XRT__GPU_T(error), (void *ptr))                       \
    X(HostGetDevicePointer, cudaHostGetDevicePointer, 1, hipHostGetDevicePointer, 1, XRT__GPU_T(error),                  \
      (void **dptr, void *hptr, unsigned flags))                                                                         \
    X(MallocManaged, cudaMallocManaged, 1, hipMallocManaged, 1, XRT__GPU_T(error),                                       \
      (void **ptr, size_t size, unsigned flags))                                                                         \
    X(StreamAttachMemAsync, cudaStreamAttachMemAsync, 1, hipStreamAttachMemAsync, 1, XRT__GPU_T(error),                  \
      (XRT__GPU_T(stream) stream, void *ptr, size_t length, unsigned flags))                                             \
    X(MemRangeGetAttribute, cudaMemRangeGetAttribute, 1, hipMemRangeGetAttribute, 1, XRT__GPU_T(error),                  \
      (void *data, size_t data_size, XRT__GPU_T(range_attr) attribute, const void *ptr, size_t count))                   \
    X(MallocAsync, cudaMallocAsync, 0, hipMallocAsync, 1, XRT__GPU_T(error),                                             \
      (void **ptr, size_t size, XRT__GPU_T(stream) stream))                                                              \
    X(FreeAsync, cudaFreeAsync, 0, hipFreeAsync, 1, XRT__GPU_T(error), (void *ptr, XRT__GPU_T(stream) stream))           \
    X(DeviceGetDefaultMemPool, cudaDeviceGetDefaultMemPool, 1, hipDeviceGetDefaultMemPool, 1, XRT__GPU_T(error),         \
      (XRT__GPU_T(mem_pool) *pool, int device))                                                                          \
    X(DeviceGetMemPool, cudaDeviceGetMemPool, 1, hipDeviceGetMemPool, 1, XRT__GPU_T(error),                              \
      (XRT__GPU_T(mem_pool) *pool, int device))                                                                          \
    X(DeviceSetMemPool, cudaDeviceSetMemPool, 1, hipDeviceSetMemPool, 1, XRT__GPU_T(error),                              \
      (int device, XRT__GPU_T(mem_pool) pool))                                                                           \
    X(MemPoolCreate, cudaMemPoolCreate, 1, hipMemPoolCreate, 1, XRT__GPU_T(error),                                       \
      (XRT__GPU_T(mem_pool) *pool, XRT__GPU_T(pool_props_in) props))                                                    \
    X(MemPoolDestroy, cudaMemPoolDestroy, 1, hipMemPoolDestroy, 1, XRT__GPU_T(error), (XRT__GPU_T(mem_pool) pool))       \
    X(MemPoolSetAttribute, cudaMemPoolSetAttribute, 1, hipMemPoolSetAttribute, 1, XRT__GPU_T(error),                     \
      (XRT__GPU_T(mem_pool) pool, XRT__GPU_T(pool_attr) attr, void *value))                                              \
    X(MemPoolGetAttribute, cudaMemPoolGetAttribute, 1, hipMemPoolGetAttribute, 1, XRT__GPU_T(error),                     \
      (XRT__GPU_T(mem_pool) pool, XRT__GPU_T(pool_attr) attr, void *value))                                              \
    X(MemPoolTrimTo, cudaMemPoolTrimTo, 1, hipMemPoolTrimTo, 1, XRT__GPU_T(error),                                       \
      (XRT__GPU_T(mem_pool) pool, size_t keep))                                                                          \
    X(MallocFromPoolAsync, cudaMallocFromPoolAsync, 1, hipMallocFromPoolAsync, 1, XRT__GPU_T(error),                     \
      (void **ptr, size_t size, XRT__GPU_T(mem_pool) pool, XRT__GPU_T(stream) stream))                                   \
    X(MemPoolSetAccess, cudaMemPoolSetAccess, 1, hipMemPoolSetAccess, 1, XRT__GPU_T(error),                              \
      (XRT__GPU_T(mem_pool) pool, XRT__GPU_T(access_desc_in) descs, size_t count))                                       \
    X(MemPoolGetAccess, cudaMemPoolGetAccess, 1, hipMemPoolGetAccess, 1, XRT__GPU_T(error),                              \
      (XRT__GPU_T(access_flags_out) flags, XRT__GPU_T(mem_pool) pool, XRT__GPU_T(mem_location) location))                \
    X(MemGetInfo, cudaMemGetInfo, 0, hipMemGetInfo, 0, XRT__GPU_T(error), (size_t *free_bytes, size_t *total_bytes))     \
    X(MemsetAsync, cudaMemsetAsync, 0, hipMemsetAsync, 0, XRT__GPU_T(error),                                             \
      (void *dst, int value, size_t size, XRT__GPU_T(stream) stream))                                                    \
    X(Memcpy, cudaMemcpy, 0, hipMemcpy, 0, XRT__GPU_T(error),                                                            \
      (void *dst, const void *src, size_t size, XRT__GPU_T(memcpy_kind) kind))                                           \
    X(Memset, cudaMemset, 0, hipMemset, 0, XRT__GPU_T(error), (void *dst, int value, size_t size))                      \
    X(MemcpyAsync, cudaMemcpyAsync, 0, hipMemcpyAsync, 0, XRT__GPU_T(error),                                             \
      (void *dst, const void *src, size_t size, XRT__GPU_T(memcpy_kind) kind, XRT__GPU_T(stream) stream))                \
    X(Memcpy2DAsync, cudaMemcpy2DAsync, 1, hipMemcpy2DAsync, 1, XRT__GPU_T(error),                                       \
      (void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,                            \
       XRT__GPU_T(memcpy_kind) kind, XRT__GPU_T(stream) stream))                                                         \
    X(Memcpy2D, cudaMemcpy2D, 1, hipMemcpy2D, 1, XRT__GPU_T(error),                                                     \
      (void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,                            \
       XRT__GPU_T(memcpy_kind) kind))                                                                                    \
    X(Memset2DAsync, cudaMemset2DAsync, 1, hipMemset2DAsync, 1, XRT__GPU_T(error),                                       \
      (void *dst, size_t pitch, int value, size_t width, size_t height, XRT__GPU_T(stream) stream))                      \
    X(Memset2D, cudaMemset2D, 1, hipMemset2D, 1, XRT__GPU_T(error),                                                     \
      (void *dst, size_t pitch, int value, size_t width, size_t height))                                                 \
    X(Memcpy3DAsync, cudaMemcpy3DAsync, 1, hipMemcpy3DAsync, 1, XRT__GPU_T(error),                                       \
      (XRT__GPU_T(memcpy3d_in) p, XRT__GPU_T(stream) stream))                                                            \
    X(Memcpy3D, cudaMemcpy3D, 1, hipMemcpy3D, 1, XRT__GPU_T(error), (XRT__GPU_T(memcpy3d_in) p))                        \
    X(Memset3DAsync, cudaMemset3DAsync, 1, hipMemset3DAsync, 1, XRT__GPU_T(error),                                       \
      (XRT__GPU_T(pitched_ptr) p, int value, XRT__GPU_T(extent) extent, XRT__GPU_T(stream) stream))                      \
    X(Memset3D, cudaMemset3D, 1, hipMemset3D, 1, XRT__GPU_T(error),                                                     \
      (XRT__GPU_T(pitched_ptr) p, int value, XRT__GPU_T(extent) extent))                                                 \
    X(PointerGetAttributes, cudaPointerGetAttributes, 0, hipPointerGetAttributes, 0, XRT__GPU_T(error),                  \
      (XRT__GPU_T(pointer_attr) attr, const void *ptr))                                                                  \
    X(StreamCreateWithFlags, cudaStreamCreateWithFlags, 0, hipStreamCreateWithFlags, 0, XRT__GPU_T(error),               \
      (XRT__GPU_T(stream) *stream, unsigned flags))                                                                      \
    X(StreamCreateWithPriority, cudaStreamCreateWithPriority, 0, hipStreamCreateWithPriority, 0, XRT__GPU_T(error),     \
      (XRT__GPU_T(stream) *stream, unsigned flags, int priority))                                                        \
    X(StreamGetFlags, cudaStreamGetFlags, 0, hipStreamGetFlags, 0, XRT__GPU_T(error),                                    \
      (XRT__GPU_T(stream) stream, unsigned *flags))                                                                      \
    X(StreamGetPriority, cudaStreamGetPriority, 0, hipStreamGetPriority, 0, XRT__GPU_T(error),                           \
      (XRT__GPU_T(stream) stream, int *priority))                                                                        \
    X(DeviceGetStreamPriorityRange, cudaDeviceGetStreamPriorityRange, 0, hipDeviceGetStreamPriorityRange, 0,             \
      XRT__GPU_T(error), (int *least, int *greatest))                                                                    \
    X(StreamDestroy, cudaStreamDestroy, 0, hipStreamDestroy, 0, XRT__GPU_T(error), (XRT__GPU_T(stream) stream))          \
    X(StreamSynchronize, cudaStreamSynchronize, 0, hipStreamSynchronize, 0, XRT__GPU_T(error),                           \
      (XRT__GPU_T(stream) stream))                                                                                       \
    X(StreamQuery, cudaStreamQuery, 0, hipStreamQuery, 0, XRT__GPU_T(error), (XRT__GPU_T(stream) stream))                \
    X(StreamWaitEvent, cudaStreamWaitEvent, 0, hipStreamWaitEvent, 0, XRT__GPU_T(error),                                 \
      (XRT__GPU_T(stream) stream, XRT__GPU_T(event) event, unsigned flags))                                              \
    X(StreamAddCallback, cudaStreamAddCallback, 0, hipStreamAddCallback, 0, XRT__GPU_T(error),                           \
      (XRT__GPU_T(stream) stream, XRT__GPU_T(callback) callback, void *user, unsigned flags))                            \
    X(LaunchHostFunc, cudaLaunchHostFunc, 0, hipLaunchHostFunc, 1, XRT__GPU_T(error),                                    \
      (XRT__GPU_T(stream) stream, XRT__GPU_T(host_fn) fn, void *user))                                                   \
    X(EventCreateWithFlags, cudaEventCreateWithFlags, 0, hipEventCreateWithFlags, 0, XRT__GPU_T(error),                  \
      (XRT__GPU_T(event) *event, unsigned flags))                                                                        \
    X(EventDestroy, cudaEventDestroy, 0, hipEventDestroy, 0, XRT__GPU_T(error), (XRT__GPU_T(event) event))               \
    X(EventRecord, cudaEventRecord, 0, hipEventRecord, 0, XRT__GPU_T(error),                                             \
      (XRT__GPU_T(event) event, XRT__GPU_T(stream) stream))                                                              \
    X(EventQuery, cudaEventQuery, 0, hipEventQuery, 0, XRT__GPU_T(error), (XRT__GPU_T(event) event))                     \
    X(EventSynchronize, cudaEventSynchronize, 0, hipEventSynchronize, 0, XRT__GPU_T(error), (XRT__GPU_T(event) event))   \
    X(EventElapsedTime, cudaEventElapsedTime, 0, hipEventElapsedTime, 0, XRT__GPU_T(error),                              \
      (float *ms, XRT__GPU_T(event) start, XRT__GPU_T(event) end))                                                       \
    X(StreamBeginCapture, cudaStreamBeginCapture, 1, hipStreamBeginCapture, 1, XRT__GPU_T(error),                        \
      (XRT__GPU_T(stream) stream, XRT__GPU_T(capture_mode) mode))                                                        \
    X(StreamEndCapture, cudaStreamEndCapture, 1, hipStreamEndCapture, 1, XRT__GPU_T(error),                              \
      (XRT__GPU_T(stream) stream, XRT__GPU_T(graph) *graph))                                                             \
    X(StreamIsCapturing, cudaStreamIsCapturing, 1, hipStreamIsCapturing, 1, XRT__GPU_T(error),                           \
      (XRT__GPU_T(stream) stream, XRT__GPU_T(capture_status) *status))                                                   \
    X(ThreadExchangeStreamCaptureMode, cudaThreadExchangeStreamCaptureMode, 1, hipThreadExchangeStreamCaptureMode, 1,    \
      XRT__GPU_T(error), (XRT__GPU_T(capture_mode) *mode))                                                               \
    X(GraphInstantiateWithFlags, cudaGraphInstantiateWithFlags, 1, hipGraphInstantiateWithFlags, 1, XRT__GPU_T(error),   \
      (XRT__GPU_T(graph_exec) *exec, XRT__GPU_T(graph) graph, unsigned long long flags))                                 \
    X(GraphLaunch, cudaGraphLaunch, 1, hipGraphLaunch, 1, XRT__GPU_T(error),                                             \
      (XRT__GPU_T(graph_exec) exec, XRT__GPU_T(stream) stream))                                                          \
    X(GraphExecDestroy, cudaGraphExecDestroy, 1, hipGraphExecDestroy, 1, XRT__GPU_T(error), (XRT__GPU_T(graph_exec) exec)) \
    X(GraphDestroy, cudaGraphDestroy, 1, hipGraphDestroy, 1, XRT__GPU_T(error), (XRT__GPU_T(graph) graph))               \
    X(GraphGetNodes, cudaGraphGetNodes, 1, hipGraphGetNodes, 1, XRT__GPU_T(error),                                       \
      (XRT__GPU_T(graph) graph, XRT__GPU_T(graph_node) *nodes, size_t *count))                                           \
    X(GraphNodeGetType, cudaGraphNodeGetType, 1, hipGraphNodeGetType, 1, XRT__GPU_T(error),                              \
      (XRT__GPU_T(graph_node) node, XRT__GPU_T(node_type) *type))                                                        \
    X(GraphCreate, cudaGraphCreate, 1, hipGraphCreate, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph) *graph, unsigned flags)) \
    X(GraphAddKernelNode, cudaGraphAddKernelNode, 1, hipGraphAddKernelNode, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_node) *node, XRT__GPU_T(graph) graph, const XRT__GPU_T(graph_node) *deps, size_t ndeps, XRT__GPU_T(kernel_params_in) params)) \
    X(GraphAddMemcpyNode1D, cudaGraphAddMemcpyNode1D, 1, hipGraphAddMemcpyNode1D, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_node) *node, XRT__GPU_T(graph) graph, const XRT__GPU_T(graph_node) *deps, size_t ndeps, void *dst, const void *src, size_t size, XRT__GPU_T(memcpy_kind) kind)) \
    X(GraphAddMemsetNode, cudaGraphAddMemsetNode, 1, hipGraphAddMemsetNode, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_node) *node, XRT__GPU_T(graph) graph, const XRT__GPU_T(graph_node) *deps, size_t ndeps, XRT__GPU_T(memset_params_in) params)) \
    X(GraphAddHostNode, cudaGraphAddHostNode, 1, hipGraphAddHostNode, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_node) *node, XRT__GPU_T(graph) graph, const XRT__GPU_T(graph_node) *deps, size_t ndeps, XRT__GPU_T(host_params_in) params)) \
    X(GraphAddChildGraphNode, cudaGraphAddChildGraphNode, 1, hipGraphAddChildGraphNode, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_node) *node, XRT__GPU_T(graph) graph, const XRT__GPU_T(graph_node) *deps, size_t ndeps, XRT__GPU_T(graph) child)) \
    X(GraphAddEmptyNode, cudaGraphAddEmptyNode, 1, hipGraphAddEmptyNode, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_node) *node, XRT__GPU_T(graph) graph, const XRT__GPU_T(graph_node) *deps, size_t ndeps)) \
    X(GraphAddEventRecordNode, cudaGraphAddEventRecordNode, 1, hipGraphAddEventRecordNode, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_node) *node, XRT__GPU_T(graph) graph, const XRT__GPU_T(graph_node) *deps, size_t ndeps, XRT__GPU_T(event) event)) \
    X(GraphAddEventWaitNode, cudaGraphAddEventWaitNode, 1, hipGraphAddEventWaitNode, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_node) *node, XRT__GPU_T(graph) graph, const XRT__GPU_T(graph_node) *deps, size_t ndeps, XRT__GPU_T(event) event)) \
    X(GraphGetRootNodes, cudaGraphGetRootNodes, 1, hipGraphGetRootNodes, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph) graph, XRT__GPU_T(graph_node) *nodes, size_t *count)) \
    X(GraphKernelNodeGetParams, cudaGraphKernelNodeGetParams, 1, hipGraphKernelNodeGetParams, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_node) node, XRT__GPU_T(kernel_params) params)) \
    X(GraphKernelNodeSetParams, cudaGraphKernelNodeSetParams, 1, hipGraphKernelNodeSetParams, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_node) node, XRT__GPU_T(kernel_params_in) params)) \
    X(GraphMemcpyNodeGetParams, cudaGraphMemcpyNodeGetParams, 1, hipGraphMemcpyNodeGetParams, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_node) node, XRT__GPU_T(memcpy3d) params)) \
    X(GraphMemcpyNodeSetParams1D, cudaGraphMemcpyNodeSetParams1D, 1, hipGraphMemcpyNodeSetParams1D, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_node) node, void *dst, const void *src, size_t size, XRT__GPU_T(memcpy_kind) kind)) \
    X(GraphMemsetNodeGetParams, cudaGraphMemsetNodeGetParams, 1, hipGraphMemsetNodeGetParams, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_node) node, XRT__GPU_T(memset_params) params)) \
    X(GraphMemsetNodeSetParams, cudaGraphMemsetNodeSetParams, 1, hipGraphMemsetNodeSetParams, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_node) node, XRT__GPU_T(memset_params_in) params)) \
    X(GraphHostNodeGetParams, cudaGraphHostNodeGetParams, 1, hipGraphHostNodeGetParams, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_node) node, XRT__GPU_T(host_params) params)) \
    X(GraphHostNodeSetParams, cudaGraphHostNodeSetParams, 1, hipGraphHostNodeSetParams, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_node) node, XRT__GPU_T(host_params_in) params)) \
    X(GraphChildGraphNodeGetGraph, cudaGraphChildGraphNodeGetGraph, 1, hipGraphChildGraphNodeGetGraph, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_node) node, XRT__GPU_T(graph) *graph)) \
    X(GraphEventRecordNodeGetEvent, cudaGraphEventRecordNodeGetEvent, 1, hipGraphEventRecordNodeGetEvent, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_node) node, XRT__GPU_T(event) *event)) \
    X(GraphEventRecordNodeSetEvent, cudaGraphEventRecordNodeSetEvent, 1, hipGraphEventRecordNodeSetEvent, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_node) node, XRT__GPU_T(event) event)) \
    X(GraphEventWaitNodeGetEvent, cudaGraphEventWaitNodeGetEvent, 1, hipGraphEventWaitNodeGetEvent, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_node) node, XRT__GPU_T(event) *event)) \
    X(GraphEventWaitNodeSetEvent, cudaGraphEventWaitNodeSetEvent, 1, hipGraphEventWaitNodeSetEvent, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_node) node, XRT__GPU_T(event) event)) \
    X(GraphExecKernelNodeSetParams, cudaGraphExecKernelNodeSetParams, 1, hipGraphExecKernelNodeSetParams, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_exec) exec, XRT__GPU_T(graph_node) node, XRT__GPU_T(kernel_params_in) params)) \
    X(GraphExecMemcpyNodeSetParams1D, cudaGraphExecMemcpyNodeSetParams1D, 1, hipGraphExecMemcpyNodeSetParams1D, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_exec) exec, XRT__GPU_T(graph_node) node, void *dst, const void *src, size_t size, XRT__GPU_T(memcpy_kind) kind)) \
    X(GraphExecMemsetNodeSetParams, cudaGraphExecMemsetNodeSetParams, 1, hipGraphExecMemsetNodeSetParams, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_exec) exec, XRT__GPU_T(graph_node) node, XRT__GPU_T(memset_params_in) params)) \
    X(GraphAddMemcpyNode, cudaGraphAddMemcpyNode, 1, hipGraphAddMemcpyNode, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_node) *node, XRT__GPU_T(graph) graph, const XRT__GPU_T(graph_node) *deps, size_t ndeps, XRT__GPU_T(memcpy3d_in) params)) \
    X(GraphMemcpyNodeSetParams, cudaGraphMemcpyNodeSetParams, 1, hipGraphMemcpyNodeSetParams, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_node) node, XRT__GPU_T(memcpy3d_in) params)) \
    X(GraphExecMemcpyNodeSetParams, cudaGraphExecMemcpyNodeSetParams, 1, hipGraphExecMemcpyNodeSetParams, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_exec) exec, XRT__GPU_T(graph_node) node, XRT__GPU_T(memcpy3d_exec_in) params)) \
    X(GraphExecHostNodeSetParams, cudaGraphExecHostNodeSetParams, 1, hipGraphExecHostNodeSetParams, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_exec) exec, XRT__GPU_T(graph_node) node, XRT__GPU_T(host_params_in) params)) \
    X(GraphExecEventRecordNodeSetEvent, cudaGraphExecEventRecordNodeSetEvent, 1, hipGraphExecEventRecordNodeSetEvent, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_exec) exec, XRT__GPU_T(graph_node) node, XRT__GPU_T(event) event)) \
    X(GraphExecEventWaitNodeSetEvent, cudaGraphExecEventWaitNodeSetEvent, 1, hipGraphExecEventWaitNodeSetEvent, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_exec) exec, XRT__GPU_T(graph_node) node, XRT__GPU_T(event) event)) \
    X(GraphDestroyNode, cudaGraphDestroyNode, 1, hipGraphDestroyNode, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_node) node)) \
    X(GraphClone, cudaGraphClone, 1, hipGraphClone, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph) *clone, XRT__GPU_T(graph) graph)) \
    X(GraphNodeFindInClone, cudaGraphNodeFindInClone, 1, hipGraphNodeFindInClone, 1, XRT__GPU_T(error), \
      (XRT__GPU_T(graph_node) *node, XRT__GPU_T(graph_node) original, XRT__GPU_T(graph) clone)) \
    X(IpcGetMemHandle, cudaIpcGetMemHandle, 0, hipIpcGetMemHandle, 0, XRT__GPU_T(error),                                 \
      (XRT__GPU_T(ipc_mem_handle) *handle, void *ptr))                                                                   \
    X(IpcOpenMemHandle, cudaIpcOpenMemHandle, 0, hipIpcOpenMemHandle, 0, XRT__GPU_T(error),                              \
      (void **ptr, XRT__GPU_T(ipc_mem_handle) handle, unsigned flags))                                                   \
    X(IpcCloseMemHandle, cudaIpcCloseMemHandle, 0, hipIpcCloseMemHandle, 0, XRT__GPU_T(error), (void *ptr))              \
    X(IpcGetEventHandle, cudaIpcGetEventHandle, 0, hipIpcGetEventHandle, 0, XRT__GPU_T(error),                           \
      (XRT__GPU_T(ipc_event_handle) *handle, XRT__GPU_T(event) event))                                                   \
    X(IpcOpenEventHandle, cudaIpcOpenEventHandle, 0, hipIpcOpenEventHandle, 0, XRT__GPU_T(error),                        \
      (XRT__GPU_T(event) *event, XRT__GPU_T(ipc_event_handle) handle))                                                   \
    X(DeviceCanAccessPeer, cudaDeviceCanAccessPeer, 0, hipDeviceCanAccessPeer, 0, XRT__GPU_T(error),                      \
      (int *can, int device, int peer))                                                                                  \
    X(DeviceEnablePeerAccess, cudaDeviceEnablePeerAccess, 0, hipDeviceEnablePeerAccess, 0, XRT__GPU_T(error),            \
      (int peer, unsigned flags))                                                                                        \
    X(DeviceDisablePeerAccess, cudaDeviceDisablePeerAccess, 0, hipDeviceDisablePeerAccess, 0, XRT__GPU_T(error),         \
      (int peer))                                                                                                        \
    X(MemcpyPeerAsync, cudaMemcpyPeerAsync, 0, hipMemcpyPeerAsync, 0, XRT__GPU_T(error),                                 \
      (void *dst, int dst_device, const void *src, int src_device, size_t size, XRT__GPU_T(stream) stream))             \
    X(MemcpyPeer, cudaMemcpyPeer, 0, hipMemcpyPeer, 0, XRT__GPU_T(error),                                                \
      (void *dst, int dst_device, const void *src, int src_device, size_t size))
#endif

#if defined(XRT__IMPL_INCLUDED) && !defined(XRT__GPU_IMPL_INCLUDED)
#define XRT__GPU_IMPL_INCLUDED

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifdef __cplusplus
#define XRT__GPU_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define XRT__GPU_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

/* What xrt__gpu_pointer_get_attributes clears before asking the runtime:
   the whole of cudaPointerAttributes (88 bytes with its reserved words) or
   hipPointerAttribute_t (32 bytes), checked where each is declared. */
#define XRT__GPU_POINTER_ATTR_BYTES 96

#ifdef __cplusplus
extern "C" {
#endif

/* >> gpu: data */

/* A stream callback (cudaStreamCallback_t, hipStreamCallback_t). */
typedef void (*xrt__gpu_callback)(void *stream, int status, void *user);
typedef struct xrt__gpu_ipc_handle { char reserved[64]; } xrt__gpu_ipc_handle; /* the runtimes' IPC handles: 64 bytes */

/* The neutral types (XRT__GPU_T(name) in the rows of XRT__GPU_RT_FIELDS):
   X(name, type). Each vendor maps every name to its own type (XRT__CUDA_TYPES,
   XRT__HIP_TYPES), of the same size. */
#define XRT__GPU_TYPES(X)                  \
    X(error, int)                          \
    X(stream, void *)                      \
    X(event, void *)                       \
    X(device_attr, int)                    \
    X(device_prop, void *)                 \
    X(memcpy_kind, int)                    \
    X(pointer_attr, void *)                \
    X(callback, xrt__gpu_callback)         \
    X(host_fn, xrt_host_fn)                \
    X(graph, void *)                       \
    X(graph_exec, void *)                  \
    X(graph_node, void *)                  \
    X(capture_mode, int)                   \
    X(capture_status, int)                 \
    X(node_type, int)                      \
    X(kernel_params, void *)               \
    X(kernel_params_in, const void *)      \
    X(memset_params, void *)               \
    X(memset_params_in, const void *)      \
    X(host_params, void *)                 \
    X(host_params_in, const void *)        \
    X(memcpy3d, void *)                    \
    X(memcpy3d_in, const void *)           \
    X(memcpy3d_exec_in, void *) /* HIP 5 declares hipGraphExecMemcpyNodeSetParams' params not const */ \
    X(pitched_ptr, xrt_pitched_ptr)        \
    X(extent, xrt_extent)                  \
    X(ipc_mem_handle, xrt__gpu_ipc_handle) \
    X(ipc_event_handle, xrt__gpu_ipc_handle) \
    X(mem_pool, void *)                    \
    X(pool_props_in, const void *)         \
    X(pool_attr, int)                      \
    X(access_desc_in, const void *)        \
    X(access_flags_out, void *)            \
    X(mem_location, void *)                \
    X(range_attr, int)
#define XRT__GPU_TYPEDEF(name, type) typedef type xrt__gpu_t_##name;
XRT__GPU_TYPES(XRT__GPU_TYPEDEF)
#undef XRT__GPU_TYPEDEF

typedef struct xrt__gpu_rt {
#define XRT__GPU_VENDOR gpu
#define XRT__GPU_RT_FIELD(field, cuda, cuda_optional, hip, hip_optional, ret, params) ret(*field) params;
    XRT__GPU_RT_FIELDS(XRT__GPU_RT_FIELD)
#undef XRT__GPU_RT_FIELD
#undef XRT__GPU_VENDOR
} xrt__gpu_rt;

/* A vendor's signature check, in every build (unevaluated: nothing is
   linked): typedef `name` fails to compile unless `sym` has the type `type`.
   C++: static_cast picks the overload of that type, or fails. */
#ifdef __cplusplus
#define XRT__GPU_SAME_TYPE(name, type, sym) typedef char name[sizeof(static_cast<type>(&sym))];
#else
#define XRT__GPU_SAME_TYPE(name, type, sym) typedef char name[sizeof((type)0 == &sym)];
#endif

/* Which entry point, for error details: its field's offset in xrt__gpu_rt. */
#define XRT__GPU_CALL(field) offsetof(xrt__gpu_rt, field)

/* One entry of a symbol list: the library's name for a field of a table of
   entry points (xrt__gpu_rt), at its offset. */
typedef struct xrt__gpu_sym {
    const char *name;
    size_t offset; /* XRT__GPU_CALL(field) for xrt__gpu_rt */
    int optional;
} xrt__gpu_sym;

/* A native graph node type that xrt_graph_get_info counts, and where. */
typedef struct xrt__gpu_node_kind {
    int native;
    size_t offset; /* offsetof(xrt_graph_info, kernels), ... */
} xrt__gpu_node_kind;

/* One native error that has an xrt meaning; every other is XRT_ERROR_BACKEND. */
typedef struct xrt__gpu_error {
    int native;
    xrt_status status;
} xrt__gpu_error;

/* A native node type and the xrt_graph_node_type it is. */
typedef struct xrt__gpu_node_type {
    int native;
    int type;
} xrt__gpu_node_type;

/* An edge's annotation (CUDA 12.3's cudaGraphEdgeData, whose layout
   xrt_cuda.h checks): all zero is a plain edge, which is all that xrt's
   lists express; a runtime without edge data (HIP, CUDA before 12.3) has
   plain edges only. */
typedef struct xrt__gpu_edge_data {
    unsigned char from_port, to_port, type, reserved[5];
} xrt__gpu_edge_data;

/* Where a vendor's node structs keep what xrt reads and writes: each
   struct's size and its fields' offsets (the CUDA and HIP structs hold the
   same fields in other orders). dim3 is three unsigned ints in both, a
   pitched pointer (ptr, pitch, xsize, ysize), a position and an extent
   three size_t. Host node params are (fn, user) in both. */
typedef struct xrt__gpu_layout {
    size_t kernel, kernel_func, kernel_grid, kernel_block, kernel_shared, kernel_params, kernel_extra;
    size_t set, set_dst, set_pitch, set_value, set_element, set_width, set_height;
    size_t copy, copy_src_array, copy_src_pos, copy_src_ptr, copy_dst_array, copy_dst_pos, copy_dst_ptr, copy_extent,
        copy_kind;
} xrt__gpu_layout;
#define XRT__GPU_NODE_BYTES 256 /* room for any of them */
/* The graph memory node calls (xrt__gpu's mem_node_syms, in this order). */
enum { XRT__GPU_MEM_ADD_ALLOC, XRT__GPU_MEM_ADD_FREE, XRT__GPU_MEM_GET_ALLOC, XRT__GPU_MEM_GET_FREE };

typedef struct xrt__gpu xrt__gpu;
/* A kernel launch of the driver (or runtime) API, both vendors'. */
typedef int (*xrt__gpu_launch_fn)(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                  unsigned bz, unsigned shared, void *stream, void **params, void **extra);

struct xrt__gpu {
    /* the vendor: set by xrt__cuda_fill / xrt__hip_fill */
    const char *name;              /* "cuda": the backend's name, first word of its errors */
    const char *library_env;       /* "XRT_CUDA_LIBRARY" */
    const char *const *sonames;    /* tried in order, newest first; NULL-terminated */
    const xrt__gpu_sym *syms;      /* every field of rt */
    size_t nsyms;
    const xrt__gpu_error *errors;
    size_t nerrors;
    int success;                   /* cudaSuccess, hipSuccess */
    void *legacy_native;           /* the legacy stream's own handle: cudaStreamLegacy; NULL where HIP has none */
    void *per_thread;              /* cudaStreamPerThread, hipStreamPerThread */
    int attr_pools;                /* cudaDevAttrMemoryPoolsSupported, hipDeviceAttributeMemoryPoolsSupported */
    int attr_pci[3];               /* the PCI domain, bus and device attributes */
    int (*native_attr)(int attr);  /* an XRT_DEVATTR_* as the runtime's attribute; -1 where it has none */
    const char *driver_version;    /* "cudaDriverGetVersion": looked up by name, optional */
    const char *stream_device_sym; /* "cudaStreamGetDevice" (CUDA 12.8): looked up by name, optional */
    int (*stream_device)(void *stream, int *device); /* that entry point, or NULL */
    const char *dot_print_sym;     /* "cudaGraphDebugDotPrint" (HIP 5 lacks it): looked up by name, optional */
    int (*dot_print)(void *graph, const char *path, unsigned flags); /* that entry point, or NULL */
    const char *upload_sym;        /* "cudaGraphUpload" (HIP 5.2 lacks it): looked up by name, optional */
    int (*upload)(void *exec, void *stream); /* that entry point, or NULL */
    unsigned long long instantiate_flags; /* the XRT_GRAPH_INSTANTIATE_* its WithFlags call takes (same values) */
    const char *instantiate_flags_why;    /* why the others are not: the runtime's enum */
    /* "cudaStreamBeginCaptureToGraph" (CUDA 12.3; ROCm 6.2's HIP, not HIP 5):
       looked up by name, optional; edge_data NULL (plain edges) */
    const char *capture_to_graph_sym;
    int (*capture_to_graph)(void *stream, void *graph, void *const *deps, const void *edge_data, size_t n, int mode);
    const char *graph_mem_trim_sym; /* "cudaDeviceGraphMemTrim" (HIP 5.2 lacks it): looked up by name, optional */
    int (*graph_mem_trim)(int device); /* that entry point, or NULL */
    /* "cudaDeviceGetGraphMemAttribute", "cudaDeviceSetGraphMemAttribute" (HIP
       5.2 lacks them): looked up by name, optional; HIP's attributes are CUDA's */
    const char *graph_mem_attr_sym[2];
    int (*graph_mem_attr[2])(int device, int attr, void *value); /* get, set; or NULL */
    /* "cudaGraphNodeSetEnabled", "cudaGraphNodeGetEnabled" (HIP 5.2 lacks
       them): looked up by name, optional */
    const char *node_enabled_sym[2];
    int (*node_set_enabled)(void *exec, void *node, unsigned enabled);
    int (*node_get_enabled)(void *exec, void *node, unsigned *enabled);
    /* "cudaDeviceGetLimit", "cudaDeviceSetLimit" (HIP 5.2 has no
       hipDeviceSetLimit): looked up by name, optional; the limit is CUDA's
       value, which the runtime knows below `limits` (HIP: 3) */
    const char *get_limit_sym, *set_limit_sym;
    /* "cudaDeviceGetP2PAttribute": looked up by name, optional; HIP's
       attributes are CUDA's less one (hipDevP2PAttrPerformanceRank is 0) */
    const char *p2p_attr_sym;
    int (*p2p_attr)(int *value, int attr, int src, int dst);
    int p2p_attr_shift;
    int (*get_limit)(size_t *value, int limit);
    /* "cudaDeviceSetCacheConfig", "cudaDeviceGetCacheConfig": looked up by
       name (an enum of CUDA's values, an int); optional */
    const char *cache_config_sym[2];
    int (*set_cache_config)(int config);
    int (*get_cache_config)(int *config);
    /* "cudaDeviceFlushGPUDirectRDMAWrites" (CUDA 11.3; HIP has none: NULL):
       looked up by name, optional */
    const char *rdma_flush_sym;
    int (*rdma_flush)(int target, int scope);
    /* "cudaStreamSetAttribute", "cudaStreamGetAttribute" (CUDA 11; HIP 5
       has none, ROCm 6's are not used yet: NULL), whose value is
       xrt_stream_attr_value's layout: looked up by name, optional */
    const char *stream_attr_sym[2];
    int (*stream_set_attr)(void *stream, int attr, const void *value);
    int (*stream_get_attr)(void *stream, int attr, void *value);
    /* "cudaGraphKernelNodeSetAttribute", "...GetAttribute", "...CopyAttributes"
       (CUDA 11; HIP 5 has none: NULL), the value as xrt_launch_attr_value;
       and a launch with attributes, made (tried again, failed) by the vendor
       (NULL: none) */
    const char *knode_attr_sym[3];
    int (*knode_set_attr)(void *node, int attr, const void *value);
    int (*knode_get_attr)(void *node, int attr, void *value);
    int (*knode_copy_attrs)(void *dst, void *src);
    xrt_status (*launch_ex)(xrt__gpu *g, void *fn, xrt_dim3 grid, xrt_dim3 block, unsigned shared, void *stream,
                            void **extra, const xrt_launch_attribute *attrs, unsigned n);
    /* "cudaUserObjectCreate", "cudaUserObjectRetain", "cudaUserObjectRelease",
       "cudaGraphRetainUserObject", "cudaGraphReleaseUserObject" (CUDA 11.3;
       HIP 5 has none, ROCm's are not used yet: NULL), flags as xrt's:
       looked up by name, optional */
    const char *uobj_sym[5];
    int (*uobj_create)(void **object, void *ptr, xrt_host_fn destroy, unsigned count, unsigned flags);
    int (*uobj_retain)(void *object, unsigned count);
    int (*uobj_release)(void *object, unsigned count);
    int (*graph_uobj_retain)(void *graph, void *object, unsigned count, unsigned flags);
    int (*graph_uobj_release)(void *graph, void *object, unsigned count);
    /* a module function's preference (cuFuncSetCacheConfig), or NULL */
    xrt_status (*function_set_cache_config)(xrt__gpu *g, void *fn, int config);
    int (*set_limit)(int limit, size_t value);
    int limits;
    /* "cudaEventRecordWithFlags" (CUDA 11.1; HIP: only where its header has
       hipEventRecordExternal, not HIP 5): looked up by name, optional */
    const char *record_flags_sym;
    int (*record_flags)(void *event, void *stream, unsigned flags); /* that entry point, or NULL */
    int wait_external; /* the runtime's StreamWaitEvent takes XRT_EVENT_WAIT_EXTERNAL (cudaEventWaitExternal) */
    /* graph memory nodes built by hand (CUDA 11.4's cudaGraphAddMemAllocNode,
       cudaGraphAddMemFreeNode, cudaGraphMemAllocNodeGetParams,
       cudaGraphMemFreeNodeGetParams; HIP 5 lacks them): their names (NULL:
       none), looked up by name, optional; the entry points found (or NULL);
       and the vendor's call of entry point `which` (XRT__GPU_MEM_*) with its
       own structs, the native error back (NULL: the vendor has none) */
    const char *mem_node_syms[4];
    void *mem_node_fns[4];
    int (*mem_node)(const xrt__gpu *g, int which, void **node, void *graph, void *const *deps, size_t n,
                    xrt_graph_node_params *p);
    xrt_status (*probe)(char *reason, size_t n);
    /* Called when counting devices failed with `e`: nonzero (and the reason
       written) when that is because there is no driver at all. */
    int (*no_driver)(const xrt__gpu *g, int e, char *reason, size_t n);
    /* after loading: 0 (and the reason written) where xrt cannot use the runtime */
    int (*loaded)(xrt__gpu *g, char *reason, size_t n);
    /* before: nonzero (and why) for a file's base name that is a runtime xrt
       does not use (HIP: ROCm 7's libamdhip64.so.7), so that it is never
       mapped; NULL where every name may be tried */
    int (*refused_name)(const char *base, char *why, size_t n);
    xrt_status (*fill_prop)(const xrt__gpu *g, xrt_device_prop *out, const void *prop, int device);
    /* the compile target's features, comma-separated and sorted, from the
       runtime's device struct (NULL: none, as CUDA's sm_XX says it all) */
    void (*target_features)(const void *prop, char *features, size_t n);
    xrt_memory_type (*memory_type)(const xrt__gpu *g, const void *attr, int *device);
    /* the allocation holding p, which the runtime knows and xrt did not
       allocate: its base and size, where the driver tells them (else
       nothing is written) */
    void (*address_range)(const xrt__gpu *g, const void *p, void **base, size_t *size);
    xrt_status (*export_dmabuf)(xrt__gpu *g, int device, void *start, size_t len, int *fd);
    /* IpcOpenMemHandle's flags: -1, xrt's as they are (CUDA's values); else
       the one value the runtime takes, whatever xrt's (HIP: set by `loaded`) */
    int ipc_open_flags;
    /* HostRegister's flag for XRT_HOST_REGISTER_READ_ONLY (xrt's other flags
       mean the same to both runtimes); 0 where the runtime has none: such a
       registration is XRT_ERROR_UNSUPPORTED, saying `read_only_lack` */
    unsigned host_register_read_only;
    const char *read_only_lack;
    /* modules (NULL where the vendor has none: XRT_ERROR_UNSUPPORTED): the
       image kinds it loads (bits 1 << kind), how well an image runs on a
       device of target t (xrt__image_pick's rank: > 0 runs, 0 not by
       compatibility, < 0 does not run), and the native calls */
    unsigned image_kinds;
    int (*image_compatible)(const xrt_target *t, const xrt_module_image *im);
    xrt_status (*module_load)(xrt__gpu *g, const xrt_module_image *im, void **native, int *any_device, char *log,
                              size_t n); /* any_device: not tied to the current device's context */
    xrt_status (*module_unload)(xrt__gpu *g, void *native);
    xrt_status (*module_function)(xrt__gpu *g, void *native, const char *name, void **fn);
    /* launches, made here: where the vendor keeps its entry point
       (cuLaunchKernel and hipModuleLaunchKernel share one signature; it
       points to NULL where there is none), its markers of packed arguments
       (buffer pointer, buffer size, end), and for a launch that failed,
       whether to try once more (may be NULL) and the error's detail */
    xrt__gpu_launch_fn *launch;
    void *launch_params[3];
    int (*launch_again)(xrt__gpu *g, int e);
    xrt_status (*launch_failed)(xrt__gpu *g, int e);
    xrt_status (*function_attributes)(xrt__gpu *g, void *fn, xrt_function_attributes *attr);
    /* a module's variable, a function's attribute, occupancy (NULL: unsupported) */
    xrt_status (*module_global)(xrt__gpu *g, void *native, const char *name, void **ptr, size_t *size);
    xrt_status (*function_set_attribute)(xrt__gpu *g, void *fn, int attr, int value);
    xrt_status (*occupancy_blocks)(xrt__gpu *g, void *fn, int block_size, size_t shared, int *blocks);
    xrt_status (*occupancy_block_size)(xrt__gpu *g, void *fn, size_t shared, int limit, int *min_grid, int *block);
    /* the bytes of a kernel's parameters into *bytes; 0 where the runtime
       cannot tell (may be NULL) */
    int (*param_bytes)(xrt__gpu *g, void *fn, size_t *bytes);
    /* parameter `index`'s offset and size (NULL: the runtime cannot tell) */
    xrt_status (*param_info)(xrt__gpu *g, void *fn, size_t index, size_t *offset, size_t *size);
    /* graphs: the node types xrt_graph_get_info counts, and the entry points
       whose signatures differ between the vendors (or between CUDA 12 and
       13), set by `loaded` where the runtime has them, else NULL (no
       XRT_CAP_GRAPHS). exec_update returns the native error and writes the
       runtime's cudaGraphExecUpdateResult (HIP's has the same values);
       graph_edges counts a graph's edges, recording its own errors. */
    const xrt__gpu_node_kind *node_kinds;
    size_t nnode_kinds;
    const char *exec_update_call; /* "cudaGraphExecUpdate", for error details */
    int (*exec_update)(const xrt__gpu *g, void *exec, void *graph, int *result, void **node, void **from);
    xrt_status (*graph_edges)(const xrt__gpu *g, void *graph, size_t *count);
    /* graphs built node by node: the vendor's node types and struct
       layouts, and the entry points on edges whose signatures differ
       (CUDA 13 added edge data), set by `loaded` where the runtime has
       them. list_edges: what is XRT__GRAPH_LIST_EDGES (of a graph: a, b
       are from, to), _DEPS or _DEPENDENTS (of a node: a), with data (NULL
       for a count, else room for *count, zeroed) the edges' annotations
       where the runtime has them: a list asked without them fails where one
       is not plain (cudaErrorLossyQuery); edit_edges adds or removes n
       plain edges. Both return the native error and name the call. */
    const xrt__gpu_node_type *node_types;
    size_t nnode_types;
    const xrt__gpu_layout *layout;
    int (*list_edges)(const xrt__gpu *g, int what, void *of, void **a, void **b, xrt__gpu_edge_data *data,
                      size_t *count, const char **call);
    int (*edit_edges)(const xrt__gpu *g, void *graph, void *const *from, void *const *to, size_t n, int remove,
                      const char **call);
    /* cudaStreamGetCaptureInfo: *graph the graph a stream captures into
       (NULL unless its capture is active); 1 if the capture is active and
       its next work would follow one node, then *node. Set by `loaded` where
       the runtime has the call (xrt__gpu_capture_last_of decides), else NULL. */
    int (*capture_last)(const xrt__gpu *g, void *stream, void **graph, void **node);
    /* The same call for a stream's capture status and id: the native error;
       set with capture_last, named capture_info_call. */
    int (*capture_id)(void *stream, int *status, unsigned long long *id);
    const char *capture_info_call;
    /* The same call for all of it: the capture's graph and the nodes the
       stream's next work follows (an array of the runtime's); and the
       update of those nodes (cudaStreamUpdateCaptureDependencies, flags as
       xrt's), named capture_update_call. Set by `loaded` where the runtime
       has them, else NULL. Native errors. */
    int (*capture_graph)(void *stream, int *status, unsigned long long *id, void **graph, void *const **deps,
                         size_t *n);
    int (*capture_update)(void *stream, void *const *deps, size_t n, unsigned flags);
    const char *capture_update_call;
    /* managed memory: a prefetch and an advice, whose signatures differ
       between the vendors and between CUDA 12 and 13 (CUDA 13 takes a
       cudaMemLocation for the int device), set by `loaded` where the
       runtime has them, else NULL (XRT_ERROR_UNSUPPORTED). device is
       XRT_CPU_DEVICE_ID (the host) or a device; both return the native
       error and name the call. */
    int (*mem_prefetch)(const xrt__gpu *g, const void *ptr, size_t count, int device, void *stream, const char **call);
    int (*mem_advise)(const xrt__gpu *g, const void *ptr, size_t count, int advice, int device, const char **call);
    /* A set of 2- or 4-byte elements whose bytes differ, which the
       runtime's memset (of bytes) cannot make: CUDA's driver
       (cuMemsetD2D16, _32), HIP's hipMemsetD16 and _D32; async, on stream,
       or the synchronous form. Set by `loaded`, else NULL
       (XRT_ERROR_UNSUPPORTED). */
    xrt_status (*memset_wide)(xrt__gpu *g, void *dst, size_t pitch, unsigned value, unsigned element_size,
                              size_t width, size_t height, void *stream, int async);
#ifdef XRT_NO_RUNTIME_LINKING
    void (*link)(xrt__gpu *g);     /* fills rt from the linked runtime, type-checked */
#endif
    /* the runtime, once loaded */
    xrt__gpu_rt rt;
    void *lib;     /* dlopen handle; NULL when not loaded or linked directly */
    int version;   /* cudaRuntimeGetVersion / hipRuntimeGetVersion; 0 if unknown */
    int count;     /* devices, fixed at init as in the runtimes */
    uint64_t used; /* devices worked on, synchronized at shutdown (bit 63: 63 and up) */
    uint64_t all;  /* used's value once every device is marked */
    uint64_t pools_known, pools; /* devices 0-63: whether memory pools were asked, and the answer */
    /* A graph's kernel nodes use their module: while captures, graphs or
       execs live (counted), an unloaded module is kept, and unloaded with
       the next module unloaded after none lives, or at shutdown. */
    int graphs;
    struct xrt__gpu_module *kept;
    /* Captures begun through xrt and not yet ended: a kernel launched
       meanwhile on a capturing stream records its node's params. */
    int captures;
};

/* What the trampoline of a host function needs (from xrt__gpu_closure_take,
   given back when it runs). */
typedef struct xrt__gpu_host_call {
    const xrt_backend *self;
    xrt_host_fn fn;
    void *user;
} xrt__gpu_host_call;

/* >> gpu: errors */
static inline xrt_status xrt__gpu_error_status(const xrt__gpu_error *table, size_t count, int e)
{
    size_t i;
    for (i = 0; i < count; i++)
        if (table[i].native == e) return table[i].status;
    return XRT_ERROR_BACKEND;
}

static xrt_status xrt__gpu_status(const xrt__gpu *g, int e) { return xrt__gpu_error_status(g->errors, g->nerrors, e); }

static const char *xrt__gpu_call_name(const xrt__gpu *g, size_t call)
{
    size_t i;
    for (i = 0; i < g->nsyms; i++)
        if (g->syms[i].offset == call) return g->syms[i].name;
    return "?";
}

/* Records a failed call with the native name, code and message. */
/* Whether the runtime says the capture of `stream` is invalidated. */
static int xrt__gpu_capture_invalidated(const void *ctx, void *stream)
{
    const xrt__gpu *g = (const xrt__gpu *)ctx;
    int native = 0;
    return g->rt.StreamIsCapturing(stream, &native) == g->success && native == XRT_CAPTURE_STATUS_INVALIDATED;
}

/* A failure just recorded: the captures it invalidated remember it (the
   runtime's end of such a capture does not say why). */
static xrt_status xrt__gpu_failed(const xrt__gpu *g, xrt_status st)
{
    if (__atomic_load_n(&xrt__captures, __ATOMIC_RELAXED) && g->rt.StreamIsCapturing)
        xrt__capture_note_failure(xrt__gpu_capture_invalidated, g);
    return st;
}

static xrt_status xrt__gpu_fail(const xrt__gpu *g, int e, const char *call) XRT__COLD;
static xrt_status xrt__gpu_fail(const xrt__gpu *g, int e, const char *call)
{
    xrt_status st = xrt__gpu_status(g, e);
    if (st == XRT_ERROR_NOT_READY) return st; /* the answer to a query, not an error */
    return xrt__gpu_failed(g, xrt_native_error(st, g->name, call, (long)e, g->rt.GetErrorName(e), g->rt.GetErrorString(e)));
}

static inline xrt_status xrt__gpu_check(const xrt__gpu *g, int e, size_t call)
{
    return XRT__LIKELY(e == g->success) ? XRT_SUCCESS : xrt__gpu_fail(g, e, xrt__gpu_call_name(g, call));
}

/* The same in an operation xrt__gpu_<op>: the detail names the xrt call too
   ("xrt_malloc: cuda: cudaMalloc: out of memory (cudaErrorMemoryAllocation=2)"),
   as the manual promises. `call` by name: xrt__gpu_fail_as, for entry points
   outside the runtime's list (HIP's modules). */
static xrt_status xrt__gpu_fail_as(const xrt__gpu *g, int e, const char *call, const char *op) XRT__COLD;
static xrt_status xrt__gpu_fail_as(const xrt__gpu *g, int e, const char *call, const char *op)
{
    char who[96];
    xrt_status st = xrt__gpu_status(g, e);
    if (st == XRT_ERROR_NOT_READY) return st;
    snprintf(who, sizeof who, "xrt_%.64s: %s", op, g->name);
    return xrt__gpu_failed(g, xrt_native_error(st, who, call, (long)e, g->rt.GetErrorName(e), g->rt.GetErrorString(e)));
}

/* An entry point looked up by name (sym) that the runtime lacks: fn's refusal. */
static xrt_status xrt__gpu_lacks(const xrt__gpu *g, const char *fn, const char *sym) XRT__COLD;
static xrt_status xrt__gpu_lacks(const xrt__gpu *g, const char *fn, const char *sym)
{
    return xrt_error(XRT_ERROR_UNSUPPORTED, fn, "%s: the runtime has no %s", g->name, sym);
}

/* Its answer e: success, or its error, named, as operation op's. */
static xrt_status xrt__gpu_answer(const xrt__gpu *g, int e, const char *sym, const char *op)
{
    return e == g->success ? XRT_SUCCESS : xrt__gpu_fail_as(g, e, sym, op);
}
static xrt_status xrt__gpu_fail_in(const xrt__gpu *g, int e, size_t call, const char *op) XRT__COLD;
static xrt_status xrt__gpu_fail_in(const xrt__gpu *g, int e, size_t call, const char *op)
{
    return xrt__gpu_fail_as(g, e, xrt__gpu_call_name(g, call), op);
}
static inline xrt_status xrt__gpu_check_in(const xrt__gpu *g, int e, size_t call, const char *op)
{
    return XRT__LIKELY(e == g->success) ? XRT_SUCCESS : xrt__gpu_fail_in(g, e, call, op);
}
#define XRT__GPU_CHECK(g, e, call) xrt__gpu_check_in((g), (e), (call), __func__ + sizeof "xrt__gpu_" - 1)

/* The reason an init failed, in the format of xrt_native_error (the registry adds the name). */
static void xrt__gpu_describe(const xrt__gpu *g, int e, size_t call, char *reason, size_t n)
{
    snprintf(reason, n, "%s: %s (%s=%ld)", xrt__gpu_call_name(g, call), g->rt.GetErrorString(e),
             g->rt.GetErrorName(e), (long)e);
}

/* >> gpu: loading */

/* Vendor runtimes keep worker threads and thread-exit destructors after their
   last call, so unmapping one can crash the process later. Mark the loaded
   library as never to be unmapped: dlclose then just drops our reference, and
   loading it again after xrt_shutdown finds it initialised. */
static inline void xrt__gpu_pin(void *lib, const char *symbol)
{
    Dl_info info;
    void *self;
    void *addr = dlsym(lib, symbol);
    if (!addr || !dladdr(addr, &info) || !info.dli_fname) return;
    self = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    if (self) dlclose(self);
}

/* An entry point that not every header declares (so it cannot be in the
   type-checked list): looked up by name in the loaded runtime, or in the
   process when the runtime is linked directly. NULL if absent. */
static inline void *xrt__gpu_lookup(const xrt__gpu *g, const char *name)
{
    return dlsym(g->lib ? g->lib : RTLD_DEFAULT, name);
}

/* Looks up the symbols of a list into the function pointers of `table`
   (xrt__gpu_rt, or the CUDA driver's table), with the core's xrt__dl_bind. */
static inline int xrt__gpu_bind(void *table, const xrt__gpu_sym *syms, size_t count, void *lib, char *reason, size_t n)
{
    xrt__dl_sym batch[16];
    size_t i, k;
    for (i = 0; i < count; i += k) {
        for (k = 0; k < 16 && i + k < count; k++) {
            batch[k].name = syms[i + k].name;
            batch[k].slot = (char *)table + syms[i + k].offset;
            batch[k].optional = syms[i + k].optional;
        }
        if (!xrt__dl_bind(lib, batch, k, reason, n)) return 0;
    }
    return 1;
}

static void xrt__gpu_unload(xrt__gpu *g)
{
#ifndef XRT_NO_RUNTIME_LINKING
    void *lib = __atomic_exchange_n(&g->lib, NULL, __ATOMIC_ACQ_REL);
    if (!lib) return;
    memset(&g->rt, 0, sizeof g->rt);
    dlclose(lib);
#else
    (void)g;
#endif
}

/* The file that holds the runtime's entry points (loaded or linked), as a
   full path. */
static void xrt__gpu_library(const xrt__gpu *g, char *out, size_t n)
{
    Dl_info info;
    void *addr;
    memcpy(&addr, &g->rt.RuntimeGetVersion, sizeof addr);
    xrt__file_full(addr && dladdr(addr, &info) && info.dli_fname ? info.dli_fname : "", out, n);
}

/* A runtime the vendor's hook refused: its reason, after the file's name. */
static void xrt__gpu_refused(const xrt__gpu *g, char *reason, size_t n)
{
    char file[256], why[512];
    xrt__gpu_library(g, file, sizeof file);
    snprintf(why, sizeof why, "%s", reason);
    snprintf(reason, n, "%s: %s", file[0] ? file : "the runtime", why);
}

#ifndef XRT_NO_RUNTIME_LINKING
/* The dynamic loader's cache, read to find a library by its name as dlopen
   would (the tests point it at a cache of their own). */
static const char *xrt__gpu_ld_cache = "/etc/ld.so.cache";

/* A file named `name` in `dir`: its path in out. */
static int xrt__gpu_in_dir(const char *dir, const char *name, char *out, size_t n)
{
    int len = snprintf(out, n, "%s/%s", dir, name);
    return len > 0 && (size_t)len < n && access(out, F_OK) == 0;
}

/* LD_LIBRARY_PATH's directories, searched before the cache (ignored, as by
   the loader, in a program that runs with elevated privileges). */
static int xrt__gpu_in_library_path(const char *name, char *out, size_t n)
{
    const char *env = xrt__secure() ? NULL : getenv("LD_LIBRARY_PATH"), *p;
    char dir[PATH_MAX];
    size_t len;
    for (p = env; p && *p; p += len + (p[len] != 0)) {
        len = strcspn(p, ":;");
        if (!len || len >= sizeof dir) continue;
        memcpy(dir, p, len);
        dir[len] = 0;
        if (xrt__gpu_in_dir(dir, name, out, n)) return 1;
    }
    return 0;
}

/* Every directory the loader searches for this program, the default ones
   last (glibc leaves out the cache and does not tell which are which). */
static int xrt__gpu_in_search_path(const char *name, char *out, size_t n)
{
    Dl_serinfo size, *info = NULL;
    void *self = dlopen(NULL, RTLD_LAZY);
    unsigned i;
    int found = 0;
    if (self && dlinfo(self, RTLD_DI_SERINFOSIZE, &size) == 0 && (info = (Dl_serinfo *)XRT_MALLOC(size.dls_size))) {
        *info = size;
        if (dlinfo(self, RTLD_DI_SERINFO, info) == 0)
            for (i = 0; i < info->dls_cnt && !found; i++)
                found = xrt__gpu_in_dir(info->dls_serpath[i].dls_name, name, out, n);
    }
    XRT_FREE(info);
    if (self) dlclose(self);
    return found;
}

/* The loader's cache (glibc's format "glibc-ld.so.cache1.1": a 48-byte
   header, entries of 24 bytes whose first two words after the flags are
   the offsets of the name and of its path). */
static int xrt__gpu_in_ld_cache(const char *name, char *out, size_t n)
{
    FILE *f = fopen(xrt__gpu_ld_cache, "rb");
    unsigned char *c = NULL;
    long size = -1;
    uint32_t count, i, key, value;
    int found = 0;
    if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 48 && size < (64L << 20) && fseek(f, 0, SEEK_SET) == 0 &&
        (c = (unsigned char *)XRT_MALLOC((size_t)size + 1)) && fread(c, 1, (size_t)size, f) == (size_t)size &&
        memcmp(c, "glibc-ld.so.cache1.1", 20) == 0) {
        c[size] = 0; /* every string ends inside */
        memcpy(&count, c + 20, 4);
        for (i = 0; i < count && 48 + (size_t)(i + 1) * 24 <= (size_t)size && !found; i++) {
            memcpy(&key, c + 48 + (size_t)i * 24 + 4, 4);
            memcpy(&value, c + 48 + (size_t)i * 24 + 8, 4);
            if (key < (size_t)size && value < (size_t)size && strcmp((const char *)c + key, name) == 0 &&
                access((const char *)c + value, F_OK) == 0)
                found = snprintf(out, n, "%s", (const char *)c + value) < (int)n;
        }
    }
    XRT_FREE(c);
    if (f) fclose(f);
    return found;
}

/* Where dlopen would find a bare name: LD_LIBRARY_PATH, the cache, the
   rest of the search path (run paths, the default directories); 0 where
   none has it. */
static int xrt__gpu_find_library(const char *name, char *out, size_t n)
{
    return xrt__gpu_in_library_path(name, out, n) || xrt__gpu_in_ld_cache(name, out, n) ||
           xrt__gpu_in_search_path(name, out, n);
}

/* "file: why", cut to n bytes where it must be; 1. */
static int xrt__gpu_refusal(char *reason, size_t n, const char *file, const char *why)
{
    return snprintf(reason, n, "%s: %s", file, why) >= 0;
}

/* A library the vendor refuses by the name of its file or of a link on the
   way to it (libamdhip64.so -> libamdhip64.so.7 -> libamdhip64.so.7.0.70000):
   nonzero and the reason ("path: why"). The check runs before dlopen, so
   such a runtime is never mapped into the process. */
static int xrt__gpu_refused_file(const xrt__gpu *g, const char *name, char *reason, size_t n)
{
    char path[PATH_MAX], link[PATH_MAX], why[384];
    const char *base;
    ssize_t len;
    int hops;
    if (!g->refused_name) return 0;
    if (!strchr(name, '/')) {
        if (g->refused_name(name, why, sizeof why)) return xrt__gpu_refusal(reason, n, name, why);
        if (!xrt__gpu_find_library(name, path, sizeof path)) return 0;
    } else if (snprintf(path, sizeof path, "%s", name) >= (int)sizeof path) {
        return 0;
    }
    for (hops = 0; hops < 16; hops++) {
        base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        if (g->refused_name(base, why, sizeof why)) return xrt__gpu_refusal(reason, n, path, why);
        if ((len = readlink(path, link, sizeof link - 1)) < 0) return 0;
        link[len] = 0;
        if (link[0] == '/' || base == path) snprintf(path, sizeof path, "%s", link);
        else if (snprintf(path + (base - path), sizeof path - (size_t)(base - path), "%s", link) >=
                 (int)(sizeof path - (size_t)(base - path)))
            return 0;
    }
    return 0;
}

/* The runtime's library: XRT_<GPU>_LIBRARY's, else the first of the
   sonames that loads, leaving out any the vendor refuses by name. */
static void *xrt__gpu_open(const xrt__gpu *g, char *reason, size_t n)
{
    const char *env = xrt__secure() ? NULL : getenv(g->library_env), *names[8]; /* xrt__dl_open logs it ignored */
    char refusal[512] = "";
    void *lib;
    size_t i, k = 0;
    if (env && env[0]) {
        if (!xrt__gpu_refused_file(g, env, refusal, sizeof refusal))
            return xrt__dl_open(g->library_env, g->sonames, reason, n);
        snprintf(reason, n, "%s=%s: %s", g->library_env, env, refusal);
        return NULL;
    }
    for (i = 0; g->sonames[i] && k < sizeof names / sizeof names[0] - 1; i++)
        if (!xrt__gpu_refused_file(g, g->sonames[i], refusal, sizeof refusal)) names[k++] = g->sonames[i];
    names[k] = NULL;
    if (k && (lib = xrt__dl_open(g->library_env, names, reason, n)) != NULL) return lib;
    if (refusal[0]) snprintf(reason, n, "%s", refusal); /* what was there, rather than what was not */
    return NULL;
}
#endif

/* The user objects' calls, where the runtime has them (all five or none). */
static void xrt__gpu_load_uobj(xrt__gpu *g)
{
    void *sym[5] = {NULL, NULL, NULL, NULL, NULL};
    int i, all = 1;
    for (i = 0; i < 5; i++) all &= g->uobj_sym[i] && (sym[i] = xrt__gpu_lookup(g, g->uobj_sym[i])) != NULL;
    if (!all) memset(sym, 0, sizeof sym);
    memcpy(&g->uobj_create, &sym[0], sizeof sym[0]);
    memcpy(&g->uobj_retain, &sym[1], sizeof sym[1]);
    memcpy(&g->uobj_release, &sym[2], sizeof sym[2]);
    memcpy(&g->graph_uobj_retain, &sym[3], sizeof sym[3]);
    memcpy(&g->graph_uobj_release, &sym[4], sizeof sym[4]);
}

static void xrt__gpu_load_knode_attrs(xrt__gpu *g)
{
    void *sym[3] = {NULL, NULL, NULL};
    int i;
    for (i = 0; i < 3; i++) sym[i] = g->knode_attr_sym[i] ? xrt__gpu_lookup(g, g->knode_attr_sym[i]) : NULL;
    memcpy(&g->knode_set_attr, &sym[0], sizeof sym[0]);
    memcpy(&g->knode_get_attr, &sym[1], sizeof sym[1]);
    memcpy(&g->knode_copy_attrs, &sym[2], sizeof sym[2]);
}

/* Fills rt: from the linked runtime, or from the library that loads. */
static int xrt__gpu_load(xrt__gpu *g, char *reason, size_t n)
{
    void *sym;
    int i;
#ifdef XRT_NO_RUNTIME_LINKING
    (void)reason;
    (void)n;
    g->link(g);
#else
    void *lib = xrt__gpu_open(g, reason, n);
    if (!lib) return 0;
    if (!xrt__gpu_bind(&g->rt, g->syms, g->nsyms, lib, reason, n)) {
        dlclose(lib);
        return 0;
    }
    xrt__gpu_pin(lib, g->syms[0].name);
    g->lib = lib;
#endif
    g->version = 0;
    (void)g->rt.RuntimeGetVersion(&g->version);
    sym = xrt__gpu_lookup(g, g->stream_device_sym);
    memcpy(&g->stream_device, &sym, sizeof sym);
    sym = xrt__gpu_lookup(g, g->dot_print_sym);
    memcpy(&g->dot_print, &sym, sizeof sym);
    sym = xrt__gpu_lookup(g, g->upload_sym);
    memcpy(&g->upload, &sym, sizeof sym);
    sym = xrt__gpu_lookup(g, g->capture_to_graph_sym);
    memcpy(&g->capture_to_graph, &sym, sizeof sym);
    sym = xrt__gpu_lookup(g, g->graph_mem_trim_sym);
    memcpy(&g->graph_mem_trim, &sym, sizeof sym);
    sym = xrt__gpu_lookup(g, g->graph_mem_attr_sym[0]);
    memcpy(&g->graph_mem_attr[0], &sym, sizeof sym);
    sym = xrt__gpu_lookup(g, g->graph_mem_attr_sym[1]);
    memcpy(&g->graph_mem_attr[1], &sym, sizeof sym);
    sym = xrt__gpu_lookup(g, g->node_enabled_sym[0]);
    memcpy(&g->node_set_enabled, &sym, sizeof sym);
    sym = xrt__gpu_lookup(g, g->node_enabled_sym[1]);
    memcpy(&g->node_get_enabled, &sym, sizeof sym);
    sym = xrt__gpu_lookup(g, g->get_limit_sym);
    memcpy(&g->get_limit, &sym, sizeof sym);
    sym = xrt__gpu_lookup(g, g->cache_config_sym[0]);
    memcpy(&g->set_cache_config, &sym, sizeof sym);
    sym = xrt__gpu_lookup(g, g->cache_config_sym[1]);
    memcpy(&g->get_cache_config, &sym, sizeof sym);
    sym = xrt__gpu_lookup(g, g->set_limit_sym);
    memcpy(&g->set_limit, &sym, sizeof sym);
    sym = g->rdma_flush_sym ? xrt__gpu_lookup(g, g->rdma_flush_sym) : NULL;
    memcpy(&g->rdma_flush, &sym, sizeof sym);
    sym = g->stream_attr_sym[0] ? xrt__gpu_lookup(g, g->stream_attr_sym[0]) : NULL;
    memcpy(&g->stream_set_attr, &sym, sizeof sym);
    sym = g->stream_attr_sym[1] ? xrt__gpu_lookup(g, g->stream_attr_sym[1]) : NULL;
    memcpy(&g->stream_get_attr, &sym, sizeof sym);
    sym = xrt__gpu_lookup(g, g->p2p_attr_sym);
    memcpy(&g->p2p_attr, &sym, sizeof sym);
    xrt__gpu_load_uobj(g);
    xrt__gpu_load_knode_attrs(g);
    sym = g->record_flags_sym ? xrt__gpu_lookup(g, g->record_flags_sym) : NULL;
    memcpy(&g->record_flags, &sym, sizeof sym);
    for (i = 0; i < 4; i++) g->mem_node_fns[i] = g->mem_node_syms[i] ? xrt__gpu_lookup(g, g->mem_node_syms[i]) : NULL;
    if (g->loaded(g, reason, n)) return 1;
    xrt__gpu_refused(g, reason, n);
    xrt__gpu_unload(g);
    return 0;
}

/* Which runtime was loaded and what it says of itself and of the driver:
   recorded for xrt_backend_get_info and logged at debug level. */
static void xrt__gpu_describe_runtime(const xrt_backend *self, xrt__gpu *g)
{
    int (*get)(int *) = NULL;
    void *sym = xrt__gpu_lookup(g, g->driver_version);
    char file[256];
    int driver = 0;
    if (sym) {
        memcpy(&get, &sym, sizeof get);
        if (get(&driver) != g->success) driver = 0;
        (void)g->rt.GetLastError();
    }
    xrt__gpu_library(g, file, sizeof file);
    xrt__backend_runtime(self, file, g->version, driver);
    xrt_log(XRT_LOG_DEBUG, "%s: runtime version %d in %s; driver version %d%s", g->name, g->version,
            file[0] ? file : "?", driver, driver ? "" : " (none reported)");
}

static void xrt__gpu_set_count(xrt__gpu *g, int count)
{
    g->count = count;
    g->all = count >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << count) - 1;
}

static xrt_status xrt__gpu_count_devices(xrt__gpu *g, char *reason, size_t n)
{
    int count = 0; /* cudaGetDeviceCount leaves it untouched when it fails */
    int e = g->rt.GetDeviceCount(&count);
    if (e != g->success) {
        if (!g->no_driver(g, e, reason, n)) xrt__gpu_describe(g, e, XRT__GPU_CALL(GetDeviceCount), reason, n);
        (void)g->rt.GetLastError(); /* leave no error behind for code that uses the runtime directly */
        return xrt__gpu_status(g, e) == XRT_ERROR_NO_DEVICE ? XRT_ERROR_NO_DEVICE : XRT_ERROR_BACKEND_UNAVAILABLE;
    }
    if (count <= 0) {
        snprintf(reason, n, "%s: no device", xrt__gpu_call_name(g, XRT__GPU_CALL(GetDeviceCount)));
        return XRT_ERROR_NO_DEVICE;
    }
    xrt__gpu_set_count(g, count);
    return XRT_SUCCESS;
}

static xrt_status xrt__gpu_init(const xrt_backend *self, char *reason, size_t n)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    xrt_status st;
    xrt__gpu_set_count(g, 0);
    if ((st = g->probe(reason, n)) != XRT_SUCCESS) return st;
    if (!xrt__gpu_load(g, reason, n)) return XRT_ERROR_BACKEND_UNAVAILABLE;
    xrt__gpu_describe_runtime(self, g);
    if ((st = xrt__gpu_count_devices(g, reason, n)) != XRT_SUCCESS) {
        xrt__gpu_unload(g);
        return st;
    }
    g->used = 0;
    g->pools_known = g->pools = 0;
    return XRT_SUCCESS;
}

/* >> gpu: devices */
static void xrt__gpu_mark_used(xrt__gpu *g, int device)
{
    uint64_t bit = device >= 0 ? (uint64_t)1 << (device < 63 ? device : 63) : 0;
    /* a locked or only the first time: the common case is a load */
    if (bit & ~__atomic_load_n(&g->used, __ATOMIC_RELAXED)) __atomic_fetch_or(&g->used, bit, __ATOMIC_RELAXED);
}

static int xrt__gpu_was_used(const xrt__gpu *g, int device)
{
    return (int)((__atomic_load_n(&g->used, __ATOMIC_RELAXED) >> (device < 63 ? device : 63)) & 1);
}

/* The thread's current device; 0 if the runtime cannot say. With one
   device there is no other it could be: the runtime is not asked (a call
   of 40-60 ns, saved on every allocation). */
static inline int xrt__gpu_current(const xrt__gpu *g, int *device)
{
    if (g->count == 1) {
        *device = 0;
        return 1;
    }
    return g->rt.GetDevice(device) == g->success;
}

static void xrt__gpu_mark_device_of_thread(xrt__gpu *g) XRT__COLD;
static void xrt__gpu_mark_device_of_thread(xrt__gpu *g)
{
    int d;
    if (xrt__gpu_current(g, &d)) xrt__gpu_mark_used(g, d);
}

/* Once every device is marked (with one GPU, after the first), creates
   make no runtime call for it. */
static inline void xrt__gpu_mark_current(xrt__gpu *g)
{
    if (XRT__UNLIKELY(__atomic_load_n(&g->used, __ATOMIC_RELAXED) != g->all)) xrt__gpu_mark_device_of_thread(g);
}

/* Waits for the devices this backend worked on; the thread keeps its device. */
static void xrt__gpu_synchronize_used(xrt__gpu *g)
{
    int current, d;
    if (!__atomic_load_n(&g->used, __ATOMIC_RELAXED) || g->rt.GetDevice(&current) != g->success) return;
    for (d = 0; d < g->count; d++)
        if (xrt__gpu_was_used(g, d) && xrt__gpu_check(g, g->rt.SetDevice(d), XRT__GPU_CALL(SetDevice)) == XRT_SUCCESS)
            xrt__gpu_check(g, g->rt.DeviceSynchronize(), XRT__GPU_CALL(DeviceSynchronize));
    (void)g->rt.SetDevice(current);
}

static void xrt__gpu_host_kept_free(const xrt_backend *self);
static void xrt__gpu_release_kept(xrt__gpu *g);
static void xrt__gpu_knodes_drop(const xrt__gpu *g, void *graph, void *node);
static void xrt__gpu_captures_forget(const xrt__gpu *g);

/* Called after xrt_shutdown freed the remaining allocations and handles. */
static void xrt__gpu_shutdown(const xrt_backend *self)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    xrt__gpu_synchronize_used(g);
    g->graphs = 0; /* xrt_shutdown destroyed every graph and exec */
    xrt__gpu_knodes_drop(g, NULL, NULL);
    xrt__gpu_captures_forget(g);
    xrt__gpu_release_kept(g);
    xrt__gpu_host_kept_free(self); /* no launch can be in flight now */
    xrt__gpu_unload(g);
}

/* Graphs need every capture and graph entry point (optional rows) and the
   vendor's hooks for those whose signatures differ. */
static int xrt__gpu_has_graphs(const xrt__gpu *g)
{
    return g->rt.StreamBeginCapture && g->rt.StreamEndCapture && g->rt.StreamIsCapturing &&
           g->rt.GraphInstantiateWithFlags && g->rt.GraphLaunch && g->rt.GraphExecDestroy && g->rt.GraphDestroy &&
           g->rt.GraphGetNodes && g->rt.GraphNodeGetType && g->exec_update && g->graph_edges;
}

/* Stream-ordered allocation needs the entry points and a device with
   memory pools. Whether device d (bit) has them is asked of the runtime
   once: the answer cannot change. */
static int xrt__gpu_ask_pools(xrt__gpu *g, int d, uint64_t bit) XRT__COLD;
static int xrt__gpu_ask_pools(xrt__gpu *g, int d, uint64_t bit)
{
    int v = 0;
    if (!g->rt.MallocAsync || !g->rt.FreeAsync) return 0;
    if (bit & __atomic_load_n(&g->pools_known, __ATOMIC_ACQUIRE)) return (__atomic_load_n(&g->pools, __ATOMIC_RELAXED) & bit) != 0;
    if (g->rt.DeviceGetAttribute(&v, g->attr_pools, d) != g->success) v = 0;
    if (v) __atomic_fetch_or(&g->pools, bit, __ATOMIC_RELAXED);
    __atomic_fetch_or(&g->pools_known, bit, __ATOMIC_RELEASE);
    return v != 0;
}

/* Whether device d has memory pools: no runtime call once it is known. */
static inline int xrt__gpu_has_pools(xrt__gpu *g, int d)
{
    uint64_t bit = d >= 0 && d < 64 ? (uint64_t)1 << d : 0;
    /* A bit in pools is set only once the entry points and the device's
       pools are known: the common answer needs no other check. */
    if (XRT__LIKELY(bit & __atomic_load_n(&g->pools, __ATOMIC_RELAXED))) return 1;
    return xrt__gpu_ask_pools(g, d, bit);
}

/* The device a stream-ordered allocation on `stream` comes from: the
   stream's (the runtimes' rule), the NULL stream's being the current one.
   No runtime call with one device. A runtime without cudaStreamGetDevice
   (CUDA before 12.8, HIP 5) cannot tell a stream's device: the current one
   is taken. -1 if the runtime cannot say. */
static inline int xrt__gpu_stream_device(const xrt__gpu *g, void *stream)
{
    int d = -1;
    if (g->count == 1) return 0;
    if (stream && g->stream_device) return g->stream_device(stream, &d) == g->success ? d : -1;
    return xrt__gpu_current(g, &d) ? d : -1;
}

static xrt_status xrt__gpu_get_capabilities(const xrt_backend *self, unsigned *caps)
{
    int d;
    *caps = XRT_CAP_PINNED_HOST | XRT_CAP_HOST_FUNC | XRT_CAP_EVENT_TIMING | XRT_CAP_NATIVE_HANDLES;
    if (xrt__gpu_current((const xrt__gpu *)self->user, &d) && xrt__gpu_has_pools((xrt__gpu *)self->user, d))
        *caps |= XRT_CAP_MALLOC_ASYNC;
    if (((const xrt__gpu *)self->user)->module_load) *caps |= XRT_CAP_MODULES;
    if (xrt__gpu_has_graphs((const xrt__gpu *)self->user)) *caps |= XRT_CAP_GRAPHS;
    return XRT_SUCCESS;
}

static xrt_status xrt__gpu_get_device_count(const xrt_backend *self, int *count)
{
    *count = ((const xrt__gpu *)self->user)->count;
    return XRT_SUCCESS;
}

static xrt_status xrt__gpu_bad_device(const xrt__gpu *g, int device, const char *op) XRT__COLD;
static xrt_status xrt__gpu_bad_device(const xrt__gpu *g, int device, const char *op)
{
    char who[64];
    snprintf(who, sizeof who, "%s: %s", g->name, op);
    return xrt_error(XRT_ERROR_INVALID_DEVICE, who, "device %d out of range (%d device%s)", device, g->count,
                     g->count == 1 ? "" : "s");
}

static inline xrt_status xrt__gpu_check_device(const xrt__gpu *g, int device, const char *op)
{
    return XRT__LIKELY(device < g->count) ? XRT_SUCCESS : xrt__gpu_bad_device(g, device, op);
}

/* The runtime's current device is per thread already, as xrt's is. */
static xrt_status xrt__gpu_set_device(const xrt_backend *self, int device)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    xrt_status st;
    if ((st = xrt__gpu_check_device(g, device, "xrt_set_device")) != XRT_SUCCESS) return st;
    if ((st = XRT__GPU_CHECK(g, g->rt.SetDevice(device), XRT__GPU_CALL(SetDevice))) == XRT_SUCCESS)
        xrt__gpu_mark_used(g, device);
    return st;
}

static xrt_status xrt__gpu_get_device(const xrt_backend *self, int *device)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    return XRT__GPU_CHECK(g, g->rt.GetDevice(device), XRT__GPU_CALL(GetDevice));
}

static xrt_status xrt__gpu_device_synchronize(const xrt_backend *self)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    return XRT__GPU_CHECK(g, g->rt.DeviceSynchronize(), XRT__GPU_CALL(DeviceSynchronize));
}

/* cudaSetDeviceFlags / hipSetDeviceFlags: xrt's flags are CUDA's values,
   and go to the runtime as they are. HIP's headers agree on the schedule
   bits and hipDeviceMapHost, not on hipDeviceLmemResizeToMax: 0x10 in
   ROCm 6's, 0x16 in HIP 5.2's; HIP ignores that flag ("ROCm silently
   ignores this flag", its header says). */
static xrt_status xrt__gpu_set_device_flags(const xrt_backend *self, unsigned flags)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    return XRT__GPU_CHECK(g, g->rt.SetDeviceFlags(flags), XRT__GPU_CALL(SetDeviceFlags));
}

static xrt_status xrt__gpu_get_device_flags(const xrt_backend *self, unsigned *flags)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    return XRT__GPU_CHECK(g, g->rt.GetDeviceFlags(flags), XRT__GPU_CALL(GetDeviceFlags));
}

/* Device reset. The runtime's objects carry no device that xrt can read
   in every version (cudaStreamGetDevice: CUDA 12.8; events: none): with one
   device, every stream, event, pool and executable graph is its; with
   several, their handles are not retired (the runtime makes them invalid).
   Modules (context-independent libraries) and graphs belong to no context
   and stay. */
static int xrt__gpu_on_device(const xrt_backend *self, uintptr_t kind, void *obj, int device)
{
    (void)obj;
    (void)device;
    return ((const xrt__gpu *)self->user)->count == 1 &&
           (kind == XRT__HANDLE_STREAM || kind == XRT__HANDLE_EVENT || kind == XRT__HANDLE_MEM_POOL ||
            kind == XRT__HANDLE_GRAPH_EXEC);
}

/* cudaDeviceReset / hipDeviceReset, once xrt's records of the device's
   memory and objects are gone (freed and destroyed through the runtime). */
static xrt_status xrt__gpu_device_reset(const xrt_backend *self)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    int d = 0;
    xrt_status st = XRT__GPU_CHECK(g, g->rt.GetDevice(&d), XRT__GPU_CALL(GetDevice));
    if (st != XRT_SUCCESS) return st;
    xrt__device_reset_objects(self, d, xrt__gpu_on_device);
    return XRT__GPU_CHECK(g, g->rt.DeviceReset(), XRT__GPU_CALL(DeviceReset));
}

/* For the hooks: one integer attribute of a device (inline: a vendor may not need it). */
static inline xrt_status xrt__gpu_attribute(const xrt__gpu *g, int *value, int attr, int device)
{
    *value = 0;
    return xrt__gpu_check(g, g->rt.DeviceGetAttribute(value, attr, device), XRT__GPU_CALL(DeviceGetAttribute));
}

static xrt_status xrt__gpu_device_get_attribute(const xrt_backend *self, int *value, int attr, int device)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    int native = g->native_attr(attr);
    xrt_status st = xrt__gpu_check_device(g, device, "xrt_device_get_attribute");
    if (st != XRT_SUCCESS) return st;
    if (native < 0)
        return xrt_error(XRT_ERROR_UNSUPPORTED, "xrt_device_get_attribute", "%s: the runtime has no attribute %d",
                         g->name, attr);
    return XRT__GPU_CHECK(g, g->rt.DeviceGetAttribute(value, native, device), XRT__GPU_CALL(DeviceGetAttribute));
}

/* The runtime fills its device struct, whose layout changes between major
   versions (CUDA 13 dropped fields; ROCm 6 has a new one): the buffer has room
   for a bigger struct than any header shows, and only the vendor's hook reads
   it, by the layout of the runtime that was loaded. */
#define XRT__GPU_PROP_BYTES 4096
typedef union xrt__gpu_prop_buf { double align; void *ptr; char bytes[XRT__GPU_PROP_BYTES]; } xrt__gpu_prop_buf;

/* The device's properties, the runtime's own struct left in *u. */
static xrt_status xrt__gpu_prop_of(const xrt_backend *self, xrt_device_prop *prop, int device, xrt__gpu_prop_buf *u)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    xrt_status st;
    if ((st = xrt__gpu_check_device(g, device, "xrt_get_device_properties")) != XRT_SUCCESS) return st;
    memset(u, 0, sizeof *u);
    st = XRT__GPU_CHECK(g, g->rt.GetDeviceProperties(u->bytes, device), XRT__GPU_CALL(GetDeviceProperties));
    if (st != XRT_SUCCESS) return st;
    memset(prop, 0, sizeof *prop);
    memcpy(prop->name, u->bytes, sizeof prop->name - 1); /* every layout opens with char name[256] */
    /* Where the device sits: for the listing only, so a runtime that cannot
       tell leaves 0 rather than failing the call. */
    if (g->rt.DeviceGetAttribute(&prop->pci_domain_id, g->attr_pci[0], device) != g->success ||
        g->rt.DeviceGetAttribute(&prop->pci_bus_id, g->attr_pci[1], device) != g->success ||
        g->rt.DeviceGetAttribute(&prop->pci_device_id, g->attr_pci[2], device) != g->success) {
        prop->pci_domain_id = prop->pci_bus_id = prop->pci_device_id = 0;
        (void)g->rt.GetLastError();
    }
    prop->numa_node = prop->pci_domain_id || prop->pci_bus_id || prop->pci_device_id
                          ? xrt__sysfs_pci_numa_node(prop->pci_domain_id, prop->pci_bus_id, prop->pci_device_id)
                          : -1;
    return g->fill_prop(g, prop, u->bytes, device);
}

static xrt_status xrt__gpu_get_device_properties(const xrt_backend *self, xrt_device_prop *prop, int device)
{
    xrt__gpu_prop_buf u;
    return xrt__gpu_prop_of(self, prop, device, &u);
}

/* >> gpu: memory */
/* The device, known here, is noted for the registry's record. */
static xrt_status xrt__gpu_allocated(xrt__gpu *g, void **ptr, xrt_status st)
{
    int d;
    if (st != XRT_SUCCESS) {
        *ptr = NULL;
        return st;
    }
    if (xrt__gpu_current(g, &d)) {
        xrt__gpu_mark_used(g, d);
        xrt__mem_note_device(*ptr, d);
    }
    return XRT_SUCCESS;
}

static xrt_status xrt__gpu_malloc(const xrt_backend *self, void **ptr, size_t size)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    return xrt__gpu_allocated(g, ptr, XRT__GPU_CHECK(g, g->rt.Malloc(ptr, size), XRT__GPU_CALL(Malloc)));
}

static xrt_status xrt__gpu_free(const xrt_backend *self, void *ptr)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    return XRT__GPU_CHECK(g, g->rt.Free(ptr), XRT__GPU_CALL(Free));
}

static xrt_status xrt__gpu_malloc_host(const xrt_backend *self, void **ptr, size_t size)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    /* 0: cudaHostAllocDefault, hipHostMallocDefault */
    return xrt__gpu_allocated(g, ptr, XRT__GPU_CHECK(g, g->rt.HostAlloc(ptr, size, 0), XRT__GPU_CALL(HostAlloc)));
}

/* cudaHostAlloc / hipHostMalloc: xrt's flags are CUDA's values, HIP's the same. */
static xrt_status xrt__gpu_host_alloc(const xrt_backend *self, void **ptr, size_t size, unsigned flags)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    return xrt__gpu_allocated(g, ptr, XRT__GPU_CHECK(g, g->rt.HostAlloc(ptr, size, flags), XRT__GPU_CALL(HostAlloc)));
}

static xrt_status xrt__gpu_rect_lack(const xrt__gpu *g, size_t call, const char *op) XRT__COLD;
static xrt_status xrt__gpu_host_get_flags(const xrt_backend *self, unsigned *flags, void *ptr)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    if (!g->rt.HostGetFlags) return xrt__gpu_rect_lack(g, XRT__GPU_CALL(HostGetFlags), "host_get_flags");
    return XRT__GPU_CHECK(g, g->rt.HostGetFlags(flags, ptr), XRT__GPU_CALL(HostGetFlags));
}

static xrt_status xrt__gpu_free_host(const xrt_backend *self, void *ptr)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    return XRT__GPU_CHECK(g, g->rt.FreeHost(ptr), XRT__GPU_CALL(FreeHost));
}

/* >> gpu: registered host memory: the runtime's calls (optional entry
   points: a runtime without them answers "unsupported"); its flags are
   xrt's, CUDA's values, passed as the runtime means them. HIP's headers
   agree on portable, mapped and I/O memory; read-only is the runtime's own
   flag (host_register_read_only), where it has one. */
static xrt_status xrt__gpu_rect_lack(const xrt__gpu *g, size_t call, const char *op) XRT__COLD;
static xrt_status xrt__gpu_no_read_only(const xrt__gpu *g) XRT__COLD;
static xrt_status xrt__gpu_no_read_only(const xrt__gpu *g)
{
    char who[80];
    snprintf(who, sizeof who, "%s: xrt_host_register", g->name);
    return xrt_error(XRT_ERROR_UNSUPPORTED, who, "XRT_HOST_REGISTER_READ_ONLY: %s",
                     g->read_only_lack ? g->read_only_lack : "the runtime has no read-only registration");
}

static xrt_status xrt__gpu_host_register(const xrt_backend *self, void *ptr, size_t size, unsigned flags)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    if (!g->rt.HostRegister) return xrt__gpu_rect_lack(g, XRT__GPU_CALL(HostRegister), "host_register");
    if (flags & XRT_HOST_REGISTER_READ_ONLY) {
        if (!g->host_register_read_only) return xrt__gpu_no_read_only(g);
        flags = (flags & ~(unsigned)XRT_HOST_REGISTER_READ_ONLY) | g->host_register_read_only;
    }
    return XRT__GPU_CHECK(g, g->rt.HostRegister(ptr, size, flags), XRT__GPU_CALL(HostRegister));
}

static xrt_status xrt__gpu_host_unregister(const xrt_backend *self, void *ptr)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    if (!g->rt.HostUnregister) return xrt__gpu_rect_lack(g, XRT__GPU_CALL(HostUnregister), "host_unregister");
    return XRT__GPU_CHECK(g, g->rt.HostUnregister(ptr), XRT__GPU_CALL(HostUnregister));
}

static xrt_status xrt__gpu_host_get_device_pointer(const xrt_backend *self, void **dptr, void *hptr, unsigned flags)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    if (!g->rt.HostGetDevicePointer)
        return xrt__gpu_rect_lack(g, XRT__GPU_CALL(HostGetDevicePointer), "host_get_device_pointer");
    return XRT__GPU_CHECK(g, g->rt.HostGetDevicePointer(dptr, hptr, flags), XRT__GPU_CALL(HostGetDevicePointer));
}

static xrt_status xrt__gpu_no_pools(const xrt__gpu *g, const char *op, int device)
{
    char who[64];
    snprintf(who, sizeof who, "%s: %s", g->name, op);
    if (!g->rt.MallocAsync || !g->rt.FreeAsync)
        return xrt_error(XRT_ERROR_UNSUPPORTED, who, "the runtime has no stream-ordered allocator");
    return xrt_error(XRT_ERROR_UNSUPPORTED, who, "device %d has no memory pools (stream-ordered allocation)", device);
}

static xrt_status xrt__gpu_malloc_async(const xrt_backend *self, void **ptr, size_t size, void *stream)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    int d = xrt__gpu_stream_device(g, stream);
    xrt_status st;
    if (!xrt__gpu_has_pools(g, d)) return xrt__gpu_no_pools(g, "xrt_malloc_async", d);
    st = XRT__GPU_CHECK(g, g->rt.MallocAsync(ptr, size, stream), XRT__GPU_CALL(MallocAsync));
    if (st != XRT_SUCCESS) {
        *ptr = NULL;
        return st;
    }
    xrt__gpu_mark_used(g, d); /* the device is known: no second GetDevice, here or in the registry */
    xrt__mem_note_device(*ptr, d);
    return st;
}

/* The runtime answers for memory it cannot free in stream order; a pool
   check here would cost two runtime calls per free. */
static xrt_status xrt__gpu_free_async(const xrt_backend *self, void *ptr, void *stream)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    if (!g->rt.FreeAsync) return xrt__gpu_no_pools(g, "xrt_free_async", -1);
    return XRT__GPU_CHECK(g, g->rt.FreeAsync(ptr, stream), XRT__GPU_CALL(FreeAsync));
}

static xrt_status xrt__gpu_mem_get_info(const xrt_backend *self, size_t *free_bytes, size_t *total_bytes)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    return XRT__GPU_CHECK(g, g->rt.MemGetInfo(free_bytes, total_bytes), XRT__GPU_CALL(MemGetInfo));
}

/* >> gpu: streams (NULL is the runtime's legacy default stream, handle 0) */
static xrt_status xrt__gpu_stream_synchronize(const xrt_backend *self, void *stream)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    return XRT__GPU_CHECK(g, g->rt.StreamSynchronize(stream), XRT__GPU_CALL(StreamSynchronize));
}

static xrt_status xrt__gpu_memset_async(const xrt_backend *self, void *dst, int value, size_t size, void *stream)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    return XRT__GPU_CHECK(g, g->rt.MemsetAsync(dst, value, size, stream), XRT__GPU_CALL(MemsetAsync));
}

/* The runtime's own synchronous calls: they refuse what a capture forbids
   before queueing anything, and synchronise with the host as CUDA's "API
   synchronization behavior" says (a set of device memory and a device to
   device copy do not wait). */
static xrt_status xrt__gpu_memset(const xrt_backend *self, void *dst, int value, size_t size)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    return XRT__GPU_CHECK(g, g->rt.Memset(dst, value, size), XRT__GPU_CALL(Memset));
}

/* xrt's kinds have the runtimes' values; the dispatch layer has resolved XRT_MEMCPY_DEFAULT. */
static xrt_status xrt__gpu_memcpy_async(const xrt_backend *self, void *dst, const void *src, size_t size,
                                        xrt_memcpy_kind kind, void *stream)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    return XRT__GPU_CHECK(g, g->rt.MemcpyAsync(dst, src, size, (int)kind, stream), XRT__GPU_CALL(MemcpyAsync));
}

static xrt_status xrt__gpu_memcpy(const xrt_backend *self, void *dst, const void *src, size_t size,
                                  xrt_memcpy_kind kind)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    return XRT__GPU_CHECK(g, g->rt.Memcpy(dst, src, size, (int)kind), XRT__GPU_CALL(Memcpy));
}

/* >> gpu: pitched memory: cudaMemcpy2DAsync, cudaMemset2DAsync and their
   synchronous forms, the runtime's own (optional entry points: a runtime
   without them answers "unsupported"). The runtime's 2-D memset is of
   bytes: elements of 2 or 4 bytes are set by it where their bytes are
   equal, else by the backend's memset_wide. */
static xrt_status xrt__gpu_rect_lack(const xrt__gpu *g, size_t call, const char *op) XRT__COLD;
static xrt_status xrt__gpu_rect_lack(const xrt__gpu *g, size_t call, const char *op)
{
    char who[80];
    snprintf(who, sizeof who, "%s: xrt_%s", g->name, op);
    return xrt_error(XRT_ERROR_UNSUPPORTED, who, "the runtime has no %s", xrt__gpu_call_name(g, call));
}

/* >> gpu: managed memory: the runtime's calls (optional entry points: a
   runtime without them answers "unsupported"); flags and advice are xrt's
   (CUDA's values; HIP's are the same). */
static xrt_status xrt__gpu_malloc_managed(const xrt_backend *self, void **ptr, size_t size, unsigned flags)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    if (!g->rt.MallocManaged) return xrt__gpu_rect_lack(g, XRT__GPU_CALL(MallocManaged), "malloc_managed");
    return xrt__gpu_allocated(g, ptr, XRT__GPU_CHECK(g, g->rt.MallocManaged(ptr, size, flags), XRT__GPU_CALL(MallocManaged)));
}

static xrt_status xrt__gpu_no_managed(const xrt__gpu *g, const char *op) XRT__COLD;
static xrt_status xrt__gpu_no_managed(const xrt__gpu *g, const char *op)
{
    char who[80];
    snprintf(who, sizeof who, "%s: xrt_%s", g->name, op);
    return xrt_error(XRT_ERROR_UNSUPPORTED, who, "the runtime has no %s of managed memory in a form xrt knows",
                     strcmp(op, "mem_advise") ? "prefetch" : "advice");
}

static xrt_status xrt__gpu_mem_prefetch_async(const xrt_backend *self, const void *ptr, size_t count, int device,
                                              void *stream)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    const char *call = "";
    int e;
    if (!g->mem_prefetch) return xrt__gpu_no_managed(g, "mem_prefetch_async");
    e = g->mem_prefetch(g, ptr, count, device, stream, &call);
    return xrt__gpu_answer(g, e, call, "mem_prefetch_async");
}

static xrt_status xrt__gpu_mem_advise(const xrt_backend *self, const void *ptr, size_t count, int advice, int device)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    const char *call = "";
    int e;
    if (!g->mem_advise) return xrt__gpu_no_managed(g, "mem_advise");
    e = g->mem_advise(g, ptr, count, advice, device, &call);
    return xrt__gpu_answer(g, e, call, "mem_advise");
}

/* The runtime's answer as it gives it: its locations are xrt's (CUDA's and
   HIP's cudaCpuDeviceId and cudaInvalidDeviceId are -1 and -2). */
static xrt_status xrt__gpu_mem_range_get_attribute(const xrt_backend *self, void *data, size_t data_size,
                                                   int attribute, const void *ptr, size_t count)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    if (!g->rt.MemRangeGetAttribute)
        return xrt__gpu_rect_lack(g, XRT__GPU_CALL(MemRangeGetAttribute), "mem_range_get_attribute");
    return XRT__GPU_CHECK(g, g->rt.MemRangeGetAttribute(data, data_size, attribute, ptr, count),
                          XRT__GPU_CALL(MemRangeGetAttribute));
}

static xrt_status xrt__gpu_stream_attach_mem_async(const xrt_backend *self, void *stream, void *ptr, size_t length,
                                                   unsigned flags)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    if (!g->rt.StreamAttachMemAsync)
        return xrt__gpu_rect_lack(g, XRT__GPU_CALL(StreamAttachMemAsync), "stream_attach_mem_async");
    return XRT__GPU_CHECK(g, g->rt.StreamAttachMemAsync(stream, ptr, length, flags), XRT__GPU_CALL(StreamAttachMemAsync));
}

static xrt_status xrt__gpu_memcpy_2d_async(const xrt_backend *self, void *dst, size_t dpitch, const void *src,
                                           size_t spitch, size_t width, size_t height, xrt_memcpy_kind kind,
                                           void *stream)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    if (!g->rt.Memcpy2DAsync) return xrt__gpu_rect_lack(g, XRT__GPU_CALL(Memcpy2DAsync), "memcpy_2d_async");
    return XRT__GPU_CHECK(g, g->rt.Memcpy2DAsync(dst, dpitch, src, spitch, width, height, (int)kind, stream),
                          XRT__GPU_CALL(Memcpy2DAsync));
}

/* The runtime's own synchronous copy, as xrt__gpu_memcpy: it refuses what a
   capture forbids before queueing anything, and does not wait from device
   to device ("no host-side synchronization is performed"). */
static xrt_status xrt__gpu_memcpy_2d(const xrt_backend *self, void *dst, size_t dpitch, const void *src,
                                     size_t spitch, size_t width, size_t height, xrt_memcpy_kind kind)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    if (!g->rt.Memcpy2D) return xrt__gpu_rect_lack(g, XRT__GPU_CALL(Memcpy2D), "memcpy_2d");
    return XRT__GPU_CHECK(g, g->rt.Memcpy2D(dst, dpitch, src, spitch, width, height, (int)kind),
                          XRT__GPU_CALL(Memcpy2D));
}

/* Whether elements of element_size bytes of value have equal bytes: the
   runtime's memset, which sets bytes, sets them. */
static int xrt__gpu_bytes_equal(unsigned value, unsigned element_size)
{
    unsigned byte = value & 0xffu;
    return (element_size < 2 || (value & 0xffffu) == byte * 0x101u) && (element_size < 4 || value >> 16 == byte * 0x101u);
}

/* The xrt call a set of element_size-byte values is, for messages. */
static const char *xrt__gpu_set_op(unsigned element_size)
{
    return element_size == 1 ? "memset_2d" : element_size == 2 ? "memset_d16" : "memset_d32";
}

static xrt_status xrt__gpu_memset_wide(xrt__gpu *g, void *dst, size_t pitch, unsigned value, unsigned element_size,
                                       size_t width, size_t height, void *stream, int async)
{
    char who[80];
    if (g->memset_wide) return g->memset_wide(g, dst, pitch, value, element_size, width, height, stream, async);
    snprintf(who, sizeof who, "%s: xrt_%s", g->name, xrt__gpu_set_op(element_size));
    return xrt_error(XRT_ERROR_UNSUPPORTED, who, "value 0x%x has unequal bytes: the runtime's memset sets bytes, and "
                     "the runtime has no set of %u-byte values", value, element_size);
}

static xrt_status xrt__gpu_memset_2d_async(const xrt_backend *self, void *dst, size_t pitch, unsigned value,
                                           unsigned element_size, size_t width, size_t height, void *stream)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    if (!xrt__gpu_bytes_equal(value, element_size))
        return xrt__gpu_memset_wide(g, dst, pitch, value, element_size, width, height, stream, 1);
    if (!g->rt.Memset2DAsync) return xrt__gpu_rect_lack(g, XRT__GPU_CALL(Memset2DAsync), xrt__gpu_set_op(element_size));
    return XRT__GPU_CHECK(g, g->rt.Memset2DAsync(dst, pitch, (int)(value & 0xffu), width * element_size, height, stream),
                          XRT__GPU_CALL(Memset2DAsync));
}

/* The runtime's own synchronous set, as xrt__gpu_memset: it refuses what a
   capture forbids before queueing anything, and the host waits only where
   the target is pinned host or managed memory ("API synchronization
   behavior"). */
static xrt_status xrt__gpu_memset_2d(const xrt_backend *self, void *dst, size_t pitch, unsigned value,
                                     unsigned element_size, size_t width, size_t height)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    if (!xrt__gpu_bytes_equal(value, element_size))
        return xrt__gpu_memset_wide(g, dst, pitch, value, element_size, width, height, NULL, 0);
    if (!g->rt.Memset2D) return xrt__gpu_rect_lack(g, XRT__GPU_CALL(Memset2D), xrt__gpu_set_op(element_size));
    return XRT__GPU_CHECK(g, g->rt.Memset2D(dst, pitch, (int)(value & 0xffu), width * element_size, height),
                          XRT__GPU_CALL(Memset2D));
}

/* >> gpu: peers: the runtimes' own calls; their errors (peer access already
   enabled, not enabled, a device its own peer) are CUDA's. */
static xrt_status xrt__gpu_device_can_access_peer(const xrt_backend *self, int *can, int device, int peer)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    xrt_status st = xrt__gpu_check_device(g, device, "xrt_device_can_access_peer");
    if (st == XRT_SUCCESS) st = xrt__gpu_check_device(g, peer, "xrt_device_can_access_peer");
    return st == XRT_SUCCESS ? XRT__GPU_CHECK(g, g->rt.DeviceCanAccessPeer(can, device, peer),
                                              XRT__GPU_CALL(DeviceCanAccessPeer)) : st;
}

static xrt_status xrt__gpu_device_get_p2p_attribute(const xrt_backend *self, int *value, int attr, int src, int dst)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    int e;
    xrt_status st = xrt__gpu_check_device(g, src, "xrt_device_get_p2p_attribute");
    if (st == XRT_SUCCESS) st = xrt__gpu_check_device(g, dst, "xrt_device_get_p2p_attribute");
    if (st != XRT_SUCCESS) return st;
    if (!g->p2p_attr)
        return xrt__gpu_lacks(g, "xrt_device_get_p2p_attribute", g->p2p_attr_sym);
    e = g->p2p_attr(value, attr + g->p2p_attr_shift, src, dst);
    return xrt__gpu_answer(g, e, g->p2p_attr_sym, "device_get_p2p_attribute");
}

static xrt_status xrt__gpu_device_enable_peer_access(const xrt_backend *self, int peer, unsigned flags)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    xrt_status st = xrt__gpu_check_device(g, peer, "xrt_device_enable_peer_access");
    return st == XRT_SUCCESS ? XRT__GPU_CHECK(g, g->rt.DeviceEnablePeerAccess(peer, flags),
                                              XRT__GPU_CALL(DeviceEnablePeerAccess)) : st;
}

static xrt_status xrt__gpu_device_disable_peer_access(const xrt_backend *self, int peer)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    xrt_status st = xrt__gpu_check_device(g, peer, "xrt_device_disable_peer_access");
    return st == XRT_SUCCESS ? XRT__GPU_CHECK(g, g->rt.DeviceDisablePeerAccess(peer),
                                              XRT__GPU_CALL(DeviceDisablePeerAccess)) : st;
}

static xrt_status xrt__gpu_peer_devices(const xrt__gpu *g, int dst_device, int src_device, const char *op)
{
    xrt_status st = xrt__gpu_check_device(g, dst_device, op);
    return st == XRT_SUCCESS ? xrt__gpu_check_device(g, src_device, op) : st;
}

static xrt_status xrt__gpu_memcpy_peer_async(const xrt_backend *self, void *dst, int dst_device, const void *src,
                                             int src_device, size_t size, void *stream)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    xrt_status st = xrt__gpu_peer_devices(g, dst_device, src_device, "xrt_memcpy_peer_async");
    return st == XRT_SUCCESS ? XRT__GPU_CHECK(g, g->rt.MemcpyPeerAsync(dst, dst_device, src, src_device, size, stream),
                                              XRT__GPU_CALL(MemcpyPeerAsync)) : st;
}

/* cudaMemcpyPeer: asynchronous with respect to the host, serialized with the
   work queued before and after it on the current, source and destination
   devices: the runtime's own rule, so nothing is waited for here. */
static xrt_status xrt__gpu_memcpy_peer(const xrt_backend *self, void *dst, int dst_device, const void *src,
                                       int src_device, size_t size)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    xrt_status st = xrt__gpu_peer_devices(g, dst_device, src_device, "xrt_memcpy_peer");
    return st == XRT_SUCCESS ? XRT__GPU_CHECK(g, g->rt.MemcpyPeer(dst, dst_device, src, src_device, size),
                                              XRT__GPU_CALL(MemcpyPeer)) : st;
}

/* The base and size of memory the runtime allocated for another than xrt,
   as the driver tells them; kept only where they hold ptr. */
static void xrt__gpu_pointer_range(const xrt__gpu *g, xrt_pointer_attributes *attr, const void *ptr)
{
    void *base = NULL;
    size_t size = 0;
    g->address_range(g, ptr, &base, &size);
    if (!base || (uintptr_t)ptr < (uintptr_t)base || (uintptr_t)ptr - (uintptr_t)base >= size) return;
    attr->base = base;
    attr->size = size;
}

/* Runs for every pointer the registry does not know (pageable host buffers of
   every memcpy), so an unknown pointer is an answer, never a logged error. */
static xrt_status xrt__gpu_pointer_get_attributes(const xrt_backend *self, xrt_pointer_attributes *attr,
                                                  const void *ptr)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    /* Room for a later runtime's larger struct; only the part that
       memory_type reads is cleared (its size is checked where the vendor
       struct is declared), not the whole buffer at each call. */
    union { double align; void *ptr; char bytes[256]; } u;
    int device = -1;
    memset(&u, 0, XRT__GPU_POINTER_ATTR_BYTES);
    if (g->rt.PointerGetAttributes(u.bytes, ptr) != g->success) {
        (void)g->rt.GetLastError(); /* HIP 5 fails for plain host memory and keeps it as its last error */
        return XRT_SUCCESS;
    }
    attr->type = g->memory_type(g, u.bytes, &device);
    if (attr->type == XRT_MEMORY_UNKNOWN) return XRT_SUCCESS;
    attr->backend = g->name;
    if (attr->type != XRT_MEMORY_PINNED_HOST) attr->device = device; /* xrt: -1 for host memory */
    xrt__gpu_pointer_range(g, attr, ptr);
    return XRT_SUCCESS;
}

/* xrt's stream flags and priorities are the runtimes' values. */
static xrt_status xrt__gpu_stream_create_with_priority(const xrt_backend *self, void **stream, unsigned flags,
                                                       int priority)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    void *s = NULL;
    xrt_status st = XRT__GPU_CHECK(g, g->rt.StreamCreateWithPriority(&s, flags, priority),
                                   XRT__GPU_CALL(StreamCreateWithPriority));
    if (st != XRT_SUCCESS) return st;
    *stream = s;
    xrt__gpu_mark_current(g);
    return XRT_SUCCESS;
}

/* Blocking, as cudaStreamCreate's: ordered with the legacy NULL stream. */
static xrt_status xrt__gpu_stream_create(const xrt_backend *self, void **stream)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    void *s = NULL;
    xrt_status st = XRT__GPU_CHECK(g, g->rt.StreamCreateWithFlags(&s, XRT_STREAM_DEFAULT),
                                   XRT__GPU_CALL(StreamCreateWithFlags));
    if (st != XRT_SUCCESS) return st;
    *stream = s;
    xrt__gpu_mark_current(g);
    return XRT_SUCCESS;
}

/* The runtime's own: cudaStreamPerThread, hipStreamPerThread. */
static xrt_status xrt__gpu_stream_per_thread(const xrt_backend *self, void **stream)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    *stream = g->per_thread;
    xrt__gpu_mark_current(g);
    return XRT_SUCCESS;
}

static xrt_status xrt__gpu_stream_get_flags(const xrt_backend *self, void *stream, unsigned *flags)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    return XRT__GPU_CHECK(g, g->rt.StreamGetFlags(stream, flags), XRT__GPU_CALL(StreamGetFlags));
}

/* The NULL, legacy and per-thread streams are the current device's; a
   wrapped native stream's device is the runtime's answer
   (cudaStreamGetDevice: CUDA 12.8), or with one device device 0. */
static xrt_status xrt__gpu_stream_get_device(const xrt_backend *self, void *stream, int *device)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    if ((uintptr_t)stream <= (uintptr_t)XRT_STREAM_PER_THREAD) return xrt__gpu_get_device(self, device);
    if (g->stream_device) return xrt__gpu_answer(g, g->stream_device(stream, device), g->stream_device_sym,
                                                 "stream_get_device");
    if (g->count == 1) return (*device = 0, XRT_SUCCESS);
    return xrt__gpu_lacks(g, "xrt_stream_get_device", g->stream_device_sym ? g->stream_device_sym : "stream devices");
}

static xrt_status xrt__gpu_stream_get_priority(const xrt_backend *self, void *stream, int *priority)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    return XRT__GPU_CHECK(g, g->rt.StreamGetPriority(stream, priority), XRT__GPU_CALL(StreamGetPriority));
}

static xrt_status xrt__gpu_device_get_stream_priority_range(const xrt_backend *self, int *least, int *greatest)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    return XRT__GPU_CHECK(g, g->rt.DeviceGetStreamPriorityRange(least, greatest),
                          XRT__GPU_CALL(DeviceGetStreamPriorityRange));
}

static void xrt__gpu_capture_gone(xrt__gpu *g, void *stream);

/* A destroyed origin stream ends its capture (xrt__gpu_capture_gone). */
static xrt_status xrt__gpu_stream_destroy(const xrt_backend *self, void *stream)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    xrt_status st = XRT__GPU_CHECK(g, g->rt.StreamDestroy(stream), XRT__GPU_CALL(StreamDestroy));
    if (st == XRT_SUCCESS && __atomic_load_n(&g->captures, __ATOMIC_RELAXED)) xrt__gpu_capture_gone(g, stream);
    return st;
}

static xrt_status xrt__gpu_stream_query(const xrt_backend *self, void *stream)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    return XRT__GPU_CHECK(g, g->rt.StreamQuery(stream), XRT__GPU_CALL(StreamQuery));
}

static xrt_status xrt__gpu_stream_wait_event(const xrt_backend *self, void *stream, void *event)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    return XRT__GPU_CHECK(g, g->rt.StreamWaitEvent(stream, event, 0), XRT__GPU_CALL(StreamWaitEvent));
}

/* The flags as the runtime's (XRT_EVENT_WAIT_EXTERNAL is cudaEventWaitExternal),
   where it takes them. */
static xrt_status xrt__gpu_stream_wait_event_with_flags(const xrt_backend *self, void *stream, void *event,
                                                        unsigned flags)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    if (flags != XRT_EVENT_WAIT_DEFAULT && !g->wait_external)
        return xrt_error(XRT_ERROR_UNSUPPORTED, "xrt_stream_wait_event_with_flags",
                         "%s: the runtime's stream wait takes no flags (its header has no external wait): "
                         "XRT_EVENT_WAIT_EXTERNAL is not supported", g->name);
    return XRT__GPU_CHECK(g, g->rt.StreamWaitEvent(stream, event, flags), XRT__GPU_CALL(StreamWaitEvent));
}

/* >> gpu: host functions. The runtime calls a trampoline, which runs the
   user's function through the core: inside it, every xrt call returns
   XRT_ERROR_NOT_PERMITTED (the GPU tables lack XRT_BACKEND_HOST_FN_CALLS). */
/* Closures of host functions in flight, taken and given back without a lock
   or an allocation: a bit per closure (set: taken), 64 to a word changed by
   one atomic operation. The user's thread takes one, the runtime's thread
   gives it back when the function runs. Each thread starts its search at a
   word of its own, so that threads seldom contend for one; when every
   closure is taken, one comes from the allocator (and goes back to it).
   Nothing to free at shutdown or at a thread's exit. */
#define XRT__GPU_CLOSURE_WORDS 8
static xrt__gpu_host_call xrt__gpu_closures[XRT__GPU_CLOSURE_WORDS * 64];
static uint64_t xrt__gpu_closure_taken[XRT__GPU_CLOSURE_WORDS];
static unsigned xrt__gpu_closure_threads; /* threads that took one: their first words */
static XRT__TLS unsigned xrt__gpu_closure_word; /* 0: not chosen yet, else the word + 1 */

static xrt__gpu_host_call *xrt__gpu_closure_take(void)
{
    unsigned i, w;
    if (XRT__UNLIKELY(!xrt__gpu_closure_word))
        xrt__gpu_closure_word = 1 + __atomic_fetch_add(&xrt__gpu_closure_threads, 1, __ATOMIC_RELAXED) % XRT__GPU_CLOSURE_WORDS;
    for (i = 0; i < XRT__GPU_CLOSURE_WORDS; i++) {
        uint64_t v, bit;
        w = (xrt__gpu_closure_word - 1 + i) % XRT__GPU_CLOSURE_WORDS;
        v = __atomic_load_n(&xrt__gpu_closure_taken[w], __ATOMIC_RELAXED);
        while (~v) {
            bit = ~v & (v + 1); /* the lowest free one */
            if (__atomic_compare_exchange_n(&xrt__gpu_closure_taken[w], &v, v | bit, 1, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
                return &xrt__gpu_closures[w * 64 + (unsigned)__builtin_ctzll(bit)];
        }
    }
    return (xrt__gpu_host_call *)XRT_MALLOC(sizeof(xrt__gpu_host_call));
}

/* After the closure was read: the release orders that read before its reuse. */
static void xrt__gpu_closure_give(xrt__gpu_host_call *c)
{
    size_t k = (size_t)((uintptr_t)c - (uintptr_t)xrt__gpu_closures) / sizeof *c;
    if (k >= XRT__GPU_CLOSURE_WORDS * 64) {
        XRT_FREE(c); /* from the allocator (or outside the table: k wrapped) */
        return;
    }
    __atomic_fetch_and(&xrt__gpu_closure_taken[k / 64], ~((uint64_t)1 << (k % 64)), __ATOMIC_RELEASE);
}

static void xrt__gpu_host_trampoline(void *closure)
{
    xrt__gpu_host_call c = *(xrt__gpu_host_call *)closure;
    xrt__gpu_closure_give((xrt__gpu_host_call *)closure);
    xrt__host_fn_run(c.self, c.fn, c.user);
}

/* A stream callback: the runtime's status is ignored, xrt runs fn when the
   stream reaches it, as the runtimes' host functions do. */
static void xrt__gpu_host_callback(void *stream, int status, void *closure)
{
    (void)stream;
    (void)status;
    xrt__gpu_host_trampoline(closure);
}

/* A host function captured into a graph runs at each of its launches, so
   its closure cannot be freed when it runs: such closures are kept, one per
   function and argument, until the backend shuts down (a graph and the execs
   made from it, even destroyed, may still have launches in flight). */
static void xrt__gpu_host_kept_trampoline(void *closure)
{
    const xrt__gpu_host_call *c = (const xrt__gpu_host_call *)closure;
    xrt__host_fn_run(c->self, c->fn, c->user);
}

static void xrt__gpu_host_kept_callback(void *stream, int status, void *closure)
{
    (void)stream;
    (void)status;
    xrt__gpu_host_kept_trampoline(closure);
}

#define XRT__GPU_KEPT_BUCKETS 64
typedef struct xrt__gpu_kept {
    xrt__gpu_host_call call; /* first: the closure the runtime gets */
    struct xrt__gpu_kept *next;
} xrt__gpu_kept;
static xrt__gpu_kept *xrt__gpu_kept_calls[XRT__GPU_KEPT_BUCKETS];
static pthread_mutex_t xrt__gpu_kept_lock = PTHREAD_MUTEX_INITIALIZER;

static xrt__gpu_host_call *xrt__gpu_host_kept(const xrt_backend *self, xrt_host_fn fn, void *user)
{
    uintptr_t f;
    xrt__gpu_kept *k, **bucket;
    memcpy(&f, &fn, sizeof f < sizeof fn ? sizeof f : sizeof fn);
    bucket = &xrt__gpu_kept_calls[((f >> 4) ^ ((uintptr_t)user >> 4)) % XRT__GPU_KEPT_BUCKETS];
    pthread_mutex_lock(&xrt__gpu_kept_lock);
    for (k = *bucket; k; k = k->next)
        if (k->call.self == self && k->call.fn == fn && k->call.user == user) break;
    if (!k && (k = (xrt__gpu_kept *)XRT_MALLOC(sizeof *k)) != NULL) {
        k->call.self = self;
        k->call.fn = fn;
        k->call.user = user;
        k->next = *bucket;
        *bucket = k;
    }
    pthread_mutex_unlock(&xrt__gpu_kept_lock);
    return k ? &k->call : NULL;
}

/* The closures of one backend (CUDA's and HIP's share the table). */
static void xrt__gpu_host_kept_free(const xrt_backend *self)
{
    size_t i;
    pthread_mutex_lock(&xrt__gpu_kept_lock);
    for (i = 0; i < XRT__GPU_KEPT_BUCKETS; i++) {
        xrt__gpu_kept **pp = &xrt__gpu_kept_calls[i], *k;
        while ((k = *pp) != NULL) {
            if (k->call.self != self) {
                pp = &k->next;
                continue;
            }
            *pp = k->next;
            XRT_FREE(k);
        }
    }
    pthread_mutex_unlock(&xrt__gpu_kept_lock);
}

/* Whether the stream is under capture (active or invalidated): its host
   functions then go into a graph. One more runtime call per host function
   (not per kernel or copy), on any stream but the NULL one. */
static int xrt__gpu_capturing(const xrt__gpu *g, void *stream)
{
    int status = 0;
    return stream && g->rt.StreamIsCapturing && g->rt.StreamIsCapturing(stream, &status) == g->success && status != 0;
}

/* HIP 5 declares hipLaunchHostFunc but does not export it: a stream callback
   does the same work there. */
static xrt_status xrt__gpu_launch_host_func(const xrt_backend *self, void *stream, xrt_host_fn fn, void *user)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    int kept = xrt__gpu_capturing(g, stream);
    xrt__gpu_host_call *c = kept ? xrt__gpu_host_kept(self, fn, user) : xrt__gpu_closure_take();
    xrt_status st;
    if (!c) {
        char who[64];
        snprintf(who, sizeof who, "%s: xrt_launch_host_func", g->name);
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, who, "no memory for the host function's closure");
    }
    if (!kept) {
        c->self = self;
        c->fn = fn;
        c->user = user;
    }
    if (g->rt.LaunchHostFunc)
        st = XRT__GPU_CHECK(g, g->rt.LaunchHostFunc(stream, kept ? xrt__gpu_host_kept_trampoline : xrt__gpu_host_trampoline, c),
                            XRT__GPU_CALL(LaunchHostFunc));
    else
        st = XRT__GPU_CHECK(g, g->rt.StreamAddCallback(stream, kept ? xrt__gpu_host_kept_callback : xrt__gpu_host_callback, c, 0),
                            XRT__GPU_CALL(StreamAddCallback));
    if (st != XRT_SUCCESS && !kept) xrt__gpu_closure_give(c); /* the runtime took nothing */
    return st;
}

/* >> gpu: events (xrt's flags have the runtimes' values) */
static xrt_status xrt__gpu_event_create(const xrt_backend *self, void **event, unsigned flags)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    void *e = NULL;
    xrt_status st = XRT__GPU_CHECK(g, g->rt.EventCreateWithFlags(&e, flags), XRT__GPU_CALL(EventCreateWithFlags));
    if (st != XRT_SUCCESS) return st;
    *event = e;
    xrt__gpu_mark_current(g);
    return XRT_SUCCESS;
}

static xrt_status xrt__gpu_event_destroy(const xrt_backend *self, void *event)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    return XRT__GPU_CHECK(g, g->rt.EventDestroy(event), XRT__GPU_CALL(EventDestroy));
}

static xrt_status xrt__gpu_event_record(const xrt_backend *self, void *event, void *stream)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    return XRT__GPU_CHECK(g, g->rt.EventRecord(event, stream), XRT__GPU_CALL(EventRecord));
}

/* XRT_EVENT_RECORD_EXTERNAL through the runtime's own call, which keeps the
   capture rules (cudaEventRecordWithFlags); a runtime without it records
   only without flags. */
static xrt_status xrt__gpu_event_record_with_flags(const xrt_backend *self, void *event, void *stream, unsigned flags)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    int e;
    if (flags == XRT_EVENT_RECORD_DEFAULT) return xrt__gpu_event_record(self, event, stream);
    if (!g->record_flags)
        return xrt_error(XRT_ERROR_UNSUPPORTED, "xrt_event_record_with_flags",
                         "%s: the runtime has no %s: XRT_EVENT_RECORD_EXTERNAL is not supported", g->name,
                         g->record_flags_sym ? g->record_flags_sym : "event record with flags");
    e = g->record_flags(event, stream, flags);
    return xrt__gpu_answer(g, e, g->record_flags_sym, "event_record_with_flags");
}

static xrt_status xrt__gpu_event_query(const xrt_backend *self, void *event)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    return XRT__GPU_CHECK(g, g->rt.EventQuery(event), XRT__GPU_CALL(EventQuery));
}

static xrt_status xrt__gpu_event_synchronize(const xrt_backend *self, void *event)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    return XRT__GPU_CHECK(g, g->rt.EventSynchronize(event), XRT__GPU_CALL(EventSynchronize));
}

/* Never recorded or XRT_EVENT_DISABLE_TIMING: the runtime's invalid resource
   handle, so XRT_ERROR_INVALID_HANDLE as documented. */
static xrt_status xrt__gpu_event_elapsed_time(const xrt_backend *self, float *ms, void *start, void *end)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    return XRT__GPU_CHECK(g, g->rt.EventElapsedTime(ms, start, end), XRT__GPU_CALL(EventElapsedTime));
}

/* >> gpu: interop. A backend stream or event object IS the native handle. */
static xrt_status xrt__gpu_stream_get_native(const xrt_backend *self, void *stream, void **native)
{
    /* the legacy stream by its own name, not 0, which a unit built with a
       per-thread default stream reads as its per-thread stream */
    *native = stream ? stream : ((const xrt__gpu *)self->user)->legacy_native;
    return XRT_SUCCESS;
}

static xrt_status xrt__gpu_event_get_native(const xrt_backend *self, void *event, void **native)
{
    (void)self;
    *native = event;
    return XRT_SUCCESS;
}

static xrt_status xrt__gpu_stream_wrap_native(const xrt_backend *self, void *native, void **stream)
{
    *stream = native;
    xrt__gpu_mark_current((xrt__gpu *)self->user); /* work may reach the device through it */
    return XRT_SUCCESS;
}

/* >> gpu: dma-buf export */

/* The whole host pages around [p, p+size): what the drivers export (they
   need page-aligned ranges). The core has checked that [p, p+size) lies in
   one allocation; the pages around it may hold bytes of the allocation's
   neighbours when it does not start or end on a page boundary, which no
   aligned range can leave out. */
static void xrt__gpu_page_range(uintptr_t p, size_t size, size_t page, uintptr_t *start, size_t *len)
{
    uintptr_t lo = p & ~(uintptr_t)(page - 1);
    uintptr_t end = p + size; /* no wrap: inside an allocation */
    uintptr_t hi = end + ((page - end % page) % page);
    *start = lo;
    *len = (size_t)(hi - lo);
}

/* The driver APIs behind the export work on the thread's current context:
   the allocation's device is made current for the call, then put back. */
static xrt_status xrt__gpu_mem_export_dmabuf(const xrt_backend *self, const void *ptr, size_t size, int *fd,
                                             uint64_t *offset)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    xrt_pointer_attributes a;
    uintptr_t start;
    size_t len;
    long page = sysconf(_SC_PAGESIZE);
    int current = 0, device;
    xrt_status st;
    xrt__mem_lookup(self, &a, ptr);
    if ((st = XRT__GPU_CHECK(g, g->rt.GetDevice(&current), XRT__GPU_CALL(GetDevice))) != XRT_SUCCESS) return st;
    device = a.device >= 0 ? a.device : current;
    if ((st = XRT__GPU_CHECK(g, g->rt.SetDevice(device), XRT__GPU_CALL(SetDevice))) != XRT_SUCCESS) return st;
    xrt__gpu_page_range((uintptr_t)ptr, size, page > 0 ? (size_t)page : 4096, &start, &len);
    st = g->export_dmabuf(g, device, (void *)start, len, fd);
    if (device != current) (void)g->rt.SetDevice(current);
    if (st == XRT_SUCCESS) *offset = (uint64_t)((uintptr_t)ptr - start);
    else *fd = -1;
    return st;
}

/* The compile target: the architecture and warp size of the properties
   (sm_90 and 32; gfx942 and 64), and the features the vendor reads from its
   device struct (HIP's sramecc and xnack modes). */
static xrt_status xrt__gpu_get_target(const xrt_backend *self, int device, xrt_target *t)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    xrt__gpu_prop_buf u;
    xrt_device_prop p;
    xrt_status st = xrt__gpu_prop_of(self, &p, device, &u);
    if (st != XRT_SUCCESS) return st;
    snprintf(t->backend, sizeof t->backend, "%.15s", self->name); /* the backend that runs the code, behind any forwarder */
    snprintf(t->arch, sizeof t->arch, "%s", p.arch);
    t->vector_width = p.warp_size;
    t->features[0] = 0;
    if (g->target_features) g->target_features(u.bytes, t->features, sizeof t->features);
    return XRT_SUCCESS;
}

/* >> gpu: images. cuLibraryLoadData, cuModuleLoadDataEx and
   hipModuleLoadData take no size: they read an image as far as its own
   headers say. So each backend reads its images first, within their size,
   with these (little-endian, as every GPU image is). */
static uint64_t xrt__gpu_le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    while (bytes--) v = v << 8 | p[bytes];
    return v;
}

/* Whether [offset, offset + len) lies within size bytes. */
static int xrt__gpu_within(uint64_t offset, uint64_t len, size_t size)
{
    return offset <= size && len <= size - offset;
}

/* offset + len, saturated: the end a header declares, for a message. */
static uint64_t xrt__gpu_end(uint64_t offset, uint64_t len)
{
    return offset > UINT64_MAX - len ? UINT64_MAX : offset + len;
}

/* The end of a table of count entries of `entry` bytes at offset, saturated. */
static uint64_t xrt__gpu_table_end(uint64_t offset, uint64_t count, uint64_t entry)
{
    return count > UINT64_MAX / entry ? UINT64_MAX : xrt__gpu_end(offset, count * entry);
}

/* The end of the furthest of `count` entries of a header table at p (each
   `entry` bytes, its offset and length at `at_offset`, `at_len`), skipping
   those whose 4-byte type at `at_type` is `skip_type` (sections without
   bytes in the file). The table lies within the image. */
static uint64_t xrt__gpu_elf_table_end(const unsigned char *p, uint64_t count, uint64_t entry, int at_type,
                                       uint32_t skip_type, int at_offset, int at_len)
{
    uint64_t end = 0, i, e;
    for (i = 0; i < count; i++, p += entry)
        if ((at_type < 0 || xrt__gpu_le(p + at_type, 4) != skip_type) &&
            (e = xrt__gpu_end(xrt__gpu_le(p + at_offset, 8), xrt__gpu_le(p + at_len, 8))) > end)
            end = e;
    return end;
}

/* A 64-bit little-endian ELF for `machine` (e_machine; its name is EM_`name`)
   whose header, header tables, segments and sections all lie within size
   bytes: 0, or 1 and why, naming the size it has and the size its headers
   declare. */
static int xrt__gpu_elf_bad(const unsigned char *p, size_t size, unsigned machine, const char *name, char *why,
                            size_t n)
{
    uint64_t phoff, shoff, phnum, shnum, phent, shent, end;
    if (size < 64) return snprintf(why, n, "cut short: %zu bytes, less than an ELF header", size) > 0;
    if (memcmp(p, "\177ELF", 4) != 0 || p[4] != 2 || p[5] != 1)
        return snprintf(why, n, "not a 64-bit little-endian ELF") > 0;
    if (xrt__gpu_le(p + 18, 2) != machine)
        return snprintf(why, n, "an ELF for machine %u, not %s (EM_%s, %u)", (unsigned)xrt__gpu_le(p + 18, 2), name,
                        name, machine) > 0;
    phoff = xrt__gpu_le(p + 32, 8), shoff = xrt__gpu_le(p + 40, 8);
    phent = xrt__gpu_le(p + 54, 2), phnum = xrt__gpu_le(p + 56, 2);
    shent = xrt__gpu_le(p + 58, 2), shnum = xrt__gpu_le(p + 60, 2);
    if ((!shnum || phnum == 0xffff) && shoff) { /* extended numbering: the counts are section 0's sh_size, sh_info */
        if (shent < 64 || !xrt__gpu_within(shoff, 64, size))
            return snprintf(why, n, "cut short: %zu bytes, its headers declare at least %llu", size,
                            (unsigned long long)xrt__gpu_end(shoff, 64)) > 0;
        if (!shnum) shnum = xrt__gpu_le(p + shoff + 32, 8);
        if (phnum == 0xffff) phnum = xrt__gpu_le(p + shoff + 44, 4);
    }
    if ((phnum && phent < 56) || (shnum && shent < 64))
        return snprintf(why, n, "an ELF with header table entries of %u and %u bytes", (unsigned)phent,
                        (unsigned)shent) > 0;
    end = phnum ? xrt__gpu_table_end(phoff, phnum, phent) : 0;
    if (shnum && xrt__gpu_table_end(shoff, shnum, shent) > end) end = xrt__gpu_table_end(shoff, shnum, shent);
    if (end > size) /* the tables themselves are past the end: what lies beyond is unknown */
        return snprintf(why, n, "cut short: %zu bytes, its headers declare at least %llu", size,
                        (unsigned long long)end) > 0;
    if (phnum) { /* p_offset, p_filesz */
        uint64_t e = xrt__gpu_elf_table_end(p + phoff, phnum, phent, -1, 0, 8, 32);
        if (e > end) end = e;
    }
    if (shnum) { /* sh_type (8, SHT_NOBITS: no bytes in the file), sh_offset, sh_size */
        uint64_t e = xrt__gpu_elf_table_end(p + shoff, shnum, shent, 4, 8, 24, 32);
        if (e > end) end = e;
    }
    if (end > size)
        return snprintf(why, n, "cut short: %zu bytes, its headers declare %llu", size, (unsigned long long)end) > 0;
    return 0;
}

/* >> gpu: modules. The template picks the image for the current device and
   keeps what xrt needs (the device a module was loaded on, its functions);
   the vendor's hooks make the native calls. A module lives in the context
   of the device it was loaded on, and launches must come from that device,
   unless the vendor loaded it for every device (a CUDA 12 library).
   Unloading waits for that device (or every device worked on) first, as
   cudaFree does, so launches queued before still run with their module. */
/* A function keeps what a launch checks, read once at
   xrt_module_get_function: the kernel's parameter bytes (the driver's
   answer) and its module's device, which are fixed for the module's life;
   the function goes with its module. */
typedef struct xrt__gpu_function {
    void *native;
    size_t params;      /* bytes of the kernel's parameters, where known */
    int params_known;
    int device;         /* its module's: -1, any device */
    struct xrt__gpu_function *next;
} xrt__gpu_function;

typedef struct xrt__gpu_module {
    void *native;
    int device; /* -1: any device */
    xrt__gpu_function *fns;
    struct xrt__gpu_module *next_kept; /* in xrt__gpu.kept */
} xrt__gpu_module;

static pthread_mutex_t xrt__gpu_kept_modules_lock = PTHREAD_MUTEX_INITIALIZER;

static xrt_status xrt__gpu_no_modules(const xrt__gpu *g, const char *who)
{
    return xrt_error(XRT_ERROR_UNSUPPORTED, who, "not supported by backend %s: no module loader", g->name);
}

static xrt_status xrt__gpu_module_load(const xrt_backend *self, void **module, const xrt_module_image *images,
                                       size_t n, const char *options, char *log, size_t log_size)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    xrt__gpu_module *m;
    xrt_target t;
    size_t pick = 0;
    void *native = NULL;
    xrt_status st;
    char who[64];
    int any = 0;
    (void)options; /* binaries: nothing to compile */
    snprintf(who, sizeof who, "%s: xrt_module_load", g->name);
    if (!g->module_load) return xrt__gpu_no_modules(g, who);
    if ((st = xrt__target_get(self, &t)) != XRT_SUCCESS) return st;
    if ((st = xrt__image_pick(who, &t, images, n, g->image_kinds, g->image_compatible, &pick)) != XRT_SUCCESS) return st;
    if (!(m = (xrt__gpu_module *)XRT_CALLOC(1, sizeof *m))) return xrt_error(XRT_ERROR_OUT_OF_MEMORY, who, "no memory");
    if ((st = xrt__gpu_get_device(self, &m->device)) == XRT_SUCCESS)
        st = g->module_load(g, &images[pick], &native, &any, log, log_size);
    if (st != XRT_SUCCESS) {
        XRT_FREE(m);
        return st;
    }
    if (any) m->device = -1;
    m->native = native;
    *module = m;
    return XRT_SUCCESS;
}

/* An unload whose status is not the one reported (a synchronize before it
   failed): its own error does not replace that one's detail. */
static void xrt__gpu_unload_quietly(xrt__gpu *g, void *native)
{
    xrt__err.quiet++;
    (void)g->module_unload(g, native);
    xrt__err.quiet--;
}

/* Unloads a module once the work queued on its device (or every device
   worked on) is done, so launches queued before still run with it. A
   synchronize that fails (an error of earlier work) is the status, and the
   module is unloaded all the same: nothing else could unload it. */
static xrt_status xrt__gpu_module_release(xrt__gpu *g, xrt__gpu_module *m)
{
    int current = m->device;
    xrt_status st;
    if (m->device < 0) { /* launched on any device */
        xrt__gpu_synchronize_used(g);
        st = g->module_unload(g, m->native);
    } else {
        (void)g->rt.GetDevice(&current);
        if (current != m->device) (void)g->rt.SetDevice(m->device);
        st = xrt__gpu_check(g, g->rt.DeviceSynchronize(), XRT__GPU_CALL(DeviceSynchronize));
        if (st == XRT_SUCCESS) st = g->module_unload(g, m->native);
        else xrt__gpu_unload_quietly(g, m->native);
        if (current != m->device) (void)g->rt.SetDevice(current);
    }
    XRT_FREE(m);
    return st;
}

/* The modules kept for graphs that no longer live. */
static void xrt__gpu_release_kept(xrt__gpu *g)
{
    xrt__gpu_module *m;
    pthread_mutex_lock(&xrt__gpu_kept_modules_lock);
    m = g->kept;
    g->kept = NULL;
    pthread_mutex_unlock(&xrt__gpu_kept_modules_lock);
    while (m) {
        xrt__gpu_module *next = m->next_kept;
        (void)xrt__gpu_module_release(g, m);
        m = next;
    }
}

/* Its functions go at once (their handles die with the module); the native
   module stays while a capture, graph or exec may launch its kernels. */
static xrt_status xrt__gpu_module_unload(const xrt_backend *self, void *module)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    xrt__gpu_module *m = (xrt__gpu_module *)module;
    xrt__gpu_function *f;
    xrt_status st;
    if (!g->module_unload) return xrt__gpu_no_modules(g, "xrt_module_unload");
    while ((f = m->fns) != NULL) {
        m->fns = f->next;
        XRT_FREE(f);
    }
    pthread_mutex_lock(&xrt__gpu_kept_modules_lock);
    if (__atomic_load_n(&g->graphs, __ATOMIC_ACQUIRE) > 0) {
        m->next_kept = g->kept;
        g->kept = m;
        m = NULL;
    }
    pthread_mutex_unlock(&xrt__gpu_kept_modules_lock);
    if (!m) return XRT_SUCCESS;
    st = xrt__gpu_module_release(g, m);
    xrt__gpu_release_kept(g);
    return st;
}

static xrt_status xrt__gpu_module_get_function(const xrt_backend *self, void **function, void *module, const char *name)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    xrt__gpu_module *m = (xrt__gpu_module *)module;
    xrt__gpu_function *f;
    void *native = NULL;
    xrt_status st;
    if (!g->module_function) return xrt__gpu_no_modules(g, "xrt_module_get_function");
    if ((st = g->module_function(g, m->native, name, &native)) != XRT_SUCCESS) return st;
    if (!(f = (xrt__gpu_function *)XRT_CALLOC(1, sizeof *f)))
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "xrt_module_get_function", "no memory for a function");
    f->native = native;
    f->params_known = g->param_bytes && g->param_bytes(g, native, &f->params);
    f->device = m->device;
    f->next = m->fns;
    m->fns = f;
    *function = f;
    return XRT_SUCCESS;
}

/* The packed arguments against the kernel's parameters (xrt__args_fit). */
static xrt_status xrt__gpu_args_fit(const xrt__gpu *g, const xrt__gpu_function *f, size_t *args_size)
{
    return xrt__args_fit(g->name, f->params, args_size);
}

static xrt_status xrt__gpu_shared_too_big(const xrt__gpu *g, size_t shared) XRT__COLD;
static xrt_status xrt__gpu_shared_too_big(const xrt__gpu *g, size_t shared)
{
    char who[64];
    snprintf(who, sizeof who, "%s: xrt_launch_kernel", g->name);
    return xrt_error(XRT_ERROR_INVALID_VALUE, who, "%zu bytes of shared memory", shared);
}

/* A launch that failed: tried once more where the vendor can make it work
   (CUDA: a thread without the context), else its error's detail. Apart, so
   that the launch keeps nothing alive across the driver's call. */
static xrt_status xrt__gpu_launch_failed(xrt__gpu *g, const xrt__gpu_function *f, xrt_dim3 grid, xrt_dim3 block,
                                         unsigned shared, void *stream, void **extra, int e) XRT__COLD;
static xrt_status xrt__gpu_launch_failed(xrt__gpu *g, const xrt__gpu_function *f, xrt_dim3 grid, xrt_dim3 block,
                                         unsigned shared, void *stream, void **extra, int e)
{
    if (g->launch_again && g->launch_again(g, e) &&
        (e = (*g->launch)(f->native, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared, stream, NULL,
                          extra)) == g->success)
        return XRT_SUCCESS;
    return g->launch_failed(g, e);
}

/* A module of one device launches from that device only (asked only with
   several devices: with one, the thread's device is the module's). */
static xrt_status xrt__gpu_launch_device(const xrt_backend *self, const xrt__gpu_function *f)
{
    int device = 0;
    xrt_status st;
    if ((st = xrt__gpu_get_device(self, &device)) != XRT_SUCCESS) return st;
    if (device == f->device) return XRT_SUCCESS;
    return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_launch_kernel",
                     "the function's module was loaded on device %d, the thread's device is %d", f->device, device);
}

/* One driver call on the way, made here for both vendors: a module of
   every device (a CUDA 12 library) needs the thread's device marked for its
   unload to wait on, which xrt__gpu_mark_current asks the runtime only
   until every device is marked; a module of one device needs the thread's
   device only where there are several. The packed arguments go as the
   driver's `extra`. */
/* capture_last's answer from what the runtime said: rc its native error,
   status its capture status, into the graph, deps and n the nodes next work
   would follow. The runtime's answers other than the status are "valid
   data" only for an active capture (cudaStreamGetCaptureInfo): of one that
   is invalidated, not even the graph is used. */
static int xrt__gpu_capture_last_of(const xrt__gpu *g, int rc, int status, void *into, void *const *deps, size_t n,
                                    void **graph, void **node)
{
    *graph = NULL;
    if (rc != g->success || status != XRT_CAPTURE_STATUS_ACTIVE) return 0;
    *graph = into;
    if (n != 1 || !deps) return 0;
    *node = deps[0];
    return 1;
}

/* xrt_launch_kernel while a capture xrt began is alive (out of the common
   path): a kernel launched on a capturing stream became the capture's last
   node, and its params are recorded as those of a node xrt adds are, since
   the runtime does not give a kernel node's packed arguments back; so
   xrt_graph_node_get_params answers for it and the stream-order checker
   sees its pointer arguments. A stream that is not capturing, or a
   runtime without the query, records nothing (the node's params then read
   as unsupported), as does a failed allocation. */
static int xrt__gpu_knode_put(const xrt__gpu *g, void *graph, void *node, const xrt_kernel_node_params *k,
                              size_t args_size);
static XRT__COLD xrt_status xrt__gpu_launch_captured(xrt__gpu *g, const xrt__gpu_function *f, xrt_dim3 grid,
                                                     xrt_dim3 block, size_t shared, void *stream, const void *args,
                                                     size_t args_size, void **packed)
{
    xrt_kernel_node_params k;
    void *graph = NULL, *node = NULL;
    int e = (*g->launch)(f->native, grid.x, grid.y, grid.z, block.x, block.y, block.z, (unsigned)shared, stream, NULL,
                         packed);
    if (e != g->success) return xrt__gpu_launch_failed(g, f, grid, block, (unsigned)shared, stream, packed, e);
    if (!g->capture_last || !g->capture_last(g, stream, &graph, &node)) return XRT_SUCCESS;
    memset(&k, 0, sizeof k);
    k.function = (xrt_function)(void *)f;
    k.grid = grid, k.block = block, k.shared_bytes = shared;
    k.args = args, k.args_size = args_size;
    (void)xrt__gpu_knode_put(g, graph, node, &k, args_size);
    return XRT_SUCCESS;
}

/* What every launch does before the vendor's call: the device marked or
   checked, the arguments fitted to the kernel's parameters, the shared
   memory checked, and the arguments as the driver's `extra`. */
static inline __attribute__((always_inline)) xrt_status
xrt__gpu_launch_prep(const xrt_backend *self, const xrt__gpu_function *f, size_t shared, const void *args,
                     size_t *args_size, void **extra)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    xrt_status st;
    if (f->device < 0) xrt__gpu_mark_current(g); /* unloading waits for it */
    else if (g->count > 1 && (st = xrt__gpu_launch_device(self, f)) != XRT_SUCCESS) return st;
    if (f->params_known && *args_size != f->params && (st = xrt__gpu_args_fit(g, f, args_size)) != XRT_SUCCESS)
        return st;
    if (XRT__UNLIKELY(shared > 0xffffffffu)) return xrt__gpu_shared_too_big(g, shared);
    extra[0] = g->launch_params[0], extra[1] = (void *)args;
    extra[2] = g->launch_params[1], extra[3] = args_size;
    extra[4] = g->launch_params[2];
    return XRT_SUCCESS;
}

static xrt_status xrt__gpu_launch_kernel(const xrt_backend *self, void *function, xrt_dim3 grid, xrt_dim3 block,
                                         size_t shared, void *stream, const void *args, size_t args_size)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    const xrt__gpu_function *f = (const xrt__gpu_function *)function;
    xrt__gpu_launch_fn launch = *g->launch;
    void *extra[5], **packed;
    xrt_status st;
    int e;
    if (XRT__UNLIKELY(!launch)) return xrt__gpu_no_modules(g, "xrt_launch_kernel");
    if ((st = xrt__gpu_launch_prep(self, f, shared, args, &args_size, extra)) != XRT_SUCCESS) return st;
    packed = args_size ? extra : NULL;
    if (XRT__UNLIKELY(__atomic_load_n(&g->captures, __ATOMIC_RELAXED) != 0))
        return xrt__gpu_launch_captured(g, f, grid, block, shared, stream, args, args_size, packed);
    e = launch(f->native, grid.x, grid.y, grid.z, block.x, block.y, block.z, (unsigned)shared, stream, NULL, packed);
    if (XRT__LIKELY(e == g->success)) return XRT_SUCCESS;
    return xrt__gpu_launch_failed(g, f, grid, block, (unsigned)shared, stream, packed, e);
}

static xrt_status xrt__gpu_function_get_attributes(const xrt_backend *self, xrt_function_attributes *attr,
                                                   void *function)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    if (!g->function_attributes) return xrt__gpu_no_modules(g, "xrt_function_get_attributes");
    return g->function_attributes(g, ((xrt__gpu_function *)function)->native, attr);
}

/* Module variables, function attributes and occupancy: the vendor's calls;
   the dispatch layer checked the arguments. */
static xrt_status xrt__gpu_module_get_global(const xrt_backend *self, void **ptr, size_t *size, void *module,
                                             const char *name)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    if (!g->module_global) return xrt__gpu_no_modules(g, "xrt_module_get_global");
    return g->module_global(g, ((xrt__gpu_module *)module)->native, name, ptr, size);
}

static xrt_status xrt__gpu_function_get_param_info(const xrt_backend *self, void *function, size_t index,
                                                   size_t *offset, size_t *size)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    if (!g->param_info)
        return xrt_error(XRT_ERROR_UNSUPPORTED, "xrt_function_get_param_info",
                         "not supported by backend %s: its runtime gives no layout of a kernel's parameters "
                         "(as cuFuncGetParamInfo does): pack the arguments with xrt_kernel_args", g->name);
    return g->param_info(g, ((xrt__gpu_function *)function)->native, index, offset, size);
}

static xrt_status xrt__gpu_function_set_cache_config(const xrt_backend *self, void *function, int config)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    if (!g->function_set_cache_config) return xrt__gpu_no_modules(g, "xrt_function_set_cache_config");
    return g->function_set_cache_config(g, ((xrt__gpu_function *)function)->native, config);
}

static xrt_status xrt__gpu_function_set_attribute(const xrt_backend *self, void *function, int attr, int value)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    if (!g->function_set_attribute) return xrt__gpu_no_modules(g, "xrt_function_set_attribute");
    return g->function_set_attribute(g, ((xrt__gpu_function *)function)->native, attr, value);
}

static xrt_status xrt__gpu_occupancy_max_active_blocks_per_multiprocessor(const xrt_backend *self, int *blocks,
                                                                          void *function, int block_size,
                                                                          size_t dynamic_shared)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    if (!g->occupancy_blocks) return xrt__gpu_no_modules(g, "xrt_occupancy_max_active_blocks_per_multiprocessor");
    return g->occupancy_blocks(g, ((xrt__gpu_function *)function)->native, block_size, dynamic_shared, blocks);
}

static xrt_status xrt__gpu_occupancy_max_potential_block_size(const xrt_backend *self, int *min_grid, int *block,
                                                              void *function, size_t dynamic_shared, int block_limit)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    if (!g->occupancy_block_size) return xrt__gpu_no_modules(g, "xrt_occupancy_max_potential_block_size");
    return g->occupancy_block_size(g, ((xrt__gpu_function *)function)->native, dynamic_shared, block_limit, min_grid,
                                   block);
}

/* >> gpu: graphs. The runtimes capture and replay; xrt passes its values
   through (xrt_capture_mode and xrt_capture_status are the runtimes'), and
   the capture rules, with their errors, are the runtime's: a detail names
   the xrt call and the native error. The runtime's end of an invalidated
   capture does not say which call invalidated it: xrt remembers the failure
   (xrt__gpu_failed) and the end names it. A graph and an exec are the
   native objects. */
static xrt_status xrt__gpu_no_graphs(const xrt__gpu *g, const char *op) XRT__COLD;
static xrt_status xrt__gpu_no_graphs(const xrt__gpu *g, const char *op)
{
    char who[64];
    snprintf(who, sizeof who, "%s: xrt_%s", g->name, op);
    return xrt_error(XRT_ERROR_UNSUPPORTED, who,
                     "graphs are not supported by this runtime: it lacks an entry point of stream capture or graphs");
}
#define XRT__GPU_NEED_GRAPHS(g) \
    if (!xrt__gpu_has_graphs(g)) return xrt__gpu_no_graphs((g), __func__ + sizeof "xrt__gpu_" - 1)

/* Captures, graphs and execs alive, for modules (xrt__gpu_module_unload).
   A capture's count passes to its graph; an end that fails with the
   capture ended (invalidated, unjoined) drops it; a capture whose stream
   was destroyed keeps it, so modules unloaded since wait for shutdown. */
static void xrt__gpu_graphs_add(xrt__gpu *g, int n) { __atomic_add_fetch(&g->graphs, n, __ATOMIC_ACQ_REL); }

/* Captures begun through xrt (launches record their nodes while any is);
   an end of a capture begun natively leaves the count at 0. */
static void xrt__gpu_captures_add(xrt__gpu *g, int n)
{
    int was = __atomic_load_n(&g->captures, __ATOMIC_RELAXED);
    while ((n > 0 || was > 0) &&
           !__atomic_compare_exchange_n(&g->captures, &was, was + n, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
}

/* The graph of each capture begun through xrt, by its origin stream, asked
   at the begin: the runtime names a capture's graph only while the capture
   is active (cudaStreamGetCaptureInfo), and an end that fails must still
   drop the records of the kernels launched into it (xrt__gpu_knodes_drop).
   Kept only where the runtime answers (capture_last): elsewhere nothing is
   recorded. */
typedef struct xrt__gpu_capture {
    const xrt__gpu *g;
    void *stream, *graph;
    uintptr_t key; /* xrt's key of it (xrt__gpu_capture_key) */
    struct xrt__gpu_capture *next;
} xrt__gpu_capture;
static xrt__gpu_capture *xrt__gpu_capture_list;
static pthread_mutex_t xrt__gpu_capture_lock = PTHREAD_MUTEX_INITIALIZER;
static xrt_status xrt__gpu_no_memory(const xrt__gpu *g, const char *op, const char *what) XRT__COLD;

/* xrt's key of the capture of native stream (xrt__capture_key): its
   handle's (0 if it has none), or for the runtime's per-thread stream, one
   stream for each thread and device, the calling thread's of its device. */
static uintptr_t xrt__gpu_capture_key(const xrt__gpu *g, void *stream)
{
    int d = 0;
    if (stream != g->per_thread) return xrt__handle_of(stream, XRT__HANDLE_STREAM);
    if (g->rt.GetDevice(&d) != g->success) d = 0;
    return xrt__capture_key_per_thread(d);
}

/* The entry of stream's capture, the one of this thread and device for the
   per-thread stream. Under xrt__gpu_capture_lock. */
static xrt__gpu_capture **xrt__gpu_capture_find_locked(const xrt__gpu *g, void *stream)
{
    xrt__gpu_capture **pp, *c;
    uintptr_t key = stream == g->per_thread ? xrt__gpu_capture_key(g, stream) : 0;
    for (pp = &xrt__gpu_capture_list; (c = *pp) != NULL; pp = &c->next)
        if (c->g == g && c->stream == stream && (!key || c->key == key)) break;
    return pp;
}

/* Takes stream's entry off the list (NULL if none). */
static xrt__gpu_capture *xrt__gpu_capture_take(const xrt__gpu *g, void *stream)
{
    xrt__gpu_capture **pp, *c;
    pthread_mutex_lock(&xrt__gpu_capture_lock);
    c = *(pp = xrt__gpu_capture_find_locked(g, stream));
    if (c) *pp = c->next;
    pthread_mutex_unlock(&xrt__gpu_capture_lock);
    return c;
}

static void xrt__gpu_capture_thread_gone(void *number);
static pthread_key_t xrt__gpu_capture_thread_key;
static pthread_once_t xrt__gpu_capture_thread_once = PTHREAD_ONCE_INIT;
static void xrt__gpu_capture_thread_key_make(void)
{
    pthread_key_create(&xrt__gpu_capture_thread_key, xrt__gpu_capture_thread_gone);
}

/* c (allocated before the begin) for the capture just begun on stream,
   in place of an entry a destroyed stream at that address left. A capture
   of the per-thread stream is its thread's: its entry goes when the thread
   exits (xrt__gpu_capture_thread_gone). */
static void xrt__gpu_capture_put(const xrt__gpu *g, xrt__gpu_capture *c, void *stream)
{
    void *node = NULL;
    XRT_FREE(xrt__gpu_capture_take(g, stream));
    c->g = g, c->stream = stream, c->key = xrt__gpu_capture_key(g, stream);
    if (stream == g->per_thread) {
        pthread_once(&xrt__gpu_capture_thread_once, xrt__gpu_capture_thread_key_make);
        pthread_setspecific(xrt__gpu_capture_thread_key, (void *)(c->key >> 16)); /* the thread's number, not 0 */
    }
    (void)g->capture_last(g, stream, &c->graph, &node);
    pthread_mutex_lock(&xrt__gpu_capture_lock);
    c->next = xrt__gpu_capture_list;
    xrt__gpu_capture_list = c;
    pthread_mutex_unlock(&xrt__gpu_capture_lock);
}

/* stream, destroyed, was the origin of a capture begun through xrt: the
   capture is over without a graph (as the runtime ends it), so its count,
   its entry and the records of the kernels launched into it go, and a
   stream made later at the same address finds none of them. Its graph
   count stays (xrt__gpu_graphs_add). */
static void xrt__gpu_capture_gone(xrt__gpu *g, void *stream)
{
    xrt__gpu_capture *c = xrt__gpu_capture_take(g, stream);
    if (!c) return;
    xrt__gpu_captures_add(g, -1);
    if (c->graph) xrt__gpu_knodes_drop(g, c->graph, NULL);
    XRT_FREE(c);
}

/* A thread that began captures of its per-thread stream exits: no thread
   can end them, so their entries go, as a destroyed origin's (the runtime's
   per-thread stream is the thread's; launches stop asking about captures
   once none is left). */
static void xrt__gpu_capture_thread_gone(void *number)
{
    xrt__gpu_capture **pp, *c, *gone = NULL;
    pthread_mutex_lock(&xrt__gpu_capture_lock);
    for (pp = &xrt__gpu_capture_list; (c = *pp) != NULL;)
        if (c->stream == c->g->per_thread && c->key >> 16 == (uintptr_t)number) {
            *pp = c->next;
            c->next = gone, gone = c;
        } else {
            pp = &c->next;
        }
    pthread_mutex_unlock(&xrt__gpu_capture_lock);
    while ((c = gone) != NULL) {
        gone = c->next;
        xrt__gpu_captures_add((xrt__gpu *)(uintptr_t)c->g, -1);
        if (c->graph) xrt__gpu_knodes_drop(c->g, c->graph, NULL);
        XRT_FREE(c);
    }
}

/* At shutdown: every entry of g. */
static void xrt__gpu_captures_forget(const xrt__gpu *g)
{
    xrt__gpu_capture **pp, *c;
    pthread_mutex_lock(&xrt__gpu_capture_lock);
    for (pp = &xrt__gpu_capture_list; (c = *pp) != NULL;)
        if (c->g == g) {
            *pp = c->next;
            XRT_FREE(c);
        } else {
            pp = &c->next;
        }
    pthread_mutex_unlock(&xrt__gpu_capture_lock);
}

/* A begin through xrt: its entry is allocated first, so that a begun
   capture never lacks one. */
static xrt_status xrt__gpu_capture_begun(xrt__gpu *g, void *stream, int e, const char *call, const char *op,
                                         xrt__gpu_capture *c)
{
    if (e != g->success) {
        XRT_FREE(c);
        return xrt__gpu_fail_as(g, e, call, op);
    }
    if (c) xrt__gpu_capture_put(g, c, stream);
    xrt__gpu_graphs_add(g, 1);
    xrt__gpu_captures_add(g, 1);
    return XRT_SUCCESS;
}

static xrt__gpu_capture *xrt__gpu_capture_new(const xrt__gpu *g, xrt_status *st, const char *op)
{
    xrt__gpu_capture *c = NULL;
    *st = XRT_SUCCESS;
    if (g->capture_last && !(c = (xrt__gpu_capture *)XRT_MALLOC(sizeof *c)))
        *st = xrt__gpu_no_memory(g, op, "the capture's record");
    return c;
}

static xrt_status xrt__gpu_stream_begin_capture(const xrt_backend *self, void *stream, unsigned mode)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    xrt__gpu_capture *c;
    xrt_status st;
    XRT__GPU_NEED_GRAPHS(g);
    if (!(c = xrt__gpu_capture_new(g, &st, "stream_begin_capture")) && st != XRT_SUCCESS) return st;
    return xrt__gpu_capture_begun(g, stream, g->rt.StreamBeginCapture(stream, (int)mode),
                                  xrt__gpu_call_name(g, XRT__GPU_CALL(StreamBeginCapture)), "stream_begin_capture", c);
}

/* A capture whose nodes go into an existing graph, after deps, through the
   entry point looked up by name (a runtime without it says so). */
static xrt_status xrt__gpu_stream_begin_capture_to_graph(const xrt_backend *self, void *stream, void *graph,
                                                         void *const *deps, size_t ndeps, unsigned mode)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    xrt__gpu_capture *c;
    xrt_status st;
    char who[80];
    XRT__GPU_NEED_GRAPHS(g);
    if (!g->capture_to_graph) {
        snprintf(who, sizeof who, "%s: xrt_stream_begin_capture_to_graph", g->name);
        return xrt_error(XRT_ERROR_UNSUPPORTED, who, "the runtime has no %s (CUDA 12.3, ROCm 6.2)",
                         g->capture_to_graph_sym);
    }
    if (!(c = xrt__gpu_capture_new(g, &st, "stream_begin_capture_to_graph")) && st != XRT_SUCCESS) return st;
    return xrt__gpu_capture_begun(g, stream, g->capture_to_graph(stream, graph, deps, NULL, ndeps, (int)mode),
                                  g->capture_to_graph_sym, "stream_begin_capture_to_graph", c);
}

/* The graph stream's capture goes into, for its end: from its entry (a
   capture begun through xrt), else asked now (one begun natively, its
   graph known only while it is active); NULL where nothing is recorded. */
static void *xrt__gpu_capture_graph(const xrt__gpu *g, void *stream)
{
    xrt__gpu_capture *c;
    void *into = NULL, *last;
    if (!__atomic_load_n(&g->captures, __ATOMIC_RELAXED) || !g->capture_last) return NULL;
    pthread_mutex_lock(&xrt__gpu_capture_lock);
    if ((c = *xrt__gpu_capture_find_locked(g, stream)) != NULL) into = c->graph;
    pthread_mutex_unlock(&xrt__gpu_capture_lock);
    if (!c) (void)g->capture_last(g, stream, &into, &last);
    return into;
}

/* The end of a capture failed with e: the failure that invalidated the
   capture, where xrt saw it, is in the detail. */
static xrt_status xrt__gpu_end_failed(const xrt__gpu *g, int e, void *stream) XRT__COLD;
static xrt_status xrt__gpu_end_failed(const xrt__gpu *g, int e, void *stream)
{
    char who[64], what[64], why[256];
    uintptr_t key = xrt__gpu_capture_key(g, stream);
    if (xrt__gpu_status(g, e) != XRT_ERROR_STREAM_CAPTURE_INVALIDATED || !key || !xrt__capture_invalidated_by(key, why, sizeof why))
        return xrt__gpu_fail_in(g, e, XRT__GPU_CALL(StreamEndCapture), "stream_end_capture");
    snprintf(who, sizeof who, "xrt_stream_end_capture: %s", g->name);
    if (stream == g->per_thread) snprintf(what, sizeof what, "the per-thread stream");
    else snprintf(what, sizeof what, "stream %#lx", (unsigned long)key);
    return xrt_error(XRT_ERROR_STREAM_CAPTURE_INVALIDATED, who, "%s: %s (%s=%ld): the capture of %s was invalidated by %s",
                     xrt__gpu_call_name(g, XRT__GPU_CALL(StreamEndCapture)), g->rt.GetErrorString(e), g->rt.GetErrorName(e),
                     (long)e, what, why);
}

static xrt_status xrt__gpu_stream_end_capture(const xrt_backend *self, void *stream, void **graph)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    void *made = NULL, *into;
    xrt_status st;
    int ended, e;
    XRT__GPU_NEED_GRAPHS(g);
    into = xrt__gpu_capture_graph(g, stream); /* its recorded nodes go if it fails */
    e = g->rt.StreamEndCapture(stream, &made);
    st = e == g->success ? XRT_SUCCESS : xrt__gpu_end_failed(g, e, stream);
    ended = st == XRT_SUCCESS || st == XRT_ERROR_STREAM_CAPTURE_INVALIDATED || st == XRT_ERROR_STREAM_CAPTURE_UNJOINED;
    if (st == XRT_SUCCESS) *graph = made;
    else if (ended) xrt__gpu_graphs_add(g, -1);
    if (ended) {
        xrt__gpu_captures_add(g, -1);
        XRT_FREE(xrt__gpu_capture_take(g, stream));
    }
    if (st != XRT_SUCCESS && ended && into) xrt__gpu_knodes_drop(g, into, NULL);
    return st;
}

static xrt_status xrt__gpu_stream_is_capturing(const xrt_backend *self, void *stream, unsigned *status)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    int native = 0;
    xrt_status st;
    XRT__GPU_NEED_GRAPHS(g);
    st = XRT__GPU_CHECK(g, g->rt.StreamIsCapturing(stream, &native), XRT__GPU_CALL(StreamIsCapturing));
    if (st == XRT_SUCCESS) *status = (unsigned)native;
    return st;
}

static xrt_status xrt__gpu_stream_get_capture_info(const xrt_backend *self, void *stream, unsigned *status,
                                                   unsigned long long *id)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    int native = 0, e;
    XRT__GPU_NEED_GRAPHS(g);
    if (!g->capture_id)
        return xrt_error(XRT_ERROR_UNSUPPORTED, "xrt_stream_get_capture_info",
                         "%s: the runtime has no cudaStreamGetCaptureInfo of CUDA 12.3 on (HIP: _v2)", g->name);
    e = g->capture_id(stream, &native, id);
    if (e != g->success) return xrt__gpu_fail_as(g, e, g->capture_info_call, "stream_get_capture_info");
    *status = (unsigned)native;
    return XRT_SUCCESS;
}

static xrt_status xrt__gpu_stream_get_capture_info_v2(const xrt_backend *self, void *stream, unsigned *status,
                                                    unsigned long long *id, void **graph, void **deps, size_t cap,
                                                    size_t *ndeps)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    void *const *v = NULL;
    size_t n = 0, i;
    int native = 0, e;
    XRT__GPU_NEED_GRAPHS(g);
    if (!g->capture_graph)
        return xrt_error(XRT_ERROR_UNSUPPORTED, "xrt_stream_get_capture_info_v2",
                         "%s: the runtime has no cudaStreamGetCaptureInfo of CUDA 12.3 on (HIP: _v2)", g->name);
    e = g->capture_graph(stream, &native, id, graph, &v, &n);
    if (e != g->success) return xrt__gpu_fail_as(g, e, g->capture_info_call, "stream_get_capture_info_v2");
    *status = (unsigned)native;
    if (native != XRT_CAPTURE_STATUS_ACTIVE) return XRT_SUCCESS; /* the rest is valid only then */
    *ndeps = n;
    for (i = 0; i < n && i < cap; i++) deps[i] = v[i];
    return XRT_SUCCESS;
}

static xrt_status xrt__gpu_stream_update_capture_dependencies(const xrt_backend *self, void *stream, void *const *deps,
                                                              size_t ndeps, unsigned flags)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    XRT__GPU_NEED_GRAPHS(g);
    if (!g->capture_update) return xrt__gpu_lacks(g, "xrt_stream_update_capture_dependencies", "capture dependencies' update");
    return xrt__gpu_answer(g, g->capture_update(stream, deps, ndeps, flags), g->capture_update_call,
                           "stream_update_capture_dependencies");
}

/* The runtime keeps the thread's mode: its own refusals follow it. */
static xrt_status xrt__gpu_thread_exchange_stream_capture_mode(const xrt_backend *self, unsigned *mode)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    int native = (int)*mode;
    xrt_status st;
    XRT__GPU_NEED_GRAPHS(g);
    if (!g->rt.ThreadExchangeStreamCaptureMode) return xrt__gpu_no_graphs(g, "thread_exchange_stream_capture_mode");
    st = XRT__GPU_CHECK(g, g->rt.ThreadExchangeStreamCaptureMode(&native),
                        XRT__GPU_CALL(ThreadExchangeStreamCaptureMode));
    if (st == XRT_SUCCESS) *mode = (unsigned)native;
    return st;
}

static xrt_status xrt__gpu_graph_instantiate_with_flags(const xrt_backend *self, void **exec, void *graph,
                                                        unsigned long long flags)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    void *made = NULL;
    xrt_status st;
    XRT__GPU_NEED_GRAPHS(g);
    if (flags & ~g->instantiate_flags)
        return xrt_error(XRT_ERROR_UNSUPPORTED, "xrt_graph_instantiate_with_flags",
                         "%s: flags 0x%llx: the runtime takes 0x%llx only (%s)", g->name, flags, g->instantiate_flags,
                         g->instantiate_flags_why);
    st = XRT__GPU_CHECK(g, g->rt.GraphInstantiateWithFlags(&made, graph, flags),
                        XRT__GPU_CALL(GraphInstantiateWithFlags));
    if (st == XRT_SUCCESS) {
        *exec = made;
        xrt__gpu_graphs_add(g, 1);
    }
    return st;
}

static xrt_status xrt__gpu_graph_instantiate(const xrt_backend *self, void **exec, void *graph)
{
    return xrt__gpu_graph_instantiate_with_flags(self, exec, graph, 0);
}

/* The runtime's own upload (cudaGraphUpload), looked up by name. */
static xrt_status xrt__gpu_graph_upload(const xrt_backend *self, void *exec, void *stream)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    int e;
    XRT__GPU_NEED_GRAPHS(g);
    if (!g->upload)
        return xrt__gpu_lacks(g, "xrt_graph_upload", g->upload_sym);
    e = g->upload(exec, stream);
    return xrt__gpu_answer(g, e, g->upload_sym, "graph_upload");
}

static xrt_status xrt__gpu_graph_launch(const xrt_backend *self, void *exec, void *stream)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    XRT__GPU_NEED_GRAPHS(g);
    return XRT__GPU_CHECK(g, g->rt.GraphLaunch(exec, stream), XRT__GPU_CALL(GraphLaunch));
}

/* cudaGraphExecUpdateResult (HIP's enum has the same values), as words. */
static const char *xrt__gpu_update_result(int result)
{
    static const char *const why[] = {"",
                                      "the update failed for an unexpected reason",
                                      "the graphs differ in their nodes or edges",
                                      "a node changed its type",
                                      "a kernel node launches another function",
                                      "a node's parameters changed in a way an update cannot take",
                                      "a node cannot be updated",
                                      "a kernel node's function changed in an unsupported way",
                                      "a node's attributes changed"};
    return result > 0 && (size_t)result < sizeof why / sizeof why[0] ? why[result] : "no reason given";
}

/* A refused update names the runtime's reason beside its error. */
/* The runtime's result code and the nodes it blames. `fn`: the xrt call,
   for the detail. */
static xrt_status xrt__gpu_exec_update(const xrt_backend *self, void *exec, void *graph, xrt_graph_exec_update_result *r,
                                       const char *fn)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    int result = 0, e;
    char who[64];
    XRT__GPU_NEED_GRAPHS(g);
    void *node = NULL, *from = NULL;
    if ((e = g->exec_update(g, exec, graph, &result, &node, &from)) == g->success) return XRT_SUCCESS;
    r->result = (xrt_graph_exec_update_code)result;
    r->error_node = (xrt_graph_node)node; /* the runtime's nodes: the dispatch layer gives their handles */
    r->error_from_node = (xrt_graph_node)from;
    snprintf(who, sizeof who, "%s: %s", fn, g->name);
    return xrt_error(xrt__gpu_status(g, e), who, "%s: %s: %s (%s=%ld)", g->exec_update_call, xrt__gpu_update_result(result),
                     g->rt.GetErrorString(e), g->rt.GetErrorName(e), (long)e);
}

static xrt_status xrt__gpu_graph_exec_update_with_result(const xrt_backend *self, void *exec, void *graph,
                                                         xrt_graph_exec_update_result *r)
{
    return xrt__gpu_exec_update(self, exec, graph, r, "xrt_graph_exec_update_with_result");
}

static xrt_status xrt__gpu_graph_exec_update(const xrt_backend *self, void *exec, void *graph)
{
    xrt_graph_exec_update_result r;
    return xrt__gpu_exec_update(self, exec, graph, &r, "xrt_graph_exec_update");
}

/* The runtimes free an exec whose launches are in flight when they complete. */
static xrt_status xrt__gpu_graph_exec_destroy(const xrt_backend *self, void *exec)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    xrt_status st;
    XRT__GPU_NEED_GRAPHS(g);
    st = XRT__GPU_CHECK(g, g->rt.GraphExecDestroy(exec), XRT__GPU_CALL(GraphExecDestroy));
    if (st == XRT_SUCCESS) xrt__gpu_graphs_add(g, -1);
    return st;
}

/* >> gpu: memory and events shared between processes: the runtime's handles
   travel as xrt's (both 64 bytes); the runtime keeps CUDA's rules (a second
   open counts, a forged or stale handle fails, the event flags). */
static xrt_status xrt__gpu_ipc_get_mem_handle(const xrt_backend *self, xrt_ipc_mem_handle *handle, void *base, size_t size)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    xrt__gpu_ipc_handle h;
    xrt_status st;
    (void)size;
    memset(&h, 0, sizeof h);
    st = XRT__GPU_CHECK(g, g->rt.IpcGetMemHandle(&h, base), XRT__GPU_CALL(IpcGetMemHandle));
    if (st == XRT_SUCCESS) memcpy(handle->reserved, &h, sizeof h);
    return st;
}

static xrt_status xrt__gpu_ipc_open_mem_handle(const xrt_backend *self, void **ptr, size_t *size,
                                               const xrt_ipc_mem_handle *handle, unsigned flags)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    xrt__gpu_ipc_handle h;
    void *p = NULL;
    xrt_status st;
    memcpy(&h, handle->reserved, sizeof h);
    if (g->ipc_open_flags >= 0) flags = (unsigned)g->ipc_open_flags;
    st = XRT__GPU_CHECK(g, g->rt.IpcOpenMemHandle(&p, h, flags), XRT__GPU_CALL(IpcOpenMemHandle));
    if (st != XRT_SUCCESS) return st;
    xrt__gpu_mark_current(g);
    *ptr = p;
    *size = 0; /* the runtime maps the whole allocation and does not say its size: it answers for the pointer */
    return XRT_SUCCESS;
}

static xrt_status xrt__gpu_ipc_close_mem_handle(const xrt_backend *self, void *ptr)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    return XRT__GPU_CHECK(g, g->rt.IpcCloseMemHandle(ptr), XRT__GPU_CALL(IpcCloseMemHandle));
}

static xrt_status xrt__gpu_ipc_get_event_handle(const xrt_backend *self, xrt_ipc_event_handle *handle, void *event)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    xrt__gpu_ipc_handle h;
    xrt_status st;
    memset(&h, 0, sizeof h);
    st = XRT__GPU_CHECK(g, g->rt.IpcGetEventHandle(&h, event), XRT__GPU_CALL(IpcGetEventHandle));
    memcpy(handle->reserved, &h, sizeof h);
    return st;
}

static xrt_status xrt__gpu_ipc_open_event_handle(const xrt_backend *self, void **event, const xrt_ipc_event_handle *handle)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    xrt__gpu_ipc_handle h;
    void *e = NULL;
    xrt_status st;
    memcpy(&h, handle->reserved, sizeof h);
    st = XRT__GPU_CHECK(g, g->rt.IpcOpenEventHandle(&e, h), XRT__GPU_CALL(IpcOpenEventHandle));
    if (st != XRT_SUCCESS) return st;
    *event = e;
    xrt__gpu_mark_current(g);
    return XRT_SUCCESS;
}

static void xrt__gpu_knodes_forget(const xrt__gpu *g, void *graph);

static xrt_status xrt__gpu_graph_destroy(const xrt_backend *self, void *graph)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    xrt_status st;
    XRT__GPU_NEED_GRAPHS(g);
    xrt__gpu_knodes_forget(g, graph); /* nothing to do unless xrt built kernel nodes */
    st = XRT__GPU_CHECK(g, g->rt.GraphDestroy(graph), XRT__GPU_CALL(GraphDestroy));
    if (st == XRT_SUCCESS) xrt__gpu_graphs_add(g, -1);
    return st;
}

/* Counts the nodes by the runtime's node types; event records and waits
   inside a capture are edges there, as in xrt's own graphs. */
static xrt_status xrt__gpu_count_nodes(const xrt__gpu *g, void *const *nodes, size_t n, xrt_graph_info *info)
{
    size_t i, k;
    int type;
    xrt_status st;
    for (i = 0; i < n; i++) {
        if ((st = XRT__GPU_CHECK(g, g->rt.GraphNodeGetType(nodes[i], &type), XRT__GPU_CALL(GraphNodeGetType))) != XRT_SUCCESS)
            return st;
        for (k = 0; k < g->nnode_kinds; k++)
            if (g->node_kinds[k].native == type) ++*(size_t *)(void *)((char *)info + g->node_kinds[k].offset);
    }
    return XRT_SUCCESS;
}

static xrt_status xrt__gpu_graph_get_info(const xrt_backend *self, void *graph, xrt_graph_info *info)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    size_t n = 0, edges = 0;
    void **nodes = NULL;
    xrt_status st;
    XRT__GPU_NEED_GRAPHS(g);
    if ((st = XRT__GPU_CHECK(g, g->rt.GraphGetNodes(graph, NULL, &n), XRT__GPU_CALL(GraphGetNodes))) != XRT_SUCCESS)
        return st;
    if (n && !(nodes = (void **)XRT_MALLOC(n * sizeof *nodes)))
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "xrt_graph_get_info", "%s: no memory for %zu nodes", g->name, n);
    if (n) st = XRT__GPU_CHECK(g, g->rt.GraphGetNodes(graph, nodes, &n), XRT__GPU_CALL(GraphGetNodes));
    if (st == XRT_SUCCESS) st = xrt__gpu_count_nodes(g, nodes, n, info);
    XRT_FREE(nodes);
    if (st != XRT_SUCCESS) return st;
    if ((st = g->graph_edges(g, graph, &edges)) != XRT_SUCCESS) return st;
    info->nodes = n;
    info->edges = edges;
    return XRT_SUCCESS;
}

/* The runtime writes the file (XRT_GRAPH_DEBUG_DOT_VERBOSE is its verbose flag). */
static xrt_status xrt__gpu_graph_debug_dot_print(const xrt_backend *self, void *graph, const char *path,
                                                 unsigned flags)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    int e;
    if (!g->dot_print)
        return xrt__gpu_lacks(g, "xrt_graph_debug_dot_print", g->dot_print_sym);
    e = g->dot_print(graph, path, flags);
    return xrt__gpu_answer(g, e, g->dot_print_sym, "graph_debug_dot_print");
}

/* The runtime's own trim of its graph memory (cudaDeviceGraphMemTrim). */
static xrt_status xrt__gpu_device_graph_mem_trim(const xrt_backend *self, int device)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    int e;
    if (!g->graph_mem_trim)
        return xrt__gpu_lacks(g, "xrt_device_graph_mem_trim", g->graph_mem_trim_sym);
    e = g->graph_mem_trim(device);
    return xrt__gpu_answer(g, e, g->graph_mem_trim_sym, "device_graph_mem_trim");
}

/* The runtime's graph memory attributes; set: a reset (to 0) of a mark. */
static xrt_status xrt__gpu_graph_mem_attr(const xrt_backend *self, int device, int attr, uint64_t *value, int set)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    const char *fn = set ? "xrt_device_set_graph_mem_attribute" : "xrt_device_get_graph_mem_attribute";
    unsigned long long v = 0; /* the runtime's type: a uint64_t in CUDA's documentation, a 64-bit cuuint64_t */
    int e;
    if (!g->graph_mem_attr[set])
        return xrt__gpu_lacks(g, fn, g->graph_mem_attr_sym[set]);
    e = g->graph_mem_attr[set](device, attr, &v);
    if (e != g->success) return xrt__gpu_fail_as(g, e, g->graph_mem_attr_sym[set], fn + 4);
    if (!set) *value = (uint64_t)v;
    return XRT_SUCCESS;
}

static xrt_status xrt__gpu_device_get_graph_mem_attribute(const xrt_backend *self, int device, int attr,
                                                          uint64_t *value)
{
    return xrt__gpu_graph_mem_attr(self, device, attr, value, 0);
}

static xrt_status xrt__gpu_device_set_graph_mem_attribute(const xrt_backend *self, int device, int attr)
{
    return xrt__gpu_graph_mem_attr(self, device, attr, NULL, 1);
}

/* The runtime's own; exec and node are its handles. */
static xrt_status xrt__gpu_graph_node_set_enabled(const xrt_backend *self, void *exec, void *graph, void *node,
                                                  unsigned enabled)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    int e;
    (void)graph;
    if (!g->node_set_enabled)
        return xrt__gpu_lacks(g, "xrt_graph_node_set_enabled", g->node_enabled_sym[0]);
    e = g->node_set_enabled(exec, node, enabled);
    return xrt__gpu_answer(g, e, g->node_enabled_sym[0], "graph_node_set_enabled");
}

static xrt_status xrt__gpu_graph_node_get_enabled(const xrt_backend *self, void *exec, void *graph, void *node,
                                                  unsigned *enabled)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    int e;
    (void)graph;
    if (!g->node_get_enabled)
        return xrt__gpu_lacks(g, "xrt_graph_node_get_enabled", g->node_enabled_sym[1]);
    e = g->node_get_enabled(exec, node, enabled);
    return xrt__gpu_answer(g, e, g->node_enabled_sym[1], "graph_node_get_enabled");
}

/* Device limits: the runtime's own (cudaDeviceSetLimit, cudaDeviceGetLimit),
   for the limits it has (HIP has none past the malloc heap). */
static xrt_status xrt__gpu_limit_lacks(const xrt__gpu *g, const char *fn, const char *sym, int limit, int found)
{
    if (!found)
        return xrt__gpu_lacks(g, fn, sym);
    return xrt_error(XRT_ERROR_UNSUPPORTED, fn, "%s: the runtime has no limit %d", g->name, limit);
}

static xrt_status xrt__gpu_device_set_limit(const xrt_backend *self, int limit, size_t value)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    int e;
    if (!g->set_limit || limit >= g->limits)
        return xrt__gpu_limit_lacks(g, "xrt_device_set_limit", g->set_limit_sym, limit, g->set_limit != NULL);
    e = g->set_limit(limit, value);
    return xrt__gpu_answer(g, e, g->set_limit_sym, "device_set_limit");
}

static xrt_status xrt__gpu_device_set_cache_config(const xrt_backend *self, int config)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    int e;
    if (!g->set_cache_config)
        return xrt__gpu_lacks(g, "xrt_device_set_cache_config", g->cache_config_sym[0]);
    e = g->set_cache_config(config);
    return xrt__gpu_answer(g, e, g->cache_config_sym[0], "device_set_cache_config");
}

static xrt_status xrt__gpu_device_get_cache_config(const xrt_backend *self, int *config)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    int e;
    if (!g->get_cache_config)
        return xrt__gpu_lacks(g, "xrt_device_get_cache_config", g->cache_config_sym[1]);
    e = g->get_cache_config(config);
    return xrt__gpu_answer(g, e, g->cache_config_sym[1], "device_get_cache_config");
}

static xrt_status xrt__gpu_device_flush_gpu_direct_rdma_writes(const xrt_backend *self, int target, int scope)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    if (!g->rdma_flush)
        return xrt__gpu_lacks(g, "xrt_device_flush_gpu_direct_rdma_writes",
                              g->rdma_flush_sym ? g->rdma_flush_sym : "flush of GPUDirect RDMA writes");
    return xrt__gpu_answer(g, g->rdma_flush(target, scope), g->rdma_flush_sym, "device_flush_gpu_direct_rdma_writes");
}

/* User objects: the runtime's (the dispatch layer's destroy runs on its thread). */
static xrt_status xrt__gpu_user_object_create(const xrt_backend *self, void **object, xrt_host_fn destroy, void *ptr,
                                              unsigned count)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    if (!g->uobj_create) return xrt__gpu_lacks(g, "xrt_user_object_create", "user objects");
    return xrt__gpu_answer(g, g->uobj_create(object, ptr, destroy, count, XRT_USER_OBJECT_NO_DESTRUCTOR_SYNC),
                           g->uobj_sym[0], "user_object_create");
}

static xrt_status xrt__gpu_user_object_retain(const xrt_backend *self, void *object, unsigned count)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    if (!g->uobj_retain) return xrt__gpu_lacks(g, "xrt_user_object_retain", "user objects");
    return xrt__gpu_answer(g, g->uobj_retain(object, count), g->uobj_sym[1], "user_object_retain");
}

static xrt_status xrt__gpu_user_object_release(const xrt_backend *self, void *object, unsigned count)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    if (!g->uobj_release) return xrt__gpu_lacks(g, "xrt_user_object_release", "user objects");
    return xrt__gpu_answer(g, g->uobj_release(object, count), g->uobj_sym[2], "user_object_release");
}

static xrt_status xrt__gpu_graph_retain_user_object(const xrt_backend *self, void *graph, void *object,
                                                    unsigned count, unsigned flags)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    if (!g->graph_uobj_retain) return xrt__gpu_lacks(g, "xrt_graph_retain_user_object", "user objects");
    return xrt__gpu_answer(g, g->graph_uobj_retain(graph, object, count, flags), g->uobj_sym[3],
                           "graph_retain_user_object");
}

static xrt_status xrt__gpu_graph_release_user_object(const xrt_backend *self, void *graph, void *object,
                                                     unsigned count)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    if (!g->graph_uobj_release) return xrt__gpu_lacks(g, "xrt_graph_release_user_object", "user objects");
    return xrt__gpu_answer(g, g->graph_uobj_release(graph, object, count), g->uobj_sym[4],
                           "graph_release_user_object");
}

static xrt_status xrt__gpu_stream_set_attribute(const xrt_backend *self, void *stream, int attr,
                                                const xrt_stream_attr_value *value)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    if (!g->stream_set_attr)
        return xrt__gpu_lacks(g, "xrt_stream_set_attribute", g->stream_attr_sym[0] ? g->stream_attr_sym[0] : "stream attributes");
    return xrt__gpu_answer(g, g->stream_set_attr(stream, attr, value), g->stream_attr_sym[0], "stream_set_attribute");
}

/* A stream whose synchronization policy was never set answers one outside
   cudaSynchronizationPolicy on recent drivers (-1, as seen by cuda-python's
   tests on CUDA 13): xrt answers AUTO, as the CPU backend does. */
static xrt_status xrt__gpu_stream_get_attribute(const xrt_backend *self, void *stream, int attr,
                                                xrt_stream_attr_value *value)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    int e;
    if (!g->stream_get_attr)
        return xrt__gpu_lacks(g, "xrt_stream_get_attribute", g->stream_attr_sym[1] ? g->stream_attr_sym[1] : "stream attributes");
    if ((e = g->stream_get_attr(stream, attr, value)) != g->success)
        return xrt__gpu_fail_as(g, e, g->stream_attr_sym[1], "stream_get_attribute");
    if (attr == XRT_STREAM_ATTR_SYNCHRONIZATION_POLICY &&
        (value->sync_policy < XRT_SYNC_POLICY_AUTO || value->sync_policy > XRT_SYNC_POLICY_BLOCKING_SYNC))
        value->sync_policy = XRT_SYNC_POLICY_AUTO;
    return XRT_SUCCESS;
}

/* >> gpu: launch attributes: the runtime's kernel node calls, and the
   driver's launch with attributes (the dispatch layer checked them); a
   launch on a capturing stream records its node's params as
   xrt__gpu_launch_captured does. */
static xrt_status xrt__gpu_graph_kernel_node_set_attribute(const xrt_backend *self, void *graph, void *node, int attr,
                                                           const xrt_launch_attr_value *value)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    (void)graph;
    if (!g->knode_set_attr)
        return xrt__gpu_lacks(g, "xrt_graph_kernel_node_set_attribute", "kernel node attributes");
    return xrt__gpu_answer(g, g->knode_set_attr(node, attr, value), g->knode_attr_sym[0],
                           "graph_kernel_node_set_attribute");
}

static xrt_status xrt__gpu_graph_kernel_node_get_attribute(const xrt_backend *self, void *graph, void *node, int attr,
                                                           xrt_launch_attr_value *value)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    (void)graph;
    if (!g->knode_get_attr)
        return xrt__gpu_lacks(g, "xrt_graph_kernel_node_get_attribute", "kernel node attributes");
    return xrt__gpu_answer(g, g->knode_get_attr(node, attr, value), g->knode_attr_sym[1],
                           "graph_kernel_node_get_attribute");
}

static xrt_status xrt__gpu_graph_kernel_node_copy_attributes(const xrt_backend *self, void *dst_graph, void *dst,
                                                             void *src_graph, void *src)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    (void)dst_graph, (void)src_graph;
    if (!g->knode_copy_attrs)
        return xrt__gpu_lacks(g, "xrt_graph_kernel_node_copy_attributes", "kernel node attributes");
    return xrt__gpu_answer(g, g->knode_copy_attrs(dst, src), g->knode_attr_sym[2], "graph_kernel_node_copy_attributes");
}

static xrt_status xrt__gpu_launch_kernel_ex(const xrt_backend *self, void *function, xrt_dim3 grid, xrt_dim3 block,
                                            size_t shared, void *stream, const void *args, size_t args_size,
                                            const xrt_launch_attribute *attrs, unsigned num_attrs)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    const xrt__gpu_function *f = (const xrt__gpu_function *)function;
    void *extra[5], *graph = NULL, *node = NULL;
    xrt_kernel_node_params k;
    xrt_status st;
    if (!*g->launch) return xrt__gpu_no_modules(g, "xrt_launch_kernel_ex");
    if (!g->launch_ex) return xrt__gpu_lacks(g, "xrt_launch_kernel_ex", "launches with attributes");
    if ((st = xrt__gpu_launch_prep(self, f, shared, args, &args_size, extra)) != XRT_SUCCESS) return st;
    st = g->launch_ex(g, f->native, grid, block, (unsigned)shared, stream, args_size ? extra : NULL, attrs, num_attrs);
    if (st != XRT_SUCCESS) return st;
    if (!__atomic_load_n(&g->captures, __ATOMIC_RELAXED) || !g->capture_last ||
        !g->capture_last(g, stream, &graph, &node))
        return XRT_SUCCESS;
    memset(&k, 0, sizeof k);
    k.function = (xrt_function)(void *)f;
    k.grid = grid, k.block = block, k.shared_bytes = shared;
    k.args = args, k.args_size = args_size;
    (void)xrt__gpu_knode_put(g, graph, node, &k, args_size);
    return XRT_SUCCESS;
}

static xrt_status xrt__gpu_device_get_limit(const xrt_backend *self, size_t *value, int limit)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    int e;
    if (!g->get_limit || limit >= g->limits)
        return xrt__gpu_limit_lacks(g, "xrt_device_get_limit", g->get_limit_sym, limit, g->get_limit != NULL);
    e = g->get_limit(value, limit);
    return xrt__gpu_answer(g, e, g->get_limit_sym, "device_get_limit");
}

/* >> gpu: graphs built node by node, through the runtimes' node calls
   (cudaGraphCreate, cudaGraphAdd*Node & co). Graphs and nodes are the
   native objects. What xrt adds to the runtime's rules, so that every
   backend answers alike: a node's deps must differ, an edge is refused
   where it would close a cycle (CUDA accepts one there and fails at
   instantiate), and a call on several edges undoes its earlier pairs when
   one is refused. A host node runs through a kept closure (as a captured
   host function). A kernel node is the driver's function with the packed
   arguments as `extra` (CU_LAUNCH_PARAM_BUFFER_POINTER, as
   xrt__gpu_launch_kernel; the runtime copies them into the node): its
   params are read back from xrt's own record of them, kept for the kernel
   nodes xrt built, as the runtime gives back neither xrt's function nor
   the packed bytes. Memory nodes are not built by hand yet. */
#define XRT__GPU_PUT(buf, at, v) memcpy((char *)(buf) + (at), &(v), sizeof(v))
#define XRT__GPU_GET(buf, at, v) memcpy(&(v), (const char *)(buf) + (at), sizeof(v))
typedef union xrt__gpu_node_buf {
    double align;
    void *ptr;
    char bytes[XRT__GPU_NODE_BYTES];
} xrt__gpu_node_buf;
typedef struct xrt__gpu_host_params { xrt_host_fn fn; void *user; } xrt__gpu_host_params;

/* >> gpu: 3-D memory: cudaMemcpy3DAsync with the vendor's params (no
   arrays) written by its layout, and cudaMemset3DAsync, whose pitched
   pointer and extent are xrt's (same fields, checked by each vendor file).
   Optional entry points, as the 2-D ones. */
/* xrt's 3-D params as the vendor's (layout l), without arrays. */
static void xrt__gpu_box_native(const xrt__gpu_layout *l, const xrt_memcpy_3d_parms *p, xrt__gpu_node_buf *u)
{
    int kind = (int)p->kind;
    memset(u, 0, sizeof *u);
    XRT__GPU_PUT(u->bytes, l->copy_src_pos, p->src_pos);
    XRT__GPU_PUT(u->bytes, l->copy_src_ptr, p->src_ptr);
    XRT__GPU_PUT(u->bytes, l->copy_dst_pos, p->dst_pos);
    XRT__GPU_PUT(u->bytes, l->copy_dst_ptr, p->dst_ptr);
    XRT__GPU_PUT(u->bytes, l->copy_extent, p->extent);
    XRT__GPU_PUT(u->bytes, l->copy_kind, kind);
}

static xrt_status xrt__gpu_memcpy_3d_async(const xrt_backend *self, const xrt_memcpy_3d_parms *p, void *stream)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    const xrt__gpu_layout *l = g->layout;
    xrt__gpu_node_buf u;
    if (!g->rt.Memcpy3DAsync || !l) return xrt__gpu_rect_lack(g, XRT__GPU_CALL(Memcpy3DAsync), "memcpy_3d_async");
    xrt__gpu_box_native(l, p, &u);
    return XRT__GPU_CHECK(g, g->rt.Memcpy3DAsync(u.bytes, stream), XRT__GPU_CALL(Memcpy3DAsync));
}

/* The runtime's own synchronous copy, as xrt__gpu_memcpy_2d. */
static xrt_status xrt__gpu_memcpy_3d(const xrt_backend *self, const xrt_memcpy_3d_parms *p)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    xrt__gpu_node_buf u;
    if (!g->rt.Memcpy3D || !g->layout) return xrt__gpu_rect_lack(g, XRT__GPU_CALL(Memcpy3D), "memcpy_3d");
    xrt__gpu_box_native(g->layout, p, &u);
    return XRT__GPU_CHECK(g, g->rt.Memcpy3D(u.bytes), XRT__GPU_CALL(Memcpy3D));
}

static xrt_status xrt__gpu_memset_3d_async(const xrt_backend *self, const xrt_pitched_ptr *dst, unsigned value,
                                           const xrt_extent *extent, void *stream)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    if (!g->rt.Memset3DAsync) return xrt__gpu_rect_lack(g, XRT__GPU_CALL(Memset3DAsync), "memset_3d_async");
    return XRT__GPU_CHECK(g, g->rt.Memset3DAsync(*dst, (int)value, *extent, stream), XRT__GPU_CALL(Memset3DAsync));
}

static xrt_status xrt__gpu_memset_3d(const xrt_backend *self, const xrt_pitched_ptr *dst, unsigned value,
                                     const xrt_extent *extent)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    if (!g->rt.Memset3D) return xrt__gpu_rect_lack(g, XRT__GPU_CALL(Memset3D), "memset_3d");
    return XRT__GPU_CHECK(g, g->rt.Memset3D(*dst, (int)value, *extent), XRT__GPU_CALL(Memset3D));
}

/* A kernel node xrt built, and what it was given. */
typedef struct xrt__gpu_knode {
    const xrt__gpu *g;
    void *graph, *node;
    void *function; /* xrt__gpu_function */
    xrt_dim3 grid, block;
    size_t shared, args_size;
    void *args; /* after the record */
    struct xrt__gpu_knode *next;
} xrt__gpu_knode;
static xrt__gpu_knode *xrt__gpu_knodes;
static pthread_mutex_t xrt__gpu_knode_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const xrt__gpu_node_names[] = {"kernel", "copy", "memset", "host", "child graph", "empty",
                                                  "event wait", "event record", "?", "?", "allocation", "free"};

static xrt_status xrt__gpu_nodes_lack(const xrt__gpu *g, size_t call, const char *op) XRT__COLD;
static xrt_status xrt__gpu_nodes_lack(const xrt__gpu *g, size_t call, const char *op)
{
    char who[80];
    snprintf(who, sizeof who, "%s: xrt_%s", g->name, op);
    return xrt_error(XRT_ERROR_UNSUPPORTED, who, "the runtime has no %s", xrt__gpu_call_name(g, call));
}
#define XRT__GPU_NEED(g, field, op) \
    do { \
        if (!(g)->rt.field) return xrt__gpu_nodes_lack((g), XRT__GPU_CALL(field), (op)); \
    } while (0)

static xrt_status xrt__gpu_node_refused(const xrt__gpu *g, const char *op, const char *fmt, ...) XRT__COLD;
static xrt_status xrt__gpu_node_refused(const xrt__gpu *g, const char *op, const char *fmt, ...)
{
    char who[80], what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(who, sizeof who, "%s: xrt_%s", g->name, op);
    return xrt_error(XRT_ERROR_INVALID_VALUE, who, "%s", what);
}

/* The records of one runtime's kernel nodes: of `node`, or with node NULL
   of every node of `graph`, removed. */
static void xrt__gpu_knodes_drop(const xrt__gpu *g, void *graph, void *node)
{
    xrt__gpu_knode **pp, *k;
    pthread_mutex_lock(&xrt__gpu_knode_lock);
    for (pp = &xrt__gpu_knodes; (k = *pp) != NULL;)
        if (k->g == g && (node ? k->node == node : !graph || k->graph == graph)) {
            *pp = k->next;
            XRT_FREE(k);
        } else {
            pp = &k->next;
        }
    pthread_mutex_unlock(&xrt__gpu_knode_lock);
}

static xrt__gpu_knode *xrt__gpu_knode_find(const xrt__gpu *g, void *node)
{
    xrt__gpu_knode *k;
    for (k = xrt__gpu_knodes; k && !(k->g == g && k->node == node); k = k->next) {}
    return k;
}

/* Records (graph, node) as a kernel node of params k (args_size bytes of
   arguments), replacing its record; 0 without memory. */
static int xrt__gpu_knode_put(const xrt__gpu *g, void *graph, void *node, const xrt_kernel_node_params *k,
                              size_t args_size)
{
    xrt__gpu_knode *r = (xrt__gpu_knode *)XRT_MALLOC(sizeof *r + args_size + 1);
    if (!r) return 0;
    r->g = g, r->graph = graph, r->node = node;
    r->function = (void *)k->function;
    r->grid = k->grid, r->block = k->block, r->shared = k->shared_bytes;
    r->args_size = args_size;
    r->args = r + 1;
    if (args_size) memcpy(r->args, k->args, args_size);
    xrt__gpu_knodes_drop(g, NULL, node);
    pthread_mutex_lock(&xrt__gpu_knode_lock);
    r->next = xrt__gpu_knodes;
    xrt__gpu_knodes = r;
    pthread_mutex_unlock(&xrt__gpu_knode_lock);
    return 1;
}

/* The native type of a node as xrt's; -1 for one xrt has no type for. */
static xrt_status xrt__gpu_node_type_of(const xrt__gpu *g, void *node, int *type, const char *op)
{
    int native = -1;
    size_t i;
    xrt_status st = xrt__gpu_check_in(g, g->rt.GraphNodeGetType(node, &native), XRT__GPU_CALL(GraphNodeGetType), op);
    *type = -1;
    for (i = 0; st == XRT_SUCCESS && i < g->nnode_types; i++)
        if (g->node_types[i].native == native) *type = g->node_types[i].type;
    return st;
}

/* A whole list (xrt__gpu_list), allocated: *a (and *b for edges) hold *n nodes. */
static xrt_status xrt__gpu_list_with(const xrt__gpu *g, int what, void *of, void **a, void **b,
                                     xrt__gpu_edge_data *data, size_t *count, const char *op);
/* The whole list, allocated in *a (NULL if empty), for xrt's own walks: an
   edge is an edge to them, annotated or not; *data (where asked) its
   edges' annotations, in the same allocation. */
static xrt_status xrt__gpu_list_all(const xrt__gpu *g, int what, void *of, void ***a, size_t *n,
                                    const xrt__gpu_edge_data **data, const char *op)
{
    xrt__gpu_edge_data *d = NULL;
    size_t each = sizeof **a + (what >= XRT__GRAPH_LIST_EDGES ? sizeof *d : 0);
    xrt_status st;
    *a = NULL;
    *n = 0;
    if (data) *data = NULL;
    if ((st = xrt__gpu_list_with(g, what, of, NULL, NULL, NULL, n, op)) != XRT_SUCCESS || !*n) return st;
    if (*n > SIZE_MAX / each || !(*a = (void **)XRT_MALLOC(*n * each)))
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, op, "%s: no memory for a list of %zu nodes", g->name, *n);
    if (each > sizeof **a) d = (xrt__gpu_edge_data *)(void *)(*a + *n);
    if ((st = xrt__gpu_list_with(g, what, of, *a, NULL, d, n, op)) != XRT_SUCCESS) {
        XRT_FREE(*a);
        *a = NULL;
    } else if (data) {
        *data = d;
    }
    return st;
}

/* Drops the records of graph's kernel nodes and of those in its child
   graphs (which go with it), asking the runtime only while there are any. */
static void xrt__gpu_knodes_forget(const xrt__gpu *g, void *graph)
{
    void **nodes = NULL, *child;
    size_t n = 0, i;
    int type;
    if (!__atomic_load_n(&xrt__gpu_knodes, __ATOMIC_ACQUIRE)) return;
    if (g->rt.GraphChildGraphNodeGetGraph &&
        xrt__gpu_list_all(g, XRT__GRAPH_LIST_NODES, graph, &nodes, &n, NULL, "graph_destroy") == XRT_SUCCESS)
        for (i = 0; i < n; i++)
            if (xrt__gpu_node_type_of(g, nodes[i], &type, "graph_destroy") == XRT_SUCCESS && type == XRT_GRAPH_NODE_GRAPH &&
                g->rt.GraphChildGraphNodeGetGraph(nodes[i], &child) == g->success)
                xrt__gpu_knodes_forget(g, child);
    XRT_FREE(nodes);
    xrt__gpu_knodes_drop(g, graph, NULL);
}

static int xrt__gpu_has_nodes(const xrt__gpu *g)
{
    return xrt__gpu_has_graphs(g) && g->rt.GraphCreate && g->rt.GraphDestroyNode && g->rt.GraphGetRootNodes &&
           g->list_edges && g->edit_edges && g->node_types && g->layout;
}

static xrt_status xrt__gpu_graph_create(const xrt_backend *self, void **graph)
{
    xrt__gpu *g = (xrt__gpu *)self->user;
    void *made = NULL;
    xrt_status st;
    XRT__GPU_NEED_GRAPHS(g);
    if (!xrt__gpu_has_nodes(g))
        return xrt_error(XRT_ERROR_UNSUPPORTED, "xrt_graph_create",
                         "%s: the runtime lacks an entry point of graphs built node by node (%s, %s, %s or those "
                         "of edges)", g->name, xrt__gpu_call_name(g, XRT__GPU_CALL(GraphCreate)),
                         xrt__gpu_call_name(g, XRT__GPU_CALL(GraphDestroyNode)),
                         xrt__gpu_call_name(g, XRT__GPU_CALL(GraphGetRootNodes)));
    st = XRT__GPU_CHECK(g, g->rt.GraphCreate(&made, 0), XRT__GPU_CALL(GraphCreate));
    if (st != XRT_SUCCESS) return st;
    *graph = made;
    xrt__gpu_graphs_add(g, 1); /* as a captured graph: modules stay for its kernel nodes */
    return XRT_SUCCESS;
}

/* The runtime's struct of a kernel node of params k (checked as a launch
   is). extra (5 entries) must live until the runtime has it. */
static xrt_status xrt__gpu_kernel_native(const xrt__gpu *g, const xrt_kernel_node_params *k, size_t *args_size,
                                         void **extra, xrt__gpu_node_buf *u)
{
    const xrt__gpu_function *f = (const xrt__gpu_function *)(const void *)k->function;
    const xrt__gpu_layout *l = g->layout;
    unsigned shared = (unsigned)k->shared_bytes;
    void **params = NULL, **packed;
    xrt_status st;
    *args_size = k->args_size;
    if (f->params_known && *args_size != f->params && (st = xrt__gpu_args_fit(g, f, args_size)) != XRT_SUCCESS)
        return st;
    if (k->shared_bytes > 0xffffffffu) return xrt__gpu_shared_too_big(g, k->shared_bytes);
    extra[0] = g->launch_params[0], extra[1] = (void *)(uintptr_t)k->args;
    extra[2] = g->launch_params[1], extra[3] = args_size;
    extra[4] = g->launch_params[2];
    packed = *args_size ? extra : NULL;
    memset(u, 0, sizeof *u);
    XRT__GPU_PUT(u->bytes, l->kernel_func, f->native);
    XRT__GPU_PUT(u->bytes, l->kernel_grid, k->grid);
    XRT__GPU_PUT(u->bytes, l->kernel_block, k->block);
    XRT__GPU_PUT(u->bytes, l->kernel_shared, shared);
    XRT__GPU_PUT(u->bytes, l->kernel_params, params);
    XRT__GPU_PUT(u->bytes, l->kernel_extra, packed);
    return XRT_SUCCESS;
}

static void xrt__gpu_set_native(const xrt__gpu *g, const xrt_memset_node_params *m, xrt__gpu_node_buf *u)
{
    const xrt__gpu_layout *l = g->layout;
    memset(u, 0, sizeof *u);
    XRT__GPU_PUT(u->bytes, l->set_dst, m->dst);
    XRT__GPU_PUT(u->bytes, l->set_pitch, m->pitch);
    XRT__GPU_PUT(u->bytes, l->set_value, m->value);
    XRT__GPU_PUT(u->bytes, l->set_element, m->element_size);
    XRT__GPU_PUT(u->bytes, l->set_width, m->width);
    XRT__GPU_PUT(u->bytes, l->set_height, m->height);
}

/* A host node's params: the kept closure's trampoline; NULL without memory. */
static int xrt__gpu_host_native(const xrt_backend *self, const xrt_host_node_params *h, xrt__gpu_host_params *out)
{
    xrt__gpu_host_call *c = xrt__gpu_host_kept(self, h->fn, h->user);
    out->fn = xrt__gpu_host_kept_trampoline;
    out->user = c;
    return c != NULL;
}

static xrt_status xrt__gpu_no_memory(const xrt__gpu *g, const char *op, const char *what) XRT__COLD;
static xrt_status xrt__gpu_no_memory(const xrt__gpu *g, const char *op, const char *what)
{
    char who[80];
    snprintf(who, sizeof who, "%s: xrt_%s", g->name, op);
    return xrt_error(XRT_ERROR_OUT_OF_MEMORY, who, "no memory for %s", what);
}

/* A memory node added (which: XRT__GPU_MEM_ADD_*) or read (_GET_*) through
   the vendor's entry point, where the runtime has it. */
static xrt_status xrt__gpu_mem_node(const xrt__gpu *g, int which, void **node, void *graph, void *const *deps,
                                    size_t n, xrt_graph_node_params *p, const char *op)
{
    char who[80];
    int e;
    if (g->mem_node && g->mem_node_fns[which]) {
        e = g->mem_node(g, which, node, graph, deps, n, p);
        return xrt__gpu_answer(g, e, g->mem_node_syms[which], op);
    }
    snprintf(who, sizeof who, "%s: xrt_%s", g->name, op);
    if (!g->mem_node_syms[which]) /* HIP: xrt names no hipGraphAddMemAllocNode & co (HIP 5 has none) */
        return xrt_error(XRT_ERROR_UNSUPPORTED, who,
                         "graph memory nodes built by hand are not supported on %s (xrt calls no %sGraphAddMemAllocNode); "
                         "allocate in a capture instead (xrt_malloc_async on a capturing stream)", g->name, g->name);
    return xrt_error(XRT_ERROR_UNSUPPORTED, who, "the runtime has no %s", g->mem_node_syms[which]);
}

static xrt_status xrt__gpu_add_kernel(const xrt__gpu *g, void *graph, void **node, void *const *deps, size_t ndeps,
                                      const xrt_kernel_node_params *k)
{
    static const char op[] = "graph_add_node";
    xrt__gpu_node_buf u;
    void *extra[5], *made = NULL;
    size_t args_size;
    xrt_status st;
    XRT__GPU_NEED(g, GraphAddKernelNode, op);
    if ((st = xrt__gpu_kernel_native(g, k, &args_size, extra, &u)) != XRT_SUCCESS) return st;
    st = xrt__gpu_check_in(g, g->rt.GraphAddKernelNode(&made, graph, deps, ndeps, u.bytes),
                           XRT__GPU_CALL(GraphAddKernelNode), op);
    if (st != XRT_SUCCESS) return st;
    if (!xrt__gpu_knode_put(g, graph, made, k, args_size)) {
        (void)g->rt.GraphDestroyNode(made);
        return xrt__gpu_no_memory(g, op, "the kernel node's record");
    }
    *node = made;
    return XRT_SUCCESS;
}

/* deps, given by the dispatch layer as nodes of the graph: each once. */
static xrt_status xrt__gpu_deps_distinct(const xrt__gpu *g, void *const *deps, size_t n)
{
    size_t i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < i; j++)
            if (deps[i] == deps[j])
                return xrt__gpu_node_refused(g, "graph_add_node", "deps[%zu] and deps[%zu] are the same node", j, i);
    return XRT_SUCCESS;
}

static xrt_status xrt__gpu_graph_add_node(const xrt_backend *self, void *graph, void **node, void *const *deps,
                                          size_t ndeps, xrt_graph_node_params *p)
{
    static const char op[] = "graph_add_node";
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    xrt__gpu_node_buf u;
    xrt__gpu_host_params hp;
    void *made = NULL;
    size_t call;
    int e;
    xrt_status st;
    if ((st = xrt__gpu_deps_distinct(g, deps, ndeps)) != XRT_SUCCESS) return st;
    switch (p->type) {
    case XRT_GRAPH_NODE_KERNEL: return xrt__gpu_add_kernel(g, graph, node, deps, ndeps, &p->kernel);
    case XRT_GRAPH_NODE_MEMCPY:
        XRT__GPU_NEED(g, GraphAddMemcpyNode1D, op);
        call = XRT__GPU_CALL(GraphAddMemcpyNode1D);
        e = g->rt.GraphAddMemcpyNode1D(&made, graph, deps, ndeps, p->copy.dst, p->copy.src, p->copy.size, (int)p->copy.kind);
        break;
    case XRT_GRAPH_NODE_MEMSET:
        XRT__GPU_NEED(g, GraphAddMemsetNode, op);
        xrt__gpu_set_native(g, &p->set, &u);
        call = XRT__GPU_CALL(GraphAddMemsetNode);
        e = g->rt.GraphAddMemsetNode(&made, graph, deps, ndeps, u.bytes);
        break;
    case XRT_GRAPH_NODE_HOST:
        XRT__GPU_NEED(g, GraphAddHostNode, op);
        if (!xrt__gpu_host_native(self, &p->host, &hp)) return xrt__gpu_no_memory(g, op, "the host function's closure");
        call = XRT__GPU_CALL(GraphAddHostNode);
        e = g->rt.GraphAddHostNode(&made, graph, deps, ndeps, &hp);
        break;
    case XRT_GRAPH_NODE_GRAPH:
        XRT__GPU_NEED(g, GraphAddChildGraphNode, op);
        call = XRT__GPU_CALL(GraphAddChildGraphNode);
        e = g->rt.GraphAddChildGraphNode(&made, graph, deps, ndeps, (void *)p->child.graph);
        break;
    case XRT_GRAPH_NODE_EMPTY:
        XRT__GPU_NEED(g, GraphAddEmptyNode, op);
        call = XRT__GPU_CALL(GraphAddEmptyNode);
        e = g->rt.GraphAddEmptyNode(&made, graph, deps, ndeps);
        break;
    case XRT_GRAPH_NODE_WAIT_EVENT:
        XRT__GPU_NEED(g, GraphAddEventWaitNode, op);
        call = XRT__GPU_CALL(GraphAddEventWaitNode);
        e = g->rt.GraphAddEventWaitNode(&made, graph, deps, ndeps, (void *)p->event.event);
        break;
    case XRT_GRAPH_NODE_EVENT_RECORD:
        XRT__GPU_NEED(g, GraphAddEventRecordNode, op);
        call = XRT__GPU_CALL(GraphAddEventRecordNode);
        e = g->rt.GraphAddEventRecordNode(&made, graph, deps, ndeps, (void *)p->event.event);
        break;
    case XRT_GRAPH_NODE_MEM_ALLOC:
    case XRT_GRAPH_NODE_MEM_FREE:
        return xrt__gpu_mem_node(g, p->type == XRT_GRAPH_NODE_MEM_ALLOC ? XRT__GPU_MEM_ADD_ALLOC : XRT__GPU_MEM_ADD_FREE,
                                 node, graph, deps, ndeps, p, op);
    default: return xrt__gpu_node_refused(g, op, "unknown node type %d", (int)p->type);
    }
    if ((st = xrt__gpu_check_in(g, e, call, op)) == XRT_SUCCESS) *node = made;
    return st;
}

/* A 1-D copy from the runtime's 3-D params. */
static xrt_status xrt__gpu_copy_params(const xrt__gpu *g, void *node, xrt_memcpy_node_params *c)
{
    static const char op[] = "graph_node_get_params";
    const xrt__gpu_layout *l = g->layout;
    xrt__gpu_node_buf u;
    void *src_array, *dst_array;
    char *src, *dst;
    size_t src_pos[3], dst_pos[3], extent[3];
    int kind;
    xrt_status st;
    XRT__GPU_NEED(g, GraphMemcpyNodeGetParams, op);
    memset(&u, 0, sizeof u);
    if ((st = xrt__gpu_check_in(g, g->rt.GraphMemcpyNodeGetParams(node, u.bytes), XRT__GPU_CALL(GraphMemcpyNodeGetParams),
                                op)) != XRT_SUCCESS)
        return st;
    XRT__GPU_GET(u.bytes, l->copy_src_array, src_array);
    XRT__GPU_GET(u.bytes, l->copy_dst_array, dst_array);
    XRT__GPU_GET(u.bytes, l->copy_src_pos, src_pos);
    XRT__GPU_GET(u.bytes, l->copy_dst_pos, dst_pos);
    XRT__GPU_GET(u.bytes, l->copy_src_ptr, src); /* the pitched pointer's first field */
    XRT__GPU_GET(u.bytes, l->copy_dst_ptr, dst);
    XRT__GPU_GET(u.bytes, l->copy_extent, extent);
    XRT__GPU_GET(u.bytes, l->copy_kind, kind);
    if (src_array || dst_array || extent[1] > 1 || extent[2] > 1 || src_pos[1] || src_pos[2] || dst_pos[1] || dst_pos[2]) {
        char who[80];
        snprintf(who, sizeof who, "%s: xrt_%s", g->name, op);
        return xrt_error(XRT_ERROR_UNSUPPORTED, who, "the copy node is not a 1-D copy between pointers");
    }
    c->dst = dst + dst_pos[0];
    c->src = src + src_pos[0];
    c->size = extent[0];
    c->kind = (xrt_memcpy_kind)kind;
    return XRT_SUCCESS;
}

static xrt_status xrt__gpu_set_params(const xrt__gpu *g, void *node, xrt_memset_node_params *m)
{
    static const char op[] = "graph_node_get_params";
    const xrt__gpu_layout *l = g->layout;
    xrt__gpu_node_buf u;
    xrt_status st;
    XRT__GPU_NEED(g, GraphMemsetNodeGetParams, op);
    memset(&u, 0, sizeof u);
    if ((st = xrt__gpu_check_in(g, g->rt.GraphMemsetNodeGetParams(node, u.bytes), XRT__GPU_CALL(GraphMemsetNodeGetParams),
                                op)) != XRT_SUCCESS)
        return st;
    XRT__GPU_GET(u.bytes, l->set_dst, m->dst);
    XRT__GPU_GET(u.bytes, l->set_pitch, m->pitch);
    XRT__GPU_GET(u.bytes, l->set_value, m->value);
    XRT__GPU_GET(u.bytes, l->set_element, m->element_size);
    XRT__GPU_GET(u.bytes, l->set_width, m->width);
    XRT__GPU_GET(u.bytes, l->set_height, m->height);
    return XRT_SUCCESS;
}

/* A host node's function: the user's behind a kept closure of xrt's. */
static xrt_status xrt__gpu_host_params_of(const xrt__gpu *g, void *node, xrt_host_node_params *h)
{
    static const char op[] = "graph_node_get_params";
    xrt__gpu_host_params hp = {NULL, NULL};
    xrt_status st;
    XRT__GPU_NEED(g, GraphHostNodeGetParams, op);
    st = xrt__gpu_check_in(g, g->rt.GraphHostNodeGetParams(node, &hp), XRT__GPU_CALL(GraphHostNodeGetParams), op);
    if (st != XRT_SUCCESS) return st;
    if (hp.fn == xrt__gpu_host_kept_trampoline && hp.user) {
        const xrt__gpu_host_call *c = (const xrt__gpu_host_call *)hp.user;
        hp.fn = c->fn;
        hp.user = c->user;
    }
    h->fn = hp.fn;
    h->user = hp.user;
    return XRT_SUCCESS;
}

static xrt_status xrt__gpu_kernel_params_of(const xrt__gpu *g, void *node, xrt_kernel_node_params *k)
{
    const xrt__gpu_knode *r;
    char who[80];
    pthread_mutex_lock(&xrt__gpu_knode_lock);
    if ((r = xrt__gpu_knode_find(g, node)) != NULL) {
        k->function = (xrt_function)r->function;
        k->grid = r->grid, k->block = r->block, k->shared_bytes = r->shared;
        k->args = r->args, k->args_size = r->args_size;
    }
    pthread_mutex_unlock(&xrt__gpu_knode_lock);
    if (r) return XRT_SUCCESS;
    snprintf(who, sizeof who, "%s: xrt_graph_node_get_params", g->name);
    return xrt_error(XRT_ERROR_UNSUPPORTED, who,
                     "a kernel node whose params xrt did not record (not added nor launched into a capture through "
                     "xrt, or in a child graph's copy): the runtime does "
                     "not give its function and packed arguments back");
}

static xrt_status xrt__gpu_graph_node_get_params(const xrt_backend *self, void *graph, void *node,
                                                 xrt_graph_node_params *p)
{
    static const char op[] = "graph_node_get_params";
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    void *obj = NULL;
    int type;
    xrt_status st;
    (void)graph;
    if ((st = xrt__gpu_node_type_of(g, node, &type, op)) != XRT_SUCCESS) return st;
    p->type = (xrt_graph_node_type)type;
    switch (type) {
    case XRT_GRAPH_NODE_KERNEL: return xrt__gpu_kernel_params_of(g, node, &p->kernel);
    case XRT_GRAPH_NODE_MEMCPY: return xrt__gpu_copy_params(g, node, &p->copy);
    case XRT_GRAPH_NODE_MEMSET: return xrt__gpu_set_params(g, node, &p->set);
    case XRT_GRAPH_NODE_HOST: return xrt__gpu_host_params_of(g, node, &p->host);
    case XRT_GRAPH_NODE_EMPTY: return XRT_SUCCESS;
    case XRT_GRAPH_NODE_GRAPH:
        XRT__GPU_NEED(g, GraphChildGraphNodeGetGraph, op);
        st = xrt__gpu_check_in(g, g->rt.GraphChildGraphNodeGetGraph(node, &obj), XRT__GPU_CALL(GraphChildGraphNodeGetGraph), op);
        p->child.graph = (xrt_graph)obj;
        return st;
    case XRT_GRAPH_NODE_WAIT_EVENT:
        XRT__GPU_NEED(g, GraphEventWaitNodeGetEvent, op);
        st = xrt__gpu_check_in(g, g->rt.GraphEventWaitNodeGetEvent(node, &obj), XRT__GPU_CALL(GraphEventWaitNodeGetEvent), op);
        p->event.event = (xrt_event)obj;
        return st;
    case XRT_GRAPH_NODE_EVENT_RECORD:
        XRT__GPU_NEED(g, GraphEventRecordNodeGetEvent, op);
        st = xrt__gpu_check_in(g, g->rt.GraphEventRecordNodeGetEvent(node, &obj), XRT__GPU_CALL(GraphEventRecordNodeGetEvent), op);
        p->event.event = (xrt_event)obj;
        return st;
    case XRT_GRAPH_NODE_MEM_ALLOC:
    case XRT_GRAPH_NODE_MEM_FREE:
        return xrt__gpu_mem_node(g, type == XRT_GRAPH_NODE_MEM_ALLOC ? XRT__GPU_MEM_GET_ALLOC : XRT__GPU_MEM_GET_FREE,
                                 &node, NULL, NULL, 0, p, op);
    default: {
        char who[80];
        snprintf(who, sizeof who, "%s: xrt_%s", g->name, op);
        return xrt_error(XRT_ERROR_UNSUPPORTED, who, "the params of a %s node cannot be read yet",
                         type >= 0 && type < 12 ? xrt__gpu_node_names[type] : "native");
    }
    }
}

/* Params for node (of the graph, or exec's copy of it): of the node's own
   type, not of a child graph (changed through its own graph) nor of memory. */
static xrt_status xrt__gpu_node_set(const xrt_backend *self, void *exec, void *graph, void *node,
                                    const xrt_graph_node_params *p, const char *op)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    xrt__gpu_node_buf u;
    xrt__gpu_host_params hp;
    void *extra[5], *ev;
    size_t args_size, call;
    int type, e;
    xrt_status st;
    if ((st = xrt__gpu_node_type_of(g, node, &type, op)) != XRT_SUCCESS) return st;
    if ((int)p->type != type)
        return xrt__gpu_node_refused(g, op, "the node is a %s node; the params are of type %d",
                                     type >= 0 && type < 12 ? xrt__gpu_node_names[type] : "native", (int)p->type);
    switch (type) {
    case XRT_GRAPH_NODE_KERNEL:
        if ((st = xrt__gpu_kernel_native(g, &p->kernel, &args_size, extra, &u)) != XRT_SUCCESS) return st;
        if (exec) {
            XRT__GPU_NEED(g, GraphExecKernelNodeSetParams, op);
            return xrt__gpu_check_in(g, g->rt.GraphExecKernelNodeSetParams(exec, node, u.bytes),
                                     XRT__GPU_CALL(GraphExecKernelNodeSetParams), op);
        }
        XRT__GPU_NEED(g, GraphKernelNodeSetParams, op);
        if ((st = xrt__gpu_check_in(g, g->rt.GraphKernelNodeSetParams(node, u.bytes), XRT__GPU_CALL(GraphKernelNodeSetParams),
                                    op)) != XRT_SUCCESS)
            return st;
        if (!xrt__gpu_knode_put(g, graph, node, &p->kernel, args_size)) {
            xrt__gpu_knodes_drop(g, NULL, node); /* the old record is wrong now */
            return xrt__gpu_no_memory(g, op, "the kernel node's record");
        }
        return XRT_SUCCESS;
    case XRT_GRAPH_NODE_MEMCPY:
        if (exec) {
            XRT__GPU_NEED(g, GraphExecMemcpyNodeSetParams1D, op);
            call = XRT__GPU_CALL(GraphExecMemcpyNodeSetParams1D);
            e = g->rt.GraphExecMemcpyNodeSetParams1D(exec, node, p->copy.dst, p->copy.src, p->copy.size, (int)p->copy.kind);
        } else {
            XRT__GPU_NEED(g, GraphMemcpyNodeSetParams1D, op);
            call = XRT__GPU_CALL(GraphMemcpyNodeSetParams1D);
            e = g->rt.GraphMemcpyNodeSetParams1D(node, p->copy.dst, p->copy.src, p->copy.size, (int)p->copy.kind);
        }
        break;
    case XRT_GRAPH_NODE_MEMSET:
        xrt__gpu_set_native(g, &p->set, &u);
        if (exec) {
            XRT__GPU_NEED(g, GraphExecMemsetNodeSetParams, op);
            call = XRT__GPU_CALL(GraphExecMemsetNodeSetParams);
            e = g->rt.GraphExecMemsetNodeSetParams(exec, node, u.bytes);
        } else {
            XRT__GPU_NEED(g, GraphMemsetNodeSetParams, op);
            call = XRT__GPU_CALL(GraphMemsetNodeSetParams);
            e = g->rt.GraphMemsetNodeSetParams(node, u.bytes);
        }
        break;
    case XRT_GRAPH_NODE_HOST:
        if (exec) XRT__GPU_NEED(g, GraphExecHostNodeSetParams, op);
        else XRT__GPU_NEED(g, GraphHostNodeSetParams, op);
        if (!xrt__gpu_host_native(self, &p->host, &hp)) return xrt__gpu_no_memory(g, op, "the host function's closure");
        call = exec ? XRT__GPU_CALL(GraphExecHostNodeSetParams) : XRT__GPU_CALL(GraphHostNodeSetParams);
        e = exec ? g->rt.GraphExecHostNodeSetParams(exec, node, &hp) : g->rt.GraphHostNodeSetParams(node, &hp);
        break;
    case XRT_GRAPH_NODE_EMPTY: return XRT_SUCCESS;
    case XRT_GRAPH_NODE_WAIT_EVENT:
        if (exec) XRT__GPU_NEED(g, GraphExecEventWaitNodeSetEvent, op);
        else XRT__GPU_NEED(g, GraphEventWaitNodeSetEvent, op);
        ev = (void *)p->event.event;
        call = exec ? XRT__GPU_CALL(GraphExecEventWaitNodeSetEvent) : XRT__GPU_CALL(GraphEventWaitNodeSetEvent);
        e = exec ? g->rt.GraphExecEventWaitNodeSetEvent(exec, node, ev) : g->rt.GraphEventWaitNodeSetEvent(node, ev);
        break;
    case XRT_GRAPH_NODE_EVENT_RECORD:
        if (exec) XRT__GPU_NEED(g, GraphExecEventRecordNodeSetEvent, op);
        else XRT__GPU_NEED(g, GraphEventRecordNodeSetEvent, op);
        ev = (void *)p->event.event;
        call = exec ? XRT__GPU_CALL(GraphExecEventRecordNodeSetEvent) : XRT__GPU_CALL(GraphEventRecordNodeSetEvent);
        e = exec ? g->rt.GraphExecEventRecordNodeSetEvent(exec, node, ev) : g->rt.GraphEventRecordNodeSetEvent(node, ev);
        break;
    case XRT_GRAPH_NODE_GRAPH:
        return xrt__gpu_node_refused(g, op, "a child graph node's params cannot be set (change its graph through "
                                            "xrt_graph_node_get_params' handle)");
    default: return xrt__gpu_node_refused(g, op, "a %s node's params cannot be set", type == XRT_GRAPH_NODE_MEM_ALLOC ||
                                                  type == XRT_GRAPH_NODE_MEM_FREE ? "memory" : "native");
    }
    return xrt__gpu_check_in(g, e, call, op);
}

static xrt_status xrt__gpu_graph_node_set_params(const xrt_backend *self, void *graph, void *node,
                                                 const xrt_graph_node_params *params)
{
    return xrt__gpu_node_set(self, NULL, graph, node, params, "graph_node_set_params");
}

static xrt_status xrt__gpu_graph_exec_node_set_params(const xrt_backend *self, void *exec, void *graph, void *node,
                                                      const xrt_graph_node_params *params)
{
    return xrt__gpu_node_set(self, exec, graph, node, params, "graph_exec_node_set_params");
}

/* Copy nodes of 3-D params: the runtime's own (cudaGraphAddMemcpyNode,
   cudaGraphMemcpyNodeGetParams, cudaGraphMemcpyNodeSetParams,
   cudaGraphExecMemcpyNodeSetParams), the params written by the vendor's
   layout; a node with an array is not xrt's to describe. */
static xrt_status xrt__gpu_graph_add_memcpy_node(const xrt_backend *self, void *graph, void **node, void *const *deps,
                                                 size_t ndeps, const xrt_memcpy_3d_parms *p)
{
    static const char op[] = "graph_add_memcpy_node";
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    xrt__gpu_node_buf u;
    void *made = NULL;
    xrt_status st;
    XRT__GPU_NEED(g, GraphAddMemcpyNode, op);
    if (!g->layout) return xrt__gpu_nodes_lack(g, XRT__GPU_CALL(GraphAddMemcpyNode), op);
    if ((st = xrt__gpu_deps_distinct(g, deps, ndeps)) != XRT_SUCCESS) return st;
    xrt__gpu_box_native(g->layout, p, &u);
    st = xrt__gpu_check_in(g, g->rt.GraphAddMemcpyNode(&made, graph, (void *const *)deps, ndeps, u.bytes),
                           XRT__GPU_CALL(GraphAddMemcpyNode), op);
    if (st == XRT_SUCCESS) *node = made;
    return st;
}

static xrt_status xrt__gpu_graph_memcpy_node_get_params(const xrt_backend *self, void *graph, void *node,
                                                        xrt_memcpy_3d_parms *p)
{
    static const char op[] = "graph_memcpy_node_get_params";
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    const xrt__gpu_layout *l = g->layout;
    xrt__gpu_node_buf u;
    void *src_array, *dst_array;
    int type, kind;
    xrt_status st;
    (void)graph;
    XRT__GPU_NEED(g, GraphMemcpyNodeGetParams, op);
    if (!l) return xrt__gpu_nodes_lack(g, XRT__GPU_CALL(GraphMemcpyNodeGetParams), op);
    if ((st = xrt__gpu_node_type_of(g, node, &type, op)) != XRT_SUCCESS) return st;
    if (type != XRT_GRAPH_NODE_MEMCPY) return xrt__gpu_node_refused(g, op, "the node is of type %d, not a copy", type);
    memset(&u, 0, sizeof u);
    if ((st = xrt__gpu_check_in(g, g->rt.GraphMemcpyNodeGetParams(node, u.bytes), XRT__GPU_CALL(GraphMemcpyNodeGetParams),
                                op)) != XRT_SUCCESS)
        return st;
    XRT__GPU_GET(u.bytes, l->copy_src_array, src_array);
    XRT__GPU_GET(u.bytes, l->copy_dst_array, dst_array);
    if (src_array || dst_array) {
        char who[80];
        snprintf(who, sizeof who, "%s: xrt_%s", g->name, op);
        return xrt_error(XRT_ERROR_UNSUPPORTED, who, "the copy node has a CUDA array, which xrt does not describe");
    }
    XRT__GPU_GET(u.bytes, l->copy_src_pos, p->src_pos);
    XRT__GPU_GET(u.bytes, l->copy_src_ptr, p->src_ptr);
    XRT__GPU_GET(u.bytes, l->copy_dst_pos, p->dst_pos);
    XRT__GPU_GET(u.bytes, l->copy_dst_ptr, p->dst_ptr);
    XRT__GPU_GET(u.bytes, l->copy_extent, p->extent);
    XRT__GPU_GET(u.bytes, l->copy_kind, kind);
    p->kind = (xrt_memcpy_kind)kind;
    return XRT_SUCCESS;
}

static xrt_status xrt__gpu_graph_memcpy_node_set_params(const xrt_backend *self, void *exec, void *graph, void *node,
                                                        const xrt_memcpy_3d_parms *p)
{
    static const char op[] = "graph_memcpy_node_set_params";
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    xrt__gpu_node_buf u;
    (void)graph;
    if (exec) XRT__GPU_NEED(g, GraphExecMemcpyNodeSetParams, op);
    else XRT__GPU_NEED(g, GraphMemcpyNodeSetParams, op);
    if (!g->layout) return xrt__gpu_nodes_lack(g, XRT__GPU_CALL(GraphMemcpyNodeSetParams), op);
    xrt__gpu_box_native(g->layout, p, &u);
    if (exec)
        return xrt__gpu_check_in(g, g->rt.GraphExecMemcpyNodeSetParams(exec, node, u.bytes),
                                 XRT__GPU_CALL(GraphExecMemcpyNodeSetParams), op);
    return xrt__gpu_check_in(g, g->rt.GraphMemcpyNodeSetParams(node, u.bytes), XRT__GPU_CALL(GraphMemcpyNodeSetParams), op);
}

/* A list (XRT__GRAPH_LIST_*) with the dispatch layer's counts: *count in
   is the room in a (and b), out the number there is. The runtimes fill at
   most the room and then say how many they wrote, so they are asked the
   number first. An edge list is asked with its edges' annotations, in
   data (room for *count): without them, one that is not plain fails the
   whole list (cudaErrorLossyQuery); a count asks none (the runtime takes
   edge data only with the nodes). */
static xrt_status xrt__gpu_list_with(const xrt__gpu *g, int what, void *of, void **a, void **b,
                                     xrt__gpu_edge_data *data, size_t *count, const char *op)
{
    size_t room = a ? *count : 0, total = 0, k;
    const char *call = NULL;
    int e, pass;
    for (pass = 0; pass < 2; pass++) {
        void **x = pass ? a : NULL, **y = pass ? b : NULL;
        size_t *n = pass ? &k : &total;
        if (pass && !(room && total)) break;
        k = pass && total < room ? total : room; /* data has room for no more */
        if (what == XRT__GRAPH_LIST_NODES) {
            call = xrt__gpu_call_name(g, XRT__GPU_CALL(GraphGetNodes));
            e = g->rt.GraphGetNodes(of, x, n);
        } else if (what == XRT__GRAPH_LIST_ROOTS) {
            call = xrt__gpu_call_name(g, XRT__GPU_CALL(GraphGetRootNodes));
            e = g->rt.GraphGetRootNodes(of, x, n);
        } else {
            if (pass && data) memset(data, 0, k * sizeof *data);
            e = g->list_edges(g, what, of, x, y, pass ? data : NULL, n, &call);
        }
        if (e != g->success) return xrt__gpu_fail_as(g, e, call, op);
    }
    *count = total;
    return XRT_SUCCESS;
}

/* An annotation in words: "from_port 1, to_port 0, type 1: a programmatic
   dependency". */
static void xrt__gpu_edge_words(const xrt__gpu_edge_data *d, char *buf, size_t n)
{
    snprintf(buf, n, "from_port %u, to_port %u, type %u%s", d->from_port, d->to_port, d->type,
             d->type == 1 ? ": a programmatic dependency" : "");
}

static int xrt__gpu_edge_plain(const xrt__gpu_edge_data *d)
{
    static const xrt__gpu_edge_data plain = {0, 0, 0, {0}};
    return !memcmp(d, &plain, sizeof plain);
}

/* The refusal of a list that holds an annotated edge, edge i of what was
   written: xrt's lists give nodes only, and a plain edge in its place
   would tell of an order the graph does not have. */
static xrt_status xrt__gpu_edge_unsaid(const xrt__gpu *g, int what, void *of, void *const *a, void *const *b,
                                       const xrt__gpu_edge_data *data, size_t i, const char *op) XRT__COLD;
static xrt_status xrt__gpu_edge_unsaid(const xrt__gpu *g, int what, void *of, void *const *a, void *const *b,
                                       const xrt__gpu_edge_data *data, size_t i, const char *op)
{
    char who[80], words[96];
    void *from = what == XRT__GRAPH_LIST_DEPENDENTS ? of : a[i];
    void *to = what == XRT__GRAPH_LIST_EDGES ? b[i] : what == XRT__GRAPH_LIST_DEPS ? of : a[i];
    snprintf(who, sizeof who, "%s: xrt_%s", g->name, op);
    xrt__gpu_edge_words(&data[i], words, sizeof words);
    return xrt_error(XRT_ERROR_UNSUPPORTED, who,
                     "edge %zu (node %p -> node %p) has edge data (%s), which xrt's lists cannot express; ask "
                     "%sGraphGetEdges or %sGraphNodeGetDependencies with edge data",
                     i, from, to, words, g->name, g->name);
}

/* A list for the user: an edge that is not plain is refused
   (xrt__gpu_edge_unsaid), not passed off as plain. */
static xrt_status xrt__gpu_list(const xrt__gpu *g, int what, void *of, void **a, void **b, size_t *count, const char *op)
{
    xrt__gpu_edge_data few[16], *data = few;
    size_t room = a ? *count : 0, i;
    xrt_status st;
    if (what < XRT__GRAPH_LIST_EDGES || !room) return xrt__gpu_list_with(g, what, of, a, b, NULL, count, op);
    if (room > sizeof few / sizeof few[0] &&
        (room > SIZE_MAX / sizeof *data || !(data = (xrt__gpu_edge_data *)XRT_MALLOC(room * sizeof *data))))
        return xrt__gpu_no_memory(g, op, "the edges' data");
    st = xrt__gpu_list_with(g, what, of, a, b, data, count, op);
    room = room < *count ? room : *count;
    for (i = 0; st == XRT_SUCCESS && i < room && xrt__gpu_edge_plain(&data[i]); i++) {}
    if (st == XRT_SUCCESS && i < room) st = xrt__gpu_edge_unsaid(g, what, of, a, b, data, i, op);
    if (data != few) XRT_FREE(data);
    return st;
}

static xrt_status xrt__gpu_graph_get_nodes(const xrt_backend *self, void *graph, void **nodes, size_t *count)
{
    return xrt__gpu_list((const xrt__gpu *)self->user, XRT__GRAPH_LIST_NODES, graph, nodes, NULL, count, "graph_get_nodes");
}

static xrt_status xrt__gpu_graph_get_root_nodes(const xrt_backend *self, void *graph, void **nodes, size_t *count)
{
    return xrt__gpu_list((const xrt__gpu *)self->user, XRT__GRAPH_LIST_ROOTS, graph, nodes, NULL, count,
                         "graph_get_root_nodes");
}

static xrt_status xrt__gpu_graph_get_edges(const xrt_backend *self, void *graph, void **from, void **to, size_t *count)
{
    return xrt__gpu_list((const xrt__gpu *)self->user, XRT__GRAPH_LIST_EDGES, graph, from, to, count, "graph_get_edges");
}

static xrt_status xrt__gpu_graph_node_get_dependencies(const xrt_backend *self, void *graph, void *node, void **nodes,
                                                       size_t *count)
{
    (void)graph;
    return xrt__gpu_list((const xrt__gpu *)self->user, XRT__GRAPH_LIST_DEPS, node, nodes, NULL, count,
                         "graph_node_get_dependencies");
}

static xrt_status xrt__gpu_graph_node_get_dependent_nodes(const xrt_backend *self, void *graph, void *node,
                                                          void **nodes, size_t *count)
{
    (void)graph;
    return xrt__gpu_list((const xrt__gpu *)self->user, XRT__GRAPH_LIST_DEPENDENTS, node, nodes, NULL, count,
                         "graph_node_get_dependent_nodes");
}

/* Whether `to` can be reached from `from` along edges (from its dependents
   on): *found, or an error (recorded). */
static xrt_status xrt__gpu_reaches(const xrt__gpu *g, void *from, void *to, int *found, const char *op)
{
    void **seen = NULL, **next;
    size_t n = 0, cap = 0, at, k, i, j;
    xrt_status st = XRT_SUCCESS;
    *found = 0;
    if (!(seen = (void **)XRT_MALLOC((cap = 16) * sizeof *seen))) return xrt__gpu_no_memory(g, op, "a walk of the graph");
    seen[n++] = from;
    for (at = 0; at < n && !*found && st == XRT_SUCCESS; at++) {
        if ((st = xrt__gpu_list_all(g, XRT__GRAPH_LIST_DEPENDENTS, seen[at], &next, &k, NULL, op)) != XRT_SUCCESS) break;
        for (i = 0; i < k && !*found; i++) {
            if (next[i] == to) *found = 1;
            for (j = 0; j < n && seen[j] != next[i]; j++) {}
            if (j < n) continue;
            if (n == cap) {
                void **v = (void **)XRT_REALLOC(seen, 2 * cap * sizeof *seen);
                if (!v) {
                    st = xrt__gpu_no_memory(g, op, "a walk of the graph");
                    break;
                }
                seen = v, cap *= 2;
            }
            seen[n++] = next[i];
        }
        XRT_FREE(next);
    }
    XRT_FREE(seen);
    return st;
}

/* A removal of an annotated edge: xrt removes plain edges only (the
   runtime's removal names an edge with its data). */
static xrt_status xrt__gpu_edge_kept(const xrt__gpu *g, void *f, void *t, const xrt__gpu_edge_data *d, const char *op)
    XRT__COLD;
static xrt_status xrt__gpu_edge_kept(const xrt__gpu *g, void *f, void *t, const xrt__gpu_edge_data *d, const char *op)
{
    char who[80], words[96];
    snprintf(who, sizeof who, "%s: xrt_%s", g->name, op);
    xrt__gpu_edge_words(d, words, sizeof words);
    return xrt_error(XRT_ERROR_UNSUPPORTED, who,
                     "the edge node %p -> node %p has edge data (%s), which xrt does not name; remove it with "
                     "%sGraphRemoveDependencies and that edge data",
                     f, t, words, g->name);
}

/* Why edge f -> t cannot be added or removed now (NULL if it can), or an
   error in *st. */
static const char *xrt__gpu_edge_refused(const xrt__gpu *g, void *f, void *t, int remove, xrt_status *st, const char *op)
{
    const xrt__gpu_edge_data *data = NULL;
    void **deps = NULL;
    size_t n = 0, i;
    int there, cycle = 0;
    *st = XRT_SUCCESS;
    if (f == t) return "an edge from a node to itself";
    if ((*st = xrt__gpu_list_all(g, XRT__GRAPH_LIST_DEPS, t, &deps, &n, &data, op)) != XRT_SUCCESS) return NULL;
    for (i = 0; i < n && deps[i] != f; i++) {}
    there = i < n;
    if (remove && there && !xrt__gpu_edge_plain(&data[i])) *st = xrt__gpu_edge_kept(g, f, t, &data[i], op);
    XRT_FREE(deps); /* data too */
    if (*st != XRT_SUCCESS) return NULL;
    if (remove) return there ? NULL : "there is no such edge";
    if (there) return "the edge is there already";
    if ((*st = xrt__gpu_reaches(g, t, f, &cycle, op)) != XRT_SUCCESS) return NULL;
    return cycle ? "it would close a cycle (the first node follows the second)" : NULL;
}

/* One pair at a time, each checked first; a refused one undoes the pairs
   before it, so the graph is as it was. */
static xrt_status xrt__gpu_edit(const xrt__gpu *g, void *graph, void *const *from, void *const *to, size_t n, int remove)
{
    const char *op = remove ? "graph_remove_dependencies" : "graph_add_dependencies", *why = NULL, *call = NULL;
    xrt_status st = XRT_SUCCESS;
    size_t i, j;
    int e;
    for (i = 0; i < n && st == XRT_SUCCESS && !why; i++) {
        why = xrt__gpu_edge_refused(g, from[i], to[i], remove, &st, op);
        if (!why && st == XRT_SUCCESS && (e = g->edit_edges(g, graph, &from[i], &to[i], 1, remove, &call)) != g->success)
            st = xrt__gpu_fail_as(g, e, call, op);
    }
    if (why || st != XRT_SUCCESS) /* undo the pairs before the one that failed */
        for (j = i - 1; j-- > 0;) (void)g->edit_edges(g, graph, &from[j], &to[j], 1, !remove, &call);
    if (!why) return st;
    return xrt__gpu_node_refused(g, op, "pair %zu (node %p -> node %p): %s%s", i - 1, from[i - 1], to[i - 1], why,
                                 i > 1 ? "; the pairs before it are undone" : "");
}

static xrt_status xrt__gpu_graph_add_dependencies(const xrt_backend *self, void *graph, void *const *from,
                                                  void *const *to, size_t n)
{
    return xrt__gpu_edit((const xrt__gpu *)self->user, graph, from, to, n, 0);
}

static xrt_status xrt__gpu_graph_remove_dependencies(const xrt_backend *self, void *graph, void *const *from,
                                                     void *const *to, size_t n)
{
    return xrt__gpu_edit((const xrt__gpu *)self->user, graph, from, to, n, 1);
}

/* A child node's graph goes with it, and the records of its kernel nodes. */
static xrt_status xrt__gpu_graph_destroy_node(const xrt_backend *self, void *graph, void *node)
{
    static const char op[] = "graph_destroy_node";
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    void *child = NULL;
    int type = -1;
    xrt_status st;
    (void)graph;
    if (__atomic_load_n(&xrt__gpu_knodes, __ATOMIC_ACQUIRE) && (st = xrt__gpu_node_type_of(g, node, &type, op)) != XRT_SUCCESS)
        return st;
    if (type == XRT_GRAPH_NODE_GRAPH && g->rt.GraphChildGraphNodeGetGraph &&
        g->rt.GraphChildGraphNodeGetGraph(node, &child) == g->success)
        xrt__gpu_knodes_forget(g, child);
    if ((st = xrt__gpu_check_in(g, g->rt.GraphDestroyNode(node), XRT__GPU_CALL(GraphDestroyNode), op)) != XRT_SUCCESS)
        return st;
    if (type == XRT_GRAPH_NODE_KERNEL) xrt__gpu_knodes_drop(g, NULL, node);
    return XRT_SUCCESS;
}

/* The clone's kernel nodes get the records of the original's. */
static xrt_status xrt__gpu_graph_clone(const xrt_backend *self, void **clone, void *graph)
{
    static const char op[] = "graph_clone";
    xrt__gpu *g = (xrt__gpu *)self->user;
    xrt__gpu_knode *k, *copies = NULL;
    void *made = NULL, *node;
    xrt_status st;
    XRT__GPU_NEED(g, GraphClone, op);
    XRT__GPU_NEED(g, GraphNodeFindInClone, op);
    if ((st = xrt__gpu_check_in(g, g->rt.GraphClone(&made, graph), XRT__GPU_CALL(GraphClone), op)) != XRT_SUCCESS) return st;
    pthread_mutex_lock(&xrt__gpu_knode_lock);
    for (k = xrt__gpu_knodes; k && st == XRT_SUCCESS; k = k->next) {
        xrt__gpu_knode *c;
        if (k->g != g || k->graph != graph || g->rt.GraphNodeFindInClone(&node, k->node, made) != g->success) continue;
        if (!(c = (xrt__gpu_knode *)XRT_MALLOC(sizeof *c + k->args_size + 1))) {
            st = xrt__gpu_no_memory(g, op, "the records of the clone's kernel nodes");
            break;
        }
        *c = *k;
        c->graph = made, c->node = node, c->args = c + 1;
        memcpy(c->args, k->args, k->args_size);
        c->next = copies;
        copies = c;
    }
    while (copies) { /* kept, or freed on failure */
        k = copies;
        copies = k->next;
        if (st == XRT_SUCCESS) k->next = xrt__gpu_knodes, xrt__gpu_knodes = k;
        else XRT_FREE(k);
    }
    pthread_mutex_unlock(&xrt__gpu_knode_lock);
    if (st != XRT_SUCCESS) {
        (void)g->rt.GraphDestroy(made);
        return st;
    }
    *clone = made;
    xrt__gpu_graphs_add(g, 1);
    return XRT_SUCCESS;
}

/* The runtimes answer "invalid value" for a graph that is not a clone of
   the node's, a node added after the clone and a copy destroyed since alike. */
static xrt_status xrt__gpu_graph_node_find_in_clone(const xrt_backend *self, void **node, void *graph, void *original,
                                                    void *clone)
{
    static const char op[] = "graph_node_find_in_clone";
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    void *found = NULL;
    int e;
    (void)graph;
    XRT__GPU_NEED(g, GraphNodeFindInClone, op);
    if ((e = g->rt.GraphNodeFindInClone(&found, original, clone)) == g->success) {
        *node = found;
        return XRT_SUCCESS;
    }
    if (xrt__gpu_status(g, e) != XRT_ERROR_INVALID_VALUE) return xrt__gpu_fail_in(g, e, XRT__GPU_CALL(GraphNodeFindInClone), op);
    (void)g->rt.GetLastError();
    return xrt__gpu_node_refused(g, op, "the graph given is not a clone of the node's graph, the node was added to "
                                        "its graph after the clone was made, or the node's copy was destroyed in it "
                                        "(%s: %s)",
                                 xrt__gpu_call_name(g, XRT__GPU_CALL(GraphNodeFindInClone)), g->rt.GetErrorName(e));
}


/* >> gpu: memory pools: the runtime's own (cudaMemPool*, CUDA 11.2;
   hipMemPool*, HIP 5.2). A pool handle's object is the runtime's pool;
   xrt's attribute numbers are the runtimes' (checked where each vendor is
   compiled), the reuse policies passed as int, the rest as 64 bits. A pool
   made here holds pinned memory of props->device; the leading fields of
   cudaMemPoolProps and hipMemPoolProps are these, the rest zero. */
typedef struct xrt__gpu_pool_props {
    int alloc_type, handle_types, location_type, location_id;
    unsigned char rest[112];
} xrt__gpu_pool_props;
#define XRT__GPU_POOL_PINNED 1 /* cudaMemAllocationTypePinned, hipMemAllocationTypePinned */
#define XRT__GPU_LOCATION_DEVICE 1 /* cudaMemLocationTypeDevice, hipMemLocationTypeDevice */
/* cudaMemAccessDesc and hipMemAccessDesc (a location, then the flags) */
typedef struct xrt__gpu_access_desc {
    int location_type, location_id, flags;
} xrt__gpu_access_desc;
#define XRT__GPU_POOL_CALL(g, field) \
    if (!(g)->rt.field) return xrt__gpu_rect_lack((g), XRT__GPU_CALL(field), __func__ + sizeof "xrt__gpu_" - 1)

static xrt_status xrt__gpu_device_get_default_mem_pool(const xrt_backend *self, void **pool, int device)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    XRT__GPU_POOL_CALL(g, DeviceGetDefaultMemPool);
    return XRT__GPU_CHECK(g, g->rt.DeviceGetDefaultMemPool(pool, device), XRT__GPU_CALL(DeviceGetDefaultMemPool));
}

static xrt_status xrt__gpu_device_get_mem_pool(const xrt_backend *self, void **pool, int device)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    XRT__GPU_POOL_CALL(g, DeviceGetMemPool);
    return XRT__GPU_CHECK(g, g->rt.DeviceGetMemPool(pool, device), XRT__GPU_CALL(DeviceGetMemPool));
}

static xrt_status xrt__gpu_device_set_mem_pool(const xrt_backend *self, int device, void *pool)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    XRT__GPU_POOL_CALL(g, DeviceSetMemPool);
    return XRT__GPU_CHECK(g, g->rt.DeviceSetMemPool(device, pool), XRT__GPU_CALL(DeviceSetMemPool));
}

static xrt_status xrt__gpu_mem_pool_create(const xrt_backend *self, void **pool, const xrt_mem_pool_props *props)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    xrt__gpu_pool_props p;
    XRT__GPU_POOL_CALL(g, MemPoolCreate);
    memset(&p, 0, sizeof p);
    p.alloc_type = XRT__GPU_POOL_PINNED;
    p.location_type = XRT__GPU_LOCATION_DEVICE;
    p.location_id = props->device;
    return XRT__GPU_CHECK(g, g->rt.MemPoolCreate(pool, &p), XRT__GPU_CALL(MemPoolCreate));
}

static xrt_status xrt__gpu_mem_pool_destroy(const xrt_backend *self, void *pool)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    XRT__GPU_POOL_CALL(g, MemPoolDestroy);
    return XRT__GPU_CHECK(g, g->rt.MemPoolDestroy(pool), XRT__GPU_CALL(MemPoolDestroy));
}

static xrt_status xrt__gpu_mem_pool_set_attribute(const xrt_backend *self, void *pool, int attr, uint64_t value)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    int i = (int)value;
    XRT__GPU_POOL_CALL(g, MemPoolSetAttribute);
    return XRT__GPU_CHECK(g, g->rt.MemPoolSetAttribute(pool, attr, xrt__pool_attr_is_int(attr) ? (void *)&i : (void *)&value),
                          XRT__GPU_CALL(MemPoolSetAttribute));
}

static xrt_status xrt__gpu_mem_pool_get_attribute(const xrt_backend *self, void *pool, int attr, uint64_t *value)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    int is_int = xrt__pool_attr_is_int(attr), i = 0;
    xrt_status st;
    XRT__GPU_POOL_CALL(g, MemPoolGetAttribute);
    st = XRT__GPU_CHECK(g, g->rt.MemPoolGetAttribute(pool, attr, is_int ? (void *)&i : (void *)value),
                        XRT__GPU_CALL(MemPoolGetAttribute));
    if (st == XRT_SUCCESS && is_int) *value = (uint64_t)i;
    return st;
}

static xrt_status xrt__gpu_mem_pool_trim_to(const xrt_backend *self, void *pool, size_t keep)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    XRT__GPU_POOL_CALL(g, MemPoolTrimTo);
    return XRT__GPU_CHECK(g, g->rt.MemPoolTrimTo(pool, keep), XRT__GPU_CALL(MemPoolTrimTo));
}

/* Pool access: the runtime's own checks (the owner's access, a peer that
   cannot reach the pool's device), on the vendor's descriptors. */
static xrt_status xrt__gpu_mem_pool_set_access(const xrt_backend *self, void *pool, const xrt_mem_access_desc *descs,
                                               size_t count)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    xrt__gpu_access_desc *d = NULL;
    xrt_status st;
    size_t i;
    XRT__GPU_POOL_CALL(g, MemPoolSetAccess);
    if (count && !(d = (xrt__gpu_access_desc *)XRT_CALLOC(count, sizeof *d)))
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "xrt_mem_pool_set_access", "no memory for %zu descriptors", count);
    for (i = 0; i < count; i++) {
        d[i].location_type = XRT__GPU_LOCATION_DEVICE;
        d[i].location_id = descs[i].device;
        d[i].flags = (int)descs[i].flags;
    }
    st = XRT__GPU_CHECK(g, g->rt.MemPoolSetAccess(pool, d, count), XRT__GPU_CALL(MemPoolSetAccess));
    XRT_FREE(d);
    return st;
}

static xrt_status xrt__gpu_mem_pool_get_access(const xrt_backend *self, unsigned *flags, void *pool, int device)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    int location[2] = {XRT__GPU_LOCATION_DEVICE, device}, f = 0; /* cudaMemLocation, hipMemLocation: type, id */
    xrt_status st;
    XRT__GPU_POOL_CALL(g, MemPoolGetAccess);
    st = XRT__GPU_CHECK(g, g->rt.MemPoolGetAccess(&f, pool, location), XRT__GPU_CALL(MemPoolGetAccess));
    if (st == XRT_SUCCESS) *flags = (unsigned)f;
    return st;
}

static xrt_status xrt__gpu_malloc_from_pool_async(const xrt_backend *self, void **ptr, size_t size, void *pool,
                                                  void *stream)
{
    const xrt__gpu *g = (const xrt__gpu *)self->user;
    xrt_status st;
    XRT__GPU_POOL_CALL(g, MallocFromPoolAsync);
    st = XRT__GPU_CHECK(g, g->rt.MallocFromPoolAsync(ptr, size, pool, stream), XRT__GPU_CALL(MallocFromPoolAsync));
    if (st != XRT_SUCCESS) *ptr = NULL;
    return st;
}
#undef XRT__GPU_POOL_CALL

/* >> gpu: the table */
/* Filled from the operation list: a new operation without its
   xrt__gpu_<name> fails to compile here ("xrt__gpu_<name> undeclared"). */
static void xrt__gpu_fill(xrt_backend *t, xrt__gpu *g)
{
    t->name = g->name;
    t->user = g;
    t->flags = 0; /* not fork-safe; host functions may make no xrt call (the runtimes forbid it) */
    t->init = xrt__gpu_init;
    t->shutdown = xrt__gpu_shutdown;
#define XRT__GPU_OP(op, params, args) t->op = xrt__gpu_##op;
    XRT__BACKEND_OPS(XRT__GPU_OP)
#undef XRT__GPU_OP
}

#ifdef __cplusplus
}
#endif

#endif /* XRT__GPU_IMPL_INCLUDED */

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
