/* SPDX-License-Identifier: MIT */
/* saxpy: one program, one kernel written for the CPU (saxpy_cpu.c, built into
   a shared object) and for GPUs (saxpy.cu, built into a CUDA fatbin where nvcc
   is installed, and into a HIP code object for gfx90a and an offload bundle
   for several AMD archs where hipcc is). Every image found is offered to
   xrt_module_load, which picks the one for the current backend's device; the
   program runs wherever XRT_BACKEND points and verifies the result. The
   images are read from the program's own directory. */
#define XRT_IMPL
#include "xrt.h"
#include "examples/saxpy/saxpy_args.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef SAXPY_HIP_BUNDLE_ARCHS /* the archs of saxpy.hipfb (the Makefile's HIP_BUNDLE_ARCHS) */
#define SAXPY_HIP_BUNDLE_ARCHS "gfx908,gfx90a,gfx1030"
#endif

/* The images saxpy looks for, and what it tells xrt about each. */
static const struct { const char *file; xrt_image_kind kind; const char *arch; } files[] = {
    {"saxpy_cpu.so", XRT_IMAGE_CPU_SHARED_OBJECT, NULL},
    {"saxpy.fatbin", XRT_IMAGE_CUDA_FATBIN, "sm_90"},
    {"saxpy_gfx90a.hsaco", XRT_IMAGE_HIP_CODE_OBJECT, "gfx90a"},
    {"saxpy.hipfb", XRT_IMAGE_HIP_OFFLOAD_BUNDLE, SAXPY_HIP_BUNDLE_ARCHS},
};
#define N_FILES (sizeof files / sizeof files[0])

#define CHECK(call)                                                                   \
    do {                                                                              \
        if ((call) != XRT_SUCCESS) {                                                  \
            fprintf(stderr, "saxpy: %s\n", xrt_get_last_error_string());              \
            return 1;                                                                 \
        }                                                                             \
    } while (0)

/* The file `name` next to the program, read whole; NULL if absent. */
static void *read_image(const char *name, size_t *size)
{
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    char *slash, *data = NULL;
    FILE *f;
    long len;
    if (n <= 0) return NULL;
    path[n] = 0;
    if (!(slash = strrchr(path, '/'))) return NULL;
    snprintf(slash + 1, sizeof path - (size_t)(slash + 1 - path), "%s", name);
    if (!(f = fopen(path, "rb"))) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (data = (char *)malloc((size_t)len)) && fread(data, 1, (size_t)len, f) == (size_t)len) {
        *size = (size_t)len;
    } else {
        free(data);
        data = NULL;
    }
    fclose(f);
    return data;
}

int main(void)
{
    const unsigned n = 1u << 20, block = 256;
    xrt_module_image images[N_FILES];
    size_t count = 0, i;
    const char *backend;
    xrt_module module;
    xrt_function fn;
    xrt_dim3 grid_dim = {(n + block - 1) / block, 1, 1}, block_dim = {block, 1, 1};
    saxpy_args args;
    float *x, *y, *h;
    xrt_stream s;
    int bad = 0;
    xrt_status st;
    CHECK(xrt_get_backend(&backend));
    for (i = 0; i < N_FILES; i++) {
        if ((images[count].data = read_image(files[i].file, &images[count].size)) != NULL)
            images[count].kind = files[i].kind, images[count++].arch = files[i].arch;
    }
    printf("saxpy on %s: y = 2x + y over %u floats, %zu module images offered\n", backend, n, count);
    st = xrt_module_load(&module, images, count, NULL);
    for (i = 0; i < count; i++) free((void *)images[i].data); /* xrt keeps what it needs */
    CHECK(st);
    CHECK(xrt_module_get_function(&fn, module, "saxpy"));
    CHECK(xrt_stream_create(&s));
    CHECK(xrt_malloc((void **)&x, n * sizeof *x));
    CHECK(xrt_malloc((void **)&y, n * sizeof *y));
    CHECK(xrt_malloc_host((void **)&h, n * sizeof *h));
    for (i = 0; i < n; i++) h[i] = (float)i;
    CHECK(xrt_memcpy_async(x, h, n * sizeof *h, XRT_MEMCPY_HOST_TO_DEVICE, s));
    CHECK(xrt_stream_synchronize(s)); /* the copy reads h when the stream gets there: wait before reusing it */
    for (i = 0; i < n; i++) h[i] = 1.0f;
    CHECK(xrt_memcpy_async(y, h, n * sizeof *h, XRT_MEMCPY_HOST_TO_DEVICE, s));
    args.a = 2.0f, args.x = x, args.y = y, args.n = n;
    CHECK(xrt_launch_kernel(fn, grid_dim, block_dim, 0, s, &args, sizeof args));
    CHECK(xrt_memcpy_async(h, y, n * sizeof *h, XRT_MEMCPY_DEVICE_TO_HOST, s));
    CHECK(xrt_stream_synchronize(s));
    for (i = 0; i < n && !bad; i++) bad = h[i] != 2.0f * (float)i + 1.0f;
    if (bad) printf("  WRONG result at %zu: %g\n", i - 1, (double)h[i - 1]);
    else printf("  result verified\n");
    CHECK(xrt_free_host(h));
    CHECK(xrt_free(x));
    CHECK(xrt_free(y));
    CHECK(xrt_stream_destroy(s));
    CHECK(xrt_module_unload(module));
    return bad;
}
