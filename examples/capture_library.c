/* SPDX-License-Identifier: MIT */
/* capture_library: how a library (a communication library, say) adds its
   own work to a caller's stream whether or not the caller is capturing it
   into a CUDA graph, as NCCL does. The library's call lib_stamp(stream)
   stamps a counter it owns after the work already on the stream:
   - eagerly, as a host function;
   - in a capture, as a host node it adds to the capture's graph after the
     stream's current dependencies (xrt_stream_get_capture_info_v2), which
     the stream then follows (xrt_stream_update_capture_dependencies); the
     counter's state is tied to the graph by a user object, so the library
     frees it when the last graph or exec that can still run it is gone.
   The application captures a stream that calls the library between two
   memsets, launches the graph a few times, destroys it, and checks each
   stamp and that the library's state was freed. A backend that does not
   name a capture's graph says so and exits 1. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#define XRT_IMPL
#include "xrt.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        if ((call) != XRT_SUCCESS) {                                                  \
            fprintf(stderr, "capture_library: %s\n", xrt_get_last_error_string());    \
            return 1;                                                                 \
        }                                                                             \
    } while (0)

/* >> the library */
typedef struct lib_state { const unsigned char *seen; int stamps, wrong; } lib_state;
static int lib_freed; /* the destroys run: the application checks it */

static void lib_stamp_fn(void *user)
{
    lib_state *st = (lib_state *)user;
    st->stamps++;
    st->wrong += *st->seen != 1; /* ordered after the caller's first memset */
}

static void lib_state_free(void *user)
{
    free(user);
    __atomic_add_fetch(&lib_freed, 1, __ATOMIC_RELEASE);
}

/* Stamps its counter after the stream's work. Eagerly the state goes once
   the stamp is made; the state a graph needs is the graph's (*out: the
   state, to read its stamps while it lives). */
static xrt_status lib_stamp(xrt_stream s, const unsigned char *seen, lib_state **out)
{
    xrt_capture_status cs;
    xrt_graph g;
    const xrt_graph_node *deps;
    size_t n;
    xrt_graph_node node;
    xrt_user_object o;
    xrt_host_node_params p;
    xrt_status st;
    lib_state *state = (lib_state *)calloc(1, sizeof *state);
    if (!state) return XRT_ERROR_OUT_OF_MEMORY;
    state->seen = seen;
    *out = state;
    if ((st = xrt_stream_get_capture_info_v2(s, &cs, NULL, &g, &deps, &n)) != XRT_SUCCESS) return st;
    if (cs != XRT_CAPTURE_STATUS_ACTIVE) { /* eager */
        if ((st = xrt_launch_host_func(s, lib_stamp_fn, state)) != XRT_SUCCESS) return st;
        return xrt_launch_host_func(s, lib_state_free, state);
    }
    p.fn = lib_stamp_fn;
    p.user = state;
    if ((st = xrt_graph_add_host_node(&node, g, deps, n, &p)) != XRT_SUCCESS ||
        (st = xrt_stream_update_capture_dependencies(s, &node, 1, XRT_STREAM_SET_CAPTURE_DEPENDENCIES)) != XRT_SUCCESS ||
        (st = xrt_user_object_create(&o, state, lib_state_free, 1, XRT_USER_OBJECT_NO_DESTRUCTOR_SYNC)) != XRT_SUCCESS)
        return st;
    return xrt_graph_retain_user_object(g, o, 1, XRT_GRAPH_USER_OBJECT_MOVE); /* the graph's from now on */
}

/* >> the application */
enum { BYTES = 4096, LAUNCHES = 3 };

/* Waits up to 10 s for n destroys (a GPU runtime runs them on its own thread). */
static int freed(int n)
{
    struct timespec ms = {0, 1000000};
    int i;
    for (i = 0; i < 10000 && __atomic_load_n(&lib_freed, __ATOMIC_ACQUIRE) < n; i++) nanosleep(&ms, NULL);
    return __atomic_load_n(&lib_freed, __ATOMIC_ACQUIRE) == n;
}

int main(void)
{
    const char *backend = "?";
    xrt_stream s;
    xrt_graph g;
    xrt_graph_exec x;
    unsigned char *d, *h;
    lib_state *state = NULL;
    int i, ok;
    xrt_status st;
    CHECK(xrt_get_backend(&backend));
    CHECK(xrt_stream_create_with_flags(&s, XRT_STREAM_NON_BLOCKING));
    CHECK(xrt_malloc((void **)&d, BYTES));
    CHECK(xrt_malloc_host((void **)&h, BYTES));
    h[0] = 1;
    CHECK(lib_stamp(s, h, &state)); /* eagerly: stamped, then freed */
    CHECK(xrt_stream_synchronize(s));
    ok = freed(1);
    CHECK(xrt_stream_begin_capture(s, XRT_CAPTURE_MODE_GLOBAL));
    CHECK(xrt_memset_async(d, 1, BYTES, s));
    CHECK(xrt_memcpy_async(h, d, 1, XRT_MEMCPY_DEVICE_TO_HOST, s));
    st = lib_stamp(s, h, &state); /* the library's node, after the copy */
    if (st != XRT_SUCCESS) {
        fprintf(stderr, "capture_library: on %s: %s\n", backend, xrt_get_last_error_string());
        xrt_stream_end_capture(s, &g);
        return 1;
    }
    CHECK(xrt_memset_async(d, 2, BYTES, s)); /* after the library's node */
    CHECK(xrt_stream_end_capture(s, &g));
    CHECK(xrt_graph_instantiate(&x, g));
    CHECK(xrt_graph_destroy(g)); /* the exec holds the library's state now */
    for (i = 0; i < LAUNCHES; i++) CHECK(xrt_graph_launch(x, s));
    CHECK(xrt_stream_synchronize(s));
    CHECK(xrt_memcpy(h + 1, d, 1, XRT_MEMCPY_DEVICE_TO_HOST));
    printf("on %s: %d launches, the library stamped %d times, %d out of order; the last set left %d\n", backend,
           LAUNCHES, state->stamps, state->wrong, h[1]);
    ok = ok && state->stamps == LAUNCHES && !state->wrong && h[1] == 2 && lib_freed == 1;
    CHECK(xrt_graph_exec_destroy(x));
    ok = ok && freed(2); /* state is freed: not read again */
    CHECK(xrt_stream_destroy(s));
    CHECK(xrt_free(d));
    CHECK(xrt_free_host(h));
    printf("%s\n", ok ? "each stamp verified; the library's state was freed with the last exec"
                      : "FAILED: a stamp was missing or out of order, or the state was not freed once");
    xrt_shutdown();
    return ok ? 0 : 1;
}
