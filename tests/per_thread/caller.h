/* SPDX-License-Identifier: MIT */
/* The calls of tests/per_thread/caller.c, a translation unit built as nvcc's
   --default-stream per-thread builds one (XRT_API_PER_THREAD_DEFAULT_STREAM),
   for tests/test_per_thread_units.c, the XRT_IMPL unit, built without it.
   Each passes NULL for the stream, and returns the first status that is not
   a success. */
#ifndef XRT_TEST_PER_THREAD_CALLER_H
#define XRT_TEST_PER_THREAD_CALLER_H

#include "xrt.h"

/* n bytes of `in` to the module's variable and back into `out`, the
   asynchronous copies then a synchronize of NULL. */
xrt_status caller_symbol_async(xrt_module m, const char *symbol, const void *in, void *out, size_t n);
/* n bytes of the variable into `out`, the asynchronous copy then a synchronize of NULL. */
xrt_status caller_symbol_read(xrt_module m, const char *symbol, void *out, size_t n);
/* The same as caller_symbol_async with the synchronous copies. */
xrt_status caller_symbol_sync(xrt_module m, const char *symbol, const void *in, void *out, size_t n);
/* One thread of f with its parameters (xrt_launch_kernel_params), then a synchronize of NULL. */
xrt_status caller_launch_params(xrt_function f, void **params);
/* A capture of NULL into graph g begun (xrt_stream_begin_capture_to_graph). */
xrt_status caller_capture_null(xrt_graph g);

#endif
