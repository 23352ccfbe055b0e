/* SPDX-License-Identifier: MIT */
/* A wrapping plugin, "forward", made with xrt_backends.h's public forwarding
   macro: every operation goes to the cpu backend (get_target too, whose
   parameter is named `target`), except malloc, which it counts, and
   get_device, whose calls it counts as xrt's own (host->own_call) or the
   program's; the counts are the device's name. Its memory is the cpu's
   (host->wraps). Built with -Wshadow -Wall -Wextra -Werror, as every
   plugin here. */
#define _POSIX_C_SOURCE 200809L
#include "xrt.h"

#include <stdio.h>
#include <string.h>

static const xrt_plugin_host *host;
static const xrt_backend *inner;
static int mallocs, own_get_device, get_device;

static const xrt_backend *target(const xrt_backend *self) /* a name the list's parameters use */
{
    (void)self;
    return inner;
}

XRT_DEFINE_FORWARDERS(target);

static xrt_status forward_init(const xrt_backend *self, char *reason, size_t n)
{
    inner = host->find_backend("cpu");
    if (!inner) snprintf(reason, n, "the cpu backend is unavailable");
    return inner ? host->wraps(self, inner) : XRT_ERROR_BACKEND_UNAVAILABLE; /* its memory is the cpu's */
}

static xrt_status forward_malloc(const xrt_backend *self, void **ptr, size_t size)
{
    mallocs++;
    return xrt_forward_malloc(self, ptr, size);
}

static xrt_status forward_get_device(const xrt_backend *self, int *device)
{
    if (host->own_call()) own_get_device++;
    else get_device++;
    return xrt_forward_get_device(self, device);
}

/* The device's name says how many allocations it made, and how many devices
   xrt and the program asked. */
static xrt_status forward_get_device_properties(const xrt_backend *self, xrt_device_prop *prop, int device)
{
    xrt_status st = xrt_forward_get_device_properties(self, prop, device);
    if (st == XRT_SUCCESS) snprintf(prop->name, sizeof prop->name, "forward: %d mallocs, get_device %d own %d", mallocs,
                                         get_device, own_get_device);
    return st;
}

xrt_status xrt_plugin_register(const xrt_plugin_host *h, xrt_backend *table);
xrt_status xrt_plugin_register(const xrt_plugin_host *h, xrt_backend *table)
{
    host = h;
    table->abi_version = XRT_BACKEND_ABI_VERSION;
    table->size = sizeof *table;
    table->name = "forward";
    table->init = forward_init;
    xrt_forward_fill(table);
    table->malloc = forward_malloc;
    table->get_device = forward_get_device;
    table->get_device_properties = forward_get_device_properties;
    return XRT_SUCCESS;
}
