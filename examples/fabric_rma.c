/* SPDX-License-Identifier: MIT */
/* fabric_rma - xrt buffers in a distributed engine: one-sided RMA with
   libfabric between two processes, the buffers allocated by xrt.

     target:     fabric_rma [options]                 (prints the port it listens on)
     initiator:  fabric_rma [options] HOST PORT

   Each side allocates its buffer with xrt (any backend, device or pinned
   memory) and registers it with xrt_rdma_register on a context of its
   libfabric domain (xrt_rdma_open_fabric): xrt tells fi_mr_regattr what the
   memory is from its pointer registry (host memory and the cpu backend's
   device memory as FI_HMEM_SYSTEM, CUDA device or managed memory as
   FI_HMEM_CUDA with its device, HIP's as FI_HMEM_ROCR), chooses the keys
   where the provider does not, and closes the region when xrt_free frees
   the memory. The two sides swap
   endpoint addresses, keys and buffer addresses over a TCP connection (the
   out-of-band channel every libfabric application needs), then:
     1. the initiator fi_writes a pattern into the target's buffer; the target
        checks every byte;
     2. the target fills its buffer with another pattern; the initiator
        fi_reads it and checks every byte;
     3. the target closes the registration, frees the buffer, allocates again
        (at the same address, when the allocator gives it back), registers the
        new buffer and sends the new key; a write with the new key lands;
     4. a write with the old key, to the old address, must not reach the new
        buffer: the target checks that its bytes are unchanged, and the
        initiator reports whether the provider refused the key.
   Every wait is bounded (--timeout). Exit status: 0 when every check
   passed, 1 on a failure (the message says which), 2 on a usage error.
   Build: XRT_ENABLE_RDMA and XRT_ENABLE_FABRIC (<infiniband/verbs.h> and
   <rdma/fabric.h>), link -lfabric. Both sides must have the same byte order. */
#define XRT_IMPL
#define XRT_ENABLE_RDMA
#define XRT_ENABLE_FABRIC
#include "xrt.h"
#include "xrt_rdma.h"

#include "fabric_setup.h" /* with tools/cli.h, the tools' argument convention */

#include <rdma/fi_rma.h>

typedef struct options {
    fab_args net;
    const char *backend, *memory;
    size_t size;
} options;

/* One xrt buffer and its registration. */
typedef struct buffer {
    void *ptr;
    xrt_pointer_attributes attr;
    enum fi_hmem_iface iface; /* what xrt tells libfabric (printed) */
    xrt_rdma_reg reg;         /* reg.desc, and what the peer uses: reg.key, reg.addr */
} buffer;

/* The out-of-band messages, one fixed-size record each. */
enum { MSG_HELLO = 1, MSG_WRITTEN, MSG_CHECKED, MSG_FILLED, MSG_READ_OK, MSG_NEW_KEY, MSG_STALE_DONE };
static const char *const msg_names[] = {"", "hello", "written", "checked", "filled", "read-ok", "new-key", "stale-done"};
typedef struct msg {
    uint32_t type, ok;
    uint64_t addr, key, size;
} msg;

typedef struct session {
    fab f; /* the endpoint and the out-of-band connection */
    options opt;
    buffer buf;
    unsigned char *host;         /* staging for filling and checking */
    uint64_t peer_addr, peer_key; /* the target's buffer, as the initiator addresses it */
    xrt_rdma_ctx rdma;            /* registrations with the domain, through xrt's cache */
} session;

static int xrt_fail(const session *s) { return fab_fail(&s->f, "%s", xrt_get_last_error_string()); }

/* >> options */
static const char usage[] =
    "Usage: fabric_rma [options]             be the target: print the port, wait for the initiator\n"
    "       fabric_rma [options] HOST PORT   be the initiator of the target at HOST PORT\n"
    "One-sided RMA (fi_write, fi_read) with libfabric between two processes, the buffers\n"
    "allocated by xrt and registered with fi_mr_regattr; every byte is checked.\n"
    "  --backend NAME    xrt backend that allocates the buffers (default: xrt's choice)\n"
    "  --memory KIND     device (xrt_malloc, default) or pinned (xrt_malloc_host)\n"
    "  --size BYTES      buffer size (default 1048576)\n"
    FAB_ARGS_USAGE("target")
    "  -h, --help        print this help and exit\n";

static void parse(int argc, char **argv, options *o)
{
    cli c = {"fabric_rma", argc, 1, argv};
    const char *v;
    memset(o, 0, sizeof *o);
    o->net = fab_args_default();
    o->memory = "device";
    o->size = 1 << 20;
    for (; c.i < argc; c.i++) {
        cli_help(&c, usage);
        if (cli_option(&c, "--backend", &v)) o->backend = v;
        else if (cli_option(&c, "--memory", &v)) {
            if (strcmp(v, "device") && strcmp(v, "pinned")) cli_fail(&c, "--memory: '%s' is neither device nor pinned", v);
            o->memory = v;
        } else if (cli_option(&c, "--size", &v)) o->size = (size_t)cli_long(&c, "--size", v, 1, 1L << 30);
        else if (!fab_arg(&c, &o->net)) cli_unknown(&c);
    }
    fab_args_done(&c, &o->net, "the initiator");
}

/* >> the out-of-band channel (fabric_setup.h). Its waits drive the
   fabric's progress too: with manual progress, a target that only waited on
   the socket would never complete the initiator's RMA. */
static void progress(fab *f)
{
    struct fi_cq_msg_entry e;
    struct fi_cq_err_entry err;
    if (!f->cq || fi_cq_read(f->cq, &e, 1) != -FI_EAVAIL) return;
    memset(&err, 0, sizeof err);
    if (fi_cq_readerr(f->cq, &err, 0) > 0)
        fprintf(stderr, "%s: %s: completion error while waiting: %s\n", f->prog, f->role, fi_strerror(err.err));
}

static int oob_send(session *s, msg *m) { return fab_oob_send(&s->f, m, sizeof *m, msg_names[m->type]); }

static int oob_recv(session *s, uint32_t type, msg *m)
{
    if (fab_oob_recv(&s->f, m, sizeof *m, msg_names[type])) return -1;
    if (m->type != type) return fab_fail(&s->f, "expected '%s' from the peer, got message type %u", msg_names[type], m->type);
    return 0;
}

/* >> memory: what xrt says the buffer is decides what libfabric is told */
static const char *iface_name(enum fi_hmem_iface i)
{
    return i == FI_HMEM_SYSTEM ? "FI_HMEM_SYSTEM" : i == FI_HMEM_CUDA ? "FI_HMEM_CUDA" : i == FI_HMEM_ROCR ? "FI_HMEM_ROCR" : "?";
}

static const char *type_name(xrt_memory_type t)
{
    static const char *const names[] = {"unknown", "host", "pinned host", "device", "managed"};
    return (unsigned)t < sizeof names / sizeof *names ? names[t] : "?";
}

/* What xrt_rdma_register tells libfabric: host memory of any kind, and the
   cpu backend's device memory (host memory too), is FI_HMEM_SYSTEM; GPU
   device and managed memory is its vendor's interface. */
static int memory_iface(session *s, buffer *b)
{
    const xrt_pointer_attributes *a = &b->attr;
    const char *be = a->backend ? a->backend : "none";
    if (a->type != XRT_MEMORY_DEVICE && a->type != XRT_MEMORY_MANAGED) b->iface = FI_HMEM_SYSTEM;
    else if (!strcmp(be, "cpu")) b->iface = FI_HMEM_SYSTEM;
    else if (!strcmp(be, "cuda")) b->iface = FI_HMEM_CUDA;
    else if (!strcmp(be, "hip")) b->iface = FI_HMEM_ROCR;
    else return fab_fail(&s->f, "%s memory of backend %s: libfabric has no memory interface for it", type_name(a->type), be);
    return 0;
}

static int alloc_buffer(session *s, buffer *b)
{
    int pinned = !strcmp(s->opt.memory, "pinned");
    xrt_status st = pinned ? xrt_malloc_host(&b->ptr, s->opt.size) : xrt_malloc(&b->ptr, s->opt.size);
    if (st) return xrt_fail(s);
    if (xrt_pointer_get_attributes(&b->attr, b->ptr)) return xrt_fail(s);
    return 0;
}

static int free_buffer(session *s, buffer *b)
{
    xrt_status st = XRT_SUCCESS;
    if (b->ptr) st = !strcmp(s->opt.memory, "pinned") ? xrt_free_host(b->ptr) : xrt_free(b->ptr);
    b->ptr = NULL;
    return st ? xrt_fail(s) : 0;
}

static const char *hmem_build_hint(enum fi_hmem_iface i)
{
    return i == FI_HMEM_CUDA ? "build libfabric with CUDA support (./configure --with-cuda=/usr/local/cuda)"
                             : "build libfabric with ROCm support (./configure --with-rocr=/opt/rocm)";
}

/* Where the provider does not choose the keys (tcp), xrt does: a new one for
   every region, so no key names two buffers. */
static int register_buffer(session *s, buffer *b)
{
    xrt_status st;
    if (!s->rdma && xrt_rdma_open_fabric(&s->rdma, s->f.domain, s->f.info->domain_attr->mr_mode)) return xrt_fail(s);
    st = xrt_rdma_register(s->rdma, b->ptr, s->opt.size,
                           XRT_RDMA_LOCAL_WRITE | XRT_RDMA_REMOTE_WRITE | XRT_RDMA_REMOTE_READ, &b->reg);
    if (st && b->iface != FI_HMEM_SYSTEM && (st == XRT_ERROR_UNSUPPORTED || st == XRT_ERROR_INVALID_VALUE))
        return fab_fail(&s->f, "this libfabric has no %s hmem: %s; %s", b->iface == FI_HMEM_CUDA ? "CUDA" : "ROCr",
                    xrt_get_last_error_string(), hmem_build_hint(b->iface));
    return st ? xrt_fail(s) : 0;
}

static void close_mr(buffer *b)
{
    if (b->reg.opaque) xrt_rdma_release(&b->reg);
}

/* >> fabric (fabric_setup.h): an RDM endpoint with RMA, FI_HMEM for GPU
   memory. Where no provider offers FI_HMEM but one works with host memory,
   what is missing is hmem, and that is what the user is told. */
static int open_fabric(session *s)
{
    const fab_args *n = &s->opt.net;
    int hmem = s->buf.iface != FI_HMEM_SYSTEM;
    char prov[128];
    if (hmem && fab_query(&s->f, n->provider, n->address, FI_RMA | FI_HMEM) == -FI_ENODATA &&
        fab_query(&s->f, n->provider, n->address, FI_RMA) == 0)
        return fab_fail(&s->f, "this libfabric has no %s hmem: no provider (%s, on %s) offers FI_HMEM for RDM endpoints "
                        "with RMA; %s", s->buf.iface == FI_HMEM_CUDA ? "CUDA" : "ROCr",
                        fab_providers(n->provider, prov, sizeof prov), n->address, hmem_build_hint(s->buf.iface));
    return fab_open(&s->f, n->provider, n->address, FI_RMA | (hmem ? FI_HMEM : 0));
}

/* Waits for the one outstanding operation; its error, if any, goes to *why. */
static int wait_completion(session *s, const char *what, char *why, size_t why_len)
{
    double end = fab_now() + s->opt.net.timeout_s;
    for (unsigned spin = 0;; spin++) {
        struct fi_cq_msg_entry e;
        ssize_t rc = fi_cq_read(s->f.cq, &e, 1);
        if (rc > 0) return 0;
        if (rc == -FI_EAVAIL) {
            struct fi_cq_err_entry err;
            char prov[128];
            memset(&err, 0, sizeof err);
            if (fi_cq_readerr(s->f.cq, &err, 0) <= 0) snprintf(why, why_len, "fi_cq_readerr failed");
            else
                snprintf(why, why_len, "%s (%d; provider: %s)", fi_strerror(err.err), err.err,
                         fi_cq_strerror(s->f.cq, err.prov_errno, err.err_data, prov, sizeof prov));
            return 1;
        }
        if (rc != -FI_EAGAIN) return fab_fi_fail(&s->f, "fi_cq_read", rc);
        if ((spin & 1023) == 0 && fab_now() > end)
            return fab_fail(&s->f, "%s: no completion within %d s", what, s->opt.net.timeout_s);
    }
}

/* fi_write, completed only once the data is in the target's memory
   (FI_DELIVERY_COMPLETE): then a key the target refuses is an error here,
   where with the default (FI_TRANSMIT_COMPLETE) the write may complete
   before the target has looked at the key. */
static ssize_t write_delivered(session *s, uint64_t raddr, uint64_t key)
{
    struct iovec iov = {s->buf.ptr, s->opt.size};
    struct fi_rma_iov rma = {raddr, s->opt.size, key};
    struct fi_msg_rma m = {&iov, &s->buf.reg.desc, 1, s->f.peer, &rma, 1, NULL, 0};
    ssize_t rc = fi_writemsg(s->f.ep, &m, FI_COMPLETION | FI_DELIVERY_COMPLETE);
    if (rc == -FI_EBADFLAGS || rc == -FI_EOPNOTSUPP) /* the provider cannot: the target's check still holds */
        rc = fi_write(s->f.ep, s->buf.ptr, s->opt.size, s->buf.reg.desc, s->f.peer, raddr, key, NULL);
    return rc;
}

/* Posts one fi_write or fi_read of the whole buffer and waits for it.
   0: done; 1: failed, *why says how; -1: could not post or wait. */
static int rma(session *s, int write, uint64_t raddr, uint64_t key, char *why, size_t why_len)
{
    const char *call = write ? "fi_write" : "fi_read";
    double end = fab_now() + s->opt.net.timeout_s;
    for (;;) {
        ssize_t rc = write ? write_delivered(s, raddr, key)
                           : fi_read(s->f.ep, s->buf.ptr, s->opt.size, s->buf.reg.desc, s->f.peer, raddr, key, NULL);
        if (rc == 0) break;
        if (rc != -FI_EAGAIN) return fab_fi_fail(&s->f, call, rc);
        progress(&s->f);
        if (fab_now() > end) return fab_fail(&s->f, "%s: the provider stayed busy (FI_EAGAIN) for %d s", call, s->opt.net.timeout_s);
    }
    return wait_completion(s, call, why, why_len);
}

/* >> patterns: byte i of pattern `seed`, never the same for two seeds */
static unsigned char pattern_byte(unsigned seed, size_t i) { return (unsigned char)(i * 31u + seed * 97u + (i >> 8)); }

static int fill(session *s, unsigned seed)
{
    for (size_t i = 0; i < s->opt.size; i++) s->host[i] = pattern_byte(seed, i);
    return xrt_memcpy(s->buf.ptr, s->host, s->opt.size, XRT_MEMCPY_DEFAULT) ? xrt_fail(s) : 0;
}

/* The index of the first byte that differs from pattern `seed`, or size. */
static int mismatch(session *s, unsigned seed, size_t *at)
{
    if (xrt_memcpy(s->host, s->buf.ptr, s->opt.size, XRT_MEMCPY_DEFAULT)) return xrt_fail(s);
    for (*at = 0; *at < s->opt.size && s->host[*at] == pattern_byte(seed, *at); ++*at) {}
    return 0;
}

/* Target: the initiator's write completed on its side; polls (driving
   progress) until every byte is there, within the timeout. */
static int expect_pattern(session *s, unsigned seed, const char *what)
{
    double end = fab_now() + s->opt.net.timeout_s;
    size_t at;
    for (;;) {
        if (mismatch(s, seed, &at)) return -1;
        if (at == s->opt.size) return 0;
        if (fab_now() > end)
            return fab_fail(&s->f, "%s: byte %zu is 0x%02x, expected 0x%02x (after %d s)", what, at, s->host[at], pattern_byte(seed, at),
                        s->opt.net.timeout_s);
        progress(&s->f);
        nanosleep(&(struct timespec){0, 1000 * 1000}, NULL);
    }
}

/* >> the two roles */
static int hello(session *s)
{
    msg m, peer;
    memset(&m, 0, sizeof m);
    m.type = MSG_HELLO;
    m.addr = s->buf.reg.addr;
    m.key = s->buf.reg.key;
    m.size = s->opt.size;
    if (fab_swap_names(&s->f) || oob_send(s, &m) || oob_recv(s, MSG_HELLO, &peer)) return -1;
    if (peer.size != s->opt.size)
        return fab_fail(&s->f, "the peer's buffer has %llu bytes, this one %zu: use the same --size",
                        (unsigned long long)peer.size, s->opt.size);
    s->peer_addr = peer.addr;
    s->peer_key = peer.key;
    return 0;
}

static int send_simple(session *s, uint32_t type, uint32_t ok)
{
    msg m;
    memset(&m, 0, sizeof m);
    m.type = type;
    m.ok = ok;
    return oob_send(s, &m);
}

/* Frees the buffer and allocates it again, trying for the same address (the
   case where a stale key is dangerous): allocations at other addresses are
   held, up to four, then freed. */
static int reallocate(session *s)
{
    buffer *b = &s->buf;
    void *old = b->ptr, *held[4];
    int nheld = 0, rc = 0;
    close_mr(b);
    if (free_buffer(s, b)) return -1;
    for (;;) {
        b->ptr = NULL;
        if (alloc_buffer(s, b)) { rc = -1; break; }
        if (b->ptr == old || nheld == 4) break;
        held[nheld++] = b->ptr;
    }
    while (nheld) {
        void *p = b->ptr;
        b->ptr = held[--nheld];
        rc |= free_buffer(s, b);
        b->ptr = p;
    }
    if (rc || memory_iface(s, b) || register_buffer(s, b)) return -1;
    fab_say(&s->f, "freed and allocated again: %s address %p", b->ptr == old ? "the same" : "another", b->ptr);
    return 0;
}

static int target(session *s)
{
    buffer *b = &s->buf;
    uint64_t old_key = b->reg.key;
    size_t at;
    msg m;
    /* a set of device memory returns before it is done, as cudaMemset: done before the NIC writes */
    if (xrt_memset(b->ptr, 0, s->opt.size) || xrt_stream_synchronize(NULL)) return xrt_fail(s);
    /* 1. the initiator writes */
    if (hello(s) || oob_recv(s, MSG_WRITTEN, &m) || expect_pattern(s, 1, "fi_write from the initiator")) return -1;
    fab_say(&s->f, "fi_write of %zu bytes from the initiator: every byte verified", s->opt.size);
    /* 2. the initiator reads */
    if (send_simple(s, MSG_CHECKED, 1) || fill(s, 2) || send_simple(s, MSG_FILLED, 1) || oob_recv(s, MSG_READ_OK, &m)) return -1;
    /* 3. a new buffer, a new registration, the new key to the initiator */
    if (reallocate(s) || fill(s, 3)) return -1;
    fab_say(&s->f, "old key 0x%llx, new key 0x%llx", (unsigned long long)old_key, (unsigned long long)b->reg.key);
    if (b->reg.key == old_key) return fab_fail(&s->f, "the provider gave the new registration the old key: a stale key would reach the new buffer");
    memset(&m, 0, sizeof m);
    m.type = MSG_NEW_KEY;
    m.addr = b->reg.addr;
    m.key = b->reg.key;
    if (oob_send(s, &m) || oob_recv(s, MSG_WRITTEN, &m) || expect_pattern(s, 4, "fi_write with the new key")) return -1;
    fab_say(&s->f, "fi_write with the new key: every byte verified");
    /* 4. the initiator writes with the old key: the buffer must not change.
       Drive progress a while first, so that a write in flight would land. */
    if (send_simple(s, MSG_CHECKED, 1) || oob_recv(s, MSG_STALE_DONE, &m)) return -1;
    for (double end = fab_now() + (m.ok ? 0.1 : 1.0); fab_now() < end; nanosleep(&(struct timespec){0, 1000 * 1000}, NULL))
        progress(&s->f);
    if (mismatch(s, 4, &at)) return -1;
    if (at != s->opt.size) return fab_fail(&s->f, "the old key reached the new buffer: byte %zu changed to 0x%02x", at, s->host[at]);
    fab_say(&s->f, "the old key did not reach the new buffer: every byte unchanged");
    return send_simple(s, MSG_CHECKED, 1);
}

static int initiator(session *s)
{
    uint64_t old_addr, old_key;
    char why[256];
    size_t at;
    msg m;
    int rc;
    if (hello(s)) return -1;
    old_addr = s->peer_addr;
    old_key = s->peer_key;
    /* 1. write */
    if (fill(s, 1)) return -1;
    if ((rc = rma(s, 1, old_addr, old_key, why, sizeof why))) return rc > 0 ? fab_fail(&s->f, "fi_write: %s", why) : -1;
    if (send_simple(s, MSG_WRITTEN, 1) || oob_recv(s, MSG_CHECKED, &m)) return -1;
    fab_say(&s->f, "fi_write of %zu bytes: the target verified every byte", s->opt.size);
    /* 2. read */
    if (fill(s, 0) || oob_recv(s, MSG_FILLED, &m)) return -1;
    if ((rc = rma(s, 0, old_addr, old_key, why, sizeof why))) return rc > 0 ? fab_fail(&s->f, "fi_read: %s", why) : -1;
    if (mismatch(s, 2, &at)) return -1;
    if (at != s->opt.size)
        return fab_fail(&s->f, "fi_read: byte %zu is 0x%02x, expected 0x%02x", at, s->host[at], pattern_byte(2, at));
    fab_say(&s->f, "fi_read of %zu bytes: every byte verified", s->opt.size);
    /* 3. the target re-registers; write with the new key */
    if (send_simple(s, MSG_READ_OK, 1) || oob_recv(s, MSG_NEW_KEY, &m)) return -1;
    fab_say(&s->f, "the target's new buffer: address 0x%llx (was 0x%llx), key 0x%llx (was 0x%llx)", (unsigned long long)m.addr,
        (unsigned long long)old_addr, (unsigned long long)m.key, (unsigned long long)old_key);
    if (fill(s, 4)) return -1;
    if ((rc = rma(s, 1, m.addr, m.key, why, sizeof why))) return rc > 0 ? fab_fail(&s->f, "fi_write with the new key: %s", why) : -1;
    if (send_simple(s, MSG_WRITTEN, 1) || oob_recv(s, MSG_CHECKED, &m)) return -1;
    fab_say(&s->f, "fi_write with the new key: the target verified every byte");
    /* 4. write with the old key */
    if (fill(s, 5)) return -1;
    rc = rma(s, 1, old_addr, old_key, why, sizeof why);
    if (rc < 0) return -1;
    if (rc > 0) fab_say(&s->f, "fi_write with the old key: refused: %s", why);
    else fab_say(&s->f, "fi_write with the old key: the provider reported no error");
    if (send_simple(s, MSG_STALE_DONE, (uint32_t)rc) || oob_recv(s, MSG_CHECKED, &m)) return -1;
    fab_say(&s->f, "the target's new buffer is unchanged by the old key");
    return 0;
}

static int run(session *s)
{
    buffer *b = &s->buf;
    const fab_args *n = &s->opt.net;
    if (s->opt.backend && xrt_set_backend(s->opt.backend)) return xrt_fail(s);
    if (alloc_buffer(s, b) || memory_iface(s, b)) return -1;
    fab_say(&s->f, "%zu bytes of %s memory from backend %s: registering it as %s", s->opt.size, type_name(b->attr.type),
        b->attr.backend ? b->attr.backend : "none", iface_name(b->iface));
    s->host = malloc(s->opt.size);
    if (!s->host) return fab_fail(&s->f, "out of host memory for %zu bytes", s->opt.size);
    if (open_fabric(s) || register_buffer(s, b)) return -1;
    if (n->peer ? fab_connect(&s->f, n->peer, n->port) : fab_listen(&s->f, n->address, n->port)) return -1;
    return n->peer ? initiator(s) : target(s);
}

int main(int argc, char **argv)
{
    session s;
    int rc;
    memset(&s, 0, sizeof s);
    parse(argc, argv, &s.opt);
    s.f = (fab){.prog = "fabric_rma", .role = s.opt.net.peer ? "initiator" : "target", .timeout_s = s.opt.net.timeout_s,
                .sock = -1, .progress = progress};
    if (!getenv("XRT_LOG")) xrt_set_log_level(XRT_LOG_NONE); /* its errors are printed here, once */
    rc = run(&s);
    close_mr(&s.buf);
    if (s.rdma) xrt_rdma_close(s.rdma); /* its cached regions first: they belong to the domain */
    fab_close(&s.f);
    if (s.buf.ptr && free_buffer(&s, &s.buf)) rc = -1;
    free(s.host);
    xrt_shutdown();
    if (rc == 0) fab_say(&s.f, "all checks passed");
    return rc ? 1 : 0;
}
