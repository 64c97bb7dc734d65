/*
 * test_auto.c — `auto` chooses glob for tables with globs and hashseg
 * otherwise, says so in describe(), and answers like linear (the
 * conformance and differential suites check the answers; here the choice,
 * the retry after a failed build, and the memory it reports).
 */
#include "auto.h"
#include "rb_test.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

Test(auto_router, chooses_hashseg_without_globs_and_says_why)
{
    const char *routes[] = {"GET /users", "GET /users/:id", "GET /static/*path"};
    rb_router *r = rbt_build("auto", routes, 3);
    cr_expect(strstr(rb_router_describe(r), "chose hashseg") != NULL, "%s", rb_router_describe(r));
    cr_expect(strstr(rb_router_describe(r), "3 routes (1 static)") != NULL, "%s",
              rb_router_describe(r));
    rb_match m;
    cr_expect_eq(rbt_lookup(r, "GET", "/users/7", &m), RB_FOUND);
    cr_expect_eq(m.route_id, 1u);
    cr_expect_gt(rb_router_memory(r), 0u);
    rb_router_destroy(r);
}

Test(auto_router, chooses_glob_when_the_table_has_globs)
{
    const char *routes[] = {"GET /users/:id", "GET /img/*.png", "GET /v2/**/x"};
    rb_router *r = rbt_build("auto", routes, 3);
    cr_expect(strstr(rb_router_describe(r), "chose glob") != NULL, "%s", rb_router_describe(r));
    rb_match m;
    cr_expect_eq(rbt_lookup(r, "GET", "/img/a.png", &m), RB_FOUND);
    cr_expect_eq(m.route_id, 1u);
    rb_router_destroy(r);
}

/* Rule: templates alone do not send a table to glob: hashseg takes them
 * (and the fastest router keeps the template table); with a glob beside
 * them the table goes to glob, which takes both. */
Test(auto_router, chooses_hashseg_for_templates_and_glob_for_templates_with_globs)
{
    const char *routes[] = {"GET /a/{Sid}.json", "GET /a/{AccountSid}/Calls.json"};
    rb_router *r = rbt_build("auto", routes, 2);
    cr_expect(strstr(rb_router_describe(r), "chose hashseg") != NULL, "%s", rb_router_describe(r));
    rb_match m;
    cr_expect_eq(rbt_lookup(r, "GET", "/a/AC1.json", &m), RB_FOUND);
    cr_expect_eq(m.route_id, 0u);
    cr_expect(m.params[0].offset == 3 && m.params[0].len == 3, "{Sid} is AC1");
    rb_router_destroy(r);
    const char *mixed[] = {"GET /a/{Sid}.json", "GET /img/*.png"};
    r = rbt_build("auto", mixed, 2);
    cr_expect(strstr(rb_router_describe(r), "chose glob") != NULL, "%s", rb_router_describe(r));
    cr_expect_eq(rbt_lookup(r, "GET", "/a/AC1.json", &m), RB_FOUND);
    cr_expect_eq(m.route_id, 0u);
    rb_router_destroy(r);
}

/* Rule: auto's choice is data (rb__auto_choice), the router answering its
 * lookups; none before build, and none for a router that is not auto. */
Test(auto_router, reports_its_choice_as_data_after_build_only)
{
    rb_router *r, *g;
    cr_assert_eq(rb_router_create("auto", NULL, &r, NULL), RB_OK);
    cr_expect_null(rb__auto_choice(r));
    cr_expect_null(rb__auto_choice(NULL));
    rb_router_destroy(r);
    const char *globs[] = {"GET /img/*.png"};
    r = rbt_build("auto", globs, 1);
    cr_expect_str_eq(rb__auto_choice(r), "glob");
    g = rbt_build("glob", globs, 1);
    cr_expect_null(rb__auto_choice(g)); /* glob itself is no auto */
    rb_router_destroy(g);
    rb_router_destroy(r);
}

Test(auto_router, allocation_failure_during_build_can_be_retried)
{
    const char *pats[] = {"/a", "/a/:id", "/b/*rest", "/c/x/y"};
    for (size_t fail = 1; fail < 200; fail++) {
        rbt_failing_allocator fa;
        rbt_failing_allocator_init(&fa, 0);
        rb_config cfg = {&fa.base, 0};
        rb_router *r;
        rb_error err;
        cr_assert_eq(rb_router_create("auto", &cfg, &r, &err), RB_OK);
        for (size_t i = 0; i < 4; i++)
            cr_assert_eq(rb_router_add(r, RB_GET, pats[i], strlen(pats[i]), (uint32_t)i, &err),
                         RB_OK);
        fa.fail_at = fa.calls + fail; /* fail somewhere inside build */
        int rc = rb_router_build(r, &err);
        if (rc == RB_ENOMEM) rc = rb_router_build(r, &err);
        cr_expect_eq(rc, RB_OK, "fail at build call %zu: %s", fail, err.message);
        rb_match m;
        cr_expect_eq(rbt_lookup(r, "GET", "/b/x/y", &m), RB_FOUND);
        cr_expect_eq(m.route_id, 2u);
        rb_router_destroy(r);
        cr_expect_eq(fa.live_blocks, 0u, "fail at %zu: leaked", fail);
    }
}

/* ---- regressions (numbered project-wide: tests/README.md) -------------------- */

/* Regression 2.  auto accepted a 129-segment pattern in a table with globs,
 * then its build failed because glob refuses it (fuzz_differential).
 * Cause: glob's limits were only checked when glob itself was added to. */
Test(auto_router, regression_2_glob_limits_are_checked_at_add_not_at_build)
{
    char pat[600];
    size_t n = 0;
    for (int i = 0; i < 129; i++) n += (size_t)snprintf(pat + n, sizeof pat - n, "/s");
    rb_router *r;
    rb_error err;
    cr_assert_eq(rb_router_create("auto", NULL, &r, &err), RB_OK);
    cr_assert_eq(rb_router_add(r, RB_GET, "/img/*.png", 10, 0, &err), RB_OK);
    cr_expect_eq(rb_router_add(r, RB_GET, pat, n, 1, &err), RB_ELIMIT, "long route refused");
    cr_expect_eq(err.offset, 128u * 2 + 1, "%s", err.message);
    cr_assert_eq(rb_router_build(r, &err), RB_OK, "%s", err.message);
    rb_router_destroy(r);

    /* the other order: a long static route first, then the first glob route */
    cr_assert_eq(rb_router_create("auto", NULL, &r, &err), RB_OK);
    cr_assert_eq(rb_router_add(r, RB_GET, pat, n, 0, &err), RB_OK, "no globs yet: hashseg");
    cr_expect_eq(rb_router_add(r, RB_GET, "/img/*.png", 10, 1, &err), RB_ELIMIT);
    cr_expect_eq(err.offset, 5u, "%s", err.message);
    cr_assert_eq(rb_router_build(r, &err), RB_OK, "%s", err.message);
    cr_expect(strstr(rb_router_describe(r), "chose hashseg") != NULL);
    rb_router_destroy(r);
}

/* ---- regressions (one per fixed bug, cause in a line) ------------------------ */

/* Build a router of ops `auto` over discord.routes (plus extra, and with
 * hashes narrowed to `bits` by the hook), compare with linear on discord's
 * requests; returns the router's describe() in desc, its choice in pick. */
static void auto_on_discord(const char *extra, unsigned bits, char *desc, size_t cap, char *pick)
{
    rb_route_table t = {0};
    rb_request_table q = {0};
    char rpath[1024];
    rbt_load_shipped("discord", &t, &q, rpath, sizeof rpath);
    if (extra) cr_assert_eq(rb_route_table_append(&t, RB_GET, extra, strlen(extra), 0), RB_OK);
    rb_error err;
    rb_router *r, *lin;
    rb_config cfg = {NULL, 42};
    cr_assert_eq(rb_router_create("auto", &cfg, &r, &err), RB_OK);
    cr_assert_eq(rb__auto_set_hash_bits((void *)(uintptr_t)rb__router_impl(r), bits), RB_OK);
    cr_assert_eq(rb_route_table_add_to(&t, "discord", r, NULL, NULL, &err), RB_OK, "%s",
                 err.message);
    cr_assert_eq(rb_router_build(r, &err), RB_OK, "auto refused the table: %s", err.message);
    cr_assert_eq(
        rb_route_table_build_router(&t, "discord", rb_registry_find("linear"), NULL, &lin, &err),
        RB_OK);
    rbt_expect_like_on(r, lin, &q, "auto");
    snprintf(desc, cap, "%s", rb_router_describe(r));
    cr_assert(rb__auto_choice(r) != NULL);
    snprintf(pick, 16, "%s", rb__auto_choice(r));
    rb_router_destroy(r);
    rb_router_destroy(lin);
    rb_route_table_free(&t);
    rb_request_table_free(&q);
}

/* 22. When the chosen router refuses a table with RB_ELIMIT at build (hash
 *    probes over the limit under every seed it tries), auto failed the whole
 *    table.  Cause: no fallback.  Now it hands the table to radix (no hash)
 *    or, with globs, to linear, and says so in describe(). */
Test(auto_router, regression_22_falls_back_when_its_choice_refuses_the_table)
{
    char desc[512], pick[16];
    auto_on_discord(NULL, 0, desc, sizeof desc, pick);
    cr_expect(strstr(desc, "chose hashseg, which refused the table") != NULL, "%s", desc);
    cr_expect(strstr(desc, "fell back to radix") != NULL, "%s", desc);
    cr_expect_str_eq(pick, "radix");
    auto_on_discord("/img/*.png", 0, desc, sizeof desc, pick);
    cr_expect(strstr(desc, "chose glob, which refused the table") != NULL, "%s", desc);
    cr_expect(strstr(desc, "fell back to linear") != NULL, "%s", desc);
    cr_expect_str_eq(pick, "linear");
    /* full hashes: no fallback */
    auto_on_discord(NULL, 64, desc, sizeof desc, pick);
    cr_expect(strstr(desc, "chose hashseg: ") != NULL, "%s", desc);
    cr_expect_str_eq(pick, "hashseg");
}

/* Regression 3.  auto reported glob's '**' limit at the pattern's first
 * glob, not at the '**' that broke it, and skipped glob's total-segments
 * limit.  Cause: auto kept its own copy of glob's limits, which drifted;
 * now both call rb__glob_admit, so on tables with globs auto refuses
 * exactly the routes glob refuses, with the same code and byte offset. */
Test(auto_router, regression_3_auto_refuses_at_add_exactly_what_glob_refuses)
{
    rb_router *g, *a;
    rb_error eg, ea;
    cr_assert_eq(rb_router_create("glob", NULL, &g, &eg), RB_OK);
    cr_assert_eq(rb_router_create("auto", NULL, &a, &ea), RB_OK);
    char pat[2048];
    size_t refused = 0;
    for (uint32_t id = 0; id < 41; id++) {
        /* 40 routes of 32 '**' (31 nested each: 33 routes fit in 1024), then
         * one of 129 segments */
        size_t n = (size_t)snprintf(pat, sizeof pat, "/r%u", id);
        for (int k = 0; k < (id < 40 ? 32 : 128); k++)
            n += (size_t)snprintf(pat + n, sizeof pat - n, id < 40 ? "/**" : "/s");
        int rg = rb_router_add(g, RB_GET, pat, n, id, &eg);
        int ra = rb_router_add(a, RB_GET, pat, n, id, &ea);
        cr_expect_eq(ra, rg, "route %u: auto %d (%s), glob %d (%s)", id, ra, ea.message, rg,
                     eg.message);
        if (rg == RB_OK) continue;
        refused++;
        cr_expect_eq(rg, RB_ELIMIT, "%s", eg.message);
        cr_expect_eq(ea.offset, eg.offset, "route %u: auto at byte %zu (%s), glob at %zu (%s)", id,
                     ea.offset, ea.message, eg.offset, eg.message);
    }
    cr_expect_eq(refused, 8u, "routes 33..39 ('**' budget) and 40 (depth)");
    cr_assert_eq(rb_router_build(g, &eg), RB_OK, "%s", eg.message);
    cr_assert_eq(rb_router_build(a, &ea), RB_OK, "%s", ea.message);
    rb_router_destroy(g);
    rb_router_destroy(a);
}
