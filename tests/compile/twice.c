/* SPDX-License-Identifier: MIT */
/* xrt.h included before and after XRT_IMPL is defined, in one unit: the
   declarations once, the implementation once. */
#include "xrt.h"
#define XRT_IMPL
#include "xrt.h"
#include "xrt.h"

#include <stdio.h>

int main(void)
{
    void *d = NULL;
    if (xrt_malloc(&d, 64) != XRT_SUCCESS || xrt_memset(d, 0, 64) != XRT_SUCCESS || xrt_free(d) != XRT_SUCCESS) {
        printf("FAIL: %s\n", xrt_get_last_error_string());
        return 1;
    }
    puts("ok");
    xrt_shutdown();
    return 0;
}
