/*
 * test_gate_sim.c — seeded simulations of the whole wall-clock gate (no
 * timing): trials are generated slot by slot in the harness's own round
 * order (rb_bench_round_orders), with realistic and hostile noise, turned
 * into pair ratios, summarised by stats.h and decided by bench/bundle/gate.h at
 * --fail-below 0.97, as `routebench pair` does.
 *
 * A run of n pairs is 2n consecutive time slots; slot 2t + p holds the
 * router at position p of round t.  A trial's time is
 *     truth(router) x noise(slot) x exp(sd z),  z standard normal,
 * truth 1 for A and 1/ratio for B, and noise(slot) the disturbance:
 *   iid        none (the exp(sd z) term only)
 *   drift      the machine slows steadily, 30% over the run
 *   bursts     each slot starts, with probability 4%, a burst of 2 to 6
 *              slots during which trials take 30% to 100% longer
 *   periodic   every 4th slot takes 50% longer (period 4 slots: the old
 *              rotation AB BA AB BA would put it on A every time)
 *   hostile    drift, bursts and the periodic disturbance together
 *
 * Claims checked (the issue's, with the gate's outcomes):
 *   - the 95% interval covers the true ratio in >= 95% of runs, or the run
 *     is declared inconclusive (the gate does not pretend to know);
 *   - identical routers never fail the gate more than the interval's
 *     one-sided error allows (<= 2.5%);
 *   - a 5% regression at 2% noise is detected (interval wholly below 1) in
 *     >= 90% of runs of 15 pairs;
 *   - the old strict rotation loses its coverage under the periodic
 *     disturbance (64% instead of 95%), which the shuffled order keeps (why
 *     the order changed).
 * 2,000 runs per case: a rate of 96% is estimated to within 0.45 points
 * (one binomial sd), so ">= 95%" holds with margin when the truth is 96%+.
 */
#include "gate.h"
#include "harness.h"
#include "stats.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdbool.h>

#define RUNS      2000
#define MAX_PAIRS 32

typedef enum noise_kind { IID, DRIFT, BURSTS, PERIODIC, HOSTILE } noise_kind;
static const char *const noise_names[] = {"iid", "drift", "bursts", "periodic", "hostile"};

static double normal(rb_rng *rng)
{
    double u1 = rb_rng_unit(rng), u2 = rb_rng_unit(rng);
    return sqrt(-2.0 * log(1.0 - u1)) * cos(6.283185307179586 * u2);
}

/* The disturbance factor of every slot of one run. */
static void disturbance(noise_kind kind, size_t slots, rb_rng *rng, double *f)
{
    for (size_t s = 0; s < slots; s++) f[s] = 1.0;
    if (kind == DRIFT || kind == HOSTILE)
        for (size_t s = 0; s < slots; s++) f[s] *= 1.0 + 0.3 * (double)s / (double)slots;
    if (kind == BURSTS || kind == HOSTILE)
        for (size_t s = 0; s < slots; s++) {
            if (rb_rng_unit(rng) >= 0.04) continue;
            size_t len = 2 + (size_t)rb_rng_below(rng, 5);
            double amp = 1.3 + 0.7 * rb_rng_unit(rng);
            for (size_t k = s; k < s + len && k < slots; k++) f[k] *= amp;
        }
    if (kind == PERIODIC || kind == HOSTILE)
        for (size_t s = 0; s < slots; s += 4) f[s] *= 1.5;
}

typedef struct sim_rates {
    double covered_or_inconclusive; /* the interval covers the truth, or the gate said so */
    double covers;                  /* the interval covers the truth */
    double detected;                /* hi < 1 */
    double failed;                  /* the gate failed */
    double inconclusive;
} sim_rates;

/* RUNS simulated pair runs of n pairs with B's true speed ratio `ratio`. */
static sim_rates simulate(noise_kind kind, size_t n, double ratio, double sd, bool rotating,
                          uint64_t seed)
{
    rb_rng rng;
    rb_rng_seed(&rng, seed);
    size_t cov_or_inc = 0, cov = 0, det = 0, failed = 0, inc = 0;
    cr_assert_leq(n, (size_t)MAX_PAIRS);
    for (int run = 0; run < RUNS; run++) {
        uint32_t order[MAX_PAIRS];
        double f[2 * MAX_PAIRS], ta[MAX_PAIRS], tb[MAX_PAIRS];
        if (rotating)
            for (size_t t = 0; t < n; t++) order[t] = (uint32_t)(t % 2); /* AB, BA, ... */
        else
            rb_bench_round_orders(rb_rng_next(&rng), n, 2, order);
        disturbance(kind, 2 * n, &rng, f);
        for (size_t t = 0; t < n; t++)
            for (size_t p = 0; p < 2; p++) {
                size_t router = rb_bench_order_router(order[t], p, 2);
                double truth = router == 0 ? 1.0 : 1.0 / ratio;
                double v = 100.0 * truth * f[2 * t + p] * exp(sd * normal(&rng));
                if (router == 0)
                    ta[t] = v;
                else
                    tb[t] = v;
            }
        rb_paired_result r;
        cr_assert_eq(rb_stats_paired(ta, tb, n, NULL, &r), 0);
        rb_gate_evidence e = {false, r.n, r.too_few != 0, r.median, r.lo, r.hi, r.coverage, r.mde};
        rb_gate_verdict v = rb_gate_decide(0.97, &e);
        bool covers = r.lo <= ratio && ratio <= r.hi;
        cov += covers;
        cov_or_inc += covers || v.outcome == RB_GATE_INCONCLUSIVE;
        det += !r.too_few && r.hi < 1.0;
        failed += v.outcome == RB_GATE_FAILED;
        inc += v.outcome == RB_GATE_INCONCLUSIVE;
    }
    sim_rates s = {(double)cov_or_inc / RUNS, (double)cov / RUNS, (double)det / RUNS,
                   (double)failed / RUNS, (double)inc / RUNS};
    cr_log_info("%-8s %s, %zu pairs, ratio %.4f, sd %.0f%%: covers %.1f%%, covers or "
                "inconclusive %.1f%%, detected %.1f%%, gate failed %.1f%%, inconclusive %.1f%%",
                noise_names[kind], rotating ? "rotating" : "shuffled", n, ratio, 100 * sd,
                100 * s.covers, 100 * s.covered_or_inconclusive, 100 * s.detected, 100 * s.failed,
                100 * s.inconclusive);
    return s;
}

Test(gate_sim, the_interval_covers_or_the_gate_says_inconclusive_under_every_noise)
{
    for (noise_kind k = IID; k <= HOSTILE; k++) {
        for (int truth = 0; truth < 2; truth++) {
            double ratio = truth ? 1.0 / 1.05 : 1.0;
            sim_rates s =
                simulate(k, 15, ratio, 0.02, false, 100 + 10 * (uint64_t)k + (uint64_t)truth);
            cr_expect_geq(s.covered_or_inconclusive, 0.95,
                          "%s, ratio %.3f: covered or inconclusive in %.1f%%", noise_names[k],
                          ratio, 100 * s.covered_or_inconclusive);
        }
    }
}

Test(gate_sim, identical_routers_rarely_fail_the_gate_whatever_the_noise)
{
    /* The gate fails only when the interval lies wholly below 0.97: for
     * identical routers at most the interval's one-sided error, 1.8% at 15
     * pairs with independent pairs.  Require <= 2.5% under every noise. */
    for (noise_kind k = IID; k <= HOSTILE; k++) {
        sim_rates s = simulate(k, 15, 1.0, 0.02, false, 200 + (uint64_t)k);
        cr_expect_leq(s.failed, 0.025, "%s: identical routers failed the gate in %.1f%%",
                      noise_names[k], 100 * s.failed);
    }
}

Test(gate_sim, five_percent_slower_at_two_percent_noise_is_detected_with_15_pairs)
{
    sim_rates s = simulate(IID, 15, 1.0 / 1.05, 0.02, false, 300);
    cr_expect_geq(s.detected, 0.90, "detected in %.1f%%", 100 * s.detected);
    /* and the gate at 0.97 fails it far more often than it passes it */
    cr_expect_geq(s.failed, 0.40, "the gate failed in %.1f%%", 100 * s.failed);
}

Test(gate_sim, the_shuffled_order_survives_a_periodic_disturbance_that_breaks_rotation)
{
    /* Every 4th slot is 50% slower.  With strict AB BA AB BA rotation the
     * hit always lands on A (slots 0, 4, 8, ... are A's), in every other
     * pair: half the ratios are 1.5 times too high, and the interval of
     * identical routers misses 1 in about a third of the runs (measured:
     * covers 64%), with no sign of trouble (never inconclusive).  The
     * shuffled balanced order spreads the hits over A and B. */
    sim_rates rotated = simulate(PERIODIC, 16, 1.0, 0.01, true, 400);
    sim_rates shuffled = simulate(PERIODIC, 16, 1.0, 0.01, false, 401);
    cr_expect_lt(rotated.covered_or_inconclusive, 0.80, "rotating: covers 1 in %.1f%%",
                 100 * rotated.covers);
    cr_expect_geq(shuffled.covered_or_inconclusive, 0.95, "shuffled: %.1f%%",
                  100 * shuffled.covered_or_inconclusive);
}
