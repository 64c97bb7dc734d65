/*
 * floor.c — the exact-match floor: a REFERENCE, not a router to choose.
 *
 * It answers one question for the benchmark: how fast can a lookup be at
 * all, when the whole path is hashed once and found in one cache line?  It
 * supports static routes only (features = 0: the front end refuses params,
 * catch-alls and globs with RB_EUNSUPPORTED), so it appears in the results of
 * static scenarios only, labelled "reference" (its summary says so; the
 * reports print that summary).  A real router on a static table is judged by
 * how close it comes to this row.
 *
 * Structure: an open-addressing table (linear probing, capacity a power of
 * two, load <= 1/2) keyed by the full path, hashed with XXH3 (inlined:
 * XXH_INLINE_ALL).  One 64-byte slot per distinct path holds the hash, the
 * key's place in a byte arena and the route id of every method that has a
 * route on that path, plus `*`.  Since a static pattern matches exactly the
 * path equal to its text, "the routes matching a path" are the routes of one
 * slot, and priority reduces to "a specific method before `*`" (duplicates
 * of (method, path) never reach add: the front end refuses them).
 *
 * The example route set shared by every router file: floor keeps the two
 * static routes and refuses the other three (parameter, parameter,
 * catch-all), so it never mis-routes them.
 *
 *     GET  /users              -> slot A
 *     GET  /users/:id          refused (parameter)
 *     GET  /users/me           -> slot B
 *     POST /users/:id/posts    refused (parameter)
 *     GET  /static/{*path}     refused (catch-all)
 *
 *     slots[] (capacity 4 here; home = hash & 3)       keys (arena)
 *     +---+----------------------------------------+   +-------------------+
 *     | 0 | empty (methods == 0)                   |   |/users/users/me    |
 *     | 1 | A hash=..., key 0+6,  methods {GET}    |---+ ^0    ^6          |
 *     |   |   ids[GET]=0                           |   +-------------------+
 *     | 2 | B hash=..., key 6+9,  methods {GET}    |
 *     |   |   ids[GET]=2                           |
 *     | 3 | empty                                  |
 *     +---+----------------------------------------+
 *
 *     GET  /users/me  -> hash, probe from home: slot B, bytes equal, GET: 2
 *     POST /users     -> slot A, no POST, no `*`: 405, allowed {GET}
 *     GET  /users/7   -> probe reaches an empty slot: 404
 *
 * Slot layout (64 bytes; the array is aligned to 64 bytes by hand, since an
 * rb_allocator promises no alignment, so a slot is exactly one cache line):
 *     uint64_t hash; uint32_t key_off, key_len;
 *     uint32_t ids[10];  (9 methods, then `*`)
 *     uint32_t methods;  bit m: ids[m] is a route (bit 9: `*`); 0 = empty
 *     uint32_t pad;
 *
 * Hash flooding: the hash is seeded from rb_config.seed (random per router
 * unless the caller gives one); an add whose probe sequence passes
 * RB__PROBE_LIMIT re-seeds the table (seed.h, at most RB__RESEEDS times),
 * build refuses a table still over the limit with RB_ELIMIT, and a lookup
 * inspects at most max_probe + 1 <= RB__PROBE_LIMIT + 1 slots.
 *
 * Cost: lookup O(L) to hash and compare the path plus O(1) expected probes;
 * add O(L) amortised (a copy of the path; the table doubles when half full);
 * build O(1); memory 64 bytes x capacity (between 2N and 4N slots for N
 * distinct paths) + the path bytes.
 *
 * Invariants (floor_check): capacity is 0 or a power of two; used slots
 * <= capacity / 2 and equal the count of distinct paths; every used slot's
 * hash is XXH3 of its key; every used slot is reached from its home slot
 * without crossing an empty slot; no two used slots hold equal keys; the
 * methods mask has no bits above `*`; keys lie inside the arena.
 *
 * build only checks the longest probe sequence (the table is already in
 * lookup form) and records it for lookups.  Thread
 * safety: lookup only reads, so concurrent lookups after build are safe.
 */
#include "floor.h"
#include "seed.h"

#include <stdio.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#define FLOOR_SLOTS_MIN 16u
#define FLOOR_ALIGN     64u
#define FLOOR_ANY_BIT   RB_METHOD_BIT(RB_ANY)
#define FLOOR_ALL_BITS  (RB_METHOD_BIT(RB_ANY + 1) - 1u)

/* One cache line. */
typedef struct floor_slot {
    uint64_t hash;
    uint32_t key_off, key_len; /* the path, in floor_router.keys */
    uint32_t ids[RB_METHOD_COUNT + 1];
    uint32_t methods; /* bit m: ids[m] holds a route; 0: empty slot */
    uint32_t pad;
} floor_slot;

_Static_assert(sizeof(floor_slot) == FLOOR_ALIGN, "a floor slot is one cache line");

typedef struct floor_router {
    const rb_allocator *allocator;
    uint64_t seed;      /* of every hash: derived from rb_config.seed */
    uint64_t first;     /* the seed before any re-seed */
    uint32_t reseeds;   /* re-seeds so far (at most RB__RESEEDS) */
    uint32_t max_probe; /* longest displacement, set by build */
    uint32_t longest;   /* longest displacement seen by add (before re-seeding) */
    char desc[160];
    floor_slot *slots; /* cap slots, 64-byte aligned inside block */
    void *block;       /* the allocation holding slots */
    size_t cap;        /* power of two or 0 */
    size_t used;       /* slots holding a path */
    char *keys;        /* path bytes, back to back */
    size_t keys_len, keys_cap;
} floor_router;

static int floor_create(const rb_config *config, void **out, rb_error *err)
{
    floor_router *r = rb_calloc(config->allocator, sizeof *r);
    if (!r) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory creating floor");
    r->allocator = config->allocator;
    r->seed = r->first = rb__seed_mix(config->seed, RB__SALT_FLOOR);
    r->max_probe = UINT32_MAX; /* until build */
    *out = r;
    return RB_OK;
}

static uint64_t floor_hash(const floor_router *r, const char *path, size_t len)
{
    return XXH3_64bits_withSeed(path, len, r->seed);
}

/* The slot holding path, or the empty slot where it would go (while
 * adding: the table is at most half full). */
static size_t floor_find(const floor_slot *slots, size_t cap, const char *keys, uint64_t hash,
                         const char *path, size_t len)
{
    size_t mask = cap - 1;
    for (size_t i = (size_t)hash & mask;; i = (i + 1) & mask) {
        const floor_slot *s = &slots[i];
        if (!s->methods) return i;
        if (s->hash == hash && s->key_len == len && memcmp(keys + s->key_off, path, len) == 0)
            return i;
    }
}

/* How far slot i is from the home slot of hash. */
static uint32_t displacement(size_t i, uint64_t hash, size_t cap)
{
    return (uint32_t)((i - (size_t)hash) & (cap - 1));
}

static size_t block_bytes(size_t cap)
{
    return cap * sizeof(floor_slot) + FLOOR_ALIGN - 1;
}

/* Every path again in a table of ncap slots under seed (hashes
 * recomputed when the seed changes); *longest is the longest displacement.
 * Unchanged on failure. */
static int floor_rehash(floor_router *r, size_t ncap, uint64_t seed, uint32_t *longest)
{
    void *block = rb_calloc(r->allocator, block_bytes(ncap));
    if (!block) return RB_ENOMEM;
    uintptr_t at = ((uintptr_t)block + FLOOR_ALIGN - 1) & ~(uintptr_t)(FLOOR_ALIGN - 1);
    floor_slot *slots = (floor_slot *)at;
    *longest = 0;
    for (size_t i = 0; i < r->cap; i++) {
        floor_slot s = r->slots[i];
        if (!s.methods) continue;
        const char *key = r->keys + s.key_off;
        if (seed != r->seed) s.hash = XXH3_64bits_withSeed(key, s.key_len, seed);
        size_t j = floor_find(slots, ncap, r->keys, s.hash, key, s.key_len);
        slots[j] = s;
        uint32_t d = displacement(j, s.hash, ncap);
        if (d > *longest) *longest = d;
    }
    if (r->cap) rb_free(r->allocator, r->block, block_bytes(r->cap));
    r->block = block;
    r->slots = slots;
    r->cap = ncap;
    r->seed = seed;
    return RB_OK;
}

/* Make room for one more path (load <= 1/2).  Unchanged on failure. */
static int floor_reserve(floor_router *r)
{
    if ((r->used + 1) * 2 <= r->cap) return RB_OK;
    uint32_t longest;
    return floor_rehash(r, r->cap ? r->cap * 2 : FLOOR_SLOTS_MIN, r->seed, &longest);
}

/* After a probe sequence of d slots: past the limit, re-seed (seed.h) while
 * re-seeds are left, until the table is within the limit again.  A failed
 * allocation keeps the table (build decides). */
static void floor_limit(floor_router *r, uint32_t d)
{
    if (d > r->longest) r->longest = d;
    while (d > RB__PROBE_LIMIT && r->reseeds < RB__RESEEDS) {
        uint64_t seed = rb__seed_mix(r->first, RB__SALT_RESEED + r->reseeds + 1u);
        if (floor_rehash(r, r->cap, seed, &d) < 0) return;
        r->reseeds++;
    }
}

/* Append len bytes to the key arena; *off receives their offset. */
static int floor_keep_key(floor_router *r, const char *path, size_t len, uint32_t *off)
{
    if (r->keys_len + len > UINT32_MAX) return RB_ELIMIT;
    if (rb_grow(r->allocator, &r->keys, &r->keys_cap, r->keys_len + len, 1, 256) < 0)
        return RB_ENOMEM;
    memcpy(r->keys + r->keys_len, path, len);
    *off = (uint32_t)r->keys_len;
    r->keys_len += len;
    return RB_OK;
}

static int floor_add(void *impl, const rb_route *route, rb_error *err)
{
    floor_router *r = impl;
    const rb_pattern *p = route->pattern;
    /* A static pattern matches exactly the path equal to its text. */
    uint64_t hash = floor_hash(r, p->text, p->len);
    if (r->cap) {
        size_t i = floor_find(r->slots, r->cap, r->keys, hash, p->text, p->len);
        floor_slot *s = &r->slots[i];
        if (s->methods) {
            /* (method, path) duplicates were refused by the front end. */
            s->ids[route->method] = route->id;
            s->methods |= RB_METHOD_BIT(route->method);
            return RB_OK;
        }
    }
    int rc = floor_reserve(r);
    uint32_t off = 0;
    if (rc == RB_OK) rc = floor_keep_key(r, p->text, p->len, &off);
    if (rc == RB_ELIMIT)
        return rb__error(err, RB_ELIMIT, RB_NO_OFFSET, "floor holds at most 4 GiB of paths");
    if (rc < 0) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory in floor");
    size_t at = floor_find(r->slots, r->cap, r->keys, hash, p->text, p->len);
    floor_slot *s = &r->slots[at];
    memset(s, 0, sizeof *s);
    s->hash = hash;
    s->key_off = off;
    s->key_len = (uint32_t)p->len;
    s->ids[route->method] = route->id;
    s->methods = RB_METHOD_BIT(route->method);
    r->used++;
    floor_limit(r, displacement(at, hash, r->cap));
    return RB_OK;
}

/* The longest displacement of the table. */
static uint32_t floor_longest(const floor_router *r)
{
    uint32_t longest = 0;
    for (size_t i = 0; i < r->cap; i++) {
        if (!r->slots[i].methods) continue;
        uint32_t d = displacement(i, r->slots[i].hash, r->cap);
        if (d > longest) longest = d;
    }
    return longest;
}

static int floor_build(void *impl, rb_error *err)
{
    floor_router *r = impl;
    uint32_t longest = floor_longest(r);
    if (longest > RB__PROBE_LIMIT)
        return rb__error(err, RB_ELIMIT, RB_NO_OFFSET,
                         "floor: a hash probe sequence of %u slots exceeds the limit of %u "
                         "under %u seeds (colliding keys whatever the seed)",
                         longest, RB__PROBE_LIMIT, r->reseeds + 1u);
    r->max_probe = longest;
    if (r->reseeds)
        snprintf(r->desc, sizeof r->desc,
                 "re-seeded %u time%s: a probe sequence of %u slots exceeded the limit of %u "
                 "(colliding keys: hash flooding?)",
                 r->reseeds, r->reseeds == 1 ? "" : "s", r->longest, RB__PROBE_LIMIT);
    return RB_OK;
}

static int floor_lookup(const void *impl, int method, const char *path, size_t len, rb_match *m)
{
    const floor_router *r = impl;
    m->nparams = 0;
    m->allowed = 0;
    m->outcome = RB_NOT_FOUND;
    if (r->cap == 0 || r->max_probe == UINT32_MAX) return RB_NOT_FOUND;
    uint64_t hash = floor_hash(r, path, len);
    /* at most max_probe + 1 slots: the build checked every path's */
    const floor_slot *s = NULL;
    size_t mask = r->cap - 1, i = (size_t)hash & mask;
    for (uint32_t n = 0; n <= r->max_probe; n++, i = (i + 1) & mask) {
        const floor_slot *t = &r->slots[i];
        if (!t->methods) break;
        if (t->hash == hash && t->key_len == len && memcmp(r->keys + t->key_off, path, len) == 0) {
            s = t;
            break;
        }
    }
    uint32_t methods = s ? s->methods : 0;
    if (methods & RB_METHOD_BIT(method)) {
        m->outcome = RB_FOUND;
        m->route_id = s->ids[method];
    } else if (methods & FLOOR_ANY_BIT) {
        m->outcome = RB_FOUND;
        m->route_id = s->ids[RB_ANY];
    } else if (methods) {
        m->outcome = RB_METHOD_NOT_ALLOWED;
        m->allowed = methods;
    }
    return m->outcome;
}

static size_t floor_memory(const void *impl)
{
    const floor_router *r = impl;
    return sizeof *r + (r->cap ? block_bytes(r->cap) : 0) + r->keys_cap;
}

static void floor_destroy(void *impl)
{
    floor_router *r = impl;
    if (r->cap) rb_free(r->allocator, r->block, block_bytes(r->cap));
    rb_free(r->allocator, r->keys, r->keys_cap);
    rb_free(r->allocator, r, sizeof *r);
}

static const char *floor_describe(const void *impl)
{
    return ((const floor_router *)impl)->desc;
}

uint32_t rb__floor_max_probe(const void *impl)
{
    return ((const floor_router *)impl)->max_probe;
}

static int floor_check(const void *impl, rb_error *err)
{
    const floor_router *r = impl;
    if (r->max_probe != UINT32_MAX && r->max_probe > RB__PROBE_LIMIT)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "max_probe %u over the limit", r->max_probe);
    if (r->cap & (r->cap - 1))
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "capacity %zu is not a power of two",
                         r->cap);
    if (r->used * 2 > r->cap && r->used)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "load %zu/%zu above one half", r->used,
                         r->cap);
    if (r->keys_len > r->keys_cap)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "key arena overflows");
    size_t used = 0, mask = r->cap - 1;
    for (size_t i = 0; i < r->cap; i++) {
        const floor_slot *s = &r->slots[i];
        if (!s->methods) continue;
        used++;
        if (s->methods & ~FLOOR_ALL_BITS)
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "slot %zu: stray method bits", i);
        if ((size_t)s->key_off + s->key_len > r->keys_len)
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "slot %zu: key outside the arena", i);
        const char *key = r->keys + s->key_off;
        if (s->hash != floor_hash(r, key, s->key_len))
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "slot %zu: stale hash", i);
        if (r->max_probe != UINT32_MAX && displacement(i, s->hash, r->cap) > r->max_probe)
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "slot %zu: beyond max_probe", i);
        for (size_t j = (size_t)s->hash & mask; j != i; j = (j + 1) & mask) {
            const floor_slot *t = &r->slots[j];
            if (!t->methods)
                return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                                 "slot %zu: unreachable (empty slot %zu on its probe path)", i, j);
            if (t->key_len == s->key_len && memcmp(r->keys + t->key_off, key, s->key_len) == 0)
                return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "slots %zu and %zu: same key", j, i);
        }
    }
    if (used != r->used)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "%zu used slots, count says %zu", used,
                         r->used);
    return RB_OK;
}

const rb_router_ops rb__floor_ops = {
    .abi_version = RB_ROUTER_ABI_VERSION,
    .name = "floor",
    .summary = "reference, not a router to choose: exact-match limit (XXH3 table of whole "
               "paths, static routes only)",
    .features = 0,
    .create = floor_create,
    .add = floor_add,
    .build = floor_build,
    .lookup = floor_lookup,
    .memory = floor_memory,
    .destroy = floor_destroy,
    .describe = floor_describe,
    .check = floor_check,
};
