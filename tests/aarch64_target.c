/* SPDX-License-Identifier: MIT */
/* The CPU backend's target, printed by a program built for AArch64
   (tests/aarch64.sh runs it under qemu-aarch64 as several CPUs): backend,
   arch, vector width, features, fingerprint. */
#define XRT_IMPL
#include "xrt.h"

#include <stdio.h>

int main(void)
{
    xrt_target t;
    if (xrt_set_backend("cpu") != XRT_SUCCESS || xrt_get_target(&t) != XRT_SUCCESS) {
        fprintf(stderr, "aarch64_target: %s\n", xrt_get_last_error_string());
        return 1;
    }
    printf("%s %s %d %s %016llx\n", t.backend, t.arch, t.vector_width, t.features, (unsigned long long)t.fingerprint);
    xrt_shutdown();
    return 0;
}
