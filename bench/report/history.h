/*
 * history.h — `routebench history DIR`: one metric per router and scenario
 * across a directory of saved results (one per commit), the commits where
 * it stepped, and where the results stop being comparable.
 *
 * DIR holds saved results (compare.h): NAME.json files (summary.json
 * documents) and NAME/ bundle directories, taken in the order of their
 * names (scripts/history.sh names them NNN-COMMIT, oldest first).  Each
 * result is labelled with its commit: the build stamp of the plugin
 * library its routers came from (libraries[].commit), else the tool's.
 *
 * Series.  The results are cut into series wherever two consecutive
 * results are not comparable (compare.h's identity: metric, toolchain,
 * fingerprints, ...): a changed workload, harness setting or toolchain
 * starts a new series, named with what changed, instead of being joined to
 * the old one.  Within a series, each (scenario, router name) is one line.
 *
 * Steps (stats/changepoint.h).  Counted metrics: every change between two
 * consecutive commits is a step (identical code counts identically, so a
 * change is never noise), reported with its size, however small.  Time:
 * binary segmentation with Pettitt's rank test at RB_CHANGEPOINT_ALPHA on
 * the per-commit medians; a step's size is the ratio of the medians of the
 * segments on its two sides.
 *
 * Reading is bounded: at most RB_HISTORY_MAX_RESULTS results of at most
 * RB_FILE_RESULT_MAX bytes each (file.h).
 */
#ifndef RB_BENCH_HISTORY_H
#define RB_BENCH_HISTORY_H

#include "buf.h"
#include "bundle.h"

#include <stdbool.h>
#include <stddef.h>

#define RB_HISTORY_MAX_RESULTS 4096

typedef struct rb_history_result {
    char name[256];              /* the entry's name in DIR */
    char commit[RB_BUNDLE_NAME]; /* its label */
    rb_bundle b;
} rb_history_result;

typedef struct rb_history_point {
    size_t result; /* index into results */
    double value;  /* per lookup, in the metric */
    bool step;     /* a step starts here */
    double change; /* at a step: relative change of the value, +0.048 = 4.8% more per lookup */
} rb_history_point;

typedef struct rb_history_series {
    char scenario[RB_BUNDLE_NAME * 2];
    char router[RB_BUNDLE_NAME]; /* the name, without @LIB */
    size_t segment;              /* which run of comparable results */
    rb_history_point *points;
    size_t npoints;
} rb_history_series;

/* A run of comparable results: [first, last]; why: what changed from the
 * run before ("" for the first). */
typedef struct rb_history_segment {
    size_t first, last;
    char why[RB_BUNDLE_TEXT];
} rb_history_segment;

typedef struct rb_history {
    rb_history_result *results;
    size_t nresults;
    rb_history_segment *segments;
    size_t nsegments;
    rb_history_series *series;
    size_t nseries;
} rb_history;

/* Read every saved result of dir, in name order (h initialised here).
 * RB_EIO naming the entry, RB_EINVAL for an empty dir or beyond the
 * limits, RB_ENOMEM. */
int rb_history_load(const char *dir, rb_history *h, rb_error *err);

/* From loaded results: the segments, the series and their steps (exact
 * for counted metrics, else Pettitt at alpha).  RB_ENOMEM. */
int rb_history_analyse(rb_history *h, double alpha, rb_error *err);

void rb_history_free(rb_history *h);

/* The text report: per series and scenario a table (commit by router,
 * steps marked), then the commits flagged and why. */
void rb_history_text(const rb_history *h, rb_buf *out);

/* The chart (history_svg.c): one panel per scenario, a line per router,
 * steps ringed, a dashed rule where a new series starts.  RB_EINVAL
 * "nothing to plot", RB_ENOMEM. */
int rb_history_svg(const rb_history *h, rb_buf *out, rb_error *err);

#endif
