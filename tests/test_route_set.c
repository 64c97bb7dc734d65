/*
 * test_route_set.c — a route table parsed once (rb_route_set) and loaded
 * into routers (rb_router_add_set): a router loaded from a set answers
 * exactly as the same router fed route by route, the set refuses what
 * rb_router_add refuses and a failed add leaves it unchanged, a set with a
 * feature the router lacks is refused before anything is loaded, the state
 * rules hold, and allocation failure anywhere is clean.
 */
#include "rb_test.h"
#include "scenario.h"
#include "shipped.h"

#include <criterion/criterion.h>
#include <string.h>

static rb_route_set *set_of(const char *const *lines, size_t n)
{
    rb_route_set *s;
    rb_error err;
    cr_assert_eq(rb_route_set_create(NULL, &s, &err), RB_OK);
    for (size_t i = 0; i < n; i++) {
        const char *sp = strchr(lines[i], ' ');
        int m = rb_method_parse(lines[i], (size_t)(sp - lines[i]));
        cr_assert_eq(rb_route_set_add(s, m, sp + 1, strlen(sp + 1), (uint32_t)i, &err), RB_OK,
                     "%s: %s", lines[i], err.message);
    }
    return s;
}

/* Every answer of a (loaded from the set) equals b's (fed by add). */
static void expect_same_answers(const char *label, const rb_router *a, const rb_router *b,
                                const rb_request_table *q)
{
    for (size_t i = 0; i < q->count; i++) {
        rb_match ma, mb;
        const char *path = rb_request_path(q, i);
        rbt_lookup_exact(a, q->reqs[i].method, path, q->reqs[i].len, &ma);
        rbt_lookup_exact(b, q->reqs[i].method, path, q->reqs[i].len, &mb);
        rbt_expect_same_match(label, q->reqs[i].method, path, q->reqs[i].len, &ma, &mb);
    }
}

/* For every router and every table it takes (the shipped corpora and a
 * generated 2,000-route table of each shape), the router loaded from the
 * set gives the answers of the same router fed route by route, holds as
 * many routes, passes its check and reports the same memory. */
Test(route_set, loaded_router_answers_as_the_router_fed_by_add, .timeout = 120)
{
    for (size_t c = 0; c < rb_shipped_count() + 4; c++) {
        rb_route_table routes = {0};
        rb_request_table reqs = {0};
        char name[64];
        rb_error err;
        if (c < rb_shipped_count()) {
            char rpath[512];
            rbt_load_shipped(rb_shipped_name(c), &routes, &reqs, rpath, sizeof rpath);
            snprintf(name, sizeof name, "%s", rb_shipped_name(c));
        } else {
            static const char *const shapes[] = {"static", "params", "mixed", "catchall"};
            snprintf(name, sizeof name, "%s-2000", shapes[c - rb_shipped_count()]);
            cr_assert_eq(rb_scenario_generate(shapes[c - rb_shipped_count()], 2000, 7, 1000, 0.1,
                                              &routes, &reqs, &err),
                         RB_OK, "%s", err.message);
        }
        unsigned features = rb_route_table_features(&routes);
        rb_route_set *s;
        cr_assert_eq(rb_route_table_set(&routes, name, NULL, &s, &err), RB_OK, "%s", err.message);
        cr_expect_eq(rb_route_set_count(s), routes.count);
        cr_expect_eq(rb_route_set_features(s), features);
        for (size_t i = 0; i < rb_registry_count(); i++) {
            const rb_router_ops *ops = rb_registry_at(i);
            if ((features & ~rb_ops_features(ops)) || (rb_ops_features(ops) & RB_FEAT_PEER))
                continue;
            rb_router *a, *b;
            rb_config cfg = {NULL, 99};
            cr_assert_eq(rb_route_set_build_router(s, ops, &cfg, &a, &err), RB_OK, "%s %s: %s",
                         rb_ops_name(ops), name, err.message);
            cr_assert_eq(rb_route_table_build_router(&routes, name, ops, &cfg, &b, &err), RB_OK,
                         "%s %s: %s", rb_ops_name(ops), name, err.message);
            cr_expect_eq(rb_router_count(a), rb_router_count(b));
            cr_expect_eq(rb_router_check(a, &err), RB_OK, "%s: %s", rb_ops_name(ops), err.message);
            cr_expect_eq(rb_router_memory(a), rb_router_memory(b), "%s %s", rb_ops_name(ops), name);
            char label[128];
            snprintf(label, sizeof label, "%s on %s from a set", rb_ops_name(ops), name);
            expect_same_answers(label, a, b, &reqs);
            rb_router_destroy(a);
            rb_router_destroy(b);
        }
        rb_route_set_destroy(s);
        rb_route_table_free(&routes);
        rb_request_table_free(&reqs);
    }
}

/* The set refuses what rb_router_add refuses, with the same codes and byte
 * offsets, and a refused route leaves it as it was. */
Test(route_set, refuses_what_add_refuses_and_a_failed_add_changes_nothing)
{
    rb_route_set *s;
    rb_error err;
    cr_assert_eq(rb_route_set_create(NULL, &s, &err), RB_OK);
    cr_assert_eq(rb_route_set_add(s, RB_GET, "/u/:id", 6, 0, &err), RB_OK);
    size_t bytes = rb_route_set_memory(s);
    cr_expect_eq(rb_route_set_add(s, RB_GET, "/u/{name}", 9, 1, &err), RB_EDUPLICATE);
    cr_expect_eq(rb_route_set_add(s, RB_GET, "/u/{bad", 7, 2, &err), RB_EPATTERN);
    cr_expect_eq(err.offset, 3u, "the byte offset of the unbalanced brace");
    cr_expect_eq(rb_route_set_add(s, RB_GET, "u", 1, 3, &err), RB_EPATTERN);
    cr_expect_eq(rb_route_set_add(s, 77, "/v", 2, 4, &err), RB_EMETHOD);
    cr_expect_eq(rb_route_set_count(s), 1u);
    cr_expect_eq(rb_route_set_features(s), RB_FEAT_PARAMS);
    cr_expect_eq(rb_route_set_memory(s), bytes, "a refusal allocates nothing it keeps");
    cr_expect_eq(rb_route_set_add(s, RB_POST, "/u/{name}", 9, 5, &err), RB_OK, "other method");
    cr_expect_eq(rb_route_set_add(s, RB_GET, "/u/*rest", 8, 6, &err), RB_OK);
    cr_expect_eq(rb_route_set_features(s), RB_FEAT_PARAMS | RB_FEAT_CATCHALL);
    rb_route_set_destroy(s);
}

/* A set that uses a feature the router lacks is refused before anything is
 * loaded: RB_EUNSUPPORTED, the byte offset in the first such pattern, and a
 * message that names it. */
Test(route_set, a_feature_the_router_lacks_is_refused_before_loading)
{
    static const char *const lines[] = {"GET /a", "GET /b", "GET /c/:id", "GET /d/*rest"};
    rb_route_set *s = set_of(lines, 4);
    rb_router *r;
    rb_error err;
    cr_assert_eq(rb_router_create("floor", NULL, &r, &err), RB_OK);
    cr_expect_eq(rb_router_add_set(r, s, &err), RB_EUNSUPPORTED);
    cr_expect_eq(err.offset, 3u);
    cr_expect(strstr(err.message, "route 3") && strstr(err.message, "/c/:id"), "%s", err.message);
    cr_expect_eq(rb_router_count(r), 0u, "nothing was loaded");
    /* and the router is still usable by add */
    cr_expect_eq(rb_router_add(r, RB_GET, "/a", 2, 0, &err), RB_OK, "%s", err.message);
    rb_router_destroy(r);
    rb_route_set_destroy(s);
}

/* A set loads into a router without routes, and the router then holds
 * exactly the set: add after it, a second set, or a set after add are
 * RB_ESTATE; the set may go before the router. */
Test(route_set, a_set_loads_into_an_empty_router_which_then_holds_only_the_set)
{
    static const char *const lines[] = {"GET /users", "GET /users/:id", "GET /users/me",
                                        "POST /users/:id/posts", "GET /static/{*path}"};
    rb_route_set *s = set_of(lines, 5);
    rb_router *r, *q;
    rb_error err;
    cr_assert_eq(rb_router_create("hashseg", NULL, &r, &err), RB_OK);
    cr_assert_eq(rb_router_add_set(r, s, &err), RB_OK, "%s", err.message);
    cr_expect_eq(rb_router_count(r), 5u);
    cr_expect_eq(rb_router_add(r, RB_GET, "/x", 2, 9, &err), RB_ESTATE);
    cr_expect_eq(rb_router_add_set(r, s, &err), RB_ESTATE);
    cr_assert_eq(rb_router_create("radix", NULL, &q, &err), RB_OK);
    cr_assert_eq(rb_router_add(q, RB_GET, "/x", 2, 9, &err), RB_OK);
    cr_expect_eq(rb_router_add_set(q, s, &err), RB_ESTATE);
    rb_router *built;
    cr_assert_eq(rb_router_create("linear", NULL, &built, &err), RB_OK);
    cr_assert_eq(rb_router_build(built, &err), RB_OK);
    cr_expect_eq(rb_router_add_set(built, s, &err), RB_ESTATE, "after build");
    rb_router_destroy(built);
    rb_route_set_destroy(s); /* the routers copied what they keep */
    cr_assert_eq(rb_router_build(r, &err), RB_OK, "%s", err.message);
    rb_match m;
    cr_expect_eq(rbt_lookup(r, "GET", "/users/me", &m), RB_FOUND);
    cr_expect_eq(m.route_id, 2u);
    cr_expect_eq(rbt_lookup(r, "POST", "/users/7/posts", &m), RB_FOUND);
    cr_expect_eq(m.route_id, 3u);
    cr_expect_eq(m.params[0].offset, 7u);
    cr_expect_eq(rbt_lookup(r, "PUT", "/users/me", &m), RB_METHOD_NOT_ALLOWED);
    cr_expect_eq(m.allowed, RB_METHOD_BIT(RB_GET));
    rb_router_destroy(r);
    rb_router_destroy(q);
}

/* Under an allocator that fails its N-th call, for every N until a set is
 * built and loaded into every router: each failing call returns RB_ENOMEM,
 * a failed rb_route_set_add leaves the count as it was, and nothing leaks. */
Test(route_set, allocation_failure_is_clean_everywhere, .timeout = 120)
{
    static const char *const lines[] = {"GET /users",      "GET /users/:id",    "GET /users/me",
                                        "POST /users/:id", "GET /static/*p",    "* /a/b/c/d/e",
                                        "GET /a/:x/c",     "DELETE /users/:id", "GET /"};
    size_t n = sizeof lines / sizeof lines[0];
    for (size_t k = 0; k < rb_registry_count(); k++) {
        const rb_router_ops *ops = rb_registry_at(k);
        if (rb_ops_features(ops) & RB_FEAT_PEER) continue;
        bool done = false;
        for (size_t fail_at = 1; !done && fail_at < 100000; fail_at++) {
            rbt_failing_allocator fa;
            rbt_failing_allocator_init(&fa, fail_at);
            rb_config cfg = {&fa.base, 5};
            rb_error err;
            rb_route_set *s = NULL;
            int rc = rb_route_set_create(&cfg, &s, &err);
            for (size_t i = 0; rc == RB_OK && i < n; i++) {
                const char *sp = strchr(lines[i], ' ');
                int m = rb_method_parse(lines[i], (size_t)(sp - lines[i]));
                size_t before = rb_route_set_count(s);
                rc = rb_route_set_add(s, m, sp + 1, strlen(sp + 1), (uint32_t)i, &err);
                if (rc < 0)
                    cr_expect_eq(rb_route_set_count(s), before, "a failed add changed the set");
            }
            rb_router *r = NULL;
            if (rc == RB_OK) {
                rc = rb_router_create_ops(ops, &cfg, &r, &err);
                if (rc == RB_OK) rc = rb_router_add_set(r, s, &err);
                if (rc == RB_OK) rc = rb_router_build(r, &err);
            }
            if (rc != RB_OK && rc != RB_EUNSUPPORTED)
                cr_expect_eq(rc, RB_ENOMEM, "%s at %zu: %s", rb_ops_name(ops), fail_at,
                             err.message);
            done = fa.failed == 0;
            rb_router_destroy(r);
            rb_route_set_destroy(s);
            cr_expect_eq(fa.live_blocks, 0u, "%s: failing at %zu leaked %zu blocks",
                         rb_ops_name(ops), fail_at, fa.live_blocks);
        }
        cr_expect(done, "%s never completed", rb_ops_name(ops));
    }
}
