/*
 * bundle_check.h — does summary.json say what trials.csv gives?  Every
 * statistic of a bundle read back from disk is recomputed from its trials
 * and compared with the stored value, so a hand-edited or corrupted bundle
 * is caught before anything is rendered from it (`routebench report DIR`).
 */
#ifndef RB_BENCH_BUNDLE_CHECK_H
#define RB_BENCH_BUNDLE_CHECK_H

#include "bundle.h"

#define RB_BUNDLE_MAX_DIFFERENCES 5

/* One statistic whose stored value is not the recomputed one. */
typedef struct rb_bundle_difference {
    char where[RB_BUNDLE_NAME * 4]; /* "scenario static-100, router radix" */
    char what[32];                  /* "median_ns" */
    double stored, recomputed;      /* NAN: absent on that side */
} rb_bundle_difference;

typedef struct rb_bundle_recheck {
    size_t values, differ; /* statistics compared, and how many differ */
    size_t ndifferences;   /* the first ones, in summary.json order */
    rb_bundle_difference differences[RB_BUNDLE_MAX_DIFFERENCES];
} rb_bundle_recheck;

/* Recompute b's statistics (per result, per pair, geometric means) from its
 * trials, compare them with the values b was read with, and leave the
 * recomputed ones in b.  Medians, ranges, MADs, ratios and intervals must
 * be equal bit for bit; geometric means within 1e-12 (log and exp may
 * differ in the last bits between C libraries).  RB_ENOMEM or a statistics
 * error; the comparison itself is in *rep. */
int rb_bundle_recheck_stats(rb_bundle *b, rb_bundle_recheck *rep, rb_error *err);

/* Decide b's recorded gate again (bench/bundle/gate.h) from its statistics (run
 * rb_bundle_recheck_stats first): *recorded gets the gate as read, b->gate
 * the decision now, and *agree whether outcome, evidence and MDE match.
 * A bundle without a gate agrees. */
int rb_bundle_recheck_gate(rb_bundle *b, rb_bundle_gate *recorded, bool *agree, rb_error *err);

#endif
