/* SPDX-License-Identifier: MIT */
/* The stand-in CUDA runtimes' answer (this stub's and the tests' double,
   tests/doubles/cudart_double.c) to every entry point of xrt's runtime
   table (XRT__GPU_RT_FIELDS in xrt_gpu.h) that they do not define:
   weak definitions that return cudaErrorNotSupported (NULL for the error
   names), so an entry point added to the table needs no edit here. Each has
   the prototype of xrt's row in CUDA's types: a row that disagrees with
   cuda_runtime_api.h fails to compile ("conflicting types for 'cudaX'"). */
#include <cuda_runtime_api.h>

#include "xrt_gpu.h"
#include "xrt_cuda.h"

XRT__CUDA_TYPES(XRT__CUDA_TYPEDEF)

#define XRT__GPU_VENDOR cuda
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define UNSUPPORTED(field, sym, optional, hip, hip_optional, ret, params) \
    __attribute__((weak)) ret sym params { return _Generic((ret)0, const char *: NULL, default: cudaErrorNotSupported); }
XRT__GPU_RT_FIELDS(UNSUPPORTED)
