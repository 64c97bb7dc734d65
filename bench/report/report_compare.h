/*
 * report_compare.h — two saved results side by side, as `routebench
 * compare OLD NEW` reports them (bundle/compare.h makes the rows): what
 * is compared and how, the commit of each, per scenario and router the
 * values and the speed ratio NEW vs OLD with its interval or "exact", and
 * with a threshold the gate of every router (bundle/gate.h).  Also reads a
 * saved result.  A renderer: nothing here prints.
 */
#ifndef RB_REPORT_COMPARE_H
#define RB_REPORT_COMPARE_H

#include "buf.h"
#include "bundle.h"
#include "compare.h"

/* A saved result at path: a bundle directory (with its trials) or a
 * summary.json document (without), into b (initialised here, also on
 * failure; free with rb_bundle_free). */
int rb_compare_read(const char *path, rb_bundle *b, rb_error *err);

/* The two results compared and where they were read from. */
typedef struct rb_compare_files {
    const rb_bundle *old, *nw;
    const char *old_path, *new_path;
} rb_compare_files;

/* The report of c into out; with threshold > 0 (--fail-below) the gate of
 * every router, *outcome the worst (RB_GATE_FAILED before INCONCLUSIVE
 * before PASSED; PASSED without a gate).  An error of a router's evidence
 * names the router ("gate on radix: ..."). */
int rb_compare_text(const rb_compare *c, const rb_compare_files *f, double threshold, rb_buf *out,
                    int *outcome, rb_error *err);

#endif
