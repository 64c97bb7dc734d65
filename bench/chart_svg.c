/*
 * chart_svg.c — the two charts of a bundle, as standalone SVG (no scripts,
 * no external fonts or styles):
 *
 *   chart.svg    one row per (scenario, router): ns per lookup on a log
 *                axis, every trial as a faint dot, the min-max range as a
 *                line and the median as a bar;
 *   scaling.svg  one panel per generated shape with two or more route
 *                counts: median ns per lookup against route count, log-log,
 *                one line per router.
 *
 * Colours follow the router's place in the bundle's router list, so a
 * router has the same colour in both charts.  A pure function of the
 * bundle, like report.md.
 */
#include "bundle.h"

#include "router_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                                      "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
#define NPALETTE (sizeof palette / sizeof palette[0])

static const char *colour(const rb_bundle *b, const char *router)
{
    for (size_t i = 0; i < b->nrouters; i++)
        if (strcmp(b->routers[i].name, router) == 0) return palette[i % NPALETTE];
    return palette[NPALETTE - 2];
}

static void text_escaped(rb_buf *o, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&':
            rb_buf_puts(o, "&amp;");
            break;
        case '<':
            rb_buf_puts(o, "&lt;");
            break;
        case '>':
            rb_buf_puts(o, "&gt;");
            break;
        case '"':
            rb_buf_puts(o, "&quot;");
            break;
        default:
            rb_buf_append(o, s, 1);
        }
    }
}

static void text(rb_buf *o, double x, double y, const char *anchor, const char *extra,
                 const char *s)
{
    rb_buf_printf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s%s>", x, y, anchor,
                  extra ? " " : "", extra ? extra : "");
    text_escaped(o, s);
    rb_buf_puts(o, "</text>\n");
}

static void svg_open(rb_buf *o, double w, double h, const char *title)
{
    rb_buf_printf(o,
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                  "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"11\">\n",
                  w, h, w, h);
    rb_buf_puts(o, "<title>");
    text_escaped(o, title);
    rb_buf_puts(o, "</title>\n");
    rb_buf_printf(o, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n", w, h);
}

/* A log10 axis over [lo, hi] mapped to pixels [p0, p1]. */
typedef struct log_axis {
    double lo, hi; /* whole powers of ten */
    double p0, p1;
} log_axis;

static log_axis axis_for(double min, double max, double p0, double p1)
{
    if (!(min > 0)) min = 1;
    if (!(max > min)) max = min * 10;
    log_axis a = {pow(10, floor(log10(min))), pow(10, ceil(log10(max))), p0, p1};
    if (a.hi <= a.lo) a.hi = a.lo * 10;
    return a;
}

static double axis_at(const log_axis *a, double v)
{
    return a->p0 + (a->p1 - a->p0) * (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
}

static void tick_label(double v, char *buf, size_t cap)
{
    if (v >= 1e6)
        snprintf(buf, cap, "%.0fM", v / 1e6);
    else if (v >= 1e3)
        snprintf(buf, cap, "%.0fk", v / 1e3);
    else if (v >= 1)
        snprintf(buf, cap, "%.0f", v);
    else
        snprintf(buf, cap, "%g", v);
}

/* Grid lines at 1, 2, 5 x 10^k along an axis; vertical lines when
 * horizontal_axis, else horizontal ones.  Labels at the other end. */
static void grid(rb_buf *o, const log_axis *a, bool horizontal_axis, double from, double to,
                 double label_at)
{
    for (double decade = a->lo; decade < a->hi * 1.0001; decade *= 10) {
        static const double steps[] = {1, 2, 5};
        for (size_t k = 0; k < 3; k++) {
            double v = decade * steps[k];
            if (v > a->hi * 1.0001) break;
            double p = axis_at(a, v);
            const char *stroke = k == 0 ? "#bbbbbb" : "#eeeeee";
            if (horizontal_axis)
                rb_buf_printf(o,
                              "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                              "stroke=\"%s\"/>\n",
                              p, from, p, to, stroke);
            else
                rb_buf_printf(o,
                              "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                              "stroke=\"%s\"/>\n",
                              from, p, to, p, stroke);
            char l[32];
            tick_label(v, l, sizeof l);
            if (horizontal_axis)
                text(o, p, label_at, "middle", "fill=\"#555\"", l);
            else
                text(o, label_at, p + 4, "end", "fill=\"#555\"", l);
        }
    }
}

/* ---- chart.svg --------------------------------------------------------- */

#define ROW_H  14.0
#define HEAD_H 22.0
#define LEFT   250.0
#define RIGHT  30.0
#define WIDTH  960.0
#define TOP    50.0
#define BOTTOM 40.0

int rb_bundle_chart_svg(const rb_bundle *b, rb_buf *o, rb_error *err)
{
    double min = INFINITY, max = 0;
    size_t rows = 0;
    for (size_t i = 0; i < b->nscenarios; i++) {
        const rb_bundle_scenario *s = &b->scenarios[i];
        rows += s->nresults;
        for (size_t k = 0; k < s->nresults; k++) {
            if (s->results[k].min_ns > 0) min = fmin(min, s->results[k].min_ns);
            max = fmax(max, s->results[k].max_ns);
        }
    }
    double height = TOP + BOTTOM + (double)b->nscenarios * HEAD_H + (double)rows * ROW_H;
    char title[160];
    snprintf(title, sizeof title, "routebench: %s per lookup, each router in each scenario",
             rb_metric_unit(b->metric));
    svg_open(o, WIDTH, height, title);
    snprintf(title, sizeof title,
             "%s per lookup (log scale; lower is faster): median bar, min-max line, a dot per "
             "trial",
             rb_metric_unit(b->metric));
    text(o, 12, 20, "start", "font-size=\"14\" font-weight=\"bold\"", title);
    text(o, 12, 36, "start", "fill=\"#555\"",
         "in-process lookups on one machine, not HTTP requests per second");
    log_axis a = axis_for(min, max, LEFT, WIDTH - RIGHT);
    grid(o, &a, true, TOP, height - BOTTOM, height - BOTTOM + 14);
    double y = TOP;
    for (size_t i = 0; i < b->nscenarios; i++) {
        const rb_bundle_scenario *s = &b->scenarios[i];
        char head[256];
        snprintf(head, sizeof head, "%s (%zu routes)", s->name, s->routes);
        text(o, 8, y + 15, "start", "font-weight=\"bold\"", head);
        y += HEAD_H;
        for (size_t k = 0; k < s->nresults; k++) {
            const rb_bundle_result *r = &s->results[k];
            const char *c = colour(b, r->router);
            double cy = y + ROW_H / 2;
            char name[RB_BUNDLE_NAME + 16];
            rb_bundle_label(b, r->router, false, name, sizeof name);
            text(o, LEFT - 8, cy + 4, "end", NULL, name);
            if (r->min_ns > 0 && r->max_ns > 0)
                rb_buf_printf(o,
                              "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                              "stroke=\"%s\" stroke-width=\"1.5\"/>\n",
                              axis_at(&a, r->min_ns), cy, axis_at(&a, r->max_ns), cy, c);
            for (size_t t = 0; t < b->ntrials; t++) {
                const rb_bundle_trial *tr = &b->trials_v[t];
                if (tr->scenario != i || tr->result != k) continue;
                double v = rb_bundle_trial_ns_per_lookup(tr);
                if (v > 0)
                    rb_buf_printf(o,
                                  "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.2\" fill=\"%s\" "
                                  "fill-opacity=\"0.35\"/>\n",
                                  axis_at(&a, v), cy, c);
            }
            if (r->median_ns > 0) {
                double x = axis_at(&a, r->median_ns);
                char v[32];
                rb_bundle_fmt_value(b, r->median_ns, v, sizeof v);
                rb_buf_printf(o,
                              "<rect x=\"%.1f\" y=\"%.1f\" width=\"3\" height=\"%.1f\" "
                              "fill=\"%s\"/>\n",
                              x - 1.5, cy - 5, 10.0, c);
                text(o, x + 6, cy - 2, "start", "font-size=\"9\" fill=\"#333\"", v);
            }
            y += ROW_H;
        }
    }
    rb_buf_puts(o, "</svg>\n");
    return o->failed ? rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory") : RB_OK;
}

/* ---- scaling.svg ------------------------------------------------------- */

#define PANEL_W     460.0
#define PANEL_H     320.0
#define PANEL_PAD_L 60.0
#define PANEL_PAD_B 40.0
#define PANEL_PAD_T 30.0
#define PANEL_PAD_R 110.0

/* Shapes of generated scenarios with two or more route counts, in order of
 * first appearance; returns how many. */
static size_t scaling_shapes(const rb_bundle *b, const char **shapes, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < b->nscenarios && n < cap; i++) {
        const rb_bundle_scenario *s = &b->scenarios[i];
        if (!*s->shape) continue;
        bool seen = false;
        for (size_t k = 0; k < n; k++) seen = seen || strcmp(shapes[k], s->shape) == 0;
        if (seen) continue;
        size_t sizes = 0;
        for (size_t j = 0; j < b->nscenarios; j++)
            if (strcmp(b->scenarios[j].shape, s->shape) == 0 && b->scenarios[j].routes != s->routes)
                sizes++;
        if (sizes) shapes[n++] = s->shape;
    }
    return n;
}

static int by_routes(const void *x, const void *y)
{
    const rb_bundle_scenario *const *a = x, *const *c = y;
    return (*a)->routes < (*c)->routes ? -1 : (*a)->routes > (*c)->routes;
}

static void panel(const rb_bundle *b, rb_buf *o, const char *shape, double x0, double y0)
{
    const rb_bundle_scenario *sc[64];
    size_t n = 0;
    double rmin = INFINITY, rmax = 0, tmin = INFINITY, tmax = 0;
    for (size_t i = 0; i < b->nscenarios && n < 64; i++) {
        const rb_bundle_scenario *s = &b->scenarios[i];
        if (strcmp(s->shape, shape) != 0) continue;
        sc[n++] = s;
        rmin = fmin(rmin, (double)s->routes);
        rmax = fmax(rmax, (double)s->routes);
        for (size_t k = 0; k < s->nresults; k++) {
            if (s->results[k].median_ns > 0) tmin = fmin(tmin, s->results[k].median_ns);
            tmax = fmax(tmax, s->results[k].median_ns);
        }
    }
    qsort(sc, n, sizeof sc[0], by_routes);
    double l = x0 + PANEL_PAD_L, r = x0 + PANEL_W - PANEL_PAD_R;
    double t = y0 + PANEL_PAD_T, bt = y0 + PANEL_H - PANEL_PAD_B;
    log_axis ax = axis_for(rmin, rmax, l, r);
    log_axis ay = axis_for(tmin, tmax, bt, t);
    char title[96];
    snprintf(title, sizeof title, "shape %s", shape);
    text(o, l, y0 + 18, "start", "font-weight=\"bold\"", title);
    grid(o, &ax, true, t, bt, bt + 14);
    grid(o, &ay, false, l, r, l - 6);
    text(o, (l + r) / 2, bt + 30, "middle", "fill=\"#555\"", "routes");
    double legend_y = t + 4;
    for (size_t ri = 0; ri < b->nrouters; ri++) {
        const char *router = b->routers[ri].name;
        const char *c = colour(b, router);
        rb_buf points = {0};
        size_t npoints = 0;
        for (size_t i = 0; i < n; i++) {
            size_t k = rb_bundle_result_index(sc[i], router);
            if (k == SIZE_MAX || !(sc[i]->results[k].median_ns > 0)) continue;
            double px = axis_at(&ax, (double)sc[i]->routes);
            double py = axis_at(&ay, sc[i]->results[k].median_ns);
            rb_buf_printf(&points, "%s%.1f,%.1f", npoints ? " " : "", px, py);
            rb_buf_printf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", px, py, c);
            npoints++;
        }
        if (npoints > 1 && !points.failed)
            rb_buf_printf(o,
                          "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" "
                          "stroke-width=\"1.5\"/>\n",
                          points.data, c);
        if (npoints) {
            rb_buf_printf(o,
                          "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                          "stroke-width=\"2\"/>\n",
                          r + 10, legend_y, r + 26, legend_y, c);
            text(o, r + 30, legend_y + 4, "start", NULL, router);
            legend_y += 15;
        }
        rb_buf_free(&points);
    }
}

int rb_bundle_scaling_svg(const rb_bundle *b, rb_buf *o, rb_error *err)
{
    const char *shapes[16];
    size_t n = scaling_shapes(b, shapes, 16);
    size_t cols = n < 2 ? 1 : 2, nrows = n ? (n + cols - 1) / cols : 1;
    double w = (double)cols * PANEL_W + 20, h = 50 + (double)nrows * PANEL_H;
    char title[160];
    snprintf(title, sizeof title, "routebench: %s per lookup against route count",
             rb_metric_unit(b->metric));
    svg_open(o, w, h, title);
    snprintf(title, sizeof title, "median %s per lookup (log) against route count (log), per shape",
             rb_metric_unit(b->metric));
    text(o, 12, 20, "start", "font-size=\"14\" font-weight=\"bold\"", title);
    text(o, 12, 36, "start", "fill=\"#555\"",
         "in-process lookups on one machine, not HTTP requests per second");
    if (n == 0)
        text(o, 12, 70, "start", NULL,
             "no generated shape was run at two or more route counts: nothing to plot");
    for (size_t i = 0; i < n; i++)
        panel(b, o, shapes[i], 10 + (double)(i % cols) * PANEL_W,
              44 + (double)(i / cols) * PANEL_H);
    rb_buf_puts(o, "</svg>\n");
    return o->failed ? rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory") : RB_OK;
}
