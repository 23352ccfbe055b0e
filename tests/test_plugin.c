/* SPDX-License-Identifier: MIT */
/* Plugins: backends in shared objects (XRT_PLUGINS, xrt_load_plugin). The
   failure cases (tests/plugins/: no symbol, another ABI, a failing
   registration, a taken name, a missing file) are skipped with a reason that
   is logged and queryable while xrt and the other plugins carry on; a plugin
   loads once per process and registers again at every init; its backend takes
   part in selection. Then the tracing backend (tools/trace.c): its
   lines, its handle and pointer rule, host functions, fork, its target.

   Plugins are loaded once per process and never unloaded, so the tests run in
   order and each sets the environment it needs, then restarts xrt. The
   Makefile passes XRT_TEST_PLUGIN_DIR, where the plugins of this program's
   flavour (plain or ASan) are. */
#define XRT_IMPL /* white-box: the registry's lock and the plugin host */
#include "xrt_test.h"

#include <dlfcn.h>
#include <grp.h>
#include <limits.h>
#include <regex.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef XRT_TEST_PLUGIN_DIR
#define XRT_TEST_PLUGIN_DIR "build/plugins"
#endif
#define PLUGIN(file) XRT_TEST_PLUGIN_DIR "/" file
#define TRACE PLUGIN("libxrt_trace.so")
#define GOOD PLUGIN("test_good.so")
#define MISSING PLUGIN("test_missing.so")

/* >> helpers */
/* Every log line of the test, "level: message\n" each (xrt_test_log keeps the last one). */
static struct { char text[16384]; size_t len; int count; } logged;

static void collect(xrt_log_level level, const char *msg, void *user)
{
    static const char *const names[] = {"none", "error", "warn", "info", "debug"};
    int n = snprintf(logged.text + logged.len, sizeof logged.text - logged.len, "%s: %s\n", names[level], msg);
    if (n > 0 && logged.len + (size_t)n < sizeof logged.text) logged.len += (size_t)n;
    logged.count++;
    xrt_test_log_fn(level, msg, user);
}

static int capture(void **state)
{
    (void)state;
    xrt_test_log_calls();
    memset(&logged, 0, sizeof logged);
    xrt_set_log_callback(collect, NULL);
    return 0;
}

static void set_env(const char *name, const char *value)
{
    if (value) setenv(name, value, 1);
    else unsetenv(name);
}

/* Starts xrt again with the given XRT_PLUGINS and XRT_BACKEND (NULL: unset). */
static xrt_status restart(const char *plugins, const char *backend)
{
    set_env("XRT_PLUGINS", plugins);
    set_env("XRT_BACKEND", backend);
    xrt_shutdown();
    xrt_get_last_error();
    return xrt_init();
}

/* The plugin loaded from `path` (its info in *info), or -1. */
static int plugin_index(const char *path, xrt_plugin_info *info)
{
    int n = 0, i;
    OK(xrt_plugin_count(&n));
    for (i = 0; i < n; i++) {
        OK(xrt_plugin_get_info(i, info));
        if (strcmp(info->path, path) == 0) return i;
    }
    memset(info, 0, sizeof *info);
    return -1;
}

static int plugins_loaded(void)
{
    int n = 0;
    OK(xrt_plugin_count(&n));
    return n;
}

/* How many registered backends are called `name`. */
static int backends_named(const char *name)
{
    xrt_backend_info info;
    int n = 0, i, found = 0;
    OK(xrt_backend_count(&n));
    for (i = 0; i < n; i++) {
        OK(xrt_backend_get_info(i, &info));
        found += strcmp(info.name, name) == 0;
    }
    return found;
}

/* A synchronous round trip through device memory (good has no streams). */
static void assert_memory_works(unsigned char v)
{
    unsigned char h[64];
    void *d;
    OK(xrt_malloc(&d, sizeof h));
    OK(xrt_memset(d, v, sizeof h));
    memset(h, 0, sizeof h);
    OK(xrt_memcpy(h, d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_bytes(h, sizeof h, v);
    OK(xrt_free(d));
}

/* The same, in a child (no cmocka asserts there). */
static void assert_memory_works_in_child(void)
{
    unsigned char h[64];
    void *d;
    int i;
    CHILD_OK(xrt_malloc(&d, sizeof h));
    CHILD_OK(xrt_memset(d, 0x3e, sizeof h));
    CHILD_OK(xrt_memcpy(h, d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST));
    for (i = 0; i < (int)sizeof h; i++) CHILD_TRUE(h[i] == 0x3e);
    CHILD_OK(xrt_free(d));
}

/* A skipped plugin: queryable with its reason, logged once at warn level with it. */
static void assert_skipped(const char *path, const char *why)
{
    xrt_plugin_info info;
    char line[512];
    assert_true(plugin_index(path, &info) >= 0);
    assert_int_equal(info.loaded, 0);
    assert_null(info.backend);
    if (!strstr(info.reason, why)) fail_msg("%s: reason \"%s\", expected \"%s\"", path, info.reason, why);
    snprintf(line, sizeof line, "warn: plugin %s skipped: %s\n", path, info.reason);
    assert_non_null(strstr(logged.text, line));
    assert_null(strstr(strstr(logged.text, line) + 1, line));
}

/* >> loading */
/* No plugins: nothing loaded, nothing logged, only the built-in backends. */
static void test_no_plugins(void **state)
{
    (void)state;
    OK(restart(NULL, NULL));
    assert_int_equal(plugins_loaded(), 0);
    assert_int_equal(backends_named("cuda") + backends_named("hip") + backends_named("cpu"), 3);
    assert_int_equal(backends_named("good") + backends_named("trace"), 0);
    assert_int_equal(logged.count, 0);
}

static void test_failures_skipped(void **state)
{
    char names[256];
    const char *name = NULL;
    (void)state;
    OK(restart(PLUGIN("test_nosym.so") ":" PLUGIN("test_badabi.so") ":" PLUGIN("test_fails.so") ":"
               PLUGIN("test_dupname.so") ":" MISSING ":" GOOD, NULL));
    assert_int_equal(xrt_get_last_error(), XRT_SUCCESS); /* skipping is not an error of xrt_init */
    assert_int_equal(plugins_loaded(), 6);
    assert_skipped(PLUGIN("test_nosym.so"), "no function xrt_plugin_register in it");
    snprintf(names, sizeof names, "badabi: ABI version %u, expected %u", XRT_BACKEND_ABI_VERSION + 1,
             XRT_BACKEND_ABI_VERSION);
    assert_skipped(PLUGIN("test_badabi.so"), names);
    assert_skipped(PLUGIN("test_fails.so"), "xrt_plugin_register failed: no device: fails: no widget at /dev/widget0");
    assert_skipped(PLUGIN("test_dupname.so"), "a backend named cpu is registered");
    assert_skipped(MISSING, "cannot load: " MISSING);
    assert_int_equal(logged.count, 5); /* one line per skipped plugin, nothing else */

    /* the others carry on: good is loaded after them, cpu is still the built-in one */
    {
        xrt_plugin_info info;
        assert_true(plugin_index(GOOD, &info) >= 0);
        assert_int_equal(info.loaded, 1);
        assert_string_equal(info.backend, "good");
        assert_string_equal(info.reason, "");
    }
    assert_int_equal(backends_named("cpu"), 1);
    assert_int_equal(backends_named("good"), 1);
    assert_int_equal(backends_named("badabi"), 0);
    OK(xrt_get_backend(&name));
    assert_string_equal(name, first_available()); /* cpu, or a GPU backend where there is one */
    assert_stream_works(NULL, 0x31);
    FAILS(xrt_plugin_get_info(6, &(xrt_plugin_info){0}), XRT_ERROR_INVALID_VALUE, "index 6 out of range");
}

/* Through XRT_PLUGINS and xrt_load_plugin, twice each: one load, one backend. */
/* XRT_LOG=debug names the file each plugin was loaded from and its backend. */
static void test_debug_names_plugin(void **state)
{
    (void)state;
    xrt_set_log_level(XRT_LOG_DEBUG);
    OK(restart(GOOD, NULL));
    xrt_set_log_level(XRT_LOG_WARN);
    assert_non_null(strstr(logged.text, "debug: plugin " GOOD ": loaded "));
    assert_non_null(strstr(logged.text, "test_good.so: backend good\n"));
    assert_non_null(strstr(logged.text, "debug: XRT_PLUGINS=" GOOD ": "));
}

static void test_load_twice(void **state)
{
    int n;
    (void)state;
    OK(restart(GOOD ":" GOOD, NULL));
    n = plugins_loaded();
    OK(xrt_load_plugin(GOOD));
    assert_int_equal(plugins_loaded(), n);
    assert_int_equal(backends_named("good"), 1);

    OK(xrt_load_plugin(TRACE));
    OK(xrt_load_plugin(TRACE));
    assert_int_equal(plugins_loaded(), n + 1);
    assert_int_equal(backends_named("trace"), 1);

    /* a failed plugin is listed once (whether an earlier test tried it or
       not) and not tried again; a new one fails through the API: one error
       line, no warning */
    FAILS(xrt_load_plugin(MISSING), XRT_ERROR_BACKEND_UNAVAILABLE, "cannot load: " MISSING);
    n = plugins_loaded();
    FAILS(xrt_load_plugin(MISSING), XRT_ERROR_BACKEND_UNAVAILABLE, "cannot load: " MISSING);
    assert_int_equal(plugins_loaded(), n);
    logged.len = 0;
    logged.text[0] = 0;
    FAILS(xrt_load_plugin(PLUGIN("test_nosym.so")), XRT_ERROR_BACKEND_UNAVAILABLE,
          "xrt_load_plugin: " PLUGIN("test_nosym.so") ": no function xrt_plugin_register");
    assert_null(strstr(logged.text, "warn:"));
    n = plugins_loaded();
    FAILS(xrt_load_plugin(PLUGIN("test_nosym.so")), XRT_ERROR_BACKEND_UNAVAILABLE,
          "xrt_load_plugin: " PLUGIN("test_nosym.so") ": no function xrt_plugin_register");
    assert_int_equal(plugins_loaded(), n);
    FAILS(xrt_load_plugin(""), XRT_ERROR_INVALID_VALUE, "path is NULL or empty");
    FAILS(xrt_load_plugin(NULL), XRT_ERROR_INVALID_VALUE, "path is NULL or empty");
}

/* After xrt_shutdown + init, every plugin loaded before is back, once, with
   or without XRT_PLUGINS. */
static void test_reinit(void **state)
{
    int n;
    (void)state;
    OK(restart(GOOD, NULL));
    OK(xrt_load_plugin(TRACE));
    n = plugins_loaded();
    OK(restart(NULL, NULL));
    assert_int_equal(plugins_loaded(), n);
    assert_int_equal(backends_named("good"), 1);
    assert_int_equal(backends_named("trace"), 1);
    OK(restart(TRACE ":" GOOD, NULL));
    assert_int_equal(plugins_loaded(), n);
    assert_int_equal(backends_named("good"), 1);
    assert_int_equal(backends_named("trace"), 1);
    OK(xrt_set_backend("good"));
    assert_memory_works(0x32);
}

/* The code of a plugin stays mapped after xrt_shutdown, and a dlclose of our
   own reference does not unmap it either (RTLD_NODELETE). */
static void test_never_unloaded(void **state)
{
    void *h;
    (void)state;
    OK(restart(GOOD, NULL));
    xrt_shutdown();
    h = dlopen(GOOD, RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(h);
    dlclose(h);
    h = dlopen(GOOD, RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(h);
    dlclose(h);
}

/* >> selection */
static void test_select_plugin_backend(void **state)
{
    xrt_backend_info info;
    xrt_pointer_attributes a;
    xrt_stream s;
    void *d;
    (void)state;
    OK(restart(GOOD, "good"));
    assert_string_equal(current_backend(), "good");
    assert_memory_works(0x44);
    OK(xrt_malloc(&d, 64));
    OK(xrt_pointer_get_attributes(&a, d));
    assert_string_equal(a.backend, "good");
    OK(xrt_free(d));
    FAILS(xrt_stream_create(&s), XRT_ERROR_UNSUPPORTED, "not supported by backend good");

    /* a priority list: an unavailable plugin backend is passed over */
    set_env("XRT_TRACE_BACKEND", "nosuch");
    OK(restart(GOOD ":" TRACE, "trace, good, cpu"));
    assert_string_equal(current_backend(), "good");
    OK(restart(GOOD, "GOOD"));
    assert_string_equal(current_backend(), "good");

    /* xrt_set_backend, and the listing (what xrt_info prints) */
    OK(restart(GOOD, NULL));
    assert_string_equal(current_backend(), first_available());
    OK(xrt_set_backend("good"));
    assert_string_equal(current_backend(), "good");
    assert_true(backend_index("good", &info) > backend_index("cpu", NULL));
    assert_int_equal(info.available, 1);
    assert_string_equal(info.reason, "");
    assert_int_equal(info.abi_version, XRT_BACKEND_ABI_VERSION);
    FAILS(xrt_set_backend("badabi"), XRT_ERROR_NOT_FOUND, "unknown backend 'badabi'");
    set_env("XRT_TRACE_BACKEND", "cpu");
}

/* >> the tracer */
/* A fresh, empty file for the trace; its name in `path`. */
static void trace_to_temp_file(char *path, size_t n)
{
    int fd;
    snprintf(path, n, "/tmp/xrt-trace-XXXXXX");
    fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    set_env("XRT_TRACE_FILE", path);
}

static char *read_file(const char *path)
{
    static char text[65536];
    FILE *f = fopen(path, "r");
    size_t n;
    assert_non_null(f);
    n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    return text;
}

/* The line of the trace that starts with `start` (NULL if none); checks
   that it ends in "-> <status> <duration> us". */
static const char *trace_line(const char *text, const char *start, const char *status)
{
    const char *p;
    char line[512], want[128];
    regex_t re;
    for (p = text; (p = strstr(p, start)) != NULL; p++)
        if (p == text || p[-1] == '\n') break;
    if (!p) fail_msg("no trace line starts with \"%s\" in:\n%s", start, text);
    snprintf(line, sizeof line, "%.*s", (int)strcspn(p, "\n"), p);
    snprintf(want, sizeof want, "^trace: [a-z_]+\\(.*\\) -> %s [0-9]+\\.[0-9] us$", status);
    assert_int_equal(regcomp(&re, want, REG_EXTENDED | REG_NOSUB), 0);
    if (regexec(&re, line, 0, NULL, 0) != 0) fail_msg("\"%s\" does not match \"%s\"", line, want);
    regfree(&re);
    return p;
}

static void test_trace_lines(void **state)
{
    static unsigned char h[4096];
    unsigned char plain[64] = {0};
    char path[64], start[256];
    const char *text;
    xrt_stream s;
    void *d, *native = NULL;
    int calls = 0;
    (void)state;
    trace_to_temp_file(path, sizeof path);
    set_env("XRT_TRACE_BACKEND", "cpu");
    set_env("XRT_TRACE_LOOKUPS", "1");
    OK(restart(TRACE, "trace"));
    assert_string_equal(current_backend(), "trace");
    OK(xrt_malloc(&d, sizeof h));
    OK(xrt_stream_create(&s));
    OK(xrt_memcpy_async(d, h, sizeof h, XRT_MEMCPY_HOST_TO_DEVICE, s));
    OK(xrt_launch_host_func(s, count_up, &calls));
    OK(xrt_stream_synchronize(s));
    assert_int_equal(calls, 1);
    OK(xrt_stream_query(s));
    OK(xrt_stream_destroy(s));
    FAILS(xrt_memcpy(d, h, sizeof h + 1, XRT_MEMCPY_HOST_TO_DEVICE), XRT_ERROR_INVALID_VALUE, "overrun");
    OK(xrt_memcpy(d, plain, sizeof plain, XRT_MEMCPY_DEFAULT)); /* xrt looks `plain` up: the tracer answers */
    OK(xrt_free(d));
    FAILS(xrt_set_device(7), XRT_ERROR_INVALID_DEVICE, "device");
    FAILS(xrt_stream_get_native(NULL, &native), XRT_ERROR_UNSUPPORTED, "not supported by backend trace");
    assert_non_null(strstr(xrt_get_last_error_string(), "(target: xrt_stream_get_native: not supported by backend cpu)"));
    xrt_shutdown(); /* closes the file */

    text = read_file(path);
    trace_line(text, "trace: init(target=cpu)", "success");
    snprintf(start, sizeof start, "trace: malloc(size=4096, *ptr=%p)", d);
    trace_line(text, start, "success");
    snprintf(start, sizeof start, "trace: memcpy_async(dst=%p, src=%p, size=4096, kind=host-to-device, stream=0x", d, (void *)h);
    trace_line(text, start, "success");
    snprintf(start, sizeof start, "trace: host_fn(fn=0x");
    trace_line(text, start, "success");
    /* free and stream_query: lines of the generated forwarder, its arguments as passed */
    snprintf(start, sizeof start, "trace: free(ptr=%p)", d);
    trace_line(text, start, "success");
    trace_line(text, "trace: stream_query(stream=0x", "success");
    trace_line(text, "trace: set_device(device=7)", "invalid device");
    /* rejected by xrt before the tracer is called: seen through the host's error observer */
    snprintf(start, sizeof start, "trace: rejected: xrt_memcpy: 4097 bytes at dst %p overrun its allocation (4096 bytes at %p) -> invalid value\n",
             d, d);
    if (!strstr(text, start)) fail_msg("no line \"%s\" in:\n%s", start, text);
    /* xrt's lookup of `plain` (XRT_TRACE_LOOKUPS=1): an answer, not a failure */
    snprintf(start, sizeof start, "trace: pointer lookup(ptr=%p) -> unknown to cpu ", (void *)plain);
    if (!strstr(text, start)) fail_msg("no line starts \"%s\" in:\n%s", start, text);
    snprintf(start, sizeof start, "trace: memcpy(dst=%p, src=%p, size=64, kind=host-to-device)", d, (void *)plain);
    trace_line(text, start, "success");
    assert_null(strstr(text, "pointer_get_attributes"));
    trace_line(text, "trace: stream_get_native(stream=(nil), *native=(nil))", "operation not supported by this backend");
    trace_line(text, "trace: shutdown(target=cpu)", "success");
    remove(path);
    set_env("XRT_TRACE_FILE", "/dev/null");
    set_env("XRT_TRACE_LOOKUPS", "");
}

/* XRT_TRACE_LOOKUPS is a switch as every other (1, on, yes, true, in any
   case, or 0, off, no, false); anything else is ignored with one warning,
   and xrt's own lookups stay out of the trace. */
static void test_trace_lookups_switch(void **state)
{
    static const struct { const char *value; int on, warns; } cases[] = {
        {"1", 1, 0}, {"on", 1, 0}, {"YES", 1, 0}, {"true", 1, 0}, {"0", 0, 0},
        {"off", 0, 0}, {"no", 0, 0}, {"10", 0, 1}, {"1x", 0, 1}, {"", 0, 0}};
    unsigned char plain[64] = {0};
    char path[64], want[128];
    size_t i;
    void *d;
    (void)state;
    set_env("XRT_TRACE_BACKEND", "cpu");
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        trace_to_temp_file(path, sizeof path);
        set_env("XRT_TRACE_LOOKUPS", cases[i].value);
        memset(&logged, 0, sizeof logged);
        OK(restart(TRACE, "trace"));
        OK(xrt_malloc(&d, sizeof plain));
        OK(xrt_memcpy(d, plain, sizeof plain, XRT_MEMCPY_DEFAULT)); /* xrt looks `plain` up */
        OK(xrt_free(d));
        xrt_shutdown();
        if ((strstr(read_file(path), "trace: pointer lookup(") != NULL) != cases[i].on)
            fail_msg("XRT_TRACE_LOOKUPS=%s: lookups are %s", cases[i].value, cases[i].on ? "off" : "on");
        remove(path);
        snprintf(want, sizeof want, "warn: XRT_TRACE_LOOKUPS=%s: not a switch (valid: 1, on, yes, true, 0, off, no, false); ignored\n",
                 cases[i].value);
        if ((strstr(logged.text, want) != NULL) != cases[i].warns)
            fail_msg("XRT_TRACE_LOOKUPS=%s: %s \"%s\" in:\n%s", cases[i].value, cases[i].warns ? "no" : "a", want, logged.text);
    }
    set_env("XRT_TRACE_FILE", "/dev/null");
    set_env("XRT_TRACE_LOOKUPS", "");
}

/* Handles and allocations made through the tracer are the tracer's; those
   made on its target are the target's; neither is usable with the other. */
static void test_trace_handle_rule(void **state)
{
    xrt_pointer_attributes a;
    unsigned char h[64];
    xrt_stream sc, st;
    xrt_event ec, et;
    void *pc, *pt;
    (void)state;
    set_env("XRT_TRACE_BACKEND", "cpu");
    OK(restart(TRACE, "cpu"));
    OK(xrt_stream_create(&sc));
    OK(xrt_event_create(&ec, 0));
    OK(xrt_malloc(&pc, sizeof h));
    OK(xrt_set_backend("trace"));
    OK(xrt_stream_create(&st));
    OK(xrt_event_create(&et, 0));
    OK(xrt_malloc(&pt, sizeof h));
    OK(xrt_pointer_get_attributes(&a, pt));
    assert_string_equal(a.backend, "trace");

    FAILS(xrt_stream_synchronize(sc), XRT_ERROR_INVALID_HANDLE, "belongs to backend cpu, not trace");
    FAILS(xrt_event_record(ec, st), XRT_ERROR_INVALID_HANDLE, "belongs to backend cpu, not trace");
    FAILS(xrt_memcpy(h, pc, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST), XRT_ERROR_INVALID_POINTER,
          "belongs to backend cpu, not trace");
    FAILS(xrt_free(pc), XRT_ERROR_INVALID_POINTER, "belongs to another backend");
    assert_stream_works(st, 0x51);
    OK(xrt_event_record(et, st));
    OK(xrt_event_synchronize(et));

    OK(xrt_set_backend("cpu"));
    FAILS(xrt_stream_synchronize(st), XRT_ERROR_INVALID_HANDLE, "belongs to backend trace, not cpu");
    FAILS(xrt_stream_wait_event(sc, et), XRT_ERROR_INVALID_HANDLE, "belongs to backend trace, not cpu");
    FAILS(xrt_memset(pt, 0, sizeof h), XRT_ERROR_INVALID_POINTER, "belongs to backend trace, not cpu");
    FAILS(xrt_free(pt), XRT_ERROR_INVALID_POINTER, "belongs to another backend");
    assert_stream_works(sc, 0x52);
    OK(xrt_event_destroy(ec));
    OK(xrt_stream_destroy(sc));
    OK(xrt_free(pc));

    OK(xrt_set_backend("trace"));
    OK(xrt_event_destroy(et));
    OK(xrt_stream_destroy(st));
    OK(xrt_free(pt));
}

/* A host function launched through the tracer (on cpu, which lets host
   functions call xrt) dispatches to the tracer: the tracer's handles and
   memory are valid there, and calls that wait are refused as everywhere. */
typedef struct host_calls {
    xrt_stream s;
    void *d;
    const char *backend;
    xrt_status set, sync;
} host_calls;

static void call_from_host_fn(void *user)
{
    host_calls *c = (host_calls *)user;
    xrt_get_backend(&c->backend);
    c->set = xrt_memset_async(c->d, 0x5c, 64, c->s);
    c->sync = xrt_stream_synchronize(c->s);
}

static void test_trace_host_fn_calls(void **state)
{
    unsigned char h[64];
    host_calls c;
    (void)state;
    memset(&c, 0, sizeof c);
    set_env("XRT_TRACE_BACKEND", "cpu");
    OK(restart(TRACE, "trace"));
    OK(xrt_stream_create(&c.s));
    OK(xrt_malloc(&c.d, sizeof h));
    OK(xrt_memset(c.d, 0, sizeof h));
    OK(xrt_launch_host_func(c.s, call_from_host_fn, &c));
    OK(xrt_stream_synchronize(c.s)); /* the host function has run ... */
    OK(xrt_stream_synchronize(c.s)); /* ... and what it enqueued too */
    assert_non_null(c.backend);
    assert_string_equal(c.backend, "trace");
    assert_int_equal(c.set, XRT_SUCCESS);
    assert_int_equal(c.sync, XRT_ERROR_NOT_PERMITTED);
    OK(xrt_memcpy(h, c.d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_bytes(h, sizeof h, 0x5c);
    OK(xrt_free(c.d));
    OK(xrt_stream_destroy(c.s));
}

/* The tracer is not fork-safe (its target is not known when it registers):
   a forked child is refused it, and can still use cpu directly. */
static void test_trace_fork(void **state)
{
    int status = -1;
    pid_t pid;
    (void)state;
    set_env("XRT_TRACE_BACKEND", "cpu");
    OK(restart(TRACE, "trace"));
    assert_string_equal(current_backend(), "trace");
    fflush(NULL);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        void *d = NULL;
        int bad = 0;
        xrt_set_log_callback(NULL, NULL);
        xrt_set_log_level(XRT_LOG_NONE);
        bad |= xrt_malloc(&d, 64) != XRT_ERROR_NOT_PERMITTED;
        bad |= (!strstr(xrt_get_last_error_string(), "forked child: trace cannot be used after fork()")) << 1;
        bad |= (xrt_set_backend("trace") != XRT_ERROR_NOT_PERMITTED) << 2;
        bad |= (xrt_set_backend("cpu") != XRT_SUCCESS) << 3;
        bad |= (xrt_malloc(&d, 64) != XRT_SUCCESS || xrt_memset(d, 1, 64) != XRT_SUCCESS || xrt_free(d) != XRT_SUCCESS) << 4;
        child_exit(bad);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_stream_works(NULL, 0x53); /* the parent still traces */
}

static void assert_trace_unavailable(const char *why)
{
    xrt_backend_info info;
    assert_true(backend_index("trace", &info) >= 0);
    assert_int_equal(info.available, 0);
    if (!strstr(info.reason, why)) fail_msg("reason \"%s\", expected \"%s\"", info.reason, why);
    FAILS(xrt_set_backend("trace"), XRT_ERROR_BACKEND_UNAVAILABLE, why);
}

/* XRT_TRACE_BACKEND: unknown, the tracer itself, another plugin's backend,
   unset (the first available of cuda, hip, cpu); read again at every init.
   XRT_TRACE_FILE that cannot be opened. */
static void test_trace_targets(void **state)
{
    static const char *const order[] = {"cuda", "hip", "cpu"};
    xrt_backend_info info;
    char path[64], start[64], id[XRT_PCI_BUS_ID_SIZE];
    xrt_stream s;
    size_t i;
    int device = -1;
    (void)state;
    set_env("XRT_TRACE_BACKEND", "nosuch");
    OK(restart(TRACE, NULL));
    assert_trace_unavailable("XRT_TRACE_BACKEND=nosuch: no such backend, or it is unavailable");
    set_env("XRT_TRACE_BACKEND", "TRACE");
    OK(restart(TRACE, NULL));
    assert_trace_unavailable("XRT_TRACE_BACKEND=TRACE: the tracer cannot trace itself");
    set_env("XRT_TRACE_BACKEND", "cpu");
    set_env("XRT_TRACE_FILE", "/nonexistent/trace.log");
    OK(restart(TRACE, NULL));
    assert_trace_unavailable("XRT_TRACE_FILE=/nonexistent/trace.log: No such file or directory");
    set_env("XRT_TRACE_FILE", "/dev/null");
    set_env("XRT_TRACE_JSON", "/nonexistent/trace.json");
    OK(restart(TRACE, NULL));
    assert_trace_unavailable("XRT_TRACE_JSON=/nonexistent/trace.json: No such file or directory");
    set_env("XRT_TRACE_JSON", "");

    /* re-resolved at every init: cpu, then good (no capabilities, no streams);
       its memory is its target's (host->wraps): over the cpu, host memory */
    OK(restart(TRACE ":" GOOD, "trace"));
    assert_true(caps() & XRT_CAP_HOST_FUNC);
    FAILS(xrt_device_get_pci_bus_id(id, (int)sizeof id, 0), XRT_ERROR_UNSUPPORTED,
          "trace: its devices are host memory and cores: no PCI address");
    FAILS(xrt_device_get_by_pci_bus_id(&device, "0000:00:00.0"), XRT_ERROR_INVALID_DEVICE, "no device of trace");
    set_env("XRT_TRACE_BACKEND", "good");
    OK(restart(TRACE ":" GOOD, "trace"));
    assert_int_equal(caps(), 0);
    assert_memory_works(0x54); /* good's synchronous copies and sets, traced */
    FAILS(xrt_device_get_pci_bus_id(id, (int)sizeof id, 0), XRT_ERROR_UNSUPPORTED,
          "not supported by backend trace"); /* good says nothing of its memory: the cpu's is not kept */
    FAILS(xrt_stream_create(&s), XRT_ERROR_UNSUPPORTED, "not supported by backend trace");

    /* unset: the first available of cuda, hip, cpu */
    set_env("XRT_TRACE_BACKEND", NULL);
    trace_to_temp_file(path, sizeof path);
    OK(restart(TRACE, "trace"));
    for (i = 0; i < sizeof order / sizeof order[0]; i++)
        if (backend_index(order[i], &info) >= 0 && info.available) break;
    assert_true(i < sizeof order / sizeof order[0]);
    xrt_shutdown();
    snprintf(start, sizeof start, "trace: init(target=%s)", order[i]);
    trace_line(read_file(path), start, "success");
    remove(path);
    set_env("XRT_TRACE_FILE", "/dev/null");
    set_env("XRT_TRACE_BACKEND", "cpu");
}

/* >> the tracer's marks of the stream-order checker's races */
static void quiet_report(void *user, const char *report) { (void)user, (void)report; }

/* The name of the call span whose sequence number is seq, in `name`. */
static const char *call_named(const char *text, unsigned long long seq, char *name, size_t n)
{
    char key[48];
    const char *at, *line, *q;
    snprintf(key, sizeof key, "\"seq\":%llu}}", seq);
    if (!(at = strstr(text, key))) fail_msg("no call span with seq %llu", seq);
    for (line = at; line > text && line[-1] != '\n'; line--) continue;
    q = strstr(line, "\"name\":\"");
    assert_true(q && q < at);
    q += 8;
    snprintf(name, n, "%.*s", (int)strcspn(q, "\""), q);
    return name;
}

/* The call that race `race`'s instants name as its `op` ("earlier" or
   "later"): two instants (its call's thread track and its stream's), one call. */
static unsigned long long race_call(const char *text, int race, const char *op)
{
    char head[64], want[64];
    const char *p = text;
    unsigned long long call = 0, c;
    int n = 0;
    snprintf(head, sizeof head, "\"cat\":\"race\",\"name\":\"race %d\"", race);
    snprintf(want, sizeof want, "\"operation\":\"%s\",\"call\":", op);
    for (; (p = strstr(p, head)) != NULL; p += strlen(head)) {
        const char *eol = strchr(p, '\n'), *o = strstr(p, want);
        if (!o || (eol && o > eol)) continue; /* a flow event, or another operation's instant */
        c = strtoull(o + strlen(want), NULL, 10);
        if (n++ && c != call) fail_msg("race %d's %s operation is marked as calls %llu and %llu", race, op, call, c);
        call = c;
    }
    if (n != 2) fail_msg("race %d's %s operation has %d marks, expected 2", race, op, n);
    return call;
}

/* The racy work of test_trace_races (with_event 0) or the same in order. */
static void race_work(int with_event)
{
    static unsigned char h[4096];
    xrt_stream s1, s2;
    xrt_event e;
    void *d;
    OK(xrt_stream_create(&s1));
    OK(xrt_stream_create_with_flags(&s2, XRT_STREAM_NON_BLOCKING));
    OK(xrt_event_create(&e, XRT_EVENT_DEFAULT));
    OK(xrt_malloc(&d, sizeof h));
    OK(xrt_memcpy_async(d, h, sizeof h, XRT_MEMCPY_HOST_TO_DEVICE, s1));
    if (with_event) {
        OK(xrt_event_record(e, s1));
        OK(xrt_stream_wait_event(s2, e));
    }
    OK(xrt_memset_async(d, 0, sizeof h, s2)); /* s1's copy: race 1 without the event */
    if (with_event) OK(xrt_stream_synchronize(s2));
    OK(xrt_memcpy(h, d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST)); /* s2 does not block: race 2 without the sync */
    OK(xrt_device_synchronize());
    OK(xrt_free(d));
    OK(xrt_event_destroy(e));
    OK(xrt_stream_destroy(s1));
    OK(xrt_stream_destroy(s2));
}

/* "%p" in XRT_TRACE_JSON and XRT_TRACE_FILE is the process id and "%%" a
   '%' (a program that runs others, each traced, gets a file per process); a
   name over the limit leaves the tracer unavailable, saying why. */
static void test_trace_file_names(void **state)
{
    static char huge[5000];
    char dir[] = "/tmp/xrt-trace-XXXXXX", name[96], json[96], lines[96];
    void *d;
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(name, sizeof name, "%s/t-%%p-%%%%.json", dir);
    set_env("XRT_TRACE_JSON", name);
    snprintf(name, sizeof name, "%s/t-%%p.log", dir);
    set_env("XRT_TRACE_FILE", name);
    OK(restart(TRACE, "trace"));
    OK(xrt_malloc(&d, 64));
    OK(xrt_free(d));
    xrt_shutdown();
    snprintf(json, sizeof json, "%s/t-%ld-%%.json", dir, (long)getpid());
    snprintf(lines, sizeof lines, "%s/t-%ld.log", dir, (long)getpid());
    assert_non_null(strstr(read_file(json), "\"traceEvents\""));
    assert_non_null(strstr(read_file(lines), "trace: malloc("));
    assert_int_equal(remove(json), 0);
    assert_int_equal(remove(lines), 0);
    assert_int_equal(rmdir(dir), 0); /* no other file */

    memset(huge, 'a', sizeof huge - 1);
    set_env("XRT_TRACE_FILE", NULL);
    set_env("XRT_TRACE_JSON", huge);
    OK(restart(TRACE, NULL));
    assert_trace_unavailable("the file name is over 4095 bytes");
    set_env("XRT_TRACE_JSON", NULL);
}

/* XRT_CHECK=streams under the tracer, with a timeline: each report's two
   operations are marked (an instant on the call's thread track and on its
   stream's, named by their calls' seq), a synchronous copy's (checked before
   its call) included; the same work in order gets no mark. */
static void test_trace_races(void **state)
{
    char path[64], name[64];
    const char *text;
    int fd, with_event;
    unsigned long long copy, set;
    (void)state;
    for (with_event = 0; with_event < 2; with_event++) {
        snprintf(path, sizeof path, "/tmp/xrt-trace-XXXXXX");
        assert_true((fd = mkstemp(path)) >= 0);
        close(fd);
        set_env("XRT_TRACE_JSON", path);
        OK(restart(TRACE, "trace"));
        OK(xrt_check_set_report_callback(quiet_report, NULL));
        OK(xrt_check_enable(XRT_CHECK_STREAMS));
        race_work(with_event);
        OK(xrt_check_enable(XRT_CHECK_OFF));
        OK(xrt_check_set_report_callback(NULL, NULL));
        xrt_shutdown();
        text = read_file(path);
        remove(path);
        if (with_event) {
            if (strstr(text, "\"cat\":\"race\"")) fail_msg("a race is marked in work that has none:\n%s", text);
            continue;
        }
        copy = race_call(text, 1, "earlier");
        set = race_call(text, 1, "later");
        assert_string_equal(call_named(text, copy, name, sizeof name), "memcpy_async");
        assert_string_equal(call_named(text, set, name, sizeof name), "memset_async");
        assert_true(race_call(text, 2, "earlier") == set);
        assert_string_equal(call_named(text, race_call(text, 2, "later"), name, sizeof name), "memcpy");
        assert_null(strstr(text, "\"name\":\"race 3\""));
    }
    set_env("XRT_TRACE_JSON", NULL);
}

/* A plugin built against a later, larger backend table fills all of it
   before xrt can check its ABI version: xrt gives it room, skips it, and
   writes nothing past its own tables, also in the last plugin slot (ASan
   sees any write past them). In a child: the slots it fills are for good. */
static void test_later_larger_table(void **state)
{
    char why[256];
    pid_t pid;
    (void)state;
    pid = child_fork(20);
    if (pid == 0) {
        xrt_plugin_info info;
        char path[64];
        int n = 0, i;
        xrt_set_log_level(XRT_LOG_NONE);
        CHILD_OK(xrt_plugin_count(&n));
        for (i = n; i < 15; i++) { /* every slot but the last, with plugins that are not there */
            snprintf(path, sizeof path, "/nonexistent/xrt-plugin-%d.so", i);
            CHILD_EXPECT(xrt_load_plugin(path), XRT_ERROR_BACKEND_UNAVAILABLE);
        }
        CHILD_EXPECT(xrt_load_plugin(PLUGIN("test_bigtable.so")), XRT_ERROR_BACKEND_UNAVAILABLE);
        CHILD_TRUE(strstr(xrt_get_last_error_string(), "bigtable: ABI version") != NULL);
        CHILD_OK(xrt_plugin_count(&n));
        CHILD_TRUE(n == 16);
        CHILD_OK(xrt_plugin_get_info(15, &info));
        CHILD_TRUE(!info.loaded && strstr(info.reason, "ABI version") != NULL);
        CHILD_OK(xrt_plugin_get_info(14, &info));
        CHILD_TRUE(strcmp(info.path, "/nonexistent/xrt-plugin-14.so") == 0 && strstr(info.reason, "cannot load"));
        assert_memory_works_in_child();
        xrt_shutdown();
        child_exit(0);
    }
    if (child_status(pid, 20, why, sizeof why)) fail_msg("a plugin with a larger table: %s", why);
}

/* A plugin whose get_capabilities reports operations its table lacks:
   only the bits whose operations it has are reported, with one warning
   that names what was cleared. In a child: a plugin is never unloaded. */
static void no_op(void *user) { (void)user; }

static void test_capabilities_checked_against_table(void **state)
{
    char why[256];
    pid_t pid;
    (void)state;
    pid = child_fork(20);
    if (pid == 0) {
        static const char want[] = "boasts: get_capabilities reports operations the backend does not have: "
                                   "malloc_async host_func event_timing native_handles modules graphs (cleared)";
        unsigned caps = 0;
        void *p = NULL;
        int i;
        CHILD_OK(xrt_load_plugin(PLUGIN("test_boasts.so")));
        CHILD_OK(xrt_set_backend("boasts"));
        xrt_test_log_calls();
        for (i = 0; i < 2; i++) {
            CHILD_OK(xrt_get_capabilities(&caps));
            if (caps != XRT_CAP_PINNED_HOST) CHILD_FAIL("capabilities 0x%x, not 0x%x", caps, (unsigned)XRT_CAP_PINNED_HOST);
        }
        if (xrt_test_log.count != 1 || xrt_test_log.level != XRT_LOG_WARN || strcmp(xrt_test_log.last, want) != 0)
            CHILD_FAIL("%d log lines, the last \"%s\", not one \"%s\"", xrt_test_log.count, xrt_test_log.last, want);
        CHILD_OK(xrt_malloc_host(&p, 64)); /* what it has still works */
        CHILD_OK(xrt_free_host(p));
        CHILD_EXPECT(xrt_launch_host_func(NULL, no_op, NULL), XRT_ERROR_UNSUPPORTED); /* nor what it lacks */
        xrt_shutdown();
        child_exit(0);
    }
    if (child_status(pid, 20, why, sizeof why)) fail_msg("a plugin that reports capabilities it lacks: %s", why);
}

/* >> programs with elevated privileges */
/* A copy of this program with the setuid bit, run by another user, runs in
   secure mode (AT_SECURE): XRT_PLUGINS and XRT_*_LIBRARY are ignored there
   and xrt_load_plugin refuses a relative path. The copy, run as it is (root,
   no AT_SECURE), loads them: the control. The copy runs secure_child. */
static int secure_child(const char *mode)
{
    int want = mode[0] == '1', secure = getauxval(AT_SECURE) != 0, n = -1;
    char abs[PATH_MAX];
    xrt_set_log_level(XRT_LOG_NONE);
    if (secure != want) return fprintf(stderr, "secure child: AT_SECURE is %d, expected %d\n", secure, want), 2;
    if (xrt_plugin_count(&n) != XRT_SUCCESS) return 3;
    if (n != (want ? 0 : 1))
        return fprintf(stderr, "secure child: XRT_PLUGINS loaded %d plugins with AT_SECURE %d\n", n, secure), 4;
#ifdef XRT_ENABLE_CUDA
    {
        xrt_backend_info info;
        int i = backend_index("cuda", &info);
        int named = i >= 0 && strstr(info.reason, "XRT_CUDA_LIBRARY=") != NULL;
        if (named == want)
            return fprintf(stderr, "secure child: cuda: \"%s\" with AT_SECURE %d\n", info.reason, secure), 5;
    }
#endif
    if (want) {
        if (xrt_load_plugin(GOOD) != XRT_ERROR_NOT_PERMITTED ||
            !strstr(xrt_get_last_error_string(), "relative path in a program with elevated privileges"))
            return fprintf(stderr, "secure child: xrt_load_plugin(%s): %s\n", GOOD, xrt_get_last_error_string()), 6;
        if (!realpath(GOOD, abs) || xrt_load_plugin(abs) != XRT_SUCCESS)
            return fprintf(stderr, "secure child: xrt_load_plugin(%s): %s\n", abs, xrt_get_last_error_string()), 7;
    }
    { /* C source needs a compiler the environment (PATH, XRT_CC) chooses: never run with privileges */
        static const char src[] = "void k(const void *c, void *a) { (void)c; (void)a; }\n";
        xrt_module_image im = {XRT_IMAGE_CPU_C_SOURCE, src, sizeof src - 1, NULL};
        xrt_module m = NULL;
        xrt_status st;
        setenv("XRT_CACHE", "0", 1);
        if (xrt_set_backend("cpu") != XRT_SUCCESS) return 8;
        st = xrt_module_load(&m, &im, 1, NULL);
        if (want ? st != XRT_ERROR_NOT_PERMITTED || !strstr(xrt_get_last_error_string(), "elevated privileges")
                 : st != XRT_SUCCESS)
            return fprintf(stderr, "secure child: xrt_module_load of C source: %s\n", xrt_get_last_error_string()), 9;
        if (m) xrt_module_unload(m);
    }
    xrt_shutdown();
    return 0;
}

/* Runs `prog` with XRT_TEST_SECURE_CHILD=mode, through setpriv as uid/gid
   65534 when `as_nobody`; returns its exit status, or -1. */
static int run_copy(const char *prog, const char *mode, int as_nobody)
{
    int status = 0;
    pid_t pid;
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        setenv("XRT_TEST_SECURE_CHILD", mode, 1);
        setenv("XRT_PLUGINS", GOOD, 1);
        setenv("XRT_CUDA_LIBRARY", "/nonexistent/libcudart.so.13", 1);
        unsetenv("LD_PRELOAD"); /* valgrind's, if any: the copy runs on its own */
        if (as_nobody)
            execl("/usr/bin/setpriv", "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", prog, (char *)NULL);
        else
            execl(prog, prog, (char *)NULL);
        _exit(127);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
}

static void test_setuid_program_ignores_code_from_environment(void **state)
{
    char dir[] = "/tmp/xrt-setuid-XXXXXX", prog[sizeof dir + 16], self[PATH_MAX];
    int in, out, rc_secure, rc_plain;
    char buf[65536];
    ssize_t got;
    (void)state;
    /* tests/run.sh names this case next to its summary when it is skipped */
    SKIP_UNLESS(getuid() == 0, "setuid plugin case: not root: cannot make a setuid copy owned by root");
    SKIP_UNLESS(access("/usr/bin/setpriv", X_OK) == 0,
                "setuid plugin case: no setpriv (util-linux) to run the copy as another user");
    assert_non_null(realpath(program_invocation_name, self)); /* not /proc/self/exe: that is valgrind under valgrind */
    assert_non_null(mkdtemp(dir));
    snprintf(prog, sizeof prog, "%s/prog", dir);
    in = open(self, O_RDONLY);
    out = open(prog, O_WRONLY | O_CREAT | O_TRUNC, 0755);
    assert_true(in >= 0 && out >= 0);
    while ((got = read(in, buf, sizeof buf)) > 0) assert_int_equal(write(out, buf, (size_t)got), got);
    close(in);
    close(out);
    assert_int_equal(chmod(dir, 0755), 0);
    assert_int_equal(chmod(prog, 04755), 0);
    rc_plain = run_copy(prog, "0", 0);
    rc_secure = run_copy(prog, "1", 1);
    unlink(prog);
    rmdir(dir);
    assert_int_equal(rc_plain, 0);
    SKIP_UNLESS(rc_secure != 2, "setuid plugin case: /tmp ignores setuid (nosuid): the copy did not run with AT_SECURE");
    assert_int_equal(rc_secure, 0);
}

/* >> the public forwarding macro (XRT_DEFINE_FORWARDERS, tests/plugins/forward.c) */
/* Every operation reaches the target, get_target (a parameter named
   `target`) included; the ones the wrapper replaced are its own. The
   device xrt asks for a new allocation is xrt's own question
   (host->own_call); xrt_get_target's and xrt_get_device's are the
   program's. */
static void test_forwarding_macro(void **state)
{
    xrt_device_prop prop;
    xrt_target t;
    xrt_stream s = NULL;
    unsigned char h[64];
    char id[XRT_PCI_BUS_ID_SIZE];
    void *d = NULL;
    const char *name = NULL;
    int dev = -1, mallocs = 0, asked = 0, own = 0;
    (void)state;
    OK(restart(NULL, NULL));
    OK(xrt_load_plugin(PLUGIN("test_forward.so")));
    OK(xrt_set_backend("forward"));
    OK(xrt_get_backend(&name));
    assert_string_equal(name, "forward");
    OK(xrt_get_target(&t));
    assert_string_equal(t.backend, "cpu"); /* the backend that runs the code, behind the forwarder */
    assert_true(strcmp(t.arch, "x86_64") == 0 || strcmp(t.arch, "aarch64") == 0); /* the cpu's answer */
    OK(xrt_malloc(&d, sizeof h));
    OK(xrt_stream_create(&s));
    OK(xrt_memset_async(d, 0x4f, sizeof h, s));
    OK(xrt_memcpy_async(h, d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST, s));
    OK(xrt_stream_synchronize(s));
    assert_bytes(h, sizeof h, 0x4f);
    OK(xrt_stream_destroy(s));
    OK(xrt_free(d));
    OK(xrt_get_device(&dev));
    /* its memory is the cpu's (host->wraps): no PCI address, as on the cpu */
    FAILS(xrt_device_get_pci_bus_id(id, (int)sizeof id, 0), XRT_ERROR_UNSUPPORTED,
          "forward: its devices are host memory and cores");
    OK(xrt_get_device_properties(&prop, 0));
    /* the program's 2 exactly; xrt's own at least the allocation's (the
       stream-order checker, when on, asks more) */
    assert_int_equal(sscanf(prop.name, "forward: %d mallocs, get_device %d own %d", &mallocs, &asked, &own), 3);
    assert_int_equal(mallocs, 1);
    assert_int_equal(asked, 2);
    assert_true(own >= 1);
    OK(xrt_set_backend("cpu"));
}

/* A plugin built before the four operations of flags were appended (its
   table's size ends before graph_instantiate_with_flags): those answer
   XRT_ERROR_UNSUPPORTED naming it, never a call of what lies past its size;
   their default flags are the operations it has (instantiate, record, wait),
   as cudaEventRecordWithFlags(.., cudaEventRecordDefault) is cudaEventRecord. */
static void test_older_table_lacks_later_operations(void **state)
{
    xrt_stream s = NULL;
    xrt_event e = NULL;
    xrt_graph g = NULL;
    xrt_graph_exec x = NULL;
    void *d = NULL;
    size_t limit = 0;
    int rank = 0;
    xrt_mem_pool pool = NULL;
    xrt_mem_access_desc desc = {0, XRT_MEM_ACCESS_FLAGS_PROT_READ_WRITE};
    unsigned access = 0;
    (void)state;
    OK(restart(NULL, NULL));
    OK(xrt_load_plugin(PLUGIN("test_oldtable.so")));
    OK(xrt_set_backend("oldtable"));
    OK(xrt_malloc(&d, 64));
    OK(xrt_stream_create(&s));
    OK(xrt_event_create(&e, XRT_EVENT_DEFAULT));
    OK(xrt_event_record_with_flags(e, s, XRT_EVENT_RECORD_DEFAULT));
    OK(xrt_stream_wait_event_with_flags(s, e, XRT_EVENT_WAIT_DEFAULT));
    OK(xrt_stream_begin_capture(s, XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_memset_async(d, 1, 64, s));
    FAILS(xrt_event_record_with_flags(e, s, XRT_EVENT_RECORD_EXTERNAL), XRT_ERROR_UNSUPPORTED,
          "xrt_event_record_with_flags: not supported by backend oldtable");
    FAILS(xrt_stream_wait_event_with_flags(s, e, XRT_EVENT_WAIT_EXTERNAL), XRT_ERROR_UNSUPPORTED,
          "xrt_stream_wait_event_with_flags: not supported by backend oldtable");
    OK(xrt_stream_end_capture(s, &g));
    FAILS(xrt_graph_instantiate_with_flags(&x, g, XRT_GRAPH_INSTANTIATE_USE_NODE_PRIORITY), XRT_ERROR_UNSUPPORTED,
          "xrt_graph_instantiate_with_flags: not supported by backend oldtable");
    OK(xrt_graph_instantiate_with_flags(&x, g, 0));
    FAILS(xrt_graph_upload(x, s), XRT_ERROR_UNSUPPORTED, "xrt_graph_upload: not supported by backend oldtable");
    FAILS(xrt_device_set_limit(XRT_LIMIT_STACK_SIZE, 4096), XRT_ERROR_UNSUPPORTED,
          "xrt_device_set_limit: not supported by backend oldtable");
    FAILS(xrt_device_get_limit(&limit, XRT_LIMIT_STACK_SIZE), XRT_ERROR_UNSUPPORTED,
          "xrt_device_get_limit: not supported by backend oldtable");
    FAILS(xrt_device_get_p2p_attribute(&rank, XRT_P2P_ATTR_PERFORMANCE_RANK, 0, 1), XRT_ERROR_UNSUPPORTED,
          "xrt_device_get_p2p_attribute: not supported by backend oldtable");
    OK(xrt_device_get_default_mem_pool(&pool, 0));
    FAILS(xrt_mem_pool_set_access(pool, &desc, 1), XRT_ERROR_UNSUPPORTED,
          "xrt_mem_pool_set_access: not supported by backend oldtable");
    FAILS(xrt_mem_pool_get_access(&access, pool, 0), XRT_ERROR_UNSUPPORTED,
          "xrt_mem_pool_get_access: not supported by backend oldtable");
    OK(xrt_graph_launch(x, s));
    OK(xrt_stream_synchronize(s));
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    OK(xrt_event_destroy(e));
    OK(xrt_stream_destroy(s));
    OK(xrt_free(d));
    OK(xrt_set_backend("cpu"));
}

/* Two copies of xrt in one process (two libraries that vendor it) that
   both load the tracer: its object is one (dlopen gives the same), and
   its state is one, so it serves the copy that registered it first; the
   second copy skips it with the reason, rather than having the tracer
   forward its calls to the first copy's backend, and neither copy's
   shutdown takes the tracer's target from the other (it crashed). */
static void test_trace_serves_one_copy_of_xrt(void **state)
{
    static void *copy; /* never closed: the copy's threads and handlers stay valid */
    xrt_status (*load)(const char *, char *, size_t);
    xrt_status (*round_trip)(const char *, unsigned char);
    void (*copy_shutdown)(void);
    char detail[512];
    (void)state;
    set_env("XRT_TRACE_FILE", "/dev/null");
    OK(restart(NULL, NULL));
    OK(xrt_load_plugin(TRACE));
    if (!copy) copy = dlopen(PLUGIN("test_xrtcopy.so"), RTLD_NOW | RTLD_LOCAL);
    if (!copy) fail_msg("%s", dlerror());
    *(void **)&load = dlsym(copy, "xrtcopy_load");
    *(void **)&round_trip = dlsym(copy, "xrtcopy_round_trip");
    *(void **)&copy_shutdown = dlsym(copy, "xrtcopy_shutdown");
    assert_true(load && round_trip && copy_shutdown);
    assert_int_equal(load(TRACE, detail, sizeof detail), XRT_ERROR_BACKEND_UNAVAILABLE);
    if (!strstr(detail, "failed: already exists: trace: xrt_plugin_register: the tracer serves another copy of xrt in this process"))
        fail_msg("the second copy's load: \"%s\"", detail);
    assert_int_equal(round_trip("trace", 0x21), XRT_ERROR_NOT_FOUND); /* no backend of that name there */
    OK(round_trip("cpu", 0x22));
    OK(xrt_set_backend("trace"));
    assert_memory_works(0x23);
    copy_shutdown();
    assert_memory_works(0x24);
    OK(restart(NULL, "trace")); /* this copy's init again: its tracer still */
    assert_memory_works(0x25);
    set_env("XRT_TRACE_FILE", NULL);
    xrt_shutdown(); /* the next test's fork makes no forked child of it */
}

/* host->wraps: from an init only (under the registry's lock), for a
   registered backend's table and a target. */
static void test_wraps_checks(void **state)
{
    xrt_backend other;
    xrt_status st;
    (void)state;
    OK(restart(NULL, NULL));
    memset(&other, 0, sizeof other);
    FAILS(xrt__plugin_host.wraps(&other, NULL), XRT_ERROR_INVALID_VALUE, "host->wraps: target is NULL");
    FAILS(xrt__plugin_host.wraps(&other, &other), XRT_ERROR_NOT_PERMITTED, "host->wraps: only from the plugin's init");
    xrt__lock(&xrt__reg_lock); /* as an init runs */
    st = xrt__plugin_host.wraps(&other, &other);
    xrt__unlock(&xrt__reg_lock);
    XRT_ASSERT_FAILS(st, XRT_ERROR_INVALID_VALUE, "is no registered backend's table");
}

/* >> plugins found in directories (XRT_PLUGIN_PATH) */
static void copy_file(const char *from, const char *to)
{
    char buf[65536];
    ssize_t got;
    int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(in >= 0 && out >= 0);
    while ((got = read(in, buf, sizeof buf)) > 0) assert_int_equal(write(out, buf, (size_t)got), got);
    close(in);
    close(out);
    assert_int_equal(chmod(to, 0644), 0); /* whatever the umask: trusted */
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(chmod(path, 0644), 0);
}

/* A logged line that holds all of `parts`, in that order. */
static int logged_line(const char *a, const char *b)
{
    const char *l = logged.text;
    while ((l = strstr(l, a)) != NULL) {
        const char *end = strchr(l, '\n');
        const char *hit = strstr(l, b);
        if (hit && (!end || hit < end)) return 1;
        l += strlen(a);
    }
    return 0;
}

/* Whether a whole line, made as printf makes it, was logged. */
static int logged_exactly(const char *format, ...) __attribute__((format(printf, 1, 2)));
static int logged_exactly(const char *format, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, format);
    vsnprintf(line, sizeof line, format, ap);
    va_end(ap);
    if (!strstr(logged.text, line)) fprintf(stderr, "not logged: %s", line);
    return strstr(logged.text, line) != NULL;
}

/* XRT_PLUGIN_PATH: directories in order, names sorted within one, after
   XRT_PLUGINS; an object named there too loads once; of two plugins with one
   backend name the first wins and the later one is listed and logged; an
   object without the entry point, a file that is not a shared object, other
   names, a missing directory are skipped with a debug line (or none);
   a file given as a directory, a directory others can write and an
   unreadable one are skipped with a warning; a failing plugin as today. */
static void test_plugin_path(void **state)
{
    char root[] = "/tmp/xrt-plugin-path.XXXXXX", one[64], two[64], none[64], file[64], open_dir[64], locked[64],
         env[512], p[16][128];
    xrt_plugin_info info;
    int a, b, f, n0, n1, i, np = 0, dev = -1;
    (void)state;
    assert_non_null(mkdtemp(root));
    assert_int_equal(chmod(root, 0755), 0);
    snprintf(one, sizeof one, "%s/one", root);
    snprintf(two, sizeof two, "%s/two", root);
    snprintf(none, sizeof none, "%s/none", root);
    snprintf(file, sizeof file, "%s/file.so", root);
    snprintf(open_dir, sizeof open_dir, "%s/open", root);
    snprintf(locked, sizeof locked, "%s/locked", root);
    assert_int_equal(mkdir(one, 0755), 0);
    assert_int_equal(mkdir(two, 0755), 0);
    assert_int_equal(mkdir(open_dir, 0755), 0);
    assert_int_equal(mkdir(locked, 0755), 0);
    assert_int_equal(chmod(open_dir, 0777), 0);
    write_text(file, "not a directory\n");
#define PATH_OF(dir, name) (snprintf(p[np], sizeof p[np], "%s/%s", dir, name), p[np++])
    copy_file(PLUGIN("test_twodev.so"), PATH_OF(one, "b_twodev.so"));      /* 0 */
    copy_file(PLUGIN("test_twodev.so"), PATH_OF(one, "a_twodev.so"));      /* 1 */
    copy_file(PLUGIN("test_nosym.so"), PATH_OF(one, "nosym.so"));          /* 2 */
    write_text(PATH_OF(one, "notes.so"), "not a shared object\n");         /* 3 */
    write_text(PATH_OF(one, "README"), "not a plugin's name\n");           /* 4 */
    copy_file(PLUGIN("test_twodev.so"), PATH_OF(one, ".hidden.so"));       /* 5 */
    copy_file(PLUGIN("test_fails.so"), PATH_OF(two, "fails.so.1"));        /* 6 */
    copy_file(PLUGIN("test_twodev.so"), PATH_OF(open_dir, "twodev.so"));   /* 7 */
    copy_file(PLUGIN("test_twodev.so"), PATH_OF(locked, "twodev.so"));     /* 8 */
    assert_int_equal(chmod(locked, 0), 0);
    n0 = plugins_loaded();
    /* root reads any directory: there, the locked one is left out */
    if (geteuid() != 0) snprintf(env, sizeof env, "%s:%s:%s:%s::%s:%s", none, file, open_dir, locked, one, two);
    else snprintf(env, sizeof env, "%s:%s:%s::%s:%s", none, file, open_dir, one, two);
    setenv("XRT_PLUGIN_PATH", env, 1);
    OK(restart(p[0], NULL)); /* b_twodev.so by name too: loaded once, first */
    n1 = plugins_loaded();
    assert_int_equal(n1 - n0, 3); /* b_twodev (XRT_PLUGINS), a_twodev (taken name), fails.so.1 */
    b = plugin_index(p[0], &info);
    assert_true(b >= n0);
    assert_int_equal(info.loaded, 1);
    assert_string_equal(info.backend, "twodev");
    assert_string_equal(info.origin, "XRT_PLUGINS");
    a = plugin_index(p[1], &info);
    assert_true(a > b);
    assert_string_equal(info.origin, "XRT_PLUGIN_PATH");
    assert_skipped(p[1], "a backend named twodev is registered");
    f = plugin_index(p[6], &info);
    assert_true(f > a); /* directories in order */
    assert_string_equal(info.origin, "XRT_PLUGIN_PATH");
    assert_skipped(p[6], "xrt_plugin_register failed");
    for (i = 2; i < 6; i++) assert_int_equal(plugin_index(p[i], &info), -1);
    assert_int_equal(plugin_index(p[7], &info), -1);
    assert_true(logged_line("warn: XRT_PLUGIN_PATH: ", "/file.so skipped: not a directory"));
    assert_true(logged_line("warn: XRT_PLUGIN_PATH: ", "/open skipped: owned by another user or writable by others"));
    if (geteuid() != 0)
        assert_true(logged_line("warn: XRT_PLUGIN_PATH: ", "/locked skipped: cannot read it: Permission denied"));
    /* at debug level: the missing directory, and one line for what a directory skipped */
    memset(&logged, 0, sizeof logged);
    snprintf(env, sizeof env, "%s:%s", none, one);
    setenv("XRT_PLUGIN_PATH", env, 1);
    xrt_set_log_level(XRT_LOG_DEBUG);
    OK(restart(NULL, NULL));
    assert_int_equal(plugins_loaded(), n1);
    assert_true(logged_line("debug: XRT_PLUGIN_PATH: ", "/none skipped: No such file or directory"));
    assert_true(logged_line("debug: XRT_PLUGIN_PATH: ", "/one: skipped nosym.so (no function xrt_plugin_register), "
                                                        "notes.so (not a shared object)\n"));
    assert_null(strstr(logged.text, "README"));
    assert_null(strstr(logged.text, ".hidden.so"));
    assert_int_equal(backends_named("twodev"), 1);
    OK(xrt_set_backend("twodev"));
    assert_memory_works(0x2d);
    /* a forwarder made by hand takes the cpu's memory kind too (host->wraps):
       its devices are host memory, which no PCI address finds */
    FAILS(xrt_device_get_by_pci_bus_id(&dev, "0000:01:00.0"), XRT_ERROR_INVALID_DEVICE,
          "no device of twodev at 0000:01:00.0");
    assert_int_equal(dev, -1);
    assert_int_equal(xrt__be()->flags & (XRT_BACKEND_HOST_MEMORY | XRT_BACKEND_NVIDIA_MEMORY | XRT_BACKEND_AMD_MEMORY),
                     XRT_BACKEND_HOST_MEMORY);
    /* a new start finds nothing new: each object was tried once */
    setenv("XRT_PLUGIN_PATH", one, 1);
    OK(restart(p[0], NULL));
    assert_int_equal(plugins_loaded(), n1);
    assert_int_equal(backends_named("twodev"), 1);
    unsetenv("XRT_PLUGIN_PATH");
    xrt_set_log_level(XRT_LOG_ENV);
    assert_int_equal(chmod(locked, 0755), 0);
    for (i = 0; i < np; i++) unlink(p[i]);
    unlink(file);
    rmdir(one);
    rmdir(two);
    rmdir(open_dir);
    rmdir(locked);
    assert_int_equal(rmdir(root), 0);
#undef PATH_OF
}

/* In a child: nobody when this is root (another user, or one that root's
   rights do not stand in for), else this user. */
static int become_nobody(void)
{
    return geteuid() != 0 || (setgroups(0, NULL) == 0 && setgid(65534) == 0 && setuid(65534) == 0);
}

/* As another user: replaces the file that `arg` (two paths) names first
   with a symbolic link to the second. */
static int swap_as_nobody(void *arg)
{
    char **p = (char **)arg;
    CHILD_TRUE(become_nobody());
    CHILD_TRUE(unlink(p[0]) == 0);
    CHILD_TRUE(symlink(p[1], p[0]) == 0);
    return 0;
}

/* Nothing that another user can change is loaded: a candidate that is a
   symbolic link is skipped with a warning, not followed (here into a
   directory others can write, where, as root, nobody points it at a plugin
   of root's elsewhere); so is a directory that a directory above it lets
   others swap, and one named through a symbolic link. A plugin beside them
   still loads. */
static void test_plugin_path_symlinks(void **state)
{
    char root[] = "/tmp/xrt-plugin-links.XXXXXX", ok[64], ww[64], inner[96], sys[64], via[64], env[512],
         evil[96], link[96], planted[96], inside[128], real[96], why[256], *swap[2];
    xrt_plugin_info info;
    int n0;
    (void)state;
    assert_non_null(mkdtemp(root));
    assert_int_equal(chmod(root, 0755), 0);
    snprintf(ok, sizeof ok, "%s/ok", root);
    snprintf(ww, sizeof ww, "%s/ww", root);
    snprintf(inner, sizeof inner, "%s/inner", ww);
    snprintf(sys, sizeof sys, "%s/sys", root);
    snprintf(via, sizeof via, "%s/via", root);
    assert_int_equal(mkdir(ok, 0755), 0);
    assert_int_equal(mkdir(ww, 0755), 0);
    assert_int_equal(chmod(ww, 0777), 0);
    assert_int_equal(mkdir(inner, 0755), 0);
    assert_int_equal(mkdir(sys, 0755), 0);
    assert_int_equal(symlink("ok", via), 0);
    snprintf(evil, sizeof evil, "%s/libevil.so", ww);
    snprintf(link, sizeof link, "%s/libz.so", ok);
    snprintf(planted, sizeof planted, "%s/libplanted.so", sys);
    snprintf(inside, sizeof inside, "%s/twodev.so", inner);
    snprintf(real, sizeof real, "%s/twodev.so", ok);
    copy_file(PLUGIN("test_twodev.so"), evil);
    copy_file(PLUGIN("test_twodev.so"), planted);
    copy_file(PLUGIN("test_twodev.so"), inside);
    copy_file(PLUGIN("test_twodev.so"), real);
    assert_int_equal(symlink("../ww/libevil.so", link), 0);
    swap[0] = evil;
    swap[1] = planted;
    OK(xrt_set_backend("cpu")); /* the child forks, not re-executes */
    if (geteuid() == 0 && run_child_raw(swap_as_nobody, swap, 10, why, sizeof why)) fail_msg("swap: %s", why);
    n0 = plugins_loaded();
    snprintf(env, sizeof env, "%s:%s:%s", inner, ok, via);
    setenv("XRT_PLUGIN_PATH", env, 1);
    OK(restart(NULL, NULL));
    unsetenv("XRT_PLUGIN_PATH");
    assert_int_equal(plugin_index(link, &info), -1);
    assert_int_equal(plugin_index(inside, &info), -1);
    assert_true(logged_exactly("warn: XRT_PLUGIN_PATH: %s skipped: a symbolic link\n", link));
    assert_true(logged_exactly("warn: XRT_PLUGIN_PATH: %s skipped: %s: owned by another user or writable by others\n",
                               inner, ww));
    assert_true(logged_exactly("warn: XRT_PLUGIN_PATH: %s skipped: a symbolic link\n", via));
    assert_true(plugin_index(real, &info) >= n0); /* loaded, or a taken name: tried */
    assert_string_equal(info.origin, "XRT_PLUGIN_PATH");
    assert_int_equal(plugins_loaded(), n0 + 1);
    unlink(link);
    unlink(real);
    unlink(evil);
    unlink(planted);
    unlink(inside);
    unlink(via);
    rmdir(inner);
    rmdir(ok);
    rmdir(ww);
    rmdir(sys);
    assert_int_equal(rmdir(root), 0);
}

/* Restarts xrt on the directory `arg` (as nobody when this is root: root
   reads any file) and expects its one file skipped as unreadable. */
static int unreadable_child(void *arg)
{
    char path[128];
    xrt_plugin_info info;
    CHILD_TRUE(become_nobody());
    snprintf(path, sizeof path, "%s/unreadable.so", (const char *)arg);
    memset(&logged, 0, sizeof logged);
    setenv("XRT_PLUGIN_PATH", (const char *)arg, 1);
    CHILD_OK(restart(NULL, NULL));
    CHILD_TRUE(logged_exactly("warn: XRT_PLUGIN_PATH: %s skipped: cannot read it: Permission denied\n", path));
    CHILD_TRUE(plugin_index(path, &info) == -1);
    return 0;
}

/* A shared object in a directory that fails to load (a plugin whose
   dependency is missing) is skipped, logged and listed as from XRT_PLUGINS,
   with the same reason; a file that cannot be read is skipped with a
   warning; a file that is no shared object (no ELF header) stays in the
   directory's debug line. */
static void test_plugin_path_load_failures(void **state)
{
    char root[] = "/tmp/xrt-plugin-fails.XXXXXX", dir[64], locked[64], dep[96], named[96], notes[96],
         unreadable[96], reason[256], why[256];
    xrt_plugin_info info;
    int n0;
    (void)state;
    assert_non_null(mkdtemp(root));
    assert_int_equal(chmod(root, 0755), 0);
    snprintf(dir, sizeof dir, "%s/dir", root);
    snprintf(locked, sizeof locked, "%s/locked", root);
    snprintf(dep, sizeof dep, "%s/needsdep.so", dir);
    snprintf(named, sizeof named, "%s/needsdep.so", root);
    snprintf(notes, sizeof notes, "%s/notes.so", dir);
    snprintf(unreadable, sizeof unreadable, "%s/unreadable.so", locked);
    assert_int_equal(mkdir(dir, 0755), 0);
    assert_int_equal(mkdir(locked, 0755), 0);
    copy_file(PLUGIN("test_needsdep.so"), dep);
    copy_file(PLUGIN("test_needsdep.so"), named);
    write_text(notes, "not a shared object\n");
    copy_file(GOOD, unreadable);
    assert_int_equal(chmod(unreadable, 0), 0);
    n0 = plugins_loaded();
    OK(restart(named, NULL)); /* the same object by XRT_PLUGINS: its reason */
    assert_skipped(named, "cannot load: libxrt_test_absent.so: cannot open shared object file: No such file or directory");
    assert_true(plugin_index(named, &info) >= n0);
    snprintf(reason, sizeof reason, "%s", info.reason);
    memset(&logged, 0, sizeof logged);
    setenv("XRT_PLUGIN_PATH", dir, 1);
    xrt_set_log_level(XRT_LOG_DEBUG);
    OK(restart(NULL, NULL));
    xrt_set_log_level(XRT_LOG_ENV);
    unsetenv("XRT_PLUGIN_PATH");
    assert_int_equal(plugins_loaded(), n0 + 2);
    assert_skipped(dep, reason);
    assert_true(plugin_index(dep, &info) >= n0);
    assert_string_equal(info.reason, reason);
    assert_string_equal(info.origin, "XRT_PLUGIN_PATH");
    assert_true(logged_exactly("debug: XRT_PLUGIN_PATH: %s: skipped notes.so (not a shared object)\n", dir));
    OK(xrt_set_backend("cpu")); /* the child forks, not re-executes */
    if (run_child_raw(unreadable_child, locked, 20, why, sizeof why)) fail_msg("unreadable file: %s", why);
    unlink(dep);
    unlink(named);
    unlink(notes);
    unlink(unreadable);
    rmdir(dir);
    rmdir(locked);
    assert_int_equal(rmdir(root), 0);
}

static int finish(void **state)
{
    (void)state;
    xrt_shutdown();
    xrt_set_log_callback(NULL, NULL);
    return 0;
}

/* Every built-in backend that this build enables fills every slot of its
   table itself, by name: none is left for the registry's UNSUPPORTED filler. */
static void test_builtin_tables_complete(void **state)
{
    static const char *const names[] = {"cpu", "cuda", "hip"};
    int filled = 0;
    size_t i;
    (void)state;
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        xrt_backend t;
        if (!xrt__builtin_table(names[i], &t)) continue;
        filled++;
        assert_string_equal(t.name, names[i]);
        assert_int_equal(t.abi_version, XRT_BACKEND_ABI_VERSION);
        assert_int_equal(t.size, sizeof(xrt_backend));
        assert_non_null(t.init);
        assert_non_null(t.shutdown);
#define CHECK_SLOT(op, params, args) \
    if (!t.op) fail_msg("%s: slot %s is NULL", names[i], #op);
        XRT__BACKEND_OPS(CHECK_SLOT)
#undef CHECK_SLOT
    }
    assert_true(filled >= 1); /* the CPU backend at least */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_no_plugins, capture),
        cmocka_unit_test_setup(test_failures_skipped, capture),
        cmocka_unit_test_setup(test_debug_names_plugin, capture),
        cmocka_unit_test_setup(test_load_twice, capture),
        cmocka_unit_test_setup(test_reinit, capture),
        cmocka_unit_test_setup(test_never_unloaded, capture),
        cmocka_unit_test_setup(test_select_plugin_backend, capture),
        cmocka_unit_test_setup(test_trace_lines, capture),
        cmocka_unit_test_setup(test_trace_lookups_switch, capture),
        cmocka_unit_test_setup(test_trace_handle_rule, capture),
        cmocka_unit_test_setup(test_trace_host_fn_calls, capture),
        cmocka_unit_test_setup(test_trace_fork, capture),
        cmocka_unit_test_setup(test_trace_targets, capture),
        cmocka_unit_test_setup(test_trace_races, capture),
        cmocka_unit_test_setup(test_trace_file_names, capture),
        cmocka_unit_test_setup(test_trace_serves_one_copy_of_xrt, capture),
        cmocka_unit_test_setup(test_later_larger_table, capture),
        cmocka_unit_test_setup(test_capabilities_checked_against_table, capture),
        cmocka_unit_test_setup(test_setuid_program_ignores_code_from_environment, capture),
        cmocka_unit_test_setup(test_forwarding_macro, capture),
        cmocka_unit_test_setup(test_wraps_checks, capture),
        cmocka_unit_test_setup(test_older_table_lacks_later_operations, capture),
        cmocka_unit_test_setup(test_plugin_path, capture),
        cmocka_unit_test_setup(test_plugin_path_symlinks, capture),
        cmocka_unit_test_setup(test_plugin_path_load_failures, capture),
        cmocka_unit_test_setup(test_builtin_tables_complete, capture),
    };
    if (getenv("XRT_TEST_SECURE_CHILD")) return secure_child(getenv("XRT_TEST_SECURE_CHILD"));
    set_env("XRT_TRACE_FILE", "/dev/null"); /* listing the backends probes the tracer: keep stderr clean */
    set_env("XRT_TRACE_BACKEND", "cpu");
    set_env("XRT_LOG", NULL);
    set_env("XRT_CHECK_EXITCODE", "0"); /* read once, at the first xrt_init: test_trace_races reports on purpose */
    return xrt_test_run_group("plugins", tests, finish);
}
