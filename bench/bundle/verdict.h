/*
 * verdict.h — the conclusion of a measured bundle, in a paragraph: which
 * router is fastest on a scenario (with its paired interval over the
 * runner-up, or "no significant difference" between the top routers), the
 * smallest (bytes per route), the fastest to build, the features the table
 * needs and who refused it and why, what `auto` picks and whether that is
 * the measured winner.
 *
 * A verdict is a pure function of the bundle (bundle.h): the same bundle
 * gives the same verdict, so `routebench report DIR` re-renders it byte for
 * byte, and it can be tested on synthetic bundles (no timing).
 *
 * Who is ranked: every router of the scenario's results that is not a
 * reference (linear, floor), not a peer (r3 in-process, or a peer process:
 * they are measured and compared, not recommended), not `auto` (judged
 * separately: it is one of the others), and gave no wrong answer.  The
 * fastest has the smallest median per lookup; the others "not significantly
 * slower" are those whose paired interval against it includes 1 (counted
 * metrics: exact ratios, so only an exact 1, unless a count has an A/A
 * spread: then a ratio within the spread, rb_verdict_counted_differs).
 */
#ifndef RB_BENCH_VERDICT_H
#define RB_BENCH_VERDICT_H

#include "bundle.h"

#include <stdbool.h>

#define RB_VERDICT_TEXT 3072

typedef enum rb_verdict_auto {
    RB_VERDICT_AUTO_ABSENT = 0, /* auto did not run, or its choice is unknown */
    RB_VERDICT_AUTO_WINNER,     /* auto's choice is the fastest (of those it chooses among) */
    RB_VERDICT_AUTO_TIED,       /* not significantly slower than the fastest */
    RB_VERDICT_AUTO_BEHIND,     /* slower, but the interval includes 1 (cannot happen with ties) */
    RB_VERDICT_AUTO_LOSES,      /* significantly slower than the fastest */
    RB_VERDICT_AUTO_UNRANKED,   /* its choice is not ranked (not measured, or wrong answers) */
    RB_VERDICT_AUTO_TOP,        /* the fastest by median, but the verdict names no winner: one
                                   of the top routers, within noise of the others */
} rb_verdict_auto;

typedef struct rb_verdict {
    size_t scenario;              /* index into the bundle's scenarios */
    bool exact;                   /* counted metric: ratios are exact, intervals are not claimed */
    int metric;                   /* rb_metric of the bundle */
    size_t ranked;                /* routers ranked (see the top) */
    char fastest[RB_BUNDLE_NAME]; /* "" when nothing could be ranked */
    char runner_up[RB_BUNDLE_NAME]; /* "" when one router was ranked */
    rb_paired_result lead;          /* speed of the fastest over the runner-up (> 1) */
    bool significant;               /* lead excludes 1 (exact: differs from 1) */
    char top[RB_BUNDLE_TEXT];       /* the fastest and every router not significantly slower */
    size_t ntop;
    char smallest[RB_BUNDLE_NAME];
    double smallest_bytes_per_route;
    char fastest_build[RB_BUNDLE_NAME];
    uint64_t fastest_build_ns;
    int auto_status;                  /* rb_verdict_auto */
    char auto_choice[RB_BUNDLE_NAME]; /* what auto picked ("" when absent) */
    char auto_rival[RB_BUNDLE_NAME];  /* the fastest router auto chooses among: every ranked
                                         router but one generated for the table (compiled) */
    rb_paired_result auto_gap;        /* speed of auto_rival over auto's choice */
    char text[RB_VERDICT_TEXT];       /* the paragraph */
} rb_verdict;

/* The verdict on scenario si of b.  RB_EINVAL when si is out of range. */
int rb_verdict_scenario(const rb_bundle *b, size_t si, rb_verdict *v);

/* Does the verdict name one winner (a fastest router significantly ahead
 * of every other ranked one, or the only one ranked)?  Every renderer
 * says "the winner" only then. */
bool rb_verdict_has_winner(const rb_verdict *v);

/* auto's pick in a line, as every renderer shows it: "auto picks hashseg,
 * the winner", "auto picks hashseg, one of the top routers (no clear
 * winner)", "auto picks radix, not significantly slower than hashseg
 * (1.04x [0.98, 1.10])"; a table's second condition (choose's cold
 * latency) prefixed by its cache ("cold: auto picks ...").  "" when auto
 * did not run. */
void rb_verdict_auto_line(const rb_bundle *b, const rb_verdict *v, char *buf, size_t cap);

/* idx[0..n) (result indices of s, rb_bundle_fastest_first's order) with
 * auto's row moved right under the router it picked: auto is that router,
 * never a rival drawn above it.  Unchanged when auto or its pick is not
 * among them. */
void rb_verdict_auto_under_pick(const rb_bundle_scenario *s, size_t *idx, size_t n);

/* The speed of router x over router y on scenario s (> 1: x faster), from
 * the pair of the two in either order (inverted when stored as x/y).
 * false when the scenario has no such pair. */
bool rb_verdict_speed(const rb_bundle_scenario *s, const char *x, const char *y,
                      rb_paired_result *out);

/* Does a counted ratio tell two routers apart?  Any ratio but exactly 1;
 * but a ratio of counts with an A/A spread (a Go peer's: its mde > 0,
 * its interval [lo, hi] spanning the spread, bundle.c) only when that
 * interval excludes 1: a ratio inside the spread is "no clear winner",
 * like a timed interval that includes 1. */
bool rb_verdict_counted_differs(const rb_paired_result *p);

/* The conditions line of one table measured warm-throughput (si_warm) and
 * cold-latency (si_cold): "warm throughput: X fastest ...; cold latency:
 * Y fastest ..." and whether they differ.  Either index may be SIZE_MAX
 * (not measured). */
void rb_verdict_conditions(const rb_bundle *b, size_t si_warm, size_t si_cold, char *buf,
                           size_t cap);

/* The overall paragraph across every scenario: how often each router was
 * the fastest (significantly or not), the smallest most often, and where
 * auto's choice lost significantly.  "" when there is no scenario. */
void rb_verdict_overall(const rb_bundle *b, char *buf, size_t cap);

/* The index of the scenario measuring the same table as scenario si under
 * mode and cache, or SIZE_MAX. */
size_t rb_verdict_find_condition(const rb_bundle *b, size_t si, rb_bundle_mode mode,
                                 rb_bundle_cache cache);

/* For a warm-throughput scenario si, the index of the same table measured
 * as cold latency (choose measures both), else SIZE_MAX. */
size_t rb_verdict_cold_twin(const rb_bundle *b, size_t si);

#endif
