/* SPDX-License-Identifier: MIT */
/* The XRT_IMPL unit of vector_add, compiled by the C compiler with the
   backends enabled (the Makefile passes -DXRT_ENABLE_CUDA and the CUDA include
   path). It is the only unit that sees the vendor headers. */
#define XRT_IMPL
#include "xrt.h"
