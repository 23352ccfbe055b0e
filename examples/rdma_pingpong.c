/* SPDX-License-Identifier: MIT */
/* rdma_pingpong - RC ping-pong between two hosts, like rdma-core's
   ibv_rc_pingpong, with its buffers from xrt (device or pinned memory of any
   backend) and every registration through xrt's registration cache.

     server:  rdma_pingpong [options]
     client:  rdma_pingpong [options] SERVER-ADDRESS

   The two sides swap their QP details over TCP, then the client SENDs a
   message n times and the server echoes each back; the client checks every
   byte. Each message is registered right before it is posted and released
   after its completion, as an application that does not keep registrations
   would: the cache turns all but the first into hits. Build: link -libverbs
   (queue pairs are plain verbs; xrt_rdma.h does the registration). */
#define XRT_IMPL
#define XRT_ENABLE_RDMA
#include "xrt.h"
#include "xrt_rdma.h"

#include "tools/cli.h" /* the tools' argument convention */

#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct options {
    const char *device, *server, *backend, *memory;
    int port, iters, gid_index;
    size_t size;
} options;

typedef struct peer { uint32_t qpn, psn; union ibv_gid gid; } peer;

typedef struct pingpong {
    options opt;
    xrt_rdma_ctx ctx;
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    struct ibv_qp *qp;
    void *send_buf, *recv_buf; /* xrt memory */
    unsigned char *host;       /* staging for filling and checking */
    xrt_rdma_reg recv_reg;     /* held while its RECV is posted */
    union ibv_gid gid;
    int gid_index;
    enum ibv_mtu mtu;
    uint32_t psn;
    int completed[4];          /* completions seen but not yet waited for, by wr_id */
} pingpong;

static const char usage[] =
    "Usage: rdma_pingpong [options] [SERVER-ADDRESS]\n"
    "RC ping-pong over RDMA with xrt buffers; no address: be the server.\n"
    "\n"
    "  -d, --device NAME     RDMA device (default: XRT_RDMA_DEVICE, else the nearest with an active port)\n"
    "  -p, --port PORT       TCP port for the handshake (default 18516)\n"
    "  -s, --size SIZE       message size (default 4096; suffixes K, M are powers of 1024)\n"
    "  -n, --iters N         round trips (default 1000)\n"
    "  -b, --backend NAME    xrt backend that allocates the buffers (default: xrt's choice)\n"
    "  -m, --memory KIND     device (xrt_malloc, default) or pinned (xrt_malloc_host)\n"
    "  -g, --gid-index N     local GID index (default: the IPv4 RoCE v2 GID, else 0)\n"
    "  -h, --help            print this help and exit\n"
    "\n"
    "Exit status: 0; 1 when xrt, verbs or the connection fails (the message says\n"
    "why); 2 for bad arguments.\n";

static const char *const memory_kinds[] = {"device", "pinned"};

static void parse_option(cli *c, options *o)
{
    const char *v;
    if (cli_option2(c, "-d", "--device", &o->device)) return;
    if (cli_option2(c, "-b", "--backend", &o->backend)) return;
    if (cli_option2(c, "-p", "--port", &v)) o->port = (int)cli_long(c, "--port", v, 1, 65535);
    else if (cli_option2(c, "-s", "--size", &v)) o->size = cli_size(c, "--size", v, 1ull << 31);
    else if (cli_option2(c, "-n", "--iters", &v)) o->iters = (int)cli_long(c, "--iters", v, 1, 1000000000);
    else if (cli_option2(c, "-m", "--memory", &v)) o->memory = memory_kinds[cli_choice(c, "--memory", v, memory_kinds, 2)];
    else if (cli_option2(c, "-g", "--gid-index", &v)) o->gid_index = (int)cli_long(c, "--gid-index", v, 0, 255);
    else if (c->argv[c->i][0] != '-' && !o->server) o->server = c->argv[c->i];
    else cli_unknown(c);
}

static void parse(int argc, char **argv, options *o)
{
    cli c = {"rdma_pingpong", argc, 1, argv};
    memset(o, 0, sizeof *o);
    o->port = 18516;
    o->size = 4096;
    o->iters = 1000;
    o->memory = "device";
    o->gid_index = -1;
    for (; c.i < argc; c.i++) {
        cli_help(&c, usage);
        parse_option(&c, o);
    }
    if (o->backend) cli_backend(&c, "--backend", o->backend);
}

/* xrt's detail names the call that failed; `what` says what the tool was
   doing, when the detail does not already say it. */
static int fail(const char *what)
{
    const char *detail = xrt_get_last_error_string();
    if (strncmp(detail, what, strlen(what)) == 0) fprintf(stderr, "rdma_pingpong: %s\n", detail);
    else fprintf(stderr, "rdma_pingpong: %s: %s\n", what, detail);
    return -1;
}

/* >> setup: buffers, queue pair, GID */
static int alloc_buffers(pingpong *pp)
{
    int device = !strcmp(pp->opt.memory, "device");
    if (pp->opt.backend && xrt_set_backend(pp->opt.backend)) return fail("xrt_set_backend");
    if ((device ? xrt_malloc(&pp->send_buf, pp->opt.size) : xrt_malloc_host(&pp->send_buf, pp->opt.size)) ||
        (device ? xrt_malloc(&pp->recv_buf, pp->opt.size) : xrt_malloc_host(&pp->recv_buf, pp->opt.size)))
        return fail("allocating the buffers");
    if (!(pp->host = (unsigned char *)malloc(pp->opt.size))) {
        fprintf(stderr, "rdma_pingpong: out of host memory (%zu bytes)\n", pp->opt.size);
        return -1;
    }
    return 0;
}

/* The IPv4-mapped RoCE v2 GID of port 1 (it routes over UDP/IPv4), else index 0. */
static int pick_gid(pingpong *pp)
{
    xrt_rdma_context_info ci;
    xrt_rdma_device_info di;
    int n = 0, d, g;
    if (xrt_rdma_get_info(pp->ctx, &ci) || xrt_rdma_device_count(&n)) return fail("listing devices");
    pp->gid_index = pp->opt.gid_index >= 0 ? pp->opt.gid_index : 0;
    for (d = 0; d < n && pp->opt.gid_index < 0; d++) {
        if (xrt_rdma_device_get_info(d, &di) || strcmp(di.name, ci.device)) continue;
        for (g = 0; g < di.ports[0].gid_count; g++)
            if (!strcmp(di.ports[0].gids[g].type, "RoCE v2") && di.ports[0].gids[g].raw[10] == 0xff &&
                di.ports[0].gids[g].raw[11] == 0xff) {
                pp->gid_index = di.ports[0].gids[g].index;
                break;
            }
    }
    if (ibv_query_gid(pp->pd->context, 1, pp->gid_index, &pp->gid)) {
        fprintf(stderr, "rdma_pingpong: ibv_query_gid %d failed\n", pp->gid_index);
        return -1;
    }
    return 0;
}

static int create_qp(pingpong *pp)
{
    struct ibv_qp_init_attr ia;
    struct ibv_qp_attr a;
    struct ibv_port_attr pa;
    if (ibv_query_port(pp->pd->context, 1, &pa)) return -1;
    pp->mtu = pa.active_mtu;
    pp->psn = (uint32_t)(rand() & 0xffffff);
    if (!(pp->cq = ibv_create_cq(pp->pd->context, 16, NULL, NULL, 0))) return -1;
    memset(&ia, 0, sizeof ia);
    ia.send_cq = ia.recv_cq = pp->cq;
    ia.qp_type = IBV_QPT_RC;
    ia.cap.max_send_wr = ia.cap.max_recv_wr = 4;
    ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
    if (!(pp->qp = ibv_create_qp(pp->pd, &ia))) return -1;
    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    return ibv_modify_qp(pp->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

static int connect_qp(pingpong *pp, const peer *remote)
{
    struct ibv_qp_attr a;
    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = pp->mtu;
    a.dest_qp_num = remote->qpn;
    a.rq_psn = remote->psn;
    a.max_dest_rd_atomic = 1;
    a.min_rnr_timer = 12;
    a.ah_attr.is_global = 1;
    a.ah_attr.grh.dgid = remote->gid;
    a.ah_attr.grh.sgid_index = (uint8_t)pp->gid_index;
    a.ah_attr.grh.hop_limit = 64;
    a.ah_attr.port_num = 1;
    if (ibv_modify_qp(pp->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                                      IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
        return -1;
    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_RTS;
    a.timeout = 14;
    a.retry_cnt = 7;
    a.rnr_retry = 7;
    a.sq_psn = pp->psn;
    a.max_rd_atomic = 1;
    return ibv_modify_qp(pp->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                                         IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* >> handshake: "qpn psn gid" as text, like ibv_rc_pingpong */
static int tcp_connect(const options *o)
{
    struct addrinfo hints, *res, *r;
    char port[16];
    int fd = -1, tries, one = 1;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = o->server ? 0 : AI_PASSIVE;
    snprintf(port, sizeof port, "%d", o->port);
    if (getaddrinfo(o->server, port, &hints, &res)) return -1;
    if (!o->server) { /* server: one connection */
        int ls = socket(res->ai_family, res->ai_socktype, 0);
        setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (ls >= 0 && !bind(ls, res->ai_addr, res->ai_addrlen) && !listen(ls, 1)) fd = accept(ls, NULL, NULL);
        if (ls >= 0) close(ls);
        freeaddrinfo(res);
        return fd;
    }
    for (tries = 0; tries < 600 && fd < 0; tries++) { /* the server may still be starting: 60 s */
        for (r = res; r && fd < 0; r = r->ai_next) {
            fd = socket(r->ai_family, r->ai_socktype, 0);
            if (fd >= 0 && connect(fd, r->ai_addr, r->ai_addrlen)) {
                close(fd);
                fd = -1;
            }
        }
        if (fd < 0) usleep(100000);
    }
    freeaddrinfo(res);
    return fd;
}

static int exchange(int fd, const pingpong *pp, peer *remote)
{
    char msg[64], in[64];
    unsigned char *g = remote->gid.raw;
    size_t got = 0;
    int i, n;
    n = snprintf(msg, sizeof msg, "%06x %06x ", pp->qp->qp_num, pp->psn);
    for (i = 0; i < 16; i++) n += snprintf(msg + n, sizeof msg - (size_t)n, "%02x", pp->gid.raw[i]);
    msg[n++] = '\n';
    if (write(fd, msg, (size_t)n) != n) return -1;
    while (got < (size_t)n) {
        ssize_t k = read(fd, in + got, (size_t)n - got);
        if (k <= 0) return -1;
        got += (size_t)k;
    }
    in[n - 1] = 0;
    if (sscanf(in, "%6x %6x", &remote->qpn, &remote->psn) != 2) return -1;
    for (i = 0; i < 16; i++) {
        unsigned v;
        if (sscanf(in + 14 + 2 * i, "%2x", &v) != 1) return -1;
        g[i] = (unsigned char)v;
    }
    return 0;
}

/* >> the ping-pong */
static int post(pingpong *pp, int send, void *buf, xrt_rdma_reg *reg)
{
    struct ibv_sge sge;
    if (xrt_rdma_register(pp->ctx, buf, pp->opt.size, XRT_RDMA_LOCAL_WRITE, reg)) return fail("xrt_rdma_register");
    sge.addr = reg->addr;
    sge.length = (uint32_t)pp->opt.size;
    sge.lkey = reg->lkey;
    if (send) {
        struct ibv_send_wr wr, *bad;
        memset(&wr, 0, sizeof wr);
        wr.wr_id = 1;
        wr.sg_list = &sge;
        wr.num_sge = 1;
        wr.opcode = IBV_WR_SEND;
        wr.send_flags = IBV_SEND_SIGNALED;
        return ibv_post_send(pp->qp, &wr, &bad);
    } else {
        struct ibv_recv_wr wr, *bad;
        memset(&wr, 0, sizeof wr);
        wr.wr_id = 2;
        wr.sg_list = &sge;
        wr.num_sge = 1;
        return ibv_post_recv(pp->qp, &wr, &bad);
    }
}

/* Waits for a completion with wr_id `id` (1 send, 2 receive); 10 s at most.
   A completion of the other kind that comes first is counted, not lost: the
   echo can complete before the acknowledgement of our own send. */
static int wait_for(pingpong *pp, uint64_t id)
{
    struct ibv_wc wc;
    time_t t0 = time(NULL);
    while (!pp->completed[id] && time(NULL) - t0 < 10) {
        int n = ibv_poll_cq(pp->cq, 1, &wc);
        if (n < 0) return -1;
        if (n == 0) continue;
        if (wc.status != IBV_WC_SUCCESS) {
            fprintf(stderr, "rdma_pingpong: completion of %s: %s\n", wc.wr_id == 1 ? "send" : "receive",
                    ibv_wc_status_str(wc.status));
            return -1;
        }
        pp->completed[wc.wr_id & 3]++;
    }
    if (!pp->completed[id]) {
        fprintf(stderr, "rdma_pingpong: no %s completion in 10 s\n", id == 1 ? "send" : "receive");
        return -1;
    }
    pp->completed[id]--;
    return 0;
}

static void pattern(unsigned char *p, size_t n, int iter)
{
    size_t i;
    for (i = 0; i < n; i++) p[i] = (unsigned char)(i * 31 + (size_t)iter);
}

/* One round trip. Client: send the pattern, receive the echo, check it.
   Server: receive, echo the same bytes back. Both re-post their receive
   before sending, so a message never finds no receive posted. */
static int round_trip(pingpong *pp, int iter)
{
    xrt_rdma_reg send_reg;
    int client = pp->opt.server != NULL;
    if (client) {
        pattern(pp->host, pp->opt.size, iter);
        if (xrt_memcpy(pp->send_buf, pp->host, pp->opt.size, XRT_MEMCPY_DEFAULT)) return fail("xrt_memcpy");
    } else {
        if (wait_for(pp, 2) || xrt_rdma_release(&pp->recv_reg)) return -1;
        if (xrt_memcpy(pp->send_buf, pp->recv_buf, pp->opt.size, XRT_MEMCPY_DEFAULT)) return fail("xrt_memcpy");
        /* device to device, the copy does not wait (as cudaMemcpy): the NIC
           must not read send_buf, nor write recv_buf, before it is done */
        if (xrt_stream_synchronize(NULL)) return fail("xrt_stream_synchronize");
        if (post(pp, 0, pp->recv_buf, &pp->recv_reg)) return -1;
    }
    if (post(pp, 1, pp->send_buf, &send_reg) || wait_for(pp, 1) || xrt_rdma_release(&send_reg)) return -1;
    if (!client) return 0;
    if (wait_for(pp, 2) || xrt_rdma_release(&pp->recv_reg)) return -1;
    if (xrt_memcpy(pp->host, pp->recv_buf, pp->opt.size, XRT_MEMCPY_DEFAULT)) return fail("xrt_memcpy");
    if (iter + 1 < pp->opt.iters && post(pp, 0, pp->recv_buf, &pp->recv_reg)) return -1;
    {
        unsigned char *want = (unsigned char *)malloc(pp->opt.size);
        int bad = !want;
        if (want) {
            pattern(want, pp->opt.size, iter);
            bad = memcmp(want, pp->host, pp->opt.size) != 0;
            free(want);
        }
        if (bad) {
            fprintf(stderr, "rdma_pingpong: round trip %d came back changed\n", iter);
            return -1;
        }
    }
    return 0;
}

static int run(pingpong *pp)
{
    struct timespec t0, t1;
    xrt_rdma_cache_stats s;
    xrt_rdma_context_info ci;
    const char *backend = NULL;
    peer remote;
    double us;
    char ack;
    int fd, i;
    if (xrt_rdma_open(&pp->ctx, pp->opt.device) || xrt_rdma_get_pd(pp->ctx, &pp->pd)) return fail("xrt_rdma_open");
    if (alloc_buffers(pp) || pick_gid(pp)) return -1;
    if (create_qp(pp)) {
        fprintf(stderr, "rdma_pingpong: creating the queue pair on %s failed: %s\n", pp->opt.device ? pp->opt.device : "the device",
                strerror(errno));
        return -1;
    }
    if (post(pp, 0, pp->recv_buf, &pp->recv_reg)) return -1;
    xrt_get_backend(&backend);
    xrt_rdma_get_info(pp->ctx, &ci);
    printf("%s on %s (GID index %d); %zu-byte messages in %s memory of backend %s, registered via %s\n",
           pp->opt.server ? "client" : "server", ci.device, pp->gid_index, pp->opt.size, pp->opt.memory,
           backend ? backend : "?", xrt_rdma_path_name(pp->recv_reg.path));
    if ((fd = tcp_connect(&pp->opt)) < 0) {
        fprintf(stderr, "rdma_pingpong: no TCP connection on port %d\n", pp->opt.port);
        return -1;
    }
    if (exchange(fd, pp, &remote) || connect_qp(pp, &remote)) {
        fprintf(stderr, "rdma_pingpong: connecting the queue pair failed\n");
        close(fd);
        return -1;
    }
    /* Both sides have a receive posted and an RTS queue pair: start. */
    if (write(fd, "r", 1) != 1 || read(fd, &ack, 1) != 1) {
        close(fd);
        return -1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (i = 0; i < pp->opt.iters; i++)
        if (round_trip(pp, i)) {
            close(fd);
            return -1;
        }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    close(fd);
    us = (double)(t1.tv_sec - t0.tv_sec) * 1e6 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e3;
    xrt_rdma_cache_get_stats(pp->ctx, &s);
    printf("%d round trips of %zu bytes in %.0f us: %.1f us each%s\n", pp->opt.iters, pp->opt.size, us,
           us / pp->opt.iters, pp->opt.server ? ", every byte verified" : "");
    printf("registration cache: %llu hits, %llu misses\n", (unsigned long long)s.hits, (unsigned long long)s.misses);
    return 0;
}

static void cleanup(pingpong *pp)
{
    if (pp->recv_reg.opaque) xrt_rdma_release(&pp->recv_reg);
    if (pp->qp) ibv_destroy_qp(pp->qp);
    if (pp->cq) ibv_destroy_cq(pp->cq);
    if (pp->ctx) xrt_rdma_close(pp->ctx);
    if (!strcmp(pp->opt.memory, "device")) {
        xrt_free(pp->send_buf);
        xrt_free(pp->recv_buf);
    } else {
        xrt_free_host(pp->send_buf);
        xrt_free_host(pp->recv_buf);
    }
    free(pp->host);
}

int main(int argc, char **argv)
{
    pingpong pp;
    int rc;
    memset(&pp, 0, sizeof pp);
    xrt_set_log_level(XRT_LOG_NONE); /* errors are printed here, once */
    parse(argc, argv, &pp.opt);
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    rc = run(&pp);
    cleanup(&pp);
    xrt_shutdown();
    return rc ? 1 : 0;
}
