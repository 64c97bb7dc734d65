/*
 * gate.h — the regression gate of `routebench pair --fail-below R`: from
 * the evidence of a run (a ratio with its interval and minimum detectable
 * effect, or an exact ratio), one of three outcomes.
 *
 * The evidence is the speed ratio b/a (above 1: B faster) of the one
 * scenario measured, or the geometric mean across scenarios when there are
 * several (stats/stats.h defines both intervals and the MDE).  R is the
 * threshold: `--fail-below 0.97` fails when B is surely more than 3%
 * slower.  The distance of the threshold is the change that takes the ratio
 * from 1 to R, d = exp(|ln R|) - 1: 1/R - 1 = 3.09% for R = 0.97.
 *
 *   exact metrics (instructions, cycles-est: a deterministic count)
 *     failed         ratio < R
 *     passed         otherwise
 *   counted metrics with an A/A spread s (mde = s: a Go peer's count
 *   varies by up to 0.15% between two runs of one binary), on the interval
 *   [ratio / (1 + s), ratio x (1 + s)]:
 *     failed         hi < R
 *     passed         lo >= R
 *     inconclusive   otherwise: R lies within the spread
 *   noisy metrics (time, hw-instructions), in this order:
 *     inconclusive   fewer than RB_STATS_MIN_PAIRS pairs: no interval
 *     failed         hi < R: the whole interval lies below the threshold
 *     passed         lo >= R: the whole interval lies at or above it
 *     inconclusive   MDE > d: the threshold lies inside this run's noise; a
 *                    regression of exactly R would pass more often than not
 *     passed         otherwise: the run could see a change of size d (80% of
 *                    runs with this spread would), and did not see one past R
 *
 * So a noisy gate fails only when the interval says so (for identical
 * builds at most (1 - coverage)/2 of runs: 1.8% at 15 pairs), and passes
 * only when the run was sharp enough to have caught a regression at the
 * threshold.  R >= 1 leaves d = 0: such a gate can fail or be inconclusive,
 * never pass on the MDE rule.
 *
 * Exit statuses of pair: passed 0, failed 1, inconclusive 3 (RB_GATE_EXIT_*;
 * 2 stays the usage/input error of every command).
 *
 * For an inconclusive result the verdict says what would decide it: the
 * number of trials at which the MDE would shrink to d (the standard error
 * falls as 1/sqrt(n): n x (ln(1 + MDE) / |ln R|)^2, rounded up), or
 * --metric instructions, which is exact.
 *
 * Pure functions: no I/O, no global state.
 */
#ifndef RB_BENCH_GATE_H
#define RB_BENCH_GATE_H

#include "buf.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum rb_gate_outcome {
    RB_GATE_NONE = 0, /* no gate was asked for */
    RB_GATE_PASSED = 1,
    RB_GATE_FAILED = 2,
    RB_GATE_INCONCLUSIVE = 3,
} rb_gate_outcome;

enum { RB_GATE_EXIT_PASSED = 0, RB_GATE_EXIT_FAILED = 1, RB_GATE_EXIT_INCONCLUSIVE = 3 };

/* What the gate decides on. */
typedef struct rb_gate_evidence {
    bool exact;      /* a deterministic count: median is the exact ratio */
    size_t pairs;    /* pairs behind the interval (per scenario) */
    bool too_few;    /* fewer than RB_STATS_MIN_PAIRS pairs */
    double median;   /* the speed ratio b/a */
    double lo, hi;   /* its interval (= median when exact) */
    double coverage; /* of the interval (1 when exact) */
    double mde;      /* relative (0.021: changes of 2.1%); 0 when exact; a count's
                        A/A spread (its tolerance) when exact with a spread */
} rb_gate_evidence;

typedef struct rb_gate_verdict {
    int outcome;          /* rb_gate_outcome */
    double threshold;     /* R */
    size_t trials_needed; /* inconclusive on the MDE rule: trials that would decide; else 0 */
    const char *reason;   /* one static line: why this outcome */
} rb_gate_verdict;

/* Decide (see the top).  threshold > 0. */
rb_gate_verdict rb_gate_decide(double threshold, const rb_gate_evidence *e);

/* "passed", "failed", "inconclusive", or "none". */
const char *rb_gate_outcome_name(int outcome);
/* The outcome named name, or -1. */
int rb_gate_outcome_parse(const char *name);
/* The exit status of an outcome (RB_GATE_EXIT_*; 0 for none). */
int rb_gate_exit_status(int outcome);

/* The gate's message: the outcome, the evidence it was decided on, and for
 * an inconclusive one what would decide it, e.g.
 *   "gate --fail-below 0.97: INCONCLUSIVE: the interval [0.951, 1.012]
 *    includes 0.97 and this run could detect changes above ±4.2%, not
 *    ±3.0%: about 30 trials would decide it (noise permitting), or
 *    --metric instructions (exact)"
 * `what` names the evidence ("github", "the geometric mean of 2 scenarios"). */
void rb_gate_message(const rb_gate_verdict *v, const rb_gate_evidence *e, const char *what,
                     rb_buf *out);

/* The ratio in words, "WHO is 4.8% slower than THAN" (ratio 0.954: the
 * speed of WHO relative to THAN, so WHO takes 1/0.954 - 1 = 4.8% more per
 * lookup), "WHO is 5.0% faster than THAN" (1.05), or "WHO is as fast as
 * THAN" (exactly 1, or within 0.005%). */
void rb_gate_words(double ratio, const char *who, const char *than, char *buf, size_t cap);

/* The MDE as text: "±2.1%", "exact", or "-" (infinite); a count with an
 * A/A spread (exact, mde > 0) as rb_gate_fmt_spread. */
void rb_gate_fmt_mde(double mde, bool exact, char *buf, size_t cap);

/* A count's A/A spread as text: rb_format_spread (format.h), "exact" or
 * "within ±0.15%". */
void rb_gate_fmt_spread(double spread, char *buf, size_t cap);

#endif
