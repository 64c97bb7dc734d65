/*
 * stats.h — paired-trial statistics for routebench: descriptive statistics
 * of a sample, the paired comparison of two routers (median speed ratio, its
 * distribution-free interval, its minimum detectable effect, pairs won) and
 * the geometric mean of scenario medians with its bootstrap interval.  docs/measurement.md,
 * "The protocol: what one number means", says how bench/ uses them.
 *
 * Direction of a ratio (the one convention to remember).  Inputs are times,
 * nanoseconds per lookup, for router A and router B in trial pair i:
 *
 *     r_i = time_a[i] / time_b[i]  =  speed of B relative to A
 *
 *     r_i > 1   B is faster in pair i ("B wins the pair")
 *     r_i < 1   B is slower
 *     r = 1.25  B does 1.25x the lookups per second of A
 *
 * This is the "speed ratio b/a" that `routebench pair --a A --b B` reports.
 *
 * Definitions:
 *   - quantile: R's default, Hyndman and Fan type 7.  For sorted x[0..n-1]
 *     and p in [0, 1], h = (n - 1) p, j = floor(h):
 *         Q(p) = x[j] + (h - j) (x[j+1] - x[j])      (Q(1) = x[n-1])
 *   - median: Q(0.5), i.e. the middle value, or the midpoint of the two
 *     middle values when n is even;
 *   - MAD: median(|x_i - median(x)|), UNSCALED.  R's mad() multiplies by
 *     1.4826 by default; rb_stats_mad(x) equals R's mad(x, constant = 1);
 *   - geometric mean: exp(mean(log x_i)), for x_i > 0.
 *
 * The interval of a paired comparison is the distribution-free confidence
 * interval of a median (the sign-test interval): for n sorted ratios
 * x(1) <= ... <= x(n) it is [x(k), x(n+1-k)], with k the largest rank whose
 * exact coverage
 *
 *     coverage(n, k) = 1 - 2 P(Binomial(n, 1/2) <= k - 1)
 *
 * is at least the level (k = 1 when even [x(1), x(n)] falls short, i.e.
 * n < 6 at 95%).  For independent ratios from any continuous distribution
 * this interval contains the true median with probability coverage(n, k),
 * which is reported: 96.1% at n = 9 ([x(2), x(8)]), 96.5% at n = 15
 * ([x(4), x(12)]), 95.9% at n = 20, 98.4% at n = 7 ([x(1), x(7)]).  It
 * needs no random numbers and selects input values only, so the same
 * ratios give the same interval on every IEEE-754 machine.
 *
 * Why not the percentile bootstrap (which this file used before).
 * The bootstrap distribution of a median of n values is discrete, and for
 * small n its "95%" interval is an order-statistic interval of lower
 * coverage: simulated with equal speeds and log-normal noise (10,000
 * resamples, 4,000 comparisons) it covered 87.6% at n = 7, 96.1% at n = 9
 * and 92.7% at n = 15, so a gate of 15 pairs claimed a difference between
 * identical builds about one run in 14.  The sign-test interval is exact at
 * every n.
 *
 * The geometric mean across scenarios keeps a percentile bootstrap: each
 * resample resamples every scenario within itself and takes the geometric
 * mean of the medians; the type-7 quantiles (1 - level)/2 and (1 + level)/2
 * of `resamples` such values are the interval.  Averaging the medians of two
 * or more scenarios smooths the discreteness: simulated as above it covered
 * 96.9% (2 scenarios of 15 pairs), 97.5% (3 of 15) and 97.1% (2 of 9).  With
 * one scenario it is that scenario's sign-test interval.  The generator is
 * an rb_rng seeded from the options, so the same input and options give the
 * same interval; it goes through the C library's log and exp, so its last
 * bits may differ between C libraries.
 *
 * Minimum detectable effect (MDE).  Each interval comes with the smallest
 * change that a run with this spread detects (its interval excludes 1) in
 * 80% of runs at 95% confidence, the usual sample-size formula
 *
 *     MDE = exp((z(0.975) + z(0.80)) SE) - 1,      z(0.975) + z(0.80) = 2.80
 *
 * where SE, the standard error of the log of the estimate, is read off the
 * interval itself: SE = (ln hi - ln lo) / (2 z(c)), with c the interval's
 * coverage (the exact coverage above, or the nominal level of a bootstrap
 * interval) and z(c) the (1 + c)/2 quantile of the standard normal.  Read
 * off the interval, it reacts to the same noise the interval does.  A gate
 * can trust a pass only when its threshold is farther from 1 than the MDE
 * (bench/bundle/gate.h).  Fewer than RB_STATS_MIN_PAIRS pairs give no interval
 * claim at all: too_few is set, excludes_one is 0 and the MDE is infinite.
 *
 * Errors are values: 0 on success, or RB_EINVAL / RB_ENOMEM (the status
 * list of base/base.h, shared by every part of routebench); on error the
 * outputs are left unchanged.  Nothing here prints, aborts or exits; there is
 * no global state.  Functions that need memory beyond a caller's scratch
 * buffer say so and return RB_ENOMEM when malloc fails.
 *
 * Input rules common to every function: pointers are non-NULL, n >= 1, and
 * every value is finite (no NaN, no infinity); ratios and times are > 0.
 * A violation returns RB_EINVAL.  Scratch buffers hold n doubles and
 * must not overlap the input.
 */
#ifndef RB_STATS_H
#define RB_STATS_H

#include "base.h"
#include "rng.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- descriptive statistics -------------------------------------------- */

/* *out = median of xs[0..n-1].  On success scratch holds xs sorted
 * ascending. */
RB_API int rb_stats_median(const double *xs, size_t n, double *out, double *scratch);

/* *out = median absolute deviation from the median, unscaled (see top).
 * scratch contents are unspecified afterwards. */
RB_API int rb_stats_mad(const double *xs, size_t n, double *out, double *scratch);

/* *out = type-7 quantile p of xs, 0 <= p <= 1 (otherwise RB_EINVAL).
 * On success scratch holds xs sorted ascending. */
RB_API int rb_stats_quantile(const double *xs, size_t n, double p, double *out, double *scratch);

/* *min and *max of xs. */
RB_API int rb_stats_minmax(const double *xs, size_t n, double *min, double *max);

/* *out = arithmetic mean of xs (a plain left-to-right sum divided by n). */
RB_API int rb_stats_mean(const double *xs, size_t n, double *out);

/* *out = geometric mean of xs; every x must be > 0. */
RB_API int rb_stats_geomean(const double *xs, size_t n, double *out);

/* ---- bootstrap options ------------------------------------------------- */

#define RB_BOOTSTRAP_RESAMPLES 10000
#define RB_BOOTSTRAP_LEVEL     0.95
#define RB_BOOTSTRAP_SEED      UINT64_C(0x726f757465626e63) /* "routebnc" */

/* resamples >= 1; 0 < level < 1; any seed.  Pass NULL for the defaults
 * above, or start from RB_BOOTSTRAP_OPTS_DEFAULT and change a field. */
typedef struct rb_bootstrap_opts {
    size_t resamples; /* bootstrap resamples (docs/measurement.md: 10,000) */
    double level;     /* confidence level of the interval, e.g. 0.95 */
    uint64_t seed;    /* seeds the rb_rng that draws the resamples */
} rb_bootstrap_opts;

#define RB_BOOTSTRAP_OPTS_DEFAULT                                                                  \
    {                                                                                              \
        RB_BOOTSTRAP_RESAMPLES, RB_BOOTSTRAP_LEVEL, RB_BOOTSTRAP_SEED                              \
    }

/* ---- paired comparison of two routers ---------------------------------- */

/* Below this many pairs no interval is claimed (too_few). */
#define RB_STATS_MIN_PAIRS 5
/* The power at which the minimum detectable effect is stated. */
#define RB_STATS_MDE_POWER 0.80

typedef struct rb_paired_result {
    size_t n;         /* number of pairs */
    double median;    /* median of r_i = time_a[i] / time_b[i] (>1: B faster) */
    double lo, hi;    /* sign-test interval for the median: [x(k), x(n+1-k)] */
    double level;     /* the nominal confidence level asked for */
    double coverage;  /* the exact coverage of [lo, hi] (>= level when n >= 6 at 95%) */
    double mde;       /* minimum detectable effect, relative: 0.021 = changes of 2.1%;
                         INFINITY when too_few */
    size_t wins;      /* pairs with r_i > 1: B faster */
    size_t losses;    /* pairs with r_i < 1: B slower (ties: n - wins - losses) */
    int too_few;      /* 1 when n < RB_STATS_MIN_PAIRS: no interval is claimed */
    int excludes_one; /* 1 when lo > 1 or hi < 1 (never when too_few) */
} rb_paired_result;

/* Compares B with A from n paired trials: time_a[i] and time_b[i] are the
 * ns per lookup of A and B in pair i (> 0; RB_EINVAL also when a
 * quotient overflows or underflows to 0).  Fills *out as described in
 * rb_paired_result.  Of opts only the level is used (resamples and seed are
 * for rb_stats_geomean_medians); NULL means the defaults.  Allocates 2n
 * doubles; RB_ENOMEM if that fails.  Same inputs => same result. */
RB_API int rb_stats_paired(const double *time_a, const double *time_b, size_t n,
                           const rb_bootstrap_opts *opts, rb_paired_result *out);

/* The same from ratios already computed as r_i = time_a[i] / time_b[i]
 * (> 0).  rb_stats_paired(a, b, ...) gives exactly the result of this
 * function on a[i] / b[i].  Allocates n doubles. */
RB_API int rb_stats_paired_ratios(const double *ratios, size_t n, const rb_bootstrap_opts *opts,
                                  rb_paired_result *out);

/* The rank k (1-based) of the sign-test interval [x(k), x(n+1-k)] of a
 * median of n values at `level`, and its exact coverage (see the top); n >= 1,
 * 0 < level < 1. */
RB_API int rb_stats_median_interval_rank(size_t n, double level, size_t *k, double *coverage);

/* The p quantile of the standard normal distribution, 0 < p < 1 (bisection
 * on erfc to 1e-12; NAN outside (0, 1)). */
RB_API double rb_stats_normal_quantile(double p);

/* The standard error of the log of an estimate whose interval [lo, hi] has
 * coverage c (see the top): (ln hi - ln lo) / (2 z((1 + c)/2)).  0 < lo <=
 * hi, 0 < c < 1; NAN otherwise. */
RB_API double rb_stats_log_se(double lo, double hi, double coverage);

/* The minimum detectable effect of a log standard error se at confidence
 * `level` and RB_STATS_MDE_POWER: exp((z((1 + level)/2) + z(power)) se) - 1. */
RB_API double rb_stats_mde(double se, double level);

/* ---- geometric mean across scenarios ----------------------------------- */

/* The paired ratios of one scenario (r_i as above, n >= 1, each > 0). */
typedef struct rb_ratio_set {
    const double *ratios;
    size_t n;
} rb_ratio_set;

typedef struct rb_geomean_result {
    size_t scenarios; /* number of scenarios */
    double geomean;   /* geometric mean of the scenario median ratios */
    double lo, hi;    /* its interval: bootstrap, or the one scenario's sign-test interval */
    double level;     /* the nominal confidence level of [lo, hi] */
    double coverage;  /* the level, or the exact coverage of the one scenario's interval */
    double mde;       /* minimum detectable effect, relative (INFINITY: too few pairs) */
    int too_few;      /* a scenario of fewer than RB_STATS_MIN_PAIRS pairs */
    int excludes_one; /* 1 when lo > 1 or hi < 1 (never when too_few) */
} rb_geomean_result;

/* Summarises `count` scenarios: geomean = geometric mean of the median ratio
 * of each scenario.  Each bootstrap resample resamples every scenario
 * independently, with replacement and within that scenario only (scenario
 * 0 first, then 1, ...: n_s draws of rb_rng_below(rng, n_s) each, from one
 * rb_rng seeded with opts->seed), takes each scenario's median and then the
 * geometric mean of those medians.  With count == 1 the result is that of
 * rb_stats_paired_ratios on the one scenario (no bootstrap).  Allocates
 * (max n_s + count + resamples) doubles; RB_ENOMEM if that fails. */
RB_API int rb_stats_geomean_medians(const rb_ratio_set *sets, size_t count,
                                    const rb_bootstrap_opts *opts, rb_geomean_result *out);

#ifdef __cplusplus
}
#endif

#endif /* RB_STATS_H */
