/*
 * chart_svg.c — the charts of a bundle, as standalone SVG (no scripts, no
 * external fonts or styles), each a pure function of the bundle like
 * report.md:
 *
 *   chart.svg    ns per lookup of each router in each scenario: every trial
 *                a faint dot, the min-max range a line, the median a bar;
 *   scaling.svg  one panel per generated shape run at two or more route
 *                counts: median ns per lookup against route count, log-log;
 *   ratio.svg    the paired speed ratio of each router against the
 *                scenario's baseline with its 95% interval (what a
 *                gate decides on), then the geometric means;
 *   cost.svg     bytes per route and build time of each router in each
 *                scenario.
 *
 * Colours: a router has one colour in every chart of every bundle — a fixed
 * table for the routers routebench ships, and for any other name (a plugin,
 * NAME@LIB) a colour picked by a hash of the name from the rest of the
 * palette.  Line styles tell apart routers whose lines coincide (auto runs
 * hashseg: its line is dashed over hashseg's).
 *
 * Reference rows (linear, floor: routers whose summary starts "reference")
 * are drawn apart: the axes span the routers people compare, and a
 * reference value outside them is drawn at the edge with an arrow and its
 * value, so the oracle's O(N) cost does not squeeze the others into a
 * corner.  ratio.svg leaves references out.
 *
 * Every chart has a title, axes with their labels (class "axis x" and
 * "axis y" groups) and a legend (class "legend"); its width is at least what
 * its title needs.  A chart with nothing to plot is not written at all
 * (rb_bundle_chart_has_data), and report.md links only the charts that are.
 */
#include "bundle.h"
#include "format.h"
#include "headline.h"
#include "verdict.h"

#include "base_internal.h"
#include "report.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- colours and styles ----------------------------------------------------------------------- */

typedef struct style {
    const char *name;
    const char *colour;
    const char *dash; /* stroke-dasharray, or NULL for a solid line */
} style;

/* Every colour here is at least 60 apart (RGB distance) from every other,
 * so no two routers of one chart look alike (test_charts). */
static const style fixed_styles[] = {
    {"radix", "#1f77b4", NULL},    {"hashseg", "#d62728", NULL}, {"ctrie", "#2ca02c", NULL},
    {"glob", "#9467bd", NULL},     {"auto", "#ff7f0e", "6 3"},   {"linear", "#7f7f7f", "2 3"},
    {"floor", "#8c564b", "2 3"},   {"r3", "#e377c2", NULL},      {"segscan", "#17becf", NULL},
    {"compiled", "#bcbd22", NULL}, {"limit", "#000000", "5 3"},
};
static const char *const other_colours[] = {"#000080", "#800000", "#808000"};

static style router_style(const char *router)
{
    for (size_t i = 0; i < sizeof fixed_styles / sizeof fixed_styles[0]; i++)
        if (strcmp(fixed_styles[i].name, router) == 0) return fixed_styles[i];
    uint32_t h = 2166136261u; /* FNV-1a: the same colour for the same name everywhere */
    for (const char *p = router; *p; p++) h = (h ^ (unsigned char)*p) * 16777619u;
    size_t n = sizeof other_colours / sizeof other_colours[0];
    return (style){router, other_colours[h % n], NULL};
}

const char *rb_bundle_router_colour(const char *router)
{
    return router_style(router).colour;
}

static bool is_reference(const rb_bundle *b, const char *router)
{
    const rb_bundle_router *info = rb_bundle_router_info(b, router);
    return info && info->reference;
}

/* ---- SVG pieces ----------------------------------------------------------------------------- */

static void text_escaped(rb_buf *o, const char *s)
{
    rb_format_xml(o, s, false);
}

static void text(rb_buf *o, double x, double y, const char *anchor, const char *extra,
                 const char *s)
{
    rb_buf_printf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s%s>", x, y, anchor,
                  extra ? " " : "", extra ? extra : "");
    text_escaped(o, s);
    rb_buf_puts(o, "</text>\n");
}

static void line(rb_buf *o, double x1, double y1, double x2, double y2, const char *stroke,
                 double width, const char *dash)
{
    rb_buf_printf(o,
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                  "stroke-width=\"%.1f\"%s%s%s/>\n",
                  x1, y1, x2, y2, stroke, width, dash ? " stroke-dasharray=\"" : "",
                  dash ? dash : "", dash ? "\"" : "");
}

/* Width in pixels of text at a font size (sans-serif, generous: 0.6 em per
 * character, bold 0.66). */
static double text_width(const char *s, double size, bool bold)
{
    return (double)strlen(s) * size * (bold ? 0.66 : 0.6);
}

#define TITLE_SIZE 14.0
#define FONT_SIZE  11.0
#define MARGIN     12.0

/* Lines of s wrapped between words to room pixels at size (a wider word
 * stays whole on its own line), drawn from (x, y) down by step when o is
 * not NULL.  Returns how many lines. */
static size_t wrap_lines(rb_buf *o, const char *s, double room, double size, bool bold, double x,
                         double y, double step, const char *extra)
{
    char line[RB_HEADLINE_TEXT] = "";
    size_t n = 0, len = 0;
    for (const char *p = s;;) {
        while (*p == ' ') p++;
        size_t w = strcspn(p, " ");
        if (!w) break;
        if (len && (text_width(line, size, bold) + text_width(" ", size, bold) +
                        (double)w * size * (bold ? 0.66 : 0.6) >
                    room)) {
            if (o) text(o, x, y + (double)n * step, "start", extra, line);
            n++;
            len = 0;
            line[0] = '\0';
        }
        if (len + w + 2 < sizeof line) {
            len += (size_t)snprintf(line + len, sizeof line - len, "%s%.*s", len ? " " : "", (int)w,
                                    p);
        }
        p += w;
    }
    if (len) {
        if (o) text(o, x, y + (double)n * step, "start", extra, line);
        n++;
    }
    return n ? n : 1;
}

/* A router's name as text(), whole: a name wider than room pixels goes
 * on as many lines as it needs (whole UTF-8 characters), never shortened.
 * Returns how many lines. */
static size_t name_text(rb_buf *o, double x, double y, const char *anchor, const char *extra,
                        const char *name, double room)
{
    bool bold = extra && strstr(extra, "bold");
    double size = bold ? FONT_SIZE * 1.1 : FONT_SIZE;
    size_t len = strlen(name), keep = (size_t)(room / (size * (bold ? 0.66 : 0.6)));
    if (text_width(name, size, bold) <= room || keep < 8) {
        text(o, x, y, anchor, extra, name);
        return 1;
    }
    char part[RB_BUNDLE_NAME * 2 + 8];
    size_t k = 0;
    for (size_t from = 0; from < len; k++) {
        size_t n = len - from < keep ? len - from : keep;
        while (from + n < len && n > 1 && ((unsigned char)name[from + n] & 0xC0) == 0x80) n--;
        if (n >= sizeof part) n = sizeof part - 1;
        snprintf(part, sizeof part, "%.*s", (int)n, name + from);
        text(o, x, y + (double)k * (size + 1), anchor, extra, part);
        from += n;
    }
    return k;
}

#define TITLE_STEP 18.0
#define SUB_STEP   14.0

/* The width a chart needs for its title and subtitle: their longest word
 * (they wrap to the chart's width). */
static double heading_width(const char *title, const char *subtitle)
{
    double w = 0;
    for (int k = 0; k < 2; k++)
        for (const char *p = k ? subtitle : title; *p;) {
            size_t n = strcspn(p, " ");
            w = fmax(w, (double)n * (k ? FONT_SIZE * 0.6 : TITLE_SIZE * 0.66));
            p += n;
            while (*p == ' ') p++;
        }
    return 2 * MARGIN + w;
}

/* The chart's frame and heading: the title and the subtitle wrapped to
 * its width; what follows is drawn as if each took one line (a group
 * moves it down by the extra lines), until svg_close. */
static void svg_open(rb_buf *o, double w, double h, const char *title, const char *subtitle)
{
    double room = w - 2 * MARGIN;
    size_t nt = wrap_lines(NULL, title, room, TITLE_SIZE, true, 0, 0, 0, NULL);
    size_t ns = wrap_lines(NULL, subtitle, room, FONT_SIZE, false, 0, 0, 0, NULL);
    double extra = (double)(nt - 1) * TITLE_STEP + (double)(ns - 1) * SUB_STEP;
    rb_buf_printf(o,
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                  "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"11\">\n",
                  w, h + extra, w, h + extra);
    rb_buf_puts(o, "<title>");
    text_escaped(o, title);
    rb_buf_puts(o, "</title>\n");
    rb_buf_printf(o, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n", w, h + extra);
    wrap_lines(o, title, room, TITLE_SIZE, true, MARGIN, 20, TITLE_STEP,
               "class=\"title\" font-size=\"14\" font-weight=\"bold\"");
    wrap_lines(o, subtitle, room, FONT_SIZE, false, MARGIN, 36 + (double)(nt - 1) * TITLE_STEP,
               SUB_STEP, "class=\"subtitle\" fill=\"#555\"");
    rb_buf_printf(o, "<g transform=\"translate(0,%.0f)\">\n", extra);
}

static void svg_close(rb_buf *o)
{
    rb_buf_puts(o, "</g>\n</svg>\n");
}

/* The legend: a swatch and a name per router, in rows from (x, y) within
 * width; returns the height used. */
static double legend(rb_buf *o, const rb_bundle *b, const char *const *routers, size_t n, double x,
                     double y, double width)
{
    rb_buf_puts(o, "<g class=\"legend\">\n");
    double cx = x, cy = y;
    for (size_t i = 0; i < n; i++) {
        char name[RB_BUNDLE_NAME + 16];
        rb_bundle_label(b, routers[i], false, name, sizeof name);
        double w = 26 + text_width(name, FONT_SIZE, false) + 14;
        if (cx + w > x + width && cx > x) {
            cx = x;
            cy += 16;
        }
        style st = router_style(routers[i]);
        line(o, cx, cy - 4, cx + 20, cy - 4, st.colour, 3, st.dash);
        text(o, cx + 24, cy, "start", NULL, name);
        cx += w;
    }
    rb_buf_puts(o, "</g>\n");
    return cy - y + 16;
}

/* The height legend() will take, measured on a scratch buffer. */
static double legend_height(const rb_bundle *b, const char *const *routers, size_t n, double width)
{
    rb_buf scratch = {0};
    double h = legend(&scratch, b, routers, n, MARGIN, 0, width);
    rb_buf_free(&scratch);
    return h;
}

/* A scenario's heading row ("static-100 (100 routes)"); advances *y. */
static void scenario_head(rb_buf *o, const rb_bundle_scenario *s, double *y)
{
    char head[256];
    snprintf(head, sizeof head, "%s (%zu routes)", s->name, s->routes);
    text(o, 8, *y + 15, "start", "font-weight=\"bold\"", head);
    *y += 22.0;
}

/* The routers of the bundle that have a result in some scenario, in the
 * bundle's router order; compared ones first, references last. */
static size_t routers_in_results(const rb_bundle *b, const char **out, size_t cap, bool refs)
{
    size_t n = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < b->nrouters && n < cap; i++) {
            const char *r = b->routers[i].name;
            if (b->routers[i].reference != (pass == 1)) continue;
            if (pass == 1 && !refs) continue;
            bool found = false;
            for (size_t s = 0; s < b->nscenarios && !found; s++)
                found = rb_bundle_result_index(&b->scenarios[s], r) != SIZE_MAX;
            if (found) out[n++] = r;
        }
    return n;
}

/* ---- log axes ---------------------------------------------------------------------------------- */

/* An axis fitted to its data: its ends are the nearest 1, 2 or 5 x 10^k
 * around the values (a ratio axis: just around them), so the data fill it
 * and a 5% change is visible. */
typedef struct log_axis {
    double lo, hi; /* the values at the ends */
    double p0, p1; /* pixels */
} log_axis;

/* 1, 2 or 5 x 10^k at or below v (below) or at or above it. */
static double nice_bound(double v, bool below)
{
    static const double steps[] = {1, 2, 5, 10};
    double p = pow(10, floor(log10(v)));
    if (below) {
        double r = p;
        for (size_t k = 0; k < 3; k++)
            if (steps[k] * p <= v * (1 + 1e-9)) r = steps[k] * p;
        return r;
    }
    for (size_t k = 0; k < 4; k++)
        if (steps[k] * p >= v * (1 - 1e-9)) return steps[k] * p;
    return 10 * p;
}

static log_axis axis_for(double min, double max, double p0, double p1)
{
    if (!(min > 0) || !isfinite(min)) min = 1;
    if (!(max >= min) || !isfinite(max)) max = min;
    log_axis a = {nice_bound(min, true), nice_bound(max, false), p0, p1};
    if (a.hi <= a.lo) a.hi = nice_bound(a.lo * 1.01, false);
    return a;
}

/* A ratio axis: around [min, max] (which hold 1) with a little room, on
 * nice bounds only when it spans more than a decade. */
static log_axis ratio_axis(double min, double max, double p0, double p1)
{
    if (!(min > 0) || !isfinite(min)) min = 1;
    if (!(max >= min) || !isfinite(max)) max = min;
    if (max / min > 10) return axis_for(min, max, p0, p1);
    double pad = pow(max / min, 0.06) * 1.01;
    return (log_axis){min / pad, max * pad, p0, p1};
}

static double axis_at(const log_axis *a, double v)
{
    return a->p0 + (a->p1 - a->p0) * (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
}

static bool axis_holds(const log_axis *a, double v)
{
    return v >= a->lo * 0.9999 && v <= a->hi * 1.0001;
}

/* The axis's ticks: 1, 2, 5 x 10^k over a wide axis, else a linear step
 * of 1, 2 or 5 x 10^k that gives 3 to 8 of them.  Returns how many;
 * major[i]: a power of ten (or every tick of a linear step). */
static size_t ticks(const log_axis *a, double *v, bool *major, size_t cap)
{
    size_t n = 0;
    if (a->hi / a->lo >= 8) {
        for (double d = pow(10, floor(log10(a->lo))); d <= a->hi * 1.0001 && n < cap; d *= 10)
            for (int k = 0; k < 3 && n < cap; k++) {
                double x = d * (k == 0 ? 1 : k == 1 ? 2 : 5);
                if (!axis_holds(a, x)) continue;
                v[n] = x;
                major[n++] = k == 0;
            }
        return n;
    }
    double step = nice_bound((a->hi - a->lo) / 5, false);
    for (double x = ceil(a->lo / step - 1e-9) * step; x <= a->hi * 1.0001 && n < cap; x += step) {
        v[n] = fabs(x) < step * 1e-6 ? 0 : x;
        major[n++] = true;
    }
    return n;
}

static void tick_label(double v, char *buf, size_t cap)
{
    if (v >= 1e9)
        snprintf(buf, cap, "%gG", v / 1e9);
    else if (v >= 1e6)
        snprintf(buf, cap, "%gM", v / 1e6);
    else if (v >= 1e3)
        snprintf(buf, cap, "%gk", v / 1e3);
    else
        snprintf(buf, cap, "%.4g", v);
}

/* The ticks' labels, leaving out any that would touch a label already
 * placed: the powers of ten first, then the others where they fit. */
static void tick_labels(rb_buf *o, const log_axis *a, const double *v, const bool *major, size_t n,
                        bool horizontal, double label_at)
{
    double placed_lo[64], placed_hi[64];
    size_t np = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n && np < 64; i++) {
            if (major[i] != (pass == 0)) continue;
            char l[32];
            tick_label(v[i], l, sizeof l);
            double p = axis_at(a, v[i]);
            double half = horizontal ? text_width(l, FONT_SIZE, false) / 2 + 3 : 8;
            bool clear = true;
            for (size_t k = 0; k < np && clear; k++)
                clear = p + half < placed_lo[k] || p - half > placed_hi[k];
            if (!clear) continue;
            placed_lo[np] = p - half;
            placed_hi[np++] = p + half;
            if (horizontal)
                text(o, p, label_at, "middle", "fill=\"#555\"", l);
            else
                text(o, label_at, p + 4, "end", "fill=\"#555\"", l);
        }
}

/* Grid lines at 1, 2, 5 x 10^k with their labels, and the axis title.
 * Vertical lines for a horizontal axis (from..to: y range, labels at
 * label_at), horizontal ones for a vertical axis (from..to: x range). */
static void grid(rb_buf *o, const log_axis *a, bool horizontal, double from, double to,
                 double label_at, const char *axis_title, double title_at)
{
    rb_buf_printf(o, "<g class=\"axis %s\">\n", horizontal ? "x" : "y");
    double v[64];
    bool major[64];
    size_t n = ticks(a, v, major, 64);
    for (size_t i = 0; i < n; i++) {
        double p = axis_at(a, v[i]);
        const char *stroke = major[i] ? "#bbbbbb" : "#eeeeee";
        if (horizontal)
            line(o, p, from, p, to, stroke, 1, NULL);
        else
            line(o, from, p, to, p, stroke, 1, NULL);
    }
    tick_labels(o, a, v, major, n, horizontal, label_at);
    if (horizontal)
        text(o, (a->p0 + a->p1) / 2, title_at, "middle", "class=\"axis-label\" fill=\"#333\"",
             axis_title);
    else {
        double mid = (a->p0 + a->p1) / 2;
        rb_buf_printf(o,
                      "<text class=\"axis-label\" fill=\"#333\" x=\"%.1f\" y=\"%.1f\" "
                      "text-anchor=\"middle\" transform=\"rotate(-90 %.1f %.1f)\">",
                      title_at, mid, title_at, mid);
        text_escaped(o, axis_title);
        rb_buf_puts(o, "</text>\n");
    }
    rb_buf_puts(o, "</g>\n");
}

/* ---- chart.svg: ns per lookup -------------------------------------------------------------- */

#define ROW_H  14.0
#define HEAD_H 22.0
#define LEFT   250.0
#define RIGHT  40.0
#define WIDTH  960.0

/* The range of a measure over every result drawn, references included:
 * the axis holds every bar it draws (a reference outside it would hide
 * what it is there to show). */
static void span(const rb_bundle *b, int what, double *min, double *max)
{
    double fastest = INFINITY;
    *min = INFINITY;
    *max = 0;
    for (size_t i = 0; i < b->nscenarios; i++)
        for (size_t k = 0; k < b->scenarios[i].nresults; k++) {
            const rb_bundle_result *r = &b->scenarios[i].results[k];
            double lo = what == 0   ? r->min_ns
                        : what == 1 ? r->bytes_per_route
                                    : (double)r->build_ns / 1e6;
            double hi = what == 0 ? r->max_ns : lo;
            if (lo > 0) *min = fmin(*min, lo);
            if (hi > 0) *max = fmax(*max, hi);
            if (what == 0 && r->median_ns > 0) fastest = fmin(fastest, r->median_ns);
        }
    /* a trial near 0 (cold: the stand-in's cost subtracted) would stretch
     * the axis over decades: it starts at a tenth of the fastest median,
     * and a min-max line reaching below is cut at the edge */
    if (what == 0 && isfinite(fastest)) *min = fmax(*min, fastest / 10);
}

/* Results of scenario s in drawing order (rb_bundle_fastest_first), auto
 * right under the router it picked: it is that router, not a rival. */
static size_t ordered(const rb_bundle *b, const rb_bundle_scenario *s, size_t *idx)
{
    size_t n = rb_bundle_fastest_first(b, s, idx, 256);
    rb_verdict_auto_under_pick(s, idx, n);
    return n;
}

/* A row's name: its label; auto as what it is, "auto (hashseg)". */
static void row_name(const rb_bundle *b, const rb_bundle_scenario *s, const char *router, char *buf,
                     size_t cap)
{
    rb_bundle_label(b, router, false, buf, cap);
    if (s && strcmp(router, "auto") == 0 && *s->auto_choice)
        snprintf(buf, cap, "auto (%s)", s->auto_choice);
}

/* The left column's right edge: room for the widest row name (bold), at
 * least LEFT, so no router name is ever shortened. */
static double left_for(const rb_bundle *b)
{
    double w = 0;
    for (size_t i = 0; i < b->nscenarios; i++)
        for (size_t k = 0; k < b->scenarios[i].nresults; k++) {
            char name[RB_BUNDLE_NAME * 2 + 16];
            row_name(b, &b->scenarios[i], b->scenarios[i].results[k].router, name, sizeof name);
            w = fmax(w, text_width(name, FONT_SIZE * 1.1, true));
        }
    return fmax(LEFT, w + MARGIN + 12);
}

/* The router the verdict names the winner of scenario si, "" when it
 * names none (verdict.h). */
static void fastest_of(const rb_bundle *b, size_t si, char *buf, size_t cap)
{
    rb_verdict v;
    buf[0] = '\0';
    if (rb_verdict_scenario(b, si, &v) == 0 && rb_verdict_has_winner(&v))
        snprintf(buf, cap, "%s", v.fastest);
}

/* "; a peer process's figure comes from its own process and timing loop"
 * when the bundle has one (its rows are beside ours, never ranked with
 * them), else "". */
static const char *process_note(const rb_bundle *b)
{
    for (size_t i = 0; i < b->nscenarios; i++)
        for (size_t k = 0; k < b->scenarios[i].nresults; k++)
            if (b->scenarios[i].results[k].peer_process)
                return "; a peer process's figures come from its own process and timing loop, "
                       "ours from routebench's";
    return "";
}

/* The chart's title: the bundle's answer in a line (headline.h). */
static void chart_title(const rb_bundle *b, char *buf, size_t cap)
{
    rb_headline_bundle(b, buf, cap);
    if (!*buf) snprintf(buf, cap, "nothing was measured");
}

/* A median's label: its value, and "fastest" for the winner. */
static void median_label(const rb_bundle *b, double v, bool winner, char *buf, size_t cap)
{
    char t[32];
    rb_bundle_fmt_value(b, v, t, sizeof t);
    snprintf(buf, cap, "%s%s", t, winner ? "  fastest" : "");
}

static int ns_chart(const rb_bundle *b, rb_buf *o)
{
    char title[RB_HEADLINE_TEXT], subtitle[400];
    chart_title(b, title, sizeof title);
    snprintf(subtitle, sizeof subtitle,
             "%s per lookup, log scale, lower is faster: median bar, min-max line, a dot per "
             "trial; in-process lookups, not HTTP requests per second%s",
             rb_metric_unit(b->metric), process_note(b));
    double min, max;
    span(b, 0, &min, &max);
    size_t rows = 0, refs = 0;
    double label_w = 0;
    for (size_t i = 0; i < b->nscenarios; i++)
        for (size_t k = 0; k < b->scenarios[i].nresults; k++) {
            const rb_bundle_result *r = &b->scenarios[i].results[k];
            char l[64];
            median_label(b, r->median_ns, true, l, sizeof l);
            label_w = fmax(label_w, text_width(l, 9, false));
            rows++;
            refs += rb_bundle_is_aside(b, r);
        }
    const char *rs[64] = {0};
    size_t nr = routers_in_results(b, rs, 64, true);
    double left = left_for(b);
    double width = fmax(WIDTH + left - LEFT, heading_width(title, subtitle));
    double legend_h = legend_height(b, rs, nr, width - 2 * MARGIN);
    double top = 50 + legend_h + 6;
    double bottom = 46;
    double height = top + bottom + (double)b->nscenarios * HEAD_H + (double)rows * ROW_H +
                    (refs ? (double)b->nscenarios * 6 : 0);
    svg_open(o, width, height, title, subtitle);
    legend(o, b, rs, nr, MARGIN, 56, width - 2 * MARGIN);
    /* room on the right for the slowest median's label */
    log_axis a = axis_for(min, max, left, width - MARGIN - label_w - 8);
    char axis_label[128];
    snprintf(axis_label, sizeof axis_label, "%s per lookup (log scale)", rb_metric_unit(b->metric));
    grid(o, &a, true, top, height - bottom, height - bottom + 14, axis_label, height - bottom + 32);
    rb_buf_puts(o, "<g class=\"axis y\">\n");
    double y = top;
    for (size_t i = 0; i < b->nscenarios; i++) {
        const rb_bundle_scenario *s = &b->scenarios[i];
        char winner[RB_BUNDLE_NAME];
        fastest_of(b, i, winner, sizeof winner);
        scenario_head(o, s, &y);
        size_t idx[256];
        size_t n = s->nresults <= 256 ? ordered(b, s, idx) : 0;
        bool sep = false;
        for (size_t j = 0; j < n; j++) {
            size_t k = idx[j];
            const rb_bundle_result *r = &s->results[k];
            bool ref = rb_bundle_is_aside(b, r), win = strcmp(r->router, winner) == 0;
            if (ref && !sep) {
                line(o, left - 200, y + 3, a.p1, y + 3, "#cccccc", 1, "3 3");
                y += 6;
                sep = true;
            }
            style st = router_style(r->router);
            double cy = y + ROW_H / 2;
            char name[RB_BUNDLE_NAME * 2 + 16];
            row_name(b, s, r->router, name, sizeof name);
            name_text(o, left - 8, cy + 4, "end",
                      win   ? "font-weight=\"bold\""
                      : ref ? "fill=\"#555\""
                            : NULL,
                      name, left - 8 - MARGIN);
            double lo = fmax(r->min_ns, a.lo), hi = fmin(r->max_ns, a.hi);
            if (r->min_ns > 0 && hi >= lo)
                line(o, axis_at(&a, lo), cy, axis_at(&a, hi), cy, st.colour, 1.5, NULL);
            for (size_t t = 0; t < b->ntrials; t++) {
                const rb_bundle_trial *tr = &b->trials_v[t];
                if (tr->scenario != i || tr->result != k) continue;
                double v = rb_bundle_trial_ns_per_lookup(tr);
                if (v > 0 && axis_holds(&a, v))
                    rb_buf_printf(o,
                                  "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.2\" fill=\"%s\" "
                                  "fill-opacity=\"0.35\"/>\n",
                                  axis_at(&a, v), cy, st.colour);
            }
            if (r->median_ns > 0 && axis_holds(&a, r->median_ns)) {
                double x = axis_at(&a, r->median_ns);
                char v[64];
                median_label(b, r->median_ns, win, v, sizeof v);
                rb_buf_printf(o,
                              "<rect x=\"%.1f\" y=\"%.1f\" width=\"3\" height=\"10\" "
                              "fill=\"%s\"/>\n",
                              x - 1.5, cy - 5, st.colour);
                /* the label after the slowest trial, so no dot hides it */
                double after = fmax(x, r->max_ns > 0 ? axis_at(&a, fmin(r->max_ns, a.hi)) : x);
                text(o, after + 6, cy + 3, "start",
                     win ? "font-size=\"9\" font-weight=\"bold\" fill=\"#111\""
                         : "font-size=\"9\" fill=\"#333\"",
                     v);
            }
            y += ROW_H;
        }
    }
    rb_buf_puts(o, "</g>\n");
    svg_close(o);
    return RB_OK;
}

/* ---- scaling.svg ------------------------------------------------------------------------------ */

#define PANEL_W     480.0
#define PANEL_H     400.0
#define PANEL_PAD_L 70.0
#define PANEL_PAD_B 120.0 /* the x axis, then the routes by depth (DEPTH_LINES at most) */
#define DEPTH_LINES 5
#define PANEL_PAD_T 30.0
#define PANEL_PAD_R 160.0

/* Shapes of generated scenarios with two or more route counts, in order of
 * first appearance; returns how many. */
static size_t scaling_shapes(const rb_bundle *b, const char **shapes, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < b->nscenarios && n < cap; i++) {
        const rb_bundle_scenario *s = &b->scenarios[i];
        if (!*s->shape || !s->nresults) continue;
        bool seen = false;
        for (size_t k = 0; k < n; k++) seen = seen || strcmp(shapes[k], s->shape) == 0;
        if (seen) continue;
        size_t sizes = 0;
        for (size_t j = 0; j < b->nscenarios; j++)
            if (strcmp(b->scenarios[j].shape, s->shape) == 0 &&
                b->scenarios[j].routes != s->routes && b->scenarios[j].nresults)
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

static void panel(const rb_bundle *b, rb_buf *o, const char *shape, size_t index, double x0,
                  double y0)
{
    const rb_bundle_scenario *sc[64];
    size_t n = 0;
    double rmin = INFINITY, rmax = 0, tmin = INFINITY, tmax = 0, amin = INFINITY, amax = 0;
    for (size_t i = 0; i < b->nscenarios && n < 64; i++) {
        const rb_bundle_scenario *s = &b->scenarios[i];
        if (strcmp(s->shape, shape) != 0) continue;
        sc[n++] = s;
        rmin = fmin(rmin, (double)s->routes);
        rmax = fmax(rmax, (double)s->routes);
        for (size_t k = 0; k < s->nresults; k++) {
            double v = s->results[k].median_ns;
            if (!(v > 0)) continue;
            amin = fmin(amin, v), amax = fmax(amax, v);
            if (is_reference(b, s->results[k].router)) continue;
            tmin = fmin(tmin, v), tmax = fmax(tmax, v);
        }
    }
    if (!(tmax > 0)) tmin = amin, tmax = amax; /* only references ran */
    qsort(sc, n, sizeof sc[0], by_routes);
    double l = x0 + PANEL_PAD_L, r = x0 + PANEL_W - PANEL_PAD_R;
    double t = y0 + PANEL_PAD_T, bt = y0 + PANEL_H - PANEL_PAD_B;
    log_axis ax = axis_for(rmin, rmax, l, r);
    log_axis ay = axis_for(tmin, tmax, bt, t);
    char title[96];
    snprintf(title, sizeof title, "shape %s", shape);
    text(o, l, y0 + 18, "start", "font-weight=\"bold\"", title);
    grid(o, &ax, true, t, bt, bt + 14, "routes (log scale)", bt + 32);
    char ylabel[96];
    snprintf(ylabel, sizeof ylabel, "median %s per lookup (log scale)", rb_metric_unit(b->metric));
    grid(o, &ay, false, l, r, l - 6, ylabel, x0 + 16);
    rb_buf_printf(o,
                  "<clipPath id=\"plot%zu\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                  "height=\"%.1f\"/></clipPath>\n",
                  index, l - 4, t - 4, r - l + 8, bt - t + 8);
    rb_buf_puts(o, "<g class=\"legend\">\n");
    double legend_y = t + 4;
    const char *rs[64] = {0};
    size_t nr = routers_in_results(b, rs, 64, true);
    for (size_t ri = 0; ri < nr; ri++) {
        const char *router = rs[ri];
        style st = router_style(router);
        rb_buf points = {0};
        size_t npoints = 0;
        bool clipped = false;
        rb_buf_printf(o, "<g clip-path=\"url(#plot%zu)\">\n", index);
        for (size_t i = 0; i < n; i++) {
            size_t k = rb_bundle_result_index(sc[i], router);
            if (k == SIZE_MAX || !(sc[i]->results[k].median_ns > 0)) continue;
            double v = sc[i]->results[k].median_ns;
            clipped = clipped || !axis_holds(&ay, v);
            double px = axis_at(&ax, (double)sc[i]->routes), py = axis_at(&ay, v);
            rb_buf_printf(&points, "%s%.1f,%.1f", npoints ? " " : "", px, py);
            rb_buf_printf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", px, py,
                          st.colour);
            npoints++;
        }
        if (npoints > 1 && !points.failed)
            rb_buf_printf(o,
                          "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" "
                          "stroke-width=\"1.8\"%s%s%s/>\n",
                          points.data, st.colour, st.dash ? " stroke-dasharray=\"" : "",
                          st.dash ? st.dash : "", st.dash ? "\"" : "");
        rb_buf_puts(o, "</g>\n");
        if (npoints) {
            char name[RB_BUNDLE_NAME + 32];
            rb_bundle_label(b, router, true, name, sizeof name);
            if (clipped) snprintf(name + strlen(name), sizeof name - strlen(name), " ^");
            line(o, r + 10, legend_y, r + 28, legend_y, st.colour, 2.5, st.dash);
            size_t lines =
                name_text(o, r + 32, legend_y + 4, "start", NULL, name, PANEL_PAD_R - 36);
            legend_y += 15 + (double)(lines - 1) * (FONT_SIZE + 1);
        }
        rb_buf_free(&points);
    }
    rb_buf_puts(o, "</g>\n");
    /* the routes by depth of each route count, beside the figure: deeper
     * paths explain a slowdown as much as the router does */
    for (size_t i = 0; i < n && i < DEPTH_LINES; i++) {
        char depth[400], caption[480];
        rb_bundle_depth_text(sc[i], depth, sizeof depth);
        if (!*depth) continue;
        snprintf(caption, sizeof caption, "%zu routes, by depth: %s", sc[i]->routes, depth);
        text(o, x0 + 10, bt + 52 + 13 * (double)i, "start", "font-size=\"10\" fill=\"#555\"",
             caption);
    }
}

static int scaling_chart(const rb_bundle *b, rb_buf *o)
{
    char title[RB_HEADLINE_TEXT], subtitle[256];
    chart_title(b, title, sizeof title);
    snprintf(subtitle, sizeof subtitle,
             "median %s per lookup against route count, per shape (log-log); in-process lookups, "
             "not HTTP requests per second",
             rb_metric_unit(b->metric));
    const char *shapes[16];
    size_t n = scaling_shapes(b, shapes, 16);
    size_t cols = n < 2 ? 1 : 2, nrows = (n + cols - 1) / cols;
    double sub_w = heading_width(title, subtitle);
    /* as wide as the other charts, so a page scales them alike */
    double w = fmax(fmax((double)cols * PANEL_W + 20, WIDTH), sub_w),
           h = 70 + (double)nrows * PANEL_H;
    svg_open(o, w, h, title, subtitle);
    text(o, MARGIN, 52, "start", "fill=\"#555\" font-size=\"10\"",
         "reference lines (dashed) leave the plot when they are off its scale (^ in the legend)");
    for (size_t i = 0; i < n; i++)
        panel(b, o, shapes[i], i, 10 + (double)(i % cols) * PANEL_W,
              64 + (double)(i / cols) * PANEL_H);
    svg_close(o);
    return RB_OK;
}

/* ---- ratio.svg: the paired speed ratios ------------------------------------------------------ */

typedef struct ratio_row {
    const char *scenario; /* NULL: a geometric mean */
    const char *router, *baseline;
    double median, lo, hi;
    bool real, winner;
    size_t wins, n;
    const rb_bundle_scenario *s; /* NULL: a geometric mean */
} ratio_row;

/* rows[from..n) fastest first (the highest speed ratio). */
static void sort_rows(ratio_row *rows, size_t from, size_t n)
{
    for (size_t i = from + 1; i < n; i++) {
        ratio_row r = rows[i];
        size_t j = i;
        for (; j > from && rows[j - 1].median < r.median; j--) rows[j] = rows[j - 1];
        rows[j] = r;
    }
}

/* rows[from..n) of scenario s: auto's row moved right under the row of
 * the router it picked (it is that router, not a rival), never marked. */
static void auto_under_pick(ratio_row *rows, size_t from, size_t n, const rb_bundle_scenario *s)
{
    size_t a = SIZE_MAX, c = SIZE_MAX;
    for (size_t i = from; i < n; i++) {
        if (strcmp(rows[i].router, "auto") == 0) a = i;
        if (*s->auto_choice && strcmp(rows[i].router, s->auto_choice) == 0) c = i;
    }
    if (a == SIZE_MAX) return;
    rows[a].winner = false;
    if (c == SIZE_MAX) return;
    ratio_row r = rows[a];
    memmove(&rows[a], &rows[a + 1], (n - a - 1) * sizeof *rows);
    if (c > a) c--;
    memmove(&rows[c + 2], &rows[c + 1], (n - c - 2) * sizeof *rows);
    rows[c + 1] = r;
}

/* The router every scenario's ratios are against, or NULL when they
 * differ (each block's heading names its own). */
static const char *common_anchor(const rb_bundle *b)
{
    const char *anchor = NULL;
    for (size_t i = 0; i < b->nscenarios; i++) {
        if (!b->scenarios[i].nresults) continue;
        const char *a = b->scenarios[i].results[0].router;
        if (anchor && strcmp(anchor, a) != 0) return NULL;
        anchor = a;
    }
    return anchor;
}

/* Every router's ratio against its scenario's first router, fastest
 * first; then the geometric means when there are several tables (never
 * across the conditions of one table: those are not scenarios). */
static size_t ratio_rows(const rb_bundle *b, ratio_row *rows, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < b->nscenarios; i++) {
        const rb_bundle_scenario *s = &b->scenarios[i];
        if (!s->nresults) continue;
        const char *anchor = s->results[0].router;
        char winner[RB_BUNDLE_NAME];
        fastest_of(b, i, winner, sizeof winner);
        size_t first = n;
        for (size_t k = 1; k < s->nresults && n < cap; k++) {
            const rb_bundle_pair *p = rb_bundle_find_pair(s, anchor, s->results[k].router);
            if (!p || is_reference(b, p->b) || !(p->r.median > 0)) continue;
            bool clear = rb_metric_exact(b->metric) ? rb_verdict_counted_differs(&p->r)
                                                    : p->r.excludes_one != 0;
            rows[n++] = (ratio_row){s->name,   p->b,    anchor, p->r.median,
                                    p->r.lo,   p->r.hi, clear,  strcmp(p->b, winner) == 0,
                                    p->r.wins, p->r.n,  s};
        }
        sort_rows(rows, first, n);
        auto_under_pick(rows, first, n, s);
    }
    if (rb_headline_tables(b) < 2) return n;
    size_t first = n;
    for (size_t i = 0; i < b->ngeomeans && n < cap; i++) {
        const rb_bundle_geomean *g = &b->geomeans[i];
        if (is_reference(b, g->router) || !(g->g.geomean > 0)) continue;
        rows[n++] = (ratio_row){
            NULL,  g->router, g->baseline,    g->g.geomean, g->g.lo, g->g.hi, g->g.excludes_one,
            false, 0,         g->g.scenarios, NULL};
    }
    sort_rows(rows, first, n);
    return n;
}

/* A row's label: "1.462 [1.401, 1.530] 9/9", "0.954 exact". */
static void ratio_label(const rb_bundle *b, const ratio_row *r, char *buf, size_t cap)
{
    char m[32], lo[32], hi[32];
    if (rb_metric_exact(b->metric)) { /* "exact", or a count's A/A spread (hi = median x (1 + s)) */
        char within[40];
        rb_format_exact_ratio(r->median, m, sizeof m);
        rb_gate_fmt_spread(r->median > 0 ? r->hi / r->median - 1 : 0, within, sizeof within);
        snprintf(buf, cap, "%s %s%s", m, within, r->winner ? "  fastest" : "");
        return;
    }
    rb_format_ratio(r->median, m, sizeof m);
    rb_format_interval(r->lo, r->hi, 3, lo, hi, sizeof lo);
    if (r->scenario)
        snprintf(buf, cap, "%s [%s, %s] %zu/%zu%s", m, lo, hi, r->wins, r->n,
                 r->winner ? "  fastest" : "");
    else
        snprintf(buf, cap, "%s [%s, %s] over %zu", m, lo, hi, r->n);
}

static bool new_block(const ratio_row *rows, size_t i)
{
    return i == 0 || (rows[i].scenario != rows[i - 1].scenario &&
                      (!rows[i].scenario || !rows[i - 1].scenario ||
                       strcmp(rows[i].scenario, rows[i - 1].scenario) != 0));
}

/* The gate's threshold: a dashed line across the plot, named at its top. */
static void gate_line(rb_buf *o, const rb_bundle *b, const log_axis *a, double top, double bottom)
{
    if (!b->gate.on || !axis_holds(a, b->gate.threshold)) return;
    double x = axis_at(a, b->gate.threshold);
    line(o, x, top - 4, x, bottom, "#b3261e", 1.5, "5 3");
    char l[64];
    snprintf(l, sizeof l, "--fail-below %g", b->gate.threshold);
    double w = text_width(l, 10, false);
    /* on the side away from the line at 1, where it has room */
    bool right = b->gate.threshold >= 1 ? x + 4 + w <= a->p1 + 4 : x - 4 - w < a->p0 - 150;
    text(o, right ? x + 4 : x - 4, top + 6, right ? "start" : "end",
         "font-size=\"10\" fill=\"#b3261e\"", l);
}

static int ratio_chart(const rb_bundle *b, rb_buf *o)
{
    ratio_row rows[512];
    size_t n = ratio_rows(b, rows, 512);
    char title[RB_HEADLINE_TEXT], subtitle[480];
    chart_title(b, title, sizeof title);
    const char *anchor = common_anchor(b);
    char against[RB_BUNDLE_NAME + 64];
    if (anchor)
        snprintf(against, sizeof against, "%s", anchor);
    else
        snprintf(against, sizeof against, "the router each block's heading names");
    if (rb_metric_exact(b->metric))
        snprintf(subtitle, sizeof subtitle,
                 "speed against %s: (its %s) / (the router's), exact (counted by Callgrind); "
                 "above 1: faster; references left out",
                 against, rb_metric_unit(b->metric));
    else
        snprintf(subtitle, sizeof subtitle,
                 "speed against %s, median over the paired trials with its %.0f%% interval; "
                 "above 1: faster; a hollow dot: no real difference%s",
                 against, b->bootstrap.level * 100, process_note(b));
    double left = left_for(b);
    double width = fmax(WIDTH + left - LEFT, heading_width(title, subtitle));
    double min = 1, max = 1, label_w = 0;
    if (b->gate.on && b->gate.threshold > 0) min = max = b->gate.threshold;
    min = fmin(min, 1), max = fmax(max, 1);
    for (size_t i = 0; i < n; i++) {
        min = fmin(min, rows[i].lo > 0 ? fmin(rows[i].lo, rows[i].median) : rows[i].median);
        max = fmax(max, fmax(rows[i].hi, rows[i].median));
        char l[128];
        ratio_label(b, &rows[i], l, sizeof l);
        label_w = fmax(label_w, text_width(l, 9, false));
    }
    const char *rs[64] = {0};
    size_t nr = 0;
    for (size_t i = 0; i < n && nr < 64; i++) {
        bool seen = false;
        for (size_t k = 0; k < nr; k++) seen = seen || strcmp(rs[k], rows[i].router) == 0;
        if (!seen) rs[nr++] = rows[i].router;
    }
    double legend_h = legend_height(b, rs, nr, width - 2 * MARGIN);
    double top = 50 + legend_h + 6 + (b->gate.on ? 12 : 0), bottom = 46;
    size_t heads = 0;
    for (size_t i = 0; i < n; i++) heads += new_block(rows, i);
    double height = top + bottom + (double)heads * HEAD_H + (double)n * ROW_H;
    svg_open(o, width, height, title, subtitle);
    legend(o, b, rs, nr, MARGIN, 56, width - 2 * MARGIN);
    log_axis a = ratio_axis(min, max, left, width - MARGIN - label_w - 8);
    char xl[RB_BUNDLE_NAME + 96];
    snprintf(xl, sizeof xl, "speed relative to %s (log scale)", against);
    grid(o, &a, true, top, height - bottom, height - bottom + 14, xl, height - bottom + 32);
    line(o, axis_at(&a, 1), top, axis_at(&a, 1), height - bottom, "#333333", 1.2, NULL);
    gate_line(o, b, &a, top, height - bottom);
    rb_buf_puts(o, "<g class=\"axis y\">\n");
    double y = top;
    for (size_t i = 0; i < n; i++) {
        const ratio_row *r = &rows[i];
        if (new_block(rows, i)) {
            char h[256];
            if (r->scenario)
                snprintf(h, sizeof h, "%s (vs %s)", r->scenario, r->baseline);
            else
                snprintf(h, sizeof h, "geometric mean across scenarios (vs %s)", r->baseline);
            text(o, 8, y + 15, "start", "font-weight=\"bold\"", h);
            y += HEAD_H;
        }
        style st = router_style(r->router);
        double cy = y + ROW_H / 2;
        char name[RB_BUNDLE_NAME * 2 + 16];
        row_name(b, r->s, r->router, name, sizeof name);
        name_text(o, left - 8, cy + 4, "end", r->winner ? "font-weight=\"bold\"" : NULL, name,
                  left - 8 - MARGIN);
        bool interval = !rb_metric_exact(b->metric) && r->lo > 0 && r->hi > 0;
        if (interval) line(o, axis_at(&a, r->lo), cy, axis_at(&a, r->hi), cy, st.colour, 2, NULL);
        double x = axis_at(&a, r->median);
        rb_buf_printf(o,
                      "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\" stroke=\"%s\" "
                      "stroke-width=\"1.5\"/>\n",
                      x, cy, r->real ? st.colour : "white", st.colour);
        char label[128];
        ratio_label(b, r, label, sizeof label);
        text(o, axis_at(&a, interval ? fmax(r->hi, r->median) : r->median) + 6, cy + 3, "start",
             r->winner ? "font-size=\"9\" font-weight=\"bold\" fill=\"#111\""
                       : "font-size=\"9\" fill=\"#333\"",
             label);
        y += ROW_H;
    }
    rb_buf_puts(o, "</g>\n");
    svg_close(o);
    return RB_OK;
}

/* ---- cost.svg: memory and build time ------------------------------------------------------------ */

/* cost.svg's title: the smallest and the fastest to build, with one table. */
static void cost_title(const rb_bundle *b, char *buf, size_t cap)
{
    rb_verdict v;
    if (rb_headline_tables(b) != 1 || rb_verdict_scenario(b, 0, &v) < 0 || !*v.smallest) {
        snprintf(buf, cap, "bytes per route and build time of each router in each scenario");
        return;
    }
    char build[32];
    rb_format_duration((double)v.fastest_build_ns, build, sizeof build);
    snprintf(buf, cap, "%s: smallest %s, %.1f bytes/route; fastest to build %s, %s",
             b->scenarios[0].name, v.smallest, v.smallest_bytes_per_route, v.fastest_build, build);
}

static int cost_chart(const rb_bundle *b, rb_buf *o)
{
    char title[RB_HEADLINE_TEXT];
    cost_title(b, title, sizeof title);
    static const char subtitle[] = "log scales, lower is cheaper: memory() after build divided by "
                                   "the routes; build = create + add every route + build, timed "
                                   "once; rows fastest first, as in chart.svg";
    double left = left_for(b);
    double width = fmax(WIDTH + 200 + left - LEFT, heading_width(title, subtitle));
    double bmin, bmax, tmin, tmax;
    span(b, 1, &bmin, &bmax);
    span(b, 2, &tmin, &tmax);
    size_t rows = 0;
    for (size_t i = 0; i < b->nscenarios; i++) rows += b->scenarios[i].nresults;
    const char *rs[64] = {0};
    size_t nr = routers_in_results(b, rs, 64, true);
    double legend_h = legend_height(b, rs, nr, width - 2 * MARGIN);
    double top = 50 + legend_h + 6, bottom = 46;
    double height = top + bottom + (double)b->nscenarios * HEAD_H + (double)rows * ROW_H;
    svg_open(o, width, height, title, subtitle);
    legend(o, b, rs, nr, MARGIN, 56, width - 2 * MARGIN);
    double gap = 40, panel_w = (width - left - RIGHT - gap) / 2;
    /* room after each panel for its longest label ("1234.5", "999 ms") */
    /* the axis starts well below the smallest value: the smallest router
     * shows as a bar, not a sliver at the axis's edge */
    log_axis ab = axis_for(bmin / 2, bmax, left, left + panel_w - 16);
    log_axis at = axis_for(tmin, tmax, left + panel_w + gap, width - RIGHT - 16);
    grid(o, &ab, true, top, height - bottom, height - bottom + 14, "bytes per route (log scale)",
         height - bottom + 32);
    grid(o, &at, true, top, height - bottom, height - bottom + 14, "build time, ms (log scale)",
         height - bottom + 32);
    rb_buf_puts(o, "<g class=\"axis y\">\n");
    double y = top;
    for (size_t i = 0; i < b->nscenarios; i++) {
        const rb_bundle_scenario *s = &b->scenarios[i];
        scenario_head(o, s, &y);
        size_t idx[256];
        size_t nidx = s->nresults <= 256 ? ordered(b, s, idx) : 0;
        for (size_t j = 0; j < nidx; j++) {
            const rb_bundle_result *r = &s->results[idx[j]];
            style st = router_style(r->router);
            double cy = y + ROW_H / 2;
            char name[RB_BUNDLE_NAME * 2 + 16], v[48];
            row_name(b, s, r->router, name, sizeof name);
            name_text(o, left - 8, cy + 4, "end", NULL, name, left - 8 - MARGIN);
            const struct {
                const log_axis *a;
                double v;
                bool ms;
            } bars[2] = {{&ab, r->bytes_per_route, false}, {&at, (double)r->build_ns / 1e6, true}};
            for (int k2 = 0; k2 < 2; k2++) {
                const log_axis *a = bars[k2].a;
                double val = bars[k2].v;
                if (!(val > 0)) continue;
                double x1 = axis_at(a, fmin(fmax(val, a->lo), a->hi));
                rb_buf_printf(o,
                              "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"9\" "
                              "fill=\"%s\" fill-opacity=\"0.8\"/>\n",
                              a->p0, cy - 4.5, x1 - a->p0 > 1 ? x1 - a->p0 : 1, st.colour);
                if (bars[k2].ms)
                    rb_format_duration(val * 1e6, v, sizeof v);
                else
                    snprintf(v, sizeof v, "%.1f", val);
                text(o, x1 + 4, cy + 3, "start", "font-size=\"9\" fill=\"#333\"", v);
            }
            y += ROW_H;
        }
    }
    rb_buf_puts(o, "</g>\n");
    svg_close(o);
    return RB_OK;
}

/* ---- the list of charts ----------------------------------------------------------------------- */

static const struct {
    const char *file, *alt;
    int (*render)(const rb_bundle *, rb_buf *);
} charts[RB_NCHARTS] = {
    [RB_CHART_NS] = {"chart.svg",
                     "cost per lookup of each router in each scenario, fastest first: median, "
                     "with every trial and the min-max range",
                     ns_chart},
    [RB_CHART_RATIO] = {"ratio.svg",
                        "paired speed ratio of each router against the scenario's first router "
                        "(named in the chart), fastest first, with its interval (exact when "
                        "counted)",
                        ratio_chart},
    [RB_CHART_SCALING] = {"scaling.svg",
                          "cost per lookup against route count, one line per router and shape",
                          scaling_chart},
    [RB_CHART_COST] = {"cost.svg", "bytes per route and build time of each router in each scenario",
                       cost_chart},
};

const char *rb_bundle_chart_file(rb_bundle_chart c)
{
    return charts[c].file;
}

const char *rb_bundle_chart_alt(rb_bundle_chart c)
{
    return charts[c].alt;
}

bool rb_bundle_chart_has_data(const rb_bundle *b, rb_bundle_chart c)
{
    size_t results = 0;
    for (size_t i = 0; i < b->nscenarios; i++) results += b->scenarios[i].nresults;
    const char *shapes[1];
    ratio_row row[1];
    switch (c) {
    case RB_CHART_NS:
    case RB_CHART_COST:
        return results > 0;
    case RB_CHART_SCALING:
        return scaling_shapes(b, shapes, 1) > 0;
    case RB_CHART_RATIO:
        return ratio_rows(b, row, 1) > 0;
    case RB_NCHARTS:
        break;
    }
    return false;
}

int rb_bundle_chart_render(const rb_bundle *b, rb_bundle_chart c, rb_buf *out, rb_error *err)
{
    if (!rb_bundle_chart_has_data(b, c))
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "%s: nothing to plot", charts[c].file);
    charts[c].render(b, out);
    return out->failed ? rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory") : RB_OK;
}
