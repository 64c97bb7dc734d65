/*
 * stats.c — medians, quantiles and bootstrap intervals for paired trials
 * (see stats.h for the definitions and each function's contract).
 *
 * Cost: a median, quantile or sign-test interval sorts a copy, O(n log n)
 * (its rank costs O(n) more).  The bootstrap interval of a geometric mean
 * costs resamples x (the draws + a sort of each scenario) plus one sort of
 * the resample statistics: about 10,000 x 30 draws for two scenarios of 15.
 */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- input checks ------------------------------------------------------ */

static int all_finite(const double *xs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(xs[i])) return 0;
    return 1;
}

static int all_positive(const double *xs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(isfinite(xs[i]) && xs[i] > 0.0)) return 0;
    return 1;
}

static int valid_sample(const double *xs, size_t n)
{
    return xs != NULL && n > 0 && all_finite(xs, n);
}

/* Fills *o from opts, or with the defaults when opts is NULL; 0 when the
 * options are usable. */
static int resolve_opts(const rb_bootstrap_opts *opts, rb_bootstrap_opts *o)
{
    static const rb_bootstrap_opts defaults = RB_BOOTSTRAP_OPTS_DEFAULT;
    *o = opts != NULL ? *opts : defaults;
    if (o->resamples < 1) return RB_EINVAL;
    if (!(o->level > 0.0 && o->level < 1.0)) return RB_EINVAL;
    return 0;
}

/* malloc for `count` doubles, NULL on overflow or failure. */
static double *alloc_doubles(size_t count)
{
    if (count == 0 || count > SIZE_MAX / sizeof(double)) return NULL;
    return malloc(count * sizeof(double));
}

/* a + b + c, or SIZE_MAX when that overflows (alloc_doubles then fails). */
static size_t add3(size_t a, size_t b, size_t c)
{
    if (a > SIZE_MAX - b) return SIZE_MAX;
    if (a + b > SIZE_MAX - c) return SIZE_MAX;
    return a + b + c;
}

/* ---- sorted-sample helpers --------------------------------------------- */

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* Insertion sort below this size: bootstrap resamples are small (one value
 * per trial pair) and sorted 10,000 times, where qsort's call per
 * comparison dominates. */
#define SMALL_SORT 32

static void insertion_sort(double *xs, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        double x = xs[i];
        size_t j = i;
        for (; j > 0 && xs[j - 1] > x; j--) xs[j] = xs[j - 1];
        xs[j] = x;
    }
}

static void sort_doubles(double *xs, size_t n)
{
    if (n <= SMALL_SORT)
        insertion_sort(xs, n);
    else
        qsort(xs, n, sizeof *xs, cmp_double);
}

/* Type-7 quantile of sorted[0..n-1], n >= 1, 0 <= p <= 1.  Written as
 * x[j] + f (x[j+1] - x[j]) so that equal neighbours give exactly x[j]. */
static double sorted_quantile(const double *sorted, size_t n, double p)
{
    double h = (double)(n - 1) * p;
    size_t j = (size_t)h;
    if (j >= n - 1) return sorted[n - 1];
    double f = h - (double)j;
    if (f == 0.0) return sorted[j];
    return sorted[j] + f * (sorted[j + 1] - sorted[j]);
}

static double sorted_median(const double *sorted, size_t n)
{
    return sorted_quantile(sorted, n, 0.5);
}

/* Copies xs into scratch and sorts it. */
static void sorted_copy(const double *xs, size_t n, double *scratch)
{
    memcpy(scratch, xs, n * sizeof *xs);
    sort_doubles(scratch, n);
}

/* exp(mean(log x)), x > 0; the one geometric-mean formula used everywhere,
 * so that equal medians give bit-identical results. */
static double geomean_of(const double *xs, size_t n)
{
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) sum += log(xs[i]);
    return exp(sum / (double)n);
}

/* ---- descriptive statistics -------------------------------------------- */

int rb_stats_median(const double *xs, size_t n, double *out, double *scratch)
{
    if (!valid_sample(xs, n) || out == NULL || scratch == NULL) return RB_EINVAL;
    sorted_copy(xs, n, scratch);
    *out = sorted_median(scratch, n);
    return 0;
}

int rb_stats_mad(const double *xs, size_t n, double *out, double *scratch)
{
    if (!valid_sample(xs, n) || out == NULL || scratch == NULL) return RB_EINVAL;
    sorted_copy(xs, n, scratch);
    double m = sorted_median(scratch, n);
    for (size_t i = 0; i < n; i++) scratch[i] = fabs(scratch[i] - m);
    sort_doubles(scratch, n);
    *out = sorted_median(scratch, n);
    return 0;
}

int rb_stats_quantile(const double *xs, size_t n, double p, double *out, double *scratch)
{
    if (!valid_sample(xs, n) || out == NULL || scratch == NULL) return RB_EINVAL;
    if (!(p >= 0.0 && p <= 1.0)) return RB_EINVAL;
    sorted_copy(xs, n, scratch);
    *out = sorted_quantile(scratch, n, p);
    return 0;
}

int rb_stats_minmax(const double *xs, size_t n, double *min, double *max)
{
    if (!valid_sample(xs, n) || min == NULL || max == NULL) return RB_EINVAL;
    double lo = xs[0], hi = xs[0];
    for (size_t i = 1; i < n; i++) {
        if (xs[i] < lo) lo = xs[i];
        if (xs[i] > hi) hi = xs[i];
    }
    *min = lo;
    *max = hi;
    return 0;
}

int rb_stats_mean(const double *xs, size_t n, double *out)
{
    if (!valid_sample(xs, n) || out == NULL) return RB_EINVAL;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) sum += xs[i];
    *out = sum / (double)n;
    return 0;
}

int rb_stats_geomean(const double *xs, size_t n, double *out)
{
    if (xs == NULL || n == 0 || out == NULL || !all_positive(xs, n)) return RB_EINVAL;
    *out = geomean_of(xs, n);
    return 0;
}

/* ---- bootstrap --------------------------------------------------------- */

/* Median of n values drawn with replacement from xs, using buf[0..n-1]. */
static double resample_median(const double *xs, size_t n, rb_rng *rng, double *buf)
{
    for (size_t i = 0; i < n; i++) buf[i] = xs[rb_rng_below(rng, n)];
    sort_doubles(buf, n);
    return sorted_median(buf, n);
}

/* Percentile interval of the `count` resample statistics in stat (sorted in
 * place). */
static void percentile_interval(double *stat, size_t count, double level, double *lo, double *hi)
{
    double tail = (1.0 - level) / 2.0;
    sort_doubles(stat, count);
    *lo = sorted_quantile(stat, count, tail);
    *hi = sorted_quantile(stat, count, 1.0 - tail);
}

static int excludes_one(double lo, double hi)
{
    return lo > 1.0 || hi < 1.0;
}

/* ---- the sign-test interval and the minimum detectable effect ---------- */

/* The rank and coverage for valid n >= 1 and level: the cumulative
 * P(Binomial(n, 1/2) <= j) is summed term by term from log pmf values, so
 * that 2^-n cannot underflow the sum to zero at large n.  O(n). */
static void interval_rank(size_t n, double level, size_t *k_out, double *coverage_out)
{
    double log_pmf = -(double)n * log(2.0), cdf = exp(log_pmf); /* P(X <= 0) */
    size_t k = 1;
    double coverage = n > 1 ? 1.0 - 2.0 * cdf : 0.0;
    /* coverage(n, k + 1) = 1 - 2 P(X <= k) shrinks as k grows */
    while (k + 1 <= (n + 1) / 2) {
        log_pmf += log((double)(n - (k - 1)) / (double)k); /* pmf(k) from pmf(k - 1) */
        double next = 1.0 - 2.0 * (cdf + exp(log_pmf));
        if (next < level) break;
        cdf += exp(log_pmf);
        k++;
        coverage = next;
    }
    *k_out = k;
    *coverage_out = coverage;
}

int rb_stats_median_interval_rank(size_t n, double level, size_t *k, double *coverage)
{
    if (n == 0 || k == NULL || coverage == NULL || !(level > 0.0 && level < 1.0)) return RB_EINVAL;
    interval_rank(n, level, k, coverage);
    return 0;
}

static double normal_cdf(double x)
{
    return 0.5 * erfc(-x / sqrt(2.0));
}

double rb_stats_normal_quantile(double p)
{
    if (!(p > 0.0 && p < 1.0)) return NAN;
    double lo = -40.0, hi = 40.0;
    while (hi - lo > 1e-12) {
        double mid = 0.5 * (lo + hi);
        if (normal_cdf(mid) < p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

double rb_stats_log_se(double lo, double hi, double coverage)
{
    if (!(lo > 0.0 && hi >= lo && isfinite(hi)) || !(coverage > 0.0 && coverage < 1.0)) return NAN;
    return (log(hi) - log(lo)) / (2.0 * rb_stats_normal_quantile((1.0 + coverage) / 2.0));
}

double rb_stats_mde(double se, double level)
{
    if (!(se >= 0.0) || !(level > 0.0 && level < 1.0)) return NAN;
    double z = rb_stats_normal_quantile((1.0 + level) / 2.0) +
               rb_stats_normal_quantile(RB_STATS_MDE_POWER);
    return expm1(z * se);
}

/* The MDE of an interval, INFINITY when there is none. */
static double interval_mde(double lo, double hi, double coverage, double level, int too_few)
{
    if (too_few) return INFINITY;
    double se = rb_stats_log_se(lo, hi, coverage);
    return isnan(se) ? INFINITY : rb_stats_mde(se, level);
}

/* The paired summary of valid ratios, with work = n doubles. */
static void paired_summary(const double *ratios, size_t n, const rb_bootstrap_opts *o, double *work,
                           rb_paired_result *out)
{
    rb_paired_result r = {0};
    size_t k;

    r.n = n;
    r.level = o->level;
    for (size_t i = 0; i < n; i++) {
        if (ratios[i] > 1.0) r.wins++;
        if (ratios[i] < 1.0) r.losses++;
    }
    sorted_copy(ratios, n, work);
    r.median = sorted_median(work, n);
    interval_rank(n, o->level, &k, &r.coverage);
    r.lo = work[k - 1];
    r.hi = work[n - k];
    r.too_few = n < RB_STATS_MIN_PAIRS;
    r.excludes_one = !r.too_few && excludes_one(r.lo, r.hi);
    r.mde = interval_mde(r.lo, r.hi, r.coverage, o->level, r.too_few);
    *out = r;
}

int rb_stats_paired_ratios(const double *ratios, size_t n, const rb_bootstrap_opts *opts,
                           rb_paired_result *out)
{
    rb_bootstrap_opts o;
    if (ratios == NULL || n == 0 || out == NULL || !all_positive(ratios, n)) return RB_EINVAL;
    if (resolve_opts(opts, &o) < 0) return RB_EINVAL;

    double *work = alloc_doubles(n);
    if (work == NULL) return RB_ENOMEM;
    paired_summary(ratios, n, &o, work, out);
    free(work);
    return 0;
}

int rb_stats_paired(const double *time_a, const double *time_b, size_t n,
                    const rb_bootstrap_opts *opts, rb_paired_result *out)
{
    rb_bootstrap_opts o;
    if (time_a == NULL || time_b == NULL || n == 0 || out == NULL) return RB_EINVAL;
    if (!all_positive(time_a, n) || !all_positive(time_b, n)) return RB_EINVAL;
    if (resolve_opts(opts, &o) < 0) return RB_EINVAL;

    double *work = alloc_doubles(add3(n, n, 0));
    if (work == NULL) return RB_ENOMEM;
    double *ratios = work;
    for (size_t i = 0; i < n; i++) ratios[i] = time_a[i] / time_b[i];
    /* A quotient of finite positives can still overflow or underflow. */
    int rc = RB_EINVAL;
    if (all_positive(ratios, n)) {
        paired_summary(ratios, n, &o, work + n, out);
        rc = 0;
    }
    free(work);
    return rc;
}

/* ---- geometric mean across scenarios ----------------------------------- */

/* 1 when every set is usable; *max_n = the largest n. */
static int valid_sets(const rb_ratio_set *sets, size_t count, size_t *max_n)
{
    *max_n = 0;
    for (size_t s = 0; s < count; s++) {
        if (sets[s].ratios == NULL || sets[s].n == 0) return 0;
        if (!all_positive(sets[s].ratios, sets[s].n)) return 0;
        if (sets[s].n > *max_n) *max_n = sets[s].n;
    }
    return 1;
}

int rb_stats_geomean_medians(const rb_ratio_set *sets, size_t count, const rb_bootstrap_opts *opts,
                             rb_geomean_result *out)
{
    rb_bootstrap_opts o;
    size_t max_n;
    if (sets == NULL || count == 0 || out == NULL) return RB_EINVAL;
    if (!valid_sets(sets, count, &max_n)) return RB_EINVAL;
    if (resolve_opts(opts, &o) < 0) return RB_EINVAL;

    if (count == 1) {
        rb_paired_result p;
        int rc = rb_stats_paired_ratios(sets[0].ratios, sets[0].n, &o, &p);
        if (rc < 0) return rc;
        *out = (rb_geomean_result){1,          p.median, p.lo,      p.hi,          p.level,
                                   p.coverage, p.mde,    p.too_few, p.excludes_one};
        return 0;
    }
    double *work = alloc_doubles(add3(max_n, count, o.resamples));
    if (work == NULL) return RB_ENOMEM;
    double *buf = work, *medians = work + max_n, *stat = medians + count;
    rb_geomean_result r = {0};

    r.scenarios = count;
    r.level = o.level;
    r.coverage = o.level;
    for (size_t s = 0; s < count; s++) {
        sorted_copy(sets[s].ratios, sets[s].n, buf);
        medians[s] = sorted_median(buf, sets[s].n);
        if (sets[s].n < RB_STATS_MIN_PAIRS) r.too_few = 1;
    }
    r.geomean = geomean_of(medians, count);

    rb_rng rng;
    rb_rng_seed(&rng, o.seed);
    for (size_t k = 0; k < o.resamples; k++) {
        for (size_t s = 0; s < count; s++)
            medians[s] = resample_median(sets[s].ratios, sets[s].n, &rng, buf);
        stat[k] = geomean_of(medians, count);
    }
    percentile_interval(stat, o.resamples, o.level, &r.lo, &r.hi);
    r.excludes_one = !r.too_few && excludes_one(r.lo, r.hi);
    r.mde = interval_mde(r.lo, r.hi, r.coverage, o.level, r.too_few);
    *out = r;
    free(work);
    return 0;
}
