/* SPDX-License-Identifier: MIT */
/* A unit that uses xrt_rdma.h without XRT_IMPL: declarations only, no verbs header. */
#include "xrt_rdma.h"

#ifdef __cplusplus
extern "C"
#endif
int rdma_user(void); /* in user.c: -1 without a device */
int rdma_user(void)
{
    xrt_rdma_device_info info;
    xrt_rdma_reg reg;
    int n = 0;
    if (xrt_rdma_device_count(&n) != XRT_SUCCESS) return -1;
    if (xrt_rdma_device_get_info(0, &info) != XRT_SUCCESS) return -1;
    reg.opaque = 0;
    return xrt_rdma_release(&reg) == XRT_SUCCESS ? n : -1;
}
