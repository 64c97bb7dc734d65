/*
 * test_charts.c — the charts of a bundle (bench/report/chart_svg.c), read back
 * with a real XML parser (expat): each one parses, has its title, axes with
 * labels and a legend, keeps every label inside its width; a router has the
 * same colour in every chart and every bundle; reference rows do not
 * stretch the axis; a chart with nothing to plot is not made, and
 * report.md links only the charts that are.
 */
#include "bundle.h"
#include "router_impl.h"
#include "report.h"

#include <criterion/criterion.h>
#include <expat.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a synthetic bundle: routers at known speeds ----------------------------------------------- */

typedef struct subject {
    const char *name, *summary;
    double ns;     /* ns per lookup at 100 routes */
    double growth; /* factor per tenfold routes */
} subject;

static const subject subjects[] = {
    {"radix", "byte radix tree", 20, 2.5},
    {"hashseg", "hashed segments", 8, 1.5},
    {"auto", "chooses", 8.2, 1.5},
    {"linear", "reference: tries every route", 60, 10},
    {"floor", "reference: exact-match table", 5, 1.2},
    {"mine@lib/x.so", "a plugin", 30, 2},
};
#define NSUBJECTS (sizeof subjects / sizeof subjects[0])

static void make_bundle(rb_bundle *b, const size_t *order, size_t nsizes)
{
    rb_error err;
    rb_bundle_init(b);
    snprintf(b->baseline, sizeof b->baseline, "%s", subjects[order[0]].name);
    b->trials = 5;
    b->bootstrap.level = 0.95;
    b->bootstrap.resamples = 2000;
    b->bootstrap.seed = 7;
    for (size_t i = 0; i < NSUBJECTS; i++)
        cr_assert_eq(
            rb_bundle_add_router(b, subjects[order[i]].name, subjects[order[i]].summary, 1), RB_OK);
    size_t routes = 100;
    for (size_t z = 0; z < nsizes; z++, routes *= 10) {
        rb_bundle_scenario *s = rb_bundle_add_scenario(b);
        cr_assert_not_null(s);
        snprintf(s->name, sizeof s->name, "static-%zu", routes);
        snprintf(s->kind, sizeof s->kind, "generated");
        snprintf(s->shape, sizeof s->shape, "static");
        s->routes = routes;
        s->requests = 4096;
        for (size_t i = 0; i < NSUBJECTS; i++) {
            const subject *sub = &subjects[order[i]];
            rb_bundle_result *r = rb_bundle_add_result(&b->scenarios[z], sub->name);
            cr_assert_not_null(r);
            r->memory_bytes = (uint64_t)(routes * (40 + 10 * i));
            r->build_ns = (uint64_t)(routes * 300 * (i + 1));
            r->lookups_per_trial = 1000000;
        }
        for (uint32_t t = 0; t < 5; t++)
            for (size_t i = 0; i < NSUBJECTS; i++) {
                const subject *sub = &subjects[order[i]];
                double ns = sub->ns * pow(sub->growth, (double)z) * (1 + 0.01 * t);
                rb_bundle_trial tr = {.scenario = z,
                                      .result = i,
                                      .trial = t + 1,
                                      .position = (uint32_t)i + 1,
                                      .lookups = 1000000,
                                      .ns = (uint64_t)(ns * 1000000)};
                cr_assert_eq(rb_bundle_add_trial(b, &tr), RB_OK);
            }
        cr_assert_eq(rb_bundle_compute_scenario(b, z, &err), RB_OK, "%s", err.message);
    }
    cr_assert_eq(rb_bundle_compute_geomeans(b, &err), RB_OK, "%s", err.message);
}

/* ---- what the SVG holds, read with expat ----------------------------------------------------- */

typedef struct svg_facts {
    double width, height;
    bool title;
    int depth, axis_x_depth, axis_y_depth, legend_depth, text_depth;
    size_t axis_x_texts, axis_y_texts, legend_texts, axis_labels;
    char text[512];  /* the text being read */
    double tx;       /* its x */
    char anchor[16]; /* its text-anchor */
    double font;     /* its font size */
    bool in_title;
    char clipped[512]; /* the first label that leaves the chart */
    char legend_stroke[NSUBJECTS][16];
    char legend_name[NSUBJECTS][64];
    size_t nlegend;
    char last_stroke[16];
    double max_x_tick; /* the largest x-axis tick value */
    bool off_scale;    /* an off-scale mark was drawn */
} svg_facts;

static const char *attr(const char **a, const char *name)
{
    for (; a[0]; a += 2)
        if (strcmp(a[0], name) == 0) return a[1];
    return NULL;
}

static double tick_value(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (*end == 'k') v *= 1e3;
    if (*end == 'M') v *= 1e6;
    if (*end == 'G') v *= 1e9;
    return v;
}

static void on_start(void *ud, const char *el, const char **a)
{
    svg_facts *f = ud;
    f->depth++;
    if (strcmp(el, "svg") == 0) {
        f->width = attr(a, "width") ? atof(attr(a, "width")) : 0;
        f->height = attr(a, "height") ? atof(attr(a, "height")) : 0;
    }
    if (strcmp(el, "title") == 0) f->in_title = true;
    const char *cls = attr(a, "class");
    if (strcmp(el, "g") == 0 && cls) {
        if (strcmp(cls, "axis x") == 0 && !f->axis_x_depth) f->axis_x_depth = f->depth;
        if (strcmp(cls, "axis y") == 0 && !f->axis_y_depth) f->axis_y_depth = f->depth;
        if (strcmp(cls, "legend") == 0 && !f->legend_depth) f->legend_depth = f->depth;
    }
    if (strcmp(el, "line") == 0 && f->legend_depth && attr(a, "stroke"))
        snprintf(f->last_stroke, sizeof f->last_stroke, "%s", attr(a, "stroke"));
    if (strcmp(el, "path") == 0) f->off_scale = true;
    if (strcmp(el, "text") == 0) {
        f->text_depth = f->depth;
        f->text[0] = '\0';
        f->tx = attr(a, "x") ? atof(attr(a, "x")) : 0;
        snprintf(f->anchor, sizeof f->anchor, "%s",
                 attr(a, "text-anchor") ? attr(a, "text-anchor") : "start");
        f->font = attr(a, "font-size") ? atof(attr(a, "font-size")) : 11;
        if (attr(a, "transform")) f->text_depth = -f->depth; /* rotated: not checked for width */
        if (cls && strcmp(cls, "axis-label") == 0) f->axis_labels++;
    }
}

static void on_end(void *ud, const char *el)
{
    svg_facts *f = ud;
    if (strcmp(el, "title") == 0) f->in_title = false;
    if (strcmp(el, "text") == 0) {
        bool bold_title = f->font >= 14;
        double w = (double)strlen(f->text) * f->font * (bold_title ? 0.62 : 0.55);
        double left = strcmp(f->anchor, "start") == 0 ? f->tx
                      : strcmp(f->anchor, "end") == 0 ? f->tx - w
                                                      : f->tx - w / 2;
        if (f->text_depth > 0 && (left < -0.5 || left + w > f->width + 0.5) && !*f->clipped)
            snprintf(f->clipped, sizeof f->clipped, "'%s' spans %.0f..%.0f of %.0f", f->text, left,
                     left + w, f->width);
        if (f->axis_x_depth && f->depth > f->axis_x_depth) {
            f->axis_x_texts++;
            if (strchr("0123456789.", f->text[0]) && tick_value(f->text) > f->max_x_tick)
                f->max_x_tick = tick_value(f->text);
        }
        if (f->axis_y_depth && f->depth > f->axis_y_depth) f->axis_y_texts++;
        if (f->legend_depth && f->depth > f->legend_depth) {
            f->legend_texts++;
            if (f->nlegend < NSUBJECTS) {
                snprintf(f->legend_stroke[f->nlegend], 16, "%s", f->last_stroke);
                snprintf(f->legend_name[f->nlegend], 64, "%s", f->text);
                f->nlegend++;
            }
        }
        f->text_depth = 0;
    }
    if (strcmp(el, "g") == 0) {
        if (f->depth == f->axis_x_depth) f->axis_x_depth = 0;
        if (f->depth == f->axis_y_depth) f->axis_y_depth = 0;
        if (f->depth == f->legend_depth) f->legend_depth = 0;
    }
    f->depth--;
}

static void on_text(void *ud, const char *s, int len)
{
    svg_facts *f = ud;
    if (f->in_title && len > 0) f->title = true;
    if (!f->text_depth) return;
    size_t n = strlen(f->text);
    snprintf(f->text + n, sizeof f->text - n, "%.*s", len, s);
}

/* Parse svg (asserting it is well-formed XML) into *f. */
static void read_svg(const char *what, const char *svg, size_t len, svg_facts *f)
{
    memset(f, 0, sizeof *f);
    XML_Parser p = XML_ParserCreate("UTF-8");
    cr_assert_not_null(p);
    XML_SetUserData(p, f);
    XML_SetElementHandler(p, on_start, on_end);
    XML_SetCharacterDataHandler(p, on_text);
    int ok = XML_Parse(p, svg, (int)len, 1) == XML_STATUS_OK;
    cr_assert(ok, "%s does not parse: %s at line %lu", what, XML_ErrorString(XML_GetErrorCode(p)),
              (unsigned long)XML_GetCurrentLineNumber(p));
    XML_ParserFree(p);
}

static void render(const rb_bundle *b, rb_bundle_chart c, rb_buf *out)
{
    rb_error err;
    memset(out, 0, sizeof *out);
    cr_assert_eq(rb_bundle_chart_render(b, c, out, &err), RB_OK, "%s", err.message);
}

static const size_t natural[NSUBJECTS] = {0, 1, 2, 3, 4, 5};
static const size_t shuffled[NSUBJECTS] = {1, 5, 3, 0, 4, 2};

Test(charts, every_chart_parses_with_title_axes_legend_and_nothing_clipped)
{
    rb_bundle b;
    make_bundle(&b, natural, 3);
    for (int c = 0; c < RB_NCHARTS; c++) {
        const char *file = rb_bundle_chart_file((rb_bundle_chart)c);
        cr_assert(rb_bundle_chart_has_data(&b, (rb_bundle_chart)c), "%s has data", file);
        rb_buf out;
        render(&b, (rb_bundle_chart)c, &out);
        svg_facts f;
        read_svg(file, out.data, out.len, &f);
        cr_expect_gt(f.width, 100, "%s has a width", file);
        cr_expect_gt(f.height, 100, "%s has a height", file);
        cr_expect(f.title, "%s has a <title>", file);
        cr_expect_geq(f.axis_x_texts, 3, "%s: an x axis with ticks", file);
        cr_expect_geq(f.axis_y_texts, 2, "%s: a y axis with labels", file);
        cr_expect_geq(f.axis_labels, 1, "%s: the axis says what it measures", file);
        cr_expect_geq(f.legend_texts, 2, "%s: a legend", file);
        cr_expect_eq(f.clipped[0], '\0', "%s: %s", file, f.clipped);
        rb_buf_free(&out);
    }
    rb_bundle_free(&b);
}

Test(charts, a_router_has_one_colour_in_every_chart_and_bundle)
{
    rb_bundle b1, b2;
    make_bundle(&b1, natural, 3);
    make_bundle(&b2, shuffled, 3);
    const rb_bundle *bundles[] = {&b1, &b2};
    for (size_t k = 0; k < 2; k++)
        for (int c = 0; c < RB_NCHARTS; c++) {
            rb_buf out;
            render(bundles[k], (rb_bundle_chart)c, &out);
            svg_facts f;
            read_svg(rb_bundle_chart_file((rb_bundle_chart)c), out.data, out.len, &f);
            for (size_t i = 0; i < f.nlegend; i++) {
                char name[64];
                snprintf(name, sizeof name, "%s", f.legend_name[i]);
                name[strcspn(name, " ")] = '\0';
                cr_expect_str_eq(f.legend_stroke[i], rb_bundle_router_colour(name),
                                 "%s in %s of bundle %zu", name,
                                 rb_bundle_chart_file((rb_bundle_chart)c), k + 1);
            }
            rb_buf_free(&out);
        }
    /* the shipped routers have fixed colours, distinct from each other */
    static const char *const shipped[] = {"radix", "hashseg", "ctrie", "glob",
                                          "auto",  "linear",  "floor", "r3"};
    for (size_t i = 0; i < 8; i++)
        for (size_t k = 0; k < i; k++)
            cr_expect_str_neq(rb_bundle_router_colour(shipped[i]),
                              rb_bundle_router_colour(shipped[k]), "%s and %s", shipped[i],
                              shipped[k]);
    cr_expect_str_eq(rb_bundle_router_colour("hashseg"), "#d62728");
    rb_bundle_free(&b1);
    rb_bundle_free(&b2);
}

/* The time axis holds every bar it draws, the references too (linear's
 * O(N) cost and floor's lower bound are there to be read against the
 * others; an arrow at the edge hid them), and no more than a step of 1, 2
 * or 5 x 10^k beyond the slowest. */
Test(charts, the_time_axis_holds_every_router_it_draws_references_included)
{
    rb_bundle b;
    make_bundle(&b, natural, 3);
    /* at 10,000 routes linear takes 60 x 10^2 = 6000 ns, the others < 130 */
    double slowest = 0;
    for (size_t i = 0; i < b.nscenarios; i++)
        for (size_t k = 0; k < b.scenarios[i].nresults; k++)
            slowest = fmax(slowest, b.scenarios[i].results[k].max_ns);
    rb_buf out;
    render(&b, RB_CHART_NS, &out);
    svg_facts f;
    read_svg("chart.svg", out.data, out.len, &f);
    cr_expect_geq(f.max_x_tick, slowest, "axis to %g for routers up to %g ns", f.max_x_tick,
                  slowest);
    cr_expect_leq(f.max_x_tick, slowest * 2.5, "axis to %g for routers up to %g ns", f.max_x_tick,
                  slowest);
    cr_expect_not(f.off_scale, "nothing drawn off scale");
    cr_expect(strstr(out.data, "off scale") == NULL);
    rb_buf_free(&out);
    /* the ratio chart leaves references out */
    render(&b, RB_CHART_RATIO, &out);
    cr_expect(strstr(out.data, ">linear<") == NULL && strstr(out.data, ">floor<") == NULL);
    cr_expect(strstr(out.data, ">hashseg<") != NULL);
    rb_buf_free(&out);
    rb_bundle_free(&b);
}

static double colour_distance(const char *a, const char *b)
{
    unsigned x[3], y[3];
    cr_assert_eq(sscanf(a, "#%2x%2x%2x", &x[0], &x[1], &x[2]), 3, "%s", a);
    cr_assert_eq(sscanf(b, "#%2x%2x%2x", &y[0], &y[1], &y[2]), 3, "%s", b);
    double d = 0;
    for (int i = 0; i < 3; i++) d += ((double)x[i] - y[i]) * ((double)x[i] - y[i]);
    return sqrt(d);
}

/* No two routers of a chart look alike: compiled and the limit, added
 * without colours of their own, hashed to a blue beside radix's and a
 * brown beside floor's (RESULTS.md's scaling chart). Every colour a name
 * can get, the built-in routers' and any other name's, is at least 60
 * apart from every other. */
Test(charts, regression_193_no_two_routers_look_alike)
{
    const char *names[64];
    size_t n = 0;
    static const char *const builtin[] = {"radix",  "hashseg", "ctrie", "glob",     "auto",
                                          "linear", "floor",   "r3",    "compiled", "limit"};
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++) names[n++] = builtin[i];
    char other[40][32];
    for (int i = 0; i < 40; i++) {
        snprintf(other[i], sizeof other[i], "plugin-%d@lib%d.so", i, i * 7);
        names[n++] = other[i];
    }
    const char *colours[64];
    size_t nc = 0;
    for (size_t i = 0; i < n; i++) {
        const char *c = rb_bundle_router_colour(names[i]);
        bool seen = false;
        for (size_t k = 0; k < nc; k++) seen = seen || strcmp(colours[k], c) == 0;
        if (!seen) colours[nc++] = c;
    }
    cr_expect_geq(nc, 12u, "the built-in ten and some others");
    for (size_t i = 0; i < nc; i++)
        for (size_t k = i + 1; k < nc; k++)
            cr_expect_geq(colour_distance(colours[i], colours[k]), 60.0, "%s and %s look alike",
                          colours[i], colours[k]);
    for (size_t i = 0; i < 10; i++)
        for (size_t k = i + 1; k < 10; k++)
            cr_expect_str_neq(rb_bundle_router_colour(builtin[i]),
                              rb_bundle_router_colour(builtin[k]), "%s and %s share a colour",
                              builtin[i], builtin[k]);
}

Test(charts, nothing_to_plot_means_no_chart_and_no_link)
{
    rb_bundle b;
    make_bundle(&b, natural, 1); /* one route count: no scaling */
    cr_expect(!rb_bundle_chart_has_data(&b, RB_CHART_SCALING));
    cr_expect(rb_bundle_chart_has_data(&b, RB_CHART_NS));
    cr_expect(rb_bundle_chart_has_data(&b, RB_CHART_RATIO));
    rb_buf out = {0};
    rb_error err;
    cr_expect_eq(rb_bundle_chart_render(&b, RB_CHART_SCALING, &out, &err), RB_EINVAL);
    cr_expect(strstr(err.message, "nothing to plot") != NULL, "%s", err.message);
    rb_buf_free(&out);
    cr_assert_eq(rb_bundle_report_md(&b, &out, &err), RB_OK);
    cr_expect(strstr(out.data, "(chart.svg)") && strstr(out.data, "(ratio.svg)") &&
              strstr(out.data, "(cost.svg)"));
    cr_expect(strstr(out.data, "scaling.svg") == NULL, "no link to a chart not written");
    rb_buf_free(&out);
    rb_bundle_free(&b);
    rb_bundle empty;
    rb_bundle_init(&empty);
    for (int c = 0; c < RB_NCHARTS; c++)
        cr_expect(!rb_bundle_chart_has_data(&empty, (rb_bundle_chart)c));
    rb_bundle_free(&empty);
}
