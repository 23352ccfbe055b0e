/* SPDX-License-Identifier: MIT */
/* The CPU backend needs nothing and is always built in: a program that
   enables only a GPU backend runs on the CPU where there is no GPU. With
   XRT_DISABLE_CPU and no GPU, xrt_init says why each backend is unusable. */
#define XRT_IMPL
#include "xrt.h"

#include <stdio.h>
#include <string.h>

#ifdef XRT_DISABLE_CPU
static int check(xrt_status st)
{
    const char *name = NULL, *why;
    if (st == XRT_SUCCESS) { /* a machine with a GPU */
        if (xrt_get_backend(&name) != XRT_SUCCESS || !strcmp(name, "cpu")) return 1;
        printf("ok: %s\n", name);
        return 0;
    }
    why = xrt_get_last_error_string();
    if (!strstr(why, "no backend available: cuda: ") || !strstr(why, "; cpu: left out of this build (XRT_DISABLE_CPU")) {
        printf("FAIL: %s\n", why);
        return 1;
    }
    printf("ok: %s\n", why);
    return 0;
}
#else
static int check(xrt_status st)
{
    const char *name = NULL;
    xrt_backend_info info;
    int i, n = 0, cpu = 0;
    if (st != XRT_SUCCESS || xrt_backend_count(&n) != XRT_SUCCESS) return 1;
    for (i = 0; i < n; i++)
        if (xrt_backend_get_info(i, &info) == XRT_SUCCESS && !strcmp(info.name, "cpu")) cpu = info.available;
    if (!cpu || xrt_get_backend(&name) != XRT_SUCCESS) return 1;
    printf("ok: the CPU backend is built in; this thread runs on %s\n", name);
    return 0;
}
#endif

int main(void)
{
    int r = check(xrt_init());
    xrt_shutdown();
    return r;
}
