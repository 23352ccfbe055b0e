/* SPDX-License-Identifier: MIT */
/* Shared by the command-line tools in tools/ (and the examples and any tool
   built on xrt): one convention for every tool.
   - Options are `--name value` or `--name=value`; a short alias (`-s`) takes
     its value from the next argument. `-h`/`--help` prints the usage to
     stdout and exits 0.
   - A bad argument prints "TOOL: what is wrong" (for a choice, the valid
     values too) and "Try 'TOOL --help'" to stderr and exits 2
     (CLI_USAGE_ERROR). A failure of xrt exits 1 with xrt's detail, once.
   - A vendor runtime's version prints as "13.0" or "5.2", from CUDA's
     numbering and from HIP's (cli_version).
   Include it after xrt.h: cli_backend() checks a backend name against the
   registered backends. */
#ifndef XRT_EXAMPLES_CLI_H
#define XRT_EXAMPLES_CLI_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CLI_USAGE_ERROR 2 /* exit status for bad arguments */
#define CLI_XRT_ERROR 1   /* exit status when xrt fails */

typedef struct cli {
    const char *prog;
    int argc, i;
    char **argv;
} cli;

static inline void cli_fail(const cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

static inline void cli_fail(const cli *c, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", c->prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry '%s --help' for more information.\n", c->prog);
    exit(CLI_USAGE_ERROR);
}

/* Prints `usage` to stdout and exits 0 when the current argument is -h or --help. */
static inline int cli_flag(const cli *c, const char *name);
static inline void cli_help(const cli *c, const char *usage)
{
    if (cli_flag(c, "--help") || cli_flag(c, "-h")) {
        fputs(usage, stdout);
        exit(0);
    }
}

/* 1 if the current argument is the flag `name` (which takes no value). */
static inline int cli_flag(const cli *c, const char *name)
{
    const char *a = c->argv[c->i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0) return 0;
    if (a[n] == '=') cli_fail(c, "option '%s' takes no value", name);
    return a[n] == '\0';
}

/* 1 if the current argument is option `name`; its value, from `--name=v` or
   the next argument, goes to *value. */
static inline int cli_option(cli *c, const char *name, const char **value)
{
    const char *a = c->argv[c->i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0 || (a[n] != '\0' && a[n] != '=')) return 0;
    if (a[n] == '=') {
        *value = a + n + 1;
    } else {
        if (c->i + 1 >= c->argc) cli_fail(c, "option '%s' needs a value", name);
        *value = c->argv[++c->i];
    }
    if (!**value) cli_fail(c, "option '%s' needs a value", name);
    return 1;
}

/* The same with a short alias: `-s VALUE` or `--size VALUE`. */
static inline int cli_option2(cli *c, const char *alias, const char *name, const char **value)
{
    if (strcmp(c->argv[c->i], alias) == 0) {
        if (c->i + 1 >= c->argc || !c->argv[c->i + 1][0]) cli_fail(c, "option '%s' needs a value", alias);
        *value = c->argv[++c->i];
        return 1;
    }
    return cli_option(c, name, value);
}

/* A decimal integer in [min, max], or a usage error naming the option. */
static inline long cli_long(const cli *c, const char *name, const char *s, long min, long max)
{
    char *end;
    long v;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max)
        cli_fail(c, "%s: '%s' is not a whole number from %ld to %ld", name, s, min, max);
    return v;
}

/* A byte count from 1 to `max`: digits with an optional K, M, G or T (powers
   of 1024; KiB, MiB... too). */
static inline size_t cli_size(const cli *c, const char *name, const char *s, unsigned long long max)
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
    if (errno || end == s || *s == '-' || *end || v == 0 || v > max >> shift)
        cli_fail(c, "%s: '%s' is not a size from 1 byte to %llu bytes (e.g. 4096, 64K, 1M)", name, s, max);
    return (size_t)(v << shift);
}

/* "a, b, c" into buf. */
static inline const char *cli_join(char *buf, size_t n, const char *const *names, int count)
{
    size_t len = 0;
    int i;
    buf[0] = 0;
    for (i = 0; i < count && len < n; i++) len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", names[i]);
    return buf;
}

/* The index of `s` in names, or a usage error that lists them. */
static inline int cli_choice(const cli *c, const char *name, const char *s, const char *const *names, int n)
{
    char valid[256];
    int i;
    for (i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0) return i;
    cli_fail(c, "%s: unknown value '%s' (valid: %s)", name, s, cli_join(valid, sizeof valid, names, n));
}

/* A comma-separated list of names as a bit set (bit i: names[i]), or a usage
   error that lists the valid names; an empty item ("h2d,", "a,,b") is one. */
static inline unsigned cli_list(const cli *c, const char *name, const char *s, const char *const *names, int n)
{
    const char *all = s;
    char valid[256];
    unsigned set = 0;
    if (!*s) cli_fail(c, "option '%s' needs a value", name);
    for (;;) {
        size_t len = strcspn(s, ",");
        int i;
        for (i = 0; i < n && (strlen(names[i]) != len || strncmp(s, names[i], len) != 0); i++) continue;
        if (i == n && len == 0)
            cli_fail(c, "%s: empty item in '%s' (valid: %s)", name, all, cli_join(valid, sizeof valid, names, n));
        if (i == n)
            cli_fail(c, "%s: unknown item '%.*s' in '%s' (valid: %s)", name, (int)len, s, all,
                     cli_join(valid, sizeof valid, names, n));
        set |= 1u << i;
        if (!s[len]) return set;
        s += len + 1; /* past the comma: an item must follow */
    }
}

/* A vendor runtime's version number as "13.0": CUDA's is 1000 * major + 10 *
   minor (cudaRuntimeGetVersion, cudaDriverGetVersion), HIP's 10000000 * major
   + 100000 * minor + patch (hipRuntimeGetVersion: 50221153 is 5.2); "" for 0
   or less (unknown). */
static inline const char *cli_version(char *out, size_t n, int v)
{
    if (v >= 10000000) snprintf(out, n, "%d.%d", v / 10000000, v / 100000 % 100);
    else if (v > 0) snprintf(out, n, "%d.%d", v / 1000, v % 1000 / 10);
    else if (n) out[0] = 0;
    return out;
}

static inline __attribute__((noreturn)) void cli_unknown(const cli *c)
{
    const char *a = c->argv[c->i];
    if (a[0] == '-') cli_fail(c, "unknown option '%s'", a);
    cli_fail(c, "unexpected argument '%s'", a);
}

#ifdef XRT_H_INCLUDED
/* A name of a registered backend (built in, registered or from a plugin;
   matched without regard to case, as xrt does), or a usage error listing
   them. Whether it is available here is xrt_set_backend's to say. */
static inline void cli_backend(const cli *c, const char *option, const char *name)
{
    xrt_backend_info info;
    char valid[256];
    size_t len = 0;
    int count = 0, i;
    valid[0] = 0;
    if (xrt_backend_count(&count) != XRT_SUCCESS) count = 0;
    for (i = 0; i < count; i++) {
        if (xrt_backend_get_info(i, &info) != XRT_SUCCESS) continue;
        if (strcasecmp(info.name, name) == 0) return;
        if (len < sizeof valid) len += (size_t)snprintf(valid + len, sizeof valid - len, "%s%s", len ? ", " : "", info.name);
    }
    cli_fail(c, "%s: unknown backend '%s' (valid: %s)", option, name, valid);
}
#endif

#endif
