/* SPDX-License-Identifier: MIT */
/* A plugin built against another backend ABI: xrt skips it (ABI mismatch). */
#include "xrt.h"

static xrt_status badabi_init(const xrt_backend *self, char *reason, size_t n)
{
    (void)self;
    (void)reason;
    (void)n;
    return XRT_SUCCESS;
}

xrt_status xrt_plugin_register(const xrt_plugin_host *host, xrt_backend *t);

xrt_status xrt_plugin_register(const xrt_plugin_host *host, xrt_backend *t)
{
    (void)host;
    t->abi_version = XRT_BACKEND_ABI_VERSION + 1;
    t->size = sizeof *t;
    t->name = "badabi";
    t->init = badabi_init;
    return XRT_SUCCESS;
}
