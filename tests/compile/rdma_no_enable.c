/* SPDX-License-Identifier: MIT */
/* A build mistake: xrt_rdma.h in the XRT_IMPL unit without XRT_ENABLE_RDMA
   (it would compile, then fail to link: no xrt_rdma_* in the program). */
#define XRT_IMPL
#include "xrt.h"
#include "xrt_rdma.h"

int main(void)
{
    xrt_rdma_ctx ctx;
    return xrt_rdma_open(&ctx, NULL) == XRT_SUCCESS;
}
