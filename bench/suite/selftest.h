/*
 * selftest.h — `routebench pair --self-test`: can this machine gate at X%?
 *
 * With the user's own options (scenarios, trials, clock, metric, gate
 * threshold), router A is measured K times against itself (A/A: identical
 * code, so every "difference" is noise) and K times against a copy of
 * itself slowed by a calibrated X% (bench/measure/slowed.h: busy work after each
 * lookup), alternating the two cases run by run so that the machine's mood
 * hits both alike.  Each run is decided by the gate exactly as `pair
 * --fail-below` decides it (the same bundle statistics and bench/bundle/gate.h).
 *
 *   false-alarm rate   A/A runs whose gate failed
 *   detection rate     slowed runs whose gate failed
 *   trials for 90%     the trials per router at which a gate of this
 *                      threshold would fail on an X% regression in 90% of
 *                      runs, from the A/A runs' spread: with SE1 = the
 *                      median over A/A runs of the standard error of the
 *                      log ratio (stats.h) times sqrt(trials),
 *                          n = (SE1 (z(0.975) + z(0.90)) / ln((1 + X) R))^2
 *                      (normal approximation; "never" when (1 + X) R <= 1:
 *                      a regression of X is not past the threshold)
 *
 * Both sides of every run go through the wrapper (A with no busy work), so
 * A/A compares identical code and the slowed copy differs from A in the
 * busy work only.  Calibration, per scenario, searches the spin: each
 * probe measures A against the wrapper with N iterations (time: the
 * medians of 5 paired trials; counted metrics: exact counts); N grows from
 * RB_SELFTEST_SPIN_PROBE by 4x until the slowdown reaches X, then the
 * bracket narrows by interpolation (busy work does not cost linear time:
 * the processor overlaps the chain with the next lookup).  The spin whose
 * slowdown came closest to X is kept; the realised effect is measured
 * again in every slowed run and reported beside the claim.
 *
 * Counted metrics are deterministic: one run of each case decides (K = 1),
 * the detection is certain when the measured ratio is below the threshold,
 * and 1 trial suffices.
 *
 * Nothing here prints; progress goes through the harness's callback.
 */
#ifndef RB_BENCH_SELFTEST_H
#define RB_BENCH_SELFTEST_H

#include "bundle.h"
#include "callgrind.h"
#include "harness.h"
#include "scenario.h"

#include <stdbool.h>
#include <stddef.h>

#define RB_SELFTEST_DEFAULT_EFFECT 0.05
#define RB_SELFTEST_DEFAULT_RUNS   10u
#define RB_SELFTEST_POWER          0.90
/* Busy-work iterations of the calibration run. */
#define RB_SELFTEST_SPIN_PROBE 64u

typedef struct rb_selftest_opts {
    const rb_router_ops *a;  /* the router */
    int metric;              /* rb_metric */
    rb_bench_protocol proto; /* trials, warm-up, min trial, clock (noisy metrics) */
    uint64_t seed;           /* order seeds derive from it */
    double effect;           /* X: 0.03 for 3% */
    double threshold;        /* the gate's R */
    unsigned runs;           /* K per case (1 for counted metrics) */
    rb_callgrind *cg;        /* counted metrics: the Callgrind child's state */
    /* optional: told what runs next ("calibrating github", "run 3/10") */
    void (*note)(void *ctx, const char *what);
} rb_selftest_opts;

/* What one case (A/A, or A against the slowed copy) gave over its runs. */
typedef struct rb_selftest_case {
    unsigned runs;
    unsigned significant;    /* the interval excluded 1 */
    unsigned failed;         /* the gate failed */
    unsigned inconclusive;   /* the gate was inconclusive */
    unsigned passed;         /* the gate passed */
    double median, min, max; /* of the runs' speed ratios b/a */
    double se_median;        /* median over runs of the log standard error */
} rb_selftest_case;

/* The slowed copy on one scenario. */
typedef struct rb_selftest_spin {
    uint64_t spin;   /* iterations per lookup */
    double base;     /* per lookup: A (the wrapper with no busy work), last probe */
    double slowdown; /* the calibration's measured slowdown at spin (1.05: 5%) */
} rb_selftest_spin;

typedef struct rb_selftest_result {
    rb_selftest_case aa, slowed;
    double measured_effect;  /* median over slowed runs of 1/ratio - 1 */
    size_t trials_for_power; /* SIZE_MAX: never; 0: unknown (no A/A spread) */
    size_t nscenarios;
    rb_selftest_spin spins[16]; /* per scenario (the first 16) */
    bool exact;
} rb_selftest_result;

/* Run the self-test on the loaded scenarios (each must be supported by
 * opts->a).  RB_EINVAL for bad options, RB_ESTATE when a router's answers
 * change, RB_ENOMEM. */
int rb_selftest_run(const rb_selftest_opts *opts, const rb_scenario *scenarios, size_t nscenarios,
                    rb_bench_progress_fn progress, void *ctx, rb_selftest_result *out,
                    rb_error *err);

#endif
