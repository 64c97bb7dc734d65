/*
 * segscan.c — an example router plugin: the smallest useful router behind
 * the ops table, in a shared library routebench loads at run time
 * (`routebench verify --router segscan@build/libsegscan.so --corpus github`).
 *
 * It only needs router_impl.h (no routebench library to link): the host's
 * front end parses and checks every pattern and hands add() a parsed
 * rb_route; the router allocates through config->allocator.  Build it with
 * cmake/plugin.map (or -fvisibility=hidden) so that it exports nothing but
 * RB_PLUGIN_SYMBOL.
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
#include "router_impl.h"

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

static void *alloc(const rb_allocator *a, size_t n)
{
    return a->alloc_fn(a->ctx, n ? n : 1);
}

static void release(const rb_allocator *a, void *p, size_t n)
{
    if (p) a->free_fn(a->ctx, p, n ? n : 1);
}

/* Fill err without the host's helpers (a plugin links nothing). */
static int fail(rb_error *err, int code, const char *msg)
{
    if (err) {
        err->code = code;
        err->offset = RB_NO_OFFSET;
        err->line = 0;
        strncpy(err->message, msg, sizeof err->message - 1);
        err->message[sizeof err->message - 1] = '\0';
    }
    return code;
}

static int segscan_create(const rb_config *config, void **out, rb_error *err)
{
    segscan_router *r = alloc(config->allocator, sizeof *r);
    if (!r) return fail(err, RB_ENOMEM, "segscan: out of memory");
    memset(r, 0, sizeof *r);
    r->a = config->allocator;
    r->bytes = sizeof *r;
    *out = r;
    return RB_OK;
}

static void free_route(const rb_allocator *a, segscan_route *sr)
{
    release(a, sr->text, sr->text_len);
    release(a, sr->segs, sr->nsegs * sizeof *sr->segs);
    release(a, sr->ranks, sr->nsegs);
}

static int segscan_add(void *impl, const rb_route *route, rb_error *err)
{
    segscan_router *r = impl;
    const rb_pattern *p = route->pattern;
    if (r->count == r->cap) {
        size_t ncap = r->cap ? r->cap * 2 : 16;
        segscan_route *grown = alloc(r->a, ncap * sizeof *grown);
        if (!grown) return fail(err, RB_ENOMEM, "segscan: out of memory");
        if (r->count) memcpy(grown, r->routes, r->count * sizeof *grown);
        release(r->a, r->routes, r->cap * sizeof *grown);
        r->bytes += (ncap - r->cap) * sizeof *grown;
        r->routes = grown;
        r->cap = ncap;
    }
    segscan_route sr = {route->method, route->id, p->nsegs, p->ncaptures, p->literal_bytes,
                        NULL,          p->len,    NULL,     NULL};
    sr.text = alloc(r->a, p->len);
    sr.segs = alloc(r->a, p->nsegs * sizeof *sr.segs);
    sr.ranks = alloc(r->a, p->nsegs);
    if (!sr.text || !sr.segs || !sr.ranks) {
        free_route(r->a, &sr);
        return fail(err, RB_ENOMEM, "segscan: out of memory");
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

/* <0 when a wins over b: ranks (a proper prefix first), specific method
 * before "*", more literal bytes, lower id. */
static int better(const segscan_route *a, const segscan_route *b)
{
    uint32_t n = a->nsegs < b->nsegs ? a->nsegs : b->nsegs;
    for (uint32_t i = 0; i < n; i++)
        if (a->ranks[i] != b->ranks[i]) return a->ranks[i] < b->ranks[i] ? -1 : 1;
    if (a->nsegs != b->nsegs) return a->nsegs < b->nsegs ? -1 : 1;
    if ((a->method == RB_ANY) != (b->method == RB_ANY)) return a->method == RB_ANY ? 1 : -1;
    if (a->literal != b->literal) return a->literal > b->literal ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
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
    release(r->a, r->routes, r->cap * sizeof *r->routes);
    const rb_allocator *a = r->a;
    release(a, r, sizeof *r);
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
};

static const rb_router_ops *const routers[] = {&segscan_ops};

/* The one exported symbol (RB_PLUGIN_SYMBOL). */
__attribute__((visibility("default"))) const rb_router_ops *const *
routebench_plugin_routers(size_t *count);

const rb_router_ops *const *routebench_plugin_routers(size_t *count)
{
    *count = sizeof routers / sizeof routers[0];
    return routers;
}
