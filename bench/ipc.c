/* SPDX-License-Identifier: MIT */
/* CPU device memory opened from another process's IPC handle against local
   device memory, in the same run: reads (a copy out to host memory) and
   writes (a copy in) of 64 MiB, on the raw pointers, medians of BENCH_REPS
   alternating runs. Target: the opened buffer at least 0.95x local speed.
   Then the cost of xrt_malloc + xrt_free (a CPU device allocation is its
   own private mapping, until its first export moves it into the device's
   memory file) against aligned_alloc + free, both touching the first byte;
   and local device memory's copy speed against heap memory's. */
#define XRT_IMPL
#include "xrt.h"

#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIZE ((size_t)64 << 20)

typedef struct pair { unsigned char *dev, *host; } pair;

static void reads(void *p, long iters)
{
    pair *c = (pair *)p;
    long i;
    for (i = 0; i < iters; i++) {
        memcpy(c->host, c->dev, SIZE);
        __asm__ volatile("" ::: "memory");
    }
}

static void writes(void *p, long iters)
{
    pair *c = (pair *)p;
    long i;
    for (i = 0; i < iters; i++) {
        memcpy(c->dev, c->host, SIZE);
        __asm__ volatile("" ::: "memory");
    }
}

/* bench_pair runs one loop on one context: a context that holds both. */
typedef struct both { pair local, opened, heap; bench_loop op; } both;
static void on_local(void *p, long iters) { both *b = (both *)p; b->op(&b->local, iters); }
static void on_opened(void *p, long iters) { both *b = (both *)p; b->op(&b->opened, iters); }
static void on_heap(void *p, long iters) { both *b = (both *)p; b->op(&b->heap, iters); }

static size_t alloc_size;
static void xrt_allocs(void *p, long iters)
{
    long i;
    void *d;
    (void)p;
    for (i = 0; i < iters; i++) {
        if (xrt_malloc(&d, alloc_size) != XRT_SUCCESS) exit(1);
        *(volatile char *)d = 1;
        xrt_free(d);
    }
}

static void libc_allocs(void *p, long iters)
{
    long i;
    (void)p;
    for (i = 0; i < iters; i++) {
        void *d = aligned_alloc(XRT_ALIGNMENT, (alloc_size + XRT_ALIGNMENT - 1) & ~(size_t)(XRT_ALIGNMENT - 1));
        if (!d) exit(1);
        *(volatile char *)d = 1;
        free(d);
    }
}

/* The exporter: a child that makes a buffer, sends its handle, and keeps
   it until the parent closes the pipe. */
static pid_t exporter(int *from)
{
    int up[2], down[2];
    pid_t pid;
    if (pipe(up) != 0 || pipe(down) != 0 || (pid = fork()) < 0) return -1;
    if (pid == 0) {
        xrt_ipc_mem_handle h;
        char c;
        void *d;
        close(up[0]);
        close(down[1]);
        if (xrt_set_backend("cpu") || xrt_malloc(&d, SIZE) || xrt_memset(d, 1, SIZE) || xrt_ipc_get_mem_handle(&h, d))
            _exit(1);
        if (write(up[1], &h, sizeof h) != (ssize_t)sizeof h) _exit(1);
        if (read(down[0], &c, 1) < 0) _exit(1); /* the end of the pipe: the parent is done */
        xrt_free(d);
        xrt_shutdown();
        _exit(0);
    }
    close(up[1]);
    close(down[0]);
    from[0] = up[0];
    from[1] = down[1];
    return pid;
}

int main(void)
{
    static const size_t sizes[] = {64, 4096, 1 << 20};
    xrt_ipc_mem_handle h;
    both b;
    void *local, *opened;
    int fds[2], i;
    double base, test;
    char v[64], t1[32], t2[32];
    pid_t pid;
    if (xrt_set_backend("cpu") != XRT_SUCCESS) return 1;
    if ((pid = exporter(fds)) < 0 || read(fds[0], &h, sizeof h) != (ssize_t)sizeof h) {
        fprintf(stderr, "ipc: no exporter\n");
        return 1;
    }
    if (xrt_ipc_open_mem_handle(&opened, h, 0) != XRT_SUCCESS || xrt_malloc(&local, SIZE) != XRT_SUCCESS ||
        xrt_memset(local, 1, SIZE) != XRT_SUCCESS) {
        fprintf(stderr, "ipc: %s\n", xrt_get_last_error_string());
        return 1;
    }
    b.local.dev = (unsigned char *)local;
    b.opened.dev = (unsigned char *)opened;
    b.local.host = b.opened.host = b.heap.host = (unsigned char *)malloc(SIZE);
    b.heap.dev = (unsigned char *)malloc(SIZE);
    if (!b.local.host || !b.heap.dev) return 1;
    memset(b.local.host, 2, SIZE);
    memset(b.heap.dev, 1, SIZE);
    printf("64 MiB, GB/s        local   opened  opened/local\n");
    for (i = 0; i < 2; i++) {
        b.op = i ? writes : reads;
        bench_pair(on_local, on_opened, &b, 4, BENCH_REPS, &base, &test);
        printf("%-18s %7.2f %8.2f %8.2fx %s\n", i ? "write (copy in)" : "read (copy out)", SIZE / base, SIZE / test,
               base / test, bench_target(v, sizeof v, base / test, 0.95, 1, "x", "CPU IPC 64 MiB %s: opened / local", i ? "write" : "read"));
    }
    printf("64 MiB, GB/s         heap    local   local/heap\n");
    for (i = 0; i < 2; i++) {
        b.op = i ? writes : reads;
        bench_pair(on_heap, on_local, &b, 4, BENCH_REPS, &base, &test);
        printf("%-18s %7.2f %8.2f %8.2fx\n", i ? "write (copy in)" : "read (copy out)", SIZE / base, SIZE / test,
               base / test);
    }
    printf("allocation + free (first byte touched)   aligned_alloc   xrt_malloc   ratio\n");
    for (i = 0; i < 3; i++) {
        alloc_size = sizes[i];
        bench_pair(libc_allocs, xrt_allocs, NULL, 2000, BENCH_REPS, &base, &test);
        printf("%10zu bytes %31s %12s %7.1fx\n", alloc_size, bench_fmt_ns(t1, sizeof t1, base),
               bench_fmt_ns(t2, sizeof t2, test), test / base);
    }
    xrt_ipc_close_mem_handle(opened);
    xrt_free(local);
    free(b.local.host);
    free(b.heap.dev);
    close(fds[1]);
    close(fds[0]);
    waitpid(pid, NULL, 0);
    xrt_shutdown();
    return 0;
}
