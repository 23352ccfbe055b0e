/* SPDX-License-Identifier: MIT */
/* saxpy for the CPU backend: called once per block; the kernel loops over
   its block's threads. Built into a shared object by the system compiler
   (see the Makefile): cc -shared -fPIC -O2 -I. */
#include "xrt.h"
#include "examples/saxpy/saxpy_args.h"

void saxpy(const xrt_kernel_ctx *ctx, void *p);

void saxpy(const xrt_kernel_ctx *ctx, void *p)
{
    const saxpy_args *a = (const saxpy_args *)p;
    unsigned first = ctx->block_idx.x * ctx->block_dim.x, t;
    for (t = 0; t < ctx->block_dim.x; t++) {
        unsigned i = first + t;
        if (i < a->n) a->y[i] = a->a * a->x[i] + a->y[i];
    }
}
