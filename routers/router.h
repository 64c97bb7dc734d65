/*
 * router.h — the public routebench router API.
 *
 * One contract, many implementations (linear, radix, ctrie, hashseg, glob,
 * peers such as r3, plugins).  A user picks an implementation by name from the
 * registry, adds routes, builds, and then looks paths up:
 *
 *     rb_router *r;
 *     rb_error err;
 *     if (rb_router_create("radix", NULL, &r, &err) < 0) ...;
 *     rb_router_add(r, RB_GET, "/users/:id", 10, 0, &err);
 *     rb_router_build(r, &err);
 *     rb_match m;
 *     if (rb_router_lookup(r, RB_GET, path, path_len, &m) == RB_FOUND)
 *         ... m.route_id, m.params[0].offset, m.params[0].len ...
 *     rb_router_destroy(r);
 *
 * Contract (every implementation):
 *   - add() parses the pattern with the one shared parser, refuses malformed
 *     patterns (the error names the byte offset), refuses features the
 *     implementation lacks (RB_EUNSUPPORTED, never a mis-route) and refuses a
 *     second route with the same method and shape (RB_EDUPLICATE).  A failed
 *     add leaves the router unchanged.  The router copies what it keeps.
 *   - build() freezes the router into its lookup form; add() after build()
 *     is RB_ESTATE.
 *   - lookup() is const, never allocates and is safe to call from many
 *     threads at once after build().  Captures are zero-copy spans into the
 *     caller's path buffer, in pattern order.
 *   - Errors are values: 0 or a negative RB_E* code (base.h), with details
 *     in an rb_error the caller owns.  Nothing here prints, aborts or exits.
 *
 * Route semantics (priority, matching rules) are documented in
 * docs/design.md, "Route semantics"; linear.c is the executable statement
 * of them.  Writing a router of your own: router_plugin.h.
 */
#ifndef RB_ROUTER_H
#define RB_ROUTER_H

#include "base.h" /* RB_API, status codes, rb_error, rb_allocator */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- methods ------------------------------------------------------------ */

typedef enum rb_method {
    RB_GET = 0,
    RB_HEAD,
    RB_POST,
    RB_PUT,
    RB_DELETE,
    RB_CONNECT,
    RB_OPTIONS,
    RB_TRACE,
    RB_PATCH,
    RB_METHOD_COUNT,          /* number of concrete methods (9) */
    RB_ANY = RB_METHOD_COUNT, /* "*": any method; valid in add() only */
} rb_method;

/* Bit i of an allowed-methods mask is method i. */
#define RB_METHOD_BIT(m) (1u << (m))

/* Parse a method name (exact, upper case; "*" gives RB_ANY).  Returns the
 * method or RB_EMETHOD. */
RB_API int rb_method_parse(const char *name, size_t len);
/* The canonical name of a method ("*" for RB_ANY), or NULL. */
RB_API const char *rb_method_name(int method);

/* ---- lookup results ----------------------------------------------------- */

#define RB_MAX_CAPTURES 32

typedef enum rb_outcome {
    RB_FOUND = 200,
    RB_NOT_FOUND = 404,
    RB_METHOD_NOT_ALLOWED = 405,
} rb_outcome;

/* A capture: bytes [offset, offset + len) of the looked-up path. */
typedef struct rb_span {
    uint32_t offset;
    uint32_t len;
} rb_span;

typedef struct rb_match {
    int outcome;       /* rb_outcome */
    uint32_t route_id; /* valid when outcome == RB_FOUND */
    uint32_t allowed;  /* RB_METHOD_NOT_ALLOWED: mask of methods that would fit */
    uint32_t nparams;  /* RB_FOUND: number of captures */
    rb_span params[RB_MAX_CAPTURES];
} rb_match;

/* ---- configuration ------------------------------------------------------ */

typedef struct rb_config {
    const rb_allocator *allocator; /* NULL: malloc/realloc/free */
    /* Hash seed of every hashed table.  0: a random seed drawn for each
     * router at create (getrandom), so nobody can aim hash collisions at
     * it; any other value: that seed, reproducible (same tables, same
     * instruction counts on every run; benchmarks pass one). */
    uint64_t seed;
} rb_config;

/* ---- the router handle -------------------------------------------------- */

typedef struct rb_router rb_router;
typedef struct rb_router_ops rb_router_ops; /* see router_plugin.h */

/* Feature flags of an implementation. */
#define RB_FEAT_PARAMS   0x1u /* :name, {name} */
#define RB_FEAT_CATCHALL 0x2u /* *name, {*name} */
#define RB_FEAT_GLOB     0x4u /* *.png, img-??, [a-c]*, ** */
#define RB_FEAT_TEMPLATE 0x8u /* img-{id}.png, {sid}.json, {from}-{to} */
/* Not a pattern feature: the implementation is a peer, an adapter around a
 * third-party router (e.g. r3).  It is measured and verified like ours, but
 * not held to our route semantics: verify reports where it disagrees, and
 * conformance tests skip it. */
#define RB_FEAT_PEER 0x100u

/* Create a router of the named implementation (see rb_registry_*).  config
 * may be NULL.  On failure *out is NULL and err (may be NULL) says why. */
RB_API int rb_router_create(const char *name, const rb_config *config, rb_router **out,
                            rb_error *err);
/* Create from an ops table directly (plugins, peers). */
RB_API int rb_router_create_ops(const rb_router_ops *ops, const rb_config *config, rb_router **out,
                                rb_error *err);

/* Add a route.  method is an rb_method (RB_ANY for "*"); pattern is
 * pattern_len bytes, not NUL-terminated necessarily.  route_id is the value
 * lookup reports; ids should be distinct (the lower id wins a full tie). */
RB_API int rb_router_add(rb_router *r, int method, const char *pattern, size_t pattern_len,
                         uint32_t route_id, rb_error *err);

/* Freeze into the lookup form.  Must be called once before lookup. */
RB_API int rb_router_build(rb_router *r, rb_error *err);

/* Look up method + path.  Returns the outcome (also in m->outcome).
 * method must be a concrete method (< RB_METHOD_COUNT); others give
 * RB_NOT_FOUND.  Before build() the answer is RB_NOT_FOUND. */
RB_API int rb_router_lookup(const rb_router *r, int method, const char *path, size_t path_len,
                            rb_match *m);

/* Check the implementation's internal invariants (a debug walk, linear in
 * the router's size; for tests and fuzzers, not for every request).
 * RB_OK when they hold or the implementation has no check; RB_EINVAL with
 * err naming the first broken invariant; RB_ESTATE before build. */
RB_API int rb_router_check(const rb_router *r, rb_error *err);

/* Bytes held by the implementation (its structures and copies). */
RB_API size_t rb_router_memory(const rb_router *r);
RB_API const char *rb_router_name(const rb_router *r);
/* A line saying what the router decided at build (e.g. `auto`'s choice);
 * "" when it has nothing to say. */
RB_API const char *rb_router_describe(const rb_router *r);
RB_API size_t rb_router_count(const rb_router *r); /* routes added */
RB_API void rb_router_destroy(rb_router *r);

/* ---- route sets: a table parsed once, for several routers --------------- */

/* A route set holds a route table in the front end's parsed form.  Adding
 * a route to it does once what rb_router_add does before it reaches an
 * implementation (method check, parse, duplicate check, with the same
 * errors); rb_router_add_set then loads the whole table into a router
 * without parsing or checking it again.  Build one set and load it into
 * every router that should hold the table (a benchmark, per-thread copies,
 * a comparison), and the parsing is paid once:
 *
 *     rb_route_set *s;
 *     rb_route_set_create(NULL, &s, &err);
 *     rb_route_set_add(s, RB_GET, "/users/:id", 10, 0, &err);  ... every route
 *     rb_router_create("hashseg", NULL, &r, &err);
 *     rb_router_add_set(r, s, &err);
 *     rb_router_build(r, &err);
 *
 * The set copies the patterns; a router copies what it keeps, so the set
 * may be destroyed once the routers are loaded.  A failed rb_route_set_add
 * leaves the set unchanged.  Loading from one set into many routers at
 * once, from many threads, is safe (it only reads the set). */
typedef struct rb_route_set rb_route_set;

/* config may be NULL; its allocator serves the set; its seed keys the
 * duplicate check (it changes no answer). */
RB_API int rb_route_set_create(const rb_config *config, rb_route_set **out, rb_error *err);
/* As rb_router_add: RB_EMETHOD, RB_EPATTERN (with the byte offset),
 * RB_EDUPLICATE, RB_ELIMIT, RB_ENOMEM.  There are no feature refusals here:
 * those depend on the router (rb_router_add_set). */
RB_API int rb_route_set_add(rb_route_set *s, int method, const char *pattern, size_t pattern_len,
                            uint32_t route_id, rb_error *err);
RB_API size_t rb_route_set_count(const rb_route_set *s);
/* RB_FEAT_* the set's patterns use. */
RB_API unsigned rb_route_set_features(const rb_route_set *s);
/* Bytes the set holds. */
RB_API size_t rb_route_set_memory(const rb_route_set *s);
RB_API void rb_route_set_destroy(rb_route_set *s);

/* Load every route of s into r, in the order they were added to s, as as
 * many rb_router_add calls would (the implementation receives the same
 * parsed routes).  r must hold no routes yet, and holds exactly the set's
 * afterwards: rb_router_add on it is then RB_ESTATE (add to the set
 * instead).  A set that uses a feature r lacks is refused before anything
 * is added (RB_EUNSUPPORTED, err->offset the byte offset in the first
 * such pattern, the message naming it).  When the implementation refuses
 * a route (RB_ENOMEM, RB_ELIMIT), r keeps the routes before it and the
 * message names the route; destroy r. */
RB_API int rb_router_add_set(rb_router *r, const rb_route_set *s, rb_error *err);

/* ---- registry ----------------------------------------------------------- */

RB_API size_t rb_registry_count(void);
RB_API const rb_router_ops *rb_registry_at(size_t i);
RB_API const rb_router_ops *rb_registry_find(const char *name);

/* Name, one-line summary and RB_FEAT_* of an implementation (the features
 * the front end honours: RB_FEAT_TEMPLATE only from an ops table of ABI
 * version 3 or later, router_plugin.h). */
RB_API const char *rb_ops_name(const rb_router_ops *ops);
RB_API const char *rb_ops_summary(const rb_router_ops *ops);
RB_API unsigned rb_ops_features(const rb_router_ops *ops);

#ifdef __cplusplus
}
#endif
#endif
