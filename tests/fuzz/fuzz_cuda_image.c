/* SPDX-License-Identifier: MIT */
/* libFuzzer target: what the CUDA backend reads in a module image before
   the driver gets it (cuLibraryLoadData takes no size and reads an image as
   far as its own headers say): the check of a cubin, a fatbin or PTX.
   Build: make fuzz (tests/fuzz/fuzz.mk), where the CUDA headers are. The
   seeds are the sm_90 cubin, the fatbin and the PTX nvcc builds from
   examples/saxpy/saxpy.cu.

   Input: the image's bytes, exactly (a copy of that size, so that a read
   past its end is caught). Checked, for each CUDA image kind:
   - the check returns success or XRT_ERROR_INVALID_IMAGE, and a refusal's
     detail names the image;
   - an accepted image is what its kind says: an ELF for EM_CUDA (190), a
     fatbin (magic 0xBA55ED50), or text that does not open with either;
   - what the driver reads of an accepted cubin or fatbin, computed here
     independently of xrt, lies within the image;
   - nothing is read out of bounds (ASan). */
#ifndef XRT_ENABLE_CUDA
#error "fuzz_cuda_image: build with -DXRT_ENABLE_CUDA -isystem /usr/local/cuda/include (the CUDA headers are needed)"
#endif
#define XRT_IMPL
#include "xrt.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    while (bytes--) v = v << 8 | p[bytes];
    return v;
}

/* The furthest byte the driver reads of an ELF (its header, header tables,
   segments and sections with bytes), as a reader that trusts it would. */
static uint64_t elf_extent(const unsigned char *p)
{
    uint64_t end = 64, i, e;
    uint64_t phoff = le(p + 32, 8), shoff = le(p + 40, 8), phent = le(p + 54, 2), phnum = le(p + 56, 2),
             shent = le(p + 58, 2), shnum = le(p + 60, 2);
    if ((!shnum || phnum == 0xffff) && shoff) { /* extended numbering: section 0 holds the counts */
        if (shoff + 64 > end) end = shoff + 64;
        if (!shnum) shnum = le(p + shoff + 32, 8);
        if (phnum == 0xffff) phnum = le(p + shoff + 44, 4);
    }
    if (phnum && (e = phoff + phnum * phent) > end) end = e;
    if (shnum && (e = shoff + shnum * shent) > end) end = e;
    for (i = 0; i < phnum; i++)
        if ((e = le(p + phoff + i * phent + 8, 8) + le(p + phoff + i * phent + 32, 8)) > end) end = e;
    for (i = 0; i < shnum; i++)
        if (le(p + shoff + i * shent + 4, 4) != 8 && (e = le(p + shoff + i * shent + 24, 8) + le(p + shoff + i * shent + 32, 8)) > end)
            end = e;
    return end;
}

static void check(const unsigned char *p, size_t size, xrt_image_kind kind)
{
    xrt_module_image im;
    xrt_status st;
    int elf = size >= 4 && !memcmp(p, "\177ELF", 4), fat = size >= 4 && le(p, 4) == 0xBA55ED50u;
    im.kind = kind, im.data = p, im.size = size, im.arch = "sm_90";
    st = xrt__cuda_image_check(&im);
    if (st != XRT_SUCCESS) {
        if (st != XRT_ERROR_INVALID_IMAGE || !strstr(xrt_get_last_error_string(), "cuda: xrt_module_load: the image ("))
            fprintf(stderr, "fuzz_cuda_image: status %d: %s\n", (int)st, xrt_get_last_error_string()), abort();
        return;
    }
    if ((kind == XRT_IMAGE_CUDA_CUBIN) != elf || (kind == XRT_IMAGE_CUDA_FATBIN) != fat)
        fprintf(stderr, "fuzz_cuda_image: accepted %zu bytes as kind %d that are not of that format\n", size, (int)kind), abort();
    if (elf && (le(p + 18, 2) != 190 || elf_extent(p) > size))
        fprintf(stderr, "fuzz_cuda_image: accepted an ELF for machine %u reaching past its %zu bytes\n",
                (unsigned)le(p + 18, 2), size), abort();
    if (fat && le(p + 6, 2) + le(p + 8, 8) > size)
        fprintf(stderr, "fuzz_cuda_image: accepted a fatbin that declares more than its %zu bytes\n", size), abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *copy = (unsigned char *)malloc(size ? size : 1);
    if (!copy) return 0;
    if (size) memcpy(copy, data, size);
    check(copy, size, XRT_IMAGE_CUDA_CUBIN);
    check(copy, size, XRT_IMAGE_CUDA_FATBIN);
    check(copy, size, XRT_IMAGE_CUDA_PTX);
    free(copy);
    xrt_shutdown();
    return 0;
}
