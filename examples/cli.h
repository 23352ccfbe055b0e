/* SPDX-License-Identifier: MIT */
/* Shared by the command-line tools in examples/: options of the forms
   `--name value` and `--name=value`, and usage errors that name the tool,
   say what is wrong and exit with status 2. */
#ifndef XRT_EXAMPLES_CLI_H
#define XRT_EXAMPLES_CLI_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLI_USAGE_ERROR 2 /* exit status for bad arguments */

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

static inline __attribute__((noreturn)) void cli_unknown(const cli *c)
{
    const char *a = c->argv[c->i];
    if (a[0] == '-') cli_fail(c, "unknown option '%s'", a);
    cli_fail(c, "unexpected argument '%s'", a);
}

#endif
