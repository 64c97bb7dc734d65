/*
 * synth_bundle.h — synthetic bundles for the tests of the verdict and its
 * renderers: the trials are written by hand (per router, per round), so
 * the expected winner, ties and ratios follow from the numbers (no timing).
 */
#ifndef RB_TEST_SYNTH_BUNDLE_H
#define RB_TEST_SYNTH_BUNDLE_H

#include "bundle.h"

#include <stdbool.h>
#include <stddef.h>

#define SYNTH_TRIALS 9

typedef struct synth_row {
    const char *name;
    const char *summary;     /* "peer process: Go ..." makes a Go peer runner */
    double ns[SYNTH_TRIALS]; /* per lookup in each round */
    uint64_t memory;
    uint64_t disagreements;
    bool peer_process;
} synth_row;

/* An empty bundle with these routers registered (every one with params). */
void synth_bundle(rb_bundle *b, const synth_row *rows, size_t n);

/* Scenario `name` measured under mode and cache:
 * 100 routes, 1000 requests, the same tables in every scenario (so a
 * second condition is one table), rows[i] as measured; statistics
 * computed.  Returns its index. */
size_t synth_scenario(rb_bundle *b, const char *name, rb_bundle_mode mode, rb_bundle_cache cache,
                      const synth_row *rows, size_t n);

/* A refusal of scenario si by router, with reason. */
void synth_refuse(rb_bundle *b, size_t si, const char *router, const char *reason);

/* Scenario `name` (100 routes, 1000 requests, fingerprints 7 and 8) under
 * mode and cache: radix 60 ns, hashseg 40 ns, ctrie 90 ns per lookup in
 * every trial, so every ratio is exact (ctrie/radix 60/90 = 0.667). */
void synth_three_routers(rb_bundle *b, const char *name, rb_bundle_mode mode,
                         rb_bundle_cache cache);

#endif
