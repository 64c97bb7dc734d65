/*
 * rng.c — xoshiro256** seeded through splitmix64 (see rng.h for the
 * contract).  Transcribed from the public-domain reference implementations
 * by Sebastiano Vigna (xoshiro256starstar.c, splitmix64.c).
 */
#include "rng.h"

/* The increments make four consecutive outputs distinct, so the seeded
 * xoshiro state is never all zero. */
uint64_t rb_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

void rb_rng_seed(rb_rng *rng, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) rng->s[i] = rb_splitmix64(&x);
}

uint64_t rb_rng_next(rb_rng *rng)
{
    uint64_t *s = rng->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t rb_rng_below(rb_rng *rng, uint64_t bound)
{
    if (bound == 0) return 0;
    /* 2^64 mod bound, computed in 64 bits: (2^64 - bound) mod bound. */
    uint64_t threshold = (UINT64_MAX - bound + 1) % bound;
    for (;;) {
        uint64_t r = rb_rng_next(rng);
        /* [threshold, 2^64) holds a whole multiple of bound values. */
        if (r >= threshold) return r % bound;
    }
}

double rb_rng_unit(rb_rng *rng)
{
    return (double)(rb_rng_next(rng) >> 11) * 0x1.0p-53;
}
