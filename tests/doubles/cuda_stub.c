/* SPDX-License-Identifier: MIT */
/* A stand-in for the CUDA driver (libcuda.so.1) beside the stub runtime
   (cudart_stub.c): the entry points xrt's CUDA backend binds and
   bench/gpu_overhead.c's raw side calls, so that a module loads and a kernel
   launches on a machine without a GPU and callgrind can count what xrt adds
   to a launch. Each call does nothing but answer as the driver answers a
   valid call: a library of one kernel, `empty` with one 8-byte parameter (the
   benchmark's PTX), told by cuKernelGetParamInfo and cuFuncGetParamInfo
   until CUDA_ERROR_INVALID_VALUE, as the driver tells it. Both sides find
   this file as libcuda.so.1 (LD_LIBRARY_PATH). A benchmark tool, not a test
   double: nothing is checked. */
#include <cuda.h>

#include <string.h>

#define UNUSED(x) (void)(x)

static char library, module, kernel, function; /* their addresses are the handles */

CUresult cuInit(unsigned flags) { UNUSED(flags); return CUDA_SUCCESS; }

CUresult cuGetErrorName(CUresult e, const char **name)
{
    *name = e ? "CUDA_ERROR_STUB" : "CUDA_SUCCESS";
    return CUDA_SUCCESS;
}

CUresult cuGetErrorString(CUresult e, const char **text)
{
    *text = e ? "stub driver error" : "no error";
    return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *d, int ordinal)
{
    *d = ordinal;
    return ordinal == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d)
{
    UNUSED(a), UNUSED(d);
    *v = 0;
    return CUDA_SUCCESS;
}

CUresult cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned n, CUjit_option *o, void **v)
{
    UNUSED(image), UNUSED(n), UNUSED(o), UNUSED(v);
    *m = (CUmodule)(void *)&module;
    return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule m) { UNUSED(m); return CUDA_SUCCESS; }

CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
    UNUSED(m);
    if (strcmp(name, "empty") != 0) return CUDA_ERROR_NOT_FOUND;
    *f = (CUfunction)(void *)&function;
    return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, CUstream s, void **params, void **extra)
{
    UNUSED(f), UNUSED(gx), UNUSED(gy), UNUSED(gz), UNUSED(bx), UNUSED(by), UNUSED(bz), UNUSED(shared), UNUSED(s);
    UNUSED(params), UNUSED(extra);
    return CUDA_SUCCESS;
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **params, void **extra)
{
    UNUSED(config), UNUSED(f), UNUSED(params), UNUSED(extra);
    return CUDA_SUCCESS;
}

CUresult cuFuncGetAttribute(int *v, CUfunction_attribute a, CUfunction f)
{
    UNUSED(f);
    *v = a == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK ? 1024 : 0;
    return CUDA_SUCCESS;
}

CUresult cuLibraryLoadData(CUlibrary *l, const void *code, CUjit_option *o, void **v, unsigned n,
                           CUlibraryOption *lo, void **lv, unsigned ln)
{
    UNUSED(code), UNUSED(o), UNUSED(v), UNUSED(n), UNUSED(lo), UNUSED(lv), UNUSED(ln);
    *l = (CUlibrary)(void *)&library;
    return CUDA_SUCCESS;
}

CUresult cuLibraryUnload(CUlibrary l) { UNUSED(l); return CUDA_SUCCESS; }

CUresult cuLibraryGetKernel(CUkernel *k, CUlibrary l, const char *name)
{
    UNUSED(l);
    if (strcmp(name, "empty") != 0) return CUDA_ERROR_NOT_FOUND;
    *k = (CUkernel)(void *)&kernel;
    return CUDA_SUCCESS;
}

CUresult cuLibraryGetKernelCount(unsigned *count, CUlibrary l)
{
    UNUSED(l);
    *count = 1;
    return CUDA_SUCCESS;
}

CUresult cuKernelGetFunction(CUfunction *f, CUkernel k)
{
    UNUSED(k);
    *f = (CUfunction)(void *)&function;
    return CUDA_SUCCESS;
}

/* `empty(.param .u64)`: one parameter, 8 bytes at offset 0. */
static CUresult param_info(size_t i, size_t *offset, size_t *size)
{
    if (i > 0) return CUDA_ERROR_INVALID_VALUE;
    *offset = 0, *size = 8;
    return CUDA_SUCCESS;
}

CUresult cuKernelGetParamInfo(CUkernel k, size_t i, size_t *offset, size_t *size)
{
    UNUSED(k);
    return param_info(i, offset, size);
}

CUresult cuFuncGetParamInfo(CUfunction f, size_t i, size_t *offset, size_t *size)
{
    UNUSED(f);
    return param_info(i, offset, size);
}
