/* SPDX-License-Identifier: MIT */
/* A minimal valid plugin backend, "good": one device whose memory is host
   memory, synchronous copies and sets; every other operation is left NULL,
   so xrt answers XRT_ERROR_UNSUPPORTED for it. */
#define _POSIX_C_SOURCE 200809L
#include "fixture.h"

#include <stdlib.h>
#include <string.h>

static const xrt_plugin_host *good_host;

static xrt_status good_get_capabilities(const xrt_backend *self, unsigned *caps)
{
    (void)self;
    *caps = 0;
    return XRT_SUCCESS;
}

static xrt_status good_set_device(const xrt_backend *self, int device)
{
    (void)self;
    if (device != 0) return good_host->error(XRT_ERROR_INVALID_DEVICE, "good: xrt_set_device", "device %d", device);
    return XRT_SUCCESS;
}

static xrt_status good_device_synchronize(const xrt_backend *self)
{
    (void)self;
    return XRT_SUCCESS;
}

static xrt_status good_malloc(const xrt_backend *self, void **ptr, size_t size)
{
    (void)self;
    *ptr = aligned_alloc(XRT_ALIGNMENT, (size + XRT_ALIGNMENT - 1) / XRT_ALIGNMENT * XRT_ALIGNMENT);
    return *ptr ? XRT_SUCCESS : good_host->error(XRT_ERROR_OUT_OF_MEMORY, "good: xrt_malloc", "%zu bytes", size);
}

static xrt_status good_free(const xrt_backend *self, void *ptr)
{
    (void)self;
    free(ptr);
    return XRT_SUCCESS;
}

static xrt_status good_memset(const xrt_backend *self, void *dst, int value, size_t size)
{
    (void)self;
    memset(dst, value, size);
    return XRT_SUCCESS;
}

static xrt_status good_memcpy(const xrt_backend *self, void *dst, const void *src, size_t size, xrt_memcpy_kind kind)
{
    (void)self;
    (void)kind;
    memcpy(dst, src, size);
    return XRT_SUCCESS;
}

xrt_status xrt_plugin_register(const xrt_plugin_host *host, xrt_backend *t)
{
    good_host = host;
    fixture_table(t, "good", fixture_init);
    t->get_capabilities = good_get_capabilities;
    t->get_device_count = fixture_get_device_count;
    t->set_device = good_set_device;
    t->get_device = fixture_get_device;
    t->device_synchronize = good_device_synchronize;
    t->malloc = good_malloc;
    t->free = good_free;
    t->memset = good_memset;
    t->memcpy = good_memcpy;
    return XRT_SUCCESS;
}
