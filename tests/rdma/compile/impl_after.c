/* SPDX-License-Identifier: MIT */
/* The XRT_IMPL unit with xrt.h first, xrt_rdma.h after: the documented
   order (xrt.h does not include xrt_rdma.h). */
#define XRT_IMPL
#define XRT_ENABLE_RDMA
#include "xrt.h"
#include "xrt_rdma.h"

#ifdef __cplusplus
extern "C"
#endif
int rdma_user(void); /* in user.c: -1 without a device */

int main(void)
{
    int n = rdma_user();
    xrt_shutdown();
    return n >= -1 ? 0 : 1;
}
