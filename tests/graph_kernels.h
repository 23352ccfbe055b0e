/* SPDX-License-Identifier: MIT */
/* The kernels of the graph tests (tests/test_graph.c, tests/test_graph_nodes.c):
   add(a): a->p[i] += a->v, mul(a): a->p[i] *= a->v, for i < a->n; C source
   for the CPU backend, PTX for CUDA. */
#ifndef XRT_TEST_GRAPH_KERNELS_H
#define XRT_TEST_GRAPH_KERNELS_H

#define N 1024

static const char graph_source[] =
    "#include <stddef.h>\n"
    "typedef struct { unsigned x, y, z; } d3;\n"
    "typedef struct { d3 g, b, i; void *sh; size_t shb; } ctx_t;\n"
    "typedef struct { int *p; int v; unsigned n; } arg_t;\n"
    "void add(const ctx_t *c, arg_t *a) { unsigned t; for (t = 0; t < c->b.x; t++) { unsigned i = c->i.x * c->b.x + t;"
    " if (i < a->n) a->p[i] += a->v; } }\n"
    "void mul(const ctx_t *c, arg_t *a) { unsigned t; for (t = 0; t < c->b.x; t++) { unsigned i = c->i.x * c->b.x + t;"
    " if (i < a->n) a->p[i] *= a->v; } }\n";

/* The same kernels for CUDA: the parameters are arg_t's fields. */
#define GRAPH_PTX_KERNEL(name, op)                                                                     \
    ".visible .entry " name "(.param .u64 " name "_p, .param .u32 " name "_v, .param .u32 " name "_n)\n" \
    "{\n"                                                                                              \
    "	.reg .pred %p<2>;\n"                                                                           \
    "	.reg .b32 %r<8>;\n"                                                                            \
    "	.reg .b64 %rd<5>;\n"                                                                           \
    "	ld.param.u64 %rd1, [" name "_p];\n"                                                            \
    "	ld.param.u32 %r1, [" name "_v];\n"                                                             \
    "	ld.param.u32 %r2, [" name "_n];\n"                                                             \
    "	mov.u32 %r3, %ctaid.x;\n"                                                                      \
    "	mov.u32 %r4, %ntid.x;\n"                                                                       \
    "	mov.u32 %r5, %tid.x;\n"                                                                        \
    "	mad.lo.s32 %r6, %r3, %r4, %r5;\n"                                                              \
    "	setp.ge.u32 %p1, %r6, %r2;\n"                                                                  \
    "	@%p1 bra " name "_done;\n"                                                                     \
    "	cvta.to.global.u64 %rd2, %rd1;\n"                                                              \
    "	mul.wide.u32 %rd3, %r6, 4;\n"                                                                  \
    "	add.s64 %rd4, %rd2, %rd3;\n"                                                                   \
    "	ld.global.u32 %r7, [%rd4];\n"                                                                  \
    "	" op " %r7, %r7, %r1;\n"                                                                       \
    "	st.global.u32 [%rd4], %r7;\n"                                                                  \
    name "_done:\n"                                                                                    \
    "	ret;\n"                                                                                        \
    "}\n"
static const char graph_ptx[] = ".version 7.5\n.target sm_75\n.address_size 64\n" GRAPH_PTX_KERNEL("add", "add.s32")
    GRAPH_PTX_KERNEL("mul", "mul.lo.s32");

typedef struct { int *p; int v; unsigned n; } arg_t;

#endif
