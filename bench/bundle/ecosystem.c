/*
 * ecosystem.c — the verdict for the users of each language, and every
 * router's compatibility with the table (ecosystem.h).
 */
#include "ecosystem.h"

#include "feature_names.h"
#include "format.h"
#include "verdict.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char rb_ecosystem_heading[] =
    "Per language: the peer runners of each language ranked among themselves only (each runs in "
    "its own process with the same protocol; never ranked against ours, which run in process)";

/* ---- compatibility ------------------------------------------------------------- */

static bool is_peer(const rb_bundle *b, const char *router, bool peer_process)
{
    const rb_bundle_router *info = rb_bundle_router_info(b, router);
    return peer_process || (info && info->peer);
}

void rb_ecosystem_language_of(const char *summary, char *buf, size_t cap)
{
    static const char lead[] = "peer process: ";
    snprintf(buf, cap, "C");
    if (strncmp(summary, lead, sizeof lead - 1) != 0) return;
    const char *w = summary + sizeof lead - 1;
    size_t n = strcspn(w, " ,;:");
    /* a runner of one's own (--peer NAME=CMD) says its command, not a
     * language: "other" */
    bool word = n > 0;
    for (size_t i = 0; i < n; i++) word = word && (isalnum((unsigned char)w[i]) || w[i] == '#');
    snprintf(buf, cap, "%.*s", word ? (int)n : 5, word ? w : "other");
}

void rb_ecosystem_language(const rb_bundle *b, const char *router, char *buf, size_t cap)
{
    const rb_bundle_router *info = rb_bundle_router_info(b, router);
    rb_ecosystem_language_of(info ? info->summary : "", buf, cap);
}

bool rb_ecosystem_language_in(const char *language, const char *list)
{
    size_t n = strlen(language);
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && strncasecmp(p, language, n) == 0) return true;
        p += len + (p[len] ? 1 : 0);
    }
    return false;
}

/* "refuses 80 routes (first: ...)": 80; 0 when the reason says no count. */
static size_t refused_count(const char *reason)
{
    static const char lead[] = "refuses ";
    if (strncmp(reason, lead, sizeof lead - 1) != 0) return 0;
    char *end;
    unsigned long long n = strtoull(reason + sizeof lead - 1, &end, 10);
    return strncmp(end, " route", 6) == 0 ? (size_t)n : 0;
}

/* A reference row (linear, a nop runner: the loop's own cost) is no
 * router to choose: it has no row and no rank. */
static bool is_reference(const rb_bundle *b, const char *router)
{
    const rb_bundle_router *info = rb_bundle_router_info(b, router);
    return info && info->reference;
}

static void row_common(const rb_bundle *b, rb_compat_row *r, const char *router, bool process)
{
    memset(r, 0, sizeof *r);
    r->router = router;
    r->peer = is_peer(b, router, process);
    r->in_process = !process;
    r->result = SIZE_MAX;
    r->reason = "";
    rb_ecosystem_language(b, router, r->language, sizeof r->language);
}

size_t rb_compat_rows(const rb_bundle *b, size_t si, rb_compat_row *rows, size_t cap)
{
    if (si >= b->nscenarios) return 0;
    const rb_bundle_scenario *s = &b->scenarios[si];
    size_t n = 0;
    for (size_t i = 0; i < s->nresults && n < cap; i++) {
        const rb_bundle_result *x = &s->results[i];
        if (rb_bundle_is_limit(x) || is_reference(b, x->router)) continue;
        rb_compat_row *r = &rows[n++];
        row_common(b, r, x->router, x->peer_process);
        r->state = RB_COMPAT_ACCEPTED;
        r->result = i;
        r->wrong = x->disagreements;
        r->wrong_linear = x->disagree_linear;
    }
    for (const char *p = s->skipped; *p && n < cap;) {
        size_t len = strcspn(p, ",");
        /* the name points into the bundle: find it among the routers */
        const char *name = NULL;
        for (size_t k = 0; k < b->nrouters && !name; k++)
            if (strlen(b->routers[k].name) == len && strncmp(b->routers[k].name, p, len) == 0)
                name = b->routers[k].name;
        if (name) {
            rb_compat_row *r = &rows[n++];
            row_common(b, r, name, false);
            r->state = RB_COMPAT_SKIPPED;
        }
        p += len + (p[len] ? 1 : 0);
    }
    for (size_t i = 0; i < s->nrefused && n < cap; i++) {
        const rb_bundle_refusal *f = &s->refused[i];
        rb_compat_row *r = &rows[n++];
        const rb_bundle_router *info = rb_bundle_router_info(b, f->router);
        row_common(b, r, f->router, info && strncmp(info->summary, "peer process", 12) == 0);
        r->reason = f->reason;
        r->refused_routes = refused_count(f->reason);
        r->state = r->refused_routes ? RB_COMPAT_REFUSED : RB_COMPAT_FAILED;
    }
    return n;
}

bool rb_compat_worth(const rb_compat_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (rows[i].peer || rows[i].state != RB_COMPAT_ACCEPTED || rows[i].wrong ||
            rows[i].wrong_linear)
            return true;
    return false;
}

void rb_compat_routes_text(const rb_bundle *b, size_t si, const rb_compat_row *row, char *buf,
                           size_t cap)
{
    size_t routes = si < b->nscenarios ? b->scenarios[si].routes : 0;
    switch (row->state) {
    case RB_COMPAT_ACCEPTED:
        snprintf(buf, cap, "accepts all %zu routes", routes);
        break;
    case RB_COMPAT_REFUSED:
        snprintf(buf, cap, "refuses %zu of %zu routes", row->refused_routes, routes);
        break;
    case RB_COMPAT_SKIPPED: {
        char lack[64] = "a feature";
        const rb_bundle_router *info = rb_bundle_router_info(b, row->router);
        if (info && si < b->nscenarios)
            rb_features_join(b->scenarios[si].features & ~info->features, ", ", "a feature", 1,
                             lack, sizeof lack);
        snprintf(buf, cap, "not run: lacks %s", lack);
        break;
    }
    default:
        snprintf(buf, cap, "could not be measured");
        break;
    }
}

void rb_compat_answers_text(const rb_bundle *b, size_t si, const rb_compat_row *row, char *buf,
                            size_t cap)
{
    size_t requests = si < b->nscenarios ? b->scenarios[si].requests : 0;
    if (row->state != RB_COMPAT_ACCEPTED)
        snprintf(buf, cap, "-");
    else if (row->wrong)
        snprintf(buf, cap, "%llu of %zu requests differ from EXPECTED",
                 (unsigned long long)row->wrong, requests);
    else if (row->wrong_linear)
        snprintf(buf, cap, "%llu of %zu requests differ from linear (captures)",
                 (unsigned long long)row->wrong_linear, requests);
    else
        snprintf(buf, cap, "agrees on all %zu requests", requests);
}

/* ---- the ranking of one language -------------------------------------------------- */

static const rb_bundle_result *result_of(const rb_bundle_scenario *s, const rb_compat_row *r)
{
    return r->result == SIZE_MAX ? NULL : &s->results[r->result];
}

static bool rankable(const rb_bundle_scenario *s, const rb_compat_row *r)
{
    const rb_bundle_result *x = result_of(s, r);
    return x && !r->wrong && !r->wrong_linear && isfinite(x->median_ns) && x->median_ns > 0;
}

/* "122x", "2.48x", "14.5x": how many times slower, from a speed ratio. */
static void times(double r, char *buf, size_t cap)
{
    snprintf(buf, cap, "%.*fx", r < 10 ? 2 : r < 100 ? 1 : 0, r);
}

static void rank(const rb_bundle *b, const rb_bundle_scenario *s, rb_ecosystem *e)
{
    bool exact = rb_metric_exact(b->metric);
    for (size_t i = 0; i < e->nrows; i++) {
        if (!rankable(s, &e->rows[i])) continue;
        rb_ecosystem_runner *x = &e->ranked[e->nranked++];
        memset(x, 0, sizeof *x);
        x->row = i;
        x->median = result_of(s, &e->rows[i])->median_ns;
    }
    /* fastest first (insertion: a few runners) */
    for (size_t i = 1; i < e->nranked; i++) {
        rb_ecosystem_runner r = e->ranked[i];
        size_t j = i;
        for (; j > 0 && e->ranked[j - 1].median > r.median; j--) e->ranked[j] = e->ranked[j - 1];
        e->ranked[j] = r;
    }
    if (!e->nranked) return;
    const char *fast = e->rows[e->ranked[0].row].router;
    e->ranked[0].top = true;
    e->ntop = 1;
    for (size_t i = 1; i < e->nranked; i++) {
        rb_ecosystem_runner *x = &e->ranked[i];
        x->has_speed = rb_verdict_speed(s, fast, e->rows[x->row].router, &x->speed);
        bool tied = x->has_speed && (exact ? !rb_verdict_counted_differs(&x->speed)
                                           : !x->speed.too_few && !x->speed.excludes_one);
        x->top = tied;
        e->ntop += tied;
    }
    if (e->nranked > 1 && e->ranked[1].has_speed)
        e->significant = exact ? rb_verdict_counted_differs(&e->ranked[1].speed)
                               : e->ranked[1].speed.excludes_one;
}

/* "a", "a and b", "a, b and c": the top runners. */
static void put_top(const rb_ecosystem *e, rb_text *t)
{
    size_t k = 0;
    for (size_t i = 0; i < e->nranked; i++) {
        if (!e->ranked[i].top) continue;
        k++;
        rb_text_put(t, "%s%s",
                    k == 1         ? ""
                    : k == e->ntop ? " and "
                                   : ", ",
                    e->rows[e->ranked[i].row].router);
    }
}

/* A failed runner's reason without its "peer NAME: " or "peer NAME "
 * opening, so that runners failing alike share one clause. */
static const char *failure(const rb_compat_row *r)
{
    const char *why = r->reason ? r->reason : "";
    size_t n = strlen(r->router);
    if (strncmp(why, "peer ", 5) == 0 && strncmp(why + 5, r->router, n) == 0) {
        why += 5 + n;
        if (*why == ':') why++;
        while (*why == ' ') why++;
    }
    return why;
}

/* "; a and b could not be measured: WHY" for each distinct reason, in
 * row order. */
static void put_failures(const rb_ecosystem *e, rb_text *t)
{
    for (size_t i = 0; i < e->nrows; i++) {
        const rb_compat_row *r = &e->rows[i];
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = e->rows[k].state == RB_COMPAT_FAILED &&
                   strcmp(failure(&e->rows[k]), failure(r)) == 0;
        if (r->state != RB_COMPAT_FAILED || seen) continue;
        size_t alike = 0, put = 0;
        for (size_t k = i; k < e->nrows; k++)
            alike += e->rows[k].state == RB_COMPAT_FAILED &&
                     strcmp(failure(&e->rows[k]), failure(r)) == 0;
        rb_text_put(t, "; ");
        for (size_t k = i; k < e->nrows; k++) {
            if (e->rows[k].state != RB_COMPAT_FAILED ||
                strcmp(failure(&e->rows[k]), failure(r)) != 0)
                continue;
            put++;
            rb_text_put(t, "%s%s",
                        put == 1       ? ""
                        : put == alike ? " and "
                                       : ", ",
                        e->rows[k].router);
        }
        rb_text_put(t, " could not be measured%s%s", *failure(r) ? ": " : "", failure(r));
    }
}

static void write_line(const rb_bundle *b, const rb_bundle_scenario *s, rb_ecosystem *e)
{
    rb_text t = {e->line, sizeof e->line, 0};
    bool exact = rb_metric_exact(b->metric);
    size_t wrong = 0, refused = 0, failed = 0;
    for (size_t i = 0; i < e->nrows; i++) {
        wrong += e->rows[i].state == RB_COMPAT_ACCEPTED && !rankable(s, &e->rows[i]);
        refused += e->rows[i].state != RB_COMPAT_ACCEPTED;
        failed += e->rows[i].state == RB_COMPAT_FAILED;
    }
    rb_text_put(&t, "%s: ", e->language);
    if (e->nranked >= 2 && e->ntop > 1) {
        rb_text_put(&t, "no clear winner %s ", e->ntop == 2 ? "between" : "among");
        put_top(e, &t);
        rb_text_put(&t, " (within noise)");
    } else if (e->nranked >= 2) {
        const rb_ecosystem_runner *r = &e->ranked[1];
        char cell[96] = "";
        if (r->has_speed)
            rb_format_speed(r->speed.median, r->speed.lo, r->speed.hi, r->speed.too_few, exact,
                            cell, sizeof cell);
        rb_text_put(&t, "%s fastest, %s %s than %s%s", e->rows[e->ranked[0].row].router,
                    *cell ? cell : "ahead", exact ? "fewer" : "faster", e->rows[r->row].router,
                    e->significant ? "" : " (not significant)");
    } else if (e->nranked == 1) {
        rb_text_put(&t, "%s alone accepts the table and answers right: no ranking",
                    e->rows[e->ranked[0].row].router);
    } else if (wrong) {
        rb_text_put(&t,
                    "no ranking: every runner that accepts the table answers some requests wrong");
    } else if (refused == e->nrows && failed == e->nrows) {
        rb_text_put(&t, "no runner could be measured");
    } else {
        rb_text_put(&t, "every runner refuses the table or could not be measured");
    }
    /* the slower ones, past the runner-up the lead names */
    for (size_t i = 1; i < e->nranked; i++) {
        const rb_ecosystem_runner *r = &e->ranked[i];
        if (r->top || (i == 1 && e->ntop == 1) || !r->has_speed) continue;
        char x[32];
        times(r->speed.median, x, sizeof x);
        rb_text_put(&t, "; %s %s slower", e->rows[r->row].router, x);
    }
    for (size_t i = 0; i < e->nrows; i++) {
        const rb_compat_row *r = &e->rows[i];
        size_t requests = s->requests;
        if (r->state == RB_COMPAT_ACCEPTED && r->wrong)
            rb_text_put(&t, "; %s not ranked: %llu of %zu answers differ from EXPECTED", r->router,
                        (unsigned long long)r->wrong, requests);
        else if (r->state == RB_COMPAT_ACCEPTED && r->wrong_linear)
            rb_text_put(&t, "; %s not ranked: %llu of %zu answers differ from linear's captures",
                        r->router, (unsigned long long)r->wrong_linear, requests);
        else if (r->state == RB_COMPAT_REFUSED)
            rb_text_put(&t, "; %s refuses %zu route%s", r->router, r->refused_routes,
                        r->refused_routes == 1 ? "" : "s");
    }
    put_failures(e, &t);
    (void)refused;
}

size_t rb_ecosystems(const rb_bundle *b, size_t si, rb_ecosystem *out, size_t cap)
{
    if (si >= b->nscenarios || rb_bundle_is_condition(b, si)) return 0;
    const rb_bundle_scenario *s = &b->scenarios[si];
    rb_compat_row rows[RB_ECOSYSTEM_LANGS * RB_ECOSYSTEM_RUNNERS];
    size_t nrows = rb_compat_rows(b, si, rows, sizeof rows / sizeof rows[0]);
    size_t n = 0;
    for (size_t i = 0; i < nrows; i++) {
        if (!rows[i].peer) continue;
        rb_ecosystem *e = NULL;
        for (size_t k = 0; k < n && !e; k++)
            if (strcmp(out[k].language, rows[i].language) == 0) e = &out[k];
        if (!e) {
            if (n == cap) continue;
            e = &out[n++];
            memset(e, 0, sizeof *e);
            e->scenario = si;
            snprintf(e->language, sizeof e->language, "%s", rows[i].language);
        }
        if (e->nrows < RB_ECOSYSTEM_RUNNERS) e->rows[e->nrows++] = rows[i];
    }
    /* a language whose runners all run in routebench's process (r3 alone,
     * without --peers) is no ecosystem the user asked about: no line */
    size_t kept = 0;
    for (size_t k = 0; k < n; k++) {
        bool process = false;
        for (size_t r = 0; r < out[k].nrows && !process; r++) process = !out[k].rows[r].in_process;
        if (!process) continue;
        if (kept != k) out[kept] = out[k];
        kept++;
    }
    for (size_t k = 0; k < kept; k++) {
        rank(b, s, &out[k]);
        write_line(b, s, &out[k]);
    }
    return kept;
}
