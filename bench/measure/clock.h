/*
 * clock.h — the monotonic clock, one helper for every timer of bench/:
 * nanoseconds since an arbitrary start (CLOCK_MONOTONIC), inline because
 * replay.c reads it around each cold lookup.  An includer defines
 * _POSIX_C_SOURCE 200809L (or _GNU_SOURCE) before any header.
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

#endif
