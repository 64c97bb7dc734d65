/*
 * harness.h — the measurement core: paired, interleaved timing trials of
 * several routers on one scenario (a route table + a request table).
 *
 * Protocol (docs/design.md, "Measurement protocol"):
 *
 *   prepare   every router is built from the routes (create + add + build,
 *             timed once), its memory() read, and one replay of the request
 *             table folds every answer into a checksum; answers are also
 *             compared with EXPECTED.
 *   calibrate per router: replay the table 1, 2, 4, ... times until a run
 *             lasts min_trial/8, then set reps so that one trial lasts about
 *             min_trial (at least one replay).  Every trial of that router
 *             does exactly reps replays, so its lookup count is fixed.
 *   warm-up   `warmup` rounds of every router, discarded.
 *   trials    `trials` rounds.  In round t (0-based) the routers run in
 *             rotating order: position p runs router (t + p) mod R, so with
 *             two routers the order is AB, BA, AB, ...  Trial t of every
 *             router is one pair; a slow spell of the machine hits a round,
 *             and the pair ratio cancels much of it.
 *
 * The timed loop calls the router's ops->lookup(impl, ...) directly and
 * adds a fold of every answer (outcome, route id, 405 mask, each capture
 * span) to a 64-bit sum, so no lookup can be optimised away.  The fold is
 * additive, so a trial of reps replays must sum to reps x the checksum of
 * one replay (mod 2^64); any other value means the router answered
 * differently from one replay to the next, and the run fails.  Routers that
 * give the same answers have the same checksum.
 *
 * Clock: clock_gettime(CLOCK_MONOTONIC) around each trial (the default), or
 * the thread's CPU time (CLOCK_THREAD_CPUTIME_ID) when the protocol asks:
 * on a shared machine the thread's CPU time leaves out the time other
 * processes held the core (not their effect on caches).  Both are read for
 * every trial, so trials during which the thread lost the CPU are flagged.  Nothing here prints; progress goes through an
 * optional callback.
 */
#ifndef RB_BENCH_HARNESS_H
#define RB_BENCH_HARNESS_H

#include "table.h"

#include <stdbool.h>
#include <stdint.h>

#define RB_BENCH_DEFAULT_TRIALS       9u
#define RB_BENCH_DEFAULT_WARMUP       1u
#define RB_BENCH_DEFAULT_MIN_TRIAL_MS 100.0

/* The clock a trial is timed with. */
typedef enum rb_bench_clock {
    RB_BENCH_CLOCK_WALL = 0, /* CLOCK_MONOTONIC: elapsed time (the default) */
    RB_BENCH_CLOCK_CPU = 1,  /* CLOCK_THREAD_CPUTIME_ID: time the thread ran */
} rb_bench_clock;

typedef struct rb_bench_protocol {
    unsigned trials;     /* measured rounds, >= 1 */
    unsigned warmup;     /* discarded rounds before them */
    double min_trial_ms; /* calibrated minimum duration of one trial, > 0 */
    int clock;           /* rb_bench_clock: what ns means, and what calibration aims at */
} rb_bench_protocol;

/* One router on the scenario. */
typedef struct rb_bench_subject {
    const rb_router_ops *ops;
    rb_router *router;
    uint64_t build_ns;     /* create + add every route + build, wall clock */
    size_t memory;         /* rb_router_memory after build */
    uint64_t checksum;     /* fold of one replay's answers */
    size_t disagree;       /* requests whose answer differs from EXPECTED */
    size_t first_disagree; /* index of the first such request */
    uint64_t reps;         /* table replays per trial (after calibration) */
} rb_bench_subject;

/* One measured trial. */
typedef struct rb_bench_trial {
    uint32_t subject;  /* index into subjects */
    uint32_t trial;    /* round, 0-based */
    uint32_t position; /* place in the round's order, 0-based */
    uint64_t lookups;  /* reps x requests */
    uint64_t ns;       /* the trial's time on the protocol's clock */
    uint64_t wall_ns;  /* elapsed (CLOCK_MONOTONIC) */
    uint64_t cpu_ns;   /* CPU time of the thread meanwhile (CLOCK_THREAD_CPUTIME_ID) */
} rb_bench_trial;

/* A trial is disturbed when the thread had the CPU for less than this
 * share of its wall time: something else ran on the core. */
#define RB_BENCH_DISTURBED_SHARE 0.9

bool rb_bench_trial_disturbed(const rb_bench_trial *t);

/* The request table in the form the timed loop reads. */
typedef struct rb_bench_query {
    const char *path;
    uint32_t len;
    int method;
} rb_bench_query;

typedef struct rb_bench_run {
    rb_bench_subject *subjects;
    size_t nsubjects;
    rb_bench_query *queries;
    size_t nqueries;
    rb_bench_trial *trials; /* measured trials in execution order */
    size_t ntrials;
    int clock; /* the protocol's clock, set by rb_bench_measure */
} rb_bench_run;

/* Progress: called before each timed step; what names it ("calibrate",
 * "warm-up", "trial"), subject the router, done/total count trials of the
 * scenario (calibration counts as none). */
typedef void (*rb_bench_progress_fn)(void *ctx, const char *what, const rb_bench_subject *subject,
                                     size_t done, size_t total);

/* Build every router of ops[0..nops) on routes, and check it on requests.
 * requests must be non-empty and its paths must live as long as the run.
 * A router that refuses a route fails the call (err names it); choose
 * routers whose features cover the table.  config may be NULL. */
int rb_bench_prepare(rb_bench_run *run, const rb_route_table *routes,
                     const rb_request_table *requests, const rb_router_ops *const *ops, size_t nops,
                     const rb_config *config, rb_error *err);

/* The same, calling progress(ctx, "build", subject, k, nops) before the
 * k-th router is built and checked (subject->ops is set), so a slow one
 * (linear on a large table) can be announced. */
int rb_bench_prepare_progress(rb_bench_run *run, const rb_route_table *routes,
                              const rb_request_table *requests, const rb_router_ops *const *ops,
                              size_t nops, const rb_config *config, rb_bench_progress_fn progress,
                              void *ctx, rb_error *err);

/* Calibrate, warm up and measure, as described at the top.  On success
 * run->trials holds nsubjects x proto->trials trials.  RB_EINVAL when the
 * protocol is invalid, RB_ESTATE when a router's answers changed between
 * replays (err names it), RB_ENOMEM. */
int rb_bench_measure(rb_bench_run *run, const rb_bench_protocol *proto,
                     rb_bench_progress_fn progress, void *ctx, rb_error *err);

void rb_bench_run_free(rb_bench_run *run);

/* The fold of one answer (exposed for tests). */
uint64_t rb_bench_fold(const rb_match *m);

/* Monotonic clock, nanoseconds. */
uint64_t rb_bench_now_ns(void);
/* CPU time of the calling thread, nanoseconds. */
uint64_t rb_bench_thread_cpu_ns(void);

#endif
