/*
 * keyset.c — a hash set of keys for the importers (keyset.h).
 */
#include "keyset.h"

#include "base_internal.h"

#include <stdlib.h>
#include <xxhash.h>

uint64_t rb__keyset_hash(const void *key, size_t len)
{
    return XXH3_64bits(key, len);
}

uintptr_t *rb__keyset_find(const rb_keyset *s, uint64_t h, rb_keyset_same same, const void *ctx)
{
    if (s->cap == 0) return NULL;
    size_t mask = s->cap - 1;
    for (size_t i = (size_t)h & mask; s->value[i] != RB_KEYSET_NONE; i = (i + 1) & mask)
        if (s->hash[i] == h && same(ctx, s->value[i])) return &s->value[i];
    return NULL;
}

static void put(uint64_t *hash, uintptr_t *value, size_t cap, uint64_t h, uintptr_t v)
{
    size_t mask = cap - 1, i = (size_t)h & mask;
    while (value[i] != RB_KEYSET_NONE) i = (i + 1) & mask;
    hash[i] = h;
    value[i] = v;
}

int rb__keyset_add(rb_keyset *s, uint64_t h, uintptr_t value)
{
    if (2 * (s->count + 1) > s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        uint64_t *hash = malloc(cap * sizeof *hash);
        uintptr_t *val = malloc(cap * sizeof *val);
        if (!hash || !val) {
            free(hash);
            free(val);
            return RB_ENOMEM;
        }
        for (size_t i = 0; i < cap; i++) val[i] = RB_KEYSET_NONE;
        for (size_t i = 0; i < s->cap; i++)
            if (s->value[i] != RB_KEYSET_NONE) put(hash, val, cap, s->hash[i], s->value[i]);
        free(s->hash);
        free(s->value);
        s->hash = hash;
        s->value = val;
        s->cap = cap;
    }
    put(s->hash, s->value, s->cap, h, value);
    s->count++;
    return RB_OK;
}

void rb__keyset_free(rb_keyset *s)
{
    free(s->hash);
    free(s->value);
    *s = (rb_keyset){0};
}
