/*
 * router.c — the front end every router is used through.
 *
 * It does, once and identically for every implementation, what must not
 * differ between them: checking the method, parsing the pattern (pattern.c),
 * refusing features the implementation lacks, and refusing a second route
 * with the same (method, shape).  Then it hands the implementation an
 * rb_route through its ops table.
 *
 * Ops tables of every ABI version 1..RB_ROUTER_ABI_VERSION are accepted:
 * the handle keeps a copy in this version's layout, the fields an older
 * table lacks left NULL, so nothing reads past the end of a plugin's table.
 *
 * Duplicate detection: an open-addressing set of (method, shape) keyed by
 * XXH3, alive from create to build (it is freed by build, since add after
 * build is refused).  It is seeded from rb_config.seed (seed.h; seed 0 is
 * replaced here by a random seed, which every implementation then sees), and
 * an insert whose probe sequence would pass RB__PROBE_LIMIT re-seeds it at
 * random, so colliding shapes cannot make add slow.  A failed add leaves both the set and the
 * implementation unchanged: the set reserves its slot and copies the shape
 * before the implementation is called, and commits only after it succeeded.
 */
#include "router_impl.h"
#include "seed.h"

#include <stddef.h>
#include <string.h>
#include <xxhash.h>

/* ---- methods ------------------------------------------------------------ */

static const char *const method_names[RB_METHOD_COUNT + 1] = {
    "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH", "*",
};

int rb_method_parse(const char *name, size_t len)
{
    for (int m = 0; m <= RB_ANY; m++) {
        if (strlen(method_names[m]) == len && memcmp(method_names[m], name, len) == 0) return m;
    }
    return RB_EMETHOD;
}

const char *rb_method_name(int method)
{
    if (method < 0 || method > RB_ANY) return NULL;
    return method_names[method];
}

/* ---- the (method, shape) set ---------------------------------------------- */

typedef struct shape_entry {
    uint64_t hash;
    char *shape; /* NULL: empty slot */
    uint32_t len;
    int method;
} shape_entry;

typedef struct shape_set {
    shape_entry *slots;
    size_t cap; /* power of two or 0 */
    size_t count;
    uint64_t seed;
} shape_set;

static uint64_t shape_hash(const shape_set *s, int method, const char *shape, size_t len)
{
    return XXH3_64bits_withSeed(shape, len, s->seed + (uint64_t)method);
}

static size_t shape_set_find(const shape_set *s, uint64_t hash, int method, const char *shape,
                             size_t len)
{
    size_t mask = s->cap - 1;
    for (size_t i = (size_t)hash & mask;; i = (i + 1) & mask) {
        const shape_entry *e = &s->slots[i];
        if (!e->shape) return i;
        if (e->hash == hash && e->method == method && e->len == len &&
            memcmp(e->shape, shape, len) == 0)
            return i;
    }
}

/* s's entries in a new table of ncap slots under seed (hashes recomputed).
 * Unchanged on failure. */
static int shape_set_rehash(shape_set *s, const rb_allocator *a, size_t ncap, uint64_t seed)
{
    shape_entry *slots = rb_calloc(a, ncap * sizeof *slots);
    if (!slots) return RB_ENOMEM;
    shape_set grown = {slots, ncap, s->count, seed};
    for (size_t i = 0; i < s->cap; i++) {
        shape_entry e = s->slots[i];
        if (!e.shape) continue;
        e.hash = shape_hash(&grown, e.method, e.shape, e.len);
        grown.slots[shape_set_find(&grown, e.hash, e.method, e.shape, e.len)] = e;
    }
    rb_free(a, s->slots, s->cap * sizeof *s->slots);
    *s = grown;
    return RB_OK;
}

/* Make room for one more entry (load <= 1/2).  Unchanged on failure. */
static int shape_set_reserve(shape_set *s, const rb_allocator *a)
{
    if ((s->count + 1) * 2 <= s->cap) return RB_OK;
    return shape_set_rehash(s, a, s->cap ? s->cap * 2 : 64, s->seed);
}

/* Insert e (room reserved, not present).  A probe sequence longer than
 * RB__PROBE_LIMIT means colliding shapes: the set is re-seeded at random
 * first (its seed changes no answer, only the cost of add), or, when that
 * allocation fails, e takes the long sequence.  Never fails. */
static void shape_set_insert(shape_set *s, const rb_allocator *a, shape_entry e)
{
    size_t i = shape_set_find(s, e.hash, e.method, e.shape, e.len);
    if (((i - (size_t)e.hash) & (s->cap - 1)) > RB__PROBE_LIMIT &&
        shape_set_rehash(s, a, s->cap, rb__seed_random()) == RB_OK) {
        e.hash = shape_hash(s, e.method, e.shape, e.len);
        i = shape_set_find(s, e.hash, e.method, e.shape, e.len);
    }
    s->slots[i] = e;
    s->count++;
}

static void shape_set_free(shape_set *s, const rb_allocator *a)
{
    for (size_t i = 0; i < s->cap; i++) rb_free(a, s->slots[i].shape, s->slots[i].len + 1u);
    rb_free(a, s->slots, s->cap * sizeof *s->slots);
    s->slots = NULL;
    s->cap = s->count = 0;
}

/* ---- the router handle ---------------------------------------------------- */

struct rb_router {
    rb_router_ops ops; /* the implementation's table, in this ABI's layout */
    void *impl;
    rb_allocator allocator;
    rb_config config;
    int built;
    size_t count;
    shape_set shapes;
};

/* Bytes of the ops table of ABI version v (fields are only ever appended),
 * or 0 for a version this host does not know. */
static size_t ops_size(uint32_t v)
{
    switch (v) {
    case 1:
        return offsetof(rb_router_ops, check);
    case 2:
    case 3: /* no new field: add() may receive templates (router_plugin.h) */
        return sizeof(rb_router_ops);
    }
    return 0;
}

/* The features the host honours in ops: RB_FEAT_TEMPLATE only from a
 * table of ABI version 3 or later, written when templates existed. */
static unsigned effective_features(const rb_router_ops *ops)
{
    return ops->abi_version >= 3 ? ops->features : ops->features & ~RB_FEAT_TEMPLATE;
}

int rb__ops_validate(const rb_router_ops *ops, rb_error *err)
{
    if (!ops) return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "no ops table");
    const char *name = ops->name ? ops->name : "?";
    if (ops->abi_version > RB_ROUTER_ABI_VERSION)
        return rb__error(err, RB_EABI, RB_NO_OFFSET,
                         "router '%s' was built for router ABI %u, newer than this host's "
                         "(ABI 1 to %u): rebuild it against this routebench's router_plugin.h",
                         name, ops->abi_version, RB_ROUTER_ABI_VERSION);
    if (ops_size(ops->abi_version) == 0)
        return rb__error(err, RB_EABI, RB_NO_OFFSET,
                         "router '%s' declares router ABI %u, which does not exist (1 to %u)", name,
                         ops->abi_version, RB_ROUTER_ABI_VERSION);
    if (!ops->name || !ops->create || !ops->add || !ops->build || !ops->lookup || !ops->memory ||
        !ops->destroy)
        return rb__error(err, RB_EABI, RB_NO_OFFSET, "router '%s' has an incomplete ops table",
                         name);
    return RB_OK;
}

int rb_router_create_ops(const rb_router_ops *ops, const rb_config *config, rb_router **out,
                         rb_error *err)
{
    *out = NULL;
    int rc = rb__ops_validate(ops, err);
    if (rc < 0) return rc;
    const rb_allocator *a =
        config && config->allocator ? config->allocator : rb__default_allocator();
    rb_router *r = a->alloc_fn(a->ctx, sizeof *r);
    if (!r) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory creating a router");
    if ((uintptr_t)r % RB_ALLOC_ALIGN) {
        a->free_fn(a->ctx, r, sizeof *r);
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                         "the allocator returned a block aligned to less than %u bytes "
                         "(RB_ALLOC_ALIGN): routebench needs %u",
                         RB_ALLOC_ALIGN, RB_ALLOC_ALIGN);
    }
    memset(r, 0, sizeof *r);
    memcpy(&r->ops, ops, ops_size(ops->abi_version)); /* the rest stays NULL */
    r->ops.features = effective_features(ops);
    r->allocator = *a;
    if (config) r->config = *config;
    r->config.allocator = &r->allocator;
    if (r->config.seed == 0) r->config.seed = rb__seed_random();
    r->shapes.seed = rb__seed_mix(r->config.seed, RB__SALT_SHAPES);
    rc = r->ops.create(&r->config, &r->impl, err);
    if (rc < 0) {
        rb_free(a, r, sizeof *r);
        return rc;
    }
    *out = r;
    return RB_OK;
}

int rb_router_create(const char *name, const rb_config *config, rb_router **out, rb_error *err)
{
    const rb_router_ops *ops = rb_registry_find(name);
    if (!ops) {
        *out = NULL;
        return rb__error(err, RB_ENOTFOUND, RB_NO_OFFSET,
                         "no router named '%s' (routebench list shows them)", name);
    }
    return rb_router_create_ops(ops, config, out, err);
}

static size_t first_unsupported_offset(const rb_pattern *p, unsigned missing, const char **what)
{
    for (uint32_t i = 0; i < p->nsegs; i++) {
        const rb_segment *s = &p->segs[i];
        if (rb__segment_feature(s->kind) & missing) {
            *what = s->kind == RB_SEG_PARAM      ? "parameter"
                    : s->kind == RB_SEG_CATCHALL ? "catch-all"
                    : s->kind == RB_SEG_TEMPLATE ? "template segment"
                    : s->kind == RB_SEG_GLOB     ? "glob segment"
                                                 : "'**' segment";
            return s->offset;
        }
    }
    *what = "feature";
    return 0;
}

int rb_router_add(rb_router *r, int method, const char *pattern, size_t pattern_len,
                  uint32_t route_id, rb_error *err)
{
    if (r->built)
        return rb__error(err, RB_ESTATE, RB_NO_OFFSET, "add after build: routes are frozen");
    if (method < 0 || method > RB_ANY)
        return rb__error(err, RB_EMETHOD, RB_NO_OFFSET, "unknown method number %d", method);
    rb_pattern p;
    int rc = rb_pattern_parse(pattern, pattern_len, &r->allocator, &p, err);
    if (rc < 0) return rc;

    unsigned missing = p.features & ~r->ops.features;
    if (missing) {
        const char *what;
        size_t off = first_unsupported_offset(&p, missing, &what);
        rc = rb__error(err, RB_EUNSUPPORTED, off, "%s at byte %zu: not supported by router '%s'",
                       what, off, r->ops.name);
        goto done;
    }
    uint64_t hash = shape_hash(&r->shapes, method, p.shape, p.shape_len);
    if (r->shapes.cap) {
        size_t i = shape_set_find(&r->shapes, hash, method, p.shape, p.shape_len);
        if (r->shapes.slots[i].shape) {
            rc = rb__error(err, RB_EDUPLICATE, 0,
                           "duplicate route: %s %.*s has the same method and shape as an "
                           "earlier route",
                           rb_method_name(method), (int)(pattern_len > 200 ? 200 : pattern_len),
                           pattern);
            goto done;
        }
    }
    rc = shape_set_reserve(&r->shapes, &r->allocator);
    char *shape_copy = rc == RB_OK ? rb_alloc(&r->allocator, p.shape_len + 1u) : NULL;
    if (!shape_copy) {
        rc = rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory adding a route");
        goto done;
    }
    memcpy(shape_copy, p.shape, p.shape_len);
    shape_copy[p.shape_len] = '\0';

    rb_route route = {method, route_id, &p};
    rc = r->ops.add(r->impl, &route, err);
    if (rc < 0) {
        rb_free(&r->allocator, shape_copy, p.shape_len + 1u);
        goto done;
    }
    shape_set_insert(&r->shapes, &r->allocator,
                     (shape_entry){hash, shape_copy, (uint32_t)p.shape_len, method});
    r->count++;
done:
    rb_pattern_free(&p);
    return rc;
}

int rb_router_build(rb_router *r, rb_error *err)
{
    if (r->built) return rb__error(err, RB_ESTATE, RB_NO_OFFSET, "router is already built");
    int rc = r->ops.build(r->impl, err);
    if (rc < 0) return rc;
    r->built = 1;
    shape_set_free(&r->shapes, &r->allocator);
    return RB_OK;
}

int rb_router_lookup(const rb_router *r, int method, const char *path, size_t path_len, rb_match *m)
{
    if (!r->built || method < 0 || method >= RB_METHOD_COUNT || path_len > UINT32_MAX) {
        m->outcome = RB_NOT_FOUND;
        m->nparams = 0;
        m->allowed = 0;
        return RB_NOT_FOUND;
    }
    return r->ops.lookup(r->impl, method, path, path_len, m);
}

size_t rb_router_memory(const rb_router *r)
{
    return r->ops.memory(r->impl);
}

uint32_t rb__router_shape_probe(const rb_router *r)
{
    const shape_set *s = &r->shapes;
    uint32_t longest = 0;
    for (size_t i = 0; i < s->cap; i++) {
        if (!s->slots[i].shape) continue;
        uint32_t d = (uint32_t)((i - (size_t)s->slots[i].hash) & (s->cap - 1));
        if (d > longest) longest = d;
    }
    return longest;
}

const rb_router_ops *rb__router_ops(const rb_router *r)
{
    return &r->ops;
}

const void *rb__router_impl(const rb_router *r)
{
    return r->impl;
}

const char *rb_router_name(const rb_router *r)
{
    return r->ops.name;
}

int rb_router_check(const rb_router *r, rb_error *err)
{
    if (!r->built)
        return rb__error(err, RB_ESTATE, RB_NO_OFFSET, "check before build: nothing to check");
    return r->ops.check ? r->ops.check(r->impl, err) : RB_OK;
}

const char *rb_router_describe(const rb_router *r)
{
    return r->ops.describe ? r->ops.describe(r->impl) : "";
}

size_t rb_router_count(const rb_router *r)
{
    return r->count;
}

void rb_router_destroy(rb_router *r)
{
    if (!r) return;
    r->ops.destroy(r->impl);
    shape_set_free(&r->shapes, &r->allocator);
    rb_allocator a = r->allocator;
    rb_free(&a, r, sizeof *r);
}

const char *rb_ops_name(const rb_router_ops *ops)
{
    return ops->name;
}

const char *rb_ops_summary(const rb_router_ops *ops)
{
    return ops->summary ? ops->summary : "";
}

unsigned rb_ops_features(const rb_router_ops *ops)
{
    return effective_features(ops);
}
