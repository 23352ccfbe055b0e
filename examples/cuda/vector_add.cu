/* SPDX-License-Identifier: MIT */
/* vector_add: a CUDA kernel on an xrt stream. xrt allocates the memory and
   orders the copies; the kernel is launched with <<<>>> on the stream's
   native handle (xrt_stream_get_native). This file sees only the
   vendor-free part of xrt.h; the implementation is vector_add_impl.c.

   Without a usable GPU it exits with status 1 and says why. */
#include "xrt.h"

#include <cstdio>
#include <cstring>

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

#define CHECK(call)                                                                   \
    do {                                                                              \
        if ((call) != XRT_SUCCESS) {                                                  \
            std::fprintf(stderr, "vector_add: %s\n", xrt_get_last_error_string());    \
            return 1;                                                                 \
        }                                                                             \
    } while (0)

static int verify(const float *c, int n)
{
    for (int i = 0; i < n; i++)
        if (c[i] != 3.0f * (float)i) return i;
    return -1;
}

int main()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    float *h = nullptr, *a = nullptr, *b = nullptr, *c = nullptr; /* h: a, b and the result */
    xrt_stream s = nullptr;
    void *native = nullptr;
    xrt_device_prop prop;
    int device = 0, bad;
    xrt_set_log_level(XRT_LOG_NONE); /* errors are reported below, once (env XRT_LOG still applies) */
    if (xrt_set_backend("cuda") != XRT_SUCCESS) { /* "xrt_set_backend: cuda: unavailable: ..." */
        const char *detail = xrt_get_last_error_string();
        const char *rest = std::strchr(detail, ' '); /* after "xrt_set_backend:" */
        std::fprintf(stderr, "vector_add: %s\n", rest ? rest + 1 : detail);
        return 1;
    }
    CHECK(xrt_get_device(&device));
    CHECK(xrt_get_device_properties(&prop, device));
    CHECK(xrt_malloc_host(reinterpret_cast<void **>(&h), 3 * bytes));
    CHECK(xrt_malloc(reinterpret_cast<void **>(&a), bytes));
    CHECK(xrt_malloc(reinterpret_cast<void **>(&b), bytes));
    CHECK(xrt_malloc(reinterpret_cast<void **>(&c), bytes));
    CHECK(xrt_stream_create(&s));
    CHECK(xrt_stream_get_native(s, &native));
    for (int i = 0; i < n; i++) {
        h[i] = (float)i;
        h[n + i] = 2.0f * (float)i;
    }
    CHECK(xrt_memcpy_async(a, h, bytes, XRT_MEMCPY_HOST_TO_DEVICE, s));
    CHECK(xrt_memcpy_async(b, h + n, bytes, XRT_MEMCPY_HOST_TO_DEVICE, s));
    vector_add<<<(n + 255) / 256, 256, 0, static_cast<cudaStream_t>(native)>>>(a, b, c, n);
    if (cudaGetLastError() != cudaSuccess) {
        std::fprintf(stderr, "vector_add: kernel launch failed\n");
        return 1;
    }
    CHECK(xrt_memcpy_async(h + 2 * n, c, bytes, XRT_MEMCPY_DEVICE_TO_HOST, s));
    CHECK(xrt_stream_synchronize(s));
    bad = verify(h + 2 * n, n);
    if (bad >= 0)
        std::printf("vector_add: %d elements on %s (%s): WRONG at %d: %g\n", n, prop.name, prop.arch, bad,
                    h[2 * n + bad]);
    else
        std::printf("vector_add: %d elements on %s (%s): verified\n", n, prop.name, prop.arch);
    CHECK(xrt_stream_destroy(s));
    CHECK(xrt_free(a));
    CHECK(xrt_free(b));
    CHECK(xrt_free(c));
    CHECK(xrt_free_host(h));
    xrt_shutdown();
    return bad >= 0;
}
