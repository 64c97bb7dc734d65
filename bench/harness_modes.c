/*
 * harness_modes.c — the latency mode and the cold cache of the harness
 * (issue 14; harness.h has the protocol, docs/measurement.md the why).
 *
 * Latency mode.  In the throughput replay the request of lookup k+1 does
 * not depend on lookup k, so an out-of-order core runs several lookups at
 * once; a server cannot (it waits for the answer before the handler runs).
 * Here the index of the next request is computed from the previous answer:
 *
 *     dep  = fold(answer k)                 (folded into the checksum anyway)
 *     next = k + 1 + (dep & zero)           zero: a volatile field that is 0
 *
 * The compiler cannot know that zero is 0, so the load of request k+1's
 * path pointer waits for lookup k's answer; the order of requests, and so
 * the checksum, is the throughput replay's.  The dependency costs one AND
 * and one ADD per lookup.
 *
 * Cold cache.  Between two lookups the stand-in for the application's work
 * reads and writes one byte in every 64-byte line of app_bytes of its own
 * memory (default 256 KiB, a per-request working set of a modest server),
 * starting at an offset that depends on the answer (dep & zero) and handing
 * its running sum on to the next lookup's index (latency mode), so the
 * three run in order: lookup, application, lookup.  The router's lines are
 * evicted from L1 (and partly L2) as in a server.  The stand-in's own cost
 * is measured alone, with the same chain and no lookups, twice per round
 * (before and after it); the mean of the two, per stand-in run, times the
 * lookups of a trial, is subtracted from each trial of that round, so a
 * slow spell of the machine during a round is removed from the trials it
 * hit (harness.c, measure_rounds).  What is left is the lookup plus what
 * the router loses to the application's evictions (and what the
 * application loses to the router's).  The median and the MAD of the
 * per-round stand-in cost are reported; the stand-in's own noise goes into
 * the trials, so it widens the intervals and the MDE, never biases them.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness_internal.h"

#include "router_impl.h"

#include <stdlib.h>
#include <string.h>

#define APP_LINE 64u

/* The stand-in: one read-modify-write per line, a running sum that the
 * next step consumes. */
static inline uint64_t app_work(unsigned char *a, size_t bytes, uint64_t x)
{
    uint64_t sum = x;
    for (size_t p = (size_t)x; p < bytes; p += APP_LINE) {
        sum += a[p];
        a[p] = (unsigned char)sum;
    }
    return sum;
}

uint64_t rb__bench_replay_modes(const rb_bench_run *run, const rb_bench_subject *s,
                                uint64_t reps)
{
    int (*lookup)(const void *, int, const char *, size_t, rb_match *) = s->lookup;
    const void *impl = s->lookup_impl;
    const rb_bench_query *q = run->queries;
    size_t n = run->nqueries;
    const uint64_t zero = run->zero; /* read once; unknown to the compiler */
    unsigned char *app = run->app;
    size_t bytes = run->app_bytes;
    bool latency = run->mode == RB_BENCH_MODE_LATENCY;
    rb_match m;
    uint64_t acc = 0, dep = 0, keep = 0;
    for (uint64_t r = 0; r < reps; r++) {
        for (size_t k = 0; k < n; k++) {
            const rb_bench_query *x = latency ? &q[k + (size_t)(dep & zero)] : &q[k];
            lookup(impl, x->method, x->path, x->len, &m);
            uint64_t f = rb__bench_fold(&m);
            acc += f;
            dep = f;
            if (app) {
                dep = app_work(app, bytes, dep & zero);
                keep += dep;
            }
        }
    }
    return acc + (keep & zero);
}

uint64_t rb__bench_app_alone(const rb_bench_run *run, uint64_t iters)
{
    const uint64_t zero = run->zero;
    uint64_t dep = 0;
    for (uint64_t i = 0; i < iters; i++) dep = app_work(run->app, run->app_bytes, dep & zero);
    return dep;
}

int rb__bench_app_open(rb_bench_run *run, size_t bytes, rb_error *err)
{
    rb__bench_app_close(run);
    run->app = malloc(bytes);
    if (!run->app)
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET,
                         "out of memory for the application stand-in (%zu bytes)", bytes);
    for (size_t i = 0; i < bytes; i++) run->app[i] = (unsigned char)(i * 131u);
    run->app_bytes = bytes;
    return RB_OK;
}

void rb__bench_app_close(rb_bench_run *run)
{
    free(run->app);
    free(run->app_round_ns);
    run->app = NULL;
    run->app_bytes = 0;
    run->app_round_ns = NULL;
    run->app_rounds = 0;
}
