/* SPDX-License-Identifier: MIT */
/* The CPU backend's fast paths make no system call: enqueue while the worker
   is busy, query of a finished stream, record of an event on an idle stream,
   query of a completed event. Run under strace by tests/fastpath.sh: the
   markers getppid()..getpgrp() bracket the region, which must hold no other
   system call of any thread. Before each region the workers are made to be
   either running (past their start-up) or asleep, so that only the calls
   under test can make a system call there. */
#define XRT_IMPL
#define XRT_ENABLE_CPU
#include "xrt.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

static int gate, holding;

static void hold(void *user)
{
    (void)user;
    __atomic_store_n(&holding, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&gate, __ATOMIC_ACQUIRE)) { /* spin: a busy worker, no syscall */
    }
}

/* Idle workers spin for well under a millisecond, then sleep: let them. */
static void let_idle_workers_sleep(void)
{
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

static void nop(void *user) { (void)user; }

int main(void)
{
    xrt_stream s;
    xrt_event e;
    int i, bad = 0;
    if (xrt_stream_create(&s) || xrt_event_create(&e, XRT_EVENT_DEFAULT) || xrt_launch_host_func(s, hold, NULL))
        return 2;
    while (!__atomic_load_n(&holding, __ATOMIC_ACQUIRE)) { /* the worker is up and busy */
    }
    let_idle_workers_sleep(); /* the default stream's worker */
    getppid(); /* marker: region starts */
    for (i = 0; i < 500; i++) bad |= xrt_launch_host_func(s, nop, NULL) != XRT_SUCCESS;
    getpgrp(); /* marker: region ends */
    __atomic_store_n(&gate, 1, __ATOMIC_RELEASE);
    if (xrt_stream_synchronize(s)) return 2;
    let_idle_workers_sleep();
    getppid();
    for (i = 0; i < 1000; i++) {
        bad |= xrt_stream_query(s) != XRT_SUCCESS;
        bad |= xrt_event_record(e, s) != XRT_SUCCESS;
        bad |= xrt_event_query(e) != XRT_SUCCESS;
    }
    getpgrp();
    xrt_event_destroy(e);
    xrt_stream_destroy(s);
    xrt_shutdown();
    printf("%s\n", bad ? "calls failed" : "calls ok");
    return bad;
}
