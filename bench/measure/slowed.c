/*
 * slowed.c — the slowed copy of a router (slowed.h).
 */
#include "slowed.h"

uint64_t rb_bench_spin(uint64_t n, uint64_t x)
{
    for (uint64_t i = 0; i < n; i++) {
        x = x * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
        __asm__ volatile("" : "+r"(x)); /* the compiler cannot fold the chain */
    }
    return x;
}

int rb_bench_slowed_lookup(const void *impl, int method, const char *path, size_t len, rb_match *m)
{
    const rb_bench_slowed *s = impl;
    int outcome = s->ops->lookup(s->impl, method, path, len, m);
    uint64_t x = rb_bench_spin(s->spin, (uint64_t)len);
    __asm__ volatile("" ::"r"(x)); /* the chain's end is used */
    return outcome;
}
