/*
 * test_linear.c — the reference router against docs/design.md's route semantics,
 * one test per rule.  Every expectation is worked out by hand from the
 * rules (the comment says which), never taken from the code.
 */
#include "linear.h"
#include "rb_test.h"
#include "seed.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void expect_route(const rb_router *r, const char *method, const char *path, int want)
{
    rb_match m;
    int got = rbt_lookup(r, method, path, &m);
    if (want >= 0) {
        cr_expect_eq(got, RB_FOUND, "%s %s: outcome %d, want route %d", method, path, got, want);
        cr_expect_eq(m.route_id, (uint32_t)want, "%s %s: route %u, want %d", method, path,
                     m.route_id, want);
    } else {
        int outcome = want == -1 ? RB_NOT_FOUND : RB_METHOD_NOT_ALLOWED;
        cr_expect_eq(got, outcome, "%s %s: outcome %d, want %d", method, path, got, outcome);
    }
}

static void expect_span(const rb_match *m, uint32_t i, const char *path, const char *text)
{
    cr_assert_lt(i, m->nparams, "capture %u of %u", i, m->nparams);
    const rb_span *s = &m->params[i];
    cr_expect(s->len == strlen(text) && memcmp(path + s->offset, text, s->len) == 0,
              "capture %u is '%.*s' at %u, want '%s'", i, (int)s->len, path + s->offset, s->offset,
              text);
}

Test(linear, rank_static_beats_param_beats_glob_beats_globstar_beats_catchall)
{
    const char *routes[] = {"GET /p/*rest", "GET /p/**", "GET /p/*.json", "GET /p/:id",
                            "GET /p/me"};
    rb_router *r = rbt_build("linear", routes, N(routes));
    expect_route(r, "GET", "/p/me", 4);     /* static */
    expect_route(r, "GET", "/p/x.json", 3); /* param over glob */
    expect_route(r, "GET", "/p/x.txt", 3);  /* param */
    expect_route(r, "GET", "/p/a/b", 1);    /* ** over catch-all */
    rb_router_destroy(r);
}

Test(linear, proper_prefix_of_the_key_first)
{
    const char *routes[] = {"GET /q/**", "GET /q"};
    rb_router *r = rbt_build("linear", routes, N(routes));
    expect_route(r, "GET", "/q", 1); /* [0] is a prefix of [0 3] */
    expect_route(r, "GET", "/q/x", 0);
    rb_router_destroy(r);
}

Test(linear, specific_method_before_any_then_405_with_mask)
{
    const char *routes[] = {"* /m/:id", "GET /m/:id", "POST /m/new", "PUT /n/x", "GET /n/x"};
    rb_router *r = rbt_build("linear", routes, N(routes));
    expect_route(r, "GET", "/m/1", 1);
    expect_route(r, "PUT", "/m/1", 0);
    expect_route(r, "POST", "/m/new", 2);
    expect_route(r, "GET", "/m/new", 1); /* static POST does not fit GET */
    rb_match m;
    cr_expect_eq(rbt_lookup(r, "DELETE", "/n/x", &m), RB_METHOD_NOT_ALLOWED);
    cr_expect_eq(m.allowed, RB_METHOD_BIT(RB_GET) | RB_METHOD_BIT(RB_PUT));
    cr_expect_eq(rbt_lookup(r, "DELETE", "/zz", &m), RB_NOT_FOUND);
    rb_router_destroy(r);
}

Test(linear, no_implicit_head_for_get)
{
    const char *routes[] = {"GET /a"};
    rb_router *r = rbt_build("linear", routes, N(routes));
    expect_route(r, "HEAD", "/a", -2);
    rb_router_destroy(r);
}

Test(linear, glob_ties_more_literal_bytes_then_lower_id)
{
    const char *routes[] = {"GET /g/*.png", "GET /g/x*", "* /g/xy.*", "GET /t/a*", "GET /t/*a"};
    rb_router *r = rbt_build("linear", routes, N(routes));
    expect_route(r, "GET", "/g/xy.png", 0); /* 4 literal bytes beat 1; * route is last */
    expect_route(r, "PUT", "/g/xy.png", 2);
    expect_route(r, "GET", "/t/aa", 3); /* equal literal bytes: lower id */
    rb_router_destroy(r);
}

Test(linear, empty_segments_and_trailing_slash_are_significant)
{
    const char *routes[] = {"GET /e/", "GET /e/:x", "GET /e/*rest", "GET /e"};
    rb_router *r = rbt_build("linear", routes, N(routes));
    expect_route(r, "GET", "/e/", 0); /* empty static segment */
    expect_route(r, "GET", "/e", 3);
    expect_route(r, "GET", "/e/y", 1);
    expect_route(r, "GET", "/e//x", 2); /* a param can't take the empty segment */
    expect_route(r, "GET", "/e/y/", 2);
    rb_router_destroy(r);
}

Test(linear, catchall_needs_one_byte_and_may_contain_slashes)
{
    const char *routes[] = {"GET /c/*rest"};
    rb_router *r = rbt_build("linear", routes, N(routes));
    expect_route(r, "GET", "/c/", -1);
    expect_route(r, "GET", "/c", -1);
    rb_match m;
    const char *path = "/c/a/b/";
    cr_assert_eq(rbt_lookup(r, "GET", path, &m), RB_FOUND);
    expect_span(&m, 0, path, "a/b/");
    rb_router_destroy(r);
}

Test(linear, globstar_takes_zero_or_more_whole_segments)
{
    const char *routes[] = {"GET /v2/**/manifests/:ref", "GET /v2/:name/manifests/latest"};
    rb_router *r = rbt_build("linear", routes, N(routes));
    rb_match m;
    const char *p1 = "/v2/manifests/x";
    cr_assert_eq(rbt_lookup(r, "GET", p1, &m), RB_FOUND);
    cr_expect_eq(m.route_id, 0u);
    cr_expect_eq(m.params[0].len, 0u, "zero segments");
    cr_expect_eq(m.params[0].offset, 4u, "at the start of the next segment");
    expect_span(&m, 1, p1, "x");
    const char *p2 = "/v2/library/ubuntu/manifests/22.04";
    cr_assert_eq(rbt_lookup(r, "GET", p2, &m), RB_FOUND);
    expect_span(&m, 0, p2, "library/ubuntu");
    expect_span(&m, 1, p2, "22.04");
    expect_route(r, "GET", "/v2/ubuntu/manifests/latest", 1);
    rb_router_destroy(r);
}

Test(linear, globstar_captures_are_leftmost_shortest)
{
    const char *routes[] = {"GET /a/**/b/**"};
    rb_router *r = rbt_build("linear", routes, N(routes));
    rb_match m;
    const char *path = "/a/b/b/b";
    cr_assert_eq(rbt_lookup(r, "GET", path, &m), RB_FOUND);
    /* the first ** takes as few segments as it can: none */
    cr_expect_eq(m.params[0].len, 0u);
    cr_expect_eq(m.params[0].offset, 3u);
    expect_span(&m, 1, path, "b/b");
    const char *end = "/a/b";
    cr_assert_eq(rbt_lookup(r, "GET", end, &m), RB_FOUND);
    cr_expect_eq(m.params[1].offset, 4u, "empty span at the end of the path");
    cr_expect_eq(m.params[1].len, 0u);
    rb_router_destroy(r);
}

Test(linear, glob_sets_and_question_marks)
{
    const char *routes[] = {"GET /f/img-??.png", "GET /f/[a-c]*", "GET /f/[!a-c]*.txt"};
    rb_router *r = rbt_build("linear", routes, N(routes));
    expect_route(r, "GET", "/f/img-01.png", 0);
    expect_route(r, "GET", "/f/img-1.png", -1);
    expect_route(r, "GET", "/f/b.txt", 1);
    expect_route(r, "GET", "/f/d.txt", 2);
    expect_route(r, "GET", "/f/d.md", -1);
    rb_router_destroy(r);
}

Test(linear, root_and_double_slash)
{
    const char *routes[] = {"GET /"};
    rb_router *r = rbt_build("linear", routes, N(routes));
    expect_route(r, "GET", "/", 0);
    expect_route(r, "GET", "//", -1);
    expect_route(r, "GET", "", -1);
    expect_route(r, "GET", "x", -1);
    rb_router_destroy(r);
}

Test(linear, params_capture_in_pattern_order_and_braces_are_params)
{
    const char *routes[] = {"GET /b/{owner}/:repo/{*path}"};
    rb_router *r = rbt_build("linear", routes, N(routes));
    rb_match m;
    const char *path = "/b/o/r/src/main.c";
    cr_assert_eq(rbt_lookup(r, "GET", path, &m), RB_FOUND);
    cr_expect_eq(m.nparams, 3u);
    expect_span(&m, 0, path, "o");
    expect_span(&m, 1, path, "r");
    expect_span(&m, 2, path, "src/main.c");
    rb_router_destroy(r);
}

Test(linear, bytes_compare_exactly_no_decoding_no_case_folding)
{
    const char *routes[] = {"GET /a%2Fb", "GET /Users"};
    rb_router *r = rbt_build("linear", routes, N(routes));
    expect_route(r, "GET", "/a%2Fb", 0);
    expect_route(r, "GET", "/a/b", -1);
    expect_route(r, "GET", "/users", -1);
    rb_router_destroy(r);
}

Test(linear, first_segment_index_keeps_every_route_reachable)
{
    /* routes under the same, different and non-static first segments */
    const char *routes[] = {"GET /a/x",  "GET /a/:id", "GET /b", "GET /:any/x",
                            "GET /**/x", "GET /*rest", "GET /",  "GET //"};
    rb_router *r = rbt_build("linear", routes, sizeof routes / sizeof routes[0]);
    rb_error err;
    cr_expect_eq(rb_router_check(r, &err), RB_OK, "every route in one bucket or wild: %s",
                 err.message);
    expect_route(r, "GET", "/a/x", 0);
    expect_route(r, "GET", "/a/y", 1);
    expect_route(r, "GET", "/b", 2);
    expect_route(r, "GET", "/b/x", 3);   /* wild param route, not in bucket "b" */
    expect_route(r, "GET", "/c/d/x", 4); /* ** from the wild list */
    expect_route(r, "GET", "/zz", 5);
    expect_route(r, "GET", "/", 6);
    expect_route(r, "GET", "//", 7);
    rb_router_destroy(r);
}

/* ---- template segments ---------------------------------------------------- */

/* Rule: a template takes one whole segment: its first piece starts it, its
 * last piece ends it, each param 1+ bytes, never a '/'. */
Test(linear, template_is_anchored_to_one_segment_and_params_take_one_or_more_bytes)
{
    const char *routes[] = {"GET /i/img-{id}.png", "GET /v/v{major}.{minor}"};
    rb_router *r = rbt_build("linear", routes, N(routes));
    expect_route(r, "GET", "/i/img-3.png", 0);
    expect_route(r, "GET", "/i/img-.png", -1);      /* the param needs a byte */
    expect_route(r, "GET", "/i/img-3.png.bak", -1); /* anchored at the end */
    expect_route(r, "GET", "/i/ximg-3.png", -1);    /* anchored at the start */
    expect_route(r, "GET", "/i/img-3/4.png", -1);   /* never a '/' */
    expect_route(r, "GET", "/i/img-3.png/", -1);    /* one segment only */
    expect_route(r, "GET", "/v/v1.2", 1);
    expect_route(r, "GET", "/v/v1.", -1);
    expect_route(r, "GET", "/v/v.2", -1);
    rb_router_destroy(r);
}

/* Rule: each param of a template is a capture, in pattern order, and takes
 * as few bytes as it can, left to right. */
Test(linear, template_captures_are_leftmost_shortest_in_pattern_order)
{
    const char *routes[] = {"GET /f/{name}.{ext}", "GET /r/{from}-x-{to}/:tail", "GET /d/{a}.{b}"};
    rb_router *r = rbt_build("linear", routes, N(routes));
    rb_match m;
    const char *p1 = "/f/archive.tar.gz";
    cr_assert_eq(rbt_lookup(r, "GET", p1, &m), RB_FOUND);
    cr_expect_eq(m.nparams, 2u);
    expect_span(&m, 0, p1, "archive");
    expect_span(&m, 1, p1, "tar.gz");
    const char *p2 = "/r/1-x-2-x-3/t";
    cr_assert_eq(rbt_lookup(r, "GET", p2, &m), RB_FOUND);
    cr_expect_eq(m.nparams, 3u);
    expect_span(&m, 0, p2, "1");
    expect_span(&m, 1, p2, "2-x-3");
    expect_span(&m, 2, p2, "t");
    const char *p3 = "/d/..x"; /* a takes 1+ bytes: the first '.' is a's */
    cr_assert_eq(rbt_lookup(r, "GET", p3, &m), RB_FOUND);
    expect_span(&m, 0, p3, ".");
    expect_span(&m, 1, p3, "x");
    cr_expect_eq(m.params[1].offset, 5u);
    rb_router_destroy(r);
}

/* Rule: a template ranks as a param (1), so a static segment beats it and
 * it beats a glob, '**' and a catch-all; between a template and a param
 * at one position the later ranks decide, then the method, then literal
 * bytes: /f/latest.json > /f/{id}.json > /f/{id} on /f/7.json, and
 * img-{id}.png (8 literal bytes) > {x}.png (4) on img-3.png. */
Test(linear, template_ranks_as_param_and_its_literal_bytes_count)
{
    const char *routes[] = {"GET /f/{id}",    "GET /f/{id}.json",    "GET /f/latest.json",
                            "GET /i/{x}.png", "GET /i/img-{id}.png", "GET /g/*.png",
                            "GET /g/**",      "GET /g/*rest",        "GET /g/{id}.png"};
    rb_router *r = rbt_build("linear", routes, N(routes));
    expect_route(r, "GET", "/f/latest.json", 2); /* static (rank 0) */
    expect_route(r, "GET", "/f/7.json", 1);      /* [0 1] = [0 1]; 6 literal bytes beat 1 */
    expect_route(r, "GET", "/f/7", 0);
    expect_route(r, "GET", "/i/img-3.png", 4); /* 8 + 1 literal bytes beat 4 + 1 */
    expect_route(r, "GET", "/i/3.png", 3);
    expect_route(r, "GET", "/g/a.png", 8); /* template (1) beats glob (2), ** and catch-all */
    expect_route(r, "GET", "/g/.png", 5);  /* the template's param needs a byte: the glob */
    rb_router_destroy(r);
}

/* Rule: the segment ranks after the template decide before literal
 * bytes do, and a specific method before '*' does too. */
Test(linear, later_ranks_and_method_decide_before_a_templates_literal_bytes)
{
    const char *routes[] = {"GET /f/{id}/x", "GET /f/{id}.json/{y}", "GET /f/{id}/{y}",
                            "* /h/{id}.json", "GET /h/{id}"};
    rb_router *r = rbt_build("linear", routes, N(routes));
    expect_route(r, "GET", "/f/1.json/x", 0); /* [0 1 0] beats [0 1 1] */
    expect_route(r, "GET", "/f/1.json/z", 1); /* [0 1 1] both: 6 literal bytes beat 1 */
    expect_route(r, "GET", "/f/1/z", 2);
    expect_route(r, "GET", "/h/1.json", 4); /* GET beats '*' before literal bytes count */
    expect_route(r, "PUT", "/h/1.json", 3);
    rb_router_destroy(r);
}

/* Rule: the shape erases a template's names, so img-{a}.png and
 * img-{b}.png under one method are duplicates; under two methods they are
 * two routes. */
Test(linear, templates_differing_only_in_names_are_duplicates)
{
    rb_router *r;
    rb_error err;
    cr_assert_eq(rb_router_create("linear", NULL, &r, &err), RB_OK);
    cr_assert_eq(rb_router_add(r, RB_GET, "/i/img-{a}.png", 14, 0, &err), RB_OK);
    cr_expect_eq(rb_router_add(r, RB_GET, "/i/img-{b}.png", 14, 1, &err), RB_EDUPLICATE);
    cr_expect_eq(rb_router_add(r, RB_PUT, "/i/img-{b}.png", 14, 2, &err), RB_OK);
    cr_expect_eq(rb_router_add(r, RB_GET, "/i/img{b}.png", 13, 3, &err), RB_OK, "another shape");
    cr_assert_eq(rb_router_build(r, &err), RB_OK);
    expect_route(r, "PUT", "/i/img-1.png", 2);
    expect_route(r, "GET", "/i/img-1.png", 0);
    rb_router_destroy(r);
}

/* ---- regressions (one per fixed bug, cause in a line) ------------------------ */

/* 25. Hash flooding: linear's first-segment index hashed with unseeded FNV-1a
 *    and probed without a limit, so 2,000 routes with crafted first segments
 *    made every lookup walk ~2,000 buckets.  Cause: no seed, no bound.  Now
 *    the index is XXH3 under a seed derived from the config and re-seeded at
 *    build past RB__PROBE_LIMIT: neither the old crafted set nor one crafted
 *    against the new key under a known explicit seed floods it. */
Test(linear, regression_25_crafted_first_segments_cannot_flood_the_index)
{
    static char crafted[2000][32];
    for (int round = 0; round < 2; round++) {
        if (round == 0) { /* against the old key: FNV-1a, low 12 bits */
            size_t found = 0;
            for (unsigned long long i = 0; found < 2000; i++) {
                int n = snprintf(crafted[found], sizeof crafted[found], "/f%llx", i);
                uint64_t h = 1469598103934665603ull;
                for (int k = 1; k < n; k++)
                    h = (h ^ (unsigned char)crafted[found][k]) * 1099511628211ull;
                if ((h & 0xfff) == 0) found++;
            }
        } else { /* against the new key of explicit seed 3 */
            rbt_craft_collisions(rb__seed_mix(3, RB__SALT_LINEAR), 13, "/", 1, 2000, crafted);
        }
        rb_config cfg = {NULL, 3};
        rb_router *r;
        rb_error err;
        cr_assert_eq(rb_router_create("linear", &cfg, &r, &err), RB_OK);
        for (uint32_t i = 0; i < 2000; i++) {
            char pat[48];
            int n = snprintf(pat, sizeof pat, "%s/:id", crafted[i]);
            cr_assert_eq(rb_router_add(r, RB_GET, pat, (size_t)n, i, &err), RB_OK);
        }
        cr_assert_eq(rb_router_build(r, &err), RB_OK, "%s", err.message);
        const void *impl = rb__router_impl(r);
        cr_expect_eq(rb_router_check(r, &err), RB_OK, "%s", err.message);
        cr_expect_leq(rb__linear_max_probe(impl), RB__PROBE_LIMIT, "round %d: %u slots", round,
                      rb__linear_max_probe(impl));
        for (uint32_t i = 0; i < 2000; i += 13) {
            char path[48];
            int n = snprintf(path, sizeof path, "%s/7", crafted[i]);
            rb_match m;
            cr_expect_eq(rb_router_lookup(r, RB_GET, path, (size_t)n, &m), RB_FOUND, "%s", path);
            cr_expect_eq(m.route_id, i);
        }
        rb_router_destroy(r);
    }
}
