/* SPDX-License-Identifier: MIT */
/* A plugin built against another backend ABI: xrt skips it (ABI mismatch). */
#include "fixture.h"

xrt_status xrt_plugin_register(const xrt_plugin_host *host, xrt_backend *t)
{
    (void)host;
    fixture_table(t, "badabi", fixture_init);
    t->abi_version = XRT_BACKEND_ABI_VERSION + 1;
    return XRT_SUCCESS;
}
