/*
 * estimate.h — how long a pass of a session will take: a model of what the
 * harness will run (harness.h), said before the work starts and used for
 * the time left.
 *
 * A pass is one scenario under one condition.  Its seconds, in three parts:
 *
 *   prep       generating the tables, building every router, starting
 *              every peer runner, checking every answer (CPU-bound:
 *              divided by the share of a core)
 *   measure    per subject timed: the first calibration (replays doubling
 *              up to min_trial/8), the warm-up rounds, the warm calibration
 *              (RB_BENCH_CALIBRATION_TRIALS trials of a quarter length),
 *              and the measured rounds; a trial lasts
 *              RB_BENCH_CALIBRATION_MARGIN x min_trial, or one whole replay
 *              of the request table when that is longer, plus half a replay
 *              of rounding (whole replays); the cold condition times its
 *              stand-in alone twice a round.  Counted: Callgrind's start
 *              and two replays per subject, about 60 times slower.
 *   remeasure  the rounds measured again.  With calibration on the fastest
 *              warm trial, short trials are rare on a quiet machine (0 s);
 *              on a busy one (less than RB_ESTIMATE_BUSY_SHARE of a core)
 *              the model expects a quarter of the passes to be measured again.
 *
 * A wall-clock trial lasts its length whatever the load; a CPU-clock trial
 * lasts its length of CPU time, so it stretches by 1 / share.  The
 * constants are CPU seconds per unit of work on the 2-core AMD EPYC VM
 * they were fitted on (estimate.c).  Pure: no clock, no I/O.
 */
#ifndef RB_BENCH_ESTIMATE_H
#define RB_BENCH_ESTIMATE_H

#include <stdbool.h>
#include <stddef.h>

#define RB_ESTIMATE_BUSY_SHARE 0.8

/* What the model needs to know about one pass. */
typedef struct rb_estimate_shape {
    size_t routes, requests;
    size_t routers;     /* routers built and checked */
    size_t measured;    /* subjects timed (routers, peers) */
    size_t peers;       /* of which peer processes (started, loaded, checked) */
    bool generated;     /* the tables are generated first */
    bool linear;        /* linear is among them (its lookups grow with the table) */
    bool compiled;      /* the generated router is among them (cc compiles the table) */
    bool cold;          /* the application stand-in runs between lookups */
    size_t app_bytes;   /* the stand-in's bytes */
    bool counted;       /* Callgrind counts replays instead of timed trials */
    size_t jit;         /* of the peers, those in a JIT runtime: not counted (refused at
                           once), and warmed up for RB_BENCH_JIT_WARMUP_MS when timed */
    unsigned warmup;    /* warm-up rounds */
    unsigned trials;    /* measured rounds */
    double min_trial_s; /* a trial's minimum length */
    bool cpu_clock;     /* trials last min_trial_s of CPU time, not of wall time */
} rb_estimate_shape;

typedef struct rb_estimate_parts {
    double prep_s, measure_s, remeasure_s;
} rb_estimate_parts;

/* The model's seconds for one pass where the process gets cpu_share
 * (0..1] of a core; its parts into parts when not NULL. */
double rb_estimate_pass(const rb_estimate_shape *shape, double cpu_share, rb_estimate_parts *parts);

/* The seconds a run spends once, beside its passes: a counted run's one
 * Valgrind start (the whole run is re-executed under Callgrind). */
double rb_estimate_run_start(bool counted, double cpu_share);

/* The seconds of one trial of a subject whose replay of the request table
 * takes replay_s: RB_BENCH_CALIBRATION_MARGIN x min_trial_s plus half a
 * replay, or one replay when that is longer. */
double rb_estimate_trial_s(double min_trial_s, double replay_s);

#endif
