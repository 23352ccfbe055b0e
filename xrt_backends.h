/* SPDX-License-Identifier: MIT */
/* xrt_backends.h - the backend ABI: what a backend is and may call.

   A backend is one xrt_backend struct: its name, the ABI version it was built
   against, a `user` pointer for its own data, an init/shutdown pair and one
   function pointer per operation. Every operation takes the backend's table
   first (`self`) and works on the backend's own objects: the dispatch layer
   in xrt.h turns xrt handles into stream/event objects (NULL = the default
   stream), checks arguments and keeps the pointer registry, so a backend
   never sees an invalid handle, a NULL out-pointer or a pointer it did not
   allocate.

   Built-in backends fill every slot from the operation list, by name:
   xrt__cpu_<name>, xrt__gpu_<name> (see xrt__cpu_fill in xrt_cpu.h). A backend registered at run time (xrt_register_backend) may
   leave slots NULL: they are filled with functions that return
   XRT_ERROR_UNSUPPORTED, so no call site tests for NULL. A table built
   against an older ABI minor (smaller `size`) is accepted; its missing tail
   is filled the same way. A `size` that ends inside an operation's slot is
   no table of any minor: XRT_ERROR_ABI_MISMATCH. Errors are recorded with xrt_error(); native
   failures with xrt_native_error().

       static xrt_status my_init(const xrt_backend *self, char *reason, size_t n)
       { (void)self; (void)reason; (void)n; return XRT_SUCCESS; }
       xrt_backend my;
       memset(&my, 0, sizeof my);
       my.abi_version = XRT_BACKEND_ABI_VERSION; my.size = sizeof my;
       my.name = "mine"; my.init = my_init; my.malloc = my_malloc; ...
       xrt_register_backend(&my);  xrt_set_backend("mine");

   Adding an operation: every place, and what catches a place left out
   ("compile": the build fails naming it; "test": the named test or make
   test step fails naming the operation and the file; the messages are
   GCC's, and clang's for the fuzzer). Eight files, nine edits; a new GPU
   runtime entry point adds two edits and a file (4).
     1. xrt_backends.h: append X(name, (const xrt_backend *self, int a,
        ...), (self, a, ...)) to XRT__BACKEND_OPS below: the parameters, then
        their names (append only: the order is the ABI). The registry's stubs
        (unsupported, none, forbidden) and the tracing plugin's forwarder
        follow by themselves. compile (make examples): a name that is no
        parameter; test: test_operation_arguments_name_the_parameters
        (tests/test_registry.c), names in another order.
     2. xrt.h: declare the public call xrt_<name> in the ">> api" list and
        write its body under ">> dispatch": argument checks and handle
        lookups there, never in a backend; a call that waits for queued work
        starts with XRT__CHECK_MAY_WAIT. compile (tests/test_suite.c,
        public_calls): "'xrt_<name>' undeclared here (not in a function)",
        or without the body "'xrt_<name>' used but never defined".
     3. CPU (xrt_cpu.h): write xrt__cpu_<name>, or, where the CPU cannot do
        it, #define xrt__cpu_<name> xrt__unsupported_<name> above
        xrt__cpu_fill. compile: "'xrt__cpu_<name>' undeclared (first use in
        this function)".
     4. CUDA and HIP (xrt_gpu.h): write xrt__gpu_<name> (or #define it as
        xrt__unsupported_<name>). compile: "'xrt__gpu_<name>' undeclared
        (first use in this function)". A runtime entry point it needs is one
        row of XRT__GPU_RT_FIELDS (xrt_gpu.h): the field, the CUDA and the HIP
        symbol, in neutral types. compile: "'xrt__gpu_rt' has no member named
        '<Field>'"; both vendor headers are checked against the row: "comparison
        of distinct pointer types lacks a cast". The benchmarks' stub runtime
        answers a new entry point "not supported" by itself; the tests' CUDA
        runtime double (tests/doubles/cudart_double.c) needs a definition when
        the suite's test uses it on cuda. test: the suite with cuda as the
        default, on the double (make test), fails naming the call:
        "xrt_<name>: cuda: cuda<Entry>: operation not supported (not in the
        test double) (cudaErrorNotSupported=801)".
     5. The tracing plugin (tools/trace.c): nothing to do. Its
        generated forwarder logs the call with its arguments as passed
        (numbers, strings, pointers as addresses) and puts it on the
        timeline. Optional: to print what the call wrote (an out-value) or to
        keep state for the timeline (a stream's track), write trace_<name>
        and name it in TRACE_OWN there. compile: a trace_<name> left out of
        TRACE_OWN is "defined but not used".
     6. The calls made with live objects (tests/xrt_test.h): rows of
        XRT_TEST_CALLS, X(id, what, waits, status, call) on the objects of
        xrt_test_calls (grow it for a new out-value): the call as a user
        makes it, and its misuse, such as a NULL out-value. `status` is what
        the call returns from inside a CPU host function: a call that waits,
        XRT_ERROR_NOT_PERMITTED; else its own answer. Each row runs from
        inside a host function on every backend (tests/test_host_fn.c), is
        refused first on a refusing backend from a host function and in a
        forked child (tests/test_fork.c), and a row with an argument error is
        a bad input on every backend (tests/test_badinput.c). test:
        test_every_operation_has_a_case (tests/test_host_fn.c), "operation
        xrt_<name> has no row in XRT_TEST_CALLS of tests/xrt_test.h".
     7. Bad input: a row of XRT_TEST_CALLS with a bad argument (6), or rows
        of BAD_ROWS (tests/test_badinput.c) for misuse that needs other
        objects (stale, foreign handles), or an entry in no_bad_input there
        saying why there is none. test: test_every_operation_has_a_row
        (tests/test_badinput.c), "operation xrt_<name> has no row in BAD_ROWS
        of tests/test_badinput.c, nor a row with a bad argument in
        XRT_TEST_CALLS of tests/xrt_test.h".
     8. The fuzzer's model (tests/fuzz/fuzz_api.c): a row of FUZZ_OPERATIONS,
        modelled or left out with the reason. compile (make fuzz-build):
        "use of undeclared identifier 'fuzz_row_<name>'".
     9. A test in tests/test_suite.c (a function listed in main's array)
        that calls it successfully on every backend
        (where the CPU backend lacks it: its "not supported"). test: make
        test's step "every operation is called by the suite"
        (tests/operations.sh suite reads the suite's trace on the CPU),
        "operation <name>: tests/test_suite.c never calls it with the answer
        \"success\" on the CPU backend".
    10. A row of the README's table "What each backend supports" (under
        "## API"): xrt_<name> in the first column, its CUDA / HIP
        counterpart, what cpu, cuda and hip do, notes. test: make test's
        step "every operation has its row in the README" (tests/operations.sh
        readme), "operation <name>: its call xrt_<name> has no row in the
        table \"What each backend supports\" (under \"## API\") of
        README.md".
*/
#ifndef XRT_BACKENDS_H_INCLUDED
#define XRT_BACKENDS_H_INCLUDED

#ifdef __cplusplus
extern "C" {
#endif

#define XRT_BACKEND_ABI_VERSION 2u
#define XRT_MAX_BACKENDS 16

typedef struct xrt_backend xrt_backend;

enum { /* xrt_backend.flags */
    XRT_BACKEND_FORK_SAFE = 1u << 0,   /* usable in a child process after fork() */
    XRT_BACKEND_HOST_FN_CALLS = 1u << 1, /* host functions may make xrt calls that do not wait */
    /* What its memory is, for modules that hand memory to other devices (xrt_rdma.h): */
    XRT_BACKEND_HOST_MEMORY = 1u << 2,   /* its device memory is ordinary host memory */
    XRT_BACKEND_NVIDIA_MEMORY = 1u << 3, /* its device memory is NVIDIA GPU memory (nvidia_peermem serves it) */
    XRT_BACKEND_AMD_MEMORY = 1u << 4     /* its device memory is AMD GPU memory (amdkfd's peer-memory client) */
};

/* X(name, parameters, arguments): every operation of a backend. Each takes
   the backend's own table first (`self`, the registry's copy: `self->user`
   reaches the backend's data). Stream and event parameters are the backend's
   own objects. `arguments` names the parameters, in order, so that generated
   code can pass a call on (`other->name arguments`, with `self` bound to the
   other table). Append only: the order is the ABI. */
#define XRT__BACKEND_OPS(X)                                                                                        \
    X(get_capabilities, (const xrt_backend *self, unsigned *caps), (self, caps))                                   \
    X(get_device_count, (const xrt_backend *self, int *count), (self, count))                                      \
    X(set_device, (const xrt_backend *self, int device), (self, device))                                           \
    X(get_device, (const xrt_backend *self, int *device), (self, device))                                          \
    X(device_synchronize, (const xrt_backend *self), (self))                                                       \
    X(get_device_properties, (const xrt_backend *self, xrt_device_prop *prop, int device), (self, prop, device))   \
    X(malloc, (const xrt_backend *self, void **ptr, size_t size), (self, ptr, size))                               \
    X(free, (const xrt_backend *self, void *ptr), (self, ptr))                                                     \
    X(malloc_host, (const xrt_backend *self, void **ptr, size_t size), (self, ptr, size))                          \
    X(free_host, (const xrt_backend *self, void *ptr), (self, ptr))                                                \
    X(malloc_async, (const xrt_backend *self, void **ptr, size_t size, void *stream), (self, ptr, size, stream))   \
    X(free_async, (const xrt_backend *self, void *ptr, void *stream), (self, ptr, stream))                         \
    X(mem_get_info, (const xrt_backend *self, size_t *free_bytes, size_t *total_bytes),                            \
      (self, free_bytes, total_bytes))                                                                             \
    X(memset, (const xrt_backend *self, void *dst, int value, size_t size), (self, dst, value, size))              \
    X(memset_async, (const xrt_backend *self, void *dst, int value, size_t size, void *stream),                    \
      (self, dst, value, size, stream))                                                                            \
    X(memcpy, (const xrt_backend *self, void *dst, const void *src, size_t size, xrt_memcpy_kind kind),            \
      (self, dst, src, size, kind))                                                                                \
    X(memcpy_async, (const xrt_backend *self, void *dst, const void *src, size_t size, xrt_memcpy_kind kind,       \
                     void *stream),                                                                                \
      (self, dst, src, size, kind, stream))                                                                        \
    X(pointer_get_attributes, (const xrt_backend *self, xrt_pointer_attributes *attr, const void *ptr),            \
      (self, attr, ptr))                                                                                           \
    X(stream_create, (const xrt_backend *self, void **stream), (self, stream))                                     \
    X(stream_destroy, (const xrt_backend *self, void *stream), (self, stream))                                     \
    X(stream_synchronize, (const xrt_backend *self, void *stream), (self, stream))                                 \
    X(stream_query, (const xrt_backend *self, void *stream), (self, stream))                                       \
    X(stream_wait_event, (const xrt_backend *self, void *stream, void *event), (self, stream, event))              \
    X(launch_host_func, (const xrt_backend *self, void *stream, xrt_host_fn fn, void *user),                       \
      (self, stream, fn, user))                                                                                    \
    X(event_create, (const xrt_backend *self, void **event, unsigned flags), (self, event, flags))                 \
    X(event_destroy, (const xrt_backend *self, void *event), (self, event))                                        \
    X(event_record, (const xrt_backend *self, void *event, void *stream), (self, event, stream))                   \
    X(event_query, (const xrt_backend *self, void *event), (self, event))                                          \
    X(event_synchronize, (const xrt_backend *self, void *event), (self, event))                                    \
    X(event_elapsed_time, (const xrt_backend *self, float *ms, void *start, void *end), (self, ms, start, end))    \
    X(stream_get_native, (const xrt_backend *self, void *stream, void **native), (self, stream, native))           \
    X(event_get_native, (const xrt_backend *self, void *event, void **native), (self, event, native))              \
    X(stream_wrap_native, (const xrt_backend *self, void *native, void **stream), (self, native, stream))          \
    X(mem_export_dmabuf, (const xrt_backend *self, const void *ptr, size_t size, int *fd, uint64_t *offset),       \
      (self, ptr, size, fd, offset))                                                                               \
    X(get_target, (const xrt_backend *self, int device, xrt_target *target), (self, device, target))               \
    X(module_load, (const xrt_backend *self, void **module, const xrt_module_image *images, size_t n_images,       \
                    const char *options, char *log, size_t log_size),                                              \
      (self, module, images, n_images, options, log, log_size))                                                    \
    X(module_unload, (const xrt_backend *self, void *module), (self, module))                                      \
    X(module_get_function, (const xrt_backend *self, void **function, void *module, const char *name),             \
      (self, function, module, name))                                                                              \
    X(launch_kernel, (const xrt_backend *self, void *function, xrt_dim3 grid, xrt_dim3 block, size_t shared_bytes, \
                      void *stream, const void *args, size_t args_size),                                           \
      (self, function, grid, block, shared_bytes, stream, args, args_size))                                        \
    X(function_get_attributes, (const xrt_backend *self, xrt_function_attributes *attr, void *function),           \
      (self, attr, function))                                                                                      \
    X(stream_begin_capture, (const xrt_backend *self, void *stream, unsigned mode), (self, stream, mode))          \
    X(stream_end_capture, (const xrt_backend *self, void *stream, void **graph), (self, stream, graph))            \
    X(stream_is_capturing, (const xrt_backend *self, void *stream, unsigned *status), (self, stream, status))      \
    X(graph_instantiate, (const xrt_backend *self, void **exec, void *graph), (self, exec, graph))                 \
    X(graph_launch, (const xrt_backend *self, void *exec, void *stream), (self, exec, stream))                     \
    X(graph_exec_update, (const xrt_backend *self, void *exec, void *graph), (self, exec, graph))                  \
    X(graph_exec_destroy, (const xrt_backend *self, void *exec), (self, exec))                                     \
    X(graph_destroy, (const xrt_backend *self, void *graph), (self, graph))                                        \
    X(graph_get_info, (const xrt_backend *self, void *graph, xrt_graph_info *info), (self, graph, info))            \
    X(ipc_get_mem_handle, (const xrt_backend *self, xrt_ipc_mem_handle *handle, void *base, size_t size),           \
      (self, handle, base, size))                                                                                  \
    X(ipc_open_mem_handle, (const xrt_backend *self, void **ptr, size_t *size, const xrt_ipc_mem_handle *handle,    \
                            unsigned flags),                                                                       \
      (self, ptr, size, handle, flags))                                                                            \
    X(ipc_close_mem_handle, (const xrt_backend *self, void *ptr), (self, ptr))                                     \
    X(ipc_get_event_handle, (const xrt_backend *self, xrt_ipc_event_handle *handle, void *event),                  \
      (self, handle, event))                                                                                       \
    X(ipc_open_event_handle, (const xrt_backend *self, void **event, const xrt_ipc_event_handle *handle),          \
      (self, event, handle))                                                                                        \
    X(device_can_access_peer, (const xrt_backend *self, int *can, int device, int peer), (self, can, device, peer)) \
    X(device_enable_peer_access, (const xrt_backend *self, int peer, unsigned flags), (self, peer, flags))          \
    X(device_disable_peer_access, (const xrt_backend *self, int peer), (self, peer))                               \
    X(memcpy_peer, (const xrt_backend *self, void *dst, int dst_device, const void *src, int src_device, size_t size), \
      (self, dst, dst_device, src, src_device, size))                                                              \
    X(memcpy_peer_async, (const xrt_backend *self, void *dst, int dst_device, const void *src, int src_device,      \
                          size_t size, void *stream), (self, dst, dst_device, src, src_device, size, stream))    \
    X(graph_debug_dot_print, (const xrt_backend *self, void *graph, const char *path, unsigned flags),              \
      (self, graph, path, flags))                                                                                  \
    X(stream_create_with_priority, (const xrt_backend *self, void **stream, unsigned flags, int priority),         \
      (self, stream, flags, priority))                                                                             \
    X(stream_get_flags, (const xrt_backend *self, void *stream, unsigned *flags), (self, stream, flags))           \
    X(stream_get_priority, (const xrt_backend *self, void *stream, int *priority), (self, stream, priority))       \
    X(device_get_stream_priority_range, (const xrt_backend *self, int *least, int *greatest),                      \
      (self, least, greatest))                                                                                     \
    X(stream_per_thread, (const xrt_backend *self, void **stream), (self, stream))                                 \
    X(thread_exchange_stream_capture_mode, (const xrt_backend *self, unsigned *mode), (self, mode))                \
    X(graph_create, (const xrt_backend *self, void **graph), (self, graph))                                        \
    X(graph_add_node, (const xrt_backend *self, void *graph, void **node, void *const *deps, size_t ndeps,         \
                       xrt_graph_node_params *params),                                                             \
      (self, graph, node, deps, ndeps, params))                                                                    \
    X(graph_node_get_params, (const xrt_backend *self, void *graph, void *node, xrt_graph_node_params *params),    \
      (self, graph, node, params))                                                                                 \
    X(graph_node_set_params, (const xrt_backend *self, void *graph, void *node,                                    \
                              const xrt_graph_node_params *params),                                                \
      (self, graph, node, params))                                                                                 \
    X(graph_exec_node_set_params, (const xrt_backend *self, void *exec, void *graph, void *node,                   \
                                   const xrt_graph_node_params *params),                                           \
      (self, exec, graph, node, params))                                                                           \
    X(graph_add_dependencies, (const xrt_backend *self, void *graph, void *const *from, void *const *to, size_t n), \
      (self, graph, from, to, n))                                                                                  \
    X(graph_remove_dependencies, (const xrt_backend *self, void *graph, void *const *from, void *const *to,        \
                                  size_t n),                                                                       \
      (self, graph, from, to, n))                                                                                  \
    X(graph_get_nodes, (const xrt_backend *self, void *graph, void **nodes, size_t *count),                        \
      (self, graph, nodes, count))                                                                                 \
    X(graph_get_root_nodes, (const xrt_backend *self, void *graph, void **nodes, size_t *count),                   \
      (self, graph, nodes, count))                                                                                 \
    X(graph_get_edges, (const xrt_backend *self, void *graph, void **from, void **to, size_t *count),              \
      (self, graph, from, to, count))                                                                              \
    X(graph_node_get_dependencies, (const xrt_backend *self, void *graph, void *node, void **nodes, size_t *count), \
      (self, graph, node, nodes, count))                                                                           \
    X(graph_node_get_dependent_nodes, (const xrt_backend *self, void *graph, void *node, void **nodes,             \
                                       size_t *count),                                                             \
      (self, graph, node, nodes, count))                                                                           \
    X(graph_destroy_node, (const xrt_backend *self, void *graph, void *node), (self, graph, node))                 \
    X(graph_clone, (const xrt_backend *self, void **clone, void *graph), (self, clone, graph))                     \
    X(graph_node_find_in_clone, (const xrt_backend *self, void **node, void *graph, void *original, void *clone),  \
      (self, node, graph, original, clone))                                                                        \
    X(graph_exec_update_with_result, (const xrt_backend *self, void *exec, void *graph,                            \
                                      xrt_graph_exec_update_result *result),                                       \
      (self, exec, graph, result))                                                                                 \
    X(stream_begin_capture_to_graph, (const xrt_backend *self, void *stream, void *graph, void *const *deps,       \
                                      size_t ndeps, unsigned mode),                                                \
      (self, stream, graph, deps, ndeps, mode))                                                                  \
    X(device_get_attribute, (const xrt_backend *self, int *value, int attr, int device), (self, value, attr, device)) \
    X(module_get_global, (const xrt_backend *self, void **ptr, size_t *size, void *module, const char *name),       \
      (self, ptr, size, module, name))                                                                             \
    X(function_set_attribute, (const xrt_backend *self, void *function, int attr, int value),                      \
      (self, function, attr, value))                                                                               \
    X(occupancy_max_active_blocks_per_multiprocessor, (const xrt_backend *self, int *blocks, void *function,       \
                                                       int block_size, size_t dynamic_shared),                     \
      (self, blocks, function, block_size, dynamic_shared))                                                        \
    X(occupancy_max_potential_block_size, (const xrt_backend *self, int *min_grid, int *block, void *function,     \
                                           size_t dynamic_shared, int block_limit),                                \
      (self, min_grid, block, function, dynamic_shared, block_limit))                                              \
    X(memcpy_2d, (const xrt_backend *self, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,  \
                  size_t height, xrt_memcpy_kind kind),                                                            \
      (self, dst, dpitch, src, spitch, width, height, kind))                                                       \
    X(memcpy_2d_async, (const xrt_backend *self, void *dst, size_t dpitch, const void *src, size_t spitch,         \
                        size_t width, size_t height, xrt_memcpy_kind kind, void *stream),                          \
      (self, dst, dpitch, src, spitch, width, height, kind, stream))                                               \
    X(memset_2d, (const xrt_backend *self, void *dst, size_t pitch, unsigned value, unsigned element_size,         \
                  size_t width, size_t height),                                                                    \
      (self, dst, pitch, value, element_size, width, height))                                                      \
    X(memset_2d_async, (const xrt_backend *self, void *dst, size_t pitch, unsigned value, unsigned element_size,   \
                        size_t width, size_t height, void *stream),                                                \
      (self, dst, pitch, value, element_size, width, height, stream))                                              \
    X(memcpy_3d, (const xrt_backend *self, const xrt_memcpy_3d_parms *p), (self, p))                               \
    X(memcpy_3d_async, (const xrt_backend *self, const xrt_memcpy_3d_parms *p, void *stream), (self, p, stream))   \
    X(memset_3d, (const xrt_backend *self, const xrt_pitched_ptr *dst, unsigned value, const xrt_extent *extent),  \
      (self, dst, value, extent))                                                                                  \
    X(memset_3d_async, (const xrt_backend *self, const xrt_pitched_ptr *dst, unsigned value,                       \
                        const xrt_extent *extent, void *stream),                                                   \
      (self, dst, value, extent, stream))                                                                          \
    X(host_register, (const xrt_backend *self, void *ptr, size_t size, unsigned flags), (self, ptr, size, flags))  \
    X(host_unregister, (const xrt_backend *self, void *ptr), (self, ptr))                                          \
    X(host_get_device_pointer, (const xrt_backend *self, void **dptr, void *hptr, unsigned flags),                 \
      (self, dptr, hptr, flags))                                                                                   \
    X(function_get_param_info, (const xrt_backend *self, void *function, size_t index, size_t *offset,              \
                                size_t *size),                                                                     \
      (self, function, index, offset, size))                                                                       \
    X(device_get_default_mem_pool, (const xrt_backend *self, void **pool, int device), (self, pool, device))       \
    X(device_get_mem_pool, (const xrt_backend *self, void **pool, int device), (self, pool, device))               \
    X(device_set_mem_pool, (const xrt_backend *self, int device, void *pool), (self, device, pool))                \
    X(mem_pool_create, (const xrt_backend *self, void **pool, const xrt_mem_pool_props *props), (self, pool, props)) \
    X(mem_pool_destroy, (const xrt_backend *self, void *pool), (self, pool))                                       \
    X(mem_pool_set_attribute, (const xrt_backend *self, void *pool, int attr, uint64_t value),                     \
      (self, pool, attr, value))                                                                                   \
    X(mem_pool_get_attribute, (const xrt_backend *self, void *pool, int attr, uint64_t *value),                    \
      (self, pool, attr, value))                                                                                   \
    X(mem_pool_trim_to, (const xrt_backend *self, void *pool, size_t keep), (self, pool, keep))                    \
    X(malloc_from_pool_async, (const xrt_backend *self, void **ptr, size_t size, void *pool, void *stream),        \
      (self, ptr, size, pool, stream))                                                                             \
    X(malloc_managed, (const xrt_backend *self, void **ptr, size_t size, unsigned flags), (self, ptr, size, flags)) \
    X(mem_prefetch_async, (const xrt_backend *self, const void *ptr, size_t count, int device, void *stream),      \
      (self, ptr, count, device, stream))                                                                          \
    X(mem_advise, (const xrt_backend *self, const void *ptr, size_t count, int advice, int device),               \
      (self, ptr, count, advice, device))                                                                          \
    X(stream_attach_mem_async, (const xrt_backend *self, void *stream, void *ptr, size_t length, unsigned flags),  \
      (self, stream, ptr, length, flags))                                                                          \
    X(host_alloc, (const xrt_backend *self, void **ptr, size_t size, unsigned flags), (self, ptr, size, flags))    \
    X(host_get_flags, (const xrt_backend *self, unsigned *flags, void *ptr), (self, flags, ptr))                   \
    X(set_device_flags, (const xrt_backend *self, unsigned flags), (self, flags))                                  \
    X(get_device_flags, (const xrt_backend *self, unsigned *flags), (self, flags))                                 \
    X(device_reset, (const xrt_backend *self), (self))                                                             \
    X(graph_add_memcpy_node, (const xrt_backend *self, void *graph, void **node, void *const *deps, size_t ndeps,  \
                              const xrt_memcpy_3d_parms *p),                                                       \
      (self, graph, node, deps, ndeps, p))                                                                         \
    X(graph_memcpy_node_get_params, (const xrt_backend *self, void *graph, void *node, xrt_memcpy_3d_parms *p),    \
      (self, graph, node, p))                                                                                      \
    X(graph_memcpy_node_set_params, (const xrt_backend *self, void *exec, void *graph, void *node,                 \
                                     const xrt_memcpy_3d_parms *p),                                                \
      (self, exec, graph, node, p))                                                                                \
    X(device_graph_mem_trim, (const xrt_backend *self, int device), (self, device))                               \
    X(mem_range_get_attribute, (const xrt_backend *self, void *data, size_t data_size, int attribute,             \
                                const void *ptr, size_t count),                                                    \
      (self, data, data_size, attribute, ptr, count)) \
    X(graph_instantiate_with_flags, (const xrt_backend *self, void **exec, void *graph, unsigned long long flags), \
      (self, exec, graph, flags))                                                                                  \
    X(graph_upload, (const xrt_backend *self, void *exec, void *stream), (self, exec, stream)) \
    X(event_record_with_flags, (const xrt_backend *self, void *event, void *stream, unsigned flags),              \
      (self, event, stream, flags))                                                                                \
    X(stream_wait_event_with_flags, (const xrt_backend *self, void *stream, void *event, unsigned flags),         \
      (self, stream, event, flags))                                                                                \
    X(device_set_limit, (const xrt_backend *self, int limit, size_t value), (self, limit, value))                  \
    X(device_get_limit, (const xrt_backend *self, size_t *value, int limit), (self, value, limit))                 \
    X(device_get_p2p_attribute, (const xrt_backend *self, int *value, int attr, int src, int dst),                 \
      (self, value, attr, src, dst))                                                                              \
    X(mem_pool_set_access, (const xrt_backend *self, void *pool, const xrt_mem_access_desc *descs, size_t count),  \
      (self, pool, descs, count))                                                                                  \
    X(mem_pool_get_access, (const xrt_backend *self, unsigned *flags, void *pool, int device),                     \
      (self, flags, pool, device))                                                                                 \
    X(device_get_graph_mem_attribute, (const xrt_backend *self, int device, int attr, uint64_t *value),           \
      (self, device, attr, value))                                                                                 \
    X(device_set_graph_mem_attribute, (const xrt_backend *self, int device, int attr), (self, device, attr))      \
    X(graph_node_set_enabled, (const xrt_backend *self, void *exec, void *graph, void *node, unsigned enabled),    \
      (self, exec, graph, node, enabled))                                                                          \
    X(graph_node_get_enabled, (const xrt_backend *self, void *exec, void *graph, void *node, unsigned *enabled),   \
      (self, exec, graph, node, enabled))                                                                          \
    X(stream_get_capture_info, (const xrt_backend *self, void *stream, unsigned *status, unsigned long long *id), \
      (self, stream, status, id))                                                                                  \
    X(device_set_cache_config, (const xrt_backend *self, int config), (self, config))                            \
    X(device_get_cache_config, (const xrt_backend *self, int *config), (self, config))                           \
    X(function_set_cache_config, (const xrt_backend *self, void *function, int config), (self, function, config)) \
    X(device_flush_gpu_direct_rdma_writes, (const xrt_backend *self, int target, int scope), (self, target, scope)) \
    X(stream_set_attribute, (const xrt_backend *self, void *stream, int attr, const xrt_stream_attr_value *value),  \
      (self, stream, attr, value))                                                                                 \
    X(stream_get_attribute, (const xrt_backend *self, void *stream, int attr, xrt_stream_attr_value *value),        \
      (self, stream, attr, value))                                                                                 \
    X(user_object_create, (const xrt_backend *self, void **object, xrt_host_fn destroy, void *ptr, unsigned count), \
      (self, object, destroy, ptr, count))                                                                         \
    X(user_object_retain, (const xrt_backend *self, void *object, unsigned count), (self, object, count))          \
    X(user_object_release, (const xrt_backend *self, void *object, unsigned count), (self, object, count))        \
    X(graph_retain_user_object, (const xrt_backend *self, void *graph, void *object, unsigned count,              \
                                 unsigned flags),                                                                  \
      (self, graph, object, count, flags))                                                                         \
    X(graph_release_user_object, (const xrt_backend *self, void *graph, void *object, unsigned count),             \
      (self, graph, object, count))                                                                                \
    X(stream_get_capture_info_v2, (const xrt_backend *self, void *stream, unsigned *status, unsigned long long *id,   \
                                 void **graph, void **deps, size_t cap, size_t *ndeps),                            \
      (self, stream, status, id, graph, deps, cap, ndeps))                                                         \
    X(stream_update_capture_dependencies, (const xrt_backend *self, void *stream, void *const *deps, size_t ndeps, \
                                           unsigned flags),                                                        \
      (self, stream, deps, ndeps, flags))                                                                          \
    X(launch_kernel_ex, (const xrt_backend *self, void *function, xrt_dim3 grid, xrt_dim3 block, size_t shared_bytes, \
                         void *stream, const void *args, size_t args_size, const xrt_launch_attribute *attrs,       \
                         unsigned num_attrs),                                                                      \
      (self, function, grid, block, shared_bytes, stream, args, args_size, attrs, num_attrs))                      \
    X(graph_kernel_node_set_attribute, (const xrt_backend *self, void *graph, void *node, int attr,                \
                                        const xrt_launch_attr_value *value),                                       \
      (self, graph, node, attr, value))                                                                            \
    X(graph_kernel_node_get_attribute, (const xrt_backend *self, void *graph, void *node, int attr,                \
                                        xrt_launch_attr_value *value),                                             \
      (self, graph, node, attr, value))                                                                            \
    X(graph_kernel_node_copy_attributes, (const xrt_backend *self, void *dst_graph, void *dst, void *src_graph,    \
                                          void *src),                                                              \
      (self, dst_graph, dst, src_graph, src))                                                                      \
    X(stream_get_device, (const xrt_backend *self, void *stream, int *device), (self, stream, device))

/* A stream's device (stream_get_device, cudaStreamGetDevice): asked only
   where the dispatch layer did not keep it at the stream's creation: the
   NULL, legacy and per-thread streams (the current device's) and a wrapped
   native stream. */

/* Launch attributes (launch_kernel_ex, graph_kernel_node_set_attribute,
   _get_attribute, _copy_attributes; cudaLaunchKernelEx, cudaGraphKernelNode*
   Attribute): the dispatch layer has checked each attribute's id (one of
   xrt_launch_attr, not IGNORE; PROGRAMMATIC_STREAM_SERIALIZATION for a
   launch only) and value (as the stream attributes', a cluster's
   dimensions all 0 or all non-zero, a scheduling preference 0 to 2), the
   launch as xrt_launch_kernel's, and that nodes are kernel nodes; a launch
   without attributes goes to launch_kernel instead, and a get's value is
   zeroed before. An event attribute's event is the backend's object (the
   dispatch layer translated the handle in a copy of the list), which the
   launch records no earlier than every block began. The backend checks
   what needs the grid (a cluster divides it) and refuses what it cannot
   do; a launch captured into a graph gives its node the attributes; a
   node's attributes follow its copies and its new params. */

/* GPUDirect RDMA writes (device_flush_gpu_direct_rdma_writes,
   cudaDeviceFlushGPUDirectRDMAWrites): the dispatch layer has checked the
   target (0, the current device) and the scope (100 or 200); the call
   returns once the writes made so far into the current device's memory are
   visible within that scope. */

/* A capture's graph (stream_get_capture_info_v2,
   stream_update_capture_dependencies; cudaStreamGetCaptureInfo's graph and
   dependencies, cudaStreamUpdateCaptureDependencies): get answers status
   and id as stream_get_capture_info and, while the capture is active, the
   capture's graph object (one object for all its streams and its whole
   life, which graph calls take as any graph's) and the nodes the stream's
   next work follows: their number in *ndeps, the first `cap` of them in
   deps (deps may be NULL when cap is 0). Update adds deps to them or (flags
   XRT_STREAM_SET_CAPTURE_DEPENDENCIES) puts deps in their place, on a stream
   whose capture is active (the dispatch layer has checked that, the flags,
   and that deps are nodes of that graph). A node added by hand to the
   graph, or taken out of a stream's set so, is not refused as unjoined at
   the end. */

/* User objects (user_object_create .. graph_release_user_object;
   cudaUserObjectCreate & co): the dispatch layer has checked the handles
   and counts (1 .. INT_MAX) and flags (a graph's: 0 or
   XRT_GRAPH_USER_OBJECT_MOVE); it passes a destroy of its own, which the
   backend runs once, when the last reference goes, on any thread, holding
   none of its locks where it can. A graph's references follow its copies:
   clones, child-graph nodes made of it, execs (until destroyed or updated
   and their launches done). A graph releases only what it holds
   (XRT_ERROR_INVALID_VALUE otherwise). */

/* Stream attributes (stream_set_attribute, stream_get_attribute;
   cudaStreamSetAttribute & co): the dispatch layer has checked the
   attribute (one of xrt_stream_attr) and, for a set, the value (a window's
   hit ratio 0 to 1 and properties, a sync policy 1 to 4, a domain 0 or 1);
   a get's value is zeroed before. The backend clamps a priority as
   stream_create_with_priority does; a get answers what the stream has (a
   window of 0 bytes, AUTO, the domain map {0, 1} until set). */

/* Pool access (mem_pool_set_access, mem_pool_get_access; cudaMemPoolSetAccess,
   cudaMemPoolGetAccess): the dispatch layer has checked the pool handle, the
   out-pointer and each descriptor (flags NONE or READ_WRITE, device in
   range). The backend refuses NONE for the pool's own device and a device
   that cannot reach the pool's (XRT_ERROR_INVALID_DEVICE), checking every
   descriptor before applying any. */

/* Device limits (device_set_limit, device_get_limit; cudaDeviceSetLimit,
   cudaDeviceGetLimit): of the current device; the dispatch layer has checked
   the limit (one of xrt_limit, CUDA's values) and the out-pointer. A limit
   the backend does not have is XRT_ERROR_UNSUPPORTED. */

/* Peer links (device_get_p2p_attribute; cudaDeviceGetP2PAttribute): the
   dispatch layer has checked value, the attribute (one of xrt_p2p_attr,
   CUDA's values) and that src and dst are two devices, not negative; the
   backend checks they are in range (XRT_ERROR_INVALID_DEVICE).
   ACCESS_SUPPORTED agrees with device_can_access_peer. */

/* Events with flags (event_record_with_flags, stream_wait_event_with_flags;
   cudaEventRecordWithFlags, cudaStreamWaitEvent's flags): the dispatch
   layer has refused unknown bits and sends DEFAULT (0) to event_record and
   stream_wait_event (also for a table from before these two were
   appended), so flags is XRT_EVENT_RECORD_EXTERNAL (XRT_EVENT_WAIT_*). EXTERNAL is for a capturing stream only (else
   XRT_ERROR_INVALID_VALUE, as CUDA's "invalid when used outside of
   capture"): the record or the wait becomes an event record or wait node
   of the capture's graph after the stream's work, which the stream's later
   work follows; the event's own state (its last record, a capture it was
   recorded in) is left as it was. */

/* Copy nodes of 3-D params (graph_add_memcpy_node .. graph_memcpy_node_set_params,
   cudaGraphAddMemcpyNode & co): the dispatch layer has checked the params
   as xrt_memcpy_3d's (the kind resolved, the extent not empty) against the
   graph's memory; get_params answers for every copy node (a 1-D one as a
   box of one row), positions folded into the pointers where the backend
   keeps no more; set_params changes the graph's node (exec NULL) or the
   exec's copy of it. */

/* Memory pools (device_get_default_mem_pool .. malloc_from_pool_async): a
   pool is the backend's object; the dispatch layer gives it a handle (the
   default pool's is not owned: mem_pool_destroy never sees it) and checks
   the device (in range), the props (handle_types none), the attribute (one
   of xrt_mem_pool_attr; a reuse policy's value 0 or 1, a current amount
   read only, a high-water mark set only to 0). device_set_mem_pool refuses
   a pool of another device; mem_pool_destroy of a pool with allocations
   outstanding succeeds, the pool going with its last one (as CUDA). */

/* Managed memory (malloc_managed .. stream_attach_mem_async): the dispatch
   layer has checked the size (not 0) and the flags (malloc_managed:
   XRT_MEM_ATTACH_GLOBAL or _HOST; stream_attach_mem_async: exactly one
   XRT_MEM_ATTACH_*), that the range [ptr, ptr + count) is inside one
   managed allocation of this backend (stream_attach_mem_async: ptr starts
   it, length 0 or its size), the advice (1 .. 6) and the device
   (XRT_CPU_DEVICE_ID or in range; an advice that takes no location gets
   the caller's device unchecked); mem_range_get_attribute: data not NULL,
   the attribute (1 .. 4) and data_size (sizeof(int), or for ACCESSED_BY a
   non-zero multiple of it). xrt_free frees managed memory through
   free.
   Mapped host allocation (host_alloc, host_get_flags): host_alloc gets a
   size > 0 and flags of XRT_HOST_ALLOC_* only, and its memory is freed
   through free_host; host_get_flags gets a pointer into memory of
   host_alloc or malloc_host (whose flags are 0) and may answer from xrt's
   record (xrt__mem_host_flags).
   Device flags (set_device_flags, get_device_flags): of the current device;
   set gets at most one XRT_DEVICE_SCHEDULE_* bit and no unknown bit.
   Device reset (device_reset): of the current device, whose work the
   dispatch layer has waited for; a backend frees xrt's records of the
   device's memory and handles with xrt__device_reset_objects (xrt.h), then
   resets its own state. */

struct xrt_backend {
    uint32_t abi_version; /* XRT_BACKEND_ABI_VERSION the backend was built against */
    uint32_t size;        /* sizeof(xrt_backend) as the backend was built */
    const char *name;     /* unique, lower case: "cpu", "cuda", ... */
    void *user;           /* the backend's own data, reached through self->user */
    uint32_t flags;       /* XRT_BACKEND_* below */
    /* Probe: XRT_SUCCESS if usable, else a status and a one-line reason. Called once,
       with the registry lock held, the first time the backend is needed. */
    xrt_status (*init)(const xrt_backend *self, char *reason, size_t reason_size);
    /* Waits for all queued work and releases everything; may be NULL. Called
       last: xrt has already destroyed the live handles and freed the remaining
       allocations through stream_destroy, event_destroy, free and free_host
       (which, like cudaFree, wait for the work that may still use them). */
    void (*shutdown)(const xrt_backend *self);
#define XRT__OP_FIELD(name, params, args) xrt_status(*name) params;
    XRT__BACKEND_OPS(XRT__OP_FIELD)
#undef XRT__OP_FIELD
};

/* Pitched memory (memcpy_2d .. memset_2d_async): the dispatch layer has
   checked both rectangles against their allocations (pitch >= the row's
   bytes, no overflow), resolved the copy's kind, and refuses width or height
   0. A memset's width counts elements of element_size bytes (1, 2 or 4; dst
   and pitch aligned to it); value is the element's (xrt_memset_2d's low byte,
   xrt_memset_d16's 16 bits).
   3-D memory (memcpy_3d .. memset_3d_async): the dispatch layer has checked
   each side's box (xrt__mem_check_box: rows inside the pitch, slices apart,
   span inside its allocation, nothing overflowing), resolved the copy's kind
   and refuses an extent with a 0; positions are the caller's, not applied.
   A memset's value is the byte.
   Registered host memory (host_register .. host_get_device_pointer): the
   dispatch layer has checked the range (not NULL, not 0, no unknown flag,
   overlapping nothing the registry knows), keeps its record and calls
   host_unregister only for a range host_register registered (also at
   shutdown); host_get_device_pointer gets pinned host memory, flags 0. */

/* Modules (module_load .. function_get_attributes): module_load gets the
   images as given (checked: n_images > 0, data and size set) and picks one,
   writing a compiler's output to `log` (log_size bytes, 0-terminated).
   module_unload releases the backend's module: work already queued that
   uses its functions must still run (the backend keeps what it needs alive
   until then). Functions belong to their module: module_unload frees them.
   launch_kernel gets grid and block dimensions that are not 0 and a packed
   argument buffer that it copies before returning (args may be NULL when
   args_size is 0); it checks its own limits, and a function's limit on
   dynamic shared memory (48 KiB unless function_set_attribute raised it).
   module_get_global gives the address and size of the module's variable
   `name` (this load's own), in memory that copies can reach: the dispatch
   layer bounds symbol copies by that size. function_set_attribute gets an
   xrt_function_attribute and a value >= 0; the occupancy calls get a block
   size > 0 (block_limit >= 0, 0: the function's own limit).
   function_get_param_info gives parameter `index`'s offset and size in the
   packed buffer (cuFuncGetParamInfo; out-pointers checked): an index past
   the last is XRT_ERROR_INVALID_VALUE, and a backend that cannot know the
   layout returns XRT_ERROR_UNSUPPORTED saying why. */

/* Graphs (stream_begin_capture .. graph_get_info): the dispatch layer checks
   handles, modes and out-pointers and refuses capture of the NULL stream; a
   backend keeps the capture rules (which calls a capture refuses, fork and
   join, ABI: mode and status have the values of xrt_capture_mode and
   xrt_capture_status). A graph and an exec hold what they need alive;
   graph_exec_destroy returns at once, launches already enqueued still run.
   graph_instantiate_with_flags (cudaGraphInstantiateWithFlags) gets flags of
   XRT_GRAPH_INSTANTIATE_* only, not UPLOAD, and not DEVICE_LAUNCH with
   AUTO_FREE_ON_LAUNCH (refused by the dispatch layer); flags 0 go to
   graph_instantiate. A flag the backend cannot do is XRT_ERROR_UNSUPPORTED
   saying why. An exec of AUTO_FREE_ON_LAUNCH: each launch first frees, in
   the launch's stream order, its previous launch's allocations that are not
   freed yet (the dispatch layer lets such a launch through and moves their
   records); one the caller freed is not freed again. graph_upload
   (cudaGraphUpload) readies the exec on the stream without running it. */

/* Graphs built node by node (graph_create .. graph_node_find_in_clone):
   graphs and nodes are the backend's objects (a node: any unique non-NULL
   value for the node's life in its graph); the dispatch layer keeps their
   handles, checks handles, counts and out-pointers, serialises these calls
   with instantiate, update, clone and destroy of graphs, and passes params
   with the function, event and graph handles replaced by the backend's
   objects (get_params gives objects back). A list call gets *count = the
   room in the arrays (0 with NULL arrays), writes at most that many and
   sets *count to how many there are. add_node checks the params of its
   type; add_dependencies refuses a cycle or an edge there already,
   remove_dependencies an edge not there, and either changes nothing then. */

/* Memory shared between processes (ipc_*_mem_handle): the dispatch layer
   checks that get's base/size is a whole device allocation of the backend
   and that close's ptr was opened, and keeps the registry: it serialises
   opens, so a backend sees them one at a time. open returns the mapping and
   its size; opening a handle the process has open already returns the same
   pointer and counts it; a close undoes one open, the last one unmaps.
   Waiting for queued work before close unmaps is the backend's, as for
   free, and a host function in that work may open a handle: so a close of a
   mapping whose size open returned is not serialised (it may run beside an
   open or another close, and must hold no lock of the backend's while it
   waits); closes of mappings of size 0 (the runtime's own size) are. */

/* Registers a backend (copied; probed lazily). XRT_ERROR_ALREADY_EXISTS for a
   taken name, XRT_ERROR_ABI_MISMATCH for another ABI version. */
XRT_API xrt_status xrt_register_backend(const xrt_backend *backend);

/* For backends: record the calling thread's error and log it, then return st.
   `who` is "backend: function". */
XRT_API xrt_status xrt_error(xrt_status st, const char *who, const char *fmt, ...) XRT__PRINTF(3, 4) XRT__COLD;
XRT_API xrt_status xrt_native_error(xrt_status st, const char *backend, const char *call, long code,
                                    const char *code_name, const char *message) XRT__COLD;
XRT_API void xrt_log(xrt_log_level level, const char *fmt, ...) XRT__PRINTF(2, 3);

/* >> plugins: a backend in a shared object, loaded with xrt_load_plugin() or
   env XRT_PLUGINS. The object exports one function, named XRT_PLUGIN_SYMBOL,
   of type xrt_plugin_register_fn: it fills `table` (abi_version, size, name,
   init and the operations it has; `user` is its own) and returns
   XRT_SUCCESS. xrt registers the table as xrt_register_backend() does, and
   again after every xrt_shutdown() + init; the object is never unloaded.
   A plugin must not define XRT_IMPL: it reaches xrt through `host`, which
   lives as long as the process. Two copies of xrt in a process (two
   libraries that vendor it) that load one plugin call its register once
   each, with their own host: a plugin keeps each copy's state in its
   table's `user`, or fails the second. */
#define XRT_PLUGIN_SYMBOL "xrt_plugin_register"

/* Sees every error xrt records (see xrt_plugin_host.set_error_observer). */
typedef void (*xrt_error_observer_fn)(xrt_status st, const char *backend, const char *detail, void *user);

typedef struct xrt_plugin_host {
    uint32_t abi_version; /* XRT_BACKEND_ABI_VERSION of the loading xrt */
    uint32_t size;        /* sizeof(xrt_plugin_host) */
    xrt_status (*error)(xrt_status st, const char *who, const char *fmt, ...) XRT__PRINTF(3, 4);
    xrt_status (*native_error)(xrt_status st, const char *backend, const char *call, long code,
                               const char *code_name, const char *message);
    void (*log)(xrt_log_level level, const char *fmt, ...) XRT__PRINTF(2, 3);
    const char *(*last_error_string)(void);
    /* A registered, available backend by name (probed if need be), or NULL;
       callable from the plugin's init. Its operations take it as `self`. */
    const xrt_backend *(*find_backend)(const char *name);
    /* For a backend that runs host functions on threads of its own. */
    void (*host_fn_run)(const xrt_backend *b, xrt_host_fn fn, void *user);
    /* Present when `size` covers it (xrt 0.2 on). Calls fn(st, backend,
       detail, user) for every error xrt records for a thread, also for the
       calls its dispatch layer rejects before any backend sees them: the
       status, the thread's backend (NULL if it has none yet) and the detail
       that xrt_get_last_error_string returns. Not for failures that are
       answers (an internal lookup); whatever the log level. One observer at a
       time; NULL removes it. fn runs on the failing thread, possibly with
       xrt's locks held: it must not call xrt. */
    void (*set_error_observer)(xrt_error_observer_fn fn, void *user);
    /* Present when `size` covers it (added after xrt 0.2.0):
       xrt_check_set_race_observer, the stream-order checker's reports with
       the tags of their operations (the types are xrt_check_tag_fn and
       xrt_check_race_fn, declared with it in xrt.h, after this file). */
    xrt_status (*set_race_observer)(uint64_t (*tag)(void *user, const xrt_backend *backend, int before),
                                    void (*race)(void *user, const char *report, uint64_t earlier, uint64_t later),
                                    void *user);
    /* Present when `size` covers it (added after xrt 0.2.0): nonzero while
       the calling thread is inside a question xrt itself asks a backend (a
       pointer's memory, the device of a new allocation, whether a stream
       captures, the stream-order checker's questions), not a call of the
       program's; for a forwarding plugin that shows the program's calls. */
    int (*own_call)(void);
    /* Present when `size` covers it (added after xrt 0.2.0): for a plugin
       that forwards to another backend, called from its init with the
       backend find_backend gave it: `self`'s memory is `target`'s. xrt
       copies target's memory kind (XRT_BACKEND_*_MEMORY) into self's flags,
       so that what depends on it (a device's PCI address, RDMA and libfabric
       registration) answers as target would, and counts the device memory
       allocated through self against target's devices (target's
       mem_get_info sees it); the plugin names no flag.
       XRT_ERROR_INVALID_VALUE when target is NULL or self is no registered
       backend's table; XRT_ERROR_NOT_PERMITTED outside an init. */
    xrt_status (*wraps)(const xrt_backend *self, const xrt_backend *target);
} xrt_plugin_host;

typedef xrt_status (*xrt_plugin_register_fn)(const xrt_plugin_host *host, xrt_backend *table);

/* >> forwarding: a plugin that wraps another backend (a tracer, a checker, a
   counter) forwards the operations it does not change.
   XRT_BACKEND_OPS(X) is the operation list, stable: X(name, (params), (args))
   for each operation, `self` first in both; rows are only ever appended.
   XRT_DEFINE_FORWARDERS(target_of), once at file scope of a translation
   unit, defines for every operation `static xrt_status xrt_forward_<name>
   (params)`, which calls the same operation of the backend target_of(self)
   returns (a function or macro from the wrapper's table to its target), with
   `self` bound to that target; and `static void xrt_forward_fill(xrt_backend
   *t)`, which points every operation slot of t at them, for the wrapper to
   replace the ones it changes. The forwarders use no name a parameter of
   the list may have (target_of is called outside them), so an operation
   with a parameter named `target` forwards as any other:

       static const xrt_backend *inner;   (set in init: host->find_backend("cpu"),
                                           then host->wraps(self, inner): its memory kind)
       static const xrt_backend *target_of(const xrt_backend *self) { (void)self; return inner; }
       XRT_DEFINE_FORWARDERS(target_of);
       static xrt_status count_malloc(const xrt_backend *self, void **ptr, size_t size)
       { mallocs++; return xrt_forward_malloc(self, ptr, size); }
       ... in xrt_plugin_register: xrt_forward_fill(table); table->malloc = count_malloc;
*/
#define XRT_BACKEND_OPS(X) XRT__BACKEND_OPS(X)
#define XRT_DEFINE_FORWARDERS(target_of)                                                         \
    static const xrt_backend *xrt_forward_target_(const xrt_backend *xrt_forward_self_)        \
    {                                                                                          \
        return target_of(xrt_forward_self_);                                                   \
    }                                                                                          \
    XRT__BACKEND_OPS(XRT__FORWARDER)                                                           \
    static __attribute__((unused)) void xrt_forward_fill(xrt_backend *xrt_forward_table_)      \
    {                                                                                          \
        XRT__BACKEND_OPS(XRT__FORWARD_SLOT)                                                    \
    }                                                                                          \
    typedef int xrt__forwarders_defined_ /* takes the caller's ';' */
/* `self` is bound to the target in a block of its own: -Wshadow is quiet there. */
#define XRT__FORWARDER(op, params, args)                                                   \
    static __attribute__((unused)) xrt_status xrt_forward_##op params                      \
    {                                                                                      \
        const xrt_backend *const xrt_forward_self_ = xrt_forward_target_(self);            \
        _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wshadow\"") {    \
            const xrt_backend *const self = xrt_forward_self_;                             \
            return self->op args;                                                          \
        }                                                                                  \
        _Pragma("GCC diagnostic pop")                                                      \
    }
#define XRT__FORWARD_SLOT(op, params, args) xrt_forward_table_->op = xrt_forward_##op;

#ifdef __cplusplus
}
#endif

#endif /* XRT_BACKENDS_H_INCLUDED */

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
