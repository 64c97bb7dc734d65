/*
 * auto.c — the router that chooses: at build time it looks at the route
 * table and hands it to the implementation the measurements say is fastest
 * for such a table, then forwards every lookup to it.
 *
 * The rule (and the measurements behind it, docs/results/RESULTS.md):
 *
 *     table uses in-segment globs or '**'  ->  glob     (the only router
 *                                                        that supports them)
 *     table uses templates (img-{id}.png)  ->  hashseg  (it has them; glob
 *                                                        only if hashseg lacked
 *                                                        RB_FEAT_TEMPLATE)
 *     otherwise                            ->  hashseg  (fastest in every
 *                                                        non-glob scenario:
 *                                                        static, params,
 *                                                        mixed, catchall at
 *                                                        100..10,000 routes,
 *                                                        and the shipped
 *                                                        tables)
 *
 * The example route set, before and after build:
 *
 *     before build: pending[] (copies, in add order)
 *       0 GET  /users            3 POST /users/:id/posts
 *       1 GET  /users/:id        4 GET  /static/{*path}
 *       2 GET  /users/me
 *     after build: no globs -> chosen = hashseg, holding all five routes;
 *                  pending[] freed; describe() = "chose hashseg: 5 routes
 *                  (3 static), no globs: ..."
 *
 * Layout: the chosen ops table + its implementation, the pending copies
 * until build, counters of what the table uses.
 * Cost: add O(pattern) (a copy); build = the chosen router's add for every
 * route + its build; lookup = the chosen router's lookup + one indirect
 * call; memory = the chosen router's + this struct.
 * Invariants: before build chosen == NULL and pending holds every added
 * route; after build pending is empty.  Once the table has globs, every
 * route is within glob's limits (checked at add by glob's own admission
 * function, rb__glob_admit, RB_ELIMIT), so the build cannot fail on them.
 * If the chosen router still refuses the table with RB_ELIMIT at build
 * (its hash probes over the limit under every seed it tried, seed.h), auto
 * hands the table to a router that cannot refuse it so: radix (no hashing)
 * for a table without globs, linear for one with globs; describe() says
 * so.  A failed build leaves the pending
 * routes in place, so build may be retried.  Thread safety: lookup only
 * reads (and the chosen router's lookup is thread-safe).
 */
#include "auto.h"
#include "glob.h"
#include "hashseg.h"
#include "radix.h"
#include "router_impl.h"

#include <stdio.h>
#include <string.h>

extern const rb_router_ops rb__linear_ops;

typedef struct auto_pending {
    int method;
    uint32_t id;
    char *text;
    size_t len;
} auto_pending;

typedef struct auto_router {
    rb_config config;
    auto_pending *pending;
    size_t count, cap;
    size_t static_routes;
    unsigned features;
    rb__glob_budget budget; /* glob's limits, counted over the routes added */
    const rb_router_ops *chosen;
    void *chosen_impl;
    unsigned hash_bits; /* test hook: narrow the chosen router's hashes */
    char why[400];
} auto_router;

static int auto_create(const rb_config *config, void **out, rb_error *err)
{
    auto_router *r = rb_calloc(config->allocator, sizeof *r);
    if (!r) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory creating auto");
    r->config = *config;
    r->hash_bits = 64;
    *out = r;
    return RB_OK;
}

/* The features hashseg cannot take, which send a table to glob. */
static unsigned glob_only(void)
{
    return RB_FEAT_GLOB | (RB_FEAT_TEMPLATE & ~rb__hashseg_ops.features);
}

static int auto_add(void *impl, const rb_route *route, rb_error *err)
{
    auto_router *r = impl;
    const rb_allocator *a = r->config.allocator;
    const rb_pattern *p = route->pattern;
    /* a table with globs goes to glob at build, so glob's limits apply from
     * the add that makes (or keeps) it a glob table: refuse here what glob
     * would refuse at build */
    if ((r->features | p->features) & glob_only()) {
        int rc = rb__glob_admit(&r->budget, p, err);
        if (rc < 0) return rc;
    }
    if (rb_grow(a, &r->pending, &r->cap, r->count + 1, sizeof *r->pending, 16) < 0)
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory in auto");
    char *text = rb_alloc(a, p->len);
    if (!text) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory in auto");
    memcpy(text, p->text, p->len);
    r->pending[r->count++] = (auto_pending){route->method, route->id, text, p->len};
    r->features |= p->features;
    r->static_routes += p->features == 0;
    rb__glob_budget_add(&r->budget, p);
    return RB_OK;
}

static const rb_router_ops *choose(const auto_router *r)
{
    return (r->features & glob_only()) ? &rb__glob_ops : &rb__hashseg_ops;
}

static void free_pending(auto_router *r)
{
    const rb_allocator *a = r->config.allocator;
    for (size_t i = 0; i < r->count; i++) rb_free(a, r->pending[i].text, r->pending[i].len);
    rb_free(a, r->pending, r->cap * sizeof *r->pending);
    r->pending = NULL;
    r->count = r->cap = 0;
}

/* Hand every pending route to ops; on failure destroy what was made. */
static int hand_over(auto_router *r, const rb_router_ops *ops, void **out, rb_error *err)
{
    void *impl;
    int rc = ops->create(&r->config, &impl, err);
    if (rc < 0) return rc;
    if (r->hash_bits < 64) {
        if (ops == &rb__hashseg_ops) rb__hashseg_set_hash_bits(impl, r->hash_bits);
        if (ops == &rb__glob_ops) rb__glob_set_hash_bits(impl, r->hash_bits);
    }
    for (size_t i = 0; rc == RB_OK && i < r->count; i++) {
        const auto_pending *q = &r->pending[i];
        rb_pattern p;
        rc = rb_pattern_parse(q->text, q->len, r->config.allocator, &p, err);
        if (rc < 0) break;
        rb_route route = {q->method, q->id, &p};
        rc = ops->add(impl, &route, err);
        rb_pattern_free(&p);
    }
    if (rc == RB_OK) rc = ops->build(impl, err);
    if (rc < 0) {
        ops->destroy(impl);
        return rc;
    }
    *out = impl;
    return RB_OK;
}

/* The router to fall back to when the choice refuses the table with
 * RB_ELIMIT (hash probes over the limit under every seed it tried): radix
 * hashes nothing; for globs only linear is left. */
static const rb_router_ops *fallback(const rb_router_ops *ops)
{
    return ops == &rb__glob_ops ? &rb__linear_ops : &rb__radix_ops;
}

static int auto_build(void *impl, rb_error *err)
{
    auto_router *r = impl;
    const rb_router_ops *ops = choose(r);
    void *chosen;
    rb_error first = {0};
    int rc = hand_over(r, ops, &chosen, &first);
    if (rc == RB_ELIMIT) {
        const rb_router_ops *other = fallback(ops);
        rc = hand_over(r, other, &chosen, err);
        if (rc < 0) return rc;
        snprintf(
            r->why, sizeof r->why, "chose %s, which refused the table (%s); fell back to %s, %s",
            ops->name, first.message, other->name,
            other == &rb__radix_ops ? "which hashes nothing" : "the only other router with globs");
        ops = other;
    } else if (rc < 0) {
        if (err) *err = first;
        return rc;
    } else if (ops == &rb__glob_ops) {
        snprintf(r->why, sizeof r->why, "chose glob: %zu routes use %s, which only glob supports",
                 r->count, (r->features & RB_FEAT_GLOB) ? "in-segment globs or '**'" : "templates");
    } else {
        snprintf(r->why, sizeof r->why,
                 "chose hashseg: %zu routes (%zu static), no globs; hashseg was the fastest on "
                 "every non-glob scenario measured (docs/results/RESULTS.md)",
                 r->count, r->static_routes);
    }
    const char *inner = ops->describe ? ops->describe(chosen) : "";
    if (strstr(inner, "re-seeded")) {
        size_t n = strlen(r->why);
        snprintf(r->why + n, sizeof r->why - n, "; %s: %s", ops->name, inner);
    }
    r->chosen = ops;
    r->chosen_impl = chosen;
    free_pending(r);
    return RB_OK;
}

static int auto_lookup(const void *impl, int method, const char *path, size_t len, rb_match *m)
{
    const auto_router *r = impl;
    return r->chosen->lookup(r->chosen_impl, method, path, len, m);
}

static size_t auto_memory(const void *impl)
{
    const auto_router *r = impl;
    size_t bytes = sizeof *r + r->cap * sizeof *r->pending;
    for (size_t i = 0; i < r->count; i++) bytes += r->pending[i].len;
    return bytes + (r->chosen ? r->chosen->memory(r->chosen_impl) : 0);
}

static void auto_destroy(void *impl)
{
    auto_router *r = impl;
    if (r->chosen) r->chosen->destroy(r->chosen_impl);
    free_pending(r);
    rb_free(r->config.allocator, r, sizeof *r);
}

static const char *auto_describe(const void *impl)
{
    return ((const auto_router *)impl)->why;
}

const char *rb__auto_chosen(const void *impl)
{
    const auto_router *r = impl;
    return r->chosen ? r->chosen->name : NULL;
}

int rb__auto_set_hash_bits(void *impl, unsigned bits)
{
    auto_router *r = impl;
    if (r->chosen) return RB_ESTATE;
    r->hash_bits = bits;
    return RB_OK;
}

/* After build: nothing pending, and the chosen router's own invariants. */
static int auto_check(const void *impl, rb_error *err)
{
    const auto_router *r = impl;
    if (!r->chosen || r->pending || r->count)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "auto: built, but routes still pending");
    return r->chosen->check ? r->chosen->check(r->chosen_impl, err) : RB_OK;
}

const rb_router_ops rb__auto_ops = {
    .abi_version = RB_ROUTER_ABI_VERSION,
    .name = "auto",
    .summary = "chooses at build: glob when the table has globs, else hashseg (see describe)",
    .features = RB_FEAT_PARAMS | RB_FEAT_CATCHALL | RB_FEAT_GLOB | RB_FEAT_TEMPLATE,
    .create = auto_create,
    .add = auto_add,
    .build = auto_build,
    .lookup = auto_lookup,
    .memory = auto_memory,
    .destroy = auto_destroy,
    .describe = auto_describe,
    .check = auto_check,
};
