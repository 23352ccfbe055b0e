/* SPDX-License-Identifier: MIT */
/* Graphs: stream capture, instantiate, launch, update, and the capture
   rules. Every group runs on each available backend; a backend without
   XRT_CAP_GRAPHS says "skipped". Kernels are C source for the CPU backend,
   built with the kernel cache off, and PTX for CUDA. On CUDA and HIP the
   capture rules are the runtime's: a refusal's status is the same as on
   the CPU, its detail names the xrt call and the runtime's entry point
   (rule()), as the runtimes do not say which call invalidated a capture. */
#include "xrt_test.h"

#include "graph_kernels.h"

/* A kernel's arithmetic as a host function, for a backend that loads no
   modules (CUDA without its driver: the runtime's test double, whose device
   memory is host memory): the graphs keep their shape, with host nodes for
   kernel nodes. */
typedef struct host_step {
    arg_t a;
    int mul;
} host_step;

static void host_step_fn(void *user)
{
    host_step *k = (host_step *)user;
    unsigned i;
    for (i = 0; i < k->a.n; i++) /* wrapping, as the kernels do: some launches run on bytes never set */
        k->a.p[i] = (int)(k->mul ? (unsigned)k->a.p[i] * (unsigned)k->a.v : (unsigned)k->a.p[i] + (unsigned)k->a.v);
}

typedef struct fixture {
    xrt_module m;
    xrt_function add, mul;
    xrt_stream s[3];
    xrt_event e[3];
    int *d, *h; /* N ints of device memory, N pinned */
    int host_steps; /* no modules: kernels are host functions (host_step) */
    host_step steps[32]; /* their arguments, alive as long as the graphs */
    int nsteps;
} fixture;

/* Where the capture rules are the runtime's (CUDA, HIP), the detail xrt
   writes for a refusal: "<xrt call>: cuda: cuda<Entry>"; on the CPU, xrt's
   own detail. */
static const char *rule(char *buf, size_t n, const char *cpu_detail, const char *xrt_call, const char *entry)
{
    if (on_cpu()) return cpu_detail;
    if (entry) snprintf(buf, n, "%s: %s: %s%s", xrt_call, xrt_test_backend, xrt_test_backend, entry);
    else snprintf(buf, n, "%s: %s", xrt_call, xrt_test_backend); /* the driver's entry point */
    return buf;
}
#define RULE(cpu_detail, xrt_call, entry) rule(rule_buf[rule_n++ % 4], sizeof rule_buf[0], cpu_detail, xrt_call, entry)
static char rule_buf[4][160];
static unsigned rule_n;

/* The end of an invalidated capture names the call that invalidated it, on
   every backend (where the runtime's own error does not, xrt remembers it). */
static void invalidated_by(const char *call)
{
    const char *d = xrt_get_last_error_string(), *by = strstr(d, "was invalidated by ");
    if (!by || !strstr(by, call)) fail_msg("\"%s\" does not say that %s invalidated the capture", d, call);
}

static void need_graphs(void)
{
    SKIP_UNLESS(caps() & XRT_CAP_GRAPHS, "the backend has no graphs (XRT_CAP_GRAPHS is clear)");
}

static void fx_make(fixture *f)
{
    xrt_module_image im[2] = {{XRT_IMAGE_CPU_C_SOURCE, graph_source, sizeof graph_source - 1, NULL},
                              {XRT_IMAGE_CUDA_PTX, graph_ptx, sizeof graph_ptx - 1, "compute_75"}};
    int i;
    memset(f, 0, sizeof *f);
    if (!(caps() & XRT_CAP_MODULES)) {
        f->host_steps = 1;
        f->add = (xrt_function)&f->add; /* which step: compared, never used as a handle */
        f->mul = (xrt_function)&f->mul;
    } else {
        OK(xrt_module_load(&f->m, im, 2, NULL));
        OK(xrt_module_get_function(&f->add, f->m, "add"));
        OK(xrt_module_get_function(&f->mul, f->m, "mul"));
    }
    for (i = 0; i < 3; i++) { /* non-blocking: their captures do not stop the NULL stream (test_capture_implicit) */
        OK(xrt_stream_create_with_flags(&f->s[i], XRT_STREAM_NON_BLOCKING));
        OK(xrt_event_create(&f->e[i], XRT_EVENT_DISABLE_TIMING));
    }
    OK(xrt_malloc((void **)&f->d, N * sizeof(int)));
    OK(xrt_malloc_host((void **)&f->h, N * sizeof(int)));
}

static void fx_free(fixture *f)
{
    int i;
    OK(xrt_device_synchronize());
    for (i = 0; i < 3; i++) {
        OK(xrt_stream_destroy(f->s[i]));
        OK(xrt_event_destroy(f->e[i]));
    }
    OK(xrt_free(f->d));
    OK(xrt_free_host(f->h));
    if (f->m) OK(xrt_module_unload(f->m));
}

static xrt_status launch_n(fixture *f, xrt_function k, int *p, int v, unsigned n, xrt_stream s)
{
    arg_t a;
    xrt_dim3 grid = {(n + 63) / 64, 1, 1}, block = {64, 1, 1};
    a.p = p;
    a.v = v;
    a.n = n;
    if (f->host_steps) {
        host_step *h = &f->steps[f->nsteps++];
        if (f->nsteps > (int)(sizeof f->steps / sizeof f->steps[0])) fail_msg("more than 32 host steps");
        h->a = a;
        h->mul = k == f->mul;
        return xrt_launch_host_func(s, host_step_fn, h);
    }
    return xrt_launch_kernel(k, grid, block, 0, s, &a, sizeof a);
}

static xrt_status launch(fixture *f, xrt_function k, int *p, int v, xrt_stream s) { return launch_n(f, k, p, v, N, s); }

/* The xrt call and entry point a launch() makes, for rule(). */
static const char *launch_call(const fixture *f) { return f->host_steps ? "xrt_launch_host_func" : "xrt_launch_kernel"; }
static const char *launch_entry(const fixture *f) { return f->host_steps ? "LaunchHostFunc" : NULL; }

static void count_up_fn(void *user) { __atomic_add_fetch((int *)user, 1, __ATOMIC_ACQ_REL); }

/* h = i; copy in; d += 3; d *= 2; host fn; copy out. */
static void capture_pipeline(fixture *f, xrt_stream s, int *count, int add)
{
    OK(xrt_memcpy_async(f->d, f->h, N * sizeof(int), XRT_MEMCPY_HOST_TO_DEVICE, s));
    OK(launch(f, f->add, f->d, add, s));
    OK(launch(f, f->mul, f->d, 2, s));
    OK(xrt_launch_host_func(s, count_up_fn, count));
    OK(xrt_memcpy_async(f->h, f->d, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST, s));
}

/* The pipeline captured on s, its graph and an exec of it. */
static void pipeline_exec(fixture *f, xrt_stream s, int *count, int add, xrt_graph *g, xrt_graph_exec *x)
{
    OK(xrt_stream_begin_capture(s, XRT_CAPTURE_MODE_GLOBAL));
    capture_pipeline(f, s, count, add);
    OK(xrt_stream_end_capture(s, g));
    OK(xrt_graph_instantiate(x, *g));
}

/* The captured pipeline's kernel nodes (nodes 1 and 2) give back what was
   launched: function, grid and arguments (a GPU runtime does not say; xrt
   recorded them at the launch). */
static void captured_kernels_are(const fixture *f, xrt_graph g, int add)
{
    xrt_graph_node nodes[5];
    xrt_graph_node_params p;
    size_t n = 5, k;
    OK(xrt_graph_get_nodes(g, nodes, &n));
    assert_int_equal(n, 5);
    for (k = 1; k <= 2; k++) {
        arg_t a;
        OK(xrt_graph_node_get_params(nodes[k], &p));
        assert_int_equal(p.type, XRT_GRAPH_NODE_KERNEL);
        assert_true(p.kernel.function == (k == 1 ? f->add : f->mul));
        assert_int_equal(p.kernel.grid.x, (N + 63) / 64);
        assert_int_equal(p.kernel.block.x, 64);
        assert_int_equal(p.kernel.args_size, sizeof a);
        memcpy(&a, p.kernel.args, sizeof a);
        assert_ptr_equal(a.p, f->d);
        assert_int_equal(a.v, k == 1 ? add : 2);
        assert_int_equal(a.n, N);
    }
}

/* >> a captured sequence gives what running it gives, launch after launch */
static void test_captured_pipeline_runs_1000_times(void **state)
{
    fixture f;
    xrt_graph g;
    xrt_graph_exec x;
    xrt_graph_info info;
    xrt_capture_status cs;
    int count = 0, i, r;
    (void)state;
    need_graphs();
    fx_make(&f);
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_stream_is_capturing(f.s[0], &cs));
    assert_int_equal(cs, XRT_CAPTURE_STATUS_ACTIVE);
    capture_pipeline(&f, f.s[0], &count, 3);
    OK(xrt_stream_end_capture(f.s[0], &g));
    OK(xrt_stream_is_capturing(f.s[0], &cs));
    assert_int_equal(cs, XRT_CAPTURE_STATUS_NONE);
    assert_int_equal(count, 0); /* captured, not run */
    OK(xrt_graph_get_info(g, &info));
    assert_int_equal(info.nodes, 5);
    assert_int_equal(info.kernels, f.host_steps ? 0 : 2);
    assert_int_equal(info.copies, 2);
    assert_int_equal(info.host_fns, f.host_steps ? 3 : 1);
    assert_int_equal(info.sets, 0);
    assert_int_equal(info.edges, 4);
    if (!f.host_steps) captured_kernels_are(&f, g, 3);
    OK(xrt_graph_instantiate(&x, g));
    for (r = 0; r < 1000; r++) {
        for (i = 0; i < N; i++) f.h[i] = i + r;
        OK(xrt_graph_launch(x, f.s[r % 2]));
        OK(xrt_stream_synchronize(f.s[r % 2]));
        for (i = 0; i < N; i++)
            if (f.h[i] != (i + r + 3) * 2) fail_msg("launch %d: h[%d] = %d, expected %d", r, i, f.h[i], (i + r + 3) * 2);
        assert_int_equal(count, r + 1);
    }
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    fx_free(&f);
}

/* >> fork and join over three streams: branches run, the join waits for them */
static void capture_fork_join(fixture *f, int v)
{
    OK(xrt_stream_begin_capture(f->s[0], XRT_CAPTURE_MODE_THREAD_LOCAL));
    OK(xrt_memset_async(f->d, 0, N * sizeof(int), f->s[0]));
    OK(xrt_event_record(f->e[0], f->s[0]));
    OK(xrt_stream_wait_event(f->s[1], f->e[0])); /* fork */
    OK(xrt_stream_wait_event(f->s[2], f->e[0]));
    OK(launch_n(f, f->add, f->d, v, N / 2, f->s[1])); /* the first half += v, the second += 10 v */
    OK(launch_n(f, f->add, f->d + N / 2, 10 * v, N / 2, f->s[2]));
    OK(xrt_event_record(f->e[1], f->s[1]));
    OK(xrt_event_record(f->e[2], f->s[2]));
    OK(xrt_stream_wait_event(f->s[0], f->e[1])); /* join */
    OK(xrt_stream_wait_event(f->s[0], f->e[2]));
    OK(xrt_memcpy_async(f->h, f->d, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST, f->s[0]));
}

/* xrt_stream_get_capture_info (cudaStreamGetCaptureInfo's status and id):
   while a capture is active, an id that every stream joined to it gives and
   no other capture has; the id is not written otherwise. */
static void test_capture_info(void **state)
{
    fixture f;
    xrt_graph g;
    xrt_capture_status cs = XRT_CAPTURE_STATUS_INVALIDATED;
    unsigned long long id0 = 0, id1 = 0;
    xrt_status st;
    (void)state;
    need_graphs();
    fx_make(&f);
    st = xrt_stream_get_capture_info(f.s[0], &cs, &id0);
    if (st == XRT_ERROR_UNSUPPORTED) xrt_get_last_error();
    if (st != XRT_ERROR_UNSUPPORTED) {
        OK(st);
        assert_int_equal(cs, XRT_CAPTURE_STATUS_NONE);
        assert_int_equal(id0, 0);
        capture_fork_join(&f, 1);
        OK(xrt_stream_get_capture_info(f.s[0], &cs, &id0));
        assert_int_equal(cs, XRT_CAPTURE_STATUS_ACTIVE);
        OK(xrt_stream_get_capture_info(f.s[1], &cs, &id1));
        assert_int_equal(cs, XRT_CAPTURE_STATUS_ACTIVE);
        assert_true(id1 == id0); /* joined by the fork */
        cs = XRT_CAPTURE_STATUS_NONE;
        OK(xrt_stream_get_capture_info(f.s[2], &cs, NULL));
        assert_int_equal(cs, XRT_CAPTURE_STATUS_ACTIVE);
        OK(xrt_stream_end_capture(f.s[0], &g));
        OK(xrt_graph_destroy(g));
        id1 = 7;
        OK(xrt_stream_get_capture_info(f.s[1], &cs, &id1));
        assert_int_equal(cs, XRT_CAPTURE_STATUS_NONE);
        assert_true(id1 == 7);
        OK(xrt_stream_begin_capture(f.s[2], XRT_CAPTURE_MODE_THREAD_LOCAL));
        OK(xrt_memset_async(f.d, 0, N * sizeof(int), f.s[2]));
        OK(xrt_stream_get_capture_info(f.s[2], &cs, &id1));
        assert_int_equal(cs, XRT_CAPTURE_STATUS_ACTIVE);
        assert_true(id1 != id0); /* another capture */
        OK(xrt_stream_end_capture(f.s[2], &g));
        OK(xrt_graph_destroy(g));
        FAILS(xrt_stream_get_capture_info(f.s[0], NULL, &id0), XRT_ERROR_INVALID_VALUE, "status is NULL");
    }
    fx_free(&f);
    SKIP_UNLESS(st != XRT_ERROR_UNSUPPORTED, "the runtime does not tell a capture's id");
}

/* xrt_stream_get_capture_info_v2 / xrt_stream_update_capture_dependencies
   (cudaStreamGetCaptureInfo's graph and dependencies,
   cudaStreamUpdateCaptureDependencies), as a library adds its own node to a
   caller's capture: the capture's graph takes a node by hand after the
   stream's dependencies, the stream then follows that node alone, and the
   end gives the same graph handle. Meanwhile the graph is not destroyed,
   instantiated, nor rid of a node. */
static int capg_ran; /* the hand-added host node's runs */
static void capg_host(void *user)
{
    (void)user;
    __atomic_add_fetch(&capg_ran, 1, __ATOMIC_RELEASE);
}

/* The capture's graph and dependencies of stream s, or a skip where the
   runtime does not tell them (0: skipped, the capture left to end). */
static int capg_info(xrt_stream s, xrt_graph *g, const xrt_graph_node **deps, size_t *n, unsigned long long *id)
{
    xrt_capture_status cs = XRT_CAPTURE_STATUS_NONE;
    xrt_status st = xrt_stream_get_capture_info_v2(s, &cs, id, g, deps, n);
    if (st == XRT_ERROR_UNSUPPORTED) {
        xrt_get_last_error();
        return 0;
    }
    OK(st);
    assert_int_equal(cs, XRT_CAPTURE_STATUS_ACTIVE);
    return 1;
}

static void test_capture_graph_takes_a_node(void **state)
{
    fixture f;
    xrt_graph g = NULL, got, none = (xrt_graph)&f;
    xrt_graph_exec x;
    xrt_graph_node host, set, found[4];
    const xrt_graph_node *deps = NULL;
    xrt_host_node_params hp = {capg_host, NULL};
    xrt_graph_node_type type;
    xrt_graph_exec xbad;
    size_t n = 0, count;
    unsigned long long id = 0;
    int known;
    (void)state;
    need_graphs();
    fx_make(&f);
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_THREAD_LOCAL));
    OK(xrt_memset_async(f.d, 1, N * sizeof(int), f.s[0]));
    if ((known = capg_info(f.s[0], &g, &deps, &n, &id)) != 0) {
        assert_non_null(g);
        assert_true(id != 0);
        assert_int_equal(n, 1);
        OK(xrt_graph_node_get_type(deps[0], &type));
        assert_int_equal(type, XRT_GRAPH_NODE_MEMSET);
        set = deps[0];
        OK(xrt_graph_add_host_node(&host, g, deps, n, &hp));
        OK(xrt_stream_update_capture_dependencies(f.s[0], &host, 1, XRT_STREAM_SET_CAPTURE_DEPENDENCIES));
        assert_true(capg_info(f.s[0], &got, &deps, &n, NULL));
        assert_ptr_equal(got, g);
        assert_int_equal(n, 1);
        assert_ptr_equal(deps[0], host);
        FAILS(xrt_graph_destroy(g), XRT_ERROR_ILLEGAL_STATE, "a capture's, under way");
        FAILS(xrt_graph_instantiate(&xbad, g), XRT_ERROR_ILLEGAL_STATE, "a capture's, under way");
        FAILS(xrt_graph_destroy_node(set), XRT_ERROR_ILLEGAL_STATE, "a capture's, under way");
        FAILS(xrt_stream_update_capture_dependencies(f.s[0], &host, 1, 2), XRT_ERROR_INVALID_VALUE, "flags 2");
        FAILS(xrt_stream_update_capture_dependencies(f.s[1], &host, 1, 0), XRT_ERROR_ILLEGAL_STATE, "not capturing");
        FAILS(xrt_stream_get_capture_info_v2(f.s[0], &(xrt_capture_status){0}, NULL, NULL, &deps, NULL),
              XRT_ERROR_INVALID_VALUE, "without ndeps");
    }
    OK(xrt_memset_async(f.d, 2, N * sizeof(int), f.s[0])); /* after the host node */
    OK(xrt_stream_end_capture(f.s[0], &got));
    if (known) {
        assert_ptr_equal(got, g); /* the handle it had while captured */
        count = 4;
        OK(xrt_graph_get_nodes(g, found, &count));
        assert_int_equal(count, 3);
        OK(xrt_graph_node_get_dependencies(host, found, &(size_t){4}));
        assert_ptr_equal(found[0], set);
        count = 4;
        OK(xrt_graph_get_root_nodes(g, found, &count));
        assert_int_equal(count, 1);
        __atomic_store_n(&capg_ran, 0, __ATOMIC_RELEASE);
        OK(xrt_graph_instantiate(&x, g));
        OK(xrt_graph_launch(x, f.s[0]));
        OK(xrt_stream_synchronize(f.s[0]));
        assert_int_equal(__atomic_load_n(&capg_ran, __ATOMIC_ACQUIRE), 1);
        OK(xrt_memcpy(f.h, f.d, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST));
        assert_int_equal(f.h[0], 0x02020202);
        OK(xrt_graph_exec_destroy(x));
    }
    OK(xrt_graph_destroy(got));
    FAILS(xrt_graph_get_nodes(none, NULL, &count), XRT_ERROR_INVALID_HANDLE, "xrt_graph_get_nodes");
    fx_free(&f);
    SKIP_UNLESS(known, "the runtime does not tell a capture's graph");
}

/* A capture that makes no graph takes the handle of its graph, and its
   nodes', with it; a node added by hand, or taken out of a stream's
   dependencies, need not be joined back (CUDA's rule). A stream that joined
   the capture names the same graph. */
static void test_capture_graph_goes_with_a_failed_capture(void **state)
{
    fixture f;
    xrt_graph g = NULL, g1 = NULL, got;
    xrt_graph_node loose, first;
    const xrt_graph_node *deps;
    size_t n, count = 0;
    unsigned long long id0 = 0, id1 = 0;
    int known;
    (void)state;
    need_graphs();
    fx_make(&f);
    /* unjoined: the end fails, the handle goes */
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_THREAD_LOCAL));
    OK(xrt_memset_async(f.d, 0, N * sizeof(int), f.s[0]));
    OK(xrt_event_record(f.e[0], f.s[0]));
    OK(xrt_stream_wait_event(f.s[1], f.e[0])); /* fork, never joined */
    OK(xrt_memset_async(f.d, 1, N * sizeof(int), f.s[1]));
    known = capg_info(f.s[0], &g, &deps, &n, &id0);
    if (known) {
        assert_true(capg_info(f.s[1], &g1, &deps, &n, &id1)); /* the joined stream: the same capture */
        assert_ptr_equal(g1, g);
        assert_true(id1 == id0);
        first = deps[0];
    }
    FAILS(xrt_stream_end_capture(f.s[0], &got), XRT_ERROR_STREAM_CAPTURE_UNJOINED, "xrt_stream_end_capture");
    if (known) {
        FAILS(xrt_graph_get_nodes(g, NULL, &count), XRT_ERROR_INVALID_HANDLE, "xrt_graph_get_nodes");
        FAILS(xrt_graph_node_get_dependencies(first, NULL, &count), XRT_ERROR_INVALID_HANDLE,
              "xrt_graph_node_get_dependencies");
    }
    /* a loose node, and one taken out of the dependencies: the end succeeds */
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_THREAD_LOCAL));
    OK(xrt_memset_async(f.d, 0, N * sizeof(int), f.s[0]));
    if (known) {
        assert_true(capg_info(f.s[0], &g, &deps, &n, NULL));
        OK(xrt_graph_add_empty_node(&loose, g, NULL, 0));
        OK(xrt_stream_update_capture_dependencies(f.s[0], NULL, 0, XRT_STREAM_SET_CAPTURE_DEPENDENCIES));
    }
    OK(xrt_memset_async(f.d, 3, N * sizeof(int), f.s[0]));
    OK(xrt_stream_end_capture(f.s[0], &got));
    if (known) {
        count = 0;
        OK(xrt_graph_get_root_nodes(got, NULL, &count));
        assert_int_equal(count, 3); /* the first set, the loose node, the second set */
    }
    OK(xrt_graph_destroy(got));
    fx_free(&f);
    SKIP_UNLESS(known, "the runtime does not tell a capture's graph");
}

/* The per-thread stream's capture names its graph too, and the end gives
   that handle; a capture whose origin is destroyed takes the handle away. */
static void test_capture_graph_of_per_thread_and_gone_origin(void **state)
{
    fixture f;
    xrt_graph g = NULL, got;
    xrt_stream s;
    const xrt_graph_node *deps;
    size_t n, count;
    int known;
    (void)state;
    need_graphs();
    fx_make(&f);
    OK(xrt_stream_begin_capture(XRT_STREAM_PER_THREAD, XRT_CAPTURE_MODE_THREAD_LOCAL));
    OK(xrt_memset_async(f.d, 0, N * sizeof(int), XRT_STREAM_PER_THREAD));
    known = capg_info(XRT_STREAM_PER_THREAD, &g, &deps, &n, NULL);
    OK(xrt_stream_end_capture(XRT_STREAM_PER_THREAD, &got));
    if (known) assert_ptr_equal(got, g);
    OK(xrt_graph_destroy(got));
    if (known) {
        OK(xrt_stream_create_with_flags(&s, XRT_STREAM_NON_BLOCKING));
        OK(xrt_stream_begin_capture(s, XRT_CAPTURE_MODE_THREAD_LOCAL));
        OK(xrt_memset_async(f.d, 0, N * sizeof(int), s));
        assert_true(capg_info(s, &g, &deps, &n, NULL));
        OK(xrt_stream_destroy(s));
        FAILS(xrt_graph_get_nodes(g, NULL, &count), XRT_ERROR_INVALID_HANDLE, "xrt_graph_get_nodes");
    }
    fx_free(&f);
    SKIP_UNLESS(known, "the runtime does not tell a capture's graph");
}

/* A capture into a graph names that graph, and its own nodes may be the
   stream's dependencies. */
static void test_capture_graph_into_a_graph(void **state)
{
    fixture f;
    xrt_graph target, g = NULL, got;
    xrt_graph_node own, found[4];
    const xrt_graph_node *deps;
    size_t n, count = 4;
    xrt_status st;
    int known;
    (void)state;
    need_graphs();
    fx_make(&f);
    st = xrt_graph_create(&target, 0);
    if (st != XRT_SUCCESS) xrt_get_last_error();
    if (st == XRT_SUCCESS) {
        OK(xrt_graph_add_empty_node(&own, target, NULL, 0));
        st = xrt_stream_begin_capture_to_graph(f.s[0], target, NULL, 0, XRT_CAPTURE_MODE_THREAD_LOCAL);
        if (st != XRT_SUCCESS) {
            xrt_get_last_error();
            OK(xrt_graph_destroy(target));
        }
    }
    SKIP_UNLESS(st == XRT_SUCCESS, "no capture into a graph here");
    OK(xrt_memset_async(f.d, 0, N * sizeof(int), f.s[0]));
    if ((known = capg_info(f.s[0], &g, &deps, &n, NULL)) != 0) {
        assert_ptr_equal(g, target);
        assert_int_equal(n, 1);
        OK(xrt_stream_update_capture_dependencies(f.s[0], &own, 1, XRT_STREAM_ADD_CAPTURE_DEPENDENCIES));
        FAILS(xrt_graph_add_empty_node(found, target, NULL, 0), XRT_ERROR_ILLEGAL_STATE, "being captured into");
    }
    OK(xrt_memset_async(f.d, 1, N * sizeof(int), f.s[0])); /* after the set and, known, the graph's own node */
    OK(xrt_stream_end_capture(f.s[0], &got));
    assert_ptr_equal(got, target);
    if (known) {
        OK(xrt_graph_get_root_nodes(target, found, &count));
        assert_int_equal(count, 2); /* its own node and the first set; the second follows both */
    }
    OK(xrt_graph_destroy(target));
    fx_free(&f);
    SKIP_UNLESS(known, "the runtime does not tell a capture's graph");
}

/* A node of another graph is not a capture's dependency. */
static void test_capture_dependencies_bad(void **state)
{
    fixture f;
    xrt_graph g, other, got;
    xrt_graph_node theirs;
    const xrt_graph_node *deps;
    size_t n;
    int known;
    xrt_status st;
    (void)state;
    need_graphs();
    fx_make(&f);
    st = xrt_graph_create(&other, 0);
    if (st != XRT_SUCCESS) xrt_get_last_error();
    SKIP_UNLESS(st == XRT_SUCCESS, "the backend does not build graphs node by node");
    OK(xrt_graph_add_empty_node(&theirs, other, NULL, 0));
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_THREAD_LOCAL));
    OK(xrt_memset_async(f.d, 0, N * sizeof(int), f.s[0]));
    if ((known = capg_info(f.s[0], &g, &deps, &n, NULL)) != 0) {
        FAILS(xrt_stream_update_capture_dependencies(f.s[0], &theirs, 1, XRT_STREAM_ADD_CAPTURE_DEPENDENCIES),
              XRT_ERROR_INVALID_VALUE, "is a node of graph");
        FAILS(xrt_stream_update_capture_dependencies(f.s[0], NULL, 1, 0), XRT_ERROR_INVALID_VALUE, "deps is NULL");
        OK(xrt_stream_update_capture_dependencies(f.s[0], deps, n, XRT_STREAM_ADD_CAPTURE_DEPENDENCIES)); /* already */
    }
    OK(xrt_stream_end_capture(f.s[0], &got));
    OK(xrt_graph_destroy(got));
    OK(xrt_graph_destroy(other));
    fx_free(&f);
    SKIP_UNLESS(known, "the runtime does not tell a capture's graph");
}

static void test_fork_join_three_streams(void **state)
{
    fixture f;
    xrt_graph g;
    xrt_graph_exec x;
    xrt_graph_info info;
    xrt_capture_status cs;
    int i, r;
    (void)state;
    need_graphs();
    fx_make(&f);
    capture_fork_join(&f, 1);
    OK(xrt_stream_is_capturing(f.s[1], &cs));
    assert_int_equal(cs, XRT_CAPTURE_STATUS_ACTIVE); /* joined by the fork */
    OK(xrt_stream_end_capture(f.s[0], &g));
    OK(xrt_stream_is_capturing(f.s[1], &cs));
    assert_int_equal(cs, XRT_CAPTURE_STATUS_NONE);
    OK(xrt_graph_get_info(g, &info));
    assert_int_equal(info.nodes, 4);
    assert_int_equal(info.edges, 4); /* set -> two kernels -> copy */
    OK(xrt_graph_instantiate(&x, g));
    OK(xrt_graph_destroy(g)); /* the exec keeps what it needs */
    for (r = 0; r < 50; r++) {
        memset(f.h, 0xff, N * sizeof(int));
        OK(xrt_graph_launch(x, f.s[2])); /* on a stream other than the one captured */
        OK(xrt_stream_synchronize(f.s[2]));
        for (i = 0; i < N; i++)
            if (f.h[i] != (i < N / 2 ? 1 : 10)) fail_msg("launch %d: h[%d] = %d, expected %d", r, i, f.h[i], i < N / 2 ? 1 : 10);
    }
    OK(xrt_graph_exec_destroy(x));
    fx_free(&f);
}

/* >> a launch is asynchronous and in stream order: it waits for the stream's
   earlier work, and the stream's later work waits for it */
static void test_launch_is_asynchronous_and_ordered(void **state)
{
    fixture f;
    xrt_graph g;
    xrt_graph_exec x;
    int count = 0, after = 0;
    (void)state;
    need_graphs();
    fx_make(&f);
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_launch_host_func(f.s[0], count_up_fn, &count));
    OK(xrt_stream_end_capture(f.s[0], &g));
    OK(xrt_graph_instantiate(&x, g));
    OK(xrt_launch_host_func(f.s[1], gate_wait, &gates[0])); /* earlier work that does not end yet */
    OK(xrt_graph_launch(x, f.s[1]));
    OK(xrt_launch_host_func(f.s[1], count_up_fn, &after));
    gate_wait_entered(&gates[0]);
    sleep_ms(20);
    assert_int_equal(xrt_stream_query(f.s[1]), XRT_ERROR_NOT_READY);
    assert_int_equal(__atomic_load_n(&count, __ATOMIC_ACQUIRE), 0); /* behind the gate */
    gate_open(&gates[0]);
    OK(xrt_stream_synchronize(f.s[1]));
    assert_int_equal(count, 1);
    assert_int_equal(after, 1);
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    fx_free(&f);
}

/* >> two launches of one exec on two streams run one after the other */
static int busy, overlap, entered;
static void exclusive(void *user)
{
    (void)user;
    if (__atomic_add_fetch(&busy, 1, __ATOMIC_ACQ_REL) != 1) __atomic_store_n(&overlap, 1, __ATOMIC_RELEASE);
    sleep_ms(1);
    __atomic_add_fetch(&entered, 1, __ATOMIC_ACQ_REL);
    __atomic_sub_fetch(&busy, 1, __ATOMIC_ACQ_REL);
}

static void test_launches_of_one_exec_are_ordered(void **state)
{
    fixture f;
    xrt_graph g;
    xrt_graph_exec x;
    int i;
    (void)state;
    need_graphs();
    fx_make(&f);
    busy = overlap = entered = 0;
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_launch_host_func(f.s[0], exclusive, NULL));
    OK(xrt_stream_end_capture(f.s[0], &g));
    OK(xrt_graph_instantiate(&x, g));
    for (i = 0; i < 20; i++) OK(xrt_graph_launch(x, f.s[i % 3]));
    OK(xrt_graph_exec_destroy(x)); /* launches already made still run */
    OK(xrt_device_synchronize());
    assert_int_equal(entered, 20);
    assert_int_equal(overlap, 0);
    OK(xrt_graph_destroy(g));
    fx_free(&f);
}

/* >> update: new parameters for the same shape; another shape is refused */
static void test_exec_update(void **state)
{
    fixture f;
    xrt_graph g, g2, g3;
    xrt_graph_exec x;
    int count = 0, i;
    (void)state;
    need_graphs();
    fx_make(&f);
    pipeline_exec(&f, f.s[0], &count, 3, &g, &x);
    OK(xrt_stream_begin_capture(f.s[1], XRT_CAPTURE_MODE_GLOBAL));
    capture_pipeline(&f, f.s[1], &count, 5);
    OK(xrt_stream_end_capture(f.s[1], &g2));
    OK(xrt_graph_exec_update(x, g2));
    for (i = 0; i < N; i++) f.h[i] = i;
    OK(xrt_graph_launch(x, f.s[0]));
    OK(xrt_stream_synchronize(f.s[0]));
    for (i = 0; i < N; i++) assert_int_equal(f.h[i], (i + 5) * 2);
    /* another shape: one node more */
    OK(xrt_stream_begin_capture(f.s[1], XRT_CAPTURE_MODE_GLOBAL));
    capture_pipeline(&f, f.s[1], &count, 5);
    OK(launch(&f, f.add, f.d, 1, f.s[1]));
    OK(xrt_stream_end_capture(f.s[1], &g3));
    FAILS(xrt_graph_exec_update(x, g3), XRT_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
          RULE("the exec has 5 nodes, the graph 6", "xrt_graph_exec_update", "GraphExecUpdate: the graphs differ"));
    OK(xrt_graph_destroy(g3));
    /* another kind at node 1 */
    OK(xrt_stream_begin_capture(f.s[1], XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_memcpy_async(f.d, f.h, N * sizeof(int), XRT_MEMCPY_HOST_TO_DEVICE, f.s[1]));
    OK(xrt_memset_async(f.d, 0, 4, f.s[1]));
    OK(launch(&f, f.mul, f.d, 2, f.s[1]));
    OK(xrt_launch_host_func(f.s[1], count_up_fn, &count));
    OK(xrt_memcpy_async(f.h, f.d, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST, f.s[1]));
    OK(xrt_stream_end_capture(f.s[1], &g3));
    FAILS(xrt_graph_exec_update(x, g3), XRT_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
          RULE("node 1 is a kernel launch in the exec, a memset in the graph", "xrt_graph_exec_update",
               "GraphExecUpdate: a node changed its type"));
    /* the exec still runs with the parameters of the last update */
    for (i = 0; i < N; i++) f.h[i] = i;
    OK(xrt_graph_launch(x, f.s[0]));
    OK(xrt_stream_synchronize(f.s[0]));
    for (i = 0; i < N; i++) assert_int_equal(f.h[i], (i + 5) * 2);
    OK(xrt_graph_destroy(g3));
    OK(xrt_graph_destroy(g2));
    OK(xrt_graph_destroy(g));
    OK(xrt_graph_exec_destroy(x));
    fx_free(&f);
}

/* Three memsets on f->s[1], captured as a chain (1 after 0, 2 after 1), a
   fork (1 after 0, and 2 after 0 on f->s[2]) or a join (0, and 1 on
   f->s[2], both roots; 2 after both): the same nodes and kinds, other edges. */
enum { CHAIN, FORK, JOIN };
static xrt_graph three_memsets(fixture *f, int shape, int value)
{
    xrt_graph g;
    OK(xrt_stream_begin_capture(f->s[1], XRT_CAPTURE_MODE_GLOBAL));
    if (shape == JOIN) {
        OK(xrt_event_record(f->e[0], f->s[1])); /* nothing captured yet: f->s[2] joins with no dependency */
        OK(xrt_stream_wait_event(f->s[2], f->e[0]));
    }
    OK(xrt_memset_async(f->d, value, sizeof(int), f->s[1]));
    if (shape != JOIN) OK(xrt_event_record(f->e[0], f->s[1]));
    if (shape == CHAIN) {
        OK(xrt_memset_async(f->d + 1, value, sizeof(int), f->s[1]));
        OK(xrt_memset_async(f->d + 2, value, sizeof(int), f->s[1]));
    } else if (shape == FORK) {
        OK(xrt_memset_async(f->d + 1, value, sizeof(int), f->s[1]));
        OK(xrt_stream_wait_event(f->s[2], f->e[0]));
        OK(xrt_memset_async(f->d + 2, value, sizeof(int), f->s[2]));
        OK(xrt_event_record(f->e[1], f->s[2]));
        OK(xrt_stream_wait_event(f->s[1], f->e[1]));
    } else {
        OK(xrt_memset_async(f->d + 1, value, sizeof(int), f->s[2]));
        OK(xrt_event_record(f->e[1], f->s[2]));
        OK(xrt_stream_wait_event(f->s[1], f->e[1]));
        OK(xrt_memset_async(f->d + 2, value, sizeof(int), f->s[1]));
    }
    OK(xrt_stream_end_capture(f->s[1], &g));
    return g;
}

/* An update of x to three memsets of another shape (`edges` edges) is
   refused, on the CPU with cpu_detail. */
static void update_refused(fixture *f, xrt_graph_exec x, int shape, size_t edges, const char *cpu_detail)
{
    xrt_graph g = three_memsets(f, shape, 3);
    xrt_graph_info info;
    OK(xrt_graph_get_info(g, &info));
    assert_int_equal(info.nodes, 3);
    assert_int_equal(info.edges, edges);
    FAILS(xrt_graph_exec_update(x, g), XRT_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
          RULE(cpu_detail, "xrt_graph_exec_update", "GraphExecUpdate: the graphs differ in their nodes or edges"));
    OK(xrt_graph_destroy(g));
}

/* An update must keep every edge, not only the node count and kinds
   (cudaGraphExecUpdateErrorTopologyChanged); a refused update leaves the
   exec as it was. */
static void test_exec_update_edges(void **state)
{
    fixture f;
    xrt_graph g, g2;
    xrt_graph_exec x;
    int i;
    (void)state;
    need_graphs();
    fx_make(&f);
    g = three_memsets(&f, CHAIN, 1);
    OK(xrt_graph_instantiate(&x, g));
    g2 = three_memsets(&f, CHAIN, 2); /* the same edges: new values only */
    OK(xrt_graph_exec_update(x, g2));
    OK(xrt_graph_destroy(g2));
    update_refused(&f, x, FORK, 2, "node 2 (a memset) follows node 0 in the graph, not in the exec");
    update_refused(&f, x, JOIN, 2, "node 1 (a memset) follows 1 nodes in the exec, 0 in the graph");
    OK(xrt_memset_async(f.d, 0, 3 * sizeof(int), f.s[0])); /* s[0] is non-blocking: an xrt_memset would race */
    OK(xrt_graph_launch(x, f.s[0]));
    OK(xrt_memcpy_async(f.h, f.d, 3 * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST, f.s[0]));
    OK(xrt_stream_synchronize(f.s[0]));
    for (i = 0; i < 3; i++) assert_int_equal(f.h[i], 0x02020202); /* the update that succeeded */
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    fx_free(&f);
}

/* >> the CPU engine runs a graph's host functions in capture order on one
   thread (the stream's, or one that synchronizes and runs its work), even
   where their branches are independent (REFERENCE.md, "The CPU engine"); the
   helper pool takes only graphs without them */
typedef struct {
    char order[16];
    unsigned n;
    pthread_t thread[16];
} host_trace;

static void trace_host(host_trace *t, char c)
{
    t->thread[t->n] = pthread_self();
    t->order[t->n++] = c;
}
static void host_a(void *user) /* slow: a branch that ran beside it would be first */
{
    sleep_ms(5);
    trace_host((host_trace *)user, 'A');
}
static void host_b(void *user) { trace_host((host_trace *)user, 'B'); }

static void test_graph_host_fns_in_capture_order(void **state)
{
    fixture f;
    xrt_graph g;
    xrt_graph_exec x;
    xrt_graph_info info;
    host_trace t;
    int i;
    (void)state;
    need_graphs();
    SKIP_UNLESS(on_cpu(),
                "the CPU engine's rule; a GPU runtime promises only the order of the graph's edges");
    fx_make(&f);
    memset(&t, 0, sizeof t);
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_event_record(f.e[0], f.s[0])); /* two roots: A on f.s[0], B on f.s[1] */
    OK(xrt_stream_wait_event(f.s[1], f.e[0]));
    OK(xrt_launch_host_func(f.s[0], host_a, &t));
    OK(xrt_launch_host_func(f.s[1], host_b, &t));
    OK(xrt_event_record(f.e[1], f.s[1]));
    OK(xrt_stream_wait_event(f.s[0], f.e[1]));
    OK(xrt_stream_end_capture(f.s[0], &g));
    OK(xrt_graph_get_info(g, &info));
    assert_int_equal(info.host_fns, 2);
    assert_int_equal(info.edges, 0);
    OK(xrt_graph_instantiate(&x, g));
    for (i = 0; i < 4; i++) OK(xrt_graph_launch(x, f.s[2]));
    OK(xrt_stream_synchronize(f.s[2]));
    assert_string_equal(t.order, "ABABABAB");
    for (i = 0; i < 8; i += 2) assert_true(pthread_equal(t.thread[i], t.thread[i + 1])); /* each launch on one thread */
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    fx_free(&f);
}

/* >> a graph keeps its module: unloaded after the capture, it still runs */
static void test_module_unloaded_after_capture(void **state)
{
    fixture f;
    xrt_graph g;
    xrt_graph_exec x;
    int count = 0, i;
    (void)state;
    need_graphs();
    SKIP_UNLESS(caps() & XRT_CAP_MODULES, "the backend loads no modules (XRT_CAP_MODULES)");
    fx_make(&f);
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
    capture_pipeline(&f, f.s[0], &count, 1);
    OK(xrt_stream_end_capture(f.s[0], &g));
    OK(xrt_module_unload(f.m));
    f.m = NULL;
    FAILS(launch(&f, f.add, f.d, 1, f.s[0]), XRT_ERROR_INVALID_HANDLE, "was destroyed");
    OK(xrt_graph_instantiate(&x, g));
    OK(xrt_graph_destroy(g));
    for (i = 0; i < N; i++) f.h[i] = 1;
    OK(xrt_graph_launch(x, f.s[0]));
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_stream_synchronize(f.s[0]));
    for (i = 0; i < N; i++) assert_int_equal(f.h[i], 4);
    fx_free(&f);
}

/* >> the capture rules, each refusal with its status and detail */
static void test_capture_refusals(void **state)
{
    fixture f;
    xrt_graph g = NULL;
    xrt_graph_exec x;
    xrt_capture_status cs;
    int count = 0;
    (void)state;
    need_graphs();
    fx_make(&f);
    FAILS(xrt_stream_begin_capture(NULL, XRT_CAPTURE_MODE_GLOBAL), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED,
          "the NULL stream cannot be captured");
    FAILS(xrt_stream_begin_capture(f.s[0], (xrt_capture_mode)7), XRT_ERROR_INVALID_VALUE, "mode 7");
    FAILS(xrt_stream_end_capture(f.s[0], &g), XRT_ERROR_ILLEGAL_STATE,
          RULE("is not capturing", "xrt_stream_end_capture", "StreamEndCapture"));
    assert_null(g);
    FAILS(xrt_stream_end_capture(f.s[0], NULL), XRT_ERROR_INVALID_VALUE, "graph is NULL");
    FAILS(xrt_stream_is_capturing(f.s[0], NULL), XRT_ERROR_INVALID_VALUE, "status is NULL");
    FAILS(xrt_graph_instantiate(NULL, g), XRT_ERROR_INVALID_VALUE, "exec is NULL");
    FAILS(xrt_graph_instantiate(&x, NULL), XRT_ERROR_INVALID_VALUE, "is NULL");
    FAILS(xrt_graph_instantiate(&x, (xrt_graph)f.s[0]), XRT_ERROR_INVALID_HANDLE, "is a stream handle");

    /* begun twice */
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
    FAILS(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL), XRT_ERROR_ILLEGAL_STATE,
          RULE("is capturing already", "xrt_stream_begin_capture", "StreamBeginCapture"));
    /* a synchronize of the capturing stream invalidates it; the end names that call */
    FAILS(xrt_stream_synchronize(f.s[0]), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED,
          RULE("is capturing", "xrt_stream_synchronize", "StreamSynchronize"));
    OK(xrt_stream_is_capturing(f.s[0], &cs));
    assert_int_equal(cs, XRT_CAPTURE_STATUS_INVALIDATED);
    FAILS(launch(&f, f.add, f.d, 1, f.s[0]), XRT_ERROR_STREAM_CAPTURE_INVALIDATED,
          RULE("xrt_stream_synchronize", launch_call(&f), launch_entry(&f)));
    FAILS(xrt_stream_end_capture(f.s[0], &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED,
          RULE("xrt_stream_synchronize", "xrt_stream_end_capture", "StreamEndCapture"));
    invalidated_by("xrt_stream_synchronize");
    assert_null(g);
    OK(xrt_stream_is_capturing(f.s[0], &cs));
    assert_int_equal(cs, XRT_CAPTURE_STATUS_NONE);

    /* a query too */
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_RELAXED));
    FAILS(xrt_stream_query(f.s[0]), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED,
          RULE("is capturing", "xrt_stream_query", "StreamQuery"));
    FAILS(xrt_stream_end_capture(f.s[0], &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED,
          RULE("xrt_stream_query", "xrt_stream_end_capture", "StreamEndCapture"));
    invalidated_by("xrt_stream_query");

    /* GLOBAL: a synchronous copy is refused and invalidates; RELAXED allows it */
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
    FAILS(xrt_memcpy(f.h, f.d, 64, XRT_MEMCPY_DEVICE_TO_HOST), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED,
          RULE("GLOBAL mode", "xrt_memcpy", "Memcpy"));
    FAILS(xrt_device_synchronize(), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED,
          RULE("GLOBAL mode", "xrt_device_synchronize", "DeviceSynchronize"));
    FAILS(xrt_stream_end_capture(f.s[0], &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED,
          RULE("xrt_memcpy", "xrt_stream_end_capture", "StreamEndCapture"));
    invalidated_by("xrt_memcpy");
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_RELAXED));
    OK(xrt_memcpy(f.h, f.d, 64, XRT_MEMCPY_DEVICE_TO_HOST));
    OK(xrt_memset(f.d, 0, 64));
    OK(xrt_stream_end_capture(f.s[0], &g));
    OK(xrt_graph_destroy(g));

    /* an event recorded in the capture cannot be waited for on the host */
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_RELAXED));
    OK(xrt_event_record(f.e[0], f.s[0]));
    FAILS(xrt_event_query(f.e[0]), XRT_ERROR_CAPTURED_EVENT,
          RULE("last recorded in a capture", "xrt_event_query", "EventQuery"));
    FAILS(xrt_event_synchronize(f.e[0]), XRT_ERROR_CAPTURED_EVENT,
          RULE("last recorded in a capture", "xrt_event_synchronize", "EventSynchronize"));
    FAILS(xrt_stream_end_capture(f.s[0], &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED,
          RULE("xrt_event_query", "xrt_stream_end_capture", "StreamEndCapture"));
    invalidated_by("xrt_event_query");
    OK(xrt_event_record(f.e[0], f.s[0])); /* recorded outside a capture again: usable */
    OK(xrt_event_synchronize(f.e[0]));

    /* isolation: a capturing stream cannot wait for work outside the capture */
    OK(xrt_launch_host_func(f.s[1], count_up_fn, &count));
    OK(xrt_event_record(f.e[1], f.s[1]));
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
    FAILS(xrt_stream_wait_event(f.s[0], f.e[1]), XRT_ERROR_STREAM_CAPTURE_ISOLATION,
          RULE("recorded outside the capture", "xrt_stream_wait_event", "StreamWaitEvent"));
    FAILS(xrt_stream_end_capture(f.s[0], &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED,
          RULE("xrt_stream_wait_event", "xrt_stream_end_capture", "StreamEndCapture"));
    invalidated_by("xrt_stream_wait_event");

    /* unjoined work names the stream that did not rejoin */
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_event_record(f.e[0], f.s[0]));
    OK(xrt_stream_wait_event(f.s[1], f.e[0]));
    OK(launch(&f, f.add, f.d, 1, f.s[1]));
    {
        char want[64];
        snprintf(want, sizeof want, "work captured on stream %p was not joined", (void *)f.s[1]);
        FAILS(xrt_stream_end_capture(f.s[1], &g), XRT_ERROR_STREAM_CAPTURE_UNMATCHED,
              RULE("joined a capture begun on", "xrt_stream_end_capture", "StreamEndCapture"));
        FAILS(xrt_stream_end_capture(f.s[0], &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED,
              RULE("xrt_stream_end_capture", "xrt_stream_end_capture", "StreamEndCapture"));
        OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
        OK(xrt_event_record(f.e[0], f.s[0]));
        OK(xrt_stream_wait_event(f.s[1], f.e[0]));
        OK(launch(&f, f.add, f.d, 1, f.s[1]));
        FAILS(xrt_stream_end_capture(f.s[0], &g), XRT_ERROR_STREAM_CAPTURE_UNJOINED,
              RULE(want, "xrt_stream_end_capture", "StreamEndCapture"));
    }
    OK(xrt_stream_is_capturing(f.s[1], &cs));
    assert_int_equal(cs, XRT_CAPTURE_STATUS_NONE);

    /* a stream-ordered free cannot be captured on the CPU (CUDA captures a
       free node, which xrt's graphs do not count) */
    if ((caps() & XRT_CAP_MALLOC_ASYNC) && on_cpu()) {
        void *p;
        OK(xrt_malloc_async(&p, 64, f.s[1]));
        OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
        FAILS(xrt_free_async(p, f.s[0]), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED, "stream-ordered free of memory");
        FAILS(xrt_stream_end_capture(f.s[0], &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED, "xrt_free_async");
        OK(xrt_free_async(p, f.s[1]));
    }

    /* an exec destroyed is a stale handle */
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_launch_host_func(f.s[0], count_up_fn, &count));
    OK(xrt_stream_end_capture(f.s[0], &g));
    OK(xrt_graph_instantiate(&x, g));
    OK(xrt_graph_exec_destroy(x));
    FAILS(xrt_graph_launch(x, f.s[0]), XRT_ERROR_INVALID_HANDLE, "was destroyed");
    FAILS(xrt_graph_exec_destroy(x), XRT_ERROR_INVALID_HANDLE, "was destroyed");
    OK(xrt_graph_destroy(g));
    FAILS(xrt_graph_instantiate(&x, g), XRT_ERROR_INVALID_HANDLE, "was destroyed");
    fx_free(&f);
}

/* >> a stream-ordered allocation in a capture: an allocation node
   Each launch uses the address that the capture returned, from its
   allocation to the captured free. The runtime's test double refuses it.
   The CPU backend once allocated at capture and ran nothing else, so a free
   between two launches left the second writing freed memory. */
static void capture_scratch(fixture *f, void **p, int v)
{
    OK(xrt_malloc_async(p, N * sizeof(int), f->s[0]));
    OK(xrt_memset_async(*p, v, N * sizeof(int), f->s[0]));
    OK(xrt_memcpy_async(f->h, *p, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST, f->s[0]));
    OK(xrt_free_async(*p, f->s[0]));
}

static void check_scratch(const fixture *f, int launch, unsigned want)
{
    int i;
    for (i = 0; i < N; i++)
        if ((unsigned)f->h[i] != want) fail_msg("launch %d: h[%d] = 0x%x, expected 0x%x", launch, i, (unsigned)f->h[i], want);
}

/* While a blocking stream captures, work for the NULL stream of its device
   would wait for captured work: refused with XRT_ERROR_STREAM_CAPTURE_IMPLICIT
   (cudaErrorStreamCaptureImplicit), and the capture invalidated, in every
   mode. Asking whether the NULL stream captures is refused so too, and
   leaves the capture as it was (HIP's hipStreamIsCapturing). A non-blocking
   stream's capture stops nothing, and another device's NULL stream is free. */
static void test_capture_implicit(void **state)
{
    static const xrt_capture_mode modes[] = {XRT_CAPTURE_MODE_GLOBAL, XRT_CAPTURE_MODE_THREAD_LOCAL,
                                             XRT_CAPTURE_MODE_RELAXED};
    xrt_stream b, nb;
    xrt_graph g = NULL;
    xrt_capture_status cs;
    unsigned char h[64];
    void *d;
    size_t i, k;
    int ran = 0;
    (void)state;
    need_graphs();
    OK(xrt_malloc(&d, sizeof h));
    OK(xrt_stream_create(&b));
    OK(xrt_stream_create_with_flags(&nb, XRT_STREAM_NON_BLOCKING));
    for (i = 0; i < 3; i++)
        for (k = 0; k < 3; k++) {
            OK(xrt_stream_begin_capture(b, modes[i]));
            OK(xrt_memset_async(d, 1, sizeof h, b));
            cs = XRT_CAPTURE_STATUS_INVALIDATED;
            FAILS(xrt_stream_is_capturing(NULL, &cs), XRT_ERROR_STREAM_CAPTURE_IMPLICIT,
                  RULE("would wait for", "xrt_stream_is_capturing", "StreamIsCapturing"));
            assert_int_equal(cs, XRT_CAPTURE_STATUS_NONE);
            FAILS(xrt_stream_is_capturing(XRT_STREAM_LEGACY, &cs), XRT_ERROR_STREAM_CAPTURE_IMPLICIT, "");
            OK(xrt_stream_is_capturing(b, &cs));
            assert_int_equal(cs, XRT_CAPTURE_STATUS_ACTIVE);
            if (k == 0) FAILS(xrt_memset_async(d, 2, sizeof h, NULL), XRT_ERROR_STREAM_CAPTURE_IMPLICIT,
                              RULE("would wait for", "xrt_memset_async", "MemsetAsync"));
            else if (k == 1) FAILS(xrt_launch_host_func(NULL, set_flag, &ran), XRT_ERROR_STREAM_CAPTURE_IMPLICIT,
                                   RULE("would wait for", "xrt_launch_host_func", "LaunchHostFunc"));
            else assert_int_equal(xrt_stream_synchronize(NULL), modes[i] == XRT_CAPTURE_MODE_RELAXED
                                                                    ? XRT_ERROR_STREAM_CAPTURE_IMPLICIT
                                                                    : XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED);
            OK(xrt_stream_is_capturing(b, &cs));
            assert_int_equal(cs, XRT_CAPTURE_STATUS_INVALIDATED);
            FAILS(xrt_stream_end_capture(b, &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED, "");
            assert_null(g);
        }
    OK(xrt_stream_begin_capture(nb, XRT_CAPTURE_MODE_RELAXED));
    OK(xrt_memset_async(d, 3, sizeof h, nb));
    OK(xrt_stream_is_capturing(NULL, &cs));
    assert_int_equal(cs, XRT_CAPTURE_STATUS_NONE);
    OK(xrt_memset_async(d, 4, sizeof h, NULL)); /* the NULL stream does not wait for nb */
    OK(xrt_stream_synchronize(NULL));
    OK(xrt_memcpy(h, d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_bytes(h, sizeof h, 4);
    OK(xrt_stream_end_capture(nb, &g));
    OK(xrt_graph_destroy(g));
    OK(xrt_stream_destroy(b));
    OK(xrt_stream_destroy(nb));
    OK(xrt_free(d));
    assert_false(flag(&ran)); /* the refused host function never ran */
}

/* A device reset during a GLOBAL capture is refused as the device
   synchronize it begins with, and the refusal names the call the program
   made (it once named xrt_device_synchronize alone). */
static void test_capture_refuses_device_reset(void **state)
{
    xrt_stream s;
    xrt_graph g = NULL;
    (void)state;
    need_graphs();
    OK(xrt_stream_create_with_flags(&s, XRT_STREAM_NON_BLOCKING));
    OK(xrt_stream_begin_capture(s, XRT_CAPTURE_MODE_GLOBAL));
    FAILS(xrt_device_reset(), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED, "xrt_device_reset: ");
    FAILS(xrt_stream_end_capture(s, &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED, "");
    assert_null(g);
    OK(xrt_stream_destroy(s));
}

/* xrt_malloc and xrt_malloc_host are among CUDA's potentially unsafe calls:
   refused during a GLOBAL capture (any thread's) or the calling thread's
   THREAD_LOCAL one, which is invalidated; allowed beside a RELAXED one. */
static void test_capture_refuses_allocation(void **state)
{
    static const xrt_capture_mode modes[] = {XRT_CAPTURE_MODE_GLOBAL, XRT_CAPTURE_MODE_THREAD_LOCAL,
                                             XRT_CAPTURE_MODE_RELAXED};
    xrt_stream s;
    xrt_graph g = NULL;
    void *p = NULL, *h = NULL, *d;
    size_t i;
    (void)state;
    need_graphs();
    OK(xrt_malloc(&d, 64));
    OK(xrt_stream_create_with_flags(&s, XRT_STREAM_NON_BLOCKING));
    for (i = 0; i < 3; i++) {
        OK(xrt_stream_begin_capture(s, modes[i]));
        OK(xrt_memset_async(d, 1, 64, s));
        if (modes[i] == XRT_CAPTURE_MODE_RELAXED) {
            OK(xrt_malloc(&p, 64));
            OK(xrt_malloc_host(&h, 64));
            OK(xrt_stream_end_capture(s, &g));
            OK(xrt_graph_destroy(g));
            OK(xrt_free(p));
            OK(xrt_free_host(h));
        } else {
            FAILS(xrt_malloc(&p, 64), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                  RULE("mode", "xrt_malloc", "Malloc"));
            assert_null(p);
            FAILS(xrt_stream_end_capture(s, &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED, "");
            assert_null(g);
            OK(xrt_stream_begin_capture(s, modes[i]));
            FAILS(xrt_malloc_host(&h, 64), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                  RULE("mode", "xrt_malloc_host", "HostAlloc"));
            assert_null(h);
            FAILS(xrt_stream_end_capture(s, &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED, "");
        }
    }
    OK(xrt_stream_destroy(s));
    OK(xrt_free(d));
}

static void test_captured_allocation(void **state)
{
    fixture f;
    xrt_graph g, g2;
    xrt_graph_exec x, x2;
    void *p = (void *)&f, *q, *other;
    int r;
    xrt_status st;
    (void)state;
    need_graphs();
    SKIP_UNLESS(caps() & XRT_CAP_MALLOC_ASYNC, "no stream-ordered allocation (XRT_CAP_MALLOC_ASYNC is clear)");
    fx_make(&f);
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
    st = xrt_malloc_async(&p, N * sizeof(int), f.s[0]);
    if (st != XRT_SUCCESS) { /* the runtime does not capture it */
        assert_int_equal(st, XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED);
        assert_non_null(strstr(xrt_get_last_error_string(), "xrt_malloc_async: cuda: cudaMallocAsync"));
        assert_null(p);
        FAILS(xrt_stream_end_capture(f.s[0], &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED,
              RULE("xrt_malloc_async", "xrt_stream_end_capture", "StreamEndCapture"));
        fx_free(&f);
        return;
    }
    OK(xrt_free_async(p, f.s[0]));
    OK(xrt_stream_end_capture(f.s[0], &g));
    OK(xrt_graph_destroy(g)); /* an allocation captured, never launched */
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
    capture_scratch(&f, &p, 0x5a);
    OK(xrt_stream_end_capture(f.s[0], &g));
    OK(xrt_graph_instantiate(&x, g));
    for (r = 0; r < 3; r++) {
        memset(f.h, 0, N * sizeof(int));
        OK(xrt_graph_launch(x, f.s[r % 2]));
        OK(xrt_stream_synchronize(f.s[r % 2]));
        check_scratch(&f, r, 0x5a5a5a5a);
    }
    if (on_cpu()) {
        /* one exec of such a graph at a time (CUDA's rule) */
        FAILS(xrt_graph_instantiate(&x2, g), XRT_ERROR_INVALID_VALUE, "has one exec at a time");
        /* CUDA updates no memory node: another capture's memory is another address */
        OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
        capture_scratch(&f, &q, 0x11);
        OK(xrt_stream_end_capture(f.s[0], &g2));
        assert_ptr_not_equal(p, q);
        FAILS(xrt_graph_exec_update(x, g2), XRT_ERROR_GRAPH_EXEC_UPDATE_FAILURE, "node 0 (an allocation) is of");
        OK(xrt_graph_destroy(g)); /* the exec keeps the memory: no other allocation gets it */
        OK(xrt_malloc(&other, N * sizeof(int)));
        assert_ptr_not_equal(other, p);
        OK(xrt_memset(other, 0x22, N * sizeof(int)));
        OK(xrt_graph_launch(x, f.s[0]));
        OK(xrt_stream_synchronize(f.s[0]));
        check_scratch(&f, 3, 0x5a5a5a5a);
        OK(xrt_memcpy(f.h, other, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST));
        check_scratch(&f, 3, 0x22222222);
        OK(xrt_free(other));
        OK(xrt_graph_exec_destroy(x));
        OK(xrt_graph_instantiate(&x2, g2));
        OK(xrt_graph_launch(x2, f.s[1]));
        OK(xrt_stream_synchronize(f.s[1]));
        check_scratch(&f, 4, 0x11111111);
        OK(xrt_graph_exec_destroy(x2));
        OK(xrt_graph_destroy(g2));
    } else {
        OK(xrt_graph_exec_destroy(x));
        OK(xrt_graph_destroy(g));
    }
    fx_free(&f);
}

/* One launch of x on s; p, the memory it leaves to its caller, read back
   and freed. */
static void launch_and_free(fixture *f, xrt_graph_exec x, void *p, xrt_stream s, int launch, unsigned want)
{
    memset(f->h, 0, N * sizeof(int));
    OK(xrt_graph_launch(x, s));
    OK(xrt_memcpy_async(f->h, p, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST, s));
    OK(xrt_free_async(p, s));
    OK(xrt_stream_synchronize(s));
    check_scratch(f, launch, want);
}

/* Begins a capture on f->s[0] with an allocation of n bytes in it; 0 where
   the runtime does not capture one (the capture is ended and f freed). */
static int capture_allocation(fixture *f, void **p, size_t n)
{
    xrt_graph g;
    OK(xrt_stream_begin_capture(f->s[0], XRT_CAPTURE_MODE_GLOBAL));
    if (xrt_malloc_async(p, n, f->s[0]) == XRT_SUCCESS) return 1;
    assert_int_equal(xrt_get_last_error(), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    xrt_stream_end_capture(f->s[0], &g);
    fx_free(f);
    return 0;
}

/* A capture on f->s[0] into *g of an allocation set to `value` on f->s[2],
   a stream that joined it: the allocation. */
static void *capture_joined_allocation(fixture *f, xrt_graph *g, int value)
{
    void *p = NULL;
    OK(xrt_stream_begin_capture(f->s[0], XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_event_record(f->e[0], f->s[0]));
    OK(xrt_stream_wait_event(f->s[2], f->e[0])); /* fork */
    OK(xrt_malloc_async(&p, N * sizeof(int), f->s[2]));
    OK(xrt_memset_async(p, value, N * sizeof(int), f->s[2]));
    OK(xrt_event_record(f->e[2], f->s[2]));
    OK(xrt_stream_wait_event(f->s[0], f->e[2])); /* join */
    OK(xrt_stream_end_capture(f->s[0], g));
    return p;
}

/* >> an allocation that the graph leaves to its caller (CUDA's rule): each
   launch allocates it again, at the address that the capture returned, and
   the caller frees it before the next launch. xrt's record of it goes at the
   capture's end and comes back with each launch, so that each launch's
   memory can be used and freed through xrt. The CPU backend once refused
   such a capture; on CUDA, xrt forgot the memory at its first free. */
static void test_captured_allocation_left_to_caller(void **state)
{
    fixture f;
    xrt_graph g;
    xrt_graph_exec x, x2;
    xrt_pointer_attributes a;
    void *p = NULL, *q = NULL;
    int r;
    (void)state;
    need_graphs();
    SKIP_UNLESS(caps() & XRT_CAP_MALLOC_ASYNC, "no stream-ordered allocation (XRT_CAP_MALLOC_ASYNC is clear)");
    fx_make(&f);
    if (!capture_allocation(&f, &p, N * sizeof(int))) return;
    OK(xrt_malloc_async(&q, 64, f.s[0])); /* freed in the graph: the graph's alone */
    OK(xrt_memset_async(p, 0x3c, N * sizeof(int), f.s[0]));
    OK(xrt_free_async(q, f.s[0]));
    OK(xrt_stream_end_capture(f.s[0], &g));
    /* before a launch, no memory is there */
    FAILS(xrt_free(p), XRT_ERROR_INVALID_VALUE, "is allocated by each launch of a graph");
    OK(xrt_graph_instantiate(&x, g));
    /* a graph with allocations has one exec at a time (cudaGraphInstantiate) */
    FAILS(xrt_graph_instantiate(&x2, g), XRT_ERROR_INVALID_VALUE, "has one exec at a time");
    for (r = 0; r < 4; r++) {
        memset(f.h, 0, N * sizeof(int));
        OK(xrt_graph_launch(x, f.s[r % 2]));
        OK(xrt_memcpy_async(f.h, p, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST, f.s[r % 2]));
        OK(xrt_stream_synchronize(f.s[r % 2]));
        check_scratch(&f, r, 0x3c3c3c3c);
        OK(xrt_pointer_get_attributes(&a, p));
        assert_int_equal(a.type, XRT_MEMORY_DEVICE);
        assert_ptr_equal(a.base, p);
        if (r == 3) break;
        OK(r % 2 ? xrt_free(p) : xrt_free_async(p, f.s[0]));
        FAILS(xrt_free(p), XRT_ERROR_INVALID_VALUE, "is allocated by each launch of a graph");
        FAILS(xrt_free(q), XRT_ERROR_INVALID_VALUE, "already freed");
    }
    /* the last launch's memory is not freed: the runtime refuses another */
    FAILS(xrt_graph_launch(x, f.s[0]), XRT_ERROR_INVALID_VALUE, "before the next launch, as in CUDA"); /* the core's check */
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    /* the memory outlives its graph, as the caller's */
    OK(xrt_memset(p, 0, N * sizeof(int)));
    OK(xrt_free(p));
    FAILS(xrt_free(p), XRT_ERROR_INVALID_VALUE, "already freed");
    /* the graph's next exec allocates it again; freed, it goes with the graph */
    OK(xrt_stream_begin_capture(f.s[1], XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_malloc_async(&p, N * sizeof(int), f.s[1]));
    OK(xrt_memset_async(p, 0x11, N * sizeof(int), f.s[1]));
    OK(xrt_stream_end_capture(f.s[1], &g));
    for (r = 4; r < 6; r++) {
        OK(xrt_graph_instantiate(&x, g));
        launch_and_free(&f, x, p, f.s[1], r, 0x11111111);
        OK(xrt_graph_exec_destroy(x));
    }
    OK(xrt_graph_destroy(g));
    FAILS(xrt_free(p), XRT_ERROR_INVALID_VALUE, "already freed");
    /* allocated on a stream that joined the capture */
    p = capture_joined_allocation(&f, &g, 0x22);
    FAILS(xrt_free(p), XRT_ERROR_INVALID_VALUE, "is allocated by each launch of a graph");
    OK(xrt_graph_instantiate(&x, g));
    for (r = 6; r < 8; r++) launch_and_free(&f, x, p, f.s[0], r, 0x22222222);
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    fx_free(&f);
}

/* >> an allocation of a capture that makes no graph (invalidated, or its
   origin stream destroyed) goes with the capture, as in CUDA, where the
   failed capture's graph takes it: a free of it fails. And xrt knows the
   capture is over, so that a later capture's allocation on a joined stream
   is still known as that capture's. xrt once kept the record of such memory
   (on CUDA, its free then failed in the runtime, and the record stayed), and
   kept a capture whose origin was destroyed as under way until
   xrt_shutdown. */
static void test_captured_allocation_of_failed_capture(void **state)
{
    fixture f;
    xrt_stream u;
    xrt_graph g;
    xrt_graph_exec x;
    void *p = NULL, *q;
    int r;
    (void)state;
    need_graphs();
    SKIP_UNLESS(caps() & XRT_CAP_MALLOC_ASYNC, "no stream-ordered allocation (XRT_CAP_MALLOC_ASYNC is clear)");
    fx_make(&f);
    if (!capture_allocation(&f, &p, 64)) return;
    FAILS(xrt_stream_synchronize(f.s[0]), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED, "xrt_stream_synchronize");
    FAILS(xrt_malloc_async(&q, 64, f.s[0]), XRT_ERROR_STREAM_CAPTURE_INVALIDATED, "xrt_malloc_async");
    FAILS(xrt_stream_end_capture(f.s[0], &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED, "xrt_stream_end_capture");
    FAILS(xrt_free(p), XRT_ERROR_INVALID_VALUE, "already freed");
    OK(xrt_stream_create(&u));
    OK(xrt_stream_begin_capture(u, XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_malloc_async(&p, 64, u));
    OK(xrt_stream_destroy(u));
    FAILS(xrt_free_async(p, f.s[1]), XRT_ERROR_INVALID_VALUE, "already freed");
    p = capture_joined_allocation(&f, &g, 0x33);
    OK(xrt_graph_instantiate(&x, g));
    for (r = 0; r < 3; r++) launch_and_free(&f, x, p, f.s[0], r, 0x33333333);
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    fx_free(&f);
}

/* Begins a capture on f->s[0] with an allocation freed in it, and a second
   one on f->s[1] (f->d set to `value`): 0 where the runtime does not
   capture an allocation (f is freed). */
static int begin_second_capture(fixture *f, int value)
{
    void *p;
    if (!capture_allocation(f, &p, 64)) return 0;
    OK(xrt_free_async(p, f->s[0]));
    OK(xrt_stream_begin_capture(f->s[1], XRT_CAPTURE_MODE_RELAXED)); /* allows the frees and allocations */
    OK(xrt_memset_async(f->d, value, N * sizeof(int), f->s[1]));
    return 1;
}

/* >> with two captures under way, an allocation on a stream that joined
   one of them is that capture's: it goes with a capture that makes no
   graph, and with a graph destroyed before a launch (issue 46 item 1). xrt
   once recorded it as any allocation: the backend took its memory back and
   gave it to the next xrt_malloc, xrt_free of the dead pointer freed the
   live allocation, and the two aliased. */
static void test_captured_allocation_of_one_of_two_captures(void **state)
{
    fixture f;
    xrt_graph g, g1;
    xrt_graph_exec x;
    xrt_stream u;
    void *p = NULL, *q, *pu = NULL;
    int r;
    (void)state;
    need_graphs();
    SKIP_UNLESS(caps() & XRT_CAP_MALLOC_ASYNC, "no stream-ordered allocation (XRT_CAP_MALLOC_ASYNC is clear)");
    fx_make(&f);
    if (!begin_second_capture(&f, 0x11)) return;
    /* u joins the capture on s[1], allocates, and is joined back: the
       failure of the capture on s[0] leaves that allocation alone */
    OK(xrt_stream_create_with_flags(&u, XRT_STREAM_NON_BLOCKING));
    OK(xrt_event_record(f.e[1], f.s[1]));
    OK(xrt_stream_wait_event(u, f.e[1]));
    OK(xrt_malloc_async(&pu, 64, u));
    OK(xrt_event_record(f.e[1], u));
    OK(xrt_stream_wait_event(f.s[1], f.e[1]));
    /* s[2] joins the capture on s[0], allocates, and is never joined back */
    OK(xrt_event_record(f.e[0], f.s[0]));
    OK(xrt_stream_wait_event(f.s[2], f.e[0]));
    OK(xrt_malloc_async(&p, N * sizeof(int), f.s[2]));
    OK(xrt_memset_async(p, 0x22, N * sizeof(int), f.s[2]));
    FAILS(xrt_stream_end_capture(f.s[0], &g), XRT_ERROR_STREAM_CAPTURE_UNJOINED,
          RULE("", "xrt_stream_end_capture", "StreamEndCapture"));
    FAILS(xrt_free(p), XRT_ERROR_INVALID_VALUE, "already freed");
    for (r = 0; r < 2; r++) { /* whatever address the next allocations get, the dead pointer frees none */
        OK(xrt_malloc(&q, N * sizeof(int)));
        OK(xrt_memset(q, 0x33, N * sizeof(int)));
        if (q != p) FAILS(xrt_free(p), XRT_ERROR_INVALID_VALUE, "already freed");
        OK(xrt_memcpy(f.h, q, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST));
        check_scratch(&f, r, 0x33333333);
        OK(xrt_free(q));
    }
    /* joined back, into a graph destroyed before a launch */
    p = capture_joined_allocation(&f, &g, 0x44);
    FAILS(xrt_free(p), XRT_ERROR_INVALID_VALUE, "is allocated by each launch of a graph");
    OK(xrt_graph_destroy(g));
    FAILS(xrt_free(p), XRT_ERROR_INVALID_VALUE, "already freed");
    /* and launched: each launch's memory is the caller's */
    p = capture_joined_allocation(&f, &g, 0x55);
    OK(xrt_graph_instantiate(&x, g));
    for (r = 2; r < 4; r++) launch_and_free(&f, x, p, f.s[0], r, 0x55555555);
    FAILS(xrt_free(p), XRT_ERROR_INVALID_VALUE, "is allocated by each launch of a graph");
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    OK(xrt_stream_end_capture(f.s[1], &g1)); /* the other capture, undisturbed */
    FAILS(xrt_free(pu), XRT_ERROR_INVALID_VALUE, "is allocated by each launch of a graph");
    OK(xrt_graph_instantiate(&x, g1));
    OK(xrt_graph_launch(x, f.s[1]));
    OK(xrt_memcpy_async(f.h, f.d, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST, f.s[1]));
    OK(xrt_free_async(pu, f.s[1]));
    OK(xrt_stream_synchronize(f.s[1]));
    check_scratch(&f, 4, 0x11111111);
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g1));
    OK(xrt_stream_destroy(u));
    fx_free(&f);
}

/* >> what the CPU backend refuses in a capture: a free of other memory, a
   second free, a free outside the capture while it lasts */
static void test_captured_allocation_refusals(void **state)
{
    fixture f;
    xrt_graph g;
    void *p, *q = NULL;
    (void)state;
    need_graphs();
    SKIP_UNLESS(caps() & XRT_CAP_MALLOC_ASYNC, "no stream-ordered allocation (XRT_CAP_MALLOC_ASYNC is clear)");
    SKIP_UNLESS(on_cpu(), "the runtime's own rules, with the runtime's own errors");
    fx_make(&f);
    /* a free of memory allocated outside the capture */
    OK(xrt_malloc_async(&p, 64, f.s[1]));
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
    FAILS(xrt_free_async(p, f.s[0]), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED,
          "a stream-ordered free of memory that this capture did not allocate");
    FAILS(xrt_stream_end_capture(f.s[0], &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED, "xrt_free_async");
    OK(xrt_free_async(p, f.s[1])); /* still the caller's */
    /* a capture frees its allocation once */
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_malloc_async(&q, 64, f.s[0]));
    OK(xrt_free_async(q, f.s[0]));
    FAILS(xrt_free_async(q, f.s[0]), XRT_ERROR_INVALID_VALUE, "already freed");
    OK(xrt_stream_end_capture(f.s[0], &g));
    OK(xrt_graph_destroy(g));
    FAILS(xrt_free(q), XRT_ERROR_INVALID_VALUE, "already freed");
    /* while the capture lasts, its allocation is freed in it, not outside */
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_RELAXED));
    OK(xrt_malloc_async(&p, 64, f.s[0]));
    FAILS(xrt_free_async(p, f.s[1]), XRT_ERROR_INVALID_VALUE, "was allocated in the capture begun on stream");
    FAILS(xrt_free(p), XRT_ERROR_INVALID_VALUE, "free it there");
    OK(xrt_free_async(p, f.s[0]));
    OK(xrt_stream_end_capture(f.s[0], &g));
    OK(xrt_graph_destroy(g));
    fx_free(&f);
}

/* >> THREAD_LOCAL and RELAXED: other threads' unsafe calls */
static void *memset_on_other_thread(void *arg)
{
    static xrt_status st;
    st = xrt_memset(arg, 0, 64);
    return &st;
}

static void *end_on_other_thread(void *arg)
{
    static xrt_status st;
    xrt_graph g = NULL;
    st = xrt_stream_end_capture((xrt_stream)arg, &g);
    if (g) xrt_graph_destroy(g);
    return &st;
}

static xrt_status on_thread(void *(*fn)(void *), void *arg)
{
    pthread_t t;
    void *r;
    assert_int_equal(start_thread(&t, NULL, fn, arg), 0);
    assert_int_equal(pthread_join(t, &r), 0);
    assert_true(r != XRT_TEST_NO_BACKEND);
    return *(xrt_status *)r;
}

static void test_capture_modes_and_threads(void **state)
{
    fixture f;
    xrt_graph g;
    (void)state;
    need_graphs();
    fx_make(&f);
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_THREAD_LOCAL));
    assert_int_equal(on_thread(memset_on_other_thread, f.d), XRT_SUCCESS); /* another thread may */
    assert_int_equal(on_thread(end_on_other_thread, f.s[0]), XRT_ERROR_STREAM_CAPTURE_WRONG_THREAD);
    OK(xrt_stream_end_capture(f.s[0], &g));
    OK(xrt_graph_destroy(g));
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
    assert_int_equal(on_thread(memset_on_other_thread, f.d), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    FAILS(xrt_stream_end_capture(f.s[0], &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED,
          RULE("xrt_memset", "xrt_stream_end_capture", "StreamEndCapture"));
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_RELAXED));
    assert_int_equal(on_thread(end_on_other_thread, f.s[0]), XRT_SUCCESS); /* relaxed: any thread ends it */
    fx_free(&f);
}

static void *sync_on_other_thread(void *arg)
{
    static xrt_status st;
    st = xrt_stream_synchronize((xrt_stream)arg);
    return &st;
}

static void *event_query_on_other_thread(void *arg)
{
    static xrt_status st;
    st = xrt_event_query((xrt_event)arg);
    return &st;
}

/* CUDA's potentially unsafe calls beside a capture (cudaStreamCaptureMode):
   a synchronize or query of a stream that is not capturing, a query or
   synchronize of an event recorded outside the capture, are refused from
   every thread during a GLOBAL capture and from the capturing thread during
   a THREAD_LOCAL one, and the capture is invalidated (HIP: hip_stream.cpp's
   StreamCaptureOngoing; PyTorch's NCCL watchdog, whose cudaEventQuery
   invalidated a GLOBAL capture of another thread). A device synchronize
   would wait for the captured stream: refused in every mode. */
static void test_capture_refuses_unsafe_calls(void **state)
{
    static const xrt_capture_mode modes[] = {XRT_CAPTURE_MODE_GLOBAL, XRT_CAPTURE_MODE_THREAD_LOCAL,
                                             XRT_CAPTURE_MODE_RELAXED};
    fixture f;
    xrt_graph g = NULL;
    xrt_capture_status cs;
    size_t i, k;
    (void)state;
    need_graphs();
    fx_make(&f);
    OK(xrt_event_record(f.e[1], f.s[1]));
    for (i = 0; i < 3; i++) {
        OK(xrt_stream_begin_capture(f.s[0], modes[i]));
        FAILS(xrt_device_synchronize(), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED,
              RULE("is capturing", "xrt_device_synchronize", "DeviceSynchronize"));
        OK(xrt_stream_is_capturing(f.s[0], &cs));
        assert_int_equal(cs, XRT_CAPTURE_STATUS_INVALIDATED);
        FAILS(xrt_stream_end_capture(f.s[0], &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED,
              RULE("xrt_device_synchronize", "xrt_stream_end_capture", "StreamEndCapture"));
        assert_null(g);
        for (k = 0; k < 4; k++) {
            xrt_status st;
            OK(xrt_stream_begin_capture(f.s[0], modes[i]));
            st = k == 0 ? xrt_stream_synchronize(f.s[1]) : k == 1 ? xrt_stream_query(f.s[1])
               : k == 2 ? xrt_event_query(f.e[1]) : xrt_event_synchronize(f.e[1]);
            if (modes[i] == XRT_CAPTURE_MODE_RELAXED) {
                assert_int_equal(st, XRT_SUCCESS);
                OK(xrt_stream_end_capture(f.s[0], &g));
                OK(xrt_graph_destroy(g));
                continue;
            }
            assert_int_equal(st, XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED);
            assert_int_equal(xrt_get_last_error(), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED);
            OK(xrt_stream_is_capturing(f.s[0], &cs));
            assert_int_equal(cs, XRT_CAPTURE_STATUS_INVALIDATED);
            FAILS(xrt_stream_end_capture(f.s[0], &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED, "");
            assert_null(g);
        }
        /* another thread: refused and invalidating in GLOBAL mode only */
        OK(xrt_stream_begin_capture(f.s[0], modes[i]));
        assert_int_equal(on_thread(sync_on_other_thread, f.s[1]),
                         modes[i] == XRT_CAPTURE_MODE_GLOBAL ? XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED : XRT_SUCCESS);
        assert_int_equal(on_thread(event_query_on_other_thread, f.e[1]),
                         modes[i] == XRT_CAPTURE_MODE_GLOBAL ? XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED : XRT_SUCCESS);
        OK(xrt_stream_is_capturing(f.s[0], &cs));
        assert_int_equal(cs, modes[i] == XRT_CAPTURE_MODE_GLOBAL ? XRT_CAPTURE_STATUS_INVALIDATED
                                                                 : XRT_CAPTURE_STATUS_ACTIVE);
        if (modes[i] == XRT_CAPTURE_MODE_GLOBAL) {
            FAILS(xrt_stream_end_capture(f.s[0], &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED,
                  RULE("xrt_stream_synchronize", "xrt_stream_end_capture", "StreamEndCapture"));
        } else {
            OK(xrt_stream_end_capture(f.s[0], &g));
            OK(xrt_graph_destroy(g));
        }
    }
    OK(xrt_device_synchronize()); /* no capture: allowed again */
    fx_free(&f);
}

/* xrt_event_elapsed_time of an event recorded in a capture, in every mode:
   XRT_ERROR_CAPTURED_EVENT on every backend ("The operation is not
   permitted on an event which was last recorded in a capturing stream",
   cudaErrorCapturedEvent; a RELAXED thread "is still prohibited from API
   calls which necessarily conflict with stream capture, for example,
   attempting cudaEventQuery on an event that was last recorded inside a
   capture sequence", and elapsed time is defined by what cudaEventQuery
   would say of each event), whichever event it is, before the refusal of a
   GLOBAL capture's unsafe calls, never XRT_ERROR_NOT_READY (a caller would
   poll forever) nor "never recorded"; the capture is invalidated. */
static void elapsed_refused(xrt_event start, xrt_event end, const char *why)
{
    float ms = -1;
    FAILS(xrt_event_elapsed_time(&ms, start, end), XRT_ERROR_CAPTURED_EVENT,
          RULE(why, "xrt_event_elapsed_time", "EventElapsedTime"));
    assert_true(ms == -1);
}

static void test_elapsed_time_in_capture(void **state)
{
    static const char captured[] = "the event was last recorded in a capture";
    fixture f;
    xrt_event a, b, c;
    xrt_graph g = NULL;
    float ms = -1;
    int i;
    (void)state;
    need_graphs();
    fx_make(&f);
    OK(xrt_event_create(&a, 0));
    OK(xrt_event_create(&b, 0));
    OK(xrt_event_create(&c, 0));
    OK(xrt_event_record(a, f.s[1]));
    OK(xrt_stream_synchronize(f.s[1]));
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_event_record(b, f.s[0]));
    for (i = 0; i < 2; i++) elapsed_refused(a, b, captured);
    elapsed_refused(b, a, captured);
    FAILS(xrt_stream_end_capture(f.s[0], &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED,
          RULE("xrt_event_elapsed_time", "xrt_stream_end_capture", "StreamEndCapture"));
    assert_null(g);
    /* RELAXED: an event first recorded in the capture was recorded */
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_RELAXED));
    OK(xrt_event_record(c, f.s[0]));
    elapsed_refused(a, c, captured);
    elapsed_refused(c, a, captured);
    FAILS(xrt_stream_end_capture(f.s[0], &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED,
          RULE("xrt_event_elapsed_time", "xrt_stream_end_capture", "StreamEndCapture"));
    assert_null(g);
    OK(xrt_event_record(b, f.s[0])); /* outside a capture: measured */
    OK(xrt_event_synchronize(b));
    OK(xrt_event_elapsed_time(&ms, a, b));
    assert_true(ms >= 0);
    OK(xrt_event_destroy(a));
    OK(xrt_event_destroy(b));
    OK(xrt_event_destroy(c));
    fx_free(&f);
}

/* The per-thread stream joins a capture begun on another stream by
   waiting for an event recorded there, as in CUDA: its work is captured,
   joined back as any stream's. */
static void test_per_thread_stream_joins_capture(void **state)
{
    fixture f;
    xrt_graph g = NULL;
    xrt_graph_exec x;
    xrt_capture_status cs;
    int count = 0;
    (void)state;
    need_graphs();
    fx_make(&f);
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_event_record(f.e[0], f.s[0]));
    OK(xrt_stream_wait_event(XRT_STREAM_PER_THREAD, f.e[0]));
    OK(xrt_stream_is_capturing(XRT_STREAM_PER_THREAD, &cs));
    assert_int_equal(cs, XRT_CAPTURE_STATUS_ACTIVE);
    OK(xrt_launch_host_func(XRT_STREAM_PER_THREAD, count_up_fn, &count));
    OK(xrt_event_record(f.e[1], XRT_STREAM_PER_THREAD));
    OK(xrt_stream_wait_event(f.s[0], f.e[1]));
    OK(xrt_stream_end_capture(f.s[0], &g));
    OK(xrt_stream_is_capturing(XRT_STREAM_PER_THREAD, &cs));
    assert_int_equal(cs, XRT_CAPTURE_STATUS_NONE);
    assert_int_equal(__atomic_load_n(&count, __ATOMIC_ACQUIRE), 0); /* captured, not run */
    OK(xrt_graph_instantiate(&x, g));
    OK(xrt_graph_launch(x, f.s[0]));
    OK(xrt_stream_synchronize(f.s[0]));
    assert_int_equal(count, 1);
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    fx_free(&f);
}

static void *relaxed_malloc_on_other_thread(void *arg)
{
    static xrt_status st;
    xrt_capture_mode mode = XRT_CAPTURE_MODE_RELAXED;
    void *p = NULL;
    (void)arg;
    if ((st = xrt_thread_exchange_stream_capture_mode(&mode)) != XRT_SUCCESS) return &st;
    if (mode != XRT_CAPTURE_MODE_GLOBAL) st = XRT_ERROR_ILLEGAL_STATE; /* a new thread starts in GLOBAL mode */
    else if ((st = xrt_malloc(&p, 64)) == XRT_SUCCESS) st = xrt_free(p);
    return &st;
}

static void *thread_local_sync_on_other_thread(void *arg)
{
    static xrt_status st;
    xrt_capture_mode mode = XRT_CAPTURE_MODE_THREAD_LOCAL;
    if ((st = xrt_thread_exchange_stream_capture_mode(&mode)) == XRT_SUCCESS)
        st = xrt_stream_synchronize((xrt_stream)arg);
    return &st;
}

/* >> a capture begun on the per-thread stream, as on cudaStreamPerThread
   (CUDA and HIP allow it; xrt once refused it): the calling thread's own
   stream is captured, and as a blocking stream it stops the NULL stream's
   work while it captures. */
static void test_per_thread_stream_captures(void **state)
{
    fixture f;
    xrt_graph g = NULL, none;
    xrt_graph_exec x;
    xrt_capture_status cs;
    unsigned long long id = 0;
    int count = 0, i;
    (void)state;
    need_graphs();
    fx_make(&f);
    OK(xrt_stream_is_capturing(XRT_STREAM_PER_THREAD, &cs));
    assert_int_equal(cs, XRT_CAPTURE_STATUS_NONE);
    OK(xrt_stream_begin_capture(XRT_STREAM_PER_THREAD, XRT_CAPTURE_MODE_GLOBAL));
    FAILS(xrt_stream_begin_capture(XRT_STREAM_PER_THREAD, XRT_CAPTURE_MODE_GLOBAL), XRT_ERROR_ILLEGAL_STATE, "");
    OK(xrt_stream_is_capturing(XRT_STREAM_PER_THREAD, &cs));
    assert_int_equal(cs, XRT_CAPTURE_STATUS_ACTIVE);
    if (xrt_stream_get_capture_info(XRT_STREAM_PER_THREAD, &cs, &id) != XRT_ERROR_UNSUPPORTED) {
        assert_int_equal(cs, XRT_CAPTURE_STATUS_ACTIVE);
        assert_true(id != 0);
    }
    for (i = 0; i < N; i++) f.h[i] = i;
    capture_pipeline(&f, XRT_STREAM_PER_THREAD, &count, 3);
    FAILS(xrt_stream_is_capturing(NULL, &cs), XRT_ERROR_STREAM_CAPTURE_IMPLICIT,
          RULE("would wait for", "xrt_stream_is_capturing", "StreamIsCapturing"));
    OK(xrt_stream_end_capture(XRT_STREAM_PER_THREAD, &g));
    assert_non_null(g);
    OK(xrt_stream_is_capturing(XRT_STREAM_PER_THREAD, &cs));
    assert_int_equal(cs, XRT_CAPTURE_STATUS_NONE);
    FAILS(xrt_stream_end_capture(XRT_STREAM_PER_THREAD, &none), XRT_ERROR_ILLEGAL_STATE, "");
    assert_int_equal(flag(&count), 0); /* captured, not run */
    OK(xrt_graph_instantiate(&x, g));
    OK(xrt_graph_launch(x, XRT_STREAM_PER_THREAD));
    OK(xrt_stream_synchronize(XRT_STREAM_PER_THREAD));
    for (i = 0; i < N; i++) assert_int_equal(f.h[i], (i + 3) * 2);
    assert_int_equal(flag(&count), 1);
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    fx_free(&f);
}

/* One thread's capture of its per-thread stream: begun, an allocation
   set to `value` in it, then (`begun` entered) it waits for `go` where
   asked, ends, launches and reads the allocation back. */
typedef struct pt_capture {
    fixture *f;
    gate begun, go;
    int value, host[N];
    void *p; /* pt_capture_and_exit's allocation */
    xrt_graph g; /* and its capture's graph, where the runtime names it */
    xrt_status st;
} pt_capture;

static xrt_status pt_capture_run(pt_capture *c, int wait)
{
    xrt_graph g = NULL;
    xrt_graph_exec x = NULL;
    void *p = NULL;
    xrt_status st;
    if ((st = xrt_stream_begin_capture(XRT_STREAM_PER_THREAD, XRT_CAPTURE_MODE_THREAD_LOCAL)) != XRT_SUCCESS ||
        (st = xrt_malloc_async(&p, N * sizeof(int), XRT_STREAM_PER_THREAD)) != XRT_SUCCESS ||
        (st = xrt_memset_async(p, c->value, N * sizeof(int), XRT_STREAM_PER_THREAD)) != XRT_SUCCESS)
        return st;
    __atomic_store_n(&c->begun.entered, 1, __ATOMIC_RELEASE); /* the other thread may go on */
    if (wait) gate_wait(&c->go);
    if ((st = xrt_stream_end_capture(XRT_STREAM_PER_THREAD, &g)) != XRT_SUCCESS) return st;
    /* the graph's: allocated by each launch, none before the first */
    if (xrt_free(p) != XRT_ERROR_INVALID_VALUE || !strstr(xrt_get_last_error_string(), "each launch of a graph"))
        st = XRT_ERROR_BACKEND;
    else if ((st = xrt_graph_instantiate(&x, g)) == XRT_SUCCESS &&
             (st = xrt_graph_launch(x, XRT_STREAM_PER_THREAD)) == XRT_SUCCESS &&
             (st = xrt_memcpy_async(c->host, p, sizeof c->host, XRT_MEMCPY_DEVICE_TO_HOST, XRT_STREAM_PER_THREAD)) ==
                 XRT_SUCCESS &&
             (st = xrt_free_async(p, XRT_STREAM_PER_THREAD)) == XRT_SUCCESS)
        st = xrt_stream_synchronize(XRT_STREAM_PER_THREAD);
    if (x) xrt_graph_exec_destroy(x);
    xrt_graph_destroy(g);
    return st;
}

static void *pt_capture_main(void *arg)
{
    pt_capture *c = (pt_capture *)arg;
    c->st = pt_capture_run(c, 1);
    __atomic_store_n(&c->begun.entered, 1, __ATOMIC_RELEASE); /* also when it failed early */
    return NULL;
}

/* >> two threads capture their per-thread streams at once: two captures,
   each with its own graph and allocations. xrt once kept them by the
   handle XRT_STREAM_PER_THREAD, which is every thread's. */
static void test_per_thread_captures_of_two_threads(void **state)
{
    fixture f;
    pt_capture c[2];
    pthread_t t;
    int i;
    (void)state;
    need_graphs();
    SKIP_UNLESS(caps() & XRT_CAP_MALLOC_ASYNC, "no stream-ordered allocation (XRT_CAP_MALLOC_ASYNC is clear)");
    fx_make(&f);
    memset(c, 0, sizeof c);
    c[0].value = 0x11, c[1].value = 0x22;
    c[1].f = c[0].f = &f;
    c[0].go.open = 1; /* this thread's capture ends once the other's is begun */
    assert_int_equal(start_thread(&t, NULL, pt_capture_main, &c[1]), 0);
    gate_wait_entered(&c[1].begun);
    c[0].st = pt_capture_run(&c[0], 0);
    gate_open(&c[1].go);
    assert_int_equal(pthread_join(t, NULL), 0);
    OK(c[1].st);
    OK(c[0].st);
    for (i = 0; i < N; i++) {
        assert_int_equal(c[0].host[i], 0x11111111);
        assert_int_equal(c[1].host[i], 0x22222222);
    }
    fx_free(&f);
}

static void *pt_capture_and_exit(void *arg)
{
    pt_capture *c = (pt_capture *)arg;
    void *p = NULL;
    c->st = xrt_stream_begin_capture(XRT_STREAM_PER_THREAD, XRT_CAPTURE_MODE_RELAXED);
    if (c->st == XRT_SUCCESS && (caps() & XRT_CAP_MALLOC_ASYNC))
        c->st = xrt_malloc_async(&p, N * sizeof(int), XRT_STREAM_PER_THREAD);
    if (c->st == XRT_SUCCESS) c->st = xrt_memset_async(c->f->d, 1, N * sizeof(int), XRT_STREAM_PER_THREAD);
    if (c->st == XRT_SUCCESS &&
        xrt_stream_get_capture_info_v2(XRT_STREAM_PER_THREAD, &(xrt_capture_status){0}, NULL, &c->g, NULL, NULL))
        xrt_get_last_error(); /* a runtime that does not name it */
    c->p = p;
    return NULL; /* without an end */
}

/* >> a thread that exits in the middle of its per-thread stream's capture
   leaves nothing behind in xrt: its capture is over without a graph (as a
   destroyed origin's), its allocation goes with it, and the captures of
   other threads work as before. The CPU backend closes the thread's
   per-thread stream, which ends its capture, as the CUDA runtime double
   does. */
static void test_thread_exits_in_per_thread_capture(void **state)
{
    fixture f;
    pt_capture c;
    pthread_t t;
    void *p, *q;
    xrt_graph g;
    xrt_graph_exec x;
    int i;
    (void)state;
    need_graphs();
    fx_make(&f);
    memset(&c, 0, sizeof c);
    c.f = &f;
    assert_int_equal(start_thread(&t, NULL, pt_capture_and_exit, &c), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    OK(c.st);
    if ((p = c.p) != NULL) FAILS(xrt_free(p), XRT_ERROR_INVALID_VALUE, "already freed");
    if (c.g) FAILS(xrt_graph_get_nodes(c.g, NULL, &(size_t){0}), XRT_ERROR_INVALID_HANDLE, "xrt_graph_get_nodes");
    /* (not on the NULL stream: what a GPU runtime does with the exited
       thread's per-thread stream is its own) */
    OK(xrt_memset_async(f.d, 0, N * sizeof(int), f.s[0]));
    OK(xrt_stream_synchronize(f.s[0]));
    OK(xrt_stream_begin_capture(XRT_STREAM_PER_THREAD, XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_memset_async(f.d, 7, N * sizeof(int), XRT_STREAM_PER_THREAD));
    OK(xrt_stream_end_capture(XRT_STREAM_PER_THREAD, &g));
    OK(xrt_graph_instantiate(&x, g));
    OK(xrt_graph_launch(x, f.s[0]));
    OK(xrt_memcpy_async(f.h, f.d, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST, f.s[0]));
    OK(xrt_stream_synchronize(f.s[0]));
    for (i = 0; i < N; i++) assert_int_equal(f.h[i], 0x07070707);
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    if (caps() & XRT_CAP_MALLOC_ASYNC) { /* no capture under way: an ordinary allocation */
        OK(xrt_malloc_async(&q, 64, f.s[0]));
        OK(xrt_free_async(q, f.s[0]));
        OK(xrt_stream_synchronize(f.s[0]));
    }
    fx_free(&f);
}

/* xrt_thread_exchange_stream_capture_mode (cudaThreadExchangeStreamCaptureMode):
   the thread's mode decides which captures its unsafe calls are checked
   against. GLOBAL (the default): its own captures that are not RELAXED and
   every GLOBAL one; THREAD_LOCAL: its own that are not RELAXED; RELAXED:
   none. What conflicts with a capture stays refused in every mode: a
   synchronize of the capturing stream, a device synchronize. */
static void test_thread_capture_mode(void **state)
{
    fixture f;
    xrt_graph g = NULL;
    xrt_capture_mode mode = XRT_CAPTURE_MODE_RELAXED;
    xrt_capture_status cs;
    void *p = NULL;
    (void)state;
    need_graphs();
    fx_make(&f);
    /* push RELAXED, pop: the call gives the mode it replaces */
    OK(xrt_thread_exchange_stream_capture_mode(&mode));
    assert_int_equal(mode, XRT_CAPTURE_MODE_GLOBAL);
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_malloc(&p, 64)); /* the thread is RELAXED: its own GLOBAL capture does not refuse it */
    OK(xrt_stream_synchronize(f.s[1]));
    FAILS(xrt_stream_synchronize(f.s[0]), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED,
          RULE("is capturing", "xrt_stream_synchronize", "StreamSynchronize"));
    FAILS(xrt_stream_end_capture(f.s[0], &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED, "");
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
    FAILS(xrt_device_synchronize(), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED,
          RULE("is capturing", "xrt_device_synchronize", "DeviceSynchronize"));
    FAILS(xrt_stream_end_capture(f.s[0], &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED, "");
    OK(xrt_free(p));
    mode = XRT_CAPTURE_MODE_THREAD_LOCAL;
    OK(xrt_thread_exchange_stream_capture_mode(&mode));
    assert_int_equal(mode, XRT_CAPTURE_MODE_RELAXED);
    /* THREAD_LOCAL: its own GLOBAL capture refuses it still */
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
    FAILS(xrt_malloc(&p, 64), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED, RULE("GLOBAL mode", "xrt_malloc", "Malloc"));
    FAILS(xrt_stream_end_capture(f.s[0], &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED, "");
    mode = XRT_CAPTURE_MODE_GLOBAL;
    OK(xrt_thread_exchange_stream_capture_mode(&mode)); /* back to the default */
    assert_int_equal(mode, XRT_CAPTURE_MODE_THREAD_LOCAL);
    /* another thread's GLOBAL capture: a thread in RELAXED or THREAD_LOCAL mode may */
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
    assert_int_equal(on_thread(relaxed_malloc_on_other_thread, NULL), XRT_SUCCESS);
    assert_int_equal(on_thread(thread_local_sync_on_other_thread, f.s[1]), XRT_SUCCESS);
    OK(xrt_stream_is_capturing(f.s[0], &cs));
    assert_int_equal(cs, XRT_CAPTURE_STATUS_ACTIVE);
    assert_int_equal(on_thread(sync_on_other_thread, f.s[1]), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED); /* GLOBAL may not */
    FAILS(xrt_stream_end_capture(f.s[0], &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED,
          RULE("xrt_stream_synchronize", "xrt_stream_end_capture", "StreamEndCapture"));
    /* not a mode */
    mode = (xrt_capture_mode)3;
    FAILS(xrt_thread_exchange_stream_capture_mode(&mode), XRT_ERROR_INVALID_VALUE, "*mode is 3");
    assert_int_equal(mode, 3);
    FAILS(xrt_thread_exchange_stream_capture_mode(NULL), XRT_ERROR_INVALID_VALUE, "mode is NULL");
    fx_free(&f);
}

/* >> a destroyed stream under capture ends its capture; a graph outlives its streams */
static void test_destroyed_stream_ends_capture(void **state)
{
    fixture f;
    xrt_stream t;
    xrt_graph g;
    xrt_capture_status cs;
    int count = 0;
    (void)state;
    need_graphs();
    fx_make(&f);
    OK(xrt_stream_create(&t));
    OK(xrt_stream_begin_capture(t, XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_event_record(f.e[0], t));
    OK(xrt_stream_wait_event(f.s[1], f.e[0]));
    OK(xrt_launch_host_func(t, count_up_fn, &count));
    OK(xrt_stream_destroy(t));
    OK(xrt_stream_is_capturing(f.s[1], &cs));
    assert_int_equal(cs, XRT_CAPTURE_STATUS_NONE);
    OK(xrt_memset(f.d, 0, 64)); /* no capture is active any more */
    FAILS(xrt_stream_end_capture(t, &g), XRT_ERROR_INVALID_HANDLE, "was destroyed");
    FAILS(xrt_stream_wait_event(f.s[2], f.e[0]), XRT_ERROR_CAPTURED_EVENT,
          RULE("capture that has ended", "xrt_stream_wait_event", "StreamWaitEvent"));
    assert_int_equal(count, 0);
    fx_free(&f);
}

/* >> a stream that joined a capture and was joined back may be destroyed
   before the capture ends, as CUDA's graphMemoryNodes sample does with its
   second stream: the capture goes on. Destroyed with work not joined back,
   the end is XRT_ERROR_STREAM_CAPTURE_UNJOINED. */
static void test_joined_stream_destroyed_in_capture(void **state)
{
    xrt_stream o, side;
    xrt_event fork, join;
    xrt_graph g;
    xrt_graph_exec x;
    int count = 0;
    (void)state;
    need_graphs();
    OK(xrt_stream_create_with_flags(&o, XRT_STREAM_NON_BLOCKING));
    OK(xrt_stream_create_with_flags(&side, XRT_STREAM_NON_BLOCKING));
    OK(xrt_event_create(&fork, XRT_EVENT_DISABLE_TIMING));
    OK(xrt_event_create(&join, XRT_EVENT_DISABLE_TIMING));
    OK(xrt_stream_begin_capture(o, XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_event_record(fork, o));
    OK(xrt_stream_wait_event(side, fork));
    OK(xrt_launch_host_func(side, count_up_fn, &count));
    OK(xrt_event_record(join, side));
    OK(xrt_stream_wait_event(o, join));
    OK(xrt_stream_destroy(side)); /* joined back */
    OK(xrt_event_destroy(join));
    OK(xrt_launch_host_func(o, count_up_fn, &count));
    OK(xrt_stream_end_capture(o, &g));
    OK(xrt_graph_instantiate(&x, g));
    OK(xrt_graph_launch(x, o));
    OK(xrt_stream_synchronize(o));
    assert_int_equal(count, 2);
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    /* its last work not joined back */
    OK(xrt_stream_create_with_flags(&side, XRT_STREAM_NON_BLOCKING));
    OK(xrt_stream_begin_capture(o, XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_event_record(fork, o));
    OK(xrt_stream_wait_event(side, fork));
    OK(xrt_launch_host_func(side, count_up_fn, &count));
    OK(xrt_stream_destroy(side));
    FAILS(xrt_stream_end_capture(o, &g), XRT_ERROR_STREAM_CAPTURE_UNJOINED, "xrt_stream_end_capture");
    assert_null(g);
    assert_int_equal(count, 2);
    OK(xrt_event_destroy(fork));
    OK(xrt_stream_destroy(o));
}

/* >> after a capture ended by its origin's destruction, a capture on a new
   stream records its own kernels only and runs. On a GPU backend xrt once
   kept the ended capture's count, entry and kernel records until
   xrt_shutdown (tests/test_gpu.c: ..._destroyed_stream_forgotten_fake). */
static void test_capture_after_destroyed_origin(void **state)
{
    fixture f;
    xrt_stream t, u;
    xrt_graph g;
    xrt_graph_exec x;
    xrt_graph_info info;
    xrt_capture_status cs;
    int count = 0, i;
    (void)state;
    need_graphs();
    fx_make(&f);
    OK(xrt_stream_create_with_flags(&t, XRT_STREAM_NON_BLOCKING));
    OK(xrt_stream_begin_capture(t, XRT_CAPTURE_MODE_GLOBAL));
    capture_pipeline(&f, t, &count, 7);
    OK(xrt_stream_destroy(t));
    FAILS(xrt_stream_end_capture(t, &g), XRT_ERROR_INVALID_HANDLE, "was destroyed");
    OK(xrt_stream_create_with_flags(&u, XRT_STREAM_NON_BLOCKING));
    OK(xrt_stream_is_capturing(u, &cs));
    assert_int_equal(cs, XRT_CAPTURE_STATUS_NONE);
    pipeline_exec(&f, u, &count, 3, &g, &x);
    OK(xrt_graph_get_info(g, &info));
    assert_int_equal(info.nodes, 5);
    assert_int_equal(info.kernels, f.host_steps ? 0 : 2);
    if (!f.host_steps) captured_kernels_are(&f, g, 3);
    for (i = 0; i < N; i++) f.h[i] = i;
    OK(xrt_graph_launch(x, u));
    OK(xrt_stream_synchronize(u));
    for (i = 0; i < N; i++)
        if (f.h[i] != (i + 3) * 2) fail_msg("h[%d] = %d, expected %d", i, f.h[i], (i + 3) * 2);
    assert_int_equal(count, 1); /* the destroyed capture's host function never ran */
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    OK(xrt_stream_destroy(u));
    fx_free(&f);
}

/* >> graphs alive at xrt_shutdown are released; the library starts again */
static void test_graphs_alive_at_shutdown(void **state)
{
    fixture f;
    xrt_graph g;
    xrt_graph_exec x;
    const char *be;
    char backend[32];
    int count = 0;
    (void)state;
    need_graphs();
    OK(xrt_get_backend(&be));
    snprintf(backend, sizeof backend, "%s", be);
    fx_make(&f);
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
    capture_pipeline(&f, f.s[0], &count, 1);
    OK(xrt_stream_end_capture(f.s[0], &g));
    OK(xrt_graph_instantiate(&x, g));
    OK(xrt_graph_launch(x, f.s[1]));
    OK(xrt_stream_begin_capture(f.s[2], XRT_CAPTURE_MODE_GLOBAL)); /* a capture left open too */
    OK(launch(&f, f.add, f.d, 1, f.s[2]));
    xrt_shutdown();
    assert_int_equal(count, 1); /* the launch made before ran */
    OK(xrt_init());
    OK(xrt_set_backend(backend));
    FAILS(xrt_graph_launch(x, NULL), XRT_ERROR_INVALID_HANDLE, "was destroyed");
}

/* >> a forked child launches its parent's exec; a launch in flight at the
   fork is the parent's work, not the child's */
static void test_exec_in_forked_child(void **state)
{
    fixture f;
    xrt_graph g;
    xrt_graph_exec x;
    char why[256];
    int count = 0, i;
    pid_t pid;
    (void)state;
    need_graphs();
    SKIP_UNLESS(survives_fork(), "the backend does not survive fork() (a GPU runtime, the tracer)");
#if defined(__SANITIZE_THREAD__)
    SKIP_UNLESS(0, "ThreadSanitizer cannot start threads in a child forked from a threaded process");
#endif
    fx_make(&f);
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
    capture_pipeline(&f, f.s[0], &count, 4);
    OK(xrt_stream_end_capture(f.s[0], &g));
    OK(xrt_graph_instantiate(&x, g));
    for (i = 0; i < N; i++) f.h[i] = i;
    OK(xrt_graph_launch(x, f.s[1]));
    pid = child_fork(20);
    if (pid == 0) {
        xrt_stream t;
        CHILD_OK(xrt_stream_create(&t));
        for (i = 0; i < N; i++) f.h[i] = 2 * i;
        CHILD_OK(xrt_graph_launch(x, t));
        CHILD_OK(xrt_stream_synchronize(t));
        for (i = 0; i < N; i++) CHILD_TRUE(f.h[i] == (2 * i + 4) * 2);
        CHILD_OK(xrt_graph_exec_destroy(x));
        CHILD_OK(xrt_graph_destroy(g));
        CHILD_OK(xrt_stream_destroy(t));
        xrt_shutdown();
        child_end_quietly(); /* the parent's objects are the parent's */
    }
    if (child_status(pid, 20, why, sizeof why)) fail_msg("forked child: %s", why);
    OK(xrt_stream_synchronize(f.s[1]));
    for (i = 0; i < N; i++) assert_int_equal(f.h[i], (i + 4) * 2);
    assert_int_equal(count, 1);
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    fx_free(&f);
}

/* >> captures on several threads at once, THREAD_LOCAL each */
static void *capture_on_thread(void *arg)
{
    static xrt_status fail = XRT_ERROR_BACKEND;
    int *out = (int *)arg, i, r, count = 0;
    xrt_stream s;
    xrt_graph g;
    xrt_graph_exec x;
    xrt_status st;
    if (xrt_stream_create(&s) != XRT_SUCCESS) return &fail;
    for (r = 0; r < 20; r++) {
        if ((st = xrt_stream_begin_capture(s, XRT_CAPTURE_MODE_THREAD_LOCAL)) != XRT_SUCCESS) return &fail;
        for (i = 0; i < 8; i++) xrt_launch_host_func(s, count_up_fn, &count);
        if (xrt_stream_end_capture(s, &g) != XRT_SUCCESS || xrt_graph_instantiate(&x, g) != XRT_SUCCESS) return &fail;
        xrt_graph_launch(x, s);
        xrt_graph_launch(x, s);
        xrt_graph_exec_destroy(x);
        xrt_graph_destroy(g);
        if (xrt_stream_synchronize(s) != XRT_SUCCESS) return &fail;
    }
    *out = count;
    xrt_stream_destroy(s);
    {
        static xrt_status ok = XRT_SUCCESS;
        return &ok;
    }
}

static void test_concurrent_thread_local_captures(void **state)
{
    pthread_t t[4];
    int out[4], i;
    void *r;
    (void)state;
    need_graphs();
    for (i = 0; i < 4; i++) assert_int_equal(start_thread(&t[i], NULL, capture_on_thread, &out[i]), 0);
    for (i = 0; i < 4; i++) {
        assert_int_equal(pthread_join(t[i], &r), 0);
        assert_true(r != XRT_TEST_NO_BACKEND);
        assert_int_equal(*(xrt_status *)r, XRT_SUCCESS);
        assert_int_equal(out[i], 20 * 2 * 8);
    }
}

/* >> a graph launched in a capture is a child graph node: a copy of the
   exec's graph as it is then, run where the node is; the CPU backend once
   refused it */
static void test_captured_graph_launch(void **state)
{
    fixture f;
    xrt_graph g, outer;
    xrt_graph_exec x, xo;
    xrt_graph_info info;
    void *p;
    int count = 0, i, r;
    (void)state;
    need_graphs();
    fx_make(&f);
    pipeline_exec(&f, f.s[0], &count, 3, &g, &x);
    OK(xrt_stream_begin_capture(f.s[1], XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_graph_launch(x, f.s[1]));
    OK(xrt_graph_launch(x, f.s[1]));
    OK(xrt_launch_host_func(f.s[1], count_up_fn, &count));
    OK(xrt_stream_end_capture(f.s[1], &outer));
    assert_int_equal(count, 0); /* captured, not run */
    OK(xrt_graph_get_info(outer, &info));
    assert_int_equal(info.nodes, 3);
    assert_int_equal(info.edges, 2);
    assert_int_equal(info.host_fns, 1);
    assert_int_equal(info.kernels + info.copies + info.sets, 0);
    OK(xrt_graph_instantiate(&xo, outer));
    OK(xrt_graph_exec_destroy(x)); /* the children are copies */
    OK(xrt_graph_destroy(g));
    for (r = 0; r < 3; r++) {
        for (i = 0; i < N; i++) f.h[i] = i;
        OK(xrt_graph_launch(xo, f.s[2]));
        OK(xrt_stream_synchronize(f.s[2]));
        for (i = 0; i < N; i++)
            if (f.h[i] != ((i + 3) * 2 + 3) * 2) fail_msg("launch %d: h[%d] = %d, expected %d", r, i, f.h[i], ((i + 3) * 2 + 3) * 2);
        assert_int_equal(count, 3 * (r + 1));
    }
    OK(xrt_graph_exec_destroy(xo));
    OK(xrt_graph_destroy(outer));
    /* a graph that allocates memory is no child, as in CUDA */
    if (on_cpu() && (caps() & XRT_CAP_MALLOC_ASYNC)) {
        OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
        OK(xrt_malloc_async(&p, 64, f.s[0]));
        OK(xrt_free_async(p, f.s[0]));
        OK(xrt_stream_end_capture(f.s[0], &g));
        OK(xrt_graph_instantiate(&x, g));
        OK(xrt_stream_begin_capture(f.s[1], XRT_CAPTURE_MODE_GLOBAL));
        FAILS(xrt_graph_launch(x, f.s[1]), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED, "memory nodes");
        FAILS(xrt_stream_end_capture(f.s[1], &outer), XRT_ERROR_STREAM_CAPTURE_INVALIDATED, "xrt_graph_launch");
        OK(xrt_graph_exec_destroy(x));
        OK(xrt_graph_destroy(g));
    }
    fx_free(&f);
}

/* >> graphs that leave memory to their callers, captured and launched on
   several threads at once: each allocation is its own capture's (its
   origin stream), and each launch's memory is freed through xrt */
static void *left_memory_on_thread(void *arg)
{
    static xrt_status fail = XRT_ERROR_BACKEND, ok = XRT_SUCCESS;
    unsigned char *h = (unsigned char *)arg, v = h[0];
    int r, i, bad = 0;
    xrt_stream s;
    xrt_graph g;
    xrt_graph_exec x;
    void *p;
    if (xrt_stream_create(&s) != XRT_SUCCESS) return &fail;
    for (r = 0; r < 10 && !bad; r++) {
        if (xrt_stream_begin_capture(s, XRT_CAPTURE_MODE_THREAD_LOCAL) != XRT_SUCCESS ||
            xrt_malloc_async(&p, 4096, s) != XRT_SUCCESS || xrt_memset_async(p, v, 4096, s) != XRT_SUCCESS ||
            xrt_stream_end_capture(s, &g) != XRT_SUCCESS || xrt_graph_instantiate(&x, g) != XRT_SUCCESS)
            return &fail;
        for (i = 0; i < 3 && !bad; i++) {
            memset(h, 0, 4096);
            bad = xrt_graph_launch(x, s) != XRT_SUCCESS ||
                  xrt_memcpy_async(h, p, 4096, XRT_MEMCPY_DEVICE_TO_HOST, s) != XRT_SUCCESS ||
                  xrt_free_async(p, s) != XRT_SUCCESS || xrt_stream_synchronize(s) != XRT_SUCCESS || h[0] != v ||
                  h[4095] != v;
        }
        if (xrt_graph_exec_destroy(x) != XRT_SUCCESS || xrt_graph_destroy(g) != XRT_SUCCESS) bad = 1;
    }
    xrt_stream_destroy(s);
    return bad ? &fail : &ok;
}

static void test_concurrent_captures_leaving_memory(void **state)
{
    pthread_t t[4];
    unsigned char h[4][4096];
    int i;
    void *r;
    (void)state;
    need_graphs();
    SKIP_UNLESS(caps() & XRT_CAP_MALLOC_ASYNC, "no stream-ordered allocation (XRT_CAP_MALLOC_ASYNC is clear)");
    for (i = 0; i < 4; i++) {
        h[i][0] = (unsigned char)(0x10 + i);
        assert_int_equal(start_thread(&t[i], NULL, left_memory_on_thread, h[i]), 0);
    }
    for (i = 0; i < 4; i++) {
        assert_int_equal(pthread_join(t[i], &r), 0);
        assert_true(r != XRT_TEST_NO_BACKEND);
        assert_int_equal(*(xrt_status *)r, XRT_SUCCESS);
    }
}

/* >> a graph as a Graphviz file (cudaGraphDebugDotPrint): a node line per
   node and an edge line per edge, as xrt_graph_get_info counts them; a path
   that cannot be written is an error */
static void dot_counts(const char *path, size_t *nodes, size_t *edges, char *text, size_t n)
{
    FILE *in = fopen(path, "r");
    char line[512];
    *nodes = *edges = 0;
    text[0] = 0;
    assert_non_null(in);
    while (fgets(line, sizeof line, in)) {
        *nodes += strstr(line, "[label=") != NULL;
        *edges += strstr(line, "->") != NULL;
        if (strlen(text) + strlen(line) < n) strcat(text, line);
    }
    fclose(in);
}

static void test_graph_debug_dot_print(void **state)
{
    fixture f;
    xrt_graph g;
    xrt_graph_info info;
    char path[96], text[4096];
    size_t nodes, edges;
    int verbose;
    (void)state;
    need_graphs();
    fx_make(&f);
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL)); /* a fork and a join */
    OK(xrt_memset_async(f.d, 1, 64, f.s[0]));
    OK(xrt_event_record(f.e[0], f.s[0]));
    OK(xrt_stream_wait_event(f.s[1], f.e[0]));
    OK(xrt_memset_async(f.d + 16, 2, 64, f.s[1]));
    OK(xrt_event_record(f.e[1], f.s[1]));
    OK(xrt_memset_async(f.d + 32, 3, 64, f.s[0]));
    OK(xrt_stream_wait_event(f.s[0], f.e[1]));
    OK(xrt_memcpy_async(f.h, f.d, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST, f.s[0]));
    OK(xrt_stream_end_capture(f.s[0], &g));
    OK(xrt_graph_get_info(g, &info));
    assert_true(info.nodes == 4 && info.edges == 4);
    snprintf(path, sizeof path, "%s/xrt-dot-%ld-%s.gv", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid(),
             xrt_test_backend);
    for (verbose = 0; verbose < 2; verbose++) {
        OK(xrt_graph_debug_dot_print(g, path, verbose ? XRT_GRAPH_DEBUG_DOT_VERBOSE : 0));
        dot_counts(path, &nodes, &edges, text, sizeof text);
        assert_true(!strncmp(text, "digraph", 7) && strstr(text, "memset") && strstr(text, "memcpy"));
        assert_int_equal(nodes, info.nodes);
        assert_int_equal(edges, info.edges);
        if (verbose && on_cpu()) /* the operands */
            assert_non_null(strstr(text, "64 bytes of 0x03"));
    }
    assert_int_not_equal(xrt_graph_debug_dot_print(g, "/nonexistent-xrt-dir/g.gv", 0), XRT_SUCCESS);
    if (on_cpu())
        assert_non_null(strstr(xrt_get_last_error_string(), "cannot open /nonexistent-xrt-dir/g.gv"));
    OK(xrt_graph_destroy(g));
    if (!f.host_steps && on_cpu()) { /* a kernel by its name */
        OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
        OK(launch(&f, f.mul, f.d, 2, f.s[0]));
        OK(xrt_stream_end_capture(f.s[0], &g));
        OK(xrt_graph_debug_dot_print(g, path, XRT_GRAPH_DEBUG_DOT_VERBOSE));
        dot_counts(path, &nodes, &edges, text, sizeof text);
        assert_non_null(strstr(text, "0: kernel\\nmul grid (16, 1, 1) block (64, 1, 1) shared 0"));
        OK(xrt_graph_destroy(g));
    }
    assert_int_equal(unlink(path), 0);
    fx_free(&f);
}

/* >> captures that fail while another thread allocates: the memory that a
   failed capture takes with it may be given out again before the capture's
   end has dropped its record; the new allocation's record takes its place.
   Before, the two records shared a start, and the registry's tree was soon
   broken: a lookup never returned (on the runtime's double). */
static void *failing_captures_on_thread(void *arg)
{
    static xrt_status fail = XRT_ERROR_BACKEND, ok = XRT_SUCCESS;
    int r, bad = 0;
    xrt_stream s;
    xrt_graph g;
    void *p;
    (void)arg;
    if (xrt_stream_create(&s) != XRT_SUCCESS) return &fail;
    for (r = 0; r < 3000 && !bad; r++)
        bad = xrt_stream_begin_capture(s, XRT_CAPTURE_MODE_RELAXED) != XRT_SUCCESS ||
              xrt_malloc_async(&p, 4096, s) != XRT_SUCCESS ||
              xrt_stream_synchronize(s) != XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED ||
              xrt_stream_end_capture(s, &g) != XRT_ERROR_STREAM_CAPTURE_INVALIDATED;
    xrt_stream_destroy(s);
    return bad ? &fail : &ok;
}

static void *allocations_on_thread(void *arg)
{
    static xrt_status fail = XRT_ERROR_BACKEND, ok = XRT_SUCCESS;
    int r, bad = 0;
    xrt_stream s;
    void *p;
    (void)arg;
    if (xrt_stream_create(&s) != XRT_SUCCESS) return &fail;
    for (r = 0; r < 6000 && !bad; r++)
        bad = xrt_malloc_async(&p, 4096, s) != XRT_SUCCESS || xrt_free_async(p, s) != XRT_SUCCESS;
    if (xrt_stream_synchronize(s) != XRT_SUCCESS) bad = 1;
    xrt_stream_destroy(s);
    return bad ? &fail : &ok;
}

static void test_failed_captures_beside_allocations(void **state)
{
    pthread_t t[4];
    int i;
    void *r;
    (void)state;
    need_graphs();
    SKIP_UNLESS(caps() & XRT_CAP_MALLOC_ASYNC, "no stream-ordered allocation (XRT_CAP_MALLOC_ASYNC is clear)");
    for (i = 0; i < 4; i++)
        assert_int_equal(start_thread(&t[i], NULL, i % 2 ? allocations_on_thread : failing_captures_on_thread, NULL), 0);
    for (i = 0; i < 4; i++) {
        assert_int_equal(pthread_join(t[i], &r), 0);
        assert_true(r != XRT_TEST_NO_BACKEND);
        assert_int_equal(*(xrt_status *)r, XRT_SUCCESS);
    }
}

/* >> a synchronous set or copy during a GLOBAL capture (CUDA's unsafe
   calls) is refused before anything is queued, as cudaMemset and
   cudaMemcpy refuse: the memory keeps its bytes. */
/* >> external event nodes (cudaEventRecordWithFlags with
   cudaEventRecordExternal, cudaStreamWaitEvent with cudaEventWaitExternal):
   in a capture the record and the wait are nodes of the graph, of the
   event kinds, in the stream's order; a launch waits for the event's
   record made outside the graph and records the event for work outside it. */
typedef struct seen { int *watch; int value; } seen;
static void seen_fn(void *user)
{
    seen *w = (seen *)user;
    w->value = __atomic_load_n(w->watch, __ATOMIC_ACQUIRE);
}

static void node_is(xrt_graph_node node, xrt_graph_node_type type, xrt_event event)
{
    xrt_graph_node_params p;
    xrt_graph_node_type t;
    OK(xrt_graph_node_get_type(node, &t));
    assert_int_equal(t, type);
    if (type != XRT_GRAPH_NODE_WAIT_EVENT && type != XRT_GRAPH_NODE_EVENT_RECORD) return;
    memset(&p, 0, sizeof p);
    OK(xrt_graph_node_get_params(node, &p));
    assert_int_equal(p.type, type);
    assert_ptr_equal(p.event.event, event);
}

static void test_capture_external_event_nodes(void **state)
{
    fixture f;
    xrt_graph g;
    xrt_graph_exec x;
    xrt_graph_node nodes[4], from[4], to[4];
    size_t n = 4, ne = 4;
    int ran = 0, r;
    seen after;
    (void)state;
    need_graphs();
    SKIP_UNLESS(caps() & XRT_CAP_HOST_FUNC, "no host functions");
    fx_make(&f);
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_stream_wait_event_with_flags(f.s[0], f.e[0], XRT_EVENT_WAIT_EXTERNAL));
    OK(xrt_launch_host_func(f.s[0], count_up_fn, &ran));
    OK(xrt_event_record_with_flags(f.e[1], f.s[0], XRT_EVENT_RECORD_EXTERNAL));
    OK(xrt_stream_end_capture(f.s[0], &g));
    OK(xrt_graph_get_nodes(g, nodes, &n));
    assert_int_equal(n, 3);
    node_is(nodes[0], XRT_GRAPH_NODE_WAIT_EVENT, f.e[0]);
    node_is(nodes[1], XRT_GRAPH_NODE_HOST, NULL);
    node_is(nodes[2], XRT_GRAPH_NODE_EVENT_RECORD, f.e[1]);
    OK(xrt_graph_get_edges(g, from, to, &ne)); /* the stream's order: wait, host function, record */
    assert_int_equal(ne, 2);
    for (r = 0; r < 2; r++) {
        assert_true((from[r] == nodes[0] && to[r] == nodes[1]) || (from[r] == nodes[1] && to[r] == nodes[2]));
    }
    OK(xrt_graph_instantiate(&x, g));
    for (r = 0; r < 2; r++) {
        ran = 0;
        after.watch = &ran, after.value = -1;
        __atomic_store_n(&gates[0].open, 0, __ATOMIC_RELEASE);
        __atomic_store_n(&gates[0].entered, 0, __ATOMIC_RELEASE);
        OK(xrt_launch_host_func(f.s[1], gate_wait, &gates[0])); /* the record the graph waits for, held back */
        OK(xrt_event_record(f.e[0], f.s[1]));
        OK(xrt_graph_launch(x, f.s[0]));
        OK(xrt_stream_wait_event(f.s[2], f.e[1])); /* waits for the graph's record node */
        OK(xrt_launch_host_func(f.s[2], seen_fn, &after));
        gate_wait_entered(&gates[0]);
        sleep_ms(20);
        assert_int_equal(__atomic_load_n(&ran, __ATOMIC_ACQUIRE), 0); /* behind the wait node */
        assert_int_equal(xrt_event_query(f.e[1]), XRT_ERROR_NOT_READY);
        assert_int_equal(xrt_stream_query(f.s[2]), XRT_ERROR_NOT_READY);
        gate_open(&gates[0]);
        OK(xrt_stream_synchronize(f.s[2]));
        assert_int_equal(after.value, 1); /* s[2] ran after the graph's host function */
        OK(xrt_event_synchronize(f.e[1]));
        OK(xrt_stream_synchronize(f.s[0]));
        assert_int_equal(ran, 1);
    }
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    fx_free(&f);
}

/* The external flags outside a capture ("invalid when used outside of
   capture"), unknown bits, and in a capture that was invalidated. */
static void test_external_event_flags_refused(void **state)
{
    fixture f;
    xrt_graph g;
    (void)state;
    need_graphs();
    fx_make(&f);
    FAILS(xrt_event_record_with_flags(f.e[0], f.s[0], XRT_EVENT_RECORD_EXTERNAL), XRT_ERROR_INVALID_VALUE,
          RULE("not capturing", "xrt_event_record_with_flags", "EventRecordWithFlags"));
    FAILS(xrt_stream_wait_event_with_flags(f.s[0], f.e[0], XRT_EVENT_WAIT_EXTERNAL), XRT_ERROR_INVALID_VALUE,
          RULE("not capturing", "xrt_stream_wait_event_with_flags", "StreamWaitEvent"));
    FAILS(xrt_event_record_with_flags(f.e[0], NULL, XRT_EVENT_RECORD_EXTERNAL), XRT_ERROR_INVALID_VALUE,
          RULE("not capturing", "xrt_event_record_with_flags", "EventRecordWithFlags"));
    FAILS(xrt_stream_wait_event_with_flags(NULL, f.e[0], XRT_EVENT_WAIT_EXTERNAL), XRT_ERROR_INVALID_VALUE,
          RULE("not capturing", "xrt_stream_wait_event_with_flags", "StreamWaitEvent"));
    FAILS(xrt_event_record_with_flags(f.e[0], f.s[0], 2), XRT_ERROR_INVALID_VALUE, "flags 0x2");
    FAILS(xrt_stream_wait_event_with_flags(f.s[0], f.e[0], 0x80000000u), XRT_ERROR_INVALID_VALUE, "flags 0x80000000");
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
    FAILS(xrt_event_record_with_flags(f.e[0], f.s[0], 3), XRT_ERROR_INVALID_VALUE, "flags 0x3");
    OK(xrt_event_record(f.e[0], f.s[0]));
    OK(xrt_event_record(f.e[2], f.s[1])); /* outside the capture */
    FAILS(xrt_stream_wait_event(f.s[0], f.e[2]), XRT_ERROR_STREAM_CAPTURE_ISOLATION, "");
    FAILS(xrt_event_record_with_flags(f.e[1], f.s[0], XRT_EVENT_RECORD_EXTERNAL), XRT_ERROR_STREAM_CAPTURE_INVALIDATED,
          "");
    FAILS(xrt_stream_wait_event_with_flags(f.s[0], f.e[1], XRT_EVENT_WAIT_EXTERNAL), XRT_ERROR_STREAM_CAPTURE_INVALIDATED,
          "");
    FAILS(xrt_stream_end_capture(f.s[0], &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED, "");
    OK(xrt_stream_synchronize(f.s[1]));
    fx_free(&f);
}

/* An event whose handle is gone while external nodes of a capture hold it
   (also recorded in that capture): the capture ends without a graph,
   invalidated or with its origin destroyed, and the event goes with its
   nodes (it used to deadlock on the capture's lock, on the CPU and the
   CUDA double). */
static void capture_event_held_by_nodes(fixture *f)
{
    xrt_event e;
    OK(xrt_event_create(&e, XRT_EVENT_DISABLE_TIMING));
    OK(xrt_stream_begin_capture(f->s[0], XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_event_record(e, f->s[0]));
    OK(xrt_event_record_with_flags(e, f->s[0], XRT_EVENT_RECORD_EXTERNAL));
    OK(xrt_stream_wait_event_with_flags(f->s[0], e, XRT_EVENT_WAIT_EXTERNAL));
    OK(xrt_event_destroy(e)); /* the nodes hold it */
}

static void test_external_event_outlives_its_handle(void **state)
{
    fixture f;
    xrt_graph g;
    (void)state;
    need_graphs();
    fx_make(&f);
    capture_event_held_by_nodes(&f);
    OK(xrt_event_record(f.e[2], f.s[1])); /* outside the capture */
    FAILS(xrt_stream_wait_event(f.s[0], f.e[2]), XRT_ERROR_STREAM_CAPTURE_ISOLATION, "");
    FAILS(xrt_stream_end_capture(f.s[0], &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED, "");
    capture_event_held_by_nodes(&f);
    OK(xrt_stream_destroy(f.s[0])); /* the origin: the capture ends, its graph dropped */
    OK(xrt_stream_create_with_flags(&f.s[0], XRT_STREAM_NON_BLOCKING));
    fx_free(&f);
}

static void test_sync_set_refused_first(void **state)
{
    fixture f;
    xrt_graph g;
    int i;
    (void)state;
    need_graphs();
    fx_make(&f);
    OK(xrt_memset(f.d, 1, N * sizeof(int)));
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
    FAILS(xrt_memset(f.d, 5, N * sizeof(int)), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED,
          RULE("GLOBAL mode", "xrt_memset", "Memset"));
    FAILS(xrt_memcpy(f.d, f.h, N * sizeof(int), XRT_MEMCPY_HOST_TO_DEVICE), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED,
          RULE("GLOBAL mode", "xrt_memcpy", "Memcpy"));
    FAILS(xrt_stream_end_capture(f.s[0], &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED, "");
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
    assert_int_equal(xrt_memset_2d(f.d, 64, 5, 64, N * sizeof(int) / 64), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    FAILS(xrt_stream_end_capture(f.s[0], &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED, "");
    OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
    assert_int_equal(xrt_memset_3d(xrt_make_pitched_ptr(f.d, 64, 64, 1), 5, xrt_make_extent(64, 1, N * sizeof(int) / 64)),
                     XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    FAILS(xrt_stream_end_capture(f.s[0], &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED, "");
    memset(f.h, 0, N * sizeof(int));
    OK(xrt_memcpy(f.h, f.d, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST));
    for (i = 0; i < N; i++)
        if (f.h[i] != 0x01010101) fail_msg("d[%d] = 0x%x: the refused set was queued", i, f.h[i]);
    fx_free(&f);
}

/* >> a synchronous 2-D or 3-D copy during a GLOBAL capture, device to
   device (which does not wait) or not, is refused before anything is
   queued, as cudaMemcpy2D and cudaMemcpy3D refuse: the memory keeps its
   bytes. */
static void test_sync_2d_3d_copy_refused_first(void **state)
{
    enum { P = 64, R = N * sizeof(int) / 2 / P };
    xrt_memcpy_3d_parms p;
    fixture f;
    xrt_graph g;
    char *d;
    int i, k;
    (void)state;
    need_graphs();
    fx_make(&f);
    d = (char *)f.d;
    OK(xrt_memset(d, 1, P * R));
    OK(xrt_memset(d + P * R, 2, P * R));
    for (k = 0; k < 3; k++) {
        OK(xrt_stream_begin_capture(f.s[0], XRT_CAPTURE_MODE_GLOBAL));
        memset(&p, 0, sizeof p);
        p.src_ptr = xrt_make_pitched_ptr(d + P * R, P, P, R);
        p.dst_ptr = xrt_make_pitched_ptr(d, P, P, R);
        p.extent = xrt_make_extent(P, R, 1);
        p.kind = XRT_MEMCPY_DEVICE_TO_DEVICE;
        assert_int_equal(k == 0   ? xrt_memcpy_2d(d, P, d + P * R, P, P, R, XRT_MEMCPY_DEVICE_TO_DEVICE)
                         : k == 1 ? xrt_memcpy_2d(d, P, f.h, P, P, R, XRT_MEMCPY_HOST_TO_DEVICE)
                                  : xrt_memcpy_3d(&p),
                         XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED);
        FAILS(xrt_stream_end_capture(f.s[0], &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED, "");
    }
    memset(f.h, 0, N * sizeof(int));
    OK(xrt_memcpy(f.h, d, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST));
    for (i = 0; i < N; i++)
        if (f.h[i] != (i < N / 2 ? 0x01010101 : 0x02020202)) fail_msg("d[%d] = 0x%x: a refused copy was queued", i, f.h[i]);
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_captured_pipeline_runs_1000_times),
        cmocka_unit_test(test_fork_join_three_streams),
        cmocka_unit_test(test_capture_info),
        cmocka_unit_test(test_capture_graph_takes_a_node),
        cmocka_unit_test(test_capture_graph_goes_with_a_failed_capture),
        cmocka_unit_test(test_capture_dependencies_bad),
        cmocka_unit_test(test_capture_graph_of_per_thread_and_gone_origin),
        cmocka_unit_test(test_capture_graph_into_a_graph),
        gated_test(test_launch_is_asynchronous_and_ordered),
        cmocka_unit_test(test_launches_of_one_exec_are_ordered),
        cmocka_unit_test(test_exec_update),
        cmocka_unit_test(test_exec_update_edges),
        cmocka_unit_test(test_graph_host_fns_in_capture_order),
        cmocka_unit_test(test_module_unloaded_after_capture),
        cmocka_unit_test(test_capture_refusals),
        cmocka_unit_test(test_capture_implicit),
        cmocka_unit_test(test_capture_refuses_device_reset),
        cmocka_unit_test(test_capture_refuses_allocation),
        cmocka_unit_test(test_captured_allocation),
        cmocka_unit_test(test_captured_allocation_left_to_caller),
        cmocka_unit_test(test_captured_allocation_of_failed_capture),
        cmocka_unit_test(test_captured_allocation_of_one_of_two_captures),
        cmocka_unit_test(test_captured_allocation_refusals),
        cmocka_unit_test(test_capture_modes_and_threads),
        cmocka_unit_test(test_capture_refuses_unsafe_calls),
        cmocka_unit_test(test_elapsed_time_in_capture),
        cmocka_unit_test(test_per_thread_stream_joins_capture),
        cmocka_unit_test(test_per_thread_stream_captures),
        cmocka_unit_test(test_per_thread_captures_of_two_threads),
        cmocka_unit_test(test_thread_exits_in_per_thread_capture),
        cmocka_unit_test(test_thread_capture_mode),
        cmocka_unit_test(test_destroyed_stream_ends_capture),
        cmocka_unit_test(test_capture_after_destroyed_origin),
        cmocka_unit_test(test_joined_stream_destroyed_in_capture),
        cmocka_unit_test(test_graphs_alive_at_shutdown),
        cmocka_unit_test(test_exec_in_forked_child),
        cmocka_unit_test(test_concurrent_thread_local_captures),
        cmocka_unit_test(test_captured_graph_launch),
        cmocka_unit_test(test_concurrent_captures_leaving_memory),
        cmocka_unit_test(test_graph_debug_dot_print),
        cmocka_unit_test(test_failed_captures_beside_allocations),
        cmocka_unit_test(test_sync_set_refused_first),
        cmocka_unit_test(test_sync_2d_3d_copy_refused_first),
        gated_test(test_capture_external_event_nodes),
        cmocka_unit_test(test_external_event_flags_refused),
        cmocka_unit_test(test_external_event_outlives_its_handle),
    };
    setenv("XRT_CACHE", "0", 1); /* each load builds: no cache shared with other programs */
    return xrt_test_run_on_backends("graph", tests, sizeof tests / sizeof tests[0], NULL);
}
