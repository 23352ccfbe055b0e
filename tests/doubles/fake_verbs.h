/* SPDX-License-Identifier: MIT */
/* A test double of libibverbs's registration calls, for tests on machines
   without an RDMA device (tests/test_rdma.c, tests/test_oom.c). It replaces
   ibv_reg_mr and ibv_dereg_mr in xrt_rdma.h's symbol table and opens a
   context on a made-up protection domain (xrt__rdma_ctx_new, the stand-in
   path of xrt_rdma_open_pd). Each fake MR remembers the generation of the
   xrt allocation it was made over, so a test can tell a registration of
   freed memory from one of the memory now at that address. Include after
   xrt_rdma.h; tests only. */
#ifndef XRT_FAKE_VERBS_H
#define XRT_FAKE_VERBS_H

#include <infiniband/verbs.h>

#define FAKE_MRS 4096

typedef struct fake_mr {
    struct ibv_mr mr; /* first */
    uint64_t gen;     /* of the xrt allocation at addr when registered (0: none) */
    long epoch;       /* fake_verbs.epoch when registered (a test's own clock) */
    int access;
} fake_mr;

static struct {
    int lock;
    long regs, deregs;
    int fail_errno;                /* the next ibv_reg_mr fails with it, once */
    void (*during_reg)(void *);    /* runs once inside the next ibv_reg_mr */
    void *during_arg;
    uint32_t key;
    long epoch;
    fake_mr *live[FAKE_MRS];
    struct ibv_context vc;
    struct ibv_pd pd;
    int saved;
    __typeof__(xrt__rdma_rt) real;
} fake_verbs;

static inline struct ibv_mr *fake_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
    void (*during)(void *) = __atomic_exchange_n(&fake_verbs.during_reg, (void (*)(void *))NULL, __ATOMIC_ACQ_REL);
    xrt__mem_info m;
    fake_mr *f;
    int i;
    if (during) during(fake_verbs.during_arg);
    if (fake_verbs.fail_errno) {
        errno = fake_verbs.fail_errno;
        fake_verbs.fail_errno = 0;
        return NULL;
    }
    if ((f = (fake_mr *)calloc(1, sizeof *f)) == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    f->gen = xrt__mem_query(addr, &m) ? m.generation : 0;
    f->epoch = __atomic_load_n(&fake_verbs.epoch, __ATOMIC_ACQUIRE);
    f->access = access;
    f->mr.pd = pd;
    f->mr.context = pd->context;
    f->mr.addr = addr;
    f->mr.length = length;
    xrt__spin_lock(&fake_verbs.lock);
    /* Every MR gets a remote key, with or without remote access, as on mlx5
       (whose key is the lkey; rxe gives 0 without remote access): what a
       registration reports as its rkey is xrt's doing. A key of its own, so
       that an lkey used as an rkey reaches nothing. */
    f->mr.lkey = ++fake_verbs.key;
    f->mr.rkey = ++fake_verbs.key | 0x80000000u;
    for (i = 0; i < FAKE_MRS && fake_verbs.live[i]; i++) {}
    if (i < FAKE_MRS) fake_verbs.live[i] = f;
    fake_verbs.regs++;
    xrt__spin_unlock(&fake_verbs.lock);
    return &f->mr;
}

static inline int fake_dereg_mr(struct ibv_mr *mr)
{
    int i;
    xrt__spin_lock(&fake_verbs.lock);
    for (i = 0; i < FAKE_MRS; i++)
        if (fake_verbs.live[i] && &fake_verbs.live[i]->mr == mr) fake_verbs.live[i] = NULL;
    fake_verbs.deregs++;
    xrt__spin_unlock(&fake_verbs.lock);
    free(mr);
    return 0;
}

/* MRs registered and not deregistered. */
static inline long fake_live(void) { return fake_verbs.regs - fake_verbs.deregs; }

/* The live MR with this remote key, or NULL: a key that reaches nothing. */
static inline fake_mr *fake_by_rkey(uint32_t rkey)
{
    fake_mr *f = NULL;
    int i;
    if (!rkey) return NULL;
    xrt__spin_lock(&fake_verbs.lock);
    for (i = 0; i < FAKE_MRS && !f; i++)
        if (fake_verbs.live[i] && fake_verbs.live[i]->mr.rkey == rkey) f = fake_verbs.live[i];
    xrt__spin_unlock(&fake_verbs.lock);
    return f;
}

static inline fake_mr *fake_of(const xrt_rdma_reg *r) { return (fake_mr *)(void *)r->mr; }

/* Installs the double and opens a context on it (cache per XRT_RDMA_CACHE). */
static inline xrt_status fake_open(xrt_rdma_ctx *ctx)
{
    if (!fake_verbs.saved) {
        fake_verbs.real = xrt__rdma_rt;
        fake_verbs.saved = 1;
    }
    xrt__rdma_rt.reg_mr = fake_reg_mr;
    xrt__rdma_rt.dereg_mr = fake_dereg_mr;
    xrt__rdma_rt.reg_dmabuf_mr = NULL;
    fake_verbs.pd.context = &fake_verbs.vc;
    return xrt__rdma_ctx_new(&fake_verbs.vc, &fake_verbs.pd, 0, "fake0", "xrt_rdma_open_pd", ctx);
}

/* Puts libibverbs's symbols back. */
static inline void fake_restore(void)
{
    if (fake_verbs.saved) xrt__rdma_rt = fake_verbs.real;
    fake_verbs.saved = 0;
}

/* Closes the context and puts libibverbs's symbols back. */
static inline xrt_status fake_close(xrt_rdma_ctx ctx)
{
    xrt_status st = xrt_rdma_close(ctx);
    fake_restore();
    return st;
}

#endif
