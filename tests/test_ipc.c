/* SPDX-License-Identifier: MIT */
/* Memory and events shared between processes (xrt_ipc_*). On the CPU
   backend two real processes (this one and a forked child that selects the
   backend itself) share device memory through a handle sent over a pipe,
   each checking the other's writes; the exporter's free while the other
   has it open; stale, forged and misused handles. On every backend (cuda on
   the runtime double too) the rules a single process can check: which
   memory and events can be shared, and what a handle that cannot be opened
   answers. */
/* Another process's ftruncate of a range's memory file between its
   creation and its seals (test_ipc_file_shrunk_before_its_seals). */
static int ipc_shrink_before_seals;
#define XRT__TEST_MEMFILE_UNSEALED(fd) ((void)(ipc_shrink_before_seals && ftruncate((fd), 0) != 0))
/* The exporter's move of another file to its descriptor between the
   opener's check of it and its open (test_ipc_file_swapped_after_its_check):
   the opener asks on ipc_swap_wr and waits for the answer on ipc_swap_rd. */
static int ipc_swap_wr = -1, ipc_swap_rd = -1;
static void ipc_before_open(void);
#define XRT__TEST_IPC_BEFORE_OPEN() ipc_before_open()
/* Another thread's fork during a first export (test_ipc_fork_during_a_first_export). */
static void ipc_share_before_move(void);
#define XRT__TEST_SHARE_BEFORE_MOVE() ipc_share_before_move()
#define XRT_IMPL /* white-box: the CPU backend's IPC records and test hooks */
#include "xrt_test.h"
#include <poll.h>
#include <sys/inotify.h>

/* >> a peer process: a forked child with a pipe each way */
typedef struct peer {
    pid_t pid;
    int rd, wr; /* in the parent: from and to the child */
} peer;
typedef void (*peer_fn)(int rd, int wr, void *arg);

static void put(int fd, const void *p, size_t n)
{
    const char *c = (const char *)p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w <= 0) return;
        c += w, n -= (size_t)w;
    }
}

/* 1 when all n bytes came, 0 at the end of the pipe. */
static int get(int fd, void *p, size_t n)
{
    char *c = (char *)p;
    while (n) {
        ssize_t r = read(fd, c, n);
        if (r <= 0) return 0;
        c += r, n -= (size_t)r;
    }
    return 1;
}

static void put_byte(int fd, char b) { put(fd, &b, 1); }
static char get_byte(int fd)
{
    char b = 0;
    return get(fd, &b, 1) ? b : 0;
}

/* Forks a peer that runs fn with its ends of the pipes, then shuts xrt
   down and exits. The parent keeps only its own ends (the child's write
   end closed, so a child that dies is the end of its pipe, not a hang).
   With `select`, the child selects the cpu backend first; else it goes on
   with what it inherited (its parent's memory, streams and events). */
static void peer_fork(peer *p, peer_fn fn, void *arg, int select)
{
    int down[2], up[2];
    assert_int_equal(pipe(down), 0);
    assert_int_equal(pipe(up), 0);
    p->pid = child_fork(20);
    if (p->pid == 0) {
        close(down[1]);
        close(up[0]);
        if (select) CHILD_OK(xrt_set_backend("cpu"));
        fn(down[0], up[1], arg);
        close(down[0]);
        close(up[1]);
        xrt_shutdown();
        child_exit(0);
    }
    close(down[0]);
    close(up[1]);
    p->rd = up[0];
    p->wr = down[1];
}

static void peer_start(peer *p, peer_fn fn, void *arg) { peer_fork(p, fn, arg, 1); }

static void peer_end(peer *p)
{
    char why[256];
    close(p->wr);
    close(p->rd);
    if (child_status(p->pid, 20, why, sizeof why)) fail_msg("peer process: %s", why);
}

/* n bytes from the peer; at the end of its pipe (it died, or failed
   before it sent them) the test fails with what became of it. */
static void peer_get(peer *p, void *buf, size_t n)
{
    char why[256];
    if (get(p->rd, buf, n)) return;
    close(p->wr);
    close(p->rd);
    if (!child_status(p->pid, 20, why, sizeof why)) snprintf(why, sizeof why, "it exited with status 0");
    fail_msg("peer process (pid %d) sent nothing more: %s", (int)p->pid, why);
}

static char peer_byte(peer *p)
{
    char b = 0;
    peer_get(p, &b, 1);
    return b;
}

/* Waits for two peers, then fails saying what became of each. */
static void peers_end(peer *a, peer *b)
{
    char why[2][256];
    int failed[2], i;
    peer *p[2] = {a, b};
    for (i = 0; i < 2; i++) {
        close(p[i]->wr);
        close(p[i]->rd);
    }
    for (i = 0; i < 2; i++) failed[i] = child_status(p[i]->pid, 20, why[i], sizeof why[i]);
    if (failed[0] || failed[1])
        fail_msg("first peer: %s; second peer: %s", failed[0] ? why[0] : "passed", failed[1] ? why[1] : "passed");
}

/* In a child: every byte of n at device pointer d is v. */
static void child_bytes(const void *d, size_t n, unsigned char v)
{
    unsigned char *h = (unsigned char *)malloc(n);
    size_t i;
    if (!h) CHILD_FAIL("no memory");
    CHILD_OK(xrt_memcpy(h, d, n, XRT_MEMCPY_DEVICE_TO_HOST));
    for (i = 0; i < n; i++)
        if (h[i] != v) CHILD_FAIL("byte %zu is 0x%02x, expected 0x%02x", i, h[i], v);
    free(h);
}

static void parent_bytes(const void *d, size_t n, unsigned char v)
{
    unsigned char *h = (unsigned char *)malloc(n);
    assert_non_null(h);
    OK(xrt_memcpy(h, d, n, XRT_MEMCPY_DEVICE_TO_HOST));
    assert_bytes(h, n, v);
    free(h);
}

/* >> the memory files a process holds */
/* The shared file mapping of this process holding p: its file offset,
   length and inode; 0 if p is in no shared file mapping. */
static int file_mapping_of(const void *p, uint64_t *off, size_t *len, unsigned long *ino)
{
    char line[512];
    int found = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return 0;
    while (!found && fgets(line, sizeof line, f)) {
        unsigned long lo, hi, inode;
        unsigned long long o;
        char perms[8], dev[16];
        if (sscanf(line, "%lx-%lx %7s %llx %15s %lu", &lo, &hi, perms, &o, dev, &inode) == 6 && perms[3] == 's' &&
            inode != 0 && (uintptr_t)p >= lo && (uintptr_t)p < hi) {
            *off = (uint64_t)o;
            *len = (size_t)(hi - lo);
            *ino = inode;
            found = 1;
        }
    }
    fclose(f);
    return found;
}

/* The xrt memory files this process holds: the bytes of those it holds by
   descriptor (their blocks), of those it maps (the mappings' lengths), and
   whether the file of inode `unheld` is among either. */
static void held_files(unsigned long unheld, long long *fd_bytes, long long *mapped, int *holds_unheld)
{
    char line[512], path[64], link[256];
    FILE *f = fopen("/proc/self/maps", "r");
    int i;
    *fd_bytes = *mapped = 0;
    *holds_unheld = 0;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long lo, hi, inode;
        unsigned long long o;
        char perms[8], dev[16];
        if (!strstr(line, "/memfd:xrt-cpu-device-") ||
            sscanf(line, "%lx-%lx %7s %llx %15s %lu", &lo, &hi, perms, &o, dev, &inode) != 6)
            continue;
        *mapped += (long long)(hi - lo);
        if (inode == unheld) *holds_unheld = 1;
    }
    if (f) fclose(f);
    for (i = 0; i < 1024; i++) {
        struct stat st;
        ssize_t n;
        snprintf(path, sizeof path, "/proc/self/fd/%d", i);
        if ((n = readlink(path, link, sizeof link - 1)) <= 0) continue;
        link[n] = 0;
        if (!strstr(link, "memfd:xrt-cpu-device-") || fstat(i, &st) != 0) continue;
        *fd_bytes += (long long)st.st_blocks * 512;
        if ((unsigned long)st.st_ino == unheld) *holds_unheld = 1;
    }
}

#define SHARED_BYTES ((size_t)(1u << 20) + 3) /* odd: the last page is partly used */
#define CHILD_BYTES ((size_t)4096 + 7)

/* >> two processes share memory (CPU) */
/* The child opens the parent's buffer (twice: one mapping, counted), checks
   and overwrites it, then exports a buffer of its own for the parent to
   check and overwrite. */
static void share_child(int rd, int wr, void *arg)
{
    xrt_ipc_mem_handle h, mine;
    xrt_pointer_attributes a;
    void *p = NULL, *again = NULL, *q = NULL;
    (void)arg;
    if (!get(rd, &h, sizeof h)) CHILD_FAIL("no handle from the parent");
    CHILD_OK(xrt_ipc_open_mem_handle(&p, h, XRT_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
    CHILD_OK(xrt_pointer_get_attributes(&a, (char *)p + 5));
    CHILD_TRUE(a.type == XRT_MEMORY_DEVICE && a.base == p && a.size == SHARED_BYTES && a.device == 0);
    child_bytes(p, SHARED_BYTES, 0x5a);
    CHILD_OK(xrt_ipc_open_mem_handle(&again, h, 0));
    CHILD_TRUE(again == p);
    CHILD_OK(xrt_memset(p, 0xa5, SHARED_BYTES));
    CHILD_OK(xrt_ipc_close_mem_handle(p));
    child_bytes(p, 64, 0xa5); /* one open left: still mapped */
    CHILD_OK(xrt_ipc_close_mem_handle(again));
    CHILD_EXPECT(xrt_ipc_close_mem_handle(p), XRT_ERROR_INVALID_VALUE);
    CHILD_OK(xrt_malloc(&q, CHILD_BYTES));
    CHILD_OK(xrt_memset(q, 0x77, CHILD_BYTES));
    CHILD_OK(xrt_ipc_get_mem_handle(&mine, q));
    put(wr, &mine, sizeof mine);
    if (get_byte(rd) != 'x') CHILD_FAIL("the parent did not finish with the child's buffer");
    child_bytes(q, CHILD_BYTES, 0x88);
    CHILD_OK(xrt_free(q));
}

static void test_ipc_two_processes_check_each_others_writes(void **state)
{
    xrt_ipc_mem_handle h, theirs;
    void *d, *q = NULL;
    peer p;
    (void)state;
    SKIP_IF_CHILD_STREAMS_UNDER_TSAN();
    OK(xrt_malloc(&d, SHARED_BYTES));
    OK(xrt_memset(d, 0x5a, SHARED_BYTES));
    OK(xrt_ipc_get_mem_handle(&h, (char *)d + 100)); /* any pointer into it: the handle is the allocation's */
    peer_start(&p, share_child, NULL);
    put(p.wr, &h, sizeof h);
    peer_get(&p, &theirs, sizeof theirs);
    parent_bytes(d, SHARED_BYTES, 0xa5);
    OK(xrt_ipc_open_mem_handle(&q, theirs, 0));
    parent_bytes(q, CHILD_BYTES, 0x77);
    OK(xrt_memset(q, 0x88, CHILD_BYTES));
    OK(xrt_ipc_close_mem_handle(q));
    put_byte(p.wr, 'x');
    peer_end(&p);
    OK(xrt_free(d));
}

/* >> the exporter frees while another process has it open (CPU) */
static void frees_child(int rd, int wr, void *arg)
{
    xrt_ipc_mem_handle h;
    void *p = NULL, *again = NULL;
    (void)arg;
    if (!get(rd, &h, sizeof h)) CHILD_FAIL("no handle from the parent");
    CHILD_OK(xrt_ipc_open_mem_handle(&p, h, 0));
    put_byte(wr, 'o');
    if (get_byte(rd) != 'f') CHILD_FAIL("the parent did not free");
    child_bytes(p, 4096, 0x31); /* the bytes stay until the last close */
    CHILD_OK(xrt_memset(p, 0x32, 4096));
    child_bytes(p, 4096, 0x32);
    CHILD_EXPECT(xrt_ipc_open_mem_handle(&again, h, 0), XRT_ERROR_INVALID_HANDLE); /* no new opens */
    if (!strstr(xrt_get_last_error_string(), "freed by its exporter")) CHILD_FAIL("%s", xrt_get_last_error_string());
    CHILD_TRUE(again == NULL);
    CHILD_OK(xrt_ipc_close_mem_handle(p));
}

static void stale_child(int rd, int wr, void *arg)
{
    xrt_ipc_mem_handle h;
    void *p = (void *)&h;
    (void)wr, (void)arg;
    if (!get(rd, &h, sizeof h)) CHILD_FAIL("no handle from the parent");
    CHILD_EXPECT(xrt_ipc_open_mem_handle(&p, h, 0), XRT_ERROR_INVALID_HANDLE);
    if (!strstr(xrt_get_last_error_string(), "cpu: xrt_ipc_open_mem_handle") ||
        !strstr(xrt_get_last_error_string(), "freed by its exporter"))
        CHILD_FAIL("%s", xrt_get_last_error_string());
    CHILD_TRUE(p == NULL);
}

static void test_ipc_exporter_frees_while_another_process_has_it_open(void **state)
{
    xrt_ipc_mem_handle h;
    void *d;
    peer p;
    (void)state;
    SKIP_IF_CHILD_STREAMS_UNDER_TSAN();
    OK(xrt_malloc(&d, 4096));
    OK(xrt_memset(d, 0x31, 4096));
    OK(xrt_ipc_get_mem_handle(&h, d));
    peer_start(&p, frees_child, NULL);
    put(p.wr, &h, sizeof h);
    assert_int_equal(peer_byte(&p), 'o');
    OK(xrt_free(d));
    put_byte(p.wr, 'f');
    peer_end(&p);
    peer_start(&p, stale_child, NULL); /* a handle of freed memory */
    put(p.wr, &h, sizeof h);
    peer_end(&p);
}

/* >> forged handles (CPU): what the checks past the handle's checksum see.
   The test forges them with the backend's own layout and checksum. */
typedef struct forge { const char *what, *needle; void (*edit)(xrt__cpu_ipc *k); } forge;
static void forge_fd(xrt__cpu_ipc *k) { k->fd = 0; }
static void forge_pid(xrt__cpu_ipc *k) { k->pid = 0x7ffffff0; }
static void forge_inode(xrt__cpu_ipc *k) { k->ino ^= 1; }
static void forge_key(xrt__cpu_ipc *k) { k->key[1] ^= 1; }
static void forge_device(xrt__cpu_ipc *k) { k->device = 1000; }
static const forge forges[] = {
    {"fd", "not a memory file", forge_fd}, /* its descriptor 0 */
    {"pid", "the exporter exited, or is another user's", forge_pid},
    {"inode", "is not the memory file it names", forge_inode},
    {"key", "was not exported with its key", forge_key},
    {"device", "a forged handle", forge_device},
};

static void forged_child(int rd, int wr, void *arg)
{
    xrt_ipc_mem_handle h, f;
    void *p = NULL;
    size_t i;
    (void)wr, (void)arg;
    if (!get(rd, &h, sizeof h)) CHILD_FAIL("no handle from the parent");
    for (i = 0; i < sizeof forges / sizeof forges[0]; i++) {
        xrt__cpu_ipc k;
        memcpy(&k, h.reserved, sizeof k);
        forges[i].edit(&k);
        k.check = xrt__cpu_ipc_check(&k);
        f = h;
        memcpy(f.reserved, &k, sizeof k);
        child_step(forges[i].what);
        CHILD_EXPECT(xrt_ipc_open_mem_handle(&p, f, 0), XRT_ERROR_INVALID_HANDLE);
        if (!strstr(xrt_get_last_error_string(), forges[i].needle))
            CHILD_FAIL("forged %s: \"%s\" does not say \"%s\"", forges[i].what, xrt_get_last_error_string(),
                       forges[i].needle);
        CHILD_TRUE(p == NULL);
    }
    /* The real one still opens; the opened pointer is not this process's to free or export. */
    CHILD_OK(xrt_ipc_open_mem_handle(&p, h, 0));
    CHILD_EXPECT(xrt_free(p), XRT_ERROR_INVALID_VALUE);
    if (!strstr(xrt_get_last_error_string(), "use xrt_ipc_close_mem_handle")) CHILD_FAIL("%s", xrt_get_last_error_string());
    CHILD_EXPECT(xrt_ipc_get_mem_handle(&f, p), XRT_ERROR_INVALID_VALUE);
    if (!strstr(xrt_get_last_error_string(), "only its exporter makes handles"))
        CHILD_FAIL("%s", xrt_get_last_error_string());
    CHILD_OK(xrt_ipc_close_mem_handle(p));
}

static void test_ipc_forged_handles_are_refused(void **state)
{
    xrt_ipc_mem_handle h, bad;
    void *d, *p = &h;
    peer pr;
    (void)state;
    OK(xrt_malloc(&d, 4096));
    OK(xrt_ipc_get_mem_handle(&h, d));
    memset(&bad, 0, sizeof bad);
    XRT_ASSERT_FAILS(xrt_ipc_open_mem_handle(&p, bad, 0), XRT_ERROR_INVALID_HANDLE,
                     "not a memory handle of the cpu backend (forged, or of another backend)");
    assert_null(p);
    bad = h;
    bad.reserved[24] ^= 0x10; /* a changed byte: the checksum no longer holds */
    XRT_ASSERT_FAILS(xrt_ipc_open_mem_handle(&p, bad, 0), XRT_ERROR_INVALID_HANDLE, "not a memory handle of the cpu backend");
    peer_start(&pr, forged_child, NULL);
    put(pr.wr, &h, sizeof h);
    peer_end(&pr);
    OK(xrt_free(d));
}

/* >> a handle naming a thread of this process is this process's (CPU):
   /proc/<tid>/fd is the process's own descriptor table, so a peer that
   puts the id of one of the exporter's threads in the exporter's handle
   must not get the exporter a second mapping of its own memory. */
static int tid_up[2], tid_down[2];
static void *tid_thread(void *arg)
{
    *(pid_t *)arg = (pid_t)syscall(SYS_gettid);
    put_byte(tid_up[1], 't');
    (void)get_byte(tid_down[0]); /* lives until the test is done with its id */
    return NULL;
}

static void test_ipc_handle_naming_a_thread_of_this_process(void **state)
{
    xrt_ipc_mem_handle h;
    xrt__cpu_ipc k;
    pthread_t t;
    pid_t tid = 0;
    void *d, *p = NULL;
    (void)state;
    assert_int_equal(pipe(tid_up), 0);
    assert_int_equal(pipe(tid_down), 0);
    OK(xrt_malloc(&d, 4096));
    OK(xrt_ipc_get_mem_handle(&h, d));
    assert_int_equal(pthread_create(&t, NULL, tid_thread, &tid), 0);
    assert_int_equal(get_byte(tid_up[0]), 't');
    assert_int_not_equal(tid, getpid());
    memcpy(&k, h.reserved, sizeof k);
    k.pid = (int32_t)tid;
    k.check = xrt__cpu_ipc_check(&k);
    memcpy(h.reserved, &k, sizeof k);
    p = &k;
    XRT_ASSERT_FAILS(xrt_ipc_open_mem_handle(&p, h, 0), XRT_ERROR_INVALID_VALUE, "made by this process");
    assert_null(p);
    put_byte(tid_down[1], 'x');
    assert_int_equal(pthread_join(t, NULL), 0);
    close(tid_up[0]), close(tid_up[1]), close(tid_down[0]), close(tid_down[1]);
    OK(xrt_free(d));
}

/* >> a handle forged for memory it was not given (CPU). Everything in a
   handle but its key is visible to a process of the same user: the
   exporter's pid, its descriptors (/proc/<pid>/fd) and the files behind
   them, every byte of them. Memory never exported is in no file: nothing
   names it. The child copies the real handle and points it at each other
   memory file the parent holds (a range exported without its handle given,
   an interprocess event's never exported), keeping the real handle's key:
   both are refused, as that key is not theirs. */
static void unexported_child(int rd, int wr, void *arg)
{
    xrt_ipc_mem_handle h, f;
    xrt__cpu_ipc real, k;
    char path[64], link[256];
    void *p = NULL;
    int fd, others = 0;
    (void)wr, (void)arg;
    if (!get(rd, &h, sizeof h)) CHILD_FAIL("no handle from the parent");
    memcpy(&real, h.reserved, sizeof real);
    for (fd = 0; fd < 1024; fd++) {
        struct stat st;
        ssize_t n;
        snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)real.pid, fd);
        if ((n = readlink(path, link, sizeof link - 1)) <= 0) continue;
        link[n] = 0;
        if (!strstr(link, "memfd:xrt-cpu-device-") || stat(path, &st) != 0 || (uint64_t)st.st_ino == real.ino) continue;
        k = real;
        k.fd = fd;
        k.ino = (uint64_t)st.st_ino;
        k.dev = (uint64_t)st.st_dev;
        k.check = xrt__cpu_ipc_check(&k);
        f = h;
        memcpy(f.reserved, &k, sizeof k);
        CHILD_EXPECT(xrt_ipc_open_mem_handle(&p, f, 0), XRT_ERROR_INVALID_HANDLE);
        if (!strstr(xrt_get_last_error_string(), "was not exported")) CHILD_FAIL("%s", xrt_get_last_error_string());
        CHILD_TRUE(p == NULL);
        others++;
    }
    if (others < 2) CHILD_FAIL("%d other memory files of the parent: expected its exported range's and its event's", others);
    CHILD_OK(xrt_ipc_open_mem_handle(&p, h, 0)); /* the handle that was given opens */
    CHILD_OK(xrt_ipc_close_mem_handle(p));
}

static void test_ipc_unexported_memory_is_refused(void **state)
{
    xrt_ipc_mem_handle h, h2;
    xrt_event e;
    uint64_t off;
    size_t len;
    unsigned long ino;
    void *d, *hidden, *d2;
    peer p;
    (void)state;
    OK(xrt_malloc(&d, 4096));
    OK(xrt_malloc(&hidden, 8192)); /* never exported: in no file, out of any handle's reach */
    OK(xrt_malloc(&d2, 4096));     /* exported, its handle not given */
    OK(xrt_event_create(&e, XRT_EVENT_INTERPROCESS | XRT_EVENT_DISABLE_TIMING)); /* in a file, never exported */
    OK(xrt_memset(hidden, 0x5e, 8192));
    OK(xrt_memset(d, 0, 4096));
    OK(xrt_ipc_get_mem_handle(&h, d));
    OK(xrt_ipc_get_mem_handle(&h2, d2));
    assert_false(file_mapping_of(hidden, &off, &len, &ino));
    peer_start(&p, unexported_child, NULL);
    put(p.wr, &h, sizeof h);
    peer_end(&p);
    OK(xrt_event_destroy(e));
    OK(xrt_free(d2));
    OK(xrt_free(hidden));
    OK(xrt_free(d));
}

/* >> a close waits for a host function that opens a handle (CPU). The close
   waits for the work queued before it; a host function may open a handle;
   so the close must not hold what an open takes while it waits. The child
   (with its alarm) closes one mapping while its stream's host function,
   queued before the close, opens another. */
static struct {
    xrt_ipc_mem_handle h;
    void *p;
    xrt_status st;
    char why[512];
} host_open;

static void open_from_host_fn(void *user)
{
    (void)user;
    sleep_ms(50); /* the close is waiting by now */
    host_open.st = xrt_ipc_open_mem_handle(&host_open.p, host_open.h, 0);
    snprintf(host_open.why, sizeof host_open.why, "%s", xrt_get_last_error_string());
}

static void close_child(int rd, int wr, void *arg)
{
    xrt_ipc_mem_handle h1;
    xrt_stream s;
    void *p1 = NULL;
    int i;
    (void)wr, (void)arg;
    if (!get(rd, &h1, sizeof h1) || !get(rd, &host_open.h, sizeof host_open.h)) CHILD_FAIL("no handles from the parent");
    host_open.st = XRT_ERROR_NOT_READY; /* not run */
    CHILD_OK(xrt_ipc_open_mem_handle(&p1, h1, 0));
    CHILD_OK(xrt_stream_create(&s));
    CHILD_OK(xrt_launch_host_func(s, open_from_host_fn, NULL));
    CHILD_OK(xrt_ipc_close_mem_handle(p1)); /* waits for the host function */
    if (host_open.st != XRT_SUCCESS)
        CHILD_FAIL("the host function's open: %s (%s)", xrt_status_string(host_open.st), host_open.why);
    child_bytes(host_open.p, 4096, 0x3c);
    /* A refused close gives its open back: refused while a capture forbids
       waiting, with two opens and then with the last one. */
    CHILD_OK(xrt_ipc_open_mem_handle(&p1, host_open.h, 0));
    CHILD_TRUE(p1 == host_open.p);
    for (i = 0; i < 2; i++) {
        xrt_pointer_attributes a;
        xrt_graph g = NULL;
        CHILD_OK(xrt_stream_begin_capture(s, XRT_CAPTURE_MODE_GLOBAL));
        CHILD_EXPECT(xrt_ipc_close_mem_handle(p1), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED);
        CHILD_EXPECT(xrt_stream_end_capture(s, &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED);
        CHILD_OK(xrt_pointer_get_attributes(&a, p1));
        CHILD_TRUE(a.type == XRT_MEMORY_DEVICE && a.base == p1 && a.size == 4096);
        child_bytes(p1, 4096, 0x3c);
        CHILD_OK(xrt_ipc_close_mem_handle(p1));
    }
    CHILD_EXPECT(xrt_ipc_close_mem_handle(p1), XRT_ERROR_INVALID_VALUE);
    CHILD_OK(xrt_stream_destroy(s));
}

static void export_child(int rd, int wr, void *arg)
{
    xrt_ipc_mem_handle h[2];
    void *d[2];
    int i;
    (void)arg;
    for (i = 0; i < 2; i++) {
        CHILD_OK(xrt_malloc(&d[i], 4096));
        CHILD_OK(xrt_memset(d[i], 0x3c, 4096));
        CHILD_OK(xrt_ipc_get_mem_handle(&h[i], d[i]));
    }
    put(wr, h, sizeof h);
    if (get_byte(rd) != 'x') CHILD_FAIL("the parent did not finish");
    for (i = 0; i < 2; i++) CHILD_OK(xrt_free(d[i]));
}

static void test_ipc_close_waits_for_host_fn_that_opens(void **state)
{
    xrt_ipc_mem_handle h[2];
    peer exporter, closer;
    (void)state;
    SKIP_IF_CHILD_STREAMS_UNDER_TSAN();
    peer_start(&exporter, export_child, NULL);
    peer_get(&exporter, h, sizeof h);
    peer_start(&closer, close_child, NULL);
    put(closer.wr, h, sizeof h);
    peer_end(&closer);
    put_byte(exporter.wr, 'x');
    peer_end(&exporter);
}

/* Threads opening and closing one handle at once: each open gets the
   one mapping, counted, and the last close unmaps it. */
static void *open_close_loop(void *arg)
{
    const xrt_ipc_mem_handle *h = (const xrt_ipc_mem_handle *)arg;
    unsigned char b = 0;
    void *p;
    int i;
    if (xrt_set_backend("cpu") != XRT_SUCCESS) return (void *)xrt_get_last_error_string(); /* a thread starts on the default */
    for (i = 0; i < 500; i++) {
        if (xrt_ipc_open_mem_handle(&p, *h, 0) != XRT_SUCCESS ||
            xrt_memcpy(&b, (char *)p + 4095, 1, XRT_MEMCPY_DEVICE_TO_HOST) != XRT_SUCCESS || b != 0x3c ||
            xrt_ipc_close_mem_handle(p) != XRT_SUCCESS)
            return (void *)xrt_get_last_error_string();
    }
    return NULL;
}

static void test_ipc_opens_and_closes_race(void **state)
{
    xrt_ipc_mem_handle h[2];
    pthread_t t[3];
    void *why[3];
    peer exporter;
    int i;
    (void)state;
    SKIP_IF_CHILD_STREAMS_UNDER_TSAN();
    peer_start(&exporter, export_child, NULL);
    peer_get(&exporter, h, sizeof h);
    for (i = 0; i < 3; i++) assert_int_equal(pthread_create(&t[i], NULL, open_close_loop, &h[i % 2 ? 1 : 0]), 0);
    for (i = 0; i < 3; i++) assert_int_equal(pthread_join(t[i], &why[i]), 0);
    for (i = 0; i < 3; i++)
        if (why[i]) fail_msg("thread %d: %s", i, (const char *)why[i]);
    put_byte(exporter.wr, 'x');
    peer_end(&exporter);
}

/* >> an event shared between processes (CPU): each process's records are
   seen by the other's query, synchronize and stream waits */
static int ipc_gate_fd; /* a host function blocks on it until the other process writes a byte */
static void ipc_gate(void *user)
{
    char c;
    (void)user;
    if (read(ipc_gate_fd, &c, 1) != 1) {}
}

static void event_child(int rd, int wr, void *arg)
{
    xrt_ipc_event_handle h;
    xrt_ipc_mem_handle mh;
    xrt_event e;
    xrt_stream c;
    void *d = NULL;
    (void)arg;
    if (!get(rd, &h, sizeof h) || !get(rd, &mh, sizeof mh)) CHILD_FAIL("no handles from the parent");
    CHILD_OK(xrt_ipc_open_event_handle(&e, h));
    CHILD_OK(xrt_ipc_open_mem_handle(&d, mh, 0));
    /* the parent's record waits behind its gate */
    CHILD_EXPECT(xrt_event_query(e), XRT_ERROR_NOT_READY);
    put_byte(wr, 'g'); /* opens the parent's gate */
    CHILD_OK(xrt_event_synchronize(e));
    CHILD_OK(xrt_event_query(e));
    child_bytes(d, 4096, 0x61); /* written before the parent's record */
    /* the child's record, behind its own gate, holds the parent's stream */
    ipc_gate_fd = rd;
    CHILD_OK(xrt_stream_create(&c));
    CHILD_OK(xrt_launch_host_func(c, ipc_gate, NULL));
    CHILD_OK(xrt_memset_async(d, 0x62, 4096, c));
    CHILD_OK(xrt_event_record(e, c));
    put_byte(wr, 'r');
    CHILD_OK(xrt_stream_synchronize(c));
    CHILD_OK(xrt_stream_destroy(c));
    CHILD_OK(xrt_ipc_close_mem_handle(d));
    CHILD_OK(xrt_event_destroy(e));
    if (get_byte(rd) != 'e') CHILD_FAIL("the parent did not finish");
}

static void test_ipc_event_shared_between_processes(void **state)
{
    xrt_ipc_event_handle h;
    xrt_ipc_mem_handle mh;
    xrt_event e;
    xrt_stream s;
    unsigned char *b;
    void *d;
    peer p;
    (void)state;
    SKIP_IF_CHILD_STREAMS_UNDER_TSAN();
    OK(xrt_malloc_host((void **)&b, 4096)); /* pinned: the copy below stays queued behind the wait */
    OK(xrt_event_create(&e, XRT_EVENT_INTERPROCESS | XRT_EVENT_DISABLE_TIMING));
    OK(xrt_ipc_get_event_handle(&h, e));
    OK(xrt_malloc(&d, 4096));
    OK(xrt_ipc_get_mem_handle(&mh, d));
    OK(xrt_stream_create(&s));
    peer_start(&p, event_child, NULL);
    ipc_gate_fd = p.rd;
    OK(xrt_launch_host_func(s, ipc_gate, NULL));
    OK(xrt_memset_async(d, 0x61, 4096, s));
    OK(xrt_event_record(e, s));
    put(p.wr, &h, sizeof h);
    put(p.wr, &mh, sizeof mh);
    OK(xrt_stream_synchronize(s)); /* the child opened the gate */
    assert_int_equal(peer_byte(&p), 'r'); /* the child recorded behind its gate */
    XRT_ASSERT_FAILS(xrt_event_query(e), XRT_ERROR_NOT_READY, "");
    OK(xrt_stream_wait_event(s, e));
    OK(xrt_memcpy_async(b, d, 4096, XRT_MEMCPY_DEVICE_TO_HOST, s));
    XRT_ASSERT_FAILS(xrt_stream_query(s), XRT_ERROR_NOT_READY, ""); /* held by the child's record */
    put_byte(p.wr, 'g');
    OK(xrt_stream_synchronize(s));
    assert_bytes(b, 4096, 0x62); /* the child's write, before its record */
    OK(xrt_event_synchronize(e));
    OK(xrt_event_query(e));
    put_byte(p.wr, 'e');
    peer_end(&p);
    OK(xrt_stream_destroy(s));
    OK(xrt_event_destroy(e));
    OK(xrt_free(d));
    OK(xrt_free_host(b));
}

/* >> an opened event belongs to the opener's current device, as in CUDA
   (CPU): the child, with two devices, opens it on device 1; its streams
   there record it, device 0's are refused as for any event of device 1. */
static void event_device_child(int rd, int wr, void *arg)
{
    xrt_ipc_event_handle h;
    xrt_event e;
    xrt_stream s0, s1;
    (void)wr, (void)arg;
    if (!get(rd, &h, sizeof h)) CHILD_FAIL("no handle from the parent");
    xrt_shutdown(); /* a fresh start with two devices */
    setenv("XRT_CPU_DEVICES", "2", 1);
    CHILD_OK(xrt_set_backend("cpu"));
    CHILD_OK(xrt_stream_create(&s0));
    CHILD_OK(xrt_set_device(1));
    CHILD_OK(xrt_stream_create(&s1));
    CHILD_OK(xrt_ipc_open_event_handle(&e, h));
    CHILD_OK(xrt_event_record(e, s1));
    CHILD_OK(xrt_event_record(e, NULL)); /* device 1's NULL stream */
    CHILD_EXPECT(xrt_event_record(e, s0), XRT_ERROR_INVALID_HANDLE);
    if (!strstr(xrt_get_last_error_string(), "the event belongs to device 1, the stream to device 0"))
        CHILD_FAIL("%s", xrt_get_last_error_string());
    CHILD_OK(xrt_event_synchronize(e));
    CHILD_OK(xrt_stream_wait_event(s0, e)); /* any device's stream may wait for it */
    CHILD_OK(xrt_stream_synchronize(s0));
    CHILD_OK(xrt_event_destroy(e));
    CHILD_OK(xrt_stream_destroy(s1));
    CHILD_OK(xrt_stream_destroy(s0));
    unsetenv("XRT_CPU_DEVICES");
}

static void test_ipc_event_opened_on_current_device(void **state)
{
    xrt_ipc_event_handle h;
    xrt_event e;
    peer p;
    (void)state;
    SKIP_IF_CHILD_STREAMS_UNDER_TSAN();
    OK(xrt_event_create(&e, XRT_EVENT_INTERPROCESS | XRT_EVENT_DISABLE_TIMING));
    OK(xrt_ipc_get_event_handle(&h, e));
    peer_start(&p, event_device_child, NULL);
    put(p.wr, &h, sizeof h);
    peer_end(&p);
    OK(xrt_event_synchronize(e)); /* the child's records, on its device 1 */
    OK(xrt_event_destroy(e));
}

/* >> a forked child's inherited device memory is its own copy (CPU), also
   memory its parent shared (exported): a private allocation of the child's,
   which it may export in turn, into a file of its own (the parent opens
   that export). The child holds none of its parent's files: one inherited
   would keep the parent's memory alive after the parent's free. */
typedef struct inherited { void *d, *e; unsigned long ino; } inherited;
static void own_copy_child(int rd, int wr, void *arg)
{
    const inherited *in = (const inherited *)arg;
    xrt_ipc_mem_handle mine;
    long long fd_bytes, mapped;
    int holds;
    held_files(in->ino, &fd_bytes, &mapped, &holds); /* held, it would keep the parent's memory after its free */
    if (holds) CHILD_FAIL("the child holds its parent's memory file: %lld bytes by descriptor, %lld mapped", fd_bytes, mapped);
    child_bytes(in->d, 8192, 0x10);
    CHILD_OK(xrt_memset(in->d, 0x20, 8192));
    child_bytes(in->d, 8192, 0x20);
    CHILD_OK(xrt_free(in->d));
    child_bytes(in->e, 8192, 0x30);
    CHILD_OK(xrt_memset(in->e, 0x40, 8192));
    CHILD_OK(xrt_ipc_get_mem_handle(&mine, in->e));
    child_bytes(in->e, 8192, 0x40);
    put(wr, &mine, sizeof mine);
    if (get_byte(rd) != 'w') CHILD_FAIL("the parent did not open the child's export");
    child_bytes(in->e, 8192, 0x50); /* the parent's write, through the child's handle */
    CHILD_OK(xrt_free(in->e));
}

static void test_ipc_forked_child_writes_its_own_copy(void **state)
{
    xrt_ipc_mem_handle h, theirs;
    uint64_t off;
    size_t len;
    inherited in = {NULL, NULL, 0};
    void *q = NULL;
    peer p;
    (void)state;
    SKIP_IF_CHILD_STREAMS_UNDER_TSAN();
    OK(xrt_malloc(&in.d, 8192));
    OK(xrt_memset(in.d, 0x10, 8192));
    OK(xrt_malloc(&in.e, 8192));
    OK(xrt_memset(in.e, 0x30, 8192));
    OK(xrt_stream_synchronize(NULL)); /* the sets return before they are done; queued work is not the child's */
    OK(xrt_ipc_get_mem_handle(&h, in.e));
    assert_true(file_mapping_of(in.e, &off, &len, &in.ino));
    peer_fork(&p, own_copy_child, &in, 0);
    peer_get(&p, &theirs, sizeof theirs);
    OK(xrt_ipc_open_mem_handle(&q, theirs, 0));
    parent_bytes(q, 8192, 0x40);
    OK(xrt_memset(q, 0x50, 8192));
    OK(xrt_ipc_close_mem_handle(q));
    put_byte(p.wr, 'w');
    peer_end(&p);
    parent_bytes(in.d, 8192, 0x10); /* neither the child's writes nor its free reached the parent */
    parent_bytes(in.e, 8192, 0x30);
    OK(xrt_free(in.d));
    OK(xrt_free(in.e));
}

/* >> fork is as cheap with device memory as with malloc memory (CPU, issue
   46 item 7): the child's view of memory never exported is the kernel's
   copy-on-write, not a copy made inside fork() (which took 3 s for 512 MiB).
   Structural, not timed (bench/fork.c times it): in the child the range is a
   private anonymous mapping, and each of its pages is still shared with the
   parent (smaps: Shared_Clean/Shared_Dirty, no Private_Dirty) until
   written; the parent's write after the fork is not seen. */
#define COW_BYTES ((size_t)8 << 20)

/* smaps' field `key` (kB) of the mapping holding p, -1 if none; *anon: the
   mapping has no file. */
static long smaps_kb(const void *p, const char *key, int *anon)
{
    char line[512];
    uintptr_t at = (uintptr_t)p, lo = 0, hi = 0;
    long v = -1;
    int in = 0;
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long a, b;
        char perms[8] = "";
        unsigned long long off;
        char dev[16];
        unsigned long ino = 0;
        if (sscanf(line, "%lx-%lx %7s %llx %15s %lu", &a, &b, perms, &off, dev, &ino) == 6) {
            lo = a, hi = b;
            in = at >= lo && at < hi;
            if (in && anon) *anon = ino == 0 && perms[3] == 'p';
            continue;
        }
        if (in && strncmp(line, key, strlen(key)) == 0 && line[strlen(key)] == ':') {
            v = strtol(line + strlen(key) + 1, NULL, 10);
            break;
        }
    }
    fclose(f);
    return v;
}

static void cow_child(int rd, int wr, void *arg)
{
    unsigned char *d = (unsigned char *)arg;
    int anon = 0;
    long priv = smaps_kb(d, "Private_Dirty", &anon), shared = smaps_kb(d, "Shared_Dirty", NULL);
    if (!anon) CHILD_FAIL("the child's device memory is not a private anonymous mapping");
    if (priv != 0 || shared < (long)(COW_BYTES >> 10))
        CHILD_FAIL("fork copied device memory: Private_Dirty %ld kB, Shared_Dirty %ld kB of %zu kB", priv, shared,
                   COW_BYTES >> 10);
    put_byte(wr, 'f'); /* the parent writes now */
    if (get_byte(rd) != 'w') CHILD_FAIL("no word from the parent");
    if (d[0] != 0x11 || d[COW_BYTES - 1] != 0x11) CHILD_FAIL("the parent's write after fork reached the child");
    child_bytes(d, COW_BYTES, 0x11);
    CHILD_OK(xrt_memset(d, 0x22, COW_BYTES));
    child_bytes(d, COW_BYTES, 0x22);
    CHILD_OK(xrt_free(d));
}

static void test_ipc_fork_shares_device_memory_copy_on_write(void **state)
{
    unsigned char *d;
    peer p;
    (void)state;
    SKIP_IF_CHILD_STREAMS_UNDER_TSAN();
    OK(xrt_malloc((void **)&d, COW_BYTES));
    memset(d, 0x11, COW_BYTES); /* every page dirty, in this process */
    peer_fork(&p, cow_child, d, 0);
    assert_int_equal(peer_byte(&p), 'f');
    d[0] = 0x33, d[COW_BYTES - 1] = 0x33;
    put_byte(p.wr, 'w');
    peer_end(&p);
    assert_int_equal(d[0], 0x33);
    d[0] = 0x11, d[COW_BYTES - 1] = 0x11;
    parent_bytes(d, COW_BYTES, 0x11); /* the child's writes and free did not reach the parent */
    OK(xrt_free(d));
}

/* >> the first export of a range keeps its bytes, also those of work queued
   before it (CPU, issue 46 item 7): the range's bytes move into the device
   file at its first export, after that work (a set of fresh pages, which
   an export that did not wait would run beside and lose in part). From a
   host function, which the wait would wait for, the first export is
   refused; a range already shared is exported there as anywhere. */
#define QUEUED_BYTES ((size_t)64 << 20)
typedef struct exports { void *d[2]; xrt_status st[2]; char why[512]; } exports;
static void export_in_host_fn(void *arg)
{
    exports *x = (exports *)arg;
    xrt_ipc_mem_handle h;
    x->st[0] = xrt_ipc_get_mem_handle(&h, x->d[0]);
    snprintf(x->why, sizeof x->why, "%s", xrt_get_last_error_string());
    x->st[1] = xrt_ipc_get_mem_handle(&h, x->d[1]);
}

static void test_ipc_first_export_keeps_queued_writes(void **state)
{
    xrt_ipc_mem_handle h;
    xrt_stream s;
    exports x;
    void *d;
    (void)state;
    OK(xrt_stream_create(&s));
    OK(xrt_malloc(&d, QUEUED_BYTES));
    OK(xrt_memset_async(d, 0x44, QUEUED_BYTES, s));
    OK(xrt_ipc_get_mem_handle(&h, d));
    OK(xrt_stream_synchronize(s));
    parent_bytes(d, QUEUED_BYTES, 0x44);
    OK(xrt_free(d));
    OK(xrt_malloc(&x.d[0], 4096));
    OK(xrt_malloc(&x.d[1], 4096));
    OK(xrt_ipc_get_mem_handle(&h, x.d[1]));
    OK(xrt_launch_host_func(s, export_in_host_fn, &x));
    OK(xrt_stream_synchronize(s));
    assert_int_equal(x.st[0], XRT_ERROR_NOT_PERMITTED);
    assert_non_null(strstr(x.why, "the first export of a range waits for queued work"));
    assert_int_equal(x.st[1], XRT_SUCCESS);
    OK(xrt_free(x.d[0]));
    OK(xrt_free(x.d[1]));
    OK(xrt_stream_destroy(s));
}

/* >> a peer's writes outside the bytes it was given (CPU, issue 46 item 3).
   The allocator's record of a range (offset, size, device) is private to
   each process: a peer's write to the page before its bytes, or to the
   exporter's file there, changes nothing the exporter's free trusts, and
   the exporter's write there changes nothing the peer's close trusts. The
   junk is what UBSan once saw: device 1 << 30, size 64 MiB. */
static void scribble_file(int fd, uint64_t offset)
{
    unsigned char page[4096];
    xrt__cpu_head junk;
    memset(page, 0x40, sizeof page);
    memset(&junk, 0, sizeof junk);
    junk.magic = XRT__CPU_HEAD_MAGIC;
    junk.size = (uint64_t)64 << 20;
    junk.device = 1u << 30;
    memcpy(page, &junk, sizeof junk);
    if (pwrite(fd, page, sizeof page, (off_t)offset) != (ssize_t)sizeof page) {}
}

/* The page before an opened range, if this process maps it shared and writable. */
static int shared_before(const void *p)
{
    uintptr_t at = (uintptr_t)p - 4096, lo, hi;
    char line[512], perms[8];
    int shared = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%lx-%lx %7s", (unsigned long *)&lo, (unsigned long *)&hi, perms) == 3 && at >= lo && at < hi)
            shared = perms[1] == 'w' && perms[3] == 's';
    fclose(f);
    return shared;
}

static void scribble_child(int rd, int wr, void *arg)
{
    xrt_ipc_mem_handle h;
    xrt__cpu_ipc k;
    char path[64];
    void *p = NULL, *mine = NULL;
    int fd;
    (void)arg;
    if (!get(rd, &h, sizeof h)) CHILD_FAIL("no handle from the parent");
    CHILD_OK(xrt_malloc(&mine, 4096));
    CHILD_OK(xrt_memset(mine, 0x22, 4096));
    CHILD_OK(xrt_ipc_open_mem_handle(&p, h, 0));
    memcpy(&k, h.reserved, sizeof k);
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)k.pid, (int)k.fd);
    if ((fd = open(path, O_RDWR | O_CLOEXEC)) < 0) CHILD_FAIL("%s: %s", path, strerror(errno));
    if (shared_before(p)) memset((char *)p - 4096, 0x40, 4096); /* a write just before the bytes */
    scribble_file(fd, 0); /* the range's head page in its file */
    close(fd);
    put_byte(wr, 's');
    if (get_byte(rd) != 'S') CHILD_FAIL("the parent did not scribble");
    child_bytes(p, 4096, 0x31);
    CHILD_OK(xrt_ipc_close_mem_handle(p)); /* trusts nothing the parent wrote */
    child_bytes(mine, 4096, 0x22);
    CHILD_OK(xrt_free(mine));
    put_byte(wr, 'c');
}

static void test_ipc_peer_cannot_corrupt_the_allocator(void **state)
{
    xrt_ipc_mem_handle h;
    void *d, *other, *v;
    peer p;
    (void)state;
    SKIP_IF_CHILD_STREAMS_UNDER_TSAN();
    OK(xrt_malloc(&d, 4096));
    OK(xrt_malloc(&other, 4096)); /* never shared */
    OK(xrt_memset(d, 0x31, 4096));
    OK(xrt_memset(other, 0x11, 4096));
    OK(xrt_ipc_get_mem_handle(&h, d));
    peer_start(&p, scribble_child, NULL);
    put(p.wr, &h, sizeof h);
    assert_int_equal(peer_byte(&p), 's');
    scribble_file(xrt__cpu_head_of(d)->fd, 0); /* the reverse: the exporter's write */
    put_byte(p.wr, 'S');
    assert_int_equal(peer_byte(&p), 'c');
    peer_end(&p);
    OK(xrt_free(d)); /* trusts nothing the peer wrote */
    parent_bytes(other, 4096, 0x11);
    OK(xrt_malloc(&v, 4096));
    assert_true(v != other);
    OK(xrt_free(v));
    parent_bytes(other, 4096, 0x11);
    OK(xrt_free(other));
}

/* >> a peer that dies holding an open handle pins nothing (CPU, issue 46
   item 4): the exporter's memory comes back when the last process using it
   is gone, however it ended. Three processes: one peer is killed (SIGKILL)
   before the exporter's free, the other exits without closing after it.
   The kernel returns a memory file when no process maps or holds it any
   more: the peers are gone, and after its free the exporter holds the
   range's file neither. */
#define PIN_BYTES ((size_t)8 << 20) /* above what a free keeps for reuse */

static void pin_child(int rd, int wr, void *arg)
{
    xrt_ipc_mem_handle h;
    void *p = NULL;
    (void)arg;
    if (!get(rd, &h, sizeof h)) CHILD_FAIL("no handle from the parent");
    CHILD_OK(xrt_ipc_open_mem_handle(&p, h, 0));
    child_bytes(p, 4096, 0x44);
    put_byte(wr, 'o');
    if (get_byte(rd) != 'x') CHILD_FAIL("the parent did not finish");
    child_exit(0); /* without closing, without xrt_shutdown */
}

static void peer_kill(peer *p)
{
    int status;
    kill(p->pid, SIGKILL);
    assert_int_equal(waitpid(p->pid, &status, 0), p->pid);
    close(p->wr);
    close(p->rd);
}

static void test_ipc_dead_peers_pin_nothing(void **state)
{
    xrt_ipc_mem_handle h;
    long long fd_bytes, mapped;
    uint64_t off;
    size_t len;
    unsigned long ino = 0;
    int holds;
    void *d;
    peer killed, quits;
    (void)state;
    OK(xrt_malloc(&d, PIN_BYTES));
    OK(xrt_memset(d, 0x44, PIN_BYTES));
    OK(xrt_ipc_get_mem_handle(&h, d)); /* its bytes move into a file */
    assert_true(file_mapping_of(d, &off, &len, &ino));
    held_files(ino, &fd_bytes, &mapped, &holds);
    assert_true(holds && fd_bytes >= (long long)PIN_BYTES);
    peer_start(&killed, pin_child, NULL);
    put(killed.wr, &h, sizeof h);
    assert_int_equal(peer_byte(&killed), 'o');
    peer_start(&quits, pin_child, NULL);
    put(quits.wr, &h, sizeof h);
    assert_int_equal(peer_byte(&quits), 'o');
    peer_kill(&killed);
    OK(xrt_free(d));
    put_byte(quits.wr, 'x');
    peer_end(&quits);
    held_files(ino, &fd_bytes, &mapped, &holds);
    if (holds) fail_msg("the exporter holds the file of memory it freed: %lld bytes by descriptor", fd_bytes);
}

/* >> a peer reaches only the bytes it was given (CPU). What a handle opens
   is a file; a peer may do to that file whatever the kernel lets it:
   write past the bytes it was given, punch holes there, truncate it. None
   of that may reach the exporter's other exported allocations, nor take
   the bytes it was given from under the exporter (a truncated file's pages
   raise SIGBUS in every process that maps them). Three processes: an
   exporter of B, A and C (exported in that order: B before A, C after it,
   wherever an exporter puts its exports), a peer given A only, and this
   one between them. The peer finds A's place in the file from its own
   mapping (/proc/self/maps), not from xrt's layout. */
#define REACH_BYTES ((size_t)64 << 10)
#ifndef FALLOC_FL_KEEP_SIZE
#define FALLOC_FL_KEEP_SIZE 0x01
#endif
#ifndef FALLOC_FL_PUNCH_HOLE
#define FALLOC_FL_PUNCH_HOLE 0x02
#endif

static void reach_exporter(int rd, int wr, void *arg)
{
    static const unsigned char fill[3] = {0x52, 0x31, 0x53}; /* B, A, C */
    xrt_ipc_mem_handle h[3];
    void *d[3];
    int i;
    (void)arg;
    for (i = 0; i < 3; i++) {
        CHILD_OK(xrt_malloc(&d[i], REACH_BYTES));
        CHILD_OK(xrt_memset(d[i], fill[i], REACH_BYTES));
        CHILD_OK(xrt_ipc_get_mem_handle(&h[i], d[i]));
    }
    put(wr, &h[1], sizeof h[1]); /* A's handle only */
    if (get_byte(rd) != 'a') CHILD_FAIL("the peer did not finish");
    child_step("the exporter reads B, C, then A");
    child_bytes(d[0], REACH_BYTES, fill[0]);
    child_bytes(d[2], REACH_BYTES, fill[2]);
    child_bytes(d[1], REACH_BYTES, fill[1]);
    for (i = 0; i < 3; i++) CHILD_OK(xrt_free(d[i]));
    put_byte(wr, 'k');
}

/* pwrite of `len` junk bytes at `at`, in pieces of at most `junk_len`. */
static void write_junk(int fd, const unsigned char *junk, size_t junk_len, uint64_t at, uint64_t len)
{
    while (len) {
        size_t n = len < junk_len ? (size_t)len : junk_len;
        if (pwrite(fd, junk, n, (off_t)at) != (ssize_t)n) return;
        at += n, len -= n;
    }
}

static void reach_peer(int rd, int wr, void *arg)
{
    static unsigned char junk[(size_t)1 << 20];
    xrt_ipc_mem_handle h;
    xrt__cpu_ipc k;
    uint64_t off = 0, page = (uint64_t)sysconf(_SC_PAGESIZE);
    size_t len = 0;
    unsigned long ino = 0;
    char path[64];
    void *p = NULL;
    int fd;
    (void)arg;
    if (!get(rd, &h, sizeof h)) CHILD_FAIL("no handle from the parent");
    CHILD_OK(xrt_ipc_open_mem_handle(&p, h, 0));
    if (!file_mapping_of(p, &off, &len, &ino)) CHILD_FAIL("the opened memory is no shared file mapping");
    memcpy(&k, h.reserved, sizeof k);
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)k.pid, (int)k.fd); /* the file the handle names */
    if ((fd = open(path, O_RDWR | O_CLOEXEC)) < 0) CHILD_FAIL("%s: %s", path, strerror(errno));
    memset(junk, 0xee, sizeof junk);
    child_step("writes past A's bytes, and before its head page");
    write_junk(fd, junk, sizeof junk, off + len, sizeof junk);
    if (off > page) write_junk(fd, junk, sizeof junk, 0, off - page);
    child_step("punches holes past A's bytes, and before its head page");
    if (syscall(SYS_fallocate, fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)(off + len), (off_t)1 << 40)) {}
    if (off > page && syscall(SYS_fallocate, fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)0, (off_t)(off - page))) {}
    child_step("truncates the file after A's bytes, then to nothing");
    if (ftruncate(fd, (off_t)(off + len)) != 0 || ftruncate(fd, 0) != 0) {}
    close(fd);
    put_byte(wr, 'a');
    if (get_byte(rd) != 'k') CHILD_FAIL("the exporter did not finish");
    child_step("the peer reads A");
    child_bytes(p, REACH_BYTES, 0x31);
    CHILD_OK(xrt_ipc_close_mem_handle(p));
}

static void test_ipc_peer_reaches_only_its_bytes(void **state)
{
    xrt_ipc_mem_handle h;
    peer exporter, pr;
    (void)state;
    SKIP_IF_CHILD_STREAMS_UNDER_TSAN();
    peer_start(&exporter, reach_exporter, NULL);
    peer_get(&exporter, &h, sizeof h);
    peer_start(&pr, reach_peer, NULL);
    put(pr.wr, &h, sizeof h);
    (void)peer_byte(&pr); /* 'a': done */
    put_byte(exporter.wr, 'a');
    (void)peer_byte(&exporter); /* 'k': B, C and A read back whole */
    put_byte(pr.wr, 'k');
    peers_end(&exporter, &pr); /* both say what became of them: a SIGBUS, junk read back */
}

/* >> a peer holding A after its exporter died pins A's bytes only (CPU).
   The exporter exports A (1 MiB) and B (16 MiB) and gives the peer A
   only, then dies holding both, killed (SIGKILL) or by exit without a
   free. What the peer keeps alive is every file it holds, through a
   descriptor or a mapping: B's file must not be among them, and what it
   holds must be no larger than A. */
#define HELD_BYTES ((size_t)1 << 20)
#define UNHELD_BYTES ((size_t)16 << 20)

static void held_exporter(int rd, int wr, void *arg)
{
    xrt_ipc_mem_handle ha, hb;
    uint64_t off;
    size_t len;
    unsigned long ino = 0;
    void *a, *b;
    (void)arg;
    CHILD_OK(xrt_malloc(&a, HELD_BYTES));
    CHILD_OK(xrt_malloc(&b, UNHELD_BYTES));
    CHILD_OK(xrt_memset(a, 0x61, HELD_BYTES));
    memset(b, 0x62, UNHELD_BYTES); /* the host's own stores: xrt_memset's helper threads would not start under TSan */
    CHILD_OK(xrt_ipc_get_mem_handle(&ha, a));
    CHILD_OK(xrt_ipc_get_mem_handle(&hb, b)); /* exported, its handle given to nobody here */
    if (!file_mapping_of(b, &off, &len, &ino)) CHILD_FAIL("B is no shared file mapping after its export");
    put(wr, &ha, sizeof ha);
    put(wr, &ino, sizeof ino);
    if (get_byte(rd) != 'x') CHILD_FAIL("no word from the parent");
    child_exit(0); /* holding both: no free, no xrt_shutdown */
}

static void held_peer(int rd, int wr, void *arg)
{
    xrt_ipc_mem_handle h;
    unsigned long unheld = 0;
    long long fd_bytes, mapped, page = (long long)sysconf(_SC_PAGESIZE);
    int holds;
    void *p = NULL;
    (void)arg;
    if (!get(rd, &h, sizeof h) || !get(rd, &unheld, sizeof unheld)) CHILD_FAIL("no handle from the parent");
    CHILD_OK(xrt_ipc_open_mem_handle(&p, h, 0));
    child_bytes(p, HELD_BYTES, 0x61);
    put_byte(wr, 'o');
    if (get_byte(rd) != 'd') CHILD_FAIL("the exporter did not die");
    child_bytes(p, HELD_BYTES, 0x61); /* A stays while the peer holds it */
    held_files(unheld, &fd_bytes, &mapped, &holds);
    if (holds)
        CHILD_FAIL("the peer holds the file of B, which it was never given: %lld bytes by descriptor, %lld mapped",
                   fd_bytes, mapped);
    if (fd_bytes > (long long)HELD_BYTES + page || mapped > (long long)HELD_BYTES + page)
        CHILD_FAIL("the peer holds %lld bytes by descriptor and maps %lld, for the %zu bytes of A", fd_bytes, mapped,
                   HELD_BYTES);
    CHILD_OK(xrt_ipc_close_mem_handle(p));
}

/* Waits for a peer that is not the last one started (child_status reads
   the last one's report), killing it first if asked. */
static void peer_reap(peer *p, int kill_it)
{
    int status = 0;
    if (kill_it) kill(p->pid, SIGKILL);
    assert_int_equal(waitpid(p->pid, &status, 0), p->pid);
    close(p->wr);
    close(p->rd);
    if (!kill_it && (!WIFEXITED(status) || WEXITSTATUS(status) != 0))
        fail_msg("peer process: wait status 0x%x (its message is above)", (unsigned)status);
}

static void test_ipc_dead_exporter_leaves_a_peer_only_its_bytes(void **state)
{
    xrt_ipc_mem_handle h;
    unsigned long unheld;
    peer exporter, pr;
    int killed;
    (void)state;
    SKIP_IF_CHILD_STREAMS_UNDER_TSAN();
    for (killed = 1; killed >= 0; killed--) {
        peer_start(&exporter, held_exporter, NULL);
        peer_get(&exporter, &h, sizeof h);
        peer_get(&exporter, &unheld, sizeof unheld);
        peer_start(&pr, held_peer, NULL);
        put(pr.wr, &h, sizeof h);
        put(pr.wr, &unheld, sizeof unheld);
        assert_int_equal(peer_byte(&pr), 'o');
        if (!killed) put_byte(exporter.wr, 'x'); /* it exits */
        peer_reap(&exporter, killed);
        put_byte(pr.wr, 'd');
        peer_end(&pr);
    }
}

/* >> out of file descriptors (CPU): each exported allocation holds one in
   its exporter (its memory file), and an open needs one while it maps the
   bytes. Under a low RLIMIT_NOFILE an export or an open is refused with
   XRT_ERROR_OUT_OF_MEMORY, saying so, and works again once there is room. */
static int lowest_free_fd(void)
{
    int fd = dup(0);
    if (fd >= 0) close(fd);
    return fd;
}

static void nofile_peer(int rd, int wr, void *arg)
{
    xrt_ipc_mem_handle h;
    struct rlimit old, low;
    void *p = NULL;
    (void)wr, (void)arg;
    if (!get(rd, &h, sizeof h)) CHILD_FAIL("no handle from the parent");
    CHILD_TRUE(getrlimit(RLIMIT_NOFILE, &old) == 0);
    low = old;
    low.rlim_cur = (rlim_t)lowest_free_fd(); /* no descriptor left */
    CHILD_TRUE(setrlimit(RLIMIT_NOFILE, &low) == 0);
    CHILD_EXPECT(xrt_ipc_open_mem_handle(&p, h, 0), XRT_ERROR_OUT_OF_MEMORY);
    if (!strstr(xrt_get_last_error_string(), strerror(EMFILE))) CHILD_FAIL("%s", xrt_get_last_error_string());
    CHILD_TRUE(p == NULL);
    CHILD_TRUE(setrlimit(RLIMIT_NOFILE, &old) == 0);
    CHILD_OK(xrt_ipc_open_mem_handle(&p, h, 0));
    child_bytes(p, 4096, 0x4e);
    CHILD_OK(xrt_ipc_close_mem_handle(p));
}

static void test_ipc_out_of_file_descriptors(void **state)
{
    xrt_ipc_mem_handle h;
    struct rlimit old, low;
    void *d[8];
    xrt_status st = XRT_SUCCESS;
    char why[512] = "";
    int i, n;
    peer pr;
    (void)state;
    for (i = 0; i < 8; i++) {
        OK(xrt_malloc(&d[i], 4096));
        OK(xrt_memset(d[i], 0x4e, 4096));
    }
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
    low = old;
    low.rlim_cur = (rlim_t)lowest_free_fd() + 1; /* room for one more */
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
    for (n = 0; n < 8 && (st = xrt_ipc_get_mem_handle(&h, d[n])) == XRT_SUCCESS; n++) {}
    if (st != XRT_SUCCESS) snprintf(why, sizeof why, "%s", xrt_get_last_error_string());
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
    if (n != 1) fail_msg("%d of 8 exports under a limit with room for one descriptor (%s)", n, why);
    assert_int_equal(st, XRT_ERROR_OUT_OF_MEMORY);
    if (!strstr(why, "cpu: xrt_ipc_get_mem_handle") || !strstr(why, strerror(EMFILE)) ||
        !strstr(why, "each exported allocation holds a file descriptor"))
        fail_msg("the refusal does not say why: %s", why);
    OK(xrt_ipc_get_mem_handle(&h, d[1])); /* room again */
    peer_start(&pr, nofile_peer, NULL);
    put(pr.wr, &h, sizeof h);
    peer_end(&pr);
    for (i = 0; i < 8; i++) OK(xrt_free(d[i]));
}

/* >> a forked child opens what its parent had open (CPU, issue 46 item 8):
   it gets the exporter's memory, not the private copy it inherited. Three
   processes: an exporter, this one, and this one's forked child. */
static void test_ipc_forked_child_opens_the_exporters_memory(void **state)
{
    xrt_ipc_mem_handle h[2];
    void *p = NULL;
    pid_t pid;
    peer exporter;
    (void)state;
    SKIP_IF_CHILD_STREAMS_UNDER_TSAN();
    peer_start(&exporter, export_child, NULL);
    peer_get(&exporter, h, sizeof h);
    OK(xrt_ipc_open_mem_handle(&p, h[0], 0));
    pid = child_fork(20);
    if (pid == 0) {
        void *q = NULL;
        CHILD_OK(xrt_ipc_open_mem_handle(&q, h[0], 0));
        CHILD_OK(xrt_memset(q, 0x5c, 4096));
        CHILD_OK(xrt_ipc_close_mem_handle(q));
        child_bytes(p, 4096, 0x3c); /* the inherited copy is its own */
        CHILD_OK(xrt_ipc_close_mem_handle(p));
        xrt_shutdown();
        child_exit(0);
    }
    child_wait(pid, 20, "forked child");
    parent_bytes(p, 4096, 0x5c); /* the child's write reached the exporter's memory */
    OK(xrt_ipc_close_mem_handle(p));
    put_byte(exporter.wr, 'x');
    peer_end(&exporter);
}

/* >> a forked child of an opener writes its own copy whatever the
   exporter named its memory file (CPU): an exporter is any process that
   gives a handle naming a sealed memory file with the record and key the
   handle says, and it names its file as it likes. The foreign exporter
   here makes one by hand, named as xrt never names one; the opener's
   forked child's write must reach neither the exporter nor the opener. */
static void foreign_exporter(int rd, int wr, void *arg)
{
    int extra_seals = arg ? *(const int *)arg : 0;
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    xrt__cpu_export rec;
    xrt__cpu_ipc k;
    xrt_ipc_mem_handle h;
    struct stat st;
    unsigned char b = 0xee;
    int fd = (int)syscall(SYS_memfd_create, "peer-memory", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) CHILD_FAIL("memfd_create: %s", strerror(errno));
    memset(&rec, 0, sizeof rec);
    rec.magic = XRT__CPU_EXPORT_MAGIC;
    rec.size = pg;
    rec.key[0] = 0x1234, rec.key[1] = 0x5678;
    if (ftruncate(fd, (off_t)(2 * pg)) != 0 || pwrite(fd, &rec, sizeof rec, 0) != (ssize_t)sizeof rec ||
        fcntl(fd, F_ADD_SEALS, XRT__CPU_SEALS | extra_seals) != 0 || fstat(fd, &st) != 0)
        CHILD_FAIL("making the memory file: %s", strerror(errno));
    memset(&k, 0, sizeof k);
    k.magic = XRT__CPU_IPC_MAGIC;
    k.pid = (int32_t)getpid();
    k.fd = fd;
    k.ino = (uint64_t)st.st_ino, k.dev = (uint64_t)st.st_dev;
    k.key[0] = rec.key[0], k.key[1] = rec.key[1];
    k.check = xrt__cpu_ipc_check(&k);
    memset(&h, 0, sizeof h);
    memcpy(h.reserved, &k, sizeof k);
    put(wr, &h, sizeof h);
    if (get_byte(rd) != 'x') CHILD_FAIL("the opener did not finish");
    if (pread(fd, &b, 1, (off_t)pg) != 1 || b != 0) CHILD_FAIL("the exporter's first byte is 0x%02x, expected 0", b);
    close(fd);
}

static void test_ipc_forked_child_of_an_opener_writes_its_own_copy(void **state)
{
    xrt_ipc_mem_handle h;
    void *p = NULL;
    pid_t pid;
    peer exporter;
    (void)state;
    SKIP_IF_CHILD_STREAMS_UNDER_TSAN();
    peer_start(&exporter, foreign_exporter, NULL);
    peer_get(&exporter, &h, sizeof h);
    OK(xrt_ipc_open_mem_handle(&p, h, 0));
    parent_bytes(p, 4096, 0);
    pid = child_fork(20);
    if (pid == 0) {
        CHILD_OK(xrt_memset(p, 0x6d, 4096));
        child_bytes(p, 4096, 0x6d);
        CHILD_OK(xrt_ipc_close_mem_handle(p));
        xrt_shutdown();
        child_exit(0);
    }
    child_wait(pid, 20, "forked child");
    parent_bytes(p, 4096, 0); /* the child's write stayed in its copy */
    OK(xrt_ipc_close_mem_handle(p));
    put_byte(exporter.wr, 'x');
    peer_end(&exporter);
}

/* >> a handle naming a file sealed against writes (CPU): a foreign
   exporter's file that no process may map for writing is a bad handle
   (no xrt file can be sealed so: xrt seals its own against more seals). */
#ifndef F_SEAL_FUTURE_WRITE
#define F_SEAL_FUTURE_WRITE 0x0010
#endif
static void test_ipc_file_sealed_against_writes_is_refused(void **state)
{
    static const int seals[] = {F_SEAL_WRITE, F_SEAL_FUTURE_WRITE};
    xrt_ipc_mem_handle h;
    void *p = NULL;
    size_t i;
    peer exporter;
    (void)state;
    for (i = 0; i < sizeof seals / sizeof seals[0]; i++) {
        peer_start(&exporter, foreign_exporter, (void *)&seals[i]);
        peer_get(&exporter, &h, sizeof h);
        XRT_ASSERT_FAILS(xrt_ipc_open_mem_handle(&p, h, 0), XRT_ERROR_INVALID_HANDLE, "sealed against writes");
        assert_null(p);
        put_byte(exporter.wr, 'x');
        peer_end(&exporter);
    }
}

/* >> a handle naming a file that is no memory file is refused without
   touching the file (CPU): a peer may point a handle at any file it holds,
   one on a filesystem whose server never answers (FUSE, NFS) too, where an
   open or a stat would hang the opener. The opener reads the descriptor's
   link, which names a memory file "/memfd:...", and goes no further;
   inotify sees no open of the peer's regular file. */
static void regular_file_exporter(int rd, int wr, void *arg)
{
    char path[256];
    const char *tmp = getenv("TMPDIR");
    xrt__cpu_export rec;
    xrt__cpu_ipc k;
    xrt_ipc_mem_handle h;
    struct stat st;
    int fd;
    (void)arg;
    memset(path, 0, sizeof path); /* all of it goes down the pipe */
    snprintf(path, sizeof path, "%s/xrt-ipc-file-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if ((fd = mkstemp(path)) < 0) CHILD_FAIL("mkstemp: %s", strerror(errno));
    memset(&rec, 0, sizeof rec);
    rec.magic = XRT__CPU_EXPORT_MAGIC;
    rec.size = 4096;
    rec.key[0] = 7;
    if (ftruncate(fd, 8192) != 0 || pwrite(fd, &rec, sizeof rec, 0) != (ssize_t)sizeof rec || fstat(fd, &st) != 0)
        CHILD_FAIL("making the file: %s", strerror(errno));
    memset(&k, 0, sizeof k);
    k.magic = XRT__CPU_IPC_MAGIC;
    k.pid = (int32_t)getpid();
    k.fd = fd;
    k.ino = (uint64_t)st.st_ino, k.dev = (uint64_t)st.st_dev;
    k.key[0] = 7;
    k.check = xrt__cpu_ipc_check(&k);
    memset(&h, 0, sizeof h);
    memcpy(h.reserved, &k, sizeof k);
    put(wr, &h, sizeof h);
    put(wr, path, sizeof path);
    (void)get_byte(rd);
    unlink(path);
    close(fd);
}

/* The handle and the file's path an exporter of a file sends, and an
   inotify descriptor that sees any open or read of that file. */
static int watch_peers_file(peer *exporter, xrt_ipc_mem_handle *h, char *path, size_t n)
{
    int in;
    peer_get(exporter, h, sizeof *h);
    peer_get(exporter, path, n);
    assert_true((in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) >= 0);
    assert_true(inotify_add_watch(in, path, IN_OPEN | IN_ACCESS) >= 0);
    return in;
}

static void test_ipc_handle_of_a_regular_file_touches_nothing(void **state)
{
    char path[256], ev[4096];
    xrt_ipc_mem_handle h;
    void *p = NULL;
    peer exporter;
    int in;
    (void)state;
    peer_start(&exporter, regular_file_exporter, NULL);
    in = watch_peers_file(&exporter, &h, path, sizeof path);
    assert_int_equal(xrt_ipc_open_mem_handle(&p, h, 0), XRT_ERROR_INVALID_HANDLE);
    assert_null(p);
    if (read(in, ev, sizeof ev) > 0) fail_msg("the opener opened or read the peer's regular file %s", path);
    assert_non_null(strstr(xrt_get_last_error_string(), "not a memory file"));
    close(in);
    put_byte(exporter.wr, 'x');
    peer_end(&exporter);
}

static int ipc_fork_wr = -1, ipc_fork_rd = -1; /* armed: a fork during an open (test_ipc_fork_during_an_open) */
static void ipc_before_open(void)
{
    char c = 's';
    if (ipc_fork_wr >= 0) { /* waits for the fork, or for a while: a fork may wait for the open */
        struct pollfd pf;
        int wr = ipc_fork_wr;
        ipc_fork_wr = -1; /* once */
        put_byte(wr, 's');
        pf.fd = ipc_fork_rd, pf.events = POLLIN, pf.revents = 0;
        (void)poll(&pf, 1, 500 * xrt_test_slowdown());
        return;
    }
    if (ipc_swap_wr < 0) return;
    if (write(ipc_swap_wr, &c, 1) != 1 || read(ipc_swap_rd, &c, 1) != 1) {}
}

/* >> a descriptor the exporter changes after the opener's check (CPU): a
   hostile exporter passes the check with a memory file, then puts a file
   of another filesystem (FUSE, NFS: an open may hang) at the descriptor
   before the open. The opener takes the file without opening it, sees it
   is no longer the one checked, and refuses it untouched. */
static void swapping_exporter(int rd, int wr, void *arg)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    char path[256];
    const char *tmp = getenv("TMPDIR");
    xrt__cpu_export rec;
    xrt__cpu_ipc k;
    xrt_ipc_mem_handle h;
    struct stat st;
    int fd = (int)syscall(SYS_memfd_create, "peer-memory", MFD_CLOEXEC | MFD_ALLOW_SEALING), other;
    (void)arg;
    memset(path, 0, sizeof path);
    snprintf(path, sizeof path, "%s/xrt-ipc-swap-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (fd < 0 || (other = mkstemp(path)) < 0) CHILD_FAIL("memfd_create, mkstemp: %s", strerror(errno));
    memset(&rec, 0, sizeof rec);
    rec.magic = XRT__CPU_EXPORT_MAGIC;
    rec.size = pg;
    rec.key[0] = 9;
    if (ftruncate(fd, (off_t)(2 * pg)) != 0 || pwrite(fd, &rec, sizeof rec, 0) != (ssize_t)sizeof rec ||
        fcntl(fd, F_ADD_SEALS, XRT__CPU_SEALS) != 0 || fstat(fd, &st) != 0)
        CHILD_FAIL("making the memory file: %s", strerror(errno));
    memset(&k, 0, sizeof k);
    k.magic = XRT__CPU_IPC_MAGIC;
    k.pid = (int32_t)getpid();
    k.fd = fd;
    k.ino = (uint64_t)st.st_ino, k.dev = (uint64_t)st.st_dev;
    k.key[0] = 9;
    k.check = xrt__cpu_ipc_check(&k);
    memset(&h, 0, sizeof h);
    memcpy(h.reserved, &k, sizeof k);
    put(wr, &h, sizeof h);
    put(wr, path, sizeof path);
    if (get_byte(rd) != 's') CHILD_FAIL("the opener did not check the descriptor");
    if (dup2(other, fd) != fd) CHILD_FAIL("dup2: %s", strerror(errno));
    put_byte(wr, 'k');
    (void)get_byte(rd);
    unlink(path);
    close(other);
    close(fd);
}

static void test_ipc_file_swapped_after_its_check(void **state)
{
    char path[256], ev[4096];
    xrt_ipc_mem_handle h;
    void *p = NULL;
    peer exporter;
    int in;
    (void)state;
    peer_start(&exporter, swapping_exporter, NULL);
    in = watch_peers_file(&exporter, &h, path, sizeof path);
    ipc_swap_wr = exporter.wr, ipc_swap_rd = exporter.rd;
    assert_int_equal(xrt_ipc_open_mem_handle(&p, h, 0), XRT_ERROR_INVALID_HANDLE);
    ipc_swap_wr = ipc_swap_rd = -1;
    assert_null(p);
    if (read(in, ev, sizeof ev) > 0) fail_msg("the opener opened the file the exporter put at its descriptor");
    assert_non_null(strstr(xrt_get_last_error_string(), "changed while it was opened"));
    close(in);
    put_byte(exporter.wr, 'x');
    peer_end(&exporter);
}

/* >> a memory file changed before its seals (CPU): another process of the
   user may open it through /proc from its creation on, and shrink it
   before the exporter seals it; mapped so, the exporter would take SIGBUS
   at its own bytes. The export is refused instead, the range untouched. */
static void test_ipc_file_shrunk_before_its_seals(void **state)
{
    pid_t pid;
    (void)state;
    SKIP_IF_CHILD_STREAMS_UNDER_TSAN();
    pid = child_fork(20);
    if (pid == 0) {
        xrt_ipc_mem_handle h;
        void *d;
        CHILD_OK(xrt_malloc(&d, 8192));
        CHILD_OK(xrt_memset(d, 0x42, 8192));
        ipc_shrink_before_seals = 1;
        CHILD_EXPECT(xrt_ipc_get_mem_handle(&h, d), XRT_ERROR_SYSTEM);
        ipc_shrink_before_seals = 0;
        if (!strstr(xrt_get_last_error_string(), "another process changed the memory file before its seals"))
            CHILD_FAIL("%s", xrt_get_last_error_string());
        child_bytes(d, 8192, 0x42);
        CHILD_OK(xrt_ipc_get_mem_handle(&h, d)); /* a file of its own, this time */
        CHILD_OK(xrt_memset(d, 0x43, 8192));
        child_bytes(d, 8192, 0x43);
        CHILD_OK(xrt_free(d));
        xrt_shutdown();
        child_exit(0);
    }
    child_wait(pid, 20, "exporter");
}

/* >> a fork in another thread during a first export (CPU): the export
   moves the range into a new memory file (xrt__cpu_share); a child forked
   midway would hold that file, by descriptor and by mapping, where nothing
   of its own knows it, keeping the parent's memory after the parent's free
   for as long as it lives. The fork waits for the export instead, and the
   child holds no file of its parent's and exports its copy anew. The hook
   asks this thread for the fork just before the move, then waits a while
   for it: a fork that waits for the export comes after that. Both first
   exports: a range's and an interprocess event's creation. */
static int share_fork_wr = -1, share_fork_rd = -1; /* armed: the hook asks on wr, waits for the fork on rd */
static void ipc_share_before_move(void)
{
    struct pollfd pf;
    int wr = share_fork_wr;
    if (wr < 0) return;
    share_fork_wr = -1; /* once */
    put_byte(wr, 's');
    pf.fd = share_fork_rd, pf.events = POLLIN, pf.revents = 0;
    (void)poll(&pf, 1, 500 * xrt_test_slowdown());
}

typedef struct midway { void *d; xrt_event e; int event, done; xrt_status st; char why[256]; } midway;
static void *export_midway(void *arg)
{
    midway *m = (midway *)arg;
    xrt_ipc_mem_handle h;
    int done = m->done; /* the write end of the main thread's pipe */
    m->st = xrt_set_backend("cpu"); /* a thread starts on the default */
    if (m->st == XRT_SUCCESS)
        m->st = m->event ? xrt_event_create(&m->e, XRT_EVENT_INTERPROCESS | XRT_EVENT_DISABLE_TIMING)
                         : xrt_ipc_get_mem_handle(&h, m->d);
    snprintf(m->why, sizeof m->why, "%.255s", m->st == XRT_SUCCESS ? "" : xrt_get_last_error_string());
    put_byte(done, 'e'); /* after the hook's 's', unless the move never came */
    return NULL;
}

/* The xrt memory files this process holds by descriptor. */
static int memfds_held(void)
{
    char path[64], link[256];
    int i, n = 0;
    for (i = 0; i < 1024; i++) {
        ssize_t k;
        snprintf(path, sizeof path, "/proc/self/fd/%d", i);
        if ((k = readlink(path, link, sizeof link - 1)) <= 0) continue;
        link[k] = 0;
        n += strstr(link, "memfd:xrt-cpu-device-") != NULL;
    }
    return n;
}

/* No stream work here (TSan): a CPU device's bytes are read and written as host memory. */
static void midway_child(int rd, int wr, void *arg)
{
    unsigned char *d = (unsigned char *)((const midway *)arg)->d;
    xrt_ipc_mem_handle mine;
    long long fd_bytes, mapped;
    int holds, fds = memfds_held(), i;
    held_files(0, &fd_bytes, &mapped, &holds);
    if (fds || mapped)
        CHILD_FAIL("the child holds its parent's half-made memory file: %d descriptors, %lld bytes mapped", fds, mapped);
    for (i = 0; i < 4096; i++)
        if (d[i] != 0x5b) CHILD_FAIL("byte %d of the child's copy is 0x%02x, expected 0x5b", i, d[i]);
    CHILD_OK(xrt_ipc_get_mem_handle(&mine, d)); /* its own copy, into a file of its own */
    put(wr, &mine, sizeof mine);
    if (get_byte(rd) != 'x') CHILD_FAIL("the parent did not write through the child's handle");
    if (d[0] != 0x6c || d[4095] != 0x6c) CHILD_FAIL("the parent's write did not reach the child's export");
    CHILD_OK(xrt_free(d));
    xrt_shutdown();
    child_end_quietly(); /* the event the parent's thread was making is lost to the child */
}

static void test_ipc_fork_during_a_first_export(void **state)
{
    int c;
    (void)state;
    for (c = 0; c < 2; c++) {
        xrt_ipc_mem_handle theirs;
        midway m;
        pthread_t t;
        peer p;
        int ask[2], forked[2];
        void *q = NULL;
        memset(&m, 0, sizeof m);
        m.event = c;
        OK(xrt_malloc(&m.d, 4096));
        memset(m.d, 0x5b, 4096);
        assert_int_equal(pipe(ask), 0);
        assert_int_equal(pipe(forked), 0);
        share_fork_wr = ask[1], share_fork_rd = forked[0];
        m.done = ask[1];
        assert_int_equal(pthread_create(&t, NULL, export_midway, &m), 0);
        if (get_byte(ask[0]) != 's') { /* the exporting thread is midway, else it ended without the move */
            assert_int_equal(pthread_join(t, NULL), 0);
            fail_msg("the %s ended without moving the range into its file: %s (%s)", c ? "event's creation" : "export",
                     xrt_status_string(m.st), m.why);
        }
        peer_fork(&p, midway_child, &m, 0);
        put_byte(forked[1], 'f');
        assert_int_equal(pthread_join(t, NULL), 0);
        share_fork_wr = share_fork_rd = -1;
        close(ask[0]), close(ask[1]), close(forked[0]), close(forked[1]);
        if (m.st != XRT_SUCCESS) fail_msg("%s: %s", xrt_status_string(m.st), m.why);
        peer_get(&p, &theirs, sizeof theirs);
        OK(xrt_ipc_open_mem_handle(&q, theirs, 0));
        parent_bytes(q, 4096, 0x5b);
        OK(xrt_memset(q, 0x6c, 4096));
        OK(xrt_ipc_close_mem_handle(q));
        put_byte(p.wr, 'x');
        peer_end(&p);
        parent_bytes(m.d, 4096, 0x5b); /* the child's copy is its own */
        if (m.event) OK(xrt_event_destroy(m.e));
        OK(xrt_free(m.d));
    }
}

/* >> a fork while another thread opens a handle (CPU): the open holds the
   ipc lock across the backend's open, which stops here until the fork (or a
   while). A child must not inherit that lock held: it opens and closes the
   handle itself, then shuts down, each of which takes the lock. */
static void plain_exporter(int rd, int wr, void *arg)
{
    xrt_ipc_mem_handle h;
    void *d = NULL;
    (void)arg;
    CHILD_OK(xrt_malloc(&d, 4096));
    memset(d, 0x3c, 4096); /* a CPU device's bytes, as host memory: no stream work (TSan) */
    CHILD_OK(xrt_ipc_get_mem_handle(&h, d));
    put(wr, &h, sizeof h);
    if (get_byte(rd) != 'x') CHILD_FAIL("the parent did not finish with the exporter's buffer");
    CHILD_OK(xrt_free(d));
}

typedef struct opening { xrt_ipc_mem_handle h; void *p; int done; xrt_status st; char why[256]; } opening;
static void *open_midway(void *arg)
{
    opening *o = (opening *)arg;
    o->st = xrt_set_backend("cpu"); /* a thread starts on the default */
    if (o->st == XRT_SUCCESS) o->st = xrt_ipc_open_mem_handle(&o->p, o->h, 0);
    snprintf(o->why, sizeof o->why, "%.255s", o->st == XRT_SUCCESS ? "" : xrt_get_last_error_string());
    put_byte(o->done, 'e'); /* after the hook's 's', unless the open never reached the backend's */
    return NULL;
}

static void opens_after_fork_child(int rd, int wr, void *arg)
{
    const unsigned char *b;
    void *p = NULL;
    int i;
    (void)rd;
    alarm((unsigned)(5 * xrt_test_slowdown())); /* a lock inherited held: a hang, failed soon */
    CHILD_OK(xrt_ipc_open_mem_handle(&p, ((const opening *)arg)->h, 0));
    for (b = (const unsigned char *)p, i = 0; i < 4096; i++)
        if (b[i] != 0x3c) CHILD_FAIL("byte %d of the exporter's memory is 0x%02x, expected 0x3c", i, b[i]);
    CHILD_OK(xrt_ipc_close_mem_handle(p));
    child_step("xrt_shutdown");
    xrt_shutdown();
    put_byte(wr, 'o');
    child_end_quietly(); /* the open the parent's thread made may be lost to the child */
}

static void test_ipc_fork_during_an_open(void **state)
{
    peer exporter, p;
    opening o;
    pthread_t t;
    int ask[2], forked[2];
    (void)state;
    memset(&o, 0, sizeof o);
    peer_start(&exporter, plain_exporter, NULL);
    peer_get(&exporter, &o.h, sizeof o.h);
    assert_int_equal(pipe(ask), 0);
    assert_int_equal(pipe(forked), 0);
    ipc_fork_wr = ask[1], ipc_fork_rd = forked[0];
    o.done = ask[1];
    assert_int_equal(pthread_create(&t, NULL, open_midway, &o), 0);
    if (get_byte(ask[0]) != 's') { /* the opening thread is inside the backend's open, else it ended before */
        assert_int_equal(pthread_join(t, NULL), 0);
        fail_msg("the open ended before the backend's open of the file: %s (%s)", xrt_status_string(o.st), o.why);
    }
    peer_fork(&p, opens_after_fork_child, &o, 0);
    put_byte(forked[1], 'f');
    assert_int_equal(pthread_join(t, NULL), 0);
    ipc_fork_wr = ipc_fork_rd = -1;
    close(ask[0]), close(ask[1]), close(forked[0]), close(forked[1]);
    if (o.st != XRT_SUCCESS) fail_msg("%s: %s", xrt_status_string(o.st), o.why);
    if (peer_byte(&p) != 'o') fail_msg("the child did not open, close and shut down");
    peer_end(&p);
    parent_bytes(o.p, 4096, 0x3c);
    OK(xrt_ipc_close_mem_handle(o.p));
    put_byte(exporter.wr, 'x');
    peer_end(&exporter);
}

/* >> an export beyond RLIMIT_FSIZE (CPU): shared memory lives in a memory
   file, which the kernel refuses to size past the limit with SIGXFSZ,
   whose default action ends the process. The export says so instead: out
   of memory, naming the limit; smaller ranges and an interprocess event
   still fit. In a child, which the limit stays with. */
static void test_ipc_export_beyond_the_file_size_limit(void **state)
{
    pid_t pid;
    (void)state;
    pid = child_fork(20);
    if (pid == 0) {
        struct rlimit r, was;
        xrt_ipc_mem_handle h;
        xrt_event e;
        void *big, *small;
        CHILD_OK(xrt_malloc(&big, 64 << 10));
        CHILD_OK(xrt_malloc(&small, 4096));
        memset(big, 0x21, 64 << 10);
        CHILD_TRUE(getrlimit(RLIMIT_FSIZE, &was) == 0);
        r = was, r.rlim_cur = 32 << 10; /* the soft limit only, so that it goes back before anything writes a log */
        CHILD_TRUE(setrlimit(RLIMIT_FSIZE, &r) == 0);
        CHILD_EXPECT(xrt_ipc_get_mem_handle(&h, big), XRT_ERROR_OUT_OF_MEMORY);
        if (!strstr(xrt_get_last_error_string(), "exceeds RLIMIT_FSIZE (32768 bytes)"))
            CHILD_FAIL("%s", xrt_get_last_error_string());
        if (((unsigned char *)big)[0] != 0x21 || ((unsigned char *)big)[(64 << 10) - 1] != 0x21)
            CHILD_FAIL("the refused export changed the range's bytes");
        CHILD_OK(xrt_ipc_get_mem_handle(&h, small));
        CHILD_OK(xrt_event_create(&e, XRT_EVENT_INTERPROCESS | XRT_EVENT_DISABLE_TIMING));
        CHILD_OK(xrt_event_destroy(e));
        r.rlim_cur = 4096;
        CHILD_TRUE(setrlimit(RLIMIT_FSIZE, &r) == 0);
        CHILD_EXPECT(xrt_event_create(&e, XRT_EVENT_INTERPROCESS | XRT_EVENT_DISABLE_TIMING), XRT_ERROR_OUT_OF_MEMORY);
        CHILD_TRUE(setrlimit(RLIMIT_FSIZE, &was) == 0); /* a sanitizer's report at exit goes to a file the limit would refuse */
        if (!strstr(xrt_get_last_error_string(), "RLIMIT_FSIZE")) CHILD_FAIL("%s", xrt_get_last_error_string());
        CHILD_OK(xrt_free(big));
        CHILD_OK(xrt_free(small));
        xrt_shutdown();
        child_exit(0);
    }
    child_wait(pid, 20, "exporter under RLIMIT_FSIZE");
}

/* >> graph memory exported after a launch opens no more after the free
   (CPU, issue 46 item 13): the graph keeps the memory for its next launch,
   but no new open succeeds after the free, as for any other memory. */
static void test_ipc_graph_memory_after_its_free(void **state)
{
    xrt_ipc_mem_handle h;
    xrt_stream s;
    xrt_graph g = NULL;
    xrt_graph_exec x = NULL;
    void *d = NULL;
    peer p;
    (void)state;
    OK(xrt_stream_create(&s));
    OK(xrt_stream_begin_capture(s, XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_malloc_async(&d, 4096, s));
    OK(xrt_memset_async(d, 0x31, 4096, s));
    OK(xrt_stream_end_capture(s, &g));
    OK(xrt_graph_instantiate(&x, g));
    OK(xrt_graph_launch(x, s));
    OK(xrt_stream_synchronize(s));
    OK(xrt_ipc_get_mem_handle(&h, d));
    OK(xrt_free(d));
    peer_start(&p, stale_child, NULL);
    put(p.wr, &h, sizeof h);
    peer_end(&p);
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    OK(xrt_stream_destroy(s));
}

/* >> a stream's wait is for the record current at the call (CPU, issue 46
   item 2): a later record of the event, on an idle stream, does not release
   it, as cudaStreamWaitEvent. In one process, then across two. */
static int gate_pipe[2]; /* a host function blocks on gate_pipe[0] until a byte is written */
static void pipe_gate(void *user)
{
    char c;
    (void)user;
    if (read(gate_pipe[0], &c, 1) != 1) {}
}

static void test_ipc_event_later_record_does_not_release_a_wait(void **state)
{
    xrt_event e;
    xrt_stream a, b, w;
    unsigned char *h;
    void *d;
    (void)state;
    assert_int_equal(pipe(gate_pipe), 0);
    OK(xrt_malloc_host((void **)&h, 4096));
    OK(xrt_malloc(&d, 4096));
    OK(xrt_memset(d, 0, 4096));
    OK(xrt_event_create(&e, XRT_EVENT_INTERPROCESS | XRT_EVENT_DISABLE_TIMING));
    OK(xrt_stream_create(&a));
    OK(xrt_stream_create(&b));
    OK(xrt_stream_create(&w));
    OK(xrt_launch_host_func(a, pipe_gate, NULL));
    OK(xrt_memset_async(d, 0x71, 4096, a));
    OK(xrt_event_record(e, a));
    OK(xrt_stream_wait_event(w, e));
    OK(xrt_memcpy_async(h, d, 4096, XRT_MEMCPY_DEVICE_TO_HOST, w));
    OK(xrt_event_record(e, b)); /* idle: complete at once */
    OK(xrt_event_query(e));
    sleep_ms(20);
    XRT_ASSERT_FAILS(xrt_stream_query(w), XRT_ERROR_NOT_READY, ""); /* still waits for the first record */
    put_byte(gate_pipe[1], 'g');
    OK(xrt_stream_synchronize(w));
    assert_bytes(h, 4096, 0x71);
    OK(xrt_stream_destroy(w));
    OK(xrt_stream_destroy(b));
    OK(xrt_stream_destroy(a));
    OK(xrt_event_destroy(e));
    OK(xrt_free(d));
    OK(xrt_free_host(h));
    close(gate_pipe[0]);
    close(gate_pipe[1]);
}

static void later_record_child(int rd, int wr, void *arg)
{
    xrt_ipc_event_handle h;
    xrt_ipc_mem_handle mh;
    xrt_event e;
    xrt_stream c;
    unsigned char *b = NULL;
    void *d = NULL;
    (void)arg;
    if (!get(rd, &h, sizeof h) || !get(rd, &mh, sizeof mh)) CHILD_FAIL("no handles from the parent");
    CHILD_OK(xrt_ipc_open_event_handle(&e, h));
    CHILD_OK(xrt_ipc_open_mem_handle(&d, mh, 0));
    CHILD_OK(xrt_malloc_host((void **)&b, 4096));
    CHILD_OK(xrt_stream_create(&c));
    CHILD_OK(xrt_stream_wait_event(c, e));
    CHILD_OK(xrt_memcpy_async(b, d, 4096, XRT_MEMCPY_DEVICE_TO_HOST, c));
    put_byte(wr, 'w');
    if (get_byte(rd) != 'r') CHILD_FAIL("the parent did not record again");
    sleep_ms(20);
    CHILD_EXPECT(xrt_stream_query(c), XRT_ERROR_NOT_READY); /* the parent's first record holds it still */
    put_byte(wr, 'q');
    CHILD_OK(xrt_stream_synchronize(c));
    for (size_t i = 0; i < 4096; i++)
        if (b[i] != 0x71) CHILD_FAIL("byte %zu is 0x%02x: the wait ended before the parent's first record", i, b[i]);
    CHILD_OK(xrt_stream_destroy(c));
    CHILD_OK(xrt_free_host(b));
    CHILD_OK(xrt_ipc_close_mem_handle(d));
    CHILD_OK(xrt_event_destroy(e));
}

static void test_ipc_event_later_record_across_processes(void **state)
{
    xrt_ipc_event_handle h;
    xrt_ipc_mem_handle mh;
    xrt_event e;
    xrt_stream a, b;
    void *d;
    peer p;
    (void)state;
    SKIP_IF_CHILD_STREAMS_UNDER_TSAN();
    assert_int_equal(pipe(gate_pipe), 0);
    OK(xrt_malloc(&d, 4096));
    OK(xrt_memset(d, 0, 4096));
    OK(xrt_ipc_get_mem_handle(&mh, d));
    OK(xrt_event_create(&e, XRT_EVENT_INTERPROCESS | XRT_EVENT_DISABLE_TIMING));
    OK(xrt_ipc_get_event_handle(&h, e));
    OK(xrt_stream_create(&a));
    OK(xrt_stream_create(&b));
    OK(xrt_launch_host_func(a, pipe_gate, NULL));
    OK(xrt_memset_async(d, 0x71, 4096, a));
    OK(xrt_event_record(e, a));
    peer_start(&p, later_record_child, NULL);
    put(p.wr, &h, sizeof h);
    put(p.wr, &mh, sizeof mh);
    assert_int_equal(peer_byte(&p), 'w');
    OK(xrt_event_record(e, b)); /* idle: complete at once */
    put_byte(p.wr, 'r');
    assert_int_equal(peer_byte(&p), 'q');
    put_byte(gate_pipe[1], 'g');
    OK(xrt_stream_synchronize(a));
    peer_end(&p);
    OK(xrt_stream_destroy(b));
    OK(xrt_stream_destroy(a));
    OK(xrt_event_destroy(e));
    OK(xrt_free(d));
    close(gate_pipe[0]);
    close(gate_pipe[1]);
}

/* >> a record of a process killed before its stream reached it (CPU)
   holds no slot of the event for good: the event's other processes go on
   recording it (CUDA's later records do not wait for a dead process's),
   while no more than XRT__CPU_IPC_SLOTS of the living are pending. */
static void dead_recorder(int rd, int wr, void *arg)
{
    xrt_ipc_event_handle h;
    xrt_event e;
    xrt_stream c;
    (void)arg;
    if (!get(rd, &h, sizeof h)) CHILD_FAIL("no handle from the parent");
    CHILD_OK(xrt_ipc_open_event_handle(&e, h));
    CHILD_OK(xrt_stream_create(&c));
    ipc_gate_fd = rd; /* never opened: killed first */
    CHILD_OK(xrt_launch_host_func(c, ipc_gate, NULL));
    CHILD_OK(xrt_event_record(e, c));
    put_byte(wr, 'r');
    (void)get_byte(rd);
}

static void test_ipc_event_record_of_a_dead_process_holds_no_slot(void **state)
{
    xrt_ipc_event_handle h;
    xrt_event e;
    xrt_stream s;
    peer p;
    int i;
    (void)state;
    SKIP_IF_CHILD_STREAMS_UNDER_TSAN();
    OK(xrt_event_create(&e, XRT_EVENT_INTERPROCESS | XRT_EVENT_DISABLE_TIMING));
    OK(xrt_ipc_get_event_handle(&h, e));
    OK(xrt_stream_create(&s));
    peer_start(&p, dead_recorder, NULL);
    put(p.wr, &h, sizeof h);
    assert_int_equal(peer_byte(&p), 'r');
    XRT_ASSERT_FAILS(xrt_event_query(e), XRT_ERROR_NOT_READY, "");
    peer_kill(&p);
    for (i = 0; i < 2 * XRT__CPU_IPC_SLOTS; i++) {
        OK(xrt_event_record(e, s)); /* an idle stream: complete at once */
        OK(xrt_event_synchronize(e));
    }
    OK(xrt_stream_destroy(s));
    OK(xrt_event_destroy(e));
}

/* >> a refused interprocess record or wait in a capture (CPU, issue 46 item
   6): refused as every call the CPU backend cannot capture, the capture
   invalidated, and the event left as it was (its earlier record pending). */
static void test_ipc_event_refused_in_a_capture(void **state)
{
    xrt_event e;
    xrt_stream a, s;
    xrt_graph g = NULL;
    int i;
    (void)state;
    assert_int_equal(pipe(gate_pipe), 0);
    OK(xrt_event_create(&e, XRT_EVENT_INTERPROCESS | XRT_EVENT_DISABLE_TIMING));
    OK(xrt_stream_create(&a));
    OK(xrt_stream_create(&s));
    OK(xrt_launch_host_func(a, pipe_gate, NULL));
    OK(xrt_event_record(e, a));
    for (i = 0; i < 2; i++) {
        OK(xrt_stream_begin_capture(s, XRT_CAPTURE_MODE_GLOBAL));
        if (i == 0)
            XRT_ASSERT_FAILS(xrt_event_record(e, s), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                             "an interprocess event cannot be part of a capture");
        else
            XRT_ASSERT_FAILS(xrt_stream_wait_event(s, e), XRT_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                             "an interprocess event cannot be part of a capture");
        XRT_ASSERT_FAILS(xrt_stream_end_capture(s, &g), XRT_ERROR_STREAM_CAPTURE_INVALIDATED, "");
        assert_null(g);
        XRT_ASSERT_FAILS(xrt_event_query(e), XRT_ERROR_NOT_READY, ""); /* the record on a is pending still */
    }
    put_byte(gate_pipe[1], 'g');
    OK(xrt_event_synchronize(e));
    OK(xrt_stream_destroy(s));
    OK(xrt_stream_destroy(a));
    OK(xrt_event_destroy(e));
    close(gate_pipe[0]);
    close(gate_pipe[1]);
}

/* >> fork without room for the child's copy (CPU, issue 46 item 7): memory
   shared with other processes (exported here) is the one kind a forked child
   must copy; where it cannot (RLIMIT_AS here, strict overcommit elsewhere),
   fork() returns all the same (it once spun inside fork() for ever), the
   parent's memory is untouched, and the child's first xrt call says why it
   may not use the backend: which range, and the system's error. Memory never
   shared needs no copy: under the same limit, a child uses it. */
#if defined(__SANITIZE_ADDRESS__) || XRT_TEST_HAS_FEATURE(address_sanitizer)
#define UNDER_ASAN 1
#else
#define UNDER_ASAN 0
#endif
#define NO_ROOM_BYTES ((size_t)64 << 20)

/* Lowers RLIMIT_AS to what the process maps now and half of NO_ROOM_BYTES. */
static void no_room(struct rlimit *old)
{
    struct rlimit low;
    unsigned long pages = 0;
    FILE *f;
    assert_non_null(f = fopen("/proc/self/statm", "r"));
    assert_int_equal(fscanf(f, "%lu", &pages), 1);
    fclose(f);
    assert_int_equal(getrlimit(RLIMIT_AS, old), 0);
    low = *old;
    low.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (NO_ROOM_BYTES >> 1);
    assert_int_equal(setrlimit(RLIMIT_AS, &low), 0);
}

static void test_ipc_fork_without_room_for_the_copy(void **state)
{
    struct rlimit old;
    xrt_ipc_mem_handle h;
    char range[64];
    void *d, *e;
    pid_t pid;
    (void)state;
    SKIP_UNLESS(!UNDER_ASAN && !UNDER_TSAN && xrt_test_slowdown() == 1,
                "a sanitizer's or valgrind's address space does not fit under RLIMIT_AS");
    OK(xrt_malloc(&d, NO_ROOM_BYTES));
    OK(xrt_memset(d, 0x10, NO_ROOM_BYTES));
    OK(xrt_malloc(&e, NO_ROOM_BYTES));
    OK(xrt_memset(e, 0x20, NO_ROOM_BYTES));
    OK(xrt_stream_synchronize(NULL)); /* the sets return before they are done; queued work is not the child's */
    no_room(&old);
    pid = child_fork(20); /* nothing shared yet: the child's memory is the kernel's copy-on-write */
    if (pid == 0) {
        child_bytes(d, 4096, 0x10);
        CHILD_OK(xrt_memset(e, 0x30, NO_ROOM_BYTES));
        child_exit(0);
    }
    child_wait(pid, 20, "forked child of a process without room for a copy");
    assert_int_equal(setrlimit(RLIMIT_AS, &old), 0);
    OK(xrt_ipc_get_mem_handle(&h, d)); /* shared from here on */
    snprintf(range, sizeof range, "%p", d);
    no_room(&old);
    pid = child_fork(20);
    if (pid == 0) {
        void *q = NULL;
        const char *msg;
        CHILD_EXPECT(xrt_malloc(&q, 4096), XRT_ERROR_NOT_PERMITTED);
        msg = xrt_get_last_error_string();
        if (!strstr(msg, "forked child: cpu") || !strstr(msg, range) || !strstr(msg, strerror(ENOMEM)))
            CHILD_FAIL("the refusal does not say why (range %s, %s): %s", range, strerror(ENOMEM), msg);
        child_exit(0);
    }
    assert_int_equal(setrlimit(RLIMIT_AS, &old), 0);
    child_wait(pid, 20, "forked child without room for its copy");
    parent_bytes(d, 4096, 0x10);
    parent_bytes(e, 4096, 0x20);
    OK(xrt_free(d));
    OK(xrt_free(e));
}

/* >> the rules one process checks, on every backend */
static void test_ipc_what_can_be_shared(void **state)
{
    xrt_ipc_mem_handle h;
    void *d, *pinned, *p = &h;
    char local[16];
    (void)state;
    OK(xrt_malloc(&d, 1000));
    OK(xrt_malloc_host(&pinned, 64));
    OK(xrt_ipc_get_mem_handle(&h, d));
    XRT_ASSERT_FAILS(xrt_ipc_get_mem_handle(&h, pinned), XRT_ERROR_INVALID_VALUE,
                     "is pinned host memory: only device memory is shared");
    XRT_ASSERT_FAILS(xrt_ipc_get_mem_handle(&h, local), XRT_ERROR_INVALID_VALUE, "is not memory allocated by xrt");
    XRT_ASSERT_FAILS(xrt_ipc_get_mem_handle(NULL, d), XRT_ERROR_INVALID_VALUE, "handle is NULL");
    XRT_ASSERT_FAILS(xrt_ipc_get_mem_handle(&h, NULL), XRT_ERROR_INVALID_VALUE, "dev_ptr is NULL");
    OK(xrt_ipc_get_mem_handle(&h, d));
    XRT_ASSERT_FAILS(xrt_ipc_open_mem_handle(NULL, h, 0), XRT_ERROR_INVALID_VALUE, "dev_ptr is NULL");
    XRT_ASSERT_FAILS(xrt_ipc_open_mem_handle(&p, h, 2), XRT_ERROR_INVALID_VALUE, "unknown flags 0x2");
    assert_null(p);
    if (on_cpu())
        XRT_ASSERT_FAILS(xrt_ipc_open_mem_handle(&p, h, 0), XRT_ERROR_INVALID_VALUE, "the handle was made by this process");
    else /* the runtime's "invalid device context" */
        XRT_ASSERT_FAILS(xrt_ipc_open_mem_handle(&p, h, 0), XRT_ERROR_BACKEND, "cudaIpcOpenMemHandle");
    assert_null(p);
    XRT_ASSERT_FAILS(xrt_ipc_close_mem_handle(NULL), XRT_ERROR_INVALID_VALUE, "dev_ptr is NULL");
    XRT_ASSERT_FAILS(xrt_ipc_close_mem_handle(d), XRT_ERROR_INVALID_VALUE, "not opened from a handle (use xrt_free)");
    XRT_ASSERT_FAILS(xrt_ipc_close_mem_handle(local), XRT_ERROR_INVALID_VALUE, "was not opened with xrt_ipc_open_mem_handle");
    OK(xrt_free_host(pinned));
    OK(xrt_free(d));
    if (!on_cpu()) /* cpu: the exporting process is refused first; its stale handles: test_ipc_exporter_frees_... */
        XRT_ASSERT_FAILS(xrt_ipc_open_mem_handle(&p, h, 0), XRT_ERROR_INVALID_HANDLE, "cudaIpcOpenMemHandle");
    memset(&h, 0, sizeof h);
    XRT_ASSERT_FAILS(xrt_ipc_open_mem_handle(&p, h, 0), XRT_ERROR_INVALID_HANDLE,
                     on_cpu() ? "not a memory handle of the cpu backend" : "cudaIpcOpenMemHandle");
}

/* An export during a capture: CUDA does not list cudaIpcGetMemHandle among
   the calls a capture refuses (its "potentially unsafe" calls are those that
   may wait for the device or allocate outside the stream, as cudaMalloc), so
   neither does xrt, in any mode. The CPU backend's first export waits for
   the work queued before it, on every stream and device (its bytes move into
   the memory file), which no capture holds up: the capture goes on, captured
   work is not run by it, and the work queued before is kept. */
static void test_ipc_export_during_capture(void **state)
{
    xrt_ipc_mem_handle h;
    xrt_stream s, t;
    xrt_graph g = NULL;
    xrt_graph_exec x = NULL;
    xrt_capture_status status;
    unsigned caps = 0;
    void *d = NULL;
    (void)state;
    OK(xrt_get_capabilities(&caps));
    if (!(caps & XRT_CAP_GRAPHS)) skip();
    OK(xrt_stream_create(&s));
    OK(xrt_stream_create_with_flags(&t, XRT_STREAM_NON_BLOCKING));
    OK(xrt_malloc(&d, 4096));
    OK(xrt_memset_async(d, 0x5a, 4096, t)); /* queued before the export */
    OK(xrt_stream_begin_capture(s, XRT_CAPTURE_MODE_GLOBAL));
    OK(xrt_memset_async(d, 0x33, 4096, s)); /* captured, not run */
    OK(xrt_ipc_get_mem_handle(&h, d)); /* the first export */
    OK(xrt_ipc_get_mem_handle(&h, d));
    OK(xrt_stream_is_capturing(s, &status));
    assert_int_equal(status, XRT_CAPTURE_STATUS_ACTIVE);
    OK(xrt_stream_end_capture(s, &g));
    OK(xrt_stream_synchronize(t));
    parent_bytes(d, 4096, 0x5a);
    OK(xrt_graph_instantiate(&x, g));
    OK(xrt_graph_launch(x, s));
    OK(xrt_stream_synchronize(s));
    parent_bytes(d, 4096, 0x33);
    OK(xrt_graph_exec_destroy(x));
    OK(xrt_graph_destroy(g));
    OK(xrt_free(d));
    OK(xrt_stream_destroy(t));
    OK(xrt_stream_destroy(s));
}

/* As CUDA: only an event made with XRT_EVENT_INTERPROCESS | XRT_EVENT_DISABLE_TIMING
   is shared, and not opened in the process that made it. */
static void test_ipc_event_handles(void **state)
{
    xrt_ipc_event_handle h;
    xrt_event e, timed, opened = (xrt_event)&h;
    (void)state;
    OK(xrt_event_create(&e, XRT_EVENT_INTERPROCESS | XRT_EVENT_DISABLE_TIMING));
    XRT_ASSERT_FAILS(xrt_event_create(&timed, XRT_EVENT_INTERPROCESS), XRT_ERROR_INVALID_VALUE,
                     "XRT_EVENT_INTERPROCESS needs XRT_EVENT_DISABLE_TIMING");
    assert_null(timed);
    OK(xrt_event_create(&timed, XRT_EVENT_DISABLE_TIMING)); /* not interprocess */
    XRT_ASSERT_FAILS(xrt_ipc_get_event_handle(NULL, e), XRT_ERROR_INVALID_VALUE, "handle is NULL");
    XRT_ASSERT_FAILS(xrt_ipc_get_event_handle(&h, NULL), XRT_ERROR_INVALID_HANDLE, "xrt_ipc_get_event_handle");
    XRT_ASSERT_FAILS(xrt_ipc_open_event_handle(NULL, h), XRT_ERROR_INVALID_VALUE, "event is NULL");
    if (on_cpu()) {
        XRT_ASSERT_FAILS(xrt_ipc_get_event_handle(&h, timed), XRT_ERROR_INVALID_HANDLE,
                         "was not created with XRT_EVENT_INTERPROCESS | XRT_EVENT_DISABLE_TIMING");
        OK(xrt_ipc_get_event_handle(&h, e));
        XRT_ASSERT_FAILS(xrt_ipc_open_event_handle(&opened, h), XRT_ERROR_INVALID_VALUE, "made by this process: use the event itself");
        memset(&h, 0, sizeof h);
        XRT_ASSERT_FAILS(xrt_ipc_open_event_handle(&opened, h), XRT_ERROR_INVALID_VALUE,
                         "not an event handle of the cpu backend"); /* CUDA's code for it */
    } else {
        XRT_ASSERT_FAILS(xrt_ipc_get_event_handle(&h, timed), XRT_ERROR_INVALID_HANDLE, "cudaIpcGetEventHandle");
        OK(xrt_ipc_get_event_handle(&h, e));
        XRT_ASSERT_FAILS(xrt_ipc_open_event_handle(&opened, h), XRT_ERROR_BACKEND, "cudaIpcOpenEventHandle");
        memset(&h, 0, sizeof h);
        XRT_ASSERT_FAILS(xrt_ipc_open_event_handle(&opened, h), XRT_ERROR_INVALID_VALUE, "cudaIpcOpenEventHandle");
    }
    assert_null(opened);
    OK(xrt_event_destroy(timed));
    OK(xrt_event_destroy(e));
}

int main(void)
{
    static const char *const cpu[] = {"cpu", NULL};
    static const char *const gpu[] = {"cuda", "hip", NULL};
    const struct CMUnitTest processes[] = {
        cmocka_unit_test(test_ipc_two_processes_check_each_others_writes),
        cmocka_unit_test(test_ipc_exporter_frees_while_another_process_has_it_open),
        cmocka_unit_test(test_ipc_forged_handles_are_refused),
        cmocka_unit_test(test_ipc_handle_naming_a_thread_of_this_process),
        cmocka_unit_test(test_ipc_unexported_memory_is_refused),
        cmocka_unit_test(test_ipc_close_waits_for_host_fn_that_opens),
        cmocka_unit_test(test_ipc_opens_and_closes_race),
        cmocka_unit_test(test_ipc_event_shared_between_processes),
        cmocka_unit_test(test_ipc_event_opened_on_current_device),
        cmocka_unit_test(test_ipc_forked_child_writes_its_own_copy),
        cmocka_unit_test(test_ipc_fork_shares_device_memory_copy_on_write),
        cmocka_unit_test(test_ipc_first_export_keeps_queued_writes),
        cmocka_unit_test(test_ipc_peer_cannot_corrupt_the_allocator),
        cmocka_unit_test(test_ipc_dead_peers_pin_nothing),
        cmocka_unit_test(test_ipc_peer_reaches_only_its_bytes),
        cmocka_unit_test(test_ipc_dead_exporter_leaves_a_peer_only_its_bytes),
        cmocka_unit_test(test_ipc_out_of_file_descriptors),
        cmocka_unit_test(test_ipc_forked_child_opens_the_exporters_memory),
        cmocka_unit_test(test_ipc_forked_child_of_an_opener_writes_its_own_copy),
        cmocka_unit_test(test_ipc_file_sealed_against_writes_is_refused),
        cmocka_unit_test(test_ipc_handle_of_a_regular_file_touches_nothing),
        cmocka_unit_test(test_ipc_file_shrunk_before_its_seals),
        cmocka_unit_test(test_ipc_fork_during_a_first_export),
        cmocka_unit_test(test_ipc_fork_during_an_open),
        cmocka_unit_test(test_ipc_export_beyond_the_file_size_limit),
        cmocka_unit_test(test_ipc_file_swapped_after_its_check),
        cmocka_unit_test(test_ipc_graph_memory_after_its_free),
        cmocka_unit_test(test_ipc_event_later_record_does_not_release_a_wait),
        cmocka_unit_test(test_ipc_event_later_record_across_processes),
        cmocka_unit_test(test_ipc_event_record_of_a_dead_process_holds_no_slot),
        cmocka_unit_test(test_ipc_event_refused_in_a_capture),
        cmocka_unit_test(test_ipc_fork_without_room_for_the_copy),
    };
    const struct CMUnitTest rules[] = {
        cmocka_unit_test(test_ipc_what_can_be_shared),
        cmocka_unit_test(test_ipc_event_handles),
        cmocka_unit_test(test_ipc_export_during_capture),
    };
    int failed = xrt_test_run_on_backends("ipc between processes", processes, sizeof processes / sizeof processes[0], cpu);
    failed += xrt_test_run_on_backends("ipc rules", rules, sizeof rules / sizeof rules[0], cpu);
    return failed + xrt_test_run_on_backends("ipc rules", rules, sizeof rules / sizeof rules[0], gpu);
}
