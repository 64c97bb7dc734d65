/*
 * test_floor.c — the exact-match floor reference (routers/floor.c): its
 * invariants while the table grows, clean allocation failure, and the
 * method rules worked out by hand.  Answers against linear on static tables
 * are covered by test_conformance.c and test_differential.c.
 */
#include "floor.h"
#include "rb_test.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

/* floor's check holds before build too, so it is called through the ops
 * table (rb_router_check refuses an unbuilt router). */
static void expect_check(const rb_router *r, const char *when)
{
    rb_error err = {0};
    cr_expect_eq(rb__router_ops(r)->check(rb__router_impl(r), &err), RB_OK, "%s: %s", when,
                 err.message);
}

Test(floor, is_registered_and_refuses_every_wildcard)
{
    const rb_router_ops *ops = rb_registry_find("floor");
    cr_assert_not_null(ops);
    cr_expect_eq(rb_ops_features(ops), 0u);
    rb_router *r;
    rb_error err;
    cr_assert_eq(rb_router_create("floor", NULL, &r, &err), RB_OK);
    const char *wild[] = {"/a/:id", "/a/{id}", "/a/*rest", "/a/{*rest}", "/a/*.png", "/a/**"};
    for (size_t i = 0; i < sizeof wild / sizeof wild[0]; i++)
        cr_expect_eq(rb_router_add(r, RB_GET, wild[i], strlen(wild[i]), 0, &err), RB_EUNSUPPORTED,
                     "%s", wild[i]);
    cr_expect_eq(rb_router_count(r), 0u);
    rb_router_destroy(r);
}

/* Rules: a specific method beats `*` on the same path; with no fitting
 * method the answer is 405 with the mask of the path's methods; a path that
 * differs by one byte (trailing slash, case, prefix) is 404. */
Test(floor, methods_star_and_405_by_hand)
{
    const char *lines[] = {"GET /users", "POST /users",   "* /any",
                           "GET /any",   "PUT /users/me", "GET /"};
    rb_router *r = rbt_build("floor", lines, sizeof lines / sizeof lines[0]);
    expect_check(r, "built");
    rb_match m;
    cr_expect_eq(rbt_lookup(r, "GET", "/users", &m), RB_FOUND);
    cr_expect_eq(m.route_id, 0u);
    cr_expect_eq(m.nparams, 0u);
    cr_expect_eq(rbt_lookup(r, "POST", "/users", &m), RB_FOUND);
    cr_expect_eq(m.route_id, 1u);
    cr_expect_eq(rbt_lookup(r, "DELETE", "/users", &m), RB_METHOD_NOT_ALLOWED);
    cr_expect_eq(m.allowed, RB_METHOD_BIT(RB_GET) | RB_METHOD_BIT(RB_POST));
    cr_expect_eq(rbt_lookup(r, "GET", "/any", &m), RB_FOUND);
    cr_expect_eq(m.route_id, 3u, "GET beats * on the same path");
    cr_expect_eq(rbt_lookup(r, "PATCH", "/any", &m), RB_FOUND);
    cr_expect_eq(m.route_id, 2u);
    cr_expect_eq(rbt_lookup(r, "GET", "/users/me", &m), RB_METHOD_NOT_ALLOWED);
    cr_expect_eq(m.allowed, RB_METHOD_BIT(RB_PUT));
    cr_expect_eq(rbt_lookup(r, "GET", "/", &m), RB_FOUND);
    cr_expect_eq(m.route_id, 5u);
    const char *misses[] = {"/users/", "/Users", "/user", "/usersx", "//", "", "users"};
    for (size_t i = 0; i < sizeof misses / sizeof misses[0]; i++) {
        cr_expect_eq(rbt_lookup(r, "GET", misses[i], &m), RB_NOT_FOUND, "'%s'", misses[i]);
        cr_expect_eq(m.allowed, 0u);
    }
    rb_router_destroy(r);
}

Test(floor, invariants_hold_while_the_table_grows)
{
    rb_router *r;
    rb_error err;
    cr_assert_eq(rb_router_create("floor", NULL, &r, &err), RB_OK);
    expect_check(r, "empty");
    char path[64];
    for (uint32_t i = 0; i < 3000; i++) {
        int n = snprintf(path, sizeof path, "/p/%u/x", i / 2);
        /* every path twice: GET, then `*` */
        int method = i % 2 ? RB_ANY : RB_GET;
        cr_assert_eq(rb_router_add(r, method, path, (size_t)n, i, &err), RB_OK, "%s", err.message);
        if ((i & (i - 1)) == 0) expect_check(r, "growing");
    }
    cr_assert_eq(rb_router_build(r, &err), RB_OK);
    expect_check(r, "built");
    rb_match m;
    for (uint32_t k = 0; k < 1500; k++) {
        int n = snprintf(path, sizeof path, "/p/%u/x", k);
        cr_expect_eq(rb_router_lookup(r, RB_GET, path, (size_t)n, &m), RB_FOUND);
        cr_expect_eq(m.route_id, 2 * k);
        cr_expect_eq(rb_router_lookup(r, RB_HEAD, path, (size_t)n, &m), RB_FOUND);
        cr_expect_eq(m.route_id, 2 * k + 1);
    }
    cr_expect_eq(rb_router_lookup(r, RB_GET, "/p/1500/x", 9, &m), RB_NOT_FOUND);
    /* 1500 paths need 4096 slots at load <= 1/2: memory counts them all */
    cr_expect_geq(rb_router_memory(r), 4096u * 64u + 1500u * 6u);
    rb_router_destroy(r);
}

Test(floor, allocation_failure_is_clean_for_every_call)
{
    const char *pats[] = {"/a", "/b", "/c", "/d", "/e", "/f", "/g", "/h", "/i", "/j"};
    size_t npats = sizeof pats / sizeof pats[0];
    for (size_t fail = 1; fail < 60; fail++) {
        rbt_failing_allocator fa;
        rbt_failing_allocator_init(&fa, fail);
        rb_config cfg = {&fa.base, 0};
        rb_router *r;
        rb_error err;
        int rc = rb_router_create("floor", &cfg, &r, &err);
        size_t added = 0;
        for (size_t i = 0; rc == RB_OK && i < npats; i++) {
            rc = rb_router_add(r, RB_GET, pats[i], strlen(pats[i]), (uint32_t)i, &err);
            if (rc == RB_OK) added++;
            cr_expect(rc == RB_OK || rc == RB_ENOMEM);
            cr_expect_eq(rb_router_count(r), added);
            expect_check(r, "after a failed add");
        }
        if (rc == RB_OK) rc = rb_router_build(r, &err);
        if (r) {
            rb_match m;
            for (size_t i = 0; i < added; i++) {
                cr_expect_eq(rb_router_lookup(r, RB_GET, pats[i], strlen(pats[i]), &m),
                             rc == RB_OK ? RB_FOUND : RB_NOT_FOUND);
            }
            rb_router_destroy(r);
        }
        cr_expect_eq(fa.live_blocks, 0u, "fail at %zu: %zu blocks leaked", fail, fa.live_blocks);
    }
}
