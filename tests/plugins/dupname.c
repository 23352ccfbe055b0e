/* SPDX-License-Identifier: MIT */
/* A plugin that takes a built-in backend's name: xrt skips it and cpu stays
   the built-in one. */
#include "fixture.h"

xrt_status xrt_plugin_register(const xrt_plugin_host *host, xrt_backend *t)
{
    (void)host;
    fixture_table(t, "cpu", fixture_init);
    return XRT_SUCCESS;
}
