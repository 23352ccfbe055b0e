/* SPDX-License-Identifier: MIT */
/* trace.c - an xrt plugin: a backend named "trace" that forwards every
   operation to another backend and logs each call with its arguments, status
   and duration, one line per call; and, on request, writes a timeline that
   Perfetto (ui.perfetto.dev) and chrome://tracing open:

       trace: memcpy_async(dst=0x7f.., src=0x55.., size=4096, kind=host-to-device, stream=0x55..) -> success 1.2 us
       trace: rejected: xrt_memcpy: 8192 bytes at src 0x55.. overrun its allocation (4096 bytes at 0x55..) -> invalid value

   Build and use (`make examples` builds build/plugins/libxrt_trace.so):

       cc -std=c11 -I. -shared -fPIC -o libxrt_trace.so tools/trace.c
       XRT_PLUGINS=./libxrt_trace.so XRT_BACKEND=trace ./my_program
       XRT_PLUGINS=./libxrt_trace.so XRT_BACKEND=trace XRT_TRACE_JSON=trace.json ./my_program

   Environment:
     XRT_TRACE_BACKEND  the backend to trace (any registered name). Default:
                        the first available of cuda, hip, cpu. Read by the
                        tracer's init, which runs again after every
                        xrt_shutdown + init, so a change takes effect there.
     XRT_TRACE_FILE     where the lines go (appended to). Default: stderr, or
                        no lines when XRT_TRACE_JSON is set.
     XRT_TRACE_JSON     write the timeline to this file (Chrome trace event
                        JSON; replaced at the first init of the process, then
                        extended by later inits). In both names "%p" is the
                        process id ("%%" a '%'): a program that runs others
                        with its environment, each traced, gets one file per
                        process instead of a timeline its children replace.
     XRT_TRACE_LOOKUPS  a switch (1, on, ...): also log xrt's own pointer
                        lookups and other questions of the backend (below).

   What the tracer sees. Every operation xrt dispatches to it, and, through
   the host's error observer, every call that xrt rejects before dispatching
   (a bad handle, an overrunning copy, a NULL pointer): those are logged as
   "rejected" lines and timeline instants. xrt asks the backend about
   pointers missing from its registry (plain host memory) before copies: that
   lookup is xrt's, not the program's, and is logged only with
   XRT_TRACE_LOOKUPS=1, as a lookup that found nothing rather than a failure.
   So are xrt's other questions of the backend (host->own_call: the device of
   a new allocation, whether a stream captures, the stream-order checker's
   questions), as "xrt's own" lines; none of them is on the timeline.

   The timeline (XRT_TRACE_JSON). Each traced call is a span on the track of
   its host thread. Each operation queued on a stream (copies, sets, stream
   allocations and frees, waits, host functions, event records) is a span on
   a track per stream, from when the stream started it to when it finished:
   the tracer records two of the target's events around it and reads their
   times once they have completed (event timing, as CUDA, HIP and the CPU
   backend have). Host functions are timed where they run. Synchronous
   copies and sets appear on the default stream's track. Stream times are put
   on the host clock through a reference event recorded on an idle stream:
   on a GPU they can be off by the few microseconds a record takes to reach
   the device, never before the call that queued them. The file is valid
   JSON after every write: at xrt_shutdown, at exit, and whenever its buffer
   fills; only what a crash cuts off is lost. An operation is measured once
   the program synchronizes with it (a stream or device synchronize, or
   shutdown); one still queued at exit is left out.

   Races (XRT_CHECK=streams). With the stream-order checker on, the tracer
   is its race observer (host->set_race_observer, where the host has it): the
   checker tags each operation with its call's sequence number, and each
   report marks both of its operations on the timeline, on their calls'
   thread tracks and, when timed, their streams' tracks: an instant "race N"
   (category "race", the report in its args) and a flow arrow from the
   earlier operation to the later one. The reports still go to stderr.

   The tracer reaches xrt only through the xrt_plugin_host it is given: it
   does not define XRT_IMPL, and includes xrt.h for the types only.

   Handles and pointers. The stream and event objects of the tracer ARE its
   target's objects, but xrt's handle table records the backend a handle was
   created through, and its pointer registry the backend that allocated: a
   stream, event or allocation made with "trace" selected belongs to trace,
   one made with the target selected belongs to the target. Using one with
   the other is XRT_ERROR_INVALID_HANDLE / XRT_ERROR_INVALID_POINTER, as
   between any two backends; so the tracer sees every operation on its own
   objects. Memory the target knows natively (a cudaMalloc'd buffer) is
   reported as the tracer's, since the tracer drives that runtime.

   Host functions run on the target, wrapped so that xrt calls made from them
   dispatch to the tracer (where its handles are valid) when the target allows
   such calls at all; the tracer therefore declares XRT_BACKEND_HOST_FN_CALLS,
   and a target without it (CUDA, HIP) keeps its own rule: the function runs
   as it would untraced. Each run is logged as host_fn(...).

   Fork. The tracer is fork-safe only if its target is, but its flags are
   fixed when it registers, before init knows the target: it declares
   itself not fork-safe, so a forked child is refused the tracer (and can
   still use a fork-safe backend, such as cpu, directly). Its memory kind
   (XRT_BACKEND_*_MEMORY) is its target's: init hands it over through
   host->wraps, so that a PCI address or an RDMA registration answers as
   the target's would.

   The tracer neither initialises nor shuts down its target: xrt probes it
   (host->find_backend) and shuts it down like any other backend. An
   operation the target lacks is reported again under the tracer's name, so
   that the detail names the thread's backend as xrt's own stubs do. */
#define _GNU_SOURCE /* gettid, pthread_getname_np, program_invocation_short_name */
#include "xrt.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

typedef struct trace_state {
    const xrt_plugin_host *host;
    const xrt_backend *target; /* resolved by every init */
    const xrt_backend *self;   /* the registry's copy of the tracer's table, from init */
    FILE *out;                 /* stderr, XRT_TRACE_FILE, or NULL: no lines */
    int lookups;               /* XRT_TRACE_LOOKUPS */
} trace_state;

static trace_state trace;

/* Inside a traced call: errors recorded now are the call's own (its line says
   so), not a rejection by xrt. */
static __thread int trace_depth;

static const xrt_backend *trace_target(const xrt_backend *self) { return ((trace_state *)self->user)->target; }

/* TRACE_FWD(t->op(...)): a call to the target, inside the traced call. */
static xrt_status trace_fwd_done(xrt_status st)
{
    trace_depth--;
    return st;
}
#define TRACE_FWD(call) (trace_depth++, trace_fwd_done(call))

static uint64_t trace_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A function pointer as a printable address (ISO C has no cast for it). */
static void *trace_fn_addr(xrt_host_fn fn)
{
    void *p = NULL;
    memcpy(&p, &fn, sizeof(p) < sizeof(fn) ? sizeof(p) : sizeof(fn));
    return p;
}

static const char *trace_kind(xrt_memcpy_kind kind)
{
    static const char *const names[] = {"host-to-host", "host-to-device", "device-to-host", "device-to-device",
                                        "default"};
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "invalid";
}

/* A copy's span on a stream track, as Nsight Systems names them. */
static const char *trace_copy_name(xrt_memcpy_kind kind)
{
    static const char *const names[] = {"copy host-to-host", "copy host-to-device", "copy device-to-host",
                                        "copy device-to-device", "copy"};
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "copy";
}

/* >> timeline: Chrome trace event JSON, written as it goes */
#define TL_BUF (256u << 10)  /* events buffered before a write */
#define TL_DEVICES 16        /* devices with stream timing */
#define TL_THREADS 256       /* host threads that get a name */
#define TL_TRACKS 4096       /* live streams with a track */
#define TL_TRACK_TID 1000000 /* track k is "thread" TL_TRACK_TID + k */
#define TL_REF_AGE 1000000000u /* a reference older than 1 s is taken again (float ms lose precision) */

/* An operation queued on a stream, waiting for its times. */
typedef struct tl_op {
    struct tl_op *next;
    void *start, *end; /* the target's events around it; start NULL: an instant (an event record) */
    int host;          /* a host function: timed where it runs, done once `done` is set */
    int done;
    uint64_t host_start, host_end;
    int device, track;
    uint64_t call_ns, seq; /* the call that queued it */
    char name[64], args[200];
} tl_op;

typedef struct tl_track {
    void *stream; /* the target's object; NULL: the default stream */
    int device, id;
    uint64_t last_end; /* ops on one stream run one after another */
} tl_track;

static struct {
    pthread_mutex_t lock;
    FILE *file;
    char path[4096];
    int on;             /* the file is open: read without the lock (tl_on) */
    pid_t pid;          /* of the process that opened it: a forked child writes nothing */
    long footer_at;     /* where the closing "]}" starts; the next write replaces it */
    char *buf;
    size_t len;
    uint64_t base_ns;   /* ts 0 */
    uint64_t seq;       /* calls so far */
    int timing;         /* the target has event timing */
    tl_op *head, *tail; /* queued operations, in the order they were queued */
    tl_op *abandoned;   /* host functions still queued at exit: they may yet run */
    void *pool[TL_DEVICES][64];
    int npool[TL_DEVICES];
    void *ref[TL_DEVICES]; /* reference event per device, and its host time */
    uint64_t ref_ns[TL_DEVICES];
    tl_track tracks[TL_TRACKS];
    int ntracks, next_track;
    pid_t threads[TL_THREADS];
    int nthreads;
    unsigned long unmeasured; /* operations left out (still queued at exit, or no event) */
} tl = {PTHREAD_MUTEX_INITIALIZER, NULL, "", 0, 0, 0, NULL, 0, 0, 0, 0, NULL, NULL, NULL, {{0}}, {0}, {0}, {0},
        {{0, 0, 0, 0}}, 0, 0, {0}, 0, 0};

static __thread int tl_device = -1; /* the thread's current device as the tracer last saw it */
static __thread uint64_t tl_reserved; /* the sequence number the thread's current call will have */

/* Read without the lock by every traced call; set under it. */
static int tl_on(void) { return __atomic_load_n(&tl.on, __ATOMIC_ACQUIRE); }
static int tl_timed(void) { return __atomic_load_n(&tl.timing, __ATOMIC_ACQUIRE); }

/* Appends to the buffer (the lock is held). */
static void tl_put(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void tl_put(const char *fmt, ...)
{
    va_list ap;
    int n;
    if (!tl.buf && !(tl.buf = (char *)malloc(TL_BUF))) return;
    va_start(ap, fmt);
    n = vsnprintf(tl.buf + tl.len, TL_BUF - tl.len, fmt, ap);
    va_end(ap);
    if (n > 0 && (size_t)n < TL_BUF - tl.len) tl.len += (size_t)n;
}

/* A JSON string's contents: quotes, backslashes and control characters escaped. */
static void tl_escape(char *out, size_t n, const char *s)
{
    size_t o = 0;
    for (; *s && o + 7 < n; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') out[o++] = '\\', out[o++] = (char)c;
        else if (c < 0x20 || c >= 0x7f) o += (size_t)snprintf(out + o, n - o, "\\u%04x", c < 0x20 ? c : 0xfffd);
        else out[o++] = (char)c;
    }
    out[o] = 0;
}

static double tl_us(uint64_t ns) { return ns > tl.base_ns ? (double)(ns - tl.base_ns) / 1000.0 : 0.0; }

/* Writes the buffer and a closing "]}", then steps back before it: the file
   is valid JSON after every write, and the next one extends it. */
static void tl_write(void)
{
    static const char footer[] = "\n]}\n";
    if (!tl.file || tl.pid != getpid()) return;
    if (tl.len) fwrite(tl.buf, 1, tl.len, tl.file);
    tl.len = 0;
    tl.footer_at = ftell(tl.file);
    fputs(footer, tl.file);
    fflush(tl.file);
    fseek(tl.file, tl.footer_at, SEEK_SET);
}

/* Before each event: room for the largest one (an event that did not fit
   would leave a dangling comma). */
static void tl_event_start(void)
{
    if (tl.len > TL_BUF - 4096) tl_write();
    tl_put(",\n");
}

/* The calling thread's track: its first event names it. */
static pid_t tl_thread(void)
{
    pid_t tid = gettid();
    char name[64] = "", esc[160];
    int i;
    for (i = 0; i < tl.nthreads; i++)
        if (tl.threads[i] == tid) return tid;
    if (tl.nthreads == TL_THREADS) return tid;
    tl.threads[tl.nthreads++] = tid;
    if (pthread_getname_np(pthread_self(), name, sizeof name) != 0 || !name[0]) snprintf(name, sizeof name, "thread");
    tl_escape(esc, sizeof esc, name);
    tl_event_start();
    tl_put("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"%s %d\"}}", (int)tl.pid,
           (int)tid, esc, (int)tid);
    return tid;
}

/* The track of a stream of `device`, made (and named) on first use. */
static int tl_track_of(void *stream, int device)
{
    tl_track *k;
    int i;
    for (i = 0; i < tl.ntracks; i++)
        if (tl.tracks[i].stream == stream && tl.tracks[i].device == device) return tl.tracks[i].id;
    if (tl.ntracks == TL_TRACKS) return 0;
    k = &tl.tracks[tl.ntracks++];
    k->stream = stream;
    k->device = device;
    k->id = ++tl.next_track;
    k->last_end = 0;
    tl_event_start();
    if (stream)
        tl_put("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"stream %d (device %d, %p)\"}}",
               (int)tl.pid, TL_TRACK_TID + k->id, k->id, device, stream);
    else
        tl_put("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"default stream (device %d)\"}}",
               (int)tl.pid, TL_TRACK_TID + k->id, device);
    tl_event_start();
    tl_put("{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%d,\"args\":{\"sort_index\":%d}}",
           (int)tl.pid, TL_TRACK_TID + k->id, TL_TRACK_TID + k->id);
    return k->id;
}

static tl_track *tl_track_by_id(int id)
{
    int i;
    for (i = 0; i < tl.ntracks; i++)
        if (tl.tracks[i].id == id) return &tl.tracks[i];
    return NULL;
}

/* A destroyed stream's track is closed: a new stream at the same address gets its own. */
static void tl_track_close(void *stream, int device)
{
    int i;
    for (i = 0; i < tl.ntracks; i++)
        if (tl.tracks[i].stream == stream && tl.tracks[i].device == device && stream) {
            tl.tracks[i] = tl.tracks[--tl.ntracks];
            return;
        }
}

/* >> timeline: races. With XRT_CHECK=streams, the stream-order checker
   tags each operation it records with the sequence number of its traced
   call (tl_tag, through the host's race observer) and hands each report
   over with the tags of its two operations (tl_race_seen). Each of the two is
   then marked where it lies on the timeline, on its host thread's track
   (its call) and, when it was timed, on its stream's track: an instant
   "race" with the report and a flow arrow from the earlier operation to the
   later one, one arrow per kind of track. A span is found by its sequence
   number among the last TL_RING written; one not written yet (an operation
   still queued, a synchronous call that the checker records before it runs)
   is marked when it is; the earlier operation of a report more than
   TL_RING calls old is not. The lock is held throughout. */
#define TL_RING 1024  /* spans remembered, per kind of track */
#define TL_RACES 64   /* reports waiting for a span */

typedef struct tl_spot { uint64_t seq; int tid; double ts; } tl_spot;

typedef struct tl_race {
    unsigned id;
    uint64_t seq[2];    /* the earlier operation's call, the later one's */
    int marked[2][2];   /* [kind: call, stream][side] */
    char report[2048];
} tl_race;

static struct {
    tl_spot spots[2][TL_RING]; /* [kind], by seq % TL_RING */
    tl_race *waiting[TL_RACES];
    int nwaiting;
    unsigned races;
} tlr;

static __thread uint64_t tl_last; /* the sequence number of the thread's last traced call */

/* One side of a race at a span (kind 0: a call's, 1: a stream operation's). */
static void tl_race_mark(tl_race *r, int kind, int side, const tl_spot *at)
{
    static const char *const names[] = {"earlier", "later"};
    char esc[3000];
    tl_escape(esc, sizeof esc, r->report);
    tl_event_start();
    tl_put("{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"race\",\"name\":\"race %u\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,"
           "\"args\":{\"race\":%u,\"operation\":\"%s\",\"call\":%llu,\"report\":\"%s\"}}",
           r->id, (int)tl.pid, at->tid, at->ts, r->id, names[side], (unsigned long long)r->seq[side], esc);
    tl_event_start();
    tl_put("{\"ph\":\"%s\",\"bp\":\"e\",\"cat\":\"race\",\"name\":\"race %u\",\"id\":%u,\"pid\":%d,\"tid\":%d,"
           "\"ts\":%.3f}",
           side ? "f" : "s", r->id, 2 * r->id + (unsigned)kind, (int)tl.pid, at->tid, at->ts);
    r->marked[kind][side] = 1;
}

/* Marks what r can of a span just written (or of every one remembered,
   seq 0); whether r still waits for one. A side without a tag (0) is
   not the tracer's. */
static int tl_race_place(tl_race *r, int kind, uint64_t seq)
{
    int k, side, waits = 0;
    for (k = 0; k < 2; k++)
        for (side = 0; side < 2; side++) {
            const tl_spot *at = &tlr.spots[k][r->seq[side] % TL_RING];
            if (r->marked[k][side] || !r->seq[side]) continue;
            if (at->seq == r->seq[side] && (!seq || (k == kind && seq == at->seq))) tl_race_mark(r, k, side, at);
            else waits = 1;
        }
    return waits;
}

/* A span was written: it is remembered, and the reports waiting for it marked. */
static void tl_race_spot(int kind, uint64_t seq, int tid, uint64_t start, uint64_t end)
{
    tl_spot *at = &tlr.spots[kind][seq % TL_RING];
    int i;
    if (!seq) return;
    at->seq = seq;
    at->tid = tid;
    at->ts = tl_us(start + (end - start) / 2); /* inside the span: a flow binds to the span around it */
    for (i = 0; i < tlr.nwaiting; i++)
        if (!tl_race_place(tlr.waiting[i], kind, seq)) {
            free(tlr.waiting[i]);
            tlr.waiting[i--] = tlr.waiting[--tlr.nwaiting];
        }
}

/* The checker's tag of an operation: the sequence number of its traced
   call, the thread's last one (a queued operation is recorded after its
   call returned) or the one its next call will have (a synchronous copy or
   a free is recorded before the call: the number is reserved for it).
   Operations of other backends, or with no timeline, get none. */
static uint64_t tl_tag(void *user, const xrt_backend *b, int before)
{
    uint64_t seq;
    if (b != ((trace_state *)user)->self || !tl_on()) return 0;
    if (!before) return tl_last;
    pthread_mutex_lock(&tl.lock);
    if (!tl_reserved) tl_reserved = ++tl.seq;
    seq = tl_reserved;
    pthread_mutex_unlock(&tl.lock);
    return seq;
}

/* A report of the checker's: marked at once where it can be, else kept
   until its spans are written (the oldest waiting goes when full). */
static void tl_race_seen(void *user, const char *report, uint64_t earlier, uint64_t later)
{
    tl_race *r;
    (void)user;
    if (!earlier && !later) return;
    if (!(r = (tl_race *)calloc(1, sizeof *r))) return;
    r->seq[0] = earlier;
    r->seq[1] = later;
    snprintf(r->report, sizeof r->report, "%s", report);
    pthread_mutex_lock(&tl.lock);
    r->id = ++tlr.races;
    if (!tl_on() || !tl_race_place(r, 0, 0)) {
        free(r);
    } else {
        if (tlr.nwaiting == TL_RACES) {
            free(tlr.waiting[0]);
            tlr.waiting[0] = tlr.waiting[--tlr.nwaiting];
        }
        tlr.waiting[tlr.nwaiting++] = r;
    }
    pthread_mutex_unlock(&tl.lock);
}

/* A new timeline: what the last one remembered is not on it. */
static void tl_race_forget(void)
{
    while (tlr.nwaiting) free(tlr.waiting[--tlr.nwaiting]);
    memset(tlr.spots, 0, sizeof tlr.spots);
}

/* A traced call as a span on its thread's track; returns its sequence number. */
static uint64_t tl_call(const char *op, uint64_t t0, uint64_t t1, xrt_status st, const char *args)
{
    char esc[512];
    uint64_t seq;
    pid_t tid;
    pthread_mutex_lock(&tl.lock);
    if (!tl_on()) {
        pthread_mutex_unlock(&tl.lock);
        return 0;
    }
    if (t0 < tl.base_ns) t0 = tl.base_ns; /* init began before the file was opened */
    seq = tl_reserved ? tl_reserved : ++tl.seq;
    tl_reserved = 0;
    tid = tl_thread();
    tl_escape(esc, sizeof esc, args);
    tl_event_start();
    tl_put("{\"ph\":\"X\",\"cat\":\"call\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,"
           "\"args\":{\"args\":\"%s\",\"status\":\"%s\",\"seq\":%llu}}",
           op, (int)tl.pid, (int)tid, tl_us(t0), (double)(t1 - t0) / 1000.0, esc, xrt_status_string(st),
           (unsigned long long)seq);
    tl_last = seq;
    tl_race_spot(0, seq, (int)tid, t0, t1);
    pthread_mutex_unlock(&tl.lock);
    return seq;
}

/* A call xrt rejected: an instant on its thread's track. */
static void tl_rejected(xrt_status st, const char *detail)
{
    char call[64], name[400], esc[1100];
    size_t n = strcspn(detail, ":");
    pthread_mutex_lock(&tl.lock);
    if (tl_on()) {
        snprintf(call, sizeof call, "%.*s", (int)(n < 48 ? n : 48), detail);
        tl_escape(name, sizeof name, call);
        tl_escape(esc, sizeof esc, detail);
        tl_event_start();
        tl_put("{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"rejected\",\"name\":\"%s rejected\",\"pid\":%d,\"tid\":%d,"
               "\"ts\":%.3f,\"args\":{\"detail\":\"%s\",\"status\":\"%s\"}}",
               name, (int)tl.pid, (int)tl_thread(), tl_us(trace_now()), esc, xrt_status_string(st));
    }
    pthread_mutex_unlock(&tl.lock);
}

/* A span (zero-long for an event record) on a stream's track; its args name
   the call that queued it (`call` is that span's `seq`) and when. */
static void tl_stream_span(int track, uint64_t start, uint64_t end, uint64_t call_ns, uint64_t seq, const char *name,
                           const char *args)
{
    tl_track *k = tl_track_by_id(track);
    char esc[512];
    if (start < call_ns) start = call_ns; /* never before it was queued */
    if (k && start < k->last_end) start = k->last_end;
    if (end < start) end = start;
    if (k) k->last_end = end;
    tl_escape(esc, sizeof esc, args);
    tl_event_start();
    tl_put("{\"ph\":\"X\",\"cat\":\"stream\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,"
           "\"args\":{\"args\":\"%s\",\"call\":%llu,\"queued_at\":%.3f}}",
           name, (int)tl.pid, TL_TRACK_TID + track, tl_us(start), (double)(end - start) / 1000.0, esc,
           (unsigned long long)seq, tl_us(call_ns));
    tl_race_spot(1, seq, TL_TRACK_TID + track, start, end);
}

/* >> timeline: the target's events */
static void tl_release_event(const xrt_backend *t, int device, void *ev)
{
    if (!ev) return;
    if (tl.npool[device] < 64) tl.pool[device][tl.npool[device]++] = ev;
    else t->event_destroy(t, ev);
}

static void *tl_take_event(const xrt_backend *t, int device)
{
    void *ev = NULL;
    if (tl.npool[device]) return tl.pool[device][--tl.npool[device]];
    trace_depth++; /* a failure here is the tracer's, not the program's */
    if (t->event_create(t, &ev, XRT_EVENT_DEFAULT) != XRT_SUCCESS) ev = NULL;
    trace_depth--;
    return ev;
}

/* The thread's device, asked once and then followed through set_device. */
static int tl_current_device(const xrt_backend *t)
{
    int d = 0;
    if (tl_device < 0) tl_device = t->get_device(t, &d) == XRT_SUCCESS ? d : 0;
    return tl_device < TL_DEVICES ? tl_device : -1;
}

static int tl_ref_wanted(int device) { return !tl.ref[device] || trace_now() - tl.ref_ns[device] >= TL_REF_AGE; }

/* The tracer's own queries and records run in RELAXED capture mode, as a
   library's should (cudaThreadExchangeStreamCaptureMode): they must not
   invalidate a capture of the program's. Returns the thread's mode, for
   tl_restore; a target without the call has no modes to mind. */
static unsigned tl_relax(const xrt_backend *t)
{
    unsigned mode = XRT_CAPTURE_MODE_RELAXED;
    if (t->thread_exchange_stream_capture_mode(t, &mode) != XRT_SUCCESS) return XRT_CAPTURE_MODE_RELAXED;
    return mode;
}

static void tl_restore(const xrt_backend *t, unsigned mode)
{
    if (mode != XRT_CAPTURE_MODE_RELAXED) t->thread_exchange_stream_capture_mode(t, &mode);
}

/* A reference for `device` when it has none (or an old one): an event
   recorded on an idle stream completes at once, so its time is the host time
   of the record. Called without the lock: the target is never asked to
   queue work while the tracer holds it (a host function's span waits for it). */
static void tl_calibrate(const xrt_backend *t, void *stream, int device)
{
    uint64_t a, b;
    void *ev = NULL;
    xrt_status st = XRT_ERROR_NOT_READY;
    int tries;
    pthread_mutex_lock(&tl.lock);
    if (tl_ref_wanted(device)) ev = tl_take_event(t, device);
    pthread_mutex_unlock(&tl.lock);
    if (!ev) return;
    unsigned mode, capturing = 0;
    trace_depth++;
    mode = tl_relax(t);
    if (stream && (t->stream_is_capturing(t, stream, &capturing) != XRT_SUCCESS || capturing)) tries = 4; /* its work is a graph's */
    else tries = 0;
    for (; tries < 4; tries++) { /* again when the thread was held up meanwhile */
        a = trace_now();
        st = t->stream_query(t, stream) == XRT_SUCCESS ? t->event_record(t, ev, stream) : XRT_ERROR_NOT_READY;
        b = trace_now();
        if (st != XRT_SUCCESS || b - a < 20000) break;
    }
    tl_restore(t, mode);
    trace_depth--;
    pthread_mutex_lock(&tl.lock);
    if (st == XRT_SUCCESS && tl_ref_wanted(device)) {
        if (tl.ref[device]) tl_release_event(t, device, tl.ref[device]);
        tl.ref[device] = ev;
        tl.ref_ns[device] = a + (b - a) / 2;
    } else {
        tl_release_event(t, device, ev);
    }
    pthread_mutex_unlock(&tl.lock);
}

/* Host time of a completed event, through the reference; 0 if unknown. */
static uint64_t tl_event_time(const xrt_backend *t, int device, void *ev)
{
    float ms = 0;
    double ns;
    if (!tl.ref[device] || t->event_elapsed_time(t, &ms, tl.ref[device], ev) != XRT_SUCCESS) return 0;
    ns = (double)tl.ref_ns[device] + (double)ms * 1e6;
    return ns > 0 ? (uint64_t)ns : 0;
}

/* The times of a completed operation; 0 if it has not completed or cannot
   be placed yet. */
static int tl_times(const xrt_backend *t, tl_op *op, uint64_t *start, uint64_t *end)
{
    if (op->host) {
        if (!__atomic_load_n(&op->done, __ATOMIC_ACQUIRE)) return 0;
        *start = op->host_start;
        *end = op->host_end;
        return 1;
    }
    if (t->event_query(t, op->end) != XRT_SUCCESS || !tl.ref[op->device] ||
        !(*end = tl_event_time(t, op->device, op->end)))
        return 0;
    *start = op->start ? tl_event_time(t, op->device, op->start) : *end;
    return 1;
}

/* Emits the queued operations that have completed: all of them with `all`,
   else from the head while they have; a stream's operations in its order
   (one that cannot be placed yet holds back the later ones of its stream).
   The lock is held. */
static void tl_resolve(const xrt_backend *t, int all)
{
    tl_op **pp = &tl.head, *op;
    tl_op *last = NULL;
    int held[64], nheld = 0, i;
    unsigned mode;
    trace_depth++;
    mode = tl_relax(t);
    while ((op = *pp) != NULL) {
        uint64_t start = 0, end = 0;
        for (i = 0; i < nheld && held[i] != op->track; i++) continue;
        if (i < nheld || !tl_times(t, op, &start, &end)) {
            if (!all || (i == nheld && nheld == 64)) break;
            if (i == nheld) held[nheld++] = op->track;
            last = op;
            pp = &op->next;
            continue;
        }
        tl_stream_span(op->track, start ? start : end, end, op->call_ns, op->seq, op->name, op->args);
        tl_release_event(t, op->device, op->start);
        tl_release_event(t, op->device, op->end);
        *pp = op->next;
        if (op == tl.tail) tl.tail = last; /* the last one kept before it */
        free(op);
    }
    tl_restore(t, mode);
    trace_depth--;
}

/* Whether `stream` is being captured into a graph: its operations are
   recorded, not run, and an event recorded or a query made there would
   break the capture (the NULL stream is never captured). */
static int tl_capturing(const xrt_backend *t, void *stream)
{
    unsigned caps = 0, status = 0;
    return stream && t->get_capabilities(t, &caps) == XRT_SUCCESS && (caps & XRT_CAP_GRAPHS) &&
           t->stream_is_capturing(t, stream, &status) == XRT_SUCCESS && status != 0;
}

/* Before an operation on `stream`: its start event (NULL when the timeline is
   off, the target cannot time events, no event can be had, or the stream is
   being captured: the operation does not run now). */
static tl_op *tl_begin(const xrt_backend *t, void *stream, uint64_t t0, int instant)
{
    tl_op *op;
    int device;
    if (!tl_on() || !tl_timed() || (device = tl_current_device(t)) < 0 || tl_capturing(t, stream)) return NULL;
    if (!(op = (tl_op *)calloc(1, sizeof *op))) return NULL;
    tl_calibrate(t, stream, device);
    pthread_mutex_lock(&tl.lock);
    op->device = device;
    op->track = tl_track_of(stream, device);
    op->call_ns = t0;
    if (!instant) op->start = tl_take_event(t, device);
    pthread_mutex_unlock(&tl.lock);
    if (!instant && (!op->start || t->event_record(t, op->start, stream) != XRT_SUCCESS)) {
        pthread_mutex_lock(&tl.lock);
        tl_release_event(t, device, op->start);
        tl.unmeasured++;
        pthread_mutex_unlock(&tl.lock);
        free(op);
        return NULL;
    }
    return op;
}

/* After it: its end event, and the op joins the queue (or is dropped when the
   operation failed). */
static void tl_end(const xrt_backend *t, tl_op *op, void *stream, xrt_status st, uint64_t seq, const char *name,
                   const char *fmt, ...) __attribute__((format(printf, 7, 8)));
static void tl_end(const xrt_backend *t, tl_op *op, void *stream, xrt_status st, uint64_t seq, const char *name,
                   const char *fmt, ...)
{
    va_list ap;
    if (!op) return;
    trace_depth++;
    pthread_mutex_lock(&tl.lock);
    if (st == XRT_SUCCESS && !tl_capturing(t, stream)) op->end = tl_take_event(t, op->device); /* a wait that joined a capture: no end */
    pthread_mutex_unlock(&tl.lock);
    if (op->end && t->event_record(t, op->end, stream) != XRT_SUCCESS) {
        pthread_mutex_lock(&tl.lock);
        tl_release_event(t, op->device, op->end);
        pthread_mutex_unlock(&tl.lock);
        op->end = NULL;
    }
    trace_depth--;
    pthread_mutex_lock(&tl.lock);
    if (!op->end) {
        if (st == XRT_SUCCESS) tl.unmeasured++;
        tl_release_event(t, op->device, op->start);
        free(op);
        pthread_mutex_unlock(&tl.lock);
        return;
    }
    op->seq = seq;
    snprintf(op->name, sizeof op->name, "%s", name);
    va_start(ap, fmt);
    vsnprintf(op->args, sizeof op->args, fmt, ap);
    va_end(ap);
    if (tl.tail) tl.tail->next = op;
    else tl.head = op;
    tl.tail = op;
    tl_resolve(t, 0);
    pthread_mutex_unlock(&tl.lock);
}

/* After a synchronization: `stream` is idle (a reference can be taken on it)
   and what it waited for has completed. */
static void tl_synced(const xrt_backend *t, void *stream)
{
    int device;
    if (!tl_on() || !tl_timed()) return;
    if ((device = tl_current_device(t)) >= 0) tl_calibrate(t, stream, device);
    pthread_mutex_lock(&tl.lock);
    tl_resolve(t, 1);
    pthread_mutex_unlock(&tl.lock);
}

/* After a device synchronize: everything of this device has completed, and
   its events are given back to the target (xrt's shutdown synchronizes each
   backend before it shuts them down: the target goes first, so the tracer
   holds none of its objects then). */
static void tl_release_all(const xrt_backend *t)
{
    int device, busy = 0;
    tl_op *op;
    if (!tl_on() || !tl_timed()) return;
    if ((device = tl_current_device(t)) >= 0) tl_calibrate(t, NULL, device);
    pthread_mutex_lock(&tl.lock);
    trace_depth++;
    if (device >= 0) {
        tl_resolve(t, 1);
        for (op = tl.head; op; op = op->next) busy |= op->device == device;
        if (!busy) {
            while (tl.npool[device]) t->event_destroy(t, tl.pool[device][--tl.npool[device]]);
            if (tl.ref[device]) t->event_destroy(t, tl.ref[device]);
            tl.ref[device] = NULL;
        }
    }
    trace_depth--;
    pthread_mutex_unlock(&tl.lock);
}

/* >> timeline: the file */
static void tl_header(const char *target)
{
    char esc[256];
    tl_escape(esc, sizeof esc, program_invocation_short_name);
    tl_put("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":\"xrt trace plugin\",\"xrt_version\":\"%d.%d.%d\","
           "\"target\":\"%s\"},\n\"traceEvents\":[\n",
           XRT_VERSION_MAJOR, XRT_VERSION_MINOR, XRT_VERSION_PATCH, target);
    tl_put("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":\"%s (xrt trace)\"}}", (int)tl.pid,
           esc);
}

/* The last words: what could not be measured, then the file is complete. */
static void tl_finish(const xrt_backend *t)
{
    tl_op *op;
    if (!tl.file || tl.pid != getpid()) return;
    if (t && tl.timing) tl_resolve(t, 1);
    for (op = tl.head; op; op = tl.head) { /* still queued: their events stay with the target */
        tl.head = op->next;
        tl.unmeasured++;
        if (op->host && !__atomic_load_n(&op->done, __ATOMIC_ACQUIRE)) { /* it may yet run and write here */
            op->next = tl.abandoned;
            tl.abandoned = op;
        } else {
            free(op);
        }
    }
    tl.tail = NULL;
    if (tl.unmeasured) {
        tl_event_start();
        tl_put("{\"ph\":\"i\",\"s\":\"g\",\"cat\":\"trace\",\"name\":\"%lu operations not measured\",\"pid\":%d,"
               "\"tid\":0,\"ts\":%.3f}",
               tl.unmeasured, (int)tl.pid, tl_us(trace_now()));
        tl.unmeasured = 0;
    }
    tl_write();
}

/* Completes and closes the file; at exit, the target may still be up. */
static void tl_close(const xrt_backend *target)
{
    pthread_mutex_lock(&tl.lock);
    tl_finish(target);
    if (tl.file && tl.pid == getpid()) fclose(tl.file);
    tl.file = NULL;
    __atomic_store_n(&tl.on, 0, __ATOMIC_RELEASE);
    tl.path[0] = 0;
    pthread_mutex_unlock(&tl.lock);
}

static void tl_at_exit(void) { tl_close(trace.target); }

/* Opens XRT_TRACE_JSON at the first init; a later init with the same name
   extends the same timeline, another name starts a new file. */
static int tl_open(const char *path, const xrt_backend *target, char *reason, size_t n)
{
    static int registered;
    unsigned caps = 0;
    pthread_mutex_lock(&tl.lock);
    __atomic_store_n(&tl.timing, target->get_capabilities(target, &caps) == XRT_SUCCESS && (caps & XRT_CAP_EVENT_TIMING),
                     __ATOMIC_RELEASE);
    if (tl.file && strcmp(tl.path, path) == 0) {
        pthread_mutex_unlock(&tl.lock);
        return 0;
    }
    if (tl.file) {
        tl_finish(NULL);
        fclose(tl.file);
        __atomic_store_n(&tl.on, 0, __ATOMIC_RELEASE);
    }
    tl.file = fopen(path, "w");
    if (!tl.file) {
        snprintf(reason, n, "XRT_TRACE_JSON=%.128s: %s", path, strerror(errno));
        pthread_mutex_unlock(&tl.lock);
        return -1;
    }
    snprintf(tl.path, sizeof tl.path, "%s", path);
    tl.pid = getpid();
    tl.base_ns = trace_now();
    tl.nthreads = tl.ntracks = 0;
    tl_race_forget();
    tl_header(target->name);
    tl_write();
    __atomic_store_n(&tl.on, 1, __ATOMIC_RELEASE);
    if (!registered) registered = atexit(tl_at_exit) == 0;
    pthread_mutex_unlock(&tl.lock);
    return 0;
}

/* >> the log */
/* Writes "trace: op(args) -> status T us" as one write, so that lines of
   concurrent calls do not interleave; and the call's span on the timeline.
   Returns the span's sequence number. */
/* A question xrt asks the backend itself (host->own_call, where the host
   has it), not a call of the program's. */
static int trace_own_call(const trace_state *ts)
{
    const xrt_plugin_host *h = ts->host;
    return h->size >= offsetof(xrt_plugin_host, own_call) + sizeof h->own_call && h->own_call && h->own_call();
}

/* Logs a traced call and puts it on the timeline; xrt's own questions are
   logged only with XRT_TRACE_LOOKUPS=1, as "xrt's own", and not put there
   (sequence number 0). */
static uint64_t trace_line(const xrt_backend *self, const char *op, uint64_t t0, xrt_status st, const char *fmt,
                           va_list ap)
{
    trace_state *ts = (trace_state *)self->user;
    char args[384], line[512];
    uint64_t t1 = trace_now();
    int own = trace_own_call(ts);
    vsnprintf(args, sizeof args, fmt, ap);
    if (ts->out && (!own || ts->lookups)) {
        snprintf(line, sizeof line, "trace: %s%s(%s) -> %s %.1f us\n", own ? "xrt's own " : "", op, args,
                 xrt_status_string(st), (double)(t1 - t0) / 1000.0);
        fputs(line, ts->out);
    }
    return own ? 0 : tl_call(op, t0, t1, st, args);
}

/* Ends every traced call: logs it and returns its status (with the call's
   sequence number in *seq, when asked). */
static xrt_status trace_end_seq(const xrt_backend *self, uint64_t *seq, const char *op, uint64_t t0, xrt_status st,
                                const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static xrt_status trace_end_seq(const xrt_backend *self, uint64_t *seq, const char *op, uint64_t t0, xrt_status st,
                                const char *fmt, ...)
{
    trace_state *ts = (trace_state *)self->user;
    uint64_t n;
    va_list ap;
    va_start(ap, fmt);
    n = trace_line(self, op, t0, st, fmt, ap);
    va_end(ap);
    if (seq) *seq = n;
    if (st == XRT_ERROR_UNSUPPORTED) {
        char detail[256];
        snprintf(detail, sizeof detail, "%s", ts->host->last_error_string());
        trace_depth++;
        st = ts->host->error(st, "trace", "xrt_%s: not supported by backend %s (target: %s)", op, self->name, detail);
        trace_depth--;
    }
    return st;
}

#define trace_end(self, op, t0, st, ...) trace_end_seq(self, NULL, op, t0, st, __VA_ARGS__)

/* >> trace: the generated forwarders. Every operation of xrt's list gets one
   (trace_default_<name>): it passes the call on to the target, logs it with
   its arguments as passed and adds its span to the timeline. An operation
   whose line should show more (what it wrote), or that keeps state for the
   timeline, has its own trace_<name> below, named in TRACE_OWN. */

/* How an argument is printed, chosen by its type: numbers as numbers, a
   string in quotes, a dim3 as (x,y,z), anything else of a pointer's size as
   an address (an out-pointer shows where the result goes, not the result). */
typedef enum trace_arg_kind {
    TRACE_INT, TRACE_UINT, TRACE_LONG, TRACE_ULONG, TRACE_LLONG, TRACE_ULLONG, TRACE_DOUBLE, TRACE_FLOAT,
    TRACE_STRING, TRACE_DIM3, TRACE_OTHER
} trace_arg_kind;

#define TRACE_ARG_KIND(x)                                                                                    \
    _Generic((x), int: TRACE_INT, unsigned: TRACE_UINT, long: TRACE_LONG, unsigned long: TRACE_ULONG,       \
             long long: TRACE_LLONG, unsigned long long: TRACE_ULLONG, double: TRACE_DOUBLE, float: TRACE_FLOAT, \
             const char *: TRACE_STRING, xrt_dim3: TRACE_DIM3, default: TRACE_OTHER)

typedef struct trace_args {
    char text[384];
    size_t len;
} trace_args;

/* Appends "name=value" (p: the argument's address, size: its size). */
static void trace_arg(trace_args *a, const char *name, trace_arg_kind kind, const void *p, size_t size)
{
    char v[96];
    const xrt_dim3 *d = (const xrt_dim3 *)p;
    const char *s;
    void *ptr = NULL;
    int k;
    switch (kind) {
    case TRACE_INT: snprintf(v, sizeof v, "%d", *(const int *)p); break;
    case TRACE_UINT: snprintf(v, sizeof v, "%u", *(const unsigned *)p); break;
    case TRACE_LONG: snprintf(v, sizeof v, "%ld", *(const long *)p); break;
    case TRACE_ULONG: snprintf(v, sizeof v, "%lu", *(const unsigned long *)p); break;
    case TRACE_LLONG: snprintf(v, sizeof v, "%lld", *(const long long *)p); break;
    case TRACE_ULLONG: snprintf(v, sizeof v, "%llu", *(const unsigned long long *)p); break;
    case TRACE_DOUBLE: snprintf(v, sizeof v, "%g", *(const double *)p); break;
    case TRACE_FLOAT: snprintf(v, sizeof v, "%g", (double)*(const float *)p); break;
    case TRACE_STRING:
        s = *(const char *const *)p;
        if (s) snprintf(v, sizeof v, "\"%.64s\"", s);
        else snprintf(v, sizeof v, "NULL");
        break;
    case TRACE_DIM3: snprintf(v, sizeof v, "(%u,%u,%u)", d->x, d->y, d->z); break;
    default: /* an object or function pointer: its address; any other value: its size */
        if (size == sizeof ptr) memcpy(&ptr, p, sizeof ptr);
        if (size == sizeof ptr) snprintf(v, sizeof v, "%p", ptr);
        else snprintf(v, sizeof v, "(%zu bytes)", size);
        break;
    }
    k = snprintf(a->text + a->len, sizeof a->text - a->len, "%s%s=%s", a->len ? ", " : "", name, v);
    if (k > 0) a->len = a->len + (size_t)k < sizeof a->text ? a->len + (size_t)k : sizeof a->text - 1;
}

/* TRACE_ARGS((self, a, b)): appends a and b to trace_args_ (self is not
   printed). Up to 16 names, self included; a longer list fails to compile
   here (an undeclared TRACE_ARGS_<name>): add rows. */
#define TRACE_ARG(x) trace_arg(&trace_args_, #x, TRACE_ARG_KIND(x), &(x), sizeof(x));
#define TRACE_NARGS(...) TRACE_NARGS_(__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define TRACE_NARGS_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, n, ...) n
#define TRACE_CAT(a, b) TRACE_CAT_(a, b)
#define TRACE_CAT_(a, b) a##b
#define TRACE_ARGS(list) TRACE_ARGS_ list
#define TRACE_ARGS_(...) TRACE_CAT(TRACE_ARGS_, TRACE_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define TRACE_ARGS_1(s)
#define TRACE_ARGS_2(s, a) TRACE_ARG(a)
#define TRACE_ARGS_3(s, a, b) TRACE_ARGS_2(s, a) TRACE_ARG(b)
#define TRACE_ARGS_4(s, a, b, c) TRACE_ARGS_3(s, a, b) TRACE_ARG(c)
#define TRACE_ARGS_5(s, a, b, c, d) TRACE_ARGS_4(s, a, b, c) TRACE_ARG(d)
#define TRACE_ARGS_6(s, a, b, c, d, e) TRACE_ARGS_5(s, a, b, c, d) TRACE_ARG(e)
#define TRACE_ARGS_7(s, a, b, c, d, e, f) TRACE_ARGS_6(s, a, b, c, d, e) TRACE_ARG(f)
#define TRACE_ARGS_8(s, a, b, c, d, e, f, g) TRACE_ARGS_7(s, a, b, c, d, e, f) TRACE_ARG(g)
#define TRACE_ARGS_9(s, a, b, c, d, e, f, g, h) TRACE_ARGS_8(s, a, b, c, d, e, f, g) TRACE_ARG(h)
#define TRACE_ARGS_10(s, a, b, c, d, e, f, g, h, i) TRACE_ARGS_9(s, a, b, c, d, e, f, g, h) TRACE_ARG(i)
#define TRACE_ARGS_11(s, a, b, c, d, e, f, g, h, i, j) TRACE_ARGS_10(s, a, b, c, d, e, f, g, h, i) TRACE_ARG(j)
#define TRACE_ARGS_12(s, a, b, c, d, e, f, g, h, i, j, k) TRACE_ARGS_11(s, a, b, c, d, e, f, g, h, i, j) TRACE_ARG(k)
#define TRACE_ARGS_13(s, a, b, c, d, e, f, g, h, i, j, k, l) TRACE_ARGS_12(s, a, b, c, d, e, f, g, h, i, j, k) TRACE_ARG(l)
#define TRACE_ARGS_14(s, a, b, c, d, e, f, g, h, i, j, k, l, m) TRACE_ARGS_13(s, a, b, c, d, e, f, g, h, i, j, k, l) TRACE_ARG(m)
#define TRACE_ARGS_15(s, a, b, c, d, e, f, g, h, i, j, k, l, m, n) TRACE_ARGS_14(s, a, b, c, d, e, f, g, h, i, j, k, l, m) TRACE_ARG(n)
#define TRACE_ARGS_16(s, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o) TRACE_ARGS_15(s, a, b, c, d, e, f, g, h, i, j, k, l, m, n) TRACE_ARG(o)

/* The forwarder: the target's call is made with `self` bound to the target
   (the list's arguments name `self` first), in a block of its own. Its own
   names end in _ so that no parameter's name can clash with them. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#define TRACE_DEFAULT(op, params, list)                                      \
    static __attribute__((unused)) xrt_status trace_default_##op params      \
    {                                                                        \
        const xrt_backend *const trace_self_ = self;                         \
        uint64_t trace_t0_ = trace_now();                                    \
        trace_args trace_args_ = {"", 0};                                    \
        xrt_status trace_st_;                                                \
        {                                                                    \
            const xrt_backend *const self = trace_target(trace_self_);       \
            trace_st_ = TRACE_FWD(self->op list);                            \
        }                                                                    \
        TRACE_ARGS(list)                                                     \
        return trace_end(trace_self_, #op, trace_t0_, trace_st_, "%s", trace_args_.text); \
    }
XRT_BACKEND_OPS(TRACE_DEFAULT)
#undef TRACE_DEFAULT
#pragma GCC diagnostic pop

/* Every error xrt records, from the host's observer: those of calls xrt
   rejected before the tracer saw them are logged here. */
static void trace_on_error(xrt_status st, const char *backend, const char *detail, void *user)
{
    trace_state *ts = (trace_state *)user;
    char line[768];
    if (trace_depth || !ts->self || !backend || strcmp(backend, ts->self->name) != 0) return;
    if (ts->out) {
        snprintf(line, sizeof line, "trace: rejected: %s -> %s\n", detail, xrt_status_string(st));
        fputs(line, ts->out);
    }
    tl_rejected(st, detail);
}

/* >> trace: lifecycle */
static const xrt_backend *trace_resolve(const xrt_backend *self, char *reason, size_t n)
{
    static const char *const dflt[] = {"cuda", "hip", "cpu"};
    const char *want = getenv("XRT_TRACE_BACKEND");
    const xrt_backend *t = NULL;
    size_t i;
    if (want && want[0]) {
        if (strcasecmp(want, self->name) == 0) { /* names match without regard to case */
            snprintf(reason, n, "XRT_TRACE_BACKEND=%.64s: the tracer cannot trace itself", want);
            return NULL;
        }
        t = trace.host->find_backend(want);
        if (!t) snprintf(reason, n, "XRT_TRACE_BACKEND=%.64s: no such backend, or it is unavailable", want);
        return t;
    }
    for (i = 0; i < sizeof dflt / sizeof dflt[0] && !t; i++) t = trace.host->find_backend(dflt[i]);
    if (!t) snprintf(reason, n, "none of cuda, hip, cpu is available to trace (set XRT_TRACE_BACKEND)");
    return t;
}

/* The host has an error observer when its size covers the field. */
static int trace_host_observes(const xrt_plugin_host *h)
{
    return h->size >= offsetof(xrt_plugin_host, set_error_observer) + sizeof h->set_error_observer &&
           h->set_error_observer;
}

/* An older xrt's host cannot give the tracer its target's memory kind. */
static int trace_host_wraps(const xrt_plugin_host *h)
{
    return h->size >= offsetof(xrt_plugin_host, wraps) + sizeof h->wraps && h->wraps;
}

/* An older xrt's host has no race observer: no races on the timeline. */
static int trace_host_races(const xrt_plugin_host *h)
{
    return h->size >= offsetof(xrt_plugin_host, set_race_observer) + sizeof h->set_race_observer &&
           h->set_race_observer;
}

/* An output file's name from its variable's value: "%p" becomes the
   process id, so that processes sharing an environment (a program and the
   programs it runs) write a file each; "%%" is one '%'. -1 (reason set)
   when the name does not fit. */
static int trace_path(const char *var, const char *value, char *out, size_t size, char *reason, size_t n)
{
    const char *c;
    size_t o = 0;
    out[0] = 0;
    for (c = value; *c; c++) {
        if (c[0] == '%' && c[1] == 'p') o += (size_t)snprintf(out + o, size - o, "%ld", (long)getpid()), c++;
        else if (c[0] == '%' && c[1] == '%') o += (size_t)snprintf(out + o, size - o, "%%"), c++;
        else o += (size_t)snprintf(out + o, size - o, "%c", *c);
        if (o >= size) {
            snprintf(reason, n, "%s=%.64s...: the file name is over %zu bytes", var, value, size - 1);
            return -1;
        }
    }
    return 0;
}

static xrt_status trace_init(const xrt_backend *self, char *reason, size_t n)
{
    trace_state *ts = (trace_state *)self->user;
    const char *file = getenv("XRT_TRACE_FILE"), *json = getenv("XRT_TRACE_JSON"),
               *lookups = getenv("XRT_TRACE_LOOKUPS");
    char file_path[4096], json_path[4096];
    uint64_t t0 = trace_now();
    ts->target = trace_resolve(self, reason, n);
    if (!ts->target) return XRT_ERROR_BACKEND_UNAVAILABLE;
    /* its memory is the target's: a PCI address, RDMA registration answer as the target's would */
    if (trace_host_wraps(ts->host) && ts->host->wraps(self, ts->target) != XRT_SUCCESS) {
        snprintf(reason, n, "%s", ts->host->last_error_string());
        return XRT_ERROR_BACKEND_UNAVAILABLE;
    }
    ts->self = self;
    ts->lookups = lookups && lookups[0] ? xrt__env_parse_switch(lookups) : 0; /* a switch, by xrt's rule */
    if (ts->lookups < 0) {
        ts->host->log(XRT_LOG_WARN, "XRT_TRACE_LOOKUPS=%.64s: not a switch (valid: " XRT__ENV_SWITCH_VALID "); ignored", lookups);
        ts->lookups = 0;
    }
    if (file && file[0] && trace_path("XRT_TRACE_FILE", file, file_path, sizeof file_path, reason, n) != 0)
        return XRT_ERROR_BACKEND_UNAVAILABLE;
    if (json && json[0] && trace_path("XRT_TRACE_JSON", json, json_path, sizeof json_path, reason, n) != 0)
        return XRT_ERROR_BACKEND_UNAVAILABLE;
    ts->out = json && json[0] ? NULL : stderr;
    if (file && file[0]) {
        if (!(ts->out = fopen(file_path, "a"))) {
            snprintf(reason, n, "XRT_TRACE_FILE=%.128s: %s", file_path, strerror(errno));
            return XRT_ERROR_BACKEND_UNAVAILABLE;
        }
        setvbuf(ts->out, NULL, _IOLBF, 0); /* a line is out when its call returns */
    }
    if (!json || !json[0]) tl_close(NULL); /* a later init without it ends the timeline */
    else if (tl_open(json_path, ts->target, reason, n) != 0) {
        if (ts->out && ts->out != stderr) fclose(ts->out);
        ts->out = NULL;
        return XRT_ERROR_BACKEND_UNAVAILABLE;
    }
    if (trace_host_observes(ts->host)) ts->host->set_error_observer(trace_on_error, ts);
    if (trace_host_races(ts->host)) ts->host->set_race_observer(tl_tag, tl_race_seen, ts);
    return trace_end(self, "init", t0, XRT_SUCCESS, "target=%s", ts->target->name);
}

/* Runs after the target's own shutdown (xrt shuts backends down in
   registration order); only the log file is the tracer's to close, and the
   timeline is written out (and stays open for a later init). */
static void trace_shutdown(const xrt_backend *self)
{
    trace_state *ts = (trace_state *)self->user;
    trace_end(self, "shutdown", trace_now(), XRT_SUCCESS, "target=%s", ts->target->name);
    if (trace_host_observes(ts->host)) ts->host->set_error_observer(NULL, NULL);
    if (trace_host_races(ts->host)) ts->host->set_race_observer(NULL, NULL, NULL);
    pthread_mutex_lock(&tl.lock);
    tl_finish(NULL); /* the target is down: what is still queued is left out */
    pthread_mutex_unlock(&tl.lock);
    if (ts->out && ts->out != stderr) fclose(ts->out);
    ts->out = NULL;
    ts->target = NULL;
    tl_device = -1;
}

/* >> trace: devices */
static xrt_status trace_get_capabilities(const xrt_backend *self, unsigned *caps)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = TRACE_FWD(t->get_capabilities(t, caps));
    return trace_end(self, "get_capabilities", t0, st, "*caps=0x%x", st == XRT_SUCCESS ? *caps : 0u);
}

static xrt_status trace_get_device_count(const xrt_backend *self, int *count)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = TRACE_FWD(t->get_device_count(t, count));
    return trace_end(self, "get_device_count", t0, st, "*count=%d", st == XRT_SUCCESS ? *count : -1);
}

static xrt_status trace_set_device(const xrt_backend *self, int device)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = TRACE_FWD(t->set_device(t, device));
    if (st == XRT_SUCCESS) tl_device = device;
    return trace_end(self, "set_device", t0, st, "device=%d", device);
}

static xrt_status trace_get_device(const xrt_backend *self, int *device)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = TRACE_FWD(t->get_device(t, device));
    return trace_end(self, "get_device", t0, st, "*device=%d", st == XRT_SUCCESS ? *device : -1);
}

static xrt_status trace_device_synchronize(const xrt_backend *self)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = TRACE_FWD(t->device_synchronize(t));
    if (st == XRT_SUCCESS) tl_release_all(t);
    return trace_end(self, "device_synchronize", t0, st, "%s", "");
}

static xrt_status trace_get_device_properties(const xrt_backend *self, xrt_device_prop *prop, int device)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = TRACE_FWD(t->get_device_properties(t, prop, device));
    return trace_end(self, "get_device_properties", t0, st, "device=%d, arch=%s", device,
                     st == XRT_SUCCESS ? prop->arch : "?");
}

/* >> trace: memory */
static xrt_status trace_malloc(const xrt_backend *self, void **ptr, size_t size)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = TRACE_FWD(t->malloc(t, ptr, size));
    return trace_end(self, "malloc", t0, st, "size=%zu, *ptr=%p", size, *ptr);
}

static xrt_status trace_malloc_host(const xrt_backend *self, void **ptr, size_t size)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = TRACE_FWD(t->malloc_host(t, ptr, size));
    return trace_end(self, "malloc_host", t0, st, "size=%zu, *ptr=%p", size, *ptr);
}

static xrt_status trace_malloc_async(const xrt_backend *self, void **ptr, size_t size, void *stream)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now(), seq;
    tl_op *op = tl_begin(t, stream, t0, 0);
    xrt_status st = TRACE_FWD(t->malloc_async(t, ptr, size, stream));
    trace_end_seq(self, &seq, "malloc_async", t0, st, "size=%zu, stream=%p, *ptr=%p", size, stream, *ptr);
    tl_end(t, op, stream, st, seq, "alloc", "%zu bytes at %p", size, *ptr);
    return st;
}

static xrt_status trace_free_async(const xrt_backend *self, void *ptr, void *stream)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now(), seq;
    tl_op *op = tl_begin(t, stream, t0, 0);
    xrt_status st = TRACE_FWD(t->free_async(t, ptr, stream));
    trace_end_seq(self, &seq, "free_async", t0, st, "ptr=%p, stream=%p", ptr, stream);
    tl_end(t, op, stream, st, seq, "free", "%p", ptr);
    return st;
}

static xrt_status trace_mem_get_info(const xrt_backend *self, size_t *free_bytes, size_t *total_bytes)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = TRACE_FWD(t->mem_get_info(t, free_bytes, total_bytes));
    return trace_end(self, "mem_get_info", t0, st, "*free=%zu, *total=%zu", st == XRT_SUCCESS ? *free_bytes : 0,
                     st == XRT_SUCCESS ? *total_bytes : 0);
}

static xrt_status trace_memset(const xrt_backend *self, void *dst, int value, size_t size)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now(), seq;
    tl_op *op = tl_begin(t, NULL, t0, 0); /* ordered on the default stream */
    xrt_status st = TRACE_FWD(t->memset(t, dst, value, size));
    trace_end_seq(self, &seq, "memset", t0, st, "dst=%p, value=%d, size=%zu", dst, value, size);
    tl_end(t, op, NULL, st, seq, "set", "%zu bytes at %p to %d", size, dst, value);
    return st;
}

static xrt_status trace_memset_async(const xrt_backend *self, void *dst, int value, size_t size, void *stream)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now(), seq;
    tl_op *op = tl_begin(t, stream, t0, 0);
    xrt_status st = TRACE_FWD(t->memset_async(t, dst, value, size, stream));
    trace_end_seq(self, &seq, "memset_async", t0, st, "dst=%p, value=%d, size=%zu, stream=%p", dst, value, size,
                  stream);
    tl_end(t, op, stream, st, seq, "set", "%zu bytes at %p to %d", size, dst, value);
    return st;
}

static xrt_status trace_memcpy(const xrt_backend *self, void *dst, const void *src, size_t size, xrt_memcpy_kind kind)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now(), seq;
    tl_op *op = tl_begin(t, NULL, t0, 0); /* ordered on the default stream */
    xrt_status st = TRACE_FWD(t->memcpy(t, dst, src, size, kind));
    trace_end_seq(self, &seq, "memcpy", t0, st, "dst=%p, src=%p, size=%zu, kind=%s", dst, src, size, trace_kind(kind));
    tl_end(t, op, NULL, st, seq, trace_copy_name(kind), "%zu bytes, %p to %p", size, src, dst);
    return st;
}

static xrt_status trace_memcpy_async(const xrt_backend *self, void *dst, const void *src, size_t size,
                                     xrt_memcpy_kind kind, void *stream)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now(), seq;
    tl_op *op = tl_begin(t, stream, t0, 0);
    xrt_status st = TRACE_FWD(t->memcpy_async(t, dst, src, size, kind, stream));
    trace_end_seq(self, &seq, "memcpy_async", t0, st, "dst=%p, src=%p, size=%zu, kind=%s, stream=%p", dst, src, size,
                  trace_kind(kind), stream);
    tl_end(t, op, stream, st, seq, trace_copy_name(kind), "%zu bytes, %p to %p", size, src, dst);
    return st;
}

/* xrt asks only about pointers missing from its registry (before a copy
   from plain host memory, for one): what the target knows natively is the
   tracer's (see the top of the file). An answer of "unknown" is not a
   failure, and the lookup is xrt's, not the program's: it is logged only with
   XRT_TRACE_LOOKUPS=1, and never recorded as the thread's error. */
static xrt_status trace_pointer_get_attributes(const xrt_backend *self, xrt_pointer_attributes *attr,
                                               const void *ptr)
{
    static const char *const types[] = {"unknown", "host", "pinned host", "device", "managed"};
    trace_state *ts = (trace_state *)self->user;
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = TRACE_FWD(t->pointer_get_attributes(t, attr, ptr));
    char line[256];
    if (st == XRT_SUCCESS && attr->backend && strcmp(attr->backend, t->name) == 0) attr->backend = self->name;
    if (ts->lookups && ts->out) {
        if (st == XRT_SUCCESS && (unsigned)attr->type < 5)
            snprintf(line, sizeof line, "trace: pointer lookup(ptr=%p) -> %s memory %.1f us\n", ptr, types[attr->type],
                     (double)(trace_now() - t0) / 1000.0);
        else
            snprintf(line, sizeof line, "trace: pointer lookup(ptr=%p) -> unknown to %s %.1f us\n", ptr, t->name,
                     (double)(trace_now() - t0) / 1000.0);
        fputs(line, ts->out);
    }
    return st;
}

static xrt_status trace_mem_export_dmabuf(const xrt_backend *self, const void *ptr, size_t size, int *fd,
                                          uint64_t *offset)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = TRACE_FWD(t->mem_export_dmabuf(t, ptr, size, fd, offset));
    return trace_end(self, "mem_export_dmabuf", t0, st, "ptr=%p, size=%zu, *fd=%d, *offset=%llu", ptr, size,
                     st == XRT_SUCCESS ? *fd : -1, st == XRT_SUCCESS ? (unsigned long long)*offset : 0ull);
}

/* >> trace: streams */
static xrt_status trace_stream_create(const xrt_backend *self, void **stream)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = TRACE_FWD(t->stream_create(t, stream));
    return trace_end(self, "stream_create", t0, st, "*stream=%p", *stream);
}

static xrt_status trace_stream_destroy(const xrt_backend *self, void *stream)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = TRACE_FWD(t->stream_destroy(t, stream));
    if (st == XRT_SUCCESS && tl_on()) {
        pthread_mutex_lock(&tl.lock);
        tl_track_close(stream, tl_current_device(t));
        pthread_mutex_unlock(&tl.lock);
    }
    return trace_end(self, "stream_destroy", t0, st, "stream=%p", stream);
}

static xrt_status trace_stream_synchronize(const xrt_backend *self, void *stream)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = TRACE_FWD(t->stream_synchronize(t, stream));
    if (st == XRT_SUCCESS) tl_synced(t, stream);
    return trace_end(self, "stream_synchronize", t0, st, "stream=%p", stream);
}

static xrt_status trace_stream_wait_event(const xrt_backend *self, void *stream, void *event)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now(), seq;
    tl_op *op = tl_begin(t, stream, t0, 0);
    xrt_status st = TRACE_FWD(t->stream_wait_event(t, stream, event));
    trace_end_seq(self, &seq, "stream_wait_event", t0, st, "stream=%p, event=%p", stream, event);
    tl_end(t, op, stream, st, seq, "wait", "event %p", event);
    return st;
}

/* What the target runs in place of a host function: the function, with xrt
   calls made from it dispatched to the tracer when the target allows them. */
typedef struct trace_host_call {
    const xrt_backend *self;
    xrt_host_fn fn;
    void *user;
    int calls; /* the target lets host functions call xrt */
    tl_op *op; /* its place on the timeline, or NULL */
} trace_host_call;

/* Timed where it runs: a span on the thread's track, and its times go to its
   place in the stream's queue (the span there is written in stream order). */
static void trace_host_call_run(void *p)
{
    trace_host_call c = *(trace_host_call *)p;
    trace_state *ts = (trace_state *)c.self->user;
    uint64_t t0 = trace_now(), t1;
    free(p);
    if (c.calls) ts->host->host_fn_run(c.self, c.fn, c.user);
    else c.fn(c.user);
    t1 = trace_now();
    trace_end(c.self, "host_fn", t0, XRT_SUCCESS, "fn=%p, user=%p", trace_fn_addr(c.fn), c.user);
    if (!c.op) return;
    c.op->host_start = t0;
    c.op->host_end = t1;
    __atomic_store_n(&c.op->done, 1, __ATOMIC_RELEASE); /* the op is not ours after this */
}

/* A host function's place in its stream's queue; NULL when there is no timeline. */
static tl_op *tl_host_op(const xrt_backend *t, void *stream, uint64_t t0, xrt_host_fn fn, void *user)
{
    tl_op *op;
    int device;
    if (!tl_on() || (device = tl_current_device(t)) < 0 || !(op = (tl_op *)calloc(1, sizeof *op))) return NULL;
    pthread_mutex_lock(&tl.lock);
    op->host = 1;
    op->device = device;
    op->track = tl_track_of(stream, device);
    op->call_ns = t0;
    op->seq = tl_reserved = ++tl.seq; /* this call's number, given to its span */
    pthread_mutex_unlock(&tl.lock);
    snprintf(op->name, sizeof op->name, "host function");
    snprintf(op->args, sizeof op->args, "fn=%p, user=%p", trace_fn_addr(fn), user);
    return op;
}

/* Queues it, or drops it when the launch failed. */
static void tl_host_queued(const xrt_backend *t, tl_op *op, xrt_status st)
{
    if (!op) return;
    if (st != XRT_SUCCESS) {
        free(op);
        return;
    }
    pthread_mutex_lock(&tl.lock);
    if (tl.tail) tl.tail->next = op;
    else tl.head = op;
    tl.tail = op;
    if (tl.timing) tl_resolve(t, 0);
    pthread_mutex_unlock(&tl.lock);
}

static xrt_status trace_launch_host_func(const xrt_backend *self, void *stream, xrt_host_fn fn, void *user)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    trace_host_call *c;
    xrt_status st = XRT_ERROR_OUT_OF_MEMORY;
    tl_op *op = NULL;
    if (tl_capturing(t, stream)) { /* into a graph, run at every launch: no closure of one run */
        st = TRACE_FWD(t->launch_host_func(t, stream, fn, user));
        return trace_end(self, "launch_host_func", t0, st, "stream=%p, fn=%p, user=%p (captured)", stream,
                         trace_fn_addr(fn), user);
    }
    if ((c = (trace_host_call *)malloc(sizeof *c)) != NULL) {
        c->self = self;
        c->fn = fn;
        c->user = user;
        c->calls = (t->flags & XRT_BACKEND_HOST_FN_CALLS) != 0;
        c->op = op = tl_host_op(t, stream, t0, fn, user);
        st = TRACE_FWD(t->launch_host_func(t, stream, trace_host_call_run, c));
        if (st != XRT_SUCCESS) free(c);
        tl_host_queued(t, op, st);
    } else {
        trace_depth++;
        ((trace_state *)self->user)->host->error(st, "trace: xrt_launch_host_func", "no memory");
        trace_depth--;
    }
    return trace_end(self, "launch_host_func", t0, st, "stream=%p, fn=%p, user=%p", stream, trace_fn_addr(fn), user);
}

/* >> trace: events */
static xrt_status trace_event_create(const xrt_backend *self, void **event, unsigned flags)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = TRACE_FWD(t->event_create(t, event, flags));
    return trace_end(self, "event_create", t0, st, "flags=0x%x, *event=%p", flags, *event);
}

static xrt_status trace_event_record(const xrt_backend *self, void *event, void *stream)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now(), seq;
    tl_op *op = tl_begin(t, stream, t0, 1);
    xrt_status st = TRACE_FWD(t->event_record(t, event, stream));
    trace_end_seq(self, &seq, "event_record", t0, st, "event=%p, stream=%p", event, stream);
    tl_end(t, op, stream, st, seq, "record", "event %p", event);
    return st;
}

static xrt_status trace_event_synchronize(const xrt_backend *self, void *event)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = TRACE_FWD(t->event_synchronize(t, event));
    if (st == XRT_SUCCESS && tl_on()) {
        pthread_mutex_lock(&tl.lock);
        tl_resolve(t, 1);
        pthread_mutex_unlock(&tl.lock);
    }
    return trace_end(self, "event_synchronize", t0, st, "event=%p", event);
}

static xrt_status trace_event_elapsed_time(const xrt_backend *self, float *ms, void *start, void *end)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = TRACE_FWD(t->event_elapsed_time(t, ms, start, end));
    return trace_end(self, "event_elapsed_time", t0, st, "start=%p, end=%p, *ms=%.3f", start, end,
                     st == XRT_SUCCESS ? (double)*ms : -1.0);
}

/* >> trace: interop */
static xrt_status trace_stream_get_native(const xrt_backend *self, void *stream, void **native)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = TRACE_FWD(t->stream_get_native(t, stream, native));
    return trace_end(self, "stream_get_native", t0, st, "stream=%p, *native=%p", stream,
                     st == XRT_SUCCESS ? *native : NULL);
}

static xrt_status trace_event_get_native(const xrt_backend *self, void *event, void **native)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = TRACE_FWD(t->event_get_native(t, event, native));
    return trace_end(self, "event_get_native", t0, st, "event=%p, *native=%p", event,
                     st == XRT_SUCCESS ? *native : NULL);
}

static xrt_status trace_stream_wrap_native(const xrt_backend *self, void *native, void **stream)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = TRACE_FWD(t->stream_wrap_native(t, native, stream));
    return trace_end(self, "stream_wrap_native", t0, st, "native=%p, *stream=%p", native, *stream);
}

static xrt_status trace_get_target(const xrt_backend *self, int device, xrt_target *target)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = TRACE_FWD(t->get_target(t, device, target));
    return trace_end(self, "get_target", t0, st, "device=%d, arch=%s, vector_width=%d, features=%s", device,
                     st == XRT_SUCCESS ? target->arch : "", st == XRT_SUCCESS ? target->vector_width : 0,
                     st == XRT_SUCCESS ? target->features : "");
}

static xrt_status trace_module_load(const xrt_backend *self, void **module, const xrt_module_image *images,
                                    size_t n_images, const char *options, char *log, size_t log_size)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = TRACE_FWD(t->module_load(t, module, images, n_images, options, log, log_size));
    return trace_end(self, "module_load", t0, st, "n_images=%zu, options=\"%s\", *module=%p", n_images, options,
                     st == XRT_SUCCESS ? *module : NULL);
}

static xrt_status trace_module_get_function(const xrt_backend *self, void **function, void *module, const char *name)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = TRACE_FWD(t->module_get_function(t, function, module, name));
    return trace_end(self, "module_get_function", t0, st, "module=%p, name=%s, *function=%p", module, name,
                     st == XRT_SUCCESS ? *function : NULL);
}

static xrt_status trace_function_get_attributes(const xrt_backend *self, xrt_function_attributes *attr, void *function)
{
    const xrt_backend *t = trace_target(self);
    uint64_t t0 = trace_now();
    xrt_status st = TRACE_FWD(t->function_get_attributes(t, attr, function));
    return trace_end(self, "function_get_attributes", t0, st, "function=%p, max_threads_per_block=%d", function,
                     st == XRT_SUCCESS ? attr->max_threads_per_block : 0);
}

/* >> trace: registration */
/* The operations with a trace_<name> of their own: they print what the call
   wrote, name a copy's kind, or keep the timeline's state. Every other
   operation is traced by its generated forwarder. */
#define TRACE_OWN(X)                                                                                            \
    X(get_capabilities) X(get_device_count) X(set_device) X(get_device) X(device_synchronize)                  \
    X(get_device_properties) X(malloc) X(malloc_host) X(malloc_async) X(free_async) X(mem_get_info) X(memset)  \
    X(memset_async) X(memcpy) X(memcpy_async) X(pointer_get_attributes) X(mem_export_dmabuf) X(stream_create)  \
    X(stream_destroy) X(stream_synchronize) X(stream_wait_event) X(launch_host_func) X(event_create)           \
    X(event_record) X(event_synchronize) X(event_elapsed_time) X(stream_get_native) X(event_get_native)        \
    X(stream_wrap_native) X(get_target) X(module_load) X(module_get_function) X(function_get_attributes)

static void trace_fill(xrt_backend *t)
{
#define TRACE_OP(op, params, args) t->op = trace_default_##op;
    XRT_BACKEND_OPS(TRACE_OP)
#undef TRACE_OP
#define TRACE_SET(op) t->op = trace_##op;
    TRACE_OWN(TRACE_SET)
#undef TRACE_SET
}

xrt_status xrt_plugin_register(const xrt_plugin_host *host, xrt_backend *t);

xrt_status xrt_plugin_register(const xrt_plugin_host *host, xrt_backend *t)
{
    /* a host without the error observer (before xrt 0.2) is served too */
    if (host->abi_version != XRT_BACKEND_ABI_VERSION ||
        host->size < offsetof(xrt_plugin_host, host_fn_run) + sizeof host->host_fn_run)
        return XRT_ERROR_ABI_MISMATCH;
    /* Its state is one per process: a second copy of xrt in the process (a
       library that vendors it) would share it, have its calls forwarded to
       the first copy's backend, and take the target from it at shutdown. */
    if (trace.host && trace.host != host)
        return host->error(XRT_ERROR_ALREADY_EXISTS, "trace: xrt_plugin_register",
                           "the tracer serves another copy of xrt in this process (one tracer per process)");
    trace.host = host;
    t->abi_version = XRT_BACKEND_ABI_VERSION;
    t->size = sizeof *t;
    t->name = "trace";
    t->user = &trace;
    t->flags = XRT_BACKEND_HOST_FN_CALLS; /* not FORK_SAFE: see the top of the file; the memory kind: init */
    t->init = trace_init;
    t->shutdown = trace_shutdown;
    trace_fill(t);
    return XRT_SUCCESS;
}
