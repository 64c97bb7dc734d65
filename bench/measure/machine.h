/*
 * machine.h — probes of the machine a measurement runs on: what the
 * harness, the HTTP lab and a bundle's facts ask of Linux.  Knows no
 * bundle.
 */
#ifndef RB_BENCH_MACHINE_H
#define RB_BENCH_MACHINE_H

#include "base.h"

#include <stddef.h>
#include <stdint.h>

/* The CPU model of /proc/cpuinfo ("unknown" when unreadable). */
void rb_machine_cpu_model(char *buf, size_t cap);

/* The frequency governor of CPU 0 ("" when unreadable). */
void rb_machine_governor(char *buf, size_t cap);

/* The 1-minute load average, or -1 when unreadable. */
double rb_machine_loadavg(void);

/* Pin the calling thread to one CPU (sched_setaffinity).  RB_EINVAL with a
 * message when the CPU does not exist or the call is refused. */
int rb_machine_pin_cpu(int cpu, rb_error *err);

/* Peak resident memory of this process (VmHWM of /proc/self/status),
 * bytes; -1 when unknown. */
int64_t rb_machine_rss_peak(void);
/* Reset the peak to the current resident size (writes "5" to
 * /proc/self/clear_refs, Linux 4.0+) and return that size (VmRSS) in
 * bytes; -1 when the peak cannot be reset (then a later rb_machine_rss_peak
 * would not measure growth from here). */
int64_t rb_machine_rss_peak_reset(void);

#endif
