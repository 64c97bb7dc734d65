/*
 * selftest_text.h — the self-test's report (selftest.h), as `routebench
 * pair --self-test` prints it: the intro (what is tested, how), and after
 * the runs the slowed copies, the table of the two cases, the false-alarm
 * and detection rates, the trials for 90% detection and, when identical
 * code did not measure 1.000, why.  Text into a buffer; nothing printed.
 */
#ifndef RB_BENCH_SELFTEST_TEXT_H
#define RB_BENCH_SELFTEST_TEXT_H

#include "buf.h"
#include "selftest.h"

#include <stdbool.h>

typedef struct rb_selftest_text_in {
    const char *router;           /* A's label */
    const rb_selftest_opts *opts; /* effect, threshold, metric, protocol, runs */
    bool gate;                    /* the threshold was given (else halfway to the effect) */
    const rb_selftest_loaded *l;  /* the scenarios: their names */
} rb_selftest_text_in;

/* "self-test: can this machine gate A at X%? ..." */
void rb_selftest_intro(const rb_selftest_text_in *in, rb_buf *out);

/* The report of r; load_start/end the 1-minute load average around the
 * runs (< 0: unknown, not said). */
void rb_selftest_text(const rb_selftest_text_in *in, const rb_selftest_result *r, double load_start,
                      double load_end, rb_buf *out);

#endif
