/*
 * bundle_run.h — from a measured scenario (scenario.h + harness.h) to the
 * result bundle (bundle.h), kept apart so bundle.h depends on neither.
 */
#ifndef RB_BENCH_BUNDLE_RUN_H
#define RB_BENCH_BUNDLE_RUN_H

#include "bundle.h"
#include "harness.h"
#include "scenario.h"

/* Append scenario sc, measured as run, to b: its name, kind, provenance
 * (how to regenerate or where it came from), sizes, fingerprints and
 * features; a result per subject of run, labelled labels[k]; every trial;
 * then rb_bundle_compute_scenario.  skipped lists (comma-separated) the
 * routers left out for lacking a feature.  RB_ENOMEM, or the statistics'
 * error. */
int rb_bundle_add_run(rb_bundle *b, const rb_scenario *sc, const rb_bench_run *run,
                      const char *const *labels, const char *skipped, rb_error *err);

#endif
