/*
 * route_set.c — a route table parsed once (rb_route_set, router.h), so that
 * several routers can be built from it without parsing it again.
 *
 * rb_route_set_add does, once, what rb_router_add does before it hands a
 * route to an implementation: it checks the method, parses the pattern with
 * the one parser (pattern.c) and refuses a second route with the same
 * (method, shape) (shapes.h).  It keeps the parsed form compactly: the
 * pattern's bytes, one record per route and one per segment, the segment
 * kinds (the priority key's ranks) and the shape.  rb_router_add_set
 * (router.c) rebuilds each route's rb_pattern from these records — no
 * parsing, no duplicate check — and hands it to the implementation, which
 * thus receives exactly what rb_router_add would have given it.
 *
 * Cost: rb_route_set_add O(pattern) (one parse, one probe of the shape set);
 * memory O(pattern bytes + segments).  A failed add leaves the set as it
 * was: everything that can fail (the parse, room in every array and in the
 * shape set) happens before anything is committed.
 *
 * Thread safety: a set is built by one thread; once built, any number of
 * routers may be loaded from it at once (rb_router_add_set only reads it).
 */
#include "router_impl.h"
#include "shapes.h"

#include <string.h>

#define SET_DEFAULT_SEED 0x726f757465736574ull /* "routeset" */

typedef struct set_route {
    uint32_t text, len;        /* the pattern in bytes[] */
    uint32_t seg, nsegs;       /* its segments in segs[] and ranks[] */
    uint32_t shape, shape_len; /* its shape in the shape set's arena */
    uint32_t id;
    uint32_t ncaptures, literal_bytes;
    int32_t method;
    uint32_t features;
} set_route;

/* rb_segment without its pointer: the text is text_off bytes into the
 * pattern. */
typedef struct set_seg {
    uint32_t offset, len, text_off, text_len, literal;
    uint8_t kind, captures;
} set_seg;

struct rb_route_set {
    rb_allocator allocator;
    set_route *routes;
    size_t count, routes_cap;
    set_seg *segs;
    uint8_t *ranks;
    size_t nsegs, segs_cap, ranks_cap;
    char *bytes;
    size_t nbytes, bytes_cap;
    rb__shapes shapes;
    unsigned features;
    uint32_t max_segs;
};

int rb_route_set_create(const rb_config *config, rb_route_set **out, rb_error *err)
{
    *out = NULL;
    const rb_allocator *a =
        config && config->allocator ? config->allocator : rb__default_allocator();
    rb_route_set *s = rb_calloc(a, sizeof *s);
    if (!s) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory creating a route set");
    s->allocator = *a;
    rb__shapes_init(&s->shapes, config && config->seed ? config->seed : SET_DEFAULT_SEED);
    *out = s;
    return RB_OK;
}

void rb_route_set_destroy(rb_route_set *s)
{
    if (!s) return;
    const rb_allocator a = s->allocator;
    rb_free(&a, s->routes, s->routes_cap * sizeof *s->routes);
    rb_free(&a, s->segs, s->segs_cap * sizeof *s->segs);
    rb_free(&a, s->ranks, s->ranks_cap);
    rb_free(&a, s->bytes, s->bytes_cap);
    rb__shapes_free(&s->shapes, &a);
    rb_free(&a, s, sizeof *s);
}

size_t rb_route_set_count(const rb_route_set *s)
{
    return s->count;
}

unsigned rb_route_set_features(const rb_route_set *s)
{
    return s->features;
}

size_t rb_route_set_memory(const rb_route_set *s)
{
    return sizeof *s + s->routes_cap * sizeof *s->routes + s->segs_cap * sizeof *s->segs +
           s->ranks_cap + s->bytes_cap + rb__shapes_bytes(&s->shapes);
}

int rb_route_set_add(rb_route_set *s, int method, const char *pattern, size_t len,
                     uint32_t route_id, rb_error *err)
{
    if (method < 0 || method > RB_ANY)
        return rb__error(err, RB_EMETHOD, RB_NO_OFFSET, "unknown method number %d", method);
    const rb_allocator *a = &s->allocator;
    rb_pattern p;
    int rc = rb_pattern_parse(pattern, len, a, &p, err);
    if (rc < 0) return rc;
    uint64_t hash = rb__shapes_hash(&s->shapes, method, p.shape, p.shape_len);
    if (rb__shapes_has(&s->shapes, hash, method, p.shape, p.shape_len)) {
        rc = rb__shapes_duplicate_error(err, method, pattern, len);
        goto done;
    }
    if (len > UINT32_MAX - s->nbytes || s->count >= UINT32_MAX / 4 ||
        p.nsegs > UINT32_MAX / 4 - s->nsegs) {
        rc = rb__error(err, RB_ELIMIT, RB_NO_OFFSET, "route set: too many routes or bytes");
        goto done;
    }
    if (rb_grow(a, &s->routes, &s->routes_cap, s->count + 1, sizeof *s->routes, 64) < 0 ||
        rb_grow(a, &s->segs, &s->segs_cap, s->nsegs + p.nsegs, sizeof *s->segs, 256) < 0 ||
        rb_grow(a, &s->ranks, &s->ranks_cap, s->nsegs + p.nsegs, 1, 256) < 0 ||
        rb_grow(a, &s->bytes, &s->bytes_cap, s->nbytes + len, 1, 4096) < 0 ||
        rb__shapes_reserve(&s->shapes, a, p.shape, p.shape_len) < 0) {
        rc = rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory adding to a route set");
        goto done;
    }
    /* commit: nothing below can fail */
    set_route *sr = &s->routes[s->count++];
    *sr = (set_route){(uint32_t)s->nbytes,
                      (uint32_t)len,
                      (uint32_t)s->nsegs,
                      p.nsegs,
                      (uint32_t)s->shapes.arena_len,
                      (uint32_t)p.shape_len,
                      route_id,
                      p.ncaptures,
                      p.literal_bytes,
                      method,
                      p.features};
    memcpy(s->bytes + s->nbytes, pattern, len);
    s->nbytes += len;
    for (uint32_t i = 0; i < p.nsegs; i++) {
        const rb_segment *g = &p.segs[i];
        s->segs[s->nsegs + i] =
            (set_seg){g->offset, g->len,     (uint32_t)(g->text - pattern), g->text_len, g->literal,
                      g->kind,   g->captures};
        s->ranks[s->nsegs + i] = p.ranks[i];
    }
    s->nsegs += p.nsegs;
    rb__shapes_commit(&s->shapes, a, hash, method, p.shape_len);
    s->features |= p.features;
    if (p.nsegs > s->max_segs) s->max_segs = p.nsegs;
done:
    rb_pattern_free(&p);
    return rc;
}

/* ---- for the front end (router.c) ------------------------------------------ */

uint32_t rb__route_set_max_segs(const rb_route_set *s)
{
    return s->max_segs;
}

void rb__route_set_route(const rb_route_set *s, size_t i, rb_segment *segs, rb_pattern *p,
                         rb_route *route)
{
    const set_route *sr = &s->routes[i];
    const char *text = s->bytes + sr->text;
    for (uint32_t j = 0; j < sr->nsegs; j++) {
        const set_seg *g = &s->segs[sr->seg + j];
        segs[j] = (rb_segment){g->kind,     g->captures, g->offset, g->len, text + g->text_off,
                               g->text_len, g->literal};
    }
    memset(p, 0, sizeof *p);
    p->text = text;
    p->len = sr->len;
    p->segs = segs;
    p->nsegs = sr->nsegs;
    p->ncaptures = sr->ncaptures;
    p->ranks = (uint8_t *)(uintptr_t)(s->ranks + sr->seg);
    p->literal_bytes = sr->literal_bytes;
    p->features = sr->features;
    p->shape = (char *)(uintptr_t)(s->shapes.arena + sr->shape);
    p->shape_len = sr->shape_len;
    p->allocator = &s->allocator;
    *route = (rb_route){sr->method, sr->id, p};
}
