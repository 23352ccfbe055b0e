/* SPDX-License-Identifier: MIT */
/* A plugin that takes a built-in backend's name: xrt skips it and cpu stays
   the built-in one. */
#include "xrt.h"

static xrt_status dupname_init(const xrt_backend *self, char *reason, size_t n)
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
    t->abi_version = XRT_BACKEND_ABI_VERSION;
    t->size = sizeof *t;
    t->name = "cpu";
    t->init = dupname_init;
    return XRT_SUCCESS;
}
