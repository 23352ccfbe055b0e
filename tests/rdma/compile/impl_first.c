/* SPDX-License-Identifier: MIT */
/* The XRT_IMPL unit with xrt_rdma.h included first (it includes xrt.h). */
#define XRT_IMPL
#define XRT_ENABLE_RDMA
#include "xrt_rdma.h"
#include "xrt.h"

int main(void)
{
    int n = -1;
    xrt_status st = xrt_rdma_device_count(&n);
    xrt_shutdown();
    /* no device (any machine without RDMA) or a device: both are answers */
    return (st == XRT_SUCCESS && n > 0) || (st == XRT_ERROR_NO_DEVICE && n == 0) ? 0 : 1;
}
