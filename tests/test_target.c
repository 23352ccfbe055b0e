/* SPDX-License-Identifier: MIT */
/* Compile targets: the record of the current device, its printable form and
   its fingerprint (fixed vectors, so that a key never changes between
   releases, runs or machines); the per-backend part runs on every backend. */
#include "xrt_test.h"

static xrt_target make(const char *backend, const char *arch, int width, const char *features)
{
    xrt_target t;
    memset(&t, 0, sizeof t);
    snprintf(t.backend, sizeof t.backend, "%s", backend);
    snprintf(t.arch, sizeof t.arch, "%s", arch);
    t.vector_width = width;
    snprintf(t.features, sizeof t.features, "%s", features);
    return t;
}

/* FNV-1a 64 of "backend\0arch\0width\0features\0", computed independently. */
static void test_fingerprint_fixed_vectors(void **state)
{
    xrt_target a = make("cuda", "sm_90", 32, ""), b = make("hip", "gfx942", 64, "sramecc+,xnack-");
    xrt_target c = make("cpu", "x86_64", 8, "avx,avx2,fma"), d = make("cuda", "sm_90", 64, "");
    (void)state;
    assert_true(xrt_target_fingerprint(&a) == 0x7e532e41d695a7dbull);
    assert_true(xrt_target_fingerprint(&b) == 0xb272a55e66a7dd8bull);
    assert_true(xrt_target_fingerprint(&c) == 0xe40767a19ca50530ull);
    assert_true(xrt_target_fingerprint(&d) == 0x37c0dc5a32670ad8ull);
    a.fingerprint = 12345; /* the stored fingerprint is not an input */
    assert_true(xrt_target_fingerprint(&a) == 0x7e532e41d695a7dbull);
    assert_true(xrt_target_fingerprint(NULL) == 0);
}

/* Any field, and where a field ends, changes the key. */
static void test_fingerprint_changes_with_every_field(void **state)
{
    xrt_target base = make("cpu", "x86_64", 8, "avx2"), t;
    uint64_t f = xrt_target_fingerprint(&base);
    (void)state;
    t = make("cuda", "x86_64", 8, "avx2");
    assert_true(xrt_target_fingerprint(&t) != f);
    t = make("cpu", "aarch64", 8, "avx2");
    assert_true(xrt_target_fingerprint(&t) != f);
    t = make("cpu", "x86_64", 16, "avx2");
    assert_true(xrt_target_fingerprint(&t) != f);
    t = make("cpu", "x86_64", 8, "avx2,fma");
    assert_true(xrt_target_fingerprint(&t) != f);
    t = make("cpux", "86_64", 8, "avx2"); /* same bytes, other split */
    assert_true(xrt_target_fingerprint(&t) != f);
}

static void test_to_string(void **state)
{
    xrt_target a = make("cuda", "sm_90", 32, ""), c = make("cpu", "x86_64", 8, "avx,avx2");
    char buf[64], tiny[8];
    (void)state;
    xrt_test_log_calls();
    OK(xrt_target_to_string(&a, buf, sizeof buf));
    assert_string_equal(buf, "cuda:sm_90:32");
    OK(xrt_target_to_string(&c, buf, sizeof buf));
    assert_string_equal(buf, "cpu:x86_64:8:avx,avx2");
    FAILS(xrt_target_to_string(&c, tiny, sizeof tiny), XRT_ERROR_INVALID_VALUE, "xrt_target_to_string: buffer");
    FAILS(xrt_target_to_string(NULL, buf, sizeof buf), XRT_ERROR_INVALID_VALUE, "target is NULL");
    FAILS(xrt_target_to_string(&a, NULL, 0), XRT_ERROR_INVALID_VALUE, "no buffer");
    xrt_set_log_callback(NULL, NULL);
}

/* >> on every backend */
static int sorted(const char *list)
{
    char prev[64] = "", cur[64];
    while (*list) {
        size_t n = strcspn(list, ",");
        if (n == 0 || n >= sizeof cur) return 0;
        memcpy(cur, list, n);
        cur[n] = 0;
        if (prev[0] && strcmp(prev, cur) >= 0) return 0;
        memcpy(prev, cur, n + 1);
        list += n + (list[n] == ',');
    }
    return 1;
}

/* The CPU's features as the kernel lists them (/proc/cpuinfo's flags, or
   Features on aarch64), in xrt's names, sorted and comma-separated, and the
   widest vector they imply in 32-bit lanes: a source of its own, not the
   code under test. Returns the lanes, or 0 where /proc/cpuinfo is not there
   or names no flags; -1 where SVE sets the width (its length is per process). */
static int cpuinfo_features(char *out, size_t n)
{
#if defined(__x86_64__)
    static const char *const names[][2] = { /* xrt's name, the kernel's; xrt's order is sorted */
        {"avx", "avx"},         {"avx2", "avx2"},         {"avx512bw", "avx512bw"}, {"avx512cd", "avx512cd"},
        {"avx512dq", "avx512dq"}, {"avx512f", "avx512f"},  {"avx512vl", "avx512vl"}, {"avx512vnni", "avx512_vnni"},
        {"bmi", "bmi1"},        {"bmi2", "bmi2"},         {"fma", "fma"},           {"popcnt", "popcnt"},
        {"sse3", "pni"},        {"sse4.1", "sse4_1"},     {"sse4.2", "sse4_2"},     {"ssse3", "ssse3"}};
    const char *key = "flags";
#elif defined(__aarch64__)
    static const char *const names[][2] = {{"neon", "asimd"}, {"sve", "sve"}, {"sve2", "sve2"}};
    const char *key = "Features";
#else
    static const char *const names[][2] = {{"", ""}};
    const char *key = NULL;
#endif
    char line[8192], word[64];
    size_t i, used = 0;
    int lanes = 4;
    FILE *f = key ? fopen("/proc/cpuinfo", "r") : NULL;
    out[0] = 0;
    if (!f) return 0;
    while (fgets(line, sizeof line, f) && strncmp(line, key, strlen(key)) != 0) {}
    fclose(f);
    if (strncmp(line, key, strlen(key)) != 0) return 0;
    if (strchr(line, '\n')) *strchr(line, '\n') = ' '; /* the last word ends in a space too (and the line in its NUL) */
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(word, sizeof word, " %s ", names[i][1]);
        if (!strstr(line, word)) continue;
        used += (size_t)snprintf(out + used, n - used, "%s%s", used ? "," : "", names[i][0]);
        if (strcmp(names[i][0], "avx") == 0 && lanes < 8) lanes = 8;
        if (strcmp(names[i][0], "avx512f") == 0) lanes = 16;
        if (strcmp(names[i][0], "sve") == 0) lanes = -1;
    }
    return lanes;
}

/* Each of xrt's features (a comma-separated list) is in the kernel's list. */
static void assert_features_within(const char *features, const char *kernel)
{
    char all[sizeof ((xrt_target *)0)->features + 2], word[64];
    const char *p = features;
    snprintf(all, sizeof all, ",%s,", kernel);
    while (*p) {
        size_t n = strcspn(p, ",");
        snprintf(word, sizeof word, ",%.*s,", (int)n, p);
        if (!strstr(all, word)) fail_msg("feature %s is not in the kernel's list %s", word, kernel);
        p += n + (p[n] == ',');
    }
}

/* On the CPU (directly or behind the tracing plugin): the features are the
   kernel's list, exactly, and the vector width the widest they imply. Under
   valgrind, whose virtual CPU lacks some of them (AVX-512), each feature is
   in the kernel's list and the width is no wider. */
static void assert_cpu_target(const xrt_target *t)
{
    char want[sizeof t->features];
    int lanes = cpuinfo_features(want, sizeof want);
    if (lanes == 0) {
        print_message("skipped: the CPU's features: /proc/cpuinfo lists none\n");
        return;
    }
    if (xrt_test_slowdown() > 1) {
        assert_features_within(t->features, want);
        if (lanes > 0) assert_true(t->vector_width <= lanes);
        return;
    }
    assert_string_equal(t->features, want);
    if (lanes > 0) assert_int_equal(t->vector_width, lanes);
}

static void test_current_target(void **state)
{
    xrt_target t, again;
    xrt_device_prop p;
    const char *backend = NULL;
    char text[320], head[128];
    int d = 0;
    (void)state;
    OK(xrt_get_backend(&backend));
    OK(xrt_get_target(&t));
    assert_string_equal(t.backend, backend);
    assert_true(t.arch[0] != 0);
    assert_true(t.vector_width > 0);
    assert_true(sorted(t.features));
    assert_true(t.fingerprint == xrt_target_fingerprint(&t));
    OK(xrt_get_device(&d));
    OK(xrt_get_device_properties(&p, d));
    assert_int_equal(t.vector_width, p.warp_size);
#if defined(__x86_64__)
    if (strcmp(t.arch, "x86_64") == 0) assert_cpu_target(&t);
#elif defined(__aarch64__)
    if (strcmp(t.arch, "aarch64") == 0) assert_cpu_target(&t);
#endif
    OK(xrt_target_to_string(&t, text, sizeof text));
    snprintf(head, sizeof head, "%s:%s:%d", t.backend, t.arch, t.vector_width);
    assert_memory_equal(text, head, strlen(head));
    print_message("%s: target %s, fingerprint %016llx\n", backend, text, (unsigned long long)t.fingerprint);
    OK(xrt_get_target(&again)); /* the same device: the same key */
    assert_true(again.fingerprint == t.fingerprint);
    /* a backend in front of the CPU (the tracing plugin) gives the CPU's record */
    if (strcmp(backend, "cpu") != 0 && xrt_set_backend("cpu") == XRT_SUCCESS) {
        OK(xrt_get_target(&again));
        OK(xrt_set_backend(backend));
        if (strcmp(again.arch, t.arch) == 0) {
            assert_int_equal(t.vector_width, again.vector_width);
            assert_string_equal(t.features, again.features);
        }
    }
    FAILS(xrt_get_target(NULL), XRT_ERROR_INVALID_VALUE, "xrt_get_target: target is NULL");
}

/* >> a backend without get_target: its device properties make the target */
#pragma GCC diagnostic ignored "-Wunused-parameter" /* backend callbacks take self by ABI */
static xrt_status bare_init(const xrt_backend *self, char *reason, size_t n) { return XRT_SUCCESS; }
static xrt_status bare_get_device(const xrt_backend *self, int *device) { *device = 0; return XRT_SUCCESS; }
static xrt_status bare_props(const xrt_backend *self, xrt_device_prop *p, int device)
{
    memset(p, 0, sizeof *p);
    snprintf(p->arch, sizeof p->arch, "toy1");
    p->warp_size = 7;
    return XRT_SUCCESS;
}

static void test_fallback_from_properties(void **state)
{
    static xrt_backend bare;
    xrt_target t;
    (void)state;
    memset(&bare, 0, sizeof bare);
    bare.abi_version = XRT_BACKEND_ABI_VERSION;
    bare.size = sizeof bare;
    bare.name = "bare";
    bare.init = bare_init;
    bare.get_device = bare_get_device;
    bare.get_device_properties = bare_props;
    OK(xrt_register_backend(&bare));
    OK(xrt_set_backend("bare"));
    xrt_get_last_error();
    OK(xrt_get_target(&t));
    assert_string_equal(t.backend, "bare");
    assert_string_equal(t.arch, "toy1");
    assert_int_equal(t.vector_width, 7);
    assert_string_equal(t.features, "");
    assert_int_equal(xrt_peek_at_last_error(), XRT_SUCCESS); /* nothing was recorded */
    xrt_shutdown();
}

int main(void)
{
    const struct CMUnitTest pure[] = {
        cmocka_unit_test(test_fingerprint_fixed_vectors),
        cmocka_unit_test(test_fingerprint_changes_with_every_field),
        cmocka_unit_test(test_to_string),
        cmocka_unit_test(test_fallback_from_properties),
    };
    const struct CMUnitTest each[] = {
        cmocka_unit_test(test_current_target),
    };
    int failed = cmocka_run_group_tests_name("target", pure, NULL, NULL);
    return failed + xrt_test_run_on_backends("target", each, sizeof each / sizeof each[0], NULL);
}
