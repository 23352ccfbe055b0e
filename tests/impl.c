/* SPDX-License-Identifier: MIT */
/* The XRT_IMPL unit of the test programs that use xrt's API only (see
   tests/xrt_test.h): compiled once per flavour (plain, asan, tsan) and linked
   into each, as a user's program links its one XRT_IMPL unit. */
#define XRT_IMPL
#include "xrt.h"
