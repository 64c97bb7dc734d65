/*
 * stats.h — paired-trial statistics for routebench: descriptive statistics
 * of a sample, the paired comparison of two routers (median speed ratio, its
 * percentile bootstrap interval, pairs won) and the geometric mean of
 * scenario medians with its own bootstrap interval.  docs/design.md,
 * "Measurement protocol", says how bench/ uses them.
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
 * Bootstrap intervals are percentile intervals: resample with replacement
 * `resamples` times, compute the statistic each time, report the type-7
 * quantiles (1 - level)/2 and (1 + level)/2 of those values.  The generator
 * is an rb_rng seeded from the options, so the same input and options give
 * the same interval, bit for bit.  The median interval selects and
 * interpolates input values only, so it is identical on every IEEE-754
 * machine; the geometric-mean interval goes through the C library's log and
 * exp, so its last bits may differ between C libraries.
 *
 * Coverage caveat.  The bootstrap distribution of a median of n values is
 * discrete, and for small n the "95%" percentile interval is really an
 * order-statistic interval that may cover less than 95%.  At n = 7 it is
 * [x(2), x(6)] of the sorted ratios (the bootstrap median falls at or
 * below x(1) with probability 1.0%, at or below x(2) with 10.8%), whose true
 * coverage is 1 - 2 * 8/128 = 87.5% for continuous data.  Simulated with
 * equal speeds and log-normal noise (10,000 resamples, 4,000 comparisons):
 * n = 7: 87.6%, n = 9: 96.1%, n = 15: 92.7%; n = 61 (1,000): 93.9%.
 * tests/test_stats_sim.c checks these levels.
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
    size_t resamples; /* bootstrap resamples (docs/design.md: 10,000) */
    double level;     /* confidence level of the interval, e.g. 0.95 */
    uint64_t seed;    /* seeds the rb_rng that draws the resamples */
} rb_bootstrap_opts;

#define RB_BOOTSTRAP_OPTS_DEFAULT                                                                  \
    {                                                                                              \
        RB_BOOTSTRAP_RESAMPLES, RB_BOOTSTRAP_LEVEL, RB_BOOTSTRAP_SEED                              \
    }

/* ---- paired comparison of two routers ---------------------------------- */

typedef struct rb_paired_result {
    size_t n;         /* number of pairs */
    double median;    /* median of r_i = time_a[i] / time_b[i] (>1: B faster) */
    double lo, hi;    /* percentile bootstrap interval for the median */
    double level;     /* the confidence level of [lo, hi] */
    size_t wins;      /* pairs with r_i > 1: B faster */
    size_t losses;    /* pairs with r_i < 1: B slower (ties: n - wins - losses) */
    int excludes_one; /* 1 when lo > 1 or hi < 1: a real difference, wrongly
                         claimed for equal routers in ~12.5% at n = 7 (see top) */
} rb_paired_result;

/* Compares B with A from n paired trials: time_a[i] and time_b[i] are the
 * ns per lookup of A and B in pair i (> 0; RB_EINVAL also when a
 * quotient overflows or underflows to 0).  Fills *out as described in
 * rb_paired_result.  Resample k (k = 0 .. resamples-1) draws its n ratios
 * with rb_rng_below(rng, n), in order, from one rb_rng seeded with
 * opts->seed.  Allocates (2n + resamples) doubles; RB_ENOMEM if that
 * fails.  Same inputs and options => same result. */
RB_API int rb_stats_paired(const double *time_a, const double *time_b, size_t n,
                           const rb_bootstrap_opts *opts, rb_paired_result *out);

/* The same from ratios already computed as r_i = time_a[i] / time_b[i]
 * (> 0).  rb_stats_paired(a, b, ...) gives exactly the result of this
 * function on a[i] / b[i].  Allocates (n + resamples) doubles. */
RB_API int rb_stats_paired_ratios(const double *ratios, size_t n, const rb_bootstrap_opts *opts,
                                  rb_paired_result *out);

/* ---- geometric mean across scenarios ----------------------------------- */

/* The paired ratios of one scenario (r_i as above, n >= 1, each > 0). */
typedef struct rb_ratio_set {
    const double *ratios;
    size_t n;
} rb_ratio_set;

typedef struct rb_geomean_result {
    size_t scenarios; /* number of scenarios */
    double geomean;   /* geometric mean of the scenario median ratios */
    double lo, hi;    /* percentile bootstrap interval for geomean */
    double level;     /* the confidence level of [lo, hi] */
    int excludes_one; /* 1 when lo > 1 or hi < 1 */
} rb_geomean_result;

/* Summarises `count` scenarios: geomean = geometric mean of the median ratio
 * of each scenario.  Each bootstrap resample resamples every scenario
 * independently, with replacement and within that scenario only (scenario
 * 0 first, then 1, ...: n_s draws of rb_rng_below(rng, n_s) each, from one
 * rb_rng seeded with opts->seed), takes each scenario's median and then the
 * geometric mean of those medians.  With count == 1 this equals the
 * rb_stats_paired_ratios interval up to log/exp rounding.  Allocates
 * (max n_s + count + resamples) doubles; RB_ENOMEM if that fails. */
RB_API int rb_stats_geomean_medians(const rb_ratio_set *sets, size_t count,
                                    const rb_bootstrap_opts *opts, rb_geomean_result *out);

#ifdef __cplusplus
}
#endif

#endif /* RB_STATS_H */
