/* SPDX-License-Identifier: MIT */
/* A unit whose NULL stream is the calling thread's own, as nvcc's
   --default-stream per-thread makes one's (see caller.h). It does not
   define XRT_IMPL: the calls xrt implements out of line are the XRT_IMPL
   unit's, built without the macro. */
#define XRT_API_PER_THREAD_DEFAULT_STREAM
#include "caller.h"

xrt_status caller_symbol_async(xrt_module m, const char *symbol, const void *in, void *out, size_t n)
{
    xrt_status st = xrt_memcpy_to_symbol_async(m, symbol, in, n, 0, XRT_MEMCPY_DEFAULT, NULL);
    if (st == XRT_SUCCESS) st = xrt_memcpy_from_symbol_async(out, m, symbol, n, 0, XRT_MEMCPY_DEFAULT, NULL);
    return st == XRT_SUCCESS ? xrt_stream_synchronize(NULL) : st;
}

xrt_status caller_symbol_read(xrt_module m, const char *symbol, void *out, size_t n)
{
    xrt_status st = xrt_memcpy_from_symbol_async(out, m, symbol, n, 0, XRT_MEMCPY_DEVICE_TO_HOST, NULL);
    return st == XRT_SUCCESS ? xrt_stream_synchronize(NULL) : st;
}

xrt_status caller_symbol_sync(xrt_module m, const char *symbol, const void *in, void *out, size_t n)
{
    xrt_status st = xrt_memcpy_to_symbol(m, symbol, in, n, 0, XRT_MEMCPY_HOST_TO_DEVICE);
    return st == XRT_SUCCESS ? xrt_memcpy_from_symbol(out, m, symbol, n, 0, XRT_MEMCPY_DEVICE_TO_HOST) : st;
}

xrt_status caller_launch_params(xrt_function f, void **params)
{
    xrt_dim3 one = {1, 1, 1};
    xrt_status st = xrt_launch_kernel_params(f, one, one, 0, NULL, params);
    return st == XRT_SUCCESS ? xrt_stream_synchronize(NULL) : st;
}

xrt_status caller_capture_null(xrt_graph g)
{
    return xrt_stream_begin_capture_to_graph(NULL, g, NULL, 0, XRT_CAPTURE_MODE_GLOBAL);
}
