/*
 * harness.c — calibration, balanced shuffled rounds, the after-the-fact
 * trial check and checksum folding (the protocol is described in
 * harness.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include "clock.h"
#include "harness_internal.h"
#include "limit.h"
#include "peer.h"
#include "machine.h"

#include "rng.h"
#include "router_kit.h"
#include "stats.h"
#include "verify.h"

#include <stdlib.h>
#include <string.h>

bool rb_bench_trial_disturbed(const rb_bench_trial *t)
{
    return t->cpu_ns > 0 && (double)t->cpu_ns < RB_BENCH_DISTURBED_SHARE * (double)t->wall_ns;
}

/* The fold lives in harness_internal.h, shared with replay.c. */
static inline uint64_t fold_answer(const rb_match *m)
{
    return rb__bench_fold(m);
}

uint64_t rb_bench_fold(const rb_match *m)
{
    return fold_answer(m);
}

/* The timed loop: reps replays of the table through the subject's lookup,
 * every answer folded into the returned sum. */
static uint64_t replay(const rb_bench_subject *s, const rb_bench_query *q, size_t n, uint64_t reps)
{
    int (*lookup)(const void *, int, const char *, size_t, rb_match *) = s->lookup;
    const void *impl = s->lookup_impl;
    rb_match m;
    uint64_t acc = 0;
    for (uint64_t r = 0; r < reps; r++) {
        for (size_t i = 0; i < n; i++) {
            lookup(impl, q[i].method, q[i].path, q[i].len, &m);
            acc += fold_answer(&m);
        }
    }
    return acc;
}

void rb_bench_run_free(rb_bench_run *run)
{
    for (size_t i = 0; i < run->nsubjects; i++) {
        rb_router_destroy(run->subjects[i].router);
        rb_peer_close(run->subjects[i].peer);
    }
    rb__bench_app_close(run);
    if (run->arenas)
        for (size_t i = 0; i < run->narenas; i++) rb_bench_arena_destroy(&run->arenas[i]);
    rb_perf_close(&run->perf);
    free(run->arenas);
    free(run->subjects);
    free(run->queries);
    free(run->trials);
    memset(run, 0, sizeof *run);
    run->perf.fd = -1;
}

/* ---- the limit: an identity, built by prepare (harness.h) ---------------- */

static int limit_refuse(const rb_config *config, void **out, rb_error *err)
{
    (void)config;
    *out = NULL;
    return rb__error(err, RB_EUNSUPPORTED, RB_NO_OFFSET,
                     "limit is built from a request table by the harness, not from routes");
}

const rb_router_ops rb_bench_limit_ops = {
    .abi_version = RB_ROUTER_ABI_VERSION,
    .name = RB_LIMIT_NAME,
    .summary = "reference, not a router to choose: exact-match lookup of the scenario's own "
               "requested paths (floor built over them; the lower bound, docs/measurement.md)",
    .features = RB_FEAT_PARAMS | RB_FEAT_CATCHALL | RB_FEAT_GLOB | RB_FEAT_TEMPLATE,
    .create = limit_refuse,
};

/* The router of subject s: built from the route set, or for the limit from
 * the requests (with floor's ops). */
static int build_subject(rb_bench_subject *s, const rb_route_set *routes,
                         const rb_request_table *requests, const rb_config *config, rb_error *err)
{
    if (s->ops != &rb_bench_limit_ops)
        return rb_route_set_build_router(routes, s->ops, config, &s->router, err);
    const rb_router_ops *floor = rb_registry_find("floor");
    if (!floor) return rb__error(err, RB_EUNSUPPORTED, RB_NO_OFFSET, "limit needs floor");
    size_t npaths;
    return rb_limit_build(requests, floor, config, &s->router, &npaths, err);
}

static int prepare_subject(rb_bench_subject *s, const rb_router_ops *ops,
                           const rb_route_set *routes, const rb_request_table *requests,
                           const rb_config *config, rb_error *err)
{
    memset(s, 0, sizeof *s);
    s->ops = ops;
    int64_t rss0 = rb_machine_rss_peak_reset();
    uint64_t c0 = rb__thread_cpu_ns(), t0 = rb__monotonic_ns();
    int rc = build_subject(s, routes, requests, config, err);
    s->build_ns = rb__monotonic_ns() - t0;
    s->build_cpu_ns = rb__thread_cpu_ns() - c0;
    int64_t rss1 = rb_machine_rss_peak();
    s->rss_growth = rss0 >= 0 && rss1 >= 0 ? (rss1 > rss0 ? rss1 - rss0 : 0) : -1;
    if (rc < 0) return rc;
    s->memory = rb_router_memory(s->router);
    s->lookup = rb__router_ops(s->router)->lookup;
    s->lookup_impl = rb__router_impl(s->router);
    for (size_t i = 0; i < requests->count; i++) {
        const rb_request *q = &requests->reqs[i];
        rb_match m;
        rb_router_lookup(s->router, q->method, rb_request_path(requests, i), q->len, &m);
        s->checksum += fold_answer(&m);
        /* the limit: a hit names the expected route (no captures, no 405s) */
        bool limit = ops == &rb_bench_limit_ops;
        if (limit
                ? q->expected >= 0 && (m.outcome != RB_FOUND || m.route_id != (uint32_t)q->expected)
                : !rb_match_expected(&m, q->expected)) {
            if (s->disagree == 0) s->first_disagree = i;
            s->disagree++;
        }
    }
    return RB_OK;
}

/* prepare with one config for every subject, or (pinned) an arena each. */
bool rb_bench_is_refusal(int rc)
{
    return rc == RB_EUNSUPPORTED || rc == RB_EDUPLICATE || rc == RB_ELIMIT || rc == RB_EPATTERN ||
           rc == RB_EMETHOD;
}

static int prepare(rb_bench_run *run, const rb_route_table *routes,
                   const rb_request_table *requests, const rb_router_ops *const *ops, size_t nops,
                   const rb_config *config, bool pinned, uint64_t seed,
                   rb_bench_progress_fn progress, rb_bench_refused_fn refused, void *ctx,
                   rb_error *err)
{
    memset(run, 0, sizeof *run);
    run->perf.fd = -1;
    /* no router is a run of peers alone (rb_bench_add_peer adds them) */
    if (requests->count == 0)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "a scenario needs requests");
    run->queries = calloc(requests->count, sizeof *run->queries);
    run->subjects = calloc(nops ? nops : 1, sizeof *run->subjects);
    run->arenas = pinned ? calloc(nops ? nops : 1, sizeof *run->arenas) : NULL;
    if (!run->queries || !run->subjects || (pinned && !run->arenas)) {
        rb_bench_run_free(run);
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory preparing a scenario");
    }
    run->nqueries = requests->count;
    /* the table is parsed and checked once, for every router of the run */
    uint64_t c0 = rb__thread_cpu_ns(), t0 = rb__monotonic_ns();
    rb_route_set *set;
    int rc = rb_route_table_set(routes, "routes", NULL, &set, err);
    run->parse_ns = rb__monotonic_ns() - t0;
    run->parse_cpu_ns = rb__thread_cpu_ns() - c0;
    if (rc < 0) {
        rb_bench_run_free(run);
        return rc;
    }
    for (size_t i = 0; i < requests->count; i++) {
        const rb_request *q = &requests->reqs[i];
        run->queries[i] = (rb_bench_query){rb_request_path(requests, i), q->len, q->method};
    }
    for (size_t k = 0, n = 0; k < nops; k++) { /* n: the routers kept */
        if (progress) {
            rb_bench_subject next = {.ops = ops[k]};
            progress(ctx, "build", &next, k, nops);
        }
        rb_config pinned_config;
        if (pinned) {
            rb_bench_arena_init(&run->arenas[n]);
            run->narenas = n + 1;
            pinned_config = (rb_config){&run->arenas[n].allocator, seed};
            config = &pinned_config;
        }
        rc = prepare_subject(&run->subjects[n], ops[k], set, requests, config, err);
        if (rc < 0 && refused && rb_bench_is_refusal(rc)) { /* left out, with its reason */
            refused(ctx, ops[k], err);
            if (pinned) {
                rb_bench_arena_destroy(&run->arenas[n]);
                run->narenas = n;
            }
            memset(&run->subjects[n], 0, sizeof run->subjects[n]);
            rc = RB_OK;
            continue;
        }
        run->nsubjects = ++n;
        if (rc < 0) {
            rb_error inner = *err;
            rb__error(err, rc, inner.offset, "router %s: %s", rb_ops_name(ops[k]), inner.message);
            err->line = inner.line;
            rb_route_set_destroy(set);
            rb_bench_run_free(run);
            return rc;
        }
    }
    rb_route_set_destroy(set);
    return RB_OK;
}

int rb_bench_prepare(rb_bench_run *run, const rb_route_table *routes,
                     const rb_request_table *requests, const rb_router_ops *const *ops, size_t nops,
                     const rb_config *config, rb_error *err)
{
    return prepare(run, routes, requests, ops, nops, config, false, 0, NULL, NULL, NULL, err);
}

int rb_bench_prepare_progress(rb_bench_run *run, const rb_route_table *routes,
                              const rb_request_table *requests, const rb_router_ops *const *ops,
                              size_t nops, const rb_config *config, rb_bench_progress_fn progress,
                              rb_bench_refused_fn refused, void *ctx, rb_error *err)
{
    return prepare(run, routes, requests, ops, nops, config, false, 0, progress, refused, ctx, err);
}

int rb_bench_prepare_pinned(rb_bench_run *run, const rb_route_table *routes,
                            const rb_request_table *requests, const rb_router_ops *const *ops,
                            size_t nops, uint64_t seed, rb_bench_progress_fn progress,
                            rb_bench_refused_fn refused, void *ctx, rb_error *err)
{
    return prepare(run, routes, requests, ops, nops, NULL, true, seed, progress, refused, ctx, err);
}

void rb_bench_slow_subject(rb_bench_run *run, size_t k, uint64_t spin)
{
    rb_bench_subject *s = &run->subjects[k];
    s->slowed = (rb_bench_slowed){rb__router_ops(s->router), rb__router_impl(s->router), spin};
    s->lookup = rb_bench_slowed_lookup;
    s->lookup_impl = &s->slowed;
}

static int checksum_error(const rb_bench_subject *s, uint64_t sum, uint64_t reps, rb_error *err)
{
    return rb__error(err, RB_ESTATE, RB_NO_OFFSET,
                     "router %s answered differently from one replay to the next "
                     "(checksum %016llx over %llu replays, expected %llu x %016llx)",
                     rb_ops_name(s->ops), (unsigned long long)sum, (unsigned long long)reps,
                     (unsigned long long)reps, (unsigned long long)s->checksum);
}

int rb_bench_replay(const rb_bench_run *run, const rb_bench_subject *s, uint64_t reps,
                    rb_error *err)
{
    uint64_t sum = replay(s, run->queries, run->nqueries, reps);
    return sum == reps * s->checksum ? RB_OK : checksum_error(s, sum, reps, err);
}

/* The trial's duration, for calibration and the min-trial check: CPU time
 * on the CPU clock, elapsed time otherwise. */
static uint64_t duration_ns(const rb_bench_run *run, const rb_bench_trial *t)
{
    return run->clock == RB_BENCH_CLOCK_CPU ? t->cpu_ns : t->wall_ns;
}

/* Time reps replays of subject s; checks the sum against its checksum. */
static int timed(const rb_bench_run *run, const rb_bench_subject *s, uint64_t reps,
                 rb_bench_trial *t, rb_error *err)
{
    if (s->peer) { /* the peer's own loop, on its clock (peer.h) */
        uint64_t sum = 0, ns = 0;
        int rc = rb_peer_trial(s->peer, reps, &ns, &sum, err);
        if (rc < 0) return rc;
        t->wall_ns = t->cpu_ns = t->ns = ns ? ns : 1;
        t->lookups = reps * run->nqueries;
        return sum == reps * s->checksum ? RB_OK : checksum_error(s, sum, reps, err);
    }
    bool hw = run->clock == RB_BENCH_CLOCK_HW_INSTRUCTIONS;
    bool modes = run->mode != RB_BENCH_MODE_THROUGHPUT || run->app;
    uint64_t i0 = hw ? rb_perf_read(&run->perf) : 0;
    uint64_t c0 = rb__thread_cpu_ns();
    uint64_t t0 = rb__monotonic_ns();
    uint64_t inner = 0;
    uint64_t sum = modes ? rb__bench_replay_modes(run, s, reps, &inner)
                         : replay(s, run->queries, run->nqueries, reps);
    uint64_t t1 = rb__monotonic_ns();
    uint64_t c1 = rb__thread_cpu_ns();
    uint64_t i1 = hw ? rb_perf_read(&run->perf) : 0;
    t->wall_ns = t1 > t0 ? t1 - t0 : 1;
    t->cpu_ns = c1 > c0 ? c1 - c0 : 0;
    if (hw)
        t->ns = i1 > i0 ? i1 - i0 : 1;
    else
        t->ns = run->clock == RB_BENCH_CLOCK_CPU ? (t->cpu_ns ? t->cpu_ns : 1) : t->wall_ns;
    if (run->app) t->ns = inner ? inner : 1; /* cold: the lookups' own intervals */
    t->lookups = reps * run->nqueries;
    return sum == reps * s->checksum ? RB_OK : checksum_error(s, sum, reps, err);
}

/* reps for a trial of target_ns when one replay takes per_replay_ns. */
static uint64_t reps_for(double target_ns, double per_replay_ns)
{
    double want = per_replay_ns > 0 ? target_ns / per_replay_ns : 1;
    return want <= 1 ? 1 : want >= 1e15 ? UINT64_C(1000000000000000) : (uint64_t)want + 1u;
}

static int calibrate(const rb_bench_run *run, rb_bench_subject *s, double min_trial_ns,
                     rb_error *err)
{
    uint64_t reps = 1;
    rb_bench_trial t;
    for (;;) {
        int rc = timed(run, s, reps, &t, err);
        if (rc < 0) return rc;
        if ((double)duration_ns(run, &t) >= min_trial_ns / 8 || reps >= (UINT64_C(1) << 40)) break;
        reps *= 2;
    }
    double per_replay = (double)duration_ns(run, &t) / (double)reps;
    s->reps = reps_for(RB_BENCH_CALIBRATION_MARGIN * min_trial_ns, per_replay);
    return RB_OK;
}

/* A peer runner warms up until it stops getting faster: after the
 * protocol's warm-up rounds (best: its fastest replay there, 0 when there
 * were none; warmed_ns: their time), more warm-up trials until two in a
 * row are not RB_BENCH_STEADY_GAIN faster than every one before them, and
 * a JIT runtime's (Node) until its loop has also run RB_BENCH_JIT_WARMUP_MS
 * in all; at most RB_BENCH_PEER_WARMUP_MAX trials.  V8 speeds a lookup
 * loop up over its first half second or so, in steps with plateaus
 * between them: calibrated before that, the trials ran short and the
 * scenario was measured again.  Our routers, in process, need none. */
static int warm_peer(rb_bench_run *run, rb_bench_subject *s, double best, double warmed_ns,
                     rb_bench_progress_fn progress, void *ctx, size_t done, size_t total,
                     rb_error *err)
{
    double jit_ns = s->peer->jit ? RB_BENCH_JIT_WARMUP_MS * 1e6 : 0;
    unsigned flat = 0; /* trials in a row not RB_BENCH_STEADY_GAIN faster */
    for (unsigned i = 0; i < RB_BENCH_PEER_WARMUP_MAX && (flat < 2 || warmed_ns < jit_ns); i++) {
        if (progress) progress(ctx, "warm-up", s, done, total);
        rb_bench_trial tr;
        int rc = timed(run, s, s->reps, &tr, err);
        if (rc < 0) return rc;
        double ns = (double)duration_ns(run, &tr), per = ns / (double)s->reps;
        warmed_ns += ns;
        flat = best == 0 || per < best * (1 - RB_BENCH_STEADY_GAIN) ? 0 : flat + 1;
        if (best == 0 || per < best) best = per;
    }
    return RB_OK;
}

/* Calibrate again, warm (after the warm-up): RB_BENCH_CALIBRATION_TRIALS
 * rounds of every router, each trial about a quarter of a measured one;
 * the fastest replay of each router sets its reps.  The fastest, because a
 * trial can only be slowed by the machine: sized on the fastest, the
 * measured trials fall short only when the machine runs faster than it
 * ever did in calibration.  A router whose one replay already outlasts
 * the trial (reps 1: a cold pass of a big table) is left as it is: its
 * trials are one replay whatever calibration says. */
static int calibrate_warm(rb_bench_run *run, double min_trial_ns, rb_bench_progress_fn progress,
                          void *ctx, rb_error *err)
{
    size_t nr = run->nsubjects;
    double *fastest = calloc(nr, sizeof *fastest);
    uint64_t *reps = calloc(nr, sizeof *reps);
    int rc = fastest && reps ? RB_OK
                             : rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory calibrating");
    for (size_t k = 0; rc == RB_OK && k < nr; k++)
        reps[k] = run->subjects[k].reps / 4 ? run->subjects[k].reps / 4 : 1;
    for (unsigned c = 0; rc == RB_OK && c < RB_BENCH_CALIBRATION_TRIALS; c++) {
        for (size_t p = 0; rc == RB_OK && p < nr; p++) {
            size_t k = (c + p) % nr;
            if (run->subjects[k].reps == 1) continue;
            if (progress) progress(ctx, "calibrate", &run->subjects[k], 0, 0);
            rb_bench_trial t;
            rc = timed(run, &run->subjects[k], reps[k], &t, err);
            double per = (double)duration_ns(run, &t) / (double)reps[k];
            if (rc == RB_OK && (fastest[k] == 0 || per < fastest[k])) fastest[k] = per;
        }
    }
    for (size_t k = 0; rc == RB_OK && k < nr; k++)
        if (fastest[k] > 0)
            run->subjects[k].reps =
                reps_for(RB_BENCH_CALIBRATION_MARGIN * min_trial_ns, fastest[k]);
    free(fastest);
    free(reps);
    return rc;
}

/* ---- round orders -------------------------------------------------------- */

size_t rb_bench_order_router(uint32_t order, size_t position, size_t nrouters)
{
    size_t r = order % nrouters;
    if (order < nrouters) return (r + position) % nrouters; /* forward rotation */
    return (r + nrouters - position % nrouters) % nrouters; /* backward rotation */
}

void rb_bench_round_orders(uint64_t seed, size_t rounds, size_t nrouters, uint32_t *order)
{
    size_t norders = 2 * nrouters;
    for (size_t t = 0; t < rounds; t++) order[t] = (uint32_t)(t % norders);
    rb_rng rng;
    rb_rng_seed(&rng, seed);
    for (size_t t = rounds; t > 1; t--) { /* Fisher-Yates */
        size_t j = (size_t)rb_rng_below(&rng, t);
        uint32_t x = order[t - 1];
        order[t - 1] = order[j];
        order[j] = x;
    }
}

/* ---- measuring ------------------------------------------------------------ */

/* ---- the application stand-in (cold cache; replay.c) --------------- */

/* One stand-in-alone trial: the clock's cost per interval (ns), with the
 * stand-in between intervals as in a cold trial. */
static double app_trial(const rb_bench_run *run, uint64_t iters)
{
    uint64_t inner = 0;
    uint64_t end = rb__bench_app_alone(run, iters, &inner);
    return ((double)inner + (double)(end & run->zero)) / (double)iters;
}

/* The stand-in's wall time per run (for calibrating app_iters). */
static double app_run_ns(const rb_bench_run *run, uint64_t iters)
{
    uint64_t t0 = rb__monotonic_ns();
    uint64_t inner;
    uint64_t end = rb__bench_app_alone(run, iters, &inner);
    uint64_t t1 = rb__monotonic_ns();
    return ((double)(t1 - t0) + (double)(end & run->zero)) / (double)iters;
}

/* Stand-in runs per stand-in-alone trial: about a quarter of min_trial. */
static void app_calibrate(rb_bench_run *run, double min_trial_ns)
{
    uint64_t iters = 1;
    while (iters < (UINT64_C(1) << 32) &&
           app_run_ns(run, iters) * (double)iters < min_trial_ns / 32)
        iters *= 2;
    uint64_t want = reps_for(min_trial_ns / 4, app_run_ns(run, iters));
    run->app_iters = want ? want : 1;
}

/* Subtract the round's clock cost per interval (the mean of a
 * stand-in-alone trial before and one after the round) from the round's
 * trials, each lookup of which was one interval. */
static void app_subtract(rb_bench_run *run, size_t first, double per_run)
{
    for (size_t i = first; i < run->ntrials; i++) {
        rb_bench_trial *t = &run->trials[i];
        double ns = (double)t->ns - per_run * (double)t->lookups;
        t->ns = ns >= 1 ? (uint64_t)ns : 1;
    }
}

static void app_summarise(rb_bench_run *run)
{
    double *scratch = malloc(run->app_rounds * sizeof *scratch);
    if (!scratch || !run->app_rounds) {
        free(scratch);
        return;
    }
    rb_stats_median(run->app_round_ns, run->app_rounds, &run->app_ns, scratch);
    rb_stats_mad(run->app_round_ns, run->app_rounds, &run->app_mad_ns, scratch);
    free(scratch);
}

/* The measured rounds, in the given orders. */
static int measure_rounds(rb_bench_run *run, const rb_bench_protocol *proto, const uint32_t *order,
                          const char *what, rb_bench_progress_fn progress, void *ctx, size_t *done,
                          size_t total, rb_error *err)
{
    size_t nr = run->nsubjects;
    run->ntrials = 0;
    for (size_t t = 0; t < proto->trials; t++) {
        size_t first = run->ntrials;
        double before = run->app ? app_trial(run, run->app_iters) : 0;
        for (size_t p = 0; p < nr; p++) {
            size_t k = rb_bench_order_router(order[t], p, nr);
            rb_bench_subject *s = &run->subjects[k];
            if (progress) progress(ctx, what, s, *done, total);
            rb_bench_trial tr;
            int rc = timed(run, s, s->reps, &tr, err);
            if (rc < 0) return rc;
            (*done)++;
            tr.subject = (uint32_t)k;
            tr.trial = (uint32_t)t;
            tr.position = (uint32_t)p;
            run->trials[run->ntrials++] = tr;
        }
        if (run->app) {
            double per_run = (before + app_trial(run, run->app_iters)) / 2;
            run->app_round_ns[t] = per_run;
            app_subtract(run, first, per_run);
        }
    }
    if (run->app) app_summarise(run);
    return RB_OK;
}

bool rb_bench_trial_short(double duration_ns, double min_trial_ns)
{
    return duration_ns < RB_BENCH_SHORT_SHARE * min_trial_ns;
}

/* Count each subject's short trials (rb_bench_trial_short); the total. */
static size_t count_short(rb_bench_run *run, double min_ns)
{
    size_t total = 0;
    for (size_t k = 0; k < run->nsubjects; k++) run->subjects[k].short_trials = 0;
    for (size_t i = 0; i < run->ntrials; i++) {
        const rb_bench_trial *t = &run->trials[i];
        if (!rb_bench_trial_short((double)duration_ns(run, t), min_ns)) continue;
        run->subjects[t->subject].short_trials++;
        total++;
    }
    return total;
}

/* Recalibrate the subjects with short trials from their fastest trial. */
static void recalibrate(rb_bench_run *run, double min_ns)
{
    for (size_t k = 0; k < run->nsubjects; k++) {
        rb_bench_subject *s = &run->subjects[k];
        if (!s->short_trials) continue;
        double fastest = 0;
        for (size_t i = 0; i < run->ntrials; i++) {
            const rb_bench_trial *t = &run->trials[i];
            double per = (double)duration_ns(run, t) / (double)s->reps;
            if (t->subject == k && (fastest == 0 || per < fastest)) fastest = per;
        }
        uint64_t reps = reps_for(RB_BENCH_RECALIBRATION_MARGIN * min_ns, fastest);
        s->reps = reps > s->reps ? reps : s->reps + 1;
        s->recalibrated = true;
    }
}

int rb_bench_measure(rb_bench_run *run, const rb_bench_protocol *proto,
                     rb_bench_progress_fn progress, void *ctx, rb_error *err)
{
    if (!proto || proto->trials == 0 || !(proto->min_trial_ms > 0) || run->nsubjects == 0 ||
        (proto->clock != RB_BENCH_CLOCK_WALL && proto->clock != RB_BENCH_CLOCK_CPU &&
         proto->clock != RB_BENCH_CLOCK_HW_INSTRUCTIONS) ||
        run->nsubjects > UINT32_MAX / 2)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                         "a measurement needs routers, trials >= 1 and a minimum trial time > 0");
    size_t nr = run->nsubjects;
    free(run->trials);
    run->ntrials = 0;
    run->trials = calloc(nr * proto->trials, sizeof *run->trials);
    uint32_t *order = calloc(proto->trials, sizeof *order);
    if (!run->trials || !order) {
        free(order);
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory for %zu trials",
                         nr * proto->trials);
    }
    run->clock = proto->clock;
    run->zero = 0;
    rb_perf_close(&run->perf);
    int rc = RB_OK;
    if (proto->clock == RB_BENCH_CLOCK_HW_INSTRUCTIONS) rc = rb_perf_open(&run->perf, err);
    double min_ns = proto->min_trial_ms * 1e6;
    if (rc == RB_OK && run->app_wanted) {
        if (proto->clock == RB_BENCH_CLOCK_HW_INSTRUCTIONS)
            rc = rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                           "the cold cache is measured in time, not in hardware instructions");
        if (rc == RB_OK) rc = rb__bench_app_open(run, run->app_wanted, err);
        if (rc == RB_OK) {
            run->app_round_ns = calloc(proto->trials, sizeof *run->app_round_ns);
            run->app_rounds = proto->trials;
            if (!run->app_round_ns)
                rc = rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory for the stand-in");
        }
        if (rc == RB_OK) app_calibrate(run, min_ns);
    }
    for (size_t k = 0; rc == RB_OK && k < nr; k++) {
        run->subjects[k].recalibrated = false;
        run->subjects[k].short_trials = 0;
        if (progress) progress(ctx, "calibrate", &run->subjects[k], 0, 0);
        rc = calibrate(run, &run->subjects[k], min_ns, err);
    }
    size_t total = ((size_t)proto->warmup + proto->trials) * nr, done = 0;
    double *warm_best = calloc(2 * nr, sizeof *warm_best), *warm_ns = warm_best + nr;
    if (rc == RB_OK && !warm_best)
        rc = rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory warming up");
    for (size_t round = 0; rc == RB_OK && round < proto->warmup; round++) {
        for (size_t p = 0; rc == RB_OK && p < nr; p++) {
            size_t k = (round + p) % nr;
            rb_bench_subject *s = &run->subjects[k];
            if (progress) progress(ctx, "warm-up", s, done, total);
            rb_bench_trial tr;
            rc = timed(run, s, s->reps, &tr, err);
            if (rc == RB_OK) {
                double ns = (double)duration_ns(run, &tr), per = ns / (double)s->reps;
                if (warm_best[k] == 0 || per < warm_best[k]) warm_best[k] = per;
                warm_ns[k] += ns;
            }
            done++;
        }
    }
    for (size_t k = 0; rc == RB_OK && k < nr; k++)
        if (run->subjects[k].peer)
            rc = warm_peer(run, &run->subjects[k], warm_best[k], warm_ns[k], progress, ctx, done,
                           total, err);
    free(warm_best);
    if (rc == RB_OK) rc = calibrate_warm(run, min_ns, progress, ctx, err);
    rb_bench_round_orders(proto->order_seed, proto->trials, nr, order);
    if (rc == RB_OK)
        rc = measure_rounds(run, proto, order, "trial", progress, ctx, &done, total, err);
    if (rc == RB_OK && count_short(run, min_ns) > 0) {
        recalibrate(run, min_ns);
        size_t again = 0;
        rc = measure_rounds(run, proto, order, "re-measure", progress, ctx, &again,
                            (size_t)proto->trials * nr, err);
        if (rc == RB_OK) count_short(run, min_ns);
    }
    free(order);
    return rc;
}

int rb_bench_add_peer(rb_bench_run *run, const rb_router_ops *ops, struct rb_peer *peer,
                      uint64_t checksum, size_t disagree, rb_error *err)
{
    rb_bench_subject *v = realloc(run->subjects, (run->nsubjects + 1) * sizeof *v);
    if (!v) {
        rb_peer_close(peer);
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory adding a peer");
    }
    run->subjects = v;
    rb_bench_subject *s = &v[run->nsubjects++];
    memset(s, 0, sizeof *s);
    s->ops = ops;
    s->peer = peer;
    s->checksum = checksum;
    s->disagree = disagree;
    s->rss_growth = -1;
    rb_peer_info(peer, &s->build_ns, &s->memory);
    s->build_cpu_ns = s->build_ns; /* the peer's own figure, whatever the run's clock */
    return RB_OK;
}

int rb_bench_set_conditions(rb_bench_run *run, int mode, size_t app_bytes, rb_error *err)
{
    if (mode != RB_BENCH_MODE_THROUGHPUT && mode != RB_BENCH_MODE_LATENCY)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "unknown mode %d", mode);
    run->mode = mode;
    run->app_wanted = app_bytes;
    return RB_OK;
}
