/* SPDX-License-Identifier: MIT */
/* A plugin built against the table before graph_instantiate_with_flags,
   graph_upload, event_record_with_flags and stream_wait_event_with_flags
   were appended: its size ends before them. It forwards every operation it
   knows to the cpu backend; the slots past its size hold a function that
   aborts, which xrt must never call (it reads no slot past `size`). */
#define _POSIX_C_SOURCE 200809L
#include "fixture.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const xrt_plugin_host *host;
static const xrt_backend *inner;

static const xrt_backend *target(const xrt_backend *self)
{
    (void)self;
    return inner;
}

XRT_DEFINE_FORWARDERS(target);

static xrt_status oldtable_init(const xrt_backend *self, char *reason, size_t n)
{
    inner = host->find_backend("cpu");
    if (!inner) snprintf(reason, n, "the cpu backend is unavailable");
    return inner ? host->wraps(self, inner) : XRT_ERROR_BACKEND_UNAVAILABLE;
}

static xrt_status beyond_the_table(void) { abort(); }

xrt_status xrt_plugin_register(const xrt_plugin_host *h, xrt_backend *t)
{
    xrt_status (*never)(void) = beyond_the_table;
    host = h;
    xrt_forward_fill(t);
    fixture_table(t, "oldtable", oldtable_init);
    t->size = (uint32_t)offsetof(xrt_backend, graph_instantiate_with_flags);
    memcpy(&t->graph_instantiate_with_flags, &never, sizeof never);
    memcpy(&t->graph_upload, &never, sizeof never);
    memcpy(&t->event_record_with_flags, &never, sizeof never);
    memcpy(&t->stream_wait_event_with_flags, &never, sizeof never);
    memcpy(&t->device_set_limit, &never, sizeof never);
    memcpy(&t->device_get_limit, &never, sizeof never);
    memcpy(&t->device_get_p2p_attribute, &never, sizeof never);
    memcpy(&t->mem_pool_set_access, &never, sizeof never);
    memcpy(&t->mem_pool_get_access, &never, sizeof never);
    return XRT_SUCCESS;
}
