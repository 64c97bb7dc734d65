/*
 * test_radix.c — the radix router (routers/radix.c).
 *
 * Answers are compared with `linear` (the oracle) built from the same
 * routes through the public API, rather than hard-coded, except where a
 * test states a rule of docs/design.md on a case small enough to read.  The
 * structural invariants are checked with the ops table's check on a router
 * driven through its ops table (the public handle hides the impl).
 * Every looked-up path is copied into a heap block of exactly its length,
 * so that AddressSanitizer sees any read past its end (radix reads words).
 */
#include "radix.h"
#include "rb_test.h"
#include "rng.h"
#include "router.h"
#include "table.h"
#include "verify.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The portable variant of radix (words packed a byte at a time instead of
 * loaded), compiled into this test under other names so that both lookup
 * code paths are checked on a little-endian machine; the tests of byte
 * handling run on both.  radix.h is already included, so radix.c's own
 * include of it declares nothing new. */
#define RADIX_SWAR    0
#define rb__radix_ops rb__radix_portable_ops
#include "radix.c"
#undef rb__radix_ops
#undef RADIX_SWAR

static const rb_router_ops *const variants[] = {&rb__radix_ops, &rb__radix_portable_ops};
#define NVARIANTS 2

/* ---- helpers -------------------------------------------------------------- */

typedef struct route_spec {
    int method;
    const char *pattern;
} route_spec;

typedef struct rng {
    uint64_t s;
} rng;

/* The tables' random choices: splitmix64 outputs, reduced mod n. */
static unsigned rng_below(rng *g, unsigned n)
{
    return (unsigned)(rb_splitmix64(&g->s) % n);
}

static rb_router *new_router(const char *name, const rb_config *cfg)
{
    rb_router *r;
    rb_error err;
    int rc = rb_router_create(name, cfg, &r, &err);
    cr_assert_eq(rc, RB_OK, "create %s: %s", name, err.message);
    return r;
}

/* Add the same routes (ids = index) to a radix (ops) and a linear router,
 * expect both to give the same status, build both. */
static void build_pair_ops(const rb_router_ops *ops, const route_spec *routes, size_t n,
                           rb_router **radix, rb_router **linear)
{
    rbt_pair p;
    rbt_pair_init(&p, ops, NULL, rb_ops_name(ops));
    for (size_t i = 0; i < n; i++)
        rbt_pair_add(&p, routes[i].method, routes[i].pattern, strlen(routes[i].pattern),
                     (uint32_t)i);
    rbt_pair_build(&p);
    *radix = p.r;
    *linear = p.linear;
}

static void build_pair(const route_spec *routes, size_t n, rb_router **radix, rb_router **linear)
{
    build_pair_ops(&rb__radix_ops, routes, n, radix, linear);
}

/* radix and linear must agree exactly (outcome, id, spans, 405 mask). */
static void expect_same_n(const rb_router *radix, const rb_router *linear, int method,
                          const char *path, size_t len)
{
    rb_match a, b;
    rbt_lookup_exact(radix, method, path, len, &a);
    rbt_lookup_exact(linear, method, path, len, &b);
    rbt_expect_same_match(rb_router_name(radix), method, path, len, &a, &b);
}

static void expect_same(const rb_router *radix, const rb_router *linear, int method,
                        const char *path)
{
    expect_same_n(radix, linear, method, path, strlen(path));
}

static void expect_same_all_methods(const rb_router *radix, const rb_router *linear,
                                    const char *path, size_t len)
{
    for (int m = 0; m < RB_METHOD_COUNT; m++) expect_same_n(radix, linear, m, path, len);
}

/* The answer of r, checked against an explicit expectation. */
static void expect_route(const rb_router *r, int method, const char *path, uint32_t id)
{
    rb_match m;
    int rc = rbt_lookup_exact(r, method, path, strlen(path), &m);
    cr_assert_eq(rc, RB_FOUND, "%s %s: outcome %d, want route %u", rb_method_name(method), path, rc,
                 id);
    cr_assert_eq(m.route_id, id, "%s %s: route %u, want %u", rb_method_name(method), path,
                 m.route_id, id);
}

static void expect_outcome(const rb_router *r, int method, const char *path, int outcome,
                           uint32_t allowed)
{
    rb_match m;
    int rc = rbt_lookup_exact(r, method, path, strlen(path), &m);
    cr_assert_eq(rc, outcome, "%s %s: outcome %d, want %d", rb_method_name(method), path, rc,
                 outcome);
    if (outcome == RB_METHOD_NOT_ALLOWED)
        cr_assert_eq(m.allowed, allowed, "%s %s: allowed 0x%x, want 0x%x", rb_method_name(method),
                     path, m.allowed, allowed);
}

/* ---- the impl through its ops table, for its check ------------------------ */

static void *direct_create(const rb_allocator *a)
{
    rb_config cfg = {a ? a : rb__default_allocator(), 0};
    void *impl;
    rb_error err;
    cr_assert_eq(rb__radix_ops.create(&cfg, &impl, &err), RB_OK, "%s", err.message);
    return impl;
}

/* Parse (with malloc, not the router's allocator) and hand to radix_add. */
static int direct_add(void *impl, int method, const char *pattern, uint32_t id, rb_error *err)
{
    rb_pattern p;
    int rc = rb_pattern_parse(pattern, strlen(pattern), NULL, &p, err);
    if (rc < 0) return rc;
    rb_route route = {method, id, &p};
    rc = rb__radix_ops.add(impl, &route, err);
    rb_pattern_free(&p);
    return rc;
}

static void expect_valid(const void *impl)
{
    rb_error err;
    int rc = rb__radix_ops.check(impl, &err);
    cr_assert_eq(rc, RB_OK, "invariant broken: %s", err.message);
}

/* ---- the shared example ---------------------------------------------------- */

static const route_spec example[] = {
    {RB_GET, "/users"},          {RB_GET, "/users/:id"},
    {RB_GET, "/users/me"},       {RB_POST, "/users/:id/posts"},
    {RB_GET, "/static/{*path}"},
};

Test(radix, example_routes_answer_as_in_the_file_header)
{
    rb_router *r, *l;
    build_pair(example, 5, &r, &l);
    expect_route(r, RB_GET, "/users/me", 2);
    expect_route(r, RB_GET, "/users/7", 1);
    expect_route(r, RB_POST, "/users/7/posts", 3);
    expect_outcome(r, RB_GET, "/users/me/posts", RB_METHOD_NOT_ALLOWED, RB_METHOD_BIT(RB_POST));
    expect_outcome(r, RB_PUT, "/users/7", RB_METHOD_NOT_ALLOWED, RB_METHOD_BIT(RB_GET));
    rb_match m;
    rbt_lookup_exact(r, RB_GET, "/static/css/a.css", 17, &m);
    cr_assert_eq(m.outcome, RB_FOUND);
    cr_assert_eq(m.route_id, 4);
    cr_assert_eq(m.nparams, 1);
    cr_assert_eq(m.params[0].offset, 8);
    cr_assert_eq(m.params[0].len, 9);
    const char *paths[] = {"/",       "/users",   "/users/",   "/users/me", "/users/me/",
                           "/static", "/static/", "/static/x", "/usersx",   "/user"};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
        expect_same_all_methods(r, l, paths[i], strlen(paths[i]));
    rb_router_destroy(r);
    rb_router_destroy(l);
}

Test(radix, ops_table_declares_params_catchall_and_templates)
{
    const rb_router_ops *ops = rb_registry_find("radix");
    cr_assert_eq(ops, &rb__radix_ops);
    cr_assert_eq(rb_ops_features(ops), RB_FEAT_PARAMS | RB_FEAT_CATCHALL | RB_FEAT_TEMPLATE);
}

/* ---- templates ------------------------------------------------------------ */

/* Rule: the routes a param and templates at one place lead to are compared
 * by the whole priority key (later ranks, then method, then literal
 * bytes), whatever order they were added in, and the spans are linear's;
 * the invariants (the stored keys included) hold before and after build. */
Test(radix, a_param_and_templates_at_one_place_are_decided_by_the_key)
{
    const route_spec routes[] = {
        {RB_GET, "/f/{id}"},          {RB_GET, "/f/{id}.json"},     {RB_GET, "/f/latest.json"},
        {RB_GET, "/f/{id}/x"},        {RB_GET, "/f/{id}.json/{y}"}, {RB_ANY, "/f/{a}.{b}"},
        {RB_GET, "/f/img-{id}.png"},  {RB_GET, "/f/{x}.png"},       {RB_GET, "/f/{*rest}"},
        {RB_POST, "/f/{a}-x-{b}/:c"}, {RB_GET, "/f/{id}/{y}"},
    };
    const char *paths[] = {"/f/7",        "/f/7.json",      "/f/latest.json", "/f/1.json/x",
                           "/f/1.json/z", "/f/a.b",         "/f/img-3.png",   "/f/img-.png",
                           "/f/..x",      "/f/1-x-2-x-3/t", "/f/1/z",         "/f/.json",
                           "/f/",         "/f/a/b/c",       "/f/x.png/",      "/f/x.png/y"};
    size_t n = sizeof routes / sizeof routes[0];
    for (size_t rot = 0; rot < n; rot++) { /* every rotation of the insertion order */
        route_spec order[sizeof routes / sizeof routes[0]];
        void *impl = direct_create(NULL);
        for (size_t k = 0; k < n; k++) {
            order[k] = routes[(k + rot) % n];
            rb_error err;
            cr_assert_eq(direct_add(impl, order[k].method, order[k].pattern, (uint32_t)k, &err),
                         RB_OK, "%s", err.message);
            expect_valid(impl);
        }
        rb_error err;
        cr_assert_eq(rb__radix_ops.build(impl, &err), RB_OK);
        expect_valid(impl);
        rb__radix_ops.destroy(impl);
        rb_router *r, *l;
        build_pair(order, n, &r, &l);
        for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
            expect_same_all_methods(r, l, paths[i], strlen(paths[i]));
        rb_router_destroy(r);
        rb_router_destroy(l);
    }
}

/* Rule: a template that is alone at its place is walked like a param (no
 * key comparison), and backing out of it restores the segment start, so
 * the catch-all beside it still gets the whole segment. */
Test(radix, a_lone_template_backs_out_to_the_catch_all)
{
    const route_spec routes[] = {
        {RB_GET, "/a/img-{id}.png/x"}, {RB_GET, "/a/{*rest}"}, {RB_PUT, "/a/img-{id}.png"}};
    rb_router *r, *l;
    build_pair(routes, 3, &r, &l);
    rb_match m;
    const char *path = "/a/img-3.png/y";
    cr_assert_eq(rbt_lookup_exact(r, RB_GET, path, strlen(path), &m), RB_FOUND);
    cr_expect_eq(m.route_id, 1u);
    cr_expect_eq(m.params[0].offset, 3u, "the catch-all starts at the segment");
    expect_route(r, RB_GET, "/a/img-3.png/x", 0);
    expect_route(r, RB_GET, "/a/img-3.png", 1); /* PUT only: the catch-all */
    const char *paths[] = {"/a/img-3.png/x", "/a/img-3.png/y",  "/a/img-3.png",
                           "/a/img-.png",    "/a/img-3.png/x/", "/a/"};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
        expect_same_all_methods(r, l, paths[i], strlen(paths[i]));
    rb_router_destroy(r);
    rb_router_destroy(l);
}

/* ---- structure ------------------------------------------------------------ */

Test(radix, splits_inside_a_segment_in_every_insertion_order)
{
    const char *words[] = {"/user", "/users", "/username", "/u"};
    const char *paths[] = {"/",         "/u",         "/us",    "/user",   "/users", "/usern",
                           "/username", "/usernames", "/userx", "/users/", "/uu"};
    int perm[24][4], np = 0;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            for (int c = 0; c < 4; c++)
                for (int d = 0; d < 4; d++)
                    if (a != b && a != c && a != d && b != c && b != d && c != d) {
                        perm[np][0] = a, perm[np][1] = b, perm[np][2] = c, perm[np][3] = d;
                        np++;
                    }
    cr_assert_eq(np, 24);
    for (int p = 0; p < np; p++) {
        void *impl = direct_create(NULL);
        route_spec routes[4];
        for (int k = 0; k < 4; k++) {
            const char *w = words[perm[p][k]];
            rb_error err;
            cr_assert_eq(direct_add(impl, RB_GET, w, (uint32_t)k, &err), RB_OK, "%s", err.message);
            expect_valid(impl);
            routes[k] = (route_spec){RB_GET, w};
        }
        rb_error err;
        cr_assert_eq(rb__radix_ops.build(impl, &err), RB_OK);
        expect_valid(impl);
        rb__radix_ops.destroy(impl);

        rb_router *r, *l;
        build_pair(routes, 4, &r, &l);
        for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
            expect_same_all_methods(r, l, paths[i], strlen(paths[i]));
        }
        /* Each word finds itself, whatever the order it was added in. */
        for (int k = 0; k < 4; k++) expect_route(r, RB_GET, routes[k].pattern, (uint32_t)k);
        rb_router_destroy(r);
        rb_router_destroy(l);
    }
}

Test(radix, invariants_hold_after_every_add_of_the_github_table)
{
    rb_route_table t;
    rb_error err;
    cr_assert_eq(rb_route_table_read(RB_SOURCE_DIR "/corpus/data/github.routes", &t, &err), RB_OK,
                 "%s", err.message);
    void *impl = direct_create(NULL);
    for (size_t i = 0; i < t.count; i++) {
        char pat[512];
        cr_assert_lt(t.routes[i].len, sizeof pat);
        memcpy(pat, rb_route_pattern(&t, i), t.routes[i].len);
        pat[t.routes[i].len] = '\0';
        cr_assert_eq(direct_add(impl, t.routes[i].method, pat, (uint32_t)i, &err), RB_OK, "%s",
                     err.message);
        expect_valid(impl);
    }
    cr_assert_eq(rb__radix_ops.build(impl, &err), RB_OK);
    expect_valid(impl);
    rb__radix_ops.destroy(impl);
    rb_route_table_free(&t);
}

Test(radix, a_same_method_same_shape_route_is_refused_by_the_tree_itself)
{
    /* The front end refuses duplicates first; the tree must not overwrite
     * a route if it is ever called with one. */
    void *impl = direct_create(NULL);
    rb_error err;
    cr_assert_eq(direct_add(impl, RB_GET, "/a/:x", 0, &err), RB_OK);
    cr_assert_eq(direct_add(impl, RB_GET, "/a/:y", 1, &err), RB_EDUPLICATE);
    cr_assert_eq(direct_add(impl, RB_ANY, "/a/:y", 2, &err), RB_OK);
    expect_valid(impl);
    cr_assert_eq(rb__radix_ops.build(impl, &err), RB_OK);
    rb_match m;
    rb__radix_ops.lookup(impl, RB_GET, "/a/b", 4, &m);
    cr_assert_eq(m.route_id, 0);
    rb__radix_ops.lookup(impl, RB_PUT, "/a/b", 4, &m);
    cr_assert_eq(m.route_id, 2);
    rb__radix_ops.destroy(impl);
}

/* ---- priority and backtracking --------------------------------------------- */

Test(radix, a_dead_end_static_branch_backtracks_into_the_param)
{
    /* The most-filed bug of radix routers: /users/me/y enters the static
     * "me", finds no "/y" below it, and must fall back to :id. */
    static const route_spec routes[] = {
        {RB_GET, "/users/me/x"},
        {RB_GET, "/users/:id/y"},
    };
    rb_router *r, *l;
    build_pair(routes, 2, &r, &l);
    rb_match m;
    rbt_lookup_exact(r, RB_GET, "/users/me/y", 11, &m);
    cr_assert_eq(m.outcome, RB_FOUND);
    cr_assert_eq(m.route_id, 1);
    cr_assert_eq(m.nparams, 1);
    cr_assert_eq(m.params[0].offset, 7);
    cr_assert_eq(m.params[0].len, 2);
    expect_route(r, RB_GET, "/users/me/x", 0);
    expect_route(r, RB_GET, "/users/mex/y", 1);
    expect_outcome(r, RB_GET, "/users/mex/x", RB_NOT_FOUND, 0);
    rb_router_destroy(r);
    rb_router_destroy(l);
}

Test(radix, backtracking_through_several_levels_and_a_split_label)
{
    /* Static prefixes that share bytes with the path deep down, then fail;
     * captures taken on the abandoned branches must not leak out. */
    static const route_spec routes[] = {
        {RB_GET, "/a/bc/d/e/f"},  {RB_GET, "/a/bc/d/:x/g"},  {RB_GET, "/a/:p/d/e/h"},
        {RB_GET, "/a/:p/:q/e/i"}, {RB_GET, "/a/:p/:q/:r/j"}, {RB_GET, "/a/{*rest}"},
        {RB_GET, "/a/bcd/d/e/f"}, {RB_POST, "/a/bc/d/e/k"},  {RB_GET, "/a/b/d/e/f"},
    };
    rb_router *r, *l;
    build_pair(routes, sizeof routes / sizeof *routes, &r, &l);
    const char *paths[] = {"/a/bc/d/e/f", "/a/bc/d/e/g",  "/a/bc/d/e/h",  "/a/bc/d/e/i",
                           "/a/bc/d/e/j", "/a/bc/d/e/k",  "/a/bc/d/e/z",  "/a/bc/d/e/",
                           "/a/bc/d/e",   "/a/bc/d",      "/a/bc/",       "/a/bc",
                           "/a/b/d/e/f",  "/a/bcd/d/e/f", "/a/bcd/d/e/j", "/a/bcx/d/e/h",
                           "/a/",         "/a",           "/a//d/e/h",    "/a/bc//e/i"};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
        expect_same_all_methods(r, l, paths[i], strlen(paths[i]));
    rb_router_destroy(r);
    rb_router_destroy(l);
}

Test(radix, static_then_param_then_catchall_at_one_position)
{
    static const route_spec routes[] = {
        {RB_GET, "/f/me"},    {RB_GET, "/f/:id"},  {RB_GET, "/f/*rest"},
        {RB_GET, "/f/:id/x"}, {RB_GET, "/f/me/y"},
    };
    rb_router *r, *l;
    build_pair(routes, 5, &r, &l);
    expect_route(r, RB_GET, "/f/me", 0);
    expect_route(r, RB_GET, "/f/you", 1);
    expect_route(r, RB_GET, "/f/me/z", 2);
    expect_route(r, RB_GET, "/f/me/x", 3);
    expect_route(r, RB_GET, "/f/me/y", 4);
    expect_route(r, RB_GET, "/f/me/", 2); /* a param takes 1+ bytes: not /f/:id/<empty> */
    expect_outcome(r, RB_GET, "/f/", RB_NOT_FOUND, 0); /* a catch-all takes 1+ bytes */
    const char *paths[] = {"/f/me",  "/f/you", "/f/me/z", "/f/me/x", "/f/me/y",
                           "/f/me/", "/f/",    "/f",      "/f//",    "/f//x",
                           "/f/m",   "/f/mex", "/f/x/x",  "/f/x/y",  "/f/me/x/"};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
        expect_same_all_methods(r, l, paths[i], strlen(paths[i]));
    rb_router_destroy(r);
    rb_router_destroy(l);
}

Test(radix, a_specific_method_beats_star_and_star_fits_on_a_lower_branch)
{
    static const route_spec routes[] = {
        {RB_GET, "/m/:id"},   {RB_ANY, "/m/:id"}, {RB_POST, "/m/new"},
        {RB_ANY, "/n/*rest"}, {RB_GET, "/n/x"},
    };
    rb_router *r, *l;
    build_pair(routes, 5, &r, &l);
    expect_route(r, RB_GET, "/m/7", 0); /* specific before '*' */
    expect_route(r, RB_PUT, "/m/7", 1); /* '*' fits any method */
    expect_route(r, RB_POST, "/m/new", 2);
    expect_route(r, RB_GET, "/m/new", 0); /* static has no GET: the param does */
    expect_route(r, RB_GET, "/n/x", 4);
    expect_route(r, RB_PUT, "/n/x", 3); /* static x holds GET only: the '*' catch-all fits */
    for (int m = 0; m < RB_METHOD_COUNT; m++) {
        expect_same(r, l, m, "/m/new");
        expect_same(r, l, m, "/n/x");
        expect_same(r, l, m, "/n/x/y");
    }
    rb_router_destroy(r);
    rb_router_destroy(l);
}

Test(radix, the_405_mask_is_the_union_over_every_matching_route)
{
    static const route_spec routes[] = {
        {RB_GET, "/m/me"},  {RB_POST, "/m/:id"},  {RB_PUT, "/m/*rest"},
        {RB_HEAD, "/m/me"}, {RB_PATCH, "/:a/me"}, {RB_DELETE, "/x/me"},
    };
    rb_router *r, *l;
    build_pair(routes, sizeof routes / sizeof *routes, &r, &l);
    uint32_t want = RB_METHOD_BIT(RB_GET) | RB_METHOD_BIT(RB_HEAD) | RB_METHOD_BIT(RB_POST) |
                    RB_METHOD_BIT(RB_PUT) | RB_METHOD_BIT(RB_PATCH);
    expect_outcome(r, RB_OPTIONS, "/m/me", RB_METHOD_NOT_ALLOWED, want);
    expect_outcome(r, RB_OPTIONS, "/m/you", RB_METHOD_NOT_ALLOWED,
                   RB_METHOD_BIT(RB_POST) | RB_METHOD_BIT(RB_PUT));
    expect_route(r, RB_PUT, "/m/me", 2);
    expect_route(r, RB_PATCH, "/m/me", 4);
    const char *paths[] = {"/m/me", "/m/you", "/m/me/x", "/x/me", "/y/me", "/m/", "/m"};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
        expect_same_all_methods(r, l, paths[i], strlen(paths[i]));
    rb_router_destroy(r);
    rb_router_destroy(l);
}

Test(radix, trailing_slashes_empty_segments_and_the_root)
{
    static const route_spec routes[] = {
        {RB_GET, "/"},      {RB_GET, "/e/"},    {RB_GET, "/e/:x"},   {RB_GET, "/e/*rest"},
        {RB_GET, "/e"},     {RB_GET, "/g//h"},  {RB_GET, "/g/:x/h"}, {RB_GET, "/k/:x/"},
        {RB_POST, "/:top"}, {RB_PUT, "/:top/"}, {RB_GET, "//"},
    };
    rb_router *r, *l;
    build_pair(routes, sizeof routes / sizeof *routes, &r, &l);
    expect_route(r, RB_GET, "/", 0);
    expect_route(r, RB_GET, "/e/", 1);
    expect_route(r, RB_GET, "/e", 4);
    expect_route(r, RB_GET, "/g//h", 5);
    expect_route(r, RB_GET, "/e//", 3);
    const char *paths[] = {"/",     "//",    "///",     "/e",     "/e/",   "/e//", "/e/a",
                           "/e/a/", "/g//h", "/g/x/h",  "/g///h", "/k/x/", "/k/x", "/k//",
                           "/top",  "/top/", "/e/a//b", "",       "e/",    "x"};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
        expect_same_all_methods(r, l, paths[i], strlen(paths[i]));
    rb_router_destroy(r);
    rb_router_destroy(l);
}

Test(radix, thirty_two_captures_come_back_in_pattern_order)
{
    char pattern[400], path[400];
    size_t pl = 0, ql = 0;
    for (int i = 0; i < 31; i++) {
        pl += (size_t)snprintf(pattern + pl, sizeof pattern - pl, "/:p%d", i);
        ql += (size_t)snprintf(path + ql, sizeof path - ql, "/v%d", i * 7);
    }
    pl += (size_t)snprintf(pattern + pl, sizeof pattern - pl, "/*rest");
    ql += (size_t)snprintf(path + ql, sizeof path - ql, "/tail/end");
    route_spec routes[] = {{RB_GET, pattern}, {RB_GET, "/:a/:b"}};
    rb_router *r, *l;
    build_pair(routes, 2, &r, &l);
    rb_match m;
    rbt_lookup_exact(r, RB_GET, path, ql, &m);
    cr_assert_eq(m.outcome, RB_FOUND);
    cr_assert_eq(m.nparams, 32);
    cr_assert_eq(m.params[31].len, 8); /* "tail/end" */
    expect_same_n(r, l, RB_GET, path, ql);
    path[ql - 4] = '\0';
    expect_same(r, l, RB_GET, path);
    rb_router_destroy(r);
    rb_router_destroy(l);
}

/* ---- byte-level details (word loads, long labels, wide nodes) --------------- */

Test(radix, labels_and_paths_of_every_length_near_word_sizes)
{
    /* Static labels of 1..40 bytes, params and catch-alls after them, and
     * paths of every length up to 45: covers the masked word compare, the
     * memcmp tail, and reading the last word of a short path. */
    static char pats[80][64];
    route_spec routes[80];
    size_t n = 0;
    for (int len = 1; len <= 40; len++) {
        char *p = pats[n];
        p[0] = '/';
        for (int i = 0; i < len; i++) p[1 + i] = (char)('a' + i % 3);
        snprintf(p + 1 + len, sizeof pats[n] - (size_t)len - 1, len % 2 ? "/:v" : "/*v");
        routes[n] = (route_spec){RB_GET, p};
        n++;
        p = pats[n];
        p[0] = '/';
        for (int i = 0; i < len; i++) p[1 + i] = (char)('a' + i % 3);
        p[1 + len] = '\0';
        routes[n] = (route_spec){len % 3 ? RB_GET : RB_POST, p};
        n++;
    }
    for (int v = 0; v < NVARIANTS; v++) {
        rb_router *r, *l;
        build_pair_ops(variants[v], routes, n, &r, &l);
        char path[64];
        for (int len = 0; len <= 45; len++) {
            path[0] = '/';
            for (int i = 1; i < len; i++) path[i] = (char)('a' + (i - 1) % 3);
            expect_same_all_methods(r, l, path, (size_t)len);
            for (int at = 1; at < len; at++) { /* one wrong byte anywhere */
                char keep = path[at];
                path[at] = at % 2 ? 'z' : '/';
                expect_same_n(r, l, RB_GET, path, (size_t)len);
                path[at] = keep;
            }
            /* and a param segment after it of every length up to 20 */
            for (int p = 0; p <= 20 && len + 1 + p < (int)sizeof path; p++) {
                path[len] = '/';
                for (int i = 0; i < p; i++) path[len + 1 + i] = (char)('0' + i % 10);
                expect_same_n(r, l, RB_GET, path, (size_t)(len + 1 + p));
            }
        }
        rb_router_destroy(r);
        rb_router_destroy(l);
    }
}

Test(radix, nul_and_high_bytes_in_paths_are_plain_bytes)
{
    static const route_spec routes[] = {
        {RB_GET, "/a"},
        {RB_GET, "/a/:x"},
        {RB_GET, "/\xc3\xa9t\xc3\xa9"},
        {RB_GET, "/b/*rest"},
    };
    const char paths[][8] = {"/a\0", "/a/\0", "/a/\0b", "/\xc3\xa9t\xc3\xa9", "/b/\0", "/\0a"};
    const size_t lens[] = {3, 4, 5, 6, 4, 3};
    for (int v = 0; v < NVARIANTS; v++) {
        rb_router *r, *l;
        build_pair_ops(variants[v], routes, 4, &r, &l);
        for (size_t i = 0; i < 6; i++) expect_same_all_methods(r, l, paths[i], lens[i]);
        rb_router_destroy(r);
        rb_router_destroy(l);
    }
}

Test(radix, a_node_with_hundreds_of_static_children)
{
    /* More first bytes than any inline key word holds: the keys[] scan
     * (every byte a pattern may hold: no space, control byte or DEL). */
    static char pats[256][8];
    route_spec routes[256];
    size_t n = 0;
    for (int c = 0x21; c < 256; c++) {
        if (c == '/' || c == ':' || c == '*' || c == '{' || c == '}' || c == '?' || c == '[' ||
            c == 0x7f)
            continue;
        snprintf(pats[n], sizeof pats[n], "/x/%c%c", (char)c, (char)(c % 2 ? 'q' : '/'));
        routes[n] = (route_spec){RB_GET, pats[n]};
        n++;
    }
    routes[n++] = (route_spec){RB_GET, "/x/:id"};
    for (int v = 0; v < NVARIANTS; v++) {
        rb_router *r, *l;
        build_pair_ops(variants[v], routes, n, &r, &l);
        char path[8] = "/x/";
        for (int c = 0; c < 256; c++) {
            path[3] = (char)c;
            for (int t = 0; t < 3; t++) {
                path[4] = "q/z"[t];
                expect_same_n(r, l, RB_GET, path, 5);
                expect_same_n(r, l, RB_GET, path, 4);
            }
        }
        rb_router_destroy(r);
        rb_router_destroy(l);
    }
    void *impl = direct_create(NULL);
    rb_error err;
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(direct_add(impl, RB_GET, routes[i].pattern, (uint32_t)i, &err), RB_OK);
    cr_assert_eq(rb__radix_ops.build(impl, &err), RB_OK);
    expect_valid(impl);
    rb__radix_ops.destroy(impl);
}

/* ---- random route sets against linear --------------------------------------- */

static const char *const words[] = {"a",
                                    "b",
                                    "ab",
                                    "abc",
                                    "u",
                                    "user",
                                    "users",
                                    "username",
                                    "",
                                    "me",
                                    "x",
                                    "aaaaaaaaaa",
                                    "userspace-long-name"};
#define NWORDS (sizeof words / sizeof words[0])

/* A random pattern: 1-5 segments of static words, params, a final
 * catch-all. */
static void random_pattern(rng *g, char *out, size_t cap)
{
    unsigned nseg = 1 + rng_below(g, 5);
    size_t n = 0;
    for (unsigned s = 0; s < nseg; s++) {
        unsigned k = rng_below(g, 10);
        if (k < 6)
            n += (size_t)snprintf(out + n, cap - n, "/%s", words[rng_below(g, NWORDS)]);
        else if (k < 9 || s + 1 < nseg)
            n += (size_t)snprintf(out + n, cap - n, "/:p%u", s);
        else
            n += (size_t)snprintf(out + n, cap - n, "/*rest");
    }
}

/* A path shaped like pattern pat (params and the catch-all filled with
 * words, some of which are also static words), possibly mutated. */
static size_t random_path(rng *g, const char *pat, char *out, size_t cap)
{
    size_t n = 0;
    for (const char *s = pat; *s;) {
        const char *e = strchr(s + 1, '/');
        size_t seglen = e ? (size_t)(e - s) : strlen(s);
        if (s[1] == ':') {
            n += (size_t)snprintf(out + n, cap - n, "/%s", words[rng_below(g, NWORDS)]);
        } else if (s[1] == '*') {
            unsigned k = 1 + rng_below(g, 3);
            for (unsigned i = 0; i < k; i++)
                n += (size_t)snprintf(out + n, cap - n, "/%s", words[rng_below(g, NWORDS)]);
        } else {
            n += (size_t)snprintf(out + n, cap - n, "%.*s", (int)seglen, s);
        }
        s += seglen;
    }
    switch (rng_below(g, 8)) {
    case 0:
        n += (size_t)snprintf(out + n, cap - n, "/");
        break;
    case 1:
        while (n > 1 && out[n - 1] != '/') n--;
        if (n > 1) n--;
        break;
    case 2:
        n += (size_t)snprintf(out + n, cap - n, "/%s", words[rng_below(g, NWORDS)]);
        break;
    case 3:
        if (n > 1) out[1 + rng_below(g, (unsigned)n - 1)] = 'z';
        break;
    default:
        break;
    }
    return n;
}

Test(radix, random_route_sets_agree_with_linear)
{
    static const int methods[] = {RB_GET, RB_GET, RB_POST, RB_PUT, RB_ANY};
    for (uint64_t seed = 1; seed <= 150; seed++) {
        rng g = {seed};
        static char pats[40][160];
        route_spec routes[40];
        size_t n = 4 + rng_below(&g, 36);
        for (size_t i = 0; i < n; i++) {
            random_pattern(&g, pats[i], sizeof pats[i]);
            routes[i] = (route_spec){methods[rng_below(&g, 5)], pats[i]};
        }
        rb_router *r, *l, *p, *l2;
        build_pair(routes, n, &r, &l);
        build_pair_ops(&rb__radix_portable_ops, routes, n, &p, &l2);

        void *impl = direct_create(NULL);
        rb_error err;
        for (size_t i = 0; i < n; i++) {
            int rc = direct_add(impl, routes[i].method, routes[i].pattern, (uint32_t)i, &err);
            cr_assert(rc == RB_OK || rc == RB_EDUPLICATE, "seed %llu: add %s: %s",
                      (unsigned long long)seed, routes[i].pattern, err.message);
            expect_valid(impl);
        }
        cr_assert_eq(rb__radix_ops.build(impl, &err), RB_OK);
        expect_valid(impl);
        rb__radix_ops.destroy(impl);

        for (int k = 0; k < 100; k++) {
            char path[400];
            size_t len =
                random_path(&g, routes[rng_below(&g, (unsigned)n)].pattern, path, sizeof path);
            for (int m = 0; m < 4; m++) {
                expect_same_n(r, l, m, path, len);
                expect_same_n(p, l, m, path, len);
            }
        }
        rb_router_destroy(r);
        rb_router_destroy(l);
        rb_router_destroy(p);
        rb_router_destroy(l2);
    }
}

Test(radix, the_github_table_agrees_with_linear_on_every_request)
{
    rb_route_table t;
    rb_request_table q;
    rb_error err;
    cr_assert_eq(rb_route_table_read(RB_SOURCE_DIR "/corpus/data/github.routes", &t, &err), RB_OK,
                 "%s", err.message);
    cr_assert_eq(rb_request_table_read(RB_SOURCE_DIR "/corpus/data/github.requests", &q, &err),
                 RB_OK, "%s", err.message);
    rb_router *l;
    cr_assert_eq(
        rb_route_table_build_router(&t, "github", rb_registry_find("linear"), NULL, &l, &err),
        RB_OK);
    for (int v = 0; v < NVARIANTS; v++) {
        rb_router *r;
        cr_assert_eq(rb_route_table_build_router(&t, "github", variants[v], NULL, &r, &err), RB_OK);
        for (size_t i = 0; i < q.count; i++) {
            rb_match m;
            rbt_lookup_exact(r, q.reqs[i].method, rb_request_path(&q, i), q.reqs[i].len, &m);
            cr_assert(rb_match_expected(&m, q.reqs[i].expected), "request line %zu",
                      q.reqs[i].line);
            expect_same_n(r, l, q.reqs[i].method, rb_request_path(&q, i), q.reqs[i].len);
        }
        rb_router_destroy(r);
    }
    rb_router_destroy(l);
    rb_route_table_free(&t);
    rb_request_table_free(&q);
}

/* ---- memory and failures ---------------------------------------------------- */

Test(radix, memory_grows_with_routes)
{
    size_t sizes[] = {10, 100, 1000};
    size_t prev = 0;
    for (size_t s = 0; s < 3; s++) {
        rb_router *r = new_router("radix", NULL);
        size_t before = rb_router_memory(r), last = before;
        for (size_t i = 0; i < sizes[s]; i++) {
            char pat[64];
            snprintf(pat, sizeof pat, "/r%zu/:id/item%zu", i * 7919 % 1000, i);
            rb_error err;
            cr_assert_eq(rb_router_add(r, RB_GET, pat, strlen(pat), (uint32_t)i, &err), RB_OK);
            size_t now = rb_router_memory(r);
            cr_assert_geq(now, last, "memory shrank while adding");
            last = now;
        }
        cr_assert_gt(last, before);
        rb_error err;
        cr_assert_eq(rb_router_build(r, &err), RB_OK);
        size_t built = rb_router_memory(r);
        /* every route has its own terminal node and route table */
        cr_assert_geq(built, sizes[s] * 40, "%zu routes in %zu bytes", sizes[s], built);
        cr_assert_gt(built, prev);
        prev = built;
        rb_router_destroy(r);
    }
}

Test(radix, refused_adds_leave_the_router_unchanged)
{
    static const route_spec good[] = {
        {RB_GET, "/a/:x"}, {RB_POST, "/a/:x"}, {RB_GET, "/a/b/*rest"},
        {RB_ANY, "/c"},    {RB_GET, "/d/:e"},
    };
    /* duplicate shape, glob (unsupported), malformed, '**', duplicates */
    static const route_spec bad[] = {
        {RB_GET, "/a/:y"}, {RB_GET, "/a/*.png"}, {RB_GET, "/a/{x"},         {RB_GET, "/**"},
        {RB_ANY, "/c"},    {RB_POST, "/a/{z}"},  {RB_GET, "/a/b/{*other}"},
    };
    static const int want[] = {RB_EDUPLICATE, RB_EUNSUPPORTED, RB_EPATTERN,  RB_EUNSUPPORTED,
                               RB_EDUPLICATE, RB_EDUPLICATE,   RB_EDUPLICATE};
    rb_router *with = new_router("radix", NULL), *without = new_router("radix", NULL);
    rb_error err;
    for (size_t i = 0; i < 5; i++) {
        size_t len = strlen(good[i].pattern);
        cr_assert_eq(rb_router_add(with, good[i].method, good[i].pattern, len, (uint32_t)i, &err),
                     RB_OK);
        cr_assert_eq(
            rb_router_add(without, good[i].method, good[i].pattern, len, (uint32_t)i, &err), RB_OK);
        if (i != 3) continue;
        /* refusals in the middle, then one more good route */
        for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
            int rc = rb_router_add(with, bad[k].method, bad[k].pattern, strlen(bad[k].pattern),
                                   100 + (uint32_t)k, &err);
            cr_assert_eq(rc, want[k], "%s: %d", bad[k].pattern, rc);
        }
    }
    cr_assert_eq(rb_router_count(with), 5);
    cr_assert_eq(rb_router_build(with, &err), RB_OK);
    cr_assert_eq(rb_router_build(without, &err), RB_OK);
    const char *paths[] = {"/a/q",     "/a/b", "/a/b/c", "/a/b/c/d", "/c",
                           "/a/x.png", "/",    "/a",     "/d/1",     "/d/"};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
        expect_same_all_methods(with, without, paths[i], strlen(paths[i]));
    rb_router_destroy(with);
    rb_router_destroy(without);
}

static const route_spec alloc_routes[] = {
    {RB_GET, "/users"},
    {RB_GET, "/users/:id"},
    {RB_GET, "/users/me"},
    {RB_POST, "/users/:id/posts"},
    {RB_GET, "/static/{*path}"},
    {RB_GET, "/user"},
    {RB_GET, "/username"},
    {RB_ANY, "/u"},
    {RB_PUT, "/users/:id"},
    {RB_GET, "/a/b/c/d/e/f/g"},
    {RB_GET, "/a/:b/c/:d/e"},
    {RB_GET, "/"},
    {RB_GET, "/x/"},
    {RB_GET, "/x//y"},
    {RB_DELETE, "/users/me/*rest"},
};
#define NALLOC_ROUTES (sizeof alloc_routes / sizeof *alloc_routes)

static const char *const alloc_paths[] = {
    "/users", "/users/7",  "/users/me", "/users/7/posts", "/static/a/b",
    "/user",  "/username", "/u",        "/a/b/c/d/e/f/g", "/a/1/c/2/e",
    "/",      "/x/",       "/x//y",     "/users/me/z",    "/nope",
};

static void expect_same_as_reference(const rb_router *r, const rb_router *ref)
{
    for (size_t i = 0; i < sizeof alloc_paths / sizeof *alloc_paths; i++)
        expect_same_all_methods(r, ref, alloc_paths[i], strlen(alloc_paths[i]));
}

Test(radix, every_failing_allocation_through_the_api_is_enomem_without_leaks)
{
    rb_router *ref, *lin;
    build_pair(alloc_routes, NALLOC_ROUTES, &ref, &lin);
    size_t n;
    for (n = 1;; n++) {
        rbt_failing_allocator f;
        rbt_failing_allocator_init(&f, n);
        rb_config cfg = {&f.base, 0};
        rb_router *r = NULL;
        rb_error err;
        size_t enomem = 0;
        int rc = rb_router_create("radix", &cfg, &r, &err);
        if (rc == RB_ENOMEM) {
            cr_assert_null(r);
            cr_assert_eq(f.live_blocks, 0, "N=%zu: create leaked", n);
            enomem++;
            rc = rb_router_create("radix", &cfg, &r, &err);
        }
        cr_assert_eq(rc, RB_OK);
        for (size_t i = 0; i < NALLOC_ROUTES; i++) {
            const route_spec *s = &alloc_routes[i];
            rc = rb_router_add(r, s->method, s->pattern, strlen(s->pattern), (uint32_t)i, &err);
            if (rc == RB_ENOMEM) { /* the failure happened once: the retry must work */
                enomem++;
                rc = rb_router_add(r, s->method, s->pattern, strlen(s->pattern), (uint32_t)i, &err);
            }
            cr_assert_eq(rc, RB_OK, "N=%zu route %zu: %s", n, i, err.message);
        }
        rc = rb_router_build(r, &err);
        if (rc == RB_ENOMEM) {
            enomem++;
            rc = rb_router_build(r, &err);
        }
        cr_assert_eq(rc, RB_OK, "N=%zu build: %s", n, err.message);
        cr_assert_eq(rb_router_count(r), NALLOC_ROUTES);
        /* a failed call is reported, never swallowed */
        cr_assert_eq(enomem, f.failed, "N=%zu: %zu failures, %zu ENOMEM", n, f.failed, enomem);
        expect_same_as_reference(r, ref);
        rb_router_destroy(r);
        cr_assert_eq(f.live_blocks, 0, "N=%zu: %zu blocks leaked", n, f.live_blocks);
        cr_assert_eq(f.live_bytes, 0);
        if (f.calls < n) break; /* this run never reached call n: all covered */
        cr_assert_eq(f.failed, 1);
        cr_assert_eq(enomem, 1);
    }
    cr_assert_gt(n, 20, "only %zu allocation calls seen", n);
    rb_router_destroy(ref);
    rb_router_destroy(lin);
}

Test(radix, every_failing_allocation_in_add_or_build_leaves_a_valid_tree)
{
    rb_router *ref, *lin;
    build_pair(alloc_routes, NALLOC_ROUTES, &ref, &lin);
    size_t n, enomem_seen = 0;
    for (n = 1;; n++) {
        rbt_failing_allocator f;
        rbt_failing_allocator_init(&f, n);
        rb_config cfg = {&f.base, 0};
        void *impl;
        rb_error err;
        int rc = rb__radix_ops.create(&cfg, &impl, &err);
        if (rc == RB_ENOMEM) {
            cr_assert_eq(f.live_blocks, 0, "N=%zu: create leaked", n);
            enomem_seen++;
            continue;
        }
        for (size_t i = 0; i < NALLOC_ROUTES; i++) {
            const route_spec *s = &alloc_routes[i];
            rc = direct_add(impl, s->method, s->pattern, (uint32_t)i, &err);
            if (rc == RB_ENOMEM) {
                enomem_seen++;
                expect_valid(impl); /* unchanged: still a valid tree of routes 0..i-1 */
                rc = direct_add(impl, s->method, s->pattern, (uint32_t)i, &err);
            }
            cr_assert_eq(rc, RB_OK, "N=%zu route %zu: %s", n, i, err.message);
        }
        rc = rb__radix_ops.build(impl, &err);
        if (rc == RB_ENOMEM) {
            enomem_seen++;
            expect_valid(impl);
            rc = rb__radix_ops.build(impl, &err);
        }
        cr_assert_eq(rc, RB_OK, "N=%zu build: %s", n, err.message);
        size_t used = f.calls;
        f.fail_at = 0; /* the check below allocates too */
        expect_valid(impl);
        for (size_t i = 0; i < sizeof alloc_paths / sizeof *alloc_paths; i++) {
            for (int m = 0; m < RB_METHOD_COUNT; m++) {
                rb_match x, y;
                rb__radix_ops.lookup(impl, m, alloc_paths[i], strlen(alloc_paths[i]), &x);
                rb_router_lookup(ref, m, alloc_paths[i], strlen(alloc_paths[i]), &y);
                cr_assert(rb_match_equal(&x, &y), "N=%zu: %s differs", n, alloc_paths[i]);
            }
        }
        rb__radix_ops.destroy(impl);
        cr_assert_eq(f.live_blocks, 0, "N=%zu: %zu blocks leaked", n, f.live_blocks);
        if (used < n) break;
    }
    /* every call before the last run failed exactly once, and said so */
    cr_assert_eq(enomem_seen, n - 1, "%zu ENOMEM for %zu failing calls", enomem_seen, n - 1);
    rb_router_destroy(ref);
    rb_router_destroy(lin);
}

/* ---- regressions (numbered project-wide: tests/README.md) -------------------- */

/* Regression 1.  path_word formed path + (len - 8) in size_t for paths shorter than 8
 *    bytes: a pointer overflow (UB) caught by clang's UBSan in
 *    fuzz_differential.  Short paths on both variants; this fails under a
 *    clang -DRB_SANITIZE=ON build (GCC's UBSan does not flag it). */
Test(radix, regression_1_short_paths_do_not_overflow_the_path_pointer)
{
    static const route_spec routes[] = {
        {RB_GET, "/"}, {RB_GET, "/a"}, {RB_GET, "/ab/:x"}, {RB_GET, "/:y"}, {RB_GET, "/c/*z"},
    };
    const char *paths[] = {"/", "/a", "/ab", "/ab/", "/ab/c", "/abcde", "/c/d", "/c//", "/abcdef"};
    for (int v = 0; v < NVARIANTS; v++) {
        rb_router *r, *l;
        build_pair_ops(variants[v], routes, sizeof routes / sizeof *routes, &r, &l);
        for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
            expect_same_all_methods(r, l, paths[i], strlen(paths[i]));
        rb_router_destroy(r);
        rb_router_destroy(l);
    }
}
