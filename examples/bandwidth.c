/* SPDX-License-Identifier: MIT */
/* bandwidth: copy bandwidth of any xrt backend, in the manner of CUDA's
   bandwidthTest: host to device, device to host, device to device and host to
   host, from pageable (malloc) and pinned (xrt_malloc_host) host memory, with
   xrt_memcpy (sync) and back-to-back xrt_memcpy_async on one stream (async),
   over a sweep of sizes. Prints a table, or CSV with --csv (`make plot` draws
   it). Each figure is the median of several timed batches of copies. */
#define XRT_IMPL
#include "xrt.h"

#include "bench/bench.h" /* clock and median, shared with the benchmarks */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "Usage: bandwidth [options]\n"
    "Measures copy bandwidth on an xrt backend (like CUDA's bandwidthTest) over a\n"
    "sweep of sizes: min, min*factor, ... up to max.\n"
    "\n"
    "  --backend NAME    backend to measure (default: xrt's default backend)\n"
    "  --device N        device number (default 0)\n"
    "  --dir LIST        directions, comma-separated: h2d,d2h,d2d,h2h (default all)\n"
    "  --memory LIST     host memory: pageable,pinned (default both)\n"
    "  --mode LIST       sync (xrt_memcpy), async (xrt_memcpy_async) (default both)\n"
    "  --min SIZE        smallest copy (default 4K; suffixes K, M, G are powers of 1024)\n"
    "  --max SIZE        largest copy (default 64M)\n"
    "  --factor N        size step (default 2)\n"
    "  --time MS         time spent on each size, in milliseconds (default 10)\n"
    "  --quick           a short run for tests: --min 4K --max 64K --factor 16 --time 1\n"
    "  --csv             print CSV (one row per measurement) instead of a table\n"
    "  -h, --help        print this help and exit\n"
    "\n"
    "GB/s are 10^9 bytes per second. A progress line goes to stderr when stderr is\n"
    "a terminal and the sweep takes more than a second.\n"
    "Exit status: 0; 1 when xrt fails (the message says why); 2 for bad arguments.\n";

/* >> what is measured */
enum { PAGEABLE, PAGEABLE2, PINNED, PINNED2, DEV, DEV2, NBUFS };

typedef struct transfer {
    const char *dir, *memory, *label;
    xrt_memcpy_kind kind;
    int src, dst; /* buffers */
} transfer;

static const transfer transfers[] = {
    {"h2d", "pageable", "H2D pageable", XRT_MEMCPY_HOST_TO_DEVICE, PAGEABLE, DEV},
    {"h2d", "pinned", "H2D pinned", XRT_MEMCPY_HOST_TO_DEVICE, PINNED, DEV},
    {"d2h", "pageable", "D2H pageable", XRT_MEMCPY_DEVICE_TO_HOST, DEV, PAGEABLE},
    {"d2h", "pinned", "D2H pinned", XRT_MEMCPY_DEVICE_TO_HOST, DEV, PINNED},
    {"d2d", "device", "D2D", XRT_MEMCPY_DEVICE_TO_DEVICE, DEV, DEV2},
    {"h2h", "pageable", "H2H pageable", XRT_MEMCPY_HOST_TO_HOST, PAGEABLE, PAGEABLE2},
    {"h2h", "pinned", "H2H pinned", XRT_MEMCPY_HOST_TO_HOST, PINNED, PINNED2},
};
#define NTRANSFERS (int)(sizeof transfers / sizeof transfers[0])

static const char *const dir_names[] = {"h2d", "d2h", "d2d", "h2h"};
static const char *const memory_names[] = {"pageable", "pinned"};
static const char *const mode_names[] = {"sync", "async"};
static const char *const mode_titles[] = {"sync: xrt_memcpy", "async: xrt_memcpy_async, back to back on one stream"};
#define NMODES 2
#define MAX_SIZES 48
#define BATCHES 5 /* timed batches behind each median */

typedef struct options {
    const char *backend;
    int device;
    unsigned dirs, memories, modes; /* bit i: dir_names[i], memory_names[i], mode_names[i] */
    size_t min, max;
    long factor;
    double ms_per_size;
    int csv;
} options;

typedef struct run {
    options o;
    const char *backend;
    xrt_device_prop prop;
    void *buf[NBUFS];
    xrt_stream stream;
    size_t sizes[MAX_SIZES];
    int nsizes;
    int selected[NTRANSFERS];
    double gbps[NMODES][NTRANSFERS][MAX_SIZES];
    long iters[NMODES][NTRANSFERS][MAX_SIZES];
    int points, done, show_progress;
} run;

static void fail_xrt(void)
{
    fprintf(stderr, "bandwidth: %s\n", xrt_get_last_error_string());
    exit(1);
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

/* >> arguments */
static size_t parse_size(const cli *c, const char *name, const char *s)
{
    static const char suffixes[] = "kmgt";
    char *end;
    const char *p;
    unsigned long long v;
    int shift = 0;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (!errno && end != s && *s != '-' && *end && (p = strchr(suffixes, *end | 0x20)) != NULL) {
        shift = 10 * (int)(p - suffixes + 1);
        end++;
        if ((*end | 0x20) == 'i' && (end[1] | 0x20) == 'b') end += 2;
    }
    if (errno || end == s || *s == '-' || *end || v == 0 || v > (1ull << 40) >> shift)
        cli_fail(c, "%s: '%s' is not a size from 1 byte to 1T (e.g. 4096, 64K, 1M)", name, s);
    return (size_t)(v << shift);
}

/* A comma-separated list of names as a bit set. */
static unsigned parse_list(const cli *c, const char *name, const char *s, const char *const *names, int n)
{
    unsigned set = 0;
    while (*s) {
        size_t len = strcspn(s, ",");
        int i;
        for (i = 0; i < n && (strlen(names[i]) != len || strncmp(s, names[i], len) != 0); i++) continue;
        if (i == n) cli_fail(c, "%s: unknown item '%.*s' in '%s'", name, (int)len, s, c->argv[c->i]);
        set |= 1u << i;
        s += len + (s[len] == ',');
    }
    return set;
}

static void parse_option(cli *c, options *o)
{
    const char *v;
    if (cli_option(c, "--backend", &o->backend)) return;
    if (cli_option(c, "--device", &v)) o->device = (int)cli_long(c, "--device", v, 0, 1 << 20);
    else if (cli_option(c, "--dir", &v)) o->dirs = parse_list(c, "--dir", v, dir_names, 4);
    else if (cli_option(c, "--memory", &v)) o->memories = parse_list(c, "--memory", v, memory_names, 2);
    else if (cli_option(c, "--mode", &v)) o->modes = parse_list(c, "--mode", v, mode_names, NMODES);
    else if (cli_option(c, "--min", &v)) o->min = parse_size(c, "--min", v);
    else if (cli_option(c, "--max", &v)) o->max = parse_size(c, "--max", v);
    else if (cli_option(c, "--factor", &v)) o->factor = cli_long(c, "--factor", v, 2, 1024);
    else if (cli_option(c, "--time", &v)) o->ms_per_size = (double)cli_long(c, "--time", v, 1, 60000);
    else if (cli_flag(c, "--csv")) o->csv = 1;
    else if (cli_flag(c, "--quick")) o->min = 4 << 10, o->max = 64 << 10, o->factor = 16, o->ms_per_size = 1;
    else cli_unknown(c);
}

static options parse_args(int argc, char **argv)
{
    options o = {NULL, 0, 0xf, 0x3, 0x3, 4 << 10, 64 << 20, 2, 10, 0};
    cli c = {"bandwidth", argc, 1, argv};
    for (; c.i < argc; c.i++) {
        if (cli_flag(&c, "--help") || cli_flag(&c, "-h")) {
            fputs(usage, stdout);
            exit(0);
        }
        parse_option(&c, &o);
    }
    if (o.min > o.max) cli_fail(&c, "--min (%zu bytes) is larger than --max (%zu bytes)", o.min, o.max);
    return o;
}

/* >> set-up */
static int has_bit(unsigned set, const char *const *names, int n, const char *name)
{
    int i;
    for (i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0) return (int)(set >> i) & 1;
    return 0;
}

static void select_transfers(run *r)
{
    unsigned caps = 0;
    int t, skipped = 0;
    if (xrt_get_capabilities(&caps) != XRT_SUCCESS) fail_xrt();
    for (t = 0; t < NTRANSFERS; t++) {
        const transfer *x = &transfers[t];
        int pinned = strcmp(x->memory, "pinned") == 0;
        r->selected[t] = has_bit(r->o.dirs, dir_names, 4, x->dir) &&
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
            exit(1);
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
    int t;
    if (r->o.backend && xrt_set_backend(r->o.backend) != XRT_SUCCESS) fail_xrt();
    if (xrt_get_backend(&r->backend) != XRT_SUCCESS || xrt_set_device(r->o.device) != XRT_SUCCESS ||
        xrt_get_device_properties(&r->prop, r->o.device) != XRT_SUCCESS || xrt_stream_create(&r->stream) != XRT_SUCCESS)
        fail_xrt();
    for (n = r->o.min; n <= r->o.max && r->nsizes < MAX_SIZES; n *= (size_t)r->o.factor) r->sizes[r->nsizes++] = n;
    select_transfers(r);
    for (t = 0; t < NTRANSFERS; t++) {
        const transfer *x = &transfers[t];
        if (!r->selected[t]) continue;
        if (!r->buf[x->src]) r->buf[x->src] = alloc_buffer(x->src, r->sizes[r->nsizes - 1]);
        if (!r->buf[x->dst]) r->buf[x->dst] = alloc_buffer(x->dst, r->sizes[r->nsizes - 1]);
        r->points += r->nsizes * __builtin_popcount(r->o.modes);
    }
    if (r->points == 0) {
        fprintf(stderr, "bandwidth: nothing to measure on %s with these --dir and --memory\n", r->backend);
        exit(1);
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
}

/* >> measuring */
/* Nanoseconds for `iters` copies of n bytes. */
static double copy_batch(run *r, const transfer *x, int mode, size_t n, long iters)
{
    void *dst = r->buf[x->dst], *src = r->buf[x->src];
    double t0 = bench_now_ns();
    long i;
    for (i = 0; i < iters; i++) {
        xrt_status st = mode ? xrt_memcpy_async(dst, src, n, x->kind, r->stream) : xrt_memcpy(dst, src, n, x->kind);
        if (st != XRT_SUCCESS) fail_xrt();
    }
    if (mode && xrt_stream_synchronize(r->stream) != XRT_SUCCESS) fail_xrt();
    return bench_now_ns() - t0;
}

/* Copies per batch so that a batch takes its share of the time budget:
   grows a trial batch until it is long enough to time, then scales it. */
static long calibrate(run *r, const transfer *x, int mode, size_t n)
{
    const long most = 1000000;
    double target = r->o.ms_per_size * 1e6 / (BATCHES + 1), t;
    long iters = 1;
    while ((t = copy_batch(r, x, mode, n, iters)) < target / 8 && iters < most) iters *= 4;
    iters = (long)((double)iters * target / t);
    return iters < 1 ? 1 : iters > most ? most : iters;
}

/* Median GB/s of BATCHES batches. */
static void measure(run *r, int mode, int t, int s)
{
    size_t n = r->sizes[s];
    double gbps[BATCHES];
    long iters;
    int b;
    copy_batch(r, &transfers[t], mode, n, 1); /* warm-up */
    iters = calibrate(r, &transfers[t], mode, n);
    for (b = 0; b < BATCHES; b++) gbps[b] = (double)n * (double)iters / copy_batch(r, &transfers[t], mode, n, iters);
    r->gbps[mode][t][s] = bench_median(gbps, BATCHES);
    r->iters[mode][t][s] = iters;
}

/* A progress line, on a terminal only and for a sweep that takes more than a second. */
static void progress(run *r, int mode, int t, int s)
{
    char size[32];
    if (!r->show_progress) return;
    fprintf(stderr, "\rbandwidth: %3d/%d  %-5s %-12s %-8s ", r->done, r->points, mode_names[mode],
            transfers[t].label, format_size(size, sizeof size, r->sizes[s]));
}

static void sweep(run *r)
{
    int mode, t, s;
    r->show_progress = isatty(STDERR_FILENO) && r->points * r->o.ms_per_size > 1000;
    for (mode = 0; mode < NMODES; mode++) {
        if (!(r->o.modes >> mode & 1)) continue;
        for (t = 0; t < NTRANSFERS; t++) {
            if (!r->selected[t]) continue;
            for (s = 0; s < r->nsizes; s++, r->done++) {
                progress(r, mode, t, s);
                measure(r, mode, t, s);
            }
        }
    }
    if (r->show_progress) fprintf(stderr, "\r%60s\r", "");
}

/* >> output */
static void print_table(const run *r)
{
    char size[32];
    int mode, t, s;
    printf("bandwidth on %s device %d (%s), GB/s, median of %d batches\n", r->backend, r->o.device, r->prop.name,
           BATCHES);
    for (mode = 0; mode < NMODES; mode++) {
        if (!(r->o.modes >> mode & 1)) continue;
        printf("\n%s\n%10s", mode_titles[mode], "size");
        for (t = 0; t < NTRANSFERS; t++)
            if (r->selected[t]) printf(" %13s", transfers[t].label);
        printf("\n");
        for (s = 0; s < r->nsizes; s++) {
            printf("%10s", format_size(size, sizeof size, r->sizes[s]));
            for (t = 0; t < NTRANSFERS; t++)
                if (r->selected[t]) printf(" %13.2f", r->gbps[mode][t][s]);
            printf("\n");
        }
    }
}

static void print_csv(const run *r)
{
    int mode, t, s;
    printf("backend,device,direction,memory,mode,bytes,gbps,iterations\n");
    for (mode = 0; mode < NMODES; mode++)
        for (t = 0; t < NTRANSFERS; t++)
            for (s = 0; s < r->nsizes && (r->o.modes >> mode & 1) && r->selected[t]; s++)
                printf("%s,%d,%s,%s,%s,%zu,%.4f,%ld\n", r->backend, r->o.device, transfers[t].dir,
                       transfers[t].memory, mode_names[mode], r->sizes[s], r->gbps[mode][t][s], r->iters[mode][t][s]);
}

int main(int argc, char **argv)
{
    static run r; /* large: not on the stack */
    r.o = parse_args(argc, argv);
    if (!getenv("XRT_LOG")) xrt_set_log_level(XRT_LOG_NONE); /* failures are reported once, below */
    setup(&r);
    sweep(&r);
    if (r.o.csv) print_csv(&r);
    else print_table(&r);
    teardown(&r);
    xrt_shutdown();
    return 0;
}
