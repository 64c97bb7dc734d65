/*
 * history_svg.c — the chart of `routebench history` (history.h): one panel
 * per scenario, the value per lookup of each router across the commits (a
 * line per router, in its colour of every other chart), a ring on each
 * step, a dashed rule where a new series of comparable results starts.
 * Each panel's linear axis spans its own values.
 */
#include "history.h"

#include "base_internal.h"
#include "metric.h"
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define W       960.0
#define LEFT    80.0
#define RIGHT   150.0
#define PANEL_H 190.0
#define GAP     70.0
#define TOP     60.0

static void esc(rb_buf *o, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            rb_buf_puts(o, "&lt;");
        else if (*s == '>')
            rb_buf_puts(o, "&gt;");
        else if (*s == '&')
            rb_buf_puts(o, "&amp;");
        else if (*s == '"')
            rb_buf_puts(o, "&quot;");
        else
            rb_buf_append(o, s, 1);
    }
}

/* The distinct scenarios, in order of first appearance. */
static size_t scenarios(const rb_history *h, const char **out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < h->nseries; i++) {
        bool seen = false;
        for (size_t k = 0; k < n; k++) seen |= strcmp(out[k], h->series[i].scenario) == 0;
        if (!seen && n < cap) out[n++] = h->series[i].scenario;
    }
    return n;
}

static double x_at(const rb_history *h, size_t result)
{
    double span = W - LEFT - RIGHT;
    return h->nresults > 1 ? LEFT + span * (double)result / (double)(h->nresults - 1)
                           : LEFT + span / 2;
}

/* A "nice" step for about 4 gridlines over [lo, hi]. */
static double nice_step(double lo, double hi)
{
    double raw = (hi - lo) / 4, p = pow(10, floor(log10(raw))), f = raw / p;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

static void panel(const rb_history *h, const char *scenario, double y0, rb_buf *o)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < h->nseries; i++) {
        const rb_history_series *s = &h->series[i];
        if (strcmp(s->scenario, scenario) != 0) continue;
        for (size_t k = 0; k < s->npoints; k++) {
            lo = fmin(lo, s->points[k].value);
            hi = fmax(hi, s->points[k].value);
        }
    }
    if (!(hi >= lo)) return;
    double pad = (hi - lo) * 0.08 + (hi > 0 ? hi * 0.005 : 1);
    lo -= pad;
    hi += pad;
    if (lo < 0) lo = 0;
    double y1 = y0 + PANEL_H;
#define Y(v) (y1 - (y1 - y0) * ((v)-lo) / (hi - lo))
    rb_buf_printf(o, "<text x=\"%g\" y=\"%g\" font-weight=\"bold\">", LEFT, y0 - 10);
    esc(o, scenario);
    rb_buf_printf(o,
                  "</text>\n<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"none\" "
                  "stroke=\"#ccc\"/>\n",
                  LEFT, y0, W - LEFT - RIGHT, PANEL_H);
    double st = nice_step(lo, hi);
    for (double v = ceil(lo / st) * st; v <= hi; v += st) {
        rb_buf_printf(o,
                      "<line x1=\"%g\" y1=\"%.1f\" x2=\"%g\" y2=\"%.1f\" stroke=\"#eee\"/>"
                      "<text x=\"%g\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\">%g</text>\n",
                      LEFT, Y(v), W - RIGHT, Y(v), LEFT - 6, Y(v) + 4, v);
    }
    for (size_t g = 1; g < h->nsegments; g++) {
        double x = (x_at(h, h->segments[g].first - 1) + x_at(h, h->segments[g].first)) / 2;
        rb_buf_printf(o,
                      "<line x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%g\" stroke=\"#555\" "
                      "stroke-dasharray=\"5,4\"><title>a new series: ",
                      x, y0, x, y1);
        esc(o, h->segments[g].why);
        rb_buf_puts(o, "</title></line>\n");
    }
    double label_y = y0 + 12;
    for (size_t i = 0; i < h->nseries; i++) {
        const rb_history_series *s = &h->series[i];
        if (strcmp(s->scenario, scenario) != 0 || s->npoints == 0) continue;
        const char *colour = rb_bundle_router_colour(s->router);
        rb_buf_printf(o, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
                      colour);
        for (size_t k = 0; k < s->npoints; k++)
            rb_buf_printf(o, "%s%.1f,%.1f", k ? " " : "", x_at(h, s->points[k].result),
                          Y(s->points[k].value));
        rb_buf_puts(o, "\"/>\n");
        for (size_t k = 0; k < s->npoints; k++) {
            const rb_history_point *p = &s->points[k];
            double x = x_at(h, p->result), y = Y(p->value);
            rb_buf_printf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\"", x, y,
                          p->step ? "3.5" : "2.5", colour);
            if (p->step)
                rb_buf_printf(o,
                              " stroke=\"#000\" stroke-width=\"1.5\"><title>%s on %s at %s: "
                              "%.2f, %+.2f%%</title></circle>\n",
                              s->router, scenario, h->results[p->result].commit, p->value,
                              100 * p->change);
            else
                rb_buf_puts(o, "/>\n");
        }
        const rb_history_point *last = &s->points[s->npoints - 1];
        char v[32];
        snprintf(v, sizeof v, rb_metric_exact(h->results[last->result].b.metric) ? "%.2f" : "%.3g",
                 last->value);
        rb_buf_printf(o, "<text x=\"%g\" y=\"%.1f\" font-size=\"12\" fill=\"%s\">", W - RIGHT + 8,
                      label_y, colour);
        esc(o, s->router);
        rb_buf_printf(o, " %s</text>\n", v);
        label_y += 16;
    }
#undef Y
}

int rb_history_svg(const rb_history *h, rb_buf *o, rb_error *err)
{
    const char *sc[64];
    size_t ns = scenarios(h, sc, 64);
    if (ns == 0 || h->nresults == 0)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "nothing to plot");
    int metric = h->results[0].b.metric;
    double height = TOP + (double)ns * (PANEL_H + GAP) + 40;
    rb_buf_printf(o,
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" "
                  "viewBox=\"0 0 %g %g\" font-family=\"sans-serif\" font-size=\"13\">\n"
                  "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
                  "<text x=\"%g\" y=\"24\" font-size=\"16\" font-weight=\"bold\">%s per lookup "
                  "across %zu commits</text>\n"
                  "<text x=\"%g\" y=\"42\" font-size=\"12\" fill=\"#555\">oldest left; a ringed "
                  "point: a step (%s); a dashed rule: a new series (results not comparable)"
                  "</text>\n",
                  W, height, W, height, LEFT, rb_metric_unit(metric), h->nresults, LEFT,
                  rb_metric_exact(metric) ? "counted: any change" : "Pettitt's test at 1%");
    for (size_t i = 0; i < ns; i++) panel(h, sc[i], TOP + 20 + (double)i * (PANEL_H + GAP), o);
    double ya = TOP + 20 + (double)ns * (PANEL_H + GAP) - GAP + 14;
    for (size_t r = 0; r < h->nresults; r++) {
        double x = x_at(h, r);
        rb_buf_printf(o,
                      "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\" "
                      "transform=\"rotate(-45 %.1f %.1f)\">",
                      x, ya, x, ya);
        char c[16];
        snprintf(c, sizeof c, "%.8s", h->results[r].commit);
        esc(o, c);
        rb_buf_puts(o, "</text>\n");
    }
    rb_buf_puts(o, "</svg>\n");
    return o->failed ? rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory") : RB_OK;
}
