/*
 * perfcount.h — the hardware instruction counter (Linux perf_event_open,
 * PERF_COUNT_HW_INSTRUCTIONS, user space only) for `--metric
 * hw-instructions`: instructions retired by this thread during a trial.
 * Far less noisy than time, but not exact (interrupts, speculation), so it
 * is treated like time: paired trials and intervals.  Virtual machines
 * often expose no hardware counters; opening then fails with RB_EUNSUPPORTED
 * and says why, and callers point at --metric instructions (Callgrind,
 * exact) instead.
 */
#ifndef RB_BENCH_PERFCOUNT_H
#define RB_BENCH_PERFCOUNT_H

#include "router.h"

#include <stdint.h>

typedef struct rb_perf_counter {
    int fd; /* -1: not open */
} rb_perf_counter;

/* Open an enabled counter of this thread's user-space instructions.
 * RB_EUNSUPPORTED (err says what the kernel answered) when there is none. */
int rb_perf_open(rb_perf_counter *c, rb_error *err);
/* The counter's value (0 when it cannot be read). */
uint64_t rb_perf_read(const rb_perf_counter *c);
void rb_perf_close(rb_perf_counter *c);

#endif
