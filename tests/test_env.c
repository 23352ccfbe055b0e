/* SPDX-License-Identifier: MIT */
/* The environment and the log level, each case in a child on a fresh xrt:
   xrt_log with levels outside the enum, xrt_set_log_level against XRT_LOG
   across restarts, XRT_LOG='' as unset, XRT_BACKEND lists (spaces, case,
   empty entries), registering the backend XRT_BACKEND names, and number
   variables that are not numbers (on the CPU backend). Every group
   runs on each available backend. The registry's own rules for XRT_BACKEND
   and XRT_LOG: tests/test_registry.c. */
#include "xrt_test.h"

#include <limits.h>
#include <sys/mman.h>

/* xrt_log with a level outside the enum: nothing read outside the level names
   (ASan sees it), and whatever is printed names a real level. */
static int log_level_child(void *arg)
{
    static const char *const names[] = {"none", "error", "warn", "info", "debug"};
    char line[512];
    FILE *f = tmpfile();
    int saved = dup(2), i;
    (void)arg;
    CHILD_TRUE(f != NULL && saved >= 0);
    xrt_set_log_callback(NULL, NULL);
    xrt_set_log_level(XRT_LOG_DEBUG);
    fflush(stderr);
    dup2(fileno(f), 2);
    xrt_log((xrt_log_level)-1, "level minus one");
    xrt_log((xrt_log_level)INT_MIN, "level INT_MIN");
    xrt_log((xrt_log_level)5, "level five");
    xrt_log((xrt_log_level)INT_MAX, "level INT_MAX");
    fflush(stderr);
    dup2(saved, 2);
    rewind(f);
    while (fgets(line, sizeof line, f)) {
        int known = 0;
        for (i = 0; i < 5; i++) {
            char want[32];
            snprintf(want, sizeof want, "xrt: %s: ", names[i]);
            known |= strncmp(line, want, strlen(want)) == 0;
        }
        if (!known) CHILD_FAIL("xrt_log with a bad level printed \"%s\"", line);
    }
    fclose(f);
    xrt_set_log_level(XRT_LOG_WARN);
    xrt_shutdown();
    return 0;
}

/* xrt_set_log_level wins over XRT_LOG, also across xrt_shutdown + xrt_init
   and when it is called before the first xrt_init. */
static int log_level_kept_child(void *arg)
{
    (void)arg;
    xrt_test_log_capture();
    unsetenv("XRT_LOG");
    xrt_set_log_level(XRT_LOG_ENV); /* from XRT_LOG, as in a fresh process */
    setenv("XRT_LOG", "error", 1);
    xrt_shutdown();
    CHILD_OK(xrt_init());
    xrt_set_log_level(XRT_LOG_NONE);
    CHILD_EXPECT(xrt_malloc(NULL, 64), XRT_ERROR_INVALID_VALUE);
    CHILD_TRUE(xrt_test_log.count == 0);
    CHILD_OK(xrt_init());
    CHILD_EXPECT(xrt_malloc(NULL, 64), XRT_ERROR_INVALID_VALUE);
    if (xrt_test_log.count) CHILD_FAIL("xrt_init re-applied XRT_LOG over xrt_set_log_level");
    xrt_shutdown();
    CHILD_OK(xrt_init());
    CHILD_EXPECT(xrt_malloc(NULL, 64), XRT_ERROR_INVALID_VALUE);
    if (xrt_test_log.count) CHILD_FAIL("xrt_shutdown + xrt_init re-applied XRT_LOG=error over xrt_set_log_level(NONE)");
    xrt_shutdown();
    xrt_set_log_level(XRT_LOG_NONE); /* before the next start */
    setenv("XRT_LOG", "debug", 1);
    CHILD_OK(xrt_init());
    CHILD_EXPECT(xrt_malloc(NULL, 64), XRT_ERROR_INVALID_VALUE);
    if (xrt_test_log.count) CHILD_FAIL("xrt_init applied XRT_LOG=debug over an earlier xrt_set_log_level(NONE)");
    unsetenv("XRT_LOG");
    xrt_shutdown();
    return 0;
}

/* XRT_LOG='' is unset: no warning, the default level. */
static int log_empty_child(void *arg)
{
    (void)arg;
    xrt_test_log_capture();
    unsetenv("XRT_LOG");
    xrt_set_log_level(XRT_LOG_ENV); /* from XRT_LOG, as in a fresh process */
    setenv("XRT_LOG", "", 1);
    xrt_shutdown();
    CHILD_OK(xrt_init());
    if (xrt_test_log.count) CHILD_FAIL("XRT_LOG='' logged \"%s\"", xrt_test_log.last);
    CHILD_EXPECT(xrt_malloc(NULL, 64), XRT_ERROR_INVALID_VALUE);
    CHILD_TRUE(xrt_test_log.count == 0); /* the default logs warnings, not failed calls */
    unsetenv("XRT_LOG");
    xrt_shutdown();
    return 0;
}

/* XRT_BACKEND entries are trimmed of spaces and matched case-insensitively. */
static const char *const backend_lists[] = {"CPU", "Cpu", " cpu", "cpu ", " cpu ", "cuda, cpu", "cuda , CPU", "HIP,cpu",
                                            " cuda , hip , cpu ", ", cpu", "cpu,,hip", ",cpu,"};

static int backend_list_child(void *arg)
{
    const char *list = (const char *)arg, *name = NULL, *expect = NULL;
    char copy[64], *tok, *save = NULL;
    xrt_status st;
    xrt_set_log_level(XRT_LOG_NONE);
    setenv("XRT_BACKEND", list, 1);
    xrt_shutdown();
    st = xrt_init();
    snprintf(copy, sizeof copy, "%s", list);
    for (tok = strtok_r(copy, ",", &save); tok && !expect; tok = strtok_r(NULL, ",", &save)) {
        char word[16];
        size_t i = 0;
        xrt_backend_info info;
        int n = 0, k;
        while (*tok == ' ') tok++;
        while (*tok && *tok != ' ' && i < sizeof word - 1) word[i++] = (char)(*tok >= 'A' && *tok <= 'Z' ? *tok + 32 : *tok), tok++;
        word[i] = 0;
        CHILD_OK(xrt_backend_count(&n));
        for (k = 0; k < n; k++) {
            CHILD_OK(xrt_backend_get_info(k, &info));
            if (strcmp(info.name, word) == 0 && info.available) expect = info.name;
        }
    }
    CHILD_TRUE(expect != NULL);
    if (st != XRT_SUCCESS) CHILD_FAIL("XRT_BACKEND=\"%s\": xrt_init -> %s (\"%s\"), expected %s", list, xrt_status_string(st),
                                      xrt_get_last_error_string(), expect);
    CHILD_OK(xrt_get_backend(&name));
    if (strcmp(name, expect) != 0) CHILD_FAIL("XRT_BACKEND=\"%s\" selects %s, expected %s", list, name, expect);
    unsetenv("XRT_BACKEND");
    xrt_shutdown();
    return 0;
}

/* Registering the backend that XRT_BACKEND names: no spurious "unknown
   backend" error, and another thread's xrt_set_backend choice stays. */
static xrt_status mine_init(const xrt_backend *self, char *reason, size_t n)
{
    (void)self, (void)reason, (void)n;
    return XRT_SUCCESS;
}
static int chooser_ready, chooser_go;
static const char *chooser_after;

static void *chooser(void *arg)
{
    (void)arg;
    __atomic_store_n(&chooser_ready, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&chooser_go, __ATOMIC_ACQUIRE)) sleep_ms(1);
    if (xrt_get_backend(&chooser_after) != XRT_SUCCESS) chooser_after = NULL;
    return NULL;
}

static int register_named_child(void *arg)
{
    static xrt_backend mine;
    const char *group = (const char *)arg, *name = NULL;
    pthread_t t;
    memset(&mine, 0, sizeof mine);
    mine.abi_version = XRT_BACKEND_ABI_VERSION;
    mine.size = sizeof mine;
    mine.name = "mine";
    mine.init = mine_init;
    setenv("XRT_BACKEND", "mine", 1);
    xrt_shutdown();
    if (start_thread(&t, group, chooser, NULL) != 0) CHILD_FAIL("pthread_create");
    if (!wait_flag(&chooser_ready, 3000)) CHILD_FAIL("the thread could not select %s", group);
    xrt_test_log_capture();
    CHILD_OK(xrt_register_backend(&mine));
    if (xrt_test_log.count)
        CHILD_FAIL("registering the backend XRT_BACKEND names logged \"%s\"", xrt_test_log.last);
    CHILD_OK(xrt_get_backend(&name));
    CHILD_TRUE(strcmp(name, "mine") == 0);
    __atomic_store_n(&chooser_go, 1, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
    if (!chooser_after || strcmp(chooser_after, group) != 0)
        CHILD_FAIL("registering a backend dropped another thread's xrt_set_backend(\"%s\"): it now uses %s", group,
                   chooser_after ? chooser_after : "none");
    unsetenv("XRT_BACKEND");
    xrt_shutdown();
    return 0;
}

/* Size of what fd 2 wrote into f since the last call, and its text in buf. */
static long stderr_text(FILE *f, long from, char *buf, size_t size)
{
    long end;
    size_t n;
    fflush(stderr);
    end = lseek(fileno(f), 0, SEEK_END);
    if (end < from) return -1;
    n = (size_t)(end - from) < size - 1 ? (size_t)(end - from) : size - 1;
    buf[pread(fileno(f), buf, n, from) == (ssize_t)n ? n : 0] = '\0';
    return end;
}

/* The default prints nothing for a failed call (its status and
   xrt_get_last_error_string answer it, as in CUDA); XRT_LOG=error prints it. */
static int quiet_default_child(void *arg)
{
    static const char line[] = "xrt: error: xrt_malloc: ptr is NULL (invalid value)\n";
    char text[512];
    long at;
    FILE *f = tmpfile();
    (void)arg;
    if (!f) CHILD_FAIL("tmpfile: %s", strerror(errno));
    xrt_set_log_callback(NULL, NULL); /* stderr */
    unsetenv("XRT_LOG");
    xrt_set_log_level(XRT_LOG_ENV);
    xrt_shutdown();
    fflush(stderr);
    if (dup2(fileno(f), 2) < 0) CHILD_FAIL("dup2: %s", strerror(errno));
    CHILD_OK(xrt_init());
    CHILD_EXPECT(xrt_malloc(NULL, 64), XRT_ERROR_INVALID_VALUE);
    at = stderr_text(f, 0, text, sizeof text);
    if (at != 0) CHILD_FAIL("by default a failed call printed \"%s\"", text);
    CHILD_TRUE(strcmp(xrt_get_last_error_string(), "xrt_malloc: ptr is NULL") == 0);
    setenv("XRT_LOG", "error", 1);
    xrt_shutdown();
    CHILD_OK(xrt_init());
    CHILD_EXPECT(xrt_malloc(NULL, 64), XRT_ERROR_INVALID_VALUE);
    stderr_text(f, at, text, sizeof text);
    if (strcmp(text, line) != 0) CHILD_FAIL("XRT_LOG=error printed \"%s\", not \"%.*s\"", text, (int)sizeof line - 2, line);
    unsetenv("XRT_LOG");
    xrt_shutdown();
    fclose(f);
    return 0;
}

/* A number variable that is not a whole number (digits only), or a size
   that is not one (digits, then an optional k, m or g), is ignored with one
   warning naming it and what is valid, and the default holds. */
static int bad_number_child(void *arg)
{
    static const char *const vars[][2] = {{"XRT_CPU_SPLIT_BYTES", "12abc"},  {"XRT_CPU_THREADS", "-1"},
                                          {"XRT_CPU_THREADS", " -1"},         {"XRT_CPU_THREADS", "+2"},
                                          {"XRT_CPU_SPLIT_BYTES", " 4096"},   {"XRT_CPU_SPLIT_BYTES", "4096 "},
                                          {"XRT_CPU_SPLIT_BYTES", "18446744073709551616"}, /* 2^64 */
                                          {"XRT_CPU_SPLIT_BYTES", "17179869184g"},{"XRT_CPU_SPLIT_BYTES", "1kb"},
                                          {"XRT_CPU_SPLIT_BYTES", "k"},          {"XRT_CPU_THREADS", "2k"}};
    size_t i;
    (void)arg;
    for (i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        char want[160];
        xrt_shutdown();
        setenv(vars[i][0], vars[i][1], 1);
        xrt_test_log_calls();
        CHILD_OK(xrt_set_backend("cpu"));
        if (strstr(vars[i][0], "_BYTES")) /* a size */
            snprintf(want, sizeof want, "%s=%s: not a size (valid: digits 0-9 with an optional k, m or g, below 2^64); ignored",
                     vars[i][0], vars[i][1]);
        else
            snprintf(want, sizeof want, "%s=%s: not a whole number (valid: digits 0-9, below 2^64); ignored", vars[i][0],
                     vars[i][1]);
        if (xrt_test_log.count != 1 || xrt_test_log.level != XRT_LOG_WARN || !strstr(xrt_test_log.last, want))
            CHILD_FAIL("%s=%s logged %d lines, the last \"%s\", not one \"%s...\"", vars[i][0], vars[i][1],
                       xrt_test_log.count, xrt_test_log.last, want);
        unsetenv(vars[i][0]);
    }
    xrt_shutdown();
    return 0;
}

/* Pages of [p, p + size) in memory now (mincore), -1 if it cannot tell. */
static long resident_pages(void *p, size_t size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), n = (size + page - 1) / page, i;
    unsigned char v[(4u << 20) / 4096 + 1];
    long in = 0;
    if (n > sizeof v || mincore(p, size, v) != 0) return -1;
    for (i = 0; i < n; i++) in += v[i] & 1;
    return in;
}

/* XRT_CPU_POPULATE=1: xrt_malloc returns device memory with its pages; unset
   or 0, the pages come at the first touch (issue 47 item 4). */
static int populate_child(void *arg)
{
    static const char *const values[] = {NULL, "0", "1", "yes"};
    const size_t size = 4u << 20, pages = size / (size_t)sysconf(_SC_PAGESIZE);
    size_t i;
    (void)arg;
    for (i = 0; i < sizeof values / sizeof values[0]; i++) {
        int on = values[i] && strcmp(values[i], "0") != 0;
        void *d = NULL;
        long in;
        xrt_shutdown();
        if (values[i]) setenv("XRT_CPU_POPULATE", values[i], 1);
        else unsetenv("XRT_CPU_POPULATE");
        CHILD_OK(xrt_set_backend("cpu"));
        CHILD_OK(xrt_malloc(&d, size));
        in = resident_pages(d, size);
        if (in != (on ? (long)pages : 0))
            CHILD_FAIL("XRT_CPU_POPULATE=%s: %ld of %zu pages of a fresh 4 MiB allocation resident, expected %zu",
                       values[i] ? values[i] : "(unset)", in, pages, on ? pages : 0);
        CHILD_OK(xrt_memset(d, 7, size)); /* the memory is usable either way */
        CHILD_OK(xrt_device_synchronize());
        if (((unsigned char *)d)[size - 1] != 7) CHILD_FAIL("the last byte is not the memset's");
        CHILD_OK(xrt_free(d));
    }
    unsetenv("XRT_CPU_POPULATE");
    xrt_shutdown();
    return 0;
}

/* Loads a one-function C module on the CPU backend; how many files the cache
   directory `dir` then holds (-1: none, it was never made). */
static int cached_files_after_a_load(const char *dir)
{
    static const char src[] = "void k(const void *c, void *a) { (void)c; (void)a; }\n";
    xrt_module_image im = {XRT_IMAGE_CPU_C_SOURCE, src, sizeof src - 1, NULL};
    xrt_module m = NULL;
    char cmd[600];
    FILE *p;
    int n = -1;
    if (xrt_module_load(&m, &im, 1, NULL) != XRT_SUCCESS || xrt_module_unload(m) != XRT_SUCCESS) return -2;
    snprintf(cmd, sizeof cmd, "[ -d '%s' ] && ls -A '%s' | wc -l", dir, dir);
    if ((p = popen(cmd, "r")) != NULL) {
        if (fscanf(p, "%d", &n) != 1) n = -1;
        pclose(p);
    }
    return n;
}

/* XRT_CACHE takes the booleans every switch takes, in any case; anything
   else is ignored with one warning naming the valid values. */
static int cache_switch_child(void *arg)
{
    static const char *const off[] = {"0", "off", "no", "false", "OFF", "False"}, *const on[] = {"1", "on", "yes", "true", "YES"};
    char dir[] = "/tmp/xrt-env-XXXXXX", sub[64], cmd[128];
    size_t i;
    int n;
    (void)arg;
    CHILD_TRUE(mkdtemp(dir) != NULL);
    setenv("XRT_CACHE_DIR", dir, 1);
    CHILD_OK(xrt_set_backend("cpu"));
    for (i = 0; i < sizeof off / sizeof off[0]; i++) {
        snprintf(sub, sizeof sub, "%s/off%zu", dir, i);
        setenv("XRT_CACHE_DIR", sub, 1);
        setenv("XRT_CACHE", off[i], 1);
        xrt_test_log_calls();
        if ((n = cached_files_after_a_load(sub)) != -1) CHILD_FAIL("XRT_CACHE=%s: the cache holds %d files", off[i], n);
        if (xrt_test_log.count != 0) CHILD_FAIL("XRT_CACHE=%s logged \"%s\"", off[i], xrt_test_log.last);
    }
    for (i = 0; i < sizeof on / sizeof on[0]; i++) {
        snprintf(sub, sizeof sub, "%s/on%zu", dir, i);
        setenv("XRT_CACHE_DIR", sub, 1);
        setenv("XRT_CACHE", on[i], 1);
        if ((n = cached_files_after_a_load(sub)) < 1) CHILD_FAIL("XRT_CACHE=%s: the cache holds no entry (%d)", on[i], n);
    }
    setenv("XRT_CACHE", "maybe", 1);
    xrt_test_log_calls();
    if (cached_files_after_a_load(sub) < 1 || cached_files_after_a_load(sub) < 1) CHILD_FAIL("XRT_CACHE=maybe: no cache");
    if (xrt_test_log.count != 1 || xrt_test_log.level != XRT_LOG_WARN ||
        strcmp(xrt_test_log.last, "XRT_CACHE=maybe: not a switch (valid: 1, on, yes, true, 0, off, no, false); ignored"))
        CHILD_FAIL("XRT_CACHE=maybe logged %d lines, the last \"%s\"", xrt_test_log.count, xrt_test_log.last);
    unsetenv("XRT_CACHE");
    setenv("XRT_CACHE_DIR", "/proc/nope", 1); /* a directory that cannot be: one warning, not one a load */
    xrt_test_log_calls();
    if (cached_files_after_a_load("/proc/nope") != -1 || cached_files_after_a_load("/proc/nope") != -1)
        CHILD_FAIL("XRT_CACHE_DIR=/proc/nope: no private build");
    if (xrt_test_log.count != 1 || strncmp(xrt_test_log.last, "kernel cache /proc/nope cannot be created", 41))
        CHILD_FAIL("XRT_CACHE_DIR=/proc/nope logged %d lines, the last \"%s\"", xrt_test_log.count, xrt_test_log.last);
    unsetenv("XRT_CACHE_DIR");
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHILD_TRUE(system(cmd) == 0);
    xrt_shutdown();
    return 0;
}

/* A size takes an optional k, m or g suffix (binary units), as every size
   variable does; XRT_CACHE_BYTES=1G is 2^30 bytes, not a warning. */
static int size_suffix_child(void *arg)
{
    static const char *const good[][2] = {{"XRT_CACHE_BYTES", "1G"}, {"XRT_CPU_SPLIT_BYTES", "64k"},
                                          {"XRT_CPU_SPLIT_BYTES", "16M"}};
    size_t i;
    (void)arg;
    for (i = 0; i < sizeof good / sizeof good[0]; i++) {
        xrt_shutdown();
        setenv(good[i][0], good[i][1], 1);
        xrt_test_log_calls();
        CHILD_OK(xrt_set_backend("cpu"));
        if (cached_files_after_a_load("/nonexistent") == -2) CHILD_FAIL("%s=%s: the load failed", good[i][0], good[i][1]);
        if (xrt_test_log.count != 0) CHILD_FAIL("%s=%s logged \"%s\"", good[i][0], good[i][1], xrt_test_log.last);
        unsetenv(good[i][0]);
    }
    xrt_shutdown();
    return 0;
}

static void test_log_level_and_backend_env(void **state)
{
    child_case cases[10 + sizeof backend_lists / sizeof backend_lists[0]];
    char names[sizeof cases / sizeof cases[0]][64];
    size_t i, n = 0;
    (void)state;
    cases[n++] = (child_case){"xrt_log with levels outside the enum", log_level_child, NULL};
    cases[n++] = (child_case){"xrt_set_log_level survives xrt_init and XRT_LOG", log_level_kept_child, NULL};
    cases[n++] = (child_case){"XRT_LOG='' means unset", log_empty_child, NULL};
    cases[n++] = (child_case){"a failed call prints nothing by default", quiet_default_child, NULL};
    cases[n++] = (child_case){"registering the backend XRT_BACKEND names", register_named_child, xrt_test_backend};
    if (on_cpu_backend())
    {
        cases[n++] = (child_case){"a number variable that is not a number", bad_number_child, NULL};
        cases[n++] = (child_case){"XRT_CACHE's switches; one warning for a bad value", cache_switch_child, NULL};
        cases[n++] = (child_case){"sizes with k, m, g suffixes", size_suffix_child, NULL};
        cases[n++] = (child_case){"XRT_CPU_POPULATE: device memory with its pages", populate_child, NULL};
    }
    for (i = 0; i < sizeof backend_lists / sizeof backend_lists[0]; i++) {
        snprintf(names[n], sizeof names[n], "XRT_BACKEND=\"%s\"", backend_lists[i]);
        cases[n] = (child_case){names[n], backend_list_child, backend_lists[i]};
        n++;
    }
    /* 60 s: a hang, not slowness (the XRT_CACHE case compiles about a dozen
       modules: 6 s alone, over 10 s at load 10 on two cores) */
    run_cases("environment", cases, n, 60);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_log_level_and_backend_env),
    };
    return xrt_test_run_on_backends("environment", tests, sizeof tests / sizeof tests[0], NULL);
}
