/*
 * test_suite_estimate.c — a session before its work
 * (bench/suite/suite_estimate.h): the passes count both conditions, the
 * estimate is the sum of its passes, and linear's warning names exactly
 * the tables of 10,000 routes or more and the other routers.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <string.h>

#include "metric.h"
#include "router.h"
#include "suite_estimate.h"

static void session(rb_suite *s, const char *scenarios, const char *const *routers, size_t n)
{
    rb_error err;
    rb_suite_init(s);
    cr_assert_eq(rb_scenario_list_parse(&s->scenarios, scenarios, &err), RB_OK, "%s", err.message);
    for (size_t k = 0; k < n; k++)
        cr_assert_eq(rb_suite_add_ops(s, rb_registry_find(routers[k]), routers[k], &err), RB_OK);
}

Test(suite_estimate, linear_warning_names_big_tables_and_the_others)
{
    const char *routers[] = {"radix", "linear", "hashseg"};
    rb_suite s;
    session(&s, "params-100,mixed-10000,static-1000,glob-10000", routers, 3);
    char tables[128], others[128];
    cr_expect_eq(rb_suite_linear_slow(&s, tables, sizeof tables, others, sizeof others), 2);
    cr_expect_str_eq(tables, "mixed-10000, glob-10000");
    cr_expect_str_eq(others, "radix,hashseg");
    rb_suite_free(&s);
}

Test(suite_estimate, no_linear_no_warning)
{
    const char *routers[] = {"radix", "hashseg"};
    rb_suite s;
    session(&s, "mixed-10000", routers, 2);
    char tables[64] = "x", others[64] = "y";
    cr_expect_eq(rb_suite_linear_slow(&s, tables, sizeof tables, others, sizeof others), 0);
    cr_expect_str_eq(tables, "");
    rb_suite_free(&s);
}

Test(suite_estimate, both_conditions_double_the_passes_and_the_estimate_sums_them)
{
    const char *routers[] = {"radix", "hashseg"};
    rb_suite s;
    session(&s, "params-100,static-1000", routers, 2);
    cr_expect_eq(rb_suite_passes(&s), 2);
    s.both_conditions = true;
    cr_expect_eq(rb_suite_passes(&s), 4);
    double sum = 0;
    for (size_t i = 0; i < 2; i++)
        sum += rb_suite_pass_estimate(&s, i, false, 1, NULL) +
               rb_suite_pass_estimate(&s, i, true, 1, NULL);
    cr_expect(sum > 0);
    cr_expect(fabs(rb_suite_estimate(&s, 1) - sum) <= 1e-9 * sum, "%g vs %g",
              rb_suite_estimate(&s, 1), sum);
    rb_suite_free(&s);
}

/* Time is measured here; a counted metric in a Callgrind child of this
 * process (this test runs outside Valgrind and is no such child). */
Test(suite_estimate, counted_metrics_run_in_a_callgrind_child)
{
    rb_error err;
    cr_expect_eq(rb_suite_metric_where(RB_METRIC_TIME, &err), RB_SUITE_METRIC_HERE);
    cr_expect_eq(rb_suite_metric_where(RB_METRIC_INSTRUCTIONS, &err), RB_SUITE_METRIC_CALLGRIND,
                 "%s", err.message);
    cr_expect_eq(rb_suite_metric_where(RB_METRIC_CYCLES_EST, &err), RB_SUITE_METRIC_CALLGRIND);
}
