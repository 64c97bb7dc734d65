/*
 * seed.c — random and derived hash seeds (see seed.h).
 */
#include "seed.h"

#include "rng.h"

#include <time.h>

#if defined(__linux__)
#include <sys/random.h>
#endif

uint64_t rb__seed_random(void)
{
    uint64_t s = 0;
#if defined(__linux__)
    if (getrandom(&s, sizeof s, GRND_NONBLOCK) != (ssize_t)sizeof s) s = 0;
#endif
    if (s == 0) {
        /* no getrandom, or no entropy yet: the clock, the processor time
         * and an address of this frame (ASLR), mixed */
        uint64_t x = (uint64_t)(uintptr_t)&s ^ (uint64_t)time(NULL) << 20 ^ (uint64_t)clock();
        s = rb_splitmix64(&x);
    }
    return s ? s : UINT64_C(0x9e3779b97f4a7c15);
}

uint64_t rb__seed_mix(uint64_t seed, uint64_t salt)
{
    uint64_t x = seed + UINT64_C(0x9e3779b97f4a7c15) * salt;
    uint64_t s = rb_splitmix64(&x); /* mixes seed + golden * (salt + 1) */
    return s ? s : UINT64_C(0x9e3779b97f4a7c15);
}
