/* SPDX-License-Identifier: MIT */
/* A unit of test_check built at -O0 without debug information (the
   Makefile's rule), as a program built without -g: its dispatch functions
   are functions of their own, and a report names its call sites by the
   symbol table. It does not define XRT_IMPL. */
#include "xrt.h"

xrt_status nodebug_copy_in(void *dst, const void *src, size_t n, xrt_stream stream)
{
    return xrt_memcpy_async(dst, src, n, XRT_MEMCPY_DEFAULT, stream);
}

xrt_status nodebug_copy_out(void *dst, const void *src, size_t n, xrt_stream stream)
{
    return xrt_memcpy_async(dst, src, n, XRT_MEMCPY_DEFAULT, stream);
}
