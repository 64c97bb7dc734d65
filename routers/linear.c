/*
 * linear.c — the reference router ("the oracle").
 *
 * It implements ALL of the route semantics in the most obviously correct
 * way: try every route, keep the matching one with the smallest priority
 * key.  Every other router is tested against it, so clarity beats speed.
 *
 * The example route set shared by every router file, as linear holds it:
 *
 *     routes[] (in add order)
 *     +----+--------+----------------------+----------------+
 *     | id | method | pattern              | ranks          |
 *     +----+--------+----------------------+----------------+
 *     |  0 | GET    | /users               | [0]            |
 *     |  1 | GET    | /users/:id           | [0 1]          |
 *     |  2 | GET    | /users/me            | [0 0]          |
 *     |  3 | POST   | /users/:id/posts     | [0 1 0]        |
 *     |  4 | GET    | /static/{*path}      | [0 4]          |
 *     +----+--------+----------------------+----------------+
 *
 *     GET /users/me   -> routes 1 and 2 match; [0 0] < [0 1]: route 2
 *     PUT /users/7    -> route 1 matches, method does not fit: 405 {GET}
 *
 * Node layout: one linear_route per route: method, id, an owned copy of the
 * pattern text and its parse (segments, ranks, literal bytes).
 *
 * One index, so that 1,000,000-route tables stay usable as an oracle: build
 * groups the routes whose first segment is static by that segment's bytes
 * (a hash table of buckets); routes whose first segment is not static are
 * "wild".  A route in another bucket cannot match (its first segment
 * differs from the path's), so lookup tries the path's bucket and the wild
 * routes — the same "try every route that could match" as before:
 *
 *     buckets: "users" -> [0 1 2 3]    "static" -> [4]     wild: []
 *
 * The buckets are keyed by XXH3 under a seed derived from rb_config.seed
 * (random per router unless the caller gives one); a probe sequence over
 * RB__PROBE_LIMIT at build re-seeds the index (seed.h; after RB__RESEEDS
 * re-seeds build fails with RB_ELIMIT), so finding a bucket inspects at
 * most RB__PROBE_LIMIT + 1 slots.
 *
 * Matching one route against a path (match_route): the segments are walked
 * left to right; static, param and glob segments consume exactly one path
 * segment, a catch-all consumes the rest (1+ bytes), and '**' first takes
 * zero segments.  On a mismatch the most recent '**' takes one more segment
 * and matching resumes after it.  Only the most recent '**' needs
 * revisiting (blocks between two '**' are fixed-width, so the earliest
 * placement of a block is always the best one), hence:
 *   - a match is found whenever one exists;
 *   - the one found is the leftmost-shortest: each '**' takes as few
 *     segments as it can, in pattern order.  That is the capture rule of
 *     the route semantics, and every router reports those spans.
 *
 * A template segment (img-{id}.png) takes one path segment when
 * rb__template_match (tmplseg.c) fits it; its params are captures, each
 * as short as it can be, left to right.
 *
 * Captures: params, each param of a template, catch-alls, glob segments
 * and '**', in pattern order.
 * A '**' that took segments i..j spans from the first byte of segment i to
 * the last byte of segment j; a '**' that took none is an empty span at the
 * offset where the next segment would start (the path length at the end).
 *
 * Cost: build O(N); lookup O(B * P * S) worst case (B routes in the path's
 * bucket plus the wild ones, P pattern segments, S path segments; glob
 * segments add a factor of their length), O(B * L) for tables without
 * '**'; memory O(total pattern bytes + N).
 * Invariants: routes[] holds exactly the added routes, each pattern parsed
 * from the router's own copy; after build every route is in exactly one
 * bucket or in wild[], found within max_probe <= RB__PROBE_LIMIT slots
 * (the check op).  Thread safety:
 * lookup only reads, so concurrent lookups after build are safe.
 */
#include "linear.h"
#include "seed.h"

#include <string.h>
#include <xxhash.h>

typedef struct linear_route {
    int method;
    uint32_t id;
    char *text; /* owned copy of the pattern */
    rb_pattern pattern;
} linear_route;

/* Routes whose first segment is the static text key: order[first, first+count). */
typedef struct linear_bucket {
    const char *key; /* NULL: empty slot */
    uint32_t key_len;
    uint32_t first, count;
} linear_bucket;

typedef struct linear_router {
    const rb_allocator *allocator;
    linear_route *routes;
    size_t count, cap;
    linear_bucket *buckets; /* open addressing, nbuckets a power of two */
    size_t nbuckets;
    uint32_t *order;    /* route indices, grouped by bucket, then the wild ones */
    size_t nwild;       /* the last nwild entries of order[] */
    uint64_t seed;      /* of the bucket hash: derived from rb_config.seed */
    uint32_t max_probe; /* longest displacement of a bucket (<= RB__PROBE_LIMIT) */
    size_t bytes;       /* everything allocated, for memory() */
} linear_router;

static int linear_create(const rb_config *config, void **out, rb_error *err)
{
    linear_router *r = rb_calloc(config->allocator, sizeof *r);
    if (!r) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory creating linear");
    r->allocator = config->allocator;
    r->bytes = sizeof *r;
    r->seed = rb__seed_mix(config->seed, RB__SALT_LINEAR);
    *out = r;
    return RB_OK;
}

static int linear_add(void *impl, const rb_route *route, rb_error *err)
{
    linear_router *r = impl;
    size_t old_cap = r->cap;
    if (rb_grow(r->allocator, &r->routes, &r->cap, r->count + 1, sizeof *r->routes, 16) < 0)
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory in linear");
    r->bytes += (r->cap - old_cap) * sizeof *r->routes;
    const rb_pattern *p = route->pattern;
    linear_route *lr = &r->routes[r->count];
    lr->text = rb_alloc(r->allocator, p->len);
    if (!lr->text) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory in linear");
    memcpy(lr->text, p->text, p->len);
    int rc = rb_pattern_parse(lr->text, p->len, r->allocator, &lr->pattern, err);
    if (rc < 0) {
        rb_free(r->allocator, lr->text, p->len);
        return rc;
    }
    lr->method = route->method;
    lr->id = route->id;
    r->bytes += p->len + rb_pattern_bytes(&lr->pattern);
    r->count++;
    return RB_OK;
}

/* The bucket of first segment key, or the empty one where it belongs (at
 * build: the table is at most half full); *dist: its distance from home. */
static linear_bucket *bucket_place(const linear_router *r, const char *key, size_t len,
                                   uint32_t *dist)
{
    size_t mask = r->nbuckets - 1;
    *dist = 0;
    for (size_t i = (size_t)XXH3_64bits_withSeed(key, len, r->seed) & mask;;
         i = (i + 1) & mask, ++*dist) {
        linear_bucket *b = &r->buckets[i];
        if (!b->key || (b->key_len == len && memcmp(b->key, key, len) == 0)) return b;
    }
}

/* The bucket of first segment key, or NULL: at most max_probe + 1 slots. */
static const linear_bucket *bucket_find(const linear_router *r, const char *key, size_t len)
{
    size_t mask = r->nbuckets - 1;
    size_t i = (size_t)XXH3_64bits_withSeed(key, len, r->seed) & mask;
    for (uint32_t n = 0; n <= r->max_probe; n++, i = (i + 1) & mask) {
        const linear_bucket *b = &r->buckets[i];
        if (!b->key) return NULL;
        if (b->key_len == len && memcmp(b->key, key, len) == 0) return b;
    }
    return NULL;
}

static const rb_segment *first_static(const linear_route *lr)
{
    const rb_segment *s = &lr->pattern.segs[0];
    return s->kind == RB_SEG_STATIC ? s : NULL;
}

static int linear_build(void *impl, rb_error *err)
{
    linear_router *r = impl;
    size_t nb = 16;
    while (nb < r->count * 2) nb *= 2;
    r->buckets = rb_calloc(r->allocator, nb * sizeof *r->buckets);
    r->order = rb_alloc(r->allocator, (r->count ? r->count : 1) * sizeof *r->order);
    if (!r->buckets || !r->order) {
        rb_free(r->allocator, r->buckets, nb * sizeof *r->buckets);
        rb_free(r->allocator, r->order, (r->count ? r->count : 1) * sizeof *r->order);
        r->buckets = NULL;
        r->order = NULL;
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory building linear");
    }
    r->nbuckets = nb;
    /* count per bucket, then place: bucket ranges first, wild routes last.
     * A probe sequence over the limit re-seeds the index (seed.h). */
    uint64_t first = r->seed;
    uint32_t longest = 0;
    for (uint32_t attempt = 0;; attempt++) {
        memset(r->buckets, 0, nb * sizeof *r->buckets);
        r->nwild = 0;
        longest = 0;
        for (size_t i = 0; i < r->count; i++) {
            const rb_segment *s = first_static(&r->routes[i]);
            if (!s) {
                r->nwild++;
                continue;
            }
            uint32_t dist;
            linear_bucket *b = bucket_place(r, s->text, s->text_len, &dist);
            if (!b->key) *b = (linear_bucket){s->text, s->text_len, 0, 0};
            b->count++;
            if (dist > longest) longest = dist;
        }
        if (longest <= RB__PROBE_LIMIT) break;
        if (attempt == RB__RESEEDS) {
            rb_free(r->allocator, r->buckets, nb * sizeof *r->buckets);
            rb_free(r->allocator, r->order, (r->count ? r->count : 1) * sizeof *r->order);
            r->buckets = NULL;
            r->order = NULL;
            r->nbuckets = 0;
            r->seed = first;
            return rb__error(err, RB_ELIMIT, RB_NO_OFFSET,
                             "linear: a hash probe sequence of %u slots exceeds the limit of %u "
                             "under %u seeds",
                             longest, RB__PROBE_LIMIT, RB__RESEEDS + 1u);
        }
        r->seed = rb__seed_mix(first, RB__SALT_RESEED + attempt + 1u);
    }
    r->max_probe = longest;
    r->bytes += nb * sizeof *r->buckets + (r->count ? r->count : 1) * sizeof *r->order;
    uint32_t next = 0;
    for (size_t i = 0; i < nb; i++) {
        if (!r->buckets[i].key) continue;
        r->buckets[i].first = next;
        next += r->buckets[i].count;
        r->buckets[i].count = 0;
    }
    uint32_t wild = next;
    for (size_t i = 0; i < r->count; i++) {
        const rb_segment *s = first_static(&r->routes[i]);
        if (!s) {
            r->order[wild++] = (uint32_t)i;
            continue;
        }
        uint32_t dist;
        linear_bucket *b = bucket_place(r, s->text, s->text_len, &dist);
        r->order[b->first + b->count++] = (uint32_t)i;
    }
    return RB_OK;
}

/* Is every route in the bucket of its first static segment, or in wild[]? */
static bool linear_index_holds(const void *impl)
{
    const linear_router *r = impl;
    size_t seen = 0;
    if (r->max_probe > RB__PROBE_LIMIT) return false;
    for (size_t i = 0; i < r->nbuckets; i++) {
        const linear_bucket *b = &r->buckets[i];
        if (!b->key) continue;
        if (bucket_find(r, b->key, b->key_len) != b) return false; /* within max_probe */
        for (uint32_t k = 0; k < b->count; k++) {
            const rb_segment *s = first_static(&r->routes[r->order[b->first + k]]);
            if (!s || s->text_len != b->key_len || memcmp(s->text, b->key, b->key_len) != 0)
                return false;
        }
        seen += b->count;
    }
    for (size_t k = r->count - r->nwild; k < r->count; k++) {
        if (first_static(&r->routes[r->order[k]])) return false;
    }
    return seen + r->nwild == r->count;
}

uint32_t rb__linear_max_probe(const void *impl)
{
    return ((const linear_router *)impl)->max_probe;
}

static int linear_check(const void *impl, rb_error *err)
{
    if (linear_index_holds(impl)) return RB_OK;
    return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                     "linear: a route is not in the bucket of its first static segment");
}

/* Does one pattern segment (not '**', not a catch-all) take path[b, e)?
 * On success caps[0, s->captures) get its captures. */
static bool segment_takes(const rb_segment *s, const char *path, size_t b, size_t e, rb_span *caps)
{
    bool ok;
    switch (s->kind) {
    case RB_SEG_STATIC:
        return e - b == s->text_len && memcmp(path + b, s->text, s->text_len) == 0;
    case RB_SEG_PARAM:
        ok = e > b;
        break;
    case RB_SEG_GLOB:
        ok = rb_glob_segment_match(s->text, s->text_len, path + b, e - b, NULL);
        break;
    case RB_SEG_TEMPLATE:
        return rb__template_match(s->text, s->text_len, path + b, e - b, (uint32_t)b, caps, NULL);
    default:
        return false;
    }
    if (ok) caps[0] = (rb_span){(uint32_t)b, (uint32_t)(e - b)};
    return ok;
}

/* End of the path segment starting at b (index of the next '/' or len). */
static size_t segment_end(const char *path, size_t len, size_t b)
{
    const char *slash = memchr(path + b, '/', len - b);
    return slash ? (size_t)(slash - path) : len;
}

/* Match path[0, len) against p; on success fill caps (pattern order).
 * Positions: pos is the start of the next unconsumed path segment; pos ==
 * len + 1 means every segment has been consumed. */
static bool match_route(const rb_pattern *p, const char *path, size_t len, rb_span *caps)
{
    if (len == 0 || path[0] != '/') return false;
    size_t star_start[RB_MAX_CAPTURES], star_next[RB_MAX_CAPTURES];
    uint32_t star_seg = UINT32_MAX; /* most recent '**' (pattern segment index) */
    uint32_t star_cap = 0;          /* its capture index */
    uint32_t pi = 0, ci = 0;        /* next pattern segment, next capture */
    size_t pos = 1;

    for (;;) {
        bool ok;
        if (pi == p->nsegs) {
            ok = pos == len + 1;
            if (ok) break;
        } else {
            const rb_segment *s = &p->segs[pi];
            if (s->kind == RB_SEG_GLOBSTAR) {
                star_seg = pi;
                star_cap = ci;
                star_start[ci] = pos;
                star_next[ci] = pos;
                pi++;
                ci++;
                continue;
            }
            if (s->kind == RB_SEG_CATCHALL) {
                ok = pos < len; /* 1+ bytes remain */
                if (ok) {
                    caps[ci++] = (rb_span){(uint32_t)pos, (uint32_t)(len - pos)};
                    pos = len + 1;
                    pi++;
                    continue;
                }
            } else if (pos <= len) {
                size_t e = segment_end(path, len, pos);
                ok = segment_takes(s, path, pos, e, caps + ci);
                if (ok) {
                    ci += s->captures;
                    pos = e + 1;
                    pi++;
                    continue;
                }
            } else {
                ok = false;
            }
        }
        /* Mismatch: the most recent '**' takes one more segment. */
        if (star_seg == UINT32_MAX || star_next[star_cap] > len) return false;
        star_next[star_cap] = segment_end(path, len, star_next[star_cap]) + 1;
        pos = star_next[star_cap];
        pi = star_seg + 1;
        ci = star_cap + 1;
    }
    for (uint32_t k = 0, c = 0; k < p->nsegs; c += p->segs[k].captures, k++) {
        if (p->segs[k].kind != RB_SEG_GLOBSTAR) continue;
        size_t b = star_start[c], n = star_next[c];
        caps[c] = n > b ? (rb_span){(uint32_t)b, (uint32_t)(n - 1 - b)}
                        : (rb_span){(uint32_t)(b < len ? b : len), 0};
    }
    return true;
}

static rb_priority priority_of(const linear_route *lr)
{
    return (rb_priority){lr->pattern.ranks, lr->pattern.nsegs, lr->method == RB_ANY,
                         lr->pattern.literal_bytes, lr->id};
}

static int linear_lookup(const void *impl, int method, const char *path, size_t len, rb_match *m)
{
    const linear_router *r = impl;
    const linear_route *best = NULL;
    rb_priority best_key = {0};
    rb_span caps[RB_MAX_CAPTURES];
    uint32_t allowed = 0;

    /* candidates: the bucket of the path's first segment, then the wild */
    const linear_bucket *bucket = NULL;
    if (len > 0 && path[0] == '/' && r->count > r->nwild) {
        size_t e = segment_end(path, len, 1);
        bucket = bucket_find(r, path + 1, e - 1);
    }
    size_t nbucket = bucket ? bucket->count : 0;
    for (size_t k = 0; k < nbucket + r->nwild; k++) {
        size_t at = k < nbucket ? bucket->first + k : r->count - r->nwild + (k - nbucket);
        const linear_route *lr = &r->routes[r->order[at]];
        if (!match_route(&lr->pattern, path, len, caps)) continue;
        if (lr->method != RB_ANY && lr->method != method) {
            allowed |= RB_METHOD_BIT(lr->method);
            continue;
        }
        rb_priority key = priority_of(lr);
        if (best && rb_priority_compare(&key, &best_key) >= 0) continue;
        best = lr;
        best_key = key;
        memcpy(m->params, caps, lr->pattern.ncaptures * sizeof caps[0]);
    }
    if (best) {
        m->outcome = RB_FOUND;
        m->route_id = best->id;
        m->nparams = best->pattern.ncaptures;
        m->allowed = 0;
    } else {
        m->outcome = allowed ? RB_METHOD_NOT_ALLOWED : RB_NOT_FOUND;
        m->nparams = 0;
        m->allowed = allowed;
    }
    return m->outcome;
}

static size_t linear_memory(const void *impl)
{
    return ((const linear_router *)impl)->bytes;
}

static void linear_destroy(void *impl)
{
    linear_router *r = impl;
    for (size_t i = 0; i < r->count; i++) {
        rb_free(r->allocator, r->routes[i].text, r->routes[i].pattern.len);
        rb_pattern_free(&r->routes[i].pattern);
    }
    rb_free(r->allocator, r->routes, r->cap * sizeof *r->routes);
    rb_free(r->allocator, r->buckets, r->nbuckets * sizeof *r->buckets);
    if (r->order) rb_free(r->allocator, r->order, (r->count ? r->count : 1) * sizeof *r->order);
    rb_free(r->allocator, r, sizeof *r);
}

const rb_router_ops rb__linear_ops = {
    .abi_version = RB_ROUTER_ABI_VERSION,
    .name = "linear",
    .summary = "reference oracle: tries every route, keeps the highest priority",
    .features = RB_FEAT_PARAMS | RB_FEAT_CATCHALL | RB_FEAT_GLOB | RB_FEAT_TEMPLATE,
    .create = linear_create,
    .add = linear_add,
    .build = linear_build,
    .lookup = linear_lookup,
    .memory = linear_memory,
    .destroy = linear_destroy,
    .describe = NULL,
    .check = linear_check,
};
