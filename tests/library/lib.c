/* SPDX-License-Identifier: MIT */
/* The library of lib.h: a translation unit of its own, without XRT_IMPL, that
   uses xrt's inline dispatch as any user of xrt.h does. */
#include "lib.h"

#include <string.h>

static xrt_backend_handle lib_backend;
static int lib_device;

xrt_status lib_open(const char *name, int device)
{
    lib_device = device;
    return xrt_get_backend_handle(name, &lib_backend);
}

xrt_backend_handle lib_handle(void)
{
    return lib_backend;
}

/* Runs on the pushed backend: every call's status is checked. */
static xrt_status lib_fill_here(unsigned char *out, size_t n, int value, const char **seen)
{
    void *d = NULL;
    int device = -1;
    xrt_status st;
    if ((st = xrt_get_backend(seen)) != XRT_SUCCESS) return st;
    if ((st = xrt_get_device(&device)) != XRT_SUCCESS) return st;
    if (device != lib_device) return XRT_ERROR_INVALID_DEVICE;
    if ((st = xrt_malloc(&d, n)) != XRT_SUCCESS) return st;
    st = xrt_memset(d, value, n);
    if (st == XRT_SUCCESS) st = xrt_memcpy(out, d, n, XRT_MEMCPY_DEVICE_TO_HOST);
    if (st == XRT_SUCCESS) st = xrt_device_synchronize();
    xrt_free(d);
    return st;
}

xrt_status lib_fill(unsigned char *out, size_t n, int value, const char **seen)
{
    xrt_backend_handle popped = NULL;
    xrt_status st = xrt_push_backend(lib_backend, lib_device);
    if (st != XRT_SUCCESS) return st;
    st = lib_fill_here(out, n, value, seen);
    if (xrt_pop_backend(&popped) != XRT_SUCCESS || popped != lib_backend) return XRT_ERROR_ILLEGAL_STATE;
    return st;
}

xrt_status lib_nested(xrt_backend_handle inner, int inner_device, unsigned char *out, size_t n, int value,
                      const char **seen_outer)
{
    xrt_backend_handle popped = NULL;
    const char *inner_seen = NULL;
    xrt_status st = xrt_push_backend(lib_backend, lib_device);
    if (st != XRT_SUCCESS) return st;
    st = xrt_push_backend(inner, inner_device);
    if (st == XRT_SUCCESS) {
        void *d = NULL;
        st = xrt_get_backend(&inner_seen);
        if (st == XRT_SUCCESS) st = xrt_malloc(&d, n);
        if (st == XRT_SUCCESS) st = xrt_memset(d, value, n);
        if (st == XRT_SUCCESS) st = xrt_memcpy(out, d, n, XRT_MEMCPY_DEVICE_TO_HOST);
        if (st == XRT_SUCCESS) st = xrt_device_synchronize();
        xrt_free(d);
        if (xrt_pop_backend(&popped) != XRT_SUCCESS || popped != inner) st = XRT_ERROR_ILLEGAL_STATE;
    }
    if (st == XRT_SUCCESS) st = xrt_get_backend(seen_outer);
    if (xrt_pop_backend(&popped) != XRT_SUCCESS || popped != lib_backend) return XRT_ERROR_ILLEGAL_STATE;
    return st;
}
