/*
 * suite_estimate.h — a session before its work: how many passes, how long
 * each will take by the model of measure/estimate.h (the tables' sizes
 * read from the files, without parsing them), and which tables make the
 * reference router `linear` slow.  Nothing here prints.
 */
#ifndef RB_BENCH_SUITE_ESTIMATE_H
#define RB_BENCH_SUITE_ESTIMATE_H

#include "estimate.h"
#include "suite.h"

#include <stdbool.h>
#include <stddef.h>

/* linear tries every route on each lookup: tables from this size on are
 * named in the warning. */
#define RB_SUITE_LINEAR_WARN_ROUTES 10000

/* Where a session's metric is measured: here, or in a child of Callgrind
 * (the counted metrics, unless this is that child).  An error when the
 * metric cannot be had: no hardware counter for hw-instructions, or a
 * counted metric under Valgrind already. */
enum { RB_SUITE_METRIC_HERE = 0, RB_SUITE_METRIC_CALLGRIND = 1 };
int rb_suite_metric_where(int metric, rb_error *err);

/* The share of a core this process gets now: its CPU time over the wall
 * time of a 20 ms busy loop (1 on an idle machine, 0.1 under a load of 20
 * on 2 cores), from 0.02 to 1: the estimate's cpu_share. */
double rb_suite_cpu_share(void);

/* The passes of s: every scenario under each of its conditions. */
size_t rb_suite_passes(const rb_suite *s);

/* The model's seconds of the pass over scenario i (cold: the cold
 * condition) with cpu_share of a core; its parts into parts (may be NULL). */
double rb_suite_pass_estimate(const rb_suite *s, size_t i, bool cold, double cpu_share,
                              rb_estimate_parts *parts);

/* The whole session's seconds, every pass. */
double rb_suite_estimate(const rb_suite *s, double cpu_share);

/* When linear is among the routers: the scenarios of
 * RB_SUITE_LINEAR_WARN_ROUTES routes or more, comma-separated into tables,
 * and the other routers' labels, comma-separated into others.  Returns how
 * many scenarios (0: nothing to say; also without linear). */
size_t rb_suite_linear_slow(const rb_suite *s, char *tables, size_t tables_cap, char *others,
                            size_t others_cap);

#endif
