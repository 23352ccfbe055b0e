/* SPDX-License-Identifier: MIT */
/* a2f: the transfer between an attention process and an FFN process, as an
   inference server splits a model: the sender fills chunks of activations in
   its device memory, the receiver copies each into its own device memory as
   soon as an event says the chunk is ready, and checks every byte.
     - The sender owns SLOTS device buffers and one interprocess event per
       buffer, exported once (xrt_ipc_get_mem_handle, xrt_ipc_get_event_handle).
     - For chunk k it waits until the receiver has freed slot k % SLOTS, fills
       it on its stream (a value of its own per chunk), records the slot's
       event and sends k over a pipe: the message says which record to wait
       for, the event says when the bytes are there.
     - The receiver waits for the event on its stream, copies the chunk into
       its buffer, synchronizes, frees the slot, and checks every byte.
   The program forks before either process uses xrt (a GPU runtime does not
   survive fork) and prints, per chunk size from 4 KiB to 64 MiB, the
   receiver's copy bandwidth (event wait + copy) beside a plain memcpy of the
   same size between two buffers of its own, one after each chunk so that both
   see the same machine, and their ratio. Every buffer is touched whole before
   the first chunk: a GPU's memory is there from its allocation on, and the
   CPU backend's pages would otherwise be faulted in by the first chunk of
   each size, in the timing of one side only. Runs on the default backend
   (XRT_BACKEND=cpu: two processes on one CPU device share the bytes). */
#define XRT_IMPL
#include "xrt.h"
#include "pipes.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SLOTS 2
#define MIN_CHUNK ((size_t)4 << 10)
#define MAX_CHUNK ((size_t)64 << 20)
#define PER_SIZE ((size_t)64 << 20) /* bytes sent at each chunk size */

typedef struct pipes { int to, from; } pipes;

static const char *who = "sender";

static int fail(const char *what)
{
    fprintf(stderr, "a2f: %s: %s: %s\n", who, what, xrt_get_last_error_string());
    return 1;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Chunks sent at one size: PER_SIZE bytes, at least 8 chunks. */
static size_t chunks_of(size_t size) { return PER_SIZE / size < 8 ? 8 : PER_SIZE / size; }

/* The byte of chunk k: consecutive chunks of one slot differ. */
static unsigned char value_of(uint64_t k) { return (unsigned char)(k * 37 + 11); }

typedef struct sender {
    void *slot[SLOTS];
    xrt_event ready[SLOTS];
    xrt_stream s;
} sender;

/* Makes the slots and events and sends their handles. */
static int sender_open(sender *x, pipes l)
{
    int i;
    if (xrt_stream_create_with_flags(&x->s, XRT_STREAM_NON_BLOCKING) != XRT_SUCCESS) return fail("stream");
    for (i = 0; i < SLOTS; i++) {
        xrt_ipc_mem_handle m;
        xrt_ipc_event_handle e;
        if (xrt_malloc(&x->slot[i], MAX_CHUNK) != XRT_SUCCESS) return fail("malloc");
        if (xrt_event_create(&x->ready[i], XRT_EVENT_INTERPROCESS | XRT_EVENT_DISABLE_TIMING) !=
            XRT_SUCCESS)
            return fail("event");
        if (xrt_ipc_get_mem_handle(&m, x->slot[i]) != XRT_SUCCESS ||
            xrt_ipc_get_event_handle(&e, x->ready[i]) != XRT_SUCCESS)
            return fail("export");
        /* exported: its shared pages, touched before any timing, on the
           stream that fills them (an xrt_memset would not order it) */
        if (xrt_memset_async(x->slot[i], 0, MAX_CHUNK, x->s) != XRT_SUCCESS) return fail("touch");
        if (send_all(l.to, &m, sizeof m) != 0 || send_all(l.to, &e, sizeof e) != 0) return fail("send handles");
    }
    return xrt_stream_synchronize(x->s) == XRT_SUCCESS ? 0 : fail("touch");
}

static int sender_run(sender *x, pipes l)
{
    uint64_t k = 0, freed = 0;
    size_t size, n;
    for (size = MIN_CHUNK; size <= MAX_CHUNK; size *= 4)
        for (n = chunks_of(size); n > 0; n--, k++) {
            int i = (int)(k % SLOTS);
            /* the receiver frees slots in order: chunk k - SLOTS's is the one */
            while (freed + SLOTS <= k)
                if (recv_all(l.from, &freed, sizeof freed) != 0) return fail("no slot freed");
            if (xrt_memset_async(x->slot[i], value_of(k), size, x->s) != XRT_SUCCESS ||
                xrt_event_record(x->ready[i], x->s) != XRT_SUCCESS)
                return fail("fill");
            if (send_all(l.to, &k, sizeof k) != 0) return fail("send");
        }
    while (freed < k) /* the last chunks are read before the slots go */
        if (recv_all(l.from, &freed, sizeof freed) != 0) return fail("no slot freed");
    return 0;
}

static int sender_close(sender *x)
{
    int i, rc = 0;
    for (i = 0; i < SLOTS; i++)
        if (xrt_event_destroy(x->ready[i]) != XRT_SUCCESS || xrt_free(x->slot[i]) != XRT_SUCCESS) rc = fail("free");
    return xrt_stream_destroy(x->s) == XRT_SUCCESS ? rc : fail("stream destroy");
}

typedef struct receiver {
    void *slot[SLOTS], *dst;
    unsigned char *host;
    xrt_event ready[SLOTS];
    xrt_stream s;
} receiver;

static int receiver_open(receiver *x, pipes l)
{
    int i;
    if (xrt_stream_create_with_flags(&x->s, XRT_STREAM_NON_BLOCKING) != XRT_SUCCESS) return fail("stream");
    if (xrt_malloc(&x->dst, MAX_CHUNK) != XRT_SUCCESS || xrt_malloc_host((void **)&x->host, MAX_CHUNK) != XRT_SUCCESS)
        return fail("malloc");
    for (i = 0; i < SLOTS; i++) {
        xrt_ipc_mem_handle m;
        xrt_ipc_event_handle e;
        if (recv_all(l.from, &m, sizeof m) != 0 || recv_all(l.from, &e, sizeof e) != 0)
            return fail("no handles from the sender");
        if (xrt_ipc_open_mem_handle(&x->slot[i], m, XRT_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) != XRT_SUCCESS ||
            xrt_ipc_open_event_handle(&x->ready[i], e) != XRT_SUCCESS)
            return fail("open");
        /* this process's mappings of the slot and of its own buffers, touched whole */
        if (xrt_memcpy(x->dst, x->slot[i], MAX_CHUNK, XRT_MEMCPY_DEVICE_TO_DEVICE) != XRT_SUCCESS ||
            xrt_memcpy(x->host, x->dst, MAX_CHUNK, XRT_MEMCPY_DEVICE_TO_HOST) != XRT_SUCCESS)
            return fail("touch");
    }
    return 0;
}

/* Whether the receiver's copy of chunk k holds its value in every byte. */
static int holds(receiver *x, uint64_t k, size_t size)
{
    size_t j;
    if (xrt_memcpy(x->host, x->dst, size, XRT_MEMCPY_DEVICE_TO_HOST) != XRT_SUCCESS) return 0;
    for (j = 0; j < size; j++)
        if (x->host[j] != value_of(k)) return 0;
    return 1;
}

/* Seconds for one memcpy of `size` bytes from b to a. */
static double memcpy_seconds(unsigned char *a, const unsigned char *b, size_t size)
{
    double t = now();
    memcpy(a, b, size);
    __asm__ __volatile__("" : : "r"(a), "r"(b) : "memory");
    return now() - t;
}

/* Receives the chunks of one size; the seconds spent in event waits and
   copies go to spent[0], those of a plain memcpy of each chunk's size
   between buffers a and b, made after the chunk, to spent[1]. */
static int receive_size(receiver *x, pipes l, size_t size, uint64_t *k, double spent[2], unsigned char *ab[2])
{
    size_t n;
    for (n = chunks_of(size); n > 0; n--, (*k)++) {
        int i = (int)(*k % SLOTS);
        uint64_t got, freed = *k + 1;
        double t;
        if (recv_all(l.from, &got, sizeof got) != 0 || got != *k) return fail("chunks out of order");
        t = now();
        if (xrt_stream_wait_event(x->s, x->ready[i]) != XRT_SUCCESS ||
            xrt_memcpy_async(x->dst, x->slot[i], size, XRT_MEMCPY_DEVICE_TO_DEVICE, x->s) != XRT_SUCCESS ||
            xrt_stream_synchronize(x->s) != XRT_SUCCESS)
            return fail("copy");
        spent[0] += now() - t;
        if (send_all(l.to, &freed, sizeof freed) != 0) return fail("free a slot");
        spent[1] += memcpy_seconds(ab[*k & 1], ab[!(*k & 1)], size);
        if (!holds(x, *k, size)) {
            fprintf(stderr, "a2f: receiver: chunk %llu of %zu bytes is not what the sender wrote\n",
                    (unsigned long long)*k, size);
            return 1;
        }
    }
    return 0;
}

static void print_size(size_t size, size_t rounds, double xrt_s, double memcpy_s)
{
    double bytes = (double)size * (double)rounds;
    printf("%8zu KiB %10.2f GB/s %10.2f GB/s %7.2fx\n", size >> 10, bytes / xrt_s / 1e9, bytes / memcpy_s / 1e9,
           memcpy_s / xrt_s);
}

static int receiver_run(receiver *x, pipes l)
{
    unsigned char *ab[2] = {(unsigned char *)malloc(MAX_CHUNK), (unsigned char *)malloc(MAX_CHUNK)};
    uint64_t k = 0;
    size_t size;
    int rc = 0;
    if (!ab[0] || !ab[1]) rc = fail("malloc");
    if (!rc) {
        memset(ab[0], 1, MAX_CHUNK), memset(ab[1], 2, MAX_CHUNK);
        printf("    chunk    xrt ipc copy         memcpy   ratio\n");
    }
    for (size = MIN_CHUNK; !rc && size <= MAX_CHUNK; size *= 4) {
        double spent[2] = {0, 0};
        rc = receive_size(x, l, size, &k, spent, ab);
        if (!rc) print_size(size, chunks_of(size), spent[0], spent[1]);
    }
    free(ab[0]), free(ab[1]);
    return rc;
}

static int receiver_close(receiver *x)
{
    int i, rc = 0;
    for (i = 0; i < SLOTS; i++)
        if (xrt_event_destroy(x->ready[i]) != XRT_SUCCESS || xrt_ipc_close_mem_handle(x->slot[i]) != XRT_SUCCESS)
            rc = fail("close");
    if (xrt_free(x->dst) != XRT_SUCCESS || xrt_free_host(x->host) != XRT_SUCCESS) rc = fail("free");
    return xrt_stream_destroy(x->s) == XRT_SUCCESS ? rc : fail("stream destroy");
}

static int run_sender(pipes l)
{
    sender x;
    int rc;
    memset(&x, 0, sizeof x);
    rc = sender_open(&x, l) || sender_run(&x, l);
    close(l.to); /* a receiver that waits sees the end */
    return sender_close(&x) || rc;
}

static int run_receiver(pipes l)
{
    receiver x;
    int rc;
    memset(&x, 0, sizeof x);
    rc = receiver_open(&x, l) || receiver_run(&x, l);
    close(l.to);
    return receiver_close(&x) || rc;
}

int main(void)
{
    int s_to_r[2], r_to_s[2], st = 0, rc;
    const char *name = "?";
    pid_t r;
    if (pipe(s_to_r) != 0 || pipe(r_to_s) != 0) return 1;
    fflush(stdout);
    if ((r = fork()) < 0) return 1;
    if (r == 0) { /* each keeps only its ends: a process that fails ends the other's wait */
        pipes l = {r_to_s[1], s_to_r[0]};
        who = "receiver";
        close(s_to_r[1]), close(r_to_s[0]);
        rc = run_receiver(l);
        xrt_shutdown();
        return rc;
    }
    {
        pipes l = {s_to_r[1], r_to_s[0]};
        close(s_to_r[0]), close(r_to_s[1]);
        rc = run_sender(l);
    }
    if (waitpid(r, &st, 0) != r || !WIFEXITED(st) || WEXITSTATUS(st) != 0) rc = 1;
    xrt_get_backend(&name);
    if (rc == 0) printf("a2f: %s: every chunk arrived whole and in order, 4 KiB to 64 MiB\n", name);
    xrt_shutdown();
    return rc;
}
