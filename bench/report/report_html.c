/*
 * report_html.c — report.html: the bundle as one self-contained page a
 * person opens in a browser, on a laptop or a phone.  Inline CSS and the
 * charts as inline SVG; no script, no font, no request of any kind (the
 * page's Content-Security-Policy forbids them, so a slip shows up as a
 * console error in tests/browser_check.sh).
 *
 * Top to bottom, in the order a reader asks: the answer in a sentence
 * (headline.h) with the line of each table under it; the gate's outcome
 * when there is one; the charts; each scenario's table, collapsed in a
 * <details> (a table measured warm and cold shows both conditions side by
 * side); how it was measured, on what, what the numbers do not establish;
 * links to the data files.  A pure function of the bundle, like report.md.
 */
#include "report_html.h"

#include "ecosystem.h"
#include "feature_names.h"
#include "headline.h"
#include "format.h"
#include "verdict.h"

#include "base_internal.h"
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void esc(rb_buf *o, const char *s)
{
    rb_format_xml(o, s, true);
}

/* An element holding escaped text: <tag attrs>text</tag>. */
static void elem(rb_buf *o, const char *tag, const char *attrs, const char *text)
{
    rb_buf_printf(o, "<%s%s%s>", tag, attrs ? " " : "", attrs ? attrs : "");
    esc(o, text);
    rb_buf_printf(o, "</%s>\n", tag);
}

static const char style[] =
    ":root{color-scheme:light;--ink:#1b1b1b;--mute:#5a5a5a;--line:#dcdcdc;--pass:#1e7b34;"
    "--fail:#b3261e;--warn:#8a5a00}\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0;font:16px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',"
    "sans-serif;color:var(--ink);background:#fff;overflow-wrap:anywhere}\n"
    "main{max-width:68rem;margin:0 auto;padding:1.25rem 1rem 3rem}\n"
    "h1{font-size:1.45rem;line-height:1.3;margin:.2rem 0 .6rem}\n"
    "h2{font-size:1.15rem;margin:2rem 0 .6rem;border-bottom:1px solid var(--line);"
    "padding-bottom:.2rem}\n"
    ".kicker{color:var(--mute);font-size:.9rem;margin:0}\n"
    ".lines{margin:.4rem 0 0;padding-left:1.1rem}.lines li{margin:.15rem 0}\n"
    ".gate{border-left:6px solid var(--warn);background:#fdf6e7;padding:.6rem .9rem;"
    "margin:1rem 0}\n"
    ".gate.passed{border-color:var(--pass);background:#edf7ef}\n"
    ".gate.failed{border-color:var(--fail);background:#fbeceb}\n"
    ".gate h2{border:0;margin:0 0 .3rem;padding:0}\n"
    ".gate p{margin:.2rem 0}\n"
    "figure{margin:1rem 0 1.6rem}\n"
    ".scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}\n"
    "figure svg{display:block;width:100%;height:auto;min-width:40rem}\n"
    "figcaption{color:var(--mute);font-size:.88rem;margin-top:.3rem}\n"
    "details{border:1px solid var(--line);border-radius:6px;margin:.5rem 0;padding:.3rem .7rem}\n"
    "summary{cursor:pointer;font-weight:600;padding:.2rem 0}\n"
    "table{border-collapse:collapse;font-size:.9rem;margin:.5rem 0}\n"
    "th,td{padding:.25rem .6rem;border-bottom:1px solid var(--line);text-align:right;"
    "white-space:nowrap;overflow-wrap:normal}\n"
    "th:first-child,td:first-child{text-align:left}\n"
    "th{font-weight:600;background:#f6f6f6}\n"
    "tr.best td{font-weight:600}\n"
    "td.w{white-space:normal;overflow-wrap:anywhere;text-align:left;min-width:12rem}\n"
    ".note{color:var(--mute);font-size:.9rem}\n"
    "dl{display:grid;grid-template-columns:minmax(8rem,max-content) 1fr;gap:.2rem 1rem;"
    "margin:0}\n"
    "dt{color:var(--mute)}dd{margin:0}\n"
    "code{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:.88em}\n"
    "footer{margin-top:2.5rem;color:var(--mute);font-size:.9rem}\n"
    "@media (max-width:40rem){body{font-size:15px}h1{font-size:1.2rem}"
    "dl{grid-template-columns:1fr}dd{margin-bottom:.4rem}}\n";

static const char *command_name(const rb_bundle *b)
{
    /* "routebench choose --openapi ..." -> "choose" */
    static const char *const names[] = {"choose", "pair", "run", "http"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t n = strlen(names[i]);
        if (strncmp(b->command, "routebench ", 11) == 0 &&
            strncmp(b->command + 11, names[i], n) == 0)
            return names[i];
    }
    return "run";
}

static void head(const rb_bundle *b, rb_buf *o, const char *headline)
{
    rb_buf_puts(o, "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                   "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                   "style-src 'unsafe-inline'; img-src data:\">\n");
    rb_buf_printf(o, "<title>routebench %s: ", command_name(b));
    esc(o, headline);
    rb_buf_printf(o, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n", style);
}

/* The answer first: the bundle's headline, then one line per table. */
static void answer(const rb_bundle *b, rb_buf *o, const char *headline)
{
    char kicker[RB_BUNDLE_TEXT * 2];
    snprintf(kicker, sizeof kicker,
             "routebench %s, %s, on %s (%ld cores): in-process lookups, not HTTP requests per "
             "second",
             command_name(b), b->date, b->cpu_model, b->cores);
    rb_buf_puts(o, "<header>\n");
    elem(o, "p", "class=\"kicker\"", kicker);
    /* the terminal's "Overall: " label is not part of the sentence */
    elem(o, "h1", NULL, strncmp(headline, "Overall: ", 9) == 0 ? headline + 9 : headline);
    size_t shown = 0;
    for (size_t i = 0; i < b->nscenarios; i++) {
        char line[RB_HEADLINE_TEXT];
        rb_headline_scenario(b, i, line, sizeof line);
        if (!*line || strcmp(line, headline) == 0) continue;
        if (!shown++) rb_buf_puts(o, "<ul class=\"lines\">\n");
        elem(o, "li", NULL, line);
    }
    if (shown) rb_buf_puts(o, "</ul>\n");
    if (!b->optimized || b->sanitized)
        elem(o, "p", "class=\"note\"",
             b->sanitized ? "A sanitized build: these numbers do not show what the routers can do."
                          : "An unoptimised build: these numbers do not show what the routers "
                            "can do.");
    rb_buf_puts(o, "</header>\n");
}

static void gate(const rb_bundle *b, rb_buf *o)
{
    if (!b->gate.on) return;
    const char *word;
    char line[RB_HEADLINE_TEXT];
    rb_headline_gate(b, line, sizeof line, &word);
    rb_buf_printf(o, "<section class=\"gate %s\">\n",
                  b->gate.outcome == RB_GATE_PASSED   ? "passed"
                  : b->gate.outcome == RB_GATE_FAILED ? "failed"
                                                      : "inconclusive");
    char h[96];
    snprintf(h, sizeof h, "Gate: %s (exit status %d)", word, rb_gate_exit_status(b->gate.outcome));
    elem(o, "h2", NULL, h);
    /* the headline already said the ratio; the message says why */
    elem(o, "p", NULL, b->gate.message);
    rb_buf_puts(o, "</section>\n");
}

static int charts(const rb_bundle *b, rb_buf *o, rb_error *err)
{
    bool any = false;
    for (int c = 0; c < RB_NCHARTS; c++) {
        if (!rb_bundle_chart_has_data(b, (rb_bundle_chart)c)) continue;
        if (!any) rb_buf_puts(o, "<section id=\"charts\">\n<h2>Charts</h2>\n");
        any = true;
        rb_buf_puts(o, "<figure>\n<div class=\"scroll\">\n");
        rb_buf svg = {0};
        int rc = rb_bundle_chart_render(b, (rb_bundle_chart)c, &svg, err);
        if (rc == RB_OK) rb_buf_append(o, svg.data, svg.len);
        rb_buf_free(&svg);
        if (rc < 0) return rc;
        rb_buf_puts(o, "</div>\n<figcaption>");
        esc(o, rb_bundle_chart_alt((rb_bundle_chart)c));
        rb_buf_printf(o, " (<a href=\"%s\">%s</a>)</figcaption>\n</figure>\n",
                      rb_bundle_chart_file((rb_bundle_chart)c),
                      rb_bundle_chart_file((rb_bundle_chart)c));
    }
    if (any) rb_buf_puts(o, "</section>\n");
    return RB_OK;
}

/* The speed cell of result r against the scenario's first result. */
static void speed_cell(const rb_bundle *b, const rb_bundle_scenario *s, size_t i, char *buf,
                       size_t cap)
{
    const rb_bundle_pair *p =
        i ? rb_bundle_find_pair(s, s->results[0].router, s->results[i].router) : NULL;
    if (!p) {
        snprintf(buf, cap, i ? "-" : "1 (baseline)");
        return;
    }
    rb_headline_ratio(b, &p->r, buf, cap);
    if (!rb_metric_exact(b->metric) && !p->r.too_few) {
        size_t n = strlen(buf);
        snprintf(buf + n, cap - n, "%s %zu/%zu", p->r.excludes_one ? "" : " ~", p->r.wins, p->r.n);
    }
}

/* One condition's cells of router `name` in scenario s: value, speed. */
static void condition_cells(const rb_bundle *b, const rb_bundle_scenario *s, const char *name,
                            rb_buf *o)
{
    size_t i = rb_bundle_result_index(s, name);
    if (i == SIZE_MAX) {
        rb_buf_puts(o, "<td>-</td><td>-</td>");
        return;
    }
    char v[32], cell[128];
    rb_bundle_fmt_value(b, s->results[i].median_ns, v, sizeof v);
    speed_cell(b, s, i, cell, sizeof cell);
    rb_buf_printf(o, "<td>%s</td><td>", v);
    esc(o, cell);
    rb_buf_puts(o, "</td>");
}

/* A scenario's table; with a second condition (cold) side by side. */
static void table(const rb_bundle *b, const rb_bundle_scenario *s, const rb_bundle_scenario *cold,
                  const char *fastest, rb_buf *o)
{
    const char *unit = rb_metric_unit(b->metric);
    const char *anchor = s->results[0].router;
    rb_buf_puts(o, "<div class=\"scroll\"><table>\n<tr><th>router</th>");
    if (cold)
        rb_buf_printf(o,
                      "<th>warm %s/lookup</th><th>warm speed vs %s</th><th>cold %s/lookup</th>"
                      "<th>cold speed vs %s</th>",
                      unit, anchor, unit, cold->nresults ? cold->results[0].router : anchor);
    else
        rb_buf_printf(o, "<th>%s/lookup</th><th>speed vs %s%s</th>", unit, anchor,
                      rb_metric_exact(b->metric) ? " (counted)" : " [95% interval] wins");
    rb_buf_puts(o, "<th>bytes/route</th><th>build</th></tr>\n");
    size_t idx[256];
    size_t n = rb_bundle_fastest_first(b, s, idx, 256);
    rb_verdict_auto_under_pick(s, idx, n);
    for (size_t j = 0; j < n; j++) {
        const rb_bundle_result *r = &s->results[idx[j]];
        char name[RB_BUNDLE_NAME + 16], build[32], bpr[32] = "-";
        rb_bundle_label(b, r->router, false, name, sizeof name);
        if (strcmp(r->router, "auto") == 0 && *s->auto_choice) /* what it is: its pick */
            snprintf(name, sizeof name, "auto (%s)", s->auto_choice);
        rb_format_duration((double)r->build_ns, build, sizeof build);
        if (!r->peer_process || r->memory_bytes)
            snprintf(bpr, sizeof bpr, "%.1f", r->bytes_per_route);
        rb_buf_printf(o, "<tr%s><td>", strcmp(r->router, fastest) == 0 ? " class=\"best\"" : "");
        esc(o, name);
        rb_buf_puts(o, "</td>");
        condition_cells(b, s, r->router, o);
        if (cold) condition_cells(b, cold, r->router, o);
        rb_buf_printf(o, "<td>%s</td><td>%s</td></tr>\n", bpr, build);
    }
    rb_buf_puts(o, "</table></div>\n");
}

static void scenario_facts(const rb_bundle_scenario *s, rb_buf *o)
{
    char f[64], facts[RB_BUNDLE_TEXT * 3];
    rb_features_join(s->features, ", ", "static routes only", 0, f, sizeof f);
    if (strcmp(s->kind, "generated") == 0)
        snprintf(facts, sizeof facts,
                 "%zu routes (%s), %zu requests; generated, shape %s, seed %llu, generator %s; "
                 "fingerprints %016llx %016llx.",
                 s->routes, f, s->requests, s->shape, (unsigned long long)s->seed, s->generator,
                 (unsigned long long)s->routes_fp, (unsigned long long)s->requests_fp);
    else
        snprintf(facts, sizeof facts,
                 "%zu routes (%s) from %s, %zu requests from %s; fingerprints %016llx %016llx.",
                 s->routes, f, s->routes_source, s->requests, s->requests_source,
                 (unsigned long long)s->routes_fp, (unsigned long long)s->requests_fp);
    elem(o, "p", "class=\"note\"", facts);
}

static void scenarios(const rb_bundle *b, rb_buf *o)
{
    if (!b->nscenarios) return;
    rb_buf_puts(o, "<section id=\"scenarios\">\n<h2>Per scenario</h2>\n");
    for (size_t i = 0; i < b->nscenarios; i++) {
        if (rb_bundle_is_condition(b, i)) continue;
        const rb_bundle_scenario *s = &b->scenarios[i];
        size_t ci = rb_verdict_cold_twin(b, i);
        const rb_bundle_scenario *cold = ci == SIZE_MAX ? NULL : &b->scenarios[ci];
        char line[RB_HEADLINE_TEXT];
        rb_headline_scenario(b, i, line, sizeof line);
        rb_buf_puts(o, "<details>\n");
        elem(o, "summary", NULL, line);
        rb_verdict v;
        rb_verdict_scenario(b, i, &v);
        if (s->nresults) table(b, s, cold, v.fastest, o);
        elem(o, "p", NULL, v.text);
        if (cold && rb_verdict_scenario(b, ci, &v) == 0) elem(o, "p", NULL, v.text);
        scenario_facts(s, o);
        rb_buf_puts(o, "</details>\n");
    }
    rb_buf_puts(o, "</section>\n");
}

/* The peers' verdict per language (ecosystem.h), under the answer. */
static void ecosystems(const rb_bundle *b, rb_buf *o)
{
    bool any = false;
    for (size_t i = 0; i < b->nscenarios; i++) {
        rb_ecosystem e[RB_ECOSYSTEM_LANGS];
        size_t n = rb_ecosystems(b, i, e, RB_ECOSYSTEM_LANGS);
        if (!n) continue;
        if (!any) {
            rb_buf_puts(o, "<section id=\"languages\">\n<h2>Per language</h2>\n");
            elem(o, "p", "class=\"note\"", rb_ecosystem_heading);
        }
        any = true;
        if (rb_headline_tables(b) > 1) elem(o, "h3", NULL, b->scenarios[i].name);
        rb_buf_puts(o, "<ul class=\"lines\">\n");
        for (size_t k = 0; k < n; k++) elem(o, "li", NULL, e[k].line);
        rb_buf_puts(o, "</ul>\n");
    }
    if (any) rb_buf_puts(o, "</section>\n");
}

/* Every router's compatibility with each table, whole (ecosystem.h). */
static void compatibility(const rb_bundle *b, rb_buf *o)
{
    bool any = false;
    for (size_t si = 0; si < b->nscenarios; si++) {
        if (rb_bundle_is_condition(b, si)) continue;
        const rb_bundle_scenario *s = &b->scenarios[si];
        rb_compat_row rows[RB_ECOSYSTEM_LANGS * RB_ECOSYSTEM_RUNNERS];
        size_t n = rb_compat_rows(b, si, rows, sizeof rows / sizeof rows[0]);
        if (!rb_compat_worth(rows, n)) continue;
        if (!any)
            rb_buf_puts(o, "<section id=\"compatibility\">\n<h2>Compatibility with the table</h2>\n"
                           "<p class=\"note\">Every router's answers were checked against "
                           "EXPECTED and linear before any timing; a router that refuses a "
                           "route or answers a request otherwise is never ranked.</p>\n");
        any = true;
        if (rb_headline_tables(b) > 1) elem(o, "h3", NULL, s->name);
        rb_buf_puts(o, "<div class=\"scroll\"><table class=\"compat\">\n<tr><th>router</th>"
                       "<th>language</th><th>routes</th><th>first refusal</th><th>answers</th>"
                       "<th>first differing requests</th></tr>\n");
        for (size_t i = 0; i < n; i++) {
            const rb_compat_row *r = &rows[i];
            char routes[96], answers[128], lang[48];
            rb_compat_routes_text(b, si, r, routes, sizeof routes);
            rb_compat_answers_text(b, si, r, answers, sizeof answers);
            snprintf(lang, sizeof lang, "%s%s", r->language,
                     r->peer ? (r->in_process ? ", in process" : ", own process") : "");
            rb_buf_puts(o, "<tr><td>");
            esc(o, r->router);
            rb_buf_puts(o, "</td><td>");
            esc(o, lang);
            rb_buf_puts(o, "</td><td>");
            esc(o, routes);
            rb_buf_puts(o, "</td><td class=\"w\">");
            esc(o, *r->reason ? r->reason : "-");
            rb_buf_puts(o, "</td><td class=\"w\">");
            esc(o, answers);
            rb_buf_puts(o, "</td><td class=\"w\">");
            const rb_bundle_result *x = r->result == SIZE_MAX ? NULL : &s->results[r->result];
            if (!x || !x->ndiffers) rb_buf_puts(o, "-");
            for (size_t k = 0; x && k < x->ndiffers; k++) {
                const rb_bundle_differ *d = &x->differs[k];
                rb_buf_puts(o, k ? "<br>" : "");
                rb_buf_puts(o, "<code>");
                esc(o, d->method);
                rb_buf_puts(o, " ");
                esc(o, d->path);
                rb_buf_puts(o, "</code>: ");
                esc(o, d->expected);
                rb_buf_puts(o, ", got ");
                esc(o, d->got);
            }
            rb_buf_puts(o, "</td></tr>\n");
        }
        rb_buf_puts(o, "</table></div>\n");
    }
    if (any) rb_buf_puts(o, "</section>\n");
}

static void method(const rb_bundle *b, rb_buf *o)
{
    char text[1600];
    rb_buf_puts(o, "<section id=\"method\">\n<h2>How it was measured</h2>\n");
    if (rb_metric_exact(b->metric))
        snprintf(text, sizeof text,
                 "Callgrind counted the %s of one replay of each request table per router "
                 "(after one uncounted replay), with a fixed hash seed. A count is exact: the "
                 "same build counts the same on any run, so a ratio needs no interval.",
                 rb_metric_unit(b->metric));
    else
        snprintf(text, sizeof text,
                 "Each router replays the request table in trials of at least %g ms (%s), %u "
                 "measured rounds after %u warm-up, every router once per round in a balanced, "
                 "shuffled order, so trial t of two routers forms a pair. A speed ratio is the "
                 "median over the pairs, with its %.0f%% sign-test interval; a ratio whose "
                 "interval includes 1 shows no real difference. Every answer was checked "
                 "against linear, the reference, before anything was timed.",
                 b->min_trial_ms, b->cpu_clock ? "thread CPU time" : "elapsed time", b->trials,
                 b->warmup, b->bootstrap.level * 100);
    elem(o, "p", NULL, text);
    rb_buf_puts(o, "</section>\n");
}

static void fact(rb_buf *o, const char *name, const char *value)
{
    elem(o, "dt", NULL, name);
    elem(o, "dd", NULL, value);
}

static void environment(const rb_bundle *b, rb_buf *o)
{
    char v[RB_BUNDLE_TEXT * 3];
    rb_buf_puts(o, "<section id=\"machine\">\n<h2>On what</h2>\n<dl>\n");
    snprintf(v, sizeof v, "%s, %ld logical cores%s", b->cpu_model, b->cores,
             b->pinned_cpu >= 0 ? ", pinned" : "");
    fact(o, "CPU", v);
    if (b->loadavg_start >= 0) {
        snprintf(v, sizeof v, "%.2f at the start, %.2f at the end", b->loadavg_start,
                 b->loadavg_end);
        fact(o, "load average", v);
    }
    fact(o, "kernel", b->kernel);
    snprintf(v, sizeof v, "routebench %s, commit %s; %s; %s%s%s", b->version, b->commit,
             b->compiler, b->build_type, b->optimized ? ", optimised" : ", NOT optimised",
             b->sanitized ? ", sanitizers on" : "");
    fact(o, "tool", v);
    fact(o, "date (UTC)", b->date);
    if (b->duration_s >= 0) {
        snprintf(v, sizeof v, "%.0f s", b->duration_s);
        fact(o, "duration", v);
    }
    fact(o, "command", b->command);
    rb_buf_puts(o, "</dl>\n</section>\n");
}

static void limits(const rb_bundle *b, rb_buf *o)
{
    rb_buf_puts(o, "<section id=\"limits\">\n<h2>What these numbers do not establish</h2>\n<ul>\n");
    for (size_t i = 0; i < b->nwarnings; i++) elem(o, "li", NULL, b->warnings[i]);
    for (size_t i = 0; i < b->nlimitations; i++) elem(o, "li", NULL, b->limitations[i]);
    rb_buf_puts(o, "</ul>\n</section>\n");
}

static void footer(rb_buf *o)
{
    rb_buf_puts(o, "<footer>\n<p>The data: <a href=\"summary.json\">summary.json</a> (every "
                   "statistic) and <a href=\"trials.csv\">trials.csv</a> (every trial), from "
                   "which <code>routebench report DIR</code> renders this page, "
                   "<a href=\"report.md\">report.md</a> and the charts again.</p>\n</footer>\n"
                   "</main>\n</body>\n</html>\n");
}

int rb_bundle_report_html(const rb_bundle *b, rb_buf *o, rb_error *err)
{
    char headline[RB_HEADLINE_TEXT];
    rb_headline_bundle(b, headline, sizeof headline);
    if (!*headline) snprintf(headline, sizeof headline, "nothing was measured");
    head(b, o, headline);
    answer(b, o, headline);
    gate(b, o);
    ecosystems(b, o);
    int rc = charts(b, o, err);
    if (rc < 0) return rc;
    scenarios(b, o);
    compatibility(b, o);
    method(b, o);
    environment(b, o);
    limits(b, o);
    footer(o);
    return o->failed ? rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory") : RB_OK;
}
