/*
 * output.h — every output of a bundle, one table (outputs.c), in the
 * pattern of routers/registry.c: a row names the format, where it goes (an
 * --export-* option of the measuring commands, a file of the bundle
 * directory, or both) and the function that renders it from the bundle.
 *
 *   name        option          bundle file    render
 *   terminal    -               -              the tables and the summary
 *   markdown    -               report.md      rb_bundle_report_md
 *   html        -               report.html    rb_bundle_report_html
 *   chart-*     -               chart.svg,     rb_bundle_chart_render
 *                               ratio.svg, scaling.svg, cost.svg
 *   json        --export-json   summary.json   rb_bundle_json_write
 *   csv         --export-csv    trials.csv     rb_bundle_csv_write
 *   pair        -               -              pair's speed ratios and gate
 *   junit       --export-junit  -              the gate as JUnit XML
 *   bmf         --export-bmf    -              Bencher Metric Format
 *
 * Adding a format: one file defining `const rb_output rb__output_NAME`
 * (its render function static beside it) and one row in outputs.c; the
 * --export option, the bundle directory and `routebench report DIR` find
 * it there.  A renderer never prints: it appends to an rb_buf, returns 0
 * or a negative status with err set (RB_ENOMEM when the buffer failed).
 */
#ifndef RB_BENCH_OUTPUT_H
#define RB_BENCH_OUTPUT_H

#include "buf.h"
#include "bundle.h"
#include "report.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct rb_output {
    const char *name;   /* "junit" */
    const char *option; /* "--export-junit": written to FILE, or NULL */
    const char *file;   /* "report.md": written into the bundle directory, or NULL */
    const char *help;   /* the option's help line (with option) */
    int (*render)(const rb_bundle *b, rb_buf *out, rb_error *err);
    /* has the bundle anything for it?  NULL: always (a chart without data
     * is not written) */
    bool (*has_data)(const rb_bundle *b);
    bool data; /* summary.json, trials.csv: the data the others are rendered from */
} rb_output;

/* The rows, in the order of the table; NULL past the end. */
size_t rb_output_count(void);
const rb_output *rb_output_at(size_t i);
/* The row named name (or whose option or file is name), or NULL. */
const rb_output *rb_output_find(const char *name);
/* Render row o of b into out (emptied first); a failed buffer is RB_ENOMEM. */
int rb_output_render(const rb_output *o, const rb_bundle *b, rb_buf *out, rb_error *err);

#endif
