/* SPDX-License-Identifier: MIT */
/* The user half of the two-TU program (compiled as C or as C++). */
#include "xrt.h"

#ifdef __cplusplus
extern "C" {
#endif
int xrt_user_tu_fill(void *device, size_t n, int value);
xrt_status xrt_user_tu_last_error(void);
#ifdef __cplusplus
}
#endif

int xrt_user_tu_fill(void *device, size_t n, int value)
{
    xrt_stream s;
    xrt_pointer_attributes a;
    if (xrt_pointer_get_attributes(&a, device) != XRT_SUCCESS || a.type != XRT_MEMORY_DEVICE || a.size != n)
        return 1;
    if (xrt_stream_create(&s) != XRT_SUCCESS) return 1;
    if (xrt_memset_async(device, value, n, s) != XRT_SUCCESS) return 1;
    if (xrt_stream_synchronize(s) != XRT_SUCCESS) return 1;
    return xrt_stream_destroy(s) == XRT_SUCCESS ? 0 : 1;
}

xrt_status xrt_user_tu_last_error(void) { return xrt_get_last_error(); }
