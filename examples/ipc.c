/* SPDX-License-Identifier: MIT */
/* ipc: two processes share device memory through IPC handles sent over a
   pipe, each checking the other's writes. The program forks before either
   process uses xrt (a GPU runtime does not survive fork), then:
     A allocates a buffer, fills it with 1 and sends its handle;
     B opens it, checks the 1s, writes 2s, closes it and says so;
     A checks the 2s; B allocates a buffer of its own, fills it with 3 and
     sends its handle; A opens it, checks the 3s, writes 4s, closes it;
     B checks the 4s.
   Runs on the thread's default backend (XRT_BACKEND=cpu: two processes on
   one CPU device share the bytes). */
#define XRT_IMPL
#include "xrt.h"
#include "pipes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define N ((size_t)1 << 20)

static const char *who = "A";

static int fail(const char *what)
{
    fprintf(stderr, "ipc: process %s: %s: %s\n", who, what, xrt_get_last_error_string());
    return 1;
}

/* Whether every byte of the device buffer is v. */
static int holds(const void *d, unsigned char v, unsigned char *host)
{
    size_t i;
    if (xrt_memcpy(host, d, N, XRT_MEMCPY_DEVICE_TO_HOST) != XRT_SUCCESS) return 0;
    for (i = 0; i < N; i++)
        if (host[i] != v) return 0;
    return 1;
}

/* Opens a handle, checks that it holds `expect`, writes `write`, closes it. */
static int visit(xrt_ipc_mem_handle h, unsigned char expect, unsigned char write, unsigned char *host)
{
    void *p;
    if (xrt_ipc_open_mem_handle(&p, h, XRT_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) != XRT_SUCCESS) return fail("open");
    if (!holds(p, expect, host)) return fail("the other process's write is not there");
    /* a set of device memory returns before it is done, as cudaMemset: wait before the other process looks */
    if (xrt_memset(p, write, N) != XRT_SUCCESS || xrt_stream_synchronize(NULL) != XRT_SUCCESS) return fail("write");
    if (xrt_ipc_close_mem_handle(p) != XRT_SUCCESS) return fail("close");
    return 0;
}

/* Makes a buffer holding `fill` and sends its handle; returns the buffer. */
static void *export_buffer(int to, unsigned char fill)
{
    xrt_ipc_mem_handle h;
    void *d;
    if (xrt_malloc(&d, N) != XRT_SUCCESS) return NULL;
    if (xrt_memset(d, fill, N) != XRT_SUCCESS || xrt_stream_synchronize(NULL) != XRT_SUCCESS ||
        xrt_ipc_get_mem_handle(&h, d) != XRT_SUCCESS ||
        send_all(to, &h, sizeof h) != 0) {
        xrt_free(d);
        return NULL;
    }
    return d;
}

static int process_a(int to, int from, unsigned char *host)
{
    xrt_ipc_mem_handle theirs;
    char note = 0;
    void *d = export_buffer(to, 1);
    if (!d) return fail("export");
    if (recv_all(from, &note, 1) != 0 || note != 'w') return fail("B did not write");
    if (!holds(d, 2, host)) return fail("B's write is not there");
    if (recv_all(from, &theirs, sizeof theirs) != 0) return fail("no handle from B");
    if (visit(theirs, 3, 4, host) != 0 || send_all(to, "w", 1) != 0) return 1;
    return xrt_free(d) == XRT_SUCCESS ? 0 : fail("free");
}

static int process_b(int to, int from, unsigned char *host)
{
    xrt_ipc_mem_handle theirs;
    char note = 0;
    void *d;
    if (recv_all(from, &theirs, sizeof theirs) != 0) return fail("no handle from A");
    if (visit(theirs, 1, 2, host) != 0 || send_all(to, "w", 1) != 0) return 1;
    if (!(d = export_buffer(to, 3))) return fail("export");
    if (recv_all(from, &note, 1) != 0 || note != 'w') return fail("A did not write");
    if (!holds(d, 4, host)) return fail("A's write is not there");
    return xrt_free(d) == XRT_SUCCESS ? 0 : fail("free");
}

int main(void)
{
    int a_to_b[2], b_to_a[2], st = 0, rc;
    unsigned char *host = (unsigned char *)malloc(N);
    pid_t b;
    if (!host || pipe(a_to_b) != 0 || pipe(b_to_a) != 0) return 1;
    if ((b = fork()) < 0) return 1;
    if (b == 0) { /* each keeps only its ends: a process that fails ends the other's wait */
        who = "B";
        close(a_to_b[1]);
        close(b_to_a[0]);
        rc = process_b(b_to_a[1], a_to_b[0], host);
        xrt_shutdown();
        free(host);
        return rc;
    }
    close(a_to_b[0]);
    close(b_to_a[1]);
    rc = process_a(a_to_b[1], b_to_a[0], host);
    close(a_to_b[1]); /* B, if it waits, sees the end */
    if (waitpid(b, &st, 0) != b || !WIFEXITED(st) || WEXITSTATUS(st) != 0) rc = 1;
    if (rc == 0) {
        const char *name = "?";
        xrt_get_backend(&name);
        printf("ipc: two processes on %s shared %zu bytes each way, each write verified\n", name, N);
    }
    xrt_shutdown();
    free(host);
    return rc;
}
