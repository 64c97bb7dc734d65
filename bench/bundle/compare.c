/*
 * compare.c — identity and ratios of two saved results (compare.h).
 */
#include "compare.h"

#include "base_internal.h"
#include "metric.h"
#include "stats.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rb_compare_router_name(const char *label, char *buf, size_t cap)
{
    const char *at = strchr(label, '@');
    size_t n = at ? (size_t)(at - label) : strlen(label);
    if (n >= cap) n = cap - 1;
    memcpy(buf, label, n);
    buf[n] = '\0';
}

/* "FIELD: A in OLD, B in NEW" when a and b differ. */
static void differ(rb_buf *out, size_t *n, const char *field, const char *a, const char *b)
{
    if (strcmp(a, b) == 0) return;
    rb_buf_printf(out, "%s: %s in OLD, %s in NEW\n", field, *a ? a : "(not recorded)",
                  *b ? b : "(not recorded)");
    (*n)++;
}

static const char *yes_no(bool v)
{
    return v ? "yes" : "no";
}

static const rb_bundle_scenario *scenario_named(const rb_bundle *b, const char *name)
{
    for (size_t i = 0; i < b->nscenarios; i++)
        if (strcmp(b->scenarios[i].name, name) == 0) return &b->scenarios[i];
    return NULL;
}

/* The result of router (by name) in s, or SIZE_MAX. */
static size_t result_named(const rb_bundle_scenario *s, const char *router)
{
    char name[RB_BUNDLE_NAME];
    for (size_t i = 0; i < s->nresults; i++) {
        rb_compare_router_name(s->results[i].router, name, sizeof name);
        if (strcmp(name, router) == 0) return i;
    }
    return SIZE_MAX;
}

static size_t shared_rows(const rb_bundle *old, const rb_bundle *nw)
{
    size_t n = 0;
    char name[RB_BUNDLE_NAME];
    for (size_t i = 0; i < old->nscenarios; i++) {
        const rb_bundle_scenario *so = &old->scenarios[i], *sn = scenario_named(nw, so->name);
        if (!sn) continue;
        for (size_t r = 0; r < so->nresults; r++) {
            rb_compare_router_name(so->results[r].router, name, sizeof name);
            n += result_named(sn, name) != SIZE_MAX;
        }
    }
    return n;
}

size_t rb_compare_identity(const rb_bundle *old, const rb_bundle *nw, rb_buf *out)
{
    size_t n = 0;
    bool counted = rb_metric_exact(old->metric) && rb_metric_exact(nw->metric);
    differ(out, &n, "protocol.metric", rb_metric_name(old->metric), rb_metric_name(nw->metric));
    if (old->metric == RB_METRIC_TIME && nw->metric == RB_METRIC_TIME)
        differ(out, &n, "protocol.clock_id", old->cpu_clock ? "thread_cputime" : "monotonic",
               nw->cpu_clock ? "thread_cputime" : "monotonic");
    differ(out, &n, "tool.compiler", old->compiler, nw->compiler);
    differ(out, &n, "tool.flags", old->flags, nw->flags);
    differ(out, &n, "tool.build_type", old->build_type, nw->build_type);
    differ(out, &n, "tool.sanitized", yes_no(old->sanitized), yes_no(nw->sanitized));
    if (counted) {
        differ(out, &n, "tool.valgrind", old->valgrind, nw->valgrind);
        differ(out, &n, "machine.cpu_vendor", old->cpu_vendor, nw->cpu_vendor);
        differ(out, &n, "machine.cpu_family", old->cpu_family, nw->cpu_family);
    } else {
        differ(out, &n, "machine.cpu_model", old->cpu_model, nw->cpu_model);
    }
    for (size_t i = 0; i < old->nscenarios; i++) {
        const rb_bundle_scenario *so = &old->scenarios[i], *sn = scenario_named(nw, so->name);
        if (!sn) continue;
        char field[RB_BUNDLE_NAME * 3], a[32], b[32];
        snprintf(field, sizeof field, "scenario %s: routes_fingerprint", so->name);
        snprintf(a, sizeof a, "%016" PRIx64, so->routes_fp);
        snprintf(b, sizeof b, "%016" PRIx64, sn->routes_fp);
        differ(out, &n, field, a, b);
        snprintf(field, sizeof field, "scenario %s: requests_fingerprint", so->name);
        snprintf(a, sizeof a, "%016" PRIx64, so->requests_fp);
        snprintf(b, sizeof b, "%016" PRIx64, sn->requests_fp);
        differ(out, &n, field, a, b);
        snprintf(field, sizeof field, "scenario %s: mode", so->name);
        differ(out, &n, field, rb_bundle_mode_name(so->mode), rb_bundle_mode_name(sn->mode));
        snprintf(field, sizeof field, "scenario %s: cache", so->name);
        differ(out, &n, field, rb_bundle_cache_name(so->cache), rb_bundle_cache_name(sn->cache));
    }
    if (shared_rows(old, nw) == 0) {
        rb_buf_printf(out, "scenarios and routers: no router on a scenario of the same name in "
                           "both results\n");
        n++;
    }
    return n;
}

void rb_compare_free(rb_compare *c)
{
    free(c->rows);
    c->rows = NULL;
    c->nrows = 0;
    rb_buf_free(&c->not_compared);
}

/* The per-lookup values of result ri of scenario si (n at most cap). */
static size_t trial_values(const rb_bundle *b, size_t si, size_t ri, double *xs, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < b->ntrials && n < cap; i++) {
        const rb_bundle_trial *t = &b->trials_v[i];
        if (t->scenario == si && t->result == ri && t->lookups > 0)
            xs[n++] = rb_bundle_trial_ns_per_lookup(t);
    }
    return n;
}

static int unpaired_row(const rb_bundle *old, size_t so, size_t ro, const rb_bundle *nw, size_t sn,
                        size_t rn, rb_compare_row *row)
{
    enum { MAX_TRIALS = 4096 };
    double *xs = malloc(2 * MAX_TRIALS * sizeof *xs);
    if (!xs) return RB_ENOMEM;
    size_t na = trial_values(old, so, ro, xs, MAX_TRIALS);
    size_t nb = trial_values(nw, sn, rn, xs + MAX_TRIALS, MAX_TRIALS);
    int rc = RB_OK;
    if (na > 0 && nb > 0) {
        rc = rb_changepoint_unpaired(xs, na, xs + MAX_TRIALS, nb, 0.95, &row->unpaired);
        row->has_interval = rc == RB_OK;
        if (rc == RB_EINVAL) rc = RB_OK; /* a zero time: no interval */
    }
    free(xs);
    return rc;
}

static void note_only(rb_buf *o, const char *what, const char *name, const char *where)
{
    rb_buf_printf(o, "%s%s %s only in %s", o->len ? "; " : "", what, name, where);
}

int rb_compare_rows(const rb_bundle *old, const rb_bundle *nw, rb_compare *c, rb_error *err)
{
    memset(c, 0, sizeof *c);
    c->metric = old->metric;
    c->exact = rb_metric_exact(old->metric);
    size_t cap = shared_rows(old, nw);
    if (cap == 0)
        return rb__error(err, RB_ENOTFOUND, RB_NO_OFFSET,
                         "the two results share no router on a scenario of the same name");
    c->rows = calloc(cap, sizeof *c->rows);
    if (!c->rows) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    char name[RB_BUNDLE_NAME];
    for (size_t i = 0; i < old->nscenarios; i++) {
        const rb_bundle_scenario *so = &old->scenarios[i], *sn = scenario_named(nw, so->name);
        if (!sn) {
            note_only(&c->not_compared, "scenario", so->name, "OLD");
            continue;
        }
        size_t si_new = (size_t)(sn - nw->scenarios);
        for (size_t r = 0; r < so->nresults; r++) {
            rb_compare_router_name(so->results[r].router, name, sizeof name);
            size_t rn = result_named(sn, name);
            if (rn == SIZE_MAX) {
                if (i == 0) note_only(&c->not_compared, "router", name, "OLD");
                continue;
            }
            rb_compare_row *row = &c->rows[c->nrows++];
            snprintf(row->scenario, sizeof row->scenario, "%s", so->name);
            snprintf(row->router, sizeof row->router, "%s", name);
            row->old_value = so->results[r].median_ns;
            row->new_value = sn->results[rn].median_ns;
            row->ratio = row->new_value > 0 ? row->old_value / row->new_value : NAN;
            row->exact = c->exact;
            if (c->exact) row->spread = so->results[r].count_spread + sn->results[rn].count_spread;
            if (!c->exact && unpaired_row(old, i, r, nw, si_new, rn, row) < 0) {
                rb_compare_free(c);
                return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
            }
        }
    }
    for (size_t i = 0; i < nw->nscenarios; i++)
        if (!scenario_named(old, nw->scenarios[i].name))
            note_only(&c->not_compared, "scenario", nw->scenarios[i].name, "NEW");
    if (nw->nscenarios > 0 && old->nscenarios > 0) {
        const rb_bundle_scenario *sn = &nw->scenarios[0];
        const rb_bundle_scenario *so = scenario_named(old, sn->name);
        for (size_t r = 0; so && r < sn->nresults; r++) {
            rb_compare_router_name(sn->results[r].router, name, sizeof name);
            if (result_named(so, name) == SIZE_MAX)
                note_only(&c->not_compared, "router", name, "NEW");
        }
    }
    return RB_OK;
}

int rb_compare_evidence(const rb_compare *c, const char *router, rb_gate_evidence *e,
                        size_t *nscenarios, rb_error *err)
{
    double sum = 0, var = 0, spread = 0;
    size_t k = 0, pairs = SIZE_MAX;
    bool too_few = false;
    for (size_t i = 0; i < c->nrows; i++) {
        const rb_compare_row *r = &c->rows[i];
        if (strcmp(r->router, router) != 0) continue;
        if (!(r->ratio > 0 && isfinite(r->ratio)))
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "%s on %s: no ratio (a value is 0)",
                             router, r->scenario);
        k++;
        sum += log(r->ratio);
        if (c->exact) { /* a mean of ratios each within ±s_i is within ±max s_i */
            if (r->spread > spread) spread = r->spread;
            continue;
        }
        if (!r->has_interval)
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                             "%s on %s: no interval (a result without its trials: give the "
                             "bundle directory, whose trials.csv holds them)",
                             router, r->scenario);
        const rb_unpaired_result *u = &r->unpaired;
        size_t n = u->na < u->nb ? u->na : u->nb;
        if (n < pairs) pairs = n;
        too_few |= u->too_few;
        if (!u->too_few) {
            double se = rb_stats_log_se(u->lo, u->hi, u->level);
            var += se * se;
        }
    }
    if (k == 0) return rb__error(err, RB_ENOTFOUND, RB_NO_OFFSET, "no row of router %s", router);
    memset(e, 0, sizeof *e);
    e->exact = c->exact;
    e->median = exp(sum / (double)k);
    *nscenarios = k;
    if (c->exact) {
        e->pairs = 1;
        e->lo = e->median / (1 + spread);
        e->hi = e->median * (1 + spread);
        e->mde = spread;
        e->coverage = 1;
        return RB_OK;
    }
    e->pairs = pairs;
    e->too_few = too_few;
    double se = sqrt(var) / (double)k, z = rb_stats_normal_quantile(0.975);
    e->lo = too_few ? e->median : exp(log(e->median) - z * se);
    e->hi = too_few ? e->median : exp(log(e->median) + z * se);
    e->coverage = 0.95;
    e->mde = too_few ? INFINITY : rb_stats_mde(se, 0.95);
    return RB_OK;
}
