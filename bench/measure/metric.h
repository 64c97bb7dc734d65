/*
 * metric.h — what a measurement counts per lookup (`--metric`):
 *
 *   time             ns per lookup on the protocol's clock (wall or thread
 *                    CPU time): paired trials, intervals, minimum
 *                    detectable effect.  The default.
 *   instructions     instructions executed per lookup, counted by Callgrind
 *                    (bench/measure/callgrind.h): exact and repeatable, one replay
 *                    decides, ratios are exact.
 *   cycles-est       Callgrind with its cache simulation: L1 hits + 5 x
 *                    last-level hits + 35 x memory accesses per lookup
 *                    (bench/measure/callgrind.h has the formula); exact like
 *                    instructions, the raw counts are kept beside it.
 *   hw-instructions  instructions retired, read from the hardware counter
 *                    (bench/measure/perfcount.h) around each trial: close to exact
 *                    but not quite, so treated like time.
 *
 * Names and units are used in tables, summary.json keys
 * (`median_<key>`) and the value column of trials.csv.
 */
#ifndef RB_BENCH_METRIC_H
#define RB_BENCH_METRIC_H

#include <stdbool.h>
#include <stddef.h>

typedef enum rb_metric {
    RB_METRIC_TIME = 0,
    RB_METRIC_INSTRUCTIONS = 1,
    RB_METRIC_CYCLES_EST = 2,
    RB_METRIC_HW_INSTRUCTIONS = 3,
} rb_metric;

#define RB_METRIC_COUNT 4

/* The metric named name ("time", "instructions", "cycles-est",
 * "hw-instructions"), or -1. */
int rb_metric_parse(const char *name);
/* Its name, as above ("time" for an unknown value). */
const char *rb_metric_name(int metric);
/* The unit of one lookup's value in tables: "ns", "instructions",
 * "est. cycles", "hw instructions". */
const char *rb_metric_unit(int metric);
/* The key in summary.json and trials.csv: "ns", "instructions",
 * "cycles_est", "hw_instructions". */
const char *rb_metric_key(int metric);
/* Counted by Callgrind: deterministic, one replay, exact ratios. */
bool rb_metric_exact(int metric);

#endif
