/* SPDX-License-Identifier: MIT */
/* The kernel's arguments, packed as one buffer: the same layout serves the
   CPU kernel (it casts its `args`) and the GPU kernel (its parameters, each
   at its natural alignment: a at 0, x at 8, y at 16, n at 24). */
#ifndef SAXPY_ARGS_H
#define SAXPY_ARGS_H
typedef struct saxpy_args {
    float a;
    const float *x;
    float *y;
    unsigned n;
} saxpy_args;
#endif
