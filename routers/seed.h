/*
 * seed.h — hash seeds and probe bounds, shared by every hashed table of the
 * routers and the front end (internal; not installed).
 *
 * Hash flooding is defeated in two ways at once:
 *   - every table is keyed by a seed derived from rb_config.seed, and seed 0
 *     means "a random seed for this router" (drawn by the front end with
 *     rb__seed_random), so an attacker who knows the code cannot aim
 *     collisions at a table built with the default configuration;
 *   - no probe sequence is ever longer than RB__PROBE_LIMIT + 1 slots: when
 *     build finds a longer one (an attacker who knows an explicit seed, or
 *     very bad luck), it re-seeds the table with rb__seed_mix(seed, attempt)
 *     and rebuilds, at most RB__RESEEDS times, and only then fails with
 *     RB_ELIMIT.  Re-seeding is deterministic, so an explicit seed gives the
 *     same tables on every run (benchmarks and instruction counts rely on it).
 */
#ifndef RB_SEED_H
#define RB_SEED_H

#include <stdint.h>

/* Slots beyond the home slot a probe sequence may inspect. */
#define RB__PROBE_LIMIT 32u
/* Re-seeds a build tries before it gives up with RB_ELIMIT. */
#define RB__RESEEDS 4u

/* A random nonzero seed: getrandom(2) where there is one, else the clock
 * mixed with an address (so two routers made in one run still differ). */
uint64_t rb__seed_random(void);

/* A seed derived from seed for one use (salt: which table, which attempt);
 * a bijection of seed for each salt, never 0. */
uint64_t rb__seed_mix(uint64_t seed, uint64_t salt);

/* Salts of the tables, so that no two share a seed. */
enum {
    RB__SALT_SHAPES = 1,  /* the front end's (method, shape) set */
    RB__SALT_LINEAR = 2,  /* linear's first-segment index */
    RB__SALT_GLOB = 3,    /* glob's static children */
    RB__SALT_FLOOR = 4,   /* floor's whole-path table */
    RB__SALT_CTRIE = 5,   /* ctrie's per-node child tables */
    RB__SALT_HASHSEG = 6, /* hashseg's keys */
    RB__SALT_RESEED = 16, /* + attempt: the seed of a rebuild */
};

/* The 128-bit product of a and b, folded to 64 bits (high ^ low): one
 * multiply that mixes every bit of both, for keys under secret words. */
static inline uint64_t rb__fold64(uint64_t a, uint64_t b)
{
#if defined(__SIZEOF_INT128__)
    __extension__ typedef unsigned __int128 u128;
    u128 p = (u128)a * b;
    return (uint64_t)p ^ (uint64_t)(p >> 64);
#else
    uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
    uint64_t lo = (mid << 32) | (ll & 0xffffffffu);
    uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    return lo ^ hi;
#endif
}

#endif
