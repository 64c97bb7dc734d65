/*
 * test_ci_formats.c — the two formats for CI systems in the table of
 * outputs (bench/report/output.h), on synthetic bundles whose figures are
 * known: JUnit XML (report_junit.c) validated against tests/junit.xsd with
 * xmllint, one testcase per router and scenario, failed where the gate
 * fails; Bencher Metric Format (report_bmf.c) checked against its
 * published shape (an object of benchmarks, each an object of measures,
 * each {value, lower_value, upper_value} numbers).
 */
#include "bundle.h"
#include "gate.h"
#include "metric.h"
#include "output.h"
#include "router.h"
#include "synth_bundle.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TRIALS 9

static void make_bundle(rb_bundle *b, const char *const *scenarios, size_t n)
{
    rb_bundle_init(b);
    snprintf(b->baseline, sizeof b->baseline, "radix");
    b->trials = TRIALS;
    const char *const routers[] = {"radix", "hashseg", "ctrie"};
    for (size_t r = 0; r < 3; r++)
        cr_assert_eq(rb_bundle_add_router(b, routers[r], "a router", RB_FEAT_PARAMS), RB_OK);
    for (size_t i = 0; i < n; i++)
        synth_three_routers(b, scenarios[i], RB_BUNDLE_THROUGHPUT, RB_BUNDLE_WARM);
    rb_error err;
    cr_assert_eq(rb_bundle_compute_geomeans(b, &err), RB_OK, "%s", err.message);
}

/* The gate on ctrie against radix at threshold R. */
static void gate(rb_bundle *b, double threshold)
{
    b->gate.on = true;
    b->gate.threshold = threshold;
    snprintf(b->gate.a, sizeof b->gate.a, "radix");
    snprintf(b->gate.b, sizeof b->gate.b, "ctrie");
    rb_error err;
    cr_assert_eq(rb_bundle_decide_gate(b, &err), RB_OK, "%s", err.message);
}

static char *render(const char *format, const rb_bundle *b)
{
    const rb_output *o = rb_output_find(format);
    cr_assert(o, "no output %s in the table", format);
    rb_buf out = {0};
    rb_error err;
    cr_assert_eq(rb_output_render(o, b, &out, &err), RB_OK, "%s", err.message);
    cr_assert(out.data);
    return out.data;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

/* xmllint --schema tests/junit.xsd on text: its exit status. */
static int validate(const char *text)
{
    char path[] = "/tmp/rb-junit-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "xmllint --noout --schema %s/tests/junit.xsd %s 2>/dev/null",
             RB_SOURCE_DIR, path);
    int rc = system(cmd);
    remove(path);
    return rc;
}

Test(junit, a_testcase_per_router_and_scenario_validates_against_the_schema)
{
    rb_bundle b;
    const char *const names[] = {"static-100", "params-100"};
    make_bundle(&b, names, 2);
    char *x = render("junit", &b);
    cr_expect_eq(validate(x), 0, "%s", x);
    cr_expect_eq(count(x, "<testcase "), 6, "%s", x);
    cr_expect_eq(count(x, "<testsuite "), 2, "%s", x);
    cr_expect(strstr(x, "tests=\"6\" failures=\"0\""), "%s", x);
    cr_expect_eq(count(x, "<failure"), 0, "no gate, no failure: %s", x);
    cr_expect(strstr(x, "speed ratio ctrie/radix 0.667 [0.667, 0.667]"), "%s", x);
    free(x);
    rb_bundle_free(&b);
}

Test(junit, the_gates_failure_is_on_the_candidates_testcase_with_ratio_and_interval)
{
    rb_bundle b;
    const char *const names[] = {"params-100"};
    make_bundle(&b, names, 1);
    gate(&b, 0.97);
    cr_assert_eq(b.gate.outcome, RB_GATE_FAILED);
    char *x = render("junit", &b);
    cr_expect_eq(validate(x), 0, "%s", x);
    cr_expect_eq(count(x, "<failure type=\"gate\""), 1, "%s", x);
    const char *fail = strstr(x, "<failure");
    const char *ctrie = strstr(x, "name=\"ctrie\"");
    cr_assert(fail && ctrie && ctrie < fail, "the failure belongs to ctrie: %s", x);
    cr_expect(strstr(fail, "message=\"speed ratio ctrie/radix 0.667 [0.667, 0.667] (95% "
                           "interval), threshold 0.97: gate failed\""),
              "%s", x);
    cr_expect(strstr(x, "tests=\"3\" failures=\"1\""), "%s", x);
    free(x);
    rb_bundle_free(&b);
}

Test(junit, a_gate_on_several_scenarios_fails_the_geometric_mean)
{
    rb_bundle b;
    const char *const names[] = {"static-100", "params-100"};
    make_bundle(&b, names, 2);
    gate(&b, 0.97);
    char *x = render("junit", &b);
    cr_expect_eq(validate(x), 0, "%s", x);
    cr_expect_eq(count(x, "<testcase "), 7, "%s", x);
    cr_expect(strstr(x, "<testsuite name=\"geometric mean\" tests=\"1\" failures=\"1\""), "%s", x);
    cr_expect(strstr(x, "tests=\"7\" failures=\"1\""), "%s", x);
    free(x);
    rb_bundle_free(&b);
}

Test(junit, names_with_markup_are_escaped_and_still_valid)
{
    rb_bundle b;
    const char *const names[] = {"a<b>&\"c\""};
    make_bundle(&b, names, 1);
    char *x = render("junit", &b);
    cr_expect_eq(validate(x), 0, "%s", x);
    cr_expect(strstr(x, "name=\"a&lt;b&gt;&amp;&quot;c&quot;\""), "%s", x);
    free(x);
    rb_bundle_free(&b);
}

/* The published shape: {NAME: {MEASURE: {"value": n, "lower_value": n,
 * "upper_value": n}}}, the bounds optional, lower <= value <= upper. */
static void expect_bmf_shape(const cJSON *doc)
{
    cr_assert(cJSON_IsObject(doc));
    for (const cJSON *bench = doc->child; bench; bench = bench->next) {
        cr_expect(cJSON_IsObject(bench) && bench->child, "%s", bench->string);
        for (const cJSON *m = bench->child; m; m = m->next) {
            const cJSON *v = cJSON_GetObjectItem(m, "value");
            const cJSON *lo = cJSON_GetObjectItem(m, "lower_value");
            const cJSON *hi = cJSON_GetObjectItem(m, "upper_value");
            cr_assert(cJSON_IsNumber(v), "%s/%s: value", bench->string, m->string);
            for (const cJSON *k = m->child; k; k = k->next)
                cr_expect(strcmp(k->string, "value") == 0 ||
                              strcmp(k->string, "lower_value") == 0 ||
                              strcmp(k->string, "upper_value") == 0,
                          "unknown key %s", k->string);
            if (lo) cr_expect(cJSON_IsNumber(lo) && lo->valuedouble <= v->valuedouble);
            if (hi) cr_expect(cJSON_IsNumber(hi) && hi->valuedouble >= v->valuedouble);
        }
    }
}

Test(bmf, every_routers_per_lookup_figure_in_the_published_shape)
{
    rb_bundle b;
    const char *const names[] = {"static-100", "params-100"};
    make_bundle(&b, names, 2);
    char *text = render("bmf", &b);
    cJSON *doc = cJSON_Parse(text);
    cr_assert(doc, "not JSON: %s", text);
    expect_bmf_shape(doc);
    cr_expect_eq(cJSON_GetArraySize(doc), 6, "%s", text);
    const cJSON *radix =
        cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "params-100/radix"), "latency");
    cr_assert(radix, "%s", text);
    cr_expect_float_eq(cJSON_GetObjectItem(radix, "value")->valuedouble, 60.0, 1e-9);
    const cJSON *ctrie =
        cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "static-100/ctrie"), "latency");
    cr_assert(ctrie, "%s", text);
    cr_expect_float_eq(cJSON_GetObjectItem(ctrie, "value")->valuedouble, 90.0, 1e-9);
    cJSON_Delete(doc);
    free(text);
    rb_bundle_free(&b);
}

Test(bmf, a_counted_metric_is_the_instructions_measure)
{
    rb_bundle b;
    const char *const names[] = {"static-100"};
    make_bundle(&b, names, 1);
    b.metric = RB_METRIC_INSTRUCTIONS;
    char *text = render("bmf", &b);
    cJSON *doc = cJSON_Parse(text);
    cr_assert(doc, "not JSON: %s", text);
    expect_bmf_shape(doc);
    cr_expect(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "static-100/hashseg"), "instructions"),
              "%s", text);
    cJSON_Delete(doc);
    free(text);
    rb_bundle_free(&b);
}

Test(bmf, a_name_with_quotes_stays_json)
{
    rb_bundle b;
    const char *const names[] = {"a\"b\\c"};
    make_bundle(&b, names, 1);
    char *text = render("bmf", &b);
    cJSON *doc = cJSON_Parse(text);
    cr_assert(doc, "not JSON: %s", text);
    cr_expect(cJSON_GetObjectItem(doc, "a\"b\\c/radix"), "%s", text);
    cJSON_Delete(doc);
    free(text);
    rb_bundle_free(&b);
}
