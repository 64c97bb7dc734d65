/*
 * headline.c — the verdict in one line (headline.h).
 */
#include "headline.h"
#include "format.h"

#include "verdict.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void rb_headline_ratio(const rb_bundle *b, const rb_paired_result *p, char *buf, size_t cap)
{
    if (rb_metric_exact(b->metric)) {
        char m[32], within[40];
        rb_format_exact_ratio(p->median, m, sizeof m);
        rb_gate_fmt_spread(p->mde, within, sizeof within);
        snprintf(buf, cap, "%sx (%s)", m, within);
        return;
    }
    rb_format_speed(p->median, p->lo, p->hi, p->too_few, false, buf, cap);
}

/* "30 B/route", "4.2 B/route" */
static void per_route(double bytes, char *buf, size_t cap)
{
    snprintf(buf, cap, "%.*f B/route", bytes < 10 ? 1 : 0, bytes);
}

/* The part after "NAME: " of a scenario's line; with_small adds the
 * smallest router. */
static void scenario_claim(const rb_bundle *b, const rb_verdict *v, bool with_small, char *buf,
                           size_t cap)
{
    char faster[48] = "faster than"; /* a counted metric says what it counted */
    if (b->metric != RB_METRIC_TIME)
        snprintf(faster, sizeof faster, "fewer %s than", rb_metric_unit(b->metric));
    char cell[96], small[160] = "";
    if (!*v->fastest) {
        snprintf(buf, cap, "no router could be ranked");
        return;
    }
    if (with_small) {
        char bpr[32];
        per_route(v->smallest_bytes_per_route, bpr, sizeof bpr);
        if (strcmp(v->smallest, v->fastest) == 0)
            snprintf(small, sizeof small, "; also the smallest, %s", bpr);
        else
            snprintf(small, sizeof small, "; smallest %s, %s", v->smallest, bpr);
    }
    if (!*v->runner_up) {
        snprintf(buf, cap, "%s, the only router ranked%s", v->fastest, small);
    } else if (v->ntop > 1) {
        char top[RB_BUNDLE_TEXT + 8];
        snprintf(top, sizeof top, "%s", v->top);
        char *last = strrchr(top, ',');
        if (last) { /* "a, b, c" -> "a, b and c" */
            char tail[RB_BUNDLE_TEXT];
            snprintf(tail, sizeof tail, "%s", last + 1);
            snprintf(last, sizeof top - (size_t)(last - top), " and%s", tail);
        }
        snprintf(buf, cap, "no clear winner %s %s (within noise)%s",
                 v->ntop == 2 ? "between" : "among", top, small);
    } else {
        rb_headline_ratio(b, &v->lead, cell, sizeof cell);
        snprintf(buf, cap, "%s, %s %s %s%s%s", v->fastest, cell, faster, v->runner_up,
                 v->significant ? "" : " (not significant)", small);
    }
}

/* Columns of a UTF-8 string (bytes that do not continue a character). */
static size_t columns(const char *s)
{
    size_t n = 0;
    for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

void rb_headline_scenario(const rb_bundle *b, size_t si, char *buf, size_t cap)
{
    rb_verdict v;
    buf[0] = '\0';
    if (rb_verdict_scenario(b, si, &v) < 0) return;
    char claim[RB_HEADLINE_TEXT];
    scenario_claim(b, &v, true, claim, sizeof claim);
    snprintf(buf, cap, "%s: %s", b->scenarios[si].name, claim);
    if (columns(buf) > RB_HEADLINE_COLUMNS) {
        scenario_claim(b, &v, false, claim, sizeof claim);
        snprintf(buf, cap, "%s: %s", b->scenarios[si].name, claim);
    }
}

size_t rb_headline_tables(const rb_bundle *b)
{
    size_t n = 0;
    for (size_t i = 0; i < b->nscenarios; i++) n += !rb_bundle_is_condition(b, i);
    return n;
}

#define MAX_NAMES 64

typedef struct count {
    const char *router;
    size_t fastest, significant, smallest;
} count;

static count *count_of(count *v, size_t *n, const char *router)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(v[i].router, router) == 0) return &v[i];
    if (*n == MAX_NAMES) return NULL;
    v[*n] = (count){router, 0, 0, 0};
    return &v[(*n)++];
}

void rb_headline_overall(const rb_bundle *b, char *buf, size_t cap)
{
    buf[0] = '\0';
    size_t tables = rb_headline_tables(b);
    if (tables < 2) return;
    rb_verdict v[1];
    count counts[MAX_NAMES];
    size_t n = 0, judged = 0;
    /* the names point into the bundle, which outlives counts */
    for (size_t i = 0; i < b->nscenarios; i++) {
        if (rb_bundle_is_condition(b, i) || rb_verdict_scenario(b, i, v) < 0 || !*v->fastest)
            continue;
        judged++;
        size_t k = rb_bundle_result_index(&b->scenarios[i], v->fastest);
        count *c = count_of(counts, &n, b->scenarios[i].results[k].router);
        if (c) {
            c->fastest++;
            c->significant += v->significant && v->ntop == 1;
        }
        k = rb_bundle_result_index(&b->scenarios[i], v->smallest);
        c = count_of(counts, &n, b->scenarios[i].results[k].router);
        if (c) c->smallest++;
    }
    if (!judged) {
        snprintf(buf, cap, "Overall: no router could be ranked in any of %zu scenarios", tables);
        return;
    }
    const count *fast = NULL, *small = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!fast || counts[i].fastest > fast->fastest) fast = &counts[i];
        if (!small || counts[i].smallest > small->smallest) small = &counts[i];
    }
    char tail[160] = "";
    if (fast->fastest < judged) {
        const count *second = NULL;
        for (size_t i = 0; i < n; i++)
            if (&counts[i] != fast && counts[i].fastest &&
                (!second || counts[i].fastest > second->fastest))
                second = &counts[i];
        if (second) snprintf(tail, sizeof tail, ", %s in %zu", second->router, second->fastest);
    }
    snprintf(buf, cap,
             "Overall: %s fastest in %zu of %zu scenarios (significantly in %zu)%s; "
             "smallest %s in %zu",
             fast->router, fast->fastest, tables, fast->significant, tail, small->router,
             small->smallest);
    if (columns(buf) > RB_HEADLINE_COLUMNS) /* the compact form */
        snprintf(buf, cap,
                 "Overall: %s fastest in %zu of %zu (%zu significantly)%s; smallest %s in %zu",
                 fast->router, fast->fastest, tables, fast->significant, tail, small->router,
                 small->smallest);
}

void rb_headline_gate(const rb_bundle *b, char *buf, size_t cap, const char **word)
{
    const rb_bundle_gate *g = &b->gate;
    buf[0] = '\0';
    if (word) *word = "";
    if (!g->on) return;
    const char *w = g->outcome == RB_GATE_PASSED   ? "passed"
                    : g->outcome == RB_GATE_FAILED ? "FAILED"
                                                   : "inconclusive";
    if (word) *word = w;
    rb_paired_result p = {0};
    p.median = g->evidence.median;
    p.lo = g->evidence.lo;
    p.hi = g->evidence.hi;
    p.too_few = g->evidence.too_few;
    if (isfinite(g->evidence.mde)) p.mde = g->evidence.mde; /* a count's A/A spread */
    char cell[96];
    rb_headline_ratio(b, &p, cell, sizeof cell);
    snprintf(buf, cap, "gate --fail-below %g: %s: %s %s the speed of %s", g->threshold, w, g->b,
             cell, g->a);
}

void rb_headline_bundle(const rb_bundle *b, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (b->gate.on) {
        rb_headline_gate(b, buf, cap, NULL);
        return;
    }
    if (rb_headline_tables(b) > 1) {
        rb_headline_overall(b, buf, cap);
        return;
    }
    if (b->nscenarios) rb_headline_scenario(b, 0, buf, cap);
}
