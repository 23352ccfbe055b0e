/* SPDX-License-Identifier: MIT */
/* A test double of the CUDA runtime (libcudart.so.13) for running xrt's
   suite with cuda as the default backend on a machine without a GPU
   (tests/run.sh). Unlike tests/doubles/cudart_stub.c, whose calls do
   nothing, its work is real and in order: "device" memory is host memory;
   every stream has a worker thread that runs its operations (memset, copy,
   host function, event record, wait for an event) one after the other; the
   NULL stream is one more such stream, the legacy default stream, ordered
   with the blocking streams as CUDA's is (implicit_waits); cudaStreamGetFlags
   says which a stream is; events complete when their stream
   reaches them and keep the time; synchronize and query wait for or report
   exactly that. Errors are the runtime's codes for what xrt's tests provoke
   (out of memory for huge sizes, an invalid resource handle for the elapsed
   time of an event never recorded or without timing, invalid device). Two
   devices (DEVICES), which are peers: their memory is the same host memory,
   peer access is CUDA's bookkeeping with CUDA's errors; streams and events
   belong to the device current at their creation (the legacy stream to the
   current device), and an event is recorded on, and timed against, its own
   device's only (invalid resource handle). Tests only: it
   checks nothing it is not asked.

   Stream capture and graphs are real too (">> capture", ">> graphs"): the
   work a capturing stream is given is recorded into a graph instead of run,
   with CUDA's capture rules and error codes; an exec replays its graph's
   nodes in capture order (a topological order) as one operation of the
   stream it is launched on, after the previous launch of the same exec.
   Never more lenient than CUDA; stricter where it does not model what CUDA
   would capture: a stream-ordered allocation or free, a stream callback or
   a graph launch on a capturing stream is refused
   (cudaErrorStreamCaptureUnsupported) and invalidates the capture. There is
   no driver API, so no kernels but one of its own, empty
   (cudart_double_empty_kernel), whose kernel nodes (cudaGraphAddKernelNode)
   are there for what only kernel nodes have: edges with edge data
   (cudaGraphEdgeData), which the edge lists give only with their data
   (cudaErrorLossyQuery without). cudaStreamGetCaptureInfo leaves all but
   the status garbage unless the capture is active, as the runtime may. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* mincore */
#include <cuda_runtime_api.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define UNUSED(x) (void)(x)

/* A set of graph node indices: what a capturing stream's next node, or a
   wait on an event recorded in a capture, depends on. */
typedef struct deps {
    size_t *v;
    size_t n;
    cudaGraphEdgeData *data; /* each edge's annotation, beside v; NULL while every one is plain */
} deps;

/* >> streams: a queue and a worker each */
typedef struct op {
    struct op *next;
    int kind; /* 0 memset, 1 copy, 2 host function, 3 record, 4 wait event, 5 callback, 7 graph
                 allocation, 8 graph free (their nodes do nothing: the memory is the graph's);
                 graph nodes only: 10 empty, 11 event record, 12 event wait, 13 child graph (in a
                 graph: its own graph `child`; an exec's plan holds kind 9 instead); 14 a pool
                 block's free reached (`user` the pool, `target` the block's number); 15 a kernel
                 node of the one kernel here, which does nothing (cudaGraphAddKernelNode) */
    void *dst;
    const void *src;
    size_t n;
    int value;
    cudaHostFn_t fn;
    cudaStreamCallback_t cb;
    void *user;
    struct event *e;
    unsigned long long target;
    struct exec *x;    /* 6 graph launch: the exec, and the nodes it runs; 9 child graph: the nodes */
    struct plan *plan;
    struct graph *child;
    size_t pitch, height; /* a memset node: height rows of n bytes (elem-byte values) pitch apart; 0: 1-D;
                             a copy node of 3-D params: its rows (pitch: dst's) */
    size_t spitch, depth, dslice, sslice; /* such a copy node's src pitch, its slices and their distances */
    unsigned elem;
    int copy_kind; /* a copy's enum cudaMemcpyKind, as given */
    int hidden; /* the double's own record for an implicit wait: not the stream's work (queued, done) */
    int off; /* an exec's node switched off (cudaGraphNodeSetEnabled): not run */
} op;

static __thread int current_device;
#define DEVICES 2

typedef struct stream {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    op *head, *tail;
    unsigned long long queued, done;
    int dying;
    unsigned flags; /* cudaStreamNonBlocking or not: see implicit_waits */
    int priority;   /* as created, clamped to [PRIORITY_GREATEST, 0] */
    int device;     /* current at its creation (a legacy stream: its device's) */
    struct stream *next_live; /* the live streams, for cudaDeviceSynchronize */
    struct capture *cap;      /* the capture it takes part in (cap_lock) */
    struct deps front;        /* there: the nodes its next work depends on */
    cudaGraphNode_t *info;    /* cudaStreamGetCaptureInfo's last answer: the front's nodes, */
    cudaGraphEdgeData *info_data; /* and its edges' data (cap_lock) */
    cudaStreamAttrValue window, sync, domain, map; /* attributes, kept and answered (lock) */
} stream;

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static stream *live;

/* >> allocations, for cudaPointerGetAttributes */
typedef struct alloc {
    struct alloc *next;
    char *base;
    size_t size;
    int host, device;
    unsigned flags; /* pinned host memory: cudaHostAlloc's flags */
    int graph; /* made by an allocation node: 1, 2 once a free node of the capture frees it */
    int live;  /* graph 1 (left to the caller): allocated by a launch, not yet freed */
    unsigned long long serial;
    struct mpool *pool; /* the memory pool it came from (">> memory pools"), or NULL */
    struct page_advice *pages; /* managed memory's advice, per page, or NULL ("managed_advise") */
} alloc;
static alloc *allocs;
#define MANAGED 3 /* an alloc's `host` for managed memory (cudaMallocManaged) */
static unsigned long long alloc_serial; /* numbers allocations, for IPC handles */


static void alloc_add(void *p, size_t n, int host, int device)
{
    alloc *a = (alloc *)malloc(sizeof *a);
    if (!a) return;
    a->base = (char *)p, a->size = n, a->host = host, a->device = device, a->graph = 0, a->live = 0, a->flags = 0;
    a->pool = NULL;
    a->pages = NULL;
    pthread_mutex_lock(&live_lock);
    a->serial = ++alloc_serial;
    a->next = allocs;
    allocs = a;
    pthread_mutex_unlock(&live_lock);
}

/* Forgets the allocation that starts at p, if it is one of that kind (host:
   pinned host memory); 0 if there is none, as after a free. */
static int alloc_take(void *p, int host)
{
    alloc **pp, *a;
    pthread_mutex_lock(&live_lock);
    for (pp = &allocs; (a = *pp) != NULL; pp = &a->next)
        if (a->base == (char *)p && a->host == host && !a->graph) {
            *pp = a->next;
            free(a->pages);
            free(a);
            break;
        }
    pthread_mutex_unlock(&live_lock);
    return a != NULL;
}

typedef struct event {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int refs; /* its handle and each queued record or wait */
    unsigned long long recorded, completed;
    unsigned flags;
    int device; /* current at its creation: recorded on that device's streams only */
    double ms;
    struct capture *cap; /* last recorded in this capture (cap_lock) */
    deps at;             /* what its record depended on there */
} event;

static void capture_unref(struct capture *c);
static void deps_clear(deps *d);

static stream *null_streams[DEVICES]; /* each device's legacy stream, made on first use */
static pthread_mutex_t null_lock = PTHREAD_MUTEX_INITIALIZER;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void *worker(void *arg);
static void launch_done(op *o);
static void pool_reached(void *pool, unsigned long long block);
static int pool_free(void *p, cudaStream_t st, int now);

static void event_unref(event *e)
{
    int last;
    pthread_mutex_lock(&e->lock);
    last = --e->refs == 0;
    pthread_mutex_unlock(&e->lock);
    if (!last) return;
    if (e->cap) capture_unref(e->cap);
    deps_clear(&e->at);
    pthread_cond_destroy(&e->cond);
    pthread_mutex_destroy(&e->lock);
    free(e);
}

static stream *stream_new(unsigned flags)
{
    stream *s = (stream *)calloc(1, sizeof *s);
    pthread_t t;
    pthread_attr_t a;
    if (!s) return NULL;
    s->flags = flags;
    s->device = current_device;
    s->sync.syncPolicy = (enum cudaSynchronizationPolicy)-1; /* never set: a recent driver's answer */
    s->map.memSyncDomainMap.remote = 1; /* remote work in domain 1 */
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->cond, NULL);
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &a, worker, s) != 0) {
        free(s);
        s = NULL;
    }
    pthread_attr_destroy(&a);
    if (s) {
        pthread_mutex_lock(&live_lock);
        s->next_live = live;
        live = s;
        pthread_mutex_unlock(&live_lock);
    }
    return s;
}

static stream *null_of(int device)
{
    stream *n = __atomic_load_n(&null_streams[device], __ATOMIC_ACQUIRE);
    if (n) return n;
    pthread_mutex_lock(&null_lock);
    if (!(n = null_streams[device]) && (n = stream_new(0))) {
        n->device = device;
        __atomic_store_n(&null_streams[device], n, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&null_lock);
    return n;
}

/* cudaStreamPerThread: each thread's own blocking stream of each device,
   made on first use and released when the thread exits. */
static pthread_key_t per_thread_key;
static pthread_once_t per_thread_once = PTHREAD_ONCE_INIT;
static __thread stream *per_thread[DEVICES];

static void stream_release(stream *s);

static void per_thread_release(void *unused)
{
    int d;
    (void)unused;
    for (d = 0; d < DEVICES; d++)
        if (per_thread[d]) stream_release(per_thread[d]);
}

static void per_thread_key_make(void) { pthread_key_create(&per_thread_key, per_thread_release); }

static stream *per_thread_of(int device)
{
    if (!per_thread[device]) {
        pthread_once(&per_thread_once, per_thread_key_make);
        if ((per_thread[device] = stream_new(0)) != NULL) pthread_setspecific(per_thread_key, per_thread);
    }
    return per_thread[device];
}

static int is_legacy(cudaStream_t s) { return !s || s == cudaStreamLegacy; }

static stream *stream_of(cudaStream_t s)
{
    if (is_legacy(s)) return null_of(current_device);
    return s == cudaStreamPerThread ? per_thread_of(current_device) : (stream *)(void *)s;
}

/* A stream that can be captured or destroyed: NULL for the legacy stream. */
static stream *own_of(cudaStream_t s) { return is_legacy(s) ? NULL : stream_of(s); }

static void graph_run(op *o);
static void run_child(struct plan *p);

/* A memset node of rows or of wider values. */
static void set_rows(const op *o)
{
    size_t r, i;
    for (r = 0; r < o->height; r++) {
        unsigned char *row = (unsigned char *)o->dst + r * o->pitch;
        for (i = 0; i < o->n; i++)
            if (o->elem == 1) row[i] = (unsigned char)o->value;
            else if (o->elem == 2) memcpy(row + 2 * i, &(uint16_t){(uint16_t)o->value}, 2);
            else memcpy(row + 4 * i, &(uint32_t){(uint32_t)o->value}, 4);
    }
}

/* A copy node of 3-D params: depth slices of height rows of n bytes, from
   its first bytes (dst, src). */
static void copy_box(const op *o)
{
    size_t z, r;
    for (z = 0; z < o->depth; z++)
        for (r = 0; r < o->height; r++)
            memmove((char *)o->dst + z * o->dslice + r * o->pitch, (const char *)o->src + z * o->sslice + r * o->spitch, o->n);
}

/* An event record node: its launch counted the record (plan_records). */
static void record_now(event *e)
{
    pthread_mutex_lock(&e->lock);
    e->ms = now_ms();
    if (e->completed < e->recorded) e->completed++;
    pthread_cond_broadcast(&e->cond);
    pthread_mutex_unlock(&e->lock);
}

static void wait_recorded(event *e)
{
    pthread_mutex_lock(&e->lock);
    while (e->completed < e->recorded) pthread_cond_wait(&e->cond, &e->lock);
    pthread_mutex_unlock(&e->lock);
}

static void run(op *o)
{
    switch (o->kind) {
    case 6: graph_run(o); break;
    case 0:
        if (o->height) set_rows(o);
        else memset(o->dst, o->value, o->n);
        break;
    case 10: break;
    case 11: record_now(o->e); break;
    case 12: wait_recorded(o->e); break;
    case 1:
        if (o->height) copy_box(o);
        else memmove(o->dst, o->src, o->n);
        break;
    case 2: o->fn(o->user); break;
    case 5: o->cb(NULL, cudaSuccess, o->user); break;
    case 7:
    case 8:
    case 15: break;
    case 9: run_child(o->plan); break;
    case 14: pool_reached(o->user, o->target); break;
    case 3:
        pthread_mutex_lock(&o->e->lock);
        o->e->ms = now_ms();
        if (o->e->completed < o->target) o->e->completed = o->target;
        pthread_cond_broadcast(&o->e->cond);
        pthread_mutex_unlock(&o->e->lock);
        break;
    default:
        pthread_mutex_lock(&o->e->lock);
        while (o->e->completed < o->target) pthread_cond_wait(&o->e->cond, &o->e->lock);
        pthread_mutex_unlock(&o->e->lock);
        break;
    }
}

static void *worker(void *arg)
{
    stream *s = (stream *)arg;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        op *o;
        event *e;
        while (!s->head && !s->dying) pthread_cond_wait(&s->cond, &s->lock);
        if (!s->head) break; /* destroyed and drained */
        o = s->head;
        pthread_mutex_unlock(&s->lock);
        if (o->kind != 3) run(o);
        if (o->x) launch_done(o);
        pthread_mutex_lock(&s->lock);
        /* A record completes with the stream's count, under its lock (then
           the event's): whoever sees the event complete sees the stream past
           it, and the reverse, as in CUDA. */
        if (o->kind == 3) run(o);
        s->head = o->next;
        if (!s->head) s->tail = NULL;
        if (!o->hidden) s->done++;
        e = o->e;
        free(o);
        pthread_cond_broadcast(&s->cond);
        if (e) { /* its last reference may go with it: not under the stream's lock */
            pthread_mutex_unlock(&s->lock);
            event_unref(e);
            pthread_mutex_lock(&s->lock);
        }
    }
    pthread_mutex_unlock(&s->lock);
    {
        stream **pp;
        pthread_mutex_lock(&live_lock);
        for (pp = &live; *pp; pp = &(*pp)->next_live)
            if (*pp == s) {
                *pp = s->next_live;
                break;
            }
        pthread_mutex_unlock(&live_lock);
    }
    pthread_cond_destroy(&s->cond);
    pthread_mutex_destroy(&s->lock);
    free(s->info);
    free(s->info_data);
    free(s);
    return NULL;
}

static void push_locked(stream *s, op *o)
{
    if (s->tail) s->tail->next = o;
    else s->head = o;
    s->tail = o;
    if (!o->hidden) s->queued++;
    pthread_cond_broadcast(&s->cond);
}

static op *op_new(int kind)
{
    op *o = (op *)calloc(1, sizeof *o);
    if (o) o->kind = kind;
    return o;
}

static event *event_new(unsigned flags);

/* Makes `to` wait for the work queued so far on `from`, if it has any (a
   record of an event of the double's own on `from`, a wait for it on `to`).
   A stream with nothing queued may be draining away: it is left alone. */
static cudaError_t wait_for(stream *from, stream *to)
{
    event *e;
    op *r, *w;
    int busy;
    if (!(e = event_new(cudaEventDisableTiming)) || !(r = op_new(3)) || !(w = op_new(4))) abort();
    pthread_mutex_lock(&from->lock);
    if ((busy = from->done < from->queued) != 0) {
        r->hidden = 1; /* a synchronize or query of `from` waits for its own work only */
        r->e = e, r->target = e->recorded = 1;
        e->refs++;
        push_locked(from, r);
    }
    pthread_mutex_unlock(&from->lock);
    if (busy) {
        w->e = e, w->target = 1;
        e->refs++;
        pthread_mutex_lock(&to->lock);
        push_locked(to, w);
        pthread_mutex_unlock(&to->lock);
    } else {
        free(r);
        free(w);
    }
    event_unref(e);
    return cudaSuccess;
}

/* Work queued on `to` from now waits for what the blocking streams of a
   device (all but its legacy stream) have queued so far. */
static void blocking_waits(int device, stream *to)
{
    stream *null = null_of(device), *o;
    pthread_mutex_lock(&live_lock);
    for (o = live; o; o = o->next_live)
        if (o != null && o->device == device && !(o->flags & cudaStreamNonBlocking)) wait_for(o, to);
    pthread_mutex_unlock(&live_lock);
}

/* As CUDA's legacy default stream (the NULL stream, one per device): work
   queued on it waits for what every blocking stream (created without
   cudaStreamNonBlocking) of its device queued before, and work queued on a
   blocking stream waits for what its device's NULL stream queued before; a
   non-blocking stream waits for neither. */
static void implicit_waits(stream *s)
{
    stream *null = null_of(s->device);
    if (s != null) {
        if (!(s->flags & cudaStreamNonBlocking)) wait_for(null, s);
        return;
    }
    blocking_waits(s->device, null);
}

static cudaError_t capture_add(stream *s, op *o, int *captured);
static int legacy_refused(void);
static void plan_unref(struct plan *p);

/* An op that was not queued: a child graph's holds its plan. */
static void op_release(op *o);
static void op_drop(op *o)
{
    op_release(o);
    free(o);
}

/* Work for a capturing stream goes into its capture's graph (*captured set). */
static cudaError_t enqueue_or_capture(cudaStream_t st, op *o, int *captured)
{
    stream *s = stream_of(st);
    *captured = 0;
    if (!s) {
        op_drop(o);
        return cudaErrorInvalidResourceHandle;
    }
    if (!is_legacy(st)) {
        cudaError_t e = capture_add(s, o, captured);
        if (*captured || e != cudaSuccess) return e;
    } else if (legacy_refused()) {
        free(o);
        return cudaErrorStreamCaptureImplicit;
    }
    implicit_waits(s);
    pthread_mutex_lock(&s->lock);
    push_locked(s, o);
    pthread_mutex_unlock(&s->lock);
    return cudaSuccess;
}

static cudaError_t enqueue(cudaStream_t st, op *o)
{
    int captured;
    return enqueue_or_capture(st, o, &captured);
}


/* >> capture. One lock guards every capture, the streams' part in them and
   the events recorded in them. A capture lives while it is active and while
   an event last recorded in it does (cudaErrorCapturedEvent after its end). */
typedef struct gnode {
    op o;   /* its kind and parameters */
    deps d; /* the nodes it depends on (their indices): each an edge */
    struct graph *owner;
    unsigned long long id, from; /* its own, unique; the node it is a copy of (a clone's), or 0 */
} gnode;

/* Nodes are allocated one by one: a node's address is its handle, for its
   life in the graph. Their order is the order they were added in; edges
   may be added either way, so an exec orders them (plan_new). */
typedef struct graph {
    gnode **nodes;
    size_t n, cap;
    struct exec *mem_exec; /* with memory nodes: its one exec (CUDA: "Only one instantiation of the graph may
                              exist at any point in time"), until that exec or the graph is destroyed (exec_lock) */
    int owned; /* a child graph node's own graph: "Allocation and free nodes cannot be added to the returned
                  graph" (cudaGraphChildGraphNodeGetGraph) */
    struct uref *uref; /* the user objects it holds references to (">> user objects") */
    size_t nuref;
} graph;

/* >> user objects. A destroy runs on the runtime's own thread, as CUDA's
   ("executed by a shared internal thread"), never inside the call that
   released the last reference. A graph's references go to its copies
   (clones, child nodes' graphs, plans: an exec's are released when its
   plan is, after its last launch). Releasing more than there is, is
   refused (CUDA leaves it undefined). */
typedef struct uobj { int refs; cudaHostFn_t fn; void *ptr; struct uobj *next; } uobj;
typedef struct uref { uobj *o; unsigned n; } uref;
static pthread_mutex_t uobj_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t uobj_cond = PTHREAD_COND_INITIALIZER;
static uobj *uobj_queue;
static int uobj_thread_up;

static void *uobj_main(void *arg)
{
    uobj *o;
    (void)arg;
    pthread_mutex_lock(&uobj_lock);
    for (;;) {
        while (!uobj_queue) pthread_cond_wait(&uobj_cond, &uobj_lock);
        o = uobj_queue;
        uobj_queue = o->next;
        pthread_mutex_unlock(&uobj_lock);
        o->fn(o->ptr);
        free(o);
        pthread_mutex_lock(&uobj_lock);
    }
    return NULL;
}

static void uobj_release(uobj *o, unsigned n)
{
    pthread_t t;
    if (__atomic_sub_fetch(&o->refs, (int)n, __ATOMIC_ACQ_REL)) return;
    pthread_mutex_lock(&uobj_lock);
    if (!uobj_thread_up && pthread_create(&t, NULL, uobj_main, NULL) == 0) {
        pthread_detach(t);
        uobj_thread_up = 1;
    }
    o->next = uobj_queue;
    uobj_queue = o;
    pthread_cond_signal(&uobj_cond);
    pthread_mutex_unlock(&uobj_lock);
}

/* to, a copy of from holding none, takes from's references; 0 without memory. */
static int urefs_copy(graph *to, const graph *from)
{
    size_t i;
    if (!from->nuref) return 1;
    if (!(to->uref = (uref *)malloc(from->nuref * sizeof *to->uref))) return 0;
    memcpy(to->uref, from->uref, from->nuref * sizeof *to->uref);
    to->nuref = from->nuref;
    for (i = 0; i < to->nuref; i++) __atomic_add_fetch(&to->uref[i].o->refs, (int)to->uref[i].n, __ATOMIC_ACQ_REL);
    return 1;
}

static void urefs_release(graph *g)
{
    size_t i;
    for (i = 0; i < g->nuref; i++) uobj_release(g->uref[i].o, g->uref[i].n);
    free(g->uref);
    g->uref = NULL;
    g->nuref = 0;
}
static pthread_mutex_t exec_lock = PTHREAD_MUTEX_INITIALIZER;
static void mem_exec_unlink(graph *g, struct exec *x);
static unsigned long long node_serial;
static cudaError_t graph_mem_launch(const graph *g, int auto_free);

typedef struct capture {
    graph *g;       /* NULL once ended */
    stream *origin;
    int mode;       /* enum cudaStreamCaptureMode */
    pthread_t thread;
    int invalidated, ended;
    int into;       /* g is the caller's (cudaStreamBeginCaptureToGraph): never freed here */
    int refs;       /* events last recorded in it */
    unsigned long long devices; /* bit d: a stream of device d joined it */
    unsigned long long id;      /* unique over the process's life (cudaStreamGetCaptureInfo) */
    deps left;                  /* the fronts of streams destroyed in it: joined or not, judged at its end */
    struct capture *next_active;
} capture;

static pthread_mutex_t cap_lock = PTHREAD_MUTEX_INITIALIZER;
static capture *active;
static unsigned long long capture_serial; /* (cap_lock) */

static void deps_clear(deps *d)
{
    free(d->v);
    free(d->data);
    d->v = NULL;
    d->data = NULL;
    d->n = 0;
}

/* Whether edge data (CUDA 12.3's cudaGraphEdgeData; NULL: none) is a plain
   edge: all zero. */
static int edge_plain(const cudaGraphEdgeData *d)
{
    static const cudaGraphEdgeData zero;
    return !d || !memcmp(d, &zero, sizeof zero);
}

static int deps_has(const deps *d, size_t v)
{
    size_t i;
    for (i = 0; i < d->n; i++)
        if (d->v[i] == v) return 1;
    return 0;
}

/* v, after an edge annotated e (NULL: a plain edge). */
static int deps_add_with(deps *d, size_t v, const cudaGraphEdgeData *e)
{
    size_t *n;
    if (deps_has(d, v)) return 1;
    if (d->data || !edge_plain(e)) {
        cudaGraphEdgeData *x = (cudaGraphEdgeData *)realloc(d->data, (d->n + 1) * sizeof *x);
        if (!x) return 0;
        if (!d->data) memset(x, 0, d->n * sizeof *x);
        d->data = x;
        memset(&x[d->n], 0, sizeof *x);
        if (e) x[d->n] = *e;
    }
    if (!(n = (size_t *)realloc(d->v, (d->n + 1) * sizeof *n))) return 0;
    n[d->n++] = v;
    d->v = n;
    return 1;
}

static int deps_add(deps *d, size_t v) { return deps_add_with(d, v, NULL); }

static int deps_copy(deps *to, const deps *from)
{
    size_t i;
    deps_clear(to);
    for (i = 0; i < from->n; i++)
        if (!deps_add_with(to, from->v[i], from->data ? &from->data[i] : NULL)) return 0;
    return 1;
}

/* Entry i moves to k (k <= i), its annotation with it. */
static void deps_move(deps *d, size_t i, size_t k)
{
    d->v[k] = d->v[i];
    if (d->data) d->data[k] = d->data[i];
}

/* Whether an edge of d is annotated. */
static int deps_annotated(const deps *d)
{
    size_t i;
    for (i = 0; d->data && i < d->n; i++)
        if (!edge_plain(&d->data[i])) return 1;
    return 0;
}

static void event_ref(event *e)
{
    pthread_mutex_lock(&e->lock);
    e->refs++;
    pthread_mutex_unlock(&e->lock);
}

static void graph_free(graph *g);

/* What a node's op holds: a child's plan or graph, an event. */
static void op_release(op *o)
{
    if (o->kind == 9) plan_unref(o->plan);
    if (o->kind == 13) graph_free(o->child);
    if ((o->kind == 11 || o->kind == 12) && o->e) event_unref(o->e);
}

static void gnode_free(gnode *n)
{
    deps_clear(&n->d);
    op_release(&n->o);
    free(n);
}

static void graph_free(graph *g)
{
    size_t i;
    if (!g) return;
    mem_exec_unlink(g, NULL);
    for (i = 0; i < g->n; i++) gnode_free(g->nodes[i]);
    free(g->nodes);
    urefs_release(g);
    free(g);
}

/* A new node at the end of g, zeroed but for its owner and id; NULL without memory. */
static gnode *gnode_new(graph *g)
{
    gnode *n;
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 8;
        gnode **nodes = (gnode **)realloc(g->nodes, cap * sizeof *nodes);
        if (!nodes) return NULL;
        g->nodes = nodes, g->cap = cap;
    }
    if (!(n = (gnode *)calloc(1, sizeof *n))) return NULL;
    n->owner = g;
    n->id = __atomic_add_fetch(&node_serial, 1, __ATOMIC_RELAXED);
    g->nodes[g->n++] = n;
    return n;
}

/* o's copy in another node: what it holds is held again (a child graph copied). */
static int op_copy(op *to, const op *from);
static void plan_ref(struct plan *p);

/* A copy of g, its nodes' `from` their originals' ids; NULL without memory. */
static graph *graph_dup(const graph *g)
{
    graph *c = (graph *)calloc(1, sizeof *c);
    size_t i;
    if (!c) return NULL;
    for (i = 0; i < g->n; i++) {
        gnode *n = gnode_new(c);
        if (!n || !op_copy(&n->o, &g->nodes[i]->o) || !deps_copy(&n->d, &g->nodes[i]->d)) {
            graph_free(c);
            return NULL;
        }
        n->from = g->nodes[i]->id;
    }
    if (!urefs_copy(c, g)) {
        graph_free(c);
        return NULL;
    }
    return c;
}

/* A copy of g that a child graph node owns. */
static graph *child_dup(const graph *g)
{
    graph *c = graph_dup(g);
    if (c) c->owned = 1;
    return c;
}

static int op_copy(op *to, const op *from)
{
    *to = *from;
    to->next = NULL;
    if (from->kind == 9) plan_ref(from->plan);
    if ((from->kind == 11 || from->kind == 12) && from->e) event_ref(from->e);
    if (from->kind == 13 && !(to->child = child_dup(from->child))) {
        to->kind = 10;
        return 0;
    }
    return 1;
}

/* Whether g has allocation or free nodes. */
static int graph_has_memory(const graph *g)
{
    size_t i;
    for (i = 0; i < g->n; i++)
        if (g->nodes[i]->o.kind == 7 || g->nodes[i]->o.kind == 8) return 1;
    return 0;
}

static void capture_free_if_done(capture *c)
{
    if (c->ended && c->refs == 0) free(c);
}

static void capture_unref(capture *c)
{
    pthread_mutex_lock(&cap_lock);
    c->refs--;
    capture_free_if_done(c);
    pthread_mutex_unlock(&cap_lock);
}

/* Ends a capture for every stream in it; its graph goes unless taken: it
   is returned, for the caller to free once cap_lock is let go (an event
   node's reference may be its event's last, whose release takes the lock). */
static graph *capture_end(capture *c)
{
    graph *drop = c->into ? NULL : c->g;
    capture **pp;
    stream *s;
    pthread_mutex_lock(&live_lock);
    for (s = live; s; s = s->next_live)
        if (s->cap == c) {
            s->cap = NULL;
            deps_clear(&s->front);
        }
    pthread_mutex_unlock(&live_lock);
    for (pp = &active; *pp; pp = &(*pp)->next_active)
        if (*pp == c) {
            *pp = c->next_active;
            break;
        }
    c->g = NULL;
    c->ended = 1;
    deps_clear(&c->left);
    capture_free_if_done(c);
    return drop;
}

/* The captured node for o (which it takes), after the stream's front. */
static cudaError_t capture_node(stream *s, op *o)
{
    graph *g = s->cap->g;
    gnode *n = gnode_new(g);
    if (!n) return cudaErrorMemoryAllocation;
    n->o.kind = 10; /* empty until it takes o */
    if (!deps_copy(&n->d, &s->front)) return cudaErrorMemoryAllocation;
    deps_clear(&s->front);
    if (!deps_add(&s->front, g->n - 1)) return cudaErrorMemoryAllocation;
    n->o = *o;
    n->o.next = NULL;
    free(o); /* the node holds what it held */
    return cudaSuccess;
}

/* Work on a capturing stream: copies, sets and host functions become nodes;
   anything else is refused and invalidates the capture, as work on an
   invalidated capture is refused. */
static cudaError_t capture_add(stream *s, op *o, int *captured)
{
    cudaError_t e = cudaSuccess;
    pthread_mutex_lock(&cap_lock);
    if (!s->cap) {
        pthread_mutex_unlock(&cap_lock);
        return cudaSuccess;
    }
    *captured = 1;
    if (s->cap->invalidated) e = cudaErrorStreamCaptureInvalidated;
    else if (o->kind > 2 && o->kind < 7) s->cap->invalidated = 1, e = cudaErrorStreamCaptureUnsupported;
    else e = capture_node(s, o);
    pthread_mutex_unlock(&cap_lock);
    if (e != cudaSuccess) op_drop(o);
    return e;
}

/* The calling thread's mode (cudaThreadExchangeStreamCaptureMode): which
   captures its potentially unsafe calls are checked against. */
static __thread int thread_mode; /* cudaStreamCaptureModeGlobal unless exchanged */

/* Whether c refuses the calling thread's potentially unsafe call, as the
   runtime documents cudaThreadExchangeStreamCaptureMode: in GLOBAL mode, a
   capture of its own that is not RELAXED, or any GLOBAL one; in
   THREAD_LOCAL mode, one of its own that is not RELAXED; in RELAXED mode,
   none. device >= 0 (a device synchronize): also every capture that one
   of that device's streams joined, in every mode. */
static int refuses(const capture *c, int device)
{
    if (device >= 0 && (c->devices >> device & 1)) return 1;
    if (thread_mode == cudaStreamCaptureModeRelaxed || c->mode == cudaStreamCaptureModeRelaxed) return 0;
    if (pthread_equal(c->thread, pthread_self())) return 1;
    return thread_mode == cudaStreamCaptureModeGlobal && c->mode == cudaStreamCaptureModeGlobal;
}

/* CUDA's "potentially unsafe" calls (those that may wait for the device):
   refused while a capture refuses them, each such capture invalidated. */
static int refused_on(int device)
{
    capture *c;
    int refused = 0;
    pthread_mutex_lock(&cap_lock);
    for (c = active; c; c = c->next_active)
        if (refuses(c, device)) c->invalidated = refused = 1;
    pthread_mutex_unlock(&cap_lock);
    return refused;
}

static int unsafe_refused(void) { return refused_on(-1); }

cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode)
{
    int was = thread_mode;
    if (!mode || (unsigned)*mode > cudaStreamCaptureModeRelaxed) return cudaErrorInvalidValue;
    thread_mode = (int)*mode;
    *mode = (enum cudaStreamCaptureMode)was;
    return cudaSuccess;
}

/* Work on the legacy stream would wait for a capturing blocking stream (its
   implicit ordering, implicit_waits): refused, that capture invalidated
   (invalidate 0: only said). */
static int legacy_joins(int invalidate)
{
    stream *s;
    int refused = 0;
    pthread_mutex_lock(&cap_lock);
    pthread_mutex_lock(&live_lock);
    for (s = live; s; s = s->next_live)
        if (s->cap && s->device == current_device && !(s->flags & cudaStreamNonBlocking)) {
            if (invalidate) s->cap->invalidated = 1;
            refused = 1;
        }
    pthread_mutex_unlock(&live_lock);
    pthread_mutex_unlock(&cap_lock);
    return refused;
}

static int legacy_refused(void) { return legacy_joins(1); }
static int legacy_would_join(void) { return legacy_joins(0); }

/* A wait for a capturing stream (its synchronize or query): refused, the
   capture invalidated. */
static int capturing_refused(stream *s)
{
    int refused;
    pthread_mutex_lock(&cap_lock);
    if ((refused = s->cap != NULL) != 0) s->cap->invalidated = 1;
    pthread_mutex_unlock(&cap_lock);
    return refused;
}

/* A wait for an event last recorded in a capture: refused; an active
   capture is invalidated. */
static int captured_event_refused(event *e)
{
    int refused;
    pthread_mutex_lock(&cap_lock);
    if ((refused = e->cap != NULL) != 0 && !e->cap->ended) e->cap->invalidated = 1;
    pthread_mutex_unlock(&cap_lock);
    return refused;
}

static cudaError_t deps_of(const graph *g, const cudaGraphNode_t *v, size_t n, deps *d);

/* A capture into a new graph, or into `into` after the nodes `front` (which
   it takes) of it. Captured nodes go into that graph as they come: a capture
   into a graph that fails leaves them there (CUDA says nothing of the graph
   then; treat it as undefined). */
static cudaError_t capture_begin(stream *s, enum cudaStreamCaptureMode mode, graph *into, deps *front)
{
    capture *c;
    if (!s) return cudaErrorStreamCaptureUnsupported; /* the legacy stream */
    if ((unsigned)mode > cudaStreamCaptureModeRelaxed) return cudaErrorInvalidValue;
    if (!(c = (capture *)calloc(1, sizeof *c)) || !(c->g = into ? into : (graph *)calloc(1, sizeof *c->g))) {
        free(c);
        return cudaErrorMemoryAllocation;
    }
    c->origin = s, c->mode = (int)mode, c->thread = pthread_self(), c->into = into != NULL;
    pthread_mutex_lock(&cap_lock);
    if (s->cap) {
        pthread_mutex_unlock(&cap_lock);
        if (!into) free(c->g);
        free(c);
        return cudaErrorIllegalState;
    }
    s->cap = c;
    c->id = ++capture_serial;
    c->devices |= 1ull << s->device;
    deps_clear(&s->front);
    s->front = *front;
    front->v = NULL, front->n = 0;
    c->next_active = active;
    active = c;
    pthread_mutex_unlock(&cap_lock);
    return cudaSuccess;
}

cudaError_t cudaStreamBeginCapture(cudaStream_t st, enum cudaStreamCaptureMode mode)
{
    deps none = {NULL, 0, NULL};
    return capture_begin(own_of(st), mode, NULL, &none);
}

/* CUDA 12.3: plain edges only here (edge_plain), else cudaErrorInvalidValue,
   the only error it documents; the stream does not capture then. A
   capture's next node is not known yet, and an annotated edge may only
   lead to a kernel node (edge_valid), which no capture here makes: so a
   capture's front is always plain here. */
cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t st, cudaGraph_t gr, const cudaGraphNode_t *v,
                                          const cudaGraphEdgeData *data, size_t n, enum cudaStreamCaptureMode mode)
{
    graph *g = (graph *)(void *)gr;
    deps front = {NULL, 0, NULL};
    cudaError_t e;
    size_t i;
    if (!own_of(st)) return cudaErrorStreamCaptureUnsupported;
    if (!g) return cudaErrorInvalidValue;
    for (i = 0; data && i < n; i++)
        if (!edge_plain(&data[i])) return cudaErrorInvalidValue;
    if ((e = deps_of(g, v, n, &front)) == cudaSuccess) e = capture_begin(own_of(st), mode, g, &front);
    deps_clear(&front);
    return e;
}

static int legacy_would_join(void);

/* The legacy stream never captures; while a blocking stream of its device
   does, the question is refused as its work would be, the capture left as
   it was (as HIP's hipStreamIsCapturing). */
cudaError_t cudaStreamIsCapturing(cudaStream_t st, enum cudaStreamCaptureStatus *status)
{
    stream *s = own_of(st);
    *status = cudaStreamCaptureStatusNone;
    if (!s) return legacy_would_join() ? cudaErrorStreamCaptureImplicit : cudaSuccess;
    pthread_mutex_lock(&cap_lock);
    if (s->cap) *status = s->cap->invalidated ? cudaStreamCaptureStatusInvalidated : cudaStreamCaptureStatusActive;
    pthread_mutex_unlock(&cap_lock);
    return cudaSuccess;
}

/* What cudaStreamGetCaptureInfo gives but the status where the capture is
   not active: "Valid data (other than capture status) is returned only if
   ... the returned capture status is cudaStreamCaptureStatusActive". Left
   as garbage here (a graph and arrays that are none, a count of 7), as
   strict as the runtime may be. */
static void info_garbage(unsigned long long *id, cudaGraph_t *graph, const cudaGraphNode_t **deps,
                         const cudaGraphEdgeData **data, size_t *n)
{
    static unsigned char garbage[64];
    if (id) *id = 0xdeadull;
    if (graph) *graph = (cudaGraph_t)(void *)garbage;
    if (deps) *deps = (const cudaGraphNode_t *)(void *)garbage;
    if (data) *data = (const cudaGraphEdgeData *)(void *)garbage;
    if (n) *n = 7;
}

/* s's front as node handles and plain edge data, in s's buffers, valid
   until its next question (cap_lock held). */
static cudaError_t info_front(stream *s, const cudaGraphNode_t **deps, const cudaGraphEdgeData **data)
{
    const graph *g = s->cap->g;
    size_t i, n = s->front.n + 1;
    cudaGraphNode_t *v = (cudaGraphNode_t *)realloc(s->info, n * sizeof *v);
    cudaGraphEdgeData *d;
    if (v) s->info = v;
    if (!v || !(d = (cudaGraphEdgeData *)realloc(s->info_data, n * sizeof *d))) return cudaErrorMemoryAllocation;
    s->info_data = d;
    memset(d, 0, n * sizeof *d);
    for (i = 0; i < s->front.n; i++) v[i] = (cudaGraphNode_t)(void *)g->nodes[s->front.v[i]];
    if (deps) *deps = v;
    if (data) *data = d;
    return cudaSuccess;
}

/* CUDA 13's cudaStreamGetCaptureInfo (12.3's _v3). The front's array is
   the stream's, valid "until the next API call which operates on the
   stream" (here: its next question). A capture's front is always plain
   here (cudaStreamBeginCaptureToGraph), so its edge data is all zero and
   cudaErrorLossyQuery ("dependencies_out is non-NULL and edgeData_out is
   NULL, but there is non-zero edge data") does not arise. The legacy
   stream: as cudaStreamIsCapturing. */
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t st, enum cudaStreamCaptureStatus *status, unsigned long long *id,
                                     cudaGraph_t *graph, const cudaGraphNode_t **deps, const cudaGraphEdgeData **data,
                                     size_t *n)
{
    stream *s = own_of(st);
    cudaError_t e = cudaSuccess;
    if (!status || (data && !deps)) return cudaErrorInvalidValue;
    *status = cudaStreamCaptureStatusNone;
    if (!s) {
        info_garbage(id, graph, deps, data, n);
        return legacy_would_join() ? cudaErrorStreamCaptureImplicit : cudaSuccess;
    }
    pthread_mutex_lock(&cap_lock);
    if (s->cap) *status = s->cap->invalidated ? cudaStreamCaptureStatusInvalidated : cudaStreamCaptureStatusActive;
    if (*status != cudaStreamCaptureStatusActive) {
        info_garbage(id, graph, deps, data, n);
    } else {
        if (id) *id = s->cap->id;
        if (graph) *graph = (cudaGraph_t)(void *)s->cap->g;
        if (n) *n = s->front.n;
        if (deps || data) e = info_front(s, deps, data);
    }
    pthread_mutex_unlock(&cap_lock);
    return e;
}

/* The stream's front, added to or replaced (CUDA 13's signature): nodes of
   its capture's graph; a node taken out need not be joined at the end (only
   the streams' fronts are judged there). Edge data is not modelled: given
   non-zero, it is refused (cudaErrorNotSupported, stricter than CUDA). */
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t st, cudaGraphNode_t *nodes,
                                                const cudaGraphEdgeData *data, size_t n, unsigned flags)
{
    static const cudaGraphEdgeData plain;
    stream *s = own_of(st);
    cudaError_t e = cudaSuccess;
    size_t i, k;
    if (flags > cudaStreamSetCaptureDependencies || (n && !nodes)) return cudaErrorInvalidValue;
    for (i = 0; data && i < n; i++)
        if (memcmp(&data[i], &plain, sizeof plain)) return cudaErrorNotSupported;
    if (!s) return cudaErrorIllegalState; /* the legacy stream never captures */
    pthread_mutex_lock(&cap_lock);
    if (!s->cap) e = cudaErrorIllegalState;
    else if (s->cap->invalidated) e = cudaErrorStreamCaptureInvalidated;
    for (i = 0; e == cudaSuccess && i < n; i++) {
        const gnode *x = (const gnode *)(void *)nodes[i];
        if (!x || x->owner != s->cap->g) e = cudaErrorInvalidValue;
    }
    if (e == cudaSuccess && flags == cudaStreamSetCaptureDependencies) s->front.n = 0;
    for (i = 0; e == cudaSuccess && i < n; i++) {
        const graph *g = s->cap->g;
        for (k = 0; k < g->n && (const void *)g->nodes[k] != (const void *)nodes[i]; k++) {}
        if (!deps_add(&s->front, k)) e = cudaErrorMemoryAllocation;
    }
    pthread_mutex_unlock(&cap_lock);
    return e;
}

/* Marks in `seen` the origin's front and everything it depends on. */
static void mark_ancestors(const graph *g, size_t v, char *seen)
{
    size_t i;
    if (seen[v]) return;
    seen[v] = 1;
    for (i = 0; i < g->nodes[v]->d.n; i++) mark_ancestors(g, g->nodes[v]->d.v[i], seen);
}

/* Whether node a is an ancestor of node b. */
static int ancestor(const graph *g, size_t a, size_t b)
{
    size_t i;
    for (i = 0; i < g->nodes[b]->d.n; i++)
        if (g->nodes[b]->d.v[i] == a || ancestor(g, a, g->nodes[b]->d.v[i])) return 1;
    return 0;
}

/* A join keeps only the nodes no other of the set depends on, as CUDA adds
   no edge that another path implies. */
static void deps_prune(const graph *g, deps *d)
{
    size_t i, j, k = 0;
    for (i = 0; i < d->n; i++) {
        int implied = 0;
        for (j = 0; j < d->n && !implied; j++) implied = j != i && ancestor(g, d->v[i], d->v[j]);
        if (!implied) deps_move(d, i, k++);
    }
    d->n = k;
}

/* Whether every stream that joined the capture was joined back into its
   origin: each node of their fronts is an ancestor of the origin's. */
static cudaError_t capture_joined(capture *c)
{
    graph *g = c->g;
    char *seen = (char *)calloc(g->n ? g->n : 1, 1);
    stream *s;
    size_t i;
    cudaError_t e = cudaSuccess;
    if (!seen) return cudaErrorMemoryAllocation;
    for (i = 0; i < c->origin->front.n; i++) mark_ancestors(g, c->origin->front.v[i], seen);
    for (i = 0; i < c->left.n; i++)
        if (!seen[c->left.v[i]]) e = cudaErrorStreamCaptureUnjoined;
    pthread_mutex_lock(&live_lock);
    for (s = live; s && e == cudaSuccess; s = s->next_live)
        for (i = 0; s->cap == c && s != c->origin && i < s->front.n; i++)
            if (!seen[s->front.v[i]]) e = cudaErrorStreamCaptureUnjoined;
    pthread_mutex_unlock(&live_lock);
    free(seen);
    return e;
}

cudaError_t cudaStreamEndCapture(cudaStream_t st, cudaGraph_t *out)
{
    stream *s = own_of(st);
    capture *c;
    graph *drop = NULL;
    cudaError_t e;
    *out = NULL;
    if (!s) return cudaErrorIllegalState;
    pthread_mutex_lock(&cap_lock);
    if (!(c = s->cap)) e = cudaErrorIllegalState;
    else if (c->mode != cudaStreamCaptureModeRelaxed && !pthread_equal(c->thread, pthread_self()))
        e = cudaErrorStreamCaptureWrongThread;
    else if (s != c->origin) c->invalidated = 1, e = cudaErrorStreamCaptureUnmatched;
    else if (c->invalidated) e = cudaErrorStreamCaptureInvalidated;
    else e = capture_joined(c);
    if (c && s == c->origin && e != cudaErrorStreamCaptureWrongThread) {
        if (e == cudaSuccess) {
            *out = (cudaGraph_t)(void *)c->g;
            c->g = NULL;
        }
        drop = capture_end(c);
    }
    pthread_mutex_unlock(&cap_lock);
    graph_free(drop);
    return e;
}

/* A destroyed stream leaves its capture: the origin ends it; another's
   work stays in it, and its end checks that work was joined back (CUDA's
   graphMemoryNodes sample destroys a joined stream in its capture). */
static void capture_leave(stream *s)
{
    graph *drop = NULL;
    size_t i;
    pthread_mutex_lock(&cap_lock);
    if (s->cap && s == s->cap->origin) drop = capture_end(s->cap);
    else if (s->cap) {
        for (i = 0; i < s->front.n; i++)
            if (!deps_add(&s->cap->left, s->front.v[i])) s->cap->invalidated = 1; /* cannot judge it: refused */
        s->cap = NULL;
    }
    deps_clear(&s->front);
    pthread_mutex_unlock(&cap_lock);
    graph_free(drop);
}

/* An event recorded on a capturing stream keeps the stream's front instead
   of being queued; elsewhere it leaves any capture it was recorded in. 1:
   handled here with *e set, 0: record it on the stream. */
static int capture_record(event *ev, stream *s, cudaError_t *e)
{
    int handled = 0;
    *e = cudaSuccess;
    pthread_mutex_lock(&cap_lock);
    if (s->cap && s->cap->invalidated) handled = 1, *e = cudaErrorStreamCaptureInvalidated;
    else {
        capture *was = ev->cap;
        if (s->cap && !deps_copy(&ev->at, &s->front)) {
            pthread_mutex_unlock(&cap_lock);
            *e = cudaErrorMemoryAllocation;
            return 1;
        }
        if (s->cap) s->cap->refs++, handled = 1;
        else deps_clear(&ev->at);
        ev->cap = s->cap;
        if (was) was->refs--, capture_free_if_done(was);
    }
    pthread_mutex_unlock(&cap_lock);
    return handled;
}

/* A wait on an event recorded in a capture joins the stream to it (fork), or
   adds to its front (join); a capturing stream cannot wait for work outside
   its capture. 1: handled here with *e set, 0: queue the wait. */
static int capture_wait(stream *s, event *ev, cudaError_t *e)
{
    capture *c;
    int handled = 1;
    size_t i;
    *e = cudaSuccess;
    pthread_mutex_lock(&cap_lock);
    c = ev->cap;
    if (!c && !s->cap) handled = 0;
    else if (!c) {
        if (ev->recorded) s->cap->invalidated = 1, *e = cudaErrorStreamCaptureIsolation;
    } else if (c->ended) *e = cudaErrorCapturedEvent;
    else if (s->cap && s->cap != c) s->cap->invalidated = c->invalidated = 1, *e = cudaErrorStreamCaptureMerge;
    else if (c->invalidated) *e = cudaErrorStreamCaptureInvalidated;
    else {
        if (!s->cap) deps_clear(&s->front);
        s->cap = c;
        c->devices |= 1ull << s->device;
        for (i = 0; i < ev->at.n; i++)
            if (!deps_add(&s->front, ev->at.v[i])) *e = cudaErrorMemoryAllocation;
        deps_prune(c->g, &s->front);
    }
    pthread_mutex_unlock(&cap_lock);
    return handled;
}

/* >> graphs. An exec holds a plan (the nodes, copied) and launches of it
   take the plan they were made with: an update gives later launches new
   parameters, never the ones in flight. */
typedef struct plan {
    int refs;
    graph g;
} plan;

typedef struct exec {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int refs; /* its handle and each launch in flight */
    plan *cur;
    unsigned long long launched, done;
    graph *src; /* the graph with memory nodes it is the one exec of, while both live (exec_lock) */
    int auto_free; /* cudaGraphInstantiateFlagAutoFreeOnLaunch */
} exec;

static void plan_unref(plan *p)
{
    size_t i;
    if (__atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL)) return;
    for (i = 0; i < p->g.n; i++) gnode_free(p->g.nodes[i]);
    free(p->g.nodes);
    urefs_release(&p->g);
    free(p);
}

/* g's nodes in an order that runs each after its dependencies (the order
   they were added where edges allow): order[k] is the index of the k-th.
   0 for a graph with a cycle (or without memory). */
static int graph_order(const graph *g, size_t *order)
{
    char *placed = (char *)calloc(g->n + 1, 1);
    size_t k, i, j;
    if (!placed) return 0;
    for (k = 0; k < g->n; k++) {
        for (i = 0; i < g->n; i++) {
            int ready = !placed[i];
            for (j = 0; ready && j < g->nodes[i]->d.n; j++) ready = placed[g->nodes[i]->d.v[j]];
            if (ready) break;
        }
        if (i == g->n) break; /* a cycle */
        placed[i] = 1;
        order[k] = i;
    }
    free(placed);
    return k == g->n;
}

/* An exec's copy of g, in run order; a child graph's node holds a plan of
   it (kind 9). NULL without memory; *cycle set for a graph with a cycle. */
static plan *plan_make(const graph *g, int *cycle)
{
    plan *p = (plan *)calloc(1, sizeof *p);
    size_t *order = (size_t *)malloc((g->n + 1) * sizeof *order), *at = (size_t *)malloc((g->n + 1) * sizeof *at);
    size_t k, j;
    int ok = p && order && at;
    *cycle = 0;
    if (ok && !graph_order(g, order)) *cycle = 1, ok = 0;
    if (ok) p->refs = 1;
    for (k = 0; ok && k < g->n; k++) at[order[k]] = k;
    for (k = 0; ok && k < g->n; k++) {
        const gnode *src = g->nodes[order[k]];
        gnode *n = gnode_new(&p->g);
        if (!n) {
            ok = 0;
            break;
        }
        n->id = src->id, n->from = src->from;
        for (j = 0; ok && j < src->d.n; j++) ok = deps_add(&n->d, at[src->d.v[j]]);
        if (src->o.kind == 13) {
            int inner;
            n->o = src->o;
            n->o.kind = 9, n->o.child = NULL;
            if (!(n->o.plan = plan_make(src->o.child, &inner))) n->o.kind = 10, ok = 0;
        } else if (!op_copy(&n->o, &src->o)) {
            ok = 0;
        }
    }
    free(order);
    free(at);
    if (ok && !urefs_copy(&p->g, g)) ok = 0;
    if (ok || !p) return ok ? p : NULL;
    plan_unref(p);
    return NULL;
}

static void plan_ref(plan *p) { __atomic_add_fetch(&p->refs, 1, __ATOMIC_ACQ_REL); }

/* Undoes mem_exec_link when the graph g or the exec x goes (the other
   argument NULL: it is found through the one given). */
static void mem_exec_unlink(graph *g, exec *x)
{
    pthread_mutex_lock(&exec_lock);
    if (g && g->mem_exec) g->mem_exec->src = NULL, g->mem_exec = NULL;
    if (x && x->src) x->src->mem_exec = NULL, x->src = NULL;
    pthread_mutex_unlock(&exec_lock);
}

/* The graph's one exec if it has memory nodes: cudaErrorInvalidValue while
   another lives (cudaGraphInstantiate: "An attempt to instantiate a second
   executable graph before destroying the first with cudaGraphExecDestroy
   will result in an error", the error assumed to be the one it documents). */
static cudaError_t mem_exec_link(graph *g, exec *x)
{
    cudaError_t e = cudaSuccess;
    if (!graph_has_memory(g)) return cudaSuccess;
    pthread_mutex_lock(&exec_lock);
    if (g->mem_exec) e = cudaErrorInvalidValue;
    else g->mem_exec = x, x->src = g;
    pthread_mutex_unlock(&exec_lock);
    return e;
}

static void exec_unref(exec *x)
{
    int last;
    pthread_mutex_lock(&x->lock);
    last = --x->refs == 0;
    pthread_mutex_unlock(&x->lock);
    if (!last) return;
    plan_unref(x->cur);
    pthread_cond_destroy(&x->cond);
    pthread_mutex_destroy(&x->lock);
    free(x);
}

/* A launch runs after the exec's previous launch, wherever that was made. */
static void graph_run(op *o)
{
    exec *x = o->x;
    size_t i;
    pthread_mutex_lock(&x->lock);
    while (x->done + 1 < o->target) pthread_cond_wait(&x->cond, &x->lock);
    pthread_mutex_unlock(&x->lock);
    for (i = 0; i < o->plan->g.n; i++)
        if (!o->plan->g.nodes[i]->o.off) run(&o->plan->g.nodes[i]->o);
    pthread_mutex_lock(&x->lock);
    x->done = o->target;
    pthread_cond_broadcast(&x->cond);
    pthread_mutex_unlock(&x->lock);
}

/* A child graph node: its nodes in capture order (a topological order). */
static void run_child(plan *p)
{
    size_t i;
    for (i = 0; i < p->g.n; i++) run(&p->g.nodes[i]->o);
}

static int capture_state(stream *s);

/* A graph launched on a capturing stream: a child graph node, which shares
   the exec's current plan (its nodes keep no run state here). A graph with
   memory nodes cannot be a child (CUDA's rule; the error code is assumed). */
static cudaError_t capture_child(cudaStream_t st, exec *x)
{
    op *o = op_new(13);
    int memory;
    if (!o) return cudaErrorMemoryAllocation;
    pthread_mutex_lock(&x->lock);
    memory = graph_has_memory(&x->cur->g);
    o->child = memory ? NULL : child_dup(&x->cur->g);
    pthread_mutex_unlock(&x->lock);
    if (memory) {
        free(o);
        capturing_refused(stream_of(st));
        return cudaErrorNotSupported;
    }
    if (!o->child) {
        free(o);
        return cudaErrorMemoryAllocation;
    }
    return enqueue(st, o);
}

/* A launch records the events of its record nodes (a synchronize after
   it waits for them), as a record on a stream does when it is queued. */
static void plan_records(const plan *p)
{
    size_t i;
    for (i = 0; i < p->g.n; i++) {
        const op *o = &p->g.nodes[i]->o;
        if (o->kind == 9) plan_records(o->plan);
        if (o->kind != 11) continue;
        pthread_mutex_lock(&o->e->lock);
        o->e->recorded++;
        pthread_mutex_unlock(&o->e->lock);
    }
}

static void launch_done(op *o)
{
    plan_unref(o->plan);
    exec_unref(o->x);
}

static int mem_type(const void *p, int *device);

/* Whether a graph may be launched from the device (cudaGraphInstantiate:
   "Graphs instantiated for launch on the device have additional
   restrictions"): kernel, memcpy, memset and child graph nodes only, of
   one device, at least one that is not a child; a copy of device memory or
   pinned host memory only. *work counts the kernels, copies and memsets. */
static int device_launchable(const graph *g, int *device, size_t *work)
{
    size_t i;
    for (i = 0; i < g->n; i++) {
        const op *o = &g->nodes[i]->o;
        int d1 = -1, d2 = -1, t1, t2;
        if (o->kind == 13) {
            if (!device_launchable(o->child, device, work)) return 0;
            continue;
        }
        if (o->kind != 0 && o->kind != 1 && o->kind != 15) return 0;
        ++*work;
        if (o->kind == 15) continue;
        t1 = mem_type(o->dst, &d1);
        t2 = o->kind == 1 ? mem_type(o->src, &d2) : cudaMemoryTypeDevice;
        if (t1 == cudaMemoryTypeUnregistered || t2 == cudaMemoryTypeUnregistered) return 0;
        if (t1 == cudaMemoryTypeDevice && (*device >= 0 && d1 != *device)) return 0;
        if (t1 == cudaMemoryTypeDevice) *device = d1;
        if (o->kind == 1 && t2 == cudaMemoryTypeDevice && *device >= 0 && d2 != *device) return 0;
        if (o->kind == 1 && t2 == cudaMemoryTypeDevice) *device = d2;
    }
    return 1;
}

/* cudaGraphInstantiateFlags: Upload is cudaGraphInstantiateWithParams's
   only ("Only supported by cudaGraphInstantiateWithParams"); DeviceLaunch
   "cannot be used in conjunction with cudaGraphInstantiateFlagAutoFreeOnLaunch". */
static cudaError_t instantiate_flags_check(const graph *g, unsigned long long flags)
{
    int device = -1;
    size_t work = 0;
    if (flags & ~(unsigned long long)(cudaGraphInstantiateFlagAutoFreeOnLaunch | cudaGraphInstantiateFlagDeviceLaunch |
                                      cudaGraphInstantiateFlagUseNodePriority))
        return cudaErrorInvalidValue;
    if (!(flags & cudaGraphInstantiateFlagDeviceLaunch)) return cudaSuccess;
    if (flags & cudaGraphInstantiateFlagAutoFreeOnLaunch) return cudaErrorInvalidValue;
    return device_launchable(g, &device, &work) && work ? cudaSuccess : cudaErrorInvalidValue;
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *out, cudaGraph_t gr, unsigned long long flags)
{
    exec *x;
    cudaError_t fe;
    *out = NULL;
    if (!gr) return cudaErrorInvalidValue;
    if ((fe = instantiate_flags_check((const graph *)(void *)gr, flags)) != cudaSuccess) return fe;
    int cycle;
    if (!(x = (exec *)calloc(1, sizeof *x))) return cudaErrorMemoryAllocation;
    if (!(x->cur = plan_make((const graph *)(void *)gr, &cycle))) {
        free(x);
        return cycle ? cudaErrorInvalidValue : cudaErrorMemoryAllocation; /* a cycle: refused here, not when built */
    }
    if (mem_exec_link((graph *)(void *)gr, x) != cudaSuccess) {
        plan_unref(x->cur);
        free(x);
        return cudaErrorInvalidValue;
    }
    pthread_mutex_init(&x->lock, NULL);
    pthread_cond_init(&x->cond, NULL);
    x->refs = 1;
    x->auto_free = (flags & cudaGraphInstantiateFlagAutoFreeOnLaunch) != 0;
    *out = (cudaGraphExec_t)(void *)x;
    return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *out, cudaGraph_t gr, unsigned long long flags)
{
    return cudaGraphInstantiateWithFlags(out, gr, flags);
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t ge, cudaStream_t st)
{
    exec *x = (exec *)(void *)ge;
    stream *s = stream_of(st);
    op *o;
    cudaError_t e;
    if (!x) return cudaErrorInvalidValue; /* as CUDA's documentation: a NULL exec is an invalid value */
    if (!s) return cudaErrorInvalidResourceHandle;
    if (!is_legacy(st) && capture_state(s)) return capture_state(s) == 2 ? cudaErrorStreamCaptureInvalidated : capture_child(st, x);
    if (!(o = op_new(6))) return cudaErrorMemoryAllocation;
    pthread_mutex_lock(&x->lock);
    if ((e = graph_mem_launch(&x->cur->g, x->auto_free)) != cudaSuccess) {
        pthread_mutex_unlock(&x->lock);
        free(o);
        return e;
    }
    x->refs++;
    o->x = x;
    o->plan = x->cur;
    plan_records(o->plan);
    __atomic_add_fetch(&o->plan->refs, 1, __ATOMIC_ACQ_REL);
    o->target = ++x->launched;
    pthread_mutex_unlock(&x->lock);
    return enqueue(st, o);
}

/* Nothing to upload here: the exec's plan is made; the handles are checked
   as a launch checks them, and a capturing stream's capture is left as it is. */
cudaError_t cudaGraphUpload(cudaGraphExec_t ge, cudaStream_t st)
{
    if (!ge) return cudaErrorInvalidValue;
    if (!stream_of(st)) return cudaErrorInvalidResourceHandle;
    return cudaSuccess;
}

/* Freed when its last launch in flight completes, as CUDA does. */
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t ge)
{
    if (!ge) return cudaErrorInvalidValue;
    mem_exec_unlink(NULL, (exec *)(void *)ge);
    exec_unref((exec *)(void *)ge);
    return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t gr)
{
    if (!gr) return cudaErrorInvalidValue;
    graph_free((graph *)(void *)gr);
    return cudaSuccess;
}

/* Same nodes, same kinds, same edges (in run order): the new graph's
   parameters for later launches. Otherwise the first node that differs,
   and why. */
/* The exec's new plan: launches already made keep the one they hold. */
static void exec_swap(exec *x, plan *p)
{
    plan *old;
    pthread_mutex_lock(&x->lock);
    old = x->cur;
    x->cur = p;
    pthread_mutex_unlock(&x->lock);
    plan_unref(old);
}

/* A pointer's memory type as cudaPointerGetAttributes says it (0: not the
   runtime's), and its device. */
static int mem_type(const void *p, int *device)
{
    struct cudaPointerAttributes a;
    cudaPointerGetAttributes(&a, p);
    *device = a.device;
    return (int)a.type;
}

/* p's nodes in creation order (their ids), into ord; rank[i]: where node i is. */
static int plan_ranks(const plan *p, size_t *ord, size_t *rank)
{
    size_t i, j;
    for (i = 0; i < p->g.n; i++) ord[i] = i;
    for (i = 1; i < p->g.n; i++) /* insertion sort by id: graphs here are small */
        for (j = i; j > 0 && p->g.nodes[ord[j - 1]]->id > p->g.nodes[ord[j]]->id; j--) {
            size_t t = ord[j];
            ord[j] = ord[j - 1], ord[j - 1] = t;
        }
    for (i = 0; i < p->g.n; i++) rank[ord[i]] = i;
    return 1;
}

/* cudaGraphExecUpdate's limits between the exec's plan a and the new plan b,
   nodes paired in creation order: the result code, and b's node to blame
   (*bad) and the node a changed edge comes from (*from). */
static int plan_differ(const plan *a, plan *b, const gnode **bad, const gnode **from)
{
    size_t n = a->g.n, k, j, l, *oa, *ra, *ob, *rb;
    int r = cudaGraphExecUpdateSuccess;
    if (a->g.n != b->g.n) return cudaGraphExecUpdateErrorTopologyChanged;
    if (!(oa = (size_t *)malloc(4 * (n + 1) * sizeof *oa))) return cudaGraphExecUpdateError;
    ra = oa + n + 1, ob = ra + n + 1, rb = ob + n + 1;
    plan_ranks(a, oa, ra);
    plan_ranks(b, ob, rb);
    for (k = 0; k < n && r == cudaGraphExecUpdateSuccess; k++) {
        const gnode *x = a->g.nodes[oa[k]], *y = b->g.nodes[ob[k]];
        int t0, t1, d0, d1;
        *bad = y;
        if (x->o.kind != y->o.kind) r = cudaGraphExecUpdateErrorNodeTypeChanged;
        else if (x->d.n != y->d.n) r = cudaGraphExecUpdateErrorTopologyChanged;
        for (j = 0; j < y->d.n && r == cudaGraphExecUpdateSuccess; j++) {
            int found = 0;
            for (l = 0; l < x->d.n && !found; l++) found = ra[x->d.v[l]] == rb[y->d.v[j]];
            if (!found) r = cudaGraphExecUpdateErrorTopologyChanged, *from = b->g.nodes[y->d.v[j]];
        }
        if (r == cudaGraphExecUpdateSuccess && x->o.kind == 1 && /* a copy's memory types and devices stay */
            (mem_type(x->o.dst, &d0) != (t1 = mem_type(y->o.dst, &d1)) || (t1 && d0 != d1) ||
             mem_type(x->o.src, &d0) != (t1 = mem_type(y->o.src, &d1)) || (t1 && d0 != d1)))
            r = cudaGraphExecUpdateErrorParametersChanged;
        if (r == cudaGraphExecUpdateSuccess && x->o.kind == 0 && /* only 1-D memsets change; devices stay */
            (((x->o.height > 1 || y->o.height > 1 || x->o.elem != y->o.elem) &&
              (x->o.dst != y->o.dst || x->o.n != y->o.n || x->o.value != y->o.value || x->o.pitch != y->o.pitch ||
               x->o.height != y->o.height || x->o.elem != y->o.elem)) ||
             ((t0 = mem_type(x->o.dst, &d0)) != (t1 = mem_type(y->o.dst, &d1))) || (t1 && d0 != d1)))
            r = cudaGraphExecUpdateErrorParametersChanged;
        if (r == cudaGraphExecUpdateSuccess && (x->o.kind == 7 || x->o.kind == 8) && x->o.dst != y->o.dst)
            r = cudaGraphExecUpdateErrorNotSupported;
        if (r == cudaGraphExecUpdateSuccess && x->o.kind == 9) { /* a child graph: the same rules inside */
            const gnode *inner = NULL, *inner_from = NULL; /* blamed on the child node */
            if ((r = plan_differ(x->o.plan, y->o.plan, &inner, &inner_from)) != cudaGraphExecUpdateSuccess) *from = NULL;
        }
    }
    for (k = 0; k < n && r == cudaGraphExecUpdateSuccess; k++) /* "Enable state is unaffected by ... update" */
        b->g.nodes[ob[k]]->o.off = a->g.nodes[oa[k]]->o.off;
    free(oa);
    return r;
}

cudaError_t cudaGraphExecUpdate(cudaGraphExec_t ge, cudaGraph_t gr, cudaGraphExecUpdateResultInfo *info)
{
    exec *x = (exec *)(void *)ge;
    graph *g = (graph *)(void *)gr;
    const gnode *bad = NULL, *from = NULL;
    plan *p, *old;
    size_t j;
    int cycle;
    memset(info, 0, sizeof *info);
    if (!x || !g) return cudaErrorInvalidValue;
    if (!(p = plan_make(g, &cycle))) return cycle ? cudaErrorInvalidValue : cudaErrorMemoryAllocation;
    pthread_mutex_lock(&x->lock);
    old = x->cur;
    pthread_mutex_unlock(&x->lock);
    info->result = (enum cudaGraphExecUpdateResult)plan_differ(old, p, &bad, &from);
    if (info->result != cudaGraphExecUpdateSuccess) { /* the graph's own nodes, as CUDA names them */
        for (j = 0; j < g->n; j++) {
            if (bad && g->nodes[j]->id == bad->id) info->errorNode = (cudaGraphNode_t)(void *)g->nodes[j];
            if (from && g->nodes[j]->id == from->id) info->errorFromNode = (cudaGraphNode_t)(void *)g->nodes[j];
        }
        if (old->g.n != p->g.n) info->errorNode = NULL; /* a count: no node to blame */
        plan_unref(p);
        return cudaErrorGraphExecUpdateFailure;
    }
    exec_swap(x, p);
    return cudaSuccess;
}

cudaError_t cudaGraphGetNodes(cudaGraph_t gr, cudaGraphNode_t *nodes, size_t *count)
{
    graph *g = (graph *)(void *)gr;
    size_t i;
    if (!g || !count) return cudaErrorInvalidValue;
    for (i = 0; nodes && i < *count; i++) nodes[i] = i < g->n ? (cudaGraphNode_t)(void *)g->nodes[i] : NULL;
    *count = g->n;
    return cudaSuccess;
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *type)
{
    const gnode *n = (const gnode *)(void *)node;
    if (!n || !type) return cudaErrorInvalidValue;
    *type = n->o.kind == 0    ? cudaGraphNodeTypeMemset
            : n->o.kind == 1  ? cudaGraphNodeTypeMemcpy
            : n->o.kind == 7  ? cudaGraphNodeTypeMemAlloc
            : n->o.kind == 8  ? cudaGraphNodeTypeMemFree
            : n->o.kind == 9 || n->o.kind == 13 ? cudaGraphNodeTypeGraph
            : n->o.kind == 10 ? cudaGraphNodeTypeEmpty
            : n->o.kind == 11 ? cudaGraphNodeTypeEventRecord
            : n->o.kind == 12 ? cudaGraphNodeTypeWaitEvent
            : n->o.kind == 15 ? cudaGraphNodeTypeKernel
                              : cudaGraphNodeTypeHost;
    return cudaSuccess;
}

/* CUDA 13's form (12.3's cudaGraphGetEdges_v2): with from and to NULL, the
   count; else up to *count edges, with their data where data is given.
   "edgeData may alone be NULL, in which case the edges must all have
   default (zeroed) edge data": an edge list without it of a graph with an
   annotated edge is cudaErrorLossyQuery (any edge of the graph: the
   runtime does not say it looks only at the room given). */
cudaError_t cudaGraphGetEdges(cudaGraph_t gr, cudaGraphNode_t *from, cudaGraphNode_t *to, cudaGraphEdgeData *data,
                              size_t *count)
{
    static const cudaGraphEdgeData plain;
    graph *g = (graph *)(void *)gr;
    size_t i, j, k = 0, total = 0;
    if (!g || !count || (!from != !to) || (data && !from)) return cudaErrorInvalidValue;
    for (i = 0; from && !data && i < g->n; i++)
        if (deps_annotated(&g->nodes[i]->d)) return cudaErrorLossyQuery;
    for (i = 0; i < g->n; i++)
        for (j = 0; j < g->nodes[i]->d.n; j++, total++)
            if (from && total < *count) {
                from[total] = (cudaGraphNode_t)(void *)g->nodes[g->nodes[i]->d.v[j]];
                to[total] = (cudaGraphNode_t)(void *)g->nodes[i];
                if (data) data[total] = g->nodes[i]->d.data ? g->nodes[i]->d.data[j] : plain;
            }
    for (k = total; from && k < *count; k++) from[k] = to[k] = NULL;
    if (!from || *count > total) *count = total;
    return cudaSuccess;
}

/* The graph as DOT: a node per line, an edge per dependency (the runtime's
   own labels say more; a path it cannot open: cudaErrorInvalidValue,
   assumed). */
cudaError_t cudaGraphDebugDotPrint(cudaGraph_t gr, const char *path, unsigned flags)
{
    static const char *const kinds[] = {"memset", "memcpy", "host", "record", "wait", "callback", "?", "mem_alloc",
                                        "mem_free", "graph", "empty", "event_record", "event_wait", "graph", "?",
                                        "kernel"};
    graph *g = (graph *)(void *)gr;
    FILE *f;
    size_t i, j;
    int bad;
    if (!g || !path || flags > 1 || !(f = fopen(path, "w"))) return cudaErrorInvalidValue;
    fprintf(f, "digraph dot {\n");
    for (i = 0; i < g->n; i++) fprintf(f, "  node%zu [label=\"%s\"];\n", i, kinds[g->nodes[i]->o.kind]);
    for (i = 0; i < g->n; i++)
        for (j = 0; j < g->nodes[i]->d.n; j++) fprintf(f, "  node%zu -> node%zu;\n", g->nodes[i]->d.v[j], i);
    fprintf(f, "}\n");
    bad = ferror(f);
    return fclose(f) == 0 && !bad ? cudaSuccess : cudaErrorInvalidValue;
}

/* >> graphs built node by node: cudaGraphCreate, the adds, edges, lists,
   params in a graph and in an exec, destroy, clone. What CUDA refuses is
   refused here with cudaErrorInvalidValue: a NULL graph, node or out
   pointer, a dependency that is not a node of the graph or given twice, an
   edge from a node to itself, one there already (add) or not there
   (remove), params of another node type, a memset of elements other than
   1, 2 or 4 bytes or with a pitch shorter than its rows, a host node
   without a function, a child graph that is the graph itself, a node not
   of the exec's graph, and in an exec a memset that is not 1-D or is
   empty (as cudaGraphExecMemsetNodeSetParams documents). An edge that
   closes a cycle is taken, as CUDA takes it; the instantiate refuses the
   graph. A graph with memory nodes is no child and has no clone here
   (cudaErrorNotSupported, assumed). Kernel nodes of the double's empty
   kernel only: no driver API. */
static long node_index(const graph *g, const gnode *n)
{
    size_t i;
    for (i = 0; g && n && i < g->n; i++)
        if (g->nodes[i] == n) return (long)i;
    return -1;
}

/* deps as indices of g into d: each a node of g, once. */
static cudaError_t deps_of(const graph *g, const cudaGraphNode_t *v, size_t n, deps *d)
{
    size_t i;
    if (n && !v) return cudaErrorInvalidValue;
    for (i = 0; i < n; i++) {
        long at = node_index(g, (const gnode *)(const void *)v[i]);
        if (at < 0 || deps_has(d, (size_t)at)) return cudaErrorInvalidValue;
        if (!deps_add(d, (size_t)at)) return cudaErrorMemoryAllocation;
    }
    return cudaSuccess;
}

/* A node of op o (whose holdings it takes on success) after deps. */
static cudaError_t node_add(cudaGraphNode_t *out, cudaGraph_t gr, const cudaGraphNode_t *v, size_t n, const op *o)
{
    graph *g = (graph *)(void *)gr;
    deps d = {NULL, 0, NULL};
    gnode *node;
    cudaError_t e;
    if (!out || !g) return cudaErrorInvalidValue;
    *out = NULL;
    if ((e = deps_of(g, v, n, &d)) != cudaSuccess || !(node = gnode_new(g))) {
        deps_clear(&d);
        return e != cudaSuccess ? e : cudaErrorMemoryAllocation;
    }
    node->o = *o;
    node->d = d;
    *out = (cudaGraphNode_t)(void *)node;
    return cudaSuccess;
}

cudaError_t cudaGraphCreate(cudaGraph_t *out, unsigned flags)
{
    graph *g;
    if (!out || flags) return cudaErrorInvalidValue;
    if (!(g = (graph *)calloc(1, sizeof *g))) return cudaErrorMemoryAllocation;
    *out = (cudaGraph_t)(void *)g;
    return cudaSuccess;
}

static cudaError_t copy_check(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    if ((unsigned)kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
    return count && (!dst || !src) ? cudaErrorInvalidValue : cudaSuccess;
}

static void copy_op(op *o, void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    memset(o, 0, sizeof *o);
    o->kind = 1, o->dst = dst, o->src = src, o->n = count, o->copy_kind = (int)kind;
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *out, cudaGraph_t gr, const cudaGraphNode_t *deps, size_t n,
                                     void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    op o;
    cudaError_t e = copy_check(dst, src, count, kind);
    if (e != cudaSuccess) return e;
    copy_op(&o, dst, src, count, kind);
    return node_add(out, gr, deps, n, &o);
}

/* A copy node of 3-D params, checked as cudaMemcpy3DAsync checks them (the
   double has no arrays); an empty extent is cudaErrorInvalidValue here. */
static cudaError_t box_check(struct cudaPitchedPtr p, struct cudaPos pos, struct cudaExtent e);
static char *box_at(struct cudaPitchedPtr p, struct cudaPos pos);
static gnode *node_of(cudaGraphNode_t node, int kind, int also);
static cudaError_t box_op(op *o, const struct cudaMemcpy3DParms *p)
{
    cudaError_t e;
    if (!p || p->srcArray || p->dstArray || (unsigned)p->kind > cudaMemcpyDefault) return cudaErrorInvalidValue;
    if (!p->extent.width || !p->extent.height || !p->extent.depth) return cudaErrorInvalidValue;
    if ((e = box_check(p->srcPtr, p->srcPos, p->extent)) != cudaSuccess ||
        (e = box_check(p->dstPtr, p->dstPos, p->extent)) != cudaSuccess)
        return e;
    memset(o, 0, sizeof *o);
    o->kind = 1, o->dst = box_at(p->dstPtr, p->dstPos), o->src = box_at(p->srcPtr, p->srcPos);
    o->n = p->extent.width, o->height = p->extent.height, o->depth = p->extent.depth;
    o->pitch = p->dstPtr.pitch, o->spitch = p->srcPtr.pitch;
    o->dslice = p->dstPtr.pitch * p->dstPtr.ysize, o->sslice = p->srcPtr.pitch * p->srcPtr.ysize;
    o->copy_kind = (int)p->kind;
    return cudaSuccess;
}

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *out, cudaGraph_t gr, const cudaGraphNode_t *deps, size_t n,
                                   const struct cudaMemcpy3DParms *p)
{
    op o;
    cudaError_t e = box_op(&o, p);
    return e != cudaSuccess ? e : node_add(out, gr, deps, n, &o);
}

cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node, const struct cudaMemcpy3DParms *p)
{
    gnode *n = node_of(node, 1, -1);
    op o;
    cudaError_t e = n ? box_op(&o, p) : cudaErrorInvalidValue;
    if (e == cudaSuccess) n->o = o;
    return e;
}

static cudaError_t set_op(op *o, const struct cudaMemsetParams *p)
{
    size_t row;
    if (!p || !p->dst || (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4) || !p->height)
        return cudaErrorInvalidValue;
    row = p->width * p->elementSize;
    if ((p->height > 1 && p->pitch < row) || (uintptr_t)p->dst % p->elementSize) return cudaErrorInvalidValue;
    memset(o, 0, sizeof *o);
    o->kind = 0, o->dst = p->dst, o->value = (int)p->value, o->n = p->width, o->elem = p->elementSize;
    o->height = p->height, o->pitch = p->height > 1 ? p->pitch : row;
    return cudaSuccess;
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *out, cudaGraph_t gr, const cudaGraphNode_t *deps, size_t n,
                                   const struct cudaMemsetParams *p)
{
    op o;
    cudaError_t e = set_op(&o, p);
    return e != cudaSuccess ? e : node_add(out, gr, deps, n, &o);
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *out, cudaGraph_t gr, const cudaGraphNode_t *deps, size_t n,
                                 const struct cudaHostNodeParams *p)
{
    op o;
    if (!p || !p->fn) return cudaErrorInvalidValue;
    memset(&o, 0, sizeof o);
    o.kind = 2, o.fn = p->fn, o.user = p->userData;
    return node_add(out, gr, deps, n, &o);
}

cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *out, cudaGraph_t gr, const cudaGraphNode_t *deps, size_t n,
                                       cudaGraph_t child)
{
    op o;
    cudaError_t e;
    if (!child || child == gr) return cudaErrorInvalidValue;
    if (graph_has_memory((const graph *)(void *)child)) return cudaErrorInvalidValue; /* its documented error */
    memset(&o, 0, sizeof o);
    o.kind = 13;
    if (!(o.child = child_dup((const graph *)(void *)child))) return cudaErrorMemoryAllocation;
    if ((e = node_add(out, gr, deps, n, &o)) != cudaSuccess) graph_free(o.child);
    return e;
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *out, cudaGraph_t gr, const cudaGraphNode_t *deps, size_t n)
{
    op o;
    memset(&o, 0, sizeof o);
    o.kind = 10;
    return node_add(out, gr, deps, n, &o);
}

/* The one kernel this runtime knows, as there is no driver to load others:
   it does nothing. Its kernel nodes are what only kernel nodes may have,
   annotated edges (edge_valid). Another function is
   cudaErrorInvalidDeviceFunction, as for a host function that is no
   kernel; an empty grid or block cudaErrorInvalidValue (assumed). */
void cudart_double_empty_kernel(void) {}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *out, cudaGraph_t gr, const cudaGraphNode_t *deps, size_t n,
                                   const struct cudaKernelNodeParams *p)
{
    void (*empty)(void) = cudart_double_empty_kernel;
    op o;
    if (!p) return cudaErrorInvalidValue;
    if (memcmp(&p->func, &empty, sizeof empty) != 0) return cudaErrorInvalidDeviceFunction;
    if (!p->gridDim.x || !p->gridDim.y || !p->gridDim.z || !p->blockDim.x || !p->blockDim.y || !p->blockDim.z)
        return cudaErrorInvalidValue;
    memset(&o, 0, sizeof o);
    o.kind = 15;
    return node_add(out, gr, deps, n, &o);
}

static cudaError_t event_node(cudaGraphNode_t *out, cudaGraph_t gr, const cudaGraphNode_t *deps, size_t n,
                              cudaEvent_t ev, int kind)
{
    op o;
    cudaError_t e;
    if (!ev) return cudaErrorInvalidValue;
    memset(&o, 0, sizeof o);
    o.kind = kind, o.e = (event *)(void *)ev;
    event_ref(o.e);
    if ((e = node_add(out, gr, deps, n, &o)) != cudaSuccess) event_unref(o.e);
    return e;
}

cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *out, cudaGraph_t gr, const cudaGraphNode_t *deps, size_t n,
                                        cudaEvent_t ev)
{
    return event_node(out, gr, deps, n, ev, 11);
}

cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *out, cudaGraph_t gr, const cudaGraphNode_t *deps, size_t n,
                                      cudaEvent_t ev)
{
    return event_node(out, gr, deps, n, ev, 12);
}

/* Whether e (NULL: none) may annotate an edge from node f to node t, as
   cudaGraphEdgeData's fields say: "Only kernel nodes define non-zero
   ports" (from_port: 0, cudaGraphKernelNodePortProgrammatic, which "must
   be used with edge type cudaGraphDependencyTypeProgrammatic", or
   cudaGraphKernelNodePortLaunchCompletion), to_port "must be set to zero",
   a programmatic edge "may only be used between kernel nodes" with one of
   those two ports, and the reserved bytes "must be zeroed" (stricter than
   CUDA if it does not look). */
static int edge_valid(const gnode *f, const gnode *t, const cudaGraphEdgeData *e)
{
    static const unsigned char zero[sizeof e->reserved];
    int kernels = f->o.kind == 15 && t->o.kind == 15;
    if (edge_plain(e)) return 1;
    if (!kernels || e->to_port || e->from_port > cudaGraphKernelNodePortLaunchCompletion ||
        e->type > cudaGraphDependencyTypeProgrammatic || memcmp(e->reserved, zero, sizeof zero))
        return 0;
    if (e->from_port == cudaGraphKernelNodePortProgrammatic && e->type != cudaGraphDependencyTypeProgrammatic) return 0;
    return e->type != cudaGraphDependencyTypeProgrammatic || e->from_port != cudaGraphKernelNodePortDefault;
}

/* Where f is among d's edges (d has it). */
static size_t deps_at(const deps *d, size_t f)
{
    size_t j;
    for (j = 0; d->v[j] != f; j++) {}
    return j;
}

/* Whether the edge to t from node index f is there, its annotation e
   (NULL: plain): a removal names the edge with its data ("Specifying an
   edge that does not exist in the graph, with data matching edgeData,
   results in an error"). */
static int edge_there(const gnode *t, size_t f, const cudaGraphEdgeData *e)
{
    static const cudaGraphEdgeData zero;
    const cudaGraphEdgeData *have;
    if (!deps_has(&t->d, f)) return 0;
    have = t->d.data ? &t->d.data[deps_at(&t->d, f)] : &zero;
    return !memcmp(have, e ? e : &zero, sizeof zero);
}

/* Pairs of nodes of g as indices; InvalidValue for one that is not an
   edge to add (remove: not there with that data), whose data is not valid
   there (edge_valid), or that is given twice. All or nothing. */
static cudaError_t edges_edit(cudaGraph_t gr, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                              const cudaGraphEdgeData *data, size_t n, int remove)
{
    graph *g = (graph *)(void *)gr;
    size_t i, j;
    if (!g || (n && (!from || !to))) return cudaErrorInvalidValue;
    if (remove && n && graph_has_memory(g)) return cudaErrorInvalidValue; /* as cudaGraphDestroyNode */
    for (i = 0; i < n; i++) {
        long f = node_index(g, (const gnode *)(const void *)from[i]), t = node_index(g, (const gnode *)(const void *)to[i]);
        const cudaGraphEdgeData *e = data ? &data[i] : NULL;
        if (f < 0 || t < 0 || f == t) return cudaErrorInvalidValue;
        if (remove ? !edge_there(g->nodes[t], (size_t)f, e)
                   : deps_has(&g->nodes[t]->d, (size_t)f) || !edge_valid(g->nodes[f], g->nodes[t], e))
            return cudaErrorInvalidValue;
        for (j = 0; j < i; j++)
            if (from[j] == from[i] && to[j] == to[i]) return cudaErrorInvalidValue;
    }
    for (i = 0; i < n; i++) {
        gnode *t = (gnode *)(void *)to[i];
        size_t f = (size_t)node_index(g, (const gnode *)(const void *)from[i]);
        if (!remove && !deps_add_with(&t->d, f, data ? &data[i] : NULL)) return cudaErrorMemoryAllocation;
        if (remove) {
            j = deps_at(&t->d, f);
            deps_move(&t->d, --t->d.n, j);
        }
    }
    return cudaSuccess;
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t gr, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                     const cudaGraphEdgeData *data, size_t n)
{
    return edges_edit(gr, from, to, data, n, 0);
}

cudaError_t cudaGraphRemoveDependencies(cudaGraph_t gr, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                        const cudaGraphEdgeData *data, size_t n)
{
    return edges_edit(gr, from, to, data, n, 1);
}

/* CUDA's list rule: NULL nodes, the count; else up to *count of them, the
   rest of the room NULL, and *count the number written; their edges' data
   (ed, NULL: all plain) where data is given. */
static cudaError_t list_out(gnode *const *v, const cudaGraphEdgeData *ed, size_t total, cudaGraphNode_t *nodes,
                            cudaGraphEdgeData *data, size_t *count)
{
    size_t i;
    if (!count) return cudaErrorInvalidValue;
    for (i = 0; nodes && i < *count; i++) {
        nodes[i] = i < total ? (cudaGraphNode_t)(void *)v[i] : NULL;
        if (data) memset(&data[i], 0, sizeof data[i]);
        if (data && ed && i < total) data[i] = ed[i];
    }
    if (!nodes || *count > total) *count = total;
    return cudaSuccess;
}

/* The nodes of g that pass keep(g, i, arg), listed; edge(g, i, arg), where
   given, the annotation of the edge that makes node i one (NULL: plain).
   A node's edges listed without their data while one is annotated are
   cudaErrorLossyQuery ("if an edge has non-zero (non-default) edge data
   and edgeData is NULL"; not for a count, as edgeData "must" come with
   the nodes). */
static cudaError_t list_where(const graph *g, int (*keep)(const graph *, size_t, const void *),
                              const cudaGraphEdgeData *(*edge)(const graph *, size_t, const void *), const void *arg,
                              cudaGraphNode_t *nodes, cudaGraphEdgeData *data, size_t *count)
{
    gnode **v = (gnode **)malloc((g->n + 1) * sizeof *v);
    cudaGraphEdgeData *ed = (cudaGraphEdgeData *)calloc(g->n + 1, sizeof *ed);
    size_t i, n = 0;
    int annotated = 0;
    cudaError_t e;
    if (data && !nodes) e = cudaErrorInvalidValue;
    else if (!v || !ed) e = cudaErrorMemoryAllocation;
    else e = cudaSuccess;
    for (i = 0; e == cudaSuccess && i < g->n; i++)
        if (keep(g, i, arg)) {
            const cudaGraphEdgeData *x = edge ? edge(g, i, arg) : NULL;
            if (x) ed[n] = *x, annotated |= !edge_plain(x);
            v[n++] = g->nodes[i];
        }
    if (e == cudaSuccess && nodes && !data && annotated) e = cudaErrorLossyQuery;
    if (e == cudaSuccess) e = list_out(v, ed, n, nodes, data, count);
    free(v);
    free(ed);
    return e;
}

static int is_root(const graph *g, size_t i, const void *arg)
{
    (void)arg;
    return g->nodes[i]->d.n == 0;
}

static int depends_on(const graph *g, size_t i, const void *arg)
{
    return deps_has(&g->nodes[i]->d, (size_t)node_index(g, (const gnode *)arg));
}

static int is_dep_of(const graph *g, size_t i, const void *arg)
{
    (void)g;
    return deps_has(&((const gnode *)arg)->d, i);
}

/* The annotation of the edge to t from node f (NULL: plain). */
static const cudaGraphEdgeData *edge_data(const gnode *t, size_t f)
{
    return t->d.data ? &t->d.data[deps_at(&t->d, f)] : NULL;
}

static const cudaGraphEdgeData *edge_from(const graph *g, size_t i, const void *arg)
{
    return edge_data(g->nodes[i], (size_t)node_index(g, (const gnode *)arg));
}

static const cudaGraphEdgeData *edge_to(const graph *g, size_t i, const void *arg)
{
    (void)g;
    return edge_data((const gnode *)arg, i);
}

cudaError_t cudaGraphGetRootNodes(cudaGraph_t gr, cudaGraphNode_t *nodes, size_t *count)
{
    graph *g = (graph *)(void *)gr;
    return g ? list_where(g, is_root, NULL, NULL, nodes, NULL, count) : cudaErrorInvalidValue;
}

cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *deps, cudaGraphEdgeData *data,
                                         size_t *count)
{
    const gnode *n = (const gnode *)(void *)node;
    return n ? list_where(n->owner, is_dep_of, edge_to, n, deps, data, count) : cudaErrorInvalidValue;
}

cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t *nodes, cudaGraphEdgeData *data,
                                           size_t *count)
{
    const gnode *n = (const gnode *)(void *)node;
    return n ? list_where(n->owner, depends_on, edge_from, n, nodes, data, count) : cudaErrorInvalidValue;
}

/* The node and its edges go; the indices after it move down. */
cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node)
{
    gnode *n = (gnode *)(void *)node;
    graph *g = n ? n->owner : NULL;
    long at = node_index(g, n);
    size_t i, j, k;
    if (at < 0) return cudaErrorInvalidValue;
    if (graph_has_memory(g)) return cudaErrorInvalidValue; /* CUDA: "nodes and edges of the graph cannot be deleted" */
    memmove(&g->nodes[at], &g->nodes[at + 1], (g->n - (size_t)at - 1) * sizeof *g->nodes);
    g->n--;
    for (i = 0; i < g->n; i++) {
        deps *d = &g->nodes[i]->d;
        for (j = k = 0; j < d->n; j++)
            if (d->v[j] != (size_t)at) {
                deps_move(d, j, k);
                d->v[k] -= d->v[k] > (size_t)at;
                k++;
            }
        d->n = k;
    }
    gnode_free(n);
    return cudaSuccess;
}

cudaError_t cudaGraphClone(cudaGraph_t *out, cudaGraph_t gr)
{
    const graph *g = (const graph *)(void *)gr;
    graph *c;
    if (!out || !g) return cudaErrorInvalidValue;
    *out = NULL;
    if (graph_has_memory(g)) return cudaErrorNotSupported;
    if (!(c = graph_dup(g))) return cudaErrorMemoryAllocation;
    *out = (cudaGraph_t)(void *)c;
    return cudaSuccess;
}

cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t *out, cudaGraphNode_t original, cudaGraph_t clone)
{
    const gnode *o = (const gnode *)(void *)original;
    const graph *c = (const graph *)(void *)clone;
    size_t i;
    if (!out || !o || !c) return cudaErrorInvalidValue;
    for (i = 0; i < c->n; i++)
        if (c->nodes[i]->from == o->id) {
            *out = (cudaGraphNode_t)(void *)c->nodes[i];
            return cudaSuccess;
        }
    return cudaErrorInvalidValue;
}

/* A node of kind `kind` (either of kind and also, where also >= 0). */
static gnode *node_of(cudaGraphNode_t node, int kind, int also)
{
    gnode *n = (gnode *)(void *)node;
    return n && (n->o.kind == kind || n->o.kind == also) ? n : NULL;
}

cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node, struct cudaMemcpy3DParms *p)
{
    const gnode *n = node_of(node, 1, -1);
    if (!n || !p) return cudaErrorInvalidValue;
    memset(p, 0, sizeof *p);
    if (n->o.height) { /* positions folded into the pointers */
        p->srcPtr.ptr = (void *)(uintptr_t)n->o.src, p->srcPtr.pitch = n->o.spitch, p->srcPtr.xsize = n->o.n;
        p->srcPtr.ysize = n->o.depth > 1 ? n->o.sslice / n->o.spitch : n->o.height;
        p->dstPtr.ptr = n->o.dst, p->dstPtr.pitch = n->o.pitch, p->dstPtr.xsize = n->o.n;
        p->dstPtr.ysize = n->o.depth > 1 ? n->o.dslice / n->o.pitch : n->o.height;
        p->extent.width = n->o.n, p->extent.height = n->o.height, p->extent.depth = n->o.depth;
        p->kind = (enum cudaMemcpyKind)n->o.copy_kind;
        return cudaSuccess;
    }
    p->srcPtr.ptr = (void *)(uintptr_t)n->o.src, p->srcPtr.pitch = p->srcPtr.xsize = n->o.n, p->srcPtr.ysize = 1;
    p->dstPtr.ptr = n->o.dst, p->dstPtr.pitch = p->dstPtr.xsize = n->o.n, p->dstPtr.ysize = 1;
    p->extent.width = n->o.n, p->extent.height = p->extent.depth = 1;
    p->kind = (enum cudaMemcpyKind)n->o.copy_kind;
    return cudaSuccess;
}

cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void *dst, const void *src, size_t count,
                                           enum cudaMemcpyKind kind)
{
    gnode *n = node_of(node, 1, -1);
    cudaError_t e = n ? copy_check(dst, src, count, kind) : cudaErrorInvalidValue;
    if (e == cudaSuccess) copy_op(&n->o, dst, src, count, kind);
    return e;
}

cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node, struct cudaMemsetParams *p)
{
    const gnode *n = node_of(node, 0, -1);
    if (!n || !p) return cudaErrorInvalidValue;
    memset(p, 0, sizeof *p);
    p->dst = n->o.dst, p->value = (unsigned)n->o.value, p->elementSize = n->o.elem ? n->o.elem : 1;
    p->width = n->o.n, p->height = n->o.height ? n->o.height : 1, p->pitch = n->o.height > 1 ? n->o.pitch : 0;
    return cudaSuccess;
}

cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const struct cudaMemsetParams *p)
{
    gnode *n = node_of(node, 0, -1);
    op o;
    cudaError_t e = n ? set_op(&o, p) : cudaErrorInvalidValue;
    if (e == cudaSuccess) n->o = o;
    return e;
}

cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, struct cudaHostNodeParams *p)
{
    const gnode *n = node_of(node, 2, -1);
    if (!n || !p) return cudaErrorInvalidValue;
    p->fn = n->o.fn, p->userData = n->o.user;
    return cudaSuccess;
}

cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const struct cudaHostNodeParams *p)
{
    gnode *n = node_of(node, 2, -1);
    if (!n || !p || !p->fn) return cudaErrorInvalidValue;
    n->o.fn = p->fn, n->o.user = p->userData;
    return cudaSuccess;
}

cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t *out)
{
    const gnode *n = node_of(node, 13, -1);
    if (!n || !out) return cudaErrorInvalidValue;
    *out = (cudaGraph_t)(void *)n->o.child;
    return cudaSuccess;
}

static cudaError_t event_get(cudaGraphNode_t node, int kind, cudaEvent_t *out)
{
    const gnode *n = node_of(node, kind, -1);
    if (!n || !out) return cudaErrorInvalidValue;
    *out = (cudaEvent_t)(void *)n->o.e;
    return cudaSuccess;
}

/* An event node's op takes ev (held) in place of its own. */
static cudaError_t event_set(op *o, cudaEvent_t ev)
{
    if (!ev) return cudaErrorInvalidValue;
    event_ref((event *)(void *)ev);
    event_unref(o->e);
    o->e = (event *)(void *)ev;
    return cudaSuccess;
}

cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *out) { return event_get(node, 11, out); }
cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *out) { return event_get(node, 12, out); }

cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node, cudaEvent_t ev)
{
    gnode *n = node_of(node, 11, -1);
    return n ? event_set(&n->o, ev) : cudaErrorInvalidValue;
}

cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node, cudaEvent_t ev)
{
    gnode *n = node_of(node, 12, -1);
    return n ? event_set(&n->o, ev) : cudaErrorInvalidValue;
}

/* In an exec: its copy of node (of the graph it was made or last updated
   from), of kind `kind`, changed by edit(op, arg) in a new plan for later
   launches; launches in flight keep theirs. */
/* The nodes cudaGraphNodeSetEnabled takes: "only kernel, memset and memcpy nodes are supported". */
static int switchable(int kind) { return kind == 0 || kind == 1 || kind == 15; }

/* A new plan for the exec with its copy of node, of `kind` (-1: one that
   switches off), changed by edit. */
static cudaError_t exec_edit(cudaGraphExec_t ge, cudaGraphNode_t node, int kind,
                             cudaError_t (*edit)(op *o, const void *arg), const void *arg)
{
    exec *x = (exec *)(void *)ge;
    const gnode *n = (const gnode *)(void *)node;
    plan *p, *old;
    size_t i;
    int cycle;
    cudaError_t e = cudaErrorInvalidValue;
    if (!x || !n) return cudaErrorInvalidValue;
    pthread_mutex_lock(&x->lock);
    old = x->cur;
    plan_ref(old);
    pthread_mutex_unlock(&x->lock);
    if (!(p = plan_make(&old->g, &cycle))) {
        plan_unref(old);
        return cudaErrorMemoryAllocation;
    }
    for (i = 0; i < p->g.n; i++) {
        op *o = &p->g.nodes[i]->o;
        int off = o->off;
        if (p->g.nodes[i]->id != n->id || (kind >= 0 ? o->kind != kind : !switchable(o->kind))) continue;
        e = edit(o, arg);
        if (kind >= 0) o->off = off; /* params set while it is off take effect when it is on again */
    }
    plan_unref(old);
    if (e != cudaSuccess) {
        plan_unref(p);
        return e;
    }
    exec_swap(x, p);
    return cudaSuccess;
}

typedef struct copy_args { void *dst; const void *src; size_t count; enum cudaMemcpyKind kind; } copy_args;
static cudaError_t copy_edit(op *o, const void *arg)
{
    const copy_args *a = (const copy_args *)arg;
    cudaError_t e = o->height > 1 || o->depth > 1 ? cudaErrorInvalidValue /* 1-D only, as CUDA documents */
                                                  : copy_check(a->dst, a->src, a->count, a->kind);
    if (e == cudaSuccess) copy_op(o, a->dst, a->src, a->count, a->kind);
    return e;
}

cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t ge, cudaGraphNode_t node, void *dst, const void *src,
                                               size_t count, enum cudaMemcpyKind kind)
{
    copy_args a;
    a.dst = dst, a.src = src, a.count = count, a.kind = kind;
    return exec_edit(ge, node, 1, copy_edit, &a);
}

/* As CUDA documents cudaGraphExecMemcpyNodeSetParams: the exec's copy and
   the new one 1-D (one row, one slice), of some bytes. */
static cudaError_t box_edit(op *o, const void *arg)
{
    const struct cudaMemcpy3DParms *p = (const struct cudaMemcpy3DParms *)arg;
    op made;
    cudaError_t e;
    if (o->height > 1 || o->depth > 1 || !p || p->extent.height != 1 || p->extent.depth != 1) return cudaErrorInvalidValue;
    if ((e = box_op(&made, p)) == cudaSuccess) *o = made;
    return e;
}

cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t ge, cudaGraphNode_t node, const struct cudaMemcpy3DParms *p)
{
    return exec_edit(ge, node, 1, box_edit, p);
}

static cudaError_t set_edit(op *o, const void *arg)
{
    const struct cudaMemsetParams *p = (const struct cudaMemsetParams *)arg;
    op made;
    cudaError_t e;
    if (o->height > 1 || !p || p->height != 1 || !p->width) return cudaErrorInvalidValue; /* 1-D, not empty */
    if ((e = set_op(&made, p)) == cudaSuccess) *o = made;
    return e;
}

cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t ge, cudaGraphNode_t node, const struct cudaMemsetParams *p)
{
    return exec_edit(ge, node, 0, set_edit, p);
}

static cudaError_t host_edit(op *o, const void *arg)
{
    const struct cudaHostNodeParams *p = (const struct cudaHostNodeParams *)arg;
    if (!p || !p->fn) return cudaErrorInvalidValue;
    o->fn = p->fn, o->user = p->userData;
    return cudaSuccess;
}

cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t ge, cudaGraphNode_t node, const struct cudaHostNodeParams *p)
{
    return exec_edit(ge, node, 2, host_edit, p);
}

static cudaError_t event_edit(op *o, const void *arg) { return event_set(o, (cudaEvent_t)(uintptr_t)arg); }

cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t ge, cudaGraphNode_t node, cudaEvent_t ev)
{
    return exec_edit(ge, node, 11, event_edit, (const void *)ev);
}

cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t ge, cudaGraphNode_t node, cudaEvent_t ev)
{
    return exec_edit(ge, node, 12, event_edit, (const void *)ev);
}

static cudaError_t enabled_edit(op *o, const void *arg)
{
    o->off = !*(const unsigned *)arg;
    return cudaSuccess;
}

cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t ge, cudaGraphNode_t node, unsigned isEnabled)
{
    return exec_edit(ge, node, -1, enabled_edit, &isEnabled);
}

cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t ge, cudaGraphNode_t node, unsigned *isEnabled)
{
    exec *x = (exec *)(void *)ge;
    const gnode *n = (const gnode *)(void *)node;
    size_t i;
    cudaError_t e = cudaErrorInvalidValue;
    if (!x || !n || !isEnabled) return cudaErrorInvalidValue;
    pthread_mutex_lock(&x->lock);
    for (i = 0; i < x->cur->g.n; i++)
        if (x->cur->g.nodes[i]->id == n->id && switchable(x->cur->g.nodes[i]->o.kind))
            *isEnabled = !x->cur->g.nodes[i]->o.off, e = cudaSuccess;
    pthread_mutex_unlock(&x->lock);
    return e;
}

/* >> errors, versions, devices */
const char *cudaGetErrorName(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorNotSupported: return "cudaErrorNotSupported"; /* an entry point the double lacks */
    case cudaErrorIllegalState: return "cudaErrorIllegalState";
    case cudaErrorStreamCaptureUnsupported: return "cudaErrorStreamCaptureUnsupported";
    case cudaErrorStreamCaptureInvalidated: return "cudaErrorStreamCaptureInvalidated";
    case cudaErrorStreamCaptureMerge: return "cudaErrorStreamCaptureMerge";
    case cudaErrorStreamCaptureUnmatched: return "cudaErrorStreamCaptureUnmatched";
    case cudaErrorStreamCaptureUnjoined: return "cudaErrorStreamCaptureUnjoined";
    case cudaErrorStreamCaptureIsolation: return "cudaErrorStreamCaptureIsolation";
    case cudaErrorCapturedEvent: return "cudaErrorCapturedEvent";
    case cudaErrorStreamCaptureWrongThread: return "cudaErrorStreamCaptureWrongThread";
    case cudaErrorGraphExecUpdateFailure: return "cudaErrorGraphExecUpdateFailure";
    case cudaErrorPeerAccessAlreadyEnabled: return "cudaErrorPeerAccessAlreadyEnabled";
    case cudaErrorPeerAccessNotEnabled: return "cudaErrorPeerAccessNotEnabled";
    case cudaErrorLossyQuery: return "cudaErrorLossyQuery";
    case cudaErrorInvalidDeviceFunction: return "cudaErrorInvalidDeviceFunction";
    default: return "cudaErrorUnknown";
    }
}

const char *cudaGetErrorString(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorNotSupported: return "operation not supported (not in the test double)";
    case cudaErrorIllegalState: return "the operation cannot be performed in the present state";
    case cudaErrorStreamCaptureUnsupported: return "operation not permitted when stream is capturing";
    case cudaErrorStreamCaptureInvalidated: return "operation failed due to a previous error during capture";
    case cudaErrorStreamCaptureMerge: return "operation would result in a merge of separate capture sequences";
    case cudaErrorStreamCaptureUnmatched: return "capture was not ended in the same stream as it began";
    case cudaErrorStreamCaptureUnjoined: return "capturing stream has unjoined work";
    case cudaErrorStreamCaptureIsolation: return "dependency created on uncaptured work in another stream";
    case cudaErrorCapturedEvent: return "operation not permitted on an event last recorded in a capturing stream";
    case cudaErrorStreamCaptureWrongThread: return "attempt to terminate a thread-local capture sequence from another thread";
    case cudaErrorPeerAccessAlreadyEnabled: return "peer access is already enabled";
    case cudaErrorPeerAccessNotEnabled: return "peer access has not been enabled";
    case cudaErrorLossyQuery: return "attempted introspection would be semantically lossy";
    case cudaErrorInvalidDeviceFunction: return "invalid device function";
    case cudaErrorGraphExecUpdateFailure:
        return "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update";
    default: return "unknown error";
    }
}

cudaError_t cudaGetLastError(void) { return cudaSuccess; }
cudaError_t cudaRuntimeGetVersion(int *v) { *v = CUDART_VERSION; return cudaSuccess; }
static int bad_device(int d) { return d < 0 || d >= DEVICES; }
cudaError_t cudaGetDeviceCount(int *count) { *count = DEVICES; return cudaSuccess; }
cudaError_t cudaSetDevice(int d) { if (bad_device(d)) return cudaErrorInvalidDevice; current_device = d; return cudaSuccess; }
cudaError_t cudaGetDevice(int *d) { *d = current_device; return cudaSuccess; }

/* As CUDA: the current device's flags, cudaDeviceMask's bits only and at
   most one schedule bit (else cudaErrorInvalidValue), kept per device; the
   get adds cudaDeviceMapHost, which the runtime implies. */
static unsigned device_flags[DEVICES];
cudaError_t cudaSetDeviceFlags(unsigned f)
{
    unsigned sched = f & cudaDeviceScheduleMask;
    if ((f & ~(unsigned)cudaDeviceMask) || (sched & (sched - 1))) return cudaErrorInvalidValue;
    __atomic_store_n(&device_flags[current_device], f, __ATOMIC_RELAXED);
    return cudaSuccess;
}
cudaError_t cudaGetDeviceFlags(unsigned *f)
{
    if (!f) return cudaErrorInvalidValue;
    *f = __atomic_load_n(&device_flags[current_device], __ATOMIC_RELAXED) | cudaDeviceMapHost;
    return cudaSuccess;
}

/* Limits (cudaDeviceSetLimit, cudaDeviceGetLimit) of the current device,
   each value XOR its default so that zeroed memory is the defaults. The
   device is of compute capability 9.0, where "cudaLimitDevRuntimeSyncDepth
   ... will result in the error cudaErrorUnsupportedLimit"; the L2 hints are
   clamped, as the manual allows (fetch granularity 0 .. 128 bytes, the
   persisting size to the device's most). cudaDeviceReset restores them. */
#define LIMIT_PERSISTING_MAX ((size_t)4 << 20)
static const size_t limit_default[cudaLimitPersistingL2CacheSize + 1] = {1024, (size_t)1 << 20, (size_t)8 << 20, 2, 2048,
                                                                          64, 0};
static size_t limits[DEVICES][cudaLimitPersistingL2CacheSize + 1];

static cudaError_t limit_bad(enum cudaLimit limit)
{
    if ((unsigned)limit > cudaLimitPersistingL2CacheSize || limit == cudaLimitDevRuntimeSyncDepth)
        return cudaErrorUnsupportedLimit;
    return cudaSuccess;
}

cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
    cudaError_t e = limit_bad(limit);
    if (e != cudaSuccess) return e;
    if (limit == cudaLimitMaxL2FetchGranularity && value > 128) value = 128;
    if (limit == cudaLimitPersistingL2CacheSize && value > LIMIT_PERSISTING_MAX) value = LIMIT_PERSISTING_MAX;
    __atomic_store_n(&limits[current_device][limit], value ^ limit_default[limit], __ATOMIC_RELAXED);
    return cudaSuccess;
}

cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit)
{
    cudaError_t e = value ? limit_bad(limit) : cudaErrorInvalidValue;
    if (e != cudaSuccess) return e;
    *value = __atomic_load_n(&limits[current_device][limit], __ATOMIC_RELAXED) ^ limit_default[limit];
    return cudaSuccess;
}

/* The L1/shared preference of the current device: kept and given back
   (a preference, "not guaranteed"), none again after cudaDeviceReset. */
static int cache_config[DEVICES];

cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache config)
{
    if ((unsigned)config > cudaFuncCachePreferEqual) return cudaErrorInvalidValue;
    __atomic_store_n(&cache_config[current_device], (int)config, __ATOMIC_RELAXED);
    return cudaSuccess;
}

cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *config)
{
    if (!config) return cudaErrorInvalidValue;
    *config = (enum cudaFuncCache)__atomic_load_n(&cache_config[current_device], __ATOMIC_RELAXED);
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int d)
{
    if (bad_device(d)) return cudaErrorInvalidDevice;
    memset(p, 0, sizeof *p);
    strcpy(p->name, "cudart test double (no GPU)");
    p->totalGlobalMem = (size_t)1 << 34;
    p->major = 9;
    p->warpSize = 32;
    p->multiProcessorCount = 1;
    memcpy(p->uuid.bytes, d ? "cudart-double-01" : "cudart-double-00", sizeof p->uuid.bytes); /* a GPU has one */
    p->pciBusID = 0x41 + d;
    p->pciDeviceID = 0;
    p->pciDomainID = 0;
    return cudaSuccess;
}

/* An H100's answers where a test reads them (one multiprocessor, as the
   properties say); other attributes of the enum are 1, as flags mostly are.
   As the runtime: a NULL value or an attribute the enum lacks is
   cudaErrorInvalidValue. */
cudaError_t cudaDeviceGetAttribute(int *v, enum cudaDeviceAttr a, int d)
{
    if (!v || (int)a < (int)cudaDevAttrMaxThreadsPerBlock || (int)a == 44 || (int)a > (int)cudaDevAttrMax - 1)
        return cudaErrorInvalidValue;
    if (bad_device(d)) return cudaErrorInvalidDevice;
    switch (a) {
    case cudaDevAttrMaxThreadsPerBlock: case cudaDevAttrMaxBlockDimX: case cudaDevAttrMaxBlockDimY: *v = 1024; break;
    case cudaDevAttrMaxBlockDimZ: *v = 64; break;
    case cudaDevAttrMaxGridDimX: *v = 0x7fffffff; break;
    case cudaDevAttrMaxGridDimY: case cudaDevAttrMaxGridDimZ: *v = 65535; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *v = 49152; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *v = 232448; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *v = 233472; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *v = 2048; break;
    case cudaDevAttrMaxRegistersPerBlock: *v = 65536; break;
    case cudaDevAttrClockRate: *v = 1980000; break;
    case cudaDevAttrMemoryClockRate: *v = 2619000; break;
    case cudaDevAttrGlobalMemoryBusWidth: *v = 5120; break;
    case cudaDevAttrL2CacheSize: *v = 52428800; break;
    case cudaDevAttrAsyncEngineCount: *v = 2; break;
    case cudaDevAttrMaxPitch: *v = 0x7fffffff; break;
    case cudaDevAttrComputeCapabilityMajor: *v = 9; break;
    case cudaDevAttrComputeCapabilityMinor: case cudaDevAttrIntegrated: case cudaDevAttrPageableMemoryAccess:
    case cudaDevAttrPageableMemoryAccessUsesHostPageTables: *v = 0; break;
    case cudaDevAttrWarpSize: *v = 32; break;
    case cudaDevAttrMultiProcessorCount: *v = 1; break;
    case cudaDevAttrPciBusId: *v = 0x41 + d; break;
    case cudaDevAttrPciDeviceId: case cudaDevAttrPciDomainId: *v = 0; break;
    case cudaDevAttrNumaId: *v = -1; break;
    /* an H100 on PCIe in a server: compute mode default, no display watchdog, no host-native atomics */
    case cudaDevAttrComputeMode: *v = cudaComputeModeDefault; break;
    case cudaDevAttrKernelExecTimeout: case cudaDevAttrHostNativeAtomicSupported: *v = 0; break;
    /* GPUDirect RDMA: supported, flushed by cudaDeviceFlushGPUDirectRDMAWrites (the host option, 1), ordered for the owner */
    case cudaDevAttrGPUDirectRDMAWritesOrdering: *v = cudaGPUDirectRDMAWritesOrderingOwner; break;
    default: *v = 1; break;
    }
    return cudaSuccess;
}

/* As the runtime: the one target, and a scope of the two. */
cudaError_t cudaDeviceFlushGPUDirectRDMAWrites(enum cudaFlushGPUDirectRDMAWritesTarget target,
                                               enum cudaFlushGPUDirectRDMAWritesScope scope)
{
    if (target != cudaFlushGPUDirectRDMAWritesTargetCurrentDevice ||
        (scope != cudaFlushGPUDirectRDMAWritesToOwner && scope != cudaFlushGPUDirectRDMAWritesToAllDevices))
        return cudaErrorInvalidValue;
    return cudaSuccess; /* its device memory is host memory */
}

/* >> memory */
static cudaError_t allocate_on(void **p, size_t n, int host, int device)
{
    if (n == 0) { /* cudaMalloc, cudaMallocHost, cudaMallocAsync of 0 bytes: success and NULL */
        *p = NULL;
        return cudaSuccess;
    }
    if (n > ((size_t)1 << 40)) {
        *p = NULL;
        return cudaErrorMemoryAllocation;
    }
    *p = aligned_alloc(256, (n + 255) & ~(size_t)255);
    if (!*p) return cudaErrorMemoryAllocation;
    alloc_add(*p, n, host, device);
    return cudaSuccess;
}
static cudaError_t allocate(void **p, size_t n, int host) { return allocate_on(p, n, host, current_device); }
static void device_wait(int device);
static void stream_wait(stream *s);

static int graph_mem_release(void *p);

/* Allocation and free may wait for the device: unsafe under capture. */
/* Allocation and free may wait for the device: unsafe under capture. A
   pointer that is not an allocation of that kind (or is freed already) is
   cudaErrorInvalidValue, as cudaFree's documentation says; NULL is no
   operation. */
static cudaError_t release(void *p, int host)
{
    int graph;
    if (unsafe_refused()) return cudaErrorStreamCaptureUnsupported;
    if (!p) return cudaSuccess;
    if ((graph = graph_mem_release(p)) >= 0) return graph ? cudaErrorInvalidValue : cudaSuccess;
    device_wait(-1); /* every device's: at least as wide as the runtime's */
    if (!host && pool_free(p, NULL, 1) >= 0) return cudaSuccess; /* a pool's: back to it, the device idle */
    if (!alloc_take(p, host) && (host || !alloc_take(p, MANAGED))) return cudaErrorInvalidValue;
    free(p);
    return cudaSuccess;
}

cudaError_t cudaMalloc(void **p, size_t n) { return unsafe_refused() ? cudaErrorStreamCaptureUnsupported : allocate(p, n, 0); }
cudaError_t cudaFree(void *p) { return release(p, 0); }
/* As CUDA: flags an OR of cudaHostAllocPortable, _Mapped, _WriteCombined
   (else cudaErrorInvalidValue), kept for cudaHostGetFlags, which answers
   for pinned host memory of cudaHostAlloc only (not registered ranges). */
cudaError_t cudaHostAlloc(void **p, size_t n, unsigned f)
{
    cudaError_t e;
    alloc *a;
    if (f & ~(unsigned)(cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined))
        return cudaErrorInvalidValue;
    if (unsafe_refused()) return cudaErrorStreamCaptureUnsupported;
    if ((e = allocate(p, n, 1)) != cudaSuccess) return e;
    pthread_mutex_lock(&live_lock);
    for (a = allocs; a; a = a->next)
        if (a->base == (char *)*p) a->flags = f;
    pthread_mutex_unlock(&live_lock);
    return cudaSuccess;
}

cudaError_t cudaHostGetFlags(unsigned *f, void *p)
{
    const alloc *a;
    cudaError_t e = cudaErrorInvalidValue;
    if (!f) return cudaErrorInvalidValue;
    pthread_mutex_lock(&live_lock);
    for (a = allocs; a; a = a->next)
        if ((char *)p >= a->base && (char *)p < a->base + a->size) {
            if (a->host == 1) *f = a->flags, e = cudaSuccess;
            break;
        }
    pthread_mutex_unlock(&live_lock);
    return e;
}
cudaError_t cudaFreeHost(void *p) { return release(p, 1); }
static int host_side(const void *p);

/* Registered host memory: a record of kind 2 (host side, not freed by
   cudaFreeHost). As CUDA: a range overlapping memory the runtime holds is
   refused, device or managed memory (an allocation, graph memory, a pool's
   free block) with cudaErrorInvalidValue, pinned memory (cudaMallocHost's,
   a registered range) with cudaErrorHostMemoryAlreadyRegistered; an
   allocation holds the bytes it was rounded up to (256 here, whole pages
   there). A pointer that starts no registered range is
   cudaErrorHostMemoryNotRegistered; a range with a page not mapped in the
   process cannot be pinned (cudaErrorInvalidValue, "invalid argument", as
   the driver answers a failed pinning); a device pointer of pinned host memory
   is the pointer itself (unified addressing), flags 0. */
static int overlaps(const char *base, size_t n, const void *p, size_t size)
{
    return base < (const char *)p + size && (const char *)p < base + n;
}

static size_t pool_span(size_t n);
static int pool_block_overlaps(const void *p, size_t n);

/* Whether a page of [p, p + n) is not mapped in the process, which the
   driver cannot pin (cudaErrorInvalidValue): mincore fails with ENOMEM. */
static int unmapped(const void *p, size_t n)
{
    unsigned char vec[256];
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), at = (uintptr_t)p & ~(page - 1), end = (uintptr_t)p + n;
    size_t len;
    if ((uintptr_t)p > UINTPTR_MAX - n) return 1; /* wraps around: the top page is not mapped */
    for (; at < end; at += len) {
        len = end - at < sizeof vec * page ? end - at : sizeof vec * page;
        if (mincore((void *)at, len, vec) != 0 && errno == ENOMEM) return 1;
    }
    return 0;
}

/* Whether a mapping of /proc/self/maps overlapping [p, p + n) lacks the
   permission need ('r' or 'w', the second or third letter after the range):
   the driver pins pages for the device's writes, and for its reads only
   with cudaHostRegisterReadOnly (CUDA's documentation of that flag: it "is
   required in order to register memory mapped to the CPU as read-only" on
   a GPU without cudaDevAttrPageableMemoryAccessUsesHostPageTables, which
   this one is); a pinning that fails is cudaErrorInvalidValue. */
static int lacks_prot(const void *p, size_t n, char need)
{
    char line[512];
    unsigned long start, end;
    char perms[5];
    int lacks = 0;
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f) return 0;
    while (!lacks && fgets(line, sizeof line, f)) {
        size_t len = strlen(line);
        if (sscanf(line, "%lx-%lx %4s", &start, &end, perms) == 3 && (uintptr_t)end > (uintptr_t)p &&
            (uintptr_t)start < (uintptr_t)p + n)
            lacks = perms[need == 'r' ? 0 : 1] != need;
        while (len && line[len - 1] != '\n' && fgets(line, sizeof line, f)) len = strlen(line); /* the rest of a long line */
    }
    fclose(f);
    return lacks;
}

cudaError_t cudaHostRegister(void *p, size_t n, unsigned flags)
{
    const alloc *a;
    cudaError_t e = cudaSuccess;
    if (!p || !n || (flags & ~15u)) return cudaErrorInvalidValue;
    pthread_mutex_lock(&live_lock);
    for (a = allocs; a && e == cudaSuccess; a = a->next)
        if (overlaps(a->base, a->host == 2 ? a->size : pool_span(a->size), p, n))
            e = a->host == 1 || a->host == 2 ? cudaErrorHostMemoryAlreadyRegistered : cudaErrorInvalidValue;
    pthread_mutex_unlock(&live_lock);
    if (e == cudaSuccess && pool_block_overlaps(p, n)) e = cudaErrorInvalidValue;
    if (e == cudaSuccess && unmapped(p, n)) e = cudaErrorInvalidValue;
    if (e == cudaSuccess && lacks_prot(p, n, flags & cudaHostRegisterReadOnly ? 'r' : 'w')) e = cudaErrorInvalidValue;
    if (e == cudaSuccess) alloc_add(p, n, 2, current_device);
    return e;
}

cudaError_t cudaHostUnregister(void *p)
{
    if (!p) return cudaErrorInvalidValue;
    device_wait(-1); /* queued copies may still use it */
    return alloc_take(p, 2) ? cudaSuccess : cudaErrorHostMemoryNotRegistered;
}

cudaError_t cudaHostGetDevicePointer(void **d, void *h, unsigned flags)
{
    if (!d || flags || !host_side(h)) return cudaErrorInvalidValue;
    *d = h;
    return cudaSuccess;
}

/* Managed memory: a record of kind 3 (host side too: host_side says so,
   cudaFree frees it). As CUDA: cudaMallocManaged takes size > 0 and
   cudaMemAttachGlobal or cudaMemAttachHost; a prefetch or advice needs its
   whole range inside one managed allocation (else cudaErrorInvalidValue), a
   device location in range (else cudaErrorInvalidDevice), the host's or a
   device's location type, a known advice, prefetch flags 0; an attach takes
   a whole allocation (length 0 or its size) and one cudaMemAttach* flag. A
   prefetch is an empty op in stream order; in a capture it is refused. */
static int managed_range(const void *p, size_t n, int whole)
{
    const alloc *a;
    int ok = 0;
    pthread_mutex_lock(&live_lock);
    for (a = allocs; a; a = a->next)
        if ((const char *)p >= a->base && (const char *)p < a->base + a->size) {
            ok = a->host == MANAGED && (whole ? (const char *)p == a->base && (n == 0 || n == a->size)
                                              : n > 0 && n <= (size_t)(a->base + a->size - (const char *)p));
            break;
        }
    pthread_mutex_unlock(&live_lock);
    return ok;
}

static cudaError_t location_check(struct cudaMemLocation loc)
{
    if (loc.type == cudaMemLocationTypeHost) return cudaSuccess;
    if (loc.type != cudaMemLocationTypeDevice) return cudaErrorInvalidValue;
    return bad_device(loc.id) ? cudaErrorInvalidDevice : cudaSuccess;
}

/* What advice and prefetches said of each 4 KiB page of a managed
   allocation, for cudaMemRangeGetAttribute: locations as location + 2 (0:
   none, 1: the host), accessed-by as a mask of devices and a flag for the
   host. A prefetch counts from its call, as CUDA's "the last location the
   application requested". */
typedef struct page_advice {
    unsigned char read_mostly, prefer, fetch, by_host;
    unsigned by;
} page_advice;
enum { ADVICE_PAGE = 4096 };

static int location_id(struct cudaMemLocation loc) { return loc.type == cudaMemLocationTypeHost ? cudaCpuDeviceId : loc.id; }

/* Applies fn(page, arg) to each page of [p, p + n) in its managed allocation (checked); 0 when out of memory. */
static int managed_pages(const void *p, size_t n, void (*fn)(page_advice *, void *), void *arg)
{
    alloc *a;
    size_t i, first, end;
    int ok = 1;
    pthread_mutex_lock(&live_lock);
    for (a = allocs; a && !((const char *)p >= a->base && (const char *)p < a->base + a->size); a = a->next) {
    }
    first = (size_t)((const char *)p - a->base) / ADVICE_PAGE;
    end = ((size_t)((const char *)p - a->base) + n + ADVICE_PAGE - 1) / ADVICE_PAGE;
    if (!a->pages && !(a->pages = (page_advice *)calloc((a->size + ADVICE_PAGE - 1) / ADVICE_PAGE, sizeof *a->pages)))
        ok = 0;
    for (i = first; ok && i < end; i++) fn(&a->pages[i], arg);
    pthread_mutex_unlock(&live_lock);
    return ok;
}

/* Advice and prefetches: arg is the location. */
static void advise_read_mostly(page_advice *g, void *arg) { (void)arg, g->read_mostly = 1; }
static void advise_unread_mostly(page_advice *g, void *arg) { (void)arg, g->read_mostly = 0; }
static void advise_prefer(page_advice *g, void *arg) { g->prefer = (unsigned char)(*(int *)arg + 2); }
static void advise_unprefer(page_advice *g, void *arg) { (void)arg, g->prefer = 0; }
static void advise_fetch(page_advice *g, void *arg) { g->fetch = (unsigned char)(*(int *)arg + 2); }
static void advise_by(page_advice *g, void *arg)
{
    int loc = *(int *)arg;
    if (loc == cudaCpuDeviceId) g->by_host = 1;
    else g->by |= 1u << loc;
}
static void advise_unby(page_advice *g, void *arg)
{
    int loc = *(int *)arg;
    if (loc == cudaCpuDeviceId) g->by_host = 0;
    else g->by &= ~(1u << loc);
}

static cudaError_t managed_advise(const void *p, size_t n, enum cudaMemoryAdvise advice, int loc)
{
    static void (*const fn[])(page_advice *, void *) = {NULL,          advise_read_mostly, advise_unread_mostly,
                                                        advise_prefer, advise_unprefer,    advise_by,
                                                        advise_unby};
    return managed_pages(p, n, fn[advice], &loc) ? cudaSuccess : cudaErrorMemoryAllocation;
}

/* The pages' common value, folded over the range. */
typedef struct { int first, read_mostly, prefer, fetch, by_host; unsigned by; } range_common;
static void fold_page(page_advice *g, void *arg)
{
    range_common *c = (range_common *)arg;
    if (c->first) {
        c->first = 0, c->read_mostly = g->read_mostly, c->prefer = g->prefer, c->fetch = g->fetch;
        c->by_host = g->by_host, c->by = g->by;
        return;
    }
    c->read_mostly &= g->read_mostly, c->by_host &= g->by_host, c->by &= g->by;
    if (c->prefer != g->prefer) c->prefer = 0;
    if (c->fetch != g->fetch) c->fetch = 0;
}

cudaError_t cudaMemRangeGetAttribute(void *data, size_t size, enum cudaMemRangeAttribute attr, const void *p, size_t n)
{
    range_common c = {1, 0, 0, 0, 0, 0};
    int *out = (int *)data, d;
    size_t k = 0;
    if (!data || !managed_range(p, n, 0)) return cudaErrorInvalidValue;
    if (attr < cudaMemRangeAttributeReadMostly || attr > cudaMemRangeAttributeLastPrefetchLocation)
        return cudaErrorInvalidValue; /* CUDA 12.2's location-type attributes are not modelled */
    if (attr == cudaMemRangeAttributeAccessedBy ? !size || size % 4 : size != 4) return cudaErrorInvalidValue;
    if (!managed_pages(p, n, fold_page, &c)) return cudaErrorMemoryAllocation;
    switch (attr) {
    case cudaMemRangeAttributeReadMostly: *out = c.read_mostly; break;
    case cudaMemRangeAttributePreferredLocation: *out = c.prefer - 2; break;
    case cudaMemRangeAttributeLastPrefetchLocation: *out = c.fetch - 2; break;
    default:
        for (d = 0; d < 32 && k < size / 4; d++)
            if (c.by >> d & 1) out[k++] = d;
        if (k < size / 4 && c.by_host) out[k++] = cudaCpuDeviceId;
        while (k < size / 4) out[k++] = cudaInvalidDeviceId;
    }
    return cudaSuccess;
}

cudaError_t cudaMallocManaged(void **p, size_t n, unsigned flags)
{
    if (!p) return cudaErrorInvalidValue;
    *p = NULL;
    if (!n || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)) return cudaErrorInvalidValue;
    return unsafe_refused() ? cudaErrorStreamCaptureUnsupported : allocate(p, n, MANAGED);
}

cudaError_t cudaMemPrefetchAsync(const void *p, size_t n, struct cudaMemLocation loc, unsigned flags, cudaStream_t s)
{
    stream *t = stream_of(s);
    cudaError_t e;
    op *o;
    if (!t) return cudaErrorInvalidResourceHandle;
    if (!managed_range(p, n, 0) || flags) return cudaErrorInvalidValue;
    if ((e = location_check(loc)) != cudaSuccess) return e;
    if (!is_legacy(s) && capturing_refused(t)) return cudaErrorStreamCaptureUnsupported;
    if (!(o = op_new(10))) return cudaErrorMemoryAllocation;
    int at = location_id(loc);
    if (!managed_pages(p, n, advise_fetch, &at)) {
        free(o);
        return cudaErrorMemoryAllocation;
    }
    return enqueue(s, o);
}

cudaError_t cudaMemAdvise(const void *p, size_t n, enum cudaMemoryAdvise advice, struct cudaMemLocation loc)
{
    if (!managed_range(p, n, 0) || advice < cudaMemAdviseSetReadMostly || advice > cudaMemAdviseUnsetAccessedBy)
        return cudaErrorInvalidValue;
    if (advice == cudaMemAdviseSetPreferredLocation || advice >= cudaMemAdviseSetAccessedBy) {
        cudaError_t e = location_check(loc);
        if (e != cudaSuccess) return e;
    }
    return managed_advise(p, n, advice, location_id(loc));
}

cudaError_t cudaStreamAttachMemAsync(cudaStream_t s, void *p, size_t n, unsigned flags)
{
    if (!stream_of(s)) return cudaErrorInvalidResourceHandle;
    if (!managed_range(p, n, 1)) return cudaErrorInvalidValue;
    if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost && flags != cudaMemAttachSingle)
        return cudaErrorInvalidValue;
    if (flags == cudaMemAttachSingle && is_legacy(s)) return cudaErrorInvalidValue; /* "illegal to attach singly to the NULL stream" */
    return cudaSuccess;
}

/* Graph memory, as CUDA's allocation and free nodes: allocated at capture,
   the graph's for its life (here: for the process's, a simplification: the
   double never gives a graph's memory back). A capture frees only what a
   capture allocated, once; anything else is cudaErrorInvalidValue and
   invalidates it. An allocation that the graph does not free is left to
   the caller: each launch allocates it (at the same address), the caller
   frees it (cudaFree, cudaFreeAsync) before the next launch, which is
   otherwise cudaErrorInvalidValue; memory that the graph frees is never
   freed outside it. */
static int capture_state(stream *s)
{
    int state;
    pthread_mutex_lock(&cap_lock);
    state = !s->cap ? 0 : s->cap->invalidated ? 2 : 1;
    pthread_mutex_unlock(&cap_lock);
    return state;
}

static int graph_alloc_free(void *p)
{
    alloc *a;
    int ok = 0;
    pthread_mutex_lock(&live_lock);
    for (a = allocs; a; a = a->next)
        if (a->base == (char *)p && a->graph == 1) a->graph = 2, ok = 1;
    pthread_mutex_unlock(&live_lock);
    return ok;
}

/* A free outside any capture: -1 if p is no graph memory; else 0 (freed) or
   1 (not allocated now, or the graph's own: cudaErrorInvalidValue). The
   memory stays: the next launch allocates it at the same address. */
static int graph_mem_release(void *p)
{
    alloc *a;
    int r = -1;
    pthread_mutex_lock(&live_lock);
    for (a = allocs; a && r < 0; a = a->next)
        if (a->base == (char *)p && a->graph) {
            r = a->graph == 2 || !a->live;
            a->live = 0;
        }
    pthread_mutex_unlock(&live_lock);
    return r;
}

/* Whether node i of g allocates memory that g does not free. */
static int graph_leaves(const graph *g, size_t i)
{
    size_t j;
    if (g->nodes[i]->o.kind != 7) return 0;
    for (j = 0; j < g->n; j++)
        if (g->nodes[j]->o.kind == 8 && g->nodes[j]->o.dst == g->nodes[i]->o.dst) return 0;
    return 1;
}

/* Whether free node i of g frees another graph's allocation. */
static int graph_frees_foreign(const graph *g, size_t i)
{
    size_t j;
    if (g->nodes[i]->o.kind != 8) return 0;
    for (j = 0; j < g->n; j++)
        if (g->nodes[j]->o.kind == 7 && g->nodes[j]->o.dst == g->nodes[i]->o.dst) return 0;
    return 1;
}

/* Whether p is an allocation that a graph leaves to the caller. */
static int graph_alloc_left(const void *p)
{
    alloc *a;
    int left = 0;
    pthread_mutex_lock(&live_lock);
    for (a = allocs; a && !left; a = a->next) left = a->base == (const char *)p && a->graph == 1;
    pthread_mutex_unlock(&live_lock);
    return left;
}

/* A launch allocates what the graph leaves to the caller: refused while a
   previous launch's allocation is not freed, unless the exec frees it
   (auto_free: cudaGraphInstantiateFlagAutoFreeOnLaunch, "each launch
   behave[s] as though it called cudaMemFreeAsync for every unfreed
   allocation": one the caller freed is not freed again; the memory stays
   at its address, so here the free is this bookkeeping). A free node of
   another graph's allocation frees it (as CUDA's "launching a graph with a
   free node for that allocation"); strict here: refused while it is not
   allocated (CUDA leaves that undefined). */
static cudaError_t graph_mem_launch(const graph *g, int auto_free)
{
    alloc *a;
    size_t i;
    cudaError_t e = cudaSuccess;
    pthread_mutex_lock(&live_lock);
    for (i = 0; i < g->n; i++)
        for (a = allocs; a && ((graph_leaves(g, i) && !auto_free) || graph_frees_foreign(g, i)); a = a->next)
            if (a->base == (char *)g->nodes[i]->o.dst && a->live == graph_leaves(g, i)) e = cudaErrorInvalidValue;
    for (i = 0; i < g->n && e == cudaSuccess; i++)
        for (a = allocs; a && (graph_leaves(g, i) || graph_frees_foreign(g, i)); a = a->next)
            if (a->base == (char *)g->nodes[i]->o.dst) a->live = graph_leaves(g, i);
    pthread_mutex_unlock(&live_lock);
    return e;
}

static void graph_alloc_mark(void *p)
{
    alloc *a;
    pthread_mutex_lock(&live_lock);
    for (a = allocs; a; a = a->next)
        if (a->base == (char *)p) a->graph = 1;
    pthread_mutex_unlock(&live_lock);
}

static cudaError_t capture_memory(cudaStream_t s, int kind, void *p, size_t n)
{
    op *o = op_new(kind);
    if (!o) return cudaErrorMemoryAllocation;
    o->dst = p, o->n = n;
    return enqueue(s, o);
}

/* >> memory pools (CUDA 11.2). A pool keeps the blocks freed into it: a
   block freed on a stream serves that stream's next allocation of its size
   at once (the stream's work comes after the free), and another stream's
   only once the stream reached the free and while the pool allows
   opportunistic reuse (the event-dependency policies are kept, not
   modelled: such reuse waits for the free to be reached here). Free blocks
   over the release threshold go back at a stream's, an event's or a
   device's synchronize, those of cudaMemPoolTrimTo at once; only reached
   ones. A destroyed pool goes with its last allocation and its last queued
   free. One lock for every pool. */
typedef struct pblock {
    struct pblock *next;
    void *p;
    size_t n;            /* bytes, rounded up to 256 */
    stream *on;          /* the stream it was freed on */
    int reached;         /* that free is done: any stream may reuse it */
    unsigned long long number;
} pblock;
enum { P_THRESHOLD, P_RESERVED, P_RESERVED_HIGH, P_USED, P_USED_HIGH }; /* cudaMemPoolAttr 4..8 */
typedef struct mpool {
    int device, ready, destroyed;
    int policy[4];                /* by cudaMemPoolAttr 1..3 */
    unsigned long long amount[5]; /* P_* */
    unsigned access;              /* bit d: device d was given cudaMemAccessFlagsProtReadWrite */
    size_t live, queued;          /* allocations outstanding; frees not yet reached */
    pblock *free;
    struct mpool *next;           /* in pools (created ones) */
} mpool;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static mpool pool_default[DEVICES];
static mpool *pool_current[DEVICES]; /* NULL: the default */
static mpool *pools;
static unsigned long long pool_blocks;

static size_t pool_span(size_t n) { return (n + 255) & ~(size_t)255; }

/* Whether [p, p + n) overlaps a block some pool keeps free (cudaHostRegister). */
static int pool_block_overlaps(const void *p, size_t n)
{
    const mpool *m;
    const pblock *b;
    int d, hit = 0;
    pthread_mutex_lock(&pool_lock);
    for (d = 0; d < DEVICES && !hit; d++)
        for (b = pool_default[d].free; b && !hit; b = b->next) hit = overlaps((const char *)b->p, b->n, p, n);
    for (m = pools; m && !hit; m = m->next)
        for (b = m->free; b && !hit; b = b->next) hit = overlaps((const char *)b->p, b->n, p, n);
    pthread_mutex_unlock(&pool_lock);
    return hit;
}

static void pool_init_locked(mpool *m, int device)
{
    m->device = device, m->ready = 1;
    m->policy[cudaMemPoolReuseFollowEventDependencies] = m->policy[cudaMemPoolReuseAllowOpportunistic] =
        m->policy[cudaMemPoolReuseAllowInternalDependencies] = 1; /* CUDA's defaults */
}

static mpool *pool_default_of(int device)
{
    mpool *m = &pool_default[device];
    pthread_mutex_lock(&pool_lock);
    if (!m->ready) pool_init_locked(m, device);
    pthread_mutex_unlock(&pool_lock);
    return m;
}

static void pool_count_locked(mpool *m, int which, long long by)
{
    m->amount[which] += (unsigned long long)by;
    if (m->amount[which] > m->amount[which + 1]) m->amount[which + 1] = m->amount[which];
}

/* Reached free blocks go back until the pool holds at most `keep` bytes. */
static void pool_release_locked(mpool *m, unsigned long long keep)
{
    pblock **pp = &m->free, *b;
    while ((b = *pp) != NULL && m->amount[P_RESERVED] > keep) {
        if (!b->reached) {
            pp = &b->next;
            continue;
        }
        *pp = b->next;
        m->amount[P_RESERVED] -= b->n;
        free(b->p);
        free(b);
    }
}

/* A destroyed pool with nothing outstanding goes (the caller holds pool_lock). */
static void pool_gone_locked(mpool *m)
{
    mpool **pp;
    if (!m->destroyed || m->live || m->queued) return;
    pool_release_locked(m, 0);
    for (pp = &pools; *pp && *pp != m; pp = &(*pp)->next) {
    }
    if (*pp) *pp = m->next;
    free(m);
}

static cudaError_t pool_alloc(mpool *m, void **p, size_t n, stream *s)
{
    size_t span = pool_span(n);
    pblock **pp, *b;
    alloc *a;
    *p = NULL;
    if (n == 0) return cudaSuccess;
    if (n > ((size_t)1 << 40)) return cudaErrorMemoryAllocation;
    pthread_mutex_lock(&pool_lock);
    for (pp = &m->free; (b = *pp) != NULL; pp = &b->next)
        if (b->n == span && (b->on == s || (b->reached && m->policy[cudaMemPoolReuseAllowOpportunistic]))) break;
    if (b) {
        *pp = b->next;
        *p = b->p;
        free(b);
    } else if ((*p = aligned_alloc(256, span)) != NULL) {
        pool_count_locked(m, P_RESERVED, (long long)span);
    }
    if (*p) {
        pool_count_locked(m, P_USED, (long long)span);
        m->live++;
    }
    pthread_mutex_unlock(&pool_lock);
    if (!*p) return cudaErrorMemoryAllocation;
    alloc_add(*p, n, 0, m->device);
    pthread_mutex_lock(&live_lock);
    for (a = allocs; a; a = a->next)
        if (a->base == (char *)*p) a->pool = m;
    pthread_mutex_unlock(&live_lock);
    return cudaSuccess;
}

/* The pool and size of the pool allocation at p, which it forgets; NULL if p is none. */
static mpool *pool_alloc_take(void *p, size_t *n)
{
    alloc **pp, *a;
    mpool *m = NULL;
    pthread_mutex_lock(&live_lock);
    for (pp = &allocs; (a = *pp) != NULL; pp = &a->next)
        if (a->base == (char *)p && a->pool && !a->graph) {
            *pp = a->next;
            m = a->pool, *n = a->size;
            free(a);
            break;
        }
    pthread_mutex_unlock(&live_lock);
    return m;
}

/* A pool allocation freed on stream st, or at once (now: the device idle),
   back to its pool; -1 if p is no pool allocation. */
static int pool_free(void *p, cudaStream_t st, int now)
{
    size_t n = 0;
    mpool *m = pool_alloc_take(p, &n);
    pblock *b;
    op *o = NULL;
    cudaError_t e;
    if (!m) return -1;
    if (!(b = (pblock *)calloc(1, sizeof *b)) || (!now && !(o = op_new(14)))) {
        free(b);
        return cudaErrorMemoryAllocation; /* the allocation is lost to the pool: the double's own limit */
    }
    pthread_mutex_lock(&pool_lock);
    b->p = p, b->n = pool_span(n), b->on = now ? NULL : stream_of(st), b->reached = now, b->number = ++pool_blocks;
    b->next = m->free;
    m->free = b;
    pool_count_locked(m, P_USED, -(long long)b->n);
    m->live--;
    if (!now) m->queued++;
    else if (m->destroyed) pool_release_locked(m, 0);
    if (now) pool_gone_locked(m);
    pthread_mutex_unlock(&pool_lock);
    if (now) return cudaSuccess;
    o->user = m, o->target = b->number;
    if ((e = enqueue(st, o)) != cudaSuccess) pool_reached(m, b->number);
    return e;
}

static void pool_reached(void *pool, unsigned long long number)
{
    mpool *m = (mpool *)pool;
    pblock *b;
    pthread_mutex_lock(&pool_lock);
    for (b = m->free; b; b = b->next)
        if (b->number == number) b->reached = 1;
    m->queued--;
    if (m->destroyed) pool_release_locked(m, 0);
    pool_gone_locked(m);
    pthread_mutex_unlock(&pool_lock);
}

/* At a synchronize: every pool down to its release threshold. */
static void pools_trim(void)
{
    mpool *m;
    int d;
    pthread_mutex_lock(&pool_lock);
    for (d = 0; d < DEVICES; d++)
        if (pool_default[d].ready) pool_release_locked(&pool_default[d], pool_default[d].amount[P_THRESHOLD]);
    for (m = pools; m; m = m->next) pool_release_locked(m, m->amount[P_THRESHOLD]);
    pthread_mutex_unlock(&pool_lock);
}

static mpool *pool_of_device(int device)
{
    mpool *m;
    pthread_mutex_lock(&pool_lock);
    m = pool_current[device];
    pthread_mutex_unlock(&pool_lock);
    return m ? m : pool_default_of(device);
}

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *out, int device)
{
    if (!out) return cudaErrorInvalidValue;
    if (bad_device(device)) return cudaErrorInvalidDevice;
    *out = (cudaMemPool_t)(void *)pool_default_of(device);
    return cudaSuccess;
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *out, int device)
{
    if (!out) return cudaErrorInvalidValue;
    if (bad_device(device)) return cudaErrorInvalidDevice;
    *out = (cudaMemPool_t)(void *)pool_of_device(device);
    return cudaSuccess;
}

cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t pool)
{
    mpool *m = (mpool *)(void *)pool;
    if (bad_device(device)) return cudaErrorInvalidDevice;
    if (!m || m->device != device) return cudaErrorInvalidValue;
    pthread_mutex_lock(&pool_lock);
    pool_current[device] = m == &pool_default[device] ? NULL : m;
    pthread_mutex_unlock(&pool_lock);
    return cudaSuccess;
}

/* Pinned device memory, no exportable handle type, a device there is. */
cudaError_t cudaMemPoolCreate(cudaMemPool_t *out, const struct cudaMemPoolProps *props)
{
    mpool *m;
    if (!out || !props || props->allocType != cudaMemAllocationTypePinned ||
        props->location.type != cudaMemLocationTypeDevice || bad_device(props->location.id))
        return cudaErrorInvalidValue;
    if (props->handleTypes != cudaMemHandleTypeNone) return cudaErrorNotSupported;
    if (!(m = (mpool *)calloc(1, sizeof *m))) return cudaErrorMemoryAllocation;
    pthread_mutex_lock(&pool_lock);
    pool_init_locked(m, props->location.id);
    m->next = pools;
    pools = m;
    pthread_mutex_unlock(&pool_lock);
    *out = (cudaMemPool_t)(void *)m;
    return cudaSuccess;
}

/* A device's default pool is not destroyed; a current one leaves its device with the default. */
cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool)
{
    mpool *m = (mpool *)(void *)pool;
    if (!m || (m >= pool_default && m < pool_default + DEVICES)) return cudaErrorInvalidValue;
    pthread_mutex_lock(&pool_lock);
    if (pool_current[m->device] == m) pool_current[m->device] = NULL;
    m->destroyed = 1;
    pool_release_locked(m, 0);
    pool_gone_locked(m);
    pthread_mutex_unlock(&pool_lock);
    return cudaSuccess;
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void *value)
{
    mpool *m = (mpool *)(void *)pool;
    cudaError_t e = cudaSuccess;
    int i;
    if (!m || !value) return cudaErrorInvalidValue;
    pthread_mutex_lock(&pool_lock);
    if (attr >= cudaMemPoolReuseFollowEventDependencies && attr <= cudaMemPoolReuseAllowInternalDependencies) {
        i = *(const int *)value;
        if (i == 0 || i == 1) m->policy[attr] = i;
        else e = cudaErrorInvalidValue;
    } else if (attr == cudaMemPoolAttrReleaseThreshold) {
        m->amount[P_THRESHOLD] = *(const unsigned long long *)value;
    } else if ((attr == cudaMemPoolAttrReservedMemHigh || attr == cudaMemPoolAttrUsedMemHigh) &&
               *(const unsigned long long *)value == 0) {
        i = attr == cudaMemPoolAttrReservedMemHigh ? P_RESERVED : P_USED;
        m->amount[i + 1] = m->amount[i]; /* reset: the current amount */
    } else {
        e = cudaErrorInvalidValue;
    }
    pthread_mutex_unlock(&pool_lock);
    return e;
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void *value)
{
    mpool *m = (mpool *)(void *)pool;
    cudaError_t e = cudaSuccess;
    if (!m || !value) return cudaErrorInvalidValue;
    pthread_mutex_lock(&pool_lock);
    if (attr >= cudaMemPoolReuseFollowEventDependencies && attr <= cudaMemPoolReuseAllowInternalDependencies)
        *(int *)value = m->policy[attr];
    else if (attr >= cudaMemPoolAttrReleaseThreshold && attr <= cudaMemPoolAttrUsedMemHigh)
        *(unsigned long long *)value = m->amount[attr - cudaMemPoolAttrReleaseThreshold];
    else
        e = cudaErrorInvalidValue;
    pthread_mutex_unlock(&pool_lock);
    return e;
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t keep)
{
    mpool *m = (mpool *)(void *)pool;
    if (!m) return cudaErrorInvalidValue;
    pthread_mutex_lock(&pool_lock);
    pool_release_locked(m, keep);
    pthread_mutex_unlock(&pool_lock);
    return cudaSuccess;
}

/* cudaMemPoolSetAccess, cudaMemPoolGetAccess, with the statuses HIP's own
   tests expect of hipMemPoolSetAccess (hip-tests, hipMemPoolSetGetAccess.cc):
   a location that is no device InvalidValue, a device not there
   InvalidDevice, the owner's access other than ReadWrite InvalidDevice;
   ProtRead alone, which a pool has no use for, NotSupported. Every device
   here reaches every other (cudaDeviceCanAccessPeer), so no peer is
   refused. Every descriptor is checked before any is applied. */
static cudaError_t access_bad(const mpool *m, const struct cudaMemAccessDesc *d)
{
    if (d->location.type != cudaMemLocationTypeDevice) return cudaErrorInvalidValue;
    if (d->flags != cudaMemAccessFlagsProtNone && d->flags != cudaMemAccessFlagsProtRead &&
        d->flags != cudaMemAccessFlagsProtReadWrite)
        return cudaErrorInvalidValue;
    if (bad_device(d->location.id)) return cudaErrorInvalidDevice;
    if (d->flags == cudaMemAccessFlagsProtRead) return cudaErrorNotSupported;
    if (d->location.id == m->device && d->flags != cudaMemAccessFlagsProtReadWrite) return cudaErrorInvalidDevice;
    return cudaSuccess;
}

cudaError_t cudaMemPoolSetAccess(cudaMemPool_t pool, const struct cudaMemAccessDesc *descs, size_t count)
{
    mpool *m = (mpool *)(void *)pool;
    cudaError_t e;
    size_t i;
    if (!m || (!descs && count)) return cudaErrorInvalidValue;
    for (i = 0; i < count; i++)
        if ((e = access_bad(m, &descs[i])) != cudaSuccess) return e;
    pthread_mutex_lock(&pool_lock);
    for (i = 0; i < count; i++)
        if (descs[i].flags == cudaMemAccessFlagsProtReadWrite) m->access |= 1u << descs[i].location.id;
        else m->access &= ~(1u << descs[i].location.id);
    pthread_mutex_unlock(&pool_lock);
    return cudaSuccess;
}

cudaError_t cudaMemPoolGetAccess(enum cudaMemAccessFlags *flags, cudaMemPool_t pool, struct cudaMemLocation *location)
{
    mpool *m = (mpool *)(void *)pool;
    int on;
    if (!flags || !m || !location || location->type != cudaMemLocationTypeDevice || bad_device(location->id))
        return cudaErrorInvalidValue;
    pthread_mutex_lock(&pool_lock);
    on = location->id == m->device || (m->access >> location->id & 1);
    pthread_mutex_unlock(&pool_lock);
    *flags = on ? cudaMemAccessFlagsProtReadWrite : cudaMemAccessFlagsProtNone;
    return cudaSuccess;
}

cudaError_t cudaMallocFromPoolAsync(void **p, size_t n, cudaMemPool_t pool, cudaStream_t s)
{
    int state = s ? capture_state(stream_of(s)) : 0;
    mpool *m = (mpool *)(void *)pool;
    cudaError_t e;
    if (!p || !m) return cudaErrorInvalidValue;
    if (state == 2) return cudaErrorStreamCaptureInvalidated;
    if (!state) return pool_alloc(m, p, n, stream_of(s));
    if ((e = allocate_on(p, n, 0, m->device)) != cudaSuccess) return e; /* the graph's memory */
    graph_alloc_mark(*p);
    return capture_memory(s, 7, *p, n);
}

cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t s)
{
    int state = s ? capture_state(stream_of(s)) : 0;
    cudaError_t e;
    if (state == 2) return cudaErrorStreamCaptureInvalidated;
    if (!state) return pool_alloc(pool_of_device(stream_of(s)->device), p, n, stream_of(s)); /* the device's current pool */
    if ((e = allocate_on(p, n, 0, stream_of(s)->device)) != cudaSuccess) return e; /* the graph's memory */
    graph_alloc_mark(*p);
    return capture_memory(s, 7, *p, n);
}

/* Allocation and free nodes built by hand (CUDA 11.4), as captured ones:
   the allocation's address is fixed when the node is made (its memory the
   graph's, as above); a free node frees an allocation of an allocation node
   of its graph, once, or another graph's allocation that its graph leaves
   to the caller (freed at each launch: graph_mem_launch). The pool is the device's default:
   pinned device memory on a device there is. The node keeps its device in
   `value`. */
static const gnode *graph_alloc_node(const graph *g, const void *p, int kind)
{
    size_t i;
    for (i = 0; i < g->n; i++)
        if (g->nodes[i]->o.kind == kind && g->nodes[i]->o.dst == p) return g->nodes[i];
    return NULL;
}

cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *out, cudaGraph_t gr, const cudaGraphNode_t *deps, size_t n,
                                     struct cudaMemAllocNodeParams *p)
{
    op o;
    void *ptr = NULL;
    cudaError_t e;
    if (!out || !gr || ((const graph *)(void *)gr)->owned || !p || !p->bytesize ||
        p->poolProps.allocType != cudaMemAllocationTypePinned ||
        p->poolProps.location.type != cudaMemLocationTypeDevice || p->poolProps.location.id < 0 ||
        p->poolProps.location.id >= DEVICES || (p->accessDescCount && !p->accessDescs))
        return cudaErrorInvalidValue;
    if ((e = allocate_on(&ptr, p->bytesize, 0, p->poolProps.location.id)) != cudaSuccess) return e;
    memset(&o, 0, sizeof o);
    o.kind = 7, o.dst = ptr, o.n = p->bytesize, o.value = p->poolProps.location.id;
    if ((e = node_add(out, gr, deps, n, &o)) != cudaSuccess) {
        alloc_take(ptr, 0);
        free(ptr);
        return e;
    }
    graph_alloc_mark(ptr);
    p->dptr = ptr;
    return cudaSuccess;
}

cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *out, cudaGraph_t gr, const cudaGraphNode_t *deps, size_t n,
                                    void *dptr)
{
    const graph *g = (const graph *)(void *)gr;
    op o;
    cudaError_t e;
    int own = g && graph_alloc_node(g, dptr, 7) != NULL;
    if (!out || !g || g->owned || !dptr || (!own && !graph_alloc_left(dptr)) || graph_alloc_node(g, dptr, 8))
        return cudaErrorInvalidValue; /* no graph's allocation left to the caller, or freed twice */
    memset(&o, 0, sizeof o);
    o.kind = 8, o.dst = dptr;
    if ((e = node_add(out, gr, deps, n, &o)) == cudaSuccess && own) graph_alloc_free(dptr);
    return e;
}

/* The double keeps a graph's memory for the process's life (above): there
   is nothing to give back; a device that is not there is refused. */
cudaError_t cudaDeviceGraphMemTrim(int device)
{
    return device < 0 || device >= DEVICES ? cudaErrorInvalidDevice : cudaSuccess;
}

/* Graph memory attributes: the double's graph memory is kept (above), so
   used and reserved are the bytes of every allocation an allocation node
   made on the device, and a mark reset starts again from them. */
static unsigned long long graph_mem_high[DEVICES][2]; /* the marks: used, reserved */

static unsigned long long graph_mem_bytes(int device)
{
    const alloc *a;
    unsigned long long n = 0;
    pthread_mutex_lock(&live_lock);
    for (a = allocs; a; a = a->next)
        if (a->graph && a->device == device) n += a->size;
    pthread_mutex_unlock(&live_lock);
    return n;
}

cudaError_t cudaDeviceGetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void *value)
{
    unsigned long long now;
    int mark = attr == cudaGraphMemAttrUsedMemHigh ? 0 : attr == cudaGraphMemAttrReservedMemHigh ? 1 : -1;
    if (device < 0 || device >= DEVICES) return cudaErrorInvalidDevice;
    if (!value || (mark < 0 && attr != cudaGraphMemAttrUsedMemCurrent && attr != cudaGraphMemAttrReservedMemCurrent))
        return cudaErrorInvalidValue;
    now = graph_mem_bytes(device);
    if (mark >= 0 && graph_mem_high[device][mark] < now) graph_mem_high[device][mark] = now; /* never released */
    *(unsigned long long *)value = mark >= 0 ? graph_mem_high[device][mark] : now;
    return cudaSuccess;
}

cudaError_t cudaDeviceSetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void *value)
{
    if (device < 0 || device >= DEVICES) return cudaErrorInvalidDevice;
    if (!value || *(const unsigned long long *)value != 0 ||
        (attr != cudaGraphMemAttrUsedMemHigh && attr != cudaGraphMemAttrReservedMemHigh))
        return cudaErrorInvalidValue; /* "High watermark can only be reset to zero"; the rest read only */
    graph_mem_high[device][attr == cudaGraphMemAttrReservedMemHigh] = graph_mem_bytes(device);
    return cudaSuccess;
}

cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, struct cudaMemAllocNodeParams *p)
{
    const gnode *nd = (const gnode *)(void *)node;
    if (!nd || !p || nd->o.kind != 7) return cudaErrorInvalidValue;
    memset(p, 0, sizeof *p);
    p->poolProps.allocType = cudaMemAllocationTypePinned;
    p->poolProps.location.type = cudaMemLocationTypeDevice;
    p->poolProps.location.id = nd->o.value;
    p->bytesize = nd->o.n;
    p->dptr = nd->o.dst;
    return cudaSuccess;
}

cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void *dptr_out)
{
    const gnode *nd = (const gnode *)(void *)node;
    if (!nd || !dptr_out || nd->o.kind != 8) return cudaErrorInvalidValue;
    memcpy(dptr_out, &nd->o.dst, sizeof nd->o.dst);
    return cudaSuccess;
}

/* CUDA 12.8 */
cudaError_t cudaStreamGetDevice(cudaStream_t s, int *d)
{
    if (!d) return cudaErrorInvalidValue;
    *d = stream_of(s)->device;
    return cudaSuccess;
}
cudaError_t cudaMemGetInfo(size_t *f, size_t *t) { *f = *t = (size_t)1 << 34; return cudaSuccess; }

cudaError_t cudaFreeAsync(void *p, cudaStream_t s)
{
    int state = s ? capture_state(stream_of(s)) : 0;
    if (state == 2) return cudaErrorStreamCaptureInvalidated;
    if (state) {
        if (graph_alloc_free(p)) return capture_memory(s, 8, p, 0);
        capturing_refused(stream_of(s)); /* invalidates it */
        return cudaErrorInvalidValue;
    }
    if (!p) return cudaSuccess;
    if ((state = graph_mem_release(p)) >= 0) return state ? cudaErrorInvalidValue : cudaSuccess;
    if ((state = pool_free(p, s, 0)) >= 0) return (cudaError_t)state; /* in stream order */
    stream_wait(stream_of(s)); /* in order; simple */
    if (!alloc_take(p, 0)) return cudaErrorInvalidValue;
    free(p);
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t s)
{
    op *o = op_new(0);
    if (!o) return cudaErrorMemoryAllocation;
    o->dst = d, o->value = v, o->n = n;
    return enqueue(s, o);
}

/* Pinned host memory of the double's (an allocation made as host memory). */
static int host_side(const void *p)
{
    const alloc *a;
    int host = 0;
    pthread_mutex_lock(&live_lock);
    for (a = allocs; a; a = a->next)
        if ((const char *)p >= a->base && (const char *)p < a->base + a->size) {
            host = a->host;
            break;
        }
    pthread_mutex_unlock(&live_lock);
    return host;
}

static int known(const void *p)
{
    const alloc *a;
    int found = 0;
    pthread_mutex_lock(&live_lock);
    for (a = allocs; a && !found; a = a->next) found = (const char *)p >= a->base && (const char *)p < a->base + a->size;
    pthread_mutex_unlock(&live_lock);
    return found;
}

/* As CUDA ("API synchronization behavior"): a copy with a pageable
   (unregistered) host side has read its source, or written its destination,
   when the call returns; so has a copy from any host memory to any host
   memory, pinned included ("fully synchronous with respect to the host"). */
cudaError_t cudaMemcpyAsync(void *d, const void *src, size_t n, enum cudaMemcpyKind k, cudaStream_t s)
{
    op *o = op_new(1);
    cudaError_t e;
    int captured;
    if (!o) return cudaErrorMemoryAllocation;
    o->dst = d, o->src = src, o->n = n, o->copy_kind = (int)k;
    e = enqueue_or_capture(s, o, &captured);
    if (e == cudaSuccess && !captured && n && k != cudaMemcpyDeviceToDevice &&
        (!known(d) || !known(src) || (host_side(d) && host_side(src))))
        stream_wait(stream_of(s));
    return e;
}

/* A 2-D or 3-D copy as one op (one node when captured, as CUDA's): depth
   slices of h rows of w bytes from their first bytes; host-synchronous as
   cudaMemcpyAsync is. */
static cudaError_t box_enqueue(void *d, size_t dpitch, size_t dslice, const void *src, size_t spitch, size_t sslice,
                               size_t w, size_t h, size_t depth, enum cudaMemcpyKind k, cudaStream_t s)
{
    op *o;
    cudaError_t e;
    int captured;
    if (!w || !h || !depth) return cudaSuccess;
    if (!(o = op_new(1))) return cudaErrorMemoryAllocation;
    o->dst = d, o->src = src, o->n = w, o->height = h, o->depth = depth, o->copy_kind = (int)k;
    o->pitch = dpitch, o->spitch = spitch, o->dslice = dslice, o->sslice = sslice;
    e = enqueue_or_capture(s, o, &captured);
    if (e == cudaSuccess && !captured && k != cudaMemcpyDeviceToDevice &&
        (!known(d) || !known(src) || (host_side(d) && host_side(src))))
        stream_wait(stream_of(s));
    return e;
}

/* As CUDA: a pitch less than the width is cudaErrorInvalidPitchValue; the
   copy is one op, a memset one op per row, in order. */
cudaError_t cudaMemcpy2DAsync(void *d, size_t dpitch, const void *src, size_t spitch, size_t w, size_t h,
                              enum cudaMemcpyKind k, cudaStream_t s)
{
    if (dpitch < w || spitch < w) return cudaErrorInvalidPitchValue;
    if (w && h && (!d || !src)) return cudaErrorInvalidValue;
    if ((unsigned)k > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
    return box_enqueue(d, dpitch, 0, src, spitch, 0, w, h, 1, k, s);
}

/* One op of h rows, as CUDA captures it: one memset node. */
cudaError_t cudaMemset2DAsync(void *d, size_t pitch, int v, size_t w, size_t h, cudaStream_t s)
{
    op *o;
    if (pitch < w && h > 1) return cudaErrorInvalidPitchValue;
    if (w && h && !d) return cudaErrorInvalidValue;
    if (!w || !h) return cudaSuccess;
    if (!(o = op_new(0))) return cudaErrorMemoryAllocation;
    o->dst = d, o->value = (unsigned char)v, o->n = w, o->elem = 1, o->height = h, o->pitch = h > 1 ? pitch : w;
    return enqueue(s, o);
}

/* 3-D copies and memsets between pitched pointers, slice by slice as 2-D
   ones. As CUDA: a pitch less than the width is cudaErrorInvalidPitchValue;
   a box past its pitch, or past its ysize with more than one slice, is
   cudaErrorInvalidValue; the double has no arrays (cudaErrorInvalidValue). */
static char *box_at(struct cudaPitchedPtr p, struct cudaPos pos)
{
    return (char *)p.ptr + pos.z * p.pitch * p.ysize + pos.y * p.pitch + pos.x;
}

static cudaError_t box_check(struct cudaPitchedPtr p, struct cudaPos pos, struct cudaExtent e)
{
    if (p.pitch < e.width) return cudaErrorInvalidPitchValue;
    if (!p.ptr || pos.x + e.width > p.pitch) return cudaErrorInvalidValue;
    if ((e.depth > 1 || pos.z) && pos.y + e.height > p.ysize) return cudaErrorInvalidValue;
    return cudaSuccess;
}

cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t s)
{
    cudaError_t e = cudaSuccess;
    size_t z;
    if (!p || p->srcArray || p->dstArray) return cudaErrorInvalidValue;
    if (!p->extent.width || !p->extent.height || !p->extent.depth) return cudaSuccess;
    if ((e = box_check(p->srcPtr, p->srcPos, p->extent)) != cudaSuccess ||
        (e = box_check(p->dstPtr, p->dstPos, p->extent)) != cudaSuccess)
        return e;
    (void)z;
    if ((unsigned)p->kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
    return box_enqueue(box_at(p->dstPtr, p->dstPos), p->dstPtr.pitch, p->dstPtr.pitch * p->dstPtr.ysize,
                       box_at(p->srcPtr, p->srcPos), p->srcPtr.pitch, p->srcPtr.pitch * p->srcPtr.ysize,
                       p->extent.width, p->extent.height, p->extent.depth, p->kind, s);
}

cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr p, int v, struct cudaExtent ext, cudaStream_t s)
{
    struct cudaPos pos = {0, 0, 0};
    cudaError_t e;
    if (!ext.width || !ext.height || !ext.depth) return cudaSuccess;
    if ((e = box_check(p, pos, ext)) != cudaSuccess) return e;
    for (pos.z = 0; pos.z < ext.depth && e == cudaSuccess; pos.z++)
        e = cudaMemset2DAsync(box_at(p, pos), p.pitch, v, ext.width, ext.height, s);
    return e;
}

/* As CUDA ("API synchronization behavior"): refused first where a capture
   forbids it (nothing queued); then on the legacy stream, waited for but
   from device memory to device memory ("no host-side synchronization is
   performed"). */
static int d2d_copy(const void *d, const void *src, enum cudaMemcpyKind k)
{
    return k == cudaMemcpyDeviceToDevice ||
           (k == cudaMemcpyDefault && known(d) && known(src) && !host_side(d) && !host_side(src));
}

/* The end of a synchronous copy queued on the legacy stream (e, its status). */
static cudaError_t sync_copy_wait(int d2d, cudaError_t e)
{
    return e || d2d ? e : cudaStreamSynchronize(NULL);
}

cudaError_t cudaMemcpy(void *d, const void *src, size_t n, enum cudaMemcpyKind k)
{
    if (unsafe_refused()) return cudaErrorStreamCaptureUnsupported;
    return sync_copy_wait(d2d_copy(d, src, k), cudaMemcpyAsync(d, src, n, k, NULL));
}

/* cudaMemcpy2D and cudaMemcpy3D are synchronous copies as cudaMemcpy. */
cudaError_t cudaMemcpy2D(void *d, size_t dpitch, const void *src, size_t spitch, size_t w, size_t h,
                         enum cudaMemcpyKind k)
{
    if (unsafe_refused()) return cudaErrorStreamCaptureUnsupported;
    return sync_copy_wait(d2d_copy(d, src, k), cudaMemcpy2DAsync(d, dpitch, src, spitch, w, h, k, NULL));
}

cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p)
{
    if (unsafe_refused()) return cudaErrorStreamCaptureUnsupported;
    if (!p) return cudaErrorInvalidValue;
    return sync_copy_wait(d2d_copy(p->dstPtr.ptr, p->srcPtr.ptr, p->kind), cudaMemcpy3DAsync(p, NULL));
}

/* The synchronous memsets (cudaMemset, cudaMemset2D, cudaMemset3D): "The
   synchronous memset functions are asynchronous with respect to the host
   except when the target is pinned host memory or a Unified Memory region,
   in which case they are fully synchronous" ("API synchronization
   behavior"): the set queued on the legacy stream (e, its status), waited
   for where d is pinned (allocated or registered) or managed memory.
   Refused first where a capture forbids them. */
static cudaError_t sync_set_wait(const void *d, cudaError_t e)
{
    return e || !host_side(d) ? e : cudaStreamSynchronize(NULL);
}

cudaError_t cudaMemset(void *d, int v, size_t n)
{
    if (unsafe_refused()) return cudaErrorStreamCaptureUnsupported;
    return sync_set_wait(d, cudaMemsetAsync(d, v, n, NULL));
}

cudaError_t cudaMemset2D(void *d, size_t pitch, int v, size_t w, size_t h)
{
    if (unsafe_refused()) return cudaErrorStreamCaptureUnsupported;
    return sync_set_wait(d, cudaMemset2DAsync(d, pitch, v, w, h, NULL));
}

cudaError_t cudaMemset3D(struct cudaPitchedPtr p, int v, struct cudaExtent ext)
{
    if (unsafe_refused()) return cudaErrorStreamCaptureUnsupported;
    return sync_set_wait(p.ptr, cudaMemset3DAsync(p, v, ext, NULL));
}

/* >> peers: a context's access to another device, process-wide as CUDA's. */
static pthread_mutex_t peer_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned char peer_enabled[DEVICES][DEVICES];

cudaError_t cudaDeviceCanAccessPeer(int *can, int d, int peer)
{
    if (bad_device(d) || bad_device(peer)) return cudaErrorInvalidDevice;
    *can = d != peer;
    return cudaSuccess;
}

/* Links as cudaDeviceCanAccessPeer sees them: the best rank, access,
   atomics and arrays where it says yes. */
cudaError_t cudaDeviceGetP2PAttribute(int *value, enum cudaDeviceP2PAttr attr, int src, int dst)
{
    int can = 0;
    if (bad_device(src) || bad_device(dst) || src == dst) return cudaErrorInvalidDevice;
    if (!value || attr < cudaDevP2PAttrPerformanceRank || attr > cudaDevP2PAttrOnlyPartialNativeAtomicSupported)
        return cudaErrorInvalidValue;
    cudaDeviceCanAccessPeer(&can, src, dst);
    *value = attr == cudaDevP2PAttrPerformanceRank || attr == cudaDevP2PAttrOnlyPartialNativeAtomicSupported ? 0 : can;
    return cudaSuccess;
}

static cudaError_t peer_set(int peer, int on)
{
    cudaError_t e = cudaSuccess;
    if (bad_device(peer) || peer == current_device) return cudaErrorInvalidDevice;
    pthread_mutex_lock(&peer_lock);
    if (peer_enabled[current_device][peer] == on)
        e = on ? cudaErrorPeerAccessAlreadyEnabled : cudaErrorPeerAccessNotEnabled;
    else
        peer_enabled[current_device][peer] = (unsigned char)on;
    pthread_mutex_unlock(&peer_lock);
    return e;
}

cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned flags)
{
    return flags ? cudaErrorInvalidValue : peer_set(peer, 1);
}
cudaError_t cudaDeviceDisablePeerAccess(int peer) { return peer_set(peer, 0); }

/* Needs no enabled access, as CUDA's (staged through the host there). */
cudaError_t cudaMemcpyPeerAsync(void *d, int dd, const void *src, int sd, size_t n, cudaStream_t s)
{
    if (bad_device(dd) || bad_device(sd)) return cudaErrorInvalidDevice;
    return cudaMemcpyAsync(d, src, n, cudaMemcpyDeviceToDevice, s);
}

/* Work queued on `to` from now waits for what a device's legacy stream and
   the blocking streams it waits for have queued so far. */
static void device_waits(int device, stream *to)
{
    wait_for(null_of(device), to);
    blocking_waits(device, to);
}

/* As CUDA's: asynchronous to the host, serialized with the work queued on
   the current, source and destination devices before and after it. The
   copy goes on the current device's legacy stream after the other two
   devices' work, and their legacy streams wait for it. */
cudaError_t cudaMemcpyPeer(void *d, int dd, const void *src, int sd, size_t n)
{
    stream *cur;
    cudaError_t e;
    if (bad_device(dd) || bad_device(sd)) return cudaErrorInvalidDevice;
    cur = null_of(current_device);
    if (sd != current_device) device_waits(sd, cur);
    if (dd != current_device && dd != sd) device_waits(dd, cur);
    if ((e = cudaMemcpyAsync(d, src, n, cudaMemcpyDeviceToDevice, NULL)) != cudaSuccess) return e;
    if (sd != current_device) wait_for(cur, null_of(sd));
    if (dd != current_device && dd != sd) wait_for(cur, null_of(dd));
    return cudaSuccess;
}

/* Its own allocations are device or pinned host memory; any other pointer
   is unregistered, as plain host memory is to CUDA. */
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *a, const void *p)
{
    const alloc *m;
    memset(a, 0, sizeof *a);
    a->device = -1;
    pthread_mutex_lock(&live_lock);
    for (m = allocs; m; m = m->next)
        if ((const char *)p >= m->base && (const char *)p < m->base + m->size) {
            a->type = m->host == MANAGED ? cudaMemoryTypeManaged : m->host ? cudaMemoryTypeHost : cudaMemoryTypeDevice;
            a->device = m->device;
            a->devicePointer = (void *)(uintptr_t)p;
            a->hostPointer = m->host ? (void *)(uintptr_t)p : NULL;
            break;
        }
    pthread_mutex_unlock(&live_lock);
    return cudaSuccess;
}

/* >> streams */
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned f)
{
    stream *n;
    if (f & ~(unsigned)cudaStreamNonBlocking) return cudaErrorInvalidValue;
    if (!(n = stream_new(f))) return cudaErrorMemoryAllocation;
    *s = (cudaStream_t)(void *)n;
    return cudaSuccess;
}

/* An H100's range: 0 (the least, every stream's default) to -5. */
#define PRIORITY_GREATEST (-5)

cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest)
{
    if (least) *least = 0;
    if (greatest) *greatest = PRIORITY_GREATEST;
    return cudaSuccess;
}

/* As CUDA: a priority outside the range is clamped to it. */
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned f, int priority)
{
    cudaError_t err = cudaStreamCreateWithFlags(s, f);
    if (err == cudaSuccess)
        ((stream *)(void *)*s)->priority = priority > 0 ? 0 : priority < PRIORITY_GREATEST ? PRIORITY_GREATEST : priority;
    return err;
}

cudaError_t cudaStreamGetPriority(cudaStream_t st, int *priority)
{
    stream *s = stream_of(st);
    if (!s) return cudaErrorInvalidResourceHandle;
    *priority = __atomic_load_n(&s->priority, __ATOMIC_RELAXED);
    return cudaSuccess;
}

/* Stream attributes, as the runtime: a legacy stream has none here, an
   attribute outside these or a value out of range is cudaErrorInvalidValue;
   a priority is clamped as at creation. The others change nothing here. */
static cudaStreamAttrValue *attr_of(stream *s, cudaStreamAttrID a)
{
    return a == cudaStreamAttributeAccessPolicyWindow      ? &s->window
           : a == cudaStreamAttributeSynchronizationPolicy ? &s->sync
           : a == cudaStreamAttributeMemSyncDomain         ? &s->domain
           : a == cudaStreamAttributeMemSyncDomainMap      ? &s->map
                                                           : NULL;
}

cudaError_t cudaStreamSetAttribute(cudaStream_t st, cudaStreamAttrID a, const cudaStreamAttrValue *v)
{
    stream *s = own_of(st);
    cudaStreamAttrValue *to;
    const struct cudaAccessPolicyWindow *w;
    if (!s || !v) return cudaErrorInvalidValue;
    w = &v->accessPolicyWindow;
    if (a == cudaStreamAttributePriority) {
        __atomic_store_n(&s->priority, v->priority > 0 ? 0 : v->priority < PRIORITY_GREATEST ? PRIORITY_GREATEST : v->priority,
                         __ATOMIC_RELAXED);
        return cudaSuccess;
    }
    if (!(to = attr_of(s, a))) return cudaErrorInvalidValue;
    if (a == cudaStreamAttributeAccessPolicyWindow &&
        (!(w->hitRatio >= 0.0f && w->hitRatio <= 1.0f) || (unsigned)w->hitProp > cudaAccessPropertyPersisting ||
         (unsigned)w->missProp > cudaAccessPropertyPersisting))
        return cudaErrorInvalidValue;
    if (a == cudaStreamAttributeSynchronizationPolicy &&
        (v->syncPolicy < cudaSyncPolicyAuto || v->syncPolicy > cudaSyncPolicyBlockingSync))
        return cudaErrorInvalidValue;
    if (a == cudaStreamAttributeMemSyncDomain && (unsigned)v->memSyncDomain > cudaLaunchMemSyncDomainRemote)
        return cudaErrorInvalidValue;
    pthread_mutex_lock(&s->lock);
    *to = *v;
    pthread_mutex_unlock(&s->lock);
    return cudaSuccess;
}

cudaError_t cudaStreamGetAttribute(cudaStream_t st, cudaStreamAttrID a, cudaStreamAttrValue *v)
{
    stream *s = own_of(st);
    cudaStreamAttrValue *from;
    if (!s || !v) return cudaErrorInvalidValue;
    if (a == cudaStreamAttributePriority) {
        v->priority = __atomic_load_n(&s->priority, __ATOMIC_RELAXED);
        return cudaSuccess;
    }
    if (!(from = attr_of(s, a))) return cudaErrorInvalidValue;
    pthread_mutex_lock(&s->lock);
    *v = *from;
    pthread_mutex_unlock(&s->lock);
    return cudaSuccess;
}

cudaError_t cudaStreamGetFlags(cudaStream_t st, unsigned *f)
{
    stream *s = stream_of(st);
    if (!s) return cudaErrorInvalidResourceHandle;
    *f = s->flags;
    return cudaSuccess;
}

static void stream_release(stream *s)
{
    capture_leave(s);
    pthread_mutex_lock(&s->lock);
    s->dying = 1; /* queued work completes; the worker frees the stream */
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
}

cudaError_t cudaStreamDestroy(cudaStream_t st)
{
    if (is_legacy(st) || st == cudaStreamPerThread) return cudaErrorInvalidResourceHandle;
    stream_release((stream *)(void *)st);
    return cudaSuccess;
}

static void stream_wait(stream *s)
{
    unsigned long long want;
    pthread_mutex_lock(&s->lock);
    want = s->queued;
    while (s->done < want) pthread_cond_wait(&s->cond, &s->lock);
    pthread_mutex_unlock(&s->lock);
}

/* A capturing stream cannot be waited for; the legacy stream may be waiting
   for the others, so its synchronize is an unsafe call. */
/* The legacy stream's synchronize and query take in the work of the
   blocking streams of its device, as an action queued on it would wait for
   (the HIP runtime documents this of its NULL stream; CUDA's legacy stream
   is taken to do the same). */
cudaError_t cudaStreamSynchronize(cudaStream_t st)
{
    stream *s = stream_of(st);
    if (!s) return cudaErrorInvalidResourceHandle;
    if (capturing_refused(s) || unsafe_refused()) return cudaErrorStreamCaptureUnsupported;
    if (is_legacy(st) && legacy_refused()) return cudaErrorStreamCaptureImplicit;
    if (is_legacy(st)) blocking_waits(s->device, s);
    stream_wait(s);
    pools_trim();
    return cudaSuccess;
}

static int stream_busy(stream *s)
{
    int busy;
    pthread_mutex_lock(&s->lock);
    busy = s->done < s->queued;
    pthread_mutex_unlock(&s->lock);
    return busy;
}

cudaError_t cudaStreamQuery(cudaStream_t st)
{
    stream *s = stream_of(st), *o;
    int busy;
    if (!s) return cudaErrorInvalidResourceHandle;
    if (capturing_refused(s) || unsafe_refused()) return cudaErrorStreamCaptureUnsupported;
    busy = stream_busy(s);
    if (is_legacy(st)) {
        pthread_mutex_lock(&live_lock);
        for (o = live; o && !busy; o = o->next_live)
            if (o->device == s->device && !(o->flags & cudaStreamNonBlocking)) busy = stream_busy(o);
        pthread_mutex_unlock(&live_lock);
    }
    return busy ? cudaErrorNotReady : cudaSuccess;
}

/* Every stream of `device` (of every device: -1), its NULL stream among
   them: the streams are walked again until none has work (a host function
   may have queued more). Work queued on a stream destroyed meanwhile is
   waited for through the list too. */
static void device_wait(int device)
{
    int busy = 1;
    while (busy) {
        stream *s;
        busy = 0;
        pthread_mutex_lock(&live_lock);
        for (s = live; s && !busy; s = s->next_live) {
            if (device >= 0 && s->device != device) continue;
            pthread_mutex_lock(&s->lock);
            busy = s->done < s->queued;
            pthread_mutex_unlock(&s->lock);
        }
        pthread_mutex_unlock(&live_lock);
        if (busy) {
            struct timespec ts = {0, 200000};
            nanosleep(&ts, NULL);
        }
    }
}

/* It would wait for the device's capturing streams: refused while one of
   them captures, in every mode, and as a potentially unsafe call. */
cudaError_t cudaDeviceSynchronize(void)
{
    if (refused_on(current_device)) return cudaErrorStreamCaptureUnsupported;
    device_wait(current_device); /* as the runtime: the current device's streams only */
    pools_trim();
    return cudaSuccess;
}

/* As CUDA: waits for the current device's work, then frees its memory (a
   later cudaFree of it: cudaErrorInvalidValue). The double's streams and
   events are not destroyed: xrt retires its handles of them first. */
cudaError_t cudaDeviceReset(void)
{
    alloc **pp, *a, *gone = NULL;
    mpool *m = &pool_default[current_device];
    device_wait(current_device);
    memset(limits[current_device], 0, sizeof limits[current_device]);
    __atomic_store_n(&cache_config[current_device], cudaFuncCachePreferNone, __ATOMIC_RELAXED);
    pthread_mutex_lock(&pool_lock); /* the default pool as a new primary context has it */
    if (m->ready) {
        pool_release_locked(m, 0);
        pool_init_locked(m, current_device);
        m->amount[P_THRESHOLD] = 0, m->access = 0;
        m->amount[P_RESERVED_HIGH] = m->amount[P_RESERVED], m->amount[P_USED_HIGH] = m->amount[P_USED];
    }
    pthread_mutex_unlock(&pool_lock);
    pthread_mutex_lock(&live_lock);
    for (pp = &allocs; (a = *pp) != NULL;)
        if (a->device == current_device && a->host == 0 && !a->graph) { /* cudaMalloc's */
            *pp = a->next;
            a->next = gone;
            gone = a;
        } else {
            pp = &a->next;
        }
    pthread_mutex_unlock(&live_lock);
    while ((a = gone) != NULL) {
        gone = a->next;
        free(a->base);
        free(a->pages);
        free(a);
    }
    return cudaSuccess;
}

/* cudaEventRecordExternal, cudaEventWaitExternal ("invalid when used
   outside of capture"): in a capture, an event record or wait node (kind
   11, 12) after the stream's front, which it becomes, as the nodes made by
   cudaGraphAddEventRecordNode and cudaGraphAddEventWaitNode run; the
   event's own record and capture stay as they were. */
static cudaError_t capture_external(cudaStream_t s, event *e, int kind)
{
    stream *st = own_of(s); /* the legacy stream never captures */
    cudaError_t err;
    op *o;
    if (!st) return cudaErrorInvalidValue;
    if (!(o = op_new(kind))) return cudaErrorMemoryAllocation;
    o->e = e;
    event_ref(e);
    pthread_mutex_lock(&cap_lock);
    if (!st->cap) err = cudaErrorInvalidValue;
    else if (st->cap->invalidated) err = cudaErrorStreamCaptureInvalidated;
    else err = capture_node(st, o); /* takes o */
    pthread_mutex_unlock(&cap_lock);
    if (err != cudaSuccess) op_drop(o); /* the caller holds the event too */
    return err;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t ev, unsigned f)
{
    event *e = (event *)(void *)ev;
    stream *st = stream_of(s);
    cudaError_t err;
    op *o;
    if (!e || !st) return cudaErrorInvalidResourceHandle;
    if (f & ~(unsigned)cudaEventWaitExternal) return cudaErrorInvalidValue;
    if (f & cudaEventWaitExternal) return capture_external(s, e, 12);
    if (is_legacy(s)) { /* the legacy stream cannot wait for an event of a capture */
        if (captured_event_refused(e)) return cudaErrorCapturedEvent;
    } else if (capture_wait(st, e, &err)) {
        return err;
    }
    if (!(o = op_new(4))) return cudaErrorMemoryAllocation;
    pthread_mutex_lock(&e->lock);
    o->e = e, o->target = e->recorded;
    e->refs++;
    pthread_mutex_unlock(&e->lock);
    return enqueue(s, o);
}

cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void *u)
{
    op *o;
    if (!fn) return cudaErrorInvalidValue;
    if (!(o = op_new(2))) return cudaErrorMemoryAllocation;
    o->fn = fn, o->user = u;
    return enqueue(s, o);
}

cudaError_t cudaStreamAddCallback(cudaStream_t s, cudaStreamCallback_t cb, void *u, unsigned f)
{
    op *o;
    if (!cb || f != 0) return cudaErrorInvalidValue; /* flags: "must be 0" */
    if (!(o = op_new(5))) return cudaErrorMemoryAllocation;
    o->cb = cb, o->user = u;
    return enqueue(s, o);
}

/* >> events */
static event *event_new(unsigned flags)
{
    event *e = (event *)calloc(1, sizeof *e);
    if (!e) return NULL;
    pthread_mutex_init(&e->lock, NULL);
    pthread_cond_init(&e->cond, NULL);
    e->flags = flags;
    e->device = current_device;
    e->refs = 1;
    return e;
}

/* >> IPC. The double lives in one process, so it has no other process to
   share with: it makes handles and checks them as strictly as the runtime
   (device memory only; interprocess events with timing disabled; a handle
   that is not one of its own, or of freed memory, fails), and refuses to
   open a handle in the process that made it (the runtime's
   cudaErrorDeviceUninitialized, "invalid device context"). */
#define IPC_MEM_MAGIC 0x6d63706964627564ull /* "dudbipcm" */
#define IPC_EVENT_MAGIC 0x6563706964627564ull
typedef struct ipc_mem { unsigned long long magic, serial; void *base; pid_t pid; } ipc_mem;
typedef struct ipc_event { unsigned long long magic; void *event; pid_t pid; } ipc_event;

cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *h, void *p)
{
    ipc_mem m;
    alloc *a;
    if (!h || !p) return cudaErrorInvalidValue;
    memset(&m, 0, sizeof m);
    pthread_mutex_lock(&live_lock);
    for (a = allocs; a; a = a->next)
        if ((char *)p >= a->base && (char *)p < a->base + a->size) break;
    if (a && !a->host) m.magic = IPC_MEM_MAGIC, m.serial = a->serial, m.base = a->base, m.pid = getpid();
    pthread_mutex_unlock(&live_lock);
    if (!m.magic) return cudaErrorInvalidValue; /* not device memory of the runtime */
    memset(h, 0, sizeof *h);
    memcpy(h->reserved, &m, sizeof m);
    return cudaSuccess;
}

cudaError_t cudaIpcOpenMemHandle(void **p, cudaIpcMemHandle_t h, unsigned flags)
{
    ipc_mem m;
    alloc *a;
    if (!p || (flags & ~(unsigned)cudaIpcMemLazyEnablePeerAccess)) return cudaErrorInvalidValue;
    memcpy(&m, h.reserved, sizeof m);
    if (m.magic != IPC_MEM_MAGIC) return cudaErrorInvalidResourceHandle;
    pthread_mutex_lock(&live_lock);
    for (a = allocs; a; a = a->next)
        if (a->base == (char *)m.base && a->serial == m.serial) break;
    pthread_mutex_unlock(&live_lock);
    if (!a && m.pid == getpid()) return cudaErrorInvalidResourceHandle; /* its memory is freed */
    return cudaErrorDeviceUninitialized; /* this process made it (or a process the double cannot reach) */
}

cudaError_t cudaIpcCloseMemHandle(void *p)
{
    (void)p;
    return cudaErrorInvalidValue; /* nothing is ever opened here */
}

cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t *h, cudaEvent_t ev)
{
    event *e = (event *)(void *)ev;
    ipc_event m;
    if (!h) return cudaErrorInvalidValue;
    if (!e || (e->flags & (cudaEventInterprocess | cudaEventDisableTiming)) != (cudaEventInterprocess | cudaEventDisableTiming))
        return cudaErrorInvalidResourceHandle;
    memset(&m, 0, sizeof m);
    m.magic = IPC_EVENT_MAGIC, m.event = e, m.pid = getpid();
    memset(h, 0, sizeof *h);
    memcpy(h->reserved, &m, sizeof m);
    return cudaSuccess;
}

cudaError_t cudaIpcOpenEventHandle(cudaEvent_t *ev, cudaIpcEventHandle_t h)
{
    ipc_event m;
    if (!ev) return cudaErrorInvalidValue;
    memcpy(&m, h.reserved, sizeof m);
    if (m.magic != IPC_EVENT_MAGIC) return cudaErrorInvalidValue;
    return cudaErrorDeviceUninitialized; /* this process made it */
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *ev, unsigned f)
{
    event *e;
    if (!ev || (f & ~(unsigned)(cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess)))
        return cudaErrorInvalidValue;
    if ((f & cudaEventInterprocess) && !(f & cudaEventDisableTiming)) return cudaErrorInvalidValue; /* as documented */
    e = event_new(f);
    if (!e) return cudaErrorMemoryAllocation;
    *ev = (cudaEvent_t)(void *)e;
    return cudaSuccess;
}

/* Freed once no queued record or wait uses it. */
cudaError_t cudaEventDestroy(cudaEvent_t ev)
{
    if (!ev) return cudaErrorInvalidResourceHandle;
    event_unref((event *)(void *)ev);
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t ev, cudaStream_t s)
{
    event *e = (event *)(void *)ev;
    stream *st = stream_of(s);
    cudaError_t err;
    op *o;
    if (!e || !st) return cudaErrorInvalidResourceHandle;
    if (e->device != st->device) return cudaErrorInvalidResourceHandle;
    if (capture_record(e, st, &err)) return err; /* the legacy stream never captures */
    if (!(o = op_new(3))) return cudaErrorMemoryAllocation;
    pthread_mutex_lock(&e->lock);
    o->e = e, o->target = ++e->recorded;
    e->refs++;
    pthread_mutex_unlock(&e->lock);
    return enqueue(s, o);
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t ev, cudaStream_t s, unsigned f)
{
    event *e = (event *)(void *)ev;
    stream *st = stream_of(s);
    if (!e || !st) return cudaErrorInvalidResourceHandle;
    if (f & ~(unsigned)cudaEventRecordExternal) return cudaErrorInvalidValue;
    if (!(f & cudaEventRecordExternal)) return cudaEventRecord(ev, s);
    if (e->device != st->device) return cudaErrorInvalidResourceHandle;
    return capture_external(s, e, 11);
}

cudaError_t cudaEventQuery(cudaEvent_t ev)
{
    event *e = (event *)(void *)ev;
    int busy;
    if (!e) return cudaErrorInvalidResourceHandle;
    if (captured_event_refused(e)) return cudaErrorCapturedEvent;
    if (unsafe_refused()) return cudaErrorStreamCaptureUnsupported;
    pthread_mutex_lock(&e->lock);
    busy = e->completed < e->recorded;
    pthread_mutex_unlock(&e->lock);
    return busy ? cudaErrorNotReady : cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t ev)
{
    event *e = (event *)(void *)ev;
    if (!e) return cudaErrorInvalidResourceHandle;
    if (captured_event_refused(e)) return cudaErrorCapturedEvent;
    if (unsafe_refused()) return cudaErrorStreamCaptureUnsupported;
    pthread_mutex_lock(&e->lock);
    while (e->completed < e->recorded) pthread_cond_wait(&e->cond, &e->lock);
    pthread_mutex_unlock(&e->lock);
    pools_trim();
    return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    event *s = (event *)(void *)a, *e = (event *)(void *)b;
    cudaError_t st = cudaSuccess;
    if (!s || !e) return cudaErrorInvalidResourceHandle;
    if (s->device != e->device) return cudaErrorInvalidResourceHandle; /* no common clock */
    if (captured_event_refused(s) || captured_event_refused(e)) return cudaErrorCapturedEvent;
    if ((s->flags | e->flags) & cudaEventDisableTiming) return cudaErrorInvalidResourceHandle;
    /* As documented: never recorded (either) before not yet completed (either) */
    pthread_mutex_lock(&s->lock);
    if (!s->recorded) st = cudaErrorInvalidResourceHandle;
    else if (s->completed < s->recorded) st = cudaErrorNotReady;
    pthread_mutex_unlock(&s->lock);
    pthread_mutex_lock(&e->lock);
    if (!e->recorded) st = cudaErrorInvalidResourceHandle;
    else if (e->completed < e->recorded && !st) st = cudaErrorNotReady;
    pthread_mutex_unlock(&e->lock);
    if (st) return st;
    *ms = (float)(e->ms - s->ms);
    return cudaSuccess;
}

/* >> user objects' calls */
cudaError_t cudaUserObjectCreate(cudaUserObject_t *out, void *ptr, cudaHostFn_t destroy, unsigned count, unsigned flags)
{
    uobj *o;
    if (!out || !destroy || !count || count > INT_MAX || flags != cudaUserObjectNoDestructorSync)
        return cudaErrorInvalidValue;
    if (!(o = (uobj *)calloc(1, sizeof *o))) return cudaErrorMemoryAllocation;
    o->refs = (int)count;
    o->fn = destroy;
    o->ptr = ptr;
    *out = (cudaUserObject_t)(void *)o;
    return cudaSuccess;
}

cudaError_t cudaUserObjectRetain(cudaUserObject_t object, unsigned count)
{
    uobj *o = (uobj *)(void *)object;
    if (!o || !count || count > INT_MAX || __atomic_load_n(&o->refs, __ATOMIC_ACQUIRE) > INT_MAX - (int)count)
        return cudaErrorInvalidValue;
    __atomic_add_fetch(&o->refs, (int)count, __ATOMIC_ACQ_REL);
    return cudaSuccess;
}

cudaError_t cudaUserObjectRelease(cudaUserObject_t object, unsigned count)
{
    uobj *o = (uobj *)(void *)object;
    if (!o || !count || count > INT_MAX || __atomic_load_n(&o->refs, __ATOMIC_ACQUIRE) < (int)count)
        return cudaErrorInvalidValue;
    uobj_release(o, count);
    return cudaSuccess;
}

/* g's entry of o, or NULL. */
static uref *uref_of(const graph *g, const uobj *o)
{
    size_t i;
    for (i = 0; i < g->nuref; i++)
        if (g->uref[i].o == o) return &g->uref[i];
    return NULL;
}

cudaError_t cudaGraphRetainUserObject(cudaGraph_t gr, cudaUserObject_t object, unsigned count, unsigned flags)
{
    graph *g = (graph *)(void *)gr;
    uobj *o = (uobj *)(void *)object;
    uref *r;
    if (!g || !o || !count || count > INT_MAX || (flags & ~(unsigned)cudaGraphUserObjectMove))
        return cudaErrorInvalidValue;
    if (!(r = uref_of(g, o))) {
        uref *v = (uref *)realloc(g->uref, (g->nuref + 1) * sizeof *v);
        if (!v) return cudaErrorMemoryAllocation;
        g->uref = v;
        r = &v[g->nuref++];
        r->o = o;
        r->n = 0;
    }
    r->n += count;
    if (!(flags & cudaGraphUserObjectMove)) __atomic_add_fetch(&o->refs, (int)count, __ATOMIC_ACQ_REL);
    return cudaSuccess;
}

cudaError_t cudaGraphReleaseUserObject(cudaGraph_t gr, cudaUserObject_t object, unsigned count)
{
    graph *g = (graph *)(void *)gr;
    uobj *o = (uobj *)(void *)object;
    uref *r;
    if (!g || !o || !count || count > INT_MAX || !(r = uref_of(g, o)) || r->n < count) return cudaErrorInvalidValue;
    if (!(r->n -= count)) *r = g->uref[--g->nuref];
    uobj_release(o, count);
    return cudaSuccess;
}
