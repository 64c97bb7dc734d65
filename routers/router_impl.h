/*
 * router_impl.h — the implementer's side of the router API: the ops table
 * every router fills, the parsed pattern it receives, and shared helpers.
 *
 * The front end (router.c) does everything that must be identical across
 * implementations before an implementation sees a route: method check,
 * parsing (pattern.c), feature refusal, duplicate (method, shape) refusal.
 * An implementation's add() therefore receives a valid rb_route whose
 * features it supports, and only has to store it (copying what it keeps).
 *
 * Plugins (shared libraries) export one symbol, RB_PLUGIN_SYMBOL, of type
 * rb_plugin_entry_fn, returning a table of ops whose abi_version equals
 * RB_ROUTER_ABI_VERSION.
 */
#ifndef RB_ROUTER_IMPL_H
#define RB_ROUTER_IMPL_H

#include "router.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RB_ROUTER_ABI_VERSION 1u

/* ---- parsed patterns ---------------------------------------------------- */

/* Segment kinds.  The value is the segment's priority rank (DESIGN.md):
 * static 0, param 1, glob 2, ** 3, catch-all 4. */
typedef enum rb_seg_kind {
    RB_SEG_STATIC = 0,
    RB_SEG_PARAM = 1,
    RB_SEG_GLOB = 2,
    RB_SEG_GLOBSTAR = 3, /* ** */
    RB_SEG_CATCHALL = 4,
} rb_seg_kind;

/* One segment of a pattern: the text after a '/' up to the next '/'.
 * text/len point into the pattern (for a static segment: its exact bytes;
 * for a glob: the glob text; for a param or catch-all: its name without
 * sigils or braces).  offset is the byte offset of the segment's first byte
 * in the pattern. */
typedef struct rb_segment {
    uint8_t kind;     /* rb_seg_kind */
    uint8_t captures; /* 1 for param, catch-all, glob, **; 0 for static */
    uint32_t offset;  /* of the segment text in the pattern */
    uint32_t len;     /* of the segment text in the pattern (with sigils) */
    const char *text; /* static bytes, glob text or capture name */
    uint32_t text_len;
    uint32_t literal; /* literal bytes this segment contributes to the key */
} rb_segment;

/* A parsed pattern.  Points into the pattern text it was parsed from and
 * into storage owned by the rb_pattern (free with rb_pattern_free). */
typedef struct rb_pattern {
    const char *text; /* the pattern as given */
    size_t len;
    rb_segment *segs;
    uint32_t nsegs;
    uint32_t ncaptures;
    uint8_t *ranks;         /* kind of each segment: the priority key part 1 */
    uint32_t literal_bytes; /* priority key part 3 */
    unsigned features;      /* RB_FEAT_* the pattern uses */
    char *shape;            /* names erased: params "{}", catch-all "{*}" */
    size_t shape_len;
    const rb_allocator *allocator;
} rb_pattern;

/* Parse pattern[0..len).  On success fills *out (free with rb_pattern_free).
 * On failure returns RB_EPATTERN (err->offset = the offending byte) or
 * RB_ENOMEM, and *out needs no freeing.  allocator may be NULL. */
int rb_pattern_parse(const char *pattern, size_t len, const rb_allocator *allocator,
                     rb_pattern *out, rb_error *err);
void rb_pattern_free(rb_pattern *p);
/* Bytes allocated for a parsed pattern (for memory() accounting). */
size_t rb_pattern_bytes(const rb_pattern *p);

/* A route as an implementation receives it. */
typedef struct rb_route {
    int method; /* rb_method or RB_ANY */
    uint32_t id;
    const rb_pattern *pattern;
} rb_route;

/* The priority key of DESIGN.md, compact enough to keep per route. */
typedef struct rb_priority {
    const uint8_t *ranks; /* segment kinds, nranks of them */
    uint32_t nranks;
    bool any_method; /* method "*" */
    uint32_t literal_bytes;
    uint32_t id;
} rb_priority;

/* <0 when a has priority over b (a wins), >0 when b wins, 0 when equal. */
int rb_priority_compare(const rb_priority *a, const rb_priority *b);

/* ---- glob segment matching (shared by linear and glob) ------------------ */

/* Does glob (a glob segment's text, already validated by the parser) match
 * the whole of seg?  O(len(glob) * len(seg)) worst case, no allocation.
 * steps (may be NULL) is incremented once per inner-loop step. */
bool rb_glob_segment_match(const char *glob, size_t glob_len, const char *seg, size_t seg_len,
                           uint64_t *steps);

/* ---- the ops table ------------------------------------------------------ */

struct rb_router_ops {
    uint32_t abi_version; /* RB_ROUTER_ABI_VERSION */
    const char *name;
    const char *summary; /* one line */
    unsigned features;   /* RB_FEAT_* */

    /* Create an empty router.  config is never NULL (defaults filled in:
     * the allocator is set, and seed is never 0; see seed.h). */
    int (*create)(const rb_config *config, void **out_impl, rb_error *err);
    /* Store a route.  Called only with patterns whose features are in
     * `features`, never with a duplicate (method, shape).  On failure the
     * router is unchanged. */
    int (*add)(void *impl, const rb_route *route, rb_error *err);
    /* Freeze.  Called once, after the last add. */
    int (*build)(void *impl, rb_error *err);
    /* Look up; method < RB_METHOD_COUNT; must fill m->outcome and, by
     * outcome, route_id + nparams + params, or allowed.  Returns outcome. */
    int (*lookup)(const void *impl, int method, const char *path, size_t len, rb_match *m);
    size_t (*memory)(const void *impl);
    void (*destroy)(void *impl);
    /* Optional (may be NULL): what build decided, "" if nothing. */
    const char *(*describe)(const void *impl);
};

/* ---- plugins ------------------------------------------------------------ */

#define RB_PLUGIN_SYMBOL "routebench_plugin_routers"
/* Returns an array of *count ops tables, valid for the library's lifetime. */
typedef const rb_router_ops *const *(*rb_plugin_entry_fn)(size_t *count);

/* ---- helpers for implementations --------------------------------------- */

/* Allocation through a config's allocator (never NULL after create). */
void *rb__alloc(const rb_allocator *a, size_t size);
void *rb__calloc(const rb_allocator *a, size_t size);
void *rb__realloc(const rb_allocator *a, void *ptr, size_t old_size, size_t new_size);
void rb__free(const rb_allocator *a, void *ptr, size_t size);

/* The ops table and implementation behind a router handle (for the
 * benchmark harness, which calls lookup directly, and for debug checks). */
const rb_router_ops *rb__router_ops(const rb_router *r);
const void *rb__router_impl(const rb_router *r);

/* The longest probe sequence of the front end's (method, shape) set, which
 * lives from create to build (0 after build): a test hook. */
uint32_t rb__router_shape_probe(const rb_router *r);

/* The default allocator (malloc). */
const rb_allocator *rb__default_allocator(void);

/* Fill err (may be NULL) with code, offset and a printf-style message;
 * returns code.  Never allocates. */
int rb__error(rb_error *err, int code, size_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
