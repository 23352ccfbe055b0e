/* SPDX-License-Identifier: MIT */
/* What the plugin fixtures of tests/test_plugin.c share: xrt.h for its types
   only (no XRT_IMPL), the entry point's prototype, an init with nothing to
   do, the head of a table, and the one device of a minimal backend.
   forward.c stays whole without it: REFERENCE.md shows it as a complete
   wrapping plugin. */
#ifndef XRT_TEST_PLUGIN_FIXTURE_H
#define XRT_TEST_PLUGIN_FIXTURE_H
#include "xrt.h"

xrt_status xrt_plugin_register(const xrt_plugin_host *, xrt_backend *);

static inline xrt_status fixture_init(const xrt_backend *self, char *reason, size_t n)
{
    (void)self, (void)reason, (void)n;
    return XRT_SUCCESS;
}

/* The head of a table of this ABI: its version and size, the name, the init. */
static inline void fixture_table(xrt_backend *t, const char *name,
                                 xrt_status (*init)(const xrt_backend *, char *, size_t))
{
    t->abi_version = XRT_BACKEND_ABI_VERSION;
    t->size = sizeof *t;
    t->name = name;
    t->init = init;
}

/* One device, device 0. */
static inline xrt_status fixture_get_device_count(const xrt_backend *self, int *count)
{
    (void)self;
    *count = 1;
    return XRT_SUCCESS;
}

static inline xrt_status fixture_get_device(const xrt_backend *self, int *device)
{
    (void)self;
    *device = 0;
    return XRT_SUCCESS;
}

#endif
