/*
 * test_alloc_failure.c — every router under an allocator that fails the
 * Nth call, for every N until a full add+build succeeds: each call fails
 * cleanly (RB_ENOMEM), a failed add leaves the route count unchanged, the
 * router still works afterwards when the allocator recovers, and nothing
 * leaks (live blocks == 0 after destroy; LSan in the sanitizer build).
 */
#include "rb_test.h"
#include "verify.h"

#include <criterion/criterion.h>
#include <string.h>

static const char *const table[] = {
    "GET /users",     "GET /users/:id",  "GET /users/me", "POST /users/:id/posts",
    "GET /static/*p", "* /a/b/c/d/e",    "GET /a/:x/c",   "DELETE /users/:id",
    "GET /",          "GET /users/:id/", "GET /user",     "GET /username/:n",
};
#define NTABLE (sizeof table / sizeof table[0])

/* Returns true when the whole table was added and built. */
static bool try_build(const rb_router_ops *ops, size_t fail_at, rbt_failing_allocator *fa)
{
    rbt_failing_allocator_init(fa, fail_at);
    rb_config cfg = {&fa->base, 0};
    rb_router *r;
    rb_error err;
    int rc = rb_router_create_ops(ops, &cfg, &r, &err);
    if (rc < 0) {
        cr_expect_eq(rc, RB_ENOMEM, "%s create: %s", rb_ops_name(ops), err.message);
        cr_expect_null(r);
        return false;
    }
    bool complete = true;
    for (size_t i = 0; i < NTABLE; i++) {
        const char *sp = strchr(table[i], ' ');
        int m = rb_method_parse(table[i], (size_t)(sp - table[i]));
        size_t before = rb_router_count(r);
        rc = rb_router_add(r, m, sp + 1, strlen(sp + 1), (uint32_t)i, &err);
        if (rc == RB_ENOMEM) {
            cr_expect_eq(rb_router_count(r), before, "%s: failed add changed the count",
                         rb_ops_name(ops));
            complete = false;
            /* retry once: the allocator only fails once */
            rc = rb_router_add(r, m, sp + 1, strlen(sp + 1), (uint32_t)i, &err);
        }
        cr_expect(rc == RB_OK || rc == RB_EUNSUPPORTED, "%s add %s: %d %s", rb_ops_name(ops),
                  table[i], rc, err.message);
    }
    rc = rb_router_build(r, &err);
    if (rc == RB_ENOMEM) {
        complete = false;
        rc = rb_router_build(r, &err); /* a failed build may be retried */
    }
    cr_expect_eq(rc, RB_OK, "%s build after failure at %zu: %s", rb_ops_name(ops), fail_at,
                 err.message);
    if (rc == RB_OK) {
        rb_match m;
        cr_expect_eq(rbt_lookup(r, "GET", "/users", &m), RB_FOUND, "%s works after failure",
                     rb_ops_name(ops));
        cr_expect_eq(m.route_id, 0u);
    }
    rb_router_destroy(r);
    cr_expect_eq(fa->live_blocks, 0u, "%s: fail at %zu leaked %zu blocks", rb_ops_name(ops),
                 fail_at, fa->live_blocks);
    return complete && fa->calls < fail_at;
}

Test(alloc_failure, every_router_fails_cleanly_at_every_allocation, .timeout = 300)
{
    for (size_t i = 0; i < rb_registry_count(); i++) {
        const rb_router_ops *ops = rb_registry_at(i);
        size_t n = 1;
        rbt_failing_allocator fa;
        while (!try_build(ops, n, &fa) && n < 100000) n++;
        cr_expect_lt(n, 100000u, "%s never completed", rb_ops_name(ops));
    }
}
