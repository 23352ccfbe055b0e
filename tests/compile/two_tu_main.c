/* SPDX-License-Identifier: MIT */
/* A program of two translation units: this one holds the implementation and
   main, two_tu_user.c only includes xrt.h. Both use the API; state (the
   registry, the thread's last error, allocations) is shared between them. */
#define XRT_IMPL
#include "xrt.h"

#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif
int xrt_user_tu_fill(void *device, size_t n, int value); /* in two_tu_user.c */
xrt_status xrt_user_tu_last_error(void);
#ifdef __cplusplus
}
#endif

int main(void)
{
    unsigned char h[100];
    void *d = NULL;
    const char *name = NULL;
    size_t i;
    if (xrt_malloc(&d, sizeof h) != XRT_SUCCESS || xrt_get_backend(&name) != XRT_SUCCESS) {
        printf("FAIL: %s\n", xrt_get_last_error_string());
        return 1;
    }
    if (xrt_user_tu_fill(d, sizeof h, 0x5c) != 0) return 1; /* memory from this TU, used in the other */
    memset(h, 0, sizeof h);
    if (xrt_memcpy(h, d, sizeof h, XRT_MEMCPY_DEVICE_TO_HOST) != XRT_SUCCESS) return 1;
    for (i = 0; i < sizeof h; i++)
        if (h[i] != 0x5c) return 1;
    xrt_malloc(NULL, 64); /* an error here is the other TU's last error too */
    if (xrt_user_tu_last_error() != XRT_ERROR_INVALID_VALUE) return 1;
    if (xrt_free(d) != XRT_SUCCESS && xrt_get_last_error() != XRT_ERROR_INVALID_POINTER) return 1;
    printf("ok: %s\n", name);
    xrt_shutdown();
    return 0;
}
