/* SPDX-License-Identifier: MIT */
/* A registration-cache hit against registering from scratch, in one run, on
   the first active RDMA device: xrt_rdma_register + xrt_rdma_release of a
   cached buffer against ibv_reg_mr + ibv_dereg_mr of the same buffer. Median
   of 21 repetitions each; the targets: a hit at least 200x cheaper at 4 KiB,
   500x from 1 MiB.
   Needs an RDMA device: `make test-rdma` runs it on soft-RoCE in the test VM
   (emulated, so only the ratios mean something there). Link -libverbs. */
#define XRT_IMPL
#define XRT_ENABLE_RDMA
#include "xrt.h"
#include "xrt_rdma.h"
#include "bench.h"

#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>

#define REPS 21
#define ACCESS (XRT_RDMA_LOCAL_WRITE | XRT_RDMA_REMOTE_WRITE | XRT_RDMA_REMOTE_READ)

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v)
{
    qsort(v, REPS, sizeof *v, cmp);
    return v[REPS / 2];
}

/* ns per register + release of a registration the cache holds */
static double hit_ns(xrt_rdma_ctx ctx, void *buf, size_t size, int iters)
{
    double v[REPS], t;
    xrt_rdma_reg reg;
    int r, i;
    for (r = -1; r < REPS; r++) { /* -1: a warm-up round */
        t = bench_now_ns();
        for (i = 0; i < iters; i++) {
            if (xrt_rdma_register(ctx, buf, size, ACCESS, &reg) || xrt_rdma_release(&reg)) return -1;
        }
        if (r < 0) continue;
        v[r] = (bench_now_ns() - t) / iters;
    }
    return median(v);
}

/* ns per ibv_reg_mr + ibv_dereg_mr of the same buffer */
static double reg_ns(struct ibv_pd *pd, void *buf, size_t size, int iters)
{
    double v[REPS], t;
    int r, i;
    for (r = -1; r < REPS; r++) {
        t = bench_now_ns();
        for (i = 0; i < iters; i++) {
            struct ibv_mr *mr = ibv_reg_mr(pd, buf, size, ACCESS);
            if (!mr || ibv_dereg_mr(mr)) return -1;
        }
        if (r < 0) continue;
        v[r] = (bench_now_ns() - t) / iters;
    }
    return median(v);
}

int main(void)
{
    static const size_t sizes[] = {4096, 1 << 20, 16 << 20};
    xrt_rdma_ctx ctx;
    xrt_rdma_cache_stats s;
    struct ibv_pd *pd;
    size_t k;
    int below = 0;
    char v[64];
    if (xrt_rdma_open(&ctx, NULL) || xrt_rdma_get_pd(ctx, &pd)) {
        printf("skipped: %s\n", xrt_get_last_error_string());
        return 0;
    }
    printf("rdma_cache: register + release of a cached buffer vs ibv_reg_mr + ibv_dereg_mr (median of %d)\n", REPS);
    for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        void *buf;
        xrt_rdma_reg warm;
        double hit, reg;
        if (xrt_malloc_host(&buf, sizes[k]) || xrt_rdma_register(ctx, buf, sizes[k], ACCESS, &warm) ||
            xrt_rdma_release(&warm)) {
            printf("error: %s\n", xrt_get_last_error_string());
            return 1;
        }
        hit = hit_ns(ctx, buf, sizes[k], 2000);
        reg = reg_ns(pd, buf, sizes[k], sizes[k] > (1 << 20) ? 4 : 20);
        if (hit <= 0 || reg <= 0) {
            printf("error: a registration failed\n");
            return 1;
        }
        printf("  %8zu bytes: hit %8.0f ns, ibv_reg_mr + ibv_dereg_mr %10.0f ns: %6.0fx\n", sizes[k], hit, reg,
               reg / hit);
        below += reg / hit < (sizes[k] < (1 << 20) ? 200 : 500);
        bench_target(v, sizeof v, reg / hit, sizes[k] < (1 << 20) ? 200 : 500, 1, "x",
                     "RDMA cache hit, %zu bytes, / ibv_reg_mr + ibv_dereg_mr", sizes[k]);
        xrt_free_host(buf);
    }
    xrt_rdma_cache_get_stats(ctx, &s);
    printf("  cache: %llu hits, %llu misses; target: a hit >= 200x cheaper at 4 KiB, >= 500x from 1 MiB: %s\n",
           (unsigned long long)s.hits,
           (unsigned long long)s.misses, below ? "not met for every size" : "met");
    xrt_rdma_close(ctx);
    xrt_shutdown();
    return 0;
}
