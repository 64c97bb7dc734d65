/*
 * test_changepoint.c — stats/changepoint.h on series whose answer is known:
 * exact series (every change is a step), Pettitt's test against a hand
 * count, the false-alarm rate of binary segmentation on simulated A/A
 * series (no step: normal and heavy-tailed noise), its power and placement
 * on a known step, and the unpaired ratio's estimate and coverage.
 *
 * The simulations use a fixed seed, so each run computes the same numbers;
 * the thresholds leave room of about 3 binomial standard deviations.
 */
#include <criterion/criterion.h>

#include <math.h>

#include "changepoint.h"
#include "rng.h"

#define SIMS 2000
#define LEN  20

static double normal(rb_rng *g)
{
    double u = rb_rng_unit(g), v = rb_rng_unit(g);
    return sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * v);
}

/* Noise with heavy tails: normal, and one point in ten 5 to 10 sd out. */
static double heavy(rb_rng *g)
{
    double z = normal(g);
    if (rb_rng_below(g, 10) == 0) z += (z < 0 ? -1 : 1) * (5 + 5 * rb_rng_unit(g));
    return z;
}

Test(changepoint, exact_series_every_change_is_a_step)
{
    /* 475.06 twice, 498.06 (a 23-instruction step), back, then one more */
    const double x[] = {475.06, 475.06, 498.06, 498.06, 475.06, 476.06};
    size_t starts[8], count;
    cr_assert_eq(rb_changepoint_find(x, 6, true, 0, 1, starts, 8, &count), RB_OK);
    cr_assert_eq(count, 3);
    cr_assert_eq(starts[0], 2);
    cr_assert_eq(starts[1], 4);
    cr_assert_eq(starts[2], 5);
    /* identical counts: nothing */
    const double same[] = {605.98, 605.98, 605.98};
    cr_assert_eq(rb_changepoint_find(same, 3, true, 0, 1, starts, 8, &count), RB_OK);
    cr_assert_eq(count, 0);
}

Test(changepoint, pettitt_statistic_by_hand)
{
    /* 1 2 3 | 10 11 12: U_3 = -9 (every one of 3 x 3 pairs rises), the
     * largest |U_t|; p = 2 exp(-6 * 81 / (216 + 36)) = 2 exp(-1.92857) */
    const double x[] = {1, 2, 3, 10, 11, 12};
    size_t at;
    double p;
    cr_assert_eq(rb_changepoint_pettitt(x, 6, &at, &p), RB_OK);
    cr_assert_eq(at, 3);
    cr_assert_float_eq(p, 2 * exp(-6.0 * 81 / 252), 1e-12);
    cr_assert_eq(rb_changepoint_pettitt(x, 1, &at, &p), RB_EINVAL);
}

/* The share of SIMS series of LEN points (a step of `step` sd at `where`,
 * 0 for none) with any flag; *placed counts flags exactly at where. */
static double flag_rate(double (*noise)(rb_rng *), double step, size_t where, size_t *placed)
{
    rb_rng g;
    rb_rng_seed(&g, 20261201);
    size_t flagged = 0;
    *placed = 0;
    for (int s = 0; s < SIMS; s++) {
        double x[LEN];
        for (size_t i = 0; i < LEN; i++) x[i] = 100 + noise(&g) + (i >= where ? step : 0);
        size_t starts[LEN], count;
        cr_assert_eq(rb_changepoint_find(x, LEN, false, RB_CHANGEPOINT_ALPHA,
                                         RB_CHANGEPOINT_MIN_SEGMENT, starts, LEN, &count),
                     RB_OK);
        flagged += count > 0;
        for (size_t k = 0; k < count && k < LEN; k++) *placed += starts[k] == where;
    }
    return (double)flagged / SIMS;
}

Test(changepoint, aa_series_false_alarms_at_most_alpha)
{
    size_t placed;
    /* alpha 1%: 2,000 series, sd of the rate 0.22 points */
    double normal_rate = flag_rate(normal, 0, LEN, &placed);
    double heavy_rate = flag_rate(heavy, 0, LEN, &placed);
    cr_log_info("A/A false alarms at alpha %.2f: normal %.4f, heavy-tailed %.4f",
                RB_CHANGEPOINT_ALPHA, normal_rate, heavy_rate);
    cr_assert_leq(normal_rate, RB_CHANGEPOINT_ALPHA + 0.007);
    cr_assert_leq(heavy_rate, RB_CHANGEPOINT_ALPHA + 0.007);
}

Test(changepoint, a_step_of_three_sd_is_found_where_it_is)
{
    size_t placed, hplaced, placed2;
    double rate = flag_rate(normal, 3.0, 10, &placed);
    /* with one point in ten 5-10 sd out, those points take wrong ranks and
     * the power falls (measured 0.40), but they make no false alarms */
    double hrate = flag_rate(heavy, 3.0, 10, &hplaced);
    double rate2 = flag_rate(normal, 2.0, 10, &placed2);
    cr_log_info("step at 10 of 20: 3 sd flagged %.3f (at 10: %.3f), heavy-tailed %.3f; "
                "2 sd flagged %.3f",
                rate, (double)placed / SIMS, hrate, rate2);
    cr_assert_geq(rate, 0.90);
    cr_assert_geq((double)placed / SIMS, 0.75);
    cr_assert_geq(hrate, 0.30);
    cr_assert_geq(rate2, 0.45);
}

Test(changepoint, two_steps_are_both_found)
{
    double x[30];
    for (int i = 0; i < 30; i++) x[i] = i < 10 ? 10 : i < 20 ? 20 : 12;
    /* a little noise, all ranks distinct within segments */
    for (int i = 0; i < 30; i++) x[i] += 0.01 * (i % 7);
    size_t starts[8], count;
    cr_assert_eq(rb_changepoint_find(x, 30, false, 0.01, 2, starts, 8, &count), RB_OK);
    cr_assert_eq(count, 2);
    cr_assert_eq(starts[0], 10);
    cr_assert_eq(starts[1], 20);
}

Test(changepoint, unpaired_ratio_estimate_and_coverage)
{
    /* b is 5% faster: times of a around 100, of b around 100/1.05 */
    const double a[] = {100, 101, 99, 100.5, 99.5};
    double b[5];
    for (int i = 0; i < 5; i++) b[i] = a[i] / 1.05;
    rb_unpaired_result r;
    cr_assert_eq(rb_changepoint_unpaired(a, 5, b, 5, 0.95, &r), RB_OK);
    cr_assert_float_eq(r.ratio, 1.05, 1e-12);
    cr_assert(r.lo <= 1.05 && r.hi >= 1.05);
    cr_assert(r.excludes_one);

    /* coverage on log-normal noise, 9 trials a side, true ratio 1 */
    rb_rng g;
    rb_rng_seed(&g, 7);
    int covered = 0;
    for (int s = 0; s < SIMS; s++) {
        double xa[9], xb[9];
        for (int i = 0; i < 9; i++) xa[i] = 100 * exp(0.02 * normal(&g));
        for (int i = 0; i < 9; i++) xb[i] = 100 * exp(0.02 * normal(&g));
        cr_assert_eq(rb_changepoint_unpaired(xa, 9, xb, 9, 0.95, &r), RB_OK);
        covered += r.lo <= 1.0 && r.hi >= 1.0;
    }
    cr_log_info("unpaired interval coverage at 9 + 9: %.4f", (double)covered / SIMS);
    cr_assert_geq((double)covered / SIMS, 0.93);
    cr_assert_eq(rb_changepoint_unpaired(a, 2, b, 5, 0.95, &r), RB_OK);
    cr_assert(r.too_few);
    const double bad[] = {0};
    cr_assert_eq(rb_changepoint_unpaired(bad, 1, b, 5, 0.95, &r), RB_EINVAL);
}
