/* SPDX-License-Identifier: MIT */
/* A program built against an installed xrt: one unit with the implementation,
   compiled with `cc $(pkg-config --cflags --libs xrt)` outside the source tree. */
#define XRT_IMPL
#include <xrt.h>

#include <stdio.h>
#include <string.h>

int main(void)
{
    char in[64] = "hello from an installed xrt", out[64] = "";
    const char *backend = NULL;
    xrt_stream s;
    void *d;
    int version = 0;
    if (xrt_malloc(&d, sizeof in) != XRT_SUCCESS || xrt_stream_create(&s) != XRT_SUCCESS ||
        xrt_memcpy_async(d, in, sizeof in, XRT_MEMCPY_HOST_TO_DEVICE, s) != XRT_SUCCESS ||
        xrt_memcpy_async(out, d, sizeof out, XRT_MEMCPY_DEVICE_TO_HOST, s) != XRT_SUCCESS ||
        xrt_stream_synchronize(s) != XRT_SUCCESS || xrt_stream_destroy(s) != XRT_SUCCESS ||
        xrt_free(d) != XRT_SUCCESS || xrt_get_backend(&backend) != XRT_SUCCESS ||
        xrt_runtime_get_version(&version) != XRT_SUCCESS) {
        printf("error: %s\n", xrt_get_last_error_string());
        return 1;
    }
    printf("%s (backend %s, version %d)\n", out, backend, version);
    xrt_shutdown();
    return strcmp(in, out) != 0;
}
