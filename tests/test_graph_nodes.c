/* SPDX-License-Identifier: MIT */
/* Graphs built node by node: xrt_graph_create, the adds, dependencies, the
   lists, a node's params (in the graph and in an exec), destroy, clone and
   find in clone, child graphs, and a captured graph that gets nodes. Every
   group runs on each available backend; one that does not build graphs
   (xrt_graph_create answers XRT_ERROR_UNSUPPORTED) says "skipped". */
#include "xrt_test.h"

#include "graph_kernels.h"

#include <limits.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct fixture {
    xrt_module m;
    xrt_function add, mul; /* NULL without modules: host nodes stand in (host_add) */
    xrt_stream s;
    int *d, *h; /* N ints of device memory, N pinned */
} fixture;

/* A kernel's arithmetic on the host, for backends that load no module. */
typedef struct host_add { int *p; int v; } host_add;
static void host_add_fn(void *user)
{
    host_add *a = (host_add *)user;
    int i;
    for (i = 0; i < N; i++) a->p[i] += a->v;
}

static void need_nodes(void)
{
    xrt_graph g;
    xrt_status st;
    SKIP_UNLESS(caps() & XRT_CAP_GRAPHS, "the backend has no graphs (XRT_CAP_GRAPHS is clear)");
    st = xrt_graph_create(&g, 0);
    if (st == XRT_SUCCESS) OK(xrt_graph_destroy(g));
    else xrt_get_last_error();
    SKIP_UNLESS(st != XRT_ERROR_UNSUPPORTED, "the backend does not build graphs node by node");
    OK(st);
}

static void fx_make(fixture *f)
{
    xrt_module_image im[2] = {{XRT_IMAGE_CPU_C_SOURCE, graph_source, sizeof graph_source - 1, NULL},
                              {XRT_IMAGE_CUDA_PTX, graph_ptx, sizeof graph_ptx - 1, "compute_75"}};
    memset(f, 0, sizeof *f);
    if (caps() & XRT_CAP_MODULES) {
        OK(xrt_module_load(&f->m, im, 2, NULL));
        OK(xrt_module_get_function(&f->add, f->m, "add"));
        OK(xrt_module_get_function(&f->mul, f->m, "mul"));
    }
    OK(xrt_stream_create(&f->s));
    OK(xrt_malloc((void **)&f->d, N * sizeof(int)));
    OK(xrt_malloc_host((void **)&f->h, N * sizeof(int)));
}

static void fx_free(fixture *f)
{
    OK(xrt_device_synchronize());
    OK(xrt_stream_destroy(f->s));
    OK(xrt_free(f->d));
    OK(xrt_free_host(f->h));
    if (f->m) OK(xrt_module_unload(f->m));
}

/* d[i] += v over n ints, as a kernel node (or a host node without modules). */
static void add_step(fixture *f, xrt_graph g, xrt_graph_node *node, const xrt_graph_node *deps, size_t ndeps,
                     xrt_function k, int *p, int v, host_add *h)
{
    static arg_t args[64];
    static unsigned nargs;
    arg_t *a = &args[nargs++ % 64];
    xrt_kernel_node_params kp;
    a->p = p;
    a->v = v;
    a->n = N;
    if (!k) {
        xrt_host_node_params hp = {host_add_fn, h};
        h->p = p;
        h->v = v;
        OK(xrt_graph_add_host_node(node, g, deps, ndeps, &hp));
        return;
    }
    (void)f;
    kp.function = k;
    kp.grid.x = N / 64;
    kp.grid.y = kp.grid.z = 1;
    kp.block.x = 64;
    kp.block.y = kp.block.z = 1;
    kp.shared_bytes = 0;
    kp.args = a;
    kp.args_size = sizeof *a;
    OK(xrt_graph_add_kernel_node(node, g, deps, ndeps, &kp));
}

static void fill(int *h, int base)
{
    int i;
    for (i = 0; i < N; i++) h[i] = base + i;
}

/* >> a graph built by hand runs as its captured twin: copy in, d += 3,
   d *= 2 (with modules), copy out, launch after launch */
static void test_built_pipeline(void **state)
{
    fixture f;
    xrt_graph g;
    xrt_graph_exec x;
    xrt_graph_node in, step, mul, out;
    xrt_graph_info info;
    host_add ha;
    int r, i;
    (void)state;
    need_nodes();
    fx_make(&f);
    OK(xrt_graph_create(&g, 0));
    OK(xrt_graph_add_memcpy_node_1d(&in, g, NULL, 0, f.d, f.h, N * sizeof(int), XRT_MEMCPY_HOST_TO_DEVICE));
    add_step(&f, g, &step, &in, 1, f.add, f.d, 3, &ha);
    if (f.mul) {
        xrt_kernel_node_params kp;
        xrt_graph_node_params p;
        OK(xrt_graph_node_get_params(step, &p)); /* the add's params, made a mul: d *= 2 */
        assert_int_equal(p.type, XRT_GRAPH_NODE_KERNEL);
        kp = p.kernel;
        assert_ptr_equal(kp.function, f.add);
        kp.function = f.mul;
        ((arg_t *)(uintptr_t)kp.args)->v += 0; /* args point into the node */
        {
            arg_t a = *(const arg_t *)kp.args;
            a.v = 2;
            kp.args = &a;
            OK(xrt_graph_add_kernel_node(&mul, g, &step, 1, &kp));
        }
    } else {
        OK(xrt_graph_add_empty_node(&mul, g, &step, 1));
    }
    OK(xrt_graph_add_memcpy_node_1d(&out, g, &mul, 1, f.h, f.d, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST));
    OK(xrt_graph_get_info(g, &info));
    assert_int_equal(info.nodes, 4);
    assert_int_equal(info.edges, 3);
    OK(xrt_graph_instantiate(&x, g));
    for (r = 0; r < 100; r++) {
        fill(f.h, r);
        OK(xrt_graph_launch(x, f.s));
        OK(xrt_stream_synchronize(f.s));
        for (i = 0; i < N; i++)
            if (f.h[i] != (r + i + 3) * (f.mul ? 2 : 1)) fail_msg("launch %d: h[%d] = %d", r, i, f.h[i]);
    }
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    fx_free(&f);
}

static int order_log[16], order_n;
static void log_fn(void *user) { order_log[__atomic_fetch_add(&order_n, 1, __ATOMIC_ACQ_REL)] = (int)(intptr_t)user; }

static void add_log(xrt_graph g, xrt_graph_node *node, const xrt_graph_node *deps, size_t n, int id)
{
    xrt_host_node_params hp = {log_fn, (void *)(intptr_t)id};
    OK(xrt_graph_add_host_node(node, g, deps, n, &hp));
}

static void run_once(xrt_graph g, xrt_stream s)
{
    xrt_graph_exec x;
    order_n = 0;
    OK(xrt_graph_instantiate(&x, g));
    OK(xrt_graph_launch(x, s));
    OK(xrt_stream_synchronize(s));
    OK(xrt_graph_exec_destroy(x));
}

/* >> edges added after the nodes, either way: the run follows them; a
   cycle, an edge twice, a missing edge and a node of another graph are
   refused and change nothing */
static void test_dependencies(void **state)
{
    xrt_graph g, other;
    xrt_graph_node a, b, c, o, from[2], to[2], list[4];
    xrt_stream s;
    size_t n;
    (void)state;
    need_nodes();
    OK(xrt_stream_create(&s));
    OK(xrt_graph_create(&g, 0));
    OK(xrt_graph_create(&other, 0));
    add_log(g, &a, NULL, 0, 1);
    add_log(g, &b, NULL, 0, 2);
    add_log(g, &c, NULL, 0, 3);
    add_log(other, &o, NULL, 0, 9);
    from[0] = c; /* c -> a: a node added later runs first */
    to[0] = a;
    from[1] = b;
    to[1] = c;
    OK(xrt_graph_add_dependencies(g, from, to, 2)); /* b -> c -> a */
    run_once(g, s);
    assert_int_equal(order_n, 3);
    assert_true(order_log[0] == 2 && order_log[1] == 3 && order_log[2] == 1);
    n = 4;
    OK(xrt_graph_get_root_nodes(g, list, &n));
    assert_int_equal(n, 1);
    assert_ptr_equal(list[0], b);
    n = 0;
    OK(xrt_graph_get_edges(g, NULL, NULL, &n));
    assert_int_equal(n, 2);
    n = 4;
    OK(xrt_graph_node_get_dependent_nodes(c, list, &n));
    assert_int_equal(n, 1);
    assert_ptr_equal(list[0], a);
    assert_null(list[1]); /* the rest of the room: NULL, as CUDA */
    n = 4;
    OK(xrt_graph_node_get_dependencies(c, list, &n));
    assert_true(n == 1 && list[0] == b);
    from[0] = a; /* a -> b closes b -> c -> a */
    to[0] = b;
    FAILS(xrt_graph_add_dependencies(g, from, to, 1), XRT_ERROR_INVALID_VALUE, "cycle");
    from[0] = b;
    to[0] = c;
    FAILS(xrt_graph_add_dependencies(g, from, to, 1), XRT_ERROR_INVALID_VALUE, "there already");
    from[0] = a; /* a -> c is not there: nothing is removed, not even the pair before it */
    to[0] = c;
    from[1] = b;
    to[1] = c;
    FAILS(xrt_graph_remove_dependencies(g, from + 1, to + 1, 1) == XRT_SUCCESS
              ? xrt_graph_remove_dependencies(g, from, to, 1)
              : XRT_ERROR_BACKEND,
          XRT_ERROR_INVALID_VALUE, "no such edge");
    OK(xrt_graph_add_dependencies(g, from + 1, to + 1, 1)); /* b -> c again */
    from[0] = b;
    to[0] = a;
    from[1] = c;
    to[1] = b; /* the second closes a cycle: the first is undone */
    FAILS(xrt_graph_add_dependencies(g, from, to, 2), XRT_ERROR_INVALID_VALUE, "undone");
    n = 0;
    OK(xrt_graph_get_edges(g, NULL, NULL, &n));
    assert_int_equal(n, 2);
    from[0] = o;
    to[0] = a;
    FAILS(xrt_graph_add_dependencies(g, from, to, 1), XRT_ERROR_INVALID_VALUE, "not of graph");
    FAILS(xrt_graph_add_host_node(&o, g, &o, 1, &(xrt_host_node_params){log_fn, NULL}), XRT_ERROR_INVALID_VALUE,
          "not of graph");
    assert_null(o);
    from[0] = a;
    to[0] = a;
    FAILS(xrt_graph_add_dependencies(g, from, to, 1), XRT_ERROR_INVALID_VALUE, "itself");
    OK(xrt_graph_remove_dependencies(g, (xrt_graph_node[]){c}, (xrt_graph_node[]){a}, 1)); /* a, c free: b -> c */
    run_once(g, s);
    assert_int_equal(order_n, 3);
    OK(xrt_graph_destroy(other));
    OK(xrt_graph_destroy(g));
    OK(xrt_stream_destroy(s));
}

/* >> a diamond of memsets and copies: one root, four branches, a join */
static void test_diamond_of_sets(void **state)
{
    fixture f;
    xrt_graph g;
    xrt_graph_exec x;
    xrt_graph_node root, branch[4], join, out, list[8];
    xrt_graph_node_type type;
    size_t n;
    int i, b;
    (void)state;
    need_nodes();
    fx_make(&f);
    OK(xrt_graph_create(&g, 0));
    {
        xrt_memset_node_params all = {f.d, 0, 0, 4, N, 1};
        OK(xrt_graph_add_memset_node(&root, g, NULL, 0, &all));
    }
    for (b = 0; b < 4; b++) { /* quarter b: rows of 4-byte values b + 1, two rows of N / 8 with a pitch */
        xrt_memset_node_params q = {f.d + b * (N / 4), N / 8 * sizeof(int), (unsigned)(b + 1), 4, N / 8, 2};
        OK(xrt_graph_add_memset_node(&branch[b], g, &root, 1, &q));
    }
    OK(xrt_graph_add_empty_node(&join, g, branch, 4));
    OK(xrt_graph_add_memcpy_node_1d(&out, g, &join, 1, f.h, f.d, N * sizeof(int), XRT_MEMCPY_DEFAULT));
    n = 0;
    OK(xrt_graph_get_nodes(g, NULL, &n));
    assert_int_equal(n, 7);
    n = 8;
    OK(xrt_graph_get_nodes(g, list, &n));
    assert_int_equal(n, 7);
    assert_ptr_equal(list[0], root); /* the same handle each time */
    assert_ptr_equal(list[6], out);
    assert_null(list[7]);
    n = 2; /* less room than nodes: as many as fit, and n stays */
    OK(xrt_graph_get_nodes(g, list, &n));
    assert_int_equal(n, 2);
    OK(xrt_graph_node_get_type(join, &type));
    assert_int_equal(type, XRT_GRAPH_NODE_EMPTY);
    OK(xrt_graph_node_get_type(branch[2], &type));
    assert_int_equal(type, XRT_GRAPH_NODE_MEMSET);
    n = 0;
    OK(xrt_graph_node_get_dependencies(join, NULL, &n));
    assert_int_equal(n, 4);
    OK(xrt_graph_instantiate(&x, g));
    memset(f.h, 0xff, N * sizeof(int));
    OK(xrt_graph_launch(x, f.s));
    OK(xrt_stream_synchronize(f.s));
    for (i = 0; i < N; i++)
        if (f.h[i] != i / (N / 4) + 1) fail_msg("h[%d] = %d", i, f.h[i]);
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    fx_free(&f);
}

/* >> a node that would write a range registered read-only (its first
   byte or one past it) is refused where it is added or its params set, in
   the graph and in an exec, and a captured copy where it is called, as
   xrt_memcpy refuses it: nothing is written */
static void test_node_read_only_dst(void **state)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    const char *why = "registered read-only";
    unsigned char *m;
    xrt_memset_node_params ms = {NULL, 0, 3, 1, 64, 1};
    xrt_memcpy_3d_parms q;
    xrt_graph_node_params p;
    xrt_graph_node copy, c3;
    xrt_graph_exec x;
    xrt_graph g;
    fixture f;
    (void)state;
    need_nodes();
    m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(m != MAP_FAILED);
    memset(m, 7, 2 * pg);
    assert_int_equal(mprotect(m + pg, pg, PROT_READ), 0);
    fx_make(&f);
    OK(xrt_memset(f.d, 1, N * sizeof(int)));
    OK(xrt_host_register(m + pg, pg, XRT_HOST_REGISTER_READ_ONLY));
    OK(xrt_graph_create(&g, 0));
    FAILS(xrt_graph_add_memcpy_node_1d(&copy, g, NULL, 0, m + pg, f.d, 64, XRT_MEMCPY_DEVICE_TO_HOST),
          XRT_ERROR_INVALID_VALUE, why);
    FAILS(xrt_graph_add_memcpy_node_1d(&copy, g, NULL, 0, m + pg - 8, f.d, 64, XRT_MEMCPY_DEVICE_TO_HOST),
          XRT_ERROR_INVALID_VALUE, why);
    ms.dst = m + pg;
    FAILS(xrt_graph_add_memset_node(&copy, g, NULL, 0, &ms), XRT_ERROR_INVALID_VALUE, why);
    memset(&q, 0, sizeof q);
    q.src_ptr = xrt_make_pitched_ptr(f.d, 16, 16, 1);
    q.dst_ptr = xrt_make_pitched_ptr(m, 64, 16, pg / 64); /* its second slice is in it */
    q.extent = xrt_make_extent(16, 1, 2);
    q.kind = XRT_MEMCPY_DEVICE_TO_HOST;
    FAILS(xrt_graph_add_memcpy_node(&c3, g, NULL, 0, &q), XRT_ERROR_INVALID_VALUE, why);
    q.extent = xrt_make_extent(16, 1, 1);
    OK(xrt_graph_add_memcpy_node(&c3, g, NULL, 0, &q));
    q.extent = xrt_make_extent(16, 1, 2);
    FAILS(xrt_graph_memcpy_node_set_params(c3, &q), XRT_ERROR_INVALID_VALUE, why);
    OK(xrt_graph_add_memcpy_node_1d(&copy, g, &c3, 1, m + pg - 64, f.d, 64, XRT_MEMCPY_DEVICE_TO_HOST));
    OK(xrt_graph_node_get_params(copy, &p));
    p.copy.dst = m + pg - 8;
    FAILS(xrt_graph_node_set_params(copy, &p), XRT_ERROR_INVALID_VALUE, why);
    OK(xrt_graph_instantiate(&x, g));
    FAILS(xrt_graph_exec_node_set_params(x, copy, &p), XRT_ERROR_INVALID_VALUE, why);
    FAILS(xrt_graph_exec_memcpy_node_set_params(x, c3, &q), XRT_ERROR_INVALID_VALUE, why);
    OK(xrt_graph_launch(x, f.s));
    OK(xrt_stream_synchronize(f.s));
    assert_bytes(m + pg, pg, 7);
    assert_bytes(m + pg - 64, 64, 1);
    assert_bytes(m, 16, 1);
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    OK(xrt_stream_begin_capture(f.s, XRT_CAPTURE_MODE_GLOBAL)); /* a captured copy: as xrt_memcpy_async */
    FAILS(xrt_memcpy_async(m + pg - 8, f.d, 64, XRT_MEMCPY_DEVICE_TO_HOST, f.s), XRT_ERROR_INVALID_VALUE, why);
    OK(xrt_memcpy_async(m + pg - 64, f.d, 64, XRT_MEMCPY_DEVICE_TO_HOST, f.s));
    OK(xrt_stream_end_capture(f.s, &g));
    OK(xrt_graph_instantiate(&x, g));
    OK(xrt_graph_launch(x, f.s));
    OK(xrt_stream_synchronize(f.s));
    assert_bytes(m + pg, pg, 7);
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    OK(xrt_host_unregister(m + pg));
    fx_free(&f);
    assert_int_equal(munmap(m, 2 * pg), 0);
}

/* >> a node's params: get, set in the graph (the next instantiate takes
   them), set in an exec (the graph keeps its own); of another type refused */
static void test_node_params(void **state)
{
    fixture f;
    xrt_graph g;
    xrt_graph_exec x;
    xrt_graph_node set, copy;
    xrt_graph_node_params p;
    xrt_memset_node_params ms = {NULL, 0, 7, 1, N * sizeof(int), 1};
    (void)state;
    need_nodes();
    fx_make(&f);
    ms.dst = f.d;
    OK(xrt_graph_create(&g, 0));
    OK(xrt_graph_add_memset_node(&set, g, NULL, 0, &ms));
    OK(xrt_graph_add_memcpy_node_1d(&copy, g, &set, 1, f.h, f.d, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST));
    OK(xrt_graph_node_get_params(copy, &p));
    assert_int_equal(p.type, XRT_GRAPH_NODE_MEMCPY);
    assert_true(p.copy.dst == f.h && p.copy.src == f.d && p.copy.size == N * sizeof(int) &&
                p.copy.kind == XRT_MEMCPY_DEVICE_TO_HOST);
    OK(xrt_graph_node_get_params(set, &p));
    assert_true(p.type == XRT_GRAPH_NODE_MEMSET && p.set.value == 7 && p.set.width == N * sizeof(int));
    OK(xrt_graph_instantiate(&x, g));
    p.set.value = 9; /* the exec's copy: 9; the graph's stays 7 */
    OK(xrt_graph_exec_node_set_params(x, set, &p));
    OK(xrt_graph_launch(x, f.s));
    OK(xrt_stream_synchronize(f.s));
    assert_int_equal(f.h[N - 1], 0x09090909);
    OK(xrt_graph_node_get_params(set, &p));
    assert_int_equal(p.set.value, 7);
    p.set.value = 5; /* the graph's: the exec keeps 9 */
    OK(xrt_graph_node_set_params(set, &p));
    OK(xrt_graph_launch(x, f.s));
    OK(xrt_stream_synchronize(f.s));
    assert_int_equal(f.h[0], 0x09090909);
    OK(xrt_graph_exec_update(x, g)); /* now it takes 5 */
    OK(xrt_graph_launch(x, f.s));
    OK(xrt_stream_synchronize(f.s));
    assert_int_equal(f.h[0], 0x05050505);
    p.type = XRT_GRAPH_NODE_HOST;
    p.host.fn = log_fn;
    FAILS(xrt_graph_node_set_params(set, &p), XRT_ERROR_INVALID_VALUE, "params are of type 3");
    FAILS(xrt_graph_exec_node_set_params(x, set, &p), XRT_ERROR_INVALID_VALUE, "params are of type 3");
    p.type = (xrt_graph_node_type)42;
    FAILS(xrt_graph_node_set_params(set, &p), XRT_ERROR_INVALID_VALUE, "unknown node type 42");
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    fx_free(&f);
}

/* >> a memset node of one row: its pitch is "Unused if height is 1"
   (cudaMemsetParams), so any pitch (0, less than the row, not a multiple
   of the element) is taken, in the node, in a graph's and an exec's params */
static void test_memset_node_one_row_pitch_unused(void **state)
{
    fixture f;
    xrt_graph g;
    xrt_graph_exec x;
    xrt_graph_node set, copy;
    xrt_graph_node_params p;
    xrt_memset_node_params ms = {NULL, 3, 0x01020304u, 4, N, 1};
    int i;
    (void)state;
    need_nodes();
    fx_make(&f);
    ms.dst = f.d;
    OK(xrt_graph_create(&g, 0));
    OK(xrt_graph_add_memset_node(&set, g, NULL, 0, &ms));
    OK(xrt_graph_add_memcpy_node_1d(&copy, g, &set, 1, f.h, f.d, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST));
    OK(xrt_graph_instantiate(&x, g));
    OK(xrt_graph_launch(x, f.s));
    OK(xrt_stream_synchronize(f.s));
    for (i = 0; i < N; i++)
        if (f.h[i] != 0x01020304) fail_msg("h[%d] = 0x%x", i, f.h[i]);
    OK(xrt_graph_node_get_params(set, &p));
    p.set.pitch = 0;
    p.set.value = 0x05060708u;
    OK(xrt_graph_exec_node_set_params(x, set, &p));
    OK(xrt_graph_launch(x, f.s));
    OK(xrt_stream_synchronize(f.s));
    for (i = 0; i < N; i++)
        if (f.h[i] != 0x05060708) fail_msg("h[%d] = 0x%x after the exec's params", i, f.h[i]);
    p.set.pitch = 1;
    OK(xrt_graph_node_set_params(set, &p));
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    fx_free(&f);
}

/* >> a clone is a graph of its own; find in clone maps a node to its copy;
   a destroyed node's handle, and its graph's after the graph goes, are stale */
static void test_clone_and_destroy(void **state)
{
    xrt_graph g, c, other;
    xrt_graph_node a, b, ca, cb, cx;
    xrt_stream s;
    size_t n;
    (void)state;
    need_nodes();
    OK(xrt_stream_create(&s));
    OK(xrt_graph_create(&g, 0));
    OK(xrt_graph_create(&other, 0));
    add_log(g, &a, NULL, 0, 1);
    add_log(g, &b, &a, 1, 2);
    OK(xrt_graph_clone(&c, g));
    OK(xrt_graph_node_find_in_clone(&ca, a, c));
    OK(xrt_graph_node_find_in_clone(&cb, b, c));
    assert_true(ca != a && cb != b && ca != cb);
    n = 1;
    OK(xrt_graph_node_get_dependencies(cb, &cx, &n));
    assert_true(n == 1 && cx == ca);
    OK(xrt_graph_destroy_node(a)); /* the original loses a and its edge; the clone keeps both */
    n = 0;
    OK(xrt_graph_get_nodes(g, NULL, &n));
    assert_int_equal(n, 1);
    FAILS(xrt_graph_node_get_type(a, &(xrt_graph_node_type){0}), XRT_ERROR_INVALID_HANDLE, "destroyed");
    FAILS(xrt_graph_node_find_in_clone(&cx, a, c), XRT_ERROR_INVALID_HANDLE, "destroyed");
    FAILS(xrt_graph_node_find_in_clone(&cx, b, other), XRT_ERROR_INVALID_VALUE, "not a clone");
    n = 0;
    OK(xrt_graph_get_edges(c, NULL, NULL, &n));
    assert_int_equal(n, 1);
    run_once(c, s);
    assert_true(order_n == 2 && order_log[0] == 1 && order_log[1] == 2);
    OK(xrt_graph_destroy_node(ca)); /* the clone's a: b's copy is no longer found... in a clone of the clone */
    FAILS(xrt_graph_destroy_node(ca), XRT_ERROR_INVALID_HANDLE, "destroyed");
    run_once(g, s);
    assert_true(order_n == 1 && order_log[0] == 2);
    OK(xrt_graph_destroy(c));
    FAILS(xrt_graph_node_get_type(cb, &(xrt_graph_node_type){0}), XRT_ERROR_INVALID_HANDLE, "destroyed");
    OK(xrt_graph_destroy(g));
    FAILS(xrt_graph_add_dependencies(other, &b, &b, 1), XRT_ERROR_INVALID_HANDLE, "destroyed");
    OK(xrt_graph_destroy(other));
    OK(xrt_stream_destroy(s));
}

/* >> a node added to the original after the clone was made has no copy in
   the clone, though a node added to the clone sits where it would
   (cudaGraphNodeFindInClone: cudaErrorInvalidValue) */
static void test_find_in_clone_of_later_node(void **state)
{
    xrt_graph g, c;
    xrt_graph_node a, b, ca, other, found = NULL;
    (void)state;
    need_nodes();
    OK(xrt_graph_create(&g, 0));
    add_log(g, &a, NULL, 0, 1);
    OK(xrt_graph_clone(&c, g));
    add_log(c, &other, NULL, 0, 2);
    add_log(g, &b, NULL, 0, 3);
    FAILS(xrt_graph_node_find_in_clone(&found, b, c), XRT_ERROR_INVALID_VALUE, "after the clone");
    assert_null(found);
    OK(xrt_graph_node_find_in_clone(&ca, a, c)); /* a's copy is there */
    assert_true(ca != a && ca != other);
    OK(xrt_graph_destroy(c));
    OK(xrt_graph_destroy(g));
}

/* >> a child graph: a copy of the graph given; its own graph (get_params)
   changes with nodes added to it, and goes with its node */
static void test_child_graph(void **state)
{
    xrt_graph g, child, own;
    xrt_graph_node k, first, extra, last;
    xrt_graph_node_params p;
    xrt_stream s;
    size_t n;
    (void)state;
    need_nodes();
    OK(xrt_stream_create(&s));
    OK(xrt_graph_create(&g, 0));
    OK(xrt_graph_create(&child, 0));
    add_log(child, &k, NULL, 0, 2);
    add_log(g, &first, NULL, 0, 1);
    OK(xrt_graph_add_child_graph_node(&k, g, &first, 1, child));
    add_log(g, &last, &k, 1, 4);
    OK(xrt_graph_destroy(child)); /* the node has its own copy */
    FAILS(xrt_graph_add_child_graph_node(&extra, g, NULL, 0, g), XRT_ERROR_INVALID_VALUE, "child of itself");
    OK(xrt_graph_node_get_params(k, &p));
    assert_int_equal(p.type, XRT_GRAPH_NODE_GRAPH);
    own = p.child.graph;
    assert_non_null(own);
    n = 0;
    OK(xrt_graph_get_nodes(own, NULL, &n));
    assert_int_equal(n, 1);
    OK(xrt_graph_get_nodes(own, &extra, &n));
    add_log(own, &extra, &extra, 1, 3); /* the child's graph: 2 then 3 */
    FAILS(xrt_graph_destroy(own), XRT_ERROR_INVALID_VALUE, "goes with its node");
    run_once(g, s);
    assert_int_equal(order_n, 4);
    assert_true(order_log[0] == 1 && order_log[1] == 2 && order_log[2] == 3 && order_log[3] == 4);
    OK(xrt_graph_destroy_node(k));
    FAILS(xrt_graph_get_nodes(own, NULL, &n), XRT_ERROR_INVALID_HANDLE, "destroyed");
    FAILS(xrt_graph_node_get_type(extra, &(xrt_graph_node_type){0}), XRT_ERROR_INVALID_HANDLE, "destroyed");
    OK(xrt_graph_destroy(g));
    OK(xrt_stream_destroy(s));
}

/* >> a captured graph is the same object: its nodes are listed with handles,
   and it takes nodes added by hand */
static void test_captured_graph_takes_nodes(void **state)
{
    fixture f;
    xrt_graph g;
    xrt_graph_node list[4], last, again[4];
    size_t n = 4, i;
    (void)state;
    need_nodes();
    fx_make(&f);
    OK(xrt_stream_begin_capture(f.s, XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_memset_async(f.d, 1, N * sizeof(int), f.s));
    OK(xrt_stream_end_capture(f.s, &g));
    OK(xrt_graph_get_nodes(g, list, &n));
    assert_int_equal(n, 1);
    n = 4;
    OK(xrt_graph_get_nodes(g, again, &n));
    assert_ptr_equal(again[0], list[0]);
    OK(xrt_graph_add_memcpy_node_1d(&last, g, list, 1, f.h, f.d, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST));
    run_once(g, f.s);
    for (i = 0; i < N; i++) assert_int_equal(f.h[i], 0x01010101);
    OK(xrt_graph_destroy(g));
    fx_free(&f);
}

static int gate_open_flag;
static void gate_fn(void *user)
{
    (void)user;
    while (!__atomic_load_n(&gate_open_flag, __ATOMIC_ACQUIRE)) sched_yield();
}

/* >> event nodes: a wait node holds the graph until the event's record (made
   on another stream before the launch) is done; a record node's event is
   done once the graph is, and orders another stream's work after it */
static void test_event_nodes(void **state)
{
    fixture f;
    xrt_stream other;
    xrt_event before, after;
    xrt_graph g;
    xrt_graph_exec x;
    xrt_graph_node w, set, r;
    xrt_graph_node_params p;
    xrt_memset_node_params ms = {NULL, 0, 3, 1, N * sizeof(int), 1};
    (void)state;
    need_nodes();
    fx_make(&f);
    ms.dst = f.d;
    OK(xrt_stream_create_with_flags(&other, XRT_STREAM_NON_BLOCKING));
    OK(xrt_event_create(&before, XRT_EVENT_DISABLE_TIMING));
    OK(xrt_event_create(&after, XRT_EVENT_DISABLE_TIMING));
    OK(xrt_graph_create(&g, 0));
    OK(xrt_graph_add_event_wait_node(&w, g, NULL, 0, before));
    OK(xrt_graph_add_memset_node(&set, g, &w, 1, &ms));
    OK(xrt_graph_add_event_record_node(&r, g, &set, 1, after));
    OK(xrt_graph_node_get_params(w, &p));
    assert_true(p.type == XRT_GRAPH_NODE_WAIT_EVENT && p.event.event == before);
    OK(xrt_graph_node_get_params(r, &p));
    assert_true(p.type == XRT_GRAPH_NODE_EVENT_RECORD && p.event.event == after);
    OK(xrt_graph_instantiate(&x, g));
    OK(xrt_memset_async(f.d, 0, N * sizeof(int), other)); /* `other` is non-blocking: an xrt_memset would race */
    __atomic_store_n(&gate_open_flag, 0, __ATOMIC_RELEASE);
    OK(xrt_launch_host_func(other, gate_fn, NULL)); /* holds `other` */
    OK(xrt_memcpy_async(f.h, f.d, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST, other)); /* after the gate, before the graph */
    OK(xrt_event_record(before, other));
    OK(xrt_graph_launch(x, f.s));
    usleep(20000);
    assert_int_equal(xrt_event_query(after), XRT_ERROR_NOT_READY); /* the graph waits for `before` */
    assert_int_equal(xrt_stream_query(f.s), XRT_ERROR_NOT_READY);
    OK(xrt_stream_wait_event(other, after)); /* then after the graph */
    OK(xrt_memcpy_async(f.h + N / 2, f.d, sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST, other));
    __atomic_store_n(&gate_open_flag, 1, __ATOMIC_RELEASE);
    OK(xrt_stream_synchronize(other));
    OK(xrt_stream_synchronize(f.s));
    OK(xrt_event_synchronize(after));
    assert_int_equal(f.h[0], 0);          /* copied before the graph's memset */
    assert_int_equal(f.h[N / 2], 0x03030303); /* copied after the record */
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    OK(xrt_event_destroy(before)); /* the graph held them: gone now */
    OK(xrt_event_destroy(after));
    OK(xrt_stream_destroy(other));
    fx_free(&f);
}

/* Two graphs of one shape: set(d) -> copy(dst <- src) -> child(a host node, `extra` more after it). */
static xrt_graph update_graph(void *d, void *dst, const void *src, int extra)
{
    xrt_graph g, child;
    xrt_graph_node set, copy, h, prev;
    xrt_memset_node_params ms = {NULL, 0, 1, 1, 64, 1};
    int i;
    ms.dst = d;
    OK(xrt_graph_create(&child, 0));
    add_log(child, &h, NULL, 0, 1);
    for (i = 0, prev = h; i < extra; i++, prev = h) add_log(child, &h, &prev, 1, 2);
    OK(xrt_graph_create(&g, 0));
    OK(xrt_graph_add_memset_node(&set, g, NULL, 0, &ms));
    OK(xrt_graph_add_memcpy_node_1d(&copy, g, &set, 1, dst, src, 64, XRT_MEMCPY_DEFAULT));
    OK(xrt_graph_add_child_graph_node(&h, g, &copy, 1, child));
    OK(xrt_graph_destroy(child));
    return g;
}

/* The node of g at position i of its list. */
static xrt_graph_node nth(xrt_graph g, size_t i)
{
    xrt_graph_node v[8];
    size_t n = 8;
    OK(xrt_graph_get_nodes(g, v, &n));
    assert_true(i < n);
    return v[i];
}

/* An update's refusal, in xrt's words on the CPU, in the runtime's elsewhere. */
static const char *why(const char *cpu) { return on_cpu() ? cpu : "GraphExecUpdate"; }

/* >> cudaGraphExecUpdate's limits, each with its result code and node: a
   copy whose memory type changed, a child graph of another shape, a node of
   another type, an edge from another node, a graph of another device */
static void test_update_limits(void **state)
{
    fixture f;
    xrt_graph g, same, other;
    xrt_graph_exec x;
    xrt_graph_exec_update_result r;
    xrt_graph_node a, b;
    int devices = 0;
    (void)state;
    need_nodes();
    fx_make(&f);
    g = update_graph(f.d, f.h, f.d, 0); /* device -> pinned host */
    OK(xrt_graph_instantiate(&x, g));
    same = update_graph(f.d, f.h + 16, f.d + 16, 0); /* new addresses, same memory types: allowed */
    OK(xrt_graph_exec_update_with_result(x, same, &r));
    assert_int_equal(r.result, XRT_GRAPH_EXEC_UPDATE_SUCCESS);
    assert_null(r.error_node);
    OK(xrt_graph_destroy(same));

    other = update_graph(f.d, f.d + 32, f.d, 0); /* the destination is device memory now */
    FAILS(xrt_graph_exec_update_with_result(x, other, &r), XRT_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
          why("destination was pinned host memory, is device memory"));
    assert_int_equal(r.result, XRT_GRAPH_EXEC_UPDATE_PARAMETERS_CHANGED);
    assert_ptr_equal(r.error_node, nth(other, 1));
    FAILS(xrt_graph_exec_update(x, other), XRT_ERROR_GRAPH_EXEC_UPDATE_FAILURE, why("memory types may not change"));
    OK(xrt_graph_destroy(other));

    other = update_graph(f.d, f.h, f.d, 1); /* the child has a node more */
    FAILS(xrt_graph_exec_update_with_result(x, other, &r), XRT_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
          why("a child graph): the exec has 1 nodes, the graph 2"));
    assert_int_equal(r.result, XRT_GRAPH_EXEC_UPDATE_TOPOLOGY_CHANGED);
    assert_ptr_equal(r.error_node, nth(other, 2));
    OK(xrt_graph_destroy(other));

    OK(xrt_graph_create(&other, 0)); /* set -> host -> child: node 1 is of another type */
    {
        xrt_graph_node set, h, c;
        xrt_graph child;
        xrt_memset_node_params ms = {NULL, 0, 1, 1, 64, 1};
        ms.dst = f.d;
        OK(xrt_graph_add_memset_node(&set, other, NULL, 0, &ms));
        add_log(other, &h, &set, 1, 1);
        OK(xrt_graph_create(&child, 0));
        add_log(child, &c, NULL, 0, 1);
        OK(xrt_graph_add_child_graph_node(&c, other, &h, 1, child));
        OK(xrt_graph_destroy(child));
        FAILS(xrt_graph_exec_update_with_result(x, other, &r), XRT_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
              why("node 1 is a copy in the exec, a host function in the graph"));
        assert_int_equal(r.result, XRT_GRAPH_EXEC_UPDATE_NODE_TYPE_CHANGED);
        assert_ptr_equal(r.error_node, h);
    }
    OK(xrt_graph_destroy(other));
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));

    OK(xrt_graph_create(&g, 0)); /* a -> b against b's own root: the edge changed */
    add_log(g, &a, NULL, 0, 1);
    add_log(g, &b, &a, 1, 2);
    OK(xrt_graph_instantiate(&x, g));
    OK(xrt_graph_create(&other, 0));
    add_log(other, &a, NULL, 0, 1);
    add_log(other, &b, NULL, 0, 2);
    {
        xrt_graph_node c;
        add_log(other, &c, &b, 1, 3); /* 3 nodes: the count differs, no node to blame */
        FAILS(xrt_graph_exec_update_with_result(x, other, &r), XRT_ERROR_GRAPH_EXEC_UPDATE_FAILURE, why("3"));
        assert_int_equal(r.result, XRT_GRAPH_EXEC_UPDATE_TOPOLOGY_CHANGED);
        assert_null(r.error_node);
        OK(xrt_graph_destroy_node(c));
    }
    OK(xrt_graph_add_dependencies(other, &b, &a, 1)); /* b -> a: the same shape, the other way */
    FAILS(xrt_graph_exec_update_with_result(x, other, &r), XRT_ERROR_GRAPH_EXEC_UPDATE_FAILURE, why("follows"));
    assert_int_equal(r.result, XRT_GRAPH_EXEC_UPDATE_NODE_TYPE_CHANGED == r.result ? r.result
                                                                                   : XRT_GRAPH_EXEC_UPDATE_TOPOLOGY_CHANGED);
    OK(xrt_graph_destroy(other));
    FAILS(xrt_graph_exec_update_with_result(x, g, NULL), XRT_ERROR_INVALID_VALUE, "result is NULL");

    OK(xrt_get_device_count(&devices));
    if (devices > 1 && on_cpu()) { /* the same graph made on device 1 (the runtimes' own rule) */
        OK(xrt_set_device(1));
        OK(xrt_graph_create(&other, 0));
        add_log(other, &a, NULL, 0, 1);
        add_log(other, &b, &a, 1, 2);
        OK(xrt_set_device(0));
        FAILS(xrt_graph_exec_update_with_result(x, other, &r), XRT_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
              why("the exec is of device 0, the graph of device 1"));
        assert_int_equal(r.result, XRT_GRAPH_EXEC_UPDATE_ERROR);
        OK(xrt_graph_destroy(other));
    }
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    fx_free(&f);
}

/* A graph of one child node whose child is two host nodes: `chained` with
   an edge between them, else side by side; `nested` puts that child one
   level deeper (a child of a child). */
static xrt_graph child_shape_graph(int chained, int nested)
{
    xrt_graph g, child, inner;
    xrt_graph_node a, b, c;
    OK(xrt_graph_create(&child, 0));
    add_log(child, &a, NULL, 0, 1);
    add_log(child, &b, chained ? &a : NULL, chained ? 1 : 0, 2);
    if (nested) {
        OK(xrt_graph_create(&inner, 0));
        OK(xrt_graph_add_child_graph_node(&c, inner, NULL, 0, child));
        OK(xrt_graph_destroy(child));
        child = inner;
    }
    OK(xrt_graph_create(&g, 0));
    OK(xrt_graph_add_child_graph_node(&c, g, NULL, 0, child));
    OK(xrt_graph_destroy(child));
    return g;
}

/* >> an update whose child graph has the same nodes but other edges, at
   one level or two, or whose child changed through the node's own handle,
   is refused as cudaGraphExecUpdate refuses it
   (cudaGraphExecUpdateErrorTopologyChanged), naming the child node; the
   same shape is taken (issue 46 item 12). The CPU backend once took the
   update of a child changed through its handle: the edge added there was
   written to the child's nodes' old place (a child's graph is a copy with
   no room to spare, which the edge's room moved), freed memory, and lost. */
static void test_update_child_shape(void **state)
{
    fixture f;
    xrt_graph g, other;
    xrt_graph_exec x;
    xrt_graph_exec_update_result r;
    int nested;
    (void)state;
    need_nodes();
    fx_make(&f);
    for (nested = 0; nested < 2; nested++) {
        g = child_shape_graph(1, nested);
        OK(xrt_graph_instantiate(&x, g));
        other = child_shape_graph(1, nested);
        OK(xrt_graph_exec_update_with_result(x, other, &r));
        assert_int_equal(r.result, XRT_GRAPH_EXEC_UPDATE_SUCCESS);
        OK(xrt_graph_destroy(other));
        other = child_shape_graph(0, nested);
        FAILS(xrt_graph_exec_update_with_result(x, other, &r), XRT_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
              why("(a child graph): "));
        assert_int_equal(r.result, XRT_GRAPH_EXEC_UPDATE_TOPOLOGY_CHANGED);
        assert_ptr_equal(r.error_node, nth(other, 0));
        FAILS(xrt_graph_exec_update(x, other), XRT_ERROR_GRAPH_EXEC_UPDATE_FAILURE, why("(a child graph): "));
        OK(xrt_graph_destroy(other));
        { /* the exec's own graph, its child changed through the node's handle */
            xrt_graph_node_params cp;
            xrt_graph_node c[2];
            size_t n = 2;
            other = child_shape_graph(0, 0);
            OK(xrt_graph_node_get_params(nth(other, 0), &cp));
            OK(xrt_graph_get_nodes(cp.child.graph, c, &n));
            assert_int_equal(n, 2);
            if (!nested) {
                xrt_graph_exec y;
                OK(xrt_graph_instantiate(&y, other));
                OK(xrt_graph_add_dependencies(cp.child.graph, &c[0], &c[1], 1));
                FAILS(xrt_graph_exec_update_with_result(y, other, &r), XRT_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
                      why("(a child graph): "));
                assert_int_equal(r.result, XRT_GRAPH_EXEC_UPDATE_TOPOLOGY_CHANGED);
                OK(xrt_graph_exec_destroy(y));
            }
            OK(xrt_graph_destroy(other));
        }
        run_once(g, f.s);
        OK(xrt_graph_exec_destroy(x));
        OK(xrt_graph_destroy(g));
    }
    fx_free(&f);
}

/* >> a capture into a graph (a built graph's child included): its nodes
   join the graph after the nodes given; a failed capture leaves the graph
   as it was; the graph may not go while the capture lasts */
static void test_capture_into_graph(void **state)
{
    xrt_graph g, empty, own, got, other;
    xrt_graph_node a, child, last, o;
    xrt_graph_node_params p;
    xrt_stream s;
    size_t n = 0;
    (void)state;
    need_nodes();
    OK(xrt_stream_create_with_flags(&s, XRT_STREAM_NON_BLOCKING));
    OK(xrt_graph_create(&g, 0));
    if (xrt_stream_begin_capture_to_graph(s, g, NULL, 0, XRT_CAPTURE_MODE_GLOBAL) == XRT_ERROR_UNSUPPORTED) {
        xrt_get_last_error();
        OK(xrt_graph_destroy(g));
        OK(xrt_stream_destroy(s));
        SKIP_UNLESS(0, "the backend does not capture into a graph");
    }
    OK(xrt_stream_end_capture(s, &got)); /* an empty capture into g: g as it was */
    assert_ptr_equal(got, g);
    OK(xrt_graph_create(&empty, 0));
    add_log(g, &a, NULL, 0, 1);
    OK(xrt_graph_add_child_graph_node(&child, g, &a, 1, empty));
    OK(xrt_graph_destroy(empty));
    add_log(g, &last, &child, 1, 4);
    OK(xrt_graph_node_get_params(child, &p));
    own = p.child.graph;
    OK(xrt_stream_begin_capture_to_graph(s, own, NULL, 0, XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_launch_host_func(s, log_fn, (void *)(intptr_t)2));
    OK(xrt_launch_host_func(s, log_fn, (void *)(intptr_t)3));
    OK(xrt_stream_end_capture(s, &got));
    assert_ptr_equal(got, own); /* the graph begun into, not a new one */
    run_once(g, s);
    assert_int_equal(order_n, 4);
    assert_true(order_log[0] == 1 && order_log[1] == 2 && order_log[2] == 3 && order_log[3] == 4);

    OK(xrt_stream_begin_capture_to_graph(s, g, &a, 1, XRT_CAPTURE_MODE_GLOBAL)); /* after a, beside the child */
    FAILS(xrt_graph_destroy(g), XRT_ERROR_ILLEGAL_STATE, "being captured into");
    FAILS(xrt_stream_begin_capture_to_graph(s, g, NULL, 0, XRT_CAPTURE_MODE_GLOBAL), XRT_ERROR_ILLEGAL_STATE,
          "captured into already");
    OK(xrt_launch_host_func(s, log_fn, (void *)(intptr_t)5));
    OK(xrt_stream_end_capture(s, &got));
    assert_ptr_equal(got, g);
    OK(xrt_graph_get_nodes(g, NULL, &n));
    assert_int_equal(n, 4);
    OK(xrt_graph_node_get_dependent_nodes(a, NULL, &n));
    assert_int_equal(n, 2); /* the child, and the captured node */

    OK(xrt_stream_begin_capture_to_graph(s, g, NULL, 0, XRT_CAPTURE_MODE_GLOBAL)); /* fails */
    OK(xrt_launch_host_func(s, log_fn, (void *)(intptr_t)6));
    FAILS(xrt_stream_synchronize(s), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED, "capturing");
    FAILS(xrt_stream_end_capture(s, &got), XRT_ERROR_STREAM_CAPTURE_INVALIDATED, "capture");
    assert_null(got);
    OK(xrt_graph_get_nodes(g, NULL, &n));
    /* The CPU backend leaves g as it was; CUDA captures into g as it goes and
       says nothing of g after a failure (n is 5 on its double). */
    if (on_cpu()) assert_int_equal(n, 4);
    OK(xrt_graph_node_get_type(last, &p.type)); /* its nodes' handles still good */
    assert_int_equal(p.type, XRT_GRAPH_NODE_HOST);

    OK(xrt_graph_create(&other, 0));
    add_log(other, &o, NULL, 0, 9);
    FAILS(xrt_stream_begin_capture_to_graph(s, g, &o, 1, XRT_CAPTURE_MODE_GLOBAL), XRT_ERROR_INVALID_VALUE, "not of graph");
    FAILS(xrt_stream_begin_capture_to_graph(NULL, g, NULL, 0, XRT_CAPTURE_MODE_GLOBAL),
          XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED, "NULL stream cannot be captured");
    FAILS(xrt_stream_begin_capture_to_graph(s, g, NULL, 0, (xrt_capture_mode)7), XRT_ERROR_INVALID_VALUE, "mode 7");
    FAILS(xrt_stream_begin_capture_to_graph(s, g, NULL, 1, XRT_CAPTURE_MODE_GLOBAL), XRT_ERROR_INVALID_VALUE,
          "deps is NULL");
    OK(xrt_stream_is_capturing(s, (xrt_capture_status *)&n));
    assert_int_equal((int)n, XRT_CAPTURE_STATUS_NONE); /* none of them began */
    OK(xrt_graph_destroy(other));
    OK(xrt_graph_destroy(g));
    OK(xrt_stream_destroy(s));
}

/* Begins a capture of s into g after deps; 0 where the backend does not
   capture into a graph (the error taken). */
static int capture_into(xrt_stream s, xrt_graph g, const xrt_graph_node *deps, size_t ndeps)
{
    xrt_status st = xrt_stream_begin_capture_to_graph(s, g, deps, ndeps, XRT_CAPTURE_MODE_GLOBAL);
    if (st == XRT_ERROR_UNSUPPORTED) {
        xrt_get_last_error();
        return 0;
    }
    OK(st);
    return 1;
}

/* >> a capture into a graph keeps the graph's own nodes as they are: a
   child node's graph whose handle was taken (get_params) stays that graph,
   and a kernel node's arguments stay where get_params said */
static void test_capture_into_graph_keeps_nodes(void **state)
{
    fixture f;
    xrt_graph g, child, own, got;
    xrt_graph_node k, c, extra, first;
    xrt_graph_node_params kp, cp;
    host_add h;
    size_t n = 0;
    (void)state;
    need_nodes();
    fx_make(&f);
    OK(xrt_graph_create(&g, 0));
    OK(xrt_graph_create(&child, 0));
    add_log(child, &first, NULL, 0, 2);
    add_log(g, &first, NULL, 0, 1);
    OK(xrt_graph_add_child_graph_node(&c, g, &first, 1, child));
    OK(xrt_graph_destroy(child));
    add_step(&f, g, &k, NULL, 0, f.add, f.d, 1, &h);
    OK(xrt_graph_node_get_params(c, &cp));
    own = cp.child.graph;
    OK(xrt_graph_node_get_params(k, &kp));
    if (!capture_into(f.s, g, &c, 1)) {
        OK(xrt_graph_destroy(g));
        fx_free(&f);
        SKIP_UNLESS(0, "the backend does not capture into a graph");
    }
    OK(xrt_launch_host_func(f.s, log_fn, (void *)(intptr_t)3));
    OK(xrt_stream_end_capture(f.s, &got));
    assert_ptr_equal(got, g);
    OK(xrt_graph_node_get_params(c, &cp));
    assert_ptr_equal(cp.child.graph, own); /* the same graph, not a copy */
    OK(xrt_graph_node_get_params(k, &cp));
    if (kp.type == XRT_GRAPH_NODE_KERNEL) assert_ptr_equal(cp.kernel.args, kp.kernel.args);
    else assert_ptr_equal(cp.host.user, kp.host.user);
    OK(xrt_graph_get_nodes(own, NULL, &n));
    assert_int_equal(n, 1);
    OK(xrt_graph_get_nodes(own, &first, &n));
    add_log(own, &extra, &first, 1, 5); /* in g's child: runs after 2 */
    OK(xrt_graph_get_nodes(g, NULL, &n));
    assert_int_equal(n, 4);
    run_once(g, f.s);
    assert_int_equal(order_n, 4);
    assert_true(order_log[0] == 1 && order_log[1] == 2 && order_log[2] == 5 && order_log[3] == 3);
    OK(xrt_graph_destroy(g));
    fx_free(&f);
}

/* >> a capture into a child node's graph, two levels down: the graphs and
   nodes that hold it cannot go while the capture lasts, as the graph
   captured into cannot */
static void test_capture_into_child_holds_parents(void **state)
{
    fixture f;
    xrt_graph g, child, own, own2, got;
    xrt_graph_node first, c, c2;
    xrt_graph_node_params p;
    (void)state;
    need_nodes();
    fx_make(&f);
    OK(xrt_graph_create(&g, 0));
    OK(xrt_graph_create(&child, 0));
    add_log(g, &first, NULL, 0, 1);
    OK(xrt_graph_add_child_graph_node(&c, g, &first, 1, child));
    OK(xrt_graph_destroy(child));
    OK(xrt_graph_node_get_params(c, &p));
    own = p.child.graph;
    OK(xrt_graph_create(&child, 0));
    OK(xrt_graph_add_child_graph_node(&c2, own, NULL, 0, child));
    OK(xrt_graph_destroy(child));
    OK(xrt_graph_node_get_params(c2, &p));
    own2 = p.child.graph;
    if (!capture_into(f.s, own2, NULL, 0)) {
        OK(xrt_graph_destroy(g));
        fx_free(&f);
        SKIP_UNLESS(0, "the backend does not capture into a graph");
    }
    OK(xrt_launch_host_func(f.s, log_fn, (void *)(intptr_t)2));
    FAILS(xrt_graph_destroy(g), XRT_ERROR_ILLEGAL_STATE, "which is being captured into");
    FAILS(xrt_graph_destroy_node(c), XRT_ERROR_ILLEGAL_STATE, "which is being captured into");
    FAILS(xrt_graph_destroy_node(c2), XRT_ERROR_ILLEGAL_STATE, "which is being captured into");
    OK(xrt_stream_end_capture(f.s, &got));
    assert_ptr_equal(got, own2);
    run_once(g, f.s);
    assert_true(order_n == 2 && order_log[0] == 1 && order_log[1] == 2);
    OK(xrt_graph_destroy_node(c2)); /* the capture is over */
    OK(xrt_graph_destroy(g));
    fx_free(&f);
}

/* >> while a graph is captured into, its nodes and edges change only by the
   capture: a node added by hand (an allocation node too), an edge added or
   removed, a node destroyed are refused, and the graph ends with its own
   nodes and the captured ones */
static void test_capture_target_refuses_changes(void **state)
{
    fixture f;
    xrt_graph g, got;
    xrt_graph_node e, e2, n = NULL;
    xrt_graph_node_params p;
    xrt_host_node_params hp = {log_fn, NULL};
    size_t count = 0;
    (void)state;
    need_nodes();
    fx_make(&f);
    OK(xrt_graph_create(&g, 0));
    OK(xrt_graph_add_empty_node(&e, g, NULL, 0));
    add_log(g, &e2, &e, 1, 1);
    if (!capture_into(f.s, g, &e2, 1)) {
        OK(xrt_graph_destroy(g));
        fx_free(&f);
        SKIP_UNLESS(0, "the backend does not capture into a graph");
    }
    FAILS(xrt_graph_add_host_node(&n, g, NULL, 0, &hp), XRT_ERROR_ILLEGAL_STATE, "being captured into");
    assert_null(n);
    memset(&p, 0, sizeof p);
    p.type = XRT_GRAPH_NODE_MEM_ALLOC;
    OK(xrt_get_device(&p.alloc.device));
    p.alloc.size = 4096;
    FAILS(xrt_graph_add_node(&n, g, NULL, 0, &p), XRT_ERROR_ILLEGAL_STATE, "being captured into");
    assert_null(p.alloc.ptr);
    FAILS(xrt_graph_add_dependencies(g, &e2, &e, 1), XRT_ERROR_ILLEGAL_STATE, "being captured into");
    FAILS(xrt_graph_remove_dependencies(g, &e, &e2, 1), XRT_ERROR_ILLEGAL_STATE, "being captured into");
    FAILS(xrt_graph_destroy_node(e), XRT_ERROR_ILLEGAL_STATE, "being captured into");
    OK(xrt_launch_host_func(f.s, log_fn, (void *)(intptr_t)2));
    OK(xrt_stream_end_capture(f.s, &got));
    assert_ptr_equal(got, g);
    OK(xrt_graph_get_nodes(g, NULL, &count));
    assert_int_equal(count, 3);
    OK(xrt_graph_node_get_type(e, &p.type));
    assert_int_equal(p.type, XRT_GRAPH_NODE_EMPTY);
    run_once(g, f.s);
    assert_true(order_n == 2 && order_log[0] == 1 && order_log[1] == 2);
    OK(xrt_graph_add_empty_node(&n, g, NULL, 0)); /* the capture is over */
    OK(xrt_graph_destroy(g));
    fx_free(&f);
}

/* >> event nodes (where the backend builds them: the CPU's answer is
   XRT_ERROR_UNSUPPORTED): a record node completes its event at each
   launch; a wait node and its event are read back and changed */
static void test_event_node_params(void **state)
{
    xrt_graph g;
    xrt_graph_exec x;
    xrt_graph_node a, rec, wait;
    xrt_graph_node_params p;
    xrt_event e, other;
    xrt_stream s;
    xrt_status st;
    (void)state;
    need_nodes();
    OK(xrt_stream_create(&s));
    OK(xrt_event_create(&e, 0));
    OK(xrt_event_create(&other, 0));
    OK(xrt_graph_create(&g, 0));
    add_log(g, &a, NULL, 0, 1);
    st = xrt_graph_add_event_record_node(&rec, g, &a, 1, e);
    if (st == XRT_ERROR_UNSUPPORTED) {
        xrt_get_last_error();
        OK(xrt_graph_destroy(g));
        OK(xrt_event_destroy(e));
        OK(xrt_event_destroy(other));
        OK(xrt_stream_destroy(s));
        SKIP_UNLESS(0, "the backend does not build event nodes by hand");
    }
    OK(st);
    OK(xrt_graph_add_event_wait_node(&wait, g, &rec, 1, e));
    OK(xrt_graph_node_get_params(rec, &p));
    assert_true(p.type == XRT_GRAPH_NODE_EVENT_RECORD && p.event.event == e);
    OK(xrt_graph_node_get_params(wait, &p));
    assert_true(p.type == XRT_GRAPH_NODE_WAIT_EVENT && p.event.event == e);
    p.event.event = other;
    OK(xrt_graph_node_set_params(wait, &p));
    OK(xrt_graph_node_get_params(wait, &p));
    assert_ptr_equal(p.event.event, other);
    OK(xrt_graph_instantiate(&x, g));
    order_n = 0;
    OK(xrt_graph_launch(x, s));
    OK(xrt_event_synchronize(e));
    assert_int_equal(order_n, 1);
    OK(xrt_stream_synchronize(s));
    OK(xrt_event_query(e));
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    OK(xrt_event_destroy(e));
    OK(xrt_event_destroy(other));
    OK(xrt_stream_destroy(s));
}

/* >> an exec's event nodes given other events
   (cudaGraphExecEventRecordNodeSetEvent, cudaGraphExecEventWaitNodeSetEvent):
   later launches wait for and record the new ones, which the exec holds; the
   old events and the graph may go before those launches */
static void test_exec_event_node_set_event(void **state)
{
    fixture f;
    xrt_graph g;
    xrt_graph_exec x;
    xrt_graph_node wait, set, rec;
    xrt_graph_node_params p;
    xrt_memset_node_params ms = {NULL, 0, 3, 1, N * sizeof(int), 1};
    xrt_event start, w1, w2, r1, r2;
    xrt_stream other;
    xrt_status st;
    float t = -1;
    int i;
    (void)state;
    need_nodes();
    fx_make(&f);
    ms.dst = f.d;
    OK(xrt_stream_create_with_flags(&other, XRT_STREAM_NON_BLOCKING));
    OK(xrt_event_create(&start, 0));
    OK(xrt_event_create(&w1, XRT_EVENT_DISABLE_TIMING));
    OK(xrt_event_create(&w2, XRT_EVENT_DISABLE_TIMING));
    OK(xrt_event_create(&r1, 0));
    OK(xrt_event_create(&r2, 0));
    OK(xrt_graph_create(&g, 0));
    st = xrt_graph_add_event_wait_node(&wait, g, NULL, 0, w1);
    if (st == XRT_ERROR_UNSUPPORTED) {
        xrt_event v[5] = {start, w1, w2, r1, r2};
        xrt_get_last_error();
        OK(xrt_graph_destroy(g));
        for (i = 0; i < 5; i++) OK(xrt_event_destroy(v[i]));
        OK(xrt_stream_destroy(other));
        fx_free(&f);
        SKIP_UNLESS(0, "the backend does not build event nodes by hand");
    }
    OK(st);
    OK(xrt_graph_add_memset_node(&set, g, &wait, 1, &ms));
    OK(xrt_graph_add_event_record_node(&rec, g, &set, 1, r1));
    OK(xrt_graph_instantiate(&x, g));
    memset(&p, 0, sizeof p);
    for (i = 0; i < 2; i++) { /* the wait node's event changed, then the record node's */
        p.type = i ? XRT_GRAPH_NODE_EVENT_RECORD : XRT_GRAPH_NODE_WAIT_EVENT;
        p.event.event = i ? r2 : w2;
        OK(xrt_graph_exec_node_set_params(x, i ? rec : wait, &p));
        if (i == 1) { /* the exec holds the events it uses now; the graph held the old ones */
            OK(xrt_event_destroy(w1));
            OK(xrt_event_destroy(r1));
            OK(xrt_graph_destroy(g));
        }
        OK(xrt_memset_async(f.d, 0, N * sizeof(int), other));
        __atomic_store_n(&gate_open_flag, 0, __ATOMIC_RELEASE);
        OK(xrt_launch_host_func(other, gate_fn, NULL)); /* holds `other` */
        OK(xrt_memcpy_async(f.h, f.d, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST, other)); /* before the graph */
        OK(xrt_event_record(w2, other));
        OK(xrt_event_record(start, f.s));
        OK(xrt_graph_launch(x, f.s));
        usleep(20000);
        __atomic_store_n(&gate_open_flag, 1, __ATOMIC_RELEASE);
        OK(xrt_stream_synchronize(other));
        OK(xrt_stream_synchronize(f.s));
        assert_int_equal(f.h[0], 0); /* the graph waited for w2 */
        OK(xrt_event_elapsed_time(&t, start, i ? r2 : r1)); /* recorded by the launch */
        assert_true(t >= 0);
    }
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_event_destroy(start));
    OK(xrt_event_destroy(w2));
    OK(xrt_event_destroy(r2));
    OK(xrt_stream_destroy(other));
    fx_free(&f);
}

/* Adds an allocation node of n bytes on the current device: its address. */
static void *add_alloc(xrt_graph g, xrt_graph_node *node, const xrt_graph_node *deps, size_t ndeps, size_t n)
{
    xrt_graph_node_params p;
    memset(&p, 0, sizeof p);
    p.type = XRT_GRAPH_NODE_MEM_ALLOC;
    OK(xrt_get_device(&p.alloc.device));
    p.alloc.size = n;
    OK(xrt_graph_add_node(node, g, deps, ndeps, &p));
    assert_non_null(p.alloc.ptr);
    return p.alloc.ptr;
}

static xrt_status add_free(xrt_graph g, xrt_graph_node *node, const xrt_graph_node *deps, size_t ndeps, void *ptr)
{
    xrt_graph_node_params p;
    memset(&p, 0, sizeof p);
    p.type = XRT_GRAPH_NODE_MEM_FREE;
    p.mem_free.ptr = ptr;
    return xrt_graph_add_node(node, g, deps, ndeps, &p);
}

static void add_set(xrt_graph g, xrt_graph_node *node, const xrt_graph_node *deps, size_t ndeps, void *ptr,
                    unsigned v)
{
    xrt_memset_node_params ms = {ptr, 0, v, 4, N, 1};
    OK(xrt_graph_add_memset_node(node, g, deps, ndeps, &ms));
}

/* A graph with memory nodes keeps its nodes and edges (CUDA's rule): node
   `to` is not destroyed, nor its edge from `from` removed. */
static void keeps_nodes_and_edges(xrt_graph g, xrt_graph_node from, xrt_graph_node to)
{
    if (on_cpu()) { /* the double's refusals carry no detail */
        FAILS(xrt_graph_destroy_node(to), XRT_ERROR_INVALID_VALUE, "cannot be deleted");
        FAILS(xrt_graph_remove_dependencies(g, &from, &to, 1), XRT_ERROR_INVALID_VALUE, "cannot be deleted");
    } else {
        assert_int_equal(xrt_graph_destroy_node(to), XRT_ERROR_INVALID_VALUE);
        assert_int_equal(xrt_graph_remove_dependencies(g, &from, &to, 1), XRT_ERROR_INVALID_VALUE);
        xrt_get_last_error();
    }
}

/* >> memory nodes built by hand (cudaGraphAddMemAllocNode,
   cudaGraphAddMemFreeNode): the allocation node gives its address, later
   nodes use it, a free node frees it; unfreed, it is the caller's after
   each launch, freed before the next */
static void test_mem_nodes(void **state)
{
    fixture f;
    xrt_graph g, g2;
    xrt_graph_exec x, x2;
    xrt_graph_node al, set, out, fr, al2, set2;
    xrt_graph_node_params p;
    int *d, *d2, r, i, dev;
    (void)state;
    need_nodes();
    fx_make(&f);
    OK(xrt_graph_create(&g, 0));
    d = (int *)add_alloc(g, &al, NULL, 0, N * sizeof(int));
    OK(xrt_get_device(&dev));
    OK(xrt_graph_node_get_params(al, &p));
    assert_int_equal(p.type, XRT_GRAPH_NODE_MEM_ALLOC);
    assert_ptr_equal(p.alloc.ptr, d);
    assert_int_equal(p.alloc.size, N * sizeof(int));
    assert_int_equal(p.alloc.device, dev);
    add_set(g, &set, &al, 1, d, 7);
    OK(xrt_graph_add_memcpy_node_1d(&out, g, &set, 1, f.h, d, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST));
    OK(add_free(g, &fr, &out, 1, d));
    OK(xrt_graph_node_get_params(fr, &p));
    assert_int_equal(p.type, XRT_GRAPH_NODE_MEM_FREE);
    assert_ptr_equal(p.mem_free.ptr, d);
    FAILS(xrt_free(d), XRT_ERROR_INVALID_VALUE, "not"); /* not memory before a launch */
    OK(xrt_graph_instantiate(&x, g));
    /* one exec at a time: "Only one instantiation of the graph may exist at
       any point in time" (cudaGraphAddMemAllocNode); the runtime refuses it */
    FAILS(xrt_graph_instantiate(&x2, g), XRT_ERROR_INVALID_VALUE, "has one exec at a time");
    assert_null(x2);
    for (r = 0; r < 3; r++) {
        memset(f.h, 0, N * sizeof(int));
        OK(xrt_graph_launch(x, f.s));
        OK(xrt_stream_synchronize(f.s));
        for (i = 0; i < N; i++)
            if (f.h[i] != 7) fail_msg("launch %d: h[%d] = %d", r, i, f.h[i]);
    }
    FAILS(xrt_free(d), XRT_ERROR_INVALID_VALUE, "not"); /* freed in the graph: not the caller's */
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));

    /* unfreed: each launch leaves it to the caller */
    OK(xrt_graph_create(&g2, 0));
    d2 = (int *)add_alloc(g2, &al2, NULL, 0, N * sizeof(int));
    add_set(g2, &set2, &al2, 1, d2, 5);
    OK(xrt_graph_instantiate(&x2, g2));
    for (r = 0; r < 3; r++) {
        memset(f.h, 0, N * sizeof(int));
        OK(xrt_graph_launch(x2, f.s));
        OK(xrt_memcpy_async(f.h, d2, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST, f.s));
        OK(xrt_stream_synchronize(f.s));
        for (i = 0; i < N; i++)
            if (f.h[i] != 5) fail_msg("launch %d: h[%d] = %d", r, i, f.h[i]);
        if (r == 1) {
            FAILS(xrt_graph_launch(x2, f.s), XRT_ERROR_INVALID_VALUE, "not freed");
            OK(xrt_free_async(d2, f.s));
        } else {
            OK(xrt_free(d2));
        }
    }
    FAILS(xrt_free(d2), XRT_ERROR_INVALID_VALUE, "graph"); /* twice after one launch */
    OK(xrt_graph_exec_destroy(x2));
    OK(xrt_graph_destroy(g2));
    fx_free(&f);
}

/* >> memory nodes: what CUDA refuses is refused, nothing made */
/* A free node of graph B frees graph A's allocation that A leaves to the
   caller ("launching a graph with a free node for that allocation",
   cudaGraphAddMemAllocNode's documentation): after B's launch, A launches
   again; B's launch while the allocation is not allocated is refused. */
static void test_free_in_another_graph(void **state)
{
    fixture f;
    xrt_graph a, b;
    xrt_graph_exec xa, xb, x2;
    xrt_graph cb = NULL;
    xrt_graph_node al, set, out, fr, twice;
    int *d, i, r;
    (void)state;
    need_nodes();
    fx_make(&f);
    OK(xrt_graph_create(&a, 0));
    d = (int *)add_alloc(a, &al, NULL, 0, N * sizeof(int));
    add_set(a, &set, &al, 1, d, 4);
    OK(xrt_graph_create(&b, 0));
    OK(xrt_graph_add_memcpy_node_1d(&out, b, NULL, 0, f.h, d, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST));
    OK(add_free(b, &fr, &out, 1, d));
    FAILS(add_free(b, &twice, NULL, 0, d), XRT_ERROR_INVALID_VALUE, "freed already");
    FAILS(add_free(b, &twice, NULL, 0, f.d), XRT_ERROR_INVALID_VALUE, "not allocated by an allocation node");
    OK(xrt_graph_instantiate(&xa, a));
    OK(xrt_graph_instantiate(&xb, b));
    /* a graph with a free node has one exec at a time too, and keeps its
       nodes and edges: "The following restrictions apply to graphs which
       contain allocation and/or memory free nodes" (cudaGraphAddMemFreeNode) */
    FAILS(xrt_graph_instantiate(&x2, b), XRT_ERROR_INVALID_VALUE, "has one exec at a time");
    assert_null(x2);
    keeps_nodes_and_edges(b, out, fr);
    FAILS(xrt_graph_clone(&cb, b), XRT_ERROR_UNSUPPORTED, "clone"); /* "The graph cannot be cloned" */
    assert_null(cb);
    FAILS(xrt_graph_launch(xb, f.s), XRT_ERROR_INVALID_VALUE, "not allocated now"); /* before A's launch */
    for (r = 0; r < 3; r++) {
        memset(f.h, 0, N * sizeof(int));
        OK(xrt_graph_launch(xa, f.s));
        OK(xrt_graph_launch(xb, f.s)); /* reads d, frees it */
        OK(xrt_stream_synchronize(f.s));
        for (i = 0; i < N; i++)
            if (f.h[i] != 4) fail_msg("launch %d: h[%d] = %d", r, i, f.h[i]);
        FAILS(xrt_free(d), XRT_ERROR_INVALID_VALUE, "graph"); /* B freed it */
        FAILS(xrt_graph_launch(xb, f.s), XRT_ERROR_INVALID_VALUE, "not allocated now");
    }
    OK(xrt_graph_launch(xa, f.s));
    FAILS(xrt_graph_launch(xa, f.s), XRT_ERROR_INVALID_VALUE, "not freed");
    OK(xrt_free_async(d, f.s)); /* the caller may free it too */
    OK(xrt_stream_synchronize(f.s));
    FAILS(xrt_graph_launch(xb, f.s), XRT_ERROR_INVALID_VALUE, "not allocated now");
    OK(xrt_graph_exec_destroy(xb));
    OK(xrt_graph_exec_destroy(xa));
    OK(xrt_graph_destroy(b));
    OK(xrt_graph_destroy(a));
    fx_free(&f);
}

/* A free node of graph B frees graph A's allocation only while A (or its
   exec) lives: once both are gone the address is no graph's allocation,
   and memory may be there again (an xrt_malloc at the same address) or the
   caller's (live when A went): B's launch is refused, and the caller's
   memory stays the caller's to free. */
static void free_of_gone_graph(fixture *f, int live)
{
    xrt_graph a, b;
    xrt_graph_exec xa, xb;
    xrt_graph_node al, set, fr;
    int *d, *p = NULL;
    OK(xrt_graph_create(&a, 0));
    d = (int *)add_alloc(a, &al, NULL, 0, N * sizeof(int));
    add_set(a, &set, &al, 1, d, 4);
    OK(xrt_graph_create(&b, 0));
    OK(add_free(b, &fr, NULL, 0, d));
    OK(xrt_graph_instantiate(&xa, a));
    OK(xrt_graph_instantiate(&xb, b));
    OK(xrt_graph_launch(xa, f->s));
    if (!live) OK(xrt_graph_launch(xb, f->s)); /* d freed: not allocated now */
    OK(xrt_stream_synchronize(f->s));
    OK(xrt_graph_exec_destroy(xa));
    OK(xrt_graph_destroy(a));
    if (!live) OK(xrt_malloc((void **)&p, N * sizeof(int))); /* may be at d */
    FAILS(xrt_graph_launch(xb, f->s), XRT_ERROR_INVALID_VALUE, "is gone");
    OK(xrt_stream_synchronize(f->s));
    OK(xrt_free(live ? d : p)); /* still the caller's */
    OK(xrt_graph_exec_destroy(xb));
    OK(xrt_graph_destroy(b));
}

static void test_free_of_gone_graph(void **state)
{
    fixture f;
    (void)state;
    need_nodes();
    fx_make(&f);
    free_of_gone_graph(&f, 0);
    free_of_gone_graph(&f, 1);
    fx_free(&f);
}

/* xrt_device_graph_mem_trim (cudaDeviceGraphMemTrim): memory that no
   allocation uses may go back; an allocation that is live keeps its bytes,
   and the graph launches again after it as before. */
static void test_graph_mem_trim(void **state)
{
    fixture f;
    xrt_graph g;
    xrt_graph_exec x;
    xrt_graph_node al, set;
    int *d, i, r, count = 0;
    xrt_status st;
    (void)state;
    need_nodes();
    st = xrt_device_graph_mem_trim(0);
    if (st == XRT_ERROR_UNSUPPORTED) xrt_get_last_error();
    SKIP_UNLESS(st != XRT_ERROR_UNSUPPORTED, "the runtime has no graph memory trim");
    OK(st);
    fx_make(&f);
    OK(xrt_graph_create(&g, 0));
    d = (int *)add_alloc(g, &al, NULL, 0, N * sizeof(int));
    add_set(g, &set, &al, 1, d, 9);
    OK(xrt_graph_instantiate(&x, g));
    for (r = 0; r < 2; r++) {
        OK(xrt_graph_launch(x, f.s));
        OK(xrt_stream_synchronize(f.s));
        OK(xrt_device_graph_mem_trim(0)); /* d is live: kept */
        memset(f.h, 0, N * sizeof(int));
        OK(xrt_memcpy(f.h, d, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST));
        for (i = 0; i < N; i++)
            if (f.h[i] != 9) fail_msg("launch %d: h[%d] = %d after the trim", r, i, f.h[i]);
        OK(xrt_free(d));
        OK(xrt_device_graph_mem_trim(0)); /* d is not: it may go */
    }
    OK(xrt_get_device_count(&count));
    FAILS(xrt_device_graph_mem_trim(-1), XRT_ERROR_INVALID_DEVICE, "device -1 is negative");
    FAILS(xrt_device_graph_mem_trim(count), XRT_ERROR_INVALID_DEVICE, "out of range");
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    OK(xrt_device_graph_mem_trim(0)); /* the graph is gone */
    fx_free(&f);
}

static uint64_t graph_mem(xrt_graph_mem_attr attr)
{
    uint64_t v = ~(uint64_t)0;
    OK(xrt_device_get_graph_mem_attribute(0, attr, &v));
    return v;
}

/* xrt_device_get/set_graph_mem_attribute (cudaDeviceGetGraphMemAttribute):
   a graph's allocation is counted in the used and reserved amounts and
   their marks while its graph holds it, the reserved amount is never less
   than the used one, the CPU's amounts fall when the graph goes, and a reset
   brings a mark down to the current amount. */
static void test_graph_mem_attributes(void **state)
{
    enum { S = 3 * 4096 + 5 };
    fixture f;
    xrt_graph g;
    xrt_graph_exec x;
    xrt_graph_node al, set, fr;
    uint64_t used0, high, zero = 0, one = 1;
    int *d, count = 0;
    xrt_status st;
    (void)state;
    need_nodes();
    st = xrt_device_get_graph_mem_attribute(0, XRT_GRAPH_MEM_ATTR_USED_MEM_CURRENT, &used0);
    if (st == XRT_ERROR_UNSUPPORTED) xrt_get_last_error();
    SKIP_UNLESS(st != XRT_ERROR_UNSUPPORTED, "the runtime has no graph memory attributes");
    OK(st);
    fx_make(&f);
    OK(xrt_graph_create(&g, 0));
    d = (int *)add_alloc(g, &al, NULL, 0, S);
    add_set(g, &set, &al, 1, d, 9);
    OK(add_free(g, &fr, &set, 1, d));
    OK(xrt_graph_instantiate(&x, g));
    OK(xrt_graph_launch(x, f.s));
    OK(xrt_stream_synchronize(f.s));
    high = graph_mem(XRT_GRAPH_MEM_ATTR_USED_MEM_HIGH);
    if (high < used0 + S) fail_msg("used high %llu: not %llu + the %d bytes", (unsigned long long)high, (unsigned long long)used0, S);
    assert_true(graph_mem(XRT_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH) >= high);
    assert_true(graph_mem(XRT_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT) >= graph_mem(XRT_GRAPH_MEM_ATTR_USED_MEM_CURRENT));
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    OK(xrt_device_graph_mem_trim(0));
    if (on_cpu()) /* the CPU's go with their graph; a runtime's may stay reserved (the double keeps them) */
        assert_true(graph_mem(XRT_GRAPH_MEM_ATTR_USED_MEM_CURRENT) <= high - S);
    OK(xrt_device_set_graph_mem_attribute(0, XRT_GRAPH_MEM_ATTR_USED_MEM_HIGH, &zero));
    OK(xrt_device_set_graph_mem_attribute(0, XRT_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH, &zero));
    assert_true(graph_mem(XRT_GRAPH_MEM_ATTR_USED_MEM_HIGH) <= graph_mem(XRT_GRAPH_MEM_ATTR_USED_MEM_CURRENT));
    assert_true(graph_mem(XRT_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH) <= graph_mem(XRT_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT));
    OK(xrt_get_device_count(&count));
    FAILS(xrt_device_get_graph_mem_attribute(-1, XRT_GRAPH_MEM_ATTR_USED_MEM_HIGH, &high), XRT_ERROR_INVALID_DEVICE,
          "device -1 is negative");
    FAILS(xrt_device_get_graph_mem_attribute(count, XRT_GRAPH_MEM_ATTR_USED_MEM_HIGH, &high), XRT_ERROR_INVALID_DEVICE,
          "out of range");
    FAILS(xrt_device_get_graph_mem_attribute(0, (xrt_graph_mem_attr)4, &high), XRT_ERROR_INVALID_VALUE,
          "attribute 4 is no xrt_graph_mem_attr");
    FAILS(xrt_device_get_graph_mem_attribute(0, XRT_GRAPH_MEM_ATTR_USED_MEM_HIGH, NULL), XRT_ERROR_INVALID_VALUE, "NULL");
    FAILS(xrt_device_set_graph_mem_attribute(0, XRT_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT, &zero), XRT_ERROR_INVALID_VALUE,
          "read only");
    FAILS(xrt_device_set_graph_mem_attribute(0, XRT_GRAPH_MEM_ATTR_USED_MEM_HIGH, &one), XRT_ERROR_INVALID_VALUE,
          "can only be reset to 0, not 1");
    FAILS(xrt_device_set_graph_mem_attribute(0, XRT_GRAPH_MEM_ATTR_USED_MEM_HIGH, NULL), XRT_ERROR_INVALID_VALUE, "NULL");
    fx_free(&f);
}

/* Copies the N ints at d back and checks each is v. */
static void expect_ints(fixture *f, const int *d, int v, const char *what)
{
    int i;
    memset(f->h, 0, N * sizeof(int));
    OK(xrt_memcpy(f->h, d, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST));
    for (i = 0; i < N; i++)
        if (f->h[i] != v) fail_msg("%s: h[%d] = %d, not %d", what, i, f->h[i], v);
}

/* A graph of a memset of f->d to a, one of d2 to b after it, an empty node
   and, where modules load, a kernel adding c to d2 after those: its nodes. */
typedef struct switch_graph { xrt_graph g; xrt_graph_node set, set2, empty, k; host_add h; } switch_graph;

static void switch_graph_make(fixture *f, switch_graph *w, int *d2, int a, int b, int c)
{
    OK(xrt_graph_create(&w->g, 0));
    add_set(w->g, &w->set, NULL, 0, f->d, (unsigned)a);
    add_set(w->g, &w->set2, &w->set, 1, d2, (unsigned)b);
    OK(xrt_graph_add_empty_node(&w->empty, w->g, &w->set2, 1));
    w->k = NULL;
    if (f->add) add_step(f, w->g, &w->k, &w->empty, 1, f->add, d2, c, &w->h);
}

static void launch_and_wait(fixture *f, xrt_graph_exec x)
{
    OK(xrt_memset(f->d, 0, N * sizeof(int)));
    OK(xrt_graph_launch(x, f->s));
    OK(xrt_stream_synchronize(f->s));
}

static unsigned enabled_of(xrt_graph_exec x, xrt_graph_node n)
{
    unsigned on = 9;
    OK(xrt_graph_node_get_enabled(x, n, &on));
    return on;
}

/* xrt_graph_node_set_enabled, xrt_graph_node_get_enabled
   (cudaGraphNodeSetEnabled): a node switched off runs as an empty node (what
   follows it still runs), keeps params set meanwhile and runs them once on
   again; an update of the exec keeps it off; only kernel, memset and memcpy
   nodes switch, and only in an exec of their graph. */
static void test_graph_node_enabled(void **state)
{
    fixture f;
    switch_graph w, w2;
    xrt_graph other;
    xrt_graph_exec x;
    xrt_graph_node stranger;
    xrt_graph_node_params p;
    int *d2;
    unsigned on = 9;
    xrt_status st;
    (void)state;
    need_nodes();
    fx_make(&f);
    OK(xrt_malloc((void **)&d2, N * sizeof(int)));
    switch_graph_make(&f, &w, d2, 7, 5, 1);
    OK(xrt_graph_instantiate(&x, w.g));
    st = xrt_graph_node_get_enabled(x, w.set, &on);
    if (st == XRT_ERROR_UNSUPPORTED) xrt_get_last_error();
    if (st != XRT_ERROR_UNSUPPORTED) {
        OK(st);
        assert_int_equal(on, 1);
        OK(xrt_graph_node_set_enabled(x, w.set, 0));
        assert_int_equal(enabled_of(x, w.set), 0);
        launch_and_wait(&f, x);
        expect_ints(&f, f.d, 0, "a memset switched off");
        expect_ints(&f, d2, f.add ? 6 : 5, "what follows a node switched off");
        memset(&p, 0, sizeof p);
        p.type = XRT_GRAPH_NODE_MEMSET;
        p.set.dst = f.d, p.set.value = 8, p.set.element_size = 4, p.set.width = N, p.set.height = 1;
        OK(xrt_graph_exec_node_set_params(x, w.set, &p));
        assert_int_equal(enabled_of(x, w.set), 0);
        launch_and_wait(&f, x);
        expect_ints(&f, f.d, 0, "a memset given params while off");
        if (w.k) OK(xrt_graph_node_set_enabled(x, w.k, 0));
        OK(xrt_graph_node_set_enabled(x, w.set, 1));
        assert_int_equal(enabled_of(x, w.set), 1);
        launch_and_wait(&f, x);
        expect_ints(&f, f.d, 8, "a memset on again, with the params it was given while off");
        expect_ints(&f, d2, 5, "after a kernel switched off");
        OK(xrt_graph_node_set_enabled(x, w.set, 0));
        switch_graph_make(&f, &w2, d2, 3, 4, 2); /* the same shape */
        OK(xrt_graph_exec_update(x, w2.g));
        launch_and_wait(&f, x);
        expect_ints(&f, f.d, 0, "a memset switched off before an update");
        expect_ints(&f, d2, 4, "the updated memset after it, and its kernel off");
        assert_int_equal(enabled_of(x, w2.set), 0);
        assert_int_equal(enabled_of(x, w2.set2), 1);
        if (w.k) assert_int_equal(enabled_of(x, w2.k), 0);
        FAILS(xrt_graph_node_set_enabled(x, w2.empty, 0), XRT_ERROR_INVALID_VALUE,
              on_cpu() ? "only kernel, memset and memcpy nodes switch off" : "");
        FAILS(xrt_graph_node_get_enabled(x, w2.empty, &on), XRT_ERROR_INVALID_VALUE,
              on_cpu() ? "only kernel, memset and memcpy nodes switch off" : "");
        OK(xrt_graph_create(&other, 0));
        add_set(other, &stranger, NULL, 0, f.d, 1);
        FAILS(xrt_graph_node_set_enabled(x, stranger, 1), XRT_ERROR_INVALID_VALUE,
              on_cpu() ? "not one of the graph the exec was made from" : "");
        FAILS(xrt_graph_node_get_enabled(x, w2.set, NULL), XRT_ERROR_INVALID_VALUE, "enabled is NULL");
        FAILS(xrt_graph_node_set_enabled(NULL, w2.set, 1), XRT_ERROR_INVALID_VALUE, "NULL");
        OK(xrt_graph_destroy(other));
        OK(xrt_graph_destroy(w2.g));
    }
    OK(xrt_graph_exec_destroy(x));
    FAILS(xrt_graph_node_set_enabled(x, w.set, 1), XRT_ERROR_INVALID_HANDLE, "");
    OK(xrt_graph_destroy(w.g));
    OK(xrt_free(d2));
    fx_free(&f);
    SKIP_UNLESS(st != XRT_ERROR_UNSUPPORTED, "the runtime cannot switch nodes off");
}

/* Instantiates g with flags, launches it on f->s, destroys the exec. */
static void run_with_flags(fixture *f, xrt_graph g, unsigned long long flags)
{
    xrt_graph_exec x;
    OK(xrt_graph_instantiate_with_flags(&x, g, flags));
    OK(xrt_graph_launch(x, f->s));
    OK(xrt_stream_synchronize(f->s));
    OK(xrt_graph_exec_destroy(x));
}

/* >> instantiate flags (cudaGraphInstantiateWithFlags, CUDA's values): 0,
   AUTO_FREE_ON_LAUNCH and USE_NODE_PRIORITY run the graph as
   xrt_graph_instantiate does; an unknown bit, UPLOAD (CUDA takes it in
   cudaGraphInstantiateWithParams only) and DEVICE_LAUNCH with
   AUTO_FREE_ON_LAUNCH are refused, nothing made. DEVICE_LAUNCH is
   unsupported on the CPU; on CUDA it takes kernels, copies and memsets of
   device memory (a host node, an empty graph refused). */
static void test_instantiate_flags(void **state)
{
    fixture f;
    xrt_graph g, h;
    xrt_graph_exec x = NULL;
    xrt_graph_node set, host;
    xrt_host_node_params hp = {log_fn, NULL};
    xrt_status st;
    (void)state;
    need_nodes();
    assert_int_equal(XRT_GRAPH_INSTANTIATE_AUTO_FREE_ON_LAUNCH, 1); /* cudaGraphInstantiateFlag* */
    assert_int_equal(XRT_GRAPH_INSTANTIATE_UPLOAD, 2);
    assert_int_equal(XRT_GRAPH_INSTANTIATE_DEVICE_LAUNCH, 4);
    assert_int_equal(XRT_GRAPH_INSTANTIATE_USE_NODE_PRIORITY, 8);
    fx_make(&f);
    OK(xrt_graph_create(&g, 0));
    add_set(g, &set, NULL, 0, f.d, 3);
    FAILS(xrt_graph_instantiate_with_flags(&x, g, 16), XRT_ERROR_INVALID_VALUE, "bits other than");
    FAILS(xrt_graph_instantiate_with_flags(&x, g, 1ull << 40), XRT_ERROR_INVALID_VALUE, "bits other than");
    FAILS(xrt_graph_instantiate_with_flags(&x, g, XRT_GRAPH_INSTANTIATE_UPLOAD), XRT_ERROR_INVALID_VALUE,
          "xrt_graph_upload");
    FAILS(xrt_graph_instantiate_with_flags(&x, g, XRT_GRAPH_INSTANTIATE_DEVICE_LAUNCH |
                                                      XRT_GRAPH_INSTANTIATE_AUTO_FREE_ON_LAUNCH),
          XRT_ERROR_INVALID_VALUE, "cannot be used with");
    assert_null(x);
    FAILS(xrt_graph_instantiate_with_flags(NULL, g, 0), XRT_ERROR_INVALID_VALUE, "exec is NULL");
    FAILS(xrt_graph_instantiate_with_flags(&x, (xrt_graph)f.s, XRT_GRAPH_INSTANTIATE_AUTO_FREE_ON_LAUNCH),
          XRT_ERROR_INVALID_HANDLE, "xrt_graph_instantiate_with_flags");
    assert_null(x);
    run_with_flags(&f, g, 0);
    expect_ints(&f, f.d, 3, "flags 0");
    OK(xrt_memset(f.d, 0, N * sizeof(int)));
    run_with_flags(&f, g, XRT_GRAPH_INSTANTIATE_AUTO_FREE_ON_LAUNCH | XRT_GRAPH_INSTANTIATE_USE_NODE_PRIORITY);
    expect_ints(&f, f.d, 3, "AUTO_FREE_ON_LAUNCH | USE_NODE_PRIORITY");
    OK(xrt_memset(f.d, 0, N * sizeof(int)));
    st = xrt_graph_instantiate_with_flags(&x, g, XRT_GRAPH_INSTANTIATE_DEVICE_LAUNCH);
    if (on_cpu()) {
        assert_int_equal(st, XRT_ERROR_UNSUPPORTED);
        assert_non_null(strstr(xrt_get_last_error_string(), "DEVICE_LAUNCH"));
        xrt_get_last_error();
        assert_null(x);
    } else { /* from the host too ("can be used to launch the graph from both the host and device") */
        OK(st);
        OK(xrt_graph_launch(x, f.s));
        OK(xrt_stream_synchronize(f.s));
        OK(xrt_graph_exec_destroy(x));
        expect_ints(&f, f.d, 3, "DEVICE_LAUNCH");
        OK(xrt_graph_create(&h, 0));
        assert_int_equal(xrt_graph_instantiate_with_flags(&x, h, XRT_GRAPH_INSTANTIATE_DEVICE_LAUNCH),
                         XRT_ERROR_INVALID_VALUE); /* "The graph cannot be empty" */
        OK(xrt_graph_add_host_node(&host, h, NULL, 0, &hp));
        assert_int_equal(xrt_graph_instantiate_with_flags(&x, h, XRT_GRAPH_INSTANTIATE_DEVICE_LAUNCH),
                         XRT_ERROR_INVALID_VALUE); /* kernel, memcpy, memset and child graph nodes only */
        xrt_get_last_error();
        assert_null(x);
        OK(xrt_graph_destroy(h));
    }
    OK(xrt_graph_destroy(g));
    fx_free(&f);
}

/* AUTO_FREE_ON_LAUNCH: a graph that leaves its allocation to the caller
   launches again without the caller's free, each launch freeing the
   previous launch's allocation first ("as though it called
   cudaMemFreeAsync for every unfreed allocation", cudaGraphAddMemAllocNode);
   one the caller freed (xrt_free_async, xrt_free) is not freed again; the
   last launch's is the caller's, freed once, also after its graph is gone. */
static void test_auto_free_on_launch(void **state)
{
    fixture f;
    xrt_graph g;
    xrt_graph_exec x;
    xrt_graph_node al, set;
    int *d, r;
    char what[32];
    (void)state;
    need_nodes();
    fx_make(&f);
    OK(xrt_graph_create(&g, 0));
    d = (int *)add_alloc(g, &al, NULL, 0, N * sizeof(int));
    add_set(g, &set, &al, 1, d, 6);
    OK(xrt_graph_instantiate_with_flags(&x, g, XRT_GRAPH_INSTANTIATE_AUTO_FREE_ON_LAUNCH));
    for (r = 0; r < 5; r++) {
        OK(xrt_graph_launch(x, f.s)); /* r > 0: frees d of the launch before unless the caller did */
        OK(xrt_stream_synchronize(f.s));
        snprintf(what, sizeof what, "launch %d", r);
        expect_ints(&f, d, 6, what);
        if (r == 1) OK(xrt_free_async(d, f.s));
        if (r == 2) OK(xrt_free(d));
    }
    OK(xrt_free(d)); /* the last launch's: the caller's */
    FAILS(xrt_free(d), XRT_ERROR_INVALID_VALUE, "graph"); /* once */
    OK(xrt_graph_launch(x, f.s));
    OK(xrt_graph_launch(x, f.s)); /* back to back: the second frees the first's */
    OK(xrt_stream_synchronize(f.s));
    expect_ints(&f, d, 6, "after two launches");
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    OK(xrt_free(d)); /* live when its graph went: the caller's */
    fx_free(&f);
}

/* The same for a captured graph that allocates (xrt_malloc_async in the
   capture, no free): the usual form of such a CUDA program. */
static void test_auto_free_captured(void **state)
{
    fixture f;
    xrt_graph g;
    xrt_graph_exec x;
    int *p = NULL, r;
    (void)state;
    need_nodes();
    fx_make(&f);
    OK(xrt_stream_begin_capture(f.s, XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_malloc_async((void **)&p, N * sizeof(int), f.s));
    OK(xrt_memset_async(p, 0, N * sizeof(int), f.s));
    OK(xrt_memcpy_async(p, f.d, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_DEVICE, f.s));
    OK(xrt_stream_end_capture(f.s, &g));
    OK(xrt_graph_instantiate_with_flags(&x, g, XRT_GRAPH_INSTANTIATE_AUTO_FREE_ON_LAUNCH));
    for (r = 0; r < 3; r++) {
        OK(xrt_memset(f.d, r + 1, N * sizeof(int)));
        OK(xrt_graph_launch(x, f.s));
        OK(xrt_stream_synchronize(f.s));
        expect_ints(&f, p, (r + 1) * 0x01010101, "a captured allocation");
    }
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    OK(xrt_free(p));
    fx_free(&f);
}

/* xrt_graph_upload (cudaGraphUpload): the exec is readied on a stream, and
   launches as before; bad handles refused. */
static void test_graph_upload(void **state)
{
    fixture f;
    xrt_graph g;
    xrt_graph_exec x;
    xrt_graph_node set;
    xrt_status st;
    (void)state;
    need_nodes();
    fx_make(&f);
    OK(xrt_graph_create(&g, 0));
    add_set(g, &set, NULL, 0, f.d, 8);
    OK(xrt_graph_instantiate(&x, g));
    st = xrt_graph_upload(x, f.s);
    if (st == XRT_ERROR_UNSUPPORTED) xrt_get_last_error(); /* HIP 5.2 has no hipGraphUpload */
    SKIP_UNLESS(st != XRT_ERROR_UNSUPPORTED, "the runtime has no graph upload");
    OK(st);
    OK(xrt_graph_upload(x, NULL)); /* the NULL stream */
    OK(xrt_graph_launch(x, f.s));
    OK(xrt_stream_synchronize(f.s));
    expect_ints(&f, f.d, 8, "after an upload");
    FAILS(xrt_graph_upload(NULL, f.s), XRT_ERROR_INVALID_VALUE, "xrt_graph_upload");
    FAILS(xrt_graph_upload(x, (xrt_stream)g), XRT_ERROR_INVALID_HANDLE, "xrt_graph_upload");
    FAILS(xrt_graph_upload((xrt_graph_exec)g, f.s), XRT_ERROR_INVALID_HANDLE, "xrt_graph_upload");
    OK(xrt_graph_exec_destroy(x));
    FAILS(xrt_graph_upload(x, f.s), XRT_ERROR_INVALID_HANDLE, "xrt_graph_upload"); /* destroyed */
    OK(xrt_graph_destroy(g));
    fx_free(&f);
}

/* >> user objects (cudaUserObjectCreate & co). A destroy may run on another
   thread after the last release returns (a GPU runtime's own thread): the
   tests wait for it, up to 10 s. */
static void uobj_destroy(void *user) { __atomic_add_fetch((int *)user, 1, __ATOMIC_RELEASE); }

static int uobj_gone(const int *destroyed, int want)
{
    int i;
    for (i = 0; i < 10000 && __atomic_load_n(destroyed, __ATOMIC_ACQUIRE) < want; i++) sleep_ms(1);
    return __atomic_load_n(destroyed, __ATOMIC_ACQUIRE);
}

/* A user object, or a skip where the backend has none. */
static void uobj_make(xrt_user_object *o, int *destroyed, unsigned refs)
{
    xrt_status st = xrt_user_object_create(o, destroyed, uobj_destroy, refs, XRT_USER_OBJECT_NO_DESTRUCTOR_SYNC);
    if (st == XRT_ERROR_UNSUPPORTED) xrt_get_last_error(); /* HIP 5.2 has no hipUserObjectCreate */
    SKIP_UNLESS(st != XRT_ERROR_UNSUPPORTED, "the runtime has no user objects");
    OK(st);
}

/* A graph's reference goes to its clone and its exec; the exec's stays
   while a launch of it is under way, and the destroy runs once, after the
   last. The handle is refused from then on. */
static void test_user_objects_follow_copies(void **state)
{
    fixture f;
    xrt_graph g, c;
    xrt_graph_exec x;
    xrt_graph_node set;
    xrt_user_object o;
    int destroyed = 0;
    (void)state;
    need_nodes();
    fx_make(&f);
    uobj_make(&o, &destroyed, 1);
    OK(xrt_user_object_retain(o, 2));
    OK(xrt_user_object_release(o, 2));
    OK(xrt_graph_create(&g, 0));
    add_set(g, &set, NULL, 0, f.d, 5);
    OK(xrt_graph_retain_user_object(g, o, 1, XRT_GRAPH_USER_OBJECT_MOVE)); /* the caller's one reference */
    OK(xrt_graph_clone(&c, g));
    OK(xrt_graph_instantiate(&x, c));
    OK(xrt_graph_destroy(g));
    OK(xrt_graph_destroy(c));
    assert_int_equal(__atomic_load_n(&destroyed, __ATOMIC_ACQUIRE), 0); /* the exec holds it */
    OK(xrt_launch_host_func(f.s, gate_wait, &gates[0]));
    OK(xrt_graph_launch(x, f.s));
    OK(xrt_graph_exec_destroy(x));
    gate_wait_entered(&gates[0]);
    sleep_ms(20);
    assert_int_equal(__atomic_load_n(&destroyed, __ATOMIC_ACQUIRE), 0); /* the launch under way holds it */
    gate_open(&gates[0]);
    OK(xrt_stream_synchronize(f.s));
    expect_ints(&f, f.d, 5, "the launch of a destroyed exec");
    assert_int_equal(uobj_gone(&destroyed, 1), 1);
    FAILS(xrt_user_object_retain(o, 1), XRT_ERROR_INVALID_HANDLE, "xrt_user_object_retain");
    FAILS(xrt_user_object_release(o, 1), XRT_ERROR_INVALID_HANDLE, "xrt_user_object_release");
    sleep_ms(20);
    assert_int_equal(__atomic_load_n(&destroyed, __ATOMIC_ACQUIRE), 1); /* once */
    fx_free(&f);
}

/* A child graph node's graph holds the child's references (its parent
   none of its own); an exec update swaps the exec's references for the new
   graph's; a graph gives back what it holds. */
static void test_user_objects_of_children_and_updates(void **state)
{
    fixture f;
    xrt_graph child, parent, g2;
    xrt_graph_exec x;
    xrt_graph_node set, node, set2;
    xrt_user_object a, b;
    int gone_a = 0, gone_b = 0;
    (void)state;
    need_nodes();
    fx_make(&f);
    uobj_make(&a, &gone_a, 1);
    uobj_make(&b, &gone_b, 1);
    OK(xrt_graph_create(&child, 0));
    add_set(child, &set, NULL, 0, f.d, 1);
    OK(xrt_graph_retain_user_object(child, a, 3, 0));
    OK(xrt_graph_release_user_object(child, a, 2)); /* it keeps one */
    OK(xrt_graph_create(&parent, 0));
    OK(xrt_graph_add_child_graph_node(&node, parent, NULL, 0, child));
    OK(xrt_graph_destroy(child));
    OK(xrt_user_object_release(a, 1)); /* the parent's child holds it now */
    OK(xrt_graph_instantiate(&x, parent));
    OK(xrt_graph_destroy(parent));
    assert_int_equal(__atomic_load_n(&gone_a, __ATOMIC_ACQUIRE), 0);
    /* the same shape holding b: the update leaves a to no one */
    OK(xrt_graph_create(&child, 0));
    add_set(child, &set2, NULL, 0, f.d, 2);
    OK(xrt_graph_create(&g2, 0));
    OK(xrt_graph_add_child_graph_node(&node, g2, NULL, 0, child));
    OK(xrt_graph_destroy(child));
    OK(xrt_graph_retain_user_object(g2, b, 1, XRT_GRAPH_USER_OBJECT_MOVE));
    OK(xrt_graph_exec_update(x, g2));
    assert_int_equal(uobj_gone(&gone_a, 1), 1);
    OK(xrt_graph_destroy(g2));
    OK(xrt_graph_launch(x, f.s));
    OK(xrt_stream_synchronize(f.s));
    expect_ints(&f, f.d, 2, "the updated exec");
    assert_int_equal(__atomic_load_n(&gone_b, __ATOMIC_ACQUIRE), 0); /* the exec holds b */
    OK(xrt_graph_exec_destroy(x));
    assert_int_equal(uobj_gone(&gone_b, 1), 1);
    fx_free(&f);
}

static void test_user_objects_bad(void **state)
{
    xrt_user_object o, stale;
    xrt_graph g;
    int destroyed = 0, other = 0;
    (void)state;
    need_nodes();
    uobj_make(&o, &destroyed, 1);
    FAILS(xrt_user_object_create(NULL, &other, uobj_destroy, 1, XRT_USER_OBJECT_NO_DESTRUCTOR_SYNC),
          XRT_ERROR_INVALID_VALUE, "object is NULL");
    FAILS(xrt_user_object_create(&stale, &other, NULL, 1, XRT_USER_OBJECT_NO_DESTRUCTOR_SYNC),
          XRT_ERROR_INVALID_VALUE, "destroy is NULL");
    assert_null(stale);
    FAILS(xrt_user_object_create(&stale, &other, uobj_destroy, 0, XRT_USER_OBJECT_NO_DESTRUCTOR_SYNC),
          XRT_ERROR_INVALID_VALUE, "count 0 is not 1 .. INT_MAX");
    FAILS(xrt_user_object_create(&stale, &other, uobj_destroy, 1, 0), XRT_ERROR_INVALID_VALUE,
          "must be XRT_USER_OBJECT_NO_DESTRUCTOR_SYNC");
    FAILS(xrt_user_object_create(&stale, &other, uobj_destroy, 1, 3), XRT_ERROR_INVALID_VALUE, "flags 0x3");
    FAILS(xrt_user_object_retain(o, 0), XRT_ERROR_INVALID_VALUE, "count 0");
    FAILS(xrt_user_object_retain(o, (unsigned)INT_MAX + 1), XRT_ERROR_INVALID_VALUE, "not 1 .. INT_MAX");
    FAILS(xrt_user_object_release(o, 0), XRT_ERROR_INVALID_VALUE, "count 0");
    FAILS(xrt_user_object_retain(NULL, 1), XRT_ERROR_INVALID_VALUE, "the user object handle is NULL");
    OK(xrt_graph_create(&g, 0));
    FAILS(xrt_user_object_retain((xrt_user_object)g, 1), XRT_ERROR_INVALID_HANDLE, "xrt_user_object_retain");
    FAILS(xrt_graph_retain_user_object((xrt_graph)o, o, 1, 0), XRT_ERROR_INVALID_HANDLE,
          "xrt_graph_retain_user_object");
    FAILS(xrt_graph_retain_user_object(g, o, 1, 2), XRT_ERROR_INVALID_VALUE, "unknown flags 0x2");
    FAILS(xrt_graph_retain_user_object(g, o, 0, 0), XRT_ERROR_INVALID_VALUE, "count 0");
    FAILS(xrt_graph_release_user_object(g, NULL, 1), XRT_ERROR_INVALID_VALUE, "the user object handle is NULL");
    FAILS(xrt_graph_release_user_object(NULL, o, 1), XRT_ERROR_INVALID_VALUE, "the graph, exec or node handle is NULL");
    if (on_cpu_backend()) { /* CUDA leaves these undefined; the CPU backend refuses them */
        FAILS(xrt_graph_release_user_object(g, o, 1), XRT_ERROR_INVALID_VALUE, "holds 0 references");
        FAILS(xrt_user_object_release(o, 2), XRT_ERROR_INVALID_VALUE, "2 references released of the 1");
    }
    assert_int_equal(__atomic_load_n(&destroyed, __ATOMIC_ACQUIRE), 0);
    OK(xrt_user_object_release(o, 1));
    assert_int_equal(uobj_gone(&destroyed, 1), 1);
    FAILS(xrt_graph_retain_user_object(g, o, 1, 0), XRT_ERROR_INVALID_HANDLE, "xrt_graph_retain_user_object");
    OK(xrt_graph_destroy(g));
    assert_int_equal(other, 0); /* refused creates run nothing */
}

static void test_mem_nodes_bad(void **state)
{
    fixture f;
    xrt_graph g, other, empty, own;
    xrt_graph_node al, fr, n0 = NULL, al_o, child;
    xrt_graph_node_params p;
    void *d, *od;
    size_t count = 0;
    (void)state;
    need_nodes();
    fx_make(&f);
    OK(xrt_graph_create(&g, 0));
    d = add_alloc(g, &al, NULL, 0, 256);
    FAILS(add_free(g, &n0, &al, 1, f.d), XRT_ERROR_INVALID_VALUE, "not allocated by an allocation node of this graph");
    FAILS(add_free(g, &n0, &al, 1, NULL), XRT_ERROR_INVALID_VALUE, "ptr is NULL");
    OK(add_free(g, &fr, &al, 1, d));
    FAILS(add_free(g, &n0, &fr, 1, d), XRT_ERROR_INVALID_VALUE, "freed already");
    OK(xrt_graph_create(&other, 0));
    od = add_alloc(other, &al_o, NULL, 0, 64);
    { /* another graph's allocation that it leaves to the caller: CUDA's rule (test_free_in_another_graph) */
        xrt_graph_node other_free;
        OK(add_free(g, &other_free, &fr, 1, od));
        FAILS(add_free(g, &n0, &fr, 1, od), XRT_ERROR_INVALID_VALUE, "freed already");
    }
    assert_null(n0);
    memset(&p, 0, sizeof p);
    p.type = XRT_GRAPH_NODE_MEM_ALLOC;
    OK(xrt_get_device(&p.alloc.device));
    FAILS(xrt_graph_add_node(&n0, g, NULL, 0, &p), XRT_ERROR_INVALID_VALUE, "size is 0");
    p.alloc.size = 64;
    p.alloc.device = 999;
    FAILS(xrt_graph_add_node(&n0, g, NULL, 0, &p), XRT_ERROR_INVALID_DEVICE, "device 999");
    p.alloc.device = -1;
    FAILS(xrt_graph_add_node(&n0, g, NULL, 0, &p), XRT_ERROR_INVALID_DEVICE, "device -1");
    assert_null(p.alloc.ptr);
    /* not in a child graph, and a graph with memory nodes is no child */
    if (on_cpu())
        FAILS(xrt_graph_add_child_graph_node(&n0, g, NULL, 0, other), XRT_ERROR_INVALID_VALUE, "memory nodes");
    else
        assert_int_equal(xrt_graph_add_child_graph_node(&n0, g, NULL, 0, other), XRT_ERROR_INVALID_VALUE);
    OK(xrt_graph_create(&empty, 0));
    OK(xrt_graph_add_child_graph_node(&child, g, NULL, 0, empty));
    OK(xrt_graph_destroy(empty));
    OK(xrt_graph_node_get_params(child, &p));
    own = p.child.graph;
    memset(&p, 0, sizeof p);
    p.type = XRT_GRAPH_NODE_MEM_ALLOC;
    OK(xrt_get_device(&p.alloc.device));
    p.alloc.size = 64;
    FAILS(xrt_graph_add_node(&n0, own, NULL, 0, &p), XRT_ERROR_INVALID_VALUE, "child");
    FAILS(add_free(own, &n0, NULL, 0, d), XRT_ERROR_INVALID_VALUE, "child");
    /* a memory node's params are never set, as in CUDA */
    OK(xrt_graph_node_get_params(al, &p));
    FAILS(xrt_graph_node_set_params(al, &p), XRT_ERROR_INVALID_VALUE, "cannot be set");
    assert_null(n0);
    /* a graph with memory nodes keeps its nodes and edges (CUDA's rule) */
    keeps_nodes_and_edges(g, al, fr);
    OK(xrt_graph_get_nodes(g, NULL, &count));
    assert_int_equal(count, 4); /* al, fr, the free of other's allocation, child */
    OK(xrt_graph_destroy(other));
    OK(xrt_graph_destroy(g));
    fx_free(&f);
}

/* >> bad input: each refused with its status, nothing made */
static void test_bad_input(void **state)
{
    xrt_graph g;
    xrt_graph_node a, n0 = NULL;
    xrt_graph_node_params p;
    xrt_memset_node_params ms = {NULL, 0, 1, 3, 4, 1};
    size_t n = 1;
    (void)state;
    need_nodes();
    FAILS(xrt_graph_create(NULL, 0), XRT_ERROR_INVALID_VALUE, "graph is NULL");
    FAILS(xrt_graph_create(&g, 1), XRT_ERROR_INVALID_VALUE, "flags");
    assert_null(g);
    OK(xrt_graph_create(&g, 0));
    add_log(g, &a, NULL, 0, 1);
    FAILS(xrt_graph_add_empty_node(NULL, g, NULL, 0), XRT_ERROR_INVALID_VALUE, "node is NULL");
    FAILS(xrt_graph_add_empty_node(&n0, g, NULL, 2), XRT_ERROR_INVALID_VALUE, "deps is NULL");
    FAILS(xrt_graph_add_empty_node(&n0, g, (xrt_graph_node[]){a, a}, 2), XRT_ERROR_INVALID_VALUE, "same node");
    { /* a count whose array of objects would wrap to 8 bytes: refused before deps is read */
        xrt_graph_node two[3] = {a, a, NULL};
        size_t wraps = SIZE_MAX / sizeof(void *) + 2;
        xrt_memcpy_3d_parms cp;
        memset(&cp, 0, sizeof cp);
        FAILS(xrt_graph_add_empty_node(&n0, g, two, wraps), XRT_ERROR_OUT_OF_MEMORY, "dependencies");
        FAILS(xrt_graph_add_memcpy_node(&n0, g, two, wraps, &cp), XRT_ERROR_OUT_OF_MEMORY, "dependencies");
    }
    FAILS(xrt_graph_add_host_node(&n0, g, NULL, 0, NULL), XRT_ERROR_INVALID_VALUE, "params is NULL");
    FAILS(xrt_graph_add_host_node(&n0, g, NULL, 0, &(xrt_host_node_params){NULL, NULL}), XRT_ERROR_INVALID_VALUE,
          "host function is NULL");
    FAILS(xrt_graph_add_memset_node(&n0, g, NULL, 0, &ms), XRT_ERROR_INVALID_VALUE, "element_size 3");
    FAILS(xrt_graph_add_empty_node(&n0, (xrt_graph)a, NULL, 0), XRT_ERROR_INVALID_HANDLE, "graph node handle");
    FAILS(xrt_graph_add_node(&n0, g, NULL, 0, NULL), XRT_ERROR_INVALID_VALUE, "params is NULL");
    memset(&p, 0, sizeof p);
    p.type = (xrt_graph_node_type)8; /* an external semaphore: no such node here */
    FAILS(xrt_graph_add_node(&n0, g, NULL, 0, &p), XRT_ERROR_INVALID_VALUE, "unknown node type 8");
    assert_null(n0);
    FAILS(xrt_graph_get_nodes(g, NULL, NULL), XRT_ERROR_INVALID_VALUE, "count is NULL");
    FAILS(xrt_graph_get_edges(g, &n0, NULL, &n), XRT_ERROR_INVALID_VALUE, "give both");
    FAILS(xrt_graph_node_get_params(a, NULL), XRT_ERROR_INVALID_VALUE, "params is NULL");
    FAILS(xrt_graph_node_get_type(NULL, (xrt_graph_node_type *)&n), XRT_ERROR_INVALID_VALUE, "node handle is NULL");
    FAILS(xrt_graph_exec_node_set_params(NULL, a, &p), XRT_ERROR_INVALID_VALUE, "exec or node handle is NULL");
    FAILS(xrt_graph_clone(NULL, g), XRT_ERROR_INVALID_VALUE, "clone is NULL");
    FAILS(xrt_graph_node_find_in_clone(NULL, a, g), XRT_ERROR_INVALID_VALUE, "node is NULL");
    FAILS(xrt_graph_destroy_node((xrt_graph_node)g), XRT_ERROR_INVALID_HANDLE, "graph handle");
    OK(xrt_graph_destroy(g));
}

/* >> launch attributes (cudaLaunchKernelEx, cudaGraphKernelNode*Attribute) */
static xrt_launch_attribute attr_of(xrt_launch_attr id)
{
    xrt_launch_attribute a;
    memset(&a, 0, sizeof a);
    a.id = id;
    return a;
}

static xrt_launch_config config_of(xrt_stream s, xrt_launch_attribute *attrs, unsigned n)
{
    xrt_launch_config c;
    memset(&c, 0, sizeof c);
    c.grid.x = N / 64, c.block.x = 64;
    c.grid.y = c.grid.z = c.block.y = c.block.z = 1;
    c.stream = s, c.attrs = attrs, c.num_attrs = n;
    return c;
}

/* Launches with attributes run as plain ones, in stream order (d += 3 then
   d *= 2); one captured makes a kernel node that has them. */
static void test_launch_kernel_ex(void **state)
{
    fixture f;
    xrt_launch_attribute a[6];
    xrt_launch_config c;
    xrt_launch_attr_value v;
    arg_t add = {NULL, 3, N}, mul = {NULL, 2, N};
    xrt_graph g;
    xrt_graph_node nodes[1];
    size_t n = 1;
    int i;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_MODULES, "the backend loads no modules");
    fx_make(&f);
    add.p = mul.p = f.d;
    a[0] = attr_of(XRT_LAUNCH_ATTR_PRIORITY), a[0].val.priority = -1;
    a[1] = attr_of(XRT_LAUNCH_ATTR_MEM_SYNC_DOMAIN), a[1].val.mem_sync_domain = 1;
    a[2] = attr_of(XRT_LAUNCH_ATTR_ACCESS_POLICY_WINDOW);
    a[2].val.access_policy_window.base_ptr = f.d, a[2].val.access_policy_window.num_bytes = N * sizeof(int);
    a[2].val.access_policy_window.hit_ratio = 0.5f;
    a[2].val.access_policy_window.hit_prop = XRT_ACCESS_PROPERTY_PERSISTING;
    a[3] = attr_of(XRT_LAUNCH_ATTR_PROGRAMMATIC_STREAM_SERIALIZATION);
    a[3].val.programmatic_stream_serialization_allowed = 1;
    a[4] = attr_of(XRT_LAUNCH_ATTR_IGNORE), a[4].val.cooperative = 1; /* skipped: not a cooperative launch */
    a[5] = attr_of(XRT_LAUNCH_ATTR_CLUSTER_SCHEDULING_POLICY_PREFERENCE);
    a[5].val.cluster_scheduling_policy_preference = 1;
    fill(f.h, 0);
    OK(xrt_memcpy_async(f.d, f.h, N * sizeof(int), XRT_MEMCPY_HOST_TO_DEVICE, f.s));
    c = config_of(f.s, a, 6);
    OK(xrt_launch_kernel_ex(&c, f.add, &add, sizeof add));
    c.num_attrs = 0; /* xrt_launch_kernel */
    OK(xrt_launch_kernel_ex(&c, f.mul, &mul, sizeof mul));
    OK(xrt_memcpy_async(f.h, f.d, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST, f.s));
    OK(xrt_stream_synchronize(f.s));
    for (i = 0; i < N; i++)
        if (f.h[i] != (i + 3) * 2) fail_msg("d[%d] = %d, not %d", i, f.h[i], (i + 3) * 2);
    c.stream = NULL, c.num_attrs = 6; /* the legacy NULL stream: after f.s's work (a blocking stream) */
    OK(xrt_launch_kernel_ex(&c, f.add, &add, sizeof add));
    OK(xrt_stream_synchronize(NULL));
    OK(xrt_memcpy(f.h, f.d, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST));
    assert_int_equal(f.h[N - 1], (N - 1 + 3) * 2 + 3);
    c.stream = f.s;

    OK(xrt_stream_begin_capture(f.s, XRT_CAPTURE_MODE_THREAD_LOCAL));
    c.num_attrs = 3;
    OK(xrt_launch_kernel_ex(&c, f.add, &add, sizeof add));
    OK(xrt_stream_end_capture(f.s, &g));
    OK(xrt_graph_get_nodes(g, nodes, &n));
    assert_int_equal(n, 1);
    OK(xrt_graph_kernel_node_get_attribute(nodes[0], XRT_LAUNCH_ATTR_PRIORITY, &v));
    assert_int_equal(v.priority, -1);
    OK(xrt_graph_kernel_node_get_attribute(nodes[0], XRT_LAUNCH_ATTR_MEM_SYNC_DOMAIN, &v));
    assert_int_equal(v.mem_sync_domain, 1);
    OK(xrt_graph_kernel_node_get_attribute(nodes[0], XRT_LAUNCH_ATTR_ACCESS_POLICY_WINDOW, &v));
    assert_true(v.access_policy_window.base_ptr == f.d && v.access_policy_window.num_bytes == N * sizeof(int) &&
                v.access_policy_window.hit_prop == XRT_ACCESS_PROPERTY_PERSISTING);
    OK(xrt_graph_destroy(g));
    fx_free(&f);
}

/* A cluster must divide the grid; a cooperative launch has no grid-wide
   barrier on the CPU backend. */
static void test_launch_kernel_ex_clusters(void **state)
{
    fixture f;
    xrt_launch_attribute a[1];
    xrt_launch_config c;
    arg_t add = {NULL, 1, N};
    xrt_status st;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_MODULES, "the backend loads no modules");
    fx_make(&f);
    add.p = f.d;
    OK(xrt_memset(f.d, 0, N * sizeof(int)));
    a[0] = attr_of(XRT_LAUNCH_ATTR_CLUSTER_DIMENSION);
    a[0].val.cluster_dim.x = 2, a[0].val.cluster_dim.y = a[0].val.cluster_dim.z = 1;
    c = config_of(f.s, a, 1); /* a grid of 16: 8 clusters of 2 */
    OK(xrt_launch_kernel_ex(&c, f.add, &add, sizeof add));
    a[0].val.cluster_dim.x = 3;
    st = xrt_launch_kernel_ex(&c, f.add, &add, sizeof add);
    if (on_cpu()) XRT_ASSERT_FAILS(st, XRT_ERROR_INVALID_VALUE, "no whole number of clusters (3, 1, 1)");
    else if (st == XRT_SUCCESS) fail_msg("a grid of 16 in clusters of 3 launched");
    a[0] = attr_of(XRT_LAUNCH_ATTR_COOPERATIVE), a[0].val.cooperative = 1;
    st = xrt_launch_kernel_ex(&c, f.add, &add, sizeof add);
    if (on_cpu()) XRT_ASSERT_FAILS(st, XRT_ERROR_UNSUPPORTED, "no grid-wide barrier");
    else OK(st); /* 16 blocks are co-resident on any GPU that launches cooperatively */
    a[0].val.cooperative = 0;
    OK(xrt_launch_kernel_ex(&c, f.add, &add, sizeof add));
    OK(xrt_memcpy(f.h, f.d, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST));
    assert_int_equal(f.h[0], on_cpu() ? 2 : 3);
    fx_free(&f);
}

/* The event attributes: the launch records the event (made with
   DISABLE_TIMING, not INTERPROCESS) on its stream; it completes by the
   kernel's end at the latest. An event with timing, or one destroyed, is
   refused; so are flags. */
static void test_launch_events(void **state)
{
    fixture f;
    xrt_launch_attribute a[2];
    xrt_launch_config c;
    arg_t add = {NULL, 2, N};
    xrt_event done, begun, timed, gone;
    xrt_status st;
    (void)state;
    SKIP_UNLESS(caps() & XRT_CAP_MODULES, "the backend loads no modules");
    fx_make(&f);
    add.p = f.d;
    OK(xrt_memset(f.d, 0, N * sizeof(int)));
    OK(xrt_event_create(&done, XRT_EVENT_DISABLE_TIMING));
    OK(xrt_event_create(&begun, XRT_EVENT_DISABLE_TIMING));
    OK(xrt_event_create(&timed, XRT_EVENT_DEFAULT));
    OK(xrt_event_create(&gone, XRT_EVENT_DISABLE_TIMING));
    OK(xrt_event_destroy(gone));
    a[0] = attr_of(XRT_LAUNCH_ATTR_LAUNCH_COMPLETION_EVENT), a[0].val.launch_completion_event.event = done;
    a[1] = attr_of(XRT_LAUNCH_ATTR_PROGRAMMATIC_EVENT), a[1].val.programmatic_event.event = begun;
    a[1].val.programmatic_event.trigger_at_block_start = 1;
    c = config_of(f.s, a, 2);
    __atomic_store_n(&gate_open_flag, 0, __ATOMIC_RELEASE);
    if (caps() & XRT_CAP_HOST_FUNC) OK(xrt_launch_host_func(f.s, gate_fn, NULL)); /* the kernel waits behind it */
    OK(xrt_launch_kernel_ex(&c, f.add, &add, sizeof add));
    if (caps() & XRT_CAP_HOST_FUNC) { /* the launch recorded them: pending */
        assert_int_equal(xrt_event_query(done), XRT_ERROR_NOT_READY);
        assert_int_equal(xrt_event_query(begun), XRT_ERROR_NOT_READY);
    }
    __atomic_store_n(&gate_open_flag, 1, __ATOMIC_RELEASE);
    OK(xrt_event_synchronize(done));
    OK(xrt_event_synchronize(begun));
    OK(xrt_stream_synchronize(f.s));
    OK(xrt_event_query(done));
    OK(xrt_memcpy(f.h, f.d, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST));
    assert_int_equal(f.h[N - 1], 2);
    a[0].val.launch_completion_event.event = gone;
    FAILS(xrt_launch_kernel_ex(&c, f.add, &add, sizeof add), XRT_ERROR_INVALID_HANDLE, "xrt_launch_kernel_ex");
    a[0].val.launch_completion_event.event = timed;
    st = xrt_launch_kernel_ex(&c, f.add, &add, sizeof add);
    if (on_cpu()) XRT_ASSERT_FAILS(st, XRT_ERROR_INVALID_VALUE, "must be made with XRT_EVENT_DISABLE_TIMING");
    else if (st == XRT_SUCCESS) fail_msg("a launch completion event with timing was taken");
    OK(xrt_stream_synchronize(f.s));
    OK(xrt_memcpy(f.h, f.d, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST));
    assert_int_equal(f.h[0], 2); /* neither refused launch ran */
    OK(xrt_event_destroy(done));
    OK(xrt_event_destroy(begun));
    OK(xrt_event_destroy(timed));
    fx_free(&f);
}

/* Every refusal of xrt_launch_kernel_ex's arguments comes before the
   function is looked at: also on a backend without modules. */
static void test_launch_kernel_ex_bad(void **state)
{
    xrt_launch_attribute a[2];
    xrt_launch_config c = config_of(NULL, a, 1);
    int arg = 0;
    (void)state;
    a[0] = attr_of((xrt_launch_attr)3);
    a[1] = attr_of(XRT_LAUNCH_ATTR_PRIORITY);
    FAILS(xrt_launch_kernel_ex(NULL, NULL, NULL, 0), XRT_ERROR_INVALID_VALUE, "config is NULL");
    c.attrs = NULL;
    FAILS(xrt_launch_kernel_ex(&c, NULL, NULL, 0), XRT_ERROR_INVALID_VALUE, "attrs is NULL but num_attrs is 1");
    c.attrs = a;
    FAILS(xrt_launch_kernel_ex(&c, NULL, NULL, 0), XRT_ERROR_INVALID_VALUE, "attrs[0]: attribute 3 (synchronization "
                                                                           "policy) is a stream's");
    a[0].id = XRT_LAUNCH_ATTR_LAUNCH_COMPLETION_EVENT, a[0].val.launch_completion_event.flags = 1;
    FAILS(xrt_launch_kernel_ex(&c, NULL, NULL, 0), XRT_ERROR_INVALID_VALUE, "attrs[0]: the event's record flags 0x1");
    a[0].id = XRT_LAUNCH_ATTR_PROGRAMMATIC_EVENT;
    FAILS(xrt_launch_kernel_ex(&c, NULL, NULL, 0), XRT_ERROR_INVALID_VALUE, "attrs[0]: the event's record flags 0x1");
    a[0].id = (xrt_launch_attr)11;
    FAILS(xrt_launch_kernel_ex(&c, NULL, NULL, 0), XRT_ERROR_UNSUPPORTED, "attribute 11 (preferred cluster dimension)");
    a[0].id = (xrt_launch_attr)99;
    FAILS(xrt_launch_kernel_ex(&c, NULL, NULL, 0), XRT_ERROR_INVALID_VALUE, "attribute 99 is none of");
    a[0] = attr_of(XRT_LAUNCH_ATTR_CLUSTER_DIMENSION), a[0].val.cluster_dim.x = 2;
    FAILS(xrt_launch_kernel_ex(&c, NULL, NULL, 0), XRT_ERROR_INVALID_VALUE, "cluster (2, 0, 0): all 0");
    a[0] = attr_of(XRT_LAUNCH_ATTR_CLUSTER_SCHEDULING_POLICY_PREFERENCE);
    a[0].val.cluster_scheduling_policy_preference = 3;
    FAILS(xrt_launch_kernel_ex(&c, NULL, NULL, 0), XRT_ERROR_INVALID_VALUE, "preference 3 is none of");
    a[0] = attr_of(XRT_LAUNCH_ATTR_ACCESS_POLICY_WINDOW), a[0].val.access_policy_window.hit_ratio = 2.0f;
    FAILS(xrt_launch_kernel_ex(&c, NULL, NULL, 0), XRT_ERROR_INVALID_VALUE, "hit_ratio 2");
    a[0] = attr_of(XRT_LAUNCH_ATTR_MEM_SYNC_DOMAIN), a[0].val.mem_sync_domain = 2;
    FAILS(xrt_launch_kernel_ex(&c, NULL, NULL, 0), XRT_ERROR_INVALID_VALUE, "mem_sync_domain 2");
    c.num_attrs = 2; /* the second entry is checked too */
    a[0] = attr_of(XRT_LAUNCH_ATTR_IGNORE), a[1].id = (xrt_launch_attr)14;
    FAILS(xrt_launch_kernel_ex(&c, NULL, NULL, 0), XRT_ERROR_UNSUPPORTED, "attrs[1]: CUDA's launch attribute 14");
    a[1].id = XRT_LAUNCH_ATTR_PRIORITY;
    FAILS(xrt_launch_kernel_ex(&c, NULL, NULL, 0), XRT_ERROR_INVALID_HANDLE, "handle (nil) is NULL");
    FAILS(xrt_launch_kernel_ex(&c, (xrt_function)(void *)&arg, NULL, 4), XRT_ERROR_INVALID_HANDLE, "never created");
    c.num_attrs = 0; /* as xrt_launch_kernel */
    FAILS(xrt_launch_kernel_ex(&c, NULL, NULL, 0), XRT_ERROR_INVALID_HANDLE, "handle (nil) is NULL");
}

/* A kernel node's attributes: zeros until set, kept through a clone, new
   params and an exec (which runs the node), given to another node by a
   copy. */
static void test_kernel_node_attributes(void **state)
{
    fixture f;
    xrt_graph g, clone;
    xrt_graph_node k1, k2, k1c;
    xrt_graph_node_params p;
    xrt_graph_exec x;
    xrt_launch_attr_value v, got;
    xrt_status st;
    int i;
    (void)state;
    need_nodes();
    SKIP_UNLESS(caps() & XRT_CAP_MODULES, "the backend loads no modules");
    fx_make(&f);
    OK(xrt_graph_create(&g, 0));
    add_step(&f, g, &k1, NULL, 0, f.add, f.d, 5, NULL);
    add_step(&f, g, &k2, &k1, 1, f.mul, f.d, 3, NULL);
    st = xrt_graph_kernel_node_get_attribute(k1, XRT_LAUNCH_ATTR_PRIORITY, &got);
    if (st == XRT_ERROR_UNSUPPORTED) {
        xrt_get_last_error();
        OK(xrt_graph_destroy(g));
        fx_free(&f);
        SKIP_UNLESS(0, "the runtime has no kernel node attributes");
    }
    OK(st);
    assert_int_equal(got.priority, 0);
    memset(&v, 0, sizeof v);
    v.priority = -2;
    OK(xrt_graph_kernel_node_set_attribute(k1, XRT_LAUNCH_ATTR_PRIORITY, &v));
    v.mem_sync_domain = 1;
    OK(xrt_graph_kernel_node_set_attribute(k1, XRT_LAUNCH_ATTR_MEM_SYNC_DOMAIN, &v));
    memset(&v, 0, sizeof v);
    v.cluster_dim.x = 4, v.cluster_dim.y = v.cluster_dim.z = 1;
    OK(xrt_graph_kernel_node_set_attribute(k1, XRT_LAUNCH_ATTR_CLUSTER_DIMENSION, &v));
    OK(xrt_graph_kernel_node_get_attribute(k1, XRT_LAUNCH_ATTR_PRIORITY, &got));
    assert_int_equal(got.priority, -2);
    OK(xrt_graph_kernel_node_get_attribute(k1, XRT_LAUNCH_ATTR_CLUSTER_DIMENSION, &got));
    assert_true(got.cluster_dim.x == 4 && got.cluster_dim.y == 1 && got.cluster_dim.z == 1);

    OK(xrt_graph_node_get_params(k1, &p)); /* new params: the attributes stay */
    OK(xrt_graph_node_set_params(k1, &p));
    OK(xrt_graph_kernel_node_get_attribute(k1, XRT_LAUNCH_ATTR_MEM_SYNC_DOMAIN, &got));
    assert_int_equal(got.mem_sync_domain, 1);
    OK(xrt_graph_clone(&clone, g));
    OK(xrt_graph_node_find_in_clone(&k1c, k1, clone));
    OK(xrt_graph_kernel_node_get_attribute(k1c, XRT_LAUNCH_ATTR_PRIORITY, &got));
    assert_int_equal(got.priority, -2);
    OK(xrt_graph_kernel_node_get_attribute(k2, XRT_LAUNCH_ATTR_PRIORITY, &got));
    assert_int_equal(got.priority, 0);
    OK(xrt_graph_kernel_node_copy_attributes(k2, k1c)); /* across graphs */
    OK(xrt_graph_kernel_node_get_attribute(k2, XRT_LAUNCH_ATTR_PRIORITY, &got));
    assert_int_equal(got.priority, -2);
    OK(xrt_graph_kernel_node_get_attribute(k2, XRT_LAUNCH_ATTR_MEM_SYNC_DOMAIN, &got));
    assert_int_equal(got.mem_sync_domain, 1);
    OK(xrt_graph_destroy(clone));

    fill(f.h, 0);
    OK(xrt_memcpy(f.d, f.h, N * sizeof(int), XRT_MEMCPY_HOST_TO_DEVICE));
    OK(xrt_graph_instantiate(&x, g));
    OK(xrt_graph_launch(x, f.s));
    OK(xrt_memcpy_async(f.h, f.d, N * sizeof(int), XRT_MEMCPY_DEVICE_TO_HOST, f.s));
    OK(xrt_stream_synchronize(f.s));
    for (i = 0; i < N; i++)
        if (f.h[i] != (i + 5) * 3) fail_msg("d[%d] = %d, not %d", i, f.h[i], (i + 5) * 3);
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    fx_free(&f);
}

static void test_kernel_node_attributes_bad(void **state)
{
    fixture f;
    xrt_graph g;
    xrt_graph_node k, e;
    xrt_launch_attr_value v;
    xrt_status st;
    (void)state;
    need_nodes();
    SKIP_UNLESS(caps() & XRT_CAP_MODULES, "the backend loads no modules");
    fx_make(&f);
    OK(xrt_graph_create(&g, 0));
    add_step(&f, g, &k, NULL, 0, f.add, f.d, 5, NULL);
    OK(xrt_graph_add_empty_node(&e, g, NULL, 0));
    memset(&v, 0, sizeof v);
    st = xrt_graph_kernel_node_set_attribute(k, XRT_LAUNCH_ATTR_PRIORITY, &v);
    if (st == XRT_ERROR_UNSUPPORTED) xrt_get_last_error();
    if (st == XRT_SUCCESS) {
        FAILS(xrt_graph_kernel_node_set_attribute(e, XRT_LAUNCH_ATTR_PRIORITY, &v), XRT_ERROR_INVALID_VALUE,
              "is no kernel node (its type is 5)");
        FAILS(xrt_graph_kernel_node_get_attribute(e, XRT_LAUNCH_ATTR_PRIORITY, &v), XRT_ERROR_INVALID_VALUE,
              "is no kernel node");
        FAILS(xrt_graph_kernel_node_copy_attributes(k, e), XRT_ERROR_INVALID_VALUE, "is no kernel node");
        v.cluster_dim.x = 3, v.cluster_dim.y = v.cluster_dim.z = 1; /* a grid of 16 */
        st = xrt_graph_kernel_node_set_attribute(k, XRT_LAUNCH_ATTR_CLUSTER_DIMENSION, &v);
        if (on_cpu()) XRT_ASSERT_FAILS(st, XRT_ERROR_INVALID_VALUE, "no whole number of clusters");
        else if (st != XRT_SUCCESS) xrt_get_last_error(); /* the runtime may check it at the launch */
        memset(&v, 0, sizeof v);
        v.cooperative = 1;
        st = xrt_graph_kernel_node_set_attribute(k, XRT_LAUNCH_ATTR_COOPERATIVE, &v);
        if (on_cpu()) XRT_ASSERT_FAILS(st, XRT_ERROR_UNSUPPORTED, "no grid-wide barrier");
        else OK(st);
    }
    FAILS(xrt_graph_kernel_node_set_attribute(k, XRT_LAUNCH_ATTR_PROGRAMMATIC_STREAM_SERIALIZATION, &v),
          XRT_ERROR_INVALID_VALUE, "is a launch's, not a node's");
    FAILS(xrt_graph_kernel_node_get_attribute(k, XRT_LAUNCH_ATTR_LAUNCH_COMPLETION_EVENT, &v),
          XRT_ERROR_INVALID_VALUE, "attribute 12 (an event) is a launch's, not a node's");
    FAILS(xrt_graph_kernel_node_get_attribute(k, (xrt_launch_attr)3, &v), XRT_ERROR_INVALID_VALUE, "is a stream's");
    FAILS(xrt_graph_kernel_node_get_attribute(k, XRT_LAUNCH_ATTR_IGNORE, &v), XRT_ERROR_INVALID_VALUE,
          "attribute 0 is none of");
    FAILS(xrt_graph_kernel_node_set_attribute(k, (xrt_launch_attr)13, &v), XRT_ERROR_UNSUPPORTED,
          "device-updatable kernel node");
    FAILS(xrt_graph_kernel_node_set_attribute(k, XRT_LAUNCH_ATTR_PRIORITY, NULL), XRT_ERROR_INVALID_VALUE,
          "value is NULL");
    FAILS(xrt_graph_kernel_node_get_attribute(k, XRT_LAUNCH_ATTR_PRIORITY, NULL), XRT_ERROR_INVALID_VALUE,
          "value is NULL");
    FAILS(xrt_graph_kernel_node_get_attribute(NULL, XRT_LAUNCH_ATTR_PRIORITY, &v), XRT_ERROR_INVALID_VALUE,
          "node handle is NULL");
    FAILS(xrt_graph_kernel_node_copy_attributes((xrt_graph_node)g, k), XRT_ERROR_INVALID_HANDLE, "graph handle");
    OK(xrt_graph_destroy(g));
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_built_pipeline),
        cmocka_unit_test(test_dependencies),
        cmocka_unit_test(test_diamond_of_sets),
        cmocka_unit_test(test_node_params),
        cmocka_unit_test(test_node_read_only_dst),
        cmocka_unit_test(test_memset_node_one_row_pitch_unused),
        cmocka_unit_test(test_clone_and_destroy),
        cmocka_unit_test(test_find_in_clone_of_later_node),
        cmocka_unit_test(test_child_graph),
        cmocka_unit_test(test_captured_graph_takes_nodes),
        cmocka_unit_test(test_event_nodes),
        cmocka_unit_test(test_update_limits),
        cmocka_unit_test(test_update_child_shape),
        cmocka_unit_test(test_capture_into_graph),
        cmocka_unit_test(test_capture_into_graph_keeps_nodes),
        cmocka_unit_test(test_capture_into_child_holds_parents),
        cmocka_unit_test(test_capture_target_refuses_changes),
        cmocka_unit_test(test_event_node_params),
        cmocka_unit_test(test_exec_event_node_set_event),
        cmocka_unit_test(test_mem_nodes),
        cmocka_unit_test(test_free_in_another_graph),
        cmocka_unit_test(test_free_of_gone_graph),
        cmocka_unit_test(test_graph_mem_trim),
        cmocka_unit_test(test_graph_mem_attributes),
        cmocka_unit_test(test_graph_node_enabled),
        cmocka_unit_test(test_instantiate_flags),
        cmocka_unit_test(test_auto_free_on_launch),
        cmocka_unit_test(test_auto_free_captured),
        cmocka_unit_test(test_graph_upload),
        gated_test(test_user_objects_follow_copies),
        cmocka_unit_test(test_user_objects_of_children_and_updates),
        cmocka_unit_test(test_user_objects_bad),
        cmocka_unit_test(test_launch_kernel_ex),
        cmocka_unit_test(test_launch_kernel_ex_clusters),
        cmocka_unit_test(test_launch_events),
        cmocka_unit_test(test_launch_kernel_ex_bad),
        cmocka_unit_test(test_kernel_node_attributes),
        cmocka_unit_test(test_kernel_node_attributes_bad),
        cmocka_unit_test(test_mem_nodes_bad),
        cmocka_unit_test(test_bad_input),
    };
    setenv("XRT_CACHE", "0", 1); /* each load builds: no cache shared with other programs */
    return xrt_test_run_on_backends("graph nodes", tests, sizeof tests / sizeof tests[0], NULL);
}
