/* SPDX-License-Identifier: MIT */
/* Whole messages over a pipe, for the examples of two processes (ipc, a2f):
   each returns 0 when all n bytes went or came, -1 otherwise (the other end
   closed, or an error). */
#ifndef XRT_EXAMPLES_PIPES_H
#define XRT_EXAMPLES_PIPES_H

#include <stddef.h>
#include <sys/types.h>
#include <unistd.h>

static int send_all(int fd, const void *p, size_t n) { return write(fd, p, n) == (ssize_t)n ? 0 : -1; }

static int recv_all(int fd, void *p, size_t n)
{
    char *c = (char *)p;
    while (n) {
        ssize_t r = read(fd, c, n);
        if (r <= 0) return -1;
        c += r, n -= (size_t)r;
    }
    return 0;
}

#endif
