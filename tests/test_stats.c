/*
 * test_stats.c — known answers for stats/stats.h: descriptive statistics,
 * the paired comparison and the geometric mean of scenario medians.  Every
 * expected value is worked out by hand in the comment beside it; quantiles
 * follow R's default (type 7): h = (n - 1) p, j = floor(h),
 * Q = x[j] + (h - j) (x[j+1] - x[j]) on the sorted sample (0-based).
 * The statistical behaviour under noise is in test_stats_sim.c.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stddef.h>

#include "stats.h"

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

/* |got - want| <= 1e-12 |want| (or 1e-12 absolute near zero). */
static int close_to(double got, double want)
{
    double tol = 1e-12 * (fabs(want) > 1.0 ? fabs(want) : 1.0);
    return fabs(got - want) <= tol;
}

#define EXPECT_CLOSE(got, want)                                                                    \
    cr_expect(close_to((got), (want)), "%s = %.17g, want %.17g", #got, (double)(got),              \
              (double)(want))

/* ---- median, MAD, quantile, min/max, mean, geometric mean -------------- */

Test(stats_median, odd_count_is_middle_value)
{
    /* {3, 1, 2} sorted {1, 2, 3}: the middle value is 2. */
    const double xs[] = {3, 1, 2};
    double m = 0, scratch[LEN(xs)];
    cr_assert_eq(rb_stats_median(xs, LEN(xs), &m, scratch), 0);
    cr_expect_eq(m, 2.0);
    /* The scratch buffer is left sorted; the input is untouched. */
    cr_expect(scratch[0] == 1.0 && scratch[1] == 2.0 && scratch[2] == 3.0);
    cr_expect(xs[0] == 3.0 && xs[1] == 1.0 && xs[2] == 2.0);
}

Test(stats_median, even_count_is_midpoint_of_middle_pair)
{
    /* {4, 1, 3, 2} sorted {1, 2, 3, 4}: (2 + 3) / 2 = 2.5. */
    const double xs[] = {4, 1, 3, 2};
    double m = 0, scratch[LEN(xs)];
    cr_assert_eq(rb_stats_median(xs, LEN(xs), &m, scratch), 0);
    cr_expect_eq(m, 2.5);
    /* {-1, -3}: (-3 + -1) / 2 = -2. */
    const double neg[] = {-1, -3};
    cr_assert_eq(rb_stats_median(neg, LEN(neg), &m, scratch), 0);
    cr_expect_eq(m, -2.0);
}

Test(stats_median, single_value_and_large_sample)
{
    double m = 0, scratch[101];
    const double one[] = {5};
    cr_assert_eq(rb_stats_median(one, 1, &m, scratch), 0);
    cr_expect_eq(m, 5.0);
    /* 101 values 100, 99, ..., 0 (past the insertion-sort size): median 50. */
    double xs[101];
    for (int i = 0; i < 101; i++) xs[i] = 100 - i;
    cr_assert_eq(rb_stats_median(xs, 101, &m, scratch), 0);
    cr_expect_eq(m, 50.0);
    for (int i = 0; i < 101; i++) cr_expect_eq(scratch[i], (double)i);
}

Test(stats_mad, unscaled_median_absolute_deviation)
{
    double mad = -1, scratch[8];
    /* {1, 2, 3, 4, 100}: median 3; |x - 3| = {2, 1, 0, 1, 97} sorted
     * {0, 1, 1, 2, 97}: MAD 1 (the outlier does not move it). */
    const double a[] = {1, 2, 3, 4, 100};
    cr_assert_eq(rb_stats_mad(a, LEN(a), &mad, scratch), 0);
    cr_expect_eq(mad, 1.0);
    /* {1, 2, 3, 4}: median 2.5; |x - 2.5| = {1.5, .5, .5, 1.5} sorted
     * {.5, .5, 1.5, 1.5}: MAD (.5 + 1.5) / 2 = 1. */
    const double b[] = {1, 2, 3, 4};
    cr_assert_eq(rb_stats_mad(b, LEN(b), &mad, scratch), 0);
    cr_expect_eq(mad, 1.0);
    /* {1, 1, 2, 2, 4, 6, 9}: median 2; |x - 2| = {1, 1, 0, 0, 2, 4, 7}
     * sorted {0, 0, 1, 1, 2, 4, 7}: MAD 1.  (R: mad(x) = 1.4826; we do not
     * scale.) */
    const double c[] = {1, 1, 2, 2, 4, 6, 9};
    cr_assert_eq(rb_stats_mad(c, LEN(c), &mad, scratch), 0);
    cr_expect_eq(mad, 1.0);
    /* A constant sample has MAD 0. */
    const double d[] = {7, 7, 7};
    cr_assert_eq(rb_stats_mad(d, LEN(d), &mad, scratch), 0);
    cr_expect_eq(mad, 0.0);
}

Test(stats_quantile, type7_odd_sample)
{
    /* {10, 2, 7, 4, 1} sorted {1, 2, 4, 7, 10}, n = 5, h = 4p:
     *   p 0    h 0            -> 1
     *   p .1   h .4           -> 1 + .4 (2 - 1)  = 1.4
     *   p .25  h 1            -> 2
     *   p .3   h 1.2          -> 2 + .2 (4 - 2)  = 2.4
     *   p .5   h 2            -> 4
     *   p .75  h 3            -> 7
     *   p .9   h 3.6          -> 7 + .6 (10 - 7) = 8.8
     *   p 1    h 4            -> 10                                     */
    const double xs[] = {10, 2, 7, 4, 1};
    const double p[] = {0, .1, .25, .3, .5, .75, .9, 1};
    const double want[] = {1, 1.4, 2, 2.4, 4, 7, 8.8, 10};
    double q, scratch[LEN(xs)];
    for (size_t i = 0; i < LEN(p); i++) {
        cr_assert_eq(rb_stats_quantile(xs, LEN(xs), p[i], &q, scratch), 0);
        cr_expect(close_to(q, want[i]), "p = %g: %.17g, want %g", p[i], q, want[i]);
    }
}

Test(stats_quantile, type7_even_and_single_samples)
{
    /* {1, 2, 3, 4}, h = 3p: p .25 -> h .75 -> 1.75; p .5 -> 2.5;
     * p .9 -> h 2.7 -> 3 + .7 = 3.7.  (R: quantile(1:4, c(.25, .5, .9)).) */
    const double xs[] = {4, 3, 2, 1};
    double q, scratch[4];
    cr_assert_eq(rb_stats_quantile(xs, 4, .25, &q, scratch), 0);
    EXPECT_CLOSE(q, 1.75);
    cr_assert_eq(rb_stats_quantile(xs, 4, .5, &q, scratch), 0);
    EXPECT_CLOSE(q, 2.5);
    cr_assert_eq(rb_stats_quantile(xs, 4, .9, &q, scratch), 0);
    EXPECT_CLOSE(q, 3.7);
    /* One value is every quantile. */
    const double one[] = {42};
    cr_assert_eq(rb_stats_quantile(one, 1, .37, &q, scratch), 0);
    cr_expect_eq(q, 42.0);
}

Test(stats_quantile, equal_neighbours_give_exact_value)
{
    /* Interpolating between equal values must not round: 0.1 stays 0.1. */
    const double xs[] = {0.1, 0.1, 0.1};
    double q, scratch[3];
    cr_assert_eq(rb_stats_quantile(xs, 3, .3, &q, scratch), 0);
    cr_expect_eq(q, 0.1);
}

Test(stats_basic, minmax_mean_geomean)
{
    const double xs[] = {3, -1, 7, 2};
    double lo = 0, hi = 0, mean = 0, g = 0;
    cr_assert_eq(rb_stats_minmax(xs, LEN(xs), &lo, &hi), 0);
    cr_expect(lo == -1.0 && hi == 7.0);
    /* (3 - 1 + 7 + 2) / 4 = 11 / 4 = 2.75 */
    cr_assert_eq(rb_stats_mean(xs, LEN(xs), &mean), 0);
    cr_expect_eq(mean, 2.75);
    /* (1 * 4 * 16)^(1/3) = 64^(1/3) = 4; (2 * 8)^(1/2) = 4. */
    const double g1[] = {1, 4, 16}, g2[] = {2, 8}, g3[] = {5};
    cr_assert_eq(rb_stats_geomean(g1, 3, &g), 0);
    EXPECT_CLOSE(g, 4.0);
    cr_assert_eq(rb_stats_geomean(g2, 2, &g), 0);
    EXPECT_CLOSE(g, 4.0);
    cr_assert_eq(rb_stats_geomean(g3, 1, &g), 0);
    EXPECT_CLOSE(g, 5.0);
}

Test(stats_errors, bad_samples_are_refused_and_outputs_untouched)
{
    const double ok[] = {1, 2, 3};
    const double with_nan[] = {1, NAN, 3};
    const double with_inf[] = {1, INFINITY, 3};
    const double nonpositive[] = {1, 0, 3};
    double out = 123, out2 = 456, scratch[3];

    cr_expect_eq(rb_stats_median(ok, 0, &out, scratch), RB_EINVAL);
    cr_expect_eq(rb_stats_median(NULL, 3, &out, scratch), RB_EINVAL);
    cr_expect_eq(rb_stats_median(ok, 3, NULL, scratch), RB_EINVAL);
    cr_expect_eq(rb_stats_median(ok, 3, &out, NULL), RB_EINVAL);
    cr_expect_eq(rb_stats_median(with_nan, 3, &out, scratch), RB_EINVAL);
    cr_expect_eq(rb_stats_mad(with_inf, 3, &out, scratch), RB_EINVAL);
    cr_expect_eq(rb_stats_quantile(ok, 3, -0.1, &out, scratch), RB_EINVAL);
    cr_expect_eq(rb_stats_quantile(ok, 3, 1.1, &out, scratch), RB_EINVAL);
    cr_expect_eq(rb_stats_quantile(ok, 3, NAN, &out, scratch), RB_EINVAL);
    cr_expect_eq(rb_stats_minmax(with_nan, 3, &out, &out2), RB_EINVAL);
    cr_expect_eq(rb_stats_mean(ok, 0, &out), RB_EINVAL);
    cr_expect_eq(rb_stats_geomean(nonpositive, 3, &out), RB_EINVAL);
    cr_expect_eq(out, 123.0);
    cr_expect_eq(out2, 456.0);
}

/* ---- paired comparison ------------------------------------------------- */

static void expect_same_paired(const rb_paired_result *x, const rb_paired_result *y)
{
    cr_expect_eq(x->n, y->n);
    cr_expect_eq(x->median, y->median);
    cr_expect_eq(x->lo, y->lo);
    cr_expect_eq(x->hi, y->hi);
    cr_expect_eq(x->level, y->level);
    cr_expect_eq(x->wins, y->wins);
    cr_expect_eq(x->losses, y->losses);
    cr_expect_eq(x->excludes_one, y->excludes_one);
    cr_expect_eq(x->coverage, y->coverage);
    cr_expect(x->mde == y->mde);
    cr_expect_eq(x->too_few, y->too_few);
}

Test(stats_paired, ratio_is_time_a_over_time_b_and_above_one_means_b_faster)
{
    /* A needs 2 ns per lookup, B 1 ns: B is twice as fast, r = 2 in every
     * pair, so B wins all 5 and the interval is [2, 2]. */
    const double slow[] = {2, 2, 2, 2, 2}, fast[] = {1, 1, 1, 1, 1};
    rb_paired_result r;
    cr_assert_eq(rb_stats_paired(slow, fast, 5, NULL, &r), 0);
    cr_expect_eq(r.n, 5u);
    cr_expect_eq(r.median, 2.0);
    cr_expect(r.lo == 2.0 && r.hi == 2.0);
    cr_expect_eq(r.wins, 5u);
    cr_expect_eq(r.losses, 0u);
    cr_expect_eq(r.excludes_one, 1);
    cr_expect_eq(r.too_few, 0);
    cr_expect_eq(r.level, RB_BOOTSTRAP_LEVEL);
    /* Swapped: B is half as fast, r = 0.5, B loses every pair. */
    cr_assert_eq(rb_stats_paired(fast, slow, 5, NULL, &r), 0);
    cr_expect_eq(r.median, 0.5);
    cr_expect_eq(r.wins, 0u);
    cr_expect_eq(r.losses, 5u);
    cr_expect_eq(r.excludes_one, 1);
}

Test(stats_paired, constant_ratio_gives_zero_width_interval_at_the_constant)
{
    /* Every a/b is exactly 1.25 (powers of two keep the quotient exact). */
    const double a[] = {1.25, 2.5, 5, 10, 0.625}, b[] = {1, 2, 4, 8, 0.5};
    rb_paired_result r;
    cr_assert_eq(rb_stats_paired(a, b, LEN(a), NULL, &r), 0);
    cr_expect_eq(r.median, 1.25);
    cr_expect_eq(r.lo, 1.25);
    cr_expect_eq(r.hi, 1.25);
    cr_expect_eq(r.wins, 5u);
    cr_expect_eq(r.excludes_one, 1);
    cr_expect_eq(r.mde, 0.0, "no spread: any change would show");
}

Test(stats_paired, fewer_than_five_pairs_claim_nothing)
{
    /* Rule: an interval from fewer than RB_STATS_MIN_PAIRS pairs is never
     * significant, however far from 1 the ratios are. */
    const double ones[] = {1, 1, 1, 1}, twos[] = {2, 2, 2, 2};
    rb_paired_result r;
    cr_assert_eq(rb_stats_paired_ratios(ones, 4, NULL, &r), 0);
    cr_expect(r.median == 1.0 && r.lo == 1.0 && r.hi == 1.0);
    cr_expect_eq(r.wins, 0u);
    cr_expect_eq(r.losses, 0u);
    cr_expect_eq(r.excludes_one, 0);
    cr_assert_eq(rb_stats_paired_ratios(twos, 4, NULL, &r), 0);
    cr_expect_eq(r.median, 2.0);
    cr_expect_eq(r.too_few, 1);
    cr_expect_eq(r.excludes_one, 0, "4 pairs: too few to claim a difference");
    cr_expect(isinf(r.mde));
    const double ratio[] = {1.1};
    cr_assert_eq(rb_stats_paired_ratios(ratio, 1, NULL, &r), 0);
    cr_expect(r.median == 1.1 && r.lo == 1.1 && r.hi == 1.1);
    cr_expect_eq(r.too_few, 1);
    cr_expect_eq(r.excludes_one, 0);
}

Test(stats_paired, the_interval_is_the_sign_test_order_statistics)
{
    /* 7 pairs: P(Bin(7, 1/2) <= 1) = 8/128 > 2.5%, so k = 1 and the
     * interval is [x(1), x(7)], coverage 1 - 2/128 = 98.4375%.  Sorted
     * ratios .90 .95 .99 1.00 1.02 1.05 1.20; median 1.00. */
    const double seven[] = {1.20, 0.90, 1.02, 0.99, 1.05, 1.00, 0.95};
    rb_paired_result r;
    cr_assert_eq(rb_stats_paired_ratios(seven, LEN(seven), NULL, &r), 0);
    cr_expect_eq(r.median, 1.00);
    cr_expect_eq(r.lo, 0.90);
    cr_expect_eq(r.hi, 1.20);
    EXPECT_CLOSE(r.coverage, 0.984375);
    cr_expect_eq(r.wins, 3u);
    cr_expect_eq(r.losses, 3u);
    cr_expect_eq(r.excludes_one, 0);

    /* 9 pairs: k = 2, [x(2), x(8)], coverage 1 - 2 * 10/512 = 96.09%.
     * One losing pair: sorted .98 1.03 ... 1.10 1.12 gives [1.03, 1.10],
     * which excludes 1 (B faster). */
    const double nine[] = {1.05, 0.98, 1.10, 1.03, 1.07, 1.04, 1.06, 1.12, 1.08};
    cr_assert_eq(rb_stats_paired_ratios(nine, 9, NULL, &r), 0);
    cr_expect_eq(r.median, 1.06);
    cr_expect_eq(r.lo, 1.03);
    cr_expect_eq(r.hi, 1.10);
    EXPECT_CLOSE(r.coverage, 0.9609375);
    cr_expect_eq(r.excludes_one, 1);

    /* 15 pairs: k = 4: [x(4), x(12)] of the sorted spread below, coverage
     * 1 - 2 (1 + 15 + 105 + 455) / 2^15 = 96.484375%. */
    const double fifteen[] = {0.97, 1.01, 1.04, 0.99, 1.00, 1.03, 0.96, 1.02,
                              1.05, 0.98, 1.06, 0.95, 1.07, 0.94, 1.08};
    cr_assert_eq(rb_stats_paired_ratios(fifteen, 15, NULL, &r), 0);
    cr_expect_eq(r.lo, 0.97); /* .94 .95 .96 [.97] */
    cr_expect_eq(r.hi, 1.05); /* [1.05] 1.06 1.07 1.08 */
    EXPECT_CLOSE(r.coverage, 0.96484375);
}

Test(stats_paired, interval_rank_and_coverage_table)
{
    /* Hand-computed from the binomial distribution (stats.h). */
    const struct {
        size_t n, k;
        double coverage;
    } rows[] = {{5, 1, 0.9375},
                {6, 1, 0.96875},
                {7, 1, 0.984375},
                {8, 1, 0.9921875},
                {9, 2, 0.9609375},
                {10, 2, 0.978515625},
                {20, 6, 0.958610534667969},
                {30, 10, 0.957226054742932}};
    for (size_t i = 0; i < LEN(rows); i++) {
        size_t k;
        double c;
        cr_assert_eq(rb_stats_median_interval_rank(rows[i].n, 0.95, &k, &c), 0);
        cr_expect_eq(k, rows[i].k, "n = %zu", rows[i].n);
        cr_expect(fabs(c - rows[i].coverage) < 1e-12, "n = %zu: %.15f", rows[i].n, c);
    }
    size_t k;
    double c;
    cr_expect_eq(rb_stats_median_interval_rank(0, 0.95, &k, &c), RB_EINVAL);
    cr_expect_eq(rb_stats_median_interval_rank(9, 1.0, &k, &c), RB_EINVAL);
    /* large n stays finite and near the level (no underflow of 2^-n) */
    cr_assert_eq(rb_stats_median_interval_rank(100000, 0.95, &k, &c), 0);
    cr_expect(c >= 0.95 && c < 0.951, "%.6f", c);
}

Test(stats_paired, normal_quantiles_and_the_minimum_detectable_effect)
{
    /* Reference values from Python's statistics.NormalDist().inv_cdf. */
    cr_expect(fabs(rb_stats_normal_quantile(0.975) - 1.959963984540054) < 1e-9);
    cr_expect(fabs(rb_stats_normal_quantile(0.8) - 0.8416212335729143) < 1e-9);
    cr_expect(fabs(rb_stats_normal_quantile(0.5)) < 1e-9);
    cr_expect(isnan(rb_stats_normal_quantile(0.0)) && isnan(rb_stats_normal_quantile(1.0)));
    /* The interval [0.98, 1.02] of 15 pairs (coverage 96.484375%, z =
     * 2.1065540881628135): SE = ln(1.02/0.98) / (2 z) = 0.0094954444;
     * MDE = exp(2.8015852 SE) - 1 = 2.6959%. */
    double se = rb_stats_log_se(0.98, 1.02, 0.96484375);
    cr_expect(fabs(se - 0.009495444441350425) < 1e-9, "%.12f", se);
    cr_expect(fabs(rb_stats_mde(se, 0.95) - 0.02695929652418516) < 1e-9);
    cr_expect(isnan(rb_stats_log_se(1.1, 1.0, 0.95)), "hi below lo");
    /* and the paired result carries the same number */
    double ratios[15];
    for (size_t i = 0; i < 15; i++) ratios[i] = i < 4 ? 0.98 : i > 10 ? 1.02 : 1.0;
    rb_paired_result r;
    cr_assert_eq(rb_stats_paired_ratios(ratios, 15, NULL, &r), 0);
    cr_expect(r.lo == 0.98 && r.hi == 1.02);
    cr_expect(fabs(r.mde - 0.02695929652418516) < 1e-9, "%.12f", r.mde);
}

/* 15 distinct ratios around 1 for the seed tests. */
static const double spread[] = {0.97, 1.01, 1.04, 0.99, 1.00, 1.03, 0.96, 1.02,
                                1.05, 0.98, 1.06, 0.95, 1.07, 0.94, 1.08};

Test(stats_paired, the_interval_needs_no_seed)
{
    /* Unlike a bootstrap interval, the sign-test interval does not depend
     * on the seed or the number of resamples. */
    rb_bootstrap_opts o = RB_BOOTSTRAP_OPTS_DEFAULT;
    rb_paired_result first, r;
    cr_assert_eq(rb_stats_paired_ratios(spread, LEN(spread), &o, &first), 0);
    for (uint64_t seed = 1; seed <= 10; seed++) {
        o.seed = seed;
        o.resamples = 10 * (size_t)seed;
        cr_assert_eq(rb_stats_paired_ratios(spread, LEN(spread), &o, &r), 0);
        expect_same_paired(&first, &r);
    }
    cr_expect(first.lo <= first.median && first.median <= first.hi);
}

Test(stats_paired, null_options_mean_the_defaults)
{
    const rb_bootstrap_opts o = RB_BOOTSTRAP_OPTS_DEFAULT;
    cr_expect_eq(o.resamples, 10000u);
    cr_expect_eq(o.level, 0.95);
    rb_paired_result x, y;
    cr_assert_eq(rb_stats_paired_ratios(spread, LEN(spread), NULL, &x), 0);
    cr_assert_eq(rb_stats_paired_ratios(spread, LEN(spread), &o, &y), 0);
    expect_same_paired(&x, &y);
}

Test(stats_paired, times_and_precomputed_ratios_agree_exactly)
{
    double a[LEN(spread)], b[LEN(spread)], ratios[LEN(spread)];
    for (size_t i = 0; i < LEN(spread); i++) {
        b[i] = 40.0 + (double)i;
        a[i] = b[i] * spread[i];
        ratios[i] = a[i] / b[i];
    }
    rb_paired_result x, y;
    cr_assert_eq(rb_stats_paired(a, b, LEN(a), NULL, &x), 0);
    cr_assert_eq(rb_stats_paired_ratios(ratios, LEN(ratios), NULL, &y), 0);
    expect_same_paired(&x, &y);
}

Test(stats_paired, wider_level_gives_wider_interval)
{
    rb_bootstrap_opts o = RB_BOOTSTRAP_OPTS_DEFAULT;
    rb_paired_result narrow, wide;
    o.level = 0.5;
    cr_assert_eq(rb_stats_paired_ratios(spread, LEN(spread), &o, &narrow), 0);
    o.level = 0.99;
    cr_assert_eq(rb_stats_paired_ratios(spread, LEN(spread), &o, &wide), 0);
    cr_expect_eq(narrow.level, 0.5);
    cr_expect(wide.lo <= narrow.lo && narrow.hi <= wide.hi);
    cr_expect(wide.hi - wide.lo > narrow.hi - narrow.lo);
}

Test(stats_paired, bad_arguments_are_refused_and_result_untouched)
{
    const double a[] = {1, 2, 3}, b[] = {1, 2, 3};
    const double zero[] = {1, 0, 3}, negative[] = {1, -2, 3}, nan[] = {1, NAN, 3};
    const double inf[] = {1, INFINITY, 3};
    const double huge[] = {1e300, 1, 1}, tiny[] = {1e-300, 1, 1};
    rb_paired_result r = {.n = 99};
    rb_bootstrap_opts o = RB_BOOTSTRAP_OPTS_DEFAULT;

    cr_expect_eq(rb_stats_paired(a, b, 0, NULL, &r), RB_EINVAL);
    cr_expect_eq(rb_stats_paired(NULL, b, 3, NULL, &r), RB_EINVAL);
    cr_expect_eq(rb_stats_paired(a, NULL, 3, NULL, &r), RB_EINVAL);
    cr_expect_eq(rb_stats_paired(a, b, 3, NULL, NULL), RB_EINVAL);
    cr_expect_eq(rb_stats_paired(zero, b, 3, NULL, &r), RB_EINVAL);
    cr_expect_eq(rb_stats_paired(a, zero, 3, NULL, &r), RB_EINVAL);
    cr_expect_eq(rb_stats_paired(negative, b, 3, NULL, &r), RB_EINVAL);
    cr_expect_eq(rb_stats_paired(nan, b, 3, NULL, &r), RB_EINVAL);
    cr_expect_eq(rb_stats_paired(a, inf, 3, NULL, &r), RB_EINVAL);
    /* 1e300 / 1e-300 overflows to infinity. */
    cr_expect_eq(rb_stats_paired(huge, tiny, 3, NULL, &r), RB_EINVAL);
    cr_expect_eq(rb_stats_paired_ratios(zero, 3, NULL, &r), RB_EINVAL);
    cr_expect_eq(rb_stats_paired_ratios(nan, 3, NULL, &r), RB_EINVAL);

    o.resamples = 0;
    cr_expect_eq(rb_stats_paired_ratios(a, 3, &o, &r), RB_EINVAL);
    o.resamples = 100;
    const double bad_levels[] = {0.0, 1.0, -0.5, 1.5, NAN};
    for (size_t i = 0; i < LEN(bad_levels); i++) {
        o.level = bad_levels[i];
        cr_expect_eq(rb_stats_paired_ratios(a, 3, &o, &r), RB_EINVAL, "level %g", bad_levels[i]);
    }
    cr_expect_eq(r.n, 99u);
}

/* ---- geometric mean of scenario medians -------------------------------- */

Test(stats_geomean, constant_scenarios_give_exact_geomean_and_zero_width)
{
    /* Scenario medians 2 and 8: geometric mean sqrt(16) = 4.  Every
     * resample of a constant scenario has the same median, so every
     * resample statistic is bit-identical to the point estimate. */
    const double two[] = {2, 2, 2, 2, 2}, eight[] = {8, 8, 8, 8, 8};
    const rb_ratio_set sets[] = {{two, LEN(two)}, {eight, LEN(eight)}};
    rb_geomean_result g;
    cr_assert_eq(rb_stats_geomean_medians(sets, 2, NULL, &g), 0);
    cr_expect_eq(g.scenarios, 2u);
    EXPECT_CLOSE(g.geomean, 4.0);
    cr_expect_eq(g.lo, g.geomean);
    cr_expect_eq(g.hi, g.geomean);
    cr_expect_eq(g.excludes_one, 1);
    cr_expect_eq(g.level, RB_BOOTSTRAP_LEVEL);
    cr_expect_eq(g.mde, 0.0);
    /* a scenario of fewer than 5 pairs: the geometric mean claims nothing */
    const rb_ratio_set short_sets[] = {{two, LEN(two)}, {eight, 3}};
    cr_assert_eq(rb_stats_geomean_medians(short_sets, 2, NULL, &g), 0);
    cr_expect_eq(g.too_few, 1);
    cr_expect_eq(g.excludes_one, 0);
    cr_expect(isinf(g.mde));
}

Test(stats_geomean, point_estimate_is_geomean_of_scenario_medians)
{
    /* Medians: {1, 2, 4} -> 2; {8, 1, 100} -> 8; sqrt(2 * 8) = 4.
     * (The geometric mean of all six ratios would be 6400^(1/6) = 4.31.) */
    const double s0[] = {1, 2, 4}, s1[] = {8, 1, 100};
    const rb_ratio_set sets[] = {{s0, 3}, {s1, 3}};
    rb_geomean_result g;
    cr_assert_eq(rb_stats_geomean_medians(sets, 2, NULL, &g), 0);
    EXPECT_CLOSE(g.geomean, 4.0);
    cr_expect(g.lo <= g.geomean && g.geomean <= g.hi);
    cr_expect_eq(g.excludes_one, g.lo > 1.0 || g.hi < 1.0);
}

Test(stats_geomean, one_scenario_is_the_paired_interval)
{
    /* One scenario: no bootstrap, its sign-test interval exactly. */
    const rb_ratio_set set = {spread, LEN(spread)};
    rb_geomean_result g;
    rb_paired_result p;
    cr_assert_eq(rb_stats_geomean_medians(&set, 1, NULL, &g), 0);
    cr_assert_eq(rb_stats_paired_ratios(spread, LEN(spread), NULL, &p), 0);
    cr_expect_eq(g.geomean, p.median);
    cr_expect_eq(g.lo, p.lo);
    cr_expect_eq(g.hi, p.hi);
    cr_expect_eq(g.coverage, p.coverage);
    cr_expect_eq(g.mde, p.mde);
}

Test(stats_geomean, same_seed_same_interval)
{
    const double s1[] = {1.10, 1.02, 0.99, 1.05, 1.07};
    const rb_ratio_set sets[] = {{spread, LEN(spread)}, {s1, LEN(s1)}};
    rb_bootstrap_opts o = RB_BOOTSTRAP_OPTS_DEFAULT;
    o.seed = 5;
    rb_geomean_result x, y;
    cr_assert_eq(rb_stats_geomean_medians(sets, 2, &o, &x), 0);
    cr_assert_eq(rb_stats_geomean_medians(sets, 2, &o, &y), 0);
    cr_expect(x.geomean == y.geomean && x.lo == y.lo && x.hi == y.hi);
    cr_expect_eq(x.excludes_one, y.excludes_one);
    cr_expect(x.lo <= x.geomean && x.geomean <= x.hi);
}

Test(stats_geomean, bad_arguments_are_refused_and_result_untouched)
{
    const double ok[] = {1, 2}, zero[] = {1, 0};
    rb_geomean_result g = {.scenarios = 99};
    rb_ratio_set sets[] = {{ok, 2}, {ok, 2}};
    rb_bootstrap_opts o = RB_BOOTSTRAP_OPTS_DEFAULT;

    cr_expect_eq(rb_stats_geomean_medians(NULL, 2, NULL, &g), RB_EINVAL);
    cr_expect_eq(rb_stats_geomean_medians(sets, 0, NULL, &g), RB_EINVAL);
    cr_expect_eq(rb_stats_geomean_medians(sets, 2, NULL, NULL), RB_EINVAL);
    sets[1].n = 0;
    cr_expect_eq(rb_stats_geomean_medians(sets, 2, NULL, &g), RB_EINVAL);
    sets[1].n = 2;
    sets[1].ratios = NULL;
    cr_expect_eq(rb_stats_geomean_medians(sets, 2, NULL, &g), RB_EINVAL);
    sets[1].ratios = zero;
    cr_expect_eq(rb_stats_geomean_medians(sets, 2, NULL, &g), RB_EINVAL);
    sets[1].ratios = ok;
    o.level = 1.0;
    cr_expect_eq(rb_stats_geomean_medians(sets, 2, &o, &g), RB_EINVAL);
    cr_expect_eq(g.scenarios, 99u);
}
