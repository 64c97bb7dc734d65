/*
 * compare.h — two saved results side by side (`routebench compare OLD
 * NEW`, `routebench history`): are they comparable, and per scenario and
 * router, what is the speed ratio NEW against OLD.
 *
 * A saved result is a bundle directory (summary.json and trials.csv) or a
 * summary.json document alone (`run --export-json FILE`, `run --json`).
 *
 * Identity.  Two results are comparable only when everything that moves
 * the numbers, other than the routers' code, is the same; otherwise
 * rb_compare_identity lists every field that differs, with both values:
 *
 *   metric            protocol.metric (time against a count is meaningless)
 *   clock             time only: protocol.clock_id
 *   toolchain         tool.compiler, tool.flags, tool.build_type,
 *                     tool.sanitized, and for counted metrics tool.valgrind
 *                     (Callgrind's version) and machine.cpu_vendor and
 *                     cpu_family: Valgrind reports a CPU of that vendor and
 *                     family to the program, and the C library picks its
 *                     string functions (memcmp, memchr) by it, so counts
 *                     depend on it; for time the whole machine.cpu_model
 *   scenarios         per scenario of the same name: routes_fingerprint,
 *                     requests_fingerprint, mode, cache
 *   routers           by name: the part of a label before '@', so
 *                     hashseg@base/librouters.so and hashseg@head/... (or
 *                     the built-in hashseg) are the same router
 *
 * Scenarios or routers present in one result only are not differences:
 * they are listed as not compared.  A result with none in common is.
 *
 * Ratios.  Per (scenario, router): ratio = OLD value / NEW value per
 * lookup, the speed of NEW relative to OLD (above 1: NEW is faster), as
 * stats.h's speed ratio b/a with a = OLD, b = NEW.
 *   counted metrics  exact, the ratio of two deterministic counts; within
 *                    ±spread when a count has an A/A spread (a Go
 *                    peer's: bundle.h count_spread), the two added
 *   time             no trial of OLD has a partner in NEW (two sessions,
 *                    two machine states): the unpaired Hodges-Lehmann
 *                    ratio of the two sets of trials with Moses' interval
 *                    (stats/changepoint.h), when both results carry their
 *                    trials; the ratio of the medians alone otherwise
 *
 * The gate (rb_compare_gate) decides each router on the geometric mean of
 * its ratios over the scenarios compared, with bench/bundle/gate.h's rules: exact
 * for counts; for time only when asked (the caller's flag), on the
 * unpaired interval.
 *
 * Pure functions over two rb_bundle: no I/O, no global state.
 */
#ifndef RB_BENCH_COMPARE_H
#define RB_BENCH_COMPARE_H

#include "buf.h"
#include "bundle.h"
#include "changepoint.h"
#include "gate.h"

#include <stdbool.h>
#include <stddef.h>

/* One router on one scenario, in both results. */
typedef struct rb_compare_row {
    char scenario[RB_BUNDLE_NAME * 2];
    char router[RB_BUNDLE_NAME]; /* the name, without @LIB */
    double old_value, new_value; /* per lookup, in the metric */
    double ratio;                /* OLD / NEW: above 1, NEW is faster */
    bool exact;                  /* a counted metric */
    double spread;               /* counted: the two counts' A/A spreads added (0: exact) */
    bool has_interval;           /* time, both results with trials */
    rb_unpaired_result unpaired; /* when has_interval */
} rb_compare_row;

typedef struct rb_compare {
    int metric; /* rb_metric */
    bool exact;
    rb_compare_row *rows;
    size_t nrows;
    rb_buf not_compared; /* "scenario X only in OLD; router Y only in NEW" */
} rb_compare;

/* Every identity field (see the top) on which old and nw differ, one line
 * each into out ("tool.compiler: GNU 12.2.0 in OLD, Clang 16.0.6 in NEW");
 * returns how many (0: comparable).  A result without a field (written
 * before it existed) differs from one with it. */
size_t rb_compare_identity(const rb_bundle *old, const rb_bundle *nw, rb_buf *out);

/* The rows of two comparable results, in OLD's scenario and results order
 * (c initialised here; rb_compare_free).  RB_ENOTFOUND when they share no
 * (scenario, router); RB_ENOMEM. */
int rb_compare_rows(const rb_bundle *old, const rb_bundle *nw, rb_compare *c, rb_error *err);
void rb_compare_free(rb_compare *c);

/* The router part of a label: "hashseg" of "hashseg@build/librouters.so". */
void rb_compare_router_name(const char *label, char *buf, size_t cap);

/* The gate's evidence for one router: the geometric mean of its rows'
 * ratios (one row: that row), exact for counts, from the unpaired
 * intervals for time (pairs: the smaller side's trials).  *nscenarios is
 * how many rows it combines.  RB_ENOTFOUND without rows; RB_EINVAL for time
 * rows without an interval. */
int rb_compare_evidence(const rb_compare *c, const char *router, rb_gate_evidence *e,
                        size_t *nscenarios, rb_error *err);

#endif
