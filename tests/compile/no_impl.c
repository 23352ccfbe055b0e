/* SPDX-License-Identifier: MIT */
/* A program that includes xrt.h but has no XRT_IMPL unit: its link must fail
   with a symbol whose name says what to do. */
#include "xrt.h"

int main(void)
{
    void *p = NULL;
    xrt_status st = xrt_malloc(&p, 16);
    xrt_free(p);
    return st == XRT_SUCCESS ? 0 : 1;
}
