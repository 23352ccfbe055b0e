/* SPDX-License-Identifier: MIT */
/* xrt_info: what `nvidia-smi -L`, `rocminfo` and `ibv_devinfo` tell, for
   every xrt backend: the built-in, registered and plugin backends, whether
   each is available here (and why not), each available backend's
   capabilities and devices with their compile target and fingerprint, the
   plugins tried, the RDMA devices and how near each is to each device (the
   matrix of `nvidia-smi topo -m`). `--json` prints the same as one JSON
   document. The listing is gathered once into a report, then printed as text
   or JSON, so both always say the same. */
#define XRT_IMPL
#ifdef XRT_INFO_RDMA /* the Makefile defines it where the verbs headers are */
#define XRT_ENABLE_RDMA
#endif
#include "xrt.h"
#ifdef XRT_INFO_RDMA
#include "xrt_rdma.h" /* after xrt.h, which does not include it */
#endif

#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "Usage: xrt_info [--json]\n"
    "Lists xrt's backends (built in, registered and from plugins), whether each is\n"
    "available on this machine and why not, and the capabilities and devices of each\n"
    "backend with its compile target, the plugins tried, and the RDMA devices.\n"
    "\n"
    "  --json      print the same as one JSON document\n"
    "  -h, --help  print this help and exit\n"
    "\n"
    "Environment: XRT_BACKEND picks the default backend, XRT_LOG the log level.\n"
    "Failures are part of the listing; xrt's warnings go to stderr as in any program\n"
    "(XRT_LOG=none silences them, XRT_LOG=info adds why each backend is unavailable).\n"
    "Exit status: 0; 1 when no backend can be selected; 2 for bad arguments.\n";

/* Bit i of xrt_get_capabilities is cap_names[i]. */
static const char *const cap_names[] = {"pinned_host", "malloc_async", "host_func", "event_timing",
                                        "native_handles", "modules", "graphs"};
#define NCAPS (int)(sizeof cap_names / sizeof cap_names[0])
#define ERR_LEN 512

/* >> the report */
typedef struct device_report {
    xrt_device_prop prop;
    int have_target;
    xrt_target target;
    char target_text[320];
    int have_mem;
    size_t free_bytes, total_bytes;
    int *nic;            /* its class to each RDMA device (xrt_rdma_affinity), NULL without RDMA */
    char error[ERR_LEN]; /* why the properties could not be read; "" if they were */
} device_report;

typedef struct backend_report {
    xrt_backend_info info;
    unsigned caps;
    int device_count;
    device_report *devices;
    char error[ERR_LEN]; /* why an available backend could not be listed; "" if it was */
} backend_report;

#ifndef XRT_INFO_RDMA
typedef struct xrt_rdma_device_info xrt_rdma_device_info; /* never listed */
#endif

typedef struct rdma_report {
    int count;                     /* 0 when RDMA is not built in */
    xrt_rdma_device_info *devices;
    char error[ERR_LEN];           /* why none are listed */
} rdma_report;

typedef struct report {
    int version;
    int plugin_count;
    xrt_plugin_info *plugins;
    rdma_report rdma;
    const char *default_backend; /* NULL when none can be selected */
    unsigned check_modes;        /* the stream-order checker's (XRT_CHECK) */
    char default_error[ERR_LEN];
    int backend_count;
    backend_report *backends;
} report;

static void keep_error(char *dst) { snprintf(dst, ERR_LEN, "%s", xrt_get_last_error_string()); }

static void gather_device(device_report *d, int index)
{
    if (xrt_get_device_properties(&d->prop, index) != XRT_SUCCESS) {
        keep_error(d->error);
        return;
    }
    d->have_mem = xrt_set_device(index) == XRT_SUCCESS &&
                  xrt_mem_get_info(&d->free_bytes, &d->total_bytes) == XRT_SUCCESS;
    d->have_target = xrt_set_device(index) == XRT_SUCCESS && xrt_get_target(&d->target) == XRT_SUCCESS &&
                     xrt_target_to_string(&d->target, d->target_text, sizeof d->target_text) == XRT_SUCCESS;
}

static void gather_backend(backend_report *b, int index)
{
    int d;
    if (xrt_backend_get_info(index, &b->info) != XRT_SUCCESS) {
        keep_error(b->error);
        return;
    }
    if (!b->info.available) return;
    if (xrt_set_backend(b->info.name) != XRT_SUCCESS || xrt_get_capabilities(&b->caps) != XRT_SUCCESS ||
        xrt_get_device_count(&b->device_count) != XRT_SUCCESS) {
        keep_error(b->error);
        b->device_count = 0;
        return;
    }
    b->devices = calloc((size_t)b->device_count + 1, sizeof *b->devices);
    if (!b->devices) {
        snprintf(b->error, ERR_LEN, "out of memory");
        b->device_count = 0;
        return;
    }
    for (d = 0; d < b->device_count; d++) gather_device(&b->devices[d], d);
}

static void gather_plugins(report *r)
{
    int i;
    if (xrt_plugin_count(&r->plugin_count) != XRT_SUCCESS) return;
    r->plugins = calloc((size_t)r->plugin_count + 1, sizeof *r->plugins);
    if (!r->plugins) r->plugin_count = 0;
    for (i = 0; i < r->plugin_count; i++)
        if (xrt_plugin_get_info(i, &r->plugins[i]) != XRT_SUCCESS) memset(&r->plugins[i], 0, sizeof r->plugins[i]);
}

static void gather_rdma(rdma_report *d)
{
#ifdef XRT_INFO_RDMA
    int i;
    if (xrt_rdma_device_count(&d->count) != XRT_SUCCESS) {
        keep_error(d->error);
        d->count = 0;
        return;
    }
    d->devices = calloc((size_t)d->count + 1, sizeof *d->devices);
    if (!d->devices) d->count = 0;
    for (i = 0; i < d->count; i++)
        if (xrt_rdma_device_get_info(i, &d->devices[i]) != XRT_SUCCESS) keep_error(d->error);
#else
    snprintf(d->error, ERR_LEN, "this xrt_info was built without RDMA support");
#endif
}

/* The device-to-RDMA-device matrix, as `nvidia-smi topo -m` shows GPUs and NICs. */
static void gather_topology(report *r)
{
#ifdef XRT_INFO_RDMA
    int i, d, k;
    for (i = 0; i < r->backend_count; i++) {
        backend_report *b = &r->backends[i];
        if (!b->info.available || !r->rdma.count || xrt_set_backend(b->info.name) != XRT_SUCCESS) continue;
        for (d = 0; d < b->device_count; d++) {
            if (!(b->devices[d].nic = calloc((size_t)r->rdma.count, sizeof *b->devices[d].nic))) continue;
            for (k = 0; k < r->rdma.count; k++) {
                xrt_rdma_affinity a = XRT_RDMA_AFFINITY_UNKNOWN;
                (void)xrt_rdma_device_affinity(d, r->rdma.devices[k].name, &a);
                b->devices[d].nic[k] = (int)a;
            }
        }
    }
    if (r->default_backend) xrt_set_backend(r->default_backend);
#else
    (void)r;
#endif
}

/* XRT_SUCCESS, or why no default backend can be selected. */
static xrt_status gather(report *r)
{
    xrt_status st = xrt_init();
    int i;
    memset(r, 0, sizeof *r);
    xrt_runtime_get_version(&r->version);
    if (st == XRT_SUCCESS) st = xrt_get_backend(&r->default_backend);
    xrt_check_get_modes(&r->check_modes);
    if (st != XRT_SUCCESS) keep_error(r->default_error);
    xrt_backend_count(&r->backend_count);
    r->backends = calloc((size_t)r->backend_count + 1, sizeof *r->backends);
    if (!r->backends) r->backend_count = 0;
    for (i = 0; i < r->backend_count; i++) gather_backend(&r->backends[i], i);
    gather_plugins(r);
    gather_rdma(&r->rdma);
    gather_topology(r);
    return st;
}

static void free_report(report *r)
{
    int i, d;
    for (i = 0; i < r->backend_count; i++) {
        for (d = 0; d < r->backends[i].device_count; d++) free(r->backends[i].devices[d].nic);
        free(r->backends[i].devices);
    }
    free(r->backends);
    free(r->plugins);
    free(r->rdma.devices);
}

/* >> text */
static double gib(size_t bytes) { return (double)bytes / (1u << 30); }

/* "00000000:3b:00.0", as nvidia-smi and lspci -D write a PCI address; "" for none. */
static void pci_text(const xrt_device_prop *p, char *out, size_t n)
{
    if (!p->pci_domain_id && !p->pci_bus_id && !p->pci_device_id) snprintf(out, n, "%s", "");
    else snprintf(out, n, "%08x:%02x:%02x.0", (unsigned)p->pci_domain_id, (unsigned)p->pci_bus_id,
                  (unsigned)p->pci_device_id);
}

/* "GPU-8-4-4-4-12" hex digits, as nvidia-smi -L writes it; "" when all zero. */
static void uuid_text(const xrt_device_prop *p, char *out, size_t n)
{
    const unsigned char *u = p->uuid;
    size_t i, zero = 1;
    for (i = 0; i < sizeof p->uuid; i++) zero &= u[i] == 0;
    if (zero) snprintf(out, n, "%s", "");
    else snprintf(out, n, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2],
                  u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

/* "13.0 (13000)" for CUDA, "5.2 (50221151)" for HIP (cli_version reads
   both numberings); "none" for 0. */
static void version_text(int v, char *out, size_t n)
{
    char num[24];
    if (v > 0) snprintf(out, n, "%s (%d)", cli_version(num, sizeof num, v), v);
    else if (v) snprintf(out, n, "%d", v);
    else snprintf(out, n, "none");
}

static void text_device(const device_report *d, int index)
{
    if (d->error[0]) {
        printf("    device %d: error: %s\n", index, d->error);
        return;
    }
    printf("    device %d: %s\n", index, d->prop.name);
    printf("      arch %s, %d multiprocessors, warp size %d\n", d->prop.arch, d->prop.multiprocessor_count,
           d->prop.warp_size);
    if (d->have_mem) printf("      memory %.1f GiB total, %.1f GiB free\n", gib(d->total_bytes), gib(d->free_bytes));
    else printf("      memory %.1f GiB total\n", gib(d->prop.total_memory));
    if (d->have_target)
        printf("      target %s, fingerprint %016llx\n", d->target_text, (unsigned long long)d->target.fingerprint);
    {
        char pci[32], uuid[48];
        pci_text(&d->prop, pci, sizeof pci);
        uuid_text(&d->prop, uuid, sizeof uuid);
        printf("      pci %s, uuid %s, ", pci[0] ? pci : "none", uuid[0] ? uuid : "none");
        if (d->prop.numa_node >= 0) printf("numa node %d\n", d->prop.numa_node);
        else printf("numa node none\n");
    }
}

/* The vendor runtime a backend loaded: file and versions. */
static void text_runtime(const backend_report *b)
{
    char rv[48], dv[48];
    if (!b->info.library || !b->info.library[0]) return;
    version_text(b->info.runtime_version, rv, sizeof rv);
    version_text(b->info.driver_version, dv, sizeof dv);
    printf("    runtime %s in %s, driver %s\n", rv, b->info.library, dv);
}

static void text_backend(const backend_report *b)
{
    int i;
    const char *name = b->info.name ? b->info.name : "?";
    if (!b->info.available || !b->info.name) {
        printf("  %-5s unavailable: %s\n", name, b->error[0] ? b->error : b->info.reason);
        text_runtime(b);
        return;
    }
    if (b->error[0]) {
        printf("  %-5s available, but listing it failed: %s\n", name, b->error);
        return;
    }
    printf("  %-5s available, %d device%s\n", name, b->device_count, b->device_count == 1 ? "" : "s");
    text_runtime(b);
    printf("    capabilities:");
    for (i = 0; i < NCAPS; i++)
        if (b->caps & (1u << i)) printf(" %s", cap_names[i]);
    printf("\n");
    for (i = 0; i < b->device_count; i++) text_device(&b->devices[i], i);
}

static void text_plugins(const report *r)
{
    int i;
    if (!r->plugin_count) return;
    printf("plugins:\n");
    for (i = 0; i < r->plugin_count; i++) {
        const xrt_plugin_info *p = &r->plugins[i];
        const char *from = p->origin ? p->origin : "?"; /* XRT_PLUGINS, XRT_PLUGIN_PATH or xrt_load_plugin */
        if (p->loaded) printf("  %s (from %s): backend %s\n", p->path, from, p->backend);
        else printf("  %s (from %s): skipped: %s\n", p->path ? p->path : "?", from, p->reason ? p->reason : "?");
    }
}

static void text_rdma(const rdma_report *d)
{
    int i, p;
    printf("rdma devices:%s%s\n", d->count || !d->error[0] ? "" : " none: ", d->count ? "" : d->error);
#ifdef XRT_INFO_RDMA
    for (i = 0; i < d->count; i++) {
        const xrt_rdma_device_info *v = &d->devices[i];
        printf("  %s: %d port%s\n", v->name, v->port_count, v->port_count == 1 ? "" : "s");
        for (p = 0; p < v->port_count && p < XRT_RDMA_MAX_PORTS; p++)
            printf("    port %d: %s, %s, mtu %d (max %d), %d GID%s\n", v->ports[p].port, v->ports[p].state,
                   v->ports[p].link_layer, v->ports[p].active_mtu, v->ports[p].max_mtu, v->ports[p].gid_count,
                   v->ports[p].gid_count == 1 ? "" : "s");
    }
#else
    (void)i;
    (void)p;
#endif
}

#ifdef XRT_INFO_RDMA
static const char *nic_class(int a) { return xrt_rdma_affinity_name((xrt_rdma_affinity)a); }
#endif

static void text_topology(const report *r)
{
#ifdef XRT_INFO_RDMA
    int i, d, k, rows = 0;
    for (i = 0; i < r->backend_count; i++)
        for (d = 0; d < r->backends[i].device_count; d++) rows += r->backends[i].devices[d].nic != NULL;
    if (!rows) return;
    printf("rdma topology:\n  %-10s", "");
    for (k = 0; k < r->rdma.count; k++) printf(" %-8s", r->rdma.devices[k].name);
    printf("\n");
    for (i = 0; i < r->backend_count; i++)
        for (d = 0; d < r->backends[i].device_count; d++) {
            const device_report *v = &r->backends[i].devices[d];
            char row[32];
            if (!v->nic) continue;
            snprintf(row, sizeof row, "%s %d", r->backends[i].info.name, d);
            printf("  %-10s", row);
            for (k = 0; k < r->rdma.count; k++) printf(" %-8s", nic_class(v->nic[k]));
            printf("\n");
        }
    printf("  legend: PIX  = through at most one PCIe switch\n"
           "          PXB  = through several PCIe switches (not through a host bridge)\n"
           "          PHB  = through a PCIe host bridge\n"
           "          NODE = between PCIe host bridges of one NUMA node\n"
           "          SYS  = between NUMA nodes\n"
           "          ?    = not known (no PCI address nor NUMA node, or none in sysfs)\n");
#else
    (void)r;
#endif
}

static void print_text(const report *r)
{
    int i;
    printf("xrt %d.%d.%d\n", r->version / 10000, r->version / 100 % 100, r->version % 100);
    if (r->default_backend) printf("default backend: %s\n", r->default_backend);
    else printf("default backend: none: %s\n", r->default_error);
    printf("checking: %s\n", r->check_modes & XRT_CHECK_STREAMS ? "streams (XRT_CHECK)" : "off");
    for (i = 0; i < r->backend_count; i++) text_backend(&r->backends[i]);
    text_plugins(r);
    text_rdma(&r->rdma);
    text_topology(r);
}

/* >> JSON */
/* Length of the valid UTF-8 sequence at s, or 0 if it is not one (overlong
   forms, surrogates and code points past U+10FFFF are not valid). */
static int utf8_length(const unsigned char *s)
{
    unsigned long cp;
    int n, i;
    if (s[0] < 0x80) return 1;
    if (s[0] >= 0xc2 && s[0] <= 0xdf) n = 2, cp = s[0] & 0x1fu;
    else if (s[0] >= 0xe0 && s[0] <= 0xef) n = 3, cp = s[0] & 0x0fu;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4) n = 4, cp = s[0] & 0x07u;
    else return 0;
    for (i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0; /* also stops at the terminating NUL */
        cp = cp << 6 | (s[i] & 0x3fu);
    }
    if (n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) return 0;
    if (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) return 0;
    return n;
}

/* A JSON string: quotes, backslashes and control characters escaped, bytes
   that are not UTF-8 (a library path may hold any) replaced by U+FFFD. */
static void json_string(const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    putchar('"');
    while (*s) {
        int n = utf8_length(s);
        if (n == 0) fputs("\\ufffd", stdout), n = 1;
        else if (n > 1) fwrite(s, 1, (size_t)n, stdout);
        else if (*s == '"' || *s == '\\') printf("\\%c", *s);
        else if (*s == '\n') fputs("\\n", stdout);
        else if (*s == '\t') fputs("\\t", stdout);
        else if (*s < 0x20 || *s == 0x7f) printf("\\u%04x", *s);
        else putchar(*s);
        s += n;
    }
    putchar('"');
}

/* A pretty-printing writer: one member or element per line. */
typedef struct json {
    int depth;
    int started[8]; /* the container at each depth has a member already */
} json;

/* Separator, indentation and, inside an object, the member's key. */
static void json_member(json *j, const char *key)
{
    if (j->started[j->depth]) putchar(',');
    j->started[j->depth] = 1;
    if (j->depth > 0) printf("\n%*s", 2 * j->depth, "");
    if (key) {
        json_string(key);
        fputs(": ", stdout);
    }
}

static void json_open(json *j, const char *key, char bracket)
{
    json_member(j, key);
    putchar(bracket);
    j->started[++j->depth] = 0;
}

static void json_close(json *j, char bracket)
{
    if (j->started[j->depth--]) printf("\n%*s", 2 * j->depth, "");
    putchar(bracket);
}

static void json_str(json *j, const char *key, const char *value) /* NULL or "" is null */
{
    json_member(j, key);
    if (value && value[0]) json_string(value);
    else fputs("null", stdout);
}

static void json_num(json *j, const char *key, unsigned long long value)
{
    json_member(j, key);
    printf("%llu", value);
}

static void json_bool(json *j, const char *key, int value)
{
    json_member(j, key);
    fputs(value ? "true" : "false", stdout);
}

static void json_device(json *j, const device_report *d, int index)
{
    json_open(j, NULL, '{');
    json_num(j, "index", (unsigned long long)index);
    json_str(j, "error", d->error);
    if (!d->error[0]) {
        json_str(j, "name", d->prop.name);
        json_str(j, "arch", d->prop.arch);
        json_num(j, "multiprocessors", (unsigned long long)d->prop.multiprocessor_count);
        json_num(j, "warp_size", (unsigned long long)d->prop.warp_size);
        json_num(j, "total_memory_bytes", d->prop.total_memory);
        if (d->have_mem) json_num(j, "free_memory_bytes", d->free_bytes);
        else json_str(j, "free_memory_bytes", NULL);
        json_str(j, "target", d->have_target ? d->target_text : NULL);
        if (d->have_target) {
            char fp[24];
            snprintf(fp, sizeof fp, "%016llx", (unsigned long long)d->target.fingerprint);
            json_str(j, "fingerprint", fp); /* a string: JSON numbers lose 64-bit precision */
        } else {
            json_str(j, "fingerprint", NULL);
        }
        {
            char pci[32], uuid[48];
            pci_text(&d->prop, pci, sizeof pci);
            uuid_text(&d->prop, uuid, sizeof uuid);
            json_str(j, "pci_bus_id", pci);
            json_str(j, "uuid", uuid);
        }
        if (d->prop.numa_node >= 0) json_num(j, "numa_node", (unsigned long long)d->prop.numa_node);
        else json_str(j, "numa_node", NULL);
    }
    json_close(j, '}');
}

static void json_backend(json *j, const backend_report *b)
{
    int i;
    json_open(j, NULL, '{');
    json_str(j, "name", b->info.name);
    json_bool(j, "available", b->info.available && b->info.name);
    json_str(j, "reason", b->info.available ? NULL : b->info.reason);
    json_num(j, "abi_version", b->info.abi_version);
    json_str(j, "library", b->info.library);
    json_num(j, "runtime_version", (unsigned long long)b->info.runtime_version);
    json_num(j, "driver_version", (unsigned long long)b->info.driver_version);
    json_str(j, "error", b->error);
    if (b->info.available && !b->error[0]) {
        json_open(j, "capabilities", '{');
        for (i = 0; i < NCAPS; i++) json_bool(j, cap_names[i], (b->caps >> i) & 1);
        json_close(j, '}');
        json_open(j, "devices", '[');
        for (i = 0; i < b->device_count; i++) json_device(j, &b->devices[i], i);
        json_close(j, ']');
    }
    json_close(j, '}');
}

static void json_plugins(json *j, const report *r)
{
    int i;
    json_open(j, "plugins", '[');
    for (i = 0; i < r->plugin_count; i++) {
        json_open(j, NULL, '{');
        json_str(j, "path", r->plugins[i].path);
        json_bool(j, "loaded", r->plugins[i].loaded);
        json_str(j, "backend", r->plugins[i].backend);
        json_str(j, "reason", r->plugins[i].reason);
        json_str(j, "origin", r->plugins[i].origin);
        json_close(j, '}');
    }
    json_close(j, ']');
}

/* "topology": one row per device: its backend, index and class to each RDMA device. */
static void json_topology(json *j, const report *r)
{
#ifdef XRT_INFO_RDMA
    int i, d, k;
    json_open(j, "topology", '[');
    for (i = 0; i < r->backend_count; i++)
        for (d = 0; d < r->backends[i].device_count; d++) {
            const device_report *v = &r->backends[i].devices[d];
            if (!v->nic) continue;
            json_open(j, NULL, '{');
            json_str(j, "backend", r->backends[i].info.name);
            json_num(j, "device", (unsigned long long)d);
            json_open(j, "classes", '{');
            for (k = 0; k < r->rdma.count; k++) json_str(j, r->rdma.devices[k].name, nic_class(v->nic[k]));
            json_close(j, '}');
            json_close(j, '}');
        }
    json_close(j, ']');
#else
    (void)j;
    (void)r;
#endif
}

static void json_rdma(json *j, const report *r)
{
    const rdma_report *d = &r->rdma;
    int i, p;
    json_open(j, "rdma", '{');
    json_str(j, "error", d->count ? NULL : d->error);
    json_open(j, "devices", '[');
#ifdef XRT_INFO_RDMA
    for (i = 0; i < d->count; i++) {
        const xrt_rdma_device_info *v = &d->devices[i];
        json_open(j, NULL, '{');
        json_str(j, "name", v->name);
        json_open(j, "ports", '[');
        for (p = 0; p < v->port_count && p < XRT_RDMA_MAX_PORTS; p++) {
            json_open(j, NULL, '{');
            json_num(j, "port", (unsigned long long)v->ports[p].port);
            json_str(j, "state", v->ports[p].state);
            json_str(j, "link_layer", v->ports[p].link_layer);
            json_num(j, "active_mtu", (unsigned long long)v->ports[p].active_mtu);
            json_num(j, "max_mtu", (unsigned long long)v->ports[p].max_mtu);
            json_num(j, "gids", (unsigned long long)v->ports[p].gid_count);
            json_close(j, '}');
        }
        json_close(j, ']');
        json_close(j, '}');
    }
#else
    (void)i;
    (void)p;
#endif
    json_close(j, ']');
    json_topology(j, r);
    json_close(j, '}');
}

static void print_json(const report *r)
{
    json j = {0, {0}};
    char version[32];
    int i;
    snprintf(version, sizeof version, "%d.%d.%d", r->version / 10000, r->version / 100 % 100, r->version % 100);
    json_open(&j, NULL, '{');
    json_str(&j, "xrt_version", version);
    json_str(&j, "default_backend", r->default_backend);
    json_str(&j, "default_backend_error", r->default_error);
    json_str(&j, "checking", r->check_modes & XRT_CHECK_STREAMS ? "streams" : "off");
    json_open(&j, "backends", '[');
    for (i = 0; i < r->backend_count; i++) json_backend(&j, &r->backends[i]);
    json_close(&j, ']');
    json_plugins(&j, r);
    json_rdma(&j, r);
    json_close(&j, '}');
    putchar('\n');
}

/* >> main */
static int parse_args(int argc, char **argv)
{
    cli c = {"xrt_info", argc, 1, argv};
    int as_json = 0;
    for (; c.i < argc; c.i++) {
        cli_help(&c, usage);
        if (cli_flag(&c, "--json")) as_json = 1;
        else cli_unknown(&c);
    }
    return as_json;
}

int main(int argc, char **argv)
{
    int as_json = parse_args(argc, argv);
    report r;
    xrt_status st;
    st = gather(&r);
    if (as_json) print_json(&r);
    else print_text(&r);
    free_report(&r);
    xrt_shutdown();
    return st == XRT_SUCCESS ? 0 : 1;
}
