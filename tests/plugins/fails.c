/* SPDX-License-Identifier: MIT */
/* A plugin whose registration fails with a reason: xrt skips it and keeps
   the reason. */
#include "fixture.h"

xrt_status xrt_plugin_register(const xrt_plugin_host *host, xrt_backend *t)
{
    (void)t;
    return host->error(XRT_ERROR_NO_DEVICE, "fails", "no widget at %s", "/dev/widget0");
}
