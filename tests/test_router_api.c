/*
 * test_router_api.c — the front end every router is used through: methods,
 * status texts, duplicate and unsupported refusals, state errors, and the
 * rule that a failed add leaves the router unchanged.
 */
#include "rb_test.h"

#include <criterion/criterion.h>
#include <string.h>

Test(router_api, methods_parse_exactly)
{
    cr_expect_eq(rb_method_parse("GET", 3), RB_GET);
    cr_expect_eq(rb_method_parse("PATCH", 5), RB_PATCH);
    cr_expect_eq(rb_method_parse("*", 1), RB_ANY);
    cr_expect_eq(rb_method_parse("get", 3), RB_EMETHOD, "no case folding");
    cr_expect_eq(rb_method_parse("GETX", 3), RB_GET, "length-delimited input");
    cr_expect_eq(rb_method_parse("PROPFIND", 8), RB_EMETHOD);
    cr_expect_str_eq(rb_method_name(RB_OPTIONS), "OPTIONS");
    cr_expect_null(rb_method_name(42));
}

Test(router_api, every_status_has_a_text)
{
    cr_expect_str_eq(rb_status_text(RB_OK), "ok");
    cr_expect_str_eq(rb_status_text(RB_ENOMEM), "out of memory");
    cr_expect_str_eq(rb_status_text(12345), "unknown status");
}

Test(router_api, unknown_router_name_is_an_error)
{
    rb_router *r = (rb_router *)1;
    rb_error err;
    cr_expect_eq(rb_router_create("no-such-router", NULL, &r, &err), RB_ENOTFOUND);
    cr_expect_null(r);
    cr_expect(strstr(err.message, "no-such-router") != NULL);
}

Test(router_api, duplicate_method_and_shape_is_refused)
{
    rb_router *r;
    rb_error err;
    cr_assert_eq(rb_router_create("linear", NULL, &r, &err), RB_OK);
    cr_assert_eq(rb_router_add(r, RB_GET, "/u/:id", 6, 0, &err), RB_OK);
    cr_expect_eq(rb_router_add(r, RB_GET, "/u/{name}", 9, 1, &err), RB_EDUPLICATE,
                 "param names are erased from the shape");
    cr_expect_eq(rb_router_add(r, RB_POST, "/u/{name}", 9, 2, &err), RB_OK, "other method");
    cr_expect_eq(rb_router_add(r, RB_ANY, "/u/:x", 5, 3, &err), RB_OK, "* is its own method");
    cr_expect_eq(rb_router_add(r, RB_GET, "/u/*x", 5, 4, &err), RB_OK, "catch-all differs");
    cr_expect_eq(rb_router_add(r, RB_GET, "/u/{*y}", 7, 5, &err), RB_EDUPLICATE);
    cr_expect_eq(rb_router_count(r), 4u);
    rb_router_destroy(r);
}

Test(router_api, failed_add_leaves_the_router_unchanged)
{
    rb_router *r;
    rb_error err;
    cr_assert_eq(rb_router_create("linear", NULL, &r, &err), RB_OK);
    cr_assert_eq(rb_router_add(r, RB_GET, "/a/:id", 6, 0, &err), RB_OK);
    size_t mem = rb_router_memory(r);
    cr_expect_eq(rb_router_add(r, RB_GET, "/a/:id/{", 8, 1, &err), RB_EPATTERN);
    cr_expect_eq(err.offset, 7u);
    cr_expect_eq(rb_router_add(r, RB_GET, "/a/:x", 5, 2, &err), RB_EDUPLICATE);
    cr_expect_eq(rb_router_memory(r), mem);
    cr_expect_eq(rb_router_count(r), 1u);
    cr_assert_eq(rb_router_build(r, &err), RB_OK);
    rb_match m;
    cr_expect_eq(rbt_lookup(r, "GET", "/a/7", &m), RB_FOUND);
    cr_expect_eq(m.route_id, 0u);
    rb_router_destroy(r);
}

Test(router_api, state_errors)
{
    rb_router *r;
    rb_error err;
    rb_match m;
    cr_assert_eq(rb_router_create("linear", NULL, &r, &err), RB_OK);
    cr_assert_eq(rb_router_add(r, RB_GET, "/a", 2, 0, &err), RB_OK);
    cr_expect_eq(rbt_lookup(r, "GET", "/a", &m), RB_NOT_FOUND, "lookup before build");
    cr_assert_eq(rb_router_build(r, &err), RB_OK);
    cr_expect_eq(rb_router_add(r, RB_GET, "/b", 2, 1, &err), RB_ESTATE);
    cr_expect_eq(rb_router_build(r, &err), RB_ESTATE);
    cr_expect_eq(rb_router_lookup(r, RB_ANY, "/a", 2, &m), RB_NOT_FOUND, "* is not a request");
    cr_expect_eq(rb_router_lookup(r, -1, "/a", 2, &m), RB_NOT_FOUND);
    cr_expect_eq(rb_router_add(r, 99, "/b", 2, 1, &err), RB_ESTATE);
    rb_router_destroy(r);
}

Test(router_api, every_router_refuses_features_it_lacks_with_an_offset)
{
    for (size_t i = 0; i < rb_registry_count(); i++) {
        const rb_router_ops *ops = rb_registry_at(i);
        unsigned f = rb_ops_features(ops);
        rb_router *r;
        rb_error err;
        cr_assert_eq(rb_router_create_ops(ops, NULL, &r, &err), RB_OK);
        int rc = rb_router_add(r, RB_GET, "/a/*.png", 8, 0, &err);
        if (f & RB_FEAT_GLOB) {
            cr_expect_eq(rc, RB_OK, "%s", rb_ops_name(ops));
        } else {
            cr_expect_eq(rc, RB_EUNSUPPORTED, "%s refuses globs", rb_ops_name(ops));
            cr_expect_eq(err.offset, 3u, "%s: %s", rb_ops_name(ops), err.message);
            cr_expect_eq(rb_router_count(r), 0u);
        }
        rb_router_destroy(r);
    }
}

Test(router_api, allocation_failure_in_linear_is_clean_for_every_call)
{
    const char *pats[] = {"/a", "/a/:id", "/b/**/c", "/c/*rest"};
    for (size_t fail = 1; fail < 40; fail++) {
        rbt_failing_allocator fa;
        rbt_failing_allocator_init(&fa, fail);
        rb_config cfg = {&fa.base, 0};
        rb_router *r;
        rb_error err;
        int rc = rb_router_create("linear", &cfg, &r, &err);
        for (size_t i = 0; rc == RB_OK && i < 4; i++) {
            size_t before = rb_router_count(r);
            rc = rb_router_add(r, RB_GET, pats[i], strlen(pats[i]), (uint32_t)i, &err);
            if (rc != RB_OK) {
                cr_expect_eq(rc, RB_ENOMEM);
                cr_expect_eq(rb_router_count(r), before);
            }
        }
        if (rc == RB_OK) rc = rb_router_build(r, &err);
        if (r) rb_router_destroy(r);
        cr_expect(rc == RB_OK || rc == RB_ENOMEM);
        cr_expect_eq(fa.live_blocks, 0u, "fail at %zu: %zu blocks leaked", fail, fa.live_blocks);
    }
}
