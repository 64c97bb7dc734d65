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
 *   false-alarm rate   A/A runs whose gate failed (not runs whose interval
 *                      merely excluded 1: that is the "signif." column)
 *   detection rate     slowed runs whose gate failed
 *   trials for 90%     the trials per router at which a gate of this
 *                      threshold would fail on an X% regression in 90% of
 *                      runs (rb_selftest_trials_for_power):
 *                      - "never" when (1 + X) R <= 1, counted metrics
 *                        included: a regression of X is not past R;
 *                      - counted metrics otherwise: 1 (one count decides);
 *                      - from the measured detection rate p at n0 trials:
 *                        the gate fails when the interval's top lies below
 *                        R, so p = Phi(s - z(0.975)) with s = d / SE, and
 *                        SE falls as 1/sqrt(n): n = n0 ((z(0.90) +
 *                        z(0.975)) / (z(p) + z(0.975)))^2, p taken as
 *                        (failed + 1/2) / (runs + 1) so that 10 of 10
 *                        stays finite (none detected: not used);
 *                      - from the A/A spread: SE1 = the median A/A log
 *                        standard error times sqrt(n0),
 *                        n = (SE1 (z(0.975) + z(0.90)) / ln((1 + X) R))^2;
 *                      below 90% detected at n0 the answer is the largest
 *                      of the two and n0 + 1 (never below the trials that
 *                      just fell short); at 90% or more it is the spread's,
 *                      at most n0 (90% was reached there); at least 7
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

/* The trials for 90% detection from what the runs measured (see the top):
 * SIZE_MAX never; 0 unknown (no A/A spread, no slowed run).  Uses of o
 * only metric, effect, threshold and proto.trials. */
size_t rb_selftest_trials_for_power(const rb_selftest_opts *o, const rb_selftest_case *aa,
                                    const rb_selftest_case *slowed);

/* The scenarios the self-test runs on. */
typedef struct rb_selftest_loaded {
    rb_scenario v[16];
    size_t n;
    char names[512];    /* theirs, comma-separated */
    const char *failed; /* the scenario that could not be loaded, or NULL */
} rb_selftest_loaded;

/* Load the scenarios of list with seed (the first 16 that a supports),
 * calling skip (may be NULL) with the name of every scenario whose routes
 * use a feature a lacks.  RB_OK (even with none loaded), or the loading
 * error of out->failed, none left loaded. */
int rb_selftest_load(const rb_scenario_list *list, uint64_t seed, const rb_router_ops *a,
                     void (*skip)(void *ctx, const char *name), void *ctx, rb_selftest_loaded *out,
                     rb_error *err);
void rb_selftest_loaded_free(rb_selftest_loaded *l);

/* Run the self-test on the loaded scenarios (each must be supported by
 * opts->a).  RB_EINVAL for bad options, RB_ESTATE when a router's answers
 * change, RB_ENOMEM. */
int rb_selftest_run(const rb_selftest_opts *opts, const rb_scenario *scenarios, size_t nscenarios,
                    rb_bench_progress_fn progress, void *ctx, rb_selftest_result *out,
                    rb_error *err);

#endif
