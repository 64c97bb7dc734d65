/*
 * estimate.c — the model of a pass's seconds (estimate.h).
 */
#include "estimate.h"

#include "harness.h"

#include <math.h>

/* Costs on one core, CPU seconds per unit of work: fitted on a 2-core AMD
 * EPYC VM (the default job and choose on the shipped OpenAPI documents),
 * the generating and building costs measured again on a quiet 2-core Intel
 * Xeon (100,000 mixed routes: generated with their requests in 0.07 s;
 * radix, hashseg and ctrie built in 0.07 s together). */
#define GEN_S_PER_ROUTE   1e-6   /* generating a route and checking it */
#define GEN_S_PER_REQUEST 2e-6   /* generating a request and its EXPECTED answer */
#define BUILD_S_PER_ROUTE 0.3e-6 /* one router: create, add, build */
/* the generated router (compiled): routebench compile and cc -O2 on the
 * table (RESULTS.md's compile cost: 1,000 routes 0.13 s, 10,000 0.92 s);
 * refused above RB_COMPILED_MAX_ROUTES */
#define CC_S           0.05
#define CC_S_PER_ROUTE 9e-5
#define CC_MAX_ROUTES  20000
/* one linear lookup, per square root of the table's routes: its index by
 * first segment leaves it the routes of one bucket to try (Intel Xeon,
 * quiet: GitHub 0.8 us, 10,000 routes 2.5-9.4 us, 100,000 9-20 us; a cost
 * per route, as modelled before, said 16 and 160 us) */
#define LINEAR_S_PER_SQRT_ROUTE 6e-8
#define LOOKUP_S                3e-7 /* one lookup of any other router, checked */
/* one lookup replayed unchecked (a counted replay): our routers take 10-80
 * ns on the shipped tables */
#define REPLAY_S 5e-8
/* a peer runner's start to "ready" on GitHub's table: Node 0.10-0.15 s of
 * CPU (its modules, the answers), Go and Rust 0.01 s */
#define PEER_START_S 0.1
/* the cold stand-in: it touches one byte per 64-byte line of app_bytes */
#define APP_S_PER_LINE     1e-9
#define CALLGRIND_SLOWDOWN 60.0 /* a lookup under Callgrind */
/* The rest of a counted run under Callgrind with its instrumentation off
 * (--instr-atstart=no: generating, building, checking): Valgrind's
 * translation alone.  mixed-nc-100000 with five routers: 0.47 s natively,
 * 2.17 s counted (Intel Xeon, quiet). */
#define CALLGRIND_UNINSTRUMENTED 4.5
/* Valgrind's own start, per process (`valgrind --tool=callgrind
 * /bin/true`: 0.34 s at load 6 on 2 cores) */
#define CALLGRIND_START_S 0.3
/* The first calibration: replays doubling until one run lasts min/8, so
 * the runs add up to between min/8 and min/2 (a third of min on average). */
#define FIRST_CALIBRATION 0.33
/* The cold condition's stand-in alone: twice a round, a quarter of min. */
#define APP_ALONE_TRIALS 0.5
/* On a busy machine: the share of passes expected to be measured again. */
#define BUSY_REMEASURED 0.25

double rb_estimate_trial_s(double min_trial_s, double replay_s)
{
    double want = RB_BENCH_CALIBRATION_MARGIN * min_trial_s;
    return replay_s >= want ? replay_s : want + replay_s / 2;
}

double rb_estimate_pass(const rb_estimate_shape *sh, double cpu_share, rb_estimate_parts *parts)
{
    rb_estimate_parts x = {0, 0, 0};
    if (!(cpu_share > 0.02)) cpu_share = 0.02;
    if (cpu_share > 1) cpu_share = 1;
    double n = (double)sh->routes, q = (double)sh->requests;
    double linear = sh->linear ? LINEAR_S_PER_SQRT_ROUTE * sqrt(n) : 0;
    double lookup = LOOKUP_S + linear;
    double prep = (double)sh->routers * BUILD_S_PER_ROUTE * n + q * linear +
                  q * (double)sh->routers * LOOKUP_S;
    if (sh->generated) prep += GEN_S_PER_ROUTE * n + GEN_S_PER_REQUEST * q;
    /* cc and the peer runners are processes of their own: never under
     * Callgrind */
    double cc = sh->compiled && sh->routes <= CC_MAX_ROUTES ? CC_S + CC_S_PER_ROUTE * n : 0;
    cc += (double)sh->peers * PEER_START_S;
    double subjects = (double)sh->measured;
    if (sh->counted) {
        /* one uncounted and one counted replay per subject, under Callgrind */
        /* the run's one Valgrind start is rb_estimate_run_start's */
        x.prep_s = (prep * CALLGRIND_UNINSTRUMENTED + cc) / cpu_share;
        double replay = REPLAY_S + linear;
        /* a peer is counted in four processes of its own (peer_count.c:
         * "run 1" and "run 2", twice: six replays); a JIT runtime's is
         * refused at once.  The model knows no peer's own speed: one 100x
         * slower than the rest (gorilla/mux) takes longer than said. */
        double counted = sh->peers > sh->jit ? (double)(sh->peers - sh->jit) : 0;
        double in_process = subjects > (double)sh->peers ? subjects - (double)sh->peers : 0;
        x.prep_s += 4.0 * counted * CALLGRIND_START_S / cpu_share;
        x.measure_s =
            (2.0 * in_process + 6.0 * counted) * q * replay * CALLGRIND_SLOWDOWN / cpu_share;
    } else {
        double app = sh->cold ? APP_S_PER_LINE * (double)sh->app_bytes / 64 : 0;
        /* a replay is CPU work: on a busy machine it takes longer, if less
         * than the share of a core says (the share probe is brief and
         * pessimistic: a choose at load 9.5 on 2 cores probed 0.15 and got
         * 0.31 of a core over its run; the square root fits) */
        double replay = q * (lookup + app) / sqrt(cpu_share);
        double min = sh->min_trial_s;
        if (sh->cpu_clock) min /= cpu_share; /* CPU time: the wall clock stretches */
        double trial = rb_estimate_trial_s(min, replay);
        double first = fmax(FIRST_CALIBRATION * min, replay);
        /* none when one replay outlasts the trial (harness.c) */
        double warm = replay >= RB_BENCH_CALIBRATION_MARGIN * min
                          ? 0
                          : RB_BENCH_CALIBRATION_TRIALS * fmax(trial / 4, replay);
        double rounds = (double)sh->warmup + (double)sh->trials;
        /* a peer's warm-up until it stops getting faster (harness.c,
         * warm_peer): two trials more at the least, a JIT runtime's until
         * its loop has run RB_BENCH_JIT_WARMUP_MS */
        double jit = sh->jit < sh->peers ? (double)sh->jit : (double)sh->peers;
        double steady = 2 * trial;
        double jit_warm = fmax(RB_BENCH_JIT_WARMUP_MS / 1e3 - (double)sh->warmup * trial, steady);
        x.prep_s = (prep + cc) / cpu_share;
        x.measure_s = subjects * (first + warm + rounds * trial) +
                      ((double)sh->peers - jit) * steady + jit * jit_warm;
        if (sh->cold) x.measure_s += (rounds + 1) * APP_ALONE_TRIALS * min;
        if (cpu_share < RB_ESTIMATE_BUSY_SHARE)
            x.remeasure_s = BUSY_REMEASURED * subjects * (double)sh->trials * trial;
    }
    if (parts) *parts = x;
    return x.prep_s + x.measure_s + x.remeasure_s;
}

double rb_estimate_run_start(bool counted, double cpu_share)
{
    if (!(cpu_share > 0.02)) cpu_share = 0.02;
    if (cpu_share > 1) cpu_share = 1;
    return counted ? CALLGRIND_START_S / cpu_share : 0;
}
