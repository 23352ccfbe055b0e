/* SPDX-License-Identifier: MIT */
// saxpy for GPUs, the same computation as saxpy_cpu.c; one source for both
// vendors. The Makefile builds it with nvcc into a CUDA fatbin (cubin for
// sm_90, PTX for newer archs):
//   nvcc -fatbin -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
// and with hipcc into a HIP code object for gfx90a and an offload bundle for
// several AMD archs:
//   hipcc --genco --offload-arch=gfx90a --no-gpu-bundle-output
//   hipcc --genco --offload-arch=gfx908 --offload-arch=gfx90a ...
// nvcc includes its runtime header itself; under hipcc (which defines
// __HIPCC__) blockIdx & co come from hip_runtime.h.
#ifdef __HIPCC__
#include <hip/hip_runtime.h>
#endif

extern "C" __global__ void saxpy(float a, const float *x, float *y, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
