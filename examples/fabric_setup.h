/* SPDX-License-Identifier: MIT */
/* fabric_setup.h - the libfabric plumbing of the examples, written once: an
   RDM endpoint with its completion queue and address vector, and the
   out-of-band TCP connection every libfabric application needs to swap
   endpoint names and keys. Every wait is bounded by fab.timeout_s. Errors are
   printed to stderr as "PROG: ROLE: what" and returned as -1.

     fab f = {"prog", "role", 30, -1};
     fab_open(&f, provider, "127.0.0.1", FI_RMA | FI_MSG);
     listener: fab_listen(&f, "127.0.0.1", 0)   peer: fab_connect(&f, host, port)
     fab_swap_names(&f);   ... f.ep, f.cq, f.peer ...   fab_close(&f);

   Build with <rdma/fabric.h>, link -lfabric. */
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
        if (fab_now() > end) return fab_fail(f, "no %s from the peer within %d s", what, f->timeout_s);
        if (poll(&pf, 1, 100) <= 0) continue;
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
static inline int fab_getinfo(fab *f, const char *provider, const char *address, uint64_t caps)
{
    const char *env = getenv("FI_PROVIDER");
    struct fi_info *h = fi_allocinfo();
    int rc;
    if (!h) return fab_fail(f, "fi_allocinfo: out of memory");
    h->caps = caps;
    h->ep_attr->type = FI_EP_RDM;
    h->addr_format = FI_SOCKADDR_IN;
    h->tx_attr->msg_order = FI_ORDER_SAS;
    h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    h->domain_attr->threading = FI_THREAD_DOMAIN;
    if (provider) h->fabric_attr->prov_name = strdup(provider);
    rc = fi_getinfo(FI_VERSION(1, 17), address, NULL, FI_SOURCE, h, &f->info);
    fi_freeinfo(h);
    if (rc == 0) return 0;
    f->info = NULL;
    return fab_fail(f, "fi_getinfo: no provider (%s%s) for RDM endpoints with these capabilities on %s: %s (%d)",
                    provider ? provider : env ? "FI_PROVIDER=" : "any", provider ? "" : env ? env : "", address,
                    fi_strerror(-rc), rc);
}

static inline int fab_open(fab *f, const char *provider, const char *address, uint64_t caps)
{
    struct fi_cq_attr cq = {.format = FI_CQ_FORMAT_MSG, .wait_obj = FI_WAIT_NONE, .size = 64};
    struct fi_av_attr av = {.type = FI_AV_TABLE, .count = 1};
    int rc;
    /* One peer. ofi_rxm sizes its completion queue by FI_UNIVERSE_SIZE: the
       default is more than soft-RoCE allows (see fabric_rma.c). */
    setenv("FI_UNIVERSE_SIZE", "2", 0);
    if (fab_getinfo(f, provider, address, caps)) return -1;
    if ((rc = fi_fabric(f->info->fabric_attr, &f->fabric, NULL))) return f->fabric = NULL, fab_fi_fail(f, "fi_fabric", rc);
    if ((rc = fi_domain(f->fabric, f->info, &f->domain, NULL))) return f->domain = NULL, fab_fi_fail(f, "fi_domain", rc);
    if ((rc = fi_cq_open(f->domain, &cq, &f->cq, NULL))) return f->cq = NULL, fab_fi_fail(f, "fi_cq_open", rc);
    if ((rc = fi_av_open(f->domain, &av, &f->av, NULL))) return f->av = NULL, fab_fi_fail(f, "fi_av_open", rc);
    if ((rc = fi_endpoint(f->domain, f->info, &f->ep, NULL))) return f->ep = NULL, fab_fi_fail(f, "fi_endpoint", rc);
    if ((rc = fi_ep_bind(f->ep, &f->av->fid, 0))) return fab_fi_fail(f, "fi_ep_bind (av)", rc);
    if ((rc = fi_ep_bind(f->ep, &f->cq->fid, FI_TRANSMIT | FI_RECV))) return fab_fi_fail(f, "fi_ep_bind (cq)", rc);
    if ((rc = fi_enable(f->ep))) return fab_fi_fail(f, "fi_enable", rc);
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
