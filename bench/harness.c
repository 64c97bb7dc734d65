/*
 * harness.c — calibration, interleaved trials and checksum folding (the
 * protocol is described in harness.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include "router_impl.h"
#include "verify.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t rb_bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

uint64_t rb_bench_thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
    return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

bool rb_bench_trial_disturbed(const rb_bench_trial *t)
{
    return t->cpu_ns > 0 && (double)t->cpu_ns < RB_BENCH_DISTURBED_SHARE * (double)t->wall_ns;
}

/* Odd multipliers: every field of an answer moves the sum. */
#define FOLD_ID   UINT64_C(0x9e3779b97f4a7c15)
#define FOLD_SPAN UINT64_C(0xc2b2ae3d27d4eb4f)
#define FOLD_MASK UINT64_C(0x165667b19e3779f9)

static inline uint64_t fold_answer(const rb_match *m)
{
    uint64_t x = (uint64_t)(uint32_t)m->outcome;
    if (m->outcome == RB_FOUND) {
        x += ((uint64_t)m->route_id + 1u) * FOLD_ID;
        uint32_t n = m->nparams < RB_MAX_CAPTURES ? m->nparams : RB_MAX_CAPTURES;
        for (uint32_t i = 0; i < n; i++) {
            uint64_t span = (uint64_t)m->params[i].offset << 32 | m->params[i].len;
            x += span * (FOLD_SPAN + 2u * i);
        }
    } else if (m->outcome == RB_METHOD_NOT_ALLOWED) {
        x += (uint64_t)m->allowed * FOLD_MASK;
    }
    return x;
}

uint64_t rb_bench_fold(const rb_match *m)
{
    return fold_answer(m);
}

/* The timed loop: reps replays of the table through the router's own
 * lookup, every answer folded into the returned sum. */
static uint64_t replay(const rb_router_ops *ops, const void *impl, const rb_bench_query *q,
                       size_t n, uint64_t reps)
{
    int (*lookup)(const void *, int, const char *, size_t, rb_match *) = ops->lookup;
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
    for (size_t i = 0; i < run->nsubjects; i++) rb_router_destroy(run->subjects[i].router);
    free(run->subjects);
    free(run->queries);
    free(run->trials);
    memset(run, 0, sizeof *run);
}

static int prepare_subject(rb_bench_subject *s, const rb_router_ops *ops,
                           const rb_route_table *routes, const rb_request_table *requests,
                           const rb_config *config, rb_error *err)
{
    memset(s, 0, sizeof *s);
    s->ops = ops;
    uint64_t t0 = rb_bench_now_ns();
    int rc = rb_route_table_build_router(routes, "routes", ops, config, &s->router, err);
    s->build_ns = rb_bench_now_ns() - t0;
    if (rc < 0) return rc;
    s->memory = rb_router_memory(s->router);
    for (size_t i = 0; i < requests->count; i++) {
        const rb_request *q = &requests->reqs[i];
        rb_match m;
        rb_router_lookup(s->router, q->method, rb_request_path(requests, i), q->len, &m);
        s->checksum += fold_answer(&m);
        if (!rb_match_expected(&m, q->expected)) {
            if (s->disagree == 0) s->first_disagree = i;
            s->disagree++;
        }
    }
    return RB_OK;
}

int rb_bench_prepare(rb_bench_run *run, const rb_route_table *routes,
                     const rb_request_table *requests, const rb_router_ops *const *ops, size_t nops,
                     const rb_config *config, rb_error *err)
{
    return rb_bench_prepare_progress(run, routes, requests, ops, nops, config, NULL, NULL, err);
}

int rb_bench_prepare_progress(rb_bench_run *run, const rb_route_table *routes,
                              const rb_request_table *requests, const rb_router_ops *const *ops,
                              size_t nops, const rb_config *config, rb_bench_progress_fn progress,
                              void *ctx, rb_error *err)
{
    memset(run, 0, sizeof *run);
    if (requests->count == 0 || nops == 0)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "a scenario needs requests and routers");
    run->queries = calloc(requests->count, sizeof *run->queries);
    run->subjects = calloc(nops, sizeof *run->subjects);
    if (!run->queries || !run->subjects) {
        rb_bench_run_free(run);
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory preparing a scenario");
    }
    run->nqueries = requests->count;
    for (size_t i = 0; i < requests->count; i++) {
        const rb_request *q = &requests->reqs[i];
        run->queries[i] = (rb_bench_query){rb_request_path(requests, i), q->len, q->method};
    }
    for (size_t k = 0; k < nops; k++) {
        if (progress) {
            rb_bench_subject next = {.ops = ops[k]};
            progress(ctx, "build", &next, k, nops);
        }
        int rc = prepare_subject(&run->subjects[k], ops[k], routes, requests, config, err);
        run->nsubjects = k + 1;
        if (rc < 0) {
            rb_error inner = *err;
            rb__error(err, rc, inner.offset, "router %s: %s", rb_ops_name(ops[k]), inner.message);
            err->line = inner.line;
            rb_bench_run_free(run);
            return rc;
        }
    }
    return RB_OK;
}

/* Time reps replays of subject s; checks the sum against its checksum. */
static int timed(const rb_bench_run *run, const rb_bench_subject *s, uint64_t reps,
                 rb_bench_trial *t, rb_error *err)
{
    const rb_router_ops *ops = rb__router_ops(s->router);
    const void *impl = rb__router_impl(s->router);
    uint64_t c0 = rb_bench_thread_cpu_ns();
    uint64_t t0 = rb_bench_now_ns();
    uint64_t sum = replay(ops, impl, run->queries, run->nqueries, reps);
    uint64_t t1 = rb_bench_now_ns();
    uint64_t c1 = rb_bench_thread_cpu_ns();
    t->wall_ns = t1 > t0 ? t1 - t0 : 1;
    t->cpu_ns = c1 > c0 ? c1 - c0 : 0;
    t->ns = run->clock == RB_BENCH_CLOCK_CPU ? (t->cpu_ns ? t->cpu_ns : 1) : t->wall_ns;
    t->lookups = reps * run->nqueries;
    if (sum != reps * s->checksum)
        return rb__error(err, RB_ESTATE, RB_NO_OFFSET,
                         "router %s answered differently from one replay to the next "
                         "(checksum %016llx over %llu replays, expected %llu x %016llx)",
                         rb_ops_name(s->ops), (unsigned long long)sum, (unsigned long long)reps,
                         (unsigned long long)reps, (unsigned long long)s->checksum);
    return RB_OK;
}

static int calibrate(const rb_bench_run *run, rb_bench_subject *s, double min_trial_ns,
                     rb_error *err)
{
    uint64_t reps = 1;
    rb_bench_trial t;
    for (;;) {
        int rc = timed(run, s, reps, &t, err);
        if (rc < 0) return rc;
        if ((double)t.ns >= min_trial_ns / 8 || reps >= (UINT64_C(1) << 40)) break;
        reps *= 2;
    }
    double per_replay = (double)t.ns / (double)reps;
    double want = min_trial_ns / per_replay;
    s->reps = want <= 1 ? 1 : (uint64_t)want + 1u;
    return RB_OK;
}

int rb_bench_measure(rb_bench_run *run, const rb_bench_protocol *proto,
                     rb_bench_progress_fn progress, void *ctx, rb_error *err)
{
    if (!proto || proto->trials == 0 || !(proto->min_trial_ms > 0) || run->nsubjects == 0 ||
        (proto->clock != RB_BENCH_CLOCK_WALL && proto->clock != RB_BENCH_CLOCK_CPU) ||
        run->nsubjects > UINT32_MAX)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                         "a measurement needs routers, trials >= 1 and a minimum trial time > 0");
    size_t nr = run->nsubjects;
    free(run->trials);
    run->ntrials = 0;
    run->trials = calloc(nr * proto->trials, sizeof *run->trials);
    if (!run->trials)
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory for %zu trials",
                         nr * proto->trials);
    double min_ns = proto->min_trial_ms * 1e6;
    run->clock = proto->clock;
    for (size_t k = 0; k < nr; k++) {
        if (progress) progress(ctx, "calibrate", &run->subjects[k], 0, 0);
        int rc = calibrate(run, &run->subjects[k], min_ns, err);
        if (rc < 0) return rc;
    }
    size_t rounds = (size_t)proto->warmup + proto->trials, done = 0;
    for (size_t round = 0; round < rounds; round++) {
        bool measured = round >= proto->warmup;
        size_t t = measured ? round - proto->warmup : round;
        for (size_t p = 0; p < nr; p++) {
            rb_bench_subject *s = &run->subjects[(t + p) % nr];
            if (progress) progress(ctx, measured ? "trial" : "warm-up", s, done, rounds * nr);
            rb_bench_trial tr;
            int rc = timed(run, s, s->reps, &tr, err);
            if (rc < 0) return rc;
            done++;
            if (!measured) continue;
            tr.subject = (uint32_t)((t + p) % nr);
            tr.trial = (uint32_t)t;
            tr.position = (uint32_t)p;
            run->trials[run->ntrials++] = tr;
        }
    }
    return RB_OK;
}
