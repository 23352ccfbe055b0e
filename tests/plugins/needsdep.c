/* SPDX-License-Identifier: MIT */
/* A plugin that needs a library it will not find at run time
   (tools/plugin.mk links it against a stub left in a folder of its own, which
   no search path names): dlopen fails, and xrt skips it with the loader's
   reason, from XRT_PLUGINS and from a directory of XRT_PLUGIN_PATH alike. */
#include "fixture.h"

int xrt_test_absent(void);

xrt_status xrt_plugin_register(const xrt_plugin_host *host, xrt_backend *t)
{
    (void)host;
    fixture_table(t, "needsdep", fixture_init);
    return xrt_test_absent() ? XRT_SUCCESS : XRT_ERROR_INVALID_VALUE;
}
