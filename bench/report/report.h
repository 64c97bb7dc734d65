/*
 * report.h — the renderers of a bundle that bench/report/ defines, and the
 * bundle directory: report.md (report_md.c, report_md_sections.c), the
 * SVG charts (chart_svg.c), and the directory written whole
 * (bundle_dir.c).  report.html and the terminal have headers of their own
 * (report_html.h, report_console.h); every output is a row of the table in
 * output.h.
 */
#ifndef RB_BENCH_REPORT_H
#define RB_BENCH_REPORT_H

#include "bundle.h"

#include <stdbool.h>
#include <stddef.h>

/* report.md text (report_md.c). */
int rb_bundle_report_md(const rb_bundle *b, rb_buf *out, rb_error *err);
/* Its parts for counted metrics, the gate and the libraries (report_md_sections.c). */
void rb_bundle_report_how_counted(const rb_bundle *b, rb_buf *o);
void rb_bundle_report_counted_table(const rb_bundle *b, const rb_bundle_scenario *s, rb_buf *o);
/* After a scenario's table (never inside it: a paragraph would end the
 * table), a line per router that disagreed with the expected answers. */
void rb_bundle_report_disagreements(const rb_bundle *b, const rb_bundle_scenario *s, rb_buf *o);
void rb_bundle_report_gate(const rb_bundle *b, rb_buf *o);
/* The peers' verdict per language, and a scenario's compatibility table
 * (report_md_compat.c, from ecosystem.h). */
void rb_bundle_report_ecosystems(const rb_bundle *b, rb_buf *o);
void rb_bundle_report_compat(const rb_bundle *b, size_t si, rb_buf *o);
void rb_bundle_report_libraries(const rb_bundle *b, rb_buf *o);
/* An interval cell: "[0.981, 1.012] ±1.4%", "too few pairs" or "exact". */
void rb_bundle_interval_cell(const rb_bundle *b, double lo, double hi, double mde, int too_few,
                             char *buf, size_t cap);

/* The charts (chart_svg.c), in the order report.md shows them. */
typedef enum rb_bundle_chart {
    RB_CHART_NS,      /* chart.svg: ns per lookup, every router in every scenario */
    RB_CHART_RATIO,   /* ratio.svg: paired speed ratios with their intervals */
    RB_CHART_SCALING, /* scaling.svg: ns per lookup against route count, per shape */
    RB_CHART_COST,    /* cost.svg: bytes per route and build time */
    RB_NCHARTS
} rb_bundle_chart;

/* "chart.svg", ...; the alternative text report.md gives it. */
const char *rb_bundle_chart_file(rb_bundle_chart c);
const char *rb_bundle_chart_alt(rb_bundle_chart c);
/* Does the bundle give chart c anything to plot?  A chart without data is
 * not written (and not linked from report.md). */
bool rb_bundle_chart_has_data(const rb_bundle *b, rb_bundle_chart c);
/* Chart c's SVG text into out; RB_EINVAL "nothing to plot" when it has no
 * data, RB_ENOMEM. */
int rb_bundle_chart_render(const rb_bundle *b, rb_bundle_chart c, rb_buf *out, rb_error *err);
/* A router's colour, the same in every chart of every bundle ("#d62728"). */
const char *rb_bundle_router_colour(const char *router);

/* Before a run measures anything: create dir's parents, clean up what a
 * killed writer of dir left (bundle_dir.c), check that dir may be replaced
 * (missing, empty, or a bundle: only .json, .csv, .md, .svg, .html,
 * .routes and .requests files, summary.json among them; never the current
 * directory or one holding it)
 * and that a directory can be made beside it.  RB_EIO naming the reason,
 * RB_EINVAL for a bad name. */
int rb_bundle_prepare_dir(const char *dir, rb_error *err);
/* Write the bundle whole: summary.json, trials.csv, a copy of each of the
 * ninputs files (the tables measured, so its fingerprints name files that
 * exist), report.md, report.html and every chart with something to plot
 * (rendered from the two data files' text) into a temporary directory
 * beside dir, which then replaces dir in one step (base/file.h).  On
 * failure dir is as it was. */
int rb_bundle_write_dir(const rb_bundle *b, const char *dir, const char *const *inputs,
                        size_t ninputs, rb_error *err);
/* Read dir/summary.json and dir/trials.csv and replace dir, whole, with a
 * copy holding the same data files (and any other file of dir but the
 * rendered ones), report.md, report.html and every chart with something to
 * plot; a chart with nothing to plot is not written (an old copy of it
 * goes), so report.md links only files that exist.  A regular file that is
 * not a bundle's kind (a user's PNG) is kept as it is and named into kept
 * (comma-separated, "" when none); a subdirectory is refused. */
int rb_bundle_render_dir(const char *dir, char *kept, size_t kept_cap, rb_error *err);
/* Read a bundle directory (summary.json + trials.csv) into b. */
int rb_bundle_read_dir(const char *dir, rb_bundle *b, rb_error *err);

#endif
