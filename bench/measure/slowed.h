/*
 * slowed.h — a copy of a router slowed by a known amount of busy work per
 * lookup, for `routebench pair --self-test` (bench/suite/selftest.h): the
 * "regression" the gate must catch.
 *
 * The wrapper's lookup calls the wrapped router's lookup, then runs `spin`
 * iterations of a dependent multiply-add chain that the compiler cannot
 * fold (bench/measure/slowed.c), and returns the wrapped answer unchanged, so the
 * slowed copy gives the same answers and the same checksum as the router.
 * Its cost is measured, not assumed: selftest.c measures the wrapper at
 * two spin counts and solves for the spin that makes a lookup (1 + X)
 * times as expensive as the plain router's (in ns, or exactly in
 * instructions under --metric instructions).
 *
 *     plain    harness loop -> ops->lookup(impl)
 *     slowed   harness loop -> slowed_lookup(&slowed) -> ops->lookup(impl)
 *                                                     -> spin x N
 *
 * Thread safety: lookup reads the wrapper and writes nothing but the match.
 */
#ifndef RB_BENCH_SLOWED_H
#define RB_BENCH_SLOWED_H

#include "router_plugin.h"

#include <stdint.h>

typedef struct rb_bench_slowed {
    const rb_router_ops *ops; /* the wrapped router's ops */
    const void *impl;         /* and its built implementation */
    uint64_t spin;            /* busy-work iterations after each lookup */
} rb_bench_slowed;

/* The lookup of a slowed copy: impl is an rb_bench_slowed. */
int rb_bench_slowed_lookup(const void *impl, int method, const char *path, size_t len, rb_match *m);

/* n iterations of the busy work, starting from x (returns the chain's end,
 * so callers can keep it from being optimised away). */
uint64_t rb_bench_spin(uint64_t n, uint64_t x);

#endif
