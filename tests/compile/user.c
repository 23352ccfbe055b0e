/* SPDX-License-Identifier: MIT */
/* What user code sees: xrt.h without XRT_IMPL, compiled as C11 and C++17. It
   must pull no vendor header and use a few calls of each kind. */
#include "xrt.h"

#include <stdio.h>

int xrt_compile_user(void);

int xrt_compile_user(void)
{
    void *d = NULL;
    char h[64] = "hello";
    xrt_stream s = NULL;
    xrt_event e = NULL;
    xrt_pointer_attributes a;
    unsigned caps = 0;
    if (xrt_malloc(&d, sizeof h) != XRT_SUCCESS) {
        puts(xrt_get_last_error_string());
        return 1;
    }
    xrt_get_capabilities(&caps);
    xrt_stream_create(&s);
    xrt_event_create(&e, XRT_EVENT_DISABLE_TIMING);
    xrt_memcpy_async(d, h, sizeof h, XRT_MEMCPY_HOST_TO_DEVICE, s);
    xrt_event_record(e, s);
    xrt_stream_wait_event(NULL, e);
    xrt_memcpy(h, d, sizeof h, XRT_MEMCPY_DEFAULT);
    xrt_pointer_get_attributes(&a, d);
    xrt_stream_synchronize(s);
    xrt_event_destroy(e);
    xrt_stream_destroy(s);
    xrt_free(d);
    return xrt_get_last_error() == XRT_SUCCESS ? 0 : (int)xrt_status_string(XRT_ERROR_INVALID_VALUE)[0];
}
