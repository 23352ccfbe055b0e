/* SPDX-License-Identifier: MIT */
/* A plugin built against a later xrt whose backend table is larger: it
   fills the whole of its table before xrt can see the ABI version. xrt must
   give it room and skip it (ABI mismatch), writing nothing past its own. */
#include "fixture.h"

#include <string.h>

enum { LATER_EXTRA = 8 * sizeof(xrt_backend) };
typedef struct later_backend {
    xrt_backend t;
    unsigned char added[LATER_EXTRA]; /* the operations a later ABI added */
} later_backend;

xrt_status xrt_plugin_register(const xrt_plugin_host *host, xrt_backend *t)
{
    later_backend *later = (later_backend *)(void *)t;
    (void)host;
    memset(later->added, 0xab, sizeof later->added);
    fixture_table(&later->t, "bigtable", fixture_init);
    later->t.abi_version = XRT_BACKEND_ABI_VERSION + 1;
    later->t.size = (uint32_t)sizeof *later;
    return XRT_SUCCESS;
}
