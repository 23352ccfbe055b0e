/* SPDX-License-Identifier: MIT */
/* Not a plugin: a second copy of xrt in the process, as a library that
   vendors xrt holds (XRT_IMPL here, hidden by default), with three calls
   for tests/test_plugin.c, which dlopens it beside its own copy. It has no
   xrt_plugin_register: a plugin directory that held it would skip it. */
#define XRT_IMPL
#include "fixture.h"

#include <stdio.h>

__attribute__((visibility("default"))) xrt_status xrtcopy_load(const char *path, char *detail, size_t n);
__attribute__((visibility("default"))) xrt_status xrtcopy_round_trip(const char *backend, unsigned char value);
__attribute__((visibility("default"))) void xrtcopy_shutdown(void);

/* This copy's xrt_load_plugin, with its detail. */
xrt_status xrtcopy_load(const char *path, char *detail, size_t n)
{
    xrt_status st = xrt_load_plugin(path);
    snprintf(detail, n, "%s", st == XRT_SUCCESS ? "" : xrt_get_last_error_string());
    return st;
}

/* A stream's round trip through device memory of this copy's backend. */
xrt_status xrtcopy_round_trip(const char *backend, unsigned char value)
{
    unsigned char h[64];
    void *d = NULL;
    xrt_stream s = NULL;
    size_t i;
    xrt_status st = xrt_set_backend(backend);
    if (st == XRT_SUCCESS) st = xrt_malloc(&d, sizeof h);
    if (st == XRT_SUCCESS) st = xrt_stream_create(&s);
    if (st == XRT_SUCCESS) st = xrt_memset_async(d, value, sizeof h, s);
    if (st == XRT_SUCCESS) st = xrt_memcpy_async(h, d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST, s);
    if (st == XRT_SUCCESS) st = xrt_stream_synchronize(s);
    for (i = 0; st == XRT_SUCCESS && i < sizeof h; i++)
        if (h[i] != value) st = XRT_ERROR_BACKEND;
    if (s) xrt_stream_destroy(s);
    if (d) xrt_free(d);
    return st;
}

void xrtcopy_shutdown(void) { xrt_shutdown(); }
