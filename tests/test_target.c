/* SPDX-License-Identifier: MIT */
/* Compile targets: the record of the current device, its printable form and
   its fingerprint (fixed vectors, so that a key never changes between
   releases, runs or machines); the per-backend part runs on every backend. */
#define XRT_IMPL /* white-box: the CPU target's feature decoding */
#include "xrt_test.h"

static int sorted(const char *list);

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

/* x86-64: the target follows CPUID. QEMU's Haswell and Skylake-Client
   differ in ADX, RDSEED, CLFLUSHOPT, 3DNowPrefetch, XSAVEC, XSAVES and
   more: each alone gives another target; bits that are no code's (the
   hypervisor's, speculation controls, the kernel's protections and paging)
   give the same. */
static void test_x86_words(void **state)
{
#if defined(__x86_64__)
    static const struct { int word, bit; } differ[] = {
        {XRT__X86_07B, 19}, {XRT__X86_07B, 18}, {XRT__X86_07B, 23}, {XRT__X86_81C, 8}, {XRT__X86_D1A, 1},
        {XRT__X86_D1A, 3},  {XRT__X86_07C, 8},  {XRT__X86_17A, 4},  {XRT__X86_07D, 23}, {XRT__X86_17D, 21}};
    static const struct { int word, bit; } same[] = {
        {XRT__X86_01C, 31}, {XRT__X86_01C, 5},  {XRT__X86_07D, 10}, {XRT__X86_07D, 26}, {XRT__X86_01D, 28},
        {XRT__X86_07D, 9},  {XRT__X86_07B, 7},  {XRT__X86_07B, 20}, {XRT__X86_07C, 16}, {XRT__X86_07C, 24},
        {XRT__X86_07D, 18}}; /* ... SRBDS_CTRL, SMEP, SMAP, LA57, BUS_LOCK_DETECT, PCONFIG */
    uint32_t haswell[XRT__X86_WORDS] = {0}, w[XRT__X86_WORDS];
    char base[224], other[224];
    size_t i;
    (void)state;
    haswell[XRT__X86_01C] = 0xfffa3203u, haswell[XRT__X86_01D] = 0x0f8bfbffu; /* QEMU's Haswell, as a guest sees it */
    haswell[XRT__X86_07B] = 0x000007abu, haswell[XRT__X86_81C] = 0x00000021u, haswell[XRT__X86_81D] = 0x2c100800u;
    haswell[XRT__X86_D1A] = 0x1u, haswell[XRT__X86_XC0] = 0x7u;
    assert_int_equal(xrt__cpu_x86_target(haswell, base, sizeof base), 8);
    assert_string_equal(base, "01c=7ed83203,01d=7888111,07b=329,81c=21,81d=28000000,d1a=1,xc0=7"); /* SMEP is not code's */
    for (i = 0; i < sizeof differ / sizeof differ[0]; i++) {
        memcpy(w, haswell, sizeof w);
        w[differ[i].word] |= 1u << differ[i].bit;
        xrt__cpu_x86_target(w, other, sizeof other);
        if (!strcmp(base, other)) fail_msg("word %d bit %d does not change the target", differ[i].word, differ[i].bit);
    }
    for (i = 0; i < sizeof same / sizeof same[0]; i++) {
        memcpy(w, haswell, sizeof w);
        w[same[i].word] ^= 1u << same[i].bit;
        xrt__cpu_x86_target(w, other, sizeof other);
        assert_string_equal(base, other);
    }
    memcpy(w, haswell, sizeof w); /* AVX-512F with the ZMM state enabled: 16 lanes; without it, 8 */
    w[XRT__X86_07B] |= 1u << 16;
    assert_int_equal(xrt__cpu_x86_target(w, other, sizeof other), 8);
    w[XRT__X86_XC0] = 0xe7;
    assert_int_equal(xrt__cpu_x86_target(w, other, sizeof other), 16);
    for (i = 0; i < XRT__X86_WORDS; i++) w[i] = 0xffffffffu; /* every word full: still fits, sorted */
    xrt__cpu_x86_target(w, other, sizeof other);
    assert_int_equal(strlen(other) < sizeof other - 1, 1);
    assert_true(sorted(other));
#else
    (void)state;
    print_message("skipped: x86-64 only\n");
#endif
}

/* The kernel's view: a bit whose name a "flags" line leaves out is
   cleared (the instruction would fault), a listed one and an unnamed one stay,
   whatever this machine's own /proc/cpuinfo says. */
static void test_x86_kernel_view(void **state)
{
#if defined(__x86_64__)
    uint32_t w[XRT__X86_WORDS];
    size_t i;
    (void)state;
    for (i = 0; i < XRT__X86_WORDS; i++) w[i] = 0xffffffffu;
    xrt__cpu_x86_clear_unlisted(w, " flags\t\t: fpu avx avx2 fsgsbase bmi1 ");
    assert_true(w[XRT__X86_07B] & 1u << 5);           /* avx2: listed */
    assert_true(w[XRT__X86_07B] & 1u << 0);           /* fsgsbase: listed */
    assert_true(w[XRT__X86_01C] & 1u << 28);          /* avx: listed */
    assert_false(w[XRT__X86_07B] & 1u << 8);          /* bmi2: not listed */
    assert_false(w[XRT__X86_07B] & 1u << 16);         /* avx512f: not listed */
    assert_false(w[XRT__X86_01C] & 1u << 12);         /* fma: not listed */
    assert_true(w[XRT__X86_01C] & 1u << 31);          /* not a name the kernel lists: kept */
    for (i = 0; i < XRT__X86_WORDS; i++) w[i] = 0xffffffffu;
    xrt__cpu_x86_clear_unlisted(w, " flags : avx2x avx512 ");   /* whole names only */
    assert_false(w[XRT__X86_07B] & 1u << 5);
    assert_false(w[XRT__X86_07B] & 1u << 16);
#else
    (void)state;
    print_message("skipped: x86-64 only\n");
#endif
}

/* Every architecture but x86-64: the kernel's hwcap words whole, in hex,
   hwcap3 and hwcap4 only where either is set; on AArch64 but EVTSTRM and
   CPUID, which are no code's, so they give the same target. */
static void test_hwcap_features(void **state)
{
    static const int same[] = {2, 11}, differ[] = {0, 1, 22, 63};
    unsigned long hw[4] = {0x8fbul, 0x2ul, 0, 0}, w[4];
    char base[224], other[224];
    size_t i;
    (void)state;
    xrt__cpu_hwcap_features(hw, XRT__AARCH64_HWCAP_SYSTEM, base, sizeof base);
    assert_string_equal(base, "hwcap=fb,hwcap2=2");
    for (i = 0; i < sizeof same / sizeof same[0]; i++) {
        memcpy(w, hw, sizeof w);
        w[0] ^= 1ul << same[i];
        xrt__cpu_hwcap_features(w, XRT__AARCH64_HWCAP_SYSTEM, other, sizeof other);
        assert_string_equal(base, other);
    }
    for (i = 0; i < sizeof differ / sizeof differ[0]; i++) {
        memcpy(w, hw, sizeof w);
        w[0] ^= 1ul << differ[i];
        xrt__cpu_hwcap_features(w, XRT__AARCH64_HWCAP_SYSTEM, other, sizeof other);
        if (!strcmp(base, other)) fail_msg("hwcap bit %d does not change the target", differ[i]);
    }
    memcpy(w, hw, sizeof w);
    w[3] = 0x10;
    xrt__cpu_hwcap_features(w, XRT__AARCH64_HWCAP_SYSTEM, other, sizeof other);
    assert_string_equal(other, "hwcap=fb,hwcap2=2,hwcap3=0,hwcap4=10");
    xrt__cpu_hwcap_features(hw, 0, other, sizeof other); /* another architecture: every bit */
    assert_string_equal(other, "hwcap=8fb,hwcap2=2");
}

/* The architecture: the compiler's name for it (tests/aarch64.sh checks
   the names of other targets), else the kernel's (uname's machine). */
static void test_arch_name(void **state)
{
    struct utsname u;
    char arch[32];
    (void)state;
    xrt__cpu_arch(XRT__CPU_ARCH, arch, sizeof arch);
#if defined(__x86_64__)
    assert_string_equal(arch, "x86_64");
#elif defined(__aarch64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    assert_string_equal(arch, "aarch64");
#endif
    assert_true(arch[0] != 0);
    assert_int_equal(uname(&u), 0);
    xrt__cpu_arch("", arch, sizeof arch);
    assert_string_equal(arch, u.machine);
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

/* The fingerprint from REFERENCE.md's recipe, written again here: FNV-1a 64
   (offset 0xcbf29ce484222325, prime 0x100000001b3) over the bytes of
   backend, a 0, arch, a 0, vector_width in decimal, a 0, features, a 0. */
static uint64_t recipe(const xrt_target *t)
{
    char width[16];
    const char *parts[4];
    uint64_t h = 0xcbf29ce484222325ull;
    int i;
    snprintf(width, sizeof width, "%d", t->vector_width);
    parts[0] = t->backend, parts[1] = t->arch, parts[2] = width, parts[3] = t->features;
    for (i = 0; i < 4; i++) {
        const unsigned char *c = (const unsigned char *)parts[i];
        do h = (h ^ *c) * 0x100000001b3ull;
        while (*c++);
    }
    return h;
}

/* The value of feature word `name` ("07b") in a CPU target's features; 0 if
   it is not there (a word that is 0 is left out). */
static unsigned long word_of(const char *features, const char *name)
{
    const char *p = features;
    size_t n = strlen(name);
    while (*p) {
        if (!strncmp(p, name, n) && p[n] == '=') return strtoul(p + n + 1, NULL, 16);
        p += strcspn(p, ",");
        p += *p == ',';
    }
    return 0;
}

/* The kernel's list of the CPU's features (/proc/cpuinfo's flags, or
   Features on aarch64), with a space at each end; 0 where there is none. */
static int kernel_flags(char *line, size_t n, const char *key)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char *colon;
    if (!f) return 0;
    line[0] = 0;
    while (fgets(line + 1, (int)n - 2, f) && strncmp(line + 1, key, strlen(key)) != 0) {}
    fclose(f);
    if (strncmp(line + 1, key, strlen(key)) != 0 || !(colon = strchr(line + 1, ':'))) return 0;
    memmove(line, colon + 1, strlen(colon + 1) + 1);
    if (strchr(line, '\n')) *strchr(line, '\n') = ' ';
    else strcat(line, " ");
    return 1;
}

static int has_flag(const char *line, const char *flag)
{
    char word[64];
    snprintf(word, sizeof word, " %s ", flag);
    return strstr(line, word) != NULL;
}

/* On the CPU (directly or behind the tracing plugin): every ISA extension
   the kernel lists is in the target, in the CPUID word and bit the
   documentation names (a source of its own, not the code under test), and
   the vector width is the widest they imply. Under valgrind, whose virtual
   CPU lacks some (AVX-512), each feature xrt sees is the kernel's. */
static void assert_cpu_target(const xrt_target *t)
{
    static char line[16384];
    int slow = xrt_test_slowdown() > 1;
    size_t i;
#if defined(__x86_64__)
    static const struct { const char *flag, *word; int bit; } isa[] = {
        {"pni", "01c", 0},         {"pclmulqdq", "01c", 1},   {"ssse3", "01c", 9},        {"fma", "01c", 12},
        {"cx16", "01c", 13},       {"sse4_1", "01c", 19},     {"sse4_2", "01c", 20},      {"movbe", "01c", 22},
        {"popcnt", "01c", 23},     {"aes", "01c", 25},        {"xsave", "01c", 26},       {"avx", "01c", 28},
        {"f16c", "01c", 29},       {"rdrand", "01c", 30},     {"cmov", "01d", 15},        {"clflush", "01d", 19},
        {"mmx", "01d", 23},        {"fxsr", "01d", 24},       {"sse", "01d", 25},         {"sse2", "01d", 26},
        {"fsgsbase", "07b", 0},    {"bmi1", "07b", 3},        {"avx2", "07b", 5},         {"bmi2", "07b", 8},
        {"erms", "07b", 9},        {"avx512f", "07b", 16},    {"avx512dq", "07b", 17},    {"rdseed", "07b", 18},
        {"adx", "07b", 19},        {"avx512ifma", "07b", 21}, {"clflushopt", "07b", 23},  {"clwb", "07b", 24},
        {"avx512cd", "07b", 28},   {"sha_ni", "07b", 29},     {"avx512bw", "07b", 30},    {"avx512vl", "07b", 31},
        {"avx512vbmi", "07c", 1},  {"avx512_vbmi2", "07c", 6}, {"gfni", "07c", 8},        {"vaes", "07c", 9},
        {"vpclmulqdq", "07c", 10}, {"avx512_vnni", "07c", 11}, {"avx512_bitalg", "07c", 12}, {"avx512_vpopcntdq", "07c", 14},
        {"rdpid", "07c", 22},      {"movdiri", "07c", 27},    {"movdir64b", "07c", 28},   {"serialize", "07d", 14},
        {"avx512_fp16", "07d", 23}, {"avx_vnni", "17a", 4},   {"avx512_bf16", "17a", 5},  {"xsaveopt", "d1a", 0},
        {"xsavec", "d1a", 1},      {"xsaves", "d1a", 3},      {"lahf_lm", "81c", 0},      {"abm", "81c", 5},
        {"sse4a", "81c", 6},       {"3dnowprefetch", "81c", 8}, {"xop", "81c", 11},       {"fma4", "81c", 16},
        {"tbm", "81c", 21},        {"lm", "81d", 29},         {"rdtscp", "81d", 27},      {"clzero", "88b", 0},
        {"wbnoinvd", "88b", 9}};
    int lanes = 4;
    if (!kernel_flags(line, sizeof line, "flags")) {
        print_message("skipped: the CPU's features: /proc/cpuinfo lists none\n");
        return;
    }
    for (i = 0; i < sizeof isa / sizeof isa[0]; i++) {
        int kernel = has_flag(line, isa[i].flag), mine = (word_of(t->features, isa[i].word) >> isa[i].bit) & 1;
        if (mine != kernel && (!slow || mine))
            fail_msg("%s: the kernel says %d, the target's word %s bit %d says %d (features %s)", isa[i].flag, kernel,
                     isa[i].word, isa[i].bit, mine, t->features);
    }
    assert_true(word_of(t->features, "01c") >> 31 == 0); /* the hypervisor bit is not the code's */
    if (has_flag(line, "avx")) lanes = 8;
    if (has_flag(line, "avx512f")) lanes = 16;
    if (slow) assert_true(t->vector_width <= lanes);
    else assert_int_equal(t->vector_width, lanes);
#elif defined(__aarch64__)
    char want[64];
    if (!kernel_flags(line, sizeof line, "Features")) {
        print_message("skipped: the CPU's features: /proc/cpuinfo lists none\n");
        return;
    }
    /* the kernel lists asimd for HWCAP_ASIMD (bit 1), sve for HWCAP_SVE (bit 22), sve2 for HWCAP2_SVE2 (bit 1) */
    assert_int_equal(has_flag(line, "asimd"), (int)(word_of(t->features, "hwcap") >> 1 & 1));
    assert_int_equal(has_flag(line, "sve"), (int)(word_of(t->features, "hwcap") >> 22 & 1));
    assert_int_equal(has_flag(line, "sve2"), (int)(word_of(t->features, "hwcap2") >> 1 & 1));
    snprintf(want, sizeof want, "hwcap=%lx,", word_of(t->features, "hwcap"));
    assert_memory_equal(t->features, want, strlen(want));
#else
    (void)t, (void)slow, (void)i, (void)line;
#endif
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
    assert_true(t.arch[0] != 0);
    assert_true(t.vector_width > 0);
    assert_true(sorted(t.features));
    assert_true(t.fingerprint == xrt_target_fingerprint(&t));
    assert_true(t.fingerprint == recipe(&t)); /* REFERENCE.md's recipe gives the same key */
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
    /* a backend in front of the CPU (the tracing plugin) gives the CPU's
       record, with its name and fingerprint: the same machine code has one
       key however it is reached; another backend names itself */
    if (strcmp(backend, "cpu") != 0 && xrt_set_backend("cpu") == XRT_SUCCESS) {
        OK(xrt_get_target(&again));
        OK(xrt_set_backend(backend));
        if (strcmp(again.arch, t.arch) == 0) {
            assert_string_equal(t.backend, "cpu");
            assert_int_equal(t.vector_width, again.vector_width);
            assert_string_equal(t.features, again.features);
            assert_true(t.fingerprint == again.fingerprint);
        } else {
            assert_string_equal(t.backend, backend);
        }
    } else {
        assert_string_equal(t.backend, backend);
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
        cmocka_unit_test(test_x86_words),
        cmocka_unit_test(test_x86_kernel_view),
        cmocka_unit_test(test_hwcap_features),
        cmocka_unit_test(test_arch_name),
        cmocka_unit_test(test_fallback_from_properties),
    };
    const struct CMUnitTest each[] = {
        cmocka_unit_test(test_current_target),
    };
    int failed = xrt_test_run_group("target", pure, NULL);
    return failed + xrt_test_run_on_backends("target", each, sizeof each / sizeof each[0], NULL);
}
