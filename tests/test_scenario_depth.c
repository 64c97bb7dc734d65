/*
 * test_scenario_depth.c — generator versions and depth histograms in
 * scenarios and result bundles (bench/measure/scenario.h, bench/bundle/bundle.h).
 *
 * Rules checked: a "-v1" shape suffix runs generator v1 and reproduces a
 * published fingerprint, the default runs v2; a scenario's depth
 * histogram counts its routes by segments; the bundle keeps the generator
 * and the histogram through summary.json, renders them in report.md and
 * scaling.svg, and reads a bundle written before they existed as
 * generator v1 with no depths.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle.h"
#include "generate.h"
#include "scenario.h"
#include "report.h"

static rb_scenario load(const char *name, uint64_t seed)
{
    rb_scenario_list l = {0};
    rb_error err;
    cr_assert_eq(rb_scenario_list_parse(&l, name, &err), RB_OK, "%s", err.message);
    cr_assert_eq(l.n, 1u);
    rb_scenario sc;
    cr_assert_eq(rb_scenario_load(&l.v[0], seed, &sc, &err), RB_OK, "%s", err.message);
    rb_scenario_list_free(&l);
    return sc;
}

Test(scenario, v1_suffix_reproduces_published_corpora)
{
    /* docs/results/RESULTS.md (commit 2915c948ea63): mixed-10000, seed 42 */
    rb_scenario a = load("mixed-v1-10000", 42), b = load("mixed-10000", 42);
    cr_expect_eq(a.routes_fp, UINT64_C(0x16611a89b5c2dc5e));
    cr_expect_eq(a.generator, RB_GEN_V1);
    cr_expect_eq(b.generator, RB_GEN_V2);
    cr_expect_neq(b.routes_fp, a.routes_fp);
    rb_scenario_free(&a);
    rb_scenario_free(&b);
    a = load("mixed-nc-v1-10000", 42); /* RESULTS.md: mixed-nc-10000 */
    cr_expect_eq(a.routes_fp, UINT64_C(0x2e173d045d9ea706));
    rb_scenario_free(&a);
    char cmd[300];
    rb_scenario_gen_command("mixed-nc-v1", 10000, 42, cmd, sizeof cmd);
    cr_expect_str_eq(cmd, "routebench corpus gen --shape mixed --no-conflicts --generator v1 "
                          "--routes 10000 --seed 42 --out PREFIX");
    bool nc;
    uint32_t g;
    cr_expect_eq(rb_scenario_shape_parse("glob-v1", &nc, &g), RB_GEN_GLOB);
    cr_expect(!nc && g == RB_GEN_V1);
    cr_expect_eq(rb_scenario_shape_parse("glob-v3", &nc, &g), -1);
    /* the longest name a shape buffer holds, one of every generated shape */
    cr_expect_eq(rb_scenario_shape_parse("templates-nc-v1", &nc, &g), RB_GEN_TEMPLATES);
    cr_expect(nc && g == RB_GEN_V1);
    a = load("templates-100", 42);
    cr_expect_eq(a.routes.count, 100u);
    cr_expect_eq(a.generator, RB_GEN_V2);
    cr_expect(a.features & RB_FEAT_TEMPLATE, "a templates scenario without templates");
    rb_scenario_free(&a);
}

Test(scenario, depth_histogram_counts_segments)
{
    rb_scenario sc = load("gplus", 1);
    /* corpus check on corpus/data/gplus.routes: depth 1:2 2:4 3:2 4:5 */
    cr_expect_eq(sc.depth[0], 0u);
    cr_expect_eq(sc.depth[1], 2u);
    cr_expect_eq(sc.depth[2], 4u);
    cr_expect_eq(sc.depth[3], 2u);
    cr_expect_eq(sc.depth[4], 5u);
    cr_expect_eq(sc.generator, 0u, "not generated");
    rb_scenario_free(&sc);
}

static void one_scenario(rb_bundle *b, const char *shape, size_t routes, const char *generator)
{
    rb_bundle_scenario *s = rb_bundle_add_scenario(b);
    cr_assert_not_null(s);
    snprintf(s->name, sizeof s->name, "%s-%zu", shape, routes);
    snprintf(s->kind, sizeof s->kind, "generated");
    snprintf(s->shape, sizeof s->shape, "%s", shape);
    snprintf(s->generator, sizeof s->generator, "%s", generator);
    s->seed = 42;
    s->routes = routes;
    s->requests = 1;
    s->depth[1] = routes / 4;
    s->depth[2] = routes - routes / 4;
    rb_bundle_add_result(s, "radix")->median_ns = (double)routes;
}

Test(bundle, generator_and_depth_round_trip_and_render)
{
    rb_bundle b;
    rb_bundle_init(&b);
    snprintf(b.baseline, sizeof b.baseline, "radix");
    cr_assert_eq(rb_bundle_add_router(&b, "radix", "radix tree", 0), RB_OK);
    one_scenario(&b, "mixed", 100, "v2");
    one_scenario(&b, "mixed", 1000, "v2");
    rb_buf j = {0}, md = {0}, svg = {0};
    rb_error err;
    cr_assert_eq(rb_bundle_json_write(&b, &j, &err), RB_OK, "%s", err.message);
    cr_expect(strstr(j.data, "\"generator\":\t\"v2\"") != NULL);
    cr_expect(strstr(j.data, "\"depth\":\t[25, 75]") != NULL, "%s", j.data);
    rb_bundle back;
    cr_assert_eq(rb_bundle_json_read(j.data, j.len, &back, &err), RB_OK, "%s", err.message);
    cr_expect_str_eq(back.scenarios[0].generator, "v2");
    cr_expect_eq(back.scenarios[0].depth[1], 25u);
    cr_expect_eq(back.scenarios[0].depth[2], 75u);
    cr_expect_eq(back.scenarios[0].depth[3], 0u);
    cr_assert_eq(rb_bundle_report_md(&back, &md, &err), RB_OK);
    cr_expect(strstr(md.data, "--generator v2 --routes 100 --seed 42") != NULL);
    cr_expect(strstr(md.data, "Routes by depth (segments): 1 25%, 2 75%.") != NULL, "%s", md.data);
    cr_assert_eq(rb_bundle_chart_render(&back, RB_CHART_SCALING, &svg, &err), RB_OK);
    cr_expect(strstr(svg.data, "1000 routes, by depth: 1 25%, 2 75%") != NULL);

    /* a summary.json from before: no generator, no depth */
    rb_buf_free(&j);
    rb_buf_free(&md);
    b.scenarios[0].generator[0] = b.scenarios[1].generator[0] = '\0';
    memset(b.scenarios[0].depth, 0, sizeof b.scenarios[0].depth);
    cr_assert_eq(rb_bundle_json_write(&b, &j, &err), RB_OK);
    char *old = strdup(j.data), *p;
    while ((p = strstr(old, "\"generator\":\tnull,")) != NULL)
        memmove(p, p + strlen("\"generator\":\tnull,"),
                strlen(p + strlen("\"generator\":\tnull,")) + 1);
    cr_expect(strstr(old, "generator") == NULL);
    rb_bundle_free(&back);
    cr_assert_eq(rb_bundle_json_read(old, strlen(old), &back, &err), RB_OK, "%s", err.message);
    cr_expect_str_eq(back.scenarios[0].generator, "v1");
    cr_expect_eq(back.scenarios[0].depth[1], 0u);
    char depth[100];
    rb_bundle_depth_text(&back.scenarios[0], depth, sizeof depth);
    cr_expect_str_eq(depth, "");
    cr_assert_eq(rb_bundle_report_md(&back, &md, &err), RB_OK);
    cr_expect(strstr(md.data, "--generator v1 --routes 100") != NULL);
    free(old);
    rb_buf_free(&j);
    rb_buf_free(&md);
    rb_buf_free(&svg);
    rb_bundle_free(&back);
    rb_bundle_free(&b);
}
