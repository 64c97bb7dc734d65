/*
 * sysinfo.h — facts about the build and the machine that travel with every
 * result (docs/design.md: workload, hardware, protocol), and the warnings that
 * say when a measurement should not be trusted: an unoptimised build,
 * sanitizers, a busy machine.
 */
#ifndef RB_BENCH_SYSINFO_H
#define RB_BENCH_SYSINFO_H

#include "bundle.h"

#include <stdint.h>

/* Fill the tool, compiler, machine and date fields of b (version, commit,
 * compiler, flags, build_type, optimized, sanitized, cpu_model, cores,
 * kernel, governor, loadavg_start, date).  Unreadable facts become
 * "unknown" (governor: "", load average: -1). */
void rb_sysinfo_fill(rb_bundle *b);

/* Only the tool fields: version, commit, compiler, flags, build_type,
 * optimized, sanitized (what `routebench --version` prints). */
void rb_sysinfo_tool(rb_bundle *b);

/* The 1-minute load average, or -1 when unreadable. */
double rb_sysinfo_loadavg(void);

/* Pin the calling thread to one CPU (sched_setaffinity).  RB_EINVAL with a
 * message when the CPU does not exist or the call is refused. */
int rb_sysinfo_pin_cpu(int cpu, rb_error *err);

/* Append the warnings that b's facts call for (unoptimised build,
 * sanitizers, busy machine at start or end).  Call after loadavg_end is
 * set, or before with it at -1. */
int rb_sysinfo_warnings(rb_bundle *b);

/* Peak resident memory of this process (VmHWM of /proc/self/status),
 * bytes; -1 when unknown. */
int64_t rb_sysinfo_rss_peak(void);
/* Reset the peak to the current resident size (writes "5" to
 * /proc/self/clear_refs, Linux 4.0+) and return that size (VmRSS) in
 * bytes; -1 when the peak cannot be reset (then a later rb_sysinfo_rss_peak
 * would not measure growth from here). */
int64_t rb_sysinfo_rss_peak_reset(void);

#endif
