/* SPDX-License-Identifier: MIT */
/* tests/test_handles.c where membarrier(2) is missing or refused (old
   kernels, seccomp sandboxes): xrt's fallback, in which every call fences,
   forced by a private switch for this test only. The same tests must pass:
   destroys racing with use, two destroys of one handle, and no destroy
   waiting for a thread that is in no call. */
#define XRT__TEST_NO_MEMBARRIER 1
#define XRT_TEST_HANDLES_GROUP "handles without membarrier"
#define XRT_IMPL /* white-box: the fence fallback, forced */
#include "test_handles.c"
