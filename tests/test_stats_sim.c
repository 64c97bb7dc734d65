/*
 * test_stats_sim.c — seeded simulations of the paired statistics (no
 * timing): does the sign-test interval of stats.h (and the bootstrap
 * interval of a geometric mean) cover the true ratio and detect a real
 * difference as often as it should, with independent noise?  Hostile noise
 * and the gate's outcomes are in test_gate_sim.c.
 *
 * Model of a trial pair: time_a = 100 ns * exp(sd * z1), time_b = 100 ns /
 * true_ratio * exp(sd * z2), with z1, z2 independent standard normals
 * (multiplicative log-normal noise).  The true median of time_a / time_b is
 * true_ratio.  Paired comparisons need no resampling; the geometric mean's
 * bootstrap uses 2,000 resamples instead of 10,000 to keep the tests fast
 * under ASan (rates measured with 10,000 are in stats.h).
 *
 * Coverage thresholds: the sign-test interval's coverage is exact for this
 * model (96.5% at 15 pairs), so 4,000 comparisons estimate it to within
 * 0.3 points (one binomial sd); the tests require the nominal 95%.
 * The data come from a fixed seed, so each run computes the same numbers.
 */
#include <criterion/criterion.h>

#include <math.h>

#include "stats.h"

#define SIMS      4000
#define RESAMPLES 2000
#define MAX_PAIRS 32

/* A standard normal variate (Box-Muller; 1 - u keeps log away from 0). */
static double normal(rb_rng *rng)
{
    double u1 = rb_rng_unit(rng), u2 = rb_rng_unit(rng);
    return sqrt(-2.0 * log(1.0 - u1)) * cos(6.283185307179586 * u2);
}

typedef struct sim_rates {
    double covers;   /* fraction of intervals that contain true_ratio */
    double excludes; /* fraction of intervals that exclude 1.0 */
    double b_faster; /* fraction with lo > 1 (B judged faster) */
} sim_rates;

/* Runs SIMS paired comparisons of n pairs and counts the outcomes. */
static sim_rates simulate(size_t n, double true_ratio, double sd, uint64_t data_seed)
{
    rb_bootstrap_opts o = RB_BOOTSTRAP_OPTS_DEFAULT;
    o.resamples = RESAMPLES;
    rb_rng rng;
    rb_rng_seed(&rng, data_seed);
    double a[MAX_PAIRS], b[MAX_PAIRS];
    size_t covers = 0, excludes = 0, b_faster = 0;

    cr_assert_leq(n, (size_t)MAX_PAIRS);
    for (int s = 0; s < SIMS; s++) {
        for (size_t i = 0; i < n; i++) {
            a[i] = 100.0 * exp(sd * normal(&rng));
            b[i] = 100.0 / true_ratio * exp(sd * normal(&rng));
        }
        rb_paired_result r;
        cr_assert_eq(rb_stats_paired(a, b, n, &o, &r), 0);
        covers += r.lo <= true_ratio && true_ratio <= r.hi;
        excludes += (size_t)r.excludes_one;
        b_faster += r.lo > 1.0;
    }
    sim_rates rates = {(double)covers / SIMS, (double)excludes / SIMS, (double)b_faster / SIMS};
    cr_log_info("%zu pairs, true ratio %.4f, noise %.0f%%: covers %.1f%%, excludes 1 in %.1f%%", n,
                true_ratio, 100 * sd, 100 * rates.covers, 100 * rates.excludes);
    return rates;
}

Test(stats_sim, equal_speeds_15_pairs_cover_one_at_least_95_percent)
{
    /* [x(4), x(12)]: exact coverage 96.48%; the percentile bootstrap
     * interval used before covered 92.7% here.  Require >= 95%. */
    sim_rates r = simulate(15, 1.0, 0.03, 1);
    cr_expect_geq(r.covers, 0.95, "15 pairs: covers 1.0 in %.1f%%", 100 * r.covers);
    cr_expect(fabs(r.excludes - (1.0 - r.covers)) < 1e-9); /* the true ratio is 1 */
}

Test(stats_sim, equal_speeds_7_and_9_pairs_cover_one_at_the_exact_rate)
{
    /* 7 pairs: [x(1), x(7)], 98.44%; 9 pairs: [x(2), x(8)], 96.09%.  The
     * bootstrap covered 87.6% at 7.  Require >= 95% and within 1 point of
     * the exact rate (3 sd). */
    sim_rates r7 = simulate(7, 1.0, 0.03, 2);
    cr_expect_geq(r7.covers, 0.95, "7 pairs: covers 1.0 in %.1f%%", 100 * r7.covers);
    cr_expect(fabs(r7.covers - 0.984375) < 0.01, "7 pairs: %.1f%%", 100 * r7.covers);
    sim_rates r9 = simulate(9, 1.0, 0.03, 3);
    cr_expect_geq(r9.covers, 0.95, "9 pairs: covers 1.0 in %.1f%%", 100 * r9.covers);
    cr_expect(fabs(r9.covers - 0.9609375) < 0.01, "9 pairs: %.1f%%", 100 * r9.covers);
}

Test(stats_sim, five_percent_faster_at_two_percent_noise_is_detected)
{
    /* B is 5% faster, 2% noise per run: a pair's log ratio is N(log 1.05,
     * 0.02 sqrt 2), so P(r_i < 1) = Phi(-1.72) = 4.2%.  With 15 pairs the
     * interval starts at x(4) and excludes 1 unless 4+ ratios fall below 1:
     * P ~ 0.03%.  Expect >= 90% excluding 1, always on the right side (lo >
     * 1: B faster). */
    sim_rates r15 = simulate(15, 1.05, 0.02, 4);
    cr_expect_geq(r15.excludes, 0.90, "15 pairs: excludes 1.0 in %.1f%%", 100 * r15.excludes);
    cr_expect_eq(r15.b_faster, r15.excludes);
    cr_expect_geq(r15.covers, 0.95, "15 pairs: covers 1.05 in %.1f%%", 100 * r15.covers);
}

Test(stats_sim, five_percent_slower_is_detected_on_the_other_side)
{
    /* The mirror image: B 5% slower, r = 1/1.05; hi < 1 in >= 90%. */
    sim_rates r = simulate(15, 1.0 / 1.05, 0.02, 6);
    cr_expect_geq(r.excludes, 0.90, "excludes 1.0 in %.1f%%", 100 * r.excludes);
    cr_expect_eq(r.b_faster, 0.0);
}

/* Geometric mean across 3 scenarios of 15 pairs, each with its own true
 * ratio; returns the coverage of the true geometric mean and the rate of
 * excluding 1. */
static sim_rates simulate_geomean(const double truth[3], double sd, uint64_t data_seed)
{
    enum { SCENARIOS = 3, PAIRS = 15, GSIMS = 400 };
    rb_bootstrap_opts o = RB_BOOTSTRAP_OPTS_DEFAULT;
    o.resamples = RESAMPLES;
    rb_rng rng;
    rb_rng_seed(&rng, data_seed);
    double ratios[SCENARIOS][PAIRS];
    rb_ratio_set sets[SCENARIOS];
    double true_geomean = cbrt(truth[0] * truth[1] * truth[2]);
    size_t covers = 0, excludes = 0, b_faster = 0;

    for (int g = 0; g < GSIMS; g++) {
        for (int s = 0; s < SCENARIOS; s++) {
            for (int i = 0; i < PAIRS; i++)
                ratios[s][i] = truth[s] * exp(sd * normal(&rng)) / exp(sd * normal(&rng));
            sets[s].ratios = ratios[s];
            sets[s].n = PAIRS;
        }
        rb_geomean_result r;
        cr_assert_eq(rb_stats_geomean_medians(sets, SCENARIOS, &o, &r), 0);
        covers += r.lo <= true_geomean && true_geomean <= r.hi;
        excludes += (size_t)r.excludes_one;
        b_faster += r.lo > 1.0;
    }
    sim_rates rates = {(double)covers / GSIMS, (double)excludes / GSIMS, (double)b_faster / GSIMS};
    cr_log_info("geomean of 3 x 15 pairs, true %.4f: covers %.1f%%, excludes 1 in %.1f%%",
                true_geomean, 100 * rates.covers, 100 * rates.excludes);
    return rates;
}

Test(stats_sim, geomean_interval_covers_and_detects)
{
    /* Three scenarios of 15 pairs, 3% noise.  Equal speeds everywhere:
     * averaging medians smooths the bootstrap's discreteness, and it
     * covered 97.5% with 10,000 resamples (stats.h); require >= 95% of 400
     * (sd ~0.8 points).  B 5% faster in one scenario, 10% in another, equal
     * in the third (true geomean 1.05^(1/3) 1.1^(1/3) = 1.049): detected in
     * >= 90%. */
    const double equal[3] = {1.0, 1.0, 1.0};
    sim_rates r = simulate_geomean(equal, 0.03, 7);
    cr_expect_geq(r.covers, 0.95, "equal speeds: covers 1.0 in %.1f%%", 100 * r.covers);

    const double faster[3] = {1.05, 1.10, 1.0};
    r = simulate_geomean(faster, 0.03, 8);
    cr_expect_geq(r.excludes, 0.90, "geomean 1.049: excludes 1.0 in %.1f%%", 100 * r.excludes);
    cr_expect_eq(r.b_faster, r.excludes);
    cr_expect_geq(r.covers, 0.85, "geomean 1.049: covers it in %.1f%%", 100 * r.covers);
}
