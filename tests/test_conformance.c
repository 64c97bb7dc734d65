/*
 * test_conformance.c — the heart of the test suite: every registered router
 * on every shipped corpus and on hand-written cases, each answer checked
 * against EXPECTED and against `linear` (route id, spans, 405 mask), and
 * each router's invariant check run after every build (rb_verify calls
 * rb_router_check).  A new router is tested here by registering it;
 * nothing else to write.
 * A router is skipped only for tables that use a feature it lacks (it must
 * refuse those patterns, which test_router_api checks).
 */
#include "rb_test.h"
#include "shipped.h"
#include "verify.h"

#include <criterion/criterion.h>
#include <string.h>

static void expect_clean(const rb_router_ops *ops, const char *what, const rb_verify_report *rep,
                         const rb_request_table *reqs)
{
    cr_expect_eq(rep->refused, 0u, "%s on %s: %zu refused (%s)", rb_ops_name(ops), what,
                 rep->refused, rep->first_refusal.message);
    cr_expect_eq(rep->agree_expected, rep->requests, "%s on %s: %zu/%zu agree with EXPECTED",
                 rb_ops_name(ops), what, rep->agree_expected, rep->requests);
    cr_expect_eq(rep->agree_linear, rep->requests, "%s on %s: %zu/%zu agree with linear",
                 rb_ops_name(ops), what, rep->agree_linear, rep->requests);
    for (size_t k = 0; k < rep->nexamples && k < 3; k++) {
        const rb_request *q = &reqs->reqs[rep->examples[k].request];
        char got[256], want[256];
        rb_match_format(&rep->examples[k].got, got, sizeof got);
        rb_match_format(&rep->examples[k].want, want, sizeof want);
        cr_log_error("%s on %s: %s %.*s expected %d got %s linear %s", rb_ops_name(ops), what,
                     rb_method_name(q->method), (int)q->len,
                     rb_request_path(reqs, rep->examples[k].request), (int)q->expected, got, want);
    }
}

/* Rule: every built-in router has the optional check op, so the runs below
 * do check its invariants after each build. */
Test(conformance, every_builtin_router_checks_its_invariants)
{
    for (size_t i = 0; i < rb_registry_count(); i++)
        cr_expect(rb_registry_at(i)->check != NULL, "%s has no check op",
                  rb_ops_name(rb_registry_at(i)));
}

Test(conformance, every_router_on_every_shipped_corpus, .timeout = 600)
{
    for (size_t c = 0; c < rb_shipped_count(); c++) {
        const char *name = rb_shipped_name(c);
        char rpath[4096];
        rb_route_table routes;
        rb_request_table reqs;
        rb_error err;
        rbt_load_shipped(name, &routes, &reqs, rpath, sizeof rpath);
        unsigned need = rb_route_table_features(&routes);
        for (size_t i = 0; i < rb_registry_count(); i++) {
            const rb_router_ops *ops = rb_registry_at(i);
            if (need & ~rb_ops_features(ops)) continue;
            if (rb_ops_features(ops) & RB_FEAT_PEER) continue; /* peers: test_r3.c */
            rb_verify_report rep;
            cr_assert_eq(rb_verify(ops, &routes, rpath, &reqs, &rep, &err), RB_OK, "%s: %s",
                         rb_ops_name(ops), err.message);
            expect_clean(ops, name, &rep, &reqs);
        }
        rb_route_table_free(&routes);
        rb_request_table_free(&reqs);
    }
}

/* Hand-written cases: a routes text and a requests text with EXPECTED
 * worked out by hand from the rules. */
typedef struct hand_case {
    const char *name;
    const char *routes;
    const char *requests;
} hand_case;

static const hand_case hand_cases[] = {
    {"static dead end falls back to param", "GET /users/me/x\nGET /users/:id/y\nGET /users/me\n",
     "GET /users/me/y 1\nGET /users/me/x 0\nGET /users/me 2\nGET /users/you/y 1\n"
     "GET /users/me/z -1\n"},
    {"prefixes inside a segment",
     "GET /user\nGET /users\nGET /username\nGET /u\nGET /users/:id\nGET /user/:id/x\n",
     "GET /user 0\nGET /users 1\nGET /username 2\nGET /u 3\nGET /us -1\nGET /usernames -1\n"
     "GET /users/7 4\nGET /user/7/x 5\nGET /user/7 -1\nGET /userx -1\n"},
    {"param then catch-all then dead ends", "GET /a/:x/b\nGET /a/*rest\nGET /a/c/d\n",
     "GET /a/c/b 0\nGET /a/c/d 2\nGET /a/c/e 1\nGET /a/c 1\nGET /a/ -1\nGET /a -1\n"},
    {"methods, * and 405", "GET /m/:id\n* /m/:id\nPOST /m/new\nGET /n/x\nPUT /n/:id\n",
     "GET /m/1 0\nPUT /m/1 1\nPOST /m/new 2\nGET /m/new 0\nDELETE /n/x -2\nPUT /n/x 4\n"
     "HEAD /n/x -2\n"},
    {"* beats nothing better: specific method on a lower rank loses", "* /k/me\nGET /k/:id\n",
     "GET /k/me 0\nPOST /k/me 0\nGET /k/you 1\nPOST /k/you -2\n"},
    {"empty segments and trailing slashes",
     "GET /e/\nGET /e/:x\nGET /e/*rest\nGET /\nGET /e\nGET /f//g\n",
     "GET /e/ 0\nGET /e//x 2\nGET /e/y 1\nGET /e 4\nGET / 3\nGET // -1\nGET /f//g 5\n"
     "GET /f/g -1\nGET /e/y/ 2\n"},
    {"catch-all needs one byte", "GET /c/*rest\nGET /c\n",
     "GET /c/ -1\nGET /c 1\nGET /c/a 0\nGET /c/a/b/ 0\nGET /c// 0\n"},
    {"deep params and longest static",
     "GET /r/:o/:r/issues/:n/comments\nGET /r/:o/:r/issues/:n\nGET /r/:o/:r/issues\n"
     "GET /r/:o/:r/pulls/:n/comments\nGET /r/o/r/issues/1\n",
     "GET /r/a/b/issues/9/comments 0\nGET /r/a/b/issues/9 1\nGET /r/a/b/issues 2\n"
     "GET /r/o/r/issues/1 4\nGET /r/o/r/issues/1/comments 0\nGET /r/o/r/pulls/1/comments 3\n"
     "GET /r/o/r/pulls/1 -1\n"},
    {"globs: ranks, ties and **",
     "GET /p/me\nGET /p/:id\nGET /p/*.json\nGET /p/**\nGET /p/*rest\nGET /g/*.png\nGET /g/x*\n"
     "* /g/xy.*\nGET /v2/**/manifests/:ref\nGET /v2/:name/manifests/latest\n",
     "GET /p/me 0\nGET /p/42 1\nGET /p/a/b 3\nGET /p 3\nGET /p/ 3\nGET /g/xy.png 5\n"
     "PUT /g/xy.png 7\nGET /g/xz 6\nGET /v2/a/b/manifests/1 8\nGET /v2/u/manifests/latest 9\n"
     "GET /v2/manifests/x 8\n"},
    /* templates rank as params: /t/7.json has 6 literal bytes in {id}.json,
     * 2 in {a}.{b}, 1 in :id; the glob ranks after them all */
    {"templates beside a static, a param, a glob and a catch-all",
     "GET /t/latest.json\nGET /t/{id}.json\nGET /t/:id\nGET /t/*.json\nGET /t/*rest\n"
     "GET /t/{a}.{b}\nGET /t/{id}.json/x\n",
     "GET /t/latest.json 0\nGET /t/7.json 1\nGET /t/7 2\nGET /t/a.b 5\nGET /t/.json 2\n"
     "GET /t/7.json/x 6\nGET /t/7.json/y 4\nGET /t/ -1\nGET /t/a.b/x 4\n"},
    {"templates: literal bytes equal to the next piece, a piece that repeats",
     "GET /h/{a}.{b}\nGET /h/{a}-x-{b}\nGET /h/{a}.{b}/{c}\n",
     "GET /h/..x 0\nGET /h/1-x-2-x-3 1\nGET /h/a.b/c 2\nGET /h/.x -1\nGET /h/x. -1\n"
     "GET /h/-x- -1\nGET /h/a-x-b.c 1\n"}, /* both fit: -x- has 3 literal bytes, . one */
    {"template or param at one place: later segments, then method, then literal bytes",
     "GET /f/{id}/x\nGET /f/{id}.json/{y}\nGET /f/{id}/{y}\n* /f/{id}.json\nGET /f/{id}\n",
     "GET /f/1.json/x 0\nGET /f/1.json/z 1\nGET /f/1/z 2\nGET /f/1.json 4\nPUT /f/1.json 3\n"
     "PUT /f/1 -2\n"},
};

Test(conformance, every_router_on_hand_cases)
{
    for (size_t c = 0; c < sizeof hand_cases / sizeof hand_cases[0]; c++) {
        const hand_case *hc = &hand_cases[c];
        rb_route_table routes;
        rb_request_table reqs;
        rb_error err;
        cr_assert_eq(rb_route_table_parse(hc->name, hc->routes, strlen(hc->routes), &routes, &err),
                     RB_OK, "%s", err.message);
        cr_assert_eq(
            rb_request_table_parse(hc->name, hc->requests, strlen(hc->requests), &reqs, &err),
            RB_OK, "%s", err.message);
        unsigned need = rb_route_table_features(&routes);
        for (size_t i = 0; i < rb_registry_count(); i++) {
            const rb_router_ops *ops = rb_registry_at(i);
            if (need & ~rb_ops_features(ops)) continue;
            if (rb_ops_features(ops) & RB_FEAT_PEER) continue; /* peers: test_r3.c */
            rb_verify_report rep;
            cr_assert_eq(rb_verify(ops, &routes, hc->name, &reqs, &rep, &err), RB_OK, "%s",
                         err.message);
            expect_clean(ops, hc->name, &rep, &reqs);
        }
        rb_route_table_free(&routes);
        rb_request_table_free(&reqs);
    }
}

/* Regression: verify listed every request whose EXPECTED route the router
 * had refused as a disagreement ("expected 97, got 404; linear says
 * 404"), which reads as a wrong answer.  floor (static routes only) on
 * GitHub: the requests it answers as linear does on the routes it took,
 * but not as EXPECTED, are counted apart and none is an example. */
Test(conformance, regression_203_answers_a_refusal_explains_are_not_disagreements)
{
    char rpath[4096];
    rb_route_table routes;
    rb_request_table reqs;
    rb_error err;
    rbt_load_shipped("github", &routes, &reqs, rpath, sizeof rpath);
    const rb_router_ops *floor_ops = rb_registry_find("floor");
    cr_assert(floor_ops);
    rb_verify_report rep;
    cr_assert_eq(rb_verify(floor_ops, &routes, rpath, &reqs, &rep, &err), RB_OK, "%s", err.message);
    cr_expect_gt(rep.refused, 0u);
    cr_expect_eq(rep.agree_linear, rep.requests);
    cr_expect_lt(rep.agree_expected, rep.requests);
    cr_expect_eq(rep.expect_refused, rep.requests - rep.agree_expected);
    cr_expect_eq(rep.nexamples, 0u, "%zu examples listed", rep.nexamples);
    rb_route_table_free(&routes);
    rb_request_table_free(&reqs);
}
