/* SPDX-License-Identifier: MIT */
// saxpy for CUDA GPUs, the same computation as saxpy_cpu.c. Built into a
// fatbin (cubin for sm_90, PTX for newer archs) by the Makefile:
//   nvcc -fatbin -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
extern "C" __global__ void saxpy(float a, const float *x, float *y, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
