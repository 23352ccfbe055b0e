/* SPDX-License-Identifier: MIT */
/* A plugin backend, "twodev", with two devices that are both the CPU: every
   operation it has is the cpu backend's, and set_device/get_device keep a
   per-thread device number (0 or 1). For tools that treat several devices
   differently (bandwidth's device-to-device pairs) on a machine with one.
   Its memory is the cpu's (host->wraps). */
#define _POSIX_C_SOURCE 200809L
#include "fixture.h"

#include <stdio.h>
#include <string.h>

static const xrt_plugin_host *host;
static const xrt_backend *cpu;
static __thread int current;

static xrt_status twodev_init(const xrt_backend *self, char *reason, size_t n)
{
    cpu = host->find_backend("cpu");
    if (!cpu) snprintf(reason, n, "the cpu backend is unavailable");
    return cpu ? host->wraps(self, cpu) : XRT_ERROR_BACKEND_UNAVAILABLE; /* its memory is the cpu's */
}

static xrt_status twodev_get_device_count(const xrt_backend *self, int *count)
{
    (void)self;
    *count = 2;
    return XRT_SUCCESS;
}

static xrt_status twodev_set_device(const xrt_backend *self, int device)
{
    (void)self;
    if (device < 0 || device > 1) return host->error(XRT_ERROR_INVALID_DEVICE, "twodev: xrt_set_device", "device %d", device);
    current = device;
    return XRT_SUCCESS;
}

static xrt_status twodev_get_device(const xrt_backend *self, int *device)
{
    (void)self;
    *device = current;
    return XRT_SUCCESS;
}

static xrt_status twodev_get_device_properties(const xrt_backend *self, xrt_device_prop *prop, int device)
{
    xrt_status st;
    (void)self;
    if (device < 0 || device > 1) return host->error(XRT_ERROR_INVALID_DEVICE, "twodev: xrt_get_device_properties", "device %d", device);
    if ((st = cpu->get_device_properties(cpu, prop, 0)) == XRT_SUCCESS)
        snprintf(prop->name, sizeof prop->name, "twodev %d", device);
    return st;
}

static xrt_status twodev_get_capabilities(const xrt_backend *self, unsigned *caps)
{
    (void)self;
    return cpu->get_capabilities(cpu, caps);
}
static xrt_status twodev_device_synchronize(const xrt_backend *self)
{
    (void)self;
    return cpu->device_synchronize(cpu);
}
static xrt_status twodev_malloc(const xrt_backend *self, void **ptr, size_t size)
{
    (void)self;
    return cpu->malloc(cpu, ptr, size);
}
static xrt_status twodev_free(const xrt_backend *self, void *ptr)
{
    (void)self;
    return cpu->free(cpu, ptr);
}
static xrt_status twodev_malloc_host(const xrt_backend *self, void **ptr, size_t size)
{
    (void)self;
    return cpu->malloc_host(cpu, ptr, size);
}
static xrt_status twodev_free_host(const xrt_backend *self, void *ptr)
{
    (void)self;
    return cpu->free_host(cpu, ptr);
}
static xrt_status twodev_memset(const xrt_backend *self, void *dst, int value, size_t size)
{
    (void)self;
    return cpu->memset(cpu, dst, value, size);
}
static xrt_status twodev_memcpy(const xrt_backend *self, void *dst, const void *src, size_t size, xrt_memcpy_kind kind)
{
    (void)self;
    return cpu->memcpy(cpu, dst, src, size, kind);
}
static xrt_status twodev_memcpy_async(const xrt_backend *self, void *dst, const void *src, size_t size,
                                      xrt_memcpy_kind kind, void *stream)
{
    (void)self;
    return cpu->memcpy_async(cpu, dst, src, size, kind, stream);
}
/* Both devices are the cpu backend's device 0: a peer copy is its copy. */
static xrt_status twodev_memcpy_peer(const xrt_backend *self, void *dst, int dst_device, const void *src,
                                     int src_device, size_t size)
{
    (void)self, (void)dst_device, (void)src_device;
    return cpu->memcpy_peer(cpu, dst, 0, src, 0, size);
}
static xrt_status twodev_memcpy_peer_async(const xrt_backend *self, void *dst, int dst_device, const void *src,
                                           int src_device, size_t size, void *stream)
{
    (void)self, (void)dst_device, (void)src_device;
    return cpu->memcpy_peer_async(cpu, dst, 0, src, 0, size, stream);
}
static xrt_status twodev_stream_create(const xrt_backend *self, void **stream)
{
    (void)self;
    return cpu->stream_create(cpu, stream);
}
static xrt_status twodev_stream_destroy(const xrt_backend *self, void *stream)
{
    (void)self;
    return cpu->stream_destroy(cpu, stream);
}
static xrt_status twodev_stream_synchronize(const xrt_backend *self, void *stream)
{
    (void)self;
    return cpu->stream_synchronize(cpu, stream);
}

xrt_status xrt_plugin_register(const xrt_plugin_host *h, xrt_backend *t)
{
    host = h;
    fixture_table(t, "twodev", twodev_init);
    t->get_capabilities = twodev_get_capabilities;
    t->get_device_count = twodev_get_device_count;
    t->set_device = twodev_set_device;
    t->get_device = twodev_get_device;
    t->device_synchronize = twodev_device_synchronize;
    t->get_device_properties = twodev_get_device_properties;
    t->malloc = twodev_malloc;
    t->free = twodev_free;
    t->malloc_host = twodev_malloc_host;
    t->free_host = twodev_free_host;
    t->memset = twodev_memset;
    t->memcpy = twodev_memcpy;
    t->memcpy_async = twodev_memcpy_async;
    t->memcpy_peer = twodev_memcpy_peer;
    t->memcpy_peer_async = twodev_memcpy_peer_async;
    t->stream_create = twodev_stream_create;
    t->stream_destroy = twodev_stream_destroy;
    t->stream_synchronize = twodev_stream_synchronize;
    return XRT_SUCCESS;
}
