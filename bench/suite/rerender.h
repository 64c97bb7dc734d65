/*
 * rerender.h — `routebench report DIR`: a bundle rendered again from its
 * data.  Leftovers of a killed writer of DIR are undone first, the bundle
 * is read, every statistic of summary.json is recomputed from trials.csv
 * and the gate decided again (bundle/bundle_check.h); only when both agree
 * are report.md and the charts rendered again (report/report.h).  What
 * disagrees is told as text.  Nothing here prints.
 */
#ifndef RB_BENCH_RERENDER_H
#define RB_BENCH_RERENDER_H

#include "buf.h"
#include "bundle.h"
#include "bundle_check.h"

#include <stdbool.h>

typedef struct rb_rerender {
    rb_bundle b;             /* as read (its gate decided again) */
    rb_bundle_recheck rep;   /* the statistics recomputed */
    rb_bundle_gate recorded; /* the gate summary.json records */
    char kept[1024];         /* files of DIR left as they were (not the bundle's) */
} rb_rerender;

/* The outcomes of rb_rerender_dir besides an error. */
enum {
    RB_RERENDER_DONE = 0,         /* rendered again */
    RB_RERENDER_STATS_DIFFER = 1, /* summary.json disagrees with trials.csv: nothing written */
    RB_RERENDER_GATE_DIFFERS = 2, /* the gate decided again is another: nothing written */
};

/* Render dir again into *r (free with rb_rerender_free, whatever the
 * result).  A negative status with err ("recomputing from trials.csv: ",
 * "deciding the gate again: " name the step), or an outcome. */
int rb_rerender_dir(const char *dir, rb_rerender *r, rb_error *err);
void rb_rerender_free(rb_rerender *r);

/* What disagrees, a line each ("  WHERE: WHAT is A in summary.json, B from
 * trials.csv", the values with the digits that tell them apart), after the
 * headline the caller says. */
void rb_rerender_differences(const rb_rerender *r, rb_buf *out);

#endif
