/*
 * changepoint.h — where a series of results across commits stepped
 * (`routebench history`), and the unpaired comparison of two samples
 * measured in different sessions (`routebench compare` on wall-clock
 * results, where no trial of one has a partner in the other).
 *
 * Steps in a series x[0..n-1] (one value per commit, oldest first):
 *
 *   exact series (counted metrics: deterministic instruction counts)
 *       every i with x[i] != x[i-1] starts a new segment.  Two builds of
 *       the same code count the same, so no difference is noise and there
 *       is nothing to test; a 1-instruction change is a step, and the
 *       caller says how large each one is.
 *
 *   noisy series (time: one median per commit)
 *       binary segmentation with Pettitt's test.  Pettitt's statistic is
 *       the largest |U_t| over split points t, U_t = sum over i <= t < j of
 *       sign(x[j] - x[i]): a Mann-Whitney statistic between the two sides
 *       of the split, so it uses ranks only (a single outlier cannot make
 *       a step, a heavy tail cannot either) and needs no noise model.  Its
 *       p-value is approximately p = 2 exp(-6 K^2 / (n^3 + n^2)) (Pettitt
 *       1979).  A segment whose p < alpha is split at its arg-max, and both
 *       halves are tested the same way, while they hold at least
 *       2 x min_segment points.  The first test of a series decides
 *       whether anything is flagged, so on a series with no step the
 *       chance of any flag is that of one test: at most about alpha (the
 *       approximation is conservative at small n; tests/test_changepoint.c
 *       measures it on simulated A/A series, with normal and heavy-tailed
 *       noise, and the power on a known step).
 *
 * Unpaired ratio of two samples a[0..na-1] and b[0..nb-1] (per-lookup
 * times of the old and the new result), in the direction of stats.h's
 * speed ratio b/a (above 1: b faster): the Hodges-Lehmann estimate
 * exp(median over all i, j of (ln a[i] - ln b[j])) and Moses' interval
 * for it, the order statistics [D(k+1), D(na nb - k)] of the na nb
 * differences, with k from the normal approximation of the Mann-Whitney
 * statistic's distribution, k = floor(na nb / 2 - z sqrt(na nb (na + nb
 * + 1) / 12)).  It assumes the two sessions differ by a shift in log time
 * only; a session on a busier machine breaks that, which is why compare
 * says that no trial is paired and refuses to gate on it unless asked.
 *
 * Pure functions: no I/O, no global state.
 */
#ifndef RB_STATS_CHANGEPOINT_H
#define RB_STATS_CHANGEPOINT_H

#include "base.h"

#include <stdbool.h>
#include <stddef.h>

#define RB_CHANGEPOINT_ALPHA       0.01
#define RB_CHANGEPOINT_MIN_SEGMENT 2

/* Pettitt's test on x[0..n-1], n >= 2: *at is the first index of the second
 * side of the best split (1..n-1), *p its approximate p-value. */
RB_API int rb_changepoint_pettitt(const double *x, size_t n, size_t *at, double *p);

/* The starts of new segments (indexes 1..n-1, increasing) of x: exact
 * series every change, noisy ones binary segmentation at alpha (see the
 * top; min_segment >= 1).  At most cap starts are stored; *count is the
 * number found.  RB_EINVAL for bad arguments, RB_ENOMEM. */
RB_API int rb_changepoint_find(const double *x, size_t n, bool exact, double alpha,
                               size_t min_segment, size_t *starts, size_t cap, size_t *count);

/* The unpaired comparison (see the top). */
typedef struct rb_unpaired_result {
    size_t na, nb;
    double ratio;  /* Hodges-Lehmann speed ratio b/a */
    double lo, hi; /* Moses' interval at level (normal approximation) */
    double level;  /* as asked */
    double mde;    /* the change it could detect (stats.h's MDE of [lo, hi]) */
    bool too_few;  /* na or nb below 3: no interval */
    bool excludes_one;
} rb_unpaired_result;

/* a and b positive and finite; level in (0, 1).  Allocates na nb doubles
 * (RB_ENOMEM; RB_EINVAL above 2^24 of them). */
RB_API int rb_changepoint_unpaired(const double *a, size_t na, const double *b, size_t nb,
                                   double level, rb_unpaired_result *out);

#endif
