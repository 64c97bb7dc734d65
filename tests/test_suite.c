/*
 * test_suite.c — a measured session from plain inputs (bench/suite/suite.h):
 * no argv, no FILE *, no command name; what happens is told through the
 * hooks, the result is the bundle.  Timed with a tiny protocol: nothing
 * here asserts a time.
 */
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
    (void)scenario, (void)err;
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
