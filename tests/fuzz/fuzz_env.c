/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the environment variables xrt parses at xrt_init
   (XRT_BACKEND, XRT_LOG), set from the input, then xrt_init, a call, and
   xrt_shutdown. Build: make fuzz (tests/fuzz/fuzz.mk).

   Input: one flags byte (bit 0: set XRT_BACKEND, bit 1: set XRT_LOG), then
   the value of XRT_BACKEND, a NUL byte, the value of XRT_LOG.

   Checked against a model of the documented rules:
   - XRT_BACKEND: "" (or only blanks and commas) means unset (the first
     available backend); otherwise a comma-separated list whose entries are
     trimmed of spaces and matched case-insensitively; empty entries are
     skipped. If every other entry names a backend, the first available one
     is selected (none available: backend unavailable or no device); an entry
     that names none fails xrt_init with not found, a detail that says
     "unknown backend", and every call fails the same way. Values with other
     white space than ' ' are checked for the invariants only.
   - XRT_LOG: "" means unset, and a valid level (a name in any case, or 0-4)
     draws no warning.
   - Always: xrt_init returns one of success, not found, backend unavailable,
     no device; the detail and every log line are bounded strings; nothing
     leaks (LeakSanitizer) and nothing is read or written out of bounds. */
#define XRT_IMPL
#include "xrt.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_env: %s: ", #cond);                                              \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static int level_warnings;

static void log_fn(xrt_log_level level, const char *msg, void *user)
{
    (void)user;
    CHECK(level >= XRT_LOG_NONE && level <= XRT_LOG_DEBUG, "log level %d", (int)level);
    CHECK(strlen(msg) < 4096, "a log line of %zu characters", strlen(msg));
    if (level == XRT_LOG_WARN && strncmp(msg, "XRT_LOG=", 8) == 0) level_warnings++;
}

static char lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

/* A valid XRT_LOG: a level name in any case, or one digit 0-4. */
static int valid_level(const char *v)
{
    static const char *const names[] = {"none", "error", "warn", "info", "debug"};
    size_t i, j;
    if (v[0] >= '0' && v[0] <= '4' && !v[1]) return 1;
    for (i = 0; i < 5; i++) {
        for (j = 0; names[i][j] && lower(v[j]) == names[i][j]; j++) {}
        if (!names[i][j] && !v[j]) return 1;
    }
    return 0;
}

/* The model of XRT_BACKEND. Returns 1 if it applies (only ' ' as white
   space); *expect is then the backend to be selected, or NULL with *status
   the expected failure. */
static int model_backend(const char *v, const char **expect, xrt_status *status)
{
    const char *p = v;
    int all_known = 1, n = 0, i;
    *expect = NULL;
    if (!v[strspn(v, " \t,")]) v = ""; /* blank: unset */
    for (; *p; p++)
        if (*p == '\t' || *p == '\n' || *p == '\r' || *p == '\v' || *p == '\f') return 0;
    if (!v[0]) { /* unset: the first available */
        CHECK(xrt_backend_count(&n) == XRT_SUCCESS, "xrt_backend_count");
        for (i = 0; i < n && !*expect; i++) {
            xrt_backend_info info;
            CHECK(xrt_backend_get_info(i, &info) == XRT_SUCCESS, "xrt_backend_get_info");
            if (info.available) *expect = info.name;
        }
        *status = *expect ? XRT_SUCCESS : XRT_ERROR_BACKEND_UNAVAILABLE;
        return 1;
    }
    CHECK(xrt_backend_count(&n) == XRT_SUCCESS, "xrt_backend_count");
    for (p = v;;) {
        char word[64];
        size_t len = strcspn(p, ","), a = 0, b = len, k;
        int found = 0;
        while (a < b && p[a] == ' ') a++;
        while (b > a && p[b - 1] == ' ') b--;
        if (a == b) {
            /* an empty entry is skipped */
        } else if (b - a >= sizeof word) {
            all_known = 0;
        } else {
            for (k = a; k < b; k++) word[k - a] = lower(p[k]);
            word[b - a] = 0;
            for (i = 0; i < n; i++) {
                xrt_backend_info info;
                CHECK(xrt_backend_get_info(i, &info) == XRT_SUCCESS, "xrt_backend_get_info");
                if (strcmp(info.name, word) == 0) {
                    found = 1;
                    if (info.available && !*expect) *expect = info.name;
                }
            }
            all_known &= found;
        }
        if (!p[len]) break;
        p += len + 1;
    }
    if (!all_known) {
        *expect = NULL;
        *status = XRT_ERROR_NOT_FOUND;
    } else {
        *status = *expect ? XRT_SUCCESS : XRT_ERROR_BACKEND_UNAVAILABLE; /* or no device */
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char buf[1024], *backend, *level;
    const char *expect = NULL, *name = NULL;
    xrt_status st, want = XRT_SUCCESS;
    size_t n;
    int modelled;
    void *p = NULL;
    if (size < 1) return 0;
    n = size - 1 < sizeof buf - 2 ? size - 1 : sizeof buf - 2;
    memcpy(buf, data + 1, n);
    buf[n] = buf[n + 1] = 0;
    backend = buf;
    level = buf + strlen(buf) + (strlen(buf) < n ? 1 : 0);
    if (data[0] & 1) setenv("XRT_BACKEND", backend, 1);
    else unsetenv("XRT_BACKEND");
    if (data[0] & 2) setenv("XRT_LOG", level, 1);
    else unsetenv("XRT_LOG");

    xrt_shutdown();
    xrt_set_log_callback(log_fn, NULL);
    level_warnings = 0;
    st = xrt_init();
    CHECK(st == XRT_SUCCESS || st == XRT_ERROR_NOT_FOUND || st == XRT_ERROR_BACKEND_UNAVAILABLE ||
              st == XRT_ERROR_NO_DEVICE,
          "xrt_init -> %s", xrt_status_string(st));
    CHECK(strlen(xrt_get_last_error_string()) < 4096, "a detail of %zu characters", strlen(xrt_get_last_error_string()));
    if ((data[0] & 2) && (!level[0] || valid_level(level)))
        CHECK(level_warnings == 0, "XRT_LOG=\"%s\" drew a warning", level);

    modelled = model_backend((data[0] & 1) ? backend : "", &expect, &want);
    if (modelled && want == XRT_SUCCESS) {
        CHECK(st == XRT_SUCCESS, "XRT_BACKEND=\"%s\": xrt_init -> %s (\"%s\"), expected %s", backend,
              xrt_status_string(st), xrt_get_last_error_string(), expect);
        CHECK(xrt_get_backend(&name) == XRT_SUCCESS && strcmp(name, expect) == 0, "XRT_BACKEND=\"%s\" selects %s, not %s",
              backend, name ? name : "nothing", expect);
    } else if (modelled && want == XRT_ERROR_NOT_FOUND) {
        CHECK(st == XRT_ERROR_NOT_FOUND, "XRT_BACKEND=\"%s\": xrt_init -> %s, expected not found", backend,
              xrt_status_string(st));
        CHECK(strstr(xrt_get_last_error_string(), "unknown backend") != NULL, "detail \"%s\"", xrt_get_last_error_string());
    } else if (modelled) {
        CHECK(st == XRT_ERROR_BACKEND_UNAVAILABLE || st == XRT_ERROR_NO_DEVICE, "XRT_BACKEND=\"%s\": xrt_init -> %s",
              backend, xrt_status_string(st));
    }
    /* a call on the default backend: works, or fails as xrt_init did (no silent fallback) */
    if (st == XRT_SUCCESS) {
        CHECK(xrt_malloc(&p, 64) == XRT_SUCCESS, "xrt_malloc after a successful xrt_init: %s", xrt_get_last_error_string());
        CHECK(xrt_free(p) == XRT_SUCCESS, "xrt_free");
    } else {
        CHECK(xrt_malloc(&p, 64) == st, "xrt_malloc after xrt_init failed with %s", xrt_status_string(st));
        CHECK(p == NULL, "a failed xrt_malloc left a pointer");
    }
    xrt_shutdown();
    xrt_set_log_callback(NULL, NULL);
    return 0;
}
