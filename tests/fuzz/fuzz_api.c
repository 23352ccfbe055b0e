/* SPDX-License-Identifier: MIT */
/* libFuzzer target: random sequences of API calls on the CPU backend, each
   checked against a simple model. Build: make fuzz (tests/fuzz/fuzz.mk).

   The model keeps, for up to four xrt allocations (device, pinned host or
   stream-ordered) and two plain host arrays, the value of every byte that is
   known; the live and destroyed streams and events; and the number of host
   functions enqueued. Each call's status must be the one the model expects:
   success with the contents updated; invalid value for a size 0 allocation or
   a range that leaves its allocation (also sizes near SIZE_MAX, where the
   arithmetic would wrap); out of memory for a huge allocation; invalid
   pointer for a bad free; invalid memcpy kind for a kind that does not match
   the pointers; invalid handle for a destroyed, garbage or wrong-kind handle.
   Where a call has two faults, either status is accepted. Data is compared
   after synchronizing. So that the model stays deterministic, work that
   touches data is kept on one stream at a time: before data work moves to
   another stream, the harness synchronizes the previous one.

   Thread exit: a thread makes a call, then exits; destructors of a key made
   after xrt's own query a stream and an event of the model in every round of
   thread-specific-data destructors, while the harness may destroy them
   meanwhile. Each such call returns success, not ready or invalid handle, and
   in the last round, after xrt released the thread's state for good, not
   permitted; ASan sees any use after free.

   Copies with a plain host array on one side are pageable copies: the model
   checks, before any synchronize, that a pageable destination already holds
   its bytes, and overwrites a pageable source right after the call (the copy
   has read it already). Host functions that enqueue: one may launch up to
   3000 host functions onto its own stream (more than its queue holds at
   first: the queue grows) and make a pageable copy between the host arrays;
   every call it makes must succeed. Work a host function enqueues is waited
   for with a second synchronize (the first ends once the host function has
   run, and with it every enqueue it made).

   Graphs: a round captures copies and sets on a stream, checks that nothing
   ran, and launches the graph up to three times (see op_graph); another
   builds such a graph node by node, with the edges that shared bytes need
   and others at random, changes it, and launches it (see op_graph_built).

   Input: a sequence of operations, one byte each for the opcode and then its
   arguments; a short input runs out of arguments and reads zeros. */
#define XRT_IMPL
#define XRT_ENABLE_CPU
#include "xrt.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_api: op %d: %s: ", op_index, #cond);                             \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, " (last error: %s)\n", xrt_get_last_error_string());                  \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* The status must be one of the (one or two) expected. */
#define EXPECT2(call, a, b)                                                                        \
    do {                                                                                           \
        xrt_status st_ = (call);                                                                   \
        if (trace) fprintf(stderr, "  %s -> %s\n", #call, xrt_status_string(st_));                 \
        CHECK(st_ == (a) || st_ == (b), "%s -> %s, expected %s%s%s", #call, xrt_status_string(st_), \
              xrt_status_string(a), (a) == (b) ? "" : " or ", (a) == (b) ? "" : xrt_status_string(b)); \
    } while (0)
#define EXPECT(call, a) EXPECT2(call, a, a)

enum { BUFS = 4, HOSTS = 2, HOST_SIZE = 4096, MAX_ALLOC = 4096, STREAMS = 3, EVENTS = 3, STALE = 8 };
enum { NONE = 0, DEVICE, PINNED, ASYNC };
enum { ANYWHERE = STREAMS + 1 };

typedef struct buffer {
    unsigned char *p;
    size_t size;
    int kind;
    unsigned char model[MAX_ALLOC], known[MAX_ALLOC];
} buffer;

static struct {
    const uint8_t *in;
    size_t left;
    buffer buf[BUFS];
    unsigned char host[HOSTS][HOST_SIZE], host_model[HOSTS][HOST_SIZE], host_known[HOSTS][HOST_SIZE];
    xrt_stream s[STREAMS];
    xrt_event e[EVENTS];
    unsigned eflags[EVENTS];
    int erec[EVENTS];  /* stream slot of the latest record + 1; 0: never recorded */
    int edone[EVENTS]; /* the latest record is known to be complete */
    void *stale_s[STALE], *stale_e[STALE], *stale_p[STALE];
    int dirty; /* stream slot (STREAMS = the NULL stream) with unsynchronized data work, -1: none,
                  ANYWHERE: a destroyed stream's */
    int host_calls, host_expected;
    int nested; /* a host function that enqueues has been launched since the last wait for everything */
    xrt_ipc_mem_handle ipc; /* the latest handle made (its memory may be freed since) */
    int has_ipc;
} F;
static int op_index, trace; /* FUZZ_API_TRACE=1: print each call and its status */

/* >> the operations. X(name, modelled): every operation of xrt's backend list,
   either modelled above and below (1) or left out (0, with the reason). An
   operation added to XRT__BACKEND_OPS without its row here fails to compile
   ("fuzz_row_<name> undeclared"): decide what the model makes of it. */
#define FUZZ_OPERATIONS(X)                                                          \
    X(get_capabilities, 0) /* device queries: no state (the bad-input table) */     \
    X(get_device_count, 0)                                                          \
    X(set_device, 0)                                                                \
    X(get_device, 0)                                                                \
    X(device_synchronize, 1)                                                        \
    X(get_device_properties, 0)                                                     \
    X(malloc, 1)                                                                    \
    X(free, 1)                                                                      \
    X(malloc_host, 1)                                                               \
    X(free_host, 1)                                                                 \
    X(malloc_async, 1)                                                              \
    X(free_async, 1)                                                                \
    X(mem_get_info, 0) /* a query of the allocator, not of the model */            \
    X(memset, 1)                                                                    \
    X(memset_async, 1)                                                              \
    X(memcpy, 1)                                                                    \
    X(memcpy_async, 1)                                                              \
    X(pointer_get_attributes, 1)                                                    \
    X(stream_create, 1)                                                             \
    X(stream_destroy, 1)                                                            \
    X(stream_synchronize, 1)                                                        \
    X(stream_query, 1)                                                              \
    X(stream_wait_event, 1)                                                         \
    X(launch_host_func, 1)                                                          \
    X(event_create, 1)                                                              \
    X(event_destroy, 1)                                                             \
    X(event_record, 1)                                                              \
    X(event_query, 1)                                                               \
    X(event_synchronize, 1)                                                         \
    X(event_elapsed_time, 1)                                                        \
    X(stream_get_native, 0) /* the CPU backend has no native handles */             \
    X(event_get_native, 0)                                                          \
    X(stream_wrap_native, 0)                                                        \
    X(mem_export_dmabuf, 0) /* the CPU backend exports no dma-buf */                \
    X(get_target, 0) /* a query of the machine */                                 \
    X(module_load, 0) /* runs a compiler: too slow for a fuzzer's iteration; */    \
    X(module_unload, 0) /* tests/test_kernels.c covers modules and launches */     \
    X(module_get_function, 0)                                                       \
    X(launch_kernel, 0)                                                             \
    X(function_get_attributes, 0)                                                   \
    X(stream_begin_capture, 1) /* a graph round: capture, instantiate, launch */   \
    X(stream_end_capture, 1)                                                        \
    X(stream_is_capturing, 1)                                                       \
    X(graph_instantiate, 1)                                                         \
    X(graph_launch, 1)                                                              \
    X(graph_exec_update, 0) /* tests/test_graph.c: needs two graphs of one shape */ \
    X(graph_exec_destroy, 1)                                                        \
    X(graph_destroy, 1)                                                             \
    X(graph_get_info, 1)                                                            \
    X(ipc_get_mem_handle, 1) /* handles of the buffers, forged ones opened */       \
    X(ipc_open_mem_handle, 1)                                                       \
    X(ipc_close_mem_handle, 1)                                                      \
    X(ipc_get_event_handle, 0) /* opens need a second process: tests/test_ipc.c */  \
    X(ipc_open_event_handle, 0)                                                     \
    X(device_can_access_peer, 0) /* peers need two devices: the fuzzer runs on */   \
    X(device_enable_peer_access, 0) /* one; tests/test_devices.c covers them */      \
    X(device_disable_peer_access, 0)                                                \
    X(memcpy_peer, 0)                                                               \
    X(memcpy_peer_async, 0)                                                         \
    X(graph_debug_dot_print, 0) /* writes a file: tests/test_graph.c */             \
    X(stream_create_with_priority, 0) /* the model's streams are xrt_stream_create's: */ \
    X(stream_get_flags, 0) /* tests/test_suite.c covers flags and priorities */  \
    X(stream_get_priority, 0)                                                       \
    X(device_get_stream_priority_range, 0)                                          \
    X(stream_per_thread, 0) /* tests/test_suite.c and tests/test_per_thread.c */    \
    X(thread_exchange_stream_capture_mode, 0) /* a thread's mode: tests/test_graph.c */ \
    X(graph_create, 1) /* op_graph_built; the rest of them: tests/test_graph_nodes.c */ \
    X(graph_add_node, 1)                                                            \
    X(graph_node_get_params, 0)                                                     \
    X(graph_node_set_params, 0)                                                     \
    X(graph_exec_node_set_params, 0)                                                \
    X(graph_add_dependencies, 1)                                                    \
    X(graph_remove_dependencies, 1)                                                 \
    X(graph_get_nodes, 1)                                                           \
    X(graph_get_root_nodes, 0)                                                      \
    X(graph_get_edges, 0)                                                           \
    X(graph_node_get_dependencies, 1)                                               \
    X(graph_node_get_dependent_nodes, 0)                                            \
    X(graph_destroy_node, 1)                                                        \
    X(graph_clone, 1)                                                               \
    X(graph_node_find_in_clone, 1)                                                  \
    X(graph_exec_update_with_result, 0) /* tests/test_graph_nodes.c: needs graphs of one shape */ \
    X(stream_begin_capture_to_graph, 0) /* tests/test_graph_nodes.c */                \
    X(device_get_attribute, 0) /* reads only; tests/test_devices.c covers its errors */ \
    X(module_get_global, 0) /* modules are not modelled (tests/test_kernels.c) */       \
    X(function_set_attribute, 0)                                                    \
    X(occupancy_max_active_blocks_per_multiprocessor, 0)                            \
    X(occupancy_max_potential_block_size, 0)                                        \
    X(memcpy_2d, 0)       /* tests/test_pitched.c */                    \
    X(memcpy_2d_async, 0) /* tests/test_pitched.c */                    \
    X(memset_2d, 0)       /* tests/test_pitched.c */                    \
    X(memset_2d_async, 0) /* tests/test_pitched.c */                    \
    X(memcpy_3d, 0)       /* tests/test_pitched.c */                    \
    X(memcpy_3d_async, 0) /* tests/test_pitched.c */                    \
    X(memset_3d, 0)       /* tests/test_pitched.c */                    \
    X(memset_3d_async, 0) /* tests/test_pitched.c */                    \
    X(host_register, 0)   /* tests/test_suite.c: the model has no registered ranges */ \
    X(host_unregister, 0) /* tests/test_suite.c */                      \
    X(host_get_device_pointer, 0) /* tests/test_suite.c */              \
    X(function_get_param_info, 0) /* modules are not modelled (tests/test_kernels.c) */ \
    X(device_get_default_mem_pool, 0) /* tests/test_pools.c; malloc_async uses the default pool */ \
    X(device_get_mem_pool, 0)                                           \
    X(device_set_mem_pool, 0)                                           \
    X(mem_pool_create, 0)                                               \
    X(mem_pool_destroy, 0)                                              \
    X(mem_pool_set_attribute, 0)                                        \
    X(mem_pool_get_attribute, 0)                                        \
    X(mem_pool_trim_to, 0)                                              \
    X(malloc_from_pool_async, 0)                                        \
    X(malloc_managed, 0) /* tests/test_managed.c: the model has no managed memory */ \
    X(mem_prefetch_async, 0)                                            \
    X(mem_advise, 0)                                                    \
    X(mem_range_get_attribute, 0) /* tests/test_managed.c */            \
    X(stream_attach_mem_async, 0)                                       \
    X(host_alloc, 0) /* tests/test_managed.c */                        \
    X(host_get_flags, 0)                                                \
    X(set_device_flags, 0) /* tests/test_devices.c: a flag changes how waits wait, not what the model sees */ \
    X(get_device_flags, 0)                                              \
    X(device_reset, 0) /* tests/test_devices.c: it ends every object of the model at once */ \
    X(graph_add_memcpy_node, 0) /* graphs built node by node: tests/test_pitched.c */        \
    X(graph_memcpy_node_get_params, 0)                                  \
    X(graph_memcpy_node_set_params, 0)                                  \
    X(device_graph_mem_trim, 0) /* tests/test_graph_nodes.c */          \
    X(device_get_graph_mem_attribute, 0) /* tests/test_graph_nodes.c */ \
    X(device_set_graph_mem_attribute, 0)                                \
    X(graph_node_set_enabled, 0) /* tests/test_graph_nodes.c */         \
    X(graph_node_get_enabled, 0)                                        \
    X(stream_get_capture_info, 0) /* tests/test_graph.c: stream_is_capturing, with an id */ \
    X(device_set_cache_config, 0) /* tests/test_suite.c: a preference changes nothing the model sees */ \
    X(device_get_cache_config, 0)                                       \
    X(function_set_cache_config, 0)                                     \
    X(device_flush_gpu_direct_rdma_writes, 0) /* tests/test_suite.c: a fence changes nothing the model sees */ \
    X(stream_set_attribute, 0) /* tests/test_suite.c, tests/test_devices.c: how a wait waits, a stream's priority */ \
    X(stream_get_attribute, 0)                                          \
    X(stream_get_capture_info_v2, 0) /* tests/test_graph.c: a capture's graph and its streams' dependencies */ \
    X(stream_update_capture_dependencies, 0)                            \
    X(user_object_create, 0) /* tests/test_graph_nodes.c: references and destroys, not the model's memory */ \
    X(user_object_retain, 0)                                            \
    X(user_object_release, 0)                                           \
    X(graph_retain_user_object, 0)                                      \
    X(graph_release_user_object, 0)                                     \
    X(launch_kernel_ex, 0) /* tests/test_kernels.c: launch_kernel with attributes the model does not see */ \
    X(graph_kernel_node_set_attribute, 0) /* tests/test_graph_nodes.c */ \
    X(graph_kernel_node_get_attribute, 0)                               \
    X(graph_kernel_node_copy_attributes, 0)                             \
    X(stream_get_device, 0) /* tests/test_devices.c: a question about devices, not the model's objects */ \
    X(graph_instantiate_with_flags, 0) /* tests/test_graph_nodes.c */   \
    X(graph_upload, 0) /* tests/test_graph_nodes.c */ \
    X(event_record_with_flags, 0) /* tests/test_graph.c: DEFAULT is event_record; EXTERNAL needs a capture */ \
    X(stream_wait_event_with_flags, 0)                                  \
    X(device_set_limit, 0) /* tests/test_suite.c: a limit changes nothing the model sees */ \
    X(device_get_limit, 0)                                              \
    X(device_get_p2p_attribute, 0) /* tests/test_suite.c: a question about devices, not the model's objects */ \
    X(mem_pool_set_access, 0) /* tests/test_pools.c: access is recorded, the model's memory is every device's */ \
    X(mem_pool_get_access, 0)

#define FUZZ_ROW(op, modelled) fuzz_row_##op,
enum { FUZZ_OPERATIONS(FUZZ_ROW) fuzz_rows };
#undef FUZZ_ROW
#define FUZZ_HAS(op, params, args) fuzz_has_##op = fuzz_row_##op,
enum { XRT__BACKEND_OPS(FUZZ_HAS) fuzz_has };
#undef FUZZ_HAS

/* >> input */
static unsigned byte(void)
{
    if (!F.left) return 0;
    F.left--;
    return *F.in++;
}
static unsigned u16(void) { unsigned a = byte(); return a | byte() << 8; }

/* A size: mostly small, sometimes 0, sometimes near SIZE_MAX. */
static size_t any_size(size_t small)
{
    unsigned sel = byte();
    if (sel < 200) return small ? u16() % (small + 1) : 0;
    if (sel < 220) return 0;
    return SIZE_MAX - byte();
}

/* >> streams: slot STREAMS is the NULL stream */
static int stream_slot(void) { return (int)(byte() % (STREAMS + 1)); }
static xrt_stream stream_of(int slot) { return slot == STREAMS ? NULL : F.s[slot]; }
static int stream_ok(int slot) { return slot == STREAMS || F.s[slot] != NULL; }

/* The latest records on stream `slot` (-1: every stream) have completed. */
static void events_done(int slot)
{
    int i;
    for (i = 0; i < EVENTS; i++)
        if (F.e[i] && F.erec[i] && (slot < 0 || F.erec[i] == slot + 1)) F.edone[i] = 1;
}

static void sync_slot(int slot)
{
    if (slot == STREAMS) EXPECT(xrt_stream_synchronize(NULL), XRT_SUCCESS);
    else if (F.s[slot]) EXPECT(xrt_stream_synchronize(F.s[slot]), XRT_SUCCESS);
    if (F.dirty == slot) F.dirty = -1;
    events_done(slot);
}

static void nest_check(void);

static void all_done(void)
{
    EXPECT(xrt_device_synchronize(), XRT_SUCCESS);
    if (F.nested) { /* what the host functions enqueued while the first one waited */
        EXPECT(xrt_device_synchronize(), XRT_SUCCESS);
        nest_check();
        F.nested = 0;
    }
    F.dirty = -1;
    events_done(-1);
}

/* Data work goes to `slot` next: the previous stream with data work finishes
   first, and so does a host function that enqueues (its copy's place in its
   stream is not the harness's to know). */
static void data_on(int slot)
{
    if ((F.dirty >= 0 && F.dirty != slot) || F.nested) all_done();
    F.dirty = slot;
}


static void remember(void **list, void *h)
{
    memmove(list + 1, list, (STALE - 1) * sizeof *list);
    list[0] = h;
}

/* >> memory: a side of a copy or set */
typedef struct side {
    unsigned char *p, *model, *known;
    size_t room;      /* bytes from p to the end of its memory */
    int xrt;          /* an xrt allocation (range-checked) */
    int device;       /* device memory for the kind check */
} side;

/* A pointer inside a live buffer or a host array. Returns 0 if the chosen
   buffer is not allocated. */
static int pick_side(side *sd)
{
    unsigned which = byte() % (BUFS + HOSTS);
    size_t off;
    if (which < BUFS) {
        buffer *b = &F.buf[which];
        if (!b->p) return 0;
        off = u16() % b->size;
        sd->p = b->p + off;
        sd->model = b->model + off;
        sd->known = b->known + off;
        sd->room = b->size - off;
        sd->xrt = 1;
        sd->device = b->kind != PINNED;
    } else {
        which -= BUFS;
        off = u16() % HOST_SIZE;
        sd->p = F.host[which] + off;
        sd->model = F.host_model[which] + off;
        sd->known = F.host_known[which] + off;
        sd->room = HOST_SIZE - off;
        sd->xrt = 0;
        sd->device = 0;
    }
    return 1;
}

static int overlaps(const side *a, const side *b, size_t n)
{
    return a->p < b->p + n && b->p < a->p + n;
}

/* >> operations */
static void op_malloc(void)
{
    int slot = (int)(byte() % BUFS), kind = 1 + (int)(byte() % 3), ss = stream_slot();
    size_t size = any_size(MAX_ALLOC);
    buffer *b = &F.buf[slot];
    void *p = &p;
    xrt_status st, want;
    if (b->p) return;
    if (kind == ASYNC && !stream_ok(ss)) return;
    /* 0 bytes: success and NULL, as cudaMalloc, cudaMallocHost and cudaMallocAsync */
    want = size > MAX_ALLOC ? XRT_ERROR_OUT_OF_MEMORY : XRT_SUCCESS;
    st = kind == DEVICE ? xrt_malloc(&p, size) : kind == PINNED ? xrt_malloc_host(&p, size)
                                                                 : xrt_malloc_async(&p, size, stream_of(ss));
    if (trace) fprintf(stderr, "  malloc kind %d, %zu bytes -> %s\n", kind, size, xrt_status_string(st));
    CHECK(st == want, "malloc (kind %d) of %zu bytes -> %s, expected %s", kind, size, xrt_status_string(st),
          xrt_status_string(want));
    if (st != XRT_SUCCESS || size == 0) {
        CHECK(p == NULL, "a failed or empty allocation left %p", p);
        return;
    }
    CHECK(((uintptr_t)p % XRT_ALIGNMENT) == 0, "%p is not aligned", p);
    b->p = (unsigned char *)p;
    b->size = size;
    b->kind = kind;
    memset(b->known, 0, sizeof b->known);
}

static void op_free(void)
{
    int slot = (int)(byte() % BUFS), how = (int)(byte() % 4), ss = stream_slot(), i;
    buffer *b = &F.buf[slot];
    xrt_status st;
    if (how == 3) { /* a stale pointer, when no live buffer holds that address now */
        unsigned char *p = (unsigned char *)F.stale_p[byte() % STALE];
        if (!p) return;
        for (i = 0; i < BUFS; i++)
            if (F.buf[i].p && p >= F.buf[i].p && p < F.buf[i].p + F.buf[i].size) return;
        EXPECT(xrt_free(p), XRT_ERROR_INVALID_VALUE);
        EXPECT(xrt_free_host(p), XRT_ERROR_INVALID_VALUE);
        return;
    }
    if (!b->p) return;
    if (how == 2) { /* inside, not at the start */
        if (b->size < 2) return;
        EXPECT(xrt_free(b->p + 1 + byte() % (b->size - 1)), XRT_ERROR_INVALID_VALUE);
        return;
    }
    if (how == 1 && stream_ok(ss)) { /* stream-ordered */
        if (b->kind == PINNED) {
            EXPECT(xrt_free_async(b->p, stream_of(ss)), XRT_ERROR_INVALID_VALUE);
            return;
        }
        data_on(ss);
        st = xrt_free_async(b->p, stream_of(ss));
    } else if (byte() % 4 == 0) { /* the wrong function for its type */
        EXPECT(b->kind == PINNED ? xrt_free(b->p) : xrt_free_host(b->p), XRT_ERROR_INVALID_VALUE);
        return;
    } else {
        st = b->kind == PINNED ? xrt_free_host(b->p) : xrt_free(b->p);
        F.dirty = -1; /* a free waits for all queued work */
        events_done(-1);
    }
    if (trace) fprintf(stderr, "  free -> %s\n", xrt_status_string(st));
    CHECK(st == XRT_SUCCESS, "free of a live buffer -> %s", xrt_status_string(st));
    remember(F.stale_p, b->p);
    b->p = NULL;
}

static void op_memset(void)
{
    side d;
    int value = (int)byte(), async = (int)(byte() & 1), ss = stream_slot();
    size_t n;
    xrt_status st, want;
    if (!pick_side(&d) || !stream_ok(ss)) return;
    n = any_size(d.room + 64);
    if (n == 0) want = XRT_SUCCESS;
    else if (!d.xrt) want = XRT_ERROR_INVALID_POINTER; /* plain host memory */
    else if (n > d.room) want = XRT_ERROR_INVALID_VALUE;
    else want = XRT_SUCCESS;
    if (want == XRT_SUCCESS && n) data_on(async ? ss : STREAMS);
    st = async ? xrt_memset_async(d.p, value, n, stream_of(ss)) : xrt_memset(d.p, value, n);
    if (trace) fprintf(stderr, "  memset%s %zu bytes -> %s\n", async ? "_async" : "", n, xrt_status_string(st));
    CHECK(st == want, "memset%s of %zu bytes (%zu in range) -> %s, expected %s", async ? "_async" : "", n, d.room,
          xrt_status_string(st), xrt_status_string(want));
    if (st == XRT_SUCCESS && n) {
        memset(d.model, value, n);
        memset(d.known, 1, n);
        if (!async) F.dirty = -1;
    }
}

static int kind_fits(xrt_memcpy_kind k, const side *dst, const side *src)
{
    int want_dst = k == XRT_MEMCPY_HOST_TO_DEVICE || k == XRT_MEMCPY_DEVICE_TO_DEVICE;
    int want_src = k == XRT_MEMCPY_DEVICE_TO_HOST || k == XRT_MEMCPY_DEVICE_TO_DEVICE;
    if (k == XRT_MEMCPY_DEFAULT) return 1;
    return dst->device == want_dst && src->device == want_src;
}

static void op_memcpy(void)
{
    side d, s;
    unsigned kb = byte();
    xrt_memcpy_kind kind = kb < 160 ? XRT_MEMCPY_DEFAULT : (xrt_memcpy_kind)(kb % 6); /* 5: not a kind */
    int async = (int)(byte() & 1), ss = stream_slot();
    size_t n, room;
    xrt_status st, a = XRT_SUCCESS, b = XRT_SUCCESS;
    if (!pick_side(&d) || !pick_side(&s) || !stream_ok(ss)) return;
    room = d.room < s.room ? d.room : s.room;
    n = any_size(room + 64);
    if ((unsigned)kind > XRT_MEMCPY_DEFAULT) a = b = XRT_ERROR_INVALID_MEMCPY_KIND;
    else if (n == 0) a = b = XRT_SUCCESS;
    else {
        int range = (d.xrt && n > d.room) || (s.xrt && n > s.room);
        int kind_bad = !kind_fits(kind, &d, &s);
        if (!range && ((!d.xrt && n > d.room) || (!s.xrt && n > s.room))) return; /* would overrun plain memory */
        if (range) a = XRT_ERROR_INVALID_VALUE;
        if (kind_bad) b = XRT_ERROR_INVALID_MEMCPY_KIND;
        if (range && !kind_bad) b = a;
        if (kind_bad && !range) a = b;
        if (a == XRT_SUCCESS && overlaps(&d, &s, n)) return; /* memcpy's own rule */
    }
    if (a == XRT_SUCCESS && n) data_on(async ? ss : STREAMS);
    st = async ? xrt_memcpy_async(d.p, s.p, n, kind, stream_of(ss)) : xrt_memcpy(d.p, s.p, n, kind);
    if (trace) fprintf(stderr, "  memcpy%s %zu bytes, kind %d -> %s\n", async ? "_async" : "", n, (int)kind, xrt_status_string(st));
    CHECK(st == a || st == b, "memcpy%s of %zu bytes (room %zu, %zu; xrt %d, %d; kind %d) -> %s, expected %s",
          async ? "_async" : "", n, d.room, s.room, d.xrt, s.xrt, (int)kind, xrt_status_string(st), xrt_status_string(a));
    if (st == XRT_SUCCESS && n) {
        size_t i;
        memmove(d.model, s.model, n);
        memmove(d.known, s.known, n);
        if (!async) F.dirty = -1;
        if (async && !d.xrt) /* pageable destination: written before the call returned */
            for (i = 0; i < n; i++)
                CHECK(!d.known[i] || d.p[i] == d.model[i], "pageable copy: byte %zu is 0x%02x at return, model 0x%02x",
                      i, d.p[i], d.model[i]);
        if (async && !s.xrt) { /* pageable source: read before the call returned */
            unsigned char v = (unsigned char)byte();
            memset(s.p, v, n);
            memset(s.model, v, n);
            memset(s.known, 1, n);
        }
    }
}

/* Synchronizes and compares a buffer or host array with the model. */
static void op_check(void)
{
    static unsigned char back[MAX_ALLOC];
    unsigned which = byte() % (BUFS + HOSTS);
    size_t i, n;
    const unsigned char *got, *model, *known;
    all_done();
    if (which < BUFS) {
        buffer *b = &F.buf[which];
        xrt_pointer_attributes a;
        if (!b->p) return;
        n = b->size;
        EXPECT(xrt_pointer_get_attributes(&a, b->p + n - 1), XRT_SUCCESS);
        CHECK(a.base == b->p && a.size == n && a.type == (b->kind == PINNED ? XRT_MEMORY_PINNED_HOST : XRT_MEMORY_DEVICE),
              "attributes: base %p size %zu type %d", a.base, a.size, (int)a.type);
        EXPECT(xrt_memcpy(back, b->p, n, XRT_MEMCPY_DEFAULT), XRT_SUCCESS);
        got = back;
        model = b->model;
        known = b->known;
    } else {
        n = HOST_SIZE;
        got = F.host[which - BUFS];
        model = F.host_model[which - BUFS];
        known = F.host_known[which - BUFS];
    }
    for (i = 0; i < n; i++) CHECK(!known[i] || got[i] == model[i], "byte %zu is 0x%02x, model 0x%02x", i, got[i], model[i]);
}

static void count_up(void *user) { __atomic_add_fetch((int *)user, 1, __ATOMIC_ACQ_REL); }

/* >> host functions that enqueue (on the CPU backend; GPU runtimes refuse) */
static struct {
    xrt_stream s; /* its own stream */
    int count, copy;
    size_t src, dst; /* a 64-byte copy from host array 0 to host array 1 */
    xrt_status bad;  /* the first failing call's status */
    int done;
} nest;

static void nest_run(void *user)
{
    int i;
    xrt_status st = XRT_SUCCESS;
    (void)user;
    for (i = 0; i < nest.count && st == XRT_SUCCESS; i++) st = xrt_launch_host_func(nest.s, count_up, &F.host_calls);
    if (st == XRT_SUCCESS && nest.copy)
        st = xrt_memcpy_async(F.host[1] + nest.dst, F.host[0] + nest.src, 64, XRT_MEMCPY_HOST_TO_HOST, nest.s);
    nest.bad = st;
    __atomic_store_n(&nest.done, 1, __ATOMIC_RELEASE);
}

/* After the wait for everything: the host function ran and every call it made succeeded. */
static void nest_check(void)
{
    CHECK(__atomic_load_n(&nest.done, __ATOMIC_ACQUIRE), "a host function that enqueues did not run");
    CHECK(nest.bad == XRT_SUCCESS, "a call from a host function -> %s", xrt_status_string(nest.bad));
}

static void op_nested(void)
{
    int slot = stream_slot(), big = byte() < 40;
    unsigned count = big ? 1024 + u16() % 2000 : byte() % 8;
    int copy = (int)(byte() & 1);
    size_t src = u16() % (HOST_SIZE - 64), dst = u16() % (HOST_SIZE - 64);
    if (!stream_ok(slot)) return;
    if (F.dirty >= 0 || F.nested) all_done(); /* the copy's host arrays are the host function's alone */
    memset(&nest, 0, sizeof nest);
    nest.s = stream_of(slot);
    nest.count = (int)count;
    nest.copy = copy;
    nest.src = src;
    nest.dst = dst;
    EXPECT(xrt_launch_host_func(nest.s, nest_run, NULL), XRT_SUCCESS);
    F.host_expected += (int)count;
    F.nested = 1;
    F.dirty = slot;
    if (copy) {
        memmove(F.host_model[1] + dst, F.host_model[0] + src, 64);
        memmove(F.host_known[1] + dst, F.host_known[0] + src, 64);
    }
}

static void op_stream(void)
{
    int slot = (int)(byte() % STREAMS), what = (int)(byte() % 6);
    xrt_stream s = F.s[slot];
    if (what == 0) { /* create, or destroy the live one */
        if (!s) {
            EXPECT(xrt_stream_create(&F.s[slot]), XRT_SUCCESS);
            CHECK(F.s[slot] != NULL, "no handle");
            return;
        }
        if (F.nested) all_done(); /* the host function that enqueues uses the handle */
        if (F.dirty == slot) F.dirty = ANYWHERE; /* its work completes on its own, in its own time */
        EXPECT(xrt_stream_destroy(s), XRT_SUCCESS);
        remember(F.stale_s, s);
        F.s[slot] = NULL;
        return;
    }
    if (!s) return;
    if (what == 1) sync_slot(slot);
    else if (what == 2) EXPECT2(xrt_stream_query(s), XRT_SUCCESS, XRT_ERROR_NOT_READY);
    else if (what == 3) {
        EXPECT(xrt_launch_host_func(s, count_up, &F.host_calls), XRT_SUCCESS);
        F.host_expected++;
    } else if (what == 4) {
        int e = (int)(byte() % EVENTS);
        if (F.e[e]) EXPECT(xrt_stream_wait_event(s, F.e[e]), XRT_SUCCESS);
    } else {
        EXPECT(xrt_launch_host_func(s, NULL, NULL), XRT_ERROR_INVALID_VALUE);
    }
}

static void op_event(void)
{
    int slot = (int)(byte() % EVENTS), what = (int)(byte() % 6), ss;
    xrt_event e = F.e[slot];
    float ms;
    if (what == 0) {
        if (!e) {
            unsigned flags = byte();
            flags = flags < 200 ? flags % 4 : flags; /* mostly valid */
            EXPECT(xrt_event_create(&F.e[slot], flags), flags < 4 ? XRT_SUCCESS : XRT_ERROR_INVALID_VALUE);
            F.eflags[slot] = flags;
            F.erec[slot] = F.edone[slot] = 0;
            return;
        }
        EXPECT(xrt_event_destroy(e), XRT_SUCCESS);
        remember(F.stale_e, e);
        F.e[slot] = NULL;
        return;
    }
    if (!e) return;
    if (what == 1) {
        ss = stream_slot();
        if (!stream_ok(ss)) return;
        EXPECT(xrt_event_record(e, stream_of(ss)), XRT_SUCCESS);
        F.erec[slot] = ss + 1;
        F.edone[slot] = 0;
    } else if (what == 2) {
        if (!F.erec[slot] || F.edone[slot]) EXPECT(xrt_event_query(e), XRT_SUCCESS);
        else EXPECT2(xrt_event_query(e), XRT_SUCCESS, XRT_ERROR_NOT_READY);
    } else if (what == 3) {
        EXPECT(xrt_event_synchronize(e), XRT_SUCCESS);
        if (F.erec[slot]) F.edone[slot] = 1;
        EXPECT(xrt_event_query(e), XRT_SUCCESS);
    } else {
        int o = (int)(byte() % EVENTS), bad, known;
        if (!F.e[o]) return;
        bad = ((F.eflags[slot] | F.eflags[o]) & XRT_EVENT_DISABLE_TIMING) || !F.erec[slot] || !F.erec[o];
        known = (!F.erec[slot] || F.edone[slot]) && (!F.erec[o] || F.edone[o]);
        /* with an event pending, which answer comes first is not specified */
        if (bad) EXPECT2(xrt_event_elapsed_time(&ms, e, F.e[o]), XRT_ERROR_INVALID_HANDLE, known ? XRT_ERROR_INVALID_HANDLE : XRT_ERROR_NOT_READY);
        else if (known) EXPECT(xrt_event_elapsed_time(&ms, e, F.e[o]), XRT_SUCCESS);
        else EXPECT2(xrt_event_elapsed_time(&ms, e, F.e[o]), XRT_SUCCESS, XRT_ERROR_NOT_READY);
    }
}

/* Destroyed, garbage and wrong-kind handles: invalid handle, nothing else
   (the special streams' values are no garbage). */
static int live_handle(const void *h)
{
    int i;
    if (!h) return 0;
    for (i = 0; i < STREAMS; i++)
        if ((const void *)F.s[i] == h) return 1;
    for (i = 0; i < EVENTS; i++)
        if ((const void *)F.e[i] == h) return 1;
    return 0;
}

static void op_bad_handle(void)
{
    unsigned src = byte() % 4, call = byte() % 10;
    void *h;
    unsigned char tmp[16] = {0};
    float ms;
    if (src == 0) h = F.stale_s[byte() % STALE];
    else if (src == 1) h = F.stale_e[byte() % STALE];
    else if (src == 2) { /* a live handle of the other kind */
        int i = (int)(byte() % STREAMS);
        h = byte() & 1 ? (void *)F.s[i] : (void *)F.e[i % EVENTS];
        if (!h) return;
        /* passed below as the other kind only */
        if ((void *)F.s[i] == h) {
            EXPECT(xrt_event_query((xrt_event)h), XRT_ERROR_INVALID_HANDLE);
            EXPECT(xrt_event_destroy((xrt_event)h), XRT_ERROR_INVALID_HANDLE);
        } else {
            EXPECT(xrt_stream_query((xrt_stream)h), XRT_ERROR_INVALID_HANDLE);
            EXPECT(xrt_stream_destroy((xrt_stream)h), XRT_ERROR_INVALID_HANDLE);
        }
        return;
    } else {
        uintptr_t v = 0;
        int k;
        for (k = 0; k < 8; k++) v |= (uintptr_t)byte() << (8 * k);
        h = (void *)v;
    }
    /* 1 and 2 are XRT_STREAM_LEGACY and XRT_STREAM_PER_THREAD, live streams */
    if ((uintptr_t)h <= (uintptr_t)XRT_STREAM_PER_THREAD || live_handle(h)) return;
    switch (call) {
    case 0: EXPECT(xrt_stream_query((xrt_stream)h), XRT_ERROR_INVALID_HANDLE); break;
    case 1: EXPECT(xrt_stream_synchronize((xrt_stream)h), XRT_ERROR_INVALID_HANDLE); break;
    case 2: EXPECT(xrt_stream_destroy((xrt_stream)h), XRT_ERROR_INVALID_HANDLE); break;
    case 3: EXPECT(xrt_launch_host_func((xrt_stream)h, count_up, &F.host_calls), XRT_ERROR_INVALID_HANDLE); break;
    case 4: EXPECT(xrt_memcpy_async(tmp, tmp + 8, 8, XRT_MEMCPY_HOST_TO_HOST, (xrt_stream)h), XRT_ERROR_INVALID_HANDLE); break;
    case 5: EXPECT(xrt_event_query((xrt_event)h), XRT_ERROR_INVALID_HANDLE); break;
    case 6: EXPECT(xrt_event_synchronize((xrt_event)h), XRT_ERROR_INVALID_HANDLE); break;
    case 7: EXPECT(xrt_event_destroy((xrt_event)h), XRT_ERROR_INVALID_HANDLE); break;
    case 8: EXPECT(xrt_event_record((xrt_event)h, NULL), XRT_ERROR_INVALID_HANDLE); break;
    default: EXPECT(xrt_event_elapsed_time(&ms, (xrt_event)h, (xrt_event)h), XRT_ERROR_INVALID_HANDLE); break;
    }
}

/* >> thread exit */
static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;
static struct { xrt_stream s; xrt_event e; int rounds; char bad[256]; } X;

static void exit_note(int round, const char *call, xrt_status st)
{
    int last = round >= XRT__EXIT_ROUNDS;
    int ok = last ? st == XRT_ERROR_NOT_PERMITTED
                  : st == XRT_SUCCESS || st == XRT_ERROR_NOT_READY || st == XRT_ERROR_INVALID_HANDLE;
    if (!ok && !X.bad[0])
        snprintf(X.bad, sizeof X.bad, "%s in destructor round %d -> %s", call, round, xrt_status_string(st));
}

static void exit_destructor(void *value)
{
    int round = (int)(uintptr_t)value;
    exit_note(round, "xrt_stream_query", xrt_stream_query(X.s));
    if (X.e) exit_note(round, "xrt_event_query", xrt_event_query(X.e));
    X.rounds = round;
    pthread_setspecific(exit_key, (void *)(uintptr_t)(round + 1)); /* and again in the next round */
}

static void exit_key_make(void)
{
    if (pthread_key_create(&exit_key, exit_destructor) != 0) abort();
}

static void *exiting(void *arg)
{
    int n;
    (void)arg;
    if (xrt_set_backend("cpu") != XRT_SUCCESS || xrt_get_device_count(&n) != XRT_SUCCESS) return (void *)1;
    pthread_setspecific(exit_key, (void *)(uintptr_t)1);
    return NULL;
}

static void op_thread_exit(void)
{
    int ss = stream_slot(), es = (int)(byte() % EVENTS), destroy = (int)(byte() % 3);
    pthread_t t;
    void *ret = NULL;
    if (!stream_ok(ss)) return;
    if (F.nested && destroy == 1) all_done(); /* the host function that enqueues uses the stream's handle */
    xrt_get_last_error(); /* exit_key is made on the first xrt call's key: after xrt's own */
    pthread_once(&exit_once, exit_key_make);
    memset(&X, 0, sizeof X);
    X.s = stream_of(ss);
    X.e = F.e[es];
    CHECK(pthread_create(&t, NULL, exiting, NULL) == 0, "pthread_create");
    if (destroy == 1 && ss < STREAMS) { /* while the thread exits */
        if (F.dirty == ss) F.dirty = ANYWHERE;
        EXPECT(xrt_stream_destroy(F.s[ss]), XRT_SUCCESS);
        remember(F.stale_s, F.s[ss]);
        F.s[ss] = NULL;
    } else if (destroy == 2 && F.e[es]) {
        EXPECT(xrt_event_destroy(F.e[es]), XRT_SUCCESS);
        remember(F.stale_e, F.e[es]);
        F.e[es] = NULL;
    }
    CHECK(pthread_join(t, &ret) == 0 && ret == NULL, "the exiting thread failed");
    CHECK(!X.bad[0], "%s", X.bad);
    CHECK(X.rounds >= XRT__EXIT_ROUNDS, "%d destructor rounds", X.rounds);
}

/* A graph round: up to four copies and sets between xrt allocations
   captured on a stream (nothing runs: the data must not change), sometimes
   through a scratch buffer that the capture allocates and frees (a set is
   then a set of the buffer and a copy from it) or leaves to the caller
   (who frees it after each launch, and whose launch before that free is
   refused), sometimes a call the capture
   refuses (the end then fails, naming it, and the buffer goes with it),
   else the graph instantiated and launched up to three times on any
   streams, after which the model applies the captured work as many times,
   in order. */
typedef struct graph_op { side d, s; size_t n; int value, copy; } graph_op;

static int graph_pick(graph_op *g)
{
    g->copy = (int)(byte() & 1);
    g->value = (int)byte();
    if (!pick_side(&g->d) || !g->d.xrt || (g->copy && (!pick_side(&g->s) || !g->s.xrt))) return 0;
    g->n = 1 + u16() % (g->copy && g->s.room < g->d.room ? g->s.room : g->d.room);
    return !g->copy || !overlaps(&g->d, &g->s, g->n);
}

static void graph_apply(const graph_op *g)
{
    if (g->copy) {
        memmove(g->d.model, g->s.model, g->n);
        memmove(g->d.known, g->s.known, g->n);
    } else {
        memset(g->d.model, g->value, g->n);
        memset(g->d.known, 1, g->n);
    }
}

static void op_graph(void)
{
    graph_op ops[4];
    int cs = (int)(byte() % STREAMS), n = 1 + (int)(byte() % 4), launches = 1 + (int)(byte() % 3), i, k, refuse, left;
    xrt_capture_mode mode = (xrt_capture_mode)(byte() % 3);
    xrt_capture_status status;
    xrt_graph g = NULL;
    xrt_graph_exec x = NULL;
    xrt_graph_info info;
    size_t j, tn = 0, nodes;
    void *t = NULL;
    refuse = byte() % 8 == 0;
    if (!F.s[cs]) return;
    for (i = 0; i < n; i++)
        if (!graph_pick(&ops[i])) return;
    if (byte() % 4 == 0)
        for (i = 0; i < n; i++)
            if (!ops[i].copy && ops[i].n > tn) tn = ops[i].n;
    all_done();
    EXPECT(xrt_stream_begin_capture(F.s[cs], mode), XRT_SUCCESS);
    left = tn && (byte() & 1);
    if (tn) EXPECT(xrt_malloc_async(&t, tn, F.s[cs]), XRT_SUCCESS);
    nodes = (size_t)n + (tn ? 2 - (size_t)left : 0);
    for (i = 0; i < n; i++)
        if (ops[i].copy)
            EXPECT(xrt_memcpy_async(ops[i].d.p, ops[i].s.p, ops[i].n, XRT_MEMCPY_DEFAULT, F.s[cs]), XRT_SUCCESS);
        else if (!t)
            EXPECT(xrt_memset_async(ops[i].d.p, ops[i].value, ops[i].n, F.s[cs]), XRT_SUCCESS);
        else {
            EXPECT(xrt_memset_async(t, ops[i].value, ops[i].n, F.s[cs]), XRT_SUCCESS);
            EXPECT(xrt_memcpy_async(ops[i].d.p, t, ops[i].n, XRT_MEMCPY_DEFAULT, F.s[cs]), XRT_SUCCESS);
            nodes++;
        }
    for (i = 0; i < n; i++) /* captured, not run */
        for (j = 0; j < ops[i].n; j++)
            CHECK(!ops[i].d.known[j] || ops[i].d.p[j] == ops[i].d.model[j], "captured work ran: byte %zu", j);
    if (refuse) {
        EXPECT(xrt_stream_synchronize(F.s[cs]), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED);
        EXPECT(xrt_stream_is_capturing(F.s[cs], &status), XRT_SUCCESS);
        CHECK(status == XRT_CAPTURE_STATUS_INVALIDATED, "capture status %d after a refused call", (int)status);
        EXPECT(xrt_stream_end_capture(F.s[cs], &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED);
        CHECK(g == NULL && strstr(xrt_get_last_error_string(), "xrt_stream_synchronize"), "end: %s",
              xrt_get_last_error_string());
        if (t) EXPECT(xrt_free(t), XRT_ERROR_INVALID_VALUE); /* gone with the failed capture */
        return;
    }
    if (t && !left) EXPECT(xrt_free_async(t, F.s[cs]), XRT_SUCCESS);
    EXPECT(xrt_stream_end_capture(F.s[cs], &g), XRT_SUCCESS);
    EXPECT(xrt_graph_get_info(g, &info), XRT_SUCCESS);
    CHECK(info.nodes == nodes && info.edges == nodes - 1, "%zu nodes, %zu edges for %d ops, scratch %zu bytes",
          info.nodes, info.edges, n, tn);
    EXPECT(xrt_graph_instantiate(&x, g), XRT_SUCCESS);
    if (byte() & 1) { /* the exec keeps what it needs */
        EXPECT(xrt_graph_destroy(g), XRT_SUCCESS);
        g = NULL;
    }
    for (k = 0; k < launches; k++) {
        int ls = stream_slot();
        if (!stream_ok(ls)) ls = STREAMS;
        EXPECT(xrt_graph_launch(x, stream_of(ls)), XRT_SUCCESS);
        if (!left) continue;
        if (byte() % 4 == 0) EXPECT(xrt_graph_launch(x, stream_of(ls)), XRT_ERROR_INVALID_VALUE); /* t not freed */
        EXPECT(xrt_free_async(t, stream_of(ls)), XRT_SUCCESS);
    }
    EXPECT(xrt_graph_exec_destroy(x), XRT_SUCCESS); /* launches made still run */
    all_done();
    for (k = 0; k < launches; k++)
        for (i = 0; i < n; i++) graph_apply(&ops[i]);
    EXPECT(xrt_graph_launch(x, NULL), XRT_ERROR_INVALID_HANDLE);
    if (g) EXPECT(xrt_graph_destroy(g), XRT_SUCCESS);
}

/* >> graphs built node by node: up to six of op_graph's copies and sets
   added with xrt_graph_add_node, each after every earlier node whose bytes
   it shares with a write on either side, and at random after others; then
   at random an edge is added (and its reverse refused as a cycle), edges
   are removed where no shared byte needs them, the last node is destroyed,
   or a clone is launched instead. What runs must be the nodes
   applied in the order they were added (the graph's edges order every pair
   that shares bytes). */
static int graph_ops_clash(const graph_op *a, const graph_op *b)
{
    const side *ra = a->copy ? &a->s : NULL, *rb = b->copy ? &b->s : NULL;
    const unsigned char *ad = a->d.p, *bd = b->d.p;
    return (ad < bd + b->n && bd < ad + a->n) || (rb && ad < rb->p + b->n && rb->p < ad + a->n) ||
           (ra && bd < ra->p + a->n && ra->p < bd + b->n);
}

static void graph_node_params(xrt_graph_node_params *p, const graph_op *g)
{
    memset(p, 0, sizeof *p);
    if (g->copy) {
        p->type = XRT_GRAPH_NODE_MEMCPY;
        p->copy.dst = g->d.p;
        p->copy.src = g->s.p;
        p->copy.size = g->n;
        p->copy.kind = XRT_MEMCPY_DEFAULT;
    } else {
        p->type = XRT_GRAPH_NODE_MEMSET;
        p->set.dst = g->d.p;
        p->set.value = (unsigned)g->value & 0xffu;
        p->set.element_size = 1;
        p->set.width = p->set.pitch = g->n;
        p->set.height = 1;
    }
}

/* Whether `to` depends on `from` directly. */
static int graph_has_edge(xrt_graph_node from, xrt_graph_node to)
{
    xrt_graph_node deps[6];
    size_t count = 6, i;
    int found = 0;
    EXPECT(xrt_graph_node_get_dependencies(to, deps, &count), XRT_SUCCESS);
    for (i = 0; i < count; i++) found |= deps[i] == from;
    return found;
}

static void op_graph_built(void)
{
    graph_op ops[6];
    xrt_graph_node node[6], deps[6], clone_node;
    xrt_graph_node_params params;
    int n = 1 + (int)(byte() % 6), ls = stream_slot(), i, k, had, change = (int)(byte() % 4);
    size_t nd, count = 0;
    xrt_graph g = NULL, run = NULL;
    xrt_graph_exec x = NULL;
    for (i = 0; i < n; i++)
        if (!graph_pick(&ops[i])) return;
    if (!stream_ok(ls)) ls = STREAMS;
    all_done();
    EXPECT(xrt_graph_create(&g, 0), XRT_SUCCESS);
    for (i = 0; i < n; i++) {
        for (nd = 0, k = 0; k < i; k++)
            if (graph_ops_clash(&ops[k], &ops[i]) || byte() % 4 == 0) deps[nd++] = node[k];
        graph_node_params(&params, &ops[i]);
        EXPECT(xrt_graph_add_node(&node[i], g, deps, nd, &params), XRT_SUCCESS);
        EXPECT(xrt_graph_node_get_dependencies(node[i], NULL, &count), XRT_SUCCESS);
        CHECK(count == nd, "node %d has %zu dependencies, %zu given", i, count, nd);
    }
    if (change == 0 && n > 1) { /* an edge forward is added (unless there), one backward is a cycle */
        i = 1 + (int)(byte() % (unsigned)(n - 1));
        k = (int)(byte() % (unsigned)i);
        had = graph_has_edge(node[k], node[i]); /* (EXPECT evaluates its status after the call) */
        EXPECT(xrt_graph_add_dependencies(g, &node[k], &node[i], 1), had ? XRT_ERROR_INVALID_VALUE : XRT_SUCCESS);
        EXPECT(xrt_graph_add_dependencies(g, &node[i], &node[k], 1), XRT_ERROR_INVALID_VALUE);
    }
    if (change == 1) /* an edge no shared byte needs goes; one that is not there is refused */
        for (i = 1; i < n; i++)
            for (k = 0; k < i; k++)
                if (!graph_ops_clash(&ops[k], &ops[i])) {
                    had = graph_has_edge(node[k], node[i]);
                    EXPECT(xrt_graph_remove_dependencies(g, &node[k], &node[i], 1),
                           had ? XRT_SUCCESS : XRT_ERROR_INVALID_VALUE);
                }
    if (change == 2) EXPECT(xrt_graph_destroy_node(node[--n]), XRT_SUCCESS); /* it and its edges */
    run = g;
    if (change == 3) {
        EXPECT(xrt_graph_clone(&run, g), XRT_SUCCESS);
        EXPECT(xrt_graph_node_find_in_clone(&clone_node, node[n - 1], run), XRT_SUCCESS);
        EXPECT(xrt_graph_node_get_dependencies(clone_node, NULL, &count), XRT_SUCCESS);
        EXPECT(xrt_graph_node_get_dependencies(node[n - 1], NULL, &nd), XRT_SUCCESS);
        CHECK(count == nd, "the clone's last node has %zu dependencies, the original's %zu", count, nd);
        EXPECT(xrt_graph_destroy(g), XRT_SUCCESS); /* the clone stands alone */
        g = NULL;
    }
    EXPECT(xrt_graph_get_nodes(run, NULL, &count), XRT_SUCCESS);
    CHECK(count == (size_t)n, "%zu nodes, %d added", count, n);
    EXPECT(xrt_graph_instantiate(&x, run), XRT_SUCCESS);
    EXPECT(xrt_graph_launch(x, stream_of(ls)), XRT_SUCCESS);
    EXPECT(xrt_graph_exec_destroy(x), XRT_SUCCESS);
    EXPECT(xrt_graph_destroy(run), XRT_SUCCESS);
    all_done();
    for (i = 0; i < n; i++) graph_apply(&ops[i]);
}

/* >> memory shared between processes: a handle of a buffer, changed at
   random, with its checksum made right again or not (so that the checks
   behind it are reached: pid, fd, inode, range, generation), opened here.
   This process made the real ones, so nothing opens: its own handle is
   refused as its own, anything else as forged or stale, and nothing may be
   mapped (or crash, or block on whatever a forged pid and fd name). */
static void op_ipc(void)
{
    int slot = (int)(byte() % BUFS), changes = (int)(byte() % 8), fix = (int)(byte() & 1), i;
    unsigned flags = byte() & 3;
    buffer *b = &F.buf[slot];
    xrt_ipc_mem_handle h;
    void *p = &p;
    xrt_status st;
    if (b->p && b->kind == PINNED) {
        EXPECT(xrt_ipc_get_mem_handle(&h, b->p), XRT_ERROR_INVALID_VALUE);
        return;
    }
    if (b->p) {
        EXPECT(xrt_ipc_get_mem_handle(&F.ipc, b->p + u16() % b->size), XRT_SUCCESS);
        F.has_ipc = 1;
    }
    if (F.has_ipc) h = F.ipc;
    else memset(&h, 0, sizeof h);
    for (i = 0; i < changes; i++) h.reserved[byte() % sizeof h.reserved] = (unsigned char)byte();
    if (fix) {
        xrt__cpu_ipc k;
        memcpy(&k, h.reserved, sizeof k);
        k.check = xrt__cpu_ipc_check(&k);
        memcpy(h.reserved, &k, sizeof k);
    }
    st = xrt_ipc_open_mem_handle(&p, h, flags);
    if (trace) fprintf(stderr, "  ipc open (%d changes%s) -> %s\n", changes, fix ? ", checksum fixed" : "", xrt_status_string(st));
    CHECK(st == XRT_ERROR_INVALID_VALUE || st == XRT_ERROR_INVALID_HANDLE, "an IPC open in the exporter -> %s (%s)",
          xrt_status_string(st), xrt_get_last_error_string());
    CHECK(p == NULL, "a failed open left %p", p);
    EXPECT(xrt_ipc_close_mem_handle(b->p ? (void *)b->p : (void *)&h), XRT_ERROR_INVALID_VALUE);
}

static void cleanup(void)
{
    int i;
    all_done();
    CHECK(__atomic_load_n(&F.host_calls, __ATOMIC_ACQUIRE) == F.host_expected, "%d host functions ran, %d enqueued",
          F.host_calls, F.host_expected);
    for (i = 0; i < BUFS; i++)
        if (F.buf[i].p) EXPECT(F.buf[i].kind == PINNED ? xrt_free_host(F.buf[i].p) : xrt_free(F.buf[i].p), XRT_SUCCESS);
    for (i = 0; i < STREAMS; i++)
        if (F.s[i]) EXPECT(xrt_stream_destroy(F.s[i]), XRT_SUCCESS);
    for (i = 0; i < EVENTS; i++)
        if (F.e[i]) EXPECT(xrt_event_destroy(F.e[i]), XRT_SUCCESS);
    xrt_shutdown();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static void (*const ops[])(void) = {op_malloc, op_free,  op_memset,     op_memcpy,      op_check, op_stream,
                                        op_event,  op_bad_handle, op_nested, op_thread_exit, op_graph, op_ipc,
                                        op_graph_built};
    memset(&F, 0, sizeof F);
    trace = getenv("FUZZ_API_TRACE") != NULL;
    F.in = data;
    F.left = size;
    F.dirty = -1;
    xrt_set_log_level(XRT_LOG_NONE); /* the expected failures */
    if (xrt_set_backend("cpu") != XRT_SUCCESS) abort();
    for (op_index = 0; F.left && op_index < 256; op_index++) ops[byte() % (sizeof ops / sizeof ops[0])]();
    cleanup();
    return 0;
}
