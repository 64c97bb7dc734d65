/*
 * verdict.c — the conclusion of a bundle in a paragraph (verdict.h): a
 * pure function of the bundle's results and pairs.
 */
#include "verdict.h"

#include "feature_names.h"
#include "format.h"

#include "base_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

bool rb_verdict_speed(const rb_bundle_scenario *s, const char *x, const char *y,
                      rb_paired_result *out)
{
    const rb_bundle_pair *p = rb_bundle_find_pair(s, y, x);
    if (p) {
        *out = p->r;
        return true;
    }
    p = rb_bundle_find_pair(s, x, y);
    if (!p) return false;
    /* stored as y's speed over x: invert the median and swap the bounds */
    *out = p->r;
    out->median = 1 / p->r.median;
    out->lo = 1 / p->r.hi;
    out->hi = 1 / p->r.lo;
    out->wins = p->r.losses;
    out->losses = p->r.wins;
    return true;
}

/* ---- who is ranked --------------------------------------------------------- */

static bool is_auto(const char *router)
{
    return strcmp(router, "auto") == 0 || strncmp(router, "auto@", 5) == 0;
}

static bool ranked(const rb_bundle *b, const rb_bundle_result *r)
{
    const rb_bundle_router *info = rb_bundle_router_info(b, r->router);
    if (info && (info->reference || info->peer)) return false;
    return !r->peer_process && !is_auto(r->router) && r->disagreements == 0 &&
           isfinite(r->median_ns) && r->median_ns > 0;
}

bool rb_verdict_counted_differs(const rb_paired_result *p)
{
    return p->mde > 0 ? p->excludes_one != 0 : p->median != 1;
}

/* Is x's interval against the fastest f short of significance? */
static bool not_slower(const rb_verdict *v, const rb_bundle_scenario *s, const char *f,
                       const char *x)
{
    rb_paired_result p;
    if (strcmp(f, x) == 0) return true;
    if (!rb_verdict_speed(s, f, x, &p)) return false;
    if (v->exact) return !rb_verdict_counted_differs(&p);
    return !p.too_few && !p.excludes_one;
}

/* "1.42x [1.38, 1.47] (9/9 pairs)", or for a counted metric "1.42x (exact,
 * instructions)", "1.0010x (within ±0.30%, instructions)" with a spread. */
static void fmt_speed(const rb_verdict *v, const rb_paired_result *p, char *buf, size_t cap)
{
    char m[32], lo[32], hi[32];
    if (v->exact) {
        rb_format_exact_ratio(p->median, m, sizeof m);
        rb_format_spread(p->mde, lo, sizeof lo);
        snprintf(buf, cap, "%sx (%s, %s)", m, lo, rb_metric_unit(v->metric));
        return;
    }
    rb_format_ratio(p->median, m, sizeof m);
    if (p->too_few) {
        snprintf(buf, cap, "%sx (too few pairs for an interval)", m);
        return;
    }
    rb_format_interval(p->lo, p->hi, 3, lo, hi, sizeof lo);
    snprintf(buf, cap, "%sx [%s, %s] (%zu/%zu pairs)", m, lo, hi, p->wins, p->n);
}

static void feature_list(unsigned f, char *buf, size_t cap)
{
    rb_features_join(f, ", ", "static routes only", 1, buf, cap);
}

/* ---- one scenario ------------------------------------------------------------ */

static void rank(const rb_bundle *b, const rb_bundle_scenario *s, rb_verdict *v)
{
    const rb_bundle_result *fast = NULL, *second = NULL, *small = NULL, *build = NULL;
    for (size_t i = 0; i < s->nresults; i++) {
        const rb_bundle_result *r = &s->results[i];
        if (!ranked(b, r)) continue;
        v->ranked++;
        if (!fast || r->median_ns < fast->median_ns) {
            second = fast;
            fast = r;
        } else if (!second || r->median_ns < second->median_ns) {
            second = r;
        }
        if (!small || r->bytes_per_route < small->bytes_per_route) small = r;
        if (!build || r->build_ns < build->build_ns) build = r;
    }
    if (!fast) return;
    snprintf(v->fastest, sizeof v->fastest, "%s", fast->router);
    snprintf(v->smallest, sizeof v->smallest, "%s", small->router);
    v->smallest_bytes_per_route = small->bytes_per_route;
    snprintf(v->fastest_build, sizeof v->fastest_build, "%s", build->router);
    v->fastest_build_ns = build->build_ns;
    if (second) {
        snprintf(v->runner_up, sizeof v->runner_up, "%s", second->router);
        if (rb_verdict_speed(s, fast->router, second->router, &v->lead))
            v->significant =
                v->exact ? rb_verdict_counted_differs(&v->lead) : v->lead.excludes_one != 0;
    }
    size_t n = 0;
    for (size_t i = 0; i < s->nresults; i++) {
        const rb_bundle_result *r = &s->results[i];
        if (!ranked(b, r) || !not_slower(v, s, fast->router, r->router)) continue;
        int w = snprintf(v->top + n, sizeof v->top - n, "%s%s", n ? ", " : "", r->router);
        if (w > 0 && (size_t)w < sizeof v->top - n) n += (size_t)w;
        v->ntop++;
    }
}

/* A router generated for the table (`compiled`, bench/measure/compiled.h)
 * is not one auto could pick: auto chooses among the runtime routers. */
static bool is_generated(const char *router)
{
    return strcmp(router, "compiled") == 0 || strncmp(router, "compiled@", 9) == 0;
}

static void judge_auto(const rb_bundle *b, const rb_bundle_scenario *s, rb_verdict *v)
{
    if (!*s->auto_choice || !*v->fastest) return;
    snprintf(v->auto_choice, sizeof v->auto_choice, "%s", s->auto_choice);
    const rb_bundle_result *rival = NULL;
    for (size_t i = 0; i < s->nresults; i++) {
        const rb_bundle_result *r = &s->results[i];
        if (ranked(b, r) && !is_generated(r->router) && (!rival || r->median_ns < rival->median_ns))
            rival = r;
    }
    if (!rival) return;
    snprintf(v->auto_rival, sizeof v->auto_rival, "%s", rival->router);
    size_t k = rb_bundle_result_index(s, s->auto_choice);
    if (k == SIZE_MAX || !ranked(b, &s->results[k])) {
        v->auto_status = RB_VERDICT_AUTO_UNRANKED;
        return;
    }
    if (strcmp(s->auto_choice, v->auto_rival) == 0) {
        /* the fastest by median is a winner only when the verdict says so */
        v->auto_status = strcmp(v->auto_rival, v->fastest) == 0 && !rb_verdict_has_winner(v)
                             ? RB_VERDICT_AUTO_TOP
                             : RB_VERDICT_AUTO_WINNER;
        return;
    }
    if (!rb_verdict_speed(s, v->auto_rival, s->auto_choice, &v->auto_gap)) {
        v->auto_status = RB_VERDICT_AUTO_UNRANKED;
        return;
    }
    if (not_slower(v, s, v->auto_rival, s->auto_choice))
        v->auto_status = RB_VERDICT_AUTO_TIED;
    else if (v->exact || v->auto_gap.excludes_one)
        v->auto_status = RB_VERDICT_AUTO_LOSES;
    else
        v->auto_status = RB_VERDICT_AUTO_BEHIND;
}

static void condition_words(const rb_bundle_scenario *s, rb_text *t)
{
    bool latency = s->mode == RB_BUNDLE_LATENCY;
    bool cold = s->cache == RB_BUNDLE_COLD;
    if (latency) rb_text_put(t, ", each lookup waiting for the previous answer");
    if (cold)
        rb_text_put(t,
                    "%s %llu KiB of application work between lookups (outside the timed intervals)",
                    latency ? " and" : ",", (unsigned long long)(s->app_bytes / 1024));
}

/* " The table needs F; refused by R (no F)...": the table's features and
 * who refused it. */
static void put_refusals(const rb_bundle *b, const rb_bundle_scenario *s, rb_text *t)
{
    char f[64];
    feature_list(s->features, f, sizeof f);
    rb_text_put(t, " The table needs %s", f);
    bool any = false;
    for (const char *p = s->skipped; *p;) {
        size_t n = strcspn(p, ",");
        char name[RB_BUNDLE_NAME];
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        const rb_bundle_router *info = rb_bundle_router_info(b, name);
        char lack[64] = "a feature";
        if (info) feature_list(s->features & ~info->features, lack, sizeof lack);
        rb_text_put(t, "%s %s (no %s)", any ? ";" : "; refused by", name, lack);
        any = true;
        p += n + (p[n] ? 1 : 0);
    }
    for (size_t i = 0; i < s->nrefused; i++) {
        rb_text_put(t, "%s %s (%s)", any ? ";" : "; refused by", s->refused[i].router,
                    s->refused[i].reason);
        any = true;
    }
    rb_text_put(t, "%s.", any ? "" : "; no router refused it");
}

void rb_verdict_auto_under_pick(const rb_bundle_scenario *s, size_t *idx, size_t n)
{
    size_t a = SIZE_MAX, c = SIZE_MAX;
    for (size_t j = 0; j < n; j++) {
        if (is_auto(s->results[idx[j]].router)) a = j;
        if (*s->auto_choice && strcmp(s->results[idx[j]].router, s->auto_choice) == 0) c = j;
    }
    if (a == SIZE_MAX || c == SIZE_MAX) return;
    size_t auto_idx = idx[a];
    memmove(&idx[a], &idx[a + 1], (n - a - 1) * sizeof *idx); /* out */
    if (c > a) c--;
    memmove(&idx[c + 2], &idx[c + 1], (n - c - 2) * sizeof *idx); /* in, after its pick */
    idx[c + 1] = auto_idx;
}

bool rb_verdict_has_winner(const rb_verdict *v)
{
    return *v->fastest && v->ntop == 1 && (v->significant || !*v->runner_up);
}

/* auto's pick against the verdict, without a prefix; cell formats a gap. */
static void auto_claim(const rb_verdict *v, const char *cell, rb_text *t)
{
    switch (v->auto_status) {
    case RB_VERDICT_AUTO_WINNER:
        if (strcmp(v->auto_rival, v->fastest) == 0)
            rb_text_put(t, "auto picks %s, the winner", v->auto_choice);
        else
            rb_text_put(
                t,
                "auto picks %s, the fastest of the routers it chooses among (%s is generated "
                "for this table)",
                v->auto_choice, v->fastest);
        break;
    case RB_VERDICT_AUTO_TOP:
        rb_text_put(t, "auto picks %s, one of the top routers (no clear winner)", v->auto_choice);
        break;
    case RB_VERDICT_AUTO_TIED:
        rb_text_put(t, "auto picks %s, not significantly slower than %s (%s)", v->auto_choice,
                    v->auto_rival, cell);
        break;
    case RB_VERDICT_AUTO_BEHIND:
        rb_text_put(t, "auto picks %s, behind %s by %s, not significantly", v->auto_choice,
                    v->auto_rival, cell);
        break;
    case RB_VERDICT_AUTO_LOSES:
        rb_text_put(t, "auto picks %s, which LOSES significantly: %s is %s faster", v->auto_choice,
                    v->auto_rival, cell);
        break;
    case RB_VERDICT_AUTO_UNRANKED:
        rb_text_put(t, "auto picks %s, which was not measured beside it", v->auto_choice);
        break;
    default:
        break;
    }
}

void rb_verdict_auto_line(const rb_bundle *b, const rb_verdict *v, char *buf, size_t cap)
{
    rb_text t = {buf, cap, 0};
    buf[0] = '\0';
    if (v->auto_status == RB_VERDICT_AUTO_ABSENT || v->scenario >= b->nscenarios) return;
    if (rb_bundle_is_condition(b, v->scenario))
        rb_text_put(&t, "%s: ", rb_bundle_cache_name(b->scenarios[v->scenario].cache));
    char cell[96];
    rb_format_speed(v->auto_gap.median, v->auto_gap.lo, v->auto_gap.hi, v->auto_gap.too_few,
                    v->exact, cell, sizeof cell);
    auto_claim(v, cell, &t);
}

/* What auto picked, against the verdict, in the paragraph. */
static void put_auto(const rb_verdict *v, rb_text *t)
{
    char cell[160];
    if (v->auto_status == RB_VERDICT_AUTO_ABSENT) return;
    fmt_speed(v, &v->auto_gap, cell, sizeof cell);
    rb_text_put(t, " ");
    auto_claim(v, cell, t);
    rb_text_put(t, "%s",
                v->auto_status == RB_VERDICT_AUTO_LOSES ? "; auto's rule does not fit this table."
                                                        : ".");
}

/* Peers: measured beside ours, compared, not ranked. */
static void put_peers(const rb_bundle *b, const rb_bundle_scenario *s, const rb_verdict *v,
                      rb_text *t)
{
    char cell[160];
    bool first = true;
    for (size_t i = 0; *v->fastest && i < s->nresults; i++) {
        const rb_bundle_result *r = &s->results[i];
        const rb_bundle_router *info = rb_bundle_router_info(b, r->router);
        if (!r->peer_process && !(info && info->peer)) continue;
        rb_paired_result p;
        rb_text_put(t, "%s%s (%s)", first ? " Peers (measured, not ranked against ours): " : "; ",
                    r->router, r->peer_process ? "its own process and timing loop" : "in process");
        first = false;
        if (rb_verdict_speed(s, v->fastest, r->router, &p)) {
            fmt_speed(v, &p, cell, sizeof cell);
            rb_text_put(t, ": %s is %s faster", v->fastest, cell);
        }
        if (r->disagreements)
            rb_text_put(t, ", %llu answer%s differ%s from EXPECTED",
                        (unsigned long long)r->disagreements, r->disagreements == 1 ? "" : "s",
                        r->disagreements == 1 ? "s" : "");
    }
    if (!first) rb_text_put(t, ".");
}

static void write_text(const rb_bundle *b, const rb_bundle_scenario *s, rb_verdict *v)
{
    rb_text t = {v->text, sizeof v->text, 0};
    char cell[160];
    rb_text_put(&t, "%s", s->name);
    condition_words(s, &t);
    rb_text_put(&t, ": ");
    if (!*v->fastest) {
        rb_text_put(&t,
                    "no router could be ranked (every router measured is a reference, a peer or "
                    "gave wrong answers).");
    } else if (!*v->runner_up) {
        rb_text_put(&t, "%s is the only router ranked.", v->fastest);
    } else if (v->ntop > 1) {
        /* the lead shown is over the slowest of the tied routers (by median):
         * the runner-up by median may be significantly behind while a slower
         * router's interval still includes 1 */
        const rb_bundle_result *tied = NULL;
        for (size_t i = 0; i < s->nresults; i++) {
            const rb_bundle_result *r = &s->results[i];
            if (!ranked(b, r) || strcmp(r->router, v->fastest) == 0 ||
                !not_slower(v, s, v->fastest, r->router))
                continue;
            if (!tied || r->median_ns > tied->median_ns) tied = r;
        }
        rb_paired_result lead = v->lead;
        const char *over = v->runner_up;
        if (tied && rb_verdict_speed(s, v->fastest, tied->router, &lead)) over = tied->router;
        rb_text_put(&t, "no significant difference between the top routers %s", v->top);
        fmt_speed(v, &lead, cell, sizeof cell);
        rb_text_put(&t, " (%s over %s: %s).", v->fastest, over, cell);
    } else {
        fmt_speed(v, &v->lead, cell, sizeof cell);
        rb_text_put(&t, "fastest %s, %s faster than the runner-up %s%s.", v->fastest, cell,
                    v->runner_up, v->significant ? "" : " (not significant)");
    }
    if (*v->fastest) {
        char build[32];
        rb_format_duration((double)v->fastest_build_ns, build, sizeof build);
        rb_text_put(&t, " Smallest: %s (%.1f bytes/route). Fastest to build: %s (%s).", v->smallest,
                    v->smallest_bytes_per_route, v->fastest_build, build);
    }
    put_refusals(b, s, &t);
    put_auto(v, &t);
    put_peers(b, s, v, &t);
}

int rb_verdict_scenario(const rb_bundle *b, size_t si, rb_verdict *v)
{
    memset(v, 0, sizeof *v);
    if (si >= b->nscenarios) return RB_EINVAL;
    const rb_bundle_scenario *s = &b->scenarios[si];
    v->scenario = si;
    v->exact = rb_metric_exact(b->metric);
    v->metric = b->metric;
    rank(b, s, v);
    judge_auto(b, s, v);
    write_text(b, s, v);
    return RB_OK;
}

/* ---- across conditions and scenarios ------------------------------------------ */

size_t rb_verdict_find_condition(const rb_bundle *b, size_t si, rb_bundle_mode mode,
                                 rb_bundle_cache cache)
{
    const rb_bundle_scenario *s = &b->scenarios[si];
    for (size_t i = 0; i < b->nscenarios; i++) {
        const rb_bundle_scenario *x = &b->scenarios[i];
        if (rb_bundle_same_tables(x, s) && x->mode == mode && x->cache == cache) return i;
    }
    return SIZE_MAX;
}

size_t rb_verdict_cold_twin(const rb_bundle *b, size_t si)
{
    const rb_bundle_scenario *s = &b->scenarios[si];
    if (s->mode != RB_BUNDLE_THROUGHPUT || s->cache != RB_BUNDLE_WARM) return SIZE_MAX;
    return rb_verdict_find_condition(b, si, RB_BUNDLE_LATENCY, RB_BUNDLE_COLD);
}

static void condition_winner(const rb_bundle *b, size_t si, const char *what, rb_text *t)
{
    rb_verdict v;
    rb_text_put(t, "%s: ", what);
    if (si == SIZE_MAX || rb_verdict_scenario(b, si, &v) < 0 || !*v.fastest) {
        rb_text_put(t, "not measured");
        return;
    }
    if (v.ntop > 1)
        rb_text_put(t, "no significant difference between %s", v.top);
    else
        rb_text_put(t, "%s fastest%s", v.fastest, v.significant ? "" : " (not significantly)");
}

void rb_verdict_conditions(const rb_bundle *b, size_t si_warm, size_t si_cold, char *buf,
                           size_t cap)
{
    rb_text t = {buf, cap, 0};
    buf[0] = '\0';
    condition_winner(b, si_warm, "warm throughput", &t);
    rb_text_put(&t, "; ");
    condition_winner(b, si_cold, "cold latency", &t);
    rb_verdict w, c;
    if (si_warm != SIZE_MAX && si_cold != SIZE_MAX && rb_verdict_scenario(b, si_warm, &w) == 0 &&
        rb_verdict_scenario(b, si_cold, &c) == 0 && *w.fastest && *c.fastest && w.ntop == 1 &&
        c.ntop == 1)
        rb_text_put(&t, strcmp(w.fastest, c.fastest) == 0
                            ? " (the same winner under both)."
                            : " (the winner changes with the conditions).");
    else /* a tie under either: no claim about the winner changing or not */
        rb_text_put(&t, ".");
}

#define MAX_TALLY 64

typedef struct tally {
    char router[RB_BUNDLE_NAME];
    size_t fastest, significant, smallest;
} tally;

static tally *tally_of(tally *v, size_t *n, const char *router)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(v[i].router, router) == 0) return &v[i];
    if (*n == MAX_TALLY) return NULL;
    tally *x = &v[(*n)++];
    memset(x, 0, sizeof *x);
    snprintf(x->router, sizeof x->router, "%s", router);
    return x;
}

void rb_verdict_overall(const rb_bundle *b, char *buf, size_t cap)
{
    rb_text t = {buf, cap, 0};
    buf[0] = '\0';
    if (!b->nscenarios) return;
    tally tallies[MAX_TALLY];
    size_t nt = 0, judged = 0, auto_runs = 0, auto_good = 0;
    char losses[RB_BUNDLE_TEXT] = "";
    size_t nl = 0;
    for (size_t i = 0; i < b->nscenarios; i++) {
        rb_verdict v;
        /* a table's second condition is not one more scenario */
        if (rb_bundle_is_condition(b, i) || rb_verdict_scenario(b, i, &v) < 0 || !*v.fastest)
            continue;
        judged++;
        tally *x = tally_of(tallies, &nt, v.fastest);
        if (x) {
            x->fastest++;
            if (v.significant && v.ntop == 1) x->significant++;
        }
        tally *y = tally_of(tallies, &nt, v.smallest);
        if (y) y->smallest++;
        if (v.auto_status == RB_VERDICT_AUTO_ABSENT) continue;
        auto_runs++;
        if (v.auto_status == RB_VERDICT_AUTO_WINNER || v.auto_status == RB_VERDICT_AUTO_TIED ||
            v.auto_status == RB_VERDICT_AUTO_TOP)
            auto_good++;
        if (v.auto_status == RB_VERDICT_AUTO_LOSES) {
            int w = snprintf(losses + nl, sizeof losses - nl, "%s%s (%s to %s)", nl ? ", " : "",
                             b->scenarios[i].name, v.auto_choice, v.fastest);
            if (w > 0 && (size_t)w < sizeof losses - nl) nl += (size_t)w;
        }
    }
    if (!judged) {
        rb_text_put(&t, "Overall: no scenario had a router that could be ranked.");
        return;
    }
    rb_text_put(&t, "Overall (%zu scenario%s): fastest", judged, judged == 1 ? "" : "s");
    bool first = true;
    for (size_t i = 0; i < nt; i++) {
        if (!tallies[i].fastest) continue;
        rb_text_put(&t, "%s %s in %zu (significantly ahead of every other in %zu)",
                    first ? "" : ",", tallies[i].router, tallies[i].fastest,
                    tallies[i].significant);
        first = false;
    }
    rb_text_put(&t, "; smallest");
    first = true;
    for (size_t i = 0; i < nt; i++) {
        if (!tallies[i].smallest) continue;
        rb_text_put(&t, "%s %s in %zu", first ? "" : ",", tallies[i].router, tallies[i].smallest);
        first = false;
    }
    rb_text_put(&t, ".");
    if (auto_runs)
        rb_text_put(
            &t,
            " auto picked the fastest router, or one not significantly slower, in %zu of %zu%s%s.",
            auto_good, auto_runs, nl ? "; it lost significantly on " : "", losses);
}
