/* SPDX-License-Identifier: MIT */
/* A plugin backend, "boasts", whose get_capabilities reports every XRT_CAP_*
   bit while its table has only the operations of one of them (pinned host
   memory): xrt must report only that one, with one warning. */
#define _POSIX_C_SOURCE 200809L
#include "fixture.h"

#include <stdlib.h>

static xrt_status boasts_get_capabilities(const xrt_backend *self, unsigned *caps)
{
    (void)self;
    *caps = XRT_CAP_PINNED_HOST | XRT_CAP_MALLOC_ASYNC | XRT_CAP_HOST_FUNC | XRT_CAP_EVENT_TIMING |
            XRT_CAP_NATIVE_HANDLES | XRT_CAP_MODULES | XRT_CAP_GRAPHS;
    return XRT_SUCCESS;
}

static xrt_status boasts_malloc_host(const xrt_backend *self, void **ptr, size_t size)
{
    (void)self;
    *ptr = aligned_alloc(XRT_ALIGNMENT, (size + XRT_ALIGNMENT - 1) / XRT_ALIGNMENT * XRT_ALIGNMENT);
    return *ptr ? XRT_SUCCESS : XRT_ERROR_OUT_OF_MEMORY;
}

static xrt_status boasts_free_host(const xrt_backend *self, void *ptr)
{
    (void)self;
    free(ptr);
    return XRT_SUCCESS;
}

xrt_status xrt_plugin_register(const xrt_plugin_host *host, xrt_backend *t)
{
    (void)host;
    fixture_table(t, "boasts", fixture_init);
    t->get_capabilities = boasts_get_capabilities;
    t->get_device_count = fixture_get_device_count;
    t->get_device = fixture_get_device;
    t->malloc_host = boasts_malloc_host;
    t->free_host = boasts_free_host;
    return XRT_SUCCESS;
}
