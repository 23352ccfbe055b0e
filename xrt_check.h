/* SPDX-License-Identifier: MIT */
/* xrt_check.h - the stream-order checker (XRT_CHECK=streams,
   xrt_check_enable): the happens-before order of device work kept with
   vector clocks, the accesses of copies, sets, kernels, frees and graph
   launches to xrt's memory, and the reports of two accesses in no order
   ("xrt: race:"). Its public calls (xrt_check_*) and the hooks the dispatch
   calls (xrt__chk_*) are declared in xrt.h; off, each dispatch pays one
   compare of a byte and a branch (XRT__CHK_ON).

   Included by xrt.h in the XRT_IMPL translation unit, after what it uses
   (the pointer registry, handles, graph nodes, the environment) and before
   xrt_init, which reads XRT_CHECK; never include it yourself. Private
   names: xrt__chk_, XRT__CHK_.

   How this file is laid out (grep for the ">> " markers; tests/layout.sh
   checks this list against them):
     >> check: the vector clocks  contexts, clocks, events, the NULL stream's order
     >> check: reports        names, call sites, the missing edge, one report a pair
     >> check: accesses       allocations' histories, kernel arguments
     >> check: kernel and host nodes' annotations  kept for a graph's snapshots
     >> check: graphs         a graph launch's nodes as accesses
     >> check: the hooks of the dispatch
     >> check: the public calls  (and XRT_CHECK, read by xrt_init)
*/
#if defined(XRT__IMPL_INCLUDED) && !defined(XRT__CHECK_IMPL_INCLUDED)
#define XRT__CHECK_IMPL_INCLUDED

/* >> check: the vector clocks (XRT_CHECK=streams, xrt_check_enable). The
   dispatch calls a hook (xrt__chk_*) after each operation that orders or
   touches memory, while xrt__chk_on. The order is kept with vector clocks:
   one per context (a stream, a device's NULL stream, a thread's per-thread
   stream, a host thread), numbered as first seen. An operation on a stream
   takes the enqueuing thread's clock (program order of the host), ticks the
   stream's own entry and is stamped (stream, entry); an event record copies
   the stream's clock, a wait joins the record current at the wait's call
   (xrt__chk_event: taken before the backend's call); a
   synchronize, or a query that returns success, joins into the host thread.
   The NULL stream's implicit edges are CUDA's: its operation joins every
   blocking stream of its device first, and they join it after. A destroyed
   stream's clock joins its device's graves (xrt__chk_grave: what the NULL
   stream and a synchronize would have joined of it) and goes; its entry's
   place is taken again once no history names it (xrt__chk_ctx's refs), by a
   context whose entry starts at the place's last stamp, so the contexts
   and the clocks' length stay bounded by what the histories hold; an
   exiting host thread's contexts go likewise, and a destroyed event's
   clock at its destroy (an executable graph's, of its last launch, too). Each
   allocation of the registry keeps its last XRT__CHK_HISTORY accesses; a new
   access is compared with the overlapping ones: an earlier access (c, e) is
   ordered before it when the new context's clock has c's entry >= e. The
   state lives under one mutex (uncontended where one thread enqueues; the
   clocks of all contexts are read together). What an operation costs: its
   stream's context found by handle (the device asked only for the NULL and
   per-thread streams), the host thread's clock joined only when it changed
   since the stream last joined it, each pointer's allocation from the
   context's last answers (xrt__chk_last) while the registry is unchanged,
   and one pass over the allocation's history.
   A graph launch's nodes are its accesses (">> check: graphs"); a 2-D or
   3-D copy or set, and a graph's 2-D or 3-D node, touches its rows: two
   accesses meet where their rows share a byte (xrt__chk_meet), so that the
   halves of an image's rows set on two streams are no race; a copy to or from a module's
   variable, the other side's bytes. What is not modelled yet: IPC-opened
   memory as an alias of its exporter's allocation; the order between host
   threads (pthread_create, a join, a lock: xrt sees none of them), which a
   report's missing edge names when two threads made its calls. */
#define XRT__CHK_HISTORY 32
#define XRT__CHK_FRAMES 3 /* [0] unused, [1] the hook's return address, [2] the dispatch function's */
#define XRT__CHK_BUCKETS 1024
enum { XRT__CHK_HOST, XRT__CHK_STREAM, XRT__CHK_LEGACY, XRT__CHK_PER_THREAD };

/* ver: the stamp of its last change (xrt__chk_stamp): a join from a clock
   whose ver has not moved since the last adds nothing. */
typedef struct xrt__chk_clock { uint32_t *v; unsigned n; uint64_t ver; } xrt__chk_clock;

/* A context's last answers of the allocation lookup (xrt__chk_alloc_at):
   [lo, lo + n) is m's (NULL: no allocation of xrt's at lo, n 1), valid while
   the registry's version and the checker's count of forgotten allocations
   are those it was filled at. */
#define XRT__CHK_LAST 4
typedef struct xrt__chk_last {
    uint64_t mem_version;
    size_t forgot;
    unsigned n, next;
    struct { uintptr_t lo; size_t n; struct xrt__chk_alloc *m; } e[XRT__CHK_LAST];
} xrt__chk_last;

typedef struct xrt__chk_ctx {
    int kind, device, blocking, dead;
    int gone;          /* a destroyed stream's: no handle finds it, its clock is in its device's graves */
    size_t refs;       /* history entries that name it: its place is taken again only at 0 once gone */
    uint32_t end;      /* gone: its entry's last stamp, where the next holder of its place starts */
    uintptr_t key;     /* a stream's handle; a host thread's number (its per-thread stream's too) */
    const xrt_backend *b;
    unsigned ix;       /* its entry in every clock */
    unsigned number;   /* in reports: "stream 3", "host thread 2" */
    unsigned chain;    /* the next context of its bucket, + 1 */
    xrt__chk_clock clock;
    const struct xrt__chk_ctx *seen; /* the host thread whose clock it joined last, */
    uint64_t seen_ver;               /* at that clock's ver */
    xrt__chk_last last;
} xrt__chk_ctx;

typedef struct xrt__chk_access {
    size_t lo, hi; /* offsets in the allocation: its bounding range */
    size_t width, pitch, slice; /* its rows: depth slices of height rows of width bytes from lo (one row: [lo, hi)) */
    unsigned height, depth;
    unsigned ctx;
    unsigned thread; /* the number of the host thread that made the call ("host thread 2") */
    uint32_t epoch;
    int write;
    const char *fn;
    void *site[XRT__CHK_FRAMES];
    uint64_t tag; /* the race observer's tag of the operation (xrt__chk_tag) */
} xrt__chk_access;

typedef struct xrt__chk_alloc {
    struct xrt__chk_alloc *next;
    xrt__mem_info info;
    unsigned n, cap; /* a's accesses, and its room: grown as needed, up to XRT__CHK_HISTORY */
    int missing;     /* not in the registry at the last sweep (xrt__chk_sweep) */
    xrt__chk_access *a;
} xrt__chk_alloc;

/* An event's last record, or a graph exec's last launch (cudaGraphLaunch
   orders a launch after the exec's previous one, on any stream), by handle
   (an exec's and an event's differ in their kind bits). A record's hook
   runs after the backend's call, so that a wait cannot read the record it
   took from the backend there: xrt_event_record counts its records begun
   (before the backend's call) and done (its hook); a wait or an event
   synchronize notes the count begun before its own backend call
   (xrt__chk_event_seen) and takes the record current then only when none
   was in progress then nor began until its hook: the backend took that
   one. Else the record it took is not known (another thread recorded the
   event at the same time: the threads' own race) and it joins none
   (unsure: a record whose hook ran beside another record's, the same). */
typedef struct xrt__chk_event {
    struct xrt__chk_event *next;
    uintptr_t key;
    int recorded, unsure;
    uint64_t begun, done; /* xrt_event_record's calls */
    xrt__chk_clock clock;
} xrt__chk_event;

/* A reported pair (xrt__chk_reported): each side's call site, as the hook's
   return address and the frame above it (the dispatch function's own return
   address: the call site itself when the dispatch function was not inlined). */
typedef struct xrt__chk_pair { void *a[2], *b[2]; const char *fa, *fb; } xrt__chk_pair;

/* The clocks of a device's destroyed streams, joined (blocking: of its
   blocking ones only): what the NULL stream and a synchronize of the device
   would have joined of each. */
typedef struct xrt__chk_grave { const xrt_backend *b; int device, blocking; xrt__chk_clock clock; } xrt__chk_grave;

#ifndef XRT_STATIC
unsigned char xrt__chk_on;
#endif
static pthread_mutex_t xrt__chk_lock = PTHREAD_MUTEX_INITIALIZER;
static xrt__chk_ctx **xrt__chk_ctxs;
static unsigned xrt__chk_nctx, xrt__chk_capctx, xrt__chk_streams, xrt__chk_threads;
static unsigned xrt__chk_ctx_buckets[XRT__CHK_BUCKETS];
static unsigned xrt__chk_free_slots; /* places of gone contexts no history names, + 1, chained through chain */
static xrt__chk_grave *xrt__chk_graves;
static unsigned xrt__chk_ngraves;
static xrt__chk_event *xrt__chk_events[XRT__CHK_BUCKETS];
static xrt__chk_alloc *xrt__chk_allocs[XRT__CHK_BUCKETS];
static xrt__chk_pair *xrt__chk_pairs;
static size_t xrt__chk_npairs, xrt__chk_cappairs, xrt__chk_races, xrt__chk_bytes, xrt__chk_dropped;
static size_t xrt__chk_forgot;  /* allocations' records freed: the contexts' lookups are stale */
static size_t xrt__chk_nallocs, xrt__chk_sweep_at; /* allocations' records; the count that sweeps them next */
static uint64_t xrt__chk_stamp; /* clocks' changes, counted (xrt__chk_clock's ver) */
static int xrt__chk_short;      /* an allocation of the bookkeeping failed: no reports (xrt__chk_realloc) */
static int xrt__chk_exitcode = 66, xrt__chk_set_up;
static xrt_check_report_fn xrt__chk_sink;
static void *xrt__chk_sink_user;
static xrt_check_tag_fn xrt__chk_tagger; /* the race observer (xrt_check_set_race_observer) */
static xrt_check_race_fn xrt__chk_racer;
static void *xrt__chk_racer_user;
static uint64_t xrt__chk_tag_now; /* the tag of the operation being recorded, under the lock */
static unsigned xrt__chk_era = 1;          /* turned off and on: a new bookkeeping */
static XRT__TLS unsigned xrt__chk_thread, xrt__chk_thread_era; /* the host thread's context, + 1, of that era */
static pthread_key_t xrt__chk_exit_key; /* its destructor frees an exiting thread's contexts */
static pthread_once_t xrt__chk_exit_once = PTHREAD_ONCE_INIT;
typedef struct xrt__chk_note { const void *p; size_t n; int access; } xrt__chk_note;
static XRT__TLS xrt__chk_note xrt__chk_notes[XRT_CHECK_ANNOTATIONS];
static XRT__TLS unsigned xrt__chk_nnotes, xrt__chk_notes_era; /* notes of another era are stale */

/* The thread's annotations for the launch (or kernel node) now, taken:
   a later one starts with none. */
static unsigned xrt__chk_take_notes(void)
{
    unsigned n = xrt__chk_notes_era == __atomic_load_n(&xrt__chk_era, __ATOMIC_RELAXED) ? xrt__chk_nnotes : 0;
    xrt__chk_nnotes = 0;
    return n;
}

static unsigned xrt__chk_hash(uintptr_t k)
{
    k ^= k >> 17;
    return (unsigned)((k * (uintptr_t)0x9E3779B97F4A7C15u) >> (sizeof(uintptr_t) * 8 - 10));
}

/* The bookkeeping's allocations, counted (xrt_check_memory_bytes). One that
   fails leaves an order or an access unrecorded, after which a report could
   name a race that is not there: reports stop (xrt__chk_short), with one
   line on stderr, until the bookkeeping is given back. */
static void *xrt__chk_realloc(void *p, size_t old, size_t n)
{
    void *q = XRT_REALLOC(p, n);
    if (!q) {
        if (!xrt__chk_short)
            fputs("xrt: check: out of memory: the stream-order checker's bookkeeping is incomplete; no more races "
                  "are reported until checking is turned off, or xrt_shutdown\n", stderr);
        xrt__chk_short = 1;
        return NULL;
    }
    xrt__chk_bytes += n - old;
    return q;
}

static void xrt__chk_release(void *p, size_t n)
{
    XRT_FREE(p);
    xrt__chk_bytes -= n;
}

/* Clocks: entries past n are 0. 0 if out of memory (the clock stays as it was). */
static int xrt__chk_clock_grow(xrt__chk_clock *c, unsigned n)
{
    uint32_t *v;
    if (n <= c->n) return 1;
    if (!(v = (uint32_t *)xrt__chk_realloc(c->v, c->n * sizeof *v, n * sizeof *v))) return 0;
    memset(v + c->n, 0, (n - c->n) * sizeof *v);
    c->v = v;
    c->n = n;
    return 1;
}

/* 0 if out of memory (into stays as it was). */
static int xrt__chk_join(xrt__chk_clock *into, const xrt__chk_clock *from)
{
    unsigned i, changed = 0;
    if (!xrt__chk_clock_grow(into, from->n)) return 0;
    for (i = 0; i < from->n; i++)
        if (into->v[i] < from->v[i]) into->v[i] = from->v[i], changed = 1;
    if (changed) into->ver = ++xrt__chk_stamp;
    return 1;
}

/* Context c's own entry steps: its next operation's stamp. */
static void xrt__chk_tick(xrt__chk_ctx *c)
{
    if (!xrt__chk_clock_grow(&c->clock, c->ix + 1)) return;
    c->clock.v[c->ix]++;
    c->clock.ver = ++xrt__chk_stamp;
}

static uint32_t xrt__chk_at(const xrt__chk_clock *c, unsigned ix) { return ix < c->n ? c->v[ix] : 0; }

static xrt__chk_ctx *xrt__chk_ctx_find(int kind, uintptr_t key, const xrt_backend *b, int device)
{
    unsigned i = xrt__chk_ctx_buckets[xrt__chk_hash(key ^ (uintptr_t)kind)];
    while (i) {
        xrt__chk_ctx *c = xrt__chk_ctxs[i - 1];
        if (c->kind == kind && c->key == key && c->b == b && (kind == XRT__CHK_STREAM || c->device == device))
            return c;
        i = c->chain;
    }
    return NULL;
}

/* A context in a new place (its fields but ix zero). */
static xrt__chk_ctx *xrt__chk_ctx_new(void)
{
    xrt__chk_ctx *c;
    if (xrt__chk_nctx == xrt__chk_capctx) {
        unsigned cap = xrt__chk_capctx ? 2 * xrt__chk_capctx : 64;
        xrt__chk_ctx **a = (xrt__chk_ctx **)xrt__chk_realloc(xrt__chk_ctxs, xrt__chk_capctx * sizeof *a, cap * sizeof *a);
        if (!a) return NULL;
        xrt__chk_ctxs = a;
        xrt__chk_capctx = cap;
    }
    if (!(c = (xrt__chk_ctx *)xrt__chk_realloc(NULL, 0, sizeof *c))) return NULL;
    memset(c, 0, sizeof *c);
    c->ix = xrt__chk_nctx;
    xrt__chk_ctxs[xrt__chk_nctx++] = c;
    return c;
}

/* A gone context's place for a new one: its clock entry starts at the last
   stamp of the place's holders, so that no clock's entry for the place
   (what it saw of them) covers the new one's work; what the new one's own
   entry claims it saw of theirs is named by no history any more. */
static xrt__chk_ctx *xrt__chk_ctx_reuse(void)
{
    xrt__chk_ctx *c = xrt__chk_ctxs[xrt__chk_free_slots - 1];
    unsigned ix = c->ix;
    uint32_t end = c->end;
    xrt__chk_free_slots = c->chain;
    memset(c, 0, sizeof *c);
    c->ix = ix;
    if (xrt__chk_clock_grow(&c->clock, ix + 1)) c->clock.v[ix] = end;
    c->clock.ver = ++xrt__chk_stamp; /* a stream that joined the place's last holder joins this one anew */
    return c;
}

static xrt__chk_ctx *xrt__chk_ctx_add(int kind, uintptr_t key, const xrt_backend *b, int device, int blocking)
{
    unsigned h = xrt__chk_hash(key ^ (uintptr_t)kind);
    xrt__chk_ctx *c, *legacy;
    if (!(c = xrt__chk_free_slots ? xrt__chk_ctx_reuse() : xrt__chk_ctx_new())) return NULL;
    c->kind = kind;
    c->key = key;
    c->b = b;
    c->device = device;
    c->blocking = blocking;
    c->number = kind == XRT__CHK_STREAM ? ++xrt__chk_streams : kind == XRT__CHK_HOST ? ++xrt__chk_threads : (unsigned)key;
    c->chain = xrt__chk_ctx_buckets[h];
    xrt__chk_ctx_buckets[h] = c->ix + 1;
    xrt__chk_clock_grow(&c->clock, c->ix + 1);
    /* A blocking stream's work comes after the NULL stream's earlier work. */
    if (blocking && (legacy = xrt__chk_ctx_find(XRT__CHK_LEGACY, 0, b, device)) != NULL)
        xrt__chk_join(&c->clock, &legacy->clock);
    return c;
}

static void xrt__chk_thread_exit(void *unused);
static void xrt__chk_exit_key_make(void) { pthread_key_create(&xrt__chk_exit_key, xrt__chk_thread_exit); }

/* The calling thread's context, made on its first operation (its exit then
   frees it: xrt__chk_thread_exit). */
static xrt__chk_ctx *xrt__chk_host(void)
{
    xrt__chk_ctx *c;
    if (xrt__chk_thread && xrt__chk_thread_era == xrt__chk_era) return xrt__chk_ctxs[xrt__chk_thread - 1];
    c = xrt__chk_ctx_add(XRT__CHK_HOST, (uintptr_t)xrt__chk_threads + 1, NULL, -1, 0);
    if (c) {
        xrt__chk_thread = c->ix + 1;
        xrt__chk_thread_era = xrt__chk_era;
        pthread_once(&xrt__chk_exit_once, xrt__chk_exit_key_make);
        pthread_setspecific(xrt__chk_exit_key, (void *)1);
    }
    return c;
}

/* The number of the host thread making the call being recorded (its
   context is made by then: xrt__chk_host). */
static unsigned xrt__chk_caller(void)
{
    return xrt__chk_thread && xrt__chk_thread_era == xrt__chk_era ? xrt__chk_ctxs[xrt__chk_thread - 1]->number : 0;
}

/* The checker's queries of a backend: a failure is an answer, not the
   caller's last error. */
static int xrt__chk_device(const xrt_backend *b)
{
    int d = 0, ok;
    xrt__err.quiet++;
    ok = b->get_device(b, &d) == XRT_SUCCESS;
    xrt__err.quiet--;
    return ok ? d : 0;
}

/* The NULL stream of backend b's device d, made if new. */
static xrt__chk_ctx *xrt__chk_legacy(const xrt_backend *b, int d)
{
    xrt__chk_ctx *c = xrt__chk_ctx_find(XRT__CHK_LEGACY, 0, b, d);
    return c ? c : xrt__chk_ctx_add(XRT__CHK_LEGACY, 0, b, d, 0);
}

/* The context of a stream handle as the dispatch resolved it (slot s). */
static xrt__chk_ctx *xrt__chk_stream(const xrt_backend *b, xrt_stream stream, const xrt__handle_slot *s)
{
    int device;
    uintptr_t kept;
    xrt__chk_ctx *c, *host;
    unsigned flags = 0;
    if (s != &xrt__handle_null_stream && (uintptr_t)stream > (uintptr_t)XRT_STREAM_PER_THREAD &&
        (c = xrt__chk_ctx_find(XRT__CHK_STREAM, (uintptr_t)stream, b, 0)) != NULL)
        return c; /* a created stream's context: found by its handle alone */
    if (s == &xrt__handle_null_stream) return xrt__chk_legacy(b, xrt__chk_device(b));
    if ((uintptr_t)stream <= (uintptr_t)XRT_STREAM_PER_THREAD) { /* the per-thread stream, also as NULL */
        device = xrt__chk_device(b);
        if (!(host = xrt__chk_host())) return NULL;
        c = xrt__chk_ctx_find(XRT__CHK_PER_THREAD, host->number, b, device);
        return c ? c : xrt__chk_ctx_add(XRT__CHK_PER_THREAD, host->number, b, device, 1);
    }
    /* first seen (made before checking was on): on the device its handle
       kept (xrt__stream_keep_device), else (a wrapped native stream) on the
       current one */
    kept = __atomic_load_n(&s->flags, __ATOMIC_RELAXED) >> XRT__HANDLE_DEVICE_SHIFT;
    device = kept ? (int)kept - 1 : xrt__chk_device(b);
    xrt__err.quiet++;
    b->stream_get_flags(b, s->obj, &flags);
    xrt__err.quiet--;
    return xrt__chk_ctx_add(XRT__CHK_STREAM, (uintptr_t)stream, b, device, !(flags & XRT_STREAM_NON_BLOCKING));
}

/* Whether ctx x takes part in the NULL stream `legacy`'s implicit order. */
static int xrt__chk_peer_of(const xrt__chk_ctx *x, const xrt__chk_ctx *legacy)
{
    return x != legacy && !x->dead && !x->gone && x->blocking && x->b == legacy->b && x->device == legacy->device;
}

/* The graves of backend b's device (every device where device < 0; every
   backend's where b is NULL) into clock into: of its blocking streams only,
   or of all. */
static void xrt__chk_join_graves(xrt__chk_clock *into, const xrt_backend *b, int device, int blocking_only)
{
    unsigned i;
    for (i = 0; i < xrt__chk_ngraves; i++) {
        const xrt__chk_grave *g = &xrt__chk_graves[i];
        if ((!b || g->b == b) && (device < 0 || g->device == device) && (g->blocking || !blocking_only))
            xrt__chk_join(into, &g->clock);
    }
}

/* The grave of backend b's device (blocking: of its blocking streams),
   made if new; NULL if out of memory. */
static xrt__chk_grave *xrt__chk_grave_of(const xrt_backend *b, int device, int blocking)
{
    xrt__chk_grave *g;
    unsigned i, n = xrt__chk_ngraves;
    for (i = 0; i < n; i++)
        if (xrt__chk_graves[i].b == b && xrt__chk_graves[i].device == device && xrt__chk_graves[i].blocking == blocking)
            return &xrt__chk_graves[i];
    if (!(g = (xrt__chk_grave *)xrt__chk_realloc(xrt__chk_graves, n * sizeof *g, (n + 1) * sizeof *g))) return NULL;
    xrt__chk_graves = g;
    g += xrt__chk_ngraves++;
    memset(g, 0, sizeof *g);
    g->b = b, g->device = device, g->blocking = blocking;
    return g;
}

/* Gone context c's place, named by no history: the next context's. */
static void xrt__chk_ctx_free(xrt__chk_ctx *c)
{
    c->chain = xrt__chk_free_slots;
    xrt__chk_free_slots = c->ix + 1;
}

/* A history entry naming context ix went. */
static void xrt__chk_unref(unsigned ix)
{
    xrt__chk_ctx *c = xrt__chk_ctxs[ix];
    if (--c->refs == 0 && c->gone) xrt__chk_ctx_free(c);
}

/* Stream context c is destroyed (bury: its clock joins its device's
   graves, where the NULL stream and a synchronize find its queued work, and
   an event recorded on it keeps its own copy) or retired by a reset (the
   host waited for it). Its handle never comes back: it leaves the hash and
   its clock goes; its place, once no history names it. Out of memory for a
   grave: it stays as it was. */
static void xrt__chk_ctx_gone(xrt__chk_ctx *c, int bury)
{
    xrt__chk_grave *g;
    unsigned *at = &xrt__chk_ctx_buckets[xrt__chk_hash(c->key ^ (uintptr_t)c->kind)];
    if (bury && (!(g = xrt__chk_grave_of(c->b, c->device, 0)) || !xrt__chk_join(&g->clock, &c->clock))) return;
    if (bury && c->blocking && (!(g = xrt__chk_grave_of(c->b, c->device, 1)) || !xrt__chk_join(&g->clock, &c->clock)))
        return;
    while (*at && *at != c->ix + 1) at = &xrt__chk_ctxs[*at - 1]->chain;
    if (*at) *at = c->chain;
    c->end = xrt__chk_at(&c->clock, c->ix);
    xrt__chk_release(c->clock.v, c->clock.n * sizeof(uint32_t));
    memset(&c->clock, 0, sizeof c->clock);
    c->gone = 1;
    if (!c->refs) xrt__chk_ctx_free(c);
}

/* The NULL stream legacy's blocking peers, and the graves of its device's
   destroyed blocking streams, into clock into. */
static void xrt__chk_join_peers(xrt__chk_clock *into, const xrt__chk_ctx *legacy)
{
    unsigned i;
    for (i = 0; i < xrt__chk_nctx; i++)
        if (xrt__chk_peer_of(xrt__chk_ctxs[i], legacy)) xrt__chk_join(into, &xrt__chk_ctxs[i]->clock);
    xrt__chk_join_graves(into, legacy->b, legacy->device, 1);
}

/* The start of an operation on stream ctx c: after the host thread's past,
   after `also` (a waited event), after the blocking streams for the NULL
   stream; then c's own entry ticks: the operation's stamp. */
static void xrt__chk_begin(xrt__chk_ctx *c, xrt__chk_ctx *host, const xrt__chk_clock *also)
{
    if ((c->seen != host || c->seen_ver != host->clock.ver) && xrt__chk_join(&c->clock, &host->clock)) {
        c->seen = host; /* c's clock only grows: until host's changes, joining it again adds nothing */
        c->seen_ver = host->clock.ver;
    }
    if (also) xrt__chk_join(&c->clock, also);
    if (c->kind == XRT__CHK_LEGACY) xrt__chk_join_peers(&c->clock, c);
    xrt__chk_tick(c);
}

/* The end of an operation on the NULL stream: its blocking peers wait for it. */
static void xrt__chk_end(xrt__chk_ctx *c)
{
    unsigned i;
    if (c->kind == XRT__CHK_LEGACY)
        for (i = 0; i < xrt__chk_nctx; i++)
            if (xrt__chk_peer_of(xrt__chk_ctxs[i], c)) xrt__chk_join(&xrt__chk_ctxs[i]->clock, &c->clock);
}

/* What a synchronize of ctx c waits for, into clock into: c's work so far;
   the NULL stream's includes its blocking peers' earlier work (REFERENCE:
   "The default (NULL) stream"). */
static void xrt__chk_waits_for(xrt__chk_clock *into, const xrt__chk_ctx *c)
{
    xrt__chk_join(into, &c->clock);
    if (c->kind == XRT__CHK_LEGACY) xrt__chk_join_peers(into, c);
}

/* A clock that a call keeps across its backend's call (what it saw before
   it): the call's own, not the bookkeeping's, which checking off gives
   back at once (xrt_check_memory_bytes); the call frees it (XRT_FREE). */
static void xrt__chk_keep(const xrt__chk_clock *c) { xrt__chk_bytes -= c->n * sizeof(uint32_t); }

/* The host thread waits for ctx c (a synchronous copy's NULL stream). */
static void xrt__chk_host_waits(xrt__chk_ctx *host, xrt__chk_ctx *c) { xrt__chk_waits_for(&host->clock, c); }

/* Every stream of backend b (of one device, or all where device < 0). */
static void xrt__chk_host_waits_all(xrt__chk_ctx *host, const xrt_backend *b, int device)
{
    unsigned i;
    for (i = 0; i < xrt__chk_nctx; i++) {
        xrt__chk_ctx *x = xrt__chk_ctxs[i];
        if (x->kind != XRT__CHK_HOST && !x->dead && !x->gone && x->b == b && (device < 0 || x->device == device))
            xrt__chk_join(&host->clock, &x->clock);
    }
    xrt__chk_join_graves(&host->clock, b, device, 0);
}

static xrt__chk_event *xrt__chk_event_get(const void *event, int make)
{
    xrt__chk_event **at = &xrt__chk_events[xrt__chk_hash((uintptr_t)event)], *e;
    for (e = *at; e; e = e->next)
        if (e->key == (uintptr_t)event) return e;
    if (!make || !(e = (xrt__chk_event *)xrt__chk_realloc(NULL, 0, sizeof *e))) return NULL;
    memset(e, 0, sizeof *e);
    e->key = (uintptr_t)event;
    e->next = *at;
    *at = e;
    return e;
}

/* e is recorded now on ctx c: its clock is c's. */
static void xrt__chk_mark(xrt__chk_event *e, const xrt__chk_ctx *c)
{
    if (e->clock.n) memset(e->clock.v, 0, e->clock.n * sizeof(uint32_t)); /* the new record replaces the last */
    xrt__chk_join(&e->clock, &c->clock);
    e->recorded = 1;
}

/* An event destroyed, or an exec: its clock goes. */
static void xrt__chk_event_drop(uintptr_t key)
{
    xrt__chk_event **at, *e;
    for (at = &xrt__chk_events[xrt__chk_hash(key)]; (e = *at) != NULL; at = &e->next)
        if (e->key == key) {
            *at = e->next;
            xrt__chk_release(e->clock.v, e->clock.n * sizeof(uint32_t));
            xrt__chk_release(e, sizeof *e);
            return;
        }
}

/* A captured stream runs nothing now: its operations are not accesses. */
static int xrt__chk_capturing(const xrt_backend *b, const xrt__handle_slot *s)
{
    unsigned status = 0;
    int ok;
    if (!__atomic_load_n(&xrt__captures, __ATOMIC_RELAXED) || s == &xrt__handle_null_stream || !s->obj) return 0;
    xrt__err.quiet++;
    ok = b->stream_is_capturing(b, s->obj, &status) == XRT_SUCCESS;
    xrt__err.quiet--;
    return ok && status != 0;
}

/* >> check: reports */
static void xrt__chk_name(const xrt__chk_ctx *c, char *out, size_t size)
{
    if (c->kind == XRT__CHK_HOST) snprintf(out, size, "host thread %u", c->number);
    else if (c->kind == XRT__CHK_LEGACY) snprintf(out, size, "the NULL stream of device %d", c->device);
    else if (c->kind == XRT__CHK_PER_THREAD)
        snprintf(out, size, "the per-thread stream of host thread %u (device %d)", c->number, c->device);
    else snprintf(out, size, "stream %u (device %d)", c->number, c->device);
}

/* The file of the object that dladdr found (info), for addr2line: the
   program's own as /proc/self/exe names it in this process (its dli_fname
   is its argv[0], which may be a name found on PATH or a path relative to
   a directory it has left; /proc/self/exe in addr2line's command would be
   addr2line's), a library's as the loader opened it; NULL if unknown. */
static const char *xrt__chk_object_file(const Dl_info *info, char *self, size_t size)
{
    const ElfW(Ehdr) *e = (const ElfW(Ehdr) *)info->dli_fbase;
    ssize_t n;
    if ((uintptr_t)e + e->e_phoff != getauxval(AT_PHDR)) return strchr(info->dli_fname, '/') ? info->dli_fname : NULL;
    if ((n = readlink("/proc/self/exe", self, size - 1)) <= 0 || (size_t)n >= size - 1) return NULL;
    self[n] = 0;
    return self;
}

/* "function (file.c:12)" for a return address outside xrt's headers, by
   addr2line (its -i lists the functions inlined there, innermost first: the
   first one outside xrt's headers is the caller); 0 where pc lies in xrt's
   headers (a dispatch function that was not inlined, at -O0: the caller is
   the next frame). Without debug information: "function (object+0xoffset)"
   where the symbol table names the function (0 where it names one of xrt's:
   a dispatch function not inlined, whose caller is the next frame), else
   "object+0xoffset". */
static int xrt__chk_resolve(void *pc, char *out, size_t size)
{
    Dl_info info;
    const char *file, *obj;
    uintptr_t addr = (uintptr_t)pc - 1; /* inside the call, not after it */
    char cmd[600], func[256], loc[512], self[512], named[128] = "";
    FILE *f;
    int found = 0, any = 0, in_xrt = 0;
    if (!dladdr(pc, &info) || !info.dli_fname || !info.dli_fbase) return 0;
    if (((const ElfW(Ehdr) *)info.dli_fbase)->e_type == ET_DYN) addr -= (uintptr_t)info.dli_fbase;
    file = xrt__chk_object_file(&info, self, sizeof self);
    if (!file || strchr(file, '\'') || strlen(file) > 400) return 0;
    snprintf(cmd, sizeof cmd, "addr2line -f -i -e '%s' 0x%lx 2>/dev/null", file, (unsigned long)addr);
    if (!(f = popen(cmd, "r"))) return 0;
    while (!found && fgets(func, sizeof func, f) && fgets(loc, sizeof loc, f)) {
        const char *base = strrchr(loc, '/') ? strrchr(loc, '/') + 1 : loc;
        func[strcspn(func, "\n")] = loc[strcspn(loc, "\n")] = 0;
        if (strstr(loc, " (discriminator")) *strstr(loc, " (discriminator") = 0;
        if (loc[0] == '?') { /* no line: the symbol table's name, if any */
            if (!strncmp(func, "xrt_", 4)) in_xrt = 1;
            else if (func[0] != '?' && !named[0]) snprintf(named, sizeof named, "%.120s", func);
            continue;
        }
        any = 1;
        if ((!strncmp(base, "xrt", 3) && strstr(base, ".h:")) || !strncmp(func, "xrt_", 4))
            continue; /* xrt.h, xrt_cpu.h, ...; a dispatch function (-O0 may name its caller's file) */
        snprintf(out, size, "%.120s (%.160s)", func, base);
        found = 1;
    }
    while (fgets(loc, sizeof loc, f)) {
    }
    pclose(f);
    if (found || any || in_xrt) return found; /* in_xrt: the caller is the next frame */
    obj = strrchr(info.dli_fname, '/') ? strrchr(info.dli_fname, '/') + 1 : info.dli_fname;
    if (named[0]) snprintf(out, size, "%s (%s+0x%lx)", named, *obj ? obj : "program", (unsigned long)addr);
    else snprintf(out, size, "%s+0x%lx", *obj ? obj : "program", (unsigned long)addr);
    return named[0] ? 1 : 2; /* 2: not known whose */
}

/* The last call sites resolved, with the object they lay in: addr2line
   takes 0.1-0.5 s on a large program, and a program that races at one site
   again (a loop, a test's rounds) would pay it at each report. Kept while
   the process lives; an entry whose object is no longer loaded at the same
   base (dladdr) is not used. */
#define XRT__CHK_SITES 32
static struct { void *pc; void *base; int found; char text[300]; } xrt__chk_sites[XRT__CHK_SITES];
static unsigned xrt__chk_nsites;

static int xrt__chk_resolve_cached(void *pc, char *out, size_t size)
{
    Dl_info info;
    unsigned i;
    void *base = dladdr(pc, &info) ? info.dli_fbase : NULL;
    for (i = 0; i < XRT__CHK_SITES && i < xrt__chk_nsites; i++)
        if (xrt__chk_sites[i].pc == pc && xrt__chk_sites[i].base == base) {
            snprintf(out, size, "%s", xrt__chk_sites[i].text);
            return xrt__chk_sites[i].found;
        }
    i = xrt__chk_nsites++ % XRT__CHK_SITES; /* the oldest goes */
    xrt__chk_sites[i].pc = pc;
    xrt__chk_sites[i].base = base;
    xrt__chk_sites[i].text[0] = 0;
    xrt__chk_sites[i].found = xrt__chk_resolve(pc, xrt__chk_sites[i].text, sizeof xrt__chk_sites[i].text);
    snprintf(out, size, "%s", xrt__chk_sites[i].text);
    return xrt__chk_sites[i].found;
}

/* The first frame that resolves. One that names no function (a stripped
   program, no addr2line) may lie in a dispatch function that was not
   inlined, the same for every call site: the frame above follows it. */
static void xrt__chk_site(void *const *site, char *out, size_t size)
{
    char above[300];
    size_t n;
    int i, r;
    for (i = 1; i < XRT__CHK_FRAMES && site[i]; i++) {
        if ((r = xrt__chk_resolve_cached(site[i], out, size)) == 0) continue;
        if (r == 2 && i + 1 < XRT__CHK_FRAMES && site[i + 1] &&
            xrt__chk_resolve_cached(site[i + 1], above, sizeof above) && (n = strlen(out)) < size)
            if (snprintf(out + n, size - n, ", from %s", above) >= (int)(size - n))
                out[size - 1] = 0; /* cut where out ends (snprintf did) */
        return;
    }
    snprintf(out, size, "%p", site[1]);
}

/* A graph node's name without " of xrt_graph_launch" (">> check: graphs"). */
static int xrt__chk_node_len(const char *fn)
{
    const char *of = strstr(fn, " of xrt_graph_launch");
    return (int)(of ? (size_t)(of - fn) : strlen(fn));
}

/* What would order a before b, in words. */
static void xrt__chk_edge(const xrt__chk_access *a, const xrt__chk_access *b, char *out, size_t size)
{
    const xrt__chk_ctx *ca = xrt__chk_ctxs[a->ctx], *cb = xrt__chk_ctxs[b->ctx];
    char na[96], nb[96];
    xrt__chk_name(ca, na, sizeof na);
    xrt__chk_name(cb, nb, sizeof nb);
    if (ca == cb) /* only two nodes of one graph launch are in no order on one context */
        snprintf(out, size, "add an edge from the %.*s to the %.*s (xrt_graph_add_dependencies; in a capture, an event "
                 "or the same stream), or one the other way", xrt__chk_node_len(a->fn), a->fn,
                 xrt__chk_node_len(b->fn), b->fn);
    else if (ca->kind != XRT__CHK_HOST && cb->kind != XRT__CHK_HOST)
        snprintf(out, size, "record an event on %s after the %s and wait for it on %s (xrt_stream_wait_event) "
                 "before the %s", na, a->fn, nb, b->fn);
    else if (ca->kind != XRT__CHK_HOST)
        snprintf(out, size, "synchronize %s (xrt_stream_synchronize, or xrt_event_synchronize of an event recorded "
                 "on it after the %s) before the %s", na, a->fn, b->fn);
    else
        snprintf(out, size, "order %s's %s before the %s on %s (a lock or a join between the threads, before it is "
                 "called)", na, a->fn, b->fn, nb);
    if (ca->kind != XRT__CHK_HOST && a->thread && b->thread && a->thread != b->thread) {
        /* what a program most often relies on that xrt cannot see: a
           synchronize on one thread, then pthread_create or a join */
        size_t n = strlen(out);
        snprintf(out + n, size - n, "; host thread %u made the %s and host thread %u the %s: xrt does not see what "
                 "orders threads (pthread_create, pthread_join, a lock), so if host thread %u comes after a "
                 "synchronize of %s on host thread %u, synchronize it on host thread %u too (done, it returns at "
                 "once)", a->thread, a->fn, b->thread, b->fn, b->thread, na, a->thread, b->thread);
    }
}

/* Whether the pair (a, b) was reported, else records it. A pair is its two
   calls and their call sites, in either order (a loop that races one pair
   of sites meets it both ways: one report); a pair of nodes inside one
   launch is its graph's record (graph: its serial, else 0) and its two
   nodes, wherever the graph is launched from. */
static int xrt__chk_reported(const xrt__chk_access *a, const xrt__chk_access *b, uintptr_t graph)
{
    size_t i;
    int c;
    xrt__chk_pair *p, k;
    if (!graph && ((c = memcmp(a->site + 1, b->site + 1, 2 * sizeof a->site[0])) > 0 ||
                   (c == 0 && (uintptr_t)a->fn > (uintptr_t)b->fn))) {
        const xrt__chk_access *t = a; /* the pair's sides in one order */
        a = b, b = t;
    }
    k.a[0] = graph ? (void *)graph : a->site[1], k.a[1] = graph ? NULL : a->site[2];
    k.b[0] = graph ? NULL : b->site[1], k.b[1] = graph ? NULL : b->site[2];
    k.fa = a->fn, k.fb = b->fn;
    for (i = 0; i < xrt__chk_npairs; i++) {
        p = &xrt__chk_pairs[i];
        if (!memcmp(p->a, k.a, sizeof k.a) && !memcmp(p->b, k.b, sizeof k.b) && p->fa == k.fa && p->fb == k.fb)
            return 1;
    }
    if (xrt__chk_npairs == xrt__chk_cappairs) {
        size_t cap = xrt__chk_cappairs ? 2 * xrt__chk_cappairs : 16;
        if (!(p = (xrt__chk_pair *)xrt__chk_realloc(xrt__chk_pairs, xrt__chk_cappairs * sizeof *p, cap * sizeof *p)))
            return 0;
        xrt__chk_pairs = p;
        xrt__chk_cappairs = cap;
    }
    xrt__chk_pairs[xrt__chk_npairs++] = k;
    return 0;
}

static const char *xrt__chk_how(int write) { return write == 2 ? "read-write" : write ? "write" : "read"; }

/* One report of the pair (a earlier, b now), on stderr in one write (graph:
   the serial of the launch's record when both are its nodes, else 0). */
static void xrt__chk_report(const xrt__chk_alloc *m, const xrt__chk_access *a, const xrt__chk_access *b,
                            uintptr_t graph)
{
    static const char *const kinds[] = {"unknown", "pageable host", "pinned host", "device", "managed"};
    char na[96], nb[96], sa[300], sb[300], edge[1024], msg[3072], where[32];
    size_t lo = a->lo > b->lo ? a->lo : b->lo, hi = a->hi < b->hi ? a->hi : b->hi;
    unsigned t = (unsigned)m->info.type;
    if (xrt__chk_short || xrt__chk_reported(a, b, graph)) return;
    xrt__chk_races++;
    xrt__chk_name(xrt__chk_ctxs[a->ctx], na, sizeof na);
    xrt__chk_name(xrt__chk_ctxs[b->ctx], nb, sizeof nb);
    xrt__chk_site(a->site, sa, sizeof sa);
    xrt__chk_site(b->site, sb, sizeof sb);
    xrt__chk_edge(a, b, edge, sizeof edge);
    if (m->info.device < 0) snprintf(where, sizeof where, "host"); /* pinned host memory: no device's */
    else snprintf(where, sizeof where, "device %d", m->info.device);
    snprintf(msg, sizeof msg,
             "xrt: race: %s and %s touch bytes [%zu, %zu) of the %s allocation %p (%zu bytes, %s) in no order\n"
             "xrt:   %s by %s on %s, at %s\n"
             "xrt:   %s by %s on %s, at %s\n"
             "xrt:   missing edge: %s\n",
             a->fn, b->fn, lo, hi, t < 5 ? kinds[t] : "unknown", (void *)m->info.base, m->info.size, where,
             xrt__chk_how(a->write), a->fn, na, sa, xrt__chk_how(b->write), b->fn, nb, sb, edge);
    if (xrt__chk_racer) xrt__chk_racer(xrt__chk_racer_user, msg, a->tag, b->tag);
    if (xrt__chk_sink) {
        xrt__chk_sink(xrt__chk_sink_user, msg);
        return;
    }
    fputs(msg, stderr);
    fflush(stderr);
}

/* >> check: accesses */
/* Bytes an operation touches: [p, p + n) (n 0: a kernel argument's whole
   allocation), as depth slices of height rows of width bytes, rows pitch
   (>= width) apart and slices slice apart; one row: width n. p is an
   address, or an offset in an allocation. */
typedef struct xrt__chk_span { uintptr_t p; size_t n, width, pitch, height, slice, depth; } xrt__chk_span;

/* The span of [p, p + n): one row. */
static xrt__chk_span xrt__chk_bytes_of(const void *p, size_t n)
{
    xrt__chk_span r;
    r.p = (uintptr_t)p, r.n = r.width = r.pitch = r.slice = n, r.height = r.depth = 1;
    return r;
}

/* The span of a box from start (none of width, height, depth 0): its
   pitch at least its width, one slice's own slice its rows. */
static xrt__chk_span xrt__chk_rows_of(const void *start, size_t width, size_t pitch, size_t height, size_t slice,
                                      size_t depth)
{
    xrt__chk_span r;
    r.p = (uintptr_t)start, r.width = width, r.pitch = pitch < width ? width : pitch, r.height = height;
    r.slice = depth > 1 ? slice : r.pitch * height, r.depth = depth;
    r.n = (depth - 1) * r.slice + (height - 1) * r.pitch + width;
    return r;
}

/* Whether box b has a byte in [r0, r1): in each slice, the first row that
   ends after r0 is the one that may start before r1 (rows are pitch >=
   width apart). */
static int xrt__chk_row_meets(const xrt__chk_span *b, uintptr_t r0, uintptr_t r1)
{
    size_t z, y;
    for (z = 0; z < b->depth; z++) {
        uintptr_t base = b->p + z * b->slice;
        y = r0 < base + b->width ? 0 : (r0 - base - b->width) / b->pitch + 1;
        if (y < b->height && base + y * b->pitch < r1) return 1;
    }
    return 0;
}

/* Whether two spans share a byte: row by row, so that interleaved rows
   (two halves of an image's rows, set on two streams) do not meet; a
   kernel argument is its whole allocation. */
static int xrt__chk_rows_meet(const xrt__chk_span *a, const xrt__chk_span *b)
{
    size_t z, y;
    if (!a->n || !b->n) return 1;
    if (a->height * a->depth > b->height * b->depth) {
        const xrt__chk_span *t = a;
        a = b, b = t;
    }
    for (z = 0; z < a->depth; z++)
        for (y = 0; y < a->height; y++) {
            uintptr_t r0 = a->p + z * a->slice + y * a->pitch;
            if (xrt__chk_row_meets(b, r0, r0 + a->width)) return 1;
        }
    return 0;
}

/* An access's span, in offsets of its allocation. */
static xrt__chk_span xrt__chk_span_of(const xrt__chk_access *a)
{
    xrt__chk_span r;
    r.p = a->lo, r.n = a->hi - a->lo, r.width = a->width, r.pitch = a->pitch, r.slice = a->slice;
    r.height = a->height, r.depth = a->depth;
    return r;
}

/* Whether accesses a and x share a byte. */
static int xrt__chk_meet(const xrt__chk_access *a, const xrt__chk_access *x)
{
    xrt__chk_span sa, sx;
    if (a->hi <= x->lo || x->hi <= a->lo) return 0;
    if (a->height == 1 && a->depth == 1 && x->height == 1 && x->depth == 1) return 1;
    sa = xrt__chk_span_of(a), sx = xrt__chk_span_of(x);
    return xrt__chk_rows_meet(&sa, &sx);
}

/* Whether access x touches every byte of access a: x one row over a's
   range, or the same rows. */
static int xrt__chk_covers(const xrt__chk_access *x, const xrt__chk_access *a)
{
    if (a->lo < x->lo || a->hi > x->hi) return 0;
    return (x->height == 1 && x->depth == 1) ||
           (a->lo == x->lo && a->width == x->width && a->pitch == x->pitch && a->slice == x->slice &&
            a->height == x->height && a->depth == x->depth);
}
static void xrt__chk_history_clear(xrt__chk_alloc *m)
{
    unsigned i;
    for (i = 0; i < m->n; i++) xrt__chk_unref(m->a[i].ctx);
    m->n = 0;
}

static void xrt__chk_sweep(void);

static xrt__chk_alloc *xrt__chk_alloc_get(const xrt__mem_info *info)
{
    xrt__chk_alloc **at = &xrt__chk_allocs[xrt__chk_hash(info->base)], *m;
    for (m = *at; m; m = m->next)
        if (m->info.base == info->base) break;
    if (m && m->info.generation != info->generation) { /* a freed allocation's address, used again */
        m->info = *info;
        m->missing = 0;
        xrt__chk_history_clear(m);
    }
    if (m || !(m = (xrt__chk_alloc *)xrt__chk_realloc(NULL, 0, sizeof *m))) return m;
    m->info = *info;
    m->n = m->cap = 0;
    m->a = NULL;
    m->missing = 0;
    m->next = *at;
    *at = m;
    if (++xrt__chk_nallocs > xrt__chk_sweep_at) xrt__chk_sweep();
    return m;
}

static void xrt__chk_alloc_drop(xrt__chk_alloc **at)
{
    xrt__chk_alloc *m = *at;
    *at = m->next;
    xrt__chk_history_clear(m);
    xrt__chk_release(m->a, m->cap * sizeof *m->a);
    xrt__chk_release(m, sizeof *m);
    xrt__chk_nallocs--;
    xrt__chk_forgot++;
}

/* Memory leaves xrt other than by a free that the checker sees (an
   unregister, an IPC close, a reset, a capture's allocations): records no
   longer in the registry go, each time as many records were made as are
   live (64 at least): a sweep's cost, spread over them, is one record's. One goes
   at its second sweep out of the registry, not its first: a free between
   its registry's take and its hook (xrt__chk_free) keeps its history. */
static void xrt__chk_sweep(void)
{
    xrt__mem_info now;
    size_t live = 0; /* in the registry */
    unsigned i;
    for (i = 0; i < XRT__CHK_BUCKETS; i++) {
        xrt__chk_alloc **at = &xrt__chk_allocs[i], *m;
        while ((m = *at) != NULL) {
            int there = xrt__mem_query((const void *)m->info.base, &now) && now.base == m->info.base &&
                        now.generation == m->info.generation;
            if (!there && m->missing) {
                xrt__chk_alloc_drop(at);
                continue;
            }
            m->missing = !there;
            live += there;
            at = &m->next;
        }
    }
    xrt__chk_sweep_at = xrt__chk_nallocs + (live < 64 ? 64 : live); /* at most 3 records a live one, or 192 */
}

static void xrt__chk_alloc_forget(uintptr_t base)
{
    xrt__chk_alloc **at = &xrt__chk_allocs[xrt__chk_hash(base)], *m;
    for (; (m = *at) != NULL; at = &m->next)
        if (m->info.base == base) {
            xrt__chk_alloc_drop(at);
            return;
        }
}

/* The checker's record of the allocation at p, or NULL where xrt made none
   there: context c's last answers first (one operation's pointers, a loop's
   buffers), else the registry. The registry's version is read before the
   registry: an answer is never filed under a version newer than its own. */
static xrt__chk_alloc *xrt__chk_alloc_at(xrt__chk_ctx *c, const void *p)
{
    xrt__chk_last *l = &c->last;
    uint64_t version = __atomic_load_n(&xrt__mem_version, __ATOMIC_ACQUIRE);
    uintptr_t x = (uintptr_t)p;
    xrt__mem_info info;
    xrt__chk_alloc *m = NULL;
    unsigned i;
    if (l->mem_version != version || l->forgot != xrt__chk_forgot) {
        l->mem_version = version;
        l->forgot = xrt__chk_forgot;
        l->n = l->next = 0;
    }
    for (i = 0; i < l->n; i++)
        if (x - l->e[i].lo < l->e[i].n) return l->e[i].m;
    if (xrt__mem_query(p, &info) && !(m = xrt__chk_alloc_get(&info))) return NULL; /* out of memory: not filed */
    i = l->next++ % XRT__CHK_LAST;
    if (l->n < XRT__CHK_LAST) l->n++;
    l->e[i].lo = m ? info.base : x;
    l->e[i].n = m ? info.size : 1;
    l->e[i].m = m;
    return m;
}

/* Whether access a (earlier) is ordered before what context c does now. */
static int xrt__chk_ordered(const xrt__chk_access *a, const xrt__chk_ctx *c)
{
    return a->ctx == c->ix || xrt__chk_at(&c->clock, a->ctx) >= a->epoch;
}

/* Room for one more access in m's history: doubled from 2, up to
   XRT__CHK_HISTORY (most allocations keep a few: an access ordered before
   a later one that covers it goes). 0 when full, or out of memory (the
   oldest goes, as when full). */
static int xrt__chk_history_grow(xrt__chk_alloc *m)
{
    unsigned cap = m->cap ? 2 * m->cap : 2;
    xrt__chk_access *a;
    if (m->cap == XRT__CHK_HISTORY) return 0;
    if (cap > XRT__CHK_HISTORY) cap = XRT__CHK_HISTORY;
    if (!(a = (xrt__chk_access *)xrt__chk_realloc(m->a, m->cap * sizeof *a, cap * sizeof *a))) return 0;
    m->a = a;
    m->cap = cap;
    return 1;
}

/* Context c accesses span r of allocation m (r.p an offset in it, r.n > 0). */
static void xrt__chk_access_in(xrt__chk_ctx *c, xrt__chk_alloc *m, const char *fn, void *const *site, xrt__chk_span r,
                               int write)
{
    xrt__chk_access x;
    unsigned i, j;
    x.lo = r.p;
    x.hi = r.n > m->info.size - x.lo ? m->info.size : x.lo + r.n;
    x.width = x.pitch = x.slice = x.hi - x.lo, x.height = x.depth = 1; /* one row, unless rows of its own */
    if ((r.height > 1 || r.depth > 1) && r.height <= UINT_MAX && r.depth <= UINT_MAX)
        x.width = r.width, x.pitch = r.pitch, x.slice = r.slice, x.height = (unsigned)r.height, x.depth = (unsigned)r.depth;
    x.ctx = c->ix;
    x.thread = xrt__chk_caller();
    x.epoch = xrt__chk_at(&c->clock, c->ix);
    x.write = write;
    x.fn = fn;
    x.tag = xrt__chk_tag_now;
    memcpy(x.site, site, sizeof x.site);
    /* One pass: an earlier access in no order with this one that overlaps
       it, one of them writing, is a race; one ordered before it and inside
       its range adds nothing a later access could race with alone: it goes. */
    for (i = j = 0; i < m->n; i++) {
        const xrt__chk_access *a = &m->a[i];
        int ordered = xrt__chk_ordered(a, c);
        if (!ordered && (write || a->write) && xrt__chk_meet(a, &x)) xrt__chk_report(m, a, &x, 0);
        if (ordered && (write || !a->write) && xrt__chk_covers(&x, a)) {
            xrt__chk_unref(a->ctx);
            continue;
        }
        if (j != i) m->a[j] = *a;
        j++;
    }
    m->n = j;
    if (m->n == m->cap && !xrt__chk_history_grow(m)) { /* the oldest goes */
        if (!m->n) return; /* out of memory (no reports from now on) */
        xrt__chk_unref(m->a[0].ctx);
        memmove(m->a, m->a + 1, (m->n - 1) * sizeof m->a[0]);
        m->n--;
        xrt__chk_dropped++;
    }
    m->a[m->n++] = x;
    c->refs++;
}

/* Context c accesses span r of xrt's memory (nothing else is tracked);
   write: 0 read, 1 write, 2 read-write. */
static void xrt__chk_access_span(xrt__chk_ctx *c, const char *fn, void *const *site, xrt__chk_span r, int write)
{
    xrt__chk_alloc *m;
    if (r.p && r.n && (m = xrt__chk_alloc_at(c, (const void *)r.p)) != NULL) {
        r.p -= m->info.base;
        xrt__chk_access_in(c, m, fn, site, r, write);
    }
}

/* The same of bytes [p, p + n). */
static void xrt__chk_access_at(xrt__chk_ctx *c, const char *fn, void *const *site, const void *p, size_t n, int write)
{
    xrt__chk_access_span(c, fn, site, xrt__chk_bytes_of(p, n), write);
}

/* Whether one of n notes falls in the allocation [base, base + size). */
static int xrt__chk_noted(const xrt__chk_note *note, unsigned n, uintptr_t base, size_t size)
{
    unsigned k;
    for (k = 0; k < n; k++)
        if ((uintptr_t)note[k].p - base < size) return 1;
    return 0;
}

/* A note's access as the histories hold it: 0 read, 1 write, 2 both. */
static int xrt__chk_note_write(const xrt__chk_note *note)
{
    return note->access == XRT_CHECK_READ ? 0 : note->access == XRT_CHECK_WRITE ? 1 : 2;
}

/* A kernel's arguments: every pointer-sized word that points into xrt's
   memory is an access of its whole allocation, unless an annotation of the
   launch names that allocation. */
static void xrt__chk_args(xrt__chk_ctx *c, const char *fn, void *const *site, const unsigned char *args, size_t size,
                          unsigned nnotes)
{
    size_t off;
    unsigned k;
    for (off = 0; args && off + sizeof(void *) <= size; off += sizeof(void *)) {
        void *p;
        xrt__chk_alloc *m;
        memcpy(&p, args + off, sizeof p);
        if (!p || !(m = xrt__chk_alloc_at(c, p))) continue;
        if (!xrt__chk_noted(xrt__chk_notes, nnotes, m->info.base, m->info.size) && m->info.size)
            xrt__chk_access_in(c, m, fn, site, xrt__chk_bytes_of(NULL, m->info.size), 2);
    }
    for (k = 0; k < nnotes; k++)
        if (xrt__chk_notes[k].access != XRT_CHECK_NONE)
            xrt__chk_access_at(c, fn, site, xrt__chk_notes[k].p, xrt__chk_notes[k].n,
                               xrt__chk_note_write(&xrt__chk_notes[k]));
}

/* The rows of a 3-D box (extent e not empty). */
static xrt__chk_span xrt__chk_box(const xrt_pitched_ptr *p, const xrt_pos *at, const xrt_extent *e)
{
    size_t slice = p->pitch * p->ysize;
    return xrt__chk_rows_of((char *)p->ptr + at->z * slice + at->y * p->pitch + at->x, e->width, p->pitch, e->height,
                            slice, e->depth);
}

/* >> check: kernel and host nodes' annotations. A kernel or host node made
   with annotations (xrt_check_annotate before xrt_graph_add_kernel_node or
   xrt_graph_add_host_node, the node's xrt_graph_node_set_params, or a
   captured xrt_launch_kernel or xrt_launch_host_func) keeps them for the
   snapshots of its graph's execs: the checker finds them by what the
   backend gives back of the node, a kernel's function and argument bytes, a
   host function's function and user pointer (xrt__host_key; the newest
   XRT__CHK_KNOTES are kept; two nodes alike share the annotations made
   last). Under the lock. */
#define XRT__CHK_KNOTES 256
typedef struct xrt__chk_knote {
    struct xrt__chk_knote *next;
    const void *function; /* the backend's object */
    size_t args_size;
    unsigned nnotes;
    xrt__chk_note note[XRT_CHECK_ANNOTATIONS];
    unsigned char *args; /* args_size bytes, after the record */
} xrt__chk_knote;
static xrt__chk_knote *xrt__chk_knotes; /* newest first */
static size_t xrt__chk_nknotes;
static const char xrt__chk_host_fn = 0; /* a host node's "function"; its arguments: xrt__host_key */

/* Whether a record is of this function and these argument bytes (over the
   shorter of the two: a backend may keep a kernel's declared size of them). */
static int xrt__chk_knote_is(const xrt__chk_knote *k, const void *function, const unsigned char *args, size_t size)
{
    size_t n = size < k->args_size ? size : k->args_size;
    return k->function == function && !size == !k->args_size && (!n || memcmp(k->args, args, n) == 0);
}

static void xrt__chk_knote_free(xrt__chk_knote *k)
{
    xrt__chk_release(k, sizeof *k + k->args_size);
    xrt__chk_nknotes--;
}

/* The thread's first nnotes notes for the node of function, args. */
static void xrt__chk_knote_put(const void *function, const unsigned char *args, size_t size, unsigned nnotes)
{
    xrt__chk_knote **at, *k;
    for (at = &xrt__chk_knotes; (k = *at) != NULL; at = &k->next)
        if (xrt__chk_knote_is(k, function, args, size) && k->args_size == size) {
            *at = k->next;
            xrt__chk_knote_free(k);
            break;
        }
    if (!(k = (xrt__chk_knote *)xrt__chk_realloc(NULL, 0, sizeof *k + size))) return;
    k->function = function, k->args_size = size, k->nnotes = nnotes;
    k->args = (unsigned char *)(k + 1);
    if (size) memcpy(k->args, args, size);
    memcpy(k->note, xrt__chk_notes, nnotes * sizeof *k->note);
    k->next = xrt__chk_knotes;
    xrt__chk_knotes = k;
    if (++xrt__chk_nknotes <= XRT__CHK_KNOTES) return;
    for (at = &xrt__chk_knotes; (*at)->next; at = &(*at)->next) continue; /* the oldest goes */
    xrt__chk_knote_free(*at);
    *at = NULL;
}

/* A kernel node's notes into out (0: none kept): the newest record of its
   arguments' size, else the newest whose bytes agree over the shorter. */
static unsigned xrt__chk_knote_get(const void *function, const void *args, size_t size, xrt__chk_note *out)
{
    xrt__chk_knote *k, *found = NULL;
    unsigned n = 0;
    pthread_mutex_lock(&xrt__chk_lock);
    for (k = xrt__chk_knotes; k && !(found && found->args_size == size); k = k->next)
        if (xrt__chk_knote_is(k, function, (const unsigned char *)args, size) && (!found || k->args_size == size))
            found = k;
    if (found) memcpy(out, found->note, (n = found->nnotes) * sizeof *out);
    pthread_mutex_unlock(&xrt__chk_lock);
    return n;
}

/* >> check: graphs. A graph launch is one operation of its stream, as a
   kernel is, whose accesses are its nodes': a memcpy node reads its source
   and writes its destination, a memset node writes its rows, a kernel node's
   pointer arguments are read-writes of their allocations, as an eager
   launch's, unless annotated (">> check: kernel nodes' annotations"). A launch comes after its exec's previous launch, on any stream
   (cudaGraphLaunch). Inside one launch, two nodes are ordered when a path
   of edges joins them. xrt_graph_instantiate (and xrt_graph_exec_update) keep of
   each exec, while checking is on, a snapshot: its access nodes, named by
   their place in the graph's list of nodes (xrt_graph_get_nodes: the order
   they were added or captured), each with the set of access nodes before
   it (a bit each). Each launch then reports two nodes in no order that
   touch overlapping bytes, one writing (the missing edge: one between
   them), and puts each node's accesses in the allocations' histories, where
   eager work of other streams meets them. An event record node counts as
   recorded at the launch's end, a wait node as waited at its start (a race
   it hides is missed; none is made up). A child graph's nodes take their
   place in the parent's order: after its node's predecessors, before its
   dependents, named by their places ("memset node 2.0": node 0 of node 2's
   child). A 2-D or 3-D copy node (xrt_graph_memcpy_node_get_params) and a
   2-D memset node are boxes of rows: two nodes of one launch meet only
   where their rows share a byte (interleaved rows do not), and they enter
   the histories with their rows, as an eager 2-D or 3-D copy does.
   A captured 3-D memset is one 2-D memset node a slice (the CPU backend
   captures it so, as the CUDA runtime double does): its rows are each slice's rows.
   Not modelled: a kernel node the runtime does not give back (captured on a GPU outside a
   capture xrt began: xrt__gpu_launch_captured), child
   graphs nested deeper than XRT__CHK_DEPTH, an exec changed by
   xrt_graph_exec_node_set_params or xrt_graph_exec_memcpy_node_set_params
   (its launches are operations without accesses again), an exec
   instantiated while checking was off. */
typedef struct xrt__chk_gacc {
    unsigned node;   /* its access node (a bit of the sets) */
    xrt__chk_span r; /* r.n 0: the whole allocation at r.p, as a kernel argument */
    int write;
} xrt__chk_gacc;

typedef struct xrt__chk_graph {
    struct xrt__chk_graph *next;
    uintptr_t key;             /* the exec's handle */
    uintptr_t serial;          /* this record's number, never reused: its reported pairs' key */
    unsigned nodes, words;     /* access nodes; 64-bit words of a set */
    size_t nacc, nwait, nrecord;
    xrt__chk_gacc *acc;
    const char **name;         /* of each access node, interned (kept until checking goes off) */
    char (*label)[64];         /* the same, as read */
    uint64_t *before;          /* nodes * words: the access nodes before each */
    uintptr_t *wait, *record;  /* event handles */
    size_t bytes;
} xrt__chk_graph;

typedef struct xrt__chk_name_s { struct xrt__chk_name_s *next; char s[64]; } xrt__chk_name_s;
static xrt__chk_graph *xrt__chk_graphs[XRT__CHK_BUCKETS];
static xrt__chk_name_s *xrt__chk_names;

/* A node's name, "memset node 2 of xrt_graph_launch" ("2.0": node 0 of the
   child graph of node 2), is written into its snapshot's labels when the
   graph is read (outside the checker's lock), and interned when the
   snapshot is put, under it: one copy per text, which a report's pairs and
   the histories hold after the exec is gone. */
static void xrt__chk_node_label(int type, const char *path, char *out)
{
    static const char *const kinds[] = {"kernel", "memcpy", "memset", "host"};
    snprintf(out, 64, "%s node %.24s of xrt_graph_launch", (unsigned)type < 4 ? kinds[type] : "?", path);
}

static const char *xrt__chk_intern(const char *s)
{
    xrt__chk_name_s *n;
    for (n = xrt__chk_names; n; n = n->next)
        if (!strcmp(n->s, s)) return n->s;
    if (!(n = (xrt__chk_name_s *)xrt__chk_realloc(NULL, 0, sizeof *n))) return NULL;
    snprintf(n->s, sizeof n->s, "%s", s);
    n->next = xrt__chk_names;
    xrt__chk_names = n;
    return n->s;
}

static void xrt__chk_graph_free(xrt__chk_graph *g)
{
    if (!g) return;
    XRT_FREE(g->acc);
    XRT_FREE(g->name);
    XRT_FREE(g->label);
    XRT_FREE(g->before);
    XRT_FREE(g->wait);
    XRT_FREE(g->record);
    if (g->bytes) xrt__chk_bytes -= g->bytes; /* 0: never put, maybe freed outside the lock */
    XRT_FREE(g);
}

/* Unlinks exec's snapshot (to free), or NULL. */
static xrt__chk_graph *xrt__chk_graph_take(uintptr_t exec)
{
    xrt__chk_graph **at = &xrt__chk_graphs[xrt__chk_hash(exec)], *g;
    for (; (g = *at) != NULL; at = &g->next)
        if (g->key == exec) {
            *at = g->next;
            return g;
        }
    return NULL;
}

static xrt__chk_graph *xrt__chk_graph_find(uintptr_t exec)
{
    xrt__chk_graph *g;
    for (g = xrt__chk_graphs[xrt__chk_hash(exec)]; g; g = g->next)
        if (g->key == exec) return g;
    return NULL;
}

/* Room for item n of an array grown at each power of two: a (unchanged),
   the array moved, or NULL if out of memory (a is kept). */
static void *xrt__chk_grow(void *a, size_t n, size_t size)
{
    return n & (n - 1) ? a : XRT_REALLOC(a, (n ? 2 * n : 1) * size);
}
#define XRT__CHK_PUSH(array, n, item)                                                          \
    do {                                                                                       \
        void *grown_ = xrt__chk_grow((array), (n), sizeof *(array));                          \
        if (!grown_) return 0;                                                                 \
        memcpy(&(array), &grown_, sizeof grown_); /* any object pointer: void * converts */    \
        (array)[(n)++] = (item);                                                               \
    } while (0)

/* A graph's nodes and edges as the backend lists them, with its child
   graphs' in their place: a child node is the child's entry (its nodes come
   after it) and one more item, with no node, its exit (the child node's
   edges leave from there). Edges join items by index. */
#define XRT__CHK_DEPTH 8 /* child graphs nested deeper have no accesses */
typedef struct xrt__chk_titem { void *graph, *node; char path[40]; } xrt__chk_titem;
typedef struct xrt__chk_tedge { size_t from, to; } xrt__chk_tedge;
typedef struct xrt__chk_topo {
    xrt__chk_titem *item;
    xrt__chk_tedge *edge;
    size_t n, e;
} xrt__chk_topo;

static void xrt__chk_topo_free(xrt__chk_topo *t)
{
    XRT_FREE(t->item);
    XRT_FREE(t->edge);
}

static size_t xrt__chk_index(void *const *nodes, size_t n, const void *node)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (nodes[i] == node) return i;
    return (size_t)-1;
}

static int xrt__chk_topo_item(xrt__chk_topo *t, void *graph, void *node, const char *prefix, size_t i)
{
    xrt__chk_titem it;
    it.graph = graph, it.node = node;
    snprintf(it.path, sizeof it.path, "%.24s%u", prefix, (unsigned)i);
    XRT__CHK_PUSH(t->item, t->n, it);
    return 1;
}

static int xrt__chk_topo_edge(xrt__chk_topo *t, size_t from, size_t to)
{
    xrt__chk_tedge e;
    e.from = from, e.to = to;
    XRT__CHK_PUSH(t->edge, t->e, e);
    return 1;
}

static int xrt__chk_topo_add(const xrt_backend *b, void *graph, const char *prefix, unsigned depth, xrt__chk_topo *t);

/* Item at (a child node) is followed by its child graph's items and an exit:
   the exit's index into *exit. */
static int xrt__chk_topo_child(const xrt_backend *b, size_t at, unsigned depth, xrt__chk_topo *t, size_t *exit)
{
    xrt_graph_node_params p;
    char prefix[40];
    size_t first = t->n, j;
    int ok;
    memset(&p, 0, sizeof p);
    if (depth >= XRT__CHK_DEPTH || b->graph_node_get_params(b, t->item[at].graph, t->item[at].node, &p) != XRT_SUCCESS ||
        p.type != XRT_GRAPH_NODE_GRAPH)
        return 1;
    snprintf(prefix, sizeof prefix, "%.30s.", t->item[at].path);
    ok = xrt__chk_topo_add(b, p.child.graph, prefix, depth + 1, t);
    *exit = t->n;
    ok = ok && xrt__chk_topo_item(t, NULL, NULL, "", 0) && xrt__chk_topo_edge(t, at, *exit);
    for (j = first; ok && j < *exit; j++) ok = xrt__chk_topo_edge(t, at, j) && xrt__chk_topo_edge(t, j, *exit);
    return ok;
}

static int xrt__chk_topo_add(const xrt_backend *b, void *graph, const char *prefix, unsigned depth, xrt__chk_topo *t)
{
    size_t n = 0, e = 0, i, base = t->n, f, to;
    void **node = NULL, **from = NULL, **into = NULL;
    size_t *exit = NULL; /* the item node i's edges leave from */
    int ok = b->graph_get_nodes(b, graph, NULL, &n) == XRT_SUCCESS && b->graph_get_edges(b, graph, NULL, NULL, &e) == XRT_SUCCESS;
    if (ok) {
        node = (void **)XRT_CALLOC(n + 1, sizeof(void *));
        from = (void **)XRT_CALLOC(e + 1, sizeof(void *));
        into = (void **)XRT_CALLOC(e + 1, sizeof(void *));
        exit = (size_t *)XRT_CALLOC(n + 1, sizeof(size_t));
        ok = node && from && into && exit && b->graph_get_nodes(b, graph, node, &n) == XRT_SUCCESS &&
             b->graph_get_edges(b, graph, from, into, &e) == XRT_SUCCESS;
    }
    for (i = 0; ok && i < n; i++) {
        exit[i] = base + i;
        ok = xrt__chk_topo_item(t, graph, node[i], prefix, i);
    }
    for (i = 0; ok && i < n; i++) ok = xrt__chk_topo_child(b, base + i, depth, t, &exit[i]);
    for (i = 0; ok && i < e; i++) {
        f = xrt__chk_index(node, n, from[i]);
        to = xrt__chk_index(node, n, into[i]);
        ok = f < n && to < n && xrt__chk_topo_edge(t, exit[f], base + to);
    }
    XRT_FREE(node);
    XRT_FREE(from);
    XRT_FREE(into);
    XRT_FREE(exit);
    return ok;
}

/* Access node k writes (or reads) a box: depth slices of height rows of
   width bytes, its rows pitch apart, its slices slice apart. */
static int xrt__chk_graph_rows(xrt__chk_graph *g, unsigned k, void *start, size_t width, size_t pitch, size_t height,
                               size_t slice, size_t depth, int write)
{
    xrt__chk_gacc a;
    if (!start || !width || !height || !depth) return 1;
    a.node = k, a.write = write;
    a.r = xrt__chk_rows_of(start, width, pitch, height, slice, depth);
    XRT__CHK_PUSH(g->acc, g->nacc, a);
    return 1;
}

/* A copy node's box (xrt_graph_memcpy_node_get_params: every copy node, a
   1-D one as one row): its source read, its destination written. */
static int xrt__chk_graph_copy(xrt__chk_graph *g, unsigned k, const xrt_memcpy_3d_parms *c)
{
    const xrt_extent *e = &c->extent;
    xrt__chk_span src, dst;
    if (!e->width || !e->height || !e->depth) return 1;
    src = xrt__chk_box(&c->src_ptr, &c->src_pos, e);
    dst = xrt__chk_box(&c->dst_ptr, &c->dst_pos, e);
    return xrt__chk_graph_rows(g, k, (void *)src.p, src.width, src.pitch, src.height, src.slice, src.depth, 0) &&
           xrt__chk_graph_rows(g, k, (void *)dst.p, dst.width, dst.pitch, dst.height, dst.slice, dst.depth, 1);
}

/* n annotations into g, as access node k's accesses. */
static int xrt__chk_graph_notes(xrt__chk_graph *g, unsigned k, const xrt__chk_note *note, unsigned n)
{
    xrt__chk_gacc a;
    unsigned i;
    memset(&a, 0, sizeof a);
    a.node = k;
    for (i = 0; i < n; i++) {
        if (note[i].access == XRT_CHECK_NONE) continue;
        a.r = xrt__chk_bytes_of(note[i].p, note[i].n);
        a.write = xrt__chk_note_write(&note[i]);
        XRT__CHK_PUSH(g->acc, g->nacc, a);
    }
    return 1;
}

/* A kernel node's accesses into g, as access node k: its annotations', and
   a read-write of the whole allocation of each other argument into xrt's
   memory (r.n 0), as an eager launch's. */
static int xrt__chk_graph_kernel(xrt__chk_graph *g, const xrt_kernel_node_params *p, unsigned k)
{
    xrt__chk_note note[XRT_CHECK_ANNOTATIONS];
    unsigned n = p->function ? xrt__chk_knote_get(p->function, p->args, p->args_size, note) : 0;
    xrt__chk_gacc a;
    size_t off;
    memset(&a, 0, sizeof a);
    a.node = k;
    for (off = 0; p->args && off + sizeof(void *) <= p->args_size; off += sizeof(void *)) {
        xrt__mem_info info;
        memcpy(&a.r.p, (const char *)p->args + off, sizeof a.r.p);
        a.write = 2;
        if (!a.r.p || !xrt__mem_query((const void *)a.r.p, &info)) continue;
        if (!xrt__chk_noted(note, n, info.base, info.size)) XRT__CHK_PUSH(g->acc, g->nacc, a);
    }
    return xrt__chk_graph_notes(g, k, note, n);
}

/* A host node's accesses into g, as access node k: its annotations alone. */
static int xrt__chk_graph_host(xrt__chk_graph *g, const xrt_host_node_params *p, unsigned k)
{
    xrt__chk_note note[XRT_CHECK_ANNOTATIONS];
    xrt__host_key key = xrt__host_key_of(p->fn, p->user);
    return xrt__chk_graph_notes(g, k, note, xrt__chk_knote_get(&xrt__chk_host_fn, key.b, sizeof key.b, note));
}

/* A node's accesses and events into g, as access node number k (c: a copy
   node's box, else NULL). */
static int xrt__chk_graph_node(xrt__chk_graph *g, const xrt_graph_node_params *p, const xrt_memcpy_3d_parms *c, unsigned k)
{
    uintptr_t ev;
    if (c) return xrt__chk_graph_copy(g, k, c);
    if (p->type == XRT_GRAPH_NODE_MEMSET)
        return xrt__chk_graph_rows(g, k, p->set.dst, p->set.width * p->set.element_size, p->set.pitch, p->set.height, 0,
                                   1, 1);
    if (p->type == XRT_GRAPH_NODE_KERNEL) return xrt__chk_graph_kernel(g, &p->kernel, k);
    if (p->type == XRT_GRAPH_NODE_HOST) return xrt__chk_graph_host(g, &p->host, k);
    if ((p->type == XRT_GRAPH_NODE_WAIT_EVENT || p->type == XRT_GRAPH_NODE_EVENT_RECORD) &&
        (ev = xrt__handle_of(p->event.event, XRT__HANDLE_EVENT)) != 0) {
        if (p->type == XRT_GRAPH_NODE_WAIT_EVENT) XRT__CHK_PUSH(g->wait, g->nwait, ev);
        else XRT__CHK_PUSH(g->record, g->nrecord, ev);
    }
    return 1;
}

/* The access nodes before each: in an order where every edge goes forward
   (Kahn's), a node's set is the union of its predecessors' and themselves. */
static int xrt__chk_graph_order(xrt__chk_graph *g, const xrt__chk_topo *t, const unsigned *access)
{
    size_t *indeg = (size_t *)XRT_CALLOC(t->n + 1, sizeof(size_t)), *queue = (size_t *)XRT_CALLOC(t->n + 1, sizeof(size_t));
    uint64_t *set = (uint64_t *)XRT_CALLOC(t->n * g->words + 1, sizeof(uint64_t));
    size_t i, j, w, head = 0, tail = 0;
    int ok = indeg && queue && set;
    for (j = 0; ok && j < t->e; j++) {
        ok = t->edge[j].from < t->n && t->edge[j].to < t->n;
        if (ok) indeg[t->edge[j].to]++;
    }
    for (i = 0; ok && i < t->n; i++)
        if (!indeg[i]) queue[tail++] = i;
    while (ok && head < tail) {
        i = queue[head++];
        for (j = 0; j < t->e; j++) {
            size_t to = t->edge[j].to;
            if (t->edge[j].from != i) continue;
            for (w = 0; w < g->words; w++) set[to * g->words + w] |= set[i * g->words + w];
            if (access[i]) set[to * g->words + (access[i] - 1) / 64] |= (uint64_t)1 << ((access[i] - 1) % 64);
            if (--indeg[to] == 0) queue[tail++] = to;
        }
    }
    ok = ok && tail == t->n; /* a cycle: none, but a backend's answer is not trusted */
    for (i = 0; ok && i < t->n; i++)
        if (access[i]) memcpy(g->before + (access[i] - 1) * g->words, set + i * g->words, g->words * sizeof(uint64_t));
    XRT_FREE(indeg);
    XRT_FREE(queue);
    XRT_FREE(set);
    return ok;
}

/* Item i's accesses and events into g, as access node k; its name. A copy
   node is read as a box, also where xrt_graph_node_params cannot hold it
   (a 2-D or 3-D copy); a node the backend cannot describe has none. */
static int xrt__chk_graph_item_read(const xrt_backend *b, xrt__chk_graph *g, const xrt__chk_titem *it, unsigned k)
{
    xrt_graph_node_params p;
    xrt_memcpy_3d_parms c;
    int known, copy = 0;
    size_t had = g->nacc;
    memset(&p, 0, sizeof p);
    memset(&c, 0, sizeof c);
    if (!it->node) return 1; /* a child graph's exit */
    known = b->graph_node_get_params(b, it->graph, it->node, &p) == XRT_SUCCESS;
    if (!known || p.type == XRT_GRAPH_NODE_MEMCPY)
        copy = b->graph_memcpy_node_get_params(b, it->graph, it->node, &c) == XRT_SUCCESS;
    if (!known && !copy) return 1;
    if (copy) p.type = XRT_GRAPH_NODE_MEMCPY;
    if (!xrt__chk_graph_node(g, &p, copy ? &c : NULL, k)) return 0;
    if (g->nacc > had) xrt__chk_node_label((int)p.type, it->path, g->label[k]);
    return 1;
}

/* The snapshot of a graph (the backend's object), or NULL. */
static xrt__chk_graph *xrt__chk_graph_read(const xrt_backend *b, void *graph)
{
    xrt__chk_topo t;
    xrt__chk_graph *g = (xrt__chk_graph *)XRT_CALLOC(1, sizeof *g);
    unsigned *access = NULL, k = 0;
    size_t i;
    int ok;
    static uintptr_t serial;
    memset(&t, 0, sizeof t);
    if (g) g->serial = __atomic_add_fetch(&serial, 1, __ATOMIC_RELAXED); /* instantiations may race */
    ok = g && xrt__chk_topo_add(b, graph, "", 0, &t);
    if (ok) ok = (access = (unsigned *)XRT_CALLOC(t.n + 1, sizeof(unsigned))) != NULL &&
                 (g->name = (const char **)XRT_CALLOC(t.n + 1, sizeof(char *))) != NULL &&
                 (g->label = (char (*)[64])XRT_CALLOC(t.n + 1, sizeof *g->label)) != NULL;
    for (i = 0; ok && i < t.n; i++) {
        size_t had = g->nacc;
        ok = xrt__chk_graph_item_read(b, g, &t.item[i], k);
        if (g->nacc > had) access[i] = ++k;
    }
    if (g) g->nodes = k, g->words = (k + 63) / 64;
    if (ok && k) ok = (g->before = (uint64_t *)XRT_CALLOC((size_t)k * g->words, sizeof(uint64_t))) != NULL &&
                      xrt__chk_graph_order(g, &t, access);
    xrt__chk_topo_free(&t);
    XRT_FREE(access);
    if (!ok) {
        xrt__chk_graph_free(g);
        return NULL;
    }
    g->bytes = sizeof *g + g->nacc * sizeof *g->acc + (t.n + 1) * (sizeof *g->name + sizeof *g->label) +
               (size_t)k * g->words * sizeof(uint64_t) + (g->nwait + g->nrecord) * sizeof(uintptr_t);
    return g;
}

/* Whether access nodes i and j are joined by a path. */
static int xrt__chk_graph_path(const xrt__chk_graph *g, unsigned i, unsigned j)
{
    const uint64_t *bi = g->before + (size_t)i * g->words, *bj = g->before + (size_t)j * g->words;
    return ((bj[i / 64] >> (i % 64)) & 1) || ((bi[j / 64] >> (j % 64)) & 1);
}

/* One of the launch's accesses, resolved in the registry now. */
typedef struct xrt__chk_gitem { xrt__mem_info info; size_t lo, hi; const xrt__chk_gacc *a; } xrt__chk_gitem;

static int xrt__chk_graph_item(const xrt__chk_gacc *a, xrt__chk_gitem *it)
{
    if (!xrt__mem_query((const void *)a->r.p, &it->info)) return 0;
    it->a = a;
    it->lo = a->r.n ? a->r.p - it->info.base : 0;
    it->hi = a->r.n ? (a->r.n > it->info.size - it->lo ? it->info.size : it->lo + a->r.n) : it->info.size;
    return it->hi > it->lo;
}

/* Two nodes of one launch in no order that touch the same bytes. Two
   kernel nodes' unannotated arguments are not compared with each other:
   each stands for its whole allocation, and kernels of a fork and join that
   work on halves of one buffer would be reported (annotated, they are). */
static void xrt__chk_graph_pairs(const xrt__chk_graph *g, xrt__chk_ctx *c, void *const *site, const xrt__chk_gitem *it,
                                 size_t n)
{
    size_t i, j;
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++) {
            const xrt__chk_gitem *x = &it[i], *y = &it[j];
            xrt__chk_access a, b;
            xrt__chk_alloc *m;
            if (x->a->node == y->a->node || x->info.base != y->info.base || !(x->a->write || y->a->write) ||
                x->hi <= y->lo || y->hi <= x->lo || (!x->a->r.n && !y->a->r.n) /* two kernels' guesses */ ||
                xrt__chk_graph_path(g, x->a->node, y->a->node) || !xrt__chk_rows_meet(&x->a->r, &y->a->r))
                continue;
            if (!(m = xrt__chk_alloc_get(&x->info))) return;
            memset(&a, 0, sizeof a);
            a.ctx = b.ctx = c->ix;
            a.thread = xrt__chk_caller();
            a.epoch = xrt__chk_at(&c->clock, c->ix);
            a.tag = xrt__chk_tag_now;
            memcpy(a.site, site, sizeof a.site);
            b = a;
            a.lo = x->lo, a.hi = x->hi, a.write = x->a->write, a.fn = g->name[x->a->node];
            b.lo = y->lo, b.hi = y->hi, b.write = y->a->write, b.fn = g->name[y->a->node];
            xrt__chk_report(m, &a, &b, g->serial);
        }
}

/* A launch of exec on stream ctx c (begun: its stamp ticked). */
static void xrt__chk_graph_launch(const xrt__chk_graph *g, xrt__chk_ctx *c, void *const *site)
{
    xrt__chk_gitem *it = g->nacc ? (xrt__chk_gitem *)XRT_MALLOC(g->nacc * sizeof *it) : NULL;
    size_t i, n = 0;
    if (!it) return;
    for (i = 0; i < g->nacc; i++) n += xrt__chk_graph_item(&g->acc[i], &it[n]);
    xrt__chk_graph_pairs(g, c, site, it, n);
    for (i = 0; i < n; i++)
        xrt__chk_access_span(c, g->name[it[i].a->node], site,
                             it[i].a->r.n ? it[i].a->r : xrt__chk_bytes_of((const void *)it[i].info.base, it[i].info.size),
                             it[i].a->write);
    XRT_FREE(it);
}

/* Snapshots of execs: taken, replaced, dropped (the hooks below). */
static void xrt__chk_graph_put(uintptr_t exec, xrt__chk_graph *g)
{
    xrt__chk_graph *old = xrt__chk_graph_take(exec);
    unsigned k;
    xrt__chk_graph_free(old);
    for (k = 0; g && k < g->nodes; k++)
        if (!(g->name[k] = xrt__chk_intern(g->label[k]))) { /* out of memory: no snapshot */
            g->bytes = 0;
            xrt__chk_graph_free(g);
            return;
        }
    if (!g) return;
    g->key = exec;
    g->next = xrt__chk_graphs[xrt__chk_hash(exec)];
    xrt__chk_graphs[xrt__chk_hash(exec)] = g;
    xrt__chk_bytes += g->bytes;
}

/* >> check: the hooks of the dispatch. The call site:
   the hook's return address, inside the caller where the dispatch function
   was inlined into it, else inside that function; then `caller`, the
   dispatch function's own return address, which is the caller's call site
   where it was not inlined (-O0). No unwinding: it would cost microseconds
   an operation. */
#define XRT__CHK_SITE(site) \
    void *site[XRT__CHK_FRAMES] = {NULL, __builtin_return_address(0), caller}

/* The lock, where checking is still on (else not held): a hook that the
   dispatch called while on may run after another thread's
   xrt_check_enable(XRT_CHECK_OFF), and must not start a bookkeeping then,
   which nothing would free. */
static int xrt__chk_lock_on(void)
{
    pthread_mutex_lock(&xrt__chk_lock);
    if (__atomic_load_n(&xrt__chk_on, __ATOMIC_RELAXED)) return 1;
    pthread_mutex_unlock(&xrt__chk_lock);
    return 0;
}

/* The tag of the operation a hook records (the race observer's, else 0);
   before: its backend has yet to run it. Asked next to the backend's own
   call of the operation, with no other call of that backend's between them
   on the thread: a queued operation's before the hook's queries of the
   backend (its device, a stream's flags), a synchronous one's or a free's
   after them. The lock is held. */
static void xrt__chk_tag(const xrt_backend *b, int before)
{
    xrt__chk_tag_now = xrt__chk_tagger ? xrt__chk_tagger(xrt__chk_racer_user, b, before) : 0;
}

/* Whether the host waits for a synchronous set (src NULL) or copy, as CUDA's
   "API synchronization behavior" says, whatever the backend does: a set of
   device memory (a set of pinned host memory or "a Unified Memory region"
   is "fully synchronous"), a copy from device to device memory, and a copy
   from pageable host memory (memory xrt does not know, or knows as
   pageable) to device or managed memory ("the DMA to final destination may
   not have completed") return before their work is done. */
static int xrt__chk_sync_waits(const void *dst, const void *src)
{
    xrt__mem_info d, f;
    int to_device;
    if (!xrt__mem_query(dst, &d)) return 1;
    if (!src) return d.type != XRT_MEMORY_DEVICE;
    to_device = d.type == XRT_MEMORY_DEVICE || d.type == XRT_MEMORY_MANAGED;
    if (!to_device) return 1;
    if (!xrt__mem_query(src, &f) || f.type == XRT_MEMORY_HOST) return 0; /* pageable */
    return d.type != XRT_MEMORY_DEVICE || f.type != XRT_MEMORY_DEVICE;
}

/* A copy or set (src.p 0) of span src to span dst. */
static void xrt__chk_copy_at(void *const *site, const xrt_backend *b, const char *fn, xrt_stream stream,
                             const struct xrt__handle_slot *s, xrt__chk_span dst, xrt__chk_span src)
{
    xrt__chk_ctx *c, *host;
    int sync = !s;
    if (!xrt__chk_lock_on()) return;
    if (!sync) xrt__chk_tag(b, 0);
    /* A synchronous copy is the current device's NULL stream's, and the
       host waits for it unless it returns early (xrt__chk_sync_waits); its
       dispatch checks it before the backend's call. */
    if (sync) s = &xrt__handle_null_stream;
    if (!xrt__chk_capturing(b, s) && (host = xrt__chk_host()) && (c = xrt__chk_stream(b, stream, s))) {
        if (sync) xrt__chk_tag(b, 1);
        xrt__chk_begin(c, host, NULL);
        xrt__chk_access_span(c, fn, site, src, 0);
        xrt__chk_access_span(c, fn, site, dst, 1);
        xrt__chk_end(c);
        if (sync && xrt__chk_sync_waits((const void *)dst.p, (const void *)src.p)) xrt__chk_host_waits(host, c);
    }
    pthread_mutex_unlock(&xrt__chk_lock);
}

XRT_API void xrt__chk_copy(void *caller, xrt_status st, const xrt_backend *b, const char *fn, xrt_stream stream,
                           const struct xrt__handle_slot *s, void *dst, size_t dst_n, const void *src, size_t src_n)
{
    if (st != XRT_SUCCESS) return;
    XRT__CHK_SITE(site);
    xrt__chk_copy_at(site, b, fn, stream, s, xrt__chk_bytes_of(dst, dst_n), xrt__chk_bytes_of(src, src_n));
}

/* xrt_memcpy_2d(_async), xrt_memset_2d(_async) and its wider elements (src
   NULL): height rows of width bytes, pitches apart (checked, none empty). */
XRT_API void xrt__chk_copy_2d(void *caller, xrt_status st, const xrt_backend *b, const char *fn, xrt_stream stream,
                              const struct xrt__handle_slot *s, void *dst, size_t dpitch, const void *src, size_t spitch,
                              size_t width, size_t height)
{
    if (st != XRT_SUCCESS) return;
    XRT__CHK_SITE(site);
    xrt__chk_copy_at(site, b, fn, stream, s, xrt__chk_rows_of(dst, width, dpitch, height, 0, 1),
                     src ? xrt__chk_rows_of(src, width, spitch, height, 0, 1) : xrt__chk_bytes_of(NULL, 0));
}

/* xrt_memcpy while checking: its access (a failure of the copy is the
   backend's, after the dispatch's checks: the access counts all the same),
   then the copy, out of line, so that the inline path keeps only the
   switch's test. */
XRT_API xrt_status xrt__chk_memcpy(void *caller, const xrt_backend *b, void *dst, const void *src, size_t size,
                                   xrt_memcpy_kind kind)
{
    xrt__chk_copy(caller, XRT_SUCCESS, b, "xrt_memcpy", NULL, NULL, dst, size, src, size);
    return b->memcpy(b, dst, src, size, kind);
}

/* xrt_memcpy_peer, as cudaMemcpyPeer: an operation of the current device's
   NULL stream that is also serialized with the source's and the
   destination's NULL streams: after their work and their blocking streams'
   so far, before their later work; the host does not wait for it (a copy
   between devices' memory). 0 bytes are ordered so too. */
XRT_API void xrt__chk_copy_peer(void *caller, const xrt_backend *b, void *dst, int dst_device, const void *src,
                                int src_device, size_t size)
{
    xrt__chk_ctx *c, *host, *o[2] = {NULL, NULL};
    int k, dev[2] = {src_device, dst_device};
    XRT__CHK_SITE(site);
    if (!xrt__chk_lock_on()) return;
    if ((host = xrt__chk_host()) && (c = xrt__chk_stream(b, NULL, &xrt__handle_null_stream))) {
        xrt__chk_tag(b, 1); /* after the queries, as a synchronous copy's */
        for (k = 0; k < 2; k++)
            if (dev[k] != c->device && (k == 0 || dev[1] != dev[0]) && (o[k] = xrt__chk_legacy(b, dev[k])) != NULL) {
                xrt__chk_join(&c->clock, &o[k]->clock);
                xrt__chk_join_peers(&c->clock, o[k]);
            }
        xrt__chk_begin(c, host, NULL);
        xrt__chk_access_at(c, "xrt_memcpy_peer", site, src, size, 0);
        xrt__chk_access_at(c, "xrt_memcpy_peer", site, dst, size, 1);
        xrt__chk_end(c);
        for (k = 0; k < 2; k++)
            if (o[k] && xrt__chk_join(&o[k]->clock, &c->clock)) xrt__chk_end(o[k]);
    }
    pthread_mutex_unlock(&xrt__chk_lock);
}

/* xrt_memcpy_3d(_async) (p), xrt_memset_3d(_async) (set and its extent):
   checked boxes, none empty. */
XRT_API void xrt__chk_copy_3d(void *caller, xrt_status st, const xrt_backend *b, const char *fn, xrt_stream stream,
                              const struct xrt__handle_slot *s, const xrt_memcpy_3d_parms *p,
                              const xrt_pitched_ptr *set, const xrt_extent *extent)
{
    static const xrt_pos origin = {0, 0, 0};
    if (st != XRT_SUCCESS) return;
    XRT__CHK_SITE(site);
    if (p)
        xrt__chk_copy_at(site, b, fn, stream, s, xrt__chk_box(&p->dst_ptr, &p->dst_pos, &p->extent),
                         xrt__chk_box(&p->src_ptr, &p->src_pos, &p->extent));
    else
        xrt__chk_copy_at(site, b, fn, stream, s, xrt__chk_box(set, &origin, extent), xrt__chk_bytes_of(NULL, 0));
}

XRT_API xrt_status xrt__chk_launch_refused(xrt_status st)
{
    xrt__chk_nnotes = 0; /* they were the refused launch's */
    return st;
}

/* A kernel or host node added or set with the graph's node calls, its
   params as the backend gives them back (NULL: refused). The thread's notes
   are this call's, whatever its outcome. */
XRT_API void xrt__chk_node_noted(const xrt_graph_node_params *p)
{
    unsigned nnotes = xrt__chk_take_notes();
    xrt__host_key k;
    if (!p || !nnotes || !xrt__chk_lock_on()) return;
    if (p->type == XRT_GRAPH_NODE_KERNEL && p->kernel.function)
        xrt__chk_knote_put(p->kernel.function, (const unsigned char *)p->kernel.args, p->kernel.args_size, nnotes);
    if (p->type == XRT_GRAPH_NODE_HOST) {
        k = xrt__host_key_of(p->host.fn, p->host.user);
        xrt__chk_knote_put(&xrt__chk_host_fn, k.b, sizeof k.b, nnotes);
    }
    pthread_mutex_unlock(&xrt__chk_lock);
}

/* function: the kernel's backend object, with its args; NULL: a host
   function, args its xrt__host_key (NULL: a callback, never captured). */
XRT_API void xrt__chk_launch(void *caller, xrt_status st, const xrt_backend *b, const char *fn, xrt_stream stream,
                             const struct xrt__handle_slot *s, const void *function, const void *args,
                             size_t args_size)
{
    xrt__chk_ctx *c, *host;
    unsigned nnotes = xrt__chk_take_notes(); /* an annotation is the next launch's, whatever its outcome */
    int capturing;
    if (st != XRT_SUCCESS) return;
    XRT__CHK_SITE(site);
    if (!xrt__chk_lock_on()) return;
    xrt__chk_tag(b, 0);
    capturing = xrt__chk_capturing(b, s);
    if (capturing && args && nnotes) /* a node now: its notes are kept for it */
        xrt__chk_knote_put(function ? function : &xrt__chk_host_fn, (const unsigned char *)args, args_size, nnotes);
    else if (!capturing && (host = xrt__chk_host()) && (c = xrt__chk_stream(b, stream, s))) {
        xrt__chk_begin(c, host, NULL);
        xrt__chk_args(c, fn, site, function ? (const unsigned char *)args : NULL, args_size, nnotes);
        xrt__chk_end(c);
    }
    pthread_mutex_unlock(&xrt__chk_lock);
}

/* A graph launch: its nodes' accesses when its exec has a snapshot, else an
   operation without accesses. It comes after the exec's previous launch,
   whatever its stream (cudaGraphLaunch), and wait nodes' events; record
   nodes' events, and the exec, take the launch's clock (">> check: graphs").
   What it comes after, and which snapshot it runs, are noted before the
   backend's call (xrt__chk_graph_seen), as a wait's record is: another
   thread's record of a wait node's event, or update of the exec (a new
   snapshot), while the backend launches is not this launch's; another
   launch of the exec meanwhile is ordered with it at its end
   (xrt__chk_graph_done). Its record nodes, and the launch as its exec's
   record, count as records begun then and done at its end (xrt__chk_event). */
typedef struct xrt__chk_glaunch {
    unsigned era;          /* of the bookkeeping that the notes belong to (0: none noted) */
    uintptr_t serial;      /* the exec's snapshot at the call (0: none) */
    uint64_t ticket;       /* the launch as a record of its exec */
    xrt__chk_clock after;  /* the exec's last launch, the wait nodes' records, at the call */
    size_t nrecord;
    uintptr_t *record;     /* the record nodes' events at the call, */
    uint64_t *tickets;     /* and the launch's tickets as their records */
} xrt__chk_glaunch;

/* Event e's record begins: its ticket (xrt__chk_record_begin). */
static uint64_t xrt__chk_begun(xrt__chk_event *e)
{
    uint64_t ticket = ((e->begun + 1) << 1) | (e->done == e->begun);
    e->begun++;
    return ticket;
}

/* The record of e that a wait made now takes, into clock into: none while
   a record is in progress, or where it is not known which. */
static void xrt__chk_join_record(xrt__chk_clock *into, const xrt__chk_event *e)
{
    if (e && e->done == e->begun && e->recorded && !e->unsure) xrt__chk_join(into, &e->clock);
}

/* A record that took ticket is done (also one that failed); recorded on
   ctx c where c is not NULL, alone or not (see xrt__chk_event). */
static void xrt__chk_record_done(xrt__chk_event *e, uint64_t ticket, const xrt__chk_ctx *c)
{
    if (ticket && e->done < e->begun) e->done++;
    if (!c) return;
    xrt__chk_mark(e, c);
    e->unsure = !(ticket & 1) || e->begun != ticket >> 1; /* alone: none in progress at its start, none begun since */
}

/* Before the backend's launch (the lock held): what the launch of exec takes. */
static void xrt__chk_graph_seen(xrt__chk_glaunch *v, const void *exec)
{
    const xrt__chk_graph *g = xrt__chk_graph_find((uintptr_t)exec);
    xrt__chk_event *e;
    size_t i;
    v->era = xrt__chk_era;
    v->serial = g ? g->serial : 0;
    if ((e = xrt__chk_event_get(exec, 1)) != NULL) {
        xrt__chk_join_record(&v->after, e);
        v->ticket = xrt__chk_begun(e);
    }
    for (i = 0; g && i < g->nwait; i++) xrt__chk_join_record(&v->after, xrt__chk_event_get((const void *)g->wait[i], 0));
    if (!g || !g->nrecord || !(v->record = (uintptr_t *)XRT_MALLOC(g->nrecord * sizeof *v->record)) ||
        !(v->tickets = (uint64_t *)XRT_CALLOC(g->nrecord, sizeof *v->tickets)))
        return; /* out of memory: its records are not counted, nor marked */
    for (i = 0; i < g->nrecord; i++)
        if ((e = xrt__chk_event_get((const void *)(v->record[i] = g->record[i]), 1)) != NULL)
            v->tickets[i] = xrt__chk_begun(e);
    v->nrecord = g->nrecord;
}

/* After the backend's launch (the lock held, checking on in v's era): the
   launch on stream ctx c (NULL: failed, or captured) with what v noted; a
   snapshot replaced meanwhile is not the one it ran: no accesses, and its
   record nodes' records are not known (unsure). */
static void xrt__chk_graph_done(const xrt__chk_glaunch *v, const void *exec, xrt__chk_ctx *c, xrt__chk_ctx *host,
                                void *const *site)
{
    const xrt__chk_graph *g = c ? xrt__chk_graph_find((uintptr_t)exec) : NULL;
    xrt__chk_event *e, *last = xrt__chk_event_get(exec, 1);
    size_t i;
    if (g && g->serial != v->serial) g = NULL;
    /* another launch of the exec overlapped this one: the two are ordered
       (cudaGraphLaunch), in an order the checker cannot tell: the one that
       ends here later comes after the other (a race behind the other may
       be missed; none between the two is made up) */
    if (c && last && last->recorded && (!(v->ticket & 1) || last->begun != v->ticket >> 1))
        xrt__chk_join(&c->clock, &last->clock);
    if (c) xrt__chk_begin(c, host, &v->after);
    if (g) xrt__chk_graph_launch(g, c, site);
    for (i = 0; i < v->nrecord; i++)
        if ((e = xrt__chk_event_get((const void *)v->record[i], 1)) != NULL) {
            xrt__chk_record_done(e, v->tickets[i], c);
            if (c && !g) e->unsure = 1;
        }
    if (last && v->ticket && last->done < last->begun) last->done++;
    if (last && c) xrt__chk_mark(last, c); /* never unsure: an overlapped launch took the other's clock */
    if (c) xrt__chk_end(c);
}

XRT_API xrt_status xrt__chk_graph_launch_call(void *caller, const xrt_backend *b, xrt_graph_exec exec,
                                              const struct xrt__handle_slot *x, xrt_stream stream,
                                              const struct xrt__handle_slot *s)
{
    xrt__chk_glaunch v;
    xrt__chk_ctx *c = NULL, *host = NULL;
    xrt_status st;
    XRT__CHK_SITE(site);
    memset(&v, 0, sizeof v);
    if (xrt__chk_lock_on()) {
        xrt__chk_graph_seen(&v, exec);
        xrt__chk_keep(&v.after);
        pthread_mutex_unlock(&xrt__chk_lock);
    }
    st = xrt__graph_launch_run(b, exec, x, s);
    if (v.era && xrt__chk_lock_on()) {
        if (v.era == xrt__chk_era) { /* else its notes were of a bookkeeping forgotten meanwhile */
            if (st == XRT_SUCCESS) {
                xrt__chk_tag(b, 0);
                if (!xrt__chk_capturing(b, s) && (host = xrt__chk_host()) != NULL) c = xrt__chk_stream(b, stream, s);
            }
            xrt__chk_graph_done(&v, exec, c, host, site);
        }
        pthread_mutex_unlock(&xrt__chk_lock);
    }
    XRT_FREE(v.after.v);
    XRT_FREE(v.record);
    XRT_FREE(v.tickets);
    return st;
}

/* xrt_graph_instantiate, xrt_graph_exec_update(_with_result): exec's
   snapshot of graph (the backend's object), read and kept in the graph
   nodes' hold of the backend's instantiate or update (xrt__graph_hold,
   held by the caller), so that it is of the graph the exec was made of
   and no other thread's update or change of the exec comes between;
   failures quiet (a node the backend cannot describe is no access, and no
   error of the caller's). */
XRT_API void xrt__chk_instantiate(xrt_status st, const xrt_backend *b, const void *exec, void *graph)
{
    xrt__chk_graph *g;
    if (st != XRT_SUCCESS) return;
    xrt__err.quiet++;
    g = xrt__chk_graph_read(b, graph);
    xrt__err.quiet--;
    pthread_mutex_lock(&xrt__chk_lock);
    if (__atomic_load_n(&xrt__chk_on, __ATOMIC_RELAXED)) {
        xrt__chk_graph_put((uintptr_t)exec, g);
    } else if (g) { /* turned off meanwhile: never counted */
        g->bytes = 0;
        xrt__chk_graph_free(g);
    }
    pthread_mutex_unlock(&xrt__chk_lock);
}

/* An exec changed node by node: no snapshot; destroyed: nor the clock of
   its last launch (its handle never comes back). */
XRT_API void xrt__chk_exec_gone(const void *exec, int destroyed)
{
    if (!xrt__chk_lock_on()) return;
    xrt__chk_graph_put((uintptr_t)exec, NULL);
    if (destroyed) xrt__chk_event_drop((uintptr_t)exec);
    pthread_mutex_unlock(&xrt__chk_lock);
}

/* A free writes the whole allocation. xrt_free and xrt_free_host (s NULL)
   wait for all of the backend's work first, as cudaFree does; the
   allocation's history goes with it. Called once the free is known valid
   (record: the allocation's, which xrt__mem_take took out of the registry),
   before the backend frees. A captured free frees nothing now: no access,
   and the history stays (xrt__chk_mem_back keeps it where the backend
   refuses the capture). */
XRT_API void xrt__chk_free(void *caller, const xrt_backend *b, const char *fn, xrt_stream stream, const struct xrt__handle_slot *s,
                           const void *record)
{
    xrt__chk_ctx *c = NULL, *host;
    xrt__chk_alloc *m;
    xrt__mem_info info;
    XRT__CHK_SITE(site);
    if (!xrt__chk_lock_on()) return;
    xrt__mem_info_of(record, &info);
    if ((!s || !xrt__chk_capturing(b, s)) && (host = xrt__chk_host()) != NULL) {
        if (!s) {
            xrt__chk_host_waits_all(host, b, -1);
            xrt__chk_tick(host);
            c = host;
        } else if ((c = xrt__chk_stream(b, stream, s)) != NULL) {
            xrt__chk_begin(c, host, NULL);
        }
        xrt__chk_tag(b, 1);
        if (c && info.size && (m = xrt__chk_alloc_get(&info)) != NULL)
            xrt__chk_access_in(c, m, fn, site, xrt__chk_bytes_of(NULL, info.size), 1);
        if (c && c != host) xrt__chk_end(c);
        xrt__chk_alloc_forget(info.base);
    }
    pthread_mutex_unlock(&xrt__chk_lock);
}

/* A free the backend failed put the allocation back under a new generation
   (xrt__mem_finish): the same memory, whose history goes on. */
XRT_API void xrt__chk_mem_back(uintptr_t base, uint64_t was, uint64_t now)
{
    xrt__chk_alloc *m;
    if (!xrt__chk_lock_on()) return;
    for (m = xrt__chk_allocs[xrt__chk_hash(base)]; m; m = m->next)
        if (m->info.base == base && m->info.generation == was) m->info.generation = now;
    pthread_mutex_unlock(&xrt__chk_lock);
}

/* Before xrt_event_record's backend call: the record's ticket for
   xrt__chk_record (0: not counted), its number among the event's records
   begun, << 1, and 1 where none was in progress. */
XRT_API uint64_t xrt__chk_record_begin(const void *event)
{
    xrt__chk_event *e;
    uint64_t ticket = 0;
    if (!xrt__chk_lock_on()) return 0;
    if ((e = xrt__chk_event_get(event, 1)) != NULL) ticket = xrt__chk_begun(e);
    pthread_mutex_unlock(&xrt__chk_lock);
    return ticket;
}

/* Before a wait's or an event synchronize's backend call: the event's
   records begun, << 1, and 1 where none was in progress (0: not known). */
XRT_API uint64_t xrt__chk_event_seen(const void *event)
{
    xrt__chk_event *e;
    uint64_t seen = 0;
    if (!xrt__chk_lock_on()) return 0;
    e = xrt__chk_event_get(event, 0);
    seen = !e ? 1 : (e->begun << 1) | (e->done == e->begun);
    pthread_mutex_unlock(&xrt__chk_lock);
    return seen;
}

/* The record a wait took, seen before its backend call: NULL where none,
   or where it is not known which (see xrt__chk_event). */
static const xrt__chk_clock *xrt__chk_record_taken(const void *event, uint64_t seen)
{
    xrt__chk_event *e = xrt__chk_event_get(event, 0);
    if (!(seen & 1) || (e ? e->begun : 0) != seen >> 1) return NULL;
    return e && e->recorded && !e->unsure ? &e->clock : NULL;
}

XRT_API void xrt__chk_record(void *caller, xrt_status st, const xrt_backend *b, const void *event, xrt_stream stream,
                             const struct xrt__handle_slot *s, uint64_t ticket)
{
    (void)caller; /* orders, touches nothing */
    xrt__chk_ctx *c, *host;
    xrt__chk_event *e;
    if (!xrt__chk_lock_on()) return;
    if ((e = xrt__chk_event_get(event, 1)) != NULL && ticket && e->done < e->begun) e->done++;
    if (st == XRT_SUCCESS && e && !xrt__chk_capturing(b, s) && (host = xrt__chk_host()) &&
        (c = xrt__chk_stream(b, stream, s))) {
        xrt__chk_begin(c, host, NULL);
        xrt__chk_mark(e, c);
        xrt__chk_end(c);
        /* alone: none in progress at its start, none begun since */
        e->unsure = !(ticket & 1) || e->begun != ticket >> 1;
    }
    pthread_mutex_unlock(&xrt__chk_lock);
}

XRT_API void xrt__chk_wait(void *caller, xrt_status st, const xrt_backend *b, xrt_stream stream, const struct xrt__handle_slot *s,
                           const void *event, uint64_t seen)
{
    (void)caller; /* orders, touches nothing */
    xrt__chk_ctx *c, *host;
    if (st != XRT_SUCCESS) return;
    if (!xrt__chk_lock_on()) return;
    if (!xrt__chk_capturing(b, s) && (host = xrt__chk_host()) && (c = xrt__chk_stream(b, stream, s))) {
        xrt__chk_begin(c, host, xrt__chk_record_taken(event, seen)); /* never recorded: no wait */
        xrt__chk_end(c);
    }
    pthread_mutex_unlock(&xrt__chk_lock);
}

/* xrt_device_reset retires the device's created streams (the host has
   waited for them): no longer the NULL stream's peers, nor waited for. */
static void xrt__chk_retire(const xrt_backend *b, int device)
{
    unsigned i;
    for (i = 0; i < xrt__chk_nctx; i++) {
        xrt__chk_ctx *x = xrt__chk_ctxs[i];
        if (x->kind == XRT__CHK_STREAM && x->b == b && x->device == device && !x->gone) {
            x->dead = 1;
            xrt__chk_ctx_gone(x, 0);
        }
    }
}

/* The host thread waits: for an event's last record, the current device,
   every device; a stream's: xrt__chk_stream_wait. A query counts only when
   it returned success. */
XRT_API void xrt__chk_sync(void *caller, xrt_status st, const xrt_backend *b, int what, const void *event,
                           uint64_t seen)
{
    (void)caller; /* orders, touches nothing */
    xrt__chk_ctx *host;
    const xrt__chk_clock *r;
    if (st != XRT_SUCCESS) return;
    if (!xrt__chk_lock_on()) return;
    if ((host = xrt__chk_host()) != NULL) {
        if (what == XRT__CHK_SYNC_EVENT && (r = xrt__chk_record_taken(event, seen)) != NULL)
            xrt__chk_join(&host->clock, r);
        else if (what == XRT__CHK_SYNC_DEVICE || what == XRT__CHK_SYNC_ALL)
            xrt__chk_host_waits_all(host, b, what == XRT__CHK_SYNC_ALL ? -1 : xrt__chk_device(b));
    }
    pthread_mutex_unlock(&xrt__chk_lock);
}

/* xrt_device_reset while checking: the host waits for what the device's
   streams were given before the call (taken then, as xrt_device_synchronize's
   wait is), never for work that another thread queues on them while the
   backend synchronizes; once the device is idle the reset retires them. */
XRT_API xrt_status xrt__chk_device_reset(void *caller, const xrt_backend *b)
{
    xrt_status st;
    xrt__chk_sync(caller, XRT_SUCCESS, b, XRT__CHK_SYNC_DEVICE, NULL, 0);
    if ((st = b->device_synchronize(b)) != XRT_SUCCESS) return xrt__err_as(st, "xrt_device_reset");
    if (xrt__chk_lock_on()) {
        xrt__chk_retire(b, xrt__chk_device(b));
        pthread_mutex_unlock(&xrt__chk_lock);
    }
    return b->device_reset(b);
}

/* xrt_stream_synchronize (query 0), xrt_stream_query (1) while checking:
   the host waits for what the stream was given before the backend's call
   (taken then: a copy of the clocks), never for work that another thread
   queues on it while the backend waits, which the wait may not cover. A
   query counts only when it returned success; a wait whose bookkeeping
   was forgotten meanwhile (checking off, or off and on) joins nothing. */
XRT_API xrt_status xrt__chk_stream_wait(void *caller, const xrt_backend *b, xrt_stream stream,
                                        const struct xrt__handle_slot *s, int query)
{
    xrt__chk_clock upto = {NULL, 0, 0};
    xrt__chk_ctx *c, *host;
    unsigned era = 0;
    xrt_status st;
    (void)caller; /* orders, touches nothing */
    if (xrt__chk_lock_on()) {
        era = xrt__chk_era;
        if (!xrt__chk_capturing(b, s) && (c = xrt__chk_stream(b, stream, s)) != NULL) xrt__chk_waits_for(&upto, c);
        xrt__chk_keep(&upto);
        pthread_mutex_unlock(&xrt__chk_lock);
    }
    st = query ? b->stream_query(b, s->obj) : b->stream_synchronize(b, s->obj);
    if (st == XRT_SUCCESS && upto.n && xrt__chk_lock_on()) {
        if (era == xrt__chk_era && (host = xrt__chk_host()) != NULL) xrt__chk_join(&host->clock, &upto);
        pthread_mutex_unlock(&xrt__chk_lock);
    }
    XRT_FREE(upto.v);
    return st;
}

/* A stream made while checking is on belongs to the current device. */
XRT_API void xrt__chk_stream_created(void *caller, xrt_status st, const xrt_backend *b, const xrt_stream *stream)
{
    (void)caller; /* orders, touches nothing */
    xrt__handle_slot *s;
    if (st != XRT_SUCCESS) return;
    if (!xrt__chk_lock_on()) return;
    if ((s = xrt__handle_lookup(b, *stream, XRT__HANDLE_STREAM)) != NULL) xrt__chk_stream(b, *stream, s);
    pthread_mutex_unlock(&xrt__chk_lock);
}

/* xrt_stream_destroy: the stream's context is gone (its queued work still
   runs: its clock is buried). A destroy that waits for other threads' calls
   on the stream comes here once they are done (xrt__limbo_finish): their
   operations are the stream's. */
XRT_API void xrt__chk_stream_destroyed(const xrt_backend *b, xrt_stream stream)
{
    xrt__chk_ctx *c;
    if (xrt__limbo_holds((uintptr_t)stream) || !xrt__chk_lock_on()) return;
    if ((c = xrt__chk_ctx_find(XRT__CHK_STREAM, (uintptr_t)stream, b, 0)) != NULL) xrt__chk_ctx_gone(c, 1);
    pthread_mutex_unlock(&xrt__chk_lock);
}

/* A host thread exits (its key's destructor; the lock is not held): its
   context goes, and its per-thread streams' (their queued work still runs:
   their clocks are buried, as a destroyed stream's). A later destructor
   that calls xrt again starts a new context, which this one frees again. */
static void xrt__chk_thread_exit(void *unused)
{
    unsigned i, ix = xrt__chk_thread;
    xrt__chk_ctx *host;
    (void)unused;
    xrt__chk_thread = 0;
    if (!ix || !xrt__chk_lock_on()) return;
    if (xrt__chk_thread_era == xrt__chk_era) {
        host = xrt__chk_ctxs[ix - 1];
        for (i = 0; i < xrt__chk_nctx; i++) {
            xrt__chk_ctx *x = xrt__chk_ctxs[i];
            if (x->kind == XRT__CHK_PER_THREAD && !x->gone && x->key == host->number) xrt__chk_ctx_gone(x, 1);
        }
        xrt__chk_ctx_gone(host, 0);
    }
    pthread_mutex_unlock(&xrt__chk_lock);
}

/* xrt_event_destroy: the event's clock goes. Its handle never comes back; a
   wait already made joined the record current then, and a graph's record
   node that names it after the destroy starts it again. */
XRT_API void xrt__chk_event_destroyed(xrt_event event)
{
    if (xrt__limbo_holds((uintptr_t)event) || !xrt__chk_lock_on()) return; /* as a stream's */
    xrt__chk_event_drop((uintptr_t)event);
    pthread_mutex_unlock(&xrt__chk_lock);
}

/* xrt_event_destroy while checking is on: the destroy, then the clock. */
XRT_API xrt_status xrt__chk_event_destroy(const xrt_backend *b, xrt_event event)
{
    xrt_status st = xrt__handle_free(b, event, XRT__HANDLE_EVENT, "xrt_event_destroy");
    if (st == XRT_SUCCESS) xrt__chk_event_destroyed(event);
    return st;
}

/* fork(): the checker's lock is held across it (xrt.h's handlers). In the
   child, the forking thread, the only one there, comes after every
   context: the parent's queued work is dropped in the child (the CPU
   backend) or out of its reach (a GPU backend refuses its calls), so none
   of it races what the child does. The child counts and reports its own
   races afresh. */
static void xrt__chk_fork_prepare(void) { pthread_mutex_lock(&xrt__chk_lock); }
static void xrt__chk_fork_parent(void) { pthread_mutex_unlock(&xrt__chk_lock); }

static void xrt__chk_fork_child(void)
{
    xrt__chk_ctx *host;
    unsigned i;
    /* the child's exit status (XRT_CHECK_EXITCODE) speaks of its own races:
       the parent's count and reported pairs stay the parent's */
    xrt__chk_races = xrt__chk_npairs = 0;
    if (!__atomic_load_n(&xrt__chk_on, __ATOMIC_RELAXED) || !(host = xrt__chk_host())) return;
    for (i = 0; i < xrt__chk_nctx; i++) xrt__chk_join(&host->clock, &xrt__chk_ctxs[i]->clock);
    xrt__chk_join_graves(&host->clock, NULL, -1, 0);
}

/* >> check: the public calls */
static void xrt__chk_at_exit(void)
{
    size_t n;
    pthread_mutex_lock(&xrt__chk_lock);
    n = xrt__chk_races;
    pthread_mutex_unlock(&xrt__chk_lock);
    if (n && xrt__chk_exitcode) { /* as ThreadSanitizer: the exit status says races were found */
        fflush(NULL);
        _exit(xrt__chk_exitcode);
    }
}

/* XRT_CHECK_EXITCODE is read once, before the lock (a bad value warns). */
static void xrt__chk_setup(void)
{
    int code = __atomic_load_n(&xrt__chk_set_up, __ATOMIC_RELAXED)
                   ? 0
                   : (int)xrt__env_count("XRT_CHECK_EXITCODE", 66, 0, 255, NULL); /* 0: the status stays */
    pthread_mutex_lock(&xrt__chk_lock);
    if (!xrt__chk_set_up) {
        __atomic_store_n(&xrt__chk_set_up, 1, __ATOMIC_RELAXED);
        xrt__chk_exitcode = code;
        atexit(xrt__chk_at_exit);
    }
    pthread_mutex_unlock(&xrt__chk_lock);
}

/* Everything but the race count and the reports' destination goes. */
static void xrt__chk_forget_all(void)
{
    unsigned i;
    xrt__chk_alloc *m;
    xrt__chk_event *e;
    for (i = 0; i < xrt__chk_nctx; i++) {
        xrt__chk_release(xrt__chk_ctxs[i]->clock.v, xrt__chk_ctxs[i]->clock.n * sizeof(uint32_t));
        xrt__chk_release(xrt__chk_ctxs[i], sizeof *xrt__chk_ctxs[i]);
    }
    xrt__chk_release(xrt__chk_ctxs, xrt__chk_capctx * sizeof *xrt__chk_ctxs);
    for (i = 0; i < xrt__chk_ngraves; i++)
        xrt__chk_release(xrt__chk_graves[i].clock.v, xrt__chk_graves[i].clock.n * sizeof(uint32_t));
    xrt__chk_release(xrt__chk_graves, xrt__chk_ngraves * sizeof *xrt__chk_graves);
    xrt__chk_graves = NULL;
    xrt__chk_ngraves = xrt__chk_free_slots = 0;
    for (i = 0; i < XRT__CHK_BUCKETS; i++) {
        while ((m = xrt__chk_allocs[i]) != NULL) {
            xrt__chk_allocs[i] = m->next;
            xrt__chk_release(m->a, m->cap * sizeof *m->a);
            xrt__chk_release(m, sizeof *m);
        }
        while ((e = xrt__chk_events[i]) != NULL) {
            xrt__chk_events[i] = e->next;
            xrt__chk_release(e->clock.v, e->clock.n * sizeof(uint32_t));
            xrt__chk_release(e, sizeof *e);
        }
        xrt__chk_ctx_buckets[i] = 0;
        while (xrt__chk_graphs[i]) xrt__chk_graph_free(xrt__chk_graph_take(xrt__chk_graphs[i]->key));
    }
    while (xrt__chk_knotes) {
        xrt__chk_knote *k = xrt__chk_knotes;
        xrt__chk_knotes = k->next;
        xrt__chk_knote_free(k);
    }
    while (xrt__chk_names) {
        xrt__chk_name_s *n = xrt__chk_names;
        xrt__chk_names = n->next;
        xrt__chk_release(n, sizeof *n);
    }
    xrt__chk_release(xrt__chk_pairs, xrt__chk_cappairs * sizeof *xrt__chk_pairs);
    xrt__chk_ctxs = NULL;
    xrt__chk_pairs = NULL;
    xrt__chk_nctx = xrt__chk_capctx = xrt__chk_streams = xrt__chk_threads = 0;
    xrt__chk_npairs = xrt__chk_cappairs = xrt__chk_dropped = 0;
    xrt__chk_nallocs = xrt__chk_sweep_at = 0;
    xrt__chk_short = 0;
    __atomic_store_n(&xrt__chk_era, xrt__chk_era + 1, __ATOMIC_RELAXED); /* read outside the lock by annotations */
}

XRT_API void xrt__chk_shutdown(void)
{
    pthread_mutex_lock(&xrt__chk_lock);
    xrt__chk_forget_all();
    pthread_mutex_unlock(&xrt__chk_lock);
}

XRT_API xrt_status xrt_check_enable(unsigned modes)
{
    if (modes & ~(unsigned)XRT_CHECK_STREAMS)
        return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_check_enable",
                         "unknown modes 0x%x (XRT_CHECK_STREAMS, XRT_CHECK_OFF)", modes);
    if (modes) xrt__chk_setup();
    pthread_mutex_lock(&xrt__chk_lock);
    if (!modes && __atomic_load_n(&xrt__chk_on, __ATOMIC_RELAXED)) xrt__chk_forget_all();
    __atomic_store_n(&xrt__chk_on, modes ? 1 : 0, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&xrt__chk_lock);
    return XRT_SUCCESS;
}

XRT_API xrt_status xrt_check_set_report_callback(xrt_check_report_fn fn, void *user)
{
    pthread_mutex_lock(&xrt__chk_lock);
    xrt__chk_sink = fn;
    xrt__chk_sink_user = user;
    pthread_mutex_unlock(&xrt__chk_lock);
    return XRT_SUCCESS;
}

XRT_API xrt_status xrt_check_set_race_observer(xrt_check_tag_fn tag, xrt_check_race_fn race, void *user)
{
    pthread_mutex_lock(&xrt__chk_lock);
    xrt__chk_tagger = tag;
    xrt__chk_racer = race;
    xrt__chk_racer_user = user;
    pthread_mutex_unlock(&xrt__chk_lock);
    return XRT_SUCCESS;
}

XRT_API xrt_status xrt_check_get_modes(unsigned *modes)
{
    XRT__CHECK_PTR(modes, "xrt_check_get_modes");
    *modes = __atomic_load_n(&xrt__chk_on, __ATOMIC_RELAXED) ? XRT_CHECK_STREAMS : XRT_CHECK_OFF;
    return XRT_SUCCESS;
}

XRT_API xrt_status xrt_check_race_count(size_t *count)
{
    XRT__CHECK_PTR(count, "xrt_check_race_count");
    pthread_mutex_lock(&xrt__chk_lock);
    *count = xrt__chk_races;
    pthread_mutex_unlock(&xrt__chk_lock);
    return XRT_SUCCESS;
}

XRT_API xrt_status xrt_check_memory_bytes(size_t *bytes)
{
    XRT__CHECK_PTR(bytes, "xrt_check_memory_bytes");
    pthread_mutex_lock(&xrt__chk_lock);
    *bytes = xrt__chk_bytes;
    pthread_mutex_unlock(&xrt__chk_lock);
    return XRT_SUCCESS;
}

XRT_API xrt_status xrt_check_annotate(const void *ptr, size_t size, xrt_check_access access)
{
    const char *fn = "xrt_check_annotate";
    unsigned era;
    XRT__CHECK_PTR(ptr, fn);
    if ((unsigned)access > XRT_CHECK_READ_WRITE)
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "access %d is none of XRT_CHECK_NONE (0), _READ (1), _WRITE (2), "
                         "_READ_WRITE (3)", (int)access);
    if (size == 0) return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "size is 0");
    if (!__atomic_load_n(&xrt__chk_on, __ATOMIC_RELAXED)) return XRT_SUCCESS;
    era = __atomic_load_n(&xrt__chk_era, __ATOMIC_RELAXED);
    if (xrt__chk_notes_era != era) xrt__chk_nnotes = 0; /* left from before an off */
    xrt__chk_notes_era = era;
    if (xrt__chk_nnotes == XRT_CHECK_ANNOTATIONS)
        return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "more than XRT_CHECK_ANNOTATIONS (%d) for one launch",
                         XRT_CHECK_ANNOTATIONS);
    xrt__chk_notes[xrt__chk_nnotes].p = ptr;
    xrt__chk_notes[xrt__chk_nnotes].n = size;
    xrt__chk_notes[xrt__chk_nnotes++].access = (int)access;
    return XRT_SUCCESS;
}

/* XRT_CHECK: "streams" turns the checker on, read by xrt_init under the
   registry's lock, before the backends are published: 1 when it did, -1 for
   a bad value (xrt_init warns and sets up after its unlock: no log under a
   lock), else 0. */
static int xrt__chk_from_env(void)
{
    const char *v = getenv("XRT_CHECK");
    if (!v || !*v || !strcmp(v, "none")) return 0;
    if (strcmp(v, "streams")) return -1;
    xrt__chk_on = 1;
    return 1;
}

static void xrt__chk_env_done(int found)
{
    if (found > 0) xrt__chk_setup();
    if (found < 0)
        xrt__log_warn_once("XRT_CHECK=%.64s: not a check (valid: streams, none); ignored", getenv("XRT_CHECK"));
}

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
