/*
 * rng.h — the seeded pseudo-random generator of routebench.
 *
 * xoshiro256** (Blackman and Vigna, 2018; prng.di.unimi.it) with its 256-bit
 * state filled by four consecutive outputs of splitmix64 from the seed, as
 * the authors recommend.  It feeds the corpus generator, the bootstrap in
 * stats.h and the tests' random tables; splitmix64 alone also derives the
 * hash keys of hashed routers from their seed.  This is the only copy of
 * either generator in the project.
 *
 * The exact sequence is part of the contract: generated corpora must be
 * byte-identical on every machine, so
 *   - rb_rng_next and rb_rng_below use only 64-bit unsigned integer
 *     arithmetic (no floating point, no platform-dependent types);
 *   - changing the algorithm, the seeding or the rejection rule of
 *     rb_rng_below changes every corpus and every bootstrap interval.
 *     tests/test_stats_rng.c pins the outputs.
 *
 * The state is a plain struct owned by the caller: no global state, no
 * locking.  One rb_rng must not be used by two threads at once; give each
 * thread its own.  Not for cryptography.
 */
#ifndef RB_RNG_H
#define RB_RNG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The generator state.  Fill it with rb_rng_seed; the fields are public only
 * so that tests can load the published reference state {1, 2, 3, 4}.  The
 * all-zero state is invalid (the generator would return 0 forever);
 * rb_rng_seed never produces it. */
typedef struct rb_rng {
    uint64_t s[4];
} rb_rng;

/* splitmix64 (Vigna): advances *state by the golden-ratio increment and
 * returns a mixed copy of it.  Every state is valid; consecutive outputs
 * are distinct. */
uint64_t rb_splitmix64(uint64_t *state);

/* Seeds the generator: s[0..3] = the first four outputs of splitmix64
 * started at `seed`.  Every seed, 0 included, is valid. */
void rb_rng_seed(rb_rng *rng, uint64_t seed);

/* The next 64-bit output of xoshiro256**. */
uint64_t rb_rng_next(rb_rng *rng);

/* A uniformly distributed integer in [0, bound), without modulo bias: draws
 * rb_rng_next until the value is at least 2^64 mod bound (fewer than half of
 * the draws are rejected, for any bound) and returns it mod bound.  Integer
 * arithmetic only.  bound == 0 returns 0 and leaves the state unchanged. */
uint64_t rb_rng_below(rb_rng *rng, uint64_t bound);

/* A double uniformly distributed on the 2^53 multiples of 2^-53 in [0, 1):
 * the top 53 bits of one rb_rng_next output, times 2^-53.  Exact (no
 * rounding), so it is reproducible on any IEEE-754 machine; 1.0 is never
 * returned, 0.0 can be. */
double rb_rng_unit(rb_rng *rng);

#ifdef __cplusplus
}
#endif

#endif /* RB_RNG_H */
