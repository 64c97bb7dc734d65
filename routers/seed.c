/*
 * seed.c — random and derived hash seeds (see seed.h).
 */
#include "seed.h"

#include <time.h>

#if defined(__linux__)
#include <sys/random.h>
#endif

/* splitmix64's finaliser: a bijection of 64-bit words that mixes every bit. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t rb__seed_random(void)
{
    uint64_t s = 0;
#if defined(__linux__)
    if (getrandom(&s, sizeof s, GRND_NONBLOCK) != (ssize_t)sizeof s) s = 0;
#endif
    if (s == 0) {
        /* no getrandom, or no entropy yet: the clock, the processor time
         * and an address of this frame (ASLR) */
        uint64_t local = (uint64_t)(uintptr_t)&s;
        s = mix64((uint64_t)time(NULL) ^ mix64((uint64_t)clock() ^ mix64(local)));
    }
    return s ? s : 0x9e3779b97f4a7c15ull;
}

uint64_t rb__seed_mix(uint64_t seed, uint64_t salt)
{
    uint64_t s = mix64(seed + 0x9e3779b97f4a7c15ull * (salt + 1u));
    return s ? s : 0x9e3779b97f4a7c15ull;
}
