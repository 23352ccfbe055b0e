/* SPDX-License-Identifier: MIT */
/* fork() of a process holding CPU device memory, against one holding the
   same amount of malloc memory, in the same run: fork + the child's _exit +
   waitpid, every page of the buffer written, medians of BENCH_REPS
   alternating repetitions (the buffer is made anew before each, outside the
   timing). Target: device memory within 1.5x of malloc memory (its child
   shares it copy-on-write; it once copied every byte inside fork(): 3 s for
   512 MiB against 4 ms). Then, for information, memory that was exported
   (xrt_ipc_get_mem_handle): the one kind the child must copy, as its
   exporter's peers share its bytes. BENCH_FORK_MIB sets the size (default
   512). */
#define XRT_IMPL
#include "xrt.h"

#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t size;

/* Nanoseconds for fork, the child's exit and the parent's wait. */
static double fork_ns(void)
{
    double t0 = bench_now_ns();
    pid_t pid = fork();
    int status;
    if (pid < 0) {
        perror("fork");
        exit(1);
    }
    if (pid == 0) _exit(0);
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) exit(1);
    return bench_now_ns() - t0;
}

static double with_malloc(void)
{
    char *p = (char *)malloc(size);
    double t;
    if (!p) exit(1);
    memset(p, 1, size);
    __asm__ volatile("" : : "r"(p) : "memory"); /* the writes stay: the buffer is freed unread */
    t = fork_ns();
    free(p);
    return t;
}

static double with_device(int exported)
{
    xrt_ipc_mem_handle h;
    void *d;
    double t;
    BENCH_CHECK(xrt_malloc(&d, size));
    memset(d, 1, size);
    __asm__ volatile("" : : "r"(d) : "memory");
    if (exported) BENCH_CHECK(xrt_ipc_get_mem_handle(&h, d));
    t = fork_ns();
    BENCH_CHECK(xrt_free(d));
    return t;
}

int main(void)
{
    const char *mib = getenv("BENCH_FORK_MIB");
    double m[BENCH_REPS], d[BENCH_REPS], e[3], mm, dm, em;
    char v[64];
    int r;
    size = (size_t)(mib && atoi(mib) > 0 ? atoi(mib) : 512) << 20;
    BENCH_CHECK(xrt_set_backend("cpu"));
    (void)with_malloc(), (void)with_device(0); /* warm-up: the workers and the allocator's state exist */
    for (r = 0; r < BENCH_REPS; r++) {
        if (r % 2) {
            d[r] = with_device(0);
            m[r] = with_malloc();
        } else {
            m[r] = with_malloc();
            d[r] = with_device(0);
        }
    }
    for (r = 0; r < 3; r++) e[r] = with_device(1);
    mm = bench_median(m, BENCH_REPS);
    dm = bench_median(d, BENCH_REPS);
    em = bench_median(e, 3);
    printf("fork + exit + wait, %zu MiB written    ms\n", size >> 20);
    printf("malloc memory                      %8.2f\n", mm / 1e6);
    printf("device memory                      %8.2f  %.2fx malloc's %s\n", dm / 1e6, dm / mm,
           bench_target(v, sizeof v, dm / mm, 1.5, 0, "x", "CPU fork with %zu MiB of device memory / malloc memory",
                        size >> 20));
    printf("device memory, exported (copied)   %8.2f  %.2fx malloc's (median of 3)\n", em / 1e6, em / mm);
    xrt_shutdown();
    return 0;
}
