/*
 * test_alloc_failure.c — every router under an allocator that fails, on a
 * table that exercises every growth path: a few hundred routes with globs,
 * '**' (nested), templates, long segments, wide fan-out, params and
 * catch-alls (auto hands it to glob; the routers without globs or
 * templates take the rest).
 *
 * Two failure modes, for every allocation N of a complete add + build (all
 * of them when there are at most 300; else the first 100, the last 100 and
 * 100 spread evenly over the adds and over the build each, so the test
 * stays within seconds under ASan):
 *   - the Nth allocation fails once: the call that made it returns
 *     RB_ENOMEM, a failed add leaves the route count unchanged, and retrying
 *     it (and the build) succeeds;
 *   - every allocation from N on fails: each call fails cleanly until the
 *     allocator recovers, then the rest of the table is added and built.
 * Either way the router built at the end answers every request exactly like
 * linear (route id, every span, the 405 mask), and destroy leaves no block
 * behind (live blocks == 0; LSan in the sanitizer build).
 */
#include "rb_test.h"
#include "reqgen.h"
#include "verify.h"

#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdio.h>
#include <string.h>

/* The table: deterministic, about 390 routes. */
static rb_route_table alloc_table(void)
{
    rb_route_table t = {0};
    char pat[512], longseg[161];
    memset(longseg, 'L', 160);
    longseg[160] = '\0';
    size_t line = 1;
#define ADD(method, ...)                                                                           \
    do {                                                                                           \
        int n_ = snprintf(pat, sizeof pat, __VA_ARGS__);                                           \
        cr_assert_eq(rb_route_table_append(&t, method, pat, (size_t)n_, line++), RB_OK, "%s",      \
                     pat);                                                                         \
    } while (0)
    for (int i = 0; i < 120; i++) ADD(RB_GET, "/fan/s%d", i);            /* wide fan-out */
    for (int i = 0; i < 40; i++) ADD(RB_POST, "/fan/s%d/:id/x%d", i, i); /* params below */
    for (int i = 0; i < 30; i++) ADD(RB_GET, "/long/%s%d/%s", longseg, i, longseg + i);
    for (int i = 0; i < 30; i++) ADD(RB_ANY, "/files/u%d/*rest", i); /* catch-alls */
    for (int i = 0; i < 30; i++) ADD(RB_GET, "/img/d%d/*.png", i);   /* globs */
    for (int i = 0; i < 20; i++) ADD(RB_GET, "/img/d%d/img-??", i);
    for (int i = 0; i < 20; i++) ADD(RB_PUT, "/img/d%d/[a-c]*x", i);
    for (int i = 0; i < 20; i++) ADD(RB_GET, "/v2/**/r%d/manifests/:ref", i); /* '**' */
    for (int i = 0; i < 20; i++) ADD(RB_GET, "/v3/**/a%d/**/b/:x", i);        /* nested '**' */
    for (int i = 0; i < 20; i++) { /* templates, beside a param */
        ADD(RB_GET, "/tm/c%d/{sid}.json", i);
        ADD(RB_PUT, "/tm/c%d/v{major}.{minor}", i);
        ADD(RB_GET, "/tm/c%d/:id", i);
    }
    ADD(RB_GET, "/");
    ADD(RB_DELETE, "/fan/:any");
#undef ADD
    return t;
}

typedef struct fixture {
    rb_route_table t;
    rb_request_table q;
} fixture;

/* linear over the routes ops accepts (the reference), and which they are. */
static rb_router *reference(const fixture *f, const rb_router_ops *ops, bool *accepted)
{
    rb_router *r, *lin;
    rb_error err;
    rb_config cfg = {NULL, 7};
    cr_assert_eq(rb_router_create_ops(ops, &cfg, &r, &err), RB_OK);
    cr_assert_eq(rb_router_create("linear", NULL, &lin, &err), RB_OK);
    for (size_t i = 0; i < f->t.count; i++) {
        const rb_route_entry *e = &f->t.routes[i];
        int rc = rb_router_add(r, e->method, rb_route_pattern(&f->t, i), e->len, (uint32_t)i, &err);
        cr_assert(rc == RB_OK || rc == RB_EUNSUPPORTED, "%s", err.message);
        accepted[i] = rc == RB_OK;
        if (accepted[i])
            cr_assert_eq(rb_router_add(lin, e->method, rb_route_pattern(&f->t, i), e->len,
                                       (uint32_t)i, &err),
                         RB_OK);
    }
    cr_assert_eq(rb_router_build(lin, &err), RB_OK);
    rb_router_destroy(r);
    return lin;
}

/* Add every route and build, under fa (set up by the caller).  In sticky
 * mode the allocator recovers after the first failure.  Returns whether an
 * allocation failed. */
static bool run(const fixture *f, const rb_router_ops *ops, const rb_router *lin, const bool *want,
                rbt_failing_allocator *fa, bool sticky, unsigned long n)
{
    char ctx[96];
    snprintf(ctx, sizeof ctx, "%s, %s %lu", rb_ops_name(ops), sticky ? "failing from" : "failing",
             n);
    rb_config cfg = {&fa->base, 7};
    rb_router *r;
    rb_error err;
    int rc = rb_router_create_ops(ops, &cfg, &r, &err);
    if (rc < 0) {
        cr_expect_eq(rc, RB_ENOMEM, "%s: create: %s", ctx, err.message);
        cr_expect_null(r);
        return true;
    }
    bool accepted[1024] = {false};
    cr_assert_leq(f->t.count, 1024u);
    for (size_t i = 0; i < f->t.count; i++) {
        const rb_route_entry *e = &f->t.routes[i];
        const char *p = rb_route_pattern(&f->t, i);
        for (int attempt = 0; attempt < 2; attempt++) {
            size_t before = rb_router_count(r);
            rc = rb_router_add(r, e->method, p, e->len, (uint32_t)i, &err);
            if (rc != RB_ENOMEM) break;
            cr_expect_eq(rb_router_count(r), before, "%s: a failed add changed the count", ctx);
            fa->fail_from = 0; /* recover; retry once */
        }
        cr_expect(rc == RB_OK || rc == RB_EUNSUPPORTED, "%s: add %.*s: %s", ctx, (int)e->len, p,
                  err.message);
        accepted[i] = rc == RB_OK;
        cr_expect_eq(accepted[i], want[i], "%s: route %zu accepted differently", ctx, i);
    }
    rc = rb_router_build(r, &err);
    if (rc == RB_ENOMEM) {
        fa->fail_from = 0;
        rc = rb_router_build(r, &err); /* a failed build may be retried */
    }
    cr_expect_eq(rc, RB_OK, "%s: build: %s", ctx, err.message);
    if (rc == RB_OK) rbt_expect_like_on(r, lin, &f->q, ctx);
    rb_router_destroy(r);
    cr_expect_eq(fa->live_blocks, 0ul, "%s: %lu blocks leaked", ctx, fa->live_blocks);
    return fa->failed > 0;
}

/* Allocations of a complete add + build of f with ops: (adds, total). */
static void count_allocations(const fixture *f, const rb_router_ops *ops, unsigned long *adds,
                              unsigned long *total)
{
    rbt_failing_allocator fa;
    rbt_failing_allocator_init(&fa, 0);
    rb_config cfg = {&fa.base, 7};
    rb_router *r;
    rb_error err;
    cr_assert_eq(rb_router_create_ops(ops, &cfg, &r, &err), RB_OK);
    size_t refused; /* routers without some feature take the rest */
    cr_assert_eq(rb_route_table_add_to(&f->t, "alloc", r, &refused, NULL, &err), RB_OK, "%s",
                 err.message);
    *adds = fa.calls;
    cr_assert_eq(rb_router_build(r, &err), RB_OK, "%s", err.message);
    *total = fa.calls;
    rb_router_destroy(r);
}

Test(alloc_failure, every_router_fails_cleanly_and_recovers_on_a_hard_table, .timeout = 600)
{
    fixture f = {alloc_table(), {0}};
    rb_reqgen_config qc = {200, 150000, 100000, 3, RB_DIST_UNIFORM};
    rb_error err;
    cr_assert_eq(rb_requests_generate(&f.t, &qc, &f.q, NULL, &err), RB_OK, "%s", err.message);
    for (size_t i = 0; i < rb_registry_count(); i++) {
        const rb_router_ops *ops = rb_registry_at(i);
        if (rb_ops_features(ops) & RB_FEAT_PEER) continue; /* allocates on its own heap */
        unsigned long adds, total, tried = 0;
        count_allocations(&f, ops, &adds, &total);
        static bool accepted[1024];
        cr_assert_leq(f.t.count, 1024u);
        rb_router *lin = reference(&f, ops, accepted);
        /* every N of up to 300; else the first 100, the last 100, and 100
         * more spread evenly in the adds and the build each */
        unsigned long add_stride = adds / 100 + 1, build_stride = (total - adds) / 100 + 1;
        for (unsigned long n = 1; n <= total; n++) {
            bool sample = total <= 300 || n <= 100 || n + 100 > total ||
                          (n <= adds ? n % add_stride == 0 : (n - adds) % build_stride == 0);
            if (!sample) continue;
            tried++;
            rbt_failing_allocator fa;
            rbt_failing_allocator_init(&fa, n);
            cr_expect(run(&f, ops, lin, accepted, &fa, false, n), "%s: allocation %lu never failed",
                      rb_ops_name(ops), n);
            rbt_failing_allocator_init(&fa, 0);
            fa.fail_from = n;
            run(&f, ops, lin, accepted, &fa, true, n);
        }
        rb_router_destroy(lin);
        cr_log_info("%s: %lu allocations (%lu in add), %lu tried in each mode", rb_ops_name(ops),
                    total, adds, tried);
    }
    rb_route_table_free(&f.t);
    rb_request_table_free(&f.q);
}
