/*
 * segscan.c — an example router plugin: the smallest useful router behind
 * the ops table, in a shared library routebench loads at run time
 * (`routebench verify --router segscan@build/libsegscan.so --corpus github`).
 *
 * It needs only the installed header <routebench/router_plugin.h> and no
 * routebench library to link: the host's front end parses and checks every
 * pattern and hands add() a parsed rb_route; the router allocates through
 * config->allocator with base.h's helpers and orders matches with
 * rb_priority_compare.  Build it with -fvisibility=hidden (or
 * cmake/plugin.map) so that it exports nothing but RB_PLUGIN_SYMBOL:
 *
 *     cc -std=c11 -shared -fPIC -fvisibility=hidden $(pkg-config --cflags routebench) \
 *        segscan.c -o libsegscan.so
 *
 * The structure: a flat array of routes, each a list of segments; lookup
 * scans every route, segment by segment, and keeps the best match by the
 * priority key.  The example route set shared by every router file:
 *
 *     routes[]
 *     +----+--------+---------------------------------------+
 *     | id | method | segs (kind: text)                     |
 *     +----+--------+---------------------------------------+
 *     |  0 | GET    | S:"users"                             |
 *     |  1 | GET    | S:"users"  P                          |
 *     |  2 | GET    | S:"users"  S:"me"                     |
 *     |  3 | POST   | S:"users"  P        S:"posts"         |
 *     |  4 | GET    | S:"static" C  ({*path})               |
 *     +----+--------+---------------------------------------+
 *     S static, P param (one whole segment), C catch-all (the rest)
 *
 * Node layout: segscan_route = method, id, an owned copy of the pattern,
 * and segscan_seg[] (kind, offset and length of static text in the copy).
 * Cost: build O(1); lookup O(N * L) (N routes, path bytes L); memory
 * O(total pattern bytes + segments).  Invariants: every static segment
 * lies inside its route's copy; a catch-all is last (the host's front end
 * guarantees it).  build changes nothing.  Thread safety: lookup only
 * reads.
 */
#include <routebench/router_plugin.h>

#include <string.h>

typedef struct segscan_seg {
    uint8_t kind;      /* RB_SEG_STATIC, RB_SEG_PARAM or RB_SEG_CATCHALL */
    uint32_t off, len; /* static text in the route's copy */
} segscan_seg;

typedef struct segscan_route {
    int method;
    uint32_t id, nsegs, ncaptures, literal;
    char *text; /* owned copy of the pattern */
    size_t text_len;
    segscan_seg *segs;
    uint8_t *ranks; /* the priority key's segment ranks */
} segscan_route;

typedef struct segscan_router {
    const rb_allocator *a;
    segscan_route *routes;
    size_t count, cap, bytes;
} segscan_router;

static int out_of_memory(rb_error *err)
{
    return rb_error_set(err, RB_ENOMEM, RB_NO_OFFSET, "segscan: out of memory");
}

static int segscan_create(const rb_config *config, void **out, rb_error *err)
{
    segscan_router *r = rb_calloc(config->allocator, sizeof *r);
    if (!r) return out_of_memory(err);
    r->a = config->allocator;
    r->bytes = sizeof *r;
    *out = r;
    return RB_OK;
}

static void free_route(const rb_allocator *a, segscan_route *sr)
{
    rb_free(a, sr->text, sr->text_len);
    rb_free(a, sr->segs, sr->nsegs * sizeof *sr->segs);
    rb_free(a, sr->ranks, sr->nsegs);
}

static int segscan_add(void *impl, const rb_route *route, rb_error *err)
{
    segscan_router *r = impl;
    const rb_pattern *p = route->pattern;
    size_t old_cap = r->cap;
    if (rb_grow(r->a, &r->routes, &r->cap, r->count + 1, sizeof *r->routes, 16) < 0)
        return out_of_memory(err);
    r->bytes += (r->cap - old_cap) * sizeof *r->routes;
    segscan_route sr = {route->method, route->id, p->nsegs, p->ncaptures, p->literal_bytes,
                        NULL,          p->len,    NULL,     NULL};
    sr.text = rb_alloc(r->a, p->len);
    sr.segs = rb_alloc(r->a, p->nsegs * sizeof *sr.segs);
    sr.ranks = rb_alloc(r->a, p->nsegs);
    if (!sr.text || !sr.segs || !sr.ranks) {
        free_route(r->a, &sr);
        return out_of_memory(err);
    }
    memcpy(sr.text, p->text, p->len);
    for (uint32_t i = 0; i < p->nsegs; i++) {
        const rb_segment *s = &p->segs[i];
        uint32_t off = s->kind == RB_SEG_STATIC ? (uint32_t)(s->text - p->text) : 0;
        sr.segs[i] = (segscan_seg){s->kind, off, s->kind == RB_SEG_STATIC ? s->text_len : 0};
        sr.ranks[i] = s->kind;
    }
    r->routes[r->count++] = sr;
    r->bytes += p->len + p->nsegs * (sizeof *sr.segs + 1);
    return RB_OK;
}

static int segscan_build(void *impl, rb_error *err)
{
    (void)impl;
    (void)err;
    return RB_OK;
}

/* Does sr match path[0, len)?  Captures go to caps. */
static bool match(const segscan_route *sr, const char *path, size_t len, rb_span *caps)
{
    if (len == 0 || path[0] != '/') return false;
    size_t pos = 1;
    uint32_t c = 0;
    for (uint32_t i = 0; i < sr->nsegs; i++) {
        const segscan_seg *s = &sr->segs[i];
        if (pos > len) return false; /* no segment left */
        if (s->kind == RB_SEG_CATCHALL) {
            if (pos == len) return false; /* needs 1+ bytes */
            caps[c++] = (rb_span){(uint32_t)pos, (uint32_t)(len - pos)};
            return true;
        }
        const char *slash = memchr(path + pos, '/', len - pos);
        size_t end = slash ? (size_t)(slash - path) : len;
        if (s->kind == RB_SEG_STATIC) {
            if (end - pos != s->len || memcmp(path + pos, sr->text + s->off, s->len) != 0)
                return false;
        } else {
            if (end == pos) return false; /* a param needs 1+ bytes */
            caps[c++] = (rb_span){(uint32_t)pos, (uint32_t)(end - pos)};
        }
        pos = end + 1;
    }
    return pos == len + 1; /* every path segment consumed */
}

/* <0 when a wins over b (the priority key of rb_priority_compare). */
static int better(const segscan_route *a, const segscan_route *b)
{
    rb_priority ka = {a->ranks, a->nsegs, a->method == RB_ANY, a->literal, a->id};
    rb_priority kb = {b->ranks, b->nsegs, b->method == RB_ANY, b->literal, b->id};
    return rb_priority_compare(&ka, &kb);
}

static int segscan_lookup(const void *impl, int method, const char *path, size_t len, rb_match *m)
{
    const segscan_router *r = impl;
    const segscan_route *best = NULL;
    rb_span caps[RB_MAX_CAPTURES];
    uint32_t allowed = 0;
    for (size_t i = 0; i < r->count; i++) {
        const segscan_route *sr = &r->routes[i];
        if (!match(sr, path, len, caps)) continue;
        if (sr->method != RB_ANY && sr->method != method) {
            allowed |= RB_METHOD_BIT(sr->method);
            continue;
        }
        if (best && better(sr, best) >= 0) continue;
        best = sr;
        memcpy(m->params, caps, sr->ncaptures * sizeof caps[0]);
    }
    m->outcome = best ? RB_FOUND : allowed ? RB_METHOD_NOT_ALLOWED : RB_NOT_FOUND;
    m->route_id = best ? best->id : 0;
    m->nparams = best ? best->ncaptures : 0;
    m->allowed = best ? 0 : allowed;
    return m->outcome;
}

static size_t segscan_memory(const void *impl)
{
    return ((const segscan_router *)impl)->bytes;
}

static void segscan_destroy(void *impl)
{
    segscan_router *r = impl;
    for (size_t i = 0; i < r->count; i++) free_route(r->a, &r->routes[i]);
    rb_free(r->a, r->routes, r->cap * sizeof *r->routes);
    rb_free(r->a, r, sizeof *r);
}

/* The invariants of the header (the ops table's optional check). */
static int segscan_check(const void *impl, rb_error *err)
{
    const segscan_router *r = impl;
    for (size_t i = 0; i < r->count; i++) {
        const segscan_route *sr = &r->routes[i];
        for (uint32_t k = 0; k < sr->nsegs; k++) {
            const segscan_seg *s = &sr->segs[k];
            if (s->kind == RB_SEG_STATIC &&
                (s->off > sr->text_len || s->len > sr->text_len - s->off))
                return rb_error_set(err, RB_EINVAL, RB_NO_OFFSET,
                                    "segscan: route %zu: segment %u lies outside its copy", i, k);
            if (s->kind == RB_SEG_CATCHALL && k + 1 != sr->nsegs)
                return rb_error_set(err, RB_EINVAL, RB_NO_OFFSET,
                                    "segscan: route %zu: a catch-all before the last segment", i);
        }
    }
    return RB_OK;
}

static const rb_router_ops segscan_ops = {
    .abi_version = RB_ROUTER_ABI_VERSION,
    .name = "segscan",
    .summary = "example plugin: scans every route segment by segment",
    .features = RB_FEAT_PARAMS | RB_FEAT_CATCHALL,
    .create = segscan_create,
    .add = segscan_add,
    .build = segscan_build,
    .lookup = segscan_lookup,
    .memory = segscan_memory,
    .destroy = segscan_destroy,
    .describe = NULL,
    .check = segscan_check,
};

static const rb_router_ops *const routers[] = {&segscan_ops};

/* The one exported symbol (RB_PLUGIN_SYMBOL). */
RB_PLUGIN_EXPORT const rb_router_ops *const *routebench_plugin_routers(size_t *count);

const rb_router_ops *const *routebench_plugin_routers(size_t *count)
{
    *count = sizeof routers / sizeof routers[0];
    return routers;
}
