/*
 * clock.h — the clocks, one helper each for every timer of bench/: the
 * monotonic clock (nanoseconds since an arbitrary start, CLOCK_MONOTONIC)
 * and the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID), inline
 * because replay.c reads the first around each cold lookup.  An includer
 * defines _POSIX_C_SOURCE 200809L (or _GNU_SOURCE) before any header.
 */
#ifndef RB_BENCH_CLOCK_H
#define RB_BENCH_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t rb__monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

/* 0 when the system has no such clock. */
static inline uint64_t rb__thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
    return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

#endif
