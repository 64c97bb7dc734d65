/*
 * sysinfo.h — facts about the build and the machine that travel with every
 * bundle (the machine's probed by machine.h) (docs/design.md: workload, hardware, protocol), and the warnings that
 * say when a measurement should not be trusted: an unoptimised build,
 * sanitizers, a busy machine.
 */
#ifndef RB_BENCH_SYSINFO_H
#define RB_BENCH_SYSINFO_H

#include "bundle.h"

/* Fill the tool, compiler, machine and date fields of b (version, commit,
 * compiler, flags, build_type, optimized, sanitized, cpu_model, cores,
 * kernel, governor, loadavg_start, date).  Unreadable facts become
 * "unknown" (governor: "", load average: -1). */
void rb_sysinfo_fill(rb_bundle *b);

/* Only the tool fields: version, commit, compiler, flags, build_type,
 * optimized, sanitized (what `routebench --version` prints). */
void rb_sysinfo_tool(rb_bundle *b);

/* The most 1-minute load average a quiet machine has, per core, at the
 * start and at the end of a run (the end's includes the run's own, about
 * 1): 1.5 on 2 cores.  The same rule refuses a results page
 * (scripts/quiet.sh; docs/measurement.md "Busy machines"). */
#define RB_QUIET_LOAD_PER_CORE 0.75

/* Append the warnings that b's facts call for (unoptimised build,
 * sanitizers, busy machine at start or end: over RB_QUIET_LOAD_PER_CORE).  Call after loadavg_end is
 * set, or before with it at -1. */
int rb_sysinfo_warnings(rb_bundle *b);

#endif
