/*
 * harness.h — the measurement core: paired, interleaved trials of several
 * routers on one scenario (a route table + a request table).
 *
 * Protocol (docs/design.md, "Measurement protocol"):
 *
 *   prepare   the routes are parsed and checked once (a route set, timed
 *             apart), then every router is built from them (create + load
 *             the set + build, timed once), its memory() read, and one replay of the request
 *             table folds every answer into a checksum; answers are also
 *             compared with EXPECTED.
 *   calibrate per router: replay the table 1, 2, 4, ... times until a run
 *             lasts min_trial/8, then set reps so that one trial lasts about
 *             RB_BENCH_CALIBRATION_MARGIN x min_trial (at least one replay).
 *   warm-up   `warmup` rounds of every router, discarded; then each peer
 *             runner alone until it stops getting faster (warm_peer: a JIT
 *             runtime still optimising its loop).
 *   calibrate again, warm: RB_BENCH_CALIBRATION_TRIALS rounds of every
 *             router, each trial a quarter of that length, discarded; the
 *             fastest of them per router sets its reps (the margin above
 *             min_trial again).  Not for a router whose one replay
 *             already outlasts that: its trials are one replay.  Every measured trial of that router does
 *             exactly reps replays, so its lookup count is fixed.
 *   trials    `trials` rounds.  Each round runs every router once, in one of
 *             the 2R balanced orders of R routers: forward rotation r
 *             (position p runs router (r + p) mod R) or backward rotation r
 *             (position p runs router (r - p) mod R).  Round t gets order
 *             t mod 2R of a list that is then shuffled from order_seed
 *             (rb_bench_round_orders), so every router holds every position
 *             and precedes every other router equally often (to within one
 *             round), but in an order that a periodic disturbance of the
 *             machine cannot line up with.  With two routers: as many AB
 *             rounds as BA rounds, in random order.  Trial t of every router
 *             is one pair; a slow spell of the machine hits a round, and the
 *             pair ratio cancels much of it.
 *   check     after the rounds, every trial is checked against
 *             RB_BENCH_SHORT_SHARE x min_trial on the protocol's clock.  If
 *             any ran shorter (the machine ran more than 20% faster than in
 *             the fastest calibration trial), the routers
 *             with short trials are recalibrated from their fastest trial
 *             (aiming at RB_BENCH_RECALIBRATION_MARGIN x min_trial) and
 *             every round is measured again, once.  Trials still short after
 *             that are counted in subject->short_trials, never silently
 *             kept: the caller reports them.
 *
 * The timed loop calls the router's ops->lookup(impl, ...) directly and
 * adds a fold of every answer (outcome, route id, 405 mask, each capture
 * span) to a 64-bit sum, so no lookup can be optimised away.  The fold is
 * additive, so a trial of reps replays must sum to reps x the checksum of
 * one replay (mod 2^64); any other value means the router answered
 * differently from one replay to the next, and the run fails.  Routers that
 * give the same answers have the same checksum.
 *
 * Clock: clock_gettime(CLOCK_MONOTONIC) around each trial (the default), the
 * thread's CPU time (CLOCK_THREAD_CPUTIME_ID), or the hardware counter of
 * instructions retired (bench/measure/perfcount.h) when the protocol asks.  Wall
 * and CPU time are read for every trial, so trials during which the thread
 * lost the CPU are flagged.  Counted metrics (Callgrind: exact instruction
 * counts) do not go through rb_bench_measure: bench/measure/callgrind.h replays
 * each router with rb_bench_replay.  Nothing here prints; progress goes
 * through an optional callback.
 */
#ifndef RB_BENCH_HARNESS_H
#define RB_BENCH_HARNESS_H

#include "arena.h"
#include "perfcount.h"
#include "slowed.h"
#include "limit.h"
#include "table.h"

#include <stdbool.h>
#include <stdint.h>

#define RB_BENCH_DEFAULT_TRIALS       9u
#define RB_BENCH_DEFAULT_WARMUP       1u
#define RB_BENCH_DEFAULT_MIN_TRIAL_MS 100.0
/* Calibration aims this far above the minimum, so that a machine up to 9%
 * faster during the trials than during calibration still meets it. */
#define RB_BENCH_CALIBRATION_MARGIN 1.1
/* Warm calibration trials per router, after the warm-up: the fastest sets
 * the trial length (docs/measurement.md, "Calibration"). */
#define RB_BENCH_CALIBRATION_TRIALS 3u
/* A peer runner's warm-up goes on until two trials in a row are not this
 * share faster than every one before them, a JIT runtime's until it has
 * also run RB_BENCH_JIT_WARMUP_MS; at most RB_BENCH_PEER_WARMUP_MAX trials
 * after the protocol's rounds (harness.c, warm_peer). */
#define RB_BENCH_STEADY_GAIN     0.05
#define RB_BENCH_JIT_WARMUP_MS   1000.0
#define RB_BENCH_PEER_WARMUP_MAX 20u
/* A trial of at least this share of min_trial is long enough: only trials
 * shorter than that are short (re-measured, then counted). */
#define RB_BENCH_SHORT_SHARE 0.9
/* A recalibration (after short trials) aims this far above, from the
 * fastest trial seen. */
#define RB_BENCH_RECALIBRATION_MARGIN 1.25

/* What a trial's value measures. */
typedef enum rb_bench_clock {
    RB_BENCH_CLOCK_WALL = 0,            /* CLOCK_MONOTONIC: elapsed time (the default) */
    RB_BENCH_CLOCK_CPU = 1,             /* CLOCK_THREAD_CPUTIME_ID: time the thread ran */
    RB_BENCH_CLOCK_HW_INSTRUCTIONS = 2, /* instructions retired (perf_event_open) */
} rb_bench_clock;

/* How lookups follow each other (replay.c). */
typedef enum rb_bench_mode {
    RB_BENCH_MODE_THROUGHPUT = 0, /* back to back: lookups may overlap in the pipeline */
    RB_BENCH_MODE_LATENCY = 1,    /* each lookup's request is chosen by the previous answer */
} rb_bench_mode;

#define RB_BENCH_DEFAULT_APP_BYTES (256u * 1024u)

typedef struct rb_bench_protocol {
    unsigned trials;     /* measured rounds, >= 1 */
    unsigned warmup;     /* discarded rounds before them */
    double min_trial_ms; /* calibrated minimum duration of one trial, > 0 */
    int clock;           /* rb_bench_clock: what a trial's value is */
    uint64_t order_seed; /* shuffles the rounds' orders (any value) */
} rb_bench_protocol;

/* One router on the scenario. */
typedef struct rb_bench_subject {
    const rb_router_ops *ops;
    rb_router *router;
    uint64_t build_ns;     /* create + load the parsed table + build, wall clock */
    uint64_t build_cpu_ns; /* the same in the thread's CPU time */
    size_t memory;         /* rb_router_memory after build */
    uint64_t checksum;     /* fold of one replay's answers */
    size_t disagree;       /* requests whose answer differs from EXPECTED */
    size_t first_disagree; /* index of the first such request */
    uint64_t reps;         /* table replays per trial (after calibration) */
    bool recalibrated;     /* its trials ran short once and were measured again */
    size_t short_trials;   /* measured trials still shorter than RB_BENCH_SHORT_SHARE x min */
    /* what the timed loop calls: the router's own lookup, or a slowed copy */
    int (*lookup)(const void *impl, int method, const char *path, size_t len, rb_match *m);
    const void *lookup_impl;
    rb_bench_slowed slowed; /* the slowed copy's state (rb_bench_slow_subject) */
    int64_t rss_growth;     /* peak RSS growth during build (bytes), -1 unknown */
    struct rb_peer *peer;   /* a peer process (peer.h): trials run there; router is NULL */
} rb_bench_subject;

/* One measured trial. */
typedef struct rb_bench_trial {
    uint32_t subject;  /* index into subjects */
    uint32_t trial;    /* round, 0-based */
    uint32_t position; /* place in the round's order, 0-based */
    uint64_t lookups;  /* reps x requests */
    uint64_t ns;       /* the trial's value on the protocol's clock (ns, or instructions) */
    uint64_t wall_ns;  /* elapsed (CLOCK_MONOTONIC) */
    uint64_t cpu_ns;   /* CPU time of the thread meanwhile (CLOCK_THREAD_CPUTIME_ID) */
    /* counted measurements (bench/measure/callgrind.h) only, else 0 */
    uint64_t ir;        /* instructions */
    uint64_t data_refs; /* data reads + writes (cache simulation) */
    uint64_t l1_misses; /* L1 misses, instruction + data */
    uint64_t ll_misses; /* last-level misses, instruction + data */
} rb_bench_trial;

/* A trial is disturbed when the thread had the CPU for less than this
 * share of its wall time: something else ran on the core. */
#define RB_BENCH_DISTURBED_SHARE 0.9

bool rb_bench_trial_disturbed(const rb_bench_trial *t);

/* Is a trial that lasted duration_ns (on the protocol's clock) short for
 * a minimum of min_trial_ns: under RB_BENCH_SHORT_SHARE of it?  Short
 * trials make the scenario be measured again (once), then are counted. */
bool rb_bench_trial_short(double duration_ns, double min_trial_ns);

/* The request table in the form the timed loop reads. */
typedef struct rb_bench_query {
    const char *path;
    uint32_t len;
    int method;
} rb_bench_query;

typedef struct rb_bench_run {
    rb_bench_subject *subjects;
    size_t nsubjects;
    rb_bench_arena *arenas; /* one per router subject when prepared pinned, else NULL */
    size_t narenas;         /* (the peers added after them have none) */
    rb_bench_query *queries;
    size_t nqueries;
    rb_bench_trial *trials; /* measured trials in execution order */
    size_t ntrials;
    int clock;             /* the protocol's clock, set by rb_bench_measure */
    rb_perf_counter perf;  /* open while measuring RB_BENCH_CLOCK_HW_INSTRUCTIONS */
    uint64_t parse_ns;     /* parsing and checking the table once (rb_route_set), wall clock */
    uint64_t parse_cpu_ns; /* the same in the thread's CPU time */
    /* the mode and the application stand-in (replay.c) */
    int mode;             /* rb_bench_mode (rb_bench_set_conditions) */
    size_t app_wanted;    /* > 0: cold, the stand-in's size (rb_bench_set_conditions) */
    unsigned char *app;   /* cold: the stand-in's memory, app_bytes long */
    size_t app_bytes;     /* 0: warm */
    uint64_t app_iters;   /* stand-in runs per stand-in-alone trial */
    double *app_round_ns; /* per round: the stand-in's own ns per run */
    size_t app_rounds;
    double app_ns, app_mad_ns; /* their median and MAD, as subtracted */
    volatile uint64_t zero;    /* always 0; the compiler cannot know it */
} rb_bench_run;

/* Progress: called before each timed step; what names it ("calibrate",
 * "warm-up", "trial", "re-measure"), subject the router, done/total count
 * trials of the scenario (calibration counts as none). */
typedef void (*rb_bench_progress_fn)(void *ctx, const char *what, const rb_bench_subject *subject,
                                     size_t done, size_t total);

/* The limit (corpus/limit.h): a reference row in every scenario, the
 * exact-match router `floor` built over the requested paths themselves
 * instead of the routes.  Only an identity for the harness: prepare builds
 * it with rb_limit_build (its own functions refuse to be called), and its
 * answers are checked for the hits only (a hit must name the route the
 * request expects; an exact match has no captures, so it is left out of
 * the comparison with linear and of the checksum comparison).  Its
 * summary starts with "reference", so reports draw it as one; its features
 * are all of them, so it runs in every scenario. */
extern const rb_router_ops rb_bench_limit_ops;

/* Build every router of ops[0..nops) on routes, and check it on requests.
 * requests must be non-empty and its paths must live as long as the run.
 * The same ops may appear twice (two routers of one build: an A/A run).
 * A router that refuses a route fails the call (err names it); choose
 * routers whose features cover the table.  config may be NULL. */
int rb_bench_prepare(rb_bench_run *run, const rb_route_table *routes,
                     const rb_request_table *requests, const rb_router_ops *const *ops, size_t nops,
                     const rb_config *config, rb_error *err);

/* A router whose build refused the table: why says what it refused. */
typedef void (*rb_bench_refused_fn)(void *ctx, const rb_router_ops *ops, const rb_error *why);

/* Whether a build's status rc is the router refusing the table (a feature
 * it lacks, a limit, a conflict: RB_EUNSUPPORTED, RB_EDUPLICATE,
 * RB_ELIMIT, RB_EPATTERN, RB_EMETHOD) rather than a failure (memory, I/O). */
bool rb_bench_is_refusal(int rc);

/* The same, calling progress(ctx, "build", subject, k, nops) before the
 * k-th router is built and checked (subject->ops is set), so a slow one
 * (linear on a large table) can be announced.  With refused (may be
 * NULL), a router whose build refuses the table (rb_bench_is_refusal) is
 * left out of the run and told to refused(ctx, ops, why) instead of
 * failing the call: run->subjects then holds the others, in order. */
int rb_bench_prepare_progress(rb_bench_run *run, const rb_route_table *routes,
                              const rb_request_table *requests, const rb_router_ops *const *ops,
                              size_t nops, const rb_config *config, rb_bench_progress_fn progress,
                              rb_bench_refused_fn refused, void *ctx, rb_error *err);

/* The same for counted measurements: every router gets an arena of its own
 * (bench/measure/arena.h) and the hash seed `seed`, so two builds of the same code
 * see the same addresses modulo RB_BENCH_ARENA_ALIGN and the same hashes;
 * progress and refused as for rb_bench_prepare_progress (may be NULL). */
int rb_bench_prepare_pinned(rb_bench_run *run, const rb_route_table *routes,
                            const rb_request_table *requests, const rb_router_ops *const *ops,
                            size_t nops, uint64_t seed, rb_bench_progress_fn progress,
                            rb_bench_refused_fn refused, void *ctx, rb_error *err);

/* Make subject k a slowed copy of itself: `spin` iterations of busy work
 * after each lookup (bench/measure/slowed.h); spin is changed by calling again. */
void rb_bench_slow_subject(rb_bench_run *run, size_t k, uint64_t spin);

/* Calibrate, warm up, measure and check, as described at the top.  On
 * success run->trials holds nsubjects x proto->trials trials.  RB_EINVAL
 * when the protocol is invalid, RB_ESTATE when a router's answers changed
 * between replays (err names it), RB_EUNSUPPORTED when the clock is the
 * hardware counter and there is none (err says why), RB_ENOMEM. */
int rb_bench_measure(rb_bench_run *run, const rb_bench_protocol *proto,
                     rb_bench_progress_fn progress, void *ctx, rb_error *err);

/* reps replays of run's table through the lookup of s (a subject of run, or
 * a copy of one, e.g. on the caller's stack), untimed; RB_ESTATE (err names
 * the router) when the answers' fold is not reps x checksum.  The loop is
 * the timed loop of rb_bench_measure. */
int rb_bench_replay(const rb_bench_run *run, const rb_bench_subject *s, uint64_t reps,
                    rb_error *err);

/* The balanced, shuffled orders of `rounds` rounds of nrouters routers (see
 * the top): order[t] in [0, 2 nrouters); rb_bench_order_router says which
 * router runs at a position. */
void rb_bench_round_orders(uint64_t seed, size_t rounds, size_t nrouters, uint32_t *order);
size_t rb_bench_order_router(uint32_t order, size_t position, size_t nrouters);

void rb_bench_run_free(rb_bench_run *run);

/* The conditions of the next rb_bench_measure (replay.c): mode
 * (rb_bench_mode), and app_bytes > 0 for a cold cache (the application
 * stand-in touches that many bytes of its own between two lookups; its
 * own cost is measured alone in every round and subtracted).  The default
 * is throughput, warm.  RB_EINVAL for an unknown mode. */
int rb_bench_set_conditions(rb_bench_run *run, int mode, size_t app_bytes, rb_error *err);

/* Append a subject measured in a peer process (peer.h): ops names it (a
 * table without lookup), checksum and disagree come from the peer's
 * answers.  The run owns the peer from here on (closed by
 * rb_bench_run_free), also on failure (RB_ENOMEM). */
int rb_bench_add_peer(rb_bench_run *run, const rb_router_ops *ops, struct rb_peer *peer,
                      uint64_t checksum, size_t disagree, rb_error *err);

/* The fold of one answer (exposed for tests). */
uint64_t rb_bench_fold(const rb_match *m);

#endif
