/*
 * replay.c — the latency mode and the cold cache of the harness
 * (harness.h has the protocol, docs/measurement.md the why).
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
 * evicted from L1 (and partly L2) as in a server.
 *
 * What is timed.  The stand-in costs 10 to 20 times a warm lookup, so
 * timing the whole loop and subtracting the stand-in's cost measured alone
 * leaves a small difference of two large noisy numbers (tried first: on a
 * loaded 2-core machine the intervals spanned 0 to 14x).  Instead each cold
 * lookup is timed on its own, CLOCK_MONOTONIC read just before and just
 * after it (the reads chained to the answer, so they cannot move across
 * it), and the trial's value is the sum of those intervals: the stand-in
 * runs outside them.  What the intervals hold besides the lookup is the
 * clock's own cost (about 20 ns here), measured alone in every round with
 * the same chain and the stand-in between two reads, once before and once
 * after the round's trials; the mean of the two per interval, times the
 * lookups of a trial, is subtracted from each trial of that round
 * (harness.c, measure_rounds).  Its median and MAD over the rounds are
 * reported (summary.json: app_ns_per_lookup, app_mad_ns).  Its noise goes
 * into the trials, so it widens the intervals and the MDE, never biases
 * them; a slow spell during a round raises both the clock's cost and the
 * trials of that round, and pairing cancels the rest.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness_internal.h"

#include "base_internal.h"
#include "clock.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

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

uint64_t rb__bench_replay_modes(const rb_bench_run *run, const rb_bench_subject *s, uint64_t reps,
                                uint64_t *inner_ns)
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
    uint64_t acc = 0, dep = 0, keep = 0, inner = 0;
    for (uint64_t r = 0; r < reps; r++) {
        for (size_t k = 0; k < n; k++) {
            const rb_bench_query *x = latency ? &q[k + (size_t)(dep & zero)] : &q[k];
            if (!app) {
                lookup(impl, x->method, x->path, x->len, &m);
                acc += dep = rb__bench_fold(&m);
                continue;
            }
            uint64_t t0 = rb__monotonic_ns() + (dep & zero);
            lookup(impl, x->method, x->path, x->len, &m);
            uint64_t f = rb__bench_fold(&m);
            uint64_t t1 = rb__monotonic_ns() + (f & zero);
            inner += t1 - t0;
            acc += f;
            dep = app_work(app, bytes, f & zero);
            keep += dep;
        }
    }
    *inner_ns = inner;
    return acc + (keep & zero);
}

uint64_t rb__bench_app_alone(const rb_bench_run *run, uint64_t iters, uint64_t *inner_ns)
{
    const uint64_t zero = run->zero;
    uint64_t dep = 0, inner = 0;
    for (uint64_t i = 0; i < iters; i++) {
        uint64_t t0 = rb__monotonic_ns() + (dep & zero);
        uint64_t t1 = rb__monotonic_ns() + (t0 & zero);
        inner += t1 - t0;
        dep = app_work(run->app, run->app_bytes, t1 & zero);
    }
    *inner_ns = inner;
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
