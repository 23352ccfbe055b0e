/* SPDX-License-Identifier: MIT */
/* bandwidth: copy bandwidth of any xrt backend, in the manner of CUDA's
   bandwidthTest and nvbandwidth: host to device, device to host, both at
   once (bidirectional), device to device and host to host, from pageable
   (malloc) and pinned (xrt_malloc_host) host memory, with xrt_memcpy (sync)
   and back-to-back xrt_memcpy_async on one stream (async), over a sweep of
   sizes; where the backend has several devices, also every device-to-device
   pair. Prints a table, or CSV with --csv (`make plot` draws it); both start
   with the machine, date and versions. Each figure is the min, median and
   max of several timed batches of copies. */
#define XRT_IMPL
#include "xrt.h"

#include "bench/bench.h" /* clock and median, shared with the benchmarks */
#include "cli.h"

#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static const char usage[] =
    "Usage: bandwidth [options]\n"
    "Measures copy bandwidth on an xrt backend (like CUDA's bandwidthTest and\n"
    "nvbandwidth) over a sweep of sizes: min, min*factor, ... up to max.\n"
    "\n"
    "  --backend NAME    backend to measure (default: xrt's default backend)\n"
    "  --device N        device number (default 0)\n"
    "  --dir LIST        directions, comma-separated: h2d,d2h,bidir,d2d,h2h (default all);\n"
    "                    bidir is h2d and d2h at once on two streams (async mode only);\n"
    "                    d2d also measures every pair of devices when there are several,\n"
    "                    with peer copies (xrt_memcpy_peer, xrt_memcpy_peer_async)\n"
    "  --memory LIST     host memory: pageable,pinned (default both)\n"
    "  --mode LIST       sync (xrt_memcpy), async (xrt_memcpy_async) (default both)\n"
    "  --min SIZE        smallest copy (default 4K; suffixes K, M, G are powers of 1024)\n"
    "  --max SIZE        largest copy (default 64M); device pairs are measured at this size\n"
    "  --factor N        size step (default 2)\n"
    "  --time MS         time spent on each size, in milliseconds (default 10)\n"
    "  --stat NAME       the figure the table shows: min, median, max (default median)\n"
    "  --quick           a short run for tests: --min 4K --max 64K --factor 16 --time 1\n"
    "  --csv             print CSV (one row per measurement) instead of a table\n"
    "  -h, --help        print this help and exit\n"
    "\n"
    "GB/s are 10^9 bytes per second; a bidirectional figure counts the bytes of\n"
    "both directions. A progress line goes to stderr when stderr is a terminal and\n"
    "the sweep takes more than a second.\n"
    "Exit status: 0; 1 when xrt fails (the message says why); 2 for bad arguments.\n";

/* >> what is measured */
enum { PAGEABLE, PAGEABLE2, PINNED, PINNED2, DEV, DEV2, NBUFS };

typedef struct transfer {
    const char *dir, *memory, *label;
    xrt_memcpy_kind kind;
    int src, dst;         /* buffers */
    int back_src, back_dst; /* bidirectional: the copy the other way, on a second stream; -1: none */
} transfer;

static const transfer transfers[] = {
    {"h2d", "pageable", "H2D pageable", XRT_MEMCPY_HOST_TO_DEVICE, PAGEABLE, DEV, -1, -1},
    {"h2d", "pinned", "H2D pinned", XRT_MEMCPY_HOST_TO_DEVICE, PINNED, DEV, -1, -1},
    {"d2h", "pageable", "D2H pageable", XRT_MEMCPY_DEVICE_TO_HOST, DEV, PAGEABLE, -1, -1},
    {"d2h", "pinned", "D2H pinned", XRT_MEMCPY_DEVICE_TO_HOST, DEV, PINNED, -1, -1},
    {"bidir", "pageable", "Bidir pageable", XRT_MEMCPY_HOST_TO_DEVICE, PAGEABLE, DEV, DEV2, PAGEABLE2},
    {"bidir", "pinned", "Bidir pinned", XRT_MEMCPY_HOST_TO_DEVICE, PINNED, DEV, DEV2, PINNED2},
    {"d2d", "device", "D2D", XRT_MEMCPY_DEVICE_TO_DEVICE, DEV, DEV2, -1, -1},
    {"h2h", "pageable", "H2H pageable", XRT_MEMCPY_HOST_TO_HOST, PAGEABLE, PAGEABLE2, -1, -1},
    {"h2h", "pinned", "H2H pinned", XRT_MEMCPY_HOST_TO_HOST, PINNED, PINNED2, -1, -1},
};
#define NTRANSFERS (int)(sizeof transfers / sizeof transfers[0])

static const char *const dir_names[] = {"h2d", "d2h", "bidir", "d2d", "h2h"};
static const char *const memory_names[] = {"pageable", "pinned"};
static const char *const mode_names[] = {"sync", "async"};
static const char *const stat_names[] = {"min", "median", "max"};
static const char *const mode_titles[] = {"sync: xrt_memcpy", "async: xrt_memcpy_async, back to back on one stream"};
#define NDIRS 5
#define NMODES 2
#define MAX_SIZES 48
#define BATCHES 5 /* timed batches behind each figure */

typedef struct options {
    const char *backend;
    int device;
    unsigned dirs, memories, modes; /* bit i: dir_names[i], memory_names[i], mode_names[i] */
    size_t min, max;
    long factor;
    double ms_per_size;
    int stat; /* index in stat_names */
    int csv;
} options;

typedef struct figure {
    double gbps[3]; /* min, median, max */
    long iters;
} figure;

/* One measured job: a copy, and for bidirectional, one the other way on a second stream. */
typedef struct job {
    void *dst, *src, *dst2, *src2;
    xrt_memcpy_kind kind, kind2;
    xrt_stream stream, stream2;
    size_t n;
    int peer, dst_device, src_device; /* a peer copy (xrt_memcpy_peer) between these devices */
} job;

typedef struct run {
    options o;
    const char *backend;
    xrt_device_prop prop;
    char target[320], runtime[160], host[128], date[32];
    int devices;
    void *buf[NBUFS];
    xrt_stream stream, stream2;
    size_t sizes[MAX_SIZES];
    int nsizes;
    int selected[NTRANSFERS];
    figure fig[NMODES][NTRANSFERS][MAX_SIZES];
    figure *pair; /* device to device, at the largest size: [mode][source][destination] (pair_at) */
    int pairs;    /* several devices and d2d chosen */
    int points, done, show_progress;
} run;

static void fail_xrt(void)
{
    fprintf(stderr, "bandwidth: %s\n", xrt_get_last_error_string());
    exit(CLI_XRT_ERROR);
}

/* "4 KiB", "64 MiB", or bytes when not a whole number of KiB. */
static const char *format_size(char *buf, size_t n, size_t bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (u < 4 && bytes >= 1024 && bytes % 1024 == 0) bytes /= 1024, u++;
    snprintf(buf, n, "%zu %s", bytes, units[u]);
    return buf;
}

static int is_bidir(const transfer *x) { return x->back_src >= 0; }

/* Bidirectional copies need two streams at once: async mode only. */
static int measured_in(const run *r, int mode, int t) { return r->selected[t] && (mode || !is_bidir(&transfers[t])); }

static int has_bit(unsigned set, const char *const *names, int n, const char *name)
{
    int i;
    for (i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0) return (int)(set >> i) & 1;
    return 0;
}

/* Whether the chosen directions and modes name any measurement, whatever the
   backend (one without pinned memory may still leave nothing: setup says so). */
static int measures_anything(const options *o)
{
    int t, mode;
    for (t = 0; t < NTRANSFERS; t++)
        for (mode = 0; mode < NMODES; mode++)
            if ((o->modes >> mode & 1) && has_bit(o->dirs, dir_names, NDIRS, transfers[t].dir) &&
                (mode || !is_bidir(&transfers[t])))
                return 1;
    return 0;
}

/* >> arguments */
static void parse_option(cli *c, options *o)
{
    const char *v;
    if (cli_option(c, "--backend", &o->backend)) return;
    if (cli_option(c, "--device", &v)) o->device = (int)cli_long(c, "--device", v, 0, INT_MAX); /* setup checks the count */
    else if (cli_option(c, "--dir", &v)) o->dirs = cli_list(c, "--dir", v, dir_names, NDIRS);
    else if (cli_option(c, "--memory", &v)) o->memories = cli_list(c, "--memory", v, memory_names, 2);
    else if (cli_option(c, "--mode", &v)) o->modes = cli_list(c, "--mode", v, mode_names, NMODES);
    else if (cli_option(c, "--min", &v)) o->min = cli_size(c, "--min", v, 1ull << 40);
    else if (cli_option(c, "--max", &v)) o->max = cli_size(c, "--max", v, 1ull << 40);
    else if (cli_option(c, "--factor", &v)) o->factor = cli_long(c, "--factor", v, 2, 1024);
    else if (cli_option(c, "--time", &v)) o->ms_per_size = (double)cli_long(c, "--time", v, 1, 60000);
    else if (cli_option(c, "--stat", &v)) o->stat = cli_choice(c, "--stat", v, stat_names, 3);
    else if (cli_flag(c, "--csv")) o->csv = 1;
    else if (cli_flag(c, "--quick")) o->min = 4 << 10, o->max = 64 << 10, o->factor = 16, o->ms_per_size = 1;
    else cli_unknown(c);
}

static options parse_args(int argc, char **argv)
{
    options o = {NULL, 0, (1u << NDIRS) - 1, 0x3, 0x3, 4 << 10, 64 << 20, 2, 10, 1, 0};
    cli c = {"bandwidth", argc, 1, argv};
    for (; c.i < argc; c.i++) {
        cli_help(&c, usage);
        parse_option(&c, &o);
    }
    if (o.min > o.max) cli_fail(&c, "--min (%zu bytes) is larger than --max (%zu bytes)", o.min, o.max);
    if (!measures_anything(&o)) cli_fail(&c, "nothing to measure: --dir bidir is measured with --mode async only");
    if (o.backend) cli_backend(&c, "--backend", o.backend);
    return o;
}

/* >> where: the machine, date and versions that every output starts with */
typedef int (*version_fn)(int *);

/* The version a vendor runtime that xrt has loaded reports (RTLD_NOLOAD:
   nothing new is loaded), as "13.0" or "5.2" (cli_version); "" when not loaded. */
static void vendor_version(char *out, size_t n, const char *const *libs, const char *fn_name)
{
    int i, v = 0;
    out[0] = 0;
    for (i = 0; libs[i]; i++) {
        void *h = libs[i][0] ? dlopen(libs[i], RTLD_NOW | RTLD_NOLOAD) : NULL;
        version_fn fn;
        void *sym;
        if (!h) continue;
        sym = dlsym(h, fn_name);
        memcpy(&fn, &sym, sizeof fn);
        if (sym && fn(&v) == 0) cli_version(out, n, v);
        dlclose(h);
        if (out[0]) return;
    }
}

static void describe_runtime(run *r)
{
    const char *cuda[] = {getenv("XRT_CUDA_LIBRARY") ? getenv("XRT_CUDA_LIBRARY") : "", "libcudart.so.13",
                          "libcudart.so.12", "libcudart.so", NULL};
    const char *hip[] = {getenv("XRT_HIP_LIBRARY") ? getenv("XRT_HIP_LIBRARY") : "", "libamdhip64.so.6",
                         "libamdhip64.so.5", "libamdhip64.so", NULL};
    char rt[32] = "", drv[32] = "";
    struct utsname u;
    if (strcmp(r->backend, "cuda") == 0) {
        vendor_version(rt, sizeof rt, cuda, "cudaRuntimeGetVersion");
        vendor_version(drv, sizeof drv, cuda, "cudaDriverGetVersion");
        snprintf(r->runtime, sizeof r->runtime, "CUDA runtime %s, driver %s", rt[0] ? rt : "?", drv[0] ? drv : "?");
    } else if (strcmp(r->backend, "hip") == 0) {
        vendor_version(rt, sizeof rt, hip, "hipRuntimeGetVersion");
        snprintf(r->runtime, sizeof r->runtime, "HIP runtime %s", rt[0] ? rt : "?");
    } else {
        snprintf(r->runtime, sizeof r->runtime, "%s backend", r->backend);
    }
    if (uname(&u) == 0)
        snprintf(r->runtime + strlen(r->runtime), sizeof r->runtime - strlen(r->runtime), ", Linux %.64s, glibc %s",
                 u.release, gnu_get_libc_version());
}

static void describe(run *r)
{
    xrt_target t;
    time_t now = time(NULL);
    struct tm tm;
    if (gethostname(r->host, sizeof r->host) != 0) snprintf(r->host, sizeof r->host, "?");
    r->host[sizeof r->host - 1] = 0;
    strftime(r->date, sizeof r->date, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    if (xrt_get_target(&t) != XRT_SUCCESS || xrt_target_to_string(&t, r->target, sizeof r->target) != XRT_SUCCESS)
        snprintf(r->target, sizeof r->target, "%s", r->prop.arch);
    describe_runtime(r);
}

/* Lines of "prefix key: value"; the CSV's are comments ("# "). */
static void print_where(const run *r, const char *prefix)
{
    printf("%sbackend: %s\n", prefix, r->backend);
    printf("%sdevice: %d of %d, %s\n", prefix, r->o.device, r->devices, r->prop.name);
    printf("%starget: %s\n", prefix, r->target);
    printf("%shost: %s\n", prefix, r->host);
    printf("%sdate: %s\n", prefix, r->date);
    printf("%sversions: xrt %d.%d.%d; %s\n", prefix, XRT_VERSION_MAJOR, XRT_VERSION_MINOR, XRT_VERSION_PATCH,
           r->runtime);
}

/* >> set-up */
static void select_transfers(run *r)
{
    unsigned caps = 0;
    int t, skipped = 0;
    if (xrt_get_capabilities(&caps) != XRT_SUCCESS) fail_xrt();
    for (t = 0; t < NTRANSFERS; t++) {
        const transfer *x = &transfers[t];
        int pinned = strcmp(x->memory, "pinned") == 0;
        r->selected[t] = has_bit(r->o.dirs, dir_names, NDIRS, x->dir) &&
                         (strcmp(x->dir, "d2d") == 0 || has_bit(r->o.memories, memory_names, 2, x->memory));
        if (r->selected[t] && pinned && !(caps & XRT_CAP_PINNED_HOST)) r->selected[t] = 0, skipped = 1;
    }
    if (skipped) fprintf(stderr, "bandwidth: %s has no pinned host memory: pinned copies skipped\n", r->backend);
}

static void *alloc_buffer(int kind, size_t n)
{
    void *p = NULL;
    if (kind == PAGEABLE || kind == PAGEABLE2) {
        if (!(p = malloc(n))) {
            fprintf(stderr, "bandwidth: out of host memory (%zu bytes)\n", n);
            exit(CLI_XRT_ERROR);
        }
        memset(p, kind, n); /* first touch outside the timed copies */
    } else if (kind == PINNED || kind == PINNED2) {
        if (xrt_malloc_host(&p, n) != XRT_SUCCESS) fail_xrt();
        memset(p, kind, n);
    } else if (xrt_malloc(&p, n) != XRT_SUCCESS || xrt_memset(p, kind, n) != XRT_SUCCESS) {
        fail_xrt();
    }
    return p;
}

static void setup(run *r)
{
    size_t n;
    int t, mode, i;
    if (r->o.backend && xrt_set_backend(r->o.backend) != XRT_SUCCESS) fail_xrt();
    if (xrt_get_backend(&r->backend) != XRT_SUCCESS || xrt_get_device_count(&r->devices) != XRT_SUCCESS)
        fail_xrt();
    if (r->o.device >= r->devices) {
        fprintf(stderr, "bandwidth: --device %d: backend %s has %d device(s)\n", r->o.device, r->backend, r->devices);
        exit(CLI_XRT_ERROR);
    }
    if (xrt_set_device(r->o.device) != XRT_SUCCESS || xrt_get_device_properties(&r->prop, r->o.device) != XRT_SUCCESS ||
        xrt_stream_create(&r->stream) != XRT_SUCCESS)
        fail_xrt();
    describe(r);
    for (n = r->o.min; n <= r->o.max && r->nsizes < MAX_SIZES; n *= (size_t)r->o.factor) r->sizes[r->nsizes++] = n;
    select_transfers(r);
    for (t = 0; t < NTRANSFERS; t++) {
        const int use[4] = {transfers[t].src, transfers[t].dst, transfers[t].back_src, transfers[t].back_dst};
        if (!r->selected[t]) continue;
        for (i = 0; i < 4; i++)
            if (use[i] >= 0 && !r->buf[use[i]]) r->buf[use[i]] = alloc_buffer(use[i], r->sizes[r->nsizes - 1]);
        for (mode = 0; mode < NMODES; mode++)
            if ((r->o.modes >> mode & 1) && measured_in(r, mode, t)) r->points += r->nsizes;
    }
    r->pairs = has_bit(r->o.dirs, dir_names, NDIRS, "d2d") && r->devices > 1;
    if (r->pairs) {
        r->points += __builtin_popcount(r->o.modes) * r->devices * (r->devices - 1);
        if (!(r->pair = calloc((size_t)NMODES * (size_t)r->devices * (size_t)r->devices, sizeof *r->pair))) {
            fprintf(stderr, "bandwidth: out of host memory for %d devices' pairs\n", r->devices);
            exit(CLI_XRT_ERROR);
        }
    }
    if (r->points == 0) {
        fprintf(stderr, "bandwidth: nothing to measure on %s with these --dir, --memory and --mode\n", r->backend);
        exit(CLI_XRT_ERROR);
    }
}

static void teardown(run *r)
{
    int i;
    free(r->buf[PAGEABLE]);
    free(r->buf[PAGEABLE2]);
    for (i = PINNED; i <= PINNED2; i++) xrt_free_host(r->buf[i]);
    for (i = DEV; i <= DEV2; i++) xrt_free(r->buf[i]);
    xrt_stream_destroy(r->stream);
    free(r->pair);
}

/* The figure of the copy from device a to device b in `mode`. */
static figure *pair_at(const run *r, int mode, int a, int b)
{
    return &r->pair[((size_t)mode * (size_t)r->devices + (size_t)a) * (size_t)r->devices + (size_t)b];
}

/* >> measuring */
/* Nanoseconds for `iters` copies (pairs of copies, bidirectional). */
static double copy_batch(const job *j, int mode, long iters)
{
    double t0 = bench_now_ns();
    long i;
    for (i = 0; i < iters; i++) {
        xrt_status st;
        if (j->peer)
            st = mode ? xrt_memcpy_peer_async(j->dst, j->dst_device, j->src, j->src_device, j->n, j->stream)
                      : xrt_memcpy_peer(j->dst, j->dst_device, j->src, j->src_device, j->n);
        else
            st = mode ? xrt_memcpy_async(j->dst, j->src, j->n, j->kind, j->stream)
                      : xrt_memcpy(j->dst, j->src, j->n, j->kind);
        if (st == XRT_SUCCESS && j->dst2) st = xrt_memcpy_async(j->dst2, j->src2, j->n, j->kind2, j->stream2);
        if (st != XRT_SUCCESS) fail_xrt();
    }
    if (mode && xrt_stream_synchronize(j->stream) != XRT_SUCCESS) fail_xrt();
    /* xrt_memcpy_peer returns before its copy is done, as cudaMemcpyPeer; it is ordered on the current device's NULL stream */
    if (!mode && j->peer && xrt_stream_synchronize(NULL) != XRT_SUCCESS) fail_xrt();
    if (j->dst2 && xrt_stream_synchronize(j->stream2) != XRT_SUCCESS) fail_xrt();
    return bench_now_ns() - t0;
}

/* The faster of two batches: one that had to wake a parked stream worker
   (or met a busy neighbour) does not set the batch size. */
static double trial(const job *j, int mode, long iters)
{
    double a = copy_batch(j, mode, iters), b = copy_batch(j, mode, iters);
    return a < b ? a : b;
}

/* Copies per batch so that a batch takes its share of the time budget:
   grows a trial batch until it is long enough to time, then scales it. */
static long calibrate(const run *r, const job *j, int mode)
{
    const long most = 1000000;
    double target = r->o.ms_per_size * 1e6 / (BATCHES + 1), t;
    long iters = 1;
    while ((t = trial(j, mode, iters)) < target / 8 && iters < most) iters *= 4;
    iters = (long)((double)iters * target / t);
    return iters < 1 ? 1 : iters > most ? most : iters;
}

/* Min, median and max GB/s of BATCHES batches. */
static figure measure(const run *r, const job *j, int mode)
{
    double gbps[BATCHES], bytes = (double)j->n * (j->dst2 ? 2 : 1);
    figure f;
    int b;
    copy_batch(j, mode, 1); /* warm-up */
    f.iters = calibrate(r, j, mode);
    for (b = 0; b < BATCHES; b++) gbps[b] = bytes * (double)f.iters / copy_batch(j, mode, f.iters);
    f.gbps[1] = bench_median(gbps, BATCHES); /* sorts */
    f.gbps[0] = gbps[0];
    f.gbps[2] = gbps[BATCHES - 1];
    return f;
}

/* A progress line, on a terminal only and for a sweep that takes more than a second. */
static void progress(run *r, int mode, const char *what, size_t n)
{
    char size[32];
    r->done++;
    if (!r->show_progress) return;
    fprintf(stderr, "\rbandwidth: %3d/%d  %-5s %-14s %-8s ", r->done - 1, r->points, mode_names[mode], what,
            format_size(size, sizeof size, n));
}

static void sweep(run *r)
{
    int mode, t, s;
    for (mode = 0; mode < NMODES; mode++) {
        if (!(r->o.modes >> mode & 1)) continue;
        for (t = 0; t < NTRANSFERS; t++) {
            const transfer *x = &transfers[t];
            if (!measured_in(r, mode, t)) continue;
            /* the second stream lives only while it is used: an idle CPU
               stream's worker would compete for the cores */
            if (is_bidir(x) && xrt_stream_create(&r->stream2) != XRT_SUCCESS) fail_xrt();
            for (s = 0; s < r->nsizes; s++) {
                job j = {r->buf[x->dst], r->buf[x->src], NULL, NULL, x->kind, XRT_MEMCPY_DEVICE_TO_HOST,
                         r->stream, r->stream2, r->sizes[s], 0, 0, 0};
                if (is_bidir(x)) j.dst2 = r->buf[x->back_dst], j.src2 = r->buf[x->back_src];
                progress(r, mode, x->label, r->sizes[s]);
                r->fig[mode][t][s] = measure(r, &j, mode);
            }
            if (is_bidir(x) && xrt_stream_destroy(r->stream2) != XRT_SUCCESS) fail_xrt();
        }
    }
}

/* Every ordered pair of devices, at the largest size: memory of device a
   copied into memory of device b with xrt_memcpy_peer (cudaMemcpyPeer),
   issued from device a (as nvbandwidth's device_to_device_memcpy_read_ce
   reads from the peer). */
static void sweep_pairs(run *r)
{
    size_t n = r->sizes[r->nsizes - 1];
    char what[32];
    int mode, a, b;
    for (a = 0; a < r->devices && r->pairs; a++)
        for (b = 0; b < r->devices; b++) {
            void *src = NULL, *dst = NULL;
            job j;
            if (a == b) continue;
            if (xrt_set_device(b) != XRT_SUCCESS || xrt_malloc(&dst, n) != XRT_SUCCESS ||
                xrt_set_device(a) != XRT_SUCCESS || xrt_malloc(&src, n) != XRT_SUCCESS ||
                xrt_memset(src, 1, n) != XRT_SUCCESS)
                fail_xrt();
            memset(&j, 0, sizeof j);
            j.dst = dst, j.src = src, j.n = n, j.kind = XRT_MEMCPY_DEVICE_TO_DEVICE;
            j.peer = 1, j.dst_device = b, j.src_device = a;
            if (xrt_stream_create(&j.stream) != XRT_SUCCESS) fail_xrt();
            for (mode = 0; mode < NMODES; mode++) {
                if (!(r->o.modes >> mode & 1)) continue;
                snprintf(what, sizeof what, "D2D %d->%d", a, b);
                progress(r, mode, what, n);
                *pair_at(r, mode, a, b) = measure(r, &j, mode);
            }
            if (xrt_stream_destroy(j.stream) != XRT_SUCCESS || xrt_free(src) != XRT_SUCCESS ||
                xrt_free(dst) != XRT_SUCCESS)
                fail_xrt();
        }
    if (r->pairs && xrt_set_device(r->o.device) != XRT_SUCCESS) fail_xrt();
}

/* >> output */
static void print_pairs(const run *r, int mode)
{
    char size[32];
    int a, b;
    printf("\n%s, device to device (row: source, column: destination), %s\n%8s", mode_names[mode],
           format_size(size, sizeof size, r->sizes[r->nsizes - 1]), "");
    for (b = 0; b < r->devices; b++) printf(" %8d", b);
    printf("\n");
    for (a = 0; a < r->devices; a++) {
        printf("%8d", a);
        for (b = 0; b < r->devices; b++)
            if (a == b) printf(" %8s", "-");
            else printf(" %8.2f", pair_at(r, mode, a, b)->gbps[r->o.stat]);
        printf("\n");
    }
}

static void print_table(const run *r)
{
    char size[32];
    int mode, t, s;
    print_where(r, "");
    printf("GB/s, %s of %d batches\n", stat_names[r->o.stat], BATCHES);
    for (mode = 0; mode < NMODES; mode++) {
        if (!(r->o.modes >> mode & 1)) continue;
        printf("\n%s\n%10s", mode_titles[mode], "size");
        for (t = 0; t < NTRANSFERS; t++)
            if (measured_in(r, mode, t)) printf(" %14s", transfers[t].label);
        printf("\n");
        for (s = 0; s < r->nsizes; s++) {
            printf("%10s", format_size(size, sizeof size, r->sizes[s]));
            for (t = 0; t < NTRANSFERS; t++)
                if (measured_in(r, mode, t)) printf(" %14.2f", r->fig[mode][t][s].gbps[r->o.stat]);
            printf("\n");
        }
        if (r->pairs) print_pairs(r, mode);
    }
}

static void print_csv_row(const run *r, int device, int peer, const char *dir, const char *memory, int mode,
                          size_t n, const figure *f)
{
    printf("%s,%d,%d,%s,%s,%s,%zu,%.4f,%.4f,%.4f,%ld\n", r->backend, device, peer, dir, memory, mode_names[mode], n,
           f->gbps[0], f->gbps[1], f->gbps[2], f->iters);
}

static void print_csv(const run *r)
{
    int mode, t, s, a, b;
    print_where(r, "# ");
    printf("backend,device,peer,direction,memory,mode,bytes,gbps_min,gbps_median,gbps_max,iterations\n");
    for (mode = 0; mode < NMODES; mode++) {
        if (!(r->o.modes >> mode & 1)) continue;
        for (t = 0; t < NTRANSFERS; t++)
            for (s = 0; s < r->nsizes && measured_in(r, mode, t); s++)
                print_csv_row(r, r->o.device, r->o.device, transfers[t].dir, transfers[t].memory, mode, r->sizes[s],
                              &r->fig[mode][t][s]);
        for (a = 0; a < r->devices && r->pairs; a++)
            for (b = 0; b < r->devices; b++)
                if (a != b)
                    print_csv_row(r, a, b, "d2d", "device", mode, r->sizes[r->nsizes - 1], pair_at(r, mode, a, b));
    }
}

int main(int argc, char **argv)
{
    static run r; /* large: not on the stack */
    r.o = parse_args(argc, argv);
    setup(&r);
    r.show_progress = isatty(STDERR_FILENO) && r.points * r.o.ms_per_size > 1000;
    sweep(&r);
    sweep_pairs(&r);
    if (r.show_progress) fprintf(stderr, "\r%70s\r", "");
    if (r.o.csv) print_csv(&r);
    else print_table(&r);
    teardown(&r);
    xrt_shutdown();
    return 0;
}
