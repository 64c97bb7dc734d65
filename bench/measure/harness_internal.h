/*
 * harness_internal.h — what harness.c shares with replay.c: the fold
 * of one answer (inlined into every timed loop) and the loops of the
 * latency mode and the cold cache.
 */
#ifndef RB_BENCH_HARNESS_INTERNAL_H
#define RB_BENCH_HARNESS_INTERNAL_H

#include "harness.h"

/* Odd multipliers: every field of an answer moves the sum. */
#define RB__FOLD_ID   UINT64_C(0x9e3779b97f4a7c15)
#define RB__FOLD_SPAN UINT64_C(0xc2b2ae3d27d4eb4f)
#define RB__FOLD_MASK UINT64_C(0x165667b19e3779f9)

static inline uint64_t rb__bench_fold(const rb_match *m)
{
    uint64_t x = (uint64_t)(uint32_t)m->outcome;
    if (m->outcome == RB_FOUND) {
        x += ((uint64_t)m->route_id + 1u) * RB__FOLD_ID;
        uint32_t n = m->nparams < RB_MAX_CAPTURES ? m->nparams : RB_MAX_CAPTURES;
        for (uint32_t i = 0; i < n; i++) {
            uint64_t span = (uint64_t)m->params[i].offset << 32 | m->params[i].len;
            x += span * (RB__FOLD_SPAN + 2u * i);
        }
    } else if (m->outcome == RB_METHOD_NOT_ALLOWED) {
        x += (uint64_t)m->allowed * RB__FOLD_MASK;
    }
    return x;
}

/* reps replays of the run's table through s in the run's mode, with the
 * application stand-in between lookups when the run is cold; the fold of
 * every answer (the same sum as the throughput replay).  Cold: *inner_ns
 * is the sum of the per-lookup intervals (replay.c). */
uint64_t rb__bench_replay_modes(const rb_bench_run *run, const rb_bench_subject *s, uint64_t reps,
                                uint64_t *inner_ns);

/* iters runs of the stand-in, each between two clock reads, chained as in
 * the cold replay; *inner_ns the sum of the empty intervals; returns the
 * chain's end (keep it). */
uint64_t rb__bench_app_alone(const rb_bench_run *run, uint64_t iters, uint64_t *inner_ns);

/* Allocate the stand-in's memory (bytes > 0) and fill it; RB_ENOMEM. */
int rb__bench_app_open(rb_bench_run *run, size_t bytes, rb_error *err);
void rb__bench_app_close(rb_bench_run *run);

#endif
