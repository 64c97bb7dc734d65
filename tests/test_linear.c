/*
 * test_linear.c — the reference router against docs/design.md's route semantics,
 * one test per rule.  Every expectation is worked out by hand from the
 * rules (the comment says which), never taken from the code.
 */
#include "rb_test.h"

#include <criterion/criterion.h>
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
