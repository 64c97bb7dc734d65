/*
 * headline.h — the verdict of a bundle in one line a person would say, for
 * the terminal (at most RB_HEADLINE_COLUMNS columns), the top of
 * report.html and the titles of the charts:
 *
 *   github: hashseg, 1.46x [1.43, 1.49] faster than ctrie; smallest ctrie, 30 B/route
 *   Overall: hashseg fastest in 12 of 12 scenarios (significantly in 8); smallest ctrie in 12
 *   gate --fail-below 0.97: passed: hashseg 1.05x [1.02, 1.08] the speed of ctrie
 *
 * A line is never cut: past RB_HEADLINE_COLUMNS it drops what it can
 * spare (the smallest router, long words), then the renderer wraps it (a
 * terminal between words, HTML and SVG as they lay out text), so no router
 * name is ever lost.
 *
 * A pure function of the bundle (verdict.h ranks the routers).  A table
 * measured under two conditions (choose: warm throughput and cold latency)
 * is one table: the overall line counts it once, by its first condition,
 * and never averages the conditions together.
 */
#ifndef RB_BENCH_HEADLINE_H
#define RB_BENCH_HEADLINE_H

#include "bundle.h"

#include <stdbool.h>
#include <stddef.h>

#define RB_HEADLINE_COLUMNS 100
#define RB_HEADLINE_TEXT    1536

/* Scenario si: "NAME: WINNER, R [LO, HI] faster than RUNNER-UP; smallest S,
 * N B/route" (a tie, one ranked router, nothing ranked and counted metrics
 * have their own words).  Over RB_HEADLINE_COLUMNS columns it goes without
 * the smallest; never cut. */
void rb_headline_scenario(const rb_bundle *b, size_t si, char *buf, size_t cap);

/* The tables of the bundle: scenarios that are not another condition of
 * an earlier one (rb_bundle_is_condition). */
size_t rb_headline_tables(const rb_bundle *b);

/* Across the tables: "Overall: W fastest in F of N scenarios (significantly
 * in S); smallest X in M"; over RB_HEADLINE_COLUMNS, "W fastest in F of N
 * (S significantly)"; "" with fewer than two tables. */
void rb_headline_overall(const rb_bundle *b, char *buf, size_t cap);

/* The gate's outcome in a line: "gate --fail-below R: passed: ..."; ""
 * when the bundle has no gate.  The word (passed, FAILED, inconclusive)
 * also into word when not NULL. */
void rb_headline_gate(const rb_bundle *b, char *buf, size_t cap, const char **word);

/* The bundle's answer in one line: the gate when there is one, else the
 * overall line with several tables, else the one table's line. */
void rb_headline_bundle(const rb_bundle *b, char *buf, size_t cap);

/* A speed ratio with its interval as the headline writes it: "1.46x [1.43,
 * 1.49]", "1.462x (exact)", "1.46x (too few pairs)". */
void rb_headline_ratio(const rb_bundle *b, const rb_paired_result *p, char *buf, size_t cap);

#endif
