/*
 * test_selftest_power.c — the self-test's summary against runs whose right
 * answers are known: "trials for 90% detection" (bench/selftest.h,
 * rb_selftest_trials_for_power) on simulated A/A and slowed series decided
 * by the gate of bench/bundle/gate.h, and its exact cases.
 *
 * A simulated run of n pairs: time_a = exp(sd z1), time_b = slow x exp(sd
 * z2) (z standard normal, log-normal noise), summarised by stats.h and
 * decided at --fail-below R as `pair --self-test` decides each run.  The
 * estimate must (1) never be below the trials that just failed to reach
 * 90% detection, (2) reach about 90% detection when used, (3) say never
 * when (1 + X) R <= 1, for counts too.
 */
#include "gate.h"
#include "rng.h"
#include "selftest.h"
#include "stats.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define MAX_PAIRS 400

static double normal(rb_rng *rng)
{
    double u1 = rb_rng_unit(rng), u2 = rb_rng_unit(rng);
    return sqrt(-2.0 * log(1.0 - u1)) * cos(6.283185307179586 * u2);
}

static int cmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* runs simulated gate runs of n pairs, B slower by `slow` (1.05: 5%). */
static rb_selftest_case simulate(size_t n, double slow, double sd, double threshold, unsigned runs,
                                 uint64_t seed)
{
    rb_rng rng;
    rb_rng_seed(&rng, seed);
    rb_selftest_case c = {0};
    static double ses[4096];
    double ta[MAX_PAIRS], tb[MAX_PAIRS];
    for (unsigned k = 0; k < runs; k++) {
        for (size_t i = 0; i < n; i++) {
            ta[i] = exp(sd * normal(&rng));
            tb[i] = slow * exp(sd * normal(&rng));
        }
        rb_paired_result p;
        cr_assert_eq(rb_stats_paired(ta, tb, n, NULL, &p), RB_OK);
        rb_gate_evidence e = {false, p.n, p.too_few, p.median, p.lo, p.hi, p.coverage, p.mde};
        rb_gate_verdict v = rb_gate_decide(threshold, &e);
        c.runs++;
        c.failed += v.outcome == RB_GATE_FAILED;
        c.passed += v.outcome == RB_GATE_PASSED;
        c.inconclusive += v.outcome == RB_GATE_INCONCLUSIVE;
        ses[k] = rb_stats_log_se(p.lo, p.hi, p.coverage);
    }
    qsort(ses, runs, sizeof *ses, cmp);
    c.se_median = runs % 2 ? ses[runs / 2] : 0.5 * (ses[runs / 2 - 1] + ses[runs / 2]);
    return c;
}

static rb_selftest_opts opts(int metric, double effect, double threshold, unsigned trials)
{
    rb_selftest_opts o = {0};
    o.metric = metric;
    o.effect = effect;
    o.threshold = threshold;
    o.proto.trials = trials;
    return o;
}

Test(selftest_power, counts_never_when_the_regression_is_not_past_the_threshold)
{
    /* 1.03 x 0.97 = 0.9991 <= 1: a 3% regression never fails a 0.97 gate */
    rb_selftest_opts o = opts(RB_METRIC_INSTRUCTIONS, 0.03, 0.97, 1);
    rb_selftest_case aa = {.runs = 1, .passed = 1}, slowed = {.runs = 1, .passed = 1};
    cr_assert_eq(rb_selftest_trials_for_power(&o, &aa, &slowed), SIZE_MAX);
    /* 1.05 x 0.97 > 1: one count decides */
    o.effect = 0.05;
    slowed.passed = 0, slowed.failed = 1;
    cr_assert_eq(rb_selftest_trials_for_power(&o, &aa, &slowed), 1);
    /* time: the same "never" */
    rb_selftest_opts t = opts(RB_METRIC_TIME, 0.03, 0.97, 15);
    cr_assert_eq(rb_selftest_trials_for_power(&t, &aa, &slowed), SIZE_MAX);
}

/* The run that printed "about 7 (15 now)" after 7/10 detections: an A/A
 * spread that alone suggests 7 trials, and 7 of 10 slowed runs failed at
 * 15.  90% was not reached at 15, so the answer is above 15. */
Test(selftest_power, never_below_the_trials_that_just_fell_short)
{
    rb_selftest_opts o = opts(RB_METRIC_TIME, 0.05, 0.97, 15);
    /* SE1 = se x sqrt(15); n = (SE1 x 3.24 / ln(1.0185))^2 = 7 at se 0.0038 */
    rb_selftest_case aa = {.runs = 10, .passed = 10, .se_median = 0.0038};
    rb_selftest_case slowed = {.runs = 10, .failed = 7, .passed = 3};
    size_t n = rb_selftest_trials_for_power(&o, &aa, &slowed);
    cr_log_info("7/10 at 15 trials: about %zu", n);
    cr_assert_gt(n, 15);
    /* 10/10 at 15: no more than 15 */
    slowed.failed = 10, slowed.passed = 0;
    n = rb_selftest_trials_for_power(&o, &aa, &slowed);
    cr_assert_leq(n, 15);
    cr_assert_geq(n, 7);
    /* 0/10: still above 15, and finite */
    slowed.failed = 0, slowed.passed = 10;
    n = rb_selftest_trials_for_power(&o, &aa, &slowed);
    cr_assert_gt(n, 15);
    cr_assert_lt(n, SIZE_MAX);
}

Test(selftest_power, the_estimate_reaches_ninety_percent_in_simulation)
{
    /* noise such that 15 pairs detect a 5% regression at 0.97 about half
     * the time; 400 runs a case */
    const double sd = 0.02, slow = 1.05, r = 0.97;
    const unsigned runs = 400;
    rb_selftest_opts o = opts(RB_METRIC_TIME, 0.05, r, 15);
    rb_selftest_case aa = simulate(15, 1.0, sd, r, runs, 1);
    rb_selftest_case slowed = simulate(15, slow, sd, r, runs, 2);
    double rate15 = (double)slowed.failed / runs;
    size_t n = rb_selftest_trials_for_power(&o, &aa, &slowed);
    cr_assert_lt(n, MAX_PAIRS);
    rb_selftest_case at_n = simulate(n, slow, sd, r, runs, 3);
    double rate_n = (double)at_n.failed / runs;
    cr_log_info("sd %.3f: detection %.3f at 15 trials; estimate %zu trials; detection there %.3f",
                sd, rate15, n, rate_n);
    cr_assert_lt(rate15, 0.9);
    cr_assert_gt(n, 15);
    cr_assert_geq(rate_n, 0.85);
    /* and not wildly more than needed: at half the estimate, below 90% */
    rb_selftest_case half = simulate(n / 2 > 15 ? n / 2 : 15, slow, sd, r, runs, 4);
    cr_assert_lt((double)half.failed / runs, 0.9);
    /* A/A false alarms are gate failures: at most the one-sided error */
    cr_assert_leq(aa.failed, runs / 20);
}
