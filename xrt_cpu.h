/* xrt_cpu.h - the CPU backend: one device, asynchronous streams on worker threads.

   Enabled by XRT_ENABLE_CPU (the default when nothing is enabled). Included by
   xrt.h in the XRT_IMPL translation unit; never include it yourself.

   It is held to GPU semantics so that code developed on it shows the ordering
   bugs it would show on a GPU: every stream is a FIFO run by its own worker
   thread; the enqueuing thread returns at once; an async copy reads its source
   when the stream reaches it, not when it is enqueued; events complete in
   stream order and carry CLOCK_MONOTONIC timestamps; cross-stream waits work.

   Threading: each stream has a bounded ring (XRT__CPU_RING entries) filled by
   any thread under a short spinlock and drained by its worker. The enqueue,
   the query of a finished stream and the record of an event on an idle stream
   make no system call. A worker spins briefly when idle, then parks on a futex;
   a waiter (synchronize) does the same. Linux only for now (futex).
*/
#if defined(XRT__IMPL_INCLUDED) && !defined(XRT__CPU_IMPL_INCLUDED)
#define XRT__CPU_IMPL_INCLUDED

#ifndef __linux__
#error "the xrt CPU backend needs Linux (futex)"
#endif

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XRT__CPU_RING 1024u /* ops in flight per stream before enqueue waits */
#define XRT__CPU_SPIN 4000u /* polls before a waiter or an idle worker parks */

/* >> cpu: waiting */
static void xrt__cpu_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static void xrt__cpu_futex(uint32_t *word, int op, uint32_t val)
{
    syscall(SYS_futex, word, op, val, NULL, NULL, 0);
}

/* A monotonically increasing 64-bit counter that threads can sleep on: the
   futex word is the low half of the value, so publishing is one store; waiters
   register in `waiters` so the writer makes no syscall when nobody sleeps. */
typedef struct xrt__cpu_counter {
    uint64_t value;
    uint32_t waiters;
} xrt__cpu_counter;

static uint32_t *xrt__cpu_low_half(uint64_t *v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return (uint32_t *)v + 1;
#else
    return (uint32_t *)v;
#endif
}

static void xrt__cpu_counter_publish(xrt__cpu_counter *c, uint64_t v)
{
    __atomic_store_n(&c->value, v, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&c->waiters, __ATOMIC_SEQ_CST))
        xrt__cpu_futex(xrt__cpu_low_half(&c->value), FUTEX_WAKE_PRIVATE, INT_MAX);
}

static int xrt__cpu_reached(xrt__cpu_counter *c, uint64_t target)
{
    return __atomic_load_n(&c->value, __ATOMIC_ACQUIRE) >= target;
}

static void xrt__cpu_wait(xrt__cpu_counter *c, uint64_t target, unsigned spin)
{
    unsigned i;
    for (i = 0; i < spin; i++) {
        if (xrt__cpu_reached(c, target)) return;
        xrt__cpu_pause();
    }
    for (;;) {
        uint64_t v;
        __atomic_add_fetch(&c->waiters, 1, __ATOMIC_SEQ_CST);
        if ((v = __atomic_load_n(&c->value, __ATOMIC_SEQ_CST)) < target)
            xrt__cpu_futex(xrt__cpu_low_half(&c->value), FUTEX_WAIT_PRIVATE, (uint32_t)v);
        __atomic_sub_fetch(&c->waiters, 1, __ATOMIC_RELEASE);
        if (xrt__cpu_reached(c, target)) return;
    }
}

static uint64_t xrt__cpu_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* >> cpu: objects */
struct xrt__cpu_op;
typedef void (*xrt__cpu_run_fn)(struct xrt__cpu_op *op);
typedef struct xrt__cpu_op {
    xrt__cpu_run_fn run;
    void *a;
    const void *b;
    size_t n;
    uint64_t x;
} xrt__cpu_op;

/* One cache line: the worker polls `seq`, which says the op in the same line
   is op number seq - 1, so signal and payload travel together. */
typedef struct xrt__cpu_slot {
    uint64_t seq;
    xrt__cpu_op op;
} __attribute__((aligned(64))) xrt__cpu_slot;

/* Producers, the worker and waiters each write their own cache line. */
typedef struct xrt__cpu_stream {
    int lock;      /* producers' spinlock */
    int refs;      /* the worker and the handle: the last to let go frees the stream */
    uint64_t tail; /* ops enqueued (written under lock) */
    uint64_t room; /* ops may be enqueued without looking at head while tail < room */
    pthread_t thread;
    struct xrt__cpu_stream *prev, *next;
    uint32_t parked __attribute__((aligned(64))); /* the idle worker sleeps on it */
    xrt__cpu_counter head __attribute__((aligned(64))); /* ops completed */
    xrt__cpu_slot ring[XRT__CPU_RING];
} xrt__cpu_stream;

/* Zero-initialised without an initialiser list, which C++ would reject under
   -Wmissing-field-initializers; hence the lock stands apart. */
static pthread_mutex_t xrt__cpu_list_lock = PTHREAD_MUTEX_INITIALIZER; /* guards the stream list */
static struct {
    xrt__cpu_stream list; /* sentinel of a circular list of all streams */
    xrt__cpu_stream *dflt;
    xrt__cpu_counter exited; /* worker threads that have finished */
    uint64_t started;
    pthread_t *zombies; /* finished workers not joined yet */
    size_t nzombies, cap;
} xrt__cpu;

/* Workers are joined, not detached, so that xrt_shutdown returns with every
   thread gone. A finished worker leaves its id here; the next stream creation
   or the shutdown joins it. Called with the list lock held. */
static void xrt__cpu_bury_locked(pthread_t self)
{
    if (xrt__cpu.nzombies == xrt__cpu.cap) {
        size_t cap = xrt__cpu.cap ? 2 * xrt__cpu.cap : 16;
        pthread_t *z = (pthread_t *)realloc(xrt__cpu.zombies, cap * sizeof *z);
        if (!z) {
            pthread_detach(self); /* no memory to remember it: let it go */
            return;
        }
        xrt__cpu.zombies = z;
        xrt__cpu.cap = cap;
    }
    xrt__cpu.zombies[xrt__cpu.nzombies++] = self;
}

static void xrt__cpu_reap(void)
{
    pthread_t *z;
    size_t n, i;
    pthread_mutex_lock(&xrt__cpu_list_lock);
    z = xrt__cpu.zombies;
    n = xrt__cpu.nzombies;
    xrt__cpu.zombies = NULL;
    xrt__cpu.nzombies = xrt__cpu.cap = 0;
    pthread_mutex_unlock(&xrt__cpu_list_lock);
    for (i = 0; i < n; i++) pthread_join(z[i], NULL);
    free(z);
}

/* >> cpu: the worker */
/* The destroying thread still touches the stream after it publishes the exit
   op (unlock, wake), while the worker may already be done with it. */
static void xrt__cpu_stream_unref(xrt__cpu_stream *s)
{
    if (__atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) == 0) free(s);
}

static void xrt__cpu_stream_unlink(xrt__cpu_stream *s)
{
    pthread_mutex_lock(&xrt__cpu_list_lock);
    s->prev->next = s->next;
    s->next->prev = s->prev;
    pthread_mutex_unlock(&xrt__cpu_list_lock);
}

/* Waits until op number h is published: spins, then parks. */
static void xrt__cpu_worker_idle(xrt__cpu_stream *s, xrt__cpu_slot *slot, uint64_t h)
{
    unsigned i;
    for (i = 0; i < XRT__CPU_SPIN; i++) {
        if (__atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE) == h + 1) return;
        xrt__cpu_pause();
    }
    for (;;) {
        __atomic_store_n(&s->parked, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&slot->seq, __ATOMIC_SEQ_CST) != h + 1)
            xrt__cpu_futex(&s->parked, FUTEX_WAIT_PRIVATE, 1);
        __atomic_store_n(&s->parked, 0, __ATOMIC_RELAXED);
        if (__atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE) == h + 1) return;
    }
}

static void *xrt__cpu_worker(void *arg)
{
    xrt__cpu_stream *s = (xrt__cpu_stream *)arg;
    uint64_t h = 0;
    for (;;) {
        xrt__cpu_slot *slot = &s->ring[h % XRT__CPU_RING];
        if (__atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE) != h + 1) xrt__cpu_worker_idle(s, slot, h);
        if (slot->op.run == NULL) break; /* the exit op */
        slot->op.run(&slot->op);
        xrt__cpu_counter_publish(&s->head, ++h);
    }
    xrt__cpu_counter_publish(&s->head, ++h);
    xrt__cpu_stream_unlink(s);
    xrt__cpu_stream_unref(s);
    pthread_mutex_lock(&xrt__cpu_list_lock);
    xrt__cpu_bury_locked(pthread_self());
    xrt__cpu_counter_publish(&xrt__cpu.exited, xrt__cpu.exited.value + 1);
    pthread_mutex_unlock(&xrt__cpu_list_lock);
    return NULL;
}

/* >> cpu: enqueue */
static void xrt__cpu_lock(int *l)
{
    unsigned i = 0;
    while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(l, __ATOMIC_RELAXED)) {
            if (++i % 64 == 0) sched_yield(); /* the holder may be descheduled */
            else xrt__cpu_pause();
        }
}

static void xrt__cpu_unlock(int *l) { __atomic_store_n(l, 0, __ATOMIC_RELEASE); }

static xrt__cpu_stream *xrt__cpu_stream_of(void *obj) { return obj ? (xrt__cpu_stream *)obj : xrt__cpu.dflt; }

/* Called with the lock held; returns the free slot for op number s->tail,
   waiting (lock released) while the ring is full. Reads head only when the
   room it saw last time is used up, so the common case touches no line that
   the worker writes. */
static xrt__cpu_op *xrt__cpu_reserve(xrt__cpu_stream *s)
{
    while (s->tail >= s->room) {
        s->room = __atomic_load_n(&s->head.value, __ATOMIC_ACQUIRE) + XRT__CPU_RING;
        if (s->tail < s->room) break;
        xrt__cpu_unlock(&s->lock);
        xrt__cpu_wait(&s->head, s->tail - XRT__CPU_RING + 1, XRT__CPU_SPIN);
        xrt__cpu_lock(&s->lock);
    }
    return &s->ring[s->tail % XRT__CPU_RING].op;
}

/* Publishes the op reserved last, unlocks, and wakes a parked worker. */
static void xrt__cpu_publish(xrt__cpu_stream *s)
{
    uint64_t t = s->tail;
    __atomic_store_n(&s->ring[t % XRT__CPU_RING].seq, t + 1, __ATOMIC_SEQ_CST);
    __atomic_store_n(&s->tail, t + 1, __ATOMIC_RELEASE);
    xrt__cpu_unlock(&s->lock);
    /* Clearing the word, not only waking, closes the window between the
       worker's last look at the slot and its FUTEX_WAIT: it then returns at once. */
    if (__atomic_load_n(&s->parked, __ATOMIC_SEQ_CST) && __atomic_exchange_n(&s->parked, 0, __ATOMIC_SEQ_CST))
        xrt__cpu_futex(&s->parked, FUTEX_WAKE_PRIVATE, 1);
}

static xrt_status xrt__cpu_enqueue(void *stream, xrt__cpu_run_fn run, void *a, const void *b, size_t n, uint64_t x)
{
    xrt__cpu_stream *s = xrt__cpu_stream_of(stream);
    xrt__cpu_op *op;
    xrt__cpu_lock(&s->lock);
    op = xrt__cpu_reserve(s);
    op->run = run;
    op->a = a;
    op->b = b;
    op->n = n;
    op->x = x;
    xrt__cpu_publish(s);
    return XRT_SUCCESS;
}

static void xrt__cpu_run_memcpy(xrt__cpu_op *op) { memcpy(op->a, op->b, op->n); }
static void xrt__cpu_run_memset(xrt__cpu_op *op) { memset(op->a, (int)op->x, op->n); }
static void xrt__cpu_run_free(xrt__cpu_op *op) { free(op->a); }
static void xrt__cpu_run_host_fn(xrt__cpu_op *op)
{
    xrt_host_fn fn;
    memcpy(&fn, &op->b, sizeof fn);
    fn(op->a);
}

/* >> cpu: streams */
static xrt_status xrt__cpu_stream_new(xrt__cpu_stream **out)
{
    xrt__cpu_stream *s = (xrt__cpu_stream *)aligned_alloc(64, sizeof *s);
    int rc;
    if (!s) return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "cpu: xrt_stream_create", "no memory for a stream");
    xrt__cpu_reap(); /* streams destroyed earlier: join their workers */
    memset(s, 0, sizeof *s);
    s->refs = 2;
    pthread_mutex_lock(&xrt__cpu_list_lock);
    rc = pthread_create(&s->thread, NULL, xrt__cpu_worker, s);
    if (rc == 0) {
        xrt__cpu.started++;
        s->next = &xrt__cpu.list;
        s->prev = xrt__cpu.list.prev;
        s->prev->next = s;
        xrt__cpu.list.prev = s;
    }
    pthread_mutex_unlock(&xrt__cpu_list_lock);
    if (rc != 0) {
        free(s);
        return xrt_native_error(XRT_ERROR_SYSTEM, "cpu", "pthread_create", rc, "errno", strerror(rc));
    }
    *out = s;
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_stream_create(void **stream)
{
    return xrt__cpu_stream_new((xrt__cpu_stream **)stream);
}

/* Returns at once: the worker drains what is queued, then exits. */
static xrt_status xrt__cpu_stream_destroy(void *stream)
{
    xrt__cpu_stream *s = (xrt__cpu_stream *)stream;
    xrt__cpu_lock(&s->lock);
    xrt__cpu_reserve(s)->run = NULL;
    xrt__cpu_publish(s);
    xrt__cpu_stream_unref(s);
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_stream_synchronize(void *stream)
{
    xrt__cpu_stream *s = xrt__cpu_stream_of(stream);
    xrt__cpu_wait(&s->head, __atomic_load_n(&s->tail, __ATOMIC_ACQUIRE), XRT__CPU_SPIN);
    return XRT_SUCCESS;
}

static int xrt__cpu_busy(xrt__cpu_stream *s)
{
    return !xrt__cpu_reached(&s->head, __atomic_load_n(&s->tail, __ATOMIC_ACQUIRE));
}

static xrt_status xrt__cpu_stream_query(void *stream)
{
    return xrt__cpu_busy(xrt__cpu_stream_of(stream)) ? XRT_ERROR_NOT_READY : XRT_SUCCESS;
}

/* Waits for what every stream had queued at the call. The list lock is held
   only to take a reference on each busy stream, not while waiting, so other
   threads keep creating and destroying streams meanwhile. With nothing queued
   (the usual xrt_free) it allocates nothing. */
typedef struct xrt__cpu_pending { xrt__cpu_stream *s; uint64_t pos; } xrt__cpu_pending;

static xrt_status xrt__cpu_device_synchronize(void)
{
    xrt__cpu_pending *v = NULL;
    xrt__cpu_stream *s;
    size_t n = 0, busy = 0, i;
    pthread_mutex_lock(&xrt__cpu_list_lock);
    for (s = xrt__cpu.list.next; s != &xrt__cpu.list; s = s->next) busy += xrt__cpu_busy(s);
    if (busy) /* room for every stream: more may have become busy by the second pass */
        for (s = xrt__cpu.list.next; s != &xrt__cpu.list; s = s->next) busy++;
    if (busy && (v = (xrt__cpu_pending *)malloc(busy * sizeof *v)) != NULL)
        for (s = xrt__cpu.list.next; s != &xrt__cpu.list && n < busy; s = s->next) {
            if (!xrt__cpu_busy(s)) continue;
            __atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
            v[n].s = s;
            v[n++].pos = __atomic_load_n(&s->tail, __ATOMIC_ACQUIRE);
        }
    pthread_mutex_unlock(&xrt__cpu_list_lock);
    if (busy && !v) return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "cpu: xrt_device_synchronize", "no memory");
    for (i = 0; i < n; i++) {
        xrt__cpu_wait(&v[i].s->head, v[i].pos, XRT__CPU_SPIN);
        xrt__cpu_stream_unref(v[i].s);
    }
    free(v);
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_launch_host_func(void *stream, xrt_host_fn fn, void *user)
{
    const void *f;
    memcpy(&f, &fn, sizeof f);
    return xrt__cpu_enqueue(stream, xrt__cpu_run_host_fn, user, f, 0, 0);
}

/* >> cpu: events */
/* A record is a point in one stream, as on a GPU: it has completed once that
   stream's head reaches `pos`. The event holds a reference to the stream of
   its latest record, so it stays usable after the stream is destroyed, and a
   wait captures (stream, pos) so a later record cannot release it early. */
typedef struct xrt__cpu_event {
    unsigned flags;
    int lock;                /* guards stream and pos */
    int refs;                /* the handle + record ops in flight */
    xrt__cpu_stream *stream; /* of the latest record; NULL: never recorded */
    uint64_t pos;
    uint64_t time_ns;        /* stamped when the latest record completed */
} xrt__cpu_event;

static void xrt__cpu_event_unref(xrt__cpu_event *e)
{
    if (__atomic_sub_fetch(&e->refs, 1, __ATOMIC_ACQ_REL)) return;
    if (e->stream) xrt__cpu_stream_unref(e->stream);
    free(e);
}

/* The latest record; with `ref`, a reference on its stream for the caller. */
static xrt__cpu_stream *xrt__cpu_event_latest(xrt__cpu_event *e, uint64_t *pos, int ref)
{
    xrt__cpu_stream *s;
    xrt__cpu_lock(&e->lock);
    s = e->stream;
    *pos = e->pos;
    if (s && ref) __atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
    xrt__cpu_unlock(&e->lock);
    return s;
}

/* Makes (s, pos) the latest record; the caller holds s->lock. */
static void xrt__cpu_event_set(xrt__cpu_event *e, xrt__cpu_stream *s, uint64_t pos)
{
    xrt__cpu_stream *old;
    xrt__cpu_lock(&e->lock);
    old = e->stream;
    if (old != s) __atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
    e->stream = s;
    e->pos = pos;
    xrt__cpu_unlock(&e->lock);
    if (old && old != s) xrt__cpu_stream_unref(old);
}

static void xrt__cpu_event_stamp(xrt__cpu_event *e, xrt__cpu_stream *s, uint64_t pos)
{
    int latest;
    if (e->flags & XRT_EVENT_DISABLE_TIMING) return;
    xrt__cpu_lock(&e->lock);
    latest = e->stream == s && e->pos == pos;
    xrt__cpu_unlock(&e->lock);
    if (latest) __atomic_store_n(&e->time_ns, xrt__cpu_now_ns(), __ATOMIC_RELAXED);
}

static void xrt__cpu_run_record(xrt__cpu_op *op)
{
    xrt__cpu_event_stamp((xrt__cpu_event *)op->a, (xrt__cpu_stream *)(uintptr_t)op->b, op->x);
    xrt__cpu_event_unref((xrt__cpu_event *)op->a);
}

static void xrt__cpu_run_wait(xrt__cpu_op *op)
{
    xrt__cpu_wait(&((xrt__cpu_stream *)op->a)->head, op->x, XRT__CPU_SPIN);
    xrt__cpu_stream_unref((xrt__cpu_stream *)op->a);
}

static xrt_status xrt__cpu_event_create(void **event, unsigned flags)
{
    xrt__cpu_event *e = (xrt__cpu_event *)calloc(1, sizeof *e);
    if (!e) return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "cpu: xrt_event_create", "no memory for an event");
    e->flags = flags;
    e->refs = 1;
    *event = e;
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_event_destroy(void *event)
{
    xrt__cpu_event_unref((xrt__cpu_event *)event);
    return XRT_SUCCESS;
}

/* On an idle stream the record completes here, without waking the worker. */
static xrt_status xrt__cpu_event_record(void *event, void *stream)
{
    xrt__cpu_event *e = (xrt__cpu_event *)event;
    xrt__cpu_stream *s = xrt__cpu_stream_of(stream);
    xrt__cpu_op *op;
    xrt__cpu_lock(&s->lock);
    if (xrt__cpu_reached(&s->head, s->tail)) {
        xrt__cpu_event_set(e, s, s->tail);
        xrt__cpu_event_stamp(e, s, s->tail);
        xrt__cpu_unlock(&s->lock);
        return XRT_SUCCESS;
    }
    op = xrt__cpu_reserve(s);
    xrt__cpu_event_set(e, s, s->tail + 1); /* done when this op has run */
    __atomic_add_fetch(&e->refs, 1, __ATOMIC_RELAXED);
    op->run = xrt__cpu_run_record;
    op->a = e;
    op->b = s;
    op->x = s->tail + 1;
    xrt__cpu_publish(s);
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_event_query(void *event)
{
    uint64_t pos;
    xrt__cpu_stream *s = xrt__cpu_event_latest((xrt__cpu_event *)event, &pos, 0);
    return !s || xrt__cpu_reached(&s->head, pos) ? XRT_SUCCESS : XRT_ERROR_NOT_READY;
}

static xrt_status xrt__cpu_event_synchronize(void *event)
{
    xrt__cpu_event *e = (xrt__cpu_event *)event;
    uint64_t pos;
    xrt__cpu_stream *s = xrt__cpu_event_latest(e, &pos, 1);
    if (!s) return XRT_SUCCESS;
    xrt__cpu_wait(&s->head, pos, (e->flags & XRT_EVENT_BLOCKING_SYNC) ? 0 : XRT__CPU_SPIN);
    xrt__cpu_stream_unref(s);
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_stream_wait_event(void *stream, void *event)
{
    uint64_t pos;
    xrt__cpu_stream *s = xrt__cpu_event_latest((xrt__cpu_event *)event, &pos, 1);
    if (!s) return XRT_SUCCESS; /* never recorded: nothing to wait for */
    if (xrt__cpu_reached(&s->head, pos)) {
        xrt__cpu_stream_unref(s);
        return XRT_SUCCESS;
    }
    return xrt__cpu_enqueue(stream, xrt__cpu_run_wait, s, NULL, 0, pos);
}

static xrt_status xrt__cpu_event_elapsed_time(float *ms, void *start, void *end)
{
    xrt__cpu_event *ev[2] = {(xrt__cpu_event *)start, (xrt__cpu_event *)end};
    uint64_t pos;
    int i;
    for (i = 0; i < 2; i++) {
        if (ev[i]->flags & XRT_EVENT_DISABLE_TIMING)
            return xrt_error(XRT_ERROR_INVALID_HANDLE, "cpu: xrt_event_elapsed_time",
                             "%s event was created with XRT_EVENT_DISABLE_TIMING", i ? "end" : "start");
        if (!xrt__cpu_event_latest(ev[i], &pos, 0))
            return xrt_error(XRT_ERROR_INVALID_HANDLE, "cpu: xrt_event_elapsed_time", "%s event was never recorded",
                             i ? "end" : "start");
        if (xrt__cpu_event_query(ev[i]) != XRT_SUCCESS) return XRT_ERROR_NOT_READY;
    }
    *ms = (float)((double)((int64_t)(__atomic_load_n(&ev[1]->time_ns, __ATOMIC_RELAXED) -
                                      __atomic_load_n(&ev[0]->time_ns, __ATOMIC_RELAXED))) / 1e6);
    return XRT_SUCCESS;
}

/* >> cpu: memory */
static xrt_status xrt__cpu_alloc(void **ptr, size_t size, const char *fn)
{
    size_t rounded = (size + XRT_ALIGNMENT - 1) & ~(size_t)(XRT_ALIGNMENT - 1);
    *ptr = rounded >= size ? aligned_alloc(XRT_ALIGNMENT, rounded) : NULL;
    if (!*ptr) return xrt_error(XRT_ERROR_OUT_OF_MEMORY, fn, "cannot allocate %zu bytes", size);
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_malloc(void **ptr, size_t size) { return xrt__cpu_alloc(ptr, size, "cpu: xrt_malloc"); }
static xrt_status xrt__cpu_malloc_host(void **ptr, size_t size)
{
    return xrt__cpu_alloc(ptr, size, "cpu: xrt_malloc_host");
}
/* Like cudaFree and cudaFreeHost, waits for all queued work first: work
   enqueued before the free may still use the memory. */
static xrt_status xrt__cpu_free(void *ptr)
{
    xrt__cpu_device_synchronize();
    free(ptr);
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_malloc_async(void **ptr, size_t size, void *stream)
{
    (void)stream; /* memory valid from now on is valid from the stream's point on */
    return xrt__cpu_alloc(ptr, size, "cpu: xrt_malloc_async");
}

static xrt_status xrt__cpu_free_async(void *ptr, void *stream)
{
    return xrt__cpu_enqueue(stream, xrt__cpu_run_free, ptr, NULL, 0, 0);
}

/* Synchronous operations are ordered on the default stream: done in place when
   it is idle, else queued behind its work and waited for. */
static xrt_status xrt__cpu_sync_op(xrt__cpu_run_fn run, void *a, const void *b, size_t n, uint64_t x)
{
    xrt__cpu_stream *s = xrt__cpu.dflt;
    if (xrt__cpu_stream_query(s) == XRT_SUCCESS) {
        xrt__cpu_op op = {run, a, b, n, x};
        run(&op);
        return XRT_SUCCESS;
    }
    xrt__cpu_enqueue(s, run, a, b, n, x);
    return xrt__cpu_stream_synchronize(s);
}

static xrt_status xrt__cpu_memcpy(void *dst, const void *src, size_t size, xrt_memcpy_kind kind)
{
    (void)kind;
    return xrt__cpu_sync_op(xrt__cpu_run_memcpy, dst, src, size, 0);
}

static xrt_status xrt__cpu_memcpy_async(void *dst, const void *src, size_t size, xrt_memcpy_kind kind, void *stream)
{
    (void)kind;
    return xrt__cpu_enqueue(stream, xrt__cpu_run_memcpy, dst, src, size, 0);
}

static xrt_status xrt__cpu_memset(void *dst, int value, size_t size)
{
    return xrt__cpu_sync_op(xrt__cpu_run_memset, dst, NULL, size, (uint64_t)(unsigned char)value);
}

static xrt_status xrt__cpu_memset_async(void *dst, int value, size_t size, void *stream)
{
    return xrt__cpu_enqueue(stream, xrt__cpu_run_memset, dst, NULL, size, (uint64_t)(unsigned char)value);
}

static size_t xrt__cpu_meminfo(const char *key)
{
    char line[256];
    size_t kb = 0, klen = strlen(key);
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
            kb = strtoull(line + klen + 1, NULL, 10);
            break;
        }
    fclose(f);
    return kb * 1024;
}

static xrt_status xrt__cpu_mem_get_info(size_t *free_bytes, size_t *total_bytes)
{
    *total_bytes = (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
    *free_bytes = xrt__cpu_meminfo("MemAvailable");
    if (!*free_bytes) *free_bytes = (size_t)sysconf(_SC_AVPHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
    return XRT_SUCCESS;
}

/* The registry knows every pointer this backend allocated; others are unknown. */
static xrt_status xrt__cpu_pointer_get_attributes(xrt_pointer_attributes *attr, const void *ptr)
{
    (void)attr;
    (void)ptr;
    return XRT_SUCCESS;
}

/* >> cpu: device */
static xrt_status xrt__cpu_get_capabilities(unsigned *caps)
{
    *caps = XRT_CAP_PINNED_HOST | XRT_CAP_MALLOC_ASYNC | XRT_CAP_HOST_FUNC | XRT_CAP_EVENT_TIMING;
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_get_device_count(int *count)
{
    *count = 1;
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_set_device(int device)
{
    if (device != 0)
        return xrt_error(XRT_ERROR_INVALID_DEVICE, "cpu: xrt_set_device", "device %d out of range (1 device)", device);
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_get_device(int *device)
{
    *device = 0;
    return XRT_SUCCESS;
}

static void xrt__cpu_model_name(char *out, size_t n)
{
    char line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");
    snprintf(out, n, "CPU");
    if (!f) return;
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            snprintf(out, n, "%s", colon + 2);
            out[strcspn(out, "\n")] = 0;
            break;
        }
    }
    fclose(f);
}

static void xrt__cpu_simd(char *arch, size_t n, int *lanes)
{
#if defined(__x86_64__)
    const char *isa = "sse2";
    *lanes = 4;
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) { isa = "avx512f"; *lanes = 16; }
    else if (__builtin_cpu_supports("avx2")) { isa = "avx2"; *lanes = 8; }
    snprintf(arch, n, "x86_64-%s", isa);
#elif defined(__aarch64__)
    *lanes = 4;
    snprintf(arch, n, "aarch64-neon");
#else
    *lanes = 1;
    snprintf(arch, n, "cpu");
#endif
}

static xrt_status xrt__cpu_get_device_properties(xrt_device_prop *prop, int device)
{
    if (device != 0)
        return xrt_error(XRT_ERROR_INVALID_DEVICE, "cpu: xrt_get_device_properties",
                         "device %d out of range (1 device)", device);
    memset(prop, 0, sizeof *prop);
    xrt__cpu_model_name(prop->name, sizeof prop->name);
    xrt__cpu_simd(prop->arch, sizeof prop->arch, &prop->warp_size);
    prop->total_memory = (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
    prop->multiprocessor_count = (int)sysconf(_SC_NPROCESSORS_ONLN);
    return XRT_SUCCESS;
}

/* >> cpu: lifecycle */
static xrt_status xrt__cpu_init(char *reason, size_t n)
{
    xrt_status st;
    xrt__cpu.list.next = xrt__cpu.list.prev = &xrt__cpu.list;
    st = xrt__cpu_stream_new(&xrt__cpu.dflt);
    if (st != XRT_SUCCESS) snprintf(reason, n, "%s", xrt_get_last_error_string());
    return st;
}

/* Stops every worker once it has drained its stream (handles are gone already). */
static void xrt__cpu_shutdown(void)
{
    uint64_t started;
    xrt__cpu_stream_destroy(xrt__cpu.dflt);
    xrt__cpu.dflt = NULL;
    pthread_mutex_lock(&xrt__cpu_list_lock);
    started = xrt__cpu.started;
    pthread_mutex_unlock(&xrt__cpu_list_lock);
    xrt__cpu_wait(&xrt__cpu.exited, started, XRT__CPU_SPIN);
    xrt__cpu_reap();
}

const xrt_backend xrt__cpu_backend = {
    XRT_BACKEND_ABI_VERSION, sizeof(xrt_backend), "cpu", xrt__cpu_init, xrt__cpu_shutdown,
    xrt__cpu_get_capabilities, xrt__cpu_get_device_count, xrt__cpu_set_device, xrt__cpu_get_device,
    xrt__cpu_device_synchronize, xrt__cpu_get_device_properties, xrt__cpu_malloc, xrt__cpu_free,
    xrt__cpu_malloc_host, xrt__cpu_free, xrt__cpu_malloc_async, xrt__cpu_free_async, xrt__cpu_mem_get_info,
    xrt__cpu_memset, xrt__cpu_memset_async, xrt__cpu_memcpy, xrt__cpu_memcpy_async,
    xrt__cpu_pointer_get_attributes, xrt__cpu_stream_create, xrt__cpu_stream_destroy,
    xrt__cpu_stream_synchronize, xrt__cpu_stream_query, xrt__cpu_stream_wait_event, xrt__cpu_launch_host_func,
    xrt__cpu_event_create, xrt__cpu_event_destroy, xrt__cpu_event_record, xrt__cpu_event_query,
    xrt__cpu_event_synchronize, xrt__cpu_event_elapsed_time,
    NULL, NULL, NULL /* native handles: the CPU backend has none (XRT_ERROR_UNSUPPORTED) */
};

#ifdef __cplusplus
}
#endif

#endif /* implementation */
