/* SPDX-License-Identifier: MIT */
/* a2f_fabric - the attention-to-FFN transfer of a2f.c between two processes
   or hosts over libfabric, beside the same transfer on libfabric alone.

     receiver:  a2f_fabric [options]              (prints the port it listens on)
     sender:    a2f_fabric [options] HOST PORT

   Each side has SLOTS chunk buffers of --max bytes (64 MiB) for each path:
     xrt        allocated by xrt_malloc (device memory of the chosen backend)
                and registered by xrt_rdma_register on xrt_rdma_open_fabric's
                context of the domain, so through xrt's registration cache;
     libfabric  plain malloc memory registered by fi_mr_reg, no xrt.
   For chunk k the sender waits until the receiver has checked chunk
   k - SLOTS, fills its slot k % SLOTS with a value of its own (xrt_memset on
   the device buffer; memset on the plain one), fi_writes it into the
   receiver's slot (completed at delivery), then sends k as a message: the
   message says the chunk is ready. The receiver copies the chunk out
   (xrt_memcpy; memcpy), checks every byte, and sends k back as a credit.
   Both paths run the same loop; only the fill, the check's copy and the
   registration differ. Per chunk size from 4 KiB to 64 MiB (--max) the sender prints
   each path's bandwidth (the best of --rounds, the paths alternating which goes first), their
   time ratio (xrt / libfabric alone) and a plain memcpy of the same size.
   Every wait is bounded (--timeout). Exit status: 0 when every chunk
   arrived whole, 1 on a failure (the message says which), 2 on a usage
   error. Build: XRT_ENABLE_RDMA and XRT_ENABLE_FABRIC, link -lfabric. */
#define XRT_IMPL
#define XRT_ENABLE_RDMA
#define XRT_ENABLE_FABRIC
#include "xrt.h"
#include "xrt_rdma.h"

#include "fabric_setup.h" /* with tools/cli.h, the tools' argument convention */

#include <rdma/fi_rma.h>
#include <sched.h>

#define SLOTS 2
#define NRX 4    /* receives kept posted: more than the SLOTS messages in flight */
#define RING 64  /* received values not yet taken */
#define MIN_CHUNK ((size_t)4 << 10)
#define MAX_CHUNK ((size_t)64 << 20)

enum { PATH_XRT, PATH_RAW, PATHS };
static const char *const path_names[] = {"xrt", "raw", "both"};

typedef struct options {
    fab_args net;
    const char *backend;
    int rounds, paths; /* paths: bit PATH_XRT, bit PATH_RAW */
    size_t bytes;                       /* sent per chunk size and path */
    size_t max;                         /* the largest chunk, the slots' size */
} options;

typedef struct slot {
    void *ptr, *desc;
    uint64_t addr, key;
    xrt_rdma_reg reg;   /* the xrt path's */
    struct fid_mr *mr;  /* the raw path's */
} slot;

/* What the sender tells the receiver, and the receiver the sender. */
typedef struct plan { uint64_t bytes, max; uint32_t rounds, paths; } plan;
typedef struct keys { uint64_t addr[PATHS][SLOTS], key[PATHS][SLOTS]; } keys;

typedef struct xfer {
    options opt;
    fab f;
    xrt_rdma_ctx rdma;
    slot slot[PATHS][SLOTS];
    keys peer;
    unsigned char *host;       /* the receiver's copy of a chunk, to check it */
    uint64_t msg[NRX + 1];     /* NRX receive buffers, then the one to send */
    struct fid_mr *msg_mr;
    void *msg_desc;
    uint64_t got[RING];        /* values received, in order */
    unsigned head, tail;
    int tx_pending, plain_write;
    int flush; /* the NIC's writes into device memory need a flush before the device reads them */
} xfer;

/* >> options */
static const char usage[] =
    "Usage: a2f_fabric [options]             be the receiver: print the port, wait for the sender\n"
    "       a2f_fabric [options] HOST PORT   be the sender to the receiver at HOST PORT\n"
    "The attention-to-FFN transfer over libfabric: chunks of 4 KiB to 64 MiB written with fi_write\n"
    "into the receiver's buffers, a message per chunk, every byte checked; through xrt (xrt_malloc,\n"
    "xrt_rdma_register) and on libfabric alone (malloc, fi_mr_reg), bandwidth printed beside memcpy.\n"
    "  --backend NAME    xrt backend of the xrt path's buffers (default: xrt's choice)\n"
    "  --path WHICH      xrt, raw (libfabric alone) or both (default); the sender's choice counts\n"
    "  --bytes SIZE      bytes sent per chunk size and path, at least 8 chunks (default 64M)\n"
    "  --max SIZE        the largest chunk: sizes 4K, 16K, ... up to it (default 64M; the\n"
    "                    receiver's must be at least the sender's)\n"
    "  --rounds N        runs of each path per size, alternating which goes first; the best is\n"
    "                    printed (default 4: each path first as often)\n"
    FAB_ARGS_USAGE("receiver")
    "  -h, --help        print this help and exit\n";

static void parse(int argc, char **argv, options *o)
{
    cli c = {"a2f_fabric", argc, 1, argv};
    const char *v;
    memset(o, 0, sizeof *o);
    o->net = fab_args_default();
    o->bytes = MAX_CHUNK;
    o->max = MAX_CHUNK;
    o->rounds = 4;
    o->paths = 3;
    for (; c.i < argc; c.i++) {
        cli_help(&c, usage);
        if (cli_option(&c, "--backend", &v)) o->backend = v;
        else if (cli_option(&c, "--path", &v)) o->paths = cli_choice(&c, "--path", v, path_names, 3) + 1;
        else if (cli_option(&c, "--bytes", &v)) o->bytes = cli_size(&c, "--bytes", v, 1ULL << 40);
        else if (cli_option(&c, "--max", &v)) o->max = cli_size(&c, "--max", v, MAX_CHUNK);
        else if (cli_option(&c, "--rounds", &v)) o->rounds = (int)cli_long(&c, "--rounds", v, 1, 100);
        else if (!fab_arg(&c, &o->net)) cli_unknown(&c);
    }
    if (o->max < MIN_CHUNK) cli_fail(&c, "--max: %zu bytes is less than the smallest chunk (4K)", o->max);
    fab_args_done(&c, &o->net, "the sender");
}

static int xrt_fail(const xfer *x, const char *call)
{
    return fab_fail(&x->f, "%s: %s", call, xrt_get_last_error_string());
}

/* >> completions: received values into the ring, sends and writes counted */
/* A receive is reposted as soon as its message is taken; at most SLOTS
   messages are in flight, so a provider that refuses one (even FI_EAGAIN)
   has broken, and that is reported. */
static int post_recv(xfer *x, uint64_t *buf)
{
    ssize_t rc = fi_recv(x->f.ep, buf, sizeof *buf, x->msg_desc, FI_ADDR_UNSPEC, buf);
    return rc ? fab_fi_fail(&x->f, "fi_recv", rc) : 0;
}

static int cq_error(xfer *x)
{
    struct fi_cq_err_entry err;
    char prov[128];
    memset(&err, 0, sizeof err);
    if (fi_cq_readerr(x->f.cq, &err, 0) <= 0) return fab_fail(&x->f, "a completion failed; fi_cq_readerr failed too");
    return fab_fail(&x->f, "a %s failed: %s (%d; provider: %s)", err.flags & FI_RECV ? "receive" : "send or write",
                    fi_strerror(err.err), err.err, fi_cq_strerror(x->f.cq, err.prov_errno, err.err_data, prov, sizeof prov));
}

/* Nothing done yields the CPU: with manual progress (tcp), the peer's
   progress may need this core, and on a machine with fewer free cores than
   spinning processes a spin would wait out the scheduler's time slice. */
static int poll_cq(xfer *x)
{
    struct fi_cq_msg_entry e[8];
    ssize_t n = fi_cq_read(x->f.cq, e, 8);
    if (n == -FI_EAGAIN) return sched_yield(), 0;
    if (n == -FI_EAVAIL) return cq_error(x);
    if (n < 0) return fab_fi_fail(&x->f, "fi_cq_read", n);
    for (ssize_t i = 0; i < n; i++) {
        uint64_t *m = (uint64_t *)e[i].op_context;
        if (!(e[i].flags & FI_RECV)) {
            x->tx_pending--;
            continue;
        }
        if (x->head - x->tail == RING) return fab_fail(&x->f, "more than %d messages unread: the peer broke the protocol", RING);
        x->got[x->head++ % RING] = *m;
        if (post_recv(x, m)) return -1;
    }
    return 0;
}

static int tx_done(const xfer *x) { return x->tx_pending == 0; }
static int msg_ready(const xfer *x) { return x->head != x->tail; }

static int wait_for(xfer *x, int (*ready)(const xfer *), const char *what)
{
    double end = fab_now() + x->opt.net.timeout_s;
    for (unsigned spin = 0; !ready(x); spin++) {
        if (poll_cq(x)) return -1;
        /* every 64 polls: an empty poll yields, which may take a time slice */
        if ((spin & 63) == 0 && fab_now() > end) return fab_fail(&x->f, "no %s within %d s", what, x->opt.net.timeout_s);
    }
    return 0;
}

/* The next message, which must be `expect`: chunk numbers arrive in order. */
static int next_msg(xfer *x, uint64_t expect, const char *what)
{
    uint64_t v;
    if (wait_for(x, msg_ready, what)) return -1;
    v = x->got[x->tail++ % RING];
    if (v != expect)
        return fab_fail(&x->f, "expected %s %llu, got %llu", what, (unsigned long long)expect, (unsigned long long)v);
    return 0;
}

/* One operation to post: a message (msg) or a chunk's write (path, slot, size). */
typedef struct op { int write, path, slot; size_t size; } op;

/* Completed once the bytes are in the receiver's memory (FI_DELIVERY_COMPLETE),
   so the message sent after it cannot overtake them. A provider without it
   gets a plain fi_write: then the message relies on the provider's order. */
static ssize_t post_write(xfer *x, const op *o)
{
    slot *s = &x->slot[o->path][o->slot];
    struct iovec iov = {s->ptr, o->size};
    struct fi_rma_iov rma = {x->peer.addr[o->path][o->slot], o->size, x->peer.key[o->path][o->slot]};
    struct fi_msg_rma m = {&iov, &s->desc, 1, x->f.peer, &rma, 1, NULL, 0};
    ssize_t rc = x->plain_write ? -FI_EOPNOTSUPP : fi_writemsg(x->f.ep, &m, FI_COMPLETION | FI_DELIVERY_COMPLETE);
    if (rc == -FI_EBADFLAGS || rc == -FI_EOPNOTSUPP) {
        x->plain_write = 1;
        rc = fi_write(x->f.ep, s->ptr, o->size, s->desc, x->f.peer, rma.addr, rma.key, NULL);
    }
    return rc;
}

static ssize_t post(xfer *x, const op *o)
{
    if (o->write) return post_write(x, o);
    return fi_send(x->f.ep, &x->msg[NRX], sizeof x->msg[NRX], x->msg_desc, x->f.peer, NULL);
}

/* Posts an operation, retrying while the provider is busy, and waits for it. */
static int post_and_wait(xfer *x, const op *o)
{
    const char *call = o->write ? "fi_write" : "fi_send";
    double end = fab_now() + x->opt.net.timeout_s;
    ssize_t rc;
    while ((rc = post(x, o)) == -FI_EAGAIN) {
        if (poll_cq(x)) return -1;
        if (fab_now() > end) return fab_fail(&x->f, "%s: the provider stayed busy for %d s", call, x->opt.net.timeout_s);
    }
    if (rc) return fab_fi_fail(&x->f, call, rc);
    x->tx_pending++;
    return wait_for(x, tx_done, o->write ? "completion of fi_write" : "completion of fi_send");
}

static int send_value(xfer *x, uint64_t v)
{
    const op o = {0, 0, 0, 0};
    x->msg[NRX] = v;
    return post_and_wait(x, &o);
}

static int write_chunk(xfer *x, int path, int i, size_t size)
{
    const op o = {1, path, i, size};
    return post_and_wait(x, &o);
}

/* >> memory: both paths' slots, registered; the message buffers */
/* Whether the NIC's writes into the current device's memory must be
   flushed before the device's own work (a copy out) reads them: GPUDirect
   RDMA writes that the device orders for no one, and a flush it offers. */
static int writes_need_flush(void)
{
    int device = 0, ordering = 0, options = 0;
    if (xrt_get_device(&device) || xrt_device_get_attribute(&ordering, XRT_DEVATTR_GPU_DIRECT_RDMA_WRITES_ORDERING, device) ||
        xrt_device_get_attribute(&options, XRT_DEVATTR_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS, device)) {
        xrt_get_last_error(); /* a backend without the attributes (HIP): nothing to flush with */
        return 0;
    }
    return ordering < XRT_GPU_DIRECT_RDMA_WRITES_ORDERING_OWNER && (options & XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST);
}

static int open_xrt_slot(xfer *x, slot *s)
{
    if (xrt_malloc(&s->ptr, x->opt.max)) return xrt_fail(x, "xrt_malloc");
    if (xrt_memset(s->ptr, 0, x->opt.max) || xrt_stream_synchronize(NULL)) /* page faults now, not in the timing */
        return xrt_fail(x, "xrt_memset");
    if (!x->rdma && xrt_rdma_open_fabric(&x->rdma, x->f.domain, x->f.info->domain_attr->mr_mode))
        return xrt_fail(x, "xrt_rdma_open_fabric");
    if (xrt_rdma_register(x->rdma, s->ptr, x->opt.max, XRT_RDMA_LOCAL_WRITE | XRT_RDMA_REMOTE_WRITE | XRT_RDMA_REMOTE_READ,
                          &s->reg))
        return xrt_fail(x, "xrt_rdma_register");
    s->desc = s->reg.desc, s->addr = s->reg.addr, s->key = s->reg.key;
    x->flush = writes_need_flush();
    return 0;
}

/* Keys chosen here where the provider does not choose them: far from the
   ones xrt chooses (1, 2, ...) in the same domain. */
static int raw_reg(xfer *x, void *p, size_t n, uint64_t key, struct fid_mr **mr)
{
    const uint64_t access = FI_SEND | FI_RECV | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
    int rc = fi_mr_reg(x->f.domain, p, n, access, 0, key, 0, mr, NULL);
    if (rc) *mr = NULL;
    return rc ? fab_fi_fail(&x->f, "fi_mr_reg", rc) : 0;
}

static int open_raw_slot(xfer *x, slot *s, uint64_t key)
{
    if (posix_memalign(&s->ptr, 4096, x->opt.max)) return s->ptr = NULL, fab_fail(&x->f, "out of memory for a chunk");
    memset(s->ptr, 0, x->opt.max);
    if (raw_reg(x, s->ptr, x->opt.max, key, &s->mr)) return -1;
    s->desc = fi_mr_desc(s->mr);
    s->key = fi_mr_key(s->mr);
    s->addr = x->f.info->domain_attr->mr_mode & FI_MR_VIRT_ADDR ? (uint64_t)(uintptr_t)s->ptr : 0;
    return 0;
}

static int open_memory(xfer *x)
{
    if (raw_reg(x, x->msg, sizeof x->msg, 0x2000, &x->msg_mr)) return -1;
    x->msg_desc = fi_mr_desc(x->msg_mr);
    for (int i = 0; i < NRX; i++)
        if (post_recv(x, &x->msg[i])) return -1;
    for (int i = 0; i < SLOTS; i++)
        if (open_xrt_slot(x, &x->slot[PATH_XRT][i]) || open_raw_slot(x, &x->slot[PATH_RAW][i], 0x1000 + (uint64_t)i))
            return -1;
    x->host = (unsigned char *)malloc(x->opt.max);
    if (!x->host) return fab_fail(&x->f, "out of memory for a chunk");
    xrt_pointer_attributes a;
    if (xrt_pointer_get_attributes(&a, x->slot[PATH_XRT][0].ptr)) return xrt_fail(x, "xrt_pointer_get_attributes");
    fab_say(&x->f, "xrt path: %d x %zu KiB from xrt_malloc (backend %s), xrt_rdma_register; raw path: %d x %zu KiB "
            "from malloc, fi_mr_reg", SLOTS, x->opt.max >> 10, a.backend ? a.backend : "none", SLOTS, x->opt.max >> 10);
    return 0;
}

/* Regions before the domain: the endpoint's messages may still use them. */
static void close_memory(xfer *x)
{
    for (int i = 0; i < SLOTS; i++) {
        slot *s = &x->slot[PATH_XRT][i], *r = &x->slot[PATH_RAW][i];
        if (s->reg.opaque) xrt_rdma_release(&s->reg);
        if (r->mr) fi_close(&r->mr->fid);
        free(r->ptr);
    }
    if (x->rdma) xrt_rdma_close(x->rdma);
    if (x->msg_mr) fi_close(&x->msg_mr->fid);
    x->rdma = NULL, x->msg_mr = NULL;
}

static void free_memory(xfer *x)
{
    for (int i = 0; i < SLOTS; i++)
        if (x->slot[PATH_XRT][i].ptr) xrt_free(x->slot[PATH_XRT][i].ptr);
    free(x->host);
}

/* >> the transfer loop, the same for both paths */
static size_t chunks_of(const plan *p, size_t size) { return p->bytes / size < 8 ? 8 : p->bytes / size; }

/* The byte of chunk k: consecutive chunks of one slot differ. */
static unsigned char value_of(uint64_t k) { return (unsigned char)(k * 37 + 11); }

static int fill(xfer *x, int path, int i, uint64_t k, size_t size)
{
    void *p = x->slot[path][i].ptr;
    if (path == PATH_RAW) return memset(p, value_of(k), size), 0;
    /* a set of device memory returns before it is done, as cudaMemset: done before the NIC reads it */
    return xrt_memset(p, value_of(k), size) || xrt_stream_synchronize(NULL) ? xrt_fail(x, "xrt_memset") : 0;
}

static int check(xfer *x, int path, int i, uint64_t k, size_t size)
{
    const unsigned char v = value_of(k), *h = x->host;
    unsigned char bad = 0;
    size_t at;
    if (path == PATH_RAW) memcpy(x->host, x->slot[path][i].ptr, size);
    else if (x->flush && xrt_device_flush_gpu_direct_rdma_writes(XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_DEVICE,
                                                                  XRT_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER))
        return xrt_fail(x, "xrt_device_flush_gpu_direct_rdma_writes");
    else if (xrt_memcpy(x->host, x->slot[path][i].ptr, size, XRT_MEMCPY_DEFAULT)) return xrt_fail(x, "xrt_memcpy");
    for (at = 0; at < size; at++) bad |= (unsigned char)(h[at] ^ v);
    if (!bad) return 0;
    for (at = 0; h[at] == v; at++) {}
    return fab_fail(&x->f, "%s path: chunk %llu of %zu bytes: byte %zu is 0x%02x, expected 0x%02x", path_names[path],
                    (unsigned long long)k, size, at, h[at], v);
}

static int send_chunks(xfer *x, int path, size_t size, size_t n, uint64_t first)
{
    for (size_t j = 0; j < n; j++) {
        uint64_t k = first + j;
        int i = (int)(j % SLOTS);
        if (j >= SLOTS && next_msg(x, k - SLOTS, "credit for chunk")) return -1;
        if (fill(x, path, i, k, size) || write_chunk(x, path, i, size) || send_value(x, k)) return -1;
    }
    for (size_t j = n > SLOTS ? n - SLOTS : 0; j < n; j++)
        if (next_msg(x, first + j, "credit for chunk")) return -1;
    return 0;
}

static int receive_chunks(xfer *x, int path, size_t size, size_t n, uint64_t first)
{
    for (size_t j = 0; j < n; j++) {
        uint64_t k = first + j;
        if (next_msg(x, k, "ready message for chunk") || check(x, path, (int)(j % SLOTS), k, size) || send_value(x, k))
            return -1;
    }
    return 0;
}

static double memcpy_time(xfer *x, size_t size, size_t n)
{
    void *a = x->slot[PATH_RAW][0].ptr, *b = x->slot[PATH_RAW][1].ptr;
    double t = fab_now();
    for (size_t j = 0; j < n; j++) {
        memcpy(j & 1 ? a : b, j & 1 ? b : a, size);
        __asm__ __volatile__("" : : "r"(a), "r"(b) : "memory");
    }
    return fab_now() - t;
}

static void print_gbs(double bytes, double s)
{
    if (s > 0) printf(" %9.3f GB/s", bytes / s / 1e9);
    else printf(" %14s", "-");
}

static void print_row(size_t size, size_t n, const double best[PATHS], double copy)
{
    double bytes = (double)size * (double)n;
    printf("%8zu KiB", size >> 10);
    print_gbs(bytes, best[PATH_XRT]);
    print_gbs(bytes, best[PATH_RAW]);
    if (best[PATH_XRT] > 0 && best[PATH_RAW] > 0) printf(" %9.3fx", best[PATH_XRT] / best[PATH_RAW]);
    else printf(" %10s", "-");
    print_gbs(bytes, copy);
    putchar('\n');
    fflush(stdout);
}

/* SLOTS + 1 untimed chunks of 4 KiB per path first: the provider connects
   on the first message (ofi_rxm), which the first timed path must not pay. */
static int warm_up(xfer *x, const plan *p, int sender, uint64_t *k)
{
    for (int path = 0; path < PATHS; path++) {
        if (!(p->paths & (1u << path))) continue;
        if (sender ? send_chunks(x, path, MIN_CHUNK, SLOTS + 1, *k) : receive_chunks(x, path, MIN_CHUNK, SLOTS + 1, *k))
            return -1;
        *k += SLOTS + 1;
    }
    return 0;
}

/* Every size, every round, each path of the plan (alternating which goes
   first); the sender times from the first fill to the last credit. */
static int transfer(xfer *x, const plan *p, int sender)
{
    uint64_t k = 0;
    if (warm_up(x, p, sender, &k)) return -1;
    if (sender) printf("    chunk   xrt+libfabric  libfabric alone  time ratio         memcpy\n");
    for (size_t size = MIN_CHUNK; size <= p->max; size *= 4) {
        size_t n = chunks_of(p, size);
        double best[PATHS] = {0, 0}, copy = 0;
        for (uint32_t r = 0; r < p->rounds; r++) {
            for (int o = 0; o < PATHS; o++) {
                int path = (int)((unsigned)o ^ (r & 1));
                double t = fab_now();
                if (!(p->paths & (1u << path))) continue;
                if (sender ? send_chunks(x, path, size, n, k) : receive_chunks(x, path, size, n, k)) return -1;
                t = fab_now() - t;
                k += n;
                if (best[path] == 0 || t < best[path]) best[path] = t;
            }
            double c = sender ? memcpy_time(x, size, n) : 0;
            if (copy == 0 || c < copy) copy = c;
        }
        if (sender) print_row(size, n, best, copy);
    }
    return 0;
}

/* The largest chunk size of the plan, and a size as "64 MiB" or "256 KiB". */
static size_t largest(const plan *p)
{
    size_t size = MIN_CHUNK;
    while (size * 4 <= p->max) size *= 4;
    return size;
}

static const char *size_name(size_t size)
{
    static char b[32];
    snprintf(b, sizeof b, size >= (1 << 20) ? "%zu MiB" : "%zu KiB", size >= (1 << 20) ? size >> 20 : size >> 10);
    return b;
}

/* >> the two roles */
static int hello(xfer *x, plan *p)
{
    keys mine;
    for (int path = 0; path < PATHS; path++)
        for (int i = 0; i < SLOTS; i++) mine.addr[path][i] = x->slot[path][i].addr, mine.key[path][i] = x->slot[path][i].key;
    if (fab_swap_names(&x->f)) return -1;
    if (x->opt.net.peer) return fab_oob_send(&x->f, p, sizeof *p, "plan") || fab_oob_recv(&x->f, &x->peer, sizeof x->peer, "keys");
    return fab_oob_recv(&x->f, p, sizeof *p, "plan") || fab_oob_send(&x->f, &mine, sizeof mine, "keys");
}

/* A last word over the out-of-band channel, so the receiver's endpoint stays
   open until the sender has its last credit. */
static int goodbye(xfer *x)
{
    char b = 1;
    return x->opt.net.peer ? fab_oob_send(&x->f, &b, 1, "goodbye") : fab_oob_recv(&x->f, &b, 1, "goodbye");
}

static int run(xfer *x)
{
    plan p = {x->opt.bytes, x->opt.max, (uint32_t)x->opt.rounds, (uint32_t)x->opt.paths};
    int sender = x->opt.net.peer != NULL;
    if (x->opt.backend && xrt_set_backend(x->opt.backend)) return xrt_fail(x, "xrt_set_backend");
    if (fab_open(&x->f, x->opt.net.provider, x->opt.net.address, FI_RMA | FI_MSG) || open_memory(x)) return -1;
    if (sender ? fab_connect(&x->f, x->opt.net.peer, x->opt.net.port) : fab_listen(&x->f, x->opt.net.address, x->opt.net.port)) return -1;
    if (hello(x, &p)) return -1;
    if (!sender && (p.rounds < 1 || p.rounds > 100 || p.paths < 1 || p.paths > 3 || p.bytes < 1))
        return fab_fail(&x->f, "the sender's plan makes no sense (rounds %u, paths %u): another program?", p.rounds, p.paths);
    if (!sender && (p.max > x->opt.max || p.max < MIN_CHUNK))
        return fab_fail(&x->f, "the sender's largest chunk is %llu bytes, the slots here %zu: give both the same --max",
                        (unsigned long long)p.max, x->opt.max);
    if (transfer(x, &p, sender) || goodbye(x)) return -1;
    if (sender) fab_say(&x->f, "every chunk written; the receiver checked each");
    else fab_say(&x->f, "%llu chunks checked: every chunk arrived whole and in order, 4 KiB to %s",
                 (unsigned long long)x->tail, size_name(largest(&p)));
    return 0;
}

int main(int argc, char **argv)
{
    static xfer x;
    int rc;
    parse(argc, argv, &x.opt);
    x.f = (fab){.prog = "a2f_fabric", .role = x.opt.net.peer ? "sender" : "receiver", .timeout_s = x.opt.net.timeout_s, .sock = -1};
    if (!getenv("XRT_LOG")) xrt_set_log_level(XRT_LOG_NONE); /* its errors are printed here, once */
    rc = run(&x);
    close_memory(&x);
    fab_close(&x.f);
    free_memory(&x);
    xrt_shutdown();
    return rc ? 1 : 0;
}
