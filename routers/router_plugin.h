/*
 * router_plugin.h — writing a router: the ops table every implementation
 * fills, the parsed routes it receives, the ABI version, and the plugin
 * entry point.  Installed as <routebench/router_plugin.h>; a router built
 * only against the installed headers needs no library of ours to link
 * (examples/plugin/segscan.c is one, tests/install_test.sh builds it that
 * way and verifies it).
 *
 * What the host does for you.  The front end (router.c) does, once and
 * identically for every implementation, what must not differ between
 * them: the method check, parsing, refusal of features the implementation
 * lacks (RB_EUNSUPPORTED with the byte offset) and of a second route with
 * the same (method, shape).  add() therefore receives a valid rb_route
 * whose features are in ops->features, and only has to store it, copying
 * what it keeps (the pattern is gone after add returns).
 *
 * Helpers.  base.h (included through router.h) has what an implementation
 * needs, all `static inline`: rb_error_set to fill an rb_error, and
 * rb_alloc, rb_calloc, rb_realloc, rb_free and rb_grow to allocate through
 * config->allocator (which create() always receives, never NULL).  This
 * file adds rb_priority_compare, the priority key of docs/design.md.
 *
 * ABI.  The ops table grows by appending fields, never by changing one
 * (SQLite's methods tables work the same way).  Its first field says which
 * version of the table the plugin was built with: a host of version N
 * accepts every table of version 1..N and treats the fields a table of an
 * older version lacks as NULL; a table newer than the host is refused with
 * RB_EABI.  Version 1: abi_version .. describe.  Version 2: check.
 * Version 3 adds no field but widens what add() may receive: template
 * segments (RB_SEG_TEMPLATE, `img-{id}.png`), and only when `features`
 * has RB_FEAT_TEMPLATE.  A table of version 1 or 2 was written before
 * templates existed, so the host ignores that bit in it (rb_ops_features
 * answers without it) and such a router is refused every template with
 * RB_EUNSUPPORTED: an old plugin never sees a segment kind it does not
 * know.
 *
 * Plugins (shared libraries) export one symbol, RB_PLUGIN_SYMBOL (declare
 * it with RB_PLUGIN_EXPORT and build with -fvisibility=hidden, or with
 * cmake/plugin.map, so that it is the only one), of type
 * rb_plugin_entry_fn: it returns the library's ops tables.  They may also
 * export RB_PLUGIN_BUILD_SYMBOL, naming their build.
 */
#ifndef RB_ROUTER_PLUGIN_H
#define RB_ROUTER_PLUGIN_H

#include "router.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of rb_router_ops this header declares. */
#define RB_ROUTER_ABI_VERSION 3u

/* ---- parsed patterns ---------------------------------------------------- */

/* Segment kinds.  For kinds 0-4 the value is the segment's priority rank
 * (docs/design.md, "Route semantics"): static 0, param 1, glob 2, ** 3,
 * catch-all 4.  Kinds are only ever appended: a template (5, ABI version
 * 3) ranks as a param, 1; rb_seg_rank gives the rank of every kind, and
 * rb_pattern.ranks holds ranks, not kinds. */
typedef enum rb_seg_kind {
    RB_SEG_STATIC = 0,
    RB_SEG_PARAM = 1,
    RB_SEG_GLOB = 2,
    RB_SEG_GLOBSTAR = 3, /* ** */
    RB_SEG_CATCHALL = 4,
    RB_SEG_TEMPLATE = 5, /* img-{id}.png, {from}-{to}: rank 1 */
} rb_seg_kind;

/* The priority rank of a segment kind. */
static inline uint8_t rb_seg_rank(unsigned kind)
{
    return kind == RB_SEG_TEMPLATE ? (uint8_t)RB_SEG_PARAM : (uint8_t)kind;
}

/* One segment of a pattern: the text after a '/' up to the next '/'.
 * text/len point into the pattern (for a static segment: its exact bytes;
 * for a glob: the glob text; for a param or catch-all: its name without
 * sigils or braces; for a template: the whole segment, `img-{id}.png`,
 * whose params are `{name}` runs separated by 1+ literal bytes).  offset
 * is the byte offset of the segment's first byte in the pattern. */
typedef struct rb_segment {
    uint8_t kind;     /* rb_seg_kind */
    uint8_t captures; /* 1 for param, catch-all, glob, **; 0 for static;
                         a template: its number of params */
    uint32_t offset;  /* of the segment text in the pattern */
    uint32_t len;     /* of the segment text in the pattern (with sigils) */
    const char *text; /* static bytes, glob text or capture name */
    uint32_t text_len;
    uint32_t literal; /* literal bytes this segment contributes to the key
                         (a template: the bytes outside its params) */
} rb_segment;

/* A parsed pattern.  Points into the pattern text it was parsed from and
 * into storage owned by the host's parser. */
typedef struct rb_pattern {
    const char *text; /* the pattern as given */
    size_t len;
    rb_segment *segs;
    uint32_t nsegs;
    uint32_t ncaptures;
    uint8_t *ranks;         /* rank of each segment: the priority key part 1 */
    uint32_t literal_bytes; /* priority key part 3 */
    unsigned features;      /* RB_FEAT_* the pattern uses */
    char *shape;            /* names erased: params "{}" (in templates too:
                               "img-{}.png"), catch-all "{*}" */
    size_t shape_len;
    const rb_allocator *allocator;
} rb_pattern;

/* A route as an implementation receives it. */
typedef struct rb_route {
    int method; /* rb_method or RB_ANY */
    uint32_t id;
    const rb_pattern *pattern;
} rb_route;

/* ---- priority ------------------------------------------------------------ */

/* The priority key of a route (docs/design.md), compact enough to keep per
 * route. */
typedef struct rb_priority {
    const uint8_t *ranks; /* segment kinds, nranks of them */
    uint32_t nranks;
    bool any_method; /* method "*" */
    uint32_t literal_bytes;
    uint32_t id;
} rb_priority;

/* <0 when a has priority over b (a wins), >0 when b wins, 0 when equal:
 * segment ranks left to right (a proper prefix first), then a specific
 * method before "*", then more literal bytes, then the lower id. */
static inline int rb_priority_compare(const rb_priority *a, const rb_priority *b)
{
    uint32_t n = a->nranks < b->nranks ? a->nranks : b->nranks;
    for (uint32_t i = 0; i < n; i++) {
        if (a->ranks[i] != b->ranks[i]) return a->ranks[i] < b->ranks[i] ? -1 : 1;
    }
    if (a->nranks != b->nranks) return a->nranks < b->nranks ? -1 : 1;
    if (a->any_method != b->any_method) return a->any_method ? 1 : -1;
    if (a->literal_bytes != b->literal_bytes) return a->literal_bytes > b->literal_bytes ? -1 : 1;
    if (a->id != b->id) return a->id < b->id ? -1 : 1;
    return 0;
}

/* ---- the ops table ------------------------------------------------------ */

struct rb_router_ops {
    /* ---- version 1 ---- */
    uint32_t abi_version; /* RB_ROUTER_ABI_VERSION of the header built with */
    const char *name;
    const char *summary; /* one line */
    unsigned features;   /* RB_FEAT_* */

    /* Create an empty router.  config is never NULL (defaults filled in,
     * config->allocator too, and seed is never 0: the host replaces 0 by
     * a random seed). */
    int (*create)(const rb_config *config, void **out_impl, rb_error *err);
    /* Store a route.  Called only with patterns whose features are in
     * `features`, never with a duplicate (method, shape).  On failure the
     * router is unchanged. */
    int (*add)(void *impl, const rb_route *route, rb_error *err);
    /* Freeze.  Called once, after the last add. */
    int (*build)(void *impl, rb_error *err);
    /* Look up; method < RB_METHOD_COUNT; must fill m->outcome and, by
     * outcome, route_id + nparams + params, or allowed.  Returns outcome.
     * Must not allocate, and must be safe to call from many threads. */
    int (*lookup)(const void *impl, int method, const char *path, size_t len, rb_match *m);
    /* Bytes held: every block allocated and not yet freed. */
    size_t (*memory)(const void *impl);
    void (*destroy)(void *impl);
    /* Optional (may be NULL): what build decided, "" if nothing. */
    const char *(*describe)(const void *impl);

    /* ---- version 2 ---- */
    /* Optional (may be NULL): check every invariant of the built router
     * (a debug walk; its cost may be linear in the router's size).  RB_OK,
     * RB_EINVAL with err naming the first broken invariant, or RB_ENOMEM
     * when it needs scratch memory it cannot get.  Called only after a
     * successful build (rb_router_check). */
    int (*check)(const void *impl, rb_error *err);
};

/* ---- plugins ------------------------------------------------------------ */

#define RB_PLUGIN_SYMBOL "routebench_plugin_routers"
/* Returns an array of *count ops tables, valid for the library's lifetime. */
typedef const rb_router_ops *const *(*rb_plugin_entry_fn)(size_t *count);

/* Optional second symbol: what build of the code this library is, as a
 * NUL-terminated string valid for the library's lifetime (routebench's own
 * librouters.so answers the commit it was built from, e.g.
 * "3a3a462f1c2d-dirty").  The host records it with the library
 * (rb_plugins_build), so that a comparison of two builds can name them. */
#define RB_PLUGIN_BUILD_SYMBOL "routebench_plugin_build"
typedef const char *(*rb_plugin_build_fn)(void);

/* Put before the definition of the entry function: it is exported even
 * when the rest of the plugin is built with -fvisibility=hidden. */
#if defined(__GNUC__)
#define RB_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define RB_PLUGIN_EXPORT
#endif

#ifdef __cplusplus
}
#endif
#endif
