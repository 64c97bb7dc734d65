/*
 * test_suite.c — a measured session from plain inputs (bench/suite/suite.h):
 * no argv, no FILE *, no command name; what happens is told through the
 * hooks, the result is the bundle.  Timed with a tiny protocol: nothing
 * here asserts a time.
 */
#include "base_internal.h"
#include "bundle.h"
#include "router.h"
#include "suite.h"

#include <criterion/criterion.h>
#include <string.h>

typedef struct heard {
    int begun, passes, measured, skipped, failed;
    char skipped_list[256];
} heard;

static void on_begun(void *ctx, const rb_bundle *b)
{
    heard *h = ctx;
    h->begun++;
    cr_expect_eq(b->nscenarios, 0, "nothing measured before begun");
}

static void on_pass(void *ctx, size_t i, bool cold, const char *what)
{
    (void)i, (void)cold, (void)what;
    ((heard *)ctx)->passes++;
}

static void on_measured(void *ctx, const rb_bundle *b, const rb_suite_pass *p)
{
    heard *h = ctx;
    h->measured++;
    cr_expect_eq(p->run->nsubjects, b->scenarios[b->nscenarios - 1].nresults);
}

static void on_skipped(void *ctx, const char *scenario, const char *skipped,
                       const rb_suite_refusals *ref)
{
    heard *h = ctx;
    (void)scenario, (void)ref;
    h->skipped++;
    snprintf(h->skipped_list, sizeof h->skipped_list, "%s", skipped);
}

static void on_failed(void *ctx, const char *scenario, const rb_error *err)
{
    (void)scenario;
    cr_log_info("failed: %s", err->message);
    ((heard *)ctx)->failed++;
}

/* A session of routers a (baseline) and b over the scenarios spec, with a
 * protocol too short to mean anything and fast enough for a test. */
static void make(rb_suite *s, const char *a, const char *b, const char *spec)
{
    rb_error err;
    rb_suite_init(s);
    s->proto.trials = 3;
    s->proto.warmup = 0;
    s->proto.min_trial_ms = 0.05;
    cr_assert_eq(rb_scenario_list_parse(&s->scenarios, spec, &err), RB_OK, "%s", err.message);
    cr_assert_eq(rb_suite_add_ops(s, rb_registry_find(a), a, &err), RB_OK);
    cr_assert_eq(rb_suite_add_ops(s, rb_registry_find(b), b, &err), RB_OK);
}

Test(suite, a_session_from_plain_inputs_returns_the_bundle)
{
    rb_suite s;
    make(&s, "radix", "linear", "static-100");
    heard h = {0};
    rb_suite_hooks hooks = {&h, on_begun, on_pass, NULL, NULL, on_measured, on_skipped, on_failed};
    rb_bundle b;
    rb_error err;
    int status = rb_suite_run(&s, &hooks, &b, &err);
    cr_expect_eq(status, RB_SUITE_OK, "%s", err.message);
    cr_expect_eq(h.begun, 1);
    cr_expect_eq(h.passes, 1);
    cr_expect_eq(h.measured, 1);
    cr_expect_eq(h.skipped + h.failed, 0);
    cr_assert_eq(b.nscenarios, 1);
    cr_expect_str_eq(b.scenarios[0].name, "static-100");
    cr_expect_eq(b.scenarios[0].nresults, 2);
    cr_expect_str_eq(b.baseline, "radix");
    for (size_t k = 0; k < b.scenarios[0].nresults; k++)
        cr_expect_eq(b.scenarios[0].results[k].trials, 3, "--trials 3 for each router");
    rb_bundle_free(&b);
    rb_suite_free(&s);
}

Test(suite, all_or_nothing_skips_a_scenario_one_router_lacks)
{
    rb_suite s;
    make(&s, "radix", "floor", "params-100"); /* floor: static routes only */
    s.all_or_nothing = true;
    heard h = {0};
    rb_suite_hooks hooks = {&h, on_begun, on_pass, NULL, NULL, on_measured, on_skipped, on_failed};
    rb_bundle b;
    rb_error err;
    cr_expect_eq(rb_suite_run(&s, &hooks, &b, &err), RB_SUITE_OK);
    cr_expect_eq(h.skipped, 1);
    cr_expect_str_eq(h.skipped_list, "floor");
    cr_expect_eq(h.measured, 0);
    cr_expect_eq(b.nscenarios, 0);
    rb_bundle_free(&b);
    rb_suite_free(&s);
}

Test(suite, both_conditions_measure_warm_then_cold_and_show_the_table_once)
{
    rb_suite s;
    make(&s, "radix", "hashseg", "static-100");
    s.both_conditions = true;
    s.app_bytes = 4096;
    heard h = {0};
    rb_suite_hooks hooks = {&h, on_begun, on_pass, NULL, NULL, on_measured, on_skipped, on_failed};
    rb_bundle b;
    rb_error err;
    cr_expect_eq(rb_suite_run(&s, &hooks, &b, &err), RB_SUITE_OK, "%s", err.message);
    cr_expect_eq(h.passes, 2);
    cr_expect_eq(h.measured, 1, "the table is shown once both conditions are measured");
    cr_assert_eq(b.nscenarios, 2);
    cr_expect(rb_bundle_is_condition(&b, 1));
    cr_expect_eq(b.scenarios[1].cache, RB_BUNDLE_COLD);
    cr_expect_eq(b.scenarios[1].mode, RB_BUNDLE_LATENCY);
    rb_bundle_free(&b);
    rb_suite_free(&s);
}

Test(suite, no_hooks_is_allowed)
{
    rb_suite s;
    make(&s, "radix", "linear", "static-100");
    rb_bundle b;
    rb_error err;
    cr_expect_eq(rb_suite_run(&s, NULL, &b, &err), RB_SUITE_OK, "%s", err.message);
    cr_expect_eq(b.nscenarios, 1);
    rb_bundle_free(&b);
    rb_suite_free(&s);
}

/* A router whose build() refuses the table, whatever the reason: the
 * features it claims cover everything, yet it refuses at build. */
static int refusing_create(const rb_config *cfg, void **out, rb_error *err)
{
    (void)cfg, (void)err;
    static int token;
    *out = &token;
    return RB_OK;
}
static void refusing_destroy(void *impl)
{
    (void)impl;
}
static int refusing_add(void *impl, const rb_route *r, rb_error *err)
{
    (void)impl, (void)r, (void)err;
    return RB_OK;
}
static int refusing_build(void *impl, rb_error *err)
{
    (void)impl;
    return rb__error(err, RB_ELIMIT, RB_NO_OFFSET, "refusing: this table is too much for me");
}
static int refusing_lookup(const void *impl, int method, const char *path, size_t len, rb_match *m)
{
    (void)impl, (void)method, (void)path, (void)len;
    memset(m, 0, sizeof *m);
    m->outcome = RB_NOT_FOUND;
    return RB_OK;
}
static size_t refusing_memory(const void *impl)
{
    (void)impl;
    return 0;
}
static const rb_router_ops refusing_ops = {
    .abi_version = RB_ROUTER_ABI_VERSION,
    .name = "refusing",
    .summary = "a test router whose build refuses every table",
    .features = RB_FEAT_PARAMS | RB_FEAT_CATCHALL | RB_FEAT_GLOB | RB_FEAT_TEMPLATE,
    .create = refusing_create,
    .destroy = refusing_destroy,
    .add = refusing_add,
    .build = refusing_build,
    .lookup = refusing_lookup,
    .memory = refusing_memory,
};

/* Only the limit and compiled were left out when their build refused; any
 * other router's refusal failed the whole scenario (outside choose).  A
 * refusal by build() is now the general rule: the router is left out with
 * its reason and the others are measured; all or nothing skips. */
Test(suite, regression_222_a_router_whose_build_refuses_is_left_out_with_its_reason)
{
    for (int aon = 0; aon < 2; aon++) {
        rb_suite s;
        make(&s, "radix", "linear", "params-100");
        rb_error err;
        cr_assert_eq(rb_suite_add_ops(&s, &refusing_ops, "refusing", &err), RB_OK);
        s.all_or_nothing = aon;
        heard h = {0};
        rb_suite_hooks hooks = {&h,   on_begun,    on_pass,    NULL,
                                NULL, on_measured, on_skipped, on_failed};
        rb_bundle b;
        cr_expect_eq(rb_suite_run(&s, &hooks, &b, &err), RB_SUITE_OK, "%s", err.message);
        cr_expect_eq(h.failed, 0, "a refusal is not a failure");
        if (aon) {
            cr_expect_eq(h.skipped, 1, "all or nothing: the scenario is skipped");
            cr_expect_eq(b.nscenarios, 0);
        } else {
            cr_assert_eq(b.nscenarios, 1);
            const rb_bundle_scenario *sc = &b.scenarios[0];
            cr_expect_eq(sc->nresults, 2, "radix and linear measured");
            cr_assert_eq(sc->nrefused, 1);
            cr_expect_str_eq(sc->refused[0].router, "refusing");
            cr_expect(strstr(sc->refused[0].reason, "too much for me") != NULL, "%s",
                      sc->refused[0].reason);
        }
        rb_bundle_free(&b);
        rb_suite_free(&s);
    }
}
