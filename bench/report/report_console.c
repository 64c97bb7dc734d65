/*
 * report_console.c — the terminal's rendering of a bundle
 * (report_console.h).
 */
#include "report_console.h"

#include "ecosystem.h"
#include "headline.h"
#include "format.h"
#include "verdict.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void rb_console_ratio_cell(const rb_bundle *b, double median, double lo, double hi, double mde,
                           bool too_few, bool excludes_one, char *buf, size_t cap)
{
    char m[32], l[32], h[32], d[32];
    if (rb_metric_exact(b->metric)) { /* "exact", or "within ±0.3%" (a count's A/A spread) */
        rb_format_exact_ratio(median, m, sizeof m);
        rb_gate_fmt_spread(mde, d, sizeof d);
        snprintf(buf, cap, "%s %s", m, d);
        return;
    }
    rb_format_ratio(median, m, sizeof m);
    if (too_few) {
        snprintf(buf, cap, "%s (too few pairs)", m);
        return;
    }
    rb_format_interval(lo, hi, 3, l, h, sizeof l);
    rb_gate_fmt_mde(mde, false, d, sizeof d);
    snprintf(buf, cap, "%s%s [%s, %s] %s", m, excludes_one ? "" : "~", l, h, d);
}

/* ---- rows, fastest first ----------------------------------------------------------------- */

/* ---- the table ------------------------------------------------------------------------------ */

#define NAME_W 18

/* The name column: a name wider than NAME_W takes a line of its own and
 * its figures start the next, under the column, so that every figure
 * stays under its heading (a router's name is never shortened). */
static void name_cell(rb_buf *o, const char *name)
{
    if (strlen(name) > NAME_W)
        rb_buf_printf(o, "  %s\n  %-*s", name, NAME_W, "");
    else
        rb_buf_printf(o, "  %-*s", NAME_W, name);
}

/* Scenario s's speed cell for router `name` against its first result. */

/* A line of the report (blank lines and its indent first), wrapped before
 * RB_HEADLINE_COLUMNS (the width a terminal report keeps to), its next
 * lines indented by indent. */
static void wrapped(rb_buf *o, size_t indent, const char *fmt, ...) RB_PRINTF(3, 4);
static void wrapped(rb_buf *o, size_t indent, const char *fmt, ...)
{
    rb_buf line = {0};
    va_list ap;
    va_start(ap, fmt);
    rb_buf_vprintf(&line, fmt, ap);
    va_end(ap);
    if (line.failed) o->failed = 1;
    if (line.data) rb_buf_wrap(o, line.data, indent, 0, RB_HEADLINE_COLUMNS);
    rb_buf_free(&line);
}

static void speed_of(const rb_bundle *b, const rb_bundle_scenario *s, const char *name, bool brief,
                     char *buf, size_t cap, size_t *wins, size_t *n)
{
    *wins = *n = 0;
    if (strcmp(s->results[0].router, name) == 0) {
        snprintf(buf, cap, "baseline");
        return;
    }
    const rb_bundle_pair *p = rb_bundle_find_pair(s, s->results[0].router, name);
    if (!p) {
        snprintf(buf, cap, "-");
        return;
    }
    if (brief) { /* the conditions side by side: no MDE, "~" after a ratio within noise */
        char cell[96];
        rb_headline_ratio(b, &p->r, cell, sizeof cell);
        snprintf(buf, cap, "%s%s", cell,
                 p->r.excludes_one || (rb_metric_exact(b->metric) && !(p->r.mde > 0)) ? "" : " ~");
        return;
    }
    rb_console_ratio_cell(b, p->r.median, p->r.lo, p->r.hi, p->r.mde, p->r.too_few,
                          p->r.excludes_one, buf, cap);
    *wins = p->r.wins;
    *n = p->r.n;
}

static void header(const rb_bundle *b, const rb_bundle_scenario *s, const rb_bundle_scenario *cold,
                   rb_buf *o)
{
    const char *anchor = s->results[0].router;
    char speed[96];
    if (cold) {
        rb_buf_printf(o, "  %-*s %-33s %s\n", NAME_W, "", "warm caches, throughput",
                      "cold caches, latency");
        snprintf(speed, sizeof speed, "speed vs %s", anchor);
        rb_buf_printf(o, "  %-*s %10s %-22s %10s %-22s %8s %9s\n", NAME_W, "router",
                      rb_metric_exact(b->metric) ? "instr" : "ns/lookup", speed,
                      rb_metric_exact(b->metric) ? "instr" : "ns/lookup", speed, "B/route",
                      "build");
        return;
    }
    if (rb_metric_exact(b->metric)) {
        snprintf(speed, sizeof speed, "speed vs %s", anchor);
        rb_buf_printf(o, "  %-*s %12s %8s %9s  %s\n", NAME_W, "router",
                      b->metric == RB_METRIC_CYCLES_EST ? "cycles-est" : "instr/lookup", "B/route",
                      "build", speed);
        return;
    }
    snprintf(speed, sizeof speed, "speed vs %s [95%% CI] MDE", anchor);
    rb_buf_printf(o, "  %-*s %10s %8s %9s  %-36s %5s\n", NAME_W, "router",
                  b->metric == RB_METRIC_HW_INSTRUCTIONS ? "hw instr" : "ns/lookup", "B/route",
                  "build", speed, "wins");
}

static void row(const rb_bundle *b, const rb_bundle_scenario *s, const rb_bundle_scenario *cold,
                const rb_bundle_result *r, rb_buf *o)
{
    char name[RB_BUNDLE_NAME + 16], build[32], bpr[32] = "-", med[32], speed[128];
    size_t wins, n;
    rb_bundle_label(b, r->router, true, name, sizeof name);
    if (strcmp(r->router, "auto") == 0 && *s->auto_choice) /* what it is: the router it picked */
        snprintf(name, sizeof name, "auto (%s)", s->auto_choice);
    rb_format_duration((double)r->build_ns, build, sizeof build);
    /* a peer that reports no memory (find-my-way; a Go heap that shrank): "-", not 0 */
    if (!r->peer_process || r->memory_bytes) snprintf(bpr, sizeof bpr, "%.1f", r->bytes_per_route);
    rb_bundle_fmt_value(b, r->median_ns, med, sizeof med);
    speed_of(b, s, r->router, cold != NULL, speed, sizeof speed, &wins, &n);
    if (cold) {
        char cmed[32] = "-", cspeed[128] = "-";
        size_t k = rb_bundle_result_index(cold, r->router);
        if (k != SIZE_MAX) {
            rb_bundle_fmt_value(b, cold->results[k].median_ns, cmed, sizeof cmed);
            speed_of(b, cold, r->router, true, cspeed, sizeof cspeed, &wins, &n);
        }
        name_cell(o, name);
        rb_buf_printf(o, " %10s %-22s %10s %-22s %8s %9s\n", med, speed, cmed, cspeed, bpr, build);
        return;
    }
    if (rb_metric_exact(b->metric)) {
        name_cell(o, name);
        rb_buf_printf(o, " %12s %8s %9s  %s\n", med, bpr, build, speed);
        return;
    }
    if (!n) { /* the baseline: no pairs, no trailing blanks */
        name_cell(o, name);
        rb_buf_printf(o, " %10s %8s %9s  %s\n", med, bpr, build, speed);
        return;
    }
    char w[32];
    snprintf(w, sizeof w, "%zu/%zu", wins, n);
    name_cell(o, name);
    rb_buf_printf(o, " %10s %8s %9s  %-36s %5s\n", med, bpr, build, speed, w);
}

/* ---- the details under a table -------------------------------------------------------------- */

/* auto's pick as the verdict says it (verdict.h), whatever the condition. */
static void auto_line(const rb_bundle *b, const rb_verdict *v, rb_buf *o)
{
    char line[RB_VERDICT_TEXT];
    rb_verdict_auto_line(b, v, line, sizeof line);
    if (*line) wrapped(o, 4, "  %s", line);
}

/* head, then the items of list ("a 1.2x, b 3.4x"), a line broken only
 * between items, before RB_HEADLINE_COLUMNS; the next lines indented by 4. */
static void list_line(rb_buf *o, const char *head, const char *list)
{
    rb_buf_puts(o, head);
    size_t col = strlen(head);
    for (const char *p = list; *p;) {
        const char *end = strstr(p, ", ");
        size_t n = end ? (size_t)(end - p) + 1 : strlen(p); /* with its comma */
        if (col + 1 + n > RB_HEADLINE_COLUMNS) {
            rb_buf_puts(o, "\n   ");
            col = 3;
        }
        rb_buf_puts(o, " ");
        rb_buf_append(o, p, n);
        col += 1 + n;
        p += n + (end ? 1 : 0);
    }
    rb_buf_puts(o, "\n");
}

/* The peers' verdict per language (ecosystem.h), one line each. */
static void ecosystems(const rb_bundle *b, size_t si, rb_buf *o)
{
    rb_ecosystem e[RB_ECOSYSTEM_LANGS];
    size_t n = rb_ecosystems(b, si, e, RB_ECOSYSTEM_LANGS);
    if (!n) return;
    wrapped(o, 4, "  %s:", rb_ecosystem_heading);
    for (size_t k = 0; k < n; k++) wrapped(o, 6, "    %s", e[k].line);
}

/* Under the table of scenario si; a second condition (cond: "cold: ")
 * adds only what differs: auto's pick. */
static void details(const rb_bundle *b, size_t si, const char *cond, const rb_console_opts *opts,
                    rb_buf *o)
{
    const rb_bundle_scenario *s = &b->scenarios[si];
    rb_verdict v;
    if (rb_verdict_scenario(b, si, &v) < 0) return;
    if (*cond) {
        auto_line(b, &v, o);
        if (opts->verbose) wrapped(o, 4, "  %s", v.text);
        return;
    }
    if (*s->skipped) rb_buf_printf(o, "  not run (a route feature they lack): %s\n", s->skipped);
    for (size_t i = 0; i < s->nrefused; i++)
        wrapped(o, 4, "  %s refused it: %s", s->refused[i].router, s->refused[i].reason);
    for (size_t i = 0; i < s->nresults; i++) {
        const rb_bundle_result *r = &s->results[i];
        if (!r->disagreements) continue;
        char name[RB_BUNDLE_NAME + 16];
        rb_bundle_label(b, r->router, true, name, sizeof name);
        char first[512] = "";
        if (r->ndiffers)
            snprintf(first, sizeof first, "; first: %s %s expected %s, got %s",
                     r->differs[0].method, r->differs[0].path, r->differs[0].expected,
                     r->differs[0].got);
        wrapped(o, 4, "  ** %s disagreed with EXPECTED or linear on %llu of %zu requests%s%s **",
                name, (unsigned long long)r->disagreements, s->requests,
                rb_bundle_is_aside(b, r) ? " (a peer: not held to our semantics)" : "", first);
    }
    ecosystems(b, si, o);
    auto_line(b, &v, o);
    if (*v.fastest) {
        char build[32];
        rb_format_duration((double)v.fastest_build_ns, build, sizeof build);
        rb_buf_printf(o, "  fastest to build: %s, %s\n", v.fastest_build, build);
    }
    char limit[RB_BUNDLE_TEXT];
    rb_bundle_limit_text(b, s, limit, sizeof limit);
    if (*limit) list_line(o, "  x the limit (an exact match of the requested paths):", limit);
    if (!opts->verbose) return;
    char parse[32];
    rb_format_duration((double)s->parse_ns, parse, sizeof parse);
    rb_buf_printf(o, "  %zu routes, %zu requests, fingerprints %016llx %016llx; parsed in %s\n",
                  s->routes, s->requests, (unsigned long long)s->routes_fp,
                  (unsigned long long)s->requests_fp, parse);
    for (size_t i = 0; i < s->nresults; i++)
        rb_buf_printf(o, "  checksum %016llx %s\n", (unsigned long long)s->results[i].checksum,
                      s->results[i].router);
    wrapped(o, 4, "  %s", v.text);
}

/* Columns of a UTF-8 string (bytes that do not continue a character). */
static size_t columns_of(const char *s)
{
    size_t n = 0;
    for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* A scenario's line, wrapped between words; a long file name as the
 * scenario's name (before its first ": ") is shortened to its last path
 * component first: the terminal may shorten a file name, never a router's. */
static void headline(rb_buf *o, const char *before, const char *line)
{
    const char *colon = strstr(line, ": ");
    const char *name_end = colon ? colon : line;
    const char *slash = NULL;
    for (const char *p = line; p < name_end; p++)
        if (*p == '/') slash = p;
    if (slash && columns_of(line) > RB_HEADLINE_COLUMNS) line = slash + 1;
    wrapped(o, 2, "%s%s", before, line);
}

void rb_console_scenario(const rb_bundle *b, size_t si, const rb_console_opts *opts, rb_buf *o)
{
    if (si >= b->nscenarios) return;
    const rb_bundle_scenario *s = &b->scenarios[si], *cold = NULL;
    size_t first = si;
    if (rb_bundle_is_condition(b, si)) {
        /* the table's first condition, this one beside it */
        for (size_t i = 0; i < si; i++)
            if (rb_bundle_same_tables(&b->scenarios[i], s)) {
                first = i;
                break;
            }
        cold = s;
        s = &b->scenarios[first];
    }
    char line[RB_HEADLINE_TEXT];
    rb_headline_scenario(b, first, line, sizeof line);
    headline(o, "\n", line);
    if (cold) {
        rb_headline_scenario(b, si, line, sizeof line);
        headline(o, "", line);
    }
    if (!s->nresults) {
        details(b, first, "", opts, o);
        return;
    }
    header(b, s, cold, o);
    size_t idx[256];
    size_t n = rb_bundle_fastest_first(b, s, idx, 256);
    rb_verdict_auto_under_pick(s, idx, n);
    for (size_t i = 0; i < n; i++) row(b, s, cold, &s->results[idx[i]], o);
    details(b, first, "", opts, o);
    if (cold) details(b, si, "cold: ", opts, o);
}

void rb_console_summary(const rb_bundle *b, const rb_console_opts *opts, rb_buf *o)
{
    (void)opts;
    if (rb_headline_tables(b) > 1 && b->ngeomeans) {
        rb_buf_printf(o, "\nspeed vs %s, geometric mean over the scenarios (above 1: faster)\n",
                      b->baseline);
        for (size_t i = 0; i < b->ngeomeans; i++) {
            const rb_bundle_geomean *g = &b->geomeans[i];
            char name[RB_BUNDLE_NAME + 16], cell[128];
            rb_bundle_label(b, g->router, true, name, sizeof name);
            rb_console_ratio_cell(b, g->g.geomean, g->g.lo, g->g.hi, g->g.mde, g->g.too_few,
                                  g->g.excludes_one, cell, sizeof cell);
            name_cell(o, name);
            rb_buf_printf(o, " %-36s over %zu\n", cell, g->g.scenarios);
        }
    }
    char line[RB_HEADLINE_TEXT];
    rb_headline_overall(b, line, sizeof line);
    if (*line) headline(o, "\n", line);
    for (size_t i = 0; i < b->nwarnings; i++) {
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++) seen = strcmp(b->warnings[k], b->warnings[i]) == 0;
        if (!seen) wrapped(o, 9, "%swarning: %s", i ? "" : "\n", b->warnings[i]);
    }
}
