/* SPDX-License-Identifier: MIT */
/* A mistake that must not compile: a system header before xrt.h in the
   XRT_IMPL unit. tests/compile/matrix.sh expects xrt.h's #error, which says
   what to do, instead of implicit declarations deep inside xrt. */
#include <stdio.h>
#define XRT_IMPL
#include "xrt.h"

int main(void) { return xrt_init() != XRT_SUCCESS; }
