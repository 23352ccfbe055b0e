/* SPDX-License-Identifier: MIT */
/* Memory pools on the CPU backend: an allocation of the default pool
   reused in stream order (xrt_malloc_async + xrt_free_async on one stream,
   the block freed there serving the next allocation at once) against an
   mmap-backed allocation of the same size (mmap + munmap), alternating in
   the same run (target: >= 5x faster). Then the same with the first page
   written each time (a fresh mapping faults it in; a reused block has it). */
#define XRT_IMPL
#include "xrt.h"

#include <sys/mman.h>

#include "bench.h"

#define CHECK(call) BENCH_CHECK(call)

typedef struct ctx { size_t size; int touch; xrt_stream s; } ctx;

static void mmap_loop(void *c_, long iters)
{
    ctx *c = (ctx *)c_;
    long i;
    for (i = 0; i < iters; i++) {
        char *p = (char *)mmap(NULL, c->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == (char *)MAP_FAILED) exit(1);
        if (c->touch) *(volatile char *)p = 1;
        munmap(p, c->size);
    }
}

static void pool_loop(void *c_, long iters)
{
    ctx *c = (ctx *)c_;
    long i;
    void *p;
    for (i = 0; i < iters; i++) {
        CHECK(xrt_malloc_async(&p, c->size, c->s));
        if (c->touch) *(volatile char *)p = 1; /* the host may use the CPU backend's device memory */
        CHECK(xrt_free_async(p, c->s));
    }
    CHECK(xrt_stream_synchronize(c->s));
}

int main(void)
{
    static const size_t sizes[] = {64 << 10, 1 << 20, 16 << 20};
    ctx c;
    char a[32], b[32], v[64];
    double base, test;
    size_t i;
    bench_load_start(NULL);
    CHECK(xrt_set_backend("cpu"));
    CHECK(xrt_stream_create(&c.s));
    printf("memory pools on the CPU backend: xrt_malloc_async + xrt_free_async on one stream, against mmap + munmap\n");
    for (c.touch = 0; c.touch < 2; c.touch++)
        for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            c.size = sizes[i];
            bench_pair(mmap_loop, pool_loop, &c, 2000, BENCH_REPS, &base, &test);
            printf("  %5zu KiB%-14s pool %9s  mmap %9s  %6.1fx  %s\n", c.size >> 10, c.touch ? ", page written" : "",
                   bench_fmt_ns(a, sizeof a, test), bench_fmt_ns(b, sizeof b, base), base / test,
                   bench_target(v, sizeof v, base / test, 5, 1, "x", "CPU pool %zu KiB%s / mmap", c.size >> 10, c.touch ? " written" : ""));
        }
    CHECK(xrt_stream_destroy(c.s));
    bench_load_stop();
    return 0;
}
