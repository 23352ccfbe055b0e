/* SPDX-License-Identifier: MIT */
/* xrt_cpu.h - the CPU backend: one device, asynchronous streams on worker threads.

   Always built in, unless XRT_DISABLE_CPU is defined. Included by
   xrt.h in the XRT_IMPL translation unit; never include it yourself.

   It is held to GPU semantics so that code developed on it shows the ordering
   bugs it would show on a GPU: every stream is a FIFO run by its own worker
   thread; the enqueuing thread returns at once; an async copy reads its source
   when the stream reaches it, not when it is enqueued; events complete in
   stream order and carry CLOCK_MONOTONIC timestamps; cross-stream waits work.

   Device memory is private memory until its first IPC export, which moves
   it into a sealed memory file (memfd) of its own, so that another process
   can open it from an IPC handle (xrt_ipc_open_mem_handle); pinned host
   memory is the C library's (">> cpu: memory").

   Copies follow CUDA's rule for pageable memory: a copy whose host side is
   not from xrt_malloc_host waits for the stream's earlier work and is done
   before the call returns (from a host function, where waiting could hang,
   it is done in place when the stream is idle and queued otherwise); copies
   between pinned and device memory stay asynchronous.

   Threading: each stream has a ring of XRT__CPU_RING entries (it doubles
   when full, if the stream's own host function enqueues: that enqueue never
   waits for itself) filled by any thread under a short spinlock and drained
   by its worker. An op enqueued on a stream that a thread has just seen
   empty goes instead to the stream's express slot, the cache line where
   completions are published and synchronizing threads poll, so an enqueue-
   and-synchronize round trip moves one line back and forth, as two threads
   handing a flag to each other do. The enqueue, the query of a finished
   stream and the record of an event on an idle stream make no system call.
   Every wait (an idle worker, synchronize, a full ring) spins for a budget
   it learns, then sleeps on a futex: the budget follows what recent spins
   needed and halves, down to a few microseconds, when they fail, so a
   thread does not keep spinning against one that is not running. A thread
   that synchronizes a stream (or makes a pageable copy) runs the queued
   copies, memsets, event records, launches and host functions itself, in
   order, instead of sleeping: at once where the worker sleeps, else after
   the worker's current op, which the worker hands over; a producer waiting
   for room in a full ring does so only while the worker sleeps. A host
   function then runs on that thread, as CUDA runs one on a thread of its
   own choosing, under the same rules; cross-stream waits always run on the
   worker. After a burst of work a worker waits awake, up to twice the
   burst's length, before it sleeps. A copy or memset of
   XRT_CPU_SPLIT_BYTES (default 16 MiB; 0: never) or more is split across a
   shared pool of helper threads, one per usable core but the caller's
   (XRT_CPU_THREADS caps the total; 1 turns splitting off); it still
   completes in stream order. Linux only for now (futex).

   Kernels (">> cpu: kernels"): a module is a shared object, given or built
   from C source with XRT_CC through the kernel cache (both in xrt_cache.h);
   a launch is a stream operation whose blocks run over the same pool of
   helpers.
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
#include <fcntl.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Operations take the backend's table (`self`) by ABI and rarely need it. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"

/* Devices XRT_CPU_DEVICES may ask for: a bound a machine's NUMA nodes stay
   under, and a device's peers fit in one 64-bit mask. */
#define XRT__CPU_DEVICES_MAX 64
#define XRT__CPU_RING 1024u    /* ops in flight per stream before enqueue waits; a power of two */
#define XRT__CPU_SPIN_MAX 4096u /* most pauses a waiter spins before it sleeps */
#define XRT__CPU_SPIN_MIN 256u  /* least (~6 us at 24 ns a pause): a hand-off to a thread that runs */
#define XRT__CPU_YIELDS 16u     /* most yields to a thread on the waiter's own core before it sleeps */

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

/* A monotonically increasing 64-bit counter that threads can sleep on until
   it reaches a target. Each sleeper queues a node with its target and sleeps
   on the node's own word; `next` is the smallest queued target, so the
   writer makes no system call while nobody sleeps or while no sleeper's
   target is reached: a thread synchronizing behind a long queue is woken
   once, not after every operation. */
typedef struct xrt__cpu_sleeper {
    uint64_t target;
    uint32_t woken; /* the futex word: 1 once the writer has taken the node off */
    struct xrt__cpu_sleeper *next;
} xrt__cpu_sleeper;

typedef struct xrt__cpu_counter {
    uint64_t value;
    uint64_t next;             /* smallest target of `sleepers`; UINT64_MAX: none */
    int lock;                  /* guards `sleepers` and `next` */
    unsigned spin;             /* waiters' spin budget (xrt__cpu_spin) */
    xrt__cpu_sleeper *sleepers;
} xrt__cpu_counter;

static void xrt__cpu_lock(int *l) { xrt__spin_lock(l); } /* the core's (xrt.h) */
static void xrt__cpu_unlock(int *l) { xrt__spin_unlock(l); }

static void xrt__cpu_counter_init(xrt__cpu_counter *c, uint64_t v)
{
    c->value = v;
    c->next = UINT64_MAX;
    c->lock = 0;
    c->spin = XRT__CPU_SPIN_MAX / 4;
    c->sleepers = NULL;
}

static uint64_t xrt__cpu_next_target_locked(const xrt__cpu_counter *c)
{
    const xrt__cpu_sleeper *n;
    uint64_t t = UINT64_MAX;
    for (n = c->sleepers; n; n = n->next)
        if (n->target < t) t = n->target;
    return t;
}

/* Wakes the sleepers whose target v reaches. */
static void xrt__cpu_counter_wake(xrt__cpu_counter *c, uint64_t v)
{
    xrt__cpu_sleeper **pp, *n, *woken = NULL;
    xrt__cpu_lock(&c->lock);
    for (pp = &c->sleepers; (n = *pp) != NULL;) {
        if (n->target <= v) {
            *pp = n->next;
            n->next = woken;
            woken = n;
        } else {
            pp = &n->next;
        }
    }
    __atomic_store_n(&c->next, xrt__cpu_next_target_locked(c), __ATOMIC_SEQ_CST);
    /* Under the lock: a woken sleeper takes it before it returns, so every
       node lives until its wake is done. */
    while ((n = woken) != NULL) {
        woken = n->next;
        __atomic_store_n(&n->woken, 1, __ATOMIC_SEQ_CST);
        xrt__cpu_futex(&n->woken, FUTEX_WAKE_PRIVATE, 1);
    }
    xrt__cpu_unlock(&c->lock);
}

static void xrt__cpu_counter_publish(xrt__cpu_counter *c, uint64_t v)
{
    __atomic_store_n(&c->value, v, __ATOMIC_SEQ_CST);
    if (XRT__UNLIKELY(v >= __atomic_load_n(&c->next, __ATOMIC_SEQ_CST))) xrt__cpu_counter_wake(c, v);
}

/* For counters that several threads advance (the pool's finished parts). */
static void xrt__cpu_counter_add(xrt__cpu_counter *c, uint64_t n)
{
    uint64_t v = __atomic_add_fetch(&c->value, n, __ATOMIC_SEQ_CST);
    if (XRT__UNLIKELY(v >= __atomic_load_n(&c->next, __ATOMIC_SEQ_CST))) xrt__cpu_counter_wake(c, v);
}

static int xrt__cpu_reached(xrt__cpu_counter *c, uint64_t target)
{
    return __atomic_load_n(&c->value, __ATOMIC_ACQUIRE) >= target;
}

/* Sleeps until the counter reaches target: queues a node, then checks the
   value again (the writer's store and its look at `next` are ordered against
   ours, so one of the two sees the other). */
static void xrt__cpu_sleep(xrt__cpu_counter *c, uint64_t target)
{
    xrt__cpu_sleeper me, **pp;
    me.target = target;
    me.woken = 0;
    xrt__cpu_lock(&c->lock);
    me.next = c->sleepers;
    c->sleepers = &me;
    if (target < c->next) __atomic_store_n(&c->next, target, __ATOMIC_SEQ_CST);
    xrt__cpu_unlock(&c->lock);
    while (!__atomic_load_n(&me.woken, __ATOMIC_SEQ_CST)) {
        if (__atomic_load_n(&c->value, __ATOMIC_SEQ_CST) >= target) break;
        xrt__cpu_futex(&me.woken, FUTEX_WAIT_PRIVATE, 0);
    }
    xrt__cpu_lock(&c->lock); /* take the node off if the writer has not */
    for (pp = &c->sleepers; *pp && *pp != &me; pp = &(*pp)->next) {}
    if (*pp) {
        *pp = me.next;
        __atomic_store_n(&c->next, xrt__cpu_next_target_locked(c), __ATOMIC_SEQ_CST);
    }
    xrt__cpu_unlock(&c->lock);
}

static uint64_t xrt__cpu_clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t xrt__cpu_now_ns(void) { return xrt__cpu_clock_ns(CLOCK_MONOTONIC); }

#define XRT__CPU_CONTENDED_NS 50000u /* a yield or a gap this long: another thread had the core */
#define XRT__CPU_NO_YIELD_MIN_NS 20000000u    /* how long a thread sleeps instead of yielding after that, */
#define XRT__CPU_NO_YIELD_MAX_NS 1280000000u  /* doubling while each yield tried again finds it so */

/* Process-wide: whether other processes want the cores is the machine's
   state, not a thread's (a stream's new worker would otherwise learn it
   again). Written only after a long yield. */
static uint64_t xrt__cpu_no_yield_until, xrt__cpu_no_yield_ns; /* see xrt__cpu_yield */
static int xrt__cpu_long_yield;

/* Yields the core to a thread of ours that shares it; 0 where that let
   other processes run for long, or did so lately: each yield costs a time
   slice of theirs, and the caller should sleep instead, to be woken when
   its partner is done (as a condition variable's waiter is). A long yield
   may also be the partner's work (a burst of copies on one core): the
   yield after one looks at the process's CPU time (a system call) to tell
   which. A yield is tried again after a while, in case the other processes
   are gone; each try that finds them costs a slice, so the while doubles
   (20 ms to 1.28 s) as long as they stay: with one core shared with two
   spinning processes, a try every 20 ms made a stream's round trip 1.16x
   the condition variable's. A yield that goes well does not show that they
   are gone (the partner may have been picked first): many of them did, and
   between them the long ones cost as much. */
/* The calling thread's own yields (xrt__cpu_give), so that a worker can
   tell the switches it asked for from preemption by other threads. */
static XRT__TLS unsigned long xrt__cpu_gave;
static void xrt__cpu_give(void)
{
    xrt__cpu_gave++;
    sched_yield();
}

static int xrt__cpu_yield(void)
{
    uint64_t t0 = xrt__cpu_now_ns(), t1, c0 = 0, ns;
    int look = __atomic_load_n(&xrt__cpu_long_yield, __ATOMIC_RELAXED);
    if (t0 < __atomic_load_n(&xrt__cpu_no_yield_until, __ATOMIC_RELAXED)) return 0;
    if (look) c0 = xrt__cpu_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    xrt__cpu_give();
    t1 = xrt__cpu_now_ns();
    ns = __atomic_load_n(&xrt__cpu_no_yield_ns, __ATOMIC_RELAXED);
    if (t1 - t0 < XRT__CPU_CONTENDED_NS || !look || xrt__cpu_clock_ns(CLOCK_PROCESS_CPUTIME_ID) - c0 >= (t1 - t0) / 2) {
        int long_yield = t1 - t0 >= XRT__CPU_CONTENDED_NS && !look; /* look at the next one */
        if (long_yield != look) __atomic_store_n(&xrt__cpu_long_yield, long_yield, __ATOMIC_RELAXED);
        /* a yield that went well may have been lucky: forget the others
           only after twice the last while has gone by without them */
        if (ns && t1 > __atomic_load_n(&xrt__cpu_no_yield_until, __ATOMIC_RELAXED) + 2 * ns)
            __atomic_store_n(&xrt__cpu_no_yield_ns, 0, __ATOMIC_RELAXED);
        return 1;
    }
    ns = ns ? 2 * ns : XRT__CPU_NO_YIELD_MIN_NS;
    if (ns > XRT__CPU_NO_YIELD_MAX_NS) ns = XRT__CPU_NO_YIELD_MAX_NS;
    __atomic_store_n(&xrt__cpu_no_yield_ns, ns, __ATOMIC_RELAXED);
    __atomic_store_n(&xrt__cpu_no_yield_until, t1 + ns, __ATOMIC_RELAXED);
    __atomic_store_n(&xrt__cpu_long_yield, 0, __ATOMIC_RELAXED);
    return 0;
}

/* Spins until *word reaches target, for at most *budget pauses; 1: reached.
   The budget is learned where the wait happens: a spin that succeeds moves
   it toward twice what it took, one that fails halves it. While the thread
   being waited for runs on another core, spins succeed and the budget covers
   the hand-off; when it is descheduled (other processes hold the cores),
   spins fail, the budget falls to a few polls and the waiter goes to sleep
   at once instead of burning the time slice that thread needs. `partner`
   (NULL: unknown) is the CPU that thread was last seen on: where it is the
   caller's own, the two share a core (a 1-core machine or affinity mask,
   or another process holding the other cores), that thread cannot run
   until the caller stops: instead of spinning, the caller yields the core
   (the other thread may then finish, or a producer enqueue a whole batch,
   before the caller looks again), up to XRT__CPU_YIELDS times, and then
   sleeps. Both threads stay runnable meanwhile, so where another core is
   idle the scheduler soon moves one of them there (a new worker starts on
   its creator's core), and the spins then work again. `also`: a second
   word that may reach target instead (`word` where there is none). */
static int xrt__cpu_at(const uint64_t *word, const uint64_t *also, uint64_t target)
{
    return __atomic_load_n(word, __ATOMIC_ACQUIRE) >= target ||
           (also != word && __atomic_load_n(also, __ATOMIC_ACQUIRE) >= target);
}

static int xrt__cpu_spin(unsigned *budget, const uint64_t *word, const uint64_t *also, uint64_t target,
                         const int *partner)
{
    unsigned b = __atomic_load_n(budget, __ATOMIC_RELAXED), i, k, gap = 1, nb;
    int here;
    for (i = 0; partner && (here = sched_getcpu()) >= 0 && __atomic_load_n(partner, __ATOMIC_RELAXED) == here; i++) {
        if (i == XRT__CPU_YIELDS) return xrt__cpu_at(word, also, target);
        if (!xrt__cpu_yield()) return xrt__cpu_at(word, also, target); /* it cannot run while we spin */
        if (xrt__cpu_at(word, also, target)) return 1;
    }
    for (i = 0; i < b; i += gap) {
        if (xrt__cpu_at(word, also, target)) {
            unsigned want = 2 * i + XRT__CPU_SPIN_MIN;
            if (want > XRT__CPU_SPIN_MAX) want = XRT__CPU_SPIN_MAX;
            nb = want > b ? b + (want - b + 3) / 4 : b - (b - want) / 4;
            if (nb != b) __atomic_store_n(budget, nb, __ATOMIC_RELAXED);
            return 1;
        }
        for (k = 0; k < gap; k++) xrt__cpu_pause();
        if (gap < 16) gap *= 2; /* a poll pulls the writer's cache line: fewer of them as the wait grows */
    }
    if (xrt__cpu_at(word, also, target)) return 1;
    nb = b / 2 < XRT__CPU_SPIN_MIN ? XRT__CPU_SPIN_MIN : b / 2;
    if (nb != b) __atomic_store_n(budget, nb, __ATOMIC_RELAXED);
    return 0;
}

/* Records the calling thread's CPU in *where (a partner for xrt__cpu_spin),
   writing only when it changed: others read it. */
static void xrt__cpu_note_cpu(int *where)
{
    int here = sched_getcpu();
    if (__atomic_load_n(where, __ATOMIC_RELAXED) != here) __atomic_store_n(where, here, __ATOMIC_RELAXED);
}

/* spin: 0 sleeps at once (XRT_EVENT_BLOCKING_SYNC); partner as in xrt__cpu_spin. */
static void xrt__cpu_wait(xrt__cpu_counter *c, uint64_t target, int spin, const int *partner)
{
    if (xrt__cpu_reached(c, target) || (spin && xrt__cpu_spin(&c->spin, &c->value, &c->value, target, partner))) return;
    while (!xrt__cpu_reached(c, target)) xrt__cpu_sleep(c, target);
}

/* Each device's flags (xrt_set_device_flags): their XRT_DEVICE_SCHEDULE_*
   bits are how a host thread waits for that device's work. 0 (auto) is the
   waits above, learned spins then a futex; a host wait tests for it with one
   load and a branch (xrt__cpu_sched_of) and takes xrt__cpu_wait_as else. */
static unsigned xrt__cpu_flags[XRT__CPU_DEVICES_MAX];

static unsigned xrt__cpu_sched_of(int device)
{
    return __atomic_load_n(&xrt__cpu_flags[device], __ATOMIC_RELAXED) & XRT_DEVICE_SCHEDULE_MASK;
}

/* A host thread's wait under a schedule other than auto: spin polls
   without a break, yield gives the core up between polls (sched_yield),
   blocking sync sleeps on the counter's futex at once. */
static void xrt__cpu_wait_as(xrt__cpu_counter *c, uint64_t target, unsigned sched)
{
    if (sched == XRT_DEVICE_SCHEDULE_SPIN)
        while (!xrt__cpu_reached(c, target)) xrt__cpu_pause();
    else if (sched == XRT_DEVICE_SCHEDULE_YIELD)
        while (!xrt__cpu_reached(c, target)) sched_yield();
    else
        while (!xrt__cpu_reached(c, target)) xrt__cpu_sleep(c, target);
}

/* xrt__cpu_wait for a host thread waiting for device's work. */
static void xrt__cpu_host_wait(xrt__cpu_counter *c, uint64_t target, int spin, const int *partner, int device)
{
    unsigned sched = xrt__cpu_sched_of(device);
    if (XRT__LIKELY(!sched)) xrt__cpu_wait(c, target, spin, partner);
    else xrt__cpu_wait_as(c, target, sched);
}

#define XRT__CPU_LINGER_MAX_NS 4000000u /* about a scheduler tick: a wake-up costs less than a longer spin */


/* Waits for *word to reach target for up to twice `busy_ns` (how long the
   caller was just busy: a part of a pooled operation, a stream's burst of
   work; at most XRT__CPU_LINGER_MAX_NS), polling, and giving the core up
   now and then; 1: reached. Work comes in bursts about as long as the last:
   a thread asleep when the next begins would be woken late (a virtual core
   that idles can take milliseconds to wake), and the threads that need it
   would wait meanwhile. But a core is idle only where no other thread wants
   it: the first time the clock jumps between two looks (the yield let
   another thread run, or the thread was preempted), it stops, as the
   learned spins do when they fail, and the caller sleeps. `also` as in
   xrt__cpu_spin. */
static int xrt__cpu_linger(const uint64_t *word, const uint64_t *also, uint64_t target, uint64_t busy_ns)
{
    uint64_t end, last, now;
    unsigned k;
    if (!busy_ns) return xrt__cpu_at(word, also, target);
    last = xrt__cpu_now_ns();
    end = last + (busy_ns < XRT__CPU_LINGER_MAX_NS / 2 ? 2 * busy_ns : XRT__CPU_LINGER_MAX_NS);
    for (k = 1;; k++) {
        if (xrt__cpu_at(word, also, target)) return 1;
        xrt__cpu_pause();
        if (k % 512 == 0) xrt__cpu_give();
        if (k % 64 == 0) {
            now = xrt__cpu_now_ns();
            if (now >= end || now - last > XRT__CPU_CONTENDED_NS) return xrt__cpu_at(word, also, target);
            last = now;
        }
    }
}

/* Moves the calling thread onto `cpu` (onto: 1) or off it (0) at once,
   within its affinity mask, which it then gives back: the scheduler leaves
   the thread where it is put until its balancing moves it (milliseconds,
   or never where that would not even the load). */
static void xrt__cpu_hop(int cpu, int onto)
{
    cpu_set_t mask, to;
    if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof mask, &mask) != 0 || CPU_COUNT(&mask) < 2 ||
        !CPU_ISSET(cpu, &mask))
        return;
    to = mask;
    if (onto) {
        CPU_ZERO(&to);
        CPU_SET(cpu, &to);
    } else {
        CPU_CLR(cpu, &to);
    }
    if (sched_setaffinity(0, sizeof to, &to) == 0) sched_setaffinity(0, sizeof mask, &mask);
}

/* >> cpu: objects */
struct xrt__cpu_op;
struct xrt__cpu_stream;
struct xrt__cpu_event;
/* A point in a stream to wait for: op number pos - 1 done. */
typedef struct xrt__cpu_pending { struct xrt__cpu_stream *s; uint64_t pos; } xrt__cpu_pending;
typedef void (*xrt__cpu_run_fn)(struct xrt__cpu_op *op);
/* One queued operation: `run` and the arguments of its kind. */
typedef struct xrt__cpu_op {
    xrt__cpu_run_fn run; /* NULL: the worker's exit */
    union {
        struct { void *dst; const void *src; size_t size; xrt_memcpy_kind kind; } copy; /* kind: as given, for a node */
        struct { void *dst; size_t size; int value; } set;
        struct { void *ptr; } release;
        struct { void *head; void *pool; uint64_t gen; } mfree; /* a pool block's free reached (xrt__cpu_run_mpool_free) */
        struct { xrt_host_fn fn; void *user; } host;
        struct { void *ptr; size_t size; int device; } move; /* a prefetch (xrt__cpu_run_prefetch) */
        struct { struct xrt__cpu_event *event; struct xrt__cpu_stream *stream; uint64_t pos; } record;
        struct { struct xrt__cpu_stream *stream; uint64_t pos; } wait;
        struct { struct xrt__cpu_pending *v; size_t n; } waits; /* owns v */
    } u;
} xrt__cpu_op;

/* One cache line: the worker polls `seq`, which says the op in the same line
   is op number seq - 1, so signal and payload travel together. `done` and
   `spare` are used only in a stream's express slot (see xrt__cpu_stream,
   xrt__cpu_spare_give). */
typedef struct xrt__cpu_slot {
    uint64_t seq;
    uint64_t done;
    xrt__cpu_op op;
    void *spare;
} __attribute__((aligned(64))) xrt__cpu_slot;

typedef char xrt__cpu_slot_is_one_line[sizeof(xrt__cpu_slot) == 64 ? 1 : -1]; /* an op outgrowing it costs a line */

/* A block of memory a stream keeps for reuse (xrt__cpu_spare_take). */
typedef struct xrt__cpu_spare {
    struct xrt__cpu_spare *next;
} xrt__cpu_spare;

/* Producers, the worker and waiters each write their own cache line, and
   no line one of them writes with every op is read by another but the
   slots. The ring is replaced (grown) only from a host function of the
   stream, by the thread that holds `exec`, under the lock: that thread
   reads `ring` and `mask` without it, and a worker without `exec` reads
   them under it (xrt__cpu_worker_park).
   The express slot carries the ops enqueued while the stream is known to be
   empty (a thread synchronized it and nothing was enqueued since: op number
   `empty_at`), and whoever completes an op writes the count of ops done in
   its `done` (xrt__cpu_complete), which synchronizing threads poll: an
   enqueue-and-synchronize round trip then moves that one line back and
   forth, as a bare spinning hand-off does, instead of the op's slot, the
   next one and the head counter. While the stream is busy ops go through
   the ring and the line stays the worker's. Op number h is in the ring
   slot (h & mask) or in the express slot, the one whose seq is h + 1
   (xrt__cpu_slot_of). */

typedef struct xrt__cpu_stream {
    int lock;      /* producers' spinlock */
    int orphan;    /* no worker: a forked child's copy; one starts with the next op */
    int device;    /* current at its creation (">> cpu: device") */
    int pinned;    /* its worker runs on its device's NUMA node: only the worker runs its ops (xrt__cpu_exec_run) */
    uint64_t dropped; /* an orphan's ops from here to tail never ran: released at adoption */
    uint64_t tail; /* ops enqueued (written under lock) */
    uint64_t room; /* ops may be enqueued without looking at head while tail < room */
    uint64_t empty_at;  /* ops below it are done: op empty_at may go to the express slot */
    unsigned wait_spin; /* synchronizing threads' spin budget (xrt__cpu_spin) */
    int order;          /* XRT__CPU_NON_BLOCKING, _BLOCKING or _LEGACY (">> cpu: the legacy stream") */
    struct xrt__cpu_capture *cap; /* the capture it is in (">> cpu: graphs"); NULL: none */
    uint64_t legacy_seen; /* a blocking stream: the NULL stream's op its later ops follow (xrt__cpu_legacy.order) */
    uint64_t work_end;    /* a blocking stream: 1 + its ops before the worker's exit op, once destroyed; else 0 */
    xrt__cpu_slot *ring __attribute__((aligned(64))); /* read by all, rarely written */
    uint64_t mask; /* ring entries - 1 */
    int refs;      /* the worker and the handle: the last to let go frees the stream */
    pthread_t thread;
    struct xrt__cpu_stream *prev, *next;
    struct xrt__cpu_stream *bprev, *bnext; /* a blocking stream: its device's list (xrt__cpu_legacy) */
    unsigned flags;                        /* XRT_STREAM_* as created */
    int level;                             /* its priority, as a level: 0 (priority 0, the least) .. 5 (-5); atomic */
    unsigned sched;                        /* XRT_DEVICE_SCHEDULE_* its synchronize waits by; 0: the device's; atomic */
    int owned;                             /* 1: a thread's per-thread stream, not closed yet */
    struct xrt__cpu_stream **own_slot;     /* owned: its owner's slot (xrt__cpu_own), or NULL (owner not in this process) */
    xrt__cpu_spare *spares __attribute__((aligned(64))); /* pushed by the worker, taken under `lock` */
    unsigned nspares;
    uint32_t parked __attribute__((aligned(64))); /* the idle worker sleeps on it */
    int worker_cpu;                               /* where it ran last (xrt__cpu_spin's partner) */
    uint64_t launch_at;                           /* 1 + the pooled launch it runs; 0: none (xrt__cpu_help_launch) */
    xrt__cpu_slot express;                        /* aligned: a line of its own */
    /* Where the latest op was enqueued from (the worker's partner): its own
       line, written only when it changes, so that the worker reading it
       takes no line the producers write with every op. */
    int producer_cpu __attribute__((aligned(64)));
    uint32_t exec; /* who runs ops: an XRT__CPU_EXEC_ state */
    xrt__cpu_counter head __attribute__((aligned(64))); /* ops completed */
    /* While in a capture, under its lock: the nodes its next op follows, and its name for messages. */
    uint32_t *front, nfront, frontcap;
    char cap_name[48];
    /* Attributes that change nothing here (">> cpu: stream attributes"), under `lock`. */
    xrt_access_policy_window window;
    int domain;
    unsigned char domain_map[2];
} xrt__cpu_stream;

/* How a host thread waits in a synchronize of s: its own policy
   (XRT_STREAM_ATTR_SYNCHRONIZATION_POLICY), else its device's. */
static unsigned xrt__cpu_stream_sched(const xrt__cpu_stream *s)
{
    unsigned own = __atomic_load_n(&s->sched, __ATOMIC_RELAXED);
    return XRT__LIKELY(!own) ? xrt__cpu_sched_of(s->device) : own;
}

/* xrt__cpu_stream.order: how a stream is ordered with its device's NULL
   stream, the legacy default stream (">> cpu: the legacy stream"). */
enum { XRT__CPU_NON_BLOCKING, XRT__CPU_BLOCKING, XRT__CPU_LEGACY };

/* Each device's legacy stream: `order` is the op number + 1 of its latest
   op, which work queued on a blocking stream from then on follows; `lock`
   guards the list of blocking streams and is held while an op of the NULL
   stream is ordered after their work (xrt__cpu_legacy_open). One line, read
   by every enqueue on a blocking stream, written by the NULL stream's
   producers. */
typedef struct xrt__cpu_legacy {
    int lock;
    uint64_t order;
    struct xrt__cpu_stream *blocking; /* the first (bnext) */
} __attribute__((aligned(64))) xrt__cpu_legacy;

/* `exec`: who runs a stream's ops. The worker holds it while it runs or
   waits awake for ops (WORKER), and lets go to sleep (FREE) or when a thread
   waiting for the stream asks for the ops (HANDOVER, then HANDED); a waiting
   thread that takes it (WAITER) runs them in the worker's place, and gives
   it back, waking the worker if it asked (WAITER_WANTED). The worker and the
   threads waiting for a handover sleep on it. */
enum {
    XRT__CPU_FREE,
    XRT__CPU_WORKER,
    XRT__CPU_WAITER,
    XRT__CPU_WAITER_WANTED,
    XRT__CPU_HANDOVER,
    XRT__CPU_HANDED
};

/* The stream whose ops the calling thread runs: its worker's, or one it
   runs in the worker's place (xrt__cpu_help); NULL on other threads. */
static XRT__TLS xrt__cpu_stream *xrt__cpu_serving;
static XRT__TLS int xrt__cpu_lent; /* runs a stream's ops in its worker's place (xrt__cpu_help) */
static XRT__TLS int xrt__cpu_device; /* the thread's current device, as cudaSetDevice's */

/* Zero-initialised without an initialiser list, which C++ would reject under
   -Wmissing-field-initializers; hence the lock stands apart. */
static pthread_mutex_t xrt__cpu_list_lock = PTHREAD_MUTEX_INITIALIZER; /* guards the stream list */
static struct {
    const xrt_backend *self; /* the registry's table, for host functions */
    xrt__cpu_stream list; /* sentinel of a circular list of all streams */
    /* Each device's NULL stream. One pool (">> cpu: the pool") serves every
       device: the devices share the machine's cores, so a pool per device
       would only oversubscribe them. */
    xrt__cpu_stream *dflt[XRT__CPU_DEVICES_MAX];
    xrt__cpu_legacy legacy[XRT__CPU_DEVICES_MAX];
    int ndev;
    unsigned epoch;                          /* shutdowns so far (a thread's per-thread streams are of one epoch) */
    int numa;                                /* devices are NUMA nodes (XRT_CPU_DEVICES=numa) */
    /* Placement (">> cpu: placement"), read at init, before any worker starts. */
    int node[XRT__CPU_DEVICES_MAX];          /* each device's node under numa; -1: none */
    cpu_set_t cpus[XRT__CPU_DEVICES_MAX];    /* that node's CPUs; empty: none to run on (not pinned) */
    cpu_set_t unplaced;                      /* the process's CPUs at init: where the pool's helpers run */
    int warned[XRT__CPU_DEVICES_MAX];        /* a placement the kernel refused was logged */
    uint64_t peers[XRT__CPU_DEVICES_MAX];    /* bit p of peers[d]: d enabled its access to p */
    xrt__cpu_counter exited;  /* worker threads that have finished */
    xrt__cpu_counter entered; /* worker threads that have reached xrt__cpu_worker (a fork waits for them) */
    uint64_t started;
    pthread_t *zombies; /* finished workers not joined yet */
    size_t nzombies, cap;
    struct xrt__cpu_event *events; /* every live event, for a forked child (xrt__cpu_fork_child) */
} xrt__cpu;

static void xrt__cpu_reap(void);
static int xrt__cpu_reap_registered; /* xrt__cpu_reap runs at the program's exit (under the list lock) */

/* Workers are joined, not detached, so that xrt_shutdown returns with every
   thread gone. A finished worker leaves its id here; the next stream
   creation, the shutdown or the program's exit (a program may end without
   xrt_shutdown, and ThreadSanitizer reports a finished thread never joined
   as leaked) joins it. Called with the list lock held. */
static void xrt__cpu_bury_locked(pthread_t self)
{
    if (!xrt__cpu_reap_registered) xrt__cpu_reap_registered = atexit(xrt__cpu_reap) == 0;
    if (xrt__cpu.nzombies == xrt__cpu.cap) {
        size_t cap = xrt__cpu.cap ? 2 * xrt__cpu.cap : 16;
        pthread_t *z = (pthread_t *)XRT_REALLOC(xrt__cpu.zombies, cap * sizeof *z);
        if (!z) {
            pthread_detach(self); /* no memory to remember it: let it go */
            return;
        }
        xrt__cpu.zombies = z;
        xrt__cpu.cap = cap;
    }
    xrt__cpu.zombies[xrt__cpu.nzombies++] = self;
}

/* Joins under the list lock, which a finished worker no longer needs: a
   fork (which takes the lock) then never finds a worker half gone. */
static void xrt__cpu_reap_locked(void)
{
    size_t i;
    for (i = 0; i < xrt__cpu.nzombies; i++) pthread_join(xrt__cpu.zombies[i], NULL);
    XRT_FREE(xrt__cpu.zombies);
    xrt__cpu.zombies = NULL;
    xrt__cpu.nzombies = xrt__cpu.cap = 0;
}

static void xrt__cpu_reap(void)
{
    pthread_mutex_lock(&xrt__cpu_list_lock);
    xrt__cpu_reap_locked();
    pthread_mutex_unlock(&xrt__cpu_list_lock);
}

/* >> cpu: placement. Under XRT_CPU_DEVICES=numa each device is a NUMA node
   (">> cpu: device" reads them): its stream workers run on the node's CPUs
   and its memory is bound there (preferred, as numactl --preferred: a full
   node spills to others rather than failing an allocation). The pool's
   helpers serve every device and are not placed (DESIGN.md says why). What
   the kernel refuses (a node or CPUs it does not have) leaves the work or
   the memory unplaced, never failing it: logged once per device. The raw
   system calls, not libnuma, so that a program needs no -lnuma. */
#define XRT__CPU_NODES_MAX CPU_SETSIZE /* node ids, as the kernel's MAX_NUMNODES (1024 at most) */
#define XRT__MPOL_PREFERRED 1

static void xrt__cpu_place_refused(int device, const char *call, int err)
{
    if (__atomic_exchange_n(&xrt__cpu.warned[device], 1, __ATOMIC_RELAXED)) return;
    xrt_log(XRT_LOG_WARN, "cpu: device %d is not placed on NUMA node %d: %s: %s; it runs unplaced", device,
            xrt__cpu.node[device], call, strerror(err));
}

/* Called by each of the device's stream workers as it starts. */
static void xrt__cpu_place_thread(const xrt__cpu_stream *s)
{
    int rc;
    if (!s->pinned) return;
    rc = pthread_setaffinity_np(pthread_self(), sizeof(cpu_set_t), &xrt__cpu.cpus[s->device]);
    if (rc != 0) xrt__cpu_place_refused(s->device, "sched_setaffinity", rc);
}

/* A pool helper runs anywhere the process may, whichever thread started it
   (a pinned worker's mask would be inherited). */
static void xrt__cpu_unplace_thread(void)
{
    if (xrt__cpu.numa && CPU_COUNT(&xrt__cpu.unplaced) > 0)
        (void)pthread_setaffinity_np(pthread_self(), sizeof(cpu_set_t), &xrt__cpu.unplaced);
}

/* Binds the whole pages around [addr, addr + len) to the device's node
   (preferred): a fresh mapping before its first touch places its pages, or
   (with `move`: MPOL_MF_MOVE) pages already placed, which move. Nothing for
   the host (device -1) or an unplaced device. Returns 0, or the kernel's
   refusal (errno) for the caller to log (xrt__cpu_place_memory). */
static size_t xrt__cpu_page(void);
static int xrt__cpu_bind_memory(int device, const void *addr, size_t len, unsigned move)
{
    enum { bits = 8 * sizeof(unsigned long) };
    unsigned long mask[XRT__CPU_NODES_MAX / bits];
    uintptr_t page = xrt__cpu_page(), start = (uintptr_t)addr & ~(page - 1);
    uintptr_t end = ((uintptr_t)addr + len + page - 1) & ~(page - 1);
    int node = device >= 0 && xrt__cpu.numa ? xrt__cpu.node[device] : -1;
    if (node < 0 || node >= XRT__CPU_NODES_MAX) return 0;
    memset(mask, 0, sizeof mask);
    mask[node / bits] |= 1ul << (node % bits);
    /* maxnode counts one past the mask's bits: the kernel reads maxnode - 1 */
    if (syscall(SYS_mbind, (void *)start, (unsigned long)(end - start), XRT__MPOL_PREFERRED, mask,
                (unsigned long)XRT__CPU_NODES_MAX + 1, move) != 0)
        return errno;
    return 0;
}

static void xrt__cpu_place_memory(int device, const void *addr, size_t len, unsigned move)
{
    int e = xrt__cpu_bind_memory(device, addr, len, move);
    if (e) xrt__cpu_place_refused(device, "mbind", e);
}

/* Capture (">> cpu: graphs"): what the stream and event calls ask of it. */
struct xrt__cpu_event;
struct xrt__cpu_plan;
static int xrt__cpu_cap_op(xrt__cpu_stream *s, const xrt__cpu_op *op, const char *who, xrt_status *st);
static xrt_status xrt__cpu_cap_alloc(xrt__cpu_stream *s, void *ptr, const char *who);
static int xrt__cpu_cap_free(xrt__cpu_stream *s, void *ptr, const char *who, xrt_status *st);
static xrt_status xrt__cpu_cap_owned(void *ptr, const char *who);
static int xrt__cpu_gmem_free(void *ptr, const char *who, xrt_status *st);
struct xrt__cpu_graph;
static void xrt__cpu_graph_free_foreign(const struct xrt__cpu_graph *g);
static int xrt__cpu_ngleft; /* graphs that leave allocations to the caller: read without a lock by the frees */
static int xrt__cpu_cap_record(struct xrt__cpu_event *e, xrt__cpu_stream *s, xrt_status *st);
static int xrt__cpu_cap_wait(xrt__cpu_stream *t, struct xrt__cpu_event *e, xrt_status *st);
static xrt_status xrt__cpu_cap_wait_refused(xrt__cpu_stream *s, const char *who);
static xrt_status xrt__cpu_cap_event_refused(struct xrt__cpu_event *e, const char *who);
static xrt_status xrt__cpu_cap_unsafe(const char *who);
static xrt_status xrt__cpu_cap_refuse(const char *who, int device);
static xrt_status xrt__cpu_cap_implicit(int device, const char *who);
static void xrt__cpu_cap_event_gone(struct xrt__cpu_event *e);
static void xrt__cpu_cap_stream_gone(xrt__cpu_stream *s);
static int xrt__cpu_capturing(void *stream);
static xrt_status xrt__cpu_cap_cannot(void *stream, const char *who, const char *what);
static void xrt__cpu_run_graph(xrt__cpu_op *op);
static void xrt__cpu_plan_unref(struct xrt__cpu_plan *p);

/* >> cpu: the worker */
/* The destroying thread still touches the stream after it publishes the exit
   op (unlock, wake), while the worker may already be done with it. */
static void xrt__cpu_stream_unref(xrt__cpu_stream *s)
{
    xrt__cpu_spare *p;
    if (__atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL)) return;
    while ((p = s->spares) != NULL) {
        s->spares = p->next;
        XRT_FREE(p);
    }
    XRT_FREE(s->express.spare);
    XRT_FREE(s->front);
    XRT_FREE(s->ring);
    XRT_FREE(s);
}

/* Spares: blocks of XRT__CPU_SPARE_BYTES that the stream's ops need for as
   long as they are queued (a launch's record), given back by the worker when
   the op is done and taken again by the next op, so that a small op costs no
   allocation (an allocation by one thread freed by another costs more than
   the hand-off here). One thread gives (the worker), producers take under the
   stream's lock: a block taken cannot come back while the taker looks at it,
   so the stack has no ABA. A block given back goes first to the express
   slot's line, which both sides write anyway where launches and
   synchronizes alternate, and to the stack only while that place is taken. */
#define XRT__CPU_SPARE_BYTES 512u
#define XRT__CPU_SPARES_MAX 16u

static void *xrt__cpu_spare_take(xrt__cpu_stream *s)
{
    xrt__cpu_spare *p;
    xrt__cpu_lock(&s->lock);
    if ((p = (xrt__cpu_spare *)__atomic_exchange_n(&s->express.spare, NULL, __ATOMIC_ACQUIRE)) == NULL) {
        p = __atomic_load_n(&s->spares, __ATOMIC_ACQUIRE);
        while (p && !__atomic_compare_exchange_n(&s->spares, &p, p->next, 0, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
        }
        if (p) __atomic_sub_fetch(&s->nspares, 1, __ATOMIC_RELAXED);
    }
    xrt__cpu_unlock(&s->lock);
    return p ? (void *)p : XRT_ALIGNED_ALLOC(64, XRT__CPU_SPARE_BYTES);
}

static void xrt__cpu_spare_give(xrt__cpu_stream *s, void *block)
{
    xrt__cpu_spare *p = (xrt__cpu_spare *)block;
    void *none = NULL;
    if (__atomic_compare_exchange_n(&s->express.spare, &none, block, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) return;
    if (__atomic_load_n(&s->nspares, __ATOMIC_RELAXED) >= XRT__CPU_SPARES_MAX) {
        XRT_FREE(p);
        return;
    }
    __atomic_add_fetch(&s->nspares, 1, __ATOMIC_RELAXED);
    p->next = __atomic_load_n(&s->spares, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&s->spares, &p->next, p, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
    }
}

static void xrt__cpu_blocking_unlink(xrt__cpu_stream *s);

static void xrt__cpu_stream_unlink(xrt__cpu_stream *s)
{
    pthread_mutex_lock(&xrt__cpu_list_lock);
    s->prev->next = s->next;
    s->next->prev = s->prev;
    pthread_mutex_unlock(&xrt__cpu_list_lock);
}

/* Sleeps until op number h is published (in its ring slot or the express
   one). The slot is read under the producers' lock: while the worker does
   not hold `exec`, a waiting thread may run a host function that grows the
   ring (xrt__cpu_grow_locked); the lock also orders the look against a
   producer's look at `parked` (xrt__cpu_publish). */
static int xrt__cpu_published(xrt__cpu_stream *s, uint64_t h)
{
    int at;
    xrt__cpu_lock(&s->lock);
    at = xrt__cpu_at(&s->ring[h & s->mask].seq, &s->express.seq, h + 1);
    xrt__cpu_unlock(&s->lock);
    return at;
}

static void xrt__cpu_worker_park(xrt__cpu_stream *s, uint64_t h)
{
    for (;;) {
        __atomic_store_n(&s->parked, 1, __ATOMIC_SEQ_CST);
        if (!xrt__cpu_published(s, h)) xrt__cpu_futex(&s->parked, FUTEX_WAIT_PRIVATE, 1);
        __atomic_store_n(&s->parked, 0, __ATOMIC_RELAXED);
        if (xrt__cpu_published(s, h)) return;
    }
}

/* The worker takes `exec` back (after a sleep or a handover), waiting for
   a thread that runs its ops to finish; returns the op to run next. */
static uint64_t xrt__cpu_exec_take(xrt__cpu_stream *s)
{
    for (;;) {
        uint32_t v = XRT__CPU_FREE;
        if (__atomic_compare_exchange_n(&s->exec, &v, XRT__CPU_WORKER, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) break;
        if (v == XRT__CPU_WAITER) {
            if (!__atomic_compare_exchange_n(&s->exec, &v, XRT__CPU_WAITER_WANTED, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                continue;
            v = XRT__CPU_WAITER_WANTED;
        }
        xrt__cpu_futex(&s->exec, FUTEX_WAIT_PRIVATE, v); /* WAITER_WANTED, or HANDED until a waiter takes it */
    }
    xrt__cpu_note_cpu(&s->worker_cpu);
    return __atomic_load_n(&s->head.value, __ATOMIC_ACQUIRE); /* not 0 after a fork; waiters may have run some */
}

/* The worker lets go of `exec`: FREE to sleep or exit, HANDED to the
   threads that asked for the ops (each wakes and one takes it). */
static void xrt__cpu_exec_give(xrt__cpu_stream *s, uint32_t to)
{
    if (__atomic_exchange_n(&s->exec, to, __ATOMIC_RELEASE) == XRT__CPU_HANDOVER)
        xrt__cpu_futex(&s->exec, FUTEX_WAKE_PRIVATE, INT_MAX);
}

/* After a burst of work the worker waits awake for more, for up to twice
   the burst's length (xrt__cpu_linger), before it sleeps: asleep when the
   next burst begins, it would wake late, and its producer enqueue alone
   meanwhile. Only where the cores are free: not while its producer was
   last seen on this core (the two would share it), nor when the worker was
   preempted since it last looked (*preempted: other threads want the
   cores; a thread that spins there only takes time they and the producer
   need). 1: an op came, which begins the next burst at *busy. */
static int xrt__cpu_worker_linger(xrt__cpu_stream *s, const uint64_t *seq, uint64_t h, uint64_t *busy,
                                  long *preempted)
{
    struct rusage u;
    long was = *preempted;
    if (__atomic_load_n(&s->producer_cpu, __ATOMIC_RELAXED) == sched_getcpu() || getrusage(RUSAGE_THREAD, &u) != 0)
        return 0;
    *preempted = u.ru_nivcsw;
    if (u.ru_nivcsw != was || !xrt__cpu_linger(seq, &s->express.seq, h + 1, xrt__cpu_now_ns() - *busy)) return 0;
    *busy = xrt__cpu_now_ns();
    return 1;
}

/* Under load the worker and its producer do best on one core: each runs
   while the other waits, and a hand-off between them is a yield or a wake on
   that core. On two cores that other processes keep busy, each gets its
   core only part of the time, and the pipeline moves only while both do
   (64-byte memsets beside two spinning processes: 2.2-2.8 M/s apart, 6-9
   M/s together, in the same minutes). So a worker that finds it was
   preempted since it last looked (at most once a millisecond, and every
   16th time it waits for an op: a look costs a clock read) moves onto its
   producer's core. Where the machine is quiet again (its yields find no
   other process wanting the core: xrt__cpu_yield), a worker that shares
   its producer's core and hands ops back and forth with it (it waited for
   an op XRT__CPU_PINGPONG times a millisecond or more since its last look,
   and no other thread preempted it meanwhile: it was switched out no more
   often than it yielded) moves off that core, at the same looks: such a
   pair does best apart (a
   round trip polled with xrt_stream_query: 90 ns apart, 2.5 us together),
   and the scheduler may leave it together for seconds where the other core
   idles. Workers busy with long ops stay where they are: moving them all
   off their producer's core would crowd them onto the others. */
#define XRT__CPU_JOIN_LOOK_NS 1000000u
#define XRT__CPU_PINGPONG 64u

typedef struct xrt__cpu_look {
    uint64_t next_ns, at_ns; /* the next look's earliest time, the last look's */
    unsigned waits, at_waits; /* waits for an op: in all, at the last look */
    long at_switches;         /* involuntary switches at the last look */
    unsigned long at_gave;    /* own yields at the last look */
} xrt__cpu_look;

static void xrt__cpu_worker_join(xrt__cpu_stream *s, xrt__cpu_look *look, long *preempted)
{
    struct rusage u;
    uint64_t now;
    long was = *preempted;
    int p, here, pingpong, others;
    if (++look->waits % 16 || (now = xrt__cpu_now_ns()) < look->next_ns || getrusage(RUSAGE_THREAD, &u) != 0)
        return;
    look->next_ns = now + XRT__CPU_JOIN_LOOK_NS;
    *preempted = u.ru_nivcsw;
    p = __atomic_load_n(&s->producer_cpu, __ATOMIC_RELAXED);
    here = sched_getcpu();
    pingpong = (uint64_t)(look->waits - look->at_waits) * XRT__CPU_JOIN_LOOK_NS >=
               XRT__CPU_PINGPONG * (now - look->at_ns);
    others = u.ru_nivcsw - look->at_switches > (long)(xrt__cpu_gave - look->at_gave);
    look->at_ns = now, look->at_waits = look->waits;
    look->at_switches = u.ru_nivcsw, look->at_gave = xrt__cpu_gave;
    if (was < 0 || p < 0) return;
    if (u.ru_nivcsw != was && p != here) xrt__cpu_hop(p, 1);
    else if (p == here && pingpong && !others && !__atomic_load_n(&xrt__cpu_no_yield_ns, __ATOMIC_RELAXED))
        xrt__cpu_hop(here, 0);
}

/* Ops below h are done (see xrt__cpu_stream). */
static void xrt__cpu_complete(xrt__cpu_stream *s, uint64_t h)
{
    __atomic_store_n(&s->express.done, h, __ATOMIC_RELEASE);
    xrt__cpu_counter_publish(&s->head, h);
}

/* The slot of op number h, or NULL where it is not published yet. */
static xrt__cpu_slot *xrt__cpu_slot_of(xrt__cpu_stream *s, uint64_t h)
{
    xrt__cpu_slot *slot = &s->ring[h & s->mask];
    if (__atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE) >= h + 1) return slot;
    return __atomic_load_n(&s->express.seq, __ATOMIC_ACQUIRE) >= h + 1 ? &s->express : NULL;
}

static void xrt__cpu_run_kernel(xrt__cpu_op *op);
static int xrt__cpu_pooled(const xrt__cpu_op *op);

static void xrt__cpu_run_wait(xrt__cpu_op *op);

#define XRT__CPU_PRIO_LEVELS 6
#define XRT__CPU_DEFER_NS 2000000u
static int xrt__cpu_prio_used; /* a stream of a higher priority than 0 was made */
static int xrt__cpu_prio_active[XRT__CPU_DEVICES_MAX][XRT__CPU_PRIO_LEVELS]; /* streams running an op, per level */

/* A priority's level: 0 (priority 0 and above) .. 5 (-5 and below). */
static int xrt__cpu_prio_level(int priority)
{
    return priority > 0 ? 0 : priority < -(XRT__CPU_PRIO_LEVELS - 1) ? XRT__CPU_PRIO_LEVELS - 1 : -priority;
}

static int xrt__cpu_prio_higher_busy(int device, int level)
{
    int l;
    for (l = level + 1; l < XRT__CPU_PRIO_LEVELS; l++)
        if (__atomic_load_n(&xrt__cpu_prio_active[device][l], __ATOMIC_ACQUIRE)) return 1;
    return 0;
}

/* Before s runs an op of that level: wait while higher work of its device runs (bounded). */
static void xrt__cpu_prio_defer(const xrt__cpu_stream *s, int level)
{
    struct timespec step = {0, 20000};
    uint64_t until;
    if (level == XRT__CPU_PRIO_LEVELS - 1 || !xrt__cpu_prio_higher_busy(s->device, level)) return;
    until = xrt__cpu_now_ns() + XRT__CPU_DEFER_NS;
    do nanosleep(&step, NULL);
    while (xrt__cpu_prio_higher_busy(s->device, level) && xrt__cpu_now_ns() < until);
}


static int xrt__cpu_launch_level(const xrt__cpu_op *op);

/* An op run under priorities: a wait holds no core, and defers to nothing.
   Its level is its stream's (an attribute may change it between ops), or a
   launch's own. */
static void xrt__cpu_run_prio(xrt__cpu_stream *s, xrt__cpu_slot *slot)
{
    int level = slot->op.run == xrt__cpu_run_kernel ? xrt__cpu_launch_level(&slot->op) : -1;
    int *active;
    if (level < 0) level = __atomic_load_n(&s->level, __ATOMIC_RELAXED);
    active = &xrt__cpu_prio_active[s->device][level];
    if (slot->op.run == xrt__cpu_run_wait) {
        slot->op.run(&slot->op);
        return;
    }
    xrt__cpu_prio_defer(s, level);
    __atomic_add_fetch(active, 1, __ATOMIC_ACQ_REL);
    slot->op.run(&slot->op);
    __atomic_sub_fetch(active, 1, __ATOMIC_ACQ_REL);
}

/* Runs op number h, then publishes it done; the caller holds `exec`. */
static void xrt__cpu_run_op(xrt__cpu_stream *s, xrt__cpu_slot *slot, uint64_t h)
{
    int launch = slot->op.run == xrt__cpu_run_kernel && xrt__cpu_pooled(&slot->op);
    if (launch) __atomic_store_n(&s->launch_at, h + 1, __ATOMIC_RELEASE);
    if (XRT__UNLIKELY(__atomic_load_n(&xrt__cpu_prio_used, __ATOMIC_RELAXED))) xrt__cpu_run_prio(s, slot);
    else slot->op.run(&slot->op);
    if (launch) __atomic_store_n(&s->launch_at, 0, __ATOMIC_RELAXED);
    xrt__cpu_complete(s, h + 1);
}

static void *xrt__cpu_worker(void *arg)
{
    xrt__cpu_stream *s = (xrt__cpu_stream *)arg;
    uint64_t h, busy;
    xrt__cpu_look look = {0, 0, 0, 0, 0, 0};
    long preempted = -1;
    unsigned spin = XRT__CPU_SPIN_MAX / 4; /* its budget for waiting awake (xrt__cpu_spin) */
    xrt__cpu_place_thread(s);
    xrt__cpu_counter_add(&xrt__cpu.entered, 1);
    xrt__cpu_serving = s;
    h = xrt__cpu_exec_take(s);
    busy = xrt__cpu_now_ns();
    for (;;) {
        const uint64_t *seq = &s->ring[h & s->mask].seq; /* re-read: a host function may have grown the ring */
        xrt__cpu_slot *slot;
        if (!xrt__cpu_at(seq, &s->express.seq, h + 1) &&
            (xrt__cpu_worker_join(s, &look, &preempted), xrt__cpu_note_cpu(&s->worker_cpu),
             !xrt__cpu_spin(&spin, seq, &s->express.seq, h + 1, &s->producer_cpu)) &&
            !xrt__cpu_worker_linger(s, seq, h, &busy, &preempted)) {
            xrt__cpu_exec_give(s, XRT__CPU_FREE);
            xrt__cpu_worker_park(s, h);
            h = xrt__cpu_exec_take(s);
            busy = xrt__cpu_now_ns();
            continue;
        }
        slot = xrt__cpu_slot_of(s, h);
        if (slot->op.run == NULL) break; /* the exit op */
        xrt__cpu_run_op(s, slot, h++);
        if (XRT__UNLIKELY(__atomic_load_n(&s->exec, __ATOMIC_RELAXED) == XRT__CPU_HANDOVER)) {
            xrt__cpu_exec_give(s, XRT__CPU_HANDED);
            h = xrt__cpu_exec_take(s);
        }
    }
    xrt__cpu_exec_give(s, XRT__CPU_FREE); /* a thread that asked for the ops stops waiting */
    xrt__cpu_complete(s, ++h);
    xrt__cpu_serving = NULL;
    xrt__cpu_blocking_unlink(s);
    /* All of the way out under the list lock (the free included): a fork
       finds the worker before it or buried (xrt__cpu_fork_prepare). */
    pthread_mutex_lock(&xrt__cpu_list_lock);
    s->prev->next = s->next;
    s->next->prev = s->prev;
    xrt__cpu_stream_unref(s);
    xrt__cpu_bury_locked(pthread_self());
    xrt__cpu_counter_publish(&xrt__cpu.exited, xrt__cpu.exited.value + 1);
    pthread_mutex_unlock(&xrt__cpu_list_lock);
    return NULL;
}

/* The thread's device; 0 after a re-initialisation with fewer devices. */
static int xrt__cpu_current(void) { return xrt__cpu_device < xrt__cpu.ndev ? xrt__cpu_device : 0; }

/* >> cpu: enqueue */
static xrt__cpu_stream *xrt__cpu_stream_of(void *obj)
{
    return obj ? (xrt__cpu_stream *)obj : xrt__cpu.dflt[xrt__cpu_current()];
}

/* Doubles the ring of a full stream; called with the lock held by the
   thread that runs its ops, inside a host function: that thread reads no
   slot meanwhile, and the worker, if it is another thread, reads one only
   under the lock. The op that runs the host function lives in the old ring:
   its arguments were read before the call, and nothing reads it after. */
static int xrt__cpu_grow_locked(xrt__cpu_stream *s)
{
    uint64_t mask = 2 * s->mask + 1, p, head = __atomic_load_n(&s->head.value, __ATOMIC_ACQUIRE);
    xrt__cpu_slot *ring = mask < s->mask ? NULL : (xrt__cpu_slot *)XRT_ALIGNED_ALLOC(64, (mask + 1) * sizeof *ring);
    if (!ring) return 0;
    memset(ring, 0, (mask + 1) * sizeof *ring);
    for (p = head; p < s->tail; p++) ring[p & mask] = s->ring[p & s->mask]; /* an express op's is stale: harmless */
    XRT_FREE(s->ring);
    s->ring = ring;
    s->mask = mask;
    s->room = head + mask + 1;
    return 1;
}

/* Called with the lock held; returns the free slot for op number s->tail,
   waiting (lock released) while the ring is full, or NULL (lock held, error
   recorded) where the stream's own worker finds no memory to grow it. Reads
   head only when the room it saw last time is used up, so the common case
   touches no line that the worker writes. */
static void xrt__cpu_drain(xrt__cpu_stream *s, uint64_t target, int take);

/* Called with the lock held: room in the ring for n more ops, waiting (lock
   released) while it is full; 0 (lock held, error recorded) where the
   stream's own worker finds no memory to grow it. */
static int xrt__cpu_make_room(xrt__cpu_stream *s, uint64_t n, const char *who)
{
    uint64_t target;
    while (s->tail + n > s->room) {
        s->room = __atomic_load_n(&s->head.value, __ATOMIC_ACQUIRE) + s->mask + 1;
        if (s->tail + n <= s->room) break;
        if (xrt__cpu_serving == s) { /* only this thread could free a slot: never wait for it */
            if (xrt__cpu_grow_locked(s)) continue;
            xrt_error(XRT_ERROR_OUT_OF_MEMORY, who, "no memory to grow the stream's queue beyond %llu operations",
                      (unsigned long long)(s->mask + 1));
            return 0;
        }
        if (XRT__UNLIKELY(xrt__cpu_serving != NULL)) { /* a host function: the full stream may wait for it */
            xrt_error(XRT_ERROR_OUT_OF_MEMORY, who,
                      "the stream's queue is full (%llu operations) and a host function does not wait for room: "
                      "the stream's work may wait for the host function",
                      (unsigned long long)(s->mask + 1));
            return 0;
        }
        target = s->tail + n - (s->mask + 1) / 2;
        xrt__cpu_unlock(&s->lock);
        /* half the ring: the worker drains a batch before the producer looks again */
        xrt__cpu_drain(s, target, 0);
        xrt__cpu_lock(&s->lock);
    }
    return 1;
}

static xrt__cpu_op *xrt__cpu_reserve(xrt__cpu_stream *s, const char *who)
{
    if (__atomic_load_n(&s->empty_at, __ATOMIC_ACQUIRE) == s->tail) return &s->express.op; /* done with its last op */
    return XRT__LIKELY(s->tail < s->room) || xrt__cpu_make_room(s, 1, who) ? &s->ring[s->tail & s->mask].op : NULL;
}

/* Publishes op, reserved last; the lock stays, the worker is not woken. */
static inline __attribute__((always_inline)) void xrt__cpu_publish_locked(xrt__cpu_stream *s, const xrt__cpu_op *op)
{
    uint64_t t = s->tail;
    xrt__cpu_slot *slot = op == &s->express.op ? &s->express : &s->ring[t & s->mask];
    xrt__cpu_note_cpu(&s->producer_cpu);
    __atomic_store_n(&slot->seq, t + 1, __ATOMIC_SEQ_CST);
    __atomic_store_n(&s->tail, t + 1, __ATOMIC_RELEASE);
}

/* Wakes a parked worker. Clearing the word, not only waking, closes the
   window between the worker's last look at the slot and its FUTEX_WAIT: it
   then returns at once. */
static inline __attribute__((always_inline)) void xrt__cpu_wake(xrt__cpu_stream *s)
{
    if (__atomic_load_n(&s->parked, __ATOMIC_SEQ_CST) && __atomic_exchange_n(&s->parked, 0, __ATOMIC_SEQ_CST))
        xrt__cpu_futex(&s->parked, FUTEX_WAKE_PRIVATE, 1);
}

static void xrt__cpu_legacy_close(xrt__cpu_stream *s, int published);

/* Unlocks a stream taken with xrt__cpu_enter without publishing an op of the
   caller's (one that ordering queued before it woke the worker itself). */
static void xrt__cpu_leave(xrt__cpu_stream *s)
{
    if (XRT__UNLIKELY(s->order == XRT__CPU_LEGACY)) xrt__cpu_legacy_close(s, 0);
    xrt__cpu_unlock(&s->lock);
}

/* Publishes op, reserved last, unlocks, and wakes a parked worker. */
static void xrt__cpu_publish(xrt__cpu_stream *s, const xrt__cpu_op *op)
{
    xrt__cpu_publish_locked(s, op);
    if (XRT__UNLIKELY(s->order == XRT__CPU_LEGACY)) xrt__cpu_legacy_close(s, 1);
    xrt__cpu_unlock(&s->lock);
    xrt__cpu_wake(s);
}

static xrt_status xrt__cpu_adopt_locked(xrt__cpu_stream *s);

/* >> cpu: the legacy stream. Each device's NULL stream is CUDA's legacy
   default stream: an op queued on it first waits for what every blocking
   stream of its device (XRT_STREAM_DEFAULT, as xrt_stream_create makes) has
   queued before it, and work queued on a blocking stream afterwards waits
   for that op. Non-blocking streams take no part.
   The NULL stream's producer, under that stream's lock, takes the list lock,
   takes each blocking stream's tail under the blocking stream's lock, queues
   one op that waits for those still busy, then its own op, which it makes
   the `order` before it lets the list lock go. A blocking stream's producer,
   under its own lock, waits out a held list lock (its own lock released) and,
   when `order` changed, queues a wait for that op before its own. Whichever
   of two such enqueues takes the blocking stream's lock first is seen by the
   other, so the order between them is that of one sequence of calls. */
/* A blocking stream is in its device's list, which holds a reference, from
   its creation until its worker has drained it after the destroy (or, in a
   forked child without a worker, until the destroy). The list lock is taken
   with no other lock held, or after the NULL stream's (xrt__cpu_legacy_busy). */
static void xrt__cpu_blocking_link(xrt__cpu_stream *s)
{
    xrt__cpu_legacy *l = &xrt__cpu.legacy[s->device];
    __atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
    xrt__cpu_lock(&l->lock);
    s->bprev = NULL;
    s->bnext = l->blocking;
    if (s->bnext) s->bnext->bprev = s;
    l->blocking = s;
    xrt__cpu_unlock(&l->lock);
}

static void xrt__cpu_blocking_unlink(xrt__cpu_stream *s)
{
    xrt__cpu_legacy *l = &xrt__cpu.legacy[s->device];
    if (s->order != XRT__CPU_BLOCKING) return;
    xrt__cpu_lock(&l->lock);
    if (s->bprev) s->bprev->bnext = s->bnext;
    else l->blocking = s->bnext;
    if (s->bnext) s->bnext->bprev = s->bprev;
    xrt__cpu_unlock(&l->lock);
    xrt__cpu_stream_unref(s);
}

static void xrt__cpu_run_wait(xrt__cpu_op *op);
static void xrt__cpu_run_waits(xrt__cpu_op *op);

static void xrt__cpu_wait_op(xrt__cpu_op *op, xrt__cpu_stream *s, uint64_t pos)
{
    __atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
    op->run = xrt__cpu_run_wait;
    op->u.wait.stream = s;
    op->u.wait.pos = pos;
}

/* Called with blocking stream s locked: its next op follows the NULL
   stream's latest. */
static xrt_status xrt__cpu_follow_legacy(xrt__cpu_stream *s, const char *who)
{
    xrt__cpu_legacy *l = &xrt__cpu.legacy[s->device];
    xrt__cpu_stream *null = xrt__cpu.dflt[s->device];
    xrt__cpu_op *op;
    uint64_t order;
    while (XRT__UNLIKELY(__atomic_load_n(&l->lock, __ATOMIC_ACQUIRE))) {
        xrt__cpu_unlock(&s->lock); /* the NULL stream's producer takes it */
        while (__atomic_load_n(&l->lock, __ATOMIC_ACQUIRE)) sched_yield();
        xrt__cpu_lock(&s->lock);
    }
    order = __atomic_load_n(&l->order, __ATOMIC_ACQUIRE);
    if (XRT__LIKELY(order == s->legacy_seen)) return XRT_SUCCESS;
    if (!xrt__cpu_reached(&null->head, order)) {
        if (!(op = xrt__cpu_reserve(s, who))) return XRT_ERROR_OUT_OF_MEMORY;
        xrt__cpu_wait_op(op, null, order);
        xrt__cpu_publish_locked(s, op);
        xrt__cpu_wake(s); /* the caller's op may not come (xrt__cpu_leave) */
    }
    s->legacy_seen = order;
    return XRT_SUCCESS;
}

/* Ops of blocking stream b that are work: all but a destroyed one's exit. */
static uint64_t xrt__cpu_work_tail(xrt__cpu_stream *b)
{
    uint64_t end = __atomic_load_n(&b->work_end, __ATOMIC_ACQUIRE);
    return end ? end - 1 : __atomic_load_n(&b->tail, __ATOMIC_ACQUIRE);
}

/* The busy blocking streams of a device (its list lock held), each with a
   reference, and where each is: in *v (one on the caller's stack) or a new
   array; -1: no memory. */
static long xrt__cpu_legacy_busy(xrt__cpu_legacy *l, xrt__cpu_pending **v)
{
    xrt__cpu_pending *more;
    xrt__cpu_stream *b;
    size_t n = 0, cap = 1;
    for (b = l->blocking; b; b = b->bnext) {
        uint64_t pos;
        xrt__cpu_lock(&b->lock);
        pos = xrt__cpu_work_tail(b);
        xrt__cpu_unlock(&b->lock);
        if (xrt__cpu_reached(&b->head, pos)) continue;
        if (n == cap) {
            if (!(more = (xrt__cpu_pending *)XRT_MALLOC(4 * cap * sizeof *more))) break;
            memcpy(more, *v, n * sizeof *more);
            if (cap > 1) XRT_FREE(*v);
            *v = more;
            cap *= 4;
        }
        __atomic_add_fetch(&b->refs, 1, __ATOMIC_RELAXED);
        (*v)[n].s = b;
        (*v)[n++].pos = pos;
    }
    if (b == NULL) return (long)n;
    while (n) xrt__cpu_stream_unref((*v)[--n].s); /* not the last: the list holds one */
    if (cap > 1) XRT_FREE(*v);
    return -1;
}

/* Called with NULL stream s locked: queues the wait for the device's busy
   blocking streams before the caller's op (xrt__cpu_legacy_close ends it). */
static xrt_status xrt__cpu_legacy_open(xrt__cpu_stream *s, const char *who)
{
    xrt__cpu_pending one, *v = &one;
    xrt__cpu_op *op;
    long n;
    if (!xrt__cpu_make_room(s, 2, who)) return XRT_ERROR_OUT_OF_MEMORY;
    xrt__cpu_lock(&xrt__cpu.legacy[s->device].lock);
    if ((n = xrt__cpu_legacy_busy(&xrt__cpu.legacy[s->device], &v)) < 0) {
        xrt__cpu_legacy_close(s, 0);
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, who, "no memory to order the NULL stream after the blocking streams");
    }
    if (n == 0) return XRT_SUCCESS;
    op = xrt__cpu_reserve(s, who); /* there is room */
    if (n == 1) {
        xrt__cpu_wait_op(op, one.s, one.pos);
        xrt__cpu_stream_unref(one.s); /* the op holds the reference taken for it */
    } else {
        op->run = xrt__cpu_run_waits;
        op->u.waits.v = v;
        op->u.waits.n = (size_t)n;
    }
    xrt__cpu_publish_locked(s, op);
    xrt__cpu_wake(s); /* the caller's op may not come (xrt__cpu_leave) */
    return XRT_SUCCESS;
}

/* Ends an op of NULL stream s (locked): if one was published, blocking
   streams' later work follows it. */
static void xrt__cpu_legacy_close(xrt__cpu_stream *s, int published)
{
    xrt__cpu_legacy *l = &xrt__cpu.legacy[s->device];
    if (published) __atomic_store_n(&l->order, s->tail, __ATOMIC_RELEASE);
    xrt__cpu_unlock(&l->lock);
}

static void xrt__cpu_run_waits(xrt__cpu_op *op)
{
    size_t i;
    for (i = 0; i < op->u.waits.n; i++) {
        xrt__cpu_stream *b = op->u.waits.v[i].s;
        xrt__cpu_wait(&b->head, op->u.waits.v[i].pos, 1, &b->worker_cpu);
        xrt__cpu_stream_unref(b);
    }
    XRT_FREE(op->u.waits.v);
}

/* Takes s's lock for an op of the caller's, after what s's ordering puts
   before it: XRT_SUCCESS with the lock held, else an error without it. */
static xrt_status xrt__cpu_enter_slow(xrt__cpu_stream *s, const char *who)
{
    xrt_status st = XRT_SUCCESS;
    if (XRT__UNLIKELY(s->orphan)) st = xrt__cpu_adopt_locked(s);
    if (st == XRT_SUCCESS && s->order != XRT__CPU_NON_BLOCKING)
        st = s->order == XRT__CPU_BLOCKING ? xrt__cpu_follow_legacy(s, who) : xrt__cpu_legacy_open(s, who);
    if (st != XRT_SUCCESS) xrt__cpu_unlock(&s->lock);
    return st;
}

/* Takes s's lock for an op of the caller's, after what s's ordering puts
   before it: XRT_SUCCESS with the lock held, else an error without it. A
   non-blocking stream, and a blocking one that follows the NULL stream's
   latest op already, take the lock and two tests. */
static inline __attribute__((always_inline)) xrt_status xrt__cpu_enter(xrt__cpu_stream *s, const char *who)
{
    const xrt__cpu_legacy *l;
    xrt_status st;
    if (XRT__UNLIKELY(s->order == XRT__CPU_LEGACY) && (st = xrt__cpu_cap_implicit(s->device, who)) != XRT_SUCCESS)
        return st;
    xrt__cpu_lock(&s->lock);
    if (XRT__UNLIKELY(s->orphan)) return xrt__cpu_enter_slow(s, who);
    if (XRT__LIKELY(s->order == XRT__CPU_NON_BLOCKING)) return XRT_SUCCESS;
    l = &xrt__cpu.legacy[s->device];
    if (s->order == XRT__CPU_BLOCKING && XRT__LIKELY(!__atomic_load_n(&l->lock, __ATOMIC_ACQUIRE)) &&
        XRT__LIKELY(__atomic_load_n(&l->order, __ATOMIC_ACQUIRE) == s->legacy_seen))
        return XRT_SUCCESS;
    return xrt__cpu_enter_slow(s, who);
}

static int xrt__cpu_busy(xrt__cpu_stream *s);

/* No work of s's, nor any it would wait for, is queued. */
static int xrt__cpu_quiet(xrt__cpu_stream *s)
{
    xrt__cpu_legacy *l = &xrt__cpu.legacy[s->device];
    xrt__cpu_stream *b;
    int quiet = !xrt__cpu_busy(s);
    if (!quiet || s->order == XRT__CPU_NON_BLOCKING) return quiet;
    if (s->order == XRT__CPU_BLOCKING)
        return xrt__cpu_reached(&xrt__cpu.dflt[s->device]->head, __atomic_load_n(&l->order, __ATOMIC_ACQUIRE));
    xrt__cpu_lock(&l->lock);
    for (b = l->blocking; b && quiet; b = b->bnext) quiet = xrt__cpu_reached(&b->head, xrt__cpu_work_tail(b));
    xrt__cpu_unlock(&l->lock);
    return quiet;
}

/* Enqueues a copy of *op on the stream (NULL: the default stream); `who`
   names the call in an error; *pos (if pos) is the op's number + 1. On a
   capturing stream the op becomes a graph node instead. */
static xrt_status xrt__cpu_enqueue_at(void *stream, const xrt__cpu_op *op, const char *who, uint64_t *pos)
{
    xrt__cpu_stream *s = xrt__cpu_stream_of(stream);
    xrt__cpu_op *slot;
    xrt_status st;
    if (XRT__UNLIKELY(__atomic_load_n(&s->cap, __ATOMIC_ACQUIRE)) && xrt__cpu_cap_op(s, op, who, &st)) return st;
    if ((st = xrt__cpu_enter(s, who)) != XRT_SUCCESS) return st;
    if (!(slot = xrt__cpu_reserve(s, who))) {
        xrt__cpu_leave(s);
        return XRT_ERROR_OUT_OF_MEMORY;
    }
    *slot = *op;
    if (pos) *pos = s->tail + 1;
    xrt__cpu_publish(s, slot);
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_enqueue(void *stream, const xrt__cpu_op *op, const char *who)
{
    return xrt__cpu_enqueue_at(stream, op, who, NULL);
}

static void xrt__cpu_run_memcpy(xrt__cpu_op *op) { memcpy(op->u.copy.dst, op->u.copy.src, op->u.copy.size); }
static void xrt__cpu_run_memset(xrt__cpu_op *op) { memset(op->u.set.dst, op->u.set.value, op->u.set.size); }
static void xrt__cpu_dev_release(void *ptr);
static void xrt__cpu_run_free(xrt__cpu_op *op) { xrt__cpu_dev_release(op->u.release.ptr); }
/* A host function runs on its stream's device, whichever thread runs it
   (the worker, or a synchronizing thread in its place). */
static void xrt__cpu_run_host_fn(xrt__cpu_op *op)
{
    int mine = xrt__cpu_device;
    if (xrt__cpu_serving) xrt__cpu_device = xrt__cpu_serving->device;
    (xrt__cpu_lent ? xrt__host_fn_lend : xrt__host_fn_run)(xrt__cpu.self, op->u.host.fn, op->u.host.user);
    xrt__cpu_device = mine;
}

/* >> cpu: the pool */
/* One pool of helper threads for every operation that is worth running on
   several cores: xrt__cpu_pool_run(fn, ctx, n) runs fn(ctx, i, n) for each
   part i < n on the calling thread and on idle helpers, and returns when all
   n are done. A split copy uses it; a kernel launch runs its blocks through
   the same entry. One operation holds the pool at a time: a caller that
   finds it taken runs its parts alone (its helpers are not idle).

   `job` is the operation in one word: generation (32 bits), parts (16), next
   part to take (16). A helper takes a part with one compare-and-swap on it,
   so a helper that wakes late for an operation that is over cannot take a
   part of the next one under the old operation's fn. */
typedef void (*xrt__cpu_part_fn)(void *ctx, size_t part, size_t nparts);

#define XRT__CPU_PARTS_MAX 0xffffu

static pthread_mutex_t xrt__cpu_pool_start = PTHREAD_MUTEX_INITIALIZER; /* starts and stops helpers */
static struct {
    int lock;            /* held by the operation in the pool */
    int ready;           /* helpers started (as many as could be: usable cores - 1) */
    int started;         /* helpers running */
    int stop;
    pthread_t *threads;
    xrt__cpu_part_fn fn; /* of the operation in the pool */
    void *ctx;
    uint64_t job __attribute__((aligned(64)));
    uint32_t bell;       /* helpers sleep on it; rung with every operation and at stop */
    uint32_t sleeping;   /* helpers asleep or about to be */
    unsigned spin;       /* helpers' spin budget for the next operation */
    int owner_cpu;       /* where the operation's caller was when it posted it */
    xrt__cpu_counter entered; /* helpers that have reached xrt__cpu_helper (a fork waits for them) */
    xrt__cpu_counter done __attribute__((aligned(64))); /* parts finished, over all operations */
} xrt__cpu_pool;

static size_t xrt__cpu_split_bytes = 16u << 20; /* XRT_CPU_SPLIT_BYTES; bench/RESULTS.md says why */
static unsigned long long xrt__cpu_threads;      /* XRT_CPU_THREADS; 0: every usable core */
static int xrt__cpu_populate; /* XRT_CPU_POPULATE: device allocations come with their pages */

static int xrt__cpu_pool_take(size_t *part, size_t *nparts)
{
    uint64_t j = __atomic_load_n(&xrt__cpu_pool.job, __ATOMIC_ACQUIRE);
    for (;;) {
        size_t n = (size_t)(j >> 16) & XRT__CPU_PARTS_MAX, i = (size_t)j & XRT__CPU_PARTS_MAX;
        if (i >= n) return 0;
        if (__atomic_compare_exchange_n(&xrt__cpu_pool.job, &j, j + 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            *part = i;
            *nparts = n;
            return 1;
        }
    }
}

/* Runs every part the caller can take; fn and ctx are the operation's: it
   cannot end (nor another begin) before the part taken is done. Returns the
   nanoseconds a part took here (0: it took none). */
static uint64_t xrt__cpu_pool_work(void)
{
    size_t i, n, parts = 0;
    uint64_t t0 = 0;
    while (xrt__cpu_pool_take(&i, &n)) {
        if (!parts++) t0 = xrt__cpu_now_ns();
        xrt__cpu_pool.fn(xrt__cpu_pool.ctx, i, n);
        xrt__cpu_counter_add(&xrt__cpu_pool.done, 1);
    }
    return parts ? (xrt__cpu_now_ns() - t0) / parts : 0;
}

/* A helper woken while the other cores were busy for a moment (a stream
   worker waking to find its queue taken) may be put on the core of the
   thread that posted the operation, and share it, at half speed each, until
   the scheduler's balancing moves it: at its next tick or later,
   milliseconds. A helper that finds itself there moves off. */
static void xrt__cpu_helper_spread(void)
{
    uint64_t j = __atomic_load_n(&xrt__cpu_pool.job, __ATOMIC_ACQUIRE);
    int here = sched_getcpu();
    if ((j & XRT__CPU_PARTS_MAX) >= ((j >> 16) & XRT__CPU_PARTS_MAX)) return; /* no part left to take */
    if (here >= 0 && here == __atomic_load_n(&xrt__cpu_pool.owner_cpu, __ATOMIC_RELAXED)) xrt__cpu_hop(here, 0);
}

static void *xrt__cpu_helper(void *arg)
{
    (void)arg;
    xrt__cpu_unplace_thread();
    xrt__cpu_counter_add(&xrt__cpu_pool.entered, 1);
    for (;;) {
        uint32_t bell = __atomic_load_n(&xrt__cpu_pool.bell, __ATOMIC_SEQ_CST);
        uint64_t next = ((__atomic_load_n(&xrt__cpu_pool.job, __ATOMIC_SEQ_CST) >> 32) + 1) << 32;
        if (__atomic_load_n(&xrt__cpu_pool.stop, __ATOMIC_SEQ_CST)) break;
        xrt__cpu_helper_spread();
        if (xrt__cpu_linger(&xrt__cpu_pool.job, &xrt__cpu_pool.job, next, xrt__cpu_pool_work()) ||
            xrt__cpu_spin(&xrt__cpu_pool.spin, &xrt__cpu_pool.job, &xrt__cpu_pool.job, next, NULL))
            continue;
        __atomic_add_fetch(&xrt__cpu_pool.sleeping, 1, __ATOMIC_SEQ_CST);
        xrt__cpu_futex(&xrt__cpu_pool.bell, FUTEX_WAIT_PRIVATE, bell); /* returns at once if rung since */
        __atomic_sub_fetch(&xrt__cpu_pool.sleeping, 1, __ATOMIC_SEQ_CST);
    }
    return NULL;
}

/* Usable cores (the affinity mask: `taskset -c 0` gives 1; the process's
   at init where devices are placed, not a pinned worker's), capped by XRT_CPU_THREADS. */
static int xrt__cpu_cores(void)
{
    cpu_set_t set;
    long n = xrt__cpu.numa && CPU_COUNT(&xrt__cpu.unplaced) > 0   ? CPU_COUNT(&xrt__cpu.unplaced)
             : sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                           : sysconf(_SC_NPROCESSORS_ONLN);
    if (xrt__cpu_threads >= 1 && xrt__cpu_threads < (unsigned long long)n) n = (long)xrt__cpu_threads;
    return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

/* Threads an operation can use now (the caller and the helpers); starts the
   helpers the first time. A helper that cannot start is done without. */
static size_t xrt__cpu_pool_width(void)
{
    int i;
    if (XRT__LIKELY(__atomic_load_n(&xrt__cpu_pool.ready, __ATOMIC_ACQUIRE)))
        return (size_t)xrt__cpu_pool.started + 1;
    pthread_mutex_lock(&xrt__cpu_pool_start);
    if (!xrt__cpu_pool.ready) {
        int want = xrt__cpu_cores() - 1;
        xrt__cpu_pool.threads = want ? (pthread_t *)XRT_MALLOC((size_t)want * sizeof(pthread_t)) : NULL;
        if (!xrt__cpu_pool.threads) want = 0;
        xrt__cpu_pool.spin = XRT__CPU_SPIN_MAX / 4;
        xrt__cpu_counter_init(&xrt__cpu_pool.entered, 0);
        for (i = 0; i < want; i++) {
            if (pthread_create(&xrt__cpu_pool.threads[i], NULL, xrt__cpu_helper, NULL) != 0) break;
            xrt__cpu_pool.started++;
        }
        __atomic_store_n(&xrt__cpu_pool.ready, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&xrt__cpu_pool_start);
    return (size_t)xrt__cpu_pool.started + 1;
}

static void xrt__cpu_pool_run(xrt__cpu_part_fn fn, void *ctx, size_t nparts)
{
    size_t i;
    uint64_t gen, target;
    if (nparts > XRT__CPU_PARTS_MAX) nparts = XRT__CPU_PARTS_MAX; /* callers size parts to the pool */
    if (nparts < 2 || __atomic_exchange_n(&xrt__cpu_pool.lock, 1, __ATOMIC_ACQUIRE)) {
        for (i = 0; i < nparts; i++) fn(ctx, i, nparts);
        return;
    }
    xrt__cpu_pool.fn = fn;
    __atomic_store_n(&xrt__cpu_pool.ctx, ctx, __ATOMIC_RELAXED); /* published by the job's store */
    target = __atomic_load_n(&xrt__cpu_pool.done.value, __ATOMIC_ACQUIRE) + nparts;
    gen = (__atomic_load_n(&xrt__cpu_pool.job, __ATOMIC_RELAXED) >> 32) + 1;
    __atomic_store_n(&xrt__cpu_pool.owner_cpu, sched_getcpu(), __ATOMIC_RELAXED);
    __atomic_store_n(&xrt__cpu_pool.job, gen << 32 | (uint64_t)nparts << 16, __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&xrt__cpu_pool.bell, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&xrt__cpu_pool.sleeping, __ATOMIC_SEQ_CST))
        syscall(SYS_futex, &xrt__cpu_pool.bell, FUTEX_WAKE_PRIVATE, (int)(nparts - 1), NULL, NULL, 0);
    if (!xrt__cpu_linger(&xrt__cpu_pool.done.value, &xrt__cpu_pool.done.value, target, xrt__cpu_pool_work()))
        xrt__cpu_wait(&xrt__cpu_pool.done, target, 1, NULL); /* the parts helpers took are running */
    __atomic_store_n(&xrt__cpu_pool.ctx, NULL, __ATOMIC_RELAXED); /* ctx is in the pool no more */
    __atomic_store_n(&xrt__cpu_pool.lock, 0, __ATOMIC_RELEASE);
}

/* Stops the helpers (at shutdown, once the streams are drained). */
static void xrt__cpu_pool_stop(void)
{
    int i;
    pthread_mutex_lock(&xrt__cpu_pool_start);
    __atomic_store_n(&xrt__cpu_pool.stop, 1, __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&xrt__cpu_pool.bell, 1, __ATOMIC_SEQ_CST);
    syscall(SYS_futex, &xrt__cpu_pool.bell, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
    for (i = 0; i < xrt__cpu_pool.started; i++) pthread_join(xrt__cpu_pool.threads[i], NULL);
    XRT_FREE(xrt__cpu_pool.threads);
    xrt__cpu_pool.threads = NULL;
    xrt__cpu_pool.started = 0;
    xrt__cpu_counter_init(&xrt__cpu_pool.entered, 0);
    xrt__cpu_pool.stop = 0;
    __atomic_store_n(&xrt__cpu_pool.ready, 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&xrt__cpu_pool_start);
}

/* A split copy or memset: parts of whole pages, one per thread. */
typedef struct xrt__cpu_split {
    unsigned char *dst;
    const unsigned char *src; /* NULL: a memset of `value` */
    size_t size, chunk;
    int value;
} xrt__cpu_split;

static void xrt__cpu_split_part(void *ctx, size_t part, size_t nparts)
{
    const xrt__cpu_split *sp = (const xrt__cpu_split *)ctx;
    size_t off = part * sp->chunk, len;
    if (off >= sp->size) return;
    (void)nparts;
    len = sp->size - off < sp->chunk ? sp->size - off : sp->chunk;
    if (sp->src) memcpy(sp->dst + off, sp->src + off, len);
    else memset(sp->dst + off, sp->value, len);
}

/* Four parts per thread, of 1 MiB at least: a helper that is slow to come
   (asleep, or its core taken by another process) takes fewer parts, and the
   threads that run do the rest, instead of everyone waiting for its half. */
static void xrt__cpu_split_run(xrt__cpu_split *sp)
{
    size_t n = xrt__cpu_pool_width(), chunk;
    if (n > 1) {
        chunk = (sp->size + 4 * n - 1) / (4 * n);
        if (chunk < ((size_t)1 << 20)) chunk = (size_t)1 << 20;
        if (chunk < sp->size / XRT__CPU_PARTS_MAX + 1) chunk = sp->size / XRT__CPU_PARTS_MAX + 1;
        sp->chunk = (chunk + 4095) & ~(size_t)4095;
        xrt__cpu_pool_run(xrt__cpu_split_part, sp, (sp->size + sp->chunk - 1) / sp->chunk);
    } else {
        sp->chunk = sp->size;
        xrt__cpu_split_part(sp, 0, 1);
    }
}

static void xrt__cpu_run_memcpy_split(xrt__cpu_op *op)
{
    xrt__cpu_split sp;
    sp.dst = (unsigned char *)op->u.copy.dst;
    sp.src = (const unsigned char *)op->u.copy.src;
    sp.size = op->u.copy.size;
    sp.value = 0;
    xrt__cpu_split_run(&sp);
}

static void xrt__cpu_run_memset_split(xrt__cpu_op *op)
{
    xrt__cpu_split sp;
    sp.dst = (unsigned char *)op->u.set.dst;
    sp.src = NULL;
    sp.size = op->u.set.size;
    sp.value = op->u.set.value;
    xrt__cpu_split_run(&sp);
}

/* >> cpu: pitched memory. A 2-D or 3-D copy or memset is a box that the op
   points to (op.u.host.user): the stream's slot has no room for it. An
   enqueued one is the op's own (freed when done); a synchronous one is the
   caller's. Captured, its geometry moves into the node (">> cpu: graphs").
   A rectangle is a box of one slice. */
typedef struct xrt__cpu_rect {
    unsigned char *dst;
    const unsigned char *src; /* NULL: a memset of `value`, elements of esize bytes */
    size_t dpitch, spitch, width, height; /* width in bytes for a copy, in elements for a memset */
    size_t depth, dslice, sslice;         /* slices, and their distance on each side */
    unsigned value, esize;
    int heap; /* freed by its run */
    xrt_memcpy_kind kind; /* a copy's, as given (a captured node keeps it) */
} xrt__cpu_rect;

/* Rows from .. to of the box's height x depth, slice by slice. */
static void xrt__cpu_rect_rows(const xrt__cpu_rect *r, size_t from, size_t to)
{
    size_t i, k, y = from % r->height, z = from / r->height;
    for (i = from; i < to; i++) {
        unsigned char *d = r->dst + z * r->dslice + y * r->dpitch;
        if (r->src) memcpy(d, r->src + z * r->sslice + y * r->spitch, r->width);
        else if (r->esize == 1) memset(d, (int)r->value, r->width);
        else if (r->esize == 2) for (k = 0; k < r->width; k++) ((uint16_t *)(void *)d)[k] = (uint16_t)r->value;
        else for (k = 0; k < r->width; k++) ((uint32_t *)(void *)d)[k] = r->value;
        if (++y == r->height) {
            y = 0;
            z++;
        }
    }
}

static void xrt__cpu_rect_part(void *ctx, size_t part, size_t nparts)
{
    const xrt__cpu_rect *r = (const xrt__cpu_rect *)ctx;
    size_t rows = r->height * r->depth;
    xrt__cpu_rect_rows(r, rows * part / nparts, rows * (part + 1) / nparts);
}

/* A box of xrt__cpu_split_bytes or more is split by rows over the pool,
   four parts per thread, as xrt__cpu_split_run splits a copy. */
static void xrt__cpu_rect_run(const xrt__cpu_rect *r)
{
    size_t n = xrt__cpu_pool_width(), bytes = r->width * (r->src ? 1 : r->esize), rows = r->height * r->depth;
    if (n > 1 && rows > 1 && bytes * rows >= xrt__cpu_split_bytes) {
        n *= 4;
        if (n > rows) n = rows;
        if (n > XRT__CPU_PARTS_MAX) n = XRT__CPU_PARTS_MAX;
        xrt__cpu_pool_run(xrt__cpu_rect_part, (void *)(uintptr_t)r, n);
    } else {
        xrt__cpu_rect_rows(r, 0, rows);
    }
}

static void xrt__cpu_run_rect(xrt__cpu_op *op)
{
    xrt__cpu_rect *r = (xrt__cpu_rect *)op->u.host.user;
    xrt__cpu_rect_run(r);
    if (r->heap) XRT_FREE(r);
}

/* >> cpu: waiting threads run the work */
static void xrt__cpu_run_record(xrt__cpu_op *op);
static void xrt__cpu_run_mpool_free(xrt__cpu_op *op);
static void xrt__cpu_mpools_trim(void);

/* Ops a waiting thread may run in the worker's place: all but a
   cross-stream wait, which stays on the worker (a waiting thread would only
   wait there). A host function run so keeps its rules (xrt__cpu_help). */
static int xrt__cpu_anyone_runs(xrt__cpu_run_fn run)
{
    return run == xrt__cpu_run_memcpy || run == xrt__cpu_run_memset || run == xrt__cpu_run_memcpy_split ||
           run == xrt__cpu_run_memset_split || run == xrt__cpu_run_rect || run == xrt__cpu_run_record ||
           run == xrt__cpu_run_free || run == xrt__cpu_run_mpool_free ||
           run == xrt__cpu_run_kernel || run == xrt__cpu_run_host_fn || run == xrt__cpu_run_graph;
}

/* Runs s's ops below target on the calling thread, which holds `exec`,
   until one must be the worker's. While it does, the thread serves s: a
   host function's enqueue onto s never waits for room (only this thread
   could make it), and the function's failures do not become the thread's
   last error (xrt__host_fn_lend). */
static void xrt__cpu_help(xrt__cpu_stream *s, uint64_t target)
{
    uint64_t h = __atomic_load_n(&s->head.value, __ATOMIC_ACQUIRE);
    xrt__cpu_stream *was = xrt__cpu_serving; /* a worker waiting for room on another stream */
    int lent = xrt__cpu_lent;
    xrt__cpu_serving = s; /* a host function's enqueues onto s must not wait for this thread */
    xrt__cpu_lent = 1;
    for (; h < target; h++) {
        xrt__cpu_slot *slot = xrt__cpu_slot_of(s, h);
        if (!slot || !xrt__cpu_anyone_runs(slot->op.run)) break;
        xrt__cpu_run_op(s, slot, h);
    }
    xrt__cpu_serving = was;
    xrt__cpu_lent = lent;
}

/* The op at h is a kernel launch that the worker runs over the pool: the
   waiting thread, already on a core, takes its blocks too, as a helper does,
   until the launch is done (or a spin's worth of waiting for it to start):
   a helper woken for it may have had to share the worker's core. 1 if the
   op at h is a launch. The slot is read under the producers' lock: the
   worker holds `exec`, so op h may complete meanwhile, and its slot be
   written again (or the ring grown by a host function) by others; that
   lock only where op h is a launch over the pool that has begun (launch_at),
   to keep it off a synchronize's way. */
static int xrt__cpu_help_launch(xrt__cpu_stream *s, uint64_t h)
{
    const xrt__cpu_slot *slot;
    void *l = NULL;
    unsigned i;
    xrt__cpu_lock(&s->lock);
    if ((slot = xrt__cpu_slot_of(s, h)) != NULL && slot->op.run == xrt__cpu_run_kernel) l = slot->op.u.host.user;
    xrt__cpu_unlock(&s->lock);
    if (!l) return 0; /* a slot written again holds a later op: head is past h, the loop below ends at once */
    /* Until the launch is in the pool, then every part left; never spin
       after that: the threads running the parts need the cores. */
    for (i = 0; i < XRT__CPU_SPIN_MAX && !xrt__cpu_reached(&s->head, h + 1); i++) {
        int posted = __atomic_load_n(&xrt__cpu_pool.ctx, __ATOMIC_ACQUIRE) == l;
        xrt__cpu_pool_work();
        if (posted) break;
        xrt__cpu_pause();
    }
    return 1;
}

/* Runs s's ops below target on the calling thread if `exec` is free (the
   worker asleep, or woken but not yet on a core: under load that is a
   scheduling delay per hand-off) or handed over; 1 if it did. */
static int xrt__cpu_exec_run(xrt__cpu_stream *s, uint64_t target)
{
    uint32_t v = __atomic_load_n(&s->exec, __ATOMIC_RELAXED);
    if (s->pinned || (v != XRT__CPU_FREE && v != XRT__CPU_HANDED) ||
        !__atomic_compare_exchange_n(&s->exec, &v, v == XRT__CPU_FREE ? XRT__CPU_WAITER : XRT__CPU_WAITER_WANTED, 0,
                                     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return 0;
    xrt__cpu_help(s, target);
    if (__atomic_exchange_n(&s->exec, XRT__CPU_FREE, __ATOMIC_RELEASE) == XRT__CPU_WAITER_WANTED)
        xrt__cpu_futex(&s->exec, FUTEX_WAKE_PRIVATE, INT_MAX);
    return 1;
}

/* Asks the worker, which holds `exec`, for the ops after the one it runs,
   when at least one is queued and the calling thread may run it; waits
   (spinning a while: the op may be short) until the worker lets go, and
   returns 0 then: the caller must take the queue at once (and give it
   back), even where the op the worker just finished was the last one it
   waited for, or the worker waits for a taker for ever and a wait that
   does not take queues (xrt_device_synchronize) hangs. Else returns the op
   to sleep until: target where no op after h may be taken, h + 1 where the
   worker does not hold `exec` (it is waking for op h, which must be its
   own: ask again once that is done). */
static uint64_t xrt__cpu_take_over(xrt__cpu_stream *s, uint64_t target)
{
    uint32_t v = XRT__CPU_WORKER;
    uint64_t h;
    unsigned i;
    int runs;
    xrt__cpu_lock(&s->lock); /* no producer writes slot h + 1 meanwhile */
    h = __atomic_load_n(&s->head.value, __ATOMIC_ACQUIRE);
    runs = h + 1 < target && xrt__cpu_anyone_runs(xrt__cpu_slot_of(s, h + 1)->op.run);
    xrt__cpu_unlock(&s->lock);
    if (!runs) return target;
    if (!__atomic_compare_exchange_n(&s->exec, &v, XRT__CPU_HANDOVER, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED) &&
        v != XRT__CPU_HANDOVER)
        return h + 1;
    /* spin only where the worker runs on another core: it needs this one otherwise */
    for (i = 1; i <= XRT__CPU_SPIN_MAX && __atomic_load_n(&s->worker_cpu, __ATOMIC_RELAXED) != sched_getcpu() &&
                __atomic_load_n(&s->exec, __ATOMIC_ACQUIRE) == XRT__CPU_HANDOVER;
         i++)
        xrt__cpu_pause();
    while (__atomic_load_n(&s->exec, __ATOMIC_ACQUIRE) == XRT__CPU_HANDOVER)
        xrt__cpu_futex(&s->exec, FUTEX_WAIT_PRIVATE, XRT__CPU_HANDOVER);
    return 0;
}

/* Waits until s has completed its ops below target, running them itself
   where it can: while the worker sleeps (xrt__cpu_exec_run), and, after a
   spin as long as a hand-off takes, instead of sleeping: the worker hands
   the queue over after its current op (xrt__cpu_take_over). A synchronize
   behind queued copies then costs what the copies cost on the calling
   thread, whose caches hold their data, and the waiting thread wakes no
   sleeping worker and is not woken. Only where `take`: not for a producer
   waiting for room, which would run the ops in the worker's place and
   enqueue none meanwhile. A cross-stream wait stays the worker's: the
   thread waits for it, helping with a launch on the way.
   It reads head only once a spin on the express slot's `done` fails:
   head's line is the worker's, written with every op. */
static void xrt__cpu_wait_done(xrt__cpu_stream *s, uint64_t target, int take)
{
    const uint64_t *word = &s->express.done;
    unsigned sched = xrt__cpu_stream_sched(s);
    if (XRT__UNLIKELY(sched)) { /* the device's schedule: its worker runs the ops, the thread waits as told */
        xrt__cpu_wait_as(&s->head, target, sched);
        return;
    }
    take = take && !s->pinned; /* a placed device's ops run on its node: its worker's */
    for (;;) {
        uint64_t h;
        if (__atomic_load_n(word, __ATOMIC_ACQUIRE) >= target) return;
        if (xrt__cpu_exec_run(s, target) && xrt__cpu_reached(&s->head, target)) return;
        h = __atomic_load_n(&s->launch_at, __ATOMIC_ACQUIRE);
        if (h != 0 && h <= target && xrt__cpu_help_launch(s, h - 1)) {
            xrt__cpu_wait(&s->head, h, 1, &s->worker_cpu);
        } else if (!take) {
            xrt__cpu_wait(&s->head, target, 1, &s->worker_cpu);
            return;
        } else if (xrt__cpu_spin(&s->wait_spin, word, word, target, &s->worker_cpu) ||
                   xrt__cpu_reached(&s->head, target)) {
            return;
        } else if ((h = xrt__cpu_take_over(s, target)) != 0) {
            xrt__cpu_wait(&s->head, h, 0, NULL);
        } else {
            xrt__cpu_exec_run(s, target); /* handed over: see xrt__cpu_take_over */
        }
        if (xrt__cpu_reached(&s->head, target)) return;
    }
}

/* xrt__cpu_wait_done; where `take`, it then leaves a note that ops below
   target are done: an op enqueued next goes to the express slot. */
static void xrt__cpu_drain(xrt__cpu_stream *s, uint64_t target, int take)
{
    xrt__cpu_wait_done(s, target, take);
    if (take && __atomic_load_n(&s->empty_at, __ATOMIC_RELAXED) != target)
        __atomic_store_n(&s->empty_at, target, __ATOMIC_RELEASE); /* what the runner read of the ops happened before */
}

/* >> cpu: streams */
static xrt_status xrt__cpu_start_worker_locked(xrt__cpu_stream *s)
{
    int rc;
    __atomic_store_n(&s->worker_cpu, sched_getcpu(), __ATOMIC_RELAXED); /* a new thread starts beside its creator */
    rc = pthread_create(&s->thread, NULL, xrt__cpu_worker, s);
    if (rc != 0) return xrt_native_error(XRT_ERROR_SYSTEM, "cpu", "pthread_create", rc, "errno", strerror(rc));
    xrt__cpu.started++;
    return XRT_SUCCESS;
}

/* order: XRT__CPU_LEGACY for a device's NULL stream, else from flags. */
static xrt_status xrt__cpu_stream_new(xrt__cpu_stream **out, int device, int order, unsigned flags)
{
    xrt__cpu_stream *s = (xrt__cpu_stream *)XRT_ALIGNED_ALLOC(64, sizeof *s);
    xrt__cpu_slot *ring = (xrt__cpu_slot *)XRT_ALIGNED_ALLOC(64, XRT__CPU_RING * sizeof *ring);
    xrt_status st;
    if (!s || !ring) {
        XRT_FREE(s);
        XRT_FREE(ring);
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "cpu: xrt_stream_create", "no memory for a stream");
    }
    xrt__cpu_reap(); /* streams destroyed earlier: join their workers */
    memset(s, 0, sizeof *s);
    s->producer_cpu = s->worker_cpu = -1;
    s->domain_map[1] = 1; /* CUDA's default map: remote work in domain 1 */
    s->device = device;
    s->order = order;
    s->flags = flags;
    s->pinned = xrt__cpu.numa && CPU_COUNT(&xrt__cpu.cpus[device]) > 0;
    memset(ring, 0, XRT__CPU_RING * sizeof *ring);
    s->ring = ring;
    s->mask = XRT__CPU_RING - 1;
    s->wait_spin = XRT__CPU_SPIN_MAX / 4;
    xrt__cpu_counter_init(&s->head, 0);
    s->refs = 2;
    pthread_mutex_lock(&xrt__cpu_list_lock);
    st = xrt__cpu_start_worker_locked(s);
    if (st == XRT_SUCCESS) {
        s->next = &xrt__cpu.list;
        s->prev = xrt__cpu.list.prev;
        s->prev->next = s;
        xrt__cpu.list.prev = s;
    }
    pthread_mutex_unlock(&xrt__cpu_list_lock);
    if (st != XRT_SUCCESS) {
        XRT_FREE(ring);
        XRT_FREE(s);
        return st;
    }
    if (order == XRT__CPU_BLOCKING) xrt__cpu_blocking_link(s);
    *out = s;
    return XRT_SUCCESS;
}

static void xrt__cpu_release_dropped(xrt__cpu_stream *s);

/* A stream copied into a forked child has no worker: the first op after
   the fork releases what the parent's queued ops held (their slots are about
   to be reused) and starts one. Called with the stream's lock held. */
static xrt_status xrt__cpu_adopt_locked(xrt__cpu_stream *s)
{
    xrt_status st;
    xrt__cpu_release_dropped(s);
    pthread_mutex_lock(&xrt__cpu_list_lock);
    st = s->orphan ? xrt__cpu_start_worker_locked(s) : XRT_SUCCESS;
    if (st == XRT_SUCCESS) s->orphan = 0;
    pthread_mutex_unlock(&xrt__cpu_list_lock);
    return st;
}

/* The calling thread's per-thread stream of each device
   (XRT_STREAM_PER_THREAD): a blocking stream made on first use and closed
   when the thread exits (a key's destructor) or by xrt_shutdown, whichever
   comes first. Under xrt__cpu_own_lock, the closer takes `owned` and
   empties the owner's slot, so the owner's destructor never meets a stream
   that xrt_shutdown closed (and its worker may have freed). A spin lock of
   its own, not the list lock: a worker that owns a per-thread stream (a
   host function asked for one) runs this destructor after it has exited,
   while a thread may be joining it under the list lock. `epoch` tells the
   thread's streams from those of an earlier initialisation. */
static XRT__TLS xrt__cpu_stream *xrt__cpu_own[XRT__CPU_DEVICES_MAX];
static XRT__TLS unsigned xrt__cpu_own_epoch;
static pthread_key_t xrt__cpu_own_key;
static pthread_once_t xrt__cpu_own_once = PTHREAD_ONCE_INIT;
static int xrt__cpu_own_lock; /* taken after the list lock, if both */

static xrt_status xrt__cpu_stream_close(xrt__cpu_stream *s);
static xrt_status xrt__cpu_stream_end(xrt__cpu_stream *s);

/* 1 if s was still owned: the caller closes it. Under xrt__cpu_own_lock. */
static int xrt__cpu_own_take_locked(xrt__cpu_stream *s)
{
    if (!s || !s->owned) return 0;
    s->owned = 0;
    if (s->own_slot) __atomic_store_n(s->own_slot, NULL, __ATOMIC_RELAXED);
    return 1;
}

static void xrt__cpu_own_release(void *unused)
{
    xrt__cpu_stream *taken[XRT__CPU_DEVICES_MAX];
    int d;
    (void)unused;
    if (xrt__cpu_own_epoch != __atomic_load_n(&xrt__cpu.epoch, __ATOMIC_ACQUIRE)) return; /* xrt_shutdown closed them */
    xrt__cpu_lock(&xrt__cpu_own_lock);
    for (d = 0; d < XRT__CPU_DEVICES_MAX; d++) {
        xrt__cpu_stream *s = __atomic_load_n(&xrt__cpu_own[d], __ATOMIC_RELAXED);
        taken[d] = xrt__cpu_own_take_locked(s) ? s : NULL;
    }
    xrt__cpu_unlock(&xrt__cpu_own_lock);
    for (d = 0; d < XRT__CPU_DEVICES_MAX; d++)
        if (taken[d]) xrt__cpu_stream_end(taken[d]); /* a capture it was in is left, or over */
}

static void xrt__cpu_own_key_make(void) { pthread_key_create(&xrt__cpu_own_key, xrt__cpu_own_release); }

static xrt_status xrt__cpu_stream_per_thread(const xrt_backend *self, void **stream)
{
    int d = xrt__cpu_current();
    unsigned epoch = __atomic_load_n(&xrt__cpu.epoch, __ATOMIC_ACQUIRE);
    xrt__cpu_stream *s;
    xrt_status st;
    (void)self;
    if (XRT__UNLIKELY(xrt__cpu_own_epoch != epoch)) {
        memset(xrt__cpu_own, 0, sizeof xrt__cpu_own);
        xrt__cpu_own_epoch = epoch;
    }
    if (XRT__LIKELY((s = __atomic_load_n(&xrt__cpu_own[d], __ATOMIC_RELAXED)) != NULL)) {
        *stream = s;
        return XRT_SUCCESS;
    }
    pthread_once(&xrt__cpu_own_once, xrt__cpu_own_key_make);
    if ((st = xrt__cpu_stream_new(&s, d, XRT__CPU_BLOCKING, XRT_STREAM_DEFAULT)) != XRT_SUCCESS) return st;
    xrt__cpu_lock(&xrt__cpu_own_lock);
    s->owned = 1;
    s->own_slot = &xrt__cpu_own[d];
    __atomic_store_n(&xrt__cpu_own[d], s, __ATOMIC_RELAXED);
    xrt__cpu_unlock(&xrt__cpu_own_lock);
    pthread_setspecific(xrt__cpu_own_key, xrt__cpu_own); /* any non-NULL value: the destructor runs */
    *stream = s;
    return XRT_SUCCESS;
}

/* xrt_shutdown: the per-thread streams that threads still hold. */
static void xrt__cpu_own_close_all(void)
{
    xrt__cpu_stream *s, *found;
    do {
        found = NULL;
        pthread_mutex_lock(&xrt__cpu_list_lock);
        xrt__cpu_lock(&xrt__cpu_own_lock);
        for (s = xrt__cpu.list.next; s != &xrt__cpu.list && !found; s = s->next)
            if (xrt__cpu_own_take_locked(s)) found = s;
        xrt__cpu_unlock(&xrt__cpu_own_lock);
        pthread_mutex_unlock(&xrt__cpu_list_lock);
        if (found) xrt__cpu_stream_end(found); /* its reference is the owner's, taken; a capture it was in is left, or over */
    } while (found);
}

/* >> cpu: stream priorities, CUDA's range [0, -5] (a lower number is a
   higher priority; one out of range is clamped, as CUDA clamps). While a
   stream of a device runs an op, a stream of lower priority of that device
   that is about to run one lets the cores go first: it sleeps in short
   steps while higher work runs, for at most XRT__CPU_DEFER_NS per op, so
   that work a higher stream waits for still runs. Costs nothing until a
   stream of priority other than 0 is made (one load per op after). */
static xrt_status xrt__cpu_stream_create_with_priority(const xrt_backend *self, void **stream, unsigned flags,
                                                       int priority)
{
    xrt_status st;
    int level = xrt__cpu_prio_level(priority);
    (void)self;
    st = xrt__cpu_stream_new((xrt__cpu_stream **)stream, xrt__cpu_current(),
                             (flags & XRT_STREAM_NON_BLOCKING) ? XRT__CPU_NON_BLOCKING : XRT__CPU_BLOCKING, flags);
    if (st == XRT_SUCCESS && level) {
        ((xrt__cpu_stream *)*stream)->level = level; /* before its first op: the worker reads it */
        __atomic_store_n(&xrt__cpu_prio_used, 1, __ATOMIC_RELEASE);
    }
    return st;
}

static xrt_status xrt__cpu_stream_create(const xrt_backend *self, void **stream)
{
    return xrt__cpu_stream_create_with_priority(self, stream, XRT_STREAM_DEFAULT, 0);
}

static xrt_status xrt__cpu_stream_get_flags(const xrt_backend *self, void *stream, unsigned *flags)
{
    (void)self;
    *flags = xrt__cpu_stream_of(stream)->flags;
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_stream_get_priority(const xrt_backend *self, void *stream, int *priority)
{
    (void)self;
    *priority = -__atomic_load_n(&xrt__cpu_stream_of(stream)->level, __ATOMIC_RELAXED);
    return XRT_SUCCESS;
}

/* >> cpu: stream attributes. A priority is the stream's level from its
   next op on; a synchronization policy is how its synchronize waits (the
   device's schedules: xrt__cpu_wait_as); an access policy window, a memory
   synchronisation domain and its map are kept and answered, and change
   nothing: a CPU's caches take no such hint, and its memory operations
   have no domains. */
static const unsigned xrt__cpu_sched_of_policy[5] = {0, 0, XRT_DEVICE_SCHEDULE_SPIN, XRT_DEVICE_SCHEDULE_YIELD,
                                                     XRT_DEVICE_SCHEDULE_BLOCKING_SYNC};

static xrt_status xrt__cpu_stream_get_device(const xrt_backend *self, void *stream, int *device)
{
    (void)self;
    *device = xrt__cpu_stream_of(stream)->device;
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_stream_set_attribute(const xrt_backend *self, void *stream, int attr,
                                                const xrt_stream_attr_value *value)
{
    xrt__cpu_stream *s = xrt__cpu_stream_of(stream);
    int level = xrt__cpu_prio_level(value->priority);
    (void)self;
    if (attr == XRT_STREAM_ATTR_PRIORITY) {
        if (level) __atomic_store_n(&xrt__cpu_prio_used, 1, __ATOMIC_RELEASE);
        __atomic_store_n(&s->level, level, __ATOMIC_RELAXED);
    } else if (attr == XRT_STREAM_ATTR_SYNCHRONIZATION_POLICY) {
        __atomic_store_n(&s->sched, xrt__cpu_sched_of_policy[value->sync_policy], __ATOMIC_RELAXED);
    } else {
        xrt__cpu_lock(&s->lock);
        if (attr == XRT_STREAM_ATTR_ACCESS_POLICY_WINDOW) s->window = value->access_policy_window;
        else if (attr == XRT_STREAM_ATTR_MEM_SYNC_DOMAIN) s->domain = value->mem_sync_domain;
        else s->domain_map[0] = value->mem_sync_domain_map.default_, s->domain_map[1] = value->mem_sync_domain_map.remote;
        xrt__cpu_unlock(&s->lock);
    }
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_stream_get_attribute(const xrt_backend *self, void *stream, int attr,
                                                xrt_stream_attr_value *value)
{
    xrt__cpu_stream *s = xrt__cpu_stream_of(stream);
    unsigned sched = __atomic_load_n(&s->sched, __ATOMIC_RELAXED);
    (void)self;
    if (attr == XRT_STREAM_ATTR_PRIORITY) {
        value->priority = -__atomic_load_n(&s->level, __ATOMIC_RELAXED);
    } else if (attr == XRT_STREAM_ATTR_SYNCHRONIZATION_POLICY) {
        value->sync_policy = sched == XRT_DEVICE_SCHEDULE_SPIN            ? XRT_SYNC_POLICY_SPIN
                             : sched == XRT_DEVICE_SCHEDULE_YIELD         ? XRT_SYNC_POLICY_YIELD
                             : sched == XRT_DEVICE_SCHEDULE_BLOCKING_SYNC ? XRT_SYNC_POLICY_BLOCKING_SYNC
                                                                          : XRT_SYNC_POLICY_AUTO;
    } else {
        xrt__cpu_lock(&s->lock);
        if (attr == XRT_STREAM_ATTR_ACCESS_POLICY_WINDOW) value->access_policy_window = s->window;
        else if (attr == XRT_STREAM_ATTR_MEM_SYNC_DOMAIN) value->mem_sync_domain = s->domain;
        else value->mem_sync_domain_map.default_ = s->domain_map[0], value->mem_sync_domain_map.remote = s->domain_map[1];
        xrt__cpu_unlock(&s->lock);
    }
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_device_get_stream_priority_range(const xrt_backend *self, int *least, int *greatest)
{
    (void)self;
    *least = 0;
    *greatest = -(XRT__CPU_PRIO_LEVELS - 1);
    return XRT_SUCCESS;
}

/* Returns at once: the worker drains what is queued, then exits. Fails only
   where a host function destroys its own full stream and there is no memory
   to queue the worker's exit: the stream then stays as it was. */
static xrt_status xrt__cpu_stream_close(xrt__cpu_stream *s)
{
    xrt__cpu_op *op;
    xrt__cpu_lock(&s->lock);
    if (s->orphan) { /* no worker to stop: drop the worker's reference here */
        xrt__cpu_release_dropped(s);
        xrt__cpu_unlock(&s->lock);
        xrt__cpu_stream_unlink(s);
        xrt__cpu_blocking_unlink(s);
        xrt__cpu_stream_unref(s);
    } else if ((op = xrt__cpu_reserve(s, "cpu: xrt_stream_destroy")) != NULL) {
        __atomic_store_n(&s->work_end, s->tail + 1, __ATOMIC_RELEASE); /* the exit op is no work to wait for */
        op->run = NULL;
        /* A NULL stream's publish lets its device's list lock go, as after
           xrt__cpu_enter: it must hold it (else a worker unlinking its
           stream at the same time is no longer alone in the list). */
        if (s->order == XRT__CPU_LEGACY) xrt__cpu_lock(&xrt__cpu.legacy[s->device].lock);
        xrt__cpu_publish(s, op);
    } else {
        xrt__cpu_unlock(&s->lock);
        return XRT_ERROR_OUT_OF_MEMORY;
    }
    xrt__cpu_stream_unref(s);
    return XRT_SUCCESS;
}

/* A stream's end: destroyed, or its owning thread's exit. */
static xrt_status xrt__cpu_stream_end(xrt__cpu_stream *s)
{
    if (XRT__UNLIKELY(__atomic_load_n(&s->cap, __ATOMIC_ACQUIRE))) xrt__cpu_cap_stream_gone(s);
    return xrt__cpu_stream_close(s);
}

static xrt_status xrt__cpu_stream_destroy(const xrt_backend *self, void *stream)
{
    (void)self;
    return xrt__cpu_stream_end((xrt__cpu_stream *)stream);
}

static void xrt__cpu_run_nothing(xrt__cpu_op *op);

/* Runs op in place where s is quiet, else queues it and waits for it. */
static xrt_status xrt__cpu_run_ordered(xrt__cpu_stream *s, xrt__cpu_op *op, const char *who)
{
    uint64_t pos;
    xrt_status st;
    if (XRT__UNLIKELY(s->order == XRT__CPU_LEGACY) && (st = xrt__cpu_cap_implicit(s->device, who)) != XRT_SUCCESS)
        return st;
    if (xrt__cpu_quiet(s)) {
        op->run(op);
        return XRT_SUCCESS;
    }
    if ((st = xrt__cpu_enqueue_at(s, op, who, &pos)) != XRT_SUCCESS) return st;
    xrt__cpu_drain(s, pos, 1);
    return XRT_SUCCESS;
}

/* The NULL stream's work includes what its op would wait for: the blocking
   streams' (">> cpu: the legacy stream"). */
static xrt_status xrt__cpu_stream_synchronize(const xrt_backend *self, void *stream)
{
    xrt__cpu_stream *s = xrt__cpu_stream_of(stream);
    xrt__cpu_op op;
    xrt_status st;
    (void)self;
    if (XRT__UNLIKELY(__atomic_load_n(&s->cap, __ATOMIC_ACQUIRE)))
        return xrt__cpu_cap_wait_refused(s, "cpu: xrt_stream_synchronize");
    if (XRT__UNLIKELY((st = xrt__cpu_cap_unsafe("cpu: xrt_stream_synchronize")) != XRT_SUCCESS)) return st;
    if (XRT__UNLIKELY(s->order == XRT__CPU_LEGACY)) {
        op.run = xrt__cpu_run_nothing;
        st = xrt__cpu_run_ordered(s, &op, "cpu: xrt_stream_synchronize");
    } else {
        xrt__cpu_drain(s, __atomic_load_n(&s->tail, __ATOMIC_ACQUIRE), 1);
    }
    xrt__cpu_mpools_trim();
    return st;
}

static int xrt__cpu_busy(xrt__cpu_stream *s)
{
    return !xrt__cpu_reached(&s->head, __atomic_load_n(&s->tail, __ATOMIC_ACQUIRE));
}

/* A query that found s's work not done. CUDA code waits with a loop of
   queries; where s's worker was last seen on the caller's core, it cannot
   run until the caller stops, and such a loop would keep the core for its
   whole time slice: the caller gives the core up first. Always, unlike a
   wait's spin (xrt__cpu_yield), which sleeps instead where other processes
   want the core: a query cannot sleep, and its caller's next poll would
   only take the core from the worker again. */
static xrt_status xrt__cpu_not_ready_on(int worker_cpu)
{
    if (worker_cpu == sched_getcpu()) sched_yield();
    return XRT_ERROR_NOT_READY;
}

static xrt_status xrt__cpu_not_ready(const xrt__cpu_stream *s)
{
    return xrt__cpu_not_ready_on(__atomic_load_n(&s->worker_cpu, __ATOMIC_RELAXED));
}

static xrt_status xrt__cpu_stream_query(const xrt_backend *self, void *stream)
{
    xrt__cpu_stream *s = xrt__cpu_stream_of(stream);
    xrt_status st;
    if (XRT__UNLIKELY(__atomic_load_n(&s->cap, __ATOMIC_ACQUIRE)))
        return xrt__cpu_cap_wait_refused(s, "cpu: xrt_stream_query");
    if (XRT__UNLIKELY((st = xrt__cpu_cap_unsafe("cpu: xrt_stream_query")) != XRT_SUCCESS)) return st;
    if (XRT__UNLIKELY(s->order == XRT__CPU_LEGACY)) return xrt__cpu_quiet(s) ? XRT_SUCCESS : xrt__cpu_not_ready(s);
    return xrt__cpu_busy(s) ? xrt__cpu_not_ready(s) : XRT_SUCCESS;
}

/* Waits for what every stream had queued at the call. The list lock is held
   only to take a reference on each busy stream, not while waiting, so other
   threads keep creating and destroying streams meanwhile. With nothing queued
   (the usual xrt_free) it allocates nothing. */
static int xrt__cpu_busy_on(xrt__cpu_stream *s, int device)
{
    return (device < 0 || s->device == device) && xrt__cpu_busy(s);
}

/* A reference on each stream of `device` (-1: of every device) with work
   queued now, and how far it must get: *out NULL and *count 0 when none. */
static xrt_status xrt__cpu_pending_take(int device, xrt__cpu_pending **out, size_t *count, const char *who)
{
    xrt__cpu_pending *v = NULL;
    xrt__cpu_stream *s;
    size_t n = 0, busy = 0;
    pthread_mutex_lock(&xrt__cpu_list_lock);
    for (s = xrt__cpu.list.next; s != &xrt__cpu.list; s = s->next) busy += xrt__cpu_busy_on(s, device);
    if (busy) /* room for every stream: more may have become busy by the second pass */
        for (s = xrt__cpu.list.next; s != &xrt__cpu.list; s = s->next) busy++;
    if (busy && (v = (xrt__cpu_pending *)XRT_MALLOC(busy * sizeof *v)) != NULL)
        for (s = xrt__cpu.list.next; s != &xrt__cpu.list && n < busy; s = s->next) {
            if (!xrt__cpu_busy_on(s, device)) continue;
            __atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
            v[n].s = s;
            v[n++].pos = __atomic_load_n(&s->tail, __ATOMIC_ACQUIRE);
        }
    pthread_mutex_unlock(&xrt__cpu_list_lock);
    if (busy && !v) return xrt_error(XRT_ERROR_OUT_OF_MEMORY, who, "no memory to wait for %zu busy streams", busy);
    if (!n) XRT_FREE(v), v = NULL;
    *out = v;
    *count = n;
    return XRT_SUCCESS;
}

static void xrt__cpu_unloaded_reap(int all);

/* device -1: every device's streams. */
static xrt_status xrt__cpu_sync_all(int device, const char *who)
{
    xrt__cpu_pending *v;
    size_t n, i;
    xrt_status st = xrt__cpu_pending_take(device, &v, &n, who);
    if (st != XRT_SUCCESS) return st;
    for (i = 0; i < n; i++) {
        xrt__cpu_host_wait(&v[i].s->head, v[i].pos, 1, &v[i].s->worker_cpu, v[i].s->device);
        xrt__cpu_stream_unref(v[i].s);
    }
    XRT_FREE(v);
    xrt__cpu_mpools_trim();
    xrt__cpu_unloaded_reap(0);
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_device_synchronize(const xrt_backend *self)
{
    xrt_status st = xrt__cpu_cap_refuse("cpu: xrt_device_synchronize", xrt__cpu_current());
    /* The current device's streams only, as cudaDeviceSynchronize. */
    return st != XRT_SUCCESS ? st : xrt__cpu_sync_all(xrt__cpu_current(), "cpu: xrt_device_synchronize");
}

static xrt_status xrt__cpu_launch_host_func(const xrt_backend *self, void *stream, xrt_host_fn fn, void *user)
{
    xrt__cpu_op op;
    op.run = xrt__cpu_run_host_fn;
    op.u.host.fn = fn;
    op.u.host.user = user;
    return xrt__cpu_enqueue(stream, &op, "cpu: xrt_launch_host_func");
}

/* >> cpu: events */
/* A record is a point in one stream, as on a GPU: it has completed once that
   stream's head reaches `pos`. The event holds a reference to the stream of
   its latest record, so it stays usable after the stream is destroyed, and a
   wait captures (stream, pos) so a later record cannot release it early. */
typedef struct xrt__cpu_event {
    unsigned flags;
    int device;              /* current at its creation: it is recorded on that device's streams only */
    int lock;                /* guards stream and pos */
    int refs;                /* the handle + record ops in flight */
    xrt__cpu_stream *stream; /* of the latest record; NULL: never recorded */
    uint64_t pos;
    uint64_t time_ns;        /* stamped when the latest record completed */
    /* Last recorded in a capture (">> cpu: graphs"): it and the nodes it stands for. */
    struct xrt__cpu_capture *cap;
    uint32_t *front, nfront, frontcap;
    struct xrt__cpu_event *prev, *next; /* xrt__cpu.events, under the list lock */
    /* An interprocess event (">> cpu: ipc events"): its records live in
       memory that other processes map; NULL for every other event. */
    struct xrt__cpu_ipc_state *shared;
    struct xrt__cpu_head *shared_head; /* its allocation, made here or mapped from another process */
    int shared_opened;                 /* opened from another process's handle: the mapping is all it holds */
} xrt__cpu_event;

struct xrt__cpu_ipc_state;
static xrt_status xrt__cpu_ipc_event_make(xrt__cpu_event *e);
static void xrt__cpu_ipc_event_drop(xrt__cpu_event *e);
static xrt_status xrt__cpu_ipc_event_record(xrt__cpu_event *e, void *stream);
static xrt_status xrt__cpu_ipc_event_query(const xrt__cpu_event *e);
static void xrt__cpu_ipc_event_synchronize(const xrt__cpu_event *e);
static xrt_status xrt__cpu_ipc_event_wait(xrt__cpu_event *e, void *stream);

static void xrt__cpu_event_link(xrt__cpu_event *e)
{
    pthread_mutex_lock(&xrt__cpu_list_lock);
    e->prev = NULL;
    e->next = xrt__cpu.events;
    if (e->next) e->next->prev = e;
    xrt__cpu.events = e;
    pthread_mutex_unlock(&xrt__cpu_list_lock);
}

static void xrt__cpu_event_unref(xrt__cpu_event *e)
{
    if (__atomic_sub_fetch(&e->refs, 1, __ATOMIC_ACQ_REL)) return;
    pthread_mutex_lock(&xrt__cpu_list_lock);
    if (e->prev) e->prev->next = e->next;
    else xrt__cpu.events = e->next;
    if (e->next) e->next->prev = e->prev;
    pthread_mutex_unlock(&xrt__cpu_list_lock);
    if (e->stream) xrt__cpu_stream_unref(e->stream);
    xrt__cpu_cap_event_gone(e);
    if (e->shared) xrt__cpu_ipc_event_drop(e);
    XRT_FREE(e);
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
    xrt__cpu_event_stamp(op->u.record.event, op->u.record.stream, op->u.record.pos);
    xrt__cpu_event_unref(op->u.record.event);
}

static void xrt__cpu_run_wait(xrt__cpu_op *op)
{
    xrt__cpu_wait(&op->u.wait.stream->head, op->u.wait.pos, 1, &op->u.wait.stream->worker_cpu);
    xrt__cpu_stream_unref(op->u.wait.stream);
}

static xrt_status xrt__cpu_event_create(const xrt_backend *self, void **event, unsigned flags)
{
    xrt__cpu_event *e = (xrt__cpu_event *)XRT_CALLOC(1, sizeof *e);
    if (!e) return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "cpu: xrt_event_create", "no memory for an event");
    e->flags = flags;
    e->device = xrt__cpu_current();
    e->refs = 1;
    if ((flags & XRT_EVENT_INTERPROCESS) && xrt__cpu_ipc_event_make(e) != XRT_SUCCESS) {
        XRT_FREE(e);
        return XRT_ERROR_OUT_OF_MEMORY;
    }
    xrt__cpu_event_link(e);
    *event = e;
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_event_destroy(const xrt_backend *self, void *event)
{
    xrt__cpu_event_unref((xrt__cpu_event *)event);
    return XRT_SUCCESS;
}

/* On an idle stream the record completes here, without waking the worker. */
static xrt_status xrt__cpu_event_record(const xrt_backend *self, void *event, void *stream)
{
    xrt__cpu_event *e = (xrt__cpu_event *)event;
    xrt__cpu_stream *s = xrt__cpu_stream_of(stream);
    xrt__cpu_op *op;
    xrt_status st;
    if (XRT__UNLIKELY(e->device != s->device)) /* as cudaEventRecord: cudaErrorInvalidResourceHandle */
        return xrt_error(XRT_ERROR_INVALID_HANDLE, "cpu: xrt_event_record",
                         "the event belongs to device %d, the stream to device %d", e->device, s->device);
    if (XRT__UNLIKELY(e->shared != NULL)) return xrt__cpu_ipc_event_record(e, stream);
    if (XRT__UNLIKELY(__atomic_load_n(&s->cap, __ATOMIC_ACQUIRE) || __atomic_load_n(&e->cap, __ATOMIC_ACQUIRE)) &&
        xrt__cpu_cap_record(e, s, &st))
        return st;
    if ((st = xrt__cpu_enter(s, "cpu: xrt_event_record")) != XRT_SUCCESS) return st;
    if (xrt__cpu_reached(&s->head, s->tail)) {
        xrt__cpu_event_set(e, s, s->tail);
        xrt__cpu_event_stamp(e, s, s->tail);
        xrt__cpu_leave(s);
        return XRT_SUCCESS;
    }
    if (!(op = xrt__cpu_reserve(s, "cpu: xrt_event_record"))) {
        xrt__cpu_leave(s);
        return XRT_ERROR_OUT_OF_MEMORY;
    }
    xrt__cpu_event_set(e, s, s->tail + 1); /* done when this op has run */
    __atomic_add_fetch(&e->refs, 1, __ATOMIC_RELAXED);
    op->run = xrt__cpu_run_record;
    op->u.record.event = e;
    op->u.record.stream = s;
    op->u.record.pos = s->tail + 1;
    xrt__cpu_publish(s, op);
    return XRT_SUCCESS;
}

/* Whether e's latest record is done (or it has none), read under its lock:
   the lock holds the record's stream, whose last reference a record on
   another stream may drop as soon as it is let go. *cpu: where that
   stream's worker last ran. */
static int xrt__cpu_event_reached(xrt__cpu_event *e, int *cpu)
{
    xrt__cpu_stream *s;
    int done;
    xrt__cpu_lock(&e->lock);
    s = e->stream;
    done = !s || xrt__cpu_reached(&s->head, e->pos);
    *cpu = done ? -1 : __atomic_load_n(&s->worker_cpu, __ATOMIC_RELAXED);
    xrt__cpu_unlock(&e->lock);
    return done;
}

static xrt_status xrt__cpu_event_query(const xrt_backend *self, void *event)
{
    xrt_status st;
    int cpu;
    if (XRT__UNLIKELY(__atomic_load_n(&((xrt__cpu_event *)event)->cap, __ATOMIC_ACQUIRE)))
        return xrt__cpu_cap_event_refused((xrt__cpu_event *)event, "cpu: xrt_event_query");
    if (XRT__UNLIKELY((st = xrt__cpu_cap_unsafe("cpu: xrt_event_query")) != XRT_SUCCESS)) return st;
    if (XRT__UNLIKELY(((xrt__cpu_event *)event)->shared != NULL)) return xrt__cpu_ipc_event_query((xrt__cpu_event *)event);
    return xrt__cpu_event_reached((xrt__cpu_event *)event, &cpu) ? XRT_SUCCESS : xrt__cpu_not_ready_on(cpu);
}

static xrt_status xrt__cpu_event_synchronize(const xrt_backend *self, void *event)
{
    xrt__cpu_event *e = (xrt__cpu_event *)event;
    uint64_t pos;
    xrt__cpu_stream *s;
    xrt_status st;
    if (XRT__UNLIKELY(__atomic_load_n(&e->cap, __ATOMIC_ACQUIRE)))
        return xrt__cpu_cap_event_refused(e, "cpu: xrt_event_synchronize");
    if (XRT__UNLIKELY((st = xrt__cpu_cap_unsafe("cpu: xrt_event_synchronize")) != XRT_SUCCESS)) return st;
    if (XRT__UNLIKELY(e->shared != NULL)) {
        xrt__cpu_ipc_event_synchronize(e);
        return XRT_SUCCESS;
    }
    if (!(s = xrt__cpu_event_latest(e, &pos, 1))) return XRT_SUCCESS;
    if (e->flags & XRT_EVENT_BLOCKING_SYNC) xrt__cpu_wait(&s->head, pos, 0, NULL); /* the event's own, as CUDA's */
    else xrt__cpu_host_wait(&s->head, pos, 1, &s->worker_cpu, s->device);
    xrt__cpu_stream_unref(s);
    xrt__cpu_mpools_trim();
    return XRT_SUCCESS;
}

/* A wait with nothing to wait for is still an action in its stream's order:
   on the NULL stream it waits for the blocking streams' work and theirs
   after it waits for it (CUDA's "Stream synchronization behavior" names
   cudaStreamWaitEvent); a blocking stream follows the NULL stream's latest. */
static xrt_status xrt__cpu_wait_nothing(xrt__cpu_stream *s, const char *who)
{
    xrt__cpu_op *op;
    xrt_status st;
    if ((st = xrt__cpu_enter(s, who)) != XRT_SUCCESS) return st;
    if (s->order != XRT__CPU_LEGACY || xrt__cpu_reached(&s->head, s->tail)) {
        xrt__cpu_leave(s);
        return XRT_SUCCESS;
    }
    if (!(op = xrt__cpu_reserve(s, who))) {
        xrt__cpu_leave(s);
        return XRT_ERROR_OUT_OF_MEMORY;
    }
    op->run = xrt__cpu_run_nothing;
    xrt__cpu_publish(s, op);
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_stream_wait_event(const xrt_backend *self, void *stream, void *event)
{
    xrt__cpu_op op;
    uint64_t pos;
    xrt_status st;
    xrt__cpu_stream *s;
    if (XRT__UNLIKELY(((xrt__cpu_event *)event)->shared != NULL))
        return xrt__cpu_ipc_event_wait((xrt__cpu_event *)event, stream);
    if (XRT__UNLIKELY(__atomic_load_n(&xrt__cpu_stream_of(stream)->cap, __ATOMIC_ACQUIRE) ||
                      __atomic_load_n(&((xrt__cpu_event *)event)->cap, __ATOMIC_ACQUIRE)) &&
        xrt__cpu_cap_wait(xrt__cpu_stream_of(stream), (xrt__cpu_event *)event, &st))
        return st;
    if (!(s = xrt__cpu_event_latest((xrt__cpu_event *)event, &pos, 1))) /* never recorded: nothing to wait for */
        return xrt__cpu_wait_nothing(xrt__cpu_stream_of(stream), "cpu: xrt_stream_wait_event");
    if (xrt__cpu_reached(&s->head, pos)) {
        xrt__cpu_stream_unref(s);
        return xrt__cpu_wait_nothing(xrt__cpu_stream_of(stream), "cpu: xrt_stream_wait_event");
    }
    op.run = xrt__cpu_run_wait;
    op.u.wait.stream = s;
    op.u.wait.pos = pos;
    if ((st = xrt__cpu_enqueue(stream, &op, "cpu: xrt_stream_wait_event")) != XRT_SUCCESS) xrt__cpu_stream_unref(s);
    return st;
}

static xrt_status xrt__cpu_event_elapsed_time(const xrt_backend *self, float *ms, void *start, void *end)
{
    xrt__cpu_event *ev[2] = {(xrt__cpu_event *)start, (xrt__cpu_event *)end};
    uint64_t pos;
    xrt_status st;
    int i;
    if (XRT__UNLIKELY(ev[0]->device != ev[1]->device)) /* as cudaEventElapsedTime: no common clock */
        return xrt_error(XRT_ERROR_INVALID_HANDLE, "cpu: xrt_event_elapsed_time",
                         "the start event belongs to device %d, the end event to device %d", ev[0]->device,
                         ev[1]->device);
    for (i = 0; i < 2; i++) /* in every mode, before a mode's refusal: REFERENCE.md, "Refused in every mode" */
        if (XRT__UNLIKELY(__atomic_load_n(&ev[i]->cap, __ATOMIC_ACQUIRE)) &&
            (st = xrt__cpu_cap_event_refused(ev[i], "cpu: xrt_event_elapsed_time")) != XRT_SUCCESS)
            return st;
    for (i = 0; i < 2; i++) { /* both invalid handles before either's not ready, as cudaEventElapsedTime */
        if (ev[i]->flags & XRT_EVENT_DISABLE_TIMING)
            return xrt_error(XRT_ERROR_INVALID_HANDLE, "cpu: xrt_event_elapsed_time",
                             "%s event was created with XRT_EVENT_DISABLE_TIMING", i ? "end" : "start");
        if (!xrt__cpu_event_latest(ev[i], &pos, 0))
            return xrt_error(XRT_ERROR_INVALID_HANDLE, "cpu: xrt_event_elapsed_time", "%s event was never recorded",
                             i ? "end" : "start");
    }
    for (i = 0; i < 2; i++)
        if ((st = xrt__cpu_event_query(self, ev[i])) != XRT_SUCCESS) return st; /* or a capture's refusal */
    *ms = (float)((double)((int64_t)(__atomic_load_n(&ev[1]->time_ns, __ATOMIC_RELAXED) -
                                      __atomic_load_n(&ev[0]->time_ns, __ATOMIC_RELAXED))) / 1e6);
    return XRT_SUCCESS;
}

/* >> cpu: memory. An allocation is private anonymous memory, as malloc's:
   a forked child gets it copy-on-write, at the cost of malloc's memory
   (">> cpu: device memory after fork"). Its first IPC export moves it into
   a memory file of its own (xrt__cpu_share): a memfd of a head page and
   the bytes, sealed at that size, mapped MAP_SHARED at the same address.
   So its bytes can be opened by another process from an IPC handle (">>
   cpu: ipc"): the file, reached through /proc/<pid>/fd (same user, allowed
   under Yama ptrace_scope 1). A file per allocation, not one per device,
   because a process that opens a file may do to it what the kernel lets
   it: with one file, a peer given one range could write or punch every
   other exported range, truncate the file (SIGBUS in the exporter, at
   memory it never shared), and, holding it, keep them all alive after the
   exporter's end. Sealed (F_SEAL_SHRINK, F_SEAL_GROW, F_SEAL_SEAL), the
   file is the range's bytes and no more, for good. The exporter holds the
   file's descriptor from the export to the free; the kernel counts who
   maps or holds the file and returns its memory when the last lets go,
   however it ended (exit, SIGKILL). The file's head page, which no process
   maps, holds the range's export record for openers (xrt__cpu_export). The
   allocator's own record of a range (xrt__cpu_head) is a private anonymous
   page just before its bytes, in the exporter and in every opener alike:
   each process trusts only its own record, and a peer maps only the bytes
   it was given. Pinned host memory is plain heap. */
#define XRT__CPU_DEVICES_MAX 64
#define XRT__CPU_BYTES_MAX (1ull << 46)               /* the largest allocation (64 TiB): a span never overflows */
#define XRT__CPU_HEAD_MAGIC 0x6476656470637278ull     /* "xrcpdevd" */
#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 1u
#endif
#ifndef MFD_ALLOW_SEALING
#define MFD_ALLOW_SEALING 2u
#endif
#ifndef F_ADD_SEALS
#define F_ADD_SEALS 1033
#define F_GET_SEALS 1034
#endif
#ifndef F_SEAL_SEAL
#define F_SEAL_SEAL 0x0001
#define F_SEAL_SHRINK 0x0002
#define F_SEAL_GROW 0x0004
#endif
#define XRT__CPU_SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)
#define XRT__CPU_SEAL_FUTURE_WRITE 0x0010 /* F_SEAL_FUTURE_WRITE (Linux 5.1), which older headers lack */
#ifndef MREMAP_MAYMOVE
#define MREMAP_MAYMOVE 1
#endif
#ifndef MAP_POPULATE
#define MAP_POPULATE 0 /* only sooner: the pages come at their first touch instead */
#endif
#ifndef MREMAP_FIXED
#define MREMAP_FIXED 2
#endif

/* This process's record of a range it maps, never shared: in the private
   page before the bytes. */
typedef struct xrt__cpu_head {
    uint64_t magic;  /* XRT__CPU_HEAD_MAGIC */
    uint64_t size;   /* the allocation's bytes, after the head page */
    uint64_t gen;    /* numbers the device's allocations */
    uint64_t ino, dev; /* its memory file's, while `fd` holds it */
    uint32_t device;
    int32_t fd;        /* its memory file, held from its first export (an interprocess event's: its creation) to its free; -1: none */
    uint32_t shared;   /* its bytes map a memory file (exported here, or opened); 0: private anonymous memory */
    uint32_t opened;   /* opened from another process's handle: the file is the exporter's */
    uint32_t exported; /* a handle was ever made: the range is never kept for reuse */
    uint32_t live;     /* handles open now: the key holds, in the record of the file at `fd` */
    uint64_t key[2];   /* the secret its handles carry, while `live` */
    /* Memory pools (">> cpu: memory pools"): */
    struct xrt__cpu_mpool *pool;       /* the memory pool it belongs to, or NULL (">> cpu: memory pools") */
    struct xrt__cpu_head *pool_next;   /* in its pool's free list */
    const void *pool_stream;           /* the stream whose free gave it back */
    uint32_t pool_done;                /* that free was reached: its stream's work before it is done */
    struct xrt__cpu_advice *advice;    /* managed memory's advice, or NULL (">> cpu: managed memory's advice") */
    xrt__tree_node map;                /* [head, head + span) in xrt__cpu_maps while mapped */
} xrt__cpu_head;

/* An exported range's record for openers, at the start of its file: read
   by openers, never by the exporter, so a peer's write there misleads at
   most another peer's open of the same range. */
#define XRT__CPU_EXPORT_MAGIC 0x3274726f70786578ull /* "xexport2" */
typedef struct xrt__cpu_export {
    uint64_t magic, size;
    uint64_t key[2];
} xrt__cpu_export;

/* Freed ranges that were never shared are kept mapped for the next
   allocation of the same span, as malloc keeps freed blocks: mapping,
   first-touch faults and unmapping cost tens of microseconds where system
   calls are slow (bench/ipc.c). At most XRT__CPU_KEPT of
   them, each at most XRT__CPU_KEPT_SPAN (glibc's default mmap threshold),
   XRT__CPU_KEPT_BYTES in all. A larger range is unmapped at its free, so
   that a memory monitor (libfabric's registration cache, which watches
   munmap) sees it go: a new allocation at the same address then gets a
   new registration, not the old key (tests/rdma: fabric_rma). */
#define XRT__CPU_KEPT 16
#define XRT__CPU_KEPT_SPAN ((size_t)128 << 10)
#define XRT__CPU_KEPT_BYTES ((size_t)2 << 20)

typedef struct xrt__cpu_devmem {
    int lock; /* guards all of this */
    uint64_t gen;
    struct xrt__cpu_head *kept[XRT__CPU_KEPT];
    int nkept;
    size_t kept_bytes;
} xrt__cpu_devmem;

static xrt__cpu_devmem xrt__cpu_mem[XRT__CPU_DEVICES_MAX];

/* The device the calling thread allocates on. One CPU device for now: every
   structure is per device so that more plug in. */
static int xrt__cpu_mem_device(void) { return xrt__cpu_current(); }

/* Threads allocating at once may each find it unset: the same value, stored atomically. */
static size_t xrt__cpu_page(void)
{
    static size_t page;
    size_t p = __atomic_load_n(&page, __ATOMIC_RELAXED);
    if (!p) __atomic_store_n(&page, p = (size_t)sysconf(_SC_PAGESIZE), __ATOMIC_RELAXED);
    return p;
}

/* The mapped bytes of an allocation of `size`: a head page and whole pages; 0 on overflow. */
static size_t xrt__cpu_span(uint64_t size)
{
    size_t pg = xrt__cpu_page();
    if (size > XRT__CPU_BYTES_MAX) return 0;
    return pg + (size_t)((size + pg - 1) & ~(uint64_t)(pg - 1));
}

/* Why a step failed, for its caller to record: an export's steps run
   under the export lock, where nothing may be logged. Fork's handlers take
   the capture lock holding the log's lock, a capture's end takes the
   graphs' memory lock holding the capture lock, and a free of a graph's
   memory takes the export lock holding that one (xrt__cpu_ipc_unexport):
   a log under the export lock would close the cycle. A fork's prepare
   handler, holding the log's lock, takes the export lock too (no export
   is half made at a fork): the export lock is a leaf, and what its holder
   would log (a placement refused) waits for its release. */
typedef struct xrt__cpu_why {
    char msg[320];
    int unplaced; /* the kernel's refusal to place a memory file (errno), logged after the lock; 0: none */
} xrt__cpu_why;

static void xrt__cpu_why_placed(const xrt__cpu_why *w, int device)
{
    if (w->unplaced) xrt__cpu_place_refused(device, "mbind", w->unplaced);
}

static xrt_status xrt__cpu_why_set(xrt__cpu_why *w, xrt_status st, const char *fmt, ...) XRT__PRINTF(3, 4);
static xrt_status xrt__cpu_why_set(xrt__cpu_why *w, xrt_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->msg, sizeof w->msg, fmt, ap);
    va_end(ap);
    return st;
}

/* A descriptor that could not be had. Each exported allocation holds one
   in its exporter, so a process that exports more allocations than its
   RLIMIT_NOFILE meets EMFILE: out of memory, as a GPU runtime answers for
   a resource it ran out of, saying which. */
static xrt_status xrt__cpu_fd_why(xrt__cpu_why *w, const char *what, int e)
{
    struct rlimit r;
    if (e == EMFILE || e == ENFILE) {
        unsigned long long lim = getrlimit(RLIMIT_NOFILE, &r) == 0 ? (unsigned long long)r.rlim_cur : 0;
        return xrt__cpu_why_set(w, XRT_ERROR_OUT_OF_MEMORY,
                                "%s: %s (each exported allocation holds a file descriptor in its exporter, and an "
                                "open holds one while it maps the bytes; RLIMIT_NOFILE is %llu)", what, strerror(e), lim);
    }
    if (e == ENOMEM || e == ENOSPC || e == EFBIG) return xrt__cpu_why_set(w, XRT_ERROR_OUT_OF_MEMORY, "%s: %s", what, strerror(e));
    return xrt__cpu_why_set(w, XRT_ERROR_SYSTEM, "%s: %s", what, strerror(e));
}

/* 1 (with why) if RLIMIT_FSIZE is below a memory file of `span` bytes:
   the kernel would refuse its ftruncate with SIGXFSZ, whose default
   action ends the process, so the export is refused before it, as out of
   memory (the process may not have memory of that size to share). */
static int xrt__cpu_fsize_refuses(size_t span, xrt__cpu_why *w)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_FSIZE, &r) != 0 || r.rlim_cur == RLIM_INFINITY || (uint64_t)span <= (uint64_t)r.rlim_cur)
        return 0;
    xrt__cpu_why_set(w, XRT_ERROR_OUT_OF_MEMORY, "a memory file of %zu bytes (the range's bytes and a head page) "
                     "exceeds RLIMIT_FSIZE (%llu bytes): shared memory lives in a file", span,
                     (unsigned long long)r.rlim_cur);
    return 1;
}

/* A memory file for a range of `span` bytes, sealed at that size before
   it is mapped: no process that opens it may shrink it (SIGBUS in those
   that map it), grow it, or seal it further (a write seal would stop the
   exporter's own writes). Another process of the user may reach the file
   through /proc between its creation and its seals: what the seals froze
   is checked, so that a file resized or sealed meanwhile is never mapped. */
#ifndef XRT__TEST_MEMFILE_UNSEALED
#define XRT__TEST_MEMFILE_UNSEALED(fd) ((void)0) /* xrt's tests: another process's move before the seals */
#endif
static xrt_status xrt__cpu_memfile(int device, size_t span, int *out, struct stat *st, xrt__cpu_why *w)
{
    char name[32];
    int fd, e, seals = -1;
    if (xrt__cpu_fsize_refuses(span, w)) return XRT_ERROR_OUT_OF_MEMORY;
    snprintf(name, sizeof name, "xrt-cpu-device-%d", device); /* for people reading /proc: fork goes by the ranges mapped here */
    fd = (int)syscall(SYS_memfd_create, name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return xrt__cpu_fd_why(w, "memfd_create", errno);
    if (ftruncate(fd, (off_t)span) != 0 || (XRT__TEST_MEMFILE_UNSEALED(fd), fcntl(fd, F_ADD_SEALS, XRT__CPU_SEALS)) != 0 ||
        fstat(fd, st) != 0) {
        e = errno;
        close(fd);
        return xrt__cpu_fd_why(w, "sizing and sealing the memory file", e);
    }
    if ((uint64_t)st->st_size != (uint64_t)span || (seals = fcntl(fd, F_GET_SEALS)) != XRT__CPU_SEALS) {
        close(fd);
        return xrt__cpu_why_set(w, XRT_ERROR_SYSTEM, "another process changed the memory file before its seals: "
                                "%lld bytes for %zu, seals 0x%x", (long long)st->st_size, span, (unsigned)seals);
    }
    *out = fd;
    return XRT_SUCCESS;
}

/* Maps a range's file of `span` bytes: a private anonymous page for this
   process's record, then the bytes from the file (past its head page).
   NULL on failure. */
static xrt__cpu_head *xrt__cpu_map_range(int fd, size_t span)
{
    size_t pg = xrt__cpu_page();
    char *h = (char *)mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (h == (char *)MAP_FAILED) return NULL;
    if (mmap(h + pg, span - pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, (off_t)pg) == MAP_FAILED) {
        munmap(h, span);
        return NULL;
    }
    return (xrt__cpu_head *)(void *)h;
}

/* Maps a private anonymous range of `span` bytes: the record page, then the bytes. NULL on failure. */
static xrt__cpu_head *xrt__cpu_map_private(size_t span)
{
    void *h = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return h == MAP_FAILED ? NULL : (xrt__cpu_head *)h;
}

/* Every range mapped here, head page and bytes, from its mapping to its
   unmapping: live, freed and kept for reuse, a pool's free block, opened
   from another process. The registry knows only the live allocations'
   bytes; a host registration must overlap none of these either
   (xrt__cpu_host_register). A range kept or pooled for reuse stays in: an
   allocation costs a tree operation only where it costs an mmap. */
static xrt__tree xrt__cpu_maps = XRT__TREE_INIT;
static int xrt__cpu_maps_lock;

static void xrt__cpu_maps_add(xrt__cpu_head *h, size_t span)
{
    h->map.start = (uintptr_t)h;
    h->map.end = (uintptr_t)h + span;
    xrt__cpu_lock(&xrt__cpu_maps_lock);
    xrt__tree_insert(&xrt__cpu_maps, &h->map);
    xrt__cpu_unlock(&xrt__cpu_maps_lock);
}

/* Before the range is unmapped. */
static void xrt__cpu_maps_drop(xrt__cpu_head *h)
{
    xrt__cpu_lock(&xrt__cpu_maps_lock);
    xrt__tree_remove(&xrt__cpu_maps, &h->map);
    xrt__cpu_unlock(&xrt__cpu_maps_lock);
}

/* The mapped range [*start, *end) that [p, p + n) overlaps: 1, else 0. */
static int xrt__cpu_maps_overlap(uintptr_t p, size_t n, uintptr_t *start, uintptr_t *end)
{
    const xrt__tree_node *m;
    int found;
    xrt__cpu_lock(&xrt__cpu_maps_lock);
    m = xrt__tree_floor(&xrt__cpu_maps, p + n - 1);
    found = m && m->end > p;
    if (found) *start = m->start, *end = m->end;
    xrt__cpu_unlock(&xrt__cpu_maps_lock);
    return found;
}

static uint64_t xrt__cpu_mem_gen(xrt__cpu_devmem *m)
{
    uint64_t gen;
    xrt__cpu_lock(&m->lock);
    gen = ++m->gen;
    xrt__cpu_unlock(&m->lock);
    return gen;
}

/* A kept range of this span, under a new generation; NULL if none. */
static xrt__cpu_head *xrt__cpu_range_reuse(xrt__cpu_devmem *m, size_t span, uint64_t *gen)
{
    xrt__cpu_head *h = NULL;
    int i;
    xrt__cpu_lock(&m->lock);
    for (i = 0; i < m->nkept; i++)
        if (xrt__cpu_span(m->kept[i]->size) == span) {
            h = m->kept[i];
            m->kept[i] = m->kept[--m->nkept];
            m->kept_bytes -= span;
            *gen = ++m->gen;
            break;
        }
    xrt__cpu_unlock(&m->lock);
    return h;
}

/* Keeps a freed range for reuse: 1 if kept. */
static int xrt__cpu_range_keep(xrt__cpu_head *h)
{
    xrt__cpu_devmem *m = &xrt__cpu_mem[h->device];
    size_t span = xrt__cpu_span(h->size);
    int kept = 0;
    if (h->exported || h->shared || span > XRT__CPU_KEPT_SPAN) return 0;
    xrt__cpu_lock(&m->lock);
    if (m->nkept < XRT__CPU_KEPT && m->kept_bytes + span <= XRT__CPU_KEPT_BYTES) {
        m->kept[m->nkept++] = h;
        m->kept_bytes += span;
        kept = 1;
    }
    xrt__cpu_unlock(&m->lock);
    return kept;
}

/* Under XRT_CPU_POPULATE=1, a device allocation's pages are there when
   xrt_malloc returns, as a GPU's are: a first touch, an RDMA registration or a
   copy into it then pays no page faults. MADV_POPULATE_WRITE (Linux 5.14)
   where the kernel has it, else a write of each page's first byte as it is. */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
static void xrt__cpu_populate_range(void *p, size_t size)
{
    size_t page = xrt__cpu_page(), i;
    char *start = (char *)((uintptr_t)p & ~(uintptr_t)(page - 1));
    size_t len = (size_t)((char *)p + size - start);
    if (madvise(start, len, MADV_POPULATE_WRITE) == 0) return;
    for (i = 0; i < len; i += page) {
        volatile char *c = start + i;
        *c = *c;
    }
}

/* A range's head as a new allocation's (a fresh, kept or pooled range). */
static void xrt__cpu_head_init(xrt__cpu_head *h, size_t size, uint64_t gen, int device)
{
    h->exported = h->live = h->shared = h->opened = 0;
    h->key[0] = h->key[1] = 0;
    h->fd = -1;
    h->ino = h->dev = 0;
    h->size = size;
    h->gen = gen;
    h->device = (uint32_t)device;
    h->pool = NULL;
    h->pool_next = NULL;
    h->pool_stream = NULL;
    h->pool_done = 0;
    h->advice = NULL;
    __atomic_store_n(&h->magic, XRT__CPU_HEAD_MAGIC, __ATOMIC_RELEASE);
}

static xrt_status xrt__cpu_dev_alloc_on(int device, void **ptr, size_t size, const char *fn)
{
    xrt__cpu_devmem *m = &xrt__cpu_mem[device];
    size_t span = xrt__cpu_span(size);
    uint64_t gen = 0;
    xrt__cpu_head *h;
    *ptr = NULL;
    if (!span) return xrt_error(XRT_ERROR_OUT_OF_MEMORY, fn, "cannot allocate %zu bytes", size);
    if (!(h = xrt__cpu_range_reuse(m, span, &gen))) {
        if (!(h = xrt__cpu_map_private(span)))
            return xrt_error(XRT_ERROR_OUT_OF_MEMORY, fn, "cannot allocate %zu bytes", size);
        xrt__cpu_maps_add(h, span);
        xrt__cpu_place_memory(device, h, span, 0); /* a kept range was placed at its first use */
        gen = xrt__cpu_mem_gen(m);
    }
    xrt__cpu_head_init(h, size, gen, device);
    *ptr = (char *)h + xrt__cpu_page();
    if (xrt__cpu_populate) xrt__cpu_populate_range(*ptr, size);
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_dev_alloc(void **ptr, size_t size, const char *fn)
{
    return xrt__cpu_dev_alloc_on(xrt__cpu_mem_device(), ptr, size, fn);
}

static xrt__cpu_head *xrt__cpu_head_of(void *ptr) { return (xrt__cpu_head *)(void *)((char *)ptr - xrt__cpu_page()); }

/* The exporter's free of a range (made here, not kept). An exported
   range's file goes with the last process that maps or holds it, as the
   kernel counts (a peer that dies lets go too); the descriptor closed
   here is what tells an opener that the range was freed (">> cpu: ipc"). */
static void xrt__cpu_unmap(xrt__cpu_head *h)
{
    int file = h->fd;
    xrt__cpu_maps_drop(h);
    munmap(h, xrt__cpu_span(h->size));
    if (file >= 0) close(file);
}

static void xrt__cpu_advice_drop(xrt__cpu_head *h);
static void xrt__cpu_dev_release(void *ptr)
{
    xrt__cpu_head *h = xrt__cpu_head_of(ptr);
    if (XRT__UNLIKELY(h->advice != NULL)) xrt__cpu_advice_drop(h);
    if (!xrt__cpu_range_keep(h)) xrt__cpu_unmap(h);
}

/* At shutdown: the kept ranges go back. */
static void xrt__cpu_mem_shutdown(void)
{
    int d;
    for (d = 0; d < XRT__CPU_DEVICES_MAX; d++) {
        xrt__cpu_devmem *m = &xrt__cpu_mem[d];
        xrt__cpu_lock(&m->lock);
        while (m->nkept) xrt__cpu_unmap(m->kept[--m->nkept]); /* never exported: no file */
        m->kept_bytes = 0;
        xrt__cpu_unlock(&m->lock);
    }
}

/* As cudaMalloc and cudaMallocHost, refused during a capture whose mode
   forbids CUDA's potentially unsafe calls (xrt__cpu_cap_unsafe). */
static xrt_status xrt__cpu_malloc(const xrt_backend *self, void **ptr, size_t size)
{
    xrt_status st = xrt__cpu_cap_unsafe("cpu: xrt_malloc");
    return st != XRT_SUCCESS ? st : xrt__cpu_dev_alloc(ptr, size, "cpu: xrt_malloc");
}

static xrt_status xrt__cpu_pinned_alloc(void **ptr, size_t size, const char *who)
{
    size_t rounded = (size + XRT_ALIGNMENT - 1) & ~(size_t)(XRT_ALIGNMENT - 1);
    xrt_status st = xrt__cpu_cap_unsafe(who);
    if (st != XRT_SUCCESS) return st;
    *ptr = rounded >= size ? XRT_ALIGNED_ALLOC(XRT_ALIGNMENT, rounded) : NULL;
    if (!*ptr) return xrt_error(XRT_ERROR_OUT_OF_MEMORY, who, "cannot allocate %zu bytes", size);
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_malloc_host(const xrt_backend *self, void **ptr, size_t size)
{
    (void)self;
    return xrt__cpu_pinned_alloc(ptr, size, "cpu: xrt_malloc_host");
}

/* Mapped host allocation: xrt_malloc_host's memory (every CPU device maps
   all host memory already: MAPPED and PORTABLE hold, WRITE_COMBINED is a
   hint with nothing to combine); the flags are xrt's record. */
static xrt_status xrt__cpu_host_alloc(const xrt_backend *self, void **ptr, size_t size, unsigned flags)
{
    (void)self;
    (void)flags;
    return xrt__cpu_pinned_alloc(ptr, size, "cpu: xrt_host_alloc");
}

static xrt_status xrt__cpu_host_get_flags(const xrt_backend *self, unsigned *flags, void *ptr)
{
    (void)self;
    xrt__mem_host_flags(ptr, flags);
    return XRT_SUCCESS;
}

/* Like cudaFree and cudaFreeHost, waits for all queued work first: work
   enqueued before the free may still use the memory. On failure the memory
   stays allocated (and in xrt's registry). */
static xrt_status xrt__cpu_release(const char *who)
{
    xrt_status st = xrt__cpu_cap_unsafe(who);
    if (st == XRT_SUCCESS) st = xrt__cpu_sync_all(-1, who);
    return st;
}

static void xrt__cpu_mpool_free_now(xrt__cpu_head *h);

static xrt_status xrt__cpu_free(const xrt_backend *self, void *ptr)
{
    xrt_status st = xrt__cpu_release("cpu: xrt_free");
    if (st == XRT_SUCCESS) st = xrt__cpu_cap_owned(ptr, "cpu: xrt_free");
    if (st == XRT_SUCCESS && XRT__UNLIKELY(__atomic_load_n(&xrt__cpu_ngleft, __ATOMIC_ACQUIRE)) &&
        xrt__cpu_gmem_free(ptr, "cpu: xrt_free", &st))
        return st;
    if (st == XRT_SUCCESS && xrt__cpu_head_of(ptr)->pool) xrt__cpu_mpool_free_now(xrt__cpu_head_of(ptr));
    else if (st == XRT_SUCCESS) xrt__cpu_dev_release(ptr);
    return st;
}

static xrt_status xrt__cpu_free_host(const xrt_backend *self, void *ptr)
{
    xrt_status st = xrt__cpu_release("cpu: xrt_free_host");
    if (st == XRT_SUCCESS) XRT_FREE(ptr);
    return st;
}

/* >> cpu: memory pools. A pool hands out device ranges (xrt__cpu_dev_alloc_on)
   and takes them back at their free: a block freed on a stream goes on the
   pool's free list at once, reusable by later allocations on that stream
   (its work comes after the free); once the stream reaches the free
   (xrt__cpu_run_mpool_free) it is "done", and reusable on any stream if the
   pool allows opportunistic reuse. A block serves an allocation of the same
   span (whole pages). Free blocks over the release threshold go back at the
   next synchronize (any stream's, an event's, the device's), those of a
   trim at once; only done ones: a block whose free is still queued is in
   use by its stream. The event-dependency and internal-dependency policies
   are kept and reported, but reuse across streams needs a done free here. */
typedef struct xrt__cpu_mpool {
    int lock;     /* guards the rest but `next` */
    int device;
    int ready;    /* a default pool: set up */
    int destroyed, was_current, gone;
    int policy[4]; /* by xrt_mem_pool_attr 1..3 */
    uint64_t threshold, reserved, reserved_high, used, used_high;
    uint64_t access; /* bit d: device d was given READ_WRITE (the owner always has it) */
    size_t live, ops; /* allocations outstanding; holds: frees queued and not yet run, calls at work on it */
    xrt__cpu_head *free;
    struct xrt__cpu_mpool *next; /* in xrt__cpu_mpools (created pools) */
} xrt__cpu_mpool;

static xrt__cpu_mpool xrt__cpu_mpool_dflt[XRT__CPU_DEVICES_MAX];
static xrt__cpu_mpool *xrt__cpu_mpool_current[XRT__CPU_DEVICES_MAX]; /* NULL: the default */
static xrt__cpu_mpool *xrt__cpu_mpools;                              /* created pools */
static int xrt__cpu_mpools_lock;   /* guards the list and the default pools' set-up */
static int xrt__cpu_mpool_excess;  /* a pool may hold free bytes over its threshold: a synchronize looks */

static void xrt__cpu_mpool_init(xrt__cpu_mpool *p, int device)
{
    p->device = device;
    p->policy[XRT_MEMPOOL_REUSE_FOLLOW_EVENT_DEPENDENCIES] = 1; /* CUDA's defaults */
    p->policy[XRT_MEMPOOL_REUSE_ALLOW_OPPORTUNISTIC] = 1;
    p->policy[XRT_MEMPOOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES] = 1;
}

static xrt__cpu_mpool *xrt__cpu_mpool_default(int device)
{
    xrt__cpu_mpool *p = &xrt__cpu_mpool_dflt[device];
    if (__atomic_load_n(&p->ready, __ATOMIC_ACQUIRE)) return p;
    xrt__cpu_lock(&xrt__cpu_mpools_lock);
    if (!p->ready) {
        xrt__cpu_mpool_init(p, device);
        __atomic_store_n(&p->ready, 1, __ATOMIC_RELEASE);
    }
    xrt__cpu_unlock(&xrt__cpu_mpools_lock);
    return p;
}

static xrt__cpu_mpool *xrt__cpu_mpool_of_device(int device)
{
    xrt__cpu_mpool *p = __atomic_load_n(&xrt__cpu_mpool_current[device], __ATOMIC_ACQUIRE);
    return p ? p : xrt__cpu_mpool_default(device);
}

static uint64_t xrt__cpu_mpool_bytes(const xrt__cpu_head *h) { return xrt__cpu_span(h->size) - xrt__cpu_page(); }

static void xrt__cpu_mpool_marks_locked(xrt__cpu_mpool *p)
{
    if (p->reserved > p->reserved_high) p->reserved_high = p->reserved;
    if (p->used > p->used_high) p->used_high = p->used;
}

/* Whether `stream` may reuse free block h now. Streams are the objects
   themselves (each device's legacy stream its own); a block of xrt_free
   (no stream) was free at once, for any stream. */
static int xrt__cpu_mpool_may_reuse(const xrt__cpu_mpool *p, const xrt__cpu_head *h, const void *stream)
{
    return h->pool_stream == stream ||
           (h->pool_done && (!h->pool_stream || p->policy[XRT_MEMPOOL_REUSE_ALLOW_OPPORTUNISTIC]));
}

/* A free block of this span that `stream` may reuse, off the list and counted used; NULL if none. */
static xrt__cpu_head *xrt__cpu_mpool_take(xrt__cpu_mpool *p, size_t span, const void *stream)
{
    xrt__cpu_head **at, *h;
    xrt__cpu_lock(&p->lock);
    for (at = &p->free; (h = *at) != NULL; at = &h->pool_next)
        if (xrt__cpu_span(h->size) == span && xrt__cpu_mpool_may_reuse(p, h, stream)) {
            *at = h->pool_next;
            p->used += xrt__cpu_mpool_bytes(h);
            p->live++;
            xrt__cpu_mpool_marks_locked(p);
            break;
        }
    xrt__cpu_unlock(&p->lock);
    return h;
}

static xrt_status xrt__cpu_mpool_alloc(xrt__cpu_mpool *p, void **ptr, size_t size, const void *stream, const char *fn)
{
    size_t span = xrt__cpu_span(size);
    xrt__cpu_devmem *m = &xrt__cpu_mem[p->device];
    xrt__cpu_head *h = span ? xrt__cpu_mpool_take(p, span, stream) : NULL;
    uint64_t gen;
    xrt_status st;
    if (h) {
        xrt__cpu_lock(&m->lock);
        gen = ++m->gen; /* a new allocation for IPC and the registry */
        xrt__cpu_unlock(&m->lock);
        xrt__cpu_head_init(h, size, gen, p->device);
        h->pool = p;
        /* Under XRT_CPU_POPULATE its pages came at its first allocation; a pool keeps them. */
        *ptr = (char *)h + xrt__cpu_page();
        return XRT_SUCCESS;
    }
    if ((st = xrt__cpu_dev_alloc_on(p->device, ptr, size, fn)) != XRT_SUCCESS) return st;
    h = xrt__cpu_head_of(*ptr);
    h->pool = p;
    xrt__cpu_lock(&p->lock);
    p->reserved += xrt__cpu_mpool_bytes(h);
    p->used += xrt__cpu_mpool_bytes(h);
    p->live++;
    xrt__cpu_mpool_marks_locked(p);
    xrt__cpu_unlock(&p->lock);
    return XRT_SUCCESS;
}

/* Reached free blocks off the list, until the pool holds at most `keep`
   bytes (XRT__CPU_MPOOL_THRESHOLD: its release threshold), then released. */
#define XRT__CPU_MPOOL_THRESHOLD UINT64_MAX
static void xrt__cpu_mpool_release(xrt__cpu_mpool *p, uint64_t keep)
{
    xrt__cpu_head **at, *h, *out = NULL;
    xrt__cpu_lock(&p->lock);
    if (keep == XRT__CPU_MPOOL_THRESHOLD) keep = p->threshold;
    for (at = &p->free; (h = *at) != NULL && p->reserved > keep;)
        if (h->pool_done) {
            *at = h->pool_next;
            p->reserved -= xrt__cpu_mpool_bytes(h);
            h->pool_next = out;
            out = h;
        } else {
            at = &h->pool_next;
        }
    xrt__cpu_unlock(&p->lock);
    while ((h = out) != NULL) {
        out = h->pool_next;
        h->pool = NULL;
        xrt__cpu_dev_release((char *)h + xrt__cpu_page());
    }
}

/* A destroyed pool goes with its last allocation and its last hold (a
   queued free, or a call working on the pool); one that was a device's
   current pool stays until shutdown (an allocation may have read it there
   just before). The drop of the last hold and this decision are one
   critical section: after it, another thread may have freed the pool. */
static int xrt__cpu_mpool_last_locked(xrt__cpu_mpool *p)
{
    int last = p->destroyed && !p->was_current && !p->live && !p->ops && !p->gone;
    if (last) p->gone = 1;
    return last;
}

static void xrt__cpu_mpool_gone(xrt__cpu_mpool *p)
{
    xrt__cpu_mpool **at;
    xrt__cpu_mpool_release(p, 0);
    xrt__cpu_lock(&xrt__cpu_mpools_lock);
    for (at = &xrt__cpu_mpools; *at && *at != p; at = &(*at)->next) {
    }
    if (*at) *at = p->next;
    xrt__cpu_unlock(&xrt__cpu_mpools_lock);
    XRT_FREE(p);
}

static void xrt__cpu_mpool_hold(xrt__cpu_mpool *p)
{
    xrt__cpu_lock(&p->lock);
    p->ops++;
    xrt__cpu_unlock(&p->lock);
}

static void xrt__cpu_mpool_unhold(xrt__cpu_mpool *p)
{
    int last;
    xrt__cpu_lock(&p->lock);
    p->ops--;
    last = xrt__cpu_mpool_last_locked(p);
    xrt__cpu_unlock(&p->lock);
    if (last) xrt__cpu_mpool_gone(p);
}

/* Block h back to its pool, freed on `stream` (done: its work is done);
   0 if the pool does not keep it (exported or shared: never reused, as
   xrt__cpu_range_keep; or the pool destroyed): the caller releases it. */
static int xrt__cpu_mpool_put(xrt__cpu_head *h, const void *stream, int done)
{
    xrt__cpu_mpool *p = h->pool;
    uint64_t bytes = xrt__cpu_mpool_bytes(h);
    int keep;
    xrt__cpu_lock(&p->lock);
    p->used -= bytes;
    p->live--;
    keep = !h->exported && !h->shared && !p->destroyed;
    if (keep) {
        h->pool_stream = stream;
        h->pool_done = (uint32_t)done;
        h->pool_next = p->free;
        p->free = h;
    } else {
        p->reserved -= bytes;
    }
    if (!done) p->ops++;
    xrt__cpu_unlock(&p->lock);
    if (keep) __atomic_store_n(&xrt__cpu_mpool_excess, 1, __ATOMIC_RELAXED);
    else h->pool = NULL;
    return keep;
}

/* A refused free's block allocated again, unless the stream took it back meanwhile (then it is its). */
static void xrt__cpu_mpool_unput(xrt__cpu_head *h)
{
    xrt__cpu_mpool *p = h->pool;
    xrt__cpu_head **at;
    xrt__cpu_lock(&p->lock);
    for (at = &p->free; *at && *at != h; at = &(*at)->pool_next) {
    }
    if (*at) {
        *at = h->pool_next;
        p->used += xrt__cpu_mpool_bytes(h);
        p->live++;
    }
    xrt__cpu_unlock(&p->lock);
    xrt__cpu_mpool_unhold(p); /* the put's */
}

/* The stream reached a pool block's free: the block, if still free from
   that free (not reused since: its generation), may serve other streams. */
static void xrt__cpu_run_mpool_free(xrt__cpu_op *op)
{
    xrt__cpu_mpool *p = (xrt__cpu_mpool *)op->u.mfree.pool;
    xrt__cpu_head *h;
    xrt__cpu_lock(&p->lock);
    for (h = p->free; h; h = h->pool_next)
        if (h == op->u.mfree.head && h->gen == op->u.mfree.gen) h->pool_done = 1;
    xrt__cpu_unlock(&p->lock);
    __atomic_store_n(&xrt__cpu_mpool_excess, 1, __ATOMIC_RELAXED);
    xrt__cpu_mpool_unhold(p); /* the put's */
}

/* Free blocks over each pool's threshold go back: at each synchronize, one load while no pool has any. */
static void xrt__cpu_mpools_trim(void)
{
    xrt__cpu_mpool *p;
    int d;
    if (XRT__LIKELY(!__atomic_load_n(&xrt__cpu_mpool_excess, __ATOMIC_RELAXED))) return;
    __atomic_store_n(&xrt__cpu_mpool_excess, 0, __ATOMIC_RELAXED);
    for (d = 0; d < XRT__CPU_DEVICES_MAX; d++)
        if (__atomic_load_n(&xrt__cpu_mpool_dflt[d].ready, __ATOMIC_ACQUIRE))
            xrt__cpu_mpool_release(&xrt__cpu_mpool_dflt[d], XRT__CPU_MPOOL_THRESHOLD);
    xrt__cpu_lock(&xrt__cpu_mpools_lock);
    for (p = xrt__cpu_mpools; p; p = p->next) xrt__cpu_mpool_release(p, XRT__CPU_MPOOL_THRESHOLD);
    xrt__cpu_unlock(&xrt__cpu_mpools_lock);
}

/* xrt_free of a pool's block: the device is idle, the block is free at once. */
static void xrt__cpu_mpool_free_now(xrt__cpu_head *h)
{
    xrt__cpu_mpool *p = h->pool;
    xrt__cpu_mpool_hold(p); /* h is live: the pool is there */
    if (!xrt__cpu_mpool_put(h, NULL, 1)) xrt__cpu_dev_release((char *)h + xrt__cpu_page());
    else xrt__cpu_mpool_release(p, XRT__CPU_MPOOL_THRESHOLD);
    xrt__cpu_mpool_unhold(p);
}

/* Shutdown (xrt has freed every allocation and destroyed every pool's handle) and a forked child. */
static void xrt__cpu_mpools_shutdown(void)
{
    xrt__cpu_mpool *p;
    int d;
    for (d = 0; d < XRT__CPU_DEVICES_MAX; d++) {
        if (xrt__cpu_mpool_dflt[d].ready) xrt__cpu_mpool_release(&xrt__cpu_mpool_dflt[d], 0);
        memset(&xrt__cpu_mpool_dflt[d], 0, sizeof xrt__cpu_mpool_dflt[d]);
        xrt__cpu_mpool_current[d] = NULL;
    }
    while ((p = xrt__cpu_mpools) != NULL) {
        xrt__cpu_mpools = p->next;
        xrt__cpu_mpool_release(p, 0);
        XRT_FREE(p);
    }
}

/* A forked child: the free blocks go (its copy-on-write of the parent's
   private memory; a block not yet "done" waits for a point of its stream
   that the child's orphaned stream dropped, so the pools start empty); the
   locks' holders did not come along. */
static void xrt__cpu_mpool_fork_drop(xrt__cpu_mpool *p)
{
    xrt__cpu_head *h;
    p->lock = 0;
    while ((h = p->free) != NULL) {
        p->free = h->pool_next;
        p->reserved -= xrt__cpu_mpool_bytes(h);
        xrt__cpu_maps_drop(h); /* its lock was reset first (xrt__cpu_fork_child) */
        munmap(h, xrt__cpu_span(h->size));
    }
}

static void xrt__cpu_mpools_fork_child(void)
{
    xrt__cpu_mpool *p;
    int d;
    xrt__cpu_mpools_lock = 0;
    for (d = 0; d < XRT__CPU_DEVICES_MAX; d++) xrt__cpu_mpool_fork_drop(&xrt__cpu_mpool_dflt[d]);
    for (p = xrt__cpu_mpools; p; p = p->next) xrt__cpu_mpool_fork_drop(p);
}

static xrt_status xrt__cpu_device_get_default_mem_pool(const xrt_backend *self, void **pool, int device)
{
    (void)self;
    *pool = xrt__cpu_mpool_default(device);
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_device_get_mem_pool(const xrt_backend *self, void **pool, int device)
{
    (void)self;
    *pool = xrt__cpu_mpool_of_device(device);
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_device_set_mem_pool(const xrt_backend *self, int device, void *pool)
{
    xrt__cpu_mpool *p = (xrt__cpu_mpool *)pool;
    (void)self;
    if (p->device != device)
        return xrt_error(XRT_ERROR_INVALID_VALUE, "cpu: xrt_device_set_mem_pool",
                         "the pool's memory is on device %d, not device %d", p->device, device);
    xrt__cpu_lock(&p->lock);
    if (p != &xrt__cpu_mpool_dflt[device]) p->was_current = 1;
    xrt__cpu_unlock(&p->lock);
    __atomic_store_n(&xrt__cpu_mpool_current[device], p == &xrt__cpu_mpool_dflt[device] ? NULL : p,
                     __ATOMIC_RELEASE);
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_mem_pool_create(const xrt_backend *self, void **pool, const xrt_mem_pool_props *props)
{
    xrt__cpu_mpool *p = (xrt__cpu_mpool *)XRT_CALLOC(1, sizeof *p);
    (void)self;
    if (!p) return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "cpu: xrt_mem_pool_create", "no memory for a pool");
    xrt__cpu_mpool_init(p, props->device);
    xrt__cpu_lock(&xrt__cpu_mpools_lock);
    p->next = xrt__cpu_mpools;
    xrt__cpu_mpools = p;
    xrt__cpu_unlock(&xrt__cpu_mpools_lock);
    *pool = p;
    return XRT_SUCCESS;
}

/* As cudaMemPoolDestroy: a device whose current pool it was goes back to its default. */
static xrt_status xrt__cpu_mem_pool_destroy(const xrt_backend *self, void *pool)
{
    xrt__cpu_mpool *p = (xrt__cpu_mpool *)pool, *was = p;
    (void)self;
    __atomic_compare_exchange_n(&xrt__cpu_mpool_current[p->device], &was, (xrt__cpu_mpool *)NULL, 0,
                                __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
    xrt__cpu_lock(&p->lock);
    p->destroyed = 1;
    p->ops++; /* a hold until the release below is done */
    xrt__cpu_unlock(&p->lock);
    xrt__cpu_mpool_release(p, 0);
    xrt__cpu_mpool_unhold(p);
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_mem_pool_set_attribute(const xrt_backend *self, void *pool, int attr, uint64_t value)
{
    xrt__cpu_mpool *p = (xrt__cpu_mpool *)pool;
    (void)self;
    xrt__cpu_lock(&p->lock);
    if (attr <= XRT_MEMPOOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES) p->policy[attr] = (int)value;
    else if (attr == XRT_MEMPOOL_ATTR_RELEASE_THRESHOLD) p->threshold = value;
    else if (attr == XRT_MEMPOOL_ATTR_RESERVED_MEM_HIGH) p->reserved_high = p->reserved; /* a reset */
    else p->used_high = p->used;
    xrt__cpu_unlock(&p->lock);
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_mem_pool_get_attribute(const xrt_backend *self, void *pool, int attr, uint64_t *value)
{
    xrt__cpu_mpool *p = (xrt__cpu_mpool *)pool;
    const uint64_t *amounts[] = {&p->threshold, &p->reserved, &p->reserved_high, &p->used, &p->used_high};
    (void)self;
    xrt__cpu_lock(&p->lock);
    *value = attr <= XRT_MEMPOOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES ? (uint64_t)p->policy[attr]
                                                                   : *amounts[attr - XRT_MEMPOOL_ATTR_RELEASE_THRESHOLD];
    xrt__cpu_unlock(&p->lock);
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_mem_pool_trim_to(const xrt_backend *self, void *pool, size_t keep)
{
    (void)self;
    xrt__cpu_mpool_release((xrt__cpu_mpool *)pool, keep == XRT__CPU_MPOOL_THRESHOLD ? keep - 1 : keep); /* keep all */
    return XRT_SUCCESS;
}

/* >> cpu: pool access. Every CPU device reaches every other's memory (it is
   all host memory), so what a port sets is recorded and answered, as CUDA
   answers it, and changes nothing else; the owner is always READ_WRITE and
   cannot be set to NONE (HIP's tests expect hipErrorInvalidDevice). */
static xrt_status xrt__cpu_mem_pool_set_access(const xrt_backend *self, void *pool, const xrt_mem_access_desc *descs,
                                               size_t count)
{
    xrt__cpu_mpool *p = (xrt__cpu_mpool *)pool;
    size_t i;
    (void)self;
    for (i = 0; i < count; i++)
        if (descs[i].device == p->device && descs[i].flags != XRT_MEM_ACCESS_FLAGS_PROT_READ_WRITE)
            return xrt_error(XRT_ERROR_INVALID_DEVICE, "xrt_mem_pool_set_access",
                             "cpu: device %d owns the pool: its access is always READ_WRITE", p->device);
    xrt__cpu_lock(&p->lock);
    for (i = 0; i < count; i++) {
        uint64_t bit = (uint64_t)1 << descs[i].device;
        p->access = descs[i].flags ? p->access | bit : p->access & ~bit;
    }
    xrt__cpu_unlock(&p->lock);
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_mem_pool_get_access(const xrt_backend *self, unsigned *flags, void *pool, int device)
{
    xrt__cpu_mpool *p = (xrt__cpu_mpool *)pool;
    int on;
    (void)self;
    xrt__cpu_lock(&p->lock);
    on = device == p->device || (p->access >> device & 1);
    xrt__cpu_unlock(&p->lock);
    *flags = on ? XRT_MEM_ACCESS_FLAGS_PROT_READ_WRITE : XRT_MEM_ACCESS_FLAGS_PROT_NONE;
    return XRT_SUCCESS;
}

/* Whether h is a freed range kept for reuse (compared, never read: it may be gone). */
static int xrt__cpu_range_kept(const xrt__cpu_head *h)
{
    int d, i, kept = 0;
    for (d = 0; d < XRT__CPU_DEVICES_MAX && !kept; d++) {
        xrt__cpu_devmem *m = &xrt__cpu_mem[d];
        xrt__cpu_lock(&m->lock);
        for (i = 0; i < m->nkept && !kept; i++) kept = m->kept[i] == h;
        xrt__cpu_unlock(&m->lock);
    }
    return kept;
}

/* Whether h is on pool p's free list, or on any pool's (compared likewise). */
static int xrt__cpu_mpool_has(xrt__cpu_mpool *p, const xrt__cpu_head *h)
{
    const xrt__cpu_head *f;
    xrt__cpu_lock(&p->lock);
    for (f = p->free; f && f != h; f = f->pool_next) {
    }
    xrt__cpu_unlock(&p->lock);
    return f != NULL;
}

static int xrt__cpu_mpools_have(const xrt__cpu_head *h)
{
    xrt__cpu_mpool *p;
    int d, has = 0;
    for (d = 0; d < XRT__CPU_DEVICES_MAX && !has; d++)
        if (__atomic_load_n(&xrt__cpu_mpool_dflt[d].ready, __ATOMIC_ACQUIRE))
            has = xrt__cpu_mpool_has(&xrt__cpu_mpool_dflt[d], h);
    xrt__cpu_lock(&xrt__cpu_mpools_lock);
    for (p = xrt__cpu_mpools; p && !has; p = p->next) has = xrt__cpu_mpool_has(p, h);
    xrt__cpu_unlock(&xrt__cpu_mpools_lock);
    return has;
}

/* What the range mapped at `start` is to [p, ...), which overlaps it. */
static const char *xrt__cpu_range_role(uintptr_t start, uintptr_t p)
{
    const xrt__cpu_head *h = (const xrt__cpu_head *)start;
    if (p < start + xrt__cpu_page()) return "its private head page, xrt's record of the range";
    if (xrt__cpu_range_kept(h)) return "a freed range, kept for the next allocation of its size";
    if (xrt__cpu_mpools_have(h)) return "a free block of a memory pool";
    return "in use (an allocation's pages past its bytes, a graph's memory, an interprocess event's records)";
}

static const char *xrt__cpu_hex(const char *p, uintptr_t *v)
{
    *v = 0;
    for (;; p++) {
        int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
        if (d < 0) return p;
        *v = *v << 4 | (uintptr_t)d;
    }
}

/* Each line of /proc/self/maps (cut at 511 bytes) to fn until it answers
   non-zero, which is returned; 0 at the end, or where the file cannot be
   opened. The file is read with read(2): no allocation (also in a forked
   child). */
static int xrt__cpu_maps_lines(int (*fn)(const char *line, void *ctx), void *ctx)
{
    char buf[8192], line[512];
    size_t used = 0;
    ssize_t n;
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC), found = 0;
    if (fd < 0) return 0;
    while (!found && (n = read(fd, buf, sizeof buf)) > 0) {
        ssize_t i;
        for (i = 0; i < n && !found; i++) {
            if (buf[i] != '\n') {
                if (used < sizeof line - 1) line[used++] = buf[i];
                continue;
            }
            line[used] = 0;
            used = 0;
            found = fn(line, ctx);
        }
    }
    close(fd);
    return found;
}

/* The first mapping of /proc/self/maps that overlaps [p, end) without the
   permission `need` ('r' or 'w'; the line's "rwxp" field follows the
   range), its first byte in the range in *at. Lines go up in address: the
   first such line holds the lowest such page. */
typedef struct xrt__cpu_prot_ask { uintptr_t p, end, at; char need; } xrt__cpu_prot_ask;

static int xrt__cpu_prot_line(const char *line, void *ctx)
{
    xrt__cpu_prot_ask *a = (xrt__cpu_prot_ask *)ctx;
    uintptr_t start, end;
    const char *q = xrt__cpu_hex(line, &start);
    if (*q != '-' || *(q = xrt__cpu_hex(q + 1, &end)) != ' ' || end <= a->p || start >= a->end) return 0;
    if (q[a->need == 'r' ? 1 : 2] == a->need) return 0;
    a->at = start > a->p ? start : a->p;
    return 1;
}

/* Registered host memory: the CPU devices use host memory as it is, so a
   registered range needs nothing but xrt's record (which makes it pinned:
   copies of it are asynchronous). Unregistering waits for queued work, as
   xrt_free_host does: an enqueued copy may still use the range. A range
   that overlaps one of the backend's mappings (xrt__cpu_maps) is device
   memory, refused as cudaHostRegister refuses a GPU's
   (cudaErrorInvalidValue): registered, a write through it would break a
   range's record or reach the next allocation made there. */
/* Whether [p, p + n) holds a page not mapped in the process, and which
   (*hole): mincore(2) fails with ENOMEM on a range that holds one (a page
   mapped but never touched counts as mapped). A chunk of pages per call
   keeps the vector small; only a failed chunk is looked at page by page.
   Another failure (EAGAIN) refuses nothing. */
static int xrt__cpu_unmapped_page(uintptr_t p, size_t n, uintptr_t *hole)
{
    unsigned char vec[256];
    uintptr_t page = xrt__cpu_page(), at = p & ~(page - 1), end = p + n, q;
    size_t chunk = sizeof vec * page, len;
    for (; at < end; at += len) {
        len = end - at < chunk ? end - at : chunk;
        if (mincore((void *)at, len, vec) == 0 || errno != ENOMEM) continue;
        for (q = at; q < at + len; q += page)
            if (mincore((void *)q, 1, vec) != 0 && errno == ENOMEM) return *hole = q, 1;
    }
    return 0;
}

/* As cudaHostRegister on a GPU that does not use the host's page tables:
   the driver pins the pages for the device's writes (get_user_pages with
   FOLL_WRITE), which fails on a page the process may not write
   (cudaErrorInvalidValue); with cudaHostRegisterReadOnly it pins them for
   reads, which fails on a page it may not read (PROT_NONE). */
static xrt_status xrt__cpu_register_prot(void *ptr, size_t size, unsigned flags)
{
    xrt__cpu_prot_ask a;
    int ro = (flags & XRT_HOST_REGISTER_READ_ONLY) != 0;
    a.p = (uintptr_t)ptr;
    a.end = (uintptr_t)ptr + size;
    a.need = ro ? 'r' : 'w';
    if (!xrt__cpu_maps_lines(xrt__cpu_prot_line, &a)) return XRT_SUCCESS;
    return xrt_error(XRT_ERROR_INVALID_VALUE, "cpu: xrt_host_register",
                     ro ? "%zu bytes at %p: the page at %p is mapped without read access (PROT_NONE)"
                        : "%zu bytes at %p: the page at %p is mapped without write access (read-only: register it with "
                          "XRT_HOST_REGISTER_READ_ONLY)",
                     size, ptr, (void *)(a.at & ~(xrt__cpu_page() - 1)));
}

static xrt_status xrt__cpu_host_register(const xrt_backend *self, void *ptr, size_t size, unsigned flags)
{
    uintptr_t start, end, hole;
    xrt_status st;
    (void)self;
    /* as cudaHostRegister, whose pinning of an unmapped page fails (cudaErrorInvalidValue) */
    if (xrt__cpu_unmapped_page((uintptr_t)ptr, size, &hole))
        return xrt_error(XRT_ERROR_INVALID_VALUE, "cpu: xrt_host_register",
                         "%zu bytes at %p: the page at %p is not mapped in the process (unmapped, or never mapped)",
                         size, ptr, (void *)hole);
    if ((st = xrt__cpu_register_prot(ptr, size, flags)) != XRT_SUCCESS) return st;
    if (!xrt__cpu_maps_overlap((uintptr_t)ptr, size, &start, &end)) return XRT_SUCCESS;
    return xrt_error(XRT_ERROR_INVALID_VALUE, "cpu: xrt_host_register",
                     "%zu bytes at %p overlap the device memory the backend maps at [%p, %p): %s", size, ptr,
                     (void *)start, (void *)end, xrt__cpu_range_role(start, (uintptr_t)ptr));
}

static xrt_status xrt__cpu_host_unregister(const xrt_backend *self, void *ptr)
{
    (void)self;
    (void)ptr;
    return xrt__cpu_release("cpu: xrt_host_unregister");
}

static xrt_status xrt__cpu_host_get_device_pointer(const xrt_backend *self, void **dptr, void *hptr, unsigned flags)
{
    (void)self;
    (void)flags;
    *dptr = hptr;
    return XRT_SUCCESS;
}

/* >> cpu: managed memory. The host and every CPU device use the same memory
   at the same addresses, so a managed allocation is a device allocation of
   the current device (placed on its node under XRT_CPU_DEVICES=numa) that
   xrt's registry calls managed; xrt_free frees it as device memory.
   Attaching changes nothing (any stream may use any memory here). A
   prefetch is an op in stream order: to a device placed on a NUMA node it
   moves the range's pages there (mbind with MPOL_MF_MOVE; pages another
   process maps stay), elsewhere it does nothing. A preferred location on a
   placed device binds the range to its node (preferred) for the pages
   touched later; the other advice has no effect on the CPU. */
#define XRT__MPOL_MF_MOVE 2

static xrt_status xrt__cpu_malloc_managed(const xrt_backend *self, void **ptr, size_t size, unsigned flags)
{
    xrt_status st = xrt__cpu_cap_unsafe("cpu: xrt_malloc_managed");
    (void)self;
    (void)flags;
    return st != XRT_SUCCESS ? st : xrt__cpu_dev_alloc(ptr, size, "cpu: xrt_malloc_managed");
}

/* >> cpu: managed memory's advice. What xrt_mem_advise and
   xrt_mem_prefetch_async said of each page of a managed allocation, for
   xrt_mem_range_get_attribute: runs of pages with one value, from page 0
   to the allocation's end, sorted. A location is kept as location + 2 (0:
   none; 1: the host; d + 2: device d); accessed-by as a mask of devices
   and a bit for the host. Advice is rare: one lock for every allocation. */
typedef struct xrt__cpu_pages {
    uint64_t first; /* the run's first page; it ends where the next begins */
    uint64_t by;    /* devices with accessed-by advice */
    uint32_t flags; /* XRT__CPU_ADV_* */
} xrt__cpu_pages;
enum { XRT__CPU_ADV_READ_MOSTLY = 1, XRT__CPU_ADV_BY_HOST = 2 };
#define XRT__CPU_ADV_PREFER(f) (((f) >> 8) & 0xffu)
#define XRT__CPU_ADV_FETCH(f) (((f) >> 16) & 0xffu)
typedef struct xrt__cpu_advice {
    size_t n, cap;
    xrt__cpu_pages *run;
} xrt__cpu_advice;
static pthread_mutex_t xrt__cpu_advice_lock = PTHREAD_MUTEX_INITIALIZER;

static void xrt__cpu_advice_drop(xrt__cpu_head *h)
{
    pthread_mutex_lock(&xrt__cpu_advice_lock);
    free(h->advice->run);
    free(h->advice);
    h->advice = NULL;
    pthread_mutex_unlock(&xrt__cpu_advice_lock);
}

/* One run of nothing said over every page; NULL when out of memory. */
static xrt__cpu_advice *xrt__cpu_advice_new(void)
{
    xrt__cpu_advice *a = (xrt__cpu_advice *)malloc(sizeof *a);
    if (a && !(a->run = (xrt__cpu_pages *)calloc(4, sizeof *a->run))) {
        free(a);
        a = NULL;
    }
    if (a) a->n = 1, a->cap = 4;
    return a;
}

/* The run holding page p, given the array starts at page 0. */
static size_t xrt__cpu_advice_at(const xrt__cpu_advice *a, uint64_t p)
{
    size_t lo = 0, hi = a->n;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (a->run[mid].first <= p) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* Makes page p the first of a run (splitting the run holding it): 0 when
   out of memory. */
static int xrt__cpu_advice_split(xrt__cpu_advice *a, uint64_t p)
{
    size_t i = xrt__cpu_advice_at(a, p);
    if (a->run[i].first == p) return 1;
    if (a->n == a->cap) {
        xrt__cpu_pages *more = (xrt__cpu_pages *)realloc(a->run, 2 * a->cap * sizeof *more);
        if (!more) return 0;
        a->run = more;
        a->cap *= 2;
    }
    memmove(&a->run[i + 2], &a->run[i + 1], (a->n - i - 1) * sizeof a->run[0]);
    a->run[i + 1] = a->run[i];
    a->run[i + 1].first = p;
    a->n++;
    return 1;
}

/* Runs next to each other with one value become one. */
static void xrt__cpu_advice_merge(xrt__cpu_advice *a)
{
    size_t i, n = 1;
    for (i = 1; i < a->n; i++)
        if (a->run[i].by != a->run[n - 1].by || a->run[i].flags != a->run[n - 1].flags) a->run[n++] = a->run[i];
    a->n = n;
}

/* The pages of [ptr, ptr + count) in allocation h: [*first, *end). */
static xrt__cpu_head *xrt__cpu_advice_pages(const void *ptr, size_t count, uint64_t *first, uint64_t *end)
{
    xrt_pointer_attributes at;
    size_t page = xrt__cpu_page();
    uint64_t off;
    xrt__mem_lookup(xrt__cpu.self, &at, ptr); /* the dispatch layer checked it is managed memory */
    off = (uint64_t)((uintptr_t)ptr - (uintptr_t)at.base);
    *first = off / page;
    *end = (off + count + page - 1) / page;
    return xrt__cpu_head_of(at.base);
}

/* Sets (mask, bits) or clears them in every page of the range: 0 when out of memory. */
static int xrt__cpu_advice_set(const void *ptr, size_t count, uint32_t clear, uint32_t set, uint64_t by_clear,
                               uint64_t by_set)
{
    uint64_t p, end, i;
    xrt__cpu_head *h = xrt__cpu_advice_pages(ptr, count, &p, &end);
    int ok = 1;
    pthread_mutex_lock(&xrt__cpu_advice_lock);
    if (!h->advice) h->advice = xrt__cpu_advice_new();
    if (!h->advice || !xrt__cpu_advice_split(h->advice, p) ||
        (end < (h->size + xrt__cpu_page() - 1) / xrt__cpu_page() && !xrt__cpu_advice_split(h->advice, end)))
        ok = 0;
    else {
        for (i = xrt__cpu_advice_at(h->advice, p); i < h->advice->n && h->advice->run[i].first < end; i++) {
            h->advice->run[i].flags = (h->advice->run[i].flags & ~clear) | set;
            h->advice->run[i].by = (h->advice->run[i].by & ~by_clear) | by_set;
        }
        xrt__cpu_advice_merge(h->advice);
    }
    pthread_mutex_unlock(&xrt__cpu_advice_lock);
    return ok;
}

/* A location's bit in a run's accessed-by: the host's in flags, a device's in `by`. */
static xrt_status xrt__cpu_advise_record(const void *ptr, size_t count, int advice, int device)
{
    uint32_t loc = (uint32_t)(device + 2) << 8, host = device == XRT_CPU_DEVICE_ID ? XRT__CPU_ADV_BY_HOST : 0;
    uint64_t by = device >= 0 && device < 64 ? UINT64_C(1) << device : 0;
    int ok = 1;
    switch (advice) {
    case XRT_MEM_ADVISE_SET_READ_MOSTLY: ok = xrt__cpu_advice_set(ptr, count, 0, XRT__CPU_ADV_READ_MOSTLY, 0, 0); break;
    case XRT_MEM_ADVISE_UNSET_READ_MOSTLY: ok = xrt__cpu_advice_set(ptr, count, XRT__CPU_ADV_READ_MOSTLY, 0, 0, 0); break;
    case XRT_MEM_ADVISE_SET_PREFERRED_LOCATION: ok = xrt__cpu_advice_set(ptr, count, 0xff00u, loc, 0, 0); break;
    case XRT_MEM_ADVISE_UNSET_PREFERRED_LOCATION: ok = xrt__cpu_advice_set(ptr, count, 0xff00u, 0, 0, 0); break;
    case XRT_MEM_ADVISE_SET_ACCESSED_BY: ok = xrt__cpu_advice_set(ptr, count, 0, host, 0, by); break;
    default: ok = xrt__cpu_advice_set(ptr, count, host, 0, by, 0); break; /* XRT_MEM_ADVISE_UNSET_ACCESSED_BY */
    }
    return ok ? XRT_SUCCESS : xrt_error(XRT_ERROR_OUT_OF_MEMORY, "cpu: xrt_mem_advise", "no memory for the advice");
}

/* What every page of the range shares: the AND of their accessed-by and
   flags, and whether their locations agree (else 0 there). */
static void xrt__cpu_advice_common(const void *ptr, size_t count, uint32_t *flags, uint64_t *by)
{
    uint64_t p, end, i;
    xrt__cpu_head *h = xrt__cpu_advice_pages(ptr, count, &p, &end);
    pthread_mutex_lock(&xrt__cpu_advice_lock);
    *flags = 0;
    *by = 0;
    if (h->advice) {
        i = xrt__cpu_advice_at(h->advice, p);
        *flags = h->advice->run[i].flags;
        *by = h->advice->run[i].by;
        for (i++; i < h->advice->n && h->advice->run[i].first < end; i++) {
            uint32_t f = h->advice->run[i].flags;
            if (XRT__CPU_ADV_PREFER(f) != XRT__CPU_ADV_PREFER(*flags)) *flags &= ~0xff00u;
            if (XRT__CPU_ADV_FETCH(f) != XRT__CPU_ADV_FETCH(*flags)) *flags &= ~0xff0000u;
            *flags &= f | ~(uint32_t)(XRT__CPU_ADV_READ_MOSTLY | XRT__CPU_ADV_BY_HOST);
            *by &= h->advice->run[i].by;
        }
    }
    pthread_mutex_unlock(&xrt__cpu_advice_lock);
}

static xrt_status xrt__cpu_mem_range_get_attribute(const xrt_backend *self, void *data, size_t data_size,
                                                   int attribute, const void *ptr, size_t count)
{
    int *out = (int *)data;
    size_t n = data_size / sizeof(int), k = 0;
    uint32_t f;
    uint64_t by;
    int d;
    (void)self;
    xrt__cpu_advice_common(ptr, count, &f, &by);
    switch (attribute) {
    case XRT_MEM_RANGE_ATTRIBUTE_READ_MOSTLY: *out = (f & XRT__CPU_ADV_READ_MOSTLY) != 0; break;
    case XRT_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION: *out = (int)XRT__CPU_ADV_PREFER(f) - 2; break;
    case XRT_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION: *out = (int)XRT__CPU_ADV_FETCH(f) - 2; break;
    default: /* XRT_MEM_RANGE_ATTRIBUTE_ACCESSED_BY: devices first, then the host */
        for (d = 0; d < 64 && k < n; d++)
            if (by >> d & 1) out[k++] = d;
        if (k < n && (f & XRT__CPU_ADV_BY_HOST)) out[k++] = XRT_CPU_DEVICE_ID;
        while (k < n) out[k++] = XRT_INVALID_DEVICE_ID;
    }
    return XRT_SUCCESS;
}

static void xrt__cpu_run_prefetch(xrt__cpu_op *op)
{
    xrt__cpu_place_memory(op->u.move.device, op->u.move.ptr, op->u.move.size, XRT__MPOL_MF_MOVE);
}

/* Refused in a capture (a node type of CUDA 12.x's graphs that xrt's CPU
   graphs do not have): the capture is invalidated, as for other operations
   it cannot record. */
static xrt_status xrt__cpu_mem_prefetch_async(const xrt_backend *self, const void *ptr, size_t count, int device,
                                              void *stream)
{
    xrt__cpu_op op;
    (void)self;
    if (xrt__cpu_capturing(stream))
        return xrt__cpu_cap_cannot(stream, "cpu: xrt_mem_prefetch_async", "a prefetch of managed memory");
    if (!xrt__cpu_advice_set(ptr, count, 0xff0000u, (uint32_t)(device + 2) << 16, 0, 0))
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "cpu: xrt_mem_prefetch_async", "no memory for the range's record");
    op.run = xrt__cpu_run_prefetch;
    op.u.move.ptr = (void *)(uintptr_t)ptr;
    op.u.move.size = count;
    op.u.move.device = device;
    return xrt__cpu_enqueue(stream, &op, "cpu: xrt_mem_prefetch_async");
}

static xrt_status xrt__cpu_mem_advise(const xrt_backend *self, const void *ptr, size_t count, int advice, int device)
{
    (void)self;
    if (advice == XRT_MEM_ADVISE_SET_PREFERRED_LOCATION) xrt__cpu_place_memory(device, ptr, count, 0);
    return xrt__cpu_advise_record(ptr, count, advice, device);
}

static xrt_status xrt__cpu_stream_attach_mem_async(const xrt_backend *self, void *stream, void *ptr, size_t length,
                                                   unsigned flags)
{
    (void)self;
    (void)stream;
    (void)ptr;
    (void)length;
    (void)flags;
    return XRT_SUCCESS;
}

/* As CUDA's, from the stream's device (the NULL stream's is the current
   one) and its current pool, or from `pool`; memory valid from now on is
   valid from the stream's point on. In a capture, the graph's memory. */
static xrt_status xrt__cpu_alloc_async(xrt__cpu_mpool *p, void **ptr, size_t size, void *stream, const char *fn)
{
    xrt__cpu_stream *s = (xrt__cpu_stream *)stream;
    int device = s ? s->device : xrt__cpu_mem_device();
    xrt_status st;
    if (s && XRT__UNLIKELY(__atomic_load_n(&s->cap, __ATOMIC_ACQUIRE))) {
        if ((st = xrt__cpu_dev_alloc_on(device, ptr, size, fn)) != XRT_SUCCESS) return st;
        if ((st = xrt__cpu_cap_alloc(s, *ptr, fn)) != XRT_SUCCESS) {
            xrt__cpu_dev_release(*ptr);
            *ptr = NULL;
            return st;
        }
    } else {
        if (!p) p = xrt__cpu_mpool_of_device(device);
        if ((st = xrt__cpu_mpool_alloc(p, ptr, size, xrt__cpu_stream_of(stream), fn)) != XRT_SUCCESS) return st;
        device = p->device;
    }
    xrt__mem_note_device(*ptr, device); /* the registry's record: not the current device */
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_malloc_async(const xrt_backend *self, void **ptr, size_t size, void *stream)
{
    (void)self;
    return xrt__cpu_alloc_async(NULL, ptr, size, stream, "cpu: xrt_malloc_async");
}

static xrt_status xrt__cpu_malloc_from_pool_async(const xrt_backend *self, void **ptr, size_t size, void *pool,
                                                  void *stream)
{
    (void)self;
    return xrt__cpu_alloc_async((xrt__cpu_mpool *)pool, ptr, size, stream, "cpu: xrt_malloc_from_pool_async");
}

/* >> cpu: ipc. A memory handle names an exported range's memory file (">>
   cpu: memory"): the exporter's pid and the descriptor it holds the file
   at (opened here as /proc/<pid>/fd/<fd>), the file's inode and device
   (another file at that descriptor is refused), the range's key, and a
   checksum of the rest (a handle of another backend, or bytes that are no
   handle, are refused before any file is touched). The key is 128 random
   bits drawn at the range's export and written to the export record at
   the start of its file: every other field can be learnt by a process of
   the same user, so the key is what makes a handle one that was given. A
   range never exported is in no file and opens with no handle. The key
   guards the API, not the bytes: a process that may open the file through
   /proc can read them anyway. Whether the exporter still has the range is
   whether it still holds the file at that descriptor, which the kernel
   tells and no peer can change: the exporter closes it at the free, so an
   open of freed memory finds the descriptor closed or naming another file
   (a file's inode is not reused while anyone holds it). An opener maps
   the bytes after a private record page of its own and closes the file:
   its mapping keeps the memory until its close, however it ends, and
   nothing else. */
#define XRT__CPU_IPC_MAGIC 0x32637069u /* "ipc2" */
typedef struct xrt__cpu_ipc {
    uint32_t magic;
    uint32_t device;
    int32_t pid, fd;
    uint64_t ino, dev;
    uint64_t key[2]; /* the record in the file holds the same */
    uint64_t check;  /* FNV-1a of the bytes above */
} xrt__cpu_ipc;
typedef char xrt__cpu_ipc_fits[sizeof(xrt__cpu_ipc) <= sizeof(xrt_ipc_mem_handle) ? 1 : -1];

/* A range this process opened: counted, as CUDA counts opens of a handle. */
typedef struct xrt__cpu_opened {
    xrt__cpu_ipc key;
    xrt__cpu_head *head; /* this process's own record, before the mapped bytes */
    int forked; /* inherited by a forked child: its private copy, never the exporter's memory again */
    unsigned opens;
    struct xrt__cpu_opened *next;
} xrt__cpu_opened;
/* Opens come one at a time (the core serialises them); closes do not, as a
   close first waits for queued work, which may open a handle. The list is
   changed under this lock, never held across a system call. */
static xrt__cpu_opened *xrt__cpu_opens;
static int xrt__cpu_opens_lock;
static int xrt__cpu_unloaded_lock; /* ">> cpu: modules unloaded with work queued" */

static uint64_t xrt__cpu_ipc_check(const xrt__cpu_ipc *k)
{
    const unsigned char *p = (const unsigned char *)k;
    uint64_t h = 0xcbf29ce484222325ull;
    size_t i;
    for (i = 0; i < offsetof(xrt__cpu_ipc, check); i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static int xrt__cpu_ipc_key_equal(const uint64_t *a, const uint64_t *b) { return ((a[0] ^ b[0]) | (a[1] ^ b[1])) == 0; }

/* Exports are serialised: each may move a range into a file, let one go
   (xrt__cpu_ipc_unexport) or write a record. */
static pthread_mutex_t xrt__cpu_export_lock = PTHREAD_MUTEX_INITIALIZER;

/* 1 if the page at p holds only zeros (a page never written reads so). */
static int xrt__cpu_page_zero(const unsigned char *p, size_t pg)
{
    const uint64_t *w = (const uint64_t *)(const void *)p;
    size_t i;
    for (i = 0; i < pg / sizeof *w; i++)
        if (w[i]) return 0;
    return 1;
}

/* Moves a range into a memory file of its own, at the same address: the
   file is mapped elsewhere (placed on the device's node before its first
   touch), given the bytes (pages of zeros stay holes), and moved over the
   old bytes in one mremap, so that a reader sees the bytes throughout. The
   old bytes are private memory, or a file let go at a free that a graph
   outlived (xrt__cpu_ipc_unexport). A write to the range while this runs
   may be lost: the caller waited for the work queued before it, and no
   other thread may write the range during its first export (REFERENCE).
   On failure the range stays as it was, its bytes untouched. Under the
   export lock, which a fork waits for (xrt__cpu_fork_prepare): a child
   forked midway would hold the new file (its descriptor, its mapping)
   where nothing of the child's knows it, keeping the exporter's memory
   after the exporter's free for as long as the child lives. */
#ifndef XRT__TEST_SHARE_BEFORE_MOVE
#define XRT__TEST_SHARE_BEFORE_MOVE() ((void)0) /* xrt's tests: another thread's fork midway */
#endif
static xrt_status xrt__cpu_share(xrt__cpu_head *h, xrt__cpu_why *w)
{
    size_t pg = xrt__cpu_page(), span = xrt__cpu_span(h->size), i;
    unsigned char *bytes = (unsigned char *)h + pg, *file;
    struct stat st;
    int fd = -1;
    xrt_status s = xrt__cpu_memfile((int)h->device, span, &fd, &st, w);
    if (s != XRT_SUCCESS) return s;
    file = (unsigned char *)mmap(NULL, span - pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)pg);
    if (file == (unsigned char *)MAP_FAILED) {
        int e = errno;
        close(fd);
        return xrt__cpu_why_set(w, XRT_ERROR_OUT_OF_MEMORY, "mapping %zu bytes of a memory file of device %u: %s",
                                span - pg, h->device, strerror(e));
    }
    w->unplaced = xrt__cpu_bind_memory((int)h->device, file, span - pg, 0); /* logged after the export lock */
    for (i = 0; i < span - pg; i += pg)
        if (!xrt__cpu_page_zero(bytes + i, pg)) memcpy(file + i, bytes + i, pg);
    XRT__TEST_SHARE_BEFORE_MOVE();
    if (syscall(SYS_mremap, file, span - pg, span - pg, MREMAP_MAYMOVE | MREMAP_FIXED, bytes) == -1) {
        int e = errno;
        munmap(file, span - pg);
        close(fd);
        return xrt__cpu_why_set(w, XRT_ERROR_OUT_OF_MEMORY, "moving %zu bytes into a memory file of device %u: %s",
                                span - pg, h->device, strerror(e));
    }
    h->ino = (uint64_t)st.st_ino;
    h->dev = (uint64_t)st.st_dev;
    __atomic_store_n(&h->fd, fd, __ATOMIC_RELEASE);
    __atomic_store_n(&h->shared, 1, __ATOMIC_RELEASE);
    return XRT_SUCCESS;
}

/* The same under the export lock, for a range no other thread knows yet:
   the lock is for a fork, which must not come midway. */
static xrt_status xrt__cpu_share_locked(xrt__cpu_head *h, xrt__cpu_why *w)
{
    xrt_status st;
    pthread_mutex_lock(&xrt__cpu_export_lock);
    st = xrt__cpu_share(h, w);
    pthread_mutex_unlock(&xrt__cpu_export_lock);
    return st;
}

/* Makes the range live for openers: a fresh key in its file's export record. */
static xrt_status xrt__cpu_ipc_live(xrt__cpu_head *h, xrt__cpu_why *w)
{
    xrt__cpu_export rec;
    long n = -1;
#ifdef SYS_getrandom
    do n = syscall(SYS_getrandom, rec.key, sizeof rec.key, 0);
    while (n < 0 && errno == EINTR);
#else
    errno = ENOSYS;
#endif
    if (n != (long)sizeof rec.key)
        return xrt__cpu_why_set(w, XRT_ERROR_SYSTEM, "getrandom (the handle's key): %s",
                                n < 0 ? strerror(errno) : "fewer bytes than asked");
    rec.magic = XRT__CPU_EXPORT_MAGIC;
    rec.size = h->size;
    h->exported = 1; /* from here on its free returns it for good */
    if (pwrite(h->fd, &rec, sizeof rec, 0) != (ssize_t)sizeof rec)
        return xrt__cpu_why_set(w, XRT_ERROR_SYSTEM, "writing the range's export record: %s", strerror(errno));
    h->key[0] = rec.key[0], h->key[1] = rec.key[1];
    __atomic_store_n(&h->live, 1, __ATOMIC_RELEASE);
    return XRT_SUCCESS;
}

/* 1 if the range's bytes must move into a file of their own before an
   export: private memory, or a file let go (xrt__cpu_ipc_unexport). */
static int xrt__cpu_ipc_unfiled(xrt__cpu_head *h)
{
    return !__atomic_load_n(&h->shared, __ATOMIC_ACQUIRE) || __atomic_load_n(&h->fd, __ATOMIC_ACQUIRE) < 0;
}

/* The handle's fields of the range, drawn at its export. A range's move
   into its file (xrt__cpu_share) comes after the work queued before the
   call, as xrt_free waits for it: from a host function that would wait for
   itself, so it is refused there. */
static xrt_status xrt__cpu_ipc_key(xrt__cpu_head *h, xrt__cpu_ipc *k, const char *fn)
{
    xrt__cpu_why w;
    xrt_status st = XRT_SUCCESS;
    w.unplaced = 0;
    if (xrt__cpu_ipc_unfiled(h)) {
        if (xrt__tls.host_fn)
            return xrt_error(XRT_ERROR_NOT_PERMITTED, fn, "the first export of a range waits for queued work, "
                             "which a host function would wait for: export it outside host functions");
        if ((st = xrt__cpu_sync_all(-1, fn)) != XRT_SUCCESS) return st;
    }
    pthread_mutex_lock(&xrt__cpu_export_lock);
    if (xrt__cpu_ipc_unfiled(h)) st = xrt__cpu_share(h, &w);
    if (st == XRT_SUCCESS && !h->live) st = xrt__cpu_ipc_live(h, &w);
    k->key[0] = h->key[0], k->key[1] = h->key[1];
    k->fd = (int32_t)h->fd;
    k->ino = h->ino;
    k->dev = h->dev;
    pthread_mutex_unlock(&xrt__cpu_export_lock);
    xrt__cpu_why_placed(&w, (int)h->device);
    return st == XRT_SUCCESS ? st : xrt_error(st, fn, "%s", w.msg);
}

/* No new open of the range succeeds from now on (a graph's memory freed by
   its caller, which the graph keeps): its file is let go as at a free,
   the bytes stay mapped here, and an export after the graph's next launch
   moves them into a new file with a new key. */
static void xrt__cpu_ipc_unexport(void *ptr)
{
    xrt__cpu_head *h = xrt__cpu_head_of(ptr);
    if (!__atomic_load_n(&h->live, __ATOMIC_ACQUIRE)) return;
    pthread_mutex_lock(&xrt__cpu_export_lock);
    if (h->live && h->fd >= 0) {
        close(h->fd);
        __atomic_store_n(&h->fd, -1, __ATOMIC_RELEASE);
    }
    h->live = 0;
    pthread_mutex_unlock(&xrt__cpu_export_lock);
}

static xrt_status xrt__cpu_ipc_get_mem_handle(const xrt_backend *self, xrt_ipc_mem_handle *handle, void *base,
                                              size_t size)
{
    static const char fn[] = "cpu: xrt_ipc_get_mem_handle";
    xrt__cpu_head *h = xrt__cpu_head_of(base);
    xrt__cpu_ipc k;
    xrt_status st;
    (void)self, (void)size; /* the range's size is in its head */
    memset(&k, 0, sizeof k);
    if ((st = xrt__cpu_ipc_key(h, &k, fn)) != XRT_SUCCESS) return st;
    k.magic = XRT__CPU_IPC_MAGIC;
    k.device = h->device;
    k.pid = (int32_t)getpid();
    k.check = xrt__cpu_ipc_check(&k);
    memcpy(handle->reserved, &k, sizeof k);
    return XRT_SUCCESS;
}

static int xrt__cpu_ipc_same(const xrt__cpu_ipc *a, const xrt__cpu_ipc *b)
{
    return a->ino == b->ino && a->dev == b->dev && xrt__cpu_ipc_key_equal(a->key, b->key);
}

/* 1 if pid is this process: its id, or one of its threads' (a thread's
   /proc/<tid>/fd is the process's own table, as a peer may know). */
static int xrt__cpu_ipc_self(int32_t pid)
{
    char path[48];
    struct stat st;
    if (pid == (int32_t)getpid()) return 1;
    snprintf(path, sizeof path, "/proc/self/task/%d", (int)pid);
    return stat(path, &st) == 0;
}

/* The handle's own consistency, and whether it is this process's. */
static xrt_status xrt__cpu_ipc_decode(const unsigned char *bytes, uint32_t magic, const char *fn, xrt__cpu_ipc *k)
{
    struct stat st;
    memcpy(k, bytes, sizeof *k);
    /* CUDA answers bytes that are no handle with cudaErrorInvalidResourceHandle
       for memory and cudaErrorInvalidValue for events (their documented codes) */
    if (k->magic != magic || k->check != xrt__cpu_ipc_check(k))
        return xrt_error(magic == XRT__CPU_IPC_MAGIC ? XRT_ERROR_INVALID_HANDLE : XRT_ERROR_INVALID_VALUE, fn,
                         "not %s handle of the cpu backend (forged, or of another backend)",
                         magic == XRT__CPU_IPC_MAGIC ? "a memory" : "an event");
    if (k->device >= XRT__CPU_DEVICES_MAX || k->pid <= 0 || k->fd < 0)
        return xrt_error(XRT_ERROR_INVALID_HANDLE, fn, "a forged handle: device %u, pid %d, fd %d", k->device, k->pid,
                         k->fd);
    if (xrt__cpu_ipc_self(k->pid)) {
        if (fstat(k->fd, &st) == 0 && (uint64_t)st.st_ino == k->ino && (uint64_t)st.st_dev == k->dev)
            /* CUDA leaves this undefined, HIP says "invalid context": the exporter has the pointer already */
            return xrt_error(XRT_ERROR_INVALID_VALUE, fn, "the handle was made by this process: use the %s itself",
                             magic == XRT__CPU_IPC_MAGIC ? "device pointer" : "event");
        return xrt_error(XRT_ERROR_INVALID_HANDLE, fn,
                         "pid %d is this process, which holds no such file (memory it freed, or a forged handle)",
                         k->pid);
    }
    return XRT_SUCCESS;
}

/* Why the exporter's descriptor cannot be looked at: closed while the
   exporter lives (the free), or no such process of this user. */
static xrt_status xrt__cpu_ipc_gone(const xrt__cpu_ipc *k, const char *path, int e, const char *fn)
{
    char dir[32];
    struct stat st;
    snprintf(dir, sizeof dir, "/proc/%d", (int)k->pid);
    if (e == ENOENT && stat(dir, &st) == 0)
        return xrt_error(XRT_ERROR_INVALID_HANDLE, fn, "the memory of the handle was freed by its exporter (pid %d): %s "
                         "is closed", k->pid, path);
    return xrt_error(XRT_ERROR_INVALID_HANDLE, fn, "%s: %s (the exporter exited, or is another user's)", path,
                     strerror(e));
}

/* The range is still exported: the exporter holds the file the handle
   names at its descriptor (the kernel's word, which no peer can change). */
static xrt_status xrt__cpu_ipc_held(const xrt__cpu_ipc *k, const char *fn, char *path, size_t n)
{
    static const char memfd[] = "/memfd:";
    char link[64];
    struct stat st;
    ssize_t len;
    snprintf(path, n, "/proc/%d/fd/%d", (int)k->pid, (int)k->fd);
    /* The link's text first, which touches no file: a stat or an open of
       any other file (FUSE, NFS) may wait for a server that never answers;
       then stat, not open: opening whatever the fd is (a FIFO) could block */
    if ((len = readlink(path, link, sizeof link - 1)) < 0) return xrt__cpu_ipc_gone(k, path, errno, fn);
    link[len] = 0;
    if (strncmp(link, memfd, sizeof memfd - 1) != 0)
        return xrt_error(XRT_ERROR_INVALID_HANDLE, fn, "a forged handle: %s is %s, not a memory file", path, link);
    if (stat(path, &st) != 0) return xrt__cpu_ipc_gone(k, path, errno, fn);
    if (!S_ISREG(st.st_mode) || (uint64_t)st.st_ino != k->ino || (uint64_t)st.st_dev != k->dev)
        return xrt_error(XRT_ERROR_INVALID_HANDLE, fn, "the memory of the handle was freed by its exporter (pid %d), or "
                         "the handle is forged: %s is not the memory file it names", k->pid, path);
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_ipc_open_failed(const char *path, int e, const char *fn)
{
    xrt__cpu_why w;
    if (e == EMFILE || e == ENFILE || e == ENOMEM) return xrt_error(xrt__cpu_fd_why(&w, path, e), fn, "%s", w.msg);
    return xrt_error(XRT_ERROR_INVALID_HANDLE, fn, "%s: %s", path, strerror(e));
}

/* 1 if this process's descriptor `at` is the memory file the handle names. */
static int xrt__cpu_ipc_is_file(const xrt__cpu_ipc *k, int at, char *mine, size_t n)
{
    static const char memfd[] = "/memfd:";
    char link[64];
    struct stat st;
    ssize_t len;
    snprintf(mine, n, "/proc/self/fd/%d", at);
    if ((len = readlink(mine, link, sizeof link - 1)) < 0) return 0;
    link[len] = 0;
    return strncmp(link, memfd, sizeof memfd - 1) == 0 && fstat(at, &st) == 0 && (uint64_t)st.st_ino == k->ino &&
           (uint64_t)st.st_dev == k->dev;
}

/* The exporter's memory file of the range, opened here. The exporter may
   put another file at its descriptor after the check (xrt__cpu_ipc_held):
   the file is first taken without an open (O_PATH, which no filesystem
   sees), checked again through this process's own descriptor, which no
   other process can change, and opened through that one. */
#ifndef XRT__TEST_IPC_BEFORE_OPEN
#define XRT__TEST_IPC_BEFORE_OPEN() ((void)0) /* xrt's tests: the exporter's move after the check */
#endif
static xrt_status xrt__cpu_ipc_file(const xrt__cpu_ipc *k, const char *fn, int *fd)
{
    char path[64], mine[48];
    int at, e;
    xrt_status s = xrt__cpu_ipc_held(k, fn, path, sizeof path);
    if (s != XRT_SUCCESS) return s;
    XRT__TEST_IPC_BEFORE_OPEN();
    if ((at = open(path, O_PATH | O_CLOEXEC)) < 0) return xrt__cpu_ipc_open_failed(path, errno, fn);
    if (!xrt__cpu_ipc_is_file(k, at, mine, sizeof mine)) {
        close(at);
        return xrt_error(XRT_ERROR_INVALID_HANDLE, fn, "%s changed while it was opened", path);
    }
    *fd = open(mine, O_RDWR | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    e = errno;
    close(at);
    return *fd < 0 ? xrt__cpu_ipc_open_failed(path, e, fn) : XRT_SUCCESS;
}

/* An opener's unmap of a range: its own record and the bytes. */
static void xrt__cpu_ipc_unmap(xrt__cpu_head *h)
{
    xrt__cpu_maps_drop(h);
    munmap(h, xrt__cpu_span(h->size));
}

/* The file's export record, if it is what the handle names: exported with
   the handle's key, and the file sized as the record says and sealed so (a
   file that could shrink would raise SIGBUS here). Its span, else 0. */
static size_t xrt__cpu_ipc_record(const xrt__cpu_ipc *k, int fd, const char *fn, xrt__cpu_export *rec, xrt_status *st)
{
    struct stat fs;
    size_t span;
    int seals;
    if (pread(fd, rec, sizeof *rec, 0) != (ssize_t)sizeof *rec || rec->magic != XRT__CPU_EXPORT_MAGIC) {
        *st = xrt_error(XRT_ERROR_INVALID_HANDLE, fn, "a forged handle: the file at fd %d of pid %d was not exported",
                        k->fd, k->pid);
        return 0;
    }
    if (!xrt__cpu_ipc_key_equal(rec->key, k->key)) {
        *st = xrt_error(XRT_ERROR_INVALID_HANDLE, fn,
                        "a forged handle: the memory file at fd %d of pid %d was not exported with its key", k->fd, k->pid);
        return 0;
    }
    span = xrt__cpu_span(rec->size);
    seals = fcntl(fd, F_GET_SEALS);
    if (rec->size == 0 || span == 0 || fstat(fd, &fs) != 0 || (uint64_t)fs.st_size != (uint64_t)span || seals < 0 ||
        (seals & XRT__CPU_SEALS) != XRT__CPU_SEALS) {
        *st = xrt_error(XRT_ERROR_INVALID_HANDLE, fn, "the memory file of the handle is damaged: %llu bytes for a "
                        "record of %llu, seals 0x%x", (unsigned long long)fs.st_size,
                        (unsigned long long)rec->size, (unsigned)seals);
        return 0;
    }
    if (seals & (F_SEAL_WRITE | XRT__CPU_SEAL_FUTURE_WRITE)) { /* no mapping for writing: not memory to share */
        *st = xrt_error(XRT_ERROR_INVALID_HANDLE, fn, "the memory file of the handle is sealed against writes "
                        "(seals 0x%x): no xrt export is", (unsigned)seals);
        return 0;
    }
    return span;
}

/* Maps the range with a record of its own, once its file proves to be
   what the handle names. */
static xrt_status xrt__cpu_ipc_map(const xrt__cpu_ipc *k, int fd, const char *fn, xrt__cpu_head **out)
{
    xrt__cpu_export rec;
    xrt__cpu_head *h;
    xrt_status st = XRT_SUCCESS;
    size_t span = xrt__cpu_ipc_record(k, fd, fn, &rec, &st);
    if (!span) return st;
    if (!(h = xrt__cpu_map_range(fd, span)))
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, fn, "mmap of %zu bytes: %s", span, strerror(errno));
    memset(h, 0, sizeof *h);
    h->magic = XRT__CPU_HEAD_MAGIC;
    h->size = rec.size;
    h->device = k->device;
    h->fd = -1; /* the file is the exporter's; the mapping holds it here */
    h->exported = h->shared = h->opened = 1;
    xrt__cpu_maps_add(h, span);
    *out = h;
    return XRT_SUCCESS;
}

/* Opens the handle's file and maps it; the descriptor goes at once. */
static xrt_status xrt__cpu_ipc_attach(const xrt__cpu_ipc *k, const char *fn, xrt__cpu_head **h)
{
    int fd = -1;
    xrt_status st = xrt__cpu_ipc_file(k, fn, &fd);
    if (st != XRT_SUCCESS) return st;
    st = xrt__cpu_ipc_map(k, fd, fn, h);
    close(fd);
    return st;
}

/* This process's open of the range, counted once more; NULL if none. */
static xrt__cpu_opened *xrt__cpu_ipc_reopen(const xrt__cpu_ipc *k, void **ptr, size_t *size)
{
    xrt__cpu_opened *o;
    xrt__cpu_lock(&xrt__cpu_opens_lock);
    for (o = xrt__cpu_opens; o; o = o->next) /* not a forked child's inherited copy: the exporter's memory */
        if (!o->forked && xrt__cpu_ipc_same(&o->key, k)) break;
    if (o) { /* counted under the lock: a close under way cannot unmap it now */
        o->opens++;
        *ptr = (char *)o->head + xrt__cpu_page();
        *size = (size_t)o->head->size;
    }
    xrt__cpu_unlock(&xrt__cpu_opens_lock);
    return o;
}

static xrt_status xrt__cpu_ipc_open_mem_handle(const xrt_backend *self, void **ptr, size_t *size,
                                               const xrt_ipc_mem_handle *handle, unsigned flags)
{
    static const char fn[] = "cpu: xrt_ipc_open_mem_handle";
    xrt__cpu_ipc k;
    xrt__cpu_opened *o;
    xrt__cpu_head *h = NULL;
    char path[64];
    xrt_status st;
    (void)self, (void)flags; /* every CPU device reaches every other's memory */
    if ((st = xrt__cpu_ipc_decode(handle->reserved, XRT__CPU_IPC_MAGIC, fn, &k)) != XRT_SUCCESS) return st;
    /* open here still or not, no new open once the exporter let go of the file */
    if ((st = xrt__cpu_ipc_held(&k, fn, path, sizeof path)) != XRT_SUCCESS) return st;
    if (xrt__cpu_ipc_reopen(&k, ptr, size)) return XRT_SUCCESS;
    if ((st = xrt__cpu_ipc_attach(&k, fn, &h)) != XRT_SUCCESS) return st;
    if (!(o = (xrt__cpu_opened *)XRT_CALLOC(1, sizeof *o))) {
        xrt__cpu_ipc_unmap(h);
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, fn, "no memory for the open's record");
    }
    o->key = k;
    o->head = h;
    o->opens = 1;
    *ptr = (char *)h + xrt__cpu_page();
    *size = (size_t)h->size;
    xrt__cpu_lock(&xrt__cpu_opens_lock);
    o->next = xrt__cpu_opens;
    xrt__cpu_opens = o;
    xrt__cpu_unlock(&xrt__cpu_opens_lock);
    return XRT_SUCCESS;
}

/* Waits for queued work first (it may use the memory), holding nothing: a
   host function in it may open a handle. */
static xrt_status xrt__cpu_ipc_close_mem_handle(const xrt_backend *self, void *ptr)
{
    xrt__cpu_opened **pp, *o;
    unsigned left = 0;
    xrt_status st = xrt__cpu_release("cpu: xrt_ipc_close_mem_handle");
    if (st != XRT_SUCCESS) return st;
    xrt__cpu_lock(&xrt__cpu_opens_lock);
    for (pp = &xrt__cpu_opens; (o = *pp) != NULL; pp = &o->next)
        if ((char *)o->head + xrt__cpu_page() == (char *)ptr) break;
    if (o && (left = --o->opens) == 0) *pp = o->next;
    xrt__cpu_unlock(&xrt__cpu_opens_lock);
    if (!o) return xrt_error(XRT_ERROR_INVALID_POINTER, "cpu: xrt_ipc_close_mem_handle", "dev_ptr %p is not open", ptr);
    if (left) return XRT_SUCCESS;
    xrt__cpu_ipc_unmap(o->head);
    XRT_FREE(o);
    return XRT_SUCCESS;
}

/* >> cpu: ipc events. An interprocess event keeps its records in a small
   device allocation that the processes sharing the event map: records are
   numbered there (`recorded`), and record n, once its stream has reached
   its point, marks its slot, done[n % XRT__CPU_IPC_SLOTS] = n. A wait, a
   synchronize or a query is for the record current at the call: record n
   has completed when its slot holds n or more, in any of the processes, as
   with cudaIpcGetEventHandle; a later record's completion, even on an idle
   stream, says nothing of an earlier one. A record reuses a slot only once
   the record before it there has completed, so a slot never passes over
   one pending: with XRT__CPU_IPC_SLOTS records of the event pending, the
   next is refused (XRT_ERROR_UNSUPPORTED), never a wait released early;
   but a record of a process that has ended (`by`) never completes and
   holds its slot for none: the next record there takes it. A
   waiter polls (another process cannot wake it). The handle is a memory
   handle of that allocation under its own magic, so neither kind opens as
   the other. */
#define XRT__CPU_IPC_EVENT_MAGIC 0x32747665u /* "evt2" */
#define XRT__CPU_STATE_MAGIC 0x3374617473637069ull /* "ipcstat3" */
#define XRT__CPU_IPC_SLOTS 256
typedef struct xrt__cpu_ipc_state {
    uint64_t magic;
    uint64_t recorded;
    uint64_t done[XRT__CPU_IPC_SLOTS];
    int32_t by[XRT__CPU_IPC_SLOTS]; /* the process that made the slot's latest record */
} xrt__cpu_ipc_state;

static xrt_status xrt__cpu_ipc_event_make(xrt__cpu_event *e)
{
    void *p;
    xrt__cpu_why w;
    xrt_status st = xrt__cpu_dev_alloc(&p, sizeof(xrt__cpu_ipc_state), "cpu: xrt_event_create");
    if (st != XRT_SUCCESS) return st;
    /* shared from its creation: no other thread knows it yet, so nothing writes it meanwhile */
    w.unplaced = 0;
    st = xrt__cpu_share_locked(xrt__cpu_head_of(p), &w);
    xrt__cpu_why_placed(&w, (int)xrt__cpu_head_of(p)->device);
    if (st != XRT_SUCCESS) {
        xrt__cpu_dev_release(p);
        return xrt_error(st, "cpu: xrt_event_create", "%s", w.msg);
    }
    e->shared = (xrt__cpu_ipc_state *)p;
    e->shared_head = xrt__cpu_head_of(p);
    e->shared_opened = 0;
    memset(e->shared, 0, sizeof *e->shared);
    e->shared->magic = XRT__CPU_STATE_MAGIC;
    return XRT_SUCCESS;
}

static void xrt__cpu_ipc_event_drop(xrt__cpu_event *e)
{
    if (e->shared_opened) xrt__cpu_ipc_unmap(e->shared_head);
    else xrt__cpu_dev_release(e->shared);
}

static void xrt__cpu_ipc_complete(xrt__cpu_ipc_state *st, uint64_t seq)
{
    uint64_t *slot = &st->done[seq % XRT__CPU_IPC_SLOTS];
    uint64_t c = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    while (c < seq && !__atomic_compare_exchange_n(slot, &c, seq, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {}
}

/* Record `seq` has completed (0: never recorded, nothing to wait for). */
static int xrt__cpu_ipc_reached(const xrt__cpu_ipc_state *st, uint64_t seq)
{
    return seq == 0 || __atomic_load_n(&st->done[seq % XRT__CPU_IPC_SLOTS], __ATOMIC_ACQUIRE) >= seq;
}

/* Polls until record `seq` has completed, in whichever process it was made. */
static void xrt__cpu_ipc_poll(const xrt__cpu_ipc_state *st, uint64_t seq)
{
    unsigned spins = 0;
    while (!xrt__cpu_ipc_reached(st, seq)) {
        struct timespec ts = {0, 20000};
        if (++spins < 64) xrt__cpu_pause();
        else nanosleep(&ts, NULL);
    }
}

static void xrt__cpu_run_ipc_record(xrt__cpu_op *op)
{
    xrt__cpu_ipc_complete(op->u.record.event->shared, op->u.record.pos);
    xrt__cpu_event_unref(op->u.record.event);
}

static void xrt__cpu_run_ipc_wait(xrt__cpu_op *op)
{
    xrt__cpu_ipc_poll(op->u.record.event->shared, op->u.record.pos);
    xrt__cpu_event_unref(op->u.record.event);
}

/* A capturing stream refuses an interprocess event's record or wait (a
   graph cannot hold another process's point), and its capture is
   invalidated, as for every call the CPU backend cannot capture. */
static xrt_status xrt__cpu_ipc_event_captured(void *stream, const char *who)
{
    return xrt__cpu_cap_cannot(stream, who, "an interprocess event cannot be part of a capture");
}

/* Enqueues `run` holding the event. */
static xrt_status xrt__cpu_ipc_event_op(xrt__cpu_event *e, void *stream, xrt__cpu_run_fn run, uint64_t seq,
                                        const char *who)
{
    xrt__cpu_op op;
    xrt_status st;
    op.run = run;
    op.u.record.event = e;
    op.u.record.stream = NULL;
    op.u.record.pos = seq;
    __atomic_add_fetch(&e->refs, 1, __ATOMIC_RELAXED);
    if ((st = xrt__cpu_enqueue(stream, &op, who)) != XRT_SUCCESS) xrt__cpu_event_unref(e);
    return st;
}

/* 1 if the record after r may take its slot: the slot's record completed,
   or was made by a process that has ended (its stream will never reach it:
   as in CUDA, a dead process's record holds up no later record). */
static int xrt__cpu_ipc_slot_free(const xrt__cpu_ipc_state *sh, uint64_t r)
{
    int32_t by;
    if (r < XRT__CPU_IPC_SLOTS || xrt__cpu_ipc_reached(sh, r + 1 - XRT__CPU_IPC_SLOTS)) return 1;
    by = __atomic_load_n(&sh->by[(r + 1) % XRT__CPU_IPC_SLOTS], __ATOMIC_ACQUIRE);
    return by > 0 && by != (int32_t)getpid() && kill((pid_t)by, 0) != 0 && errno == ESRCH;
}

/* The next record's number, once its slot is free. */
static xrt_status xrt__cpu_ipc_event_number(xrt__cpu_ipc_state *sh, uint64_t *seq, const char *who)
{
    uint64_t r = __atomic_load_n(&sh->recorded, __ATOMIC_ACQUIRE);
    do {
        if (!xrt__cpu_ipc_slot_free(sh, r))
            return xrt_error(XRT_ERROR_UNSUPPORTED, who,
                             "%d records of this interprocess event are pending: the CPU backend keeps at most that many",
                             XRT__CPU_IPC_SLOTS);
    } while (!__atomic_compare_exchange_n(&sh->recorded, &r, r + 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
    *seq = r + 1;
    __atomic_store_n(&sh->by[*seq % XRT__CPU_IPC_SLOTS], (int32_t)getpid(), __ATOMIC_RELEASE);
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_ipc_event_record(xrt__cpu_event *e, void *stream)
{
    static const char who[] = "cpu: xrt_event_record";
    uint64_t seq = 0, back;
    xrt_status st;
    if (xrt__cpu_capturing(stream) && (st = xrt__cpu_ipc_event_captured(stream, who)) != XRT_SUCCESS) return st;
    if ((st = xrt__cpu_ipc_event_number(e->shared, &seq, who)) != XRT_SUCCESS) return st;
    if (!xrt__cpu_busy(xrt__cpu_stream_of(stream))) {
        xrt__cpu_ipc_complete(e->shared, seq); /* an idle stream is at its point already */
        return XRT_SUCCESS;
    }
    st = xrt__cpu_ipc_event_op(e, stream, xrt__cpu_run_ipc_record, seq, who);
    back = seq;
    /* No record after all: the latest is the one before again, unless
       another was made meanwhile; then this one stands, complete. */
    if (st != XRT_SUCCESS &&
        !__atomic_compare_exchange_n(&e->shared->recorded, &back, seq - 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        xrt__cpu_ipc_complete(e->shared, seq);
    return st;
}

static xrt_status xrt__cpu_ipc_event_query(const xrt__cpu_event *e)
{
    return xrt__cpu_ipc_reached(e->shared, __atomic_load_n(&e->shared->recorded, __ATOMIC_ACQUIRE)) ? XRT_SUCCESS
                                                                                                 : XRT_ERROR_NOT_READY;
}

static void xrt__cpu_ipc_event_synchronize(const xrt__cpu_event *e)
{
    xrt__cpu_ipc_poll(e->shared, __atomic_load_n(&e->shared->recorded, __ATOMIC_ACQUIRE));
}

static xrt_status xrt__cpu_ipc_event_wait(xrt__cpu_event *e, void *stream)
{
    static const char who[] = "cpu: xrt_stream_wait_event";
    uint64_t seq = __atomic_load_n(&e->shared->recorded, __ATOMIC_ACQUIRE);
    xrt_status st;
    if (xrt__cpu_capturing(stream) && (st = xrt__cpu_ipc_event_captured(stream, who)) != XRT_SUCCESS) return st;
    if (xrt__cpu_ipc_reached(e->shared, seq)) return XRT_SUCCESS;
    return xrt__cpu_ipc_event_op(e, stream, xrt__cpu_run_ipc_wait, seq, who);
}

/* The handle: a memory handle of the state's allocation, under the event magic. */
static xrt_status xrt__cpu_ipc_get_event_handle(const xrt_backend *self, xrt_ipc_event_handle *handle, void *event)
{
    xrt__cpu_event *e = (xrt__cpu_event *)event;
    xrt_ipc_mem_handle mh;
    xrt__cpu_ipc k;
    xrt_status st;
    if (!e->shared)
        return xrt_error(XRT_ERROR_INVALID_HANDLE, "cpu: xrt_ipc_get_event_handle",
                         "the event was not created with XRT_EVENT_INTERPROCESS | XRT_EVENT_DISABLE_TIMING");
    if (e->shared_opened)
        return xrt_error(XRT_ERROR_INVALID_HANDLE, "cpu: xrt_ipc_get_event_handle",
                         "the event was opened from another process's handle: only its creator makes handles");
    if ((st = xrt__cpu_ipc_get_mem_handle(self, &mh, e->shared, sizeof(xrt__cpu_ipc_state))) != XRT_SUCCESS) return st;
    memcpy(&k, mh.reserved, sizeof k);
    k.magic = XRT__CPU_IPC_EVENT_MAGIC;
    k.check = xrt__cpu_ipc_check(&k);
    memset(handle, 0, sizeof *handle);
    memcpy(handle->reserved, &k, sizeof k);
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_ipc_open_event_handle(const xrt_backend *self, void **event,
                                                 const xrt_ipc_event_handle *handle)
{
    static const char fn[] = "cpu: xrt_ipc_open_event_handle";
    xrt__cpu_ipc k;
    xrt__cpu_head *h = NULL;
    xrt__cpu_event *e;
    xrt_status st;
    if ((st = xrt__cpu_ipc_decode(handle->reserved, XRT__CPU_IPC_EVENT_MAGIC, fn, &k)) != XRT_SUCCESS) return st;
    if ((st = xrt__cpu_ipc_attach(&k, fn, &h)) != XRT_SUCCESS) return st;
    if (((xrt__cpu_ipc_state *)(void *)((char *)h + xrt__cpu_page()))->magic != XRT__CPU_STATE_MAGIC ||
        !(e = (xrt__cpu_event *)XRT_CALLOC(1, sizeof *e))) {
        int forged = ((xrt__cpu_ipc_state *)(void *)((char *)h + xrt__cpu_page()))->magic != XRT__CPU_STATE_MAGIC;
        xrt__cpu_ipc_unmap(h);
        return forged ? xrt_error(XRT_ERROR_INVALID_HANDLE, fn, "the handle names no event")
                      : xrt_error(XRT_ERROR_OUT_OF_MEMORY, fn, "no memory for an event");
    }
    (void)self;
    e->flags = XRT_EVENT_INTERPROCESS | XRT_EVENT_DISABLE_TIMING; /* behaves as one made with them, as in CUDA */
    e->device = xrt__cpu_current(); /* the opener's, as cudaIpcOpenEventHandle's event */
    e->refs = 1;
    e->shared_head = h;
    e->shared = (xrt__cpu_ipc_state *)(void *)((char *)h + xrt__cpu_page());
    e->shared_opened = 1;
    xrt__cpu_event_link(e);
    *event = e;
    return XRT_SUCCESS;
}

/* >> cpu: device memory after fork. Memory never shared is private
   anonymous memory: the child has it copy-on-write, as malloc's, with no
   work in fork(). A shared mapping (a range exported here, or opened) would
   let the child's writes land in the exporter's bytes, and the descriptor
   of a file exported here, inherited, would keep the parent's memory
   alive after the parent's free: the child turns each mapping into a
   private copy at the same address, an allocation of its own that it may
   export anew into a file of its own, and closes the descriptors. Only
   system calls and plain stores: the child of a threaded process may not
   take a lock or allocate. Where a copy cannot be made (RLIMIT_AS, strict
   overcommit), the bytes are unmapped (the child's writes must not reach
   the exporter's memory), fork() still returns, and the child may not use
   the backend: its first call says which range and why
   (xrt__fork_refuse). */

/* The first range a forked child could not copy, and how many it lost. */
static struct {
    unsigned count;
    uintptr_t start, end;
    int err;
    const char *call;
} xrt__cpu_fork_lost;

/* Formatted when a call is refused, outside the fork handler. */
static void xrt__cpu_fork_why(char *buf, size_t n)
{
    snprintf(buf, n, "its copy of shared device memory [%p, %p) (%zu bytes%s) could not be made: %s: %s",
             (void *)xrt__cpu_fork_lost.start, (void *)xrt__cpu_fork_lost.end,
             (size_t)(xrt__cpu_fork_lost.end - xrt__cpu_fork_lost.start),
             xrt__cpu_fork_lost.count > 1 ? ", and more ranges" : "", xrt__cpu_fork_lost.call,
             strerror(xrt__cpu_fork_lost.err));
}

static void xrt__cpu_fork_lose(uintptr_t start, uintptr_t end, const char *call, int err)
{
    if (!xrt__cpu_fork_lost.count++) {
        xrt__cpu_fork_lost.start = start, xrt__cpu_fork_lost.end = end;
        xrt__cpu_fork_lost.call = call, xrt__cpu_fork_lost.err = err;
    }
    munmap((void *)start, end - start);
}

/* The file a range exported here maps, inherited by the child, and the
   bytes' offset there; -1 if none (an opened range: its opener keeps no
   descriptor; the copy then reads the mapping). */
static int xrt__cpu_fork_file(const xrt__cpu_head *h, uint64_t *off)
{
    if (h->magic != XRT__CPU_HEAD_MAGIC || !h->shared || h->opened) return -1;
    *off = xrt__cpu_page();
    return h->fd;
}

/* Copies len bytes of the range at `from` into `to`: read from its file,
   a fault on neither side (a fault per page of each cost several times
   the copy), else from the mapping. */
static void xrt__cpu_fork_copy(char *to, const char *from, size_t len, int fd, uint64_t off)
{
    size_t done = 0;
    ssize_t n = 1;
    while (fd >= 0 && done < len && (n = pread(fd, to + done, len - done, (off_t)(off + done))) > 0) done += (size_t)n;
    if (done < len) memcpy(to + done, from + done, len - done);
}

/* Moves a copy of the bytes at [start, end) over them. */
static void xrt__cpu_fork_move(uintptr_t start, uintptr_t end, int fd, uint64_t off)
{
    size_t len = end - start;
    char *copy = (char *)mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (copy == (char *)MAP_FAILED) {
        xrt__cpu_fork_lose(start, end, "mmap", errno);
        return;
    }
    xrt__cpu_fork_copy(copy, (const char *)start, len, fd, off);
    if (syscall(SYS_mremap, copy, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)start) != -1) return;
    xrt__cpu_fork_lose(start, end, "mremap", errno);
    munmap(copy, len);
}

/* One range's bytes (a shared mapping is one range's: private record pages
   separate them), its record in the private page before them: the copy is
   a private allocation of the child's (its parent's export and file are
   not its own). */
static void xrt__cpu_privatise(uintptr_t start, uintptr_t end)
{
    xrt__cpu_head *h = (xrt__cpu_head *)(void *)(start - xrt__cpu_page());
    uint64_t off = 0;
    int fd = xrt__cpu_fork_file(h, &off);
    if (h->magic == XRT__CPU_HEAD_MAGIC) {
        h->shared = h->exported = h->live = 0;
        h->fd = -1;
        h->key[0] = h->key[1] = 0;
    }
    xrt__cpu_fork_move(start, end, fd, off);
    if (fd >= 0) close(fd); /* the parent's: held here, it would outlive the parent's free */
}


/* 1 if [start, end) is a range's bytes, from the first (after its head
   page), in the ranges mapped here (xrt__cpu_maps): the file a range maps
   is named by whoever made it (an opened range's by its exporter, any
   process), so the range is known by its head, not by its file's name.
   In the forked child, the only thread: no lock. */
static int xrt__cpu_fork_range(uintptr_t start, uintptr_t end)
{
    const xrt__tree_node *m = start > xrt__cpu_page() ? xrt__tree_floor(&xrt__cpu_maps, start - 1) : NULL;
    return m && m->start == start - xrt__cpu_page() && end <= m->end;
}

typedef struct xrt__cpu_shared_ask { uintptr_t *start, *end; } xrt__cpu_shared_ask;

static int xrt__cpu_shared_line(const char *line, void *ctx)
{
    xrt__cpu_shared_ask *a = (xrt__cpu_shared_ask *)ctx;
    const char *q;
    if (!strstr(line, " rw-s ")) return 0;
    q = xrt__cpu_hex(line, a->start);
    return *q == '-' && *xrt__cpu_hex(q + 1, a->end) == ' ' && xrt__cpu_fork_range(*a->start, *a->end);
}

/* The next shared mapping of a range's bytes in /proc/self/maps; 0 if none. */
static int xrt__cpu_next_shared(uintptr_t *start, uintptr_t *end)
{
    xrt__cpu_shared_ask a;
    a.start = start;
    a.end = end;
    return xrt__cpu_maps_lines(xrt__cpu_shared_line, &a);
}

static void xrt__cpu_mem_fork_child(void)
{
    uintptr_t start, end;
    xrt__cpu_opened *o;
    int d;
    while (xrt__cpu_next_shared(&start, &end)) xrt__cpu_privatise(start, end);
    for (o = xrt__cpu_opens; o; o = o->next) o->forked = 1; /* the parent's opens: the child opens its own */
    /* kept ranges are private: the child's copy-on-write, kept still */
    for (d = 0; d < XRT__CPU_DEVICES_MAX; d++) xrt__cpu_mem[d].lock = 0; /* its holder did not come along */
    xrt__cpu_opens_lock = 0; /* likewise */
    xrt__cpu_unloaded_lock = 0;
    if (xrt__cpu_fork_lost.count && xrt__cpu.self) xrt__fork_refuse(xrt__cpu.self, xrt__cpu_fork_why);
    pthread_mutex_unlock(&xrt__cpu_export_lock); /* taken by the prepare handler, so no export was under way */
}

/* A pool's block: back in its pool for the stream's later allocations now,
   for other streams' once the stream gets here. Refused (the enqueue
   failed), the block is allocated again. */
static xrt_status xrt__cpu_mpool_free_async(xrt__cpu_head *h, void *stream)
{
    xrt__cpu_mpool *p = h->pool;
    xrt__cpu_op op;
    xrt_status st;
    op.u.mfree.head = h;
    op.u.mfree.pool = p;
    op.u.mfree.gen = h->gen;
    if (!xrt__cpu_mpool_put(h, xrt__cpu_stream_of(stream), 0)) { /* exported or its pool destroyed: released at the stream's point */
        op.run = xrt__cpu_run_free;
        op.u.release.ptr = (char *)h + xrt__cpu_page();
        st = xrt__cpu_enqueue(stream, &op, "cpu: xrt_free_async");
        xrt__cpu_mpool_unhold(p); /* the put's: no op of the pool's */
        return st;
    }
    op.run = xrt__cpu_run_mpool_free;
    if ((st = xrt__cpu_enqueue(stream, &op, "cpu: xrt_free_async")) != XRT_SUCCESS) xrt__cpu_mpool_unput(h);
    return st;
}

static xrt_status xrt__cpu_free_async(const xrt_backend *self, void *ptr, void *stream)
{
    xrt__cpu_op op;
    xrt_status st;
    (void)self;
    if (stream && XRT__UNLIKELY(__atomic_load_n(&((xrt__cpu_stream *)stream)->cap, __ATOMIC_ACQUIRE)) &&
        xrt__cpu_cap_free((xrt__cpu_stream *)stream, ptr, "cpu: xrt_free_async", &st))
        return st;
    if ((st = xrt__cpu_cap_owned(ptr, "cpu: xrt_free_async")) != XRT_SUCCESS) return st;
    if (XRT__UNLIKELY(__atomic_load_n(&xrt__cpu_ngleft, __ATOMIC_ACQUIRE)) &&
        xrt__cpu_gmem_free(ptr, "cpu: xrt_free_async", &st)) /* the memory stays: nothing to order */
        return st;
    if (xrt__cpu_head_of(ptr)->pool) return xrt__cpu_mpool_free_async(xrt__cpu_head_of(ptr), stream);
    op.run = xrt__cpu_run_free;
    op.u.release.ptr = ptr;
    return xrt__cpu_enqueue(stream, &op, "cpu: xrt_free_async");
}

/* Synchronous operations are ordered on the default stream: done in place when
   it is idle, else queued behind its work and waited for. */
static xrt_status xrt__cpu_sync_op_on(const xrt_backend *self, xrt__cpu_stream *s, xrt__cpu_op *op, const char *who)
{
    xrt_status st = xrt__cpu_cap_unsafe(who);
    (void)self;
    return st != XRT_SUCCESS ? st : xrt__cpu_run_ordered(s, op, who);
}

static xrt_status xrt__cpu_sync_op(const xrt_backend *self, xrt__cpu_op *op, const char *who)
{
    return xrt__cpu_sync_op_on(self, xrt__cpu.dflt[xrt__cpu_current()], op, who);
}

/* A synchronous copy or set as CUDA's "API synchronization behavior" has
   it: where the host does not wait for it (a copy from device to device, a
   set of device memory), queued on the NULL stream, not waited for; else
   done before it returns. Refused first where a capture forbids it, as
   every synchronous operation. */
static xrt_status xrt__cpu_sync_or_queue(const xrt_backend *self, xrt__cpu_op *op, int wait, const char *who)
{
    xrt_status st;
    if (wait) return xrt__cpu_sync_op(self, op, who);
    st = xrt__cpu_cap_unsafe(who);
    return st != XRT_SUCCESS ? st : xrt__cpu_enqueue(NULL, op, who);
}

static void xrt__cpu_copy_op(xrt__cpu_op *op, void *dst, const void *src, size_t size)
{
    op->run = size >= xrt__cpu_split_bytes ? xrt__cpu_run_memcpy_split : xrt__cpu_run_memcpy;
    op->u.copy.dst = dst;
    op->u.copy.src = src;
    op->u.copy.size = size;
    op->u.copy.kind = XRT_MEMCPY_DEFAULT;
}

static void xrt__cpu_set_op(xrt__cpu_op *op, void *dst, int value, size_t size)
{
    op->run = size >= xrt__cpu_split_bytes ? xrt__cpu_run_memset_split : xrt__cpu_run_memset;
    op->u.set.dst = dst;
    op->u.set.value = (unsigned char)value;
    op->u.set.size = size;
}

/* As cudaMemcpy ("API synchronization behavior"): device to device, "no
   host-side synchronization is performed"; any other copy waits. */
static xrt_status xrt__cpu_memcpy(const xrt_backend *self, void *dst, const void *src, size_t size,
                                  xrt_memcpy_kind kind)
{
    xrt__cpu_op op;
    xrt__cpu_copy_op(&op, dst, src, size);
    return xrt__cpu_sync_or_queue(self, &op, kind != XRT_MEMCPY_DEVICE_TO_DEVICE, "cpu: xrt_memcpy");
}

/* Host memory that is not pinned (not from xrt_malloc_host). */
static int xrt__cpu_pageable(const xrt_backend *self, const void *p)
{
    xrt_pointer_attributes a;
    xrt__mem_lookup(self, &a, p);
    return a.type != XRT_MEMORY_PINNED_HOST;
}

/* A copy with a pageable host side, as CUDA does it: after the stream's
   earlier work, before the call returns. A host function must not wait (the
   stream may be its own, or wait for its own): there the copy is done in
   place when the stream is idle, else queued like any other. */
static xrt_status xrt__cpu_copy_now(const xrt_backend *self, xrt__cpu_op *op, void *stream)
{
    xrt__cpu_stream *s = xrt__cpu_stream_of(stream);
    if (xrt__cpu_serving && !xrt__cpu_quiet(s)) return xrt__cpu_enqueue(stream, op, "cpu: xrt_memcpy_async");
    if (s->order != XRT__CPU_NON_BLOCKING) return xrt__cpu_run_ordered(s, op, "cpu: xrt_memcpy_async");
    xrt__cpu_drain(s, __atomic_load_n(&s->tail, __ATOMIC_ACQUIRE), 1);
    op->run(op);
    return XRT_SUCCESS;
}

/* Whether an async copy that is not device to device is done before the
   call returns (xrt__cpu_copy_now): a pageable host side, as CUDA does it,
   or host to host, pinned included, which CUDA's "API synchronization
   behavior" makes fully synchronous with the host. The kind is resolved
   (XRT_MEMCPY_DEFAULT is never passed). */
static int xrt__cpu_copy_in_place(const xrt_backend *self, const void *dst, const void *src, xrt_memcpy_kind kind)
{
    return (kind != XRT_MEMCPY_DEVICE_TO_HOST && xrt__cpu_pageable(self, src)) ||
           (kind != XRT_MEMCPY_HOST_TO_DEVICE && xrt__cpu_pageable(self, dst)) || kind == XRT_MEMCPY_HOST_TO_HOST;
}

static xrt_status xrt__cpu_memcpy_async(const xrt_backend *self, void *dst, const void *src, size_t size,
                                        xrt_memcpy_kind kind, void *stream)
{
    xrt__cpu_op op;
    xrt__cpu_copy_op(&op, dst, src, size);
    op.u.copy.kind = kind;
    if (kind != XRT_MEMCPY_DEVICE_TO_DEVICE && !__atomic_load_n(&xrt__cpu_stream_of(stream)->cap, __ATOMIC_ACQUIRE) &&
        xrt__cpu_copy_in_place(self, dst, src, kind))
        return xrt__cpu_copy_now(self, &op, stream);
    return xrt__cpu_enqueue(stream, &op, "cpu: xrt_memcpy_async");
}

/* As cudaMemset: a set of device memory is not waited for, one of pinned
   host or managed memory is (xrt__mem_set_waits). */
static xrt_status xrt__cpu_memset(const xrt_backend *self, void *dst, int value, size_t size)
{
    xrt__cpu_op op;
    xrt__cpu_set_op(&op, dst, value, size);
    return xrt__cpu_sync_or_queue(self, &op, xrt__mem_set_waits(self, dst), "cpu: xrt_memset");
}

static xrt_status xrt__cpu_memset_async(const xrt_backend *self, void *dst, int value, size_t size, void *stream)
{
    xrt__cpu_op op;
    xrt__cpu_set_op(&op, dst, value, size);
    return xrt__cpu_enqueue(stream, &op, "cpu: xrt_memset_async");
}

/* An enqueued rectangle (r->heap): freed here where it is not queued or captured. */
static xrt_status xrt__cpu_rect_enqueue(void *stream, xrt__cpu_rect *r, const char *who)
{
    xrt__cpu_stream *s = xrt__cpu_stream_of(stream);
    xrt__cpu_op op, *slot;
    xrt_status st;
    op.run = xrt__cpu_run_rect;
    op.u.host.fn = NULL;
    op.u.host.user = r;
    if (XRT__UNLIKELY(__atomic_load_n(&s->cap, __ATOMIC_ACQUIRE)) && xrt__cpu_cap_op(s, &op, who, &st)) return st;
    if ((st = xrt__cpu_enter(s, who)) != XRT_SUCCESS) {
        XRT_FREE(r);
        return st;
    }
    if (!(slot = xrt__cpu_reserve(s, who))) {
        xrt__cpu_leave(s);
        XRT_FREE(r);
        return XRT_ERROR_OUT_OF_MEMORY;
    }
    *slot = op;
    xrt__cpu_publish(s, slot);
    return XRT_SUCCESS;
}

static xrt__cpu_rect *xrt__cpu_rect_new(const xrt__cpu_rect *r, const char *who)
{
    xrt__cpu_rect *h = (xrt__cpu_rect *)XRT_MALLOC(sizeof *h);
    if (!h) {
        xrt_error(XRT_ERROR_OUT_OF_MEMORY, who, "no memory for a 2-D operation");
        return NULL;
    }
    *h = *r;
    h->heap = 1;
    return h;
}

static xrt_status xrt__cpu_rect_sync(const xrt_backend *self, xrt__cpu_rect *r, const char *who)
{
    xrt__cpu_op op;
    op.run = xrt__cpu_run_rect;
    op.u.host.fn = NULL;
    op.u.host.user = r; /* the caller's: run_ordered returns when it is done */
    return xrt__cpu_sync_op(self, &op, who);
}

static xrt_status xrt__cpu_rect_async(xrt__cpu_rect *r, void *stream, const char *who)
{
    xrt__cpu_rect *h = xrt__cpu_rect_new(r, who);
    return h ? xrt__cpu_rect_enqueue(stream, h, who) : XRT_ERROR_OUT_OF_MEMORY;
}

static void xrt__cpu_rect_copy(xrt__cpu_rect *r, void *dst, size_t dpitch, const void *src, size_t spitch,
                               size_t width, size_t height)
{
    memset(r, 0, sizeof *r);
    r->dst = (unsigned char *)dst;
    r->src = (const unsigned char *)src;
    r->dpitch = dpitch;
    r->spitch = spitch;
    r->width = width;
    r->height = height;
    r->depth = 1;
    r->esize = 1;
}

/* A synchronous 2-D or 3-D copy or set, as xrt__cpu_sync_or_queue: queued
   on the NULL stream where the host does not wait for it, else done in
   its order before it returns. */
static xrt_status xrt__cpu_rect_sync_or_queue(const xrt_backend *self, xrt__cpu_rect *r, int wait, const char *who)
{
    xrt_status st;
    if (wait) return xrt__cpu_rect_sync(self, r, who);
    st = xrt__cpu_cap_unsafe(who);
    return st != XRT_SUCCESS ? st : xrt__cpu_rect_async(r, NULL, who);
}

/* cudaMemcpy2D and cudaMemcpy3D are synchronous copies too: device to
   device not waited for, as xrt__cpu_memcpy. */
static xrt_status xrt__cpu_rect_copy_sync(const xrt_backend *self, xrt__cpu_rect *r, xrt_memcpy_kind kind,
                                          const char *who)
{
    r->kind = kind;
    return xrt__cpu_rect_sync_or_queue(self, r, kind != XRT_MEMCPY_DEVICE_TO_DEVICE, who);
}

static xrt_status xrt__cpu_memcpy_2d(const xrt_backend *self, void *dst, size_t dpitch, const void *src,
                                     size_t spitch, size_t width, size_t height, xrt_memcpy_kind kind)
{
    xrt__cpu_rect r;
    xrt__cpu_rect_copy(&r, dst, dpitch, src, spitch, width, height);
    return xrt__cpu_rect_copy_sync(self, &r, kind, "cpu: xrt_memcpy_2d");
}

/* A pageable host side makes the copy synchronous, as xrt__cpu_memcpy_async
   (except from a host function, where it is queued). */
static xrt_status xrt__cpu_rect_copy_async(const xrt_backend *self, xrt__cpu_rect *r, xrt_memcpy_kind kind,
                                           void *stream, const char *who)
{
    r->kind = kind;
    if (kind != XRT_MEMCPY_DEVICE_TO_DEVICE && !xrt__cpu_serving && !xrt__cpu_capturing(stream) &&
        xrt__cpu_copy_in_place(self, r->dst, r->src, kind)) {
        xrt__cpu_op op;
        op.run = xrt__cpu_run_rect;
        op.u.host.fn = NULL;
        op.u.host.user = r; /* done before xrt__cpu_copy_now returns: no host function serves here */
        return xrt__cpu_copy_now(self, &op, stream);
    }
    return xrt__cpu_rect_async(r, stream, who);
}

static xrt_status xrt__cpu_memcpy_2d_async(const xrt_backend *self, void *dst, size_t dpitch, const void *src,
                                           size_t spitch, size_t width, size_t height, xrt_memcpy_kind kind,
                                           void *stream)
{
    xrt__cpu_rect r;
    xrt__cpu_rect_copy(&r, dst, dpitch, src, spitch, width, height);
    return xrt__cpu_rect_copy_async(self, &r, kind, stream, "cpu: xrt_memcpy_2d_async");
}

static void xrt__cpu_rect_set(xrt__cpu_rect *r, void *dst, size_t pitch, unsigned value, unsigned esize,
                              size_t width, size_t height)
{
    memset(r, 0, sizeof *r);
    r->dst = (unsigned char *)dst;
    r->dpitch = pitch;
    r->width = width;
    r->height = height;
    r->depth = 1;
    r->value = value;
    r->esize = esize;
}

static xrt_status xrt__cpu_memset_2d(const xrt_backend *self, void *dst, size_t pitch, unsigned value,
                                     unsigned element_size, size_t width, size_t height)
{
    xrt__cpu_rect r;
    xrt__cpu_rect_set(&r, dst, pitch, value, element_size, width, height);
    return xrt__cpu_rect_sync_or_queue(self, &r, xrt__mem_set_waits(self, dst), "cpu: xrt_memset_2d");
}

static xrt_status xrt__cpu_memset_2d_async(const xrt_backend *self, void *dst, size_t pitch, unsigned value,
                                           unsigned element_size, size_t width, size_t height, void *stream)
{
    xrt__cpu_rect r;
    (void)self;
    xrt__cpu_rect_set(&r, dst, pitch, value, element_size, width, height);
    return xrt__cpu_rect_async(&r, stream, "cpu: xrt_memset_2d_async");
}

/* A box of 3-D memory: its first byte on a side at pos, slices pitch x ysize apart. */
static unsigned char *xrt__cpu_box_at(const xrt_pitched_ptr *p, const xrt_pos *pos)
{
    return (unsigned char *)p->ptr + pos->z * p->pitch * p->ysize + pos->y * p->pitch + pos->x;
}

static void xrt__cpu_rect_box(xrt__cpu_rect *r, const xrt_memcpy_3d_parms *p)
{
    xrt__cpu_rect_copy(r, xrt__cpu_box_at(&p->dst_ptr, &p->dst_pos), p->dst_ptr.pitch,
                       xrt__cpu_box_at(&p->src_ptr, &p->src_pos), p->src_ptr.pitch, p->extent.width, p->extent.height);
    r->depth = p->extent.depth;
    r->dslice = p->dst_ptr.pitch * p->dst_ptr.ysize;
    r->sslice = p->src_ptr.pitch * p->src_ptr.ysize;
}

static xrt_status xrt__cpu_memcpy_3d(const xrt_backend *self, const xrt_memcpy_3d_parms *p)
{
    xrt__cpu_rect r;
    xrt__cpu_rect_box(&r, p);
    return xrt__cpu_rect_copy_sync(self, &r, p->kind, "cpu: xrt_memcpy_3d");
}

static xrt_status xrt__cpu_memcpy_3d_async(const xrt_backend *self, const xrt_memcpy_3d_parms *p, void *stream)
{
    xrt__cpu_rect r;
    xrt__cpu_rect_box(&r, p);
    return xrt__cpu_rect_copy_async(self, &r, p->kind, stream, "cpu: xrt_memcpy_3d_async");
}

static void xrt__cpu_rect_set_box(xrt__cpu_rect *r, const xrt_pitched_ptr *dst, unsigned value, const xrt_extent *e)
{
    xrt__cpu_rect_set(r, dst->ptr, dst->pitch, value, 1, e->width, e->height);
    r->depth = e->depth;
    r->dslice = dst->pitch * dst->ysize;
}

static xrt_status xrt__cpu_memset_3d(const xrt_backend *self, const xrt_pitched_ptr *dst, unsigned value,
                                     const xrt_extent *extent)
{
    xrt__cpu_rect r;
    xrt__cpu_rect_set_box(&r, dst, value, extent);
    return xrt__cpu_rect_sync_or_queue(self, &r, xrt__mem_set_waits(self, dst->ptr), "cpu: xrt_memset_3d");
}

/* Captured, a box of several slices is one 2-D memset node a slice, in
   order, as the CUDA backend's captures are on the CUDA runtime test double
   (its cudaMemset3DAsync sets slice by slice): a memset node's params
   (xrt_memset_node_params, cudaMemsetParams) have no depth, and a node they
   cannot describe has no accesses for the stream-order checker. */
static xrt_status xrt__cpu_memset_3d_async(const xrt_backend *self, const xrt_pitched_ptr *dst, unsigned value,
                                           const xrt_extent *extent, void *stream)
{
    xrt__cpu_rect r;
    xrt_status st = XRT_SUCCESS;
    size_t z;
    (void)self;
    if (extent->depth > 1 && xrt__cpu_capturing(stream)) {
        for (z = 0; z < extent->depth && st == XRT_SUCCESS; z++) {
            xrt__cpu_rect_set(&r, (unsigned char *)dst->ptr + z * dst->pitch * dst->ysize, dst->pitch, value, 1,
                              extent->width, extent->height);
            st = xrt__cpu_rect_async(&r, stream, "cpu: xrt_memset_3d_async");
        }
        return st;
    }
    xrt__cpu_rect_set_box(&r, dst, value, extent);
    return xrt__cpu_rect_async(&r, stream, "cpu: xrt_memset_3d_async");
}

/* A value in kB of a meminfo file, in bytes; 0 if it has none. A node's
   file (nodeN/meminfo) puts "Node N " before each key. */
static size_t xrt__cpu_meminfo_in(const char *path, const char *key)
{
    char line[256];
    size_t kb = 0, klen = strlen(key);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    while (fgets(line, sizeof line, f)) {
        const char *k = line;
        if (strncmp(k, "Node ", 5) == 0) k += 5 + strspn(k + 5, "0123456789 ");
        if (strncmp(k, key, klen) == 0 && k[klen] == ':') {
            kb = strtoull(k + klen + 1, NULL, 10);
            break;
        }
    }
    fclose(f);
    return kb * 1024;
}

/* A meminfo value (MemTotal, MemFree) of the node of a device placed under
   numa; 0 for an unplaced device, or a node whose meminfo cannot be read
   or does not have it. */
static size_t xrt__cpu_node_memory(int device, const char *key)
{
    char path[PATH_MAX];
    if (!xrt__cpu.numa || xrt__cpu.node[device] < 0) return 0;
    snprintf(path, sizeof path, "%s/devices/system/node/node%d/meminfo", xrt__sysfs_root, xrt__cpu.node[device]);
    return xrt__cpu_meminfo_in(path, key);
}

static size_t xrt__cpu_machine_memory(void) { return (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE); }

/* A device's memory: its node's under numa (where sysfs says), else the
   machine's. */
static size_t xrt__cpu_total_memory(int device)
{
    size_t n = xrt__cpu_node_memory(device, "MemTotal");
    return n ? n : xrt__cpu_machine_memory();
}

/* A device's total is its memory (its node's under numa, else the
   machine's). Its free memory is what the node has free, or the machine
   available, but never more than the total less what this device has
   allocated (xrt_malloc, xrt_malloc_async, not yet freed), as a GPU's free
   memory shrinks by its own allocations even before they are touched. */
static xrt_status xrt__cpu_mem_get_info(const xrt_backend *self, size_t *free_bytes, size_t *total_bytes)
{
    int device = xrt__cpu_current();
    size_t mine = xrt__mem_device_bytes(self, device);
    if ((*total_bytes = xrt__cpu_node_memory(device, "MemTotal")) != 0) {
        *free_bytes = xrt__cpu_node_memory(device, "MemFree");
    } else {
        *total_bytes = xrt__cpu_machine_memory(); /* the node's file was read above */
        if (!(*free_bytes = xrt__cpu_meminfo_in("/proc/meminfo", "MemAvailable")))
            *free_bytes = (size_t)sysconf(_SC_AVPHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
    }
    if (*free_bytes > *total_bytes - (mine < *total_bytes ? mine : *total_bytes))
        *free_bytes = *total_bytes - (mine < *total_bytes ? mine : *total_bytes);
    return XRT_SUCCESS;
}

/* >> cpu: device */
static xrt_status xrt__cpu_get_capabilities(const xrt_backend *self, unsigned *caps)
{
    *caps = XRT_CAP_PINNED_HOST | XRT_CAP_MALLOC_ASYNC | XRT_CAP_HOST_FUNC | XRT_CAP_EVENT_TIMING | XRT_CAP_MODULES |
            XRT_CAP_GRAPHS;
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_get_device_count(const xrt_backend *self, int *count)
{
    *count = xrt__cpu.ndev;
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_check_device(int device, const char *who)
{
    if (device >= 0 && device < xrt__cpu.ndev) return XRT_SUCCESS;
    return xrt_error(XRT_ERROR_INVALID_DEVICE, who, "device %d out of range (%d device%s; XRT_CPU_DEVICES sets how many)",
                     device, xrt__cpu.ndev, xrt__cpu.ndev == 1 ? "" : "s");
}

static xrt_status xrt__cpu_set_device(const xrt_backend *self, int device)
{
    xrt_status st = xrt__cpu_check_device(device, "cpu: xrt_set_device");
    if (st == XRT_SUCCESS) xrt__cpu_device = device;
    return st;
}

static xrt_status xrt__cpu_get_device(const xrt_backend *self, int *device)
{
    *device = xrt__cpu_current();
    return XRT_SUCCESS;
}

/* The current device's flags (checked by the dispatch layer); the schedule
   takes effect at each host wait that starts after it. MAP_HOST always holds
   (every CPU device uses host memory directly), as CUDA's runtime implies
   it; LMEM_RESIZE_TO_MAX is only kept: kernels' stacks are threads'. */
static xrt_status xrt__cpu_set_device_flags(const xrt_backend *self, unsigned flags)
{
    __atomic_store_n(&xrt__cpu_flags[xrt__cpu_current()], flags, __ATOMIC_RELAXED);
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_get_device_flags(const xrt_backend *self, unsigned *flags)
{
    *flags = __atomic_load_n(&xrt__cpu_flags[xrt__cpu_current()], __ATOMIC_RELAXED) | XRT_DEVICE_MAP_HOST;
    return XRT_SUCCESS;
}

/* >> cpu: device limits. A CPU kernel's stack is its worker thread's, its
   printf writes to stdout directly and its malloc is the process heap: the
   three limits a port sets for them (stack size, printf FIFO, malloc heap)
   change nothing here, so each device keeps what was set (CUDA's defaults
   until then, again after xrt_device_reset) and answers it. The device
   runtime's limits and the L2 hints have nothing behind them on the CPU:
   unsupported. */
#define XRT__CPU_LIMITS 3 /* XRT_LIMIT_STACK_SIZE .. XRT_LIMIT_MALLOC_HEAP_SIZE */
static const size_t xrt__cpu_limit_default[XRT__CPU_LIMITS] = {1024, (size_t)1 << 20, (size_t)8 << 20};
/* each value XOR its default: zeroed memory (and a reset) is the defaults */
static size_t xrt__cpu_limits[XRT__CPU_DEVICES_MAX][XRT__CPU_LIMITS];

static xrt_status xrt__cpu_limit_lacks(const char *fn, int limit)
{
    return xrt_error(XRT_ERROR_UNSUPPORTED, fn, "cpu: limit %d has nothing behind it on the CPU (no device runtime, no L2 "
                     "to steer)", limit);
}

static xrt_status xrt__cpu_device_set_limit(const xrt_backend *self, int limit, size_t value)
{
    (void)self;
    if (limit >= XRT__CPU_LIMITS) return xrt__cpu_limit_lacks("xrt_device_set_limit", limit);
    __atomic_store_n(&xrt__cpu_limits[xrt__cpu_current()][limit], value ^ xrt__cpu_limit_default[limit], __ATOMIC_RELAXED);
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_device_get_limit(const xrt_backend *self, size_t *value, int limit)
{
    (void)self;
    if (limit >= XRT__CPU_LIMITS) return xrt__cpu_limit_lacks("xrt_device_get_limit", limit);
    *value = __atomic_load_n(&xrt__cpu_limits[xrt__cpu_current()][limit], __ATOMIC_RELAXED) ^ xrt__cpu_limit_default[limit];
    return XRT_SUCCESS;
}

/* The L1/shared-memory preference: a CPU core's caches do not split, so a
   CPU device is one "where the size of the L1 cache and shared memory are
   fixed": the setting "does nothing" and the answer is
   cudaFuncCachePreferNone, as CUDA documents for such a device. */
static xrt_status xrt__cpu_device_set_cache_config(const xrt_backend *self, int config)
{
    (void)self, (void)config;
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_device_get_cache_config(const xrt_backend *self, int *config)
{
    (void)self;
    *config = XRT_FUNC_CACHE_PREFER_NONE;
    return XRT_SUCCESS;
}

/* >> cpu: GPUDirect RDMA writes. A CPU device's memory is host memory, which
   a NIC's DMA writes as coherently as any device's (PCIe writes to host
   memory snoop the caches): every device sees them once they are done. The
   flush orders the calling thread's later reads and enqueues after them (a
   full barrier: a sequentially consistent read-modify-write, which
   ThreadSanitizer sees, as it does no lone fence), within either scope. */
static unsigned xrt__cpu_rdma_flushes;
static xrt_status xrt__cpu_device_flush_gpu_direct_rdma_writes(const xrt_backend *self, int target, int scope)
{
    (void)self, (void)target, (void)scope;
    __atomic_fetch_add(&xrt__cpu_rdma_flushes, 1, __ATOMIC_SEQ_CST);
    return XRT_SUCCESS;
}

/* >> cpu: device reset. A stream, event or memory pool is the device's
   that was current at its creation; modules, graphs and executable graphs
   are no device's on the CPU (a module's functions run on every device, a
   graph is run by the stream it is launched on) and stay. */
static int xrt__cpu_on_device(const xrt_backend *self, uintptr_t kind, void *obj, int device)
{
    (void)self;
    if (kind == XRT__HANDLE_STREAM) return ((const xrt__cpu_stream *)obj)->device == device;
    if (kind == XRT__HANDLE_EVENT) return ((const xrt__cpu_event *)obj)->device == device;
    if (kind == XRT__HANDLE_MEM_POOL) return ((const xrt__cpu_mpool *)obj)->device == device;
    return 0;
}

/* Idle already (the dispatch layer synchronized it): its memory and objects
   go, its default pool gives all its kept memory back, and its peer access,
   both ways, is disabled; its limits are the defaults again (they are the
   primary context's, which CUDA's reset destroys). Its flags stay, as a
   CUDA device's do. */
static xrt_status xrt__cpu_device_reset(const xrt_backend *self)
{
    int d = xrt__cpu_current(), p;
    xrt__device_reset_objects(self, d, xrt__cpu_on_device);
    if (__atomic_load_n(&xrt__cpu_mpool_dflt[d].ready, __ATOMIC_ACQUIRE)) {
        xrt__cpu_mpool *m = &xrt__cpu_mpool_dflt[d];
        xrt__cpu_mpool_release(m, 0); /* all it keeps: nothing of it is in use */
        xrt__cpu_lock(&m->lock); /* and as a fresh device has it (CUDA: a new primary context's) */
        xrt__cpu_mpool_init(m, d);
        m->threshold = m->access = 0;
        m->reserved_high = m->reserved;
        m->used_high = m->used;
        xrt__cpu_unlock(&m->lock);
    }
    __atomic_store_n(&xrt__cpu.peers[d], 0, __ATOMIC_RELAXED);
    for (p = 0; p < xrt__cpu.ndev; p++) __atomic_and_fetch(&xrt__cpu.peers[p], ~((uint64_t)1 << d), __ATOMIC_RELAXED);
    for (p = 0; p < XRT__CPU_LIMITS; p++) __atomic_store_n(&xrt__cpu_limits[d][p], 0, __ATOMIC_RELAXED);
    return XRT_SUCCESS;
}

/* A sysfs list of ids ("0,2-3" and a line end, as node/online and
   nodeN/cpulist hold) into *set; "" where it is one ("" and "\n" are empty
   lists), else why not. */
static const char *xrt__cpu_parse_list(const char *s, cpu_set_t *set)
{
    CPU_ZERO(set);
    if (!*s || !strcmp(s, "\n")) return "";
    for (;;) {
        char *end;
        long a, b;
        if (*s < '0' || *s > '9') return "not a list of numbers";
        a = b = strtol(s, &end, 10);
        if (*end == '-') {
            if (end[1] < '0' || end[1] > '9') return "not a list of numbers";
            b = strtol(end + 1, &end, 10);
        }
        if (a > b) return "a range runs backwards";
        if (b >= CPU_SETSIZE) return "a number past 1023";
        for (; a <= b; a++) CPU_SET((int)a, set);
        if (*end == ',') s = end + 1;
        else return !*end || !strcmp(end, "\n") ? "" : "not a list of numbers";
    }
}

/* The list in the file at `path`; "" or why not. */
static const char *xrt__cpu_read_list(const char *path, cpu_set_t *set, char *why, size_t n)
{
    char text[4096];
    size_t len;
    const char *bad;
    FILE *f = fopen(path, "r");
    CPU_ZERO(set);
    if (!f) {
        snprintf(why, n, "%s: %s", path, strerror(errno));
        return why;
    }
    len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = 0;
    if (len == sizeof text - 1 || strlen(text) != len) bad = "not a list of numbers";
    else if (!*(bad = xrt__cpu_parse_list(text, set))) return "";
    text[strcspn(text, "\n")] = 0;
    snprintf(why, n, "%s: %s ('%.32s')", path, bad, text);
    return why;
}

/* XRT_CPU_DEVICES=numa: a device per node the kernel lists online
   (node/online; ids may have gaps), in order, each with its node's CPUs
   (nodeN/cpulist; none for a node of memory only). A list that is not
   valid, or longer than 64 nodes, gives one device, unplaced, and a warning. */
static int xrt__cpu_numa_nodes(void)
{
    char path[PATH_MAX], why[PATH_MAX + 96] = "";
    cpu_set_t nodes;
    int n = 0, id;
    snprintf(path, sizeof path, "%s/devices/system/node/online", xrt__sysfs_root);
    if (*xrt__cpu_read_list(path, &nodes, why, sizeof why) || CPU_COUNT(&nodes) == 0 ||
        CPU_COUNT(&nodes) > XRT__CPU_DEVICES_MAX) {
        if (!*why) snprintf(why, sizeof why, "%s lists %d nodes (1 to %d are valid)", path, CPU_COUNT(&nodes),
                            XRT__CPU_DEVICES_MAX);
        xrt__log_warn_once("XRT_CPU_DEVICES=numa: %s; 1 device, not placed", why);
        return 0;
    }
    for (id = 0; id < CPU_SETSIZE; id++) {
        if (!CPU_ISSET(id, &nodes)) continue;
        xrt__cpu.node[n] = id;
        snprintf(path, sizeof path, "%s/devices/system/node/node%d/cpulist", xrt__sysfs_root, id);
        if (*xrt__cpu_read_list(path, &xrt__cpu.cpus[n], why, sizeof why))
            xrt__log_warn_once("XRT_CPU_DEVICES=numa: %s; device %d's workers not placed", why, n);
        n++;
    }
    return n;
}

/* The process may be kept to fewer CPUs than a node has (taskset, a
   cgroup's cpuset): a device's workers run on those of its node's CPUs that
   the process may use. A node that has CPUs, none of them the process's,
   leaves its device's workers unplaced, with a warning. */
static void xrt__cpu_numa_allowed(int ndev)
{
    cpu_set_t node;
    int d;
    if (CPU_COUNT(&xrt__cpu.unplaced) == 0) return; /* the mask is not known: the nodes' lists as they are */
    for (d = 0; d < ndev; d++) {
        if (CPU_COUNT(&xrt__cpu.cpus[d]) == 0) continue; /* memory only, or its list not read: unplaced already */
        node = xrt__cpu.cpus[d];
        CPU_AND(&xrt__cpu.cpus[d], &node, &xrt__cpu.unplaced);
        if (CPU_COUNT(&xrt__cpu.cpus[d]) == 0)
            xrt__log_warn_once("XRT_CPU_DEVICES=numa: none of node %d's CPUs is in the process's affinity mask "
                               "(sched_getaffinity); device %d's workers not placed",
                               xrt__cpu.node[d], d);
    }
}

/* Reads XRT_CPU_DEVICES and, under numa, the nodes; no device is placed
   where numa is not asked for or the nodes cannot be read. */
static int xrt__cpu_devices_env(void)
{
    long long n = xrt__env_count("XRT_CPU_DEVICES", 1, 1, XRT__CPU_DEVICES_MAX, "numa");
    int i, nodes;
    memset(xrt__cpu.cpus, 0, sizeof xrt__cpu.cpus);
    memset(xrt__cpu.warned, 0, sizeof xrt__cpu.warned);
    for (i = 0; i < XRT__CPU_DEVICES_MAX; i++) xrt__cpu.node[i] = -1;
    xrt__cpu.numa = 0;
    if (n > 0) return (int)n;
    if (sched_getaffinity(0, sizeof xrt__cpu.unplaced, &xrt__cpu.unplaced) != 0) CPU_ZERO(&xrt__cpu.unplaced);
    if ((nodes = xrt__cpu_numa_nodes()) == 0) return 1;
    xrt__cpu_numa_allowed(nodes);
    xrt__cpu.numa = 1;
    return nodes;
}

/* >> cpu: peers. Every CPU device reads every other's memory; enabling
   access only keeps CUDA's bookkeeping (and its errors), process-wide per
   device as a CUDA context's. */
static xrt_status xrt__cpu_device_can_access_peer(const xrt_backend *self, int *can, int device, int peer)
{
    xrt_status st = xrt__cpu_check_device(device, "cpu: xrt_device_can_access_peer");
    if (st == XRT_SUCCESS) st = xrt__cpu_check_device(peer, "cpu: xrt_device_can_access_peer");
    if (st == XRT_SUCCESS) *can = device != peer; /* a device is not its own peer, as in CUDA */
    return st;
}

/* Every CPU device uses the same host memory: each pair of devices is a
   link of the best rank (0), with access, native atomics (the CPU's own),
   and no CUDA arrays (xrt has none). */
static xrt_status xrt__cpu_device_get_p2p_attribute(const xrt_backend *self, int *value, int attr, int src, int dst)
{
    xrt_status st = xrt__cpu_check_device(src, "cpu: xrt_device_get_p2p_attribute");
    if (st == XRT_SUCCESS) st = xrt__cpu_check_device(dst, "cpu: xrt_device_get_p2p_attribute");
    if (st != XRT_SUCCESS) return st;
    if (attr == XRT_P2P_ATTR_ACCESS_SUPPORTED) return xrt__cpu_device_can_access_peer(self, value, src, dst);
    *value = attr == XRT_P2P_ATTR_NATIVE_ATOMIC_SUPPORTED;
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_peer_check(int peer, const char *who)
{
    xrt_status st = xrt__cpu_check_device(peer, who);
    if (st == XRT_SUCCESS && peer == xrt__cpu_current())
        return xrt_error(XRT_ERROR_INVALID_DEVICE, who, "device %d cannot be its own peer", peer);
    return st;
}

static xrt_status xrt__cpu_device_enable_peer_access(const xrt_backend *self, int peer, unsigned flags)
{
    static const char who[] = "cpu: xrt_device_enable_peer_access";
    xrt_status st = xrt__cpu_peer_check(peer, who);
    uint64_t bit = 1ull << (peer & 63);
    if (st != XRT_SUCCESS) return st;
    if (__atomic_fetch_or(&xrt__cpu.peers[xrt__cpu_current()], bit, __ATOMIC_RELAXED) & bit)
        return xrt_error(XRT_ERROR_PEER_ACCESS_ALREADY_ENABLED, who, "device %d already has access to device %d",
                         xrt__cpu_current(), peer);
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_device_disable_peer_access(const xrt_backend *self, int peer)
{
    static const char who[] = "cpu: xrt_device_disable_peer_access";
    xrt_status st = xrt__cpu_peer_check(peer, who);
    uint64_t bit = 1ull << (peer & 63);
    if (st != XRT_SUCCESS) return st;
    if (!(__atomic_fetch_and(&xrt__cpu.peers[xrt__cpu_current()], ~bit, __ATOMIC_RELAXED) & bit))
        return xrt_error(XRT_ERROR_PEER_ACCESS_NOT_ENABLED, who, "device %d has no access to device %d enabled",
                         xrt__cpu_current(), peer);
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_peer_devices(int dst_device, int src_device, const char *who)
{
    xrt_status st = xrt__cpu_check_device(dst_device, who);
    return st == XRT_SUCCESS ? xrt__cpu_check_device(src_device, who) : st;
}

/* As cudaMemcpyPeer: "asynchronous with respect to the host, but serialized
   with respect to all pending and future asynchronous work in to the current
   device, srcDevice, and dstDevice". The copy goes on the current device's
   NULL stream after a mark queued on each other device's (so after their
   blocking streams' work too), and each other NULL stream then waits for it
   (so do their blocking streams' later ops). Nothing waits here. */
static xrt_status xrt__cpu_memcpy_peer(const xrt_backend *self, void *dst, int dst_device, const void *src,
                                       int src_device, size_t size)
{
    static const char who[] = "cpu: xrt_memcpy_peer";
    xrt__cpu_stream *cur = xrt__cpu.dflt[xrt__cpu_current()], *other[2];
    uint64_t at[2], copied;
    xrt__cpu_op op;
    int n = 0, i;
    xrt_status st = xrt__cpu_peer_devices(dst_device, src_device, who);
    (void)self;
    if (st == XRT_SUCCESS) st = xrt__cpu_cap_unsafe(who);
    if (st != XRT_SUCCESS) return st;
    if (xrt__cpu.dflt[src_device] != cur) other[n++] = xrt__cpu.dflt[src_device];
    if (xrt__cpu.dflt[dst_device] != cur && dst_device != src_device) other[n++] = xrt__cpu.dflt[dst_device];
    op.run = xrt__cpu_run_nothing;
    for (i = 0; i < n; i++)
        if ((st = xrt__cpu_enqueue_at(other[i], &op, who, &at[i])) != XRT_SUCCESS) return st;
    for (i = 0; i < n; i++) {
        xrt__cpu_wait_op(&op, other[i], at[i]);
        if ((st = xrt__cpu_enqueue(cur, &op, who)) != XRT_SUCCESS) {
            xrt__cpu_stream_unref(other[i]);
            return st;
        }
    }
    xrt__cpu_copy_op(&op, dst, src, size);
    if ((st = xrt__cpu_enqueue_at(cur, &op, who, &copied)) != XRT_SUCCESS) return st;
    for (i = 0; i < n; i++) {
        xrt__cpu_wait_op(&op, cur, copied);
        if ((st = xrt__cpu_enqueue(other[i], &op, who)) != XRT_SUCCESS) {
            xrt__cpu_stream_unref(cur);
            return st;
        }
    }
    return XRT_SUCCESS;
}

/* Split across the pool when large, as any other copy. */
static xrt_status xrt__cpu_memcpy_peer_async(const xrt_backend *self, void *dst, int dst_device, const void *src,
                                             int src_device, size_t size, void *stream)
{
    static const char who[] = "cpu: xrt_memcpy_peer_async";
    xrt__cpu_op op;
    xrt_status st = xrt__cpu_peer_devices(dst_device, src_device, who);
    if (st != XRT_SUCCESS) return st;
    xrt__cpu_copy_op(&op, dst, src, size);
    return xrt__cpu_enqueue(stream, &op, who);
}

static void xrt__cpu_model_name(char *out, size_t n)
{
    char line[300];
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

/* With several devices the name says which: "CPU device 1 of 4: <model>",
   "CPU device 1 of 2, NUMA node 2: <model>" with XRT_CPU_DEVICES=numa; one
   device keeps the model's name. */
static void xrt__cpu_device_name(char *out, size_t n, int device)
{
    char model[200], node[32] = "";
    xrt__cpu_model_name(model, sizeof model);
    if (xrt__cpu.numa) snprintf(node, sizeof node, ", NUMA node %d", xrt__cpu.node[device]);
    if (xrt__cpu.ndev == 1) snprintf(out, n, "%s", model);
    else snprintf(out, n, "CPU device %d of %d%s: %s", device, xrt__cpu.ndev, node, model);
}

/* >> cpu: architecture names. The architecture as the compiler targets it
   (its predefined macros; xrt needs a 64-bit one): each byte order is an
   architecture of its own, as code built for one does not run on the other.
   One not named here is uname's machine (xrt__cpu_arch). tests/aarch64.sh
   checks each name through clang's preprocessor for that target. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define XRT__CPU_BE 1
#else
#define XRT__CPU_BE 0
#endif
#if defined(__x86_64__)
#define XRT__CPU_ARCH "x86_64"
#elif defined(__aarch64__) && XRT__CPU_BE
#define XRT__CPU_ARCH "aarch64_be"
#elif defined(__aarch64__)
#define XRT__CPU_ARCH "aarch64"
#elif defined(__riscv) && __riscv_xlen == 64
#define XRT__CPU_ARCH "riscv64"
#elif defined(__powerpc64__) && XRT__CPU_BE
#define XRT__CPU_ARCH "ppc64"
#elif defined(__powerpc64__)
#define XRT__CPU_ARCH "ppc64le"
#elif defined(__s390x__)
#define XRT__CPU_ARCH "s390x"
#elif defined(__loongarch__) && __loongarch_grlen == 64
#define XRT__CPU_ARCH "loongarch64"
#elif defined(__mips64) && XRT__CPU_BE
#define XRT__CPU_ARCH "mips64"
#elif defined(__mips64)
#define XRT__CPU_ARCH "mips64el"
#elif defined(__sparc__) && defined(__arch64__)
#define XRT__CPU_ARCH "sparc64"
#elif defined(__alpha__)
#define XRT__CPU_ARCH "alpha"
#elif defined(__ia64__)
#define XRT__CPU_ARCH "ia64"
#else
#define XRT__CPU_ARCH "" /* uname's machine */
#endif
/* << cpu: architecture names */

/* The architecture's name: `named` (XRT__CPU_ARCH), else uname's machine
   (cut to fit n > 0). */
static void xrt__cpu_arch(const char *named, char *out, size_t n)
{
    struct utsname u;
    const char *name = named[0] ? named : uname(&u) == 0 && u.machine[0] ? u.machine : "unknown";
    snprintf(out, n, "%.*s", (int)(n - 1), name);
}

/* The kernel's hwcap words (AT_HWCAP .. AT_HWCAP4) as features:
   hwcap=<hex>,hwcap2=<hex>, then ,hwcap3=<hex>,hwcap4=<hex> where either of
   those is not 0; `no_code`, AT_HWCAP's bits that are no code's, cleared. */
static inline void xrt__cpu_hwcap_features(const unsigned long hw[4], unsigned long no_code, char *features, size_t n)
{
    int len = snprintf(features, n, "hwcap=%lx,hwcap2=%lx", hw[0] & ~no_code, hw[1]);
    if ((hw[2] || hw[3]) && len > 0 && (size_t)len < n)
        snprintf(features + len, n - (size_t)len, ",hwcap3=%lx,hwcap4=%lx", hw[2], hw[3]);
}
/* AArch64's: EVTSTRM (the timer's event stream) and CPUID (the kernel's
   emulation of EL0 reads of the ID registers). */
#define XRT__AARCH64_HWCAP_SYSTEM (1ul << 2 | 1ul << 11)

/* The widest vectors in 32-bit lanes, and the instruction-set features a
   compiler may use (gcc -march=native reads the same): two CPUs share a
   target only if code built for one runs on the other.
   x86-64: the CPUID words that hold feature bits, each as <name>=<hex>
   (its bits a compiler could target; those of system state, speculation
   controls and the hypervisor cleared), words that are 0 left out, sorted
   by name: 01c/01d leaf 1 ecx/edx, 07b/07c/07d leaf 7.0 ebx/ecx/edx,
   14b leaf 0x14.0 ebx, 17a/17d leaf 7.1 eax/edx, 19b leaf 0x19 ebx,
   24b leaf 0x24.0 ebx, 81c/81d leaf 0x80000001 ecx/edx, 88b leaf
   0x80000008 ebx, d1a leaf 0xd.1 eax, xc0 XCR0 (the vector state the kernel
   enabled). Unknown bits of the newer leaves count: a spare split is a
   rebuild, a missing one a crash. REFERENCE.md, "Compile targets", has the
   masks. Every other architecture: the hwcap words (xrt__cpu_hwcap_features). */
#if defined(__x86_64__)
#include <cpuid.h>
enum { XRT__X86_01C, XRT__X86_01D, XRT__X86_07B, XRT__X86_07C, XRT__X86_07D, XRT__X86_14B, XRT__X86_17A, XRT__X86_17D,
       XRT__X86_19B, XRT__X86_24B, XRT__X86_81C, XRT__X86_81D, XRT__X86_88B, XRT__X86_D1A, XRT__X86_XC0, XRT__X86_WORDS };

/* Each word's name and the bits kept, in the names' order. */
static const struct { char name[4]; uint32_t keep; } xrt__x86_words[XRT__X86_WORDS] = {
    {"01c", 0x7ed8320bu}, /* not DTES64, DS-CPL, VMX, SMX, EST, TM2, CNXT-ID, SDBG, xTPR, PDCM, PCID, DCA, x2APIC, TSC-deadline, hypervisor */
    {"01d", 0x07888111u}, /* FPU, TSC, CX8, CMOV, CLFSH, MMX, FXSR, SSE, SSE2 */
    {"07b", 0xfdef4b3du}, /* not TSC_ADJUST, FDP_EXCPTN, SMEP, INVPCID, RDT-M, FPU CS/DS, RDT-A, SMAP, Intel PT */
    {"07c", 0x3ec0dffbu}, /* not UMIP, TME, LA57, MAWAU, BUS_LOCK_DETECT, SGX-LC, PKS */
    {"07d", 0x03f351ffu}, /* not SRBDS_CTRL, MD_CLEAR, RTM_ALWAYS_ABORT, TSX_FORCE_ABORT, hybrid, PCONFIG, arch LBR,
                             IBRS .. SSBD */
    {"14b", 0x00000010u}, /* PTWRITE */
    {"17a", 0xfbffffffu}, /* not LAM */
    {"17d", 0xfffbffffu}, /* not CET_SSS */
    {"19b", 0x00000005u}, /* AESKLE, WIDE_KL */
    {"24b", 0x000700ffu}, /* AVX10 version and vector lengths */
    {"81c", 0x202189e1u}, /* LAHF, ABM, SSE4A, MisAlignSse, 3DNowPrefetch, XOP, LWP, FMA4, TBM, MONITORX */
    {"81d", 0xe9c08111u}, /* FPU, TSC, CX8, CMOV, MMXEXT, MMX, FXSR, RDTSCP, LM, 3DNowExt, 3DNow */
    {"88b", 0x00000311u}, /* CLZERO, RDPRU, MCOMMIT, WBNOINVD */
    {"d1a", 0x0000000fu}, /* XSAVEOPT, XSAVEC, XGETBV1, XSAVES */
    {"xc0", 0xffffffffu}, /* XCR0: every state the kernel enabled */
};

static void xrt__cpu_x86_read(uint32_t w[XRT__X86_WORDS])
{
    unsigned a, b, c, d, max = __get_cpuid_max(0, NULL), ext = __get_cpuid_max(0x80000000u, NULL);
    memset(w, 0, XRT__X86_WORDS * sizeof *w);
    if (max >= 1 && __get_cpuid_count(1, 0, &a, &b, &c, &d)) w[XRT__X86_01C] = c, w[XRT__X86_01D] = d;
    if (max >= 7 && __get_cpuid_count(7, 0, &a, &b, &c, &d)) {
        w[XRT__X86_07B] = b, w[XRT__X86_07C] = c, w[XRT__X86_07D] = d;
        if (a >= 1 && __get_cpuid_count(7, 1, &a, &b, &c, &d)) w[XRT__X86_17A] = a, w[XRT__X86_17D] = d;
    }
    if (max >= 0xd && __get_cpuid_count(0xd, 1, &a, &b, &c, &d)) w[XRT__X86_D1A] = a;
    if (max >= 0x14 && __get_cpuid_count(0x14, 0, &a, &b, &c, &d)) w[XRT__X86_14B] = b;
    if (max >= 0x19 && __get_cpuid_count(0x19, 0, &a, &b, &c, &d)) w[XRT__X86_19B] = b;
    if (max >= 0x24 && __get_cpuid_count(0x24, 0, &a, &b, &c, &d)) w[XRT__X86_24B] = b;
    if (ext >= 0x80000001u && __get_cpuid_count(0x80000001u, 0, &a, &b, &c, &d)) w[XRT__X86_81C] = c, w[XRT__X86_81D] = d;
    if (ext >= 0x80000008u && __get_cpuid_count(0x80000008u, 0, &a, &b, &c, &d)) w[XRT__X86_88B] = b;
    if (w[XRT__X86_01C] & (1u << 27)) { /* OSXSAVE: xgetbv is there */
        __asm__ volatile("xgetbv" : "=a"(a), "=d"(d) : "c"(0));
        w[XRT__X86_XC0] = a;
    }
}

/* The kernel's name (in /proc/cpuinfo's flags) of the CPUID bits it may
   turn off (not enabling FSGSBASE, clearcpuid=, a hypervisor's view): a
   bit the kernel does not list is cleared, as the instruction would fault.
   Bits not named here are taken from CPUID as they are. */
static const struct { char flag[20]; unsigned char word, bit; } xrt__x86_kernel_names[] = {
    {"pni", XRT__X86_01C, 0},          {"pclmulqdq", XRT__X86_01C, 1},     {"ssse3", XRT__X86_01C, 9},
    {"fma", XRT__X86_01C, 12},         {"cx16", XRT__X86_01C, 13},         {"sse4_1", XRT__X86_01C, 19},
    {"sse4_2", XRT__X86_01C, 20},      {"movbe", XRT__X86_01C, 22},        {"popcnt", XRT__X86_01C, 23},
    {"aes", XRT__X86_01C, 25},         {"xsave", XRT__X86_01C, 26},        {"avx", XRT__X86_01C, 28},
    {"f16c", XRT__X86_01C, 29},        {"rdrand", XRT__X86_01C, 30},       {"fsgsbase", XRT__X86_07B, 0},
    {"sgx", XRT__X86_07B, 2},          {"bmi1", XRT__X86_07B, 3},          {"hle", XRT__X86_07B, 4},
    {"avx2", XRT__X86_07B, 5},         {"bmi2", XRT__X86_07B, 8},          {"rtm", XRT__X86_07B, 11},
    {"mpx", XRT__X86_07B, 14},         {"avx512f", XRT__X86_07B, 16},      {"avx512dq", XRT__X86_07B, 17},
    {"rdseed", XRT__X86_07B, 18},      {"adx", XRT__X86_07B, 19},          {"avx512ifma", XRT__X86_07B, 21},
    {"clflushopt", XRT__X86_07B, 23},  {"clwb", XRT__X86_07B, 24},         {"avx512cd", XRT__X86_07B, 28},
    {"sha_ni", XRT__X86_07B, 29},      {"avx512bw", XRT__X86_07B, 30},     {"avx512vl", XRT__X86_07B, 31},
    {"avx512vbmi", XRT__X86_07C, 1},   {"pku", XRT__X86_07C, 3},           {"ospke", XRT__X86_07C, 4},
    {"waitpkg", XRT__X86_07C, 5},      {"avx512_vbmi2", XRT__X86_07C, 6},  {"gfni", XRT__X86_07C, 8},
    {"vaes", XRT__X86_07C, 9},         {"vpclmulqdq", XRT__X86_07C, 10},   {"avx512_vnni", XRT__X86_07C, 11},
    {"avx512_bitalg", XRT__X86_07C, 12}, {"avx512_vpopcntdq", XRT__X86_07C, 14}, {"rdpid", XRT__X86_07C, 22},
    {"cldemote", XRT__X86_07C, 25},    {"movdiri", XRT__X86_07C, 27},      {"movdir64b", XRT__X86_07C, 28},
    {"enqcmd", XRT__X86_07C, 29},      {"avx512_4vnniw", XRT__X86_07D, 2}, {"avx512_4fmaps", XRT__X86_07D, 3},
    {"avx512_vp2intersect", XRT__X86_07D, 8}, {"serialize", XRT__X86_07D, 14}, {"tsxldtrk", XRT__X86_07D, 16},
    {"amx_bf16", XRT__X86_07D, 22},    {"avx512_fp16", XRT__X86_07D, 23},  {"amx_tile", XRT__X86_07D, 24},
    {"amx_int8", XRT__X86_07D, 25},    {"avx_vnni", XRT__X86_17A, 4},      {"avx512_bf16", XRT__X86_17A, 5},
    {"xsaveopt", XRT__X86_D1A, 0},     {"xsavec", XRT__X86_D1A, 1},        {"xgetbv1", XRT__X86_D1A, 2},
    {"xsaves", XRT__X86_D1A, 3},       {"lahf_lm", XRT__X86_81C, 0},       {"abm", XRT__X86_81C, 5},
    {"sse4a", XRT__X86_81C, 6},        {"misalignsse", XRT__X86_81C, 7},   {"3dnowprefetch", XRT__X86_81C, 8},
    {"xop", XRT__X86_81C, 11},         {"lwp", XRT__X86_81C, 15},          {"fma4", XRT__X86_81C, 16},
    {"tbm", XRT__X86_81C, 21},         {"mwaitx", XRT__X86_81C, 29},       {"rdtscp", XRT__X86_81D, 27},
    {"clzero", XRT__X86_88B, 0},       {"wbnoinvd", XRT__X86_88B, 9}};

/* Clears the bits of w that a "flags" line of /proc/cpuinfo (each name
   between spaces: " flags : fpu ... ") does not list. */
static void xrt__cpu_x86_clear_unlisted(uint32_t w[XRT__X86_WORDS], const char *line)
{
    char word[24];
    size_t i;
    for (i = 0; i < sizeof xrt__x86_kernel_names / sizeof xrt__x86_kernel_names[0]; i++) {
        snprintf(word, sizeof word, " %.19s ", xrt__x86_kernel_names[i].flag);
        if (!strstr(line, word)) w[xrt__x86_kernel_names[i].word] &= ~(1u << xrt__x86_kernel_names[i].bit);
    }
}

/* Clears the bits the kernel turned off, where /proc/cpuinfo says. */
static void xrt__cpu_x86_kernel_view(uint32_t w[XRT__X86_WORDS])
{
    static char line[16384];
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    FILE *f;
    pthread_mutex_lock(&lock);
    line[0] = ' ';
    f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line + 1, sizeof line - 2, f) && strncmp(line + 1, "flags", 5) != 0) {}
    if (f) fclose(f);
    if (f && !strncmp(line + 1, "flags", 5) && strchr(line, ':')) {
        line[strcspn(line, "\n")] = 0;
        strcat(line, " ");
        xrt__cpu_x86_clear_unlisted(w, line);
    }
    pthread_mutex_unlock(&lock);
}

/* The features of CPUID words w (masked here); the widest vectors. */
static int xrt__cpu_x86_target(const uint32_t w[XRT__X86_WORDS], char *features, size_t n)
{
    size_t used = 0;
    int i, lanes = 4; /* sse2 is the x86-64 baseline */
    features[0] = 0;
    for (i = 0; i < XRT__X86_WORDS; i++) {
        uint32_t v = w[i] & xrt__x86_words[i].keep;
        int len;
        if (!v) continue;
        len = snprintf(features + used, n - used, "%s%s=%x", used ? "," : "", xrt__x86_words[i].name, (unsigned)v);
        if (len < 0 || (size_t)len >= n - used) break; /* cannot be: 15 words of at most 13 bytes */
        used += (size_t)len;
    }
    if ((w[XRT__X86_01C] & (1u << 28)) && (w[XRT__X86_XC0] & 6) == 6) lanes = 8;                 /* AVX, YMM state */
    if ((w[XRT__X86_07B] & (1u << 16)) && (w[XRT__X86_XC0] & 0xe6) == 0xe6) lanes = 16;          /* AVX-512F, ZMM state */
    return lanes;
}

/* Read once: neither CPUID nor the kernel's view changes in a process. */
static int xrt__cpu_isa(char *features, size_t n)
{
    static uint32_t words[XRT__X86_WORDS];
    static int ready;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* a leaf: held for the copy alone */
    uint32_t w[XRT__X86_WORDS];
    if (__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) return xrt__cpu_x86_target(words, features, n);
    xrt__cpu_x86_read(w);
    xrt__cpu_x86_kernel_view(w);
    pthread_mutex_lock(&lock); /* two first calls write the same words */
    memcpy(words, w, sizeof w);
    __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lock);
    return xrt__cpu_x86_target(w, features, n);
}
#else
#include <sys/auxv.h>
#if defined(__aarch64__)
#include <sys/prctl.h>
#endif
/* Every other architecture: the kernel's hwcap words (each bit a feature of
   the instruction set it enabled; on AArch64 but its system bits), and the
   lanes: AArch64's NEON or SVE vector length, 1 elsewhere. */
static int xrt__cpu_isa(char *features, size_t n)
{
    unsigned long hw[4] = {getauxval(AT_HWCAP), getauxval(AT_HWCAP2), getauxval(29), getauxval(30)}; /* AT_HWCAP3, 4: Linux 6.16 */
#if defined(__aarch64__)
    int lanes = 4, vl;
#ifdef PR_SVE_GET_VL
    if ((hw[0] & (1ul << 22)) && (vl = prctl(PR_SVE_GET_VL)) > 0) lanes = (vl & 0xffff) / 4;
#else
    (void)vl;
#endif
    xrt__cpu_hwcap_features(hw, XRT__AARCH64_HWCAP_SYSTEM, features, n);
    return lanes;
#else
    xrt__cpu_hwcap_features(hw, 0, features, n);
    return 1;
#endif
}
#endif

static xrt_status xrt__cpu_get_target(const xrt_backend *self, int device, xrt_target *t)
{
    xrt_status st = xrt__cpu_check_device(device, "cpu: xrt_get_target");
    if (st != XRT_SUCCESS) return st;
    snprintf(t->backend, sizeof t->backend, "%.15s", self->name); /* the backend that runs the code, behind any forwarder */
    xrt__cpu_arch(XRT__CPU_ARCH, t->arch, sizeof t->arch);
    t->vector_width = xrt__cpu_isa(t->features, sizeof t->features);
    return XRT_SUCCESS;
}

/* A device's cores: its NUMA node's under XRT_CPU_DEVICES=numa, else all online. */
static int xrt__cpu_device_cores(int device)
{
    return xrt__cpu.numa && CPU_COUNT(&xrt__cpu.cpus[device]) > 0 ? CPU_COUNT(&xrt__cpu.cpus[device])
                                                                   : (int)sysconf(_SC_NPROCESSORS_ONLN);
}

static xrt_status xrt__cpu_get_device_properties(const xrt_backend *self, xrt_device_prop *prop, int device)
{
    char features[sizeof ((xrt_target *)0)->features];
    xrt_status st = xrt__cpu_check_device(device, "cpu: xrt_get_device_properties");
    if (st != XRT_SUCCESS) return st;
    memset(prop, 0, sizeof *prop);
    xrt__cpu_device_name(prop->name, sizeof prop->name, device);
    prop->warp_size = xrt__cpu_isa(features, sizeof features);
    xrt__cpu_arch(XRT__CPU_ARCH, prop->arch, sizeof prop->arch);
    prop->total_memory = xrt__cpu_total_memory(device);
    prop->multiprocessor_count = xrt__cpu_device_cores(device);
    prop->numa_node = xrt__cpu.numa ? xrt__cpu.node[device] : -1; /* a count places nothing */
    return XRT_SUCCESS;
}

/* >> cpu: kernels. A module is a shared object (given, or built from C
   source with XRT_CC through the kernel cache) opened with dlopen; a
   function is one of its symbols, a C function called once per block:
   void k(const xrt_kernel_ctx *ctx, void *args). A launch is one stream
   operation: when the stream reaches it, its blocks run over the pool (the
   worker and the helpers), each part a contiguous range of blocks with its
   own shared memory. A launch holds a reference to its module, so an
   unloaded module stays open until the launches queued before are done. */
#include <dlfcn.h>

#define XRT__CPU_MAX_BLOCK 1024u          /* threads per block */
#define XRT__CPU_MAX_SHARED (1u << 20)   /* shared bytes per block, the opt-in limit */
#define XRT__CPU_MAX_GRID_X 0x7fffffffu  /* blocks per grid, as a GPU's */
#define XRT__CPU_MAX_GRID_YZ 65535u

typedef struct xrt__cpu_function {
    xrt_cpu_kernel_fn kernel;
    size_t max_shared; /* dynamic shared bytes a launch may ask for (function_set_attribute) */
    const xrt_kernel_param *params; /* the layout its source declares (<name>_xrt_params), or NULL */
    size_t nparams, params_end; /* where the last parameter ends */
    struct xrt__cpu_module *module;
    struct xrt__cpu_function *next;
} xrt__cpu_function;

typedef struct xrt__cpu_module {
    int refs; /* the handle and every queued launch */
    void *dl;
    xrt__cpu_function *fns;
    struct xrt__cpu_module *next_open; /* in xrt__cpu_open */
    char cxx[32]; /* the C++ compiler that built it (its names are mangled), or "" */
} xrt__cpu_module;

/* Each load is a module of its own, with its own globals, as a GPU runtime
   gives: but dlopen of an object the process has open already (an earlier
   load of the same cache entry, or one that stays after dlclose: -z
   nodelete, unique symbols) returns that object. Such a load opens a
   private copy of the file instead. The list of the live modules' objects
   catches two threads that opened one path at once; xrt__cache_lock guards
   it (a leaf lock, held for the list alone; fork takes it). */
static xrt__cpu_module *xrt__cpu_open;

/* Takes `dl` for `m`: 0 if a live module has it. */
static int xrt__cpu_claim(xrt__cpu_module *m, void *dl)
{
    xrt__cpu_module *o;
    pthread_mutex_lock(&xrt__cache_lock);
    for (o = xrt__cpu_open; o && o->dl != dl; o = o->next_open) {}
    if (!o) {
        m->dl = dl;
        m->next_open = xrt__cpu_open;
        xrt__cpu_open = m;
    }
    pthread_mutex_unlock(&xrt__cache_lock);
    return !o;
}

/* After the dlclose: until then a load that gets the same object makes a copy. */
static void xrt__cpu_unclaim(xrt__cpu_module *m)
{
    xrt__cpu_module **p;
    pthread_mutex_lock(&xrt__cache_lock);
    for (p = &xrt__cpu_open; *p && *p != m; p = &(*p)->next_open) {}
    if (*p) *p = m->next_open;
    pthread_mutex_unlock(&xrt__cache_lock);
}

static void xrt__cpu_module_unref(xrt__cpu_module *m)
{
    xrt__cpu_function *f;
    if (__atomic_sub_fetch(&m->refs, 1, __ATOMIC_ACQ_REL)) return;
    while ((f = m->fns) != NULL) {
        m->fns = f->next;
        XRT_FREE(f);
    }
    dlclose(m->dl);
    xrt__cpu_unclaim(m);
    XRT_FREE(m);
}

static void *xrt__cpu_dlopen_path(const char *path, char *err, size_t n)
{
    const char *why;
    void *dl;
    dlerror();
    if ((dl = dlopen(path, RTLD_NOW | RTLD_LOCAL)) != NULL) return dl;
    why = dlerror();
    if (why && !strncmp(why, path, strlen(path)) && !strncmp(why + strlen(path), ": ", 2))
        why += strlen(path) + 2; /* the file is xrt's temporary or cache entry, not one the user made */
    snprintf(err, n, "%s", why ? why : "dlopen failed");
    return NULL;
}

static int xrt__cpu_copy_fd(int from, int to)
{
    char buf[16384];
    ssize_t got, put, off;
    while ((got = read(from, buf, sizeof buf)) != 0) {
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return 0;
        for (off = 0; off < got; off += put > 0 ? put : 0)
            if ((put = write(to, buf + off, (size_t)(got - off))) < 0 && errno != EINTR) return 0;
    }
    return 1;
}

/* A new temporary file for a copy of `path`, open for writing: beside it
   where it is a cache entry, under a name the cache sweeps (the cache
   directory is the user's own and loads code, which TMPDIR may not), else
   in TMPDIR; under a name that no object of the process bears (a copy that
   stayed after its dlclose keeps its name, and dlopen would return it); -1
   and errno if none. */
static int xrt__cpu_copy_name(const char *path, char *copy, size_t size)
{
    const char *tmp = getenv("TMPDIR"), *base = strrchr(path, '/');
    int entry = xrt__cache_name(base ? base + 1 : path) == XRT__CACHE_NAME_ENTRY, tries, fd;
    void *dl;
    for (tries = 0; tries < 8; tries++) {
        if (entry) {
            snprintf(copy, size, "%s.tmp.%ld.%u", path, (long)getpid(),
                     __atomic_add_fetch(&xrt__cache_seq, 1, __ATOMIC_RELAXED));
            fd = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0700);
        } else {
            snprintf(copy, size, "%s/xrt-module-XXXXXX.so", tmp && *tmp ? tmp : "/tmp");
            fd = mkostemps(copy, 3, O_CLOEXEC);
        }
        if (fd < 0) return -1;
        if (!(dl = dlopen(copy, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD))) return fd;
        dlclose(dl);
        unlink(copy);
        close(fd);
    }
    errno = EEXIST;
    return -1;
}

/* Opens a private copy of `path` for m (deleted once open). `path` loaded
   in this process already: a failure here is not the file's. */
static int xrt__cpu_dlopen_copy(xrt__cpu_module *m, const char *path, char *err, size_t n)
{
    char copy[PATH_MAX];
    void *dl = NULL;
    int from = open(path, O_RDONLY | O_CLOEXEC), to = -1, ok;
    ok = from >= 0 && (to = xrt__cpu_copy_name(path, copy, sizeof copy)) >= 0 && xrt__cpu_copy_fd(from, to);
    if (to >= 0 && close(to) != 0) ok = 0;
    if (!ok) snprintf(err, n, "a private copy of %s: %s", path, strerror(errno));
    if (from >= 0) close(from);
    if (ok) dl = xrt__cpu_dlopen_path(copy, err, n);
    if (to >= 0) unlink(copy);
    if (!dl) return 0;
    if (xrt__cpu_claim(m, dl)) return 1;
    dlclose(dl); /* a new file's object is no live module's: never here */
    snprintf(err, n, "the private copy of %s opened a live module's object", path);
    return 0;
}

/* The cache's open function: m->dl is the object, m's own. 1, or 0 where
   the file does not load, or -1 where it does but its private copy could
   not be made (the entry is sound: the cache keeps it). */
static int xrt__cpu_dlopen(void *ctx, const char *path, void **out, char *err, size_t n)
{
    xrt__cpu_module *m = (xrt__cpu_module *)ctx;
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    int own = 0;
    if (dl) dlclose(dl); /* open already */
    else if (!(dl = xrt__cpu_dlopen_path(path, err, n))) return 0;
    else if (!(own = xrt__cpu_claim(m, dl))) dlclose(dl); /* another thread opened it at the same time */
    if (!own && !xrt__cpu_dlopen_copy(m, path, err, n)) return -1;
    *out = m->dl;
    return 1;
}

/* The key of an image on this CPU: target, toolchain, options, input, the
   environment that changes what the compiler does, and the working
   directory where a path may be relative to it. The files the build
   includes are added by the cache (xrt__cache_get: their manifest). */
static xrt_status xrt__cpu_module_key(const xrt_backend *self, xrt__cc_build *b, const char *options, xrt__cache_key *key,
                                      char *log, size_t log_size)
{
    /* PATH: the assembler and linker the compiler runs, and a wrapper's
       compiler; LD_RUN_PATH: the linker writes it into the module;
       CCC_OVERRIDE_OPTIONS: clang edits its own command line with it;
       CLANG_NO_DEFAULT_CONFIG: clang (16 on) then reads no default
       configuration file */
    static const char *const env[] = {"CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "OBJC_INCLUDE_PATH",
                                      "LIBRARY_PATH", "GCC_EXEC_PREFIX", "COMPILER_PATH", "SOURCE_DATE_EPOCH",
                                      "LD_RUN_PATH", "CCC_OVERRIDE_OPTIONS", "CLANG_NO_DEFAULT_CONFIG", "PATH"};
    xrt_target t;
    char cwd[PATH_MAX];
    size_t i;
    xrt_status st = xrt__target_get(self, &t);
    if (st != XRT_SUCCESS) return st;
    xrt__cache_key_init(key, xrt__image_kind_name(b->image->kind));
    xrt__cache_key_add(key, &t.fingerprint, sizeof t.fingerprint);
    xrt__cache_key_add(key, b->image->data, b->image->size);
    if (b->image->kind != XRT_IMAGE_CPU_C_SOURCE) return XRT_SUCCESS;
    xrt__cache_key_str(key, options);
    for (i = 0; i < b->ncc; i++) xrt__cache_key_str(key, b->cc[i]); /* XRT_CC's own options too */
    for (i = 0; i < sizeof env / sizeof env[0]; i++) xrt__cache_key_str(key, getenv(env[i]));
    for (i = 1; i < b->ncc; i++) xrt__cc_expand(b, b->cc[i], 0, key);
    for (i = 0; i < b->nopt; i++) xrt__cc_expand(b, b->opt[i], 0, key);
    if (!getcwd(cwd, sizeof cwd))
        return xrt_native_error(XRT_ERROR_SYSTEM, "cpu: xrt_module_load", "getcwd", errno, "errno", strerror(errno));
    if (xrt__cc_relative(b)) xrt__cache_key_str(key, cwd);
    xrt__cc_include_dirs(b, cwd);
    if (b->words.oom || b->rsp.oom || b->incs.oom)
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "cpu: xrt_module_load", "no memory for the compiler's arguments");
    return xrt__cc_identity(b, key, log, log_size);
}

static xrt_status xrt__cpu_module_load(const xrt_backend *self, void **module, const xrt_module_image *images,
                                       size_t n, const char *options, char *log, size_t log_size)
{
    const char *cc = getenv("XRT_CC");
    xrt__cc_build *b;
    xrt__cpu_module *m;
    xrt__cache_key key;
    xrt_target t;
    size_t pick = 0;
    void *dl = NULL;
    xrt_status st = xrt__target_get(self, &t);
    xrt__cpu_unloaded_reap(0);
    if (st == XRT_SUCCESS)
        st = xrt__image_pick("cpu: xrt_module_load", &t, images, n,
                             1u << XRT_IMAGE_CPU_SHARED_OBJECT | 1u << XRT_IMAGE_CPU_C_SOURCE, NULL, &pick);
    if (st != XRT_SUCCESS) return st;
    if (!(b = (xrt__cc_build *)XRT_CALLOC(1, sizeof *b)))
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "cpu: xrt_module_load", "no memory");
    if (!(m = (xrt__cpu_module *)XRT_CALLOC(1, sizeof *m))) {
        XRT_FREE(b);
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "cpu: xrt_module_load", "no memory for a module");
    }
    b->image = &images[pick];
    b->cc = xrt__cc_split_args(cc && *cc ? cc : "cc", &b->ncc);
    b->opt = xrt__cc_split_args(options, &b->nopt);
    if (b->cc && !b->ncc) { /* XRT_CC of spaces only */
        XRT_FREE(b->cc);
        b->cc = xrt__cc_split_args("cc", &b->ncc);
    }
    if (!b->cc || !b->opt) st = xrt_error(XRT_ERROR_OUT_OF_MEMORY, "cpu: xrt_module_load", "no memory for the compiler's arguments");
    if (st == XRT_SUCCESS && b->image->kind == XRT_IMAGE_CPU_C_SOURCE) {
        char dir[PATH_MAX - 64], inc[PATH_MAX + 48];
        xrt__cc_note_cxx(b, m->cxx, sizeof m->cxx);
        /* the kernel header predates the build, as the cache asks of every file a build reads */
        if (xrt__cache_dir(dir, sizeof dir, 0)) xrt__cache_kernel_header_make(dir, inc, sizeof inc);
    }
    if (st == XRT_SUCCESS) st = xrt__cpu_module_key(self, b, options, &key, log, log_size);
    if (st == XRT_SUCCESS)
        st = xrt__cache_get("cpu: xrt_module_load", &key,
                            b->image->kind == XRT_IMAGE_CPU_C_SOURCE ? xrt__cc_build_c : xrt__cc_build_so, b,
                            xrt__cpu_dlopen, m, &dl, log, log_size);
    XRT_FREE(b->cc);
    XRT_FREE(b->opt);
    XRT_FREE(b->words.p);
    XRT_FREE(b->rsp.p);
    XRT_FREE(b->incs.p);
    XRT_FREE(b->cfg.p);
    XRT_FREE(b->ran.p);
    XRT_FREE(b);
    if (st != XRT_SUCCESS) {
        if (m->dl) { /* opened, then the cache failed: not so today, but m must not stay listed */
            dlclose(m->dl);
            xrt__cpu_unclaim(m);
        }
        XRT_FREE(m);
        return st;
    }
    m->refs = 1;
    *module = m;
    return XRT_SUCCESS;
}

/* >> cpu: modules unloaded with work queued. A queued launch holds its
   module, but a queued symbol copy names only the variable's bytes: the
   unload's reference goes once every stream busy at the unload has got
   past what it had queued then, seen at a later load, unload, device
   synchronize or the shutdown. The unload itself does not wait (the
   queued work may wait for the caller). */
/* A graph's copy node may name a module's variable, which only the module's
   unload would free: while any graph, capture or plan holds nodes (counted
   by their node arrays, xrt__cpu_nodes_own), unloaded modules are kept, as
   the GPU backends keep them (REFERENCE "Lifetimes"). */
static int xrt__cpu_node_arrays;
static void xrt__cpu_nodes_own(const void *was, const void *now, int by)
{
    if (!was && now) __atomic_add_fetch(&xrt__cpu_node_arrays, by, __ATOMIC_ACQ_REL);
}

typedef struct xrt__cpu_unloaded {
    xrt__cpu_module *m;
    xrt__cpu_pending *v;
    size_t n;
    struct xrt__cpu_unloaded *next;
} xrt__cpu_unloaded;
static xrt__cpu_unloaded *xrt__cpu_unloaded_list; /* under xrt__cpu_unloaded_lock (">> cpu: ipc", for fork) */

static int xrt__cpu_unloaded_done(const xrt__cpu_unloaded *u)
{
    size_t i;
    for (i = 0; i < u->n; i++)
        if (!xrt__cpu_reached(&u->v[i].s->head, u->v[i].pos)) return 0;
    return 1;
}

/* all: the shutdown's, every stream drained. */
static void xrt__cpu_unloaded_reap(int all)
{
    xrt__cpu_unloaded **at, *u, *done = NULL;
    size_t i;
    if (!__atomic_load_n(&xrt__cpu_unloaded_list, __ATOMIC_ACQUIRE)) return;
    xrt__cpu_lock(&xrt__cpu_unloaded_lock);
    for (at = &xrt__cpu_unloaded_list; (u = *at) != NULL;)
        if (all || (xrt__cpu_unloaded_done(u) && !__atomic_load_n(&xrt__cpu_node_arrays, __ATOMIC_ACQUIRE)))
            *at = u->next, u->next = done, done = u;
        else at = &u->next;
    xrt__cpu_unlock(&xrt__cpu_unloaded_lock);
    while ((u = done) != NULL) {
        done = u->next;
        for (i = 0; i < u->n; i++) xrt__cpu_stream_unref(u->v[i].s);
        xrt__cpu_module_unref(u->m);
        XRT_FREE(u->v);
        XRT_FREE(u);
    }
}

static xrt_status xrt__cpu_module_unload(const xrt_backend *self, void *module)
{
    xrt__cpu_unloaded *u = (xrt__cpu_unloaded *)XRT_MALLOC(sizeof *u);
    xrt__cpu_unloaded_reap(0);
    if (!u || xrt__cpu_pending_take(-1, &u->v, &u->n, "cpu: xrt_module_unload") != XRT_SUCCESS) {
        XRT_FREE(u); /* no memory to wait later: wait now */
        (void)xrt__cpu_sync_all(-1, "cpu: xrt_module_unload");
        xrt__cpu_module_unref((xrt__cpu_module *)module);
        return XRT_SUCCESS;
    }
    if (!u->n && !__atomic_load_n(&xrt__cpu_node_arrays, __ATOMIC_ACQUIRE)) {
        XRT_FREE(u);
        xrt__cpu_module_unref((xrt__cpu_module *)module);
        return XRT_SUCCESS;
    }
    u->m = (xrt__cpu_module *)module;
    xrt__cpu_lock(&xrt__cpu_unloaded_lock);
    u->next = xrt__cpu_unloaded_list;
    __atomic_store_n(&xrt__cpu_unloaded_list, u, __ATOMIC_RELEASE);
    xrt__cpu_unlock(&xrt__cpu_unloaded_lock);
    return XRT_SUCCESS;
}

/* The kernel `name` of the module: dlsym on its handle also searches its
   dependencies (libc's free), and finds its variables; a launch would call
   either as a kernel. So the symbol must be a function of the module's own
   object. */
static xrt_status xrt__cpu_kernel_symbol(xrt__cpu_module *m, const char *name, void **out)
{
    const char *who = "cpu: xrt_module_get_function";
    struct link_map *own = NULL, *in = NULL;
    const ElfW(Sym) *sym = NULL;
    Dl_info info;
    void *addr = dlsym(m->dl, name);
    if (!addr && m->cxx[0])
        return xrt_error(XRT_ERROR_NOT_FOUND, who,
                         "no kernel named '%s' in the module (built by %s, a C++ compiler, which mangles names: "
                         "declare kernels extern \"C\")", name, m->cxx);
    if (!addr) return xrt_error(XRT_ERROR_NOT_FOUND, who, "no kernel named '%s' in the module", name);
    if (dlinfo(m->dl, RTLD_DI_LINKMAP, &own) != 0 || !dladdr1(addr, &info, (void **)&in, RTLD_DL_LINKMAP) || in != own)
        return xrt_error(XRT_ERROR_NOT_FOUND, who, "'%s' is not defined in the module but in %s", name,
                         in && in->l_name && in->l_name[0] ? in->l_name : "another object");
    if (!dladdr1(addr, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym ||
        (ELF64_ST_TYPE(sym->st_info) != STT_FUNC && ELF64_ST_TYPE(sym->st_info) != STT_GNU_IFUNC)) /* ELF32's the same */
        return xrt_error(XRT_ERROR_NOT_FOUND, who, "'%s' in the module is not a function", name);
    *out = addr;
    return XRT_SUCCESS;
}

/* The layout of kernel `name`'s parameters that its source declares: the
   array <name>_xrt_params of the module's own object, ended by an entry of
   size 0 (at most XRT_MAX_KERNEL_ARGS entries are read). None: f->params
   stays NULL. */
static void xrt__cpu_kernel_params(xrt__cpu_module *m, const char *name, xrt__cpu_function *f)
{
    char sym[256];
    struct link_map *own = NULL, *in = NULL;
    Dl_info info;
    const xrt_kernel_param *p;
    size_t n = 0;
    if (snprintf(sym, sizeof sym, "%s_xrt_params", name) >= (int)sizeof sym) return;
    p = (const xrt_kernel_param *)dlsym(m->dl, sym);
    if (!p || dlinfo(m->dl, RTLD_DI_LINKMAP, &own) != 0 || !dladdr1(p, &info, (void **)&in, RTLD_DL_LINKMAP) ||
        in != own)
        return;
    for (; n < XRT_MAX_KERNEL_ARGS && p[n].size; n++)
        if (p[n].offset + p[n].size > f->params_end) f->params_end = p[n].offset + p[n].size;
    f->params = p;
    f->nparams = n;
}

static xrt_status xrt__cpu_function_get_param_info(const xrt_backend *self, void *function, size_t index,
                                                   size_t *offset, size_t *size)
{
    const xrt__cpu_function *f = (const xrt__cpu_function *)function;
    (void)self;
    if (!f->params)
        return xrt_error(XRT_ERROR_UNSUPPORTED, "cpu: xrt_function_get_param_info",
                         "the kernel's source declares no layout of its parameters (an array <kernel>_xrt_params "
                         "of xrt_kernel_param, ended by {0, 0})");
    if (index >= f->nparams)
        return xrt_error(XRT_ERROR_INVALID_VALUE, "cpu: xrt_function_get_param_info",
                         "no parameter %zu: the kernel has %zu", index, f->nparams);
    *offset = f->params[index].offset;
    *size = f->params[index].size;
    return XRT_SUCCESS;
}

/* Called with the core's module lock held: the list needs no lock of its own. */
static xrt_status xrt__cpu_module_get_function(const xrt_backend *self, void **function, void *module, const char *name)
{
    xrt__cpu_module *m = (xrt__cpu_module *)module;
    xrt__cpu_function *f;
    void *sym = NULL;
    xrt_status st = xrt__cpu_kernel_symbol(m, name, &sym);
    if (st != XRT_SUCCESS) return st;
    if (!(f = (xrt__cpu_function *)XRT_CALLOC(1, sizeof *f)))
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "cpu: xrt_module_get_function", "no memory for a function");
    memcpy(&f->kernel, &sym, sizeof sym);
    f->max_shared = XRT_DEFAULT_MAX_DYNAMIC_SHARED_BYTES;
    xrt__cpu_kernel_params(m, name, f);
    f->module = m;
    f->next = m->fns;
    m->fns = f;
    *function = f;
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_function_get_attributes(const xrt_backend *self, xrt_function_attributes *attr, void *function)
{
    attr->max_threads_per_block = (int)XRT__CPU_MAX_BLOCK;
    attr->max_dynamic_shared_bytes = __atomic_load_n(&((xrt__cpu_function *)function)->max_shared, __ATOMIC_RELAXED);
    return XRT_SUCCESS;
}

/* As a GPU: 48 KiB until raised, up to the device's opt-in limit. */
static xrt_status xrt__cpu_function_set_attribute(const xrt_backend *self, void *function, int attr, int value)
{
    (void)self;
    (void)attr; /* the dispatch layer lets only the dynamic shared memory through */
    if ((unsigned)value > XRT__CPU_MAX_SHARED)
        return xrt_error(XRT_ERROR_INVALID_VALUE, "cpu: xrt_function_set_attribute",
                         "%d bytes of dynamic shared memory exceed the device's %u", value, XRT__CPU_MAX_SHARED);
    __atomic_store_n(&((xrt__cpu_function *)function)->max_shared, (size_t)value, __ATOMIC_RELAXED);
    return XRT_SUCCESS;
}

/* A function's L1/shared-memory preference: nothing to split on a CPU core
   (xrt__cpu_device_set_cache_config); accepted, as CUDA accepts it on a
   device whose split is fixed. */
static xrt_status xrt__cpu_function_set_cache_config(const xrt_backend *self, void *function, int config)
{
    (void)self, (void)function, (void)config;
    return XRT_SUCCESS;
}

/* A CPU core (a "multiprocessor") runs one block at a time: 1 where the
   launch could run, else 0 (as CUDA answers for a block too large). */
static int xrt__cpu_blocks_per_core(const xrt__cpu_function *f, int block_size, size_t shared)
{
    return (unsigned)block_size <= XRT__CPU_MAX_BLOCK && shared <= __atomic_load_n(&f->max_shared, __ATOMIC_RELAXED);
}

static xrt_status xrt__cpu_occupancy_max_active_blocks_per_multiprocessor(const xrt_backend *self, int *blocks,
                                                                          void *function, int block_size,
                                                                          size_t dynamic_shared)
{
    (void)self;
    *blocks = xrt__cpu_blocks_per_core((xrt__cpu_function *)function, block_size, dynamic_shared);
    return XRT_SUCCESS;
}

/* The largest block the function allows (a block's threads are the
   kernel's own loop, so larger is cheaper), and a block per core. */
static xrt_status xrt__cpu_occupancy_max_potential_block_size(const xrt_backend *self, int *min_grid, int *block,
                                                              void *function, size_t dynamic_shared, int block_limit)
{
    xrt_device_prop prop;
    int b = block_limit > 0 && (unsigned)block_limit < XRT__CPU_MAX_BLOCK ? block_limit : (int)XRT__CPU_MAX_BLOCK;
    xrt_status st = xrt__cpu_get_device_properties(self, &prop, xrt__cpu_current());
    if (st != XRT_SUCCESS) return st;
    if (!xrt__cpu_blocks_per_core((xrt__cpu_function *)function, b, dynamic_shared)) b = 0;
    *block = b;
    *min_grid = b ? prop.multiprocessor_count : 0;
    return XRT_SUCCESS;
}

/* The variable `name` of the module's own object (not of a dependency, not
   a function) and its size from the ELF symbol table. */
static xrt_status xrt__cpu_module_get_global(const xrt_backend *self, void **ptr, size_t *size, void *module,
                                             const char *name)
{
    const char *who = "cpu: xrt_module_get_global";
    xrt__cpu_module *m = (xrt__cpu_module *)module;
    struct link_map *own = NULL, *in = NULL;
    const ElfW(Sym) *sym = NULL;
    Dl_info info;
    void *addr = dlsym(m->dl, name);
    int type;
    (void)self;
    if (!addr) return xrt_error(XRT_ERROR_NOT_FOUND, who, "no variable named '%s' in the module", name);
    if (dlinfo(m->dl, RTLD_DI_LINKMAP, &own) != 0 || !dladdr1(addr, &info, (void **)&in, RTLD_DL_LINKMAP) || in != own)
        return xrt_error(XRT_ERROR_NOT_FOUND, who, "'%s' is not defined in the module but in %s", name,
                         in && in->l_name && in->l_name[0] ? in->l_name : "another object");
    if (!dladdr1(addr, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym)
        return xrt_error(XRT_ERROR_NOT_FOUND, who, "'%s' has no entry in the module's symbol table", name);
    type = ELF64_ST_TYPE(sym->st_info); /* ELF32's the same */
    if (type != STT_OBJECT && type != STT_COMMON)
        return xrt_error(XRT_ERROR_NOT_FOUND, who, "'%s' in the module is not a variable", name);
    *ptr = addr;
    *size = (size_t)sym->st_size;
    return XRT_SUCCESS;
}

/* One launch in flight: the packed arguments, then nparts shared areas. */
typedef struct xrt__cpu_launch {
    xrt__cpu_stream *spare_of; /* the stream to give the record back to (a spare); NULL: freed */
    xrt_cpu_kernel_fn kernel;
    xrt__cpu_module *module;
    void *function;   /* the xrt__cpu_function launched, for a graph node's params */
    size_t args_size; /* bytes of args as given */
    xrt_dim3 grid, block;
    size_t shared, stride; /* bytes of shared memory; between two parts' areas */
    uint64_t blocks, per_part;
    size_t parts; /* that per_part makes (none of them empty) */
    unsigned char *args, *shared_base; /* in the same allocation, after the record */
    struct xrt__cpu_kattrs *attrs; /* its launch attributes (">> cpu: launch attributes"); NULL: none */
    int level;                     /* the priority level it runs at; -1: its stream's */
} xrt__cpu_launch;
#define XRT__CPU_LAUNCH_HEAD ((sizeof(xrt__cpu_launch) + 63) & ~(size_t)63)
/* Parts per thread of the pool: a thread that comes late (a helper woken
   onto a core another process holds waits for that process's time slice,
   milliseconds) takes fewer parts and the others do the rest, where one part
   per thread would make the whole launch wait for it. */
#define XRT__CPU_LAUNCH_PARTS 4u

static void xrt__cpu_kernel_part(void *ctx, size_t part, size_t nparts)
{
    const xrt__cpu_launch *l = (const xrt__cpu_launch *)ctx;
    uint64_t i = part * l->per_part, end = i + l->per_part, plane = (uint64_t)l->grid.x * l->grid.y;
    xrt_kernel_ctx k;
    (void)nparts;
    if (end > l->blocks) end = l->blocks;
    k.grid_dim = l->grid;
    k.block_dim = l->block;
    k.shared = l->shared ? l->shared_base + part * l->stride : NULL;
    k.shared_bytes = l->shared;
    if (i >= end) return;
    k.block_idx.x = (unsigned)(i % l->grid.x); /* then counted, not divided, per block */
    k.block_idx.y = (unsigned)(i / l->grid.x % l->grid.y);
    k.block_idx.z = (unsigned)(i / plane);
    for (;;) {
        l->kernel(&k, (void *)l->args);
        if (++i == end) return;
        if (++k.block_idx.x < l->grid.x) continue;
        k.block_idx.x = 0;
        if (++k.block_idx.y < l->grid.y) continue;
        k.block_idx.y = 0;
        k.block_idx.z++;
    }
}

static void xrt__cpu_launch_free(xrt__cpu_launch *l)
{
    XRT_FREE(l->attrs);
    if (l->spare_of) xrt__cpu_spare_give(l->spare_of, l);
    else XRT_FREE(l);
}

static int xrt__cpu_launch_level(const xrt__cpu_op *op)
{
    return ((const xrt__cpu_launch *)op->u.host.user)->level;
}

/* A launch op whose blocks go over the pool (xrt__cpu_help_launch). */
static int xrt__cpu_pooled(const xrt__cpu_op *op)
{
    return ((const xrt__cpu_launch *)op->u.host.user)->parts > 1;
}

static void xrt__cpu_run_kernel(xrt__cpu_op *op)
{
    xrt__cpu_launch *l = (xrt__cpu_launch *)op->u.host.user;
    xrt__cpu_pool_run(xrt__cpu_kernel_part, l, l->parts);
    xrt__cpu_module_unref(l->module);
    xrt__cpu_launch_free(l);
}

/* Also the arguments against the layout the kernel's source declares, as
   CUDA's are against the driver's (xrt__args_fit; the copy keeps them all). */
static xrt_status xrt__cpu_launch_check(const xrt__cpu_function *f, xrt_dim3 g, xrt_dim3 b, size_t shared,
                                        size_t args_size)
{
    size_t limit = __atomic_load_n(&f->max_shared, __ATOMIC_RELAXED);
    const char *who = "cpu: xrt_launch_kernel";
    if ((uint64_t)b.x * b.y * b.z > XRT__CPU_MAX_BLOCK)
        return xrt_error(XRT_ERROR_INVALID_VALUE, who, "block (%u, %u, %u) has more than the device's %u threads", b.x, b.y,
                         b.z, XRT__CPU_MAX_BLOCK);
    if (g.x > XRT__CPU_MAX_GRID_X || g.y > XRT__CPU_MAX_GRID_YZ || g.z > XRT__CPU_MAX_GRID_YZ)
        return xrt_error(XRT_ERROR_INVALID_VALUE, who, "grid (%u, %u, %u) exceeds the device's (2147483647, 65535, 65535)",
                         g.x, g.y, g.z);
    if (XRT__UNLIKELY(shared > limit))
        return xrt_error(XRT_ERROR_INVALID_VALUE, who,
                         "%zu bytes of shared memory exceed the function's %zu (the device's limit is %u; "
                         "xrt_function_set_attribute raises the function's)",
                         shared, limit, XRT__CPU_MAX_SHARED);
    if (XRT__UNLIKELY(f->params && args_size != f->params_end)) return xrt__args_fit("cpu", f->params_end, &args_size);
    return XRT_SUCCESS;
}

/* The highest clock of the device's first core, in kHz as cudaDevAttrClockRate:
   cpufreq's cpuinfo_max_freq (kHz), else /proc/cpuinfo's "cpu MHz"; 0 unknown. */
static int xrt__cpu_clock_khz(int device)
{
    char path[96], line[256];
    int cpu = 0;
    long khz = 0;
    double mhz = 0;
    FILE *f;
    if (xrt__cpu.numa)
        while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &xrt__cpu.cpus[device])) cpu++;
    snprintf(path, sizeof path, "%s/devices/system/cpu/cpu%d/cpufreq/cpuinfo_max_freq", xrt__sysfs_root, cpu);
    if ((f = fopen(path, "r")) != NULL) {
        if (fscanf(f, "%ld", &khz) != 1) khz = 0;
        fclose(f);
    }
    if (khz <= 0 && (f = fopen("/proc/cpuinfo", "r")) != NULL) {
        while (mhz <= 0 && fgets(line, sizeof line, f))
            if (strncmp(line, "cpu MHz", 7) == 0 && strchr(line, ':')) mhz = atof(strchr(line, ':') + 1);
        fclose(f);
        khz = (long)(mhz * 1000.0);
    }
    return khz > 0 && khz < 0x7fffffffL ? (int)khz : 0;
}

/* cudaDeviceGetAttribute's answers for a device of cores and host memory;
   REFERENCE.md ("Device attributes") says why each is what it is. */
static xrt_status xrt__cpu_device_get_attribute(const xrt_backend *self, int *value, int attr, int device)
{
    char features[sizeof ((xrt_target *)0)->features];
    long l2;
    xrt_status st = xrt__cpu_check_device(device, "cpu: xrt_device_get_attribute");
    (void)self;
    if (st != XRT_SUCCESS) return st;
    switch (attr) {
    case XRT_DEVATTR_MAX_THREADS_PER_BLOCK: case XRT_DEVATTR_MAX_BLOCK_DIM_X: case XRT_DEVATTR_MAX_BLOCK_DIM_Y:
    case XRT_DEVATTR_MAX_BLOCK_DIM_Z: /* only the product is limited */
    case XRT_DEVATTR_MAX_THREADS_PER_MULTIPROCESSOR: /* a core runs one block at a time */
        *value = (int)XRT__CPU_MAX_BLOCK; break;
    case XRT_DEVATTR_MAX_GRID_DIM_X: *value = (int)XRT__CPU_MAX_GRID_X; break;
    case XRT_DEVATTR_MAX_GRID_DIM_Y: case XRT_DEVATTR_MAX_GRID_DIM_Z: *value = (int)XRT__CPU_MAX_GRID_YZ; break;
    case XRT_DEVATTR_MAX_SHARED_MEMORY_PER_BLOCK: case XRT_DEVATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    case XRT_DEVATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: *value = (int)XRT__CPU_MAX_SHARED; break;
    case XRT_DEVATTR_WARP_SIZE: *value = xrt__cpu_isa(features, sizeof features); break;
    case XRT_DEVATTR_MAX_PITCH: *value = 0x7fffffff; break;
    case XRT_DEVATTR_CLOCK_RATE: *value = xrt__cpu_clock_khz(device); break;
    case XRT_DEVATTR_MULTIPROCESSOR_COUNT: *value = xrt__cpu_device_cores(device); break;
    case XRT_DEVATTR_L2_CACHE_SIZE:
        l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
        *value = l2 > 0 && l2 <= 0x7fffffffL ? (int)l2 : 0;
        break;
    case XRT_DEVATTR_NUMA_ID: *value = xrt__cpu.numa ? xrt__cpu.node[device] : -1; break;
    /* host memory: a NIC writes it directly, coherently for every device (xrt__cpu_device_flush_gpu_direct_rdma_writes) */
    case XRT_DEVATTR_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS: *value = XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST; break;
    case XRT_DEVATTR_GPU_DIRECT_RDMA_WRITES_ORDERING: *value = XRT_GPU_DIRECT_RDMA_WRITES_ORDERING_ALL_DEVICES; break;
    /* one address space of host memory that every core reaches */
    case XRT_DEVATTR_INTEGRATED: case XRT_DEVATTR_CAN_MAP_HOST_MEMORY: case XRT_DEVATTR_UNIFIED_ADDRESSING:
    case XRT_DEVATTR_MANAGED_MEMORY: case XRT_DEVATTR_CONCURRENT_MANAGED_ACCESS:
    case XRT_DEVATTR_PAGEABLE_MEMORY_ACCESS: case XRT_DEVATTR_HOST_REGISTER_SUPPORTED:
    /* streams run side by side, each on its worker; stream-ordered allocation; priorities 0 to -5 */
    case XRT_DEVATTR_CONCURRENT_KERNELS: case XRT_DEVATTR_ASYNC_ENGINE_COUNT: case XRT_DEVATTR_MEMORY_POOLS_SUPPORTED:
    case XRT_DEVATTR_STREAM_PRIORITIES_SUPPORTED: case XRT_DEVATTR_GPU_OVERLAP:
    /* the host's and the kernels' atomics are the same instructions on the same memory */
    case XRT_DEVATTR_HOST_NATIVE_ATOMIC_SUPPORTED:
    case XRT_DEVATTR_GPU_DIRECT_RDMA_SUPPORTED:
        *value = 1; break;
    default: /* no compute capability, register file, PCI address, memory clock or bus width to tell; no
                cooperative launch; no kernel watchdog; compute mode DEFAULT: every thread and process may use it */
        *value = 0; break;
    }
    return XRT_SUCCESS;
}

/* A launch's record, its arguments copied; from s's spares where it fits
   (s NULL: a graph node's own); NULL without memory. The module is the
   caller's to hold. */
static inline __attribute__((always_inline)) xrt__cpu_launch *
xrt__cpu_launch_make(xrt__cpu_stream *s, xrt__cpu_function *f, xrt_dim3 grid, xrt_dim3 block, size_t shared,
                     const void *args, size_t args_size)
{
    xrt__cpu_launch *l;
    uint64_t blocks = (uint64_t)grid.x * grid.y * grid.z;
    size_t width, nparts, bytes, head = (args_size + 63) & ~(size_t)63, stride = (shared + 63) & ~(size_t)63;
    width = blocks > 1 ? xrt__cpu_pool_width() : 1;
    nparts = blocks < XRT__CPU_LAUNCH_PARTS * width ? (size_t)blocks : XRT__CPU_LAUNCH_PARTS * width;
    bytes = XRT__CPU_LAUNCH_HEAD + head + nparts * stride;
    l = (xrt__cpu_launch *)(s && bytes <= XRT__CPU_SPARE_BYTES ? xrt__cpu_spare_take(s) : XRT_ALIGNED_ALLOC(64, bytes));
    if (!l) return NULL;
    l->spare_of = s && bytes <= XRT__CPU_SPARE_BYTES ? s : NULL;
    l->kernel = f->kernel;
    l->module = f->module;
    l->function = f;
    l->args_size = args_size;
    l->grid = grid;
    l->block = block;
    l->shared = shared;
    l->stride = stride;
    l->blocks = blocks;
    l->per_part = (blocks + nparts - 1) / nparts;
    l->parts = (size_t)((blocks + l->per_part - 1) / l->per_part);
    l->args = (unsigned char *)l + XRT__CPU_LAUNCH_HEAD;
    l->shared_base = l->args + head;
    l->attrs = NULL;
    l->level = -1;
    if (args_size) memcpy(l->args, args, args_size);
    return l;
}

/* >> cpu: launch attributes (xrt_launch_kernel_ex, a kernel node's). A
   launch record holds the table of those given (its node's, once captured
   or added): a priority is the level the launch runs at, as a stream's
   (">> cpu: streams"); a cluster must divide the grid, and has no meaning
   to a CPU kernel, which has no cluster API; a cooperative launch is
   refused, as a CPU kernel has no grid-wide barrier; the rest (a window, a
   memory domain and map, a cluster's scheduling preference, programmatic
   stream serialisation, which a stream's full order always satisfies) is
   kept and answered. An event attribute's event is recorded after the
   kernel, on its stream: later than a GPU may record it (once every block
   began), which CUDA allows ("B may wait until A is complete"). */
#define XRT__CPU_KATTRS 11 /* ids 0 .. XRT_LAUNCH_ATTR_MEM_SYNC_DOMAIN */
typedef struct xrt__cpu_kattrs {
    unsigned set; /* a bit per id given */
    xrt_launch_attr_value v[XRT__CPU_KATTRS];
} xrt__cpu_kattrs;

/* Attribute attr (checked by the dispatch layer) for a kernel of grid g; an
   event attribute's event is the backend's object. */
static xrt_status xrt__cpu_kattr_fits(int attr, const xrt_launch_attr_value *v, xrt_dim3 g, const char *who)
{
    const unsigned *c = &v->cluster_dim.x;
    const xrt__cpu_event *e = attr == XRT_LAUNCH_ATTR_PROGRAMMATIC_EVENT || attr == XRT_LAUNCH_ATTR_LAUNCH_COMPLETION_EVENT
                                  ? (const xrt__cpu_event *)(const void *)v->launch_completion_event.event
                                  : NULL;
    if (e && ((e->flags & XRT_EVENT_INTERPROCESS) || !(e->flags & XRT_EVENT_DISABLE_TIMING)))
        return xrt_error(XRT_ERROR_INVALID_VALUE, who, "the event of attribute %d must be made with "
                         "XRT_EVENT_DISABLE_TIMING and without XRT_EVENT_INTERPROCESS (its flags: 0x%x)", attr,
                         e->flags);
    if (attr == XRT_LAUNCH_ATTR_COOPERATIVE && v->cooperative)
        return xrt_error(XRT_ERROR_UNSUPPORTED, who, "a cooperative launch: a CPU kernel has no grid-wide barrier "
                         "(XRT_DEVATTR_COOPERATIVE_LAUNCH is 0)");
    if (attr == XRT_LAUNCH_ATTR_CLUSTER_DIMENSION && c[0] && (g.x % c[0] || g.y % c[1] || g.z % c[2]))
        return xrt_error(XRT_ERROR_INVALID_VALUE, who, "grid (%u, %u, %u) is no whole number of clusters (%u, %u, %u)",
                         g.x, g.y, g.z, c[0], c[1], c[2]);
    return XRT_SUCCESS;
}

/* A launch's attributes checked: the level of its priority into *level (-1:
   none given) and, where keep (a launch that a capture takes: its node
   answers for them), their table into *a (NULL: none kept). A capture that
   begins on the stream while the launch is made by another thread may take
   it without its table: that program races anyway. */
static xrt_status xrt__cpu_kattrs_of(xrt__cpu_kattrs **a, int *level, const xrt_launch_attribute *attrs, unsigned n,
                                     xrt_dim3 g, const xrt__cpu_stream *s, int keep, const char *who)
{
    xrt_status st = XRT_SUCCESS;
    unsigned i;
    *a = NULL;
    *level = -1;
    for (i = 0; i < n && st == XRT_SUCCESS; i++) {
        int id = (int)attrs[i].id;
        const xrt__cpu_event *e = (const xrt__cpu_event *)(const void *)xrt__attr_event(&attrs[i]);
        if (id == XRT_LAUNCH_ATTR_IGNORE || (st = xrt__cpu_kattr_fits(id, &attrs[i].val, g, who)) != XRT_SUCCESS)
            continue;
        if (e && e->device != s->device) /* as its record would, before the launch */
            st = xrt_error(XRT_ERROR_INVALID_HANDLE, who, "the event of attribute %d belongs to device %d, the stream to "
                           "device %d", id, e->device, s->device);
        if (e) /* an event: recorded by the launch, not kept */
            continue;
        if (id == XRT_LAUNCH_ATTR_PRIORITY) *level = xrt__cpu_prio_level(attrs[i].val.priority);
        if (!keep) continue;
        if (!*a && !(*a = (xrt__cpu_kattrs *)XRT_CALLOC(1, sizeof **a)))
            st = xrt_error(XRT_ERROR_OUT_OF_MEMORY, who, "no memory for the launch's attributes");
        else
            (*a)->v[id] = attrs[i].val, (*a)->set |= 1u << id;
    }
    if (st != XRT_SUCCESS) {
        XRT_FREE(*a);
        *a = NULL;
    }
    return st;
}

/* l takes table a (NULL: none) and runs at level (-1: its stream's). */
static void xrt__cpu_launch_set(xrt__cpu_launch *l, xrt__cpu_kattrs *a, int level)
{
    XRT_FREE(l->attrs);
    l->attrs = a;
    l->level = level;
    if (level > 0) __atomic_store_n(&xrt__cpu_prio_used, 1, __ATOMIC_RELEASE);
}

/* l takes table a; its priority, if given, is the level l runs at. */
static void xrt__cpu_launch_attrs(xrt__cpu_launch *l, xrt__cpu_kattrs *a)
{
    int given = a && (a->set & (1u << XRT_LAUNCH_ATTR_PRIORITY));
    xrt__cpu_launch_set(l, a, given ? xrt__cpu_prio_level(a->v[XRT_LAUNCH_ATTR_PRIORITY].priority) : -1);
}

/* A copy of table a (NULL: none) into *to; 0 without memory. */
static int xrt__cpu_kattrs_dup(xrt__cpu_kattrs **to, const xrt__cpu_kattrs *a)
{
    *to = NULL;
    if (!a) return 1;
    if (!(*to = (xrt__cpu_kattrs *)XRT_MALLOC(sizeof *a))) return 0;
    **to = *a;
    return 1;
}

/* A launch with attributes a (NULL: none; the launch's, freed with it or
   here on failure) at level (-1: its stream's), as xrt_launch_kernel's. */
static inline __attribute__((always_inline)) xrt_status
xrt__cpu_launch_on(void *function, xrt_dim3 grid, xrt_dim3 block, size_t shared, void *stream, const void *args,
                   size_t args_size, struct xrt__cpu_kattrs *a, int level, const char *who)
{
    xrt__cpu_function *f = (xrt__cpu_function *)function;
    xrt__cpu_stream *s = xrt__cpu_stream_of(stream);
    xrt__cpu_launch *l = NULL;
    xrt__cpu_op op;
    xrt_status st = xrt__cpu_launch_check(f, grid, block, shared, args_size);
    if (XRT__UNLIKELY(st == XRT_SUCCESS && s->device != xrt__cpu_current())) /* as CUDA: copies may, launches may not */
        st = xrt_error(XRT_ERROR_INVALID_HANDLE, who,
                       "the stream belongs to device %d; a kernel launches on a stream of the current device (%d)",
                       s->device, xrt__cpu_current());
    if (XRT__LIKELY(st == XRT_SUCCESS) && !(l = xrt__cpu_launch_make(s, f, grid, block, shared, args, args_size)))
        st = xrt_error(XRT_ERROR_OUT_OF_MEMORY, who, "no memory for the launch");
    if (XRT__UNLIKELY(!l)) {
        if (a) XRT_FREE(a);
        return st;
    }
    if (XRT__UNLIKELY(a || level >= 0)) xrt__cpu_launch_set(l, a, level);
    memset(&op, 0, sizeof op);
    op.run = xrt__cpu_run_kernel;
    op.u.host.user = l;
    __atomic_add_fetch(&f->module->refs, 1, __ATOMIC_ACQ_REL);
    st = xrt__cpu_enqueue(stream, &op, who);
    if (st != XRT_SUCCESS) {
        xrt__cpu_module_unref(f->module);
        xrt__cpu_launch_free(l);
    }
    return st;
}

static xrt_status xrt__cpu_launch_kernel(const xrt_backend *self, void *function, xrt_dim3 grid, xrt_dim3 block,
                                         size_t shared, void *stream, const void *args, size_t args_size)
{
    (void)self;
    return xrt__cpu_launch_on(function, grid, block, shared, stream, args, args_size, NULL, -1, "cpu: xrt_launch_kernel");
}

static xrt_status xrt__cpu_launch_kernel_ex(const xrt_backend *self, void *function, xrt_dim3 grid, xrt_dim3 block,
                                            size_t shared, void *stream, const void *args, size_t args_size,
                                            const xrt_launch_attribute *attrs, unsigned num_attrs)
{
    const char *who = "cpu: xrt_launch_kernel_ex";
    struct xrt__cpu_kattrs *a;
    int level;
    xrt_status st = xrt__cpu_kattrs_of(&a, &level, attrs, num_attrs, grid, xrt__cpu_stream_of(stream),
                                       xrt__cpu_capturing(stream), who);
    unsigned i;
    if (st == XRT_SUCCESS) st = xrt__cpu_launch_on(function, grid, block, shared, stream, args, args_size, a, level, who);
    for (i = 0; st == XRT_SUCCESS && i < num_attrs; i++) /* once the kernel ran: later than a GPU may, never earlier */
        if (xrt__attr_event(&attrs[i])) st = xrt__cpu_event_record(self, xrt__attr_event(&attrs[i]), stream);
    return st;
}

/* >> cpu: graphs. Capture records what a stream is given instead of
   running it: each copy, set, launch and host function becomes a node that
   depends on the stream's frontier (the nodes its next op must follow),
   which it then replaces. An event recorded in the capture keeps a copy of
   the frontier; a stream that waits for it joins the capture (a fork) or
   adds it to its own frontier (a join). All capture state is guarded by
   one lock: captures are rare, and only a capturing stream's calls take it
   (the hot paths read one pointer of the stream's producer line). An exec
   runs as ONE stream op: its plan (nodes, successor lists, pending counts)
   is made at instantiate, so a launch allocates nothing; a graph with
   independent branches and no host function runs them over the pool, each
   part taking ready nodes. */
enum { XRT__CPU_NODE_KERNEL, XRT__CPU_NODE_COPY, XRT__CPU_NODE_SET, XRT__CPU_NODE_HOST, XRT__CPU_NODE_ALLOC,
       XRT__CPU_NODE_FREE, XRT__CPU_NODE_CHILD, XRT__CPU_NODE_EMPTY, XRT__CPU_NODE_RECORD, XRT__CPU_NODE_WAIT,
       XRT__CPU_NODE_DEAD };
static const char *const xrt__cpu_node_names[] = {"a kernel launch",   "a copy",          "a memset",
                                                  "a host function",   "an allocation",   "a free",
                                                  "a graph launch",    "an empty node",   "an event record",
                                                  "an event wait",     "a destroyed node"};
/* A node as the dispatch layer sees it: its index + 1 (">> cpu: graphs built node by node"). */
#define XRT__CPU_NODE_OBJ(i) ((void *)(uintptr_t)((i) + 1))
#define XRT__CPU_NODE_AT(obj) ((uint32_t)((uintptr_t)(obj) - 1))
/* The public type of each kind (xrt_graph_node_type). */
static const unsigned char xrt__cpu_node_types[] = {
    XRT_GRAPH_NODE_KERNEL, XRT_GRAPH_NODE_MEMCPY,   XRT_GRAPH_NODE_MEMSET, XRT_GRAPH_NODE_HOST, XRT_GRAPH_NODE_MEM_ALLOC,
    XRT_GRAPH_NODE_MEM_FREE, XRT_GRAPH_NODE_GRAPH, XRT_GRAPH_NODE_EMPTY, XRT_GRAPH_NODE_EVENT_RECORD,
    XRT_GRAPH_NODE_WAIT_EVENT, XRT_GRAPH_NODE_EMPTY};

/* A graph's memory (CUDA's allocation nodes): what xrt_malloc_async gave a
   capture keeps its address for the graph's life, and each launch uses it
   from its allocation node to its free node, which do nothing when run.
   Held by the capture's graph and every plan made from it; the last holder
   releases it. One exec at a time, as in CUDA: two would share the memory.
   An allocation that the capture did not free is left to the caller, as in
   CUDA: each launch allocates it (live), the caller frees it (no longer
   live; the memory stays the graph's) before the next launch, which is
   refused otherwise; memory live when its graph goes is the caller's. Such
   a graph's memory is on the list of xrt__cpu_gleft, for the frees. A
   capture that makes no graph takes its memory with it, as in CUDA. */
typedef struct xrt__cpu_galloc { void *ptr; int freed, live, was; } xrt__cpu_galloc; /* was: live before a launch */
typedef struct xrt__cpu_gmem {
    int refs, execs;
    uint32_t n, cap;
    xrt__cpu_galloc *a;
    struct xrt__cpu_gmem *left_next; /* on xrt__cpu_gleft: it leaves allocations to the caller */
    int left;
} xrt__cpu_gmem;

static pthread_mutex_t xrt__cpu_gleft_lock = PTHREAD_MUTEX_INITIALIZER; /* the list, and live of its allocations */
static xrt__cpu_gmem *xrt__cpu_gleft; /* xrt__cpu_ngleft of them */

typedef struct xrt__cpu_node {
    int kind;
    uint32_t ndeps, deps; /* its dependencies: the graph's dep[deps .. deps + ndeps) */
    xrt__cpu_op op;       /* a kernel's op.u.host.user is its launch record, a child's its graph (in a plan's
                             graph: its plan), owned by the node */
    xrt_memcpy_kind copy_kind; /* a copy's, as given */
    xrt_memset_node_params set; /* a memset's, as given: op does those of bytes in one row */
    struct {
        size_t dpitch, spitch, width, height, depth, dslice, sslice;
    } rect; /* a 2-D or 3-D copy's (xrt__cpu_run_copy_rows), height 0: 1-D; a 3-D memset's depth and dslice */
    int off; /* an exec's node switched off (xrt_graph_node_set_enabled): run as an empty node */
    int loose; /* in a capture's graph: added by hand, or taken out of a stream's set of dependencies; its
                  end does not ask that it be joined (cudaStreamUpdateCaptureDependencies) */
} xrt__cpu_node;

/* Nodes stay where they are added: a node is index + 1 to the dispatch
   layer, and a destroyed one stays, DEAD. In a captured graph every node
   follows earlier ones only; a built graph's edges may go either way, and a
   node's dependencies may move to the end of dep (what they left is not
   reused): a plan's graph is made in topological order, compact. */
typedef struct xrt__cpu_graph {
    xrt__cpu_node *node;
    uint32_t n, cap;
    uint32_t *dep;
    uint32_t ndep, depcap;
    xrt__cpu_gmem *mem; /* NULL: no memory nodes (allocation or free) */
    int planned;        /* a plan's graph: children are plans */
    int device;         /* current at its creation (a capture: its origin stream's) */
    uint64_t id, origin; /* for xrt_graph_node_find_in_clone: its number (0: none yet), its original's */
    uint32_t cloned;     /* a clone: the nodes its original had then (later ones have no copy here) */
    struct xrt__cpu_uref *uref; /* the user objects it holds references to (">> cpu: user objects") */
    uint32_t nuref;
    int capturing; /* a capture's, under way: nodes added to it are loose */
} xrt__cpu_graph;

static struct xrt__cpu_plan *xrt__cpu_plan_new(const xrt__cpu_graph *g);

typedef struct xrt__cpu_capture {
    xrt__cpu_graph g;
    unsigned mode;
    pthread_t thread;
    xrt__cpu_stream *origin; /* NULL once the capture has ended */
    xrt__cpu_graph *target;  /* the graph it goes into (xrt_stream_begin_capture_to_graph); NULL: a new one */
    uint32_t base;           /* the nodes below it are target's, not captured */
    int refs;                /* member streams and events recorded in it */
    uint64_t devices;        /* bit d: a stream of device d joined it (a device synchronize would wait for it) */
    xrt_status invalid;      /* the first refusal; XRT_SUCCESS while valid */
    char why[384];           /* its detail */
    struct xrt__cpu_capture *next; /* active captures */
    unsigned long long id;   /* xrt_stream_get_capture_info's: its number, from 1, in begin order */
} xrt__cpu_capture;

static pthread_mutex_t xrt__cpu_cap_lock = PTHREAD_MUTEX_INITIALIZER;
static xrt__cpu_capture *xrt__cpu_caps; /* active captures, under the lock */
static unsigned long long xrt__cpu_cap_ids; /* captures begun, under the lock */
static int xrt__cpu_ncaps;              /* their count: read without the lock by the calls a capture may refuse */

/* An error found under the capture lock is noted, and recorded (logged)
   once the lock is released: the log's lock comes before the capture lock
   in fork's handlers, so it is never taken while the capture lock is held. */
static XRT__TLS struct { xrt_status st; const char *who; char msg[320]; } xrt__cpu_cap_err;

static xrt_status xrt__cpu_cap_note(xrt_status st, const char *who, const char *fmt, ...) XRT__PRINTF(3, 4);
static xrt_status xrt__cpu_cap_note(xrt_status st, const char *who, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(xrt__cpu_cap_err.msg, sizeof xrt__cpu_cap_err.msg, fmt, ap);
    va_end(ap);
    xrt__cpu_cap_err.st = st;
    xrt__cpu_cap_err.who = who;
    return st;
}

static void xrt__cpu_cap_unlock(void)
{
    xrt_status st = xrt__cpu_cap_err.st;
    pthread_mutex_unlock(&xrt__cpu_cap_lock);
    if (st == XRT_SUCCESS) return;
    xrt__cpu_cap_err.st = XRT_SUCCESS;
    xrt_error(st, xrt__cpu_cap_err.who, "%s", xrt__cpu_cap_err.msg);
}

/* A stream as messages name it: "stream 0x...", "the NULL stream" or "the
   per-thread stream". It takes the core's handle lock: never called under
   the capture lock (a stream in a capture keeps its name in cap_name). */
static void xrt__cpu_stream_name(const xrt__cpu_stream *s, char *buf, size_t n)
{
    uintptr_t h = s == xrt__cpu.dflt[s->device] || s->own_slot ? 0 : xrt__handle_of(s, XRT__HANDLE_STREAM);
    if (s == xrt__cpu.dflt[s->device]) snprintf(buf, n, "the NULL stream");
    else if (s->own_slot) snprintf(buf, n, "the per-thread stream of device %d", s->device);
    else if (h) snprintf(buf, n, "stream %p", (void *)h);
    else snprintf(buf, n, "a destroyed stream");
}

/* Graph memory per device (xrt_device_get_graph_mem_attribute): [0] the
   bytes of the allocations that graphs hold, [1] the pages mapped for them
   (each one's head page included), [2] and [3] their high-water marks. */
static uint64_t xrt__cpu_gbytes[XRT__CPU_DEVICES_MAX][4];

/* Allocation ptr joins its graph's memory (more 1) or leaves it (0). */
static void xrt__cpu_gbytes_count(void *ptr, int more)
{
    const xrt__cpu_head *h = xrt__cpu_head_of(ptr);
    uint64_t *c = xrt__cpu_gbytes[h->device], amount[2], now, high;
    int i;
    amount[0] = h->size;
    amount[1] = xrt__cpu_span(h->size);
    for (i = 0; i < 2; i++) {
        if (!more) {
            __atomic_sub_fetch(&c[i], amount[i], __ATOMIC_RELAXED);
            continue;
        }
        now = __atomic_add_fetch(&c[i], amount[i], __ATOMIC_RELAXED);
        high = __atomic_load_n(&c[2 + i], __ATOMIC_RELAXED);
        while (now > high && !__atomic_compare_exchange_n(&c[2 + i], &high, now, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
        }
    }
}

static xrt_status xrt__cpu_device_get_graph_mem_attribute(const xrt_backend *self, int device, int attr,
                                                          uint64_t *value)
{
    static const int at[4] = {0, 2, 1, 3}; /* xrt_graph_mem_attr: used, its mark, reserved, its mark */
    (void)self;
    *value = __atomic_load_n(&xrt__cpu_gbytes[device][at[attr]], __ATOMIC_RELAXED);
    return XRT_SUCCESS;
}

/* A reset: the mark starts again from the current amount. */
static xrt_status xrt__cpu_device_set_graph_mem_attribute(const xrt_backend *self, int device, int attr)
{
    int i = attr == XRT_GRAPH_MEM_ATTR_USED_MEM_HIGH ? 0 : 1;
    (void)self;
    __atomic_store_n(&xrt__cpu_gbytes[device][2 + i], __atomic_load_n(&xrt__cpu_gbytes[device][i], __ATOMIC_RELAXED),
                     __ATOMIC_RELAXED);
    return XRT_SUCCESS;
}

static void xrt__cpu_gmem_unref(xrt__cpu_gmem *m)
{
    xrt__cpu_gmem **p;
    uint32_t i;
    if (__atomic_sub_fetch(&m->refs, 1, __ATOMIC_ACQ_REL)) return;
    if (m->left) {
        pthread_mutex_lock(&xrt__cpu_gleft_lock);
        for (p = &xrt__cpu_gleft; *p != m; p = &(*p)->left_next) {
        }
        *p = m->left_next;
        __atomic_sub_fetch(&xrt__cpu_ngleft, 1, __ATOMIC_RELEASE);
        pthread_mutex_unlock(&xrt__cpu_gleft_lock);
    }
    for (i = 0; i < m->n; i++) { /* live: a launch's, not freed by the caller, whose it is now */
        xrt__cpu_gbytes_count(m->a[i].ptr, 0);
        if (!m->a[i].live) xrt__cpu_dev_release(m->a[i].ptr);
    }
    XRT_FREE(m->a);
    XRT_FREE(m);
}

static void xrt__cpu_graph_free(xrt__cpu_graph *g);

/* >> cpu: user objects. An object counts its references; a graph keeps
   (object, count) pairs, which each copy of it takes too (a clone, a child
   node's graph, a plan: an exec's references go when its last launch under
   way is done, as its plan does). The last release runs the destroy, on
   that thread (a worker's, for an exec's last launch). */
typedef struct xrt__cpu_uobj { uint64_t refs; xrt_host_fn destroy; void *ptr; } xrt__cpu_uobj;
typedef struct xrt__cpu_uref { xrt__cpu_uobj *o; uint64_t n; } xrt__cpu_uref;

static void xrt__cpu_uobj_release(xrt__cpu_uobj *o, uint64_t n)
{
    if (__atomic_sub_fetch(&o->refs, n, __ATOMIC_ACQ_REL)) return;
    o->destroy(o->ptr);
    XRT_FREE(o);
}

/* to (a copy of from, holding none) takes from's references. 0 without memory. */
static int xrt__cpu_graph_share_urefs(xrt__cpu_graph *to, const xrt__cpu_graph *from)
{
    uint32_t i;
    if (!from->nuref) return 1;
    if (!(to->uref = (xrt__cpu_uref *)XRT_MALLOC(from->nuref * sizeof *to->uref))) return 0;
    memcpy(to->uref, from->uref, from->nuref * sizeof *to->uref);
    to->nuref = from->nuref;
    for (i = 0; i < to->nuref; i++) __atomic_add_fetch(&to->uref[i].o->refs, to->uref[i].n, __ATOMIC_RELAXED);
    return 1;
}

static void xrt__cpu_graph_release_urefs(xrt__cpu_graph *g)
{
    uint32_t i;
    xrt__cpu_uref *v = g->uref;
    uint32_t n = g->nuref;
    g->uref = NULL;
    g->nuref = 0;
    for (i = 0; i < n; i++) xrt__cpu_uobj_release(v[i].o, v[i].n);
    XRT_FREE(v);
}

/* Releases what a node holds. */
static void xrt__cpu_node_clear(const xrt__cpu_graph *g, xrt__cpu_node *nd)
{
    if (nd->kind == XRT__CPU_NODE_KERNEL) {
        xrt__cpu_launch *l = (xrt__cpu_launch *)nd->op.u.host.user;
        xrt__cpu_module_unref(l->module);
        XRT_FREE(l->attrs);
        XRT_FREE(l);
    } else if (nd->kind == XRT__CPU_NODE_CHILD && g->planned) {
        xrt__cpu_plan_unref((struct xrt__cpu_plan *)nd->op.u.host.user);
    } else if (nd->kind == XRT__CPU_NODE_CHILD) {
        xrt__cpu_graph_free((xrt__cpu_graph *)nd->op.u.host.user);
    } else if (nd->kind == XRT__CPU_NODE_RECORD || nd->kind == XRT__CPU_NODE_WAIT) {
        xrt__cpu_event_unref(nd->op.u.record.event);
    }
}

static void xrt__cpu_graph_clear(xrt__cpu_graph *g)
{
    uint32_t i;
    for (i = 0; i < g->n; i++) xrt__cpu_node_clear(g, &g->node[i]);
    xrt__cpu_nodes_own(NULL, g->node, -1);
    XRT_FREE(g->node);
    XRT_FREE(g->dep);
    if (g->mem) xrt__cpu_gmem_unref(g->mem);
    xrt__cpu_graph_release_urefs(g);
    memset(g, 0, sizeof *g);
}

static void xrt__cpu_graph_free(xrt__cpu_graph *g)
{
    xrt__cpu_graph_clear(g);
    XRT_FREE(g);
}

static void xrt__cpu_cap_unref_locked(xrt__cpu_capture *c)
{
    if (--c->refs || c->origin) return;
    xrt__cpu_graph_clear(&c->g);
    XRT_FREE(c);
}

/* Records the first reason a capture fails; returns st (an error, recorded). */
static xrt_status xrt__cpu_cap_fail_locked(xrt__cpu_capture *c, xrt_status st, const char *who, const char *fmt, ...)
    XRT__PRINTF(4, 5);
static xrt_status xrt__cpu_cap_fail_locked(xrt__cpu_capture *c, xrt_status st, const char *who, const char *fmt, ...)
{
    char msg[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c && c->origin && c->invalid == XRT_SUCCESS) {
        c->invalid = st;
        snprintf(c->why, sizeof c->why, "%s: %s", who, msg);
    }
    return xrt__cpu_cap_note(st, who, "%s", msg);
}

/* The frontier of a stream or event: grows, never shrinks in place. */
static int xrt__cpu_front_add(uint32_t **v, uint32_t *n, uint32_t *cap, uint32_t id)
{
    uint32_t i;
    for (i = 0; i < *n; i++)
        if ((*v)[i] == id) return 1;
    if (*n == *cap) {
        uint32_t c2 = *cap ? 2 * *cap : 4;
        uint32_t *w = (uint32_t *)XRT_REALLOC(*v, c2 * sizeof *w);
        if (!w) return 0;
        *v = w;
        *cap = c2;
    }
    (*v)[(*n)++] = id;
    return 1;
}

static int xrt__cpu_front_copy(uint32_t **v, uint32_t *n, uint32_t *cap, const uint32_t *from, uint32_t nfrom)
{
    uint32_t i;
    *n = 0;
    for (i = 0; i < nfrom; i++)
        if (!xrt__cpu_front_add(v, n, cap, from[i])) return 0;
    return 1;
}

/* Drops from a frontier the nodes another of its nodes follows directly
   (a join after a fork: the fork's node need not be an edge of its own). */
static void xrt__cpu_front_prune(const xrt__cpu_graph *g, uint32_t *v, uint32_t *n)
{
    uint32_t i, j, k, kept = 0;
    for (i = 0; i < *n; i++) {
        int covered = 0;
        for (j = 0; j < *n && !covered; j++)
            for (k = 0; j != i && k < g->node[v[j]].ndeps && !covered; k++) covered = g->dep[g->node[v[j]].deps + k] == v[i];
        if (!covered) v[kept++] = v[i];
    }
    *n = kept;
}

/* Room for one more node and `ndeps` more entries of dep; 0 without memory. */
static int xrt__cpu_graph_room(xrt__cpu_graph *g, size_t ndeps)
{
    if (g->n == g->cap) {
        uint32_t c2 = g->cap ? 2 * g->cap : 16;
        xrt__cpu_node *v = (xrt__cpu_node *)XRT_REALLOC(g->node, c2 * sizeof *v);
        if (!v) return 0;
        xrt__cpu_nodes_own(g->node, v, 1);
        g->node = v;
        g->cap = c2;
    }
    if (ndeps > UINT32_MAX - g->ndep) return 0;
    while (g->ndep + ndeps > g->depcap) {
        uint32_t c2 = g->depcap ? 2 * g->depcap : 32;
        uint32_t *v = (uint32_t *)XRT_REALLOC(g->dep, c2 * sizeof *v);
        if (!v) return 0;
        g->dep = v;
        g->depcap = c2;
    }
    return 1;
}

static void xrt__cpu_run_set_rows(xrt__cpu_op *op);

/* A 2-D copy node: its geometry is in the node. */
static void xrt__cpu_run_copy_rows(xrt__cpu_op *op)
{
    const xrt__cpu_node *nd = (const xrt__cpu_node *)(const void *)((const char *)op - offsetof(xrt__cpu_node, op));
    xrt__cpu_rect r;
    memset(&r, 0, sizeof r);
    r.dst = (unsigned char *)op->u.copy.dst;
    r.src = (const unsigned char *)op->u.copy.src;
    r.dpitch = nd->rect.dpitch;
    r.spitch = nd->rect.spitch;
    r.width = nd->rect.width;
    r.height = nd->rect.height;
    r.depth = nd->rect.depth;
    r.dslice = nd->rect.dslice;
    r.sslice = nd->rect.sslice;
    r.esize = 1;
    xrt__cpu_rect_run(&r);
}

/* A 3-D memset node: its first slice is its memset params (set), its
   slices in rect. */
static void xrt__cpu_run_set_box(xrt__cpu_op *op)
{
    const xrt__cpu_node *nd = (const xrt__cpu_node *)(const void *)((const char *)op - offsetof(xrt__cpu_node, op));
    xrt__cpu_rect r;
    memset(&r, 0, sizeof r);
    r.dst = (unsigned char *)nd->set.dst;
    r.dpitch = nd->set.pitch;
    r.width = nd->set.width;
    r.height = nd->set.height;
    r.depth = nd->rect.depth;
    r.dslice = nd->rect.dslice;
    r.value = nd->set.value;
    r.esize = nd->set.element_size;
    xrt__cpu_rect_run(&r);
}

/* A captured rectangle as a node: a copy keeps its geometry in nd->rect, a
   memset is a memset node of rows (xrt_memset_node_params). */
static void xrt__cpu_rect_node(xrt__cpu_node *nd, const xrt__cpu_rect *r)
{
    if (r->src) {
        nd->op.run = xrt__cpu_run_copy_rows;
        nd->op.u.copy.dst = r->dst;
        nd->op.u.copy.src = r->src;
        nd->op.u.copy.size = (r->depth - 1) * r->sslice + (r->height - 1) * r->spitch + r->width; /* the source's span */
        nd->rect.dpitch = r->dpitch;
        nd->rect.spitch = r->spitch;
        nd->rect.width = r->width;
        nd->rect.height = r->height;
        nd->rect.depth = r->depth;
        nd->rect.dslice = r->dslice;
        nd->rect.sslice = r->sslice;
        nd->copy_kind = r->kind;
    } else {
        nd->op.run = r->depth > 1 ? xrt__cpu_run_set_box : xrt__cpu_run_set_rows;
        nd->op.u.set.dst = r->dst;
        nd->op.u.set.size = (r->depth - 1) * r->dslice + (r->height - 1) * r->dpitch + r->width * r->esize;
        nd->rect.depth = r->depth;
        nd->rect.dslice = r->dslice;
        nd->op.u.set.value = (int)(r->value & 0xffu);
        nd->set.dst = r->dst;
        nd->set.pitch = r->dpitch;
        nd->set.value = r->value;
        nd->set.element_size = r->esize;
        nd->set.width = r->width;
        nd->set.height = r->height;
    }
}

/* Appends a node after deps (indices), given room: its index. A copy's and
   a memset's params are those of their op unless the caller sets others. */
static uint32_t xrt__cpu_graph_append(xrt__cpu_graph *g, int kind, const xrt__cpu_op *op, const uint32_t *deps,
                                      uint32_t ndeps)
{
    xrt__cpu_node *nd = &g->node[g->n];
    memset(nd, 0, sizeof *nd);
    nd->kind = kind;
    nd->op = *op;
    nd->ndeps = ndeps;
    nd->deps = g->ndep;
    nd->copy_kind = op->run == xrt__cpu_run_memcpy || op->run == xrt__cpu_run_memcpy_split ? op->u.copy.kind
                                                                                         : XRT_MEMCPY_DEFAULT;
    nd->loose = g->capturing; /* a captured node is not: xrt__cpu_cap_node_locked */
    if (kind == XRT__CPU_NODE_SET) {
        nd->set.dst = op->u.set.dst;
        nd->set.value = (unsigned)op->u.set.value;
        nd->set.element_size = 1;
        nd->set.width = nd->set.pitch = op->u.set.size;
        nd->set.height = 1;
    }
    if (op->run == xrt__cpu_run_rect) xrt__cpu_rect_node(nd, (const xrt__cpu_rect *)op->u.host.user);
    if (ndeps) memcpy(g->dep + g->ndep, deps, ndeps * sizeof *deps);
    g->ndep += ndeps;
    return g->n++;
}

/* Appends a node after the stream's frontier, which it becomes. */
static xrt_status xrt__cpu_cap_node_locked(xrt__cpu_stream *s, int kind, const xrt__cpu_op *op, const char *who)
{
    xrt__cpu_capture *c = s->cap;
    if (!xrt__cpu_graph_room(&c->g, s->nfront))
        return xrt__cpu_cap_fail_locked(c, XRT_ERROR_OUT_OF_MEMORY, who, "no memory for a captured node");
    s->front[0] = xrt__cpu_graph_append(&c->g, kind, op, s->front, s->nfront); /* frontcap >= 1: joined with room */
    c->g.node[s->front[0]].loose = 0;
    s->nfront = 1;
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_cap_invalid_locked(xrt__cpu_capture *c, const char *who)
{
    return xrt__cpu_cap_note(XRT_ERROR_STREAM_CAPTURE_INVALIDATED, who, "the capture begun on %s was invalidated earlier by %s",
                     c->origin->cap_name, c->why);
}

/* An operation the CPU backend does not capture is refused, and the capture
   invalidated. */
static xrt_status xrt__cpu_cap_cannot_locked(xrt__cpu_stream *s, const char *who, const char *what)
{
    if (s->cap->invalid != XRT_SUCCESS) return xrt__cpu_cap_invalid_locked(s->cap, who);
    return xrt__cpu_cap_fail_locked(s->cap, XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED, who,
                                    "%s is capturing, and the CPU backend cannot capture this operation (%s); "
                                    "the capture is invalidated", s->cap_name, what);
}

/* The same, taking the lock; success where the stream's capture ended meanwhile. */
static xrt_status xrt__cpu_cap_cannot(void *stream, const char *who, const char *what)
{
    xrt__cpu_stream *s = xrt__cpu_stream_of(stream);
    xrt_status st = XRT_SUCCESS;
    pthread_mutex_lock(&xrt__cpu_cap_lock);
    if (s->cap) st = xrt__cpu_cap_cannot_locked(s, who, what);
    xrt__cpu_cap_unlock();
    return st;
}

static void xrt__cpu_run_nothing(xrt__cpu_op *op) { (void)op; }

/* The graph's memory record, made if new (a graph with memory nodes of any
   kind has one: CUDA's rules for such graphs go by it); NULL without memory. */
static xrt__cpu_gmem *xrt__cpu_gmem_of(xrt__cpu_graph *g)
{
    if (!g->mem && (g->mem = (xrt__cpu_gmem *)XRT_CALLOC(1, sizeof *g->mem)) != NULL) g->mem->refs = 1;
    return g->mem;
}

/* Adds ptr to the graph's memory; 0 without memory for it. */
static int xrt__cpu_gmem_add(xrt__cpu_graph *g, void *ptr)
{
    xrt__cpu_gmem *m = xrt__cpu_gmem_of(g);
    if (!m) return 0;
    if (m->n == m->cap) {
        uint32_t c2 = m->cap ? 2 * m->cap : 4;
        xrt__cpu_galloc *v = (xrt__cpu_galloc *)XRT_REALLOC(m->a, c2 * sizeof *v);
        if (!v) return 0;
        m->a = v;
        m->cap = c2;
    }
    m->a[m->n].ptr = ptr;
    m->a[m->n].live = 0;
    m->a[m->n++].freed = 0;
    xrt__cpu_gbytes_count(ptr, 1);
    return 1;
}

/* An allocation on a capturing stream: an allocation node, its memory the
   graph's. */
static xrt_status xrt__cpu_cap_alloc(xrt__cpu_stream *s, void *ptr, const char *who)
{
    xrt__cpu_capture *c;
    xrt__cpu_op op;
    xrt_status st = XRT_SUCCESS;
    memset(&op, 0, sizeof op);
    op.run = xrt__cpu_run_nothing;
    op.u.release.ptr = ptr;
    pthread_mutex_lock(&xrt__cpu_cap_lock);
    if ((c = s->cap) == NULL) { /* the capture ended meanwhile: an allocation as any other */
    } else if (c->invalid != XRT_SUCCESS) {
        st = xrt__cpu_cap_invalid_locked(c, who);
    } else if (!xrt__cpu_gmem_add(&c->g, ptr)) {
        st = xrt__cpu_cap_fail_locked(c, XRT_ERROR_OUT_OF_MEMORY, who, "no memory for a captured allocation");
    } else if ((st = xrt__cpu_cap_node_locked(s, XRT__CPU_NODE_ALLOC, &op, who)) != XRT_SUCCESS) {
        xrt__cpu_gbytes_count(ptr, 0);
        c->g.mem->n--;
    }
    xrt__cpu_cap_unlock();
    return st;
}

/* A free on a capturing stream: a free node, of an allocation that the
   capture made and has not freed (CUDA's free nodes free graph allocations
   only); any other is refused. 0 where the capture ended meanwhile. */
static int xrt__cpu_cap_free(xrt__cpu_stream *s, void *ptr, const char *who, xrt_status *st)
{
    xrt__cpu_galloc *a = NULL;
    xrt__cpu_capture *c;
    xrt__cpu_op op;
    uint32_t i;
    memset(&op, 0, sizeof op);
    op.run = xrt__cpu_run_nothing;
    op.u.release.ptr = ptr;
    pthread_mutex_lock(&xrt__cpu_cap_lock);
    if ((c = s->cap) == NULL) {
        xrt__cpu_cap_unlock();
        return 0;
    }
    for (i = c->g.mem ? c->g.mem->n : 0; i-- > 0 && !a;) /* newest first (one entry per address: outside frees are refused) */
        if (c->g.mem->a[i].ptr == ptr && !c->g.mem->a[i].freed) a = &c->g.mem->a[i];
    if (!a || c->invalid != XRT_SUCCESS)
        *st = xrt__cpu_cap_cannot_locked(s, who, "a stream-ordered free of memory that this capture did not allocate");
    else if ((*st = xrt__cpu_cap_node_locked(s, XRT__CPU_NODE_FREE, &op, who)) == XRT_SUCCESS)
        a->freed = 1;
    xrt__cpu_cap_unlock();
    return 1;
}

/* A free outside the capture of an allocation that an active capture made
   and has not freed: refused, as in CUDA, where that allocation is not live
   until a launch. */
static xrt_status xrt__cpu_cap_owned(void *ptr, const char *who)
{
    xrt__cpu_capture *c;
    xrt_status st = XRT_SUCCESS;
    uint32_t i;
    if (XRT__LIKELY(__atomic_load_n(&xrt__cpu_ncaps, __ATOMIC_ACQUIRE) == 0)) return XRT_SUCCESS;
    pthread_mutex_lock(&xrt__cpu_cap_lock);
    for (c = xrt__cpu_caps; c && st == XRT_SUCCESS; c = c->next)
        for (i = 0; c->g.mem && i < c->g.mem->n && st == XRT_SUCCESS; i++)
            if (!c->g.mem->a[i].freed && c->g.mem->a[i].ptr == ptr)
                st = xrt__cpu_cap_note(XRT_ERROR_INVALID_VALUE, who,
                               "%p was allocated in the capture begun on %s: free it there (on a stream of the "
                               "capture), or once the capture has ended", ptr, c->origin->cap_name);
    xrt__cpu_cap_unlock();
    return st;
}

/* A graph that leaves allocations to its caller goes on the list. */
static void xrt__cpu_gmem_leave(xrt__cpu_gmem *m)
{
    uint32_t i;
    for (i = 0; m && i < m->n && !m->left; i++) m->left = !m->a[i].freed;
    if (!m || !m->left) return;
    pthread_mutex_lock(&xrt__cpu_gleft_lock);
    m->left_next = xrt__cpu_gleft;
    xrt__cpu_gleft = m;
    __atomic_add_fetch(&xrt__cpu_ngleft, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&xrt__cpu_gleft_lock);
}

/* A launch allocates what the graph leaves to the caller (a launch while a
   previous launch's allocation is not freed gets here only for an exec of
   XRT_GRAPH_INSTANTIATE_AUTO_FREE_ON_LAUNCH: the core refuses it otherwise,
   xrt__graph_mem_unfreed). Such a launch first frees what is live, as
   xrt__cpu_gmem_free does; one the caller freed is not live, and is not
   freed again. The memory stays the graph's at its address, so there is
   nothing to order: the graph's nodes run after the launch's earlier work.
   undo: the launch failed after; what was live is live again. */
static xrt_status xrt__cpu_gmem_launch(xrt__cpu_gmem *m, int auto_free, int undo)
{
    uint32_t i;
    void *unfreed = NULL;
    if (!m || !m->left) return XRT_SUCCESS;
    pthread_mutex_lock(&xrt__cpu_gleft_lock);
    for (i = 0; i < m->n && !undo && !auto_free && !unfreed; i++)
        if (!m->a[i].freed && m->a[i].live) unfreed = m->a[i].ptr;
    for (i = 0; i < m->n && !unfreed; i++) {
        xrt__cpu_galloc *a = &m->a[i];
        if (a->freed) continue;
        if (!undo && a->live) xrt__cpu_ipc_unexport(a->ptr); /* freed by the launch: no new open succeeds */
        if (!undo) a->was = a->live;
        a->live = undo ? a->was : 1;
    }
    pthread_mutex_unlock(&xrt__cpu_gleft_lock);
    if (unfreed)
        return xrt_error(XRT_ERROR_INVALID_VALUE, "cpu: xrt_graph_launch",
                         "the graph's allocation %p of its previous launch is not freed", unfreed);
    return XRT_SUCCESS;
}

/* A free of memory that a graph leaves to its caller: it is no longer live,
   and stays the graph's for the next launch. 0 if ptr is no such memory. */
static int xrt__cpu_gmem_free(void *ptr, const char *who, xrt_status *st)
{
    xrt__cpu_gmem *m;
    uint32_t i;
    int found = 0;
    pthread_mutex_lock(&xrt__cpu_gleft_lock);
    for (m = xrt__cpu_gleft; m && !found; m = m->left_next)
        for (i = 0; i < m->n && !found; i++)
            if (!m->a[i].freed && m->a[i].ptr == ptr) {
                found = 1;
                *st = m->a[i].live ? XRT_SUCCESS
                                   : xrt_error(XRT_ERROR_INVALID_VALUE, who, "%p is a graph's allocation, not "
                                               "allocated now (a launch allocates it)", ptr);
                if (m->a[i].live) xrt__cpu_ipc_unexport(ptr); /* the graph keeps it, but no new open succeeds */
                m->a[i].live = 0;
            }
    pthread_mutex_unlock(&xrt__cpu_gleft_lock);
    return found;
}

/* An op enqueued on a capturing stream becomes a node; 1 if it was taken
   (*st its status: on failure the caller releases what the op holds), 0
   where the stream's capture ended meanwhile (enqueue it as usual). */
static int xrt__cpu_cap_op(xrt__cpu_stream *s, const xrt__cpu_op *op, const char *who, xrt_status *st)
{
    int kind = op->run == xrt__cpu_run_kernel                                     ? XRT__CPU_NODE_KERNEL
               : op->run == xrt__cpu_run_memcpy || op->run == xrt__cpu_run_memcpy_split ? XRT__CPU_NODE_COPY
               : op->run == xrt__cpu_run_memset || op->run == xrt__cpu_run_memset_split ? XRT__CPU_NODE_SET
               : op->run == xrt__cpu_run_host_fn                                   ? XRT__CPU_NODE_HOST
               : op->run == xrt__cpu_run_rect ? (((const xrt__cpu_rect *)op->u.host.user)->src ? XRT__CPU_NODE_COPY
                                                                                              : XRT__CPU_NODE_SET)
                                                                                   : -1;
    pthread_mutex_lock(&xrt__cpu_cap_lock);
    if (!s->cap) {
        xrt__cpu_cap_unlock();
        return 0;
    }
    if (kind < 0) *st = xrt__cpu_cap_cannot_locked(s, who, "no graph node holds its kind");
    else if (s->cap->invalid != XRT_SUCCESS) *st = xrt__cpu_cap_invalid_locked(s->cap, who);
    else {
        *st = xrt__cpu_cap_node_locked(s, kind, op, who);
        if (*st == XRT_SUCCESS && kind == XRT__CPU_NODE_KERNEL)
            ((xrt__cpu_launch *)op->u.host.user)->spare_of = NULL; /* the node's own, freed with it */
    }
    if (op->run == xrt__cpu_run_rect) XRT_FREE(op->u.host.user); /* an enqueued one; the node keeps its geometry */
    xrt__cpu_cap_unlock();
    return 1;
}

static int xrt__cpu_capturing(void *stream)
{
    return __atomic_load_n(&xrt__cpu_stream_of(stream)->cap, __ATOMIC_ACQUIRE) != NULL;
}

/* A synchronize or query of a capturing stream: refused, and the capture is invalidated. */
static xrt_status xrt__cpu_cap_wait_refused(xrt__cpu_stream *s, const char *who)
{
    xrt_status st = XRT_SUCCESS;
    pthread_mutex_lock(&xrt__cpu_cap_lock);
    if (s->cap)
        st = xrt__cpu_cap_fail_locked(s->cap, XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED, who,
                                      "%s is capturing: its work is recorded, not run, so there is nothing to wait "
                                      "for; the capture is invalidated", s->cap_name);
    xrt__cpu_cap_unlock();
    return st;
}

/* Work for the NULL stream of a device one of whose blocking streams is
   capturing would wait for captured work, which never runs: refused, and
   those captures are invalidated, as CUDA's cudaErrorStreamCaptureImplicit.
   The cap lock comes before the device's list lock. */
static xrt_status xrt__cpu_cap_implicit(int device, const char *who)
{
    xrt__cpu_legacy *l = &xrt__cpu.legacy[device];
    xrt__cpu_stream *b;
    xrt_status st = XRT_SUCCESS;
    int captures = __atomic_load_n(&xrt__cpu_ncaps, __ATOMIC_ACQUIRE);
    if (XRT__LIKELY(captures == 0)) return XRT_SUCCESS;
    pthread_mutex_lock(&xrt__cpu_cap_lock);
    xrt__cpu_lock(&l->lock);
    for (b = l->blocking; b; b = b->bnext)
        if (b->cap) {
            xrt_status one = xrt__cpu_cap_fail_locked(b->cap, XRT_ERROR_STREAM_CAPTURE_IMPLICIT, who,
                                                      "the NULL stream's work would wait for %s, a blocking stream "
                                                      "that is capturing (make it with XRT_STREAM_NON_BLOCKING to "
                                                      "capture beside the NULL stream); the capture is invalidated",
                                                      b->cap_name);
            if (st == XRT_SUCCESS) st = one;
        }
    xrt__cpu_unlock(&l->lock);
    xrt__cpu_cap_unlock();
    return st;
}

/* The calling thread's capture mode (xrt_thread_exchange_stream_capture_mode,
   cudaThreadExchangeStreamCaptureMode): which captures its unsafe calls
   are checked against. */
static XRT__TLS unsigned xrt__cpu_thread_mode; /* XRT_CAPTURE_MODE_GLOBAL unless exchanged */

/* Whether c refuses the calling thread's unsafe call, as CUDA's modes say:
   a thread in GLOBAL mode may not make one while it has a capture of its
   own that is not RELAXED, or any thread has a GLOBAL one; in THREAD_LOCAL
   mode, while it has such a capture of its own; in RELAXED mode, never.
   device >= 0 (a device synchronize): also every capture of that device,
   in every mode, as the synchronize would wait for its stream. */
static int xrt__cpu_cap_refuses(const xrt__cpu_capture *c, int device)
{
    unsigned t = xrt__cpu_thread_mode;
    if (device >= 0 && (c->devices >> device & 1)) return 1;
    if (t == XRT_CAPTURE_MODE_RELAXED || c->mode == XRT_CAPTURE_MODE_RELAXED) return 0;
    if (pthread_equal(c->thread, pthread_self())) return 1;
    return t == XRT_CAPTURE_MODE_GLOBAL && c->mode == XRT_CAPTURE_MODE_GLOBAL;
}

/* CUDA's potentially unsafe calls (xrt_malloc, xrt_malloc_host, xrt_free,
   xrt_free_host, the synchronous copy and set, a synchronize or query of a
   stream or event outside a capture; device >= 0: xrt_device_synchronize
   of that device): refused while a capture refuses them
   (xrt__cpu_cap_refuses), and those captures are invalidated. */
static xrt_status xrt__cpu_cap_refuse(const char *who, int device)
{
    xrt__cpu_capture *c, *first = NULL;
    xrt_status st = XRT_SUCCESS;
    if (XRT__LIKELY(!__atomic_load_n(&xrt__cpu_ncaps, __ATOMIC_ACQUIRE))) return XRT_SUCCESS;
    pthread_mutex_lock(&xrt__cpu_cap_lock);
    for (c = xrt__cpu_caps; c && !first; c = c->next)
        if (xrt__cpu_cap_refuses(c, -1)) first = c;
    for (c = xrt__cpu_caps; c && !first; c = c->next)
        if (xrt__cpu_cap_refuses(c, device)) first = c;
    if (first && xrt__cpu_cap_refuses(first, -1))
        st = xrt__cpu_cap_note(XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED, who,
                               "not permitted while %s is capturing in %s mode (begin the capture with "
                               "XRT_CAPTURE_MODE_RELAXED, or make the call in a thread of that mode, to allow "
                               "it); the capture is invalidated", first->origin->cap_name,
                               first->mode == XRT_CAPTURE_MODE_GLOBAL ? "GLOBAL" : "THREAD_LOCAL");
    else if (first)
        st = xrt__cpu_cap_note(XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED, who,
                               "it would wait for %s, which is capturing: its work is recorded, not run (refused "
                               "in every mode); the capture is invalidated", first->origin->cap_name);
    if (first)
        for (c = xrt__cpu_caps; c; c = c->next)
            if (xrt__cpu_cap_refuses(c, device) && c->invalid == XRT_SUCCESS) {
                c->invalid = XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED;
                snprintf(c->why, sizeof c->why, "%s: %.320s", xrt__cpu_cap_err.who, xrt__cpu_cap_err.msg);
            }
    xrt__cpu_cap_unlock();
    return st;
}

static xrt_status xrt__cpu_cap_unsafe(const char *who)
{
    return xrt__cpu_cap_refuse(who, -1);
}

static xrt_status xrt__cpu_thread_exchange_stream_capture_mode(const xrt_backend *self, unsigned *mode)
{
    unsigned was = xrt__cpu_thread_mode;
    (void)self;
    xrt__cpu_thread_mode = *mode;
    *mode = was;
    return XRT_SUCCESS;
}

/* Joins s to c with the frontier given (a fork), under the lock. */
static int xrt__cpu_cap_join_locked(xrt__cpu_stream *s, xrt__cpu_capture *c, const uint32_t *front, uint32_t n,
                                    const char *name)
{
    if (!xrt__cpu_front_copy(&s->front, &s->nfront, &s->frontcap, front, n)) return 0;
    if (!s->frontcap) { /* room for the node it captures next (xrt__cpu_cap_node_locked) */
        if (!(s->front = (uint32_t *)XRT_MALLOC(4 * sizeof *s->front))) return 0;
        s->frontcap = 4;
    }
    snprintf(s->cap_name, sizeof s->cap_name, "%s", name);
    c->refs++;
    c->devices |= 1ull << s->device;
    __atomic_store_n(&s->cap, c, __ATOMIC_RELEASE);
    return 1;
}

static void xrt__cpu_cap_leave_locked(xrt__cpu_stream *s)
{
    xrt__cpu_capture *c = s->cap;
    __atomic_store_n(&s->cap, NULL, __ATOMIC_RELEASE);
    s->nfront = 0;
    xrt__cpu_cap_unref_locked(c);
}

/* An event recorded on a capturing stream takes the stream's frontier; one
   recorded elsewhere leaves any capture it was recorded in. 1 if handled. */
static int xrt__cpu_cap_record(xrt__cpu_event *e, xrt__cpu_stream *s, xrt_status *st)
{
    xrt__cpu_capture *was;
    int taken = 0;
    pthread_mutex_lock(&xrt__cpu_cap_lock);
    was = e->cap;
    *st = XRT_SUCCESS;
    if (s->cap && s->cap->invalid != XRT_SUCCESS) {
        *st = xrt__cpu_cap_invalid_locked(s->cap, "cpu: xrt_event_record");
        taken = 1;
    } else if (s->cap) {
        if (!xrt__cpu_front_copy(&e->front, &e->nfront, &e->frontcap, s->front, s->nfront)) {
            *st = xrt__cpu_cap_fail_locked(s->cap, XRT_ERROR_OUT_OF_MEMORY, "cpu: xrt_event_record",
                                           "no memory to record the event in the capture");
        } else {
            s->cap->refs++;
            e->cap = s->cap;
            if (was) xrt__cpu_cap_unref_locked(was);
        }
        taken = 1;
    } else if (was) {
        e->cap = NULL;
        xrt__cpu_cap_unref_locked(was);
    }
    xrt__cpu_cap_unlock();
    return taken;
}

/* stream_wait_event where the stream or the event is in a capture: a fork,
   a join, or a refusal. 1 if handled. */
static int xrt__cpu_cap_wait(xrt__cpu_stream *t, xrt__cpu_event *e, xrt_status *st)
{
    const char *who = "cpu: xrt_stream_wait_event";
    xrt__cpu_capture *c;
    char name[64];
    uint32_t i;
    xrt__cpu_stream_name(t, name, sizeof name); /* a rare path: the stream or the event is in a capture */
    pthread_mutex_lock(&xrt__cpu_cap_lock);
    c = e->cap;
    *st = XRT_SUCCESS;
    if (!c && !t->cap) {
        xrt__cpu_cap_unlock();
        return 0;
    }
    if (!c) { /* a capturing stream waits for work outside the capture */
        if (e->stream)
            *st = xrt__cpu_cap_fail_locked(t->cap, XRT_ERROR_STREAM_CAPTURE_ISOLATION, who,
                                           "%s is capturing and the event was recorded outside the capture: a graph "
                                           "cannot wait for work that is not in it; the capture is invalidated", name);
    } else if (!c->origin) {
        *st = xrt__cpu_cap_note(XRT_ERROR_CAPTURED_EVENT, who,
                        "the event was last recorded in a capture that has ended; record it again outside a capture");
    } else if (t->cap && t->cap != c) {
        *st = xrt__cpu_cap_fail_locked(t->cap, XRT_ERROR_STREAM_CAPTURE_MERGE, who,
                                       "%s is capturing, and the event was recorded in another capture: two "
                                       "captures cannot merge; the capture is invalidated", name);
    } else if (t == xrt__cpu.dflt[t->device]) {
        *st = xrt__cpu_cap_fail_locked(c, XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED, who,
                                       "the NULL stream cannot join a capture; the capture is invalidated");
    } else if (c->invalid != XRT_SUCCESS) {
        *st = xrt__cpu_cap_invalid_locked(c, who);
    } else if (!t->cap) {
        if (!xrt__cpu_cap_join_locked(t, c, e->front, e->nfront, name))
            *st = xrt__cpu_cap_fail_locked(c, XRT_ERROR_OUT_OF_MEMORY, who, "no memory to join %s to the capture", name);
    } else {
        for (i = 0; i < e->nfront && *st == XRT_SUCCESS; i++)
            if (!xrt__cpu_front_add(&t->front, &t->nfront, &t->frontcap, e->front[i]))
                *st = xrt__cpu_cap_fail_locked(c, XRT_ERROR_OUT_OF_MEMORY, who, "no memory to join the event");
        xrt__cpu_front_prune(&c->g, t->front, &t->nfront);
    }
    xrt__cpu_cap_unlock();
    return 1;
}

/* An interprocess event's record is in the shared page, which no launch
   updates: such an event is in no graph here. */
static xrt_status xrt__cpu_event_graphable(const xrt__cpu_event *e, const char *who)
{
    if (XRT__UNLIKELY(e->shared != NULL))
        return xrt_error(XRT_ERROR_UNSUPPORTED, who, "an interprocess event cannot be in a graph on the CPU backend");
    return XRT_SUCCESS;
}

/* An external record or wait (XRT_EVENT_RECORD_EXTERNAL,
   XRT_EVENT_WAIT_EXTERNAL): an event node of kind `kind` after the
   capturing stream's frontier, which it becomes, as the nodes built by
   hand run (each launch waits or records, ">> cpu: graphs built node by
   node"). The event's own record and capture stay as they were. */
static xrt_status xrt__cpu_cap_external(xrt__cpu_stream *s, xrt__cpu_event *e, int kind, const char *who,
                                        const char *flag)
{
    xrt__cpu_op op;
    xrt_status st;
    if ((st = xrt__cpu_event_graphable(e, who)) != XRT_SUCCESS) return st;
    memset(&op, 0, sizeof op);
    op.run = xrt__cpu_run_nothing; /* the launch records and waits */
    op.u.record.event = e;
    __atomic_add_fetch(&e->refs, 1, __ATOMIC_RELAXED); /* the node's; the caller's handle holds one too */
    pthread_mutex_lock(&xrt__cpu_cap_lock);
    if (!s->cap)
        st = xrt__cpu_cap_note(XRT_ERROR_INVALID_VALUE, who,
                               "%s is for a capture only, and the stream is not capturing (as CUDA: invalid "
                               "outside of capture)", flag);
    else if (s->cap->invalid != XRT_SUCCESS)
        st = xrt__cpu_cap_invalid_locked(s->cap, who);
    else
        st = xrt__cpu_cap_node_locked(s, kind, &op, who);
    xrt__cpu_cap_unlock();
    if (st != XRT_SUCCESS) __atomic_sub_fetch(&e->refs, 1, __ATOMIC_RELAXED); /* not the last: see above */
    return st;
}

static xrt_status xrt__cpu_event_record_with_flags(const xrt_backend *self, void *event, void *stream, unsigned flags)
{
    xrt__cpu_event *e = (xrt__cpu_event *)event;
    xrt__cpu_stream *s = xrt__cpu_stream_of(stream);
    static const char who[] = "cpu: xrt_event_record_with_flags";
    if (flags == XRT_EVENT_RECORD_DEFAULT) return xrt__cpu_event_record(self, event, stream);
    if (XRT__UNLIKELY(e->device != s->device)) /* as cudaEventRecord: cudaErrorInvalidResourceHandle */
        return xrt_error(XRT_ERROR_INVALID_HANDLE, who, "the event belongs to device %d, the stream to device %d",
                         e->device, s->device);
    return xrt__cpu_cap_external(s, e, XRT__CPU_NODE_RECORD, who, "XRT_EVENT_RECORD_EXTERNAL");
}

static xrt_status xrt__cpu_stream_wait_event_with_flags(const xrt_backend *self, void *stream, void *event,
                                                        unsigned flags)
{
    if (flags == XRT_EVENT_WAIT_DEFAULT) return xrt__cpu_stream_wait_event(self, stream, event);
    return xrt__cpu_cap_external(xrt__cpu_stream_of(stream), (xrt__cpu_event *)event, XRT__CPU_NODE_WAIT,
                                 "cpu: xrt_stream_wait_event_with_flags", "XRT_EVENT_WAIT_EXTERNAL");
}

/* xrt_event_query and xrt_event_synchronize of an event last recorded in a
   capture: there is no work to wait for. */
static xrt_status xrt__cpu_cap_event_refused(xrt__cpu_event *e, const char *who)
{
    xrt_status st = XRT_SUCCESS;
    pthread_mutex_lock(&xrt__cpu_cap_lock);
    if (e->cap)
        st = xrt__cpu_cap_fail_locked(e->cap, XRT_ERROR_CAPTURED_EVENT, who,
                                      "the event was last recorded in a capture: it stands for work in a graph, "
                                      "not on a stream%s", e->cap->origin ? "; the capture is invalidated" : "");
    xrt__cpu_cap_unlock();
    return st;
}

static void xrt__cpu_cap_event_gone(xrt__cpu_event *e)
{
    pthread_mutex_lock(&xrt__cpu_cap_lock);
    if (e->cap) xrt__cpu_cap_unref_locked(e->cap);
    e->cap = NULL;
    xrt__cpu_cap_unlock();
    XRT_FREE(e->front);
}

static xrt__cpu_graph *xrt__cpu_graph_dup(const xrt__cpu_graph *from);
static xrt_status xrt__cpu_node_deps(void *const *deps, size_t n, uint32_t *few, uint32_t **v, const char *who);

/* A capture begun on s, into a new graph or (target) a copy of target's
   nodes (their kinds and edges, for the capture's rules; at the end only
   the nodes captured go into target: xrt__cpu_cap_append), its frontier
   front (target's nodes). */
static xrt_status xrt__cpu_cap_begin(xrt__cpu_stream *s, unsigned mode, xrt__cpu_graph *target, const uint32_t *front,
                                     uint32_t nfront, const char *who)
{
    xrt__cpu_capture *c;
    xrt__cpu_graph *copy = NULL;
    char name[64];
    xrt_status st = XRT_SUCCESS;
    xrt__cpu_stream_name(s, name, sizeof name);
    if (target && !(copy = xrt__cpu_graph_dup(target)))
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, who, "no memory for a copy of the graph's %u nodes", target->n);
    pthread_mutex_lock(&xrt__cpu_cap_lock);
    if (s->cap) {
        st = xrt__cpu_cap_note(XRT_ERROR_ILLEGAL_STATE, who, "%s is capturing already%s", name,
                       s->cap->origin == s ? "" : " (it joined a capture begun on another stream)");
    } else if (!(c = (xrt__cpu_capture *)XRT_CALLOC(1, sizeof *c))) {
        st = xrt__cpu_cap_note(XRT_ERROR_OUT_OF_MEMORY, who, "no memory for a capture");
    } else {
        c->mode = mode;
        c->thread = pthread_self();
        c->origin = s;
        c->g.device = s->device;
        if (copy) {
            c->g = *copy;
            c->target = target;
            c->base = copy->n;
            XRT_FREE(copy);
            copy = NULL;
        }
        c->g.capturing = 1;
        if (!xrt__cpu_cap_join_locked(s, c, front, nfront, name)) {
            xrt__cpu_graph_clear(&c->g);
            XRT_FREE(c);
            st = xrt__cpu_cap_note(XRT_ERROR_OUT_OF_MEMORY, who, "no memory for a capture");
        } else {
            c->id = ++xrt__cpu_cap_ids;
            c->next = xrt__cpu_caps;
            xrt__cpu_caps = c;
            __atomic_add_fetch(&xrt__cpu_ncaps, 1, __ATOMIC_RELEASE);
        }
    }
    xrt__cpu_cap_unlock();
    if (copy) xrt__cpu_graph_free(copy);
    return st;
}

static xrt_status xrt__cpu_stream_begin_capture(const xrt_backend *self, void *stream, unsigned mode)
{
    (void)self;
    return xrt__cpu_cap_begin((xrt__cpu_stream *)stream, mode, NULL, NULL, 0, "cpu: xrt_stream_begin_capture");
}

/* Into a graph: it takes the captured nodes at a successful end. */
static xrt_status xrt__cpu_stream_begin_capture_to_graph(const xrt_backend *self, void *stream, void *graph,
                                                         void *const *deps, size_t ndeps, unsigned mode)
{
    const char *who = "cpu: xrt_stream_begin_capture_to_graph";
    xrt__cpu_graph *g = (xrt__cpu_graph *)graph;
    uint32_t few[8], *v = few;
    xrt_status st;
    (void)self;
    if (g->mem)
        return xrt_error(XRT_ERROR_UNSUPPORTED, who,
                         "the graph has memory nodes (allocation or free), and the CPU backend does not capture "
                         "into such a graph");
    if ((st = xrt__cpu_node_deps(deps, ndeps, few, &v, who)) == XRT_SUCCESS)
        st = xrt__cpu_cap_begin((xrt__cpu_stream *)stream, mode, g, v, (uint32_t)ndeps, who);
    if (v != few) XRT_FREE(v);
    return st;
}

/* Nodes the origin's frontier reaches (itself included), marked 1; stack:
   room for g->n. Edges added by hand may lead to later nodes. */
static void xrt__cpu_cap_reach(const xrt__cpu_graph *g, const xrt__cpu_stream *origin, unsigned char *mark,
                               uint32_t *stack)
{
    uint32_t i, k, top = 0;
    for (i = 0; i < origin->nfront; i++)
        if (!mark[origin->front[i]]) mark[stack[top++] = origin->front[i]] = 1;
    while (top) {
        const xrt__cpu_node *nd = &g->node[stack[--top]];
        for (k = 0; k < nd->ndeps; k++)
            if (!mark[g->dep[nd->deps + k]]) mark[stack[top++] = g->dep[nd->deps + k]] = 1;
    }
}

/* The first stream of the capture whose work the origin did not join, by
   name; "" where it was destroyed; 0 if every node is joined. */
static int xrt__cpu_cap_unjoined_locked(xrt__cpu_capture *c, char *name, size_t n)
{
    xrt__cpu_stream *s;
    unsigned char *mark;
    uint32_t i;
    int left = 0;
    if (c->g.n == c->base) return 0;
    /* the marks, then (aligned) the stack */
    if (!(mark = (unsigned char *)XRT_CALLOC((size_t)c->g.n * (1 + sizeof(uint32_t)) + sizeof(uint32_t), 1)))
        return 0; /* no memory to check: let it pass */
    xrt__cpu_cap_reach(&c->g, c->origin, mark, (uint32_t *)(void *)(mark + (c->g.n + 3u) / 4u * 4u));
    for (i = c->base; i < c->g.n && !left; i++) left = !mark[i] && !c->g.node[i].loose; /* the target's own nodes need no join */
    if (left) {
        snprintf(name, n, "a stream destroyed during the capture");
        pthread_mutex_lock(&xrt__cpu_list_lock);
        for (s = xrt__cpu.list.next; s != &xrt__cpu.list; s = s->next)
            if (s->cap == c && s != c->origin)
                for (i = 0; i < s->nfront; i++)
                    if (!mark[s->front[i]]) snprintf(name, n, "%s", s->cap_name);
        pthread_mutex_unlock(&xrt__cpu_list_lock);
    }
    XRT_FREE(mark);
    return left;
}

/* The nodes captured into a graph (from's, from base on) go to its end;
   its own nodes stay as they are, as handles taken of them (a child's
   graph, a kernel's arguments) name them. from's nodes below base are
   copies of to's, at the same indices (nothing is added to a graph being
   captured into: the dispatch layer refuses it), so the captured nodes'
   dependencies name the same nodes in to. 0 without memory: to as it was. */
static int xrt__cpu_cap_append(xrt__cpu_graph *to, xrt__cpu_graph *from, uint32_t base)
{
    uint32_t i, k, ndep = 0;
    for (i = base; i < from->n; i++) ndep += from->node[i].ndeps;
    if (from->n > to->cap) {
        xrt__cpu_node *v = (xrt__cpu_node *)XRT_REALLOC(to->node, from->n * sizeof *v);
        if (!v) return 0;
        xrt__cpu_nodes_own(to->node, v, 1);
        to->node = v;
        to->cap = from->n;
    }
    if (to->ndep + ndep > to->depcap) {
        uint32_t *v = (uint32_t *)XRT_REALLOC(to->dep, (to->ndep + ndep) * sizeof *v);
        if (!v) return 0;
        to->dep = v;
        to->depcap = to->ndep + ndep;
    }
    for (i = base; i < from->n; i++) {
        to->node[i] = from->node[i];
        to->node[i].deps = to->ndep;
        for (k = 0; k < from->node[i].ndeps; k++) to->dep[to->ndep++] = from->dep[from->node[i].deps + k];
    }
    to->n = from->n;
    from->n = base;   /* what the captured nodes hold is to's now */
    to->mem = from->mem; /* the capture's allocations (to had none: xrt__cpu_stream_begin_capture_to_graph) */
    from->mem = NULL;
    return 1;
}

/* Ends capture c: every member stream leaves it, the graph goes to *g
   (NULL: dropped). Under the lock; what the capture's graph keeps goes to
   *drop, for the caller to clear once the lock is let go: an event node's
   reference may be its event's last, whose release takes the lock. */
static void xrt__cpu_cap_end_locked(xrt__cpu_capture *c, xrt__cpu_graph **g, xrt__cpu_graph *drop)
{
    xrt__cpu_capture **p;
    xrt__cpu_stream *s;
    for (p = &xrt__cpu_caps; *p != c; p = &(*p)->next) {
    }
    *p = c->next;
    __atomic_sub_fetch(&xrt__cpu_ncaps, 1, __ATOMIC_RELEASE);
    pthread_mutex_lock(&xrt__cpu_list_lock);
    for (s = xrt__cpu.list.next; s != &xrt__cpu.list; s = s->next)
        if (s->cap == c) {
            __atomic_store_n(&s->cap, NULL, __ATOMIC_RELEASE);
            s->nfront = 0;
            c->refs--;
        }
    pthread_mutex_unlock(&xrt__cpu_list_lock);
    c->origin = NULL;
    if (g && c->target) {
        *g = xrt__cpu_cap_append(c->target, &c->g, c->base) ? c->target : NULL;
    } else if (g && (*g = (xrt__cpu_graph *)XRT_MALLOC(sizeof **g)) != NULL) {
        **g = c->g;
        (*g)->capturing = 0;
        memset(&c->g, 0, sizeof c->g);
    }
    *drop = c->g; /* a graph dropped lets its modules go now, not with the last event */
    memset(&c->g, 0, sizeof c->g);
    c->refs++; /* freed below if nothing else holds it */
    xrt__cpu_cap_unref_locked(c);
}

static xrt_status xrt__cpu_stream_end_capture(const xrt_backend *self, void *stream, void **graph)
{
    const char *who = "cpu: xrt_stream_end_capture";
    xrt__cpu_stream *s = (xrt__cpu_stream *)stream;
    xrt__cpu_capture *c;
    xrt__cpu_graph *g = NULL, drop;
    char name[64], other[80];
    xrt_status st = XRT_SUCCESS;
    memset(&drop, 0, sizeof drop);
    xrt__cpu_stream_name(s, name, sizeof name);
    pthread_mutex_lock(&xrt__cpu_cap_lock);
    if (!(c = s->cap)) {
        xrt__cpu_cap_unlock();
        return xrt_error(XRT_ERROR_ILLEGAL_STATE, who, "%s is not capturing", name);
    }
    if (c->origin != s) {
        st = xrt__cpu_cap_fail_locked(c, XRT_ERROR_STREAM_CAPTURE_UNMATCHED, who,
                                      "%s joined a capture begun on %s: end it there; the capture is invalidated",
                                      name, c->origin->cap_name);
    } else if (c->mode != XRT_CAPTURE_MODE_RELAXED && !pthread_equal(c->thread, pthread_self())) {
        st = xrt__cpu_cap_note(XRT_ERROR_STREAM_CAPTURE_WRONG_THREAD, who,
                       "the capture of %s was begun by another thread in %s mode: end it there, or begin it with "
                       "XRT_CAPTURE_MODE_RELAXED", name, c->mode == XRT_CAPTURE_MODE_GLOBAL ? "GLOBAL" : "THREAD_LOCAL");
    } else if (c->invalid != XRT_SUCCESS) {
        st = xrt__cpu_cap_note(XRT_ERROR_STREAM_CAPTURE_INVALIDATED, who, "the capture of %s was invalidated by %s", name,
                       c->why);
        xrt__cpu_cap_end_locked(c, NULL, &drop);
    } else if (xrt__cpu_cap_unjoined_locked(c, other, sizeof other)) {
        st = xrt__cpu_cap_note(XRT_ERROR_STREAM_CAPTURE_UNJOINED, who,
                       "work captured on %s was not joined back into %s (record an event there and make %s wait "
                       "for it before the end)", other, name, name);
        xrt__cpu_cap_end_locked(c, NULL, &drop);
    } else {
        xrt__cpu_cap_end_locked(c, &g, &drop);
        if (!g) st = xrt__cpu_cap_note(XRT_ERROR_OUT_OF_MEMORY, who, "no memory for the graph");
        else xrt__cpu_gmem_leave(g->mem);
    }
    xrt__cpu_cap_unlock();
    xrt__cpu_graph_clear(&drop);
    *graph = g;
    return st;
}

/* A stream destroyed while capturing leaves its capture; the origin's
   destruction ends it (the graph is dropped). */
static void xrt__cpu_cap_stream_gone(xrt__cpu_stream *s)
{
    xrt__cpu_graph drop;
    memset(&drop, 0, sizeof drop);
    pthread_mutex_lock(&xrt__cpu_cap_lock);
    if (s->cap && s->cap->origin == s) xrt__cpu_cap_end_locked(s->cap, NULL, &drop);
    else if (s->cap) xrt__cpu_cap_leave_locked(s);
    xrt__cpu_cap_unlock();
    xrt__cpu_graph_clear(&drop);
}

/* The NULL stream never captures; while a blocking stream of its device
   does, the question is refused as its work would be (HIP's
   hipStreamIsCapturing: hipErrorStreamCaptureImplicit), the capture left
   as it was. *id: the capture's, where there is one. */
static xrt_status xrt__cpu_capture_info(void *stream, unsigned *status, unsigned long long *id, const char *who)
{
    xrt__cpu_stream *s = xrt__cpu_stream_of(stream), *b = NULL;
    xrt__cpu_legacy *l = &xrt__cpu.legacy[s->device];
    pthread_mutex_lock(&xrt__cpu_cap_lock);
    *status = !s->cap ? XRT_CAPTURE_STATUS_NONE
              : s->cap->invalid != XRT_SUCCESS ? XRT_CAPTURE_STATUS_INVALIDATED
                                               : XRT_CAPTURE_STATUS_ACTIVE;
    *id = s->cap ? s->cap->id : 0;
    if (s->order == XRT__CPU_LEGACY) {
        xrt__cpu_lock(&l->lock);
        for (b = l->blocking; b && !b->cap; b = b->bnext) {
        }
        if (b)
            xrt__cpu_cap_note(XRT_ERROR_STREAM_CAPTURE_IMPLICIT, who,
                              "the NULL stream's work would wait for %s, a blocking stream that is capturing",
                              b->cap_name);
        xrt__cpu_unlock(&l->lock);
    }
    xrt__cpu_cap_unlock();
    return s->order == XRT__CPU_LEGACY && b ? XRT_ERROR_STREAM_CAPTURE_IMPLICIT : XRT_SUCCESS;
}

static xrt_status xrt__cpu_stream_is_capturing(const xrt_backend *self, void *stream, unsigned *status)
{
    unsigned long long id;
    (void)self;
    return xrt__cpu_capture_info(stream, status, &id, "cpu: xrt_stream_is_capturing");
}

static xrt_status xrt__cpu_stream_get_capture_info(const xrt_backend *self, void *stream, unsigned *status,
                                                   unsigned long long *id)
{
    (void)self;
    return xrt__cpu_capture_info(stream, status, id, "cpu: xrt_stream_get_capture_info");
}

/* A capture's graph, and the nodes a stream's next work follows (">> cpu:
   graphs": the capture's own graph, which graph calls take while it lasts). */
static xrt_status xrt__cpu_stream_get_capture_info_v2(const xrt_backend *self, void *stream, unsigned *status,
                                                    unsigned long long *id, void **graph, void **deps, size_t cap,
                                                    size_t *ndeps)
{
    xrt__cpu_stream *s = xrt__cpu_stream_of(stream);
    xrt_status st;
    uint32_t i;
    (void)self;
    if ((st = xrt__cpu_capture_info(stream, status, id, "cpu: xrt_stream_get_capture_info_v2")) != XRT_SUCCESS ||
        *status != XRT_CAPTURE_STATUS_ACTIVE)
        return st;
    pthread_mutex_lock(&xrt__cpu_cap_lock);
    if (s->cap && s->cap->invalid == XRT_SUCCESS) {
        *graph = &s->cap->g;
        *ndeps = s->nfront;
        for (i = 0; i < s->nfront && i < cap; i++) deps[i] = XRT__CPU_NODE_OBJ(s->front[i]);
    } else { /* it ended, or failed, meanwhile */
        *status = s->cap ? XRT_CAPTURE_STATUS_INVALIDATED : XRT_CAPTURE_STATUS_NONE;
    }
    pthread_mutex_unlock(&xrt__cpu_cap_lock);
    return XRT_SUCCESS;
}

/* The nodes a set takes out are loose: the end does not ask that they be joined. */
static xrt_status xrt__cpu_stream_update_capture_dependencies(const xrt_backend *self, void *stream, void *const *deps,
                                                              size_t ndeps, unsigned flags)
{
    const char *who = "cpu: xrt_stream_update_capture_dependencies";
    xrt__cpu_stream *s = xrt__cpu_stream_of(stream);
    uint32_t i, k, *was = NULL, nwas = 0, wascap = 0;
    int ok = 1;
    (void)self;
    pthread_mutex_lock(&xrt__cpu_cap_lock);
    if (!s->cap || s->cap->invalid != XRT_SUCCESS) { /* it ended, or failed, since the dispatch layer asked */
        xrt__cpu_cap_note(s->cap ? XRT_ERROR_STREAM_CAPTURE_INVALIDATED : XRT_ERROR_ILLEGAL_STATE, who,
                          "the stream's capture %s", s->cap ? "was invalidated" : "has ended");
        xrt__cpu_cap_unlock();
        return s->cap ? XRT_ERROR_STREAM_CAPTURE_INVALIDATED : XRT_ERROR_ILLEGAL_STATE;
    }
    if (flags == XRT_STREAM_SET_CAPTURE_DEPENDENCIES) {
        ok = xrt__cpu_front_copy(&was, &nwas, &wascap, s->front, s->nfront);
        s->nfront = 0; /* the set takes their place */
    }
    for (i = 0; ok && i < ndeps; i++) ok = xrt__cpu_front_add(&s->front, &s->nfront, &s->frontcap, XRT__CPU_NODE_AT(deps[i]));
    for (i = 0; ok && i < nwas; i++) { /* taken out */
        for (k = 0; k < s->nfront && s->front[k] != was[i]; k++) {}
        if (k == s->nfront) s->cap->g.node[was[i]].loose = 1;
    }
    if (!ok) xrt__cpu_cap_fail_locked(s->cap, XRT_ERROR_OUT_OF_MEMORY, who, "no memory for the stream's dependencies");
    xrt__cpu_cap_unlock();
    XRT_FREE(was);
    return ok ? XRT_SUCCESS : XRT_ERROR_OUT_OF_MEMORY;
}

static xrt_status xrt__cpu_graph_destroy(const xrt_backend *self, void *graph)
{
    xrt__cpu_graph_clear((xrt__cpu_graph *)graph);
    XRT_FREE(graph);
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_graph_get_info(const xrt_backend *self, void *graph, xrt_graph_info *info)
{
    const xrt__cpu_graph *g = (const xrt__cpu_graph *)graph;
    uint32_t i;
    for (i = 0; i < g->n; i++) {
        int k = g->node[i].kind;
        info->nodes += k != XRT__CPU_NODE_DEAD;
        info->edges += g->node[i].ndeps;
        info->kernels += k == XRT__CPU_NODE_KERNEL;
        info->copies += k == XRT__CPU_NODE_COPY;
        info->sets += k == XRT__CPU_NODE_SET;
        info->host_fns += k == XRT__CPU_NODE_HOST;
    }
    return XRT_SUCCESS;
}

/* An instantiated graph. A launch holds a reference to the plan it runs, so
   an update (a new plan) or a destroy leaves launches already enqueued as
   they were. Only one launch of an exec runs at a time (xrt__cpu_graph_launch
   orders them), so the run state lives here. */
typedef struct xrt__cpu_plan {
    int refs;
    int parallel;           /* branches over the pool */
    int host;               /* it runs host functions (in a child graph too) */
    xrt__cpu_graph g;       /* own copies of the nodes */
    uint64_t src;           /* the id of the graph it was made from (0: none) */
    /* Its event nodes (child graphs' too): a launch waits for waits[0 ..
       nwait) before the graph and records records[0 .. nrecord) after it. */
    xrt__cpu_event **waits, **records;
    uint32_t nwait, nrecord;
    uint32_t *pos, npos;    /* where node i of that graph is in g (UINT32_MAX: nowhere) */
    uint32_t *succ, *succ_at; /* successors of node i: succ[succ_at[i] .. succ_at[i + 1]) */
    uint32_t *indeg, *pending, *ready;
    int lock __attribute__((aligned(64)));  /* guards rhead, rtail */
    uint32_t rhead, rtail;
    uint32_t done __attribute__((aligned(64)));
} xrt__cpu_plan;

typedef struct xrt__cpu_exec {
    int lock;
    xrt__cpu_plan *plan;
    xrt__cpu_stream *last; /* the stream of the latest launch (a reference), and its position */
    uint64_t last_pos;
    int auto_free; /* XRT_GRAPH_INSTANTIATE_AUTO_FREE_ON_LAUNCH */
} xrt__cpu_exec;

static void xrt__cpu_plan_unref(xrt__cpu_plan *p)
{
    if (__atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL)) return;
    xrt__cpu_graph_clear(&p->g);
    XRT_FREE(p->pos);
    XRT_FREE(p->waits); /* and records, in the same block */
    XRT_FREE(p->succ);
    XRT_FREE(p->succ_at);
    XRT_FREE(p->indeg);
    XRT_FREE(p->pending);
    XRT_FREE(p->ready);
    XRT_FREE(p);
}

/* Bytes of a launch record (xrt__cpu_launch_kernel lays them out). */
static size_t xrt__cpu_launch_bytes(const xrt__cpu_launch *l)
{
    return (size_t)(l->shared_base - (const unsigned char *)l) + l->parts * l->stride;
}

static xrt__cpu_launch *xrt__cpu_launch_clone(const xrt__cpu_launch *l)
{
    size_t bytes = xrt__cpu_launch_bytes(l);
    xrt__cpu_launch *c = (xrt__cpu_launch *)XRT_ALIGNED_ALLOC(64, (bytes + 63) & ~(size_t)63);
    if (!c) return NULL;
    memcpy(c, l, bytes);
    if (!xrt__cpu_kattrs_dup(&c->attrs, l->attrs)) {
        XRT_FREE(c);
        return NULL;
    }
    c->spare_of = NULL;
    c->args = (unsigned char *)c + (l->args - (const unsigned char *)l);
    c->shared_base = (unsigned char *)c + (l->shared_base - (const unsigned char *)l);
    __atomic_add_fetch(&c->module->refs, 1, __ATOMIC_ACQ_REL);
    return c;
}

/* A copy of a graph holds its memory too (">> cpu: graphs"). */
static void xrt__cpu_graph_share_mem(xrt__cpu_graph *to, const xrt__cpu_graph *from)
{
    if ((to->mem = from->mem) != NULL) __atomic_add_fetch(&to->mem->refs, 1, __ATOMIC_RELAXED);
}

/* A node's child graph, in a graph or in a plan's graph. */
static const xrt__cpu_graph *xrt__cpu_child_of(const xrt__cpu_graph *g, const xrt__cpu_node *nd)
{
    return g->planned ? &((const xrt__cpu_plan *)nd->op.u.host.user)->g : (const xrt__cpu_graph *)nd->op.u.host.user;
}

static xrt__cpu_graph *xrt__cpu_graph_dup(const xrt__cpu_graph *from);

/* nd, copied from graph `from` into a graph (planned: a plan's): a kernel's
   record cloned, holding its module; a child's graph or plan made again.
   0 without memory (nd holds nothing then). */
static int xrt__cpu_node_copy(xrt__cpu_node *nd, const xrt__cpu_graph *from, const xrt__cpu_node *src, int planned)
{
    *nd = *src;
    if (src->kind == XRT__CPU_NODE_KERNEL)
        nd->op.u.host.user = xrt__cpu_launch_clone((const xrt__cpu_launch *)src->op.u.host.user);
    else if (src->kind == XRT__CPU_NODE_CHILD) /* its own copy: its run state and launch records */
        nd->op.u.host.user = planned ? (void *)xrt__cpu_plan_new(xrt__cpu_child_of(from, src))
                                     : (void *)xrt__cpu_graph_dup(xrt__cpu_child_of(from, src));
    else if (src->kind == XRT__CPU_NODE_RECORD || src->kind == XRT__CPU_NODE_WAIT)
        return __atomic_add_fetch(&src->op.u.record.event->refs, 1, __ATOMIC_RELAXED) > 0;
    else
        return 1;
    return nd->op.u.host.user != NULL;
}

/* A copy of a graph as it is (nodes keep their indices): a clone, a captured
   child graph. NULL without memory. */
static xrt__cpu_graph *xrt__cpu_graph_dup(const xrt__cpu_graph *from)
{
    xrt__cpu_graph *to = (xrt__cpu_graph *)XRT_CALLOC(1, sizeof *to);
    uint32_t i;
    if (!to) return NULL;
    to->node = (xrt__cpu_node *)XRT_MALLOC((from->n ? from->n : 1) * sizeof *to->node);
    xrt__cpu_nodes_own(NULL, to->node, 1);
    to->dep = (uint32_t *)XRT_MALLOC((from->ndep ? from->ndep : 1) * sizeof *to->dep);
    if (!to->node || !to->dep) {
        xrt__cpu_graph_free(to);
        return NULL;
    }
    if (from->ndep) memcpy(to->dep, from->dep, from->ndep * sizeof *to->dep);
    to->ndep = to->depcap = from->ndep;
    to->cap = from->n;
    for (i = 0; i < from->n && xrt__cpu_node_copy(&to->node[i], from, &from->node[i], 0); i++) to->n = i + 1;
    if (to->n != from->n || !xrt__cpu_graph_share_urefs(to, from)) {
        xrt__cpu_graph_free(to);
        return NULL;
    }
    xrt__cpu_graph_share_mem(to, from);
    to->device = from->device;
    return to;
}

/* Sifts ready node v into the min-heap h of n entries. */
static void xrt__cpu_heap_push(uint32_t *h, uint32_t n, uint32_t v)
{
    while (n && h[(n - 1) / 2] > v) {
        h[n] = h[(n - 1) / 2];
        n = (n - 1) / 2;
    }
    h[n] = v;
}

static uint32_t xrt__cpu_heap_pop(uint32_t *h, uint32_t n)
{
    uint32_t top = h[0], v = h[n - 1], i = 0, c;
    for (n--; (c = 2 * i + 1) < n; i = c) {
        if (c + 1 < n && h[c + 1] < h[c]) c++;
        if (v <= h[c]) break;
        h[i] = h[c];
    }
    if (n) h[i] = v;
    return top;
}

/* The live nodes of g in topological order, the smallest index first among
   those ready (so a graph already in order, a captured one, keeps it), into
   order[] (room for g->n); their count, UINT32_MAX without memory or where a
   cycle leaves some unordered. */
static uint32_t xrt__cpu_graph_order(const xrt__cpu_graph *g, uint32_t *order)
{
    uint32_t i, k, n = g->n, done = 0, live = 0, ready = 0, *indeg, *at, *succ, *heap;
    int sorted = 1;
    for (i = 0; i < n; i++)
        for (k = 0; k < g->node[i].ndeps; k++) sorted &= g->dep[g->node[i].deps + k] < i;
    for (i = 0; i < n; i++) sorted &= g->node[i].kind != XRT__CPU_NODE_DEAD;
    if (sorted) {
        for (i = 0; i < n; i++) order[i] = i;
        return n;
    }
    indeg = (uint32_t *)XRT_CALLOC(4 * (size_t)n + 1 + g->ndep, sizeof *indeg);
    if (!indeg) return UINT32_MAX;
    at = indeg + n;          /* successors of i: succ[at[i] .. at[i + 1]) */
    heap = at + n + 1;
    succ = heap + n;         /* g->ndep entries, and n spare as fill positions */
    for (i = 0; i < n; i++)
        for (k = 0; k < g->node[i].ndeps; k++) at[g->dep[g->node[i].deps + k] + 1]++;
    for (i = 0; i < n; i++) at[i + 1] += at[i];
    memcpy(succ + g->ndep, at, n * sizeof *at);
    for (i = 0; i < n; i++)
        for (k = 0; k < g->node[i].ndeps; k++) {
            uint32_t d = g->dep[g->node[i].deps + k];
            succ[succ[g->ndep + d]++] = i;
        }
    for (i = 0; i < n; i++) {
        indeg[i] = g->node[i].ndeps;
        if (g->node[i].kind == XRT__CPU_NODE_DEAD) continue;
        live++;
        if (!indeg[i]) xrt__cpu_heap_push(heap, ready++, i);
    }
    while (ready) {
        uint32_t d = order[done++] = xrt__cpu_heap_pop(heap, ready--);
        for (k = at[d]; k < at[d + 1]; k++)
            if (--indeg[succ[k]] == 0) xrt__cpu_heap_push(heap, ready++, succ[k]);
    }
    XRT_FREE(indeg);
    return done == live ? done : UINT32_MAX;
}

/* A plan's graph: g's live nodes in topological order, compact (dep holds
   each node's run, in order); pos[i]: where g's node i went. 0 without memory. */
static int xrt__cpu_graph_copy(xrt__cpu_graph *to, const xrt__cpu_graph *from, uint32_t *pos)
{
    uint32_t i, k, n, *order = (uint32_t *)XRT_MALLOC((from->n ? from->n : 1) * sizeof *order);
    memset(to, 0, sizeof *to);
    to->planned = 1;
    to->device = from->device;
    to->node = (xrt__cpu_node *)XRT_MALLOC((from->n ? from->n : 1) * sizeof *to->node);
    xrt__cpu_nodes_own(NULL, to->node, 1);
    to->dep = (uint32_t *)XRT_MALLOC((from->ndep ? from->ndep : 1) * sizeof *to->dep);
    if (!order || !to->node || !to->dep || (n = xrt__cpu_graph_order(from, order)) == UINT32_MAX) {
        XRT_FREE(order);
        xrt__cpu_graph_clear(to);
        return 0;
    }
    for (i = 0; i < from->n; i++) pos[i] = UINT32_MAX;
    for (i = 0; i < n; i++) pos[order[i]] = i;
    to->cap = n;
    for (i = 0; i < n; i++) {
        const xrt__cpu_node *src = &from->node[order[i]];
        if (!xrt__cpu_node_copy(&to->node[i], from, src, 1)) break;
        to->node[i].deps = to->ndep;
        for (k = 0; k < src->ndeps; k++) to->dep[to->ndep++] = pos[from->dep[src->deps + k]];
        to->n = i + 1;
    }
    to->depcap = from->ndep;
    XRT_FREE(order);
    if (to->n == n && xrt__cpu_graph_share_urefs(to, from)) {
        xrt__cpu_graph_share_mem(to, from);
        return 1;
    }
    xrt__cpu_graph_clear(to);
    return 0;
}

/* The plan's event nodes, and its child plans', into waits and records
   (the nodes hold the events). 0 without memory. */
static int xrt__cpu_plan_events(xrt__cpu_plan *p)
{
    const xrt__cpu_graph *g = &p->g;
    uint32_t i, k, w = 0, r = 0;
    for (i = 0; i < g->n; i++) {
        const xrt__cpu_plan *c = g->node[i].kind == XRT__CPU_NODE_CHILD ? (const xrt__cpu_plan *)g->node[i].op.u.host.user : NULL;
        w += c ? c->nwait : g->node[i].kind == XRT__CPU_NODE_WAIT;
        r += c ? c->nrecord : g->node[i].kind == XRT__CPU_NODE_RECORD;
    }
    if (!w && !r) return 1;
    if (!(p->waits = (xrt__cpu_event **)XRT_MALLOC((w + r) * sizeof *p->waits))) return 0;
    p->records = p->waits + w;
    for (i = 0; i < g->n; i++) {
        const xrt__cpu_node *nd = &g->node[i];
        const xrt__cpu_plan *c = nd->kind == XRT__CPU_NODE_CHILD ? (const xrt__cpu_plan *)nd->op.u.host.user : NULL;
        for (k = 0; c && k < c->nwait; k++) p->waits[p->nwait++] = c->waits[k];
        for (k = 0; c && k < c->nrecord; k++) p->records[p->nrecord++] = c->records[k];
        if (nd->kind == XRT__CPU_NODE_WAIT) p->waits[p->nwait++] = nd->op.u.record.event;
        if (nd->kind == XRT__CPU_NODE_RECORD) p->records[p->nrecord++] = nd->op.u.record.event;
    }
    return 1;
}

/* Successor lists, in-degrees, and whether branches may run in parallel:
   some node has other than one predecessor, or two nodes share one (not a
   chain), and no host function (those run on the launching thread, in
   order, under the rules of host functions). */
static int xrt__cpu_plan_index(xrt__cpu_plan *p)
{
    const xrt__cpu_graph *g = &p->g;
    uint32_t i, k, n = g->n, roots = 0, host = 0, chain = 1;
    p->succ_at = (uint32_t *)XRT_CALLOC(n + 1, sizeof *p->succ_at);
    p->succ = (uint32_t *)XRT_MALLOC((g->ndep ? g->ndep : 1) * sizeof *p->succ);
    p->indeg = (uint32_t *)XRT_MALLOC((n ? n : 1) * sizeof *p->indeg);
    p->pending = (uint32_t *)XRT_MALLOC((n ? n : 1) * sizeof *p->pending);
    p->ready = (uint32_t *)XRT_MALLOC((n ? n : 1) * sizeof *p->ready);
    if (!p->succ_at || !p->succ || !p->indeg || !p->pending || !p->ready) return 0;
    for (i = 0; i < g->ndep; i++) p->succ_at[g->dep[i] + 1]++;
    for (i = 0; i < n; i++) {
        p->succ_at[i + 1] += p->succ_at[i];
        p->indeg[i] = g->node[i].ndeps;
        roots += !g->node[i].ndeps;
        host |= g->node[i].kind == XRT__CPU_NODE_HOST ||
                (g->node[i].kind == XRT__CPU_NODE_CHILD && ((const xrt__cpu_plan *)g->node[i].op.u.host.user)->host);
        chain &= g->node[i].ndeps == (i ? 1u : 0u) && (!i || g->dep[g->node[i].deps] == i - 1);
    }
    memcpy(p->pending, p->succ_at, n * sizeof *p->pending); /* fill positions */
    for (i = 0; i < n; i++)
        for (k = 0; k < g->node[i].ndeps; k++) {
            uint32_t d = g->dep[g->node[i].deps + k];
            p->succ[p->pending[d]++] = i;
        }
    p->host = (int)host;
    p->parallel = !chain && !host && roots >= 1 && xrt__cpu_pool_width() > 1;
    return xrt__cpu_plan_events(p);
}

/* >> cpu: a graph as Graphviz (DOT) text: a node per line, labelled with its
   index and kind (verbose: its operands), then an edge per dependency. */
static void xrt__cpu_dot_operands(FILE *f, const xrt__cpu_node *n)
{
    const xrt__cpu_op *op = &n->op;
    if (n->kind == XRT__CPU_NODE_KERNEL) {
        const xrt__cpu_launch *l = (const xrt__cpu_launch *)op->u.host.user;
        Dl_info info;
        const char *name = dladdr((void *)(uintptr_t)l->kernel, &info) && info.dli_sname ? info.dli_sname : "?";
        fprintf(f, "\\n%s grid (%u, %u, %u) block (%u, %u, %u) shared %zu", name, l->grid.x, l->grid.y, l->grid.z,
                l->block.x, l->block.y, l->block.z, l->shared);
    } else if (n->kind == XRT__CPU_NODE_COPY && n->rect.depth > 1) {
        fprintf(f, "\\n%zu x %zu x %zu bytes from %p (pitch %zu, slice %zu) to %p (pitch %zu, slice %zu)",
                n->rect.width, n->rect.height, n->rect.depth, op->u.copy.src, n->rect.spitch, n->rect.sslice,
                op->u.copy.dst, n->rect.dpitch, n->rect.dslice);
    } else if (n->kind == XRT__CPU_NODE_COPY && n->rect.height) {
        fprintf(f, "\\n%zu x %zu bytes from %p (pitch %zu) to %p (pitch %zu)", n->rect.width, n->rect.height,
                op->u.copy.src, n->rect.spitch, op->u.copy.dst, n->rect.dpitch);
    } else if (n->kind == XRT__CPU_NODE_COPY) {
        fprintf(f, "\\n%zu bytes from %p to %p", op->u.copy.size, op->u.copy.src, op->u.copy.dst);
    } else if (n->kind == XRT__CPU_NODE_SET) {
        fprintf(f, "\\n%zu bytes of 0x%02x at %p", op->u.set.size, (unsigned)op->u.set.value & 0xffu, op->u.set.dst);
    } else if (n->kind == XRT__CPU_NODE_HOST) {
        fprintf(f, "\\nuser %p", op->u.host.user);
    } else if (n->kind == XRT__CPU_NODE_CHILD) {
        fprintf(f, "\\n%u nodes", ((const xrt__cpu_graph *)op->u.host.user)->n);
    } else if (n->kind == XRT__CPU_NODE_RECORD || n->kind == XRT__CPU_NODE_WAIT) {
        fprintf(f, "\\nevent %p", (void *)op->u.record.event);
    } else if (n->kind != XRT__CPU_NODE_EMPTY) {
        fprintf(f, "\\n%p", op->u.release.ptr);
    }
}

static xrt_status xrt__cpu_graph_debug_dot_print(const xrt_backend *self, void *graph, const char *path, unsigned flags)
{
    static const char *const names[] = {"kernel", "memcpy", "memset", "host function", "allocation", "free",
                                        "child graph", "empty", "event record", "event wait"};
    const xrt__cpu_graph *g = (const xrt__cpu_graph *)graph;
    FILE *f = fopen(path, "we");
    uint32_t i, d;
    int failed;
    if (!f)
        return xrt_error(XRT_ERROR_INVALID_VALUE, "cpu: xrt_graph_debug_dot_print", "cannot open %s: %s", path,
                         strerror(errno));
    fprintf(f, "digraph xrt_graph {\n");
    for (i = 0; i < g->n; i++) {
        if (g->node[i].kind == XRT__CPU_NODE_DEAD) continue;
        fprintf(f, "  n%u [label=\"%u: %s", i, i, names[g->node[i].kind]);
        if (flags & XRT_GRAPH_DEBUG_DOT_VERBOSE) xrt__cpu_dot_operands(f, &g->node[i]);
        fprintf(f, "\"];\n");
    }
    for (i = 0; i < g->n; i++)
        for (d = 0; d < g->node[i].ndeps; d++) fprintf(f, "  n%u -> n%u;\n", g->dep[g->node[i].deps + d], i);
    fprintf(f, "}\n");
    failed = ferror(f);
    if (fclose(f) != 0 || failed)
        return xrt_error(XRT_ERROR_INVALID_VALUE, "cpu: xrt_graph_debug_dot_print", "cannot write %s: %s", path,
                         strerror(errno));
    return XRT_SUCCESS;
}

static uint64_t xrt__cpu_graph_ids; /* the last id given */

static uint64_t xrt__cpu_graph_id(xrt__cpu_graph *g)
{
    if (!g->id) g->id = __atomic_add_fetch(&xrt__cpu_graph_ids, 1, __ATOMIC_RELAXED);
    return g->id;
}

/* The plan of graph g (not const: it gets an id for the plan's source). */
static xrt__cpu_plan *xrt__cpu_plan_new(const xrt__cpu_graph *g)
{
    xrt__cpu_plan *p = (xrt__cpu_plan *)XRT_ALIGNED_ALLOC(64, sizeof *p);
    if (!p) return NULL;
    memset(p, 0, sizeof *p);
    p->refs = 1;
    p->npos = g->n;
    if (!(p->pos = (uint32_t *)XRT_MALLOC((g->n ? g->n : 1) * sizeof *p->pos)) || !xrt__cpu_graph_copy(&p->g, g, p->pos)) {
        XRT_FREE(p->pos);
        XRT_FREE(p);
        return NULL;
    }
    if (!xrt__cpu_plan_index(p)) {
        xrt__cpu_plan_unref(p);
        return NULL;
    }
    return p;
}

static void xrt__cpu_node_run(xrt__cpu_node *nd)
{
    if (nd->off) return;
    if (nd->kind == XRT__CPU_NODE_KERNEL) {
        xrt__cpu_launch *l = (xrt__cpu_launch *)nd->op.u.host.user;
        xrt__cpu_pool_run(xrt__cpu_kernel_part, l, l->parts);
    } else {
        nd->op.run(&nd->op);
    }
}

static void xrt__cpu_plan_ready(xrt__cpu_plan *p, uint32_t id)
{
    xrt__cpu_lock(&p->lock);
    p->ready[p->rtail++] = id;
    xrt__cpu_unlock(&p->lock);
}

/* Runs node id, then returns a successor it made ready for the caller to run
   next (UINT32_MAX: none), queueing the others: a thread follows its branch
   while it can, so a branch's data stays in one core's caches. */
static uint32_t xrt__cpu_plan_step(xrt__cpu_plan *p, uint32_t id)
{
    uint32_t k, next = UINT32_MAX;
    xrt__cpu_node_run(&p->g.node[id]);
    for (k = p->succ_at[id]; k < p->succ_at[id + 1]; k++)
        if (__atomic_sub_fetch(&p->pending[p->succ[k]], 1, __ATOMIC_ACQ_REL) == 0) {
            if (next == UINT32_MAX) next = p->succ[k];
            else xrt__cpu_plan_ready(p, p->succ[k]);
        }
    __atomic_add_fetch(&p->done, 1, __ATOMIC_RELEASE);
    return next;
}

/* One part of a parallel run: takes ready nodes until every node is done. */
static void xrt__cpu_plan_part(void *ctx, size_t part, size_t nparts)
{
    xrt__cpu_plan *p = (xrt__cpu_plan *)ctx;
    unsigned idle = 0;
    (void)part;
    (void)nparts;
    for (;;) {
        uint32_t id = UINT32_MAX;
        xrt__cpu_lock(&p->lock);
        if (p->rhead < p->rtail) id = p->ready[p->rhead++];
        xrt__cpu_unlock(&p->lock);
        if (id == UINT32_MAX) {
            if (__atomic_load_n(&p->done, __ATOMIC_ACQUIRE) == p->g.n) return;
            /* the nodes left run elsewhere: give the core to them where it is shared */
            if (++idle % 64) xrt__cpu_pause();
            else sched_yield();
            continue;
        }
        idle = 0;
        while (id != UINT32_MAX) id = xrt__cpu_plan_step(p, id);
    }
}

/* One run of a plan; the caller makes sure that no other runs it meanwhile
   (an exec's launches are ordered; a child graph's plan is its node's). */
static void xrt__cpu_plan_run(xrt__cpu_plan *p)
{
    uint32_t i;
    if (p->parallel) {
        memcpy(p->pending, p->indeg, p->g.n * sizeof *p->pending);
        p->rhead = p->rtail = 0;
        __atomic_store_n(&p->done, 0, __ATOMIC_RELAXED);
        for (i = 0; i < p->g.n; i++)
            if (!p->indeg[i]) p->ready[p->rtail++] = i;
        xrt__cpu_pool_run(xrt__cpu_plan_part, p, xrt__cpu_pool_width());
    } else {
        for (i = 0; i < p->g.n; i++) xrt__cpu_node_run(&p->g.node[i]); /* capture order is a topological order */
    }
}

static void xrt__cpu_run_graph(xrt__cpu_op *op)
{
    xrt__cpu_plan *p = (xrt__cpu_plan *)op->u.host.user;
    xrt__cpu_plan_run(p);
    xrt__cpu_plan_unref(p);
}

/* A child graph's node: the plan is the node's own. */
static void xrt__cpu_run_child(xrt__cpu_op *op) { xrt__cpu_plan_run((xrt__cpu_plan *)op->u.host.user); }

static xrt_status xrt__cpu_graph_instantiate(const xrt_backend *self, void **exec, void *graph);

/* XRT_GRAPH_INSTANTIATE_USE_NODE_PRIORITY is taken: a graph runs as one op
   at its launch stream's priority, which is what a captured kernel node's
   priority is unless the capture's streams differ (priorities are
   scheduling hints: the results are the same). A graph runs on the CPU,
   never from a kernel: DEVICE_LAUNCH is unsupported. */
static xrt_status xrt__cpu_graph_instantiate_with_flags(const xrt_backend *self, void **exec, void *graph,
                                                        unsigned long long flags)
{
    xrt_status st;
    if (flags & XRT_GRAPH_INSTANTIATE_DEVICE_LAUNCH)
        return xrt_error(XRT_ERROR_UNSUPPORTED, "cpu: xrt_graph_instantiate_with_flags",
                         "XRT_GRAPH_INSTANTIATE_DEVICE_LAUNCH: a CPU kernel cannot launch a graph");
    if ((st = xrt__cpu_graph_instantiate(self, exec, graph)) == XRT_SUCCESS)
        ((xrt__cpu_exec *)*exec)->auto_free = (flags & XRT_GRAPH_INSTANTIATE_AUTO_FREE_ON_LAUNCH) != 0;
    return st;
}

/* Nothing to upload: a launch allocates nothing (its plan was made at
   instantiate). */
static xrt_status xrt__cpu_graph_upload(const xrt_backend *self, void *exec, void *stream)
{
    (void)self, (void)exec, (void)stream;
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_graph_instantiate(const xrt_backend *self, void **exec, void *graph)
{
    xrt__cpu_gmem *m = ((const xrt__cpu_graph *)graph)->mem;
    xrt__cpu_exec *x;
    if (m && __atomic_fetch_add(&m->execs, 1, __ATOMIC_ACQ_REL)) {
        __atomic_sub_fetch(&m->execs, 1, __ATOMIC_ACQ_REL);
        return xrt_error(XRT_ERROR_INVALID_VALUE, "cpu: xrt_graph_instantiate",
                         "the graph has memory nodes (allocation or free) and an exec already: such a graph "
                         "has one exec at a time, as in CUDA (destroy the other first)");
    }
    if (m && !m->left) xrt__cpu_gmem_leave(m); /* a built graph's: known once it is instantiated */
    if ((x = (xrt__cpu_exec *)XRT_CALLOC(1, sizeof *x)) != NULL &&
        (x->plan = xrt__cpu_plan_new((const xrt__cpu_graph *)graph)) != NULL) {
        x->plan->src = xrt__cpu_graph_id((xrt__cpu_graph *)graph);
        *exec = x;
        return XRT_SUCCESS;
    }
    XRT_FREE(x);
    if (m) __atomic_sub_fetch(&m->execs, 1, __ATOMIC_ACQ_REL);
    return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "cpu: xrt_graph_instantiate", "no memory for the exec of %u nodes",
                     ((const xrt__cpu_graph *)graph)->n);
}

static xrt_status xrt__cpu_graph_exec_destroy(const xrt_backend *self, void *exec)
{
    xrt__cpu_exec *x = (xrt__cpu_exec *)exec;
    if (x->last) xrt__cpu_stream_unref(x->last);
    if (x->plan->g.mem) __atomic_sub_fetch(&x->plan->g.mem->execs, 1, __ATOMIC_ACQ_REL); /* an update keeps it */
    xrt__cpu_plan_unref(x->plan);
    XRT_FREE(x);
    return XRT_SUCCESS;
}

/* A launch on a capturing stream: a child graph node, which runs a copy of
   the exec's graph as it is now (a later update of the exec leaves it as it
   was). A graph with memory nodes cannot be a child, as in CUDA. 0
   where the capture ended meanwhile (launch as usual). */
static int xrt__cpu_cap_launch(xrt__cpu_stream *s, xrt__cpu_exec *x, xrt_status *st)
{
    const char *who = "cpu: xrt_graph_launch";
    xrt__cpu_graph *c;
    xrt__cpu_op op;
    int mem;
    xrt__cpu_lock(&x->lock);
    mem = x->plan->g.mem != NULL ? 1 : x->plan->nwait + x->plan->nrecord ? 2 : 0;
    c = mem ? NULL : xrt__cpu_graph_dup(&x->plan->g);
    xrt__cpu_unlock(&x->lock);
    memset(&op, 0, sizeof op);
    op.run = xrt__cpu_run_child;
    op.u.host.user = c;
    pthread_mutex_lock(&xrt__cpu_cap_lock);
    if (!s->cap) {
        xrt__cpu_cap_unlock();
        if (c) xrt__cpu_graph_free(c);
        return 0;
    }
    if (s->cap->invalid != XRT_SUCCESS)
        *st = xrt__cpu_cap_invalid_locked(s->cap, who);
    else if (mem == 1)
        *st = xrt__cpu_cap_fail_locked(s->cap, XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED, who,
                                       "the exec's graph has memory nodes (allocation or free), and such a graph "
                                       "cannot be launched in a capture, as in CUDA; the capture is invalidated");
    else if (mem == 2)
        *st = xrt__cpu_cap_fail_locked(s->cap, XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED, who,
                                       "the exec's graph has event nodes, which the CPU backend does not capture; the "
                                       "capture is invalidated");
    else if (!c)
        *st = xrt__cpu_cap_fail_locked(s->cap, XRT_ERROR_OUT_OF_MEMORY, who, "no memory for a copy of the exec's graph");
    else
        *st = xrt__cpu_cap_node_locked(s, XRT__CPU_NODE_CHILD, &op, who);
    xrt__cpu_cap_unlock();
    if (*st != XRT_SUCCESS && c) xrt__cpu_graph_free(c);
    return 1;
}

/* A launch's event nodes, as CUDA's when a graph is launched: each wait
   node waits for its event's latest record (before the graph: every node
   waits, not only those after it), each record node records its event once
   the whole graph is done (later than a GPU may, never earlier). */
static xrt_status xrt__cpu_graph_waits(const xrt_backend *self, const xrt__cpu_plan *p, void *stream)
{
    uint32_t i;
    xrt_status st = XRT_SUCCESS;
    for (i = 0; i < p->nwait && st == XRT_SUCCESS; i++) st = xrt__cpu_stream_wait_event(self, stream, p->waits[i]);
    return st;
}

static xrt_status xrt__cpu_graph_records(const xrt_backend *self, const xrt__cpu_plan *p, void *stream)
{
    uint32_t i;
    xrt_status st = XRT_SUCCESS;
    for (i = 0; i < p->nrecord && st == XRT_SUCCESS; i++) st = xrt__cpu_event_record(self, p->records[i], stream);
    return st;
}

/* One op on the stream; behind the exec's previous launch where that was
   made on another stream and is not done (launches of an exec are ordered). */
static xrt_status xrt__cpu_graph_launch(const xrt_backend *self, void *exec, void *stream)
{
    xrt__cpu_exec *x = (xrt__cpu_exec *)exec;
    xrt__cpu_stream *s = xrt__cpu_stream_of(stream);
    xrt__cpu_op op;
    uint64_t pos;
    xrt_status st = XRT_SUCCESS, rec = XRT_SUCCESS;
    if (XRT__UNLIKELY(xrt__cpu_capturing(stream)) && xrt__cpu_cap_launch(s, x, &st)) return st;
    xrt__cpu_lock(&x->lock);
    if ((st = xrt__cpu_gmem_launch(x->plan->g.mem, x->auto_free, 0)) != XRT_SUCCESS) {
        xrt__cpu_unlock(&x->lock);
        return st;
    }
    if (x->last && x->last != s && !xrt__cpu_reached(&x->last->head, x->last_pos)) {
        op.run = xrt__cpu_run_wait;
        op.u.wait.stream = x->last;
        op.u.wait.pos = x->last_pos;
        __atomic_add_fetch(&x->last->refs, 1, __ATOMIC_RELAXED);
        if ((st = xrt__cpu_enqueue(s, &op, "cpu: xrt_graph_launch")) != XRT_SUCCESS) xrt__cpu_stream_unref(x->last);
    }
    if (XRT__UNLIKELY(x->plan->nwait) && st == XRT_SUCCESS) st = xrt__cpu_graph_waits(self, x->plan, stream);
    if (st == XRT_SUCCESS) {
        memset(&op, 0, sizeof op);
        op.run = xrt__cpu_run_graph;
        op.u.host.user = x->plan;
        __atomic_add_fetch(&x->plan->refs, 1, __ATOMIC_RELAXED);
        if ((st = xrt__cpu_enqueue_at(s, &op, "cpu: xrt_graph_launch", &pos)) != XRT_SUCCESS) {
            __atomic_sub_fetch(&x->plan->refs, 1, __ATOMIC_RELAXED); /* the exec still holds it */
        } else {
            if (x->last != s) {
                __atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
                if (x->last) xrt__cpu_stream_unref(x->last);
                x->last = s;
            }
            x->last_pos = pos;
            if (XRT__UNLIKELY(x->plan->nrecord)) rec = xrt__cpu_graph_records(self, x->plan, stream);
            xrt__cpu_graph_free_foreign(&x->plan->g);
        }
    }
    if (st != XRT_SUCCESS) xrt__cpu_gmem_launch(x->plan->g.mem, x->auto_free, 1);
    xrt__cpu_unlock(&x->lock);
    return st != XRT_SUCCESS ? st : rec;
}

/* Why an update fails: cudaGraphExecUpdateResult's code, the node of the
   new plan to blame and the node its changed edge comes from (UINT32_MAX:
   none), and a detail. */
typedef struct xrt__cpu_update_error {
    int code;
    uint32_t node, from;
    char why[200];
} xrt__cpu_update_error;

static int xrt__cpu_update_fail(xrt__cpu_update_error *e, int code, uint32_t node, uint32_t from, const char *fmt, ...)
    XRT__PRINTF(5, 6);
static int xrt__cpu_update_fail(xrt__cpu_update_error *e, int code, uint32_t node, uint32_t from, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->why, sizeof e->why, fmt, ap);
    va_end(ap);
    e->code = code;
    e->node = node;
    e->from = from;
    return 1;
}

/* A copy's or memset's side: its memory type and device, as the registry knows them. */
static void xrt__cpu_update_side(const void *p, int *type, int *device)
{
    xrt_pointer_attributes a;
    xrt__mem_lookup(xrt__cpu.self, &a, p);
    *type = (int)a.type;
    *device = a.device;
}

static const char *const xrt__cpu_memory_names[] = {"unknown host", "host", "pinned host", "device", "managed"};

static const char *xrt__cpu_memory_name(int type)
{
    return type >= 0 && type < (int)(sizeof xrt__cpu_memory_names / sizeof *xrt__cpu_memory_names)
               ? xrt__cpu_memory_names[type]
               : "unknown";
}

/* cudaGraphExecUpdate's limits for one pointer of node i: its memory type
   and its device may not change. */
static int xrt__cpu_update_pointer(const void *was, const void *is, const char *what, uint32_t i,
                                   xrt__cpu_update_error *e)
{
    int t0, t1, d0, d1;
    xrt__cpu_update_side(was, &t0, &d0);
    xrt__cpu_update_side(is, &t1, &d1);
    if (t0 != t1)
        return xrt__cpu_update_fail(e, XRT_GRAPH_EXEC_UPDATE_PARAMETERS_CHANGED, i, UINT32_MAX,
                                    "node %u: its %s was %s memory, is %s memory (a copy's memory types may not change)",
                                    i, what, xrt__cpu_memory_name(t0), xrt__cpu_memory_name(t1));
    if (t0 != XRT_MEMORY_HOST && t0 != XRT_MEMORY_UNKNOWN && d0 != d1)
        return xrt__cpu_update_fail(e, XRT_GRAPH_EXEC_UPDATE_PARAMETERS_CHANGED, i, UINT32_MAX,
                                    "node %u: its %s was memory of device %d, is of device %d (devices may not change)",
                                    i, what, d0, d1);
    return 0;
}

static int xrt__cpu_plan_differ(const xrt__cpu_plan *pa, xrt__cpu_plan *pb, xrt__cpu_update_error *e);

/* The limits of one node's update (same kind, same dependencies): those of
   its params. x is node i of the exec's plan, y node j of the new one; k
   names them in messages (their place in creation order). */
static int xrt__cpu_node_differ(const xrt__cpu_node *x, const xrt__cpu_node *y, uint32_t j, uint32_t k,
                                xrt__cpu_update_error *e)
{
    switch (x->kind) {
    case XRT__CPU_NODE_ALLOC:
    case XRT__CPU_NODE_FREE:
        return x->op.u.release.ptr != y->op.u.release.ptr &&
               xrt__cpu_update_fail(e, XRT_GRAPH_EXEC_UPDATE_NOT_SUPPORTED, j, UINT32_MAX,
                                    "node %u (%s) is of %p in the exec, of %p in the graph (memory nodes are not updated)",
                                    k, xrt__cpu_node_names[x->kind], x->op.u.release.ptr, y->op.u.release.ptr);
    case XRT__CPU_NODE_COPY:
        if ((x->rect.height || y->rect.height) &&
            (x->rect.height != y->rect.height || x->rect.width != y->rect.width || x->rect.dpitch != y->rect.dpitch ||
             x->rect.spitch != y->rect.spitch || x->rect.depth != y->rect.depth || x->rect.dslice != y->rect.dslice ||
             x->rect.sslice != y->rect.sslice || x->op.u.copy.dst != y->op.u.copy.dst ||
             x->op.u.copy.src != y->op.u.copy.src))
            return xrt__cpu_update_fail(e, XRT_GRAPH_EXEC_UPDATE_PARAMETERS_CHANGED, j, UINT32_MAX,
                                        "node %u: a 2-D or 3-D copy cannot change", k);
        return xrt__cpu_update_pointer(x->op.u.copy.src, y->op.u.copy.src, "source", k, e) ||
               xrt__cpu_update_pointer(x->op.u.copy.dst, y->op.u.copy.dst, "destination", k, e);
    case XRT__CPU_NODE_SET:
        if ((x->set.height > 1 || y->set.height > 1 || x->set.element_size != y->set.element_size ||
             x->rect.depth > 1 || y->rect.depth > 1) &&
            (x->set.dst != y->set.dst || x->set.pitch != y->set.pitch || x->set.value != y->set.value ||
             x->set.element_size != y->set.element_size || x->set.width != y->set.width || x->set.height != y->set.height ||
             x->rect.depth != y->rect.depth || x->rect.dslice != y->rect.dslice))
            return xrt__cpu_update_fail(e, XRT_GRAPH_EXEC_UPDATE_PARAMETERS_CHANGED, j, UINT32_MAX,
                                        "node %u: only a memset of one row of bytes can change", k);
        return xrt__cpu_update_pointer(x->set.dst, y->set.dst, "destination", k, e);
    case XRT__CPU_NODE_CHILD: {
        char inner[sizeof e->why];
        if (!xrt__cpu_plan_differ((const xrt__cpu_plan *)x->op.u.host.user, (xrt__cpu_plan *)y->op.u.host.user, e))
            return 0;
        memcpy(inner, e->why, sizeof inner);
        return xrt__cpu_update_fail(e, e->code, j, UINT32_MAX, "node %u (a child graph): %.150s", k, inner);
    }
    default:
        return 0;
    }
}

/* The plan's nodes in their source's order (creation, or capture), into
   ord, and each plan node's place in it, into rank. */
static void xrt__cpu_plan_ranks(const xrt__cpu_plan *p, uint32_t *ord, uint32_t *rank)
{
    uint32_t j, k = 0;
    for (j = 0; j < p->npos; j++)
        if (p->pos[j] != UINT32_MAX) {
            ord[k] = p->pos[j];
            rank[p->pos[j]] = k++;
        }
}

/* Node y (j of the new plan) follows the nodes that x (of the exec's)
   follows, paired by rank; 0 if so, else 1 with the dependency of y to blame. */
static int xrt__cpu_deps_differ(const xrt__cpu_graph *a, const xrt__cpu_node *x, const uint32_t *ra,
                                const xrt__cpu_graph *b, const xrt__cpu_node *y, const uint32_t *rb, uint32_t *from)
{
    uint32_t m, l;
    for (m = 0; m < y->ndeps; m++) {
        uint32_t d = b->dep[y->deps + m];
        int found = 0;
        for (l = 0; l < x->ndeps && !found; l++) found = ra[a->dep[x->deps + l]] == rb[d];
        if (!found) {
            *from = d;
            return 1;
        }
    }
    return 0;
}

/* The first difference between the exec's plan pa and a new plan pb that
   cudaGraphExecUpdate refuses (nodes paired in the order they were made,
   as CUDA pairs them); 0 where the update may be made. */
/* Whether the exec's plan pa cannot take the graph's plan pb, as
   cudaGraphExecUpdate decides (1, e says why); if it can, pb's nodes take
   the on/off state of those they pair with ("Enable state is unaffected by
   ... whole graph update with cudaGraphExecUpdate()"). */
static int xrt__cpu_plan_differ(const xrt__cpu_plan *pa, xrt__cpu_plan *pb, xrt__cpu_update_error *e)
{
    const xrt__cpu_graph *a = &pa->g;
    xrt__cpu_graph *b = &pb->g;
    uint32_t k, *oa, *ra, *ob, *rb, n = a->n;
    int differ = 0;
    if (a->device != b->device)
        return xrt__cpu_update_fail(e, XRT_GRAPH_EXEC_UPDATE_ERROR, UINT32_MAX, UINT32_MAX,
                                    "the exec is of device %d, the graph of device %d", a->device, b->device);
    if (a->n != b->n)
        return xrt__cpu_update_fail(e, XRT_GRAPH_EXEC_UPDATE_TOPOLOGY_CHANGED, UINT32_MAX, UINT32_MAX,
                                    "the exec has %u nodes, the graph %u", a->n, b->n);
    if (!(oa = (uint32_t *)XRT_MALLOC(4 * (size_t)(n ? n : 1) * sizeof *oa)))
        return xrt__cpu_update_fail(e, XRT_GRAPH_EXEC_UPDATE_ERROR, UINT32_MAX, UINT32_MAX, "no memory to compare");
    ra = oa + n, ob = ra + n, rb = ob + n;
    xrt__cpu_plan_ranks(pa, oa, ra);
    xrt__cpu_plan_ranks(pb, ob, rb);
    for (k = 0; k < n && !differ; k++) {
        const xrt__cpu_node *x = &a->node[oa[k]], *y = &b->node[ob[k]];
        uint32_t from;
        if (x->kind != y->kind)
            differ = xrt__cpu_update_fail(e, XRT_GRAPH_EXEC_UPDATE_NODE_TYPE_CHANGED, ob[k], UINT32_MAX,
                                          "node %u is %s in the exec, %s in the graph", k, xrt__cpu_node_names[x->kind],
                                          xrt__cpu_node_names[y->kind]);
        else if (x->ndeps != y->ndeps)
            differ = xrt__cpu_update_fail(e, XRT_GRAPH_EXEC_UPDATE_TOPOLOGY_CHANGED, ob[k], UINT32_MAX,
                                          "node %u (%s) follows %u nodes in the exec, %u in the graph", k,
                                          xrt__cpu_node_names[x->kind], x->ndeps, y->ndeps);
        else if (xrt__cpu_deps_differ(a, x, ra, b, y, rb, &from))
            differ = xrt__cpu_update_fail(e, XRT_GRAPH_EXEC_UPDATE_TOPOLOGY_CHANGED, ob[k], from,
                                          "node %u (%s) follows node %u in the graph, not in the exec", k,
                                          xrt__cpu_node_names[x->kind], rb[from]);
        else
            differ = xrt__cpu_node_differ(x, y, ob[k], k, e);
    }
    for (k = 0; k < n && !differ; k++) b->node[ob[k]].off = a->node[oa[k]].off;
    XRT_FREE(oa);
    return differ;
}

/* The node of the graph given (an object) that index i of its plan p stands for; NULL for none. */
static void *xrt__cpu_plan_source(const xrt__cpu_plan *p, uint32_t i)
{
    uint32_t j;
    for (j = 0; i != UINT32_MAX && j < p->npos; j++)
        if (p->pos[j] == i) return XRT__CPU_NODE_OBJ(j);
    return NULL;
}

static xrt_status xrt__cpu_graph_exec_update_with_result(const xrt_backend *self, void *exec, void *graph,
                                                         xrt_graph_exec_update_result *result)
{
    xrt__cpu_exec *x = (xrt__cpu_exec *)exec;
    const xrt__cpu_graph *g = (const xrt__cpu_graph *)graph;
    xrt__cpu_plan *p, *old;
    xrt__cpu_update_error e;
    (void)self;
    if (!(p = xrt__cpu_plan_new(g)))
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "cpu: xrt_graph_exec_update", "no memory for the new parameters");
    p->src = xrt__cpu_graph_id((xrt__cpu_graph *)graph);
    xrt__cpu_lock(&x->lock);
    old = x->plan;
    __atomic_add_fetch(&old->refs, 1, __ATOMIC_RELAXED);
    xrt__cpu_unlock(&x->lock);
    if (xrt__cpu_plan_differ(old, p, &e)) {
        result->result = (xrt_graph_exec_update_code)e.code;
        result->error_node = (xrt_graph_node)xrt__cpu_plan_source(p, e.node);
        result->error_from_node = (xrt_graph_node)xrt__cpu_plan_source(p, e.from);
        xrt__cpu_plan_unref(old);
        xrt__cpu_plan_unref(p);
        return xrt_error(XRT_ERROR_GRAPH_EXEC_UPDATE_FAILURE, "cpu: xrt_graph_exec_update", "%s", e.why);
    }
    xrt__cpu_plan_unref(old);
    xrt__cpu_lock(&x->lock); /* launches enqueued before keep the plan they hold */
    old = x->plan;
    x->plan = p;
    xrt__cpu_unlock(&x->lock);
    xrt__cpu_plan_unref(old);
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_graph_exec_update(const xrt_backend *self, void *exec, void *graph)
{
    xrt_graph_exec_update_result r;
    return xrt__cpu_graph_exec_update_with_result(self, exec, graph, &r);
}

/* >> cpu: graphs built node by node. A node is its index + 1 (">> cpu:
   graphs": nodes keep their index, a destroyed one stays DEAD). Edges may
   be added either way between live nodes; one that would close a cycle is
   refused, so a graph is always acyclic and a plan's order exists. */

/* A memset node of more than one row or of wider elements: its op is in the node. */
static void xrt__cpu_run_set_rows(xrt__cpu_op *op)
{
    const xrt_memset_node_params *m = &((const xrt__cpu_node *)(const void *)((const char *)op - offsetof(xrt__cpu_node, op)))->set;
    size_t r, i;
    for (r = 0; r < m->height; r++) {
        unsigned char *row = (unsigned char *)m->dst + r * m->pitch;
        for (i = 0; i < m->width; i++)
            if (m->element_size == 1) row[i] = (unsigned char)m->value;
            else if (m->element_size == 2) ((uint16_t *)(void *)row)[i] = (uint16_t)m->value;
            else ((uint32_t *)(void *)row)[i] = m->value;
    }
}

/* A graph's memory that a clone or an exec shares: what they hold of it
   (an allocation's freed, the caller's allocations) cannot change. */
static xrt_status xrt__cpu_gmem_shared(const xrt__cpu_graph *g, const char *who)
{
    if (!g->mem || __atomic_load_n(&g->mem->refs, __ATOMIC_ACQUIRE) == 1) return XRT_SUCCESS;
    return xrt_error(XRT_ERROR_UNSUPPORTED, who,
                     "the graph's memory is shared with an exec of it: the CPU backend adds or destroys memory "
                     "nodes of a graph without a live exec (destroy the exec first)");
}

/* A graph with memory nodes keeps its nodes and edges (CUDA's rule). */
static xrt_status xrt__cpu_gmem_fixed(const xrt__cpu_graph *g, const char *who)
{
    (void)g;
    return xrt_error(XRT_ERROR_INVALID_VALUE, who,
                     "the graph has memory nodes (allocation or free): its nodes and edges cannot be deleted, as "
                     "in CUDA");
}

/* The entry of g's memory at ptr (any state), or NULL. */
/* Free nodes made of another graph's allocations (">> cpu: graphs built
   node by node"); while 0, a launch looks for none. */
static int xrt__cpu_foreign_frees;

static xrt__cpu_galloc *xrt__cpu_gmem_at(const xrt__cpu_graph *g, const void *ptr)
{
    uint32_t i;
    for (i = g->mem ? g->mem->n : 0; i-- > 0;) /* newest first */
        if (g->mem->a[i].ptr == ptr) return &g->mem->a[i];
    return NULL;
}

/* A launch's free nodes of other graphs' allocations: each is no longer
   live, as a free of it by the caller makes it (the core has checked that
   it was live). */
static void xrt__cpu_graph_free_foreign(const xrt__cpu_graph *g)
{
    uint32_t i;
    xrt_status st;
    if (!__atomic_load_n(&xrt__cpu_foreign_frees, __ATOMIC_RELAXED)) return;
    for (i = 0; i < g->n; i++)
        if (g->node[i].kind == XRT__CPU_NODE_FREE && !xrt__cpu_gmem_at(g, g->node[i].op.u.release.ptr))
            xrt__cpu_gmem_free(g->node[i].op.u.release.ptr, "cpu: xrt_graph_launch", &st);
}

/* A memory node built by hand (cudaGraphAddMemAllocNode,
   cudaGraphAddMemFreeNode), as a captured one: an allocation's memory is
   the graph's from now on (its address in p), a free frees an allocation of
   this graph that no other free node frees. */
static xrt_status xrt__cpu_mem_node_make(xrt__cpu_graph *g, xrt__cpu_node *nd, xrt_graph_node_params *p,
                                         const char *who)
{
    xrt__cpu_galloc *a;
    xrt_status st;
    void *ptr = NULL;
    if ((st = xrt__cpu_gmem_shared(g, who)) != XRT_SUCCESS) return st;
    memset(nd, 0, sizeof *nd);
    nd->copy_kind = XRT_MEMCPY_DEFAULT;
    nd->op.run = xrt__cpu_run_nothing;
    if (p->type == XRT_GRAPH_NODE_MEM_FREE) {
        ptr = p->mem_free.ptr;
        if (!(a = xrt__cpu_gmem_at(g, ptr))) { /* another graph's that it leaves to the caller (the core checked) */
            if (!xrt__cpu_gmem_of(g)) return xrt_error(XRT_ERROR_OUT_OF_MEMORY, who, "no memory for the graph's record");
            nd->kind = XRT__CPU_NODE_FREE;
            nd->op.u.release.ptr = ptr;
            __atomic_store_n(&xrt__cpu_foreign_frees, 1, __ATOMIC_RELAXED);
            return XRT_SUCCESS;
        }
        if (!a || a->freed == 2)
            return xrt_error(XRT_ERROR_INVALID_VALUE, who,
                             "%p was not allocated by an allocation node of this graph (%s)", ptr,
                             a ? "that node was destroyed" : "the CPU backend frees in a graph only its own allocations");
        if (a->freed)
            return xrt_error(XRT_ERROR_INVALID_VALUE, who, "%p is freed already by a free node of this graph", ptr);
        nd->kind = XRT__CPU_NODE_FREE;
        nd->op.u.release.ptr = ptr;
        return XRT_SUCCESS;
    }
    if ((st = xrt__cpu_dev_alloc_on(p->alloc.device, &ptr, p->alloc.size, who)) != XRT_SUCCESS) return st;
    if (!xrt__cpu_gmem_add(g, ptr)) {
        xrt__cpu_dev_release(ptr);
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, who, "no memory for the graph's allocation");
    }
    nd->kind = XRT__CPU_NODE_ALLOC;
    nd->op.u.release.ptr = p->alloc.ptr = ptr;
    return XRT_SUCCESS;
}

/* An allocation node that did not join its graph: its memory stays the
   graph's, never the caller's (freed 2). */
static void xrt__cpu_mem_node_drop(xrt__cpu_graph *g, const xrt__cpu_node *nd)
{
    xrt__cpu_galloc *a = xrt__cpu_gmem_at(g, nd->op.u.release.ptr);
    if (a) a->freed = 2;
}

/* The kind and op of a node of params p (objects, checked by the dispatch
   layer); the node then holds what op holds. */
static xrt_status xrt__cpu_node_make(xrt__cpu_node *nd, const xrt_graph_node_params *p, const char *who)
{
    xrt_status st;
    memset(nd, 0, sizeof *nd);
    nd->copy_kind = XRT_MEMCPY_DEFAULT;
    switch (p->type) {
    case XRT_GRAPH_NODE_KERNEL: {
        const xrt_kernel_node_params *k = &p->kernel;
        xrt__cpu_function *f = (xrt__cpu_function *)(void *)k->function;
        xrt__cpu_launch *l;
        if ((st = xrt__cpu_launch_check(f, k->grid, k->block, k->shared_bytes, k->args_size)) != XRT_SUCCESS)
            return st;
        if (!(l = xrt__cpu_launch_make(NULL, f, k->grid, k->block, k->shared_bytes, k->args, k->args_size)))
            return xrt_error(XRT_ERROR_OUT_OF_MEMORY, who, "no memory for the kernel node");
        __atomic_add_fetch(&f->module->refs, 1, __ATOMIC_ACQ_REL);
        nd->kind = XRT__CPU_NODE_KERNEL;
        nd->op.run = xrt__cpu_run_kernel;
        nd->op.u.host.user = l;
        return XRT_SUCCESS;
    }
    case XRT_GRAPH_NODE_MEMCPY:
        nd->kind = XRT__CPU_NODE_COPY;
        xrt__cpu_copy_op(&nd->op, p->copy.dst, p->copy.src, p->copy.size);
        nd->copy_kind = p->copy.kind;
        return XRT_SUCCESS;
    case XRT_GRAPH_NODE_MEMSET:
        nd->kind = XRT__CPU_NODE_SET;
        nd->set = p->set;
        if (p->set.element_size == 1 && p->set.height <= 1)
            xrt__cpu_set_op(&nd->op, p->set.dst, (int)p->set.value, p->set.height ? p->set.width : 0);
        else
            nd->op.run = xrt__cpu_run_set_rows;
        return XRT_SUCCESS;
    case XRT_GRAPH_NODE_HOST:
        nd->kind = XRT__CPU_NODE_HOST;
        nd->op.run = xrt__cpu_run_host_fn;
        nd->op.u.host.fn = p->host.fn;
        nd->op.u.host.user = p->host.user;
        return XRT_SUCCESS;
    case XRT_GRAPH_NODE_GRAPH: {
        const xrt__cpu_graph *c = (const xrt__cpu_graph *)(const void *)p->child.graph;
        if (c->mem)
            return xrt_error(XRT_ERROR_INVALID_VALUE, who,
                             "the graph has memory nodes (allocation or free), and such a graph cannot be a child, "
                             "as in CUDA");
        nd->kind = XRT__CPU_NODE_CHILD;
        nd->op.run = xrt__cpu_run_child;
        if (!(nd->op.u.host.user = xrt__cpu_graph_dup(c)))
            return xrt_error(XRT_ERROR_OUT_OF_MEMORY, who, "no memory for a copy of the child graph");
        return XRT_SUCCESS;
    }
    case XRT_GRAPH_NODE_EMPTY:
        nd->kind = XRT__CPU_NODE_EMPTY;
        nd->op.run = xrt__cpu_run_nothing;
        return XRT_SUCCESS;
    case XRT_GRAPH_NODE_EVENT_RECORD:
    case XRT_GRAPH_NODE_WAIT_EVENT: {
        xrt__cpu_event *e = (xrt__cpu_event *)(void *)p->event.event;
        xrt_status st;
        if ((st = xrt__cpu_event_graphable(e, who)) != XRT_SUCCESS) return st;
        nd->kind = p->type == XRT_GRAPH_NODE_WAIT_EVENT ? XRT__CPU_NODE_WAIT : XRT__CPU_NODE_RECORD;
        nd->op.run = xrt__cpu_run_nothing; /* the launch records and waits (">> cpu: graphs built node by node") */
        nd->op.u.record.event = e;
        __atomic_add_fetch(&e->refs, 1, __ATOMIC_RELAXED);
        return XRT_SUCCESS;
    }
    default:
        return xrt_error(XRT_ERROR_UNSUPPORTED, who, "the CPU backend has no node of type %d", (int)p->type);
    }
}

static xrt_status xrt__cpu_graph_create(const xrt_backend *self, void **graph)
{
    (void)self;
    if (!(*graph = XRT_CALLOC(1, sizeof(xrt__cpu_graph))))
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "cpu: xrt_graph_create", "no memory for a graph");
    ((xrt__cpu_graph *)*graph)->device = xrt__cpu_current();
    return XRT_SUCCESS;
}

/* deps (objects) as indices into *v: few (8 of them) or, for more, an
   array made here, which the caller frees (*v != few) whatever the answer;
   an error for a repeated one. */
static xrt_status xrt__cpu_node_deps(void *const *deps, size_t n, uint32_t *few, uint32_t **v, const char *who)
{
    size_t i, j;
    *v = few;
    if (n > UINT32_MAX / 2) return xrt_error(XRT_ERROR_INVALID_VALUE, who, "%zu dependencies", n);
    if (n > 8 && !(*v = (uint32_t *)XRT_MALLOC(n * sizeof **v))) {
        *v = few;
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, who, "no memory for %zu dependencies", n);
    }
    for (i = 0; i < n; i++) {
        (*v)[i] = XRT__CPU_NODE_AT(deps[i]);
        for (j = 0; j < i; j++)
            if ((*v)[j] == (*v)[i])
                return xrt_error(XRT_ERROR_INVALID_VALUE, who, "deps[%zu] and deps[%zu] are the same node", j, i);
    }
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_graph_add_node(const xrt_backend *self, void *graph, void **node, void *const *deps,
                                          size_t ndeps, xrt_graph_node_params *params)
{
    const char *who = "cpu: xrt_graph_add_node";
    xrt__cpu_graph *g = (xrt__cpu_graph *)graph;
    uint32_t few[8], *v = few;
    xrt__cpu_node nd;
    xrt_status st;
    (void)self;
    if ((st = xrt__cpu_node_deps(deps, ndeps, few, &v, who)) == XRT_SUCCESS &&
        (st = params->type == XRT_GRAPH_NODE_MEM_ALLOC || params->type == XRT_GRAPH_NODE_MEM_FREE
                  ? xrt__cpu_mem_node_make(g, &nd, params, who)
                  : xrt__cpu_node_make(&nd, params, who)) == XRT_SUCCESS) {
        if (xrt__cpu_graph_room(g, ndeps)) {
            uint32_t i = xrt__cpu_graph_append(g, nd.kind, &nd.op, v, (uint32_t)ndeps);
            g->node[i].copy_kind = nd.copy_kind;
            g->node[i].set = nd.set;
            if (nd.kind == XRT__CPU_NODE_FREE && xrt__cpu_gmem_at(g, nd.op.u.release.ptr))
                xrt__cpu_gmem_at(g, nd.op.u.release.ptr)->freed = 1; /* else another graph's */
            *node = XRT__CPU_NODE_OBJ(i);
        } else {
            if (nd.kind == XRT__CPU_NODE_ALLOC) xrt__cpu_mem_node_drop(g, &nd);
            xrt__cpu_node_clear(g, &nd);
            st = xrt_error(XRT_ERROR_OUT_OF_MEMORY, who, "no memory for a node");
        }
    }
    if (v != few) XRT_FREE(v);
    return st;
}

static xrt_status xrt__cpu_graph_node_get_params(const xrt_backend *self, void *graph, void *node,
                                                 xrt_graph_node_params *p)
{
    const xrt__cpu_node *nd = &((const xrt__cpu_graph *)graph)->node[XRT__CPU_NODE_AT(node)];
    (void)self;
    p->type = (xrt_graph_node_type)xrt__cpu_node_types[nd->kind]; /* also where the params cannot be told */
    if (nd->kind == XRT__CPU_NODE_COPY && nd->rect.height)
        return xrt_error(XRT_ERROR_UNSUPPORTED, "cpu: xrt_graph_node_get_params",
                         "the node is a %s copy, which xrt_memcpy_node_params cannot describe "
                         "(xrt_graph_memcpy_node_get_params does)", nd->rect.depth > 1 ? "3-D" : "2-D");
    if (nd->kind == XRT__CPU_NODE_SET && nd->rect.depth > 1)
        return xrt_error(XRT_ERROR_UNSUPPORTED, "cpu: xrt_graph_node_get_params",
                         "the node is a 3-D memset, which xrt_memset_node_params cannot describe");
    if (nd->kind == XRT__CPU_NODE_KERNEL) {
        const xrt__cpu_launch *l = (const xrt__cpu_launch *)nd->op.u.host.user;
        p->kernel.function = (xrt_function)l->function;
        p->kernel.grid = l->grid;
        p->kernel.block = l->block;
        p->kernel.shared_bytes = l->shared;
        p->kernel.args = l->args;
        p->kernel.args_size = l->args_size;
    } else if (nd->kind == XRT__CPU_NODE_COPY) {
        p->copy.dst = nd->op.u.copy.dst;
        p->copy.src = nd->op.u.copy.src;
        p->copy.size = nd->op.u.copy.size;
        p->copy.kind = nd->copy_kind;
    } else if (nd->kind == XRT__CPU_NODE_SET) {
        p->set = nd->set;
    } else if (nd->kind == XRT__CPU_NODE_HOST) {
        p->host.fn = nd->op.u.host.fn;
        p->host.user = nd->op.u.host.user;
    } else if (nd->kind == XRT__CPU_NODE_CHILD) {
        p->child.graph = (xrt_graph)nd->op.u.host.user;
    } else if (nd->kind == XRT__CPU_NODE_ALLOC) {
        const xrt__cpu_head *h = xrt__cpu_head_of(nd->op.u.release.ptr);
        p->alloc.ptr = nd->op.u.release.ptr;
        p->alloc.size = h->size;
        p->alloc.device = (int)h->device;
    } else if (nd->kind == XRT__CPU_NODE_FREE) {
        p->mem_free.ptr = nd->op.u.release.ptr;
    } else if (nd->kind == XRT__CPU_NODE_RECORD || nd->kind == XRT__CPU_NODE_WAIT) {
        p->event.event = (xrt_event)(void *)nd->op.u.record.event;
    }
    return XRT_SUCCESS;
}

/* A copy node of 3-D params p (checked by the dispatch layer): a box, as a
   captured one is. */
static void xrt__cpu_node_box(xrt__cpu_node *nd, const xrt_memcpy_3d_parms *p)
{
    xrt__cpu_rect r;
    memset(nd, 0, sizeof *nd);
    xrt__cpu_rect_box(&r, p);
    nd->kind = XRT__CPU_NODE_COPY;
    xrt__cpu_rect_node(nd, &r);
    nd->copy_kind = p->kind;
}

/* Node i of g (a graph, or a plan's graph) takes params p, or the 3-D copy
   box (p NULL), of its own type, not a child's (a child's graph changes
   through its own handle). */
static xrt_status xrt__cpu_node_set(xrt__cpu_graph *g, uint32_t i, const xrt_graph_node_params *p,
                                    const xrt_memcpy_3d_parms *box, const char *who)
{
    xrt__cpu_node *nd = &g->node[i], made;
    xrt_status st;
    int type = p ? (int)p->type : XRT_GRAPH_NODE_MEMCPY;
    if (type != xrt__cpu_node_types[nd->kind] || nd->kind == XRT__CPU_NODE_DEAD)
        return xrt_error(XRT_ERROR_INVALID_VALUE, who, "the node is %s; the params are of type %d", xrt__cpu_node_names[nd->kind],
                         type);
    if (nd->kind == XRT__CPU_NODE_CHILD || nd->kind == XRT__CPU_NODE_ALLOC || nd->kind == XRT__CPU_NODE_FREE)
        return xrt_error(XRT_ERROR_INVALID_VALUE, who, "%s node's params cannot be set (%s)", nd->kind == XRT__CPU_NODE_CHILD ? "a child graph" : "a memory",
                         nd->kind == XRT__CPU_NODE_CHILD ? "change its graph through xrt_graph_node_get_params' handle"
                                                         : "as in CUDA");
    if (box) xrt__cpu_node_box(&made, box);
    else if ((st = xrt__cpu_node_make(&made, p, who)) != XRT_SUCCESS) return st;
    if (nd->kind == XRT__CPU_NODE_KERNEL) { /* its attributes stay */
        xrt__cpu_launch *was = (xrt__cpu_launch *)nd->op.u.host.user;
        xrt__cpu_launch_attrs((xrt__cpu_launch *)made.op.u.host.user, was->attrs);
        was->attrs = NULL;
    }
    xrt__cpu_node_clear(g, nd);
    made.ndeps = nd->ndeps;
    made.deps = nd->deps;
    made.off = nd->off; /* params set while off take effect when it is on again */
    *nd = made;
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_graph_node_set_params(const xrt_backend *self, void *graph, void *node,
                                                 const xrt_graph_node_params *params)
{
    (void)self;
    return xrt__cpu_node_set((xrt__cpu_graph *)graph, XRT__CPU_NODE_AT(node), params, NULL,
                             "cpu: xrt_graph_node_set_params");
}

/* A kernel node's attributes: its launch record's table (">> cpu: launch
   attributes"), made on the first set; the dispatch layer has checked that
   the nodes are kernel nodes. A priority is kept, not acted on: a graph's
   nodes run at the priority of the stream it is launched on. */
static xrt__cpu_launch *xrt__cpu_knode(void *graph, void *node)
{
    return (xrt__cpu_launch *)((xrt__cpu_graph *)graph)->node[XRT__CPU_NODE_AT(node)].op.u.host.user;
}

static xrt_status xrt__cpu_graph_kernel_node_set_attribute(const xrt_backend *self, void *graph, void *node, int attr,
                                                           const xrt_launch_attr_value *value)
{
    const char *who = "cpu: xrt_graph_kernel_node_set_attribute";
    xrt__cpu_launch *l = xrt__cpu_knode(graph, node);
    xrt_status st = xrt__cpu_kattr_fits(attr, value, l->grid, who);
    (void)self;
    if (st != XRT_SUCCESS) return st;
    if (!l->attrs && !(l->attrs = (xrt__cpu_kattrs *)XRT_CALLOC(1, sizeof *l->attrs)))
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, who, "no memory for the node's attributes");
    l->attrs->v[attr] = *value;
    l->attrs->set |= 1u << attr;
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_graph_kernel_node_get_attribute(const xrt_backend *self, void *graph, void *node, int attr,
                                                           xrt_launch_attr_value *value)
{
    const xrt__cpu_launch *l = xrt__cpu_knode(graph, node);
    (void)self;
    if (l->attrs) *value = l->attrs->v[attr];
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_graph_kernel_node_copy_attributes(const xrt_backend *self, void *dst_graph, void *dst,
                                                             void *src_graph, void *src)
{
    xrt__cpu_launch *to = xrt__cpu_knode(dst_graph, dst);
    xrt__cpu_kattrs *a;
    (void)self;
    if (!xrt__cpu_kattrs_dup(&a, xrt__cpu_knode(src_graph, src)->attrs))
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "cpu: xrt_graph_kernel_node_copy_attributes",
                         "no memory for the node's attributes");
    XRT_FREE(to->attrs);
    to->attrs = a;
    return XRT_SUCCESS;
}

/* Whether node `to` can be reached from node `from` along edges (a
   dependency is an edge from it to its dependent; so: whether `to` follows
   `from`), by a walk up from `to`'s dependencies. mark: g->n bytes, zeroed. */
static int xrt__cpu_follows(const xrt__cpu_graph *g, uint32_t to, uint32_t from, unsigned char *mark, uint32_t *stack)
{
    uint32_t top = 0, k;
    stack[top++] = to;
    while (top) {
        uint32_t v = stack[--top];
        if (v == from) return 1;
        for (k = 0; k < g->node[v].ndeps; k++) {
            uint32_t d = g->dep[g->node[v].deps + k];
            if (!mark[d]) {
                mark[d] = 1;
                stack[top++] = d;
            }
        }
    }
    return 0;
}

/* The index in node t's run of dependency f, or UINT32_MAX. */
static uint32_t xrt__cpu_dep_at(const xrt__cpu_graph *g, uint32_t t, uint32_t f)
{
    uint32_t k;
    for (k = 0; k < g->node[t].ndeps; k++)
        if (g->dep[g->node[t].deps + k] == f) return k;
    return UINT32_MAX;
}

/* Edge f -> t added (its run moves to the end of dep, one longer) or removed. */
static int xrt__cpu_edge_edit(xrt__cpu_graph *g, uint32_t f, uint32_t t, int remove)
{
    xrt__cpu_node *nd;
    if (remove) {
        uint32_t k = xrt__cpu_dep_at(g, t, f);
        nd = &g->node[t];
        memmove(g->dep + nd->deps + k, g->dep + nd->deps + k + 1, (nd->ndeps - k - 1) * sizeof *g->dep);
        nd->ndeps--;
        return 1;
    }
    /* room first (also for a node: harmless), then the node: the room may move the nodes */
    if (!xrt__cpu_graph_room(g, g->node[t].ndeps + 1)) return 0;
    nd = &g->node[t];
    if (nd->ndeps) memmove(g->dep + g->ndep, g->dep + nd->deps, nd->ndeps * sizeof *g->dep);
    nd->deps = g->ndep;
    g->dep[g->ndep + nd->ndeps++] = f;
    g->ndep += nd->ndeps;
    return 1;
}

/* Why edge f -> t cannot be added or removed now; NULL if it can. */
static const char *xrt__cpu_edge_refused(const xrt__cpu_graph *g, uint32_t f, uint32_t t, int remove, unsigned char *mark,
                                         uint32_t *stack)
{
    int there = xrt__cpu_dep_at(g, t, f) != UINT32_MAX;
    if (f == t) return "an edge from a node to itself";
    if (remove) return there ? NULL : "there is no such edge";
    if (there) return "the edge is there already";
    memset(mark, 0, g->n);
    return xrt__cpu_follows(g, f, t, mark, stack) ? "it would close a cycle (the first node follows the second)" : NULL;
}

static xrt_status xrt__cpu_graph_edit_edges(void *graph, void *const *from, void *const *to, size_t n, int remove)
{
    const char *who = remove ? "cpu: xrt_graph_remove_dependencies" : "cpu: xrt_graph_add_dependencies";
    xrt__cpu_graph *g = (xrt__cpu_graph *)graph;
    unsigned char *mark = (unsigned char *)XRT_MALLOC(g->n + (size_t)g->n * sizeof(uint32_t) + 1);
    uint32_t *stack = (uint32_t *)(void *)(mark + ((g->n + 3) & ~(size_t)3)), f, t;
    const char *why = NULL;
    size_t i, j;
    if (remove && n && g->mem) {
        XRT_FREE(mark);
        return xrt__cpu_gmem_fixed(g, who);
    }
    if (!mark || (g->n && !(stack = (uint32_t *)XRT_MALLOC((size_t)g->n * sizeof *stack)))) {
        XRT_FREE(mark);
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, who, "no memory to check the edges");
    }
    for (i = 0; i < n && !why; i++) {
        f = XRT__CPU_NODE_AT(from[i]);
        t = XRT__CPU_NODE_AT(to[i]);
        if ((why = xrt__cpu_edge_refused(g, f, t, remove, mark, stack)) == NULL && !xrt__cpu_edge_edit(g, f, t, remove))
            why = "no memory for the edge";
    }
    if (why) /* undo the pairs before the one refused */
        for (j = i - 1; j-- > 0;) xrt__cpu_edge_edit(g, XRT__CPU_NODE_AT(from[j]), XRT__CPU_NODE_AT(to[j]), !remove);
    XRT_FREE(mark);
    if (g->n) XRT_FREE(stack);
    if (!why) return XRT_SUCCESS;
    return xrt_error(strcmp(why, "no memory for the edge") ? XRT_ERROR_INVALID_VALUE : XRT_ERROR_OUT_OF_MEMORY, who,
                     "pair %zu (node %p -> node %p): %s%s", i - 1, from[i - 1], to[i - 1], why,
                     i > 1 ? "; the pairs before it are undone" : "");
}

static xrt_status xrt__cpu_graph_add_dependencies(const xrt_backend *self, void *graph, void *const *from,
                                                  void *const *to, size_t n)
{
    (void)self;
    return xrt__cpu_graph_edit_edges(graph, from, to, n, 0);
}

static xrt_status xrt__cpu_graph_remove_dependencies(const xrt_backend *self, void *graph, void *const *from,
                                                     void *const *to, size_t n)
{
    (void)self;
    return xrt__cpu_graph_edit_edges(graph, from, to, n, 1);
}

static xrt_status xrt__cpu_graph_nodes(void *graph, void **nodes, size_t *count, int roots)
{
    const xrt__cpu_graph *g = (const xrt__cpu_graph *)graph;
    size_t room = *count, n = 0;
    uint32_t i;
    for (i = 0; i < g->n; i++)
        if (g->node[i].kind != XRT__CPU_NODE_DEAD && (!roots || !g->node[i].ndeps)) {
            if (n < room) nodes[n] = XRT__CPU_NODE_OBJ(i);
            n++;
        }
    *count = n;
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_graph_get_nodes(const xrt_backend *self, void *graph, void **nodes, size_t *count)
{
    (void)self;
    return xrt__cpu_graph_nodes(graph, nodes, count, 0);
}

static xrt_status xrt__cpu_graph_get_root_nodes(const xrt_backend *self, void *graph, void **nodes, size_t *count)
{
    (void)self;
    return xrt__cpu_graph_nodes(graph, nodes, count, 1);
}

static xrt_status xrt__cpu_graph_get_edges(const xrt_backend *self, void *graph, void **from, void **to, size_t *count)
{
    const xrt__cpu_graph *g = (const xrt__cpu_graph *)graph;
    size_t room = *count, n = 0;
    uint32_t i, k;
    (void)self;
    for (i = 0; i < g->n; i++)
        for (k = 0; k < g->node[i].ndeps; k++, n++)
            if (n < room) {
                from[n] = XRT__CPU_NODE_OBJ(g->dep[g->node[i].deps + k]);
                to[n] = XRT__CPU_NODE_OBJ(i);
            }
    *count = n;
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_node_edges(void *graph, void *node, void **nodes, size_t *count, int dependents)
{
    const xrt__cpu_graph *g = (const xrt__cpu_graph *)graph;
    uint32_t at = XRT__CPU_NODE_AT(node), i, k;
    size_t room = *count, n = 0;
    if (!dependents) {
        for (k = 0; k < g->node[at].ndeps; k++, n++)
            if (n < room) nodes[n] = XRT__CPU_NODE_OBJ(g->dep[g->node[at].deps + k]);
    } else {
        for (i = 0; i < g->n; i++)
            if (xrt__cpu_dep_at(g, i, at) != UINT32_MAX) {
                if (n < room) nodes[n] = XRT__CPU_NODE_OBJ(i);
                n++;
            }
    }
    *count = n;
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_graph_node_get_dependencies(const xrt_backend *self, void *graph, void *node, void **nodes,
                                                       size_t *count)
{
    (void)self;
    return xrt__cpu_node_edges(graph, node, nodes, count, 0);
}

static xrt_status xrt__cpu_graph_node_get_dependent_nodes(const xrt_backend *self, void *graph, void *node,
                                                          void **nodes, size_t *count)
{
    (void)self;
    return xrt__cpu_node_edges(graph, node, nodes, count, 1);
}

/* A node's edges go with it; it stays, DEAD (its index is its identity). */
static xrt_status xrt__cpu_graph_destroy_node(const xrt_backend *self, void *graph, void *node)
{
    xrt__cpu_graph *g = (xrt__cpu_graph *)graph;
    uint32_t at = XRT__CPU_NODE_AT(node), i;
    xrt__cpu_node *nd = &g->node[at];
    (void)self;
    if (g->mem) return xrt__cpu_gmem_fixed(g, "cpu: xrt_graph_destroy_node");
    for (i = 0; i < g->n; i++)
        if (xrt__cpu_dep_at(g, i, at) != UINT32_MAX) xrt__cpu_edge_edit(g, at, i, 1);
    xrt__cpu_node_clear(g, nd);
    nd->kind = XRT__CPU_NODE_DEAD;
    nd->ndeps = 0;
    memset(&nd->op, 0, sizeof nd->op);
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_graph_clone(const xrt_backend *self, void **clone, void *graph)
{
    xrt__cpu_graph *g = (xrt__cpu_graph *)graph, *c;
    (void)self;
    if (g->mem)
        return xrt_error(XRT_ERROR_UNSUPPORTED, "cpu: xrt_graph_clone",
                         "the graph has memory nodes (allocation or free): such a graph cannot be cloned, as in CUDA "
                         "(build or capture it again)");
    if (!(c = xrt__cpu_graph_dup(g)))
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "cpu: xrt_graph_clone", "no memory for a clone of %u nodes", g->n);
    c->origin = xrt__cpu_graph_id(g);
    c->cloned = g->n;
    *clone = c;
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_graph_node_find_in_clone(const xrt_backend *self, void **node, void *graph, void *original,
                                                    void *clone)
{
    const xrt__cpu_graph *g = (const xrt__cpu_graph *)graph, *c = (const xrt__cpu_graph *)clone;
    uint32_t at = XRT__CPU_NODE_AT(original);
    (void)self;
    if (!g->id || c->origin != g->id)
        return xrt_error(XRT_ERROR_INVALID_VALUE, "cpu: xrt_graph_node_find_in_clone",
                         "the graph given is not a clone of the node's graph");
    if (at >= c->cloned) /* a node of the clone may have its index */
        return xrt_error(XRT_ERROR_INVALID_VALUE, "cpu: xrt_graph_node_find_in_clone",
                         "the node was added to its graph after the clone was made");
    if (c->node[at].kind == XRT__CPU_NODE_DEAD)
        return xrt_error(XRT_ERROR_INVALID_VALUE, "cpu: xrt_graph_node_find_in_clone",
                         "the node's copy was destroyed in the clone");
    *node = original;
    return XRT_SUCCESS;
}

/* >> cpu: user objects' calls (">> cpu: user objects"). */
static xrt_status xrt__cpu_user_object_create(const xrt_backend *self, void **object, xrt_host_fn destroy, void *ptr,
                                              unsigned count)
{
    xrt__cpu_uobj *o = (xrt__cpu_uobj *)XRT_MALLOC(sizeof *o);
    (void)self;
    if (!o) return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "cpu: xrt_user_object_create", "no memory for a user object");
    o->refs = count;
    o->destroy = destroy;
    o->ptr = ptr;
    *object = o;
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_user_object_retain(const xrt_backend *self, void *object, unsigned count)
{
    (void)self;
    __atomic_add_fetch(&((xrt__cpu_uobj *)object)->refs, count, __ATOMIC_RELAXED);
    return XRT_SUCCESS;
}

/* More than the object has is refused (CUDA leaves it undefined). */
static xrt_status xrt__cpu_user_object_release(const xrt_backend *self, void *object, unsigned count)
{
    xrt__cpu_uobj *o = (xrt__cpu_uobj *)object;
    uint64_t had = __atomic_load_n(&o->refs, __ATOMIC_RELAXED);
    (void)self;
    do {
        if (had < count)
            return xrt_error(XRT_ERROR_INVALID_VALUE, "cpu: xrt_user_object_release",
                             "%u references released of the %llu the object has (the caller's and its graphs')",
                             count, (unsigned long long)had);
    } while (!__atomic_compare_exchange_n(&o->refs, &had, had - count, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
    if (had == count) {
        o->destroy(o->ptr);
        XRT_FREE(o);
    }
    return XRT_SUCCESS;
}

/* g's entry of o, or NULL. */
static xrt__cpu_uref *xrt__cpu_uref_of(const xrt__cpu_graph *g, const xrt__cpu_uobj *o)
{
    uint32_t i;
    for (i = 0; i < g->nuref; i++)
        if (g->uref[i].o == o) return &g->uref[i];
    return NULL;
}

static xrt_status xrt__cpu_graph_retain_user_object(const xrt_backend *self, void *graph, void *object,
                                                    unsigned count, unsigned flags)
{
    xrt__cpu_graph *g = (xrt__cpu_graph *)graph;
    xrt__cpu_uobj *o = (xrt__cpu_uobj *)object;
    xrt__cpu_uref *r = xrt__cpu_uref_of(g, o);
    (void)self;
    if (!r) {
        xrt__cpu_uref *v = (xrt__cpu_uref *)XRT_REALLOC(g->uref, (g->nuref + 1) * sizeof *v);
        if (!v) return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "cpu: xrt_graph_retain_user_object", "no memory");
        g->uref = v;
        r = &v[g->nuref++];
        r->o = o;
        r->n = 0;
    }
    r->n += count;
    if (!(flags & XRT_GRAPH_USER_OBJECT_MOVE)) __atomic_add_fetch(&o->refs, count, __ATOMIC_RELAXED);
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_graph_release_user_object(const xrt_backend *self, void *graph, void *object,
                                                     unsigned count)
{
    xrt__cpu_graph *g = (xrt__cpu_graph *)graph;
    xrt__cpu_uobj *o = (xrt__cpu_uobj *)object;
    xrt__cpu_uref *r = xrt__cpu_uref_of(g, o);
    (void)self;
    if (!r || r->n < count)
        return xrt_error(XRT_ERROR_INVALID_VALUE, "cpu: xrt_graph_release_user_object",
                         "the graph holds %llu references to the object, not %u",
                         (unsigned long long)(r ? r->n : 0), count);
    if (!(r->n -= count)) *r = g->uref[--g->nuref];
    xrt__cpu_uobj_release(o, count);
    return XRT_SUCCESS;
}

/* The lists of a plan's event nodes made again once a node changed: they
   were made from the graph it was copied from, whose event node may have
   held another event (released since). 0 without memory. */
static int xrt__cpu_plan_events_again(xrt__cpu_plan *p)
{
    XRT_FREE(p->waits); /* and records, in the same block */
    p->waits = p->records = NULL;
    p->nwait = p->nrecord = 0;
    return xrt__cpu_plan_events(p);
}

/* The exec's plan, held (its caller unrefs it), and the place in it of
   node of graph; XRT_ERROR_INVALID_VALUE for a node of another graph. */
static xrt_status xrt__cpu_exec_place(xrt__cpu_exec *x, const xrt__cpu_graph *g, void *node, xrt__cpu_plan **plan,
                                      uint32_t *place, const char *who)
{
    xrt__cpu_plan *p;
    uint32_t at = XRT__CPU_NODE_AT(node);
    xrt__cpu_lock(&x->lock);
    p = *plan = x->plan;
    __atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
    xrt__cpu_unlock(&x->lock);
    if (!g->id || p->src != g->id || at >= p->npos || p->pos[at] == UINT32_MAX)
        return xrt_error(XRT_ERROR_INVALID_VALUE, who, "the node is not one of the graph the exec was made from");
    *place = p->pos[at];
    return XRT_SUCCESS;
}

/* A change of node i of a plan's graph (xrt__cpu_exec_edit). */
typedef xrt_status (*xrt__cpu_edit)(xrt__cpu_graph *g, uint32_t i, const void *arg, const char *who);

/* A new plan with the node changed, as an update makes one: launches
   already enqueued keep the plan they hold. A plan's graph is in order, so
   the new plan's nodes are where the old one's are. */
static xrt_status xrt__cpu_exec_edit(void *exec, void *graph, void *node, xrt__cpu_edit edit, const void *arg,
                                     const char *who)
{
    xrt__cpu_exec *x = (xrt__cpu_exec *)exec;
    xrt__cpu_plan *old, *p = NULL;
    uint32_t at = 0, *pos = NULL;
    xrt_status st = xrt__cpu_exec_place(x, (const xrt__cpu_graph *)graph, node, &old, &at, who);
    if (st == XRT_SUCCESS &&
        (!(pos = (uint32_t *)XRT_MALLOC(old->npos * sizeof *pos)) || !(p = xrt__cpu_plan_new(&old->g))))
        st = xrt_error(XRT_ERROR_OUT_OF_MEMORY, who, "no memory for the exec's new plan");
    else if (st == XRT_SUCCESS && (st = edit(&p->g, at, arg, who)) == XRT_SUCCESS && !xrt__cpu_plan_events_again(p))
        st = xrt_error(XRT_ERROR_OUT_OF_MEMORY, who, "no memory for the exec's new plan");
    if (st == XRT_SUCCESS) {
        memcpy(pos, old->pos, old->npos * sizeof *pos);
        XRT_FREE(p->pos);
        p->pos = pos;
        p->npos = old->npos;
        p->src = old->src;
        pos = NULL;
        xrt__cpu_lock(&x->lock);
        xrt__cpu_plan_unref(x->plan); /* the exec's reference; `old` still holds one */
        x->plan = p;
        xrt__cpu_unlock(&x->lock);
        p = NULL;
    }
    XRT_FREE(pos);
    xrt__cpu_plan_unref(old);
    if (p) xrt__cpu_plan_unref(p);
    return st;
}

/* The CPU backend keeps no memory for graphs beyond their allocations,
   whose addresses are fixed for their graph's life (">> cpu: graphs"): a
   graph's memory goes back when its graph and execs go, so there is
   nothing cached to trim. */
static xrt_status xrt__cpu_device_graph_mem_trim(const xrt_backend *self, int device)
{
    (void)self, (void)device;
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_edit_params(xrt__cpu_graph *g, uint32_t i, const void *arg, const char *who)
{
    return xrt__cpu_node_set(g, i, (const xrt_graph_node_params *)arg, NULL, who);
}

static xrt_status xrt__cpu_graph_exec_node_set_params(const xrt_backend *self, void *exec, void *graph, void *node,
                                                      const xrt_graph_node_params *params)
{
    (void)self;
    return xrt__cpu_exec_edit(exec, graph, node, xrt__cpu_edit_params, params, "cpu: xrt_graph_exec_node_set_params");
}

/* Nodes that switch off and on (cudaGraphNodeSetEnabled): "only kernel,
   memset and memcpy nodes are supported". */
static xrt_status xrt__cpu_switchable(const xrt__cpu_graph *g, uint32_t i, const char *who)
{
    int k = g->node[i].kind;
    if (k == XRT__CPU_NODE_KERNEL || k == XRT__CPU_NODE_SET || k == XRT__CPU_NODE_COPY) return XRT_SUCCESS;
    return xrt_error(XRT_ERROR_INVALID_VALUE, who, "the node is %s: only kernel, memset and memcpy nodes switch off",
                     xrt__cpu_node_names[k]);
}

static xrt_status xrt__cpu_edit_enabled(xrt__cpu_graph *g, uint32_t i, const void *arg, const char *who)
{
    xrt_status st = xrt__cpu_switchable(g, i, who);
    if (st == XRT_SUCCESS) g->node[i].off = !*(const unsigned *)arg;
    return st;
}

static xrt_status xrt__cpu_graph_node_set_enabled(const xrt_backend *self, void *exec, void *graph, void *node,
                                                  unsigned enabled)
{
    (void)self;
    return xrt__cpu_exec_edit(exec, graph, node, xrt__cpu_edit_enabled, &enabled, "cpu: xrt_graph_node_set_enabled");
}

static xrt_status xrt__cpu_graph_node_get_enabled(const xrt_backend *self, void *exec, void *graph, void *node,
                                                  unsigned *enabled)
{
    const char *who = "cpu: xrt_graph_node_get_enabled";
    xrt__cpu_plan *p;
    uint32_t at = 0;
    xrt_status st = xrt__cpu_exec_place((xrt__cpu_exec *)exec, (const xrt__cpu_graph *)graph, node, &p, &at, who);
    (void)self;
    if (st == XRT_SUCCESS && (st = xrt__cpu_switchable(&p->g, at, who)) == XRT_SUCCESS) *enabled = !p->g.node[at].off;
    xrt__cpu_plan_unref(p);
    return st;
}

/* Copy nodes of 3-D params (cudaGraphAddMemcpyNode & co): a box as a
   captured 2-D or 3-D copy's (xrt__cpu_rect_node). */
static xrt_status xrt__cpu_graph_add_memcpy_node(const xrt_backend *self, void *graph, void **node, void *const *deps,
                                                 size_t ndeps, const xrt_memcpy_3d_parms *p)
{
    const char *who = "cpu: xrt_graph_add_memcpy_node";
    xrt__cpu_graph *g = (xrt__cpu_graph *)graph;
    uint32_t few[8], *v = few;
    xrt__cpu_node nd;
    xrt_status st;
    (void)self;
    if ((st = xrt__cpu_node_deps(deps, ndeps, few, &v, who)) == XRT_SUCCESS) {
        if (xrt__cpu_graph_room(g, ndeps)) {
            uint32_t i;
            xrt__cpu_node_box(&nd, p);
            i = xrt__cpu_graph_append(g, nd.kind, &nd.op, v, (uint32_t)ndeps);
            g->node[i].copy_kind = nd.copy_kind;
            g->node[i].rect = nd.rect;
            *node = XRT__CPU_NODE_OBJ(i);
        } else {
            st = xrt_error(XRT_ERROR_OUT_OF_MEMORY, who, "no memory for a node");
        }
    }
    if (v != few) XRT_FREE(v);
    return st;
}

/* Every copy node as a box: a 1-D one of one row, a 2-D or 3-D one from its
   first bytes (the positions are folded into the pointers; a slice's rows
   are its ysize). */
static xrt_status xrt__cpu_graph_memcpy_node_get_params(const xrt_backend *self, void *graph, void *node,
                                                        xrt_memcpy_3d_parms *p)
{
    const xrt__cpu_node *nd = &((const xrt__cpu_graph *)graph)->node[XRT__CPU_NODE_AT(node)];
    (void)self;
    if (nd->kind != XRT__CPU_NODE_COPY)
        return xrt_error(XRT_ERROR_INVALID_VALUE, "cpu: xrt_graph_memcpy_node_get_params", "the node is %s, not a copy",
                         xrt__cpu_node_names[nd->kind]);
    p->kind = nd->copy_kind;
    p->dst_ptr.ptr = nd->op.u.copy.dst;
    p->src_ptr.ptr = (void *)(uintptr_t)nd->op.u.copy.src;
    if (!nd->rect.height) {
        p->extent.width = p->dst_ptr.pitch = p->dst_ptr.xsize = p->src_ptr.pitch = p->src_ptr.xsize = nd->op.u.copy.size;
        p->extent.height = p->extent.depth = p->dst_ptr.ysize = p->src_ptr.ysize = 1;
        return XRT_SUCCESS;
    }
    p->extent.width = p->dst_ptr.xsize = p->src_ptr.xsize = nd->rect.width;
    p->extent.height = nd->rect.height;
    p->extent.depth = nd->rect.depth;
    p->dst_ptr.pitch = nd->rect.dpitch;
    p->src_ptr.pitch = nd->rect.spitch;
    p->dst_ptr.ysize = nd->rect.depth > 1 ? nd->rect.dslice / nd->rect.dpitch : nd->rect.height;
    p->src_ptr.ysize = nd->rect.depth > 1 ? nd->rect.sslice / nd->rect.spitch : nd->rect.height;
    return XRT_SUCCESS;
}

static xrt_status xrt__cpu_edit_box(xrt__cpu_graph *g, uint32_t i, const void *arg, const char *who)
{
    return xrt__cpu_node_set(g, i, NULL, (const xrt_memcpy_3d_parms *)arg, who);
}

static xrt_status xrt__cpu_graph_memcpy_node_set_params(const xrt_backend *self, void *exec, void *graph, void *node,
                                                        const xrt_memcpy_3d_parms *p)
{
    (void)self;
    if (exec) return xrt__cpu_exec_edit(exec, graph, node, xrt__cpu_edit_box, p, "cpu: xrt_graph_exec_memcpy_node_set_params");
    return xrt__cpu_node_set((xrt__cpu_graph *)graph, XRT__CPU_NODE_AT(node), NULL, p,
                             "cpu: xrt_graph_memcpy_node_set_params");
}

/* >> cpu: fork. A forked child has no workers: each stream it inherited
   becomes an orphan (its queued work, which would never run, is dropped) and
   gets a new worker with its next operation.
   No thread of ours is half started or half gone at the fork: one that is
   inside the C library's (or a sanitizer's) thread set-up or tear-down may
   hold an allocator lock, which the child would inherit held; gcc's ASan
   takes none around fork(), and the child's first new thread hung on it. So
   a fork waits for every worker and helper created to reach its function
   (which needs no lock), and joins the workers that have finished (they
   finish under the list lock). The joins come first, before the core's
   prepare handler: a finished worker that called xrt from a host function
   takes the core's call lock on its way out (xrt__call_unregister). */
static void xrt__cpu_fork_started(void)
{
    xrt__cpu_wait(&xrt__cpu.entered, xrt__cpu.started, 1, NULL);
    xrt__cpu_wait(&xrt__cpu_pool.entered, (uint64_t)xrt__cpu_pool.started, 1, NULL);
}

/* Registered by xrt__cpu_init, after the core's handlers: runs before them. */
static void xrt__cpu_fork_settle(void)
{
    pthread_mutex_lock(&xrt__cpu_list_lock);
    pthread_mutex_lock(&xrt__cpu_pool_start);
    xrt__cpu_fork_started();
    xrt__cpu_reap_locked();
    pthread_mutex_unlock(&xrt__cpu_pool_start);
    pthread_mutex_unlock(&xrt__cpu_list_lock);
}

static void xrt__cpu_fork_prepare(void)
{
    pthread_mutex_lock(&xrt__cpu_cap_lock); /* before the list lock, as xrt__cpu_cap_end_locked takes them */
    pthread_mutex_lock(&xrt__cpu_list_lock);
    pthread_mutex_lock(&xrt__cpu_pool_start);
    xrt__cpu_fork_started(); /* those another thread started since xrt__cpu_fork_settle */
    pthread_mutex_lock(&xrt__cpu_export_lock); /* a leaf: no export is half made at the fork (xrt__cpu_share) */
    xrt__cpu_lock(&xrt__cpu_maps_lock); /* a leaf: the child's tree is whole (its lock is reset there) */
}

static void xrt__cpu_fork_parent(void)
{
    xrt__cpu_unlock(&xrt__cpu_maps_lock);
    pthread_mutex_unlock(&xrt__cpu_export_lock);
    pthread_mutex_unlock(&xrt__cpu_pool_start);
    pthread_mutex_unlock(&xrt__cpu_list_lock);
    pthread_mutex_unlock(&xrt__cpu_cap_lock);
}

/* The child has no helpers: the next split operation starts them. */
static void xrt__cpu_fork_pool(void)
{
    XRT_FREE(xrt__cpu_pool.threads);
    xrt__cpu_pool.threads = NULL;
    xrt__cpu_pool.ready = xrt__cpu_pool.started = xrt__cpu_pool.lock = 0;
    xrt__cpu_pool.sleeping = 0;
    xrt__cpu_counter_init(&xrt__cpu_pool.entered, 0);
    xrt__cpu_pool.job &= ~(uint64_t)0xffffffffu; /* no parts left to take */
    xrt__cpu_counter_init(&xrt__cpu_pool.done, xrt__cpu_pool.done.value);
    pthread_mutex_unlock(&xrt__cpu_pool_start);
}

/* Releases what the ops an orphan inherited hold (a launch's record and its
   module, a recorded event, a waited-for stream, memory freed on the stream),
   without running them: they were the parent's work. Under the stream's lock.
   (Where dropped > tail, the stream was idle at the fork: nothing to do.) */
static void xrt__cpu_release_dropped(xrt__cpu_stream *s)
{
    for (; s->dropped < s->tail; s->dropped++) {
        xrt__cpu_op *op = &xrt__cpu_slot_of(s, s->dropped)->op;
        if (op->run == xrt__cpu_run_kernel) {
            xrt__cpu_launch *l = (xrt__cpu_launch *)op->u.host.user;
            xrt__cpu_module_unref(l->module);
            xrt__cpu_launch_free(l);
        } else if (op->run == xrt__cpu_run_record || op->run == xrt__cpu_run_ipc_record ||
                   op->run == xrt__cpu_run_ipc_wait) {
            xrt__cpu_event_unref(op->u.record.event);
        } else if (op->run == xrt__cpu_run_wait) {
            xrt__cpu_stream_unref(op->u.wait.stream);
        } else if (op->run == xrt__cpu_run_waits) {
            while (op->u.waits.n) xrt__cpu_stream_unref(op->u.waits.v[--op->u.waits.n].s);
            XRT_FREE(op->u.waits.v);
        } else if (op->run == xrt__cpu_run_free || op->run == xrt__cpu_run_mpool_free) {
            op->run(op);
        } else if (op->run == xrt__cpu_run_graph) {
            xrt__cpu_plan_unref((xrt__cpu_plan *)op->u.host.user);
        }
    }
}

static void xrt__cpu_fork_child(void)
{
    xrt__cpu_stream *s;
    xrt__cpu_event *e;
    int i;
    for (e = xrt__cpu.events; e; e = e->next) e->lock = 0; /* its holder did not come along */
    for (i = 0; i < XRT__CPU_DEVICES_MAX; i++) xrt__cpu.legacy[i].lock = 0;
    xrt__cpu_own_lock = 0; /* its holder did not come along */
    xrt__cpu_maps_lock = 0; /* taken by the prepare handler */
    for (s = xrt__cpu.list.next; s && s != &xrt__cpu.list; s = s->next) {
        s->lock = 0; /* its holder did not come along */
        s->exec = XRT__CPU_FREE;
        s->orphan = 1;
        if (s->own_slot && (uintptr_t)s->own_slot - (uintptr_t)xrt__cpu_own >= sizeof xrt__cpu_own)
            s->own_slot = NULL; /* its owner did not come along: xrt_shutdown closes it */
        s->parked = 0;
        /* The op at head may have run, all or part, its completion not yet
           published: what it held may be released already, so it is left
           alone; the ops after it never started. */
        s->dropped = s->head.value + 1;
        xrt__cpu_counter_init(&s->head, s->tail);
        s->express.done = s->tail;
        s->room = s->tail + s->mask + 1;
    }
    xrt__cpu_counter_init(&xrt__cpu.exited, xrt__cpu.started); /* the parent's workers are not ours to wait for */
    xrt__cpu_counter_init(&xrt__cpu.entered, xrt__cpu.started);
    xrt__cpu.nzombies = 0; /* nor to join (the prepare handler joined those there were) */
    xrt__cpu_mpools_fork_child();
    xrt__cpu_mem_fork_child();
    xrt__cpu_fork_pool();
    pthread_mutex_unlock(&xrt__cpu_list_lock);
    pthread_mutex_unlock(&xrt__cpu_cap_lock);
}

/* >> cpu: lifecycle */
/* Registered before main, so before the core's (xrt_init): prepare handlers
   run in reverse order, so the core's locks are taken before the list lock,
   the order every other path takes them in. */
__attribute__((constructor)) static void xrt__cpu_atfork(void)
{
    pthread_atfork(xrt__cpu_fork_prepare, xrt__cpu_fork_parent, xrt__cpu_fork_child);
}

static void xrt__cpu_shutdown(const xrt_backend *self);

static xrt_status xrt__cpu_init(const xrt_backend *self, char *reason, size_t n)
{
    static int settle_registered; /* once a process: handlers cannot be removed */
    unsigned long long split = xrt__env_size("XRT_CPU_SPLIT_BYTES", 16u << 20);
    xrt_status st;
    int i;
    xrt__cpu.self = self;
    if (!settle_registered && pthread_atfork(xrt__cpu_fork_settle, NULL, NULL) == 0) settle_registered = 1;
    xrt__cpu_split_bytes = split == 0 || split > SIZE_MAX ? SIZE_MAX : (size_t)split; /* 0: never split */
    xrt__cpu_threads = xrt__env_number("XRT_CPU_THREADS", 0);
    xrt__cpu_populate = xrt__env_switch("XRT_CPU_POPULATE", 0);
    xrt__cpu_counter_init(&xrt__cpu.exited, xrt__cpu.exited.value);
    xrt__cpu_counter_init(&xrt__cpu.entered, xrt__cpu.entered.value);
    xrt__cpu.list.next = xrt__cpu.list.prev = &xrt__cpu.list;
    xrt__cpu.ndev = xrt__cpu_devices_env();
    memset(xrt__cpu.peers, 0, sizeof xrt__cpu.peers);
    memset(xrt__cpu_flags, 0, sizeof xrt__cpu_flags); /* xrt_shutdown forgets the devices' flags */
    for (i = 0; i < XRT__CPU_DEVICES_MAX; i++) /* the NULL streams start anew (their lists may still drain) */
        xrt__cpu.legacy[i].order = 0;
    for (i = 0, st = XRT_SUCCESS; i < xrt__cpu.ndev && st == XRT_SUCCESS; i++)
        st = xrt__cpu_stream_new(&xrt__cpu.dflt[i], i, XRT__CPU_LEGACY, XRT_STREAM_DEFAULT);
    if (st != XRT_SUCCESS) {
        snprintf(reason, n, "%s", xrt_get_last_error_string());
        xrt__cpu_shutdown(self);
    }
    return st;
}

/* Stops every worker once it has drained its stream (handles are gone already). */
static void xrt__cpu_shutdown(const xrt_backend *self)
{
    uint64_t started;
    int i;
    xrt__cpu_own_close_all();
    __atomic_add_fetch(&xrt__cpu.epoch, 1, __ATOMIC_RELEASE); /* threads' arrays of them are stale now */
    for (i = 0; i < xrt__cpu.ndev; i++)
        if (xrt__cpu.dflt[i]) xrt__cpu_stream_close(xrt__cpu.dflt[i]);
    memset(xrt__cpu.dflt, 0, sizeof xrt__cpu.dflt);
    pthread_mutex_lock(&xrt__cpu_list_lock);
    started = xrt__cpu.started;
    pthread_mutex_unlock(&xrt__cpu_list_lock);
    xrt__cpu_wait(&xrt__cpu.exited, started, 1, NULL);
    xrt__cpu_unloaded_reap(1);
    xrt__cpu_reap();
    xrt__cpu_pool_stop();
    xrt__cpu_mpools_shutdown();
    xrt__cpu_mem_shutdown();
}

/* The table, filled from the operation list: every operation is
   xrt__cpu_<name>, so a new operation without one fails to compile here
   ("xrt__cpu_<name> undeclared"). What the CPU cannot do is named here: it
   has no native handles and exports no dma-buf (host memory is registered
   for RDMA directly). */
#define xrt__cpu_pointer_get_attributes xrt__unsupported_pointer_get_attributes /* the registry knows all its memory */
#define xrt__cpu_stream_get_native xrt__unsupported_stream_get_native         /* no native handles */
#define xrt__cpu_event_get_native xrt__unsupported_event_get_native
#define xrt__cpu_stream_wrap_native xrt__unsupported_stream_wrap_native
#define xrt__cpu_mem_export_dmabuf xrt__unsupported_mem_export_dmabuf         /* no dma-buf exporter */
static void xrt__cpu_fill(xrt_backend *t)
{
    t->name = "cpu";
    t->flags = XRT_BACKEND_FORK_SAFE | XRT_BACKEND_HOST_FN_CALLS;
    t->init = xrt__cpu_init;
    t->shutdown = xrt__cpu_shutdown;
#define XRT__CPU_OP(op, params, args) t->op = xrt__cpu_##op;
    XRT__BACKEND_OPS(XRT__CPU_OP)
#undef XRT__CPU_OP
}

#pragma GCC diagnostic pop

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
