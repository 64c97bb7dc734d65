/*
 * test_hashseg.c — the hashseg router against linear (the oracle), its
 * invariants (its ops table's check), and its defences: forced hash collisions,
 * bounded probe sequences, no reads past the end of the path, clean
 * failure when memory runs out.
 *
 * Built twice: test_hashseg (the library's hashseg) and test_hashseg_portable
 * (a copy compiled with the portable byte scans, RB_PORTABLE).
 *
 * Most tests drive hashseg through its ops table, so that they can reach
 * the implementation for the hooks of hashseg.h, and linear through the
 * public API; every answer is compared field by field (rb_match_equal).
 */
#ifdef RB_TEST_PORTABLE
/* test_hashseg_portable: the same tests on a copy of hashseg built with the
 * portable byte scans (bytescan.h), under names of its own */
#define RB_PORTABLE                1
#define rb__hashseg_ops            rb__hashseg_portable_ops
#define rb__hashseg_lookup_counted rb__hashseg_portable_lookup_counted
#define rb__hashseg_set_hash_bits  rb__hashseg_portable_set_hash_bits
#define rb__hashseg_max_probe      rb__hashseg_portable_max_probe
#define rb__hashseg_node_count     rb__hashseg_portable_node_count
#define rb__hashseg_seed           rb__hashseg_portable_seed
#include "../routers/hashseg.c"
#else
#include "hashseg.h"
#endif
#include "rb_test.h"
#include "shipped.h"
#include "rng.h"
#include "router.h"
#include "router_impl.h"
#include "table.h"
#include "verify.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a hashseg implementation and linear, fed the same routes ----------- */

typedef struct pair {
    void *hs;
    rb_router *lin;
    rb_config cfg;
} pair;

static void pair_new(pair *p, uint64_t seed, unsigned hash_bits)
{
    rb_error err;
    p->cfg = (rb_config){rb__default_allocator(), seed};
    cr_assert_eq(rb__hashseg_ops.create(&p->cfg, &p->hs, &err), RB_OK);
    cr_assert_eq(rb__hashseg_set_hash_bits(p->hs, hash_bits), RB_OK);
    cr_assert_eq(rb_router_create("linear", NULL, &p->lin, &err), RB_OK);
}

static void pair_free(pair *p)
{
    rb__hashseg_ops.destroy(p->hs);
    rb_router_destroy(p->lin);
}

/* Add to both; a route linear refuses (a duplicate) is skipped.  Returns
 * whether it was added. */
static bool pair_add(pair *p, int method, const char *pattern, uint32_t id)
{
    rb_error err;
    size_t len = strlen(pattern);
    if (rb_router_add(p->lin, method, pattern, len, id, &err) < 0) {
        cr_assert_eq(err.code, RB_EDUPLICATE, "%s: %s", pattern, err.message);
        return false;
    }
    rb_pattern pat;
    cr_assert_eq(rb_pattern_parse(pattern, len, NULL, &pat, &err), RB_OK);
    rb_route route = {method, id, &pat};
    int rc = rb__hashseg_ops.add(p->hs, &route, &err);
    rb_pattern_free(&pat);
    cr_assert_eq(rc, RB_OK, "%s: %s", pattern, err.message);
    return true;
}

static void pair_build(pair *p)
{
    rb_error err;
    cr_assert_eq(rb__hashseg_ops.build(p->hs, &err), RB_OK, "%s", err.message);
    cr_assert_eq(rb_router_build(p->lin, &err), RB_OK);
    cr_assert_eq(rb__hashseg_ops.check(p->hs, &err), RB_OK, "invariant: %s", err.message);
}

/* Look path up in both; they must agree.  Returns hashseg's answer. */
static rb_match pair_lookup_n(const pair *p, int method, const char *path, size_t len)
{
    rb_match got, want;
    rb__hashseg_ops.lookup(p->hs, method, path, len, &got);
    rb_router_lookup(p->lin, method, path, len, &want);
    rbt_expect_same_match("hashseg", method, path, len, &got, &want);
    return got;
}

static rb_match pair_lookup(const pair *p, int method, const char *path)
{
    return pair_lookup_n(p, method, path, strlen(path));
}

static void expect_found(const pair *p, int method, const char *path, uint32_t id)
{
    rb_match m = pair_lookup(p, method, path);
    cr_assert_eq(m.outcome, RB_FOUND, "%s %s", rb_method_name(method), path);
    cr_assert_eq(m.route_id, id, "%s %s: route %u, want %u", rb_method_name(method), path,
                 m.route_id, id);
}

static void expect_span(const rb_match *m, uint32_t i, const char *path, const char *text)
{
    cr_assert_gt(m->nparams, i);
    cr_assert_eq(m->params[i].len, strlen(text));
    cr_assert_eq(memcmp(path + m->params[i].offset, text, strlen(text)), 0, "capture %u of %s", i,
                 path);
}

/* ---- the shared example and the priority rules -------------------------- */

static void add_example(pair *p)
{
    pair_add(p, RB_GET, "/users", 0);
    pair_add(p, RB_GET, "/users/:id", 1);
    pair_add(p, RB_GET, "/users/me", 2);
    pair_add(p, RB_POST, "/users/:id/posts", 3);
    pair_add(p, RB_GET, "/static/{*path}", 4);
}

Test(hashseg, example_route_set)
{
    pair p;
    pair_new(&p, 0, 64);
    add_example(&p);
    pair_build(&p);
    expect_found(&p, RB_GET, "/users", 0);
    expect_found(&p, RB_GET, "/users/me", 2);
    rb_match m = pair_lookup(&p, RB_GET, "/users/7");
    cr_assert_eq(m.route_id, 1);
    expect_span(&m, 0, "/users/7", "7");
    m = pair_lookup(&p, RB_PUT, "/users/7");
    cr_assert_eq(m.outcome, RB_METHOD_NOT_ALLOWED);
    cr_assert_eq(m.allowed, RB_METHOD_BIT(RB_GET));
    m = pair_lookup(&p, RB_POST, "/users/me/posts");
    cr_assert_eq(m.route_id, 3);
    expect_span(&m, 0, "/users/me/posts", "me");
    m = pair_lookup(&p, RB_GET, "/static/css/a.css");
    cr_assert_eq(m.route_id, 4);
    expect_span(&m, 0, "/static/css/a.css", "css/a.css");
    cr_assert_eq(pair_lookup(&p, RB_GET, "/static/").outcome, RB_NOT_FOUND);
    cr_assert_eq(pair_lookup(&p, RB_GET, "/static").outcome, RB_NOT_FOUND);
    cr_assert_eq(pair_lookup(&p, RB_GET, "").outcome, RB_NOT_FOUND);
    cr_assert_eq(pair_lookup(&p, RB_GET, "users").outcome, RB_NOT_FOUND);
    pair_free(&p);
}

/* A static route ranks first, but only among routes whose method fits:
 * when its methods do not fit, a param or catch-all route that fits wins,
 * and the 405 mask holds the methods of every matching route. */
Test(hashseg, static_route_method_falls_through)
{
    pair p;
    pair_new(&p, 0, 64);
    pair_add(&p, RB_GET, "/a/b", 0);   /* static, node pruned from the tree */
    pair_add(&p, RB_POST, "/a/:x", 1); /* its param sibling */
    pair_add(&p, RB_GET, "/k/s", 2);   /* static, node kept (param below) */
    pair_add(&p, RB_GET, "/k/s/:id", 3);
    pair_add(&p, RB_PUT, "/k/:p", 4);
    pair_add(&p, RB_GET, "/c/d", 5);
    pair_add(&p, RB_ANY, "/c/{*rest}", 6);
    pair_add(&p, RB_ANY, "/s/t", 7); /* "*" static beats a GET param route */
    pair_add(&p, RB_GET, "/s/:x", 8);
    pair_add(&p, RB_DELETE, "/only/static", 9);
    pair_build(&p);

    expect_found(&p, RB_GET, "/a/b", 0);
    rb_match m = pair_lookup(&p, RB_POST, "/a/b");
    cr_assert_eq(m.route_id, 1);
    expect_span(&m, 0, "/a/b", "b");
    m = pair_lookup(&p, RB_PATCH, "/a/b");
    cr_assert_eq(m.outcome, RB_METHOD_NOT_ALLOWED);
    cr_assert_eq(m.allowed, RB_METHOD_BIT(RB_GET) | RB_METHOD_BIT(RB_POST));

    expect_found(&p, RB_GET, "/k/s", 2);
    expect_found(&p, RB_PUT, "/k/s", 4);
    m = pair_lookup(&p, RB_DELETE, "/k/s");
    cr_assert_eq(m.allowed, RB_METHOD_BIT(RB_GET) | RB_METHOD_BIT(RB_PUT));

    expect_found(&p, RB_GET, "/c/d", 5);
    m = pair_lookup(&p, RB_PUT, "/c/d");
    cr_assert_eq(m.route_id, 6);
    expect_span(&m, 0, "/c/d", "d");

    expect_found(&p, RB_GET, "/s/t", 7);
    expect_found(&p, RB_GET, "/s/u", 8);

    m = pair_lookup(&p, RB_GET, "/only/static");
    cr_assert_eq(m.outcome, RB_METHOD_NOT_ALLOWED);
    cr_assert_eq(m.allowed, RB_METHOD_BIT(RB_DELETE));
    pair_free(&p);
}

/* Static routes live only in the whole-path table: the tree holds the
 * routes with a param or a catch-all and their prefixes. */
Test(hashseg, static_routes_stay_out_of_the_tree)
{
    pair p;
    pair_new(&p, 0, 64);
    pair_add(&p, RB_GET, "/a/b/c", 0);
    pair_add(&p, RB_POST, "/a/b/c", 1);
    pair_add(&p, RB_GET, "/a/b", 2);
    pair_add(&p, RB_GET, "/", 3);
    pair_build(&p);
    cr_assert_eq(rb__hashseg_node_count(p.hs), 1); /* the root alone */
    expect_found(&p, RB_POST, "/a/b/c", 1);
    cr_assert_eq(pair_lookup(&p, RB_PUT, "/a/b/c").allowed,
                 RB_METHOD_BIT(RB_GET) | RB_METHOD_BIT(RB_POST));
    pair_free(&p);

    pair_new(&p, 0, 64);
    pair_add(&p, RB_GET, "/a/b/c", 0);
    pair_add(&p, RB_GET, "/a/:x", 1); /* root, "a", {} */
    pair_build(&p);
    cr_assert_eq(rb__hashseg_node_count(p.hs), 3);
    pair_free(&p);
}

/* Over HASHSEG_FILTER_FROM (128) static paths and a tree, lookups test
 * full[]'s filter (length and last 8 bytes) before its probe: every static
 * path still wins (short ones, under 8 bytes, too), the param routes
 * beside them (same lengths, same last bytes) still walk, misses miss,
 * and check() holds the filter to every static path. */
Test(hashseg, static_paths_through_the_filter)
{
    pair p;
    pair_new(&p, 7, 64);
    char path[64];
    uint32_t id = 0;
    for (unsigned i = 0; i < 300; i++) {
        snprintf(path, sizeof path, "/s%u/items", i);
        pair_add(&p, RB_GET, path, id++);
        snprintf(path, sizeof path, "/%x", i); /* short paths: the last byte alone */
        pair_add(&p, RB_POST, path, id++);
    }
    pair_add(&p, RB_GET, "/s/:id/items", id++);
    pair_add(&p, RB_GET, "/:a/:b", id++);
    pair_build(&p);
    for (unsigned i = 0; i < 300; i++) {
        snprintf(path, sizeof path, "/s%u/items", i);
        expect_found(&p, RB_GET, path, 2 * i);
        pair_lookup(&p, RB_PUT, path); /* 405 GET */
        snprintf(path, sizeof path, "/%x", i);
        expect_found(&p, RB_POST, path, 2 * i + 1);
        pair_lookup(&p, RB_GET, path);
        snprintf(path, sizeof path, "/s/%u/items", i); /* the param route */
        expect_found(&p, RB_GET, path, 600);
        snprintf(path, sizeof path, "/s%u/itemz", i); /* misses */
        pair_lookup(&p, RB_GET, path);
        snprintf(path, sizeof path, "/x%u", i);
        pair_lookup(&p, RB_POST, path);
    }
    pair_free(&p);
}

/* Dead ends: the static branch matches a prefix, then fails; the walk must
 * back up and try the param branch. */
Test(hashseg, dead_end_backtracking)
{
    pair p;
    pair_new(&p, 0, 64);
    pair_add(&p, RB_GET, "/users/me/x", 0);
    pair_add(&p, RB_GET, "/users/:id/y", 1);
    pair_add(&p, RB_GET, "/a/b/c/d", 2);
    pair_add(&p, RB_GET, "/a/:x/c/e", 3);
    pair_add(&p, RB_GET, "/a/:x/:y/f", 4);
    pair_add(&p, RB_GET, "/:z/b/c/g", 5);
    pair_add(&p, RB_GET, "/users/{*rest}", 6);
    pair_build(&p);
    rb_match m = pair_lookup(&p, RB_GET, "/users/me/y");
    cr_assert_eq(m.route_id, 1);
    expect_span(&m, 0, "/users/me/y", "me");
    expect_found(&p, RB_GET, "/users/me/x", 0);
    expect_found(&p, RB_GET, "/a/b/c/d", 2);
    expect_found(&p, RB_GET, "/a/b/c/e", 3);
    expect_found(&p, RB_GET, "/a/b/c/f", 4);
    expect_found(&p, RB_GET, "/a/b/c/g", 5); /* three dead ends under /a first */
    cr_assert_eq(pair_lookup(&p, RB_GET, "/a/b/c/h").outcome, RB_NOT_FOUND);
    m = pair_lookup(&p, RB_GET, "/users/me/z"); /* both branches dead: the catch-all */
    cr_assert_eq(m.route_id, 6);
    expect_span(&m, 0, "/users/me/z", "me/z");
    pair_free(&p);
}

Test(hashseg, static_param_catchall_siblings)
{
    pair p;
    pair_new(&p, 0, 64);
    pair_add(&p, RB_GET, "/s/me", 0);
    pair_add(&p, RB_GET, "/s/:id", 1);
    pair_add(&p, RB_GET, "/s/{*rest}", 2);
    pair_add(&p, RB_GET, "/s/:id/more", 3);
    pair_add(&p, RB_POST, "/s/me/more", 4);
    pair_build(&p);
    expect_found(&p, RB_GET, "/s/me", 0);
    expect_found(&p, RB_GET, "/s/you", 1);
    expect_found(&p, RB_GET, "/s/a/b", 2);
    expect_found(&p, RB_GET, "/s/me/more", 3); /* POST route does not fit GET */
    expect_found(&p, RB_POST, "/s/me/more", 4);
    rb_match m = pair_lookup(&p, RB_PUT, "/s/me/more");
    cr_assert_eq(m.allowed, RB_METHOD_BIT(RB_GET) | RB_METHOD_BIT(RB_POST));
    cr_assert_eq(pair_lookup(&p, RB_GET, "/s/").outcome, RB_NOT_FOUND);
    expect_found(&p, RB_GET, "/s//", 2);
    expect_found(&p, RB_GET, "/s/me/", 2);
    pair_free(&p);
}

/* An empty segment is an ordinary segment with empty text. */
Test(hashseg, empty_segments_and_trailing_slash)
{
    pair p;
    pair_new(&p, 0, 64);
    pair_add(&p, RB_GET, "/", 0);
    pair_add(&p, RB_GET, "/e/", 1);
    pair_add(&p, RB_GET, "/e/:x", 2);
    pair_add(&p, RB_GET, "/e//f", 3);
    pair_add(&p, RB_GET, "/e/{*rest}", 4);
    pair_add(&p, RB_GET, "//", 5);
    pair_add(&p, RB_GET, "/t/:x/", 6);
    pair_add(&p, RB_GET, "/t/:x", 7);
    pair_build(&p);
    static const char *const paths[] = {
        "/",     "//",    "///",  "/e",    "/e/",  "/e/x", "/e//",   "/e//f",
        "/e//g", "/e/x/", "/t/a", "/t/a/", "/t//", "/t/",  "/t/a//", "/x/",
    };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        for (int meth = 0; meth < RB_METHOD_COUNT; meth++) pair_lookup(&p, meth, paths[i]);
    expect_found(&p, RB_GET, "/", 0);
    expect_found(&p, RB_GET, "/e/", 1);
    expect_found(&p, RB_GET, "/e//f", 3);
    expect_found(&p, RB_GET, "/e//g", 4);
    expect_found(&p, RB_GET, "//", 5);
    expect_found(&p, RB_GET, "/t/a/", 6);
    expect_found(&p, RB_GET, "/t/a", 7);
    cr_assert_eq(pair_lookup(&p, RB_GET, "/t//").outcome, RB_NOT_FOUND);
    pair_free(&p);
}

Test(hashseg, method_not_allowed_masks)
{
    pair p;
    pair_new(&p, 0, 64);
    pair_add(&p, RB_GET, "/m/:id", 0);
    pair_add(&p, RB_POST, "/m/new", 1);
    pair_add(&p, RB_DELETE, "/m/{*rest}", 2);
    pair_add(&p, RB_PATCH, "/m/:id", 3);
    pair_add(&p, RB_HEAD, "/m/new", 4);
    pair_add(&p, RB_ANY, "/n/:id", 5);
    pair_add(&p, RB_GET, "/n/x", 6);
    pair_build(&p);
    rb_match m = pair_lookup(&p, RB_PUT, "/m/new");
    cr_assert_eq(m.outcome, RB_METHOD_NOT_ALLOWED);
    cr_assert_eq(m.allowed, RB_METHOD_BIT(RB_GET) | RB_METHOD_BIT(RB_POST) |
                                RB_METHOD_BIT(RB_DELETE) | RB_METHOD_BIT(RB_PATCH) |
                                RB_METHOD_BIT(RB_HEAD));
    m = pair_lookup(&p, RB_PUT, "/m/7");
    cr_assert_eq(m.allowed,
                 RB_METHOD_BIT(RB_GET) | RB_METHOD_BIT(RB_DELETE) | RB_METHOD_BIT(RB_PATCH));
    expect_found(&p, RB_HEAD, "/m/new", 4);
    expect_found(&p, RB_PATCH, "/m/new", 3);
    expect_found(&p, RB_DELETE, "/m/new", 2);
    expect_found(&p, RB_PUT, "/n/x", 5);
    expect_found(&p, RB_GET, "/n/x", 6);
    for (int meth = 0; meth < RB_METHOD_COUNT; meth++) {
        pair_lookup(&p, meth, "/m/new/x");
        pair_lookup(&p, meth, "/n/y");
    }
    pair_free(&p);
}

/* ---- hashing: collisions, flooding, seeds -------------------------------- */

static const char *const collide_routes[] = {
    "/a",
    "/b",
    "/ab",
    "/a/b",
    "/a/:x",
    "/a/:x/b",
    "/a/:x/c",
    "/b/:y/b",
    "/c/{*r}",
    "/c/d",
    "/c/d/e",
    "/x/",
    "/x//",
    "/x/:p/",
    "/seg/aaaaaaaaaaaaaaaa",
    "/seg/aaaaaaaaaaaaaaab",
    "/seg/aaaaaaaaaaaaaaaaa",
    "/seg/aaaaaaaaaaaaaaaaaa/x",
    "/seg/:s/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "/seg/:s/aaaaaaaaaaaaaaaaaaaaaaaaaaaaab",
};

static const char *const collide_paths[] = {
    "/a",
    "/b",
    "/ab",
    "/ba",
    "/a/b",
    "/a/c",
    "/a/z",
    "/a/z/b",
    "/a/z/c",
    "/a/z/d",
    "/b/q/b",
    "/c/d",
    "/c/d/e",
    "/c/d/f",
    "/c/",
    "/x/",
    "/x//",
    "/x/p/",
    "/x/p",
    "/seg/aaaaaaaaaaaaaaaa",
    "/seg/aaaaaaaaaaaaaaab",
    "/seg/aaaaaaaaaaaaaaac",
    "/seg/aaaaaaaaaaaaaaaaa",
    "/seg/aaaaaaaaaaaaaaaaab",
    "/seg/aaaaaaaaaaaaaaaaaa/x",
    "/seg/aaaaaaaaaaaaaaaaaa/y",
    "/seg/q/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "/seg/q/aaaaaaaaaaaaaaaaaaaaaaaaaaaaab",
    "/seg/q/aaaaaaaaaaaaaaaaaaaaaaaaaaaaac",
    "/seg/q/aaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
};

/* With every hash narrowed to a few bits, unrelated keys share slots and
 * tags: only the byte comparison can tell them apart. */
Test(hashseg, forced_hash_collisions)
{
    for (unsigned bits = 0; bits <= 3; bits++) {
        pair p;
        pair_new(&p, 0, bits);
        for (size_t i = 0; i < sizeof collide_routes / sizeof collide_routes[0]; i++) {
            pair_add(&p, RB_GET, collide_routes[i], (uint32_t)(2 * i));
            pair_add(&p, RB_POST, collide_routes[i], (uint32_t)(2 * i + 1));
        }
        pair_build(&p);
        for (size_t i = 0; i < sizeof collide_paths / sizeof collide_paths[0]; i++) {
            pair_lookup(&p, RB_GET, collide_paths[i]);
            pair_lookup(&p, RB_POST, collide_paths[i]);
            pair_lookup(&p, RB_PUT, collide_paths[i]);
        }
        expect_found(&p, RB_POST, "/seg/aaaaaaaaaaaaaaab", 31);
        pair_free(&p);
    }
}

/* With every hash narrowed to 0 bits, the bytes alone tell static paths
 * apart: paths of every length from 1 to 48 bytes (under 4, 4 to 7, 8 to
 * 15, 16 to 32 and past 32 compare differently), each looked up as it is
 * and with one byte changed at every position, must agree with linear,
 * and a path with one route answers with that route's id (it is kept in
 * the entry itself) while a path with two still tells GET from POST. */
Test(hashseg, static_paths_of_every_length_told_apart_by_their_bytes)
{
    enum { LONGEST = 80, GROUP = 16 }; /* a group of paths: a probe sequence under the limit */
    for (unsigned bits = 0; bits <= 64; bits += 64) {
        for (size_t lo = 1; lo <= LONGEST; lo += GROUP) {
            pair p;
            pair_new(&p, 7, bits);
            char path[LONGEST + 1];
            for (size_t n = lo; n < lo + GROUP; n++) {
                path[0] = '/';
                for (size_t i = 1; i < n; i++) path[i] = (char)('a' + (n + i) % 26);
                path[n] = '\0';
                pair_add(&p, RB_GET, path, (uint32_t)(2 * n));
                if (n % 3 == 0) pair_add(&p, RB_POST, path, (uint32_t)(2 * n + 1));
            }
            pair_build(&p);
            for (size_t n = lo; n < lo + GROUP; n++) {
                path[0] = '/';
                for (size_t i = 1; i < n; i++) path[i] = (char)('a' + (n + i) % 26);
                path[n] = '\0';
                expect_found(&p, RB_GET, path, (uint32_t)(2 * n));
                if (n % 3 == 0) expect_found(&p, RB_POST, path, (uint32_t)(2 * n + 1));
                for (size_t i = 1; i < n; i++) {
                    char keep = path[i];
                    path[i] = '0';
                    rb_match m = pair_lookup_n(&p, RB_GET, path, n);
                    cr_assert_eq(m.outcome, RB_NOT_FOUND, "length %zu, byte %zu changed", n, i);
                    path[i] = keep;
                }
            }
            pair_free(&p);
        }
    }
}

/* Hash flooding: keys that all collide make a probe sequence longer than
 * the limit; build refuses (RB_ELIMIT) instead of accepting slow lookups,
 * and the router is left as it was (destroy frees everything). */
Test(hashseg, flooded_table_is_refused)
{
    rb_config cfg = {rb__default_allocator(), 0};
    void *hs;
    rb_error err;
    cr_assert_eq(rb__hashseg_ops.create(&cfg, &hs, &err), RB_OK);
    rb__hashseg_set_hash_bits(hs, 0);
    for (uint32_t i = 0; i < 2 * RB_HASHSEG_PROBE_LIMIT; i++) {
        char pat[32];
        snprintf(pat, sizeof pat, "/f/s%u", i);
        rb_pattern pp;
        cr_assert_eq(rb_pattern_parse(pat, strlen(pat), NULL, &pp, &err), RB_OK);
        rb_route route = {RB_GET, i, &pp};
        cr_assert_eq(rb__hashseg_ops.add(hs, &route, &err), RB_OK);
        rb_pattern_free(&pp);
    }
    cr_assert_eq(rb__hashseg_ops.build(hs, &err), RB_ELIMIT);
    cr_assert_eq(err.code, RB_ELIMIT);
    rb_match m;
    cr_assert_eq(rb__hashseg_ops.lookup(hs, RB_GET, "/f/s1", 5, &m), RB_NOT_FOUND);
    rb__hashseg_ops.destroy(hs);
}

/* Many segments that look alike: every lookup inspects at most
 * max_probe + 1 slots per probe, and max_probe stays within the limit. */
Test(hashseg, probes_stay_bounded_on_similar_segments)
{
    const uint64_t seeds[] = {0, 12345, 0xdeadbeefcafef00dull};
    for (size_t si = 0; si < 3; si++) {
        pair p;
        pair_new(&p, seeds[si], 64);
        char pat[64];
        uint32_t id = 0;
        for (uint32_t i = 0; i < 3000; i++) {
            snprintf(pat, sizeof pat, "/flood/aaaaaaaa%05u", i);
            pair_add(&p, RB_GET, pat, id++);
            snprintf(pat, sizeof pat, "/flood/aaaaaaaa%05u/:id/x", i);
            pair_add(&p, RB_GET, pat, id++);
        }
        pair_add(&p, RB_GET, "/flood/:id", id++);
        pair_build(&p);
        uint32_t maxp = rb__hashseg_max_probe(p.hs);
        cr_assert_leq(maxp, RB_HASHSEG_PROBE_LIMIT);
        uint64_t total = 0;
        for (uint32_t i = 0; i < 6000; i++) {
            char path[64];
            uint32_t v = i * 7919u % 10000u;
            int n = i % 3 == 0   ? snprintf(path, sizeof path, "/flood/aaaaaaaa%05u", v)
                    : i % 3 == 1 ? snprintf(path, sizeof path, "/flood/aaaaaaaa%05u/7/x", v)
                                 : snprintf(path, sizeof path, "/flood/aaaaaaab%05u/7/y", v);
            uint64_t probes = 0;
            rb_match m;
            rb__hashseg_lookup_counted(p.hs, RB_GET, path, (size_t)n, &m, &probes);
            /* one whole-path probe, then one per static edge tried (3 at most) */
            cr_assert_leq(probes, 4u * (maxp + 1u), "%s: %llu probes", path,
                          (unsigned long long)probes);
            total += probes;
            if (i % 16 == 0) pair_lookup_n(&p, RB_GET, path, (size_t)n);
        }
        cr_assert_lt(total, 6000u * 6u, "%llu probes for 6000 lookups", (unsigned long long)total);
        pair_free(&p);
    }
}

Test(hashseg, seeds_change_placement_not_answers)
{
    pair a, b;
    pair_new(&a, 1, 64);
    pair_new(&b, 0x9e3779b97f4a7c15ull, 64);
    add_example(&a);
    add_example(&b);
    pair_build(&a);
    pair_build(&b);
    const char *paths[] = {"/users", "/users/me", "/users/x", "/users/x/posts", "/static/a"};
    for (size_t i = 0; i < 5; i++) {
        rb_match ma = pair_lookup(&a, RB_GET, paths[i]);
        rb_match mb = pair_lookup(&b, RB_GET, paths[i]);
        cr_assert(rb_match_equal(&ma, &mb));
    }
    pair_free(&a);
    pair_free(&b);
}

/* ---- reading the path: never past its end -------------------------------- */

/* Every path length 0..300 (the three ways of reading a path: under 64
 * bytes, under 256, longer), the path copied into a block of exactly its
 * size and at the very end of a page-sized block, so that ASan reports any
 * read past the end; each answer is checked against linear. */
Test(hashseg, no_read_past_the_end_of_the_path)
{
    pair p;
    pair_new(&p, 0, 64);
    static const char *const routes[] = {
        "/",
        "/a",
        "/abcdefg",
        "/abcdefgh",
        "/abcdefghijklmno",
        "/abcdefghijklmnop",
        "/abcdefghijklmnopq",
        "/abcdefghijklmnopqrstuvwxyz0123456789",
        "/abcdefgh/:x",
        "/abcdefgh/:x/abcdefghijklmnop",
        "/abcdefgh/:x/abcdefghijklmnopqrstuvwxyz012345678",
        "/p/:x/:y/{*rest}",
        "/p/abcdefghijklmnopq/",
    };
    for (uint32_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
        pair_add(&p, RB_GET, routes[i], i);
    pair_build(&p);
    const char *fills[] = {
        "/abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789",
        "/abcdefgh/abcdefgh/abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrs",
        "/p/abcdefghijklmnopq/abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopq",
        "//////////////////////////////////////////////////////////////////////////",
        "/p/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r/s/t/u/v/w/x/y/z/0/1/2/3/4/5/6/7/8/9",
    };
    char *page = malloc(4096);
    cr_assert_not_null(page);
    for (size_t f = 0; f < sizeof fills / sizeof fills[0]; f++) {
        /* the fill repeated to 300 bytes */
        char fill[301];
        size_t flen = strlen(fills[f]);
        for (size_t i = 0; i < 300; i++) fill[i] = fills[f][i % flen];
        fill[300] = 0;
        for (size_t len = 0; len <= 300; len++) {
            char *exact = malloc(len ? len : 1);
            cr_assert_not_null(exact);
            memcpy(exact, fill, len);
            char *end = page + 4096 - len;
            memcpy(end, fill, len);
            for (int meth = RB_GET; meth <= RB_POST; meth += RB_POST) {
                rb_match a = pair_lookup_n(&p, meth, exact, len);
                rb_match b = pair_lookup_n(&p, meth, end, len);
                cr_assert(rb_match_equal(&a, &b));
            }
            free(exact);
        }
    }
    free(page);
    pair_free(&p);
}

/* Bytes next to a '/' are not slashes, in paths of every length: '.' and
 * '0' are one off '/', which a borrowing word-at-a-time test would take
 * for slashes right after a real one. */
Test(hashseg, bytes_next_to_a_slash_are_not_slashes)
{
    pair p;
    pair_new(&p, 0, 64);
    static const char *const routes[] = {"/a/:x", "/a/.b", "/a/0b", "/:y/.c",
                                         "/./.",  "/a/.",  "/0/:z", "/a/b/.d/:w"};
    for (uint32_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
        pair_add(&p, RB_GET, routes[i], i);
    pair_build(&p);
    static const char *const tails[] = {"/a/.b", "/a/.x",     "/a/0b", "/q/.c", "/./.", "/a/.",
                                        "/0/0",  "/a/b/.d/.", "/./0",  "/.",    "/0"};
    char path[128];
    for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++) {
        for (size_t pad = 0; pad < 70; pad++) {
            /* the same tail behind pad bytes of a first segment, so that the
             * '.'s fall at every place of the words and blocks read */
            int n = snprintf(path, sizeof path, "/%.*s%s", (int)pad,
                             "..0..0.0.0..00..0.0..0...0.0.0.0.0..0.0..00..0.0..0...0.0.0.0.0.00.",
                             tails[t]);
            pair_lookup_n(&p, RB_GET, path, (size_t)n);
            pair_lookup_n(&p, RB_GET, path + 1 + pad, strlen(tails[t]));
        }
    }
    expect_found(&p, RB_GET, "/a/.b", 1);
    expect_found(&p, RB_GET, "/a/.x", 0);
    expect_found(&p, RB_GET, "/./.", 4);
    pair_free(&p);
}

/* ---- failures ------------------------------------------------------------- */

static const char *const fail_routes[] = {
    "/users",
    "/users/:id",
    "/users/me",
    "/users/:id/posts",
    "/static/{*path}",
    "/",
    "/e/",
    "/e//f",
    "/long/abcdefghijklmnopqrstuvwxyz",
    "/long/:x/abcdefghijklmnopqrstuvwxyz/{*r}",
    "/a/b/c/d",
    "/a/:b/c/:d",
};

static const char *const fail_paths[] = {
    "/users",
    "/users/me",
    "/users/7",
    "/users/7/posts",
    "/static/x/y",
    "/",
    "/e/",
    "/e//f",
    "/long/abcdefghijklmnopqrstuvwxyz",
    "/long/q/abcdefghijklmnopqrstuvwxyz/r/s",
    "/a/b/c/d",
    "/a/x/c/y",
    "/nope",
};

/* Fail the Nth allocation, for every N across create, add and build: each
 * failure is RB_ENOMEM, the router is unchanged by it (the call succeeds
 * when retried and the answers are linear's), nothing leaks, and every
 * free names the size that was allocated. */
Test(hashseg, failing_allocator_every_allocation)
{
    rb_router *lin;
    rb_error err;
    cr_assert_eq(rb_router_create("linear", NULL, &lin, &err), RB_OK);
    size_t nroutes = sizeof fail_routes / sizeof fail_routes[0];
    for (size_t i = 0; i < nroutes; i++) {
        cr_assert_eq(rb_router_add(lin, (int)(i % 3 == 2 ? RB_ANY : i % 2), fail_routes[i],
                                   strlen(fail_routes[i]), (uint32_t)i, &err),
                     RB_OK);
    }
    cr_assert_eq(rb_router_build(lin, &err), RB_OK);

    for (size_t n = 1;; n++) {
        rbt_failing_allocator c;
        rbt_failing_allocator_init(&c, n);
        rb_config cfg = {&c.base, 0};
        rb_router *r = NULL;
        int rc = rb_router_create("hashseg", &cfg, &r, &err);
        if (rc < 0) {
            cr_assert_eq(rc, RB_ENOMEM);
            cr_assert_eq(c.live_blocks, 0);
            continue;
        }
        for (size_t i = 0; i < nroutes; i++) {
            int meth = (int)(i % 3 == 2 ? RB_ANY : i % 2);
            rc = rb_router_add(r, meth, fail_routes[i], strlen(fail_routes[i]), (uint32_t)i, &err);
            if (rc < 0) {
                cr_assert_eq(rc, RB_ENOMEM, "add %zu: %s", i, err.message);
                rc = rb_router_add(r, meth, fail_routes[i], strlen(fail_routes[i]), (uint32_t)i,
                                   &err);
            }
            cr_assert_eq(rc, RB_OK, "retried add %zu (N = %zu): %s", i, n, err.message);
        }
        rc = rb_router_build(r, &err);
        if (rc < 0) {
            cr_assert_eq(rc, RB_ENOMEM, "build: %s", err.message);
            rc = rb_router_build(r, &err);
        }
        cr_assert_eq(rc, RB_OK, "retried build (N = %zu): %s", n, err.message);
        for (size_t i = 0; i < sizeof fail_paths / sizeof fail_paths[0]; i++) {
            for (int meth = RB_GET; meth <= RB_HEAD; meth++) {
                rb_match got, want;
                rb_router_lookup(r, meth, fail_paths[i], strlen(fail_paths[i]), &got);
                rb_router_lookup(lin, meth, fail_paths[i], strlen(fail_paths[i]), &want);
                cr_assert(rb_match_equal(&got, &want), "N = %zu: %s", n, fail_paths[i]);
            }
        }
        rb_router_destroy(r);
        cr_assert_eq(c.live_blocks, 0, "N = %zu: %zu blocks leaked", n, c.live_blocks);
        cr_assert_eq(c.live_bytes, 0, "N = %zu: %zu bytes unaccounted", n, c.live_bytes);
        if (!c.failed) break; /* every allocation has been failed once */
    }
    rb_router_destroy(lin);
}

/* A failed add (unsupported, duplicate, malformed) changes nothing. */
Test(hashseg, failed_add_leaves_router_unchanged)
{
    rb_router *r, *lin;
    rb_error err;
    cr_assert_eq(rb_router_create("hashseg", NULL, &r, &err), RB_OK);
    cr_assert_eq(rb_router_create("linear", NULL, &lin, &err), RB_OK);
    const char *ok[] = {"/users", "/users/:id", "/files/{*p}"};
    for (uint32_t i = 0; i < 3; i++) {
        cr_assert_eq(rb_router_add(r, RB_GET, ok[i], strlen(ok[i]), i, &err), RB_OK);
        cr_assert_eq(rb_router_add(lin, RB_GET, ok[i], strlen(ok[i]), i, &err), RB_OK);
    }
    cr_assert_eq(rb_router_add(r, RB_GET, "/img/*.png", 10, 7, &err), RB_EUNSUPPORTED);
    cr_assert_eq(rb_router_add(r, RB_GET, "/users/:name", 12, 8, &err), RB_EDUPLICATE);
    cr_assert_eq(rb_router_add(r, RB_GET, "/users/{x", 9, 9, &err), RB_EPATTERN);
    cr_assert_eq(rb_router_count(r), 3);
    cr_assert_eq(rb_router_build(r, &err), RB_OK);
    cr_assert_eq(rb_router_build(lin, &err), RB_OK);
    cr_assert_eq(rb_router_add(r, RB_GET, "/late", 5, 9, &err), RB_ESTATE);
    const char *paths[] = {"/users", "/users/x", "/img/a.png", "/files/a/b", "/users/x/y"};
    for (size_t i = 0; i < 5; i++) {
        rb_match got, want;
        rb_router_lookup(r, RB_GET, paths[i], strlen(paths[i]), &got);
        rb_router_lookup(lin, RB_GET, paths[i], strlen(paths[i]), &want);
        cr_assert(rb_match_equal(&got, &want), "%s", paths[i]);
    }
    rb_router_destroy(r);
    rb_router_destroy(lin);
}

/* Deep patterns and long paths: the walk goes back through parent links
 * and the slash before the current segment, with the keys of the first 64
 * depths on its stack and deeper ones in deep_keys[]; paths of 64 to 255
 * bytes have a slash bitmap of several words, and longer ones are scanned
 * segment by segment. */
Test(hashseg, deep_patterns_and_long_paths)
{
    pair p;
    pair_new(&p, 0, 64);
    char pat[1024], path[1024];
    /* /a/a/.../a/:x/b (100 segments), /a/.../a/{*rest} (100), and the static one */
    size_t n = 0;
    for (int i = 0; i < 98; i++) n += (size_t)sprintf(pat + n, "/a");
    sprintf(pat + n, "/:x/b");
    pair_add(&p, RB_GET, pat, 0);
    sprintf(pat + n, "/a/{*rest}");
    pair_add(&p, RB_GET, pat, 1);
    sprintf(pat + n, "/a/a");
    pair_add(&p, RB_GET, pat, 2);
    sprintf(pat + n, "/a/:y/c");
    pair_add(&p, RB_POST, pat, 3);
    pair_add(&p, RB_GET, "/l/:x/abcdefghijklmnopqrstuvwxyz/:y/end", 4);
    pair_add(&p, RB_GET, "/l/abcdefghijklmnopqrstuvwxyz/:z/{*rest}", 5);
    pair_add(&p, RB_GET, "/l/abcdefghijklmnopqrstuvwxyz/x/abcdefghijklmnopqrstuvwxyz/end/x", 6);
    pair_add(&p, RB_GET, "/l/abcdefghijklmnopqrstuvwxyz/x/abcdefghijklmnopqrstuvwxyz/:w/zzz", 7);
    pair_build(&p);
    n = 0;
    for (int i = 0; i < 98; i++) n += (size_t)sprintf(path + n, "/a");
    const char *tails[] = {"/a/b", "/zz/b", "/a/a", "/a/c", "/a/a/a", "/a/q/c", "/a/q/b", "/a/"};
    for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++) {
        strcpy(path + n, tails[t]);
        pair_lookup(&p, RB_GET, path);
        pair_lookup(&p, RB_POST, path);
    }
    strcpy(path + n, "/a/b");
    expect_found(&p, RB_GET, path, 1); /* [.. 0 0 4] before [.. 0 1 0] */
    strcpy(path + n, "/z/b");
    expect_found(&p, RB_GET, path, 0);
    strcpy(path + n, "/a/q/c");
    expect_found(&p, RB_GET, path, 1); /* the POST route does not fit */
    /* over 256 bytes: the catch-all takes the rest; and going back from
     * deep inside to the param at depth 99 */
    size_t m = n;
    for (int i = 0; i < 40; i++) m += (size_t)sprintf(path + m, "/a");
    cr_assert_gt(m, 256);
    expect_found(&p, RB_GET, path, 1);
    pair_lookup(&p, RB_POST, path);
    n = 0;
    for (int i = 0; i < 98; i++) n += (size_t)sprintf(path + n, "/a");
    for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++) {
        for (size_t pad = 0; pad < 70; pad += 7) {
            /* the tail behind a long param value: 200 to 270 bytes */
            m = n +
                (size_t)sprintf(
                    path + n, "/%.*s", (int)pad,
                    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
            strcpy(path + m, tails[t]);
            pair_lookup(&p, RB_GET, path);
            pair_lookup(&p, RB_POST, path);
        }
    }
    const char *longs[] = {
        "/l/abcdefghijklmnopqrstuvwxyz/abcdefghijklmnopqrstuvwxyz/q/end",
        "/l/abcdefghijklmnopqrstuvwxyz/x/abcdefghijklmnopqrstuvwxyz/end",
        "/l/abcdefghijklmnopqrstuvwxyz/x/abcdefghijklmnopqrstuvwxyz/end/x",
        "/l/abcdefghijklmnopqrstuvwxyz/x/abcdefghijklmnopqrstuvwxyz/end/y",
        "/l/abcdefghijklmnopqrstuvwxyz/x/abcdefghijklmnopqrstuvwxyz/q/end",
        "/l/abcdefghijklmnopqrstuvwxyz//abcdefghijklmnopqrstuvwxyz/q/end",
    };
    for (size_t t = 0; t < sizeof longs / sizeof longs[0]; t++) {
        cr_assert_geq(strlen(longs[t]), 60);
        pair_lookup(&p, RB_GET, longs[t]);
        pair_lookup(&p, RB_PUT, longs[t]);
    }
    expect_found(&p, RB_GET, longs[4], 5); /* [0 0 1 4] before [0 1 0 1 0] */
    expect_found(&p, RB_GET, longs[1], 5); /* back up through two long segments */
    expect_found(&p, RB_GET, longs[2], 6);
    expect_found(&p, RB_GET, "/l/abcdefghijklmnopqrstuvwxyz/x/abcdefghijklmnopqrstuvwxyz/q/zzz", 7);
    pair_free(&p);
}

/* ---- larger tables: corpora and seeded random route sets ----------------- */

static void check_corpus(const char *name)
{
    char path[1024];
    rb_route_table rt = {0};
    rb_request_table qt = {0};
    rb_error err;
    snprintf(path, sizeof path, "%s/corpus/data/%s.routes", RB_SOURCE_DIR, name);
    cr_assert_eq(rb_route_table_read(path, &rt, &err), RB_OK, "%s", err.message);
    snprintf(path, sizeof path, "%s/corpus/data/%s.requests", RB_SOURCE_DIR, name);
    cr_assert_eq(rb_request_table_read(path, &qt, &err), RB_OK, "%s", err.message);
    static const unsigned widths[] = {7, 64};
    for (size_t wi = 0; wi < 2; wi++) {
        unsigned bits = widths[wi];
        pair p;
        pair_new(&p, 0, bits);
        for (size_t i = 0; i < rt.count; i++) {
            char pat[512];
            snprintf(pat, sizeof pat, "%.*s", (int)rt.routes[i].len, rb_route_pattern(&rt, i));
            pair_add(&p, rt.routes[i].method, pat, (uint32_t)i);
        }
        if (bits < 64) {
            /* narrowed hashes on a big table may exceed the probe limit */
            if (rb__hashseg_ops.build(p.hs, &err) < 0) {
                cr_assert_eq(err.code, RB_ELIMIT);
                pair_free(&p);
                continue;
            }
            cr_assert_eq(rb_router_build(p.lin, &err), RB_OK);
            cr_assert_eq(rb__hashseg_ops.check(p.hs, &err), RB_OK, "%s", err.message);
        } else {
            pair_build(&p);
        }
        for (size_t i = 0; i < qt.count; i += bits < 64 ? 7 : 1) {
            rb_match m =
                pair_lookup_n(&p, qt.reqs[i].method, rb_request_path(&qt, i), qt.reqs[i].len);
            if (qt.reqs[i].expected >= 0) cr_assert_eq(m.route_id, (uint32_t)qt.reqs[i].expected);
        }
        pair_free(&p);
    }
    rb_route_table_free(&rt);
    rb_request_table_free(&qt);
}

/* Rule: on every shipped corpus it can take (all but those with globs),
 * with full and with narrowed hashes, hashseg answers like linear. */
/* Templates beside params and a catch-all, behind a prefix that puts the
 * paths in each walk mode (under 64 bytes, 64-255, 256 and more) and
 * makes the patterns deep enough (over 64 segments) for deep_keys[]: the
 * lone template walked like a param, two or more decided by the priority
 * key below them (walks that backtrack inside), 405 masks, spans. */
Test(hashseg, templates_in_every_walk_mode_and_at_depth)
{
    static const char *const pats[] = {
        "/f/{id}",
        "/f/{id}.json",
        "/f/{id}/x",
        "/f/{id}.json/{y}",
        "/f/img-{a}-{b}.png",
        "/f/{id}.{fmt}/z",
        "/f/{*rest}",
        "/g/{id}.json/d/{a}/b",
        "/g/{id}/d/{a}/c",
        "/g/{id}.json/d/e/c",
        "/h/v{n}",
        "/h/v{n}/w/{k}.txt",
    };
    static const char *const paths[] = {
        "/f/7",           "/f/7.json",        "/f/1.json/x",     "/f/1.json/q",
        "/f/img-1-2.png", "/f/img-1-2.png/m", "/f/1.json/z",     "/f/1.tar/z",
        "/f/.json",       "/f/7.json/",       "/g/1.json/d/2/b", "/g/1.json/d/2/c",
        "/g/1/d/2/c",     "/g/1.json/d/e/c",  "/g/1.json/d/e/b", "/h/v2",
        "/h/v",           "/h/v2/w/k.txt",    "/h/v2/w/.txt",    "/h/x2/w/k.txt",
    };
    const int methods[] = {RB_GET, RB_POST, RB_PUT};
    char prefix[400], pat[1024], path[1024];
    /* "", 80 bytes (paths of 64-255 bytes), 300 bytes (scanned), 70 segments */
    for (int mode = 0; mode < 4; mode++) {
        size_t n = 0;
        if (mode == 1 || mode == 2) {
            n = (size_t)sprintf(prefix, "/");
            for (size_t i = 0; i < (mode == 1 ? 80u : 300u); i++)
                prefix[n++] = (char)('a' + i % 26);
        } else if (mode == 3) {
            for (int i = 0; i < 70; i++) n += (size_t)sprintf(prefix + n, "/d%d", i);
        }
        prefix[n] = '\0';
        pair p;
        pair_new(&p, 7, 64);
        for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++) {
            snprintf(pat, sizeof pat, "%s%s", prefix, pats[i]);
            pair_add(&p, i == 5 ? RB_POST : RB_GET, pat, (uint32_t)i);
        }
        pair_build(&p);
        for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
            snprintf(path, sizeof path, "%s%s", prefix, paths[i]);
            for (size_t m = 0; m < sizeof methods / sizeof methods[0]; m++)
                pair_lookup(&p, methods[m], path);
        }
        /* the key decides: the template's route on /f/7.json, the param's
         * with a static below it on /f/1.json/x */
        snprintf(path, sizeof path, "%s/f/7.json", prefix);
        expect_found(&p, RB_GET, path, 1);
        rb_match m = pair_lookup(&p, RB_GET, path);
        expect_span(&m, 0, path, "7");
        snprintf(path, sizeof path, "%s/f/1.json/x", prefix);
        expect_found(&p, RB_GET, path, 2);
        snprintf(path, sizeof path, "%s/g/1.json/d/2/c", prefix);
        expect_found(&p, RB_GET, path, 8);
        pair_free(&p);
    }
}

Test(hashseg, agrees_with_linear_on_every_shipped_corpus_it_takes)
{
    size_t tested = 0;
    for (size_t c = 0; c < rb_shipped_count(); c++) {
        if (!rbt_shipped_fits(c, rb_ops_features(&rb__hashseg_ops))) continue;
        check_corpus(rb_shipped_name(c));
        tested++;
    }
    cr_expect_geq(tested, 5u, "the shipped corpora without globs");
}

/* Random segments from a small alphabet, so that routes overlap a lot. */
static size_t random_pattern(uint64_t *s, char *out, bool path)
{
    static const char *const words[] = {
        "a", "b", "ab", "", "users", "me", "x", "abcdefghijklmnopq", "abcdefghijklmnopr"};
    size_t n = 0, nsegs = 1 + rb_splitmix64(s) % 4;
    for (size_t i = 0; i < nsegs; i++) {
        out[n++] = '/';
        unsigned pick = (unsigned)(rb_splitmix64(s) % 12);
        if (!path && pick == 9) {
            n += (size_t)sprintf(out + n, ":p%zu", i);
        } else if (!path && pick == 10 && i + 1 == nsegs) {
            n += (size_t)sprintf(out + n, "*rest");
        } else if (pick >= 9) {
            n += (size_t)sprintf(out + n, "v%u", (unsigned)(rb_splitmix64(s) % 3));
        } else {
            n += (size_t)sprintf(out + n, "%s", words[pick]);
        }
    }
    out[n] = '\0';
    return n;
}

Test(hashseg, random_route_sets_agree_with_linear)
{
    uint64_t s = 0x2545f4914f6cdd1dull;
    for (int round = 0; round < 40; round++) {
        pair p;
        bool narrow = round % 4 == 3; /* hashes narrowed to 6 bits */
        pair_new(&p, (uint64_t)round, narrow ? 6u : 64u);
        uint32_t id = 0;
        for (int i = 0; i < (narrow ? 25 : 60); i++) {
            char pat[256];
            random_pattern(&s, pat, false);
            int meth = (int)(rb_splitmix64(&s) % 4);
            if (meth == 3) meth = RB_ANY;
            if (pair_add(&p, meth, pat, id)) id++;
        }
        pair_build(&p);
        for (int i = 0; i < 300; i++) {
            char path[256];
            size_t n = random_pattern(&s, path, true);
            if (i % 5 == 0 && n > 1) path[--n] = '\0';
            pair_lookup_n(&p, (int)(rb_splitmix64(&s) % 4), path, n);
        }
        pair_free(&p);
    }
}

Test(hashseg, registered_with_its_features)
{
    const rb_router_ops *ops = rb_registry_find("hashseg");
    cr_assert_not_null(ops);
    cr_assert_eq(rb_ops_features(ops), RB_FEAT_PARAMS | RB_FEAT_CATCHALL | RB_FEAT_TEMPLATE);
}

/* ---- regressions (one per fixed bug, cause in a line) ------------------------ */

/* 20. Hash flooding: with seed 0 a fixed public constant, 40 routes crafted
 *    against it made build fail ("a hash probe sequence of 39 slots exceeds
 *    the limit of 32"), also appended to discord.routes.  Cause: build gave
 *    up instead of re-seeding, and seed 0 was no secret.  (The keys are
 *    crafted against full[]'s home function, which is no longer the low
 *    bits: see the crafting below.)  Now: crafted
 *    against an explicit seed, the table still builds (re-seeded, and
 *    describe() says so) and answers like linear; the default
 *    configuration (a random seed) builds it without a re-seed. */
Test(hashseg, regression_20_a_table_crafted_against_its_seed_still_builds)
{
    const uint64_t seed = 0x5eed5eed5eedull;
    static char crafted[40][32];
    /* full[]'s key is the whole path, its home the high half of the key's
     * low 32 bits times the homes: all 40 at home 0 of any table this size */
    rbt_craft_collisions_mask(seed, 0xffff0000u, "/x/", 0, 40, crafted);
    rb_route_table t = {0}, discord = {0};
    rb_request_table q = {0};
    char rpath[1024];
    rbt_load_shipped("discord", &discord, &q, rpath, sizeof rpath);
    rb_error err;
    for (size_t i = 0; i < discord.count; i++)
        cr_assert_eq(rb_route_table_append(&t, discord.routes[i].method,
                                           rb_route_pattern(&discord, i), discord.routes[i].len,
                                           i + 1),
                     RB_OK);
    for (size_t i = 0; i < 40; i++)
        cr_assert_eq(rb_route_table_append(&t, RB_GET, crafted[i], strlen(crafted[i]),
                                           discord.count + i + 1),
                     RB_OK);
    rb_router *lin;
    cr_assert_eq(
        rb_route_table_build_router(&t, "crafted", rb_registry_find("linear"), NULL, &lin, &err),
        RB_OK, "%s", err.message);
    const rb_config explicit_seed = {NULL, seed};
    const char *const names[] = {"hashseg", "auto"};
    for (size_t k = 0; k < 2; k++) {
        for (int cfg = 0; cfg < 2; cfg++) {
            rb_router *r;
            int rc = rb_route_table_build_router(&t, "crafted", rb_registry_find(names[k]),
                                                 cfg ? &explicit_seed : NULL, &r, &err);
            cr_assert_eq(rc, RB_OK, "%s, %s seed: %s", names[k], cfg ? "the crafted" : "a random",
                         err.message);
            const void *impl = rb__router_impl(r);
            if (k == 0) {
                cr_expect_eq(rb_router_check(r, &err), RB_OK, "%s", err.message);
                cr_expect_leq(rb__hashseg_max_probe(impl), RB_HASHSEG_PROBE_LIMIT);
                if (cfg) {
                    cr_expect_neq(rb__hashseg_seed(impl), seed, "the crafted seed was kept");
                    cr_expect(strstr(rb_router_describe(r), "re-seeded 1 time") != NULL, "%s",
                              rb_router_describe(r));
                } else {
                    cr_expect_str_empty(rb_router_describe(r));
                }
            }
            rbt_expect_like_on(r, lin, &q, names[k]);
            for (size_t i = 0; i < 40; i++) {
                rbt_expect_like(r, lin, RB_GET, crafted[i], strlen(crafted[i]), names[k]);
                rbt_expect_like(r, lin, RB_PUT, crafted[i], strlen(crafted[i]), names[k]);
            }
            rb_router_destroy(r);
        }
    }
    rb_router_destroy(lin);
    rb_route_table_free(&t);
    rb_route_table_free(&discord);
    rb_request_table_free(&q);
}
