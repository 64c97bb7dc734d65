/*
 * report_console.h — the terminal's rendering of a bundle, a renderer like
 * report.md, report.html and the charts: the same bundle gives the same
 * text.  Per scenario, its verdict in one line (headline.h), the table
 * (fastest first, references and peers after), then the few details that
 * change a decision on short lines (refusals, auto's pick, wrong answers,
 * peers); the rest (fingerprints, parse time, checksums, the verdict's
 * paragraph) only when verbose.  At the end, the overall line and every
 * warning, once.
 */
#ifndef RB_BENCH_REPORT_CONSOLE_H
#define RB_BENCH_REPORT_CONSOLE_H

#include "bundle.h"

#include <stdbool.h>

typedef struct rb_console_opts {
    bool verbose; /* -v: fingerprints, checksums, the verdict's paragraph */
} rb_console_opts;

/* Scenario si: its line, its table, its details.  A scenario that is
 * another condition of an earlier table (choose's cold latency) is shown
 * with that table, the conditions side by side. */
void rb_console_scenario(const rb_bundle *b, size_t si, const rb_console_opts *o, rb_buf *out);

/* After the scenarios: the geometric means and the overall line when there
 * are several tables, then each warning once. */
void rb_console_summary(const rb_bundle *b, const rb_console_opts *o, rb_buf *out);

/* A ratio cell as the tables show it: "1.234 [1.200, 1.250] ±2.1%" with
 * "~" after the median when the interval includes 1, "1.000 exact", or
 * "1.234 (too few pairs)". */
void rb_console_ratio_cell(const rb_bundle *b, double median, double lo, double hi, double mde,
                           bool too_few, bool excludes_one, char *buf, size_t cap);

#endif
