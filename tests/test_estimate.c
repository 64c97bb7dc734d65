/*
 * test_estimate.c — the model of a pass's seconds (bench/measure/estimate.h)
 * on synthetic shapes: it models what the harness runs (calibration,
 * warm-up, warm calibration, rounds), for short and long trials alike.
 * The expected seconds are worked out by hand from the protocol, not from
 * the model's code.
 */
#include "estimate.h"

#include <criterion/criterion.h>
#include <math.h>

/* A small table whose replay is negligible next to the trial. */
static rb_estimate_shape small(double min_trial_s, unsigned trials)
{
    return (rb_estimate_shape){.routes = 10,
                               .requests = 10,
                               .routers = 4,
                               .measured = 4,
                               .warmup = 1,
                               .trials = trials,
                               .min_trial_s = min_trial_s};
}

Test(estimate, a_trial_is_the_margin_above_the_minimum_or_one_whole_replay)
{
    /* 1.1 x 100 ms, plus half a replay of rounding */
    cr_expect_float_eq(rb_estimate_trial_s(0.1, 0.002), 0.111, 1e-12);
    /* a replay longer than the trial: one replay is the trial */
    cr_expect_float_eq(rb_estimate_trial_s(0.02, 0.5), 0.5, 1e-12);
}

/* Per subject, on a quiet machine: the first calibration (a third of the
 * minimum), three warm calibration trials of a quarter trial, and
 * warm-up + trials rounds of 1.1 x min: for 100 ms and 9 trials
 * 0.033 + 3 x 0.0275 + 10 x 0.11 = 1.2155 s; four subjects 4.862 s. */
Test(estimate, long_trials_count_every_round_and_both_calibrations)
{
    rb_estimate_shape sh = small(0.1, 9);
    rb_estimate_parts p;
    double s = rb_estimate_pass(&sh, 1.0, &p);
    cr_expect(fabs(p.measure_s - 4.862) < 0.01, "measure %g s", p.measure_s);
    cr_expect_float_eq(p.remeasure_s, 0.0, 1e-12, "a quiet machine re-measures nothing");
    cr_expect(s >= p.measure_s && s - p.measure_s < 0.01, "prep of a tiny table: %g", s);
}

/* Short trials: 20 ms and 5 trials, the same four subjects:
 * 4 x (0.0066 + 3 x 0.0055 + 6 x 0.022) = 0.6204 s, about a fifth of the
 * 100 ms job's rounds, not the same. */
Test(estimate, short_trials_scale_down_with_the_minimum)
{
    rb_estimate_shape sh = small(0.02, 5);
    rb_estimate_parts p;
    rb_estimate_pass(&sh, 1.0, &p);
    cr_expect(fabs(p.measure_s - 0.6204) < 0.005, "measure %g s", p.measure_s);
}

Test(estimate, a_cpu_clock_stretches_trials_on_a_busy_machine_the_wall_clock_does_not)
{
    rb_estimate_shape sh = small(0.1, 9);
    rb_estimate_parts quiet, busy;
    rb_estimate_pass(&sh, 1.0, &quiet);
    rb_estimate_pass(&sh, 0.5, &busy);
    cr_expect(fabs(busy.measure_s - quiet.measure_s) < 0.01, "wall: %g vs %g", busy.measure_s,
              quiet.measure_s);
    cr_expect(busy.remeasure_s > 0, "a busy machine may re-measure");
    sh.cpu_clock = true;
    rb_estimate_pass(&sh, 0.5, &busy);
    cr_expect(fabs(busy.measure_s - 2 * quiet.measure_s) < 0.02, "cpu: %g vs 2 x %g",
              busy.measure_s, quiet.measure_s);
}

/* A replay longer than the trial is the trial, and skips the warm
 * calibration (it cannot change one replay a trial): 20 ms trials of a
 * 0.2 s cold replay cost the first calibration's replay, 6 rounds of one
 * replay and the stand-in alone twice a round, about 1.47 s. */
Test(estimate, a_replay_longer_than_the_trial_is_the_trial)
{
    rb_estimate_shape sh = small(0.02, 5);
    sh.requests = 1000;
    sh.routers = sh.measured = 1;
    sh.cold = true;
    sh.app_bytes = 64 * 1000 * 200; /* 200 us of stand-in a lookup: 0.2 s a replay */
    rb_estimate_parts p;
    rb_estimate_pass(&sh, 1.0, &p);
    double replay = 1000 * (3e-7 + 200e-6);
    /* the stand-in alone: (rounds + 1) x 0.5 x min */
    double want = replay + 6 * replay + 7 * 0.5 * 0.02;
    cr_expect(fabs(p.measure_s - want) < 1e-6, "measure %g s, want %g", p.measure_s, want);
}

/* A peer runner's start is in the estimate: 0.1 s of CPU each, so five
 * Node runners at half a core add a second. */
Test(estimate, every_peer_runner_started_adds_its_start)
{
    rb_estimate_shape sh = small(0.1, 9);
    rb_estimate_parts a, b;
    rb_estimate_pass(&sh, 0.5, &a);
    sh.peers = 5;
    rb_estimate_pass(&sh, 0.5, &b);
    cr_expect_float_eq(b.prep_s - a.prep_s, 1.0, 1e-9);
}

/* Regression: the estimate charged a peer only the warm-up rounds a
 * router takes, though a peer now warms up until it stops getting faster
 * (regression 220): two trials more at the least, and a JIT runtime until
 * its loop has run a second.  Three peers, two of them JIT, on the small
 * table (a trial: 1.1 x 0.1 s + half a replay of 10 x 0.3 us), after one
 * warm-up round: each JIT peer adds 1 s - 1 trial, each other 2 trials. */
Test(estimate, regression_208_a_jit_peer_is_charged_its_longer_warm_up)
{
    rb_estimate_shape sh = small(0.1, 9);
    rb_estimate_parts a, b;
    rb_estimate_pass(&sh, 1.0, &a);
    sh.peers = 3;
    sh.jit = 2;
    rb_estimate_pass(&sh, 1.0, &b);
    double trial = 0.11 + 10 * 3e-7 / 2;
    cr_expect_float_eq(b.measure_s - a.measure_s, 2 * (1.0 - trial) + 2 * trial, 1e-9, "%g",
                       b.measure_s - a.measure_s);
}

/* Regression: results.sh's counted run (12 passes x 6 routers) estimated
 * 1 min 04 s and took 8 s.  The model charged Valgrind's start to every
 * pass (the run is re-executed under Callgrind once), the building and
 * checking 15 times their native cost (Callgrind's instrumentation is off
 * then: about 4.5 times), and a replayed lookup as a checked one (300 ns
 * natively; unchecked, our routers take 10-80).  The small table, counted:
 * prep is 4.5 x (4 routers x 10 routes x 0.3 us + 10 checked lookups x 4
 * routers x 300 ns); measuring, 2 replays x 4 routers x 10 lookups x 50 ns
 * x 60; the start, once, 0.3 s. */
Test(estimate, regression_209_a_counted_run_starts_valgrind_once_and_builds_natively_fast)
{
    rb_estimate_shape sh = small(0.1, 9);
    sh.counted = true;
    rb_estimate_parts p;
    rb_estimate_pass(&sh, 1.0, &p);
    cr_expect_float_eq(p.prep_s, 4.5 * (4 * 10 * 0.3e-6 + 10 * 4 * 3e-7), 1e-12, "%g", p.prep_s);
    cr_expect_float_eq(p.measure_s, 2 * 4 * 10 * 5e-8 * 60, 1e-12, "%g", p.measure_s);
    cr_expect_float_eq(rb_estimate_run_start(true, 1.0), 0.3, 1e-12);
    cr_expect_float_eq(rb_estimate_run_start(false, 1.0), 0.0, 1e-12);
}

/* Regression: run --routers linear,hashseg on static-100000 estimated 11 s
 * and took 1 s.  linear's cost was modelled per route of the table (160 us
 * a lookup at 100,000 routes), but its index by first segment leaves it
 * one bucket to try: 9-20 us measured.  Now 60 ns per square root of the
 * routes: with linear among 4 routers on 10,000 routes and 10 requests,
 * prep is 4 x 10,000 x 0.3 us of building plus 10 x (6 us of linear +
 * 4 x 0.3 us of checked lookups). */
Test(estimate, regression_210_linear_grows_with_the_square_root_of_the_table)
{
    rb_estimate_shape sh = small(0.1, 9);
    sh.routes = 10000;
    sh.linear = true;
    rb_estimate_parts p;
    rb_estimate_pass(&sh, 1.0, &p);
    double want = 4 * 10000 * 0.3e-6 + 10 * (6e-8 * 100 + 4 * 3e-7);
    cr_expect_float_eq(p.prep_s, want, 1e-12, "%g, want %g", p.prep_s, want);
}

Test(estimate, a_counted_pass_does_not_depend_on_the_trial_length)
{
    rb_estimate_shape a = small(0.1, 9), b = small(0.02, 5);
    a.counted = b.counted = true;
    cr_expect_float_eq(rb_estimate_pass(&a, 1.0, NULL), rb_estimate_pass(&b, 1.0, NULL), 1e-12);
}

/* A counted run with every peer estimated 1 min 25 s and took 9 s: the
 * model charged each Node peer four Callgrind processes although a JIT
 * runtime is refused at once, and Valgrind's start at 2 s a process
 * (`valgrind --tool=callgrind /bin/true` takes about 0.3 s).  Now a JIT
 * peer costs nothing counted, and a counted peer four starts and six
 * replays: on a 10-request table with two routers and three peers of which
 * two are JIT, the peers part is one counted peer's
 * 4 x 0.3 s + 6 replays x 10 x 50 ns x 60 = 1.2 + 0.00018 s. */
Test(estimate, regression_211_a_counted_run_charges_only_the_peers_it_counts)
{
    rb_estimate_shape none = small(0.1, 9), jit = small(0.1, 9);
    none.counted = jit.counted = true;
    none.routers = none.measured = 2;
    jit.routers = 2;
    jit.measured = 5;
    jit.peers = 3;
    jit.jit = 2;
    rb_estimate_parts a, b;
    rb_estimate_pass(&none, 1.0, &a);
    rb_estimate_pass(&jit, 1.0, &b);
    double peers = b.prep_s + b.measure_s - a.prep_s - a.measure_s;
    /* the peers' starts (PEER_START_S, processes of their own) are in prep too */
    double starts = 3 * 0.1;
    cr_expect_float_eq(peers - starts, 1.2 + 6 * 10 * 5e-8 * 60, 1e-9, "%g", peers - starts);
}
