/* SPDX-License-Identifier: MIT */
/* The XRT_IMPL unit; the enable macros come from the command line. */
#define XRT_IMPL
#include "xrt.h"

int xrt_compile_impl(void);

int xrt_compile_impl(void)
{
    int n = 0;
    return xrt_backend_count(&n) == XRT_SUCCESS ? n : -1;
}
