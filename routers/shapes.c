/*
 * shapes.c — the (method, shape) set of the front end (shapes.h).
 */
#include "shapes.h"

#include "router.h"
#include "seed.h"

#include <string.h>
#include <xxhash.h>

void rb__shapes_init(rb__shapes *s, uint64_t seed)
{
    memset(s, 0, sizeof *s);
    s->seed = seed;
}

void rb__shapes_free(rb__shapes *s, const rb_allocator *a)
{
    rb_free(a, s->slots, s->cap * sizeof *s->slots);
    rb_free(a, s->arena, s->arena_cap);
    uint64_t seed = s->seed;
    rb__shapes_init(s, seed);
}

uint64_t rb__shapes_hash(const rb__shapes *s, int method, const char *shape, size_t len)
{
    return XXH3_64bits_withSeed(shape, len, s->seed + (uint64_t)method);
}

/* The slot of (method, shape): the member's, or the empty one where it
 * would go. */
static size_t find(const rb__shapes *s, uint64_t hash, int method, const char *shape, size_t len)
{
    size_t mask = s->cap - 1;
    for (size_t i = (size_t)hash & mask;; i = (i + 1) & mask) {
        const rb__shape_entry *e = &s->slots[i];
        if (!e->method1) return i;
        if (e->hash == hash && e->method1 == (uint32_t)method + 1u && e->len == len &&
            memcmp(s->arena + e->off, shape, len) == 0)
            return i;
    }
}

bool rb__shapes_has(const rb__shapes *s, uint64_t hash, int method, const char *shape, size_t len)
{
    return s->cap && s->slots[find(s, hash, method, shape, len)].method1;
}

/* The members in a new table of ncap slots under seed (hashes recomputed
 * from the arena).  Unchanged on failure. */
static int rehash(rb__shapes *s, const rb_allocator *a, size_t ncap, uint64_t seed)
{
    rb__shape_entry *slots = rb_calloc(a, ncap * sizeof *slots);
    if (!slots) return RB_ENOMEM;
    rb__shapes grown = *s;
    grown.slots = slots;
    grown.cap = ncap;
    grown.seed = seed;
    for (size_t i = 0; i < s->cap; i++) {
        rb__shape_entry e = s->slots[i];
        if (!e.method1) continue;
        if (seed != s->seed)
            e.hash = rb__shapes_hash(&grown, (int)e.method1 - 1, s->arena + e.off, e.len);
        size_t j = (size_t)e.hash & (ncap - 1);
        while (slots[j].method1) j = (j + 1) & (ncap - 1);
        slots[j] = e;
    }
    rb_free(a, s->slots, s->cap * sizeof *s->slots);
    *s = grown;
    return RB_OK;
}

int rb__shapes_reserve(rb__shapes *s, const rb_allocator *a, const char *shape, size_t len)
{
    if (len > UINT32_MAX - s->arena_len) return RB_ENOMEM;
    if (rb_grow(a, &s->arena, &s->arena_cap, s->arena_len + len, 1, 1024) < 0) return RB_ENOMEM;
    if ((s->count + 1) * 2 > s->cap && rehash(s, a, s->cap ? s->cap * 2 : 64, s->seed) < 0)
        return RB_ENOMEM;
    memcpy(s->arena + s->arena_len, shape, len);
    return RB_OK;
}

void rb__shapes_commit(rb__shapes *s, const rb_allocator *a, uint64_t hash, int method, size_t len)
{
    const char *shape = s->arena + s->arena_len;
    size_t i = find(s, hash, method, shape, len);
    if (((i - (size_t)hash) & (s->cap - 1)) > RB__PROBE_LIMIT &&
        rehash(s, a, s->cap, rb__seed_random()) == RB_OK) {
        hash = rb__shapes_hash(s, method, shape, len);
        i = find(s, hash, method, shape, len);
    }
    s->slots[i] =
        (rb__shape_entry){hash, (uint32_t)s->arena_len, (uint32_t)len, (uint32_t)method + 1u};
    s->arena_len += len;
    s->count++;
}

uint32_t rb__shapes_longest_probe(const rb__shapes *s)
{
    uint32_t longest = 0;
    for (size_t i = 0; i < s->cap; i++) {
        if (!s->slots[i].method1) continue;
        uint32_t d = (uint32_t)((i - (size_t)s->slots[i].hash) & (s->cap - 1));
        if (d > longest) longest = d;
    }
    return longest;
}

int rb__shapes_copy(rb__shapes *dst, const rb__shapes *src, const rb_allocator *a)
{
    rb__shapes_init(dst, src->seed);
    if (!src->cap) return RB_OK;
    dst->slots = rb_alloc(a, src->cap * sizeof *src->slots);
    dst->arena = rb_alloc(a, src->arena_len ? src->arena_len : 1);
    if (!dst->slots || !dst->arena) {
        rb_free(a, dst->slots, src->cap * sizeof *src->slots);
        rb_free(a, dst->arena, src->arena_len ? src->arena_len : 1);
        rb__shapes_init(dst, src->seed);
        return RB_ENOMEM;
    }
    memcpy(dst->slots, src->slots, src->cap * sizeof *src->slots);
    memcpy(dst->arena, src->arena, src->arena_len);
    dst->cap = src->cap;
    dst->count = src->count;
    dst->arena_len = src->arena_len;
    dst->arena_cap = src->arena_len ? src->arena_len : 1;
    return RB_OK;
}

size_t rb__shapes_bytes(const rb__shapes *s)
{
    return s->cap * sizeof *s->slots + s->arena_cap;
}

int rb__shapes_duplicate_error(rb_error *err, int method, const char *pattern, size_t len)
{
    return rb__error(err, RB_EDUPLICATE, 0,
                     "duplicate route: %s %.*s has the same method and shape as an earlier "
                     "route",
                     rb_method_name(method), (int)(len > 200 ? 200 : len), pattern);
}
