/*
 * test_guarantees.c — checks behind README "Guarantees" that no other test
 * makes: lookup never allocates (every router's allocations go through the
 * config allocator, which counts them), building the same table twice
 * gives the same answers (no hidden state between routers), and memory()
 * equals the bytes a built router holds.
 */
#include "rb_test.h"
#include "shipped.h"
#include "verify.h"

#include <criterion/criterion.h>
#include <string.h>

static void load(const char *name, rb_route_table *routes, rb_request_table *reqs)
{
    char rpath[4096];
    rbt_load_shipped(name, routes, reqs, rpath, sizeof rpath);
}

Test(guarantees, lookup_never_allocates)
{
    for (size_t c = 0; c < rb_shipped_count(); c++) {
        const char *name = rb_shipped_name(c);
        rb_route_table routes;
        rb_request_table reqs;
        load(name, &routes, &reqs);
        unsigned need = rb_route_table_features(&routes);
        for (size_t i = 0; i < rb_registry_count(); i++) {
            const rb_router_ops *ops = rb_registry_at(i);
            /* peers wrap third-party code that allocates on its own heap */
            if ((rb_ops_features(ops) & RB_FEAT_PEER) || (need & ~rb_ops_features(ops))) continue;
            rbt_failing_allocator fa;
            rbt_failing_allocator_init(&fa, 0);
            rb_config cfg = {&fa.base, 0};
            rb_router *r;
            rb_error err;
            cr_assert_eq(rb_route_table_build_router(&routes, name, ops, &cfg, &r, &err), RB_OK,
                         "%s: %s", rb_ops_name(ops), err.message);
            size_t before = fa.calls;
            for (size_t k = 0; k < reqs.count; k++) {
                rb_match m;
                rb_router_lookup(r, reqs.reqs[k].method, rb_request_path(&reqs, k),
                                 reqs.reqs[k].len, &m);
            }
            cr_expect_eq(fa.calls, before, "%s on %s: %zu allocations during lookups",
                         rb_ops_name(ops), name, fa.calls - before);
            rb_router_destroy(r);
            cr_expect_eq(fa.live_blocks, 0u, "%s: destroy frees everything", rb_ops_name(ops));
        }
        rb_route_table_free(&routes);
        rb_request_table_free(&reqs);
    }
}

Test(guarantees, two_builds_of_one_table_answer_alike)
{
    rb_route_table routes;
    rb_request_table reqs;
    load("discord", &routes, &reqs);
    unsigned need = rb_route_table_features(&routes);
    for (size_t i = 0; i < rb_registry_count(); i++) {
        const rb_router_ops *ops = rb_registry_at(i);
        if (need & ~rb_ops_features(ops)) continue;
        rb_router *a, *b;
        rb_error err;
        cr_assert_eq(rb_route_table_build_router(&routes, "discord", ops, NULL, &a, &err), RB_OK);
        cr_assert_eq(rb_route_table_build_router(&routes, "discord", ops, NULL, &b, &err), RB_OK);
        for (size_t k = 0; k < reqs.count; k++) {
            rb_match ma, mb;
            memset(&ma, 0, sizeof ma);
            memset(&mb, 0, sizeof mb);
            rb_router_lookup(a, reqs.reqs[k].method, rb_request_path(&reqs, k), reqs.reqs[k].len,
                             &ma);
            rb_router_lookup(b, reqs.reqs[k].method, rb_request_path(&reqs, k), reqs.reqs[k].len,
                             &mb);
            cr_expect(rb_match_equal(&ma, &mb), "%s: request %zu differs", rb_ops_name(ops), k);
        }
        rb_router_destroy(a);
        rb_router_destroy(b);
    }
    rb_route_table_free(&routes);
    rb_request_table_free(&reqs);
}

/* Live bytes of a built router of ops over routes, through a counting
 * allocator; *memory gets what the router says it holds. */
static size_t live_after_build(const rb_router_ops *ops, const rb_route_table *routes,
                               const char *name, size_t *memory)
{
    rbt_failing_allocator fa;
    rbt_failing_allocator_init(&fa, 0);
    rb_config cfg = {&fa.base, 0};
    rb_router *r;
    rb_error err;
    cr_assert_eq(rb_route_table_build_router(routes, name, ops, &cfg, &r, &err), RB_OK, "%s: %s",
                 rb_ops_name(ops), err.message);
    size_t live = fa.live_bytes;
    *memory = rb_router_memory(r);
    rb_router_destroy(r);
    cr_assert_eq(fa.live_blocks, 0u, "%s: destroy frees everything", rb_ops_name(ops));
    return live;
}

/* Rule: memory() tells the truth: after build it equals the bytes the
 * implementation holds, as the counting allocator sees them (all live
 * bytes less the front end's handle, measured with rbt_nothing_ops, which
 * holds nothing).  Every router but peers (whose libraries allocate on
 * their own heap), on every shipped corpus it takes and on the empty
 * table. */
Test(guarantees, memory_equals_the_bytes_held)
{
    rb_route_table empty = {0};
    size_t ignored;
    size_t handle = live_after_build(&rbt_nothing_ops, &empty, "empty", &ignored);
    cr_assert_gt(handle, 0u, "the handle is allocated through the config's allocator");
    for (size_t c = 0; c <= rb_shipped_count(); c++) {
        rb_route_table routes = {0};
        rb_request_table reqs = {0};
        const char *name = c < rb_shipped_count() ? rb_shipped_name(c) : "the empty table";
        if (c < rb_shipped_count()) load(name, &routes, &reqs);
        unsigned need = rb_route_table_features(&routes);
        for (size_t i = 0; i < rb_registry_count(); i++) {
            const rb_router_ops *ops = rb_registry_at(i);
            if ((rb_ops_features(ops) & RB_FEAT_PEER) || (need & ~rb_ops_features(ops))) continue;
            size_t memory;
            size_t live = live_after_build(ops, &routes, name, &memory);
            cr_expect_eq(memory, live - handle, "%s on %s: memory() %zu, holds %zu",
                         rb_ops_name(ops), name, memory, live - handle);
        }
        if (c < rb_shipped_count()) {
            rb_route_table_free(&routes);
            rb_request_table_free(&reqs);
        }
    }
}
