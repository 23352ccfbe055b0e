/* SPDX-License-Identifier: MIT */
/* fabric_setup.h - the libfabric plumbing of the examples, written once: an
   RDM endpoint with its completion queue and address vector, and the
   out-of-band TCP connection every libfabric application needs to swap
   endpoint names and keys. Every wait is bounded by fab.timeout_s. Errors are
   printed to stderr as "PROG: ROLE: what" and returned as -1.

     fab f = {"prog", "role", 30, -1};
     fab_open(&f, provider, "127.0.0.1", FI_RMA | FI_MSG);   (FI_HMEM: device memory)
     listener: fab_listen(&f, "127.0.0.1", 0)   peer: fab_connect(&f, host, port)
     fab_swap_names(&f);   ... f.ep, f.cq, f.peer ...   fab_close(&f);

   The options both roles take (--provider, --address, --port, --timeout,
   HOST PORT) are parsed once too: fab_arg in the program's option loop,
   fab_args_done after it. Build with <rdma/fabric.h>, link -lfabric. */
#ifndef XRT_EXAMPLES_FABRIC_SETUP_H
#define XRT_EXAMPLES_FABRIC_SETUP_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tools/cli.h" /* the tools' argument convention */

#define FAB_NAME_MAX 256 /* endpoint names: sockaddr_in for tcp and verbs */

typedef struct fab {
    const char *prog, *role;
    int timeout_s;
    int sock; /* the out-of-band connection; -1 before it */
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq; /* FI_CQ_FORMAT_MSG, for every operation */
    struct fid_ep *ep;
    fi_addr_t peer;
    /* Called while a wait on the out-of-band channel polls, when set: with
       manual progress (tcp), a peer's RMA into this process completes only
       while this side drives its endpoint. */
    void (*progress)(struct fab *f);
} fab;

static inline double fab_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static inline int fab_fail(const fab *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline int fab_fail(const fab *f, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: %s: ", f->prog, f->role);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return -1;
}

static inline void fab_say(const fab *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void fab_say(const fab *f, const char *fmt, ...)
{
    va_list ap;
    printf("%s: %s: ", f->prog, f->role);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

static inline int fab_fi_fail(const fab *f, const char *call, long rc)
{
    return fab_fail(f, "%s: %s (%ld)", call, fi_strerror((int)-rc), rc);
}

/* >> options: the endpoint's and the peer's, the same in every example */
typedef struct fab_args {
    const char *provider, *address, *peer; /* peer: HOST, NULL for the listening role */
    int port, timeout_s;
    const char *pos[2];
    int npos;
} fab_args;

/* Their lines of a usage text; LISTENER names the listening role ("receiver"). */
#define FAB_ARGS_USAGE(LISTENER)                                                                       \
    "  --provider NAME   libfabric provider, e.g. tcp or 'verbs;ofi_rxm' (default: libfabric's\n"    \
    "                    choice, which FI_PROVIDER filters)\n"                                         \
    "  --address ADDR    local IPv4 address of the endpoint and of the " LISTENER "'s TCP\n"          \
    "                    listener (default 127.0.0.1)\n"                                              \
    "  --port PORT       the " LISTENER "'s TCP port (default 0: any free one)\n"                      \
    "  --timeout SEC     bound on every wait (default 30)\n"

static inline fab_args fab_args_default(void)
{
    fab_args a = {NULL, "127.0.0.1", NULL, 0, 30, {NULL, NULL}, 0};
    return a;
}

/* 1 when the current argument is one of these options or HOST or PORT; 0
   for the program's own options, and for what no one knows (cli_unknown). */
static inline int fab_arg(cli *c, fab_args *a)
{
    const char *v;
    if (cli_option(c, "--provider", &v)) a->provider = v;
    else if (cli_option(c, "--address", &v)) a->address = v;
    else if (cli_option(c, "--port", &v)) a->port = (int)cli_long(c, "--port", v, 0, 65535);
    else if (cli_option(c, "--timeout", &v)) a->timeout_s = (int)cli_long(c, "--timeout", v, 1, 3600);
    else if (c->argv[c->i][0] == '-' || a->npos == 2) return 0;
    else a->pos[a->npos++] = c->argv[c->i];
    return 1;
}

/* After the option loop: the addresses checked, HOST and PORT taken as the
   peer. `role` names the side that is given them ("the sender"). */
static inline void fab_args_done(cli *c, fab_args *a, const char *role)
{
    struct in_addr ip;
    if (inet_pton(AF_INET, a->address, &ip) != 1) cli_fail(c, "--address: '%s' is not an IPv4 address", a->address);
    if (a->npos == 1) cli_fail(c, "%s needs HOST and PORT", role);
    if (a->npos < 2) return;
    if (inet_pton(AF_INET, a->pos[0], &ip) != 1) cli_fail(c, "HOST: '%s' is not an IPv4 address", a->pos[0]);
    a->peer = a->pos[0];
    a->port = (int)cli_long(c, "PORT", a->pos[1], 1, 65535);
}

/* >> the out-of-band channel */
static inline int fab_listen(fab *f, const char *address, int port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    socklen_t len = sizeof a;
    struct pollfd p;
    int one = 1, fd;
    if (inet_pton(AF_INET, address, &a.sin_addr) != 1) return fab_fail(f, "'%s' is not an IPv4 address", address);
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return fab_fail(f, "socket: %s", strerror(errno));
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) || listen(fd, 1) || getsockname(fd, (struct sockaddr *)&a, &len)) {
        fab_fail(f, "listening on %s port %d: %s", address, port, strerror(errno));
        close(fd);
        return -1;
    }
    fab_say(f, "listening on %s port %d", address, ntohs(a.sin_port));
    p.fd = fd;
    p.events = POLLIN;
    if (poll(&p, 1, f->timeout_s * 1000) <= 0) {
        close(fd);
        return fab_fail(f, "no peer connected within %d s", f->timeout_s);
    }
    f->sock = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
    close(fd);
    return f->sock < 0 ? fab_fail(f, "accept: %s", strerror(errno)) : 0;
}

/* Retries a refused connection until the timeout: the listener may start later. */
static inline int fab_connect(fab *f, const char *host, int port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    double end = fab_now() + f->timeout_s;
    if (inet_pton(AF_INET, host, &a.sin_addr) != 1) return fab_fail(f, "'%s' is not an IPv4 address", host);
    for (;;) {
        int e;
        f->sock = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (f->sock < 0) return fab_fail(f, "socket: %s", strerror(errno));
        if (connect(f->sock, (struct sockaddr *)&a, sizeof a) == 0) return 0;
        e = errno;
        close(f->sock);
        f->sock = -1;
        if ((e != ECONNREFUSED && e != ENETUNREACH) || fab_now() > end)
            return fab_fail(f, "connecting to %s port %d: %s (tried for %d s)", host, port, strerror(e), f->timeout_s);
        nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
    }
}

static inline int fab_oob_send(fab *f, const void *buf, size_t n, const char *what)
{
    const char *p = (const char *)buf;
    while (n) {
        ssize_t k = send(f->sock, p, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return fab_fail(f, "sending %s to the peer: %s", what, strerror(errno));
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static inline int fab_oob_recv(fab *f, void *buf, size_t n, const char *what)
{
    char *p = (char *)buf;
    double end = fab_now() + f->timeout_s;
    while (n) {
        struct pollfd pf = {f->sock, POLLIN, 0};
        ssize_t k;
        if (f->progress) f->progress(f);
        if (fab_now() > end) return fab_fail(f, "no %s from the peer within %d s", what, f->timeout_s);
        if (poll(&pf, 1, f->progress ? 1 : 100) <= 0) continue;
        k = recv(f->sock, p, n, 0);
        if (k < 0 && errno == EINTR) continue;
        if (k == 0) return fab_fail(f, "the peer closed the connection before its %s (it failed: see its output)", what);
        if (k < 0) return fab_fail(f, "receiving %s: %s", what, strerror(errno));
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* >> the endpoint */
/* Hints for an RDM endpoint with `caps`; with FI_HMEM, device memory
   registered as such (FI_MR_HMEM); with FI_MSG, messages in order. NULL when
   out of memory. */
static inline struct fi_info *fab_hints(const char *provider, uint64_t caps)
{
    struct fi_info *h = fi_allocinfo();
    if (!h) return NULL;
    h->caps = caps;
    h->ep_attr->type = FI_EP_RDM;
    h->addr_format = FI_SOCKADDR_IN;
    if (caps & FI_MSG) h->tx_attr->msg_order = FI_ORDER_SAS;
    h->domain_attr->mr_mode =
        FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | (caps & FI_HMEM ? FI_MR_HMEM : 0);
    h->domain_attr->threading = FI_THREAD_DOMAIN;
    if (provider) h->fabric_attr->prov_name = strdup(provider);
    return h;
}

/* fi_getinfo for `caps`, printing nothing: 0 with f->info set, or
   libfabric's negative code (a caller can then ask why, e.g. with fewer caps). */
static inline int fab_query(fab *f, const char *provider, const char *address, uint64_t caps)
{
    struct fi_info *h = fab_hints(provider, caps);
    int rc = h ? fi_getinfo(FI_VERSION(1, 17), address, NULL, FI_SOURCE, h, &f->info) : -FI_ENOMEM;
    fi_freeinfo(h);
    if (rc) f->info = NULL;
    return rc;
}

/* Which providers were asked for, as "tcp", "FI_PROVIDER=tcp" or "any". */
static inline const char *fab_providers(const char *provider, char *buf, size_t len)
{
    const char *env = getenv("FI_PROVIDER");
    snprintf(buf, len, "%s%s", provider ? provider : env ? "FI_PROVIDER=" : "any", provider ? "" : env ? env : "");
    return buf;
}

static inline int fab_getinfo(fab *f, const char *provider, const char *address, uint64_t caps)
{
    char prov[128];
    int rc = fab_query(f, provider, address, caps);
    if (rc == 0) return 0;
    return fab_fail(f, "fi_getinfo: no provider (%s) for RDM endpoints with these capabilities on %s: %s (%d)",
                    fab_providers(provider, prov, sizeof prov), address, fi_strerror(-rc), rc);
}

/* Opens the endpoint; f->info, when the caller has it already (fab_query),
   is used as it is. */
static inline int fab_open(fab *f, const char *provider, const char *address, uint64_t caps)
{
    struct fi_cq_attr cq = {.format = FI_CQ_FORMAT_MSG, .wait_obj = FI_WAIT_NONE, .size = 64};
    struct fi_av_attr av = {.type = FI_AV_TABLE, .count = 1};
    int rc;
    /* One peer: a universe of two processes, unless the user says otherwise.
       ofi_rxm sizes its completion queue to (rx + tx queue size) x the
       universe size: with the default 256 over verbs that is 196608 entries,
       and soft-RoCE (rxe) allows 32767, so fi_enable fails with EINVAL. */
    setenv("FI_UNIVERSE_SIZE", "2", 0);
    if (!f->info && fab_getinfo(f, provider, address, caps)) return -1;
    if ((rc = fi_fabric(f->info->fabric_attr, &f->fabric, NULL))) return f->fabric = NULL, fab_fi_fail(f, "fi_fabric", rc);
    if ((rc = fi_domain(f->fabric, f->info, &f->domain, NULL))) return f->domain = NULL, fab_fi_fail(f, "fi_domain", rc);
    if ((rc = fi_cq_open(f->domain, &cq, &f->cq, NULL))) return f->cq = NULL, fab_fi_fail(f, "fi_cq_open", rc);
    if ((rc = fi_av_open(f->domain, &av, &f->av, NULL))) return f->av = NULL, fab_fi_fail(f, "fi_av_open", rc);
    if ((rc = fi_endpoint(f->domain, f->info, &f->ep, NULL))) return f->ep = NULL, fab_fi_fail(f, "fi_endpoint", rc);
    if ((rc = fi_ep_bind(f->ep, &f->av->fid, 0))) return fab_fi_fail(f, "fi_ep_bind (av)", rc);
    if ((rc = fi_ep_bind(f->ep, &f->cq->fid, FI_TRANSMIT | FI_RECV))) return fab_fi_fail(f, "fi_ep_bind (cq)", rc);
    if ((rc = fi_enable(f->ep))) {
        fab_fi_fail(f, "fi_enable", rc);
        if (strstr(f->info->fabric_attr->prov_name, "ofi_rxm"))
            fab_fail(f, "ofi_rxm's completion queue has (rx + tx queue size) x FI_UNIVERSE_SIZE (now %s) entries; the "
                        "device may allow fewer: set FI_UNIVERSE_SIZE lower", getenv("FI_UNIVERSE_SIZE"));
        return -1;
    }
    fab_say(f, "libfabric %u.%u, provider %s, fabric %s, domain %s", FI_MAJOR(fi_version()), FI_MINOR(fi_version()),
            f->info->fabric_attr->prov_name, f->info->fabric_attr->name, f->info->domain_attr->name);
    return 0;
}

/* Swaps endpoint names over the out-of-band channel; the peer's goes into the AV. */
static inline int fab_swap_names(fab *f)
{
    struct { uint64_t len; unsigned char name[FAB_NAME_MAX]; } mine, theirs;
    size_t len = FAB_NAME_MAX;
    int rc;
    memset(&mine, 0, sizeof mine);
    if ((rc = fi_getname(&f->ep->fid, mine.name, &len))) return fab_fi_fail(f, "fi_getname", rc);
    mine.len = len;
    if (fab_oob_send(f, &mine, sizeof mine, "endpoint name") || fab_oob_recv(f, &theirs, sizeof theirs, "endpoint name"))
        return -1;
    if (theirs.len > FAB_NAME_MAX) return fab_fail(f, "the peer's endpoint name has %llu bytes", (unsigned long long)theirs.len);
    rc = fi_av_insert(f->av, theirs.name, 1, &f->peer, 0, NULL);
    return rc == 1 ? 0 : fab_fi_fail(f, "fi_av_insert", rc < 0 ? rc : -FI_EINVAL);
}

static inline void fab_close(fab *f)
{
    if (f->ep) fi_close(&f->ep->fid);
    if (f->av) fi_close(&f->av->fid);
    if (f->cq) fi_close(&f->cq->fid);
    if (f->domain) fi_close(&f->domain->fid);
    if (f->fabric) fi_close(&f->fabric->fid);
    if (f->info) fi_freeinfo(f->info);
    if (f->sock >= 0) close(f->sock);
    f->ep = NULL, f->av = NULL, f->cq = NULL, f->domain = NULL, f->fabric = NULL, f->info = NULL, f->sock = -1;
}

#endif
