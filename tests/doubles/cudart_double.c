/* SPDX-License-Identifier: MIT */
/* A test double of the CUDA runtime (libcudart.so.13) for running xrt's
   suite with cuda as the default backend on a machine without a GPU
   (tests/gpu_default.sh). Unlike bench/stub/cudart_stub.c, whose calls do
   nothing, its work is real and in order: "device" memory is host memory;
   every stream has a worker thread that runs its operations (memset, copy,
   host function, event record, wait for an event) one after the other; the
   NULL stream is one more such stream, the legacy default stream, ordered
   with the blocking streams as CUDA's is (implicit_waits); cudaStreamGetFlags
   says which a stream is; events complete when their stream
   reaches them and keep the time; synchronize and query wait for or report
   exactly that. Errors are the runtime's codes for what xrt's tests provoke
   (out of memory for huge sizes, an invalid resource handle for the elapsed
   time of an event never recorded or without timing, invalid device). One
   device. Tests only: it checks nothing it is not asked. */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>

#include <pthread.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define UNUSED(x) (void)(x)

/* >> streams: a queue and a worker each */
typedef struct op {
    struct op *next;
    int kind; /* 0 memset, 1 copy, 2 host function, 3 record, 4 wait event, 5 callback */
    void *dst;
    const void *src;
    size_t n;
    int value;
    cudaHostFn_t fn;
    cudaStreamCallback_t cb;
    void *user;
    struct event *e;
    unsigned long long target;
} op;

typedef struct stream {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    op *head, *tail;
    unsigned long long queued, done;
    int dying;
    unsigned flags; /* cudaStreamNonBlocking or not: see implicit_waits */
    struct stream *next_live; /* the live streams, for cudaDeviceSynchronize */
} stream;

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static stream *live;

/* >> allocations, for cudaPointerGetAttributes */
typedef struct alloc { struct alloc *next; char *base; size_t size; int host; } alloc;
static alloc *allocs;

static void alloc_add(void *p, size_t n, int host)
{
    alloc *a = (alloc *)malloc(sizeof *a);
    if (!a) return;
    a->base = (char *)p, a->size = n, a->host = host;
    pthread_mutex_lock(&live_lock);
    a->next = allocs;
    allocs = a;
    pthread_mutex_unlock(&live_lock);
}

static void alloc_remove(void *p)
{
    alloc **pp, *a;
    pthread_mutex_lock(&live_lock);
    for (pp = &allocs; (a = *pp) != NULL; pp = &a->next)
        if (a->base == (char *)p) {
            *pp = a->next;
            free(a);
            break;
        }
    pthread_mutex_unlock(&live_lock);
}

typedef struct event {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int refs; /* its handle and each queued record or wait */
    unsigned long long recorded, completed;
    unsigned flags;
    double ms;
} event;

static stream *null_stream;
static pthread_once_t null_once = PTHREAD_ONCE_INIT;
static __thread int current_device;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void *worker(void *arg);

static void event_unref(event *e)
{
    int last;
    pthread_mutex_lock(&e->lock);
    last = --e->refs == 0;
    pthread_mutex_unlock(&e->lock);
    if (!last) return;
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

static void null_make(void) { null_stream = stream_new(0); }

static stream *stream_of(cudaStream_t s)
{
    if (s) return (stream *)(void *)s;
    pthread_once(&null_once, null_make);
    return null_stream;
}

static void run(op *o)
{
    switch (o->kind) {
    case 0: memset(o->dst, o->value, o->n); break;
    case 1: memmove(o->dst, o->src, o->n); break;
    case 2: o->fn(o->user); break;
    case 5: o->cb(NULL, cudaSuccess, o->user); break;
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
        while (!s->head && !s->dying) pthread_cond_wait(&s->cond, &s->lock);
        if (!s->head) break; /* destroyed and drained */
        o = s->head;
        pthread_mutex_unlock(&s->lock);
        run(o);
        if (o->e) event_unref(o->e);
        pthread_mutex_lock(&s->lock);
        s->head = o->next;
        if (!s->head) s->tail = NULL;
        s->done++;
        free(o);
        pthread_cond_broadcast(&s->cond);
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
    free(s);
    return NULL;
}

static void push_locked(stream *s, op *o)
{
    if (s->tail) s->tail->next = o;
    else s->head = o;
    s->tail = o;
    s->queued++;
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

/* As CUDA's legacy default stream (the NULL stream): work queued on it
   waits for what every blocking stream (created without
   cudaStreamNonBlocking) queued before, and work queued on a blocking
   stream waits for what the NULL stream queued before; a non-blocking
   stream waits for neither. */
static void implicit_waits(stream *s)
{
    stream *null = stream_of(NULL), *o;
    if (s != null) {
        if (!(s->flags & cudaStreamNonBlocking)) wait_for(null, s);
        return;
    }
    pthread_mutex_lock(&live_lock);
    for (o = live; o; o = o->next_live)
        if (o != null && !(o->flags & cudaStreamNonBlocking)) wait_for(o, null);
    pthread_mutex_unlock(&live_lock);
}

static cudaError_t enqueue(cudaStream_t st, op *o)
{
    stream *s = stream_of(st);
    if (!s) return cudaErrorInvalidResourceHandle;
    implicit_waits(s);
    pthread_mutex_lock(&s->lock);
    push_locked(s, o);
    pthread_mutex_unlock(&s->lock);
    return cudaSuccess;
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
    default: return "unknown error";
    }
}

cudaError_t cudaGetLastError(void) { return cudaSuccess; }
cudaError_t cudaRuntimeGetVersion(int *v) { *v = CUDART_VERSION; return cudaSuccess; }
cudaError_t cudaGetDeviceCount(int *count) { *count = 1; return cudaSuccess; }
cudaError_t cudaSetDevice(int d) { if (d != 0) return cudaErrorInvalidDevice; current_device = d; return cudaSuccess; }
cudaError_t cudaGetDevice(int *d) { *d = current_device; return cudaSuccess; }

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int d)
{
    if (d != 0) return cudaErrorInvalidDevice;
    memset(p, 0, sizeof *p);
    strcpy(p->name, "cudart test double (no GPU)");
    p->totalGlobalMem = (size_t)1 << 34;
    p->major = 9;
    p->warpSize = 32;
    p->multiProcessorCount = 1;
    memcpy(p->uuid.bytes, "cudart-double-00", sizeof p->uuid.bytes); /* a GPU has one */
    p->pciBusID = 0x41;
    p->pciDeviceID = 0;
    p->pciDomainID = 0;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *v, enum cudaDeviceAttr a, int d)
{
    if (d != 0) return cudaErrorInvalidDevice;
    *v = a == cudaDevAttrComputeCapabilityMajor ? 9 : a == cudaDevAttrComputeCapabilityMinor ? 0 :
         a == cudaDevAttrWarpSize ? 32 : a == cudaDevAttrMultiProcessorCount ? 1 :
         a == cudaDevAttrPciBusId ? 0x41 : a == cudaDevAttrPciDeviceId || a == cudaDevAttrPciDomainId ? 0 : 1;
    return cudaSuccess;
}

/* >> memory */
static cudaError_t allocate(void **p, size_t n, int host)
{
    if (n > ((size_t)1 << 40)) {
        *p = NULL;
        return cudaErrorMemoryAllocation;
    }
    *p = aligned_alloc(256, (n + 255) & ~(size_t)255);
    if (!*p) return cudaErrorMemoryAllocation;
    alloc_add(*p, n, host);
    return cudaSuccess;
}
cudaError_t cudaMalloc(void **p, size_t n) { return allocate(p, n, 0); }
cudaError_t cudaFree(void *p) { cudaDeviceSynchronize(); alloc_remove(p); free(p); return cudaSuccess; }
cudaError_t cudaHostAlloc(void **p, size_t n, unsigned f) { UNUSED(f); return allocate(p, n, 1); }
cudaError_t cudaFreeHost(void *p) { cudaDeviceSynchronize(); alloc_remove(p); free(p); return cudaSuccess; }
cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t s) { UNUSED(s); return cudaMalloc(p, n); }
cudaError_t cudaMemGetInfo(size_t *f, size_t *t) { *f = *t = (size_t)1 << 34; return cudaSuccess; }

cudaError_t cudaFreeAsync(void *p, cudaStream_t s)
{
    cudaStreamSynchronize(s); /* in order; simple */
    alloc_remove(p);
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

static int known(const void *p)
{
    const alloc *a;
    int found = 0;
    pthread_mutex_lock(&live_lock);
    for (a = allocs; a && !found; a = a->next) found = (const char *)p >= a->base && (const char *)p < a->base + a->size;
    pthread_mutex_unlock(&live_lock);
    return found;
}

/* As CUDA: a copy with a pageable (unregistered) host side has read its
   source, or written its destination, when the call returns. */
cudaError_t cudaMemcpyAsync(void *d, const void *src, size_t n, enum cudaMemcpyKind k, cudaStream_t s)
{
    op *o = op_new(1);
    cudaError_t e;
    if (!o) return cudaErrorMemoryAllocation;
    o->dst = d, o->src = src, o->n = n;
    e = enqueue(s, o);
    if (e == cudaSuccess && n && (!known(d) || !known(src)) && k != cudaMemcpyDeviceToDevice) e = cudaStreamSynchronize(s);
    return e;
}

cudaError_t cudaMemcpy(void *d, const void *src, size_t n, enum cudaMemcpyKind k)
{
    cudaError_t e = cudaMemcpyAsync(d, src, n, k, NULL);
    return e ? e : cudaStreamSynchronize(NULL);
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
            a->type = m->host ? cudaMemoryTypeHost : cudaMemoryTypeDevice;
            a->device = 0;
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

cudaError_t cudaStreamGetFlags(cudaStream_t st, unsigned *f)
{
    stream *s = stream_of(st);
    if (!s) return cudaErrorInvalidResourceHandle;
    *f = s->flags;
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t st)
{
    stream *s = (stream *)(void *)st;
    if (!s) return cudaErrorInvalidResourceHandle;
    pthread_mutex_lock(&s->lock);
    s->dying = 1; /* queued work completes; the worker frees the stream */
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t st)
{
    stream *s = stream_of(st);
    unsigned long long want;
    if (!s) return cudaErrorInvalidResourceHandle;
    pthread_mutex_lock(&s->lock);
    want = s->queued;
    while (s->done < want) pthread_cond_wait(&s->cond, &s->lock);
    pthread_mutex_unlock(&s->lock);
    return cudaSuccess;
}

cudaError_t cudaStreamQuery(cudaStream_t st)
{
    stream *s = stream_of(st);
    int busy;
    if (!s) return cudaErrorInvalidResourceHandle;
    pthread_mutex_lock(&s->lock);
    busy = s->done < s->queued;
    pthread_mutex_unlock(&s->lock);
    return busy ? cudaErrorNotReady : cudaSuccess;
}

/* Every stream, the NULL stream among them: the streams are walked again
   until none has work (a host function may have queued more). Work queued on
   a stream destroyed meanwhile is waited for through the list too. */
cudaError_t cudaDeviceSynchronize(void)
{
    int busy = 1;
    stream_of(NULL);
    while (busy) {
        stream *s;
        busy = 0;
        pthread_mutex_lock(&live_lock);
        for (s = live; s && !busy; s = s->next_live) {
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
    return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t ev, unsigned f)
{
    event *e = (event *)(void *)ev;
    op *o;
    UNUSED(f);
    if (!e) return cudaErrorInvalidResourceHandle;
    if (!(o = op_new(4))) return cudaErrorMemoryAllocation;
    pthread_mutex_lock(&e->lock);
    o->e = e, o->target = e->recorded;
    e->refs++;
    pthread_mutex_unlock(&e->lock);
    return enqueue(s, o);
}

cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void *u)
{
    op *o = op_new(2);
    if (!o) return cudaErrorMemoryAllocation;
    o->fn = fn, o->user = u;
    return enqueue(s, o);
}

cudaError_t cudaStreamAddCallback(cudaStream_t s, cudaStreamCallback_t cb, void *u, unsigned f)
{
    op *o = op_new(5);
    UNUSED(f);
    if (!o) return cudaErrorMemoryAllocation;
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
    e->refs = 1;
    return e;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *ev, unsigned f)
{
    event *e = event_new(f);
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
    op *o;
    if (!e) return cudaErrorInvalidResourceHandle;
    if (!(o = op_new(3))) return cudaErrorMemoryAllocation;
    pthread_mutex_lock(&e->lock);
    o->e = e, o->target = ++e->recorded;
    e->refs++;
    pthread_mutex_unlock(&e->lock);
    return enqueue(s, o);
}

cudaError_t cudaEventQuery(cudaEvent_t ev)
{
    event *e = (event *)(void *)ev;
    int busy;
    if (!e) return cudaErrorInvalidResourceHandle;
    pthread_mutex_lock(&e->lock);
    busy = e->completed < e->recorded;
    pthread_mutex_unlock(&e->lock);
    return busy ? cudaErrorNotReady : cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t ev)
{
    event *e = (event *)(void *)ev;
    if (!e) return cudaErrorInvalidResourceHandle;
    pthread_mutex_lock(&e->lock);
    while (e->completed < e->recorded) pthread_cond_wait(&e->cond, &e->lock);
    pthread_mutex_unlock(&e->lock);
    return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    event *s = (event *)(void *)a, *e = (event *)(void *)b;
    cudaError_t st = cudaSuccess;
    if (!s || !e) return cudaErrorInvalidResourceHandle;
    if ((s->flags | e->flags) & cudaEventDisableTiming) return cudaErrorInvalidResourceHandle;
    pthread_mutex_lock(&s->lock);
    if (!s->recorded) st = cudaErrorInvalidResourceHandle;
    else if (s->completed < s->recorded) st = cudaErrorNotReady;
    pthread_mutex_unlock(&s->lock);
    if (st) return st;
    pthread_mutex_lock(&e->lock);
    if (!e->recorded) st = cudaErrorInvalidResourceHandle;
    else if (e->completed < e->recorded) st = cudaErrorNotReady;
    pthread_mutex_unlock(&e->lock);
    if (st) return st;
    *ms = (float)(e->ms - s->ms);
    return cudaSuccess;
}
