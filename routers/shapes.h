/*
 * shapes.h — the set of (method, shape) pairs the front end refuses
 * duplicates with (internal; not installed).  One implementation for the
 * two places that check: a router's own adds (router.c) and a route set
 * (route_set.c), which checks a whole table once for every router built
 * from it.
 *
 * Open addressing keyed by XXH3 of the shape with the method mixed into
 * the seed, load <= 1/2; each entry keeps its hash, its method and where
 * its shape's bytes are in one arena of the set's own (no allocation per
 * shape).  An insert whose probe sequence would pass RB__PROBE_LIMIT
 * (seed.h) re-seeds the set at random (the seed changes no answer, only
 * the cost of a probe), so colliding shapes cannot make adds slow.  An insert is two steps, so that a caller can make a change and
 * the set agree: rb__shapes_reserve makes room for one entry and copies its
 * bytes (the only step that can fail), rb__shapes_commit makes it a member
 * (never fails); a reservation that is not committed is forgotten by the
 * next reserve.
 */
#ifndef RB_SHAPES_H
#define RB_SHAPES_H

#include "base_internal.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct rb__shape_entry {
    uint64_t hash;
    uint32_t off, len; /* the shape in the arena */
    uint32_t method1;  /* the method + 1; 0: an empty slot */
} rb__shape_entry;

typedef struct rb__shapes {
    rb__shape_entry *slots;
    size_t cap; /* a power of two, or 0 */
    size_t count;
    char *arena; /* the members' shapes, then a reserved one */
    size_t arena_len, arena_cap;
    uint64_t seed;
} rb__shapes;

/* An empty set (zero-initialising it gives the same with seed 0). */
void rb__shapes_init(rb__shapes *s, uint64_t seed);
void rb__shapes_free(rb__shapes *s, const rb_allocator *a);

/* The hash of (method, shape) under s's seed. */
uint64_t rb__shapes_hash(const rb__shapes *s, int method, const char *shape, size_t len);

/* Is (method, shape) a member?  hash from rb__shapes_hash. */
bool rb__shapes_has(const rb__shapes *s, uint64_t hash, int method, const char *shape, size_t len);

/* Room for one more member and a copy of its shape.  RB_ENOMEM leaves s as
 * it was. */
int rb__shapes_reserve(rb__shapes *s, const rb_allocator *a, const char *shape, size_t len);

/* Make the shape last reserved a member (it must not be one already; hash
 * from rb__shapes_hash).  Never fails: when re-seeding needs memory it
 * cannot get, the member takes the long probe sequence. */
void rb__shapes_commit(rb__shapes *s, const rb_allocator *a, uint64_t hash, int method, size_t len);

/* The longest probe sequence of a member, in slots past its home. */
uint32_t rb__shapes_longest_probe(const rb__shapes *s);

/* dst = a copy of src (dst empty).  RB_ENOMEM leaves dst empty. */
int rb__shapes_copy(rb__shapes *dst, const rb__shapes *src, const rb_allocator *a);

/* Bytes held. */
size_t rb__shapes_bytes(const rb__shapes *s);

/* RB_EDUPLICATE for a second route with the same (method, shape): the
 * error both router.c and route_set.c return. */
int rb__shapes_duplicate_error(rb_error *err, int method, const char *pattern, size_t len);

#endif
