/* SPDX-License-Identifier: MIT */
/* Compile cost of xrt.h: a unit that includes xrt.h (without XRT_IMPL)
   against an empty unit, compiled to an object with the same compiler and
   flags, alternating, medians of REPS compilations. The figure is the CPU
   time (user + system) of the compiler and the processes it runs, from
   wait4: unlike wall time, it leaves out the waits for a core, though not
   the slower cores of a busy machine (on the shared 2-core VM, 10-20% more
   at load 8 than at load 1). Target: at most 20 ms extra. Run from the
   repository root; CC and CXX name the compilers (default cc and c++),
   clang is added when present. */
#define _GNU_SOURCE
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define REPS 15
#define MAX_ARGS 16

static char dir[] = "/tmp/xrt-compile-XXXXXX";

static void write_file(const char *name, const char *text)
{
    char path[128];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!(f = fopen(path, "w")) || fputs(text, f) < 0 || fclose(f)) {
        perror(path);
        exit(1);
    }
}

/* CPU milliseconds of one compilation of `unit`, or -1 if it failed. */
static double compile_ms(char *const *flags, const char *unit, int with_include)
{
    char *argv[MAX_ARGS + 8], src[128], obj[128];
    int n = 0, status;
    struct rusage ru;
    pid_t pid;
    snprintf(src, sizeof src, "%s/%s", dir, unit);
    snprintf(obj, sizeof obj, "%s/out.o", dir);
    while (flags[n] && n < MAX_ARGS) argv[n] = flags[n], n++;
    if (with_include) argv[n++] = "-I.";
    argv[n++] = "-c", argv[n++] = "-o", argv[n++] = obj, argv[n++] = src, argv[n] = NULL;
    if ((pid = fork()) == 0) {
        execvp(argv[0], argv);
        _exit(127);
    }
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
    return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

/* One line: empty unit, xrt.h unit, the difference. */
static void row(const char *name, char *const *flags, const char *ext)
{
    double e[REPS], x[REPS];
    char empty[16], with[16], v[48];
    int r;
    snprintf(empty, sizeof empty, "empty.%s", ext);
    snprintf(with, sizeof with, "xrt.%s", ext);
    for (r = 0; r < REPS; r++) {
        e[r] = compile_ms(flags, empty, 0);
        x[r] = compile_ms(flags, with, 1);
        if (e[r] < 0 || x[r] < 0) {
            printf("%-26s skipped: %s failed or is not installed\n", name, flags[0]);
            return;
        }
    }
    e[0] = bench_median(e, REPS);
    x[0] = bench_median(x, REPS);
    printf("%-26s %8.1f %8.1f %+8.1f   %s\n", name, e[0], x[0], x[0] - e[0],
           bench_target(v, sizeof v, x[0] - e[0], 20, 0, " ms", "compile cost of xrt.h: %s", name));
}

int main(void)
{
    char *cc = getenv("CC") && *getenv("CC") ? getenv("CC") : "cc";
    char *cxx = getenv("CXX") && *getenv("CXX") ? getenv("CXX") : "c++";
    char *c_o2[] = {cc, "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-pedantic", NULL};
    char *c_o0[] = {cc, "-std=c11", "-O0", "-g", NULL};
    char *cxx_o2[] = {cxx, "-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror", NULL};
    char *clang_o2[] = {"clang", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-pedantic", NULL};
    char name[64];
    if (access("xrt.h", R_OK) != 0 || !mkdtemp(dir)) {
        fprintf(stderr, "compile_cost: run it from the repository root (needs ./xrt.h and /tmp)\n");
        return 1;
    }
    write_file("empty.c", "int xrt_bench_unit(void) { return 0; }\n");
    write_file("empty.cpp", "int xrt_bench_unit(void) { return 0; }\n");
    write_file("xrt.c", "#include \"xrt.h\"\nint xrt_bench_unit(void) { return 0; }\n");
    write_file("xrt.cpp", "#include \"xrt.h\"\nint xrt_bench_unit(void) { return 0; }\n");
    printf("compile cost of #include \"xrt.h\" (no XRT_IMPL): CPU ms of the compiler, medians of %d\n", REPS);
    printf("%-26s %8s %8s %8s\n", "compiler, flags", "empty", "xrt.h", "extra");
    snprintf(name, sizeof name, "%s -std=c11 -O2", cc);
    row(name, c_o2, "c");
    snprintf(name, sizeof name, "%s -std=c11 -O0 -g", cc);
    row(name, c_o0, "c");
    snprintf(name, sizeof name, "%s -std=c++17 -O2", cxx);
    row(name, cxx_o2, "cpp");
    row("clang -std=c11 -O2", clang_o2, "c");
    if (fork() == 0) execlp("rm", "rm", "-rf", dir, (char *)NULL), _exit(1);
    wait(NULL);
    return 0;
}
