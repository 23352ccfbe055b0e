/* SPDX-License-Identifier: MIT */
/* A library shaped as one that embeds xrt (tests/test_library.c is its
   application): it keeps its own backend and device, and every entry runs its
   xrt calls there between xrt_push_backend and xrt_pop_backend, so that the
   caller's thread sees its own backend and device afterwards. lib_nested is a
   library inside the library: it pushes the inner library's backend while the
   outer one's is pushed. */
#ifndef XRT_TEST_LIBRARY_H
#define XRT_TEST_LIBRARY_H

#include "xrt.h"

#include <stddef.h>

/* Takes the backend `name` and its device for the library's calls. */
xrt_status lib_open(const char *name, int device);
/* Fills n bytes of the library's device memory with value and copies them to
   out, on the library's backend; *seen: the backend it ran on. */
xrt_status lib_fill(unsigned char *out, size_t n, int value, const char **seen);
/* lib_fill's copy through an inner library on backend `inner` (device
   inner_device), the outer one's backend pushed around it; *seen_outer: the
   outer backend after the inner one popped. */
xrt_status lib_nested(xrt_backend_handle inner, int inner_device, unsigned char *out, size_t n, int value,
                      const char **seen_outer);
/* The handle lib_open took. */
xrt_backend_handle lib_handle(void);

#endif
