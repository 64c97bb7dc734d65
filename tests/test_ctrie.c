/*
 * test_ctrie.c — the compiled segment trie (routers/ctrie.c): its
 * invariants (rb__ctrie_check) and shape after build, and its answers,
 * which must equal linear's (outcome, route id, every span, the 405 mask)
 * — compared through the public API rather than hard-coded where possible;
 * the hand expectations that remain are worked out from docs/design.md's rules.
 *
 * Every lookup goes through a heap copy of exactly the path's bytes (no
 * NUL, nothing after it), so the sanitizer build catches any read past the
 * end of the path by the word-at-a-time segment scan.
 */
#include "ctrie.h"
#include "rb_test.h"
#include "shipped.h"
#include "rng.h"
#include "seed.h"
#include "verify.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---- helpers ------------------------------------------------------------- */

static int method_of(const char *name)
{
    int m = rb_method_parse(name, strlen(name));
    cr_assert(m >= 0 && m < RB_METHOD_COUNT, "bad method %s", name);
    return m;
}

/* Run rb__ctrie_check on a built ctrie; assert it holds. */
static rb__ctrie_stats check(const rb_router *r)
{
    rb__ctrie_stats st;
    rb_error err = {0};
    int rc = rb__ctrie_check(rb__router_impl(r), &st, &err);
    cr_assert_eq(rc, RB_OK, "ctrie invariant broken: %s", err.message);
    return st;
}

/* ctrie and linear built from the same lines; ctrie's invariants checked. */
typedef struct pair {
    rb_router *ct, *lin;
    rb__ctrie_stats st;
} pair;

static pair make_pair(const char *const *lines, size_t n)
{
    pair p;
    p.ct = rbt_build("ctrie", lines, n);
    p.lin = rbt_build("linear", lines, n);
    p.st = check(p.ct);
    return p;
}

static void free_pair(pair *p)
{
    rb_router_destroy(p->ct);
    rb_router_destroy(p->lin);
}

/* ctrie's whole answer equals linear's. */
static void expect_same_len(const pair *p, int method, const char *path, size_t len)
{
    rb_match a, b;
    rbt_lookup_exact(p->ct, method, path, len, &a);
    rbt_lookup_exact(p->lin, method, path, len, &b);
    rbt_expect_same_match("ctrie", method, path, len, &a, &b);
}

static void expect_same(const pair *p, const char *method, const char *path)
{
    expect_same_len(p, method_of(method), path, strlen(path));
}

/* Hand expectation: route `want` (>= 0), -1 not found, -2 not allowed. */
static void expect_route(const pair *p, const char *method, const char *path, int want)
{
    rb_match m;
    int got = rbt_lookup_exact(p->ct, method_of(method), path, strlen(path), &m);
    if (want >= 0) {
        cr_expect_eq(got, RB_FOUND, "%s %s: outcome %d, want route %d", method, path, got, want);
        cr_expect_eq(m.route_id, (uint32_t)want, "%s %s: route %u, want %d", method, path,
                     m.route_id, want);
    } else {
        int outcome = want == -1 ? RB_NOT_FOUND : RB_METHOD_NOT_ALLOWED;
        cr_expect_eq(got, outcome, "%s %s: outcome %d, want %d", method, path, got, outcome);
    }
    expect_same(p, method, path);
}

/* Capture i of the ctrie's answer for method + path is `text`. */
static void expect_span(const pair *p, const char *method, const char *path, uint32_t i,
                        const char *text)
{
    rb_match m;
    cr_assert_eq(rbt_lookup_exact(p->ct, method_of(method), path, strlen(path), &m), RB_FOUND,
                 "%s %s not found", method, path);
    cr_assert_lt(i, m.nparams, "%s %s: capture %u of %u", method, path, i, m.nparams);
    const rb_span *s = &m.params[i];
    cr_expect(s->len == strlen(text) && memcmp(path + s->offset, text, s->len) == 0,
              "%s %s: capture %u is '%.*s', want '%s'", method, path, i, (int)s->len,
              path + s->offset, text);
}

static void expect_allowed(const pair *p, const char *method, const char *path, uint32_t mask)
{
    rb_match m;
    int got = rbt_lookup_exact(p->ct, method_of(method), path, strlen(path), &m);
    cr_expect_eq(got, RB_METHOD_NOT_ALLOWED, "%s %s: outcome %d, want 405", method, path, got);
    cr_expect_eq(m.allowed, mask, "%s %s: allowed 0x%x, want 0x%x", method, path, m.allowed, mask);
    expect_same(p, method, path);
}

#define BIT(m) RB_METHOD_BIT(RB_##m)

/* ---- shape after build ------------------------------------------------------ */

Test(ctrie, example_set_compiles_to_the_drawing_in_the_header)
{
    const char *routes[] = {"GET /users", "GET /users/:id", "GET /users/me",
                            "POST /users/:id/posts", "GET /static/{*path}"};
    pair p = make_pair(routes, N(routes));
    /* root, "users", "static", "me", :id, "posts" */
    cr_expect_eq(p.st.nodes, 6u);
    cr_expect_eq(p.st.static_edges, 4u);
    cr_expect_eq(p.st.param_edges, 1u);
    cr_expect_eq(p.st.chain_edges, 0u);
    cr_expect_eq(p.st.terminals, 4u); /* users, me, :id, posts */
    cr_expect_eq(p.st.catchalls, 1u); /* under "static" */
    cr_expect_eq(p.st.routes, 5u);
    cr_expect_eq(p.st.hashed, 0u);
    cr_expect_eq(p.st.pool_bytes, 18u, "usersstaticmeposts: each edge's bytes once");
    cr_expect_eq(p.st.block_bytes, 6u * 36u + 5u * 4u + 18u, "36 bytes a node, 4 a route");
    expect_route(&p, "GET", "/users", 0);
    expect_route(&p, "GET", "/users/me", 2); /* static over param */
    expect_route(&p, "GET", "/users/7", 1);
    expect_span(&p, "GET", "/users/7", 0, "7");
    expect_route(&p, "POST", "/users/7/posts", 3);
    expect_allowed(&p, "PUT", "/users/7", BIT(GET));
    expect_route(&p, "GET", "/static/css/a.css", 4);
    expect_span(&p, "GET", "/static/css/a.css", 0, "css/a.css");
    expect_route(&p, "GET", "/static/", -1); /* a catch-all needs 1+ bytes */
    expect_route(&p, "GET", "/static", -1);
    expect_route(&p, "GET", "/user", -1);
    expect_route(&p, "GET", "/usersx", -1);
    free_pair(&p);
}

/* Rule of the check: a node reached by a static edge is a branch point
 * (routes end there, or it has a catch-all, a param child or 2+ static
 * children); so /a/b/c/d next to /a/b/x is root -> "a/b" -> {"c/d", "x"}. */
Test(ctrie, chains_collapse_and_diverge_mid_chain)
{
    const char *routes[] = {"GET /a/b/c/d", "GET /a/b/x"};
    pair p = make_pair(routes, N(routes));
    cr_expect_eq(p.st.nodes, 4u);
    cr_expect_eq(p.st.static_edges, 3u);
    cr_expect_eq(p.st.chain_edges, 2u); /* "a/b" and "c/d" */
    expect_route(&p, "GET", "/a/b/c/d", 0);
    expect_route(&p, "GET", "/a/b/x", 1);
    expect_route(&p, "GET", "/a/b/c", -1);
    expect_route(&p, "GET", "/a/b", -1);
    expect_route(&p, "GET", "/a", -1);
    expect_route(&p, "GET", "/a/b/c/d/", -1);
    expect_route(&p, "GET", "/a/b/c/dd", -1);
    expect_route(&p, "GET", "/a/b/c/", -1);
    expect_route(&p, "GET", "/a/bc/d", -1);
    expect_route(&p, "GET", "/a/b/cd", -1);
    expect_route(&p, "GET", "/a/b/x/", -1);
    free_pair(&p);

    const char *one[] = {"GET /x/y/z"};
    p = make_pair(one, N(one));
    cr_expect_eq(p.st.nodes, 2u); /* root -> "x/y/z" */
    cr_expect_eq(p.st.chain_edges, 1u);
    expect_route(&p, "GET", "/x/y/z", 0);
    expect_route(&p, "GET", "/x/y", -1);
    expect_route(&p, "GET", "/x/y/zz", -1);
    expect_route(&p, "GET", "/x/yy/z", -1);
    free_pair(&p);
}

Test(ctrie, a_chain_stops_where_a_route_ends_or_a_param_branches)
{
    const char *routes[] = {"GET /a/b/c/d", "GET /a/b", "GET /a/:p/c/e", "GET /a/b/c/d/*rest"};
    pair p = make_pair(routes, N(routes));
    /* root -> "a" -> {"b" (ends) -> "c/d" (ends, catch-all), :p -> "c/e"} */
    cr_expect_eq(p.st.nodes, 6u);
    cr_expect_eq(p.st.chain_edges, 2u);
    expect_route(&p, "GET", "/a/b", 1);
    expect_route(&p, "GET", "/a/b/c/d", 0);
    expect_route(&p, "GET", "/a/b/c/d/x/y", 3);
    expect_span(&p, "GET", "/a/b/c/d/x/y", 0, "x/y");
    expect_route(&p, "GET", "/a/b/c/e", 2); /* out of the chain, into :p */
    expect_span(&p, "GET", "/a/b/c/e", 0, "b");
    expect_route(&p, "GET", "/a/z/c/e", 2);
    expect_route(&p, "GET", "/a/b/c", -1);
    free_pair(&p);
}

/* ---- lookup rules ------------------------------------------------------------- */

Test(ctrie, backtracks_out_of_a_dead_end_static_branch)
{
    const char *routes[] = {"GET /users/me/x",  "GET /users/:id/y", "GET /f/me/x",
                            "GET /f/*rest",     "GET /g/:id/x",     "GET /g/*rest",
                            "GET /a/b/c/d/e/f", "GET /a/:p/c/d/e/g"};
    pair p = make_pair(routes, N(routes));
    expect_route(&p, "GET", "/users/me/y", 1); /* static "me" dead-ends: the param route */
    expect_span(&p, "GET", "/users/me/y", 0, "me");
    expect_route(&p, "GET", "/users/me/x", 0);
    expect_route(&p, "GET", "/users/you/x", -1);
    expect_route(&p, "GET", "/f/me/y", 3); /* static dead end, then the catch-all */
    expect_span(&p, "GET", "/f/me/y", 0, "me/y");
    expect_route(&p, "GET", "/g/1/y", 5); /* param dead end, then the catch-all */
    expect_span(&p, "GET", "/g/1/y", 0, "1/y");
    expect_route(&p, "GET", "/a/b/c/d/e/g", 7); /* a long chain fails at its end */
    expect_span(&p, "GET", "/a/b/c/d/e/g", 0, "b");
    expect_route(&p, "GET", "/a/b/c/d/e/f", 6);
    free_pair(&p);
}

Test(ctrie, static_param_and_catchall_siblings)
{
    const char *routes[] = {"GET /p/me", "GET /p/:id", "GET /p/*rest", "GET /p/:id/x",
                            "GET /p/me/x/*rest"};
    pair p = make_pair(routes, N(routes));
    expect_route(&p, "GET", "/p/me", 0);
    expect_route(&p, "GET", "/p/you", 1);
    expect_route(&p, "GET", "/p/me/x", 3); /* "me" has no route ending at /p/me/x */
    expect_span(&p, "GET", "/p/me/x", 0, "me");
    expect_route(&p, "GET", "/p/me/x/y", 4);
    expect_span(&p, "GET", "/p/me/x/y", 0, "y");
    expect_route(&p, "GET", "/p/me/x/", 2); /* 4 needs 1+ bytes; 3 has no '/' */
    expect_span(&p, "GET", "/p/me/x/", 0, "me/x/");
    expect_route(&p, "GET", "/p/a/b", 2);
    expect_route(&p, "GET", "/p/", -1); /* empty: no param, no catch-all */
    expect_route(&p, "GET", "/p", -1);
    free_pair(&p);
}

Test(ctrie, empty_segments_and_trailing_slash)
{
    const char *routes[] = {"GET /e/", "GET /e/:x", "GET /e/*rest", "GET /",
                            "GET //x", "GET /a//b", "GET /t/:id/"};
    pair p = make_pair(routes, N(routes));
    expect_route(&p, "GET", "/e/", 0);
    expect_route(&p, "GET", "/e/y", 1);
    expect_route(&p, "GET", "/e//x", 2); /* the empty segment: only the catch-all */
    expect_span(&p, "GET", "/e//x", 0, "/x");
    expect_route(&p, "GET", "/e", -1);
    expect_route(&p, "GET", "/", 3);
    expect_route(&p, "GET", "//", -1);
    expect_route(&p, "GET", "//x", 4);
    expect_route(&p, "GET", "/a//b", 5); /* one chain "a//b" */
    expect_route(&p, "GET", "/a/b", -1);
    expect_route(&p, "GET", "/a///b", -1);
    expect_route(&p, "GET", "/t/1/", 6);
    expect_route(&p, "GET", "/t/1", -1);
    expect_route(&p, "GET", "/t//", -1); /* a param needs 1+ bytes */
    expect_route(&p, "GET", "", -1);
    expect_route(&p, "GET", "x", -1);
    free_pair(&p);
}

Test(ctrie, method_not_allowed_mask_is_the_union_of_every_matching_route)
{
    const char *routes[] = {"GET /x/:id", "POST /x/me", "PUT /x/*rest", "DELETE /y/:id",
                            "* /z/:id",   "GET /z/me",  "GET /m/:id",   "* /m/:id"};
    pair p = make_pair(routes, N(routes));
    expect_allowed(&p, "DELETE", "/x/me", BIT(GET) | BIT(POST) | BIT(PUT));
    expect_allowed(&p, "PATCH", "/x/a/b", BIT(PUT));
    expect_allowed(&p, "HEAD", "/x/z", BIT(GET) | BIT(PUT));
    expect_allowed(&p, "GET", "/y/1", BIT(DELETE));
    expect_route(&p, "GET", "/y/1/2", -1);
    expect_route(&p, "POST", "/z/me", 4); /* GET /z/me does not fit; * /z/:id does */
    expect_route(&p, "GET", "/z/me", 5);
    expect_route(&p, "GET", "/m/1", 6); /* a specific method before * */
    expect_route(&p, "PUT", "/m/1", 7);
    free_pair(&p);
}

Test(ctrie, every_method_and_any_in_one_node)
{
    const char *routes[] = {"GET /r",    "HEAD /r",    "POST /r",     "PUT /r",
                            "DELETE /r", "CONNECT /r", "OPTIONS /r",  "TRACE /r",
                            "PATCH /r",  "* /r",       "TRACE /r/*x", "* /r/*x"};
    pair p = make_pair(routes, N(routes));
    for (int m = 0; m < RB_METHOD_COUNT; m++) {
        expect_route(&p, rb_method_name(m), "/r", m);
        expect_route(&p, rb_method_name(m), "/r/a", m == RB_TRACE ? 10 : 11);
    }
    free_pair(&p);
}

/* Nodes with more than 8 static children also get a hash table; siblings
 * whose fingerprints collide (same length and first 6 bytes, or lengths
 * past 0xFFFF) must still be told apart. */
Test(ctrie, wide_nodes_and_fingerprint_collisions)
{
    enum { WIDE = 120 };
    static char buf[WIDE + 40][64];
    const char *routes[WIDE + 40];
    size_t n = 0;
    for (int i = 0; i < WIDE; i++) { /* /w0 .. /w119, under a param sibling */
        snprintf(buf[n], sizeof buf[n], "GET /w%d", i);
        routes[n] = buf[n], n++;
    }
    for (int i = 0; i < 20; i++) { /* /prefixAA .. : all one fingerprint */
        snprintf(buf[n], sizeof buf[n], "GET /k/prefix%c%c", 'a' + i % 5, 'a' + i / 5);
        routes[n] = buf[n], n++;
    }
    for (int i = 0; i < 5; i++) { /* a sorted run of colliding fingerprints */
        snprintf(buf[n], sizeof buf[n], "POST /s/sameprefix%d", i);
        routes[n] = buf[n], n++;
    }
    snprintf(buf[n], sizeof buf[n], "GET /:any");
    routes[n] = buf[n], n++;
    pair p = make_pair(routes, n);
    cr_expect_geq(p.st.hashed, 2u, "the root and /k are wide");
    char path[64];
    for (int i = 0; i < WIDE + 10; i++) {
        snprintf(path, sizeof path, "/w%d", i);
        expect_same(&p, "GET", path);
        if (i < WIDE) expect_route(&p, "GET", path, i);
    }
    for (int a = 0; a < 6; a++) {
        for (int b = 0; b < 6; b++) {
            snprintf(path, sizeof path, "/k/prefix%c%c", 'a' + a, 'a' + b);
            expect_same(&p, "GET", path);
            snprintf(path, sizeof path, "/k/prefix%c", 'a' + a);
            expect_same(&p, "GET", path);
        }
    }
    for (int i = 0; i < 7; i++) {
        snprintf(path, sizeof path, "/s/sameprefix%d", i);
        expect_same(&p, "POST", path);
        expect_same(&p, "GET", path);
    }
    expect_route(&p, "GET", "/k", 145);
    expect_route(&p, "GET", "/x", 145);
    free_pair(&p);

    /* segments longer than 0xFFFF bytes: the fingerprint's length saturates */
    size_t big = 0x10000 + 10;
    char *pat[3], *lines[3];
    for (int i = 0; i < 3; i++) {
        size_t len = big + (size_t)i;
        pat[i] = malloc(len + 8);
        cr_assert_not_null(pat[i]);
        memcpy(pat[i], "GET /", 5);
        memset(pat[i] + 5, 'z', len);
        pat[i][5 + len] = '\0';
        lines[i] = pat[i];
    }
    p = make_pair((const char *const *)lines, 3);
    for (int i = 0; i < 3; i++) {
        const char *path_i = pat[i] + 4;
        expect_same_len(&p, RB_GET, path_i, strlen(path_i));
        expect_route(&p, "GET", path_i, i);
        expect_same_len(&p, RB_GET, path_i, strlen(path_i) - 1); /* a shorter one */
    }
    free_pair(&p);
    for (int i = 0; i < 3; i++) free(pat[i]);
}

/* Rule: template children follow the param child in a node's run; one
 * that alone takes the segment is walked like the param (backing out to
 * the catch-all), two or more are decided by the whole priority key
 * (later segments, then method, then literal bytes), as linear does. */
Test(ctrie, templates_beside_a_param_are_decided_by_the_key)
{
    const char *lines[] = {
        "GET /a/{Sid}.json",  "GET /a/{AccountSid}/Calls.json", "GET /a/{AccountSid}/x",
        "GET /a/{id}.json/x", "POST /a/{id}.json/{y}",          "GET /a/{*rest}",
        "GET /a/Usage.json",  "* /a/v{major}.{minor}",          "GET /a/{Sid}.json/Calls.json"};
    pair p = make_pair(lines, sizeof lines / sizeof lines[0]);
    expect_route(&p, "GET", "/a/AC1.json", 0);
    expect_span(&p, "GET", "/a/AC1.json", 0, "AC1");
    expect_route(&p, "GET", "/a/AC1/Calls.json", 1);
    expect_route(&p, "GET", "/a/AC1.json/x", 3); /* [0 1 0] both: 7 literal bytes beat 2 */
    expect_route(&p, "POST", "/a/AC1.json/z", 4);
    expect_route(&p, "GET", "/a/Usage.json", 6);
    expect_route(&p, "GET", "/a/v1.2", 7);
    expect_route(&p, "GET", "/a/v1.2/q", 5); /* the template dead-ends: the catch-all */
    expect_route(&p, "GET", "/a/AC1.json/Calls.json", 8);
    const char *paths[] = {"/a/.json", "/a/x.json/y", "/a/AC1", "/a/v1.", "/a/", "/a/a.json/x/"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        expect_same(&p, "GET", paths[i]);
        expect_same(&p, "PUT", paths[i]);
    }
    free_pair(&p);
}

/* 70,000 static children (more than a 16-bit slot index holds): the node
 * still gets a hash table (the slots' index bits grow with the table). */
Test(ctrie, seventy_thousand_siblings_still_get_a_table, .timeout = 60)
{
    rb_router *r;
    rb_error err;
    cr_assert_eq(rb_router_create("ctrie", NULL, &r, &err), RB_OK);
    char pat[32];
    for (uint32_t i = 0; i < 70000; i++) {
        int n = snprintf(pat, sizeof pat, "/r%u", i);
        cr_assert_eq(rb_router_add(r, RB_GET, pat, (size_t)n, i, &err), RB_OK);
    }
    cr_assert_eq(rb_router_add(r, RB_GET, "/r1/:x", 6, 70000, &err), RB_OK);
    cr_assert_eq(rb_router_build(r, &err), RB_OK);
    rb__ctrie_stats st = check(r);
    cr_expect_eq(st.hashed, 1u, "the root has a table");
    cr_expect_leq(rb_router_memory(r), 100u * 70001u);
    rb_match m;
    for (uint32_t i = 0; i < 70000; i += 997) {
        int n = snprintf(pat, sizeof pat, "/r%u", i);
        cr_expect_eq(rbt_lookup_exact(r, RB_GET, pat, (size_t)n, &m), RB_FOUND, "%s", pat);
        cr_expect_eq(m.route_id, i, "%s", pat);
        n = snprintf(pat, sizeof pat, "/r%ux", i);
        cr_expect_eq(rbt_lookup_exact(r, RB_GET, pat, (size_t)n, &m), RB_NOT_FOUND, "%s", pat);
    }
    cr_expect_eq(rbt_lookup_exact(r, RB_GET, "/r1/y", 5, &m), RB_FOUND);
    cr_expect_eq(m.route_id, 70000u);
    cr_expect_eq(rbt_lookup_exact(r, RB_GET, "/r70000", 7, &m), RB_NOT_FOUND);
    cr_expect_eq(rbt_lookup_exact(r, RB_POST, "/r5", 3, &m), RB_METHOD_NOT_ALLOWED);
    rb_router_destroy(r);
}

/* The segment scan reads a word at a time: segments of every length 0..21
 * after prefixes of every length 0..9 (so at every offset in a word), the
 * path ending inside or right after them, never a byte past the end. */
Test(ctrie, segment_scan_at_every_length_and_offset)
{
    static char buf[64][48];
    const char *routes[64];
    size_t n = 0;
    const char *alpha = "abcdefghijklmnopqrstu";
    for (int k = 0; k <= 20; k++) {
        snprintf(buf[n], sizeof buf[n], "GET /%.*s", k, alpha);
        routes[n] = buf[n], n++;
        snprintf(buf[n], sizeof buf[n], "GET /:p/%.*s/y", k, alpha);
        routes[n] = buf[n], n++;
    }
    snprintf(buf[n], sizeof buf[n], "GET /bbb/:p/:q");
    routes[n] = buf[n], n++;
    pair p = make_pair(routes, n);
    char path[64];
    for (int j = 0; j <= 9; j++) {
        for (int k = 0; k <= 21; k++) {
            int len = snprintf(path, sizeof path, "/%.*s/%.*s/y", j, "bbbbbbbbb", k, alpha);
            for (int cut = 0; cut <= 3 && cut < len; cut++) /* ".../y", ".../", "...", ... */
                expect_same_len(&p, RB_GET, path, (size_t)(len - cut));
            expect_same_len(&p, RB_GET, path + 1 + j, (size_t)(len - 1 - j)); /* "/abc/y" */
            expect_same_len(&p, RB_GET, path + 1 + j, (size_t)(len - 3 - j)); /* "/abc" */
        }
    }
    free_pair(&p);
}

/* ---- differential: seeded random tables against linear --------------------- */

static const char *const words[] = {
    "",      "a",        "ab", "abc", "abcdefg", "abcdefgh", "u",   "user",
    "users", "username", "me", "v1",  "x",       "x-y.z",    "new", "longer-segment-name"};

static void random_pattern(rb_rng *g, char *buf, size_t cap, unsigned *captures)
{
    size_t n = 0;
    unsigned depth = 1 + (unsigned)rb_rng_below(g, 6);
    *captures = 0;
    for (unsigned d = 0; d < depth && n + 40 < cap; d++) {
        unsigned r = (unsigned)rb_rng_below(g, 100);
        if (r < 65) {
            n += (size_t)snprintf(buf + n, cap - n, "/%s", words[rb_rng_below(g, N(words))]);
        } else if (r < 90) {
            n += (size_t)snprintf(buf + n, cap - n, "/:p%u", (*captures)++);
        } else {
            n += (size_t)snprintf(buf + n, cap - n, "/*c%u", (*captures)++);
            return;
        }
    }
}

static void random_path(rb_rng *g, char *buf, size_t cap)
{
    size_t n = 0;
    unsigned depth = (unsigned)rb_rng_below(g, 8);
    for (unsigned d = 0; d < depth; d++) {
        const char *w = rb_rng_below(g, 4) ? words[rb_rng_below(g, N(words))] : "zz9";
        n += (size_t)snprintf(buf + n, cap - n, "/%s", w);
    }
    if (n == 0 || rb_rng_below(g, 6) == 0) n += (size_t)snprintf(buf + n, cap - n, "/");
}

Test(ctrie, random_tables_agree_with_linear, .timeout = 120)
{
    for (uint64_t seed = 1; seed <= 60; seed++) {
        rb_rng g;
        rb_rng_seed(&g, seed);
        rb_router *ct, *lin;
        rb_error err;
        cr_assert_eq(rb_router_create("ctrie", NULL, &ct, &err), RB_OK);
        cr_assert_eq(rb_router_create("linear", NULL, &lin, &err), RB_OK);
        char pats[120][128];
        size_t npats = 0;
        for (uint32_t i = 0; i < 120; i++) {
            unsigned caps;
            random_pattern(&g, pats[npats], sizeof pats[npats], &caps);
            int method = rb_rng_below(&g, 8) == 0 ? RB_ANY : (int)rb_rng_below(&g, 4);
            const char *pt = pats[npats];
            int a = rb_router_add(ct, method, pt, strlen(pt), i, &err);
            int b = rb_router_add(lin, method, pt, strlen(pt), i, &err);
            cr_assert_eq(a, b, "seed %llu: add %s: ctrie %d, linear %d", (unsigned long long)seed,
                         pt, a, b);
            if (a == RB_OK) npats++;
        }
        cr_assert_eq(rb_router_build(ct, &err), RB_OK);
        cr_assert_eq(rb_router_build(lin, &err), RB_OK);
        pair p = {ct, lin, check(ct)};
        char path[256];
        for (int k = 0; k < 400; k++) {
            if (k % 2 && npats) { /* a path made from a pattern */
                const char *pt = pats[rb_rng_below(&g, npats)];
                size_t n = 0;
                for (const char *s = pt; *s == '/';) {
                    const char *e = strchr(s + 1, '/');
                    size_t l = e ? (size_t)(e - s - 1) : strlen(s + 1);
                    if (s[1] == ':' || s[1] == '*')
                        n += (size_t)snprintf(path + n, sizeof path - n, "/%s",
                                              rb_rng_below(&g, 2) ? "me" : "a/b");
                    else
                        n += (size_t)snprintf(path + n, sizeof path - n, "/%.*s", (int)l, s + 1);
                    s += 1 + l;
                }
                if (rb_rng_below(&g, 5) == 0) snprintf(path + n, sizeof path - n, "/");
            } else {
                random_path(&g, path, sizeof path);
            }
            for (int m = 0; m < RB_METHOD_COUNT; m += 1 + (int)rb_rng_below(&g, 4))
                expect_same_len(&p, m, path, strlen(path));
        }
        free_pair(&p);
    }
}

/* ---- shipped corpora, memory ------------------------------------------------ */

Test(ctrie, shipped_corpora_agree_with_expected_and_linear_and_stay_compact)
{
    for (size_t c = 0; c < rb_shipped_count(); c++) {
        if (!rbt_shipped_fits(c, rb_ops_features(rb_registry_find("ctrie")))) continue;
        const char *name = rb_shipped_name(c);
        char rp[512], qp[512];
        rb_route_table rt = {0};
        rb_request_table qt = {0};
        rb_error err;
        cr_assert_eq(rb_route_table_read(rbt_data_path(name, "routes", rp, sizeof rp), &rt, &err),
                     RB_OK, "%s", err.message);
        cr_assert_eq(
            rb_request_table_read(rbt_data_path(name, "requests", qp, sizeof qp), &qt, &err), RB_OK,
            "%s", err.message);
        rb_verify_report rep;
        cr_assert_eq(rb_verify(rb_registry_find("ctrie"), &rt, name, &qt, &rep, &err), RB_OK, "%s",
                     err.message);
        cr_expect_eq(rep.refused, 0u, "%s: refused routes", name);
        cr_expect_eq(rep.agree_expected, rep.requests, "%s: EXPECTED", name);
        cr_expect_eq(rep.agree_linear, rep.requests, "%s: linear", name);

        rb_router *r;
        cr_assert_eq(
            rb_route_table_build_router(&rt, name, rb_registry_find("ctrie"), NULL, &r, &err),
            RB_OK, "%s", err.message);
        rb__ctrie_stats st = check(r);
        size_t mem = rb_router_memory(r);
        cr_expect_geq(mem, st.block_bytes, "%s: memory() below the block size", name);
        cr_expect_leq(mem, st.block_bytes + 512, "%s: memory() %zu, block %zu", name, mem,
                      st.block_bytes);
        cr_expect_leq(mem, 100 * rt.count, "%s: %zu bytes for %zu routes", name, mem, rt.count);
        rb_router_destroy(r);
        rb_route_table_free(&rt);
        rb_request_table_free(&qt);
    }
}

Test(ctrie, memory_is_reported_before_and_after_build_and_stays_compact_at_10k)
{
    rb_router *r;
    rb_error err;
    cr_assert_eq(rb_router_create("ctrie", NULL, &r, &err), RB_OK);
    size_t empty = rb_router_memory(r);
    cr_expect_gt(empty, 0u);
    rb_rng g;
    rb_rng_seed(&g, 7);
    char pat[128];
    size_t added = 0, after_one = 0;
    /* 10,000 REST-like routes: /api/vN/<res>/:id/<sub>/... */
    static const char *const subs[] = {"items", "owners", "events", "tags", "comments"};
    for (uint32_t i = 0; added < 10000; i++) {
        uint32_t res = i / 10, v = 1 + res % 3;
        switch (i % 10) {
        case 0:
        case 1:
            snprintf(pat, sizeof pat, "/api/v%u/res%u", v, res);
            break;
        case 2:
        case 3:
        case 4:
            snprintf(pat, sizeof pat, "/api/v%u/res%u/:id", v, res);
            break;
        default:
            snprintf(pat, sizeof pat, "/api/v%u/res%u/:id/%s", v, res,
                     subs[rb_rng_below(&g, N(subs))]);
            break;
        }
        int method = (int)(i % 10 == 1 || i % 10 >= 8 ? RB_POST : i % 10 == 3 ? RB_PUT : RB_GET);
        if (rb_router_add(r, method, pat, strlen(pat), i, &err) == RB_OK) added++;
        if (added == 1 && !after_one) after_one = rb_router_memory(r);
    }
    cr_expect_gt(after_one, empty, "memory grows with the route list");
    cr_expect_gt(rb_router_memory(r), after_one);
    cr_assert_eq(rb_router_build(r, &err), RB_OK, "%s", err.message);
    rb__ctrie_stats st = check(r);
    size_t mem = rb_router_memory(r);
    cr_expect_geq(mem, st.block_bytes);
    cr_expect_leq(mem, st.block_bytes + 512, "after build only the block and the handle");
    cr_expect_leq(mem, 100u * added, "%zu bytes for %zu routes", mem, added);
    cr_expect_eq(st.routes, added);
    rb_match m;
    cr_expect_eq(rbt_lookup_exact(r, RB_GET, "/api/v2/res1/42", 15, &m), RB_FOUND);
    rb_router_destroy(r);
}

/* ---- failures ------------------------------------------------------------------ */

static const char *const fail_table[] = {
    "GET /users",     "GET /users/:id",  "GET /users/me", "POST /users/:id/posts",
    "GET /static/*p", "* /a/b/c/d/e",    "GET /a/:x/c",   "DELETE /users/:id",
    "GET /",          "GET /users/:id/", "GET /user",     "GET /username/:n",
    "GET /w1",        "GET /w2",         "GET /w3",       "GET /w4",
    "GET /w5",        "GET /w6",         "GET /w7",       "GET /w8",
    "GET /w9",        "GET /w10/x/y",    "PUT /w10/x/y",  "GET /e//",
};

static const char *const fail_paths[] = {
    "/users", "/users/me", "/users/7", "/users/7/posts", "/static/x", "/a/b/c/d/e", "/a/q/c",
    "/",      "/users/7/", "/w9",      "/w10/x/y",       "/e//",      "/nope",      "/w10/x"};

/* Add fail_table to a ctrie whose allocator fails its fail_at-th call;
 * retry each failed call once.  Returns true when nothing failed. */
static bool build_under_failure(size_t fail_at, rbt_failing_allocator *fa)
{
    rbt_failing_allocator_init(fa, fail_at);
    rb_config cfg = {&fa->base, 0};
    rb_router *r;
    rb_error err;
    int rc = rb_router_create("ctrie", &cfg, &r, &err);
    if (rc < 0) {
        cr_expect_eq(rc, RB_ENOMEM, "create at %zu: %s", fail_at, err.message);
        return false;
    }
    bool clean = true;
    for (size_t i = 0; i < N(fail_table); i++) {
        const char *sp = strchr(fail_table[i], ' ');
        int m = rb_method_parse(fail_table[i], (size_t)(sp - fail_table[i]));
        size_t before = rb_router_count(r);
        rc = rb_router_add(r, m, sp + 1, strlen(sp + 1), (uint32_t)i, &err);
        if (rc < 0) {
            cr_expect_eq(rc, RB_ENOMEM, "add %s at %zu: %s", fail_table[i], fail_at, err.message);
            cr_expect_eq(rb_router_count(r), before, "a failed add changed the router");
            clean = false;
            rc = rb_router_add(r, m, sp + 1, strlen(sp + 1), (uint32_t)i, &err);
        }
        cr_expect_eq(rc, RB_OK, "retry of %s: %s", fail_table[i], err.message);
    }
    rc = rb_router_build(r, &err);
    if (rc < 0) {
        cr_expect_eq(rc, RB_ENOMEM, "build at %zu: %s", fail_at, err.message);
        clean = false;
        rc = rb_router_build(r, &err);
    }
    cr_expect_eq(rc, RB_OK, "build retry at %zu: %s", fail_at, err.message);
    if (rc == RB_OK) { /* the recovered router answers like linear */
        pair p = {r, rbt_build("linear", fail_table, N(fail_table)), check(r)};
        for (size_t i = 0; i < N(fail_paths); i++) {
            for (int m = 0; m < RB_METHOD_COUNT; m++)
                expect_same_len(&p, m, fail_paths[i], strlen(fail_paths[i]));
        }
        rb_router_destroy(p.lin);
    }
    rb_router_destroy(r);
    cr_expect_eq(fa->live_blocks, 0u, "fail at %zu leaked %zu blocks", fail_at, fa->live_blocks);
    cr_expect_eq(fa->live_bytes, 0u, "fail at %zu leaked %zu bytes", fail_at, fa->live_bytes);
    return clean && fa->calls < fail_at;
}

Test(ctrie, allocation_failure_at_every_call_is_clean_and_recoverable, .timeout = 120)
{
    rbt_failing_allocator fa;
    size_t n = 1;
    while (!build_under_failure(n, &fa) && n < 10000) n++;
    cr_expect_lt(n, 10000u, "never completed");
    cr_expect_gt(n, 20u, "the table takes more than a few allocations");
}

Test(ctrie, refused_add_leaves_the_router_unchanged)
{
    const char *routes[] = {"GET /a/:id", "GET /a/me", "GET /b/*rest"};
    rb_router *ct, *lin;
    rb_error err;
    cr_assert_eq(rb_router_create("ctrie", NULL, &ct, &err), RB_OK);
    for (uint32_t i = 0; i < N(routes); i++) {
        const char *sp = strchr(routes[i], ' ');
        cr_assert_eq(rb_router_add(ct, RB_GET, sp + 1, strlen(sp + 1), i, &err), RB_OK);
    }
    size_t mem = rb_router_memory(ct);
    cr_expect_eq(rb_router_add(ct, RB_GET, "/a/:other", 9, 9, &err), RB_EDUPLICATE);
    cr_expect_eq(rb_router_add(ct, RB_GET, "/a/*.png", 8, 9, &err), RB_EUNSUPPORTED);
    cr_expect_eq(rb_router_add(ct, RB_GET, "/a/**", 5, 9, &err), RB_EUNSUPPORTED);
    cr_expect_eq(rb_router_add(ct, RB_GET, "/a/{x", 5, 9, &err), RB_EPATTERN);
    cr_expect_eq(rb_router_count(ct), N(routes));
    cr_expect_eq(rb_router_memory(ct), mem, "a refused add allocated nothing it kept");
    cr_assert_eq(rb_router_build(ct, &err), RB_OK);
    cr_expect_eq(rb_router_add(ct, RB_GET, "/c", 2, 9, &err), RB_ESTATE);
    lin = rbt_build("linear", routes, N(routes));
    pair p = {ct, lin, check(ct)};
    expect_route(&p, "GET", "/a/me", 1);
    expect_route(&p, "GET", "/a/x.png", 0);
    expect_route(&p, "GET", "/b/c/d", 2);
    free_pair(&p);
}

Test(ctrie, empty_router_and_lookup_before_build)
{
    rb_router *r;
    rb_error err;
    cr_assert_eq(rb_router_create("ctrie", NULL, &r, &err), RB_OK);
    rb_match m;
    cr_expect_eq(rbt_lookup_exact(r, RB_GET, "/", 1, &m), RB_NOT_FOUND);
    cr_expect_eq(rb__ctrie_check(rb__router_impl(r), NULL, &err), RB_ESTATE);
    cr_assert_eq(rb_router_build(r, &err), RB_OK);
    rb__ctrie_stats st = check(r);
    cr_expect_eq(st.nodes, 1u);
    cr_expect_eq(rbt_lookup_exact(r, RB_GET, "/", 1, &m), RB_NOT_FOUND);
    cr_expect_eq(rbt_lookup_exact(r, RB_GET, "/x/y", 4, &m), RB_NOT_FOUND);
    cr_expect_eq(m.allowed, 0u);
    cr_expect_str_neq(rb_router_describe(r), "");
    rb_router_destroy(r);
}

/* ---- regressions (one per fixed bug, cause in a line) ------------------------ */

/* 27. Sibling cliff: a child's fingerprint (length + first 6 bytes, hashed by
 *    a fixed multiplier) was the whole hash key, so siblings sharing length
 *    and prefix (/p/item__0000001 ...) formed one cluster: 15 us a lookup at
 *    10,000 siblings (radix 64 ns), 1.2 s to build 60,000.  Cause: the key
 *    left out most of the segment.  Now the table hashes the whole segment
 *    under a seed from the config, every node past 8 children has a table,
 *    and no probe passes RB__PROBE_LIMIT: at 10 to 100,000 such siblings
 *    (and on a 1,461-day /archive/YYYY-MM-DD table) a lookup looks at about
 *    one slot per static child it finds, never more than 33. */
Test(ctrie, regression_27_siblings_sharing_length_and_prefix_stay_cheap)
{
    static const uint32_t sizes[] = {10, 100, 1000, 10000, 100000, 1461};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        bool archive = k == 5;
        rb_route_table t = {0};
        char pat[64];
        for (uint32_t i = 0; i < sizes[k]; i++) {
            /* /archive/2020-01-01 + i days, as a day count per month of 31 */
            int n = archive ? snprintf(pat, sizeof pat, "/archive/%04u-%02u-%02u", 2020 + i / 372,
                                       1 + i / 31 % 12, 1 + i % 31)
                            : snprintf(pat, sizeof pat, "/p/item__%07u", i);
            cr_assert_eq(rb_route_table_append(&t, RB_GET, pat, (size_t)n, i + 1), RB_OK);
            if (!archive && i % 10 == 0) {
                n = snprintf(pat, sizeof pat, "/u/:id/item__%07u", i);
                cr_assert_eq(rb_route_table_append(&t, RB_POST, pat, (size_t)n, i + 1), RB_OK);
            }
        }
        rb_error err;
        rb_config cfg = {NULL, 77};
        rb_router *r, *lin;
        cr_assert_eq(
            rb_route_table_build_router(&t, "siblings", rb_registry_find("ctrie"), &cfg, &r, &err),
            RB_OK, "%s", err.message);
        cr_assert_eq(rb_route_table_build_router(&t, "siblings", rb_registry_find("linear"), NULL,
                                                 &lin, &err),
                     RB_OK);
        check(r);
        uint64_t total = 0, lookups = 0;
        for (uint32_t i = 0; i < sizes[k]; i += sizes[k] / 500 + 1) {
            char path[64];
            for (int variant = 0; variant < 4; variant++) {
                /* the route, a miss beside it, another method (405), the param route */
                int n = archive        ? snprintf(path, sizeof path, "/archive/%04u-%02u-%02u",
                                                  2020 + i / 372, 1 + i / 31 % 12, 1 + i % 31)
                        : variant == 3 ? snprintf(path, sizeof path, "/u/7/item__%07u", i)
                                       : snprintf(path, sizeof path, "/p/item__%07u", i);
                size_t len = (size_t)n;
                if (variant == 1) path[len - 1] = 'x';
                int method = variant == 2 ? RB_PUT : variant == 3 ? RB_POST : RB_GET;
                uint64_t probes = 0;
                rb_match m;
                rb__ctrie_lookup_counted(rb__router_impl(r), method, path, len, &m, &probes);
                cr_assert_leq(probes, 3u * (RB__PROBE_LIMIT + 1u), "%u siblings, %s: %llu probes",
                              sizes[k], path, (unsigned long long)probes);
                total += probes;
                lookups++;
                if (i % 7 == 0) rbt_expect_like(r, lin, method, path, len, "siblings");
            }
        }
        cr_expect_leq(total, 3u * lookups, "%u siblings: %llu probes in %llu lookups", sizes[k],
                      (unsigned long long)total, (unsigned long long)lookups);
        rb_router_destroy(r);
        rb_router_destroy(lin);
        rb_route_table_free(&t);
    }
}
