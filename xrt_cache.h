/* SPDX-License-Identifier: MIT */
/* xrt_cache.h - building kernels: the kernel cache (its keys, trust rules,
   locking and on-disk format) and the C compiler driver that builds the CPU
   backend's modules from source (XRT_CC).

   Included by xrt.h in the XRT_IMPL translation unit, after the utilities
   it uses (errors, logging, environment variables) and before the backends
   that use it; never include it yourself. Private names: xrt__cache_ (the
   cache), xrt__cc_ (the compiler driver).

   How this file is laid out (grep for the ">> " markers; tests/layout.sh
   checks this list against them):
     >> cache                 its state, keys, running a program
     >> cache: trust          which directories and entries may be used
     >> cache: the kernel header  what a C kernel's #include "xrt.h" finds
     >> cache: names          the file names xrt makes; eviction
     >> cache: what a build read  manifests of the files a build read
     >> cache: getting an entry  lookup, locking, building, storing
     >> cc: the C compiler driver  (compiled with the CPU backend only)
     >> cc: what is never cached  builds that read the time or unlisted files
     >> cc: what the compiler says it reads  configuration and specs files
*/
#if defined(XRT__IMPL_INCLUDED) && !defined(XRT__CACHE_IMPL_INCLUDED)
#define XRT__CACHE_IMPL_INCLUDED

/* >> cache. Built modules live on disk under XRT_CACHE_DIR
   (default $XDG_CACHE_HOME/xrt, else ~/.cache/xrt), used only where it is
   the user's alone (see "trust" below). The key hashes the target
   fingerprint, the toolchain identity, the options, the input, the format
   version and the environment variables that change a compilation; an
   entry is named by the key and the contents of the files the build read
   (see "what a build read"). An entry is written to a temporary name and
   renamed into place; a lock file per key makes one process build while
   the others wait; an entry that fails to load is deleted and built again.
   XRT_CACHE_BYTES bounds the size (default 1 GiB): least recently used
   entries go first (a hit refreshes the entry's time). XRT_CACHE=0: build
   in a private temporary directory, deleted after loading. */
#define XRT__CACHE_FORMAT 5 /* 2: manifests list paths that must stay absent; 3: paths as the compiler named them; 4: and the working directory a build needs; 5: and the programs the compiler ran */

static pthread_mutex_t xrt__cache_lock = PTHREAD_MUTEX_INITIALIZER; /* the counters, the toolchain memo */
static xrt_cache_stats xrt__cache_stats;
static unsigned xrt__cache_seq; /* names of this process's temporary files */

XRT__BACKEND_HELPER void xrt__cache_count(uint64_t *counter, uint64_t n)
{
    pthread_mutex_lock(&xrt__cache_lock);
    *counter += n;
    pthread_mutex_unlock(&xrt__cache_lock);
}

XRT_API xrt_status xrt_cache_get_stats(xrt_cache_stats *stats)
{
    if (!stats) return xrt_error(XRT_ERROR_INVALID_VALUE, "xrt_cache_get_stats", "stats is NULL");
    pthread_mutex_lock(&xrt__cache_lock);
    *stats = xrt__cache_stats;
    pthread_mutex_unlock(&xrt__cache_lock);
    return XRT_SUCCESS;
}

/* Two FNV-1a 64 streams with different seeds: a 128-bit key. */
typedef struct xrt__cache_key { uint64_t a, b; } xrt__cache_key;
XRT__BACKEND_HELPER void xrt__cache_key_add(xrt__cache_key *k, const void *data, size_t n)
{
    const unsigned char *p = (const unsigned char *)data;
    size_t i;
    for (i = 0; i < n; i++) {
        k->a = (k->a ^ p[i]) * 0x100000001b3u;
        k->b = (k->b ^ p[i]) * 0x100000001b3u;
    }
    k->a = (k->a ^ 0xff) * 0x100000001b3u; /* field separator */
    k->b = (k->b ^ 0xfe) * 0x100000001b3u;
}
XRT__BACKEND_HELPER void xrt__cache_key_str(xrt__cache_key *k, const char *s) { xrt__cache_key_add(k, s ? s : "", s ? strlen(s) : 0); }
XRT__BACKEND_HELPER void xrt__cache_key_init(xrt__cache_key *k, const char *kind)
{
    k->a = 0xcbf29ce484222325u;
    k->b = 0x84222325cbf29ce4u;
    xrt__cache_key_str(k, "xrt-cache");
    int format = XRT__CACHE_FORMAT;
    xrt__cache_key_add(k, &format, sizeof format);
    xrt__cache_key_str(k, kind);
}

/* The words of s (split at spaces, tabs and newlines) as a NULL-terminated
   array in one allocation with their text (free it with XRT_FREE); *n is
   their count. Nothing is cut: the array is as long as s needs. NULL when
   out of memory. */
XRT__BACKEND_HELPER char **xrt__cc_split_args(const char *s, size_t *n)
{
    static const char space[] = " \t\n";
    size_t words = 0, len, i = 0;
    const char *p;
    char **argv, *q;
    if (!s) s = "";
    len = strlen(s);
    for (p = s + strspn(s, space); *p; p += strspn(p, space)) {
        words++;
        p += strcspn(p, space);
    }
    if (!(argv = (char **)XRT_MALLOC((words + 1) * sizeof *argv + len + 1))) return NULL;
    q = (char *)(argv + words + 1); /* the text, after the array */
    memcpy(q, s, len + 1);
    for (q += strspn(q, space); *q; q += strspn(q, space)) {
        argv[i++] = q;
        q += strcspn(q, space);
        if (*q) *q++ = 0;
    }
    argv[i] = NULL;
    *n = words;
    return argv;
}

extern char **environ;

/* One read of the compiler's output into log (the first log_size - 1 bytes
   kept, the rest drained): 1, or 0 at the pipe's end or on an error, or -1
   where nothing is there now (EINTR; EAGAIN once the pipe is non-blocking). */
XRT__BACKEND_HELPER int xrt__cc_log_read(int fd, char *log, size_t log_size, size_t *used)
{
    char chunk[4096];
    ssize_t got = read(fd, chunk, sizeof chunk);
    size_t take;
    if (got <= 0) return got < 0 && (errno == EINTR || errno == EAGAIN) ? -1 : 0;
    take = log_size > *used + 1 ? log_size - *used - 1 : 0;
    if (take > (size_t)got) take = (size_t)got;
    memcpy(log + *used, chunk, take);
    *used += take;
    return 1;
}

#define XRT__CC_POLL_MS 50 /* how soon an exit is seen while another process holds the pipe */
#define XRT__CC_DRAIN_READS 256 /* what is left in the pipe after the exit: at most this many reads */

/* The compiler's output into log while it runs, and what is left in the pipe
   once it has exited: its end is the compiler's exit, not the pipe's end, as
   a process the compiler left behind (a wrapper's server) or a child the
   program forked while the pipe's write end was open holds a copy of the
   pipe as long as it lives. waitpid's result; its status in *status, its
   errno in *err. */
XRT__BACKEND_HELPER pid_t xrt__cc_collect(int fd, pid_t pid, char *log, size_t log_size, int *status, int *err)
{
    struct pollfd p;
    size_t used = 0;
    pid_t waited = 0;
    int reading = 1, i;
    p.fd = fd, p.events = POLLIN, p.revents = 0;
    while (reading && waited == 0) {
        if (poll(&p, 1, XRT__CC_POLL_MS) > 0) reading = xrt__cc_log_read(fd, log, log_size, &used) != 0;
        if ((waited = waitpid(pid, status, reading ? WNOHANG : 0)) < 0 && errno == EINTR) waited = 0;
    }
    while (waited == 0) /* the pipe's end came first: only the exit is left */
        if ((waited = waitpid(pid, status, 0)) < 0 && errno == EINTR) waited = 0;
    if (waited < 0) *err = errno;
    if (reading && fcntl(fd, F_SETFL, O_NONBLOCK) == 0)
        for (i = 0; i < XRT__CC_DRAIN_READS && xrt__cc_log_read(fd, log, log_size, &used) > 0; i++) {}
    if (log_size) log[used] = 0;
    return waited;
}

/* Runs the program `file` (NULL: argv[0], found along PATH) with argv,
   stdout and stderr into log (the first log_size - 1 bytes kept, the rest
   drained); *code is its exit status (-1: killed). A run whose end cannot
   be waited for (SIGCHLD ignored: the kernel reaps the child) is a failed
   run, never a success read from a zeroed status. */
XRT__BACKEND_HELPER xrt_status xrt__cc_run(const char *who, const char *file, char *const *argv, char *log, size_t log_size,
                                           int *code)
{
    posix_spawn_file_actions_t fa;
    int fds[2], rc, status = 0, err = 0;
    pid_t pid, waited;
    if (log_size) log[0] = 0;
    if (xrt__secure()) /* PATH and XRT_CC are the caller's: never run them with the program's privileges */
        return xrt_error(XRT_ERROR_NOT_PERMITTED, who,
                         "%.64s not run: a program with elevated privileges (setuid, setgid or capabilities) runs no "
                         "compiler its environment chooses",
                         argv[0]);
    if (pipe2(fds, O_CLOEXEC) != 0)
        return xrt_native_error(XRT_ERROR_SYSTEM, who, "pipe2", errno, "errno", strerror(errno));
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
    rc = file ? posix_spawn(&pid, file, &fa, NULL, argv, environ) : posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        if (log_size) snprintf(log, log_size, "%s: %s\n", argv[0], strerror(rc));
        return xrt_error(XRT_ERROR_COMPILE_FAILED, who, "cannot run the compiler '%s': %s", argv[0], strerror(rc));
    }
    waited = xrt__cc_collect(fds[0], pid, log, log_size, &status, &err);
    close(fds[0]);
    if (waited != pid)
        return xrt_error(XRT_ERROR_COMPILE_FAILED, who,
                         "'%s' ran, but its exit status is unknown (waitpid: %s; is SIGCHLD ignored?): counted as failed",
                         argv[0], strerror(err));
    *code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return XRT_SUCCESS;
}

/* >> cache: trust. Entries are code, loaded into the process:
   the cache directory and every directory above it must be the user's (or
   root's) and not writable by group or others (a directory above may be, if
   sticky, as /tmp), and an entry must be the user's own regular file that
   group and others cannot write (no symbolic link is followed). Otherwise
   the module is built privately, with a warning. xrt creates its
   directories 0700 and its files 0600 (entries 0700). */
#define XRT__CACHE_STALE_S 3600 /* a temporary, or a lock without its entry, older than this is swept */

/* Why `st` may not be trusted, or NULL. `dir_above`: a directory above the
   cache (root's, or sticky and others-writable, is fine). */
XRT__BACKEND_HELPER const char *xrt__cache_distrust(const struct stat *st, int dir_above, char *why, size_t n)
{
    uid_t me = geteuid();
    if (st->st_uid != me && !(dir_above && st->st_uid == 0)) {
        snprintf(why, n, "owned by uid %u, not by you (uid %u)", (unsigned)st->st_uid, (unsigned)me);
        return why;
    }
    if ((st->st_mode & 022) && !(dir_above && (st->st_mode & S_ISVTX))) {
        snprintf(why, n, "writable by group or others (mode %04o)", (unsigned)(st->st_mode & 07777));
        return why;
    }
    return NULL;
}

/* Whether dir (absolute, symbolic links resolved) and the directories above
   it may be trusted; the reason in why if not. */
XRT__BACKEND_HELPER int xrt__cache_dir_trusted(const char *dir, char *why, size_t n)
{
    char path[PATH_MAX], *slash;
    struct stat st;
    int above = 0;
    snprintf(path, sizeof path, "%s", dir);
    for (;;) {
        char reason[128];
        if (stat(path[0] ? path : "/", &st) != 0) return snprintf(why, n, "%s: %s", path, strerror(errno)), 0;
        if (!above && !S_ISDIR(st.st_mode)) return snprintf(why, n, "%s is not a directory", path), 0;
        if (xrt__cache_distrust(&st, above, reason, sizeof reason))
            return snprintf(why, n, "%s is %s", path[0] ? path : "/", reason), 0;
        if (!path[0] || !(slash = strrchr(path, '/'))) return 1;
        *slash = 0; /* the directory above */
        above = 1;
    }
}

/* Creates the missing directories of `dir` (0700). */
XRT__BACKEND_HELPER void xrt__cache_mkdirs(char *dir)
{
    char *p;
    for (p = dir + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(dir, 0700);
            *p = '/';
        }
    mkdir(dir, 0700);
}

/* The cache directory (created if need be, symbolic links resolved, checked
   as above) into dir; 0 where the cache is off or cannot be used (with
   `warn`, a warning says why), then a module is built privately. */
XRT__BACKEND_HELPER int xrt__cache_dir(char *dir, size_t n, int warn)
{
    const char *env = getenv("XRT_CACHE_DIR"), *base;
    char want[PATH_MAX], real[PATH_MAX], why[PATH_MAX + 160];
    int len;
    if (!xrt__env_switch("XRT_CACHE", 1)) return 0;
    if (xrt__secure()) return 0; /* its directory is the caller's, its entries code: a private one each time */
    if (env && *env) len = snprintf(want, sizeof want, "%s", env);
    else if ((base = getenv("XDG_CACHE_HOME")) && *base) len = snprintf(want, sizeof want, "%s/xrt", base);
    else if ((base = getenv("HOME")) && *base) len = snprintf(want, sizeof want, "%s/.cache/xrt", base);
    else return 0;
    if (len >= 0 && (size_t)len < n) {
        xrt__cache_mkdirs(want);
        if (!realpath(want, real)) {
            if (warn) xrt__log_warn_once("kernel cache %.160s cannot be created (%s): building privately", want, strerror(errno));
            return 0;
        }
        len = snprintf(dir, n, "%s", real);
    }
    if (len < 0 || (size_t)len >= n) { /* an entry's path would not fit: never cut it short */
        if (warn)
            xrt__log_warn_once("kernel cache %.64s...: the path is too long (%d bytes, at most %zu): building privately", want,
                               len, n - 1);
        return 0;
    }
    if (!xrt__cache_dir_trusted(dir, why, sizeof why)) {
        if (warn) xrt__log_warn_once("kernel cache %.160s not used: %.80s: building privately", dir, why);
        return 0;
    }
    return 1;
}

/* >> cache: the kernel header. A C-source kernel's
   `#include "xrt.h"` finds xrt's kernel declarations (XRT__KERNEL_DECLS) in
   <dir>/include-<16 hex>/xrt.h, passed with -idirafter so that a user's own
   -I to the full xrt.h still wins; <dir> is the cache directory (or the
   private build directory). The hex is the text's hash: the path and the
   contents of a version's header never change, so they fit the cache's
   manifest, and two versions sharing a cache each have their own. */
#define XRT__STR_(...) #__VA_ARGS__
#define XRT__STR(x) XRT__STR_(x)
static const char xrt__cache_kernel_header[] =
    "/* The declarations a CPU kernel of xrt uses, written by xrt (the full xrt.h has them too). */\n"
    "#if !defined(XRT_H_INCLUDED) && !defined(XRT__KERNEL_H)\n#define XRT__KERNEL_H\n#include <stddef.h>\n"
    XRT__STR(XRT__KERNEL_DECLS) "\n#endif\n";

/* Its directory's path into out; 0 where it does not fit. */
XRT__BACKEND_HELPER int xrt__cache_kernel_header_dir(const char *dir, char *out, size_t n)
{
    xrt__cache_key k;
    int len;
    xrt__cache_key_init(&k, "kernel header");
    xrt__cache_key_add(&k, xrt__cache_kernel_header, sizeof xrt__cache_kernel_header - 1);
    len = snprintf(out, n, "%.*s/include-%016llx", PATH_MAX, dir, (unsigned long long)k.a);
    return len > 0 && (size_t)len + 16 < n;
}

/* Makes the kernel header of `dir` (if need be: written once, to a
   temporary, then renamed) and its directory's path into out; 0 where it
   cannot be had or is not xrt's own (a private directory of this user's,
   never through a link), and then a kernel that includes xrt.h fails to
   compile, saying so. */
XRT__BACKEND_HELPER int xrt__cache_kernel_header_make(const char *dir, char *out, size_t n)
{
    char file[PATH_MAX + 48], tmp[PATH_MAX + 96];
    struct stat st;
    int fd, ok;
    if (!xrt__cache_kernel_header_dir(dir, out, n) || strlen(out) + 8 >= PATH_MAX) return 0;
    if (mkdir(out, 0700) != 0 && errno != EEXIST) return 0;
    if (lstat(out, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) return 0;
    snprintf(file, sizeof file, "%s/xrt.h", out);
    if (lstat(file, &st) == 0) return S_ISREG(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & 022);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%u", file, (long)getpid(), __atomic_add_fetch(&xrt__cache_seq, 1, __ATOMIC_RELAXED));
    if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) return 0;
    ok = write(fd, xrt__cache_kernel_header, sizeof xrt__cache_kernel_header - 1) == (ssize_t)(sizeof xrt__cache_kernel_header - 1);
    ok = close(fd) == 0 && ok && rename(tmp, file) == 0;
    if (!ok) unlink(tmp);
    return ok;
}

/* Removes a private build directory's kernel header. */
XRT__BACKEND_HELPER void xrt__cache_kernel_header_remove(const char *dir)
{
    char inc[PATH_MAX + 48], file[PATH_MAX + 64];
    if (!xrt__cache_kernel_header_dir(dir, inc, sizeof inc)) return;
    snprintf(file, sizeof file, "%s/xrt.h", inc);
    unlink(file);
    rmdir(inc);
}

/* >> cache: names. xrt counts, evicts and sweeps only the
   names it makes: <32 hex>.so entries, <32 hex>.deps manifests (see below),
   <32 hex>.lock locks, the temporaries <32 hex>.so.tmp.<pid>.<n>[.c|.d|.ld|.absent]
   and <32 hex>.deps.tmp.<pid>.<n>, cc-<16 hex>.id and its temporaries
   cc-<16 hex>.id.tmp.<pid>, and in include-<16 hex>/ (the kernel header)
   xrt.h and its temporaries xrt.h.tmp.<pid>.<n>. */
enum { XRT__CACHE_NAME_OTHER, XRT__CACHE_NAME_ENTRY, XRT__CACHE_NAME_MANIFEST, XRT__CACHE_NAME_LOCK, XRT__CACHE_NAME_TEMP };

XRT__BACKEND_HELPER size_t xrt__cache_hex_run(const char *s)
{
    size_t i = 0;
    while ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')) i++;
    return i;
}

XRT__BACKEND_HELPER size_t xrt__cache_digit_run(const char *s)
{
    size_t i = 0;
    while (s[i] >= '0' && s[i] <= '9') i++;
    return i;
}

/* Whether s is ".tmp.<digits>" then, if `seq`, ".<digits>" and, if seq is
   1, optionally ".c", ".d", ".ld" or ".absent" (a build's own files). */
XRT__BACKEND_HELPER int xrt__cache_temp_suffix(const char *s, int seq)
{
    size_t d;
    if (strncmp(s, ".tmp.", 5) || !(d = xrt__cache_digit_run(s + 5))) return 0;
    s += 5 + d;
    if (!seq) return !*s;
    if (*s != '.' || !(d = xrt__cache_digit_run(s + 1))) return 0;
    s += 1 + d;
    return !*s || (seq == 1 && (!strcmp(s, ".c") || !strcmp(s, ".d") || !strcmp(s, ".ld") || !strcmp(s, ".absent")));
}

XRT__BACKEND_HELPER int xrt__cache_name(const char *name)
{
    if (xrt__cache_hex_run(name) == 32) {
        const char *s = name + 32;
        if (!strcmp(s, ".so")) return XRT__CACHE_NAME_ENTRY;
        if (!strcmp(s, ".deps")) return XRT__CACHE_NAME_MANIFEST;
        if (!strcmp(s, ".lock")) return XRT__CACHE_NAME_LOCK;
        if ((!strncmp(s, ".so", 3) && xrt__cache_temp_suffix(s + 3, 1)) || (!strncmp(s, ".deps", 5) && xrt__cache_temp_suffix(s + 5, 1)))
            return XRT__CACHE_NAME_TEMP;
        return XRT__CACHE_NAME_OTHER;
    }
    if (!strncmp(name, "cc-", 3) && xrt__cache_hex_run(name + 3) == 16 && !strncmp(name + 19, ".id", 3) &&
        xrt__cache_temp_suffix(name + 22, 0))
        return XRT__CACHE_NAME_TEMP;
    return XRT__CACHE_NAME_OTHER;
}

/* A leftover of a killed or failed build: a temporary, or a lock without
   its entry or manifest, untouched for XRT__CACHE_STALE_S (a build in
   progress touches its files, and a fresh lock may be held). */
XRT__BACKEND_HELPER int xrt__cache_stale(int dirfd, const char *name, int kind, const struct stat *st)
{
    char entry[64], manifest[64];
    struct stat es;
    if (kind != XRT__CACHE_NAME_TEMP && kind != XRT__CACHE_NAME_LOCK) return 0;
    if (time(NULL) - st->st_mtim.tv_sec < XRT__CACHE_STALE_S) return 0;
    if (kind == XRT__CACHE_NAME_TEMP) return 1;
    snprintf(entry, sizeof entry, "%.32s.so", name);
    snprintf(manifest, sizeof manifest, "%.32s.deps", name);
    return fstatat(dirfd, entry, &es, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT &&
           fstatat(dirfd, manifest, &es, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT;
}

/* Sweeps the stale temporaries (xrt.h.tmp.<pid>.<n>) a killed process
   left in the kernel header's directory include-<16 hex>: the user's own
   directory, never through a link, only that name. */
XRT__BACKEND_HELPER void xrt__cache_sweep_include(int dirfd, const char *name)
{
    struct dirent *e;
    struct stat st;
    DIR *d;
    int fd;
    if (strncmp(name, "include-", 8) || xrt__cache_hex_run(name + 8) != 16 || name[24]) return;
    if ((fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) return;
    if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || !(d = fdopendir(fd))) {
        close(fd);
        return;
    }
    while ((e = readdir(d)) != NULL)
        if (!strncmp(e->d_name, "xrt.h", 5) && xrt__cache_temp_suffix(e->d_name + 5, 2) &&
            fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
            time(NULL) - st.st_mtim.tv_sec >= XRT__CACHE_STALE_S)
            unlinkat(fd, e->d_name, 0);
    closedir(d);
}

/* Removes least recently used entries and manifests (by modification time)
   until they take at most XRT_CACHE_BYTES; `keep` (an entry's file name)
   and the manifest of `keep_key` (a key's 32 hex digits) stay. Stale
   leftovers go on the way. Only xrt's own names, never through a link. */
XRT__BACKEND_HELPER void xrt__cache_evict(const char *dir, const char *keep, const char *keep_key)
{
    unsigned long long bound = xrt__env_size("XRT_CACHE_BYTES", 1ull << 30);
    char keep_manifest[64];
    snprintf(keep_manifest, sizeof keep_manifest, "%.32s.deps", keep_key);
    for (;;) {
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
        struct dirent *e;
        char oldest[64] = "";
        struct timespec old = {0, 0};
        uint64_t total = 0;
        if (!d) {
            if (fd >= 0) close(fd);
            return;
        }
        while ((e = readdir(d)) != NULL) {
            int kind = xrt__cache_name(e->d_name);
            struct stat st;
            if (kind == XRT__CACHE_NAME_OTHER) xrt__cache_sweep_include(fd, e->d_name);
            if (kind == XRT__CACHE_NAME_OTHER || fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
                continue;
            if (xrt__cache_stale(fd, e->d_name, kind, &st)) {
                unlinkat(fd, e->d_name, 0);
                continue;
            }
            if (kind != XRT__CACHE_NAME_ENTRY && kind != XRT__CACHE_NAME_MANIFEST) continue;
            total += (uint64_t)st.st_size;
            if (strcmp(e->d_name, keep) && strcmp(e->d_name, keep_manifest) &&
                (!oldest[0] || st.st_mtim.tv_sec < old.tv_sec ||
                 (st.st_mtim.tv_sec == old.tv_sec && st.st_mtim.tv_nsec < old.tv_nsec))) {
                old = st.st_mtim;
                snprintf(oldest, sizeof oldest, "%.40s", e->d_name); /* an entry's or manifest's name */
            }
        }
        if (total <= bound || !oldest[0] || unlinkat(fd, oldest, 0) != 0) {
            closedir(d);
            pthread_mutex_lock(&xrt__cache_lock);
            xrt__cache_stats.bytes = total;
            pthread_mutex_unlock(&xrt__cache_lock);
            return;
        }
        if (xrt__cache_name(oldest) == XRT__CACHE_NAME_ENTRY) xrt__cache_count(&xrt__cache_stats.evictions, 1);
        /* its lock file too (a builder that still holds it only builds an entry twice) */
        memcpy(oldest + 32, ".lock", 6);
        unlinkat(fd, oldest, 0);
        closedir(d);
    }
}

/* >> cache: what a build read. A build may list the files it
   read in <its output>.d (make syntax, as cc -MD -MF writes it). Their
   paths (absolute, as named: links unresolved) and hashes (of the contents
   and of the file the path resolves to) make the manifest <key>.deps, and the
   entry is named by the key and the manifest: a lookup reads the manifest
   and hashes each file again (as ccache's direct mode does), so a changed
   header is another entry, never a stale hit. A build may also list, in
   <its output>.absent, paths that must stay absent and ("=<dir>") the
   working directory it needs; a lookup checks those too. A file that
   changed while the build ran, or a list that cannot be read, leaves
   nothing cached. */
#define XRT__CACHE_TEXT_MAX (1u << 20) /* the longest manifest or dependency list */

/* A file read whole (NUL-terminated; free it), never through a link, only
   the user's own regular file of at most XRT__CACHE_TEXT_MAX bytes; NULL
   otherwise. */
XRT__BACKEND_HELPER char *xrt__cache_read(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    char why[128], *text = NULL;
    size_t got = 0;
    ssize_t r = 1;
    if (fd < 0) return NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && !xrt__cache_distrust(&st, 0, why, sizeof why) &&
        (uint64_t)st.st_size < XRT__CACHE_TEXT_MAX && (text = (char *)XRT_MALLOC((size_t)st.st_size + 1)) != NULL) {
        while (got < (size_t)st.st_size && (r = read(fd, text + got, (size_t)st.st_size - got)) != 0)
            if (r > 0) got += (size_t)r;
            else if (errno != EINTR) break;
        text[got] = 0;
        *len = got;
        if (r < 0 || got != (size_t)st.st_size) {
            XRT_FREE(text);
            text = NULL;
        }
    }
    close(fd);
    return text;
}

/* A list the compiler wrote for the cache (<out>.d, <out>.ld) made 0600
   before it is read: the compiler creates it with the umask's mode (0664
   under umask 002), which xrt__cache_read refuses as group-writable, and
   nothing would ever be cached. It lies in the cache's own directory (or
   the private build directory), where no one else can have put it; only
   the user's own regular file, never through a link. */
XRT__BACKEND_HELPER void xrt__cache_make_private(const char *path)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0) return;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && (st.st_mode & 077)) fchmod(fd, 0600);
    close(fd);
}

/* The hash of a file's contents (*mtime: its modification time); 0 if it
   cannot be read. Every hit hashes every header a kernel includes: eight
   bytes a step, and no read past the size fstat gave (the files are the
   user's own: a change, not an attacker, is what it must see). */
XRT__BACKEND_HELPER int xrt__cache_hash_file(const char *path, xrt__cache_key *h, struct timespec *mtime)
{
    uint64_t buf[8192];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    size_t left, i;
    ssize_t got = 0;
    if (fd < 0) return 0;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return 0;
    }
    xrt__cache_key_init(h, "file");
    for (left = (size_t)st.st_size; left; left -= (size_t)got) {
        if ((got = read(fd, buf, left < sizeof buf ? left : sizeof buf)) <= 0) {
            if (got < 0 && errno == EINTR) {
                got = 0;
                continue;
            }
            break; /* shorter than it was: changed, and the hash says so */
        }
        for (i = 0; i < (size_t)got / 8; i++) {
            h->a = (h->a ^ buf[i]) * 0x100000001b3u;
            h->b = (h->b ^ (buf[i] >> 32 | buf[i] << 32)) * 0x100000001b3u;
            h->a ^= h->a >> 29; /* FNV on words: fold the high bits down */
            h->b ^= h->b >> 31;
        }
        xrt__cache_key_add(h, (const char *)buf + i * 8, (size_t)got % 8); /* the tail, and a length mark */
    }
    xrt__cache_key_add(h, &st.st_size, sizeof st.st_size);
    close(fd);
    if (got < 0) return 0;
    if (mtime) *mtime = st.st_mtim;
    return 1;
}

/* `path` made absolute (against the working directory) as the compiler
   named it, symbolic links not resolved: a link retargeted later (an
   -I/opt/lib/current/include) must name another file on a hit, not the
   one it named at the build. "." parts and repeated slashes go, ".." stays
   (after a link it is not the parent of the name before it). 0 where it
   does not fit. */
XRT__BACKEND_HELPER int xrt__cache_abspath(const char *path, char *out, size_t n)
{
    char joined[2 * PATH_MAX + 2], cwd[PATH_MAX];
    const char *p;
    size_t k = 0, len;
    if (path[0] != '/' && !getcwd(cwd, sizeof cwd)) return 0;
    if ((size_t)snprintf(joined, sizeof joined, "%s/%s", path[0] == '/' ? "" : cwd, path) >= sizeof joined) return 0;
    for (p = joined; *(p += strspn(p, "/")); p += len) {
        len = strcspn(p, "/");
        if (len == 1 && p[0] == '.') continue;
        if (k + len + 2 > n) return 0;
        out[k++] = '/';
        memcpy(out + k, p, len);
        k += len;
    }
    if (!k && n > 1) out[k++] = '/';
    if (n) out[k < n ? k : n - 1] = 0;
    return k && k < n;
}

/* The hash of the file a manifest names: its contents and the file its
   name resolves to now (a link retargeted to a copy is another file). */
XRT__BACKEND_HELPER int xrt__cache_hash_named(const char *path, xrt__cache_key *h, struct timespec *mtime)
{
    char real[PATH_MAX];
    if (!realpath(path, real) || !xrt__cache_hash_file(path, h, mtime)) return 0;
    xrt__cache_key_str(h, real);
    return 1;
}

/* The next file name of a make rule's prerequisites at *p (escapes "\ ",
   "\#", "$$"; backslash-newline is a blank) into out; 0 at the end. */
XRT__BACKEND_HELPER int xrt__cache_deps_word(const char **p, char *out, size_t n)
{
    const char *s = *p;
    size_t k = 0;
    while (*s == ' ' || *s == '\t' || *s == '\n' || (*s == '\\' && s[1] == '\n')) s += *s == '\\' ? 2 : 1;
    if (!*s) return 0;
    while (*s && *s != ' ' && *s != '\t' && *s != '\n' && !(*s == '\\' && s[1] == '\n')) {
        if ((*s == '\\' && (s[1] == ' ' || s[1] == '#')) || (*s == '$' && s[1] == '$')) s++;
        if (k + 1 < n) out[k++] = *s;
        s++;
    }
    out[k] = 0;
    *p = s;
    return 1;
}

/* The manifest of the dependency list `deps` of a build whose output is
   `out`, started at `start`: one "<hash> <absolute path>" line per file,
   the path as the compiler named it (made absolute), the build's own
   temporaries left out (free it). NULL where a file cannot be read or
   changed after `start`. */
XRT__BACKEND_HELPER char *xrt__cache_deps_manifest(const char *deps, const char *out, const struct timespec *start, size_t *len)
{
    size_t used = 0, cap = 0, outlen = strlen(out);
    const char *p = !strncmp(deps, out, outlen) && deps[outlen] == ':' ? deps + outlen : strchr(deps, ':'); /* the target */
    char word[PATH_MAX], named[PATH_MAX], *text = NULL, *grown;
    if (!p) return NULL;
    for (p++; xrt__cache_deps_word(&p, word, sizeof word);) {
        struct timespec m;
        xrt__cache_key h;
        size_t need;
        if (!strncmp(word, out, outlen) && word[outlen] == '.') continue; /* the build's own source */
        if (!xrt__cache_abspath(word, named, sizeof named) || !xrt__cache_hash_named(named, &h, &m) ||
            m.tv_sec > start->tv_sec || (m.tv_sec == start->tv_sec && m.tv_nsec >= start->tv_nsec) || strchr(named, '\n'))
            goto fail;
        need = strlen(named) + 35;
        if (used + need + 1 > cap) {
            cap = (used + need + 1) * 2;
            if (cap > XRT__CACHE_TEXT_MAX || !(grown = (char *)XRT_REALLOC(text, cap))) goto fail;
            text = grown;
        }
        used += (size_t)snprintf(text + used, cap - used, "%016llx%016llx %s\n", (unsigned long long)h.a,
                                 (unsigned long long)h.b, named);
    }
    if (!text && !(text = (char *)XRT_MALLOC(1))) return NULL;
    text[used] = 0;
    *len = used;
    return text;
fail:
    XRT_FREE(text);
    return NULL;
}

/* A manifest's line for a path the build needs absent: where the compiler
   would have found a header of a name it found elsewhere. */
#define XRT__ABSENT_MARK "--------------------------------"
/* A manifest's line for the working directory the build needs: one a
   relative path it read depends on that the key does not hold. */
#define XRT__CWD_MARK "================================"

/* Whether the working directory is `dir`. */
XRT__BACKEND_HELPER int xrt__cache_in_dir(const char *dir)
{
    char cwd[PATH_MAX];
    return getcwd(cwd, sizeof cwd) && !strcmp(cwd, dir);
}

/* Whether nothing has the name `path` (a missing directory above it too). */
XRT__BACKEND_HELPER int xrt__cache_path_absent(const char *path)
{
    struct stat st;
    return lstat(path, &st) != 0 && (errno == ENOENT || errno == ENOTDIR);
}

/* A manifest's line for a program the compiler ran (its assembler, its
   linker): "<identity> *<path>" (a file's line names a path that starts
   with '/'). A program is checked by its identity, not its contents:
   hashing a compiler's 30 MB on every hit would cost more than the hit. */
#define XRT__PROGRAM_MARK '*'

/* The identity of the program at `path` (as named: a link is followed
   now, so one retargeted is another program), added to k: its path,
   device, inode, size, modification and change times. 0 if not there. */
XRT__BACKEND_HELPER int xrt__cache_program_id(const char *path, xrt__cache_key *k)
{
    struct stat st;
    if (stat(path, &st) != 0) return 0;
    xrt__cache_key_str(k, path);
    xrt__cache_key_add(k, &st.st_dev, sizeof st.st_dev);
    xrt__cache_key_add(k, &st.st_ino, sizeof st.st_ino);
    xrt__cache_key_add(k, &st.st_size, sizeof st.st_size);
    xrt__cache_key_add(k, &st.st_mtim, sizeof st.st_mtim);
    xrt__cache_key_add(k, &st.st_ctim, sizeof st.st_ctim);
    return 1;
}

/* That identity alone as 32 hex digits into hex[33]; 0 if not there. */
XRT__BACKEND_HELPER int xrt__cache_program_hex(const char *path, char *hex)
{
    xrt__cache_key k;
    xrt__cache_key_init(&k, "program");
    if (!xrt__cache_program_id(path, &k)) return 0;
    snprintf(hex, 33, "%016llx%016llx", (unsigned long long)k.a, (unsigned long long)k.b);
    return 1;
}

/* Whether a build's line "*<32 hex> <path>" (a program it ran, with its
   identity when it ran) still holds: then it is rewritten in place as the
   manifest's "<32 hex> *<path>". */
XRT__BACKEND_HELPER int xrt__cache_program_holds(char *line)
{
    char hex[33];
    if (strlen(line) < 35 || xrt__cache_hex_run(line + 1) != 32 || line[33] != ' ' || line[34] != '/' ||
        !xrt__cache_program_hex(line + 34, hex) || memcmp(hex, line + 1, 32))
        return 0;
    memmove(line, line + 1, 32);
    line[32] = ' ', line[33] = XRT__PROGRAM_MARK;
    return 1;
}

/* Appends the build's list of paths that must stay absent (<out>.absent,
   one a line) to its manifest, as XRT__ABSENT_MARK lines, its line
   "=<dir>", if any, as an XRT__CWD_MARK line, and its programs
   ("*<identity> <path>") as XRT__PROGRAM_MARK lines; NULL (the manifest
   freed) where a path is there now (it appeared while the build ran), the
   working directory is another now, or a program changed. */
XRT__BACKEND_HELPER char *xrt__cache_absent_manifest(const char *absent, char *text, size_t *len)
{
    size_t alen = 0, used = *len, lines = 0;
    char *list = xrt__cache_read(absent, &alen), *line, *nl, *grown;
    if (!list) return text; /* none listed */
    for (line = list; (nl = strchr(line, '\n')) != NULL; line = nl + 1) lines++;
    if (*line || used + alen + 33 * lines >= XRT__CACHE_TEXT_MAX ||
        !(grown = (char *)XRT_REALLOC(text, used + alen + 33 * lines + 1)))
        goto fail; /* a last line without its end: cut short */
    text = grown;
    for (line = list; (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
        *nl = 0;
        if (line[0] == XRT__PROGRAM_MARK) {
            if (!xrt__cache_program_holds(line)) goto fail;
            used += (size_t)sprintf(text + used, "%s\n", line);
            continue;
        }
        if (line[0] == '=' ? !xrt__cache_in_dir(line + 1) : !xrt__cache_path_absent(line)) goto fail;
        used += (size_t)(line[0] == '=' ? sprintf(text + used, XRT__CWD_MARK " %s\n", line + 1)
                                        : sprintf(text + used, XRT__ABSENT_MARK " %s\n", line));
    }
    XRT_FREE(list);
    *len = used;
    return text;
fail:
    XRT_FREE(list);
    XRT_FREE(text);
    return NULL;
}

/* Whether every file of a manifest still has the contents it lists, every
   program the identity it lists, every path it lists as absent is still
   absent, and the working directory is the one it names, if it names one. */
XRT__BACKEND_HELPER int xrt__cache_manifest_holds(const char *text)
{
    while (*text) {
        const char *nl = strchr(text, '\n');
        char path[PATH_MAX], hex[33];
        xrt__cache_key h;
        size_t plen;
        int absent = !strncmp(text, XRT__ABSENT_MARK " ", 33), cwd = !strncmp(text, XRT__CWD_MARK " ", 33);
        if (!nl || nl - text < 34 || (!absent && !cwd && (xrt__cache_hex_run(text) != 32 || text[32] != ' '))) return 0;
        plen = (size_t)(nl - text - 33);
        if (plen >= sizeof path) return 0;
        memcpy(path, text + 33, plen);
        path[plen] = 0;
        if (absent || cwd) {
            if (absent ? !xrt__cache_path_absent(path) : !xrt__cache_in_dir(path)) return 0;
            text = nl + 1;
            continue;
        }
        if (path[0] == XRT__PROGRAM_MARK) {
            if (!xrt__cache_program_hex(path + 1, hex)) return 0;
        } else {
            if (!xrt__cache_hash_named(path, &h, NULL)) return 0;
            snprintf(hex, sizeof hex, "%016llx%016llx", (unsigned long long)h.a, (unsigned long long)h.b);
        }
        if (memcmp(hex, text, 32)) return 0;
        text = nl + 1;
    }
    return 1;
}

/* The entry's name for `key` and the files a build read (manifest text). */
XRT__BACKEND_HELPER void xrt__cache_entry_key(const xrt__cache_key *key, const char *manifest, size_t len, xrt__cache_key *entry)
{
    *entry = *key;
    if (!len) return; /* it read nothing but its source: the key is the entry's */
    xrt__cache_key_str(entry, "files read");
    xrt__cache_key_add(entry, manifest, len);
}

/* The path of the entry of `key` (base: <dir>/<key>), as its manifest says
   now; a manifest that does not hold (a file changed) names no entry. */
XRT__BACKEND_HELPER int xrt__cache_entry_path(const char *dir, const char *base, const xrt__cache_key *key, char *path, size_t n)
{
    char mpath[PATH_MAX + 16];
    size_t len = 0;
    char *text;
    xrt__cache_key e = *key;
    snprintf(mpath, sizeof mpath, "%s.deps", base);
    if ((text = xrt__cache_read(mpath, &len)) != NULL) {
        int holds = xrt__cache_manifest_holds(text);
        xrt__cache_entry_key(key, text, len, &e);
        XRT_FREE(text);
        if (!holds) return 0;
        utimensat(AT_FDCWD, mpath, NULL, AT_SYMLINK_NOFOLLOW); /* recently used, as its entry */
    }
    snprintf(path, n, "%s/%016llx%016llx.so", dir, (unsigned long long)e.a, (unsigned long long)e.b);
    return 1;
}

/* Stores the manifest of a build (none where it read nothing but its
   source). Where it cannot be written, none is left: the entry is then not
   found (built again), never wrongly found. */
XRT__BACKEND_HELPER void xrt__cache_put_manifest(const char *base, const char *text, size_t len, unsigned seq)
{
    char mpath[PATH_MAX + 16], tmp[PATH_MAX + 64];
    int fd, ok;
    snprintf(mpath, sizeof mpath, "%s.deps", base);
    if (!len) {
        unlink(mpath);
        return;
    }
    snprintf(tmp, sizeof tmp, "%s.deps.tmp.%ld.%u", base, (long)getpid(), seq);
    unlink(tmp);
    if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) return;
    ok = write(fd, text, len) == (ssize_t)len;
    if (close(fd) != 0) ok = 0;
    if (!ok || rename(tmp, mpath) != 0) {
        unlink(tmp);
        unlink(mpath); /* an old manifest would name an entry of other files: none is better */
    }
}

/* >> cache: getting an entry */
/* Writes the output of a build to `path`; compiler output goes to log. */
typedef xrt_status (*xrt__cache_build_fn)(void *ctx, const char *path, char *log, size_t log_size);
/* Loads the entry at `path` into *out: 1; else a reason in err, and 0 where
   the file does not load, -1 where the failure is not the file's. */
typedef int (*xrt__cache_open_fn)(void *ctx, const char *path, void **out, char *err, size_t n);

/* A hit: 1 (loaded into *out); 0: a miss (absent, or it did not load and was
   deleted); -1: an entry that may not be trusted (left alone, with a warning);
   -2: a sound entry that failed to load here (kept; the error recorded). */
XRT__BACKEND_HELPER int xrt__cache_try(const char *who, xrt__cache_open_fn open_fn, void *ctx, const char *path, void **out)
{
    int r;
    char err[512], why[128];
    struct stat st, now;
    if (lstat(path, &st) != 0) return 0;
    if (!S_ISREG(st.st_mode) || xrt__cache_distrust(&st, 0, why, sizeof why)) {
        xrt_log(XRT_LOG_WARN, "kernel cache entry %s not loaded: %s: building privately", path,
                S_ISREG(st.st_mode) ? why : "not a regular file (a symbolic link?)");
        return -1;
    }
    /* the directory is the user's alone: nobody else can put another file at path now */
    if ((r = open_fn(ctx, path, out, err, sizeof err)) > 0) {
        utimensat(AT_FDCWD, path, NULL, AT_SYMLINK_NOFOLLOW); /* recently used */
        xrt__cache_count(&xrt__cache_stats.hits, 1);
        return 1;
    }
    if (r < 0) return (void)xrt_error(XRT_ERROR_SYSTEM, who, "the module does not load: %s", err), -2;
    /* Evicted meanwhile (a miss), or the same file that does not load: only
       then is it deleted, never an entry another process just put there. */
    if (lstat(path, &now) == 0 && now.st_ino == st.st_ino && now.st_dev == st.st_dev) {
        xrt_log(XRT_LOG_INFO, "cache entry %s does not load (%s): built again", path, err);
        unlink(path);
    }
    return 0;
}

XRT__BACKEND_HELPER xrt_status xrt__cache_open_new(const char *who, xrt__cache_open_fn open_fn, void *ctx, const char *path,
                                      void **out)
{
    char err[512];
    int r = open_fn(ctx, path, out, err, sizeof err);
    if (r > 0) return XRT_SUCCESS;
    return xrt_error(r < 0 ? XRT_ERROR_SYSTEM : XRT_ERROR_INVALID_IMAGE, who, "the module does not load: %s", err);
}

/* Whether name is one mkdtemp makes of "xrt-XXXXXX". */
XRT__BACKEND_HELPER int xrt__cache_private_name(const char *name)
{
    size_t i;
    if (strncmp(name, "xrt-", 4) || strlen(name) != 10) return 0;
    for (i = 4; i < 10; i++) /* mkdtemp's letters: A-Z, a-z, 0-9 */
        if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') || (name[i] >= '0' && name[i] <= '9')))
            return 0;
    return 1;
}

/* Removes the kernel header directories (include-<16 hex>) a private
   build directory (fd) holds: xrt.h and its temporaries, then the
   directory; never through a link. */
XRT__BACKEND_HELPER void xrt__cache_private_clear_includes(int fd)
{
    int dup_fd = dup(fd), inc;
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    struct dirent *e, *f;
    DIR *id;
    if (!d) {
        if (dup_fd >= 0) close(dup_fd);
        return;
    }
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "include-", 8) || xrt__cache_hex_run(e->d_name + 8) != 16 || e->d_name[24]) continue;
        if ((inc = openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) continue;
        if (!(id = fdopendir(inc))) {
            close(inc);
            continue;
        }
        while ((f = readdir(id)) != NULL)
            if (!strcmp(f->d_name, "xrt.h") || (!strncmp(f->d_name, "xrt.h", 5) && xrt__cache_temp_suffix(f->d_name + 5, 2)))
                unlinkat(inc, f->d_name, 0);
        closedir(id);
        unlinkat(fd, e->d_name, AT_REMOVEDIR);
    }
    closedir(d);
}

/* Removes what a killed private build left in TMPDIR: this user's own
   xrt-XXXXXX directories untouched for XRT__CACHE_STALE_S (a build in
   progress writes in its own), never through a link, only the names a
   build makes there; a directory that holds anything else stays. */
XRT__BACKEND_HELPER void xrt__cache_sweep_private(const char *tmp)
{
    static const char *const files[] = {"module.so", "module.so.c", "module.so.d", "module.so.ld", "module.so.absent"};
    int fd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC), sub;
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    struct dirent *e;
    struct stat st;
    size_t i;
    if (!d) {
        if (fd >= 0) close(fd);
        return;
    }
    while ((e = readdir(d)) != NULL) {
        if (!xrt__cache_private_name(e->d_name) || fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || time(NULL) - st.st_mtim.tv_sec < XRT__CACHE_STALE_S)
            continue;
        if ((sub = openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) continue;
        for (i = 0; i < sizeof files / sizeof files[0]; i++) unlinkat(sub, files[i], 0);
        xrt__cache_private_clear_includes(sub);
        close(sub);
        unlinkat(fd, e->d_name, AT_REMOVEDIR);
    }
    closedir(d);
}

/* Without a cache: build in a private directory, load, delete. */
XRT__BACKEND_HELPER xrt_status xrt__cache_private(const char *who, xrt__cache_build_fn build, void *bctx, xrt__cache_open_fn open_fn,
                                     void *octx, void **out, char *log, size_t log_size)
{
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX], path[PATH_MAX + 24];
    xrt_status st;
    if (!tmp || !*tmp || strlen(tmp) > sizeof dir - 16) tmp = "/tmp";
    xrt__cache_sweep_private(tmp); /* a crash leaves its directory behind: a later build sweeps it */
    snprintf(dir, sizeof dir, "%s/xrt-XXXXXX", tmp);
    if (!mkdtemp(dir)) return xrt_native_error(XRT_ERROR_SYSTEM, who, "mkdtemp", errno, "errno", strerror(errno));
    snprintf(path, sizeof path, "%s/module.so", dir);
    xrt__cache_count(&xrt__cache_stats.misses, 1);
    st = build(bctx, path, log, log_size);
    if (st == XRT_SUCCESS) st = xrt__cache_open_new(who, open_fn, octx, path, out);
    unlink(path);
    snprintf(path, sizeof path, "%s/module.so.d", dir); /* the files it read, if it said */
    unlink(path);
    snprintf(path, sizeof path, "%s/module.so.absent", dir);
    unlink(path);
    xrt__cache_kernel_header_remove(dir);
    rmdir(dir);
    return st;
}

/* Opens (0600, never through a link) and takes a lock file; -1 (errno
   set) if it cannot be had. */
XRT__BACKEND_HELPER int xrt__cache_flock(const char *lockpath)
{
    int fd = open(lockpath, O_CREAT | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd >= 0)
        while (flock(fd, LOCK_EX) != 0 && errno == EINTR) {} /* another process may be building it */
    return fd;
}

/* Builds the entry of `base` (<dir>/<key>) under its lock, names it by the
   key and the files the build read, opens it, renames it into place (0700)
   and stores the manifest; its file name into `name`. Opened before it has
   its name, an entry cannot be evicted (by any process) before its load. */
XRT__BACKEND_HELPER xrt_status xrt__cache_build(const char *who, const char *dir, const char *base, const xrt__cache_key *key,
                                   xrt__cache_build_fn build, void *bctx, xrt__cache_open_fn open_fn, void *octx,
                                   void **out, char *name, char *log, size_t log_size)
{
    char tmp[PATH_MAX + 64], deps_path[PATH_MAX + 80], path[PATH_MAX], *deps, *manifest = NULL;
    unsigned seq = __atomic_add_fetch(&xrt__cache_seq, 1, __ATOMIC_RELAXED);
    struct timespec start;
    size_t len = 0;
    xrt__cache_key e;
    xrt_status st;
    xrt__cache_count(&xrt__cache_stats.misses, 1);
    snprintf(tmp, sizeof tmp, "%s.so.tmp.%ld.%u", base, (long)getpid(), seq);
    snprintf(deps_path, sizeof deps_path, "%s.d", tmp);
    clock_gettime(CLOCK_REALTIME, &start);
    st = build(bctx, tmp, log, log_size);
    if ((deps = xrt__cache_read(deps_path, &len)) != NULL) {
        manifest = xrt__cache_deps_manifest(deps, tmp, &start, &len);
        XRT_FREE(deps);
    } else if (access(deps_path, F_OK) != 0) {
        manifest = (char *)XRT_CALLOC(1, 1), len = 0; /* the build lists no files: its key is its entry's */
    }
    unlink(deps_path);
    snprintf(deps_path, sizeof deps_path, "%s.absent", tmp);
    if (manifest) manifest = xrt__cache_absent_manifest(deps_path, manifest, &len);
    unlink(deps_path);
    if (st == XRT_SUCCESS && chmod(tmp, 0700) != 0)
        st = xrt_native_error(XRT_ERROR_SYSTEM, who, "chmod", errno, "errno", strerror(errno));
    if (st == XRT_SUCCESS) st = xrt__cache_open_new(who, open_fn, octx, tmp, out);
    if (st == XRT_SUCCESS && !manifest)
        xrt_log(XRT_LOG_INFO, "the files a build of %s read are not known (changed while it ran?): not cached", base);
    if (st == XRT_SUCCESS && manifest) {
        xrt__cache_entry_key(key, manifest, len, &e);
        snprintf(path, sizeof path, "%s/%016llx%016llx.so", dir, (unsigned long long)e.a, (unsigned long long)e.b);
        if (rename(tmp, path) == 0) {
            xrt__cache_put_manifest(base, manifest, len, seq);
            memcpy(name, path + strlen(dir) + 1, 36);
        } else {
            xrt_log(XRT_LOG_INFO, "cache entry %s not stored (rename: %s)", path, strerror(errno));
        }
    }
    unlink(tmp); /* where it was not renamed: a failed build, or loaded once, uncached */
    XRT_FREE(manifest);
    return st;
}

/* Whether the cache directory is on a file system mounted noexec: no entry
   there maps as code (dlopen: "failed to map segment"), so each load would
   build an entry it cannot use. Warned once; the caller builds privately. */
XRT__BACKEND_HELPER int xrt__cache_noexec(const char *dir)
{
    struct statvfs sv;
    if (statvfs(dir, &sv) != 0 || !(sv.f_flag & ST_NOEXEC)) return 0;
    xrt__log_warn_once("kernel cache %.160s is on a file system mounted noexec (its entries cannot run): building privately",
                       dir);
    return 1;
}

/* The entry of `key`: loaded from the cache, or built, stored and loaded;
   built privately where the cache is off, cannot be trusted or written. */
XRT__BACKEND_HELPER xrt_status xrt__cache_get(const char *who, const xrt__cache_key *key, xrt__cache_build_fn build, void *bctx,
                                 xrt__cache_open_fn open_fn, void *octx, void **out, char *log, size_t log_size)
{
    char dir[PATH_MAX - 64], base[PATH_MAX], path[PATH_MAX], lockpath[PATH_MAX + 8], name[40] = "";
    xrt_status st = XRT_SUCCESS;
    int lock, got = 0;
    if (!xrt__cache_dir(dir, sizeof dir, 1) || xrt__cache_noexec(dir))
        return xrt__cache_private(who, build, bctx, open_fn, octx, out, log, log_size);
    (void)xrt__env_size("XRT_CACHE_BYTES", 0); /* a bad bound warns at each use, a hit included, not only when evicting */
    snprintf(base, sizeof base, "%s/%016llx%016llx", dir, (unsigned long long)key->a, (unsigned long long)key->b);
    if (xrt__cache_entry_path(dir, base, key, path, sizeof path) && (got = xrt__cache_try(who, open_fn, octx, path, out)) != 0)
        return got > 0 ? XRT_SUCCESS
               : got == -2 ? XRT_ERROR_SYSTEM
                           : xrt__cache_private(who, build, bctx, open_fn, octx, out, log, log_size);
    snprintf(lockpath, sizeof lockpath, "%s.lock", base);
    if ((lock = xrt__cache_flock(lockpath)) < 0) {
        if (errno == EACCES || errno == EPERM || errno == EROFS || errno == ENOSPC || errno == EDQUOT) {
            xrt_log(XRT_LOG_WARN, "kernel cache %s cannot be written (%s): building privately", dir, strerror(errno));
            return xrt__cache_private(who, build, bctx, open_fn, octx, out, log, log_size);
        }
        return xrt_native_error(XRT_ERROR_SYSTEM, who, "open", errno, "errno", strerror(errno));
    }
    /* another process may have built it meanwhile */
    if (!xrt__cache_entry_path(dir, base, key, path, sizeof path) || (got = xrt__cache_try(who, open_fn, octx, path, out)) == 0)
        st = xrt__cache_build(who, dir, base, key, build, bctx, open_fn, octx, out, name, log, log_size);
    if (st != XRT_SUCCESS) unlink(lockpath); /* no entry: nothing left behind (a waiter only builds too) */
    flock(lock, LOCK_UN); /* close alone would not unlock while a forked child still has the file open */
    close(lock);
    if (got == -2) return XRT_ERROR_SYSTEM;
    if (got < 0) return xrt__cache_private(who, build, bctx, open_fn, octx, out, log, log_size);
    if (got > 0) return XRT_SUCCESS;
    if (st == XRT_SUCCESS) xrt__cache_evict(dir, name, base + strlen(dir) + 1);
    return st;
}

#if defined(XRT_ENABLE_CPU) /* only the CPU backend builds from source */
/* >> cc: the C compiler driver. A C-source image is built with XRT_CC (default
   cc) into a shared object; its key covers the compiler's identity, the
   options (response files expanded), the environment that changes a
   compilation and the include directories where a header may be added. */
/* What a C build needs: the compiler (XRT_CC split at spaces), the options
   (split likewise) and the source; the word arrays are the caller's. */
typedef struct xrt__cc_text {
    char *p;
    size_t len, cap;
    int oom;
} xrt__cc_text; /* words, each ending in its NUL */

typedef struct xrt__cc_build {
    char **cc, **opt;
    size_t ncc, nopt;
    const xrt_module_image *image;
    xrt__cc_text words; /* XRT_CC's words after the first and the options, response files expanded */
    xrt__cc_text rsp;   /* the response files read (absolute paths) */
    xrt__cc_text incs;  /* the include directories, absolute (whether there or not) */
    /* what the compiler says it reads (xrt__cc_probe) */
    xrt__cc_text cfg;   /* its configuration files, absolute as it named them (their words join `words`) */
    int cfg_relative;   /* one names a relative path, or was found through one: the entry needs this working directory */
    xrt__cc_text ran;   /* the programs it runs, as <path>.absent lines: "*<identity> <path>", and the places before one along PATH where nothing is */
    const char *uncached; /* why its answer leaves the build uncached, or NULL */
    char uncached_text[PATH_MAX + 160];
    /* the compiler, when the key was made */
    xrt__cache_key programs; /* the identity of XRT_CC's programs (xrt__cc_programs) */
    char prog[PATH_MAX];     /* the file XRT_CC's first word named: the one that runs */
} xrt__cc_build;

static void xrt__cc_text_add(xrt__cc_text *t, const char *p, size_t n)
{
    char *grown;
    if (t->oom) return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = (t->len + n + 1) * 2;
        if (!(grown = (char *)XRT_REALLOC(t->p, cap))) {
            t->oom = 1;
            return;
        }
        t->p = grown, t->cap = cap;
    }
    memcpy(t->p + t->len, p, n);
    t->len += n;
    t->p[t->len] = 0;
}

static void xrt__cc_text_word(xrt__cc_text *t, const char *w) { xrt__cc_text_add(t, w, strlen(w) + 1); }

static int xrt__cc_text_has(const xrt__cc_text *t, const char *w)
{
    size_t off;
    for (off = 0; off < t->len; off += strlen(t->p + off) + 1)
        if (!strcmp(t->p + off, w)) return 1;
    return 0;
}

/* Writes a new private file (0600, never through a link) in a directory of
   the user's own: whatever had the name (a leftover of a process with the
   same id) goes first. 0, or an errno (the file removed). */
static int xrt__cc_write_all(int fd, const char *p, size_t size)
{
    while (size) {
        ssize_t put = write(fd, p, size);
        if (put > 0) p += put, size -= (size_t)put;
        else if (put == 0 || errno != EINTR) return put ? errno : EIO;
    }
    return 0;
}

/* `head` (a string) then `data`. */
static int xrt__cc_write_new(const char *path, const char *head, const void *data, size_t size)
{
    int fd = (unlink(path), open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)), e;
    if (fd < 0) return errno;
    if (!(e = xrt__cc_write_all(fd, head, strlen(head)))) e = xrt__cc_write_all(fd, (const char *)data, size);
    if (close(fd) != 0 && !e) e = errno;
    if (e) unlink(path);
    return e;
}

static xrt_status xrt__cc_write_file(const char *who, const char *path, const char *head, const void *data,
                                      size_t size)
{
    int e = xrt__cc_write_new(path, head, data, size);
    return e ? xrt_native_error(XRT_ERROR_SYSTEM, who, "write", e, "errno", strerror(e)) : XRT_SUCCESS;
}

static xrt_status xrt__cc_build_so(void *ctx, const char *path, char *log, size_t log_size)
{
    const xrt_module_image *im = ((xrt__cc_build *)ctx)->image;
    (void)log, (void)log_size;
    if (im->size < 4 || memcmp(im->data, "\177ELF", 4))
        return xrt_error(XRT_ERROR_INVALID_IMAGE, "cpu: xrt_module_load",
                         "the image (cpu shared object, %zu bytes) is not an ELF shared object", im->size);
    return xrt__cc_write_file("cpu: xrt_module_load", path, "", im->data, im->size);
}

/* Whether a linker input is the system's (the C library, the compiler's
   start files and runtime): those change with the toolchain, not with the
   user's code, and hashing them on every hit would cost more than the hit. */
static int xrt__cc_system_input(const char *real)
{
    static const char *const dirs[] = {"/usr/lib/", "/lib/", "/lib64/", "/usr/lib64/", "/usr/libexec/"};
    size_t i;
    for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (!strncmp(real, dirs[i], strlen(dirs[i]))) return 1;
    return 0;
}

/* A stream on a file of the build's own (in the cache's or the private
   build directory), private whatever the umask and never through a link,
   as the cache reads only such files: `append` adds to one (made 0600 if
   the compiler wrote none), else a new one is made (0600; whatever had the
   name, a leftover of a process with the same id, goes first). */
static FILE *xrt__cc_fopen_private(const char *path, int append)
{
    int fd;
    FILE *f;
    if (!append) unlink(path);
    fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (append ? O_APPEND : O_EXCL), 0600);
    if (fd < 0) return NULL;
    if (!(f = fdopen(fd, append ? "a" : "w"))) close(fd);
    return f;
}

/* Appends the file `real` to a make rule being written to f. */
static void xrt__cc_deps_put(FILE *f, const char *real)
{
    const char *c;
    fputc(' ', f);
    for (c = real; *c; c++) {
        if (*c == ' ' || *c == '#') fputc('\\', f);
        if (*c == '$') fputc('$', f);
        fputc(*c, f);
    }
}

/* Adds the linker's inputs (ld's --dependency-file, at `ldeps`) to the
   compiler's list at `deps`, but for the system's and those gone (the
   compiler's own temporary object). */
static void xrt__cc_add_linker_inputs(const char *deps, const char *ldeps)
{
    size_t len = 0;
    char *text = xrt__cache_read(ldeps, &len), word[PATH_MAX], real[PATH_MAX], named[PATH_MAX];
    const char *p = text ? strchr(text, ':') : NULL, *end;
    FILE *f;
    if (!p || !(f = xrt__cc_fopen_private(deps, 1))) {
        XRT_FREE(text);
        return;
    }
    end = strstr(p, "\n\n"); /* the first rule's end: the phony rules after it name the same files */
    for (p++; xrt__cache_deps_word(&p, word, sizeof word) && (!end || p <= end);)
        if (realpath(word, real) && !xrt__cc_system_input(real) && xrt__cache_abspath(word, named, sizeof named))
            xrt__cc_deps_put(f, named); /* as named: a library reached through a link is checked through it */
    fputc('\n', f);
    fclose(f);
    XRT_FREE(text);
}

/* Leaves a list that names a file that is not there: the cache then knows
   the build's inputs are unknown, and keeps nothing. */
static void xrt__cc_unlistable(const char *deps)
{
    FILE *f = xrt__cc_fopen_private(deps, 1);
    if (!f) return;
    fputs(" /proc/self/xrt-linker-inputs-unknown\n", f); /* no file can be made there */
    fclose(f);
}

/* The response files the options named, and the configuration files the
   compiler said it reads (`files`), are files the build read: the manifest
   checks them on a hit, and one that changed while the build ran leaves
   nothing cached. */
static void xrt__cc_add_files(const char *deps, const xrt__cc_text *files)
{
    size_t off;
    FILE *f;
    if (!files->len) return;
    if (!(f = xrt__cc_fopen_private(deps, 1))) {
        xrt__cc_unlistable(deps);
        return;
    }
    for (off = 0; off < files->len; off += strlen(files->p + off) + 1) xrt__cc_deps_put(f, files->p + off);
    fputc('\n', f);
    if (fclose(f) != 0) xrt__cc_unlistable(deps);
}

/* Whether `real` lies below one of the directories of t. */
static int xrt__cc_under(const char *real, const xrt__cc_text *t)
{
    size_t off, n;
    for (off = 0; off < t->len; off += n + 1) {
        n = strlen(t->p + off);
        if (!strncmp(real, t->p + off, n) && real[n] == '/') return 1;
    }
    return 0;
}

/* Writes <dir>/<rel> for each directory where nothing has that name now. */
static void xrt__cc_absent_at(FILE *out, const char *rel, const char *real, const xrt__cc_text *dirs)
{
    char try_[PATH_MAX];
    struct stat st;
    size_t off;
    for (off = 0; off < dirs->len; off += strlen(dirs->p + off) + 1)
        if ((size_t)snprintf(try_, sizeof try_, "%s/%s", dirs->p + off, rel) < sizeof try_ && strcmp(try_, real) &&
            lstat(try_, &st) != 0 && (errno == ENOENT || errno == ENOTDIR) && !strchr(try_, '\n'))
            fprintf(out, "%s\n", try_);
}

/* The names a file read may have been included by: its path below each
   include directory it lies in, and the last one to four parts of its
   path (a system header's <bits/types.h>); each looked for in `dirs`. */
static void xrt__cc_absent_names(FILE *out, const char *real, const xrt__cc_text *incs, const xrt__cc_text *dirs)
{
    const char *rel;
    size_t off, n;
    int parts = 0;
    for (rel = real + strlen(real); rel > real + 1 && parts < 4; rel--)
        if (rel[-1] == '/') {
            parts++;
            xrt__cc_absent_at(out, rel, real, dirs);
        }
    for (off = 0; off < incs->len; off += n + 1) {
        n = strlen(incs->p + off);
        if (!strncmp(real, incs->p + off, n) && real[n] == '/' && strchr(real + n + 1, '/') &&
            (rel = real + n + 1, 1)) {
            int slashes = 0;
            const char *c;
            for (c = rel; *c; c++) slashes += *c == '/';
            if (slashes >= 4) xrt__cc_absent_at(out, rel, real, dirs); /* deeper than the parts above */
        }
    }
}

/* The places where the compiler would have found a header of a name it
   found elsewhere, had one been there: each name a file the build read may
   have been included by, in each include directory and in each directory
   of a header read from one (where a quoted include looks first). Those
   absent now go to <path>.absent, one a line; the cache keeps them with
   the entry and a hit needs them still absent (ccache's rule: a build
   depends on what was not there too). No include directory: none. */
static void xrt__cc_write_absent(const char *path, const char *deps, const xrt__cc_text *incs)
{
    char apath[PATH_MAX + 16], word[PATH_MAX], real[PATH_MAX], *text, *slash;
    const char *p, *list;
    size_t len = 0, plen = strlen(path);
    xrt__cc_text dirs = {NULL, 0, 0, 0};
    FILE *out;
    if (!incs->len) return;
    snprintf(apath, sizeof apath, "%s.absent", path);
    if (!(text = xrt__cache_read(deps, &len)) || !(list = strchr(text, ':'))) {
        XRT_FREE(text);
        return; /* no list: the cache keeps nothing of this build */
    }
    xrt__cc_text_add(&dirs, incs->p, incs->len);
    for (p = list + 1; xrt__cache_deps_word(&p, word, sizeof word);)
        if (xrt__cache_abspath(word, real, sizeof real) && xrt__cc_under(real, incs) && (slash = strrchr(real, '/')) != NULL) {
            *slash = 0;
            if (!xrt__cc_text_has(&dirs, real)) xrt__cc_text_add(&dirs, real, strlen(real) + 1);
        }
    if (!dirs.oom && (out = xrt__cc_fopen_private(apath, 0)) != NULL) {
        for (p = list + 1; xrt__cache_deps_word(&p, word, sizeof word);)
            if (xrt__cache_abspath(word, real, sizeof real) && !(!strncmp(real, path, plen) && real[plen] == '.'))
                xrt__cc_absent_names(out, real, incs, &dirs);
        if (fclose(out) != 0) unlink(apath), xrt__cc_unlistable(deps);
    } else {
        xrt__cc_unlistable(deps);
    }
    XRT_FREE(dirs.p);
    XRT_FREE(text);
}

/* >> cc: what is never cached. A build whose result depends on more than
   the files the compiler lists is not cached (as ccache): one that reads
   the time (__DATE__, __TIME__, __TIMESTAMP__: a hit would freeze it), and
   one that reads files -MD leaves out: data the assembler reads (.incbin),
   a driver's specs or config file, a plugin, a profile. */
static char *xrt__cc_read_all(const char *path, size_t *len);
static int xrt__cc_programs(const xrt__cc_build *b, xrt__cache_key *k, char *first);
static void xrt__cc_include_dirs(xrt__cc_build *b, const char *cwd);
static void xrt__cc_probe(xrt__cc_build *b, char **argv, size_t n);
static void xrt__cc_pin_cwd(const char *path, const char *deps, const char *cwd);
static void xrt__cc_write_ran(const char *path, const char *deps, const xrt__cc_text *ran);

/* Why text makes a build uncacheable, or NULL. */
static const char *xrt__cc_uncached_text(const char *text, size_t len)
{
    static const char *const time_words[] = {"__DATE__", "__TIME__", "__TIMESTAMP__"};
    size_t i;
    for (i = 0; i < sizeof time_words / sizeof time_words[0]; i++)
        if (memmem(text, len, time_words[i], strlen(time_words[i]))) return "it uses __DATE__, __TIME__ or __TIMESTAMP__";
    if (memmem(text, len, ".incbin", 7)) return "it uses .incbin, whose data the compiler's list of files it read leaves out";
    return NULL;
}

/* An option that makes the compiler read a file its list leaves out. */
static int xrt__cc_unlisted_option(const char *w)
{
    static const char *const opts[] = {"-specs", "--specs", "--config", "-fplugin", "-fpass-plugin=", "-fprofile-use",
                                       "-fprofile-sample-use", "-fauto-profile", "-fprofile-instr-use", "-fprofile-list=",
                                       "-fsanitize-blacklist=", "-fsanitize-ignorelist="};
    size_t i;
    for (i = 0; i < sizeof opts / sizeof opts[0]; i++)
        if (!strncmp(w, opts[i], strlen(opts[i]))) return 1;
    return 0;
}

/* An option that asks for a dependency list of its own (-M..., -Wp,-M...,
   --write-dependencies and the like): the cache's list is its own (-MD -MF
   after the options), and such an option changes it (gcc keeps -MMD's
   rule though -MD follows: the headers of -isystem directories would be
   left out, and one that changed would be a stale hit) or writes another
   that a hit would not write. */
static int xrt__cc_deps_option(const char *w)
{
    return !strncmp(w, "-M", 2) || !strncmp(w, "-Wp,-M", 6) || (!strncmp(w, "--", 2) && strstr(w, "dependencies"));
}

/* Why the build at `path` (its list at `deps`) may not be cached, or NULL:
   the compiler's answer to -###, its programs (changed while it ran?), its
   options (a configuration file's words too), its source and each file of
   the compiler's list are looked at (not the linker's inputs: a library's
   bytes may hold any text). */
static const char *xrt__cc_uncached(const xrt__cc_build *b, const char *path, const char *deps, char *why, size_t n)
{
    char word[PATH_MAX], *text, *list;
    const char *p, *reason = NULL;
    size_t off, len = 0, plen = strlen(path);
    xrt__cache_key now;
    if (b->uncached) return b->uncached;
    if (!xrt__cc_programs(b, &now, NULL) || memcmp(&now, &b->programs, sizeof now))
        return "a program XRT_CC names changed while it ran (a link retargeted?)";
    for (off = 0; off < b->words.len; off += strlen(b->words.p + off) + 1)
        if (xrt__cc_unlisted_option(b->words.p + off)) {
            snprintf(why, n, "the option %.64s names a file the compiler's list of files it read leaves out", b->words.p + off);
            return why;
        } else if (xrt__cc_deps_option(b->words.p + off)) {
            snprintf(why, n, "the option %.64s asks for a dependency list of its own, where the cache needs its own", b->words.p + off);
            return why;
        }
    if ((reason = xrt__cc_uncached_text((const char *)b->image->data, b->image->size)) != NULL) return reason;
    if (!(list = xrt__cache_read(deps, &len)) || !(p = strchr(list, ':'))) {
        XRT_FREE(list);
        return NULL; /* no list: the cache keeps nothing of this build anyway */
    }
    for (p++; !reason && xrt__cache_deps_word(&p, word, sizeof word);) {
        if (!strncmp(word, path, plen) && word[plen] == '.') continue; /* the source, looked at above */
        if ((text = xrt__cc_read_all(word, &len)) != NULL) reason = xrt__cc_uncached_text(text, len);
        XRT_FREE(text);
    }
    XRT_FREE(list);
    if (reason) snprintf(why, n, "%s (%.160s)", reason, word);
    return reason ? why : NULL;
}

/* The files a successful build read that the compiler's list leaves out
   (the linker's inputs, the response and configuration files) added to
   it; the places that must stay empty, and the working directory where a
   configuration file names a relative path, to <path>.absent. */
static void xrt__cc_list_inputs(xrt__cc_build *b, const char *path, const char *deps, const char *ldeps)
{
    char cwd[PATH_MAX];
    xrt__cc_add_linker_inputs(deps, ldeps);
    xrt__cc_add_files(deps, &b->rsp);
    xrt__cc_add_files(deps, &b->cfg);
    if (!getcwd(cwd, sizeof cwd)) {
        xrt__cc_unlistable(deps);
        return;
    }
    if (b->cfg.len) xrt__cc_include_dirs(b, cwd); /* with a configuration file's -I */
    if (b->incs.oom) xrt__cc_unlistable(deps);
    else xrt__cc_write_absent(path, deps, &b->incs);
    if (b->cfg_relative) xrt__cc_pin_cwd(path, deps, cwd);
    xrt__cc_write_ran(path, deps, &b->ran);
}

/* cc -shared -fPIC -O2 [options] -idirafter <kernel header> -MD -MF
   path.d -Wl,--dependency-file=path.ld -o path source.c into argv (room
   for two words more); its length. */
static size_t xrt__cc_argv(const xrt__cc_build *b, char **argv, const char *inc, char *deps, char *ldopt, const char *path,
                           char *src)
{
    size_t n = 0, i;
    for (i = 0; i < b->ncc; i++) argv[n++] = b->cc[i];
    argv[n++] = (char *)"-shared";
    argv[n++] = (char *)"-fPIC";
    argv[n++] = (char *)"-O2";
    for (i = 0; i < b->nopt; i++) argv[n++] = b->opt[i];
    if (inc) {
        argv[n++] = (char *)"-idirafter";
        argv[n++] = (char *)inc;
    }
    argv[n++] = (char *)"-MD";
    argv[n++] = (char *)"-MF";
    argv[n++] = deps;
    argv[n++] = ldopt;
    argv[n++] = (char *)"-o";
    argv[n++] = (char *)path;
    argv[n++] = src;
    argv[n] = NULL;
    return n;
}

/* Builds with the compiler's argv above: the dependency lists tell the
   cache which files the build read, headers and libraries, and the
   compiler, asked first, which files it reads on its own (see "what the
   compiler says it reads"). The file that runs is the one XRT_CC's first
   word named when the key was made (b->prog; argv[0] stays as written).
   A linker that lists no inputs (GNU ld before 2.35) leaves the build
   uncached. The kernel header is in path's directory (made there before a
   cached build starts: see xrt__cpu_module_load). */
static xrt_status xrt__cc_build_c(void *ctx, const char *path, char *log, size_t log_size)
{
    xrt__cc_build *b = (xrt__cc_build *)ctx;
    char src[PATH_MAX + 80], deps[PATH_MAX + 80], ldeps[PATH_MAX + 80], ldopt[PATH_MAX + 120], dir[PATH_MAX],
        inc[PATH_MAX + 48], why_text[PATH_MAX + 160], **argv;
    const char *why;
    size_t n;
    int code = 0, header;
    xrt_status st;
    snprintf(src, sizeof src, "%s.c", path);
    snprintf(deps, sizeof deps, "%s.d", path);
    snprintf(ldeps, sizeof ldeps, "%s.ld", path);
    snprintf(ldopt, sizeof ldopt, "-Wl,--dependency-file=%s", ldeps);
    snprintf(dir, sizeof dir, "%s", path);
    *(strrchr(dir, '/') ? strrchr(dir, '/') : dir) = 0;
    header = xrt__cache_kernel_header_make(dir, inc, sizeof inc);
    if (!(argv = (char **)XRT_MALLOC((b->ncc + b->nopt + 14) * sizeof *argv)))
        return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "cpu: xrt_module_load", "no memory for the compiler's arguments");
    /* the compiler's messages name the user's source, not xrt's temporary file */
    if ((st = xrt__cc_write_file("cpu: xrt_module_load", src, "#line 1 \"<kernel source>\"\n", b->image->data,
                                  b->image->size)) != XRT_SUCCESS) {
        XRT_FREE(argv);
        return st;
    }
    n = xrt__cc_argv(b, argv, header ? inc : NULL, deps, ldopt, path, src);
    xrt__cc_probe(b, argv, n); /* before the build: what it names must predate the build, as every file it read */
    xrt__cache_count(&xrt__cache_stats.builds, 1);
    st = xrt__cc_run("cpu: xrt_module_load", b->prog, argv, log, log_size, &code); /* the file the key names */
    xrt__cache_make_private(deps);
    xrt__cache_make_private(ldeps);
    if (st == XRT_SUCCESS && code != 0 && strstr(log, "dependency-file")) { /* a linker that cannot list its inputs */
        xrt_log(XRT_LOG_INFO, "the linker of %s does not list its inputs (--dependency-file): the module is not cached",
                argv[0]);
        memmove(&argv[n - 4], &argv[n - 3], 4 * sizeof *argv);
        st = xrt__cc_run("cpu: xrt_module_load", b->prog, argv, log, log_size, &code);
        if (st == XRT_SUCCESS && code == 0) xrt__cc_unlistable(deps);
    } else if (st == XRT_SUCCESS && code == 0 && (why = xrt__cc_uncached(b, path, deps, why_text, sizeof why_text))) {
        xrt_log(XRT_LOG_INFO, "a build by %s is not cached: %s", argv[0], why);
        xrt__cc_unlistable(deps);
    } else if (st == XRT_SUCCESS && code == 0) {
        xrt__cc_list_inputs(b, path, deps, ldeps);
    }
    unlink(ldeps);
    unlink(src);
    if (st == XRT_SUCCESS && code != 0)
        st = xrt_error(XRT_ERROR_COMPILE_FAILED, "cpu: xrt_module_load", "%s exited with %d (the log: xrt_module_get_log): %.200s",
                       argv[0], code, log);
    XRT_FREE(argv);
    return st;
}

/* The compiler's identity: a hash of its --version output, remembered per
   program XRT_CC runs (each word that names an executable file, as
   posix_spawnp finds it: the first is the compiler or a wrapper, a later one
   may be the compiler a wrapper runs) by path, inode, size, modification
   and change times, in the process and in the cache directory
   (cc-<hash>.id), so that a hit in a new process runs no compiler at all.
   The file the first word names when the key is made is the one each run
   of that load executes (b->prog), so a link retargeted later builds
   nothing under this key; and the identity is taken again once the build
   has run (xrt__cc_uncached): a program changed meanwhile (a wrapper's
   compiler retargeted) leaves the build uncached. */
static struct {
    xrt__cache_key programs;
    uint64_t version;
    int valid;
} xrt__cc_memo;

static void xrt__cc_ran_at(xrt__cc_build *b, const char *path);

/* The file posix_spawnp (and a compiler driver's execvp) runs for `name`:
   with a slash, name itself; else the first executable regular file along
   PATH (unset: /bin:/usr/bin), an empty element meaning the working
   directory. Its path as found (links unresolved) into out (PATH_MAX
   bytes); with `ran`, each place along PATH before it goes to ran->ran
   (xrt__cc_ran_at): a program put there later would run. */
static int xrt__cc_find(const char *name, char *out, xrt__cc_build *ran)
{
    const char *path = getenv("PATH");
    struct stat st;
    if (!*name) return 0;
    if (strchr(name, '/')) return stat(name, &st) == 0 && S_ISREG(st.st_mode) && (size_t)snprintf(out, PATH_MAX, "%s", name) < PATH_MAX;
    if (!path) path = "/bin:/usr/bin";
    for (;;) {
        size_t len = strcspn(path, ":");
        if (len) snprintf(out, PATH_MAX, "%.*s/%s", (int)len, path, name);
        else snprintf(out, PATH_MAX, "./%s", name);
        if (access(out, X_OK) == 0 && stat(out, &st) == 0 && S_ISREG(st.st_mode)) return 1;
        if (ran) xrt__cc_ran_at(ran, out);
        if (!path[len]) return 0;
        path += len + 1;
    }
}

/* The file that runs for `name` (xrt__cc_find), its links resolved, into out. */
static int xrt__cc_resolve(const char *name, char *out)
{
    char found[PATH_MAX];
    return xrt__cc_find(name, found, NULL) && realpath(found, out) != NULL;
}

/* The identity of the programs XRT_CC names, and the file its first word
   names into `first` (PATH_MAX bytes; NULL: not wanted); 0 if that word is
   not found (then nothing would run). */
static int xrt__cc_programs(const xrt__cc_build *b, xrt__cache_key *k, char *first)
{
    char path[PATH_MAX];
    struct stat st;
    size_t i;
    xrt__cache_key_init(k, "cc programs");
    for (i = 0; i < b->ncc; i++) {
        if (!xrt__cc_resolve(b->cc[i], path) || stat(path, &st) != 0) {
            if (i == 0) return 0;
            continue; /* an option, or an argument that is no program */
        }
        if (i == 0 && first) memcpy(first, path, sizeof path);
        xrt__cache_program_id(path, k);
    }
    return 1;
}

/* The --version hash remembered on disk for these programs, or 0; the
   file's path in `file` ("" without a usable cache). */
static uint64_t xrt__cc_disk(const xrt__cache_key *programs, char *file, size_t n)
{
    char dir[PATH_MAX - 64], text[32] = "", why[128];
    struct stat st;
    ssize_t got;
    int fd;
    file[0] = 0;
    if (!xrt__cache_dir(dir, sizeof dir, 0)) return 0; /* the load that follows says why */
    snprintf(file, n, "%s/cc-%016llx.id", dir, (unsigned long long)(programs->a ^ programs->b));
    if ((fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0) return 0;
    got = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && !xrt__cache_distrust(&st, 0, why, sizeof why)
              ? read(fd, text, sizeof text - 1)
              : -1;
    close(fd);
    if (got <= 0) return 0;
    text[got] = 0;
    return strtoull(text, NULL, 16);
}

static void xrt__cc_remember(const char *file, uint64_t version)
{
    char tmp[PATH_MAX + 32], text[32];
    int len;
    if (!file[0]) return;
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", file, (long)getpid());
    len = snprintf(text, sizeof text, "%016llx\n", (unsigned long long)version);
    /* remembering is an optimisation: its failure is no error of the load */
    if (xrt__cc_write_new(tmp, "", text, (size_t)len) == 0 && rename(tmp, file) != 0) unlink(tmp);
}

static xrt_status xrt__cc_identity(xrt__cc_build *b, xrt__cache_key *key, char *log, size_t log_size)
{
    char **argv, version[1024], file[PATH_MAX];
    size_t i;
    int code = 0, hit;
    xrt_status rc;
    xrt__cache_key v, programs;
    if (!xrt__cc_programs(b, &programs, b->prog)) {
        if (log_size) snprintf(log, log_size, "compiler '%s' not found\n", b->cc[0]);
        return xrt_error(XRT_ERROR_COMPILE_FAILED, "cpu: xrt_module_load", "compiler '%s' (XRT_CC) not found", b->cc[0]);
    }
    pthread_mutex_lock(&xrt__cache_lock);
    hit = xrt__cc_memo.valid && !memcmp(&xrt__cc_memo.programs, &programs, sizeof programs);
    v.a = xrt__cc_memo.version;
    pthread_mutex_unlock(&xrt__cache_lock);
    if (!hit && (v.a = xrt__cc_disk(&programs, file, sizeof file)) != 0) hit = 2;
    if (!hit) {
        if (!(argv = (char **)XRT_MALLOC((b->ncc + 2) * sizeof *argv)))
            return xrt_error(XRT_ERROR_OUT_OF_MEMORY, "cpu: xrt_module_load", "no memory for the compiler's arguments");
        for (i = 0; i < b->ncc; i++) argv[i] = b->cc[i];
        argv[i++] = (char *)"--version";
        argv[i] = NULL;
        rc = xrt__cc_run("cpu: xrt_module_load", b->prog, argv, version, sizeof version, &code);
        XRT_FREE(argv);
        if (rc != XRT_SUCCESS) {
            snprintf(log, log_size, "%s", version);
            return rc;
        }
        xrt__cache_key_init(&v, "cc --version");
        xrt__cache_key_str(&v, version);
        if (code == 0) xrt__cc_remember(file, v.a);
    }
    if (hit != 1) {
        pthread_mutex_lock(&xrt__cache_lock);
        xrt__cc_memo.programs = programs;
        xrt__cc_memo.version = v.a;
        xrt__cc_memo.valid = 1;
        pthread_mutex_unlock(&xrt__cache_lock);
    }
    b->programs = programs;
    xrt__cache_key_add(key, &programs, sizeof programs);
    xrt__cache_key_add(key, &v.a, sizeof v.a);
    return XRT_SUCCESS;
}

/* Whether an option is one known to name no file: -D, -O, -W without a
   comma, -f without "=" and a few -f...= of a keyword, -m, -std=, ...
   Any other may (--include-directory=inc, -Wp,-Iinc, -Wl,..., an option of
   a newer compiler), so it counts as relative. */
static int xrt__cc_no_path_option(const char *w)
{
    static const char *const prefix[] = {"-D", "-U", "-O", "-g", "-m", "-std=", "-l", "-x", "-M",
                                         "-fvisibility=", "-ffp-contract=", "-fsanitize=", "-fno-sanitize=",
                                         "-ftls-model=", "-fexcess-precision=", "-fcf-protection=", "-fopenmp=",
                                         "-fdiagnostics-color=", "-fmax-errors="};
    static const char *const exact[] = {"-w", "-s", "-c", "-C", "-P", "-E", "-S", "-v", "-pedantic", "-pedantic-errors",
                                        "-ansi", "-pthread", "-shared", "-static", "-rdynamic", "-pipe",
                                        "-no-canonical-prefixes", "--no-default-config"};
    size_t i;
    if (w[1] == 'W') return !strchr(w, ','); /* -Wp, -Wl, -Wa pass options on, which may name paths */
    if (w[1] == 'f' && !strchr(w, '=')) return 1;
    for (i = 0; i < sizeof prefix / sizeof prefix[0]; i++)
        if (!strncmp(w, prefix[i], strlen(prefix[i]))) return 1;
    for (i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (!strcmp(w, exact[i])) return 1;
    return 0;
}

/* Whether a word of the options or XRT_CC, or an element of a path list
   of the environment (CPATH, PATH, ...), may name a path relative to the
   working directory (an include directory, a file): then the working
   directory is part of the key. Options known to take no path do not
   count; an unknown option counts, to be safe. */
static int xrt__cc_relative_word(const char *w)
{
    static const char *const takes_path[] = {"-I", "-iquote", "-isystem", "-idirafter", "-include", "-imacros",
                                             "-iprefix", "-iwithprefix", "-isysroot", "--sysroot=", "-B", "-L", "@"};
    size_t i;
    if (w[0] != '-' && w[0] != '@') return w[0] != '/'; /* an option's argument, or a file */
    for (i = 0; i < sizeof takes_path / sizeof takes_path[0]; i++) {
        size_t n = strlen(takes_path[i]);
        if (!strncmp(w, takes_path[i], n)) return w[n] && w[n] != '/'; /* "-I" alone: the next word says */
    }
    return !xrt__cc_no_path_option(w);
}

static int xrt__cc_relative(const xrt__cc_build *b)
{
    static const char *const lists[] = {"CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "OBJC_INCLUDE_PATH",
                                        "LIBRARY_PATH", "COMPILER_PATH", "PATH"};
    size_t i;
    for (i = 1; i < b->ncc; i++)
        if (xrt__cc_relative_word(b->cc[i])) return 1;
    for (i = 0; i < b->nopt; i++)
        if (xrt__cc_relative_word(b->opt[i])) return 1;
    for (i = 0; i < b->words.len; i += strlen(b->words.p + i) + 1) /* those of response files too */
        if (xrt__cc_relative_word(b->words.p + i)) return 1;
    for (i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        const char *p = getenv(lists[i]);
        while (p && *p) { /* an empty element is the working directory too */
            if (*p != '/') return 1;
            p += strcspn(p, ":");
            if (*p == ':' && (*++p == 0 || *p == ':')) return 1;
        }
    }
    return 0;
}

/* A file read whole (NUL-terminated; free it), up to 16 MiB; NULL if not. */
static char *xrt__cc_read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    xrt__cc_text t = {NULL, 0, 0, 0};
    char buf[4096];
    size_t got;
    if (!f) return NULL;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0 && t.len < (16u << 20)) xrt__cc_text_add(&t, buf, got);
    if (ferror(f) || t.len >= (16u << 20) || t.oom || (!t.p && (xrt__cc_text_add(&t, "", 0), t.oom))) {
        XRT_FREE(t.p);
        t.p = NULL;
    }
    fclose(f);
    *len = t.len;
    return t.p;
}

static void xrt__cc_expand(xrt__cc_build *b, const char *w, int depth, xrt__cache_key *key);
static int xrt__cc_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

static void xrt__cc_config_word(xrt__cc_build *b, const char *w, int depth, const char *dir);

/* A response file's words as GCC reads them (libiberty's buildargv):
   blanks separate, quotes group, a backslash takes the next character.
   `cfg_dir`: those of a configuration file in that directory (as clang
   reads it, once its comments are gone: xrt__cc_config_text); NULL: of a
   response file, expanded into the key. */
static void xrt__cc_rsp_parse(xrt__cc_build *b, const char *p, int depth, xrt__cache_key *key, const char *cfg_dir)
{
    char *w = (char *)XRT_MALLOC(strlen(p) + 1);
    size_t n;
    int sq, dq;
    if (!w) {
        b->words.oom = 1;
        return;
    }
    for (;;) {
        while (*p && xrt__cc_blank(*p)) p++;
        if (!*p) break;
        for (n = 0, sq = dq = 0; *p && (sq || dq || !xrt__cc_blank(*p)); p++) {
            if (*p == '\\' && p[1]) w[n++] = *++p;
            else if (sq || dq) {
                if (*p == (sq ? '\'' : '"')) sq = dq = 0;
                else w[n++] = *p;
            } else if (*p == '\'' || *p == '"') {
                sq = *p == '\'', dq = *p == '"';
            } else {
                w[n++] = *p;
            }
        }
        w[n] = 0;
        if (cfg_dir) xrt__cc_config_word(b, w, depth + 1, cfg_dir);
        else xrt__cc_expand(b, w, depth + 1, key);
    }
    XRT_FREE(w);
}

/* A word of XRT_CC or the options into b->words, a response file (@file,
   nested ones too, as GCC and Clang read them) replaced by its words: its
   path and contents go into the key and its path into b->rsp, so a changed
   response file is another key and, listed with the files the build read,
   a changed one is never a hit. A word that names no readable file stays,
   as the compiler keeps it. */
static void xrt__cc_expand(xrt__cc_build *b, const char *w, int depth, xrt__cache_key *key)
{
    char real[PATH_MAX], *text;
    size_t len = 0;
    if (w[0] != '@' || depth > 8 || !realpath(w + 1, real) || !(text = xrt__cc_read_all(real, &len))) {
        xrt__cc_text_word(&b->words, w);
        return;
    }
    xrt__cache_key_str(key, real);
    xrt__cache_key_add(key, text, len);
    if (!xrt__cc_text_has(&b->rsp, real)) xrt__cc_text_word(&b->rsp, real);
    xrt__cc_rsp_parse(b, text, depth, key, NULL);
    XRT_FREE(text);
}

/* An include directory, absolute but with its links unresolved, as the
   dependency list names the files in it (xrt__cache_abspath). */
static void xrt__cc_add_include(xrt__cc_build *b, const char *dir, size_t n, const char *cwd)
{
    char want[PATH_MAX], real[PATH_MAX];
    if (n == 0) dir = ".", n = 1; /* an empty element of a list: the working directory */
    if ((size_t)snprintf(want, sizeof want, "%s%s%.*s", dir[0] == '/' ? "" : cwd, dir[0] == '/' ? "" : "/", (int)n,
                         dir) >= sizeof want)
        return;
    if (!xrt__cache_abspath(want, real, sizeof real)) return;
    snprintf(want, sizeof want, "%s", real);
    if (!xrt__cc_text_has(&b->incs, want)) xrt__cc_text_word(&b->incs, want);
}

/* The include directories the expanded words and the environment name:
   where the compiler looks for a header before its own directories. */
static void xrt__cc_include_dirs(xrt__cc_build *b, const char *cwd)
{
    static const char *const opts[] = {"-I", "-iquote", "-isystem", "-idirafter", "--include-directory="};
    static const char *const lists[] = {"CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "OBJC_INCLUDE_PATH"};
    size_t off, i, n;
    for (off = 0; off < b->words.len; off += strlen(b->words.p + off) + 1) {
        const char *w = b->words.p + off, *next = off + strlen(w) + 1 < b->words.len ? w + strlen(w) + 1 : NULL;
        for (i = 0; i < sizeof opts / sizeof opts[0]; i++)
            if (!strncmp(w, opts[i], n = strlen(opts[i]))) {
                const char *dir = w[n] ? w + n : next;
                if (dir && strcmp(w, "-I-")) xrt__cc_add_include(b, dir, strlen(dir), cwd);
                break;
            }
    }
    for (i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        const char *p = getenv(lists[i]);
        while (p && *p) {
            n = strcspn(p, ":");
            xrt__cc_add_include(b, p, n, cwd);
            p += n + (p[n] == ':');
        }
    }
}

/* The C++ compiler among XRT_CC's words (a wrapper may run it), or one told
   to compile C++ (-x c++): its kernels' names are mangled unless declared
   extern "C", which a lookup's error says. */
static void xrt__cc_note_cxx(const xrt__cc_build *b, char *out, size_t n)
{
    size_t i;
    const char *base;
    for (i = 0; i < b->ncc; i++) {
        base = strrchr(b->cc[i], '/') ? strrchr(b->cc[i], '/') + 1 : b->cc[i];
        if (strstr(base, "++")) {
            snprintf(out, n, "%s", base);
            return;
        }
    }
    for (i = 0; i < b->nopt; i++)
        if (!strcmp(b->opt[i], "-xc++") || (!strcmp(b->opt[i], "-x") && i + 1 < b->nopt && !strcmp(b->opt[i + 1], "c++"))) {
            base = strrchr(b->cc[0], '/') ? strrchr(b->cc[0], '/') + 1 : b->cc[0];
            snprintf(out, n, "%s -x c++", base);
            return;
        }
}

/* >> cc: what the compiler says it reads. Files a compiler reads on its
   own, that neither its dependency list nor the options name: clang's
   configuration files (default ones, found by its program's name beside
   it or in its configuration directories) and gcc's specs files (one in a
   -B directory, a LIBRARY_PATH directory or the compiler's own). Before
   each build the compiler is asked, with the build's command line and
   -### (which runs nothing): clang names each configuration file it reads
   ("Configuration file: PATH"), gcc each specs file ("Reading specs from
   PATH"). A configuration file, and each it names with @file, is listed
   with the files the build read (a hit checks its contents), and its
   words count as options: one that makes the compiler read an unlisted
   file leaves the build uncached, one that may name a relative path ties
   the entry to the working directory (xrt__cc_pin_cwd). A specs file may
   read files of its own: the build is not cached, as with -specs=. So is a
   build whose compiler does not answer (-### fails). */
#define XRT__CC_PROBE_LOG 16384

/* The first reason the answer leaves the build uncached. */
static void xrt__cc_probe_refuse(xrt__cc_build *b, const char *what, const char *path)
{
    if (b->uncached) return;
    snprintf(b->uncached_text, sizeof b->uncached_text, "%s%.*s", what, PATH_MAX, path);
    b->uncached = b->uncached_text;
}

/* A configuration file's text as clang reads it (llvm's
   tokenizeConfigFile), in place: a line whose first non-blank is '#' is a
   comment, a backslash before a line's end joins the next line. */
static void xrt__cc_config_text(char *t)
{
    const char *r = t;
    char *w = t;
    while (*r) {
        if (xrt__cc_blank(*r)) {
            *w++ = *r++;
            continue;
        }
        if (*r == '#') {
            while (*r && *r != '\n') r++;
            continue;
        }
        while (*r && *r != '\n') {
            if (r[0] == '\\' && (r[1] == '\n' || (r[1] == '\r' && r[2] == '\n'))) r += r[1] == '\n' ? 2 : 3;
            else if (r[0] == '\\' && r[1]) *w++ = *r++, *w++ = *r++;
            else *w++ = *r++;
        }
    }
    *w = 0;
}

/* The configuration file `path` (as the compiler named it, or as one named
   it with @file): listed, its words read, those it names in turn too. */
static void xrt__cc_config(xrt__cc_build *b, const char *path, int depth)
{
    char named[PATH_MAX], *text;
    size_t len = 0;
    if (path[0] != '/') b->cfg_relative = 1; /* found from the working directory */
    if (depth > 8) {
        xrt__cc_probe_refuse(b, "configuration files name each other more than 8 deep: ", path);
        return;
    }
    if (!xrt__cache_abspath(path, named, sizeof named) || strchr(named, '\n') ||
        !(text = xrt__cc_read_all(named, &len))) {
        xrt__cc_probe_refuse(b, "the compiler reads a configuration file xrt cannot read: ", path);
        return;
    }
    if (!xrt__cc_text_has(&b->cfg, named)) xrt__cc_text_word(&b->cfg, named);
    xrt__cc_config_text(text);
    *strrchr(named, '/') = 0; /* where the files it names with @file are */
    xrt__cc_rsp_parse(b, text, depth, NULL, named[0] ? named : "/");
    XRT_FREE(text);
}

/* A word of a configuration file in `dir`: an option, or @file (relative
   to dir, as clang reads it there). */
static void xrt__cc_config_word(xrt__cc_build *b, const char *w, int depth, const char *dir)
{
    char path[PATH_MAX];
    if (w[0] != '@') {
        xrt__cc_text_word(&b->words, w);
        if (xrt__cc_relative_word(w)) b->cfg_relative = 1;
        return;
    }
    if ((size_t)snprintf(path, sizeof path, "%s%s%s", w[1] == '/' ? "" : dir, w[1] == '/' ? "" : "/", w + 1) < sizeof path)
        xrt__cc_config(b, path, depth);
    else
        xrt__cc_probe_refuse(b, "a configuration file names a path too long: ", w);
}

/* A place a program may run from, as a line of <path>.absent: where a
   file is, "*<identity> <path>" (a program replaced there is another
   build); else the path, which must stay absent. Absolute, links
   unresolved (a link retargeted is another program). */
static void xrt__cc_ran_at(xrt__cc_build *b, const char *path)
{
    char named[PATH_MAX], line[PATH_MAX + 40], hex[33];
    if (!xrt__cache_abspath(path, named, sizeof named) || strchr(named, '\n')) {
        xrt__cc_probe_refuse(b, "the compiler runs a program whose path xrt cannot list: ", path);
        return;
    }
    if (xrt__cache_program_hex(named, hex)) snprintf(line, sizeof line, "%c%s %s", XRT__PROGRAM_MARK, hex, named);
    else if (xrt__cache_path_absent(named)) snprintf(line, sizeof line, "%s", named);
    else {
        xrt__cc_probe_refuse(b, "the compiler may run a program xrt cannot look at: ", named);
        return;
    }
    if (!xrt__cc_text_has(&b->ran, line)) xrt__cc_text_word(&b->ran, line);
}

/* A program the compiler runs, by the name it runs it by (a path, or a
   name it looks for along PATH): where it is found and the places before
   it along PATH go to b->ran. 1 if it is gcc's collect2. */
static int xrt__cc_ran_name(xrt__cc_build *b, const char *name)
{
    char found[PATH_MAX];
    const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
    if (xrt__cc_find(name, found, b)) xrt__cc_ran_at(b, found);
    return !strcmp(base, "collect2");
}

/* A command of the compiler's answer to -### (after its leading blank):
   its program, as gcc names it (bare or a path) or clang quotes it. */
static int xrt__cc_ran(xrt__cc_build *b, const char *cmd)
{
    char name[PATH_MAX];
    size_t k = 0;
    int quoted = *cmd == '"';
    for (cmd += quoted; *cmd && (quoted ? *cmd != '"' : !xrt__cc_blank(*cmd)); cmd++) {
        if (quoted && *cmd == '\\' && cmd[1]) cmd++;
        if (k + 1 < sizeof name) name[k++] = *cmd;
    }
    name[k] = 0;
    if (!name[0] || name[0] == '(') return 0; /* clang's "(in-process)": its own -cc1 */
    return xrt__cc_ran_name(b, name);
}

/* gcc's collect2 runs the linker it finds as the driver does (-B
   directories, the driver's own, then PATH): the driver names it when
   asked (-print-prog-name=ld, with the build's argv: n words). */
static void xrt__cc_gcc_linker(xrt__cc_build *b, char **argv, size_t n)
{
    char out[PATH_MAX + 2];
    int code = 0;
    argv[n] = (char *)"-print-prog-name=ld";
    argv[n + 1] = NULL;
    if (xrt__cc_run("cpu: xrt_module_load", b->prog, argv, out, sizeof out, &code) != XRT_SUCCESS || code != 0 ||
        !out[strspn(out, " \n")]) {
        xrt__cc_probe_refuse(b, "the compiler does not say which linker collect2 runs (-print-prog-name=ld failed)", "");
        return;
    }
    out[strcspn(out, "\n")] = 0;
    xrt__cc_ran_name(b, out);
}

/* Asks the compiler which files it reads on its own: argv (n words, room
   for one more) with -###, run as the build will be (b->prog). */
static void xrt__cc_probe(xrt__cc_build *b, char **argv, size_t n)
{
    char *out = (char *)XRT_MALLOC(XRT__CC_PROBE_LOG), *line, *nl;
    int code = 0, collect2 = 0;
    if (!out) {
        xrt__cc_probe_refuse(b, "no memory for the compiler's answer to -###", "");
        return;
    }
    argv[n] = (char *)"-###";
    argv[n + 1] = NULL;
    if (xrt__cc_run("cpu: xrt_module_load", b->prog, argv, out, XRT__CC_PROBE_LOG, &code) != XRT_SUCCESS || code != 0)
        xrt__cc_probe_refuse(b, "the compiler does not say which files it reads on its own (-### failed)", "");
    else
        for (line = out; *line; line = nl) {
            nl = line + strcspn(line, "\n");
            if (*nl) *nl++ = 0;
            if (!strncmp(line, "Configuration file: ", 20)) xrt__cc_config(b, line + 20, 0);
            else if (!strncmp(line, "Reading specs from ", 19))
                xrt__cc_probe_refuse(b, "the compiler reads a specs file, which may read files its list leaves out: ", line + 19);
            else if (line[0] == ' ') collect2 |= xrt__cc_ran(b, line + 1);
        }
    if (collect2) xrt__cc_gcc_linker(b, argv, n);
    argv[n] = NULL;
    XRT_FREE(out);
}

/* Adds "=<cwd>" to <path>.absent: the entry is for this working directory
   only (the cache checks it on a hit); where it cannot be written, the
   build is not cached. */
static void xrt__cc_pin_cwd(const char *path, const char *deps, const char *cwd)
{
    char apath[PATH_MAX + 16];
    FILE *f;
    snprintf(apath, sizeof apath, "%s.absent", path);
    if (strchr(cwd, '\n') || !(f = xrt__cc_fopen_private(apath, 1))) {
        xrt__cc_unlistable(deps);
        return;
    }
    fprintf(f, "=%s\n", cwd);
    if (fclose(f) != 0) xrt__cc_unlistable(deps);
}

/* Adds the programs the compiler runs (b->ran, xrt__cc_ran_at) to
   <path>.absent: a hit needs each the same, and nothing new before one
   along PATH; where they cannot be written, the build is not cached. */
static void xrt__cc_write_ran(const char *path, const char *deps, const xrt__cc_text *ran)
{
    char apath[PATH_MAX + 16];
    size_t off;
    FILE *f;
    if (!ran->len) return;
    snprintf(apath, sizeof apath, "%s.absent", path);
    if (ran->oom || !(f = xrt__cc_fopen_private(apath, 1))) {
        xrt__cc_unlistable(deps);
        return;
    }
    for (off = 0; off < ran->len; off += strlen(ran->p + off) + 1) fprintf(f, "%s\n", ran->p + off);
    if (fclose(f) != 0) xrt__cc_unlistable(deps);
}
#endif /* XRT_ENABLE_CPU */

#endif /* implementation */

/*
------------------------------------------------------------------------------
xrt is available under the MIT licence, whose text every copy must carry:

MIT License

Copyright (c) 2026 the xrt authors

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
------------------------------------------------------------------------------
*/
