/*
 * keyset.h — internal to the importers: a hash set of keys, to find a
 * repeated key in O(1) (mapping keys of a YAML or JSON document, the
 * routes "METHOD PATTERN" an import has written).
 *
 * The set holds values (an index, or a pointer as uintptr_t) under a
 * 64-bit hash of their key; the caller keeps the keys and says which value
 * holds the key it looks for (same()).  Open addressing with linear
 * probing, at most half full: O(1) expected per find and add, 16 bytes per
 * slot.
 */
#ifndef RB_CORPUS_KEYSET_H
#define RB_CORPUS_KEYSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RB_KEYSET_NONE UINTPTR_MAX

typedef struct rb_keyset {
    uint64_t *hash;
    uintptr_t *value;
    size_t cap, count; /* cap 0 or a power of two */
} rb_keyset;

/* Does value hold the key the caller looks for? */
typedef bool (*rb_keyset_same)(const void *ctx, uintptr_t value);

uint64_t rb__keyset_hash(const void *key, size_t len);

/* The slot of the value under hash h for which same(ctx, value) holds (the
 * caller may store another value for the same key there), or NULL. */
uintptr_t *rb__keyset_find(const rb_keyset *s, uint64_t h, rb_keyset_same same, const void *ctx);

/* Add value under hash h (no check that its key is new).  RB_ENOMEM, the
 * set unchanged. */
int rb__keyset_add(rb_keyset *s, uint64_t h, uintptr_t value);

void rb__keyset_free(rb_keyset *s);

#endif
