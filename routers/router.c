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
 * Duplicate detection: the (method, shape) set of shapes.h, alive from
 * create to build (it is freed by build, since add after build is
 * refused).  It is seeded from rb_config.seed (seed.h; seed 0 is replaced
 * here by a random seed, which every implementation then sees), and an
 * insert whose probe sequence would pass RB__PROBE_LIMIT re-seeds it at
 * random, so colliding shapes cannot make add slow.  A failed add leaves
 * both the set and the implementation unchanged: the set reserves its slot
 * and copies the shape before the implementation is called, and commits
 * only after it succeeded.
 *
 * A route set (route_set.c) has been through all of this once:
 * rb_router_add_set only checks the features against the implementation's
 * and hands it the set's routes.
 */
#include "router_impl.h"
#include "seed.h"
#include "shapes.h"

#include <stddef.h>
#include <string.h>

/* ---- the router handle ---------------------------------------------------- */

struct rb_router {
    rb_router_ops ops; /* the implementation's table, in this ABI's layout */
    void *impl;
    rb_allocator allocator;
    rb_config config;
    int built;
    int from_set; /* loaded by rb_router_add_set: no more adds */
    size_t count;
    rb__shapes shapes;
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
    rb__shapes_init(&r->shapes, rb__seed_mix(r->config.seed, RB__SALT_SHAPES));
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

/* RB_EUNSUPPORTED for pattern p, which uses features r lacks. */
static int unsupported(const rb_router *r, const rb_pattern *p, rb_error *err)
{
    const char *what;
    size_t off = first_unsupported_offset(p, p->features & ~r->ops.features, &what);
    return rb__error(err, RB_EUNSUPPORTED, off, "%s at byte %zu: not supported by router '%s'",
                     what, off, r->ops.name);
}

int rb_router_add(rb_router *r, int method, const char *pattern, size_t pattern_len,
                  uint32_t route_id, rb_error *err)
{
    if (r->built)
        return rb__error(err, RB_ESTATE, RB_NO_OFFSET, "add after build: routes are frozen");
    if (r->from_set)
        return rb__error(err, RB_ESTATE, RB_NO_OFFSET,
                         "add to a router loaded from a route set: add the route to the set");
    if (method < 0 || method > RB_ANY)
        return rb__error(err, RB_EMETHOD, RB_NO_OFFSET, "unknown method number %d", method);
    rb_pattern p;
    int rc = rb_pattern_parse(pattern, pattern_len, &r->allocator, &p, err);
    if (rc < 0) return rc;

    if (p.features & ~r->ops.features) {
        rc = unsupported(r, &p, err);
        goto done;
    }
    uint64_t hash = rb__shapes_hash(&r->shapes, method, p.shape, p.shape_len);
    if (rb__shapes_has(&r->shapes, hash, method, p.shape, p.shape_len)) {
        rc = rb__shapes_duplicate_error(err, method, pattern, pattern_len);
        goto done;
    }
    if (rb__shapes_reserve(&r->shapes, &r->allocator, p.shape, p.shape_len) < 0) {
        rc = rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory adding a route");
        goto done;
    }
    rb_route route = {method, route_id, &p};
    rc = r->ops.add(r->impl, &route, err);
    if (rc < 0) goto done;
    rb__shapes_commit(&r->shapes, &r->allocator, hash, method, p.shape_len);
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
    rb__shapes_free(&r->shapes, &r->allocator);
    return RB_OK;
}

int rb_router_add_set(rb_router *r, const rb_route_set *s, rb_error *err)
{
    if (r->built)
        return rb__error(err, RB_ESTATE, RB_NO_OFFSET, "add after build: routes are frozen");
    if (r->count || r->from_set)
        return rb__error(err, RB_ESTATE, RB_NO_OFFSET,
                         "a route set loads into a router without routes");
    size_t n = rb_route_set_count(s), max = rb__route_set_max_segs(s);
    rb_segment *segs = rb_alloc(&r->allocator, (max ? max : 1) * sizeof *segs);
    if (!segs) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory loading a route set");
    rb_pattern p;
    rb_route route;
    int rc = RB_OK;
    if (rb_route_set_features(s) & ~r->ops.features) {
        for (size_t i = 0; i < n && rc == RB_OK; i++) {
            rb__route_set_route(s, i, segs, &p, &route);
            if (p.features & ~r->ops.features) {
                rb_error inner;
                rc = unsupported(r, &p, &inner);
                rb__error(err, rc, inner.offset, "route %zu of the set (%s %.*s): %s", i + 1,
                          rb_method_name(route.method), (int)(p.len > 200 ? 200 : p.len), p.text,
                          inner.message);
            }
        }
    }
    r->from_set = rc == RB_OK;
    for (size_t i = 0; i < n && rc == RB_OK; i++) {
        rb__route_set_route(s, i, segs, &p, &route);
        rb_error inner;
        rc = r->ops.add(r->impl, &route, &inner);
        if (rc < 0) {
            rb__error(err, rc, inner.offset, "route %zu of the set (%s %.*s): %s", i + 1,
                      rb_method_name(route.method), (int)(p.len > 200 ? 200 : p.len), p.text,
                      inner.message);
            break;
        }
        r->count++;
    }
    rb_free(&r->allocator, segs, (max ? max : 1) * sizeof *segs);
    return rc;
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
    return rb__shapes_longest_probe(&r->shapes);
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
    rb__shapes_free(&r->shapes, &r->allocator);
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
