/* SPDX-License-Identifier: MIT */
/* libFuzzer target: what the HIP backend reads in a module image before
   hipModuleLoadData gets it (the runtime takes no size): the check of an
   AMDGPU ELF code object or a clang offload bundle, and the pick of a bundle
   by the archs of its entries. Build: make fuzz (tests/fuzz/fuzz.mk), where
   the HIP headers are installed. The seeds are the images hipcc builds from
   examples/saxpy/saxpy.cu.

   Input: the image's bytes, exactly (a copy of that size, so that a read
   past its end is caught). Checked, for both HIP image kinds:
   - the check returns success or XRT_ERROR_INVALID_IMAGE, and a refusal's
     detail names the image;
   - an accepted image opens with an AMDGPU ELF header, the bundle magic or
     the compressed-bundle magic;
   - the pick's rank is -1 or more for any arch and features, and an
     accepted ELF code object runs (a rank above 0) on no processor but its
     label's;
   - nothing is read out of bounds (ASan). */
#ifndef XRT_ENABLE_HIP
#error "fuzz_hip_image: build with -DXRT_ENABLE_HIP -D__HIP_PLATFORM_AMD__ (the HIP headers are needed)"
#endif
#define XRT_IMPL
#include "xrt.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const unsigned char *p, size_t size, xrt_image_kind kind)
{
    static const char *const archs[] = {"gfx90a", "gfx908", "gfx1030", "gfx942", ""};
    static const char *const features[] = {"sramecc+,xnack-", "xnack+", ""};
    xrt_module_image im;
    xrt_target t;
    xrt_status st;
    size_t i;
    im.kind = kind, im.data = p, im.size = size, im.arch = "gfx90a";
    st = xrt__hip_image_check(&im);
    if (st != XRT_SUCCESS) {
        if (st != XRT_ERROR_INVALID_IMAGE || !strstr(xrt_get_last_error_string(), "hip: xrt_module_load: the image ("))
            fprintf(stderr, "fuzz_hip_image: status %d: %s\n", (int)st, xrt_get_last_error_string()), abort();
    } else if (size < 4 || (memcmp(p, "\177ELF", 4) && memcmp(p, "CCOB", 4) && !xrt__hip_is_bundle(p, size))) {
        fprintf(stderr, "fuzz_hip_image: accepted %zu bytes that are no HIP image\n", size), abort();
    } else if (!memcmp(p, "\177ELF", 4) && p[18] != XRT__HIP_EM_AMDGPU) {
        fprintf(stderr, "fuzz_hip_image: accepted an ELF for machine %d\n", p[18]), abort();
    }
    memset(&t, 0, sizeof t);
    for (i = 0; i < sizeof archs / sizeof archs[0] * 3; i++) {
        int c;
        snprintf(t.arch, sizeof t.arch, "%s", archs[i / 3]);
        snprintf(t.features, sizeof t.features, "%s", features[i % 3]);
        c = xrt__hip_image_compatible(&t, &im);
        if (c < -1) fprintf(stderr, "fuzz_hip_image: compatible says %d\n", c), abort();
        if (c > 0 && st == XRT_SUCCESS && size >= 4 && !memcmp(p, "\177ELF", 4) && strcmp(t.arch, "gfx90a"))
            fprintf(stderr, "fuzz_hip_image: a code object labelled gfx90a runs on %s\n", t.arch), abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *copy = (unsigned char *)malloc(size ? size : 1);
    if (!copy) return 0;
    if (size) memcpy(copy, data, size);
    check(copy, size, XRT_IMAGE_HIP_CODE_OBJECT);
    check(copy, size, XRT_IMAGE_HIP_OFFLOAD_BUNDLE);
    free(copy);
    xrt_shutdown();
    return 0;
}
