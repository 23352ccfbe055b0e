/* SPDX-License-Identifier: MIT */
/* Start-up cost: xrt_init with every compiled-in backend probed (the listing
   probes all of them), against an empty main measured by the same harness,
   the two run in alternation.
   Target: under 5 ms with every backend enabled and no GPU. */
#define XRT_IMPL
#include "xrt.h"

#include "bench.h"

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs this program in `mode` once and returns its wall time. */
static double run(const char *self, const char *mode)
{
    double t0 = bench_now_ns();
    pid_t pid = fork();
    int status;
    if (pid == 0) {
        execl(self, self, mode, (char *)NULL);
        _exit(127);
    }
    waitpid(pid, &status, 0);
    return (bench_now_ns() - t0) * 1e-6;
}

/* Medians of 21 runs of each mode, the two alternating (and which goes
   first alternating too), after a warm-up run of each. */
static void medians(const char *self, double *empty, double *init)
{
    double e[21], x[21];
    int i;
    run(self, "empty");
    run(self, "init");
    for (i = 0; i < 21; i++) {
        if (i % 2 == 0) e[i] = run(self, "empty");
        x[i] = run(self, "init");
        if (i % 2 == 1) e[i] = run(self, "empty");
    }
    *empty = bench_median(e, 21);
    *init = bench_median(x, 21);
}

int main(int argc, char **argv)
{
    double empty, init;
    if (argc > 1 && strcmp(argv[1], "empty") == 0) return 0;
    if (argc > 1 && strcmp(argv[1], "init") == 0) {
        int n = 0, i;
        xrt_backend_info info;
        xrt_init();
        xrt_backend_count(&n);
        for (i = 0; i < n; i++) xrt_backend_get_info(i, &info);
        return 0;
    }
    char v[64];
    medians(argv[0], &empty, &init);
    printf("empty process   %6.2f ms\nxrt_init + probe %6.2f ms   +%.2f ms over empty: %s\n", empty, init,
           init - empty, bench_target(v, sizeof v, init - empty, 5, 0, " ms", "start-up: xrt_init + probing, over an empty process"));
    return 0;
}
