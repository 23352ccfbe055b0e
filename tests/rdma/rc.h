/* SPDX-License-Identifier: MIT */
/* Reliable-connected queue pairs for the RDMA tests: just enough verbs to
   move bytes with RDMA WRITE and READ between two QPs, on one device (rxe
   loops back through its own GID) or across two hosts (the QP details go
   over TCP). Linked with -libverbs; registration goes through xrt_rdma.h. */
#ifndef XRT_TEST_RC_H
#define XRT_TEST_RC_H

#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct rc_ep {
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    struct ibv_qp *qp;
    int gid_index;
    union ibv_gid gid;
    enum ibv_mtu mtu;
    uint32_t psn;
} rc_ep;

/* What the other end needs: the QP's address and a buffer to reach. */
typedef struct rc_wire {
    uint32_t qpn, psn;
    uint8_t gid[16];
    uint64_t addr;
    uint32_t rkey;
    uint32_t size;
} rc_wire;

/* The port-1 GID that is an IPv4-mapped address with RoCE v2 (the one that
   routes over UDP/IPv4), from xrt's own device listing. */
static inline int rc_find_gid(struct ibv_context *vc, union ibv_gid *gid, int *index)
{
    xrt_rdma_device_info info;
    int n = 0, d, g;
    if (xrt_rdma_device_count(&n) != XRT_SUCCESS) return -1;
    for (d = 0; d < n; d++) {
        if (xrt_rdma_device_get_info(d, &info) != XRT_SUCCESS) return -1;
        if (strcmp(info.name, ibv_get_device_name(vc->device)) != 0) continue;
        for (g = 0; g < info.ports[0].gid_count; g++) {
            const xrt_rdma_gid *x = &info.ports[0].gids[g];
            static const uint8_t v4[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
            if (strcmp(x->type, "RoCE v2") || memcmp(x->raw, v4, 12)) continue;
            memcpy(gid->raw, x->raw, 16);
            *index = x->index;
            return 0;
        }
    }
    return -1;
}

static inline int rc_open(rc_ep *ep, struct ibv_pd *pd)
{
    struct ibv_qp_init_attr ia;
    struct ibv_qp_attr a;
    struct ibv_port_attr pa;
    memset(ep, 0, sizeof *ep);
    ep->pd = pd;
    if (rc_find_gid(pd->context, &ep->gid, &ep->gid_index) != 0) return -1;
    if (ibv_query_port(pd->context, 1, &pa) != 0) return -1;
    ep->mtu = pa.active_mtu;
    ep->psn = (uint32_t)rand() & 0xffffff;
    if (!(ep->cq = ibv_create_cq(pd->context, 64, NULL, NULL, 0))) return -1;
    memset(&ia, 0, sizeof ia);
    ia.send_cq = ep->cq;
    ia.recv_cq = ep->cq;
    ia.qp_type = IBV_QPT_RC;
    ia.cap.max_send_wr = 32;
    ia.cap.max_recv_wr = 32;
    ia.cap.max_send_sge = 1;
    ia.cap.max_recv_sge = 1;
    if (!(ep->qp = ibv_create_qp(pd, &ia))) return -1;
    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
    return ibv_modify_qp(ep->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

static inline void rc_wire_of(const rc_ep *ep, rc_wire *w)
{
    memset(w, 0, sizeof *w);
    w->qpn = ep->qp->qp_num;
    w->psn = ep->psn;
    memcpy(w->gid, ep->gid.raw, 16);
}

static inline int rc_connect(rc_ep *ep, const rc_wire *remote)
{
    struct ibv_qp_attr a;
    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = ep->mtu;
    a.dest_qp_num = remote->qpn;
    a.rq_psn = remote->psn;
    a.max_dest_rd_atomic = 4;
    a.min_rnr_timer = 12;
    a.ah_attr.is_global = 1;
    memcpy(a.ah_attr.grh.dgid.raw, remote->gid, 16);
    a.ah_attr.grh.sgid_index = (uint8_t)ep->gid_index;
    a.ah_attr.grh.hop_limit = 64;
    a.ah_attr.port_num = 1;
    if (ibv_modify_qp(ep->qp, &a,
                      IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                          IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
        return -1;
    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_RTS;
    a.timeout = 14;
    a.retry_cnt = 7;
    a.rnr_retry = 7;
    a.sq_psn = ep->psn;
    a.max_rd_atomic = 4;
    return ibv_modify_qp(ep->qp, &a,
                         IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                             IBV_QP_MAX_QP_RD_ATOMIC);
}

/* Two QPs of one PD connected to each other. */
static inline int rc_pair(struct ibv_pd *pd, rc_ep *a, rc_ep *b)
{
    rc_wire wa, wb;
    if (rc_open(a, pd) || rc_open(b, pd)) return -1;
    rc_wire_of(a, &wa);
    rc_wire_of(b, &wb);
    return rc_connect(a, &wb) || rc_connect(b, &wa) ? -1 : 0;
}

static inline void rc_close(rc_ep *ep)
{
    if (ep->qp) ibv_destroy_qp(ep->qp);
    if (ep->cq) ibv_destroy_cq(ep->cq);
    memset(ep, 0, sizeof *ep);
}

/* One completion, polled for up to 20 s (an emulated VM is slow): its
   status, or -1 on timeout. */
static inline int rc_wait(rc_ep *ep)
{
    struct ibv_wc wc;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        int n = ibv_poll_cq(ep->cq, 1, &wc);
        if (n < 0) return -1;
        if (n == 1) return (int)wc.status;
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec > 20) return -1;
    }
}

/* RDMA WRITE (local -> remote) or READ (remote -> local) of len bytes;
   returns the completion status (IBV_WC_SUCCESS = 0). */
static inline int rc_rdma(rc_ep *ep, enum ibv_wr_opcode op, const void *local, uint32_t lkey, size_t len,
                          uint64_t raddr, uint32_t rkey)
{
    struct ibv_sge sge;
    struct ibv_send_wr wr, *bad = NULL;
    memset(&wr, 0, sizeof wr);
    sge.addr = (uint64_t)(uintptr_t)local;
    sge.length = (uint32_t)len;
    sge.lkey = lkey;
    wr.wr_id = 1;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = op;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.rdma.remote_addr = raddr;
    wr.wr.rdma.rkey = rkey;
    if (ibv_post_send(ep->qp, &wr, &bad)) return -1;
    return rc_wait(ep);
}

/* >> TCP, for the QP details between two hosts */
static inline int rc_write_all(int fd, const void *p, size_t n)
{
    const char *c = (const char *)p;
    while (n) {
        ssize_t k = write(fd, c, n);
        if (k <= 0) return -1;
        c += k;
        n -= (size_t)k;
    }
    return 0;
}

static inline int rc_read_all(int fd, void *p, size_t n)
{
    char *c = (char *)p;
    while (n) {
        ssize_t k = read(fd, c, n);
        if (k <= 0) return -1;
        c += k;
        n -= (size_t)k;
    }
    return 0;
}

/* server: peer is NULL, waits for one connection on `port`; client:
   connects to peer:port, retrying for up to `patience` seconds (the other
   host may still be booting). Returns the connected socket or -1. */
static inline int rc_tcp(const char *peer, int port, int patience)
{
    struct sockaddr_in sa;
    int fd, one = 1, i;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    if (!peer) {
        int ls = socket(AF_INET, SOCK_STREAM, 0);
        if (ls < 0) return -1;
        setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sa.sin_addr.s_addr = htonl(INADDR_ANY);
        if (bind(ls, (struct sockaddr *)&sa, sizeof sa) || listen(ls, 1)) {
            close(ls);
            return -1;
        }
        fd = accept(ls, NULL, NULL);
        close(ls);
        return fd;
    }
    if (inet_pton(AF_INET, peer, &sa.sin_addr) != 1) return -1;
    for (i = 0; i < patience * 10; i++) {
        struct timespec ts = {0, 100000000L};
        if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0) return -1;
        if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0) return fd;
        close(fd);
        nanosleep(&ts, NULL);
    }
    return -1;
}

/* Sends ours, receives theirs (both sides send first: the socket buffers
   hold a few dozen bytes easily). */
static inline int rc_exchange(int fd, const rc_wire *mine, rc_wire *theirs)
{
    return rc_write_all(fd, mine, sizeof *mine) || rc_read_all(fd, theirs, sizeof *theirs) ? -1 : 0;
}

#endif
